"""Exception types and messages of fuzz-corpus calls (tests/test_no_crash.py) that used to differ
from upstream (issue #11 item 5, docs/outdev.md "Fuzz corpus exceptions"), compared with
upstream: torch.ops.aten overloads given a value their schema does not take (RuntimeError
"Expected a value of type ..."), Python ints beyond int64 for Scalar / int / int[] parameters
by spelling, mixed cpu / meta inputs. Found with tools/fuzz_errors.py; each case returns
(type, message) with upstream's C++ trace and pybind cast details left out."""
from harness import cases

ERR = """
import math
def err(f):
    try:
        r = f()
        return ("ok", r.dtype if hasattr(r, "dtype") else type(r).__name__)
    except Exception as e:
        keep = []
        for line in str(e).split("\\n"):
            if line.startswith(("Cast error details", " Python error details", "Exception raised from", '"')):
                break
            keep.append(line)
        return (type(e).__name__, "\\n".join(keep))
x = (torch.arange(6, dtype=torch.float64) * 0.37 - 1.1).reshape(2, 3).float()
i = torch.tensor([[0, 1, 0], [1, 0, 1]])
a = torch.ops.aten
"""

cases("fuzz_aten_bad_value", {   # torch.ops.aten.X.overload: the schema matcher's RuntimeError
    "int_list_got_str_list": "err(lambda: a._adaptive_avg_pool2d.default(x, ['a']))",
    "int_list_got_float_list": "err(lambda: a.zeros.default([1.5]))",
    "number_got_list": "err(lambda: a.add.Tensor(x, x, alpha=[1]))",
    "number_got_tensor": "err(lambda: a.mul.Scalar(x, torch.ones(2)))",
    "tensor_got_str": "err(lambda: a.add.Tensor(x, other='a'))",
    "scalartype_got_str": "err(lambda: a.to.dtype(x, 'a'))",
    "opt_tensor_list_got_none": "err(lambda: a.index.Tensor(x, None))",
    "binding_tensor_list_none": "err(lambda: torch.index_put(x, None, torch.ones(1)))",
    "binding_tensor_list_none_method": "err(lambda: x.index_put(None, torch.ones(1)))",
    "binding_tensor_list_none_kw": "err(lambda: torch._unsafe_masked_index(x, x > 0, indices=None, fill=1))",
    "binding_tensor_list_none_inplace_kw": "err(lambda: x.clone().index_put_(indices=None, values=torch.ones(1)))",
    "bool_got_tensor": "err(lambda: a.sum.dim_IntList(x, [0], torch.ones(2)))",
    "opt_float_got_complex": "err(lambda: a.nan_to_num.default(x, 1j))",
    "tensor_list_got_tensor": "err(lambda: a.cat.default(x))",
    "int_got_float": "err(lambda: a.select.int(x, 0, 1.5))",
    "int_got_none": "err(lambda: a.select.int(x, 0, None))",
    "opt_int_got_str": "err(lambda: a.cumsum.default(x, 0, dtype='a'))",
    "device_got_float": "err(lambda: a.zeros.default([2], device=1.5))",
}, setup=ERR)

cases("fuzz_big_ints", {
    # Scalar: read as uint64 past int64 (taken below 2**64), OverflowError outside
    "scalar_2p63_float": "err(lambda: torch.clamp(x, max=2**63))",
    "scalar_2p63_aten": "err(lambda: a.clamp.default(x, max=2**63))",
    "scalar_2p63_int": "(err(lambda: a.add.Scalar(i, 2**63)), a.add.Scalar(i, 2**63))",
    "scalar_2p63_mul_int": "a.mul.Scalar(i, 2**63)",
    "scalar_2p64": "err(lambda: torch.clamp(x, min=2**64))",
    "scalar_2p64_aten": "err(lambda: a.mul.Scalar(x, 2**64))",
    "scalar_2p70_method": "err(lambda: x.mul(2**70))",
    "scalar_neg": "err(lambda: torch.clamp(x, max=-2**63 - 1))",
    "scalar_neg_aten": "err(lambda: a.add.Scalar(i, -2**63 - 1))",
    # int / int[] in the Python bindings: ValueError / TypeError naming the element
    "int_select": "err(lambda: x.select(0, 2**63))",
    "int_select_neg": "err(lambda: torch.select(x, 0, -2**63 - 1))",
    "int_sum": "err(lambda: torch.sum(x, 2**63))",
    "int_list_sum": "err(lambda: torch.sum(x, [0, 2**63]))",
    "int_list_view_varargs": "err(lambda: x.view(2**63))",
    "int_list_zeros": "err(lambda: torch.zeros(2**64, 1))",
    "int_list_permute": "err(lambda: x.permute(0, -2**63 - 1))",
    # torch.ops: the schema matcher's RuntimeError, the value as given
    "aten_int": "err(lambda: a.select.int(x, 0, 2**63))",
    "aten_int_list": "err(lambda: a.sum.dim_IntList(x, [2**63]))",
    "aten_view": "err(lambda: a.view.default(x, [-2**63 - 1]))",
}, setup=ERR)

cases("fuzz_meta_mixed", {   # corpus entries with one meta argument among cpu ones
    "sigmoid_backward": "err(lambda: a.sigmoid_backward.default(torch.empty(2, 3, device='meta'), x))",
    # the decomposition's own operand order names the devices: the type only
    "hardtanh_backward": "err(lambda: a.hardtanh_backward.default(x, torch.empty(2, 3, device='meta'), 2, 2))[0]",
    "softmax_backward_data": "err(lambda: a._softmax_backward_data.default(torch.empty(2, 3, device='meta'), x, 0, torch.float32))",
    "xlogy": "err(lambda: torch.xlogy(x, torch.empty(2, 3, device='meta')))",
    "floor_divide_inplace_meta_self": "err(lambda: torch.empty(2, 3, device='meta').floor_divide_(x))",
    "sub_inplace_cpu_self": "err(lambda: x.clone().sub_(torch.empty(2, 3, device='meta')))",
}, setup=ERR)

# upstream's promoteTypes refuses float8 with another dtype and uint16/32/64 with a non-floating
# one (RuntimeError, before any kernel); result_type's categories decide whether it is asked
PROMO = ERR + """
def f8v():   # made from bytes (our cast and fill have no float8 kernels); a function so the
    return torch.zeros(2, 3, dtype=torch.uint8).view(torch.float8_e5m2)   # harness reads no values
def u16v():
    return torch.ones(2, 3, dtype=torch.int16).view(torch.uint16)
"""
cases("fuzz_promotion", {
    "add_float8": "err(lambda: x + f8v())",
    "irshift_float8": "err(lambda: x.clone().__irshift__(f8v()))",
    "addcmul_float8": "err(lambda: x.clone().addcmul_(x, f8v().view(torch.float8_e4m3fn)))",
    "sub_inplace_float8_self": "err(lambda: f8v().sub_(x))",
    "where_float8": "err(lambda: torch.where(x > 0, f8v(), x))",
    "result_type_float8": "err(lambda: torch.result_type(f8v(), x))",
    "result_type_float8_wrapped": "torch.result_type(f8v(), 2.5)",
    "result_type_float8_0dim": "err(lambda: torch.result_type(f8v(), torch.tensor(1.0)))",
    "and_uint16_int64": "err(lambda: u16v() & i)",
    "result_type_uint16_bool": "err(lambda: torch.result_type(u16v(), x > 0))",
    "result_type_uint16_wrapped": "torch.result_type(u16v(), True)",
    "result_type_uint16_float": "torch.result_type(u16v(), x)",
    "result_type_uint64_uint32": "err(lambda: torch.result_type(torch.ones(2, dtype=torch.int64).view(torch.uint64), torch.ones(2, dtype=torch.int32).view(torch.uint32)))",
    "clamp_uint16_tensor": "err(lambda: torch.clamp(u16v(), min=i))",
    "atan2_uint16": "err(lambda: torch.atan2(u16v(), i))",
}, setup=PROMO)

# a copy from a dtype to itself is a byte copy for every dtype (clone, contiguous, copy_ of
# uint16/32/64 and float8, which have no arithmetic kernels here)
cases("fuzz_same_dtype_copy", {
    "clone_float8": "torch.arange(6, dtype=torch.uint8).add(120).view(torch.float8_e4m3fn).clone().view(torch.uint8)",
    "contiguous_uint16": "torch.arange(6, dtype=torch.int16).sub(3).reshape(2, 3).view(torch.uint16).t().contiguous().view(torch.int16)",
    "copy_uint64": "torch.zeros(3, dtype=torch.int64).view(torch.uint64).copy_(torch.tensor([-1, 5, 7]).view(torch.uint64)).view(torch.int64)",
    "copy_uint32_strided": "torch.zeros(2, 3, dtype=torch.int32).view(torch.uint32).copy_(torch.arange(6, dtype=torch.int32).sub(2).reshape(3, 2).view(torch.uint32).t()).view(torch.int32)",
    "sub_inplace_float8_self_clone": "err(lambda: torch.zeros(2, 3, dtype=torch.uint8).view(torch.float8_e5m2).clone().sub_(torch.ones(2, 3)))",
}, setup=ERR)


# upstream's TensorIterator checks the written-to tensor for internal overlap (a stride-0 dim of
# size > 1) and partial overlap with an input before it looks at shapes and dtypes
cases("fuzz_overlap", {
    "irshift_expanded_float": "err(lambda: torch.zeros(3).expand(2, 3).__irshift__(torch.tensor(1)))",
    "eq_inplace_expanded": "err(lambda: torch.zeros(3).expand(2, 3).eq_(x))",
    "fmod_inplace_expanded": "err(lambda: torch.zeros(3).expand(2, 3).fmod_(x))",
    "divide_inplace_expanded_int": "err(lambda: torch.zeros(3, dtype=torch.int64).expand(2, 3).divide_(x))",
    "clamp_min_inplace_expanded": "err(lambda: torch.zeros(3).expand(2, 3).clamp_min_(x))",
    "clamp_min_inplace_expanded_complex": "err(lambda: torch.zeros(3, dtype=torch.complex64).expand(2, 3).clamp_min_(x))",
    "clamp_inplace_expanded_float8_min": "err(lambda: torch.zeros(3).expand(2, 3).clamp_(min=torch.zeros(2, 3, dtype=torch.uint8).view(torch.float8_e5m2)))",
    "ge_out_partial": "err(lambda: (lambda y: torch.ge(y, 1, out=y[0]))(x.clone()))",
    "logaddexp_out_transposed_self": "err(lambda: (lambda y: torch.logaddexp(y, y, out=y.t()))(torch.ones(3, 3)))",
    "softshrink_backward_expanded": "err(lambda: a.softshrink_backward.grad_input(x, x, 0.5, grad_input=torch.zeros(3).expand(2, 3)))",
    "sub_inplace_ok_same": "(lambda y: y.sub_(y))(x.clone())",
}, setup=ERR)

# a Scalar that does not fit the dtype it is converted to: upstream's c10::overflows (inf and NaN
# pass into floating types, NaN and inf do not into integers, ints down to -max pass into uint8,
# a complex with an imaginary part does not into a real type, bool takes anything)
FILL = ERR + """
m = torch.tensor([[True, False, True], [False, True, False]])
def mf(dt, v):
    return err(lambda: torch.zeros(2, 3, dtype=dt).masked_fill(m, v).tolist())
"""
cases("fuzz_scalar_overflow", {
    "masked_fill_f32_big": "mf(torch.float32, 1e308)",
    "masked_fill_f32_inf": "mf(torch.float32, -math.inf)",
    "masked_fill_f32_complex": "mf(torch.float32, 1j)",
    "masked_fill_f16": "[mf(torch.float16, v) for v in (65504.0, 65519.0, 2**63 - 1, math.nan)]",
    "masked_fill_bf16": "[mf(torch.bfloat16, v) for v in (3e38, 3.5e38, 1j)]",
    "masked_fill_i64": "[mf(torch.int64, v) for v in (math.nan, math.inf, 1e20, 2**63 - 1, 1j)]",
    "masked_fill_i32": "[mf(torch.int32, v) for v in (2**31, -2**31, 1e10)]",
    "masked_fill_i8": "[mf(torch.int8, v) for v in (127, 128, -129, 300)]",
    "masked_fill_u8": "[mf(torch.uint8, v) for v in (255, 256, -255, -256, math.inf)]",
    "masked_fill_bool": "[mf(torch.bool, v) for v in (300, 1j, math.nan)]",
    "masked_fill_c64": "[mf(torch.complex64, v) for v in (1e39j, 1e39, math.inf)]",
    "masked_fill_inplace": "err(lambda: torch.zeros(2, 3, dtype=torch.int8).masked_fill_(m, 200))",
    "masked_fill_shape_first": "err(lambda: torch.zeros(3, dtype=torch.int8).masked_fill_(m, 200))",
    # no kernel upstream for uint16 (NotImplementedError before the value is converted): the type
    "masked_fill_uint16_no_kernel_first": "mf(torch.uint16, math.nan)[0]",
    "masked_fill_mask_dtype_first": "err(lambda: torch.zeros(2, 3, dtype=torch.int8).masked_fill(m.int(), 200))",
}, setup=FILL)

# clamp's bounds go through the same checked conversion as fill (uint8 takes -255..-1, wrapping)
cases("fuzz_clamp_bounds", {
    "u8_negative_min": "torch.clamp(torch.tensor([1, 200], dtype=torch.uint8), min=-5)",
    "u8_min_too_negative": "err(lambda: torch.clamp(torch.tensor([1, 200], dtype=torch.uint8), min=-300))",
    "u8_max_256": "err(lambda: torch.clamp(torch.tensor([1, 200], dtype=torch.uint8), max=256))",
    "i8_bounds": "[err(lambda: torch.clamp(torch.tensor([1], dtype=torch.int8), max=v)) for v in (-129, -128, 127, 128)]",
    "f16_max": "[err(lambda: torch.clamp(torch.tensor([1.], dtype=torch.half), max=v)) for v in (65504.0, 1e6, math.inf)]",
}, setup=FILL)

# scatter's structured out=: upstream's meta checks (index dtype, shapes), the out's overlap, then
# the out dtype must equal self's; the kernel converts the value after its index checks
cases("fuzz_scatter_out", {
    "value_out_dtype": "err(lambda: torch.scatter(x.half(), 0, i, 2, out=torch.zeros(2, 3)))",
    "value_out_dtype_long": "err(lambda: torch.scatter(i, 0, i, 2, out=torch.zeros(2, 3)))",
    "value_out_dtype_bool": "err(lambda: torch.ops.aten.scatter.value_out(x > 0, 0, i, 2, out=torch.zeros(2, 3)))",
    "src_out_dtype": "err(lambda: torch.scatter(x, 0, i, x, out=torch.zeros(2, 3, dtype=torch.float64)))",
    "out_index_dtype_first": "err(lambda: torch.scatter(x, 0, i.float(), 2, out=x.half()))",
    "out_bounds_after_dtype": "err(lambda: torch.scatter(x, 0, i + 5, 2, out=x.half()))",
    "out_overlap": "err(lambda: torch.scatter(x, 0, i, 2, out=torch.zeros(3).expand(2, 3)))",
    "out_ok": "torch.scatter(x, 0, i, 2, out=torch.zeros(2, 3))",
    "value_overflow_long": "err(lambda: torch.scatter(i, 0, i, math.inf))",
    "value_overflow_u8": "err(lambda: torch.scatter(i.to(torch.uint8), 0, i, -math.inf))",
    "value_overflow_half": "err(lambda: torch.scatter(x.half(), 0, i, 2**63 - 1))",
    "value_overflow_after_bounds": "err(lambda: torch.scatter(i, 0, i + 5, math.inf))",
    "value_overflow_inplace": "err(lambda: i.clone().scatter_(0, i, 1e20))",
    "value_reduce_overflow": "err(lambda: x.half().scatter_(0, i, 1e10, reduce='add'))",
}, setup=ERR)
cases("fuzz_scatter_out_more", {
    # the out may share memory with self (only index and src are checked against it)
    "out_self_row": "(lambda y: (torch.scatter(y, 0, i, 2, out=y[0]), y))(x.clone())[1]",
    "meta_value_unchecked": "torch.scatter(torch.empty(2, 3, device='meta'), 0, i, 1j).shape",
}, setup=ERR)

# add / sub's alpha: upstream's alpha_check against the common dtype, then the kernel's
# alpha.to<scalar_t>() (c10::overflows); sub's bool check comes first
cases("fuzz_alpha", {
    "bool_alpha_float": "err(lambda: x.sub(x, alpha=True))",
    "bool_alpha_long": "err(lambda: i.add(i, alpha=True))",
    "bool_alpha_bool": "(x > 0).add(x > 0, alpha=True)",
    "bool_sub_first": "err(lambda: (x > 0).sub(x > 0, alpha=True))",
    "complex_alpha_float": "err(lambda: x.sub(x, alpha=1j))",
    "complex_alpha_long": "err(lambda: i.add(i, alpha=1j))",
    "complex_alpha_complex": "x.to(torch.complex64).add(x, alpha=1j)",
    "float_alpha_long": "err(lambda: torch.subtract(i, i, alpha=1.5))",
    "overflow_float": "err(lambda: x.add(x, alpha=1e308))",
    "overflow_half": "[err(lambda: x.half().sub(x.half(), alpha=v)) for v in (65504.0, 1e10)]",
    "overflow_int": "err(lambda: i.int().add(i.int(), alpha=2**40))",
    "long_max": "i.add(i, alpha=2**63 - 1)",
    "nan_inf_float": "[x.add(x, alpha=v) for v in (math.nan, math.inf)]",
    "overflow_subtract_out": "err(lambda: torch.subtract(x, x, alpha=-1e308, out=torch.empty(2, 3)))",
    "overflow_sub_inplace": "err(lambda: x.clone().sub_(x, alpha=1e39))",
    "meta_unchecked": "torch.add(torch.empty(2, 3, device='meta'), torch.empty(2, 3, device='meta'), alpha=1e308).shape",
}, setup=ERR)
cases("fuzz_alpha_order", {
    # the in-place / out= cast refusal comes before the alpha checks
    "inplace_cast_first": "[err(lambda: i.clone().sub_(x, alpha=v)) for v in (True, 1j, 1e308)]",
    "out_cast_first": "err(lambda: torch.add(x, x, alpha=True, out=i.clone()))",
    "inplace_shape_first": "[err(lambda: torch.tensor(1.0).sub_(x, alpha=v)) for v in (True, 1j, 1e308)]",
    "meta_bool_alpha": "torch.empty(2, 3, device='meta').sub(torch.empty(2, 3, device='meta'), alpha=True).shape",
}, setup=ERR)

# torch.ops.aten.X.overload: upstream's toIValue converts more than its Python bindings (an int
# takes a bool, a plain int a dtype as its ScalarType number, a bool any number / None / a
# one-element tensor as its truth, a Scalar a dtype) and a Scalar refuses a tensor, 0-dim too
cases("fuzz_aten_loose", {
    "int_got_bool": "a.select.int(x, True, 0)",
    "opt_int_got_bool": "a.slice.Tensor(x, 0, True, 2)",
    "symint_got_bool": "a.narrow.default(x, 0, 0, True)",
    "int_got_dtype": "err(lambda: a.select.int(x, torch.float32, 0))",
    "int_got_dtype_in_range": "a.select.int(x, torch.uint8, 0)",
    "opt_int_got_dtype": "err(lambda: a.slice.Tensor(x, 0, torch.int8, 2))",
    "symint_got_dtype": "err(lambda: a.narrow.default(x, 0, 0, torch.uint8))",
    "bool_got_int": "[a.argsort.stable(x, stable=v, dim=0, descending=d) for v in (2, 0) for d in (0, 1.5)]",
    "bool_got_float": "a.std.default(x, unbiased=0.0)",
    "bool_got_none_complex": "[a.std.default(x, unbiased=v) for v in (None, 1j, 0j)]",
    "bool_got_tensor": "[a.std.default(x, unbiased=v) for v in (torch.tensor(0), torch.tensor([1.5]))]",
    "bool_got_tensor_2": "err(lambda: a.std.default(x, unbiased=torch.tensor([1, 1])))",
    "bool_got_str": "err(lambda: a.std.default(x, unbiased='a'))",
    "bool_got_dtype": "err(lambda: a.std.default(x, unbiased=torch.float32))",
    "number_got_dtype": "[a.pow.Tensor_Scalar(x, torch.int16), a.norm.ScalarOpt_dim(x, torch.float16, [0])]",
    "number_got_tensor": "[err(lambda: f()) for f in (lambda: a.pow_.Scalar(x.clone(), torch.tensor(2.)), "
                         "lambda: a.add.Tensor(x, x, alpha=torch.tensor(2)), lambda: a.clamp.default(x, torch.tensor(1.)), "
                         "lambda: a.masked_fill.Scalar(x, x > 0, torch.tensor(1.)))]",
    "packet_number_tensor": "[a.pow_(x.clone(), torch.tensor(2.)), a.add(x, torch.tensor(2.))]",
    # pin_memory given as a number means True: the random factories refuse it as the others do
    "pin_memory_number": "[err(lambda: f()) for f in (lambda: a.rand.generator([2, 3], generator=None, pin_memory=2), "
                         "lambda: a.rand_like.generator(x, generator=None, pin_memory=0.5), "
                         "lambda: a.randint_like.low_generator_dtype(x, 1, 1, generator=None, pin_memory=2), "
                         "lambda: torch.randn(2, pin_memory=True), lambda: torch.randint(3, (2,), pin_memory=True), "
                         "lambda: torch.randn_like(x, pin_memory=True))]",
    "pin_memory_false": "[a.rand_like.generator(x, generator=None, pin_memory=0).shape, torch.rand(2, pin_memory=False).shape]",
}, setup=ERR)

# out= dtype checks of structured kernels (set_output: the exact dtype) and the kernels' own,
# in upstream's order against the dim / argument checks
OUTDT = ERR + """
o64 = torch.zeros(2, 3, dtype=torch.float64)
def o(dt=torch.float32, *s):
    return torch.zeros(*(s or (2, 3)), dtype=dt)
"""
cases("fuzz_out_dtype", {
    "tril_triu": "[err(lambda: f(y, out=o64)) for f in (torch.tril, torch.triu) for y in (x, x.long(), x.half())]",
    "tril_1d_first": "err(lambda: torch.tril(torch.ones(3), out=o64))",
    "tril_dtype_before_overlap": "err(lambda: torch.tril(x, out=torch.empty(3, dtype=torch.float64).expand(2, 3)))",
    "renorm": "[err(lambda: torch.renorm(y, 2, d, 1., out=o64)) for y in (x, x.long()) for d in (0, 5)]",
    "renorm_complex": "[err(lambda: f()) for f in (lambda: torch.renorm(x, 2, 0, 1j), lambda: x.clone().renorm_(2, 0, 1j), "
                      "lambda: torch.renorm(x, 2j, 0, 1.), lambda: torch.renorm(x, 2, 0, 1j, out=o64))]",
    "softmax_out": "[err(lambda: f.out(y, d, h, out=z)) for f in (a._log_softmax, a._softmax) for y in (x, x.half()) "
                   "for d in (0, 5) for h in (False, True) for z in (o(), o64, o(torch.float16))]",
    "softmax_h2f_fn": "[err(lambda: f(y, 0, True)) for f in (a._log_softmax.default, a._softmax.default) for y in (x, x.half())]",
    "any_all_out": "[err(lambda: f(y, 0, out=z)) for f in (torch.any, torch.all) for y in (x, x.byte(), x > 0) "
                   "for z in (o(), o(torch.uint8, 3), o(torch.bool, 3), o(torch.int8, 3))]",
    "any_dim_after_out": "[err(lambda: torch.any(x, d, out=o())) for d in (5, -2**63)]",
    "any_full_out": "[a.any.all_out(x, out=o(torch.uint8, 0)), a.all.all_out(x.byte(), out=o(torch.bool, 0)), "
                    "err(lambda: a.all.all_out(x, out=o(torch.float32, 0)))]",
    "amax_amin": "[err(lambda: f(y, d, out=z)) for f in (torch.amax, torch.amin) for y in (x, x.long()) "
                 "for d in (0, 5) for z in (o64, o(torch.float32, 3))]",
    "amax_empty": "[err(lambda: torch.amax(torch.empty(0, 3), d, out=o(torch.float32, 0))) for d in ([0, 0], [1, 0], [0, 1], [5], [])]",
    "index_select": "[err(lambda: torch.index_select(y, 0, k, out=z)) for y in (x, torch.tensor(1.)) "
                    "for k in (torch.tensor([0]), torch.tensor([], dtype=torch.long)) for z in (o64, o(torch.float32, 0))]",
    "index_select_overlap": "[err(lambda: torch.index_select(x, 0, torch.tensor([0]), out=x)), "
                            "err(lambda: torch.index_select(torch.tensor(1.), 0, torch.tensor([], dtype=torch.long)))]",
    "linalg_cross": "[err(lambda: torch.linalg.cross(y, z, out=w)) for y, z in ((x, x), (x, x[:1]), (torch.ones(2, 4), torch.ones(2, 4))) "
                    "for w in (o(), o64)]",
    "linalg_cross_overlap": "[err(lambda: torch.linalg.cross(x, x.flip(0), out=w)) for w in (x, torch.empty(3).expand(2, 3), "
                            "torch.empty(3, dtype=torch.float64).expand(2, 3), torch.tensor(1.).expand(3))]",
    "linalg_cross_bcast": "err(lambda: torch.linalg.cross(torch.ones(2, 3), torch.ones(3, 3)))",
}, setup=OUTDT)
cases("fuzz_loss_reduction", {
    # mse_loss / smooth_l1_loss's meta asserts mean or sum (after the operands' checks); the
    # composite losses take any other value as none; soft_margin_loss keeps the first element
    "mse_smooth_l1": "[err(lambda: f(x, y, r)) for f in (a.mse_loss.default, a.smooth_l1_loss.default) "
                     "for y in (x.flip(0), torch.ones(3, 3)) for r in (-1, 3)]",
    "mse_out": "[err(lambda: a.mse_loss.out(y, x, r, out=z)) for y in (x, x.to(torch.complex64)) for r in (3, 1) for z in (o(), o(torch.long))]",
    "soft_margin_out_dtype": "[err(lambda: a.soft_margin_loss.out(y, t, r, out=z)) for y, t in ((x, x), (x.half(), x), (x, x.double()), "
                             "(x.long(), x.long()), (x > 0, x)) for r in (0, 1) for z in (o(), o64)]",
}, setup=OUTDT)
cases("fuzz_out_dtype_values", {   # the calls that pass those checks compute as before
    "tril_ok": "torch.tril(x, 1, out=o())",
    "renorm_ok": "torch.renorm(x, 2, 0, 0.5, out=o())",
    "softmax_ok": "a._log_softmax.out(x, 1, False, out=o())",
    "linalg_cross_ok": "torch.linalg.cross(x, x.flip(0) + 1, out=o())",
    # a uint8 out reduces self cast to uint8 first (so -0.73 and 0.38 give 0)
    "any_all_uint8_out": "[f(y, 0, out=o(torch.uint8, 3)) for f in (torch.any, torch.all) for y in (x, x * 300, x > 0)]",
    "bce_unreduced": "a.binary_cross_entropy.default(x.sigmoid(), x.flip(0).sigmoid(), None, 3)",
    "unreduced": "[f(x, x.flip(0) * 0.5, r) for f in (a.l1_loss.default, a.huber_loss.default) for r in (-1, 3)]",
    "soft_margin_first": "[a.soft_margin_loss.default(x, x.flip(0), r) for r in (-1, 3)]",
    "mse_bool": "[a.mse_loss.default(x > 0, x, r) for r in (0, 1)] + [err(lambda: a.mse_loss.default(x > 0, x > 0))]",
}, setup=OUTDT, tol="float")

# a Scalar argument converted by the kernel once it has dispatched on the compute dtype: to its
# opmath type (hardtanh / leaky_relu backward, elu / celu, leaky_relu, addcmul / addcdiv, lerp,
# the _foreach_ forms), to the dtype itself (shrink backward; pow for integral and half types),
# to double first (celu's alpha, rrelu_with_noise_backward's bounds)
SCAL = ERR + """
def each(f, dts=(torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64, torch.int64),
         vals=(1e308, 1e20, 70000.0, 1j, 2**40, 300, 2**63 - 1)):
    out = []
    for dt in dts:
        y = torch.ones(2, 3, dtype=dt)
        out.append([str(err(lambda: f(y, v)))[:90] for v in vals])
    return out
"""
cases("fuzz_kernel_scalar", {
    "hardtanh_backward": "each(lambda y, v: a.hardtanh_backward.default(y, y, v, 2))",
    "hardtanh_backward_max": "each(lambda y, v: a.hardtanh_backward.default(y, y, -1, v))",
    "leaky_relu_backward": "each(lambda y, v: a.leaky_relu_backward.default(y, y, v, False))",
    "shrink_backward": "each(lambda y, v: a.softshrink_backward.default(y, y, v)) + each(lambda y, v: a.hardshrink_backward.default(y, y, v))",
    "rrelu_with_noise_backward": "each(lambda y, v: a.rrelu_with_noise_backward.default(y, y, y, v, 2, False, False))",
    "elu_celu": "each(lambda y, v: a.elu.default(y, v)) + each(lambda y, v: a.celu.default(y, v)) + each(lambda y, v: a.leaky_relu.default(y, v))",
    "addcmul_addcdiv": "each(lambda y, v: a.addcmul_.default(y.clone(), y, y, value=v)) + each(lambda y, v: a.addcdiv.default(y, y, y + 1, value=v), "
                       "dts=(torch.float32, torch.float16, torch.complex64))",
    "lerp": "each(lambda y, v: a.lerp.Scalar(y, y, v), dts=(torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.complex64))",
    "foreach": "each(lambda y, v: a._foreach_addcmul.Scalar([y], [y], [y], v)) + each(lambda y, v: a._foreach_lerp.Scalar([y], [y], v), "
               "dts=(torch.float32, torch.float16, torch.complex64))",
    "pow": "each(lambda y, v: a.pow_.Scalar(y.clone(), v), dts=(torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, "
           "torch.int32, torch.uint8, torch.int8), vals=(1e308, 1e20, 70000.0, 2**40, 300, 2**63 - 1)) + "
           "each(lambda y, v: a.pow.Tensor_Scalar(y, v), dts=(torch.float16, torch.int8), vals=(1e20, 300, -2**63))",
}, setup=SCAL)
cases("fuzz_kernel_scalar_values", {   # values that fit compute as before
    "celu_hardtanh": "[a.celu.default(x, 0.5), a.hardtanh_backward.default(x, x, -0.5, 0.5), a.addcmul.default(x, x, x, value=2 ** 40)]",
    "pow_int": "[a.pow.Tensor_Scalar(i.to(torch.uint8), 255), a.pow.Tensor_Scalar(x.half(), 3.0)]",
}, setup=ERR, tol="float")

# in-place and out= ops that check what upstream's own path checks
cases("fuzz_inplace_out_more", {
    # ldexp_ is self.mul_(2 ** other): an in-place shape check, not an out= resize
    "ldexp_": "[err(lambda: y.clone().ldexp_(e)) for y in (torch.tensor(1.), x, torch.ones(1, 3), x.long()) for e in (x, i)]",
    "ldexp_values": "[x.clone().ldexp_(i), x.double().ldexp_(x)]",
    # clamp with tensor bounds: an ordinary promoting iterator (out= takes what the common dtype casts to)
    "clamp_tensor_out": "[err(lambda: torch.clamp(y, min=m, out=torch.zeros(2, 3, dtype=od))) for y in (x, x.double(), i) "
                        "for m in (x * 0.5, x.double() * 0.5, i) for od in (torch.float32, torch.float16, torch.int64)]",
    "clamp_tensor_out_values": "[torch.clamp(x.double() * 3, min=x.double(), out=torch.zeros(2, 3, dtype=torch.float16)), "
                               "torch.clip(i, max=i * 0 + 1, out=torch.zeros(2, 3))]",
    "clamp_scalar_out_strict": "err(lambda: torch.clamp(x, min=0.5, out=torch.zeros(2, 3, dtype=torch.float64)))",
    # repeat_interleave checks repeats' rank before the dim
    "repeat_interleave": "[err(lambda: torch.repeat_interleave(x, r, dim=d)) for r in (torch.ones(2, 3, dtype=torch.long), torch.tensor([1, 2]), torch.tensor(2)) "
                         "for d in (0, 5, -2**63)]",
}, setup=ERR)

# mixed meta / cpu tensors: the references' in-place forms and the references reached through a
# composite (after its own checks) refuse them; copysign / floor_divide compare dividend and
# divisor in their own words; the _foreach_ ops pair their lists' tensors
MIX = ERR + """
m = torch.empty(2, 3, device='meta')
def both(f):
    return [str(err(lambda: f(m.clone(), x.clone() + 0.5))), str(err(lambda: f(x.clone() + 0.5, m)))]
"""
cases("fuzz_meta_mixed_more", {
    "inplace_refs": "[both(f) for f in (lambda p, q: p.eq_(q), lambda p, q: p.fmod_(q), lambda p, q: p.clamp_min_(q), "
                    "lambda p, q: p.addcmul_(q, q), lambda p, q: p.addcdiv_(q, q), lambda p, q: p.lerp_(q, 0.5), lambda p, q: p.pow_(q), "
                    "lambda p, q: p.atan2_(q), lambda p, q: p.xlogy_(q))]",
    "inplace_unchecked": "[both(f) for f in (lambda p, q: p.sub_(q), lambda p, q: p.mul_(q), lambda p, q: p.div_(q), lambda p, q: a.divide_.Tensor(p, q))]",
    "divisor": "[both(f) for f in (lambda p, q: p.floor_divide_(q), lambda p, q: p.copysign_(q))]",
    "composite": "[both(f) for f in (lambda p, q: a.subtract.Tensor(p, q), lambda p, q: a.arctan2.default(p, q), lambda p, q: a.greater.Tensor(p, q), "
                 "lambda p, q: a.isclose.default(p, q), lambda p, q: a.min.other(p, q), lambda p, q: a.special_gammainc.default(p, q), "
                 "lambda p, q: a.multiply.Tensor(p, q), lambda p, q: a.true_divide.Tensor(p, q))]",
    "composite_own_checks_first": "[both(f) for f in (lambda p, q: a.isclose.default(p, q, rtol=-1.0), "
                                  "lambda p, q: torch.repeat_interleave(p, q))] + [err(lambda: a.type_as.default(x, m))]",
    "composite_out": "[both(f) for f in (lambda p, q: a.subtract.out(p, q, out=torch.zeros(2, 3)), "
                     "lambda p, q: a.greater.Tensor_out(p, q, out=torch.zeros(2, 3, dtype=torch.bool)))]",
    "direct_unchecked": "[both(f) for f in (lambda p, q: a.sub.Tensor(p, q), lambda p, q: a.atan2.default(p, q), lambda p, q: a.gt.Tensor(p, q))]",
    "special_polynomials": "[both(f) for f in (lambda p, q: a.special_legendre_polynomial_p.default(p, q), "
                           "lambda p, q: a.special_hermite_polynomial_h.default(p, q))]",
    # a CPU argument an op returns as it is (broadcast_tensors, to) stays a CPU tensor
    "cpu_argument_kept": "[err(lambda: torch.nn.functional.mse_loss(m, x))[0], err(lambda: torch.nn.functional.l1_loss(x, m))[0], "
                         "x.to(m).device, x.device, torch.broadcast_tensors(x, m)[0].device, x.device]",
    "foreach": "[both(f) for f in (lambda p, q: a._foreach_add.List([p, q], [q, q]), lambda p, q: a._foreach_addcmul.Scalar([p, q], [q, q], [q, q]), "
               "lambda p, q: a._foreach_lerp.Scalar([p, q], [q, q], 0.5), lambda p, q: a._foreach_add_.List([p, q], [q, q]), "
               "lambda p, q: a._foreach_sign.default([p, q]))]",
}, setup=MIX)

# checks of single ops: NaN tolerances / std, in-place abs of complex, nanmean's dtype, and the
# written-to tensor's internal overlap where upstream's path asserts it (copy_, the random fills
# and their out=, put_, mvlgamma_, mse_loss / soft_margin_loss out=) but not where it writes one
# through (fill_, zero_, structured out= kernels such as tril)
SINGLE = ERR + """
def e():
    return torch.zeros(3).expand(2, 3)
"""
cases("fuzz_single_checks", {
    "isclose_nan": "[err(lambda: a.isclose.default(x, x, r, t)) for r, t in ((math.nan, 0.), (0., math.nan), (-1., 0.), (0., -1.), (math.inf, 0.))]",
    "normal_nan_std": "[err(lambda: f()) for f in (lambda: torch.normal(0., math.nan, (2,)), lambda: torch.normal(x, math.nan), "
                      "lambda: x.clone().normal_(0, math.nan), lambda: torch.normal(0., torch.full((2,), math.nan)), "
                      "lambda: torch.normal(0., math.nan, (2,), out=torch.zeros(2)))]",
    "abs_complex_inplace": "[err(lambda: f(x.to(torch.complex64))) for f in (torch.abs_, a.absolute_.default, torch.Tensor.abs_)]",
    "nanmean_dtype": "[err(lambda: a.nanmean.default(y, dtype=d)) for y in (x, i) for d in (torch.bool, torch.int64, torch.float64)]",
    "expanded_written": "[err(f) for f in (lambda: e().copy_(x), lambda: e().copy_(torch.tensor(1.)), lambda: e().normal_(), "
                        "lambda: e().uniform_(), lambda: e().random_(), lambda: e().bernoulli_(0.5), lambda: e().exponential_(), "
                        "lambda: e().mvlgamma_(1), lambda: e().mvlgamma_(0), lambda: e().put_(torch.tensor([0]), torch.tensor([1.])), "
                        "lambda: torch.rand((2, 3), out=e()), lambda: torch.randint(3, (2, 3), out=e()), "
                        "lambda: torch.normal(0., 1., (2, 3), out=e()), lambda: a.mse_loss.out(x, x, out=e()), "
                        "lambda: a.mse_loss.out(x, x, 0, out=e()), lambda: a.soft_margin_loss.out(x, x, out=e()))]",
    "expanded_written_through": "[f().sum().item() for f in (lambda: e().fill_(2.), lambda: e().zero_())] + [err(lambda: torch.tril(x, out=e()))[0]]",
    "put_overlap": "[err(lambda: x.clone().put_(torch.tensor([0]), s)) for s in (torch.tensor([1.]),)] + "
                   "[err(lambda: (lambda y: y.put_(torch.tensor([0, 1]), y[:2]))(x.clone().flatten()))]",
}, setup=SINGLE)

cases("meta_to_other", {   # to(other) / type_as(other): the other tensor's device decides, as upstream
    "to_cpu_other": "err(lambda: torch.empty(2, device='meta').to(torch.ones(2)))",
    "type_as_cpu": "err(lambda: torch.empty(2, device='meta').type_as(torch.ones(2, dtype=torch.int64)))",
    "to_meta_other": "r = torch.empty(2, device='meta').to(torch.empty(1, device='meta', dtype=torch.int64))\nr.device.type, r.dtype",
    "cpu_to_meta_other": "r = torch.ones(2).to(torch.empty(1, device='meta'))\nr.device.type, r.dtype",
}, setup=ERR)

# a Python int in [2**63, 2**64) is upstream's unsigned Scalar: a checked Scalar::to<T>() refuses it
# for every type but uint64 and the floating ones (full, fill_, clamp, masked_fill, index_fill,
# arange, where and pow's exponent), while as a wrapped number (binary ops, comparisons, Scalar
# overloads that wrap it) it is a uint64 that only decides the category
cases("fuzz_unsigned_scalar", {
    "full_infer": "err(lambda: torch.full((2,), 2**63))",
    "full_float32": "torch.full((2,), 2**63, dtype=torch.float32)",
    "full_float16": "err(lambda: torch.full((2,), 2**63, dtype=torch.float16))",
    "full_complex64": "torch.full((2,), 2**63, dtype=torch.complex64)",
    "full_bool": "torch.full((2,), 2**63, dtype=torch.bool)",
    "full_uint64_bits": "torch.full((2,), 2**64 - 1, dtype=torch.uint64).view(torch.int64)",
    "full_like_int32": "err(lambda: torch.full_like(i.int(), 2**63))",
    "new_full_float": "x.new_full((2,), 2**63)",
    "scalar_tensor": "torch.scalar_tensor(2**63)",
    "scalar_tensor_int64": "err(lambda: torch.scalar_tensor(2**63, dtype=torch.int64))",
    "fill_int64": "err(lambda: i.clone().fill_(2**63))",
    "fill_int8": "err(lambda: i.to(torch.int8).fill_(2**63))",
    "fill_float": "x.clone().fill_(2**64 - 1)",
    "clamp_int64": "err(lambda: torch.clamp(i, max=2**63))",
    "clamp_min_int64": "err(lambda: torch.clamp(i, min=2**63))",
    "masked_fill_int64": "err(lambda: i.masked_fill(i > 0, 2**63))",
    "masked_fill_float": "x.masked_fill(x > 0, 2**64 - 1)",
    "index_fill_int64": "err(lambda: i.index_fill(0, torch.tensor([0]), 2**63))",
    "index_fill_float": "x.index_fill(0, torch.tensor([0]), 2**63)",
    "arange_int": "err(lambda: torch.arange(2**63, 2**63 + 2))",
    "arange_float64": "torch.arange(0, 2**63, 2**62, dtype=torch.float64)",
    "where_scalar_int": "err(lambda: torch.where(i > 0, i, 2**63))",
    "pow_int_exponent": "err(lambda: torch.pow(i, 2**63))",
    "add_int_wraps": "i + 2**63",
    "div_int_true": "i.div(2**63)",
    "eq_int": "i == 2**63",
    "lt_int": "i.lt(2**63)",
    "remainder_int": "i.remainder(2**63)",
    "bitwise_and_int": "i.bitwise_and(2**63)",
    "and_bool": "err(lambda: (i > 0) & 2**63)",
    "mul_float": "x * 2**63",
    "threshold_float": "torch.threshold(x, 2**63, 1)",
    "pad_int": "err(lambda: torch.nn.functional.pad(i, (1, 1), value=2**63))",
    "pad_float": "torch.nn.functional.pad(x, (1, 1), value=2**63)",
}, setup=ERR)
