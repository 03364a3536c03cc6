"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused by name (NotImplementedError)
and upstream 2.13.0 runs (session 37, group "nieok"), compared with upstream by value, dtype and
shape, with the refusals that remain beside them (docs/breadth_more2.md "Fuzz corpus: paths we
refused by name, group nieok (session 37)"):

- the orthogonal polynomials with huge degrees: the recurrences run (a NaN, an overflow or a closed
  form ends them early), refused only for an element still going after 2^24 steps;
- bitwise and / or / xor (the dunders' Tensor forms too), bitwise_not, gcd, lcm, igamma, xlog1py,
  zeta, the polynomials, clamp_min / clamp_max with a complex bound, on meta tensors of a dtype
  without a CPU kernel: the meta result (mixed meta / CPU dunder operands refused as upstream);
- all / any, sgn and addcmul of complex32; complex(float16, float16) into complex32;
- empty inputs of softmax / log_softmax / _safe_softmax, bernoulli, normal_, randn_like and
  linalg__powsum of any dtype: no dtype dispatch.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import math, warnings
warnings.simplefilter("ignore")
A = torch.ops.aten
nan = float('nan')
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
huge = torch.tensor([[1e30, -1e30, nan], [3e9, -3e9, 2.5]])
bad = torch.tensor([[2**62, -2**62, 5], [-1, 0, -4]])
POLY = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p")
def m(d=torch.float32, s=(2, 3)):
    return torch.empty(*s, device="meta", dtype=d)
def mt(r):
    return (r.dtype, tuple(r.shape), r.device.type)
def e(d, s=(0,)):
    return torch.empty(s, dtype=d)
def sh(r):
    return (r.dtype, tuple(r.shape))
"""

cases("fuzz_nieok4_poly", {
    # the corpus's calls: n beyond int64 / NaN (upstream's cast gives INT64_MIN: 0), 3e9 where a
    # closed form or an overflow ends the loop, 2^62
    "huge_n": "[getattr(torch.special, f)(x, huge) for f in POLY if f[:3] not in ('lag', 'leg')]",
    "bad_n": "[getattr(torch.special, f)(x, bad) for f in POLY]",
    "huge_x": "[getattr(torch.special, f)(huge, huge) for f in POLY]",
    "scalar_x": "[getattr(torch.special, f)(2, huge) for f in POLY if f[:3] != 'lag'] + "
                "[getattr(torch.special, f)(2, bad) for f in POLY if f[:3] != 'lag']",
    "f64": "[getattr(torch.special, f)(x.double(), bad.double()) for f in POLY]",
    "out": "o = torch.empty(0); r = torch.special.chebyshev_polynomial_u(x, huge, out=o); (r is o, o)",
    "aten": "[A.special_hermite_polynomial_h.x_scalar(2, bad), A.special_chebyshev_polynomial_w.x_scalar_out(2, huge, out=torch.empty(2, 3))]",
    # a bounded value (Laguerre at x > 0, Legendre at |x| < 1) past 2^24 steps: refused by name
    # where upstream's loop runs for seconds (not compared: ours NotImplementedError)
    "small_degrees": "[getattr(torch.special, f)(x, torch.tensor([0., 1., 2., 7., 9., 40.])) for f in POLY]",
}, setup=SETUP)

cases("fuzz_nieok4_meta", {
    "bitwise": "[mt(A.__and__.Tensor(m(), m())), mt(A.__or__.Tensor(m(), m())), mt(A.__xor__.Tensor(m(), m())), "
               "mt(A.__iand__.Tensor(m(), m())), mt(A.__ior__.Tensor(m(), torch.tensor(1.))), mt(m().__and__(m())), "
               "mt(m().__xor__(torch.tensor(1.)))]",
    "bitwise_devices": "[err(lambda: A.__and__.Tensor(m(d), torch.ones(2, 3, dtype=d))) for d in (torch.float32, torch.int64)] + "
                       "[err(lambda: A.__or__.Tensor(torch.ones(2, 3), m())), err(lambda: m().__and__(torch.ones(2, 3)))]",
    "bitwise_not": "[mt(A.bitwise_not.default(m())), mt(A.bitwise_not.default(m(torch.complex64))), "
                   "mt(A.bitwise_not_.default(m())), mt(A.bitwise_not.out(m(), out=m())), mt(m().bitwise_not())]",
    "gcd_lcm": "[mt(getattr(A, f).default(m(d), m(d))) for f in ('gcd', 'lcm') "
               "for d in (torch.float32, torch.complex64, torch.float8_e4m3fn, torch.complex32, torch.uint16)] + "
               "[mt(A.gcd.default(m()[:, :1], m(s=(3,)))), mt(A.gcd_.default(m(), m())), mt(A.lcm.out(m(), m(), out=m(s=(0,)))), "
               "mt(torch.gcd(m(), m())), mt(m().lcm(m())), err(lambda: A.lcm.default(m(torch.bool), m(torch.bool)))]",
    "float_ops": "[mt(getattr(A, f).default(m(d), m(d))) for f in ('igamma', 'igammac', 'special_xlog1py', 'special_zeta', "
                 "'special_chebyshev_polynomial_t', 'special_hermite_polynomial_h') "
                 "for d in (torch.complex64, torch.float8_e4m3fn, torch.bool, torch.uint16)] + "
                 "[mt(A.special_xlog1py.other_scalar(m(), 1j)), mt(A.special_xlog1py.self_scalar(1j, m())), "
                 "mt(A.special_zeta.other_scalar(m(), 1j))]",
    "clamp_complex": "[mt(A.clamp_max.default(m(), 1j)), mt(A.clamp_min.default(m(), 1j)), mt(torch.clamp_max(m(), 1j)), "
                     "mt(A.clamp_max.default(m(torch.complex64), 1)), mt(A.clamp_min.default(m(torch.int64), 1j)), "
                     "err(lambda: A.clamp_max_.default(m(), 1j)), err(lambda: A.clamp_min.out(m(), 1j, out=m())), "
                     "err(lambda: torch.clamp_max(m(), 1j, out=torch.empty(2, 3))), err(lambda: A.clamp_max.default(x, 1j))]",
}, setup=SETUP)

cases("fuzz_nieok4_c32", {
    "all_any": "c = torch.complex(x, x.flip(0)).to(torch.complex32); c[0, 1] = 0; "
               "[A.all.default(c), A.any.default(c), A.all.dim(c, 0), A.any.dim(c, 1), A.all.dims(c), A.any.dims(c, [0], True), "
               "torch.all(c, 1), c.any(), torch.all(c[:0]), torch.any(c, 0, out=torch.empty(0, dtype=torch.bool)), "
               "torch.all(torch.zeros(3, dtype=torch.complex32)), torch.any(torch.tensor([0j, 1j]).to(torch.complex32))]",
    "sgn": "g = torch.Generator().manual_seed(1); re_ = (torch.randn(4000, generator=g) * 3).half(); "
           "im_ = (torch.randn(4000, generator=g) * 3).half(); re_[:50] = 0; im_[25:75] = 0; re_[100] = math.inf; "
           "im_[101] = nan; re_[102] = -math.inf; im_[102] = math.inf; z = torch.complex(re_.float(), im_.float()).to(torch.complex32); "
           "o = torch.empty(0, dtype=torch.complex32); zz = z.clone(); "
           "[torch.sgn(z), A.sgn.default(z.view(40, 100).t()), torch.sgn(z, out=o), o, A.sgn_.default(zz), zz, "
           "err(lambda: torch.sgn(z, out=torch.empty(0, dtype=torch.complex64)))]",
    "addcmul": "g = torch.Generator().manual_seed(2); "
               "c = lambda *s: torch.complex(torch.randn(*s, generator=g) * 2, torch.randn(*s, generator=g) * 2).to(torch.complex32); "
               "s0, t1, t2 = c(50, 40), c(50, 40), c(40); s1 = s0.clone(); o = torch.empty(0, dtype=torch.complex32); "
               "[torch.addcmul(s0, t1, t2), torch.addcmul(s0, t1, t2, value=0.3), torch.addcmul(s0, t1, t2, value=1e-3 + 2j), "
               "A.addcmul.default(s0.t(), t1.t(), t2[:, None]), torch.addcmul(s0, t1.half() if False else t1, t2.to(torch.complex32), value=-7), "
               "torch.addcmul(s0, t1, t2, out=o), o, s1.addcmul_(t1, t2, value=0.5), s1, "
               "torch.addcmul(s0, torch.arange(40).half(), t2), "
               "err(lambda: torch.addcmul(s0, t1, t2, out=torch.empty(0, dtype=torch.float16))), "
               "err(lambda: t2.clone().addcmul_(t1, t2))]",
    "complex_f16": "h = (torch.randn(3, 4, generator=torch.Generator().manual_seed(3)) * 100).half(); "
                   "[torch.complex(h, h.flip(1)), A.complex.default(h[:, 0], h[0, :3]), torch.complex(h.t(), h.t()), "
                   "torch.complex(h, h, out=torch.empty(0, dtype=torch.complex32)), "
                   "err(lambda: torch.complex(h, h, out=torch.empty(0, dtype=torch.complex64))), "
                   "err(lambda: torch.complex(h, h.float()))]",
}, setup=SETUP)

cases("fuzz_nieok4_empty", {
    "softmax": "[sh(f(e(d, s))) for d in (torch.int64, torch.bool, torch.complex64, torch.float8_e4m3fn, torch.uint16) "
               "for s in ((0,), (3, 0), (0, 3)) for f in (lambda t: A._softmax.default(t, 0, False), "
               "lambda t: A._log_softmax.default(t, -1, False), lambda t: A.softmax.int(t, 0), "
               "lambda t: A.log_softmax.int(t, 0), lambda t: torch.nn.functional.softmax(t, 0))]",
    "safe_softmax": "[err(lambda: sh(A._safe_softmax.default(e(d), 0))) for d in (torch.int64, torch.bool, torch.uint16, "
                    "torch.complex64, torch.float8_e4m3fn)]",
    "softmax_refused": "[err(lambda: A._softmax.default(torch.ones(2, dtype=torch.int64), 0, False)), "
                       "err(lambda: A._softmax.default(e(torch.int64), 0, True)), err(lambda: A._log_softmax.default(e(torch.int64), 1, False))]",
    "random": "[sh(f(e(d, s))) for d in (torch.int64, torch.bool, torch.complex64, torch.float8_e4m3fn, torch.uint16) "
              "for s in ((0,), (3, 0)) for f in (lambda t: A.bernoulli.default(t), "
              "lambda t: A.bernoulli.out(t, out=torch.ones(2, 3)), lambda t: A.bernoulli_.float(t), lambda t: A.normal_.default(t), "
              "lambda t: A.randn_like.default(t), lambda t: A.bernoulli_.Tensor(t, torch.tensor([5]))) ] + "
              "[sh(A.normal.Tensor_Tensor(e(torch.int64), e(torch.int64))), sh(A.normal.Tensor_float(e(torch.bool))), "
              "sh(A.normal.float_Tensor(2, e(torch.int64))), sh(A.normal.float_Tensor(2.5, e(torch.bool, (3, 0)))), "
              "err(lambda: A.normal.float_Tensor(2, e(torch.complex64)))]",
    "random_refused": "[err(lambda: A.normal_.default(torch.ones(2, dtype=torch.int64))), "
                      "err(lambda: A.bernoulli.default(torch.ones(2, dtype=torch.int64))), "
                      "err(lambda: A.normal_.default(e(torch.int64), 0, -1)), "
                      "err(lambda: A.bernoulli_.Tensor(torch.ones(3, 1), torch.tensor([5.])))]",
    "powsum": "[A.linalg__powsum.default(e(d, s)) for d in (torch.int64, torch.bool, torch.complex64, torch.float8_e4m3fn, "
              "torch.uint16, torch.complex32) for s in ((0,), (3, 0))] + "
              "[A.linalg__powsum.default(e(torch.int64, (3, 0)), 2, [1]), A.linalg__powsum.default(e(torch.bool, (0, 3)), 2, [0], True)]",
}, setup=SETUP)

cases("fuzz_nieok4_f8_out", {
    # a float8 input into an out= of a floating dtype: the reduction in out's dtype
    "runs": "g = torch.Generator().manual_seed(5); xs = (torch.randn(7, 9, generator=g) * 3); "
            "[f(xs.to(dt), torch.empty(0, dtype=od)) for dt in (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz) "
            "for od in (torch.float32, torch.float64, torch.float16, torch.bfloat16) for f in ("
            "lambda t, o: A.mean.out(t, [0], out=o), lambda t, o: A.mean.out(t, [1], True, out=o), "
            "lambda t, o: A.mean.dtype_out(t, out=o), lambda t, o: A.nanmean.out(t, out=o), lambda t, o: A.nansum.out(t, out=o), "
            "lambda t, o: A.nansum.out(t, [1], out=o), lambda t, o: A.std.out(t, [0], out=o), lambda t, o: A.var.out(t, [1], out=o), "
            "lambda t, o: torch.std(t, 1, correction=0, out=o), lambda t, o: torch.var(t, 0, out=o), "
            "lambda t, o: torch.mean(t, out=o), lambda t, o: torch.nanmean(t, 0, out=o))]",
    "nan": "t = torch.tensor([[1., nan, 3.], [nan, 2., 0.5]]).to(torch.float8_e5m2); "
           "[A.nansum.out(t, out=torch.empty(0)), A.nanmean.out(t, [1], out=torch.empty(0)), A.mean.out(t, [0], out=torch.empty(0))]",
    "nansum": "[torch.nansum(e(d)) for d in (torch.float8_e4m3fn, torch.float8_e5m2)] + "
              "[torch.nansum(e(torch.float8_e4m3fn, (0, 3)), 1), torch.nansum(e(torch.float8_e4m3fn, (2, 0)), 0), "
              "torch.nansum(x.to(torch.float8_e4m3fn), dtype=torch.float32), torch.nansum(x.to(torch.float8_e5m2), 1, dtype=torch.float64), "
              "err(lambda: torch.nansum(torch.tensor(1.).to(torch.float8_e4m3fn))), "
              "err(lambda: torch.nansum(x.to(torch.float8_e4m3fn), 5)), "
              "err(lambda: torch.nansum(x.to(torch.float8_e4m3fn), dtype=torch.float32, out=torch.empty(0, dtype=torch.float64)))]",
    # one output element: the all-elements kernel refuses float8 whatever out= is
    "refused": "t = x.to(torch.float8_e4m3fn); "
               "[err(lambda: torch.var(t, out=torch.empty(0))), err(lambda: A.std.out(t, [0, 1], out=torch.empty(0))), "
               "err(lambda: torch.mean(t)), err(lambda: torch.nansum(t)), err(lambda: torch.std(t, 0))]",
}, setup=SETUP)
