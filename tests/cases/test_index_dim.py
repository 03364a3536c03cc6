"""index_fill, index_add, index_copy (src/ops/index_dim.c) compared with upstream: every dim,
repeated indices (accumulate in order / last write wins), negative indices (index_fill wraps,
the others refuse), int32 indices (index_add only), alpha (the 1-d loop multiplies first; >= 2-d
adds through the add kernel), dtypes (f16, bf16, f64, ints with wrap-around, bool), 0-dim and
scalar forms, non-contiguous self / source / index, in-place and out=, result layouts, every
error upstream raises, and gradients (self and source; index_fill's self) with their graphs."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
X = R + "x = torch.randn(3, 4)\ns = torch.randn(3, 4)\ni = torch.tensor([0, 2, 0])\n"

cases("index_fill", {
    "scalar": X + "(x.index_fill(1, torch.tensor([0, 2]), 7), x.index_fill(0, torch.tensor([1]), -1.5))",
    "tensor_value": X + "x.index_fill(1, torch.tensor([3, 0]), torch.tensor(7.))",
    "negative": X + "x.index_fill(1, torch.tensor([0, -1]), 1)",
    "repeated": X + "x.index_fill(0, torch.tensor([2, 2]), 0)",
    "scalar_index": X + "x.index_fill(0, torch.tensor(1), 3.)",
    "inplace": X + "r = x.index_fill_(1, torch.tensor([1]), 9)\n(r is x, x)",
    "inplace_tensor": X + "x.index_fill_(0, torch.tensor([0, 2]), torch.tensor(2.))\nx",
    "noncontiguous_preserved": "x = torch.zeros(4, 3).t()\nr = x.index_fill(0, torch.tensor([1]), 1.)\n(r, r.stride())",
    "noncontiguous_inplace": "x = torch.zeros(4, 6)[:, ::2]\nx.index_fill_(1, torch.tensor([2]), 5.)\nx",
    "dtypes": "(torch.zeros(2, 3, dtype=torch.long).index_fill(1, torch.tensor([0]), 1.5), torch.zeros(3, dtype=torch.bool).index_fill(0, torch.tensor([1]), True), torch.zeros(2, 2).half().index_fill(0, torch.tensor([1]), 0.1), torch.zeros(2, 2).bfloat16().index_fill(1, torch.tensor([0]), 1/3))",
    "zero_dim": "torch.tensor(5.).index_fill(0, torch.tensor([0]), 1)",
    "value_other_dtype": X + "x.index_fill(1, torch.tensor([0]), torch.tensor(1, dtype=torch.long))",
    "empty_index": X + "x.index_fill(0, torch.tensor([], dtype=torch.long), 1.)",
    "aten": X + "(torch.ops.aten.index_fill.int_Scalar(x, 0, torch.tensor([1]), 2), torch.ops.aten.index_fill.int_Tensor(x, 1, torch.tensor([1]), torch.tensor(3.)))",
    "bad_value_dim": X + "x.index_fill(1, torch.tensor([0]), torch.tensor([7.]))",
    "bad_range": X + "x.index_fill(1, torch.tensor([0, 9]), 1)",
    "bad_index_dtype": X + "x.index_fill(1, torch.tensor([0]).int(), 1)",
    "bad_index_2d": X + "x.index_fill(1, torch.tensor([[0, 2]]), 1)",
    "bad_dim": X + "x.index_fill(2, torch.tensor([0]), 1)",
})

cases("index_add", {
    "basic": X + "(x.index_add(0, i, s), torch.index_add(x, 1, torch.tensor([3, 3, 0, 1]), s))",
    "alpha_2d": X + "(x.index_add(0, i, s, alpha=2.5), x.index_add(1, torch.tensor([1, 1, 3, 1]), s, alpha=0.1))",
    "alpha_1d": R + "(torch.zeros(4).index_add(0, torch.tensor([1, 1, 3, 1]), torch.randn(4), alpha=0.3), torch.randn(5, dtype=torch.float64).index_add(0, torch.tensor([4, 0]), torch.randn(2, dtype=torch.float64), alpha=-1.7))",
    "int32_index": X + "x.index_add(0, i.int(), s)",
    "f16_bf16": X + "(x.half().index_add(1, torch.tensor([1, 1, 3, 1]), s.half(), alpha=0.1), x.bfloat16().index_add(0, i, s.bfloat16()), torch.zeros(3).half().index_add(0, torch.tensor([0, 0]), torch.tensor([0.1, 0.2]).half(), alpha=3))",
    "ints_wrap": "(torch.zeros(3, dtype=torch.int8).index_add(0, torch.tensor([1, 1]), torch.tensor([100, 100], dtype=torch.int8)), torch.zeros(2, 2, dtype=torch.long).index_add(1, torch.tensor([0, 0]), torch.ones(2, 2, dtype=torch.long), alpha=3))",
    "bool": "torch.zeros(3, dtype=torch.bool).index_add(0, torch.tensor([1, 1]), torch.tensor([True, True]))",
    "zero_dim": "torch.zeros(()).index_add(0, torch.tensor([0]), torch.tensor(3.))",
    "3d": R + "x = torch.randn(2, 3, 4)\n(x.index_add(1, torch.tensor([2, 0]), torch.randn(2, 2, 4)), x.index_add(2, torch.tensor([1]), torch.randn(2, 3, 1), alpha=-2))",
    "noncontiguous": R + "x = torch.randn(4, 3).t()\ns = torch.randn(5, 3).t()[:, :4]\nr = x.index_add(1, torch.tensor([0, 3, 3, 1]), s)\n(r, r.stride())",
    "inplace": X + "r = x.index_add_(0, i, s)\n(r is x, x)",
    "inplace_noncontiguous": R + "x = torch.randn(4, 6)[:, ::2]\nx.index_add_(1, torch.tensor([2, 2]), torch.ones(4, 2), alpha=0.5)\nx",
    "out": X + "o = torch.empty(0)\nr = torch.index_add(x, 0, i, s, out=o)\n(r is o, o)",
    "bad_index_dtype": X + "x.index_add(0, i.float(), s)",
    "bad_range": X + "x.index_add(0, torch.tensor([0, 5, 1]), s)",
    "bad_negative": X + "x.index_add(0, torch.tensor([0, -1, 1]), s)",
    "bad_count": X + "x.index_add(0, i, s[:2])",
    "bad_dtype": X + "x.index_add(0, i, s.double())",
    "bad_dim": X + "x.index_add(2, i, s)",
    "bad_index_2d": X + "x.index_add(0, i.view(3, 1), s)",
    "bad_scalar_source": "torch.zeros(5).index_add(0, torch.tensor([1]), torch.tensor(3.))",
    "bad_shape": X + "x.index_add(0, i, torch.randn(3, 5))",
})

cases("index_copy", {
    "basic": X + "(x.index_copy(0, torch.tensor([2, 0, 1]), s), x.index_copy(1, torch.tensor([0, 3]), s[:, :2]))",
    "repeated_last_wins": X + "x.index_copy(0, i, s)",
    "scalar_source": "(torch.zeros(4).index_copy(0, torch.tensor([1]), torch.tensor(3.)), torch.zeros(()).index_copy(0, torch.tensor([0]), torch.tensor(3.)))",
    "dtypes": X + "(x.long().index_copy(0, i, s.long()), x.bfloat16().index_copy(1, torch.tensor([1]), s[:, :1].bfloat16()), (x > 0).index_copy(0, i, s > 0))",
    "noncontiguous": "x = torch.zeros(4, 3).t()\nr = x.index_copy(0, torch.tensor([1]), torch.ones(1, 4))\n(r, r.stride())",
    "inplace": X + "r = x.index_copy_(1, torch.tensor([3]), s[:, :1])\n(r is x, x)",
    "out": X + "o = torch.empty(3, 4)\ntorch.index_copy(x, 0, i, s, out=o)\no",
    "bad_index_dtype": X + "x.index_copy(0, i.int(), s)",
    "bad_range": X + "x.index_copy(0, torch.tensor([0, 5, 1]), s)",
    "bad_count": X + "x.index_copy(0, i, s[:2])",
    "bad_dtype": X + "x.index_copy(0, i, s.double())",
    "bad_slice": "torch.zeros(4, 2, 5).index_copy(1, torch.tensor([1]), torch.ones(4, 1, 3))",
    "bad_ndim": "torch.zeros(4, 2, 5).index_copy(1, torch.tensor([1]), torch.ones(4, 1, 5, 1))",
    "bad_scalar_count": "torch.zeros(4).index_copy(0, torch.tensor([1, 2]), torch.tensor(1.))",
})

grads("index_dim_grad", {
    "index_add": "ps = leaves((3, 4), (3, 4)); out = ps[0].index_add(0, torch.tensor([0, 2, 0]), ps[1], alpha=2.) * torch.arange(4.)",
    "index_add_dim1": "ps = leaves((3, 4), (3, 2)); out = ps[0].index_add(1, torch.tensor([3, 3]), ps[1]).exp()",
    "index_add_scalar_source": "ps = [leaf(0.), leaf(3.)]; out = ps[0].index_add(0, torch.tensor([0]), ps[1]) * 2",
    "index_copy": "ps = leaves((3, 4), (3, 4)); out = ps[0].index_copy(0, torch.tensor([2, 0, 1]), ps[1]) * 2",
    "index_copy_dim1": "ps = leaves((3, 4), (3, 2)); out = ps[0].index_copy(1, torch.tensor([1, 3]), ps[1]).pow(2)",
    "index_fill": "ps = leaves((3, 4)); out = ps[0].index_fill(1, torch.tensor([1, 3]), 2.).pow(2)",
    "index_fill_inplace": "ps = leaves((3, 4)); y = ps[0] * 1; y.index_fill_(0, torch.tensor([1]), 0.); out = y.sin()",
})
grads("index_dim_grad_f64", {
    "index_add": "ps = leaves((4, 3), (2, 3), dtype=torch.float64); out = ps[0].index_add(0, torch.tensor([3, 3]), ps[1], alpha=-0.5).pow(2)",
}, tol=F64)

# scatter_add / scatter(reduce=...) on bf16 / f16 accumulate in a float buffer and round once, as
# upstream (index_add's scatter_add path relies on it)
cases("scatter_reduced_float", {
    "bf16_f16": R + "x = torch.randn(3, 4)\ns = torch.randn(5, 4)\ni = torch.tensor([[0, 0, 1, 0], [0, 2, 0, 0], [0, 0, 0, 1], [2, 2, 0, 0], [0, 1, 0, 0]])\n(x.bfloat16().scatter_add(0, i, s.bfloat16()), x.half().scatter_add(0, i, s.half()), x.bfloat16().scatter_add(1, i[:3], s[:3].bfloat16()))",
    "reduce_modes": R + "import warnings\nwarnings.simplefilter('ignore')\nx = torch.randn(3, 4).bfloat16()\ns = torch.randn(5, 4).bfloat16()\ni = torch.tensor([[0, 0, 1, 0], [0, 2, 0, 0], [0, 0, 0, 1], [2, 2, 0, 0], [0, 1, 0, 0]])\n(x.scatter(0, i, s, reduce='add'), x.scatter(0, i, s, reduce='multiply'), x.scatter(0, i, 1.5, reduce='multiply'))",
    "inplace": R + "x = torch.randn(3, 4).bfloat16()\nr = x.scatter_add_(0, torch.tensor([[0, 0, 0, 0], [0, 0, 0, 0]]), torch.randn(2, 4).bfloat16())\n(r is x, x)",
})
