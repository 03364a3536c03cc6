"""Op streams under a TorchDispatchMode, compared with upstream's exactly:
- where with Scalar arguments (where.Scalar, where.ScalarSelf, where.ScalarOther) decomposes as upstream's
  composites: scalar_tensor of result_type(self, other) with the tensor's (where.Scalar: the
  condition's) device and layout, other's before self's, then the tensor argument's _to_copy, then
  where.self; the dtype of each tensor and the keyword arguments are compared too.
- _linalg_solve_ex's backward (linalg.solve, linalg.det's double backward): the saved result's detach
  before the formula's ops, first order (linalg_lu_solve) and with create_graph (_linalg_solve_ex again);
  op names only there (the engine's new_empty_strided for a leaf's .grad passes no dtype / layout /
  device keywords here, upstream's does: not this file's subject); linalg.det's first-order backward
  with keywords (its where(LU.diagonal() == 0, eps, 0.) is where.Scalar: float32 scalar_tensors). Gradients within F64 of
  test_linalg_lapack.py (1e-12, 1e-12): backward-stable LAPACK solves of randn + 3 I (kappa ~ 10)."""
from harness import cases

F64 = (1e-12, 1e-12)

PRE = """
import warnings
warnings.filterwarnings("ignore")
from torch.utils._python_dispatch import TorchDispatchMode
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append((str(func), [str(a.dtype) if isinstance(a, torch.Tensor) else repr(a) for a in args],
                         repr(kwargs)))
        return func(*args, **(kwargs or {}))
torch.manual_seed(0)
"""

WHERE = PRE + """
c = torch.tensor([True, False, True])
x = torch.tensor([1, 2, 3])
out = []
for args in [(c, 1, 2), (c, 1.5, 2), (c, 1, 2.5), (c, True, False), (c, True, 3), (c, 1j, 2), (c, x, 2.5), (c, 2.5, x),
             (c, x, 7), (c, 1 + 2j, x), (c, torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64), 2)]:
    with Trace() as t:
        r = torch.where(*args)
    out.append((t.ops, r))
"""

SOLVE = PRE + """
out = []
for dt in (torch.float64, torch.complex128):
    for left, bshape in ((True, (3,)), (True, (3, 2)), (False, (2, 3))):
        A = (torch.randn(3, 3, dtype=dt) + 3 * torch.eye(3, dtype=dt)).requires_grad_()
        B = torch.randn(*bshape, dtype=dt, requires_grad=True)
        X = torch.linalg.solve(A, B, left=left)
        g = torch.randn_like(X)
        for create_graph in (False, True):
            with Trace() as t:
                grads = torch.autograd.grad(X, (A, B), g, retain_graph=True, create_graph=create_graph)
            out.append(([op for op, _, _ in t.ops], [gr.detach() for gr in grads]))
"""

cases("where_scalar_opstream", {
    "where_scalars": WHERE + "result = out",
    "where_scalar_default_float64": WHERE.replace("out = []", "torch.set_default_dtype(torch.float64)\nout = []") + """
torch.set_default_dtype(torch.float32)
result = out
""",
    "where_scalar_under_grad": PRE + """
c = torch.tensor([True, False])
x = torch.tensor([1.0, 2.0], requires_grad=True)
with Trace() as t:
    y = torch.where(c, x, 3) * 2
    y.sum().backward()
result = (t.ops, y, x.grad)
""",
    "where_scalar_unsigned_overflow": """
c = torch.tensor([True, False])
result = torch.where(c, torch.tensor([1, 2]), 2**63)
""",
})

cases("solve_backward_opstream", {
    "solve_backward": SOLVE + "result = out",
    "solve_backward_one_input": PRE + """
out = []
for ra, rb in ((False, True), (True, False)):
    A = (torch.randn(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)).requires_grad_(ra)
    B = torch.randn(3, 2, dtype=torch.float64, requires_grad=rb)
    X = torch.linalg.solve(A, B)
    with Trace() as t:
        X.sum().backward()
    out.append(([op for op, _, _ in t.ops], A.grad if ra else B.grad))
result = out
""",
    "det_double_backward": PRE + """
A = (torch.randn(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)).requires_grad_()
with Trace() as t:
    d = torch.linalg.det(A)
    gA, = torch.autograd.grad(d, A, create_graph=True)
    gA.sum().backward()
result = ([op for op, _, _ in t.ops], gA.detach(), A.grad)
""",
    "det_backward_where_scalar": PRE + """
A = (torch.randn(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)).requires_grad_()
d = torch.linalg.det(A)
with Trace() as t:
    gA, = torch.autograd.grad(d, A)
result = (t.ops, gA)
""",
}, tol=F64)
