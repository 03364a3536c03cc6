"""torch.ops.aten spellings of nn, sort and set_ overloads that Python-level spellings reach only
through composites (upstream decomposes them before a dispatch mode sees them)."""
from harness import cases

X = "x = torch.tensor([[0.5, -1.25, 2.0, 0.0], [3.0, 0.25, -0.5, 1.5]])\n"

cases("aten_nn_spellings", {
    "_log_softmax.out": X + "o = torch.empty(0)\ntorch.ops.aten._log_softmax.out(x, 1, False, out=o)\no",
    "softmax.int_out": X + "o = torch.empty(0)\ntorch.ops.aten.softmax.int_out(x, 1, out=o)\no",
    "log_softmax.int_out": X + "o = torch.empty(0)\ntorch.ops.aten.log_softmax.int_out(x, 1, out=o)\no",
    "layer_norm.default": X + "torch.ops.aten.layer_norm.default(x, [4], torch.ones(4), torch.zeros(4), 1e-5)",
    "rms_norm.default": X + "torch.ops.aten.rms_norm.default(x, [4], torch.full((4,), 0.5), 1e-6)",
    "_fused_rms_norm.default": X + "torch.ops.aten._fused_rms_norm.default(x, [4], torch.ones(4), 1e-6)",
    "sdpa.default": "q = torch.arange(24.).reshape(1, 2, 3, 4) / 10\ntorch.ops.aten.scaled_dot_product_attention.default(q, q, q, is_causal=True)",
    "isin.Tensor_Scalar_out": "o = torch.empty(0, dtype=torch.bool)\ntorch.ops.aten.isin.Tensor_Scalar_out(torch.tensor([1, 2, 3]), 2, out=o)\no",
    "isin.Scalar_Tensor_out": "o = torch.empty(0, dtype=torch.bool)\ntorch.ops.aten.isin.Scalar_Tensor_out(2, torch.tensor([1, 2, 3]), out=o)\no",
    "dropout.default": X + "torch.ops.aten.dropout.default(x, 0.0, False)",
    "dropout_.default": X + "torch.ops.aten.dropout_.default(x, 0.0, False)\nx",
}, tol="float")

cases("aten_sort_spellings", {
    "sort.values_stable": "v = torch.empty(0)\ni = torch.empty(0, dtype=torch.long)\ntorch.ops.aten.sort.values_stable(torch.tensor([3., 1., 2., 1.]), stable=True, dim=0, descending=False, values=v, indices=i)\n(v, i)",
    "argsort.default": "torch.ops.aten.argsort.default(torch.tensor([3., 1., 2., 0.5]))",
    "argsort.stable": "torch.ops.aten.argsort.stable(torch.tensor([3., 1., 2., 1.]), stable=True)",
    "argsort.stable_out": "o = torch.empty(0, dtype=torch.long)\ntorch.ops.aten.argsort.stable_out(torch.tensor([3., 1., 2., 1.]), stable=True, out=o)\no",
    "msort.default": "torch.ops.aten.msort.default(torch.tensor([[3., 1.], [2., 0.]]))",
    "msort.out": "o = torch.empty(0)\ntorch.ops.aten.msort.out(torch.tensor([[3., 1.], [2., 0.]]), out=o)\no",
})

cases("aten_set_spellings", {
    "set_.source_Tensor_storage_offset": "s = torch.arange(6.)\nt = torch.empty(0)\ntorch.ops.aten.set_.source_Tensor_storage_offset(t, s, 2, [2, 2], [1, 2])\n(t, s)",
    "set_.source_Tensor": "s = torch.arange(6.).reshape(2, 3)\nt = torch.empty(0)\ntorch.ops.aten.set_.source_Tensor(t, s)\n(t, s)",
    "set_.default": "t = torch.arange(6.)\ntorch.ops.aten.set_.default(t)\nt",
    "set_.source_Storage": "s = torch.arange(4.).untyped_storage()\nt = torch.empty(0)\nt.set_(s)\nt",
    "set_.storage_offset": "s = torch.arange(6.).untyped_storage()\nt = torch.empty(0)\nt.set_(s, 1, (2, 2), (2, 1))\nt",
    "set_.dtype_mismatch": "t = torch.empty(0)\nt.set_(torch.arange(4))",
}, strides=True)

# set_ beyond the storage grows it (the new bytes are uninitialised on both sides: no values)
cases("aten_set_grow", {
    "set_.grows": "s = torch.arange(4.).untyped_storage()\nt = torch.empty(0)\nt.set_(s, 3, (2, 2), (2, 1))\n(t, s.nbytes())",
}, values=False, strides=True)
