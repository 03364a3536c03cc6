"""Views made in no_grad / inference mode of a tensor that requires grad (src/autograd/views.c,
upstream's CreationMeta NO_GRAD_MODE / INFERENCE_MODE), compared with upstream: they require grad
(through their base) yet are leaves without history; operations on them record a node with an
empty edge (backward reaches nothing, autograd.grad with respect to them says "not used"); an
in-place op on them with grad mode on, or reading their history after they or their base were
written (even in no_grad mode), raises upstream's error; torch.inference_mode() as a `with`
block and a decorator (upstream 2.13 enters torch._C._InferenceMode with __enter__/__exit__).
Before the fix these views reported requires_grad=False, in-place ops on them recorded
AsStridedBackward0, and torch.inference_mode() raised AttributeError (no __enter__)."""
from harness import cases
from harness.autograd import ERR

PRE = """
""" + ERR + """
torch.manual_seed(0)
leaf = torch.randn(2, 3, requires_grad=True)
"""


def ng(name, snippets, **kw):
    cases(name, {k: PRE + s for k, s in snippets.items()}, vars=False, **kw)


ng("nograd_view", {
    "flags": """
with torch.no_grad():
    vs = [leaf.view(6), leaf[0], leaf.t(), leaf.view_as(leaf), leaf.squeeze(), leaf.expand(2, 2, 3),
          leaf.reshape(6), leaf.unbind(0)[1], leaf.split(1)[0], leaf.detach(), leaf.diagonal(), leaf[:, 1:]]
[(v.requires_grad, v.is_leaf, v.grad_fn, v._is_view(), v._base is leaf) for v in vs]""",
    "inplace_grad_on": """
with torch.no_grad():
    v = leaf.view(6)
    s = leaf[0]
    u = leaf.unbind(0)[1]
    p = leaf.split(1)[0]
[err(lambda: v.mul_(2)), err(lambda: v.add_(1)), err(lambda: s.zero_()), err(lambda: u.mul_(2)),
 err(lambda: p.copy_(torch.ones(1, 3))), leaf._version]""",
    "inplace_in_no_grad_then_use": """
with torch.no_grad():
    v = leaf.view(6)
    v.mul_(2)
out = [v.requires_grad, leaf._version, leaf.requires_grad, leaf.is_leaf]
out += [err(lambda: v.grad_fn), err(lambda: v.is_leaf), err(lambda: v * 2)]
out""",
    "base_written_in_no_grad": """
l2 = torch.randn(3, requires_grad=True)
with torch.no_grad():
    q = l2[1:]
with torch.no_grad():
    l2.add_(1)
[err(lambda: q.grad_fn), err(lambda: q * 1), q.requires_grad]""",
    "use_records_empty_edge": """
with torch.no_grad():
    v = leaf.view(6)
y = v * 2
r = [y.requires_grad, y.grad_fn.name(), y.grad_fn.next_functions]
y.sum().backward()
r + [leaf.grad, v.grad, err(lambda: torch.autograd.grad((v * 3).sum(), v)),
     err(lambda: torch.autograd.grad((v * 3).sum(), leaf)),
     torch.autograd.grad((v * 3).sum() + (leaf * 1).sum(), leaf)[0]]""",
    "requires_grad_and_view_of_it": """
with torch.no_grad():
    v = leaf.view(6)
r = [err(lambda: v.retain_grad()), v.retains_grad, v.requires_grad_(False).requires_grad]
v.requires_grad_(True)
w = v.view(2, 3)
r + [w.requires_grad, w.is_leaf, w.grad_fn.name(), err(lambda: w.mul_(2)), err(lambda: v[1:].mul_(2)),
     v.detach().requires_grad, v.clone().grad_fn.name()]""",
    "view_of_it_after_write": """
with torch.no_grad():
    v = leaf.view(6)
w = v.view(2, 3)
with torch.no_grad():
    v.mul_(1)
[err(lambda: w.grad_fn), err(lambda: w * 1)]""",
    "nonleaf_base": """
b = leaf * 1
with torch.no_grad():
    vb = b.view(6)
[vb.requires_grad, vb.is_leaf, vb.grad_fn, err(lambda: vb.mul_(2))]""",
    "set_grad_enabled": """
with torch.set_grad_enabled(False):
    v = leaf[1]
[v.requires_grad, err(lambda: v.mul_(2))]""",
})

ng("inference_mode_view", {
    "modes": """
out = []
with torch.inference_mode():
    out.append((torch.is_inference_mode_enabled(), torch.is_grad_enabled()))
out.append((torch.is_inference_mode_enabled(), torch.is_grad_enabled()))
with torch.inference_mode(False):
    out.append(torch.is_inference_mode_enabled())
@torch.inference_mode()
def f(a):
    return a * 2, torch.is_inference_mode_enabled()
r, m = f(leaf)
# (r.is_inference(): upstream's inference tensors are not modelled; not compared)
out + [r.requires_grad, m, torch.is_inference_mode_enabled()]""",
    "view": """
with torch.inference_mode():
    iv = leaf.view(6)
r = [iv.requires_grad, iv.is_leaf, iv.grad_fn, iv.is_inference(), err(lambda: iv.mul_(2))]
with torch.inference_mode():
    iv.mul_(1)
r + [err(lambda: iv.grad_fn)]""",
})
