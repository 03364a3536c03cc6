"""Calls of the no-crash corpus (tests/test_no_crash.py) on meta tensors whose outcome differed from
upstream 2.13.0 (session 40, second round, group "meta2"), compared with upstream by exception type
and message, or by the result's shape, strides, storage offset, dtype and device
(docs/breadth_more2.md "Fuzz corpus: group meta2 (session 40)"). Upstream's Meta kernels:

- as_strided / as_strided_copy / as_strided_scatter: no storage bounds check on meta (a meta
  storage has no bytes); negative strides, a negative offset and the in-place as_strided_ still
  refuse. Later ops on such a view run too.
- celu / celu_: the reference checks alpha's Python type against self's dtype
  (ValueError "alpha argument of type <class 'complex'> cannot be safely cast ..."); a zero alpha
  runs, and an integer, bool or complex self too (in its dtype).
- reflection_pad2d_backward / replication_pad2d_backward: the meta function unpacks the padding in
  fours (ValueError), reads self's height and width from its shape (IndexError), compares
  grad_output's width and height, and checks nothing else - its refusals also next to a CPU
  tensor.
- grid_sampler_2d: the decomposition checks the modes, then unpacks input's and grid's shapes in
  fours (ValueError) - also next to a CPU tensor.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def geo(r):
    if isinstance(r, torch.Tensor):
        return (tuple(r.shape), r.stride(), r.storage_offset(), r.dtype, r.device.type)
    if isinstance(r, (list, tuple)):
        return [geo(t) for t in r]
    return r
def run(f):
    try:
        return geo(f())
    except Exception as e:
        return (type(e).__name__, str(e))
def M(*s, dtype=torch.float32):
    return torch.empty(*s, dtype=dtype, device="meta")
m = M(2, 3)
c = torch.zeros(2, 3)
"""

cases("fuzz_meta9_as_strided", {
    "view_past_storage": "[run(lambda: f(m, [2, 3], [3, 1], off)) for f in (aten.as_strided.default, aten.as_strided_copy.default, "
                         "torch.as_strided, torch.as_strided_copy) for off in (2, 3, 33, 0, -1)]",
    "strides": "[run(lambda: f(m, s, st, 1)) for f in (aten.as_strided.default, aten.as_strided_copy.default) "
               "for s, st in (([2, 3], [3, 2]), ([3, 2], [1, 3]), ([2, 3], [-3, 1]), ([4, 4], [100, 7]), ([0, 3], [1000, 1]))]",
    "method_and_storage": "v = m.as_strided([2, 3], [3, 1], 33); [geo(v), v.untyped_storage().nbytes()]",
    "ops_on_the_view": "v = m.as_strided([3, 2], [1, 3], 33); [run(lambda: v + 1), run(lambda: v.sum()), run(lambda: v.contiguous()), "
                       "run(lambda: v.clone()), run(lambda: v.t().mm(M(3, 4)))]",
    # a view far past its storage: the stand-ins' zero pages are allocated, not touched
    "large_offset": "v = aten.as_strided.default(m, [2, 3], [3, 1], 2**26); [geo(v), run(lambda: v + 1), "
                    "run(lambda: aten.as_strided_copy.default(m, [2, 3], [3, 1], 2**26)), "
                    "run(lambda: aten.as_strided_scatter.default(m, m, [2, 3], [3, 1], 2**26))]",
    "inplace_refuses": "[run(lambda: M(2, 3).as_strided_([2, 3], [3, 1], 33)), run(lambda: M(2, 3).as_strided_([2, 3], [3, 1], 0))]",
    "scatter": "[run(lambda: aten.as_strided_scatter.default(m, src, [2, 3], st, off)) for src in (M(2, 3), c) "
               "for st in ([3, 1], [3, 2]) for off in (None, 2, 33)]",
}, setup=SETUP)

cases("fuzz_meta9_celu", {
    "alpha_types": "[run(lambda: f(M(2, 3, dtype=dt), al)) for f in (aten.celu.default, aten.celu_.default, torch.celu, torch.celu_) "
                   "for dt in (torch.float32, torch.float16, torch.int64, torch.bool, torch.complex64) "
                   "for al in (1j, 2.5, 2, True)]",
    "zero_alpha": "[run(lambda: f(M(2, 3), al)) for f in (aten.celu.default, aten.celu_.default) for al in (0, 0.0)]",
    # a CPU celu keeps its own refusals (alpha 0, a complex alpha)
    "cpu": "[run(lambda: aten.celu.default(c, al)) for al in (1j, 0, 2.0)]",
}, setup=SETUP)

cases("fuzz_meta9_pad2d_backward", {
    "padding_and_ranks": "[run(lambda: f(g, x, p)) for f in (aten.reflection_pad2d_backward.default, aten.replication_pad2d_backward.default) "
                         "for g, x in ((m, m), (M(3), M(3)), (M(1, 4, 5), M(1, 2, 3)), (M(1, 4, 4), M(1, 2, 3)), (M(3), M(1, 2, 3))) "
                         "for p in ([1, 1], [1, 1, 1], [1, 1, 1, 1, 1], [], [1, 1, 1, 1])]",
    "next_to_cpu": "[run(lambda: f(g, x, p)) for f in (aten.reflection_pad2d_backward.default, aten.replication_pad2d_backward.default) "
                   "for g, x in ((c, m), (m, c)) for p in ([1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1])]",
}, setup=SETUP)

cases("fuzz_meta9_grid_sampler_2d", {
    "ranks_and_modes": "[run(lambda: aten.grid_sampler_2d.default(x, g, im, pm, False)) "
                       "for x, g in ((m, m), (M(1, 2, 2), M(1, 2, 2, 2)), (M(1, 1, 2, 2), M(2, 2, 2)), (M(1, 1, 2, 2, 1), M(1, 2, 2, 2)), "
                       "(M(1, 1, 2, 2), M(1, 2, 2, 2))) for im, pm in ((1, 1), (0, 0), (5, 1), (1, 7), (3, 3))]",
    "next_to_cpu": "[run(lambda: aten.grid_sampler_2d.default(x, g, 1, 1, False)) for x, g in ((m, c), (c, m))]",
}, setup=SETUP)
