"""View operators: shapes, strides, storage offsets, aliasing with the base, and errors.

Every view case compares strides and storage_offset (strides=True). Aliasing cases write
through a view and compare the base afterwards.
"""
from harness import cases

S = "x = torch.arange(24.).reshape(2, 3, 4)"

cases("view_shape", [
    "x.view(6, 4)", "x.view(-1)", "x.view(2, -1, 3)", "x.view(2, 3, 4, 1)", "x.view(24)",
    "x.view((4, 6))", "torch.tensor(5.).view(1, 1)", "torch.ones(0, 3).view(-1)",
    "x.view(-1, -1)", "x.view(5)", "x.view(3, -1, 5)", "torch.ones(0, 3).view(0, -1)",
    "x.transpose(0, 2).view(-1)", "x[:, :, :2].view(2, 3, 2)", "x.view_as(torch.ones(4, 6))",
    "x.view(torch.int16)", "x.view(torch.float64)", "x.view(torch.uint8)", "x.view(torch.int32)",
    "x[:, :, :3].view(torch.float64)", "x[0, 0, 0].view(torch.int16)", "x.transpose(1, 2).view(torch.int16)",
    "x[:, :, 1:].view(torch.float64)", "torch.ones(2).view(torch.complex64)",
    "torch.arange(6, dtype=torch.int16).view(torch.bfloat16)",
], setup=S, strides=True)

cases("reshape", [
    "x.reshape(6, 4)", "x.reshape(-1)", "x.transpose(0, 2).reshape(-1)", "x.transpose(1, 2).reshape(2, 12)",
    "x[:, :2].reshape(4, 4)", "x.reshape(-1, 5)", "x.reshape(4, -1)._base is x._base",
    "torch.ones(0, 3).reshape(3, 0, -1)", "x.reshape_as(torch.ones(12, 2))", "x.ravel()",
    "x.transpose(0, 1).ravel()", "x.flatten()", "x.flatten(1)", "x.flatten(0, 1)", "x.flatten(1, 1) is x",
    "x.flatten(2, 1)", "torch.tensor(1.).flatten()", "x.transpose(0, 2).flatten(1)",
    "x.unflatten(2, (2, -1))", "x.unflatten(2, (2, 3))", "x.unflatten(-1, (4, 1))",
    "torch.ops.aten._unsafe_view(x, (4, 6))", "torch.ops.aten._reshape_alias(x, (4, 6), (6, 1))",
], setup=S, strides=True)

cases("permute", [
    "x.permute(2, 0, 1)", "x.permute(-1, 0, 1)", "x.permute(0, 1)", "x.permute(0, 0, 1)", "x.permute(0, 1, 3)",
    "x.transpose(0, 2)", "x.transpose(-1, 0)", "x.transpose(0, 3)", "x.swapaxes(0, 1)", "x.swapdims(1, 2)",
    "torch.transpose(x, 1, 2)", "x[0].t()", "torch.ones(3).t()", "x.t()", "x.mT", "x.T", "x[0].T", "x.mH",
    "x.adjoint()", "torch.ones(3).mT", "x[0].H", "x.movedim(0, 2)", "x.movedim((0, 1), (2, 0))",
    "x.movedim((0, 1), (2,))", "x.movedim((0, 0), (1, 2))", "x.movedim(0, 5)", "torch.moveaxis(x, 2, 0)",
    "torch.tensor(2.).permute(())", "torch.tensor(2.).t()",
], setup=S, strides=True)

cases("expand", [
    "x.expand(2, 2, 3, 4)", "x.expand(-1, 3, 4)", "x.expand(3, 3, 4)", "x.expand(4)", "x.expand(-1, 2, 3, 4)",
    "x[:, :1].expand(2, 5, 4)", "torch.tensor(3.).expand(2, 2)", "x.expand_as(torch.ones(5, 2, 3, 4))",
    "torch.broadcast_to(torch.arange(3), (2, 3))", "torch.ones(1, 3).expand(0, 3)",
], setup=S, strides=True)

cases("squeeze", [
    "x.squeeze()", "torch.ones(1, 3, 1).squeeze()", "torch.ones(1, 3, 1).squeeze(1)", "torch.ones(1, 3, 1).squeeze(0)",
    "torch.ones(1, 3, 1).squeeze((0, 2))", "torch.ones(1, 3, 1).squeeze(-1)", "x.squeeze(5)", "x.squeeze((0, 0))",
    "torch.tensor(5.).squeeze(0)", "torch.tensor(5.).squeeze()", "x.unsqueeze(3)", "x.unsqueeze(-1)", "x.unsqueeze(0)",
    "x.unsqueeze(4)", "torch.tensor(5.).unsqueeze(0)", "x[:, 1].unsqueeze(1)",
    "y = torch.ones(1, 3, 1); y.squeeze_(); y", "y = torch.ones(3); y.unsqueeze_(0); y",
    "y = torch.ones(2, 3); y.t_(); y", "y = torch.ones(2, 3, 4); y.transpose_(0, 2); y", "x.t_()",
], setup=S, strides=True)

cases("narrow_select_slice", [
    "x.narrow(2, 1, 2)", "x.narrow(2, -2, 2)", "x.narrow(2, 3, 2)", "x.narrow(2, 5, 0)", "x.narrow(2, 1, -1)",
    "x.narrow(0, torch.tensor(1), 1)", "x.select(1, -1)", "x.select(1, 3)", "x.select(0, torch.tensor(1))",
    "torch.tensor(5.).select(0, 0)", "torch.select(x, 2, 0)",
    "torch.ops.aten.slice(x, 0, 1)", "torch.ops.aten.slice(x, 2, None, None, 2)", "torch.ops.aten.slice(x, 1, -2, 10)",
    "torch.ops.aten.slice(x, 1, 2, 1)", "torch.ops.aten.slice(x, 1, 0, 3, 0)",
    "torch.ops.aten.as_strided(x, (2, 2), (1, 2), 1)", "x.as_strided((2, 2), (1, 2))", "x.as_strided((30,), (1,))",
    "x.as_strided((2,), (-1,))", "x.as_strided((2,), (1,), -1)", "x[1].as_strided((3,), (2,))",
], setup=S, strides=True)

cases("diagonal", [
    "x.diagonal()", "x.diagonal(1, 1, 2)", "x.diagonal(-1, 2, 1)", "x.diagonal(0, 1, 1)", "x.diagonal(10)",
    "x[0].diagonal(-2)", "torch.diagonal(x, offset=1, dim1=0, dim2=2)",
], setup=S, strides=True)

cases("split", [
    "x.unbind(1)", "x.unbind()", "x.unbind(5)", "torch.tensor(1.).unbind()", "x.split(2, 2)", "x.split([1, 3], 2)",
    "x.split(0, 2)", "x.split([1, 2], 2)", "x.split(2, -1)", "x.split(3, 1)", "torch.split(x, [1, 1], 0)",
    "x.chunk(3, 2)", "torch.arange(5).chunk(3)", "x.chunk(0)", "torch.arange(6).chunk(4)", "torch.ones(0).chunk(2)",
    "x.split_with_sizes([2, 2], 2)", "x.tensor_split(2) if False else x.chunk(2, 1)",
], setup=S, strides=True)

cases("identity", [
    "x.contiguous() is x", "x.transpose(0, 2).contiguous()", "x[:, ::2].contiguous()",
    "x.contiguous(memory_format=torch.channels_last)", "x.detach()", "x.detach()._base is None",
    "torch.ops.aten.alias(x)", "torch.ops.aten.alias(x)._base is x._base", "torch.ops.aten.lift_fresh(x) is x",
], setup=S, strides=True)

cases("view_alias", {
    "view_write": "b = torch.zeros(6); v = b.view(2, 3); v[1, 2] = 7; b",
    "transpose_write": "b = torch.zeros(2, 3); b.t()[2, 0] = 1; b",
    "narrow_write": "b = torch.zeros(5); b.narrow(0, 1, 2).fill_(3); b",
    "select_write": "b = torch.zeros(2, 3); b.select(1, 1).add_(2); b",
    "expand_read": "b = torch.arange(3.); e = b.expand(2, 3); b[0] = 9; e",
    "unbind_write": "b = torch.zeros(2, 2); b.unbind(0)[1].fill_(4); b",
    "split_write": "b = torch.zeros(6); b.split(2)[2].fill_(1); b",
    "diag_write": "b = torch.zeros(3, 3); b.diagonal().fill_(1); b",
    "squeeze_write": "b = torch.zeros(1, 3); b.squeeze(0)[1] = 5; b",
    "base_chain": "b = torch.zeros(6); v = b.view(2, 3)[1]; v._base is b",
    "dtype_view_write": "b = torch.zeros(2); b.view(torch.int32)[0] = 1065353216; b",
    "version": "b = torch.zeros(3); v = b[1:]; v.fill_(1); (b._version > 0, b)",
}, strides=True)

cases("view_dtypes", [
    "torch.arange(6, dtype=%s).reshape(2, 3).t()" % d for d in
    ("torch.float16", "torch.bfloat16", "torch.int64", "torch.int32", "torch.uint8", "torch.bool", "torch.float64")
] + [
    "torch.arange(6, dtype=%s).view(3, 2).unsqueeze(1).expand(3, 2, 2)" % d for d in
    ("torch.int8", "torch.int16", "torch.float32")
], strides=True)
