"""Sparse gaps, third round (src/ops/sparse.c, src/ops/sparse_compressed.c; docs/sparse_coo.md,
docs/sparse_compressed.md): the compressed layouts' pointwise ops and their in-place forms, zero_,
fill_, copy_, sum(dim, keepdim=True), CSR @ CSR, BSR @ dense; COO cat along dense dims, mean's
refusal, and the gradients of torch.sparse.softmax / log_softmax. Compressed results are compared
through `cd(t)` (members, size, nnz, dims, dtype, layout, repr), COO ones through `co(t)`."""
from harness import cases

SETUP = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
d = torch.tensor([[0., 1, 0], [2, 0, 3], [0, 0, 0], [4, 5, 0]])
sq = torch.tensor([[0., 1, 0, 2], [2, 0, 3, 0], [0, 0, 0, 0], [4, 5, 0, 1]])
c = d.to_sparse_csr()
def cd(t, text=True):
    if not isinstance(t, torch.Tensor) or t.layout not in (torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc):
        if isinstance(t, torch.Tensor) and t.layout == torch.sparse_coo:
            return (t._indices(), t._values(), t.shape, t._nnz(), t.sparse_dim(), t.dense_dim(), t.is_coalesced(), t.dtype, repr(t) if text else None)
        return t
    row = t.layout in (torch.sparse_csr, torch.sparse_bsr)
    comp, plain = (t.crow_indices(), t.col_indices()) if row else (t.ccol_indices(), t.row_indices())
    return (comp, plain, t.values(), t.shape, t._nnz(), t.sparse_dim(), t.dense_dim(), t.dtype, t.layout, repr(t) if text else None)
def rnd(m, n, p=0.5, dtype=torch.float32):
    a = torch.randn(m, n, dtype=dtype)
    a[torch.rand(m, n) < p] = 0
    return a
"""

cases("compressed_pointwise", {
    "unary": "x = torch.tensor([[0., -1.5, 0], [0.25, 0, 3.7], [0, 0, 0], [-0.6, 0.9, 0]]).to_sparse_csr(); [cd(f(x)) for f in (torch.ceil, torch.floor, torch.trunc, torch.round, torch.frac, torch.sign, torch.sgn, torch.rad2deg, torch.deg2rad, torch.relu, torch.angle, torch.abs, torch.neg)]",
    "unary_bool": "x = torch.tensor([[0., float('nan'), 0], [float('inf'), 0, -float('inf')]]).to_sparse_csr(); [cd(f(x)) for f in (torch.isnan, torch.isinf, torch.isposinf, torch.isneginf, torch.signbit)]",
    "unary_int": "x = d.long().to_sparse_csr(); cd(x.angle()), cd(x.sign()), cd(x.abs()), cd(x.neg())",
    "unary_blocked": "cd(sq.to_sparse_bsr((2, 2)).sin()), cd(sq.to_sparse_bsc((2, 2)).neg()), cd(d.to_sparse_csc().sqrt())",
    "conj_physical": "cd(torch.conj_physical(c))",
    "inplace": "x = torch.tensor([[0., -1.5, 0], [0.25, 0, 3.7]]).to_sparse_csr(); [cd(getattr(x.clone(), f)()) for f in ('abs_', 'neg_', 'ceil_', 'floor_', 'trunc_', 'round_', 'frac_', 'sign_', 'sgn_', 'rad2deg_', 'deg2rad_', 'relu_')]",
    "inplace_same_object": "x = c.clone(); y = x.neg_(); y is x, cd(x)",
    "inplace_shares_values": "v = torch.tensor([1., 2., 3.]); x = torch.sparse_csr_tensor(torch.tensor([0, 1, 3]), torch.tensor([1, 0, 2]), v, (2, 3)); x.mul_(2); x.sqrt_(); v",
    "fill": "x = c.clone(); x.fill_(2); cd(x), cd(sq.to_sparse_bsr((2, 2)).fill_(-1))",
    "zero": "x = c.clone(); r = x.zero_(); r is x, cd(x), cd(sq.to_sparse_bsr((2, 2)).zero_()), cd(d.to_sparse_csc().zero_())",
    "zero_batched": "cd(torch.stack([d, d]).to_sparse_csr().zero_())",
    "add_mul_inplace": "x = c.clone(); x.add_(c); a = cd(x); x.mul_(2); b = cd(x); x.mul_(c); a, b, cd(x), cd(c.clone().mul_(torch.tensor(3.)))",
    "add_mul_inplace_other_pattern": "x = c.clone(); v = x.values(); x.add_(torch.eye(4, 3).to_sparse_csr()); y = c.clone(); w = y.values(); y.mul_(torch.eye(4, 3).to_sparse_csr()); cd(x), v, cd(y), w",
    "err_mean": "c.mean()",
    "err_pointwise_layout": "c / 2",
    "err_pointwise_layout_sub": "c - c",
    "err_pointwise_layout_pow": "c.pow(2)",
    "err_pointwise_layout_exp": "sq.to_sparse_bsr((2, 2)).exp()",
    "err_nan_to_num": "c.nan_to_num()",
}, setup=SETUP)

# the transcendental ones: the dense kernels on the values, where ours and upstream's differ by 1 ulp
# for some inputs (atan, log1p, tan, sin: a dense-kernel difference, not a sparse one)
cases("compressed_pointwise_float", {
    "unary": "x = torch.tensor([[0., -1.5, 0], [0.25, 0, 3.7], [0, 0, 0], [-0.6, 0.9, 0]]).to_sparse_csr(); [cd(f(x), text=False) for f in (torch.asinh, torch.atanh, torch.asin, torch.atan, torch.erf, torch.erfinv, torch.expm1, torch.log1p, torch.sinh, torch.tan, torch.sin, torch.tanh)]",
    "inplace": "x = torch.tensor([[0., -1.5, 0], [0.25, 0, 3.7]]).to_sparse_csr(); [cd(getattr(x.clone(), f)(), text=False) for f in ('sin_', 'sinh_', 'tan_', 'tanh_', 'asin_', 'asinh_', 'atan_', 'atanh_', 'erf_', 'erfinv_', 'expm1_', 'log1p_', 'sqrt_')]",
}, setup=SETUP, tol="float")

cases("compressed_copy", {
    "copy": "x = c.clone(); r = x.copy_(c * 2); r is x, cd(x)",
    "copy_other_pattern": "x = c.clone(); x.copy_(d.t().to_sparse_csr().t().to_sparse_csr() * 3); cd(x)",
    "copy_dtype": "x = c.clone(); x.copy_(c.double() * 0.3); cd(x)",
    "copy_blocked": "x = sq.to_sparse_bsr((2, 2)); x.copy_(x * -1); cd(x)",
    "copy_keeps_members": "x = c.clone(); v = x.values(); x.copy_(c + c); v",
    "err_layout": "c.clone().copy_(d.to_sparse_csc())",
    "err_dense": "c.clone().copy_(d)",
    "err_nnz": "c.clone().copy_(torch.eye(4, 3).to_sparse_csr())",
    "err_shape": "c.clone().copy_(torch.tensor([[1., 1, 1, 1, 1]]).to_sparse_csr())",
    "err_blocksize": "sq.to_sparse_bsr((2, 2)).copy_(torch.ones(2, 8).to_sparse_bsr((1, 4)))",
}, setup=SETUP)

cases("compressed_sum_dim", {
    "dims": "cd(c.sum(1, keepdim=True)), cd(c.sum(0, keepdim=True)), cd(c.sum((0, 1), keepdim=True)), cd(c.sum(-1, keepdim=True)), cd(c.sum([1, 0], keepdim=True))",
    "dtype": "cd(c.sum(1, keepdim=True, dtype=torch.float64)), cd(c.long().sum(0, keepdim=True)), cd(c.int().sum((0, 1), keepdim=True)), cd(c.half().sum(1, keepdim=True))",
    "half_random": "a = rnd(20, 30).half().to_sparse_csr(); [a.sum(k, keepdim=True).values() for k in (0, 1, (0, 1))]",
    "err_bool": "c.bool().sum(1, keepdim=True)",
    "zero_sum_row": "cd(torch.tensor([[1., -1], [0, 0]]).to_sparse_csr().sum(1, keepdim=True))",
    "int32_indices": "x = torch.sparse_csr_tensor(torch.tensor([0, 1, 3], dtype=torch.int32), torch.tensor([1, 0, 2], dtype=torch.int32), torch.tensor([1., 2, 3]), (2, 3)); cd(x.sum(0, keepdim=True)), cd(x.sum(1, keepdim=True))",
    "random_bits": "a = rnd(30, 40).to_sparse_csr(); [a.sum(k, keepdim=True).values() for k in (0, 1, (0, 1))]",
    "random_f64": "a = rnd(20, 25, dtype=torch.float64).to_sparse_csr(); [a.sum(k, keepdim=True).values() for k in (0, 1, (0, 1))]",
    "err_keepdim": "c.sum(0)",
    "err_keepdim_both": "c.sum((0, 1))",
    "err_csc": "d.to_sparse_csc().sum(1, keepdim=True)",
    "err_bsr": "sq.to_sparse_bsr((2, 2)).sum(0, keepdim=True)",
    "err_range": "c.sum(2, keepdim=True)",
    "err_batched": "torch.stack([d, d]).to_sparse_csr().sum(1, keepdim=True)",
}, setup=SETUP)

cases("compressed_spgemm", {
    "csr_csr": "cd(c @ d.t().to_sparse_csr()), cd(torch.mm(c, d.t().to_sparse_csr())), cd(torch.matmul(c, d.t().to_sparse_csr()))",
    "csc_operands": "cd(d.to_sparse_csc() @ d.t().to_sparse_csr()), cd(c @ d.t().to_sparse_csc()), cd(d.to_sparse_csc() @ d.t().to_sparse_csc())",
    "empty_rows": "cd(torch.zeros(3, 4).to_sparse_csr() @ c), cd(c @ torch.zeros(3, 2).to_sparse_csr())",
    "f64": "cd(c.double() @ d.t().double().to_sparse_csr())",
    "random_f32": "a = rnd(12, 30, 0.6).to_sparse_csr(); b = rnd(30, 9, 0.6).to_sparse_csr(); cd(a @ b, text=False)",
    "random_f64": "a = rnd(10, 20, 0.5, torch.float64).to_sparse_csr(); b = rnd(20, 7, 0.5, torch.float64).to_sparse_csr(); cd(a @ b, text=False)",
    "err_shapes": "c @ c",
    "err_blocked": "sq.to_sparse_bsr((2, 2)) @ sq.to_sparse_bsr((2, 2))",
    "err_coo": "c @ d.t().to_sparse()",
    "err_coo_shapes": "c @ d.to_sparse()",
}, setup=SETUP)

# upstream multiplies BSR operands with MKL (mkl_sparse_?_mm / _mv), whose summation order is its
# own: exact values here, random ones under the float rule (compressed_bsr_float)
cases("compressed_bsr_mm", {
    "mm": "b = sq.to_sparse_bsr((2, 2)); torch.mm(b, torch.arange(12.).reshape(4, 3)), b @ torch.ones(4, 2), torch.matmul(b, torch.ones(4, 1))",
    "addmm": "b = sq.to_sparse_bsr((2, 2)); torch.addmm(torch.ones(4, 2), b, torch.arange(8.).reshape(4, 2), beta=2, alpha=0.5)",
    "mv": "b = sq.to_sparse_bsr((2, 2)); torch.mv(b, torch.tensor([1., 2, 3, 4])), b @ torch.ones(4)",
    "f64": "b = sq.double().to_sparse_bsr((2, 2)); b @ torch.ones(4, 2, dtype=torch.float64)",
    "block1": "torch.mm(sq.to_sparse_bsr((1, 1)), torch.arange(8.).reshape(4, 2))",
    "dense_bsc": "torch.ones(2, 4) @ sq.to_sparse_bsc((2, 2))",
    "err_bsc": "sq.to_sparse_bsc((2, 2)) @ torch.ones(4, 2)",
    "err_bsc_mv": "torch.mv(sq.to_sparse_bsc((2, 2)), torch.ones(4))",
    "err_bsc_addmm": "torch.addmm(torch.ones(4, 2), sq.to_sparse_bsc((2, 2)), torch.ones(4, 2))",
    "err_dense_bsr": "torch.ones(2, 4) @ sq.to_sparse_bsr((2, 2))",
    "err_nonsquare": "sq.to_sparse_bsr((2, 1)) @ torch.ones(4, 2)",
    "err_batched": "torch.mm(torch.stack([sq, sq]).to_sparse_bsr((2, 2)), torch.ones(4, 3))",
    "err_batched_csr": "torch.mm(torch.stack([d, d]).to_sparse_csr(), torch.ones(3, 2))",
    "err_hybrid": "torch.mm(d.unsqueeze(-1).to_sparse_csr(dense_dim=1), torch.ones(3, 2))",
    "err_hybrid_mv": "torch.mv(d.unsqueeze(-1).to_sparse_csr(dense_dim=1), torch.ones(3))",
    "err_hybrid_addmm": "torch.addmm(torch.ones(4, 2), d.unsqueeze(-1).to_sparse_csr(dense_dim=1), torch.ones(3, 2))",
    "err_int": "d.long().to_sparse_csr() @ torch.ones(3, 2, dtype=torch.long)",
}, setup=SETUP)

cases("compressed_bsr_float", {
    "mm": "a = rnd(8, 12).to_sparse_bsr((4, 4)); x = torch.randn(12, 5); a @ x, torch.addmm(torch.randn(8, 5), a, x, beta=0.5, alpha=2)",
    "mv": "a = rnd(6, 9).to_sparse_bsr((3, 3)); torch.mv(a, torch.randn(9))",
}, setup=SETUP, tol="float")

A = "A = torch.tensor([[1., 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 3, 0]]); B = torch.tensor([[0., 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 2], [0, 0, 3, 0]]); "
cases("compressed_blocked_add_mul", {
    "err_add_bsr": A + "A.to_sparse_bsr((2, 2)) + B.to_sparse_bsr((2, 2))",
    "err_add_bsr_csr": A + "A.to_sparse_bsr((2, 2)) + A.to_sparse_csr()",
    "err_add_bsc": A + "A.to_sparse_bsc((2, 2)) + A.to_sparse_bsc((2, 2))",
    "err_add_dense_bsr": A + "A + A.to_sparse_bsr((2, 2))",
    "err_mul_bsr": A + "A.to_sparse_bsr((2, 2)) * A.to_sparse_bsr((2, 2))",
    "err_mul_bsr_dense": A + "A.to_sparse_bsr((2, 2)) * A",
    "err_mul_dense_bsr": A + "A * A.to_sparse_bsr((2, 2))",
    "mul_bsr_scalar": A + "cd(A.to_sparse_bsr((2, 2)) * 3), cd(A.to_sparse_bsc((2, 2)) * torch.tensor(0.5))",
}, setup=SETUP)

cases("compressed_dense_operands", {
    "add_dense": "x = torch.randn(4, 3); c + x, torch.add(c, x, alpha=0.3), torch.add(c.double(), x.double(), alpha=-2)",
    "add_dense_random": "a = rnd(20, 30).to_sparse_csr(); x = torch.randn(20, 30); torch.add(a, x, alpha=0.3), torch.add(x, a, alpha=0.3)",
    "dense_add_": "x = torch.randn(4, 3); y = x.clone(); r = y.add_(c, alpha=0.5); r is y, y",
    "addmv": "torch.addmv(torch.ones(4), c, torch.ones(3)), torch.addmv(torch.arange(4.), c, torch.tensor([1., 2, 3]), beta=0.5, alpha=2), torch.addmv(torch.full((4,), float('nan')), c, torch.ones(3), beta=0)",
    "err_add_inplace_dense": "c.clone().add_(d)",
    "err_matmul_batched": "torch.stack([d, d]).to_sparse_csr() @ torch.ones(2, 3, 2)",
    "err_matmul_batched_dense": "c @ torch.ones(2, 3, 2)",
    "err_coo_csc": "d.to_sparse() @ c.t()",
}, setup=SETUP)

cases("compressed_grads", {
    "sampled_addmm": "t = c.clone().requires_grad_(); m1 = torch.arange(8.).reshape(4, 2).requires_grad_(); m2 = torch.arange(6.).reshape(2, 3).requires_grad_(); y = torch.sparse.sampled_addmm(t, m1, m2, beta=0.5, alpha=2); (y.to_dense() * torch.arange(12.).reshape(4, 3)).sum().backward(); cd(t.grad), m1.grad, m2.grad, type(y.grad_fn).__name__",
    "sampled_addmm_mats_only": "m1 = torch.arange(8.).reshape(4, 2).requires_grad_(); m2 = torch.arange(6.).reshape(2, 3).requires_grad_(); torch.sparse.sampled_addmm(c, m1, m2).to_dense().sum().backward(); m1.grad, m2.grad",
    "mm_reduce_sum": "t = c.clone().requires_grad_(); x = torch.arange(6.).reshape(3, 2).requires_grad_(); (torch.sparse.mm(t, x, 'sum') * torch.arange(8.).reshape(4, 2)).sum().backward(); cd(t.grad), x.grad",
    "mm_reduce_mean": "t = c.clone().requires_grad_(); x = torch.arange(6.).reshape(3, 2).requires_grad_(); (torch.sparse.mm(t, x, 'mean') * torch.arange(8.).reshape(4, 2)).sum().backward(); cd(t.grad), x.grad",
    "mm_reduce_other_only": "x = torch.arange(6.).reshape(3, 2).requires_grad_(); torch.sparse.mm(c, x, 'mean').sum().backward(); x.grad",
    "sparse_mask_compressed": "m = torch.tensor([[1., 1, 0], [0, 0, 0], [0, 1, 0], [1, 0, 0]]); cd(c.sparse_mask(c)), cd((c * 2).sparse_mask(torch.eye(4, 3).to_sparse_csr())), cd(c.sparse_mask(m.to_sparse_csr())), cd(c.double().sparse_mask(m.to_sparse_csr()))",
    "err_sparse_mask_csc": "d.to_sparse_csc().sparse_mask(d.to_sparse_csc())",
}, setup=SETUP)

# the gradients' dot products: upstream reduces them vectorised (as sampled_addmm's forward)
cases("compressed_grads_float", {
    "sampled_addmm": "a = rnd(6, 8).to_sparse_csr().requires_grad_(); m1 = torch.randn(6, 20, requires_grad=True); m2 = torch.randn(20, 8, requires_grad=True); y = torch.sparse.sampled_addmm(a, m1, m2, beta=0.3, alpha=0.7); (y.to_dense() * torch.randn(6, 8)).sum().backward(); a.grad.values(), m1.grad, m2.grad",
    "mm_reduce": "a = rnd(6, 30).to_sparse_csr(); x = torch.randn(30, 9); w = torch.randn(6, 9); [torch.autograd.grad((torch.sparse.mm(t, y, r) * w).sum(), (t, y)) for r in ('sum', 'mean') for t, y in [(a.clone().requires_grad_(), x.clone().requires_grad_())]]",
}, setup=SETUP + "\ndef _vals(g):\n    return g.values() if g.layout != torch.strided else g\n", tol="float")

# conversions of a sparse self: upstream refuses a dense_dim argument, a blocked self to CSR / CSC
# and another block size between blocked layouts (its words name the function refusing)
cases("compressed_convert_errors", {
    "same_layout": "cd(c.to_sparse_csr()), cd(sq.to_sparse_bsr((2, 2)).to_sparse_bsr((2, 2))), cd(c.to_sparse(layout=torch.sparse_csr))",
    "bsr_to_bsc": "cd(sq.to_sparse_bsr((2, 2)).to_sparse_bsc((2, 2))), cd(c.to_sparse_bsr((2, 2)))",
    "err_dense_dim_same": "c.to_sparse_csr(dense_dim=0)",
    "err_dense_dim_other": "c.to_sparse_csc(dense_dim=0)",
    "err_dense_dim_hybrid": "d.unsqueeze(-1).to_sparse_csr(dense_dim=1).to_sparse_csc(dense_dim=1)",
    "err_dense_dim_blocked": "c.to_sparse_bsr((2, 1), dense_dim=0)",
    "err_dense_dim_coo": "d.to_sparse().to_sparse_csr(dense_dim=0)",
    "err_dense_dim_to_sparse": "c.to_sparse(layout=torch.sparse_csc, dense_dim=0)",
    "err_dense_dim_coo_to_sparse": "d.to_sparse().to_sparse(layout=torch.sparse_csr, dense_dim=0)",
    "err_bsr_to_csr": "sq.to_sparse_bsr((2, 2)).to_sparse_csr()",
    "err_bsc_to_csc": "sq.to_sparse_bsc((2, 2)).to_sparse_csc()",
    "err_bsr_to_sparse_csr": "sq.to_sparse_bsr((2, 2)).to_sparse(layout=torch.sparse_csr)",
    "err_blocksize_same": "sq.to_sparse_bsr((2, 2)).to_sparse_bsr((1, 1))",
    "err_blocksize_other": "sq.to_sparse_bsr((2, 2)).to_sparse_bsc((1, 1))",
    "err_blocksize_to_sparse": "sq.to_sparse_bsr((2, 2)).to_sparse(layout=torch.sparse_bsr, blocksize=(1, 1))",
    "err_kernel_same_layout": "torch.ops.aten._to_sparse_csr(c)",
}, setup=SETUP)

COO = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
dd = torch.tensor([[0., 1, 0], [2, 0, 3], [0, 0, 0], [4, 5, 0]])
def co(t):
    if not (isinstance(t, torch.Tensor) and t.is_sparse):
        return t
    return (t._indices(), t._values(), t.shape, t._nnz(), t.sparse_dim(), t.dense_dim(), t.is_coalesced(), t.dtype, repr(t))
"""

cases("coo_more2", {
    "cat_dense_dim": "h = dd.to_sparse(1); co(torch.cat([h, h], 1)), co(torch.cat([h, h * 2, h], -1))",
    "cat_dense_dim_3d": "h = dd.unsqueeze(-1).to_sparse(1); co(torch.cat([h, h], 2)), co(torch.cat([h, h.double()], 1))",
    "cat_dense_other_sizes": "h = dd.to_sparse(1); g = torch.ones(4, 2).to_sparse(1); co(torch.cat([h, g], 1)), co(torch.cat([g, h], 1))",
    "stack_dense_dim": "h = dd.to_sparse(1); co(torch.stack([h, h], 2))",
    "err_cat_dims": "torch.cat([dd.unsqueeze(-1).to_sparse(1), dd.unsqueeze(-1).to_sparse(2)], 0)",
    "sum_no_dims": "s = torch.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2, 3], (2, 2)); co(s.sum(dim=())), co(s.sum(dim=[], keepdim=True)), s.sum(dim=None), s.sum(dim=None, keepdim=True)",
    "sum_dtype": "s = dd.to_sparse(); co(s.sum(0, dtype=torch.float64)), co(s.int().sum(0)), co(s.bool().sum(1)), co(s.int().sum(0, keepdim=True)), s.int().sum(dim=None), co(s.int().sum(dim=()))",
    "sparse_sum_dtype": "s = dd.to_sparse(); torch.sparse.sum(s, dtype=torch.float64), co(torch.sparse.sum(s, 0, dtype=torch.float64)), co(torch.sparse.sum(s.int(), 0)), co(torch.sparse.sum(s.bool(), 0)), torch.sparse.sum(s.int(), dtype=torch.int64)",
    "sum_dtype_bits": "a = torch.randn(40, 6); a[a.abs() < 0.5] = 0; s = a.to_sparse(); s.sum(0, dtype=torch.float64).to_dense(), torch.sparse.sum(s, 0, dtype=torch.float64).to_dense()",
    "unary_inplace": "x = torch.tensor([[0., -1.5, 0], [0.25, 0, 3.7]]).to_sparse(); [co(getattr(x.clone(), f)()) for f in ('abs_', 'neg_', 'ceil_', 'floor_', 'trunc_', 'round_', 'frac_', 'sign_', 'sgn_', 'rad2deg_', 'deg2rad_', 'relu_', 'nan_to_num_')]",
    "unary_inplace_shares": "x = dd.to_sparse(); v = x._values(); x.neg_(); x.abs_(); v",
    "neg_uncoalesced": "u = torch.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2, 3], (2, 2)); co(u.neg_())",
    "err_uncoalesced": "torch.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2, 3], (2, 2)).sin_()",
    "unary_more": "x = torch.tensor([[0., -0.5, 0], [float('inf'), 0, -float('inf')]]).to_sparse(); co(x.isposinf()), co(x.isneginf()), co(torch.tensor([[0., -0.5, 0], [0.25, 0, 0.75]]).to_sparse().erfinv())",
    "mul_inplace_sparse": "u = torch.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2, 3], (2, 2)); co(u.clone().mul_(u)), co(u.coalesce().mul_(u.coalesce())), co(dd.to_sparse().mul_(dd.t().t().to_sparse()))",
    "spgemm": "s = dd.to_sparse(); co(s.t() @ s), co(torch.mm(s, s.t())), co(torch.sparse.mm(s, s.t())), co(torch.ops.aten._sparse_sparse_matmul(s, s.t()))",
    "spgemm_uncoalesced": "co(torch.sparse_coo_tensor([[0, 0], [1, 1]], [1., 2], (2, 2)) @ torch.sparse_coo_tensor([[1], [0]], [3.], (2, 2)))",
    "spgemm_random": "a = torch.randn(15, 25); a[torch.rand(15, 25) < 0.7] = 0; b = torch.randn(25, 12); b[torch.rand(25, 12) < 0.6] = 0; r = a.to_sparse() @ b.to_sparse(); r._indices(), r._values(), r.is_coalesced(), torch.sparse.mm(a.double().to_sparse(), b.double().to_sparse())._values()",
    "err_spgemm_shapes": "dd.to_sparse() @ dd.to_sparse()",
    "err_spgemm_dtypes": "dd.to_sparse().double() @ dd.t().to_sparse()",
    "err_spgemm_long": "dd.to_sparse().long() @ dd.t().to_sparse().long()",
    "hspmm": "u = torch.sparse_coo_tensor([[3, 0, 3], [0, 1, 0]], [1., 2, 3], (4, 3)); co(torch.hspmm(dd.to_sparse(), torch.ones(3, 2))), co(torch.hspmm(u, torch.arange(6.).reshape(3, 2))), co(dd.to_sparse().hspmm(torch.arange(6.).reshape(3, 2).double()))",
    "hspmm_random": "a = torch.randn(12, 20); a[torch.rand(12, 20) < 0.8] = 0; r = torch.hspmm(a.to_sparse(), torch.randn(20, 5)); r._indices(), r._values()",
    "err_hspmm_shape": "torch.hspmm(dd.to_sparse(), torch.ones(2, 2))",
    "err_hspmm_dense": "torch.hspmm(torch.ones(2, 2), dd.to_sparse())",
    "err_mean": "dd.to_sparse().mean()",
    "err_mean_dim": "dd.to_sparse().mean(0)",
    "softmax_grad": "s = dd.to_sparse().requires_grad_(); y = torch.sparse.softmax(s, 1); y.to_dense().sum().backward(); co(s.grad), type(y.grad_fn).__name__",
    "softmax_grad_exact": "s = (dd * 0).to_sparse().requires_grad_(); torch.sparse.softmax(s, 0).to_dense().mul(torch.arange(12.).reshape(4, 3)).sum().backward(); co(s.grad)",
    "log_softmax_grad_exact": "s = (dd * 0).to_sparse().requires_grad_(); torch.sparse.log_softmax(s, 1).to_dense().mul(torch.arange(12.).reshape(4, 3)).sum().backward(); co(s.grad)",
    "err_backward_dense": "s = dd.to_sparse(); y = torch.sparse.softmax(s, 1); torch.ops.aten._sparse_softmax_backward_data(y.to_dense(), y, 1, s)",
}, setup=COO)

# the gradients' values: exp / log of the C library, as the forward (coo_softmax_float)
cases("coo_unary_inplace_float", {
    "inplace": "x = torch.tensor([[0., -0.5, 0], [0.25, 0, 0.75]]).to_sparse(); [co(getattr(x.clone(), f)()) for f in ('sin_', 'sqrt_', 'tanh_', 'log1p_', 'expm1_', 'asin_', 'atan_', 'sinh_', 'tan_', 'asinh_', 'atanh_', 'erf_', 'erfinv_')]",
}, setup=COO, tol="float")

cases("coo_softmax_grad_float", {
    "softmax": "s = dd.to_sparse().requires_grad_(); torch.sparse.softmax(s, 1).to_dense().mul(torch.arange(12.).reshape(4, 3)).sum().backward(); co(s.grad)",
    "log_softmax": "s = dd.to_sparse(); y = torch.sparse_coo_tensor(s._indices(), torch.tensor([-0.5, -1.25, -0.75, -2., -0.125]), s.shape); co(torch.ops.aten._sparse_log_softmax_backward_data(s * 3, y, 0, s))",
    "dense_dim": "s = dd.to_sparse(1).requires_grad_(); torch.sparse.softmax(s, 1).to_dense().mul(torch.arange(12.).reshape(4, 3)).sum().backward(); co(s.grad)",
    "random": "a = torch.randn(5, 7); a[a.abs() < 0.6] = 0; s = a.to_sparse().requires_grad_(); w = torch.randn(5, 7); [torch.autograd.grad((f(s, k).to_dense() * w).sum(), s)[0]._values() for f in (torch.sparse.softmax, torch.sparse.log_softmax) for k in (0, 1)]",
    "other_pattern": "s = dd.to_sparse(); y = torch.sparse.softmax(s, 1); g = torch.eye(4, 3).to_sparse(); co(torch.ops.aten._sparse_softmax_backward_data(g, y, 1, s)), co(torch.ops.aten._sparse_log_softmax_backward_data(g, torch.sparse.log_softmax(s, 0), 0, s))",
    "other_pattern_dense_dim": "s = dd.to_sparse(1); y = torch.sparse.log_softmax(s, 1); co(torch.ops.aten._sparse_log_softmax_backward_data(torch.eye(4, 3).to_sparse(1), y, 1, s))",
    "f64": "a = torch.randn(4, 6, dtype=torch.float64); a[a.abs() < 0.6] = 0; s = a.to_sparse().requires_grad_(); torch.sparse.softmax(s, 1).to_dense().pow(2).sum().backward(); s.grad._values()",
}, setup=COO, tol="float")
