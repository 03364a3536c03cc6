"""The bf16 / f16 GEMM variants chosen at run time (kernels/gemm_lp.c: AVX-512 BF16's vdpbf16ps,
AVX2 widening in registers, the portable C reference) must return the reference's bits exactly:
each output follows one stated order (kernels/gemm_lp_isa.h), vdpbf16ps's pairing, DAZ and FTZ
included. The same products run in torchnative processes forced to TN_GEMM=ref (one thread), to
TN_GEMM=avx2 and to the default variant (two threads, so the split cannot matter either), and the
raw bytes are compared. Shapes cover the few-row (lane order) path and the blocked path on both
sides of 8 rows, microkernel heights 6 and 12, odd k (pair tails), k tails of 32, column tails,
transposed / sliced / batched operands, alpha / beta, sizes past one packed block, and bf16
inputs near the bottom of the range (denormal inputs and products, where DAZ / FTZ decide)."""
import os
import sys

import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SNIPPET = r"""
import hashlib, sys, torch
torch.manual_seed(0)
F = torch.nn.functional
out = []
def put(name, t):
    out.append("%s %s %s" % (name, tuple(t.shape), hashlib.sha256(t.contiguous().view(torch.int16).numpy().tobytes()).hexdigest()[:16]))
for dt in (torch.bfloat16, torch.float16):
    for M in [1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 25, 64]:
        for N, K in [(1, 5), (7, 9), (8, 8), (13, 31), (33, 64), (9, 65), (70, 129), (24, 576)]:
            x, w, b = torch.randn(M, K).to(dt), torch.randn(N, K).to(dt), torch.randn(N).to(dt)
            tag = "%s %d %d %d" % (dt, M, N, K)
            put("linear " + tag, F.linear(x, w))
            put("linear+b " + tag, F.linear(x, w, b))
            put("mm " + tag, x @ torch.randn(K, N).to(dt))
            put("addmm " + tag, torch.addmm(torch.randn(M, N).to(dt), x, w.t(), beta=0.5, alpha=1.5))
    xs = torch.randn(4, 150, 96).to(dt)
    put("linear 3d %s" % dt, F.linear(xs, torch.randn(40, 96).to(dt)))
    put("linear sliced %s" % dt, F.linear(xs[:, ::2, :64], torch.randn(24, 100).to(dt)[:, 10:74]))
    put("bmm %s" % dt, torch.bmm(torch.randn(6, 37, 21).to(dt), torch.randn(6, 21, 45).to(dt)))
    put("baddbmm %s" % dt, torch.baddbmm(torch.randn(3, 20, 30).to(dt), torch.randn(3, 20, 11).to(dt), torch.randn(3, 11, 30).to(dt), alpha=0.7))
    put("big %s" % dt, F.linear(torch.randn(40, 1100).to(dt), torch.randn(700, 1100).to(dt)))
    put("big nn %s" % dt, torch.randn(20, 1500).to(dt) @ torch.randn(1500, 700).to(dt))
    put("matmul T %s" % dt, torch.randn(2, 3, 40, 24).to(dt).transpose(-1, -2) @ torch.randn(40, 17).to(dt))
# the bottom of bf16's range: denormal inputs, products and sums that underflow
for s in (1e-19, 4e-20, 3e-39):
    x, w = (torch.randn(16, 67) * s).bfloat16(), (torch.randn(33, 67) * 1e-19).bfloat16()
    put("tiny %g" % s, F.linear(x, w))
    put("tiny gemv %g" % s, F.linear(x[:1], w))
    put("tiny nn %g" % s, x @ w.t().contiguous())
print("\n".join(out))
"""


def run(env_extra, threads):
    return run_snippet(OURS, SNIPPET, env_extra, threads=threads, unset="TN_GEMM", timeout=900)


def test_lowp_variants_match_reference_bits():
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    ref = run({"TN_GEMM": "ref"}, 1)
    assert len(ref) > 700
    flags = open("/proc/cpuinfo").read()
    variants = [("default", {}, 2)]
    if " avx2" in flags:
        variants.append(("avx2", {"TN_GEMM": "avx2"}, 2))
    for name, env, threads in variants:
        got = run(env, threads)
        bad = [f"{a}  !=  {b}" for a, b in zip(got, ref) if a != b]
        assert len(got) == len(ref) and not bad, f"{name} variant differs from the reference:\n" + "\n".join(bad[:20])
