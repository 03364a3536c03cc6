"""The f32 vector exp variants (and the double-lane activations of kernels/vmath_body.h: exp, log,
tanh, gelu both forms and the silu / gelu backwards; and softmax's clones) chosen at run time (kernels/vmath.c: AVX-512 or AVX2 bodies in
kernels/x86/vmath_x86.c on x86-64, else the portable loop) must return the portable loop's bits
exactly: lane for lane the same multiplies and adds, never fused. Each case runs the same
computations in torchnative processes forced to each variant (TN_VEXP=ref / avx2; unset picks
the best the CPU has) and compares the raw bytes. Inputs cover the users of the vector exp
(f32 silu and sigmoid on contiguous runs, attention's softmax), block tails (256-element
blocks, 16- and 8-lane vectors), the clamp edges, infinities, NaN and subnormal results."""
import os

import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SNIPPET = r"""
import hashlib, torch
torch.manual_seed(0)
F = torch.nn.functional
out = []
def put(name, t):
    out.append("%s %s %s" % (name, tuple(t.shape), hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:16]))
e = torch.tensor([0., -0., 1., -1., 88.7, 88.72, 88.73, 88.8, -87.3, -87.33, -87.34, -87.4, -103.,
                  -104., -150., 1e4, -1e4, float('inf'), float('-inf'), float('nan')])
for n in [1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 1000]:
    x = torch.cat([torch.randn(n) * 30, e])
    put("silu %d" % n, F.silu(x))
    put("sigmoid %d" % n, torch.sigmoid(x))
put("silu wide", F.silu(torch.linspace(-120, 120, 4099)))
put("sigmoid wide", torch.sigmoid(torch.linspace(-120, 120, 4099)))
q, k, v = torch.randn(2, 3, 37, 16), torch.randn(2, 3, 41, 16), torch.randn(2, 3, 41, 16)
for causal in (False, True):
    put("sdpa %s" % causal, F.scaled_dot_product_attention(q, k[:, :, :37], v[:, :, :37], is_causal=causal))
put("sdpa mask", F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(37, 41) * 5))
# the double-lane activations (kernels/vmath_body.h): 2-, 4- and 8-lane bodies and their tails
sp = torch.tensor([0., -0., 1e-45, -1e-45, 1e-40, 1.17e-38, 1., -1., 0.5, 1.5, -1.5, 14.8, -14.8, 14.95, -14.95,
                   20., -20., 88.7, 88.8, -87.4, -103.9, -104., -110.5, 3e38, -3e38,
                   float('inf'), float('-inf'), float('nan')])
for n in [1, 3, 4, 7, 8, 9, 255, 256, 257, 1000]:
    x = torch.cat([torch.randn(n) * 30, sp, torch.rand(n) * 3])
    g = torch.randn(x.numel())
    for name, f in [("exp", torch.exp), ("log", torch.log), ("log_abs", lambda t: torch.log(t.abs())),
                    ("tanh", torch.tanh), ("gelu", F.gelu), ("gelu_tanh", lambda t: F.gelu(t, approximate="tanh")),
                    ("silu_bw", lambda t: torch.ops.aten.silu_backward(g, t)),
                    ("gelu_bw", lambda t: torch.ops.aten.gelu_backward(g, t)),
                    ("gelu_tanh_bw", lambda t: torch.ops.aten.gelu_backward(g, t, approximate="tanh")),
                    ("tanh_strided", lambda t: torch.tanh(t.repeat(2)[::2]))]:
        put("%s %d" % (name, n), f(x))
put("log dense", torch.log(torch.linspace(1e-30, 10, 100003)))
x = torch.randn(7, 300, 19) * 5
x[0, :, 0] = -float('inf'); x[1, 3, 1] = float('nan')
for d in (0, 1, 2):
    for name, f, b in [("softmax", torch.softmax, torch.ops.aten._softmax_backward_data),
                       ("log_softmax", torch.log_softmax, torch.ops.aten._log_softmax_backward_data)]:
        y = f(x, d)
        put("%s %d" % (name, d), y)
        put("%s bw %d" % (name, d), b(torch.randn_like(x), y.nan_to_num(0, 0, 0), d, torch.float32))
print("\n".join(out))
"""


def run(env_extra):   # "best" (env_extra {}) means the run-time choice
    return run_snippet(OURS, SNIPPET, env_extra, unset="TN_VEXP")


def test_vexp_variants_match_portable_bits():
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    ref = run({"TN_VEXP": "ref"})
    assert len(ref) > 20
    cpu = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    variants = {"best": {}}
    if " avx2" in cpu:
        variants["avx2"] = {"TN_VEXP": "avx2"}
    for name, env in variants.items():
        got = run(env)
        # gelu (erf form) is the one exception: each body rounds as upstream's kernel for its ISA
        # (kernels/vmath_body.h vm_gelu_s), the AVX-512 body x (1 + erf) / 2, the AVX2 and portable
        # ones fma(x/2, erf, x/2); "best" is the AVX-512 body where the CPU has it
        lanes8 = name == "best" and " avx512f" in cpu
        bad = [f"{a}  !=  {b}" for a, b in zip(got, ref) if a != b and not (lanes8 and a.split(" ")[0] == "gelu")]
        assert len(got) == len(ref) and not bad, \
            "vexp variant %s differs from the portable loop:\n%s" % (name, "\n".join(bad[:20]))
