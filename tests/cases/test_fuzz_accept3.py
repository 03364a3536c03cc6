"""Third pass over the no-crash corpus's calls ours accepted and upstream refuses (docs/breadth_more2.md
"Fuzz corpus exception types", "ours ok, upstream refuses: third pass"): upstream's checks reproduced
with its messages, in the op owning each.

- Memory overlap of the written-to tensor: sort / topk / msort / argsort out= as resized (values and
  indices; sort's values against self too); the loss ops' out= as given, before their shape and dtype
  checks (smooth_l1 / huber / bce and backwards, mse / log_sigmoid / soft_margin backward);
  log_sigmoid_forward.output after resize_as_ and its exact dtypes; cumsum / cumprod in place and out=;
  mean / logsumexp / softmax / renorm / normal / _standard_gamma out= as resized (an out of another
  shape is resized, so passes); median-like values; scatter_ / scatter_add_ / masked_scatter_ /
  fill_.Tensor in place; as_strided_scatter's zero-stride view.
- var / std correction= through toDouble() (a complex with an imaginary part refused; the meta
  decomposition's ValueError); std_var_all's half / bfloat16 refusal into a float out=.
- norm / linalg.vector_norm of a float8 input with another dtype (float8 promotion refused).
- heaviside: out= takes part in its dtype checks; logsumexp(dim=[]) without keepdim refused.
- adaptive_avg_pool2d.out: its CPU kernel's input checks; clamp of bool; cumsum_ of bool.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.1 + 0.2
X = lambda: torch.arange(6.).reshape(2, 3) * 0.1 + 0.2
E = lambda: torch.ones(1, 3).expand(2, 3)
E0 = lambda: torch.tensor(1.0).expand(3)
ED = lambda: torch.ones(1, 3, dtype=torch.double).expand(2, 3)
EL = lambda: torch.ones(1, 3, dtype=torch.long).expand(2, 3)
I = lambda: torch.empty(2, 3, dtype=torch.long)
M = lambda *s, dt=torch.float32: torch.empty(*(s or (2, 3)), device="meta", dtype=dt)
"""

cases("fuzz_accept3", {
    "sort_topk_out_overlap": "y = torch.arange(8.); "
                             "[err(g) for g in [lambda: torch.sort(x, out=(E(), I())), lambda: torch.sort(x, out=(X(), torch.empty(1, 3, dtype=torch.long).expand(2, 3))), "
                             "lambda: torch.topk(x, 3, out=(E(), I())), lambda: torch.msort(x, out=E()), "
                             "lambda: torch.argsort(x, stable=True, out=torch.empty(1, 3, dtype=torch.long).expand(2, 3)), "
                             "lambda: torch.sort(y[:4], out=(y[1:5], torch.empty(4, dtype=torch.long))), lambda: torch.msort(y[:4], out=y[1:5]), "
                             "lambda: torch.sort(x, out=(ED(), I())), lambda: torch.sort(x, 5, out=(E(), I())), "
                             "lambda: A.median.dim_values(x, 0, values=E0(), indices=torch.empty(3, dtype=torch.long))]], "
                             "[r.tolist() for r in torch.sort(x, out=(torch.ones(1, 3).expand(3, 3), I()))], "
                             "torch.topk(x, 2, out=(E(), I()))[0].tolist(), (lambda z: torch.sort(z, out=(z, I()))[0].tolist())(X())",
    "loss_out_overlap": "[err(lambda: f(o)) for f in [lambda o: A.smooth_l1_loss.out(x, x, out=o), lambda o: A.huber_loss.out(x, x, 0, out=o), "
                        "lambda o: A.huber_loss_backward.out(x, x, x, 1, 2., grad_input=o), lambda o: A.smooth_l1_loss_backward.grad_input(x, x, x, 1, 0., grad_input=o), "
                        "lambda o: A.mse_loss_backward.grad_input(x, x, x, 1, grad_input=o), lambda o: A.binary_cross_entropy_backward.grad_input(x, x, x, grad_input=o), "
                        "lambda o: A.binary_cross_entropy.out(x, x, out=o), lambda o: A.soft_margin_loss_backward.grad_input(x, x, x, 1, grad_input=o), "
                        "lambda o: A.log_sigmoid_backward.grad_input(x, x, x, grad_input=o), "
                        "lambda o: A.smooth_l1_loss.out(x, torch.ones(3, 2), 0, out=o), lambda o: A.soft_margin_loss_backward.grad_input(x, x, torch.ones(3, 2), 1, grad_input=o)] "
                        "for o in [E(), E0(), EL()]], "
                        "[err(lambda: f(z)) for f in [lambda z: A.huber_loss.out(z, X(), out=z[0]), lambda z: A.mse_loss_backward.grad_input(X(), z, X(), 1, grad_input=z.t()), "
                        "lambda z: A.soft_margin_loss_backward.grad_input(X(), X(), z, 1, grad_input=z[0])] for z in [X()]], "
                        "(lambda z: A.mse_loss_backward.grad_input(X(), z, X(), 1, grad_input=z).tolist())(X())",
    "log_sigmoid_forward_outs": "B = lambda: torch.empty(2, 3); "
                                "[err(g) for g in [lambda: A.log_sigmoid_forward.output(x, output=E(), buffer=B()), lambda: A.log_sigmoid_forward.output(x, output=ED(), buffer=B()), "
                                "lambda: A.log_sigmoid_forward.output(x, output=B(), buffer=B().long()), lambda: A.log_sigmoid_forward.output(x, output=E0(), buffer=B())]], "
                                "(lambda o: A.log_sigmoid_forward.output(x, output=o, buffer=o)[0].shape)(E()), "
                                "(lambda z: A.log_sigmoid_forward.output(z, output=z.view(-1)[1:4].view(1, 3), buffer=B())[0].shape)(torch.arange(7.)[:6].view(2, 3))",
    "inplace_and_out_overlap": "i = torch.tensor([[0, 1, 0], [1, 0, 1]]); "
                               "[err(lambda: f(o)) for f in [lambda o: A.cumsum.out(x, 0, out=o), lambda o: A.cumprod_(o, 0), lambda o: A._logcumsumexp.out(x, 0, out=o), "
                               "lambda o: A.logcumsumexp.out(x, 0, out=o), lambda o: A.softmax.int_out(x, 0, out=o), lambda o: A.mean.out(x, [0], out=o), "
                               "lambda o: A.logsumexp.out(x, [0], out=o), lambda o: A.renorm.out(x, 2, 0, 2, out=o), lambda o: A.renorm_(o, 2, 0, 2), "
                               "lambda o: A._standard_gamma_grad.out(x, x, out=o), lambda o: A.binomial.out(x, x, out=o), "
                               "lambda o: A.scatter_.value(o, 0, i, 2), lambda o: A.scatter_add_(o, 0, i, x), lambda o: A.scatter_.value(o, 0, torch.tensor([], dtype=torch.long), 2), "
                               "lambda o: A.masked_scatter_(o, x > 0.4, torch.ones(2)), lambda o: A.fill_.Tensor(o, torch.tensor(3)), "
                               "lambda o: A.as_strided_scatter(o.clone(), x, [2, 3], [1, 0])] for o in [E(), E0(), ED()]], "
                               "A.normal.Tensor_float_out(x, 0., out=E0()).shape, A.select_scatter(E(), torch.ones(3), 0, 0).tolist(), A.fill_.Scalar(E(), 3).tolist(), "
                               "err(lambda: torch.select_scatter(x, torch.ones(2), 0, 0))",
    "var_std_correction": "[err(g) for g in [lambda: A.var.correction(x, correction=1j), lambda: A.var.correction(x, [5], correction=1j), "
                          "lambda: A.var.correction(x.long(), correction=1j), lambda: A.std_mean.correction(x.cfloat(), correction=1j), "
                          "lambda: torch.std(x, correction=torch.tensor(1 + 2j)), lambda: A.var.correction_out(x, correction=1j, out=torch.empty(0, dtype=torch.long)), "
                          "lambda: A.var.correction(M(), correction=1j), lambda: A.var.correction(M(), correction=1 + 0j)]], "
                          "A.var.correction(x, correction=1 + 0j).item(), A.var.correction(x, correction=True).item()",
    "std_var_all_half_out": "[err(g) for g in [lambda: torch.std(x.half(), out=torch.empty(3)), lambda: torch.var(x.bfloat16(), correction=2, out=torch.empty(3, dtype=torch.double)), "
                            "lambda: torch.var(x.half(), out=torch.empty(3, dtype=torch.long)), lambda: torch.var(x.half()[:1], 1, out=torch.empty(0))]], "
                            "torch.std(x.half(), out=torch.empty(3, dtype=torch.half)).item(), torch.std(x.half(), dim=0, out=torch.empty(3)).shape, "
                            "torch.var(x.half()[:0], out=torch.empty(3)).shape",
    "norm_float8_dtype": "f8 = x.to(torch.float8_e4m3fn); "
                         "[err(g) for g in [lambda: torch.norm(f8, p=2, dtype=torch.float32), lambda: A.norm.ScalarOpt_dim_dtype(f8, 2, [0], dtype=torch.float64), "
                         "lambda: A.norm.dtype_out(f8, 2, [0], False, dtype=torch.float32, out=torch.empty(3, dtype=torch.long)), "
                         "lambda: torch.linalg.vector_norm(f8, dim=5, dtype=torch.float32), lambda: torch.linalg.vector_norm(f8, dtype=torch.float8_e5m2), "
                         "lambda: torch.linalg.vector_norm(f8, dtype=torch.int64), lambda: torch.linalg.vector_norm(f8[:0], ord=-1, dtype=torch.float32), "
                         "lambda: torch.linalg.vector_norm(M(dt=torch.float8_e4m3fn), dtype=torch.float32), lambda: A.norm.ScalarOpt_dim_dtype(f8, 2, [5], dtype=torch.float32)]]",
    "heaviside_logsumexp": "[err(g) for g in [lambda: A.heaviside.out(x, x, out=torch.empty(2, 3, dtype=torch.double)), lambda: A.heaviside.out(x.long(), x.long(), out=torch.empty(2, 3)), "
                           "lambda: A.heaviside.out(x, x, out=torch.empty(2, 3, dtype=torch.cdouble)), lambda: A.heaviside(x, x.double()), "
                           "lambda: A.heaviside.out(x, torch.ones(3, 2), out=torch.empty(2, 3, dtype=torch.double)), "
                           "lambda: A.logsumexp(x, []), lambda: A.logsumexp(torch.ones(7), []), lambda: A.logsumexp(x.long(), []), "
                           "lambda: A.logsumexp.out(x, [], out=torch.empty(0))]], "
                           "A.heaviside.out(x, x, out=torch.empty(2, 3)).tolist(), A.logsumexp(x, [], True).shape, A.logsumexp(torch.tensor(1.5), []).item(), "
                           "A.logsumexp(torch.empty(0, 3), []).shape, A.logsumexp(x, [0]).shape",
    "pool_clamp_scan_bool": "b = x > 0.4; "
                            "[err(g) for g in [lambda: A.adaptive_avg_pool2d.out(x, [1, 1], out=torch.empty(2, 3)), lambda: A.adaptive_avg_pool2d.out(torch.ones(3), [1, 1], out=torch.empty(2)), "
                            "lambda: A.adaptive_avg_pool2d.out(torch.ones(2, 0, 3), [1, 1], out=torch.empty(2)), lambda: A.adaptive_avg_pool2d.out(x, [1, 1, 1], out=torch.empty(2)), "
                            "lambda: A.adaptive_avg_pool2d.out(torch.ones(1, 1, 1, 1, 1), [1, 1], out=torch.empty(2)), lambda: A.adaptive_avg_pool2d.out(M(), [1, 1], out=torch.empty(2)), "
                            "lambda: torch.clamp(b, min=True), lambda: torch.clamp(b, max=True), lambda: torch.clamp(b, True, True), lambda: torch.clamp(b, min=b, max=b), "
                            "lambda: b.clone().clamp_(min=True), lambda: torch.clamp_max(b, True), lambda: A.clamp.Tensor_out(b, b, b, out=torch.empty(2, 3)), "
                            "lambda: b.clone().cumsum_(0), lambda: b.clone().cumprod_(1), lambda: torch.cumsum(x, 0, dtype=torch.bool)]], "
                            "A.adaptive_avg_pool2d.out(x[None], [1, 1], out=torch.empty(1, 1, 1)).tolist(), A.adaptive_avg_pool2d(x, [1, 1]).shape, "
                            "torch.clamp_min(b, b).tolist(), torch.clamp(b, min=0.5).dtype, torch.cumsum(b, 0).tolist(), "
                            "torch.clamp(M(dt=torch.bool), min=True).shape, M(dt=torch.bool).cumsum_(0).shape",
}, setup=SETUP)
