"""Cases for the argument parser's overload rules and for fixes made while clearing the suite:
Tensor overloads tried before Scalar ones, upstream's numbers-as-tensors list, a method's self
binding the parameter named self, Tensor?[] elements, out parameters by name in torch.ops,
result layout of elementwise ops, and a few kernel agreements (GEMM within the float rule's
summation-order bound, f16 alpha tails, bf16 NaN casts, complex32 arithmetic, complex
exp2/expm1/log1p/silu)."""
from harness import cases

cases("parser_overload_order", {
    "bitwise_and_0d": "torch.bitwise_and(torch.tensor([True, False]), torch.tensor(0, dtype=torch.int8))",
    "clamp_0d_f64": "torch.tensor([1, 2, 3], dtype=torch.int8).clamp(torch.tensor(1.5, dtype=torch.float64))",
    "remainder_0d": "torch.remainder(torch.tensor([3, -4]), torch.tensor(1.5, dtype=torch.float64))",
    "where_method": "torch.tensor([1., 2., 3.]).where(torch.tensor([True, False, True]), 7)",
    "where_method_kw": "torch.tensor([1., 2.]).where(condition=torch.tensor([True, False]), other=torch.zeros(2))",
    "where_scalar_self": "torch.where(torch.tensor([True, False]), 7, torch.tensor([1., 2.]))",
})

cases("parser_numbers", {
    "add_self_number": "torch.add(2, torch.tensor([1, 2]))",
    "mul_self_float": "torch.mul(2.5, torch.tensor([1, 2]))",
    "floor_divide_self": "torch.floor_divide(7, torch.tensor([2, -3]))",
    "rfloordiv": "7 // torch.tensor([2, -3])",
    "maximum_number": "torch.maximum(torch.tensor([1., 2.]), 2)",
    "minimum_method": "torch.tensor([1., 2.]).minimum(2.)",
    "atan2_number": "torch.atan2(torch.tensor([1., 2.]), 2.)",
    "hypot_number": "torch.hypot(torch.tensor([1., 2.]), 2.)",
    "logaddexp_number": "torch.logaddexp(torch.tensor([1., 2.]), 2.)",
    "fmax_number": "torch.fmax(torch.tensor([1., 2.]), 2.)",
    "logical_and_number": "torch.logical_and(torch.tensor([1., 0.]), 1)",
    "aten_number_self": "torch.ops.aten.add.Tensor(2, torch.tensor([1, 2]))",
    "copy_number": "torch.zeros(3).copy_(2)",
    "uint64_int": "torch.tensor([1, 5]) + 2 ** 63",
    "uint64_float": "torch.tensor([1.5]) + 2 ** 63",
    "too_big": "torch.tensor([1]) + 2 ** 64",
    "uint64_bool": "torch.tensor([True]) + 2 ** 63",
    "uint64_int8": "torch.tensor([1], dtype=torch.int8) + 2 ** 63",
})

cases("parser_lists", {
    "index_put_none": "torch.index_put(torch.zeros(2, 3), (None, torch.tensor([1])), torch.tensor(1.))",
    "index_put_int": "torch.index_put(torch.zeros(2, 3), (torch.tensor([1]), 2), torch.tensor(1.))",
    "index_put_method": "torch.zeros(2, 3).index_put_((torch.tensor([1]), None), torch.tensor(1.))",
    "aten_index_put_none": "torch.ops.aten.index_put(torch.zeros(2, 3), [None, torch.tensor([1])], torch.tensor(1.))",
    "aten_min_names": """
        mn = torch.empty(0); ix = torch.empty(0, dtype=torch.int64)
        torch.ops.aten.min.dim_min(torch.tensor([[3., 1.], [0., 2.]]), 1, min=mn, min_indices=ix)
        (mn, ix)
    """,
})

cases("result_layout", {
    "unary_3d_permuted": "torch.neg(torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1))",
    "binary_both_t": "torch.arange(6.).reshape(2, 3).t() * torch.ones(3, 2)",
    "binary_mixed": "torch.arange(6.).reshape(2, 3).t() + torch.arange(6.).reshape(3, 2)",
    "binary_broadcast_row": "torch.arange(12.).reshape(3, 4).t() - torch.tensor([1., 2., 3.])",
    "cast_input": "torch.arange(6).reshape(2, 3).t() + 0.5",
    "where_t": "torch.where(torch.ones(3, 2, dtype=torch.bool).t(), torch.zeros(2, 3), 1.)",
    "remainder_empty_zero": "torch.remainder(torch.empty(0, 2, dtype=torch.int64), torch.zeros(2, dtype=torch.int64))",
}, strides=True)

# Matrix products: upstream's bits come from MKL, whose summation order depends on the CPU it
# runs on (the same snippet gives different last bits on different x86-64 hosts), so they are
# compared under tol="float", whose GEMM allowance (n + 2) * eps * sum|a_ik b_kj| bounds the gap
# between any two summation orders (tests/harness/runner.py).
cases("gemm_agreement", {
    "mm_fma_small": "torch.mm(torch.randn(5, 7), torch.randn(7, 6))",
    "mm_fma_big": "torch.mm(torch.randn(16, 64), torch.randn(64, 32))",
    "addmm_fma": "torch.addmm(torch.randn(16, 32), torch.randn(16, 64), torch.randn(64, 32))",
    "mm_out_fma": "o = torch.empty(0); torch.mm(torch.randn(3, 4), torch.randn(4, 5), out=o); o",
    "mm_f64": "torch.mm(torch.randn(6, 9, dtype=torch.float64), torch.randn(9, 4, dtype=torch.float64))",
}, tol="float")

cases("kernel_agreement", {
    "add_alpha_f16_40": "torch.add(torch.randn(40).half(), torch.randn(40).half(), alpha=0.3)",
    "sub_alpha_bf16_70": "torch.sub(torch.randn(70).bfloat16(), torch.randn(70).bfloat16(), alpha=0.3)",
    "add_alpha_f16_strided": "torch.add(torch.randn(40).half()[::2], torch.randn(20).half(), alpha=0.3)",
    "div_trunc_bf16": "torch.div(torch.randn(10).bfloat16() * 4, 0.3, rounding_mode='trunc')",
    "bf16_nan_f32": "torch.full((5,), float('nan')).bfloat16().view(torch.int16)",
    "bf16_nan_f64": "torch.full((20,), float('nan'), dtype=torch.float64).bfloat16().view(torch.int16)",
    "bf16_nan_strided": "torch.full((4, 4), float('nan'))[:, ::2].bfloat16().view(torch.int16)",
    "mean_bf16_dtype": "(torch.arange(24.).reshape(4, 6) * 0.37).mean(1, dtype=torch.bfloat16)",
    "ravel_contig": "x = torch.arange(6.).reshape(2, 3); x.ravel()",
    "ravel_noncontig": "torch.arange(6.).reshape(2, 3).t().ravel()",
    "c32_add_alpha": "torch.add(torch.tensor([0.5, -1.5]).half(), 1j, alpha=2)",
    "c32_mul_c32": "(torch.tensor([0.5, -1.5]).half() * 1j) * (torch.tensor([2., 3.]).half() + 1j)",
    "c32_to": "torch.tensor([0.1, -2.7]).to(torch.complex32)",
    "normal_float_tensor": "torch.normal(3., torch.full((20,), 2.))",
}, tol=None)

cases("complex_unary", {
    "exp2_c128": "torch.exp2(torch.tensor([1+2j, -0.5j, 0j, -3+0.25j], dtype=torch.complex128))",
    "expm1_c128": "torch.expm1(torch.tensor([1+2j, -0.5j, 0j, 1e-8+1e-8j], dtype=torch.complex128))",
    "log1p_c128": "torch.log1p(torch.tensor([1+2j, -0.5j, 0j, 0.1+0.2j, -1+0j], dtype=torch.complex128))",
    "silu_c64": "torch.nn.functional.silu(torch.tensor([1+2j, -0.5j, 0j, -3+0.25j]))",
}, tol="float")

# linear's ._base (a view of the 2-D addmm result for 1-D and contiguous >= 3-D inputs with bias);
# values under the float rule: upstream's BLAS sums tiny transposed products in its own order
cases("linear_views", {
    "linear_1d_bias": "torch.nn.functional.linear(torch.randn(4), torch.randn(5, 4), torch.randn(5))",
    "linear_4d_bias": "torch.nn.functional.linear(torch.randn(2, 2, 3, 4), torch.randn(5, 4), torch.randn(5))",
    "linear_3d_nc": "torch.nn.functional.linear(torch.randn(3, 2, 4).transpose(0, 1), torch.randn(5, 4), torch.randn(5))",
    "linear_2d_nobias": "torch.nn.functional.linear(torch.randn(3, 4), torch.randn(5, 4))",
}, tol="float")

# A 0-dim integer tensor binds an int parameter only after the overloads taking a Tensor there
# (upstream sorts Tensor before int), and numpy's keyword names are taken for dim / keepdim /
# input / other as upstream's parser takes them.
cases("parser_int_tensor_and_numpy_names", {
    "max_other_0d": "x = torch.arange(6.).view(2, 3)\n(torch.max(x, torch.tensor(2)), x.min(torch.tensor(3)), x.narrow(1, torch.tensor(1), 2))",
    "int_from_tensor_still_binds": "x = torch.arange(6.).view(2, 3)\n(x.sum(torch.tensor(1)), torch.arange(6.).view(2, 3).select(torch.tensor(0), torch.tensor(1)))",
    "axis_keepdims": "x = torch.arange(6.).view(2, 3)\n(x.mean(axis=0), x.sum(axis=1, keepdims=True), torch.sum(x, axis=0), x.std(axis=1, keepdims=True), torch.amax(x, axis=(0, 1)), x.max(axis=1), torch.cat([x, x], axis=0), x.softmax(axis=0))",
    "x_a_x1_x2": "x = torch.arange(6.).view(2, 3)\n(torch.sum(a=x, axis=0), torch.add(x1=x, x2=x), torch.add(x, x2=x), torch.mean(x=x))",
    "both_names": "torch.arange(6.).mean(axis=0, dim=0)",
})

# upstream's bindings take None for a list argument whose schema default is [] (torchgen writes the
# C++ default {} as None in the binding's signature); other defaulted lists, lists without a default
# and torch.ops refuse it
cases("parser_none_for_empty_default", {
    "avg_pool2d_stride": "torch.nn.functional.avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, None, 0)",
    "avg_pool2d_stride_kw": "torch._C._nn.avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, stride=None)",
    "avg_pool1d_stride": "torch.avg_pool1d(torch.arange(8.).reshape(1, 1, 8), 2, None)",
    "avg_pool3d_stride": "torch._C._nn.avg_pool3d(torch.arange(64.).reshape(1, 1, 4, 4, 4), 2, None)",
    "max_pool2d_stride": "torch.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, None)",
    "quantized_avg_pool2d": """
        q = torch.quantize_per_tensor(torch.arange(16.).reshape(1, 1, 4, 4) / 4, 0.1, 0, torch.quint8)
        torch.nn.functional.avg_pool2d(q, 2, None, 0).int_repr()
    """,
    "quantized_max_pool2d": """
        q = torch.quantize_per_tensor(torch.arange(16.).reshape(1, 1, 4, 4) / 4, 0.1, 0, torch.quint8)
        torch.nn.functional.max_pool2d(q, 2, None).int_repr()
    """,
    "amax_dim": "torch.amax(torch.arange(6.).reshape(2, 3), None)",
    "amin_dim_kw": "torch.arange(6.).reshape(2, 3).amin(dim=None)",
    "roll_dims": "torch.roll(torch.arange(6.).reshape(2, 3), 1, None)",
    # refused: a list default other than [], a list without a default, torch.ops
    "avg_pool2d_padding": "torch.nn.functional.avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, 2, None)",
    "max_pool2d_dilation": "torch.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, 2, 0, None)",
    "roll_shifts": "torch.roll(torch.arange(6.), None)",
    "logsumexp_dim": "torch.logsumexp(torch.arange(6.), None)",
    "aten_avg_pool2d_default": "torch.ops.aten.avg_pool2d.default(torch.arange(16.).reshape(1, 1, 4, 4), [2, 2], None)",
})
