"""Both sides refuse, with different exception types (the no-crash corpus's "rtother" kinds: ours
RuntimeError where upstream raises NotImplementedError / ValueError / ..., and the like): upstream's
order of checks, reproduced in the op owning each (docs/breadth_more2.md "Fuzz corpus exception
types"). Exception types and messages compared.

- multilabel_margin_loss forward / backward: the shapes (and is_target's), an empty input (returned
  unread), target in [-1, dim) over target's own dtype (min / max: "min_all" for complex and the
  dtypes without a reduction, item's int64 overflow for NaN), the input's dtype ("..._out_frame"),
  then the target's dtype (int64); backward: is_target in [0, 1], its dtype, then grad_output's
  size (a [nframe] vector without a reduction) and dtype; no Meta kernel.
- div / divide with an unknown rounding_mode on meta: upstream's Python reference refuses it first,
  ValueError "... but found none." (RuntimeError "... found 'none'" on CPU; divide.out_mode into a CPU
  out= a RuntimeError: upstream's out wrapper's device error, ours the rounding_mode's).
- _cdist_backward: x1's dtype ("cdist_backward"), then the others' against it, before anything reads grad
  or cdist; _embedding_bag_per_sample_weights_backward: grad's dtype before the mode.
- clamp / clip / clamp_min / clamp_max / hardtanh with number bounds: a dtype without a kernel is refused
  by upstream's kernel ("clamp_scalar_cpu", "clamp_min_scalar_cpu", "clamp_max_scalar_cpu") before the
  bounds are converted (their overflow); no bound at all on meta: the reference's ValueError.
- _fused_rms_norm: the input's dtype before any shape check; exponential_ / cauchy_: float8 passes the
  "continuous distribution" check, an empty tensor returns, then the kernel's dispatch refuses it.
- _to_sparse / _to_sparse_csr / csc / bsr / bsc of a dense meta tensor: upstream has no Meta kernel
  (whatever the other arguments); a sparse meta tensor converts.
- mse_loss: the broadcast, the reduction's internal assert, then the kernel's dtypes (floating only,
  "mse_cpu": integers and complex refused, not computed).
- fake_quantize_* (the cachemask kernels, the learnable ones), quantize_per_channel,
  _make_per_tensor / _make_per_channel_quantized_tensor with any meta argument: upstream has no Meta
  kernel, before any argument check (the composites name the kernel they reach).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
L = torch.ones(2, 3, dtype=torch.long)
"""

cases("fuzz_rtother2", {
    "multilabel_margin_order": "F = torch.ops.aten.multilabel_margin_loss_forward; "
                               "[err(lambda: F(s, t, 1)) for s, t in [(x.bfloat16(), x), (x.bfloat16(), torch.ones(2, 3)), "
                               "(x.bfloat16(), torch.ones(2, 3) * 3), (x, torch.ones(2, 3) * -1.5), (x, torch.full((2, 3), float('nan'))), "
                               "(x, torch.full((2, 3), 1e30)), (x, torch.ones(2, 3, dtype=torch.complex64)), (x, torch.ones(2, 3, dtype=torch.uint16)), "
                               "(x, torch.ones(2, 3, dtype=torch.bool)), (x.half(), L), (x.long(), L * 5), (x, L[:1]), (x, torch.ones(2, 3))]], "
                               "F(torch.empty(0, 3, dtype=torch.bfloat16), torch.empty(0, 3), 0), "
                               "F(x, L - 1, 0), F(x.double(), L, 1), torch.ops.aten.multilabel_margin_loss(x, L, 2)",
    "multilabel_margin_backward_order": "B = torch.ops.aten.multilabel_margin_loss_backward; g = torch.ones(2); "
                                        "[err(lambda: B(*a)) for a in [(g, x, L, 1, x[:1]), (g, x, L, 1, x), (g, x, L, 1, torch.ones(2, 3, dtype=torch.complex64)), "
                                        "(g, x, torch.ones(2, 3), 1, torch.ones(2, 3)), (g, x, L, 1, torch.ones(2, 3, dtype=torch.long)), "
                                        "(g, x, L, 1, torch.ones(2, 3).double()), (g.double(), x, L, 1, torch.ones(2, 3)), (torch.ones(3), x, L, 0, torch.ones(2, 3)), "
                                        "(torch.ones(2, 1), x, L, 0, torch.ones(2, 3)), (g, x.half(), torch.ones(2, 3), 1, torch.ones(2, 3)), "
                                        "(g, x.to('meta'), L.to('meta'), 1, x.to('meta'))]], "
                                        "B(g, torch.empty(0, 3), torch.empty(0, 3), 1, torch.empty(0, 3)), B(torch.ones(2), x, L, 1, torch.ones(2, 3)), "
                                        "B(torch.tensor([2., 5.]), x, L - 1, 0, (L - 1).clamp(min=0).float())",
    "div_rounding_mode_meta": "m = torch.ones(2, 3, device='meta'); "
                              "[err(f) for f in [lambda: torch.div(m, 2, rounding_mode='none'), lambda: m.div_(m, rounding_mode='x'), "
                              "lambda: torch.divide(m, 2., rounding_mode='none'), lambda: m.divide_(3, rounding_mode='none'), "
                              "lambda: torch.ops.aten.div.Scalar_mode(m, 1j, rounding_mode='none'), lambda: torch.divide(m, m, rounding_mode='none'), "
                              "lambda: torch.div(x, 2, rounding_mode='none'), lambda: torch.divide(x, x, rounding_mode='none')]], "
                              # types only: ours raises the rounding_mode's RuntimeError, upstream the out wrapper's device error
                              "[err(lambda: torch.ops.aten.divide.out_mode(m, o, rounding_mode='none', out=x.clone()))[0] for o in (x, m)], "
                              "torch.div(m, 2, rounding_mode='floor').shape",
    "cdist_backward_dtypes_first": "C = torch.ops.aten._cdist_backward; g = torch.ones(2, 2); "
                                   "[err(lambda: C(*a)) for a in [(x, x.half(), x, 2., x), (x.long(), x.long(), x.long(), 2., x.long()), (g, x.half(), x, 2., g), "
                                   "(g, x, x.half(), 2., g), (g, x, x, 2., g.half()), (g.half(), x, x, 2., g), (torch.ones(1), x, x, 2., g.half()), "
                                   "(g.t(), x.bool(), x, 2., g)]], C(g, x, x, 2., torch.cdist(x, x)), C(g, torch.ones(0, 3).half(), x, 2., g).shape",
    "embedding_bag_psw_backward_dtype_first": "P = torch.ops.aten._embedding_bag_per_sample_weights_backward; i = torch.tensor([0, 1, 0, 1]); "
                                              "o = torch.tensor([0, 2]); o2b = torch.tensor([0, 0, 1, 1]); "
                                              "[err(lambda: P(*a)) for a in [(x.bool(), x, i, o, o2b, 1), (x.bool(), x, x, x, x, 2), (x, x.bool(), i, o, o2b, 2), "
                                              "(x, x, x, x, x, 1), (x.to(torch.complex64), x, i, o, o2b, 0)]], P(x, x, i, o, o2b, 0)",
    "clamp_dtype_before_bounds": "f8 = torch.ones(2, 3, dtype=torch.float8_e4m3fn); u16 = torch.ones(2, 3, dtype=torch.uint16); "
                                 "[err(f) for f in [lambda: torch.clamp(f8, max=-float('inf')), lambda: torch.clamp(f8, min=1e20), lambda: torch.clamp(u16, max=-2**63), "
                                 "lambda: torch.clamp(u16, 1, 2 ** 63 - 1), lambda: f8.clamp_(max=float('inf')), lambda: torch.clamp_min(u16, 2 ** 63 - 1), "
                                 "lambda: torch.clamp_max(f8, 1e308), lambda: torch.clip(u16, None, 2), lambda: torch.ops.aten.hardtanh(f8, -1e20, 1e20), "
                                 "lambda: torch.clamp(torch.ones(2, 3, dtype=torch.uint64), 1, 2), lambda: torch.clamp(torch.ones(2, 3, dtype=torch.int8), 1, 300), "
                                 "lambda: torch.clamp(torch.ones(2, 3, dtype=torch.complex32), 1, 2)]], torch.clamp(x.char(), -1, 100)",
    "clamp_no_bound_meta": "m = torch.ones(2, 3, device='meta'); "
                           "[err(f) for f in [lambda: torch.ops.aten.clamp(m), lambda: torch.ops.aten.clamp_(m), lambda: torch.ops.aten.clip.Tensor(m), "
                           "lambda: torch.ops.aten.clip_(m), lambda: torch.ops.aten.clamp(x), lambda: torch.clamp(m)]], "
                           "err(lambda: torch.ops.aten.clip.out(m, out=x.clone()))[0], err(lambda: torch.ops.aten.clamp.out(m, out=x.clone()))",
    "fused_rms_norm_dtype_first": "R = torch.ops.aten._fused_rms_norm; "
                                  "[err(lambda: R(*a)) for a in [(x.long(), [1, 1], x, 2.), (torch.tensor(5), [1, 1], x, 2.), (x.long(), [5], x[0], 2.), "
                                  "(x.bool(), [3], None, 1e-5), (x.to(torch.complex32), [3], None, 2.), (x.long(), [5], None, 2.)]], "
                                  "torch.ops.aten.rms_norm(x, [3], x[0], 1e-5).shape, err(lambda: torch.ops.aten.rms_norm(x.long(), [1, 1], x, 2.))",
    "exponential_cauchy_float8": "[err(f) for f in [lambda: torch.ones(2, dtype=torch.float8_e5m2).exponential_(), "
                                 "lambda: torch.ones(2, dtype=torch.float8_e4m3fn).exponential_(lambd=float('inf')), "
                                 "lambda: torch.ones(2, dtype=torch.float8_e5m2).exponential_(lambd=-1), lambda: torch.ones(2, dtype=torch.long).exponential_(), "
                                 "lambda: torch.ones(2, dtype=torch.float8_e4m3fnuz).cauchy_(), lambda: torch.ones(2, dtype=torch.float8_e4m3fn).cauchy_(sigma=-1), "
                                 "lambda: torch.ones(2, dtype=torch.int8).cauchy_()]], "
                                 "torch.empty(0, dtype=torch.float8_e5m2).exponential_(), torch.empty(0, dtype=torch.float8_e4m3fnuz).cauchy_()",
    "to_sparse_dense_meta": "m = torch.ones(2, 3, device='meta'); "
                            "[err(f) for f in [lambda: m.to_sparse(), lambda: m.to_sparse(1), lambda: m.to_sparse_csr(), lambda: m.to_sparse_csc(), "
                            "lambda: m.to_sparse_bsr((1, 1)), lambda: m.to_sparse_bsc((-1, -1)), lambda: m.to_sparse(layout=torch.sparse_bsr, blocksize=(1, 1)), "
                            "lambda: torch.ops.aten._to_sparse(m, blocksize=[-1, -1]), lambda: torch.ops.aten._to_sparse.sparse_dim(m, -1), "
                            "lambda: torch.ops.aten._to_sparse_bsr(m, [1, 1], dense_dim=-1)]], x.to_sparse().to_dense(), x.to_sparse_csr().to_dense()",
    "mse_loss_dtypes": "M = torch.ops.aten.mse_loss; "
                       "[err(lambda: M(*a)) for a in [(x.short(), x.short(), 1), (x.long(), x.long(), 0), (x.byte(), x.byte(), 2), (x.to(torch.complex64), x, 1), "
                       "(x.long(), torch.tensor([], dtype=torch.long), 1), (x.bool(), torch.ones(3, 3, dtype=torch.bool), 5), (x.bool(), x.bool(), 5), (x.bool(), x.bool(), 0), (x, x, 5), "
                       "(torch.ones(2, 3, dtype=torch.uint16), torch.ones(2, 3, dtype=torch.uint16), 1)]], "
                       "err(lambda: torch.ops.aten.mse_loss.out(x.long(), x.long(), 1, out=torch.ones((), dtype=torch.int8))), "
                       "M(x.long(), x, 1), M(x.half(), x.half(), 2), torch.nn.functional.mse_loss(x, x.flip(0))",
    "quant_meta_no_kernel": "A = torch.ops.aten; m = torch.ones(2, 3, device='meta'); m1 = torch.ones(3, device='meta'); "
                            "z1 = torch.zeros(3, dtype=torch.int32); s1 = torch.ones(3); "
                            "[err(f) for f in [lambda: A.fake_quantize_per_tensor_affine(m, 2., -3, 1, 1), lambda: A.fake_quantize_per_tensor_affine(m, 1., 0, 0, 255), "
                            "lambda: A.fake_quantize_per_tensor_affine_cachemask(m, 1., 0, 5, 1), "
                            "lambda: A.fake_quantize_per_tensor_affine.tensor_qparams(m, torch.tensor(1.), torch.tensor(0), 0, 255), "
                            "lambda: A._fake_quantize_per_tensor_affine_cachemask_tensor_qparams(x, torch.tensor(1.), torch.tensor(0), m, 1, 1), "
                            "lambda: A.fake_quantize_per_channel_affine(x, x, m, 1, 1, 1), lambda: A.fake_quantize_per_channel_affine_cachemask(m, s1, z1, -1, 1, 1), "
                            "lambda: A._fake_quantize_learnable_per_tensor_affine(m, torch.tensor([1.]), torch.tensor([0.]), -1, 1), "
                            "lambda: A._fake_quantize_learnable_per_channel_affine(x, m1, s1, 1, 0, 255), lambda: A._make_per_tensor_quantized_tensor(m, 0., 1), "
                            "lambda: A._make_per_channel_quantized_tensor(m, s1, z1, 2), lambda: A.quantize_per_channel(m, x, x, -33, torch.quint8)]], "
                            "A.fake_quantize_per_tensor_affine(x, 0.1, 0, 0, 255), A.fake_quantize_per_channel_affine(x, s1, z1, 1, 0, 255)",
}, setup=SETUP)
