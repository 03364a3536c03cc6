"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 36, group "refuse", third pass), compared with upstream by value, dtype, shape, requires_grad
and grad_fn, plus the neighbouring refusals the same checks keep (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs, third pass"):

- out= forms whose functional has no differentiable input (special_bessel_j0, the special
  polynomials: `self: non_differentiable`) or no differentiable output (gt, reached through the
  greater / less / not_equal aliases) run whatever requires grad; in-place forms of upstream's
  DONT_REQUIRE_DERIVATIVE ops (logical_not_) run on a leaf requiring grad.
- fill_'s overflow check: none on meta; one CPU element checked against the dtype; more (or none)
  through the fill kernel, which takes a complex32 value as complex<float> (1e20 fills inf).
- roll of an empty tensor is a clone, whatever the dims; no shifts: "`shifts` required".
- randint_like with a tensor high: any real / complex dtype, through item<int64_t>().
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
def rg():
    return (torch.arange(6.).reshape(2, 3) * 0.5).requires_grad_()
def st(t):
    return (t, t.requires_grad, type(t.grad_fn).__name__ if t.grad_fn is not None else None)
"""

cases("fuzz_refuse3_out_requires_grad", {
    "compare_alias_out_requires_grad": "[st(f(x, 0.0, out=rg())) for f in (aten.greater.Scalar_out, aten.greater_equal.Scalar_out, "
                                       "aten.less.Scalar_out, aten.less_equal.Scalar_out, aten.not_equal.Scalar_out)]",
    "compare_alias_tensor_out": "[st(f(x, x.flip(0), out=rg())) for f in (aten.greater.Tensor_out, aten.greater_equal.Tensor_out, "
                                "aten.less.Tensor_out, aten.less_equal.Tensor_out, aten.not_equal.Tensor_out)]",
    "compare_alias_input_requires_grad": "[st(torch.greater(x, rg(), out=torch.empty(2, 3))), "
                                         "st(torch.less_equal(rg(), 1.0, out=torch.empty(2, 3, dtype=torch.bool)))]",
    "special_out_requires_grad": "[st(aten.special_bessel_j0.out(x, out=rg())), st(aten.special_modified_bessel_k1.out(x.abs() + 0.1, out=rg())), "
                                 "st(aten.special_airy_ai.out(x, out=rg())), st(aten.special_spherical_bessel_j0.out(x, out=rg()))]",
    "special_poly_out_requires_grad": "[st(aten.special_chebyshev_polynomial_t.x_scalar_out(0.5, torch.arange(4.), out=rg()[0])), "
                                      "st(aten.special_hermite_polynomial_h.n_scalar_out(x, 3, out=rg())), "
                                      "st(aten.special_legendre_polynomial_p.out(x, torch.full((2, 3), 2.0), out=rg())), "
                                      "st(torch.special.chebyshev_polynomial_u(x, rg(), out=torch.empty(2, 3)))]",
    "special_input_requires_grad": "[st(torch.special.bessel_j1(rg(), out=torch.empty(2, 3))), st(torch.special.bessel_j1(rg()))]",
    "logical_inplace_leaf": "[st(rg().logical_not_()), st(rg().logical_and_(x)), st(rg().logical_or_(x)), "
                            "st(aten.logical_xor_.default(rg(), x))]",
    "still_refused": "[err(lambda: torch.abs(rg(), out=torch.empty(2, 3))), err(lambda: torch.absolute(rg(), out=torch.empty(2, 3))), "
                     "err(lambda: torch.sin(x, out=rg())), err(lambda: torch.add(rg(), 1, out=torch.empty(2, 3))), "
                     "err(lambda: rg().add_(1)), err(lambda: rg().clamp_(0, 1))]",
}, setup=SETUP)

cases("fuzz_refuse3_fill_overflow", {
    "c32_several": "[torch.fill(torch.zeros(2, 3, dtype=torch.complex32), 1e20), "
                   "torch.full_like(torch.zeros(2, 3, dtype=torch.complex32), -2**63), "
                   "torch.zeros(2, dtype=torch.complex32).new_full([2, 3], 1e20), "
                   "torch.full((2,), complex(70000.0, -1e30), dtype=torch.complex32), "
                   "torch.zeros(2, 2, dtype=torch.complex32)[:, 0].fill_(2**63 - 1)]",
    "c32_fill_tensor": "torch.zeros(3, dtype=torch.complex32).fill_(torch.tensor(1e20))",
    "meta_unchecked": "[tuple(t.shape) for t in (torch.empty(2, 3, device='meta', dtype=torch.float16).fill_(1e300), "
                      "torch.full((2,), 1e300, dtype=torch.float16, device='meta'), "
                      "torch.empty(2, device='meta', dtype=torch.complex32).fill_(1e300), "
                      "torch.full_like(torch.empty(2, 3, device='meta', dtype=torch.int8), 1000))]",
    "still_refused": "[err(lambda: torch.full((1,), 1e20, dtype=torch.complex32)), "
                     "err(lambda: torch.full((2,), 1e300, dtype=torch.complex32)), "
                     "err(lambda: torch.full((0,), 1e300, dtype=torch.complex32)), "
                     "err(lambda: torch.full((2,), 1e20, dtype=torch.float16)), "
                     "err(lambda: torch.zeros(2, 3, dtype=torch.bfloat16).fill_(1e300)), "
                     "err(lambda: torch.scalar_tensor(1e20, dtype=torch.complex32)), "
                     "err(lambda: torch.zeros(2, dtype=torch.complex32).masked_fill(torch.tensor([True, False]), 1e20)), "
                     "err(lambda: torch.full((-1,), 1e300, dtype=torch.float16)), "
                     "err(lambda: torch.full((3,), 300, dtype=torch.uint8))]",
}, setup=SETUP)

cases("fuzz_refuse3_roll_empty", {
    "empty_any_dims": "[torch.roll(torch.empty(0, 3), [1, 1], [-1, 2]), torch.roll(torch.empty(0, 3), [1], [5]), "
                      "torch.roll(torch.empty(3, 0), 2, 9)]",
    "empty_keeps_strides": "[torch.roll(torch.empty(2, 0, 3).permute(2, 0, 1), [1, 1], [0, 7]).stride(), "
                           "torch.roll(torch.empty(0, 3).t(), [1], [4]).stride()]",
    "nonempty": "[torch.roll(x, [1, 1], [-1, 0]), torch.roll(x, 4), torch.roll(x, -1, 1)]",
    "refused": "[err(lambda: torch.roll(x, [1, 1], [-1, 2])), err(lambda: torch.roll(torch.empty(0, 3), [], [])), "
               "err(lambda: torch.roll(x, [], [])), err(lambda: torch.roll(torch.empty(0, 3), [1, 2], [0])), "
               "err(lambda: torch.roll(x, [1, 2], []))]",
}, setup=SETUP)

cases("fuzz_refuse3_randint_like_tensor_high", {
    "float_high": "torch.manual_seed(0); torch.randint_like(torch.zeros(2, 3), torch.tensor(3.7))",
    "dtypes": "torch.manual_seed(1); [torch.randint_like(torch.zeros(4, dtype=torch.int64), torch.tensor(h)) "
              "for h in (5, 5.5, 2 + 0j, True)] + [torch.randint_like(torch.tensor(1.0), torch.tensor(9, dtype=torch.uint8))]",
    "refused": "[err(lambda: torch.randint_like(torch.tensor(1.0), torch.tensor(float('nan')))), "
               "err(lambda: torch.randint_like(torch.tensor(1.0), torch.tensor(1e30))), "
               "err(lambda: torch.randint_like(torch.tensor(1.0), torch.tensor(2 + 1j))), "
               "err(lambda: torch.randint_like(torch.tensor(1.0), torch.tensor([3]))), "
               "err(lambda: torch.randint_like(torch.tensor(1.0), torch.tensor(0.5)))]",
}, setup=SETUP)

cases("fuzz_refuse3_float_power_no_promotion", {
    "float8_exponent": "[torch.float_power(x, (x * 3).to(dt)) for dt in (torch.float8_e4m3fn, torch.float8_e4m3fnuz, "
                       "torch.float8_e5m2, torch.float8_e5m2fnuz)]",
    "float8_both": "torch.float_power(x.abs().to(torch.float8_e5m2), torch.arange(6.).reshape(2, 3).to(torch.float8_e4m3fnuz))",
    "complex32_base": "torch.float_power(torch.arange(6.).reshape(2, 3).to(torch.complex32), torch.arange(6.).reshape(2, 3).to(torch.float8_e4m3fn))",
    "method_inplace_out": "[x.abs().float_power(x.to(torch.float8_e4m3fnuz)), x.abs().double().float_power_(x.to(torch.float8_e4m3fn)), "
                          "torch.float_power(x.abs(), x.to(torch.float8_e5m2), out=torch.empty(2, 3, dtype=torch.float64))]",
    "still_refused": "[err(lambda: x.float_power_(x.to(torch.float8_e4m3fnuz))), "
                     "err(lambda: torch.float_power(x, x.to(torch.float8_e4m3fn), out=torch.empty(2, 3))), "
                     "err(lambda: torch.pow(x, x.to(torch.float8_e4m3fn)))]",
}, setup=SETUP)

cases("fuzz_refuse3_matrix_transpose_0dim", {
    "real": "t = torch.tensor(1.5); [(r is t, r._is_view(), r) for r in (t.mT, t.mH, t.adjoint(), t.H, aten.matrix_H.default(t), torch.adjoint(t))]",
    "complex": "t = torch.tensor(1.5 + 2j); [(r is t, r._is_view(), r.is_conj(), r.resolve_conj()) for r in (t.mT, t.mH, t.adjoint(), t.H)]",
    "int": "t = torch.tensor(3); [(r is t, r) for r in (t.mT, t.mH, t.adjoint())]",
    "requires_grad": "t = torch.tensor(1.5, requires_grad=True); [(r is t, r.grad_fn) for r in (t.mT, t.mH, t.adjoint(), t.H)]",
    "complex_grad": "t = torch.tensor(1.5 + 2j, requires_grad=True); r = t.mH; (type(r.grad_fn).__name__, r.is_conj())",
    "one_dim_refused": "t = torch.tensor([1.5]); [err(lambda: t.mT), err(lambda: t.mH), err(lambda: t.adjoint()), err(lambda: t.H), "
                       "err(lambda: torch.ones(2, 2, 2).H)]",
}, setup=SETUP)
