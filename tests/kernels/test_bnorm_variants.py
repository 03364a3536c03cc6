"""The batch-norm kernels' AVX2+FMA build (kernels/x86/bnorm_fma.c, chosen at run time by
kernels/ref/bnorm.c) must return the plain build's bits exactly (one body, kernels/bnorm_body.h;
ISO C, so nothing is contracted). Each case runs the same computations in torchnative processes
with TN_BNORM=ref and unset and compares the raw bytes: float and double, NCHW with planes
shorter and longer than a lane group / 64-element block, channels-last, 1 and 2 threads, eval
mode, forward and backward, and inputs whose statistics take the sequential fallback (order-
sensitive sums, NaN, infinity)."""
import os

import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SNIPPET = r"""
import hashlib, torch
torch.manual_seed(0)
out = []
def put(name, t):
    out.append("%s %s %s" % (name, tuple(t.shape), hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:16]))
order = torch.tensor([2.**60, 1, 0, 0, -2.**60, 0, 0, 0])
for th in (1, 2):
    torch.set_num_threads(th)
    for shape in [(4, 3, 5), (2, 3, 8), (3, 4, 9, 7), (2, 2, 65), (5, 3, 130), (8, 4, 33, 17), (16, 2)]:
        for dt in (torch.float32, torch.float64):
            for kind in ("randn", "offset", "order", "nan"):
                x = torch.randn(shape, dtype=dt)
                if kind == "offset": x = x * 1e-3 + 100
                if kind == "order": x = order.to(dt).repeat(x.numel() // 8 + 1)[:x.numel()].reshape(shape)
                if kind == "nan":
                    x.view(-1)[0] = float("nan"); x.view(-1)[-1] = float("inf")
                C = shape[1]
                w, b = torch.randn(C, dtype=dt), torch.randn(C, dtype=dt)
                rm, rv = torch.zeros(C, dtype=dt), torch.ones(C, dtype=dt)
                go = torch.randn(shape, dtype=dt)
                for cl in (False, True):
                    if cl and len(shape) != 4: continue
                    xi = x.to(memory_format=torch.channels_last) if cl else x
                    tag = "%d %s %s %s %s" % (th, shape, dt, kind, cl)
                    for train in (True, False):
                        y, sm, si = torch.native_batch_norm(xi, w, b, rm, rv, train, 0.1, 1e-5)
                        for n, t in [("y", y), ("sm", sm), ("si", si), ("rm", rm), ("rv", rv)]:
                            put("%s %s %s" % (tag, train, n), t)
                        g = torch.ops.aten.native_batch_norm_backward(go, xi, w, rm, rv, sm, si, train, 1e-5, [True, True, True])
                        for n, t in zip(("dx", "dw", "db"), g):
                            put("%s %s %s" % (tag, train, n), t)
print("\n".join(out))
"""


def run(env_extra):
    return run_snippet(OURS, SNIPPET, env_extra, threads=2, unset="TN_BNORM")


def test_bnorm_variants_match_plain_bits():
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    ref = run({"TN_BNORM": "ref"})
    assert len(ref) > 100
    got = run({})
    bad = [f"{a}  !=  {b}" for a, b in zip(got, ref) if a != b]
    assert len(got) == len(ref) and not bad, "batch-norm FMA build differs from the plain build:\n%s" % "\n".join(bad[:20])
