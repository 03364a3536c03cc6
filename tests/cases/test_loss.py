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
