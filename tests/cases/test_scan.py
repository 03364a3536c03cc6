"""cummax / cummin (values and indices) and logcumsumexp (src/ops/scan.c) compared with upstream:
every dim, ties (the later index wins), NaN (propagates, each new NaN takes its index), infinities,
0-dim, empty, non-contiguous inputs, integer / bool / f16 / bf16 / f64 dtypes, out= (exact dtypes
demanded), the helper overloads, bad input; then gradients (cummaxmin_backward's scatter_add,
logcumsumexp's log-space backward) and their graphs. Values are exact: cummax/cummin copy
elements, and logcumsumexp runs upstream's recurrence in upstream's accumulation type."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
N = "x = torch.tensor([[1., 3, 2, 3, float('nan'), 5, float('nan'), 0], [0., -1, -1, 2, 2, float('inf'), 1, float('-inf')]])\n"

cases("cummax_cummin", {
    "ties_nan": N + "(torch.cummax(x, 1), torch.cummin(x, 1))",
    "dim0": R + "x = torch.randn(4, 5)\n(torch.cummax(x, 0), torch.cummin(x, -2))",
    "3d_middle": R + "x = torch.randint(0, 4, (2, 5, 3))\n(torch.cummax(x, 1), torch.cummin(x, 1))",
    "dtypes": R + "x = torch.randn(3, 6)\n(torch.cummax(x.double(), 1), torch.cummin(x.half(), 1), torch.cummax(x.bfloat16(), 0), torch.cummax((x * 9).to(torch.int8), 1), torch.cummin((x * 50).to(torch.int16), 1), torch.cummax(x > 0, 1), torch.cummin((x * 100).abs().to(torch.uint8), 1))",
    "int64_large": "x = torch.tensor([2**62, -2**62, 2**62 + 1, 5])\n(torch.cummax(x, 0), torch.cummin(x, 0))",
    "zero_dim": "(torch.cummax(torch.tensor(2.), 0), torch.cummin(torch.tensor(-1), -1))",
    "empty": "(torch.cummax(torch.zeros(0, 3), 1), torch.cummin(torch.zeros(2, 0), 1))",
    "noncontiguous": R + "x = torch.randn(5, 4).t()\n(torch.cummax(x, 1), torch.cummin(x[:, ::2], 0))",
    "method": R + "x = torch.randn(3, 4)\n(x.cummax(1), x.cummin(dim=0))",
    "out": R + "x = torch.randn(3, 4)\nv = torch.empty(0)\ni = torch.empty(0, dtype=torch.long)\nr = torch.cummax(x, 1, out=(v, i))\n(r.values is v, r.indices is i, v, i, type(r).__name__)",
    "out_cummin": R + "x = torch.randn(3, 4)\nv = torch.empty(3, 4)\ni = torch.empty(3, 4, dtype=torch.long)\ntorch.cummin(x, 0, out=(v, i))\n(v, i)",
    "helper": "v = torch.empty(3)\ni = torch.empty(3, dtype=torch.long)\nr = torch.ops.aten._cummax_helper(torch.tensor([1., 3, 2]), v, i, 0)\nv2 = torch.empty(3)\ni2 = torch.empty(3, dtype=torch.long)\ntorch.ops.aten._cummin_helper(torch.tensor([1., 3, 0]), v2, i2, 0)\n(r, v, i, v2, i2)",
    "bad_dim": "torch.cummax(torch.ones(2, 2), 2)",
    "bad_out_values_dtype": "torch.cummax(torch.ones(2), 0, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))",
    "bad_out_indices_dtype": "torch.cummin(torch.ones(2), 0, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))",
})

cases("logcumsumexp", {
    "basic": R + "x = torch.randn(4, 6)\n(torch.logcumsumexp(x, 1), torch.logcumsumexp(x, 0))",
    "special": "torch.logcumsumexp(torch.tensor([1., float('inf'), float('-inf'), float('nan'), 2.]), 0)",
    "all_neg_inf": "(torch.logcumsumexp(torch.tensor([float('-inf'), float('-inf'), 0.]), 0), torch.logcumsumexp(torch.tensor([float('inf'), float('inf')]), 0), torch.logcumsumexp(torch.tensor([float('-inf'), float('nan'), 1.]), 0))",
    "large": R + "x = torch.randn(3, 50) * 40\ntorch.logcumsumexp(x, 1)",
    "dtypes": R + "x = torch.randn(3, 7)\n(torch.logcumsumexp(x.double(), 1), torch.logcumsumexp(x.half(), 1), torch.logcumsumexp(x.bfloat16(), 0))",
    "zero_dim_empty": "(torch.logcumsumexp(torch.tensor(3.), 0), torch.logcumsumexp(torch.zeros(0, 2), 0))",
    "noncontiguous": R + "x = torch.randn(5, 4).t()\n(torch.logcumsumexp(x, 1), torch.logcumsumexp(x, 1).stride())",
    "method_out": R + "x = torch.randn(3, 4)\no = torch.empty(0)\nr = torch.logcumsumexp(x, 1, out=o)\n(r is o, o, x.logcumsumexp(0))",
    "underscore": R + "x = torch.randn(3, 4)\no = torch.empty(0)\n(torch.ops.aten._logcumsumexp(x, 1), torch.ops.aten._logcumsumexp.out(x, 0, out=o), o)",
    "bad_int": "torch.logcumsumexp(torch.tensor([1, 2]), 0)",
    "bad_out_dtype": "torch.logcumsumexp(torch.ones(2), 0, out=torch.empty(0, dtype=torch.float64))",
    "bad_dim": "torch.logcumsumexp(torch.ones(2), 1)",
})

grads("scan_grad", {
    "cummax": "ps = leaves((3, 5)); out = torch.cummax(ps[0], 1).values * torch.arange(5.)",
    "cummin_dim0": "ps = leaves((4, 3)); out = torch.cummin(ps[0], 0)[0].exp()",
    "cummax_ties": "ps = [leaf([1., 3., 3., 2., 3.])]; out = torch.cummax(ps[0], 0).values * torch.tensor([1., 2, 3, 4, 5])",
    "cummax_0dim": "ps = [leaf(2.)]; out = torch.cummax(ps[0], 0).values * 3",
    "logcumsumexp": "ps = leaves((3, 6)); out = torch.logcumsumexp(ps[0], 1) * torch.randn(3, 6)",
    "logcumsumexp_dim0": "ps = leaves((5, 2)); out = torch.logcumsumexp(ps[0], 0).sin()",
    "logcumsumexp_0dim": "ps = [leaf(1.5)]; out = torch.logcumsumexp(ps[0], 0) * 2",
})
grads("scan_grad_f64", {
    "cummax": "ps = leaves((3, 5), dtype=torch.float64); out = torch.cummax(ps[0], 1).values.pow(2)",
    "logcumsumexp": "ps = leaves((4, 3), dtype=torch.float64); out = torch.logcumsumexp(ps[0], 0) * torch.randn(4, 3, dtype=torch.float64)",
}, tol=F64)
