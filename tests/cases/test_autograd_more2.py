"""Autograd gaps closed by helper-autograd (second round), compared with upstream 2.13.0:

- inference tensors: made under torch.inference_mode() (is_inference, no version counter, views
  of them are inference tensors and not tracked as views), refused when saved for backward or
  written outside inference mode (the write happens first, as upstream's version bump follows
  the kernel), requires_grad rules, inference_mode(False) turning grad mode on.

Messages are compared exactly where the snippet returns them (`err`); gradients use the fixed
tolerance of tests/harness/autograd.py."""
from harness import cases
from harness.autograd import F32, F64, GRAPH as PRE

ERR = """
def err(f):
    try:
        r = f()
        return ("ok", r)
    except Exception as e:
        return (type(e).__name__, str(e))
"""
INF = ERR + """
with torch.inference_mode():
    x = torch.arange(1., 4.)
    v = x[1:]
    xr = torch.ones(3, requires_grad=True)
    with torch.inference_mode(False):
        y = torch.ones(3)
        z = x * 2
n = torch.ones(3)
w = torch.ones(3, requires_grad=True)
"""
cases("inference_tensors", {k: INF + v for k, v in {
    "is_inference": "(x.is_inference(), v.is_inference(), y.is_inference(), z.is_inference(), n.is_inference(), torch.is_inference(x))",
    "version": "(err(lambda: x._version), err(lambda: v._version), err(lambda: x.detach()._version))",
    "views": "(v._base, v._is_view(), x.detach().is_inference(), x.view(3).is_inference(), x.data.is_inference(), x.t().is_inference(), x.detach()._is_view())",
    "functional_outside": "(x.clone().is_inference(), (x * n).is_inference(), x.exp().is_inference(), torch.empty_like(x).is_inference(), x.new_empty(2).is_inference(), x.to(torch.float64).is_inference())",
    "same_tensor_outside": "(x.contiguous().is_inference(), x.to(torch.float32).is_inference())",
    "saved_mul": "(err(lambda: x * w), err(lambda: w * x), err(lambda: torch.nn.functional.linear(w, x.view(1, 3))))",
    "not_saved_add": "r = w + x; r.sum().backward(); (r.grad_fn.name(), w.grad)",
    "inplace_outside": "(err(lambda: x.add_(1)), x, err(lambda: v.mul_(2)), x)",
    "inplace_forms": "(err(lambda: x.zero_()), err(lambda: torch.add(n, n, out=x)), err(lambda: x.copy_(n)), err(lambda: x.__setitem__(0, 5.)), err(lambda: x.fill_(2)), x)",
    "inplace_no_grad": "with torch.no_grad():\n    r = err(lambda: x.exp_())\n(r, x)",
    "inplace_with_grad_arg": "(err(lambda: x.mul_(w)), x)",
    "inplace_kernel_error_first": "err(lambda: x.add_(torch.ones(4)))",
    "inplace_normal_from_inf": "n.add_(x); (n, n._version)",
    "requires_grad_": "(err(lambda: x.requires_grad_()), err(lambda: setattr(x, 'requires_grad', True)), err(lambda: x.requires_grad_(False)), err(lambda: torch.nn.Parameter(x)))",
    "inside_mode": """
with torch.inference_mode():
    r = [x.add_(1), x.is_inference(), err(lambda: x._version), x.requires_grad_().requires_grad]
    a = torch.ones(2, requires_grad=True)
    r += [a.requires_grad, a.is_inference(), a.is_leaf]
    b = w * 2
    r += [b.requires_grad, b.is_inference(), b.grad_fn]
    c = n.view(3)
    n.add_(1)
    r += [c.is_inference(), n._version, n.is_inference()]
    torch.add(w.detach(), 1, out=n)
    r += [n.is_inference()]
r""",
    "inference_requires_grad": """
r = [(xr * n).grad_fn.name(), xr.exp().grad_fn, xr.sum().requires_grad, (xr + 1).grad_fn.name(), (xr * x).grad_fn,
     xr[1:].requires_grad, xr.detach().is_inference()]
r.append(err(lambda: torch.atan2(xr, n)))
r.append(err(lambda: w * xr))
s = (xr + n).sum(); s.backward()
r + [xr.grad]""",
    "modes_nested": """
r = []
with torch.inference_mode():
    r += [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]
    with torch.inference_mode(False):
        r += [torch.is_inference_mode_enabled(), torch.is_grad_enabled(), torch.ones(2).is_inference()]
        r.append((w * 2).grad_fn.name())
        r.append(err(lambda: x.add_(1)))
        with torch.no_grad():
            with torch.inference_mode(False):
                r.append(torch.is_grad_enabled())
    r.append(torch.is_grad_enabled())
with torch.no_grad():
    with torch.inference_mode(False):
        r.append(torch.is_grad_enabled())
    r.append(torch.is_grad_enabled())
r + [torch.is_inference_mode_enabled(), torch.is_grad_enabled()]""",
    "decorator": "@torch.inference_mode()\ndef g(a): return a * 2\n(g(n).is_inference(), g(w).requires_grad)",
    "module": """
torch.manual_seed(0)
with torch.inference_mode():
    lin = torch.nn.Linear(3, 2)
r = [lin.weight.is_inference(), lin.weight.requires_grad]
lin2 = torch.nn.Linear(3, 2)
with torch.inference_mode():
    out = lin2(x)
r += [out.is_inference(), out.requires_grad, err(lambda: lin2(x))]
r""",
    # detach / .data outside inference mode: still inference tensors, with a counter of their own
    "detach_data": """
d = x.detach(); dd = x.data; dv = d.view(3)
r = [d.is_inference(), d._version, dd._version, err(lambda: dv._version), err(lambda: dv.add_(1)), d._version]
d.add_(1); r += [d._version, dd._version, x, err(lambda: x.detach().detach()._version)]
with torch.inference_mode():
    d2 = x.detach()
r + [err(lambda: d2._version), err(lambda: d2.add_(1))]""",
    "from_numpy": "a = torch.ones(3)\nwith torch.inference_mode():\n    b = torch.from_numpy(a.numpy())\n(b.is_inference(), a.is_inference())",
}.items()}, vars=False)

# ---- _foreach_* backward: one Foreach<reference node><overload> node, the reference formula per element
FE = PRE + """
torch.manual_seed(0)
xs = [torch.randn(3, requires_grad=True), torch.randn(2, 2, requires_grad=True)]
ys = [torch.randn(3, requires_grad=True), torch.randn(2, 2, requires_grad=True)]
zs = [torch.rand(3, requires_grad=True) + 0.5, torch.rand(2, 2, requires_grad=True) + 0.5]
ps = xs + ys + zs
s = torch.tensor(1.5, requires_grad=True)
def run(outs, extra=()):
    ins = [p for p in ps + list(extra) if p.requires_grad]
    loss = sum((o * torch.linspace(-1, 2, o.numel()).reshape(o.shape)).sum() for o in outs)
    gs = torch.autograd.grad(loss, ins, allow_unused=True, create_graph=True)
    return ([graph(o) for o in outs], [o.output_nr for o in outs], outs[0].grad_fn is outs[-1].grad_fn, outs, gs)
"""
FOREACH = {
    "add_List": "run(torch._foreach_add(xs, ys))",
    "add_List_alpha": "run(torch._foreach_add(xs, ys, alpha=-2.5))",
    "add_Scalar": "run(torch._foreach_add(xs, 2.0))",
    "add_ScalarList": "run(torch._foreach_add(xs, [2.0, -1.0]))",
    "add_Tensor": "run(torch._foreach_add(xs, s), [s])",
    "sub_List": "run(torch._foreach_sub(xs, ys, alpha=0.5))",
    "sub_Scalar": "run(torch._foreach_sub(xs, 3.0))",
    "sub_ScalarList": "run(torch._foreach_sub(xs, [1.0, 2.0]))",
    "mul_List": "run(torch._foreach_mul(xs, ys))",
    "mul_Scalar": "run(torch._foreach_mul(xs, 3.0))",
    "mul_ScalarList": "run(torch._foreach_mul(xs, [3.0, -0.5]))",
    "mul_Tensor": "run(torch._foreach_mul(xs, s), [s])",
    "div_List": "run(torch._foreach_div(xs, zs))",
    "div_Scalar": "run(torch._foreach_div(xs, 3.0))",
    "div_ScalarList": "run(torch._foreach_div(xs, [3.0, -0.5]))",
    "div_Tensor": "run(torch._foreach_div(xs, s), [s])",
    "maximum_List": "run(torch._foreach_maximum(xs, ys))",
    "addcmul_Scalar": "run(torch._foreach_addcmul(xs, ys, zs, 0.5))",
    "addcmul_ScalarList": "run(torch._foreach_addcmul(xs, ys, zs, [0.5, 2.0]))",
    "addcdiv_Scalar": "run(torch._foreach_addcdiv(xs, ys, zs, 0.5))",
    "addcdiv_ScalarList": "run(torch._foreach_addcdiv(xs, ys, zs, [0.5, 2.0]))",
    "lerp_Scalar": "run(torch._foreach_lerp(xs, ys, 0.3))",
    "lerp_List": "run(torch._foreach_lerp(xs, ys, zs))",
    "neg": "run(torch._foreach_neg(xs))",
    "sqrt": "run(torch._foreach_sqrt(zs))",
    "abs": "run(torch._foreach_abs(xs))",
    "reciprocal": "run(torch._foreach_reciprocal(zs))",
    "sign": "run(torch._foreach_sign(xs))",
    "clamp_min": "run(torch._foreach_clamp_min(xs, 0.1))",
    "clamp_max": "run(torch._foreach_clamp_max(xs, 0.1))",
    "norm": "run(torch._foreach_norm(xs))",
    "norm_ord": "run(torch._foreach_norm(xs, 3))",
    "partial_requires_grad": "xs[1] = xs[1].detach()\nrun(torch._foreach_mul(xs, 2.0))",
    "float64": "xs = [x.detach().double().requires_grad_() for x in xs]; ps = xs\nrun(torch._foreach_mul(xs, xs))",
    # in-place: one reference node per written tensor (MulBackward0 on each), as upstream's
    "mul__List": "a = [x.clone() for x in xs]; torch._foreach_mul_(a, ys); run(a)",
    "add__Scalar": "a = [x.clone() for x in xs]; torch._foreach_add_(a, 1.0); run(a)",
    "addcdiv__Scalar": "a = [x.clone() for x in xs]; torch._foreach_addcdiv_(a, ys, zs, 0.3); run(a)",
    "lerp__Scalar": "a = [x.clone() for x in xs]; torch._foreach_lerp_(a, ys, 0.3); run(a)",
    "sqrt_": "a = [z * 1 for z in zs]; torch._foreach_sqrt_(a); run(a)",
    "leaf_error": "try:\n    torch._foreach_mul_(xs, 2.0)\nexcept RuntimeError as e:\n    r = str(e)\nr",
    "backward_twice": "o = torch._foreach_mul(xs, ys); sum(t.sum() for t in o).backward()\n"
                      "try:\n    sum(t.sum() for t in o).backward()\nexcept RuntimeError as e:\n    r = str(e)[:60]\nr",
}
cases("foreach_backward", {k: FE + v for k, v in FOREACH.items()}, tol=F32, vars=False)

# ---- output_nr counts differentiable outputs only (upstream's set_history of the differentiable ones)
ONR = PRE + ERR + """
torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
S = (A @ A.T + torch.eye(3, dtype=torch.float64)).detach().requires_grad_()
def info(outs):
    g = outs[0].grad_fn if outs[0].grad_fn is not None else outs[1].grad_fn
    return [(o.grad_fn is g if o.grad_fn is not None else None, o.output_nr, o.requires_grad) for o in outs]
def run(outs, ins):
    w = [torch.linspace(-1, 1, o.numel(), dtype=o.dtype).reshape(o.shape) for o in outs if o.requires_grad]
    loss = sum((o * wi).sum() for o, wi in zip([o for o in outs if o.requires_grad], w))
    return (info(outs), graph(loss), torch.autograd.grad(loss, ins))
"""
cases("output_nr", {k: ONR + v for k, v in {
    "lu_unpack": "LU, piv = torch.linalg.lu_factor(A.detach()); LU.requires_grad_()\nrun(torch.lu_unpack(LU, piv), [LU])",
    # linalg_lu / linalg_lu_factor_ex have no backward formula yet: the graph only
    "linalg_lu": "o = torch.linalg.lu(A); (info(o), graph(o[1]), graph(o[2]))",
    "lu_factor_ex": "o = torch.linalg.lu_factor_ex(A); (info(o), graph(o[0]))",
    "eigh": "run(torch.linalg.eigh(S), [S])",
    "max_dim": "run(torch.max(A, 1), [A])",
    "min_dim": "run(torch.min(A, 0), [A])",
    "sort": "run(torch.sort(A, 1), [A])",
    "std_mean": "run(torch.std_mean(A, 1), [A])",
    "frexp_nondiff": "info(torch.frexp(A))",
    "hook_on_second": """
LU, piv = torch.linalg.lu_factor(A.detach()); LU.requires_grad_()
P, L, U = torch.lu_unpack(LU, piv)
seen = []
U.register_hook(lambda g: seen.append(g.sum().item()))
U.retain_grad()
(L.sum() + 2 * U.sum()).backward()
(seen, U.grad, LU.grad)""",
    "modified_error": """
LU, piv = torch.linalg.lu_factor(A.detach()); LU.requires_grad_()
P, L, U = torch.lu_unpack(LU, piv)
y = U.exp()
U.add_(1)
err(lambda: y.sum().backward())""",
}.items()}, tol=(1e-12, 1e-10), vars=False)

# ---- small gaps: sgn's derivative (complex abs double backward), _unsafe_masked_index without
# indices, the fp32 precision table behind torch.backends.*.fp32_precision / mkldnn.flags()
SGN = PRE + """
torch.manual_seed(0)
z = torch.tensor([1+2j, 0j, -3+0.5j, 0.25-1j], dtype=torch.complex128, requires_grad=True)
r = torch.tensor([1.5, 0., -2., 0.5], dtype=torch.float64, requires_grad=True)
w = torch.tensor([1+2j, -1j, 0.5, 2-1j], dtype=torch.complex128)
"""
cases("sgn_backward", {k: SGN + v for k, v in {
    "abs_double_complex": "(g,) = torch.autograd.grad(z.abs().sum(), z, create_graph=True)\n"
                          "(h,) = torch.autograd.grad((g * w).real.sum(), z)\n(graph(g), g, h)",
    "abs_double_real": "(g,) = torch.autograd.grad(r.abs().sum(), r, create_graph=True)\n"
                       "(h,) = torch.autograd.grad((g * w.real).sum(), r, allow_unused=True)\n(graph(g), g, h.shape)",   # upstream's h is an unallocated zero tensor
    "sgn_grad": "(h,) = torch.autograd.grad(z.sgn(), z, w)\nh",
    "sgn_inplace_grad": "(h,) = torch.autograd.grad(z.clone().sgn_(), z, w)\nh",
    "sgn_f32": "zf = z.detach().to(torch.complex64).requires_grad_(); (h,) = torch.autograd.grad(zf.sgn(), zf, w.to(torch.complex64))\nh",
    "gradgradcheck": "torch.autograd.gradgradcheck(lambda t: t.abs(), (z,))",
    # complex pow / rsqrt: upstream's pow_backward conjugates exponent * self.pow(exponent - 1)
    "pow_int_complex": "(h,) = torch.autograd.grad(z.pow(2).abs().sum(), z)\nh",
    "pow_float_complex": "(h,) = torch.autograd.grad((z + 1).pow(2.5), z, w)\nh",
    "rsqrt_complex": "(h,) = torch.autograd.grad((z + 1).rsqrt(), z, w)\nh",
}.items()}, tol=F64, vars=False)

# ---- scaled_dot_product_attention's backend switches (sdpa_kernel, torch.backends.cuda.*_sdp):
# upstream's CPU choice over flash and math, its errors when no enabled backend can run (its
# warnings naming why flash did not fit are not reproduced: docs/opinfo.md)
SDPA = PRE + ERR + """
from torch.nn.attention import sdpa_kernel, SDPBackend as B
F = torch.nn.functional.scaled_dot_product_attention
q4 = leaves((1, 2, 4, 8))[0]
q3 = leaves((2, 4, 8))[0]
def run(backends, q, **kw):
    with sdpa_kernel(backends, **kw):
        r = F(q, q, q)
        (g,) = torch.autograd.grad(r.sum(), q)
        return graph(r), r, g
def flags():
    c = torch.backends.cuda
    return (c.flash_sdp_enabled(), c.math_sdp_enabled(), c.mem_efficient_sdp_enabled(), c.cudnn_sdp_enabled(),
            torch._C._get_overrideable_sdp_enabled(), torch._C._get_fa3_sdp_enabled(), torch._C._get_sdp_priority_order())
"""
cases("sdpa_backends", {k: SDPA + v for k, v in {
    "math_only": "(run(B.MATH, q4), flags())",
    "flash_only": "(run(B.FLASH_ATTENTION, q4), flags())",
    "math_first": "(run([B.MATH, B.FLASH_ATTENTION], q4, set_priority=True), flags())",
    "flash_first_3d": "run([B.FLASH_ATTENTION, B.MATH], q3, set_priority=True)",
    "flash_only_3d": "err(lambda: run(B.FLASH_ATTENTION, q3))",
    "flash_only_3d_nograd": "with torch.no_grad():\n    r = err(lambda: run(B.FLASH_ATTENTION, q3.detach()))\n(r, flags())",
    "no_viable": "err(lambda: run(B.EFFICIENT_ATTENTION, q4))",
    "setters": "[err(lambda: getattr(torch._C, '_set_sdp_use_' + n)(v)) for n in ['flash', 'mem_efficient', 'math', 'cudnn', 'overrideable', 'fa3'] for v in (1, None)]",
    "priority_order": """
old = torch._C._get_sdp_priority_order()
r = [err(lambda: torch._C._set_sdp_priority_order(v)) for v in (5, ['a'], [True], [0, 1.5])]
torch._C._set_sdp_priority_order((0, 1)); r.append(torch._C._get_sdp_priority_order())
torch._C._set_sdp_priority_order([4, 3, 2, 1, 0]); r.append(torch._C._get_sdp_priority_order())
r.append(run(B.MATH, q4)[0][0])
torch._C._set_sdp_priority_order(old); r.append(torch._C._get_sdp_priority_order())
r""",
}.items()}, tol=F32, vars=False)

cases("small_gaps", {k: ERR + v for k, v in {
    "unsafe_masked_index_no_indices": "x = torch.randn(4); err(lambda: torch.ops.aten._unsafe_masked_index(x, torch.tensor([True, False, True, True]), [], 0.0))",
    # an op with no derivatives.yaml entry: upstream's NotImplemented node raises RuntimeError in backward
    "no_derivative_entry": "x = torch.rand(2, 4, requires_grad=True); r = torch._chunk_cat([x, x], 1, 2); (r.grad_fn.name(), err(lambda: r.sum().backward()))",
    "index_no_indices": "x = torch.randn(4); (err(lambda: torch.ops.aten.index(x, [])), err(lambda: torch.ops.aten._unsafe_index(x, [])))",
    "fp32_precision_defaults": "[err(lambda: torch._C._get_fp32_precision_getter(b, o)) for b in ['generic', 'mkldnn', 'cuda', 'cudnn', 'x'] for o in ['all', 'matmul', 'conv', 'rnn', 'y']]",
    "fp32_precision_set": """
G, S = torch._C._get_fp32_precision_getter, torch._C._set_fp32_precision_setter
keys = [('generic', 'all'), ('mkldnn', 'all'), ('mkldnn', 'matmul'), ('mkldnn', 'conv'), ('mkldnn', 'rnn'),
        ('cuda', 'all'), ('cuda', 'matmul'), ('cuda', 'conv'), ('cuda', 'rnn')]
dump = lambda: [G(b, o) for b, o in keys]
r = [dump()]
for b, o, p in [('mkldnn', 'all', 'bf16'), ('mkldnn', 'matmul', 'none'), ('mkldnn', 'matmul', 'tf32'), ('generic', 'all', 'ieee'),
                ('generic', 'all', 'none'), ('cuda', 'matmul', 'bf16'), ('generic', 'all', 'fp16'), ('generic', 'conv', 'tf32'),
                ('mkldnn', 'all', 'IEEE'), ('cuda', 'conv', 'ieee')]:
    r.append((err(lambda: S(b, o, p)), dump()))
for (b, o), p in zip(keys, r[0]):   # the state found (later cases read it), parents first
    S(b, o, p)
r + [dump()]""",
    "mkldnn_flags": """
with torch.backends.mkldnn.flags(enabled=False):
    r = [torch.backends.mkldnn.enabled, torch.backends.fp32_precision]
with torch.backends.mkldnn.flags(enabled=True, fp32_precision="bf16"):
    r += [torch.backends.mkldnn.fp32_precision, torch.backends.mkldnn.matmul.fp32_precision]
r + [torch.backends.mkldnn.enabled, torch.backends.mkldnn.fp32_precision, torch.backends.cuda.matmul.fp32_precision,
     torch.backends.cudnn.conv.fp32_precision]""",
}.items()}, vars=False)

# ---- prod's forward-mode derivative (prod_backward of ones times the tangent, summed), zeros included
PJ = """
import torch.autograd.forward_ad as fwAD
from torch.func import jvp
X = {"plain": [1., 2., 3., -0.5], "one_zero": [1., 0., 3., 2.], "two_zeros": [0., 2., 0., 3.], "all_zero": [0., 0., 0., 0.]}
def tangent(x):
    return torch.linspace(0.5, 1.5, x.numel(), dtype=x.dtype).reshape(x.shape)
"""
cases("prod_forward_ad", {k: PJ + v for k, v in {
    "full": "[jvp(torch.prod, (torch.tensor(v),), (tangent(torch.tensor(v)),)) for v in X.values()]",
    "full_2d_f64": "[jvp(torch.prod, (torch.tensor(v, dtype=torch.float64).reshape(2, 2),), (tangent(torch.tensor(v, dtype=torch.float64).reshape(2, 2)),)) for v in X.values()]",
    "dim": "[jvp(lambda a: torch.prod(a, 1), (torch.tensor(v).reshape(2, 2),), (tangent(torch.tensor(v).reshape(2, 2)),)) for v in X.values()]",
    "dim0_keepdim": "[jvp(lambda a: torch.prod(a, 0, keepdim=True), (torch.tensor(v).reshape(2, 2),), (tangent(torch.tensor(v).reshape(2, 2)),)) for v in X.values()]",
    "dtype": "[jvp(lambda a: torch.prod(a, dtype=torch.float64), (torch.tensor(v),), (tangent(torch.tensor(v)),)) for v in X.values()]",
    "zero_dim": "jvp(torch.prod, (torch.tensor(2.5),), (torch.tensor(0.5),))",
    "dual_api": """
with fwAD.dual_level():
    x = fwAD.make_dual(torch.tensor([[1., 0.], [2., 3.]]), torch.tensor([[0.5, 1.], [1.5, -1.]]))
    r = [fwAD.unpack_dual(torch.prod(x)).tangent, fwAD.unpack_dual(x.prod(1)).tangent, fwAD.unpack_dual(x.prod(0, True)).tangent]
r""",
}.items()}, tol=F32, vars=False)

# An op returning its argument as it is (to() with nothing to do, contiguous() of a contiguous
# tensor) leaves that tensor's version counter alone: a saved input read twice (retain_graph)
# after such a call inside the backward formula (pow's `self.to(result_type)`) still matches.
cases("version_kept_by_noop_ops", {
    "to_same_dtype": "x = torch.ones(3); x.add_(1); y = x.to(torch.float32); (y is x, x._version)",
    "to_no_grad": "x = torch.ones(3, requires_grad=True)\nwith torch.no_grad():\n    x.add_(1)\n    y = x.to(torch.float32)\n(y is x, x._version)",
    "contiguous": "x = torch.ones(2, 3); x.mul_(2); y = x.contiguous(); (y is x, x._version)",
    "pow_twice": """
a = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
b = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
with torch.no_grad():
    a.add_(1)
    b.add_(1)
y = torch.pow(a, b)
g1 = torch.autograd.grad(y, (a, b), retain_graph=True)
g2 = torch.autograd.grad(y, (a, b))
(g1, g2, a._version, b._version)""",
})
