"""Weight normalisation (src/ops/weight_norm.c, docs/weight_norm.md) against upstream 2.13.0:
norm_except_dim (every dim, -1 = the whole tensor, pow), _weight_norm (the fused kernel for dim 0
and the last dim, the composite v * (g / norm_except_dim) elsewhere), the CPU kernels
_weight_norm_interface / _weight_norm_interface_backward and the composite
_weight_norm_differentiable_backward, dtypes (norm in float for bf16/f16), empty tensors, bad
input; gradients and graphs (WeightNormInterfaceBackward0 on the fused path, the composite's
nodes elsewhere, double backward through the differentiable backward), the op stream a dispatch
mode sees, and nn.utils.weight_norm / nn.utils.parametrizations.weight_norm modules forward and
backward. Sums of squares follow upstream's vector lanes on its side, so values take tol="float"."""
from harness import cases
from harness.autograd import F64, grads

SETUP = """
torch.manual_seed(0)
A = torch.ops.aten
v = torch.randn(4, 3, 5)
v2 = torch.randn(6, 7)
"""

fwd = {
    "nxd_0": "torch.norm_except_dim(v, 2, 0)",
    "nxd_1": "torch.norm_except_dim(v, 2, 1)",
    "nxd_2": "torch.norm_except_dim(v, 2, 2)",
    "nxd_whole": "torch.norm_except_dim(v, 2, -1)",
    "nxd_neg2": "torch.norm_except_dim(v, 2, -2)",
    "nxd_neg3": "torch.norm_except_dim(v, 2, -3)",
    "nxd_pow3": "torch.norm_except_dim(v, 3, 1)",
    "nxd_pow1": "torch.norm_except_dim(v2, 1, 0)",
    "nxd_pow0": "torch.norm_except_dim(v2, 0, 1)",
    "nxd_default": "torch.norm_except_dim(v2)",
    "nxd_f64": "torch.norm_except_dim(v.double(), 2, 1)",
    "nxd_bf16": "torch.norm_except_dim(v.bfloat16(), 2, 0)",
    "nxd_noncontig": "torch.norm_except_dim(v.transpose(0, 2), 2, 0)",
    "nxd_0d_whole": "torch.norm_except_dim(torch.tensor(3.), 2, -1)",
    "nxd_1d": "torch.norm_except_dim(torch.randn(5), 2, 0)",
    "nxd_aten": "torch.ops.aten.norm_except_dim.default(v, 2, 1)",
    "wn_0": "torch._weight_norm(v, torch.randn(4, 1, 1), 0)",
    "wn_last": "torch._weight_norm(v, torch.randn(1, 1, 5), 2)",
    "wn_mid": "torch._weight_norm(v, torch.randn(1, 3, 1), 1)",
    "wn_whole": "torch._weight_norm(v, torch.tensor(2.5), -1)",
    "wn_neg2": "torch._weight_norm(v, torch.randn(1, 3, 1), -2)",
    "wn_2d_0": "torch._weight_norm(v2, torch.randn(6, 1))",
    "wn_2d_1": "torch._weight_norm(v2, torch.randn(1, 7), 1)",
    "wn_1d": "torch._weight_norm(torch.randn(5), torch.randn(5), 0)",
    "wn_f64": "torch._weight_norm(v.double(), torch.randn(4, 1, 1).double(), 0)",
    "wn_f64_last": "torch._weight_norm(v.double(), torch.randn(1, 1, 5).double(), 2)",
    "wn_bf16": "torch._weight_norm(v.bfloat16(), torch.randn(4, 1, 1).bfloat16(), 0)",
    "wn_f16_last": "torch._weight_norm(v.half(), torch.randn(1, 1, 5).half(), 2)",
    "wn_mixed_mid": "torch._weight_norm(v, torch.randn(1, 3, 1).double(), 1)",
    "wn_noncontig": "torch._weight_norm(v.transpose(0, 2), torch.randn(5, 1, 1), 0)",
    "wn_g_flat": "torch._weight_norm(v2, torch.randn(6), 0)",
    "wn_empty_cols": "torch._weight_norm(torch.zeros(3, 0), torch.ones(3, 1), 0)",
    "wn_zero_row": "torch._weight_norm(torch.zeros(2, 3), torch.ones(2, 1), 0)",
    "wn_aten": "torch.ops.aten._weight_norm.default(v, torch.randn(1, 1, 5), 2)",
    "wn_aten_mid": "torch.ops.aten._weight_norm.default(v, torch.randn(1, 3, 1), 1)",
    "wn_conv_weight": "torch._weight_norm(torch.randn(8, 4, 3), torch.randn(1, 1, 3), 2)",
    "iface_0": "torch._weight_norm_interface(v, torch.randn(4, 1, 1), 0)",
    "iface_last": "torch._weight_norm_interface(v, torch.randn(1, 1, 5), 2)",
    "iface_f64": "torch._weight_norm_interface(v2.double(), torch.randn(6, 1).double(), 0)",
    "iface_bf16": "torch._weight_norm_interface(v2.bfloat16(), torch.randn(1, 7).bfloat16(), 1)",
    "iface_f16": "torch._weight_norm_interface(v2.half(), torch.randn(6, 1).half(), 0)",
    "iface_empty_cols": "torch._weight_norm_interface(torch.zeros(3, 0), torch.ones(3, 1), 0)",
    "iface_aten": "A._weight_norm_interface.default(v2, torch.randn(6, 1), 0)",
    "bwd_0": "r = torch._weight_norm_interface(v2, torch.randn(6, 1), 0)\n"
             "A._weight_norm_interface_backward.default(torch.randn(6, 7), v2, torch.randn(6, 1), r[1], 0)",
    "bwd_last": "r = torch._weight_norm_interface(v, torch.randn(1, 1, 5), 2)\n"
                "A._weight_norm_interface_backward.default(torch.randn(4, 3, 5), v, torch.randn(1, 1, 5), r[1], 2)",
    "bwd_f64": "g = torch.randn(1, 7).double()\nr = torch._weight_norm_interface(v2.double(), g, 1)\n"
               "A._weight_norm_interface_backward.default(torch.randn(6, 7).double(), v2.double(), g, r[1], 1)",
    "bwd_bf16": "g = torch.randn(6, 1).bfloat16()\nr = torch._weight_norm_interface(v2.bfloat16(), g, 0)\n"
                "A._weight_norm_interface_backward.default(torch.randn(6, 7).bfloat16(), v2.bfloat16(), g, r[1], 0)",
    "bwd_empty": "A._weight_norm_interface_backward.default(torch.zeros(3, 0), torch.zeros(3, 0), torch.ones(3, 1), torch.ones(3, 1), 0)",
    "dbwd_0": "g = torch.randn(6, 1)\nr = torch._weight_norm_interface(v2, g, 0)\n"
              "torch.ops.aten._weight_norm_differentiable_backward.default(torch.randn(6, 7), v2, g, r[1], 0)",
    "dbwd_last": "g = torch.randn(1, 1, 5)\nr = torch._weight_norm_interface(v, g, 2)\n"
                 "A._weight_norm_differentiable_backward.default(torch.randn(4, 3, 5), v, g, r[1], 2)",
    "dbwd_bf16_norm_f32": "g = torch.randn(6, 1).bfloat16()\nr = torch._weight_norm_interface(v2.bfloat16(), g, 0)\n"
                          "A._weight_norm_differentiable_backward.default(torch.randn(6, 7).bfloat16(), v2.bfloat16(), g, r[1], 0)",
}
cases("weight_norm", {k: SETUP + v if "\n" in v else SETUP + "result = " + v for k, v in fwd.items()}, tol="float")

bad = {
    "nxd_dim_range": "torch.norm_except_dim(v2, 2, 5)",
    "nxd_int": "torch.norm_except_dim(v2.long(), 2, 0)",
    "nxd_0d": "torch.norm_except_dim(torch.tensor(3.), 2, 0)",
    "wn_dim_range": "torch._weight_norm(v2, torch.ones(6, 1), -3)",
    "wn_0d": "torch._weight_norm(torch.tensor(3.), torch.tensor(2.), 0)",
    "wn_long": "torch._weight_norm(v2.long(), torch.ones(6, 1).long(), 0)",
    "wn_complex": "torch._weight_norm(v2.to(torch.complex64), torch.ones(1, 7, dtype=torch.complex64), 1)",
    "wn_g_dtype": "torch._weight_norm(v2, torch.ones(6, 1).double(), 0)",
    "wn_mid_bad_dim": "torch._weight_norm(v2, torch.ones(6, 1), 5)",
    "iface_mid_dim": "torch._weight_norm_interface(v, torch.ones(1, 3, 1), 1)",
    "iface_neg_dim": "torch._weight_norm_interface(v2, torch.ones(6, 1), -1)",
    "iface_0d": "torch._weight_norm_interface(torch.tensor(3.), torch.tensor(2.), 0)",
    "iface_int": "torch._weight_norm_interface(v2.int(), torch.ones(6, 1).int(), 0)",
    "iface_g_dtype": "torch._weight_norm_interface(v2, torch.ones(6, 1).double(), 0)",
    "bwd_v_noncontig": "A._weight_norm_interface_backward.default(torch.ones(7, 6), v2.t(), torch.ones(7, 1), torch.ones(7, 1), 0)",
    "bwd_g_noncontig": "A._weight_norm_interface_backward.default(torch.ones(6, 7), v2, torch.ones(6, 2)[:, :1], torch.ones(6, 1), 0)",
    "bwd_norm_noncontig": "A._weight_norm_interface_backward.default(torch.ones(6, 7), v2, torch.ones(6, 1), torch.ones(6, 2)[:, :1], 0)",
    "bwd_mid_dim": "A._weight_norm_interface_backward.default(torch.ones(4, 3, 5), v, torch.ones(1, 3, 1), torch.ones(1, 3, 1), 1)",
    "bwd_int": "A._weight_norm_interface_backward.default(torch.ones(6, 7).long(), v2.long(), torch.ones(6, 1).long(), torch.ones(6, 1).long(), 0)",
    "bwd_norm_dtype": "A._weight_norm_interface_backward.default(torch.ones(6, 7).bfloat16(), v2.bfloat16(), torch.ones(6, 1).bfloat16(), "
                      "torch.ones(6, 1).bfloat16(), 0)",
    "bwd_grad_dtype": "A._weight_norm_interface_backward.default(torch.ones(6, 7).double(), v2, torch.ones(6, 1), torch.ones(6, 1), 0)",
    "dbwd_mid_dim": "A._weight_norm_differentiable_backward.default(torch.ones(4, 3, 5), v, torch.ones(1, 3, 1), torch.ones(1, 3, 1), 1)",
    "dbwd_noncontig": "A._weight_norm_differentiable_backward.default(torch.ones(7, 6).t(), v2, torch.ones(6, 1), torch.ones(6, 1), 0)",
}
cases("weight_norm_bad", {k: SETUP + v for k, v in bad.items()})

# the op stream a dispatch mode sees (CompositeImplicitAutograd pieces, the fused kernel) and
# under autograd, forward and backward
MODE = SETUP + """
from torch.utils._python_dispatch import TorchDispatchMode
class M(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, f, t, a, k=None):
        self.ops.append(str(f))
        return f(*a, **(k or {}))
"""
stream = {}
for key, call in {"0": "v, g0, 0", "last": "v, g2, 2", "mid": "v, g1, 1", "whole": "v, gw, -1"}.items():
    stream[key] = (MODE + "torch.manual_seed(1)\ng0, g1, g2, gw = torch.randn(4, 1, 1), torch.randn(1, 3, 1), torch.randn(1, 1, 5), torch.tensor(2.)\n"
                   "vv = v.clone().requires_grad_()\n"
                   "for t in (g0, g1, g2, gw): t.requires_grad_()\n"
                   f"m = M()\nwith m:\n    w = torch._weight_norm({call.replace('v,', 'vv,', 1)})\n    w.pow(2).sum().backward()\n"
                   "result = m.ops")
stream["no_grad"] = MODE + "m = M()\nwith m:\n    torch._weight_norm(v, torch.randn(1, 3, 1), 1)\n    torch.norm_except_dim(v, 2, -2)\nresult = m.ops"
cases("weight_norm_stream", stream, vars=False)

G = SETUP.replace("torch.manual_seed(0)\n", "")
gr = {
    "fused_0": G + "ps = leaves((4, 3, 5), (4, 1, 1))\nout = torch._weight_norm(ps[0], ps[1], 0).pow(2) * torch.arange(5.)",
    "fused_last": G + "ps = leaves((4, 3, 5), (1, 1, 5))\nout = torch._weight_norm(ps[0], ps[1], 2).sin()",
    "fused_2d_last": G + "ps = leaves((6, 7), (1, 7))\nout = torch._weight_norm(ps[0], ps[1], 1).exp()",
    "mid": G + "ps = leaves((4, 3, 5), (1, 3, 1))\nout = torch._weight_norm(ps[0], ps[1], 1).pow(2) * torch.arange(5.)",
    "whole": G + "ps = leaves((4, 3, 5), ())\nout = torch._weight_norm(ps[0], ps[1], -1).sin()",
    "v_only": G + "ps = leaves((6, 7))\nout = torch._weight_norm(ps[0], torch.randn(6, 1), 0).tanh()",
    "g_only": G + "ps = leaves((1, 7))\nout = torch._weight_norm(v2, ps[0], 1).tanh()",
    "noncontig_v": G + "ps = leaves((5, 3, 4), (4, 1, 1))\nout = torch._weight_norm(ps[0].transpose(0, 2), ps[1], 0).pow(2)",
    "norm_output": G + "ps = leaves((6, 7), (6, 1))\nr = torch._weight_norm_interface(ps[0], ps[1], 0)\nout = r[0].sin() + r[1].sum()",
    "nxd": G + "ps = leaves((4, 3, 5))\nout = torch.norm_except_dim(ps[0], 2, 1) * torch.arange(3.).view(1, 3, 1)",
    "nxd_whole": G + "ps = leaves((4, 3, 5))\nout = torch.norm_except_dim(ps[0], 3, -1)",
    "nn_weight_norm_conv": G + "torch.manual_seed(0)\nm = torch.nn.utils.weight_norm(torch.nn.Conv1d(4, 6, 3, padding=1), dim=2)\n"
                              "ps = [m.weight_g, m.weight_v, m.bias]\nout = m(torch.randn(2, 4, 9)).tanh()",
    "nn_weight_norm_linear": G + "torch.manual_seed(0)\nm = torch.nn.utils.weight_norm(torch.nn.Linear(5, 3))\n"
                                "ps = [m.weight_g, m.weight_v, m.bias]\nout = m(torch.randn(4, 5)).pow(2)",
    "nn_weight_norm_none": G + "torch.manual_seed(0)\nm = torch.nn.utils.weight_norm(torch.nn.Linear(5, 3), dim=None)\n"
                              "ps = [m.weight_g, m.weight_v]\nout = m(torch.randn(4, 5)).pow(2)",
    "param_weight_norm_conv": G + "torch.manual_seed(0)\nm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(4, 6, 5, padding=2, groups=2), dim=2)\n"
                                 "ps = [m.parametrizations.weight.original0, m.parametrizations.weight.original1, m.bias]\n"
                                 "out = torch.nn.functional.gelu(m(torch.randn(2, 4, 11)))",
    "param_weight_norm_linear": G + "torch.manual_seed(0)\nm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(5, 3))\n"
                                   "ps = [m.parametrizations.weight.original0, m.parametrizations.weight.original1]\nout = m(torch.randn(4, 5)).pow(2)",
}
grads("grad_weight_norm", gr)
grads("grad_weight_norm_f64", {
    "fused_0": G + "ps = leaves((4, 3, 5), (4, 1, 1), dtype=torch.float64)\nout = torch._weight_norm(ps[0], ps[1], 0).pow(2)",
    "fused_last": G + "ps = leaves((4, 3, 5), (1, 1, 5), dtype=torch.float64)\nout = torch._weight_norm(ps[0], ps[1], 2).sin()",
    "mid": G + "ps = leaves((4, 3, 5), (1, 3, 1), dtype=torch.float64)\nout = torch._weight_norm(ps[0], ps[1], 1).exp()",
}, tol=F64)

# double backward: create_graph=True takes _weight_norm_differentiable_backward
DB = G + """
torch.manual_seed(0)
vv = torch.randn({vs}, dtype=torch.float64, requires_grad=True)
gg = torch.randn({gs}, dtype=torch.float64, requires_grad=True)
w = torch._weight_norm(vv, gg, {dim})
gv, gg1 = torch.autograd.grad((w.sin() * torch.arange(w.numel(), dtype=w.dtype).view(w.shape)).sum(), (vv, gg), create_graph=True)
names = (gv.grad_fn.name(), gg1.grad_fn.name())
(gv.sum() + gg1.pow(2).sum()).backward()
result = (names, gv, gg1, vv.grad, gg.grad)
"""
cases("grad_weight_norm_double", {
    "first": DB.format(vs="(4, 3, 5)", gs="(4, 1, 1)", dim=0),
    "last": DB.format(vs="(6, 7)", gs="(1, 7)", dim=1),
}, tol=F64)   # gradients: the autograd rule (the dim-0 kernel's row sums are not in upstream's lane order)
