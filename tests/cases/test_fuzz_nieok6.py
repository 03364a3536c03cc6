"""Calls of the no-crash corpus (tests/test_no_crash.py) of group "nieok" (session 39: ours
NotImplementedError where upstream 2.13.0 runs, raises RuntimeError, or ours ran where upstream
refuses), compared with upstream by value, dtype and shape, or by exception type and message
(docs/breadth_more2.md "Fuzz corpus: group nieok (session 39)"):

- histc: the bins + 1 edges allocated in self's dtype before the range and the kernel's dtypes are
  looked at (a huge bin count is an allocation error whatever the dtype), the edges' linspace
  dtypes and each edge converted to self's dtype;
- linear / linear.out: a 0-D operand and a weight of more than 2 dims refused as upstream;
- choose_qparams_optimized: an empty input, numel out of the input's bounds;
- silu_backward of complex operands (upstream's complex kernel);
- _cdist_forward / cdist: x2's floating-point check (after x1's, before p);
- take of complex32, dequantize.tensors([]), smooth_l1_loss.out / logsumexp.out summing into a
  complex32 or float8 out=: refused as upstream.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
def first_line(r):
    return (r[0], r[1].split("\\n")[0]) if isinstance(r, tuple) and len(r) == 2 else r
"""

cases("fuzz_nieok6_histc", {
    # the corpus' histc(self, 2**63-1): the bin count wraps when its edges are counted
    "huge_bins": "[err(lambda: torch.histc(torch.ones(2, 3, dtype=d), 2**63 - 1)) for d in "
                 "(torch.float32, torch.complex64, torch.uint8, torch.int64, torch.bool, torch.float8_e4m3fn, torch.uint16)]",
    "huge_bins_out": "[err(lambda: torch.histc(torch.ones(2, 3, dtype=d), 2**63 - 1, out=torch.zeros(2, 3, dtype=o))) "
                     "for d, o in [(torch.float32, torch.float32), (torch.uint8, torch.uint8), (torch.complex64, torch.float32)]] + "
                     "[err(lambda: torch.histc(x, 2**63 - 1, min=5, max=1)), err(lambda: torch.histc(x.long(), -1))]",
    "storage_overflow": "[err(lambda: torch.histc(torch.ones(2, 3, dtype=d), 2**62)) for d in (torch.float32, torch.int64)]",
    # the edges' linspace: its dtypes, then each edge converted to self's dtype
    "edges": "[err(lambda: torch.histc(torch.ones(2, 3, dtype=d), max=2**63 - 1)) for d in "
             "(torch.uint8, torch.int32, torch.int8, torch.int64, torch.complex32, torch.uint16, torch.uint64, "
             "torch.float8_e4m3fn, torch.bool, torch.complex64)] + "
             "[err(lambda: torch.histc(torch.tensor([[-128, 127, -1], [0, 5, -5]], dtype=torch.int8), max=2**63 - 1)), "
             "err(lambda: torch.histc(torch.zeros(3, dtype=torch.uint8))), err(lambda: torch.histc(torch.zeros(3, dtype=torch.int16)))]",
    "runs": "[torch.histc(x, 4), torch.histc(x, 3, min=-1, max=1), torch.histc(x.double(), 5, max=2**40)]",
}, setup=SETUP)

cases("fuzz_nieok6_linear", {
    "zero_dim": "f0 = torch.tensor(3.5); [err(lambda: A.linear.default(f0, f0, f0)), err(lambda: A.linear.default(x, f0)), "
                "err(lambda: A.linear.default(x, torch.tensor(-3))), err(lambda: torch.nn.functional.linear(f0, x)), "
                "err(lambda: A.linear.default(f0, torch.ones(2, 3, 3)))]",
    "weight_dims": "[err(lambda: A.linear.default(x, torch.ones(2, 1, 3, 2))), err(lambda: A.linear.default(x, torch.ones(2, 3, 3), torch.ones(2))), "
                   "err(lambda: torch.nn.functional.linear(torch.ones(3), torch.ones(2, 3, 3), torch.ones(2))), "
                   "err(lambda: A.linear.default(torch.ones(2, 1, 3, 2), torch.ones(2, 1, 3, 2), torch.ones(2, 1, 3, 2)))]",
    "out": "o = lambda: torch.zeros(2, 3); f0 = torch.tensor(3.5); "
           "[err(lambda: A.linear.out(f0, f0, f0, out=o())), err(lambda: A.linear.out(x, f0, out=o())), "
           "err(lambda: A.linear.out(x, torch.ones(2, 1, 3, 2), out=o())), err(lambda: A.linear.out(x, torch.ones(2, 3, 3), x, out=o())), "
           "err(lambda: A.linear.out(x, f0, torch.ones(3), out=o())), err(lambda: A.linear.out(torch.ones(3), f0, f0, out=o())), "
           "err(lambda: A.linear.out(f0, torch.ones(3), out=o()))]",
    "runs": "[A.linear.default(x, torch.ones(4, 3) * 0.5, torch.arange(4.)), A.linear.default(x, torch.ones(3)), "
            "A.linear.out(x, torch.ones(4, 3), torch.arange(4.), out=torch.zeros(2, 4))]",
}, setup=SETUP)

cases("fuzz_nieok6_misc", {
    "qparams_bounds": "[err(lambda: A.choose_qparams_optimized.default(x, n, 1, 2., 1)) for n in (-1, 7, 100, -2**63, 2**62)] + "
                      "[err(lambda: A.choose_qparams_optimized.default(torch.empty(0), n, 1, 2., 1)) for n in (0, 1, -1)] + "
                      "[err(lambda: A.choose_qparams_optimized.default(x.double(), 7, 1, 2., 1)), "
                      "A.choose_qparams_optimized.default(x, 0, 1, 2., 1), A.choose_qparams_optimized.default(x, 6, 200, 0.16, 8)]",
    "take_complex32": "i = torch.tensor([[0, 1, 0], [1, 0, 1]]); "
                      "[err(lambda: A.take.default(torch.ones(2, 3, dtype=torch.complex32), i)), "
                      "err(lambda: torch.take(torch.ones(2, 3, dtype=torch.complex32), torch.tensor([9]))), "
                      "torch.take(torch.ones(2, 3, dtype=torch.complex64), i)]",
    "cdist_x2_dtype": "[err(lambda: A._cdist_forward.default(x, torch.ones(2, 3, dtype=d), 2., 1)) for d in "
                      "(torch.uint16, torch.complex32, torch.int64, torch.float16, torch.float8_e4m3fn)] + "
                      "[err(lambda: torch.cdist(x, torch.ones(2, 3, dtype=torch.int32))), err(lambda: torch.cdist(x, x.int(), p=-1.)), "
                      "err(lambda: torch.cdist(x.int(), x.half())), torch.cdist(x, x + 1)]",
    "dequantize_empty": "first_line(err(lambda: A.dequantize.tensors([])))[1][:240]",
    "sum_into_out": "h = lambda d: torch.zeros(2, 3, dtype=d); "
                    "[err(lambda: A.smooth_l1_loss.out(x, x * 2, out=h(d))) for d in "
                    "(torch.complex32, torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz)] + "
                    "[err(lambda: A.smooth_l1_loss.out(x, x, 2, 0., out=h(torch.complex32))), "
                    "err(lambda: A.smooth_l1_loss.out(x, x[0], 1, 1., out=h(torch.complex32))), "
                    "err(lambda: A.smooth_l1_loss.out(x, x, 1, 1., out=h(torch.bool))), "
                    "A.smooth_l1_loss.out(x, x * 2, 0, out=h(torch.complex32)), "
                    "err(lambda: A.logsumexp.out(x, [0], out=h(torch.complex32))), err(lambda: torch.logsumexp(x, [0], out=h(torch.complex32))), "
                    "err(lambda: A.special_logsumexp.out(x, [0], out=h(torch.complex32))), "
                    "err(lambda: A.logsumexp.out(x.half(), [0], out=h(torch.complex32))), A.logsumexp.out(x, [1], out=h(torch.complex64))]",
}, setup=SETUP)

# upstream's complex kernel (exp, a quotient, products): its float error, not bit equality
cases("fuzz_nieok6_silu", {
    "complex": "c = x.to(torch.complex64) * (0.3 + 2j); "
                             "[A.silu_backward.default(torch.ones(2, 3, dtype=torch.complex64), x), "
                             "A.silu_backward.default(x, torch.ones(2, 3, dtype=torch.complex32)), "
                             "A.silu_backward.default(torch.ones(2, 3, dtype=torch.complex32), x), "
                             "A.silu_backward.default(x, x.to(torch.complex128) * (1 + 0.5j)), "
                             "A.silu_backward.default(x * (2 - 1j), c), A.silu_backward.default(torch.arange(3.), c), "
                             "A.silu_backward.grad_input(x, c, grad_input=torch.empty(2, 3, dtype=torch.complex64)), "
                             "err(lambda: A.silu_backward.default(x.half(), torch.ones(2, 3, dtype=torch.complex32))), "
                             "err(lambda: A.silu_backward.default(torch.ones(2, 3, dtype=torch.complex32), torch.ones(2, 3, dtype=torch.complex32)))]",
    # a mean into a complex64 out= (its sum's rounding)
    "sl1_mean_complex_out": "A.smooth_l1_loss.out(x, x * 2, out=torch.zeros(2, 3, dtype=torch.complex64))",
}, setup=SETUP, tol="float")

# linalg_matrix_norm.out / .str_ord_out (torch.norm(p=str, out=), torch.linalg.matrix_norm(out=)): the
# functional form, out's dtype exactly the result's, out resized; the SVD norms carry its float error
cases("fuzz_nieok6_matrix_norm_out", {
    "values": "o = lambda *s, d=torch.float32: torch.zeros(*s, dtype=d); "
              "[A.linalg_matrix_norm.out(x, 2, out=o(2)), A.linalg_matrix_norm.str_ord_out(x, 'nuc', out=o(2, 3)), "
              "A.linalg_matrix_norm.str_ord_out(x.reshape(1, 2, 3), 'fro', [-1, -2], True, out=o(5)), "
              "A.linalg_matrix_norm.out(x.to(torch.complex64), -2, out=o(1)), torch.norm(x, p='fro', out=o(2, 3)), "
              "torch.norm(x, p='nuc', out=o(2, 3)), torch.norm(x, p='nuc', dim=[0, 1], keepdim=True, out=o(2, 3)), "
              "torch.linalg.matrix_norm(x, ord=float('inf'), out=o(2, 3)), "
              "A.linalg_matrix_norm.str_ord_out(x.double(), 'fro', [1, 0], out=o(0, d=torch.float64))]",
    "refused": "o = lambda *s, d=torch.float32: torch.zeros(*s, dtype=d); "
               "[err(lambda: A.linalg_matrix_norm.out(x, 1, out=o(2, d=torch.int64))), "
               "err(lambda: A.linalg_matrix_norm.str_ord_out(x, 'fro', out=o(2, d=torch.int64))), "
               "err(lambda: A.linalg_matrix_norm.str_ord_out(x, 'abc', out=o(2, 3))), "
               "err(lambda: A.linalg_matrix_norm.str_ord_out(x, 'abc', out=o(2, d=torch.int64))), "
               "err(lambda: A.linalg_matrix_norm.str_ord_out(x, 'fro', dtype=torch.float64, out=o(1))), "
               "err(lambda: A.linalg_matrix_norm.str_ord_out(x, 'fro', out=o(1, d=torch.bool))), "
               "err(lambda: torch.norm(x, p='abc', out=o(2, 3))), err(lambda: torch.norm(x, p='abc', dim=[0], out=o(2, 3))), "
               "err(lambda: torch.linalg.matrix_norm(x, ord=3, out=o(2, 3))), err(lambda: A.linalg_matrix_norm.out(x[0], 2, out=o(1)))]",
}, setup=SETUP, tol="float")
