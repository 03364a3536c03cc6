"""Backward operators added so the formulas generated from derivatives.yaml can call them
(docs/bw_formulas.md): the activation backwards hardsigmoid / hardswish / softplus / mish / logit
(src/ops/backward.c, kernels/ref/backward.c) and the composite backward ops trace / diagonal /
index_select / gather / masked_select / cummaxmin (src/ops/bw_ops.c) — compared with upstream.
hardsigmoid, hardswish and logit are exact arithmetic (bits); softplus and mish call exp / log1p /
tanh, which upstream takes from its vector library (tol="float" for 32- and 16-bit types, a small
absolute / relative tolerance for float64, whose reference error estimate is 0)."""
from harness import cases

SETUP = """
torch.manual_seed(0)
A = torch.ops.aten
g = torch.randn(5, 40)
x = torch.randn(5, 40) * 4
p = torch.rand(5, 40) * 1.2 - 0.1
gs = torch.randn(3, 4)
xs = torch.randn(3, 4) * 4
ps = torch.rand(3, 4)
"""

DT = ["torch.float32", "torch.float64", "torch.bfloat16", "torch.float16"]

exact = {}
for i, d in enumerate(DT):
    exact["hs%d" % i] = "A.hardsigmoid_backward(g.to(%s), x.to(%s))" % (d, d)
    exact["hw%d" % i] = "A.hardswish_backward(g.to(%s), x.to(%s))" % (d, d)
    exact["lo%d" % i] = "A.logit_backward(g.to(%s), p.to(%s))" % (d, d)
    exact["lo_eps%d" % i] = "A.logit_backward(g.to(%s), p.to(%s), 0.2)" % (d, d)
exact.update({
    "hs_edges": "A.hardsigmoid_backward(torch.ones(7), torch.tensor([-3., -2.9999, 0., 2.9999, 3., float('inf'), float('nan')]))",
    "hs_out": "A.hardsigmoid_backward(gs, xs, grad_input=torch.empty(3, 4))",
    "hs_out_ov": "A.hardsigmoid_backward.grad_input(gs, xs, grad_input=torch.empty(0, dtype=torch.float64))",
    "hs_mixed": "A.hardsigmoid_backward(gs.half(), xs.double())",
    "hs_mixed2": "A.hardsigmoid_backward(gs, xs.bfloat16())",
    "hs_bcast": "A.hardsigmoid_backward(gs[0], xs)",
    "hs_t": "A.hardsigmoid_backward(g.t(), x.t())",
    "hs_0dim": "A.hardsigmoid_backward(torch.tensor(2.), torch.tensor(1.))",
    "hs_empty": "A.hardsigmoid_backward(torch.randn(0, 3), torch.randn(0, 3))",
    "hs_default": "A.hardsigmoid_backward.default(gs, xs)",
    "hw_edges": "A.hardswish_backward(torch.ones(7) * 2, torch.tensor([-3.5, -3., -2.9999, 0., 2.9999, 3., 3.5]))",
    "hw_mixed": "A.hardswish_backward(gs.half(), xs.double())",
    "hw_bcast": "A.hardswish_backward(gs, xs[1])",
    "hw_nc": "A.hardswish_backward(g[:, ::2], x[:, 1::2])",
    "hw_default": "A.hardswish_backward.default(gs, xs)",
    "lo_edges": "A.logit_backward(torch.tensor([1., -1., 2., 0., 1., -2.]), torch.tensor([0., 0., 1., 1., 1.5, -0.5]))",
    "lo_eps_edges": "A.logit_backward(torch.ones(6), torch.tensor([0., 0.1, 0.2, 0.5, 0.8, 0.9]), 0.2)",
    "lo_eps0": "A.logit_backward(torch.ones(4), torch.tensor([0., 0.5, 1., 1.5]), 0.)",
    "lo_eps_neg": "A.logit_backward(gs, ps, -0.5)",
    "lo_out": "A.logit_backward(gs, ps, 0.1, grad_input=torch.empty(3, 4))",
    "lo_out_ov": "A.logit_backward.grad_input(gs, ps, grad_input=torch.empty(0))",
    "lo_mixed": "A.logit_backward(gs.half(), ps.double())",
    "lo_bcast": "A.logit_backward(gs[:1], ps)",
    "lo_default": "A.logit_backward.default(gs, ps, 0.3)",
})
cases("bw_act_exact", exact, setup=SETUP)

flt = {}
for i, d in enumerate(DT):
    if d == "torch.float64":
        continue
    flt["sp%d" % i] = "A.softplus_backward(g.to(%s), x.to(%s), 1, 20)" % (d, d)
    flt["sp_b%d" % i] = "A.softplus_backward(g.to(%s), x.to(%s), 2, 3)" % (d, d)
    flt["mi%d" % i] = "A.mish_backward(g.to(%s), x.to(%s))" % (d, d)
flt.update({
    "sp_out": "A.softplus_backward(gs, xs, 0.5, 1, grad_input=torch.empty(3, 4))",
    "sp_out_ov": "A.softplus_backward.grad_input(gs, xs, 1, 20, grad_input=torch.empty(0))",
    "sp_t": "A.softplus_backward(g.t(), x.t(), 1, 20)",
    "sp_bcast": "A.softplus_backward(gs[0], xs, 3, 2)",
    "sp_default": "A.softplus_backward.default(gs, xs, 1, 20)",
    "mi_t": "A.mish_backward(g.t(), x.t())",
    "mi_bcast": "A.mish_backward(gs, xs[2])",
    "mi_self_dtype": "A.mish_backward(gs, xs.bfloat16())",
    "mi_default": "A.mish_backward.default(gs, xs)",
})
cases("bw_act_float", flt, setup=SETUP, tol="float")

cases("bw_act_f64", {
    "sp": "A.softplus_backward(g.double(), x.double(), 1, 20)",
    "sp_b": "A.softplus_backward(g.double(), x.double(), 2, 3)",
    "sp_mixed": "A.softplus_backward(gs.half(), xs.double(), 1, 20)",
    "mi": "A.mish_backward(g.double(), x.double())",
    "mi_mixed": "A.mish_backward(gs.half(), xs.double())",
}, setup=SETUP, tol=(1e-14, 1e-13))

cases("bw_act_errors", {
    "hs_int": "A.hardsigmoid_backward(gs.int(), xs.int())",
    "hs_cplx": "A.hardsigmoid_backward(gs.cfloat(), xs.cfloat())",
    "hs_shape": "A.hardsigmoid_backward(gs, torch.randn(2, 4))",
    "hs_out_cast": "A.hardsigmoid_backward(gs, xs, grad_input=torch.empty(0, dtype=torch.int32))",
    "hw_int": "A.hardswish_backward(gs.int(), xs.int())",
    "hw_bool": "A.hardswish_backward(gs.bool(), xs.bool())",
    "sp_int": "A.softplus_backward(gs.int(), xs.int(), 1, 20)",
    "sp_cplx": "A.softplus_backward(gs.cfloat(), xs.cfloat(), 1, 20)",
    "mi_int": "A.mish_backward(gs.int(), xs.int())",
    "mi_shape": "A.mish_backward(gs, torch.randn(4, 3))",
    "lo_int": "A.logit_backward(gs.int(), ps.int())",
    "lo_cplx": "A.logit_backward(gs.cfloat(), ps.cfloat())",
    "lo_out_cast": "A.logit_backward(gs, ps, grad_input=torch.empty(0, dtype=torch.long))",
}, setup=SETUP)

# ---------------------------------------------------------------- composite backward ops

CSETUP = """
torch.manual_seed(0)
A = torch.ops.aten
g3 = torch.randn(3, dtype=torch.float64)
gm = torch.randn(3, 2)
x = torch.randn(3, 4)
idx = torch.tensor([[0, 3], [1, 1], [2, 0]])
mask = torch.rand(3, 4) > 0.5
"""
cases("bw_composites", {
    "trace": "A.trace_backward(torch.tensor(2.5), [3, 4])",
    "trace_tall": "A.trace_backward(torch.tensor(2.5, dtype=torch.float64), [5, 2])",
    "trace_int": "A.trace_backward(torch.tensor(3), [2, 2])",
    "trace_empty": "A.trace_backward(torch.tensor(1.), [0, 3])",
    "diag": "A.diagonal_backward(g3, [3, 4], 0, 0, 1)",
    "diag_off": "A.diagonal_backward(g3[:2], [3, 4], 2, 0, 1)",
    "diag_neg": "A.diagonal_backward(torch.randn(2, 5), [2, 3, 5], -1, 1, 0)",
    "diag_dims": "A.diagonal_backward(torch.randn(2, 3), [3, 2, 4], 0, -1, 0)",
    "diag_kw": "torch.ops.aten.diagonal_backward.default(g3, input_sizes=[4, 3], offset=-1, dim1=1, dim2=0)",
    "isel": "A.index_select_backward(gm, [3, 4], 1, torch.tensor([0, 3]))",
    "isel_dup": "A.index_select_backward(torch.randn(3, 4, dtype=torch.float64), [3, 4], 1, torch.tensor([2, 2, 0, 2]))",
    "isel_d0": "A.index_select_backward(torch.randn(2, 4), [3, 4], 0, torch.tensor([2, 0]))",
    "isel_neg": "A.index_select_backward(gm, [3, 4], -1, torch.tensor([1, 1]))",
    "gather": "A.gather_backward(gm, x, 1, idx[:, :2], False)",
    "gather_dup": "A.gather_backward(torch.ones(2, 4, dtype=torch.float64), x.double(), 0, torch.tensor([[0, 0, 2, 1], [0, 1, 2, 2]]), False)",
    "gather_small": "A.gather_backward(torch.ones(1, 2), x, 1, torch.tensor([[3, 3]]), False)",
    "msel": "A.masked_select_backward(torch.arange(float(mask.sum())), x, mask)",
    "msel_bcast_in": "A.masked_select_backward(torch.arange(float(mask.sum())), x[0], mask)",
    "msel_bcast_mask": "A.masked_select_backward(torch.arange(6.), x[:2], torch.tensor([True, False, True, True]))",
    "msel_none": "A.masked_select_backward(torch.ones(0), x, torch.zeros(3, 4, dtype=torch.bool))",
    "cmm": "A.cummaxmin_backward(torch.randn(3, 4), x, torch.tensor([[0, 1, 1, 3], [0, 0, 2, 2], [0, 1, 2, 3]]), 1)",
    "cmm_d0": "A.cummaxmin_backward(torch.ones(3, 4, dtype=torch.float64), x.double(), torch.zeros(3, 4, dtype=torch.long), 0)",
    "cmm_empty": "A.cummaxmin_backward(torch.ones(0, 2), torch.ones(0, 2), torch.zeros(0, 2, dtype=torch.long), 0)",
}, setup=CSETUP)

# CompositeImplicitAutograd: upstream's trace shows the ops they decompose into, so the coverage
# gate needs the overload spelled out
cases("bw_composites_spelled", {
    "trace": "torch.ops.aten.trace_backward.default(torch.tensor(1.5), [2, 3])",
    "isel": "torch.ops.aten.index_select_backward.default(gm, [3, 4], 1, torch.tensor([1, 2]))",
    "gather": "torch.ops.aten.gather_backward.default(gm, x, 1, idx[:, :2], False)",
    "msel": "torch.ops.aten.masked_select_backward.default(torch.arange(float(mask.sum())), x, mask)",
    "cmm": "torch.ops.aten.cummaxmin_backward.default(torch.randn(3, 4), x, torch.zeros(3, 4, dtype=torch.long), 0)",
    "cumprod": "torch.ops.aten.cumprod_backward.default(torch.randn(3, 4), x, 1, x.cumprod(1))",
}, setup=CSETUP, tol="float")

cases("bw_composites_errors", {
    "trace_1d": "A.trace_backward(torch.tensor(1.), [3])",
    "diag_dim": "A.diagonal_backward(g3, [3, 4], 0, 0, 2)",
    "diag_shape": "A.diagonal_backward(torch.randn(4), [3, 4], 0, 0, 1)",
    "isel_dim": "A.index_select_backward(gm, [3, 4], 2, torch.tensor([0, 3]))",
    "isel_idx": "A.index_select_backward(gm, [3, 4], 1, torch.tensor([0, 7]))",
    "gather_idx": "A.gather_backward(gm, x, 1, torch.tensor([[0, 9], [1, 1], [2, 0]]), False)",
    "msel_shape": "A.masked_select_backward(torch.ones(3), x, torch.ones(2, 4, dtype=torch.bool))",
    "msel_few": "A.masked_select_backward(torch.ones(2), x, torch.ones(3, 4, dtype=torch.bool))",
}, setup=CSETUP)

# the rows whose generated formula calls them: gradients through the public functions
GSETUP = """
import torch.nn.functional as F
torch.manual_seed(0)
x = (torch.randn(4, 5, dtype=torch.float64) * 4).requires_grad_()
p = torch.rand(4, 5, dtype=torch.float64).requires_grad_()
def gr(y, *xs):
    return torch.autograd.grad(y.sum() if y.dim() else y, xs)
"""
cases("bw_rows_grad", {
    "hardsigmoid": "gr(F.hardsigmoid(x) * torch.arange(5.), x)",
    "hardswish": "gr(F.hardswish(x) * torch.arange(5.), x)",
    "logit": "gr(torch.logit(p) + torch.logit(p, 0.3), p)",
    "index_select": "gr(torch.index_select(x, 1, torch.tensor([4, 0, 4])).pow(2), x)",
    "gather": "gr(torch.gather(x, 0, torch.tensor([[3, 0, 1, 1, 2]])).pow(2), x)",
    "masked_select": "gr(torch.masked_select(x, x > 0).pow(2), x)",
    "trace": "gr(torch.trace(x) * 3, x)",
    "diagonal": "gr(torch.diagonal(x, 1).pow(2) + torch.diagonal_copy(x).pow(3)[:4], x)",
    "cummax": "gr(torch.cummax(x, 1).values.pow(2) + torch.cummin(x, 0).values, x)",
    "index_fill_value": "gr(torch.index_fill(x, 1, torch.tensor([0, 2, 2]), p.sum()).pow(2), p)",
    "renorm": "gr(torch.renorm(x, 2, 0, 3.0).pow(2) + torch.renorm(x, 1, 1, 2.0), x)",
    "renorm_f32": "gr(torch.renorm(x.float(), 2, 1, 3.0).pow(2).double(), x)",
    "hardswish_dbl": "gr(gr(F.hardswish(x).pow(2), x)[0] * torch.arange(5.), x)",
    "softplus_dbl": "gr(gr(F.softplus(x, 2, 3).pow(2), x)[0] * torch.arange(5.), x)",
    "mish_dbl": "gr(gr(F.mish(x).pow(2), x)[0] * torch.arange(5.), x)",
    "glu_dbl": "gr(gr(F.glu(x[:, :4], 1).pow(2), x)[0] * torch.arange(5.), x)",
    "logit_dbl": "gr(gr(torch.logit(p, 0.1).pow(2), p)[0] * torch.arange(5.), p)",
    "cumprod_dbl": "gr(gr(torch.cumprod(x * (x > -2), 1).pow(2), x)[0] * torch.arange(5.), x)",
    "pad_dbl": "gr(gr(F.pad(x[None], (2, 1), mode='reflect').pow(3) + F.pad(x[None], (1, 2), mode='replicate').pow(2), x)[0] * torch.arange(5.), x)",
}, setup=GSETUP, tol="float")

cases("bw_rows_grad_errors", {
    # upstream has no formula for hardsigmoid_backward: its double backward raises
    "hardsigmoid_dbl": "gr(gr(F.hardsigmoid(x).pow(2), x)[0].sum(), x)",
}, setup=GSETUP)

# ---------------------------------------------------------------- pad backward (ops/bw_ops.c)

PSETUP = """
torch.manual_seed(0)
A = torch.ops.aten
x1 = torch.randn(2, 3, 7)
x2 = torch.randn(2, 3, 5, 6)
x3 = torch.randn(1, 2, 4, 5, 3)
"""
pad = {}
for kind in ("reflection", "replication"):
    for d, (xn, p) in {1: ("x1", "[2, 3]"), 2: ("x2", "[1, 2, 3, 0]"), 3: ("x3", "[1, 0, 2, 3, 1, 2]")}.items():
        op = "A.%s_pad%dd_backward" % (kind, d)
        fwd = "A.%s_pad%dd(%s, %s)" % (kind, d, xn, p)
        for i, dt in enumerate(DT + ["torch.complex64"]):
            pad["%s%d_%d" % (kind, d, i)] = "%s(torch.randn_like(%s).to(%s), %s.to(%s), %s)" % (op, fwd, dt, xn, dt, p)
        pad["%s%d_unbatched" % (kind, d)] = "%s(torch.randn_like(%s[0]), %s[0], %s)" % (op, fwd, xn, p)
        pad["%s%d_neg" % (kind, d)] = "%s(torch.randn_like(A.%s_pad%dd(%s, [-1] * %d)), %s, [-1] * %d)" % (op, kind, d, xn, 2 * d, xn, 2 * d)
        pad["%s%d_nc" % (kind, d)] = "%s(torch.randn_like(%s).transpose(0, 1).contiguous().transpose(0, 1), %s, %s)" % (op, fwd, xn, p)
        pad["%s%d_default" % (kind, d)] = "%s.default(torch.randn_like(%s), %s, %s)" % (op, fwd, xn, p)
pad["replication1_wide"] = "A.replication_pad1d_backward(torch.randn(2, 3, 27), x1, [10, 10])"
pad["reflection2_c128"] = "A.reflection_pad2d_backward(torch.randn(2, 3, 8, 9, dtype=torch.complex128), x2.to(torch.complex128), [2, 1, 3, 0])"
pad["replication3_empty"] = "A.replication_pad3d_backward(torch.randn(0, 2, 5, 6, 6), torch.randn(0, 2, 4, 5, 3), [1, 2, 0, 1, 1, 1])"
cases("bw_pad", pad, setup=PSETUP)

cases("bw_pad_errors", {
    "refl1_int": "A.reflection_pad1d_backward(torch.ones(2, 6).int(), torch.ones(2, 4).int(), [1, 1])",
    "refl1_shape": "A.reflection_pad1d_backward(torch.ones(2, 5), torch.ones(2, 4), [1, 1])",
    "refl1_big": "A.reflection_pad1d_backward(torch.ones(2, 14), torch.ones(2, 4), [5, 5])",
    "refl1_dim": "A.reflection_pad1d_backward(torch.ones(6), torch.ones(4), [1, 1])",
    "refl2_shape": "A.reflection_pad2d_backward(torch.ones(1, 5, 5), torch.ones(1, 3, 4), [1, 1, 1, 1])",
    "refl2_height": "A.reflection_pad2d_backward(torch.ones(1, 4, 6), torch.ones(1, 3, 4), [1, 1, 1, 1])",
    "refl3_padlen": "A.reflection_pad3d_backward(torch.ones(1, 4, 5, 6), torch.ones(1, 2, 3, 4), [1] * 7)",
    "refl3_dim": "A.reflection_pad3d_backward(torch.ones(4, 5, 6), torch.ones(2, 3, 4), [1] * 6)",
    "refl3_bool": "A.reflection_pad3d_backward(torch.ones(1, 4, 5, 6).bool(), torch.ones(1, 2, 3, 4).bool(), [1] * 6)",
    "repl1_shape": "A.replication_pad1d_backward(torch.ones(2, 5), torch.ones(2, 4), [1, 1])",
    "repl1_padlen": "A.replication_pad1d_backward(torch.ones(2, 6), torch.ones(2, 4), [1, 1, 1])",
    "repl2_shape": "A.replication_pad2d_backward(torch.ones(1, 5, 5), torch.ones(1, 3, 4), [1, 1, 1, 1])",
    "repl2_dim": "A.replication_pad2d_backward(torch.ones(5, 6), torch.ones(3, 4), [1, 1, 1, 1])",
    "repl3_channel": "A.replication_pad3d_backward(torch.ones(11, 14, 15, 16), torch.ones(1, 2, 3, 4), [5] * 6)",
    "repl3_mixed": "A.replication_pad3d_backward(torch.ones(1, 4, 5, 6).double(), torch.ones(1, 2, 3, 4), [1] * 6)",
    "repl3_shape": "A.replication_pad3d_backward(torch.ones(1, 4, 5, 5), torch.ones(1, 2, 3, 4), [1] * 6)",
}, setup=PSETUP)

# ---------------------------------------------------------------- cumprod_backward (ops/bw_ops.c)

CPSETUP = """
torch.manual_seed(0)
A = torch.ops.aten
x = torch.randn(3, 5, dtype=torch.float64)
xz = x.clone(); xz[0, 1] = 0; xz[1, 0] = 0; xz[1, 3] = 0; xz[2, 4] = 0
g = torch.randn(3, 5, dtype=torch.float64)
c = torch.complex(x, g)
cz = c.clone(); cz[1, 2] = 0
def cpb(g, x, d):
    return A.cumprod_backward(g, x, d, x.cumprod(d))
"""
cases("bw_cumprod", {
    "nonzero": "cpb(g, x, 1)",
    "nonzero_d0": "cpb(g, x, 0)",
    "zeros": "cpb(g, xz, 1)",
    "zeros_d0": "cpb(g, xz, -2)",
    "zeros_f32": "cpb(g.float(), xz.float(), 1)",
    "grad_mode": "cpb(g.requires_grad_(), xz, 1)",
    "nograd": "torch.no_grad()(cpb)(g, xz, 1)",
    "nograd_d0": "torch.no_grad()(cpb)(g, xz, 0)",
    "one": "cpb(g[:, :1], x[:, :1], 1)",
    "scalar": "cpb(torch.tensor(2.), torch.tensor(3.), 0)",
    "empty": "cpb(torch.ones(0, 2), torch.ones(0, 2), 0)",
    "kw": "torch.ops.aten.cumprod_backward.default(g, xz, dim=1, output=xz.cumprod(1))",
}, setup=CPSETUP, tol="float")
# complex: upstream's complex division (c10::complex) and the C library's round differently in the
# last bit (measured: 1 of 15 values), and the reference error estimate of float64 is 0
cases("bw_cumprod_complex", {
    "complex": "cpb(c * 0.5, c, 1)",
    "complex_zero": "cpb(c * 0.5, cz, 1)",
    "complex_zero_nograd": "torch.no_grad()(cpb)(c * 0.5, cz, 0)",
}, setup=CPSETUP, tol=(1e-14, 1e-13))
cases("bw_cumprod_errors", {
    "dim": "cpb(g, x, 2)",
}, setup=CPSETUP)
