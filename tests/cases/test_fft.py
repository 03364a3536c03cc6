"""torch.fft (src/ops/fft.c over pocketfft) compared with upstream, which runs MKL's DFT.

Every floating result takes tol="float": upstream's own float32-vs-float64 error for complex64
/ float32 results; for complex128 / float64 results that rule has no wider type (err = 0), so
they take an a-priori bound instead: an FFT's error is O(eps log2 n) relative to the l2 norm of
the input (pocketfft and MKL are both Cooley-Tukey/Bluestein with accurate twiddles), here
n <= 64 and |x|_2 <= ~30: F64 = (1e-12, 1e-12) absolute/relative. Sizes cover powers of two,
odd, prime (Bluestein in pocketfft for large primes) lengths, every norm mode, n= padding and
trimming, non-contiguous inputs, integer promotion and upstream's errors."""
from harness import cases

SEED = "torch.manual_seed(0)\n"
F64 = (1e-12, 1e-12)

FUNCS1 = ["fft", "ifft", "rfft", "ihfft"]      # real or complex in
FUNCSC = ["irfft", "hfft"]                      # complex in
# ifft / ihfft of a real input: upstream returns a lazy-conjugate view of the r2c result
# (is_view, is_conj), and so does torchnative (docs/fft_layout.md); compared as returned
CLONE = {"fft": "", "rfft": "", "ifft": "", "ihfft": ""}


def make(dt, cdt):
    d = {}
    for n in [1, 2, 7, 8, 13, 64]:
        for f in FUNCS1:
            d[f"{f}-{n}"] = SEED + f"torch.fft.{f}(torch.randn(3, {n}, dtype=torch.{dt})){CLONE[f]}"
        for f in FUNCSC:
            d[f"{f}-{n}"] = SEED + f"torch.fft.{f}(torch.randn(2, {n}, dtype=torch.{cdt}))" if n > 1 else SEED + f"torch.fft.{f}(torch.randn(2, 2, dtype=torch.{cdt}))"
        d[f"fftc-{n}"] = SEED + f"torch.fft.fft(torch.randn(3, {n}, dtype=torch.{cdt}))"
        d[f"ifftc-{n}"] = SEED + f"torch.fft.ifft(torch.randn(3, {n}, dtype=torch.{cdt}))"
    for norm in ["'backward'", "'forward'", "'ortho'"]:
        for f in FUNCS1:
            d[f"{f}-norm{norm}"] = SEED + f"torch.fft.{f}(torch.randn(9, dtype=torch.{dt}), norm={norm}){CLONE[f]}"
        for f in FUNCSC:
            d[f"{f}-norm{norm}"] = SEED + f"torch.fft.{f}(torch.randn(5, dtype=torch.{cdt}), norm={norm})"
        d[f"fftn-norm{norm}"] = SEED + f"torch.fft.fftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), norm={norm})"
        d[f"irfftn-norm{norm}"] = SEED + f"torch.fft.irfftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), norm={norm})"
    d.update({
        "fft-n-pad": SEED + f"torch.fft.fft(torch.randn(2, 5, dtype=torch.{dt}), n=8)",
        "fft-n-trim": SEED + f"torch.fft.fft(torch.randn(2, 9, dtype=torch.{cdt}), n=4, dim=0)",
        "rfft-n": SEED + f"torch.fft.rfft(torch.randn(6, dtype=torch.{dt}), n=11)",
        "irfft-n": SEED + f"torch.fft.irfft(torch.randn(6, dtype=torch.{cdt}), n=7)",
        "irfft-n-pad": SEED + f"torch.fft.irfft(torch.randn(3, dtype=torch.{cdt}), n=12)",
        "hfft-n": SEED + f"torch.fft.hfft(torch.randn(4, dtype=torch.{cdt}), n=9)",
        "dim0": SEED + f"torch.fft.fft(torch.randn(4, 3, dtype=torch.{dt}), dim=0)",
        "noncontig": SEED + f"torch.fft.fft(torch.randn(6, 4, dtype=torch.{cdt}).t())",
        "strided": SEED + f"torch.fft.rfft(torch.randn(3, 12, dtype=torch.{dt})[:, ::2])",
        "fft2": SEED + f"torch.fft.fft2(torch.randn(2, 4, 6, dtype=torch.{dt}))",
        "ifft2": SEED + f"torch.fft.ifft2(torch.randn(2, 4, 6, dtype=torch.{cdt}), s=(3, 8))",
        "rfft2": SEED + f"torch.fft.rfft2(torch.randn(2, 4, 6, dtype=torch.{dt}))",
        "irfft2": SEED + f"torch.fft.irfft2(torch.randn(2, 4, 4, dtype=torch.{cdt}))",
        "fftn": SEED + f"torch.fft.fftn(torch.randn(3, 4, 5, dtype=torch.{dt}))",
        "fftn-dim": SEED + f"torch.fft.fftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), dim=(0, 2))",
        "fftn-s": SEED + f"torch.fft.fftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), s=(2, -1))",
        "ifftn": SEED + f"torch.fft.ifftn(torch.randn(3, 4, 5, dtype=torch.{dt}), dim=(1,))",
        "rfftn": SEED + f"torch.fft.rfftn(torch.randn(3, 4, 5, dtype=torch.{dt}), s=(4, 7))",
        "irfftn": SEED + f"torch.fft.irfftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), s=(3, 4, 8))",
        "roundtrip": SEED + f"x = torch.randn(4, 10, dtype=torch.{dt})\ntorch.fft.irfft(torch.fft.rfft(x), n=10)",
        "method": SEED + f"torch.randn(8, dtype=torch.{cdt}).fft() if False else torch.fft.fft(torch.randn(8, dtype=torch.{cdt}))",
        "aten_r2c": SEED + f"torch.ops.aten._fft_r2c.default(torch.randn(3, 8, dtype=torch.{dt}), [0, 1], 2, False)",
        "aten_c2c": SEED + f"torch.ops.aten._fft_c2c.default(torch.randn(3, 8, dtype=torch.{cdt}), [1], 1, False)",
        "aten_c2r": SEED + f"torch.ops.aten._fft_c2r.default(torch.randn(3, 5, dtype=torch.{cdt}), [0, 1], 0, 8)",
    })
    return d


cases("fft_f32", make("float32", "complex64"), tol="float")
cases("fft_f64", make("float64", "complex128"), tol=F64)
cases("fft_int", ["torch.fft.fft(torch.arange(6))", "torch.fft.rfft(torch.arange(5))", "torch.fft.fft(torch.tensor([True, False, True]))"], tol="float")

cases("fft_errors", [
    "torch.fft.fft(torch.ones(4), norm='x')",
    "torch.fft.fft(torch.ones(4), n=0)",
    "torch.fft.rfft(torch.ones(4, dtype=torch.complex64))",
    "torch.fft.fftn(torch.ones(4, 4), s=(2,), dim=(0, 1))",
    "torch.fft.fftn(torch.ones(4, 4), dim=(0, 0))",
    "torch.fft.fftn(torch.ones(4), s=(2, 3))",
    "torch.fft.rfftn(torch.ones(4, dtype=torch.complex64))",
    "torch.fft.fft(torch.ones(4), dim=2)",
    "torch.fft.fft(torch.tensor(1.))",
    "torch.fft.irfft(torch.ones(1, dtype=torch.complex64))",
])
