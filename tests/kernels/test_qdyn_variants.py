"""The quantized Linear's kernel variants (kernels/ref/qlinear.c, the portable reference;
kernels/x86/qlinear-avx512vnni.c: packed weights and vpdpbusd, vector quantization and
requantization, the float16 product's chains 16 outputs to a register) must return the
reference's bits exactly: the integer sums are exact either way and the float steps are the same
IEEE operations in the same order. Dynamic int8, static int8 and float16 products. The same products run in torchnative processes
forced to TN_QDYN=ref (one thread) and on the default variant (two threads), and the raw bytes are
compared. Shapes cover row tails of the 4-row tiles, column tails of the 16- and 64-column blocks,
k tails of the groups of four and of 16 lanes, per-tensor and per-channel weights with zero
points, bias or none, relu, reduce_range, batched inputs, NaN / inf inputs."""
import os

import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SNIPPET = r"""
import hashlib, warnings, torch
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
out = []
def put(name, t):
    out.append("%s %s %s" % (name, tuple(t.shape), hashlib.sha256(t.contiguous().view(torch.int32).numpy().tobytes()).hexdigest()[:16]))
for M in [1, 2, 3, 4, 5, 7, 9, 33]:
    for N, K in [(1, 1), (3, 5), (16, 4), (17, 15), (64, 64), (65, 67), (130, 200), (40, 1025)]:
        w = torch.randn(N, K) * 0.2
        qt = torch.quantize_per_tensor(w, 0.004, 3, torch.qint8)
        qc = torch.quantize_per_channel(w, torch.rand(N).double() * 0.005 + 0.001, torch.randint(-5, 5, (N,)), 0, torch.qint8)
        x = torch.randn(M, K) * 3 + 0.3
        tag = "%d %d %d" % (M, N, K)
        for name, p in (("t", Q.linear_prepack(qt, torch.randn(N))), ("c", Q.linear_prepack(qc, None))):
            put("dyn %s %s" % (name, tag), Q.linear_dynamic(x, p))
            put("dyn rr %s %s" % (name, tag), Q.linear_dynamic(x, p, True))
            put("relu %s %s" % (name, tag), Q.linear_relu_dynamic(x, p, True))
for M in [1, 3, 4, 5, 9]:
    for N, K in [(1, 1), (15, 7), (16, 16), (17, 40), (33, 511), (40, 1100), (5, 0)]:
        x = torch.randn(M, K)
        p16 = Q.linear_prepack_fp16(torch.randn(N, K), torch.randn(N))
        put("fp16 %d %d %d" % (M, N, K), Q.linear_dynamic_fp16(x, p16))
        put("fp16 relu %d %d %d" % (M, N, K), Q.linear_relu_dynamic_fp16(x, p16))
        xq = torch.quantize_per_tensor(x * 2, 0.02, 100, torch.quint8)
        if K:
            ps = Q.linear_prepack(torch.quantize_per_tensor(torch.randn(N, K) * 0.2, 0.004, 1, torch.qint8), torch.randn(N))
            put("static %d %d %d" % (M, N, K), Q.linear(xq, ps, 0.03, 77).int_repr().int())
            put("static relu %d %d %d" % (M, N, K), Q.linear_relu(xq, ps, 0.03, 77).int_repr().int())
p = Q.linear_prepack(torch.quantize_per_tensor(torch.randn(50, 70) * 0.1, 0.003, 0, torch.qint8), torch.randn(50))
put("batched", Q.linear_dynamic(torch.randn(3, 11, 70), p, True))
x = torch.randn(6, 70); x[1, 3] = float("nan"); x[4, 69] = float("inf")
put("specials", Q.linear_dynamic(x, p))
print("\n".join(out))
"""


def run(env_extra, threads):
    return run_snippet(OURS, SNIPPET, env_extra, threads=threads, unset="TN_QDYN", timeout=900)


def test_qdyn_variants_match_reference_bits():
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    ref = run({"TN_QDYN": "ref"}, 1)
    assert len(ref) > 500
    got = run({}, 2)
    bad = [f"{a}  !=  {b}" for a, b in zip(got, ref) if a != b]
    assert len(got) == len(ref) and not bad, "the default variant differs from the reference:\n" + "\n".join(bad[:20])
