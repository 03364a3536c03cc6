"""torchnative has no TorchScript compiler, so its `torch._C` puts torch in upstream's documented
JIT-disabled mode (PYTORCH_JIT=0) unless the user set the variable (docs/ARCHITECTURE.md, "The
path of a forward-mode tangent"). Checked in a fresh interpreter with PYTORCH_JIT removed from the
environment: the default is set, `torch.jit.script` returns the Python function (as upstream's
does with PYTORCH_JIT=0), `forward_ad.make_dual` works, and the results equal upstream's run with
PYTORCH_JIT=0. A user's own setting is left alone."""
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PY = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
SUBJECT_PY = os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))

SCRIPT = r"""
import json, os, torch
import torch.autograd.forward_ad as fwAD
def f(x):
    return x.sin() * 2
s = torch.jit.script(f)
torch.manual_seed(0)
x, t = torch.randn(5), torch.randn(5)
with fwAD.dual_level():
    p, tan = fwAD.unpack_dual(fwAD.make_dual(x, t).sin())
print(json.dumps({"env": os.environ.get("PYTORCH_JIT"), "script_is_fn": s is f,
                  "scripted": s(x).tolist(), "primal": p.tolist(), "tangent": tan.tolist()}))
"""


def run(py, jit):
    env = {k: v for k, v in os.environ.items() if k != "PYTORCH_JIT"}
    if jit is not None:
        env["PYTORCH_JIT"] = jit
    r = subprocess.run([py, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    return r


def test_default_is_jit_disabled_and_agrees_with_upstream():
    ours = run(SUBJECT_PY, None)
    assert ours.returncode == 0, ours.stderr
    ref = run(REF_PY, "0")
    assert ref.returncode == 0, ref.stderr
    assert json.loads(ours.stdout) == json.loads(ref.stdout)
    assert json.loads(ours.stdout)["env"] == "0"


def test_user_setting_is_kept():
    r = subprocess.run([SUBJECT_PY, "-c", "import os, torch; print(os.environ['PYTORCH_JIT'])"],
                       env={**os.environ, "PYTORCH_JIT": "1"}, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "1"
