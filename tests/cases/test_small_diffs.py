"""Small differences from upstream 2.13.0, each measured on .venv-ref:

- torch._C._set_autograd_fallback_mode / _get_autograd_fallback_mode: "warn" (default) or
  "nothing"; "error" is refused (NYI), any other string asserts, a non-str is pybind's TypeError.
  In "nothing" an operator without an autograd kernel (quantized::) runs with no node: its output
  does not require grad (src/python/runtime_flags.c, src/autograd/record.c fallback_call).
- torch.empty(..., memory_format=torch.preserve_format): "unsupported memory format Preserve"
  (src/ops/create.c).
- torch.sparse_coo_tensor with sparse values or indices: upstream's SparseCPU kernel of
  _sparse_coo_tensor_with_dims_and_tensors checks the dims, then refuses the layout
  (src/ops/sparse.c); _validate_sparse_coo_tensor_args's dims message.
- a Python int in [2**63, 2**64) as a Scalar is an unsigned (uint64) Scalar: result_type and
  where promote it as uint64 (src/ops/common.c tn_number_dtype, src/ops/pointwise.c where_sc).
- rand_like / randn_like / randint_like honour memory_format (a format given lays the result out as
  empty_like does, rank checks included; the values drawn are upstream's) (src/ops/random.c);
  resize_ with preserve_format: "Unsupported memory formatPreserve" (upstream's words), and
  resize_as_ with preserve_format takes the template's suggested format (src/ops/misc_ops.c);
  _empty_affine_quantized / _empty_per_channel_affine_quantized without a quantized dtype (the
  default dtype when none is given) refuse first (src/ops/qtensor.c).
"""
from harness import cases
from harness.autograd import ERR, GRAPH

FALLBACK = GRAPH + ERR + """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
p = Q.linear_prepack(torch.quantize_per_tensor(torch.randn(3, 4), 0.1, 0, torch.qint8), None)
x = torch.randn(2, 4, requires_grad=True)
def under(mode, f):
    prev = torch._C._get_autograd_fallback_mode()
    torch._C._set_autograd_fallback_mode(mode)
    try:
        return f()
    finally:
        torch._C._set_autograd_fallback_mode(prev)
def run(f):
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        r = err(f)
    return r, [str(w.message)[:60] for w in ws]
"""

cases("autograd_fallback_mode", {
    "default": "torch._C._get_autograd_fallback_mode()",
    "set_get": "[under(m, torch._C._get_autograd_fallback_mode) for m in ('nothing', 'warn')], torch._C._get_autograd_fallback_mode()",
    "refused": "[err(lambda: torch._C._set_autograd_fallback_mode(m)) for m in ('error', 'bogus', '')], torch._C._get_autograd_fallback_mode()",
    "not_str": "err(lambda: torch._C._set_autograd_fallback_mode(1)), err(lambda: torch._C._set_autograd_fallback_mode(None)), err(lambda: torch._C._get_autograd_fallback_mode(1))[0], torch._C._set_autograd_fallback_mode.__doc__, torch._C._get_autograd_fallback_mode.__doc__",
    "nothing_quantized": """
y = under('nothing', lambda: Q.linear_dynamic(x, p))
y.grad_fn, y.requires_grad, y.is_leaf, run(lambda: y.sum().backward()), x.grad""",
    "warn_quantized": """
y = under('warn', lambda: Q.linear_dynamic(x, p))
graph(y), y.requires_grad, run(lambda: y.sum().backward()), x.grad""",
    "nothing_then_warn_again": """
under('nothing', lambda: Q.linear_dynamic(x, p))
graph(Q.linear_dynamic(x, p))""",
}, setup=FALLBACK, vars=False)

cases("empty_preserve_format", {
    "empty": "err(lambda: torch.empty(2, memory_format=torch.preserve_format))",
    "empty_4d": "err(lambda: torch.empty(2, 3, 4, 5, memory_format=torch.preserve_format))",
    "empty_dtype": "err(lambda: torch.empty((2, 3), dtype=torch.int64, memory_format=torch.preserve_format))",
    "empty_meta": "err(lambda: torch.empty(2, device='meta', memory_format=torch.preserve_format))",
    "like_kept": "[f(torch.ones(2, 3), memory_format=torch.preserve_format).shape for f in (torch.empty_like, torch.zeros_like, torch.ones_like)]",
    "sparse_layout_kept": "torch.empty(2, layout=torch.sparse_coo, memory_format=torch.preserve_format)",
}, setup=ERR, vars=False)

SPARSE = ERR + """
import warnings
warnings.simplefilter("ignore")
i = torch.tensor([[0, 1]])
vs = torch.ones(2, 2).to_sparse()
"""

cases("sparse_coo_sparse_values", {
    "values_sized": "err(lambda: torch.sparse_coo_tensor(i, vs, (3, 2)))",
    "values_inferred_size": "err(lambda: torch.sparse_coo_tensor(i, vs))",
    "values_small_size": "err(lambda: torch.sparse_coo_tensor(i, vs, (1, 2)))",
    "values_dims_first": "err(lambda: torch.sparse_coo_tensor(i, vs, (3, 2, 2)))",
    "values_too_few_dims": "err(lambda: torch.sparse_coo_tensor(i, vs, (3,)))",
    "values_coalesced_flag": "err(lambda: torch.sparse_coo_tensor(i, vs, (3, 2), is_coalesced=True))",
    "values_checked": "[err(lambda: torch.sparse_coo_tensor(i, vs, s, check_invariants=True)) for s in ((3, 2), (1, 2), (3, 2, 2))]",
    "indices_sparse": "err(lambda: torch.sparse_coo_tensor(i.to_sparse(), torch.ones(2), (3,)))",
    "both_sparse": "err(lambda: torch.sparse_coo_tensor(i.to_sparse(), vs, (3, 2)))",
    "validate_dims": "[err(lambda: torch._validate_sparse_coo_tensor_args(i, v, (3, 2, 2))) for v in (torch.ones(2, 2), vs)]",
    "dense_dims_checked": "err(lambda: torch.sparse_coo_tensor(i, torch.ones(2, 2), (3, 2, 2), check_invariants=True))",
}, setup=SPARSE, vars=False)

UNSIGNED = ERR + """
import warnings
warnings.simplefilter("ignore")
B = 2 ** 63
c = torch.tensor([True, False])
def r(f):
    try:
        v = f()
    except Exception as e:
        return (type(e).__name__, str(e))
    return (v.dtype, v.tolist()) if isinstance(v, torch.Tensor) else v
"""

cases("unsigned_scalar", {
    "result_type_numbers": "[r(lambda: torch.result_type(B, o)) for o in (1, B, True, 1.5, 1 + 2j, 2 ** 64 - 1)]",
    "result_type_tensor": """
[r(lambda: torch.result_type(t, B)) for t in (torch.tensor([1]), torch.tensor([1.]), torch.tensor([1], dtype=torch.uint64),
                                        torch.tensor(1), torch.tensor(True), torch.tensor([True]), torch.tensor([1], dtype=torch.uint8))]""",
    "result_type_edges": "r(lambda: torch.result_type(2 ** 64, 1)), r(lambda: torch.result_type(-2 ** 63, 1)), r(lambda: torch.result_type(B - 1, 1))",
    "where_scalars": "[r(lambda: torch.where(c, B, o)) for o in (1, B, 1.5, True, 1 + 2j, 2 ** 64 - 1)]",
    "where_scalar_other": """
[r(lambda: torch.where(c, t, B)) for t in (torch.tensor([1, 2]), torch.tensor([1., 2]), torch.tensor([1, 2], dtype=torch.uint64),
                                        torch.tensor([1, 2], dtype=torch.uint8), torch.tensor(1))]""",
    "where_scalar_self": "[r(lambda: torch.where(c, B, t)) for t in (torch.tensor([1, 2]), torch.tensor(1.5), torch.tensor([1, 2], dtype=torch.uint64))]",
    "add": """
[r(lambda: torch.add(t, B)) for t in (torch.tensor([1]), torch.tensor([1.]), torch.tensor([1], dtype=torch.uint64))], r(lambda: torch.tensor([1]) + B), r(lambda: torch.tensor([1.]) * B)""",
    "factories": """
r(lambda: torch.full((2,), B)), r(lambda: torch.full((2,), B, dtype=torch.uint64)), r(lambda: torch.tensor(B)), r(lambda: torch.tensor([B, 1])), r(lambda: torch.scalar_tensor(B))""",
    "fill": "[r(lambda: torch.zeros(2, dtype=d).fill_(B)) for d in (torch.uint64, torch.float32, torch.int64)]",
    "bool_and_narrow": """
[r(f) for f in (lambda: torch.tensor([True]) + B, lambda: torch.tensor(True) + B, lambda: torch.tensor([True]) < B,
                lambda: torch.tensor([True]) * B, lambda: torch.clamp(torch.tensor([True]), max=B),
                lambda: torch.clamp(torch.tensor([1]), max=B), lambda: torch.tensor([1], dtype=torch.uint8) + B,
                lambda: torch.rsub(torch.tensor([1]), B), lambda: torch.pow(B, torch.tensor([1])))]""",
    "compare_clamp": "r(lambda: torch.tensor([1]) == B), r(lambda: torch.clamp(torch.tensor([1.]), max=B))",
    "searchsorted": "r(lambda: torch.searchsorted(torch.tensor([1, 2]), B)), r(lambda: torch.searchsorted(torch.tensor([1., 2]), B)), r(lambda: torch.bucketize(B, torch.tensor([1, 2])))",
}, setup=UNSIGNED, vars=False)

LIKE = ERR + """
import warnings
warnings.simplefilter("ignore")
x4 = torch.ones(2, 3, 4, 5); cl = x4.to(memory_format=torch.channels_last); x2 = torch.ones(2, 3)
def laid(t):
    return t if isinstance(t, tuple) else (t.shape, t.stride(), t.dtype, t)
"""

cases("like_memory_format", {
    "random_like_channels_last": """
torch.manual_seed(0)
result = [laid(f(x4, memory_format=torch.channels_last)) for f in (torch.randn_like, torch.rand_like)] + \
         [laid(torch.randint_like(x4, 9, memory_format=torch.channels_last))]
""",
    "random_like_contiguous_from_channels_last": """
torch.manual_seed(0)
result = [laid(f(cl, memory_format=torch.contiguous_format)) for f in (torch.randn_like, torch.rand_like)] + \
         [laid(f(cl)) for f in (torch.randn_like, torch.rand_like)]
""",
    "random_like_rank_errors": """
result = [err(lambda: torch.randn_like(x2, memory_format=torch.channels_last)),
          err(lambda: torch.rand_like(x2, memory_format=torch.channels_last_3d)),
          err(lambda: torch.randint_like(x4, 5, memory_format=torch.channels_last_3d))]
""",
    "resize_preserve": "[err(lambda: x2.clone().resize_(3, 2, memory_format=torch.preserve_format)), "
                       "err(lambda: x2.clone().resize_(2, 3, memory_format=torch.preserve_format))]",
    "resize_as_preserve": """
tmpls = (cl, x4, torch.ones(3, 4).t(), torch.ones(1, 2, 3, 4, 5).to(memory_format=torch.channels_last_3d))
result = [laid(src.clone().resize_as_(t, memory_format=torch.preserve_format))[:2]
          for t in tmpls for src in (torch.ones(0), x4, cl)]
""",
    "empty_quantized_dtype": """
result = [err(lambda: torch._empty_affine_quantized([2], scale=0.1, zero_point=0)),
          err(lambda: torch._empty_affine_quantized([2], scale=0.1, zero_point=0, dtype=torch.int8)),
          err(lambda: torch._empty_affine_quantized([-1], scale=0.1, zero_point=0)),
          err(lambda: torch._empty_affine_quantized([2], scale=0.1, zero_point=0, memory_format=torch.channels_last)),
          err(lambda: torch._empty_per_channel_affine_quantized([2], scales=torch.ones(2),
                                                                zero_points=torch.zeros(2, dtype=torch.long), axis=0)),
          torch._empty_per_channel_affine_quantized([2], scales=torch.ones(2), zero_points=torch.zeros(2, dtype=torch.long),
                                                    axis=0, dtype=torch.qint8).dtype]
""",
}, setup=LIKE)
