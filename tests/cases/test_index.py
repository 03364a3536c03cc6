"""Indexing: Tensor.__getitem__ / __setitem__ of every kind, index_select, gather, scatter,
masked_fill, masked_select, nonzero, index_put_."""
from harness import cases

S = "x = torch.arange(24.).reshape(2, 3, 4)"

cases("getitem_basic", [
    "x[0]", "x[-1, 1]", "x[:]", "x[...]", "x[None]", "x[1:2]", "x[::2]", "x[:, 1:]", "x[..., None, 0]",
    "x[(0, 1)]", "x[0][1][2]", "x[slice(None), None, ..., 1]", "x[:, 1::2, None, -1]", "x[-1:-3]", "x[10:]",
    "x[()]", "x[()] is x", "x[1, ..., 2]", "x[..., ::3]", "torch.tensor(3.)[None]", "torch.tensor(3.)[..., None]",
    "torch.tensor(3.)[()]", "x[0, :, None, 1:3]", "x[:, :, :]", "x.t()[1] if False else x[:, 1].t()",
    "x.transpose(0, 2)[1:3, ::2]",
], setup=S, strides=True)

cases("getitem_errors", [
    "x[5]", "x[0, 5]", "x[0, 0, 0, 0]", "x[1.5]", "x[::-1]", "x[::0]", "torch.tensor(3.)[0]", "x['a']",
    "x[[5]]", "x[[-3]]", "x[[0, 1], [0, 1, 2]]", "x[torch.tensor([0.5])]", "x[torch.ones(3, dtype=torch.bool)]",
    "x[torch.ones(2, 3, 4, 5, dtype=torch.bool)]", "x[0, 1, 2, [3]]", "torch.tensor(3.)[[0]]", "x[[0.5, 1]]",
], setup=S)

cases("getitem_advanced", [
    "x[True]", "x[False]", "x[torch.tensor(1)]", "x[torch.tensor(True)]", "x[torch.tensor(False)]", "x[[0, 1]]",
    "x[[0, 1], [1, 2]]", "x[:, [0, 1]]", "x[[0, 1], :, [1, 2]]", "x[x > 5]", "x[0, x[0] > 5]",
    "x[torch.tensor([0, 1]), 1]", "x[[0, [1]]]", "x[[True, False]]", "x[torch.tensor([[True, False, True], [False, False, True]])]",
    "x[torch.tensor(1), torch.tensor([0, 1])]", "x[(torch.tensor([0]),)]", "x[[[0, 1]]]",
    "x[[[0], [1]], :, [1, 2]]", "x[:, [0, 2], [1, 2]]", "x[:, torch.tensor([[0, 1], [1, 2]])]",
    "x.transpose(0, 2)[[0, 1]]", "x.transpose(0, 2)[:, [0, 1]]", "x.permute(2, 1, 0)[:, :, [0, 1]]",
    "x[1:, [0]]", "x[[-1, 0]]", "x[torch.tensor([1, 0], dtype=torch.int32)]", "x[..., [3, 0]]",
    "x[None, [0, 1]]", "torch.tensor(3.)[torch.tensor(True)]", "x[[]]", "x[torch.zeros(2, 3, 4, dtype=torch.bool)]",
    "x[:, [[0], [2]], [1, 3]]", "x[0, [2, 0], None]", "x[torch.tensor(1, dtype=torch.uint8)]",
    "torch.arange(10)[[9, 0, 9]]", "torch.arange(6, dtype=torch.float16).reshape(2, 3)[[1, 0]]",
    "torch.tensor([True, False, True])[[2, 1]]", "torch.arange(6, dtype=torch.bfloat16)[torch.tensor([5, 1])]",
    "x[[0, 1]][0, 0, 0]",
], setup=S, strides=True)

cases("setitem", {
    "int": "x[0] = 1; x", "tuple_tensor": "x[0, 1] = torch.ones(4); x", "slice_scalar": "x[:] = 2.5; x",
    "ellipsis": "x[...] = 3; x", "none": "x[None] = 1; x", "list": "x[[0, 1]] = 5; x",
    "mask": "x[x > 5] = 0; x", "mask_tensor": "x[x > 5] = torch.tensor(1.); x",
    "mixed": "x[0, [1, 2]] = torch.arange(4.); x", "bad_shape": "x[1] = torch.ones(2, 4); x",
    "true": "x[True] = 1; x", "scalar_elem": "x[0, 0, 0] = 7; x",
    "cast": "x[:, 1] = torch.ones(1, 4, dtype=torch.int64); x", "zero_dim": "x[0] = torch.tensor(3); x",
    "complex": "x[0] = 1 + 2j; x", "str": "x[0] = 'a'; x", "mismatch": "x[[0, 1]] = torch.ones(3); x",
    "prefix_ones": "x[0] = torch.ones(1, 1, 1, 4); x", "list_value": "x[0] = [1, 2, 3, 4]; x",
    "tensor_index": "x[torch.tensor(0)] = 1; x", "oob": "x[5] = 1; x",
    "dtype_mismatch": "x[[0, 1]] = torch.ones(3, 4, dtype=torch.int64); x",
    "prefix_put": "x[[0]] = torch.ones(1, 1, 3, 4); x", "empty_tuple": "x[()] = 1; x", "oob2": "x[0, 5] = 1; x",
    "slice_list": "x[1:, [0]] = 2; x", "bool_value": "x[0] = True; x",
    "int_float": "y = torch.ones(3, dtype=torch.int64); y[0] = 2.7; y",
    "bool_dst": "y = torch.ones(3, dtype=torch.bool); y[0] = 0; y",
    "f64_src": "x[0] = torch.ones(4, dtype=torch.float64); x", "mask_values": "x[x > 1] = torch.arange(22.); x",
    "step": "x[:, ::2] = -1; x", "dup_index": "y = torch.zeros(4); y[[1, 1, 2]] = torch.tensor([1., 2., 3.]); y",
    "view_base": "v = x[1]; v[0, [0, 3]] = 9; x", "del": "del x[0]",
    "f16": "y = torch.zeros(3, dtype=torch.float16); y[1:] = 0.1; y",
    "bf16_put": "y = torch.zeros(3, dtype=torch.bfloat16); y[[0, 2]] = torch.tensor([1.5, 2.5], dtype=torch.bfloat16); y",
}, setup=S, strides=True)

cases("index_select", [
    "x.index_select(1, torch.tensor([2, 0]))", "x.index_select(1, torch.tensor([5]))", "x.index_select(1, torch.tensor([0.]))",
    "x.index_select(1, torch.tensor([[0]]))", "x.index_select(1, torch.tensor([2, 0], dtype=torch.int32))",
    "x.transpose(0, 2).index_select(1, torch.tensor([0, 1]))", "torch.ones(3).index_select(0, torch.tensor(1))",
    "torch.tensor(3.).index_select(0, torch.tensor([0]))", "torch.index_select(x, -1, torch.tensor([3, 3, 0]))",
    "torch.index_select(x, 0, torch.tensor([1]), out=torch.empty(0))", "x.index_select(2, torch.tensor([], dtype=torch.int64))",
    "torch.arange(5, dtype=torch.int8).index_select(0, torch.tensor([4, 0]))",
], setup=S, strides=True)

cases("gather_scatter", [
    # an empty index of any dtype: upstream checks nothing
    "torch.gather(torch.arange(3.), 0, torch.empty(0, dtype=torch.uint8))",
    "torch.scatter_add(torch.arange(3.), 0, torch.empty(0, dtype=torch.uint8), torch.empty(0))",
    "x.gather(1, torch.tensor([[[2, 0, 1, 1]]]))", "x.gather(1, torch.tensor([[[5]]]))",
    "x.gather(1, torch.tensor([[[0]]], dtype=torch.int32))", "x.gather(1, torch.tensor([[0]]))",
    "x.gather(1, torch.zeros(3, 4, 4, dtype=torch.long))", "x.gather(1, torch.zeros(2, 5, 4, dtype=torch.long))",
    "x.transpose(0, 2).gather(0, torch.ones(2, 2, 2, dtype=torch.long))", "torch.gather(x, -1, torch.tensor([[[3], [2], [-1]]]))",
    "x.scatter(1, torch.tensor([[[5]]]), 1.)", "x.scatter(1, torch.tensor([[[1]]]), torch.ones(1, 1, 1, dtype=torch.float64))",
    "x.scatter(1, torch.tensor([[[1, 2]]]), torch.full((1, 1, 2), -1.))", "x.scatter(1, torch.tensor([[[1]]]), 2)",
    "torch.zeros(3, dtype=torch.int64).scatter(0, torch.tensor([1]), 2.7)",
    "torch.zeros(3).scatter_add(0, torch.tensor([1, 1]), torch.ones(2))",
    "torch.zeros(3).scatter(0, torch.tensor([1, 1]), torch.ones(3), reduce='add')",
    "torch.zeros(3).scatter(0, torch.tensor([[1]]), torch.ones(3))", "torch.zeros(3).scatter(0, torch.tensor([1, 2, 0, 1]), torch.ones(3))",
    "y = torch.zeros(2, 3); y.scatter_(1, torch.tensor([[2], [0]]), 5.); y",
    "y = torch.zeros(2, 3); y.scatter_add_(0, torch.tensor([[1, 1, 0]]), torch.ones(1, 3)); y",
    "torch.zeros(2, 2, dtype=torch.bfloat16).scatter_add(1, torch.tensor([[0, 0]]), torch.ones(1, 2, dtype=torch.bfloat16))",
], setup=S, strides=True)

cases("masked", [
    "x.masked_fill(x > 3, 1.5)", "x.masked_fill(torch.ones(4), 1.5)", "x.masked_fill(torch.ones(4, dtype=torch.uint8), 1.5)",
    "x.masked_fill(torch.ones(5, dtype=torch.bool), 1.5)", "x.masked_fill(torch.ones(4, dtype=torch.bool), torch.tensor([1.]))",
    "x[0].masked_fill_(torch.ones(2, 3, 4, dtype=torch.bool), 1)",
    "torch.ones(3, dtype=torch.int64).masked_fill(torch.ones(3, dtype=torch.bool), 1.5)",
    "torch.ones(3, dtype=torch.int64).masked_fill(torch.ones(3, dtype=torch.bool), torch.tensor(2.5))",
    "torch.ones(3).masked_fill(torch.tensor([True, False, True]), torch.tensor(2.5))",
    "torch.ones(3).masked_fill(torch.ones(2, 3, dtype=torch.bool), torch.tensor(2.5))",
    "torch.ones(3, dtype=torch.bool).masked_fill(torch.ones(3, dtype=torch.bool), 5)",
    "y = x.clone(); y.masked_fill_(y < 10, -1); y", "x.t() if False else x.transpose(1, 2).masked_fill(x.transpose(1, 2) > 5, 0)",
    "x.masked_select(x > 20)", "x.masked_select(torch.ones(4, dtype=torch.uint8))",
    "torch.ones(3).masked_select(torch.ones(2, 3, dtype=torch.bool))", "torch.masked_select(x, x > 100)",
    "torch.arange(6, dtype=torch.float16).masked_fill(torch.arange(6) % 2 == 0, float('-inf'))",
], setup=S, strides=True)

cases("nonzero", [
    "torch.nonzero(torch.tensor([[0, 1], [2, 0]]))", "torch.nonzero(torch.tensor(5))", "torch.nonzero(torch.tensor(0))",
    "torch.nonzero(torch.tensor([0., float('nan')]))", "torch.ones(2, 3).nonzero()", "torch.zeros(2, 3).nonzero()",
    "(x > 20).nonzero()", "x.transpose(0, 2).nonzero()[:3]", "torch.argwhere(torch.tensor([[0, 1], [2, 0]]))",
    "torch.take(x, torch.tensor([[0, 23], [-1, 5]]))", "torch.take(x, torch.tensor([24]))",
], setup=S, strides=True)

cases("index_put", [
    "x.index_put_([torch.tensor([0])], torch.tensor(1))", "x.index_put_([torch.tensor([0])], torch.tensor(1.))",
    "x.index_put_([torch.tensor([0]), torch.tensor([0, 1])], torch.tensor(1.), accumulate=True)",
    "x.index_put([torch.tensor([0])], torch.ones(3))",
    "torch.ones(3).index_put_((torch.tensor([0, 0, 1]),), torch.tensor([1., 2., 3.]), True)",
    "torch.ones(3, dtype=torch.int32).index_put_((torch.tensor([0, 0, 1]),), torch.tensor([1, 2, 3], dtype=torch.int32), True)",
    "torch.index_put(x, (None, torch.tensor([2])), torch.tensor(-1.))",
    "torch.ops.aten.index.Tensor(x, [None, torch.tensor([1, 0])])",
    "torch.ops.aten.index_put_(torch.zeros(2, 2), [torch.tensor([True, False])], torch.tensor(3.))",
], setup=S, strides=True)

# where(condition) and nonzero_numpy: CompositeImplicitAutograd upstream (nonzero().unbind(1), a
# 0-dim condition unsqueezed first); torch.where(cond) is numpy's one-argument where.
cases("where_condition", [
    "torch.where(torch.tensor([[0, 1], [2, 0]]))", "torch.where(torch.tensor(3))", "torch.where(torch.tensor(0.))",
    "torch.where(torch.tensor([0., float('nan'), -0.]))", "torch.where(torch.zeros(2, 3, dtype=torch.bool))",
    "torch.where(torch.ones(2, 0))", "torch.where(torch.arange(24.).reshape(2, 3, 4).transpose(0, 2) > 10)",
    "torch.where(torch.tensor([True, False, True]))",
    "torch.ops.aten.where.default(torch.tensor([[1, 0], [0, 1]]))",
    "torch.ops.aten.nonzero_numpy.default(torch.tensor([[1, 0], [0, 1]]))",
    "torch.ops.aten.nonzero_numpy.default(torch.tensor(1.))",
    "torch.where(torch.zeros(*[1] * 3))",
])

# the scatter family's dtype checks are worded "scatter()" for scatter_add and scatter_reduce too,
# as upstream's scatter_meta_impl words them (compared as text)
SCATTER_ERR = """
def err(f):
    try:
        return ("ok", f())
    except Exception as e:
        return (type(e).__name__, str(e))
x = torch.zeros(3); i = torch.tensor([0, 1]); s = torch.ones(2, dtype=torch.float64)
"""
cases("scatter_dtype_errors", {
    "scatter_add": SCATTER_ERR + "(err(lambda: torch.scatter_add(x, 0, i, s)), err(lambda: x.clone().scatter_add_(0, i, s)))",
    "scatter_add_index": SCATTER_ERR + "err(lambda: torch.scatter_add(x, 0, i.float(), s.float()))",
    "scatter_reduce": SCATTER_ERR + "(err(lambda: torch.scatter_reduce(x, 0, i, s, 'sum')), err(lambda: torch.scatter(x, 0, i, s)))",
    "scatter_add_out": SCATTER_ERR + "err(lambda: torch.scatter_add(x, 0, i, s.float(), out=torch.zeros(3, dtype=torch.float64)))",
})
