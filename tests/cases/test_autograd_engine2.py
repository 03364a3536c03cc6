"""The engine with inputs= (torch.autograd.grad, backward(inputs=...)), compared with upstream 2.13.0:
only nodes from which a requested input is reachable run (upstream's exec_info), a formula
computes only the gradients a running node takes (the op stream a TorchDispatchMode sees),
autograd.grad captures an input's gradient at its node without running it (tensor pre-hooks and
retain_grad still fire there; a node that also leads further captures the gradient before its
hooks), backward(inputs=) makes non-leaf inputs retain their gradient, a single root leading to
no input still runs its tensor hooks, AccumulateGrad of leaves not requested never runs, and
CopySlices computes only the wanted gradients (no zero_ for the base when none is wanted).
torch._C._will_engine_execute_node (register_multi_grad_hook) answers from the same bookkeeping.
Then the norms' double backward (layer_norm_double_backward, batchnorm_double_backward): values and
the op stream of the second backward under a dispatch mode."""
from harness import cases
from harness.autograd import F32

PRE = """
import warnings
warnings.filterwarnings("ignore")
from torch.utils._python_dispatch import TorchDispatchMode
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
def err(f):
    try:
        return ("ok", f())
    except Exception as e:
        return (type(e).__name__, str(e))
torch.manual_seed(0)
log = []
x = torch.randn(3, requires_grad=True); w = torch.randn(3, requires_grad=True)
"""

# a = x * 2 and b = w.exp() meet in y = (a * b).sum(); hooks everywhere
AB = PRE + """
a = x * 2; b = w.exp()
y = (a * b).sum()
b.grad_fn.register_prehook(lambda g: log.append("exp prehook"))
b.grad_fn.register_hook(lambda gi, go: log.append("exp hook"))
b.register_hook(lambda g: log.append("b tensor hook"))
w.register_hook(lambda g: log.append("w leaf hook"))
x.register_hook(lambda g: log.append("x leaf hook"))
a.grad_fn.register_prehook(lambda g: log.append("a node prehook"))
a.grad_fn.register_hook(lambda gi, go: log.append("a node hook"))
"""

cases("autograd_engine_prune", {
    "grad_leaf_skips_other_branch": AB + """
with Trace() as t:
    g = torch.autograd.grad(y, x)
result = (g, log, t.ops, w.grad, x.grad)
""",
    "grad_nonleaf_captured_not_run": AB + """
a.register_hook(lambda g: (log.append("a tensor hook"), g * 10)[1])
a.retain_grad()
with Trace() as t:
    g = torch.autograd.grad(y, a)
result = (g, log, t.ops, a.grad, x.grad, w.grad)
""",
    "backward_inputs_nonleaf_runs_its_node": AB + """
a.register_hook(lambda g: (log.append("a tensor hook"), g * 10)[1])
with Trace() as t:
    y.backward(inputs=[a], retain_graph=True)
r1 = (list(log), t.ops, a.retains_grad, a.grad, x.grad, w.grad)
log.clear()
with Trace() as t:
    y.backward(inputs=[a])
result = (r1, log, t.ops, a.grad)
""",
    "backward_inputs_nonleaf_retains": PRE + """
c = x * 3
z = (c.sin() * w.exp()).sum()
with Trace() as t:
    z.backward(inputs=[c])
result = (t.ops, c.retains_grad, c.grad, x.grad, w.grad)
""",
    "backward_inputs_leaf_steals": PRE + """
v = torch.randn(3, requires_grad=True)
base = x * v
with Trace() as t:
    base.sum().backward(inputs=[x])
result = (t.ops, x.grad, v.grad)
""",
    "captured_and_needed_takes_raw_grad": PRE + """
h = x * 3
h.register_hook(lambda g: (log.append("h hook"), g * 10)[1])
g = torch.autograd.grad(h.sin().sum(), [h, x])
h2 = x * 3
h2.register_hook(lambda g: g * 10)
g2 = torch.autograd.grad(h2.sin().sum(), [h2])
h3 = x * 3
h3.retain_grad()
g3 = torch.autograd.grad(h3.sin().sum(), [h3, x])
result = (g, g2, g3, h3.grad, log)
""",
    "hook_order_retain_prehook": PRE + """
h = x * 3
h.register_hook(lambda g: (log.append(("t", g.sum().item())), g * 2)[1])
h.retain_grad()
h.register_hook(lambda g: (log.append(("t2", g.sum().item())), g * 3)[1])
h.grad_fn.register_prehook(lambda g: log.append(("n", g[0].sum().item())))
g = torch.autograd.grad((h * 1.0).sum(), x)
result = (log, h.grad, g)
""",
    "root_leading_nowhere": PRE + """
y2 = w.exp().sum()
y2.register_hook(lambda g: (log.append("root hook"), g)[1])
y2.grad_fn.register_prehook(lambda g: log.append("root node prehook"))
with Trace() as t:
    g = torch.autograd.grad(y2, x, allow_unused=True)
r1 = (g, list(log), t.ops)
log.clear()
y2.backward(inputs=[x])
result = (r1, log, x.grad, w.grad)
""",
    "two_roots_one_leading_nowhere": PRE + """
y2 = w.exp().sum(); y2.register_hook(lambda g: (log.append("y2 hook"), g)[1])
y3 = (x * 2).sum(); y3.register_hook(lambda g: (log.append("y3 hook"), g)[1])
with Trace() as t:
    g = torch.autograd.grad([y2, y3], x)
result = (g, log, t.ops)
""",
    "accumulate_grad_node_hooks": PRE + """
y = (x * 2).sum()
acc = y.grad_fn.next_functions[0][0].next_functions[0][0]
acc.register_prehook(lambda g: log.append("acc prehook"))
acc.register_hook(lambda gi, go: log.append("acc hook"))
x.register_post_accumulate_grad_hook(lambda t: log.append("post acc"))
x.register_hook(lambda g: (log.append("x hook"), g + 1)[1])
g = torch.autograd.grad(y, x, retain_graph=True)
r1 = (g, list(log), x.grad)
log.clear()
y.backward(inputs=[x])
result = (r1, log, x.grad)
""",
    # ours ran the formulas of unneeded inputs: igamma's derivative for its first input is
    # not_implemented upstream too, and must not be reached when only the second is requested
    "unneeded_formula_not_run": PRE + """
s = torch.tensor([0.5, 1.0], requires_grad=True); q = torch.tensor([1.5, 2.0], requires_grad=True)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a): return a * 1
    @staticmethod
    def backward(ctx, g): raise RuntimeError("bad backward ran")
out = (Bad.apply(w) * x).sum()
result = (err(lambda: torch.autograd.grad(torch.igamma(s, q).sum(), q)),
          err(lambda: torch.autograd.grad(torch.igamma(s, q).sum(), s)),
          err(lambda: torch.autograd.grad(out, x, retain_graph=True)),
          err(lambda: out.backward(inputs=[x])), x.grad)
""",
    "copyslices_prunes": PRE + """
v = torch.randn(2, requires_grad=True); u = torch.randn(3, requires_grad=True)
base = x * u
base[1:3].mul_(v)
y = base.sum()
v.register_hook(lambda g: log.append("v hook"))
u.register_hook(lambda g: log.append("u hook"))
with Trace() as t1:
    g1 = torch.autograd.grad(y, x, retain_graph=True)
with Trace() as t2:
    g2 = torch.autograd.grad(y, v, retain_graph=True)
with Trace() as t3:
    y.backward(inputs=[x], retain_graph=True)
result = (g1, g2, log, t1.ops, t2.ops, t3.ops, x.grad, v.grad)
""",
    "copyslices_base_without_history": PRE + """
b = torch.zeros(4); b[1:3] = x[:2]
b2 = torch.zeros(4); b2.as_strided((2,), (1,), 1).mul_(w[:2])
g = torch.randn(4)
with Trace() as t:
    b.backward(g)
with Trace() as t2:
    (b2 * g).sum().backward()
result = (t.ops, t2.ops, x.grad, w.grad)
""",
    "copyslices_op_stream": PRE + """
b = torch.zeros(4, requires_grad=True).clone(); b[1:3] = x[:2]
c = torch.zeros(4, requires_grad=True).clone(); c.as_strided((2,), (1,), 1).copy_(w[1:])
g = torch.randn(4)
with Trace() as t:
    b.backward(g)
with Trace() as t2:
    c.backward(g)
result = (t.ops, t2.ops, x.grad, w.grad)
""",
    "retain_grad_contiguous": PRE + """
m = torch.randn(3, 4, requires_grad=True)
h = m * 1; h.retain_grad()
(h.t() * torch.randn(4, 3)).sum().backward()
k = torch.randn(2, 3, 4, 5, requires_grad=True) * 1; k.retain_grad()
(k * torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)).sum().backward()
result = (h.grad.stride(), k.grad.stride(), h.grad, k.grad)
""",
    "multi_grad_hook": PRE + """
h1 = torch.autograd.graph.register_multi_grad_hook((x, w), lambda grads: log.append([g is None for g in grads]))
(x * 2).sum().backward()
r1 = list(log)
log.clear()
h1.remove()
h2 = torch.autograd.graph.register_multi_grad_hook((x, w), lambda g: log.append(("any", tuple(g.shape))), mode="any")
(x * w).sum().backward(inputs=[w])
r2 = list(log)
h2.remove()
h3 = torch.autograd.graph.register_multi_grad_hook((x, w), lambda grads: log.append(len(grads)))
r3 = err(lambda: torch.autograd.grad((x * w).sum(), [x]))
result = (r1, r2, r3, err(lambda: torch._C._will_engine_execute_node(x.exp().grad_fn)))
""",
}, tol=F32)

# layer_norm's double backward (derivatives.yaml: native_layer_norm_backward ->
# layer_norm_double_backward, a C helper in src/autograd/bw_helpers.c): gradgradcheck, the values
# and the op stream of the second backward under a dispatch mode
LN = PRE + """
import torch.nn.functional as F
def second(shape, norm, affine, bias, dtype, wrt_w=True):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=dtype, requires_grad=True)
    w = torch.randn(*norm, dtype=dtype, requires_grad=True) if affine else None
    b = torch.randn(*norm, dtype=dtype, requires_grad=True) if bias else None
    y = F.layer_norm(x, norm, w, b)
    ins = [p for p in (x, w, b) if p is not None]
    gs = torch.autograd.grad((y * y.detach().sin()).sum(), ins, create_graph=True)
    loss = gs[0].pow(2).sum()
    if affine and wrt_w:
        loss = loss + (gs[1] * gs[1]).sum()
    if bias:
        loss = loss + gs[-1].sin().sum()
    with Trace() as t:
        r = torch.autograd.grad(loss, ins[:2] if affine else ins, allow_unused=True)
    return t.ops, r
"""
cases("layer_norm_double_backward", {
    "gradgradcheck": LN + """
x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
w = torch.randn(4, dtype=torch.float64, requires_grad=True); b = torch.randn(4, dtype=torch.float64, requires_grad=True)
w2 = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
result = (torch.autograd.gradgradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b)),
          torch.autograd.gradgradcheck(lambda x: F.layer_norm(x, (3, 4)), (x,)),
          torch.autograd.gradgradcheck(lambda x, w: F.layer_norm(x, (3, 4), w), (x, w2)))
""",
    "affine_bias_f64": LN + "result = second((2, 3, 4), (3, 4), True, True, torch.float64)",
    "affine_f32": LN + "result = second((5, 6), (6,), True, False, torch.float32)",
    "no_affine_f64": LN + "result = second((2, 3, 4), (4,), False, False, torch.float64)",
    "input_only_f32": LN + "result = second((4, 2, 3), (2, 3), True, True, torch.float32, wrt_w=False)",
}, tol=F32)

# batch norm's double backward (batchnorm_double_backward, moved to bw_helpers.c as the helper of
# the generated native_batch_norm_backward / batch_norm_backward rows; its op order is upstream's)
BN = PRE + """
import torch.nn.functional as F
def second(training, affine, module=False):
    torch.manual_seed(0)
    x = torch.randn(3, 4, 2, 2, dtype=torch.float64, requires_grad=True)
    if module:
        m = torch.nn.BatchNorm2d(4).double()
        if not training:
            m.eval()
        y = m(x)
        ins = [x] + list(m.parameters())
    else:
        w = torch.randn(4, dtype=torch.float64, requires_grad=True) if affine else None
        b = torch.randn(4, dtype=torch.float64, requires_grad=True) if affine else None
        rm = torch.randn(4, dtype=torch.float64); rv = torch.rand(4, dtype=torch.float64) + 0.5
        y = F.batch_norm(x, rm, rv, w, b, training=training)
        ins = [p for p in (x, w, b) if p is not None]
    gs = torch.autograd.grad((y * y.detach().sin()).sum(), ins, create_graph=True)
    loss = sum((g * g).sum() for g in gs)
    with Trace() as t:
        r = torch.autograd.grad(loss, ins, allow_unused=True)
    return t.ops, r
"""
cases("batch_norm_double_backward", {
    "train_affine": BN + "result = second(True, True)",
    "train_plain": BN + "result = second(True, False)",
    "eval_affine": BN + "result = second(False, True)",
    "eval_plain": BN + "result = second(False, False)",
    "module_train": BN + "result = second(True, True, module=True)",
    "module_eval": BN + "result = second(False, True, module=True)",
}, tol=F32)

# upstream's Negative and Conjugate fallbacks as a dispatch mode sees them (dispatch/door.c): an op
# without a fallthrough gets each conjugate / negative view as a `clone` first (a written one is
# copied back with `copy_`); views, copy_, clone, mm / addmm / bmm / dot and the tensor utilities
# take the view as it is; composites decompose first (matmul reaches mm)
CJ = PRE + """
a = torch.randn(3, dtype=torch.complex64); b = torch.randn(3, dtype=torch.complex64)
A = torch.randn(3, 3, dtype=torch.complex64)
def trace(f):
    with Trace() as t:
        r = f()
    return t.ops, r.is_conj(), r.is_neg(), r.resolve_conj().resolve_neg()
"""
cases("conj_fallback_under_mode", {
    "pointwise": CJ + "result = [trace(f) for f in (lambda: a.conj() + b, lambda: a.conj().abs(), lambda: a.conj().sum(), lambda: torch.where(a.real > 0, a.conj(), b))]",
    "linalg_fallthrough": CJ + "result = [trace(f) for f in (lambda: torch.mm(A.conj(), A), lambda: A.conj() @ A, lambda: torch.dot(a.conj(), b), lambda: A.conj().t().contiguous())]",
    "views_and_copies": CJ + "result = [trace(f) for f in (lambda: a.conj().clone(), lambda: a.conj().resolve_conj(), lambda: a.conj().view(3, 1), lambda: a.conj()[1], lambda: a.conj().to(torch.complex128))]",
    "lists": CJ + "result = [trace(f) for f in (lambda: torch.cat([a.conj(), b]), lambda: torch.stack([a.conj(), b.conj()]))]",
    "written": CJ + "result = [trace(f) for f in (lambda: a.clone().conj().add_(b), lambda: a.clone().add_(b.conj()), lambda: torch.mul(a, b, out=torch.zeros(3, dtype=torch.complex64).conj()), lambda: torch.zeros(3, dtype=torch.complex64).conj().copy_(a))]",
    "negative_view": CJ + "result = [trace(f) for f in (lambda: a.conj().imag * 2, lambda: a.conj().imag.clone(), lambda: torch._neg_view(a) + 1)]",
    "complex_backward": CJ + '''
x = torch.randn(3, dtype=torch.complex64, requires_grad=True); y = torch.randn(3, dtype=torch.complex64, requires_grad=True)
g = torch.randn(3, dtype=torch.complex64)
out = []
for f in (lambda: x * y, lambda: x.sgn(), lambda: x.conj() * 2, lambda: (x.abs() * y).exp()):
    z = f()
    with Trace() as t:
        r = torch.autograd.grad(z, (x, y), g, allow_unused=True)
    out.append((t.ops, r))
result = out
''',
}, tol=F32)
