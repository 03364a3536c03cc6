"""float32 and float64 layer norm, forward (native_layer_norm: output, mean, rstd) and backward
(native_layer_norm_backward: dx, dgamma, dbeta), compared bit for bit with upstream's CPU kernel
(src/kernels/layer_norm.c, docs/layer_norm.md).

Upstream's bits depend on its ATen CPU capability (lane count, fused multiply-adds). Ours follows
the same CPU test (or ATEN_CPU_CAPABILITY / TN_LNORM when set). Exactness was measured on an
AVX2-only host, with upstream at AVX2 and at DEFAULT (ATEN_CPU_CAPABILITY=default), and on an
AVX-512 host, where upstream's layer norm has no AVX-512 kernel (REGISTER_DISPATCH leaves that
slot empty) and runs its AVX2 one: those paths are compared exactly here.
The dgamma / dbeta bits assume one thread (the harness's default, OMP_NUM_THREADS=1): upstream
sums them per thread first.
"""
import os
import subprocess

from harness import cases
from harness.runner import ref_python


def _ref_capability():
    try:
        r = subprocess.run([ref_python(), "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                           capture_output=True, text=True, timeout=300)
        return r.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


# exact on the paths measured (AVX2, DEFAULT, and AVX-512, which runs upstream's AVX2 kernel);
# anything else (unknown): float rule
TOL = None if _ref_capability() in ("AVX2", "AVX512", "DEFAULT") else "float"

# Inputs from integer arithmetic and one correctly rounded division, not torch.randn: upstream's
# randn draws differ between its DEFAULT and AVX2 paths (tests/harness/runner.py), these do not.
SEED = """
def R(*shape, seed=0, scale=1.0, shift=0.0):
    k = 1
    for d in shape:
        k *= d
    i = torch.arange(k, dtype=torch.int64) * 2654435761 + seed * 40503
    return ((i % 100003).float() / 7919 - 6.3).reshape(shape) * scale + shift
"""
ROWS = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257,
        384, 511, 512, 513, 768, 1000, 1023, 1024, 1025, 1999, 2000, 4099]

fwd = {}
for n in ROWS:
    m = 3 if n < 1000 else 2
    x = "x = R(%d, %d, scale=0.5, shift=1.5)\n" % (m, n)
    wb = "w = R(%d, seed=1, scale=0.2)\nb = R(%d, seed=2, scale=0.2)\n" % (n, n)
    fwd["n%d" % n] = SEED + x + wb + "torch.native_layer_norm(x, [%d], w, b, 1e-5)" % n
    fwd["n%d-noaffine" % n] = SEED + x + "torch.native_layer_norm(x, [%d], None, None, 1e-5)" % n
    fwd["n%d-w" % n] = SEED + x + wb + "torch.native_layer_norm(x, [%d], w, None, 1e-5)" % n
    fwd["n%d-b" % n] = SEED + x + wb + "torch.native_layer_norm(x, [%d], None, b, 1e-5)" % n
fwd.update({
    "3d-2dims": SEED + "x = R(4, 6, 50)\ntorch.nn.functional.layer_norm(x, [6, 50], R(6, 50, seed=1), "
                       "R(6, 50, seed=2), 1e-6)",
    "module": SEED + "m = torch.nn.LayerNorm(300)\nx = R(2, 5, 300, scale=2, shift=-4)\nm(x)",
    "eps-large": SEED + "x = R(3, 77)\ntorch.native_layer_norm(x, [77], None, None, 0.5)",
    "offset": SEED + "x = R(4, 200, shift=1000)\ntorch.native_layer_norm(x, [200], None, None, 1e-5)",
    "strided": SEED + "x = R(40, 6).t()\ntorch.native_layer_norm(x, [40], None, None, 1e-5)",
    "constant": "torch.native_layer_norm(torch.full((2, 37), 3.25), [37], None, None, 1e-5)",
    "inf-nan": SEED + "x = R(2, 40)\nx[0, 3] = float('inf')\nx[1, 5] = float('nan')\n"
                      "torch.native_layer_norm(x, [40], None, None, 1e-5)",
})
cases("layer_norm_fwd_bits", fwd, tol=TOL)

bwd = {}
for n in ROWS:
    m = 5 if n < 1000 else 2
    pre = SEED + ("x = R(%d, %d, scale=0.3, shift=-1)\ndy = R(%d, %d, seed=3, scale=0.15)\n"
                  "w = R(%d, seed=1, scale=0.2)\nb = R(%d, seed=2, scale=0.2)\n" % (m, n, m, n, n, n))
    st = "_, mean, rstd = torch.native_layer_norm(x, [%d], w, b, 1e-5)\n" % n
    bwd["n%d" % n] = pre + st + "torch.ops.aten.native_layer_norm_backward(dy, x, [%d], mean, rstd, w, b, " \
                                "[True, True, True])" % n
    bwd["n%d-noaffine" % n] = pre + "_, mean, rstd = torch.native_layer_norm(x, [%d], None, None, 1e-5)\n" % n + \
        "torch.ops.aten.native_layer_norm_backward(dy, x, [%d], mean, rstd, None, None, [True, False, False])" % n
    bwd["n%d-params-only" % n] = pre + st + "torch.ops.aten.native_layer_norm_backward(dy, x, [%d], mean, rstd, " \
                                            "w, b, [False, True, True])" % n
bwd["autograd"] = SEED + """
x = R(3, 7, 96).requires_grad_()
m = torch.nn.LayerNorm(96)
with torch.no_grad():
    m.weight.copy_(R(96, seed=1, scale=0.2))
    m.bias.copy_(R(96, seed=2, scale=0.2))
(m(x) * R(3, 7, 96, seed=3)).sum().backward()
(x.grad, m.weight.grad, m.bias.grad)
"""
cases("layer_norm_bwd_bits", bwd, tol=TOL)

# float64: upstream's double kernel, same steps over 4 (AVX-512: 8) lanes
f64 = {k + "-f64": v.replace("\nx = R(", "\nx = R(").replace(") * scale + shift\n", ").double() * scale + shift\n", 1)
       for k, v in list(fwd.items()) + list(bwd.items()) if k.startswith("n")}
cases("layer_norm_f64_bits", f64, tol=TOL)

# Two threads: ours splits the forward and dx by rows and dgamma / dbeta by columns (each column
# still sums its rows in order), so these are upstream's bits whatever the thread count. Upstream's
# own dgamma / dbeta at two threads are per-thread sums added afterwards (not its one-thread bits):
# those compare under the float rule. Shapes large enough that both sides split the work.
THR = "torch.set_num_threads(2)\nr = %s\ntorch.set_num_threads(1)\nr"
thr, thr_params = {}, {}
for m, n in ((64, 768), (301, 1000), (7, 4099)):
    pre = SEED + ("x = R(%d, %d, scale=0.3, shift=-1)\ndy = R(%d, %d, seed=3, scale=0.15)\n"
                  "w = R(%d, seed=1, scale=0.2)\nb = R(%d, seed=2, scale=0.2)\n" % (m, n, m, n, n, n))
    st = "_, mean, rstd = torch.native_layer_norm(x, [%d], w, b, 1e-5)\n" % n
    thr["fwd-%dx%d" % (m, n)] = pre + THR % ("torch.native_layer_norm(x, [%d], w, b, 1e-5)" % n)
    thr["dx-%dx%d" % (m, n)] = pre + st + THR % (
        "torch.ops.aten.native_layer_norm_backward(dy, x, [%d], mean, rstd, w, b, [True, False, False])" % n)
    thr_params["params-%dx%d" % (m, n)] = pre + st + THR % (
        "torch.ops.aten.native_layer_norm_backward(dy, x, [%d], mean, rstd, w, b, [False, True, True])" % n)
cases("layer_norm_threads_bits", thr, tol=TOL)
cases("layer_norm_threads_params", thr_params, tol="float")
