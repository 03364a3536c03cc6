"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused (NotImplementedError, IndexError,
TypeError, ValueError) and upstream 2.13.0 runs (session 38, group "nieok"), compared with upstream
by value, dtype and shape, with the refusals that remain beside them (docs/breadth_more2.md "Fuzz
corpus: paths we refused, group nieok (session 38)"):

- zeros / zeros_like / new_zeros / zero_ of the bits dtypes: upstream's zero_ memsets a small dense
  CPU tensor whatever its dtype (fill_ refuses the rest);
- UntypedStorage item and slice assignment (an int modulo 256);
- broadcast_tensors / block_diag of more than 64 tensors;
- index_fill of an empty tensor with indices out of range (nothing written, nothing checked), the
  value converted before the indices are checked;
- x[numpy array] (a bool array is a mask, an int array an index);
- fft_fftfreq / fft_rfftfreq on meta, fftfreq.out into a matching contiguous out= of more dims;
- view_copy.dtype; choose_qparams_optimized with equal bounds (its loop never entered);
- col2im of bool and complex inputs.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
import numpy as np
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
def many(n, v=None):
    return (torch.arange(1.) * 0.37 - 1.1).reshape([1] * n) if v is None else torch.full([1] * n, v)
def sh(r):
    return (r.dtype, tuple(r.shape), r.stride())
def put(k, v):
    s = torch.arange(6, dtype=torch.uint8).untyped_storage()
    r = err(lambda: s.__setitem__(k, v))
    return r if r else list(s)
def b8(r):
    return (r.dtype, tuple(r.shape), r.view(torch.uint8).tolist() if r.element_size() == 1 else r.view(torch.int16).tolist())
"""

cases("fuzz_nieok5_bits", {
    "zeros": "[b8(f(d)) for d in (torch.bits8, torch.bits16, torch.bits1x8, torch.bits2x4, torch.bits4x2) for f in ("
             "lambda d: torch.zeros(2, 3, dtype=d), lambda d: A.zeros.default([2, 3], dtype=d), "
             "lambda d: torch.zeros_like(x, dtype=d), lambda d: x.new_zeros([3, 2], dtype=d), "
             "lambda d: torch.zeros(3, out=torch.empty(2, dtype=d)), lambda d: torch.zeros(32767, dtype=d)[:4])]",
    "zero_": "[b8(torch.empty(3, 4, dtype=torch.uint8).fill_(7).view(d).t().zero_()) for d in (torch.bits8, torch.bits1x8)] + "
             "[b8(torch.empty(3, 4, dtype=torch.int16).fill_(7).view(torch.bits16).zero_())]",
    # past the grain size (32768 elements) or not dense: fill_'s refusal
    "refused": "[err(lambda: torch.zeros(32768, dtype=d))[0] for d in (torch.bits8, torch.bits16)] + "
               "[err(lambda: torch.empty(3, 4, dtype=torch.bits8)[:, ::2].zero_())[0], "
               "err(lambda: torch.ones(3, dtype=torch.bits8))[0], err(lambda: torch.full((3,), 0, dtype=torch.bits8))[0]]",
    "quantized": "[err(lambda: torch.zeros(2, 3, dtype=torch.qint8))[0], err(lambda: torch.zeros_like(x, dtype=torch.quint8))[0], "
                 "err(lambda: x.new_zeros([2], dtype=torch.qint32))[0]]",
    "meta": "[sh(torch.zeros(3, dtype=torch.bits8, device='meta')), sh(torch.zeros(40000, dtype=torch.bits16, device='meta'))]",
    "float_dtypes": "[torch.zeros(40000, dtype=d)[-3:] for d in (torch.float8_e4m3fn, torch.complex32, torch.uint16)] + "
                    "[x.t().contiguous().t().zero_(), x.clone()[:, ::2].zero_()]",
}, setup=SETUP)

cases("fuzz_nieok5_storage", {
    "setitem": "[put(k, v) for k, v in [(0, 300), (0, -1), (5, 255), (0, True), (slice(1, 3), 9), (slice(4, 99), 300), "
               "(slice(None), -2), (slice(3, 1), 5), (-1, 7), (6, 1), (-7, 1), (0, 2.5), (0, 'a'), (0, None), "
               "(slice(0, 6, 2), 9), (1.0, 3), ('x', 1), (True, 5), (0, torch.tensor(5)), (0, 1 + 0j)]]",
    "views": "t = torch.zeros(2, 3, dtype=torch.int16); s = t.untyped_storage(); s[1] = 1; s[4:6] = 255; "
             "[t, list(s), list(s[2:5])]",
    "meta": "m = torch.empty(3, device='meta').untyped_storage(); m[0] = 1; m[0:2] = 3; m.nbytes()",
}, setup=SETUP)

cases("fuzz_nieok5_lists", {
    "broadcast_tensors": "r = A.broadcast_tensors.default([x] * 70 + [torch.ones(1, 3)]); [len(r), r[-1], r[0] is x, "
                         "torch.broadcast_tensors(*([torch.ones(3, 1)] * 65 + [x.t()]))[64]]",
    "block_diag": "[A.block_diag.default([x] * 70).shape, A.block_diag.default([x] * 70)[4:8, 6:12], "
                  "torch.block_diag(*([torch.tensor([1, 2])] * 66 + [torch.tensor([[1.5]])]))[-3:, -5:]]",
    "errors": "[err(lambda: torch.broadcast_tensors(*([x] * 66 + [torch.ones(4)]))), "
              "err(lambda: torch.block_diag(*([x] * 66 + [torch.ones(1, 1, 1)])))]",
}, setup=SETUP)

cases("fuzz_nieok5_index_fill", {
    # empty self: nothing written, no index checked, unless self restrided to the index count is not empty
    "empty": "i5 = torch.tensor([0, 1, 2, 3, 4]); [A.index_fill.int_Scalar(torch.zeros(3, 0), 0, i5, 2), "
             "A.index_fill_.int_Scalar(torch.zeros(3, 0), 0, i5, 2), torch.zeros(0, 3).index_fill(1, torch.tensor([5]), 2.), "
             "torch.zeros(3, 0).index_fill_(0, torch.tensor([-9]), torch.tensor(2.)), "
             "torch.zeros(3, 0).index_fill(0, torch.tensor([], dtype=torch.long), 1.)]",
    "checked": "[err(lambda: torch.zeros(2, 3).index_fill(0, torch.tensor([5]), 2)), "
               "err(lambda: torch.zeros(2, 3).index_fill_(1, torch.tensor([-4]), 2)), "
               "torch.zeros(2, 3).index_fill(1, torch.tensor([-1, 0]), 2)]",
    # the value is converted first (upstream's order, measured)
    "value_first": "[err(lambda: torch.zeros(2, 3, dtype=torch.uint8).index_fill_(0, torch.tensor([5]), 300)), "
                   "err(lambda: torch.zeros(3, 0, dtype=torch.uint8).index_fill_(0, torch.tensor([5]), 300)), "
                   "err(lambda: torch.zeros(2, 3, dtype=torch.int8).index_fill(0, torch.tensor([7]), -200)), "
                   "err(lambda: torch.zeros(2, 3).index_fill(0, torch.tensor([7]), 1j))]",
}, setup=SETUP)

cases("fuzz_nieok5_np_index", {
    "getitem": "b = np.array([True, False]); [x[b], x[np.array([1, 0, 1])], x[:, np.array([2, 0])], x[np.array([[1], [0]])], "
               "x[b, np.array([2])], x[np.array(1)], x[np.array([[True, False, True], [False, False, True]])], "
               "x[np.array([1, 0], dtype=np.int32)], x[np.array([0, 1], dtype=np.uint8)]]",
    "setitem": "y = x.clone(); y[np.array([False, True])] = 7.; z = x.clone(); z[:, np.array([0, 2])] = -1.; [y, z]",
    "errors": "[err(lambda: x[np.array([True, False, True])]), err(lambda: x[np.array([5])]), "
              "err(lambda: x[np.array(['a'])])[0]]",
}, setup=SETUP)

cases("fuzz_nieok5_fftfreq", {
    "meta": "[sh(f(n, device='meta')) for f in (A.fft_fftfreq.default, A.fft_rfftfreq.default) for n in (0, 1, 5, 6)] + "
            "[sh(torch.fft.rfftfreq(n, device='meta')) for n in (-1, -3)] + "
            "[sh(torch.fft.fftfreq(4, dtype=d, device='meta')) for d in (torch.float16, torch.float64, torch.complex64, torch.bfloat16)]",
    "meta_errors": "[err(lambda: torch.fft.fftfreq(-1, device='meta')), err(lambda: torch.fft.fftfreq(4, dtype=torch.int64, device='meta')), "
                   "err(lambda: torch.fft.rfftfreq(4, dtype=torch.bool, device='meta'))]",
    # a matching contiguous out= of more dims: filled in order, no row past (n + 1) / 2 along dim 0
    "out": "[A.fft_fftfreq.out(n, 2.0, out=torch.zeros(s)) for n, s in [(6, (2, 3)), (6, (3, 2)), (6, (1, 6)), (4, (2, 2)), "
           "(8, (2, 2, 2)), (12, (4, 3)), (5, (5,))]] + [A.fft_fftfreq.out(torch.float32, out=torch.zeros(2, 3)), "
           "A.fft_rfftfreq.out(6, 2.0, out=torch.zeros(4, 1)), torch.fft.fftfreq(6, out=torch.zeros(6, 1)), torch.fft.fftfreq(1, out=torch.zeros(1, 1)), "
           "err(lambda: torch.fft.fftfreq(1, out=torch.zeros(())))]",
}, setup=SETUP)

cases("fuzz_nieok5_misc", {
    "view_copy_dtype": "[torch.view_copy(x, torch.float32), torch.view_copy(x, torch.int32), A.view_copy.dtype(x.t(), torch.float32), "
                       "torch.view_copy(x.double(), torch.int16), err(lambda: torch.view_copy(x.t(), torch.int16)), "
                       "torch.view_copy(x, torch.float32) is x, err(lambda: A.view_copy.dtype(x, torch.qint8)), sh(A.view_copy.dtype(x, torch.bits8))]",
    "qparams_equal": "[A.choose_qparams_optimized.default(x, k, nb, 2., bw) for k, nb, bw in [(0, 1, 1), (1, -1, 1), (1, -2**63, 1), "
                     "(1, 1, -1), (1, 1, 100), (1, 2**62, 2**62), (1, 0, 8)]] + "
                     "[A.choose_qparams_optimized.default(torch.full((2, 3), 1.25), 6, -5, 0.5, -3), "
                     "A.choose_qparams_optimized.default(x, 6, 200, 0.16, 8), torch.choose_qparams_optimized(x, 4, 100, 0.5, 4)]",
    "col2im": "xb = torch.tensor([[[1, 0, 1, 1, 0, 0, 1, 0, 1], [0, 1, 1, 0, 0, 1, 1, 1, 0], [1, 1, 0, 0, 1, 0, 0, 1, 1], "
              "[0, 0, 1, 1, 1, 0, 1, 0, 0]]]).bool(); c = (torch.arange(72.) * 0.37 - 5).reshape(2, 4, 9); "
              "c = torch.complex(c, c.flip(0) * 1.3); "
              "[A.col2im.default(xb, [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]), A.col2im.default(xb[0], [5, 5], [2, 2], [1, 1], [1, 1], [2, 2]), "
              "A.col2im.default(x.bool(), [1, 1], [1, 1], [1, 1], [1, 1], [3, 1]), A.col2im.default(c, [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]), "
              "A.col2im.default(c.to(torch.complex128)[1], [5, 5], [2, 2], [1, 1], [1, 1], [2, 2]), "
              "torch.nn.functional.fold(c, (4, 4), 2), "
              "err(lambda: A.col2im.default(c.to(torch.complex32), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1])), "
              "err(lambda: A.col2im.default(xb.int(), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1])), "
              "err(lambda: A.im2col.default(torch.ones(1, 1, 3, 3, dtype=torch.complex32), [2, 2], [1, 1], [0, 0], [1, 1]))]",
}, setup=SETUP)
