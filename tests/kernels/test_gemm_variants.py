"""The f32 GEMM variants chosen at run time (kernels/gemm.c: AVX-512 or AVX2 microkernels on
x86-64) must return the portable reference kernels' bits exactly: the blocking never changes an
output's fused multiply-add chain. Each case runs the same products in two torchnative processes,
one forced to the reference (TN_GEMM=ref), and compares the raw bytes. Shapes cover every edge:
row counts around the few-row path and the microkernel heights, k on both sides of
64 (where few-row products switch to the lane order), column and k tails, strided
operands (transposed, sliced, batched), alpha/beta, sizes past one packed block, and long k
(split into k blocks). The same
products with 2 and 3 threads must give the 1-thread bytes."""
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
    out.append("%s %s %s" % (name, tuple(t.shape), hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:16]))
for M in [1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64, 100]:
    for N, K in [(1, 5), (7, 9), (8, 8), (13, 31), (33, 64), (9, 65), (70, 129), (192, 576)]:
        x, w, b = torch.randn(M, K), torch.randn(N, K), torch.randn(N)
        put("linear %d %d %d" % (M, N, K), F.linear(x, w))
        put("linear+b %d %d %d" % (M, N, K), F.linear(x, w, b))
        y = torch.randn(K, N)
        put("mm %d %d %d" % (M, N, K), x @ y)
        put("mm xT %d %d %d" % (M, N, K), x @ w.t())
        put("addmm %d %d %d" % (M, N, K), torch.addmm(torch.randn(M, N), x, y, beta=0.5, alpha=1.5))
        # A @ W^T added to C (alpha 1, beta 1: the transposing tile store's add)
        put("addmm wT %d %d %d" % (M, N, K), torch.addmm(torch.randn(M, N), x, w.t()))
xs = torch.randn(4, 150, 96)
put("linear 3d", F.linear(xs, torch.randn(40, 96)))
put("linear sliced", F.linear(xs[:, ::2, :64], torch.randn(24, 100)[:, 10:74]))
put("bmm", torch.bmm(torch.randn(6, 37, 21), torch.randn(6, 21, 45)))
put("baddbmm", torch.baddbmm(torch.randn(3, 20, 30), torch.randn(3, 20, 11), torch.randn(3, 11, 30), alpha=0.7))
put("big", F.linear(torch.randn(300, 1100), torch.randn(50, 1100)))
# a convolution's weight gradient (A @ W^T per image, each added to the sum so far)
cx, cw = torch.randn(3, 7, 9, 10), torch.randn(13, 7, 3, 3)
cgo = torch.randn(3, 13, 9, 10)
put("conv weight grad", torch.ops.aten.convolution_backward(cgo, cx, cw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                            [False, True, False])[1])
# the forward on packed columns (bias added to the finished sums) and the input gradient through
# column blocks and col2im (more output than input channels, or strided) keep the plain path's bits
put("conv forward", F.conv2d(cx, cw, torch.randn(13), padding=1))
put("conv forward strided", F.conv2d(torch.randn(2, 40, 33, 30), torch.randn(13, 40, 3, 3), stride=(2, 3), padding=(1, 0)))
put("conv grad input", torch.ops.aten.convolution_backward(cgo, cx, cw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1,
                                                           [True, False, False])[0])
sgo = torch.randn(3, 13, 5, 5)
put("conv grad input strided", torch.ops.aten.convolution_backward(sgo, cx, cw, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1,
                                                                   [True, False, False])[0])
# long k: A @ B split into k blocks (kernels/gemm.c, blocked()), row / column / k tails, alpha,
# and a transposed left operand (copied through kernels/ref/cast.c's tiles)
for M, K, N in [(5, 20000, 40), (13, 3000, 1000), (37, 5000, 200), (64, 49152, 96)]:
    x, y = torch.randn(M, K), torch.randn(K, N)
    put("long k %d %d %d" % (M, N, K), x @ y)
    put("long k alpha %d %d %d" % (M, N, K), torch.addmm(torch.zeros(M, N), x, y, beta=0, alpha=0.37))
    put("long k xT %d %d %d" % (M, N, K), torch.randn(K, M).t() @ y)
put("matmul T", torch.randn(2, 3, 40, 24).transpose(-1, -2) @ torch.randn(40, 17))
q, k, v = torch.randn(2, 4, 70, 16), torch.randn(2, 4, 70, 16), torch.randn(2, 4, 70, 16)
for causal in (False, True):
    put("sdpa %s" % causal, F.scaled_dot_product_attention(q, k, v, is_causal=causal))
# several 64-row query blocks per head, shared over the pool when it has threads
q, k, v = torch.randn(1, 9, 200, 64), torch.randn(1, 3, 200, 64), torch.randn(1, 3, 200, 64)
for causal in (False, True):
    put("sdpa gqa %s" % causal, F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True))
put("sdpa mask", F.scaled_dot_product_attention(q[:, :3], k, v, attn_mask=torch.randn(200, 200)))
# several key blocks per unit (flash-style online softmax), units claimed one at a time
q, k, v = torch.randn(1, 6, 1100, 32), torch.randn(1, 2, 1100, 32), torch.randn(1, 2, 1100, 32)
for causal in (False, True):
    put("sdpa long %s" % causal, F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True))
print("\n".join(out))
"""


def run(env_extra):
    return run_snippet(OURS, SNIPPET, env_extra)


def test_variants_match_reference_bits():
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    fast, ref = run({}), run({"TN_GEMM": "ref"})
    assert len(fast) == len(ref) > 500
    bad = [f"{a}  !=  {b}" for a, b in zip(fast, ref) if a != b]
    assert not bad, "variants differ from the reference:\n" + "\n".join(bad[:20])
    if "avx512" in open("/proc/cpuinfo").read():
        avx2 = run({"TN_GEMM": "avx2"})
        bad = [f"{a}  !=  {b}" for a, b in zip(avx2, ref) if a != b]
        assert not bad, "AVX2 variant differs from the reference:\n" + "\n".join(bad[:20])


def test_thread_count_does_not_change_bits():
    """Products and attention split their work over the pool (core/parallel.c) so that every output
    is computed whole by one thread: 1, 2 and 3 threads give the same bytes."""
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    one = run({})
    for n in ("2", "3"):
        many = run({"OMP_NUM_THREADS": n})
        assert len(many) == len(one) > 500
        bad = [f"{a}  !=  {b}" for a, b in zip(many, one) if a != b]
        assert not bad, f"{n} threads differ from 1:\n" + "\n".join(bad[:20])
