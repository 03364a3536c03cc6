"""Fifth pass over the no-crash corpus's calls ours accepted and upstream refuses (docs/breadth_more2.md
"Fuzz corpus exception types", "ours ok, upstream refuses: fifth pass"): upstream's checks reproduced
with its messages, in the op owning each.

- Meta and CPU mixed: the _foreach_ in-place loops reach each per-tensor op's Meta kernel (a
  reference's device check for pow_ / clamp_min_ / lerp_ / addcmul_ ..., none for add_ / mul_;
  copy_ of a meta src); the in-place composite aliases check as their targets (greater_ -> gt_,
  arctan2_, clip_; divide_ does not).
- linear with a bias where upstream takes addmm (its dtype / matrix / shape / out= / expand checks)
  and linear.out's add_ of the bias; bce's out= forms multiply the weight into out= at its shape.
- On meta, the references' Scalar type check of elu / leaky_relu / softplus / rsub, softshrink's
  comparison of lambd.
- Sparse: numel as unsigned 64-bit (negative sizes refused unless a 0 comes first); dense to COO of
  uint16+ / float8 and to CSR / CSC of uint16+ refused by upstream's kernel names.
- gelu_backward's oneDNN path (contiguous float32 self of more than one element).
- masked_select.out and linalg_cross.out overlap checks (after out='s resize for linalg_cross).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3) * 0.1 + 0.2
T = lambda *s: torch.ones(*(s or (2, 3)))
M = lambda *s, dt=torch.float32: torch.ones(*(s or (2, 3)), device="meta", dtype=dt)
"""

cases("fuzz_accept5", {
    "foreach_inplace_meta": "a = [x.clone(), x.clone() + 1]; torch._foreach_maximum_(a, [x + 0.5, x]); torch._foreach_lerp_(a, [x, x], 0.5); "
                            "[err(g) for g in [lambda: A._foreach_addcdiv_.Scalar([M(), T()], [T(), T()], [T(), T()]), "
                            "lambda: A._foreach_addcdiv_.Scalar([T(), M()], [T(), T()], [T(), T()]), lambda: A._foreach_addcdiv_.Scalar([T(), T()], [M(), T()], [T(), T()]), "
                            "lambda: A._foreach_addcdiv_.Scalar([T(), T()], [T(), T()], [M(), T()]), lambda: A._foreach_addcdiv_.Scalar([M(), M()], [M(), M()], [M(), M()]), "
                            "lambda: A._foreach_addcmul_.Tensor([M(), T()], [T(), T()], [T(), T()], torch.ones(2)), "
                            "lambda: A._foreach_addcmul_.ScalarList([M(), T()], [T(), T()], [T(), T()], [1, 2]), "
                            "lambda: A._foreach_add_.List([M(), T()], [T(), T()]), lambda: A._foreach_mul_.List([T(), T()], [M(), T()]), "
                            "lambda: A._foreach_maximum_.List([M(), M()], [T(), T()]), lambda: A._foreach_minimum_.List([T(), T()], [T(), M()]), "
                            "lambda: A._foreach_clamp_max_.List([M(), T()], [T(), T()]), lambda: A._foreach_clamp_max_.Scalar([M(), T()], 2), "
                            "lambda: A._foreach_clamp_min_.List([T(), T()], [M(), T()]), lambda: A._foreach_pow_.List([T(), T()], [M(), T()]), "
                            "lambda: A._foreach_pow_.Scalar([M(), T()], 2), lambda: A._foreach_lerp_.Scalar([M(), T()], [T(), T()], 2), "
                            "lambda: A._foreach_lerp_.List([T(), T()], [T(), T()], [M(), T()]), lambda: A._foreach_exp_([M(), T()]), "
                            "lambda: A._foreach_copy_([T(), T()], [M(), T()]), lambda: A._foreach_copy_([M(), T()], [T(), T()]), "
                            "lambda: torch._foreach_maximum_([M(), T()], [T(), T()]), lambda: torch._foreach_lerp_([M(), T()], [T(), T()], [T(), T()]), "
                            "lambda: A._foreach_addcdiv.Scalar([M(), T()], [T(), T()], [T(), T()])]], "
                            "[[[round(v, 5) for v in r] for r in t.tolist()] for t in a]",
    "inplace_alias_meta": "[err(lambda: f(a, b)) for f in [A.greater_.Tensor, A.greater_equal_.Tensor, A.less_.Tensor, A.less_equal_.Tensor, "
                          "A.not_equal_.Tensor, A.arctan2_.default, A.divide_.Tensor, A.multiply_.Tensor, A.subtract_.Tensor, A.gt_.Tensor] "
                          "for a, b in [(T(), M()), (M(), T())]], "
                          "[err(g) for g in [lambda: A.clip_.Tensor(T(), M()), lambda: A.clip_.Tensor(T(), None, M()), lambda: A.clip_.Tensor(M(), T()), "
                          "lambda: torch.clip_(T(), min=M()), lambda: T().greater_(M()), lambda: T().arctan2_(M()), lambda: A.greater_.Tensor(M(), torch.tensor(1.))]], "
                          "x.clone().greater_(x.flip(0)).tolist(), x.clone().clip_(x.flip(1)).tolist()",
    "linear_bias": "b5 = torch.ones(5, dtype=torch.long); w = x.flip(0); "
                   "[err(g) for g in [lambda: A.linear.default(x, w, b5), lambda: A.linear.default(x, w, torch.tensor(3)), "
                   "lambda: A.linear.default(x, w, torch.ones([1] * 20)), lambda: A.linear.default(x, w, torch.ones(5)), "
                   "lambda: A.linear.default(x, w, torch.ones(3, 2, 2)), lambda: A.linear.default(torch.ones(7), torch.ones(7), torch.ones(7)), "
                   "lambda: A.linear.default(torch.ones(0), torch.ones(0), torch.ones(0)), lambda: A.linear.default(torch.ones(3), w, torch.ones(2).long()), "
                   "lambda: A.linear.default(torch.ones(2, 2, 3), w, torch.ones(2).long()), lambda: A.linear.default(torch.ones(2, 2, 3), w, torch.ones(1, 1, 2)), "
                   "lambda: A.linear.default(torch.ones(1, 2, 2, 3), w, torch.ones(2).long()), lambda: A.linear.default(x, w, torch.ones(2).double()), "
                   "lambda: A.linear.default(x, w.double(), torch.ones(2).double()), lambda: A.linear.default(x, torch.ones(2, 2), torch.ones(2)), "
                   "lambda: torch.nn.functional.linear(x, w, b5), lambda: A.linear.out(x, w, b5, out=torch.empty(0)), "
                   "lambda: A.linear.out(x, w, torch.ones([1] * 20), out=torch.empty(0)), lambda: A.linear.out(torch.ones(7), torch.ones(7), torch.ones(7), out=torch.empty(0)), "
                   "lambda: A.linear.out(torch.ones(2, 2, 3), w, torch.ones(3, 2, 2), out=torch.empty(0)), "
                   "lambda: A.linear.out(x.cfloat(), w.cfloat(), torch.ones(2, 3).cfloat(), out=torch.empty(0)), "
                   "lambda: A.linear.out(x.cfloat(), w.cfloat(), torch.ones(2, 3).cfloat(), out=torch.empty(2, 3))]], "
                   "[[round(v, 4) for v in r.flatten().tolist()] for r in [A.linear.default(x, w, torch.ones(2)), A.linear.default(torch.ones(2, 2, 3), w, torch.ones(2)), "
                   "A.linear.default(torch.ones(3), w, torch.ones(1)), A.linear.default(torch.ones(1, 2, 2, 3), w, torch.ones(2, 2)), "
                   "A.linear.out(torch.ones(2, 2, 3), w, torch.ones(2).long(), out=torch.empty(0)), A.linear.out(torch.ones(7), torch.ones(7), torch.tensor(2.), out=torch.empty(0)), "
                   "A.linear.out(torch.ones(3), w, torch.ones(2), out=torch.empty(0))]]",
    "bce_out_weight": "h = lambda *s: torch.full(s, 0.5); "
                      "[err(g) for g in [lambda: A.binary_cross_entropy.out(h(2, 3), h(2, 3), h(2, 3), out=torch.empty(0)), "
                      "lambda: A.binary_cross_entropy.out(h(0, 3), h(0, 3), h(0, 3), out=h(2, 3)), lambda: A.binary_cross_entropy.out(h(3, 2), h(3, 2), h(3, 2), out=h(2, 3)), "
                      "lambda: A.binary_cross_entropy.out(h(2, 3), h(2, 3), h(1, 2, 3), out=h(2, 3)), lambda: A.binary_cross_entropy.out(h(0, 3), h(0, 3), h(0, 3), 1, out=h(2, 3)), "
                      "lambda: A.binary_cross_entropy.out(h(2, 3), h(2, 3), h(2, 3), out=h(6)), "
                      "lambda: A.binary_cross_entropy_backward.grad_input(h(0, 3), h(0, 3), h(0, 3), h(0, 3), grad_input=h(2, 3)), "
                      "lambda: A.binary_cross_entropy_backward.grad_input(h(2, 3), h(2, 3), h(2, 3), h(2, 3), grad_input=torch.empty(0)), "
                      "lambda: A.binary_cross_entropy_backward.grad_input(h(0, 3), h(0, 3), h(0, 3), h(0, 3), 1, grad_input=h(2, 3))]], "
                      "[round(v, 5) for v in A.binary_cross_entropy.out(x, x.flip(0), x, out=torch.empty(2, 3)).flatten().tolist()], "
                      "[round(v, 5) for v in A.binary_cross_entropy.out(x, x.flip(0), torch.ones(3), out=torch.empty(1, 2, 3)).flatten().tolist()], "
                      "[round(v, 5) for v in A.binary_cross_entropy_backward.grad_input(x, x, x.flip(0), torch.ones(3), grad_input=torch.empty(2, 3)).flatten().tolist()]",
    "meta_complex_scalars": "[err(g) for g in [lambda: A.elu.default(M(), alpha=1j), lambda: A.elu.default(M(), scale=1j), lambda: A.elu_.default(M(), input_scale=1j), "
                            "lambda: A.elu.default(M(), alpha=1j, scale=1j), lambda: A.elu.default(M(), 1j, 1j, 1j), lambda: A.elu.default(M(dt=torch.half), 1j), "
                            "lambda: A.leaky_relu.default(M(), 1j), lambda: A.leaky_relu_.default(M(), 1j), lambda: A.softplus.default(M(), 1j), "
                            "lambda: A.softplus.default(M(), 1, 1j), lambda: A.softshrink.default(M(), 1j), lambda: A.rsub.Scalar(M(), 2, alpha=1j), "
                            "lambda: A.rsub.Scalar(M(), 1j), lambda: torch.nn.functional.elu(M(), alpha=1j), lambda: A.elu.default(M(), 0.5, 2, True), "
                            "lambda: A.leaky_relu.default(M(dt=torch.double), 2)]], "
                            "[tuple(r.shape) for r in [A.elu.default(M(), 2, 0.5), A.softplus.default(M(), 2, 1e30), A.rsub.Scalar(M(), 2, alpha=3)]]",
    "sparse_sizes_dtypes": "[err(g) for g in [lambda: A.sparse_coo_tensor.size([-1]), lambda: A.sparse_coo_tensor.size([3, -7]), lambda: A.sparse_coo_tensor.size([-2**63]), "
                           "lambda: torch.sparse_coo_tensor(size=[2**31, -2**31]), lambda: A.sparse_coo_tensor.size([2**62, 2**62, 0]), "
                           "lambda: A.sparse_coo_tensor.size([0, 2**62, 2**62])] + "
                           "[lambda d=d: A._to_sparse.default(torch.ones(2, 3, dtype=d)) for d in [torch.uint16, torch.uint32, torch.uint64, torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz]] + "
                           "[lambda d=d: A._to_sparse.sparse_dim(torch.ones(2, 3, dtype=d), 1) for d in [torch.uint16, torch.float8_e5m2]] + "
                           "[lambda: A._to_sparse.sparse_dim(torch.ones(2, 3, dtype=torch.uint16), 5), lambda: torch.ones(2, 3, dtype=torch.uint16).to_sparse()] + "
                           "[lambda d=d: f(torch.ones(2, 3, dtype=d)) for f in [A._to_sparse_csr.default, A._to_sparse_csc.default] for d in [torch.uint16, torch.uint64]] + "
                           "[lambda: A._to_sparse_csr.default(torch.ones(2, 3, dtype=torch.uint32), 1)]], "
                           "A.sparse_coo_tensor.size([0, -3]).shape, [A._to_sparse_csr.default(torch.ones(2, 3, dtype=d)).shape for d in [torch.float8_e4m3fn, torch.half, torch.bool]], "
                           "A._to_sparse.default(torch.eye(2, dtype=torch.int8)).to_dense().tolist()",
    "gelu_backward_onednn": "s = x - 0.4; "
                            "[err(lambda: A.gelu_backward.default(T().to(d), s)) for d in [torch.float64, torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.uint16, torch.float8_e4m3fnuz]], "
                            "[err(lambda: A.gelu_backward.grad_input(T(), s, grad_input=torch.empty(2, 3, dtype=d))) for d in [torch.float64, torch.complex64, torch.float8_e4m3fnuz, torch.int16]], "
                            "[err(lambda: A.gelu_backward.default(torch.ones(sh), s)) for sh in [(1, 3), (3,), (), (2, 1), (1, 2, 3), [1] * 12, [1] * 13, [1] * 20]], "
                            "[err(lambda: A.gelu_backward.default(T(), torch.randn(sh))) for sh in [(1, 3), (2, 1), (1, 2, 3)]], "
                            "[err(g) for g in [lambda: A.gelu_backward.default(torch.ones([1] * 11 + [2, 3]), torch.ones([1] * 11 + [2, 3])), "
                            "lambda: A.gelu_backward.grad_input(T().bool(), s, grad_input=torch.empty(2, 3, dtype=torch.float64)), "
                            "lambda: A.gelu_backward.default(T().to(torch.float8_e4m3fn), s)]], "
                            "[(r.dtype, [round(v, 4) for v in r.flatten().tolist()]) for r in [A.gelu_backward.default(T().bool(), s, approximate='tanh'), "
                            "A.gelu_backward.default(T().bool(), s[:, :1]), A.gelu_backward.default(T().long(), s.t().contiguous().t()), "
                            "A.gelu_backward.default(T().bool(), s.double()), A.gelu_backward.default(T(), torch.tensor([0.5])), "
                            "A.gelu_backward.default(T()[:0].bool(), s[:0]), A.gelu_backward.default(T().half(), s), "
                            "A.gelu_backward.grad_input(T(), s, grad_input=torch.empty(3, 2).t())]]",
    "out_overlap": "[err(g) for g in [lambda: (lambda y: A.masked_select.out(y, y > 0.3, out=y))(x.clone()), "
                   "lambda: (lambda y: A.masked_select.out(y, y > 0.3, out=y.t()))(x.clone()), lambda: (lambda y: A.masked_select.out(y, y > 0.3, out=y[0]))(x.clone()), "
                   "lambda: (lambda m: A.masked_select.out(x.clone(), m, out=m))(x > 0.3), "
                   "lambda: (lambda y: A.linalg_cross.out(y, y, out=y.t()))(torch.ones(2, 3)), lambda: (lambda y: A.linalg_cross.out(y, y, out=y[0]))(torch.ones(2, 3)), "
                   "lambda: (lambda y: A.linalg_cross.out(y, y, out=y[:, :2]))(torch.ones(2, 3)), lambda: (lambda y: A.linalg_cross.out(y, y, out=y))(torch.ones(2, 3))]], "
                   "(lambda y: A.masked_select.out(y, y > 0.3, out=y[:, :2]).tolist())(x.clone()), "
                   "err(lambda: (lambda y: A.linalg_cross.out(y, y.flip(1), out=y[:1, :1]))(x.clone())), "
                   "(lambda y: A.linalg_cross.out(y[0], y[1], out=torch.empty(3)[1:]).tolist())(torch.tensor([[1., 0, 0], [0, 1, 0]]))",
    "to_logspace_weight_norm": "[err(g) for g in [lambda: x.to(copy=2), lambda: x.to(torch.float64, copy=2), lambda: x.to(torch.float64, False, 2), "
                               "lambda: x.to(x, non_blocking=0.5), lambda: x.to('cpu', copy=None), lambda: x.to(3.5, copy=1), lambda: x.to(copy={}), "
                               "lambda: x.to(non_blocking=object()), lambda: A.logspace.out(1j, 2, 1, out=torch.empty(0)), "
                               "lambda: A.logspace.out(2 + 1j, 2, 1, out=torch.empty(0, dtype=torch.long)), lambda: A.logspace.out(1j, 2, 2, out=torch.empty(0, dtype=torch.half)), "
                               "lambda: torch.logspace(torch.tensor(1 + 2j), 2, 1, out=torch.empty(0)), "
                               "lambda: A._weight_norm.default(torch.ones(0, dtype=torch.long), torch.ones(2, 3)), "
                               "lambda: A._weight_norm_interface.default(torch.ones(0, dtype=torch.long), torch.ones(2, 3)), "
                               "lambda: A._weight_norm_interface_backward.default(torch.ones(2, 3), torch.ones(0, dtype=torch.long), torch.ones(2, 3), torch.ones(2, 3), 0), "
                               "lambda: A._weight_norm.default(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 1, dtype=torch.long))]], "
                               "x.to(copy=True).tolist(), x.to(torch.float64, False, True).dtype, x.to(non_blocking=False, copy=False).dtype, "
                               "A.logspace.out(1 + 0j, 2, 1, out=torch.empty(0)).tolist(), A.logspace.out(1j, 2, 0, out=torch.empty(0)).tolist(), "
                               "A.logspace.out(float('inf'), 2, 1, out=torch.empty(0)).tolist(), A.logspace.out(0.5j, 2, 1, out=torch.empty(0, dtype=torch.cfloat)).dtype",
}, setup=SETUP)
