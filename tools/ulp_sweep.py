"""Max ulp error of f32 transcendental kernels against float64, over a dense sweep of f32 bit
patterns (every STRIDE-th of the 2^32, so every exponent, both signs, denormals, inf and NaN).
Run it with both interpreters (.venv and .venv-ref) and compare: ulp = spacing of the float32
grid at the exact (float64) value, 2^-149 at the bottom; a wrong NaN/inf counts as 'bad'.
Usage: python tools/ulp_sweep.py [stride] [op ...]"""
import sys
import numpy as np
import torch

torch.set_num_threads(1)
F = torch.nn.functional
S2 = 2 ** 0.5


def ref_erf(x):
    return torch.erf(torch.from_numpy(x)).numpy()


def ref_cdf(x):  # Phi(x) = erfc(-x / sqrt 2) / 2, without 1 + erf's cancellation
    return 0.5 * torch.erfc(torch.from_numpy(-x / S2)).numpy()


def _gtbw(x):
    k = (2 / np.pi) ** 0.5
    s = 1 / (1 + np.exp(-2 * k * (x + 0.044715 * x ** 3)))
    return s + 2 * x * s * (1 - s) * k * (1 + 3 * 0.044715 * x * x)


OPS = {
    "exp": (torch.exp, np.exp),
    "log": (torch.log, lambda x: np.log(np.where(x < 0, np.nan, x))),
    "tanh": (torch.tanh, np.tanh),
    "sigmoid": (torch.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x))),
    "gelu": (F.gelu, lambda x: x * ref_cdf(x)),
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"),
                  lambda x: x / (1 + np.exp(-2 * (2 / np.pi) ** 0.5 * (x + 0.044715 * x ** 3)))),
    "erf": (torch.erf, ref_erf),
    "silu_bw": (lambda t: torch.ops.aten.silu_backward(torch.ones_like(t), t),
                lambda x: (1 / (1 + np.exp(-x))) * (1 + x * (1 - 1 / (1 + np.exp(-x))))),
    "gelu_bw": (lambda t: torch.ops.aten.gelu_backward(torch.ones_like(t), t),
                lambda x: ref_cdf(x) + x * np.exp(-0.5 * x * x) / (2 * np.pi) ** 0.5),
    "gelu_tanh_bw": (lambda t: torch.ops.aten.gelu_backward(torch.ones_like(t), t, approximate="tanh"),
                     lambda x: _gtbw(x)),
    "tanh_bw": (lambda t: torch.ops.aten.tanh_backward(torch.ones_like(t), t), lambda y: 1 - y * y),
    "sigmoid_bw": (lambda t: torch.ops.aten.sigmoid_backward(torch.ones_like(t), t), lambda y: (1 - y) * y),
}


def sweep(name, stride):
    f, ref = OPS[name]
    worst, worst_x, bad, n = 0.0, None, 0, 0
    with np.errstate(all="ignore"):
        for start in range(0, 1 << 32, stride * (1 << 22)):
            bits = np.arange(start, min(start + stride * (1 << 22), 1 << 32), stride, dtype=np.uint64).astype(np.uint32)
            x = bits.view(np.float32)
            y = f(torch.from_numpy(x.copy())).numpy().astype(np.float64)
            r = ref(x.astype(np.float64))
            rf = r.astype(np.float32)
            fin = np.isfinite(rf)
            bad += int(np.sum(~fin & ~((y == rf) | (np.isnan(y) & np.isnan(rf)))))
            bad += int(np.sum(fin & ~np.isfinite(y)))
            m = fin & np.isfinite(y)
            a = np.abs(r[m])
            e = np.floor(np.log2(np.where(a > 0, a, 1e-300)))
            ulp = np.exp2(np.maximum(e - 23, -149))
            err = np.abs(y[m] - r[m]) / ulp
            n += x.size
            if err.size and err.max() > worst:
                worst = float(err.max())
                worst_x = float(x[m][err.argmax()])
    return worst, worst_x, bad, n


if __name__ == "__main__":
    stride = int(sys.argv[1]) if len(sys.argv) > 1 else 97
    names = sys.argv[2:] or list(OPS)
    for name in names:
        w, wx, bad, n = sweep(name, stride)
        print("%-11s max %9.3f ulp (at x=%r)  bad nonfinite %d  of %d" % (name, w, wx, bad, n), flush=True)
