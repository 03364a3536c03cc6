"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 37, group "refuse", fourth pass), compared with upstream by value, dtype, shape and
strides, plus the neighbouring refusals the same checks keep (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs, fourth pass"):

- batch norm of an empty input outside training (native_batch_norm, _native_batch_norm_legit and
  its no_stats / no_training forms, _batch_norm_no_update with or without running statistics):
  (empty_like(input), empty(0), empty(0)) after the dtype checks only; training keeps refusing.
- bernoulli_ with a tensor p on an empty self returns self unchecked; bernoulli_(float) and
  bernoulli() of an empty tensor skip the dtype dispatch.
- the deprecated cholesky of an empty tensor is empty_like(self), square or not.
- repeat / tile check the target size, not the repeats: a negative repeat of a 0 size is a 0.
- mean.out / logsumexp.out of a complex input into a real floating out (real parts summed in
  out's dtype); abs.out of a complex input into a real out its real dtype casts to; mean.out into
  an integral out fails as upstream's div_ does ("result type Float").
- nanmean.out resizes out before dividing (an expanded out is replaced); threshold_backward's
  grad_input has no overlap check.
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
c = torch.tensor([[1 + 2j, 3 - 1j, 0.5j], [2, -1 + 1j, 4 + 4j]], dtype=torch.complex64)
"""

cases("fuzz_refuse4_batch_norm_empty", {
    "native_eval": "[geo(aten.native_batch_norm(x, w, w, w, w, False, 0.1, 1e-5)) for x in (torch.zeros(0, 3), torch.zeros(3, 0), "
                   "torch.zeros(0), torch.zeros(2, 0, 4)) for w in (torch.ones(3), torch.ones(2, 3), None)]",
    "legit_forms": "x = torch.zeros(3, 0); r = torch.ones(2, 3); [geo(aten._native_batch_norm_legit(x, r, r, r, r, False, 0.1, 1e-5)), "
                   "geo(aten._native_batch_norm_legit.no_stats(x, None, None, False, 0.1, 1e-5)), "
                   "geo(aten._native_batch_norm_legit_no_training(torch.zeros(0), r, r, r, r, 0.1, 1e-5)), "
                   "geo(aten._batch_norm_no_update(x, r, r, r, r, 0.1, 1e-5)), geo(aten._batch_norm_no_update(x, None, None, None, None, 0.1, 1e-5)), "
                   "geo(torch._native_batch_norm_legit(x, r, r, r, r, False, 0.1, 1e-5)), geo(torch.native_batch_norm(x, r, r, r, r, False, 0.1, 1e-5))]",
    "layouts_dtypes": "[geo(aten.native_batch_norm(x, None, None, torch.ones(3), torch.ones(3), False, 0.1, 1e-5)) for x in ("
                      "torch.zeros(0, 3, 2, 2).to(memory_format=torch.channels_last), torch.zeros(2, 3, 0, 2).to(memory_format=torch.channels_last), "
                      "torch.zeros(3, 0).t(), torch.zeros(0, 3, dtype=torch.float64), torch.zeros(0, 3, dtype=torch.bfloat16))] + "
                      "[geo(aten.native_batch_norm(torch.zeros(0, 3, dtype=torch.bfloat16), torch.ones(3), None, torch.ones(3), torch.ones(3), False, 0.1, 1e-5))]",
    "functional": "[geo(torch.nn.functional.batch_norm(torch.zeros(0, 3), torch.zeros(3), torch.ones(3), torch.ones(3) * 2, torch.ones(3))), "
                  "geo(torch.nn.functional.batch_norm(torch.zeros(0, 3, 2), torch.zeros(3), torch.ones(3), training=True))]",
    "still_refused": "e = torch.zeros(0, 3); [err(lambda: aten.native_batch_norm(e, None, None, None, None, True, 0.1, 1e-5)), "
                     "err(lambda: aten.native_batch_norm(torch.zeros(0), None, None, None, None, True, 0.1, 1e-5)), "
                     "err(lambda: aten._batch_norm_with_update(e, None, None, torch.ones(3), torch.ones(3), 0.1, 1e-5)), "
                     "err(lambda: aten._native_batch_norm_legit.no_stats(e, None, None, True, 0.1, 1e-5)), "
                     "err(lambda: aten.native_batch_norm(torch.zeros(0, 3, dtype=torch.int64), None, None, torch.ones(3), torch.ones(3), False, 0.1, 1e-5)), "
                     "err(lambda: aten.native_batch_norm(torch.zeros(0, 3, dtype=torch.float64), torch.ones(3), None, torch.ones(3), torch.ones(3), False, 0.1, 1e-5)), "
                     "err(lambda: aten.native_batch_norm(e, torch.ones(3, dtype=torch.int64), None, torch.ones(3), torch.ones(3), False, 0.1, 1e-5))]",
}, setup=SETUP)

cases("fuzz_refuse4_bernoulli_empty", {
    "tensor_p": "[geo(torch.zeros(0, 3).bernoulli_(p)) for p in (torch.rand(2, 3), torch.rand(5, 5), torch.full((2, 3), float('nan')), "
                "torch.full((2, 3), 2.0), torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3, dtype=torch.bool), torch.ones(2, dtype=torch.complex64))]",
    "self_dtypes": "[geo(torch.zeros(3, 0, dtype=dt).bernoulli_(torch.rand(2, 3))) for dt in (torch.complex64, torch.int64, torch.bool, "
                   "torch.float8_e4m3fn, torch.uint16)] + [geo(aten.bernoulli_.Tensor(torch.zeros(1, 0).expand(3, 0), torch.rand(2, 3)))]",
    "float_p_and_functional": "[geo(torch.zeros(0, 3, dtype=torch.complex64).bernoulli_(0.5)), geo(torch.bernoulli(torch.zeros(0, 3, dtype=torch.int64))), "
                              "geo(torch.bernoulli(torch.zeros(2, 0, dtype=torch.bool), 0.3))]",
    "still_refused": "[err(lambda: torch.zeros(0, 3).bernoulli_(2.0)), err(lambda: torch.zeros(2, 3).bernoulli_(torch.rand(3, 3))), "
                     "err(lambda: torch.zeros(2, 3, dtype=torch.complex64).bernoulli_(torch.rand(2, 3))), "
                     "err(lambda: torch.zeros(2, 3).bernoulli_(torch.full((2, 3), 2.0))), "
                     "err(lambda: torch.bernoulli(torch.ones(2, 3, dtype=torch.int64))), "
                     "err(lambda: torch.zeros(0, 3, requires_grad=True).bernoulli_(torch.rand(2, 3)))]",
}, setup=SETUP)

cases("fuzz_refuse4_cholesky_empty", {
    "empty": "[geo(torch.cholesky(t)) for t in (torch.zeros(0, 3), torch.zeros(3, 0), torch.zeros(0), torch.zeros(0, dtype=torch.int64), "
             "torch.zeros(2, 0, 0, dtype=torch.complex64), torch.zeros(3, 0).t())] + [geo(torch.zeros(0, 3).cholesky(upper=True))]",
    "still_refused": "[err(lambda: torch.cholesky(torch.ones(2, 3))), err(lambda: torch.cholesky(torch.ones(3))), "
                     "err(lambda: torch.cholesky(torch.ones(2, 2, dtype=torch.int64))), err(lambda: torch.cholesky(-torch.eye(2)))]",
}, setup=SETUP)

cases("fuzz_refuse4_repeat_negative_of_empty", {
    "zero_times_negative": "[geo(torch.zeros(0, 3).repeat([-1, 2])), geo(torch.zeros(0, 3).repeat([2, -1, 3])), geo(torch.zeros(0).repeat([-1])), "
                           "geo(torch.zeros(0, 3).tile([-1, 2])), geo(torch.zeros(3, 0).tile([-1])), geo(torch.zeros(0).tile([-1])), "
                           "geo(aten.repeat.default(torch.zeros(3, 0, dtype=torch.int64), [2, 5, -4]))]",
    "still_refused": "[err(lambda: torch.ones(2, 3).repeat([-1, 2])), err(lambda: torch.zeros(0, 3).repeat([2, -1])), "
                     "err(lambda: torch.zeros(0, 3).repeat([-1, 1, 2])), err(lambda: torch.ones(2, 3).tile([-2])), "
                     "err(lambda: torch.zeros(0, 3).repeat([2]))]",
}, setup=SETUP)

cases("fuzz_refuse4_complex_into_real_out", {
    "mean_out": "[geo(torch.mean(c, [0], out=torch.zeros(2, 3))), geo(torch.mean(c, [0], keepdim=True, out=torch.zeros(2, 3))), "
                "geo(torch.mean(c, [], out=torch.zeros(2, 3))), geo(torch.mean(c, [1], out=torch.zeros(2, 3, dtype=torch.float64))), "
                "geo(torch.mean(c.to(torch.complex128), [1], out=torch.zeros(2, 3))), geo(torch.mean(c, [1], out=torch.zeros(2, 3, dtype=torch.float16))), "
                "geo(torch.mean(c, [1], out=torch.zeros(2, 3, dtype=torch.bfloat16))), geo(aten.mean.out(c.to(torch.complex32), [0], out=torch.zeros(2, 3)))]",
    "mean_out_others": "[geo(torch.mean(x, [0], out=torch.zeros(2, 3, dtype=od))) for x in (torch.ones(2, 3, dtype=torch.float64) * 1.5, c) "
                       "for od in (torch.complex64, torch.float32, torch.bfloat16)]",
    "mean_out_integral_refused": "[err(lambda: torch.mean(x, [0], out=torch.zeros(2, 3, dtype=od))) for x in (torch.ones(2, 3, dtype=torch.float64), c, "
                                 "torch.ones(2, 3, dtype=torch.float16)) for od in (torch.int64, torch.bool, torch.int8)] + "
                                 "[err(lambda: torch.mean(c, [1], dtype=torch.complex64, out=torch.zeros(2, 3)))]",
    "logsumexp_out": "[geo(torch.logsumexp(c, [0], out=torch.zeros(2, 3))), geo(torch.logsumexp(c, [1], keepdim=True, out=torch.zeros(2, 3, dtype=torch.float64))), "
                     "geo(torch.logsumexp(c.to(torch.complex128) * 0.25, [1, 0], out=torch.zeros(2, 3))), "
                     "geo(torch.special.logsumexp(c * 0.5, [-1], out=torch.zeros(2, 3))), geo(torch.logsumexp(c, [0]))]",
    "logsumexp_out_refused": "[err(lambda: torch.logsumexp(c, [0], out=torch.zeros(2, 3, dtype=torch.int64))), "
                             "err(lambda: torch.logsumexp(c, [0], out=torch.zeros(2, 3, dtype=torch.bool)))]",
    "abs_out": "[geo(torch.abs(c.to(torch.complex128), out=torch.zeros(2, 3))), geo(torch.abs(c, out=torch.zeros(2, 3, dtype=torch.float16))), "
               "geo(torch.absolute(c.to(torch.complex128), out=torch.zeros(2, 3))), geo(torch.abs(c, out=torch.zeros(3))), "
               "geo(torch.abs(c.to(torch.complex128), out=torch.zeros(2, 3, dtype=torch.float64))), geo(torch.abs(c.t(), out=torch.zeros(0)))]",
    "abs_out_refused": "[err(lambda: torch.abs(c, out=torch.zeros(2, 3, dtype=torch.int64))), "
                       "err(lambda: torch.abs(torch.ones(2, 3, dtype=torch.float64), out=torch.zeros(2, 3))), "
                       "err(lambda: torch.abs(c, out=torch.zeros(2, 3, dtype=torch.complex128))), err(lambda: c.clone().abs_())]",
}, setup=SETUP)

cases("fuzz_refuse4_out_overlap", {
    "nanmean_out_expanded": "[geo(torch.nanmean(torch.ones(2, 3), out=torch.zeros(1).expand(2, 3))), "
                            "geo(aten.nanmean.out(torch.tensor([[1.0, float('nan'), 3.0]]), out=torch.tensor(1.0).expand(3))), "
                            "geo(torch.nanmean(torch.ones(2, 3), 1, out=torch.zeros(1).expand(2)))]",
    "nanmean_out_refused": "[err(lambda: torch.nanmean(torch.ones(2, 3), 0, out=torch.zeros(1).expand(3))), "
                           "err(lambda: torch.nanmean(torch.ones(2, 3, dtype=torch.int64), out=torch.zeros(())))]",
    "threshold_backward_alias": "g = torch.arange(6.).reshape(2, 3) * 10 + 1; mk = lambda: torch.arange(6.).reshape(2, 3) - 2; "
                                "s1 = mk(); s2 = mk(); s3 = mk(); s4 = mk(); o = torch.zeros(1, 3).expand(2, 3); "
                                "[geo(aten.threshold_backward.grad_input(g, s1, 0.5, grad_input=s1.t())), "
                                "geo(aten.threshold_backward.grad_input(g, s2, 0.5, grad_input=s2[0])), "
                                "geo(aten.threshold_backward.grad_input(g, mk(), 0.5, grad_input=torch.tensor(1.0).expand(3))), "
                                "geo(aten.threshold_backward.grad_input(g, mk(), 0.5, grad_input=o)), "
                                "geo(aten.threshold_backward.grad_input(g, s3, 0.5, grad_input=s3)), "
                                "geo(aten.threshold_backward.grad_input(s4, g, 15, grad_input=s4[:, :2])), "
                                "geo(aten.threshold_backward.grad_input(g, mk(), 0.5, grad_input=torch.zeros(2, 3, dtype=torch.float64)))]",
    "threshold_backward_refused": "[err(lambda: aten.threshold_backward.grad_input(torch.ones(2, 3), torch.ones(2, 3), 0.5, "
                                  "grad_input=torch.zeros(2, 3, dtype=torch.int64))), "
                                  "err(lambda: aten.threshold_backward.grad_input(torch.ones(2, 3), torch.ones(3, 2), 0.5, grad_input=torch.zeros(2, 3)))]",
}, setup=SETUP)

cases("fuzz_refuse4_ndtr_out_copies", {
    "expanded_out": "x = torch.arange(6.).reshape(2, 3) - 2; [geo(aten.special_ndtr.out(x, out=torch.tensor(1.0).expand(3))), "
                    "geo(torch.special.ndtr(x, out=torch.zeros(3, 2).t())), geo(torch.special.ndtr(x, out=torch.zeros(0)))]",
    "input_requires_grad": "x = (torch.arange(6.).reshape(2, 3) - 2).requires_grad_(); o = torch.special.ndtr(x, out=torch.zeros(2, 3)); "
                           "o.sum().backward(); (o, o.requires_grad, type(o.grad_fn).__name__, x.grad)",
    "out_dtypes": "x = torch.arange(6.).reshape(2, 3) - 2; [geo(torch.special.ndtr(x, out=torch.zeros(2, 3, dtype=od))) "
                  "for od in (torch.float16, torch.float64, torch.complex64)] + [geo(torch.special.ndtr(torch.arange(3), out=torch.zeros(3)))]",
    "aliasing": "y = torch.arange(6.).reshape(2, 3) - 2; z = y.clone(); w = y.clone(); "
                "[geo(torch.special.ndtr(y, out=y)), geo(torch.special.ndtr(z, out=z.t())), geo(torch.special.ndtr(w[:, :2], out=w[:, 1:])), w]",
    "still_refused": "x = torch.arange(6.).reshape(2, 3) - 2; [err(lambda: torch.special.ndtr(x, out=torch.zeros(2, 3, dtype=torch.int64))), "
                     "err(lambda: torch.special.ndtr(x, out=torch.zeros(2, 3, dtype=torch.bool))), "
                     "err(lambda: torch.special.ndtr(x, out=torch.zeros(2, 3, requires_grad=True)))]",
}, setup=SETUP)

cases("fuzz_refuse4_meta_and_mode", {
    "hash_mode_int32": "x = torch.arange(6.).reshape(2, 3); [aten.hash_tensor.default(x, mode=m) for m in (0, 2**62, -2**63, 2**32, -2**32)] + "
                       "[x.hash_tensor(mode=2**62)]",
    "hash_meta_any_mode": "m = torch.empty(2, 3, device='meta'); [(tuple(r.shape), r.dtype, r.device.type) for r in (aten.hash_tensor.default(m, mode=-1), "
                          "torch.hash_tensor(m, mode=3), m.hash_tensor([1], mode=-3))]",
    "hash_refused": "x = torch.arange(6.).reshape(2, 3); [err(lambda: aten.hash_tensor.default(x, mode=m)) for m in (1, -1, 3, 256, 2**31, 2**32 + 1)]",
    "randint_meta_generator": "[(tuple(r.shape), r.dtype, r.device.type) for r in (aten.randint.low_generator(1, 1, [2, 3], generator=None, device='meta'), "
                              "aten.randint.low_generator(5, 1, [2, 3], generator=None, device='meta'), aten.randint.generator(0, [2, 3], generator=None, device='meta'), "
                              "torch.randint(1, 1, [2, 3], generator=None, device='meta'), torch.randint(1, 1, [2], generator=torch.Generator(), device='meta'))]",
    "randint_refused": "[err(lambda: aten.randint.low(1, 1, [2, 3], device='meta')), err(lambda: aten.randint.default(0, [2, 3], device='meta')), "
                       "err(lambda: torch.randint(1, 1, [2, 3], device='meta')), err(lambda: aten.randint.low_generator(1, 1, [2, 3], generator=None)), "
                       "err(lambda: torch.randint(1, 1, [0]))]",
}, setup=SETUP)
