"""digamma / trigamma (polygamma n=1) / polygamma / lgamma / mvlgamma and their special_* aliases
(src/ops/pointwise.c, kernels in src/kernels/ref/unary.c) compared with upstream: poles (0, -0,
negative integers), reflection for negative inputs, large and tiny inputs, inf / nan, every n
from 0 to 6, int / bool promotion to float, f64 / f16 / bf16, 0-dim, empty, non-contiguous,
in-place and out= (with upstream's cast errors), bad input; then gradients (derivatives.yaml:
polygamma(n + 1, self), digamma(self), mvlgamma_backward) with their graphs.
Values take tol="float": upstream's own float error bounds the agreement (float and double
results agree bit for bit on this host, f16 / bf16 within an ulp of upstream's rounding)."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
S = "x = torch.tensor([0.5, 1.5, 3.0, -1.5, 10., 0., -0., -2., 1e-8, 1e20, -7.3, 25., float('inf'), float('-inf'), float('nan')])\n"

cases("gamma", {
    "digamma_special": S + "(torch.digamma(x), torch.digamma(x.double()))",
    "lgamma_special": S + "(torch.lgamma(x), torch.lgamma(x.double()))",
    "polygamma_special": S + "[torch.polygamma(n, x) for n in range(7)] + [torch.polygamma(n, x.double()) for n in range(7)]",
    "random": R + "x = torch.randn(40) * 6\n(torch.digamma(x), torch.lgamma(x), [torch.polygamma(n, x) for n in range(5)])",
    "random_f64": R + "x = torch.randn(40, dtype=torch.float64) * 6\n(torch.digamma(x), torch.lgamma(x), [torch.polygamma(n, x) for n in range(5)])",
    "half_bf16": R + "x = (torch.rand(30) * 8 + 0.1)\n[f(x.to(d)) for d in (torch.float16, torch.bfloat16) for f in (torch.digamma, torch.lgamma, lambda t: torch.polygamma(1, t), lambda t: torch.polygamma(2, t), lambda t: torch.polygamma(3, t))]",
    "int_bool": "x = torch.arange(-2, 6)\n(torch.digamma(x), torch.lgamma(x), torch.polygamma(2, x), torch.polygamma(1, torch.tensor([True, False])), torch.digamma(x.to(torch.uint8)))",
    "zero_dim_empty": "(torch.digamma(torch.tensor(2.5)), torch.polygamma(3, torch.tensor(0.25)), torch.lgamma(torch.zeros(0, 3)), torch.polygamma(2, torch.zeros(2, 0)))",
    "noncontiguous": R + "x = torch.rand(5, 6).t() * 4 + 0.2\n(torch.digamma(x), torch.polygamma(2, x[:, ::2]), torch.lgamma(x.t()))",
    "methods_inplace": R + "x = torch.rand(6) * 4 + 0.2\na, b, c = x.clone(), x.clone(), x.clone()\n(x.digamma(), x.lgamma(), x.polygamma(3), a.digamma_(), b.lgamma_(), c.polygamma_(2), a, b, c)",
    "out": R + "x = torch.rand(6) * 4 + 0.2\no1, o2, o3 = torch.empty(0), torch.empty(6, dtype=torch.float64), torch.empty(6)\n(torch.digamma(x, out=o1) is o1, torch.lgamma(x, out=o2), torch.polygamma(2, x, out=o3) is o3, o1, o2, o3)",
    "special_aliases": R + "x = torch.rand(6) * 4 + 0.2\no = torch.empty(6)\n(torch.special.digamma(x), torch.special.psi(x), torch.special.gammaln(x), torch.special.polygamma(3, x), torch.special.multigammaln(x + 2, 3), torch.special.psi(x, out=o), o)",
    "aten_spellings": R + "x = torch.rand(6) * 4 + 0.2\no = torch.empty(6)\n(torch.ops.aten.special_digamma.default(x), torch.ops.aten.special_psi.default(x), torch.ops.aten.special_digamma.out(x, out=o), torch.ops.aten.special_gammaln.default(x), torch.ops.aten.special_polygamma.default(2, x), torch.ops.aten.special_polygamma.out(2, x, out=torch.empty(6)), torch.ops.aten.special_multigammaln.default(x + 1, 2), torch.ops.aten.special_multigammaln.out(x + 1, 2, out=torch.empty(0)), torch.ops.aten.special_psi.out(x, out=torch.empty(6)), torch.ops.aten.special_gammaln.out(x, out=torch.empty(6)), torch.ops.aten.polygamma_.default(x.clone(), 1))",
    "bad_negative_n": "torch.polygamma(-1, torch.ones(2))",
    "bad_negative_n_inplace": "torch.ones(2).polygamma_(-2)",
    "bad_complex": "torch.digamma(torch.ones(2, dtype=torch.complex64))",
    "bad_complex_lgamma": "torch.lgamma(torch.ones(2, dtype=torch.complex128))",
    "bad_inplace_int": "torch.arange(3).digamma_()",
    "bad_inplace_int_polygamma": "torch.arange(3).polygamma_(1)",
    "bad_out_int": "torch.polygamma(2, torch.ones(2), out=torch.empty(2, dtype=torch.int64))",
}, tol="float")

cases("mvlgamma", {
    "basic": R + "x = torch.rand(3, 4) * 5 + 2\n[torch.mvlgamma(x, p) for p in (1, 2, 3, 5)]",
    "f64": R + "x = torch.rand(7, dtype=torch.float64) * 5 + 2\n[torch.mvlgamma(x, p) for p in (1, 3, 4)]",
    "below_domain": "torch.mvlgamma(torch.ones(3), 3)",
    "int_promotes": "(torch.mvlgamma(torch.arange(3) + 2, 2), torch.mvlgamma(torch.arange(3, dtype=torch.int32) + 2, 1))",
    "half_bf16": R + "x = torch.rand(5) * 5 + 2\n(torch.mvlgamma(x.half(), 2), torch.mvlgamma(x.bfloat16(), 3))",
    "zero_dim_empty": "(torch.mvlgamma(torch.tensor(3.5), 2), torch.mvlgamma(torch.zeros(0, 3), 2), torch.mvlgamma(torch.ones(()), 1))",
    "noncontiguous": R + "x = torch.rand(4, 5).t() * 3 + 2\ntorch.mvlgamma(x, 3)",
    "method_inplace": R + "x = torch.rand(4) * 3 + 2\ny = x.clone()\n(x.mvlgamma(2), y.mvlgamma_(2), y)",
    "out": R + "x = torch.rand(4) * 3 + 2\no = torch.empty(0)\n(torch.mvlgamma(x, 3, out=o) is o, o)",
    "bad_p": "torch.mvlgamma(torch.ones(2), 0)",
    "bad_bool": "torch.mvlgamma(torch.tensor([True]), 1)",
    "bad_complex": "torch.mvlgamma(torch.ones(2, dtype=torch.complex64), 1)",
    "bad_inplace_int": "torch.arange(3).mvlgamma_(1)",
    "bad_out_int": "torch.mvlgamma(torch.ones(2), 1, out=torch.empty(2, dtype=torch.int64))",
}, tol="float")

grads("gamma_grad", {
    "digamma": "ps = [leaf([0.7, 1.5, 3.0, -1.5, 12.])]; out = torch.digamma(ps[0]) * torch.arange(5.)",
    "lgamma": "ps = [leaf([0.7, 1.5, 3.0, -1.5, 12.])]; out = torch.lgamma(ps[0]).sin()",
    "polygamma": "ps = [leaf([0.7, 1.5, 3.0, -1.5, 12.])]; out = torch.polygamma(2, ps[0]) + torch.polygamma(0, ps[0])",
    "polygamma_inplace": "ps = [leaf([0.7, 1.5, 3.0, 12.])]; out = ps[0].clone().polygamma_(3) * 2",
    "mvlgamma": "ps = [leaf([2.7, 3.5, 6.0])]; out = torch.mvlgamma(ps[0], 3)",
    "mvlgamma_inplace": "ps = [leaf([2.7, 3.5, 6.0])]; out = ps[0].clone().mvlgamma_(2) * 3",
    "special": "ps = [leaf([0.7, 1.5, 3.0])]; out = torch.special.psi(ps[0]) + torch.special.gammaln(ps[0]) + torch.special.polygamma(1, ps[0]) + torch.special.multigammaln(ps[0] + 2, 2)",
})

grads("gamma_grad_f64", {
    "double_backward": "ps = [leaf([0.7, 1.5, 3.0, -1.5], dtype=torch.float64)]\ng, = torch.autograd.grad((torch.digamma(ps[0]) + torch.lgamma(ps[0]) + torch.polygamma(2, ps[0]) + torch.mvlgamma(ps[0] + 4, 2)).sum(), ps[0], create_graph=True)\nout = g * 1.5",
    "digamma": "ps = leaves((6,), dtype=torch.float64); out = torch.digamma(ps[0].abs() + 0.1) + torch.polygamma(4, ps[0].abs() + 0.1)",
}, tol=F64)
