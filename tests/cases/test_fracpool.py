"""fractional_max_pool2d / 3d (src/ops/fracpool.c) forward, out=, backward, gradients and bad
input compared with upstream. The window starts come from upstream's generate_intervals in the
input's dtype: many random samples over odd sizes (bfloat16 / float16 included) exercise them."""
from harness import cases
from harness.autograd import F64, grads

SETUP = """
torch.manual_seed(0)
F = torch.nn.functional
A = torch.ops.aten
x = torch.randn(2, 3, 9, 9)
s = torch.rand(2, 3, 2)
big = torch.randn(4, 8, 37, 29)
sbig = torch.rand(4, 8, 2)
x3 = torch.randn(2, 2, 6, 7, 8)
s3 = torch.rand(2, 2, 3)
big3 = torch.randn(2, 8, 17, 13, 11)
sbig3 = torch.rand(2, 8, 3)
"""
fwd = {
    "f_output_size": "F.fractional_max_pool2d(x, 2, output_size=4, return_indices=True)",
    "f_output_ratio": "F.fractional_max_pool2d(x, (2, 3), output_ratio=(0.5, 0.5), return_indices=True)",
    "f_samples": "F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=s)",
    "module": "torch.nn.FractionalMaxPool2d(3, output_size=(5, 4), return_indices=True)(x)",
    "unbatched": "F.fractional_max_pool2d(x[0], 2, output_size=4, return_indices=True)",
    "aten": "A.fractional_max_pool2d.default(x, [2, 2], [4, 4], s)",
    "full_window": "A.fractional_max_pool2d.default(x, [2, 2], [8, 8], s)",
    "one_output": "A.fractional_max_pool2d.default(x, [3, 3], [1, 1], s)",
    "zero_output": "A.fractional_max_pool2d.default(x, [2, 2], [0, 4], s)",
    "empty_batch": "A.fractional_max_pool2d.default(x[:0], [2, 2], [4, 4], s[:0])",
    "more_samples": "A.fractional_max_pool2d.default(x[:1], [2, 2], [4, 4], s)",
    "noncontig": "A.fractional_max_pool2d.default(x.transpose(2, 3), [2, 3], [4, 3], s)",
    "nan": "A.fractional_max_pool2d.default(torch.where(x > 1, float('nan'), x), [2, 2], [4, 4], s)",
    "big_f32": "A.fractional_max_pool2d.default(big, [3, 2], [11, 13], sbig)",
    "big_f64": "A.fractional_max_pool2d.default(big.double(), [3, 2], [11, 13], sbig.double())",
    "big_bf16": "A.fractional_max_pool2d.default(big.bfloat16(), [3, 2], [11, 13], sbig.bfloat16())",
    "big_f16": "A.fractional_max_pool2d.default(big.half(), [3, 2], [11, 13], sbig.half())",
    "big_bf16_small_out": "A.fractional_max_pool2d.default(big.bfloat16(), [2, 2], [5, 7], sbig.bfloat16())",
    "out": "o = torch.empty(0); i = torch.empty(0, dtype=torch.long)\nr = A.fractional_max_pool2d.output(x, [2, 2], [4, 4], s, output=o, indices=i)\n(r[0] is o, r[1] is i, o, i)",
    "out_nn": "o = torch.empty(0); i = torch.empty(0, dtype=torch.long)\ntorch._C._nn.fractional_max_pool2d(x, [2, 2], [4, 4], s, output=o, indices=i)\n(o, i)",
    "backward": "o, i = A.fractional_max_pool2d.default(x, [3, 3], [5, 5], s)\nA.fractional_max_pool2d_backward.default(torch.randn(2, 3, 5, 5), x, [3, 3], [5, 5], i)",
    "backward_bf16": "o, i = A.fractional_max_pool2d.default(big.bfloat16(), [3, 2], [30, 25], sbig.bfloat16())\n"
                     "A.fractional_max_pool2d_backward.default(torch.randn(4, 8, 30, 25).bfloat16(), big.bfloat16(), [3, 2], [30, 25], i)",
    "backward_out": "o, i = A.fractional_max_pool2d.default(x, [3, 3], [5, 5], s)\ng = torch.empty(0)\n"
                    "A.fractional_max_pool2d_backward.grad_input(torch.randn(2, 3, 5, 5), x, [3, 3], [5, 5], i, grad_input=g)\ng",
    "3d_f": "F.fractional_max_pool3d(x3, 2, output_size=(3, 4, 5), return_indices=True)",
    "3d_ratio": "F.fractional_max_pool3d(x3, 2, output_ratio=(0.5, 0.5, 0.5))",
    "3d_module": "torch.nn.FractionalMaxPool3d((2, 3, 2), output_size=(3, 3, 4))(x3)",
    "3d_unbatched": "F.fractional_max_pool3d(x3[0], 2, output_size=3, return_indices=True)",
    "3d_aten": "A.fractional_max_pool3d.default(x3, [2, 2, 2], [3, 4, 5], s3)",
    "3d_big_f32": "A.fractional_max_pool3d.default(big3, [2, 3, 2], [7, 5, 6], sbig3)",
    "3d_big_bf16": "A.fractional_max_pool3d.default(big3.bfloat16(), [2, 3, 2], [7, 5, 6], sbig3.bfloat16())",
    "3d_big_f16": "A.fractional_max_pool3d.default(big3.half(), [2, 3, 2], [7, 5, 6], sbig3.half())",
    "3d_big_f64": "A.fractional_max_pool3d.default(big3.double(), [2, 3, 2], [7, 5, 6], sbig3.double())",
    "3d_out": "o = torch.empty(0); i = torch.empty(0, dtype=torch.long)\nA.fractional_max_pool3d.output(x3, [2, 2, 2], [3, 4, 5], s3, output=o, indices=i)\n(o, i)",
    "3d_backward": "o, i = A.fractional_max_pool3d.default(x3, [2, 2, 2], [4, 5, 6], s3)\n"
                   "A.fractional_max_pool3d_backward.default(torch.randn(2, 2, 4, 5, 6), x3, [2, 2, 2], [4, 5, 6], i)",
    "3d_backward_out": "o, i = A.fractional_max_pool3d.default(x3, [2, 2, 2], [4, 5, 6], s3)\ng = torch.empty(0)\n"
                       "A.fractional_max_pool3d_backward.grad_input(torch.randn(2, 2, 4, 5, 6), x3, [2, 2, 2], [4, 5, 6], i, grad_input=g)\ng",
}
bad = {
    "samples_dtype": "A.fractional_max_pool2d(x, [2, 2], [4, 4], s.double())",
    "samples_batch": "A.fractional_max_pool2d(x, [2, 2], [4, 4], s[:1])",
    "samples_last": "A.fractional_max_pool2d(x, [2, 2], [4, 4], s[:, :, :1])",
    "samples_channels": "A.fractional_max_pool2d(x, [2, 2], [4, 4], s[:, :2])",
    "samples_rank": "A.fractional_max_pool2d(x, [2, 2], [4, 4], s[0])",
    "pool_too_large": "A.fractional_max_pool2d(x, [2, 2], [9, 4], s)",
    "pool_too_large_w": "A.fractional_max_pool2d(x[:, :, :, :3], [2, 2], [4, 4], s)",
    "kernel_len": "A.fractional_max_pool2d(x, [2], [4, 4], s)",
    "output_len": "A.fractional_max_pool2d(x, [2, 2], [4], s)",
    "rank": "A.fractional_max_pool2d(x[0, 0], [2, 2], [4, 4], s)",
    "empty_channels": "A.fractional_max_pool2d(x[:, :0], [2, 2], [4, 4], s)",
    "negative_output": "A.fractional_max_pool2d(x, [2, 2], [-1, 4], s)",
    "int": "A.fractional_max_pool2d(x.int(), [2, 2], [4, 4], s.int())",
    "out_dtype": "A.fractional_max_pool2d.output(x, [2, 2], [4, 4], s, output=torch.empty(0, dtype=torch.int32), indices=torch.empty(0, dtype=torch.long))",
    "backward_sizes": "o, i = A.fractional_max_pool2d(x, [2, 2], [4, 4], s)\nA.fractional_max_pool2d_backward(torch.ones(2, 3, 5, 4), x, [2, 2], [4, 4], i)",
    "backward_dtype": "o, i = A.fractional_max_pool2d(x, [2, 2], [4, 4], s)\nA.fractional_max_pool2d_backward(torch.ones(2, 3, 4, 4).double(), x, [2, 2], [4, 4], i)",
    "backward_bad_index": "o, i = A.fractional_max_pool2d(x, [2, 2], [4, 4], s)\nA.fractional_max_pool2d_backward(torch.ones(2, 3, 4, 4), x, [2, 2], [4, 4], i * 100)",
    "samples_grad": "F.fractional_max_pool2d(x.requires_grad_(), 2, output_size=4, _random_samples=s.requires_grad_())",
    "3d_kernel_len": "A.fractional_max_pool3d(x3, [2, 2], [3, 4, 5], s3)",
    "3d_output_len": "A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4], s3)",
    "3d_rank": "A.fractional_max_pool3d(x3[0, 0], [2, 2, 2], [3, 4, 5], s3)",
    "3d_empty": "A.fractional_max_pool3d(x3[:, :0], [2, 2, 2], [3, 4, 5], s3)",
    "3d_samples_dtype": "A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4, 5], s3.double())",
    "3d_samples_last": "A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4, 5], s3[:, :, :2])",
    "3d_pool_time": "A.fractional_max_pool3d(x3, [2, 2, 2], [6, 4, 5], s3)",
    "3d_pool_width_edge": "A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4, 7], s3)",
    "3d_int": "A.fractional_max_pool3d(x3.int(), [2, 2, 2], [3, 4, 5], s3.int())",
    "3d_backward_width": "o, i = A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4, 5], s3)\nA.fractional_max_pool3d_backward(torch.ones(2, 2, 3, 4, 4), x3, [2, 2, 2], [3, 4, 5], i)",
    "3d_backward_dtype": "o, i = A.fractional_max_pool3d(x3, [2, 2, 2], [3, 4, 5], s3)\nA.fractional_max_pool3d_backward(torch.ones_like(o).double(), x3, [2, 2, 2], [3, 4, 5], i)",
}
cases("fractional_max_pool", {k: SETUP + ("result = " + v if "\n" not in v else v) for k, v in fwd.items()})
cases("fractional_max_pool_bad", {k: SETUP + v for k, v in bad.items()})

G = SETUP.replace("torch.manual_seed(0)\n", "")
grads("grad_fractional_max_pool", {
    "2d": G + "ps = leaves((2, 3, 9, 9)); out = F.fractional_max_pool2d(ps[0], 2, output_size=4, _random_samples=s) * torch.arange(16.).view(4, 4)",
    "2d_overlap": G + "ps = leaves((2, 3, 9, 9)); out = F.fractional_max_pool2d(ps[0], 3, output_size=7, _random_samples=s).pow(2)",
    "2d_unbatched": G + "ps = leaves((3, 9, 9)); out = F.fractional_max_pool2d(ps[0], 2, output_size=(4, 5), _random_samples=s)",
    "2d_module_seeded": G + "ps = leaves((2, 3, 9, 9)); out = torch.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5))(ps[0]).pow(2)",
    "3d": G + "ps = leaves((2, 2, 6, 7, 8)); out = F.fractional_max_pool3d(ps[0], 2, output_size=(3, 4, 5), _random_samples=s3).pow(2)",
    "3d_unbatched": G + "ps = leaves((2, 6, 7, 8)); out = F.fractional_max_pool3d(ps[0], 2, output_size=3, _random_samples=s3) * 2",
    "double_backward": G + "ps = leaves((2, 3, 9, 9)); y = F.fractional_max_pool2d(ps[0], 3, output_size=5, _random_samples=s).pow(2).sum()\n"
                           "(gx,) = torch.autograd.grad(y, ps[0], create_graph=True); out = gx * x",
})
grads("grad_fractional_max_pool_f64", {
    "2d_f64": G + "ps = leaves((2, 3, 9, 9), dtype=torch.float64); out = F.fractional_max_pool2d(ps[0], 3, output_size=6, _random_samples=s.double()).pow(2)",
}, tol=F64)
