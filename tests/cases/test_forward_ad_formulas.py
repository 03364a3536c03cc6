"""Forward-mode AD formulas that used to refuse (docs/func.md "Forward-AD formulas"), compared with
upstream 2.13.0: primal and tangent of torch.func.jvp and of forward_ad's make_dual / unpack_dual,
in float64 and float32.

- FunctionsManual helpers written in C in src/autograd/forward_formulas.c: cumprod_jvp (zeros in
  the input included), logcumsumexp_jvp, renorm_jvp (and norm_jvp's 1 <= p < 2 branch it uses),
  batch_norm_jvp (training and eval, weight / bias with and without tangents), group_norm_jvp and
  its mean / invstd outputs, convolution_jvp,
  convolution_backward's three tangents, safe_logsumexp_jvp, scatter_reduce_jvp, glu_jvp,
  block_diag_jvp, cholesky_jvp, cholesky_inverse_jvp, linalg_lu_jvp, lu_factor_ex_jvp, and the
  backward helpers the formulas share (copysign, rad2deg, i1, i1e);
- helpers tools/bw_formulas.py writes as formula text (its INLINE table), expanded into the forward
  programs: mish and logit (infinitely_differentiable_*), sgn (a ZeroTensor tangent for real
  input), sinc, mvlgamma, celu's `alpha.toFloat()`, ndtri / log_ndtr's `std::sqrt`;
- helper-fwlin's round (docs/func.md "second round"): aminmax_jvp, the binary_cross_entropy
  helpers, rms_norm_jvp (_fused_rms_norm decomposed as upstream's CPU composite), glu_backward_jvp,
  the linear-algebra jvps (det, slogdet, the solves, svd, eig / eigh, qr; LA2 below) and the
  in-place foreach ops reading original_self;
- the _foreach_* ops: the formula once per element (`result[i]`, `scalars[i]`), elements without
  a tangent getting none, in-place ones too, and _foreach_norm's refusal (upstream's norm_jvp gives
  a (1, 1) tangent for a 0-dim result, which set_fw_grad refuses).

Tolerance: the fixed rule of the autograd cases (tests/harness/autograd.py: F64 = rtol 64 eps(float64),
F32 = rtol 64 eps(float32)): composite formulas round differently from upstream's where a kernel
does (transcendentals, GEMM, reductions; glu_jvp is one fused kernel upstream)."""
from harness import cases
from harness.autograd import F32, F64

PRE = """
import os
os.environ["PYTORCH_JIT"] = "0"
import torch
DT = torch.float64
import torch.nn.functional as F
import torch.autograd.forward_ad as fwAD
from torch.func import jvp
def T(*shape, lo=None):
    x = torch.randn(*shape, dtype=DT)
    return x if lo is None else x.abs() + lo
def info(out):
    # jvp's (primal, tangent); a ZeroTensor tangent is reported as such
    def one(t):
        return ("ZeroTensor", tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor) and t._is_zerotensor() else t
    return [[one(t) for t in (o if isinstance(o, (tuple, list)) else [o])] for o in out]
torch.manual_seed(0)
"""

OPS = {
    "cumprod": "info(jvp(lambda a: a.cumprod(1), (T(3, 5),), (T(3, 5),)))",
    "cumprod_zeros": """
x = torch.tensor([[1., 0., 2., 0., 3.], [2., 3., 0., 1., 4.], [0., 1., 2., 3., 4.]], dtype=DT)
info(jvp(lambda a: (a.cumprod(1), a.cumprod(0), a[0, 1].cumprod(0)), (x,), (T(3, 5),)))""",
    "cumprod_dtype": "info(jvp(lambda a: a.cumprod(0, dtype=torch.float64), (T(4, 2),), (T(4, 2),)))",
    "logcumsumexp": "info(jvp(lambda a: (a.logcumsumexp(0), a.logcumsumexp(-1)), (T(3, 4),), (T(3, 4),)))",
    "renorm": "info(jvp(lambda a: (a.renorm(2, 0, 1.0), a.renorm(1.5, 1, 0.5), a.renorm(3, 0, 100.)), (T(3, 4),), (T(3, 4),)))",
    "renorm_p1_inf": "info(jvp(lambda a: (a.renorm(1, 0, 0.7), a.renorm(float('inf'), 1, 0.3)), (T(3, 4),), (T(3, 4),)))",
    "mish_logit": "info(jvp(lambda a: (F.mish(a), torch.logit(a.sigmoid()), torch.logit(a.sigmoid(), 0.3)), (T(3, 4),), (T(3, 4),)))",
    # under no_grad the formulas call logit_backward / mish_backward instead (mish_backward's kernel
    # is left out: it differs from upstream's in float64 by up to 1.7e-13 relative, ops/ not here)
    "logit_no_grad": """
with torch.no_grad():
    r = info(jvp(lambda a: (torch.logit(a.sigmoid()), torch.logit(a.sigmoid(), 0.25)), (T(3, 4),), (T(3, 4),)))
r""",
    "sgn_sinc": "info(jvp(lambda a: (torch.sgn(a), torch.sinc(a), torch.sinc(a * 0)), (T(3, 4),), (T(3, 4),)))",
    "copysign_deg": "info(jvp(lambda a, b: (torch.copysign(a, b), torch.copysign(a, -2.), torch.rad2deg(a), torch.deg2rad(b)), (T(3, 4), T(3, 4)), (T(3, 4), T(3, 4))))",
    "celu_mvlgamma": "info(jvp(lambda a: (F.celu(a, 0.7), torch.mvlgamma(a.abs() + 2, 3)), (T(3, 4),), (T(3, 4),)))",
    "special": "info(jvp(lambda a: (torch.special.i1(a), torch.special.i1e(a), torch.special.ndtri(a.sigmoid()), torch.special.log_ndtr(a)), (T(3, 4),), (T(3, 4),)))",
    "glu": "info(jvp(lambda a: (F.glu(a), F.glu(a, 0)), (T(4, 6),), (T(4, 6),)))",
    "block_diag": "info(jvp(lambda a, b: torch.block_diag(a, T(1, 2), b, torch.ones(2, dtype=DT)), (T(2, 3), T(2)), (T(2, 3), T(2))))",
    "conv": """
x, w, b = T(2, 3, 6, 6), T(4, 3, 3, 3), T(4)
r = info(jvp(lambda x, w, b: F.conv2d(x, w, b, padding=1), (x, w, b), (T(2, 3, 6, 6), T(4, 3, 3, 3), T(4))))
r += info(jvp(lambda x: F.conv1d(x, T(2, 3, 2), stride=2), (T(2, 3, 7),), (T(2, 3, 7),)))
r += info(jvp(lambda w: F.conv_transpose2d(x, w.transpose(0, 1), groups=1), (w,), (T(4, 3, 3, 3),)))
r""",
    "batch_norm_train": """
x, w, b = T(4, 3, 5), T(3), T(3)
r = info(jvp(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b), (T(4, 3, 5), T(3), T(3))))
r += info(jvp(lambda x: F.batch_norm(x, None, None, w, b, training=True), (x,), (T(4, 3, 5),)))
r += info(jvp(lambda w: F.batch_norm(x, None, None, w, b, training=True), (w,), (T(3),)))
r += info(jvp(lambda x: F.batch_norm(x, torch.zeros(3, dtype=DT), torch.ones(3, dtype=DT), training=True), (T(2, 3),), (T(2, 3),)))
r""",
    "batch_norm_eval": """
x, rm, rv = T(4, 3, 2, 2), T(3), T(3, lo=0.5)
r = info(jvp(lambda x, w: F.batch_norm(x, rm, rv, w, None, training=False, eps=1e-3), (x, T(3)), (T(4, 3, 2, 2), T(3))))
with fwAD.dual_level():
    d = fwAD.make_dual(rm, T(3))
    try:
        F.batch_norm(x, d, rv, training=False)
    except RuntimeError as e:
        r.append(str(e))
r""",
    # through forward_ad (torch.func.jvp refuses the module's running-stat update, upstream too);
    # parameters not requiring grad: the graph recorded through a formula is not compared here
    # (upstream's `input_t += bias_t` with a ZeroTensor bias_t records an AddBackward0 ours skips)
    "batch_norm_module": """
m = torch.nn.BatchNorm2d(3).to(DT).requires_grad_(False)
x, tx = T(2, 3, 4, 4), T(2, 3, 4, 4)
r = []
for train in (True, False):
    m.train(train)
    with fwAD.dual_level():
        out = m(fwAD.make_dual(x, tx))
        r.append(tuple(fwAD.unpack_dual(out)))
r + [m.running_mean, m.running_var]""",
    "group_norm": """
x, w, b = T(2, 6, 5), T(6), T(6)
r = info(jvp(lambda x, w, b: F.group_norm(x, 3, w, b), (x, w, b), (T(2, 6, 5), T(6), T(6))))
r += info(jvp(lambda x: F.group_norm(x, 2), (x,), (T(2, 6, 5),)))
r += info(jvp(lambda x: torch.native_group_norm(x, w, b, 2, 6, 5, 2, 1e-5), (x,), (T(2, 6, 5),)))
r""",
    "convolution_backward": """
x, w, g = T(2, 3, 5, 5), T(4, 3, 3, 3), T(2, 4, 3, 3)
def f(g, x, w):
    return torch.ops.aten.convolution_backward(g, x, w, [4], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True])
r = info(jvp(f, (g, x, w), (T(2, 4, 3, 3), T(2, 3, 5, 5), T(4, 3, 3, 3))))
r + info(jvp(lambda g: f(g, x, w), (g,), (T(2, 4, 3, 3),)))""",
    "safe_softmax": """
x = T(3, 4)
x[1] = float('-inf')
info(jvp(lambda a: torch.ops.aten._safe_softmax(a, 1), (x,), (T(3, 4),)))""",
    "scatter_reduce": """
idx = torch.tensor([[0, 1, 0, 1], [1, 1, 0, 0], [2, 0, 2, 0]])
src, s = T(3, 4), T(3, 3)
src[0, 2] = src[0, 0]
r = []
for red in ("sum", "mean", "amax", "amin", "prod"):
    for incl in (True, False):
        r += info(jvp(lambda a, b: a.scatter_reduce(1, idx, b, red, include_self=incl), (s, src), (T(3, 3), T(3, 4))))
r""",
    "foreach": """
a, b, c = T(3, 4), T(2, 5), T(4)
ta, tb = T(3, 4), T(2, 5)
def f(a, b):
    return (torch._foreach_exp([a, b]), torch._foreach_div([a, b], [a.abs() + 1, b.abs() + 1]),
            torch._foreach_pow([a, b], [2., 3.]), torch._foreach_mul([a, b], [2., -3.]), torch._foreach_max([a, b]),
            torch._foreach_sigmoid([a, b]), torch._foreach_addcmul([a, b], [a, b], [a.exp(), b.exp()], [0.5, 2.]),
            torch._foreach_lerp([a, b], [a.sin(), b.sin()], [0.3, 0.6]), torch._foreach_maximum([a, b], [a.cos(), b.cos()]),
            torch._foreach_pow([a.abs() + 1, b.abs() + 1], [a, b]), torch._foreach_sqrt([a.abs(), b.abs()]),
            torch._foreach_clamp_min([a, b], [0.1, -0.5]), torch._foreach_add([a, b], [b.sum() * a, a.sum() * b], alpha=2))
info(jvp(f, (a, b), (ta, tb)))""",
    "foreach_partial": """
a, u = T(3, 4), T(3, 4)
with fwAD.dual_level():
    d = fwAD.make_dual(a, T(3, 4))
    outs = torch._foreach_tanh([u, d]) + torch._foreach_add([d, u], [u, u]) + torch._foreach_div([u, d], 2.)
    r = [(fwAD.unpack_dual(o).primal, fwAD.unpack_dual(o).tangent) for o in outs]
r""",
    # in place: the formula per element (mul_.Scalar's `other` is the foreach's `scalar`); those
    # reading original_self: foreach_inplace_original.
    # _foreach_addcmul_ is left out: upstream's crashes (SIGSEGV) under the harness's dispatch mode
    # (outside one it agrees with ours)
    "foreach_inplace": """
r = []
for f in (lambda l: torch._foreach_add_(l, [torch.ones(3, 4, dtype=DT), T(2, 5)]), torch._foreach_exp_,
          lambda l: torch._foreach_mul_(l, 2.), lambda l: torch._foreach_div_(l, [T(3, 4), T(2, 5)]), torch._foreach_sigmoid_):
    with fwAD.dual_level():
        l = [fwAD.make_dual(T(3, 4), T(3, 4)), T(2, 5)]
        f(l)
        r.append([tuple(fwAD.unpack_dual(x)) for x in l])
r""",
    # in-place foreach ops whose formula reads the original self (forward.c clones each element
    # before the op), a Scalar[] argument standing for element i, elements with and without tangents
    "foreach_inplace_original": """
r = []
for f in (torch._foreach_sin_, torch._foreach_abs_, lambda l: torch._foreach_log_(l), lambda l: torch._foreach_pow_(l, 2.5),
          lambda l: torch._foreach_pow_(l, [T(3, 4), T(2, 5)]), lambda l: torch._foreach_pow_(l, [2., 3.]),
          lambda l: torch._foreach_mul_(l, [T(3, 4), T(2, 5)]), lambda l: torch._foreach_mul_(l, torch.tensor(3., dtype=DT)),
          lambda l: torch._foreach_sub_(l, [2., 3.]), lambda l: torch._foreach_clamp_max_(l, [0.3, 0.5]),
          lambda l: torch._foreach_maximum_(l, [T(3, 4), T(2, 5)]), lambda l: torch._foreach_lerp_(l, [T(3, 4), T(2, 5)], [T(3, 4), T(2, 5)]),
          lambda l: torch._foreach_lerp_(l, [T(3, 4), T(2, 5)], [0.2, 0.7]), torch._foreach_lgamma_):
    for both in (False, True):
        with fwAD.dual_level():
            a, b = T(3, 4).abs() + 0.1, T(2, 5).abs() + 0.1
            l = [fwAD.make_dual(a, T(3, 4)), fwAD.make_dual(b, T(2, 5)) if both else b]
            f(l)
            r.append([tuple(fwAD.unpack_dual(x)) for x in l])
r""",
    "foreach_norm_refused": """
r = []
for f in (lambda a: torch._foreach_norm([a, a]), lambda a: torch._foreach_norm([a], 3), lambda a: torch.ops.aten.norm.Scalar(a, 2)):
    try:
        jvp(f, (T(3, 4),), (T(3, 4),))
    except RuntimeError as e:
        r.append(str(e))
r""",
    # helper-fwlin: aminmax_jvp (tied extrema), the binary_cross_entropy helpers (a target without a
    # tangent: a ZeroTensor through binary_cross_entropy_with_logits_target_backward), rms_norm_jvp /
    # rms_norm_rstd_jvp, glu_backward_jvp (an aten kernel upstream: ops here)
    "aminmax": """
x = T(3, 4)
x[0, 1] = x[0, 3] = 5.
x[2, 0] = x[2, 2] = -5.
info(jvp(lambda a: (torch.aminmax(a, dim=1), torch.aminmax(a), torch.aminmax(a, dim=0, keepdim=True), torch.aminmax(a, keepdim=True)), (x,), (T(3, 4),)))""",
    "bce": """
p, y, w = torch.rand(3, 4, dtype=DT) * 0.8 + 0.1, torch.rand(3, 4, dtype=DT), torch.rand(4, dtype=DT)
r = []
for red in ("mean", "sum", "none"):
    r += info(jvp(lambda a, b: F.binary_cross_entropy(a, b, w, reduction=red), (p, y), (T(3, 4), T(3, 4))))
    r += info(jvp(lambda b: F.binary_cross_entropy(p, b, reduction=red), (y,), (T(3, 4),)))
r""",
    "bce_logits": """
x, y, w = T(3, 4), torch.rand(3, 4, dtype=DT), torch.rand(4, dtype=DT)
r = []
for red in ("mean", "sum", "none"):
    r += info(jvp(lambda a, b: F.binary_cross_entropy_with_logits(a, b, w, pos_weight=w + 1, reduction=red), (x, y), (T(3, 4), T(3, 4))))
    r += info(jvp(lambda a: F.binary_cross_entropy_with_logits(a, y, reduction=red), (x,), (T(3, 4),)))
    r += info(jvp(lambda b: F.binary_cross_entropy_with_logits(x, b, pos_weight=w, reduction=red), (y,), (T(3, 4),)))
r""",
    "bce_backward": """
p, y, w, g = torch.rand(3, 4, dtype=DT) * 0.8 + 0.1, torch.rand(3, 4, dtype=DT), torch.rand(4, dtype=DT), T(3, 4)
r = []
for red in (0, 1, 2):
    go = g if red == 0 else g.sum()
    r += info(jvp(lambda gg, a, b: torch.ops.aten.binary_cross_entropy_backward(gg, a, b, w, red), (go, p, y), (torch.randn_like(go), T(3, 4), T(3, 4))))
    r += info(jvp(lambda a: torch.ops.aten.binary_cross_entropy_backward(go, a, y, None, red), (p,), (T(3, 4),)))
r""",
    "rms_norm": """
x, w = T(2, 3, 4), T(4)
r = info(jvp(lambda a: F.rms_norm(a, (4,), w), (x,), (T(2, 3, 4),)))
r += info(jvp(lambda a, b: F.rms_norm(a, (3, 4), b.expand(3, 4), eps=1e-3), (x, w), (T(2, 3, 4), T(4))))
r += info(jvp(lambda b: F.rms_norm(x, (4,), b), (w,), (T(4),)))
r += info(jvp(lambda a: torch.ops.aten._fused_rms_norm(a, [4], None, 1e-5), (x,), (T(2, 3, 4),)))
r""",
    "glu_backward": """
x = T(4, 6)
info(jvp(lambda g, a: (torch.ops.aten.glu_backward(g, a, 1), torch.ops.aten.glu_backward(T(2, 6), a, 0)), (T(4, 3), x), (T(4, 3), T(4, 6))))""",
}

for dt, tag, tol in (("torch.float64", "f64", F64), ("torch.float32", "f32", F32)):
    cases(f"forward_ad_formulas_{tag}", {k: PRE.replace("DT = torch.float64", f"DT = {dt}") + v for k, v in OPS.items()},
          tol=tol, vars=False)

# linear algebra (cholesky_jvp, cholesky_inverse_jvp, linalg_lu_jvp, lu_factor_ex_jvp): LAPACK
# factorizations compared with the harness's lapack rule
LA = {
    "cholesky": """
A = T(4, 4)
S, tS = A @ A.mT + 4 * torch.eye(4, dtype=DT), T(4, 4)
tS = tS + tS.mT
info(jvp(lambda a: (torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True), torch.linalg.cholesky_ex(a).L), (S,), (tS,)))""",
    "cholesky_inverse": """
A = T(4, 4)
L = torch.linalg.cholesky(A @ A.mT + 4 * torch.eye(4, dtype=DT))
info(jvp(lambda l: (torch.cholesky_inverse(l), torch.cholesky_inverse(l.mT, upper=True)), (L,), (T(4, 4).tril(),)))""",
    "lu": """
r = []
for shape in ((4, 4), (3, 5), (5, 3), (2, 3, 3)):
    r += info(jvp(lambda a: torch.linalg.lu(a), (T(*shape),), (T(*shape),)))
    r += info(jvp(lambda a: torch.linalg.lu(a, pivot=False), (T(*shape) + 5 * torch.eye(*shape[-2:], dtype=DT),), (T(*shape),)))
r""",
    "lu_factor": """
r = []
for shape in ((4, 4), (3, 5), (5, 3)):
    r += info(jvp(lambda a: torch.linalg.lu_factor(a).LU, (T(*shape),), (T(*shape),)))
    r += info(jvp(lambda a: torch.linalg.lu_factor_ex(a, pivot=False).LU, (T(*shape) + 5 * torch.eye(*shape, dtype=DT),), (T(*shape),)))
r""",
}
for dt, tag in (("torch.float64", "f64"), ("torch.float32", "f32")):
    cases(f"forward_ad_linalg_{tag}", {k: PRE.replace("DT = torch.float64", f"DT = {dt}") + v for k, v in LA.items()},
          tol="lapack", vars=False)

# helper-fwlin: the linear-algebra jvps still refused before. float32 with the lapack rule; float64
# results of a LAPACK factorisation carry no upstream float error to scale (err is 0 there) while
# MKL's and our LAPACK's svd / eig / qr / solve differ by a few ulps normwise, so float64 takes the
# a-priori bound of a backward-stable factorisation on these well-conditioned inputs, as
# test_linalg_more.py does: (1e-12, 1e-12)
LA2 = {
    # det / slogdet (the real sign's tangent is a ZeroTensor upstream, zeros here:
    # compared by value), the solves, svd / eigh / eig through gauge-invariant functions of the
    # vectors (LAPACK's signs and phases are not compared), qr in all three shapes and its errors
    "det_slogdet": """
A, tA = T(2, 4, 4), T(2, 4, 4)
(s, l), (ts, tl) = jvp(torch.linalg.slogdet, (A,), (tA,))
info(jvp(torch.linalg.det, (A,), (tA,))) + [s, l, ts.abs().sum(), tl] + info(jvp(torch.linalg.det, (A.mT,), (tA,)))""",
    "solve": """
A, tA, B, tB = T(4, 4), T(4, 4), T(4, 2), T(4, 2)
r = info(jvp(torch.linalg.solve, (A, B), (tA, tB)))
r += info(jvp(torch.linalg.solve, (A, B[:, 0]), (tA, tB[:, 1])))
r += info(jvp(lambda a, b: torch.linalg.solve(a, b, left=False), (A, B.mT), (tA, tB.mT)))
r + info(jvp(lambda a: torch.linalg.solve(a, B), (A.mT,), (tA,)))""",
    "triangular_solves": """
A, tA, B, tB = T(4, 4), T(4, 4), T(4, 2), T(4, 2)
U = torch.linalg.cholesky(A @ A.mT + 4 * torch.eye(4, dtype=DT))
r = info(jvp(lambda u, b: torch.cholesky_solve(b, u), (U, B), (tA.tril(), tB)))
r += info(jvp(lambda u, b: torch.cholesky_solve(b, u, upper=True), (U.mT, B), (tA.triu(), tB)))
r += info(jvp(lambda a, b: torch.triangular_solve(b, a, upper=False), (U, B), (tA, tB)))
r += info(jvp(lambda a, b: torch.triangular_solve(b, a, transpose=True, unitriangular=True), (U.mT, B), (tA, tB)))
r += info(jvp(lambda a, b: torch.linalg.solve_triangular(a, b, upper=False), (U, B), (tA, tB)))
r + info(jvp(lambda a, b: torch.linalg.solve_triangular(a, b, upper=True, left=False, unitriangular=True), (U.mT, B.mT), (tA, tB.mT)))""",
    "lu_solve": """
A, tA, B, tB = T(4, 4), T(4, 4), T(4, 2), T(4, 2)
LU, piv = torch.linalg.lu_factor(A)
r = []
for left in (True, False):
    for adj in (True, False):
        r += info(jvp(lambda lu, b: torch.linalg.lu_solve(lu, piv, b, left=left, adjoint=adj), (LU, B if left else B.mT), (tA, tB if left else tB.mT)))
r""",
    "svd": """
r = []
for shape in ((4, 4), (5, 3), (3, 5), (2, 3, 3)):
    def f(a):
        U, S, Vh = torch.linalg.svd(a, full_matrices=False)
        return S, U @ Vh, (U * S.unsqueeze(-2)) @ U.mT, torch.linalg.svdvals(a)
    r += info(jvp(f, (T(*shape),), (T(*shape),)))
r""",
    "eig": """
def sym(x): return x + x.mT
def fh(a):
    L, V = torch.linalg.eigh(a)
    return L, (V * L.unsqueeze(-2)) @ V.mT, (V * torch.arange(4, dtype=DT)) @ V.mT, torch.linalg.eigvalsh(a)
def fe(a):
    L, V = torch.linalg.eig(a)
    return L, V.abs(), torch.linalg.eigvals(a)
A = T(4, 4)
A[0, 1] = A[1, 0] + 3.   # real eigenvalues
info(jvp(fh, (sym(T(4, 4)),), (sym(T(4, 4)),))) + info(jvp(fe, (A @ A.mT + torch.diag(torch.arange(4, dtype=DT)),), (T(4, 4),)))""",
    "qr": """
r = []
for shape in ((4, 4), (5, 3), (3, 5)):
    r += info(jvp(torch.linalg.qr, (T(*shape),), (T(*shape),)))
r += info(jvp(lambda a: torch.linalg.qr(a, mode='complete'), (T(3, 5),), (T(3, 5),)))
for mode, shape in (('r', (3, 3)), ('complete', (5, 3))):
    try:
        jvp(lambda a: torch.linalg.qr(a, mode=mode), (T(*shape),), (T(*shape),))
    except RuntimeError as e:
        r.append(str(e))
r""",
    "complex": """
CT = torch.complex128 if DT == torch.float64 else torch.complex64
C, tC, B, tB = (torch.randn(3, 3, dtype=CT) for _ in range(4))
H = C + C.mH
(s, l), (ts, tl) = jvp(torch.linalg.slogdet, (C,), (tC,))
r = [s, l, ts, tl] + info(jvp(torch.linalg.det, (C,), (tC,))) + info(jvp(torch.linalg.solve, (C, B), (tC, tB)))
r += info(jvp(lambda a: (torch.linalg.svdvals(a), torch.linalg.eigvals(a)), (C,), (tC,)))
r += info(jvp(torch.linalg.eigvalsh, (H,), (tC + tC.mH,)))
r + info(jvp(torch.linalg.qr, (C,), (tC,))) + info(jvp(torch.linalg.qr, (C[:2],), (tC[:2],)))""",
}
for dt, tag, tol in (("torch.float64", "f64", (1e-12, 1e-12)), ("torch.float32", "f32", "lapack")):
    cases(f"forward_ad_linalg2_{tag}", {k: PRE.replace("DT = torch.float64", f"DT = {dt}") + v for k, v in LA2.items()},
          tol=tol, vars=False)
