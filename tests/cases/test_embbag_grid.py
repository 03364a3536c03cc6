"""embedding_bag (src/ops/embbag.c), grid_sample and affine_grid, compared with upstream 2.13.0:
forward with every extra output (offset2bag, bag_size, max_indices as upstream returns them: an
empty offset2bag on upstream's fast sum path, zeros for sum), modes, 1-D input with offsets and
2-D input, include_last_offset, per_sample_weights, padding_idx, empty bags, dtypes,
non-contiguous weights, gradients (weight and per_sample_weights) and bad input."""
from harness import cases
from harness.autograd import F64, grads

SETUP = """
torch.manual_seed(0)
F = torch.nn.functional
A = torch.ops.aten
w = torch.randn(10, 5)
i = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 2])
o = torch.tensor([0, 4, 4, 7])
o_last = torch.tensor([0, 4, 4, 7, 9])
psw = torch.rand(9)
i2 = torch.tensor([[1, 2, 4], [5, 4, 3], [2, 9, 2]])
"""

fwd = {}
for m in ("sum", "mean", "max"):
    fwd[f"{m}"] = f"F.embedding_bag(i, w, o, mode='{m}')"
    fwd[f"{m}_2d"] = f"F.embedding_bag(i2, w, mode='{m}')"
    fwd[f"{m}_last"] = f"F.embedding_bag(i, w, o_last, mode='{m}', include_last_offset=True)"
    fwd[f"{m}_last_short"] = f"F.embedding_bag(i, w, torch.tensor([0, 4, 4, 7]), mode='{m}', include_last_offset=True)"
    fwd[f"{m}_pad"] = f"F.embedding_bag(i, w, o, mode='{m}', padding_idx=2)"
    fwd[f"{m}_pad_negative"] = f"F.embedding_bag(i, w, o, mode='{m}', padding_idx=-1)"
    fwd[f"{m}_f64"] = f"F.embedding_bag(i, w.double(), o, mode='{m}')"
    fwd[f"{m}_bf16"] = f"F.embedding_bag(i, w.bfloat16(), o, mode='{m}')"
    fwd[f"{m}_f16"] = f"F.embedding_bag(i, w.half(), o, mode='{m}')"
    fwd[f"{m}_bf16_pad"] = f"F.embedding_bag(i, w.bfloat16(), o, mode='{m}', padding_idx=4)"
    fwd[f"{m}_noncontig"] = f"F.embedding_bag(i, w.t().contiguous().t(), o, mode='{m}')"
    fwd[f"{m}_noncontig_cols"] = f"F.embedding_bag(i, torch.randn(10, 10)[:, ::2], o, mode='{m}')"
    fwd[f"{m}_int32"] = f"F.embedding_bag(i.int(), w, o.int(), mode='{m}')"
    fwd[f"{m}_mixed_index"] = f"F.embedding_bag(i.int(), w, o, mode='{m}')"
    fwd[f"{m}_empty_input"] = f"F.embedding_bag(i[:0], w, torch.tensor([0, 0]), mode='{m}')"
    fwd[f"{m}_trailing_empty"] = f"F.embedding_bag(i, w, torch.tensor([0, 9, 9]), mode='{m}')"
    fwd[f"{m}_module"] = f"torch.nn.EmbeddingBag(10, 5, mode='{m}')(i, o)"
    fwd[f"{m}_module_pad"] = f"torch.nn.EmbeddingBag(10, 5, mode='{m}', padding_idx=2)(i2)"
    fwd[f"{m}_from_pretrained"] = f"torch.nn.EmbeddingBag.from_pretrained(w, mode='{m}')(i, o)"
    fwd[f"{m}_max_norm"] = f"w2 = w.clone()\nr = F.embedding_bag(i, w2, o, mode='{m}', max_norm=1.0)\n(r, w2)"
    for fn in ("_embedding_bag", "_embedding_bag_forward_only"):
        mo = ("sum", "mean", "max").index(m)
        fwd[f"{m}{fn}"] = f"A.{fn}.default(w, i, o, False, {mo}, False, None, False, -1)"
        fwd[f"{m}{fn}_pad"] = f"A.{fn}.default(w, i, o, False, {mo}, False, None, False, 2)"
        fwd[f"{m}{fn}_last"] = f"A.{fn}.default(w, i, o_last, False, {mo}, False, None, True, -1)"
        fwd[f"{m}{fn}_f64_pad"] = f"A.{fn}.default(w.double(), i, o, False, {mo}, False, None, False, 9)"
        fwd[f"{m}{fn}_bf16"] = f"A.{fn}.default(w.bfloat16(), i, o, False, {mo}, False, None, False, -1)"
        fwd[f"{m}{fn}_noncontig"] = f"A.{fn}.default(w.t().contiguous().t(), i, o, False, {mo}, False, None, False, -1)"
    fwd[f"{m}_aten_embedding_bag"] = f"A.embedding_bag.default(w, i, o, False, {('sum', 'mean', 'max').index(m)}, False, None, False)"
    fwd[f"{m}_aten_padding_idx"] = f"A.embedding_bag.padding_idx(w, i, o, False, {('sum', 'mean', 'max').index(m)}, False, None, False, -8)"
    fwd[f"{m}_aten_padding_idx_none"] = f"A.embedding_bag.padding_idx(w, i, o, False, {('sum', 'mean', 'max').index(m)}, False, None, True, None)"
    fwd[f"{m}_torch"] = f"torch.embedding_bag(w, i, o, False, {('sum', 'mean', 'max').index(m)})"
    fwd[f"{m}_requires_grad"] = f"torch.embedding_bag(w.requires_grad_(), i, o, False, {('sum', 'mean', 'max').index(m)})"
fwd.update({
    "psw": "F.embedding_bag(i, w, o, per_sample_weights=psw)",
    "psw_2d": "F.embedding_bag(i2, w, per_sample_weights=psw.view(3, 3))",
    "psw_pad": "F.embedding_bag(i, w, o, per_sample_weights=psw, padding_idx=4)",
    "psw_f64": "F.embedding_bag(i, w.double(), o, per_sample_weights=psw.double())",
    "psw_bf16": "F.embedding_bag(i, w.bfloat16(), o, per_sample_weights=psw.bfloat16())",
    "psw_noncontig": "F.embedding_bag(i, w, o, per_sample_weights=torch.rand(18)[::2])",
    "psw_last": "F.embedding_bag(i, w, o_last, per_sample_weights=psw, include_last_offset=True)",
    "psw_aten": "A._embedding_bag.default(w, i, o, False, 0, False, psw, False, -1)",
    "psw_aten_fwd_only": "A._embedding_bag_forward_only.default(w, i, o, False, 0, False, psw, False, 3)",
    "module_psw": "torch.nn.EmbeddingBag(10, 5, mode='sum')(i, o, per_sample_weights=psw)",
    "duplicate_offsets": "A._embedding_bag.default(w, i, torch.tensor([0, 0, 3, 3, 9]), False, 1, False, None, False, -1)",
    "bag_all_padding": "F.embedding_bag(torch.tensor([2, 2, 1]), w, torch.tensor([0, 2]), mode='mean', padding_idx=2)",
    "psw_backward_op": "A._embedding_bag_per_sample_weights_backward.default(torch.randn(4, 5), w, i, o, torch.tensor([], dtype=torch.long), 0, 2)",
    "psw_backward_op_o2b": "A._embedding_bag_per_sample_weights_backward.default(torch.randn(4, 5), w, i, o, torch.tensor([0, 0, 0, 0, 2, 2, 2, 3, 3]), 0, -1)",
    "dense_backward_max": "A._embedding_bag_dense_backward.default(torch.randn(4, 5), i, torch.tensor([0, 0, 0, 0, 2, 2, 2, 3, 3]), "
                          "torch.tensor([4, 0, 3, 2]), torch.tensor([[4, 4, 1, 0, 0], [0] * 5, [4, 4, 2, 2, 2], [9] * 5]), 10, False, 2, None, -1)",
    "backward_sum_o2b_empty": "A._embedding_bag_backward.default(torch.randn(4, 5), i, o, torch.tensor([], dtype=torch.long), "
                              "torch.zeros(4, dtype=torch.long), torch.zeros(4, dtype=torch.long), 10, True, 0, False, psw, 2)",
    "bag_all_padding_max": "A._embedding_bag.default(w, torch.tensor([2, 2, 1]), torch.tensor([0, 2]), False, 2, False, None, False, 2)",
})
bad = {
    "offsets_not_zero": "F.embedding_bag(i, w, torch.tensor([1, 4]))",
    "offsets_too_big": "F.embedding_bag(i, w, torch.tensor([0, 10]))",
    "index_out_of_range": "F.embedding_bag(torch.tensor([1, 12]), w, torch.tensor([0]))",
    "index_negative": "F.embedding_bag(torch.tensor([1, -1]), w, torch.tensor([0]))",
    "index_out_of_range_max": "F.embedding_bag(torch.tensor([1, 12]), w, torch.tensor([0]), mode='max')",
    "index_out_of_range_f64": "F.embedding_bag(torch.tensor([1, 12]), w.double(), torch.tensor([0]))",
    "psw_mean": "F.embedding_bag(i, w, o, mode='mean', per_sample_weights=psw)",
    "psw_mean_aten": "A._embedding_bag.default(w, i, o, False, 1, False, psw)",
    "psw_max_aten": "A._embedding_bag.default(w, i, o, False, 2, False, psw)",
    "psw_dtype": "A._embedding_bag.default(w, i, o, False, 0, False, psw.double())",
    "psw_numel": "A._embedding_bag.default(w, i, o, False, 0, False, psw[:3])",
    "psw_shape_py": "F.embedding_bag(i, w, o, per_sample_weights=psw[:3])",
    "float_indices": "A._embedding_bag.default(w, i.float(), o, False, 0, False)",
    "int_weight": "A._embedding_bag.default(w.long(), i, o, False, 0, False)",
    "last_offset_empty": "A._embedding_bag.default(w, i, o[:0], False, 0, False, None, True)",
    "offsets_2d": "A._embedding_bag.default(w, i, o.view(2, 2), False, 0, False)",
    "input_0d": "A._embedding_bag.default(w, i[0], o, False, 0, False)",
    "weight_1d": "A._embedding_bag.default(w[0], i, o, False, 0, False)",
    "mode_3": "A._embedding_bag.default(w, i, o, False, 3, False)",
    "padding_idx_range": "A.embedding_bag.padding_idx(w, i, o, False, 0, False, None, False, 10)",
    "py_2d_offsets": "F.embedding_bag(i2, w, o)",
    "py_1d_no_offsets": "F.embedding_bag(i, w)",
    "py_3d": "F.embedding_bag(i2[None], w)",
    "py_mode": "F.embedding_bag(i, w, o, mode='min')",
    "py_max_scale": "F.embedding_bag(i, w, o, mode='max', scale_grad_by_freq=True)",
    "py_weight_1d": "F.embedding_bag(i, w[0], o)",
}
cases("embedding_bag", {k: SETUP + "result = " + v if "\n" not in v else SETUP + v for k, v in fwd.items()}, tol="float")
cases("embedding_bag_bad", {k: SETUP + v for k, v in bad.items()})

G = SETUP.replace("torch.manual_seed(0)\n", "")
E = G + "ps = leaves((10, 5){dt})\n"
gr = {}
for m in ("sum", "mean", "max"):
    gr[m] = E.format(dt="") + f"out = F.embedding_bag(i, ps[0], o, mode='{m}') * torch.arange(5.)"
    gr[f"{m}_2d"] = E.format(dt="") + f"out = F.embedding_bag(i2, ps[0], mode='{m}').pow(2)"
    gr[f"{m}_pad"] = E.format(dt="") + f"out = F.embedding_bag(i, ps[0], o, mode='{m}', padding_idx=2).pow(2)"
    gr[f"{m}_last"] = E.format(dt="") + f"out = F.embedding_bag(i, ps[0], o_last, mode='{m}', include_last_offset=True).exp()"
    gr[f"{m}_noncontig"] = G + f"ps = leaves((5, 10))\nout = F.embedding_bag(i, ps[0].t(), o, mode='{m}').pow(2)"
    gr[f"{m}_module"] = G + f"m = torch.nn.EmbeddingBag(10, 5, mode='{m}')\nps = [m.weight]\nout = m(i, o).tanh()"
    if m != "max":
        gr[f"{m}_scale_freq"] = E.format(dt="") + f"out = F.embedding_bag(i, ps[0], o, mode='{m}', scale_grad_by_freq=True) * torch.arange(5.)"
        gr[f"{m}_scale_freq_pad"] = E.format(dt="") + f"out = F.embedding_bag(i, ps[0], o, mode='{m}', scale_grad_by_freq=True, padding_idx=4).exp()"
gr.update({
    "psw": G + "ps = leaves((10, 5), (9,))\nout = F.embedding_bag(i, ps[0], o, per_sample_weights=ps[1]).pow(2)",
    "psw_pad": G + "ps = leaves((10, 5), (9,))\nout = F.embedding_bag(i, ps[0], o, per_sample_weights=ps[1], padding_idx=2).pow(2)",
    "psw_only": G + "ps = leaves((9,))\nout = F.embedding_bag(i, w, o, per_sample_weights=ps[0]).pow(2)",
    "psw_2d": G + "ps = leaves((10, 5), (3, 3))\nout = F.embedding_bag(i2, ps[0], per_sample_weights=ps[1]) * torch.arange(5.)",
    "psw_scale_freq": G + "ps = leaves((10, 5), (9,))\nout = F.embedding_bag(i, ps[0], o, per_sample_weights=ps[1], scale_grad_by_freq=True).pow(2)",
    "empty_bags": E.format(dt="") + "out = F.embedding_bag(i, ps[0], torch.tensor([0, 0, 4, 4, 9]), mode='mean').pow(2)",
    "aten": E.format(dt="") + "out = A._embedding_bag.default(ps[0], i, o, False, 1, False, None, False, 3)[0].pow(2)",
    "aten_backward": E.format(dt="") + "r = A._embedding_bag.default(ps[0], i, o, False, 1, False, None, False, -1)\n"
                     "out = A._embedding_bag_backward.default(r[0].detach() + 1, i, o, r[1], r[2], r[3], 10, False, 1, False, None, -1) * ps[0]",
    "dense_backward_sum": E.format(dt="") + "out = A._embedding_bag_dense_backward.default(torch.randn(4, 5), i, "
                          "torch.tensor([0, 0, 0, 0, 2, 2, 2, 3, 3]), torch.tensor([4, 0, 3, 2]), torch.tensor([4, 0, 3, 2]), 10, False, 0, None, -1) * ps[0]",
})
grads("grad_embedding_bag", gr)
grads("grad_embedding_bag_f64", {
    m: G + f"ps = leaves((10, 5), dtype=torch.float64)\nout = F.embedding_bag(i, ps[0], o, mode='{m}', padding_idx=9).pow(2)"
    for m in ("sum", "mean", "max")
} | {"psw": G + "ps = leaves((10, 5), (9,), dtype=torch.float64)\nout = F.embedding_bag(i, ps[0], o, per_sample_weights=ps[1]).pow(2)"},
    tol=F64)
cases("grad_embedding_bag_bf16", {
    m: G + f"p = torch.randn(10, 5).bfloat16().requires_grad_()\n"
           f"F.embedding_bag(i, p, o, mode='{m}').float().pow(2).sum().backward()\nresult = p.grad"
    for m in ("sum", "mean", "max")
} | {"psw": G + "p = torch.randn(10, 5).bfloat16().requires_grad_()\nq = psw.bfloat16().requires_grad_()\n"
             "F.embedding_bag(i, p, o, per_sample_weights=q).float().pow(2).sum().backward()\nresult = (p.grad, q.grad)"},
    tol="float")
