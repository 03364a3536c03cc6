"""out= on another device than the inputs, and linalg_inv's out= forms (#11, docs/outdev.md),
compared with upstream.

A meta input with a CPU out= tensor (or the reverse) is refused in one of upstream's two wordings:
ops whose Meta kernel is Python ("Attempting to copy from device ... cross-device copies are not
allowed!") and structured C++ meta functions ("Expected out tensor to have device ..."). Each case
returns (exception type, message) so the wording is compared, not only the type. linalg_inv.out,
inverse.out and linalg_inv_ex.inverse: values within tol="float" (LAPACK's getrf/getrs against
MKL's: upstream's own float32-vs-float64 error), dtype and strides of the out tensors exact, and
upstream's out= dtype errors."""
from harness import cases

ERR = """
def err(f):
    try:
        r = f()
        return ("ok", r.device if hasattr(r, "device") else [t.device for t in r])
    except Exception as e:
        return (type(e).__name__, str(e))
c = torch.randn(3, 3)
m = torch.empty(3, 3, device="meta")
def mo(*s, dtype=torch.float32):
    return torch.empty(*s, device="meta", dtype=dtype)
"""

cases("outdev_structured_py", {   # add.out, mul.out: Python meta kernels (the references)
    "cpu_in_meta_out": "err(lambda: torch.add(c, c, out=mo(3, 3)))",
    "meta_in_cpu_out": "err(lambda: torch.add(m, m, out=torch.empty(3, 3)))",
    "empty_out": "err(lambda: torch.add(c, 1, out=mo(0)))",
    "wrapped_first": "err(lambda: torch.mul(m, 2, out=torch.empty(0)))",
    "cpu_scalar_first": "err(lambda: torch.add(torch.tensor(1.), m, out=torch.empty(0)))",
    "aten": "err(lambda: torch.ops.aten.add.out(c, c, out=mo(3, 3)))",
    "dtype_too": "err(lambda: torch.add(c, c, out=mo(3, 3, dtype=torch.int64)))",
    "same_device_ok": "err(lambda: torch.add(m, m, out=mo(0)))",
    "factory_ok": "err(lambda: torch.arange(3, out=mo(3)))",
}, setup=ERR)
cases("outdev_nonstructured", {   # neg, cat, mm, index_select, where
    "neg": "err(lambda: torch.neg(c, out=mo(3, 3)))",
    "neg_rev": "err(lambda: torch.neg(m, out=torch.empty(3, 3)))",
    "cat": "err(lambda: torch.cat([c, c], out=mo(0)))",
    "cat_rev": "err(lambda: torch.cat([m, m], out=torch.empty(0)))",
    "mm": "err(lambda: torch.mm(c, c, out=mo(3, 3)))",
    "mm_rev": "err(lambda: torch.mm(m, m, out=torch.empty(3, 3)))",
    "index_select": "err(lambda: torch.index_select(c, 0, torch.tensor([0]), out=mo(1, 3)))",
    "where": "err(lambda: torch.where(c > 0, c, c, out=mo(3, 3)))",
}, setup=ERR)
cases("outdev_reduction", {
    "sum": "err(lambda: torch.sum(c, 1, out=mo(3)))",
    "sum_rev": "err(lambda: torch.sum(m, 1, out=torch.empty(3)))",
    "mean": "err(lambda: torch.mean(c, 1, out=mo(3)))",
    "argmax": "err(lambda: torch.argmax(c, 1, out=mo(3, dtype=torch.long)))",   # structured C++ meta
    "argmax_rev": "err(lambda: torch.argmax(m, 1, out=torch.empty(3, dtype=torch.long)))",
}, setup=ERR)
cases("outdev_multi", {
    "max_values": "err(lambda: torch.max(c, 1, out=(mo(3), torch.empty(3, dtype=torch.long))))",
    "max_indices": "err(lambda: torch.max(c, 1, out=(torch.empty(3), mo(3, dtype=torch.long))))",
    "max_rev": "err(lambda: torch.max(m, 1, out=(torch.empty(3), torch.empty(3, dtype=torch.long))))",
    "sort_values": "err(lambda: torch.sort(c, out=(mo(3, 3), torch.empty(3, 3, dtype=torch.long))))",
    "sort_indices": "err(lambda: torch.sort(c, out=(torch.empty(3, 3), mo(3, 3, dtype=torch.long))))",
    "sort_rev": "err(lambda: torch.sort(m, out=(torch.empty(3, 3), torch.empty(3, 3, dtype=torch.long))))",
    "topk": "err(lambda: torch.topk(c, 2, out=(mo(3, 2), torch.empty(3, 2, dtype=torch.long))))",
}, setup=ERR)
cases("outdev_composite", {   # CompositeImplicit rows reach the op they decompose into
    "absolute": "err(lambda: torch.absolute(c, out=mo(0)))",
    "divide_mode": "err(lambda: torch.divide(m, m, rounding_mode='floor', out=torch.empty(0)))",
    "matmul": "err(lambda: torch.matmul(c, c, out=mo(3, 3)))",
    "hstack": "err(lambda: torch.hstack([m, m], out=torch.empty(0)))",
    "max_other": "err(lambda: torch.max(c, c, out=mo(0)))",
    "special_psi": "err(lambda: torch.special.psi(m, out=torch.empty(0)))",
}, setup=ERR)
cases("outdev_linalg", {
    "inv": "err(lambda: torch.linalg.inv(c, out=mo(3, 3)))",
    "inv_rev": "err(lambda: torch.linalg.inv(m, out=torch.empty(3, 3)))",
    "inverse": "err(lambda: torch.inverse(c, out=mo(0)))",
    "inv_ex": "err(lambda: torch.linalg.inv_ex(c, out=(mo(3, 3), torch.empty((), dtype=torch.int32))))",
    "inv_ex_info": "err(lambda: torch.linalg.inv_ex(c, out=(torch.empty(3, 3), mo(0, dtype=torch.int32))))",
}, setup=ERR)

INV = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
A = torch.randn(3, 3)
Ab = torch.randn(2, 4, 4, dtype=torch.float64) + 4 * torch.eye(4, dtype=torch.float64)
"""
cases("linalg_inv_out", {
    "empty_out": "o = torch.empty(0)\nr = torch.linalg.inv(A, out=o)\n(r is o, o, o.stride())",
    "contig_out": "o = torch.empty(3, 3)\ntorch.linalg.inv(A, out=o)\n(o, o.stride())",
    "resized_out": "o = torch.empty(2, 2)\ntorch.linalg.inv(A, out=o)\n(o, o.stride())",
    "transposed_out": "o = torch.empty(3, 3).t()\ntorch.linalg.inv(A, out=o)\n(o, o.stride())",
    "complex": "o = torch.empty(0, dtype=torch.complex64)\ntorch.linalg.inv(A.to(torch.complex64) + 1j * A.t(), out=o)\n(o, o.stride())",
    "inverse_out": "o = torch.empty(0)\ntorch.inverse(A, out=o)\n(o, o.stride())",
    "aten": "o = torch.empty(0)\ntorch.ops.aten.linalg_inv.out(A, out=o)\no",
    "empty_matrix": "o = torch.empty(5)\ntorch.linalg.inv(torch.empty(2, 0, 0), out=o)\n(o, o.shape, o.stride())",
}, setup=INV, tol="float")
cases("linalg_inv_ex_inverse", {
    "basic": "o, i = torch.empty(0), torch.empty(0, dtype=torch.int32)\nr = torch.linalg.inv_ex(A, out=(o, i))\n(type(r).__name__, r[0] is o, r[1] is i, o, i, o.stride())",
    "aten": "o, i = torch.empty(0), torch.empty(0, dtype=torch.int32)\ntorch.ops.aten.linalg_inv_ex.inverse(A, check_errors=False, inverse=o, info=i)\n(o, i)",
}, setup=INV, tol="float")
# float64: the widening rule has no wider type; LAPACK's getrf/getrs vs MKL's differ in the last
# bits (measured 1.8e-15 here), so test_linalg_lapack.py's F64 = (1e-12, 1e-12) on these
# well-conditioned 4x4 matrices
cases("linalg_inv_out_f64", {
    "batch": "o = torch.empty(0, dtype=torch.float64)\ntorch.linalg.inv(Ab, out=o)\n(o, o.stride())",
    "ex_batch_singular": "o, i = torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int32)\nB = Ab.clone()\nB[1] = 0\ntorch.linalg.inv_ex(B, out=(o, i))\n(o[0], i, o.stride())",
}, setup=INV, tol=(1e-12, 1e-12))
cases("linalg_inv_out_errors", {
    "dtype_f64_out": "err(lambda: torch.linalg.inv(A, out=torch.empty(0, dtype=torch.float64)))",
    "dtype_int_out": "err(lambda: torch.linalg.inv(A, out=torch.empty(0, dtype=torch.int64)))",
    "dtype_narrow": "err(lambda: torch.linalg.inv(A.double(), out=torch.empty(0)))",
    "dtype_complex": "err(lambda: torch.linalg.inv(A.double(), out=torch.empty(0, dtype=torch.complex128)))",
    "info_dtype": "err(lambda: torch.linalg.inv_ex(A, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))))",
    "inv_dtype": "err(lambda: torch.linalg.inv_ex(A, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.int32))))",
    "singular": "err(lambda: torch.linalg.inv(torch.zeros(3, 3), out=torch.empty(0)))",
    "singular_batch": "err(lambda: torch.linalg.inv(torch.zeros(2, 3, 3), out=torch.empty(0)))",
    "singular_ex_check": "err(lambda: torch.linalg.inv_ex(torch.zeros(3, 3), check_errors=True, out=(torch.empty(0), torch.empty(0, dtype=torch.int32))))",
    "not_square": "err(lambda: torch.linalg.inv(torch.randn(2, 3), out=torch.empty(0)))",
    "int_input": "err(lambda: torch.linalg.inv(torch.ones(2, 2, dtype=torch.long), out=torch.empty(0, dtype=torch.long)))",
}, setup=ERR + INV)

# linalg_lstsq.out: LAPACK's gelsy / gelsd / gels against MKL's; float32 tol="float" (upstream's
# own float32-vs-float64 error); dtypes, shapes, strides (the outs used directly keep LAPACK's
# column-major layout, copied ones are contiguous), ranks exact
LS = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)   # test_breadth_more2.py's lstsq data
A4, A2, A3 = torch.randn(5, 3), torch.randn(3, 5), torch.randn(4, 4) + 4 * torch.eye(4)
B4 = torch.randn(5, 2)
A, B = A3[:3, :3].clone(), B4[:3].clone()
torch.manual_seed(0)
Ab = torch.randn(2, 1, 6, 3)
Bb = torch.randn(3, 6, 2)
L = torch.long
def E(dt=torch.float32):
    return torch.empty(0, dtype=dt)
def lay(r):
    return [(t, t.dtype, t.shape, t.stride()) for t in r] + [type(r).__name__]
"""
cases("linalg_lstsq_out", {
    "empty_outs": "lay(torch.linalg.lstsq(A, B, out=(E(), E(), E(L), E())))",
    "same_objects": "o = (E(), E(), E(L), E())\nr = torch.linalg.lstsq(A, B, out=o)\n[a is b for a, b in zip(r, o)]",
    "gelsd_tall": "lay(torch.linalg.lstsq(A4, B4, driver='gelsd', out=(E(), E(), E(L), E())))",
    "gelss": "lay(torch.linalg.lstsq(A4, B4, driver='gelss', out=(E(), E(), E(L), E())))",
    "gels": "lay(torch.linalg.lstsq(A4, B4, driver='gels', out=(E(), E(), E(L), E())))",
    "batch_gelsd": "lay(torch.linalg.lstsq(Ab, Bb, driver='gelsd', out=(E(), E(), E(L), E())))",
    "vector_rhs": "lay(torch.linalg.lstsq(A, B[:, 0], out=(E(), E(), E(L), E())))",
    "colmajor_out": "lay(torch.linalg.lstsq(A, B, out=(torch.empty(2, 3).t(), E(), E(L), E())))",
    "rowmajor_out": "lay(torch.linalg.lstsq(A, B, out=(torch.empty(3, 2), E(), E(L), E())))",
    "rank_float": "lay(torch.linalg.lstsq(A, B, out=(E(), E(), E(torch.float32), E())))",
    "rank_int8": "lay(torch.linalg.lstsq(A, B, out=(E(), E(), E(torch.int8), E())))",
    "rank_shape": "lay(torch.linalg.lstsq(A4, B4, driver='gelsd', out=(E(), E(), torch.empty(3, dtype=L), E())))",
    "sv_shape": "lay(torch.linalg.lstsq(A4, B4, driver='gelsd', out=(E(), E(), E(L), torch.empty(7))))",
    "residuals_resized": "lay(torch.linalg.lstsq(A4, B4, driver='gelsd', out=(E(), torch.empty(5), E(L), E())))",
    "all_right": "lay(torch.linalg.lstsq(A4, B4, driver='gelsd', out=(torch.empty(2, 3).t(), torch.empty(2), torch.empty((), dtype=L), torch.empty(3))))",
    "complex_sol": "lay(torch.linalg.lstsq(A, B, out=(E(torch.complex64), E(), E(L), E())))",
    "complex_in": "C = A4.to(torch.complex64) + 1j * A4.flip(0)\nD = B4.to(torch.complex64)\nlay(torch.linalg.lstsq(C, D, out=(E(torch.complex64), E(), E(L), E())))",
}, setup=LS, tol="float")
# float64: test_breadth_more2.py's rule for lstsq, F64 = (1e-12, 1e-12)
cases("linalg_lstsq_out_f64", {
    "batch_gelsd": "lay(torch.linalg.lstsq(Ab.double(), Bb.double(), driver='gelsd', out=(E(torch.float64), E(torch.float64), E(L), E(torch.float64))))",
    "tall_gelss": "lay(torch.linalg.lstsq(A4.double(), B4.double(), driver='gelss', out=(E(torch.float64), E(torch.float64), E(L), E(torch.float64))))",
}, setup=LS, tol=(1e-12, 1e-12))
cases("linalg_lstsq_out_errors", {
    "solution_int": "err(lambda: torch.linalg.lstsq(A, B, out=(E(torch.int64), E(), E(L), E())))",
    "residuals_int": "err(lambda: torch.linalg.lstsq(A, B, out=(E(), E(torch.int64), E(L), E())))",
    "residuals_f64_structured": "err(lambda: torch.linalg.lstsq(A4, B4, driver='gelsd', out=(E(), E(torch.float64), E(L), E())))",
    "sv_f64_upstream_assert": "err(lambda: torch.linalg.lstsq(A, B, out=(E(), E(), E(L), E(torch.float64))))[0]",
    "rank_bool": "err(lambda: torch.linalg.lstsq(A, B, out=(E(), E(), E(torch.bool), E())))",
    "sv_int": "err(lambda: torch.linalg.lstsq(A, B, out=(E(), E(), E(L), E(torch.int64))))",
    "dtype_mismatch": "err(lambda: torch.linalg.lstsq(A, B.double(), out=(E(), E(), E(L), E())))",
    "bad_driver": "err(lambda: torch.linalg.lstsq(A, B, driver='bad', out=(E(), E(), E(L), E())))",
    "one_dim": "err(lambda: torch.linalg.lstsq(B[:, 0], B[:, 0], out=(E(), E(), E(L), E())))",
}, setup=ERR + LS)

# Inputs on cpu and meta together (no out=): the references' prims (add, mul, where, cat, stack,
# clamp, eq, ...) refuse them naming the first tensor's device as the expected one, CPU 0-dim
# tensors and Python numbers excepted; an in-place op on a CPU tensor with a meta operand
# (meta_binop_inplace_alpha) returns the CPU tensor untouched.
cases("outdev_mixed_inputs", {
    "add_cpu_meta": "err(lambda: torch.add(c, m))",
    "add_meta_cpu": "err(lambda: torch.add(m, c))",
    "sub_dunder": "err(lambda: m - c)",
    "mul_method": "err(lambda: c.mul(m))",
    "cat": "err(lambda: torch.cat([c, m]))",
    "cat_rev": "err(lambda: torch.cat([m, c]))",
    "stack": "err(lambda: torch.stack([c, m]))",
    "where_cond_meta": "err(lambda: torch.where(m > 0, c, c))",
    "where_self_meta": "err(lambda: torch.where(c > 0, m, c))",
    "clamp": "err(lambda: torch.clamp(c, m, m))",
    "eq": "err(lambda: c == m)",
    "aten": "err(lambda: torch.ops.aten.add.Tensor(c, m))",
    "cpu_scalar_joins": "err(lambda: torch.add(torch.tensor(1.), m))",
    "cpu_scalar_joins_rev": "err(lambda: torch.mul(m, torch.tensor(2.)))",
    "number_joins": "err(lambda: torch.add(m, 2))",
    "out_checked_first": "err(lambda: torch.add(c, m, out=mo(0)))",
    "out_checked_first_rev": "err(lambda: torch.add(m, c, out=torch.empty(0)))",
    "same_device_after_out": "err(lambda: torch.add(c, m, out=torch.empty(0)))",
}, setup=ERR)
cases("outdev_inplace_cpu_self", {
    "add_": "x = torch.ones(3, 3)\nr = x.add_(m)\n(r is x, r.device, x)",
    "mul_": "x = torch.full((3, 3), 2.)\nr = x.mul_(m)\n(r is x, r.device, x)",
    "meta_self": "y = m.clone()\nr = y.add_(c)\n(r is y, r.device, r.shape)",
}, setup=ERR)
# A bad argument (dim) and a meta out= tensor: the references' reductions and cat (no out
# wrapper check of a first tensor argument) and the C++ structured meta functions run their
# argument checks first; the out wrapper of softmax compares the first argument first.
cases("outdev_order", {
    "sum_bad_dim": "err(lambda: torch.sum(c, dim=5, out=mo(0)))",
    "mean_bad_dim": "err(lambda: torch.mean(c, 5, out=mo(0)))",
    "cat_bad_dim": "err(lambda: torch.cat([c, c], dim=3, out=mo(0)))",
    "max_bad_dim": "err(lambda: torch.max(c, 5, out=(mo(0), mo(0, dtype=torch.long))))",
    "argmax_bad_dim": "err(lambda: torch.argmax(c, 5, out=mo(0, dtype=torch.long)))",
    "softmax_bad_dim": "err(lambda: torch._softmax(c, 5, False, out=mo(0)))",
    # a composite (float_power) checks its out= dtype before the op it reaches sees the device
    "float_power_dtype_first": "err(lambda: torch.float_power(c, 2, out=mo(0)))",
    "float_power_dtype_ok": "err(lambda: torch.float_power(c, 2, out=mo(0, dtype=torch.float64)))",
    "float_power_rev": "err(lambda: torch.float_power(m, 2, out=torch.empty(0, dtype=torch.float64)))",
    "sum_ok_dim": "err(lambda: torch.sum(c, dim=1, out=mo(0)))",
    "cat_shapes": "err(lambda: torch.cat([c, torch.ones(2, 2)], out=mo(0)))[0]",   # the reference words the shape error otherwise
    # the references resize out= to the result's shape before the failing copy; the C++
    # structured kernels check the device first
    "out_resized": "(lambda o: (err(lambda: torch.sum(m, dim=1, out=o)), o.shape))(torch.empty(0))",
    "meta_out_resized": "(lambda o: (err(lambda: torch.cumsum(c, 0, out=o)), o.shape))(mo(0))",
    "wrapped_out_resized": "(lambda o: (err(lambda: torch.add(torch.tensor(1.), m, out=o)), o.shape))(torch.empty(0))",
    "structured_not_resized": "(lambda o: (err(lambda: torch.argmax(c, 1, out=o)), o.shape))(mo(0, dtype=torch.long))",
}, setup=ERR)
