"""Calls of the no-crash corpus (tests/test_no_crash.py) with no meta tensor whose exception type
differed from upstream 2.13.0 (session 40, group "tail"), each compared with upstream
(docs/breadth_more2.md "Fuzz corpus: group tail"):

- _fft_c2c / _fft_c2r with a dim past the tensor's dims, _fft_r2c with such a last dim: upstream's
  kernels index the sizes with it unchecked (an internal assert or a failed reshape): RuntimeError,
  compared by type only (upstream's message is its assert's); _fft_r2c's other dims are wrapped
  first, upstream's IndexError (compared with its message).
- _cummax_helper / _cummin_helper read the strides of self, values and indices at dim, then of
  values and indices at self's other dims: IndexError for values or indices of fewer dims.
- multinomial of a float8 input passes the floating check and fails at its first kernel
  (aminmax's sanity check, or multinomial's own with replacement and more than one sample).
- _cdist_forward of a float8 x1 passes the floating check: "pow" on the matrix-product path,
  else the kernel's dispatch on x1's dtype ("cdist", also for half / bfloat16) before x2's dtype.
- searchsorted / bucketize refuse a float8 operand next to another dtype (promoteTypes), after
  returning the empty result of an empty input.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def etype(f):
    try:
        f()
    except Exception as e:
        return type(e).__name__
    return None
x = torch.arange(6.).reshape(2, 3)
c = x.to(torch.complex64)
e = torch.zeros(0, 3)
v1 = torch.arange(100.)
F8 = (torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.float8_e8m0fnu)
"""

cases("fuzz_tail8", {
    "fft_dim_past_dims": "[etype(f) for f in (lambda: aten._fft_c2c(c, [2], 1, False), lambda: aten._fft_c2c(c, [100], 1, False), "
                         "lambda: aten._fft_c2r(c, [2], 1, 1), lambda: aten._fft_r2c(x, [2], 1, False), lambda: aten._fft_r2c(e, [3, 2], 1, True), "
                         "lambda: aten._fft_c2c(c[0], [1], 0, True))]",
    "fft_r2c_other_dims_wrapped": "[err(lambda: aten._fft_r2c(t, d, 1, False)) for t, d in ((v1, [1, 0]), (v1, [5, 0]), (x, [2, 0]), (x, [2, 1]))]",
    "fft_in_range_kept": "[aten._fft_c2c(c, [1], 0, True), aten._fft_r2c(x, [0, 1], 1, True), aten._fft_c2r(c, [1], 0, 4)]",
    "cummax_helper_reads_strides": "[err(lambda: f(torch.zeros((1,) * 20), torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long), dm)) "
                                   "for f in (aten._cummax_helper, aten._cummin_helper) for dm in (-1, 0, 2, 3, -3)] + "
                                   "[err(lambda: f(s, vv, ii, d)) for f in (aten._cummax_helper, torch._cummin_helper) for s, vv, ii, d in ("
                                   "(x, torch.empty(()), torch.empty(2, 3, dtype=torch.long), 0), (x, torch.empty(2, 3), torch.empty(3, dtype=torch.long), 0), "
                                   "(x, torch.empty(2, 3), torch.empty(3, dtype=torch.long), 1), (torch.zeros(2, 3, 4), torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long), 1), "
                                   "(torch.tensor(1.), torch.empty(()), torch.empty((), dtype=torch.long), 0))]",
    "cummax_helper_values": "vv = torch.empty(2, 3); ii = torch.empty(2, 3, dtype=torch.long); "
                            "aten._cummax_helper(torch.tensor([[1., 3, 2], [0, 5, 4]]), vv, ii, 1); (vv, ii)",
    "multinomial_float8": "[err(lambda: f(x.abs().to(dt))) for dt in F8 for f in (lambda p: aten.multinomial(p, 1), lambda p: aten.multinomial(p, 2, True), "
                          "lambda p: aten.multinomial(p, 2), lambda p: p.multinomial(1), lambda p: aten.multinomial(p, 0), lambda p: aten.multinomial(p, 5), "
                          "lambda p: aten.multinomial(p, 1, out=torch.empty(2)), lambda p: aten.multinomial(p[None], 1))]",
    "cdist_float8_and_order": "[err(lambda: aten._cdist_forward(a.to(da), a.to(db), p, cm)) for a in (torch.ones(2, 3),) "
                              "for da in F8[::2] + (torch.float16, torch.bfloat16, torch.float32) for db in (da, torch.float32, torch.float64) "
                              "for p in (2.0, 1.0, float('inf')) for cm in (None, 1, 2)] + "
                              "[err(lambda: aten._cdist_forward(torch.ones(2, 3), torch.ones(2, 3).to(dt), 2.0, 1)) for dt in F8[:2]] + "
                              "[err(lambda: torch.cdist(torch.ones(2, 3).to(F8[0]), torch.ones(2, 3).to(F8[0])))]",
    "searchsorted_float8": "[err(lambda: f(s.to(ds), v.to(dv))) for s, v in ((x, x), (x[0], x)) for ds, dv in ((torch.float32, F8[0]), (F8[1], torch.float32), "
                           "(F8[2], F8[2]), (torch.int64, F8[4]), (F8[3], torch.int64)) "
                           "for f in (aten.searchsorted, lambda a, b: aten.searchsorted(a, b, out_int32=True), torch.bucketize if False else aten.searchsorted)] + "
                           "[err(lambda: torch.bucketize(x.to(F8[0]), x[0])), err(lambda: torch.bucketize(x, x[0].to(F8[0])))]",
    "searchsorted_empty_first": "[aten.searchsorted(x[0].to(ds), torch.empty(0, dtype=dv)) for ds, dv in ((torch.float32, F8[0]), (torch.bool, torch.bool), "
                                "(torch.float32, torch.complex64), (torch.uint16, torch.int64))] + "
                                "[aten.searchsorted(x[0], torch.empty(0, dtype=F8[0]), out_int32=True), torch.bucketize(torch.empty(0, dtype=F8[0]), x[0]), "
                                "aten.searchsorted(x[0], torch.empty(0, dtype=F8[0]), out=torch.empty(0, dtype=torch.long))] + "
                                "[err(lambda: aten.searchsorted(torch.empty(0, dtype=F8[0]), x[0]))]",
    "sobol_reads_strides": "st = torch.ones(3, 30, dtype=torch.long); q1 = torch.zeros(3, dtype=torch.long); "
                           "[err(lambda: f(q, n, s, d)) for f in (lambda q, n, s, d: aten._sobol_engine_ff_(q.clone(), n, s, d, 1), "
                           "lambda q, n, s, d: aten._sobol_engine_draw(q, n, s, d, 1, torch.float32)) for q, s in ((torch.tensor(0), st), "
                           "(q1, torch.ones(5, dtype=torch.long)), (q1, torch.tensor(1)), (q1, torch.zeros(0, dtype=torch.long))) for n, d in ((1, 1), (0, 0))] + "
                           "[err(lambda: aten._sobol_engine_draw(q1, 1, torch.ones(5, dtype=torch.long), 1, 1, torch.float16)), "
                           "err(lambda: aten._sobol_engine_draw(q1, -1, torch.ones(5, dtype=torch.long), 1, 1, torch.float32))] + "
                           "[err(lambda: aten._sobol_engine_scramble_(torch.zeros(2, 3, dtype=torch.long), l, 1)) for l in (torch.randn(100), torch.tensor(1), "
                           "torch.ones(5, dtype=torch.long), torch.zeros(0, dtype=torch.long), torch.ones(2, 3), torch.ones(2, 3, dtype=torch.long))] + "
                           "[aten._sobol_engine_ff_(torch.zeros(3, dtype=torch.long), 3, torch.ones(3, 30, dtype=torch.long), 3, 1)]",
    "nested_strides_offsets": "[err(lambda: aten._nested_compute_contiguous_strides_offsets(t)) for t in (torch.randn(100), torch.zeros(0), "
                              "torch.ones(5, dtype=torch.long), torch.zeros(0, dtype=torch.long))] + "
                              "[(s is t, s, o) for t in (torch.tensor(7), torch.tensor(-3.5), torch.tensor(True)) "
                              "for s, o in (aten._nested_compute_contiguous_strides_offsets(t), torch._nested_compute_contiguous_strides_offsets(t))] + "
                              "[aten._nested_compute_contiguous_strides_offsets(torch.tensor([[2, 3], [1, 4]]))"
                              "]",
    "cumprod_backward_cumsum_refusal": "[err(lambda: aten.cumprod_backward(x.to(dt), x.to(dt), 0, x.to(dt))) for dt in F8[:4]] + "
                                       "[err(lambda: torch.no_grad()(lambda: aten.cumprod_backward(x.to(dt), x.to(dt), 0, x.to(dt)))()) for dt in F8[:4]] + "
                                       "[err(lambda: aten.cumprod_backward(x.to(dt), (x + 1).to(dt), 0, x.to(dt))) for dt in F8[:4]] + "
                                       "[etype(lambda: aten.cumprod_backward(x.to(torch.complex32), x.to(torch.complex32), 0, x.to(torch.complex32))), "
                                       "err(lambda: aten.cumprod_backward(x, torch.tensor([float('nan'), float('inf')]), 0, x)), "
                                       "aten.cumprod_backward(x, x + 1, 1, torch.cumprod(x + 1, 1)), aten.cumprod_backward(x, x - 1, 1, torch.cumprod(x - 1, 1))]",
    "masked_fill_formats": "m = torch.tensor([True, False]); [err(lambda: f(t)) for t in (torch.zeros(2).to(F8[0]), torch.zeros(2).to(F8[4]), "
                           "torch.zeros(2, dtype=torch.uint16), torch.zeros(2, dtype=torch.uint64), torch.zeros(2, dtype=torch.uint8).view(torch.bits8)) "
                           "for f in (lambda t: t.masked_fill(m, 0), lambda t: t.masked_fill_(m, 1.5), lambda t: t.masked_fill(m, torch.tensor(0)))] + "
                           "[torch.zeros(2, dtype=torch.complex32).masked_fill(m, 1).to(torch.complex64)]",
    "fracpool3d_backward_time_first": "[err(lambda: aten.fractional_max_pool3d_backward(g, s, [1, 1], o, torch.zeros(2, 3, dtype=torch.long))) "
                                      "for g, s, o in ((x, torch.zeros((1,) * 20), [1, 1]), (x, torch.zeros(2, 3, 4, 5), [1, 1]), (x, torch.zeros(2, 3, 4, 5), [3, 1, 1]), "
                                      "(torch.ones(2, 1, 3, 3), torch.zeros(2, 3, 4, 5), [1, 2, 2]), (torch.ones(2, 1, 2, 3), torch.zeros(2, 3, 4, 5), [1, 2, 2]), "
                                      "(torch.ones(2, 1), torch.zeros(2, 3, 4, 5), [1, 2, 2]))]",
    "reflection_pad2d_backward_short_padding": "[err(lambda: aten.reflection_pad2d_backward(g, s, p)) for g, s, p in ("
                                               "(x, torch.zeros(2, 3, 4, 5), [1, 1]), (x, torch.zeros((1,) * 20), [1, 1]), (x, torch.zeros(2, 3, 4), [1, 1]), "
                                               "(torch.ones(2, 3, 9), torch.zeros(2, 3, 4), [1, 1]), (torch.ones(1, 2, 3, 9), torch.zeros(1, 2, 3, 4), [1, 1]), "
                                               "(torch.ones(1, 2, 3, 9), torch.zeros(1, 2, 3, 4), [1, 2, 0]), "
                                               "(torch.ones(2, 5, 9), torch.zeros(2, 3, 4), [1, 1, 1, 1]), (torch.ones(2, 9, 6), torch.zeros(2, 3, 4), [1, 1, 1, 1]))] + "
                                               "[aten.reflection_pad2d_backward(torch.ones(2, 5, 6), torch.zeros(2, 3, 4), [1, 1, 1, 1])]",
}, setup=SETUP, tol="float")
