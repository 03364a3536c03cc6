"""grid_sampler_2d's and grid_sampler_3d's double backward (src/autograd/bw_grid.c), compared with
upstream 2.13.0: the second-order gradients (of grad_output, input and grid), the node name, the op
stream a TorchDispatchMode sees while it runs, and gradgradcheck (float64, fast mode) on upstream's
OpInfo samples of nn.functional.grid_sample (bilinear and nearest with every padding, 2-d and 3-d;
bicubic, 2-d only, with every padding)."""
from harness import cases
from harness.autograd import F64

SETUP = """
import warnings
warnings.filterwarnings("ignore")
F = torch.nn.functional
from torch.utils._python_dispatch import TorchDispatchMode
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
def second(mode, pad, ac, n=1, c=2, h=4, w=5, ho=3, wo=2, dtype=torch.float64, only=None, d=None, do=2):
    torch.manual_seed(0)
    x = torch.randn(n, c, *(() if d is None else (d,)), h, w, dtype=dtype, requires_grad=True)
    g = (torch.rand(n, *(() if d is None else (do,)), ho, wo, 2 if d is None else 3, dtype=dtype) * 2.6 - 1.3).requires_grad_()
    y = F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
    go = torch.randn_like(y, requires_grad=True)
    gx, gg = torch.autograd.grad(y, (x, g), go, create_graph=True)
    name = gx.grad_fn.name()
    loss = (gx * torch.randn_like(gx)).sum() + (gg * torch.randn_like(gg)).sum()
    if only == "input":
        loss = (gx * gx).sum()
    elif only == "grid":
        loss = (gg * gg).sum()
    with Trace() as t:
        r = torch.autograd.grad(loss, (x, g, go), allow_unused=True)
    return name, t.ops, r
"""

MODES = [("bilinear", "zeros", False), ("bilinear", "zeros", True), ("bilinear", "border", False),
         ("bilinear", "border", True), ("nearest", "zeros", False), ("nearest", "border", True),
         ("nearest", "reflection", False), ("bilinear", "reflection", False), ("bilinear", "reflection", True)]
body = {f"{m}_{p}_{int(a)}": SETUP + f"second({m!r}, {p!r}, {a})" for m, p, a in MODES}
body["bilinear_batch"] = SETUP + "second('bilinear', 'zeros', False, n=2, c=3, h=3, w=3, ho=4, wo=4)"
body["bilinear_only_input"] = SETUP + "second('bilinear', 'zeros', False, only='input')"
body["bilinear_only_grid"] = SETUP + "second('bilinear', 'border', True, only='grid')"
body["bilinear_f32"] = SETUP + "second('bilinear', 'zeros', True, dtype=torch.float32)[:2]"
for m, p, a in [("bilinear", "zeros", False), ("bilinear", "border", True), ("bilinear", "reflection", False),
                ("bilinear", "reflection", True), ("nearest", "reflection", True)]:
    body[f"3d_{m}_{p}_{int(a)}"] = SETUP + f"second({m!r}, {p!r}, {a}, d=3)"
body["3d_bilinear_batch_only_grid"] = SETUP + "second('bilinear', 'zeros', True, n=2, c=3, d=4, h=3, w=2, only='grid')"
for p in ("zeros", "border", "reflection"):
    for a in (False, True):
        body[f"bicubic_{p}_{int(a)}"] = SETUP + f"second('bicubic', {p!r}, {a})"
body["bicubic_batch_only_grid"] = SETUP + "second('bicubic', 'zeros', True, n=2, c=3, h=3, w=3, ho=4, wo=4, only='grid')"
# an empty reflection span (a size-1 axis with align_corners): upstream's zero coordinate derivative
body["bicubic_reflection_size1"] = SETUP + "second('bicubic', 'reflection', True, h=1, w=3)"
body["bilinear_reflection_size1"] = SETUP + "second('bilinear', 'reflection', True, h=1, w=3)"
cases("grid_sample_double_backward", body, tol=F64)

cases("grid_sample_gradgradcheck", {f"sample_{i}": SETUP + f"""
from torch.testing._internal.common_methods_invocations import op_db
op = [o for o in op_db if o.name == "nn.functional.grid_sample"][0]
s = list(op.sample_inputs("cpu", torch.float64, requires_grad=True))[{i}]
f = lambda x, g: F.grid_sample(x, g, **s.kwargs)
(s.kwargs, torch.autograd.gradgradcheck(f, (s.input, s.args[0]), fast_mode=True))
""" for i in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 27, 29)})
