"""A short training loop under torch.autocast("cpu") compared with upstream step by step
(issue #9): tests/autocast_train_worker.py (its docstring has the set-up) run by upstream under
autocast and in float64 without it, and by torchnative under autocast; one fresh interpreter per
run, OMP_NUM_THREADS=1.

Rule (tests/harness/drift.py, the drift rule of the training runs with the lower-precision run in
the place of float32): after every step, for the loss and for the parameters (pooled),
    max|ours_ac - up_ac| <= K * max|up_ac - up_f64| + 4 ulp(f32) * max|up_ac|,   K = 4,
i.e. our autocast run may differ from upstream's autocast run by four times upstream's own
autocast-vs-float64 drift over the same steps.
"""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from harness import drift  # noqa: E402

WORKER = HERE / "autocast_train_worker.py"
REF = os.environ.get("TN_REF_PYTHON", str(ROOT / ".venv-ref" / "bin" / "python"))
SUB = os.environ.get("TN_SUBJECT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
# float16 is not claimed: measured (this host, AVX-512), our float16 runs stay near upstream's
# parameters (ratio 0.01 / 0.20) but the loss leaves the rule at single steps (mlp step 16: ratio
# 2.8; convnet: 6.0): upstream's float16 matrix products and convolutions round some elements one
# float16 ulp away from ours (its float16 transposed convolution also outside autocast)
RUNS = [("mlp", "bf16"), ("convnet", "bf16")]


def _one(python, run, mode, outdir):
    out = os.path.join(outdir, "%s-%s-%s.npz" % (Path(python).parent.parent.name, run, mode))
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    r = subprocess.run([python, str(WORKER), run, mode, out], capture_output=True, text=True, timeout=600,
                       env=env, stdin=subprocess.DEVNULL)
    if r.returncode:
        return "exit %d: %s" % (r.returncode, r.stderr[-2500:])
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def runs():
    outdir = tempfile.mkdtemp(prefix="tn-autocast-")
    jobs = {}
    for run, mode in RUNS:
        jobs[("ref", run, mode)] = (REF, run, mode)
        jobs[("sub", run, mode)] = (SUB, run, mode)
        jobs[("ref", run, "f64")] = (REF, run, "f64")
    with ThreadPoolExecutor(2) as ex:
        futs = {k: ex.submit(_one, *v, outdir) for k, v in jobs.items()}
        return {k: f.result() for k, f in futs.items()}


STATS = ("running_mean", "running_var")


def _quantities(rec):
    """the loss, all parameters pooled, the BatchNorm running statistics pooled"""
    return drift.pool(rec, {"params": lambda n: n != "loss" and not n.endswith(STATS),
                            "bn_stats": lambda n: n.endswith(STATS)})


@pytest.mark.parametrize("run,mode", RUNS, ids=["%s-%s" % r for r in RUNS])
def test_autocast_training(runs, run, mode):
    ref, sub, r64 = runs[("ref", run, mode)], runs[("sub", run, mode)], runs[("ref", run, "f64")]
    for name, rec in (("upstream", ref), ("torchnative", sub), ("upstream f64", r64)):
        assert isinstance(rec, dict), "%s run failed: %s" % (name, rec)
    failures, rows = drift.compare(_quantities(sub), _quantities(ref), _quantities(r64))
    for name, d, dev, ratio in rows:
        print("%s %s %-8s upstream drift %.3e  |ours - upstream| %.3e  ratio %.2f" % (run, mode, name, d, dev, ratio))
    assert not failures, "\n".join(failures[:10])
