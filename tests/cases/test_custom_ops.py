"""torch.library.custom_op on torchnative (src/python/library.c): a custom op's kernels run by
upstream's dispatch stages (autograd, ADInplaceOrView, backend), so register_autograd's formula is
the gradient (it was ignored: the CPU kernel ran first and autograd recorded its inner ops);
with_keyset kernels get the DispatchKeySet and continue through OpOverload.redispatch
(torch._C._dispatch_find_schema_or_throw's _DispatchOperatorHandle.redispatch_boxed);
torch._C._AutoDispatchBelowAutograd and _any_requires_grad; mutating custom ops define (upstream's
register_ad_inplace_or_view_fallback) and bump the mutated tensor's version as upstream's. A
torch.library operator with no autograd kernel goes through autograd's fallback (mode "warn"):
backward through its outputs warns, a detached output gets a WarnNotImplemented node; modes
"nothing" / "error" as upstream's. Each case defines its own namespace, since the harness's
workers are shared; a case that sets the fallback mode puts "warn" back."""
from harness import cases

PRE = """
import warnings
warnings.filterwarnings("ignore")
def err(f):
    try:
        return f()
    except Exception as e:
        return (type(e).__name__, str(e))
"""

SIN = PRE + """
@torch.library.custom_op("{ns}::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)
def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
def backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * x * 10
torch.library.register_autograd("{ns}::mysin", backward, setup_context=setup_context)
x = torch.linspace(0, 1, 4, requires_grad=True)
"""

cases("custom_op", {
    "register_autograd_gradient": SIN.format(ns="tnc_a") + """
y = mysin(x)
y.sum().backward()
result = (type(y.grad_fn).__name__, y.grad_fn.name(), y, x.grad)
""",
    "no_grad_and_below_autograd": SIN.format(ns="tnc_b") + """
with torch.no_grad():
    a = mysin(x)
with torch._C._AutoDispatchBelowAutograd():
    b = mysin(x)
    c = torch.sin(x)
result = (a.requires_grad, b.requires_grad, c.requires_grad, mysin(x).requires_grad, torch.is_grad_enabled())
""",
    "handle": SIN.format(ns="tnc_c") + """
h = torch.ops.tnc_c.mysin.default._handle
result = (type(h).__name__, str(h.schema()),
          err(lambda: torch._C._dispatch_find_schema_or_throw("tnc_c::nothere", "")))
""",
    "no_formula": PRE + """
@torch.library.custom_op("tnc_d::noback", mutates_args=())
def noback(x: torch.Tensor) -> torch.Tensor:
    return x * 3
x = torch.ones(3, requires_grad=True)
y = noback(x)
result = (y.requires_grad, type(y.grad_fn).__name__, err(lambda: y.sum().backward()))
""",
    "mutating": PRE + """
@torch.library.custom_op("tnc_e::addone_", mutates_args=("x",))
def addone_(x: torch.Tensor) -> None:
    x.add_(1)
z = torch.zeros(3)
v0 = z._version
addone_(z)
zz = torch.zeros(3, requires_grad=True) * 1
result = (z, v0, z._version, err(lambda: addone_(zz)), zz)
""",
    "two_outputs_kwarg": PRE + """
@torch.library.custom_op("tnc_f::two", mutates_args=())
def two(x: torch.Tensor, y: torch.Tensor, k: float = 2.0) -> tuple[torch.Tensor, torch.Tensor]:
    return x * k, y + x
def bw2(ctx, g1, g2):
    return g1 * ctx.k + g2, g2, None
def sc2(ctx, inputs, output):
    ctx.k = inputs[2]
torch.library.register_autograd("tnc_f::two", bw2, setup_context=sc2)
x = torch.linspace(0, 1, 4, requires_grad=True)
w = torch.ones(2, requires_grad=True)
a, b = two(x[:2], w, 3.0)
(a.sum() + b.sum() * 2).backward()
result = (a, b, x.grad, w.grad)
""",
    "any_requires_grad": """
x = torch.ones(2, requires_grad=True)
r = torch._C._any_requires_grad
result = (r(1, [x], k=None), r(torch.ones(1)), r(k=(1, {"a": x})), r(), r([[x]]), r((x,)), r(k=x), r(k=[x]),
          r(k={"a": x}), r([1, x]), r([x, torch.ones(1)]), r(k=[torch.ones(1), x]))
""",
})

FB = """
import warnings
def lib_ops(ns):
    lib = torch.library.Library(ns, "FRAGMENT")
    lib.define("f(Tensor x, Tensor y) -> Tensor"); lib.impl("f", lambda x, y: x.sin() * y, "CPU")
    lib.define("g(Tensor x) -> (Tensor, Tensor)"); lib.impl("g", lambda x: (x * 2, x.long()), "CPU")
    lib.define("h(Tensor(a!) x) -> Tensor(a!)"); lib.impl("h", lambda x: x.mul_(2), "CPU")
    lib.define("d(Tensor x) -> Tensor"); lib.impl("d", lambda x: x.detach().sin(), "CPU")
    lib.define("two(Tensor x) -> (Tensor, Tensor)"); lib.impl("two", lambda x: (x * 2, x * 3), "CPU")
    lib.define("lst(Tensor x, Tensor[] ys) -> Tensor[]")
    lib.impl("lst", lambda x, ys: [x * 2, x.detach() * 3, ys[0].detach()], "CPU")
    return lib, getattr(torch.ops, ns)
def warned(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = f()
    return r, [(m.category.__name__, str(m.message), m.filename.rsplit("/", 1)[-1]) for m in w]
"""

cases("autograd_fallback", {
    "warn_on_backward": FB + """
lib, ops = lib_ops("tnc_fb_a")
x = torch.zeros(3, requires_grad=True)   # cos(0): the kernel's sin backward, exact on both sides
r, w_fwd = warned(lambda: ops.f(x, torch.ones(3)))
info = (r.requires_grad, type(r.grad_fn).__name__, r.grad_fn.name(), r.is_leaf, r._backward_hooks)
_, w_bw = warned(lambda: r.sum().backward())
result = (info, w_fwd, w_bw, x.grad)
""",
    "outputs": FB + """
lib, ops = lib_ops("tnc_fb_b")
x = torch.ones(3, requires_grad=True)
a, b = ops.g(x)
_, wg = warned(lambda: a.sum().backward())
z = torch.ones(3, requires_grad=True) * 1
hz = ops.h(z)
_, wh = warned(lambda: hz.sum().backward())
p, q = ops.two(x)
_, w2 = warned(lambda: (p.sum() + q.sum()).backward())
_, w1 = warned(lambda: torch.autograd.grad(ops.two(x)[0].sum(), x))
result = ((a.requires_grad, b.requires_grad, type(a.grad_fn).__name__), len(wg), (hz is z, type(hz.grad_fn).__name__, z._version),
          len(wh), len(w2), len(w1), x.grad)
""",
    "detached_output_node": FB + """
lib, ops = lib_ops("tnc_fb_c")
x = torch.ones(3, requires_grad=True)
y = torch.ones(2, requires_grad=True)
r = ops.d(x)
info = (r.requires_grad, type(r.grad_fn).__name__, r.grad_fn.name(), r.is_leaf, r.grad_fn.next_functions, r.output_nr)
_, w = warned(lambda: r.sum().backward())
outs = ops.lst(x, [y])
linfo = [(o.requires_grad, type(o.grad_fn).__name__, o.output_nr) for o in outs]
nf = outs[1].grad_fn.next_functions
_, wl = warned(lambda: sum(o.sum() for o in outs).backward())
result = (info, w, x.grad, linfo, [type(f[0]).__name__ for f in nf], len(wl), y.grad)
""",
    "inplace_view": FB + """
lib, ops = lib_ops("tnc_fb_d")
base = torch.ones(3, 2, requires_grad=True) * 1
v = base[:, 0]
r = ops.h(v)
info = (r is v, type(r.grad_fn).__name__, base.grad_fn.name())
_, w = warned(lambda: base.sum().backward())
result = (info, len(w))
""",
    "no_grad_and_plain_inputs": FB + """
lib, ops = lib_ops("tnc_fb_e")
x = torch.ones(3, requires_grad=True)
with torch.no_grad():
    a = ops.f(x, x)
b = ops.f(torch.ones(3), torch.ones(3))
result = (a.requires_grad, a.grad_fn, b.requires_grad, b.grad_fn)
""",
    "mode_nothing_and_error": FB + """
lib, ops = lib_ops("tnc_fb_f")
def err(f):
    try:
        return f()
    except Exception as e:
        return (type(e).__name__, str(e))
try:
    torch._C._set_autograd_fallback_mode("nothing")
    mode = torch._C._get_autograd_fallback_mode()
    x = torch.zeros(3, requires_grad=True)
    r = ops.f(x, torch.ones(3))
    _, w = warned(lambda: r.sum().backward())
    d = ops.d(x)
    info = (type(r.grad_fn).__name__, len(w), x.grad, d.requires_grad, d.grad_fn)
    e = err(lambda: torch._C._set_autograd_fallback_mode("error"))
finally:
    torch._C._set_autograd_fallback_mode("warn")
result = (mode, info, e, torch._C._get_autograd_fallback_mode())
""",
})
