"""Calls of the no-crash corpus (tests/test_no_crash.py) on meta tensors whose outcome differed from
upstream 2.13.0 (session 40, group "meta"), compared with upstream by exception type and message,
or by the result's shape, strides, dtype and device (docs/breadth_more2.md "Fuzz corpus: group meta
(session 40)"). Upstream's Meta kernels of these ops are Python functions:

- upsample_linear1d / bilinear2d / trilinear3d / bicubic2d (.default, .vec, torch._C._nn): the
  decompositions unpack the input's shape first: IndexError / ValueError for the ranks they cannot
  unpack (a 2-d input, an empty output_size, a 3-d or 5-d bicubic input).
- quantize_per_tensor (each overload): empty_like(input), no check and no quantized dtype;
  .tensors hands empty_like its list (TypeError).
- sort / argsort (and their out= forms): meta_sort checks no dim and no dtype; out= is resized,
  restrided to the result and copied with the references' safe cast.
- _softmax / softmax.int (and out=): no dim and no dtype check, half_to_float asserts half /
  bfloat16; out= by the references' safe cast.
- nll_loss_forward / backward / nll_loss2d_backward: the decompositions' dim assertions
  (AssertionError, "got 2D"); _native_batch_norm_legit.no_stats outside training asserts running
  statistics.
- add / sub / rsub's alpha (its Python type against the result dtype's) and huber_loss's reduction
  (ValueError) on meta.
- meta next to CPU tensors: add / sub's alpha, baddbmm_, div with a rounding mode, huber_loss,
  _native_batch_norm_legit and the nll_loss family check their arguments before the devices are compared; other ops keep the
  device error first; subtract.out / divide.out_mode / nll_loss.out compare out= first.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def geo(r):
    if isinstance(r, torch.Tensor):
        return (tuple(r.shape), r.stride(), r.storage_offset(), r.dtype, r.device.type)
    if isinstance(r, (list, tuple)):
        return [geo(t) for t in r]
    return r
def run(f):
    try:
        return geo(f())
    except Exception as e:
        return (type(e).__name__, str(e))
m = torch.empty(2, 3, device="meta")
m1 = torch.empty(1, 2, 4, device="meta")
m4 = torch.empty(1, 2, 4, 4, device="meta")
m5 = torch.empty(1, 2, 3, 4, 5, device="meta")
v = torch.empty(3, device="meta")
z = torch.empty((), device="meta")
mt = torch.empty(3, 2, device="meta").t()
mcl = torch.empty(1, 2, 3, 4, device="meta").to(memory_format=torch.channels_last)
"""

cases("fuzz_meta8_upsample", {
    # (an input of fewer spatial dims than the op's, or a longer output_size, is not here: the
    # decompositions return a result from the sizes they zip, ours refuses; nor a 0 output size with
    # align_corners: an empty result there; docs)
    "rank_errors": "A = ([-1, -1], [-1], [], [2, 2], [8], [8, 8, 8], [0, 0]); B = ([-1, -1], [-1], [], [0, 0], [0, -1], [-2, 0, 1]); "
                   "[run(lambda: f(x, o, al)) for f in (aten.upsample_linear1d.default, aten.upsample_bilinear2d.default, "
                   "aten.upsample_trilinear3d.default, aten.upsample_bicubic2d.default) for x, os in ((m, A), (v, A), (z, A), (m1, B), (m4, B), (m5, B)) "
                   "for o in os for al in ((False,) if 0 in o else (False, True))]",
    "with_scales_and_dtypes": "[run(lambda: aten.upsample_bilinear2d.default(x, [8, 8], True, 2.0, 2.0)) for x in (m, m.long(), m.bool(), "
                              "m.to(torch.complex64))] + [run(lambda: aten.upsample_bicubic2d.default(x, [8, 8], False, None, 0.5)) "
                              "for x in (m.long(), m.bool(), m1)] + [run(lambda: aten.upsample_trilinear3d.default(m, [8, 8, 8], False, 1.0, None, 2.0))]",
    "other_spellings": "[run(f) for f in (lambda: torch._C._nn.upsample_trilinear3d(m, [8, 8, 8], False), "
                       "lambda: torch._C._nn.upsample_linear1d(m, [-1], True), lambda: aten.upsample_bilinear2d.vec(m, [], False, None), "
                       "lambda: aten.upsample_bicubic2d.vec(m1, [8], False, None), lambda: aten.upsample_linear1d.vec(m1, [8], False, None), "
                       "lambda: aten.upsample_bilinear2d.vec(m4, [8, 8], False, None), lambda: aten.upsample_nearest2d.default(m, [8, 8]), "
                       "lambda: torch.nn.functional.interpolate(m4, size=(8, 8), mode='bicubic'))]",
    "valid_and_cpu": "[run(lambda: aten.upsample_bilinear2d.default(m4, [8, 6], False)), run(lambda: aten.upsample_linear1d.default(m1, [3], True)), "
                     "run(lambda: aten.upsample_trilinear3d.default(m5, [2, 2, 2], False))] + "
                     "[run(lambda: f(torch.zeros(2, 3), [8, 8], False)) for f in (aten.upsample_bilinear2d.default, aten.upsample_bicubic2d.default)]",
}, setup=SETUP)

cases("fuzz_meta8_quantize_per_tensor", {
    "default": "[run(lambda: aten.quantize_per_tensor.default(x, s, zp, dt)) for x in (m, mt, m.long(), z) "
               "for s, zp in ((2.0, 1), (-1.0, 1), (0.0, 300), (float('nan'), -33), (float('inf'), 1)) "
               "for dt in (torch.float32, torch.quint8, torch.qint32)]",
    "tensor_qparams": "[run(lambda: aten.quantize_per_tensor.tensor_qparams(x, s, zp, dt)) for x, s, zp in "
                      "((m, torch.ones(2, 3, device='meta'), torch.ones(2, 3, device='meta')), (m, torch.tensor(2.0, device='meta'), torch.tensor(1, device='meta'))) "
                      "for dt in (torch.float32, torch.quint8)]",
    "torch_spelling_and_tensors": "[run(f) for f in (lambda: torch.quantize_per_tensor(m, 0.5, 3, torch.qint8), "
                                  "lambda: torch.quantize_per_tensor(mt, 0.5, 3, torch.float32), "
                                  "lambda: torch.quantize_per_tensor([m, m], torch.ones(2, device='meta'), torch.ones(2, dtype=torch.long, device='meta'), torch.quint8), "
                                  "lambda: aten.quantize_per_tensor.tensors([m], torch.ones(1), torch.ones(1, dtype=torch.long), torch.quint8), "
                                  "lambda: aten.quantize_per_channel.default(m, torch.ones(2, device='meta'), torch.ones(2, dtype=torch.long, device='meta'), 0, torch.quint8))]",
    "cpu_kept": "[run(lambda: aten.quantize_per_tensor.default(torch.zeros(2, 3), 2.0, 1, dt)) for dt in (torch.float32, torch.quint8)]",
}, setup=SETUP)

cases("fuzz_meta8_sort_softmax", {
    "sort_any_dim_dtype": "[run(lambda: f(x, d)) for f in (aten.sort.default, aten.argsort.default, torch.sort, torch.argsort) "
                          "for x in (m, m.long(), m.bool(), m.to(torch.complex64), m.half(), mt, mcl, z) for d in (1, 5, -3, 33)]",
    "sort_stable": "[run(f) for f in (lambda: aten.sort.stable(m, stable=False, dim=3), lambda: aten.sort.stable(z, stable=None, dim=-33), "
                   "lambda: aten.argsort.stable(m, stable=True, dim=33), lambda: m.sort(dim=-3, descending=True), lambda: m.argsort(dim=33))]",
    "sort_out": "[run(lambda: aten.sort.values(x, 5, values=vo, indices=io)) for x in (m, mt) for vo, io in "
                "((torch.empty(0, device='meta'), torch.empty(0, dtype=torch.long, device='meta')), "
                "(torch.empty(3, 2, device='meta').t(), torch.empty(0, dtype=torch.int, device='meta')), "
                "(torch.empty(0, dtype=torch.double, device='meta'), torch.empty(0, dtype=torch.long, device='meta')), "
                "(torch.empty(0, dtype=torch.long, device='meta'), torch.empty(0, dtype=torch.long, device='meta')), "
                "(torch.empty(0, device='meta'), torch.empty(0, dtype=torch.bool, device='meta')))] + "
                "[run(lambda: aten.argsort.stable_out(m, stable=True, dim=5, out=o)) for o in (torch.empty(0, dtype=torch.int, device='meta'), "
                "torch.empty(0, dtype=torch.bool, device='meta'), torch.empty(0, dtype=torch.long))]",
    "softmax_any_dim_dtype": "[run(lambda: f(x, d)) for f in (lambda x, d: aten._softmax.default(x, d, False), aten.softmax.int, torch.softmax, "
                             "lambda x, d: x.softmax(d), lambda x, d: torch._softmax(x, d, False)) "
                             "for x in (m, m.long(), m.bool(), m.to(torch.complex64), m.half(), m.to(torch.uint8), mt, mcl, z) for d in (1, 2, -3, 33)]",
    "softmax_half_to_float_and_dtype": "[run(lambda: aten._softmax.default(x, d, True)) for x in (m, m.half(), m.bfloat16(), m.double(), m.long()) "
                                       "for d in (1, 5)] + [run(lambda: aten.softmax.int(x, 5, dt)) for x in (m, m.half(), m.long()) "
                                       "for dt in (torch.float64, torch.float16)]",
    "softmax_out": "[run(lambda: aten._softmax.out(m, d, False, out=o)) for d in (1, 5) for o in (torch.empty(0, device='meta'), "
                   "torch.empty(0, dtype=torch.double, device='meta'), torch.empty(0, dtype=torch.long, device='meta'), "
                   "torch.empty(3, 2, device='meta').t(), torch.empty(0))] + [run(lambda: aten.softmax.int_out(m, 33, out=o)) for o in "
                   "(torch.empty(0, device='meta'), torch.empty(0, dtype=torch.long, device='meta'), torch.empty(0, dtype=torch.complex64, device='meta'))]",
    "log_softmax_still_wraps": "[run(lambda: f(m, d)) for f in (lambda x, d: aten._log_softmax.default(x, d, False), aten.log_softmax.int, "
                               "lambda x, d: aten._safe_softmax.default(x, d)) for d in (1, 5)]",
    "cpu_kept": "[run(lambda: f(torch.zeros(2, 3), 5)) for f in (aten.sort.default, aten.argsort.default, torch.softmax, "
                "lambda x, d: aten._softmax.default(x, d, False))]",
}, setup=SETUP)

cases("fuzz_meta8_mixed_devices", {
    "nll_assertions": "c = torch.zeros(2, 3); [run(f) for f in (lambda: aten.nll_loss_forward.default(c, c, m, 1, 1), "
                      "lambda: aten.nll_loss_forward.default(m, m, None, 0, -100), lambda: aten.nll_loss_forward.default(m1, m[0].long(), None, 1, -100), "
                      "lambda: aten.nll_loss_forward.default(z, z.long(), None, 1, -100), lambda: aten.nll_loss.out(c, m, None, 1, 1, out=c), "
                      "lambda: aten.nll_loss.out(m, m, m, out=c), lambda: aten.nll_loss.out(m, m, m, out=m), "
                      "lambda: aten.nll_loss_backward.default(c, c, m, None, 1, 1, c), lambda: aten.nll_loss_backward.default(m, m1, m, None, 1, 1, m), "
                      "lambda: aten.nll_loss2d_backward.default(c, c, m, None, 1, 1, c), lambda: aten.nll_loss2d_backward.default(m4, m4, m, None, 1, 1, z), "
                      "lambda: aten.nll_loss_forward.default(c, c.long()[0], None, 1, -100))]",
    "checks_before_devices": "c = torch.zeros(2, 3); [run(f) for f in (lambda: aten.baddbmm_.default(c, c, m), lambda: aten.baddbmm_.default(m, c, c), "
                             "lambda: aten.div.Tensor_mode(c, m, rounding_mode='none'), lambda: aten.div_.Tensor_mode(m, c, rounding_mode='x'), "
                             "lambda: aten.div.out_mode(m, c, rounding_mode='none', out=c), "
                             "lambda: aten.huber_loss.default(m, c, delta=-1), lambda: aten.huber_loss.default(m, c, 1, 0.5))]",
    "alpha_and_reduction": "c = torch.zeros(2, 3); mi = torch.empty(2, 3, dtype=torch.long, device='meta'); [run(f) for f in ("
                           "lambda: aten.add.Tensor(m, m, alpha=1j), lambda: aten.add.Tensor(m, c, alpha=1j), lambda: aten.add.Tensor(c, m, alpha=1j), "
                           "lambda: aten.add.Tensor(mi, mi, alpha=1.5), lambda: aten.add.Tensor(m.bool(), m.bool(), alpha=2), "
                           "lambda: aten.add.Scalar(m, 2, alpha=1j), "
                           "lambda: m.add_(m, alpha=1j), lambda: aten.add.out(m, m, alpha=1j, out=torch.empty(0, device='meta')), "
                           "lambda: aten.sub.Tensor(m, c, alpha=1j), lambda: aten.rsub.Tensor(m, c, alpha=1j), lambda: aten.subtract.Tensor(m, c, alpha=1j), "
                           "lambda: torch.sub(mi, mi, alpha=1.0), lambda: aten.sub.Tensor(m.bool(), m.bool(), alpha=1j), "
                           "lambda: aten.huber_loss.default(m, c, reduction=3), lambda: aten.huber_loss.default(m, m, reduction=-1, delta=-1), "
                           "lambda: aten.huber_loss.default(m, m, 1, -1), lambda: aten.huber_loss.default(m, m, 2, 0.5))]",
    "out_device_first": "c = torch.zeros(2, 3); [run(f) for f in (lambda: aten.subtract.out(m, c, alpha=1j, out=torch.zeros(2, 3)), "
                        "lambda: aten.subtract.out(c, m, alpha=1j, out=torch.zeros(2, 3)), lambda: aten.sub.out(m, c, alpha=1j, out=torch.zeros(2, 3)), "
                        "lambda: aten.divide.out_mode(c, m, rounding_mode='none', out=torch.zeros(2, 3)), "
                        "lambda: aten.divide.out_mode(m, c, rounding_mode='none', out=torch.zeros(2, 3)), "
                        "lambda: aten.divide.out_mode(c, c, rounding_mode='x', out=torch.empty(0, device='meta')), "
                        "lambda: aten.divide.out_mode(m, m, rounding_mode='none', out=torch.empty(0, device='meta')), "
                        "lambda: aten.divide.out_mode(c, c, rounding_mode='none', out=torch.zeros(2, 3)))]",
    "batch_norm_no_stats_eval": "c = torch.zeros(2, 3); [run(f) for f in (lambda: aten._native_batch_norm_legit.no_stats(c, c, m, False, 2.0, 2.0), "
                                "lambda: aten._native_batch_norm_legit.no_stats(m, m, m, False, 0.1, 1e-5), "
                                "lambda: torch._native_batch_norm_legit(m, None, None, False, 0.1, 1e-5), "
                                "lambda: aten._native_batch_norm_legit.no_stats(m, torch.empty(3, device='meta'), torch.empty(3, device='meta'), True, 0.1, 1e-5))]",
    "device_error_kept": "c = torch.zeros(2, 3); [run(f) for f in (lambda: aten.dist.default(m, c, 1j), lambda: aten.add.Tensor(m, c), "
                         "lambda: aten.where.self(c > 0, m, c), "
                         "lambda: aten.baddbmm.default(c, c, m))]",
}, setup=SETUP)
