"""searchsorted / bucketize, histc and _is_all_true / _is_any_true (src/ops/search.c) compared
with upstream: left/right/side, sorter, batched boundaries, int32 results, promotion between
boundary and value dtypes, NaN, Scalar overloads, out=, empty inputs, non-contiguous inputs,
histc's range rules (given, from the extrema, an empty range widened by one float step) in
f32/f64/f16/bf16, torch.distributions' argument validation, and upstream's errors. Results are
integer positions and integer counts: compared exactly."""
from harness import cases

S = "s = torch.tensor([1., 2., 2., 3., 5.])\n"
R = "torch.manual_seed(0)\n"

cases("searchsorted", {
    "left": S + "torch.searchsorted(s, torch.tensor([[2.5, 2.], [float('nan'), 0.], [5., 6.]]))",
    "right": S + "torch.searchsorted(s, torch.tensor([2., 2.5, 5., -1.]), right=True)",
    "side_right": S + "torch.searchsorted(s, torch.tensor([2., 3.]), side='right')",
    "side_left_right_false": S + "torch.searchsorted(s, torch.tensor([2., 3.]), side='left', right=False)",
    "int32": S + "torch.searchsorted(s, torch.tensor([2., 3.]), out_int32=True)",
    "scalar": S + "(torch.searchsorted(s, 2.0), torch.searchsorted(s, 2, right=True), torch.searchsorted(s, True))",
    "int_boundaries_float_value": "b = torch.tensor([1, 2, 3, 16777217])\n(torch.searchsorted(b, 2.5), torch.searchsorted(b, torch.tensor([2.5, 16777216.])), torch.searchsorted(b, torch.tensor([16777216.], dtype=torch.float64)))",
    "f16_bf16": S + "(torch.searchsorted(s.half(), torch.tensor([2.1])), torch.searchsorted(s.bfloat16(), torch.tensor([2.1], dtype=torch.bfloat16), right=True))",
    "ints": "b = torch.arange(0, 20, 3, dtype=torch.int32)\n(torch.searchsorted(b, torch.tensor([[4, 6], [19, -3]], dtype=torch.int16)), torch.searchsorted(b.to(torch.uint8), torch.tensor([7], dtype=torch.uint8)))",
    "batched": R + "b = torch.randn(2, 3, 6).sort(-1).values\nv = torch.randn(2, 3, 4)\n(torch.searchsorted(b, v), torch.searchsorted(b, v, right=True))",
    "batched_sorter": R + "b = torch.randn(2, 5)\nsrt = b.argsort(-1)\ntorch.searchsorted(b, torch.randn(2, 3), sorter=srt)",
    "sorter": "torch.searchsorted(torch.tensor([3., 1, 2]), torch.tensor([2.5, 0., 3.]), sorter=torch.tensor([1, 2, 0]))",
    "noncontiguous": R + "b = torch.randn(6, 2).sort(0).values.t()\nv = torch.randn(3, 2).t()\ntorch.searchsorted(b, v)",
    "empty_values": S + "torch.searchsorted(s, torch.tensor([]))",
    "empty_boundaries": "torch.searchsorted(torch.tensor([]), torch.tensor([1., 2.]))",
    "out": S + "o = torch.empty(0, dtype=torch.long)\nr = torch.searchsorted(s, torch.tensor([2.5, 4.]), out=o)\n(r is o, o)",
    "out_int32": S + "o = torch.empty(2, dtype=torch.int32)\ntorch.searchsorted(s, torch.tensor([2.5, 4.]), out_int32=True, out=o)\no",
    "scalar_out": S + "o = torch.empty(0, dtype=torch.long)\ntorch.searchsorted(s, 2.5, out=o)\no",
    "method_aten": S + "(torch.ops.aten.searchsorted.Tensor(s, torch.tensor([2.])), torch.ops.aten.searchsorted.Scalar(s, 4))",
    "bad_side": S + "torch.searchsorted(s, torch.tensor([2.]), side='middle')",
    "bad_side_right": S + "torch.searchsorted(s, torch.tensor([2.]), side='left', right=True)",
    "bad_dims": "torch.searchsorted(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[2], [3], [4]]))",
    "bad_dims_1d_value": "torch.searchsorted(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3]))",
    "bad_0dim": "torch.searchsorted(torch.tensor(1.), torch.tensor([2., 3.]))",
    "bad_sorter_size": "torch.searchsorted(torch.tensor([3., 1, 2]), torch.tensor([2.5]), sorter=torch.tensor([1, 2]))",
    "bad_sorter_range": "torch.searchsorted(torch.tensor([3., 1, 2]), torch.tensor([2.5]), sorter=torch.tensor([1, 2, 5]))",
    "bad_bool": "torch.searchsorted(torch.tensor([False, True]), torch.tensor([True]))",
    "bad_out_dtype": S + "torch.searchsorted(s, torch.tensor([2.]), out=torch.empty(1, dtype=torch.int32))",
})

cases("bucketize", {
    "basic": S + "torch.bucketize(torch.tensor([[2.5, 2.], [3., 0.]]), s)",
    "right_int32": S + "torch.bucketize(torch.tensor([2., 5., 7.]), s, right=True, out_int32=True)",
    "scalar": S + "(torch.bucketize(2, s), torch.bucketize(2.5, s, right=True))",
    "random": R + "torch.bucketize(torch.randn(4, 5), torch.linspace(-2, 2, 9))",
    "out": S + "o = torch.empty(3, dtype=torch.long)\ntorch.bucketize(torch.tensor([0., 2., 9.]), s, out=o)\no",
    "bad_2d": "torch.bucketize(torch.tensor([2.]), torch.tensor([[1., 2.]]))",
    "bad_scalar_2d": "torch.bucketize(2, torch.tensor([[1., 2.]]))",
})

cases("histc", {
    "basic": "torch.histc(torch.tensor([1., 2, 1, 4]), 4)",
    "range": R + "torch.histc(torch.randn(1000), bins=10, min=-2, max=2)",
    "default_bins": R + "torch.histc(torch.randn(3000))",
    "f64": R + "torch.histc(torch.randn(500, dtype=torch.float64), 7)",
    "f16_bf16": R + "x = torch.randn(300)\n(torch.histc(x.half(), 5), torch.histc(x.bfloat16(), 5), torch.histc(x.bfloat16(), 3, -1, 1))",
    "bf16_saturating": "torch.histc(torch.zeros(600, dtype=torch.bfloat16), 2, -1, 1)",
    "edges": "torch.histc(torch.tensor([0., 0.25, 0.5, 0.75, 1.0, -0.1, 1.1]), 4, 0, 1)",
    "nan_skipped": "torch.histc(torch.tensor([0., float('nan'), 1.]), 2, 0, 1)",
    "single_value": "(torch.histc(torch.tensor([1., 1.]), 4), torch.histc(torch.tensor([1e10, 1e10]), 4), torch.histc(torch.tensor([3., 3.], dtype=torch.float64), 2), torch.histc(torch.tensor([3.], dtype=torch.bfloat16), 4))",
    "empty": "(torch.histc(torch.tensor([]), 4), torch.histc(torch.tensor([]), 3, 0, 2))",
    "noncontiguous_2d": R + "torch.histc(torch.randn(8, 6).t(), 5)",
    "method_out": R + "x = torch.randn(50)\no = torch.empty(0)\nr = torch.histc(x, 6, out=o)\n(r is o, o, x.histc(6))",
    "int_scalars": R + "torch.histc(torch.randn(100), 4, min=-1, max=1)",
    "bad_long": "torch.histc(torch.tensor([1, 2]), 4)",
    "bad_bins": "torch.histc(torch.tensor([1., 2]), -1)",
    "bad_range": "torch.histc(torch.tensor([1., 2]), 4, min=3, max=1)",
    "bad_inf": "torch.histc(torch.tensor([1., float('inf')]), 4)",
    "bad_nan": "torch.histc(torch.tensor([1., float('nan')]), 4)",
    "bad_out_dtype": "torch.histc(torch.tensor([1., 2]), 4, out=torch.empty(4, dtype=torch.float64))",
})

cases("is_all_any_true", {
    "all": "(torch.ops.aten._is_all_true(torch.tensor([True, True])), torch.ops.aten._is_all_true(torch.tensor([[True], [False]])))",
    "any": "(torch.ops.aten._is_any_true(torch.tensor([False, True])), torch.ops.aten._is_any_true(torch.zeros(0, dtype=torch.bool)))",
    "noncontiguous": "torch.ops.aten._is_all_true(torch.ones(3, 2, dtype=torch.bool)[:, 0])",
    "not_bool": "torch.ops.aten._is_all_true(torch.ones(3))",
    "distributions": R + "d = torch.distributions.Normal(torch.zeros(3), torch.ones(3))\nx = torch.randn(3)\n(d.log_prob(x), d.entropy(), d.cdf(x), torch.distributions.Categorical(logits=torch.randn(4)).log_prob(torch.tensor(2)))",
    "distributions_validation": "torch.distributions.Normal(torch.zeros(2), torch.tensor([1., -1.]))",
})
