"""max_unpool1d/2d/3d (src/ops/unpool.c; F.max_unpool1d is upstream's Python over max_unpool2d)
forward, out=, gradient (derivatives.yaml's max_pool_double_backward: a gather) and bad input,
compared with upstream. Indices come from upstream's own max_pool*d(return_indices=True)."""
from harness import cases
from harness.autograd import F64, grads

SETUP = """
torch.manual_seed(0)
F = torch.nn.functional
A = torch.ops.aten
x1 = torch.randn(2, 3, 8)
x2 = torch.randn(2, 3, 6, 6)
x3 = torch.randn(2, 2, 4, 4, 4)
o1, i1 = F.max_pool1d(x1, 2, return_indices=True)
o2, i2 = F.max_pool2d(x2, 2, return_indices=True)
o2s, i2s = F.max_pool2d(x2, 3, stride=2, padding=1, return_indices=True)
o3, i3 = F.max_pool3d(x3, 2, return_indices=True)
def cl(t):
    return t.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
"""

fwd = {
    "1d": "F.max_unpool1d(o1, i1, 2)",
    "1d_module": "torch.nn.MaxUnpool1d(2)(o1, i1)",
    "1d_output_size": "F.max_unpool1d(o1, i1, 2, output_size=[9])",
    "1d_unbatched": "F.max_unpool1d(o1[0], i1[0], 2)",
    "2d": "F.max_unpool2d(o2, i2, 2)",
    "2d_module": "torch.nn.MaxUnpool2d(2)(o2, i2)",
    "2d_stride_pad": "F.max_unpool2d(o2s, i2s, 3, stride=2, padding=1)",
    "2d_output_size": "F.max_unpool2d(o2s, i2s, 3, stride=2, padding=1, output_size=(6, 6))",
    "2d_output_size_full": "F.max_unpool2d(o2, i2, 2, output_size=x2.shape)",
    "2d_unbatched": "F.max_unpool2d(o2[0], i2[0], 2)",
    "2d_aten": "A.max_unpool2d.default(o2, i2, [6, 6])",
    "2d_aten_bigger": "A.max_unpool2d.default(o2, i2, [7, 7])",
    "2d_torch_nn": "torch._C._nn.max_unpool2d(o2, i2, [6, 6])",
    "2d_f64": "F.max_unpool2d(o2.double(), i2, 2)",
    "2d_bf16": "F.max_unpool2d(o2.bfloat16(), i2, 2)",
    "2d_f16": "F.max_unpool2d(o2.half(), i2, 2)",
    "2d_channels_last": "F.max_unpool2d(cl(o2), cl(i2), 2)",
    "2d_channels_last_input": "F.max_unpool2d(cl(o2), i2, 2)",
    "2d_noncontig": "F.max_unpool2d(o2.transpose(2, 3), i2.transpose(2, 3), 2)",
    "2d_empty_batch": "A.max_unpool2d.default(o2[:0], i2[:0], [6, 6])",
    "2d_zero_output": "A.max_unpool2d.default(o2, i2 * 0, [0, 6])",
    "2d_duplicates": "A.max_unpool2d.default(o2, torch.zeros_like(i2), [6, 6])",
    "2d_out": "out = torch.empty(0)\nr = A.max_unpool2d.out(o2, i2, [6, 6], out=out)\n(r is out, out)",
    "2d_out_sized": "out = torch.full((2, 3, 6, 6), 7.)\nA.max_unpool2d.out(o2, i2, [6, 6], out=out)\nout",
    "2d_out_kw": "out = torch.empty(0)\ntorch._C._nn.max_unpool2d(o2, i2, [6, 6], out=out)\nout",
    "3d": "F.max_unpool3d(o3, i3, 2)",
    "3d_module": "torch.nn.MaxUnpool3d(2)(o3, i3)",
    "3d_unbatched": "F.max_unpool3d(o3[0], i3[0], 2)",
    "3d_aten": "A.max_unpool3d.default(o3, i3, [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "3d_f64": "F.max_unpool3d(o3.double(), i3, 2)",
    "3d_bf16": "F.max_unpool3d(o3.bfloat16(), i3, 2)",
    "3d_noncontig": "F.max_unpool3d(o3.transpose(3, 4), i3.transpose(3, 4), 2)",
    "3d_out": "out = torch.empty(0)\nA.max_unpool3d.out(o3, i3, [4, 4, 4], [2, 2, 2], [0, 0, 0], out=out)\nout",
    "3d_4d_input_unbatched": "A.max_unpool3d.default(o2, i2, [1, 6, 6], [1, 2, 2], [0, 0, 0])",
    "roundtrip": "F.max_unpool2d(*F.max_pool2d(x2, 2, return_indices=True), 2).ne(0).sum()",
}
bad = {
    "int_indices": "A.max_unpool2d.default(o2, i2.int(), [6, 6])",
    "int_input": "F.max_unpool2d(o2.int(), i2, 2)",
    "bool_input": "A.max_unpool2d.default(o2.bool(), i2, [6, 6])",
    "complex_input": "A.max_unpool2d.default(o2.to(torch.complex64), i2, [6, 6])",
    "output_size_len": "A.max_unpool2d.default(o2, i2, [6])",
    "small_output": "A.max_unpool2d.default(o2, i2, [3, 3])",
    "negative_index": "A.max_unpool2d.default(o2, -torch.ones_like(i2), [6, 6])",
    "shape_mismatch": "A.max_unpool2d.default(o2, i2[:1], [6, 6])",
    "rank": "A.max_unpool2d.default(o2[0, 0], i2[0, 0], [6, 6])",
    "empty_channels": "A.max_unpool2d.default(o2[:, :0], i2[:, :0], [6, 6])",
    "negative_output": "A.max_unpool2d.default(o2, i2, [-1, 6])",
    "out_dtype": "A.max_unpool2d.out(o2, i2, [6, 6], out=torch.empty(0, dtype=torch.int32))",
    "3d_stride_zero": "A.max_unpool3d.default(o3, i3, [4, 4, 4], [2, 0, 2], [0, 0, 0])",
    "3d_stride_len": "A.max_unpool3d.default(o3, i3, [4, 4, 4], [2, 2], [0, 0, 0])",
    "3d_output_len": "A.max_unpool3d.default(o3, i3, [4, 4], [2, 2, 2], [0, 0, 0])",
    "3d_padding_len": "A.max_unpool3d.default(o3, i3, [4, 4, 4], [2, 2, 2], [0, 0])",
    "3d_small_output": "A.max_unpool3d.default(o3, i3, [2, 2, 2], [2, 2, 2], [0, 0, 0])",
    "3d_rank": "A.max_unpool3d.default(o1, i1, [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "3d_int_input": "A.max_unpool3d.default(o3.int(), i3, [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "3d_int_indices": "A.max_unpool3d.default(o3, i3.int(), [4, 4, 4], [2, 2, 2], [0, 0, 0])",
    "py_output_size": "F.max_unpool2d(o2, i2, 2, output_size=(9, 9))",
    "py_output_size_len": "F.max_unpool2d(o2, i2, 2, output_size=(6,))",
}
cases("max_unpool", {k: SETUP + "result = " + v if "\n" not in v else SETUP + v for k, v in fwd.items()})
cases("max_unpool_bad", {k: SETUP + v for k, v in bad.items()})

G = SETUP.replace("torch.manual_seed(0)\n", "")
grads("grad_max_unpool", {
    "1d": G + "ps = leaves((2, 3, 4)); out = F.max_unpool1d(ps[0], i1, 2) * torch.arange(8.)",
    "2d": G + "ps = leaves((2, 3, 3, 3)); out = F.max_unpool2d(ps[0], i2, 2).pow(2)",
    "2d_stride_pad": G + "ps = leaves((2, 3, 3, 3)); out = F.max_unpool2d(ps[0], i2s, 3, stride=2, padding=1) * x2",
    "2d_unbatched": G + "ps = leaves((3, 3, 3)); out = F.max_unpool2d(ps[0], i2[0], 2) * x2[0]",
    "2d_duplicates": G + "ps = leaves((2, 3, 3, 3)); out = A.max_unpool2d.default(ps[0], torch.zeros_like(i2), [6, 6]) * x2",
    "2d_aten": G + "ps = leaves((2, 3, 3, 3)); out = A.max_unpool2d.default(ps[0], i2, [7, 7]).pow(2)",
    "3d": G + "ps = leaves((2, 2, 2, 2, 2)); out = F.max_unpool3d(ps[0], i3, 2) * x3",
    "3d_unbatched": G + "ps = leaves((2, 2, 2, 2)); out = F.max_unpool3d(ps[0], i3[0], 2).pow(2)",
    "through_pool": G + "ps = leaves((2, 3, 6, 6)); o, i = F.max_pool2d(ps[0], 2, return_indices=True); out = F.max_unpool2d(o, i, 2).pow(2)",
    "double_backward": G + "ps = leaves((2, 3, 3, 3)); y = F.max_unpool2d(ps[0], i2, 2).pow(2).sum()\n"
                           "(gx,) = torch.autograd.grad(y, ps[0], create_graph=True); out = gx * x2[:, :, :3, :3]",
})
grads("grad_max_unpool_f64", {
    "2d_f64": G + "ps = leaves((2, 3, 3, 3), dtype=torch.float64); out = F.max_unpool2d(ps[0], i2, 2) * x2.double()",
}, tol=F64)
