"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 38, group "refuse", fifth pass), compared with upstream by value, dtype, shape and
strides, plus the neighbouring refusals the same checks keep (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs, fifth pass"):

- max / min.unary_out (torch.max(x, out=o)): out resized to [] and filled with the value through
  fill_'s overflow check; an empty input fills the reduction's identity (-inf, the dtype's lowest,
  false for bool); max() / min() without out= keep refusing an empty input.
- exponential_ of an empty tensor of any dtype returns self after the lambda check.
- linalg_norm.out / .ord_str_out with an argument requiring grad: the functional, then copy_ into
  out (out gets a CopyBackwards; a leaf out requiring grad is refused by copy_).
- pow(Scalar, Tensor) and its out= form: the output set first (contiguous; out resized to the
  exponent's sizes before the overlap check); a base of 1 is fill_(1) with no dtype check.
- clamp / clip / clamp_min / clamp_max (and in-place) on meta without out=: upstream's Python
  references (bounds promote, no overflow or complex refusal, no kernel needed); hardtanh on a
  floating or complex meta self keeps its dtype and checks no limit.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def geo(r):
    if isinstance(r, torch.Tensor):
        return (r, r.stride())
    return [geo(t) for t in r]
x = torch.tensor([[1.5, -2.0, 7.25], [0.5, 3.0, -8.0]])
"""

cases("fuzz_refuse5_max_min_unary_out", {
    "empty_identity": "[geo(f(torch.empty(s, dtype=dt), out=torch.zeros(2, 3, dtype=od))) for f in (torch.max, torch.min) "
                      "for s, dt, od in (((3, 0), torch.float32, torch.float32), ((0,), torch.int64, torch.float32), "
                      "((0,), torch.int64, torch.int64), ((0, 2), torch.bool, torch.float32), ((0,), torch.bool, torch.bool), "
                      "((0,), torch.uint8, torch.float32), ((2, 0), torch.float16, torch.float16), ((0,), torch.bfloat16, torch.float32), "
                      "((0,), torch.int8, torch.int32), ((0,), torch.float64, torch.float64))]",
    "aten_and_outs": "[geo(aten.max.unary_out(torch.empty(0), out=torch.zeros(2, 3))), geo(aten.min.unary_out(torch.empty(0, 3), out=torch.zeros(0))), "
                     "geo(torch.max(torch.empty(2, 0), out=torch.zeros(()).expand(3))), geo(torch.max(x, out=torch.zeros(()).expand(3))), "
                     "geo(torch.min(x, out=torch.zeros(5, dtype=torch.float64))), geo(torch.max(x.int(), out=torch.zeros(4, dtype=torch.int8))), "
                     "geo(torch.max(torch.tensor([float('nan'), 5.0], dtype=torch.float64), out=torch.zeros(1)))]",
    "fill_overflow": "[err(lambda: torch.max(torch.empty(0, dtype=torch.int32), out=torch.zeros(2, 3, dtype=torch.int8))), "
                     "err(lambda: torch.max(torch.tensor([1000], dtype=torch.int32), out=torch.zeros(1, dtype=torch.int8))), "
                     "err(lambda: torch.min(torch.tensor([1e300], dtype=torch.float64), out=torch.zeros(1))), "
                     "err(lambda: torch.min(torch.empty(0, dtype=torch.int16), out=torch.zeros(1, dtype=torch.uint8)))]",
    "still_refused": "[err(lambda: torch.max(torch.empty(3, 0))), err(lambda: torch.min(torch.empty(0, dtype=torch.int64))), "
                     "err(lambda: torch.max(torch.empty(0, dtype=torch.float64), out=torch.zeros(2, dtype=torch.int32))), "
                     "err(lambda: torch.max(torch.empty(0, dtype=torch.complex64), out=torch.zeros(2, dtype=torch.complex64))), "
                     "err(lambda: torch.min(torch.empty(0, dtype=torch.float8_e4m3fn), out=torch.zeros(2))), "
                     "err(lambda: torch.max(torch.empty(0, dtype=torch.uint16), out=torch.zeros(2, dtype=torch.uint16))), "
                     "err(lambda: torch.max(torch.ones(2, dtype=torch.uint32))), "
                     "err(lambda: torch.max(torch.empty(0, 2, requires_grad=True), out=torch.zeros(2, 3)))]",
}, setup=SETUP)

cases("fuzz_refuse5_exponential_empty", {
    "empty_any_dtype": "[geo(torch.empty(s, dtype=dt).exponential_()) for s, dt in (((0,), torch.int64), ((0,), torch.bool), "
                       "((2, 0), torch.complex64), ((0,), torch.float8_e5m2), ((0, 3), torch.uint8))] + "
                       "[geo(aten.exponential_.default(torch.empty(0, dtype=torch.int32), 3.0))]",
    "still_refused": "[err(lambda: torch.empty(0, dtype=torch.int64).exponential_(-1)), err(lambda: torch.empty(0).exponential_(0)), "
                     "err(lambda: torch.empty(1, dtype=torch.int64).exponential_()), err(lambda: torch.empty(2, dtype=torch.bool).exponential_()), "
                     "err(lambda: torch.empty(1, dtype=torch.float8_e5m2).exponential_())]",
}, setup=SETUP)

cases("fuzz_refuse5_linalg_norm_out_grad", {
    "copy_backwards": "xs = [torch.tensor([[3.0, 0.5, -1.0], [0.25, 4.0, 2.0]], requires_grad=True) for _ in range(5)]; "
                      "calls = [lambda a: torch.linalg.norm(a, out=torch.zeros(())), lambda a: torch.linalg.norm(a, 'fro', out=torch.zeros(())), "
                      "lambda a: torch.linalg.norm(a, float('inf'), out=torch.zeros(())), lambda a: torch.linalg.norm(a, 2, dim=1, out=torch.zeros(2).expand(2, 2)), "
                      "lambda a: aten.linalg_norm.out(a, 1, [0], True, out=torch.zeros(3))]; "
                      "outs = [f(a) for f, a in zip(calls, xs)]; [o.sum().backward() for o in outs]; "
                      "[(geo(o.detach()), o.requires_grad, o.is_leaf, o.grad_fn.name(), a.grad) for o, a in zip(outs, xs)]",
    "out_requiring_grad": "o = torch.zeros((), requires_grad=True) * 1; r = torch.linalg.norm(x, out=o); "
                          "[r is o, o.grad_fn.name(), o.detach()]",
    "still_refused": "g = torch.ones(2, 3, requires_grad=True); [err(lambda: torch.linalg.norm(x, out=torch.zeros(3, requires_grad=True))), "
                     "err(lambda: torch.linalg.norm(g, out=torch.zeros((), dtype=torch.float64))), "
                     "err(lambda: torch.linalg.norm(g, 'fro', out=torch.zeros((), dtype=torch.int64))), "
                     "err(lambda: torch.linalg.norm(torch.ones(2, 3, 2, requires_grad=True), 3, out=torch.zeros(()))), "
                     "err(lambda: torch.linalg.norm(g, 'abc', out=torch.zeros(()))), "
                     "err(lambda: torch.linalg.norm(g, dim=(0, 1, 0), out=torch.zeros(()))), "
                     "err(lambda: torch.linalg.norm(torch.ones(2, 3, dtype=torch.int64), out=torch.zeros((), requires_grad=True) * 1)), "
                     "err(lambda: torch.linalg.vector_norm(g, out=torch.zeros(())))]",
}, setup=SETUP)

# the nuclear and spectral norms go through LAPACK's SVD: values within upstream's LAPACK error
cases("fuzz_refuse5_linalg_norm_out_grad_svd", {
    "copy_backwards": "xs = [torch.tensor([[3.0, 0.5, -1.0], [0.25, 4.0, 2.0]], requires_grad=True) for _ in range(2)]; "
                      "outs = [torch.linalg.norm(xs[0], 'nuc', out=torch.zeros(())), torch.linalg.norm(xs[1], 2, out=torch.zeros(5))]; "
                      "[o.backward() for o in outs]; "
                      "[(geo(o.detach()), o.requires_grad, o.is_leaf, o.grad_fn.name(), a.grad) for o, a in zip(outs, xs)]",
}, setup=SETUP, tol="lapack")

cases("fuzz_refuse5_pow_scalar_base", {
    "resized_out": "[geo(aten.pow.Scalar_out(2, x, out=torch.tensor(1.0).expand(3))), geo(torch.pow(2, x, out=torch.zeros(2, 3).expand(2, 2, 3))), "
                   "geo(torch.pow(2.5, x, out=torch.zeros(6, dtype=torch.float64)))]",
    "base_one": "[geo(aten.pow.Scalar_out(b, x, out=torch.zeros(6, dtype=dt))) for b, dt in ((1, torch.int64), (1.0, torch.bool), "
                "(1 + 0j, torch.int64), (1, torch.float8_e4m3fn), (1, torch.uint16))] + "
                "[geo(torch.pow(1, x, out=torch.zeros(3).expand(2, 3))), geo(torch.pow(1, x, out=torch.tensor(1.0).expand(3)))]",
    "functional": "[geo(torch.pow(b, t)) for b, t in ((1, x), (1.0, x.t()), (2, x.t()), (1 + 0j, x), (1, torch.tensor([float('nan')])), "
                  "(1, x.to(torch.uint16)), (1, x.to(torch.complex32)), (1, x.to(torch.float8_e4m3fn)), (1, x.bool()), (3, x.int().t()))]",
    "grad": "a = torch.tensor([0.5, 2.0], requires_grad=True); r = torch.pow(1, a); r.sum().backward(); "
            "b = torch.tensor([0.5, 2.0], requires_grad=True); s = torch.pow(2, b.expand(2, 2).t()); s.sum().backward(); "
            "[geo(r.detach()), r.grad_fn.name(), a.grad, geo(s.detach()), b.grad]",
    "still_refused": "[err(lambda: aten.pow.Scalar_out(True, x, out=torch.zeros(6, dtype=torch.int64))), "
                     "err(lambda: aten.pow.Scalar_out(2, x, out=torch.tensor(1, dtype=torch.int64).expand(3))), "
                     "err(lambda: aten.pow.Scalar_out(2, x, out=torch.zeros(3).expand(2, 3))), "
                     "err(lambda: torch.pow(1j, x.to(torch.float8_e4m3fn))), "
                     "err(lambda: torch.pow(1, x, out=torch.zeros(6, requires_grad=True)))]",
}, setup=SETUP)

cases("fuzz_refuse5_clamp_meta", {
    "references": "m = lambda dt=torch.float32: torch.empty(2, 3, device='meta', dtype=dt); "
                  "d = lambda r: (r.dtype, tuple(r.shape), r.stride(), r.device.type); "
                  "[d(torch.clamp(m(), max=1e308)), d(torch.clamp(m(), min=1j)), d(torch.clamp(m(), min=1j, max=2)), "
                  "d(torch.clamp(m(torch.int64), min=1e308)), d(torch.clamp(m(torch.complex64), min=1)), d(torch.clip(m(), max=1e308)), "
                  "d(torch.clamp(m(torch.float16), None, 1e308)), d(aten.clamp(m(torch.int8), 1000)), d(aten.clamp(m(torch.bool), -1)), "
                  "d(aten.clamp(m(torch.float8_e4m3fn), -1)), d(aten.clamp(m(torch.complex32), -1)), d(aten.clamp(m(torch.int64), -1, 2 + 1j)), "
                  "d(aten.clamp(m(), -1, float('nan'))), d(torch.clamp_min(m(), 1e308)), d(torch.clamp_min(m(), 1j)), "
                  "d(torch.clamp_max(m(torch.int64), 1e308)), d(aten.clamp_min(m(torch.int8), 1000)), d(aten.clamp_max(m(torch.float16), 1e308))]",
    "in_place": "m = lambda dt=torch.float32: torch.empty(2, 3, device='meta', dtype=dt); "
                "d = lambda r: (r.dtype, tuple(r.shape), r.device.type); "
                "[d(m().clamp_(min=1e308)), d(m().clamp_min_(1e308)), d(aten.clamp_(m(torch.int8), 1000)), d(aten.clamp_(m(torch.float16), 1e308)), "
                "d(aten.clamp_max_(m(torch.int8), 1000)), d(m().clip_(max=1e308)), err(lambda: m().clamp_(min=1j)), "
                "err(lambda: m(torch.int64).clamp_(min=1.5)), err(lambda: m(torch.int64).clamp_(min=1j)), err(lambda: m().clamp_max_(1j))]",
    "hardtanh": "m = lambda dt=torch.float32: torch.empty(2, 3, device='meta', dtype=dt); "
                "d = lambda r: (r.dtype, tuple(r.shape), r.device.type); "
                "[d(aten.hardtanh(m(), -1, 1j)), d(aten.hardtanh(m(), 1j, 2)), d(aten.hardtanh(m(), 1e308)), d(aten.hardtanh(m(torch.float16), -1, 1e308)), "
                "d(aten.hardtanh(m(torch.complex64), -1, 1)), d(aten.hardtanh_(m(), 1j, 2)), d(aten.hardtanh_(m(), 1e308)), "
                "d(aten.hardtanh(m(torch.int64), -1, 2.5)), err(lambda: aten.hardtanh(m(torch.bool), -1, 1)), "
                "err(lambda: torch.nn.functional.hardtanh(m(), min_val=3, max_val=1))]",
    "cpu_unchanged": "x2 = x.clone(); [err(lambda: torch.clamp(x, max=1e308)), err(lambda: torch.clamp(x.to(torch.int8), max=1000)), "
                     "err(lambda: torch.clamp(x.to(torch.float8_e4m3fn), max=1)), err(lambda: torch.clamp(x, min=1j)), "
                     "err(lambda: torch.clamp_min(x, 1j)), err(lambda: torch.nn.functional.hardtanh(x, max_val=1e308)), "
                     "err(lambda: aten.hardtanh(x, -1, 1j)), err(lambda: x2.clamp_(min=1e308)), geo(torch.clamp(x.bool(), min=1))]",
}, setup=SETUP)
