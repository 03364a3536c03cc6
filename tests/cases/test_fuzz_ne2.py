"""Exception types and messages of the no-crash corpus's "ours NotImplementedError, upstream
RuntimeError / IndexError / ValueError" differences, fixed in the op owning each check
(docs/breadth_more2.md "Fuzz corpus exception types, group ne"); the corpus itself compares every
call's exception type (tests/test_no_crash.py).

- clamp / clip / clamp_min / clamp_max / hardtanh, Scalar bounds: a floating self keeps its dtype
  (a complex bound is read as a double: "value cannot be converted to type double"), out='s dtype
  is checked before the dtype's kernel refuses, in-place promotion refused with the C++ type name;
  clamp_min / clamp_max refuse a complex bound first. Tensor bounds: the iterator's checks before
  the kernel's refusal of complex ("maximum_cpu" / "minimum_cpu" / "clamp_cpu").
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3)
def T(dt, shape=(2, 3)):
    return torch.ones(shape).to(dt)
"""

cases("fuzz_ne2", {
    "clamp_scalar_order": "[err(f) for f in [lambda: torch.clamp(x, max=1j), lambda: torch.clamp(x, min=1j, max=2), lambda: torch.clamp(x.half(), min=1e10, max=1j), "
                          "lambda: torch.clamp(T(torch.float8_e4m3fn), min=1j), lambda: torch.clamp(T(torch.float8_e4m3fn), min=1e10), "
                          "lambda: torch.clamp(T(torch.uint16), min=2 ** 40), lambda: torch.clamp(x.half(), max=1e10), "
                          "lambda: torch.ops.aten.clamp.out(T(torch.uint16), min=0, out=x.clone()), lambda: torch.ops.aten.clip.out(T(torch.uint64), max=-2 ** 63, out=x.clone()), "
                          "lambda: torch.ops.aten.clamp.out(x, max=1j, out=x.double()), lambda: torch.ops.aten.clamp.out(T(torch.float8_e4m3fn), min=0, max=1, out=x.clone()), "
                          "lambda: torch.clamp(T(torch.uint16), max=1), lambda: torch.clamp(T(torch.uint16), min=1, max=2)]], "
                          "torch.clamp(x, min=1 + 0j), x.clone().clamp_(max=2 + 0j)",
    "clamp_inplace_promotion": "[err(f) for f in [lambda: T(torch.int64).clamp_(max=1j), lambda: T(torch.int64).clamp_(min=1 + 0j), lambda: T(torch.bool).clamp_(min=1j), "
                               "lambda: T(torch.uint16).clamp_(max=1j), lambda: T(torch.uint64).clip_(min=1j), lambda: T(torch.int32).clamp_(min=1.5), "
                               "lambda: T(torch.bool).clamp_(min=2), lambda: torch.clamp(T(torch.int64), min=1j, max=2)]], T(torch.uint8).clamp_(min=True)",
    "clamp_min_max_complex_bound": "[err(f) for f in [lambda: torch.clamp_min(x, 1j), lambda: x.clamp_max(1 + 0j), lambda: x.clone().clamp_min_(1j), "
                                   "lambda: torch.ops.aten.clamp_max.out(x.half(), 1j, out=x.clone()), lambda: torch.clamp_min(T(torch.uint16), 1)]]",
    "clamp_tensor_bounds": "c = T(torch.complex64); [err(f) for f in [lambda: torch.clamp_max(c, x), lambda: torch.clamp_max(x, c), lambda: torch.clamp(x, c), "
                           "lambda: torch.clamp(x, c, x), lambda: torch.clamp(c, x), lambda: x.clone().clamp_(max=c), lambda: x.clone().clamp_min_(c), "
                           "lambda: c.clone().clamp_min_(c), lambda: torch.clamp(c, min=x, out=x.clone()), lambda: torch.clamp(x, min=c, out=x.clone()), "
                           "lambda: torch.clamp(x, min=c, out=c.clone()), lambda: x.clone().clamp_(c, T(torch.complex64, (3, 2))), "
                           "lambda: torch.clamp_min(x, T(torch.complex64, (3, 2))), lambda: torch.clamp(T(torch.uint16), T(torch.uint16), T(torch.uint16)), "
                           "lambda: torch.clamp_max(T(torch.uint16), T(torch.uint16)), lambda: torch.clamp(c, T(torch.float8_e4m3fn)), "
                           "lambda: torch.clamp_min(c, T(torch.float8_e4m3fn))]]",
    "hardtanh_limits": "[err(f) for f in [lambda: torch.ops.aten.hardtanh(T(d), **kw) for d in [torch.uint16, torch.int64, torch.uint8, torch.float32] "
                       "for kw in [dict(min_val=1j), dict(max_val=1j), dict(min_val=1e30)]]], "
                       "err(lambda: torch.ops.aten.hardtanh.out(T(torch.uint16), out=x.clone())), err(lambda: torch.ops.aten.hardtanh.out(T(torch.float8_e5m2), out=x.clone())), "
                       "torch.ops.aten.hardtanh(T(torch.int64), max_val=1 + 0j)",
}, setup=SETUP)
