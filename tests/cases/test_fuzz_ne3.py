"""Exception types and messages of the no-crash corpus's "ours NotImplementedError, upstream
RuntimeError / IndexError" differences, third round, fixed in the op owning each check
(docs/breadth_more2.md "Fuzz corpus exception types, group ne (session 36)"); the corpus itself
compares every call's exception type (tests/test_no_crash.py).

- binary / unary pointwise ops of complex32 (which we refuse by name): the iterator's cast and
  out= checks first ("result type ComplexHalf can't be cast to ...", "Found dtype ...").
- a float8 tensor with a complex number: upstream's promotion has no complex float8 type.
- loss backwards' grad_input= in the one-dtype iterator; smooth_l1 / huber / bce / prelu broadcast
  and smooth_l1's reduction assert before the kernel's dtype refusal.
- sum / prod / mean / cumsum / cumprod / nansum with a dtype and out= (or in-place) of another dtype.
- std / var: a complex correction, the dims' wrap, float8's two kernel refusals.
- kthvalue's dim size and k, mode / nanmedian's dim wrap, before the dtype refusal.
- bernoulli_(p tensor): p expanded to self first; gcd / lcm: the written tensor's overlap first.
- unflatten / unfold of 32-dim tensors: upstream's size checks before our dimension limit.
- argmax / argmin / max / min .out, cummax / cummin .out, topk.values: out='s dtypes before the
  kernel's refusal (float8, uint16); heaviside.out: out= in its one-dtype and complex checks.
- random_(from, to) / randint of a bits dtype: the bounds checks' refusal by name; of float8: from < to.
- sort.values / argsort.stable_out / msort.out: the dim and out='s dtypes before the kernel's.
- bernoulli_(p tensor) of an expanded self: the internal overlap first.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
def T(dt, shape=(2, 3)):
    return torch.ones(shape).to(dt)
c32 = T(torch.complex32)
f8 = T(torch.float8_e4m3fn)
"""

cases("fuzz_ne3", {
    "complex32_pointwise_out": "[err(f) for f in [lambda: A.bitwise_and.Scalar_out(c32, -1, out=x.clone()), lambda: A.fmod.Scalar_out(c32, 2, out=x.clone()), "
                               "lambda: A.remainder.Scalar_out(c32, 2, out=x.clone()), lambda: A.copysign.Scalar_out(c32, 2, out=x.clone()), "
                               "lambda: A.bitwise_left_shift.Tensor_Scalar_out(c32, 1, out=x.clone()), lambda: A.xlogy.OutScalar_Other(c32, 2, out=x.clone()), "
                               "lambda: torch.xlogy(2, c32, out=x.clone()), lambda: A.pow.Tensor_Scalar_out(c32, -1, out=x.clone()), "
                               "lambda: torch.pow(2, c32, out=x.clone()), lambda: A.__ilshift__.Scalar(x.half(), 1j), "
                               "lambda: A.softplus.out(c32, out=x.clone()), lambda: A.round.decimals_out(c32, decimals=1, out=x.clone()), "
                               "lambda: A.logit.out(c32, eps=-1, out=x.clone())]]",
    "float8_complex_number": "[err(f) for f in [lambda: torch.result_type(f8, 1j), lambda: A.__lshift__.Scalar(f8, 1j), lambda: f8 + 1j, "
                             "lambda: torch.mul(f8, torch.tensor(1j)), lambda: f8 * torch.ones(2, 3, dtype=torch.complex64)]]",
    "loss_backward_grad_input": "b = T(torch.bool); d = x.double(); [err(f) for f in [lambda: A.binary_cross_entropy_backward.grad_input(b, b, b, b, grad_input=x.clone()), "
                                "lambda: A.huber_loss_backward.out(b, b, b, 1, 2.0, grad_input=x.clone()), "
                                "lambda: A.log_sigmoid_backward.grad_input(b, b, b, grad_input=x.clone()), "
                                "lambda: A.binary_cross_entropy_backward.grad_input(x, x, x, None, grad_input=d.clone()), "
                                "lambda: A.huber_loss_backward.out(x, x, x, 1, 2.0, grad_input=d.clone()), "
                                "lambda: A.log_sigmoid_backward.grad_input(d, x, x, grad_input=x.clone()), "
                                "lambda: A.log_sigmoid_backward.grad_input(x, x, x, grad_input=d.clone())]]",
    "loss_broadcast_reduction": "l = T(torch.int64); e = torch.zeros(0, dtype=torch.long); c = T(torch.complex64); [err(f) for f in [lambda: A.smooth_l1_loss(c, x, 3), "
                                "lambda: A.smooth_l1_loss(c, x, -1), lambda: A.smooth_l1_loss(c, x, 0), lambda: A.smooth_l1_loss(l, e), lambda: A.smooth_l1_loss(x, x, 3), "
                                "lambda: A.smooth_l1_loss(x, x, 3, 0.0), lambda: A.huber_loss(l, e), lambda: A.binary_cross_entropy(l, e), lambda: A.binary_cross_entropy(l, x), "
                                "lambda: A._prelu_kernel(l, e), lambda: A._prelu_kernel(x, torch.zeros(0))]], A.smooth_l1_loss(x, x, 0)",
    "reduction_dtype_out": "[err(f) for dt in [torch.float64, torch.bits8, torch.qint8] for f in [lambda: A.sum.IntList_out(x, [0], dtype=dt, out=x.clone()), "
                           "lambda: A.prod.int_out(x, 0, dtype=dt, out=x.clone()), lambda: A.cumsum.out(x, 0, dtype=dt, out=x.clone()), "
                           "lambda: A.cumprod.out(x, 0, dtype=dt, out=x.clone()), lambda: x.clone().cumsum_(0, dtype=dt), lambda: x.clone().cumprod_(0, dtype=dt), "
                           "lambda: A.nansum.out(x, [0], dtype=dt, out=x.clone()), lambda: A.mean.out(x, [0], dtype=dt, out=x.clone()), "
                           "lambda: A.sum.IntList_out(x, [5], dtype=dt, out=x.clone()), lambda: A.cumsum.out(x, 5, dtype=dt, out=x.clone())]], "
                           "A.sum.IntList_out(x, [0], dtype=torch.float64, out=torch.zeros(3, dtype=torch.float64)), A.cumsum.out(x, 0, out=x.double())",
    "std_var_order": "[err(f) for f in [lambda: A.std.correction(f8), lambda: A.var.correction(f8, dim=[0, 1]), lambda: A.std.correction(f8, dim=[1]), "
                     "lambda: A.std.correction(f8, correction=1j), lambda: A.var.correction(c32, correction=1j), lambda: A.std_mean.correction(f8, correction=1j), "
                     "lambda: A.var_mean.correction(f8), lambda: A.std.correction(f8, dim=[5]), lambda: A.std.correction_out(f8, out=x.clone()), "
                     "lambda: A.std.correction(T(torch.float8_e5m2, ()), dim=[]), lambda: A.std.correction(x, correction=2j)]], A.std.correction(x, correction=1 + 0j)",
    "select_dim_k_order": "b = T(torch.bool); c = T(torch.complex64); [err(f) for f in [lambda: A.kthvalue(b, -1), lambda: A.kthvalue(b, 4), "
                          "lambda: A.kthvalue(c, 7), lambda: A.kthvalue(T(torch.bool, (2, 0)), 1), lambda: A.kthvalue.values(b, -1, values=x.clone(), indices=x.long()), "
                          "lambda: A.mode(c, -3), lambda: A.mode(c, 2), lambda: A.mode(T(torch.complex64, ()), 1), lambda: A.nanmedian.dim(c, -3), "
                          "lambda: A.nanmedian.dim(T(torch.complex64, ()), -2), lambda: A.mode(c, 0), lambda: A.kthvalue(b, 1)]]",
    "bernoulli_gcd_order": "b = T(torch.bool); [err(f) for f in [lambda: A.bernoulli_.Tensor(torch.ones(5, 5), torch.ones(2, 3, dtype=torch.long)), "
                           "lambda: A.bernoulli_.Tensor(torch.ones(2, 3), torch.zeros(0, dtype=torch.long)), lambda: A.bernoulli_.Tensor(x.clone(), T(torch.int32)), "
                           "lambda: A.gcd_(torch.ones(1, 3).expand(2, 3), b), lambda: A.lcm_(torch.ones(1, 3).expand(2, 3), b), "
                           "lambda: A.gcd.out(x, x, out=x.clone()), lambda: A.gcd_(T(torch.int64), x)]]",
    "many_dims_checks": "d32 = torch.ones([1] * 32); b = T(torch.bool); [err(f) for f in [lambda: A.unfold(d32, 1, -1, 1), lambda: A.unfold(d32, 1, 1, 0), "
                        "lambda: A.unfold(d32, 1, 2, 1), lambda: A.unfold_copy(d32, 1, -3, 1), lambda: A.unflatten.int(b, 0, [1] * 32), "
                        "lambda: A.unflatten.int(b, 0, [3] * 40)]]",
    "out_dtype_before_kernel": "L = torch.zeros(2, 3, dtype=torch.long); u16 = T(torch.uint16); [err(f) for f in [lambda: A.argmax.out(f8, out=x.clone()), "
                               "lambda: A.argmin.out(f8, 0, out=x.clone()), lambda: A.max.dim_max(f8, 0, max=x.clone(), max_values=L.clone()), "
                               "lambda: A.min.dim_min(f8, 0, min=f8.clone(), min_indices=x.clone()), lambda: A.max.dim_max(x, 5, max=f8.clone(), max_values=L.clone()), "
                               "lambda: A.cummax.out(f8, 0, values=x.clone(), indices=L.clone()), lambda: A.cummin.out(u16, 0, values=x.clone(), indices=L.clone()), "
                               "lambda: A.cummax.out(u16, 0, values=u16.clone(), indices=L.clone()), lambda: A.topk.values(f8, 1, values=x.clone(), indices=L.clone()), "
                               "lambda: A.topk.values(u16, 1, values=u16.clone(), indices=L.clone()), lambda: A.topk.values(f8, 7, values=x.clone(), indices=L.clone()), "
                               "lambda: A.topk.values(T(torch.bool), 1, values=x.clone(), indices=x.clone()), "
                               "lambda: A.heaviside.out(f8, f8, out=x.clone()), lambda: A.heaviside.out(x, x, out=T(torch.complex64)), lambda: A.heaviside.out(x, x.double(), out=x.clone())]]",
    "random_bits_bounds": "[err(f) for f in [lambda: torch.randint(1, (2, 3), dtype=torch.bits8), lambda: A.randint_like.low_dtype(x, 1, 1, dtype=torch.bits8), "
                          "lambda: torch.empty(2, dtype=torch.bits8).random_(5), lambda: torch.empty(2, dtype=torch.bits16).random_(2, 1), "
                          "lambda: torch.empty(2, dtype=torch.bits8).random_()]]",
    "sort_random_bernoulli_order": "L = torch.zeros(2, 3, dtype=torch.long); c = T(torch.complex64); [err(f) for f in [lambda: A.sort.values(f8, values=x.clone(), indices=L.clone()), "
                                   "lambda: A.sort.values(f8, values=f8.clone(), indices=x.clone()), lambda: A.sort.values(f8, 5, values=x.clone(), indices=L.clone()), "
                                   "lambda: A.msort.out(f8, out=x.clone()), lambda: A.argsort.stable_out(f8, stable=False, out=x.clone()), "
                                   "lambda: A.sort.values(c, values=x.clone(), indices=L.clone()), lambda: A.msort.out(c, out=x.clone()), "
                                   "lambda: A.argsort.stable_out(T(torch.bool), stable=False, dim=7, out=x.clone()), lambda: A.msort.out(torch.ones(()), out=L.clone()), "
                                   "lambda: f8.clone().random_(1, 1), lambda: torch.randint(1, 1, (2, 3), dtype=torch.float8_e4m3fn), "
                                   "lambda: A.bernoulli_.Tensor(torch.ones(1, 3).expand(2, 3), T(torch.bool)), "
                                   "lambda: A.bernoulli_.Tensor(torch.ones(1, 3).expand(2, 3), torch.ones(5))]]",
}, setup=SETUP)
