"""Shape composites (src/ops/shape_composites.c): atleast_1d/2d/3d (one tensor or several),
column_stack, dstack, tensor_split (sections, indices, a tensor of either), hsplit / vsplit /
dsplit, outer / ger, inner, kron, diagflat, cartesian_prod and sum_to_size compared with
upstream: views and aliasing of the results, dtypes, 0-dim and empty inputs, non-contiguous
inputs, gradients and recorded graphs, and upstream's errors. inner on >= 1-dim inputs is a
matrix product (float rule)."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"

cases("atleast", {
    "one": "a, b, c, d = torch.tensor(1.), torch.arange(3), torch.ones(2, 3), torch.ones(2, 1, 3)\n[(f(a), f(b), f(c), f(d)) for f in (torch.atleast_1d, torch.atleast_2d, torch.atleast_3d)]",
    "identity": "c = torch.ones(2, 3, 4)\n(torch.atleast_1d(c) is c, torch.atleast_3d(c) is c, torch.atleast_2d(c[0]) is c)",
    "several": "a, b = torch.tensor(1.), torch.arange(3)\n(torch.atleast_1d(a, b), torch.atleast_2d([a, b]), torch.atleast_3d((a, b)), torch.ops.aten.atleast_2d.Sequence([a, b]))",
    "noncontig_views": "x = torch.ones(3, 2).t()\nr = torch.atleast_3d(x)\n(r, r._is_view(), r.stride())",
})

cases("stack_split", {
    "column_stack": "a, b, c = torch.arange(3.), torch.ones(3, 2), torch.tensor([7., 8., 9.])\n(torch.column_stack([a, b, c]), torch.column_stack((torch.tensor(1), torch.tensor(2))))",
    "dstack": "a, b = torch.arange(3.), torch.ones(1, 3)\n(torch.dstack([a, b]), torch.dstack((torch.ones(2, 2, 1), torch.zeros(2, 2, 3))))",
    "tensor_split": R + "x = torch.randn(7, 4)\n(torch.tensor_split(x, 3), torch.tensor_split(x, [1, 5], dim=0), torch.tensor_split(x, (1, -1, 9), 1), x.tensor_split(2, -1))",
    "tensor_split_tensor": R + "x = torch.randn(5, 3)\n(torch.tensor_split(x, torch.tensor(2)), torch.tensor_split(x, torch.tensor([1, 3])), torch.tensor_split(x, torch.tensor([0, 2, 4])[::2]))",
    "hvdsplit": R + "x = torch.randn(4, 6, 2)\n(torch.hsplit(x, 3), torch.vsplit(x, [1, 3]), torch.dsplit(x, 2), torch.hsplit(torch.arange(6), [2]), torch.dsplit(x, [1]))",
    "aten_lists": "x = torch.arange(6)\n(torch.ops.aten.tensor_split.sections(x, 4), torch.ops.aten.hsplit.int(x, 2))",
    "bad_column_stack_empty": "torch.column_stack([])",
    "bad_dstack_empty": "torch.dstack([])",
    "bad_split_0dim": "torch.tensor_split(torch.tensor(1.), 2)",
    "bad_sections": "torch.tensor_split(torch.ones(3), 0)",
    "bad_tensor_dtype": "torch.tensor_split(torch.ones(3), torch.tensor([1.]))",
    "bad_tensor_2d": "torch.tensor_split(torch.ones(3), torch.tensor([[1]]))",
    "bad_hsplit": "torch.hsplit(torch.ones(3), 2)",
    "bad_vsplit_dims": "torch.vsplit(torch.ones(3), 3)",
    "bad_dsplit": "torch.dsplit(torch.ones(2, 2, 4), 3)",
})

cases("products", {
    "outer": "a, b = torch.arange(3.), torch.tensor([1., -2.])\n(torch.outer(a, b), torch.ger(a, b), torch.outer(torch.arange(3), torch.tensor([2, 3])), a.outer(b), torch.outer(a, b.double()))",
    "inner": R + "(torch.inner(torch.randn(3), torch.randn(3)), torch.inner(torch.randn(2, 3), torch.randn(4, 3)), torch.inner(torch.tensor(2.), torch.randn(2, 2)), torch.inner(torch.randn(2, 2, 3), torch.randn(3)))",
    "kron": R + "(torch.kron(torch.randn(2, 3), torch.randn(2, 2)), torch.kron(torch.arange(3), torch.arange(2)), torch.kron(torch.randn(2, 1, 2), torch.randn(3)), torch.kron(torch.tensor(2.), torch.randn(2)))",
    "diagflat": "x = torch.tensor([[1., 2.], [3., 4.]])\n(torch.diagflat(x), torch.diagflat(torch.arange(3), 1), torch.diagflat(x.t(), -2))",
    "cartesian_prod": "a, b, c = torch.tensor([1, 2]), torch.tensor([3, 4, 5]), torch.tensor([6])\n(torch.cartesian_prod(a, b), torch.cartesian_prod(a, b, c), torch.cartesian_prod(a) is a)",
    "sum_to_size": R + "x = torch.randn(2, 3, 4)\n(x.sum_to_size(3, 1), x.sum_to_size(1, 3, 4), x.sum_to_size([2, 1, 1]), x.sum_to_size(()), x.sum_to_size(2, 3, 4) is x)",
    "bad_outer": "torch.outer(torch.ones(2, 2), torch.ones(2))",
    "bad_outer_vec2": "torch.outer(torch.ones(2), torch.ones(2, 2))",
    "bad_inner": "torch.inner(torch.ones(2, 3), torch.ones(2))",
    "bad_cartesian": "torch.cartesian_prod(torch.ones(2, 2))",
    "bad_sum_to_size": "torch.ones(2, 3).sum_to_size(3, 3)",
}, tol="float")

grads("shape_composites_grad", {
    "atleast_column_stack": "ps = leaves((3,), (3, 2)); out = torch.column_stack([ps[0], ps[1]]) * torch.arange(3.)[:, None]",
    "dstack": "ps = leaves((2, 3), (2, 3)); out = torch.dstack([ps[0], ps[1]]).sin()",
    "tensor_split": "ps = leaves((5, 3)); out = torch.tensor_split(ps[0], 3)[1] * 2",
    "hsplit": "ps = leaves((2, 4)); out = torch.hsplit(ps[0], [1])[1].exp()",
    "outer_kron": "ps = leaves((3,), (2,)); out = torch.outer(ps[0], ps[1]) + torch.kron(ps[0], ps[1]).reshape(3, 2)",
    "inner": "ps = leaves((2, 3), (4, 3)); out = torch.inner(ps[0], ps[1])",
    "diagflat": "ps = leaves((2, 2)); out = torch.diagflat(ps[0], 1) * torch.arange(5.)",
    "diag_embed": "ps = leaves((2, 3)); out = torch.diag_embed(ps[0], 1, 0, 2).sin()",
    "cartesian_prod": "ps = leaves((2,), (3,)); out = torch.cartesian_prod(ps[0], ps[1]) * torch.arange(2.)",
    "sum_to_size": "ps = leaves((2, 3, 4)); out = ps[0].sum_to_size(3, 1) * torch.tensor([[1.], [2.], [3.]])",
})

cases("angles", {
    "deg2rad": "x = torch.tensor([[0., 90., -180.], [45., 360., 1e-3]])\n(torch.deg2rad(x), torch.deg2rad(x.double()), torch.deg2rad(x.bfloat16()), torch.deg2rad(x.half()), x.deg2rad())",
    "rad2deg": "x = torch.tensor([[0., 1.5707963, -3.1415927], [0.5, 6.2831855, 1e-3]])\n(torch.rad2deg(x), torch.rad2deg(x.double()), torch.rad2deg(x.bfloat16()), x.t().rad2deg())",
    "ints_bools": "(torch.deg2rad(torch.arange(4)), torch.rad2deg(torch.tensor([True, False])), torch.deg2rad(torch.arange(3, dtype=torch.int8)))",
    "empty_0dim_noncontig": "x = torch.arange(12.).reshape(3, 4)\n(torch.deg2rad(torch.tensor(180.)), torch.rad2deg(torch.empty(0, 2)), torch.deg2rad(x.t()), torch.deg2rad(x.t()).stride())",
    "inplace": "x = torch.tensor([180., 90.])\ny = torch.tensor([3.1415927])\n(x.deg2rad_(), x, y.rad2deg_(), torch.deg2rad_(torch.tensor([45.])))",
    "aten": "(torch.ops.aten.deg2rad.default(torch.tensor([30.])), torch.ops.aten.rad2deg.default(torch.tensor([1.])))",
    "bad_complex": "torch.deg2rad(torch.tensor([1j]))",
    "bad_complex_rad": "torch.rad2deg(torch.tensor([1j]))",
    "bad_int_inplace": "torch.arange(3).deg2rad_()",
})

grads("angles_grad", {
    "deg2rad": "ps = leaves((3, 2)); out = torch.deg2rad(ps[0]).sin()",
    "rad2deg": "ps = leaves((4,)); out = torch.rad2deg(ps[0]) * torch.arange(4.)",
    "inplace": "ps = leaves((3,)); out = ps[0] * 2\nout.deg2rad_()",
})
