"""binary_cross_entropy / binary_cross_entropy_with_logits gradients (FunctionsManual's helpers, one copy
in src/autograd/forward_formulas.c used by the backward formulas too): op streams under a
TorchDispatchMode compared with upstream's exactly (a dispatch mode makes upstream's helpers take
their out-of-place forms), and the gradients: first order, with create_graph, second order in
self, target and grad_output (binary_cross_entropy_double_backward_grad_output), every reduction,
with and without weight / pos_weight."""
from harness import cases

PRE = """
import warnings
warnings.filterwarnings("ignore")
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
x = torch.rand(2, 3, dtype=torch.float64).mul(0.8).add(0.1).requires_grad_()
t = torch.rand(2, 3, dtype=torch.float64).requires_grad_()
w = torch.rand(2, 3, dtype=torch.float64)
pw = torch.rand(3, dtype=torch.float64)
out = []
"""

BCE = PRE + """
for red in ("mean", "sum", "none"):
    for wt in (None, w):
        l = F.binary_cross_entropy(x, t, wt, reduction=red)
        go = torch.rand_like(l).requires_grad_()
        for create_graph in (False, True):
            with Trace() as tr:
                gx, gt = torch.autograd.grad(l, (x, t), go, retain_graph=True, create_graph=create_graph)
            out.append((tr.ops, gx.detach(), gt.detach()))
        with Trace() as tr:
            r = torch.autograd.grad(gx.pow(2).sum() + gt.pow(2).sum(), (x, t, go))
        out.append((tr.ops, r))
result = out
"""

LOGITS = PRE + """
for red in ("mean", "sum", "none"):
    for wt in (None, w):
        for p in (None, pw):
            l = F.binary_cross_entropy_with_logits(x, t, wt, reduction=red, pos_weight=p)
            for create_graph in (False, True):
                with Trace() as tr:
                    gx, gt = torch.autograd.grad(l, (x, t), torch.ones_like(l), retain_graph=True, create_graph=create_graph)
                out.append((tr.ops, gx.detach(), gt.detach()))
result = out
"""

cases("bce_grad_opstream", {"bce": BCE, "bce_with_logits": LOGITS})
