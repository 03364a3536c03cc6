"""bf16 / f16 matrix products (src/ops/linalg.c on kernels/gemm_lp.c) compared with upstream.

Upstream (oneDNN for bf16 on this host, its own f16 kernels) accumulates in float32 and rounds once
to the output dtype, beta * C and linear's bias included; its summation order is host-dependent,
so every case is tol="float" (the GEMM allowance in float32 plus the bf16/f16 ulp floor). Shapes:
decode rows (M=1, few rows), odd k and n (pair and lane tails), the microkernel heights, k past
one 32-wide step, transposed / sliced / batched operands, alpha / beta, empty and k = 0."""
from harness import cases

DT = ("bfloat16", "float16")


def r(shape, dt, scale=""):
    return f"(torch.randn{shape}{scale}).to(torch.{dt})"


SHAPES = [(1, 5, 7), (1, 64, 576), (1, 33, 100), (2, 40, 31), (3, 17, 65), (7, 9, 129), (8, 24, 64),
          (12, 13, 33), (13, 70, 96), (33, 45, 77), (64, 96, 200)]

cases("lowp_mm", [f"torch.mm({r((m, k), dt)}, {r((k, n), dt)})" for m, n, k in SHAPES for dt in DT]
      + [f"torch.mm({r((m, k), dt)}, {r((n, k), dt)}.t())" for m, n, k in SHAPES for dt in DT]
      + [f"torch.mm({r((k, m), dt)}.t(), {r((k, n), dt)})" for m, n, k in SHAPES[::3] for dt in DT]
      + [f"torch.mm({r((9, 40), dt)}[:, ::2], {r((20, 11), dt)})" for dt in DT]
      + [f"torch.mm({r((0, 3), dt)}, {r((3, 2), dt)})" for dt in DT]
      + [f"torch.mm({r((2, 0), dt)}, {r((0, 3), dt)})" for dt in DT]
      + [f"""
         o = torch.empty(0, dtype=torch.{dt})
         torch.mm({r((5, 6), dt)}, {r((6, 7), dt)}, out=o)
         o
         """ for dt in DT], tol="float")

cases("lowp_addmm", [f"torch.addmm({r((n,), dt)}, {r((m, k), dt)}, {r((k, n), dt)})" for m, n, k in SHAPES[::2] for dt in DT]
      + [f"torch.addmm({r((m, n), dt)}, {r((m, k), dt)}, {r((n, k), dt)}.t(), beta=0.5, alpha=1.5)"
         for m, n, k in SHAPES[1::2] for dt in DT]
      + [f"torch.addmm({r((3, 5), dt)}, {r((3, 4), dt)}, {r((4, 5), dt)}, beta=0)" for dt in DT]
      + [f"{r((9, 5), dt)}.addmm_({r((9, 31), dt)}, {r((31, 5), dt)}, alpha=-2)" for dt in DT], tol="float")

cases("lowp_bmm", [f"torch.bmm({r((b, m, k), dt)}, {r((b, k, n), dt)})"
                   for b, m, n, k in [(3, 1, 40, 64), (2, 13, 9, 33), (4, 20, 16, 16), (0, 2, 3, 4)] for dt in DT]
      + [f"torch.bmm({r((3, 12, 8), dt)}, {r((3, 10, 8), dt)}.transpose(1, 2))" for dt in DT]
      + [f"torch.baddbmm({r((2, 9, 5), dt)}, {r((2, 9, 7), dt)}, {r((2, 7, 5), dt)}, alpha=0.5, beta=2)" for dt in DT]
      + [f"torch.matmul({r((2, 3, 11, 24), dt)}, {r((24, 17), dt)})" for dt in DT]
      + [f"{r((2, 3, 40, 24), dt)}.transpose(-1, -2) @ {r((40, 17), dt)}" for dt in DT]
      + [f"{r((5,), dt)} @ {r((5, 3), dt)}" for dt in DT]
      + [f"torch.mv({r((6, 37), dt)}, {r((37,), dt)})" for dt in DT], tol="float")

cases("lowp_linear", [f"torch.nn.functional.linear({r((m, k), dt)}, {r((n, k), dt)})" for m, n, k in SHAPES for dt in DT]
      + [f"torch.nn.functional.linear({r((m, k), dt)}, {r((n, k), dt)}, {r((n,), dt)})" for m, n, k in SHAPES[::2] for dt in DT]
      + [f"torch.nn.functional.linear({r((2, 6, 48), dt)}, {r((30, 48), dt)}, {r((30,), dt)})" for dt in DT]
      + [f"torch.nn.functional.linear({r((2, 12, 48), dt)}[:, ::2], {r((30, 48), dt)}, {r((30,), dt)})" for dt in DT]
      + [f"torch.nn.functional.linear({r((48,), dt)}, {r((30, 48), dt)}, {r((30,), dt)})" for dt in DT]
      + [f"torch.nn.functional.linear({r((4, 48), dt)}, {r((60, 96), dt)}[:, ::2])" for dt in DT]
      + [f"""
         torch.manual_seed(1)
         m = torch.nn.Linear(70, 33).to(torch.{dt})
         m({r((3, 5, 70), dt)})
         """ for dt in DT]
      + [f"""
         torch.manual_seed(2)
         m = torch.nn.Linear(70, 33, bias=False).to(torch.{dt})
         m({r((1, 1, 70), dt)})
         """ for dt in DT], tol="float")

# Where the bias joins the sum: small integers make every product and partial sum exact in float32
# in any order (so upstream's bits are the same on every host and the comparison is exact), while
# the sums need more bits than bf16/f16 hold. Upstream rounds once, bias included, for a 2-D, 1-D
# or contiguous 3-D input (addmm), and rounds the product before adding the bias for a
# non-contiguous 3-D input (matmul then add); a wrong rule differs in about a third of outputs.
INT = "torch.randint(-64, 64, {}).to(torch.{})"
cases("lowp_bias_rounding", [
    f"torch.nn.functional.linear({INT.format((5, 96), dt)}, {INT.format((40, 96), dt)}, {r((40,), dt)})" for dt in DT] + [
    f"torch.nn.functional.linear({INT.format((2, 6, 96), dt)}, {INT.format((40, 96), dt)}, {r((40,), dt)})" for dt in DT] + [
    f"torch.nn.functional.linear({INT.format((6, 2, 96), dt)}.transpose(0, 1), {INT.format((40, 96), dt)}, {r((40,), dt)})" for dt in DT] + [
    f"torch.nn.functional.linear({INT.format((96,), dt)}, {INT.format((40, 96), dt)}, {r((40,), dt)})" for dt in DT] + [
    f"torch.addmm({r((40,), dt)}, {INT.format((5, 96), dt)}, {INT.format((96, 40), dt)}, beta=0.5, alpha=1.5)" for dt in DT])
