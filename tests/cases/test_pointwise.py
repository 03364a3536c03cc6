"""Harness cases for the pointwise family (src/ops/pointwise.c): unary math, activations, binary
ops, comparisons, logical / bitwise ops, pow / float_power, where and clamp.

Transcendental functions use tol="float": upstream evaluates them with vectorised Sleef / its own
polynomials (1-2 ulp from libm for exp/log/sin/erf/tanh/... in f32 and f64; even sqrt in f64 is
1 ulp off the correctly rounded value); everything else is compared exactly.
"""
from harness import cases

S = """
f = torch.tensor([[0.5, -1.5, 3.0, 0.25], [-0.0, 2.5, float('nan'), -7.0]])
fi = torch.tensor([0.5, -1.5, float('inf'), -float('inf'), float('nan'), -0.0])
i = torch.tensor([[1, -2, 3, 0], [5, -7, 9, -4]])
b = torch.tensor([[True, False, True, False], [False, True, True, False]])
"""

DT = {
    "f32": "f", "f64": "f.double()", "f16": "f.half()", "bf16": "f.bfloat16()",
    "i64": "i", "i32": "i.int()", "u8": "i.abs().to(torch.uint8)", "bool": "b",
    "c64": "torch.tensor([1+2j, -0.5j, 0j, -3+0.25j])",
}

# ---- unary ops --------------------------------------------------------------------------------
TRANS = ("exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh "
         "asinh acosh atanh erf erfc sigmoid logit").split()
EXACT = ("neg abs sign sgn ceil floor round trunc frac square reciprocal logical_not bitwise_not isnan "
         "isinf isfinite isposinf isneginf signbit nan_to_num positive relu").split()

cases("unary_trans", {f"{op}-{d}": f"torch.{op}({x})" for op in TRANS
                      for d, x in DT.items() if d in ("f32", "f64", "f16", "bf16", "i32", "bool", "c64")},
      setup=S, tol="float")
cases("unary_exact", {f"{op}-{d}": f"torch.{op}({x})" for op in EXACT for d, x in DT.items()}, setup=S)

cases("unary_spellings", {
    "method": "f.exp()",
    "method_int": "i.sqrt()",
    "kw": "torch.sin(input=f)",
    "aten": "torch.ops.aten.cos.default(f)",
    "aten_out": "torch.ops.aten.tanh.out(f, out=torch.empty(2, 4))",
    "inplace": "x = f.clone()\ny = x.exp_()\n(x, y, x is y)",
    "inplace_fn": "x = f.clone()\ntorch.sigmoid_(x)\nx",
    "out": "o = torch.empty(2, 4)\nr = torch.log1p(f, out=o)\n(o, r is o)",
    "out_f64": "torch.exp(i, out=torch.empty(2, 4, dtype=torch.float64))",
    "out_resize": "torch.sqrt(f, out=torch.empty(0))",
    "transposed": "torch.tanh(f.t())",
    "stepped": "torch.atan(torch.arange(20.)[::3])",
    "expanded": "torch.sin(torch.tensor([0.5, 1.0]).expand(3, 2))",
    "zero_dim": "torch.exp(torch.tensor(1.5))",
    "empty": "torch.log(torch.empty(0, 3))",
    "aliases": "(torch.arccos(f), torch.arcsinh(f), torch.arctanh(f), torch.absolute(i), torch.negative(f), torch.fix(f))",
    "ip_int_float_op": "i.clone().exp_()",
    "out_int_float_op": "torch.exp(i, out=torch.empty(2, 4, dtype=torch.int64))",
}, setup=S, tol="float")

cases("unary_misc", {
    "neg_bool": "torch.neg(b)",
    "neg_op": "-f",
    "abs_op": "abs(i)",
    "invert": "~i",
    "invert_bool": "~b",
    "abs_bool": "torch.abs(b)",
    "ceil_c": "torch.ceil(torch.tensor([1j]))",
    "sign_c": "torch.sign(torch.tensor([1j]))",
    "frac_int": "torch.frac(i)",
    "bitwise_not_f": "torch.bitwise_not(f)",
    "neg_out_wrong": "torch.neg(i, out=torch.empty(2, 4))",
    "abs_out_wrong": "torch.abs(f, out=torch.empty(2, 4, dtype=torch.float64))",
    "ceil_ip": "x = f.clone()\nx.ceil_()\nx",
    "floor_out": "torch.floor(f, out=torch.empty(8))",
    "round_half_even": "torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5]))",
    "round_dec2": "torch.round(torch.tensor([1.2345, -2.5, 0.125, 1234.5678]), decimals=2)",
    "round_dec_neg": "torch.round(torch.tensor([1234.5, -250., 250., 49.]), decimals=-2)",
    "round_dec_f16": "torch.round(f.half(), decimals=1)",
    "round_dec_int": "torch.round(i, decimals=1)",
    "round_dec_ip": "x = f.clone()\nx.round_(decimals=1)\nx",
    "square_bool": "torch.square(b)",
    "square_i8": "torch.square(torch.tensor([20, -3], dtype=torch.int8))",
    "reciprocal_int": "torch.reciprocal(i)",
    "isposinf": "(torch.isposinf(fi), torch.isneginf(fi), torch.isinf(fi), torch.isnan(fi), torch.isfinite(fi))",
    "isposinf_out_bad": "torch.isposinf(fi, out=torch.empty(6))",
    "isposinf_c": "torch.isposinf(torch.tensor([1j]))",
    "signbit": "torch.signbit(fi)",
    "signbit_out": "torch.signbit(fi, out=torch.empty(0, dtype=torch.bool))",
    "signbit_c": "torch.signbit(torch.tensor([1j]))",
    "sgn_c": "torch.sgn(torch.tensor([3+4j, 0j, -1j, float('inf')]))",
    "nan_to_num": "torch.nan_to_num(fi)",
    "nan_to_num_args": "torch.nan_to_num(fi, nan=1.5, posinf=100., neginf=-100.)",
    "nan_to_num_f16": "torch.nan_to_num(fi.half())",
    "nan_to_num_bf16": "torch.nan_to_num(fi.bfloat16())",
    "nan_to_num_c": "torch.nan_to_num(torch.tensor([complex(float('nan'), float('inf')), 1j]))",
    "nan_to_num_int": "torch.nan_to_num(i)",
    "nan_to_num_ip": "x = fi.clone()\nx.nan_to_num_(0.5)\nx",
    "nan_to_num_out_bad": "torch.nan_to_num(fi, out=torch.empty(6, dtype=torch.float64))",
    "positive_alias": "torch.positive(f) is f",
    "positive_bool": "torch.positive(b)",
    "relu_bool": "torch.relu(b)",
    "relu_ip": "x = f.clone()\ntorch.relu_(x)\nx",
    "logical_not_ip": "x = f.clone()\nx.logical_not_()\nx",
    "logical_not_out": "torch.logical_not(i, out=torch.empty(2, 4, dtype=torch.int16))",
}, setup=S)

# ---- activations ------------------------------------------------------------------------------
ACT = {
    "silu": "F.silu({x})", "gelu": "F.gelu({x})", "gelu_tanh": "F.gelu({x}, approximate='tanh')",
    "mish": "F.mish({x})", "softplus": "F.softplus({x})", "softplus_bt": "F.softplus({x}, beta=2, threshold=1)",
    "elu": "F.elu({x})", "elu_a": "torch._C._nn.elu({x}, 0.5, 2, 1.5)", "sigmoid": "torch.sigmoid({x})",
    "logit_eps": "torch.logit({x}, eps=0.25)",
    "selu": "F.selu({x})", "celu": "F.celu({x})", "celu_a": "torch.celu({x}, 0.3)",
}
ACT_EXACT = {
    "relu": "F.relu({x})", "hardsigmoid": "F.hardsigmoid({x})", "hardswish": "F.hardswish({x})",
    "leaky": "F.leaky_relu({x}, 0.2)", "leaky_default": "torch._C._nn.leaky_relu({x})",
    "threshold": "torch.threshold({x}, 0.5, -1.)", "threshold_int": "torch.threshold({x}, 2, 20)",
    "hardtanh": "F.hardtanh({x})", "hardtanh_lim": "F.hardtanh({x}, -0.5, 1.7)", "relu6": "F.relu6({x} * 3)",
    "hardtanh_aten": "torch._C._nn.hardtanh({x}, 2, 3)",
}
AX = {"f32": "f", "f64": "f.double()", "f16": "f.half()", "bf16": "f.bfloat16()", "i64": "i"}
cases("act_float", {f"{k}-{d}": v.format(x=x) for k, v in ACT.items() for d, x in AX.items()
                    if not (k == "logit_eps" and d == "bf16")},
      setup=S + "\nimport torch.nn.functional as F", tol="float")
cases("act_exact", {f"{k}-{d}": v.format(x=x) for k, v in ACT_EXACT.items() for d, x in AX.items()},
      setup=S + "\nimport torch.nn.functional as F")
cases("act_spellings", {
    "silu_ip": "x = f.clone()\nF.silu(x, inplace=True)\nx",
    "relu_ip": "x = f.clone()\nF.relu(x, inplace=True)\nx",
    "gelu_out": "torch._C._nn.gelu(f, out=torch.empty(2, 4, dtype=f.dtype))",
    "gelu_ip": "x = f.clone()\ntorch._C._nn.gelu_(x, approximate='tanh')\nx",
    "gelu_bad": "F.gelu(f, approximate='foo')",
    "silu_out_bad": "torch._C._nn.silu(f, out=torch.empty(2, 4, dtype=torch.float64))",
    "hardswish_ip": "x = f.clone()\nF.hardswish(x, inplace=True)\nx",
    "hardsigmoid_ip": "x = f.clone()\nF.hardsigmoid(x, inplace=True)\nx",
    "leaky_ip": "x = f.clone()\nF.leaky_relu(x, 0.1, inplace=True)\nx",
    "elu_ip": "x = f.clone()\nF.elu(x, inplace=True)\nx",
    "threshold_ip": "x = f.clone()\nF.threshold(x, 1.0, 0.0, inplace=True)\nx",
    "mish_ip": "x = f.clone()\nF.mish(x, inplace=True)\nx",
    "silu_nc": "F.silu(f.t())",
    "softplus_big": "F.softplus(torch.tensor([30., -30., 19.9, 20.1]))",
    "aten_gelu": "torch.ops.aten.gelu.default(f, approximate='tanh')",
    "hardtanh_ip": "x = f.clone()\nF.hardtanh(x, -0.3, 0.3, inplace=True)\nx",
    "hardtanh_out": "torch._C._nn.hardtanh(f, -0.3, 0.3, out=torch.empty(2, 4))",
    "hardtanh_out_bad_dtype": "torch._C._nn.hardtanh(f, out=torch.empty(2, 4, dtype=torch.int64))",
    "relu6_ip": "x = f.clone() * 4\nF.relu6(x, inplace=True)\nx",
    "relu6_u8": "F.relu6((i * 3).to(torch.uint8))",
    "hardtanh_u8_neg": "F.hardtanh(i.abs().to(torch.uint8))",
    "hardtanh_bool": "F.hardtanh(b)",
    "hardtanh_int_frac": "F.hardtanh(i * 3, -1.7, 2.9)",
    "hardtanh_min_gt_max": "F.hardtanh(f, 1.0, -1.0)",
    "hardtanh_aten_min_gt_max": "torch.ops.aten.hardtanh(f, 1.0, -1.0)",
    "hardtanh_nc": "F.hardtanh(f.t())",
    "hardtanh_empty": "F.hardtanh(torch.empty(0, 3))",
    "hardtanh_0d": "F.hardtanh(torch.tensor(-4.0))",
    "selu_ip": "x = f.clone()\nF.selu(x, inplace=True)\nx",
    "celu_ip": "x = f.clone()\nF.celu(x, 0.5, inplace=True)\nx",
    "celu_zero": "torch.celu(f, 0.0)",
    "selu_int": "F.selu(i)",
    "celu_nc": "torch.celu(f.t(), 2.0)",
    "aten_relu6": "torch.ops.aten.relu6.default(f * 4)",
    "aten_selu": "torch.ops.aten.selu.default(f)",
}, setup=S + "\nimport torch.nn.functional as F", tol="float")

# ---- binary ops -------------------------------------------------------------------------------
BA = {"f32": "f", "f16": "f.half()", "i64": "i", "i32": "i.int()", "u8": "i.abs().to(torch.uint8)",
      "bool": "b", "bf16": "f.bfloat16()"}
BB = {"f32": "torch.tensor([2.0, -2.0, 0.5, 3.0])", "i64": "torch.tensor([2, -3, 1, 4])",
      "u8": "torch.tensor([2, 1, 3, 4], dtype=torch.uint8)", "f64_0d": "torch.tensor(1.5, dtype=torch.float64)",
      "i8_0d": "torch.tensor(3, dtype=torch.int8)", "int": "3", "float": "2.5", "bool": "True"}
BIN_EXACT = "remainder fmod maximum minimum fmax fmin copysign nextafter floor_divide eq ne lt le gt ge logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()
BIN_FLOAT = "atan2 hypot logaddexp xlogy true_divide".split()
# Python numbers are accepted only where upstream has a Scalar overload or allows numbers
NUM_OK = set("remainder fmod copysign floor_divide eq ne lt le gt ge bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift xlogy true_divide".split())
NONZERO = {"f32": "torch.tensor([2.0, -2.0, 0.5, 3.0])", "i64": "torch.tensor([2, -3, 1, 4])", "int": "3", "float": "2.5"}
for op in BIN_EXACT + BIN_FLOAT:
    snips = {}
    for an, a in BA.items():
        for bn, bv in BB.items():
            if bn in ("int", "float", "bool") and op not in NUM_OK:
                continue
            if an in ("bf16", "u8", "i32") and bn not in ("f32", "i64", "int"):
                continue
            if bn == "i8_0d" and an == "bool":
                continue  # overload resolution order (see report)
            snips[f"{an}-{bn}"] = f"torch.{op}({a}, {bv})"
    cases("bin_" + op, snips, setup=S, tol="float" if op in BIN_FLOAT else None)

cases("bin_spellings", {
    "rem_method": "i.remainder(3)",
    "rem_kw": "torch.remainder(input=i, other=torch.tensor(3))",
    "rem_scalar_tensor": "torch.remainder(7, i.abs() + 1)",
    "rem_op": "(i % 3, f % 2, 7 % (i.abs() + 1))",
    "rem_aten": "torch.ops.aten.remainder.Scalar(i, 4)",
    "rem_aten_st": "torch.ops.aten.remainder.Scalar_Tensor(7, i.abs() + 1)",
    "rem_ip": "x = i.clone()\nx.remainder_(3)\nx",
    "rem_out": "torch.remainder(i, 3, out=torch.empty(0, dtype=torch.int64))",
    "rem_zero": "torch.remainder(i, 0)",
    "fmod_zero": "torch.fmod(i, torch.tensor([1, 0, 1, 1]))",
    "fdiv_zero": "i // 0",
    "fdiv_zero_f": "f // 0",
    "rem_zero_f": "f % 0",
    "fdiv_op": "(i // 3, f // 2, 7 // (i.abs() + 1), f // 0.3)",
    "fdiv_f16_wrapped": "f.half() // 0.3",
    "fdiv_neg": "torch.floor_divide(torch.tensor([-7, 7, -128], dtype=torch.int8), torch.tensor([2, -2, -1], dtype=torch.int8))",
    "cmp_ops": "(i < 2, i <= 2, i > f, i >= 0.5, i == 3, i != f, 2 < i)",
    "cmp_nan": "(f == f, f != f, f < float('nan'))",
    "cmp_f16_wrapped": "(f.half() == 0.1, f.half() > 0.1)",
    "cmp_u8_neg": "torch.lt(torch.tensor([1, 200], dtype=torch.uint8), -1)",
    "cmp_ip": "x = f.clone()\nx.lt_(1.0)\nx",
    "cmp_ip_int": "x = i.clone()\nx.eq_(2.5)\nx",
    "cmp_ip_tensor": "x = i.clone()\nx.ge_(torch.tensor([1.5, -2., 3., 0.5]))\nx",
    "cmp_out_float": "torch.eq(i, 3, out=torch.empty(2, 4))",
    "cmp_c_lt": "torch.lt(torch.tensor([1j]), torch.tensor([1j]))",
    "cmp_aliases": "(torch.greater(i, 1), torch.less_equal(f, 0.5), torch.not_equal(i, f), torch.greater_equal(f, i), torch.less(i, 0))",
    "bit_ops": "y = torch.tensor([1, 2, 3, 4])\n(i & y, i | y, i ^ y, i << y, i >> y, i & 3, 5 | i, i ^ True, 1 << y)",
    "bit_ops_ip": "x = i.clone()\nx &= 6\nx |= torch.tensor([1, 2, 3, 4])\nx ^= 1\nx <<= 2\nx >>= 1\nx",
    "bit_bool": "(b & b.logical_not(), b | True, b ^ b)",
    "bit_float": "f & 1",
    "bit_u8_wrap": "torch.tensor([5], dtype=torch.uint8) & 300",
    "shift_neg": "torch.bitwise_left_shift(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([-1, 40], dtype=torch.int32))",
    "shift_r": "torch.bitwise_right_shift(torch.tensor([-8, 8], dtype=torch.int8), torch.tensor([1, 9], dtype=torch.int8))",
    "shift_scalar_tensor": "torch.bitwise_left_shift(3, torch.tensor([1, 2]))",
    "shift_aten": "torch.ops.aten.__lshift__.Scalar(i, 2)",
    "logical_ip": "x = i.clone()\nx.logical_and_(torch.tensor([1, 0, 1, 0]))\nx",
    "logical_out": "torch.logical_xor(f, i, out=torch.empty(2, 4, dtype=torch.int32))",
    "max_c": "torch.maximum(torch.tensor([1j]), torch.tensor([1j]))",
    "max_nan": "g = torch.tensor([1., float('nan'), 0., -0.])\n(torch.maximum(fi[:4], g), torch.minimum(fi[:4], g), torch.fmax(fi[:4], g), torch.fmin(fi[:4], g))",
    "max_out": "torch.maximum(i, f, out=torch.empty(2, 4, dtype=torch.float64))",
    "max_out_bad": "torch.maximum(i, f, out=torch.empty(2, 4, dtype=torch.int64))",
    "max_num": "torch.maximum(f, 2)",
    "copysign_s": "(torch.copysign(i, -0.0), f.copysign(-1))",
    "copysign_ip": "x = f.clone()\nx.copysign_(torch.tensor([-1., 1., -1., 1.]))\nx",
    "xlogy_ss": "torch.xlogy(2, f)",
    "xlogy_0": "torch.xlogy(torch.tensor([0., 0., 1.]), torch.tensor([float('nan'), 0., 0.]))",
    "xlogy_ip": "x = f.clone()\nx.xlogy_(2)\nx",
    "atan2_ip": "x = f.clone()\nx.atan2_(torch.tensor([1., -1., 0., 2.]))\nx",
    "atan2_int": "torch.atan2(i, torch.tensor([1, -1, 0, 2]))",
    "atan2_aliases": "torch.arctan2(f, f.t().t())",
    "nextafter_f16": "torch.nextafter(torch.tensor([0., -0., 65504., 1., 1.], dtype=torch.float16), torch.tensor([-1., 1., float('inf'), 1., 0.], dtype=torch.float16))",
    "nextafter_bf16": "torch.nextafter(f.bfloat16(), torch.zeros(4, dtype=torch.bfloat16))",
    "nextafter_f64": "torch.nextafter(f.double(), torch.tensor([0., 1., float('inf'), -1.], dtype=torch.float64))",
    "logaddexp_inf": "torch.logaddexp(torch.tensor([float('inf'), -float('inf'), 1., float('nan')]), torch.tensor([float('inf'), -float('inf'), -float('inf'), 1.]))",
    "hypot_int": "torch.hypot(i, i)",
    "true_divide": "(torch.true_divide(i, 2), i.true_divide(torch.tensor([2, 4, 8, 16])), torch.true_divide(f.half(), 3.3))",
    "true_divide_ip": "x = f.clone()\nx.true_divide_(3)\nx",
    "true_divide_ip_int": "x = i.clone()\nx.true_divide_(3)",
    "broadcast": "torch.atan2(f.t(), torch.tensor([1., 2.]))",
    "broadcast_bad": "torch.remainder(f, torch.ones(3))",
    "ip_broadcast_bad": "torch.ones(4).remainder_(f)",
    "ip_cast_bad": "i.clone().atan2_(f)",
    "noncontig": "torch.fmod(torch.arange(24.).reshape(4, 6)[:, ::2], torch.tensor([[2.], [3.], [4.], [5.]]))",
    "expanded": "torch.maximum(torch.tensor([1., 5.]).expand(3, 2), torch.arange(6.).reshape(3, 2))",
    "zero_dim": "(torch.remainder(torch.tensor(5), 3), torch.lt(torch.tensor(1.), torch.tensor([0., 2.])), torch.ones(2, dtype=torch.int8) + torch.tensor(300))",
    "empty": "(torch.eq(torch.empty(2, 0), torch.empty(0)), torch.remainder(torch.empty(0, dtype=torch.int64), 0))",
}, setup=S, tol="float")

cases("rsub", {
    "scalar": "torch.rsub(i, 5)",
    "tensor_alpha": "torch.rsub(i, f, alpha=2)",
    "float_alpha_int": "torch.rsub(i, 5, alpha=0.5)",
    "f16": "torch.rsub(f.half(), 1.5, 2)",
    "bool": "torch.rsub(b, b)",
    "bool_one": "torch.rsub(i, True)",
    "op": "(5 - i, 2.5 - f, 1 - f.half())",
    "aten": "torch.ops.aten.rsub.Scalar(f, 1.0)",
    "subtract": "torch.subtract(i, f, alpha=3)",
    "subtract_scalar": "i.subtract(2)",
    "subtract_ip": "x = f.clone()\nx.subtract_(1.5, alpha=2)\nx",
}, setup=S)

# ---- pow / float_power ------------------------------------------------------------------------
PE = {"0": "0", "1": "1", "2": "2", "3": "3", "h": "0.5", "mh": "-0.5", "m1": "-1", "m2": "-2", "f25": "2.5",
      "c": "1j", "true": "True"}
PA = {"f32": "f", "f64": "f.double()", "f16": "f.half()", "bf16": "f.bfloat16()", "i64": "i", "i8": "i.to(torch.int8)",
      "bool": "b", "c64": "torch.tensor([1+2j, -0.5j, 0j, -3+0.25j])"}
pow_exact = {}
pow_float = {}
for an, a in PA.items():
    for en, e in PE.items():
        target = pow_exact if en in ("0", "1", "2", "3", "m1", "m2", "true") else pow_float
        target[f"{an}-{en}"] = f"torch.pow({a}, {e})"
cases("pow_scalar_exact", pow_exact, setup=S)
cases("pow_scalar_float", pow_float, setup=S, tol="float")
cases("pow_misc", {
    "op": "(f ** 2, i ** 2, 2 ** i.abs(), 2.5 ** f, f ** f)",
    "rpow_int": "torch.pow(2, torch.tensor([-1, 0, 3, 62, 63, 64]))",
    "int_big": "torch.pow(torch.tensor([3, -3, 7]), 41)",
    "i8_wrap": "torch.pow(torch.tensor([3, -3, 7], dtype=torch.int8), 5)",
    "tt": "torch.pow(torch.tensor([2., 3., -2.]), torch.tensor([0.5, -1., 3.]))",
    "tt_int": "torch.pow(torch.tensor([2, 3, -2], dtype=torch.int32), torch.tensor([-1, 2, 3], dtype=torch.int32))",
    "tt_bool": "torch.pow(b, b)",
    "neg_int_exp": "i ** -1",
    "neg_int_exp_u8": "torch.pow(torch.tensor([2, 3], dtype=torch.uint8), -2)",
    "ip": "x = f.clone()\nx.pow_(2)\nx",
    "ip_tensor": "x = f.clone()\nx.pow_(torch.tensor([2., 0.5, 1., 3.]))\nx",
    "ip_int_float": "i.clone().pow_(0.5)",
    "out": "torch.pow(i, 2, out=torch.empty(2, 4))",
    "out_tt": "torch.pow(f, f, out=torch.empty(0))",
    "out_scalar": "torch.pow(2, f, out=torch.empty(2, 4))",
    "aten": "(torch.ops.aten.pow.Tensor_Scalar(f, 3), torch.ops.aten.pow.Scalar(2, f), torch.ops.aten.pow.Tensor_Tensor(f, f))",
    "one_base": "torch.pow(1, f)",
    "fp": "(torch.float_power(i, 2), torch.float_power(f, -1), torch.float_power(2, f), torch.float_power(f.half(), f))",
    "fp_c": "torch.float_power(torch.tensor([1j, 2]), 2)",
    "fp_ip_bad": "f.clone().float_power_(2)",
    "fp_ip": "x = f.double()\nx.float_power_(2)\nx",
    "fp_out_bad": "torch.float_power(i, 2, out=torch.empty(2, 4))",
    "fp_out": "torch.float_power(i, 2, out=torch.empty(2, 4, dtype=torch.float64))",
    "square_vs_pow": "(torch.square(f.half()), f.half() ** 2)",
}, setup=S, tol="float")

# ---- where ------------------------------------------------------------------------------------
cases("where", {
    "tt": "torch.where(b, f, i)",
    "scalar_other": "torch.where(b, i, 2.5)",
    "scalar_self": "torch.where(b, 2, f.half())",
    "scalars_int": "torch.where(b, 1, 2)",
    "scalars_mixed": "torch.where(b, 1, 2.5)",
    "f16_bf16": "torch.where(b, f.half(), f.bfloat16())",
    "i8_0d": "torch.where(b, i.to(torch.int8), torch.tensor(2.5, dtype=torch.float64))",
    "broadcast": "torch.where(torch.tensor([[True], [False]]), i, torch.tensor(0, dtype=torch.int8))",
    "broadcast3": "torch.where(torch.tensor([True, False, True, True]), torch.tensor([[1.], [2.]]), torch.tensor(0.))",
    "cond_int": "torch.where(i, f, f)",
    "cond_float": "torch.where(f, f, f)",
    "cond_u8": "torch.where(torch.tensor([1, 0, 2], dtype=torch.uint8), torch.tensor([1., 2., 3.]), 0.)",
    "method": "f.where(b, 7.)",
    "method_tensor": "f.where(b, torch.zeros(4))",
    "out": "torch.where(b, f, f, out=torch.empty(0))",
    "out_bad": "torch.where(b, i, i, out=torch.empty(2, 4))",
    "noncontig": "torch.where(b.t(), f.t(), i.t())",
    "complex": "torch.where(b, torch.tensor([1j, 2, 3, 4]), 0)",
    "bool_vals": "torch.where(b, b, False)",
    "aten": "torch.ops.aten.where.self(b, f, f * 2)",
    "shape_bad": "torch.where(b, torch.ones(3), 0.)",
}, setup=S)

# ---- clamp ------------------------------------------------------------------------------------
cases("clamp", {
    "both": "torch.clamp(f, 0.0, 1.0)",
    "min_kw": "torch.clamp(f, min=0.5)",
    "max_kw": "torch.clamp(f, max=1)",
    "int": "torch.clamp(i, 0, 3)",
    "int_float_bound": "torch.clamp(i, 0.5)",
    "none": "torch.clamp(i, None, None)",
    "u8_overflow": "torch.clamp(torch.tensor([1, 5], dtype=torch.uint8), -1, 300)",
    "f16_overflow": "torch.clamp(f.half(), 1e6)",
    "i32_overflow": "torch.clamp(i.int(), 2 ** 40)",
    "f16": "torch.clamp(f.half(), -1, 1)",
    "bf16": "torch.clamp(f.bfloat16(), -1.3, 1.7)",
    "nan_bound": "torch.clamp(f, float('nan'))",
    "min_gt_max": "torch.clamp(f, 2.0, 1.0)",
    "neg_zero": "torch.clamp(torch.tensor([-0.0, 0.0]), 0.0, 0.0)",
    "bool": "torch.clamp(b, 0, 1)",
    "complex": "torch.clamp(torch.tensor([1j]), 0)",
    "tensor_min": "torch.clamp(f, torch.tensor([2.]), None)",
    "tensor_both": "torch.clamp(f, torch.tensor([0., 1., 2., 3.]), torch.tensor([1.]))",
    "tensor_bcast": "torch.clamp(torch.ones(4), torch.tensor([[0.], [2.]]))",
    "tensor_int_float": "torch.clamp(i, torch.tensor([[1.5], [2.5]]))",
    "tensor_none": "torch.clamp(f, None, None)",
    "method": "f.clamp(-1, 1)",
    "clip": "torch.clip(f, -1, 1)",
    "clip_method_ip": "x = f.clone()\nx.clip_(max=0.)\nx",
    "ip": "x = f.clone()\ntorch.clamp_(x, 0, 1)\nx",
    "ip_int_float": "i.clone().clamp_(0.5)",
    "ip_int": "x = i.clone()\nx.clamp_(0, 3)\nx",
    "ip_tensor": "x = f.clone()\nx.clamp_(torch.tensor([0., 1., 2., 3.]), None)\nx",
    "ip_tensor_bcast_bad": "torch.ones(4).clamp_(torch.zeros(2, 4))",
    "out": "torch.clamp(f, 0, 1, out=torch.empty(0))",
    "out_bad": "torch.clamp(i, 0, 1, out=torch.empty(2, 4))",
    "clamp_min": "(torch.clamp_min(f, 0.5), torch.clamp_min(i, torch.tensor([1, 2, 3, 4])), f.clamp_min(0))",
    "clamp_max": "(torch.clamp_max(i, 2), torch.clamp_max(f, torch.tensor([1.])), i.clamp_max(2.5))",
    "clamp_min_ip": "x = f.clone()\nx.clamp_min_(torch.tensor([[1.], [2.]]).expand(2, 4).contiguous())\nx",
    "clamp_max_out": "torch.clamp_max(f, 0., out=torch.empty(2, 4))",
    "aten": "(torch.ops.aten.clamp.default(f, -1), torch.ops.aten.clamp.Tensor(f, None, torch.tensor(0.)))",
    "noncontig": "torch.clamp(torch.arange(12.).reshape(3, 4).t(), 2, 9)",
    "zero_dim": "torch.clamp(torch.tensor(5), 0, 3)",
    "empty": "torch.clamp(torch.empty(0), 0)",
}, setup=S)

# f32 silu / sigmoid on contiguous runs go through the vector exp (kernels/vmath.c): long inputs
# (several 256-element blocks and a tail), the clamp edges, infinities and NaN.
VX = ("torch.manual_seed(0)\nimport torch.nn.functional as F\n"
      "e = torch.tensor([0., -0., 1., -1., 88.7, 88.8, -87.3, -87.4, -103., -104., 1e4, -1e4,"
      " float('inf'), float('-inf'), float('nan')])\n"
      "big = torch.cat([torch.randn(700) * 30, e])\n")
cases("vexp_activations", {
    "silu_big": "F.silu(big)", "sigmoid_big": "torch.sigmoid(big)", "silu_edges": "F.silu(e)",
    "sigmoid_edges": "torch.sigmoid(e)", "silu_wide": "F.silu(torch.linspace(-120, 120, 4099))",
    "sigmoid_wide": "torch.sigmoid(torch.linspace(-120, 120, 4099))",
    "silu_strided": "F.silu(big[::3])", "silu_ip": "x = big.clone()\nF.silu(x, inplace=True)\nx",
}, setup=VX, tol="float")

# ---- long f32 runs: the vector bodies of kernels/vmath_body.h (16/8/2-lane blocks and tails),
# strided operands, and special values inside a vector (src/kernels/ref/unary.c routes f32 exp,
# log, tanh, sigmoid, silu, gelu both forms there) ----------------------------------------------
LONG = """
import torch.nn.functional as F
torch.manual_seed(0)
sp = torch.tensor([0., -0., 1e-45, -1e-45, 1e-40, 1., -1., 1.5, -1.5, 14.8, -14.8, 20., -20., 88.7, 88.8,
                   -87.4, -103.9, -104.5, -200., 1e13, -1e13, 2e19, -2e19, 3e38, -3e38, float('inf'), float('-inf'), float('nan')])
x = torch.cat([torch.randn(301) * 4, sp, torch.rand(37) * 30 - 15])
"""
cases("act_long", {
    "exp": "torch.exp(x)", "log": "torch.log(x)", "log_abs": "torch.log(x.abs())", "tanh": "torch.tanh(x)",
    "sigmoid": "torch.sigmoid(x)", "silu": "F.silu(x)", "gelu": "F.gelu(x)",
    "gelu_tanh": "F.gelu(x, approximate='tanh')", "tanh_strided": "torch.tanh(x.repeat(2)[::2])",
    "silu_2d_t": "F.silu(x[:360].reshape(24, 15).t())", "exp_big": "torch.exp(torch.randn(70000) * 10)",
    "exp_out": "torch.exp(x, out=torch.empty(x.shape))", "silu_ip": "y = x.clone()\nF.silu(y, inplace=True)\ny",
}, setup=S + LONG, tol="float")
