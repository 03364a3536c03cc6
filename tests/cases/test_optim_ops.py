"""Harness cases for the operators torch.optim and torch.nn.utils.clip_grad_* dispatch:
the blend family (src/ops/blend.c: lerp, addcmul, addcdiv), the _foreach_* list ops
(src/ops/foreach.c) and the fused optimizer steps (src/ops/fused_optim.c: _fused_adam_,
_fused_adamw_, _fused_sgd_, _fused_adagrad_). All compared exactly (except _foreach_sqrt: upstream's
float32 sqrt is not correctly rounded): lerp and addcmul follow upstream's fused multiply-adds, the fused steps upstream's vector-body / scalar-tail rounding (sizes here cover
both). Not covered, as noted in the sources: complex lerp (refuses), f16 / bf16 _fused_sgd_ on
tensors of 16 or more elements (upstream 2.13's vector loop there does not update the parameter).
"""
from harness import cases

S = """
torch.manual_seed(0)
a = torch.randn(2, 5); b = torch.randn(2, 5); c = torch.rand(2, 5) + 0.5
w = torch.rand(2, 5)
ia = torch.tensor([[1, -2, 3], [4, 5, -6]]); ib = torch.tensor([[2, 3, -1], [0, 7, 2]])
"""

FL = {"f32": "", "f64": ".double()", "f16": ".half()", "bf16": ".bfloat16()"}

# ---- lerp -------------------------------------------------------------------------------------
cases("lerp", {
    **{f"scalar-{d}-{wt}": f"torch.lerp(a{s}, b{s}, {wt})" for d, s in FL.items() for wt in ("0.1", "0.7", "-1.5", "2")},
    **{f"tensor-{d}": f"torch.lerp(a{s}, b{s}, w{s})" for d, s in FL.items()},
    "tensor_big_w": "torch.lerp(a, b, w * 3 - 1)",
    "bcast": "torch.lerp(a, b[0], 0.25)",
    "bcast_w": "torch.lerp(a, b, w[:, :1])",
    "w_0dim_f64": "torch.lerp(a, b, torch.tensor(0.3, dtype=torch.float64))",
    "long_vec": "torch.lerp(torch.randn(100), torch.randn(100), 0.1)",
    "method": "a.lerp(b, 0.4)",
    "inplace": "x = a.clone()\ny = x.lerp_(b, 0.1)\n(x, y is x)",
    "inplace_t": "x = a.clone()\nx.lerp_(b, w)\nx",
    "out": "o = torch.empty(2, 5)\nr = torch.lerp(a, b, 0.5, out=o)\n(o, r is o)",
    "out_t": "o = torch.empty(0)\ntorch.lerp(a, b, w, out=o)\no",
    "aten_scalar": "torch.ops.aten.lerp.Scalar(a, b, 0.2)",
    "aten_tensor": "torch.ops.aten.lerp.Tensor(a, b, w)",
    "aten_scalar_out": "torch.ops.aten.lerp.Scalar_out(a, b, 0.2, out=torch.empty(2, 5))",
    "aten_tensor_out": "torch.ops.aten.lerp.Tensor_out(a, b, w, out=torch.empty(2, 5))",
    "aten_inplace": "x = a.clone()\ntorch.ops.aten.lerp_.Scalar(x, b, 0.9)\ntorch.ops.aten.lerp_.Tensor(x, b, w)\nx",
    "transposed": "torch.lerp(a.t(), b.t(), 0.3)",
    "empty": "torch.lerp(torch.empty(0, 3), torch.empty(0, 3), 0.5)",
    "zero_dim": "torch.lerp(torch.tensor(1.), torch.tensor(3.), 0.25)",
    "bad_end_dtype": "torch.lerp(a, b.double(), 0.5)",
    "bad_w_dtype": "torch.lerp(a, b, w.double())",
    "bad_int": "torch.lerp(ia, ib, 1)",
    "bad_inplace_shape": "a.clone().lerp_(torch.randn(3, 2, 5), 0.5)",
}, setup=S)

# ---- addcmul / addcdiv ------------------------------------------------------------------------
INT = {"i64": "", "i32": ".int()", "i16": ".short()", "i8": ".to(torch.int8)", "u8": ".abs().to(torch.uint8)"}
cases("addcmul", {
    **{f"{d}-{v}": f"torch.addcmul(a{s}, b{s}, c{s}, value={v})" for d, s in FL.items() for v in ("1", "0.001", "-2.5")},
    **{f"int-{d}": f"torch.addcmul(ia{s}, ib{s}, ia{s}, value=3)" for d, s in INT.items()},
    "int_float_value": "torch.addcmul(ia, ib, ia, value=0.5)",
    "promote": "torch.addcmul(a, ia[:, :1].float(), c.double())",
    "promote_int_float": "torch.addcmul(ia, ib, ia.float())",
    "bcast": "torch.addcmul(a[0], b, c[:, :1], value=0.3)",
    "long_vec": "torch.addcmul(torch.randn(100), torch.randn(100), torch.randn(100), value=0.001)",
    "method": "a.addcmul(b, c)",
    "inplace": "x = a.clone()\ny = x.mul_(0.999).addcmul_(b, b, value=0.001)\n(x, y is x)",
    "out": "o = torch.empty(2, 5)\nr = torch.addcmul(a, b, c, value=2, out=o)\n(o, r is o)",
    "aten": "(torch.ops.aten.addcmul.default(a, b, c), torch.ops.aten.addcmul.out(a, b, c, out=torch.empty(0)))",
    "aten_inplace": "x = a.clone()\ntorch.ops.aten.addcmul_.default(x, b, c, value=0.5)\nx",
    "bad_bool": "torch.addcmul(a > 0, b > 0, c > 0)",
    "bad_inplace_cast": "ia.clone().addcmul_(a[:, :3], b[:, :3])",
    "bad_shape": "torch.addcmul(a, b, torch.randn(3))",
}, setup=S)

cases("addcdiv", {
    **{f"{d}-{v}": f"torch.addcdiv(a{s}, b{s}, c{s}, value={v})" for d, s in FL.items() for v in ("1", "-0.0123", "3")},
    "int_self": "torch.addcdiv(ia, ib.float(), ia.float() + 10)",
    "bcast": "torch.addcdiv(a[0], b, c[:, :1], value=0.3)",
    "long_vec": "torch.addcdiv(torch.randn(100), torch.randn(100), torch.rand(100) + 0.1, value=-0.001)",
    "method": "a.addcdiv(b, c)",
    "inplace": "x = a.clone()\ny = x.addcdiv_(b, c, value=-0.01)\n(x, y is x)",
    "out": "o = torch.empty(2, 5)\nr = torch.addcdiv(a, b, c, out=o)\n(o, r is o)",
    "aten": "(torch.ops.aten.addcdiv.default(a, b, c), torch.ops.aten.addcdiv.out(a, b, c, out=torch.empty(0)))",
    "aten_inplace": "x = a.clone()\ntorch.ops.aten.addcdiv_.default(x, b, c, value=0.5)\nx",
    "div_zero": "torch.addcdiv(a, b, torch.zeros(2, 5))",
    "bad_int": "torch.addcdiv(ia, ib, ia)",
    "bad_int_mixed": "torch.addcdiv(a[:, :3], ib, ia)",
}, setup=S)

# ---- _foreach_* -------------------------------------------------------------------------------
F = """
torch.manual_seed(0)
xs = [torch.randn(3), torch.randn(2, 2), torch.randn(5)]
ys = [torch.randn(3), torch.randn(2, 2), torch.randn(5)]
zs = [torch.rand(3) + 0.5, torch.rand(2, 2) + 0.5, torch.rand(5) + 0.5]
ds = [t.double() for t in xs]
hs = [t.bfloat16() for t in xs]
def cl(l): return [t.clone() for t in l]
"""


def fe(op, args, inplace=True):
    """functional, torch.ops functional, in-place (returns the list) and torch.ops in-place."""
    d = {"fn": f"torch._foreach_{op}({args})",
         "fn_f64": f"torch._foreach_{op}({args.replace('xs', 'ds', 1)})"}
    if inplace:
        d["ip"] = f"x = cl(xs)\nr = torch._foreach_{op}_({args.replace('xs', 'x', 1)})\n(x, r is x)"
    return d


FE = {
    "add.Scalar": "xs, 1.5", "add.List": "xs, ys", "add.List_alpha": "xs, ys, alpha=-0.3",
    "add.ScalarList": "xs, [1.0, -2.5, 0.125]", "add.Tensor": "xs, torch.tensor(0.5), alpha=2",
    "mul.Scalar": "xs, 0.9", "mul.List": "xs, ys", "mul.ScalarList": "xs, [0.5, 2.0, -1.0]",
    "mul.Tensor": "xs, torch.tensor(3.0)",
    "div.Scalar": "xs, 3.0", "div.List": "xs, zs", "div.ScalarList": "xs, [0.5, 7.0, -3.0]",
    "div.Tensor": "xs, torch.tensor(0.3)",
    "maximum.List": "xs, ys",
    "addcmul.Scalar": "xs, ys, zs, 0.001", "addcmul.Scalar_default": "xs, ys, zs",
    "addcmul.ScalarList": "xs, ys, zs, [0.1, 0.2, -0.3]",
    "addcdiv.Scalar": "xs, ys, zs, -0.01", "addcdiv.ScalarList": "xs, ys, zs, [0.1, 0.2, -0.3]",
    "lerp.Scalar": "xs, ys, 0.1", "lerp.List": "xs, ys, zs",
    "neg": "xs", "sqrt": "zs",
    "sub.Scalar": "xs, 0.25", "sub.List": "xs, ys, alpha=0.5", "sub.ScalarList": "xs, [1.0, -2.0, 0.5]",
    "clamp_min.Scalar": "xs, -0.1", "clamp_max.Scalar": "xs, 0.2",
    "abs": "xs", "reciprocal": "zs", "sign": "xs",
}
body = {}
for key, args in FE.items():
    op = key.split(".")[0]
    if op == "sqrt":
        body["sqrt-fn"] = "torch._foreach_sqrt(zs)"
        body["sqrt-ip"] = "x = cl(zs)\nr = torch._foreach_sqrt_(x)\n(x, r is x)"
        continue
    for k, v in fe(op, args).items():
        body[f"{key}-{k}"] = v
# upstream's float32 sqrt is not correctly rounded (ours is): _foreach_sqrt takes tol="float"
cases("foreach_sqrt", {k: v for k, v in body.items() if k.startswith("sqrt")}, setup=F, tol="float")

cases("foreach", {
    **{k: v for k, v in body.items() if not k.startswith("sqrt")},
    "bf16_lerp": "x = cl(hs)\ntorch._foreach_lerp_(x, [t.bfloat16() for t in ys], 0.1)\nx",
    "bf16_addcmul": "torch._foreach_addcmul(hs, hs, hs, 0.5)",
    "zero_": "x = cl(xs)\nr = torch._foreach_zero_(x)\n(x, r is x)",
    "aten_zero_": "x = cl(xs)\ntorch.ops.aten._foreach_zero_.default(x)\nx",
    "sign_zero": "torch._foreach_sign([torch.tensor([0., -0., 2., float('nan')])])",
    "reciprocal_zero": "torch._foreach_reciprocal([torch.tensor([0., -0., 4.])])",
    "sub_int": "torch._foreach_sub([torch.arange(4)], 3)",
    "copy_": "x = cl(xs)\nr = torch._foreach_copy_(x, ys)\n(x, r)",
    "copy_cast": "x = cl(xs)\ntorch._foreach_copy_(x, ds)\nx",
    "norm": "torch._foreach_norm(xs)",
    "norm_ord": "(torch._foreach_norm(xs, 1), torch._foreach_norm(xs, float('inf')), torch._foreach_norm(xs, 3.5))",
    "norm_dtype": "torch._foreach_norm(xs, 2, dtype=torch.float64)",
    "aten_ops": "(torch.ops.aten._foreach_add.Scalar(xs, 1), torch.ops.aten._foreach_mul.List(xs, ys), torch.ops.aten._foreach_norm.Scalar(xs, 2), torch.ops.aten._foreach_neg.default(xs))",
    "aten_inplace": "x = cl(xs)\nr = torch.ops.aten._foreach_add_.List(x, ys, alpha=2)\nr2 = torch.ops.aten._foreach_maximum_.List(x, ys)\nr3 = torch.ops.aten._foreach_copy_.default(x, zs)\n(x, r, r2, r3)",
    "single": "torch._foreach_mul([torch.tensor(2.)], 3)",
    "bad_empty": "torch._foreach_add([], 1)",
    "bad_len": "torch._foreach_add(xs, ys[:2])",
    "bad_scalarlist_len": "torch._foreach_mul(xs, [1.0])",
    "bad_tensor_dim": "torch._foreach_mul_(cl(xs), torch.ones(2))",
    "bad_shape": "torch._foreach_add_(cl(xs), [torch.ones(4)] * 3)",
    "bad_ternary_len": "torch._foreach_addcmul(xs, ys, zs[:1])",
    "bad_norm_empty": "torch._foreach_norm([])",
}, setup=F)

# ---- fused optimizer steps --------------------------------------------------------------------
FU = """
def state(n, dt, k=4):
    torch.manual_seed(n)
    return [torch.randn(n).to(dt), torch.randn(n).to(dt), (torch.randn(n) * 0.1).to(dt), (torch.rand(n) * 0.01).to(dt), (torch.rand(n) * 0.01).to(dt)][:k]
def adam(fn, n, dt, ams=False, **kw):
    p, g, m, v, mx = state(n, dt, 5)
    args = dict(lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=ams, maximize=False)
    args.update(kw)
    fn([p], [g], [m], [v], [mx] if ams else [], [torch.tensor(3.)], **args)
    return [p, g, m, v, mx]
def sgd(n, dt, mom=0.9, **kw):
    p, g, b = state(n, dt, 3)
    args = dict(weight_decay=0.0, momentum=mom, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False)
    args.update(kw)
    torch._fused_sgd_([p], [g], [b] if mom else [], **args)
    return [p, g, b]
"""
FDT = {"f32": "torch.float32", "f64": "torch.float64", "bf16": "torch.bfloat16", "f16": "torch.float16"}
fused = {}
for d, dt in FDT.items():
    for n in (7, 21, 40):
        for fn in ("_fused_adam_", "_fused_adamw_"):
            fused[f"{fn}-{d}-{n}"] = f"adam(torch.{fn}, {n}, {dt})"
            fused[f"{fn}-{d}-{n}-all"] = (f"adam(torch.{fn}, {n}, {dt}, ams=True, maximize=True, weight_decay=0.1, beta1=0.3)")
        if d in ("f32", "f64") or n < 16:
            fused[f"sgd-{d}-{n}"] = f"sgd({n}, {dt})"
            fused[f"sgd-{d}-{n}-nest"] = f"sgd({n}, {dt}, nesterov=True, weight_decay=0.01, maximize=True)"
            fused[f"sgd-{d}-{n}-damp"] = f"sgd({n}, {dt}, dampening=0.2, weight_decay=0.1)"
            fused[f"sgd-{d}-{n}-first"] = f"sgd({n}, {dt}, is_first_step=True)"
            fused[f"sgd-{d}-{n}-nomom"] = f"sgd({n}, {dt}, mom=0.0, weight_decay=0.1)"
cases("fused_optim", {
    **fused,
    "adam_step_big": "p, g, m, v = state(33, torch.float32)\ntorch._fused_adam_([p], [g], [m], [v], [], [torch.tensor(1000.)], lr=0.1, beta1=0.5, beta2=0.9, weight_decay=0.0, eps=1e-6, amsgrad=False, maximize=False)\n(p, m, v)",
    "adam_tensor_lr": "p, g, m, v = state(21, torch.float32)\ntorch.ops.aten._fused_adam_.tensor_lr([p], [g], [m], [v], [], [torch.tensor(2.)], lr=torch.tensor(0.01), beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)\n(p, m, v)",
    "adamw_tensor_lr": "p, g, m, v = state(21, torch.float32)\ntorch.ops.aten._fused_adamw_.tensor_lr([p], [g], [m], [v], [], [torch.tensor(2.)], lr=torch.tensor(0.01), beta1=0.9, beta2=0.999, weight_decay=0.1, eps=1e-8, amsgrad=False, maximize=False)\n(p, m, v)",
    "sgd_tensor_lr": "p, g, b = state(21, torch.float32, 3)\ntorch.ops.aten._fused_sgd_.tensor_lr([p], [g], [b], weight_decay=0.0, momentum=0.9, lr=torch.tensor(0.1), dampening=0.0, nesterov=False, maximize=False, is_first_step=False)\n(p, b)",
    "adam_grad_scale": "p, g, m, v = state(21, torch.float32)\ntorch._fused_adam_([p], [g], [m], [v], [], [torch.tensor(1.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False, grad_scale=torch.tensor(4.))\n(p, g, m, v)",
    "adam_found_inf": "p, g, m, v = state(21, torch.float32)\ntorch._fused_adam_([p], [g], [m], [v], [], [torch.tensor(1.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False, found_inf=torch.tensor(1.))\n(p, m, v)",
    "sgd_grad_scale": "p, g, b = state(21, torch.float32, 3)\ntorch._fused_sgd_([p], [g], [b], weight_decay=0.0, momentum=0.9, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False, grad_scale=torch.tensor(0.5))\n(p, g, b)",
    "two_tensors": "p1, g1, m1, v1 = state(9, torch.float32)\np2, g2, m2, v2 = state(30, torch.float32)\ntorch._fused_adamw_([p1, p2], [g1, g2], [m1, m2], [v1, v2], [], [torch.tensor(1.), torch.tensor(5.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=False, maximize=False)\n(p1, p2, m1, m2, v1, v2)",
    "matrix": "p = torch.randn(5, 7); g = torch.randn(5, 7); m = torch.zeros(5, 7); v = torch.zeros(5, 7)\ntorch._fused_adam_([p], [g], [m], [v], [], [torch.tensor(1.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)\n(p, m, v)",
    **{f"adagrad-{d}-{n}": f"p, g, s = state({n}, {dt}, 3)\ns = s.abs()\ntorch._fused_adagrad_([p], [g], [s], [torch.tensor(3.)], lr=0.1, lr_decay=0.01, weight_decay={wd}, eps=1e-10, maximize={mx})\n(p, g, s)"
       for d, dt in FDT.items() for n in (7, 21, 40) for wd, mx in (("0.0", False), ("0.1", True))},
    "adagrad_tensor_lr": "p, g, s = state(21, torch.float32, 3)\ns = s.abs()\ntorch.ops.aten._fused_adagrad_.tensor_lr([p], [g], [s], [torch.tensor(2.)], lr=torch.tensor(0.1), lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False)\n(p, s)",
    "adagrad_grad_scale": "p, g, s = state(21, torch.bfloat16, 3)\ns = s.abs()\ntorch._fused_adagrad_([p], [g], [s], [torch.tensor(1.)], lr=0.1, lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False, grad_scale=torch.tensor(2.))\n(p, g, s)",
    "bad_adagrad_len": "p, g, s = state(5, torch.float32, 3)\ntorch._fused_adagrad_([p], [g], [], [torch.tensor(1.)], lr=0.1, lr_decay=0.0, weight_decay=0.0, eps=1e-10, maximize=False)",
    "bad_len": "p, g, m, v = state(5, torch.float32)\ntorch._fused_adam_([p], [], [m], [v], [], [torch.tensor(1.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)",
    "bad_ams_len": "p, g, m, v = state(5, torch.float32)\ntorch._fused_adam_([p], [g], [m], [v], [], [torch.tensor(1.)], lr=0.01, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=True, maximize=False)",
    "bad_sgd_buf": "p, g, b = state(5, torch.float32, 3)\ntorch._fused_sgd_([p], [g], [b], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False)",
    "bad_int": "p = torch.arange(4); torch._fused_sgd_([p], [p.clone()], [], weight_decay=0.0, momentum=0.0, lr=0.1, dampening=0.0, nesterov=False, maximize=False, is_first_step=False)",
}, setup=FU)
