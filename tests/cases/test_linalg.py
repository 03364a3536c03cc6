"""Matrix products (src/ops/linalg.c) compared with upstream: shapes, dtypes and exception types
exactly, integer values exactly, floating values under tol="float". Upstream's BLAS (MKL) picks
its summation order by CPU, so its last bits differ between hosts and no exact claim holds; the
float rule's GEMM allowance (n + 2) * eps(acc) * sum_k |a_ik b_kj| (plus |beta c|), from the
summand magnitudes upstream records, bounds the gap between any two summation orders
(tests/harness/runner.py). Every floating product case here must say tol="float"."""
from harness import cases

SHAPES = [((3, 4), (4, 5)), ((1, 7), (7, 1)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((16, 33), (33, 9))]

cases("mm", [f"torch.randn{a}.to(torch.{dt}).mm(torch.randn{b}.to(torch.{dt}))"
             for a, b in SHAPES for dt in ("float32", "float64", "bfloat16", "float16")]
      + [f"torch.mm(torch.randint(-5, 5, {a}), torch.randint(-5, 5, {b}))" for a, b in SHAPES[:3]]
      + ["torch.mm(torch.randn(4, 3).t(), torch.randn(4, 2))",
         "torch.mm(torch.randn(3, 8)[:, ::2], torch.randn(4, 2))",
         "torch.mm(input=torch.randn(2, 3), mat2=torch.randn(3, 2))",
         "torch.ops.aten.mm.default(torch.randn(2, 3), torch.randn(3, 4))",
         "torch.ones(2, 3) @ torch.ones(3, 2)",
         """
         o = torch.empty(0)
         torch.mm(torch.randn(2, 3), torch.randn(3, 4), out=o)
         o
         """], tol="float")

cases("mm_errors", [
    "torch.mm(torch.ones(2, 3), torch.ones(2, 3))",
    "torch.mm(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64))",
    "torch.mm(torch.ones(3), torch.ones(3, 2))",
    "torch.mm(torch.ones(2, 3), 2)",
])

cases("bmm", [
    "torch.bmm(torch.randn(3, 2, 4), torch.randn(3, 4, 5))",
    "torch.randn(2, 3, 4, dtype=torch.float64).bmm(torch.randn(2, 4, 1, dtype=torch.float64))",
    "torch.bmm(torch.randn(0, 2, 4), torch.randn(0, 4, 5))",
    "torch.bmm(torch.randn(3, 2, 4), torch.randn(3, 5, 4).transpose(1, 2))",
    "torch.bmm(torch.randn(3, 2, 4), torch.randn(2, 4, 5))",
    "torch.bmm(torch.randn(2, 4), torch.randn(4, 5))",
], tol="float")

cases("addmm", [
    "torch.addmm(torch.randn(5), torch.randn(3, 4), torch.randn(4, 5))",
    "torch.addmm(torch.randn(3, 5), torch.randn(3, 4), torch.randn(4, 5), beta=0.5, alpha=2)",
    "torch.addmm(torch.randn(3, 5), torch.randn(3, 4), torch.randn(4, 5), beta=0)",
    "torch.randn(3, 5).addmm_(torch.randn(3, 4), torch.randn(4, 5))",
    "torch.addmm(torch.randn(3, 5, dtype=torch.bfloat16), torch.randn(3, 4, dtype=torch.bfloat16), torch.randn(4, 5, dtype=torch.bfloat16))",
    "torch.baddbmm(torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5))",
    "torch.baddbmm(torch.randn(5), torch.randn(2, 3, 4), torch.randn(2, 4, 5), alpha=0.5)",
    "torch.addmm(torch.randn(5), torch.randn(3, 4), torch.randn(3, 5))",
], tol="float")

cases("matmul", [
    "torch.randn(4) @ torch.randn(4)",
    "torch.randn(3, 4) @ torch.randn(4)",
    "torch.randn(4) @ torch.randn(4, 5)",
    "torch.randn(2, 3, 4) @ torch.randn(4, 5)",
    "torch.randn(2, 3, 4) @ torch.randn(4)",
    "torch.randn(4) @ torch.randn(2, 4, 5)",
    "torch.randn(2, 1, 3, 4) @ torch.randn(5, 4, 2)",
    "torch.matmul(torch.randn(3, 4, dtype=torch.float64), torch.randn(4, 2, dtype=torch.float64))",
    "torch.matmul(torch.randn(0, 4), torch.randn(4, 3))",
    "torch.randint(0, 9, (2, 3)) @ torch.randint(0, 9, (3, 2))",
    "torch.randn(3) @ torch.randn(4)",
    "torch.randn(2, 3) @ torch.randn(4)",
    "torch.tensor(2.) @ torch.randn(3)",
    "torch.randn(2, 3) @ torch.randn(3, 4, dtype=torch.float64)",
    "torch.mv(torch.randn(3, 4), torch.randn(4))",
    "torch.dot(torch.randn(5), torch.randn(5))",
    "torch.dot(torch.randn(5), torch.randn(5, dtype=torch.float64))",
], tol="float")

cases("linear", [
    "torch.nn.functional.linear(torch.randn(3, 4), torch.randn(5, 4))",
    "torch.nn.functional.linear(torch.randn(3, 4), torch.randn(5, 4), torch.randn(5))",
    "torch.nn.functional.linear(torch.randn(2, 3, 4), torch.randn(5, 4), torch.randn(5))",
    "torch.nn.functional.linear(torch.randn(4), torch.randn(5, 4))",
    "torch.nn.functional.linear(torch.randn(3, 4, dtype=torch.bfloat16), torch.randn(5, 4, dtype=torch.bfloat16))",
    "torch.nn.functional.linear(torch.randn(3, 4), torch.randn(5, 3))",
], tol="float")

MM_ERR = """
def err(f):
    try:
        f()
        return "ok"
    except RuntimeError as e:
        return str(e)
"""
_mm_shapes = [((2, 2), (3, 4, 4)), ((3, 2, 2), (4, 4)), ((3, 2, 2), (4,)), ((2,), (3, 4, 4)), ((5, 3, 2, 2), (3, 4, 4)),
              ((1, 3, 2, 2), (5, 1, 4, 4)), ((3, 2, 2), (3, 4, 4)), ((2, 3, 2), (4, 4)), ((4, 2), (3,)), ((3,), (4,)), ((3,), (4, 2))]
cases("matmul_mismatch", {   # upstream's _matmul_impl picks mm / mv on a fold, or bmm: its error names that op's sizes
    "%s_%s_%s" % ("x".join(map(str, a)), "x".join(map(str, b)), g):
        "err(lambda: torch.matmul(torch.ones(%r, requires_grad=%s), torch.ones(%r, requires_grad=%s)))" % (a, g in ("a", "ab"), b, g in ("b", "ab"))
    for a, b in _mm_shapes for g in ("", "a", "b")
}, setup=MM_ERR)

MM_OPS = """
from torch.utils._python_dispatch import TorchDispatchMode
class Ops(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
def run(a, b, ga, gb):
    torch.manual_seed(0)
    x, y = torch.randn(*a, requires_grad=ga), torch.randn(*b, requires_grad=gb)
    with Ops() as m:
        r = torch.matmul(x, y)
    return m.ops, r.stride()
"""
cases("matmul_fold_ops", {   # the op stream a dispatch mode sees (folds, the transposed fold of a smaller left operand)
    "mat_left_grad": "run((2, 3), (4, 3, 5), True, False)",
    "vec_left_grad": "run((3,), (4, 3, 5), True, False)",
    "mat_left_right_grad": "run((2, 3), (4, 3, 5), False, True)",
    "batch_left_mat_grad": "run((4, 2, 3), (3, 5), False, True)",
    "batch_left_vec": "run((4, 2, 3), (3,), True, True)",
    "batch_left_nograd": "run((4, 2, 3), (3, 5), False, False)",
    "batch_left_noncontig": "torch.manual_seed(0)\nx = torch.randn(2, 4, 3).transpose(0, 1)\nwith Ops() as m:\n    _r = torch.matmul(x, torch.randn(3, 5))\nm.ops",
}, setup=MM_OPS)

cases("matmul_fold_values", {   # the transposed fold's result (mT().contiguous()) and its gradients
    "mat_left": "torch.manual_seed(0)\nx = torch.randn(2, 3, requires_grad=True)\ny = torch.randn(4, 3, 5)\nr = torch.matmul(x, y)\nr.sum().backward()\nr, r.stride(), x.grad",
    "vec_left": "torch.manual_seed(0)\nx = torch.randn(3, requires_grad=True)\ny = torch.randn(4, 3, 5)\nr = torch.matmul(x, y)\nr.sum().backward()\nr, x.grad",
}, tol="float")
