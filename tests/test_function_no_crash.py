"""torch.autograd.Function, saved-tensor hooks, DelayedError, SavedTensor and autocast state given
hostile input (src/autograd/function.c, src/python/autocast.c): the child must exit normally and
never raise SystemError (a C function returning NULL without an exception)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import torch, gc
from torch.autograd import Function
C = torch._C
def t(f):
    try: f()
    except SystemError as e: raise
    except BaseException as e: pass
class E(Function):
    @staticmethod
    def forward(ctx, x): ctx.save_for_backward(x); return x.exp()
    @staticmethod
    def backward(ctx, g): return g
x = torch.randn(3, requires_grad=True)
for a in [(), (1,), (None,), ("s",), (x, x, x), ([x],), ({},)]:
    t(lambda: E.apply(*a))
t(lambda: C._FunctionBase.apply())
t(lambda: C._FunctionBase())
fb = C._FunctionBase()
for attr in ["saved_tensors", "saved_variables", "next_functions", "needs_input_grad", "to_save", "metadata", "_raw_saved_tensors", "name", "_sequence_nr", "non_differentiable", "dirty_tensors", "_materialize_non_diff_grads"]:
    t(lambda: getattr(fb, attr))
    t(lambda: getattr(fb, attr)())
for attr in ["to_save", "dirty_tensors", "non_differentiable", "materialize_grads", "needs_input_grad", "_materialize_non_diff_grads", "_is_pure_view"]:
    for v in [None, 1, (1,), "x", (x,)]:
        t(lambda: setattr(fb, attr, v))
t(lambda: fb.register_hook(3)); t(lambda: fb.register_prehook(None)); t(lambda: fb._register_hook_dict(3))
class B(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.to_save = 5; ctx.dirty_tensors = [x]; ctx.non_differentiable = "ab"; return x * 2
    @staticmethod
    def backward(ctx, g): return g
t(lambda: B.apply(x))
class B2(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.to_save = (x, None, 3); ctx.dirty_tensors = (1,); return x * 2
    @staticmethod
    def backward(ctx, g): return g
t(lambda: B2.apply(x))
class B3(Function):
    @staticmethod
    def forward(ctx, x): return x * 2
    @staticmethod
    def backward(ctx, g): return [g]
t(lambda: B3.apply(x).sum().backward())
class B4(Function):
    @staticmethod
    def forward(ctx, x): return (x * 2,) * 20
    @staticmethod
    def backward(ctx, *g): return g[0]
t(lambda: sum(B4.apply(x)).sum().backward())
D = C._functions.DelayedError
for a in [(), (1,), (b"m", -1), (b"m", 2), ("m", 1), (3, 1)]:
    t(lambda: D(*a))
d = D(b"msg", 2)
for a in [(), (x,), (x, 3), (x, None), (None, None)]:
    t(lambda: d(*a))
with torch.enable_grad():
    o = D(b"boom", 1)(x); t(lambda: o.sum().backward())
for a in [(), (1,), (1, 2, 3)]:
    t(lambda: C._autograd._push_saved_tensors_default_hooks(*a))
with torch.autograd.graph.saved_tensors_hooks(lambda t_: None, lambda p: p):
    y = x * x; z = E.apply(x)
t(lambda: y.sum().backward()); t(lambda: z.sum().backward())
with torch.autograd.graph.saved_tensors_hooks(lambda t_: 1/0, lambda p: p):
    t(lambda: x * x); t(lambda: E.apply(x))
t(lambda: C._autograd._saved_tensors_hooks_disable(3))
C._autograd._saved_tensors_hooks_enable()
for f in ["is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype", "_is_autocast_available", "set_autocast_cache_enabled"]:
    for a in [(), (1,), ("cpu",), ("cpu", True), ("cpu", 3), (None, None, None)]:
        t(lambda: getattr(C, f)(*a))
s = C._autograd._make_saved_tensor(x, True)
t(lambda: s.unpack()); t(lambda: s.data); t(lambda: C._autograd.SavedTensor())
gc.collect()
print("no crash")
'''


def test_function_no_crash():
    py = os.environ.get("TN_FUZZ_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
    r = subprocess.run([py, "-W", "ignore", "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "no crash" in r.stdout, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
