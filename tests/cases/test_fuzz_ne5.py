"""Exception types and messages of the no-crash corpus's "ours RuntimeError, upstream
NotImplementedError" and "ours NotImplementedError, upstream RuntimeError" differences, fifth
round, fixed in the layer owning each check (docs/breadth_more2.md "Fuzz corpus exception types,
group ne (session 38)"); the corpus itself compares every call's exception type
(tests/test_no_crash.py).

- torch.ops factories given an accelerator device (cuda, xpu, mps, ...): upstream's dispatcher
  has no kernel for the allocation ("Could not run 'aten::empty.memory_format' with arguments
  from the 'CUDA' backend."), Sparse / Quantized keys by layout and dtype, after the few checks
  made before allocating (zeros' sizes, linspace's steps, the windows' length).
- rows upstream has no Meta kernel for (ctc losses, margin losses' backwards, the fused
  optimizers' tensor_lr forms, histogram's out= forms, ...): a meta argument anywhere raises the
  Meta fallback's NotImplementedError first; the in-place "inplace_meta" stubs (put_,
  embedding_renorm_, _amp_update_scale_) refuse a CPU self written with a meta argument and
  return a meta self unchecked. segment_reduce's indices refusal is a NotImplementedError on meta.
- reductions / scans / softmax / nested tensors given a quantized dtype: the result's (or the
  cast's) allocation refuses it ("empty_strided not supported on quantized tensors yet ..."), on
  meta the QuantizedMeta dispatcher refusal.
- renorm of float8: the dim's wrap, then float8_e4m3fn / e5m2 fail the factor's promotion, the
  other float8 types (and complex32) have no accumulate type; maxnorm's refusal prints its value.
- kernels' dtype dispatch before other checks: the fused optimizers' parameter dtype (before the
  index's other tensors), norm(self, p) of a whole non-empty float8 tensor ("norm_cpu", before
  out='s dtype), mean.out into a uint16 / uint64 / float8 / complex32 out= ("sum_cpu", before the
  cast check); grad_scale's dtype named; _log_softmax_backward_data's grad dtype before its size
  check (not _softmax_backward_data's).
- layouts: _to_copy / to.dtype_layout of a strided tensor into another layout ("to(options) doesn't
  support converting to a different layout ..."), full / ones with a sparse COO layout ("full(...) is
  not implemented for sparse layout"), both before the other options and sizes.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
m = torch.empty(2, 3, device="meta")
i2 = torch.zeros(2, dtype=torch.long)
warnings.simplefilter("ignore")
def etype(f):
    e = err(f)
    return e and e[0]
def tail(f):   # an internal assert's message less its C++ location
    e = err(f)
    return e and (e[0], e[1].split('please report a bug to PyTorch. ')[-1])
def head(f):
    e = err(f)
    return e and (e[0], e[1].split(' This could')[0])
"""

cases("fuzz_ne5", {
    "accel_factories": "[head(f) for d in ['cuda', 'cuda:1', torch.device('xpu'), 'mps', 'lazy', 'privateuseone'] for f in ["
                       "lambda: A.zeros.default([2, 3], device=d), lambda: A.empty.memory_format([2], device=d), "
                       "lambda: A.empty_strided.default([2], [1], device=d), lambda: A.zeros_like.default(x, device=d), "
                       "lambda: A.randint_like.low_dtype(x, 1, 1, device=d), lambda: A.new_empty_strided.default(x, [2], [1], device=d), "
                       "lambda: A.arange.start_step(2, 1, 1, device=d), lambda: A.hann_window.periodic(3, False, device=d), "
                       "lambda: A.eye.m(2, 2, device=d), lambda: A.fft_rfftfreq.default(3, device=d), lambda: A.scalar_tensor.default(2, device=d), "
                       "lambda: A.normal.float_float(0., 1., [2], device=d), lambda: A.randperm.generator(3, generator=None, device=d), "
                       "lambda: A.tril_indices.default(2, 2, device=d), lambda: A.triu_indices.default(2, 2, device=d), "
                       "lambda: A._empty_affine_quantized.default([2], device=d), lambda: A._sparse_coo_tensor_with_dims.default(1, 1, [2, 3], device=d), "
                       "lambda: A.sparse_coo_tensor.size([2, 3], device=d), lambda: A.zeros([2], device=d), lambda: A.new_ones.default(x, [2], device=d)]]",
    "accel_keys_and_checks": "[head(f) for d in ['cuda', 'hip'] for f in ["
                             "lambda: A.zeros.default([2], device=d, dtype=torch.qint8), lambda: A.zeros.default([2], device=d, layout=torch.sparse_coo), "
                             "lambda: A.zeros.default([2], device=d, layout=torch.sparse_coo, dtype=torch.qint8), "
                             "lambda: A.empty_like.default(x, device=d, layout=torch.sparse_coo), lambda: A.empty_like.default(x, device=d, dtype=torch.quint8), "
                             "lambda: A._empty_affine_quantized.default([2], device=d, dtype=torch.qint8), "
                             "lambda: A.sparse_coo_tensor.size([2, 3], device=d, dtype=torch.qint8), lambda: A.zeros.default([-1], device=d), "
                             "lambda: A.ones.default([-1], device=d), lambda: A.empty.memory_format([-1], device=d), "
                             "lambda: A.linspace.default(0, 1, -1, device=d), lambda: A.logspace.default(0, 1, -2, device=d), "
                             "lambda: A.kaiser_window.default(-1, device=d), lambda: A.bartlett_window.periodic(-1, False, device=d), "
                             "lambda: A.randint.low(3, 1, [2], device=d), lambda: A.tril_indices.default(-1, 1, device=d), "
                             "lambda: A.zeros.default([2], None, None, d)]], "
                             "A.zeros.default([2], device='cpu'), A.zeros.default([2], device='meta').shape",
    "meta_fallback": "[head(f) for f in [lambda: A._ctc_loss.Tensor(x, x, x, m), lambda: A._ctc_loss_backward.Tensor(x, x, x, x, x, x, m, 1), "
                     "lambda: A._ctc_loss_backward.default(x, x, m, [1, 1], [1, 1], x, x, 1), lambda: A.multi_margin_loss_backward.default(x, x, m, 2, 2), "
                     "lambda: A.multi_margin_loss_backward.grad_input(x, x, x, 2, 2, grad_input=m), "
                     "lambda: A.multilabel_margin_loss_backward.grad_input(x, x, x, 1, x, grad_input=m), "
                     "lambda: A._fake_quantize_learnable_per_tensor_affine_backward.default(x, x, m, x, 1, 1), "
                     "lambda: A._nested_view_from_buffer.default(x, x, x, m), lambda: A._nested_tensor_from_mask.default(m, x.bool()), "
                     "lambda: A.histogram.bin_ct_out(x, hist=x, bin_edges=m), lambda: A.histogram.bins_tensor_out(x, x, hist=m, bin_edges=x), "
                     "lambda: A.quantize_per_tensor_dynamic.default(m, torch.float32, False), lambda: A._padded_dense_to_jagged_forward.default(m, [x, x]), "
                     "lambda: A._nested_compute_contiguous_strides_offsets.default(m), lambda: A.adaptive_avg_pool3d.out(m, [-1, 2], out=x), "
                     "lambda: A._fused_adagrad_.tensor_lr([m, x], [x, x], [x, x], [x, x], lr=x, lr_decay=2, weight_decay=2, eps=2, maximize=False), "
                     "lambda: A._fused_adam_.tensor_lr([x], [x], [x], [x], [x], [m], lr=x, beta1=2, beta2=2, weight_decay=2, eps=2, amsgrad=False, maximize=False), "
                     "lambda: A._fused_sgd_.default([x.long(), m], [x, x], [x, x], weight_decay=2, momentum=2, lr=2, dampening=2, nesterov=False, maximize=False, is_first_step=False), "
                     "lambda: A.segment_reduce.default(x, 'none', indices=m), lambda: A.segment_reduce.default(x, 'none', indices=x), "
                     "lambda: A.put_.default(x.clone(), i2.to('meta'), x[0, :2]), lambda: x.clone().put_(i2.to('meta'), x[0, :2]), "
                     "lambda: A.put.default(x, i2.to('meta'), x[0, :2]), lambda: A.embedding_renorm_.default(x.clone(), i2.to('meta'), 2., 2.), "
                     "lambda: A._amp_update_scale_.default(torch.ones(1), torch.ones(1, dtype=torch.int).to('meta'), torch.ones(1), 2., 0.5, 1)]], "
                     "[(r.device.type, r.shape) for r in [A.put_.default(m, x, x), A.embedding_renorm_.default(m, x, 2., 2.), "
                     "A._amp_update_scale_.default(torch.ones(1, device='meta'), x, x, 2., 0.5, 1)]]",
    "quantized_result_dtype": "[head(f) for q in [torch.qint8, torch.quint8, torch.qint32] for t in [x, m] for f in [lambda: A.sum.default(t, dtype=q), "
                              "lambda: A.sum.dim_IntList(t, [0], dtype=q), lambda: A.prod.dim_int(t, 0, dtype=q), lambda: A.cumsum.default(t, 0, dtype=q), "
                              "lambda: A.cumprod.default(t, 0, dtype=q), lambda: A.softmax.int(t, 0, q), lambda: A.log_softmax.int_out(t, 0, q, out=x.clone()), "
                              "lambda: A._safe_softmax.default(t, 0, dtype=q), lambda: A.softmax.int(t, 5, q), lambda: A.sum.dim_IntList(t, [5], dtype=q), "
                              "lambda: A.cumsum.default(t, 5, dtype=q), lambda: A.sum.default(t.long(), dtype=q), lambda: A.sum.default(t.to(torch.float8_e4m3fn), dtype=q), "
                              "lambda: A.cumsum.default(t.to(torch.uint16), 0, dtype=q), lambda: A.sum.default(t[0, :0], dtype=q)]] + "
                              "[head(f) for f in [lambda: A.sum.IntList_out(x, [0], dtype=torch.qint8, out=torch.zeros(3)), "
                              "lambda: x.clone().cumsum_(0, dtype=torch.qint8), lambda: A.mean.dim(x, [0], dtype=torch.qint8)]] + "
                              "[head(f) for f in [lambda: A._nested_tensor_from_tensor_list.default([x, x], dtype=torch.qint8), "
                              "lambda: A._nested_tensor_from_tensor_list.default([x, x + 1], dtype=torch.quint8)]], "
                              "etype(lambda: A.prod.default(x, dtype=torch.qint8)), etype(lambda: A.nansum.default(x, dtype=torch.qint8))",
    "renorm_float8": "[tail(f) for d in [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.complex32, torch.float16] "
                     "for f in [lambda: torch.renorm(x.to(d), 2, 0, 2), lambda: A.renorm.default(x.to(d), 1e20, 0, 2), lambda: x.to(d).renorm_(2, 0, 0), "
                     "lambda: torch.renorm(x.to(d), 2, 5, 2), lambda: torch.renorm(x.to(d), 2, 0, -0.5), lambda: torch.renorm(x.to(d), 2, 0, -1), "
                     "lambda: torch.renorm(x.to(d), -1, 0, 2), lambda: torch.renorm(x.to(d), 2, 0, 2, out=torch.zeros(2, 3)), "
                     "lambda: torch.renorm(torch.ones(3).to(d), 2, 0, 2)]]",
    "kernel_dtype_first": "t = lambda: x.clone(); s1 = lambda: [torch.tensor(1.), torch.tensor(1.)]; f8 = x.to(torch.float8_e4m3fn); "
                          "[err(f) for f in [lambda: A._fused_adagrad_.default([x.bool(), x.long()], [t(), t()], [t(), t()], s1(), lr=2, lr_decay=2, weight_decay=2, eps=2, maximize=False), "
                          "lambda: A._fused_adagrad_.default([t(), x.long()], [t(), t()], [t(), t()], s1(), lr=2, lr_decay=2, weight_decay=2, eps=2, maximize=False), "
                          "lambda: A._fused_adagrad_.default([x.long(), t()], [t()], [t(), t()], s1(), lr=2, lr_decay=2, weight_decay=2, eps=2, maximize=False), "
                          "lambda: A._fused_sgd_.default([x.long(), t()], [t(), t()], [t(), t()], weight_decay=2, momentum=2, lr=2, dampening=2, nesterov=False, maximize=False, is_first_step=False), "
                          "lambda: A._fused_sgd_.default([x.cfloat()], [t()], [t()], weight_decay=2, momentum=2, lr=2, dampening=2, nesterov=False, maximize=False, is_first_step=False), "
                          "lambda: A._fused_adam_.default([x.long()], [t()], [t()], [t()], [], [torch.tensor(1.)], lr=2, beta1=.9, beta2=.9, weight_decay=2, eps=2, amsgrad=False, maximize=False), "
                          "lambda: A._fused_adamw_.default([x.bool()], [t()], [t()], [t()], [], [torch.tensor(1.)], lr=2, beta1=.9, beta2=.9, weight_decay=2, eps=2, amsgrad=False, maximize=False), "
                          "lambda: A._fused_adagrad_.default([t()], [t()], [t()], [torch.tensor(1.)], lr=2, lr_decay=2, weight_decay=2, eps=2, maximize=False, grad_scale=torch.ones(1).double()), "
                          "lambda: A.norm.Scalar_out(f8, out=t()), lambda: A.norm.Scalar_out(f8, 0, out=f8.clone()), lambda: A.norm.Scalar(x.to(torch.float8_e5m2fnuz)), "
                          "lambda: A.norm.out(f8, 2, [0], False, out=t()), lambda: A.norm.ScalarOpt_dtype_out(f8, 2, dtype=torch.float32, out=t()), "
                          "lambda: A.norm.Scalar_out(f8[:0], out=t()), lambda: A.norm.Scalar_out(x.to(torch.uint16), out=t()), "
                          "lambda: A.mean.out(x, [0], out=torch.zeros(3, dtype=torch.uint16)), lambda: torch.mean(x, [0], out=torch.zeros(3, dtype=torch.uint64)), "
                          "lambda: A.mean.out(x, [0], out=torch.zeros(3, dtype=torch.long)), lambda: A.mean.out(x, [0], out=torch.zeros(3, dtype=torch.float8_e4m3fn)), "
                          "lambda: A.mean.out(x, [0], out=torch.zeros(3, dtype=torch.complex32)), lambda: A.mean.out(x, [5], out=torch.zeros(3, dtype=torch.uint16)), "
                          "lambda: A.mean.out(x[:, :0], [0], out=torch.zeros(0, dtype=torch.uint16)), lambda: A.mean.out(x, [0], dtype=torch.float32, out=torch.zeros(3, dtype=torch.uint16))]], "
                          "A.mean.out(x, [0], out=torch.zeros(3, dtype=torch.float64)), torch.norm(x)",
    "layouts_and_grad_dtype": "[err(f) for f in [lambda: A._to_copy.default(x, layout=torch.sparse_coo), lambda: A._to_copy.default(x, layout=torch.sparse_csr), "
                              "lambda: A._to_copy.default(x, layout=torch._mkldnn), lambda: A._to_copy.default(x, layout=torch.sparse_bsc, dtype=torch.qint8), "
                              "lambda: A._to_copy.default(x, layout=torch.sparse_coo, device='meta'), lambda: A._to_copy.default(m, layout=torch.sparse_coo), "
                              "lambda: A.to.dtype_layout(x, layout=torch.sparse_coo), lambda: A.to.dtype_layout(x, layout=torch.sparse_csr, dtype=torch.float64), "
                              "lambda: A.ones.default([2, 3], layout=torch.sparse_coo), lambda: A.ones.default([-1], layout=torch.sparse_coo), "
                              "lambda: A.full.default([2], 1j, dtype=torch.long, layout=torch.sparse_coo), lambda: torch.full([2], 2, layout=torch.sparse_coo), "
                              "lambda: torch.ones(2, layout=torch.sparse_coo, device='meta'), "
                              "lambda: A._log_softmax_backward_data.default(torch.tensor(1), x, 0, torch.float32), "
                              "lambda: A._log_softmax_backward_data.default(torch.arange(5), x, 0, torch.float32), "
                              "lambda: A._log_softmax_backward_data.default(torch.ones(3, 2).long(), x, 0, torch.float32), "
                              "lambda: A._log_softmax_backward_data.default(torch.ones(3, 2).long(), x, 5, torch.float32), "
                              "lambda: A._log_softmax_backward_data.default(torch.ones(3).bool(), x, 0, torch.float32), "
                              "lambda: A._softmax_backward_data.default(torch.ones(3, 2).long(), x, 0, torch.float32), "
                              "lambda: A._log_softmax_backward_data.default(x.long(), x, 0, torch.float32), "
                              "lambda: A._log_softmax_backward_data.out(torch.arange(6).reshape(2, 3), x, 0, torch.float32, out=x.clone()), "
                              "lambda: A.norm.Scalar(x.to(torch.float8_e4m3fn), 1j), lambda: A.norm.Scalar_out(x.to(torch.float8_e4m3fn), 1j, out=x.clone())]], "
                              "A._to_copy.default(x, layout=torch.strided).dtype, A._log_softmax_backward_data.default(x, x, 1, torch.float32)",
}, setup=SETUP)
