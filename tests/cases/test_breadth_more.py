"""More OpInfo breadth (#11, docs/breadth_more.md) compared with upstream: torch._C's custom-op
aliasing check (what torch.library custom operators, e.g. linear_cross_entropy's chunked
implementation, run after each call), and the operators added for OpInfo entries that were
refused by name. Dtypes, 0-dim / empty / non-contiguous inputs, every spelling, gradients,
upstream's errors."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"

AL = "f = torch._C._any_output_is_alias_to_input_or_output\nx, y = torch.randn(3), torch.randn(3)\n"
cases("any_output_is_alias", {
    "tensors": AL + "(f((x,), {}, (x,)), f((x,), {}, (x[1:],)), f((x,), {}, (y,)), f((), {}, (y, y)), f((), {}, (y, y.view(3))), f((x.data,), {}, (x,)), f((x,), {}, (x.detach(),)))",
    "containers": AL + "(f(([x, y],), {}, (y,)), f(([x, 1],), {}, (x,)), f(((x, y),), {}, (y,)), f((), {'a': x}, (x,)), f((), {'a': [x]}, (x,)), f((x,), {}, ([x],)), f((x,), {}, ((x,),)), f((x,), {}, (None, 1, x)))",
    "outputs": AL + "(f((), {}, ([x, x],)), f((), {}, ([x, 1, x],)), f(([x, x],), {}, ()), f((x, x), {}, ()), f((x,), {}, (1,)), f((torch.empty(0),), {}, (torch.empty(0),)))",
    "not_tuples": AL + "(f([x], {}, (x,)), f((x,), {}, [x]), f((x,), {}, (x,), 1))",
    "meta": "f = torch._C._any_output_is_alias_to_input_or_output\nm = torch.empty(3, device='meta')\n(f((m,), {}, (m,)), f((m,), {}, (torch.empty(3, device='meta'),)))",
    "bad_keywords": AL + "f(args=(x,), kwargs={}, result=(x,))",
    "custom_op": "@torch.library.custom_op('tnbreadth::ident', mutates_args=())\ndef ident(x: torch.Tensor) -> torch.Tensor:\n    return x\nident(torch.ones(2))",
    "custom_op_ok": "@torch.library.custom_op('tnbreadth::twice', mutates_args=())\ndef twice(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\ntwice(torch.ones(2))",
})

cases("logspace", {
    "floats": "(torch.logspace(-3, 4, 7), torch.logspace(0, 1, 5, base=2.0), torch.logspace(-2.5, 3.3, 11, 1.1, dtype=torch.float64), torch.logspace(1, -1, 6, base=0.5), torch.logspace(0, 3, 4, base=-2.0))",
    "lowp": "(torch.logspace(-3, 4, 9, dtype=torch.bfloat16), torch.logspace(-1, 2, 10, base=3.0, dtype=torch.float16), torch.logspace(0.3, 1.7, 5, dtype=torch.bfloat16))",
    "ints": "(torch.logspace(-3, 4, 8, dtype=torch.int64), torch.logspace(0, 6, 7, base=2.0, dtype=torch.int32), torch.logspace(-3, 2, 6, base=3.0, dtype=torch.uint8), torch.logspace(0, 2, 3, base=5.0, dtype=torch.int8), torch.logspace(1, 4, 4, base=1.1, dtype=torch.int16))",
    "complex": "(torch.logspace(-3, 4, 7, dtype=torch.complex64), torch.logspace(0, 1, 5, base=2.0, dtype=torch.complex128), torch.logspace(1j, 2 + 1j, 5), torch.logspace(0, 1 + 2j, 4, base=3.0, dtype=torch.complex128), torch.logspace(1, 2, 4, base=-2.0, dtype=torch.complex64))",
    "steps01": "(torch.logspace(2, 5, 1), torch.logspace(2, 5, 0), torch.logspace(1.5, 3, 1, base=2.0, dtype=torch.float64), torch.logspace(2, 3, 1, dtype=torch.int64), torch.logspace(1 + 1j, 2, 1), torch.logspace(1 + 1j, 2, 1, base=-2.0), torch.logspace(0, 1, 1, dtype=torch.bool), torch.logspace(0, 1, 0, dtype=torch.bool))",
    "default_dtype": "torch.set_default_dtype(torch.float64)\ntry:\n    r = (torch.logspace(0, 1, 5), torch.logspace(0, 1j, 3))\nfinally:\n    torch.set_default_dtype(torch.float32)\nr",
    "out": "o = torch.empty(2)\np = torch.empty(6, dtype=torch.float64)[::2]\nq = torch.empty(3, dtype=torch.int64)\n(torch.logspace(0, 2, 5, out=o), o, torch.logspace(0, 2, 3, base=2.0, out=p), p, torch.logspace(0, 2, 3, out=q), q)",
    "tensor_overloads": "(torch.logspace(torch.tensor(-1.), torch.tensor(2.), 4), torch.logspace(torch.tensor(0.5), 3, 5, base=2.0), torch.logspace(1, torch.tensor(3, dtype=torch.int64), 3, dtype=torch.float64), torch.logspace(torch.tensor(1j), torch.tensor(2.), 3), torch.logspace(torch.tensor(0), torch.tensor(3), 4, dtype=torch.int64))",
    "tensor_out": "o = torch.empty(0)\n(torch.logspace(torch.tensor(0.), torch.tensor(1.), 3, out=o), o, torch.logspace(torch.tensor(0.), 1, 3, out=torch.empty(3)), torch.logspace(0, torch.tensor(1.), 3, out=torch.empty(3)))",
    "meta": "r = torch.logspace(0, 1, 5, device='meta')\n(r.shape, r.dtype, r.device)",
    "aten": "(torch.ops.aten.logspace.default(0, 2, 3), torch.ops.aten.logspace.Tensor_Tensor(torch.tensor(0.), torch.tensor(1.), 3, 2.0), torch.ops.aten.logspace.Tensor_Scalar(torch.tensor(0.), 1, 3), torch.ops.aten.logspace.Scalar_Tensor(0, torch.tensor(1.), 3), torch.ops.aten.logspace.out(0, 1, 3, out=torch.empty(3)), torch.ops.aten.logspace.Tensor_Tensor_out(torch.tensor(0.), torch.tensor(1.), 3, out=torch.empty(3)), torch.ops.aten.logspace.Tensor_Scalar_out(torch.tensor(0.), 1, 3, out=torch.empty(3)), torch.ops.aten.logspace.Scalar_Tensor_out(0, torch.tensor(1.), 3, out=torch.empty(3)))",
    "bad_steps": "torch.logspace(0, 1, -1)",
    "bad_bool": "torch.logspace(0, 1, 3, dtype=torch.bool)",
    "bad_tensor_dim": "torch.logspace(torch.tensor([0.]), torch.tensor(1.), 3)",
    "bad_tensor_dim_end": "torch.logspace(0, torch.ones(2), 3)",
    "bad_overflow": "torch.logspace(0, 300, 3, dtype=torch.int8)",
    "bad_complex_to_real": "torch.logspace(0, 1j, 3, dtype=torch.float32)",
})

cases("hash_tensor", {
    "floats": R + "x = torch.randn(3, 4) * 100\n(torch.hash_tensor(x), torch.hash_tensor(x, 1), torch.hash_tensor(x.double(), [0]), torch.hash_tensor(x.bfloat16(), -1, keepdim=True), torch.hash_tensor(x.half(), [0, 1], keepdim=True))",
    "special_values": "x = torch.tensor([float('nan'), -0.0, float('inf'), 0.0, -float('inf')])\n(torch.hash_tensor(x), torch.hash_tensor(x.double()), torch.hash_tensor(x.bfloat16()), torch.hash_tensor(-x))",
    "ints": R + "x = torch.randint(-100, 100, (3, 4))\n(torch.hash_tensor(x), torch.hash_tensor(x.int(), 0), torch.hash_tensor(x.short(), 1), torch.hash_tensor(x.to(torch.int8), [1]), torch.hash_tensor(x.to(torch.uint8)), torch.hash_tensor(x > 0, 0), torch.hash_tensor(x > 0))",
    "method_dims": R + "x = torch.randn(2, 3, 4)\n(x.hash_tensor(), x.hash_tensor([0, 2]), x.hash_tensor(dim=-2, keepdim=True), x.hash_tensor(mode=0))",
    "zero_dim_empty": "(torch.hash_tensor(torch.tensor(3.)), torch.hash_tensor(torch.tensor(3.), 0), torch.hash_tensor(torch.tensor(-3), []), torch.hash_tensor(torch.empty(0, 3), 1), torch.hash_tensor(torch.empty(0, 3), 1, keepdim=True))",
    "noncontig": R + "x = torch.randn(4, 6)\n(torch.hash_tensor(x.t(), 0), torch.hash_tensor(x[:, ::2], 1), torch.hash_tensor(x.t()), torch.hash_tensor(x.expand(2, 4, 6), 0))",
    "out": "o = torch.empty(0, dtype=torch.uint64)\n(torch.hash_tensor(torch.arange(6.).reshape(2, 3), 1, out=o), o)",
    "meta": "r = torch.hash_tensor(torch.ones(3, 4, device='meta'), 0)\n(r.shape, r.dtype, r.device)",
    "no_grad": "x = torch.ones(2, 3, requires_grad=True)\nr = torch.hash_tensor(x, 1)\n(r, r.requires_grad, r.grad_fn)",
    "aten": "x = torch.arange(6.).reshape(2, 3)\n(torch.ops.aten.hash_tensor.default(x, [1]), torch.ops.aten.hash_tensor.out(x, out=torch.empty(0, dtype=torch.uint64)))",
    "bad_mode": "torch.hash_tensor(torch.ones(2), mode=1)",
    "bad_dim": "torch.hash_tensor(torch.ones(2), 2)",
    "bad_dup_dim": "torch.hash_tensor(torch.ones(2, 3), [0, 0])",
    "bad_complex": "torch.hash_tensor(torch.ones(2, dtype=torch.complex64))",
    "bad_empty_all": "torch.hash_tensor(torch.empty(0))",
    "bad_empty_dim": "torch.hash_tensor(torch.empty(0, 3), 0)",
    "bad_out_dtype": "torch.hash_tensor(torch.ones(2, 3), 1, out=torch.empty(2))",
})
cases("hash_tensor_out_more", {
    "strided_out": "o = torch.zeros(2, 4, dtype=torch.int64).view(torch.uint64)[:, ::2]\n(torch.hash_tensor(torch.arange(12.).reshape(2, 3, 2), 1, out=o), o, o.stride())",
    "resize_out": "o = torch.empty(5, dtype=torch.uint64)\n(torch.hash_tensor(torch.arange(6).reshape(2, 3), out=o), o.shape)",
})

cases("sinc_complex", {
    "c64": R + "z = torch.randn(4, 5, dtype=torch.complex64) * 3\n(torch.sinc(z), z.sinc(), torch.special.sinc(z))",
    "c128": R + "z = torch.randn(4, 5, dtype=torch.complex128) * 3\n(torch.sinc(z), torch.sinc(z.t()), torch.sinc(z[:, ::2]))",
    "special_values": "z = torch.tensor([0j, 1j, 1 + 0j, -2.5 + 0.5j, 1e-30 + 1e-30j, 1e-3j, 40 + 0j, 0.5 + 30j, complex('nan'), complex('inf'), complex(0, float('inf'))])\n(torch.sinc(z), torch.sinc(z.to(torch.complex128)))",
    "out_inplace": R + "z = torch.randn(5, dtype=torch.complex64)\no = torch.empty(5, dtype=torch.complex64)\ny = z.clone()\n(torch.sinc(z, out=o), o, y.sinc_(), y)",
    "empty_0dim": "(torch.sinc(torch.empty(0, 3, dtype=torch.complex64)), torch.sinc(torch.tensor(0.3 + 0.2j)))",
    "bad_out_real": "torch.sinc(torch.ones(2, dtype=torch.complex64), out=torch.empty(2))",
    "bad_inplace_real_to_complex": "torch.ones(2).sinc_() if False else torch.sinc(torch.ones(2), out=torch.empty(2, dtype=torch.int64))",
})

grads("breadth_more_grad", {
    "sinc_complex": "ps = leaves((3, 4), dtype=torch.complex128); out = (torch.sinc(ps[0] * 2) * torch.arange(12.).reshape(3, 4)).abs()",
    "sinc_zero": "ps = [leaf([0j, 1 + 1j], dtype=torch.complex128)]; out = torch.sinc(ps[0]).abs()",
}, tol=(1e-15, 64 * 2.0 ** -52))

grads("breadth_more_grad_f32", {
    "sinc_complex64": "ps = leaves((5,), dtype=torch.complex64); out = torch.sinc(ps[0]).real + torch.sinc(ps[0]).imag * 2",
    "sinc_real": "ps = leaves((6,)); out = torch.sinc(ps[0] * 2)",
})

cases("complex_logexp", {
    "logsumexp": R + "z = torch.randn(3, 4, dtype=torch.complex64) * 3\n(torch.logsumexp(z, 1), torch.logsumexp(z, [0, 1]), torch.logsumexp(z.to(torch.complex128), 0, keepdim=True), z.logsumexp(-1), torch.special.logsumexp(z.t(), 0))",
    "logsumexp_special": "z = torch.tensor([[1 + 1j, complex('inf'), 2j], [complex(-float('inf'), 0), complex(-float('inf'), 1), 0j], [complex('nan'), 1 + 0j, 2 + 0j]])\n(torch.logsumexp(z, 1), torch.logsumexp(z.to(torch.complex128), 0))",
    "logsumexp_empty_out": "z = torch.ones(0, 3, dtype=torch.complex64)\no = torch.empty(3, dtype=torch.complex64)\n(torch.logsumexp(z, 0), torch.logsumexp(torch.ones(2, 3, dtype=torch.complex64), 1, out=o), o)",
    "masked_logsumexp": R + "z = torch.randn(3, 4, dtype=torch.complex64)\nm = torch.tensor([[True, False, True, True], [False, False, True, False], [True, True, True, True]])\n(torch.masked._ops.logsumexp(z, 1, mask=m), torch.masked._ops.logsumexp(z, 1))",
    "logaddexp": R + "a, b = torch.randn(3, 4, dtype=torch.complex64) * 3, torch.randn(4, dtype=torch.complex64) * 3\n(torch.logaddexp(a, b), torch.logaddexp(a.to(torch.complex128), b.to(torch.complex128)), a.logaddexp(a), torch.logaddexp(a.t(), b[:3]))",
    "logaddexp_special": "a = torch.tensor([complex('inf'), complex('inf'), complex(-float('inf'), 0), complex(-float('inf'), 2), complex('nan'), 1 + complex(0, float('nan')), 1e-8j, -20 + 1j, 30 + 0j])\nb = torch.tensor([complex('inf'), 1j, complex(-float('inf'), 1), 5 + 0j, 1 + 0j, 2 + 0j, 1e-8 + 0j, 20 - 1j, 30 + 3j])\n(torch.logaddexp(a, b), torch.logaddexp(b, a), torch.logaddexp(a.to(torch.complex128), b.to(torch.complex128)))",
    "logaddexp_out_mixed": R + "a = torch.randn(4, dtype=torch.complex64)\no = torch.empty(4, dtype=torch.complex64)\n(torch.logaddexp(a, torch.randn(4), out=o), o, torch.logaddexp(a, torch.randn(4, dtype=torch.float64)))",
    "logcumsumexp": R + "z = torch.randn(3, 5, dtype=torch.complex64) * 3\n(torch.logcumsumexp(z, 1), torch.logcumsumexp(z, 0), torch.logcumsumexp(z.to(torch.complex128), -1), z.t().logcumsumexp(0), torch.logcumsumexp(z[:, ::2], 1))",
    "logcumsumexp_special": "z = torch.tensor([complex(-float('inf'), 0), 1 + 1j, complex('inf'), 2j, complex('nan'), 3 + 0j])\n(torch.logcumsumexp(z, 0), torch.logcumsumexp(z.to(torch.complex128), 0), torch.logcumsumexp(torch.tensor(1 + 2j), 0), torch.logcumsumexp(torch.empty(0, 2, dtype=torch.complex64), 0))",
    "logcumsumexp_out": "o = torch.empty(3, dtype=torch.complex64)\n(torch.logcumsumexp(torch.tensor([1j, 2 + 0j, 3j]), 0, out=o), o)",
    "bad_logcumsumexp_out": "torch.logcumsumexp(torch.tensor([1j, 2 + 0j]), 0, out=torch.empty(2))",
    "bad_logaddexp_out": "torch.logaddexp(torch.tensor([1j]), torch.tensor([1j]), out=torch.empty(1))",
}, tol="float")   # complex log / exp compositions: upstream's build contracts c10::complex's products into fmas

grads("breadth_more_grad_c", {
    "logsumexp": "ps = leaves((3, 4), dtype=torch.complex128); out = torch.logsumexp(ps[0], 1).abs()",
    "logsumexp_keepdim": "ps = leaves((3, 4), dtype=torch.complex128); out = (torch.logsumexp(ps[0], 0, keepdim=True) * torch.tensor([1j, 2, 3, 4j])).real",
    "logaddexp": "ps = leaves((3, 4), (4,), dtype=torch.complex128); out = torch.logaddexp(ps[0], ps[1]).abs()",
    "logcumsumexp": "ps = leaves((3, 4), dtype=torch.complex128); out = torch.logcumsumexp(ps[0], 1).abs()",
    "logcumsumexp_dim0": "ps = leaves((3, 4), dtype=torch.complex128); out = (torch.logcumsumexp(ps[0], 0) * (1 + 2j)).imag",
}, tol=(1e-15, 64 * 2.0 ** -52))

MI = "x = torch.arange(12.).reshape(3, 4)\nm = torch.tensor([True, False, True])\n"
cases("unsafe_masked_index", {
    "basic": MI + "(torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([0, 5, 2])], -1.), torch.ops.aten._unsafe_masked_index(x, m[:, None], [None, torch.tensor([0, 5, 2])], 7), torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([0, -9, 2], dtype=torch.int32)], 0))",
    "two_indices": MI + "i = torch.tensor([[0, 1], [7, 2]])\nj = torch.tensor([[3, 0], [1, -8]])\nmm = torch.tensor([[True, True], [False, False]])\n(torch.ops.aten._unsafe_masked_index(x, mm, [i, j], 2.5), torch.ops.aten._unsafe_masked_index(x.t(), mm, [j, i], -3), torch.ops.aten._unsafe_masked_index(x, mm, (i, j), 1))",
    "dtypes": MI + "(torch.ops.aten._unsafe_masked_index(x.long(), m, [torch.tensor([0, 5, 2])], -1), torch.ops.aten._unsafe_masked_index(x.bfloat16(), m, [torch.tensor([2, 9, 0])], 0.5), torch.ops.aten._unsafe_masked_index(x > 5, m, [torch.tensor([1, 1, 2])], True), torch.ops.aten._unsafe_masked_index(x.double(), m, [torch.tensor([1, 1, 2])], -2))",
    "empty_self": MI + "(torch.ops.aten._unsafe_masked_index(torch.empty(0, 4), m, [torch.tensor([0, 5, 2])], -1.), torch.ops.aten._unsafe_masked_index(torch.empty(0, 4), m[:, None], [torch.tensor([0, 5, 2]), None], -1.), torch.ops.aten._unsafe_masked_index(torch.empty(2, 0), m[:, None], [None, torch.tensor([0, 5, 2])], 3.))",
    "bad_bool_index": MI + "torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([True, False, True])], -1.)",
    "bad_float_index": MI + "torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([0., 1, 2])], -1.)",
    "bad_too_many": MI + "torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([0, 1, 2])] * 3, -1.)",
    "bad_mask_shape": MI + "torch.ops.aten._unsafe_masked_index(x, m, [torch.tensor([0, 1, 2]), torch.tensor([0, 1, 2, 3])], -1.)",
})

cases("unsafe_masked_index_put_accumulate", {
    "basic": MI + "(torch.ops.aten._unsafe_masked_index_put_accumulate(x, m, [torch.tensor([0, 5, 0])], torch.ones(3, 4)), x)",
    "two_indices": MI + "i = torch.tensor([[0, 1], [7, 1]])\nj = torch.tensor([[3, 3], [1, -8]])\nmm = torch.tensor([[True, True], [False, True]])\ntorch.ops.aten._unsafe_masked_index_put_accumulate(x, mm, [i, j], torch.tensor([[1., 2.], [3., 4.]]))",
    "dtypes": MI + "(torch.ops.aten._unsafe_masked_index_put_accumulate(x.long(), m, [torch.tensor([1, 5, 1])], torch.full((3, 4), 2)), torch.ops.aten._unsafe_masked_index_put_accumulate(x.bfloat16(), m[:, None], [None, torch.tensor([0, 9, 0])], torch.ones(3, 3, dtype=torch.bfloat16)), torch.ops.aten._unsafe_masked_index_put_accumulate(x.double(), m, [torch.tensor([2, 2, 2], dtype=torch.int32)], torch.ones(4, dtype=torch.float64)))",
    "empty_self": MI + "r = torch.ops.aten._unsafe_masked_index_put_accumulate(torch.empty(0, 3), m, [torch.tensor([0, 5, 2])], torch.ones(3, 3))\n(r.shape, r.dtype)",
    "bad_bool_index": MI + "torch.ops.aten._unsafe_masked_index_put_accumulate(x, m, [torch.tensor([True, False, True])], torch.ones(3, 4))",
})

grads("breadth_more_grad_mi", {
    "masked_index": "ps = leaves((3, 4)); out = torch.ops.aten._unsafe_masked_index(ps[0], torch.tensor([[True, False], [True, True]]), [torch.tensor([[0, 9], [2, 0]]), torch.tensor([[1, 1], [3, 1]])], 0.5) * torch.tensor([[1., 2.], [3., 4.]])",
    "masked_index_put": "ps = leaves((3, 4), (3, 4)); out = torch.ops.aten._unsafe_masked_index_put_accumulate(ps[0], torch.tensor([True, False, True]), [torch.tensor([0, 5, 0])], ps[1]) * torch.arange(12.).reshape(3, 4)",
})

SR = "x = torch.tensor([[1., 5., 5., -2.], [0., 3., float('nan'), 2.], [4., 4., 0., 1.]])\n"
cases("segment_reduce", {
    "lengths_1d": "x = torch.tensor([1., 5., 5., -2., 0.])\nL = torch.tensor([0, 1, 2, 2])\n[torch.segment_reduce(x, r, lengths=L) for r in ('max', 'min', 'sum', 'mean', 'prod', 'amax', 'amin')]",
    "initial": "x = torch.tensor([1., 5., 5., -2., 0.])\nL = torch.tensor([2, 0, 3, 0])\n[torch.segment_reduce(x, r, lengths=L, initial=2) for r in ('max', 'min', 'sum', 'mean', 'prod')] + [torch.segment_reduce(x, 'max', lengths=L, initial=-1.5, unsafe=True)]",
    "offsets": "x = torch.tensor([1., 5., 5., -2., 0.])\nO = torch.tensor([0, 0, 1, 3, 5])\n[torch.segment_reduce(x, r, offsets=O) for r in ('max', 'min', 'sum', 'mean', 'prod')] + [torch.segment_reduce(x, 'sum', offsets=O, lengths=torch.tensor([5]))]",
    "axis1_2d_lengths": SR + "L = torch.tensor([[1, 3], [2, 2], [0, 4]])\n[torch.segment_reduce(x, r, lengths=L, axis=1) for r in ('max', 'min', 'sum', 'mean', 'prod')] + [torch.segment_reduce(x, 'sum', lengths=L, axis=-1)]",
    "axis0_inner": SR + "[torch.segment_reduce(x, r, lengths=torch.tensor([1, 0, 2]), axis=0) for r in ('max', 'min', 'sum', 'mean', 'prod')] + [torch.segment_reduce(x, 'mean', offsets=torch.tensor([0, 2, 3], dtype=torch.int32))]",
    "dtypes": SR + "L = torch.tensor([[1, 3], [2, 2], [0, 4]], dtype=torch.int32)\n[torch.segment_reduce(x.to(d), r, lengths=L, axis=1) for d in (torch.float64, torch.bfloat16, torch.float16) for r in ('max', 'sum', 'mean', 'prod')] + [torch.segment_reduce(torch.arange(8.).half() * 100, 'mean', lengths=torch.tensor([3, 5]), initial=1000)]",
    "noncontig": "x = torch.arange(24.).reshape(4, 6).t()\n(torch.segment_reduce(x, 'sum', lengths=torch.tensor([1, 3])[None].expand(6, 2), axis=1), torch.segment_reduce(x[::2], 'max', lengths=torch.tensor([2, 1]), axis=0))",
    "empty": "(torch.segment_reduce(torch.empty(0), 'sum', lengths=torch.tensor([0, 0])), torch.segment_reduce(torch.empty(0, 3), 'mean', lengths=torch.tensor([0]), axis=0), torch.segment_reduce(torch.ones(3), 'sum', lengths=torch.tensor([], dtype=torch.long)[:0], unsafe=True))",
    "backward_op_ties": "x = torch.tensor([1., 5., 5., -2., 0., 0., 3.])\nL = torch.tensor([3, 2, 2])\ng = torch.tensor([2., -4., 6.])\n[torch.ops.aten._segment_reduce_backward(g, torch.segment_reduce(x, r, lengths=L), x, r, lengths=L) for r in ('max', 'min', 'sum', 'mean', 'prod')] + [torch.ops.aten._segment_reduce_backward(g, torch.segment_reduce(x, 'prod', lengths=L, initial=3), x, 'prod', lengths=L, initial=3), torch.ops.aten._segment_reduce_backward(g, torch.segment_reduce(x, 'max', offsets=torch.tensor([0, 3, 5, 7])), x, 'max', offsets=torch.tensor([0, 3, 5, 7]))]",
    "backward_op_nan": "x = torch.tensor([1., float('nan'), 5., 0., float('nan')])\nL = torch.tensor([3, 2])\ng = torch.tensor([2., 3.])\n[torch.ops.aten._segment_reduce_backward(g, torch.segment_reduce(x, r, lengths=L), x, r, lengths=L) for r in ('max', 'prod', 'mean')]",
    "bad_reduce": SR + "torch.segment_reduce(x, 'foo', lengths=torch.tensor([1, 3]), axis=1)",
    "bad_none": SR + "torch.segment_reduce(x, 'sum')",
    "bad_indices": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([1, 2]), indices=torch.tensor([0, 1]))",
    "bad_axis": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([1, 2]), axis=1)",
    "bad_axis_offsets": SR + "torch.segment_reduce(x, 'sum', offsets=torch.tensor([0, 1, 3]), axis=1)",
    "bad_axis_range": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([1, 2]), axis=5)",
    "bad_sum": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([1, 1]))",
    "bad_negative": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([-1, 4]))",
    "bad_int_data": SR + "torch.segment_reduce(x.long(), 'sum', lengths=torch.tensor([1, 2]))",
    "bad_float_lengths": SR + "torch.segment_reduce(x, 'sum', lengths=torch.tensor([1., 2.]))",
})

grads("breadth_more_grad_seg", {
    "sum_mean": "ps = leaves((6, 2)); L = torch.tensor([2, 0, 4]); out = torch.segment_reduce(ps[0], 'sum', lengths=L) * 2 + torch.segment_reduce(ps[0], 'mean', lengths=L, initial=1).nan_to_num()",
    "max_min_prod": "ps = leaves((6,)); O = torch.tensor([0, 3, 3, 6]); out = torch.segment_reduce(ps[0], 'max', offsets=O).clamp(-9, 9) + torch.segment_reduce(ps[0], 'min', offsets=O).clamp(-9, 9) + torch.segment_reduce(ps[0], 'prod', offsets=O)",
    "axis1": "ps = leaves((2, 5)); out = torch.segment_reduce(ps[0], 'prod', lengths=torch.tensor([[2, 3], [5, 0]]), axis=1) * torch.tensor([[1., 2.], [3., 4.]])",
})

cases("special_logsumexp", {
    "alias": R + "x = torch.randn(3, 4)\n(torch.special.logsumexp(x, 1), torch.special.logsumexp(x, [0, 1], keepdim=True), torch.special.logsumexp(x.double(), 0, out=torch.empty(4, dtype=torch.float64)), torch.special.logsumexp(x.to(torch.complex64), 1))",
    "aten": R + "x = torch.randn(3, 4)\n(torch.ops.aten.special_logsumexp.default(x, [1]), torch.ops.aten.special_logsumexp.out(x, [0], out=torch.empty(4)))",
    "bad_dim": "torch.special.logsumexp(torch.ones(2, 3), 2)",
}, tol="float")

grads("breadth_more_grad_slse", {
    "special_logsumexp": "ps = leaves((3, 4)); out = torch.special.logsumexp(ps[0], 1)",
})

# LU matrices and pivots are built directly (lu_unpack needs no real factorization; upstream's
# MKL and our OpenBLAS factorizations round differently)
LUF = "torch.manual_seed(0)\ndef lf(*s, dtype=torch.float32):\n    m = s[-2]\n    k = min(s[-2], s[-1])\n    piv = torch.randint(1, m + 1, s[:-2] + (k,), dtype=torch.int32) if m else torch.ones(s[:-2] + (0,), dtype=torch.int32)\n    return torch.randn(*s, dtype=dtype), torch.maximum(piv, torch.arange(1, k + 1, dtype=torch.int32))\n"
cases("lu_unpack", {
    "square": LUF + "LU, piv = lf(4, 4)\n(piv, torch.lu_unpack(LU, piv))",
    "wide_tall": LUF + "LU, piv = lf(3, 5)\nLU2, piv2 = lf(5, 3)\n(torch.lu_unpack(LU, piv), torch.lu_unpack(LU2, piv2))",
    "batched": LUF + "LU, piv = lf(2, 3, 4, 4, dtype=torch.float64)\nP, L, U = torch.lu_unpack(LU, piv)\n(P, L, U, P.dtype, L.stride(), U.stride())",
    "flags": LUF + "LU, piv = lf(3, 4)\n(torch.lu_unpack(LU, piv, unpack_data=False), torch.lu_unpack(LU, piv, unpack_pivots=False), torch.lu_unpack(LU, piv.long(), False, False), torch.lu_unpack(LU, piv, unpack_pivots=False, unpack_data=False))",
    "complex_noncontig": LUF + "LU, piv = lf(4, 4, dtype=torch.complex64)\nLU2, piv2 = lf(4, 4)\n(torch.lu_unpack(LU, piv), torch.lu_unpack(LU2.t(), piv2), torch.lu_unpack(LU2.bfloat16(), piv2))",
    "batch_pivots": LUF + "LU, piv = lf(3, 4)\ntorch.lu_unpack(LU.expand(2, 3, 4), piv.expand(2, 3))",
    "empty": "(torch.lu_unpack(torch.randn(0, 3), torch.ones(0, dtype=torch.int32)), torch.lu_unpack(torch.randn(2, 0, 0), torch.ones(2, 0, dtype=torch.int32)))",
    "ints_pivots_literal": "torch.lu_unpack(torch.arange(9.).reshape(3, 3), torch.tensor([3, 3, 3], dtype=torch.int32))",
    "out": LUF + "LU, piv = lf(3, 3)\nP, L, U = torch.empty(0), torch.empty(0), torch.empty(0)\nr = torch.lu_unpack(LU, piv, out=(P, L, U))\n(r, P, L, U)",
    "aten": LUF + "LU, piv = lf(3, 3)\n(torch.ops.aten.lu_unpack.default(LU, piv, True, True), torch.ops.aten.lu_unpack.out(LU, piv, P=torch.empty(3, 3), L=torch.empty(3, 3), U=torch.empty(3, 3)))",
    "requires_grad": LUF + "LU, piv = lf(3, 3)\nLU.requires_grad_()\nP, L, U = torch.lu_unpack(LU, piv)\n(P.requires_grad, P.grad_fn, L.grad_fn.name(), U.grad_fn.name())",
    "bad_1d": "torch.lu_unpack(torch.ones(4), torch.ones(4, dtype=torch.int32))",
    "bad_pivot_dtype": "torch.lu_unpack(torch.ones(3, 3), torch.ones(3, dtype=torch.int64))",
    "bad_pivot_range": "torch.lu_unpack(torch.ones(3, 3), torch.tensor([1, 5, 3], dtype=torch.int32))",
    "bad_pivot_zero": "torch.lu_unpack(torch.ones(3, 3), torch.tensor([0, 2, 3], dtype=torch.int32))",
})

# Gradients (values only: upstream numbers L, U as outputs 0, 1 of LuUnpackBackward0 because P is
# not differentiable; torchnative's record.c numbers outputs by position, docs/breadth_more.md)
LUG = "def lg(shape, piv, f):\n    torch.manual_seed(0)\n    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)\n    P, L, U = torch.lu_unpack(x, torch.tensor(piv, dtype=torch.int32))\n    f(L, U).backward()\n    return x.grad\n"
cases("lu_unpack_grad", {
    "square": LUG + "lg((3, 3), [2, 3, 3], lambda L, U: (L * 2 + U.exp()).sum())",
    "wide": LUG + "lg((3, 5), [1, 3, 3], lambda L, U: (L * torch.arange(9.).reshape(3, 3)).sum() + (U * U).sum())",
    "tall_batched": LUG + "lg((2, 5, 3), [[5, 2, 3], [1, 2, 3]], lambda L, U: L.sin().sum() + U.sum())",
    "only_L_wide": LUG + "lg((3, 5), [1, 2, 3], lambda L, U: L.exp().sum())",
    "only_U_tall": LUG + "lg((5, 3), [1, 2, 3], lambda L, U: U.exp().sum())",
    "only_L_square": LUG + "lg((3, 3), [1, 2, 3], lambda L, U: L.exp().sum())",
    "only_U_wide": LUG + "lg((3, 5), [1, 2, 3], lambda L, U: (U * 3).sum())",
    "only_L_tall": LUG + "lg((5, 3), [1, 2, 3], lambda L, U: L.cos().sum())",
}, tol="float")
