"""Strided nested tensors (torch.nested's default layout, upstream's NestedTensorImpl; src/ops/nested.c,
docs/nested_strided.md): construction, metadata, unbind / to_padded_tensor, the elementwise, shape
and matrix ops upstream's NestedTensorCPU key registers, printing, upstream's errors, and
nn.TransformerEncoder's inference fast path, which turns a padded batch and its key padding mask
into a nested tensor (_nested_tensor_from_mask) and runs _transformer_encoder_layer_fwd on it.
A nested result is compared through `d(nt)`: its components, nested sizes / strides / offsets,
dim, dtype, contiguity and repr (the harness reads dense tensors only)."""
from harness import cases

SETUP = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
a = torch.randn(2, 3)
b = torch.randn(4, 3)
nt = torch.nested.nested_tensor([a, b])
nt64 = torch.nested.nested_tensor([a, b], dtype=torch.float64)
def d(t, text=True):
    if not (isinstance(t, torch.Tensor) and t.is_nested):
        return t
    # the metadata as lists: upstream shares its size tensors between results (an implementation detail)
    return (t.unbind(), t._nested_tensor_size().tolist(), t._nested_tensor_strides().tolist(),
            t._nested_tensor_storage_offsets().tolist(),
            t.dim(), t.dtype, t.layout, t.is_contiguous(), t.requires_grad, repr(t) if text else None)
"""

cases("nested_make", {
    "list": "d(nt)",
    "float64": "d(nt64)",
    "first_dtype_wins": "d(torch.nested.nested_tensor([a.int(), b]))",
    "scalars": "d(torch.nested.nested_tensor([[1., 2.], [3.]]))",
    "ints": "d(torch.nested.nested_tensor([1, 2]))",
    "zero_dim": "d(torch.nested.nested_tensor([torch.tensor(1.), torch.tensor(2.)]))",
    "three_d": "d(torch.nested.nested_tensor([torch.randn(2, 3, 4), torch.randn(1, 5, 4)]))",
    "copies": "x = a.clone(); n = torch.nested.nested_tensor([x]); x.zero_(); d(n)",
    "requires_grad": "n = torch.nested.nested_tensor([a, b], requires_grad=True); n.requires_grad, n.is_leaf, n.grad_fn, repr(n)",
    "requires_grad_forward": "n = torch.nested.nested_tensor([a, b], requires_grad=True); r = n * 2; repr(r), r.grad_fn.name(), r.requires_grad, type(n.softmax(-1).grad_fn).__name__",
    "backward_mul": "n = torch.nested.nested_tensor([a, b], requires_grad=True); (n * 2).to_padded_tensor(0.).sum().backward(); d(n.grad)",
    "backward_relu_add": "n = torch.nested.nested_tensor([a, b], requires_grad=True); (n + n).relu().to_padded_tensor(0.).sum().backward(); d(n.grad)",
    "as_nested_list": "d(torch.nested.as_nested_tensor([a, b]))",
    "as_nested_tensor": "d(torch.nested.as_nested_tensor(torch.randn(2, 3, 4)))",
    "as_nested_float64": "d(torch.nested.as_nested_tensor([a, b], dtype=torch.float64))",
    "from_tensor_list_op": "d(torch.ops.aten._nested_tensor_from_tensor_list.default([a, b]))",
    "from_tensor_list_dtype": "d(torch._nested_tensor_from_tensor_list([a, b], torch.float64))",
    "view_from_buffer": "buf = torch.arange(10.); n = torch._nested_view_from_buffer(buf, torch.tensor([[2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0, 5])); buf[0] = 7; d(n)",
    "contiguous_strides_offsets": "torch._nested_compute_contiguous_strides_offsets(torch.tensor([[2, 3], [4, 3]]))",
    "err_not_list": "torch.nested.nested_tensor(a)",
    "err_str": "torch.nested.nested_tensor([a, 'x'])",
    "err_dims": "torch.nested.nested_tensor([a, torch.randn(3)])",
    "err_as_nested_1d": "torch.nested.as_nested_tensor(torch.randn(3))",
    "err_view_from_buffer_oob": "torch._nested_view_from_buffer(torch.arange(4.), torch.tensor([[2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0, 5]))",
}, setup=SETUP)

cases("nested_meta", {
    "is_nested": "nt.is_nested, a.is_nested, nt.layout, nt.dim(), nt.ndim, nt.size(0), nt.size(2), nt.size(-1), nt.numel()",
    "dtype_device": "nt.dtype, nt.device, nt.element_size(), nt.is_contiguous(), nt.storage_offset(), nt.is_leaf, nt.grad_fn",
    "values": "nt.values()",
    "data_ptr": "nt.data_ptr() == nt.values().data_ptr()",
    "err_size_irregular": "nt.size(1)",
    "err_size_range": "nt.size(3)",
    "err_sizes": "nt.size()",
    "err_shape": "nt.shape",
    "err_len": "len(nt)",
    "err_stride": "nt.stride()",
    "err_tolist": "nt.tolist()",
    "err_numpy": "nt.numpy()",
    "err_bool": "bool(nt)",
    "data": "d(nt.data), nt.data.data_ptr() == nt.data_ptr()",
    "parameter": "p = torch.nn.Parameter(nt); type(p).__name__, p.is_nested, p.requires_grad, p.dim()",
    "as_subclass": "nt.as_subclass(torch.nn.Parameter).is_nested",
    "save_load": "import io\nb = io.BytesIO(); torch.save(nt, b); b.seek(0); d(torch.load(b))",
    "err_set_data": "x = torch.randn(3); x.data = nt",
    "err_deepcopy": "import copy\ncopy.deepcopy(nt)",
    "more_meta": "nt.nbytes, nt.itemsize, nt.get_device(), nt.is_contiguous(memory_format=torch.channels_last), nt.is_floating_point(), nt.type()",
    "iter": "list(iter(nt))",
    "torch_tensor_copy": "r = torch.tensor(nt); d(r), r.data_ptr() == nt.data_ptr()",
    "as_tensor_same": "torch.as_tensor(nt) is nt, d(torch.as_tensor(nt, dtype=torch.float64))",
    "setitem_component": "n = nt.clone(); n[1, 0] = 2; n[0, 1, 2] = -1; d(n)",
    "err_setitem_whole": "n = nt.clone(); n[0] = 1",
    "to_dense_is_pinned": "nt.to_dense() is nt, nt.is_pinned()",
    "err_size_op_dense": "torch.ops.aten._nested_tensor_size.default(a)",
    "repr": "repr(nt), str(nt64), repr(torch.nested.nested_tensor([torch.arange(3)]))",
    "repr_empty_component": "repr(torch.nested.nested_tensor([torch.randn(0, 3), a]))",
}, setup=SETUP)

cases("nested_unbind_pad", {
    "unbind": "nt.unbind()",
    "unbind_op": "torch.ops.aten.unbind.int(nt, 0)",
    "getitem": "nt[0], nt[1], nt[-1], nt[1, 2], nt[0, :, 1]",
    "select": "nt.select(0, 1)",
    "getitem_ellipsis": "d(nt[..., 0]), d(nt[..., None]), nt[0, ..., 1]",
    "err_getitem_slice": "nt[0:1]",
    "err_getitem_ellipsis_slice": "nt[..., 0:1]",
    "to_padded": "nt.to_padded_tensor(0.)",
    "to_padded_value": "nt.to_padded_tensor(-1.5)",
    "to_padded_size": "nt.to_padded_tensor(0., (2, 5, 4))",
    "to_padded_fn": "torch.nested.to_padded_tensor(nt64, 1.)",
    "to_padded_op": "torch.ops.aten.to_padded_tensor.default(nt, 2.)",
    "nested_to_padded_op": "torch.ops.aten.nested_to_padded_tensor.default(nt, 2., [2, 6, 3])",
    "to_padded_int": "torch.nested.nested_tensor([torch.arange(3), torch.arange(5)]).to_padded_tensor(1.5)",
    "to_padded_3d": "torch.nested.nested_tensor([torch.randn(2, 1, 4), torch.randn(1, 3, 2)]).to_padded_tensor(0.)",
    "from_padded_example": "d(torch.ops.aten._nested_from_padded_and_nested_example.default(torch.randn(2, 5, 4), nt))",
    "from_padded_example_f64": "d(torch._nested_from_padded_and_nested_example(nt64.to_padded_tensor(-1.), nt64))",
    "err_from_padded_example_dense": "torch._nested_from_padded_and_nested_example(torch.randn(2, 5, 4), a)",
    "err_unbind_dim": "nt.unbind(1)",
    "err_truncate": "nt.to_padded_tensor(0., (2, 3, 3))",
    "err_output_len": "nt.to_padded_tensor(0., (2, 5))",
    "err_dense": "torch.nested.to_padded_tensor(a, 0.)",
    "err_noncontiguous": "nt.transpose(1, 2).to_padded_tensor(0.)",
    "err_select_oob": "nt[2]",
}, setup=SETUP)

cases("nested_from_mask", {
    "from_mask": "d(torch._nested_tensor_from_mask(torch.randn(2, 3, 4), torch.tensor([[1, 1, 0], [1, 0, 0]]).bool()))",
    "from_mask_empty_row": "d(torch._nested_tensor_from_mask(torch.randn(2, 3, 4).double(), torch.tensor([[0, 0, 0], [1, 0, 0]]).bool()))",
    "from_mask_no_check": "d(torch._nested_tensor_from_mask(torch.randn(2, 3, 4), torch.tensor([[1, 0, 1], [1, 0, 0]]).bool(), mask_check=False))",
    "from_mask_op": "d(torch.ops.aten._nested_tensor_from_mask.default(torch.randn(2, 3, 4), torch.tensor([[1, 1, 1], [1, 1, 0]]).bool()))",
    "left_aligned": "torch._nested_tensor_from_mask_left_aligned(torch.randn(2, 3, 4), torch.tensor([[1, 1, 0], [1, 0, 0]]).bool())",
    "left_aligned_gap": "torch._nested_tensor_from_mask_left_aligned(torch.randn(2, 3, 4), torch.tensor([[1, 0, 1], [1, 0, 0]]).bool())",
    "left_aligned_empty_rows": "torch._nested_tensor_from_mask_left_aligned(torch.randn(2, 3, 4), torch.tensor([[0, 0, 0], [1, 1, 1]]).bool())",
    "left_aligned_op": "torch.ops.aten._nested_tensor_from_mask_left_aligned.default(torch.randn(2, 3, 4), torch.tensor([[0, 1, 1], [1, 1, 1]]).bool())",
    "err_gap": "torch._nested_tensor_from_mask(torch.randn(2, 3, 4), torch.tensor([[1, 0, 1], [1, 0, 0]]).bool())",
    "err_not_bool": "torch._nested_tensor_from_mask(torch.randn(2, 3, 4), torch.tensor([[1, 1, 0], [1, 0, 0]]))",
    "err_mask_size": "torch._nested_tensor_from_mask(torch.randn(2, 3, 4), torch.tensor([[1, 1], [1, 0]]).bool())",
    "err_input_2d": "torch._nested_tensor_from_mask(torch.randn(2, 3), torch.tensor([[1, 1, 0], [1, 0, 0]]).bool())",
    "err_mask_1d": "torch._nested_tensor_from_mask_left_aligned(torch.randn(2, 3, 4), torch.tensor([1, 1, 0]).bool())",
    "err_left_not_bool": "torch._nested_tensor_from_mask_left_aligned(torch.randn(2, 3, 4), torch.ones(2, 3))",
}, setup=SETUP)

cases("nested_pointwise", {
    "add": "d(nt + nt)",
    "add_scalar": "d(nt + 1)",
    "add_zero_dim": "d(nt + torch.tensor(1.))",
    "add_alpha": "d(torch.add(nt, nt64, alpha=2))",
    "sub": "d(nt - nt), d(nt - 1)",
    "mul": "d(nt * nt), d(nt * 2), d(torch.tensor(2.) * nt)",
    "div": "d(nt / 2), d(nt / nt64)",
    "int_promotes": "n = torch.nested.nested_tensor([torch.arange(3), torch.arange(2)]); d(n * 1.5), d(n / 2)",
    "complex_scalar": "d(nt + 1.5j)",
    "unary": "d(nt.relu()), d(nt.abs()), d(-nt), d(nt.sgn())",
    "compare": "d(nt > 0), d(nt >= 0.5), d(nt == 1), d(nt.logical_not())",
    "masked_fill": "d(nt.masked_fill(nt > 0, 0.))",
    "inplace": "n = nt.clone(); n.mul_(2); n.add_(n); n.relu_(); d(n)",
    "inplace_fill": "n = nt.clone(); n.fill_(3.); m = nt.clone(); m.zero_(); d(n), d(m)",
    "copy_": "n = nt.clone(); n.copy_(nt * 3); d(n)",
    "like": "d(torch.zeros_like(nt)), d(torch.ones_like(nt)), torch.empty_like(nt)._nested_tensor_size()",
    "dropout_eval": "d(torch.nn.functional.dropout(nt, 0.5, False))",
    "dropout_copy": "r = torch.nn.functional.dropout(nt, 0.5, False); r is nt, r.data_ptr() == nt.data_ptr()",
    "native_dropout_eval": "o, m = torch.native_dropout(nt, 0.5, False); d(o), d(m)",
    "dropout_train_shape": "o, m = torch.native_dropout(nt, 0.5, True); o._nested_tensor_size(), m.dtype, m.is_nested",
    "to": "d(nt.to(torch.float64)), d(nt.double()), d(nt.bool()), d(nt.float())",
    "clone_detach": "d(nt.clone()), d(nt.detach()), d(nt.contiguous())",
    "transposed_binary": "d(nt.transpose(1, 2) + 1)",
    "err_broadcast": "nt + torch.nested.nested_tensor([a, a])",
    "err_dense_other": "nt + torch.randn(3)",
    "err_dense_self": "torch.randn(3) * nt",
    "err_eq_nested": "nt.eq(nt)",
    "err_noncontiguous_unary": "nt.transpose(1, 2).relu()",
    "err_no_kernel": "nt.exp()",
    "err_no_kernel_sigmoid": "nt.sigmoid()",
    "err_rsub": "2 - nt",
}, setup=SETUP)

# the transcendental kernels agree with upstream's under the float rule (as for dense tensors)
cases("nested_unary_float", {
    "gelu": "d(torch.nn.functional.gelu(nt), False), d(torch.nn.functional.gelu(nt, approximate='tanh'), False)",
    "tanh_silu": "d(nt.tanh(), False), d(torch.nn.functional.silu(nt), False)",
    "sin_cos_sqrt": "d(nt.sin(), False), d(nt.cos(), False), d(nt.abs().sqrt(), False)",
    "inplace_gelu": "n = nt.clone(); torch.ops.aten.gelu_.default(n); d(n, False)",
}, setup=SETUP, tol="float")

cases("nested_shape", {
    "transpose": "d(nt.transpose(1, 2)), d(nt.transpose(-1, -2))",
    "transpose_3d": "d(torch.nested.nested_tensor([torch.randn(2, 3, 4), torch.randn(1, 3, 4)]).transpose(1, 2))",
    "transpose_contiguous": "d(nt.transpose(1, 2).contiguous())",
    "view": "d(nt.view(2, -1, 3)), d(nt.reshape(2, -1, 3))",
    "view_split": "n = torch.nested.nested_tensor([torch.randn(2, 6), torch.randn(1, 6)]); d(n.view(2, -1, 2, 3)), d(n.view(2, -1, -1))",
    "reshape_more": "d(nt.reshape(2, -1, 1, 3))",
    "reshape_transposed": "d(nt.transpose(1, 2).reshape(2, 3, -1))",
    "heads": "n = torch.nested.nested_tensor([torch.randn(2, 6), torch.randn(1, 6)]); d(n.view(2, -1, 2, 3).transpose(1, 2))",
    "unsqueeze": "d(nt.unsqueeze(1)), d(nt.unsqueeze(-1))",
    "squeeze_dim": "d(nt.unsqueeze(2).squeeze(2))",
    "narrow": "d(nt.narrow(0, 0, 1)), d(nt.narrow(0, 1, 1))",
    "chunk": "n = torch.nested.nested_tensor([torch.randn(2, 4), torch.randn(3, 4)]); [d(c) for c in n.chunk(2, -1)]",
    "cat": "d(torch.cat([nt, nt64.float()]))",
    "mT": "d(nt.mT)",
    "err_narrow_start": "nt.narrow(0, 5, 1)",
    "err_view_batch": "nt.view(-1)",
    "err_reshape_batch": "nt.reshape(-1)",
    "err_view_size": "nt.view(2, -1)",
    "err_view_numel": "torch.nested.nested_tensor([torch.randn(2, 6), torch.randn(1, 6)]).view(2, -1, 3)",
    "err_view_batch_change": "torch.nested.nested_tensor([torch.randn(2, 6), torch.randn(1, 6)]).view(3, -1, 6)",
    "err_transpose_0": "nt.transpose(0, 1)",
    "err_unsqueeze_0": "nt.unsqueeze(0)",
    "err_squeeze_all": "nt.squeeze()",
    "err_chunk": "nt.chunk(2, -1)",
    "err_t": "nt.t()",
}, setup=SETUP)

cases("nested_math", {
    "softmax": "d(nt.softmax(-1)), d(nt.softmax(1)), d(nt64.softmax(2))",
    "softmax_dtype": "d(nt.softmax(-1, dtype=torch.float64))",
    "softmax_op": "d(torch.ops.aten._softmax.default(nt, 2, False))",
    "sum_last": "d(nt.sum(-1, keepdim=True)), d(nt64.sum(2, keepdim=True))",
    "linear": "w = torch.randn(5, 3); d(torch.nn.functional.linear(nt, w)), d(torch.nn.functional.linear(nt, w, torch.randn(5)))",
    "linear_f64": "d(torch.nn.functional.linear(nt64, torch.randn(5, 3).double(), torch.randn(5).double()))",
    "linear_module": "m = torch.nn.Linear(3, 4)\nwith torch.no_grad(): r = d(m(nt))\nr",
    "matmul": "d(torch.matmul(nt, nt.transpose(1, 2))), d(nt @ nt64.float().transpose(1, 2))",
    "bmm": "d(torch.bmm(nt, nt.transpose(1, 2))), d(nt.bmm(torch.randn(2, 3, 2)))",
    "layer_norm": "d(torch.nn.functional.layer_norm(nt, (3,), torch.randn(3), torch.randn(3)))",
    "layer_norm_module": "m = torch.nn.LayerNorm(3)\nwith torch.no_grad(): r = d(m(nt))\nr",
    "err_softmax_0": "nt.softmax(0)",
    "err_sum_keepdim": "nt.sum(-1)",
    "err_sum_dim": "nt.sum(1, keepdim=True)",
    "err_sum_dtype": "nt.sum(2, keepdim=True, dtype=torch.float64)",
    "err_sum_all": "nt.sum()",
    "err_mean": "nt.mean(-1)",
    "err_linear_shape": "torch.nn.functional.linear(nt, torch.randn(5, 4))",
    "err_linear_1d": "torch.nn.functional.linear(nt, torch.randn(3))",
    "err_matmul_dense": "torch.matmul(nt, torch.randn(3, 2))",
    "err_matmul_shapes": "torch.matmul(nt, nt)",
    "err_bmm_shapes": "torch.bmm(nt, nt)",
    "err_layer_norm_no_weight": "torch.nn.functional.layer_norm(nt, (3,))",
}, setup=SETUP, tol="float")

# hostile arguments: upstream's exception types, never a crash
cases("nested_bad", {
    "buffer_negative_stride": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[2], [3]]), torch.tensor([[-1], [1]]), torch.tensor([0, 5]))",
    "buffer_negative_offset": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0, -5]))",
    "buffer_negative_size": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[-2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0, 5]))",
    "buffer_huge": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[2 ** 40], [3]]), torch.tensor([[2 ** 40], [1]]), torch.tensor([0, 5]))",
    "buffer_offsets_short": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0]))",
    "buffer_float_sizes": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([[2.], [3.]]), torch.tensor([[1], [1]]), torch.tensor([0, 5]))",
    "buffer_2d": "torch._nested_view_from_buffer(torch.arange(10.).reshape(2, 5), torch.tensor([[2], [3]]), torch.tensor([[1], [1]]), torch.tensor([0, 5]))",
    "buffer_sizes_1d": "torch._nested_view_from_buffer(torch.arange(10.), torch.tensor([2, 3]), torch.tensor([1, 1]), torch.tensor([0, 5]))",
    "pad_huge": "nt.to_padded_tensor(0., (2, 2 ** 40, 3))",
    "pad_negative": "nt.to_padded_tensor(0., (-1, 4, 3))",
    "view_many_dims": "torch.nested.nested_tensor([torch.randn(2, 3)] * 3).view(3, *([1] * 40))",
    "select_dim_oob": "nt.select(1, 5)",
    "unsqueeze_oob": "nt.unsqueeze(5)",
    "transpose_oob": "nt.transpose(1, 7)",
    "cat_dense": "torch.cat([nt, torch.randn(2, 3)])",
    "chunk_zero": "nt.chunk(0, -1)",
    "bmm_batch": "torch.bmm(nt, torch.randn(3, 3, 2))",
    "bmm_2d": "torch.bmm(nt, torch.randn(2, 3))",
    "linear_nested_weight": "torch.nn.functional.linear(nt, nt)",
    "masked_fill_dense_mask": "nt.masked_fill(torch.ones(2, 3).bool(), 0.)",
    "copy_dense": "nt.copy_(torch.randn(3))",
    "layer_norm_shape": "torch.nn.functional.layer_norm(nt, (4,), torch.ones(4), torch.zeros(4))",
    "dtype_int": "torch.nested.nested_tensor([torch.randn(2, 3)], dtype=5)",
    "ragged_data": "torch.nested.nested_tensor([[1, 2], [3, [4]]])",
    "sum_empty_dims": "nt.sum([])",
    "softmax_oob": "nt.softmax(5)",
    "unbind_oob": "nt.unbind(9)",
    "encoder_heads": "torch.ops.aten._transformer_encoder_layer_fwd.default(nt, 3, 2, torch.randn(9, 3), torch.randn(9), torch.randn(3, 3), torch.randn(3), False, False, 1e-5, torch.ones(3), torch.zeros(3), torch.ones(3), torch.zeros(3), torch.randn(4, 3), torch.randn(4), torch.randn(3, 4), torch.randn(3))",
    "item": "nt.item()",
    "float": "float(nt)",
    "permute": "nt.permute(0, 2, 1)",
    "expand": "nt.expand(2, 3, 3)",
    "stack": "torch.stack([nt, nt])",
    "max": "nt.max()",
}, setup=SETUP)

TSETUP = """
import warnings, contextlib, copy
warnings.simplefilter("ignore")
torch.manual_seed(0)
nn = torch.nn
quiet = torch.overrides._pop_mode_temporarily if torch._C._len_torch_function_stack() else contextlib.nullcontext
with quiet():
    E = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2).eval()
    Eg = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True, activation="gelu"), 3).eval()
    E64 = copy.deepcopy(E).double()
    L = nn.TransformerEncoderLayer(16, 2, 32, batch_first=True).eval()
    M = nn.MultiheadAttention(16, 2, batch_first=True).eval()
x = torch.randn(3, 5, 16)
trail = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
empty_row = torch.tensor([[False] * 5, [True] * 5, [False] * 4 + [True]])
all_pad_end = torch.tensor([[False] * 3 + [True] * 2] * 3)
no_pad = torch.zeros(3, 5, dtype=torch.bool)
gap = torch.tensor([[False] * 5, [True] + [False] * 4, [False] * 4 + [True]])
def run(m, *a, **kw):
    with torch.no_grad():
        return m(*a, **kw)
"""

cases("nested_transformer", {
    "encoder_trailing_pads": "run(E, x, src_key_padding_mask=trail)",
    "encoder_empty_row": "run(E, x, src_key_padding_mask=empty_row)",
    "encoder_all_rows_padded_end": "run(E, x, src_key_padding_mask=all_pad_end)",
    "encoder_no_pads": "run(E, x, src_key_padding_mask=no_pad)",
    "encoder_not_left_aligned": "run(E, x, src_key_padding_mask=gap)",
    "encoder_gelu_4_heads": "run(Eg, x, src_key_padding_mask=trail)",
    "encoder_float64": "run(E64, x.double(), src_key_padding_mask=trail)",
    "encoder_float64_empty_row": "run(E64, x.double(), src_key_padding_mask=empty_row)",
    "layer_padding_mask": "run(L, x, src_key_padding_mask=trail)",
    "mha_padding_mask": "run(M, x, x, x, key_padding_mask=trail, need_weights=False)",
}, setup=SETUP + TSETUP, tol="float")

# A nested input to the modules: upstream's float64 re-run cannot widen a nested tensor through its
# fast path (MultiheadAttention refuses NestedTensor outside it), so the float rule has no measured
# error: the tolerance is the float32 summation bound of the GEMMs inside ((n + 2) eps sum|a b|,
# n = 32, |a b| summing to ~10 here)
cases("nested_transformer_input", {
    "layer_nested_input": "n = torch._nested_tensor_from_mask(x, trail.logical_not()); d(run(L, n), False)",
    "mha_nested_input": "n = torch._nested_tensor_from_mask(x, trail.logical_not()); o, w = run(M, n, n, n, need_weights=False); d(o, False), w",
    "layer_op_nested": "n = torch._nested_tensor_from_mask(x, trail.logical_not()); p = dict(L.named_parameters()); "
                       "d(torch.ops.aten._transformer_encoder_layer_fwd.default(n, 16, 2, p['self_attn.in_proj_weight'], p['self_attn.in_proj_bias'], "
                       "p['self_attn.out_proj.weight'], p['self_attn.out_proj.bias'], False, False, 1e-5, p['norm1.weight'], p['norm1.bias'], "
                       "p['norm2.weight'], p['norm2.bias'], p['linear1.weight'], p['linear1.bias'], p['linear2.weight'], p['linear2.bias']).detach(), False)",
}, setup=SETUP + TSETUP, tol=(4e-6, 4e-6))

cases("nested_transformer_modes", {
    "dispatch_mode_sees": "from torch.utils._python_dispatch import TorchDispatchMode\n"
                          "class Log(TorchDispatchMode):\n"
                          "    def __torch_dispatch__(self, f, types, args=(), kwargs=None):\n"
                          "        seen.append((str(f), [isinstance(t, torch.Tensor) and t.is_nested for t in args]))\n"
                          "        return f(*args, **(kwargs or {}))\n"
                          "seen = []\n"
                          "with Log(): run(E, x, src_key_padding_mask=trail); run(E, x, src_key_padding_mask=gap)\n"
                          "seen",
}, setup=SETUP + TSETUP, tol="float")

# the aten spellings of the queries upstream's Tensor answers inline, on a nested tensor (its
# NestedTensorImpl's answers), and a fresh nested tensor's version counter
cases("nested_queries", {
    "numel_dim": "(torch.numel(nt), torch.ops.aten.numel.default(nt), torch.ops.aten.sym_numel.default(nt), torch.ops.aten.dim.default(nt))",
    "size_int": "(torch.ops.aten.size.int(nt, 0), torch.ops.aten.size.int(nt, 2), torch.ops.aten.sym_size.int(nt, -1))",
    "size_irregular": "err(lambda: torch.ops.aten.size.int(nt, 1))",
    "stride_int": "err(lambda: torch.ops.aten.stride.int(nt, 0))[0]",
    "contiguous": "(torch.ops.aten.is_contiguous.default(nt), torch.ops.aten.is_contiguous.memory_format(nt, torch.channels_last), "
                  "torch.ops.aten.sym_is_contiguous.default(nt), torch.ops.aten.storage_offset.default(nt))",
    "autograd_state": "(torch.ops.aten.is_leaf.default(nt), torch.ops.aten.output_nr.default(nt), torch.ops.aten._version.default(nt), "
                      "torch.ops.aten.retains_grad.default(nt), torch.ops.aten.data.default(nt).is_nested, "
                      "torch.ops.aten.requires_grad_.default(nt.clone()).requires_grad, torch.get_device(nt))",
    "fresh_version": "(torch.nested.nested_tensor([a, b])._version, torch.nested.as_nested_tensor([a, b])._version)",
}, setup=SETUP + """
def err(fn):
    try:
        return fn()
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
""")
