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
