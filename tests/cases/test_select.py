"""kthvalue, median / nanmedian (all elements and .dim), mode, the unique family (_unique2,
_unique, unique_consecutive, unique_dim, unique_dim_consecutive) and bincount (src/ops/sort.c,
src/ops/search.c) compared with upstream: dtypes, NaN, keepdim, negative dims, 0-dim, empty,
non-contiguous inputs, out=, every spelling, the return types, upstream's errors, and gradients.

Indices among equal keys are unspecified upstream (quick-select; unstable sort on long rows), so
the cases that return indices use distinct keys, or rows of at most 16 elements (upstream's
std::sort is an insertion sort there, hence stable) for mode; ties are compared by values."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
X = "x = torch.tensor([[3., 1., 2., 7.], [float('nan'), 5., 0.5, 4.], [8., -1., 6., 2.5]])\n"
P = R + "p = torch.randperm(24).reshape(2, 3, 4)\n"   # distinct keys

cases("kthvalue", {
    "basic": X + "(torch.kthvalue(x, 2), torch.kthvalue(x, 1, 0), torch.kthvalue(x, 3, -1, keepdim=True))",
    "nan_largest": X + "(torch.kthvalue(x, 4, 1), torch.kthvalue(x, 3, 0))",
    "f64_int64": P + "(torch.kthvalue(p.double(), 2, 1), torch.kthvalue(p, 3, 2), torch.kthvalue(p.int(), 1, 0))",
    "bf16_f16": P + "(torch.kthvalue(p.bfloat16(), 2, 1), torch.kthvalue(p.half(), 4, 2, True))",
    "int8_uint8": P + "(torch.kthvalue(p.to(torch.int8) - 10, 2, 1), torch.kthvalue(p.to(torch.uint8), 2, 0))",
    "noncontig": P + "q = p.float().transpose(0, 2)\n(torch.kthvalue(q, 2, 1), torch.kthvalue(q[::2], 1, 0))",
    "zero_dim": "(torch.kthvalue(torch.tensor(3.), 1), torch.kthvalue(torch.tensor(3.), 1, 0, True), torch.kthvalue(torch.tensor(2), 1, -1))",
    "empty_other_dim": "torch.kthvalue(torch.empty(0, 3), 2, 1)",
    "ties_values": "torch.kthvalue(torch.tensor([[2., 1., 2., 1., 2.]]), 3, 1).values",
    "method": P + "p.float().kthvalue(5, 2)",
    "out": P + "v, i = torch.empty(0), torch.empty(0, dtype=torch.long)\nr = torch.kthvalue(p.float(), 2, 1, out=(v, i))\n(r, r.values is v, r.indices is i)",
    "aten": P + "(torch.ops.aten.kthvalue.default(p, 2, 0, False), torch.ops.aten.kthvalue.values(p, 1, 1, True, values=torch.empty(0, dtype=torch.long), indices=torch.empty(0, dtype=torch.long)))",
    "type": P + "type(torch.kthvalue(p, 1)).__name__",
    "bad_k_big": P + "torch.kthvalue(p, 5, 2)",
    "bad_k_zero": P + "torch.kthvalue(p, 0, 2)",
    "bad_empty_dim": "torch.kthvalue(torch.empty(3, 0), 1, 1)",
    "bad_dim": P + "torch.kthvalue(p, 1, 3)",
    "bad_bool": "torch.kthvalue(torch.tensor([True, False]), 1)",
    "bad_complex": "torch.kthvalue(torch.tensor([1j]), 1)",
    "bad_out_dtype": P + "torch.kthvalue(p.float(), 1, out=(torch.empty(0, dtype=torch.double), torch.empty(0, dtype=torch.long)))",
    "bad_out_idx": P + "torch.kthvalue(p.float(), 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))",
})

cases("median", {
    "all": X + "(torch.median(x), torch.median(x[:, 1:]), torch.median(torch.tensor([4., 1., 3., 2.])))",
    "all_int_bf16": P + "(torch.median(p), torch.median(p.bfloat16()), torch.median(p.half()), torch.median(p.to(torch.int16)))",
    "all_empty": "(torch.median(torch.empty(0)), torch.median(torch.empty(0, 2, dtype=torch.float64)), torch.median(torch.empty(0, dtype=torch.long)))",
    "all_0dim_noncontig": P + "(torch.median(torch.tensor(2.5)), torch.median(p.float().transpose(0, 2)[1:]))",
    "dim": X + "(torch.median(x, 1), torch.median(x, 0), torch.median(x, -1, keepdim=True))",
    "dim_distinct": P + "(torch.median(p, 1), torch.median(p.double(), 2, True), torch.median(p.bfloat16(), 0))",
    "dim_noncontig": P + "q = p.float().permute(2, 0, 1)\n(torch.median(q, 2), torch.median(q[:, :, ::2], 0))",
    "dim_0dim_empty": "(torch.median(torch.tensor(5.), 0, keepdim=True), torch.median(torch.empty(0, 3), 1), torch.median(torch.empty(3, 0), 0))",
    "method_out": P + "v, i = torch.empty(0), torch.empty(0, dtype=torch.long)\nr = torch.median(p.float(), 1, out=(v, i))\n(p.float().median(), p.float().median(2), r, r.values is v, type(r).__name__)",
    "aten": P + "(torch.ops.aten.median.default(p), torch.ops.aten.median.dim(p, 1), torch.ops.aten.median.dim_values(p, 0, True, values=torch.empty(0, dtype=torch.long), indices=torch.empty(0, dtype=torch.long)))",
    "ties_values": "torch.median(torch.tensor([[2., 1., 2., 1.], [0., 0., 0., 3.]]), 1).values",
    "bad_bool": "torch.median(torch.tensor([True]))",
    "bad_bool_dim": "torch.median(torch.tensor([True]), 0)",
    "bad_complex": "torch.median(torch.tensor([1j]))",
    "bad_empty_dim": "torch.median(torch.empty(3, 0), 1)",
    "bad_dim": "torch.median(torch.ones(2, 2), 2)",
    "bad_out_dtype": "torch.median(torch.ones(2, 2), 0, out=(torch.empty(0, dtype=torch.long), torch.empty(0, dtype=torch.long)))",
})

cases("nanmedian", {
    "all": X + "(torch.nanmedian(x), torch.nanmedian(torch.tensor([float('nan')] * 3)), torch.nanmedian(torch.empty(0)))",
    "all_int": P + "(torch.nanmedian(p), torch.nanmedian(p.bfloat16()))",
    "dim": X + "(torch.nanmedian(x, 1), torch.nanmedian(x, 0), torch.nanmedian(x, -1, keepdim=True))",
    "all_nan_row": "torch.nanmedian(torch.tensor([[float('nan'), float('nan')], [1., 2.]]), 1)",
    "dim_distinct": P + "(torch.nanmedian(p, 2), torch.nanmedian(p.double().transpose(0, 1), 0))",
    "method_out": P + "v, i = torch.empty(0), torch.empty(0, dtype=torch.long)\nr = torch.nanmedian(p.float(), 1, out=(v, i))\n(p.float().nanmedian(), r, r.indices is i, type(r).__name__)",
    "aten": P + "(torch.ops.aten.nanmedian.default(p), torch.ops.aten.nanmedian.dim(p, 1), torch.ops.aten.nanmedian.dim_values(p, 0, values=torch.empty(0, dtype=torch.long), indices=torch.empty(0, dtype=torch.long)))",
    "bad_bool": "torch.nanmedian(torch.tensor([True]))",
    "bad_empty_dim": "torch.nanmedian(torch.empty(3, 0), 1)",
})

cases("mode", {
    "basic": "x = torch.tensor([[1., 2., 2., 3., 1., 2.], [5., 4., 4., 5., 0., 9.]])\n(torch.mode(x), torch.mode(x, 0), torch.mode(x, 1, keepdim=True))",
    "ints": "x = torch.tensor([[3, 3, 1, 1, 2], [7, -2, -2, 7, 7]])\n(torch.mode(x), torch.mode(x.int(), 0), torch.mode(x.to(torch.int8), -1), torch.mode(x.to(torch.uint8).abs(), 1))",
    "float_dtypes": "x = torch.tensor([[0.5, 0.25, 0.5, 8.], [1., 1., 2., 2.]])\n(torch.mode(x.double()), torch.mode(x.bfloat16()), torch.mode(x.half(), 0))",
    "bool": "torch.mode(torch.tensor([[True, False, True], [False, False, True]]))",
    "noncontig": "x = torch.tensor([[1., 2., 2.], [3., 2., 3.], [1., 1., 0.]])\n(torch.mode(x.t()), torch.mode(x[:, ::2], 0))",
    "zero_dim_empty": "(torch.mode(torch.tensor(4.)), torch.mode(torch.empty(0, 3), 1))",
    "method_out": "x = torch.tensor([[1., 2., 2.], [3., 3., 1.]])\nv, i = torch.empty(0), torch.empty(0, dtype=torch.long)\nr = torch.mode(x, 1, out=(v, i))\n(x.mode(0), r, r.values is v, type(r).__name__)",
    "aten": "x = torch.tensor([[1, 2, 2], [3, 3, 1]])\n(torch.ops.aten.mode.default(x), torch.ops.aten.mode.values(x, 0, True, values=torch.empty(0, dtype=torch.long), indices=torch.empty(0, dtype=torch.long)))",
    "bad_complex": "torch.mode(torch.tensor([1j]))",
    "bad_empty_dim": "torch.mode(torch.empty(3, 0), 1)",
})

grads("select_grad", {
    "kthvalue": "ps = leaves((3, 5)); out = torch.kthvalue(ps[0], 2, 1).values * torch.arange(3.)",
    "kthvalue_keepdim": "ps = leaves((4, 3)); out = torch.kthvalue(ps[0], 3, 0, keepdim=True)[0].exp()",
    "kthvalue_0dim": "ps = [leaf(2.)]; out = torch.kthvalue(ps[0], 1).values * 3",
    "median": "ps = leaves((3, 4)); out = torch.median(ps[0]) * 2",
    "median_ties": "ps = [leaf([1., 3., 3., 2., 3.])]; out = torch.median(ps[0]) * 2",
    "median_nan": "ps = [leaf([1., float('nan'), 3., float('nan')])]; out = torch.median(ps[0]) * 2",
    "median_dim": "ps = leaves((3, 5)); out = torch.median(ps[0], 1).values.sin()",
    "median_dim_keepdim": "ps = leaves((4, 2)); out = torch.median(ps[0], 0, True).values * torch.tensor([[1., 2.]])",
    "nanmedian": "ps = [leaf([[1., float('nan'), 3.], [2., 5., 4.]])]; out = torch.nanmedian(ps[0]) * 2",
    "nanmedian_dim": "ps = [leaf([[1., float('nan'), 3.], [2., 5., 4.]])]; out = torch.nanmedian(ps[0], 1).values * torch.tensor([2., 3.])",
    "mode": "ps = [leaf([[1., 2., 2.], [3., 3., 1.]])]; out = torch.mode(ps[0], 1).values * torch.tensor([2., 3.])",
})
grads("select_grad_f64", {
    "kthvalue": "ps = leaves((3, 5), dtype=torch.float64); out = torch.kthvalue(ps[0], 4).values.pow(2)",
    "median_dim": "ps = leaves((2, 3, 4), dtype=torch.float64); out = torch.median(ps[0], 1).values.pow(2)",
}, tol=F64)

U = "x = torch.tensor([[3., float('nan'), 1.], [1., float('nan'), -0.], [0., 3., 2.]])\n"
cases("unique", {
    "torch_unique": U + "(torch.unique(x), torch.unique(x, return_inverse=True, return_counts=True))",
    "ints": "x = torch.tensor([[5, 1, 5], [2, 1, 9]])\n(torch.unique(x, return_counts=True), torch.unique(x.int(), return_inverse=True), torch.unique(x.to(torch.uint8), sorted=False))",
    "dtypes": "x = torch.tensor([0.5, 2., 0.5, -1.])\n(torch.unique(x.double(), return_inverse=True), torch.unique(x.bfloat16(), return_counts=True), torch.unique(x.half()))",
    "bool": "torch.unique(torch.tensor([True, False, True]), return_inverse=True, return_counts=True)",
    "zero_dim_empty": "(torch.unique(torch.tensor(5), return_inverse=True, return_counts=True), torch.unique(torch.empty(0, 3), return_inverse=True, return_counts=True))",
    "noncontig": "x = torch.tensor([[1, 2], [0, 5], [1, 2]])\ntorch.unique(x.t(), return_inverse=True)",
    "method": "torch.tensor([3, 1, 3]).unique(return_counts=True)",
    "dim": "x = torch.tensor([[1, 2], [0, 5], [1, 2]])\n(torch.unique(x, dim=0, return_inverse=True, return_counts=True), torch.unique(x, dim=1), torch.unique(x, dim=-1, return_counts=True))",
    "dim_3d_float": R + "x = torch.randint(0, 2, (3, 4, 2)).float()\n(torch.unique(x, dim=1, return_inverse=True, return_counts=True), torch.unique(x, dim=2), torch.unique(x.bfloat16(), dim=0))",
    "dim_empty": "torch.unique(torch.empty(0, 3), dim=0, return_inverse=True, return_counts=True)",
    "aten": "x = torch.tensor([[1, 2], [0, 5], [1, 2]])\n(torch.ops.aten._unique2.default(x, True, True, True), torch.ops.aten._unique.default(x, True, True), torch.ops.aten.unique_dim.default(x, 1, True, False, False), torch.ops.aten.unique_dim_consecutive.default(x, 0, False, False))",
    "bad_complex": "torch.unique(torch.tensor([1j]))",
    "bad_dim_0dim": "torch.unique(torch.tensor(3.), dim=0)",
    "bad_dim_zero_size": "torch.unique(torch.empty(0, 3), dim=1)",
    "bad_dim_range": "torch.unique(torch.ones(2, 2), dim=2)",
})

cases("unique_consecutive", {
    "basic": "x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])\n(torch.unique_consecutive(x), torch.unique_consecutive(x, return_inverse=True, return_counts=True))",
    "nan_2d": "x = torch.tensor([[1., float('nan')], [float('nan'), 1.]])\ntorch.unique_consecutive(x, return_inverse=True, return_counts=True)",
    "dim": "x = torch.tensor([[1, 1], [1, 1], [2, 3]])\n(torch.unique_consecutive(x, dim=0, return_counts=True), torch.unique_consecutive(x, return_inverse=True, dim=1))",
    "dim_1d": "x = torch.tensor([2., 2., 1.])\n(torch.unique_consecutive(x, dim=0, return_inverse=True, return_counts=True), torch.unique_consecutive(x, dim=-1))",
    "dtypes": "x = torch.tensor([0.5, 0.5, 2., 0.5])\n(torch.unique_consecutive(x.double()), torch.unique_consecutive(x.bfloat16(), return_counts=True), torch.unique_consecutive(x > 1))",
    "zero_dim_empty": "(torch.unique_consecutive(torch.tensor(5.), return_inverse=True, return_counts=True), torch.unique_consecutive(torch.empty(0, 2), dim=0))",
    "noncontig": "x = torch.tensor([[1, 2], [1, 5], [1, 2]])\n(torch.unique_consecutive(x.t(), return_inverse=True), torch.unique_consecutive(x.t(), dim=1))",
    "aten": "torch.ops.aten.unique_consecutive.default(torch.tensor([1, 1, 2]), True, True, None)",
    "bad_dim_0dim": "torch.unique_consecutive(torch.tensor(5.), dim=0)",
    "bad_zero_size": "torch.unique_consecutive(torch.empty(0, 2), dim=1)",
})

cases("bincount", {
    "basic": "x = torch.tensor([1, 3, 3, 0])\n(torch.bincount(x), torch.bincount(x, minlength=7), x.bincount(minlength=2))",
    "weights": "x = torch.tensor([1, 3, 3, 0])\n(torch.bincount(x, torch.tensor([.5, 1., 2., 3.])), torch.bincount(x, torch.tensor([.5, 1., 2., 3.], dtype=torch.float64)), torch.bincount(x, torch.tensor([1, 1, 2, 3])))",
    "weights_low_precision": "x = torch.tensor([1, 3, 3, 0])\n(torch.bincount(x, torch.tensor([1., 1., 2., 3.], dtype=torch.bfloat16)), torch.bincount(x, torch.tensor([1., 1., 2., 3.]).half()), torch.bincount(x, torch.tensor([True, False, True, True])))",
    "float_sum_order": R + "x = torch.randint(0, 4, (200,))\ntorch.bincount(x, torch.randn(200))",
    "int_dtypes": "(torch.bincount(torch.tensor([1, 2], dtype=torch.uint8)), torch.bincount(torch.tensor([4, 2], dtype=torch.int8)), torch.bincount(torch.tensor([0, 0], dtype=torch.int16)), torch.bincount(torch.tensor([3], dtype=torch.int32)))",
    "empty": "(torch.bincount(torch.tensor([], dtype=torch.long)), torch.bincount(torch.tensor([], dtype=torch.long), torch.tensor([]), minlength=3))",
    "noncontig": "torch.bincount(torch.tensor([1, 2, 3, 1, 1])[::2], torch.tensor([1., 2., 3., 4., 5.])[::2])",
    "aten": "torch.ops.aten.bincount.default(torch.tensor([2, 2]), None, 1)",
    "bad_negative": "torch.bincount(torch.tensor([1, -1]))",
    "bad_float": "torch.bincount(torch.tensor([1., 2.]))",
    "bad_bool": "torch.bincount(torch.tensor([True]))",
    "bad_2d": "torch.bincount(torch.tensor([[1, 2]]))",
    "bad_0dim": "torch.bincount(torch.tensor(3))",
    "bad_weights": "torch.bincount(torch.tensor([1, 2]), torch.tensor([1.]))",
    "bad_minlength": "torch.bincount(torch.tensor([1, 2]), minlength=-1)",
})

Q = R + "x = torch.randn(3, 5)\n"
cases("quantile", {
    "scalar_q": Q + "(torch.quantile(x, 0.3), torch.quantile(x, 0.5, dim=1), torch.quantile(x, 0.9, dim=0, keepdim=True), torch.quantile(x, 0.25, keepdim=True))",
    "tensor_q": Q + "q = torch.tensor([0., 0.25, 0.5, 1.])\n(torch.quantile(x, q), torch.quantile(x, q, dim=1), torch.quantile(x, q, dim=-2, keepdim=True), torch.quantile(x, torch.tensor(0.7), dim=1))",
    "interpolations": Q + "[torch.quantile(x, torch.tensor([0.1, 0.55]), dim=1, interpolation=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')]",
    "nan": "x = torch.tensor([[1., float('nan'), 3., 2.], [4., 5., 6., 7.]])\n(torch.quantile(x, 0.5, dim=1), torch.quantile(x, 0.5), torch.quantile(x, torch.tensor([0.2, 0.8]), dim=0))",
    "f64_3d": R + "x = torch.randn(2, 3, 4, dtype=torch.float64)\n(torch.quantile(x, 0.4, dim=1), torch.quantile(x, torch.tensor([0.3, 0.6], dtype=torch.float64), dim=2, keepdim=True))",
    "zero_dim_noncontig": R + "(torch.quantile(torch.tensor(2.5), 0.5), torch.quantile(torch.tensor(2.5), 0.5, dim=0, keepdim=True), torch.quantile(torch.randn(5, 3).t(), 0.6, dim=1))",
    "method_out": Q + "o = torch.empty(0)\nr = torch.quantile(x, 0.5, dim=0, out=o)\n(x.quantile(0.2), r is o, o, torch.quantile(x, torch.tensor([0.5, 0.6]), out=torch.empty(0)))",
    "aten": Q + "(torch.ops.aten.quantile.default(x, torch.tensor([0.5])), torch.ops.aten.quantile.scalar(x, 0.5, 1, True, interpolation='lower'))",
    "bad_q": Q + "torch.quantile(x, 1.5)",
    "bad_q_neg": Q + "torch.quantile(x, -0.25)",
    "bad_q_tensor": Q + "torch.quantile(x, torch.tensor([0.5, 1.5]))",
    "bad_q_2d": Q + "torch.quantile(x, torch.tensor([[0.5]]))",
    "bad_q_dtype": Q + "torch.quantile(x, torch.tensor([0.5], dtype=torch.float64))",
    "bad_empty": "torch.quantile(torch.empty(0), 0.5)",
    "bad_int": "torch.quantile(torch.tensor([1, 2]), 0.5)",
    "bad_interp": Q + "torch.quantile(x, 0.5, interpolation='foo')",
    "bad_dim": Q + "torch.quantile(x, 0.5, dim=2)",
    "bad_out_dtype": Q + "torch.quantile(x, 0.5, out=torch.empty(0, dtype=torch.float64))",
}, tol="float")

cases("nanquantile", {
    "basic": "x = torch.tensor([[1., float('nan'), 3., 2.], [4., 5., float('nan'), 7.], [float('nan')] * 4])\n(torch.nanquantile(x, 0.5, dim=1), torch.nanquantile(x, 0.3), torch.nanquantile(x, torch.tensor([0.2, 0.8]), dim=1, keepdim=True))",
    "interpolations": R + "x = torch.randn(3, 6)\nx[0, 2] = float('nan')\n[torch.nanquantile(x, 0.35, dim=1, interpolation=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')]",
    "f64_out": R + "x = torch.randn(4, 3, dtype=torch.float64)\no = torch.empty(0, dtype=torch.float64)\nr = torch.nanquantile(x, 0.5, dim=0, out=o)\n(r is o, o, x.nanquantile(torch.tensor([0.1], dtype=torch.float64)))",
    "aten": "torch.ops.aten.nanquantile.scalar(torch.tensor([1., float('nan'), 2.]), 0.5)",
    "bad_q": "torch.nanquantile(torch.ones(3), 2.)",
}, tol="float")

grads("quantile_grad", {
    "quantile": "ps = leaves((3, 5)); out = torch.quantile(ps[0], 0.3, dim=1)",
    "quantile_all": "ps = leaves((3, 4)); out = torch.quantile(ps[0], torch.tensor([0.2, 0.7]))",
    "quantile_midpoint": "ps = leaves((2, 5)); out = torch.quantile(ps[0], 0.5, dim=0, interpolation='midpoint')",
    "nanquantile": "ps = [leaf([[1., float('nan'), 3., 2.], [4., 5., 6., 7.]])]; out = torch.nanquantile(ps[0], 0.4, dim=1)",
})
