"""More of torch.linalg (src/ops/linalg_more.c): upstream's CompositeImplicit linalg functions
(linalg_diagonal, cross, linalg_vander, matrix_power, multi_dot, matrix_norm, cond, pinv,
matrix_rank, tensorinv, tensorsolve, cov, corrcoef) and the ops linalg_cross, addmv, addr, addbmm,
dist, linalg_pinv.atol_rtol_tensor, compared with upstream.

Tolerances. float32: tol="float" (upstream's own float32-vs-float64 error, matrix products
within their summation-order bound). float64 results over LAPACK (svd, eigh, inv, solve) take the
a-priori bound of a backward-stable factorisation as test_linalg_lapack.py explains: F64 =
(1e-12, 1e-12) for the well-conditioned inputs below (randn plus a multiple of the identity).
Elementwise-only composites (cross, vander, diagonal, fro norm) are compared with tol="float" too,
since upstream's vectorised kernels may contract differently."""
from harness import cases

SEED = "torch.manual_seed(0)\n"
F64 = (1e-12, 1e-12)


def gen(n, dt, batch=""):
    b = batch + ", " if batch else ""
    return f"A = (torch.randn({b}{n}, {n}, dtype=torch.float64) + {n} * torch.eye({n}, dtype=torch.float64)).to(torch.{dt})\n"


def both(name, make, **kw):
    cases(name + "_f32", make("float32"), tol="float", **kw)
    cases(name + "_f64", make("float64"), tol=F64, **kw)


# ---- cross ----
both("cross", lambda dt: {
    "linalg": SEED + f"torch.linalg.cross(torch.randn(4, 3, dtype=torch.{dt}), torch.randn(4, 3, dtype=torch.{dt}))",
    "dim0": SEED + f"torch.linalg.cross(torch.randn(3, 5, dtype=torch.{dt}), torch.randn(3, 5, dtype=torch.{dt}), dim=0)",
    "broadcast": SEED + f"torch.linalg.cross(torch.randn(2, 1, 3, dtype=torch.{dt}), torch.randn(1, 4, 3, dtype=torch.{dt}))",
    "noncontig": SEED + f"torch.linalg.cross(torch.randn(3, 4, dtype=torch.{dt}).mT, torch.randn(4, 3, dtype=torch.{dt}))",
    "legacy_dim": SEED + f"torch.cross(torch.randn(3, 3, dtype=torch.{dt}), torch.randn(3, 3, dtype=torch.{dt}), dim=1)",
    "method": SEED + f"torch.randn(2, 3, dtype=torch.{dt}).cross(torch.randn(2, 3, dtype=torch.{dt}), dim=-1)",
    "aten": SEED + f"torch.ops.aten.linalg_cross.default(torch.randn(2, 3, dtype=torch.{dt}), torch.randn(2, 3, dtype=torch.{dt}))",
    "aten_cross": SEED + f"torch.ops.aten.cross.default(torch.randn(2, 3, dtype=torch.{dt}), torch.randn(2, 3, dtype=torch.{dt}), 1)",
    "out": SEED + f"o = torch.empty(0, dtype=torch.{dt})\nr = torch.linalg.cross(torch.randn(2, 3, dtype=torch.{dt}), torch.randn(2, 3, dtype=torch.{dt}), out=o)\n(r, o)",
    "empty": f"torch.linalg.cross(torch.randn(0, 3, dtype=torch.{dt}), torch.randn(0, 3, dtype=torch.{dt}))",
})
cases("cross_int", [
    "torch.linalg.cross(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))",
    "torch.cross(torch.arange(9).view(3, 3), torch.ones(3, 3, dtype=torch.long), dim=0)",
])
cases("cross_default_dim", [
    """
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = torch.cross(torch.arange(12.).view(4, 3), torch.ones(4, 3))
    r
    """,
])
cases("cross_errors", [
    "torch.linalg.cross(torch.randn(3, 4), torch.randn(3, 4))",
    "torch.linalg.cross(torch.randn(3), torch.randn(2, 3))",
    "torch.linalg.cross(torch.randn(2, 3), torch.randn(4, 3))",
    "torch.linalg.cross(torch.randn(2, 3), torch.randn(2, 3), dim=2)",
])

# ---- diagonal ----
cases("diagonal", [
    "torch.linalg.diagonal(torch.arange(24.).view(2, 3, 4))",
    "torch.linalg.diagonal(torch.arange(24.).view(2, 3, 4), offset=1)",
    "torch.linalg.diagonal(torch.arange(24.).view(2, 3, 4), offset=-1, dim1=0, dim2=2)",
    "torch.ops.aten.linalg_diagonal.default(torch.arange(9.).view(3, 3))",
    "x = torch.arange(9.).view(3, 3)\nd = torch.linalg.diagonal(x)\nd._base is x",
], strides=True)
cases("diagonal_errors", ["torch.linalg.diagonal(torch.ones(3))", "torch.linalg.diagonal(torch.ones(3, 3), dim1=0, dim2=0)"])

# ---- vander ----
both("vander", lambda dt: {
    "vec": f"torch.linalg.vander(torch.tensor([1., 2., 3., 0.5], dtype=torch.{dt}))",
    "N": f"torch.linalg.vander(torch.tensor([1., -2., 3.], dtype=torch.{dt}), N=5)",
    "batch": SEED + f"torch.linalg.vander(torch.randn(2, 3, dtype=torch.{dt}))",
    "aten": f"torch.ops.aten.linalg_vander.default(torch.tensor([2., 3.], dtype=torch.{dt}), N=3)",
    "noncontig": SEED + f"torch.linalg.vander(torch.randn(3, 4, dtype=torch.{dt}).mT)",
})
cases("vander_int", ["torch.linalg.vander(torch.tensor([1, 2, 3]))", "torch.linalg.vander(torch.tensor(2), N=3)"])
cases("vander_errors", ["torch.linalg.vander(torch.tensor([1., 2.]), N=1)",
                        "torch.linalg.vander(torch.tensor([True, False]))"])

# ---- matrix_power ----
both("matrix_power", lambda dt: {
    "0": SEED + gen(3, dt) + "torch.linalg.matrix_power(A, 0)",
    "1": SEED + gen(3, dt) + "torch.linalg.matrix_power(A, 1)",
    "2": SEED + gen(3, dt, "2") + "torch.linalg.matrix_power(A, 2)",
    "3": SEED + gen(3, dt) + "torch.linalg.matrix_power(A, 3)",
    "6": SEED + gen(3, dt, "2") + "torch.linalg.matrix_power(A / 3, 6)",
    "neg": SEED + gen(3, dt) + "torch.linalg.matrix_power(A, -3)",
    "legacy": SEED + gen(3, dt) + "torch.matrix_power(A, 5)",
    "method": SEED + gen(3, dt) + "A.matrix_power(2)",
    "noncontig": SEED + gen(3, dt) + "torch.linalg.matrix_power(A.mT, 1)",
    "aten": SEED + gen(3, dt) + "torch.ops.aten.linalg_matrix_power.default(A, 4)",
    "aten_legacy": SEED + gen(3, dt) + "torch.ops.aten.matrix_power.default(A, 0)",
    "empty": f"torch.linalg.matrix_power(torch.randn(2, 0, 0, dtype=torch.{dt}), 3)",
}, strides=True)
cases("matrix_power_int", ["torch.linalg.matrix_power(torch.tensor([[1, 1], [1, 0]]), 10)"])
cases("matrix_power_errors", ["torch.linalg.matrix_power(torch.ones(2, 3), 2)", "torch.linalg.matrix_power(torch.ones(3), 2)"])

# ---- multi_dot ----
both("multi_dot", lambda dt: {
    "2": SEED + f"torch.linalg.multi_dot([torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, 2, dtype=torch.{dt})])",
    "3a": SEED + f"torch.linalg.multi_dot([torch.randn(10, 2, dtype=torch.{dt}), torch.randn(2, 10, dtype=torch.{dt}), torch.randn(10, 2, dtype=torch.{dt})])",
    "3b": SEED + f"torch.linalg.multi_dot([torch.randn(2, 10, dtype=torch.{dt}), torch.randn(10, 2, dtype=torch.{dt}), torch.randn(2, 10, dtype=torch.{dt})])",
    "5": SEED + f"torch.linalg.multi_dot([torch.randn(4, dtype=torch.{dt}), torch.randn(4, 7, dtype=torch.{dt}), torch.randn(7, 2, dtype=torch.{dt}), torch.randn(2, 6, dtype=torch.{dt}), torch.randn(6, dtype=torch.{dt})])",
    "vecs": SEED + f"torch.linalg.multi_dot([torch.randn(3, dtype=torch.{dt}), torch.randn(3, 5, dtype=torch.{dt})])",
    "aten": SEED + f"torch.ops.aten.linalg_multi_dot.default([torch.randn(2, 3, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, 2, dtype=torch.{dt}), torch.randn(2, 2, dtype=torch.{dt})])",
    "noncontig": SEED + f"torch.linalg.multi_dot([torch.randn(4, 3, dtype=torch.{dt}).mT, torch.randn(4, 2, dtype=torch.{dt})])",
}, strides=True)
cases("multi_dot_errors", [
    "torch.linalg.multi_dot([torch.ones(2, 2)])",
    "torch.linalg.multi_dot([torch.ones(2, 2, 2), torch.ones(2, 2)])",
    "torch.linalg.multi_dot([torch.ones(2, 2), torch.ones(2, 2, 2)])",
    "torch.linalg.multi_dot([torch.ones(2, 2), torch.ones(2), torch.ones(2, 2)])",
    "torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(2, 2)])",
    "torch.linalg.multi_dot([torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64)])",
])

# ---- matrix norms ----
both("matrix_norm", lambda dt: {
    "fro": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}))",
    "nuc": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), 'nuc')",
    "nuc_keep": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 2, 4, dtype=torch.{dt}), 'nuc', dim=(0, 2), keepdim=True)",
    "2": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), 2)",
    "-2": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), -2)",
    "1": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), 1)",
    "-1": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), -1, keepdim=True)",
    "inf": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), float('inf'))",
    "-inf_dims": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 2, 4, dtype=torch.{dt}), -float('inf'), dim=(2, 0))",
    "2_keep_dims": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 2, 4, dtype=torch.{dt}), 2, dim=(0, 2), keepdim=True)",
    "norm_2": SEED + f"torch.linalg.norm(torch.randn(3, 4, dtype=torch.{dt}), 2)",
    "norm_inf_dim": SEED + f"torch.linalg.norm(torch.randn(2, 3, 4, dtype=torch.{dt}), float('inf'), dim=(1, 2))",
    "norm_nuc": SEED + f"torch.linalg.norm(torch.randn(3, 4, dtype=torch.{dt}), 'nuc')",
    "legacy_nuc": SEED + f"torch.norm(torch.randn(3, 4, dtype=torch.{dt}), p='nuc')",
    "nuclear_norm": SEED + f"torch.nuclear_norm(torch.randn(3, 4, dtype=torch.{dt}))",
    "nuclear_norm_dim": SEED + f"torch.nuclear_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), dim=(0, 2), keepdim=True)",
    "aten": SEED + f"torch.ops.aten.linalg_matrix_norm.default(torch.randn(3, 4, dtype=torch.{dt}), 1)",
    "aten_str": SEED + f"torch.ops.aten.linalg_matrix_norm.str_ord(torch.randn(3, 4, dtype=torch.{dt}), 'nuc')",
    "noncontig": SEED + f"torch.linalg.matrix_norm(torch.randn(4, 3, dtype=torch.{dt}).mT, 2)",
    "dtype": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.{dt}), 'nuc', dtype=torch.float64)",
})
cases("matrix_norm_lowp", [
    SEED + "torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.bfloat16), 1)",
    SEED + "torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.bfloat16), 2)",
    SEED + "torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.float16), 'nuc')",
])
# an empty reduced dimension: zeros for ord > 0 (upstream's max_min wrapper), amin's IndexError otherwise
cases("matrix_norm_empty", [f"torch.linalg.matrix_norm(torch.zeros({s}), {o})" for s in ("0, 0", "2, 0, 3", "3, 0", "0, 3")
                            for o in ("1", "-1", "float('inf')", "-float('inf')", "2", "-2", "'fro'", "'nuc'")])
cases("matrix_norm_errors", [
    "torch.linalg.matrix_norm(torch.ones(3), 1)",
    "torch.linalg.matrix_norm(torch.ones(3, 3), 3)",
    "torch.linalg.matrix_norm(torch.ones(3, 3), 'abc')",
    "torch.linalg.matrix_norm(torch.ones(3, 3, dtype=torch.long), 1)",
    "torch.linalg.matrix_norm(torch.ones(3, 3), 2, dim=(0, 0))",
    "torch.linalg.matrix_norm(torch.ones(3, 3), 2, dim=(0,))",
    "torch.linalg.norm(torch.ones(2, 3, 3), 2)",
])

# ---- cond ----
both("cond", lambda dt: {
    "default": SEED + gen(3, dt) + "torch.linalg.cond(A)",
    "-2": SEED + f"torch.linalg.cond(torch.randn(2, 3, 5, dtype=torch.{dt}), -2)",
    "1": SEED + gen(3, dt, "2") + "torch.linalg.cond(A, 1)",
    "inf": SEED + gen(3, dt) + "torch.linalg.cond(A, float('inf'))",
    "-1.": SEED + gen(3, dt) + "torch.linalg.cond(A, -1.)",
    "fro": SEED + gen(3, dt, "2") + "torch.linalg.cond(A, 'fro')",
    "nuc": SEED + gen(3, dt) + "torch.linalg.cond(A, 'nuc')",
    "singular": f"torch.linalg.cond(torch.ones(2, 2, 2, dtype=torch.{dt}), 1)",
    "empty": f"torch.linalg.cond(torch.ones(2, 0, 0, dtype=torch.{dt}))",
    "empty_fro": f"torch.linalg.cond(torch.ones(0, 0, dtype=torch.{dt}), 'fro')",
    "aten": SEED + gen(3, dt) + "torch.ops.aten.linalg_cond.default(A)",
    "aten_str": SEED + gen(3, dt) + "torch.ops.aten.linalg_cond.p_str(A, 'fro')",
})
cases("cond_errors", [
    "torch.linalg.cond(torch.ones(3))",
    "torch.linalg.cond(torch.ones(3, 3), 3)",
    "torch.linalg.cond(torch.ones(2, 3), 1)",
    "torch.linalg.cond(torch.ones(2, 3), 'fro')",
    "torch.linalg.cond(torch.ones(3, 3), 'abc')",
])

# ---- pinv ----
both("pinv", lambda dt: {
    "square": SEED + gen(3, dt) + "torch.linalg.pinv(A)",
    "tall": SEED + f"torch.linalg.pinv(torch.randn(2, 5, 3, dtype=torch.{dt}))",
    "wide": SEED + f"torch.linalg.pinv(torch.randn(3, 5, dtype=torch.{dt}))",
    "singular": SEED + f"X = torch.randn(4, 2, dtype=torch.{dt})\ntorch.linalg.pinv(X @ X.mT)",
    "hermitian": SEED + gen(4, dt) + "torch.linalg.pinv(A + A.mT, hermitian=True)",
    "atol": SEED + f"torch.linalg.pinv(torch.randn(4, 3, dtype=torch.{dt}), atol=0.5)",
    "rtol": SEED + f"torch.linalg.pinv(torch.randn(4, 3, dtype=torch.{dt}), rtol=0.3)",
    "atol_t": SEED + f"torch.linalg.pinv(torch.randn(2, 4, 3, dtype=torch.{dt}), atol=torch.tensor([0.1, 10.], dtype=torch.float64))",
    "rcond": SEED + f"torch.linalg.pinv(torch.randn(4, 3, dtype=torch.{dt}), 0.2)",
    "rcond_t": SEED + f"torch.linalg.pinv(torch.randn(4, 3, dtype=torch.{dt}), torch.tensor(0.2))",
    "pinverse": SEED + f"torch.pinverse(torch.randn(4, 3, dtype=torch.{dt}))",
    "pinverse_method": SEED + f"torch.randn(3, 4, dtype=torch.{dt}).pinverse(rcond=0.1)",
    "aten": SEED + f"torch.ops.aten.linalg_pinv.atol_rtol_tensor(torch.randn(4, 3, dtype=torch.{dt}))",
    "aten_float": SEED + f"torch.ops.aten.linalg_pinv.atol_rtol_float(torch.randn(4, 3, dtype=torch.{dt}), atol=0.1)",
    "empty": f"torch.linalg.pinv(torch.randn(2, 0, 3, dtype=torch.{dt}))",
})
# float32 pinv of this input through OpenBLAS' sgesdd lands 2.7x upstream's own float32 error
# from the exact value (MKL's sgesdd rounds differently): the non-contiguous case runs in float64
cases("pinv_noncontig", [SEED + "torch.linalg.pinv(torch.randn(3, 4, dtype=torch.float64).mT)",
                         SEED + "torch.linalg.pinv(torch.randn(3, 5, dtype=torch.float64)[:, ::2])"], tol=F64)
cases("pinv_errors", [
    "torch.linalg.pinv(torch.ones(3))",
    "torch.linalg.pinv(torch.ones(3, 3, dtype=torch.long))",
    "torch.linalg.pinv(torch.ones(3, 3), atol=torch.tensor(1j))",
])

# ---- matrix_rank ----
cases("matrix_rank", {
    "full": SEED + gen(4, "float64") + "torch.linalg.matrix_rank(A)",
    "low": SEED + "X = torch.randn(2, 5, 2, dtype=torch.float64)\ntorch.linalg.matrix_rank(X @ X.mT)",
    "f32": SEED + "X = torch.randn(5, 2)\ntorch.linalg.matrix_rank(X @ X.mT)",
    "hermitian": SEED + "X = torch.randn(5, 3, dtype=torch.float64)\ntorch.linalg.matrix_rank(X @ X.mT, hermitian=True)",
    "atol": SEED + "torch.linalg.matrix_rank(torch.diag(torch.tensor([3., 1., 0.1])), atol=0.5)",
    "rtol": SEED + "torch.linalg.matrix_rank(torch.diag(torch.tensor([3., 1., 0.1])), rtol=0.2)",
    "atol_t": "torch.linalg.matrix_rank(torch.diag(torch.tensor([3., 1., 0.1])), atol=torch.tensor(0.05), rtol=torch.tensor(0.5))",
    "tol": "torch.linalg.matrix_rank(torch.diag(torch.tensor([3., 1., 0.1])), 0.5)",
    "tol_t": "torch.linalg.matrix_rank(torch.diag(torch.tensor([3., 1., 0.1])), torch.tensor(0.5))",
    "aten": "torch.ops.aten.linalg_matrix_rank.atol_rtol_tensor(torch.eye(3))",
    "aten_float": "torch.ops.aten.linalg_matrix_rank.atol_rtol_float(torch.eye(3), atol=2.)",
    "empty": "torch.linalg.matrix_rank(torch.ones(2, 0, 3))",
})
cases("matrix_rank_errors", ["torch.linalg.matrix_rank(torch.ones(3))",
                             "torch.linalg.matrix_rank(torch.ones(3, 3), atol=torch.tensor(1j))"])

# ---- tensorinv / tensorsolve ----
both("tensorinv", lambda dt: {
    "ind2": SEED + f"A = torch.randn(4, 6, 8, 3, dtype=torch.{dt})\ntorch.linalg.tensorinv(A.reshape(24, 24) + 24 * torch.eye(24, dtype=torch.{dt}).view(24, 24), ind=1)",
    "ind1": SEED + f"A = (torch.randn(24, 24, dtype=torch.{dt}) + 24 * torch.eye(24, dtype=torch.{dt})).reshape(4, 6, 8, 3)\ntorch.linalg.tensorinv(A, ind=2)",
    "aten": SEED + gen(4, dt) + "torch.ops.aten.linalg_tensorinv.default(A, 1)",
})
both("tensorsolve", lambda dt: {
    "basic": SEED + f"A = (torch.randn(6, 6, dtype=torch.{dt}) + 6 * torch.eye(6, dtype=torch.{dt})).reshape(2, 3, 6)\ntorch.linalg.tensorsolve(A, torch.randn(2, 3, dtype=torch.{dt}))",
    "dims": SEED + f"A = (torch.randn(6, 6, dtype=torch.{dt}) + 6 * torch.eye(6, dtype=torch.{dt})).reshape(6, 2, 3).permute(1, 0, 2)\ntorch.linalg.tensorsolve(A, torch.randn(6, dtype=torch.{dt}), dims=(0, 2))",
    "aten": SEED + gen(4, dt) + f"torch.ops.aten.linalg_tensorsolve.default(A, torch.randn(4, dtype=torch.{dt}))",
})
cases("tensor_errors", [
    "torch.linalg.tensorinv(torch.ones(2, 3, 4), ind=1)",
    "torch.linalg.tensorinv(torch.ones(2, 2), ind=0)",
    "torch.linalg.tensorinv(torch.zeros(2, 2), ind=1)",
    "torch.linalg.tensorsolve(torch.ones(2, 3, 4), torch.ones(2, 3))",
])

# ---- cov / corrcoef ----
both("cov", lambda dt: {
    "2d": SEED + f"torch.cov(torch.randn(3, 6, dtype=torch.{dt}))",
    "1d": SEED + f"torch.cov(torch.randn(6, dtype=torch.{dt}))",
    "correction0": SEED + f"torch.cov(torch.randn(3, 6, dtype=torch.{dt}), correction=0)",
    "fweights": SEED + f"torch.cov(torch.randn(3, 6, dtype=torch.{dt}), fweights=torch.tensor([1, 2, 3, 1, 0, 2]))",
    "aweights": SEED + f"torch.cov(torch.randn(3, 6, dtype=torch.{dt}), aweights=torch.rand(6, dtype=torch.{dt}))",
    "both": SEED + f"torch.cov(torch.randn(3, 6, dtype=torch.{dt}), correction=2, fweights=torch.tensor([1, 2, 3, 1, 1, 2]), aweights=torch.rand(6, dtype=torch.{dt}))",
    "method": SEED + f"torch.randn(2, 5, dtype=torch.{dt}).cov()",
    "noncontig": SEED + f"torch.cov(torch.randn(6, 3, dtype=torch.{dt}).mT)",
    "aten": SEED + f"torch.ops.aten.cov.default(torch.randn(3, 4, dtype=torch.{dt}))",
    "corrcoef": SEED + f"torch.corrcoef(torch.randn(3, 6, dtype=torch.{dt}))",
    "corrcoef_1d": SEED + f"torch.corrcoef(torch.randn(6, dtype=torch.{dt}))",
    "corrcoef_aten": SEED + f"torch.ops.aten.corrcoef.default(torch.randn(2, 6, dtype=torch.{dt}))",
})
cases("cov_int", ["torch.cov(torch.tensor([[1, 2, 4], [3, 1, 0]]))"], tol="float")   # the centred observations' GEMM
# integer means: the centred observations and their GEMM are exact, so every summation order agrees
cases("corrcoef_int", ["torch.corrcoef(torch.tensor([[1, 2, 3], [4, 0, 2]]))", "torch.cov(torch.tensor([[1, 2, 3], [5, 0, 1]]))"])
cases("cov_dof", [
    """
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = torch.cov(torch.randn(2, 1))
    (r, len(w))
    """,
])
cases("cov_errors", [
    "torch.cov(torch.ones(2, 2, 2))",
    "torch.cov(torch.ones(2, 2, dtype=torch.bool))",
    "torch.cov(torch.ones(2, 3), fweights=torch.ones(3))",
    "torch.cov(torch.ones(2, 3), fweights=torch.tensor([1, -1, 1]))",
    "torch.cov(torch.ones(2, 3), fweights=torch.tensor([1, 1]))",
    "torch.cov(torch.ones(2, 3), aweights=torch.tensor([1, 1, 1]))",
    "torch.cov(torch.ones(2, 3), aweights=torch.tensor([1., -1., 1.]))",
    "torch.cov(torch.ones(2, 3), aweights=torch.zeros(3))",
    "torch.corrcoef(torch.ones(2, 2, 2))",
])

# ---- addmv / addr / addbmm / dist ----
both("addmv", lambda dt: {
    "basic": SEED + f"torch.addmv(torch.randn(3, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}))",
    "scalars": SEED + f"torch.addmv(torch.randn(3, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}), beta=0.5, alpha=2)",
    "beta0_nan": SEED + f"torch.addmv(torch.full((3,), float('nan'), dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}), beta=0)",
    "broadcast": SEED + f"torch.addmv(torch.randn(1, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}))",
    "scalar_self": SEED + f"torch.addmv(torch.tensor(2., dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}))",
    "method": SEED + f"torch.randn(3, dtype=torch.{dt}).addmv(torch.randn(4, 3, dtype=torch.{dt}).mT, torch.randn(4, dtype=torch.{dt})[::1])",
    "aten": SEED + f"torch.ops.aten.addmv.default(torch.randn(3, dtype=torch.{dt}), torch.randn(3, 2, dtype=torch.{dt}), torch.randn(2, dtype=torch.{dt}))",
    "empty": f"torch.addmv(torch.ones(3, dtype=torch.{dt}), torch.ones(3, 0, dtype=torch.{dt}), torch.ones(0, dtype=torch.{dt}), beta=2)",
})
both("addr", lambda dt: {
    "basic": SEED + f"torch.addr(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(3, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}))",
    "scalars": SEED + f"torch.addr(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(3, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}), beta=0.5, alpha=-2.5)",
    "beta0_nan": SEED + f"torch.addr(torch.full((3, 4), float('nan'), dtype=torch.{dt}), torch.randn(3, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}), beta=0)",
    "broadcast": SEED + f"torch.addr(torch.randn(4, dtype=torch.{dt}), torch.randn(3, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}))",
    "noncontig": SEED + f"torch.addr(torch.randn(4, 3, dtype=torch.{dt}).mT, torch.randn(6, dtype=torch.{dt})[::2], torch.randn(4, dtype=torch.{dt}))",
    "method": SEED + f"torch.randn(2, 2, dtype=torch.{dt}).addr(torch.randn(2, dtype=torch.{dt}), torch.randn(2, dtype=torch.{dt}))",
    "aten": SEED + f"torch.ops.aten.addr.default(torch.randn(2, 3, dtype=torch.{dt}), torch.randn(2, dtype=torch.{dt}), torch.randn(3, dtype=torch.{dt}))",
})
both("addbmm", lambda dt: {
    "basic": SEED + f"torch.addbmm(torch.randn(3, 5, dtype=torch.{dt}), torch.randn(4, 3, 2, dtype=torch.{dt}), torch.randn(4, 2, 5, dtype=torch.{dt}))",
    "scalars": SEED + f"torch.addbmm(torch.randn(3, 5, dtype=torch.{dt}), torch.randn(4, 3, 2, dtype=torch.{dt}), torch.randn(4, 2, 5, dtype=torch.{dt}), beta=0.5, alpha=2)",
    "beta0_nan": SEED + f"torch.addbmm(torch.full((3, 5), float('nan'), dtype=torch.{dt}), torch.randn(2, 3, 2, dtype=torch.{dt}), torch.randn(2, 2, 5, dtype=torch.{dt}), beta=0)",
    "broadcast": SEED + f"torch.addbmm(torch.randn(5, dtype=torch.{dt}), torch.randn(2, 3, 2, dtype=torch.{dt}), torch.randn(2, 2, 5, dtype=torch.{dt}))",
    "nobatch": f"torch.addbmm(torch.ones(3, 5, dtype=torch.{dt}), torch.ones(0, 3, 2, dtype=torch.{dt}), torch.ones(0, 2, 5, dtype=torch.{dt}), beta=3)",
    "method": SEED + f"torch.randn(3, 5, dtype=torch.{dt}).addbmm(torch.randn(2, 3, 4, dtype=torch.{dt}), torch.randn(2, 5, 4, dtype=torch.{dt}).mT)",
    "aten": SEED + f"torch.ops.aten.addbmm.default(torch.randn(2, 2, dtype=torch.{dt}), torch.randn(2, 2, 3, dtype=torch.{dt}), torch.randn(2, 3, 2, dtype=torch.{dt}))",
})
both("dist", lambda dt: {
    "2": SEED + f"torch.dist(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}))",
    "1": SEED + f"torch.dist(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(4, dtype=torch.{dt}), 1)",
    "inf": SEED + f"torch.dist(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), float('inf'))",
    "0": SEED + f"torch.dist(torch.randn(3, 4, dtype=torch.{dt}), torch.randn(3, 4, dtype=torch.{dt}), 0)",
    "3.5": SEED + f"torch.randn(5, dtype=torch.{dt}).dist(torch.randn(5, dtype=torch.{dt}), 3.5)",
    "aten": SEED + f"torch.ops.aten.dist.default(torch.randn(5, dtype=torch.{dt}), torch.randn(5, dtype=torch.{dt}))",
})
cases("addmv_int", [
    "torch.addmv(torch.tensor([1, 2]), torch.ones(2, 3, dtype=torch.long), torch.tensor([1, 2, 3]), beta=1.7, alpha=2.6)",
    "torch.addr(torch.ones(2, 2, dtype=torch.long), torch.tensor([1, 2]), torch.tensor([3, 4]), beta=2, alpha=3)",
    "torch.addbmm(torch.ones(2, 2, dtype=torch.long), torch.ones(3, 2, 2, dtype=torch.long), torch.ones(3, 2, 2, dtype=torch.long))",
])
cases("add_products_errors", [
    "torch.addmv(torch.ones(2, 2), torch.ones(2, 3), torch.ones(3))",
    "torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(4))",
    "torch.addmv(torch.ones(3), torch.ones(2, 3), torch.ones(3))",
    "torch.addr(torch.ones(2, 2), torch.ones(2, 1), torch.ones(2))",
    "torch.addr(torch.ones(2, 2), torch.ones(2), torch.ones(2, 1))",
    "torch.addr(torch.ones(2, 2), torch.ones(3), torch.ones(2))",
    "torch.addr(torch.ones(2, 2, dtype=torch.long), torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long), beta=0.5)",
    "torch.addbmm(torch.ones(2, 2), torch.ones(2, 2), torch.ones(2, 2, 2))",
    "torch.addbmm(torch.ones(2, 2), torch.ones(2, 2, 2), torch.ones(3, 2, 2))",
    "torch.addbmm(torch.ones(2, 2), torch.ones(2, 2, 3), torch.ones(2, 2, 2))",
    "torch.dist(torch.ones(2), torch.ones(3))",
])

# ---- complex64 / complex128 through the LU, Cholesky and triangular drivers (ops/lapack.c's c/z
# tables): the same tolerances as the real cases ----
def cgen(n, dt, batch="", kind="gen"):
    b = batch + ", " if batch else ""
    if kind == "hpd":
        return (f"X = torch.randn({b}{n}, {n}, dtype=torch.complex128)\n"
                f"A = (X @ X.mH + {n} * torch.eye({n}, dtype=torch.complex128)).to(torch.{dt})\n")
    return f"A = (torch.randn({b}{n}, {n}, dtype=torch.complex128) + {n} * torch.eye({n}, dtype=torch.complex128)).to(torch.{dt})\n"


def cboth(name, make, **kw):
    cases(name + "_c64", make("complex64"), tol="float", **kw)
    cases(name + "_c128", make("complex128"), tol=F64, **kw)


cboth("complex_lu", lambda dt: {
    "inv": SEED + cgen(4, dt, "2") + "torch.linalg.inv(A)",
    "inv_ex": SEED + cgen(3, dt) + "torch.linalg.inv_ex(A)",
    "inv_noncontig": SEED + cgen(4, dt) + "torch.linalg.inv(A.mT)",
    "solve": SEED + cgen(4, dt) + f"torch.linalg.solve(A, torch.randn(4, 2, dtype=torch.{dt}))",
    "solve_vec": SEED + cgen(4, dt, "2") + f"torch.linalg.solve(A, torch.randn(2, 4, dtype=torch.{dt}))",
    "solve_right": SEED + cgen(4, dt, "2") + f"torch.linalg.solve(A, torch.randn(2, 3, 4, dtype=torch.{dt}), left=False)",
    "solve_ex": SEED + cgen(3, dt) + f"torch.linalg.solve_ex(A, torch.randn(3, 1, dtype=torch.{dt}))",
    "det": SEED + cgen(4, dt, "3") + "torch.linalg.det(A)",
    "det_noncontig": SEED + cgen(4, dt) + "torch.det(A.mT)",
    "slogdet": SEED + cgen(4, dt, "2") + "torch.linalg.slogdet(A)",
    "logdet": SEED + cgen(3, dt) + "torch.logdet(A)",
    "det_singular": f"(torch.linalg.det(torch.zeros(2, 2, dtype=torch.{dt})), torch.linalg.slogdet(torch.zeros(2, 2, dtype=torch.{dt})))",
    "lu_factor": SEED + f"torch.linalg.lu_factor(torch.randn(2, 4, 3, dtype=torch.{dt}))",
    "lu_factor_ex": SEED + f"torch.linalg.lu_factor_ex(torch.randn(3, 5, dtype=torch.{dt}))",
    "lu": SEED + f"torch.linalg.lu(torch.randn(2, 3, 4, dtype=torch.{dt}))",
    "lu_solve": SEED + cgen(4, dt) + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.linalg.lu_solve(LU, piv, torch.randn(4, 2, dtype=torch.{dt}))",
    "lu_solve_adjoint": SEED + cgen(4, dt) + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.linalg.lu_solve(LU, piv, torch.randn(4, 2, dtype=torch.{dt}), adjoint=True)",
    "lu_solve_right": SEED + cgen(4, dt) + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.linalg.lu_solve(LU, piv, torch.randn(2, 4, dtype=torch.{dt}), left=False)",
    "lu_solve_right_adjoint": SEED + cgen(4, dt, "2") + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.linalg.lu_solve(LU, piv, torch.randn(2, 3, 4, dtype=torch.{dt}), left=False, adjoint=True)",
    "matrix_power": SEED + cgen(3, dt) + "torch.linalg.matrix_power(A, -2)",
    "tensorinv": SEED + cgen(4, dt) + "torch.linalg.tensorinv(A, ind=1)",
})
cboth("complex_cholesky", lambda dt: {
    "L": SEED + cgen(4, dt, kind="hpd") + "torch.linalg.cholesky(A)",
    "U": SEED + cgen(4, dt, "2", kind="hpd") + "torch.linalg.cholesky(A, upper=True)",
    "ex": SEED + cgen(3, dt, kind="hpd") + "torch.linalg.cholesky_ex(A)",
    "legacy": SEED + cgen(3, dt, kind="hpd") + "torch.cholesky(A)",
    "solve": SEED + cgen(4, dt, kind="hpd") + f"torch.cholesky_solve(torch.randn(4, 2, dtype=torch.{dt}), torch.linalg.cholesky(A))",
    "solve_upper": SEED + cgen(4, dt, "2", kind="hpd") + f"torch.cholesky_solve(torch.randn(2, 4, 3, dtype=torch.{dt}), torch.linalg.cholesky(A, upper=True), upper=True)",
    "inverse": SEED + cgen(4, dt, kind="hpd") + "torch.cholesky_inverse(torch.linalg.cholesky(A))",
    "inverse_upper": SEED + cgen(3, dt, "2", kind="hpd") + "torch.cholesky_inverse(torch.linalg.cholesky(A, upper=True), upper=True)",
    "not_pd": f"torch.linalg.cholesky_ex(-torch.eye(3, dtype=torch.{dt})).info",
})
cboth("complex_triangular", lambda dt: {
    "upper": SEED + cgen(4, dt) + f"torch.linalg.solve_triangular(A.triu(), torch.randn(4, 2, dtype=torch.{dt}), upper=True)",
    "lower_right": SEED + cgen(4, dt, "2") + f"torch.linalg.solve_triangular(A.tril(), torch.randn(2, 3, 4, dtype=torch.{dt}), upper=False, left=False)",
    "unit": SEED + cgen(3, dt) + f"torch.linalg.solve_triangular(A.triu(), torch.randn(3, 3, dtype=torch.{dt}), upper=True, unitriangular=True)",
    "legacy": SEED + cgen(4, dt) + f"torch.triangular_solve(torch.randn(4, 2, dtype=torch.{dt}), A.triu())",
    "legacy_transpose": SEED + cgen(4, dt) + f"torch.triangular_solve(torch.randn(4, 2, dtype=torch.{dt}), A.tril(), upper=False, transpose=True)",
})
cases("complex_errors", [
    "torch.linalg.inv(torch.zeros(2, 2, dtype=torch.complex64))",
    "torch.linalg.cholesky(-torch.eye(2, dtype=torch.complex128))",
    "torch.linalg.solve(torch.eye(2, dtype=torch.complex64), torch.ones(2, dtype=torch.complex128))",
])

# complex QR, SVD and eigendecompositions (cgeqrf/cungqr, cgesdd, cheevd, cgeev): vectors are unique
# only up to a unit phase per column, so besides the raw factors where the LAPACKs agree (QR, and
# values) the cases compare the unique invariants: singular values / eigenvalues, |vectors|, the
# reconstruction and the Gram matrix
cboth("complex_decomp", lambda dt: {
    "qr": SEED + f"torch.linalg.qr(torch.randn(2, 5, 3, dtype=torch.{dt}))",
    "qr_complete": SEED + f"torch.linalg.qr(torch.randn(4, 3, dtype=torch.{dt}), mode='complete')",
    "qr_r": SEED + f"torch.linalg.qr(torch.randn(3, 5, dtype=torch.{dt}), mode='r')",
    "qr_invariant": SEED + f"Q, R = torch.linalg.qr(torch.randn(5, 4, dtype=torch.{dt}))\n(Q @ R, Q.abs(), R.abs(), Q.mH @ Q)",
    "svdvals": SEED + f"torch.linalg.svdvals(torch.randn(2, 4, 6, dtype=torch.{dt}))",
    "svd_invariant": SEED + f"X = torch.randn(2, 5, 3, dtype=torch.{dt})\nU, S, Vh = torch.linalg.svd(X, full_matrices=False)\n(S, (U * S.unsqueeze(-2)) @ Vh, U.abs(), Vh.abs(), U.mH @ U, Vh @ Vh.mH)",
    "svd_full": SEED + f"U, S, Vh = torch.linalg.svd(torch.randn(3, 5, dtype=torch.{dt}))\n(S, U.shape, Vh.shape, U.mH @ U, Vh @ Vh.mH)",
    "svd_legacy": SEED + f"U, S, V = torch.svd(torch.randn(4, 3, dtype=torch.{dt}))\n(S, V.is_conj(), (U * S) @ V.resolve_conj().mH)",
    "eigvalsh": SEED + cgen(4, dt, "2", kind="hpd") + "torch.linalg.eigvalsh(A)",
    "eigh_invariant": SEED + cgen(4, dt, kind="hpd") + "L, V = torch.linalg.eigh(A)\n(L, V.abs(), (V * L.to(V.dtype)) @ V.mH, V.mH @ V)",
    "eigh_upper": SEED + cgen(3, dt, kind="hpd") + "torch.linalg.eigvalsh(A, UPLO='U')",
    "eigvals": SEED + f"torch.linalg.eigvals(torch.randn(2, 4, 4, dtype=torch.{dt}))",
    "eig_invariant": SEED + f"X = torch.randn(4, 4, dtype=torch.{dt})\nL, V = torch.linalg.eig(X)\n(L, V.abs(), X @ V - V * L)",
    "pinv": SEED + f"torch.linalg.pinv(torch.randn(4, 3, dtype=torch.{dt}))",
    "pinv_hermitian": SEED + cgen(3, dt, kind="hpd") + "torch.linalg.pinv(A, hermitian=True)",
    "matrix_rank": SEED + f"X = torch.randn(5, 2, dtype=torch.{dt})\ntorch.linalg.matrix_rank(X @ X.mH)",
    "matrix_norm_2": SEED + f"torch.linalg.matrix_norm(torch.randn(2, 3, 4, dtype=torch.{dt}), 2)",
    "matrix_norm_nuc": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.{dt}), 'nuc')",
    "matrix_norm_1": SEED + f"torch.linalg.matrix_norm(torch.randn(3, 4, dtype=torch.{dt}), 1)",
    "cond": SEED + cgen(3, dt) + "(torch.linalg.cond(A), torch.linalg.cond(A, 'fro'), torch.linalg.cond(A, float('inf')))",
}, vars=False)   # the raw (phase-dependent) factors bound to names are not compared

# ---- geqrf / householder_product / orgqr, and the deprecated lu spellings ----
both("householder", lambda dt: {
    "geqrf": SEED + f"torch.geqrf(torch.randn(5, 3, dtype=torch.{dt}))",
    "geqrf_wide": SEED + f"torch.geqrf(torch.randn(2, 3, 4, dtype=torch.{dt}))",
    "geqrf_method": SEED + f"torch.randn(4, 4, dtype=torch.{dt}).mT.geqrf()",
    "product": SEED + f"a, tau = torch.geqrf(torch.randn(5, 3, dtype=torch.{dt}))\ntorch.linalg.householder_product(a, tau)",
    "product_batch": SEED + f"torch.linalg.householder_product(torch.randn(2, 4, 3, dtype=torch.{dt}), torch.randn(2, 2, dtype=torch.{dt}))",
    "orgqr": SEED + f"a, tau = torch.geqrf(torch.randn(4, 4, dtype=torch.{dt}))\n(torch.orgqr(a, tau), a.orgqr(tau))",
    "aten": SEED + f"torch.ops.aten.linalg_householder_product.default(torch.randn(3, 2, dtype=torch.{dt}), torch.randn(1, dtype=torch.{dt}))",
    "aten_geqrf": SEED + f"torch.ops.aten.geqrf.default(torch.randn(3, 2, dtype=torch.{dt}))",
    "empty": f"(torch.geqrf(torch.randn(0, 3, dtype=torch.{dt})), torch.geqrf(torch.randn(2, 3, 0, dtype=torch.{dt})))",
}, strides=True)
cboth("complex_householder", lambda dt: {
    "geqrf": SEED + f"torch.geqrf(torch.randn(4, 3, dtype=torch.{dt}))",
    "product": SEED + f"a, tau = torch.geqrf(torch.randn(2, 4, 3, dtype=torch.{dt}))\ntorch.linalg.householder_product(a, tau)",
})
cases("householder_errors", [
    "torch.geqrf(torch.randn(3))",
    "torch.linalg.householder_product(torch.randn(4, 3), torch.randn(4))",
    "torch.linalg.householder_product(torch.randn(3, 4), torch.randn(2))",
    "torch.linalg.householder_product(torch.randn(4), torch.randn(1))",
    "torch.linalg.householder_product(torch.randn(4, 3), torch.randn(2, 2))",
    "torch.linalg.householder_product(torch.randn(4, 3), torch.randn(2, dtype=torch.float64))",
])
both("lu_old", lambda dt: {
    "lu_solve": SEED + gen(4, dt) + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.lu_solve(torch.randn(4, 2, dtype=torch.{dt}), LU, piv)",
    "lu_solve_method": SEED + gen(3, dt, "2") + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.randn(2, 3, 1, dtype=torch.{dt}).lu_solve(LU, piv)",
    "lu": SEED + f"torch.lu(torch.randn(2, 4, 3, dtype=torch.{dt}))",
    "lu_infos": SEED + f"torch.lu(torch.randn(3, 3, dtype=torch.{dt}), get_infos=True)",
    "lu_with_info": SEED + f"torch._lu_with_info(torch.randn(3, 4, dtype=torch.{dt}))",
    "aten": SEED + gen(3, dt) + f"LU, piv = torch.linalg.lu_factor(A)\ntorch.ops.aten.lu_solve.default(torch.randn(3, 2, dtype=torch.{dt}), LU, piv)",
}, setup="import warnings\nwarnings.simplefilter('ignore')")

# ---- gradients (src/autograd/formulas.c's linalg-more block): graph and leaf gradients ----
from harness.autograd import grads  # noqa: E402

grads("grad_linalg_more", {
    "addmv": "ps = leaves((3,), (3, 4), (4,)); out = torch.addmv(ps[0], ps[1], ps[2], beta=0.5, alpha=2.)",
    "addmv_bcast": "ps = leaves((1,), (3, 4), (4,)); out = torch.addmv(ps[0], ps[1], ps[2])",
    "addr": "ps = leaves((3, 4), (3,), (4,)); out = torch.addr(ps[0], ps[1], ps[2], beta=2, alpha=-1.5)",
    "addr_bcast": "ps = leaves((4,), (3,), (4,)); out = torch.addr(ps[0], ps[1], ps[2])",
    "addbmm": "ps = leaves((3, 5), (2, 3, 4), (2, 4, 5)); out = torch.addbmm(ps[0], ps[1], ps[2], alpha=0.5)",
    "cross": "ps = leaves((4, 3), (4, 3)); out = torch.linalg.cross(ps[0], ps[1]) * torch.arange(12.).view(4, 3)",
    "cross_bcast": "ps = leaves((2, 1, 3), (1, 4, 3)); out = torch.linalg.cross(ps[0], ps[1])",
    "cross_dim0": "ps = leaves((3, 2), (3, 2)); out = torch.cross(ps[0], ps[1], dim=0)",
    "dist": "ps = leaves((3, 4), (3, 4)); out = torch.dist(ps[0], ps[1])",
    "dist_1": "ps = leaves((3, 4), (4,)); out = torch.dist(ps[0], ps[1], 1)",
    "dist_inf": "ps = leaves((5,), (5,)); out = torch.dist(ps[0], ps[1], float('inf'))",
    "dist_3": "ps = leaves((5,), (5,)); out = torch.dist(ps[0], ps[1], 3)",
    "matrix_norm_nuc": "ps = leaves((3, 4)); out = torch.linalg.matrix_norm(ps[0], 'nuc')",
    "matrix_norm_1": "ps = leaves((3, 4)); out = torch.linalg.matrix_norm(ps[0], 1)",
    "norm_2": "ps = leaves((3, 4)); out = torch.linalg.norm(ps[0], 2)",
    "matrix_power": "ps = leaves((3, 3)); out = torch.linalg.matrix_power(ps[0], 5)",
    "multi_dot": "ps = leaves((2, 3), (3, 4), (4, 2), (2, 2)); out = torch.linalg.multi_dot(ps)",
    "cov": "ps = leaves((3, 5)); out = torch.cov(ps[0])",
    "vander": "ps = leaves((4,)); out = torch.linalg.vander(ps[0])",
})   # the gradient rule of tests/harness/autograd.py (F32)

# empty matrices keep upstream's batched Fortran strides (each size taken as at least 1)
cases("empty_strides", [
    "torch.linalg.qr(torch.randn(2, 0, 3))",
    "torch.linalg.qr(torch.randn(2, 3, 0), mode='complete')",
    "torch.linalg.qr(torch.randn(2, 3, 0))",
    "torch.linalg.svd(torch.randn(2, 0, 3))",
    "torch.linalg.svd(torch.randn(2, 3, 0), full_matrices=False)",
    "torch.svd(torch.randn(0, 0, 3))",
    "torch.linalg.inv(torch.randn(2, 0, 0))",
    "torch.linalg.lu_factor(torch.randn(2, 0, 3))",
    "torch.linalg.cholesky(torch.randn(3, 0, 0))",
], strides=True)
