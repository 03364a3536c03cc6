"""More calls of the no-crash corpus ours accepted and upstream refuses (docs/breadth_more2.md "Fuzz
corpus exception types", "ours ok, upstream RuntimeError" and its neighbours): upstream's checks
reproduced with its messages, in the op owning each.

- set_: the devices of self and the storage must match (a meta self included); a geometry of self's
  own sizes (and strides, when given) must fit the storage as it is ("setStorage: ... out of
  bounds"), another one grows it; set_(tensor, offset, ...) takes a contiguous source's storage
  from the source's own offset on, whatever its dtype; the stride list's length is checked first.
- _cummax_helper / _cummin_helper: no Meta kernel; self's dtype dispatched (no unsigned 16/32/64),
  then values of self's dtype and Long indices, then the dim (a 0-dim self has none).
- constant_pad_nd fills with fill_'s conversion of value (overflow check; ComplexHalf through
  complex<float>), unless no pad is positive.
- out= dtypes: gather.out, diag.out, aminmax.out, softmax.int_out / log_softmax.int_out (the
  converted input's dtype) exactly ("Expected out tensor to have dtype ..."), after their dim
  checks; gather.out's overlap checks on out= as resized; masked_select.out's own dtype check and
  internal overlap first; conj_physical.out's "Found dtype ... but expected ..." and overlap.
- Scalar arguments converted by the kernels (overflow check): logit's eps (self's floating dtype,
  float for integral), softplus's beta / threshold and elu_backward's alpha / scales (opmath),
  hardshrink's lambd (self's dtype), softshrink's lambd (double, first), hardtanh's integral limits
  (int64, complex too), rrelu's bounds (double; finite, not for rrelu_), rrelu_with_noise's (complex: leaky_relu's
  complex slope; training: opmath); uniform_'s from / to within the dtype's range and to - from.
- lerp / addcmul / addcdiv on meta and CPU tensors: their meta functions (torch._meta_registrations)
  end in the references' elementwise_meta, refusing the devices mix in its words; lerp.Tensor's out=
  of the operands' shape must have self's dtype ("Found dtype ...").
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
st = lambda: torch.arange(6.).untyped_storage()
M = lambda: torch.empty(2, 3, device="meta")
"""

cases("fuzz_accept2", {
    "set_storage_bounds": "[err(g) for g in [lambda: x.clone().set_(st(), 1, [2, 3]), lambda: x.clone().set_(st(), 1, [2, 3], [3, 1]), "
                          "lambda: torch.ones(7).set_(st(), 1, [7]), lambda: x.clone().set_(st(), 2 ** 31, [2, 3]), "
                          "lambda: x.clone().set_(torch.UntypedStorage(0), 1, [2, 3]), lambda: x.clone().set_(st(), 0, [2, 3], [1]), "
                          "lambda: x.clone().t().set_(st(), 1, [2, 3])]], "
                          "[x.clone().set_(st(), *a).tolist() for a in [(0, [2, 3]), (0, [2, 2]), (1, [2, 2]), (1, [2, 3], [2, 1]), (1, [2, 0])]], "
                          "x.clone().set_(st(), 3, [2, 3]).untyped_storage().nbytes()",
    "set_source_tensor": "[err(g) for g in [lambda: x.clone().set_(x.t(), 1, [2, 3]), lambda: x.clone().set_(x.expand(2, 2, 3), 0, [2, 3]), "
                         "lambda: x.clone().set_(x[1:], 0, [2, 3]), lambda: x.clone().set_(x.long())]], "
                         "x.clone().set_(x.long(), 1, [2, 3]).shape, x.clone().set_(x.flatten()[2:], 0, [2]).tolist(), "
                         "A.set_.source_Tensor_storage_offset(x.clone(), torch.arange(6), 0, [3]).dtype",
    "set_devices": "[err(g) for g in [lambda: M().set_(st(), 0, [2, 3]), lambda: M().set_(x), lambda: x.clone().set_(M()), "
                   "lambda: A.set_.source_Storage(M(), st()), lambda: x.clone().set_(M(), 0, [2, 3])]], "
                   "M().set_(torch.empty(6, device='meta').untyped_storage(), 0, [2, 3]).shape",
    "cummax_helper_checks": "i = torch.zeros(2, 3, dtype=torch.long); "
                            "[err(lambda: f(*a)) for f in [A._cummax_helper, A._cummin_helper] for a in ["
                            "(x.bool(), x, i, 0), (x, x.bfloat16(), i, 0), (x, x, i.int(), 0), (x, x.half(), i, 5), "
                            "(x.to(torch.uint16), x.to(torch.uint16), i, 0), (x.cfloat(), x.half(), i, 0), "
                            "(torch.tensor(1.), torch.tensor(1.), torch.tensor(1), 0), (torch.tensor(1.), torch.tensor(1.), torch.tensor(1), -3), "
                            "(M(), x, i, 0), (x, x, M(), 0), (x, x, i, 5)]], "
                            "[(f(x, v := torch.empty(2, 3), j := i.clone(), 1), v.tolist(), j.tolist())[1:] for f in [A._cummax_helper, A._cummin_helper]]",
    "constant_pad_value_overflow": "[err(lambda: torch.constant_pad_nd(x.to(dt), p, v)) for dt, p, v in ["
                                   "(torch.half, [1, 1], 1e308), (torch.half, [1, 1], 1e20), (torch.bfloat16, [1, 1], 1j), (torch.uint8, [1, 1], float('nan')), "
                                   "(torch.int8, [0, 1], 300), (torch.complex32, [1, 1], 1e20), (torch.complex32, [1, 1], 1e308), "
                                   "(torch.half, [-1, 0], 1e308), (torch.half, [0, 0], 1e308), (torch.float8_e4m3fn, [1, 1], float('inf'))]], "
                                   "torch.nn.functional.pad(x.half(), [1, 1], value=2.0).tolist(), err(lambda: torch.nn.functional.pad(x.half(), [1, 0], value=1e10))",
    "out_dtype_exact": "i = torch.zeros(2, 3, dtype=torch.long); H = lambda *s: torch.empty(*(s or (2, 3)), dtype=torch.half); "
                       "[err(g) for g in [lambda: A.gather.out(x, 0, i, out=H()), lambda: A.gather.out(x, 5, i, out=H()), lambda: A.gather.out(x, 0, i.float(), out=H()), "
                       "lambda: A.gather.out(x, 0, i + 5, out=H()), lambda: A.gather.out(x.bool(), 0, i, out=x.clone()), lambda: A.gather.out(x, 0, i, out=x), "
                       "lambda: A.gather.out(x, 0, i, out=torch.tensor(1.).expand(2, 3)), "
                       "lambda: A.diag.out(x, out=H()), lambda: A.diag.out(x[0], out=H()), lambda: A.diag.out(x.to(torch.uint16), out=H()), lambda: A.diag.out(torch.ones(2, 2, 2), out=H()), "
                       "lambda: A.aminmax.out(x, min=H(), max=x.clone()), lambda: A.aminmax.out(x, min=x.clone(), max=H()), lambda: A.aminmax.out(x.cfloat(), min=H(), max=x.clone()), "
                       "lambda: A.aminmax.out(x, dim=5, min=H(), max=x.clone()), "
                       "lambda: A.softmax.int_out(x.half(), 0, out=x.clone()), lambda: A.softmax.int_out(x, 0, dtype=torch.half, out=x.clone()), "
                       "lambda: A.log_softmax.int_out(x.long(), 0, out=x.clone()), lambda: A.softmax.int_out(x.half(), 5, out=x.clone()), "
                       "lambda: A.masked_select.out(x.half(), x, out=x.clone()), lambda: A.masked_select.out(x.half(), x > 2, out=x.clone()), "
                       "lambda: A.masked_select.out(x, x > 2, out=torch.tensor(1.).expand(3)), "
                       "lambda: A.conj_physical.out(x.long(), out=x.clone()), lambda: A.conj_physical.out(x.cfloat(), out=x.clone()), "
                       "lambda: A.conj_physical.out(x, out=x.expand(2, 2, 3)[0])]], "
                       "A.gather.out(x, 0, i, out=torch.tensor(1.).expand(3)).tolist(), A.masked_select.out(x, x > 2, out=torch.empty(0)).tolist(), "
                       "A.softmax.int_out(x, 0, dtype=torch.double, out=x.double()).dtype",
    "kernel_scalar_overflow": "[err(g) for g in [lambda: torch.logit(x.half(), 1e20), lambda: torch.logit(x.long(), 1e39), lambda: torch.logit(x, 1e39, out=x.half()), "
                              "lambda: A.softplus(x.half(), 1e20), lambda: A.softplus(x.half(), 1, 1e39), lambda: A.softplus(x.long(), 1e39), "
                              "lambda: A.hardshrink(x.half(), 1e20), lambda: A.hardshrink(x.long(), 1e39), lambda: A.softshrink(x, 1j), lambda: A.softshrink(x.long(), 1j), "
                              "lambda: A.hardtanh(x.long(), 1j), lambda: A.hardtanh(x.long(), 1e300), "
                              "lambda: A.elu_backward(x.half(), 1e39, 1, 1, False, x.half()), "
                              "lambda: A.rrelu(x.half(), 1j), lambda: A.rrelu(x, float('-inf')), lambda: A.rrelu(x, 0.1, float('inf')), lambda: A.rrelu(x, float('nan')), "
                              "lambda: A.rrelu(x.long(), 1j), lambda: A.rrelu_with_noise(x.half(), x, 1j), lambda: A.rrelu_with_noise(x.half(), x, 0.1, 1e39), "
                              "lambda: A.rrelu_with_noise(x.long(), x, 1j), lambda: A.rrelu_with_noise(x, x, 0.1, 1e39, True), "
                              "lambda: x.cfloat().uniform_(float('nan')), lambda: x.half().uniform_(-1e6), lambda: x.clone().uniform_(0, float('inf')), "
                              "lambda: x.clone().uniform_(-3e38, 3e38), lambda: x.half().uniform_(-60000, 60000), lambda: x.double().uniform_(5, 1)]], "
                              "A.softplus(x.half(), 1e20).dtype, A.rrelu_with_noise(x.double(), x.double(), 0.1, 1e300).dtype, x.half().uniform_(-30000, 30000).dtype, "
                              "x.clone().rrelu_(float('-inf')).tolist(), err(lambda: x.clone().rrelu_(1j)), err(lambda: x.long().rrelu_(float('-inf')))",
    "lerp_addc_meta_and_out": "[err(g) for g in [lambda: torch.lerp(M(), x, 2), lambda: torch.lerp(x, M(), 0.5), lambda: torch.lerp(x, M(), x), "
                              "lambda: torch.addcmul(M(), x, x), lambda: torch.addcmul(x, x, M(), value=2), lambda: torch.addcdiv(x, M(), x), "
                              "lambda: A.lerp.Tensor_out(x, x, x, out=x.double()), lambda: A.lerp.Tensor_out(x.long(), x.long(), x.long(), out=x.clone()), "
                              "lambda: A.lerp.Tensor_out(torch.tensor(1), torch.tensor(1), torch.tensor(1), out=x.clone())]], "
                              "A.lerp.Scalar_out(x, x, 0.5, out=x.double()).dtype, torch.lerp(M(), M(), 0.5).device.type, torch.addcmul(M(), M(), torch.tensor(2.)).shape",
}, setup=SETUP)
