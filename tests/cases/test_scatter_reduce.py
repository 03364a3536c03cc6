"""scatter_reduce.two and index_reduce (src/ops/index.c) compared with upstream: every reduction
(sum / prod / mean / amax / amin for scatter_reduce, prod / mean / amax / amin for index_reduce),
include_self True and False (scattered-to positions start from the reduction's identity), repeated
indices, positions no index reaches (they keep self), NaN (amax / amin propagate it), integer
mean (floor division), dims 0 / 1 / negative, index smaller than src, 0-dim and empty, f64 /
bf16 / f16 / int / bool / complex where upstream computes, non-contiguous inputs, in-place and
out= spellings, bad input (reduce names, dtypes, shapes, bounds) with the exception type.
Sums and means take tol="float" (upstream's summation order over repeated indices)."""
from harness import cases

R = "torch.manual_seed(0)\n"
S = R + "x = torch.randn(4, 5)\ni = torch.randint(0, 4, (6, 5))\ns = torch.randn(6, 5)\n"
MODES = ("sum", "prod", "mean", "amax", "amin")

cases("scatter_reduce", {
    "modes": S + "[x.scatter_reduce(0, i, s, m, include_self=b) for m in %r for b in (True, False)]" % (MODES,),
    "dim1": R + "x = torch.randn(3, 6)\ni = torch.randint(0, 6, (3, 4))\ns = torch.randn(3, 5)\n[torch.scatter_reduce(x, 1, i, s, m) for m in %r] + [torch.scatter_reduce(x, -1, i, s, m, include_self=False) for m in %r]" % (MODES, MODES),
    "nan": "x = torch.tensor([1., float('nan'), 3., 4.])\ni = torch.tensor([0, 1, 0, 2, 2])\ns = torch.tensor([float('nan'), 5., 2., 7., float('nan')])\n[x.scatter_reduce(0, i, s, m, include_self=b) for m in ('amax', 'amin', 'sum') for b in (True, False)]",
    "int_mean": "x = torch.arange(6)\ni = torch.tensor([0, 0, 1, 3, 3, 3])\ns = torch.tensor([3, 4, 5, -7, 2, 9])\n[x.scatter_reduce(0, i, s, m, include_self=b) for m in %r for b in (True, False)]" % (MODES,),
    "dtypes": S + "[x.to(d).scatter_reduce(0, i, s.to(d), m, include_self=False) for d in (torch.float64, torch.bfloat16, torch.float16, torch.int32, torch.int8) for m in %r]" % (MODES,),
    "bool": "x = torch.tensor([True, False, False])\ni = torch.tensor([0, 1, 1])\ns = torch.tensor([False, True, False])\n[x.scatter_reduce(0, i, s, m, include_self=b) for m in ('sum', 'prod', 'amax', 'amin') for b in (True, False)]",
    "complex": R + "x = torch.randn(3, dtype=torch.complex64)\ni = torch.tensor([0, 2, 0, 0])\ns = torch.randn(4, dtype=torch.complex64)\n[x.scatter_reduce(0, i, s, m, include_self=b) for m in ('sum', 'prod', 'mean') for b in (True, False)]",
    "zero_dim_empty": "(torch.tensor(2.).scatter_reduce(0, torch.tensor(0), torch.tensor(5.), 'amax'), torch.zeros(3).scatter_reduce(0, torch.zeros(0, dtype=torch.long), torch.zeros(0), 'prod'), torch.zeros(0, 2).scatter_reduce(1, torch.zeros(0, 2, dtype=torch.long), torch.zeros(0, 2), 'mean'))",
    "noncontiguous": R + "x = torch.randn(5, 4).t()\ni = torch.randint(0, 4, (6, 4)).t()[:, :3]\ns = torch.randn(4, 6).t().t()\n[x.scatter_reduce(1, i, s, m) for m in %r]" % (MODES,),
    "inplace_out": S + "y = x.clone()\nr = y.scatter_reduce_(0, i, s, 'amax', include_self=False)\no = torch.empty(0)\nr2 = torch.scatter_reduce(x, 0, i, s, 'mean', out=o)\n(r is y, y, r2 is o, o, torch.ops.aten.scatter_reduce.two_out(x, 0, i, s, 'prod', out=torch.empty(4, 5)))",
    "int32_index": S + "x.scatter_reduce(0, i.int(), s, 'sum')",
    "max_min_aliases": S + "(x.scatter_reduce(0, i, s, 'max'), x.scatter_reduce(0, i, s, 'min', include_self=False))",
    "bad_reduce": S + "x.scatter_reduce(0, i, s, 'add')",
    "bad_dtype": S + "x.scatter_reduce(0, i, s.double(), 'sum')",
    "bad_index_dtype": S + "x.scatter_reduce(0, i.float(), s, 'sum')",
    "bad_bounds": S + "x.scatter_reduce(0, i + 4, s, 'amax')",
    "bad_complex_amax": "torch.zeros(3, dtype=torch.complex64).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2, dtype=torch.complex64), 'amax')",
    "bad_bool_mean": "torch.zeros(3, dtype=torch.bool).scatter_reduce(0, torch.tensor([0, 1]), torch.ones(2, dtype=torch.bool), 'mean')",
}, tol="float")

cases("index_reduce", {
    "modes": R + "x = torch.randn(5, 3)\ni = torch.tensor([0, 4, 0, 2, 4, 4])\ns = torch.randn(6, 3)\n[x.index_reduce(0, i, s, m, include_self=b) for m in ('prod', 'mean', 'amax', 'amin') for b in (True, False)]",
    "dim1": R + "x = torch.randn(2, 4, 3)\ni = torch.tensor([3, 1, 3])\ns = torch.randn(2, 3, 3)\n[torch.index_reduce(x, 1, i, s, m, include_self=b) for m in ('prod', 'mean', 'amax', 'amin') for b in (True, False)] + [x.index_reduce(-1, torch.tensor([2, 0]), torch.randn(2, 4, 2), 'amax')]",
    "int_mean": "x = torch.arange(4)\n[x.index_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([3, 4, 5]), 'mean', include_self=b) for b in (True, False)]",
    "dtypes": R + "x = torch.randn(4, 2)\ni = torch.tensor([1, 1, 3])\ns = torch.randn(3, 2)\n[x.to(d).index_reduce(0, i, s.to(d), m, include_self=False) for d in (torch.float64, torch.bfloat16, torch.float16, torch.int64, torch.uint8) for m in ('prod', 'mean', 'amax', 'amin')]",
    "nan": "x = torch.tensor([1., float('nan'), 3.])\n[x.index_reduce(0, torch.tensor([0, 1, 0]), torch.tensor([float('nan'), 2., 5.]), m) for m in ('amax', 'amin', 'prod')]",
    "zero_dim_empty": "(torch.tensor(2.).index_reduce(0, torch.tensor([0]), torch.tensor(5.), 'prod'), torch.zeros(3, 2).index_reduce(0, torch.zeros(0, dtype=torch.long), torch.zeros(0, 2), 'amin'))",
    "noncontiguous": R + "x = torch.randn(3, 5).t()\ns = torch.randn(3, 3).t()\nx.index_reduce(0, torch.tensor([4, 0, 4]), s, 'mean')",
    "inplace_out": R + "x = torch.randn(4)\ny = x.clone()\nr = y.index_reduce_(0, torch.tensor([1, 1]), torch.tensor([2., 3.]), 'amin', include_self=False)\no = torch.empty(0)\nr2 = torch.index_reduce(x, 0, torch.tensor([0, 3]), torch.tensor([2., 3.]), 'prod', out=o)\n(r is y, y, r2 is o, o, torch.index_reduce(x, 0, torch.tensor([2, 2], dtype=torch.int32), torch.tensor([2., 3.]), 'mean'))",
    "bad_reduce": "torch.zeros(3).index_reduce(0, torch.tensor([0]), torch.ones(1), 'sum')",
    "bad_index_2d": "torch.zeros(3).index_reduce(0, torch.tensor([[0]]), torch.ones(1), 'prod')",
    "bad_index_dtype": "torch.zeros(3).index_reduce(0, torch.tensor([0.]), torch.ones(1), 'prod')",
    "bad_bounds": "torch.zeros(3).index_reduce(0, torch.tensor([0, 5, 0]), torch.ones(3), 'prod')",
    "bad_count": "torch.zeros(3).index_reduce(0, torch.tensor([0, 1, 0]), torch.ones(2), 'prod')",
    "bad_complex": "torch.zeros(3, dtype=torch.complex64).index_reduce(0, torch.tensor([0]), torch.ones(1, dtype=torch.complex64), 'prod')",
    "bad_dtype": "torch.zeros(3).index_reduce(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64), 'prod')",
}, tol="float")

cases("index_reduce_shapes", {
    "bad_0dim_source": "torch.tensor(2.).index_reduce(0, torch.tensor([0]), torch.tensor([5.]), 'prod')",
    "bad_slice": "torch.zeros(3, 2).index_reduce(0, torch.tensor([0]), torch.ones(1, 3), 'prod')",
    "bad_ndim": "torch.zeros(3, 2).index_reduce(0, torch.tensor([0]), torch.ones(1, 2, 1), 'prod')",
})

# gradients (scatter_reduce_backward / index_reduce_backward, src/autograd/bw_scatter.c): every
# reduction, include_self both ways, ties between self and src (amax / amin share the gradient),
# zeros in self and src (prod: one zero per slot, two zeros in one slot), double backward, and the
# DelayedError of prod's double backward when two zeros of src reach one slot
GSETUP = """
torch.manual_seed(0)
b = torch.randn(6, dtype=torch.float64)
x = b[[0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]].view(3, 4) * torch.tensor([1., 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1], dtype=torch.float64).view(3, 4)
s = b[[0, 1, 2, 3, 0, 5, 0, 2]].view(2, 4) * torch.tensor([1., 0, 1, 1, 1, 0, 1, 1], dtype=torch.float64).view(2, 4)
i = torch.tensor([[0, 1, 0, 2], [2, 1, 0, 0]])
xs, ss = x.clone().requires_grad_(), s.clone().requires_grad_()
src5 = b[[(3 * k) % 6 for k in range(12)]].view(3, 4).clone().requires_grad_()
x5 = b[[k % 6 for k in range(20)]].view(5, 4).clone().requires_grad_()
def gr(y, *ins, **kw):
    return torch.autograd.grad((y * torch.arange(y.numel(), dtype=y.dtype).view(y.shape)).sum(), ins, **kw)
"""
cases("scatter_reduce_grad", {
    "scatter": "[(m, b_, gr(torch.scatter_reduce(xs, 0, i, ss, m, include_self=b_), xs, ss)) for m in ('sum', 'prod', 'mean', 'amax', 'amin') for b_ in (True, False)]",
    "index": "[(m, b_, gr(x5.index_reduce(0, torch.tensor([0, 4, 0]), src5 * torch.tensor([1., 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1], dtype=torch.float64).view(3, 4), m, include_self=b_), x5, src5)) for m in ('prod', 'mean', 'amax', 'amin') for b_ in (True, False)]",
    "float32": "[gr(torch.scatter_reduce(xs.float(), 1, i, ss.float(), m), xs, ss) for m in ('prod', 'mean', 'amax')]",
    "node": "y = torch.scatter_reduce(xs, 0, i, ss, 'amax')\nz = x5.index_reduce(0, torch.tensor([1]), src5[:1], 'mean')\n(y.grad_fn.name(), z.grad_fn.name(), [type(f[0]).__name__ for f in y.grad_fn.next_functions])",
    "double": "g = gr(torch.scatter_reduce(xs, 0, i, ss.detach().clamp(min=0.1).requires_grad_(), 'prod', include_self=False), xs, create_graph=True)[0]\ngr(g, xs)",
    "double_two_zeros": "g = gr(torch.scatter_reduce(xs, 0, i, ss, 'prod'), ss, create_graph=True)[0]\n(g.grad_fn.name(), gr(g, ss))",
    "double_index_two_zeros": "g = gr(x5.index_reduce(0, torch.tensor([0, 0, 1]), src5 * 0, 'prod'), src5, create_graph=True)[0]\ngr(g, src5)",
}, setup=GSETUP, tol="float")
