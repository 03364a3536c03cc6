"""Misc breadth family (src/ops/misc_ops.c, src/ops/random.c, src/core/random.c) compared with
upstream: fft.fftshift / ifftshift, take_along_dim, trapezoid / trapz / cumulative_trapezoid
(.x and .dx), combinations, and the random fills cauchy_ / log_normal_ / geometric_ (same
generator draws as upstream: values bit-exact after torch.manual_seed). Dtypes, 0-dim and empty
inputs, non-contiguous inputs, every spelling, gradients and recorded graphs, upstream's errors."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"

cases("fftshift", {
    "default": "x = torch.arange(12.).reshape(3, 4)\n(torch.fft.fftshift(x), torch.fft.ifftshift(x), torch.fft.fftshift(torch.arange(5)), torch.fft.ifftshift(torch.arange(5)))",
    "dims": "x = torch.arange(24.).reshape(2, 3, 4)\n(torch.fft.fftshift(x, dim=1), torch.fft.ifftshift(x, dim=(-1, 0)), torch.fft.fftshift(x, -2), torch.fft.ifftshift(x, (2,)))",
    "dtypes": "x = torch.arange(6).reshape(2, 3)\n(torch.fft.fftshift(x.double()), torch.fft.fftshift(x.bfloat16()), torch.fft.ifftshift(x.to(torch.complex64)), torch.fft.fftshift(x.bool()))",
    "noncontig_empty": "x = torch.arange(12.).reshape(3, 4).t()\n(torch.fft.fftshift(x), torch.fft.ifftshift(x[::2]), torch.fft.fftshift(torch.empty(0, 3)))",
    "aten": "x = torch.arange(6.)\n(torch.ops.aten.fft_fftshift.default(x), torch.ops.aten.fft_ifftshift.default(x, [0]))",
    "bad_0dim": "torch.fft.fftshift(torch.tensor(1.))",
    "bad_dim": "torch.fft.fftshift(torch.ones(2, 3), dim=2)",
})

cases("take_along_dim", {
    "dim": "x = torch.arange(12.).reshape(3, 4)\ni = torch.tensor([[0, 3], [1, -1], [2, 0]])\n(torch.take_along_dim(x, i, dim=1), torch.take_along_dim(x, i.argsort(0)[:1], 0), x.take_along_dim(i, -1))",
    "broadcast": "x = torch.arange(24).reshape(2, 3, 4)\ni = torch.tensor([[[1], [0], [2]]])\n(torch.take_along_dim(x, i, 2), torch.take_along_dim(x, torch.tensor([[[0, 1]]]), dim=1))",
    "flat": "x = torch.arange(12.).reshape(3, 4)\n(torch.take_along_dim(x, torch.tensor([0, 5, 11])), torch.take_along_dim(x, torch.tensor([[1, 2]])))",
    "dtypes": R + "x = torch.randn(3, 4)\ni = torch.argsort(x, dim=1)\n(torch.take_along_dim(x.double(), i, 1), torch.take_along_dim(x.bfloat16(), i, 1), torch.take_along_dim(x > 0, i, 1), torch.take_along_dim(x.to(torch.complex64), i, 1))",
    "noncontig_empty": "x = torch.arange(12.).reshape(3, 4).t()\ni = torch.tensor([[2, 0, 1]]).expand(4, 3)\n(torch.take_along_dim(x, i, 1), torch.take_along_dim(torch.empty(0, 3), torch.empty(0, 1, dtype=torch.long), 1))",
    "aten": "x = torch.arange(6.).reshape(2, 3)\n(torch.ops.aten.take_along_dim.default(x, torch.tensor([[2], [0]]), 1), torch.ops.aten.take_along_dim.default(x, torch.tensor([4])))",
    "bad_ndim": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([0]), 1)",
    "bad_dtype": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([[0]], dtype=torch.int32), 1)",
    "bad_dim": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([[0]]), 2)",
    "bad_shape": "torch.take_along_dim(torch.ones(2, 3), torch.zeros(3, 1, dtype=torch.long), 1)",
    "bad_index": "torch.take_along_dim(torch.ones(2, 3), torch.tensor([[5]]), 1)",
    "bad_flat_noncontig": "torch.take_along_dim(torch.ones(2, 3).t(), torch.tensor([0]))",
})

cases("trapezoid", {
    "x": R + "y, x = torch.randn(3, 5), torch.randn(5).sort().values\n(torch.trapezoid(y, x), torch.trapz(y, x), torch.trapezoid(y, x.expand(3, 5)), torch.trapezoid(y.t(), x[:3], dim=0), torch.trapezoid(y, torch.randn(3, 1, 5)))",
    "dx": R + "y = torch.randn(3, 5)\n(torch.trapezoid(y), torch.trapezoid(y, dx=0.5), torch.trapz(y, dx=2), torch.trapezoid(y, dx=3, dim=0), torch.trapezoid(y, dim=-2))",
    "dtypes": "y = torch.arange(12).reshape(3, 4)\n(torch.trapezoid(y), torch.trapezoid(y, dx=2), torch.trapezoid(y.double(), torch.arange(4)), torch.trapezoid(y.bfloat16()), torch.trapezoid(y.to(torch.complex64), dx=0.5))",
    "empty_noncontig": R + "y = torch.randn(4, 6)[:, ::2]\n(torch.trapezoid(y), torch.trapezoid(torch.empty(3, 0)), torch.trapezoid(torch.empty(0, 3), dim=0), torch.trapezoid(torch.empty(3, 0), torch.empty(0)), torch.trapezoid(torch.ones(5)))",
    "aten": "y = torch.arange(6.).reshape(2, 3)\n(torch.ops.aten.trapezoid.x(y, torch.tensor([0., 1., 3.])), torch.ops.aten.trapezoid.dx(y, dx=2), torch.ops.aten.trapz.x(y, torch.tensor([0., 1., 3.])), torch.ops.aten.trapz.dx(y, dx=0.5))",
    "bad_bool": "torch.trapezoid(torch.ones(3, dtype=torch.bool))",
    "bad_bool_x": "torch.trapezoid(torch.ones(3), torch.ones(3, dtype=torch.bool))",
    "bad_x_len": "torch.trapezoid(torch.ones(2, 3), torch.ones(4))",
    "bad_dx": "torch.trapezoid(torch.ones(3), dx=1j)",
    "bad_dim": "torch.trapezoid(torch.ones(3), dim=1)",
    "bad_0dim": "torch.trapezoid(torch.tensor(1.))",
})

cases("cumulative_trapezoid", {
    "x": R + "y, x = torch.randn(3, 5), torch.randn(5).sort().values\n(torch.cumulative_trapezoid(y, x), torch.cumulative_trapezoid(y, x.expand(3, 5)), torch.cumulative_trapezoid(y.t(), x[:3], dim=0))",
    "dx": R + "y = torch.randn(3, 5)\n(torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, dx=0.5), torch.cumulative_trapezoid(y, dx=3, dim=0))",
    "dtypes": "y = torch.arange(12).reshape(3, 4)\n(torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y.double(), torch.arange(4)), torch.cumulative_trapezoid(y.bfloat16()), torch.cumulative_trapezoid(y, dx=2))",
    "empty_noncontig": R + "y = torch.randn(4, 6)[:, ::2]\n(torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(torch.empty(3, 0)), torch.cumulative_trapezoid(torch.ones(1)))",
    "aten": "y = torch.arange(6.).reshape(2, 3)\n(torch.ops.aten.cumulative_trapezoid.x(y, torch.tensor([0., 1., 3.])), torch.ops.aten.cumulative_trapezoid.dx(y, dx=2))",
    "bad_bool": "torch.cumulative_trapezoid(torch.ones(3, dtype=torch.bool))",
    "bad_bool_x": "torch.cumulative_trapezoid(torch.ones(3), torch.ones(3, dtype=torch.bool))",
    "bad_x_len": "torch.cumulative_trapezoid(torch.ones(2, 3), torch.ones(4))",
    "bad_dx": "torch.cumulative_trapezoid(torch.ones(3), dx=True)",
    "bad_0dim": "torch.cumulative_trapezoid(torch.tensor(1.), torch.tensor([1.]))",
})

cases("combinations", {
    "basic": "x = torch.tensor([1., 2., 3., 4.])\n(torch.combinations(x), torch.combinations(x, 3), torch.combinations(x, r=2, with_replacement=True), torch.combinations(x, 1), torch.combinations(x, 0))",
    "dtypes": "x = torch.arange(3)\n(torch.combinations(x), torch.combinations(x.bool(), with_replacement=True), torch.combinations(x.double(), 3, True), torch.combinations(x.to(torch.complex64)))",
    "empty_noncontig": "x = torch.arange(10.)[::3]\n(torch.combinations(x), torch.combinations(torch.empty(0)), torch.combinations(torch.ones(2), 5))",
    "aten": "torch.ops.aten.combinations.default(torch.arange(3.), 2, True)",
    "bad_2d": "torch.combinations(torch.ones(2, 2))",
    "bad_r": "torch.combinations(torch.ones(3), -1)",
})

cases("random_fills", {
    "cauchy": R + "x = torch.empty(3, 4)\n(x.cauchy_(), torch.empty(5, dtype=torch.float64).cauchy_(1., 0.5), torch.empty(4, dtype=torch.bfloat16).cauchy_(), torch.empty(4, dtype=torch.float16).cauchy_(median=-2, sigma=3))",
    "log_normal": R + "(torch.empty(3, 4).log_normal_(), torch.empty(5, dtype=torch.float64).log_normal_(0., 0.25), torch.empty(3, dtype=torch.bfloat16).log_normal_(mean=0.5, std=1), torch.randn(1).log_normal_(), torch.empty(2, 3, dtype=torch.float64).log_normal_())",
    "geometric": R + "(torch.empty(3, 4).geometric_(0.3), torch.empty(5, dtype=torch.float64).geometric_(0.9), torch.empty(6, dtype=torch.long).geometric_(0.2), torch.empty(4, dtype=torch.int8).geometric_(p=0.5), torch.empty(3, dtype=torch.uint8).geometric_(0.7), torch.empty(3, dtype=torch.bfloat16).geometric_(0.4))",
    "noncontig": R + "x = torch.zeros(4, 6)\n(x[:, ::2].cauchy_(), x.t()[1:3].log_normal_(), torch.zeros(3, 4).t().geometric_(0.5), x)",
    "generator": "g = torch.Generator().manual_seed(3)\n(torch.empty(4).cauchy_(generator=g), torch.empty(4).log_normal_(generator=g), torch.empty(4).geometric_(0.5, generator=g), torch.empty(2).cauchy_(generator=torch.Generator().manual_seed(3)))",
    "state_after": R + "torch.empty(3).log_normal_()\ntorch.empty(3).cauchy_()\ntorch.empty(2).geometric_(0.5)\n(torch.randn(3), torch.rand(2))",
    "empty": "(torch.empty(0).cauchy_(), torch.empty(0, 3).log_normal_(), torch.empty(0, dtype=torch.long).geometric_(0.5), torch.empty(0, dtype=torch.long).log_normal_())",
    "aten": R + "(torch.ops.aten.cauchy_.default(torch.empty(3)), torch.ops.aten.log_normal_.default(torch.empty(3), 1., 2.), torch.ops.aten.geometric_.default(torch.empty(3), 0.5))",
    "bad_sigma": "torch.empty(3).cauchy_(sigma=0)",
    "bad_cauchy_int": "torch.empty(3, dtype=torch.long).cauchy_()",
    "bad_std": "torch.empty(3).log_normal_(std=-1)",
    "bad_log_normal_int": "torch.empty(3, dtype=torch.long).log_normal_()",
    "bad_p": "torch.empty(3).geometric_(1.5)",
    "bad_p0": "torch.empty(3).geometric_(0)",
    "bad_geometric_bool": "torch.empty(3, dtype=torch.bool).geometric_(0.5)",
    "bad_geometric_complex": "torch.empty(3, dtype=torch.complex64).geometric_(0.5)",
})

grads("misc_ops_grad", {
    "fftshift": "ps = leaves((3, 4)); out = torch.fft.fftshift(ps[0]) * torch.arange(12.).reshape(3, 4) + torch.fft.ifftshift(ps[0], dim=0)",
    "take_along_dim": "ps = leaves((3, 4)); out = torch.take_along_dim(ps[0], torch.tensor([[0, 0], [3, 1], [2, -1]]), dim=1).exp()",
    "take_along_dim_flat": "ps = leaves((3, 4)); out = torch.take_along_dim(ps[0], torch.tensor([1, 1, 7])) * torch.tensor([1., 2., 3.])",
    "trapezoid_x": "ps = leaves((3, 5), (5,)); out = torch.trapezoid(ps[0].sin(), ps[1])",
    "trapezoid_dx": "ps = leaves((3, 5)); out = torch.trapezoid(ps[0] * ps[0], dx=0.5, dim=0) + torch.trapz(ps[0], dx=2)",
    "cumulative_trapezoid": "ps = leaves((3, 5), (3, 5)); out = torch.cumulative_trapezoid(ps[0], ps[1]) + torch.cumulative_trapezoid(ps[0].exp(), dx=0.25)",
    "combinations": "ps = leaves((4,)); out = torch.combinations(ps[0], 3).prod(1) + torch.combinations(ps[0], 2, True).sum(1).sum()",
})

# ---- *_scatter, unfold, aminmax, nonzero_static, empty_permuted (src/ops/misc.def) ----

cases("scatter_views", {
    "select": "x, s = torch.zeros(3, 4), torch.arange(4.)\n(torch.select_scatter(x, s, 0, 1), x.select_scatter(s[:3], 1, -1), torch.select_scatter(torch.zeros(2, 3, dtype=torch.long), torch.ones(2, dtype=torch.long), 1, 0))",
    "slice": "x = torch.zeros(4, 6)\n(torch.slice_scatter(x, torch.ones(2, 6)), torch.slice_scatter(x, torch.ones(4, 2), dim=1, start=1, end=5, step=2), x.slice_scatter(torch.ones(1, 6), 0, -1), torch.slice_scatter(x, torch.ones(4, 3), 1, None, None, 2))",
    "diagonal": "x = torch.zeros(3, 4)\n(torch.diagonal_scatter(x, torch.arange(3.)), torch.diagonal_scatter(x, torch.ones(3), 1), x.diagonal_scatter(torch.ones(2), -1), torch.diagonal_scatter(torch.zeros(2, 3, 3), torch.ones(3, 2), 0, 0, 2))",
    "as_strided": "x = torch.zeros(3, 4)\n(torch.as_strided_scatter(x, torch.arange(4.).reshape(2, 2), (2, 2), (1, 2)), torch.as_strided_scatter(x, torch.ones(3), (3,), (5,), 1), x.as_strided_scatter(torch.ones(2), [2], [4], 2))",
    "strides_kept": "x = torch.zeros(4, 3).t()\nr = (torch.select_scatter(x, torch.ones(4), 0, 0), torch.slice_scatter(x, torch.ones(3, 2), 1, 0, 2), torch.diagonal_scatter(x, torch.ones(3)))\n(r, [t.stride() for t in r], [t.storage_offset() for t in r])",
    "offset_view": "base = torch.arange(12.)\nx = base[2:8].view(2, 3)\nr = torch.select_scatter(x, torch.zeros(3), 0, 1)\n(r, r.stride(), r.storage_offset(), base)",
    "expanded_self": "x = torch.zeros(3).expand(2, 3)\nr = torch.select_scatter(x, torch.ones(3), 0, 0)\n(r, r.stride())",
    "dtypes_cast": "(torch.select_scatter(torch.zeros(2, 2, dtype=torch.float64), torch.ones(2), 0, 0), torch.slice_scatter(torch.zeros(3, dtype=torch.bfloat16), torch.ones(1, dtype=torch.bfloat16), 0, 1, 2), torch.diagonal_scatter(torch.zeros(2, 2, dtype=torch.bool), torch.ones(2, dtype=torch.bool)))",
    "empty_0dim": "(torch.slice_scatter(torch.zeros(3), torch.ones(0), 0, 1, 1), torch.select_scatter(torch.zeros(3), torch.tensor(5.), 0, 2), torch.diagonal_scatter(torch.zeros(0, 2), torch.ones(0)))",
    "aten": "x = torch.zeros(2, 3)\n(torch.ops.aten.select_scatter.default(x, torch.ones(3), 0, 0), torch.ops.aten.slice_scatter.default(x, torch.ones(2, 1), 1, 2), torch.ops.aten.diagonal_scatter.default(x, torch.ones(2)), torch.ops.aten.as_strided_scatter.default(x, torch.ones(2), [2], [1]))",
    "bad_select_size": "torch.select_scatter(torch.zeros(3, 4), torch.ones(3), 0, 0)",
    "bad_select_index": "torch.select_scatter(torch.zeros(3, 4), torch.ones(4), 0, 5)",
    "bad_slice_size": "torch.slice_scatter(torch.zeros(3, 4), torch.ones(3, 4), 0, 1)",
    "bad_diagonal_size": "torch.diagonal_scatter(torch.zeros(3, 4), torch.ones(4))",
    "bad_as_strided_size": "torch.as_strided_scatter(torch.zeros(3, 4), torch.ones(3), (2,), (1,))",
    "bad_as_strided_bounds": "torch.as_strided_scatter(torch.zeros(3, 4), torch.ones(5), (5,), (3,))",
})

cases("unfold", {
    "basic": "x = torch.arange(12.).reshape(3, 4)\nr = (x.unfold(1, 2, 1), x.unfold(0, 2, 1), x.unfold(-1, 3, 2), x.unfold(1, 4, 5), x.unfold(1, 0, 1))\n(r, [t.stride() for t in r], [t._base is x for t in r])",
    "noncontig_dtypes": "x = torch.arange(24).reshape(2, 3, 4).transpose(0, 2)\n(x.unfold(0, 2, 2), x.unfold(2, 1, 1).stride(), x.double().unfold(1, 2, 1), x.bool().unfold(0, 3, 1))",
    "zero_dim_empty": "x = torch.tensor(5.)\n(x.unfold(0, 1, 1), x.unfold(0, 0, 2), x.unfold(-1, 1, 1).stride(), torch.empty(0, 3).unfold(1, 2, 1).shape)",
    "copy": "x = torch.arange(10.).reshape(2, 5)\nr = torch.unfold_copy(x, 1, 3, 2)\n(r, r.stride(), r._is_view(), torch.unfold_copy(x.t(), 0, 2, 1))",
    "inplace_through_view": "x = torch.zeros(6)\nx.unfold(0, 2, 2).add_(torch.tensor([1., 2.]))\nx",
    "backward_op": "g = torch.arange(18.).reshape(3, 2, 3)\n(torch.ops.aten.unfold_backward(g, [3, 4], 1, 3, 1), torch.ops.aten.unfold_backward(torch.ones(3, 2, 2), [3, 4], 1, 2, 2), torch.ops.aten.unfold_backward(torch.ones(2, 4, 2), [2, 9], 1, 2, 2), torch.ops.aten.unfold_backward(torch.ones(4, 3, 3).double(), [10, 3], 0, 3, 2))",
    "backward_op_lowp": R + "g = torch.randn(5, 4).bfloat16()\ntorch.ops.aten.unfold_backward(g, [8], 0, 4, 1)",
    "aten": "x = torch.arange(6.)\n(torch.ops.aten.unfold.default(x, 0, 2, 1), torch.ops.aten.unfold_copy.default(x, 0, 3, 3))",
    "bad_size": "torch.ones(3, 4).unfold(1, 5, 1)",
    "bad_neg_size": "torch.ones(3, 4).unfold(1, -1, 1)",
    "bad_step": "torch.ones(3, 4).unfold(1, 2, 0)",
    "bad_dim": "torch.ones(3, 4).unfold(2, 2, 1)",
})

cases("aminmax", {
    "all": R + "x = torch.randn(3, 4)\n(torch.aminmax(x), x.aminmax(), torch.aminmax(x, keepdim=True), torch.aminmax(torch.tensor(2.)))",
    "dim": R + "x = torch.randn(3, 4)\n(torch.aminmax(x, dim=0), torch.aminmax(x, dim=-1, keepdim=True), x.t().aminmax(dim=1), torch.aminmax(torch.tensor(2.), dim=0))",
    "dtypes": "x = torch.tensor([[3, -1, 7], [0, 5, -8]])\n(torch.aminmax(x), torch.aminmax(x.to(torch.int8), dim=1), torch.aminmax(x.bool()), torch.aminmax(x.double(), dim=0), torch.aminmax(x.bfloat16()), torch.aminmax(x.half(), dim=1))",
    "nan": "x = torch.tensor([[1., float('nan'), 3.], [2., 0., -1.]])\n(torch.aminmax(x), torch.aminmax(x, dim=1), torch.aminmax(x, dim=0))",
    "out": "mn, mx = torch.empty(0), torch.empty(0)\nr = torch.aminmax(torch.arange(6.).reshape(2, 3), dim=1, out=(mn, mx))\n(r, mn, mx, r.min is mn)",
    "empty_dim": "torch.aminmax(torch.empty(0, 3), dim=1)",
    "aten": "(torch.ops.aten.aminmax.default(torch.arange(4.)), torch.ops.aten.aminmax.out(torch.arange(4.), dim=0, min=torch.empty(0), max=torch.empty(0)))",
    "bad_empty": "torch.aminmax(torch.empty(0, 3))",
    "bad_empty_dim": "torch.aminmax(torch.empty(0, 3), dim=0)",
    "bad_dim": "torch.aminmax(torch.ones(2, 3), dim=2)",
    "bad_complex": "torch.aminmax(torch.ones(2, dtype=torch.complex64))",
})

cases("nonzero_static", {
    "basic": "x = torch.tensor([[0, 1, 0], [2, 0, 3]])\n(torch.nonzero_static(x, size=2), torch.nonzero_static(x, size=5), torch.nonzero_static(x, size=5, fill_value=7), x.nonzero_static(size=0))",
    "dtypes": "x = torch.tensor([0., -1., 0., 2.5])\n(torch.nonzero_static(x, size=3), torch.nonzero_static(x.bool(), size=1), torch.nonzero_static(x.double(), size=4, fill_value=-5))",
    "zero_dim_empty_noncontig": "(torch.nonzero_static(torch.tensor(1.), size=2), torch.nonzero_static(torch.tensor(0), size=1), torch.nonzero_static(torch.empty(0, 3), size=2), torch.nonzero_static(torch.tensor([[1, 0], [0, 1]]).t(), size=3))",
    "aten": "torch.ops.aten.nonzero_static.default(torch.tensor([1, 0, 1]), size=3)",
    "bad_size": "torch.nonzero_static(torch.ones(3), size=-1)",
})

cases("empty_permuted", {
    # uninitialised values: only the metadata leaves the snippet (upstream's result through
    # torch.ops.aten reports _is_view() True, through torch.empty_permuted False: not compared)
    "meta": "def m(t): return (t.shape, t.stride(), t.dtype, t._is_view(), t.is_contiguous())\n[m(torch.empty_permuted((2, 3, 4), (0, 2, 1))), m(torch.empty_permuted((2, 3), (1, 0), dtype=torch.float64)), m(torch.empty_permuted((5,), (0,), dtype=torch.long)), m(torch.empty_permuted((), ())), m(torch.empty_permuted((2, 0, 3), (2, 0, 1)))]",
    "aten": "def m(t): return (t.shape, t.stride(), t.dtype)\nm(torch.ops.aten.empty_permuted.default([2, 3], [1, 0]))",
    "bad_len": "torch.empty_permuted((2, 3), (0,))",
    "bad_dim": "torch.empty_permuted((2, 3), (0, 2))",
    "bad_neg": "torch.empty_permuted((2, 3), (0, -1))",
    "bad_dup": "torch.empty_permuted((2, 3), (0, 0))",
})

grads("misc_ops_grad2", {
    "select_scatter": "ps = leaves((3, 4), (4,)); out = torch.select_scatter(ps[0], ps[1].exp(), 0, 1) * torch.arange(12.).reshape(3, 4)",
    "slice_scatter": "ps = leaves((4, 6), (4, 2)); out = torch.slice_scatter(ps[0].sin(), ps[1], 1, 1, 5, 2) * torch.arange(24.).reshape(4, 6)",
    "diagonal_scatter": "ps = leaves((3, 4), (3,)); out = torch.diagonal_scatter(ps[0], ps[1] * 2, 1) * torch.arange(12.).reshape(3, 4)",
    "unfold_overlap": "ps = leaves((3, 5)); out = ps[0].unfold(1, 3, 1) * torch.arange(27.).reshape(3, 3, 3)",
    "unfold_strided": "ps = leaves((7, 2)); out = ps[0].unfold(0, 2, 3).exp()",
    "unfold_copy": "ps = leaves((6,)); out = torch.unfold_copy(ps[0], 0, 4, 1) * torch.arange(12.).reshape(3, 4)",
    "aminmax_dim": "ps = leaves((3, 4)); mn, mx = torch.aminmax(ps[0], dim=1); out = mn * 2 + mx * torch.tensor([1., 2., 3.])",
    "aminmax_all": "ps = [torch.tensor([[1., 3., 3.], [1., 0., 2.]], requires_grad=True)]; mn, mx = torch.aminmax(ps[0]); out = mn * 3 + mx",
    "aminmax_keepdim_max_only": "ps = leaves((3, 4)); out = torch.aminmax(ps[0], dim=0, keepdim=True)[1] * torch.arange(4.)",
})

# ---- unsafe_split / unsafe_chunk, put / put_, masked_scatter, resize_as_ ----

cases("unsafe_split", {
    "split": "x = torch.arange(12.).reshape(3, 4)\nr = x.unsafe_split(2, 1)\n(r, [t._is_view() for t in r], [t.stride() for t in r], [t.storage_offset() for t in r], torch.unsafe_split(x, 2))",
    "with_sizes": "x = torch.arange(10)\n(torch.unsafe_split_with_sizes(x, [3, 7]), x.unsafe_split_with_sizes([0, 10]), torch.unsafe_split(x, [4, 6]))",
    "chunk": "x = torch.arange(12.).reshape(3, 4).t()\nr = x.unsafe_chunk(3, 1)\n(r, [t._is_view() for t in r], torch.unsafe_chunk(x, 2), torch.unsafe_chunk(torch.empty(0, 2), 3), torch.unsafe_chunk(x.bool(), 5, -1))",
    "aten": "x = torch.arange(6.)\n(torch.ops.aten.unsafe_split.Tensor(x, 4), torch.ops.aten.unsafe_chunk.default(x, 2), torch.ops.aten.unsafe_split_with_sizes.default(x, [1, 5]))",
    "bad_0dim": "torch.unsafe_chunk(torch.tensor(1.), 2)",
    "bad_chunks": "torch.unsafe_chunk(torch.ones(3), 0)",
    "bad_split_size": "torch.unsafe_split(torch.ones(3), -1)",
    "bad_dim": "torch.unsafe_split(torch.ones(3), 1, 1)",
})

cases("put", {
    "basic": "x = torch.zeros(2, 3)\n(torch.put(x, torch.tensor([0, 4, -1]), torch.tensor([1., 2., 3.])), x.put(torch.tensor([[1, 1], [2, 0]]), torch.tensor([5., 6., 7., 8.])), x)",
    "accumulate": R + "x = torch.randn(2, 3)\n(torch.put(x, torch.tensor([1, 1, 5, 1]), torch.randn(4), accumulate=True), x.put(torch.tensor([0, -6]), torch.tensor([1., 2.]), True))",
    "inplace": "x = torch.zeros(2, 3)\ny = x.put_(torch.tensor([1, 5]), torch.tensor([3., 4.]))\nz = torch.zeros(4, dtype=torch.long)\n(y is x, x, z.put_(torch.tensor([0, 0, 3]), torch.tensor([1, 2, 3]), accumulate=True))",
    "noncontig": "x = torch.zeros(3, 4).t()\n(x.put_(torch.tensor([0, 1, 5]), torch.tensor([1., 2., 3.])), x, x.contiguous())",
    "dtypes": "i = torch.tensor([0, 2, 2])\n(torch.put(torch.zeros(3, dtype=torch.float64), i, torch.ones(3, dtype=torch.float64), True), torch.put(torch.zeros(3, dtype=torch.bfloat16), i, torch.tensor([0.1, 0.2, 0.3], dtype=torch.bfloat16), True), torch.put(torch.zeros(3, dtype=torch.bool), i, torch.tensor([True, False, True]), True), torch.put(torch.zeros(3, dtype=torch.int8), i, torch.tensor([100, 100, 100], dtype=torch.int8), True), torch.put(torch.zeros(3, dtype=torch.complex64), i, torch.ones(3, dtype=torch.complex64) * 1j, True))",
    "empty": "(torch.put(torch.empty(0), torch.tensor([], dtype=torch.long), torch.tensor([])), torch.put(torch.zeros(2), torch.empty(0, 3, dtype=torch.long), torch.empty(0)))",
    "aten": "x = torch.zeros(3)\n(torch.ops.aten.put.default(x, torch.tensor([1]), torch.tensor([2.])), torch.ops.aten.put_.default(x, torch.tensor([2]), torch.tensor([3.]), True))",
    "bad_range": "torch.zeros(2, 3).put_(torch.tensor([6]), torch.tensor([1.]))",
    "bad_neg_range": "torch.put(torch.zeros(2, 3), torch.tensor([-7]), torch.tensor([1.]))",
    "bad_numel": "torch.zeros(2, 3).put_(torch.tensor([1]), torch.tensor([1., 2.]))",
    "bad_index_dtype": "torch.zeros(2, 3).put_(torch.tensor([1.]), torch.tensor([1.]))",
    "bad_dtype": "torch.zeros(2, 3).put_(torch.tensor([1]), torch.tensor([1]))",
    "bad_empty": "torch.empty(0).put_(torch.tensor([0]), torch.tensor([1.]))",
})

cases("masked_scatter", {
    "basic": "x = torch.zeros(2, 3)\nm = torch.tensor([[True, False, True], [False, True, True]])\n(torch.masked_scatter(x, m, torch.arange(10.)), x.masked_scatter(m, torch.arange(4.).reshape(2, 2)), x)",
    "broadcast": "x = torch.zeros(2, 3)\n(torch.masked_scatter(x, torch.tensor([True, False, True]), torch.arange(10.)), torch.masked_scatter(torch.zeros(3), torch.ones(2, 3, dtype=torch.bool), torch.arange(10.)), torch.masked_scatter(torch.zeros(2, 1), torch.tensor([[True, False]]), torch.arange(2.)))",
    "inplace_noncontig": "x = torch.zeros(3, 2).t()\nm = torch.tensor([[True, False, True], [False, True, False]])\ny = x.masked_scatter_(m, torch.tensor([1., 2., 3.]))\n(y is x, x, x.contiguous())",
    "dtypes": "m = torch.tensor([True, False, True])\n(torch.masked_scatter(torch.zeros(3, dtype=torch.long), m, torch.tensor([7, 8])), torch.masked_scatter(torch.zeros(3, dtype=torch.bfloat16), m, torch.ones(2, dtype=torch.bfloat16)), torch.masked_scatter(torch.zeros(3, dtype=torch.bool), m, torch.tensor([True, True])), torch.masked_scatter(torch.zeros(3, dtype=torch.complex64), m, torch.ones(2, dtype=torch.complex64)))",
    "empty_0dim": "(torch.masked_scatter(torch.zeros(0, 2), torch.zeros(0, 2, dtype=torch.bool), torch.ones(3)), torch.masked_scatter(torch.tensor(0.), torch.tensor(True), torch.tensor([5.])), torch.masked_scatter(torch.zeros(2), torch.tensor(False), torch.empty(0)))",
    "backward_op": "g = torch.arange(6.).reshape(2, 3)\nm = torch.tensor([[True, False, True], [False, False, True]])\n(torch.ops.aten.masked_scatter_backward(g, m, [5]), torch.ops.aten.masked_scatter_backward(g, m, [3]), torch.ops.aten.masked_scatter_backward(g, m, [2, 2]))",
    "aten": "x, m = torch.zeros(3), torch.tensor([True, False, True])\n(torch.ops.aten.masked_scatter.default(x, m, torch.ones(2)), torch.ops.aten.masked_scatter_.default(x, m, torch.ones(2) * 2))",
    "bad_count": "torch.zeros(2, 3).masked_scatter_(torch.tensor([True, False, True]), torch.arange(3.))",
    "bad_mask": "torch.zeros(2, 3).masked_scatter_(torch.tensor([1, 0, 1]), torch.arange(10.))",
    "bad_dtype": "torch.zeros(2, 3).masked_scatter_(torch.tensor([True, False, True]), torch.arange(10))",
    "bad_expand": "torch.zeros(2, 3).masked_scatter_(torch.ones(2, 2, dtype=torch.bool), torch.arange(10.))",
    "bad_broadcast": "torch.masked_scatter(torch.zeros(2, 3), torch.ones(4, 1, dtype=torch.bool).t(), torch.arange(10.))",
})

cases("resize_as", {
    "basic": "x = torch.arange(6.)\ny = x.resize_as_(torch.empty(2, 3))\n(y is x, x, x.resize_as_(torch.empty(2)).shape, torch.resize_as_(torch.zeros(2), torch.empty(3, 2, 2)).shape)",
    "memory_format": "x = torch.zeros(24)\nx.resize_as_(torch.empty(1, 2, 3, 4), memory_format=torch.channels_last)\n(x.shape, x.stride())",
    "aten": "(torch.ops.aten.resize_as_.default(torch.zeros(4), torch.empty(2, 2)).shape, torch.zeros(2, 2).resize_as_(torch.tensor(1.)).shape)",
})

grads("misc_ops_grad3", {
    "unsafe_split": "ps = leaves((3, 4)); a, b = ps[0].unsafe_split(2, 1); out = a * b",
    "unsafe_chunk": "ps = leaves((6, 2)); a, b, c = torch.unsafe_chunk(ps[0], 3); out = a.exp() + c",
    "put": "ps = leaves((2, 3), (2,)); out = torch.put(ps[0], torch.tensor([0, 4]), ps[1].exp()) * torch.arange(6.).reshape(2, 3)",
    "put_accumulate": "ps = leaves((2, 3), (3,)); out = torch.put(ps[0].sin(), torch.tensor([1, 1, 5]), ps[1], accumulate=True) * torch.arange(6.).reshape(2, 3)",
    "masked_scatter": "ps = leaves((2, 3), (5,)); out = torch.masked_scatter(ps[0], torch.tensor([[True, False, True], [False, True, False]]), ps[1] * 2) * torch.arange(6.).reshape(2, 3)",
    "masked_scatter_bcast": "ps = leaves((3,), (6,)); out = torch.masked_scatter(ps[0], torch.tensor([[True, False, True], [True, True, False]]), ps[1])",
})

# ---- complex dtypes of addcmul / addcdiv / lerp (src/ops/blend.c), trace (arrange.c), index_add
# (index_dim.c); complex products under the float rule (upstream's vectorised loops order them
# differently), sums exact ----

CX = "torch.manual_seed(0)\ndef c(*s, dt=torch.complex64): return torch.randn(*s, dtype=dt)\n"

cases("complex_blend", {
    "addcmul": CX + "x, a, b = c(3, 4), c(3, 4), c(4)\n(torch.addcmul(x, a, b), torch.addcmul(x, a, b, value=0.5), torch.addcmul(x, a, b, value=2 - 1j), x.double().to(torch.complex128).addcmul(a.to(torch.complex128), b.to(torch.complex128), value=3))",
    "addcdiv": CX + "x, a, b = c(3, 4), c(3, 4), c(3, 1)\n(torch.addcdiv(x, a, b), torch.addcdiv(x, a, b, value=-0.25), torch.addcdiv(x, a, b, value=1j), torch.addcdiv(x.to(torch.complex128), a.to(torch.complex128), b.to(torch.complex128)))",
    "addcdiv_zero": "x = torch.zeros(2, dtype=torch.complex64)\ntorch.addcdiv(x, torch.ones(2, dtype=torch.complex64), torch.tensor([0j, 1e-30 + 0j], dtype=torch.complex64))",
    "lerp": CX + "x, y = c(3, 4), c(3, 4)\n(torch.lerp(x, y, 0.3), torch.lerp(x, y, 0.8), torch.lerp(x, y, 0.1 + 0.6j), torch.lerp(x, y, c(4)), x.to(torch.complex128).lerp(y.to(torch.complex128), 0.7))",
    # out= into an empty tensor with a transposed self: upstream's result takes self's layout, ours
    # is contiguous for every dtype (blend.c's run3; not a complex matter): out= here is contiguous
    "inplace_out_noncontig": CX + "x, a, b = c(4, 3).t(), c(3, 4), c(3, 4)\no = torch.empty(0, dtype=torch.complex64)\n(x.clone().addcmul_(a, b), torch.addcdiv(x, a, b), torch.addcdiv(x.contiguous(), a, b, out=o), o, x.clone().lerp_(a, 0.4))",
    "promote": CX + "(torch.addcmul(c(3), torch.randn(3), torch.randn(3)), torch.addcdiv(torch.randn(3), c(3), torch.randn(3)))",
    "bad_lerp_dtype": CX + "torch.lerp(c(3), torch.randn(3), 0.5)",
}, tol="float")

cases("complex_reduce", {
    "trace": CX + "x = c(3, 4)\n(torch.trace(x), torch.trace(x.to(torch.complex128)), x.t().trace(), torch.trace(c(0, 3)), torch.ops.aten.trace.default(c(2, 2)))",
    "index_add": CX + "x, s = c(4, 3), c(2, 3)\ni = torch.tensor([3, 3])\n(torch.index_add(x, 0, i, s), torch.index_add(x, 1, torch.tensor([0, 2, 0]), c(4, 3)), torch.index_add(x, 0, i, s, alpha=2), torch.index_add(c(5), 0, torch.tensor([1, 4, 1]), c(3), alpha=-0.5), x.to(torch.complex128).index_add_(0, i, s.to(torch.complex128)))",
}, tol="float")

cases("block_diag", {
    "basic": "a, b, c = torch.arange(6.).reshape(2, 3), torch.tensor([7., 8.]), torch.tensor(9.)\n(torch.block_diag(a, b, c), torch.block_diag(c, a), torch.block_diag(b), torch.block_diag(a, torch.empty(0), b))",
    "promote": "(torch.block_diag(torch.ones(2, dtype=torch.int32), torch.ones(1, 2)), torch.block_diag(torch.tensor([True]), torch.tensor([[2]])), torch.block_diag(torch.ones(1, dtype=torch.complex64), torch.ones(2, 2, dtype=torch.float64)))",
    "empty_noncontig": "x = torch.arange(6.).reshape(3, 2).t()\n(torch.block_diag(x, x[:, :1]), torch.block_diag(torch.empty(0, 3), torch.empty(2, 0)), torch.block_diag(), torch.block_diag(x[:, ::2]))",
    "aten": "torch.ops.aten.block_diag.default([torch.ones(2, 2), torch.tensor([3.])])",
    "bad_3d": "torch.block_diag(torch.ones(2, 2), torch.ones(1, 1, 1))",
})

grads("misc_ops_grad4", {
    "block_diag": "ps = leaves((2, 3), (3,), ()); out = torch.block_diag(ps[0], ps[1].exp(), ps[2]) * torch.arange(42.).reshape(6, 7)",
    "block_diag_empty_middle": "ps = leaves((2, 2), (0,), (3,), (1, 2)); out = torch.block_diag(ps[0], ps[1], ps[2], ps[3]) * torch.arange(48.).reshape(6, 8)",
})

RN = "g = torch.Generator().manual_seed(0)\nx = torch.randn(5, 5, 5, generator=g)\n"
cases("renorm", {
    "basic": RN + "(torch.renorm(x, 2, 1, 0.5), torch.renorm(x, 2, -1, 0.5), torch.renorm(x, 1, 2, 3), torch.renorm(x, float('inf'), 2, 0.5), x.renorm(3, 0, 1.5))",
    "dtypes": RN + "(torch.renorm(x.double(), 2, 0, 1.0), torch.renorm(x.bfloat16(), 2, 1, 0.5), torch.renorm(x.half(), 1, 2, 2.0), torch.renorm(torch.complex(x, x.flip(0)), 2, 1, 0.5), torch.renorm(x[..., :0], 2, 0, 1))",
    "noncontig": RN + "(torch.renorm(x.transpose(0, 2), 2, 1, 0.7), torch.renorm(x[:, ::2], 2, 0, 0.3))",
    "inplace_out": RN + "y = x.clone()\nr = y.renorm_(2, 1, 0.5)\no = torch.empty(0)\nq = torch.renorm(x, 2, 0, 0.5, out=o)\n(r is y, y, q is o, o, torch.ops.aten.renorm.default(x, 2, 0, 0.5), torch.ops.aten.renorm_.default(x.clone(), 2, 0, 0.5))",
    "graph": RN + "x.requires_grad_()\ny = torch.renorm(x, 2, 0, 0.5)\n(y.grad_fn.name(), y.requires_grad)",
    "bad_p": RN + "torch.renorm(x, 0, 0, 1)", "bad_p_neg": RN + "torch.renorm(x, -1, 0, 1)",
    "bad_maxnorm": RN + "torch.renorm(x, 2, 0, -1)", "bad_1d": "torch.renorm(torch.randn(3), 2, 0, 1)",
    "bad_dim": RN + "torch.renorm(x, 2, 5, 1)", "bad_long": "torch.renorm(torch.ones(3, 4).long(), 2, 0, 1)",
})

# The cast-error message of out= and in-place ops names the dtypes as upstream's ScalarType
# spells them ("Float", "Long"), through one helper in ops/common (tn_cast_error).
CAST_MSG = """
def msg(f):
    try:
        f()
        return "ok"
    except RuntimeError as e:
        return str(e)
x, i = torch.randn(3), torch.zeros(3, dtype=torch.long)
"""
cases("cast_error_message", {
    "binary_out": CAST_MSG + "(msg(lambda: torch.add(x, x, out=i)), msg(lambda: torch.mul(x, 2.5, out=i)), msg(lambda: torch.div(i, 2, out=torch.zeros(3, dtype=torch.int32))))",
    "inplace": CAST_MSG + "(msg(lambda: i.add_(x)), msg(lambda: i.sqrt_()), msg(lambda: torch.zeros(3, dtype=torch.bool).mul_(x)))",
    "backward_out": CAST_MSG + "(msg(lambda: torch.ops.aten.threshold_backward.grad_input(x, x, 0.0, grad_input=i)), msg(lambda: torch.ops.aten.mse_loss_backward.grad_input(x, x, x, 1, grad_input=i)))",
    "reduce_loss_blend": CAST_MSG + "(msg(lambda: torch.sum(x, 0, out=torch.zeros((), dtype=torch.long))), msg(lambda: torch.ops.aten.huber_loss_.default(i, x) if hasattr(torch.ops.aten, 'huber_loss_') else 'none'), msg(lambda: torch.lerp(x, x, 0.5, out=i)))",
})

cases("vander", {   # upstream's composite: promoted with int64, cumprod of the columns, flipped unless increasing
    "float": "torch.vander(torch.tensor([1.5, -2.0, 0.3]))",
    "increasing_N": "torch.vander(torch.tensor([1.5, -2.0, 0.3]), N=5, increasing=True)",
    "int8": "torch.vander(torch.tensor([2, -3, 4], dtype=torch.int8), N=4)",
    "bool": "torch.vander(torch.tensor([True, False]))",
    "complex": "torch.vander(torch.tensor([1 + 1j, 2 - 1j]), N=3)",
    "N0": "torch.vander(torch.tensor([1.0, 2.0]), N=0)",
    "N1": "torch.vander(torch.tensor([1.0, 2.0]), N=1)",
    "empty": "torch.vander(torch.tensor([]), N=3)",
    "f64_strided": "torch.vander(torch.arange(10, dtype=torch.float64)[::3])",
    "grad": "x = torch.tensor([1.5, -2.0, 0.3], requires_grad=True)\nv = torch.vander(x, N=4)\nv.sum().backward()\nv, x.grad, type(v.grad_fn).__name__",
    "aten": "torch.ops.aten.vander.default(torch.tensor([2.0, 3.0]), 3, True)",
    "err_2d": "def f():\n    try:\n        torch.vander(torch.ones(2, 2))\n    except RuntimeError as e:\n        return str(e)\nf()",
    "err_negative_N": "def f():\n    try:\n        torch.vander(torch.ones(2), N=-1)\n    except RuntimeError as e:\n        return str(e)\nf()",
    "meta": "r = torch.vander(torch.ones(3, device='meta'), N=2)\nr.shape, r.dtype, r.device.type",
})

# Tensor.apply_ / map_ / map2_: fn per element (Python numbers of the dtype's kind), the result
# cast into self (truncated for integers), no version bump; upstream's errors
cases("tensor_apply_map", {
    "apply_int_truncates": "(lambda t: (t.apply_(lambda v: v * 1.5), t._version))(torch.arange(4))",
    "apply_float": "torch.arange(4.).apply_(lambda v: int(v) * 2)",
    "apply_transposed": "torch.arange(6.).reshape(2, 3).t().apply_(lambda v: v + 1)",
    "apply_strided": "(lambda b: (b[::2].apply_(lambda v: -v), b))(torch.arange(4.))[1]",
    "apply_bool": "torch.tensor([True, False]).apply_(lambda v: not v)",
    "apply_kinds": "(torch.arange(3.).apply_(lambda v: type(v).__name__ == 'float' and v), torch.arange(3).apply_(lambda v: type(v).__name__ == 'int' and v))",
    "apply_complex": "torch.ones(3, dtype=torch.complex64).apply_(lambda v: v * (2 + 1j))",
    "apply_half": "torch.ones(3, dtype=torch.float16).apply_(lambda v: v / 3)",
    "map_": "torch.ones(3).map_(torch.arange(3.), lambda a, b: a + b)",
    "map_broadcast": "torch.ones(2, 3).map_(torch.arange(3.), lambda a, b: a * b)",
    "map2_": "torch.ones(3).map2_(torch.arange(3.), torch.arange(3.), lambda a, b, c: a + b + c)",
    "err_str": "msg(lambda: torch.arange(4.).apply_(lambda v: 'a'))",
    "err_requires_grad": "msg(lambda: torch.ones(2, requires_grad=True).apply_(lambda v: v))",
    "err_not_callable": "msg(lambda: torch.ones(3).apply_(1))",
    "err_map_dtype": "msg(lambda: torch.ones(3).map_(torch.arange(3), lambda a, b: a + b))",
    "err_map_shape": "msg(lambda: torch.ones(3).map_(torch.arange(2.), lambda a, b: a + b))",
    "err_raises": "msg(lambda: torch.ones(2).apply_(lambda v: 1 / 0))",
}, setup="""
def msg(f):
    try:
        return f()
    except Exception as e:
        return (type(e).__name__, str(e))
""")
