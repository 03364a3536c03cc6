"""torch.linalg decompositions and solvers (src/ops/linalg_lapack.c over the LAPACK loaded by
src/ops/lapack.c) compared with upstream, which runs MKL's LAPACK.

Tolerances. float32 results: tol="lapack", upstream's own float32-vs-float64 error (K = 2) plus
2 ulps of the tensor's largest value (LAPACK's bounds are normwise, runner.py): both LAPACKs are backward stable, so each float32 result lies within that error of the
exact one. float64 results: the widening rule has no wider type (err = 0), so they take the
a-priori bound of a backward-stable factorisation, |x - x*| <= c n eps kappa(A) |x|, with
n <= 8, kappa(A) <= ~50 for these inputs (randn plus a multiple of the identity, or A A^T + n I),
c ~ 10: F64 = (1e-12, 1e-12). Integer outputs (pivots, info, rank) are exact.

Non-unique outputs: Q/R of QR, singular vectors and eigenvectors are unique only up to the sign
of each column (row of Vh). Upstream's MKL and OpenBLAS run the same algorithms (geqrf
Householder reflectors, gesdd, syevd) whose sign choices coincide on these inputs, so the raw
factors are compared too; the invariants that are unique (reconstruction, eigenvalues, singular
values, |vectors|) are compared as well, so a sign-convention change in either library would show
up as a raw-factor failure with the invariant cases still passing."""
from harness import cases

# eigenvectors / singular vectors up to sign: each column scaled by the sign of its largest entry
CANON = ("def canon(V, W=None):\n"
         "    s = torch.gather(V, -2, V.abs().argmax(-2, keepdim=True)).sign()\n"
         "    return (V * s,) if W is None else (V * s, W * s.mT)\n")

SEED = "torch.manual_seed(0)\n"
F64 = (1e-12, 1e-12)


def gen(n, dt, batch="", kind="gen"):
    b = batch + ", " if batch else ""
    if kind == "spd":
        return f"X = torch.randn({b}{n}, {n}, dtype=torch.float64)\nA = (X @ X.mT + {n} * torch.eye({n}, dtype=torch.float64)).to(torch.{dt})\n"
    return f"A = (torch.randn({b}{n}, {n}, dtype=torch.float64) + {n} * torch.eye({n}, dtype=torch.float64)).to(torch.{dt})\n"


def both(name, make, **kw):
    """cases for float32 (tol lapack) and float64 (F64)"""
    cases(name + "_f32", make("float32"), tol="lapack", **kw)
    cases(name + "_f64", make("float64"), tol=F64, **kw)


both("inv", lambda dt: {
    "n4": SEED + gen(4, dt) + "torch.linalg.inv(A)",
    "batch": SEED + gen(3, dt, "2, 3") + "torch.linalg.inv(A)",
    "inverse": SEED + gen(5, dt) + "torch.inverse(A)",
    "method": SEED + gen(5, dt) + "A.inverse()",
    "inv_ex": SEED + gen(4, dt, "2") + "torch.linalg.inv_ex(A)",
    "inv_ex_check": SEED + gen(4, dt, "2") + "torch.linalg.inv_ex(A, check_errors=True)",
    "aten": SEED + gen(4, dt) + "torch.ops.aten.linalg_inv_ex.default(A)",
    "noncontig": SEED + gen(4, dt) + "torch.linalg.inv(A.mT)",
    "empty": f"torch.linalg.inv(torch.randn(2, 0, 0, dtype=torch.{dt}))",
    "one": f"torch.linalg.inv(torch.tensor([[4.]], dtype=torch.{dt}))",
})

cases("inv_errors", [
    "torch.linalg.inv(torch.ones(3, 3))",
    "torch.linalg.inv(torch.ones(2, 3, 3))",
    "torch.linalg.inv(torch.ones(3, 3, dtype=torch.long))",
    "torch.linalg.inv(torch.ones(3, 4))",
    "torch.linalg.inv(torch.ones(3))",
    "torch.linalg.inv(torch.eye(3, dtype=torch.float16))",
    "torch.linalg.inv(torch.eye(3, dtype=torch.bfloat16))",
    "torch.linalg.inv_ex(torch.ones(2, 3, 3)).info",
    "torch.linalg.inv_ex(torch.ones(2, 3, 3), check_errors=True)",
    """
    try:
        torch.linalg.inv(torch.zeros(2, 2))
    except torch.linalg.LinAlgError as e:
        r = (type(e).__name__, str(e), isinstance(e, RuntimeError))
    r
    """,
    "torch._linalg_check_errors(torch.tensor([0, 2], dtype=torch.int32), 'linalg.cholesky', is_matrix=False)",
    "torch._linalg_check_errors(torch.tensor(3, dtype=torch.int32), 'linalg.eigh', is_matrix=True)",
    "torch._linalg_check_errors(torch.tensor(3, dtype=torch.int32), 'linalg.svd', is_matrix=True)",
    "torch._linalg_check_errors(torch.tensor(3, dtype=torch.int32), 'linalg.lstsq', is_matrix=True)",
    "torch._linalg_check_errors(torch.tensor(0, dtype=torch.int32), 'linalg.inv', is_matrix=True)",
])

both("solve", lambda dt: {
    "mat": SEED + gen(4, dt) + f"torch.linalg.solve(A, torch.randn(4, 3, dtype=torch.{dt}))",
    "vec": SEED + gen(4, dt) + f"torch.linalg.solve(A, torch.randn(4, dtype=torch.{dt}))",
    "batch_vec": SEED + gen(4, dt, "2") + f"torch.linalg.solve(A, torch.randn(2, 4, dtype=torch.{dt}))",
    "broadcast": SEED + gen(3, dt) + f"torch.linalg.solve(A, torch.randn(2, 3, 5, dtype=torch.{dt}))",
    "broadcastA": SEED + gen(3, dt, "2, 1") + f"torch.linalg.solve(A, torch.randn(4, 3, 2, dtype=torch.{dt}))",
    "right": SEED + gen(4, dt, "2") + f"torch.linalg.solve(A, torch.randn(2, 3, 4, dtype=torch.{dt}), left=False)",
    "ex": SEED + gen(4, dt) + f"torch.linalg.solve_ex(A, torch.randn(4, 2, dtype=torch.{dt}))",
    "aten": SEED + gen(4, dt) + f"torch.ops.aten._linalg_solve_ex.default(A, torch.randn(4, 2, dtype=torch.{dt}))",
    "noncontig": SEED + gen(4, dt) + f"torch.linalg.solve(A.mT, torch.randn(2, 4, dtype=torch.{dt}).mT)",
})

cases("solve_errors", [
    "torch.linalg.solve(torch.zeros(3, 3), torch.ones(3))",
    "torch.linalg.solve(torch.zeros(2, 3, 3), torch.ones(2, 3))",
    "torch.linalg.solve(torch.randn(3, 3), torch.randn(4, 1))",
    "torch.linalg.solve(torch.randn(3, 3), torch.randn(3, 1, dtype=torch.float64))",
    "torch.linalg.solve(torch.randn(3, 4), torch.randn(3, 1))",
    "torch.linalg.solve_ex(torch.zeros(2, 3, 3), torch.ones(2, 3, 1)).info",
])

both("cholesky", lambda dt: {
    "L": SEED + gen(5, dt, kind="spd") + "torch.linalg.cholesky(A)",
    "U": SEED + gen(5, dt, kind="spd") + "torch.linalg.cholesky(A, upper=True)",
    "batch": SEED + gen(3, dt, "2, 2", kind="spd") + "torch.linalg.cholesky(A)",
    "ex": SEED + gen(3, dt, "2", kind="spd") + "torch.linalg.cholesky_ex(A)",
    "legacy": SEED + gen(4, dt, kind="spd") + "torch.cholesky(A)",
    "legacy_upper": SEED + gen(4, dt, kind="spd") + "A.cholesky(upper=True)",
    "solve": SEED + gen(4, dt, kind="spd") + f"torch.cholesky_solve(torch.randn(4, 2, dtype=torch.{dt}), torch.linalg.cholesky(A))",
    "solve_upper": SEED + gen(4, dt, "2", kind="spd") + f"torch.cholesky_solve(torch.randn(2, 4, 3, dtype=torch.{dt}), torch.linalg.cholesky(A, upper=True), upper=True)",
    "inverse": SEED + gen(4, dt, kind="spd") + "torch.cholesky_inverse(torch.linalg.cholesky(A))",
    "inverse_upper": SEED + gen(4, dt, kind="spd") + "torch.cholesky_inverse(torch.linalg.cholesky(A, upper=True), upper=True)",
})

cases("cholesky_errors", [
    "torch.linalg.cholesky(-torch.eye(3))",
    "torch.linalg.cholesky(torch.zeros(2, 3, 3))",
    "torch.linalg.cholesky(torch.randn(3, 4))",
    "torch.linalg.cholesky_ex(-torch.eye(3)).info",
    "torch.linalg.cholesky_ex(-torch.eye(3), check_errors=True)",
    "torch.cholesky(-torch.eye(2))",
    "torch.cholesky_solve(torch.randn(3), torch.eye(3))",
])

both("qr", lambda dt: {
    "square": SEED + gen(4, dt) + "torch.linalg.qr(A)",
    "tall": SEED + f"torch.linalg.qr(torch.randn(6, 3, dtype=torch.{dt}))",
    "wide": SEED + f"torch.linalg.qr(torch.randn(3, 6, dtype=torch.{dt}))",
    "complete": SEED + f"torch.linalg.qr(torch.randn(5, 3, dtype=torch.{dt}), mode='complete')",
    "r": SEED + f"torch.linalg.qr(torch.randn(2, 5, 3, dtype=torch.{dt}), mode='r')",
    "legacy": SEED + f"torch.qr(torch.randn(5, 3, dtype=torch.{dt}))",
    "legacy_full": SEED + f"torch.randn(5, 3, dtype=torch.{dt}).qr(some=False)",
    "invariant": SEED + f"X = torch.randn(2, 5, 4, dtype=torch.{dt})\nQ, R = torch.linalg.qr(X)\n(Q @ R, Q.abs(), R.abs(), Q.mT @ Q)",
})
cases("qr_errors", ["torch.linalg.qr(torch.randn(3, 3), mode='x')", "torch.linalg.qr(torch.randn(3))",
                    "torch.linalg.qr(torch.ones(3, 3, dtype=torch.long))"])

both("svd", lambda dt: {
    "square": SEED + CANON + gen(4, dt) + "U, S, Vh = torch.linalg.svd(A)\ncanon(U, Vh) + (S,)",
    "tall_reduced": SEED + CANON + f"U, S, Vh = torch.linalg.svd(torch.randn(6, 3, dtype=torch.{dt}), full_matrices=False)\ncanon(U, Vh) + (S,)",
    "wide_full": SEED + CANON + f"U, S, Vh = torch.linalg.svd(torch.randn(2, 3, 5, dtype=torch.{dt}))\n(U.shape, Vh.shape) + canon(U, Vh[..., :3, :]) + (S,)",
    "svdvals": SEED + f"torch.linalg.svdvals(torch.randn(2, 4, 6, dtype=torch.{dt}))",
    "legacy": SEED + CANON + f"U, S, V = torch.svd(torch.randn(5, 3, dtype=torch.{dt}))\ncanon(U, V.mT) + (S,)",
    "legacy_novu": SEED + f"torch.svd(torch.randn(5, 3, dtype=torch.{dt}), compute_uv=False)",
    "aten": SEED + f"torch.ops.aten._linalg_svd.default(torch.randn(3, 4, dtype=torch.{dt}), compute_uv=False)",
    "invariant": SEED + f"X = torch.randn(5, 4, dtype=torch.{dt})\nr = torch.linalg.svd(X, full_matrices=False)\n((r[0] * r[1].unsqueeze(-2)) @ r[2], r[0].abs(), r[2].abs(), r[1])",
}, vars=False)
cases("svd_errors", ["torch.linalg.svd(torch.full((3, 3), float('nan')))", "torch.linalg.svd(torch.randn(3))",
                     "torch.linalg.svd(torch.randn(3, 3), driver='gesvd')"])

both("eigh", lambda dt: {
    "L": SEED + CANON + gen(5, dt, kind="spd") + "L, V = torch.linalg.eigh(A)\n(L,) + canon(V)",
    "U": SEED + CANON + gen(5, dt, "2", kind="spd") + "L, V = torch.linalg.eigh(A, UPLO='U')\n(L,) + canon(V)",
    "eigvalsh": SEED + gen(6, dt, "3", kind="spd") + "torch.linalg.eigvalsh(A)",
    "lower_only": SEED + gen(4, dt, kind="spd") + "torch.linalg.eigvalsh(torch.tril(A))",
    "aten": SEED + gen(4, dt, kind="spd") + "torch.ops.aten._linalg_eigh.default(A, 'L', False)",
    "invariant": SEED + gen(4, dt, kind="spd") + "r = torch.linalg.eigh(A)\n((r[1] * r[0].unsqueeze(-2)) @ r[1].mT, r[0])",
}, vars=False)
cases("eigh_errors", ["torch.linalg.eigh(torch.randn(3, 3), UPLO='x')", "torch.linalg.eigh(torch.randn(3, 4))",
                      "torch.linalg.eigh(torch.full((3, 3), float('nan')))"])

both("det", lambda dt: {
    "det": SEED + gen(4, dt, "3") + "torch.linalg.det(A)",
    "torch_det": SEED + gen(5, dt) + "torch.det(A)",
    "method": SEED + gen(5, dt) + "A.det()",
    "neg": SEED + gen(3, dt) + "torch.linalg.det(-A)",
    "slogdet": SEED + gen(4, dt, "2") + "torch.linalg.slogdet(torch.cat([A, -A]))",
    "legacy_slogdet": SEED + gen(4, dt) + "torch.slogdet(A)",
    "logdet": SEED + gen(4, dt, "2", kind="spd") + "torch.logdet(torch.stack([A[0], -A[1]]))",
    "singular": f"(torch.linalg.det(torch.ones(3, 3, dtype=torch.{dt})), torch.linalg.slogdet(torch.zeros(2, 2, dtype=torch.{dt})))",
    "empty": f"torch.linalg.det(torch.randn(2, 0, 0, dtype=torch.{dt}))",
    "aten": SEED + gen(3, dt) + "torch.ops.aten._linalg_det.default(A)",
    "aten_slog": SEED + gen(3, dt) + "torch.ops.aten._linalg_slogdet.default(A)",
})
cases("det_errors", ["torch.linalg.det(torch.randn(3, 4))", "torch.linalg.det(torch.ones(3, 3, dtype=torch.int32))"])

both("lu", lambda dt: {
    "factor": SEED + gen(4, dt) + "torch.linalg.lu_factor(A)",
    "factor_ex": SEED + gen(4, dt, "2") + "torch.linalg.lu_factor_ex(A)",
    "factor_wide": SEED + f"torch.linalg.lu_factor_ex(torch.randn(3, 5, dtype=torch.{dt}))",
    "factor_tall": SEED + f"torch.linalg.lu_factor_ex(torch.randn(5, 3, dtype=torch.{dt}))",
    "solve": SEED + gen(4, dt) + f"torch.linalg.lu_solve(*torch.linalg.lu_factor(A), torch.randn(4, 2, dtype=torch.{dt}))",
    "solve_adj": SEED + gen(4, dt, "2") + f"torch.linalg.lu_solve(*torch.linalg.lu_factor(A), torch.randn(2, 4, 3, dtype=torch.{dt}), adjoint=True)",
    "solve_right": SEED + gen(4, dt) + f"torch.linalg.lu_solve(*torch.linalg.lu_factor(A), torch.randn(3, 4, dtype=torch.{dt}), left=False)",
    "solve_right_adj": SEED + gen(4, dt) + f"torch.linalg.lu_solve(*torch.linalg.lu_factor(A), torch.randn(3, 4, dtype=torch.{dt}), left=False, adjoint=True)",
})
cases("lu_errors", ["torch.linalg.lu_factor(torch.zeros(3, 3))", "torch.linalg.lu_factor_ex(torch.zeros(2, 3, 3))",
                    "torch.linalg.lu_factor(torch.randn(3, 3), pivot=False)",
                    "torch.linalg.lu_solve(torch.randn(3, 3), torch.ones(3, dtype=torch.int32), torch.randn(4, 1))"])

both("triangular", lambda dt: {
    "upper": SEED + gen(4, dt) + f"torch.linalg.solve_triangular(torch.triu(A), torch.randn(4, 3, dtype=torch.{dt}), upper=True)",
    "lower_unit": SEED + gen(4, dt) + f"torch.linalg.solve_triangular(torch.tril(A), torch.randn(4, 3, dtype=torch.{dt}), upper=False, unitriangular=True)",
    "right": SEED + gen(4, dt, "2") + f"torch.linalg.solve_triangular(torch.triu(A), torch.randn(2, 3, 4, dtype=torch.{dt}), upper=True, left=False)",
    "broadcast": SEED + gen(3, dt) + f"torch.linalg.solve_triangular(torch.tril(A), torch.randn(2, 3, 2, dtype=torch.{dt}), upper=False)",
    "legacy": SEED + gen(4, dt) + f"torch.triangular_solve(torch.randn(4, 2, dtype=torch.{dt}), torch.triu(A))",
    "legacy_T": SEED + gen(4, dt, "2") + f"torch.triangular_solve(torch.randn(2, 4, 2, dtype=torch.{dt}), torch.tril(A), upper=False, transpose=True)",
    "legacy_bcast": SEED + gen(3, dt) + f"torch.randn(2, 3, 2, dtype=torch.{dt}).triangular_solve(torch.triu(A), unitriangular=True)",
})
cases("triangular_errors", ["torch.linalg.solve_triangular(torch.randn(3, 3), torch.randn(3), upper=True)",
                            "torch.linalg.solve_triangular(torch.randn(3, 3), torch.randn(4, 1), upper=True)",
                            "torch.linalg.solve_triangular(torch.ones(3, 3, dtype=torch.long), torch.ones(3, 2, dtype=torch.long), upper=True)"])
# mixed dtypes: upstream solves in A's dtype
cases("triangular_mixed", ["torch.linalg.solve_triangular(torch.randn(3, 3) + 3 * torch.eye(3), torch.randn(3, 1, dtype=torch.float64), upper=True)",
                           "torch.linalg.solve_triangular(torch.randn(3, 3) + 3 * torch.eye(3), torch.ones(3, 2, dtype=torch.long), upper=True)"], tol="float")

# Gradients (src/autograd/formulas.c, linalg block), float64 leaves: graph structure exact,
# gradients within F64 (the LAPACK bound above: the backward formulas are solves and products
# with the same factors).
from harness.autograd import grads  # noqa: E402

G = "ps = leaves((2, 4, 4), (2, 4, 3), dtype=torch.float64)\nA = ps[0] + 4 * torch.eye(4, dtype=torch.float64)\nB = ps[1]\n"
W = "\nout = out * torch.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape)"
grads("grad_linalg", {k: G + "out = " + v + W for k, v in {
    "inv": "torch.linalg.inv(A)",
    "inverse": "torch.inverse(A)",
    "inv_ex": "torch.linalg.inv_ex(A).inverse",
    "solve": "torch.linalg.solve(A, B)",
    "solve_right": "torch.linalg.solve(A, B.mT, left=False)",
    "solve_vec": "torch.linalg.solve(A, B[..., 0])",
    "det": "torch.linalg.det(A)",
    "det_mT": "torch.linalg.det(A.mT)",
    "slogdet": "torch.linalg.slogdet(A).logabsdet",
    "logdet": "torch.logdet(A @ A.mT)",
    "cholesky": "torch.linalg.cholesky(A @ A.mT)",
    "cholesky_upper": "torch.linalg.cholesky(A @ A.mT, upper=True)",
    "solve_triangular": "torch.linalg.solve_triangular(A.triu(), B, upper=True)",
    "solve_triangular_right_unit": "torch.linalg.solve_triangular(A.tril(), B.mT, upper=False, left=False, unitriangular=True)",
    "eigvalsh": "torch.linalg.eigvalsh(A @ A.mT)",
    "eigh_vectors": "torch.linalg.eigh(A @ A.mT).eigenvectors.abs()",
    "cholesky_deprecated": "torch.cholesky(A @ A.mT)",
    "cholesky_deprecated_upper": "torch.cholesky(A @ A.mT, upper=True)",
    "cholesky_inverse": "torch.cholesky_inverse(A.tril())",
    "cholesky_inverse_upper": "torch.cholesky_inverse(A.triu(), upper=True)",
    "cholesky_solve": "torch.cholesky_solve(B, A.tril())",
    "cholesky_solve_upper": "torch.cholesky_solve(B, A.triu(), upper=True)",
    # the LU family, triangular_solve and eig (FunctionsManual helpers in src/autograd/bw_linalg.c)
    "lu_factor": "torch.linalg.lu_factor(A).LU",
    "lu_factor_ex_wide": "torch.linalg.lu_factor_ex(B.mT + 3 * torch.eye(3, 4, dtype=torch.float64)).LU",
    "lu": "torch.cat([t.flatten() for t in torch.linalg.lu(A)[1:]])",
    "lu_L_tall": "torch.linalg.lu(B + 3 * torch.eye(4, 3, dtype=torch.float64)).L",
    "lu_U_wide": "torch.linalg.lu(B.mT + 3 * torch.eye(3, 4, dtype=torch.float64)).U",
    "lu_solve": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)",
    "lu_solve_adjoint": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B, adjoint=True)",
    "lu_solve_right": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B.mT, left=False)",
    "lu_solve_right_adjoint": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B.mT, left=False, adjoint=True)",
    "lu_unpack": "torch.cat([t.flatten() for t in torch.lu_unpack(*torch.linalg.lu_factor(A))[1:]])",
    "lu_unpack_tall_L": "torch.lu_unpack(*torch.linalg.lu_factor(B + 3 * torch.eye(4, 3, dtype=torch.float64)))[1]",
    "triangular_solve": "torch.triangular_solve(B, A.triu()).solution",
    "triangular_solve_lower_T_unit": "torch.cat([t.flatten() for t in torch.triangular_solve(B, A, upper=False, transpose=True, unitriangular=True)])",
    "eigvals": "torch.view_as_real(torch.linalg.eigvals(A))",
    "eig_abs": "torch.linalg.eig(A).eigenvectors.abs()",
}.items()}, tol=F64)
# complex inputs (upstream differentiates all of these for complex A)
GCX = "ps = leaves((2, 4, 4), (2, 4, 3), dtype=torch.complex128)\nA = ps[0] + 4 * torch.eye(4, dtype=torch.complex128)\nB = ps[1]\n"
grads("grad_linalg_complex", {k: GCX + "out = torch.view_as_real(" + v + ")" + W for k, v in {
    "lu_factor": "torch.linalg.lu_factor(A).LU",
    "lu_U_wide": "torch.linalg.lu(B.mT + 3 * torch.eye(3, 4, dtype=torch.complex128)).U",
    "lu_solve": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B)",
    "lu_solve_adjoint": "torch.linalg.lu_solve(*torch.linalg.lu_factor(A), B, adjoint=True)",
    "lu_unpack": "torch.lu_unpack(*torch.linalg.lu_factor(A))[2]",
    "triangular_solve": "torch.triangular_solve(B, A.triu()).solution",
    "triangular_solve_T": "torch.triangular_solve(B, A.tril(), upper=False, transpose=True).solution",
    "eigvals": "torch.linalg.eigvals(A)",
    "eig_abs": "torch.linalg.eig(A).eigenvectors.abs().to(A.dtype)",
    "eigh_abs": "torch.linalg.eigh(A @ A.mH).eigenvectors.abs().to(A.dtype)",
    # linalg_solve / solve_triangular (hand-written in formulas.c): X^H and A^H conjugate
    "solve": "torch.linalg.solve(A, B)",
    "solve_triangular": "torch.linalg.solve_triangular(A.triu(), B, upper=True)",
    "solve_triangular_right_unit": "torch.linalg.solve_triangular(A.tril(), B.mT, upper=False, left=False, unitriangular=True)",
    "qr_tall": "torch.cat([t.flatten() for t in torch.linalg.qr(B)])",
    "qr_wide": "torch.cat([t.flatten() for t in torch.linalg.qr(B.mT)])",
    "slogdet_sign": "torch.linalg.slogdet(A).sign",
    "slogdet_logabsdet": "torch.linalg.slogdet(A).logabsdet.to(A.dtype)",
    "slogdet_both": "(lambda r: r.sign * r.logabsdet)(torch.linalg.slogdet(A))",
}.items()}, tol=F64)

cases("diag_embed", [
    "torch.diag_embed(torch.arange(6.).reshape(2, 3))",
    "torch.diag_embed(torch.arange(6.).reshape(2, 3), offset=1)",
    "torch.diag_embed(torch.arange(6).reshape(2, 3), offset=-2, dim1=0, dim2=2)",
    "torch.arange(4.).diag_embed()",
    "torch.diag_embed(torch.arange(6.).reshape(2, 3), dim1=1, dim2=1)",
    "torch.ops.aten.diag_embed.default(torch.ones(3, dtype=torch.float64))",
])

# SVD / QR gradients: losses invariant to the sign of each singular vector pair (canonical signs
# as CANON above), so they are well defined and the same on every LAPACK
GC = ("def canon(V):\n    return V * torch.gather(V, -2, V.abs().argmax(-2, keepdim=True)).sign()\n"
      "def wsum(*ts):\n    return sum((t * torch.linspace(-1, 1, t.numel(), dtype=t.dtype).reshape(t.shape)).sum() for t in ts)\n")
grads("grad_linalg_svd_qr", {k: GC + f"ps = leaves({s}, dtype=torch.float64)\nX = ps[0]\nout = " + v for k, (s, v) in {
    "svdvals": ("(2, 5, 4)", "wsum(torch.linalg.svdvals(X))"),
    "svd_square": ("(2, 4, 4)", "(lambda r: wsum(canon(r[0]), r[1], canon(r[2].mT)))(torch.linalg.svd(X))"),
    "svd_tall": ("(5, 3)", "(lambda r: wsum(canon(r[0]), r[1], canon(r[2].mT)))(torch.linalg.svd(X, full_matrices=False))"),
    "svd_wide": ("(3, 5)", "(lambda r: wsum(canon(r[0]), r[1], canon(r[2].mT)))(torch.linalg.svd(X, full_matrices=False))"),
    "svd_full_S": ("(3, 5)", "wsum(torch.linalg.svd(X).S)"),
    "qr_tall": ("(5, 3)", "wsum(*torch.linalg.qr(X))"),
    "qr_square": ("(2, 4, 4)", "wsum(*torch.linalg.qr(X))"),
    "qr_wide": ("(3, 5)", "wsum(*torch.linalg.qr(X))"),
    "qr_R": ("(5, 3)", "wsum(torch.linalg.qr(X).R)"),
    "qr_complete_wide": ("(3, 5)", "wsum(*torch.linalg.qr(X, 'complete'))"),
}.items()}, tol=F64)
cases("grad_linalg_errors", [
    "x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\ntorch.linalg.qr(x, 'r').R.sum().backward()",
    "x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)\ntorch.linalg.qr(x, 'complete').Q.sum().backward()",
    # an eigenvector loss that depends on the phase: linalg_eig_backward's / linalg_eigh_backward's check
    "x = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)\n(torch.view_as_real(torch.linalg.eig(x).eigenvectors) * torch.arange(18.).reshape(3, 3, 2)).sum().backward()",
    "x = torch.randn(3, 3, dtype=torch.complex128, requires_grad=True)\n(torch.view_as_real(torch.linalg.eigh(x @ x.mH).eigenvectors) * torch.arange(18.).reshape(3, 3, 2)).sum().backward()",
])

# general eigendecomposition (geev in both LAPACKs): eigenvalues raw, eigenvectors as |V| (unique
# up to a unit complex factor per column; both normalise to unit norm)
both("eig", lambda dt: {
    "eig": SEED + f"L, V = torch.linalg.eig(torch.randn(2, 4, 4, dtype=torch.{dt}))\n(L, V.abs(), V.dtype, V.shape)",
    "eig_sym": SEED + gen(3, dt, kind="spd") + "L, V = torch.linalg.eig(A)\n(L, V.abs())",
    "eigvals": SEED + f"torch.linalg.eigvals(torch.randn(5, 5, dtype=torch.{dt}))",
    "aten": SEED + f"torch.ops.aten.linalg_eig.default(torch.randn(3, 3, dtype=torch.{dt}))[0]",
    "empty": f"torch.linalg.eigvals(torch.randn(2, 0, 0, dtype=torch.{dt}))",
}, vars=False)
cases("eig_errors", ["torch.linalg.eig(torch.randn(3, 4))", "torch.linalg.eig(torch.ones(3, 3, dtype=torch.long))",
                     "torch.linalg.eigvals(torch.randn(3))"])

# least squares (gelsy in both)
both("lstsq", lambda dt: {
    "tall": SEED + f"torch.linalg.lstsq(torch.randn(5, 3, dtype=torch.{dt}), torch.randn(5, 2, dtype=torch.{dt}))",
    "wide": SEED + f"torch.linalg.lstsq(torch.randn(3, 5, dtype=torch.{dt}), torch.randn(3, 2, dtype=torch.{dt}))",
    "vec": SEED + f"torch.linalg.lstsq(torch.randn(5, 3, dtype=torch.{dt}), torch.randn(5, dtype=torch.{dt})).solution",
    "batch": SEED + f"torch.linalg.lstsq(torch.randn(2, 5, 3, dtype=torch.{dt}), torch.randn(2, 5, 2, dtype=torch.{dt}))",
    "rank_deficient": SEED + f"X = torch.randn(5, 2, dtype=torch.{dt})\ntorch.linalg.lstsq(torch.cat([X, X[:, :1]], 1), torch.randn(5, 1, dtype=torch.{dt})).rank",
    "gelsy": SEED + f"torch.linalg.lstsq(torch.randn(4, 4, dtype=torch.{dt}), torch.randn(4, 1, dtype=torch.{dt}), driver='gelsy')",
})
cases("lstsq_errors", [
    "torch.linalg.lstsq(torch.randn(5, 3), torch.randn(5, 2), driver='x')",
    "torch.linalg.lstsq(torch.randn(5, 3), torch.randn(4, 2))",
    "torch.linalg.lstsq(torch.randn(5, 3), torch.randn(5, 2, dtype=torch.float64))",
])

both("lu_plu", lambda dt: {
    "square": SEED + gen(4, dt) + "torch.linalg.lu(A)",
    "batch": SEED + gen(3, dt, "2") + "torch.linalg.lu(A)",
    "wide": SEED + f"torch.linalg.lu(torch.randn(3, 5, dtype=torch.{dt}))",
    "tall": SEED + f"torch.linalg.lu(torch.randn(5, 3, dtype=torch.{dt}))",
    "aten": SEED + gen(3, dt) + "torch.ops.aten.linalg_lu.default(A)",
})
cases("lu_plu_errors", ["torch.linalg.lu(torch.randn(3, 3), pivot=False)", "torch.linalg.lu(torch.randn(3))"])
