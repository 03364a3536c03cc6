"""The *_copy variants of view ops (src/ops/copies.c) compared with upstream: contiguous results
that are never views, every overload, dtypes, non-contiguous inputs, tuple results of the split
family, gradients (the views' nodes, <View>Backward0_copy; NarrowCopyBackward0) and the views'
errors. Results are copies of input elements: compared exactly."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"
X = R + "x = torch.randn(2, 3, 4)\n"

cases("copies", {
    "permute": X + "r = torch.permute_copy(x, (2, 0, 1))\n(r, r._is_view(), torch.permute_copy(x.transpose(0, 2), [1, 0, 2]))",
    "transpose_t": X + "(torch.transpose_copy(x, 0, 2), torch.t_copy(x[0]), torch.t_copy(torch.arange(3)))",
    "expand": "x = torch.tensor([[1], [2]], dtype=torch.int32)\n(torch.expand_copy(x, (2, 3)), torch.expand_copy(x, (4, -1, 5)), torch.expand_copy(torch.tensor(1.5), [2]))",
    "diagonal": X + "(torch.diagonal_copy(x), torch.diagonal_copy(x, 1, 1, 2), torch.diagonal_copy(x, -1, -1, 0))",
    "squeeze_unsqueeze": R + "x = torch.randn(1, 3, 1, 2)\n(torch.squeeze_copy(x), torch.squeeze_copy(x, 2), torch.squeeze_copy(x, [0, 2]), torch.unsqueeze_copy(x, -1), torch.unsqueeze_copy(torch.tensor(3.), 0))",
    "select_slice": X + "(torch.select_copy(x, 1, -1), torch.slice_copy(x, 2, 1, 3), torch.slice_copy(x, 0, None, None, 2), torch.ops.aten.slice_copy.Tensor(x, 1, 0, 10, 2))",
    "split_unbind": X + "(torch.split_copy(x, 2, 2), torch.split_with_sizes_copy(x, [1, 2], 1), torch.unbind_copy(x, 1), type(torch.unbind_copy(x)).__name__)",
    "view_alias": X + "(torch.view_copy(x, (6, 4)), torch.view_copy(x, [-1]), torch.alias_copy(x), torch.alias_copy(x)._is_view())",
    "as_strided": "x = torch.arange(12.)\n(torch.as_strided_copy(x, (3, 2), (1, 3)), torch.as_strided_copy(x, (2, 2), (2, 1), 5))",
    "narrow": X + "(torch.narrow_copy(x, 2, 1, 2), torch.narrow_copy(x, -1, 0, 0), x.narrow_copy(0, 1, 1))",
    "dtypes": "x = torch.arange(6).reshape(2, 3)\n(torch.permute_copy(x.bool(), (1, 0)), torch.t_copy(x.bfloat16()), torch.view_copy(x.double(), (3, 2)), torch.unbind_copy(x.to(torch.int8)))",
    "noncontig": X + "y = x.transpose(0, 2)[::2]\n(torch.view_copy(y.contiguous(), (-1,)), torch.alias_copy(y), torch.squeeze_copy(y), torch.diagonal_copy(y, 0, 0, 1))",
    "view_noncontig": X + "torch.view_copy(x.transpose(0, 1), (6, 4))",
    "bad_view": X + "torch.view_copy(x, (5, 5))",
    "bad_permute": X + "torch.permute_copy(x, (0, 1))",
    "bad_expand": X + "torch.expand_copy(x, (3, 3, 4))",
    "bad_narrow": X + "torch.narrow_copy(x, 0, 1, 5)",
    "bad_select": X + "torch.select_copy(x, 0, 5)",
    "bad_t": X + "torch.t_copy(x)",
})

grads("copies_grad", {
    "permute": "ps = leaves((2, 3, 4)); out = torch.permute_copy(ps[0], (1, 2, 0)) * torch.arange(2.)",
    "transpose_t": "ps = leaves((2, 3), (3, 2)); out = torch.transpose_copy(ps[0], 0, 1) * torch.t_copy(ps[1]).t().t()",
    "expand_view": "ps = leaves((3, 1)); out = torch.view_copy(torch.expand_copy(ps[0], (3, 4)), (12,)) * torch.arange(12.)",
    "diagonal": "ps = leaves((3, 4)); out = torch.diagonal_copy(ps[0], 1) * torch.arange(3.)",
    "squeeze_unsqueeze": "ps = leaves((1, 3, 1)); out = torch.unsqueeze_copy(torch.squeeze_copy(ps[0], [0, 2]), 1) * torch.arange(3.)[:, None]",
    "select_slice": "ps = leaves((3, 4)); out = torch.select_copy(ps[0], 0, 1) * 2 + torch.slice_copy(ps[0], 0, 1, 2).sum()",
    "split_unbind": "ps = leaves((4, 3)); out = torch.split_with_sizes_copy(ps[0], [1, 3])[1].sum() + torch.unbind_copy(ps[0], 1)[2].sum() + torch.split_copy(ps[0], 2)[0].sum()",
    "alias_as_strided": "ps = leaves((6,)); out = torch.alias_copy(ps[0]) * 2 + torch.as_strided_copy(ps[0], (2, 2), (1, 2)).sum()",
    "narrow": "ps = leaves((3, 5)); out = torch.narrow_copy(ps[0], 1, 1, 3) * torch.arange(3.)",
})
