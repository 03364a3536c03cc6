"""torch.ops.aten calls no overload takes (issue #8 / #11): upstream's schema matching
(createStackForSchema) raises RuntimeError, for a packet "Overloaded torch operator invoked from
Python failed to match any schema:" with every overload's reason, for one overload its reason
(src/python/functions.c, mismatch_reason / aten_no_match). A packet tries aten's own overloads
before TorchScript's, so `aten.add(1, 2)` is add.Tensor on wrapped numbers, and TorchScript's
type-variable overloads (add.t) take no tensor. Each case returns (type, message)."""
from harness import cases

ERR = """
def err(f):
    try:
        r = f()
        return ("ok", repr(r))
    except Exception as e:
        return (type(e).__name__, str(e))
# Where upstream's TorchScript type variables print as t / t[] (ours Any): the type, the first
# line, and the reasons of aten's own overloads as a sorted list
def err_set(f):
    t, m = err(f)
    head, _, rest = m.partition("\\n")
    return (t, head, sorted(r for r in rest.split("\\n\\n") if r and "t[]" not in r and "Any" not in r
                            and ("Tensor" in r.split("Declaration: ")[-1] or "Schema" in r)))
x = torch.ones(2)
a = torch.ops.aten
"""

cases("aten_packet_errors", {
    "too_many": "err(lambda: a.relu(x, 1))",
    "str_for_tensor": "err(lambda: a.abs('a'))",
    "float_for_symint_list": "err(lambda: a.view(x, 1.5))",
    "str_for_symint_list": "err(lambda: a.zeros('a'))",
    "kw_wrong_type": "err(lambda: a.abs(x, out='a'))",
    "missing_out": "err(lambda: a.relu(self=x, foo=1))",
    "str_other": "err_set(lambda: a.add(x, 'a'))",
    "missing": "err_set(lambda: a.add(x))",
    "unknown_kw": "err_set(lambda: a.add(x, x, foo=1))",
    "positional_kwonly": "err_set(lambda: a.sum(x, 'a'))",
}, setup=ERR)

cases("aten_overload_errors", {   # one overload named: its reason alone
    "missing": "err(lambda: a.add.Tensor(x))",
    "unknown_kw": "err(lambda: a.add.Tensor(x, x, foo=1))",
    "both_kw": "err(lambda: a.add.Tensor(x, x, self=x))",
    "positional_kwonly": "err(lambda: a.sum.default(x, 1))",
    "str_for_tensor": "err(lambda: a.add.Tensor(x, 'a'))",
    "tensor_for_int": "err(lambda: a.select.int(x, 0, x))",
}, setup=ERR)

cases("aten_packet_numbers", {   # aten's own overloads first: numbers fill Tensor parameters
    "add_ints": "a.add(1, 2)",
    "add_float_int": "a.add(1.5, 2)",
    "add_tensor_int": "a.add(x, 2)",
}, setup=ERR)

# One int for an int list (measured): torch.ops has no varargs (aten.zeros.default(5) is refused where
# torch.zeros(5) runs), and only an int[N] repeats one int N times: a SymInt[N] (roll's shifts,
# col2im's / adaptive pools' output_size) wants a list, an int[N] (sum's dim, max_pool2d's
# kernel_size, col2im's kernel_size) takes it.
cases("aten_one_int_lists", {
    "zeros_default": "err(lambda: a.zeros.default(5))",
    "zeros_two": "err(lambda: a.zeros.default(2, 3))",
    "zeros_packet": "err_set(lambda: a.zeros(5))",
    "zeros_list": "a.zeros.default([5])",
    "randn_default": "err(lambda: a.randn.default(4))",
    "empty_default": "err(lambda: a.empty.memory_format(4))",
    "new_zeros": "err(lambda: a.new_zeros.default(x, 3))",
    "view_default": "err(lambda: a.view.default(x, 2))",
    "roll_symint1": "err(lambda: a.roll.default(x, 1))",
    "roll_list": "a.roll.default(x, [1], 0)",
    "adaptive_avg_pool2d": "err(lambda: a.adaptive_avg_pool2d.default(torch.ones(1, 1, 4, 4), 2))",
    "upsample_nearest2d": "err(lambda: a.upsample_nearest2d.default(torch.ones(1, 1, 2, 2), 4))",
    "col2im_symint2": "err(lambda: a.col2im.default(torch.ones(1, 4, 4), 3, 2, 1, 0, 1))",
    "col2im_int2": "a.col2im.default(torch.ones(1, 4, 4), [3, 3], 2, 1, 0, 1)",
    "sum_int1": "a.sum.dim_IntList(torch.ones(2, 3), 1)",
    "max_pool2d_int2": "a.max_pool2d.default(torch.ones(1, 1, 4, 4), 2)",
    "torch_zeros_varargs": "torch.zeros(5)",
    "method_view_varargs": "x.view(2, 1)",
}, setup=ERR)
