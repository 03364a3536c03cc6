"""Calls of the no-crash corpus (tests/test_no_crash.py) with no meta tensor whose outcome
differed from upstream 2.13.0 (session 40 second round, group "sparse"), each compared with
upstream (docs/breadth_more2.md "Fuzz corpus: group sparse (session 40)"):

- _to_sparse of a tensor of more than 6 sparse dims (was refused by advanced indexing's limit);
  _to_sparse.sparse_dim of a tensor with a 0 sparse size and dense dims.
- _to_sparse with layout=strided of a dense tensor, or of a COO one with its own layout:
  upstream's internal assert (RuntimeError, compared with its message); a COO tensor with
  layout=strided is made dense; to_sparse(layout=strided) of a dense tensor returns it.
- ones / full / new_ones / new_full of a quantized dtype: the fill of a tensor without a quantizer
  (internal assert; "Copy" not implemented for the 4- and 2-bit ones); empty_strided /
  new_empty_strided of a quantized dtype refused.
- _embedding_bag and the composites: 0-d offsets next to 2-D indices, a 0-d weight with a
  padding_idx: IndexError (size(0) read). embedding of an empty weight: index_select's refusal.
- _embedding_bag_dense_backward (sum / mean): index_select of offset2bag by the sort of 1-D
  indices (float8 refused by the sort), then the dispatch on the index dtype, before grad and
  bag_size are looked at.
- pad_sequence of a 0-d first sequence (a slice of its sizes) or a later one (its size(0)).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def T(*shape, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    return (torch.arange(n, dtype=torch.float64) * 0.37 - 1.1).reshape(shape).to(dtype)
def parts(s):
    return (s.layout, s.shape, s.sparse_dim(), s.dense_dim(), s._indices(), s._values(), s.is_coalesced())
x = T(2, 3)
z = torch.tensor(1.5)
i64 = torch.tensor([[0, 1, 0], [1, 0, 1]])
Q = (torch.qint8, torch.quint8, torch.qint32, torch.quint4x2, torch.quint2x4)
"""

cases("fuzz_sparse9", {
    "to_sparse_many_dims": "[parts(aten._to_sparse(T(*[1] * n), dense_dim=d)) for n in (7, 20, 32) for d in (None, 0, 2, 3)] + "
                           "[parts(aten._to_sparse.sparse_dim(T(*[1] * 20), sd)) for sd in (1, 19, 20)] + "
                           "[parts(T(2, 1, 2, 1, 2, 1, 2, 1).to_sparse(6)), parts(aten._to_sparse(T(3, 1, 2, 1, 2, 1, 2, 2)))]",
    "to_sparse_zero_size": "[parts(aten._to_sparse.sparse_dim(t, sd)) for t, sd in ((torch.empty(0, 3), 1), (torch.empty(0, 3), 2), "
                           "(torch.empty(3, 0), 1), (torch.empty(2, 0, 3), 2))]",
    "to_sparse_strided_layout": "[err(lambda: f(t, **kw)) for t in (x, z, x.to_sparse()) for f in (aten._to_sparse, lambda t, **kw: t._to_sparse(**kw)) "
                                "for kw in (dict(layout=torch.strided), dict(layout=torch.strided, blocksize=[1, 1]), "
                                "dict(layout=torch.strided, dense_dim=1), dict(layout=torch.sparse_coo), {})]",
    "to_sparse_public_strided": "[err(lambda: t.to_sparse(**kw)) for t in (x, z) for kw in (dict(layout=torch.strided, blocksize=[1, 1]), "
                                "dict(layout=torch.strided, dense_dim=1), dict(layout=torch.strided, dense_dim=-1))] + "
                                "[x.to_sparse(layout=torch.strided) is x, x.to_sparse(layout=torch.strided, dense_dim=0) is x, "
                                "x.to_sparse().to_sparse(layout=torch.strided)]",
    "quantized_fill": "[err(lambda: f(dt)) for dt in Q for f in (lambda d: x.new_ones([2, 3], dtype=d), lambda d: aten.new_full(x, [2, 3], 2, dtype=d), "
                      "lambda d: torch.ones([2, 3], dtype=d), lambda d: torch.full([0, 3], 2, dtype=d), lambda d: x.new_full([2], 1j, dtype=d), "
                      "lambda d: torch.ones([-1, 3], dtype=d), lambda d: aten.scalar_tensor(2, dtype=d), lambda d: torch.scalar_tensor(1j, dtype=d))]",
    "quantized_empty_strided": "[err(lambda: f(dt)) for dt in Q for f in (lambda d: aten.new_empty_strided(x, [2, 3], [3, 1], dtype=d), "
                               "lambda d: x.new_empty_strided([2, 3], [3, 1], dtype=d), lambda d: torch.empty_strided([2, 3], [3, 1], dtype=d))] + "
                               "[(err(lambda: torch.empty_strided([2, 3], [3, 1], dtype=dt, device='meta')) or ('ok',))[0] for dt in Q] + "
                               "[(t.dtype, t.shape) for t in (x.new_empty([2, 3], dtype=torch.qint8), torch.empty_strided([2, 3], [3, 1], dtype=torch.float16))]",
    "embedding_bag_0d": "[err(lambda: f(w, i, o)) for f in (aten._embedding_bag, aten._embedding_bag_forward_only, aten.embedding_bag, torch.embedding_bag) "
                        "for w, i, o in ((x, i64, torch.tensor(-3)), (x, i64, torch.tensor(0)), (x, torch.tensor([0, 1]), torch.tensor(0)), "
                        "(x, torch.tensor(0), torch.tensor([0])))] + "
                        "[err(lambda: f(w, i, o, False, 0, False, None, False, 1)) for f in (aten.embedding_bag.padding_idx, torch.embedding_bag) "
                        "for w, i, o in ((z, z, z), (z, i64, x), (z, torch.tensor([0, 1]), torch.tensor(0)), (x, i64, torch.tensor(0)))]",
    "embedding_empty_weight": "[err(lambda: aten.embedding(torch.empty(0, 3), i)) for i in (i64, torch.tensor(0), torch.tensor([5]))] + "
                              "[aten.embedding(torch.empty(0, 3), torch.empty(0, dtype=torch.long)), aten.embedding(x, i64)]",
    "embedding_bag_dense_backward_order": "[err(lambda: aten._embedding_bag_dense_backward(g, i, o, b, b, 2, False, m, None)) "
                                          "for g, i, o, b in ((z, z, z, z), (x, z, x, x), (x, T(7), x, x), (x, T(2), x, x), (x, T(2), z, x), "
                                          "(x, T(1), z, x), (x, T(2, dtype=torch.int16), x, x), (x, T(7, dtype=torch.uint8), x, x), (z, T(2), x, x), "
                                          "(x, torch.tensor([True, False]), x, x), (x, T(5), torch.empty(0), x), (x, torch.tensor([0, 1, 1, 0, 1]), x, x)) "
                                          "for m in (0, 1)] + "
                                          "[err(lambda: aten._embedding_bag_dense_backward(x, torch.empty(sh, dtype=d), x, x, x, 1, False, m, x)) "
                                          "for d in (torch.float8_e4m3fn, torch.float8_e5m2fnuz, torch.uint16, torch.uint32, torch.uint64) "
                                          "for sh in ((2, 3), (3,), (2,)) for m in (0, 1)]",
    "embedding_bag_dense_backward_values": "g = T(2, 3); i = torch.tensor([0, 1, 1]); o2b = torch.tensor([0, 0, 1]); bs = torch.tensor([2, 1]); "
                                           "[aten._embedding_bag_dense_backward(g, i, o2b, bs, bs, 3, False, m, None) for m in (0, 1)]",
    "pad_sequence_0d": "[err(lambda: aten.pad_sequence(s)) for s in ([z, z], [torch.ones(2), z], [z, torch.ones(2)])] + "
                       "[aten.pad_sequence([torch.ones(2), torch.ones(1)]), aten.pad_sequence([T(2, 3), T(1, 3)], True)]",
}, setup=SETUP, tol="float")
