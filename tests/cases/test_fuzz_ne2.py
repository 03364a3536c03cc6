"""Exception types and messages of the no-crash corpus's "ours NotImplementedError, upstream
RuntimeError / IndexError / ValueError" differences, fixed in the op owning each check
(docs/breadth_more2.md "Fuzz corpus exception types, group ne"); the corpus itself compares every
call's exception type (tests/test_no_crash.py).

- clamp / clip / clamp_min / clamp_max / hardtanh, Scalar bounds: a floating self keeps its dtype
  (a complex bound is read as a double: "value cannot be converted to type double"), out='s dtype
  is checked before the dtype's kernel refuses, in-place promotion refused with the C++ type name;
  clamp_min / clamp_max refuse a complex bound first. Tensor bounds: the iterator's checks before
  the kernel's refusal of complex ("maximum_cpu" / "minimum_cpu" / "clamp_cpu").
- rrelu / rrelu_: each bound read as a double, rrelu (not rrelu_) wants it finite.
- softmax / log_softmax int_out: _softmax.out's checks (dim, out='s exact dtype) before the kernel.
- activation backwards (elu / threshold / logit / ... _backward): the iterator's shape and out=
  cast checks before the kernel's dtype refusal; mish_backward casts into a grad_input of self's
  dtype; glu_backward: sigmoid's cast into grad_input, sigmoid's kernel, then one dtype for all.
- random_(from, to) / randint_like of a complex tensor: the bounds' checks refuse it by name.
- smooth_l1_loss / huber_loss out=: the binary iterator's checks; binary_cross_entropy out=: one dtype.
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
    "rrelu_bounds": "inf, nan = float('inf'), float('nan'); [err(lambda: f(T(d), **kw)) for f in [torch.rrelu, torch.rrelu_] for d in [torch.float32, torch.bool] "
                    "for kw in [dict(lower=-inf), dict(upper=inf), dict(lower=nan), dict(lower=1j), dict(upper=1j), dict(lower=1 + 0j), dict(lower=2, upper=1), "
                    "dict(lower=1j, upper=-inf), dict(lower=-inf, upper=1j), dict(lower=inf, upper=-inf), dict(lower=0.5, upper=-inf)]]",
    "softmax_int_out": "[err(lambda: f(T(d), dm, out=x.clone())) for f in [torch.ops.aten.softmax.int_out, torch.ops.aten.log_softmax.int_out] "
                       "for d in [torch.bool, torch.complex128, torch.int64, torch.float64] for dm in [0, -1, 2]], "
                       "torch.ops.aten.softmax.int_out(x.int(), 0, dtype=torch.float64, out=x.double()).dtype",
    "activation_backward_order": "c = T(torch.complex128); B = torch.ops.aten; [err(f) for f in [lambda: B.elu_backward.grad_input(c, 2, 2, 2, False, x, grad_input=x.clone()), "
                                 "lambda: B.threshold_backward.grad_input(c, x, 2, grad_input=x.clone()), lambda: B.threshold_backward.grad_input(c, c, 2, grad_input=c.clone()), "
                                 "lambda: B.logit_backward.grad_input(c, c, grad_input=x.clone()), lambda: B.silu_backward.grad_input(c, x, grad_input=x.clone()), "
                                 "lambda: B.hardtanh_backward.grad_input(c, x, -1, 1, grad_input=x.clone()), "
                                 "lambda: B.softplus_backward.grad_input(T(torch.bool), T(torch.bool), 1, 20, grad_input=T(torch.bool)), "
                                 "lambda: B.mish_backward(c, x), lambda: B.mish_backward(x, T(torch.int64))]], "
                                 "B.mish_backward(x, x.double()).dtype",
    "glu_backward_order": "G = torch.ops.aten.glu_backward; [err(f) for f in [lambda: G(x, T(torch.bool), 0), lambda: G.grad_input(T(torch.bool), T(torch.bool), 0, grad_input=x.clone()), "
                          "lambda: G(x, T(torch.complex64), 0), lambda: G(x.double(), x, 0), lambda: G(T(torch.int32), T(torch.int32), 0), "
                          "lambda: G.grad_input(T(torch.complex64), T(torch.complex64), 0, grad_input=T(torch.complex64)), lambda: G(x, T(torch.float8_e4m3fn), 0), "
                          "lambda: G.grad_input(x, T(torch.float8_e5m2), 0, grad_input=x.clone()), lambda: G(x, T(torch.bool), 5), lambda: G(torch.ones(2, 2), x, 1)]], "
                          "G(torch.ones(2, 3), torch.arange(12.).reshape(4, 3) / 10, 0)",
    "random_complex": "c = T(torch.complex64); [err(lambda: c.clone().random_(*a)) for a in [(1, 1), (0, 5), (5,), (2, None), (-2 ** 63, None), (-2 ** 63, 5)]], "
                      "[err(lambda: torch.ops.aten.randint_like(T(d), *a)) for d in [torch.complex64, torch.complex128, torch.complex32] for a in [(1,), (0,), (1, 1), (-3, 1)]], "
                      "err(lambda: torch.ones(0, dtype=torch.complex64).random_(0, 5))",
    "loss_out_order": "c = T(torch.complex128); A = torch.ops.aten; [err(f) for f in [lambda: A.binary_cross_entropy.out(c, c, c, out=x.clone()), "
                      "lambda: A.binary_cross_entropy.out(T(torch.bool), T(torch.bool), out=x.clone()), lambda: A.binary_cross_entropy.out(x, c, out=x.clone()), "
                      "lambda: A.binary_cross_entropy.out(x.double(), x.double(), out=x.clone()), lambda: A.binary_cross_entropy.out(c, c, out=c.clone()), "
                      "lambda: A.smooth_l1_loss.out(c, x, out=x.clone()), lambda: A.smooth_l1_loss.out(c, x, beta=0, out=x.clone()), "
                      "lambda: A.smooth_l1_loss.out(c, x, beta=-1, out=x.clone()), lambda: A.smooth_l1_loss.out(c, x, 0, out=x.clone()), "
                      "lambda: A.smooth_l1_loss.out(c, x, out=c.clone()), lambda: A.smooth_l1_loss.out(c, torch.ones(3, 2), out=x.clone()), "
                      "lambda: A.huber_loss.out(c, x, out=x.clone()), lambda: A.huber_loss(c, x), lambda: A.huber_loss.out(T(torch.bool), T(torch.bool), out=x.clone())]], "
                      "A.huber_loss.out(x / 7, x.double() / 3, out=x.clone()), A.huber_loss.out(x / 7, x.double() / 3, 0, out=x.double())",
}, setup=SETUP)
