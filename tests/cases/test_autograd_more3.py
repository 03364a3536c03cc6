"""Autograd details of issue #8 (helper-autograd, third round), compared with upstream 2.13.0
(docs/autograd_more2.md, "Below autograd", "out= and requires_grad", "Sequence numbers",
"The autograd fallback's inner ops", "lift, lift_fresh, lift_fresh_copy"):

- inside a TorchDispatchMode's or a tensor subclass's __torch_dispatch__, grad mode reads as the
  user set it (upstream excludes the autograd keys there, it does not turn grad mode off), yet
  nothing the handler runs records, not even under enable_grad; autograd.Function.forward still
  runs with grad mode off;
- out= overloads refuse only when a differentiable input, or an out tensor standing for a
  differentiable output, requires grad (lu_unpack's P is not differentiable);
- sequence numbers of chains with in-place ops (original_self's clone) and views;
- quantized::linear_dynamic_fp16_unpacked_weight: the bias add inside the kernel records
  (AddBackward0, the bias gets its gradient), the fallback's hook warns in backward;
- aten::lift, lift_fresh, lift_fresh_copy (and the out= forms).
"""
from harness import cases
from harness.autograd import F32, GRAPH, ERR

MODE = ERR + """
import warnings
from torch.utils._python_dispatch import TorchDispatchMode
class Log(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append((str(func), torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
                         torch._C._is_any_autocast_enabled()))
        return func(*args, **(kwargs or {}))
class Inner(TorchDispatchMode):
    # ops run inside the handler on fresh tensors requiring grad: do they record?
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        r = func(*args, **(kwargs or {}))
        if not self.log:
            z = torch.ones(2, requires_grad=True)
            w = z * 3
            v = w.exp()
            with torch.enable_grad():
                u = z * 4
                g = torch.is_grad_enabled()
            self.log.append((str(func), w.grad_fn, v.grad_fn, w.requires_grad, u.grad_fn, u.requires_grad, g,
                             z.requires_grad, torch.is_grad_enabled()))
        return r
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
"""

cases("below_autograd_mode", {k: MODE + v for k, v in {
    "reads_grad_mode": "m = Log()\nwith m:\n    y = (x * 2).sin()\n(m.log, y.grad_fn.name(), y.requires_grad, torch.is_grad_enabled())",
    "no_grad_outside": "m = Log()\nwith torch.no_grad():\n    with m:\n        y = x * 2\n(m.log, y.requires_grad)",
    "enable_grad_inside_no_grad": "m = Log()\nwith torch.no_grad():\n    with torch.enable_grad():\n        with m:\n            y = x * 2\n(m.log, y.grad_fn.name())",
    "inference_mode_outside": "m = Log()\nwith torch.inference_mode():\n    with m:\n        y = x * 2\n(m.log, y.requires_grad)",
    "set_grad_enabled_false": "m = Log()\ntorch.set_grad_enabled(False)\ntry:\n    with m:\n        y = x * 2\nfinally:\n    torch.set_grad_enabled(True)\n(m.log, y.requires_grad)",
    "backward_under_mode": "m = Log()\ny = (x * 2).sin()\nwith m:\n    y.sum().backward()\n(m.log, x.grad)",
    "grad_under_mode_create_graph": "m = Log()\ny = (x * x).sum()\nwith m:\n    g, = torch.autograd.grad(y, x, create_graph=True)\n(m.log, g.grad_fn.name(), g)",
    "inner_requires_grad": "m = Inner()\nwith m:\n    y = x * 2\n(m.log, y.grad_fn.name())",
    "inner_factory": "m = Inner()\nwith m:\n    y = torch.ones(3)\n(m.log, y.requires_grad)",
    "inner_no_grad_input": "m = Inner()\nwith m:\n    y = torch.arange(3) + 1\nm.log",
    "function_forward": """
log = []
class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        log.append(("forward", torch.is_grad_enabled()))
        return a * 2
    @staticmethod
    def backward(ctx, g):
        log.append(("backward", torch.is_grad_enabled()))
        return g * 2
m = Log()
with m:
    out = Fn.apply(x)
    out.sum().backward()
(log, m.log, out.grad_fn.name(), x.grad)""",
    "nested_modes": "a, b = Log(), Log()\nwith a:\n    with b:\n        y = x.exp()\n(a.log, b.log, y.grad_fn.name())",
    "view_in_handler": """
class V(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        r = func(*args, **(kwargs or {}))
        if func is torch.ops.aten.mul.Tensor and not hasattr(self, "res"):
            t = torch.ones(4, requires_grad=True)
            v = t[1:]
            self.res = [v._base is t, v._is_view(), v.requires_grad, v.grad_fn, err(lambda: v.mul_(2)), v.grad_fn, t.grad_fn, t]
        return r
m, n = V(), V()
with m:
    x * 2
with torch.no_grad():
    with n:
        x * 2
(m.res, n.res)""",
}.items()})

SUB = """
from torch.utils._pytree import tree_map
class W(torch.Tensor):
    seen = []
    @staticmethod
    def __new__(cls, elem):
        return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, requires_grad=elem.requires_grad)
    def __init__(self, elem):
        self.elem = elem
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        W.seen.append((str(func), torch.is_grad_enabled()))
        un = lambda t: t.elem if isinstance(t, W) else t
        z = torch.ones(2, requires_grad=True) * 3
        W.seen.append(z.requires_grad)
        out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
        return tree_map(lambda t: W(t) if isinstance(t, torch.Tensor) else t, out)
"""
cases("below_autograd_subclass", {k: SUB + v for k, v in {
    "reads_grad_mode": "a = W(torch.ones(3))\nb = a * 2\nW.seen",
    "no_grad": "a = W(torch.ones(3))\nwith torch.no_grad():\n    b = a * 2\nW.seen",
}.items()})

OUT = ERR + """
A = torch.tensor([[1., 2., 0.], [2., 1., 3.], [4., 2., 2.]])   # an LU exact in binary
LU, piv = torch.linalg.lu_factor(A)
x = torch.arange(12.).view(3, 4).sub(5.5).requires_grad_()
xd = x.detach()
def e(): return torch.empty(3, 3)
def er(): return torch.empty(3, 3, requires_grad=True)
"""
cases("out_requires_grad", {k: OUT + v for k, v in {
    "lu_unpack_P": "P, L, U = er(), e(), e()\nr = torch.lu_unpack(LU, piv, out=(P, L, U))\n(r, P.requires_grad, P.grad_fn, L.requires_grad, U.requires_grad, r[0] is P)",
    "lu_unpack_L": "err(lambda: torch.lu_unpack(LU, piv, out=(e(), er(), e())))",
    "lu_unpack_U": "err(lambda: torch.lu_unpack(LU, piv, out=(e(), e(), er())))",
    "lu_unpack_LU_requires": "err(lambda: torch.lu_unpack(LU.clone().requires_grad_(), piv, out=(e(), e(), e())))",
    "lu_unpack_no_unpack_data": "P = er()\nr = torch.lu_unpack(LU, piv, unpack_data=False, out=(P, torch.empty(0), torch.empty(0)))\n(r, P.requires_grad)",
    "max_values": "err(lambda: torch.max(xd, 0, out=(torch.empty(4, requires_grad=True), torch.empty(4, dtype=torch.long))))",
    "max_input": "err(lambda: torch.max(x, 0, out=(torch.empty(4), torch.empty(4, dtype=torch.long))))",
    "aminmax": "err(lambda: torch.aminmax(xd, dim=0, out=(torch.empty(4, requires_grad=True), torch.empty(4))))",
    "sort_values": "err(lambda: torch.sort(xd, out=(torch.empty(3, 4, requires_grad=True), torch.empty(3, 4, dtype=torch.long))))",
    "add": "err(lambda: torch.add(xd, 1, out=torch.empty(3, 4, requires_grad=True)))",
    "add_input": "err(lambda: torch.add(x, 1, out=torch.empty(3, 4)))",
    "sign": "err(lambda: torch.sign(xd, out=torch.empty(3, 4, requires_grad=True)))",
    "eq_float_out": "o = torch.empty(3, 4, requires_grad=True)\nr = torch.eq(xd, 1, out=o)\n(r, o.requires_grad, o.grad_fn)",
    "histc_out": "o = torch.empty(10, requires_grad=True)\nr = torch.histc(xd, bins=10, out=o)\n(r, o.requires_grad)",
    "frexp": "err(lambda: torch.frexp(xd, out=(torch.empty(3, 4, requires_grad=True), torch.empty(3, 4, dtype=torch.int))))",
    "no_derivative_entry": "err(lambda: torch.floor_divide(xd, 2, out=torch.empty(3, 4, requires_grad=True)))",
    "factory": "err(lambda: torch.zeros(3, out=torch.empty(3, requires_grad=True)))",
    "no_grad_ok": "o = torch.empty(3, 4, requires_grad=True)\nwith torch.no_grad():\n    r = torch.add(x, 1, out=o)\n(r, o.requires_grad)",
}.items()})

SEQ = """
L = []
def r(t, tag):
    L.append((tag, t.grad_fn.name(), t.grad_fn._sequence_nr()))
    return t
def rel():
    return [(tag, n, s - L[0][2]) for tag, n, s in L]
torch.manual_seed(0)
x = torch.randn(4, 4, requires_grad=True)
"""
cases("sequence_nr", {k: SEQ + v for k, v in {
    "inplace_chain": "a = r(x * 2, 'mul'); b = r(a.sin(), 'sin'); r(b.mul_(3), 'mul_'); c = r(b.exp(), 'exp'); r(c.add_(1), 'add_')\nd = r(c * c, 'mul2'); r(d.sin_(), 'sin_'); r(d * 1, 'after')\nrel()",
    "views": "a = r(x * 2, 'mul'); v = r(a[1], 'select'); r(v.mul_(2), 'v.mul_'); r(a, 'base'); w = r(a.sum(), 'sum')\nv2 = r(a[:, 0], 'select2'); r(v2.exp_(), 'v2.exp_'); r(a, 'base2'); r(a * 1, 'after')\nrel()",
    "self_inputs": "a = r(x + 0, 'add'); r(a.add_(1), 'add_'); r(a.relu_(), 'relu_'); r(a.mul_(a), 'mul_self'); r(a.cos(), 'cos')\nrel()",
    "view_of_leaf_derived": "a = r(x * 1, 'mul'); t = r(a.t(), 't'); r(t.sigmoid_(), 'sigmoid_'); r(a, 'base'); u = r(a.tanh(), 'tanh')\nr(u.pow_(2), 'pow_'); r(u.div_(torch.ones(4, 4, requires_grad=True)), 'div_'); r(u * 1, 'after')\nrel()",
    "view_of_plain": "y = x.detach().clone(); y2 = y.view(16); r(y2.mul_(torch.ones(16, requires_grad=True)), 'view mul_'); r(y, 'base'); r(y * 1, 'after')\nrel()",
    "foreach": "a = [r(x * 1, 'mul'), x * 2]\nb = torch._foreach_mul(a, 3); r(b[0], 'foreach_mul')\ntorch._foreach_exp_(a); r(a[0], 'foreach_exp_0'); r(a[1], 'foreach_exp_1'); r(a[0] * 1, 'after')\nrel()",
    "backward_still_runs": "a = x * 2; a.sin_(); v = a[0]; v.exp_(); a.sum().backward()\nx.grad",
}.items()}, tol=F32)

# a dispatch mode logging the names of the ops it sees (the two "mode_sees" cases)
NAMES = """
from torch.utils._python_dispatch import TorchDispatchMode
class M(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.log = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(str(func))
        return func(*args, **(kwargs or {}))
"""
QL = ERR + """
import warnings
torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)
w = torch.randn(4, 3, requires_grad=True)
b = torch.randn(4, requires_grad=True)
op = torch.ops.quantized.linear_dynamic_fp16_unpacked_weight
def bw(y):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        y.sum().backward()
    return [(ww.category.__name__, str(ww.message)[:120]) for ww in ws]
"""
cases("qlinear_fp16_unpacked_autograd", {k: GRAPH + QL + v for k, v in {
    "all_require": "y = op(x, w, b)\n(y, graph(y), bw(y), x.grad, w.grad, b.grad)",
    "bias_only": "y = op(x.detach(), w.detach(), b)\n(y, graph(y), bw(y), b.grad)",
    "no_bias": "y = op(x, w, None)\n(y, graph(y), bw(y), x.grad, w.grad)",
    "none_require": "y = op(x.detach(), w.detach(), b.detach())\n(y, y.requires_grad, y.grad_fn)",
    "no_grad": "with torch.no_grad():\n    y = op(x, w, b)\n(y, y.requires_grad)",
    "mode_sees": NAMES + """
m = M()
with m:
    y = op(x.detach(), w.detach(), b)
(m.log, y.grad_fn.name() if y.grad_fn else None)""",
}.items()}, tol=F32)

LIFT = ERR + GRAPH + """
torch.manual_seed(0)
nc = torch.randn(4, 3).t()
cl = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
"""
cases("lift", {k: LIFT + v for k, v in {
    "copy_values": "[torch.ops.aten.lift_fresh_copy(t) for t in (torch.randn(3, 4), nc, cl, torch.tensor(3.), torch.arange(5)[::2], torch.tensor([1, 2], dtype=torch.int8), torch.tensor(True))]",
    "copy_layout": "[(r.stride(), r.is_contiguous(), r._is_view(), r.data_ptr() != t.data_ptr()) for t in (nc, cl, torch.arange(5)[::2], torch.randn(4, 4)[:, ::2]) for r in [torch.ops.aten.lift_fresh_copy(t)]]",
    "copy_bits": "c = torch.tensor([1+2j, 3-1j]).conj()\nn = torch.tensor([1., 2.])._neg_view()\nrc, rn = torch.ops.aten.lift_fresh_copy(c), torch.ops.aten.lift_fresh_copy(n)\n(rc, rc.is_conj(), rn, rn.is_neg())",
    "copy_autograd": "x = torch.randn(3, requires_grad=True)\ny = torch.ops.aten.lift_fresh_copy(x * 2)\ny.backward(torch.arange(3.))\n(graph(y), x.grad)",
    "copy_no_grad": "x = torch.randn(3, requires_grad=True)\nwith torch.no_grad():\n    y = torch.ops.aten.lift_fresh_copy.default(x)\n(y.requires_grad, y.grad_fn)",
    "copy_out": "o = torch.empty(3)\nr = torch.ops.aten.lift_fresh_copy.out(torch.arange(3.), out=o)\n(r is o, o)",
    "copy_out_empty": "o = torch.empty(0)\nr = torch.ops.aten.lift_fresh_copy.out(torch.arange(6.).view(2, 3), out=o)\n(r is o, o)",
    "copy_out_dtype": "err(lambda: torch.ops.aten.lift_fresh_copy.out(torch.randn(3), out=torch.empty(3, dtype=torch.int64)))",
    "copy_out_requires_grad": "err(lambda: torch.ops.aten.lift_fresh_copy.out(torch.randn(3, requires_grad=True), out=torch.empty(3)))",
    "copy_bad_args": "(err(lambda: torch.ops.aten.lift_fresh_copy(torch.randn(3), 1)), err(lambda: torch.ops.aten.lift_fresh_copy(3)))",
    "copy_out_graph": """
x = torch.randn(3, requires_grad=True)
b = torch.zeros(2, 3)
torch.ops.aten.lift_fresh_copy.out(x, out=b[0])
r = [b.grad_fn.name(), b.requires_grad, err(lambda: b.sum().backward())]
y = torch.randn(3, requires_grad=True) * 1
torch.ops.aten.lift_fresh_copy.out(torch.ones(3), out=y)
r += [graph(y), y.requires_grad, y.is_leaf, err(lambda: y.sum().backward())]
l = torch.randn(2, 3, requires_grad=True)
r += [err(lambda: torch.ops.aten.lift_fresh_copy.out(torch.ones(3), out=l[0])), err(lambda: torch.ops.aten.lift_fresh_copy.out(torch.ones(3), out=l))]
with torch.no_grad():
    torch.ops.aten.lift_fresh_copy.out(torch.ones(3), out=l[0])
r + [l, l.grad_fn]""",
    "lift_fresh_same": "t = torch.randn(3)\n(torch.ops.aten.lift_fresh(t) is t, torch.ops.aten.lift_fresh(nc) is nc)",
    "lift_same": "t = torch.randn(3)\n(torch.ops.aten.lift(t) is t, torch.ops.aten.lift.default(cl) is cl, torch.ops.aten.lift(t).stride())",
    "lift_out": "o = torch.empty(3)\nr = torch.ops.aten.lift.out(torch.arange(3.), out=o)\n(r is o, o, err(lambda: torch.ops.aten.lift.out(torch.arange(3.), out=torch.empty(3, dtype=torch.int32))))",
    "mode_sees": NAMES + """
m = M()
t = torch.randn(3)
with m:
    torch.ops.aten.lift_fresh_copy(t)
    torch.ops.aten.lift_fresh(t)
    torch.ops.aten.lift(t)
m.log""",
}.items()})
