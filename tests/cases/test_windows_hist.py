"""Window factories, the histogram family, torch.gradient and matrix_exp compared with upstream
(src/ops/windows.c, ...).

Windows: every overload of hann / hamming / blackman / bartlett / kaiser, lengths 0, 1, 2 and
larger, periodic and symmetric, f32 / f64 / f16 / bf16, the dtype / requires_grad keywords, the
autogen .out forms (the result in out's dtype), torch.signal.windows (upstream's Python on these
ops) and upstream's errors (negative length, integer / bool dtype, sparse layout: RuntimeError;
complex: arange's NotImplementedError).

Tolerances: bartlett and kaiser (upstream's fused kernel, reproduced with its compiler's fused
1 - r * r) are compared bit for bit; so is mul_.Scalar on f16 / bf16 (the number rounded to the
dtype first, as upstream's in-place Scalar overload does; the windows rely on it).
hann / hamming / blackman are sums c_0 + sum_k c_k cos(theta_k) built with cos_; upstream's
float32 cos is MKL VML's (its code path depends on the host CPU) and ours is within one ulp of it,
not bit-identical (measured: cos(2.5132742f) is -0.80901700 upstream, -0.80901706 ours, the
correctly rounded value). Each cos differs by at most one ulp (<= 2^-24 for |cos| < 1) on each
side, so a window value differs by at most sum_k |c_k| * 2^-23 plus its own rounding: float32
results of these windows take COS_TOL = (1.5 * 2^-23, 2 * 2^-23) (sum |c_k| <= 1.5 for
blackman). The harness's tol="float" cannot derive an error here (factory calls are not widened,
so its err is 0 and the cancellation in 0.5 - 0.5 cos near the ends is not covered). float64,
float16 and bfloat16 results take tol="float" (2 ulps of the result)."""
from harness import cases

FLOATS = "(torch.float64, torch.float16, torch.bfloat16)"
COS_TOL = (1.5 * 2.0 ** -23, 2 * 2.0 ** -23)
WINDOWS = ("hann_window", "hamming_window", "blackman_window", "kaiser_window", "bartlett_window")

w32, wlow, wexact, k32, klow = {}, {}, {}, {}, {}   # float32 cosine windows, other dtypes, exact (errors too), kaiser
for w in WINDOWS:
    f = "torch." + w
    exact = w in ("bartlett_window", "kaiser_window")
    a = wexact if exact else (k32 if w == "kaiser_window" else w32)
    b = wexact if exact else (klow if w == "kaiser_window" else wlow)
    a[w + "_lengths"] = "[%s(n) for n in (0, 1, 2, 3, 8, 33)]" % f
    a[w + "_symmetric"] = "[%s(n, False) for n in (0, 1, 2, 5, 16)] + [%s(7, periodic=True)]" % (f, f)
    a[w + "_long"] = "%s(257), %s(300, False)" % (f, f)
    a[w + "_requires_grad"] = "t = %s(6, requires_grad=True)\n(t, t.requires_grad, t.is_leaf, t.grad_fn)" % f
    a[w + "_out"] = "o = torch.empty(0)\nr = torch.ops.aten.%s.out(6, out=o)\n(r is o, o)" % w
    a[w + "_resize_out"] = "o = torch.empty(2)\ntorch.ops.aten.%s.out(4, out=o)\no" % w
    # clone: upstream's torch.ops spelling returns the periodic narrow as a view (._base set), its
    # torch.* spelling does not; ours returns a non-view on both
    a[w + "_aten"] = "torch.ops.aten.%s.default(5).clone()" % w
    a[w + "_periodic_view"] = "w = %s(6)\n(w, w.stride(), w.storage_offset(), w.is_contiguous(), w._base is None)" % f
    b[w + "_dtypes"] = "[%s(12, dtype=d) for d in %s] + [%s(9, False, dtype=d) for d in %s]" % (f, FLOATS, f, FLOATS)
    b[w + "_long_f64"] = "%s(1000, dtype=torch.float64)" % f
    b[w + "_kwargs"] = "%s(window_length=6, periodic=False, dtype=torch.float64, layout=torch.strided, device='cpu', pin_memory=False)" % f
    b[w + "_default_dtype"] = "torch.set_default_dtype(torch.float64)\ntry:\n    r = %s(5)\nfinally:\n    torch.set_default_dtype(torch.float32)\nr" % f
    b[w + "_periodic_out_f64"] = "o = torch.empty(3, dtype=torch.float64)\ntorch.ops.aten.%s.periodic_out(5, False, out=o)\no" % w
    b[w + "_out_bf16"] = "o = torch.empty(0, dtype=torch.bfloat16)\ntorch.ops.aten.%s.out(7, out=o)" % w
    b[w + "_aten_periodic"] = "torch.ops.aten.%s.periodic(5, False, dtype=torch.float64)" % w
    e = wexact
    e[w + "_bad_negative"] = "%s(-1)" % f
    e[w + "_bad_int"] = "%s(4, dtype=torch.int64)" % f
    e[w + "_bad_bool"] = "%s(4, False, dtype=torch.bool)" % f
    e[w + "_bad_complex"] = "%s(4, dtype=torch.complex64)" % f
    e[w + "_bad_sparse"] = "%s(4, layout=torch.sparse_coo)" % f
    e[w + "_bad_pin"] = "%s(4, pin_memory=True)" % f
    e[w + "_out_bad_int"] = "torch.ops.aten.%s.out(5, out=torch.empty(5, dtype=torch.int32))" % w
    e[w + "_bad_out_kw"] = "%s(5, out=torch.empty(5))" % f
w32["hamming_alpha_beta"] = ("(torch.hamming_window(8, True, 0.3), torch.hamming_window(8, False, 0.3, 0.2), "
                             "torch.hamming_window(1, False, 0.1, 0.9), torch.ops.aten.hamming_window.periodic_alpha(5, True, 0.5).clone(),"
                             " torch.ops.aten.hamming_window.periodic_alpha_beta(5, False, 0.5, 0.25))")
w32["hamming_alpha_beta_out"] = ("o1 = torch.empty(0)\ntorch.ops.aten.hamming_window.periodic_alpha_out(6, True, 0.3, out=o1)\n"
                                 "o2 = torch.empty(0)\ntorch.ops.aten.hamming_window.periodic_alpha_beta_out(6, False, 0.3, 0.1, out=o2)\n(o1, o2)")
wlow["hamming_alpha_beta_f64"] = ("o = torch.empty(0, dtype=torch.float64)\ntorch.ops.aten.hamming_window.periodic_alpha_beta_out(6, False, 0.3, 0.1, out=o)\n"
                                  "(o, torch.hamming_window(6, True, alpha=0.6, beta=0.4, dtype=torch.float64), torch.hamming_window(7, False, 0.2, dtype=torch.bfloat16))")
k32["kaiser_beta"] = ("[torch.kaiser_window(9, False, b) for b in (0.0, 0.5, 3.0, 8.6, 30.0, -2.0)] + "
                      "[torch.kaiser_window(10, True, 5.0), torch.ops.aten.kaiser_window.beta(4, True, 2.5).clone()]")
klow["kaiser_beta_dtypes"] = "[torch.kaiser_window(10, True, 5.0, dtype=d) for d in %s]" % FLOATS
klow["kaiser_beta_out"] = "o = torch.empty(0, dtype=torch.float16)\ntorch.ops.aten.kaiser_window.beta_out(7, False, 4.0, out=o)\no"
klow["kaiser_periodic_out"] = "o = torch.empty(0, dtype=torch.float64)\ntorch.ops.aten.kaiser_window.periodic_out(7, True, out=o)\no"
klow["kaiser_large_bf16"] = "torch.kaiser_window(600, dtype=torch.bfloat16), torch.kaiser_window(600, False, 2.0, dtype=torch.float16)"
wexact["mul_scalar_inplace_lowp"] = ("x = torch.arange(300, dtype=torch.bfloat16)\n"
                                     "[torch.ops.aten.mul_.Scalar(x.clone().to(d), v) for d in (torch.bfloat16, torch.float16) for v in (2 / 7, 257, 0.1)]"
                                     " + [x.clone().mul_(2 / 7), x.half().mul_(0.1)]")
w32["stft_window"] = "torch.manual_seed(0)\nx = torch.randn(64)\ntorch.stft(x, 16, window=torch.hann_window(16), return_complex=True)"
SIG = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
       "hamming", "hann", "kaiser", "nuttall"]
sig = {}
for s_ in SIG:
    extra = {"general_cosine": ", a=[0.46, 0.23, 0.31]", "general_hamming": ", alpha=0.6"}.get(s_, "")
    sig[s_] = ("import torch.signal.windows as W\n"
               "(W.%s(10%s), W.%s(7, sym=False%s), W.%s(5, dtype=torch.float64%s), W.%s(0%s), W.%s(1%s))"
               % (s_, extra, s_, extra, s_, extra, s_, extra, s_, extra))
sig["bad_negative"] = "import torch.signal.windows as W\nW.hann(-1)"
sig["bad_layout"] = "import torch.signal.windows as W\nW.kaiser(4, layout=torch.sparse_coo)"
cases("windows_f32", w32, tol=COS_TOL)
cases("windows_lowp_f64", wlow, tol="float")
wexact.update(k32)
wexact.update(klow)
cases("windows_exact", wexact)
cases("signal_windows", sig, tol="float")

# ---- histogram / histogramdd (src/ops/histogram.c; the binning kernel is histc's) ----
# Counts are exact; bin edges come from linspace (compared bit for bit, as linspace's own cases);
# density divides by the sum and the bin widths (exact division sequences, compared bit for bit);
# weighted sums accumulate in the input's dtype in input order, as upstream with one thread.
HR = "torch.manual_seed(0)\nx = torch.randn(200)\n"
DR0 = "torch.manual_seed(0)\np = torch.randn(100, 3)\n"
cases("histogram", {
    "bins_int": HR + "torch.histogram(x, 7)",
    "default_bins": HR + "torch.histogram(x)",
    "method": HR + "x.histogram(5)",
    "kw": HR + "torch.histogram(x, bins=6, range=(-1.0, 1.5), density=False)",
    "range": HR + "torch.histogram(x, 4, range=(-0.5, 0.5))",
    "range_equal": HR + "torch.histogram(x, 4, range=(0.25, 0.25))",
    "f64": HR + "torch.histogram(x.double(), 9)",
    "weight": HR + "w = torch.rand(200)\n(torch.histogram(x, 5, weight=w), torch.histogram(x.double(), 5, weight=w.double()))",
    "density": HR + "(torch.histogram(x, 6, density=True), torch.histogram(x.double(), 6, density=True))",
    "density_weight": HR + "torch.histogram(x, 3, density=True, weight=torch.rand(200))",
    "bins_tensor": HR + "torch.histogram(x, torch.tensor([-2.0, -0.5, 0.0, 0.1, 3.0]))",
    "bins_tensor_uneven_density": HR + "torch.histogram(x.double(), torch.tensor([-3.0, -1.0, 0.0, 0.25, 0.5, 4.0], dtype=torch.float64), density=True)",
    "bins_tensor_weight": HR + "torch.histogram(x, torch.tensor([-1.0, 0.0, 1.0]), weight=torch.arange(200.))",
    "bins_tensor_descending": HR + "torch.histogram(x, torch.tensor([1.0, 0.0]))",
    "bins_tensor_single_edge": HR + "torch.histogram(x, torch.tensor([0.5, 0.5]))",
    "edges_inclusive": "torch.histogram(torch.tensor([0., 0.25, 0.5, 0.75, 1.0, -0.1, 1.1, float('nan')]), 4, range=(0., 1.))",
    "edges_tensor_inclusive": "torch.histogram(torch.tensor([0., 0.25, 0.5, 0.75, 1.0, -0.1, 1.1]), torch.tensor([0., 0.25, 0.5, 1.0]))",
    "constant": "torch.histogram(torch.ones(4), 2)",
    "empty": "(torch.histogram(torch.tensor([]), 3), torch.histogram(torch.zeros(0, 2), 2, range=(1., 2.)))",
    "nd_input": HR + "torch.histogram(x.reshape(4, 5, 10), 3)",
    "noncontiguous": HR + "torch.histogram(x.reshape(20, 10).t(), 4, weight=torch.rand(20, 10).t())",
    "nan_extrema": "torch.histogram(torch.tensor([1., float('nan'), 2.]), 3)",
    "out": HR + "h, e = torch.empty(0), torch.empty(0)\nr = torch.histogram(x, 4, out=(h, e))\n(r.hist is h, r.bin_edges is e, h, e)",
    "out_resize": HR + "h, e = torch.empty(2), torch.empty(9)\ntorch.histogram(x, 4, range=(0., 1.), out=(h, e))\n(h, e)",
    "bins_tensor_out": HR + "h, e = torch.empty(0), torch.empty(0)\nb = torch.tensor([-1.0, 0.0, 2.0])\ntorch.histogram(x, b, out=(h, e))\n(h, e, e is b)",
    "aten": HR + "(torch.ops.aten.histogram.bin_ct(x, 3), torch.ops.aten.histogram.bins_tensor(x, torch.tensor([0., 1.])))",
    "aten_out": HR + "h, e = torch.empty(0), torch.empty(0)\ntorch.ops.aten.histogram.bin_ct_out(x, 3, hist=h, bin_edges=e)\nh2, e2 = torch.empty(0), torch.empty(0)\ntorch.ops.aten.histogram.bins_tensor_out(x, torch.tensor([0., 1.]), hist=h2, bin_edges=e2)\n(h, e, h2, e2)",
    "bad_bins": HR + "torch.histogram(x, 0)",
    "bad_bins_negative": HR + "torch.histogram(x, -3)",
    "bad_range_order": HR + "torch.histogram(x, 3, range=(1., 0.))",
    "bad_range_inf": HR + "torch.histogram(x, 3, range=(0., float('inf')))",
    "bad_range_nan_input": "torch.histogram(torch.tensor([1., float('nan')]), 3)",
    "bad_bins_dtype": HR + "torch.histogram(x, torch.tensor([0, 1]))",
    "bad_bins_2d": HR + "torch.histogram(x, torch.tensor([[0., 1.]]))",
    "bad_bins_one_edge": HR + "torch.histogram(x, torch.tensor([0.]))",
    "bad_bins_no_edge": HR + "torch.histogram(x, torch.tensor([]))",
    "bad_weight_shape": HR + "torch.histogram(x, 3, weight=torch.ones(3))",
    "bad_weight_dtype": HR + "torch.histogram(x, 3, weight=torch.ones(200, dtype=torch.float64))",
    "bad_dtype_int": "torch.histogram(torch.arange(5), 3)",
    "bad_dtype_half": "torch.histogram(torch.ones(5, dtype=torch.float16), 3)",
    "lowp_bins_tensor": HR + "[torch.histogram(x.to(d), torch.tensor([-1.0, -0.3, 0.0, 1.0, 2.5]).to(d), weight=torch.rand(200).to(d)) for d in (torch.float16, torch.bfloat16)]",
    "lowp_range": HR + "[torch.histogram(x.to(d), 7, range=(-1.5, 2.0), density=True) for d in (torch.float16, torch.bfloat16)]",
    "bf16_saturating": "torch.histogram(torch.zeros(600, dtype=torch.bfloat16), 2, range=(-1., 1.))",
    "lowp_dd": DR0 + "[torch.histogramdd(p.to(d), [torch.tensor([-1., 0., 1.]).to(d)] * 3, density=True) for d in (torch.float16, torch.bfloat16)]",
    "bad_lowp_no_range": "torch.histogram(torch.ones(5, dtype=torch.bfloat16), 3)",
    "bad_out_dtype": HR + "torch.histogram(x, 3, out=(torch.empty(0, dtype=torch.float64), torch.empty(0)))",
})

DR = "torch.manual_seed(0)\np = torch.randn(100, 3)\n"
cases("histogramdd", {
    "bins_list": DR + "r = torch.histogramdd(p, [3, 4, 2])\n(r.hist, r.bin_edges)",
    "bins_int": DR + "torch.histogramdd(p, 3)",
    "range": DR + "torch.histogramdd(p, [2, 2, 2], range=[-1., 1., -2., 2., 0., 1.])",
    "weight_density": DR + "torch.histogramdd(p, [3, 2, 2], weight=torch.rand(100), density=True)",
    "f64": DR + "torch.histogramdd(p.double(), 4, density=True)",
    "tensor_bins": DR + "b = [torch.tensor([-1., 0., 1.]), torch.tensor([-3., 3.]), torch.tensor([-2., -1., 0., 0.5, 2.])]\nr = torch.histogramdd(p, b)\n(r, [e is o for e, o in zip(r.bin_edges, b)])",
    "tensor_bins_weight": DR + "torch.histogramdd(p, [torch.tensor([-1., 0., 1.])] * 3, weight=torch.arange(100.), density=True)",
    "batched_input": DR + "torch.histogramdd(p.reshape(4, 25, 3), [2, 3, 2])",
    "two_dims": "torch.manual_seed(0)\ntorch.histogramdd(torch.randn(50, 2), [5, 5])",
    "one_dim": "torch.manual_seed(0)\ntorch.histogramdd(torch.randn(50, 1), [5])",
    "empty": "torch.histogramdd(torch.zeros(0, 2), [2, 3])",
    "noncontiguous": DR + "torch.histogramdd(p.t().contiguous().t(), [2, 2, 2])",
    "aten_pieces": DR + "(torch.ops.aten._histogramdd_bin_edges(p, [2, 3, 2]), torch.ops.aten._histogramdd_from_bin_cts(p, [2, 3, 2], range=[-1., 1., -1., 1., -1., 1.]),"
                   " torch.ops.aten._histogramdd_from_bin_tensors(p, [torch.tensor([-1., 1.])] * 3, density=True))",
    "aten_composites": DR + "(torch.ops.aten.histogramdd.default(p, [2, 2, 2]), torch.ops.aten.histogramdd.int_bins(p, 2), torch.ops.aten.histogramdd.TensorList_bins(p, [torch.tensor([0., 1.])] * 3))",
    "bad_1d": "torch.histogramdd(torch.randn(10), [3])",
    "bad_bins_len": DR + "torch.histogramdd(p, [2, 2])",
    "bad_bins_zero": DR + "torch.histogramdd(p, [2, 0, 2])",
    "bad_range_len": DR + "torch.histogramdd(p, [2, 2, 2], range=[0., 1.])",
    "bad_weight": DR + "torch.histogramdd(p, 2, weight=torch.ones(3))",
    "bad_tensor_bins_dtype": DR + "torch.histogramdd(p, [torch.tensor([0., 1.]), torch.tensor([0, 1]), torch.tensor([0., 1.])])",
    "bad_int": "torch.histogramdd(torch.ones(4, 2, dtype=torch.int64), 2)",
})

# ---- torch.gradient (src/ops/gradient.c): upstream's decomposition, op by op ----
# Values: the same pointwise ops in the same order as upstream's composite: bit for bit.
GR = "torch.manual_seed(0)\nx = torch.randn(5, 6)\n"
CO = "c0 = torch.tensor([0., 1., 3., 4., 8.])\nc1 = torch.arange(6.) ** 2\n"
cases("gradient", {
    "default": GR + "torch.gradient(x)",
    "scalar_dim": GR + "torch.gradient(x, spacing=2.0, dim=1)",
    "scalar_int_spacing": GR + "torch.gradient(x, spacing=3)",
    "edge2": GR + "(torch.gradient(x, edge_order=2), torch.gradient(x, spacing=0.5, dim=0, edge_order=2))",
    "scalar_dims_list": GR + "torch.gradient(x, spacing=2.0, dim=[1, 0])",
    "dims_list": GR + "torch.gradient(x, dim=[1, -2], edge_order=2)",
    "scalar_list": GR + "(torch.gradient(x, spacing=[2.0, 0.5]), torch.gradient(x, spacing=[2.0], dim=1), torch.gradient(x, spacing=[3, 0.25], dim=[1, 0], edge_order=2))",
    "tensor_spacing": GR + CO + "(torch.gradient(x, spacing=(c0, c1)), torch.gradient(x, spacing=(c0, c1), edge_order=2))",
    "tensor_spacing_dim": GR + CO + "(torch.gradient(x, spacing=(c0,), dim=0), torch.gradient(x, spacing=[c1, c0], dim=[1, 0], edge_order=2))",
    "f64": GR + CO + "(torch.gradient(x.double(), edge_order=2), torch.gradient(x.double(), spacing=(c0.double(), c1.double())))",
    "lowp": GR + "[torch.gradient(x.to(d), spacing=0.5, edge_order=e) for d in (torch.float16, torch.bfloat16) for e in (1, 2)]",
    "int_input": "(torch.gradient(torch.arange(10)), torch.gradient(torch.arange(12).reshape(3, 4), spacing=2, edge_order=2))",
    "complex": "torch.manual_seed(0)\ntorch.gradient(torch.randn(6, dtype=torch.complex64), spacing=0.5, edge_order=2)",
    "one_d": GR + "torch.gradient(x[0])",
    "three_d": "torch.manual_seed(0)\ntorch.gradient(torch.randn(3, 4, 5), dim=[0, 2], edge_order=2)",
    "noncontiguous": GR + CO + "(torch.gradient(x.t()), torch.gradient(x[:, ::2], spacing=(c0, torch.tensor([0., 1., 5.]))))",
    "min_size": "(torch.gradient(torch.tensor([1., 4.])), torch.gradient(torch.tensor([1., 4., 9.]), edge_order=2))",
    "aten": GR + CO + "(torch.ops.aten.gradient.scalarint(x), torch.ops.aten.gradient.scalararray(x, spacing=2.0, dim=[0]),"
            " torch.ops.aten.gradient.array(x, dim=[1]), torch.ops.aten.gradient.scalarrayint(x, spacing=[1.0, 2.0]),"
            " torch.ops.aten.gradient.scalarrayarray(x, spacing=[2.0], dim=[1]), torch.ops.aten.gradient.tensorarrayint(x, spacing=[c0, c1]),"
            " torch.ops.aten.gradient.tensorarray(x, spacing=[c1], dim=[1], edge_order=2))",
    "bad_uint8": "torch.gradient(torch.ones(3, dtype=torch.uint8))",
    "bad_edge_order": GR + "torch.gradient(x, edge_order=3)",
    "bad_small": "torch.gradient(torch.ones(2, 2), edge_order=2)",
    "bad_small_dim": "torch.gradient(torch.ones(1, 5), dim=0)",
    "bad_spacing_len": GR + "torch.gradient(x, spacing=[1., 2., 3.])",
    "bad_spacing_dim_len": GR + "torch.gradient(x, spacing=[1., 2.], dim=[0])",
    "bad_repeated_dim": GR + "torch.gradient(x, dim=[0, 0])",
    "bad_dim_range": GR + "torch.gradient(x, dim=5)",
    "bad_tensor_spacing_2d": GR + "torch.gradient(x, spacing=(torch.ones(5, 1),), dim=0)",
    "bad_tensor_spacing_len": GR + "torch.gradient(x, spacing=(torch.arange(5.),))",
})

from harness.autograd import grads, F64   # noqa: E402
grads("grad_gradient", {
    "scalar": "ps = leaves((5, 6))\nout = torch.stack(torch.gradient(ps[0], spacing=0.5)).pow(2)",
    "edge2": "ps = leaves((5, 6))\nout = torch.gradient(ps[0], dim=1, edge_order=2)[0] * torch.arange(6.)",
    "scalar_list": "ps = leaves((4, 5))\nout = torch.gradient(ps[0], spacing=[2.0, 3.0], edge_order=2)[1].sin()",
    "tensor_spacing": "ps = leaves((5, 4), (5,))\nc = ps[1].detach().abs().cumsum(0) + ps[1]\nout = torch.gradient(ps[0], spacing=(c,), dim=0, edge_order=2)[0].exp()",
    "tensor_spacing_e1": "ps = leaves((5,), (5,))\nc = torch.arange(5.) + 0.1 * ps[1]\nout = torch.gradient(ps[0], spacing=(c,))[0] ** 2",
})
grads("grad_gradient_f64", {
    "f64": "ps = leaves((5, 6), dtype=torch.float64)\nout = torch.gradient(ps[0], edge_order=2)[0].tanh()",
}, tol=F64)
