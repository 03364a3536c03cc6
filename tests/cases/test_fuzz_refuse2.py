"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 35, group "refuse"), compared with upstream by value, dtype, shape and layout, plus the
neighbouring refusals that now come from the same checks (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs (session 35)"):

- set_ with a Tensor source of another dtype: through torch.ops self keeps its dtype and reads the
  source's storage as its own bytes; only the Python binding Tensor.set_(Tensor) refuses (in C++
  type names). Keeping self's geometry, set_ checks the storage's bounds instead of growing it.
- threshold.out into another dtype (computed in self's dtype, cast into out).
- the fft primitives' out= of any dtype (resize_output + copy_), _fft_r2c(onesided=False) into a
  real out (the conjugate-symmetry fill is complex-only unless the last dim has <= 2 elements), and
  the primitive's own refusals (empty dim list, negative dims, 0-dim input); rfftn over no axis.
- huber_loss.out: out is the iterator's output (any dtype the common dtype casts to), reduced in
  place; smooth_l1_loss_backward promotes its three operands.
- _local_scalar_dense reads the first element of any non-empty tensor.
- bitwise and / or / xor / shifts on meta tensors of a dtype without a CPU kernel.
- torch.ops.aten.X.overload takes a one-element real tensor for an int argument (int(t)).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
def geo(t):
    return (t.dtype, tuple(t.shape), t.stride(), t.storage_offset(), t.untyped_storage().nbytes(), t)
"""

cases("fuzz_refuse2_set", {
    "f32_on_i32_storage": "s = torch.tensor([[0, 1, 0], [1, 0, 1]], dtype=torch.int32); "
                          "r = torch.ops.aten.set_.source_Tensor(torch.zeros(2, 3), s); "
                          "(geo(r), r.untyped_storage().data_ptr() == s.untyped_storage().data_ptr())",
    "f16_on_f32_storage": "geo(torch.ops.aten.set_.source_Tensor(torch.zeros(2, 3, dtype=torch.float16), x))",
    "f16_on_f32_offset": "geo(torch.ops.aten.set_.source_Tensor(torch.zeros(0, dtype=torch.float16), x[1:]))",
    "i64_on_f64_grows": "geo(torch.ops.aten.set_.source_Tensor(torch.empty(0, dtype=torch.int64), x.double()[1:]))",
    "with_offset": "geo(torch.ops.aten.set_.source_Tensor_storage_offset(torch.zeros(2, 3, dtype=torch.float16), x, 1, [2, 3], [3, 1]))",
    "method_with_offset": "geo(torch.zeros(2, 3, dtype=torch.int32).set_(x, 0, [2, 3]))",
    "method_refuses": "[err(lambda: torch.zeros(2, 3).set_(torch.ones(2, 3, dtype=torch.int64))), "
                      "err(lambda: torch.zeros(2, 3, dtype=torch.float16).set_(x)), "
                      "err(lambda: torch.zeros(2, 3, dtype=torch.complex64).set_(torch.ones(2, dtype=torch.bool)))]",
    "same_geometry_bounds": "[err(lambda: torch.ops.aten.set_.source_Tensor_storage_offset(torch.zeros(2, 3, dtype=torch.float64), x, 0, [2, 3])), "
                            "err(lambda: torch.ops.aten.set_.source_Tensor_storage_offset(torch.zeros(2, 3), x.clone(), 1, [2, 3])), "
                            "err(lambda: torch.zeros(2, 3).set_(x.clone().untyped_storage(), 1, [2, 3], [3, 1]))]",
    "new_geometry_grows": "[geo(torch.ops.aten.set_.source_Tensor_storage_offset(torch.empty(0), x.clone(), 1, [2, 3]))[:5], "
                          "geo(torch.ops.aten.set_.source_Tensor_storage_offset(torch.zeros(3, 2), x.clone(), 0, [2, 3]))]",
}, setup=SETUP)

cases("fuzz_refuse2_threshold_out", {
    "into_f32": "[geo(torch.ops.aten.threshold.out(x.to(dt), 0, 2, out=torch.zeros(2, 3))) "
                "for dt in (torch.bfloat16, torch.float16, torch.int64, torch.int32, torch.uint8, torch.float64)]",
    "into_i64": "[geo(torch.ops.aten.threshold.out(x.to(dt), 0, 2, out=torch.zeros(2, 3, dtype=torch.int64))) "
                "for dt in (torch.int32, torch.uint8, torch.int8)]",
    "function_out": "o = torch.zeros(1); r = torch.threshold(x.bfloat16(), 0.5, -1, out=o); (r is o, geo(o))",
    "still_refused": "[err(lambda: torch.ops.aten.threshold.out(x, 0, 2, out=torch.zeros(2, 3, dtype=torch.int64))), "
                     "err(lambda: torch.ops.aten.threshold.out(x.bfloat16(), 0, 2, out=torch.zeros(2, 3, dtype=torch.int64))), "
                     "err(lambda: torch.ops.aten.threshold.out(x.bool(), 0, 2, out=torch.zeros(2, 3)))]",
}, setup=SETUP)

cases("fuzz_refuse2_fft_out", {
    "r2c_real_out": "[geo(torch.ops.aten._fft_r2c.out(x, d, n, os, out=torch.zeros(2, 3))) "
                    "for d, n, os in (([0], 1, False), ([1], 0, True), ([0], 2, True), ([1, 0], 1, True), ([0, 1], 2, True))]",
    "r2c_complex_out": "[geo(torch.ops.aten._fft_r2c.out(x, d, 1, os, out=torch.zeros(2, 3, dtype=torch.complex64))) "
                       "for d, os in (([0], False), ([1], False), ([0, 1], False), ([1], True))]",
    "r2c_f64_into_c64": "geo(torch.ops.aten._fft_r2c.out(x.double(), [1], 0, False, out=torch.zeros(0, dtype=torch.complex64)))",
    "r2c_int_out": "geo(torch.ops.aten._fft_r2c.out(x * 4, [1], 0, True, out=torch.zeros(2, 2, dtype=torch.int64)))",
    "c2c_real_out": "geo(torch.ops.aten._fft_c2c.out(x.cfloat() * (1 + 2j), [0], 1, False, out=torch.zeros(2, 3)))",
    "c2r_complex_out": "geo(torch.ops.aten._fft_c2r.out(x.cfloat(), [1], 1, 4, out=torch.zeros(2, 4, dtype=torch.complex128)))",
    "c2r_int_out": "geo(torch.ops.aten._fft_c2r.out(x.cfloat() * 10, [1], 0, 4, out=torch.zeros(2, 4, dtype=torch.int64)))",
    "refusals": "[err(lambda: torch.ops.aten._fft_r2c.out(x, [1], 1, False, out=torch.zeros(2, 3))), "
                "err(lambda: torch.ops.aten._fft_r2c.out(torch.ones(3, 5, 4), [0, 2], 1, False, out=torch.zeros(0, dtype=torch.float64))), "
                "err(lambda: torch.ops.aten._fft_r2c.out(x, [0], 1, True, out=torch.zeros(1, 3).expand(2, 3))), "
                "err(lambda: torch.ops.aten._fft_c2c.out(x.cfloat(), [0], 1, False, out=torch.zeros(1, 3).expand(2, 3))), "
                "err(lambda: torch.ops.aten._fft_r2c(x, [], 1, True)), "
                "err(lambda: torch.ops.aten._fft_r2c.out(x, [], 1, True, out=torch.zeros(2, 3))), "
                "err(lambda: torch.ops.aten._fft_r2c(torch.tensor(1.5), [0], 1, True)), "
                "err(lambda: torch.ops.aten._fft_r2c(torch.tensor(1.5), [-1], 0, False)), "
                "err(lambda: torch.fft.rfftn(x, dim=())), err(lambda: torch.fft.rfft2(x, dim=())), "
                "err(lambda: torch.ops.aten._fft_r2c(torch.empty(2, 3, device='meta'), [], 1, False))]",
    "negative_dims_refused": "[err(lambda: torch.ops.aten._fft_r2c(torch.ones(2, 1, 3, 2), d, 1, os))[0] "
                             "for d in ([-1, 2], [-1], [2, -1]) for os in (True, False)]",
    "meta_negative_dim": "geo(torch.ops.aten._fft_r2c(torch.empty(2, 3, device='meta'), [-1], 1, True))[:4]",
}, setup=SETUP, tol="float")

cases("fuzz_refuse2_losses", {
    "huber_out_bool_self": "[geo(torch.ops.aten.huber_loss.out(x.bool(), x, r, 1.0, out=torch.zeros(2, 3))) for r in (0, 1, 2, -1, 5)]",
    "huber_out_other_dtype": "[geo(torch.ops.aten.huber_loss.out(x, x.double() * 2, 0, 0.5, out=torch.zeros(2, 3, dtype=torch.float64))), "
                             "geo(torch.ops.aten.huber_loss.out(x, x * 2, 1, 0.5, out=torch.zeros(0, dtype=torch.float64))), "
                             "geo(torch.ops.aten.huber_loss.out(x.half(), x * 2, 0, 0.5, out=torch.zeros(2, 3)))]",
    "huber_refusals": "[err(lambda: torch.ops.aten.huber_loss(x.bool(), x, 1, 1.0)), "
                      "err(lambda: torch.ops.aten.huber_loss.out(x, x, 1, 1.0, out=torch.zeros(2, 3, dtype=torch.int64))), "
                      "err(lambda: torch.ops.aten.huber_loss.out(x, x, 1, 0.0, out=torch.zeros(2, 3))), "
                      "err(lambda: torch.ops.aten.huber_loss.out(x.bool(), x.bool(), 1, 1.0, out=torch.zeros(2, 3, dtype=torch.bool)))]",
    "smooth_l1_backward_promotes": "[geo(torch.ops.aten.smooth_l1_loss_backward(g, s, t, r, 2.0)) for g, s, t, r in ("
                                   "(x.bfloat16(), x, x * 0.5, 1), (x.bool(), x, x * 0.5, 1), (x, x.half(), x * 0.5, 2), "
                                   "(x, x, (x * 0.5).double(), 0), (x.double(), x, x * 0.5, 0))]",
    "smooth_l1_backward_out": "[geo(torch.ops.aten.smooth_l1_loss_backward(x.double(), x, x * 0.5, 0, 2.0, grad_input=torch.zeros(2, 3, dtype=torch.float16))), "
                              "err(lambda: torch.ops.aten.smooth_l1_loss_backward(x, x, x * 0.5, 0, 2.0, grad_input=torch.zeros(2, 3, dtype=torch.int64))), "
                              "err(lambda: torch.ops.aten.smooth_l1_loss_backward(x.double(), x.int(), x * 0.5, 0, 2.0)), "
                              "err(lambda: torch.ops.aten.huber_loss_backward(x.bfloat16(), x, x * 0.5, 1, 2.0))]",
}, setup=SETUP, tol="float")

cases("fuzz_refuse2_local_scalar_dense", {
    "first_element": "[torch.ops.aten._local_scalar_dense(t) for t in (x, x.bool(), x.bfloat16(), x.cdouble(), x.t()[1:], "
                     "torch.tensor([[1, 2], [3, 4]], dtype=torch.uint64), torch.tensor([-3, 5], dtype=torch.int8))]",
    "refusals": "[err(lambda: torch.ops.aten._local_scalar_dense(torch.empty(0))), "
                "err(lambda: torch.ops.aten._local_scalar_dense(torch.empty(2, 3, device='meta'))), "
                "err(lambda: x.item()), err(lambda: torch.ops.aten.item(x))]",
}, setup=SETUP)

cases("fuzz_refuse2_meta_bitwise", {
    "float_meta": "m = torch.empty(2, 3, device='meta'); "
                  "[geo(f())[:4] for f in (lambda: torch.ops.aten.bitwise_and.Scalar(m, -1), lambda: torch.ops.aten.bitwise_or.Tensor(m, m), "
                  "lambda: torch.ops.aten.bitwise_xor_.Scalar(m.clone(), 3), lambda: torch.ops.aten.bitwise_left_shift.Tensor_Scalar(m, 1), "
                  "lambda: torch.ops.aten.bitwise_right_shift_.Tensor_Scalar(m.clone(), 2), lambda: torch.ops.aten.__and__.Scalar(m, 1), "
                  "lambda: torch.ops.aten.__ixor__.Scalar(m.clone(), 1), lambda: m.bitwise_and(1), lambda: torch.bitwise_or(m, 2.5), "
                  "lambda: torch.ops.aten.bitwise_and.Scalar(torch.empty(2, 3, device='meta', dtype=torch.complex64), 1))]",
    "refusals": "m = torch.empty(2, 3, device='meta'); "
                "[err(f) for f in (lambda: torch.ops.aten.bitwise_and.Scalar(x, 1), lambda: torch.ops.aten.bitwise_and.Tensor(m, x))]",
}, setup=SETUP)

cases("fuzz_refuse2_int_from_tensor", {
    "accepted": "[tuple(f().shape) for f in (lambda: torch.ops.aten.diff.default(x, torch.tensor(1.5)), "
                "lambda: torch.ops.aten.diff.default(x, torch.tensor([5])), lambda: torch.ops.aten.diff.default(x, torch.tensor([[2]])), "
                "lambda: torch.ops.aten.diff.default(x, torch.tensor(True)), lambda: torch.ops.aten.diff.default(x, torch.tensor([1.0], requires_grad=True)), "
                "lambda: torch.ops.aten.select.int(x, 0, torch.tensor(1.7)), lambda: torch.ops.aten.argmax.default(x, torch.tensor([1.0])), "
                "lambda: torch.ops.aten.cumsum.default(x, torch.tensor(1.0)), lambda: torch.ops.aten.narrow.default(x, 0, torch.tensor(0.0), 1))]",
    "values": "[torch.ops.aten.diff.default(x, torch.tensor(1.5)), torch.ops.aten.select.int(x, 1, torch.tensor([-1.2]))]",
    "refused": "[err(f)[0] for f in (lambda: torch.ops.aten.diff.default(x, torch.tensor(1e20)), "
               "lambda: torch.ops.aten.diff.default(x, torch.tensor(float('nan'))), lambda: torch.ops.aten.diff.default(x, torch.tensor(1 + 1j)), "
               "lambda: torch.ops.aten.diff.default(x, torch.tensor([1, 2])), lambda: torch.ops.aten.diff.default(x, torch.empty(1, device='meta')), "
               "lambda: torch.ops.aten.diff.default(x, torch.tensor(-1.7)), lambda: torch.ops.aten.select.int(x, 0, torch.tensor(5.0)))]",
}, setup=SETUP)

cases("fuzz_refuse2_repeat_many_dims", {
    "tile_32": "r = torch.ops.aten.tile(x, [1] * 32); (tuple(r.shape), r.stride(), r.flatten())",
    "repeat_32": "r = torch.ops.aten.repeat(torch.ones([1] * 20) * 2.5, [1] * 32); (tuple(r.shape), r.stride(), r.flatten())",
    "repeat_17_twos": "r = x.repeat([2] * 17); (tuple(r.shape), r.stride()[-4:], r.sum(), r[1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1])",
    "repeat_bool_32": "r = torch.ops.aten.repeat(x > 0, [1] * 30 + [2, 1]); (tuple(r.shape), r.flatten())",
    "repeat_small": "[x.repeat(2, 1, 3), x.t().repeat(2, 1, 3), x.repeat(1, 1), torch.tensor(2.5).repeat([]), x[:, :1].repeat(1, 4), "
                    "tuple(x.repeat(2, 0, 1).shape)]",
    "refused": "[err(lambda: x.repeat([1])), err(lambda: x.repeat([2, -1]))]",
}, setup=SETUP)

cases("fuzz_refuse2_new_zeros_feature_meta", {
    "batch_dims": "[geo(torch.ops.aten._new_zeros_with_same_feature_meta(torch.ones(4, 5, dtype=torch.bool), o, self_num_batch_dims=n)) "
                  "for o in (x, x.t(), x[1:], torch.ones(6)[::2]) for n in (0, 1, 2)]",
}, setup=SETUP)

cases("fuzz_refuse2_normal_out", {
    "integral_mean": "torch.manual_seed(0); o = torch.zeros(2, 3); r = torch.ops.aten.normal.Tensor_float_out("
                     "torch.tensor([[0, 1, 0], [1, 0, 1]], dtype=torch.int32), 1.0, out=o); (r is o, geo(o))",
    "bool_mean_broadcast": "torch.manual_seed(1); geo(torch.normal(torch.ones(3, dtype=torch.bool), 2.0, out=torch.zeros(2, 3)))",
    "integral_std": "torch.manual_seed(2); geo(torch.ops.aten.normal.float_Tensor_out(1.0, torch.tensor([[0, 1, 0], [1, 0, 1]]), out=torch.zeros(2, 3)))",
    "tensor_tensor": "torch.manual_seed(3); [geo(torch.ops.aten.normal.Tensor_Tensor_out(torch.tensor([[0, 1, 0], [1, 0, 1]], dtype=torch.int32), "
                     "x.abs(), out=torch.zeros(2, 3))), geo(torch.ops.aten.normal.Tensor_Tensor_out(x, torch.tensor([[0, 1, 0], [1, 0, 1]]), "
                     "out=torch.zeros(2, 3, dtype=torch.float64)))]",
    "still_refused": "[err(lambda: torch.ops.aten.normal.Tensor_float(torch.tensor([0, 1]), 1.0)), "
                     "err(lambda: torch.ops.aten.normal.Tensor_float_out(x, 1.0, out=torch.zeros(2, 3, dtype=torch.int64))), "
                     "err(lambda: torch.ops.aten.normal.Tensor_float_out(x, -1.0, out=torch.zeros(2, 3)))]",
}, setup=SETUP, tol="float")
