"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream 2.13.0 runs
(session 39, group "refuse", sixth pass), compared with upstream by value, dtype, shape and
strides, plus the neighbouring refusals the same checks keep (docs/breadth_more2.md "Fuzz corpus:
calls upstream runs, sixth pass"):

- _fused_rms_norm is upstream's rms_norm_composite on CPU: no shape check; the input's last
  len(normalized_shape) dims are reduced (an empty normalized_shape reduces every dim), the weight
  multiplies with broadcasting and promotion, the result is cast back to the input's dtype.
- torch.ops takes an int for a Layout (its number in upstream's enum, kept to 8 bits; 8 and up or
  negative: "Unknown layout"); torch.jagged (7) is strided for the dense factories.
- _to_copy / to.dtype_layout read no pin_memory (an unpinned copy on CPU).
- is_pinned(device) reads no device: False for any device type upstream parses (cuda included).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
import warnings
warnings.simplefilter("ignore")
aten = torch.ops.aten
def geo(r):
    if isinstance(r, torch.Tensor):
        return (r, r.stride(), r.layout)
    return [geo(t) for t in r]
x = torch.tensor([[1.5, -2.0, 7.25], [0.5, 3.0, -8.0]])
w = torch.tensor([[0.5, 1.0, -2.0], [3.0, 0.25, 1.5]])
"""

cases("fuzz_refuse6_fused_rms_norm", {
    "normalized_shape_unchecked": "[geo(torch._fused_rms_norm(x, ns, wt, eps)) for ns in ([1, 1], [3], [-1], [0, 0], [], [100], [3, -7], [2, 3]) "
                                  "for wt, eps in ((w, 2.0), (None, None), (w[:, :1], 1e-5))]",
    "weights": "[geo(torch._fused_rms_norm(x, [3], wt, 0.5)) for wt in (torch.tensor(2.0), w.t().contiguous().t()[:, :1], w.double(), w.half(), "
               "torch.tensor([[1, -2, 3]]), torch.tensor([True, False, True]), w.to(torch.complex64), torch.arange(12.).reshape(2, 2, 3))] + "
               "[geo(aten._fused_rms_norm.default(x, [1, 1], torch.tensor([3, 4], dtype=torch.int16).reshape(2, 1), 2.0))]",
    "inputs": "[geo(torch._fused_rms_norm(xi, [4], None, e)) for xi in (x.t(), x.double().t(), x.to(torch.bfloat16).t(), x.half().t(), "
              "torch.arange(24.).reshape(1, 2, 3, 4).to(memory_format=torch.channels_last), torch.empty(0, 3), torch.tensor(2.5)) "
              "for e in (None, 0.25)] + [geo(torch._fused_rms_norm(x.to(torch.complex64) * (1 + 1j), [1], w, 1e-6)), "
              "geo(torch._fused_rms_norm(x.to(torch.complex128), [5, 5], w.float(), None))]",
    "eps_values": "[geo(torch._fused_rms_norm(x, [1, 1], w, e)) for e in (float('inf'), float('nan'), -1.0, 1e308, 2.0 ** 70, 0.0, -0.0)] + "
                  "[geo(torch._fused_rms_norm(x.double(), [7], w, 1e308))]",
    "kernel_case_unchanged": "[geo(torch._fused_rms_norm(x, [3], w[0], 1e-5)), geo(torch._fused_rms_norm(x, [2, 3], w, None)), "
                             "geo(torch.nn.functional.rms_norm(x, [3], w[1])), geo(torch.rms_norm(x.double(), [2, 3]))]",
    "autograd": "xa = x.clone().requires_grad_(); wa = w.clone().requires_grad_(); y, r = torch._fused_rms_norm(xa, [1, 1], wa, 0.5); "
                "y.sum().backward(); [geo(y.detach()), geo(r.detach()), y.grad_fn is not None, xa.grad, wa.grad]",
    "still_refused": "[err(lambda: torch._fused_rms_norm(x.long(), [1, 1], w, 2.0)), err(lambda: torch._fused_rms_norm(x.to(torch.complex32), [3], None, 2.0)), "
                     "err(lambda: torch._fused_rms_norm(x.to(torch.float8_e5m2), [3], None, 2.0)), "
                     "err(lambda: torch._fused_rms_norm(x, [1, 1, 1], w, 2.0)), err(lambda: torch._fused_rms_norm(x, [1] * 5, w, 2.0)), "
                     "err(lambda: torch._fused_rms_norm(x, [3], torch.ones(5, 5), 2.0)), "
                     "err(lambda: torch.nn.functional.rms_norm(x, [1, 1], w)), err(lambda: torch.rms_norm(x, [3], w))] + "
                     "[err(lambda: torch._fused_rms_norm(xi, ns, wi, 2.0)) for ns in ([1, 1], [3]) for xi, wi in "
                     "((x, w.to('meta')), (x.to('meta'), w), (x.to('meta'), w[0]), (x, w[0].to('meta')))] + "
                     "[geo(torch._fused_rms_norm(x.to('meta'), [1, 1], torch.tensor(2.0), 2.0)).__len__()]",
}, setup=SETUP, tol="float")   # the kernel case rounds differently from upstream's composite steps (an ulp)

cases("fuzz_refuse6_layout_int", {
    "strided_and_jagged_numbers": "[geo(f(lay)) for lay in (0, 7, 2 ** 40, 263) for f in ("
                                  "lambda l: aten.zeros.default([2, 3], layout=l), lambda l: aten.zeros_like.default(x, layout=l), "
                                  "lambda l: aten.empty_strided.default([2, 3], [1, 2], layout=l).fill_(1), lambda l: aten.arange.default(4, layout=l), "
                                  "lambda l: aten.arange.start_step(1, 9, 3, layout=l), lambda l: aten.eye.m(2, 3, layout=l), "
                                  "lambda l: aten.full_like.default(x, 2.5, layout=l), lambda l: aten.ones_like.default(x, layout=l), "
                                  "lambda l: aten.linspace.default(0, 1, 5, layout=l), lambda l: aten.logspace.default(0, 1, 3, layout=l), "
                                  "lambda l: aten.scalar_tensor.default(3, layout=l), lambda l: aten.hann_window.periodic(5, False, layout=l), "
                                  "lambda l: aten.kaiser_window.beta(4, True, 2.0, layout=l), lambda l: aten.fft_fftfreq.default(4, layout=l), "
                                  "lambda l: aten.fft_rfftfreq.default(5, 2.0, layout=l), lambda l: aten.full.default([2], 7, layout=l), "
                                  "lambda l: aten.empty_like.default(x, layout=l).shape, lambda l: aten.randperm.default(4, layout=l).sort().values)]",
    "torch_jagged": "[geo(torch.zeros(2, 3, layout=torch.jagged)), geo(torch.ones_like(x, layout=torch.jagged)), "
                    "geo(torch.arange(3, layout=torch.jagged)), geo(torch.eye(2, layout=torch.jagged)), "
                    "geo(torch.full((2,), 3.0, layout=torch.jagged)), geo(torch.bartlett_window(4, layout=torch.jagged)), "
                    "geo(x.new_zeros(3, layout=torch.jagged)), geo(torch.linspace(0, 1, 3, layout=torch.jagged))]",
    "other_numbers": "[geo(aten.zeros.default([2, 3], layout=1)), geo(aten.zeros.default([2], layout=True))]",
    "refused": "[err(lambda: f(x, layout=l)) for f in (aten._to_copy.default, aten.to.dtype_layout) for l in (7, 2)] + "
               "[err(lambda: aten.arange.default(2, layout=2 ** 70))[0], err(lambda: aten.arange.default(2, layout=2.0))[0], "
               "err(lambda: aten._to_copy.default(x, layout=torch.jagged)), err(lambda: x._to_sparse(layout=7)), "
               "err(lambda: x.to_sparse(layout=torch._mkldnn)), err(lambda: x.to_sparse()._to_sparse(layout=torch.jagged)), "
               "err(lambda: x.to_sparse_csr()._to_sparse(layout=3)), err(lambda: aten.tril_indices.default(3, 2, layout=7)), "
               "err(lambda: torch.triu_indices(3, 3, layout=torch.jagged)), err(lambda: aten.tril_indices.default(-1, 2, layout=7))] + "
               "[geo(aten.tril_indices.default(3, 2, layout=0)), geo(aten.triu_indices.default(3, 3, 1, layout=2 ** 40))]",
}, setup=SETUP)

# a number past upstream's last layout: "Unknown layout" when parsed; upstream's dispatch trace
# (a TorchDispatchMode handing the argument to Python) crashes on such a layout, so untraced
cases("fuzz_refuse6_layout_unknown", {
    "refused": "[err(lambda: aten.zeros.default([2], layout=l)) for l in (8, -1, 127, 255)] + "
               "[err(lambda: f(x, layout=8)) for f in (aten._to_copy.default, aten.to.dtype_layout)] + "
               "[err(lambda: aten.zeros_like.default(x, layout=-3)), err(lambda: aten.empty_strided.default([2], [1], layout=100))]",
}, setup=SETUP, traced=False)

cases("fuzz_refuse6_to_copy_pin_memory", {
    "unpinned_copy": "[(geo(r), r.is_pinned(), r is x) for r in (aten._to_copy.default(x, pin_memory=True), "
                     "aten._to_copy.default(x, dtype=torch.float64, pin_memory=True), aten.to.dtype_layout(x, pin_memory=True), "
                     "aten.to.dtype_layout(x, dtype=torch.int32, pin_memory=True), aten._to_copy.default(x, pin_memory=2), "
                     "aten.to.dtype_layout(x.t(), dtype=torch.float64, pin_memory=0.5))]",
    "still_refused": "[err(lambda: torch.empty(3, pin_memory=True)), err(lambda: torch.zeros_like(x, pin_memory=True)), "
                     "err(lambda: aten.empty.memory_format([2], pin_memory=True))]",
}, setup=SETUP)

cases("fuzz_refuse6_is_pinned_device", {
    "any_device_false": "[x.is_pinned(d) for d in ('cuda', torch.device('cuda', 1), 'xpu', 'mps', 'cpu', 'meta', 'vulkan', 'mkldnn', 'cuda:3')] + "
                        "[aten.is_pinned.default(x, 'cuda'), x.to('meta').is_pinned(device='hip'), x.is_pinned(None)]",
    "still_refused": "[err(lambda: x.is_pinned('foo')), err(lambda: x.is_pinned('cuda:x')), err(lambda: x.is_pinned(3.5))]",
}, setup=SETUP)
