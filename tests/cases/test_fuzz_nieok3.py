"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused by name (NotImplementedError)
and upstream 2.13.0 runs (session 36, group "nieok"), compared with upstream by value, dtype and
shape, with the refusals that remain beside them (docs/breadth_more2.md "Fuzz corpus: paths we
refused by name, group nieok (session 36)"):

- vector norms of complex32 (linalg_vector_norm, the legacy norm overloads, linalg.norm, dist,
  linalg__powsum): |x| of each complex<Half> in float, accumulated in float, a float16 result;
- std / var (and std_mean / var_mean) of complex32: each half's variance rounded to float16, added
  in float16 (then the square root);
- flip of a dtype without a flip kernel (float8, complex32, uint16/32/64): nothing to flip is a
  copy, rows contiguous in an unflipped innermost dim are copied whole; the rest refused as upstream;
- mul_.Scalar / multiply of float8 (the number as mul's first operand: the general kernel);
  a number or 0-dim operand cast to the float8 dtype before the product;
- pow(Tensor, 0 / 1) of float8, complex32, uint16 (fill / copy), other exponents refused as upstream;
- clamp / clamp_min / clamp_max / hardtanh with a NaN bound: the result filled with NaN (float8 too);
- comparisons, fmod, remainder, copysign, xlogy, atan2, hypot, nextafter on meta tensors of a dtype
  (or a complex number) without a CPU kernel: the meta result;
- sum / prod / cumsum / cumprod of a complex input into a real dtype (out= or dtype=): the real part;
- count_nonzero with dims of float8 / complex32 / uint16 (upstream's (self != 0).sum(dims)).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import math, warnings
warnings.simplefilter("ignore")
g = torch.Generator().manual_seed(7)
xr = torch.randn(4, 5, generator=g) * 3
xi = torch.randn(4, 5, generator=g) * 3
c32 = torch.complex(xr, xi).to(torch.complex32)
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
F8 = (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz)
def v(t):
    return (t.dtype, tuple(t.shape), t.float() if t.dtype.is_floating_point and t.dtype.itemsize == 1 else t)
"""

cases("fuzz_nieok3_norm_c32", {
    "vector_norm_orders": "[torch.linalg.vector_norm(c32, o) for o in (2, 1, 0, math.inf, -math.inf, 3, -1, 0.5, -2.5)]",
    "vector_norm_dims": "[torch.linalg.vector_norm(c32, o, d, k) for o in (2, 1, 3) for d in (0, 1, (0, 1), -1) "
                        "for k in (False, True)]",
    "vector_norm_strided": "[torch.linalg.vector_norm(c32.t(), 2, 1), torch.linalg.vector_norm(c32[:, ::2], 1, 0), "
                           "torch.linalg.vector_norm(c32[:1].expand(3, 5), 2)]",
    "vector_norm_dtype": "[torch.linalg.vector_norm(c32, 2, dtype=torch.complex64), "
                         "torch.linalg.vector_norm(c32, 1, 0, dtype=torch.complex128)]",
    "legacy_norm": "[c32.norm(), c32.norm(p=-1), c32.norm(p=1, dim=[0]), torch.norm(c32, p=math.inf), "
                   "torch.norm(c32, p=3, dim=1, keepdim=True), torch.ops.aten.norm.Scalar(c32, 2), "
                   "torch.ops.aten.norm.ScalarOpt_dim(c32, -math.inf, [0])]",
    "linalg_norm_dist": "[torch.linalg.norm(c32), torch.linalg.norm(c32, -1, dim=1), torch.linalg.norm(c32, 'fro'), "
                        "torch.dist(c32, c32.flip(0)), torch.dist(c32, torch.ones(5, dtype=torch.complex32), 3)]",
    "powsum": "[torch.ops.aten.linalg__powsum(c32, o) for o in (2, 1, 0, -1, 3, math.inf)] + "
              "[torch.ops.aten.linalg__powsum(c32, 2, [1], True)]",
    "empty_and_one": "[torch.linalg.vector_norm(c32[:0], 2), torch.linalg.vector_norm(c32[:, :1], 2, 1), "
                     "err(lambda: torch.linalg.vector_norm(c32[:0], -1))]",
    "meta": "r = torch.linalg.vector_norm(torch.empty(3, 4, dtype=torch.complex32, device='meta'), 2, 1); "
            "(r.dtype, tuple(r.shape), r.device.type)",
}, setup=SETUP)

cases("fuzz_nieok3_var_c32", {
    "std_var": "[c32.std(), c32.var(), c32.std(0), c32.var(1), c32.std(1, keepdim=True), c32.var((0, 1)), "
               "torch.std(c32, 0, correction=0), torch.var(c32, 1, correction=2)]",
    "means": "[torch.std_mean(c32), torch.var_mean(c32, 0), torch.std_mean(c32, 1, keepdim=True), "
             "torch.var_mean(c32, (0, 1), correction=0)]",
    "strided": "[torch.std(c32.t(), 0), torch.var(c32[:, ::2], 1)]",
    "out": "o = torch.empty(0, dtype=torch.float16); r = torch.std(c32, 0, out=o); (r is o, o)",
    # all elements into out= (one output element): through the real view, into a float16 / complex32
    # out it runs, into anything wider upstream's all-elements kernel refuses Half (merge of session 36)
    "out_all": "[err(lambda: torch.var(c32, correction=0, dim=None, out=torch.empty(0, dtype=d))) "
               "for d in (torch.float16, torch.float32, torch.float64, torch.complex32, torch.complex64)]",
}, setup=SETUP)

cases("fuzz_nieok3_flip", {
    "runs": "[v(torch.flip(t, d)) for dt in F8 + (torch.complex32, torch.uint16, torch.uint32, torch.uint64) "
            "for t in (x.to(dt) if dt != torch.complex32 else (x * (1 + 2j)).to(dt),) "
            "for d in ([0], [], [-2])] ",
    "views": "[v(torch.flip(t, d)) for t in (x.to(torch.uint16).t(), torch.arange(24).reshape(2, 3, 4).to(torch.float8_e5m2)) "
             "for d in ([1], [0], [0, 1])[:3 if t.dim() == 3 else 1]]",
    "nothing_to_flip": "[v(torch.flip(x[:1].expand(3, 3).to(torch.uint32), [0])), v(torch.flip(x[:1].to(torch.float8_e4m3fn), [0])), "
                       "v(torch.flip(torch.tensor(2.5).to(torch.float8_e4m3fn), []))]",
    "flipud_fliplr": "[v(torch.flipud(x.to(torch.float8_e4m3fn))), v(torch.fliplr(x.to(torch.uint64).t()))]",
    "refused": "[err(lambda: torch.flip(x.to(dt), [1])) for dt in (torch.float8_e4m3fn, torch.complex32, torch.uint16)] + "
               "[err(lambda: torch.flip(x.to(torch.uint32)[:, ::2], [0])), err(lambda: torch.flip(x[0].to(torch.uint64), [0])), "
               "err(lambda: torch.fliplr(x.to(torch.float8_e5m2)))]",
}, setup=SETUP)

cases("fuzz_nieok3_mul_f8", {
    "mul_scalar_inplace": "[v(torch.ops.aten.mul_.Scalar(x.to(dt), s)) for dt in F8 "
                          "for s in (-1, 2, 0, -2**63, -math.inf, 1.5, 0.3, 1e10, True, 7)]",
    "method_and_alias": "[v(x.to(torch.float8_e4m3fn).mul_(3)), v(torch.ops.aten.multiply_.Scalar(x.to(torch.float8_e5m2), -2.5)), "
                        "v(x.to(torch.float8_e4m3fn).multiply_(x.to(torch.float8_e4m3fn)))]",
    "multiply": "[v(torch.multiply(x.to(dt), x.to(dt))) for dt in F8] + "
                "[v(torch.multiply(x.to(torch.float8_e4m3fn), x.to(torch.float8_e4m3fn), out=torch.empty(2, 3)))]",
    "zero_dim_first": "[v(torch.mul(torch.tensor(s), x.to(torch.float8_e4m3fn))) for s in (-math.inf, 1e10, 0.3, -7)]",
    "foreach": "ts = [x.to(torch.float8_e4m3fn), (x * 1j).to(torch.complex32)]; torch._foreach_mul_(ts, 2); [v(t) for t in ts]",
    "refused": "[err(lambda: torch.ops.aten.mul.Scalar(x.to(torch.float8_e4m3fn), 2)), "
               "err(lambda: x.to(torch.float8_e4m3fn) * 2), err(lambda: torch.mul(x.to(torch.float8_e5m2), torch.tensor(2.)))]",
}, setup=SETUP)

cases("fuzz_nieok3_pow_trivial", {
    "zero_one": "[v(torch.pow(t, e)) for t in (x.to(torch.float8_e4m3fn), (x * (1 + 2j)).to(torch.complex32), "
                "(x * 4).to(torch.uint16), (x * 4).to(torch.uint64)) for e in (0, 1, True, False, 0.0, 1.0)]",
    "inplace_out": "[v(x.to(torch.float8_e5m2).pow_(0)), v(torch.ops.aten.pow_.Scalar((x * 1j).to(torch.complex32), 1)), "
                   "v(torch.pow(x.to(torch.float8_e4m3fn), 0, out=torch.empty(2, 3))), "
                   "v(torch.pow((x * 4).to(torch.uint16), 1, out=torch.empty(0)))]",
    "refused": "[err(lambda: torch.pow(t, 2)) for t in (x.to(torch.float8_e4m3fn), (x * 1j).to(torch.complex32), "
               "x.to(torch.uint32))]",
}, setup=SETUP)

cases("fuzz_nieok3_clamp_nan", {
    "f8": "[v(f(x.to(dt))) for dt in F8 for f in (lambda t: t.clamp(max=math.nan), lambda t: t.clamp(min=math.nan), "
          "lambda t: torch.clamp(t, -1, math.nan), lambda t: torch.clamp_max(t, math.nan), "
          "lambda t: torch.clamp_min(t, math.nan), lambda t: t.clip_(max=math.nan), "
          "lambda t: torch.nn.functional.hardtanh(t, max_val=math.nan))]",
    "other_dtypes": "[x.clamp(max=math.nan), x.clamp(min=0, max=math.nan), torch.ones(2, 3, dtype=torch.long).clamp(max=math.nan), "
                    "x.half().clamp_min(math.nan), torch.nn.functional.hardtanh(x, min_val=math.nan)]",
    "refused": "[err(lambda: x.to(torch.float8_e4m3fn).clamp(max=1.0)), "
               "err(lambda: torch.clamp(x.to(torch.float8_e4m3fn), max=math.nan, out=torch.empty(2, 3))), "
               "err(lambda: torch.ones(2, 3, dtype=torch.long).clamp_(max=math.nan)), "
               "err(lambda: torch.clamp(x, max=math.nan, out=torch.empty(2, 3, dtype=torch.float64)))]",
}, setup=SETUP)

cases("fuzz_nieok3_meta_binary", {
    "complex_number": "m = torch.empty(2, 3, device='meta'); "
                      "[(r.dtype, tuple(r.shape), r.device.type) for r in "
                      "[f(m, 1j) for f in (torch.lt, torch.le, torch.gt, torch.ge, torch.greater, torch.less_equal, "
                      "torch.fmod, torch.remainder, torch.copysign, torch.xlogy)] + [m.clone().ge_(1j), m.clone().lt_(2j)]]",
    "complex_tensors": "c = torch.empty(2, 3, device='meta', dtype=torch.complex64); "
                       "[(r.dtype, tuple(r.shape)) for r in [f(c, c) for f in (torch.lt, torch.ge, torch.fmod, torch.remainder, "
                       "torch.copysign, torch.xlogy, torch.atan2, torch.hypot, torch.nextafter)]]",
    "aten_scalar": "m = torch.empty(2, 3, device='meta'); "
                   "[(r.dtype, tuple(r.shape)) for r in [torch.ops.aten.ge.Scalar(m, 1j), torch.ops.aten.fmod.Scalar(m, 1j), "
                   "torch.ops.aten.xlogy.Scalar_Other(m, 1j), torch.ops.aten.copysign.Scalar(m, 1j)]]",
    "refused": "m = torch.empty(2, 3, device='meta'); "
               "[err(lambda: torch.lt(m, 1j, out=torch.empty(2, 3))), err(lambda: torch.lt(torch.ones(2, 3), 1j)), "
               "err(lambda: torch.fmod(torch.ones(2, dtype=torch.complex64), 1))]",
}, setup=SETUP)

cases("fuzz_nieok3_complex_to_real", {
    "sum_prod": "c = x.cfloat() * (1 + 2j); "
                "[torch.sum(c.to(dt), [0], out=torch.empty(3, dtype=o)) for dt in (torch.complex64, torch.complex128, torch.complex32) "
                "for o in (torch.float32, torch.float64, torch.int64)] + "
                "[torch.prod(c, 0, out=torch.empty(3)), torch.sum(c, dtype=torch.float32), torch.sum(c, [], dtype=torch.float64), "
                "torch.sum(c, [1, 0], out=torch.empty(())), torch.prod(c.cdouble(), 1, dtype=torch.float32)]",
    "scans": "c = x.cfloat() * (1 + 2j); "
             "[torch.cumsum(c.to(dt), d, out=torch.empty(2, 3)) for dt in (torch.complex64, torch.complex128, torch.complex32) "
             "for d in (0, -1)] + [torch.cumprod(c, 0, out=torch.empty(2, 3, dtype=torch.float64)), "
             "torch.cumsum(c, 1, dtype=torch.float32)]",
    "refused": "c = x.cfloat() * (1 + 2j); "
               "[err(lambda: torch.nansum(c, [0], out=torch.empty(3))), "
               "err(lambda: torch.sum(c, [0], out=torch.empty(3, dtype=torch.float8_e4m3fn)))]",
}, setup=SETUP)

cases("fuzz_nieok3_count_nonzero", {
    "dims": "[torch.count_nonzero(t, d) for t in (torch.tensor([[0, 1, 2], [0, 0, 3]]).to(dt) for dt in "
            "F8 + (torch.uint16, torch.uint32, torch.uint64)) for d in ([0], [1], 0, -1, [0, 1])] + "
            "[torch.count_nonzero(torch.tensor([[0, 1j, 2], [0, 0, 3]]).to(torch.complex32), d) for d in ([0], 1)]",
    "views": "t = torch.tensor([[0, 1, 2], [0, 0, 3]]).to(torch.uint16); [torch.count_nonzero(t.t(), 0), torch.count_nonzero(t[:, ::2], [1])]",
    "refused": "[err(lambda: torch.count_nonzero(torch.ones(2, 3).to(dt))) for dt in (torch.float8_e4m3fn, torch.uint16)] + "
               "[err(lambda: torch.count_nonzero(torch.ones(2, 3).to(torch.uint64), [])), "
               "err(lambda: torch.count_nonzero(torch.ones(2, 3).to(torch.uint16), 2))]",
}, setup=SETUP)

cases("fuzz_nieok3_c32_more", {
    "isclose": "g2 = torch.Generator().manual_seed(3); "
               "a = torch.complex(torch.randn(300, generator=g2), torch.randn(300, generator=g2)); "
               "d = torch.complex(torch.randn(300, generator=g2), torch.randn(300, generator=g2)); "
               "[torch.isclose(a.to(torch.complex32), (a + d * sc).to(torch.complex32), rt, at) "
               "for sc in (1e-1, 1e-2, 1e-3, 1e-4) for rt, at in ((1e-5, 1e-8), (1e-3, 1e-3), (1e-2, 0.0), (0.0, 1e-2), (0.05, 1e-4))]",
    "isclose_special": "sp = torch.tensor([complex(math.inf, 0), complex(math.nan, 1), 1 + 1j, complex(0, -math.inf)]).to(torch.complex32); "
                       "rv = torch.tensor([complex(0, -math.inf), 1 + 1j, complex(math.nan, 1), complex(math.inf, 0)]).to(torch.complex32); "
                       "[torch.isclose(sp, rv), torch.isclose(sp, sp, equal_nan=True), torch.isclose(sp, sp), "
                       "torch.allclose(sp[2:3], sp[2:3]), torch.allclose(c32, c32 * 1.001), torch.allclose(c32, c32, 0, 0)]",
    "predicates": "sp = torch.tensor([complex(math.inf, 0), complex(math.nan, 1), 1 + 1j, complex(0, -math.inf), 2j]).to(torch.complex32); "
                  "[torch.isfinite(sp), torch.isinf(sp), torch.isnan(sp), torch.isfinite(c32.t()), torch.isinf(c32[:, ::2])]",
    "tril_triu": "[torch.tril(c32), torch.triu(c32, 1), torch.tril(c32, -2), c32.clone().triu_(), c32.clone().tril_(1), "
                 "torch.tril(c32.t()), torch.triu(c32.reshape(2, 2, 5), -1)]",
}, setup=SETUP)

cases("fuzz_nieok3_kaiser_f8", {
    "short": "[v(torch.kaiser_window(n, dtype=dt)) for dt in F8 for n in (0, 1)] + "
             "[v(torch.ops.aten.kaiser_window.beta(1, False, 2.0, dtype=torch.float8_e5m2)), "
             "v(torch.ops.aten.kaiser_window.out(1, out=torch.empty(2, 3, dtype=torch.float8_e4m3fn))), "
             "v(torch.ops.aten.kaiser_window.periodic_out(0, False, out=torch.empty(2, dtype=torch.float8_e4m3fnuz)))]",
    "refused": "[err(lambda: torch.kaiser_window(n, dtype=torch.float8_e4m3fn)) for n in (2, 5)] + "
               "[err(lambda: torch.ops.aten.kaiser_window.beta_out(3, True, 2.0, out=torch.empty(0, dtype=torch.float8_e5m2))), "
               "err(lambda: torch.kaiser_window(3, dtype=torch.uint16))]",
}, setup=SETUP)

cases("fuzz_nieok3_c32_scalar", {
    "numbers": "[op(c32, s) for s in (0.3, 0.7071067811865476, 1 / 3, 1.0001, 2.7182818, 1 + 0.3j) "
               "for op in (torch.mul, torch.add, torch.sub)] + [c32.clone().mul_(0.3), torch.ops.aten.mul_.Scalar(c32.clone(), 1 / 3)]",
    "zero_dim": "[c32 * torch.tensor(0.3), c32 * torch.tensor(1 / 3, dtype=torch.float64), c32 + torch.tensor(0.1 + 0.2j), "
                "torch.tensor(0.3) * c32, 0.3 - c32]",
    "embedding_renorm": "[torch.embedding_renorm_(c32.clone(), torch.tensor([0, 2, 2, 3]), mn, nt) "
                        "for mn, nt in ((1.0, 2.0), (2.5, 1.0), (0.5, 3.0))]",
}, setup=SETUP)

cases("fuzz_nieok3_neighbours", {
    "still_refused": "[err(lambda: f(x.to(torch.float8_e4m3fn))) for f in (torch.deg2rad_, torch.rad2deg_, lambda t: t.deg2rad_())] + "
                     "[err(lambda: torch.ops.aten._foreach_powsum.Scalar([x.to(torch.float8_e4m3fn), c32])), "
                     "err(lambda: torch.ops.aten.linalg__powsum(x.to(torch.float8_e5m2)))]",
    "renorm_type": "e = err(lambda: torch.renorm(c32, 2, 0, 1.0)); e[0]",
    "foreach_c32": "[torch.ops.aten._foreach_powsum.Scalar([c32]), torch._foreach_norm([c32, c32.t()]), torch._foreach_norm([c32], 1)]",
}, setup=SETUP)
