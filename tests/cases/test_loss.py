"""Loss functions (src/ops/loss.c): mse_loss (elementwise (self - target)^2, then mean or sum) and
broadcast_tensors, which F.mse_loss calls first — compared with upstream. Gradients are in
test_autograd_formulas.py."""
from harness import cases

SETUP = """
torch.manual_seed(0)
A = torch.ops.aten
F = torch.nn.functional
x = torch.randn(5, 40)
t = torch.randn(5, 40)
"""

mse = {}
for d in ["torch.float32", "torch.float64", "torch.bfloat16", "torch.float16"]:
    n = d.split(".")[1]
    mse["mean_" + n] = "F.mse_loss(x.to(%s), t.to(%s))" % (d, d)
    mse["sum_" + n] = "F.mse_loss(x.to(%s), t.to(%s), reduction='sum')" % (d, d)
    mse["none_" + n] = "F.mse_loss(x.to(%s), t.to(%s), reduction='none')" % (d, d)
mse.update({
    "aten": "A.mse_loss.default(x, t, 1)",
    "aten_default_reduction": "A.mse_loss(x, t)",
    "bcast": "A.mse_loss(x, t[:1], 0)",
    "bcast_mean": "A.mse_loss(x[:, :1], t, 1)",
    "zero_dim": "F.mse_loss(torch.tensor(2.), torch.tensor(0.5))",
    "empty_mean": "F.mse_loss(torch.ones(0), torch.ones(0))",
    "empty_sum": "F.mse_loss(torch.ones(0, 3), torch.ones(0, 3), reduction='sum')",
    "noncontig": "F.mse_loss(x.t(), t.t())",
    "mixed_dtype": "A.mse_loss(x, t.double())",
    "bad_shape": "A.mse_loss(x, t[:, :3])",
    "bad_reduction": "F.mse_loss(x, t, reduction='avg')",
})
cases("mse_loss", {k: SETUP + "result = " + v for k, v in mse.items()}, tol="float")

cases("broadcast_tensors", {k: SETUP + "result = " + v for k, v in {
    "two": "torch.broadcast_tensors(torch.ones(2), torch.ones(3, 1))",
    "same_shape": "torch.broadcast_tensors(x, t)",
    "aten": "A.broadcast_tensors.default([x, t[:1], torch.tensor(1.)])",
    "one": "torch.broadcast_tensors(x)",
    "empty_list": "torch.broadcast_tensors()",
    "bad": "torch.broadcast_tensors(torch.ones(2), torch.ones(3))",
    "zero_size": "torch.broadcast_tensors(torch.ones(0, 1), torch.ones(4))",
}.items()})

# ---------------------------------------------------------------- every loss of torch.nn

LSETUP = """
torch.manual_seed(0)
A = torch.ops.aten
F = torch.nn.functional
nn = torch.nn
D = globals().get("D", torch.float32)
x = torch.randn(6, 5, dtype=D); y = torch.randn(6, 5, dtype=D); p = torch.rand(6, 5, dtype=D); tp = torch.rand(6, 5, dtype=D)
cls = torch.tensor([1, 0, 4, 2, 3, 0]); w5 = torch.rand(5, dtype=D); w3 = torch.rand(3, dtype=D)
sgn = torch.tensor([1., -1., 1., -1., 1., 1.], dtype=D)
ml = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [0, -1, 1, 1, 1], [4, 3, 2, 1, 0], [-1, 0, 0, 0, 0], [2, 2, -1, 0, 0]])
a1 = torch.randn(6, 5, dtype=D); a2 = torch.randn(6, 5, dtype=D); a3 = torch.randn(6, 5, dtype=D)
img = torch.randn(2, 3, 4, 5, dtype=D); imgt = torch.randint(0, 3, (2, 4, 5))
var = torch.rand(6, 5, dtype=D) + 0.1
"""
# functional spellings, every reduction, f32 and f64 (exp / log based losses: tol="float", the
# project's exp / log are not upstream's vectorised ones bit for bit)
LOSSES = {
    "bce": "F.binary_cross_entropy(p, tp, reduction=R)",
    "bce_w": "F.binary_cross_entropy(p, tp, weight=w5, reduction=R)",
    "bcel": "F.binary_cross_entropy_with_logits(x, tp, reduction=R)",
    "bcel_pw": "F.binary_cross_entropy_with_logits(x, tp, weight=w5, pos_weight=w5, reduction=R)",
    "kl": "F.kl_div(x.log_softmax(1), tp, reduction=R if R != 'mean' else 'batchmean')",
    "kl_mean": "F.kl_div(x, tp, reduction=R)",
    "kl_log": "F.kl_div(x, y, reduction=R, log_target=True)",
    "sl1": "F.smooth_l1_loss(x, y, reduction=R, beta=0.5)",
    "sl1_b0": "F.smooth_l1_loss(x, y, reduction=R, beta=0.)",
    "huber": "F.huber_loss(x, y, reduction=R, delta=0.7)",
    "l1": "F.l1_loss(x, y, reduction=R)",
    "pnll": "F.poisson_nll_loss(x, tp, reduction=R)",
    "pnll_full": "F.poisson_nll_loss(p, tp * 3, log_input=False, full=True, reduction=R)",
    "gnll": "F.gaussian_nll_loss(x, y, var, reduction=R)",
    "gnll_full": "F.gaussian_nll_loss(x, y, var[:, :1], full=True, reduction=R)",
    "softm": "F.soft_margin_loss(x, torch.sign(y), reduction=R)",
    "mlsm": "F.multilabel_soft_margin_loss(x, (y > 0).to(x.dtype), reduction=R)",
    "mlsm_w": "F.multilabel_soft_margin_loss(x, (y > 0).to(x.dtype), weight=w5, reduction=R)",
    "mlm": "F.multilabel_margin_loss(x, ml, reduction=R)",
    "mlm_1d": "F.multilabel_margin_loss(x[0], ml[0], reduction=R)",
    "mm": "F.multi_margin_loss(x, cls, reduction=R)",
    "mm_p2_w": "F.multi_margin_loss(x, cls, p=2, margin=0.5, weight=w5, reduction=R)",
    "mm_1d": "F.multi_margin_loss(x[0], cls[:1], reduction=R)",
    "hinge": "F.hinge_embedding_loss(x, torch.sign(y), margin=0.5, reduction=R)",
    "cosemb": "F.cosine_embedding_loss(a1, a2, sgn, margin=0.1, reduction=R)",
    "cosemb_0d": "F.cosine_embedding_loss(a1[0], a2[0], sgn[1], reduction=R)",
    "marg": "F.margin_ranking_loss(a1[:, 0], a2[:, 0], sgn, margin=0.2, reduction=R)",
    "trip": "F.triplet_margin_loss(a1, a2, a3, reduction=R)",
    "trip_swap_p1": "F.triplet_margin_loss(a1, a2, a3, swap=True, p=1, margin=0.3, reduction=R)",
    "tripd": "F.triplet_margin_with_distance_loss(a1, a2, a3, reduction=R)",
    "tripd_cos": "F.triplet_margin_with_distance_loss(a1, a2, a3, distance_function=nn.PairwiseDistance(p=3), swap=True, reduction=R)",
    "ce_img": "F.cross_entropy(img, imgt, reduction=R)",
    "ce_img_w": "F.cross_entropy(img, imgt, weight=w3, ignore_index=1, reduction=R)",
    "ce_img_ls": "F.cross_entropy(img, imgt, label_smoothing=0.2, reduction=R)",
    "ce_img_prob": "F.cross_entropy(img, img.softmax(1), reduction=R)",
    "nll_img": "F.nll_loss(img, imgt, reduction=R)",
    "nll_img_w": "F.nll_loss(img, imgt, weight=w3, ignore_index=2, reduction=R)",
    "nll_3d": "F.nll_loss(img[:, :, 0], imgt[:, 0], reduction=R)",
    "nll_5d": "F.nll_loss(img.unsqueeze(-1), imgt.unsqueeze(-1), reduction=R)",
    "nll_img_empty": "F.nll_loss(img[:0], imgt[:0], reduction=R)",
}
fwd = {}
for k, e in LOSSES.items():
    for d in ["float32", "float64"]:
        for r in ["none", "mean", "sum"]:
            fwd["%s_%s_%s" % (k, d[5:], r)] = "D = torch.%s\n%s\nR = %r\nresult = %s" % (d, LSETUP, r, e)
# The harness's float64 re-run gives no error estimate for these (kl_div's re-run fails upstream:
# log_target passed positionally; the others come back without one), so their tolerance is
# upstream's own float32 error measured against its float64 result on these inputs (max |f32 -
# f64| over the output, .venv-ref, same snippet), doubled; float64 scales it by 2^-29.
MEASURED = {("kl", "none"): 1.74e-07, ("kl", "mean"): 1.56e-07, ("kl", "sum"): 1.41e-06,
            ("kl_mean", "none"): 2.29e-08, ("kl_mean", "mean"): 9.94e-09, ("kl_mean", "sum"): 3.88e-07,
            ("kl_log", "none"): 3.89e-06, ("kl_log", "mean"): 4.04e-08, ("kl_log", "sum"): 4.51e-06,
            ("trip", "none"): 3.66e-07, ("tripd", "none"): 3.66e-07, ("ce_img", "none"): 3.16e-07}
for (k, r), err in MEASURED.items():
    for d, scale, eps in [("float32", 1.0, 2.0 ** -23), ("float64", 2.0 ** -29, 2.0 ** -52)]:
        key = "%s_%s_%s" % (k, d[5:], r)
        cases("loss_measured_" + key, {key: fwd.pop(key)}, tol=(2 * err * scale, 2 * eps))
cases("loss_functional", fwd, tol="float")

# losses whose kernels reproduce upstream's arithmetic: bit-exact
exact = {}
for d in ["float32", "float64"]:
    c = "x, y, a1, a2, img = [t.to(torch.%s) for t in (x, y, a1, a2, img)]\n" % d
    for r in [0, 1, 2]:
        exact.update({
            "sl1_%s_%d" % (d, r): c + "result = A.smooth_l1_loss(x, y, %d, 0.7)" % r,
            "huber_%s_%d" % (d, r): c + "result = A.huber_loss(x, y, %d, 0.7)" % r,
            "mm_%s_%d" % (d, r): c + "result = A.multi_margin_loss(x, cls, 1, 1, None, %d)" % r,
            "mm_p2w_%s_%d" % (d, r): c + "result = A.multi_margin_loss(x, cls, 2, 0.4, w5.to(x.dtype), %d)" % r,
            "mlm_%s_%d" % (d, r): c + "result = A.multilabel_margin_loss_forward(x, ml, %d)" % r,
            "nll2d_%s_%d" % (d, r): c + "result = A.nll_loss2d_forward(img, imgt, None, %d, -100)" % r,
            "nll2d_w_%s_%d" % (d, r): c + "result = A.nll_loss2d_forward(img, imgt, w3.to(img.dtype), %d, 1)" % r,
            "hinge_%s_%d" % (d, r): c + "result = A.hinge_embedding_loss(x, torch.sign(y).to(x.dtype), 0.5, %d)" % r,
            "marg_%s_%d" % (d, r): c + "result = A.margin_ranking_loss(a1[:, 0], a2[:, 0], sgn.to(x.dtype), 0.1, %d)" % r,
            "sl1b_%s_%d" % (d, r): c + "result = A.smooth_l1_loss_backward(y if %d == 0 else y[0, 0], x, a1, %d, 0.5)" % (r, r),
        })
for d in ["float16", "bfloat16"]:
    c = "x, y = [t.to(torch.%s) for t in (x, y)]\n" % d
    exact["sl1_%s" % d] = c + "result = A.smooth_l1_loss(x, y, 0, 0.7)"
    exact["sl1_sum_%s" % d] = c + "result = A.smooth_l1_loss(x, y, 2, 0.7)"
exact["huber_f16"] = "result = A.huber_loss(x.half(), y.half(), 0, 0.7)"
exact["sl1b_f16"] = "result = A.smooth_l1_loss_backward(y.half(), x.half(), a1.half(), 0, 0.5)"
exact["bceb_f64_none"] = "result = A.binary_cross_entropy_backward(y.double(), p.double(), tp.double(), None, 0)"
exact["mm_noncontig"] = "result = A.multi_margin_loss(x.t().contiguous().t(), cls, 1, 1, None, 0)"
exact["nll2d_noncontig"] = "result = A.nll_loss2d_forward(img.transpose(2, 3), imgt.transpose(1, 2), None, 0, -100)"
exact["nll2d_bwd_none"] = "result = A.nll_loss2d_backward(y[:4].reshape(2, 4, 3)[..., :1].expand(2, 4, 5).contiguous(), img, imgt, w3, 0, 1, torch.tensor(0.))"
exact["nll2d_bwd_mean"] = "o, tw = A.nll_loss2d_forward(img, imgt, w3, 1, 1); result = A.nll_loss2d_backward(torch.tensor(0.7), img, imgt, w3, 1, 1, tw)"
exact["nll2d_bwd_sum"] = "result = A.nll_loss2d_backward(torch.tensor(0.7), img, imgt, None, 2, -100, torch.tensor(3.))"
exact["mlm_bwd"] = "o, it = A.multilabel_margin_loss_forward(x, ml, 1); result = A.multilabel_margin_loss_backward(torch.tensor(0.5), x, ml, 1, it)"
exact["mlm_bwd_none"] = "o, it = A.multilabel_margin_loss_forward(x, ml, 0); result = A.multilabel_margin_loss_backward(y[:, 0], x, ml, 0, it)"
exact["mm_bwd"] = "result = A.multi_margin_loss_backward(torch.tensor(0.5), x, cls, 2, 0.3, w5, 1)"
exact["mm_bwd_none"] = "result = A.multi_margin_loss_backward(y[:, 0], x, cls, 1, 1., None, 0)"
cases("loss_exact", exact, setup=LSETUP)

# nn.Module spellings
mods = {
    "BCELoss": "nn.BCELoss(weight=w5)(p, tp)", "BCEWithLogitsLoss": "nn.BCEWithLogitsLoss(pos_weight=w5, reduction='sum')(x, tp)",
    "KLDivLoss": "nn.KLDivLoss(reduction='batchmean')(x.log_softmax(1), tp)", "KLDivLoss_log": "nn.KLDivLoss(log_target=True)(x, y)",
    "SmoothL1Loss": "nn.SmoothL1Loss(beta=0.3)(x, y)", "HuberLoss": "nn.HuberLoss(delta=0.4, reduction='none')(x, y)",
    "L1Loss": "nn.L1Loss()(x, y)", "MSELoss": "nn.MSELoss(reduction='sum')(x, y)",
    "PoissonNLLLoss": "nn.PoissonNLLLoss(full=True)(x, tp * 4)", "GaussianNLLLoss": "nn.GaussianNLLLoss()(x, y, var)",
    "SoftMarginLoss": "nn.SoftMarginLoss()(x, torch.sign(y))", "MultiLabelSoftMarginLoss": "nn.MultiLabelSoftMarginLoss(weight=w5)(x, (y > 0).float())",
    "MultiLabelMarginLoss": "nn.MultiLabelMarginLoss()(x, ml)", "MultiMarginLoss": "nn.MultiMarginLoss(p=2, margin=0.7, weight=w5)(x, cls)",
    "HingeEmbeddingLoss": "nn.HingeEmbeddingLoss(margin=2.)(x, torch.sign(y))", "CosineEmbeddingLoss": "nn.CosineEmbeddingLoss(margin=-0.2)(a1, a2, sgn)",
    "MarginRankingLoss": "nn.MarginRankingLoss(margin=0.3)(a1[:, 0], a2[:, 0], sgn)", "TripletMarginLoss": "nn.TripletMarginLoss(margin=2., p=1.5)(a1, a2, a3)",
    "TripletMarginWithDistanceLoss": "nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(1), margin=0.5)(a1, a2, a3)",
    "TripletMarginWithDistanceLoss_cos": "nn.TripletMarginWithDistanceLoss(distance_function=nn.CosineSimilarity(), swap=True)(a1, a2, a3)",
    "NLLLoss_img": "nn.NLLLoss(weight=w3)(img.log_softmax(1), imgt)", "CrossEntropyLoss_img": "nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.1)(img, imgt)",
    "NLLLoss2d": "nn.NLLLoss2d()(img.log_softmax(1), imgt)", "PairwiseDistance": "nn.PairwiseDistance(p=1, keepdim=True)(a1, a2)",
    "LogSigmoid": "nn.LogSigmoid()(x * 4)",
}
cases("loss_modules", {k: "result = " + v for k, v in mods.items()}, setup=LSETUP, tol="float")

# torch.* / torch.nn.functional / torch._C._nn / torch.ops.aten spellings (every overload)
aten = {
    "torch_bcel": "torch.binary_cross_entropy_with_logits(x, tp, w5, w5, 1)",
    "torch_kl": "torch.kl_div(x, tp, 2)", "torch_kl_log": "torch.kl_div(x, y, 1, log_target=True)",
    "torch_pnll": "torch.poisson_nll_loss(x, tp, True, False, 1e-8, 1)",
    "torch_hinge": "torch.hinge_embedding_loss(x, torch.sign(y))", "torch_cosemb": "torch.cosine_embedding_loss(a1, a2, sgn)",
    "torch_marg": "torch.margin_ranking_loss(a1[:, 0], a2[:, 0], sgn)", "torch_trip": "torch.triplet_margin_loss(a1, a2, a3, reduction=2)",
    "torch_pdist": "torch.pairwise_distance(a1, a2)", "torch_pdist_bcast": "torch.pairwise_distance(a1, a2[:1], 3., 1e-3, True)",
    "torch_pdist_1d": "torch.pairwise_distance(a1[0], a2[0])",
    "nn_bce": "torch._C._nn.binary_cross_entropy(p, tp)", "nn_sl1": "torch._C._nn.smooth_l1_loss(x, y, 0, 2.)",
    "nn_huber": "torch._C._nn.huber_loss(x, y)", "nn_soft": "torch._C._nn.soft_margin_loss(x, y.sign())",
    "nn_mm": "torch._C._nn.multi_margin_loss(x, cls)", "nn_mlm": "torch._C._nn.multilabel_margin_loss(x, ml)",
    "nn_nll2d": "torch._C._nn.nll_loss2d(img, imgt)", "nn_log_sigmoid": "torch._C._nn.log_sigmoid(x)",
    "F_logsigmoid": "F.logsigmoid(x)",
    "aten_bce": "A.binary_cross_entropy.default(p, tp, w5, 2)",
    "aten_bce_out": "o = torch.empty(6, 5); r = A.binary_cross_entropy.out(p, tp, None, 1, out=o); result = (r, o)",
    "aten_bce_bcast": "A.binary_cross_entropy(p, tp[0], None, 0)",
    "aten_bce_bwd": "A.binary_cross_entropy_backward.default(y, p, tp, w5, 0)",
    "aten_bce_bwd_mean": "A.binary_cross_entropy_backward(torch.tensor(2.), p, tp, None, 1)",
    "aten_bce_bwd_out": "o = torch.empty(6, 5); A.binary_cross_entropy_backward.grad_input(y, p, tp, None, 2, grad_input=o); result = o",
    "aten_bcel": "A.binary_cross_entropy_with_logits.default(x, tp, None, w5, 0)",
    "aten_sl1_out": "o = torch.empty(0); A.smooth_l1_loss.out(x, y, 1, 0.5, out=o); result = o",
    "aten_sl1_bwd": "A.smooth_l1_loss_backward.default(y, x, a1, 0, 0.25)",
    "aten_sl1_bwd_out": "o = torch.empty(6, 5); A.smooth_l1_loss_backward.grad_input(torch.tensor(1.), x, a1, 1, 0.25, grad_input=o); result = o",
    "aten_huber_out": "o = torch.empty(6, 5); A.huber_loss.out(x, y, 0, 0.5, out=o); result = o",
    "aten_huber_bwd": "A.huber_loss_backward.default(y, x, a1, 0, 0.5)",
    "aten_huber_bwd_mean": "A.huber_loss_backward(torch.tensor(1.5), x, a1, 1, 0.5)",
    "aten_huber_bwd_out": "o = torch.empty(6, 5); A.huber_loss_backward.out(torch.tensor(1.), x, a1, 2, 0.5, grad_input=o); result = o",
    "aten_soft": "A.soft_margin_loss.default(x, y.sign(), 0)",
    "aten_soft_out": "o = torch.empty(0); A.soft_margin_loss.out(x, y.sign(), 1, out=o); result = o",
    "aten_soft_bwd": "A.soft_margin_loss_backward.default(y, x, a1.sign(), 0)",
    "aten_soft_bwd_out": "o = torch.empty(6, 5); A.soft_margin_loss_backward.grad_input(torch.tensor(1.), x, a1.sign(), 1, grad_input=o); result = o",
    "aten_ls_fwd": "A.log_sigmoid_forward.default(x * 20)",
    "aten_ls_fwd_out": "o, b = torch.empty(0), torch.empty(0); A.log_sigmoid_forward.output(x, output=o, buffer=b); result = (o, b)",
    "aten_ls_bwd": "o, b = A.log_sigmoid_forward(x * 3); result = A.log_sigmoid_backward.default(y, x * 3, b)",
    "aten_ls_bwd_out": "o, b = A.log_sigmoid_forward(x); g = torch.empty(6, 5); A.log_sigmoid_backward.grad_input(y, x, b, grad_input=g); result = g",
    "aten_log_sigmoid": "A.log_sigmoid.default(x)",
    "aten_mm_out": "o = torch.empty(0); A.multi_margin_loss.out(x, cls, 1, 1, None, 1, out=o); result = o",
    "aten_mm_bwd_out": "o = torch.empty(6, 5); A.multi_margin_loss_backward.grad_input(torch.tensor(1.), x, cls, 1, 1, None, 1, grad_input=o); result = o",
    "aten_mlm": "A.multilabel_margin_loss.default(x, ml, 2)",
    "aten_mlm_out": "o, it = torch.empty(0), torch.empty(0); A.multilabel_margin_loss_forward.output(x, ml, 1, output=o, is_target=it); result = (o, it)",
    "aten_mlm_bwd_out": "o, it = A.multilabel_margin_loss_forward(x, ml, 1); g = torch.empty(6, 5); A.multilabel_margin_loss_backward.grad_input(torch.tensor(1.), x, ml, 1, it, grad_input=g); result = g",
    "aten_nll2d": "A.nll_loss2d.default(img, imgt, w3, 2, 0)",
    "aten_nll2d_out": "o, tw = torch.empty(0), torch.empty(0); A.nll_loss2d_forward.output(img, imgt, None, 1, -100, output=o, total_weight=tw); result = (o, tw)",
    "aten_nll2d_bwd_out": "g = torch.empty(2, 3, 4, 5); A.nll_loss2d_backward.grad_input(torch.tensor(1.), img, imgt, None, 1, -100, torch.tensor(40.), grad_input=g); result = g",
    "aten_nll_nd": "A.nll_loss_nd.default(img.unsqueeze(-1), imgt.unsqueeze(-1), None, 1, -100)",
    "aten_kl": "A.kl_div.default(x, tp, 1, log_target=False)", "aten_pnll": "A.poisson_nll_loss.default(p, tp, False, True, 1e-6, 0)",
    "aten_hinge": "A.hinge_embedding_loss.default(x, y.sign(), 1.0, 1)",
    "aten_cosemb": "A.cosine_embedding_loss.default(a1, a2, sgn, 0.0, 2)",
    "aten_marg": "A.margin_ranking_loss.default(a1[:, 0], a2[:, 0], sgn, 0.0, 1)",
    "aten_trip": "A.triplet_margin_loss.default(a1, a2, a3, 1.0, 2.0, 1e-6, True, 1)",
    "aten_pdist": "A.pairwise_distance.default(a1, a2, 2.0, 1e-6, False)",
    "aten_ce": "A.cross_entropy_loss.default(img, imgt, None, 1, -100, 0.0)",
    "aten_l1": "A.l1_loss.default(x, y, 2)",
    "nograd_ce": "F.cross_entropy(x, cls)",
    "bce_f16": "F.binary_cross_entropy(p.half(), tp.half(), reduction='none')",
    "bce_bf16": "F.binary_cross_entropy(p.bfloat16(), tp.bfloat16(), reduction='sum')",
    "bceb_bf16": "A.binary_cross_entropy_backward(y.bfloat16(), p.bfloat16(), tp.bfloat16(), None, 0)",
    "bcel_bf16": "F.binary_cross_entropy_with_logits(x.bfloat16(), tp.bfloat16())",
    "huber_bf16": "F.huber_loss(x.bfloat16(), y.bfloat16(), reduction='none')",
    "hubb_f16": "A.huber_loss_backward(y.half(), x.half(), a1.half(), 0, 0.5)",
    "sl1b_bf16": "A.smooth_l1_loss_backward(y.bfloat16(), x.bfloat16(), a1.bfloat16(), 0, 0.5)",
    "ls_f16": "A.log_sigmoid_forward(x.half() * 3)", "ls_bf16": "F.logsigmoid(x.bfloat16())",
    "nll2d_bf16": "F.nll_loss(img.bfloat16(), imgt)", "nll2d_f16_none": "F.nll_loss(img.half(), imgt, reduction='none')",
    "huber_mixed": "A.huber_loss(x, y.double(), 0, 1.)", "sl1_mixed": "A.smooth_l1_loss(x, y.double(), 1, 1.)",
    "sl1_bcast": "A.smooth_l1_loss(x, y[0], 0, 1.)", "bcel_bcast_w": "F.binary_cross_entropy_with_logits(x, tp, weight=w5[None])",
    "zero_dim": "[F.smooth_l1_loss(x[0, 0], y[0, 0]), F.huber_loss(x[0, 0], y[0, 0]), F.binary_cross_entropy(p[0, 0], tp[0, 0]), F.soft_margin_loss(x[0, 0], y[0, 0].sign()), F.multi_margin_loss(x[0, 0], cls[0] * 0)]",
    "empty": "[F.smooth_l1_loss(x[:0], y[:0]), F.huber_loss(x[:0], y[:0], reduction='sum'), F.binary_cross_entropy(p[:0], tp[:0]), F.kl_div(x[:0], tp[:0], reduction='sum')]",
    "noncontig": "[F.smooth_l1_loss(x.t(), y.t(), reduction='none'), F.huber_loss(x.t(), y.t()), F.binary_cross_entropy(p.t(), tp.t(), reduction='none'), F.multilabel_margin_loss(x[:, ::2], ml[:, :3].clamp(max=2))]",
}
cases("loss_spellings", {k: ("result = " + v) if "result =" not in v else v for k, v in aten.items()}, setup=LSETUP, tol="float")

# bad input: upstream's exception types
bad = {
    "bce_range_input": "F.binary_cross_entropy(p * 2, tp)", "bce_range_target": "F.binary_cross_entropy(p, tp * 2)",
    "bce_nan": "F.binary_cross_entropy(torch.tensor([float('nan')]), torch.tensor([0.5]))",
    "bce_dtype": "A.binary_cross_entropy(p, tp.double())", "bce_long": "A.binary_cross_entropy(p.long(), tp.long())",
    "bce_size": "F.binary_cross_entropy(p, tp[0])", "bce_weight": "F.binary_cross_entropy(p, tp, weight=torch.ones(3))",
    "bce_bwd_dtype": "A.binary_cross_entropy_backward(torch.tensor(1.).double(), p, tp)",
    "bcel_size": "F.binary_cross_entropy_with_logits(x, tp[0])", "bcel_long": "A.binary_cross_entropy_with_logits(x.long(), tp.long())",
    "sl1_beta": "F.smooth_l1_loss(x, y, beta=-1.)", "sl1_long": "A.smooth_l1_loss(x.long(), y.long())",
    "sl1_shape": "A.smooth_l1_loss(x, y[:, :2])", "huber_delta": "F.huber_loss(x, y, delta=0.)",
    "huber_long": "A.huber_loss(x.long(), y.long())", "huber_bcast": "A.huber_loss(x[0], y)",
    "huber_bwd_dtype": "A.huber_loss_backward(torch.tensor(1.), x, y.double(), 1, 1.)",
    "ls_long": "F.logsigmoid(cls)", "red": "F.smooth_l1_loss(x, y, reduction='bad')",
    "mm_p": "F.multi_margin_loss(x, cls, p=3)", "mm_range": "F.multi_margin_loss(x, cls + 5)",
    "mm_target_size": "F.multi_margin_loss(x, cls[:3])", "mm_weight": "F.multi_margin_loss(x, cls, weight=torch.ones(4))",
    "mm_empty": "F.multi_margin_loss(x[:, :0], cls)", "mm_3d": "F.multi_margin_loss(img, imgt)",
    "mm_int_target": "F.multi_margin_loss(x, cls.int())", "mm_half": "F.multi_margin_loss(x.half(), cls)",
    "mm_weight_dtype": "A.multi_margin_loss(x, cls, 1, 1, w5.double())",
    "mlm_range": "F.multilabel_margin_loss(x, ml + 5)", "mlm_neg": "F.multilabel_margin_loss(x, ml - 3)",
    "mlm_size": "F.multilabel_margin_loss(x, ml[:, :3])", "mlm_1d_size": "F.multilabel_margin_loss(x[0], ml[0, :2])",
    "mlm_half": "F.multilabel_margin_loss(x.half(), ml)",
    "nll2d_target_dtype": "A.nll_loss2d_forward(img, imgt.int(), None, 1, -100)",
    "nll2d_byte": "A.nll_loss2d_forward(img, imgt.byte(), None, 1, -100)",
    "nll2d_size": "A.nll_loss2d_forward(img, imgt[:, :3], None, 1, -100)", "nll2d_dim": "A.nll_loss2d_forward(img[0], imgt, None, 1, -100)",
    "nll2d_tdim": "A.nll_loss2d_forward(img, imgt[0], None, 1, -100)", "nll2d_range": "F.nll_loss(img, imgt + 3)",
    "nll2d_weight": "F.nll_loss(img, imgt, weight=torch.ones(4))", "nll2d_long": "A.nll_loss2d_forward(img.long(), imgt, None, 1, -100)",
    "nll2d_weight_dtype": "A.nll_loss2d_forward(img, imgt, w3.double(), 1, -100)",
    "nll2d_bwd_go": "A.nll_loss2d_backward(torch.ones(2, 4), img, imgt, None, 0, -100, torch.tensor(0.))",
    "nll2d_bwd_go1": "A.nll_loss2d_backward(torch.ones(2), img, imgt, None, 1, -100, torch.tensor(0.))",
    "nll2d_bwd_tw": "A.nll_loss2d_backward(torch.tensor(1.), img, imgt, None, 1, -100, torch.ones(2))",
    "nll_3d_target": "F.nll_loss(img[:, :, 0], imgt[:, :2, 0])", "ce_batch": "F.cross_entropy(img, imgt[:1])",
    "kl_int": "A.kl_div(cls, cls)", "cosemb_2d_target": "F.cosine_embedding_loss(a1, a2, sgn[None])",
    "cosemb_dims": "F.cosine_embedding_loss(a1[0], a2[0], sgn)", "cosemb_0d_dims": "F.cosine_embedding_loss(a1, a2, sgn[0])",
    "marg_size": "F.margin_ranking_loss(a1[:, 0], a2[:3, 0], sgn)", "trip_dims": "F.triplet_margin_loss(a1, a2[0], a3)",
    "trip_size": "F.triplet_margin_loss(a1, a2[:, :3], a3)", "gnll_var": "F.gaussian_nll_loss(x, y, -var)",
    "pnll_size": "F.poisson_nll_loss(x, tp[:, :2])",
    "mm_target_float": "F.multi_margin_loss(x, cls.float())",
}
cases("loss_errors", {k: "result = " + v for k, v in bad.items()}, setup=LSETUP)

# ---------------------------------------------------------------- gradients (graph + leaf grads)
from harness.autograd import F64, grads  # noqa: E402

GL = {
    "bce": "ps = [torch.rand(4, 5, requires_grad=True)]; t = torch.rand(4, 5); out = F.binary_cross_entropy(ps[0], t, reduction=R)",
    "bce_w_target": "ps = [torch.rand(4, 5, requires_grad=True), torch.rand(4, 5, requires_grad=True)]; out = F.binary_cross_entropy(ps[0], ps[1], weight=torch.rand(5), reduction=R)",
    "bcel": "ps = leaves((4, 5)); out = F.binary_cross_entropy_with_logits(ps[0], torch.rand(4, 5), reduction=R)",
    "bcel_pw_target": "ps = leaves((4, 5), (4, 5)); out = F.binary_cross_entropy_with_logits(ps[0], ps[1].sigmoid(), weight=torch.rand(5), pos_weight=torch.rand(5) + 0.5, reduction=R)",
    "bcel_target": "ps = leaves((4, 5), (4, 5)); out = F.binary_cross_entropy_with_logits(ps[0], ps[1], reduction=R)",
    "kl": "ps = leaves((4, 5)); out = F.kl_div(ps[0].log_softmax(1), torch.rand(4, 5), reduction=R if R != 'mean' else 'batchmean')",
    "kl_log_target": "ps = leaves((4, 5), (4, 5)); out = F.kl_div(ps[0], ps[1], log_target=True, reduction=R)",
    "sl1": "ps = leaves((4, 5), (4, 5)); out = F.smooth_l1_loss(ps[0], ps[1], beta=0.6, reduction=R)",
    "sl1_b0": "ps = leaves((4, 5)); out = F.smooth_l1_loss(ps[0], torch.zeros(4, 5), beta=0., reduction=R)",
    "huber": "ps = leaves((4, 5), (4, 5)); out = F.huber_loss(ps[0], ps[1], delta=0.6, reduction=R)",
    "pnll": "ps = leaves((4, 5)); out = F.poisson_nll_loss(ps[0], torch.rand(4, 5) * 3, reduction=R)",
    "pnll_full": "ps = [torch.rand(4, 5, requires_grad=True)]; out = F.poisson_nll_loss(ps[0], torch.rand(4, 5) * 3, log_input=False, full=True, reduction=R)",
    "gnll": "ps = leaves((4, 5), (4, 5)); out = F.gaussian_nll_loss(ps[0], torch.zeros(4, 5), ps[1].exp(), reduction=R)",
    "softm": "ps = leaves((4, 5)); out = F.soft_margin_loss(ps[0], torch.randn(4, 5).sign(), reduction=R)",
    "mlsm": "ps = leaves((4, 5)); out = F.multilabel_soft_margin_loss(ps[0], (torch.randn(4, 5) > 0).float(), weight=torch.rand(5), reduction=R)",
    "mlm": "ps = leaves((4, 5)); out = F.multilabel_margin_loss(ps[0], torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [0, -1, 1, 1, 1], [4, 3, 2, 1, 0]]), reduction=R)",
    "mm": "ps = leaves((4, 5)); out = F.multi_margin_loss(ps[0], torch.tensor([1, 0, 4, 2]), reduction=R)",
    "mm_p2_w": "ps = leaves((4, 5)); out = F.multi_margin_loss(ps[0], torch.tensor([1, 0, 4, 2]), p=2, margin=0.5, weight=torch.rand(5), reduction=R)",
    "hinge": "ps = leaves((4, 5)); out = F.hinge_embedding_loss(ps[0], torch.randn(4, 5).sign(), margin=0.5, reduction=R)",
    "cosemb": "ps = leaves((4, 5), (4, 5)); out = F.cosine_embedding_loss(ps[0], ps[1], torch.tensor([1., -1., 1., -1.]), margin=-0.5, reduction=R)",
    "marg": "ps = leaves((4,), (4,)); out = F.margin_ranking_loss(ps[0], ps[1], torch.tensor([1., -1., 1., -1.]), margin=0.1, reduction=R)",
    "trip": "ps = leaves((4, 5), (4, 5), (4, 5)); out = F.triplet_margin_loss(ps[0], ps[1], ps[2], margin=2., reduction=R)",
    "trip_swap": "ps = leaves((4, 5), (4, 5), (4, 5)); out = F.triplet_margin_loss(ps[0], ps[1], ps[2], margin=2., p=1, swap=True, reduction=R)",
    "tripd": "ps = leaves((4, 5), (4, 5), (4, 5)); out = F.triplet_margin_with_distance_loss(ps[0], ps[1], ps[2], margin=2., reduction=R)",
    "ce_img": "ps = leaves((2, 3, 4, 5)); out = F.cross_entropy(ps[0], torch.randint(0, 3, (2, 4, 5)), reduction=R)",
    "ce_img_w_ign": "ps = leaves((2, 3, 4, 5)); out = F.cross_entropy(ps[0], torch.randint(0, 3, (2, 4, 5)), weight=torch.rand(3), ignore_index=1, reduction=R)",
    "ce_img_ls": "ps = leaves((2, 3, 4, 5)); out = F.cross_entropy(ps[0], torch.randint(0, 3, (2, 4, 5)), label_smoothing=0.3, reduction=R)",
    "nll_3d": "ps = leaves((2, 3, 4)); out = F.nll_loss(ps[0], torch.randint(0, 3, (2, 4)), reduction=R)",
    "nll_5d": "ps = leaves((2, 3, 2, 2, 3)); out = F.nll_loss(ps[0], torch.randint(0, 3, (2, 2, 2, 3)), reduction=R)",
    "logsigmoid": "ps = leaves((4, 5)); out = F.logsigmoid(ps[0] * 3)",
}
gl = {}
for k, e in GL.items():
    for r in (["none", "mean", "sum"] if "reduction=R" in e else ["none"]):
        gl["%s_%s" % (k, r)] = "torch.manual_seed(1)\nF = torch.nn.functional\nR = %r\n%s" % (r, e)
grads("gradl_losses", gl)
# float64 through the default dtype, restored before backward (the worker runs every case)
grads("gradl_losses_f64", {k: "torch.set_default_dtype(torch.float64)\n" + v + "\ntorch.set_default_dtype(torch.float32)"
                           for k, v in gl.items() if k.endswith("_mean")}, tol=F64)

# double backward through nll_loss2d_backward's grad_output (upstream: nll_loss2d of the grad)
DD = "ps = leaves((3, 4), (3, 4)); g = torch.autograd.grad(%s, ps[0], create_graph=True)[0]; out = (g * torch.arange(12.).reshape(3, 4)).sum() + g.pow(2).sum()"
grads("gradl_double_loss", {k: "F = torch.nn.functional\n" + DD % v for k, v in {
    "sl1_mean": "F.smooth_l1_loss(ps[0], ps[1], beta=0.5)", "sl1_none": "(F.smooth_l1_loss(ps[0], ps[1], beta=0.5, reduction='none') * ps[1]).sum()",
    "sl1_sum": "F.smooth_l1_loss(ps[0], ps[1], beta=2., reduction='sum')",
    "huber_mean": "F.huber_loss(ps[0], ps[1], delta=0.5)", "huber_none": "(F.huber_loss(ps[0], ps[1], delta=0.5, reduction='none') * ps[1]).sum()",
    "huber_sum": "F.huber_loss(ps[0], ps[1], delta=2., reduction='sum') * ps[1].sum()",
    "logsigmoid": "(F.logsigmoid(ps[0] * 2) * ps[1]).sum()", "bcel": "F.binary_cross_entropy_with_logits(ps[0], ps[1].sigmoid())",
    "bce_mean_w": "F.binary_cross_entropy(ps[0].sigmoid(), ps[1].sigmoid(), weight=torch.arange(1., 5.))",
    "bce_sum": "F.binary_cross_entropy(ps[0].sigmoid(), ps[1].sigmoid(), reduction='sum')",
}.items()})
grads("gradl_double", {k: "F = torch.nn.functional\n" + v for k, v in {
    "nll2d": "ps = leaves((2, 3, 2, 2), dtype=torch.float32); t = torch.randint(0, 3, (2, 2, 2)); l = F.nll_loss(ps[0], t, reduction='none'); g = torch.autograd.grad(l, ps[0], torch.ones(2, 2, 2, requires_grad=True), create_graph=True)[0]; out = g.sum()",
}.items()})

# ---------------------------------------------------------------- CTC
CSETUP = """
torch.manual_seed(0)
A = torch.ops.aten
F = torch.nn.functional
D = globals().get("D", torch.float32)
lp = torch.randn(12, 3, 6, dtype=D) * 0.5 - 1.8   # about log(1/6); exact inputs on both sides
tg = torch.randint(1, 6, (3, 5)); il = torch.tensor([12, 10, 7]); tl = torch.tensor([5, 3, 0])
"""
ctc = {}
for d in ["float32", "float64"]:
    for r in ["none", "mean", "sum"]:
        for zi in [False, True]:
            ctc["%s_%s_zi%d" % (d, r, zi)] = "D = torch.%s\n%s\nresult = F.ctc_loss(lp, tg, il, tl, reduction=%r, zero_infinity=%s)" % (d, CSETUP, r, zi)
            ctc["list_%s_%s_zi%d" % (d, r, zi)] = "D = torch.%s\n%s\nresult = F.ctc_loss(lp, tg.int(), [12, 10, 7], [5, 3, 0], reduction=%r, zero_infinity=%s)" % (d, CSETUP, r, zi)
ctc.update({k: CSETUP + v for k, v in {
    "concat": "result = F.ctc_loss(lp, torch.cat([tg[0, :5], tg[1, :3]]), il, tl, reduction='none')",
    "inf": "result = F.ctc_loss(lp, tg, torch.tensor([12, 2, 0]), torch.tensor([5, 3, 1]), reduction='none')",
    "inf_zero": "result = F.ctc_loss(lp, tg, torch.tensor([12, 2, 0]), torch.tensor([5, 3, 1]), reduction='mean', zero_infinity=True)",
    "unbatched": "result = F.ctc_loss(lp[:, 0], tg[0], torch.tensor(12), torch.tensor(5), reduction='none')",
    "blank_last": "result = F.ctc_loss(lp, tg - 1, il, tl, blank=5, reduction='sum')",
    "module": "result = torch.nn.CTCLoss(blank=0, zero_infinity=True)(lp, tg, il, tl)",
    "torch_ctc": "result = torch.ctc_loss(lp, tg, il, tl)",
    "torch_ctc_list": "result = torch.ctc_loss(lp, tg, [12, 10, 7], [5, 3, 0], 0, 2)",
    "aten_ctc": "result = A.ctc_loss.Tensor(lp, tg, il, tl, 0, 1, False)",
    "aten_ctc_list": "result = A.ctc_loss.IntList(lp, tg, [12, 10, 7], [5, 3, 0])",
    "aten__ctc": "result = A._ctc_loss.default(lp, tg, [12, 10, 7], [5, 3, 0])[0]",
    "aten__ctc_tensor": "result = A._ctc_loss.Tensor(lp, tg.int(), il, tl, 0, True)[0]",
    "aten__ctc_bwd": "n, a = A._ctc_loss(lp, tg, [12, 10, 7], [5, 3, 0]); result = A._ctc_loss_backward.default(torch.ones(3), lp, tg, [12, 10, 7], [5, 3, 0], n, a, 0)",
    "aten__ctc_bwd_tensor": "n, a = A._ctc_loss.Tensor(lp, tg, il, tl); result = A._ctc_loss_backward.Tensor(torch.tensor([1., 0.5, 2.]), lp, tg, il, tl, n, a, 0, False)",
    "aten__ctc_bwd_zinf": "il2 = torch.tensor([12, 2, 0]); tl2 = torch.tensor([5, 3, 1]); n, a = A._ctc_loss.Tensor(lp, tg, il2, tl2); result = A._ctc_loss_backward.Tensor(torch.ones(3), lp, tg, il2, tl2, n, a, 0, True)",
}.items()})
# log_alpha (the second output) is torch.empty upstream, written only where the recursion goes:
# the backward cases' named variables are not compared (vars=False)
cases("loss_ctc_bwd", {k: ctc.pop(k) for k in [k for k in ctc if "_bwd" in k]}, tol="float", vars=False)
cases("loss_ctc", ctc, tol="float")
cases("loss_ctc_errors", vars=False, snippets={k: CSETUP + "result = " + v for k, v in {
    "half": "F.ctc_loss(lp.half(), tg, il, tl)", "lp_dim": "A._ctc_loss(lp[0], tg, [12], [5])",
    "tg_dim": "A._ctc_loss(lp, tg[None], [12, 10, 7], [5, 3, 0])", "tg_dtype": "A._ctc_loss(lp, tg.float(), [12, 10, 7], [5, 3, 0])",
    "blank": "F.ctc_loss(lp, tg, il, tl, blank=6)", "il_size": "F.ctc_loss(lp, tg, il[:2], tl)", "tl_size": "F.ctc_loss(lp, tg, il, tl[:2])",
    "tl_neg": "F.ctc_loss(lp, tg, il, torch.tensor([5, -1, 0]))", "il_big": "F.ctc_loss(lp, tg, torch.tensor([13, 10, 7]), tl)",
    "il_neg": "F.ctc_loss(lp, tg, torch.tensor([12, -1, 7]), tl)", "tg_short": "F.ctc_loss(lp, tg, il, torch.tensor([6, 3, 0]))",
    "tg_batch": "F.ctc_loss(lp, tg[:2], il, tl)", "concat_size": "F.ctc_loss(lp, tg.flatten()[:7], il, tl)",
    "il_float": "A.ctc_loss.Tensor(lp, tg, il.float(), tl)", "tl_float": "A._ctc_loss.Tensor(lp, tg, il, tl.float())",
}.items()})
# gradients: float32 compared with twice upstream's own float32 error on these inputs (|f32 - f64|
# of the gradient, measured on .venv-ref: 1.66e-06)
CG = {
    "ctc_%s_zi%d" % (r, zi): "torch.manual_seed(0); ps = [(torch.randn(12, 3, 6) * 0.5 - 1.8).requires_grad_()]; "
    "out = F.ctc_loss(ps[0], torch.randint(1, 6, (3, 5)), torch.tensor([12, 10, 7]), torch.tensor([5, 3, 0]), reduction=%r, zero_infinity=%s)" % (r, zi)
    for r in ["none", "mean", "sum"] for zi in [False, True]}
CG["ctc_list_unreachable"] = ("torch.manual_seed(0); ps = [(torch.randn(12, 3, 6) * 0.5 - 1.8).requires_grad_()]; "
                              "out = F.ctc_loss(ps[0], torch.randint(1, 6, (3, 5)), [12, 2, 7], [5, 3, 0], reduction='sum', zero_infinity=True)")
CG["ctc_unbatched"] = ("torch.manual_seed(0); ps = [(torch.randn(12, 6) * 0.5 - 1.8).requires_grad_()]; "
                       "out = F.ctc_loss(ps[0], torch.randint(1, 6, (5,)), torch.tensor(12), torch.tensor(5))")
grads("gradl_ctc", {k: "F = torch.nn.functional\n" + v for k, v in CG.items()}, tol=(2 * 1.66e-06, 64 * 2.0 ** -23))
grads("gradl_ctc_f64", {k: "F = torch.nn.functional\ntorch.set_default_dtype(torch.float64)\n" + v + "\ntorch.set_default_dtype(torch.float32)"
                        for k, v in CG.items()}, tol=F64)

# ---------------------------------------------------------------- upstream's OpInfo samples
# op_db's sample inputs for the loss OpInfos (values and input gradients of every sample; a
# sample that raises is compared by exception type). cosine_embedding_loss's sample generator
# calls Tensor.detach_, which this core lacks: left out.
OPINFO = """
from torch.testing._internal.common_methods_invocations import op_db
op = [o for o in op_db if o.name == NAME and o.variant_test_name == ''][0]
torch.manual_seed(0)
result = []
for s in op.sample_inputs('cpu', D, requires_grad=True):
    try:
        out = op.op(s.input, *s.args, **s.kwargs)
        ins = [t for t in [s.input, *s.args, *s.kwargs.values()] if isinstance(t, torch.Tensor) and t.requires_grad]
        gs = torch.autograd.grad(out.sum(), ins, allow_unused=True)
        result.append([out] + [g for g in gs if g is not None])
    except Exception as e:
        result.append(type(e).__name__)
"""
OPS = ["binary_cross_entropy", "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "l1_loss", "logsigmoid",
       "margin_ranking_loss", "mse_loss", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
       "nll_loss", "pairwise_distance", "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
       "triplet_margin_with_distance_loss", "ctc_loss"]
# Left out: three samples sets whose float rule has no usable error estimate (the float64 re-run
# gives err 0 for float64 outputs, none for these float32 ones) while the values go through
# log / exp, which round differently here by an ulp or two (CTC's float64 gradient then cancels):
# binary_cross_entropy float64, poisson_nll_loss float32, ctc_loss float64. The dedicated cases
# above cover them with measured tolerances.
SKIP = {("binary_cross_entropy", "float64"), ("poisson_nll_loss", "float32"), ("ctc_loss", "float64")}
cases("loss_opinfo", {"%s_%s" % (n, d): "NAME = 'nn.functional.%s'\nD = torch.%s\n%s" % (n, d, OPINFO)
                      for n in OPS for d in ["float32", "float64"] if (n, d) not in SKIP}, tol="float", vars=False)

# ---------------------------------------------------------------- cosine_similarity (distance of the margin losses)
cases("loss_cosine_similarity", {k: LSETUP + "result = " + v for k, v in {
    "default": "F.cosine_similarity(a1, a2)", "dim0_eps": "F.cosine_similarity(a1, a2, dim=0, eps=1e-2)",
    "bcast": "F.cosine_similarity(a1, a2[:1], dim=-1)", "int": "F.cosine_similarity(a1, cls[:5].int())",
    "f64": "F.cosine_similarity(a1.double(), a2)", "zero": "F.cosine_similarity(a1 * 0, a2)",
    "module": "nn.CosineSimilarity(dim=0)(a1, a2)", "aten": "A.cosine_similarity.default(a1, a2, 1, 1e-8)",
    "torch": "torch.cosine_similarity(a1, a2)",
    "trip_cos": "nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5)(a1, a2, a3)",
    "bad_int": "F.cosine_similarity(cls, cls)", "bad_shape": "F.cosine_similarity(a1, a2[:, :2])",
}.items()}, tol="float")
grads("gradl_cosine_similarity", {
    "default": "ps = leaves((4, 5), (4, 5)); out = torch.nn.functional.cosine_similarity(ps[0], ps[1])",
    "bcast_eps": "ps = leaves((4, 5), (1, 5)); out = torch.nn.functional.cosine_similarity(ps[0], ps[1] * 1e-4, eps=1e-3)",
    "trip_cos": "ps = leaves((4, 5), (4, 5), (4, 5)); out = torch.nn.functional.triplet_margin_with_distance_loss(ps[0], ps[1], ps[2], distance_function=lambda u, v: 1 - torch.nn.functional.cosine_similarity(u, v))",
})

# ---------------------------------------------------------------- arguments without a derivative
# upstream's autograd kernels refuse an argument requiring grad that has no formula
# (check_no_requires_grad): class weights, pos_weight, soft_margin_loss's target; those with one
# (mse / l1 / kl_div / BCE-with-logits targets, Gaussian NLL's var) differentiate.
ND = """
torch.manual_seed(0)
F = torch.nn.functional
x = torch.randn(4, 5, requires_grad=True)
t = torch.rand(4, 5, requires_grad=True)
tl = torch.tensor([0, 1, 2, 3])
w = torch.rand(5, requires_grad=True)
def run(f):
    r = f()
    (r.sum() if r.dim() else r).backward()
    return r, x.grad, t.grad, w.grad
"""
cases("loss_nondiff_args", {k: ND + "result = run(lambda: %s)" % v for k, v in {
    "bce_weight": "F.binary_cross_entropy(x.sigmoid(), t.detach(), weight=w)",
    "bce_target": "F.binary_cross_entropy(x.sigmoid(), t)",
    "bce_logits_weight": "F.binary_cross_entropy_with_logits(x, t, weight=w)",
    "bce_logits_pos_weight": "F.binary_cross_entropy_with_logits(x, t, pos_weight=w)",
    "bce_logits_target": "F.binary_cross_entropy_with_logits(x, t)",
    "soft_margin_target": "F.soft_margin_loss(x, t)",
    "soft_margin_target_none": "F.soft_margin_loss(x, t, reduction='none')",
    "multi_margin_weight": "F.multi_margin_loss(x, tl, weight=w)",
    "nll_weight": "F.nll_loss(x, tl, weight=w)",
    "nll_weight_only": "F.nll_loss(x.detach(), tl, weight=w)",
    "nll2d_weight": "F.nll_loss(x.view(2, 5, 2, 1).expand(2, 5, 2, 3), torch.zeros(2, 2, 3, dtype=torch.long), weight=w)",
    "cross_entropy_weight": "F.cross_entropy(x, tl, weight=w)",
    "cross_entropy_probs_weight": "F.cross_entropy(x, t, weight=w)",
    "cross_entropy_module": "torch.nn.CrossEntropyLoss(weight=w)(x, tl)",
    "multilabel_soft_weight": "F.multilabel_soft_margin_loss(x, t.detach(), weight=w)",
    "mse_target": "F.mse_loss(x, t)",
    "kl_target": "F.kl_div(x, t, reduction='batchmean')",
    "gaussian_var": "F.gaussian_nll_loss(x, t.detach(), t.abs() + 0.1)",
    "weight_no_grad_mode": "(lambda: (torch.set_grad_enabled(False), F.nll_loss(x, tl, weight=w), torch.set_grad_enabled(True))[1].requires_grad_())()",
}.items()}, tol=(1e-6, 64 * 2.0 ** -23), vars=False)   # the gradient rule of harness/autograd.py
