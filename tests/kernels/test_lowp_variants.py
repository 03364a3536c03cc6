"""The bf16 pointwise vector bodies (kernels/lowp.h: bf16 <-> f32 conversion, add, mul, neg, and
the bf16 silu built on them; portable, AVX2 and AVX-512 bodies chosen at run time, TN_VEXP=ref|avx2
forcing a lower one) against each other and against upstream.

Every bf16 bit pattern (65,536 values, NaNs and infinities included) goes through each op, on
contiguous runs, strided views, broadcast operands and runs of every length 1..70 (vector bodies
and tails). Two checks:
  - each variant returns the portable body's bytes exactly (NaN payloads included);
  - the portable body agrees with upstream torch 2.13.0 (.venv-ref) bit for bit on every
    non-NaN result (NaN payloads are not compared: upstream's scalar and vector paths store
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
x = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
y = torch.arange(0, 65536, dtype=torch.int32).flip(0).to(torch.int16).view(torch.bfloat16)
w = torch.arange(0, 65536 * 7, 7, dtype=torch.int64).remainder(65536).to(torch.int32).to(torch.int16).view(torch.bfloat16)
torch.manual_seed(0)
f = torch.randn(65536) * 1e3
f[::97] = float('nan'); f[1::101] = float('inf'); f[2::103] = 3.4e38
out = {
    "neg": torch.neg(x), "neg_t": torch.neg(x.view(256, 256).t()), "silu": F.silu(x), "silu_t": F.silu(x.view(256, 256).t()), "silu_ip": F.silu(x.clone(), inplace=True),
    "mul": x * y, "mul_w": x * w, "add": x + y, "add_w": x + w, "add_t": x.view(256, 256).t() + y.view(256, 256),
    "mul_row": x.view(256, 256) * y[:256], "mul_col": x.view(256, 256) * y[:256].view(256, 1),
    "mul_0d": x * y[5], "add_0d_first": y[7] + x, "add_alpha": torch.add(x, y, alpha=2),
    "to_bf16": f.to(torch.bfloat16), "to_bf16_t": f.view(256, 256).t().to(torch.bfloat16),
    "to_f32": x.float(), "to_f32_t": x.view(256, 256).t().float(),
}
for n in range(1, 71):
    a, b = x[n * 11: n * 12], w[n * 5: n * 6]
    out["silu%d" % n] = F.silu(a)
    out["neg%d" % n] = -a
    out["mul%d" % n] = a * b
    out["add%d" % n] = a + b
    out["mulb%d" % n] = a * b[0]
    out["cast%d" % n] = f[n * 13: n * 14].to(torch.bfloat16)
np.savez(sys.argv[1], **{k: (v.contiguous().view(torch.int16) if v.dtype == torch.bfloat16 else v.contiguous().view(torch.int32)).numpy()
                          for k, v in out.items()})
"""


def run(py, env_extra, path):   # "best" (env_extra {}) means the run-time choice
    run_snippet(py, SNIPPET, env_extra, unset="TN_VEXP", args=(path,))


def _as_float(a):
    """the saved bit patterns as float32 values (bf16 widened exactly)"""
    if a.dtype == np.int16:
        return (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return a.view(np.float32)


def test_lowp_variants_and_upstream(tmp_path):
    if not os.path.exists(OURS) or not os.path.exists(REF):
        pytest.skip("environments not built (make setup)")
    # the pytest process never imports torch (test_harness_selftest): results travel as numpy bits
    run(OURS, {"TN_VEXP": "ref"}, str(tmp_path / "ref.npz"))
    portable = dict(np.load(str(tmp_path / "ref.npz")))
    cpu = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    variants = {"best": {}}
    if " avx2" in cpu:
        variants["avx2"] = {"TN_VEXP": "avx2"}
    for name, env in variants.items():
        run(OURS, env, str(tmp_path / (name + ".npz")))
        got = np.load(str(tmp_path / (name + ".npz")))
        bad = [k for k in portable if not np.array_equal(portable[k], got[k])]
        assert not bad, "lowp variant %s differs from the portable body: %s" % (name, bad[:20])
    run(REF, {}, str(tmp_path / "upstream.npz"))
    up = np.load(str(tmp_path / "upstream.npz"))
    bad = []
    for k in up.files:
        u, o = up[k], portable[k]
        diff = (u != o) & ~(np.isnan(_as_float(u)) & np.isnan(_as_float(o)))
        if diff.any():
            bad.append("%s: %d values" % (k, int(diff.sum())))
    assert not bad, "bf16 results differ from upstream's: %s" % bad[:20]
