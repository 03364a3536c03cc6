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
