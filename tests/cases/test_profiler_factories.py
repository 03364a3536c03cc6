"""torch.profiler beneath upstream's factory kernels (issue #8 item 3): ones / zeros / full and
their _like forms record aten::empty (empty_like, and below it empty_strided or empty) and then
aten::fill_ / aten::zero_ beneath their own event, as upstream's CompositeExplicitAutograd
kernels call them (src/ops/create.c tn_create_profiled, the door's profiled_call). Every event
is compared here (test_profiler.py filters kernel-internal ones out), with shapes and sequence
numbers. A TorchDispatchMode still sees the factory alone, as upstream's. Not compared: the
children's concrete inputs (upstream's kernels pass their TensorOptions on: layout 0, pin_memory
False, a fill value as float), and the children upstream records before a failing check (ours
run the op's checks first and then record none)."""
from harness import cases

PRELUDE = '''
from torch.profiler import profile, ProfilerActivity
from torch.utils._python_dispatch import TorchDispatchMode
def tree(fn, shapes=False):
    import gc
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=shapes) as prof:
        fn()
    out = []
    for e in prof.events():
        d, p = 0, e.cpu_parent
        while p is not None:
            d, p = d + 1, p.cpu_parent
        row = (d, e.name, e.sequence_nr)
        if shapes:
            row += (e.input_shapes,)
        out.append(row)
    return out
class Seen(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args, kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
x = torch.randn(2, 3)
'''

cases("profiler_factories", {
    "ones": "tree(lambda: torch.ones(2, 3), True)",
    "zeros": "tree(lambda: (torch.zeros(3), torch.zeros(2, dtype=torch.int64)), True)",
    "full": "tree(lambda: (torch.full((2, 2), 1.5), torch.full((2,), 7), torch.full((1,), True), torch.full((2,), 2, dtype=torch.float16)), True)",
    "ones_like": "tree(lambda: (torch.ones_like(x), torch.ones_like(x, dtype=torch.int32)), True)",
    "empty_like": "tree(lambda: (torch.empty_like(x).shape, torch.empty_like(x, memory_format=torch.contiguous_format).shape), True)",
    "like_strided": "xt = x.t()\ntree(lambda: (torch.ones_like(xt).stride(), torch.zeros_like(xt, memory_format=torch.contiguous_format).stride()))",
    "values": "def f():\n    global vals\n    vals = [torch.ones(2), torch.zeros_like(x), torch.full((2,), 3), torch.full_like(x, -1)]\n"
              "tree(f)\nvals",
    "grad": "tree(lambda: torch.ones(2, requires_grad=True).sum())[:3]",   # sum's own kernel internals differ
    "errors": "def f():\n    r = []\n    for g in (lambda: torch.zeros(-1), lambda: torch.full((2,), 1.5, dtype=torch.int64), "
              "lambda: torch.ones(2, pin_memory=True)):\n"
              "        try:\n            g()\n        except Exception as e:\n            r.append(type(e).__name__)\n    return r\n"
              "with profile() as p:\n    r = f()\nr",
    "mode_sees_factory": "m = Seen()\ndef f():\n    with m:\n        torch.ones(2)\n        torch.zeros_like(x)\n"
                         "t = tree(f)\nm.ops",
}, setup=PRELUDE)
