"""Nested forward-mode AD (src/autograd/forward.c, docs/forward_ad_nested.md) compared with
upstream: torch.func's jvp inside jvp (each jvp its own forward level; the inner level's tangent
arithmetic carries the outer level's tangents), jacfwd(jacfwd), jvp/jacfwd around vmap, grad and
jacrev, perturbation confusion, unpack_dual inside the inner level, and upstream's errors (a
second forward_ad.dual_level, _enter_dual_level / _exit_dual_level inside jvp, make_dual of an
inner dual). Before nested levels every case here raised "Making a dual Tensor based on a Tensor
that already has a forward gradient at the same level 0".

Snippets set PYTORCH_JIT=0 first, as tests/cases/test_func.py. Elementwise chains are compared bit
for bit; matmul, reductions, layer_norm and sigmoid (whose kernels round differently from
upstream's by an ulp, single level too) take the fixed rule F32 of tests/harness/autograd.py."""
from harness import cases
from harness.autograd import F32, ERR

PRE = """
import os
os.environ["PYTORCH_JIT"] = "0"
import torch
import torch.autograd.forward_ad as fwAD
from torch.func import jvp, jacfwd, jacrev, hessian, vmap, grad
""" + ERR + """
torch.manual_seed(0)
x = torch.randn(5)
u = torch.randn(5)
v = torch.randn(5)
xd = torch.randn(4, dtype=torch.float64)
W = torch.randn(3, 5)
"""


def fn(name, snippets, **kw):
    cases(name, {k: PRE + s for k, s in snippets.items()}, vars=False, **kw)


fn("fwnested_jvp_jvp", {
    "sin": "jvp(lambda a: jvp(torch.sin, (a,), (v,))[1], (x,), (u,))",
    "scalar": "jvp(lambda a: jvp(lambda b: (b.sin() * b).sum(), (a,), (v,))[1], (x,), (u,))",
    "exp_f64_both_outputs": "jvp(lambda a: jvp(torch.exp, (a,), (xd * 2,)), (xd,), (xd.cos(),))",
    "same_tangent": "jvp(lambda a: jvp(torch.tanh, (a,), (a,))[1], (x,), (u,))",
    # d/da [d/db (a * b) . v] . u = v . u: the inner derivative must not see the outer perturbation
    "perturbation": "jvp(lambda a: jvp(lambda b: a * b, (a,), (v,))[1], (x,), (u,))",
    "closure": "jvp(lambda a: jvp(lambda b: (a * b).sin(), (x + 1,), (v,)), (x,), (u,))",
    "two_args": "jvp(lambda a, b: jvp(lambda p, q: p * q.exp(), (a, b), (v, u))[1], (x, x + 1), (u, v))",
    "has_aux": "jvp(lambda a: jvp(lambda b: (b.sin(), b * 2), (a,), (v,), has_aux=True), (x,), (u,))",
    "triple": "jvp(lambda a: jvp(lambda b: jvp(torch.sin, (b,), (v,))[1], (a,), (u,))[1], (x,), (x,))",
    "views": "jvp(lambda a: jvp(lambda b: (b[1:] * b[:-1]).unsqueeze(0).t(), (a,), (v,))[1], (x,), (u,))",
    "inplace": "jvp(lambda a: jvp(lambda b: b.clone().mul_(b).add_(b.sin()), (a,), (v,))[1], (x,), (u,))",
    "div_pow": "jvp(lambda a: jvp(lambda b: (b / (b * b + 1)) ** 3, (a,), (v,))[1], (x,), (u,))",
    "pow_int": "jvp(lambda a: jvp(lambda b: b ** 2, (a,), (v,))[1], (x,), (u,))",
    "cat_stack": "jvp(lambda a: jvp(lambda b: torch.cat([b.sin(), torch.stack([b, b * 2]).sum(0)]), (a,), (v,))[1], (x,), (u,))",
    "softmax": "jvp(lambda a: jvp(lambda b: b.softmax(0), (a,), (v,))[1], (x,), (u,))",
    "logsumexp": "jvp(lambda a: jvp(lambda b: b.logsumexp(0), (a,), (v,))[1], (x,), (u,))",
    "independent_inner": "jvp(lambda a: jvp(lambda b: a * 2, (a,), (v,)), (x,), (u,))",
    "strict_inner": "err(lambda: jvp(lambda a: jvp(lambda b: x * 2, (a,), (v,), strict=True), (x,), (u,)))",
    "requires_grad": """
xr = x.clone().requires_grad_()
r = jvp(lambda a: jvp(torch.sin, (a,), (v,))[1], (xr,), (u,))
# values and flags (grad_fn names of results with history differ: docs/func.md; the gradient
# comes back as a view here, single-level jvp too: compared cloned)
(r[0].detach(), r[1].detach(), r[0].requires_grad, r[1].requires_grad, torch.autograd.grad(r[1].sum(), xr)[0].clone())""",
    "unpack_levels": """
out = []
def outer(a):
    def inner(b):
        out.append(fwAD.unpack_dual(a).tangent)   # the outer dual, seen inside the inner level
        out.append(fwAD.unpack_dual(b).tangent)
        out.append(fwAD.unpack_dual(b * a).tangent)
        return b * a
    return jvp(inner, (a,), (v,))
# upstream's captured tangents are dead TensorWrappers (no storage): compared by value
(jvp(outer, (x,), (u,)), [None if t is None else t.detach().tolist() for t in out])""",
    "errors": """
out = []
def f(a):
    out.append(err(lambda: fwAD.make_dual(fwAD.make_dual(a, v), v)))
    out.append(err(lambda: torch._C._enter_dual_level()))
    out.append(err(lambda: jvp(lambda b: jvp(torch.sin, (b,), (torch.randn(3),)), (a,), (u,))))
    out.append(err(lambda: jvp(lambda b: jvp(lambda c: torch.sin(c, out=torch.empty(5)), (b,), (v,)), (a,), (u,))))
    return a
jvp(f, (x,), (u,))
def nested():
    with fwAD.dual_level():
        with fwAD.dual_level():
            pass
out.append(err(nested))
fwAD._current_level = -1   # nested() left forward_ad's Python level set (both sides)
out.append(err(lambda: torch._C._exit_dual_level(level=0)))
out""",
})

fn("fwnested_jvp_jvp_float", {
    "where_relu_sigmoid": "jvp(lambda a: jvp(lambda b: torch.where(b > 0, b * b, b.relu() + b.sigmoid()), (a,), (v,))[1], (x,), (u,))",
    "matmul": "jvp(lambda a: jvp(lambda b: (W @ b).tanh(), (a,), (v,))[1], (x,), (u,))",
    "layer_norm": "jvp(lambda a: jvp(lambda b: torch.nn.functional.layer_norm(b, (5,)), (a,), (v,))[1], (x,), (u,))",
}, tol=F32)

fn("fwnested_jacfwd", {
    "jacfwd_jacfwd": "jacfwd(jacfwd(lambda t: (t.sin() * t).sum()))(x)",
    "jacfwd_jacfwd_vec": "jacfwd(jacfwd(lambda t: t.sin() * t.cos()))(x)",
    "jacfwd_jacfwd_argnums": "jacfwd(jacfwd(lambda a, b: (a * b.exp()).sum(), argnums=1), argnums=0)(x, x + 1)",
    "jacfwd_jacfwd_f64": "jacfwd(jacfwd(lambda t: (t.exp() / t.cosh()).sin().sum()))(xd)",
    "jvp_jacfwd": "jvp(jacfwd(lambda t: (t.sin() * t).sum()), (x,), (u,))",
    "jacfwd_jvp": "jacfwd(lambda t: jvp(torch.sin, (t,), (v,))[1])(x)",
    "jvp_vmap_jvp": "jvp(lambda a: vmap(lambda e: jvp(torch.sin, (a,), (e,))[1])(torch.eye(5)), (x,), (u,))",
    "vmap_jvp_jvp": "vmap(lambda e: jvp(lambda a: jvp(torch.sin, (a,), (v,))[1], (x,), (e,)))(torch.eye(5))",
    "jacfwd3": "jacfwd(jacfwd(jacfwd(lambda t: t.sin().sum())))(x[:3])",
    "jacrev_jacfwd_jacfwd": "jacrev(jacfwd(jacfwd(lambda t: (t.sin() * t).sum())))(x[:3])",
    # + 0.0: zeros off the diagonal are -0.0 upstream, +0.0 here (also jacfwd over jvp(grad) of a
    # product, single jvp level: docs/forward_ad_nested.md); the values are compared
    "jacfwd_jacfwd_jacrev": "jacfwd(jacfwd(jacrev(lambda t: (t.sin() * t).sum())))(x[:3]) + 0.0",
    "grad_jvp_jvp": "grad(lambda a: jvp(lambda b: jvp(torch.sin, (b,), (v,))[1], (a,), (u,))[1].sum())(x)",
    "jvp_jvp_grad": "jvp(lambda a: jvp(grad(lambda b: (b.sin() * b).sum()), (a,), (v,))[1], (x,), (u,))",
    # the tangent of a jacrev result is a view upstream, not here (single-level jvp(jacrev) too):
    # compared cloned
    "jvp_jvp_jacrev": "tuple(t.clone() for t in jvp(lambda a: jvp(jacrev(lambda b: (b.sin() * b).sum()), (a,), (v,))[1], (x,), (u,)))",
    "jvp_jacfwd_jacrev": "tuple(t.clone() for t in jvp(jacfwd(jacrev(lambda b: (b.sin() * b).sum())), (x[:3],), (u[:3],)))",
    "jvp_jvp_vmap_grad": "jvp(lambda a: jvp(lambda b: vmap(grad(lambda s: s.sin() * s))(b), (a,), (v,))[1], (x,), (u,))",
})

fn("fwnested_jacfwd_float", {
    "jacfwd_jacfwd_matmul": "jacfwd(jacfwd(lambda t: (W @ t).tanh()))(x)",
    "hessian_by_jacfwd_jacfwd": "jacfwd(jacfwd(lambda t: (t.softmax(0) * torch.arange(5.)).sum()))(x)",
}, tol=F32)

# Complex forward AD (forward_formulas.c angle_backward; forward.c same_meta compares the conj /
# neg bits, as upstream's has_same_meta, so a conjugate-view tangent of a plain primal is copied
# into the primal's layout). Before: angle / polar refused by name ("angle_backward is not
# implemented") and exp's tangent came back with the conj bit set.
PREC = """
zc = torch.randn(4, dtype=torch.complex64)
tzc = torch.randn(4, dtype=torch.complex64)
zd = torch.randn(3, dtype=torch.complex128)
"""


def fc(name, snippets, **kw):
    fn(name, {k: PREC + s for k, s in snippets.items()}, **kw)


fc("fwcomplex", {
    "angle": "jvp(torch.angle, (zc,), (tzc,))",
    "angle_f64_zero": "jvp(torch.angle, (torch.cat([zd, torch.zeros(1, dtype=zd.dtype)]),), (torch.ones(4, dtype=zd.dtype),))",
    "angle_real": "jvp(torch.angle, (x,), (u,))",
    "exp_tangent_bits": """
r = jvp(lambda a: a.exp(), (zc,), (tzc,))
s = jvp(lambda a: a.conj().exp().conj(), (zc,), (tzc,))
[(t.is_conj(), t.is_neg()) for t in r + s] + [r, s]""",
    "conj_views": """
out = []
for f in (torch.conj, torch._conj, torch._neg_view, lambda a: a.conj().resolve_conj(), lambda a: torch._neg_view(a).resolve_neg(),
          torch.conj_physical, torch.view_as_real):
    p, t = jvp(f, (zc,), (tzc,))
    out.append((p.is_conj(), p.is_neg(), t.is_conj(), t.is_neg(), p.resolve_conj().resolve_neg(), t.resolve_conj().resolve_neg()))
out""",
    "jvp_jvp_angle": "jvp(lambda a: jvp(torch.angle, (a,), (tzc,))[1], (zc,), (tzc * 1j,))",
}, tol=F32)

fc("fwcomplex_exact", {
    "polar_f64": "jvp(lambda a: torch.polar(a.abs(), a.angle()), (zd,), (zd.conj(),))",
    "jacfwd_view_as_real": "jacfwd(lambda a: torch.view_as_real(a.conj() * a.angle()))(zd)",
})
