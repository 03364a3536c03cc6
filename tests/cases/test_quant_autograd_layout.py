"""Two quantization details compared with upstream 2.13.0 (docs/quant_tensors.md):

- autograd through the operators of upstream's other namespaces (quantized::, _quantized::), which
  have no autograd kernel: autograd's basic fallback gives a differentiable output a node of type
  CppFunction named torch::autograd::WarnNotImplemented with an edge per tensor argument; its
  backward warns ("... an autograd kernel was not registered to the Autograd key(s) ...") and
  returns no gradient (src/autograd/record.c fallback_call). Graphs, warnings, gradients and
  errors exact.
- the layout of quantize / dequantize results: upstream's quantizers allocate in the input's
  suggest_memory_format (channels last kept, anything else contiguous; an empty tensor
  contiguous), as do _make_per_tensor_quantized_tensor, clone(preserve_format) and the memory_format
  argument of the _empty_*_quantized factories (src/ops/qtensor.c). Strides always compared.

Values of the quantized Linear / conv outputs are never returned here (their bits are the VNNI
host's, tests/cases/test_quant_dynamic.py), so these cases run on every host."""
from harness import cases
from harness.autograd import ERR, GRAPH

SETUP = GRAPH + ERR + """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
w = torch.randn(3, 4)
b = torch.randn(3)
p = Q.linear_prepack(torch.quantize_per_tensor(w, 0.1, 0, torch.qint8), b)
p16 = Q.linear_prepack_fp16(w, b)
x = torch.randn(2, 4, requires_grad=True)
wc = torch.quantize_per_tensor(torch.randn(6, 4, 3, 3) * 0.3, 0.004, 0, torch.qint8)
pc = Q.conv2d_prepack(wc, None, [1, 1], [0, 0], [1, 1], 1)
xc = torch.randn(1, 4, 5, 5, requires_grad=True)
def node(y):
    f = y.grad_fn
    return (type(f).__name__, f.name(), graph(y), y.requires_grad, y.is_leaf)
def caught(f):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        e = err(f)
    return e, [(w.category.__name__, str(w.message)) for w in ws]
"""

cases("quant_autograd_fallback", {
    "linear_dynamic_node": "node(Q.linear_dynamic(x, p))",
    "linear_dynamic_backward": "y = Q.linear_dynamic(x, p); caught(lambda: y.sum().backward()), x.grad",
    "linear_relu_dynamic": "y = Q.linear_relu_dynamic(x, p, True); node(y), caught(lambda: y.sum().backward()), x.grad",
    "linear_dynamic_fp16": "y = Q.linear_dynamic_fp16(x, p16); node(y), caught(lambda: y.sum().backward()), x.grad",
    "linear_relu_dynamic_fp16": "node(Q.linear_relu_dynamic_fp16(x, p16))",
    "_quantized_namespace": "y = torch.ops._quantized.linear_dynamic(x, p); node(y), caught(lambda: y.sum().backward())",
    "conv2d_dynamic": "y = Q.conv2d_dynamic(xc, pc, False); node(y), caught(lambda: y.sum().backward()), xc.grad",
    "conv1d_dynamic": """
pc1 = Q.conv1d_prepack(torch.quantize_per_tensor(torch.randn(6, 4, 3) * 0.3, 0.004, 0, torch.qint8), None, [1], [0], [1], 1)
y = Q.conv1d_dynamic(torch.randn(2, 4, 7, requires_grad=True), pc1, False); node(y), caught(lambda: y.sum().backward())""",
    "conv_transpose2d_dynamic": """
pt = Q.conv_transpose2d_prepack(torch.quantize_per_tensor(torch.randn(4, 3, 2, 2) * 0.3, 0.004, 0, torch.qint8), None, [1, 1], [0, 0], [0, 0], [1, 1], 1)
node(Q.conv_transpose2d_dynamic(xc, pt, False))""",
    # an edge per tensor argument, None where it does not require grad (the bias not requiring
    # grad: upstream adds a requiring bias with an op of its own, ours fuses it)
    "edges_every_tensor_argument": """
xs, ws_ = x.detach().requires_grad_(), w.clone().requires_grad_()
[graph(Q.linear_dynamic_fp16_unpacked_weight(a, c, b)) for a, c in ((xs, w), (x.detach(), ws_), (xs, ws_))]""",
    "edges_through_history": "graph(Q.linear_dynamic((x * 2)[:, :4], p))",
    "other_paths_still_flow": "y = Q.linear_dynamic(x * 2, p); z = y * 3 + x.sum(); z.sum().backward(); graph(z), x.grad",
    "autograd_grad_unused": "y = Q.linear_dynamic(x, p); err(lambda: torch.autograd.grad(y.sum(), x, retain_graph=True)), torch.autograd.grad(y.sum(), x, allow_unused=True, retain_graph=True), torch.autograd.grad(y.sum(), x, allow_unused=True, materialize_grads=True)",
    "retain_graph_twice": "y = Q.linear_dynamic(x, p); s = y.sum(); s.backward(retain_graph=True); s.backward(); x.grad",
    "node_hooks": """
y = Q.linear_dynamic_fp16_unpacked_weight(x, w, None)
seen = []
y.grad_fn.register_prehook(lambda go: seen.append(("pre", go)))
y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
y.sum().backward()
seen, y.grad_fn.metadata""",
    "output_retain_grad": "y = Q.linear_dynamic(x, p); y.retain_grad(); (y * 2).sum().backward(); y.grad, x.grad",
    "sequence_numbers": "a = x * 2; y = Q.linear_dynamic(a, p); z = y * 2; (y.grad_fn._sequence_nr() - a.grad_fn._sequence_nr(), z.grad_fn._sequence_nr() - y.grad_fn._sequence_nr())",
    "warning_as_error": """
y = Q.linear_dynamic(x, p)
with warnings.catch_warnings():
    warnings.simplefilter("error")
    e = err(lambda: y.sum().backward())
e, x.grad""",
    "no_grad_mode": "with torch.no_grad(): y = Q.linear_dynamic(x, p)\ny.grad_fn, y.requires_grad",
    "no_input_requires_grad": "y = Q.linear_dynamic(x.detach(), p); y.grad_fn, y.requires_grad",
    "non_tensor_output": "q = Q.linear_prepack_fp16(w.clone().requires_grad_(), None); type(q).__name__",
    "err_double_input": "err(lambda: Q.linear_dynamic(x.double(), p))",
}, setup=SETUP, vars=False)

# aten ops without a derivatives.yaml entry (upstream's autogradNotImplementedFallback): a
# NotImplemented node whose edges are only the tensors requiring grad; backward raises
cases("aten_no_derivative", {
    "edges_requiring_only": "x = torch.rand(2, 4, requires_grad=True); y = torch.rand(2, 4); r = torch._chunk_cat([x, y], 1, 2); graph(r), graph(torch._chunk_cat([y, x * 2, y], 1, 2)), err(lambda: r.sum().backward())",
    "foreach_mixed_lists": "x = torch.rand(3, requires_grad=True); y = torch.rand(3); [graph(t) for t in torch._foreach_addcmul([x, y], [y, x], [y, y], torch.tensor([1., 2.]))]",
    "embedding_bag_forward_only_integer_outputs": "w = torch.randn(10, 3, requires_grad=True); [err(lambda: torch.ops.aten._embedding_bag_forward_only(w, torch.tensor([1, 2, 4], dtype=t), torch.tensor([0, 1], dtype=t))) for t in (torch.int32, torch.int64)], w.grad",
}, setup=GRAPH + ERR, vars=False)

LAYOUT = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
x = torch.randn(1, 4, 5, 5)
cl = x.contiguous(memory_format=torch.channels_last)
cl3 = torch.randn(2, 3, 2, 4, 5).contiguous(memory_format=torch.channels_last_3d)
qt = lambda t: torch.quantize_per_tensor(t, 0.1, 3, torch.quint8)
qc = lambda t, ax=1: torch.quantize_per_channel(t, torch.rand(t.shape[ax]).double() + 0.05, torch.zeros(t.shape[ax], dtype=torch.long), ax, torch.qint8)
def f(t):
    return t, t.stride()
def d(q):
    r = torch.dequantize(q)
    return r, r.stride(), q.int_repr(), q.stride()
"""

cases("quant_layout", {
    "dequantize_channels_last": "d(qt(x).contiguous(memory_format=torch.channels_last)), f(qt(x).contiguous(memory_format=torch.channels_last).dequantize())",
    "quantize_channels_last": "d(qt(cl)), d(torch.quantize_per_tensor(cl, 0.1, 0, torch.qint32)), d(torch.quantize_per_tensor(cl, torch.tensor(0.1), torch.tensor(2), torch.qint8))",
    "quantize_channels_last_3d": "d(qt(cl3)), d(qc(cl3)), d(qc(cl3, 0))",
    "quantize_list": "[d(q) for q in torch.quantize_per_tensor([cl, cl3], torch.tensor([0.1, 0.2]), torch.tensor([2, 1]), torch.quint8)]",
    "dequantize_list": "[f(t) for t in torch.dequantize([qt(cl), qt(torch.randn(3, 4)).t()])]",
    "per_channel_channels_last": "d(qc(cl)), d(qc(cl, 0)), d(qc(x).contiguous(memory_format=torch.channels_last))",
    "err_per_channel_channels_last_axis_2": "qc(cl, 2)",
    "err_per_channel_channels_last_axis_3": "qc(cl, 3)",
    "err_per_channel_channels_last_3d_axis_4": "qc(cl3, 4)",
    "per_channel_ambiguous_layouts": "[d(qc(torch.randn(*s), a)) for s in [(2, 3, 1, 1), (1, 1, 2, 2), (2, 1, 3, 3), (2, 3, 1, 1, 1)] for a in range(len(s))]",
    "quantize_dynamic": "d(torch.quantize_per_tensor_dynamic(cl, torch.quint8, False)), d(torch.quantize_per_tensor_dynamic(cl3, torch.qint8, True))",
    "other_layouts_contiguous": "d(qt(torch.randn(3, 4)).t()), d(qt(torch.randn(2, 3, 4).permute(2, 0, 1))), d(qt(torch.randn(2, 3, 4, 5).permute(0, 2, 3, 1))), d(qt(torch.randn(4, 6))[:, ::2]), d(qt(torch.randn(4, 1)).expand(4, 3))",
    "non_dense_channels_last": "d(qt(torch.randn(200)).as_strided((2, 3, 4, 5), (100, 1, 24, 4))), d(qt(torch.randn(60)).as_strided((1, 3, 4, 5), (60, 1, 15, 3)))",
    "size_one_dims": "d(qt(torch.randn(2, 1, 4, 5)).as_strided((2, 1, 4, 5), (20, 1, 5, 1))), d(qt(torch.randn(2, 3, 1, 1)).as_strided((2, 3, 1, 1), (3, 1, 3, 3))), d(qt(torch.randn(2, 1, 4, 5).contiguous(memory_format=torch.channels_last)))",
    "empty_channels_last": "d(qt(torch.randn(0, 3, 2, 2)).contiguous(memory_format=torch.channels_last)), d(qt(torch.randn(0, 3, 2, 2).contiguous(memory_format=torch.channels_last)))",
    "zero_dim": "d(qt(torch.tensor(1.5)))",
    "make_per_tensor": "d(torch._make_per_tensor_quantized_tensor(cl.mul(10).to(torch.uint8), 0.1, 2))",
    "make_per_channel_contiguous": "d(torch._make_per_channel_quantized_tensor(cl.mul(10).to(torch.int8), torch.ones(4).double(), torch.zeros(4, dtype=torch.long), 1))",
    "clone_formats": "q = qt(cl); [q.clone().stride(), q.clone(memory_format=torch.preserve_format).stride(), q.clone(memory_format=torch.contiguous_format).stride(), q.contiguous().stride(), qt(x).clone(memory_format=torch.channels_last).stride()]",
    "empty_affine_memory_format": "[torch._empty_affine_quantized(s, scale=0.1, zero_point=2, dtype=torch.quint8, memory_format=m).stride() for s, m in [([2, 3, 4, 5], torch.channels_last), ([2, 3, 4, 5], None), ([2, 3, 4, 5, 6], torch.channels_last_3d), ([2, 3, 4, 5], torch.contiguous_format)]]",
    "empty_per_channel_memory_format": "torch._empty_per_channel_affine_quantized([2, 3, 4, 5], scales=torch.ones(3).double(), zero_points=torch.zeros(3, dtype=torch.long), axis=1, dtype=torch.qint8, memory_format=torch.channels_last).stride()",
    "err_empty_affine_rank": "torch._empty_affine_quantized([2, 3, 4], dtype=torch.quint8, memory_format=torch.channels_last)",
    "err_empty_affine_rank_3d": "torch._empty_affine_quantized([2, 3, 4, 5], dtype=torch.quint8, memory_format=torch.channels_last_3d)",
    "err_empty_affine_preserve": "torch._empty_affine_quantized([2, 3, 4, 5], dtype=torch.quint8, memory_format=torch.preserve_format)",
    "err_quantize_axis_negative": "qc(x, -1)",
    "profiler_events": """
with torch.profiler.profile() as prof:
    q = qt(cl)
    r = q.dequantize()
sorted((e.key, e.count) for e in prof.key_averages())""",
}, setup=LAYOUT, strides=True)
