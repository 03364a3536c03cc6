"""Reductions and scans: sum, mean, prod, amax/amin, max/min, argmax/argmin, all/any,
count_nonzero, var/std (+ var_mean/std_mean), logsumexp, cumsum/cumprod — compared with upstream."""
from harness import cases

SETUP = """
x = torch.arange(24.).reshape(2, 3, 4) * 0.37 - 3
xi = torch.arange(24).reshape(2, 3, 4) - 7
"""

cases("sum", [
    "x.sum()", "torch.sum(x, 1)", "x.sum((0, 2))", "x.sum(-1, keepdim=True)", "x.sum(dim=(0, 1, 2))",
    "x.sum(())", "x.sum(None)", "xi.sum()", "xi.sum(1).dtype", "torch.tensor([True, False, True]).sum()",
    "x.sum(dtype=torch.float64)", "xi.sum(dtype=torch.int32)", "x.half().sum(1)", "x.bfloat16().sum(0)",
    "x.to(torch.uint8).sum(2)", "x.transpose(0, 2).sum(0)", "x[:, ::2].sum(-1)", "torch.zeros(0, 3).sum(0)",
    "torch.tensor(3.).sum(0)", "torch.ops.aten.sum.dim_IntList(x, [1])", "torch.randn(1000).sum()",
    "torch.sum(x, 1, out=torch.empty(0))", "torch.sum(xi, 0, out=torch.empty(0))",
    "x.sum(5)", "x.sum((0, 0))", "torch.tensor(3.).sum(1)",
], setup=SETUP, strides=False)

# Reductions over outer dims of float32 (columns summed side by side, many at once): shapes with
# and without a multiple of the vector block of columns, strided columns, several reduced dims.
cases("sum_outer_f32", [
    "torch.randn(128, 576).sum(0)", "torch.randn(300, 9).sum(0)", "torch.randn(7, 4096).mean(0)",
    "torch.randn(1000, 3).sum(0)", "torch.randn(3, 70, 33).sum((0, 1))", "torch.randn(4, 513, 130)[..., ::2].sum((0, 1))",
    "torch.randn(33, 17, 19).sum((0, 2))", "torch.randn(16, 64, 8, 8).sum((0, 2, 3))", "torch.randn(2, 300, 65).mean(1)",
    "torch.randn(64, 100).t().contiguous().t().sum(1)",
], strides=False)

cases("mean_prod", [
    "x.mean()", "x.mean(1)", "x.mean((0, 2), keepdim=True)", "xi.mean()", "xi.mean(dtype=torch.float64)",
    "x.mean(dtype=torch.int64)", "x.half().mean(0)", "x.mean(0, dtype=torch.float16)", "torch.zeros(0).mean()",
    "torch.mean(x, 0, out=torch.empty(0, dtype=torch.float64))", "torch.mean(x, 0, out=torch.empty(0, dtype=torch.int64))",
    "x.prod()", "x.prod(1)", "xi.prod(2, keepdim=True)", "torch.tensor([1, 2], dtype=torch.uint8).prod()",
    "x.prod(dtype=torch.float64)", "x.t().prod(0)" if False else "x.transpose(1, 2).prod(1)",
    "torch.tensor([1+1j, 2-1j]).sum()", "torch.tensor([1+1j, 2-1j]).mean()",
], setup=SETUP, strides=False)

cases("amax_max", [
    "x.amax()", "x.amax(1)", "x.amin((0, 2))", "xi.amax(-1, keepdim=True)", "torch.tensor([True, False]).amax()",
    "torch.zeros(0, 3).amax(1)", "torch.zeros(0, 3).amax()", "torch.zeros(0, 3).amax(0)", "x.amax((0, 0))",
    "torch.tensor([1., float('nan'), 3]).amax()", "x.half().amin(0)",
    "x.max()", "xi.min()", "torch.tensor([]).max()", "torch.tensor([1+1j]).max()",
    "x.max(1)", "x.min(0, keepdim=True)", "torch.max(xi, dim=2)", "x.max(dim=3)", "torch.zeros(0, 3).max(0)",
    "torch.zeros(0, 3).max(1)", "torch.tensor(3.).max(0)", "torch.tensor([2., 5., 5., 1.]).max(0)",
    "torch.tensor([1., float('nan'), 3]).max(0)", "torch.max(x, 1).__class__.__name__",
    "torch.max(x, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))",
], setup=SETUP, strides=False)

cases("argmax", [
    "x.argmax()", "x.argmin(1)", "xi.argmax(2, keepdim=True)", "x.argmax(keepdim=True)",
    "torch.tensor([3, 7, 7, 1]).argmax()", "torch.tensor([1., float('nan'), 3]).argmin()",
    "torch.tensor([True, False]).argmax()", "torch.zeros(0, 3).argmax()", "torch.zeros(0, 3).argmax(1)",
    "torch.tensor(5).argmax(0)", "x.transpose(0, 1).argmax(0)", "x.half().argmin(-1)",
], setup=SETUP, strides=False)

cases("all_any", [
    "x.all()", "x.any()", "(x > 0).all(1)", "(x > 0).any((0, 2))", "x.any(())", "x.all(dim=(0, 1), keepdim=True)",
    "torch.tensor([1, 2], dtype=torch.uint8).all()", "torch.tensor([1, 0], dtype=torch.int32).any()",
    "torch.zeros(2, 0).all()", "torch.zeros(2, 0).any(1)",
    "torch.all(x, 1, out=torch.empty(0, dtype=torch.bool))", "torch.all(x, 1, out=torch.empty(0, dtype=torch.float32))",
    "x.count_nonzero()", "xi.count_nonzero(1)", "xi.count_nonzero((0, 2))", "x.count_nonzero(())",
], setup=SETUP, strides=False)

cases("scan", [
    "x.cumsum(1)", "xi.cumsum(0)", "torch.arange(6, dtype=torch.int8).cumsum(0)", "x.cumprod(-1)",
    "torch.tensor([True, True]).cumprod(0)", "torch.tensor([1, 2], dtype=torch.int8).cumsum(0, dtype=torch.float32)",
    "torch.cumsum(x, 1, out=torch.empty(0, dtype=torch.int64))", "x.half().cumsum(2)", "x.cumsum(5)",
    "x.transpose(0, 2).cumsum(1)", "torch.tensor(3.).cumsum(0)",
], setup=SETUP, strides=False)

cases("var_std", [
    "x.var()", "x.std()", "x.var(1)", "x.std(0, keepdim=True)", "x.var((0, 2), unbiased=False)",
    "x.std(1, correction=0)", "x.var(correction=2)", "torch.var(x, 0, True, True)",
    "torch.ones(1).var()", "torch.zeros(0).var()", "xi.var()", "x.double().std(2)",
    "torch.var_mean(x, 1)", "torch.std_mean(x)", "torch.var_mean(x, (0, 1), correction=0, keepdim=True)",
    "torch.tensor([1+1j, 2, 3j]).var()", "x.half().var(1)", "x.transpose(0, 2).std(1)",
], setup=SETUP, strides=False, tol="float")

cases("logsumexp", [
    "x.logsumexp(1)", "x.logsumexp((0, 2), keepdim=True)", "xi.logsumexp(0)",
    "torch.tensor([float('-inf'), float('-inf')]).logsumexp(0)", "torch.tensor([float('inf'), 1.]).logsumexp(0)",
    "x.double().logsumexp(-1)", "x.half().logsumexp(2)",
], setup=SETUP, strides=False, tol="float")

# logsumexp is upstream's composite (amax, exp of the difference, sum, log, add) in the input's
# dtype, so its bits are those ops' bits: compared exactly.
cases("logsumexp_bits", [
    "torch.manual_seed(0)\nl = torch.randn(4)\n(l.logsumexp(-1, keepdim=True), l - l.logsumexp(-1, keepdim=True))",
    "torch.manual_seed(1)\ntorch.randn(5, 7, 3).logsumexp((0, 2))",
    "torch.manual_seed(2)\nx = torch.randn(6, 9)\n(x.bfloat16().logsumexp(1), x.half().logsumexp(0), x.double().logsumexp(1))",
    "torch.tensor([[float('inf'), 1.], [float('-inf'), float('-inf')], [float('nan'), 0.]]).logsumexp(1)",
    "torch.zeros(0, 3).logsumexp(0)", "torch.manual_seed(3)\ntorch.randn(3, 4).t().logsumexp(1)",
    "torch.manual_seed(4)\no = torch.empty(0)\ntorch.logsumexp(torch.randn(4, 5), 1, out=o)\no",
], strides=False)

# torch.return_types' repr is upstream's returned_structseq_repr (one field per line); the type's
# own __repr__ attribute keeps the struct sequence's one-line form
cases("return_types_repr", {
    "max_dim": "repr(torch.max(torch.tensor([[1., 2.], [3., 0.]]), 1))",
    "eigh_multiline": "repr(torch.linalg.eigh(torch.eye(2)))",
    "frexp": "str(torch.frexp(torch.tensor([8., 0.3])))",
    "non_tensor_fields": "repr(torch.return_types.max([1, 'a']))",
    "in_list": "repr([torch.aminmax(torch.tensor([3, 1, 2]))])",
    "type_repr_attr": "(lambda r: type(r).__repr__(r))(torch.sort(torch.tensor([2, 1])))",
})
