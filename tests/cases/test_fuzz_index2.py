"""Exception types and messages of the no-crash corpus's differences where one side raised
IndexError (docs/breadth_more2.md "Fuzz corpus exception types", group "index"): each fixed in the
op owning the check, upstream's order of checks measured side by side.

- mkldnn_rnn_layer / _backward and _ctc_loss_backward read the input's first 3 sizes first.
- _embedding_bag_dense_backward (sum / mean) index_selects by the sorted 2-D indices first.
- _adaptive_avg_pool3d_backward: grad_output of self's dims, then self.size(-4).
- reflection_pad1d / 2d_backward read self's sizes before the padding's length.
- index_fill: value dims, index dtype, complex value, then dim; index_copy: dim, out= dtype, index
  dims, source / self dims, index dtype, slice shapes, number of indices.
- hash_tensor.out: out='s dtype before anything; kthvalue / median / nanmedian wrap dim first.
- dense to BSR / BSC read self.size(-2 - dense_dim) and self.size(-1 - dense_dim) before the range.
- bilinear reads input1.size(-1), weight.size(1), input2.size(-1), weight.size(2), bias.size(0).
- max_pool2d on meta reads input.size(-3) after the list checks.
- cummax / cummin: an empty self's results without a dim check, a 0-d self's dim -1 or 0 only;
  logcumsumexp.out checks out='s dtype first; mv reads self.size(0); gradient reads self.size(dim)
  of a 0-d self; linalg.cross's meta checks (dims, size(dim)) before its dtype; _cdist_backward
  reads x1.size(-1), x2.size(-1), x1.size(-2), x2.size(-2) first.
- narrow_copy refuses a dim past self's dims with its kernel's own check; _pdist_forward reads
  self.size(0) (then size(1)), _pdist_backward self.size(0), size(1), grad.stride(0).
- avg_pool2d narrows each kernel / stride / padding value to int after its list's length check;
  norm.* wraps its dims after its dtype checks, before linalg_vector_norm's; nansum (functional)
  and mean.out wrap dims before their complex / cast checks; _trilinear refuses a repeated dim
  in each list as it wraps it; im2col reads size(1), then (non-zero) size(2); _euclidean_dist's mT.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3)
x0 = torch.tensor(1.5)
x1 = torch.arange(3.)
x3 = torch.arange(24.).reshape(2, 3, 4)
i2 = torch.tensor([[0, 1, 0], [1, 0, 1]])
i1 = torch.tensor([0, 1])
"""

cases("fuzz_index2", {
    "mkldnn_rnn_layer_input_dims": "L = torch.ops.aten.mkldnn_rnn_layer; LB = torch.ops.aten.mkldnn_rnn_layer_backward; "
                                   "[err(lambda: L(s, x, x, x, x, x, x, False, [1, 1], 1, 1, 1, False, False, bf, False)) for s in (x0, x1, x) for bf in (False, True)], "
                                   "[err(lambda: LB(s, x, x, x, x, x, x, x, x, x, x, x, x, False, 1, 1, 1, False, False, False, [], False, torch.ones(1, dtype=torch.uint8))) for s in (x0, x1, x)]",
    "ctc_loss_backward_log_probs_dims": "C = torch.ops.aten._ctc_loss_backward; "
                                        "[err(lambda: C(x, lp, t, [1, 1], [1, 1], x, x, 1)) for lp in (x0, x1, x) for t in (x, i2, i2.int())], "
                                        "[err(lambda: C(x, lp, x, [1, 1], [1, 1], x, x, 1)) for lp in (i2, x.bfloat16())]",
    "embedding_bag_dense_backward_2d_indices": "E = torch.ops.aten._embedding_bag_dense_backward; "
                                               "[err(lambda: E(g, ind, x, x, x, 1, False, mode, x)) for mode in (0, 1) for g, ind in "
                                               "[(x, x), (x, i2), (x.bfloat16(), i2.bool()), (x0, i2), (x1, i2.int())]]",
    "adaptive_avg_pool3d_backward_dims": "B = torch.ops.aten._adaptive_avg_pool3d_backward; "
                                         "[err(lambda: B(g, s)) for g, s in [(x0, x0), (x1, x1), (x, x), (x3, x3), (x, x3[None]), (x3[None], x), "
                                         "(torch.ones(0, 3), x), (torch.ones(2, 0), x), (x, x.bfloat16())]], "
                                         "err(lambda: torch.ops.aten._adaptive_avg_pool3d_backward.out(x, x, out=torch.empty(0))), "
                                         "err(lambda: torch.ops.aten._adaptive_avg_pool3d_backward.out(x3[None], x3[None], out=torch.empty(0, device='meta')))",
    "reflection_pad_backward_self_dims": "[err(lambda: op(s, s, [1] * n)) for op, ss in ((torch.ops.aten.reflection_pad1d_backward, (x0, x1)), (torch.ops.aten.reflection_pad2d_backward, (x0, x1, x))) "
                                         "for s in ss for n in (1, 2, 3, 4)]",
    "index_fill_order": "F = torch.ops.aten.index_fill; "
                        "[err(g) for g in [lambda: F.int_Scalar(x, 5, x, 2), lambda: F.int_Scalar(x, 5, i2, 2), lambda: F.int_Scalar(x, 5, i1.float(), 2), "
                        "lambda: F.int_Scalar(x, 0, x, 1j), lambda: F.int_Scalar(x, 5, i1, 1j), lambda: F.int_Scalar(x, 0, i2, 1j), "
                        "lambda: F.int_Scalar(x0, 3, i1, 2), lambda: F.int_Tensor(x, 5, x, x), lambda: F.int_Tensor(x, 5, x, x0), "
                        "lambda: F.int_Tensor(x, 5, i1, torch.tensor(1j)), lambda: F.int_Scalar(x, 0, i2, 2), "
                        "lambda: x0.expand(3).index_fill_(0, x, 2), lambda: x.clone().index_fill_(0, i2.bool(), 2)]], "
                        "F.int_Scalar(x, 1, i1, -1.5), F.int_Tensor(x.to(torch.complex64), 0, i1, torch.tensor(1j))",
    "index_copy_order": "C = torch.ops.aten.index_copy; o = torch.ones(2, 3, dtype=torch.float64); "
                        "[err(g) for g in [lambda: C.out(x, 0, i2, x, out=o), lambda: C.out(x, 5, i1, x, out=o), lambda: C.out(x, 0, i1.float(), x, out=o), "
                        "lambda: C.out(x, 0, i1, x.double(), out=o), lambda: C.out(x, 0, i2, x, out=torch.ones(5)), lambda: C(x, 0, i2, x), "
                        "lambda: C(x, 5, i2, x), lambda: C(x, 0, i1.float(), x), lambda: C(x, 0, torch.ones(7), torch.ones(7)), "
                        "lambda: x0.expand(3).index_copy_(0, i2, x), lambda: x0.clone().index_copy_(0, torch.tensor(-3), x), "
                        "lambda: x0.clone().index_copy_(0, torch.tensor(0), x), lambda: C(x, 0, torch.tensor(0), x), lambda: C(x, 0, i1[:1], x), "
                        "lambda: C(x0, 0, i1[:1], torch.ones(2)), lambda: C(x, 0, i1, torch.ones(2, 4)), lambda: C(x, 0, i1, x0), "
                        "lambda: C(x, 0, torch.tensor([0, 5]), x), lambda: C(x, 0, torch.tensor([0, -1]), x)]], "
                        "C(x, 0, torch.tensor(1), x[:1]), C(x1, 0, i1[:1], torch.tensor(7.)), C(x0, 0, torch.tensor([0, 0]), torch.ones(2)), "
                        "C.out(x, 0, torch.tensor([1, 0]), x, out=torch.empty(0))",
    "hash_tensor_out_dtype_first": "H = torch.ops.aten.hash_tensor; of, ou = torch.ones(2, 3), torch.empty(0, dtype=torch.uint64); "
                                   "[err(g) for g in [lambda: H.out(x, [2], out=of), lambda: H.out(x, [2], out=ou), lambda: H.out(x.to(torch.complex128), out=of), "
                                   "lambda: H.out(x, mode=5, out=of), lambda: H.out(torch.empty(0, 3), out=of), lambda: H.out(x, [0, 0], out=of), "
                                   "lambda: H.out(x, [2], out=torch.ones(2, 3, dtype=torch.int64))]]",
    "select_ops_dim_first": "b = x.bool(); ix = torch.ones(2, 3, dtype=torch.long); "
                            "[err(g) for g in [lambda: torch.kthvalue(b, 1, -3), lambda: torch.median(b, -3), lambda: torch.nanmedian(b, -3), "
                            "lambda: torch.kthvalue(x.to(torch.complex64), 1, -3), lambda: torch.median(x.to(torch.complex64), -3), "
                            "lambda: torch.kthvalue(b, 1, -3, out=(x.clone(), ix.clone())), lambda: torch.median(b, -3, out=(x.clone(), ix.clone())), "
                            "lambda: torch.nanmedian(b, -3, out=(x.clone(), ix.clone())), lambda: torch.kthvalue(x, 1, -3, out=(x.clone(), x.clone())), "
                            "lambda: torch.median(torch.empty(0, 3), -3), lambda: torch.median(torch.empty(0, 3), 0)]]",
    "dense_to_bsr_bsc_size_reads": "[err(lambda: f(s, bs, dd)) for f in (torch.ops.aten._to_sparse_bsr, torch.ops.aten._to_sparse_bsc) "
                                   "for s, bs, dd in [(x, [1, 1], -3), (x, [1, 1], -1), (x, [1, 1], 1), (x, [1, 1], 2), (x, [1, 1], -2 ** 63), (x, [1, 1], 2 ** 62), "
                                   "(x, [0, 1], -3), (x, [1, 1, 1], -3), (x, [2, 2], -1), (x1, [1, 1], None), (x1, [1, 1], 0), (x0, [1, 1], None), "
                                   "(torch.ones(2, 2, 2), [1, 1], 2)]], "
                                   "torch.ops.aten._to_sparse_bsr(torch.ones(2, 2, 2), [1, 1], 1).values().shape, "
                                   "[err(lambda: torch.ops.aten._to_sparse_csr(x, dd)) for dd in (-3, 1, -2 ** 63)]",
    "bilinear_size_reads": "w = torch.ones(2, 3, 3); "
                           "[err(lambda: torch.bilinear(a, b, ww, bb)) for a, b, ww, bb in [(x, x, x, x), (x0, x0, w, None), (x, x, x1, None), "
                           "(x, x, torch.ones(2, 3), None), (x, x, torch.ones(2, 4, 3), None), (x, x[:, :2], w, None), (x, x, w, x0), (x, x, w, torch.ones(3)), "
                           "(x.bfloat16(), x.bfloat16(), x.bfloat16(), x.bfloat16())]], torch.bilinear(x, x, w, torch.ones(2)).shape",
    "max_pool2d_meta_size_read": "[err(lambda: f(torch.empty(s, device='meta'), ks)) for f in (torch.ops.aten.max_pool2d, torch.ops.aten.max_pool2d_with_indices) "
                                 "for s in [(), (3,), (2, 3)] for ks in ([-1, -1], [1, 1], [1], [1, 1, 1])], "
                                 "[err(lambda: torch.ops.aten.max_pool2d(torch.ones(s), [1, 1])) for s in [(), (3,), (2, 3)]], "
                                 "torch.ops.aten.max_pool2d(torch.empty(1, 4, 4, device='meta'), [2, 2]).shape",
    "cummax_cummin_empty_and_scalar": "e = torch.empty(0, 3); "
                                      "[err(lambda: op(s, d)) for op in (torch.cummax, torch.cummin) for s, d in [(e, -3), (x0, 5), (x0, -1), (x, 5), (e.bool(), -3), "
                                      "(e.to(torch.complex64), 7)]], [op(s, d) for op in (torch.cummax, torch.cummin) for s, d in [(e, -3), (x0, 0), (x0.to(torch.complex64), -1)]], "
                                      "[err(lambda: op(e, -3, out=(torch.ones(2, 3, dtype=o), torch.ones(2, 3, dtype=torch.long)))) for op in (torch.cummax, torch.cummin) "
                                      "for o in (torch.float32, torch.long)]",
    "logcumsumexp_out_dtype_first": "[err(g) for g in [lambda: torch.logcumsumexp(x.bool(), -3, out=x.clone()), lambda: torch.logcumsumexp(x, -3, out=x.double()), "
                                    "lambda: torch.logcumsumexp(x.bool(), -3), lambda: torch.ops.aten._logcumsumexp.out(x.bool(), -3, out=x.clone()), "
                                    "lambda: torch.ops.aten._logcumsumexp.out(x.bool(), 0, out=x.clone()), lambda: torch.logcumsumexp(x0, 5)]]",
    "mv_self_size0": "[err(g) for g in [lambda: torch.mv(x0, x), lambda: torch.mv(x0, x.bool()), lambda: torch.mv(x, x0), lambda: torch.mv(x1, x), "
                     "lambda: torch.mv(x0, x1, out=x.clone()), lambda: torch.mv(torch.ones(2, 3, 4), x1)]]",
    "gradient_scalar_dims": "[err(g) for g in [lambda: torch.gradient(x0, spacing=-1, dim=[0]), lambda: torch.gradient(x0, dim=0), lambda: torch.gradient(x0, dim=-1), "
                            "lambda: torch.gradient(x0, spacing=[x1], dim=0), lambda: torch.gradient(torch.ones(1), dim=0), lambda: torch.gradient(x, dim=5)]], torch.gradient(x0)",
    "linalg_cross_dim_first": "[err(g) for g in [lambda: torch.linalg.cross(x.bool(), x, dim=-3), lambda: torch.linalg.cross(x, torch.ones(3, 3), dim=-3), "
                              "lambda: torch.linalg.cross(x0, x0), lambda: torch.linalg.cross(x0, torch.tensor(2), dim=0), lambda: torch.linalg.cross(x, x)]]",
    "cdist_backward_size_reads": "B = torch.ops.aten._cdist_backward; "
                                 "[err(lambda: B(g, a, b, 2., c)) for g, a, b, c in [(x0, x0, x0, x0), (x, x0, x, x), (x, x, x0, x), (x, x1, x, x), (x, x, x1, x)]]",
    "narrow_copy_dim_past_dims": "N = torch.ops.aten.narrow_copy; "
                                 "[err(lambda: N(s, d, st, n)) for s, d, st, n in [(x, 2, 0, 1), (x, -3, 0, 1), (x, 5, 9, 1), (x0, 1, 0, 1), (x, 0, 5, 1), "
                                 "(x, 0, 0, 5), (x, 2 ** 62, 0, 1), (x, -2 ** 62, 0, 1)]], N(x, -1, 1, 2)",
    "pdist_size_reads": "P = torch.ops.aten._pdist_forward; PB = torch.ops.aten._pdist_backward; "
                        "[err(lambda: P(s)) for s in (x0, x1, x.int())], P(torch.ones(1)), P(x), "
                        "[err(lambda: PB(g, s, 2., d)) for g, s, d in [(x0, x0, x0), (x0, x1, x0), (x0, x, x0), (x1, torch.empty(0), x1), (x0, x.double(), x0), "
                        "(torch.ones(1), x.double(), torch.ones(1)), (torch.ones(1), x.int(), torch.ones(1))]]",
    "avg_pool2d_int_narrowing": "[err(lambda: torch.ops.aten.avg_pool2d(s, ks, st, pd)) for s in (x, x3) for ks, st, pd in [([-2 ** 63], [], [0]), ([2 ** 31], [], [0]), "
                                "([1, 1], [2 ** 40], [0]), ([1, 1], [1], [-2 ** 31 - 1]), ([1, 1, 1], [2 ** 40], [0]), ([2 ** 40], [1, 1, 1], [0]), ([1], [1], [0])]], "
                                "[err(lambda: torch.ops.aten.avg_pool2d(s, [1])) for s in (x0, x1)], "
                                "err(lambda: torch.ops.aten.avg_pool2d_backward(x, x, [-2 ** 63], [3, 1], [1, 1], False, False, 1))",
    "norm_dims_before_input_dtype": "N = torch.ops.aten.norm; "
                                    "[err(g) for s in (x.bool(), x.to(torch.complex64), x, x.int()) for g in [lambda: N.ScalarOpt_dim_dtype(s, 2, [-1, 2], False, dtype=torch.float32), "
                                    "lambda: N.dtype_out(s, 2, [-1, 2], False, dtype=torch.float32, out=x.clone()), lambda: N.ScalarOpt_dim(s, 2, [-1, 2]), "
                                    "lambda: N.out(s, 2, [-1, 2], out=x.clone()), lambda: N.ScalarOpt_dim_dtype(s, 2, [0, 0], False, dtype=torch.float32), "
                                    "lambda: N.ScalarOpt_dim_dtype(s, 2, [0], False, dtype=torch.int32)]]",
    "nansum_mean_dims_first": "c = x.to(torch.complex64); "
                              "[err(g) for g in [lambda: torch.nansum(c, [-1, 2]), lambda: torch.nansum(c, [0, 0]), lambda: torch.nansum(c), "
                              "lambda: torch.nansum(c, [-1, 2], out=x.clone()), lambda: torch.mean(c, [-1, 2], out=x.clone()), lambda: torch.mean(c, [0, 0], out=x.clone()), "
                              "lambda: torch.mean(x.int(), [-1, 2]), lambda: torch.mean(x.int(), [-1, 2], out=x.clone())]]",
    "trilinear_dim_lists": "T = torch.ops.aten._trilinear; "
                           "[err(lambda: T(x, x, x, e1, e2, e3, sd)) for e1, e2, e3, sd in [([1, 1], [-100], [1, 1], [1, 1]), ([1, 1], [1], [-100], [1, 1]), "
                           "([-100], [1, 1], [1, 1], [1, 1]), ([1], [1], [1], [-100, 1, 1]), ([1], [1], [1], [1, 1, -100]), ([5], [1], [1], [1, 1]), "
                           "([1], [1], [1], [5]), ([1], [1, 1], [1], [1])]]",
    "im2col_size_reads": "[err(lambda: torch.ops.aten.im2col(s, [1, 1], [1, 1], [0, 0], [3, 1])) for s in [torch.empty(3, 0), x, x0, x1, torch.empty(0, 3), "
                         "torch.empty(2, 0, 3)]], torch.ops.aten.im2col(x3, [1, 1], [1, 1], [0, 0], [1, 1]).shape",
    "euclidean_dist_mT": "E = torch.ops.aten._euclidean_dist; [err(lambda: E(a, b)) for a, b in [(x, torch.arange(7.)), (x, torch.tensor([], dtype=torch.long)), "
                         "(x, x[:, :2])]], E(x, x), E(x[0], x)",
    "im2col_meta_shape": "[err(lambda: torch.ops.aten.im2col(torch.empty(s, device='meta'), [1, 1], [1, 1], [0, 0], [1, 1])) for s in [(2, 3), (3,), (), (1, 0, 3), (2, 0, 3, 3)]]",
}, setup=SETUP)
