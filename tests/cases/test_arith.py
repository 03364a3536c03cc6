"""Harness cases for add / sub / mul / div (src/ops/arith.c): dtype promotion with wrapped
numbers and 0-dim tensors, alpha, rounding modes, integer division by zero, in-place and out=
(including resizing), broadcasting and non-contiguous operands, and every spelling."""
from harness import cases

S = """
f = torch.tensor([[0.5, -1.5, 3.0, 0.25], [-0.0, 2.5, float('nan'), -7.0]])
i = torch.tensor([[1, -2, 3, 0], [5, -7, 9, -4]])
b = torch.tensor([[True, False, True, False], [False, True, True, False]])
"""

A = {"f32": "f", "f64": "f.double()", "f16": "f.half()", "bf16": "f.bfloat16()", "i64": "i", "i32": "i.int()",
     "i8": "i.to(torch.int8)", "u8": "i.abs().to(torch.uint8)", "bool": "b", "c64": "torch.tensor([1+2j, -0.5j, 0j, 3+0j])"}
B = {"f32": "torch.tensor([2.0, -3.0, 0.5, 4.0])", "i64": "torch.tensor([2, -3, 1, 4])",
     "u8": "torch.tensor([2, 3, 1, 4], dtype=torch.uint8)", "bool": "torch.tensor([True, False, True, True])",
     "f16": "torch.tensor([2.0, -3.0, 0.5, 4.0], dtype=torch.float16)",
     "f64_0d": "torch.tensor(1.5, dtype=torch.float64)", "i16_0d": "torch.tensor(300, dtype=torch.int16)",
     "int": "3", "float": "2.5", "bool_num": "True", "complex": "1j", "small": "1e-4"}
for op in ("add", "sub", "mul", "div"):
    snips = {}
    for an, a in A.items():
        for bn, bv in B.items():
            if an in ("i8", "bf16", "c64") and bn not in ("f32", "i64", "int", "float", "i16_0d"):
                continue
            snips[f"{an}-{bn}"] = f"torch.{op}({a}, {bv})"
    cases("arith_" + op, snips, setup=S)

cases("arith_promotion", {
    "int_times_float": "torch.ones(2, dtype=torch.int32) * 2.5",
    "f16_plus_small": "torch.ones(2, dtype=torch.float16) + 1e-4",
    "bf16_plus_small": "torch.ones(2, dtype=torch.bfloat16) + 1e-3",
    "f16_times_wrapped": "torch.tensor([0.1, 3.3, -7.7], dtype=torch.float16) * 1.1",
    "f16_div_wrapped": "torch.tensor([0.1, 3.3, -7.7], dtype=torch.float16) / 3.3",
    "bf16_div_wrapped": "torch.tensor([0.1, 3.3, -7.7], dtype=torch.bfloat16) / 3.3",
    "wrapped_first": "3.3 * torch.tensor([0.1, 3.3], dtype=torch.float16)",
    "zero_dim_wins_cat": "torch.ones(2, dtype=torch.int8) + torch.tensor(2.5)",
    "zero_dim_same_cat": "torch.ones(2, dtype=torch.int8) + torch.tensor(300)",
    "zero_dim_f64": "torch.ones(2) + torch.tensor(1e-10, dtype=torch.float64)",
    "two_zero_dim": "torch.tensor(1, dtype=torch.int8) + torch.tensor(2.5, dtype=torch.float64)",
    "zero_dim_vs_0d": "torch.tensor(1., dtype=torch.float16) * torch.tensor(3.3)",
    "u8_i8": "torch.ones(2, dtype=torch.uint8) + torch.ones(2, dtype=torch.int8)",
    "bool_bool": "b + b",
    "bool_int": "b * 3",
    "int_complex": "i * 1j",
    "f16_complex": "f.half() * 1j",
    "int_div_int": "i / 2",
    "bool_div": "b / b",
    "int_big": "torch.tensor([2 ** 62]) * 4",
    "int_overflow_py": "torch.tensor([1]) + 2 ** 63",
    "default_dtype": "torch.set_default_dtype(torch.float64)\nr = i * 2.5\ntorch.set_default_dtype(torch.float32)\nr",
}, setup=S)

cases("arith_alpha", {
    "add_alpha": "torch.add(f, i, alpha=2)",
    "add_alpha_f": "torch.add(f, f, alpha=0.5)",
    "add_alpha_int_float": "torch.add(i, i, alpha=0.5)",
    "add_alpha_bool": "torch.add(b, b, alpha=True)",
    "add_alpha_bool2": "torch.add(b, b, alpha=2)",
    "sub_alpha": "torch.sub(i, i, alpha=3)",
    "sub_alpha_f16": "torch.sub(f.half(), 1.1, alpha=0.3)",
    "add_alpha_f16": "torch.add(f.half(), f.half(), alpha=0.1)",
    "add_alpha_complex": "torch.add(torch.tensor([1+1j]), torch.tensor([2j]), alpha=1j)",
    "add_alpha_fma": "torch.add(torch.tensor([1e8]), torch.tensor([1.0000001]), alpha=3)",
    "sub_bool": "b - b",
    "sub_bool_int": "i - b",
    "sub_bool_number": "torch.sub(i, True)",
    "rsub_op": "1 - b",
    "method_alpha": "f.add(i, alpha=-1)",
    "ip_alpha": "x = f.clone()\nx.sub_(i, alpha=2)\nx",
}, setup=S)

cases("arith_div_modes", {
    "trunc_f": "torch.div(f, torch.tensor([2., -2., 0.3, 0.]), rounding_mode='trunc')",
    "floor_f": "torch.div(f, torch.tensor([2., -2., 0.3, 0.]), rounding_mode='floor')",
    "floor_neg_zero": "torch.div(torch.tensor([-0.5, 0.5, -0.0]), torch.tensor([2., -2., 1.]), rounding_mode='floor')",
    "trunc_i": "torch.div(i, 3, rounding_mode='trunc')",
    "floor_i": "torch.div(i, -3, rounding_mode='floor')",
    "floor_i8": "torch.div(torch.tensor([-7, 7, -128], dtype=torch.int8), torch.tensor([2, -2, 3], dtype=torch.int8), rounding_mode='floor')",
    "none": "torch.div(i, 3, rounding_mode=None)",
    "bad": "torch.div(i, 3, rounding_mode='round')",
    "trunc_zero": "torch.div(i, 0, rounding_mode='trunc')",
    "floor_zero": "torch.div(i, torch.tensor([1, 0, 1, 1]), rounding_mode='floor')",
    "true_zero": "(i / 0, f / 0, torch.tensor([0.]) / 0)",
    "floor_f16_wrapped": "torch.div(f.half(), 0.3, rounding_mode='floor')",
    "trunc_f16": "torch.div(f.half(), 0.3, rounding_mode='trunc')",
    "ip_mode": "x = f.clone()\nx.div_(2, rounding_mode='floor')\nx",
    "ip_int_true": "i.clone().div_(2)",
    "ip_int_trunc": "x = i.clone()\nx.div_(2, rounding_mode='trunc')\nx",
    "out_mode": "torch.div(i, 2, rounding_mode='floor', out=torch.empty(0, dtype=torch.int64))",
    "floordiv_op": "(i // 2, f // 2)",
    "truediv_op": "(i / 2, 2 / (i.abs() + 1))",
    "divide_alias": "(torch.divide(i, 2), torch.divide(i, 2, rounding_mode='trunc'), i.divide(torch.tensor(2)))",
    "complex_div": "torch.tensor([1+1j, 1j]) / torch.tensor([0j, 2+0j])",
    "complex_floor": "torch.div(torch.tensor([1+1j]), 2, rounding_mode='floor')",
}, setup=S)

cases("arith_out", {
    "out_same": "o = torch.empty(2, 4)\nr = torch.add(f, 1, out=o)\n(o, r is o)",
    "out_resize_empty": "torch.mul(f, 2, out=torch.empty(0))",
    "out_resize_nonempty": "torch.mul(f, 2, out=torch.empty(3))",
    "out_cast_up": "torch.add(i, i, out=torch.empty(2, 4, dtype=torch.float64))",
    "out_cast_down": "torch.add(f, f, out=torch.empty(2, 4, dtype=torch.int64))",
    "out_int_div": "torch.div(i, 2, out=torch.empty(2, 4, dtype=torch.int64))",
    "out_bool": "torch.mul(b, b, out=torch.empty(2, 4, dtype=torch.bool))",
    "out_f16": "torch.sub(f, 0.1, out=torch.empty(2, 4, dtype=torch.float16))",
    "out_noncontig": "o = torch.zeros(4, 2).t()\ntorch.add(f, 1, out=o)\no",
    "out_alias_input": "x = f.clone()\ntorch.mul(x, 2, out=x)\nx",
    "aten_out": "torch.ops.aten.add.out(f, i, alpha=2, out=torch.empty(2, 4))",
}, setup=S)

cases("arith_inplace", {
    "add_": "x = f.clone()\ny = x.add_(1)\n(x, y is x)",
    "mul_int_float": "i.clone().mul_(2.5)",
    "mul_int_int": "x = i.clone()\nx.mul_(3)\nx",
    "iadd": "x = i.clone()\nx += 2\nx",
    "imul_f16": "x = f.half()\nx *= 1.1\nx",
    "itruediv_int": "x = i.clone()\nx /= 2",
    "isub_bool": "x = b.clone()\nx -= b",
    "ip_broadcast_ok": "x = f.clone()\nx.add_(torch.tensor([1., 2., 3., 4.]))\nx",
    "ip_broadcast_bad": "torch.ones(4).add_(f)",
    "ip_view": "x = torch.arange(8.).reshape(2, 4)\nv = x[:, 1:3]\nv.mul_(10)\nx",
    "ip_transposed": "x = f.clone().t()\nx.add_(1)\nx",
    "ip_self_alias": "x = f.clone()\nx.add_(x)\nx",
    "ip_bool_add": "x = b.clone()\nx.add_(b)\nx",
    "ip_u8_wrap": "x = torch.tensor([250], dtype=torch.uint8)\nx.add_(10)\nx",
}, setup=S)

cases("arith_spellings", {
    "fn_pos": "torch.add(f, i)",
    "fn_kw": "torch.add(input=f, other=i, alpha=2)",
    "method": "f.mul(i)",
    "ops": "(f + i, f - i, f * i, f / (i.abs() + 1), 2 + f, 2 - f, 2 * f, 2 / (f.abs() + 1))",
    "aten_tensor": "torch.ops.aten.add.Tensor(f, i)",
    "aten_scalar": "torch.ops.aten.mul.Tensor(f, 3)",
    "aten_div_mode": "torch.ops.aten.div.Tensor_mode(i, 2, rounding_mode='floor')",
    "multiply_alias": "(torch.multiply(f, 2), f.multiply(i))",
    "subtract_alias": "torch.subtract(f, 1, alpha=2)",
    "broadcast": "torch.add(torch.ones(3, 1), torch.arange(4.))",
    "broadcast_bad": "torch.add(torch.ones(3), torch.ones(4))",
    "noncontig": "torch.mul(torch.arange(24.).reshape(4, 6)[:, ::2], torch.arange(12.).reshape(3, 4).t())",
    "expanded": "torch.add(torch.tensor([1., 2.]).expand(3, 2), torch.tensor([[1.], [2.], [3.]]))",
    "zero_dim": "torch.add(torch.tensor(1.), torch.tensor(2.))",
    "empty": "torch.mul(torch.empty(0, 3), torch.empty(3))",
    "large": "x = torch.arange(100000, dtype=torch.float32)\n(x * 1.5 + 2).sum()",
    "large_f16": "x = torch.arange(70000, dtype=torch.float32).half()\n(x * 0.1)[::7000]",
}, setup=S)


# Upstream's memory-overlap checks on the written-to tensor (in-place self or out=): a partial
# overlap with an input, or an expanded (internally overlapping) destination, raise; exactly the
# same elements, or memory an input does not share, compute.
cases("write_overlap", [
    "x = torch.arange(6.); x[1:].add_(x[:-1])", "x = torch.arange(6.); x.add_(x)",
    "x = torch.arange(6.).view(2, 3); x.add_(x[0])", "x = torch.arange(6.).view(2, 3); x.mul_(x.t().contiguous().t())",
    "x = torch.arange(6.); x[:3].lerp_(x[3:], 0.5); x", "x = torch.arange(6.); x[:4].addcmul_(x[2:], x[2:])",
    "x = torch.arange(6.); x[1:].sqrt_(); x", "x = torch.arange(3.).expand(2, 3); x.add_(1)",
    "x = torch.arange(3.).expand(2, 3); x.sqrt_()", "x = torch.arange(6.); torch.sqrt(x[:5], out=x[1:])",
    "x = torch.arange(6.); torch.mul(x[:5], 2, out=x[1:])", "x = torch.arange(6.); torch.mul(x[:3], 2, out=x[3:]); x",
    "x = torch.arange(6.); torch.addcdiv(x[:3], x[3:], x[3:], out=x[1:4])",
    "x = torch.arange(6.); x.mul_(x[::2].repeat(2)[:6]); x",
])
