"""Backward operators autograd's formulas call (src/ops/backward.c): activation backwards
(threshold / relu, sigmoid, tanh, silu, gelu, hardtanh, leaky_relu, elu), mse_loss backward,
softmax / log_softmax backward, embedding backward, layer norm backward, nll_loss forward /
backward — compared with upstream. Elementwise formulas without transcendental functions,
mse_loss, nll_loss and embedding accumulation are bit-exact; transcendental ones (upstream's
vectorised exp / erf / tanh, oneDNN's gelu) and the reductions of softmax / layer norm use
tol="float"."""
from harness import cases

SETUP = """
torch.manual_seed(0)
A = torch.ops.aten
g = torch.randn(5, 40)
x = torch.randn(5, 40)
y = torch.rand(5, 40)
th = torch.rand(5, 40) * 2 - 1
gs = torch.randn(3, 4)
xs = torch.randn(3, 4)
"""

DT = ["torch.float32", "torch.float64", "torch.bfloat16", "torch.float16"]

# ---------------------------------------------------------------- exact elementwise

exact = {}
for i, d in enumerate(DT):
    exact["thr%d" % i] = "A.threshold_backward(g.to(%s), x.to(%s), 0)" % (d, d)
    exact["thr_t%d" % i] = "A.threshold_backward(g.to(%s), x.to(%s), 0.3)" % (d, d)
    exact["sig%d" % i] = "A.sigmoid_backward(g.to(%s), y.to(%s))" % (d, d)
    exact["tanh%d" % i] = "A.tanh_backward(g.to(%s), th.to(%s))" % (d, d)
    exact["ht%d" % i] = "A.hardtanh_backward(g.to(%s), x.to(%s), -0.5, 0.7)" % (d, d)
    exact["lr%d" % i] = "A.leaky_relu_backward(g.to(%s), x.to(%s), 0.01, False)" % (d, d)
    exact["elu_r%d" % i] = "A.elu_backward(g.to(%s), 1.0, 1.0, 1.0, True, x.to(%s))" % (d, d)
exact.update({
    "thr_int": "A.threshold_backward(gs.mul(10).int(), xs.mul(10).int(), 1.7)",
    "thr_long": "A.threshold_backward(gs.mul(10).long(), xs.mul(10).long(), -2)",
    "thr_u8": "A.threshold_backward(torch.arange(12, dtype=torch.uint8), torch.arange(12, dtype=torch.uint8).flip(0), 5)",
    "thr_mixed": "A.threshold_backward(gs.half(), xs.bfloat16(), 0)",
    "thr_mixed2": "A.threshold_backward(gs, xs.int(), 0)",
    "thr_bcast": "A.threshold_backward(gs, xs[0], 0)",
    "thr_0dim": "A.threshold_backward(torch.tensor(2.), torch.tensor(-1.), 0)",
    "thr_empty": "A.threshold_backward(torch.randn(0, 3), torch.randn(0, 3), 0)",
    "thr_t": "A.threshold_backward(g.t(), x.t(), 0)",
    "thr_nc": "A.threshold_backward(g[:, ::2], x[:, 1::2], 0.1)",
    "thr_nan": "A.threshold_backward(torch.ones(3), torch.tensor([float('nan'), 0., 1.]), 0)",
    "thr_out": "A.threshold_backward(gs, xs, 0, grad_input=torch.empty(3, 4))",
    "thr_out_d": "A.threshold_backward(gs, xs, 0, grad_input=torch.empty(0, dtype=torch.float64))",
    "thr_out_ov": "A.threshold_backward.grad_input(gs, xs, 0, grad_input=torch.empty(3, 4))",
    "thr_default": "A.threshold_backward.default(gs, xs, 0.5)",
    "sig_out": "A.sigmoid_backward(gs, xs.abs().div(4), grad_input=torch.empty(0))",
    "sig_mixed": "A.sigmoid_backward(gs, xs.abs().div(4).half())",
    "sig_bcast": "A.sigmoid_backward(gs[0], xs.abs().div(4))",
    "sig_t": "A.sigmoid_backward(g.t(), y.t())",
    "sig_0dim": "A.sigmoid_backward(torch.tensor(1.5), torch.tensor(0.25))",
    "tanh_out": "A.tanh_backward.grad_input(gs, xs.div(4), grad_input=torch.empty(3, 4))",
    "tanh_int_grad": "A.tanh_backward(gs.int(), xs.div(4))",
    "tanh_empty": "A.tanh_backward(torch.randn(2, 0), torch.randn(2, 0))",
    "ht_out": "A.hardtanh_backward(gs, xs, -1, 1, grad_input=torch.empty(3, 4))",
    "ht_rev": "A.hardtanh_backward(gs, xs, 1, -1)",
    "ht_bf16_edge": "A.hardtanh_backward(torch.ones(3).bfloat16(), torch.tensor([0.3, 0.30078125, 0.298828125]).bfloat16(), 0.3, 1.0)",
    "ht_nc": "A.hardtanh_backward(g[::2], x[1::2], -0.5, 0.5)",
    "lr_out": "A.leaky_relu_backward(gs, xs, 0.2, False, grad_input=torch.empty(0))",
    "lr_mixed": "A.leaky_relu_backward(gs, xs.half(), 0.1, False)",
    "lr_neg": "A.leaky_relu_backward(gs, xs, -0.1, False)",
    "elu_r_params": "A.elu_backward(gs, 0.5, 2.0, 1.5, True, xs)",
    "elu_out": "A.elu_backward(gs, 1.0, 1.0, 1.0, True, xs, grad_input=torch.empty(3, 4))",
})
cases("bwd_elementwise", exact, setup=SETUP)

cases("bwd_elementwise_errors", {
    "thr_bool": "A.threshold_backward(gs.bool(), xs.bool(), 0)",
    "thr_cplx": "A.threshold_backward(gs.cfloat(), xs.cfloat(), 0)",
    "thr_shape": "A.threshold_backward(gs, torch.randn(2, 4), 0)",
    "thr_out_cast": "A.threshold_backward(gs, xs, 0, grad_input=torch.empty(0, dtype=torch.int32))",
    "sig_int": "A.sigmoid_backward(gs.int(), xs.int())",
    "tanh_bool": "A.tanh_backward(gs.bool(), xs.bool())",
    "silu_int": "A.silu_backward(gs.int(), xs.int())",
    "gelu_int": "A.gelu_backward(gs.int(), xs.int())",
    "gelu_cplx": "A.gelu_backward(gs.cfloat(), xs.cfloat())",
    "gelu_bad": "A.gelu_backward(gs, xs, approximate='foo')",
    "ht_int": "A.hardtanh_backward(gs.int(), xs.int(), -1, 1)",
    "lr_int": "A.leaky_relu_backward(gs.int(), xs.int(), 0.1, False)",
    "lr_inplace_neg": "A.leaky_relu_backward(gs, xs, -0.1, True)",
    "elu_inplace_neg": "A.elu_backward(gs, -1., 1., 1., True, xs)",
    "elu_int": "A.elu_backward(gs.int(), 1., 1., 1., False, xs.int())",
    "sig_shape": "A.sigmoid_backward(gs, torch.randn(4, 3))",
}, setup=SETUP)

# ---------------------------------------------------------------- transcendental elementwise

flt = {}
for i, d in enumerate(DT):
    flt["silu%d" % i] = "A.silu_backward(g.to(%s), x.to(%s))" % (d, d)
    flt["gelu%d" % i] = "A.gelu_backward(g.to(%s), x.to(%s))" % (d, d)
    flt["gelu_tanh%d" % i] = "A.gelu_backward(g.to(%s), x.to(%s), approximate='tanh')" % (d, d)
    flt["elu%d" % i] = "A.elu_backward(g.to(%s), 1.0, 1.0, 1.0, False, x.to(%s))" % (d, d)
flt.update({
    "silu_out": "A.silu_backward(gs, xs, grad_input=torch.empty(3, 4))",
    "silu_t": "A.silu_backward(g.t(), x.t())",
    "silu_mixed": "A.silu_backward(gs, xs.double())",
    "silu_0dim": "A.silu_backward(torch.tensor(1.), torch.tensor(0.5))",
    "gelu_out": "A.gelu_backward.grad_input(gs, xs, approximate='tanh', grad_input=torch.empty(0))",
    "gelu_mixed": "A.gelu_backward(gs, xs.half())",
    "gelu_nc": "A.gelu_backward(g[:, ::3], x[:, ::3])",
    "gelu_big": "A.gelu_backward(torch.ones(7), torch.tensor([-20., -5., -1e-3, 0., 1e-3, 5., 20.]))",
    "elu_params": "A.elu_backward(gs, 0.5, 2.0, 1.5, False, xs)",
    "elu_mixed": "A.elu_backward(gs.half(), 1., 1., 1., False, xs)",
    "elu_int_self": "A.elu_backward(gs, 1., 1., 1., False, xs.int())",
    "sig_cplx": "A.sigmoid_backward(gs.cfloat(), (xs.cfloat() + gs.cfloat() * 1j))",
    "tanh_cplx": "A.tanh_backward(gs.cdouble(), (xs.cdouble() + gs.cdouble() * 1j))",
})
f64 = {k: flt.pop(k) for k in [k for k in flt if k.endswith("1") and k[:-1] in ("silu", "gelu", "gelu_tanh", "elu")]}
f64["silu_mixed"] = flt.pop("silu_mixed")
cases("bwd_elementwise_float", flt, setup=SETUP, tol="float")

# float64: upstream's own float64 result is its reference (err = 0), but its vector exp / erf /
# tanh differ from the C library's by an ulp; a small absolute/relative tolerance instead.
cases("bwd_elementwise_f64", f64, setup=SETUP, tol=(1e-14, 1e-13))

# ---------------------------------------------------------------- mse_loss_backward

MSE = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(5, 40)
t = torch.randn(5, 40)
go = torch.tensor(0.7)
"""
mse = {}
for i, d in enumerate(DT):
    mse["mean%d" % i] = "A.mse_loss_backward(go.to(%s), x.to(%s), t.to(%s), 1)" % (d, d, d)
    mse["sum%d" % i] = "A.mse_loss_backward(go.to(%s), x.to(%s), t.to(%s), 2)" % (d, d, d)
    mse["none%d" % i] = "A.mse_loss_backward(x.to(%s) * 0.5, x.to(%s), t.to(%s), 0)" % (d, d, d)
mse.update({
    "red3": "A.mse_loss_backward(go, x, t, 3)",
    "long": "A.mse_loss_backward(torch.tensor(1), x.mul(5).long(), t.mul(5).long(), 0)",
    "int_mean": "A.mse_loss_backward(torch.tensor(3, dtype=torch.int32), x.mul(5).int(), t.mul(5).int(), 1)",
    "mixed_t": "A.mse_loss_backward(go, x, t.double(), 1)",
    "mixed_go": "A.mse_loss_backward(go.double(), x, t, 1)",
    "mixed_x": "A.mse_loss_backward(go, x.half(), t, 1)",
    "bcast_t": "A.mse_loss_backward(go, x[0], t, 0)",
    "bcast_x": "A.mse_loss_backward(x, x, t[0], 0)",
    "nc": "A.mse_loss_backward(go, x.t(), t.t(), 1)",
    "nc2": "A.mse_loss_backward(go, x[:, ::2], t[:, 1::2], 1)",
    "0dim": "A.mse_loss_backward(torch.tensor(1.), torch.tensor(2.), torch.tensor(0.5), 1)",
    "empty": "A.mse_loss_backward(torch.tensor(1.), torch.randn(0, 3), torch.randn(0, 3), 1)",
    "out": "A.mse_loss_backward(go, x, t, 1, grad_input=torch.empty(5, 40))",
    "out_ov": "A.mse_loss_backward.grad_input(go, x, t, 2, grad_input=torch.empty(0))",
    "out_d": "A.mse_loss_backward(go, x, t, 1, grad_input=torch.empty(5, 40, dtype=torch.float64))",
    "autograd_like": "x2 = x.clone(); A.mse_loss_backward(torch.tensor(1.), x2, t, 1)",
})
cases("bwd_mse_loss", mse, setup=MSE)

cases("bwd_mse_loss_errors", {
    "shape": "A.mse_loss_backward(go, x.t(), t, 1)",
    "bool": "A.mse_loss_backward(go, x.bool(), t.bool(), 1)",
    "cplx": "A.mse_loss_backward(go, x.cfloat(), t.cfloat(), 1)",
    "out_cast": "A.mse_loss_backward(go, x, t, 1, grad_input=torch.empty(5, 40, dtype=torch.int32))",
}, setup=MSE)

# ---------------------------------------------------------------- softmax backward

SM = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(3, 4, 5)
g = torch.randn(3, 4, 5)
y = torch.rand(3, 4, 5)
ly = -3 * torch.rand(3, 4, 5)
F, H, B, D = torch.float32, torch.float16, torch.bfloat16, torch.float64
"""
sm = {}
for i, d in enumerate(DT):
    sm["sm%d" % i] = "A._softmax_backward_data(g.to(%s), y.to(%s), -1, %s)" % (d, d, d)
    sm["lsm%d" % i] = "A._log_softmax_backward_data(g.to(%s), ly.to(%s), 2, %s)" % (d, d, d)
sm.update({
    "sm_dim0": "A._softmax_backward_data(g, y.flip(0), 0, F)",
    "sm_dim1": "A._softmax_backward_data(g, y.flip(1), 1, F)",
    "lsm_dim1": "A._log_softmax_backward_data(g.double(), ly.flip(1).double(), 1, D)",
    "sm_half_in_f": "A._softmax_backward_data(g.half(), y.half(), -1, F)",
    "lsm_bf16_in_f": "A._log_softmax_backward_data(g.bfloat16(), ly.bfloat16(), -1, F)",
    "sm_f_in_bf16": "A._softmax_backward_data(g, y, -1, B)",
    "sm_f_in_d": "A._softmax_backward_data(g, y, -1, D)",
    "sm_t": "A._softmax_backward_data(g.transpose(0, 2), y.transpose(0, 2), 0, F)",
    "sm_nc": "A._softmax_backward_data(g[:, ::2], y[:, ::2], 1, F)",
    "sm_0dim": "A._softmax_backward_data(torch.tensor(1.), torch.tensor(1.), 0, F)",
    "lsm_0dim": "A._log_softmax_backward_data(torch.tensor(2.), torch.tensor(0.), -1, F)",
    "sm_empty": "A._softmax_backward_data(torch.randn(0, 3), torch.randn(0, 3), 1, F)",
    "sm_out": "A._softmax_backward_data(g, y, -1, F, grad_input=torch.empty(0))",
    "sm_out_ov": "A._softmax_backward_data.out(g, y, 2, F, grad_input=torch.empty(3, 4, 5))",
    "lsm_out": "A._log_softmax_backward_data.out(g.round(), torch.zeros(3, 4, 5), -1, F, out=torch.empty(0))",
    "sm_torch": "torch._softmax_backward_data(g, y, -1, F)",
    "lsm_torch": "torch._log_softmax_backward_data(g, ly, -1, F)",
    "sm_long": "A._softmax_backward_data(torch.randn(4, 300), torch.rand(4, 300), 1, F)",
})
cases("bwd_softmax", sm, setup=SM, tol="float")

cases("bwd_softmax_errors", {
    "f_to_h": "A._softmax_backward_data(g, y, -1, H)",
    "lsm_f_to_h": "A._log_softmax_backward_data(g, ly, -1, H)",
    "dtypes": "A._softmax_backward_data(g.double(), y, -1, D)",
    "dtypes2": "A._softmax_backward_data(g, y.double(), -1, F)",
    "shape": "A._softmax_backward_data(g, y[:2], -1, F)",
    "dim": "A._softmax_backward_data(g, y, 3, F)",
    "dim_0d": "A._softmax_backward_data(torch.tensor(1.), torch.tensor(1.), 1, F)",
    "int": "A._softmax_backward_data(g.int(), y.int(), -1, torch.int32)",
    "int_dim0": "A._softmax_backward_data(g.int(), y.int(), 0, torch.int32)",
    "lsm_int": "A._log_softmax_backward_data(g.int(), ly.int(), -1, torch.int32)",
    "lsm_int_dim0": "A._log_softmax_backward_data(g.int(), ly.int(), 0, torch.int32)",
    "out_dtype": "A._softmax_backward_data(g, y, -1, F, grad_input=torch.empty(0, dtype=D))",
    "out_dtype_h": "A._softmax_backward_data(g, y, -1, H, grad_input=torch.empty(0, dtype=D))",
    "lsm_out_dtype": "A._log_softmax_backward_data(g, ly, -1, F, out=torch.empty(0, dtype=D))",
}, setup=SM)

# ---------------------------------------------------------------- embedding backward

EMB = """
torch.manual_seed(0)
A = torch.ops.aten
g = torch.randn(2, 3, 4)
i = torch.tensor([[0, 2, 2], [5, 2, 0]])
gl = torch.randn(50, 16)
il = torch.randint(0, 7, (50,))
"""
emb = {}
for j, d in enumerate(DT):
    emb["dense%d" % j] = "A.embedding_dense_backward(gl.to(%s), il, 7, -1, False)" % d
    emb["freq%d" % j] = "A.embedding_dense_backward(gl.to(%s), il, 7, 3, True)" % d
emb.update({
    "basic": "A.embedding_dense_backward(g, i, 6, -1, False)",
    "pad": "A.embedding_dense_backward(g, i, 6, 2, False)",
    "freq": "A.embedding_dense_backward(g, i, 6, 2, True)",
    "int_idx": "A.embedding_dense_backward(g, i.int(), 6, -1, False)",
    "int_grad": "A.embedding_dense_backward(g.mul(10).int(), i, 6, -1, False)",
    "cplx": "A.embedding_dense_backward(g.cfloat(), i, 6, -1, False)",
    "fewer_rows": "A.embedding_dense_backward(g, i, 3, -1, False)",
    "zero_rows": "A.embedding_dense_backward(g, i, 0, -1, False)",
    "neg_pad": "A.embedding_dense_backward(g, i, 6, -3, False)",
    "nc": "A.embedding_dense_backward(g.transpose(0, 1), i.t(), 6, -1, False)",
    "nc_idx": "A.embedding_dense_backward(g[:, ::2] if False else g[:, :2], i[:, ::2], 6, -1, True)",
    "empty": "A.embedding_dense_backward(torch.randn(0, 4), torch.zeros(0, dtype=torch.long), 6, -1, False)",
    "1d": "A.embedding_dense_backward(torch.randn(4), torch.tensor(3), 5, -1, False)",
    "out": "A.embedding_dense_backward(g, i, 6, -1, False, out=torch.empty(0))",
    "out_ov": "A.embedding_dense_backward.out(g, i, 6, 0, True, out=torch.empty(6, 4))",
    "composite": "A.embedding_backward(g, i, 6, -1, False, False)",
    "composite_freq": "torch.ops.aten.embedding_backward.default(g, i, 6, 0, True, False)",
})
cases("bwd_embedding", emb, setup=EMB)

cases("bwd_embedding_errors", {
    "float_idx": "A.embedding_dense_backward(g, i.float(), 6, -1, False)",
    "shape": "A.embedding_dense_backward(g[0], i, 6, -1, False)",
    "0dim": "A.embedding_dense_backward(torch.tensor(1.), torch.tensor(0), 6, -1, False)",
    "out_dtype": "A.embedding_dense_backward(g, i, 6, -1, False, out=torch.empty(0, dtype=torch.float64))",
}, setup=EMB)

# ---------------------------------------------------------------- native_layer_norm_backward

LN = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(2, 3, 8)
w = torch.randn(8)
b = torch.randn(8)
g = torch.randn(2, 3, 8)
o, m, r = torch.native_layer_norm(x, [8], w, b, 1e-5)
T3 = [True, True, True]
"""
cases("bwd_layer_norm", {
    "all": "A.native_layer_norm_backward(g, x, [8], m, r, w, b, T3)",
    "mask_tft": "A.native_layer_norm_backward(g, x, [8], m, r, w, b, [True, False, True])",
    "input_only": "A.native_layer_norm_backward(g, x, [8], m, r, None, None, [True, False, False])",
    "bias_only": "A.native_layer_norm_backward(g, x, [8], m, r, None, b, [False, False, True])",
    "none": "A.native_layer_norm_backward(g, x, [8], m, r, w, b, [False, False, False])",
    "weight_only": "A.native_layer_norm_backward(g, x, [8], m, r, w, None, [True, True, False])",
    "bf16": "o2, m2, r2 = torch.native_layer_norm(x.bfloat16(), [8], w.bfloat16(), b.bfloat16(), 1e-5)\n"
            "A.native_layer_norm_backward(g.bfloat16(), x.bfloat16(), [8], m2, r2, w.bfloat16(), b.bfloat16(), T3)",
    "f16": "o2, m2, r2 = torch.native_layer_norm(x.half(), [8], w.half(), b.half(), 1e-5)\n"
           "A.native_layer_norm_backward(g.half(), x.half(), [8], m2, r2, w.half(), b.half(), T3)",
    "bf16_mixed": "o2, m2, r2 = torch.native_layer_norm(x.bfloat16(), [8], w, b, 1e-5)\n"
                  "A.native_layer_norm_backward(g.bfloat16(), x.bfloat16(), [8], m2, r2, w, b, T3)",
    "two_dims": "o2, m2, r2 = torch.native_layer_norm(x, [3, 8], None, None, 1e-5)\n"
                "A.native_layer_norm_backward(g, x, [3, 8], m2, r2, None, None, [True, False, False])",
    "empty": "A.native_layer_norm_backward(torch.randn(0, 8), torch.randn(0, 8), [8], torch.randn(0, 1), torch.randn(0, 1), w, b, T3)",
    "1d": "o2, m2, r2 = torch.native_layer_norm(x[0, 0], [8], w, b, 1e-5)\n"
          "A.native_layer_norm_backward(g[0, 0], x[0, 0], [8], m2, r2, w, b, T3)",
    "out": "A.native_layer_norm_backward.out(g, x, [8], m, r, w, b, T3, out0=torch.empty(0), out1=torch.empty(0), out2=torch.empty(0))",
    "default": "A.native_layer_norm_backward.default(g, x, [8], m, r, w, b, T3)",
    "wide": "xw = torch.randn(4, 300)\nwt = torch.randn(300)\no2, m2, r2 = torch.native_layer_norm(xw, [300], wt, None, 1e-5)\n"
            "A.native_layer_norm_backward(torch.randn(4, 300), xw, [300], m2, r2, wt, None, [True, True, False])",
}, setup=LN, tol="float")

cases("bwd_layer_norm_f64", {
    "f64": "o2, m2, r2 = torch.native_layer_norm(x.double(), [8], w.double(), b.double(), 1e-5)\n"
           "A.native_layer_norm_backward(g.double(), x.double(), [8], m2, r2, w.double(), b.double(), T3)",
    "f64_wide": "xw = torch.randn(3, 100).double()\no2, m2, r2 = torch.native_layer_norm(xw, [100], None, None, 1e-5)\n"
                "A.native_layer_norm_backward(torch.randn(3, 100).double(), xw, [100], m2, r2, None, None, [True, False, False])",
}, setup=LN, tol=(1e-14, 1e-13), vars=False)

cases("bwd_layer_norm_errors", {
    "w_none_mask": "A.native_layer_norm_backward(g, x, [8], m, r, None, None, T3)",
    "shape": "A.native_layer_norm_backward(g, x, [7], m, r, w, b, T3)",
    "input_shape": "A.native_layer_norm_backward(g, x, [8], m, r, None, None, [True, False, False]) if False else A.native_layer_norm_backward(g, x, [3], m, r, None, None, [True, False, False])",
    "g_dtype": "A.native_layer_norm_backward(g.double(), x, [8], m, r, w, b, T3)",
    "x_dtype": "A.native_layer_norm_backward(g, x.double(), [8], m, r, w, b, T3)",
    "m_dtype": "A.native_layer_norm_backward(g, x, [8], m.double(), r, w, b, T3)",
    "w_dtype": "A.native_layer_norm_backward(g, x, [8], m, r, w.double(), b, T3)",
    "bf16_stats": "A.native_layer_norm_backward(g.bfloat16(), x.bfloat16(), [8], m.bfloat16(), r.bfloat16(), w, b, T3)",
    "int": "A.native_layer_norm_backward(g.int(), x.int(), [8], m, r, w.int(), b.int(), T3)",
    "out_masked": "A.native_layer_norm_backward.out(g, x, [8], m, r, w, b, [True, False, True], out0=torch.empty(0), out1=torch.empty(0), out2=torch.empty(0))",
    "out_dtype": "A.native_layer_norm_backward.out(g, x, [8], m, r, w, b, T3, out0=torch.empty(0, dtype=torch.float64), out1=torch.empty(0), out2=torch.empty(0))",
}, setup=LN, vars=False)

# ---------------------------------------------------------------- nll_loss

NLL = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(40, 5) - 2
t = torch.randint(0, 5, (40,))
t[3] = -100
w = torch.rand(5)
"""
nll = {}
for j, d in enumerate(DT):
    for red in (0, 1, 2):
        nll["fw%d_%d" % (j, red)] = "A.nll_loss_forward(x.to(%s), t, None, %d, -100)" % (d, red)
        nll["fww%d_%d" % (j, red)] = "A.nll_loss_forward(x.to(%s), t, w.to(%s), %d, -100)" % (d, d, red)
        nll["bw%d_%d" % (j, red)] = ("out, tw = A.nll_loss_forward(x.to(%s), t, w.to(%s), %d, -100)\n"
                                     "A.nll_loss_backward(out * 0 + 0.75 if %d else torch.randn(40).to(%s), x.to(%s), t, w.to(%s), %d, -100, tw)"
                                     % (d, d, red, red, d, d, d, red))
        nll["bwn%d_%d" % (j, red)] = ("out, tw = A.nll_loss_forward(x.to(%s), t, None, %d, -100)\n"
                                      "A.nll_loss_backward(torch.ones_like(out), x.to(%s), t, None, %d, -100, tw)"
                                      % (d, red, d, red))
nll.update({
    "long_batch": "xl = torch.randn(3000, 7)\ntl = torch.randint(0, 7, (3000,))\nwl = torch.rand(7)\n"
                  "A.nll_loss_forward(xl, tl, wl, 1, -100)",
    "long_batch_bf16": "xl = torch.randn(3000, 7).bfloat16()\ntl = torch.randint(0, 7, (3000,))\nA.nll_loss_forward(xl, tl, None, 2, -100)",
    "ignore0": "A.nll_loss_forward(x, t, w, 2, 0)",
    "all_ignored": "A.nll_loss_forward(x, torch.ones(40, dtype=torch.long), None, 1, 1)",
    "red3": "A.nll_loss_forward(x, t, None, 3, -100)",
    "byte": "A.nll_loss_forward(x, t.clamp(0).to(torch.uint8), None, 1, -100)",
    "1d": "A.nll_loss_forward(x[0], t[0], None, 1, -100)",
    "1d_t1": "A.nll_loss_forward(x[0], t[:1], w, 0, -100)",
    "1d_ign": "A.nll_loss_forward(x[0], torch.tensor(-100), w, 1, -100)",
    "1d_bw": "A.nll_loss_backward(torch.tensor(0.5), x[0], t[0], w, 1, -100, w[t[0]])",
    "1d_bw_none": "A.nll_loss_backward(torch.tensor(0.5), x[0], t[0], None, 0, -100, torch.tensor(1.))",
    "nc": "A.nll_loss_forward(x.t().contiguous().t(), t, w, 1, -100)",
    "nc2": "A.nll_loss_forward(x[::2], t[::2], w, 0, -100)",
    "empty_mean": "A.nll_loss_forward(torch.randn(0, 5), t[:0], None, 1, -100)",
    "empty_none": "A.nll_loss_forward(torch.randn(0, 5), t[:0], None, 0, -100)",
    "empty_sum": "A.nll_loss_forward(torch.randn(0, 5), t[:0], None, 2, -100)",
    "out": "A.nll_loss_forward(x, t, None, 1, -100, output=torch.empty(0), total_weight=torch.empty(0))",
    "out_none": "A.nll_loss_forward.output(x, t, w, 0, -100, output=torch.empty(0), total_weight=torch.empty(0))",
    "bw_out": "A.nll_loss_backward(torch.tensor(1.), x, t, w, 1, -100, torch.tensor(3.), grad_input=torch.empty(0))",
    "bw_out_ov": "A.nll_loss_backward.grad_input(torch.tensor(1.), x, t, None, 2, -100, torch.tensor(3.), grad_input=torch.empty(40, 5))",
    "bw_none_nc": "A.nll_loss_backward(torch.randn(80)[::2], x, t, w, 0, -100, torch.tensor(0.))",
    "bw_1elem_go": "A.nll_loss_backward(torch.tensor([2.]), x, t, w, 1, -100, torch.tensor(3.))",
})
cases("bwd_nll_loss", nll, setup=NLL)

cases("bwd_nll_loss_errors", {
    "int_target": "A.nll_loss_forward(x, t.int(), None, 1, -100)",
    "float_target": "A.nll_loss_forward(x, t.float(), None, 1, -100)",
    "size": "A.nll_loss_forward(x, t[:3], None, 1, -100)",
    "oob": "A.nll_loss_forward(x, t + 5, None, 1, -100)",
    "oob_neg": "A.nll_loss_forward(x, t - 7, None, 2, -100)",
    "3d": "A.nll_loss_forward(x.unsqueeze(0), t, None, 1, -100)",
    "0d": "A.nll_loss_forward(torch.tensor(1.), t[0], None, 1, -100)",
    "w_shape": "A.nll_loss_forward(x, t, w[:3], 1, -100)",
    "w_dtype": "A.nll_loss_forward(x, t, w.double(), 1, -100)",
    "int_input": "A.nll_loss_forward(x.int(), t, None, 1, -100)",
    "target_2d": "A.nll_loss_forward(x, t.unsqueeze(0), None, 1, -100)",
    "1d_target_n": "A.nll_loss_forward(x[0], t, None, 1, -100)",
    "out_dtype": "A.nll_loss_forward(x, t, None, 0, -100, output=torch.empty(0, dtype=torch.float64), total_weight=torch.empty(0))",
    "out_tw_dtype": "A.nll_loss_forward(x, t, None, 1, -100, output=torch.empty(0), total_weight=torch.empty(0, dtype=torch.float64))",
    "bw_tw": "A.nll_loss_backward(torch.tensor(1.), x, t, None, 1, -100, torch.ones(2))",
    "bw_go": "A.nll_loss_backward(torch.ones(2), x, t, None, 1, -100, torch.tensor(1.))",
    "bw_go_none": "A.nll_loss_backward(torch.ones(3), x, t, None, 0, -100, torch.tensor(1.))",
    "bw_go_none_0d": "A.nll_loss_backward(torch.tensor(1.), x, t, None, 0, -100, torch.tensor(1.))",
    "bw_w": "A.nll_loss_backward(torch.tensor(1.), x, t, w[:2], 1, -100, torch.tensor(1.))",
    "bw_oob": "A.nll_loss_backward(torch.tensor(1.), x, t + 5, None, 1, -100, torch.tensor(1.))",
    "bw_size": "A.nll_loss_backward(torch.tensor(1.), x, t[:2], None, 1, -100, torch.tensor(1.))",
    "bw_3d": "A.nll_loss_backward(torch.tensor(1.), x.unsqueeze(0), t, None, 1, -100, torch.tensor(1.))",
    "bw_go_dtype": "A.nll_loss_backward(torch.tensor(1.).double(), x, t, None, 1, -100, torch.tensor(1.))",
    "bw_tw_dtype": "A.nll_loss_backward(torch.tensor(1.), x, t, None, 1, -100, torch.tensor(1.).double())",
    "bw_int_target": "A.nll_loss_backward(torch.tensor(1.), x, t.int(), None, 1, -100, torch.tensor(1.))",
    "bw_out_dtype": "A.nll_loss_backward(torch.tensor(1.), x, t, None, 1, -100, torch.tensor(1.), grad_input=torch.empty(0, dtype=torch.float64))",
}, setup=NLL)

# long f32 runs: the f32-lane bodies of kernels/vmath_body.h with special values inside a vector
cases("bwd_elementwise_long", {
    "silu": "torch.ops.aten.silu_backward(g, x)",
    "gelu": "torch.ops.aten.gelu_backward(g, x)",
    "gelu_tanh": "torch.ops.aten.gelu_backward(g, x, approximate='tanh')",
    "silu_strided": "torch.ops.aten.silu_backward(g.repeat(2)[::2], x.repeat(2)[::2])",
    "log_softmax_last": "y = torch.log_softmax(x[:350].reshape(7, 50), -1)\ntorch.ops.aten._log_softmax_backward_data(g[:350].reshape(7, 50), y, -1, torch.float32)",
    "log_softmax_dim0": "y = torch.log_softmax(x[:350].reshape(7, 50), 0)\ntorch.ops.aten._log_softmax_backward_data(g[:350].reshape(7, 50), y, 0, torch.float32)",
    "softmax_last": "y = torch.softmax(x[:350].reshape(7, 50), -1)\ntorch.ops.aten._softmax_backward_data(g[:350].reshape(7, 50), y, -1, torch.float32)",
}, setup="""
torch.manual_seed(0)
sp = torch.tensor([0., -0., 1e-40, 1., -1., -0.7518, -1.2785, 1.5, -1.5, 14.8, -14.8, 20., -20., 88.7,
                   -87.4, -103.9, -200., 1e13, -1e13, 2e19, -2e19, 3e38, -3e38, float('inf'), float('-inf'), float('nan')])
x = torch.cat([torch.randn(301) * 4, sp, torch.rand(37) * 30 - 15])
g = torch.randn(x.numel())
""", tol="float")
