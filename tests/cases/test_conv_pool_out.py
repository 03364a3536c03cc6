"""out= forms of convolution, convolution_backward, pooling, nll_loss and multilabel_margin_loss
(src/ops/conv_pool_out.c) and mse_loss (src/ops/loss.c) compared with upstream: result
into an empty out tensor (resized), into one of the right size, the returned object is the out
tensor, the Python spellings that take out= (torch._C._nn.X(..., out=)), a wrong out dtype
(upstream's exact-dtype rule, its wording per kernel family) and an input error that comes
before the out check."""
from harness import cases

SETUP = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(2, 3, 6, 6)
x3 = torch.randn(2, 2, 4, 4, 4)
w = torch.randn(4, 3, 3, 3)
E = lambda dt=torch.float32: torch.empty(0, dtype=dt)
L = lambda: torch.empty(0, dtype=torch.long)
mp_i = A.max_pool2d_with_indices(x, [2, 2])[1]
mp3_i = A.max_pool3d_with_indices(x3, [2, 2, 2])[1]
am_i = A.adaptive_max_pool2d(x, [3, 3])[1]
am3_i = A.adaptive_max_pool3d(x3, [2, 2, 2])[1]
# small integers: convolution_backward's sums are exact in float32, so any summation order agrees
I = lambda *shape: torch.randint(-3, 4, shape).float()
def run(f, *outs):
    r = f(*outs)
    rs = r if isinstance(r, tuple) else (r,)
    return [a is b for a, b in zip(rs, outs)], list(outs)
"""
CALLS = {
    "convolution": ("lambda o: A.convolution.out(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, out=o)", 1),
    "convolution_bias_stride": ("lambda o: A.convolution.out(x, w, torch.randn(4), [2, 2], [1, 1], [1, 1], False, [0, 0], 1, out=o)", 1),
    "_convolution": ("lambda o: A._convolution.out(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, False, False, True, True, out=o)", 1),
    "im2col": ("lambda o: A.im2col.out(x, [2, 2], [1, 1], [0, 0], [1, 1], out=o)", 1),
    "col2im": ("lambda o: A.col2im.out(torch.randn(2, 12, 25), [6, 6], [2, 2], [1, 1], [0, 0], [1, 1], out=o)", 1),
    "max_pool2d_with_indices": ("lambda o, i: A.max_pool2d_with_indices.out(x, [2, 2], out=o, indices=i)", 2),
    "max_pool2d_with_indices_nn": ("lambda o, i: torch._C._nn.max_pool2d_with_indices(x, 3, 2, 1, out=(o, i))", 2),
    "max_pool3d_with_indices": ("lambda o, i: A.max_pool3d_with_indices.out(x3, [2, 2, 2], out=o, indices=i)", 2),
    "max_pool2d_backward": ("lambda o: A.max_pool2d_with_indices_backward.grad_input(torch.randn(2, 3, 3, 3), x, [2, 2], [2, 2], [0, 0], [1, 1], False, mp_i, grad_input=o)", 1),
    "max_pool3d_backward": ("lambda o: A.max_pool3d_with_indices_backward.grad_input(torch.randn(2, 2, 2, 2, 2), x3, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False, mp3_i, grad_input=o)", 1),
    "avg_pool2d": ("lambda o: A.avg_pool2d.out(x, [3, 3], [2, 2], [1, 1], out=o)", 1),
    "avg_pool2d_nn": ("lambda o: torch._C._nn.avg_pool2d(x, 2, out=o)", 1),
    "avg_pool3d": ("lambda o: A.avg_pool3d.out(x3, [2, 2, 2], out=o)", 1),
    "avg_pool2d_backward": ("lambda o: A.avg_pool2d_backward.grad_input(torch.randn(2, 3, 3, 3), x, [2, 2], [2, 2], [0, 0], False, True, None, grad_input=o)", 1),
    "avg_pool3d_backward": ("lambda o: A.avg_pool3d_backward.grad_input(torch.randn(2, 2, 2, 2, 2), x3, [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, None, grad_input=o)", 1),
    "adaptive_max_pool2d": ("lambda o, i: A.adaptive_max_pool2d.out(x, [3, 3], out=o, indices=i)", 2),
    "adaptive_max_pool2d_nn": ("lambda o, i: torch._C._nn.adaptive_max_pool2d(x, [4, 5], out=(o, i))", 2),
    "adaptive_max_pool3d": ("lambda o, i: A.adaptive_max_pool3d.out(x3, [2, 2, 2], out=o, indices=i)", 2),
    "adaptive_max_pool2d_backward": ("lambda o: A.adaptive_max_pool2d_backward.grad_input(torch.randn(2, 3, 3, 3), x, am_i, grad_input=o)", 1),
    "adaptive_max_pool3d_backward": ("lambda o: A.adaptive_max_pool3d_backward.grad_input(torch.randn(2, 2, 2, 2, 2), x3, am3_i, grad_input=o)", 1),
    "_adaptive_avg_pool2d": ("lambda o: A._adaptive_avg_pool2d.out(x, [4, 5], out=o)", 1),
    "_adaptive_avg_pool3d": ("lambda o: A._adaptive_avg_pool3d.out(x3, [3, 2, 3], out=o)", 1),
    "_adaptive_avg_pool2d_backward": ("lambda o: A._adaptive_avg_pool2d_backward.out(torch.randn(2, 3, 4, 5), x, out=o)", 1),
    "_adaptive_avg_pool3d_backward": ("lambda o: A._adaptive_avg_pool3d_backward.out(torch.randn(2, 2, 3, 2, 3), x3, out=o)", 1),
    "adaptive_avg_pool2d": ("lambda o: A.adaptive_avg_pool2d.out(x, [4, 5], out=o)", 1),
    "adaptive_avg_pool2d_nn": ("lambda o: torch._C._nn.adaptive_avg_pool2d(x, 3, out=o)", 1),
    "adaptive_avg_pool3d": ("lambda o: A.adaptive_avg_pool3d.out(x3, [3, 2, 3], out=o)", 1),
    "convolution_backward": ("lambda o0, o1, o2: A.convolution_backward.out(I(2, 4, 4, 4), I(2, 3, 6, 6), I(4, 3, 3, 3), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True], out0=o0, out1=o1, out2=o2)", 3),
    "convolution_backward_groups": ("lambda o0, o1, o2: A.convolution_backward.out(I(2, 4, 3, 3), I(2, 4, 6, 6), I(4, 2, 3, 3), [4], [2, 2], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True], out0=o0, out1=o1, out2=o2)", 3),
    "nll_loss": ("lambda o: A.nll_loss.out(x[:, :, 0, 0].log_softmax(1), torch.tensor([0, 2]), None, 1, -100, out=o)", 1),
    "nll_loss_weight_none": ("lambda o: torch.ops.aten.nll_loss.out(x[:, :, 0, 0].log_softmax(1), torch.tensor([1, -100]), torch.tensor([1., 2., 3.]), 0, -100, out=o)", 1),
    "multilabel_margin_loss": ("lambda o: torch.ops.aten.multilabel_margin_loss.out(x[0, 0], torch.tensor([[0, 3, -1, 1, 0, 0]] * 6), 1, out=o)", 1),
    "multilabel_margin_loss_none": ("lambda o: torch._C._nn.multilabel_margin_loss(x[0, 0], torch.tensor([[5, -1, 1, 1, 0, 0]] * 6), 0, out=o)", 1),
    "mse_loss_none": ("lambda o: A.mse_loss.out(x, x.flip(0), 0, out=o)", 1),
    "mse_loss_mean": ("lambda o: torch._C._nn.mse_loss(x, x.flip(0), out=o)", 1),
    "mse_loss_sum": ("lambda o: A.mse_loss.out(x, x.flip(0), 2, out=o)", 1),
}
GEMM = ("convolution", "convolution_bias_stride", "_convolution")
good, sized, bad = {}, {}, {}
for k, (f, n) in CALLS.items():
    outs = {1: "E()", 2: "E(), L()", 3: "E(), E(), E()"}[n]
    good[k] = "run(%s, %s)" % (f, outs)
    like = "torch.empty_like(r)" if n == 1 else ", ".join("torch.empty_like(r[%d])" % i for i in range(n))
    sized[k] = "r = (%s)(%s)\nrun(%s, %s)" % (f, outs, f, like)
    bad[k] = "run(%s, %s)" % (f, {1: "E(torch.float64)", 2: "E(torch.float64), L()", 3: "E(), E(torch.float64), E()"}[n])
    if n == 2:
        bad[k + "_indices"] = "run(%s, E(), E(torch.int32))" % f
cases("conv_pool_out", {k: SETUP + v for k, v in good.items() if k not in GEMM})
cases("conv_pool_out_gemm", {k: SETUP + v for k, v in good.items() if k in GEMM}, tol="float")
cases("conv_pool_out_sized", {k: SETUP + v for k, v in sized.items()}, tol="float")
cases("conv_pool_out_bad_dtype", {k: SETUP + v for k, v in bad.items()})
cases("conv_pool_out_bad_input", {
    "avg_pool2d_kernel": SETUP + "A.avg_pool2d.out(x, [9, 9], out=E(torch.float64))",
    "conv_channels": SETUP + "A.convolution.out(x, torch.randn(4, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, out=E(torch.float64))",
    "adaptive_max_rank": SETUP + "A.adaptive_max_pool2d.out(x[0, 0], [3, 3], out=E(), indices=L())",
    "grad": SETUP + "A.avg_pool2d.out(x.requires_grad_(), [2, 2], out=E())",
    "int_input": SETUP + "A.avg_pool2d.out(x.long(), [2, 2], out=L())",
    "convolution_backward_mask": SETUP + "A.convolution_backward.out(I(2, 4, 4, 4), I(2, 3, 6, 6), I(4, 3, 3, 3), [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, False, True], out0=E(), out1=torch.ones(2), out2=E())",
    "mse_loss_long_out": SETUP + "A.mse_loss.out(x, x, 1, out=L())",
    "mse_loss_shape": SETUP + "A.mse_loss.out(x, torch.randn(3, 3), 0, out=E())",
    "nll_loss_4d": SETUP + "A.nll_loss.out(x, torch.zeros(2, 6, 6, dtype=torch.long), None, 1, -100, out=E())",
})
cases("loss_out_dtypes", {   # mse_loss.out reduces in out's dtype (upstream's mean_out / sum_out)
    "mse_double_out": SETUP + "[A.mse_loss.out(x, x.flip(0), r, out=E(torch.float64)) for r in (0, 1, 2)]",
    "mse_half_out": SETUP + "[A.mse_loss.out(x, x.flip(0), r, out=E(torch.float16)) for r in (0, 1, 2)]",
    "mse_bf16_in": SETUP + "[A.mse_loss.out(x.bfloat16(), x.flip(0).bfloat16(), r, out=E(torch.bfloat16)) for r in (0, 1, 2)]",
}, tol="float")
