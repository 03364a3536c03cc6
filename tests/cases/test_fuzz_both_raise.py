"""No-crash corpus calls both sides refuse, with upstream's exception type and message: the order of
upstream's checks (docs/breadth_more2.md "Fuzz corpus exception types"; tests/test_no_crash.py compares
the whole corpus's types).

- histc: the out= dtype, the bin count, the input's extrema for an empty range (aminmax: no complex),
  the range, linspace (no bool), then the kernel's dtypes.
- histogram (bin count): the out= dtypes, the count, the outer edges, linspace, the weight;
  _histogramdd_bin_edges / _from_bin_cts: the rank, the outer edges (the extrema: f32 / f64 only),
  the number of counts, linspace (negative steps), then the edges' lengths, the weight and the kernel;
  any meta argument: upstream has no Meta kernel.
- linspace: a dtype without a kernel refuses two steps or more only.
- gcd / lcm / igamma / logaddexp2 (no float kernel): broadcasting and the in-place shape first.
- elu / leaky_relu / hardshrink / threshold out=: the out dtype before the dtype dispatch;
  rrelu_with_noise.out (not training) is leaky_relu.out.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
def T(*s, dtype=torch.float32):
    n = 1
    for k in s:
        n *= k
    return (torch.arange(n, dtype=torch.float64) * 0.37 - 1.1).reshape(s).to(dtype)
a = torch.ops.aten
f, d = T(2, 3), T(2, 3, dtype=torch.float64)
DT = [torch.float32, torch.bfloat16, torch.float16, torch.bool, torch.int64, torch.complex64]
"""

cases("fuzz_both_raise", {
    "histc_order": "[err(lambda: a.histc.default(T(2, 3, dtype=t), b, *mm)) for t in DT for b in [-1, 1] for mm in [(), (2, 1), (0, 1), (0, float('inf'))]]",
    "histc_out_order": "[err(lambda: a.histc.out(T(2, 3, dtype=t), b, out=o)) for t in DT for b in [-1, 1] for o in [T(2, 3), T(0, dtype=t)]]",
    "histc_values": "torch.histc(f, 4), torch.histc(d, 3, -1, 1), torch.histc(T(0), 2)",
    "histogram_bin_ct_out_order": "[err(lambda: a.histogram.bin_ct_out(T(2, 3, dtype=t), b, hist=h, bin_edges=e)) for t in DT for b in [-1, 1] "
                                  "for h, e in [(T(2, 3), T(2, 3)), (T(2, 3, dtype=t), T(2, 3)), (T(0, dtype=t), T(0, dtype=t))]]",
    "histogram_values": "torch.histogram(f, 3), torch.histogram(f, 2, range=(0., 1.), weight=T(2, 3)), torch.histogram(d, d.flatten().sort().values)",
    "histogram_weight_after_bins": "[err(lambda: torch.histogram(f, b, weight=w)) for b in [-1, 2] for w in [T(5), T(6, dtype=torch.float64)]]",
    "histogramdd_pieces_order": "[err(lambda: op(T(*s, dtype=t), b, **kw)) for op in [a._histogramdd_bin_edges.default, a._histogramdd_from_bin_cts.default] "
                                "for t in DT for s in [(2, 3), (3,), (0, 3)] for b in [[1, 1, 1], [1, 1], [-1, -1, -1], [0, 1, 2], [-3, 1, 1]] "
                                "for kw in [{}, {'range': [0., 1.] * 3}, {'weight': T(5)}]]",
    "histogramdd_order": "[err(lambda: torch.histogramdd(T(2, 3, dtype=t), b)) for t in DT for b in [[-1, -1], [1, 1, 1], -33, 2]]",
    "histogramdd_bin_tensors_order": "[err(lambda: a._histogramdd_from_bin_tensors(T(*s), bs, weight=w)) for s in [(3,), (2, 3)] "
                                     "for bs in [[T(2)], [T(2)] * 3, [T(2), T(1), T(2)]] for w in [None, T(5), T(2)]]",
    "histogram_meta": "m = torch.ones(2, 3, device='meta'); [err(g) for g in [lambda: a.histogram.bin_ct(f, weight=m), "
                      "lambda: torch.histogramdd(m, [1, 1, 1]), "
                      "lambda: a._histogramdd_bin_edges(m, [0, 1, 2]), lambda: a.histogram.bins_tensor(f, f.flatten(), weight=m)]]",
    "gcd_family_shapes_first": "[err(lambda: g(x, y)) for g in [torch.gcd, torch.lcm, torch.igamma, torch.igammac, torch.logaddexp2, "
                               "torch.Tensor.gcd_, torch.Tensor.lcm_, torch.Tensor.igamma_] for x, y in [(T(0, 3), f), (f, T(0, 3)), (T(), f), (f, f), (T(2, 3).expand(2, 3), f)]]",
    "gcd_out_shapes_first": "[err(lambda: g(x, y, out=T(2, 3))) for g in [torch.gcd, torch.lcm, torch.logaddexp2] for x, y in [(T(0, 3), f), (f, f)]]",
    "activation_out_dtype_first": "c = T(2, 3, dtype=torch.complex32); [err(g) for g in [lambda: a.elu.out(c, alpha=-1, out=f), lambda: a.hardshrink.out(c, -1, out=f), "
                                  "lambda: a.leaky_relu.out(c, -1, out=f), lambda: a.threshold.out(c, 1, 2, out=f), lambda: a.softshrink.out(c, 0.5, out=f), "
                                  "lambda: a.elu.out(T(2, 3, dtype=torch.int64), out=f)]]",
    "rrelu_with_noise_out_eval": "[err(lambda: a.rrelu_with_noise.out(T(2, 3, dtype=t), f, lower=-1, out=o)) for t in DT for o in [T(2, 3), T(2, 3, dtype=t)]], "
                                 "a.rrelu_with_noise.out(f, f.clone(), 0.1, 0.3, out=torch.empty(2, 3))",
}, setup=SETUP)
