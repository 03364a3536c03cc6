"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 39, group "refuse", seventh pass), compared with upstream by value, dtype, shape and
strides, plus the neighbouring refusals the same checks keep (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs, seventh pass"):

- scaled_dot_product_attention of empty inputs: after upstream's validation (dtypes, dims, the
  mask's dtype), a query of no rows or a value of no columns gives an empty result and an empty
  value zeros, shaped query.shape[:-1] + [value.size(-1)], before any shape check of key, value or
  mask, and before enable_gqa's checks (which read size(-3) of each operand: an IndexError for
  a 2-d one); a head size of 0 gives scores of 0 whatever the scale (a uniform softmax).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def geo(r):
    if isinstance(r, torch.Tensor):
        return (r, r.stride(), r.dtype)
    return [geo(t) for t in r]
def z(*s):
    return torch.arange(float(torch.Size(s).numel())).reshape(s) * 0.25 - 1
sdpa = aten.scaled_dot_product_attention.default
"""

cases("fuzz_refuse7_sdpa_empty", {
    "empty_query_rows": "[geo(sdpa(z(*q), z(*k), z(*v), **kw)) for q, k, v, kw in ("
                        "((0, 3), (0, 3), (0, 3), dict(attn_mask=z(0, 3))), ((0, 3), (2, 4), (5, 7), {}), "
                        "((0, 3), (2, 3), (2, 3), dict(attn_mask=z(9, 9))), ((2, 0, 3), (3, 4, 3), (2, 4, 5), {}), "
                        "((1, 1, 0, 3), (1, 1, 2, 3), (1, 1, 2, 3), dict(attn_mask=z(5, 5))), "
                        "((0, 3), (2, 3), (2, 3), dict(attn_mask=z(0, 2), is_causal=True)))]",
    "empty_value": "[geo(sdpa(z(*q).to(dt), z(*k).to(dt), z(*v).to(dt), **kw)) for q, k, v, kw, dt in ("
                   "((2, 3), (2, 3), (0, 3), {}, torch.float32), ((2, 3), (2, 3), (3, 0), {}, torch.float32), "
                   "((2, 3), (2, 3), (3, 0), dict(dropout_p=0.5), torch.float32), ((2, 3), (2, 3), (3, 0), dict(enable_gqa=True), torch.float32), "
                   "((2, 3), (2, 3), (3, 0), dict(attn_mask=z(7, 7)), torch.float32), ((2, 3), (2, 4), (0, 5), {}, torch.float64), "
                   "((2, 3), (2, 3), (0, 5), dict(attn_mask=z(2, 2), is_causal=True), torch.float32), "
                   "((4, 2, 3), (2, 3), (0, 5), {}, torch.bfloat16), ((2, 3), (4, 2, 3), (0, 5), dict(scale=-1.0), torch.float32), "
                   "((2, 3), (2, 3), (4, 0, 5), {}, torch.float32), ((2, 3), (2, 3), (4, 2, 0), {}, torch.float32), "
                   "((3, 2, 3), (2, 3), (4, 2, 0), {}, torch.int64), ((1, 1, 2, 3), (1, 1, 2, 3), (1, 1, 0, 5), {}, torch.float32), "
                   "((2, 0), (2, 0), (0, 5), {}, torch.float32))] + "
                   "[geo(torch.nn.functional.scaled_dot_product_attention(z(2, 3), z(2, 3), z(3, 0)))]",
    "zero_head_size": "[geo(sdpa(z(*q), z(*k), z(*v), **kw)) for q, k, v, kw in ("
                      "((3, 0), (2, 0), (2, 5), {}), ((3, 0), (2, 0), (2, 5), dict(is_causal=True)), "
                      "((3, 0), (2, 0), (2, 5), dict(scale=float('nan'))), ((3, 0), (2, 0), (2, 5), dict(attn_mask=z(3, 2))), "
                      "((1, 1, 3, 0), (1, 1, 2, 0), (1, 1, 2, 5), {}))] + "
                      "[geo(sdpa(z(1, 1, 3, 0).double(), z(1, 1, 2, 0).double(), z(1, 1, 2, 5).double()))]",
    "still_refused": "[err(lambda: sdpa(z(*q).to(dq), z(*k), z(*v), **kw)) for q, k, v, kw, dq in ("
                     "((0, 3), (2, 3), (2, 3), {}, torch.int64), ((0, 3), (2, 3), (2, 3), {}, torch.float64), "
                     "((2, 3), (2, 3), (0, 5), dict(attn_mask=z(2, 2).long()), torch.float32), "
                     "((0, 2, 3), (5, 2, 3), (4, 2, 6), {}, torch.float32), ((2, 3), (0, 3), (4, 5), {}, torch.float32), "
                     "((2, 0), (3, 0), (2, 5), {}, torch.float32), ((2, 3), (2, 3), (2, 3), dict(attn_mask=z(2, 2), is_causal=True), torch.float32))] + "
                     "[err(lambda: sdpa(z(0), z(0), z(0)))]",
    "gqa_reads_heads_after": "[geo(sdpa(z(*q), z(*k), z(*v), enable_gqa=True)) for q, k, v in ("
                             "((4, 2, 3), (3, 2, 3), (3, 0, 3)), ((4, 0, 3), (3, 2, 3), (3, 2, 3)), ((0, 3), (2, 3), (2, 3)), ((2, 3), (2, 3), (0, 3)))] + "
                             "[err(lambda: sdpa(z(*q), z(*k), z(*v), enable_gqa=g)) for q, k, v in ("
                             "((2, 3), (2, 3), (2, 3)), ((2, 2, 3), (2, 3), (2, 3)), ((2, 3), (2, 2, 3), (2, 2, 3)), ((2, 2, 3), (2, 2, 3), (2, 3)), "
                             "((4, 2, 3), (3, 2, 3), (3, 2, 3))) for g in (True, 2)] + "
                             "[err(lambda: sdpa(z(2, 3).requires_grad_(), z(2, 3), z(2, 3), enable_gqa=True)), "
                             "err(lambda: torch.nn.functional.scaled_dot_product_attention(z(2, 3), z(2, 3), z(2, 3), enable_gqa=True, dropout_p=0.5))]",
    "nonempty_unchanged": "[geo(sdpa(z(2, 3), z(4, 3), z(4, 5), **kw)) for kw in ({}, dict(is_causal=True), dict(attn_mask=z(2, 4)))]",
}, setup=SETUP, tol="float")

# replication / reflection_pad1d_backward: upstream checks only grad_output.size(dimw) (after, for
# reflection, the padding against self's width) and reads the grad as a contiguous buffer of self's
# leading sizes (garbage or a crash for a smaller grad: ours keeps refusing any other grad shape,
# with upstream's exception type); the width check's wording comes first now; reflection then
# reads self.size(ndim) once the padding has ndim pairs or more (an IndexError).
cases("fuzz_refuse7_pad1d_backward_width_first", {
    "width_checked_first": "[err(lambda: getattr(aten, op).default(z(*g), z(*s), p)) for op in ('replication_pad1d_backward', 'reflection_pad1d_backward') "
                           "for g, s, p in (((2, 2, 5), (2, 3), [1, 1]), ((2, 3, 4), (1, 2, 1), [1, 1]), ((2, 2, 6), (1, 2, 3), [1, 1]), "
                           "((2, 4), (2, 3), [3, 1]), ((2, 3), (1, 2, 1), [1, 1]), ((2, 7), (1, 2, 3), [1, 1]), ((5,), (2, 3), [1, 1]), "
                           "((2, 4), (2, 3), [1, 1]))]",
    "reflection_long_padding": "[err(lambda: aten.reflection_pad1d_backward.default(z(*s), z(*s), pv)) for s in ((2, 3), (1, 2, 3)) "
                               "for n in range(2, 9) for pv in ([0] * n, [1] + [0] * (n - 1), [0] * 40)]",
    "matching_shapes_unchanged": "[geo(getattr(aten, op).default(z(*g), z(*s), p)) for op in ('replication_pad1d_backward', 'reflection_pad1d_backward') "
                                 "for g, s, p in (((2, 5), (2, 3), [1, 1]), ((1, 2, 6), (1, 2, 3), [2, 1]), ((2, 3), (2, 3), [0, 0]))]",
}, setup=SETUP)
