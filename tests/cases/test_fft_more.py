"""torch.fft, more (docs/fft_layout.md): upstream's output layout (strides compared on every case
here: MKL's strides from _exec_fft, the lazy conj() views of ifft/ihfft of real inputs),
hfft2/hfftn/ihfft2/ihfftn, stft/istft, the primitives' refusals, and gradients.

Values: float32/complex64 results take tol="float" (upstream's own float32-vs-float64 error);
float64/complex128 results take test_fft.py's a-priori bound F64 (the rule has no wider type
to measure with; an FFT's error is O(eps log2 n) relative to the input's norm, n <= 64 here).
Integer inputs are kept to small exact cases (sums of small integers over power-of-two sizes
whose twiddles are exact), since for integer inputs the float rule sees no upstream error and
MKL's float32 rounding is not reproducible (tests/opinfo_known_failures.txt, fft.fft)."""
from harness import cases
from harness.autograd import F32, grads

SEED = "torch.manual_seed(0)\n"
F64 = (1e-12, 1e-12)


def layout_cases(dt, cdt):
    d = {}
    # every primitive over every dim order of a 3-D input, contiguous and permuted / sliced
    for src, name in [(f"torch.randn(3, 4, 5, dtype=torch.{{t}})", "c"),
                      (f"torch.randn(5, 3, 4, dtype=torch.{{t}}).permute(1, 2, 0)", "p"),
                      (f"torch.randn(3, 8, 5, dtype=torch.{{t}})[:, ::2]", "s"),
                      (f"torch.randn(3, 1, 5, 1, dtype=torch.{{t}})", "ones")]:
        xr, xc = src.format(t=dt), src.format(t=cdt)
        for dims in ["(0,)", "(1,)", "(2,)", "(0, 2)", "(2, 0)", "(1, 0)", "(2, 1, 0)", "(1, 2)"]:
            k = f"{name}{dims}".replace(" ", "")
            d[f"c2c-{k}"] = SEED + f"torch.ops.aten._fft_c2c.default({xc}, {list(eval(dims))}, 0, True)"
            d[f"r2c-{k}"] = SEED + f"torch.ops.aten._fft_r2c.default({xr}, {list(eval(dims))}, 1, True)"
            d[f"r2cfull-{k}"] = SEED + f"torch.ops.aten._fft_r2c.default({xr}, {list(eval(dims))}, 2, False)"
            d[f"c2r-{k}"] = SEED + f"x = {xc}\ntorch.ops.aten._fft_c2r.default(x, {list(eval(dims))}, 0, 2 * (x.shape[{eval(dims)[-1]}] - 1) if x.shape[{eval(dims)[-1]}] > 1 else 1)"
            d[f"fftn-{k}"] = SEED + f"torch.fft.fftn({xr}, dim={dims})"
            d[f"ifftn-{k}"] = SEED + f"torch.fft.ifftn({xc}, dim={dims})"
            d[f"rfftn-{k}"] = SEED + f"torch.fft.rfftn({xr}, dim={dims})"
            d[f"irfftn-{k}"] = SEED + f"torch.fft.irfftn({xc}, dim={dims})"
            d[f"hfftn-{k}"] = SEED + f"torch.fft.hfftn({xc}, dim={dims})"
            d[f"ihfftn-{k}"] = SEED + f"torch.fft.ihfftn({xr}, dim={dims})"
        for f in ["fft", "ifft", "rfft", "ihfft"]:
            for dim in [0, 1, -1]:
                d[f"{f}-{name}-{dim}"] = SEED + f"torch.fft.{f}({xr}, dim={dim})"
        for f in ["ifft", "irfft", "hfft"]:
            for dim in [0, -1]:
                d[f"{f}c-{name}-{dim}"] = SEED + f"torch.fft.{f}({xc}, dim={dim})"
    return d


cases("fft_layout_f32", layout_cases("float32", "complex64"), tol="float", strides=True)
cases("fft_layout_f64", layout_cases("float64", "complex128"), tol=F64, strides=True)

# ifft / ihfft of a real input are conj() views of the r2c result (is_conj, _base)
cases("fft_conj_views", {
    "ifft": SEED + "r = torch.fft.ifft(torch.randn(3, 8))\n(r, r.is_conj(), r._base is not None, r.resolve_conj())",
    "ihfft": SEED + "r = torch.fft.ihfft(torch.randn(3, 8), dim=0)\n(r, r.is_conj(), r._base is not None)",
    "ihfft2": SEED + "r = torch.fft.ihfft2(torch.randn(3, 8))\n(r, r.is_conj())",
    "ihfftn-1": SEED + "r = torch.fft.ihfftn(torch.randn(3, 8), dim=(0,))\n(r, r.is_conj())",
    "ifft-complex": SEED + "r = torch.fft.ifft(torch.randn(3, 8, dtype=torch.complex64))\n(r, r.is_conj())",
    "ifft-grad-view": SEED + "x = torch.randn(6, requires_grad=True)\nr = torch.fft.ifft(x)\n(r.detach(), r.grad_fn.name(), r.is_conj())",
}, tol="float", strides=True)


def hermitian(dt, cdt):
    return {
        "hfft2": SEED + f"torch.fft.hfft2(torch.randn(3, 4, 5, dtype=torch.{cdt}))",
        "hfft2-s": SEED + f"torch.fft.hfft2(torch.randn(3, 4, 5, dtype=torch.{cdt}), s=(3, 7))",
        "hfft2-dim": SEED + f"torch.fft.hfft2(torch.randn(3, 4, 5, dtype=torch.{cdt}), dim=(0, 2), norm='ortho')",
        "hfftn": SEED + f"torch.fft.hfftn(torch.randn(3, 4, 5, dtype=torch.{cdt}))",
        "hfftn-real": SEED + f"torch.fft.hfftn(torch.randn(3, 4, 5, dtype=torch.{dt}), dim=(1, 2))",
        "hfftn-s": SEED + f"torch.fft.hfftn(torch.randn(3, 4, 5, dtype=torch.{cdt}), s=(2, -1, 9), norm='forward')",
        "hfftn-1": SEED + f"torch.fft.hfftn(torch.randn(3, 4, dtype=torch.{cdt}), dim=(0,))",
        "hfftn-perm": SEED + f"torch.fft.hfftn(torch.randn(4, 5, 3, dtype=torch.{cdt}).permute(2, 0, 1), dim=(2, 0))",
        "ihfft2": SEED + f"torch.fft.ihfft2(torch.randn(3, 4, 6, dtype=torch.{dt}))",
        "ihfft2-s": SEED + f"torch.fft.ihfft2(torch.randn(3, 4, 6, dtype=torch.{dt}), s=(5, 3), norm='forward')",
        "ihfftn": SEED + f"torch.fft.ihfftn(torch.randn(3, 4, 6, dtype=torch.{dt}))",
        "ihfftn-dim": SEED + f"torch.fft.ihfftn(torch.randn(3, 4, 6, dtype=torch.{dt}), dim=(2, 0), norm='ortho')",
        "ihfftn-perm": SEED + f"torch.fft.ihfftn(torch.randn(4, 6, 3, dtype=torch.{dt}).permute(2, 0, 1))",
        "roundtrip": SEED + f"x = torch.randn(4, 6, dtype=torch.{dt})\ntorch.fft.hfftn(torch.fft.ihfftn(x), s=x.shape)",
        "aten-hfft2": SEED + f"torch.ops.aten.fft_hfft2.default(torch.randn(3, 4, dtype=torch.{cdt}))",
        "aten-hfftn": SEED + f"torch.ops.aten.fft_hfftn.default(torch.randn(3, 4, dtype=torch.{cdt}), None, [0])",
        "aten-ihfft2": SEED + f"torch.ops.aten.fft_ihfft2.default(torch.randn(3, 4, dtype=torch.{dt}))",
        "aten-ihfftn": SEED + f"torch.ops.aten.fft_ihfftn.default(torch.randn(3, 4, dtype=torch.{dt}), [3, 6])",
    }


cases("fft_hermitian_f32", hermitian("float32", "complex64"), tol="float", strides=True)
cases("fft_hermitian_f64", hermitian("float64", "complex128"), tol=F64, strides=True)
cases("fft_hermitian_int", [
    "torch.fft.ihfftn(torch.arange(16).reshape(4, 4))",
    "torch.fft.hfft2(torch.arange(8).reshape(2, 4))",
    "torch.fft.ihfft2(torch.tensor([[True, False], [False, True]]))",
], tol="float", strides=True)

cases("fft_more_errors", [
    "torch.fft.ihfftn(torch.ones(3, 4, dtype=torch.complex64))",
    "torch.fft.hfftn(torch.ones(3, 4, dtype=torch.complex64), dim=())",
    "torch.fft.ihfftn(torch.ones(3, 4), dim=())",
    "torch.fft.hfft2(torch.ones(3, dtype=torch.complex64))",
    "torch.fft.ihfft2(torch.ones(3, 4), s=(2,))",
    "torch.fft.hfftn(torch.ones(3, 4, dtype=torch.complex64), s=(0, 2))",
    "torch.fft.ihfftn(torch.ones(3, 4), norm='bad')",
    "torch.fft.hfftn(torch.ones(3, dtype=torch.float16))",
    "torch.fft.hfftn(torch.ones(3, 4, dtype=torch.complex64), dim=(0, 0))",
    # the primitives refuse inputs without elements (MKL's descriptor, _exec_fft's reshape)
    "torch.ops.aten._fft_c2c.default(torch.ones(0, 3, dtype=torch.complex64), [0], 0, True)",
    "torch.ops.aten._fft_c2c.default(torch.ones(0, 3, dtype=torch.complex64), [1], 0, True)",
    "torch.ops.aten._fft_r2c.default(torch.ones(0, 3), [1], 0, True)",
    "torch.ops.aten._fft_r2c.default(torch.ones(3, 0), [1], 0, True)",
    "torch.ops.aten._fft_c2r.default(torch.ones(0, 3, dtype=torch.complex64), [1], 0, 4)",
    "torch.ops.aten._fft_c2r.default(torch.ones(3, 0, dtype=torch.complex64), [1], 0, 4)",
    "torch.fft.fft(torch.ones(0, 3))",
    # wrong kinds into the primitives; c2r with a last-dim size that fits neither n nor n/2+1
    "torch.ops.aten._fft_r2c.default(torch.ones(3, dtype=torch.complex64), [0], 0, True)",
    "torch.ops.aten._fft_c2c.default(torch.ones(3), [0], 0, True)",
    "torch.ops.aten._fft_c2r.default(torch.ones(3), [0], 0, 4)",
    "torch.ops.aten._fft_c2r.default(torch.ones(1, 3, dtype=torch.complex64), [0], 0, 2)",
])

WIN8 = "(0.5 - 0.5 * torch.cos(2 * torch.pi * torch.arange(8.) / 8))"   # hann(8); torch.hann_window is another family's


def stft_cases(dt, cdt):
    w = f"{WIN8}.to(torch.{dt})"
    return {
        "default": SEED + f"torch.stft(torch.randn(2, 40, dtype=torch.{dt}), 8, return_complex=True)",
        "window": SEED + f"torch.stft(torch.randn(37, dtype=torch.{dt}), 8, hop_length=3, window={w}, return_complex=True)",
        "win_length": SEED + f"torch.stft(torch.randn(37, dtype=torch.{dt}), 8, hop_length=3, win_length=5, window=torch.arange(1., 6., dtype=torch.{dt}), return_complex=True)",
        "win_length_nowin": SEED + f"torch.stft(torch.randn(37, dtype=torch.{dt}), 8, hop_length=3, win_length=6, return_complex=True)",
        "nocenter": SEED + f"torch.stft(torch.randn(37, dtype=torch.{dt}), 8, center=False, normalized=True, onesided=False, return_complex=True)",
        "align": SEED + f"torch.stft(torch.randn(20, dtype=torch.{dt}), 8, hop_length=3, win_length=4, center=False, return_complex=True, align_to_window=True)",
        "align_false": SEED + f"torch.stft(torch.randn(20, dtype=torch.{dt}), 8, hop_length=3, win_length=4, center=False, return_complex=True, align_to_window=False)",
        "constant": SEED + f"torch.stft(torch.randn(30, dtype=torch.{dt}), 10, pad_mode='constant', return_complex=False)",
        "circular": SEED + f"torch.stft(torch.randn(30, dtype=torch.{dt})[::2], 4, pad_mode='circular', return_complex=True)",
        "replicate": SEED + f"torch.stft(torch.randn(2, 30, dtype=torch.{dt}), 6, hop_length=4, pad_mode='replicate', return_complex=True)",
        "complex_input": SEED + f"torch.stft(torch.randn(25, dtype=torch.{cdt}), 8, return_complex=True)",
        "complex_window": SEED + f"torch.stft(torch.randn(25, dtype=torch.{dt}), 8, window=torch.randn(8, dtype=torch.{cdt}), return_complex=True)",
        "complex_real_out": SEED + f"torch.stft(torch.randn(25, dtype=torch.{cdt}), 8, return_complex=False)",
        "method": SEED + f"torch.randn(30, dtype=torch.{dt}).stft(8, hop_length=2, return_complex=True)",
        "aten_default": SEED + f"torch.ops.aten.stft.default(torch.randn(2, 30, dtype=torch.{dt}), 8, return_complex=True)",
        "aten_center": SEED + f"torch.ops.aten.stft.center(torch.randn(2, 30, dtype=torch.{dt}), 8, center=True, pad_mode='reflect', return_complex=True)",
        "aten_center_false": SEED + f"torch.ops.aten.stft.center(torch.randn(30, dtype=torch.{dt}), 8, 3, center=False, return_complex=True, align_to_window=True)",
        "istft": SEED + f"w = {w}\nX = torch.stft(torch.randn(2, 40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.istft(X, 8, hop_length=2, window=w)",
        "istft_length_long": SEED + f"w = {w}\nX = torch.stft(torch.randn(2, 40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.istft(X, 8, hop_length=2, window=w, length=45)",
        "istft_length_short": SEED + f"w = {w}\nX = torch.stft(torch.randn(2, 40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.istft(X, 8, hop_length=2, window=w, length=30)",
        "istft_twosided": SEED + f"w = {w}\nX = torch.stft(torch.randn(37, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True, onesided=False, normalized=True)\n(torch.istft(X, 8, hop_length=2, window=w, onesided=False, normalized=True), torch.istft(X, 8, hop_length=2, window=w, onesided=False, normalized=True, return_complex=True))",
        "istft_nocenter": SEED + f"X = torch.stft(torch.randn(37, dtype=torch.{dt}), 10, hop_length=3, window=torch.arange(1., 11., dtype=torch.{dt}), return_complex=True, center=False)\ntorch.istft(X, 10, hop_length=3, window=torch.arange(1., 11., dtype=torch.{dt}), center=False)",
        "istft_win_length": SEED + f"X = torch.stft(torch.randn(40, dtype=torch.{dt}), 8, hop_length=2, win_length=6, window=torch.arange(1., 7., dtype=torch.{dt}), return_complex=True)\ntorch.istft(X, 8, hop_length=2, win_length=6, window=torch.arange(1., 7., dtype=torch.{dt}))",
        "istft_nowindow": SEED + f"X = torch.stft(torch.randn(40, dtype=torch.{dt}), 8, hop_length=2, return_complex=True)\ntorch.istft(X, 8, hop_length=2)",
        "istft_conj": SEED + f"w = {w}\nX = torch.stft(torch.randn(40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.istft(X.conj(), 8, hop_length=2, window=w)",
        "istft_noncontig": SEED + f"w = {w}\nX = torch.stft(torch.randn(2, 40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.istft(X.transpose(-1, -2).contiguous().transpose(-1, -2), 8, hop_length=2, window=w)",
        "istft_aten": SEED + f"w = {w}\nX = torch.stft(torch.randn(40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\ntorch.ops.aten.istft.default(X, 8, 2, None, w)",
        "istft_method": SEED + f"w = {w}\nX = torch.stft(torch.randn(40, dtype=torch.{dt}), 8, hop_length=2, window=w, return_complex=True)\nX.istft(8, hop_length=2, window=w)",
    }


cases("stft_f32", stft_cases("float32", "complex64"), tol="float", strides=True)
cases("stft_f64", stft_cases("float64", "complex128"), tol=F64, strides=True)

_X = "X = torch.stft(torch.randn(2, 40), 8, hop_length=2, return_complex=True)\n"
cases("stft_errors", [
    "torch.stft(torch.randn(2, 20), 8, return_complex=False, center=False)",
    "torch.stft(torch.randn(2, 20), 8, center=False)",
    "torch.stft(torch.randn(2, 20), 30, return_complex=True, center=False)",
    "torch.stft(torch.randn(2, 20), 8, hop_length=0, return_complex=True)",
    "torch.stft(torch.randn(2, 20), 8, win_length=9, return_complex=True)",
    "torch.stft(torch.randn(2, 20), 8, window=torch.ones(7), return_complex=True)",
    "torch.stft(torch.randn(2, 20, dtype=torch.complex64), 8, onesided=True, return_complex=True)",
    "torch.stft(torch.arange(20), 8, return_complex=True)",
    "torch.stft(torch.randn(2, 2, 20), 8, return_complex=True)",
    "torch.stft(torch.randn(2, 20), 8, hop_length=3, win_length=5, center=False, return_complex=True, align_to_window=True)",
    "torch.stft(torch.randn(2, 20), 8, return_complex=True, align_to_window=True)",
    "torch.ops.aten.stft.center(torch.randn(2, 20), 8, center=True, return_complex=True, align_to_window=True)",
    "torch.stft(torch.randn(2, 20), 8, pad_mode='bogus', return_complex=True)",
    _X + "torch.istft(X.real.contiguous(), 8)",
    _X + "torch.istft(X, 8, hop_length=2, window=torch.ones(7))",
    _X + "torch.istft(X, 8, hop_length=9)",
    _X + "torch.istft(X, 10, hop_length=2)",
    _X + "torch.istft(X, 8, hop_length=2, onesided=False)",
    _X + "torch.istft(X[..., :0], 8, hop_length=2)",
    _X + "torch.istft(X, 8, hop_length=2, return_complex=True)",
    "torch.istft(torch.randn(5, dtype=torch.complex64), 8)",
    "torch.istft(torch.randn(1, 1, 5, 3, dtype=torch.complex64), 8)",
    _X + "torch.istft(X, 8, hop_length=2, window=torch.zeros(8))",
    _X + "torch.istft(X, 8, hop_length=2, win_length=9)",
    _X + "torch.istft(X, 8, hop_length=2, window=torch.ones(8, dtype=torch.complex64))",
    "X = torch.stft(torch.randn(37, dtype=torch.float64), 10, hop_length=3, win_length=6, return_complex=True, center=False)\n"
    "torch.istft(X, 10, hop_length=3, win_length=6, center=False)",
], tol="float", vars=False)   # X is an input here: the float64 re-run raises with the call, so no err for it

# gradients: the three primitives' formulas (FunctionsManual's fft_r2c_backward,
# fft_c2r_backward, _fft_c2c with !forward), reached through every torch.fft function
grads("fft_grad", {
    "rfft": SEED + "ps = [torch.randn(3, 6, requires_grad=True)]; out = torch.view_as_real(torch.fft.rfft(ps[0])) * torch.arange(8.).view(4, 2)",
    "rfft_odd_norm": SEED + "ps = [torch.randn(3, 7, requires_grad=True)]; out = torch.fft.rfft(ps[0], dim=0, norm='ortho').abs()",
    "rfft_n": SEED + "ps = [torch.randn(5, requires_grad=True)]; out = torch.view_as_real(torch.fft.rfft(ps[0], n=8))",
    "fft_real": SEED + "ps = [torch.randn(3, 6, requires_grad=True)]; out = torch.fft.fft(ps[0]).abs()",
    "ifft_real_conj_view": SEED + "ps = [torch.randn(6, requires_grad=True)]; out = torch.view_as_real(torch.fft.ifft(ps[0]).resolve_conj())",
    "fft_complex": SEED + "ps = [torch.randn(3, 5, dtype=torch.complex64, requires_grad=True)]; out = torch.view_as_real(torch.fft.fft(ps[0], norm='forward'))",
    "fftn_complex": SEED + "ps = [torch.randn(3, 4, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.ifftn(ps[0]).abs()",
    "irfft": SEED + "ps = [torch.randn(3, 4, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.irfft(ps[0]) * torch.arange(6.)",
    "irfft_odd": SEED + "ps = [torch.randn(3, 4, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.irfft(ps[0], n=7, norm='ortho')",
    "irfftn": SEED + "ps = [torch.randn(3, 4, 5, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.irfftn(ps[0], dim=(0, 2))",
    "rfft2": SEED + "ps = [torch.randn(4, 6, requires_grad=True)]; out = torch.fft.rfft2(ps[0]).abs()",
    "hfft": SEED + "ps = [torch.randn(5, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.hfft(ps[0]) * torch.arange(8.)",
    "hfftn": SEED + "ps = [torch.randn(3, 4, dtype=torch.complex64, requires_grad=True)]; out = torch.fft.hfftn(ps[0]) * torch.arange(6.)",
    "ihfftn": SEED + "ps = [torch.randn(3, 6, requires_grad=True)]; out = torch.view_as_real(torch.fft.ihfftn(ps[0]))",
    "ihfft2": SEED + "ps = [torch.randn(3, 6, requires_grad=True)]; out = torch.fft.ihfft2(ps[0]).abs()",
    "stft": SEED + "ps = [torch.randn(40, requires_grad=True)]; out = torch.stft(ps[0], 8, hop_length=2, window=torch.arange(1., 9.), return_complex=True).abs()",
    "istft": SEED + "ps = [torch.randn(5, 11, dtype=torch.complex64, requires_grad=True)]; out = torch.istft(ps[0], 8, hop_length=2, window=0.5 - 0.5 * torch.cos(2 * torch.pi * torch.arange(8.) / 8)) * torch.arange(40.)",
    # (through view_as_real: complex abs() double backward is off in the pointwise family)
    "double_backward": SEED + "ps = [torch.randn(6, requires_grad=True)]\ng, = torch.autograd.grad(torch.view_as_real(torch.fft.rfft(ps[0])).pow(2).sum(), ps[0], create_graph=True)\nout = g * torch.arange(6.)",
    "double_backward_c2r": SEED + "ps = [torch.randn(4, dtype=torch.complex64, requires_grad=True)]\ng, = torch.autograd.grad(torch.fft.irfft(ps[0]).pow(2).sum(), ps[0], create_graph=True)\nout = torch.view_as_real(g) * torch.arange(8.).view(4, 2)",
}, tol=F32)


def out_cases():
    d = {}
    real, cplx = "torch.randn(3, 4, 6)", "torch.randn(3, 4, 6, dtype=torch.complex64)"
    for f, x, od in [("fft", real, "complex64"), ("fft", cplx, "complex64"), ("ifft", real, "complex64"),
                     ("ifft", cplx, "complex128"), ("rfft", real, "complex64"), ("irfft", cplx, "float32"),
                     ("hfft", cplx, "float64"), ("ihfft", real, "complex64"),
                     ("fft2", real, "complex64"), ("ifft2", cplx, "complex64"), ("rfft2", real, "complex64"),
                     ("irfft2", cplx, "float32"), ("hfft2", cplx, "float32"), ("ihfft2", real, "complex64"),
                     ("fftn", cplx, "complex64"), ("ifftn", real, "complex64"), ("rfftn", real, "complex128"),
                     ("irfftn", cplx, "float32"), ("hfftn", cplx, "float32"), ("ihfftn", real, "complex64")]:
        key = f"{f}-{'c' if 'complex' in x else 'r'}-{od}"
        d[key] = SEED + f"o = torch.empty(0, dtype=torch.{od})\nr = torch.fft.{f}({x}, out=o)\n(r is o, o, o.is_conj())"
    d["ihfftn-1dim"] = SEED + f"o = torch.empty(0, dtype=torch.complex64)\nr = torch.fft.ihfftn({real}, dim=(1,), out=o)\n(r is o, o.is_conj())"
    # upstream's one-dim ihfftn out path swaps conj_physical_out's arguments: out stays as given
    d["ihfftn-1dim-same-shape"] = SEED + f"o = torch.zeros(3, 3, 6, dtype=torch.complex64)\nr = torch.fft.ihfftn({real}, dim=(1,), out=o)\n(r is o, o)"
    d["ihfft2-1dim-float"] = SEED + f"torch.fft.ihfft2({real}, s=(4,), dim=(0,), out=torch.empty(0))"
    d["ihfftn-1dim-c128"] = SEED + f"torch.fft.ihfftn({real}, dim=(1,), out=torch.zeros(2, dtype=torch.complex128))"
    d["resize-warns"] = SEED + f"o = torch.zeros(2, dtype=torch.complex64)\ntorch.fft.fft({real}, out=o)\no"
    d["keeps-strides"] = SEED + f"o = torch.empty(6, 4, 3, dtype=torch.complex64).permute(2, 1, 0)\ntorch.fft.fft({real}, out=o)\n(o, o.stride())"
    d["aten-r2c"] = SEED + "o = torch.empty(0, dtype=torch.complex64)\ntorch.ops.aten._fft_r2c.out(torch.randn(3, 8), [0, 1], 2, False, out=o)\no"
    d["aten-c2r"] = SEED + "o = torch.empty(0)\ntorch.ops.aten._fft_c2r.out(torch.randn(3, 5, dtype=torch.complex64), [0, 1], 0, 8, out=o)\no"
    d["aten-c2c"] = SEED + "o = torch.empty(0, dtype=torch.complex64)\ntorch.ops.aten._fft_c2c.out(torch.randn(3, 8, dtype=torch.complex64), [1], 1, False, out=o)\no"
    for f, x, od in [("fft", real, "float32"), ("rfft", real, "float32"), ("irfft", cplx, "complex64"),
                     ("hfft2", cplx, "complex64"), ("ihfft2", real, "float32"), ("fftn", cplx, "float64")]:
        d[f"bad-{f}-{od}"] = SEED + f"torch.fft.{f}({x}, out=torch.empty(0, dtype=torch.{od}))"
    return d


cases("fft_out", out_cases(), tol="float", strides=True)

# fftfreq / rfftfreq: bit-exact (an integer ramp times 1/(n*d), the scalar in the result dtype)
cases("fft_freq", {
    "fftfreq": "torch.fft.fftfreq(5)",
    "fftfreq-d": "torch.fft.fftfreq(6, 0.3)",
    "fftfreq-f64": "torch.fft.fftfreq(7, d=0.1, dtype=torch.float64)",
    "fftfreq-bf16": "torch.fft.fftfreq(301, 0.7, dtype=torch.bfloat16)",
    "fftfreq-f16": "torch.fft.fftfreq(9, dtype=torch.float16)",
    "rfftfreq": "torch.fft.rfftfreq(7, d=0.1)",
    "rfftfreq-f16": "torch.fft.rfftfreq(11, dtype=torch.float16)",
    "rfftfreq-bf16": "torch.fft.rfftfreq(100, 3.0, dtype=torch.bfloat16)",
    "empty": "(torch.fft.fftfreq(0), torch.fft.rfftfreq(0))",
    "one": "(torch.fft.fftfreq(1), torch.fft.rfftfreq(1))",
    "d0": "torch.fft.fftfreq(4, 0.0)",
    "default-dtype": "torch.set_default_dtype(torch.float64)\nr = torch.fft.fftfreq(5)\ntorch.set_default_dtype(torch.float32)\nr",
    "out": "o = torch.empty(0)\nr = torch.fft.fftfreq(5, out=o)\n(r is o, o)",
    "out-f64-resize": "o = torch.zeros(2, dtype=torch.float64)\ntorch.fft.rfftfreq(5, out=o)\no",
    "out-same-numel": "o = torch.zeros(3, 1)\ntorch.fft.fftfreq(3, out=o)\no",
    "out-2d": "o = torch.zeros(2, 2)\ntorch.fft.rfftfreq(6, out=o)\no",
    "aten": "(torch.ops.aten.fft_fftfreq.default(4, 2.0), torch.ops.aten.fft_rfftfreq.default(4), "
            "torch.ops.aten.fft_fftfreq.out(3, out=torch.empty(3)), torch.ops.aten.fft_rfftfreq.out(3, out=torch.empty(2)))",
    "bad-negative": "torch.fft.fftfreq(-1)",
    "bad-int": "torch.fft.fftfreq(3, dtype=torch.int64)",
    "bad-complex": "torch.fft.fftfreq(3, dtype=torch.complex64)",
    "bad-out-int": "torch.fft.fftfreq(5, out=torch.empty(0, dtype=torch.int32))",
    "bad-rfft-negative": "torch.fft.rfftfreq(-5)",
})
