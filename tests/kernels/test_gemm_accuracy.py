"""Long-k float32 matrix products are about as accurate as upstream's: each output's chain restarts
every TN_GEMM_KC k (kernels/gemm.h). For seeded random normal operands (the same on both sides:
our generator draws upstream's numbers), the rms error of the float32 product against the float64
one is measured on both sides; ours must stay within 2x upstream's (MKL's blocked sums; measured
2026-12-04: ours / MKL 0.97-1.14 on these shapes, where one k-long chain was 4-10x). MKL's own
blocking, and so its error, may differ by CPU; the factor 2 leaves room for that, not for a
k-long chain. Also checked: addmm, bmm, a transposed right operand (the nn.Linear layout) and
F.linear, which reach the same kernels by other doors."""
import os

import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")

SNIPPET = r"""
import torch
torch.manual_seed(0)
F = torch.nn.functional
def rms(a, b):
    return float((a.double() - b).pow(2).mean().sqrt())
for M, K, N in [(16, 32768, 32), (16, 8192, 32), (64, 4096, 64), (40, 3000, 24)]:
    a, b = torch.randn(M, K), torch.randn(K, N)
    exact = a.double() @ b.double()
    w = b.t().contiguous()
    c = torch.randn(M, N)
    print("mm", M, K, N, rms(a @ b, exact))
    print("linear", M, K, N, rms(F.linear(a, w), exact))
    print("mm_wT", M, K, N, rms(a @ w.t(), exact))
    print("addmm", M, K, N, rms(torch.addmm(c, a, b), c.double() + exact))
    print("bmm", M, K, N, rms(torch.bmm(a[None], b[None])[0], exact))
"""


def _errors(python):
    return {" ".join(l.split()[:4]): float(l.split()[4]) for l in run_snippet(python, SNIPPET, {})}


@pytest.mark.skipif(not os.path.exists(REF), reason="needs the reference environment (.venv-ref)")
def test_long_k_products_as_accurate_as_upstream():
    ours, ref = _errors(OURS), _errors(REF)
    assert set(ours) == set(ref)
    bad = {k: (ours[k], ref[k]) for k in ours if ours[k] > 2 * ref[k]}
    assert not bad, "rms error vs float64 (ours, upstream) over 2x upstream's: %s" % bad
