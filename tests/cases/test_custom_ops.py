"""torch.library.custom_op on torchnative (src/python/library.c): a custom op's kernels run by
upstream's dispatch stages (autograd, ADInplaceOrView, backend), so register_autograd's formula is
the gradient (it was ignored: the CPU kernel ran first and autograd recorded its inner ops);
with_keyset kernels get the DispatchKeySet and continue through OpOverload.redispatch
(torch._C._dispatch_find_schema_or_throw's _DispatchOperatorHandle.redispatch_boxed);
torch._C._AutoDispatchBelowAutograd and _any_requires_grad; mutating custom ops define (upstream's
register_ad_inplace_or_view_fallback) and bump the mutated tensor's version as upstream's. Each
case defines its own namespace, since the harness's workers are shared."""
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
