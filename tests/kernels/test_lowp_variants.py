"""The bf16 / f16 pointwise vector bodies (kernels/lowp.h: bf16 / f16 <-> f32 conversion, add, mul,
neg, and the silu and scaled_dot_product_attention built on them; portable, AVX2+F16C and AVX-512
bodies chosen at run time, TN_VEXP=ref|avx2 forcing a lower one) against each other and against
upstream.

Every bf16 / f16 bit pattern (65,536 values, NaNs and infinities included) goes through each op, on
contiguous runs, strided views, broadcast operands and runs of every length 1..70 (vector bodies
and tails). Two checks:
  - each variant returns the portable body's bytes exactly (NaN payloads included);
  - the portable body agrees with upstream torch 2.13.0 (.venv-ref) bit for bit on every
    non-NaN result of the pointwise ops (sdpa sums in upstream's own order: its golden cases in
    tests/cases compare it within the float rule) (NaN payloads are not compared: upstream's scalar and vector paths store
    different NaN bits for the same op)."""
import os

import numpy as np
import pytest
from harness.variants import run_snippet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")

SNIPPET = r"""
import sys, numpy as np, torch
F = torch.nn.functional
dt = getattr(torch, sys.argv[2])
x = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dt)
y = torch.arange(0, 65536, dtype=torch.int32).flip(0).to(torch.int16).view(dt)
w = torch.arange(0, 65536 * 7, 7, dtype=torch.int64).remainder(65536).to(torch.int32).to(torch.int16).view(dt)
torch.manual_seed(0)
f = torch.randn(65536) * (1e3 if dt == torch.bfloat16 else 3e1)
f[::97] = float('nan'); f[1::101] = float('inf'); f[2::103] = 3.4e38
f[3::107] = 65520.0; f[4::109] = 65519.996; f[5::113] = 2.0 ** -25; f[6::127] = 3e-8; f[7::131] = 1e-45
f[8::137] = 6.1e-5
qkv = [(torch.randn(2, 3, 5, 16) * 2).to(dt) for _ in range(3)]
mask = torch.randn(5, 5) > 0
out = {
    "neg": torch.neg(x), "neg_t": torch.neg(x.view(256, 256).t()), "silu": F.silu(x), "silu_t": F.silu(x.view(256, 256).t()), "silu_ip": F.silu(x.clone(), inplace=True),
    "mul": x * y, "mul_w": x * w, "add": x + y, "add_w": x + w, "add_t": x.view(256, 256).t() + y.view(256, 256),
    "mul_row": x.view(256, 256) * y[:256], "mul_col": x.view(256, 256) * y[:256].view(256, 1),
    "mul_0d": x * y[5], "add_0d_first": y[7] + x, "add_alpha": torch.add(x, y, alpha=2),
    "to_lp": f.to(dt), "to_lp_t": f.view(256, 256).t().to(dt),
    "to_f32": x.float(), "to_f32_t": x.view(256, 256).t().float(),
    "sdpa": F.scaled_dot_product_attention(*qkv), "sdpa_causal": F.scaled_dot_product_attention(*qkv, is_causal=True),
    "sdpa_mask": F.scaled_dot_product_attention(*qkv, attn_mask=mask),
}
for n in range(1, 71):
    a, b = x[n * 11: n * 12], w[n * 5: n * 6]
    out["silu%d" % n] = F.silu(a)
    out["neg%d" % n] = -a
    out["mul%d" % n] = a * b
    out["add%d" % n] = a + b
    out["mulb%d" % n] = a * b[0]
    out["cast%d" % n] = f[n * 13: n * 14].to(dt)
    out["widen%d" % n] = a.float()
np.savez(sys.argv[1], **{k: (v.contiguous().view(torch.int16) if v.dtype == dt else v.contiguous().view(torch.int32)).numpy()
                          for k, v in out.items()})
"""


def run(py, env_extra, path, dtype):   # "best" (env_extra {}) means the run-time choice
    run_snippet(py, SNIPPET, env_extra, unset="TN_VEXP", args=(path, dtype))


def _as_float(a, dtype):
    """the saved bit patterns as float32 values (bf16 / f16 widened exactly)"""
    if a.dtype == np.int16:
        if dtype == "float16":
            return a.view(np.float16).astype(np.float32)
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a.view(np.float32)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_lowp_variants_and_upstream(tmp_path, dtype):
    if not os.path.exists(OURS) or not os.path.exists(REF):
        pytest.skip("environments not built (make setup)")
    # the pytest process never imports torch (test_harness_selftest): results travel as numpy bits
    run(OURS, {"TN_VEXP": "ref"}, str(tmp_path / "ref.npz"), dtype)
    portable = dict(np.load(str(tmp_path / "ref.npz")))
    cpu = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    variants = {"best": {}}
    if " avx2" in cpu:
        variants["avx2"] = {"TN_VEXP": "avx2"}
    for name, env in variants.items():
        run(OURS, env, str(tmp_path / (name + ".npz")), dtype)
        got = np.load(str(tmp_path / (name + ".npz")))
        bad = [k for k in portable if not np.array_equal(portable[k], got[k])]
        assert not bad, "lowp variant %s differs from the portable body: %s" % (name, bad[:20])
    run(REF, {}, str(tmp_path / "upstream.npz"), dtype)
    up = np.load(str(tmp_path / "upstream.npz"))
    bad = []
    for k in up.files:
        if k.startswith("sdpa"):   # upstream's sdpa sums in another order: tests/cases compare it within tolerance
            continue
        u, o = up[k], portable[k]
        diff = (u != o) & ~(np.isnan(_as_float(u, dtype)) & np.isnan(_as_float(o, dtype)))
        if diff.any():
            bad.append("%s: %d values" % (k, int(diff.sum())))
    assert not bad, "%s results differ from upstream's: %s" % (dtype, bad[:20])
