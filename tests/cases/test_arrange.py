"""meshgrid, repeat_interleave, tril_indices / triu_indices, trace and min/max of two tensors
(src/ops/arrange.c) compared with upstream: indexing modes, 0-d inputs, dtypes, output_size,
negative / zero repeats, dim=None flattening, non-contiguous inputs (layouts of the results),
integer promotion of trace and its accumulation type, the torch.max(x, tensor) overload choice,
upstream's errors; gradients and graphs of the composites and of trace."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
X = "x = torch.arange(6.).view(2, 3)\n"

cases("meshgrid", {
    "ij_xy": "a, b = torch.arange(3), torch.arange(2)\n(torch.meshgrid(a, b, indexing='ij'), torch.meshgrid([a, b], indexing='xy'))",
    "three": "a, b, c = torch.arange(2.), torch.arange(3.), torch.tensor([5., 6., 7., 8.])\n(torch.meshgrid(a, b, c, indexing='xy'), [g.stride() for g in torch.meshgrid(a, b, c, indexing='ij')])",
    "single_zero_dim": "(torch.meshgrid(torch.arange(3), indexing='xy'), torch.meshgrid(torch.tensor(1.), torch.arange(2.), indexing='ij'))",
    "default_indexing": "import warnings\nwarnings.simplefilter('ignore')\ntorch.meshgrid(torch.arange(3), torch.arange(2))",
    "views": "a = torch.arange(3.)\ng = torch.meshgrid(a, torch.arange(2.), indexing='ij')\n(g[0]._base is a, g[0].is_contiguous())",
    "aten": "(torch.ops.aten.meshgrid.default([torch.arange(2), torch.arange(3)]), torch.ops.aten.meshgrid.indexing([torch.arange(2), torch.arange(3)], indexing='xy'))",
    "bad_dtype": "torch.meshgrid(torch.arange(3), torch.arange(2.), indexing='ij')",
    "bad_indexing": "torch.meshgrid(torch.arange(3), indexing='foo')",
    "bad_empty": "torch.meshgrid(indexing='ij')",
})

cases("repeat_interleave", {
    "int": X + "(torch.repeat_interleave(x, 2), torch.repeat_interleave(x, 2, dim=0), x.repeat_interleave(3, dim=1), x.repeat_interleave(2, dim=-1))",
    "int_zero": X + "(torch.repeat_interleave(x, 0, dim=1), torch.repeat_interleave(x, 0))",
    "int_output_size": X + "torch.repeat_interleave(x, 2, dim=1, output_size=6)",
    "int_noncontiguous": X + "r = torch.repeat_interleave(x.t(), 2, dim=0)\n(r, r.stride())",
    "zero_dim": "(torch.repeat_interleave(torch.tensor(3.), 2), torch.repeat_interleave(torch.tensor(3.), torch.tensor(2)))",
    "tensor_repeats": X + "(torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0), torch.repeat_interleave(x, torch.tensor([0, 2, 1]), dim=1), torch.repeat_interleave(x, torch.tensor(2), dim=1), torch.repeat_interleave(x, torch.tensor([3])))",
    "tensor_repeats_output_size": X + "torch.repeat_interleave(x, torch.tensor([1, 2]), dim=0, output_size=3)",
    "repeats_only": "(torch.repeat_interleave(torch.tensor([1, 2, 0, 3])), torch.repeat_interleave(torch.tensor([1, 2], dtype=torch.int32)), torch.repeat_interleave(torch.tensor([], dtype=torch.long)), torch.repeat_interleave(torch.tensor([1, 2]), output_size=3))",
    "dtypes": R + "(torch.randint(0, 9, (2, 2)).repeat_interleave(2, 0), torch.randn(2, 2).bfloat16().repeat_interleave(torch.tensor([2, 1]), 1), (torch.randn(3) > 0).repeat_interleave(2))",
    "aten": X + "(torch.ops.aten.repeat_interleave.self_int(x, 2, 1), torch.ops.aten.repeat_interleave.self_Tensor(x, torch.tensor([2, 1]), 0))",
    "bad_negative_int": X + "torch.repeat_interleave(x, -1)",
    "bad_dim": X + "torch.repeat_interleave(x, 2, dim=3)",
    "bad_output_size": X + "torch.repeat_interleave(x, 2, dim=1, output_size=5)",
    "bad_negative_tensor": "torch.repeat_interleave(torch.tensor([1, -1]))",
    "bad_2d_repeats": "torch.repeat_interleave(torch.tensor([[1, 2]]))",
    "bad_float_repeats": "torch.repeat_interleave(torch.tensor([1., 2]))",
    "bad_output_size_tensor": "torch.repeat_interleave(torch.tensor([1, 2]), output_size=4)",
    "bad_repeats_size": X + "torch.repeat_interleave(x, torch.tensor([1, 2, 0]), dim=0)",
    "bad_repeats_ndim": X + "torch.repeat_interleave(x, torch.tensor([[1, 2, 0]]), dim=1)",
})

cases("tri_indices", {
    "tril": "(torch.tril_indices(3, 4, 1), torch.tril_indices(4, 3), torch.tril_indices(3, 3, -1), torch.tril_indices(3, 3, -5), torch.tril_indices(2, 5, 10))",
    "triu": "(torch.triu_indices(4, 3, -1), torch.triu_indices(3, 3), torch.triu_indices(3, 4, 2), torch.triu_indices(3, 3, 7), torch.triu_indices(2, 2, -9))",
    "int32_empty": "(torch.tril_indices(3, 3, dtype=torch.int32), torch.triu_indices(0, 3), torch.tril_indices(3, 0))",
    "huge_offsets": "(torch.tril_indices(2**40, 3, -2**40 + 2), torch.triu_indices(3, 2**40, 2**40 - 3), torch.triu_indices(2**62, 1))",
    "bad_huge": "torch.tril_indices(2**62, 1)",
    "bad_row": "torch.tril_indices(-1, 3)",
    "bad_col": "torch.triu_indices(3, -2)",
    "bad_dtype": "torch.tril_indices(3, 3, dtype=torch.float32)",
})

cases("trace", {
    "float": R + "(torch.trace(torch.randn(4, 5)), torch.trace(torch.randn(6, 3, dtype=torch.float64)), torch.randn(3, 3).trace())",
    "accumulation": "(torch.trace(torch.tensor([[1e8, 0], [0, 1.]])), torch.trace(torch.tensor([[1., 0, 0], [0, 1e-8, 0], [0, 0, -1.]])))",
    "reduced": R + "x = torch.randn(5, 5)\n(torch.trace(x.bfloat16()), torch.trace(x.half()))",
    "ints": "(torch.trace(torch.arange(12).view(3, 4)), torch.trace(torch.arange(12, dtype=torch.int32).view(3, 4)), torch.trace(torch.full((3, 3), 200, dtype=torch.uint8)), torch.trace(torch.full((2, 2), 100, dtype=torch.int8)))",
    "noncontiguous": "(torch.trace(torch.arange(9.).view(3, 3).t()), torch.trace(torch.arange(24.).view(4, 6)[:, ::2]))",
    "empty": "torch.trace(torch.zeros(0, 3))",
    "bad_bool": "torch.trace(torch.ones(3, dtype=torch.bool).diag())",
    "bad_1d": "torch.trace(torch.ones(3))",
})

cases("min_max_other", {
    "basic": X + "(torch.min(x, x.flip(1)), torch.max(x, x.flip(0)), x.max(x.flip(1)))",
    "promote_broadcast": X + "(torch.min(x, x.int()), torch.max(x, torch.tensor(2)), torch.min(x, torch.tensor([1., 5., 0.])), x.min(torch.tensor(3)))",
    "nan": "a = torch.tensor([1., float('nan'), 3.])\n(torch.max(a, torch.ones(3)), torch.min(a, torch.ones(3)))",
    "aten": X + "(torch.ops.aten.min.other(x, x.flip(1)), torch.ops.aten.max.other(x, x.flip(1)))",
})

grads("arrange_grad", {
    "meshgrid": "ps = leaves((3,), (2,)); g = torch.meshgrid(ps[0], ps[1], indexing='xy'); out = g[0] * g[1] + g[0].exp()",
    "repeat_interleave_int": "ps = leaves((2, 3)); out = ps[0].repeat_interleave(2, dim=1) * torch.arange(6.)",
    "repeat_interleave_none": "ps = leaves((2, 3)); out = ps[0].repeat_interleave(3).sin()",
    "repeat_interleave_tensor": "ps = leaves((3, 2)); out = ps[0].repeat_interleave(torch.tensor([2, 0, 1]), dim=0).pow(2)",
    "trace": "ps = leaves((3, 4)); out = ps[0].trace() * 3",
    "trace_square": "ps = leaves((4, 4)); out = (ps[0] @ ps[0]).trace()",
    "min_max_other": "ps = leaves((3, 4), (3, 4)); out = torch.min(ps[0], ps[1]) + torch.max(ps[0], ps[1] * 2)",
    "min_other_ties": "ps = [leaf([1., 2., 3.]), leaf([1., 5., 0.])]; out = torch.min(ps[0], ps[1]) * torch.tensor([1., 2., 3.])",
})
grads("arrange_grad_f64", {
    "trace": "ps = leaves((5, 3), dtype=torch.float64); out = ps[0].trace().pow(2)",
}, tol=F64)

cases("rot90", {
    "every_k": "x = torch.arange(24.).view(2, 3, 4)\n[(torch.rot90(x, k, (1, 2)), torch.rot90(x, k, (1, 2)).stride()) for k in (0, 1, 2, 3, -1, 5)]",
    "default_dims_method": "x = torch.arange(6).view(2, 3)\n(torch.rot90(x), x.rot90(2), x.rot90(1, [1, 0]), x.rot90(-3, (-2, -1)))",
    "bad_same": "torch.rot90(torch.ones(2, 3, 4), 1, (1, 1))",
    "bad_count": "torch.rot90(torch.ones(2, 3, 4), 1, (1,))",
    "bad_range": "torch.rot90(torch.ones(2, 3, 4), 1, (1, 5))",
    "bad_1d": "torch.rot90(torch.ones(3), 1)",
})

cases("nonzero_as_tuple", {
    "function_method": "x = torch.tensor([[0., 1., 0.], [2., 0., 3.]])\n(torch.nonzero(x, as_tuple=True), x.nonzero(as_tuple=True), torch.nonzero(x, as_tuple=False))",
    "zero_dim_empty": "(torch.nonzero(torch.tensor(1.), as_tuple=True), torch.nonzero(torch.tensor(0.), as_tuple=True), torch.nonzero(torch.zeros(2, 0), as_tuple=True))",
    "bad_out": "torch.nonzero(torch.ones(2), as_tuple=True, out=torch.empty(0, dtype=torch.long))",
})

grads("rot90_grad", {
    "k1": "ps = leaves((2, 3, 4)); out = torch.rot90(ps[0], 1, (1, 2)) * torch.arange(3.)",
    "k2_k3": "ps = leaves((3, 4)); out = torch.rot90(ps[0], 2) + torch.rot90(ps[0], 3).t()",
})
