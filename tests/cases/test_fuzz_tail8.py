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
}, setup=SETUP, tol="float")
