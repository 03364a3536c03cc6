"""out= forms of convolution and pooling (src/ops/conv_pool_out.c) compared with upstream: result
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
}
GEMM = ("convolution", "convolution_bias_stride", "_convolution")
good, sized, bad = {}, {}, {}
for k, (f, n) in CALLS.items():
    outs = "E(), L()" if n == 2 else "E()"
    good[k] = "run(%s, %s)" % (f, outs)
    like = "torch.empty_like(r[0]), torch.empty_like(r[1])" if n == 2 else "torch.empty_like(r)"
    sized[k] = "r = (%s)(%s)\nrun(%s, %s)" % (f, outs, f, like)
    bad[k] = "run(%s, %s)" % (f, "E(torch.float64), L()" if n == 2 else "E(torch.float64)")
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
})
