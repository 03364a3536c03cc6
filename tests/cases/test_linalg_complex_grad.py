"""Complex gradients of the linear-algebra backward formulas (src/autograd/bw_linalg.c: cholesky_backward,
linalg_det_backward, svd_backward; formulas.c's pinv / lstsq / householder_product / ormqr bodies),
compared with upstream's FunctionsManual.cpp on complex128 leaves (issue 8; docs/linalg.md
"Complex gradients"). Before, cholesky, det and svd took plain transposes where upstream conjugates,
and svd lacked the i Im(diag(U^H gU)) / 2S term and the phase check: their gradients differed from
upstream's by O(1) (tools/linalg_complex_grads.py).

Losses through singular / eigen vectors are gauge-invariant (U Vh, |U|, V diag(L) V^H), as upstream
requires for complex inputs; a phase-dependent one raises upstream's RuntimeError. The `dbl` cases
differentiate a first gradient taken with create_graph=True (double backward through the same
formulas' ops).

Tolerance: the products and LAPACK solves inside the formulas sum in a host-dependent order (MKL
upstream, OpenBLAS here), so no bits are claimed; F64 is test_linalg_lapack.py's a-priori bound of
a backward-stable factorisation (|x - x*| <= c n eps kappa(A) |x|, n <= 5, kappa <= ~50 here)."""
from harness import cases
from harness.autograd import grads

F64 = (1e-12, 1e-12)

L = ("ps = leaves((4, 4), (4, 3), (5, 3), (3, 5), (2, 3, 3), dtype=torch.complex128)\n"
     "A0, B, T, W, Ab = ps\nC = torch.complex128\nA = A0 + 4 * torch.eye(4, dtype=C)\nP = A0 @ A0.mH + torch.eye(4, dtype=C)\n")
WT = "\nout = torch.view_as_real(out)\nout = out * torch.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape)"


def first(expr):
    """the first gradient of expr's weighted real part with respect to every leaf, kept differentiable"""
    return (f"y = torch.view_as_real({expr})\n"
            "g = torch.autograd.grad((y * torch.linspace(-1, 1, y.numel(), dtype=y.dtype).reshape(y.shape)).sum(), ps,\n"
            "                        create_graph=True, allow_unused=True)\n"
            "out = torch.cat([x.flatten() for x in g if x is not None])")


grads("grad_linalg_complex2", {k: L + "out = " + v + WT for k, v in {
    "cholesky": "torch.linalg.cholesky(P)",
    "cholesky_upper": "torch.linalg.cholesky(P, upper=True)",
    "cholesky_ex": "torch.linalg.cholesky_ex(P).L",
    "cholesky_deprecated_upper": "torch.cholesky(P, upper=True)",
    "cholesky_inverse": "torch.cholesky_inverse(torch.linalg.cholesky(P))",
    "cholesky_solve": "torch.cholesky_solve(B, torch.linalg.cholesky(P))",
    "det": "torch.linalg.det(A)",
    "det_mT": "torch.linalg.det(A.mT)",
    "det_batch": "torch.linalg.det(Ab + 3 * torch.eye(3, dtype=C))",
    "det_method": "(A @ A).det()",
    "logdet": "torch.logdet(P)",
    "svdvals_tall": "torch.linalg.svdvals(T)",
    "svdvals_wide": "torch.linalg.svdvals(W)",
    "svd_S_full": "torch.linalg.svd(W).S",
    "svd_UVh_square": "(lambda r: r.U @ r.Vh)(torch.linalg.svd(A0))",
    "svd_UVh_tall": "(lambda r: r.U @ r.Vh)(torch.linalg.svd(T, full_matrices=False))",
    "svd_UVh_wide": "(lambda r: r.U @ r.Vh)(torch.linalg.svd(W, full_matrices=False))",
    "svd_UVh_full": "(lambda r: r.U[:, :3] @ r.Vh)(torch.linalg.svd(T))",
    "svd_USVh_wide": "(lambda r: (r.U * r.S.unsqueeze(-2)) @ r.Vh)(torch.linalg.svd(W, full_matrices=False))",
    "svd_absU_tall": "torch.linalg.svd(T, full_matrices=False).U.abs().to(C)",
    "svd_absVh_wide": "torch.linalg.svd(W, full_matrices=False).Vh.abs().to(C)",
    "svd_legacy": "(lambda r: r[0] @ r[2].mH * r[1].sum())(torch.svd(T))",
    "svd_batch": "(lambda r: r.U @ r.Vh)(torch.linalg.svd(Ab))",
    "norm_nuc": "torch.linalg.matrix_norm(T, 'nuc').to(C)",
    "norm_2": "torch.linalg.matrix_norm(T, 2).to(C)",
    "cond": "torch.linalg.cond(A).to(C)",
    "pinv_tall": "torch.linalg.pinv(T)",
    "lstsq_tall": "torch.linalg.lstsq(T, torch.cat([B, B[:1]])).solution",
    "householder_product": "torch.linalg.householder_product(T, B[:3, 0])",
    "ormqr": "torch.ormqr(T, B[:3, 0], W, left=False, transpose=True)",
    "eigh_recon": "(lambda r: (r.eigenvectors * r.eigenvalues.unsqueeze(-2)) @ r.eigenvectors.mH)(torch.linalg.eigh(P))",
    # double backward: the first gradient's ops differentiated again
    "dbl_cholesky": first("torch.linalg.cholesky(P)"),
    "dbl_det": first("torch.linalg.det(A)"),
    "dbl_svdvals": first("torch.linalg.svdvals(T)"),
    "dbl_svd_UVh_wide": first("(lambda r: r.U @ r.Vh)(torch.linalg.svd(W, full_matrices=False))"),
    "dbl_qr_tall": first("torch.cat([t.flatten() for t in torch.linalg.qr(T)])"),
    # det's first gradient recorded on a singular matrix (rows 0 and 1 dependent): upstream's SVD
    # adjugate branch
    "dbl_det_singular": first("torch.linalg.det(torch.stack([A0[0], 2 * A0[0], A0[2], A0[3]]))"),
}.items()}, tol=F64)

# a loss that depends on the singular vectors' phase: svd_backward's check (upstream's RuntimeError)
cases("grad_linalg_complex2_errors", [
    "x = torch.randn(3, 3, dtype=torch.complex128, requires_grad=True)\n"
    "torch.view_as_real(torch.linalg.svd(x).U).sum().backward()",
    "x = torch.randn(4, 3, dtype=torch.complex128, requires_grad=True)\n"
    "torch.view_as_real(torch.linalg.svd(x, full_matrices=False).Vh).sum().backward()",
    # gU and gVh both given, their phases not cancelling
    "x = torch.randn(3, 3, dtype=torch.complex128, requires_grad=True)\n"
    "r = torch.linalg.svd(x)\n(torch.view_as_real(r.U).sum() + torch.view_as_real(r.Vh).sum()).backward()",
])

# a complex right solve returns a conjugate view (upstream: the left solve of B^H, then .mH())
CV = ("torch.manual_seed(0)\nA = torch.randn(2, 3, 3, dtype=torch.complex128) + 3 * torch.eye(3)\n"
      "B = torch.randn(2, 2, 3, dtype=torch.complex128)\nLU, piv = torch.linalg.lu_factor(A)\n")
cases("linalg_complex_conj_view", {k: CV + f"X = {v}\n(X.is_conj(), X.stride(), X.resolve_conj())" for k, v in {
    "lu_solve_right": "torch.linalg.lu_solve(LU, piv, B, left=False)",
    "lu_solve_right_adjoint": "torch.linalg.lu_solve(LU, piv, B, left=False, adjoint=True)",
    "lu_solve_left": "torch.linalg.lu_solve(LU, piv, B.mT)",
    "solve_right": "torch.linalg.solve(A, B, left=False)",
    "solve_ex_right": "torch.ops.aten._linalg_solve_ex.default(A, B, left=False)[0]",
}.items()}, tol=F64)
