"""triangular_solve.X, the out= form of the deprecated torch.triangular_solve (issue #11 item 4;
src/ops/linalg_lapack.c): structured, so the outs are resized and must have the result's dtype.
Tolerances as tests/cases/test_linalg_lapack.py (float32: "lapack"; float64: F64)."""
from harness import cases

SETUP = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
A = torch.randn(2, 4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
B = torch.randn(2, 4, 3, dtype=torch.float64)
def outs(dt, *shape):
    return torch.empty(*shape, dtype=dt), torch.empty(*shape, dtype=dt)
def err(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return (type(e).__name__, str(e))
"""


def make(dt):
    conv = f"a, b = torch.triu(A).to(torch.{dt}), B.to(torch.{dt})\n"
    return {
        "out": conv + f"X, M = outs(torch.{dt}, 0)\nr = torch.triangular_solve(b, a, out=(X, M))\n"
                      "(r.solution is X, r.cloned_coefficient is M, type(r).__name__, X, M)",
        "out_flags": conv + f"X, M = outs(torch.{dt}, 2, 4, 3)\n"
                            "r = torch.triangular_solve(b, a.mT, upper=False, transpose=True, unitriangular=True, out=(X, M))\n(X, M)",
        "aten": conv + f"X, M = outs(torch.{dt}, 5)\nr = torch.ops.aten.triangular_solve.X(b[0], a[0], X=X, M=M)\n"
                       "(type(r).__name__, r[0] is X, X, M)",
    }


cases("triangular_solve_out_f32", make("float32"), setup=SETUP, tol="lapack")
cases("triangular_solve_out_f64", make("float64"), setup=SETUP, tol=(1e-12, 1e-12))
cases("triangular_solve_out_errors", {
    "out_dtype": "X, M = outs(torch.float32, 0)\nerr(lambda: torch.triangular_solve(B, torch.triu(A), out=(X, M)))",
    "b_1d": "X, M = outs(torch.float64, 0)\nerr(lambda: torch.triangular_solve(B[0, 0], torch.triu(A), out=(X, M)))",
    "A_1d": "[err(lambda: torch.triangular_solve(B[0], A[0, 0])), err(lambda: torch.triangular_solve(B[0, 0], A[0]))]",
}, setup=SETUP)
