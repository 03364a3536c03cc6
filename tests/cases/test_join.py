"""Joining and rearranging copies: cat, stack, hstack, vstack, repeat, tile, flip, roll, tril,
triu, diag — values, dtype promotion, output strides, out= and errors."""
from harness import cases
from harness.autograd import grads

S = "x = torch.arange(24.).reshape(2, 3, 4)"

cases("cat", [
    "torch.cat([])", "torch.cat([x, torch.ones(2, 3)])", "torch.cat([x, torch.ones(2, 2, 4)], 1)",
    "torch.cat([x, torch.ones(2, 2, 5)], 1)", "torch.cat([torch.tensor(1.)])", "torch.cat([x, torch.ones(0)], 2)",
    "torch.cat([torch.ones(0), torch.ones(0)])", "torch.cat([torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.uint8)])",
    "torch.cat([torch.ones(2, dtype=torch.int32), torch.ones(2)])", "torch.cat([x.transpose(0, 2), x.transpose(0, 2)])",
    "torch.cat([x, x], 5)", "torch.cat((x, x), -1)", "torch.cat([x, x], dim=0, out=torch.empty(0, dtype=torch.int64))",
    "torch.cat([torch.ones(2, dtype=torch.int64)], out=torch.empty(0))", "torch.cat([x[:, :1], x[:, 2:]], 1)",
    "torch.cat([torch.tensor([True]), torch.tensor([1.5], dtype=torch.float16)])",
    "torch.cat([torch.ones(2, dtype=torch.bfloat16), torch.ones(1, dtype=torch.float16)])",
    "torch.cat([torch.ones(2, 0), torch.ones(2, 3)], 1)", "torch.concat([x, x])", "torch.concatenate([x, x], 1)",
    "torch.cat([x, x[:, :, ::2]], 2)", "torch.cat([torch.arange(3, dtype=torch.int8), torch.arange(2, dtype=torch.int16)])",
    "out = torch.empty(2, 3, 8); torch.cat([x, x], 2, out=out); out",
], setup=S, strides=True)

cases("stack", [
    "torch.stack([])", "torch.stack([x, x[0]])", "torch.stack([x, x], 3)", "torch.stack([x, x], 4)", "torch.stack([x, x])",
    "torch.stack([torch.ones(2, dtype=torch.int64), torch.ones(2)])", "torch.stack([x[0], x[1]], 1)",
    "torch.stack([torch.tensor(1.), torch.tensor(2.)])", "torch.stack([x, x], -1)", "torch.stack([x.t() if False else x[0].t(), x[1].t()])",
    "torch.hstack([torch.ones(2), torch.ones(3)])", "torch.hstack([torch.tensor(1.), torch.tensor(2.)])", "torch.hstack([x, x])",
    "torch.vstack([torch.ones(2), torch.ones(2)])", "torch.vstack([x, x])", "torch.vstack([torch.tensor(1), torch.tensor(2)])",
    "torch.hstack([])", "torch.row_stack([torch.ones(2), torch.zeros(2)])",
    "torch.stack([x, x], out=torch.empty(0))",
], setup=S, strides=True)

cases("repeat_tile", [
    "x.repeat(2)", "x.repeat(1, 2, 1, 2)", "x.transpose(0, 2).repeat(1, 1, 1)", "x.tile(2)", "x.repeat(-1, 1, 1)",
    "torch.arange(3).repeat(2, 2)", "torch.tensor(5).repeat(3)", "x.repeat(0, 1, 1)", "torch.arange(3.).tile((2, 1, 2))",
    "torch.tensor([True, False]).repeat(3)", "x[:, ::2].repeat(1, 2, 1)",
], setup=S, strides=True)

cases("flip_roll", [
    "x.transpose(0, 2).flip(0)", "x.flip(0, 0)", "x.flip(5)", "x.flip(0, 2)", "x.flip(-1)", "torch.flip(x, [])",
    "torch.fliplr(x)", "torch.flipud(x)", "torch.fliplr(torch.ones(3))", "torch.tensor(1.).flip(0)",
    "x.transpose(0, 2).roll(1, 0)", "x.roll((1, 2), (0,))", "x.roll(1)", "x.roll(-1, 2)", "x.roll((1, -2), (0, 2))",
    "x.roll(25)", "torch.roll(torch.arange(5), 7)", "torch.ones(0, 3).roll(1, 0)",
], setup=S, strides=True)

cases("tri_diag", [
    "x.transpose(0, 2).tril()", "x.tril(1)", "torch.ones(3).tril()", "x.triu(-1)", "x.triu(5)", "x.tril(-5)",
    "y = x.clone(); y.triu_(1); y", "y = x.clone(); y.tril_(); y", "torch.tril(x[0], out=torch.empty(0))",
    "torch.ones(3, 3, dtype=torch.bool).triu()", "torch.ones(2, 3, dtype=torch.int64).tril(1)",
    "torch.ones(3).diag()", "torch.ones(3).diag(-1)", "x[0].diag(1)", "x.diag()", "torch.tensor(1.).diag()",
    "x[0].diag(-2)", "x[0].t().diag()", "torch.arange(3, dtype=torch.float16).diag(2)", "torch.diag(x[0], out=torch.empty(5))",
], setup=S, strides=True)

# repeat_interleave with an int count (CompositeImplicitAutograd upstream: unsqueeze, expand, clone,
# flatten); every spelling, dims, output_size, bad input, and the gradient through it.
cases("repeat_interleave_int", [
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2)",
    "torch.arange(6.).reshape(2, 3).repeat_interleave(3, dim=1)",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), 2, 0)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2, -1)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 0, 1)",
    "torch.repeat_interleave(torch.tensor(5.), 3)",
    "torch.repeat_interleave(torch.tensor(5.), 3, 0)",
    "torch.repeat_interleave(torch.arange(24.).reshape(2, 3, 4).transpose(0, 2), 2, 1)",
    "torch.repeat_interleave(torch.ones(0, 3), 2, 0)",
    "torch.repeat_interleave(torch.arange(4, dtype=torch.bfloat16), 2)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2, 0, output_size=4)",
    "torch.ops.aten.repeat_interleave.self_int(torch.arange(3.), 2)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2, 0, output_size=5)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), -1, 0)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2, 2)",
    "torch.repeat_interleave(torch.arange(6.).reshape(2, 3), 2.5)",
])

grads("repeat_interleave_int_grad", {
    "f32_dim0": "ps = leaves((2, 3))\nout = ps[0].repeat_interleave(2, dim=0) * torch.arange(12.).reshape(4, 3)",
    "f32_flat": "ps = leaves((2, 3))\nout = torch.repeat_interleave(ps[0], 3) ** 2",
    "f64_strided": "ps = leaves((3, 4), dtype=torch.float64)\nout = ps[0].t().repeat_interleave(2, 1).cos()",
})

# _chunk_cat (FSDP's gradient bucketing): padding to a multiple of num_chunks, views, cat, and
# upstream's checks in its order. 0-dim inputs are not cases: upstream 2.13.0 crashes on them
# (measured, SIGSEGV); ours refuses them with the dim < ndim error.
cases("chunk_cat", [
    "torch._chunk_cat([x, torch.arange(6.).reshape(2, 3, 1)], 1, 2)", "torch._chunk_cat([x], 2, 3)",
    "torch._chunk_cat([x, x[:, :2]], 1, 4)", "torch._chunk_cat([x.transpose(1, 2), x[:, :, :1].transpose(1, 2)], 1, 2)",
    "torch._chunk_cat([x.half(), torch.ones(2, 1, 4, dtype=torch.float16)], -2, 5)", "torch._chunk_cat([x.int()], 0, 3)",
    "torch._chunk_cat([x, torch.ones(2, 5)], 1, 2)", "torch._chunk_cat([x, torch.ones(2, 5)], -1, 2)",
    "torch._chunk_cat([x, torch.ones(2, 5)], 2, 2)", "torch._chunk_cat([x, x.int()], 1, 2)", "torch._chunk_cat([x], 1, 0)",
    "torch._chunk_cat([], 0, 2)", "torch._chunk_cat([x, torch.ones(2, 0, 4)], 1, 2)", "torch._chunk_cat([x], 3, 2)",
    "torch._chunk_cat([x, torch.ones(3, 3, 4)], 1, 2)", "torch.ops.aten._chunk_cat.default([x, x], 0, 2)",
], setup=S, strides=True)
