"""torch.autograd.Function (src/autograd/function.c) compared with upstream: custom Functions'
gradients and graphs, ctx behaviours (mark_dirty, mark_non_differentiable, set_materialize_grads,
setup_context, once_differentiable, saved tensors and their errors), saved_tensors_hooks and
torch.utils.checkpoint in both modes. Float32 gradients use the fixed rule of tests/harness/autograd.py;
structure and errors (type and message, returned as text) are exact."""
from harness import cases
from harness.autograd import F32 as GRAD_TOL, GRAPH, ERR

PRE = """
from torch.autograd import Function
from torch.autograd.function import once_differentiable
""" + GRAPH + """
""" + ERR + """
class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y
class MulAdd(Function):
    @staticmethod
    def forward(ctx, x, k, y):
        ctx.k = k
        ctx.save_for_backward(x, y)
        return x * y * k, x + y
    @staticmethod
    def backward(ctx, ga, gb):
        x, y = ctx.saved_tensors
        return ga * y * ctx.k + gb, None, ga * x * ctx.k + gb
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
w = torch.randn(3, 4, requires_grad=True)
"""


def fcases(name, snippets, **kw):
    cases(name, {k: PRE + v for k, v in snippets.items()}, vars=False, **kw)


fcases("function_grads", {
    "exp": "out = Exp.apply(x); (out * torch.arange(4.)).sum().backward(); result = (graph(out), x.grad, out.requires_grad, out.is_leaf)",
    "two_outputs": "a, b = MulAdd.apply(x, 2.5, w); (a.sum() + (b * b).sum()).backward(); result = (graph(a), a.grad_fn is b.grad_fn, a.output_nr, b.output_nr, x.grad, w.grad)",
    "non_tensor_args": "a, b = MulAdd.apply(x, 3, torch.ones(3, 4)); a.sum().backward(); result = (graph(a), a.grad_fn.needs_input_grad, x.grad)",
    "chain": "out = Exp.apply(Exp.apply(x * 0.1) + w); out.sum().backward(); result = (graph(out), x.grad, w.grad)",
    "kwargs": """
class K(Function):
    @staticmethod
    def forward(ctx, a, b=None, c=2.0):
        return a * c + (b if b is not None else 0)
    @staticmethod
    def backward(ctx, g):
        return g * 2, g, None
out = K.apply(x, b=w); out.sum().backward()
result = (graph(out), x.grad, w.grad, err(lambda: K.apply(x, c=1.0)), err(lambda: K.apply(x, q=1)), err(lambda: K.apply(x, a=w)))
""",
    "setup_context": """
class SC(Function):
    @staticmethod
    def forward(a, p=2.0):
        return a.abs() ** p
    @staticmethod
    def setup_context(ctx, inputs, output):
        a, p = inputs
        ctx.p = p
        ctx.save_for_backward(a, output)
    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        return g * ctx.p * a.abs() ** (ctx.p - 1) * a.sign(), None
out = SC.apply(x, p=3.0); out.sum().backward()
result = (graph(out), x.grad)
""",
    "materialize_default": """
class M(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3, 7, torch.arange(3)
    @staticmethod
    def backward(ctx, g1, g2, g3, g4):
        ctx.seen = (g1, g2, g3, g4)
        return g1 + g2
r = M.apply(x); r[0].sum().backward(); node = r[0].grad_fn
result = (graph(r[0]), r[2], r[3].requires_grad, r[3].grad_fn, node.seen, x.grad)
""",
    "materialize_false": """
class M(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.set_materialize_grads(False)
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        ctx.seen = (g1, g2)
        return g1 * 2 if g1 is not None else None
r = M.apply(x); r[0].sum().backward()
result = (r[0].grad_fn.seen, x.grad)
""",
    "non_differentiable": """
class ND(Function):
    @staticmethod
    def forward(ctx, a):
        s, i = a.sort(-1)
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return s, i
    @staticmethod
    def backward(ctx, gs, gi):
        i, = ctx.saved_tensors
        ctx.seen = gi
        return torch.zeros_like(gs).scatter(-1, i, gs)
s, i = ND.apply(x); (s * torch.arange(4.)).sum().backward()
result = (graph(s), i.requires_grad, i.grad_fn, s.grad_fn.seen, s.grad_fn.non_differentiable, x.grad)
""",
    "mark_dirty": """
class Dbl(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g * 2
y = x * 1; v = y._version; r = Dbl.apply(y); (r * r).sum().backward()
result = (r is y, y._version - v, graph(r), y.grad_fn.name(), x.grad, r.grad_fn.dirty_tensors)
""",
    "input_returned": """
class Id(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a, b
    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 3, gb
b = torch.ones(3, 4)
o1, o2 = Id.apply(x, b); (o1 + o2).sum().backward()
result = (o1 is x, o1._base is x, o1.is_leaf, o2 is b, o2._base is b, o2.requires_grad, graph(o1), x.grad)
""",
    "once_differentiable": """
class OD(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 2
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return 2 * a * g
o = OD.apply(x); o.sum().backward(); g1 = x.grad.clone()
o = OD.apply(x); g, = torch.autograd.grad(o.sum(), x, create_graph=True)
result = (g1, g.requires_grad, g.grad_fn.name(), graph(g), err(lambda: g.sum().backward()))
""",
    "double_backward": """
class Cube(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 3
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return 3 * a ** 2 * g
o = Cube.apply(x); g, = torch.autograd.grad(o.sum(), x, create_graph=True); g.sum().backward()
result = (g, x.grad, graph(g))
""",
    "no_grad": """
with torch.no_grad():
    o = Exp.apply(x)
o2 = Exp.apply(torch.ones(2))
result = (o.requires_grad, o.grad_fn, o2.requires_grad, o2.grad_fn)
""",
    "node_api": """
o = Exp.apply(x); c = o.grad_fn
log = []
c.register_hook(lambda gi, go: log.append(('post', gi[0].shape)))
c.register_prehook(lambda go: log.append(('pre', go[0].shape)))
c.metadata['k'] = 1
o.sum().backward()
result = (type(c).__name__, type(c).__mro__[1].__name__, c.name(), c.needs_input_grad, c.to_save, c.dirty_tensors,
          c.metadata, log, type(c._sequence_nr()).__name__, err(lambda: c.materialize_grads), c._materialize_non_diff_grads,
          isinstance(c, torch._C._FunctionBase), err(lambda: c(torch.ones(3))), err(lambda: c._raw_saved_tensors))
o = MulAdd.apply(x, 2, w); raw = o[0].grad_fn._raw_saved_tensors
result = result + ([type(r).__name__ for r in raw], raw[0].unpack() is x)
o = Exp.apply(x); result = result + (err(lambda: o.grad_fn._raw_saved_tensors[0].unpack()),)
""",
}, tol=GRAD_TOL)

fcases("function_errors", {
    "modified_saved": "y = x * 1; o = Exp.apply(y); o.add_(1); result = err(lambda: o.sum().backward())",
    "modified_saved_leaf": """
class Sv(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a
leaf = torch.tensor([1., 2., 3.], requires_grad=True)
o = Sv.apply(leaf)
with torch.no_grad():
    leaf.add_(1)
result = err(lambda: o.sum().backward())
""",
    "backward_twice": "o = Exp.apply(x); o.sum().backward(); result = (err(lambda: o.sum().backward()), err(lambda: o.grad_fn.saved_tensors))",
    "retain_graph": "o = Exp.apply(x); o.sum().backward(retain_graph=True); o.sum().backward(); result = x.grad",
    "wrong_count": """
class Bad(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b
    @staticmethod
    def backward(ctx, g):
        return g
result = err(lambda: Bad.apply(x, w).sum().backward())
""",
    "extra_none_ok": """
class Ok(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None, None
Ok.apply(x).sum().backward(); result = x.grad
""",
    "grad_for_non_tensor": """
class Bad(Function):
    @staticmethod
    def forward(ctx, a, n):
        return a * n
    @staticmethod
    def backward(ctx, g):
        return g, g
result = err(lambda: Bad.apply(x, 2).sum().backward())
""",
    "grad_not_tensor": """
class Bad(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return 3
result = err(lambda: Bad.apply(x).sum().backward())
""",
    "wrong_shape": """
class Bad(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)
result = err(lambda: Bad.apply(x).sum().backward())
""",
    "save_non_tensor": """
class Bad(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g
result = err(lambda: Bad.apply(x))
""",
    "dirty_leaf": """
class D(Function):
    @staticmethod
    def forward(ctx, a):
        a.add_(1)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g
result = err(lambda: D.apply(x))
""",
    "dirty_not_returned": """
class D(Function):
    @staticmethod
    def forward(ctx, a):
        a.add_(1)
        ctx.mark_dirty(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g
result = err(lambda: D.apply(x * 1))
""",
    "op_saved_modified": """
leaf = torch.tensor([1., 2.], requires_grad=True)
y = leaf * 1; z = y * y; y.add_(1)
e1 = err(lambda: z.sum().backward())
z = leaf * leaf
with torch.no_grad():
    leaf.mul_(2)
e2 = err(lambda: z.sum().backward())
y = (leaf * 1).exp(); y.add_(1)
e3 = err(lambda: y.sum().backward())
result = (e1, e2, e3)
""",
    "bad_args": """
result = (err(lambda: Exp.apply('a')), err(lambda: Exp.apply(None)),
          err(lambda: torch._C._autograd._push_saved_tensors_default_hooks(1))[0],   # pybind's wording differs
          err(lambda: torch._C._autograd._make_saved_tensor(3, False))[0],
          torch._C._autograd._make_saved_tensor(x, False).unpack() is x)
""",
    "no_forward": "class F(Function): pass\nresult = err(lambda: F.apply(x))",
    "forward_raises": """
class F(Function):
    @staticmethod
    def forward(ctx, a):
        raise ValueError('boom')
result = err(lambda: F.apply(x))
""",
    "base_apply": "result = (err(lambda: torch._C._FunctionBase.apply(x)), err(lambda: Exp.apply()), err(lambda: Exp.apply(x, x)))",
    "instantiate": "import warnings\nwith warnings.catch_warnings():\n    warnings.simplefilter('ignore')\n    e = Exp()\nresult = err(lambda: e(x))",
    "non_tensor_output": """
class F(Function):
    @staticmethod
    def forward(ctx, a):
        return 5
result = (F.apply(x), type(F.apply(x)).__name__)
""",
})

fcases("saved_tensors_hooks", {
    "function_pack_unpack": """
log = []
def pack(t):
    log.append(('pack', tuple(t.shape), t.requires_grad))
    return ('P', t)
def unpack(p):
    log.append(('unpack', p[0]))
    return p[1]
class S(Function):
    @staticmethod
    def forward(ctx, a):
        y = a.exp()
        ctx.save_for_backward(a, y)
        return y
    @staticmethod
    def backward(ctx, g):
        a, y = ctx.saved_tensors
        log.append((a is x, a.requires_grad, a.grad_fn, y.grad_fn is not None))
        return g * y
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    o = S.apply(x)
o.sum().backward()
result = (log, x.grad)
""",
    "function_replace": """
class S(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return 2 * a * g
with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 0 + 1, lambda t: t):
    o = S.apply(x)
o.sum().backward()
result = x.grad
""",
    "ops": """
log = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: log.append('p') or t * 2, lambda t: log.append('u') or t):
    o = (x * w).sum() + x.exp().sum()
o.backward()
result = (log, x.grad, w.grad)
""",
    "nested_and_disabled": """
from torch.autograd.graph import saved_tensors_hooks, disable_saved_tensors_hooks
seen = []
with saved_tensors_hooks(lambda t: seen.append('outer') or t, lambda t: t):
    with saved_tensors_hooks(lambda t: seen.append('inner') or t, lambda t: t):
        o = Exp.apply(x)
    o2 = Exp.apply(x)
def f():
    with disable_saved_tensors_hooks('hooks are off'):
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
result = (seen, err(f), torch._C._autograd._saved_tensors_hooks_is_enabled())
""",
    "unpack_not_tensor": """
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
    o = Exp.apply(x)
result = err(lambda: o.sum().backward())
""",
}, tol=GRAD_TOL)

MLP = """
import torch.utils.checkpoint as cp
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
inp = torch.randn(8, 6, requires_grad=True)
def run(reentrant):
    for p in net.parameters():
        p.grad = None
    inp.grad = None
    h = cp.checkpoint(net[:3], inp, use_reentrant=reentrant)
    out = cp.checkpoint(net[3:], h, use_reentrant=reentrant)
    out.log_softmax(-1).mean().backward()
    return [p.grad for p in net.parameters()] + [inp.grad, out]
"""

cases("checkpoint", {
    "reentrant": MLP + "result = run(True)",
    "non_reentrant": MLP + "result = run(False)",
    "plain_vs": MLP + "a = run(False); b = run(True); result = [torch.allclose(p, q, atol=1e-6) for p, q in zip(a, b)]",
    "reentrant_graph": MLP + "h = cp.checkpoint(net, inp, use_reentrant=True); result = (h.grad_fn.name(), [f.name() if f else None for f, _ in h.grad_fn.next_functions])",
}, tol=GRAD_TOL, vars=False)
