"""The backward formulas generated from derivatives.yaml (tools/bw_formulas.py, docs/bw_formulas.md):
the generator runs, its counts are the ones docs/bw_formulas.md states, and no row is both
generated and overridden by formulas.c without being listed there with its reason."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generate():
    import torchgen
    yaml = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
    defs = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "list_sources.py"), "def"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_ops.py"), yaml,
                            os.path.join(d, "tn_ops_gen.h")] + defs, cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout, open(os.path.join(d, "tn_bw_gen.c")).read()


def _doc():
    return open(os.path.join(ROOT, "docs", "bw_formulas.md")).read()


def test_counts_and_overrides_match_the_doc():
    out, gen = _generate()
    m = re.search(r"backward formulas: (\d+) generated, (\d+) hand-written in formulas.c \((\d+) of them also generated\), "
                  r"(\d+) rows not translated", out)
    assert m, out
    doc = _doc()
    for label, val in zip(("generated", "hand-written", "overridden", "not translated"), m.groups()):
        dm = re.search(r"^- %s: (\d+)" % label, doc, re.M)
        assert dm, f"docs/bw_formulas.md states no count '- {label}: N'"
        assert dm.group(1) == val, f"{label}: the build counts {val}, docs/bw_formulas.md says {dm.group(1)}"
    overridden = set(re.findall(r"^/\* (\S+): overridden in formulas.c \*/$", gen, re.M))
    listed = set(re.findall(r"^\| `([^`]+)` \|", doc, re.M))
    assert overridden == listed, ("rows generated and overridden, not listed in docs/bw_formulas.md: "
                                  f"{sorted(overridden - listed)}; listed but not overridden: {sorted(listed - overridden)}")


def test_blocker_table_covers_every_untranslated_row():
    """tn_bw_gen.c ends with the blocker table (which helper or construct stops how many rows):
    its counts add up to the untranslated rows, most rows first."""
    _, gen = _generate()
    untranslated = re.findall(r"^/\* not translated: ", gen, re.M)
    counts = [int(k) for k in re.findall(r"^/\* blocker +(\d+) ", gen, re.M)]
    assert counts and sum(counts) == len(untranslated)
    assert counts == sorted(counts, reverse=True)


# Formulas whose generated body calls the FunctionsManual helpers of bw_helpers.h (handle_r_to_c,
# maybe_multiply, mul/div_tensor_*_backward, unsqueeze_to, sum_to, TypeAndSize::zeros, Scalar op
# Tensor, not_implemented, ...): gradients and the op stream a dispatch mode sees during backward,
# compared with upstream's.
_STREAM = r'''
import torch, json
from torch.utils._python_dispatch import TorchDispatchMode
log = []
class M(TorchDispatchMode):
    def __torch_dispatch__(self, f, t, a=(), k=None):
        log.append(str(f)); return f(*a, **(k or {}))
cases = {
 "add_sub_alpha": lambda x, y: (torch.add(x, y, alpha=2) * torch.sub(x, y, alpha=0.5)).sum() + torch.rsub(x, y, alpha=3).sum(),
 "mul_div_scalar": lambda x, y: (torch.ops.aten.mul.Scalar(x, 2.5) + torch.ops.aten.div.Scalar(y, 4)).sum() + (x * 2).sum(),
 "div_tensor": lambda x, y: (x / y).sum() + x.clone().div_(y).mul_(3).sub_(x, alpha=2).add_(y, alpha=0.5).sum(),
 "addcmul_addcdiv": lambda x, y: torch.addcdiv(x, x, y, value=0.5).sum() + torch.addcmul(y, x, y, value=2).sum(),
 "addmv_addr_baddbmm": lambda x, y: (torch.addmv(x, x.outer(y), y, beta=2, alpha=0.5).sum() + torch.addr(x.outer(y), x, y, alpha=3).sum()
                                     + torch.baddbmm(x.outer(y)[None], x.outer(y)[None], y.outer(x)[None], alpha=2).sum()),
 "softmax": lambda x, y: (torch.softmax(x, 0) * y).sum() + (torch.log_softmax(x, 0) * y).sum(),
 "squeeze_expand": lambda x, y: (x.reshape(3, 1, 1).squeeze(1).sum() + torch.squeeze(x.reshape(1, 3, 1), (0, 2)).pow(2).sum()
                                 + (x.reshape(3, 1).expand(3, 4) * 2).sum()),
 "erf_deg": lambda x, y: (torch.erf(x) + torch.erfc(x) + torch.erfinv(x.tanh() * 0.5) + torch.special.erfcx(x)).sum() + (torch.deg2rad(x) * torch.rad2deg(y)).sum(),
 "inplace_compare": lambda x, y: x.clone().mul(2).eq_(0.5).sum() + (x * y).sum(),
 "index_add_copy": lambda x, y: (torch.index_add(x.outer(y), 0, torch.tensor([2, 0]), x.outer(y)[:2], alpha=2).sum()
                                 + torch.index_copy(x, 0, torch.tensor([2, 0]), y[:2]).pow(2).sum()),
 "scatters_put": lambda x, y: (torch.select_scatter(x.outer(y), y, 0, 1).pow(2).sum() + torch.diagonal_scatter(x.outer(y), x * y).pow(2).sum()
                               + torch.put(x.outer(y), torch.tensor([0, 4]), y[:2]).pow(2).sum()),
 "lerp_atanh": lambda x, y: torch.lerp(x, y, x.sigmoid()).pow(2).sum() + torch.atanh(x.tanh() * 0.5).sum(),
 "to_complex": lambda x, y: torch.view_as_real(x.to(torch.complex128) * 2).sum(),
 "not_implemented": lambda x, y: x.tanh().mul(0.3).atanh_().sum(),
 "value_selecting": lambda x, y: (torch.max(x.outer(y), 1).values.sum() + torch.min(x.outer(y), 0, keepdim=True).values.pow(2).sum()
                                  + torch.kthvalue(x, 2).values + torch.mode(x.outer(y), 1).values.sum() + torch.median(x.outer(y), 0).values.sum()
                                  + torch.nanmedian(x, 0).values + torch.sort(x * y).values.pow(2).sum()
                                  + torch.sort(x, stable=True, descending=True).values[0] + torch.topk(x.outer(y), 2).values.pow(2).sum()),
 "frexp": lambda x, y: torch.frexp(x * 5).mantissa.pow(2).sum(),
}
res = {}
for name, fn in cases.items():
    x = torch.tensor([0.3, -0.7, 1.2], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([1.5, 0.4, -2.0], dtype=torch.float64, requires_grad=True)
    log.clear()
    try:
        out = fn(x, y)
        with M():
            gs = torch.autograd.grad(out, (x, y), allow_unused=True)
        res[name] = [[None if g is None else g.tolist() for g in gs], list(log)]
    except Exception as e:
        res[name] = [type(e).__name__, str(e)]
print(json.dumps(res))
'''


def test_generated_helpers_match_upstream_op_stream():
    import json
    ref = os.path.join(ROOT, ".venv-ref", "bin", "python")
    if not os.path.exists(ref):
        import pytest
        pytest.skip("no .venv-ref")
    out = {}
    for side, py in (("ref", ref), ("ours", sys.executable)):
        p = subprocess.run([py, "-c", _STREAM], capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=300)
        assert p.returncode == 0, p.stderr[-2000:]
        out[side] = json.loads(p.stdout.strip().splitlines()[-1])
    bad = {k: (out["ref"][k], out["ours"].get(k)) for k in out["ref"] if out["ref"][k] != out["ours"].get(k)}
    assert not bad, bad
