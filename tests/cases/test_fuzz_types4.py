"""Exception types and messages of the no-crash corpus's "both refuse, other type" calls, fourth pass
(group types; docs/breadth_more2.md "Fuzz corpus exception types, group types (session 37)"); the
corpus itself compares every call's exception type (tests/test_no_crash.py).

- rms_norm: the rank check (ValueError "Input tensor must have at least k dimensions") after the
  weight's shape, before the shape match; _fused_rms_norm wraps its reduced dims ndim-1 .. ndim-k
  (IndexError past the range, else "dim ndim-1 appears multiple times").
- batch_norm's evaluation path dispatches on the dtype before reading input.size(1), training after.
- ormqr compares other's and tau's sizes (a 0-d tau's size(-1): IndexError) before the ranks.
- histogramdd.int_bins reads self.size(-1); hash_tensor reads each given dim's size before repeats.
- _to_sparse_csr / csc of a 0-d or 1-d tensor without dense_dim: select() / dim wrap IndexErrors.
- _masked_softmax without mask_type (4-d input, 2-d mask): no shape check, dim wrapped first;
  _masked_softmax_backward wraps dim before comparing output; unfold_backward's step ValueError.
- quantize_per_tensor.tensors: zero_points[i] then scales[i] selected and item()'d per element.
- torch.ops.aten.X.overload: an Optional[int] takes a dtype as its number (argmax.default(x, float32)).
- binomial lets float8 through to the dtype match; nll_loss_backward compares self.size(0) and
  target.size(0); packed rnn unbinds hx before reading batch_sizes; _pad_packed_sequence's empty
  batch_sizes; _transform_bias_rescale_qkv reads qkv.size(0..2) in turn.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
a = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
z = torch.ones(())
L = torch.int64
"""

cases("fuzz_types4", {
    "rms_norm_rank": "[err(lambda: a.rms_norm(t, s, w)) for t in [x, x.long(), z, x[0], x.to(torch.complex64)] "
                     "for s in [[1, 1, 1], [1] * 33, [3], [1, 4], []] for w in [None, torch.ones(5)]], "
                     "err(lambda: torch.nn.functional.rms_norm(x, [1, 1, 1])), err(lambda: torch.rms_norm(x[0], [1, 3]))",
    # (shapes that fit the ranks run upstream's fused kernel unchecked: not yet ours, docs)
    "fused_rms_norm_dims": "[err(lambda: a._fused_rms_norm(t, s, None, 2.0)) for t, S in [(x, [3, 4, 5, 40]), (z, [2, 3]), (x[0], [2, 3]), "
                           "(x.to(torch.complex64), [3, 5]), (x.long(), [3, 5])] for s in [[1] * k for k in S]]",
    "batch_norm_eval_dtype": "v = torch.ones(5); i = v.long(); "
                             "[err(lambda: a.native_batch_norm(t, None, None, rm, rm, tr, 0.1, 1e-5)) for t in [i, v, i[:0], x.long()] "
                             "for rm in [None, v] for tr in [False, True]], "
                             "[err(lambda: f(i, None, None, v, v, 0.1, 1e-5)) for f in [a._batch_norm_no_update, a._batch_norm_with_update, "
                             "a._native_batch_norm_legit_no_training]], "
                             "[err(lambda: a._native_batch_norm_legit.no_stats(i, None, None, tr, 0.1, 1e-5)) for tr in [False, True]]",
    "ormqr_tau_size": "[err(lambda: torch.ormqr(x, tau, c, left=l)) for tau in [z, z.long(), torch.ones(1, 2), torch.ones(5), torch.ones(2)] "
                      "for c in [x, torch.ones(3, 3), torch.ones(1, 2, 3), torch.ones(3)] for l in [True, False]], "
                      "err(lambda: torch.ormqr(x, z, x, out=torch.empty(0)))",
    "histogramdd_int_bins_0d": "[err(lambda: torch.histogramdd(t, bins=b)) for t in [z, z.long(), torch.ones(3)] for b in [3, [3], -1]], "
                               "err(lambda: a.histogramdd.int_bins(z, 0))",
    "hash_tensor_empty_dims": "e = torch.ones(0, 3); [err(lambda: torch.hash_tensor(t, dim=d)) for t in [e, e.T, torch.ones(0)] "
                              "for d in [[0, 0], [0], [1, 1], [-2], [5], [1, 5], 0, [1, 0, 1], [1, -1], [-1, -1], []]]",
    "to_sparse_lt2d": "V = [torch.zeros(()), z, torch.tensor([0., 1, 2, 0]), torch.tensor([0., 1, 2, 0]).to(torch.complex64), "
                      "torch.tensor([0, 1, 0]).bool(), torch.tensor([0., float('nan')]), torch.ones(0), torch.tensor([0., 1]).to(torch.float8_e5m2)]; "
                      "[err(lambda: f(t, *d)) for t in V for f in [a._to_sparse_csr, a._to_sparse_csc] for d in [(), (0,), (1,), (-1,)]], "
                      "[err(lambda: f(t)) for t in V[:3] for f in [torch.Tensor.to_sparse_csr, torch.Tensor.to_sparse_csc]], "
                      "err(lambda: V[2].to_sparse(layout=torch.sparse_csr)), err(lambda: a._to_sparse_bsr(V[2], [1, 1]))",
    "masked_softmax_order": "q = torch.ones(2, 3, 4, 5); m = torch.zeros(2, 3, dtype=torch.bool); "
                            "[err(lambda: a._masked_softmax(q, m, d, mt)) for d in [None, 33, -33, 3, 1] for mt in [None, 33, 0, 1, 2]], "
                            "[err(lambda: a._masked_softmax(x, mk, d)) for mk in [m, torch.zeros(2, 4, dtype=torch.bool), torch.zeros(2, 3)] for d in [6, None]], "
                            "[err(lambda: a._masked_softmax_backward(x, o, mk, d)) for o in [x, q] "
                            "for mk in [m, torch.zeros(2, 4, dtype=torch.bool)] for d in [None, 6]], "
                            "err(lambda: a._masked_softmax_backward(x, torch.ones([1] * 20), m))",
    "unfold_backward_step": "[err(lambda: a.unfold_backward(x, s, d, n, st)) for s in [[1, 1], []] for d in [0, 5] for n in [1, -1, 5] for st in [0, -1, -2 ** 63]]",
    "quantize_tensors_per_element": "T2 = [torch.ones(2), torch.ones(2)]; "
                                    "[err(lambda: torch.quantize_per_tensor(T2, s, zp, torch.quint8)) for s in [x, z, torch.ones(0, 3), torch.ones(1), torch.ones(2)] "
                                    "for zp in [x.long(), z.long(), torch.ones(0, dtype=L), torch.ones(1, dtype=L), torch.zeros(3, dtype=L)]], "
                                    "err(lambda: torch.quantize_per_tensor(T2, torch.ones(3), torch.ones(3), torch.float32)), "
                                    "torch.quantize_per_tensor([], x, x, torch.quint8)",
    "aten_optional_int_dtype": "[err(lambda: f()) for f in [lambda: a.argmax.default(x, torch.float32), lambda: a.argmin.default(x, torch.int64), "
                               "lambda: a.argmax.out(x, torch.float32, out=torch.empty(2, dtype=L)), lambda: a._masked_softmax.default(x, x > 9, torch.float32), "
                               "lambda: a._masked_softmax_backward.default(x, x, x > 9, torch.float32), lambda: a.select.int(x, torch.float32, 0), "
                               "lambda: a.narrow.default(x, 0, 0, torch.float32), lambda: a.diff.default(x, 1, torch.float32)]], "
                               "a._masked_softmax.default(x, x > 9, None, torch.float32), a.argmax.default(x, torch.bool)",
    "binomial_float8": "F8 = [torch.float8_e5m2, torch.float8_e4m3fn, torch.float32, torch.int64, torch.complex64]; "
                       "[err(lambda: torch.binomial(x.to(c), x.to(p))) for c in F8 for p in F8 if not (c == p == torch.float32)], "
                       "[err(lambda: torch.binomial(x.to(c), x.to(p), out=torch.empty(2, 3))) for c in F8[:2] for p in F8[:3]]",
    "nll_loss_backward_sizes": "g = torch.tensor(2.); s7 = torch.arange(7.); t7 = torch.tensor([3, 1, 2, 0, 0, 0, 0]); "
                               "[a.nll_loss_backward(g, s7, t7, w, r, ig, torch.tensor(1.5)) for w in [None, s7 + 1] for r in [0, 1, 2] for ig in [-100, 3]], "
                               "[err(lambda: a.nll_loss_backward(g, s, t, None, 1, -100, tw)) for s in [s7, torch.ones(2, 7), torch.ones(7, dtype=torch.float64)] "
                               "for t in [t7, t7[:3], t7[:1], torch.tensor(1)] for tw in [torch.tensor(1.), torch.ones(2), torch.ones(0)]]",
    "packed_rnn_hx_first": "P = [torch.ones(2, 3), torch.ones(2, 2)]; "
                           "[err(lambda: f(torch.ones(2, 3), bs, hx, P, False, 1, 0.0, False, False)) for f in [a.rnn_tanh.data, a.rnn_relu.data] "
                           "for bs in [x, torch.tensor([1, 1]), z, z.long(), torch.ones(2, dtype=torch.int32)] for hx in [z, torch.ones(1, 1, 2), x]], "
                           "[err(lambda: a.gru.data(torch.ones(2, 3), bs, z, [torch.ones(6, 3), torch.ones(6, 2)], False, 1, 0.0, False, False)) for bs in [x, z.long()]], "
                           "err(lambda: a.rnn_tanh.data(x, x, z, P[:1], False, 1, 0.0, False, False)), "
                           "[err(lambda: a._pad_packed_sequence(d, torch.zeros(0, dtype=L), False, 2.0, n)) for d in [x, z, torch.ones(0, dtype=L)] for n in [1, -1, 0, 5]]",
    "transform_bias_rescale_qkv_sizes": "[err(lambda: a._transform_bias_rescale_qkv(q, b, 1)) for q in [z, torch.ones(3), x, torch.ones([1] * 20), torch.ones(1, 1, 4), torch.arange(12.).reshape(2, 1, 3, 2)] "
                                        "for b in [torch.ones(3), x]], a._transform_bias_rescale_qkv(torch.ones(2, 2, 3), x, 1)",
}, setup=SETUP)
