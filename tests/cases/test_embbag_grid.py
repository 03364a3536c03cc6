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
    "aten_spelled_embedding_bag": "torch.ops.aten.embedding_bag.default(w, i, o, False, 1, False, None, True)",
    "aten_spelled_padding_idx": "torch.ops.aten.embedding_bag.padding_idx(w, i, o, False, 2, False, None, False, 4)",
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

# ---- grid_sample / affine_grid ----
GS = """
torch.manual_seed(0)
F = torch.nn.functional
A = torch.ops.aten
x = torch.randn(2, 3, 5, 6)
g = torch.rand(2, 4, 3, 2) * 3 - 1.5
x3 = torch.randn(2, 2, 3, 4, 5)
g3 = torch.rand(2, 2, 3, 2, 3) * 3 - 1.5
"""
gs = {}
for mode in ("bilinear", "nearest", "bicubic"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            key = f"{mode}_{pad}_{int(ac)}"
            gs[key] = f"F.grid_sample(x, g, mode='{mode}', padding_mode='{pad}', align_corners={ac})"
            gs[key + "_f64"] = f"F.grid_sample(x.double(), g.double(), mode='{mode}', padding_mode='{pad}', align_corners={ac})"
            if mode != "bicubic":
                gs[key + "_3d"] = f"F.grid_sample(x3, g3, mode='{mode}', padding_mode='{pad}', align_corners={ac})"
                gs[key + "_3d_f64"] = f"F.grid_sample(x3.double(), g3.double(), mode='{mode}', padding_mode='{pad}', align_corners={ac})"
    gs[f"{mode}_bf16"] = f"F.grid_sample(x.bfloat16(), g.bfloat16(), mode='{mode}', align_corners=False)"
    gs[f"{mode}_f16"] = f"F.grid_sample(x.half(), g.half(), mode='{mode}', padding_mode='border', align_corners=True)"
    gs[f"{mode}_noncontig"] = f"F.grid_sample(x.transpose(2, 3), g.transpose(1, 2), mode='{mode}', align_corners=False)"
    gs[f"{mode}_channels_last"] = f"F.grid_sample(x.to(memory_format=torch.channels_last), g, mode='{mode}', align_corners=True)"
gs.update({
    "aten_grid_sampler": "A.grid_sampler.default(x, g, 0, 0, False)",
    "aten_spelled_grid_sampler": "torch.ops.aten.grid_sampler.default(x3, g3, 0, 1, True)",
    "aten_spelled_affine_backward": "torch.ops.aten.affine_grid_generator_backward.default(torch.randn(2, 3, 3, 2), [2, 1, 3, 3], True)",
    "aten_grid_sampler_3d_composite": "torch.grid_sampler(x3, g3, 1, 2, True)",
    "aten_2d": "A.grid_sampler_2d.default(x, g, 2, 1, True)",
    "aten_3d": "A.grid_sampler_3d.default(x3, g3, 0, 2, False)",
    "aten_2d_backward": "A.grid_sampler_2d_backward.default(torch.randn(2, 3, 4, 3), x, g, 0, 0, False, [True, True])",
    "aten_2d_backward_mask": "A.grid_sampler_2d_backward.default(torch.randn(2, 3, 4, 3), x, g, 2, 2, True, [False, True])",
    "aten_3d_backward": "A.grid_sampler_3d_backward.default(torch.randn(2, 2, 2, 3, 2), x3, g3, 0, 1, True, [True, True])",
    "aten_3d_backward_nearest": "A.grid_sampler_3d_backward.default(torch.randn(2, 2, 2, 3, 2), x3, g3, 1, 0, False, [True, True])",
    "empty_batch": "F.grid_sample(x[:0], g[:0], align_corners=False)",
    "empty_channels": "F.grid_sample(x[:, :0], g, align_corners=False)",
    "empty_grid": "F.grid_sample(x, g[:, :0], align_corners=False)",
    "size_one": "F.grid_sample(x[:, :, :1, :1], g, align_corners=True, padding_mode='reflection')",
    "size_one_bicubic": "F.grid_sample(x[:, :, :1], g, mode='bicubic', align_corners=True, padding_mode='reflection')",
    "nan_grid": "F.grid_sample(x, torch.full((2, 1, 1, 2), float('nan')), align_corners=False)",
    "exact_corners": "F.grid_sample(x, torch.tensor([-1., -1., 1., 1., 0., 0., -1., 1.]).view(1, 2, 2, 2).expand(2, 2, 2, 2), align_corners=True)",
    "affine_grid_2d": "F.affine_grid(torch.randn(2, 2, 3), (2, 3, 4, 5), align_corners=False)",
    "affine_grid_2d_align": "F.affine_grid(torch.randn(2, 2, 3), (2, 3, 4, 5), align_corners=True)",
    "affine_grid_3d": "F.affine_grid(torch.randn(2, 3, 4), (2, 3, 2, 4, 5), align_corners=False)",
    "affine_grid_3d_align": "F.affine_grid(torch.randint(-8, 8, (2, 3, 4)).double() / 8, (2, 3, 2, 3, 5), align_corners=True)",
    "affine_grid_size_one": "F.affine_grid(torch.randn(1, 2, 3), (1, 1, 1, 3), align_corners=False)",
    # float64 products: our bmm and MKL's round differently (err is 0 for float64 outputs), so the
    # float64 cases take dyadic theta and sizes whose linspace is dyadic: every product and sum exact
    "affine_grid_f64": "F.affine_grid(torch.randint(-8, 8, (2, 2, 3)).double() / 8, (2, 3, 3, 5), align_corners=True)",
    "affine_grid_bf16": "F.affine_grid(torch.randn(2, 2, 3).bfloat16(), (2, 3, 4, 5), align_corners=False)",
    "affine_grid_noncontig": "F.affine_grid(torch.randn(2, 3, 2).transpose(1, 2), (2, 3, 4, 5), align_corners=False)",
    "affine_grid_aten": "A.affine_grid_generator.default(torch.randn(2, 2, 3), [2, 1, 3, 3], False)",
    "affine_grid_backward_aten": "A.affine_grid_generator_backward.default(torch.randn(2, 3, 3, 2), [2, 1, 3, 3], False)",
    "affine_grid_backward_aten_3d": "A.affine_grid_generator_backward.default(torch.randn(2, 2, 3, 3, 3), [2, 1, 2, 3, 3], True)",
    "stn": "theta = torch.tensor([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]]).repeat(2, 1, 1)\n"
           "result = F.grid_sample(x, F.affine_grid(theta, x.shape, align_corners=False), align_corners=False)",
})
gs_bad = {
    "batch": "F.grid_sample(x, g[:1], align_corners=False)",
    "last_dim": "F.grid_sample(x, g[..., :1], align_corners=False)",
    "empty_spatial": "F.grid_sample(x[:, :, :0], g, align_corners=False)",
    "rank_2d": "A.grid_sampler_2d.default(x3, g3, 0, 0, False)",
    "rank_3d": "A.grid_sampler_3d.default(x, g, 0, 0, False)",
    "bicubic_3d": "F.grid_sample(x3, g3, mode='bicubic', align_corners=False)",
    "dtype_mismatch": "F.grid_sample(x, g.double(), align_corners=False)",
    "int_input": "A.grid_sampler_2d.default(x.int(), g.int(), 0, 0, False)",
    "py_mode": "F.grid_sample(x, g, mode='area')",
    "py_padding": "F.grid_sample(x, g, padding_mode='circular')",
    "affine_size_len": "A.affine_grid_generator.default(torch.randn(1, 2, 3), [1, 3, 3], False)",
    "affine_batch": "A.affine_grid_generator.default(torch.randn(1, 2, 3), [2, 1, 3, 3], False)",
    "affine_shape": "A.affine_grid_generator.default(torch.randn(1, 3, 4), [1, 1, 3, 3], False)",
    "affine_py_int": "F.affine_grid(torch.ones(1, 2, 3, dtype=torch.long), (1, 1, 2, 2), align_corners=False)",
    "affine_py_shape": "F.affine_grid(torch.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False)",
}
cases("grid_sample", {k: GS + "result = " + v if "\n" not in v else GS + v for k, v in gs.items()}, tol="float")
cases("grid_sample_bad", {k: GS + v for k, v in gs_bad.items()})

GG = GS.replace("torch.manual_seed(0)\n", "")
ggr = {}
for mode in ("bilinear", "nearest"):
    for pad in ("zeros", "border", "reflection"):
        for ac in (False, True):
            ggr[f"{mode}_{pad}_{int(ac)}"] = (GG + "ps = leaves((2, 3, 5, 6), (2, 4, 3, 2))\nps[1].data.mul_(0.7)\n"
                                             f"out = F.grid_sample(ps[0], ps[1], mode='{mode}', padding_mode='{pad}', align_corners={ac}).pow(2)")
            ggr[f"{mode}_{pad}_{int(ac)}_3d"] = (GG + "ps = leaves((2, 2, 3, 4, 5), (2, 2, 3, 2, 3))\nps[1].data.mul_(0.7)\n"
                                                f"out = F.grid_sample(ps[0], ps[1], mode='{mode}', padding_mode='{pad}', align_corners={ac}).pow(2)")
ggr.update({
    "bicubic_graph": GG + "ps = leaves((2, 3, 5, 6))\nout = F.grid_sample(ps[0], g, mode='bicubic', align_corners=True) * 2",
    "input_only": GG + "ps = leaves((2, 3, 5, 6))\nout = F.grid_sample(ps[0], g, align_corners=False) * 3",
    "affine_grid": GG + "ps = leaves((2, 2, 3))\nout = F.affine_grid(ps[0], (2, 3, 4, 5), align_corners=False).pow(2)",
    "affine_grid_3d": GG + "ps = leaves((2, 3, 4))\nout = F.affine_grid(ps[0], (2, 3, 2, 4, 5), align_corners=True).pow(2)",
})
# gradients that cancel (the grid's, bicubic's): the float rule (upstream's own float64 re-run)
GF = GG + "xi = torch.randn(2, 3, 5, 6, requires_grad=True)\ngi = (torch.rand(2, 4, 3, 2) * 2.4 - 1.2).requires_grad_()\n"
ggf = {}
for pad in ("zeros", "border", "reflection"):
    for ac in (False, True):
        # the backward op itself (the widening re-run cannot differentiate to leaves); the
        # graph wiring is in grad_grid_sample's bicubic_graph
        pi = ("zeros", "border", "reflection").index(pad)
        ggf[f"bicubic_{pad}_{int(ac)}"] = GF + (f"out = F.grid_sample(x, gi, mode='bicubic', padding_mode='{pad}', align_corners={ac})\n"
                                               f"result = A.grid_sampler_2d_backward.default(2 * out, x, gi, 2, {pi}, {ac}, [True, True])")
ggf.update({
    "grid_only": GF + "out = F.grid_sample(x, gi.tanh(), mode='bicubic', align_corners=False)\nresult = torch.autograd.grad(out.exp().sum(), [gi])",
    "stn": GG + "th = torch.randn(2, 2, 3)\ngrid = F.affine_grid(th, (2, 3, 4, 4), align_corners=False)\n"
                "out = F.grid_sample(x, grid, align_corners=False)\n"
                "gin, ggrid = A.grid_sampler_2d_backward.default(2 * out, x, grid, 0, 0, False, [True, True])\n"
                "result = (gin, ggrid, A.affine_grid_generator_backward.default(ggrid, [2, 3, 4, 4], False))",
    "bilinear_f64": GF + "xd, gd = xi.detach().double().requires_grad_(), gi.detach().double().requires_grad_()\n"
                         "out = F.grid_sample(xd, gd, padding_mode='reflection', align_corners=False)\n"
                         "result = torch.autograd.grad(out.pow(2).sum(), [xd, gd])",
    "bicubic_f64": GF + "xd, gd = xi.detach().double().requires_grad_(), gi.detach().double().requires_grad_()\n"
                        "out = F.grid_sample(xd, gd, mode='bicubic', align_corners=True)\n"
                        "result = torch.autograd.grad(out.pow(2).sum(), [xd, gd])",
    "trilinear_f64": GG + "xd = torch.randn(2, 2, 3, 4, 5, dtype=torch.float64, requires_grad=True)\n"
                          "gd = (torch.rand(2, 2, 3, 2, 3, dtype=torch.float64) * 2.4 - 1.2).requires_grad_()\n"
                          "out = F.grid_sample(xd, gd, padding_mode='border', align_corners=False)\n"
                          "result = torch.autograd.grad(out.pow(2).sum(), [xd, gd])",
    "bf16": GF + "xb, gb = xi.detach().bfloat16().requires_grad_(), gi.detach().bfloat16().requires_grad_()\n"
                 "out = F.grid_sample(xb, gb, align_corners=False)\nresult = torch.autograd.grad(out.float().pow(2).sum(), [xb, gb])",
})
cases("grad_grid_sample_float", ggf, tol="float")
grads("grad_grid_sample", ggr)
