"""Fourth pass over the no-crash corpus's calls ours accepted and upstream refuses (docs/breadth_more2.md
"Fuzz corpus exception types", "ours ok, upstream refuses: fourth pass"): upstream's checks reproduced
with its messages, in the op owning each.

- No Meta kernel upstream: unique_consecutive / unique_dim(_consecutive) / _unique(2), equal,
  masked_select(.out), _masked_softmax(_backward), _logcumsumexp(.out), linalg_lstsq (named
  linalg_lstsq.out), dequantize.self, _fused_sgd_: a meta argument refuses before any other check;
  allclose with a meta operand: a second device refused, then item() on meta.
- Scalars the kernels convert: add / sub alpha into complex32, threshold_backward's threshold
  (opmath), logit_backward's eps (the computing dtype), logit's eps for uint16/32/64.
- soft_margin_loss_backward's mul_out into grad_input (self's dtype for the functional form).
- Kernels upstream does not build: logical_not (input and output dtypes), _conj_physical, std / var
  of a real input into a complex / float8 out=, nansum / nanmean into a non-floating result, ldexp of
  a floating self with a bool exponent; sum / prod into bool read the input as bool (x != 0).
- empty.out's memory_format, tril / triu_indices' pin_memory and order, squeeze.dims repeats on a
  0-dim tensor (size(d) / stride(d) of one refused), multinomial.out's out dtype, batch norm's 1-d running stats, linalg.norm's out= of
  the functional result's dtype exactly.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.1 + 0.2
M = lambda *s, dt=torch.float32: torch.empty(*(s or (2, 3)), device="meta", dtype=dt)
f8 = torch.float8_e4m3fn
"""

cases("fuzz_accept4", {
    "meta_no_kernel": "[err(g) for g in [lambda: torch.unique_consecutive(M()), lambda: A.unique_consecutive(M(), dim=33), "
                      "lambda: A.unique_dim(M(), 5), lambda: A.unique_dim_consecutive(M(), 0), lambda: A._unique(M()), lambda: A._unique2(M()), "
                      "lambda: torch.equal(M(), x), lambda: torch.equal(M(), torch.ones(5)), lambda: torch.masked_select(M(), x > 0.3), "
                      "lambda: A.masked_select.out(x, x > 0.3, out=M()), lambda: A.masked_select.out(M(), x > 0.3, out=torch.empty(0)), "
                      "lambda: A._masked_softmax(M(), x > 0.3), lambda: A._masked_softmax_backward(x, M(), x > 0.3), "
                      "lambda: A._logcumsumexp(M(), 9), lambda: A._logcumsumexp.out(M(), 0, out=torch.empty(0)), "
                      "lambda: torch.linalg.lstsq(M(), x), lambda: torch.linalg.lstsq(x, M()), lambda: A.dequantize.self(M()), "
                      "lambda: torch._fused_sgd_([M()], [x], [], weight_decay=0., momentum=0., lr=0.1, dampening=0., nesterov=False, maximize=False, is_first_step=False), "
                      "lambda: A._fused_sgd_.tensor_lr([x.clone()], [x], [], weight_decay=0., momentum=0., lr=torch.tensor(0.1), dampening=0., nesterov=False, maximize=False, is_first_step=False, grad_scale=M(1))]], "
                      "torch.equal(x, x.clone()), torch.unique_consecutive(torch.tensor([1, 1, 2])).tolist()",
    "allclose_meta": "[err(g) for g in [lambda: torch.allclose(M(), x), lambda: torch.allclose(x, M()), lambda: torch.allclose(M(), M()), "
                     "lambda: torch.allclose(M(), torch.tensor(1.)), lambda: torch.allclose(torch.tensor(1.), M()), lambda: torch.allclose(M(), x.double()), "
                     "lambda: torch.allclose(M()[:, :1], x), lambda: torch.allclose(x, M(), atol=-1), lambda: torch.allclose(M(), x, rtol=1e20), "
                     "lambda: torch.allclose(M()[:0], x[:0])]], torch.allclose(x, x + 1e-9)",
    "kernel_scalars": "c = torch.ones(2, 3, dtype=torch.complex32); "
                      "[err(g) for g in [lambda: A.add.Scalar(c, 2, alpha=1e20), lambda: A.add.Tensor(c, c, alpha=70000), lambda: A.sub_.Scalar(c.clone(), 2, alpha=-2**63), "
                      "lambda: A.rsub.Scalar(c, 2, alpha=1e5j), lambda: A.threshold_backward(x, x, 1e308), lambda: A.threshold_backward(x, x, 1j), "
                      "lambda: A.threshold_backward(x.to(torch.uint8), x.to(torch.uint8), 300), lambda: A.logit_backward(x, x, -1e308), "
                      "lambda: A.logit_backward(x.half(), x.half(), 1e5), lambda: A.logit_backward.grad_input(x, x, 1e308, grad_input=torch.empty(2, 3)), "
                      "lambda: torch.logit(torch.ones(2, dtype=torch.uint16), eps=1e308), lambda: torch.logit(torch.ones(2, dtype=torch.uint64), eps=-1e308)]], "
                      "A.add.Scalar(c, 2, alpha=65504).view(torch.float16).tolist(), A.add.Scalar(c, 1e20).view(torch.float16).tolist(), "
                      "A.threshold_backward(x.half(), x.half(), 1e5).tolist(), A.logit_backward(x.bfloat16(), x.bfloat16(), 1e5).dtype, "
                      "A.threshold_backward(x.long(), x.long(), 2.5).tolist()",
    "soft_margin_bwd_dtype": "[err(g) for g in [lambda: A.soft_margin_loss_backward(x, x.long(), x, 1), lambda: A.soft_margin_loss_backward(x, x.bool(), x, 1), "
                             "lambda: A.soft_margin_loss_backward(x, x, x.cfloat(), 1), lambda: A.soft_margin_loss_backward(x.cfloat(), x, x, 1), "
                             "lambda: A.soft_margin_loss_backward(x.long(), x.long(), x.long(), 1), lambda: A.soft_margin_loss_backward(x, x.long()[:, :1], x, 1), "
                             "lambda: A.soft_margin_loss_backward(x, x.long(), x.bool(), 1), "
                             "lambda: A.soft_margin_loss_backward.grad_input(x, x, x, 1, grad_input=torch.empty(2, 3, dtype=f8)), "
                             "lambda: A.soft_margin_loss_backward.grad_input(x.double(), x.double(), x.double(), 1, grad_input=torch.empty(0, dtype=f8)), "
                             "lambda: A.soft_margin_loss_backward.grad_input(x, x, x, 1, grad_input=torch.empty(2, 3, dtype=torch.long))]], "
                             "[(r.dtype, [[round(v, 3) for v in row] for row in r.float().tolist()]) for r in [A.soft_margin_loss_backward(x, x.half(), x, 1), "
                             "A.soft_margin_loss_backward(x, x, x.half(), 1), A.soft_margin_loss_backward(x.double(), x, x, 2), "
                             "A.soft_margin_loss_backward.grad_input(x, x, x, 1, grad_input=torch.empty(2, 3, dtype=torch.half))]]",
    "kernel_dtypes": "[err(g) for g in [lambda: torch.logical_not(x, out=torch.empty(2, 3, dtype=torch.complex32)), lambda: torch.logical_not(x[:0], out=torch.empty(0, dtype=f8)), "
                     "lambda: torch.logical_not(x, out=torch.empty(5, 3, dtype=torch.uint16)), lambda: torch.logical_not(x.to(torch.complex32)), "
                     "lambda: torch.logical_not(x.to(torch.uint64)), lambda: A._conj_physical(torch.ones(2, dtype=f8)), "
                     "lambda: A._conj_physical(torch.ones(0, dtype=torch.uint32)), lambda: torch.conj_physical(torch.ones(2, dtype=torch.uint16), out=torch.empty(2, dtype=torch.uint16)), "
                     "lambda: torch.std(x, dim=[0], out=torch.empty(3, dtype=torch.complex64)), lambda: torch.var(x.double(), dim=[0], out=torch.empty(3, dtype=torch.complex128)), "
                     "lambda: torch.var(x, dim=[1], out=torch.empty(0, dtype=f8)), lambda: torch.var(x, dim=[5], out=torch.empty(0, dtype=f8)), "
                     "lambda: torch.nansum(x, dtype=torch.complex128), lambda: torch.nansum(x, dtype=f8), lambda: torch.nansum(x, out=torch.empty(0, dtype=torch.long)), "
                     "lambda: torch.nansum(x, 0, out=torch.empty(0, dtype=torch.bool)), lambda: torch.nansum(x, [5], out=torch.empty(0, dtype=torch.long)), "
                     "lambda: torch.nanmean(x, dtype=torch.complex128), lambda: torch.nanmean(x, dim=[5], out=torch.empty(3, dtype=torch.long)), "
                     "lambda: torch.nanmean(x, dtype=torch.bfloat16, out=torch.empty(3)), lambda: torch.nanmean(x, dtype=torch.long, out=torch.empty(3, dtype=torch.long)), "
                     "lambda: torch.nanmean(x, out=torch.empty(3, dtype=torch.long)), lambda: torch.ldexp(x, x > 0.3), lambda: torch.ldexp(x[:0], x[:0] > 0.3), "
                     "lambda: torch.ldexp(x, (x > 0.3)[:, :2]), lambda: torch.ldexp(x, x > 0.3, out=torch.empty(2, 3, dtype=torch.double)), "
                     "lambda: torch.ldexp(x, x > 0.3, out=torch.empty(2, 3, dtype=torch.long)), lambda: x.clone().ldexp_(x > 0.3), "
                     "lambda: torch.tensor(1.5).ldexp_(x > 0.3), lambda: torch.ones(1, 3).expand(2, 3).ldexp_(x > 0.3)]], "
                     "torch.ldexp(x > 0.3, x.long()).tolist(), torch.ldexp(x.cfloat(), x > 0.3).dtype, "
                     "torch.logical_not(x, out=torch.empty(2, 3, dtype=torch.half)).tolist(), A._conj_physical(torch.ones(2, dtype=torch.long)).tolist(), "
                     "torch.conj_physical(torch.ones(2, dtype=torch.uint16)).tolist(), torch.var(x, out=torch.empty(0, dtype=torch.complex64)).dtype, "
                     "torch.var(x[:0], dim=[0], out=torch.empty(0, dtype=torch.complex64)).shape, torch.nansum(x, dtype=torch.long).item(), "
                     "torch.nansum(x, 0, dtype=torch.bool).tolist(), torch.nansum(x[:0], out=torch.empty(0, dtype=torch.long)).item(), "
                     "torch.sum(x, 0, dtype=torch.bool).tolist(), torch.prod(x * 0.1, dtype=torch.bool).item(), torch.sum(x.double(), dtype=torch.bool).item()",
    "factories_views": "T = [A.tril_indices.default, A.triu_indices.default]; s = torch.tensor(1.5); "
                       "[err(lambda: f(**k)) for f in T for k in [dict(row=2, col=2, pin_memory=True), dict(row=2, col=2, pin_memory=2), dict(row=2, col=2, pin_memory=0.5), "
                       "dict(row=2, col=2, pin_memory=1j), dict(row=2, col=2, pin_memory=True, dtype=torch.float), dict(row=-1, col=2, pin_memory=True), "
                       "dict(row=2**62, col=1, pin_memory=True), dict(row=2**62, col=1, dtype=torch.float), dict(row=2, col=2, dtype=torch.float)]], "
                       "[f(row=3, col=2, offset=-1, dtype=torch.int32).tolist() for f in T], A.tril_indices.default(2, 2, pin_memory=False).shape, "
                       "[err(g) for g in [lambda: A.empty.out([2, 3], memory_format=torch.channels_last, out=torch.empty(0)), "
                       "lambda: A.empty.out([-2, 3], memory_format=torch.contiguous_format, out=torch.empty(0)), "
                       "lambda: torch.empty([2, 3], memory_format=torch.preserve_format, out=torch.empty(0)), lambda: A.empty.out([-2, 3], out=torch.empty(0))]], "
                       "A.empty.out([2, 3], memory_format=None, out=torch.empty(0)).shape, "
                       "[err(g) for g in [lambda: A.squeeze.dims(s, [0, 0]), lambda: A.squeeze_.dims(s.clone(), [-1, -1]), lambda: A.squeeze_copy.dims(s, [0, -1]), "
                       "lambda: A.squeeze.dims(torch.ones(1, 2), [1, -1]), lambda: A.squeeze.dims(s, [1]), lambda: s.size(0), lambda: s.size(-1), "
                       "lambda: s.stride(1), lambda: s.stride(-2), lambda: x.size(2)]], s.size(), s.stride(), x.size(-1), x.stride(0), A.squeeze.dims(s, [0]).shape, A.squeeze.dims(s, []).shape",
    "multinomial_bn": "w = torch.ones(3); W = torch.ones(3, 1); [err(lambda: A.multinomial.out(p, n, out=o)) for p in [torch.ones(0, 3), torch.ones(3, 0), torch.ones(2, 3), torch.tensor(1.), torch.ones(2, 3).long(), "
                      "torch.ones(2, 1, 3), torch.ones(3)[::2]] for o in [torch.empty(2, 3), torch.empty(2, dtype=torch.int)] for n in [1, 0, 5]], "
                      "A.multinomial.out(torch.ones(2, 3), 2, out=torch.empty(0, dtype=torch.long)).shape, "
                      "[err(g) for g in [lambda: A.native_batch_norm(x, w, w, W.clone(), w.clone(), True, 0.1, 1e-5), "
                      "lambda: A.native_batch_norm(x, w, w, w.clone(), W.clone(), False, 0.1, 1e-5), lambda: A.native_batch_norm(x, w, w, torch.ones(3, 1, 1), W.clone(), True, 0.1, 1e-5), "
                      "lambda: A.native_batch_norm(x.reshape(2, 3, 1), w, w, W.clone(), w.clone(), True, 0.1, 1e-5), "
                      "lambda: A._native_batch_norm_legit_no_training(x, w, w, W.clone(), w.clone(), 0.1, 1e-5), "
                      "lambda: torch.batch_norm(x, w, w, W.clone(), w.clone(), True, 0.1, 1e-5, False), "
                      "lambda: A.native_batch_norm(x.double(), w, w, W.clone(), W.clone(), True, 0.1, 1e-5), "
                      "lambda: A.native_batch_norm(x[:0], w, w, W.clone(), w.clone(), True, 0.1, 1e-5)]], "
                      "[t.shape for t in A.native_batch_norm(x, W, W, w.clone(), w.clone(), True, 0.1, 1e-5)]",
    "linalg_norm_out": "[err(lambda: torch.linalg.norm(x.to(d), o, out=torch.empty(0, dtype=od))) for d in [torch.half, torch.bfloat16, torch.float] "
                       "for o in [None, 2, float('inf'), -1, 'fro'] for od in [torch.float, torch.double]], "
                       "[torch.linalg.norm(x.to(d), o, dim=1, out=torch.empty(0, dtype=d)).tolist() for d in [torch.float, torch.double] for o in [None, float('inf'), -1]], "
                       "torch.linalg.norm(x, 'fro', out=torch.empty(5)).shape, round(A.linalg_norm.out(x, 2, out=torch.empty(0)).item(), 5)",
}, setup=SETUP)
