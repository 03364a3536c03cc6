"""Autograd gaps closed by helper-autograd, compared with upstream 2.13.0:

- double backward through in-place ops: the copy of self an in-place op saves (original_self)
  hangs on self's history (CloneBackward0), so the second derivative and the double-backward
  graph are upstream's; in-place ops on views keep the view's own history on the op's node, as
  upstream's CopySlices does;
- double backward of batch norm (native_batch_norm_backward / batch_norm_backward:
  batchnorm_double_backward) and group norm (infinitely_differentiable_native_group_norm_backward),
  and gradgradcheck over them;
- double backward of slice_backward / select_backward;
- torch._C._functions.UndefinedGrad (what gradcheck's check_undefined_grad uses).

Gradients use the fixed tolerance of tests/harness/autograd.py (F32 / F64); graphs, booleans and
error types are exact."""
from harness import cases
from harness.autograd import F32, F64, GRAPH as PRE

# ---- double backward through in-place ops ------------------------------------------------------
# g = d(sum y)/dx with create_graph; h = d(sum g * w)/dx. The graph of g is compared node by node.
DOUBLE = ("\n(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)"
          "\nw = torch.linspace(-1, 1, g.numel(), dtype=g.dtype).reshape(g.shape)"
          "\n(h,) = torch.autograd.grad((g * w).sum(), x, allow_unused=True)"
          "\nresult = (graph(g), g.requires_grad, g.detach(), h)")
INPLACE = {
    "erf_": "x = leaves((5,))[0]; y = x.clone().erf_()",
    "exp_": "x = leaves((5,))[0]; y = x.clone().exp_()",
    "mul_tensor": "x = leaves((5,))[0]; y = x.clone().mul_(x)",
    "mul_scalar_then_self": "x = leaves((5,))[0]; y = (x * 2).mul_(3).mul_(x)",
    "sigmoid_": "x = leaves((5,))[0]; y = x.clone().sigmoid_()",
    "tanh_": "x = leaves((5,))[0]; y = x.clone().tanh_()",
    "pow_scalar": "x = leaves((5,))[0]; y = x.clone().pow_(3)",
    "pow_tensor": "x = leaves((5,))[0]; y = (x.abs() + 0.5).pow_(x)",
    "div_": "x = leaves((5,))[0]; y = x.clone().div_(x * x + 2)",
    "sin_cos_": "x = leaves((5,))[0]; y = x.clone().sin_().cos_()",
    "log_": "x = leaves((5,))[0]; y = (x * x + 1).log_()",
    "atan_": "x = leaves((5,))[0]; y = x.clone().atan_()",
    "sqrt_": "x = leaves((5,))[0]; y = (x * x + 1).sqrt_()",
    "addcmul_": "x = leaves((5,))[0]; y = x.clone().addcmul_(x, x, value=0.5)",
    "chain": "x = leaves((4,))[0]; y = x.clone().erf_().mul_(x).tanh_().pow_(2)",
    "float64_erf_": "x = leaves((5,), dtype=torch.float64)[0]; y = x.clone().erf_()",
    "float64_div_": "x = leaves((5,), dtype=torch.float64)[0]; y = x.clone().div_(x.exp())",
    # in-place on views: CopySlices on the base, the op's node keeps the view's history
    "view_exp_": "x = leaves((5,))[0]; c = x.clone(); c[1:].exp_(); y = c",
    "view_erf_": "x = leaves((5,))[0]; c = x.clone(); c[1:4].erf_(); y = c * c",
    "view_mul_": "x = leaves((5,))[0]; c = x.clone(); c[1:].mul_(x[:4]); y = c",
    "view_sigmoid_2d": "x = leaves((3, 4))[0]; c = x.clone(); c[:, 1].sigmoid_(); y = c",
    "view_tanh_t": "x = leaves((3, 4))[0]; c = x.clone(); c.t()[1:].tanh_(); y = c",
    "view_pow_": "x = leaves((6,))[0]; c = x.clone(); c[::2].pow_(3); y = c",
    "view_div_": "x = leaves((6,))[0]; c = x.clone(); c[::2].div_(x[1::2].exp()); y = c",
    "view_select_erf_": "x = leaves((3, 4))[0]; c = x * 1; c[1].erf_(); y = c",
    "view_diagonal_exp_": "x = leaves((3, 3))[0]; c = x.clone(); c.diagonal().exp_(); y = c",
    "view_kept_alive": "x = leaves((5,))[0]; c = x.clone(); v = c[1:]; v.erf_(); y = c + v.sum()",
}
cases("grad_inplace_double", {k: PRE + v + DOUBLE for k, v in INPLACE.items()}, tol=F32, vars=False)

cases("grad_inplace_saved", {k: PRE + v for k, v in {
    # the saved copy of self has CloneBackward0, made after the op's node (sequence numbers)
    "erf_saved_self": "x = leaves((3,))[0]; y = x.clone().erf_(); s = y.grad_fn._saved_self; "
                      "(y.grad_fn.name(), s.grad_fn.name(), s.grad_fn.next_functions[0][0].name(), "
                      "y.grad_fn._sequence_nr() < s.grad_fn._sequence_nr(), s.requires_grad)",
    "pow_saved_self": "x = leaves((3,))[0]; y = x.clone().pow_(2); s = y.grad_fn._saved_self; (s.grad_fn.name(), s.requires_grad)",
    "no_grad_self": "x = leaves((3,))[0]; c = torch.ones(3); c.mul_(x); (c.grad_fn.name(), c.grad_fn._saved_self.requires_grad)",
    "view_inner_node": "x = leaves((5,))[0]; c = x.clone(); v = c[1:]; v.erf_(); "
                       "(graph(c), graph(v))",
    "dispatch_ops": """
from torch.utils._python_dispatch import TorchDispatchMode
seen = []
class M(TorchDispatchMode):
    def __torch_dispatch__(self, f, t, a=(), k=None):
        seen.append(str(f)); return f(*a, **(k or {}))
x = leaves((3,))[0]
with M():
    y = x.clone().erf_()
seen""",
    # hessian through an in-place op
    "hessian": "x = leaves((4,), dtype=torch.float64)[0].detach(); "
               "torch.autograd.functional.hessian(lambda t: t.clone().erf_().mul_(t).sum(), x)",
}.items()}, tol=F64, vars=False)

# ---- double backward of batch norm and group norm ----------------------------------------------
# first gradients with create_graph, then the gradient of a weighted sum of them
BN2 = ("\nps = [p for p in ps if p is not None]"
       "\nfirst = torch.autograd.grad((y * torch.linspace(-2, 2, y.numel(), dtype=y.dtype).reshape(y.shape).sin()).sum(), ps, create_graph=True)"
       "\nloss = sum((f * f.detach().cos()).sum() for f in first)"
       "\nsecond = torch.autograd.grad(loss, ps, allow_unused=True)"
       "\nresult = (graph(first[0]), [f.detach() for f in first], second)")
F = "import torch.nn.functional as F\n"
NORMS = {
    "bn_train_affine": "ps = leaves((4, 3, 5), (3,), (3,)); y = F.batch_norm(ps[0], None, None, ps[1], ps[2], training=True)",
    "bn_train_no_affine": "ps = leaves((4, 3, 5)); y = F.batch_norm(ps[0], None, None, training=True)",
    "bn_train_running": "ps = leaves((4, 3), (3,), (3,)); rm = torch.zeros(3); rv = torch.ones(3); "
                        "y = F.batch_norm(ps[0], rm, rv, ps[1], ps[2], training=True, momentum=0.3)",
    "bn_train_4d": "ps = leaves((2, 3, 2, 3), (3,), (3,)); y = F.batch_norm(ps[0], None, None, ps[1], ps[2], training=True, eps=1e-3)",
    "bn_train_weight_only": "ps = leaves((4, 2, 3), (2,)); y = F.batch_norm(ps[0], None, None, ps[1], None, training=True)",
    "bn_eval": "ps = leaves((4, 3, 5), (3,), (3,)); rm = torch.linspace(-1, 1, 3); rv = torch.linspace(0.5, 2, 3); "
               "y = F.batch_norm(ps[0], rm, rv, ps[1], ps[2], training=False)",
    "bn_module_train": "torch.manual_seed(1); m = torch.nn.BatchNorm2d(3); x = leaves((2, 3, 2, 2))[0]; "
                       "ps = [x, m.weight, m.bias]; y = m(x)",
    "bn_module_1d": "torch.manual_seed(1); m = torch.nn.BatchNorm1d(4); x = leaves((5, 4))[0]; "
                    "ps = [x, m.weight, m.bias]; y = m(x)",
    "bn_float64": "ps = leaves((4, 3, 5), (3,), (3,), dtype=torch.float64); y = F.batch_norm(ps[0], None, None, ps[1], ps[2], training=True)",
    "bn_noncontig": "ps = leaves((5, 3, 4), (3,), (3,)); y = F.batch_norm(ps[0].transpose(0, 2).transpose(0, 1).transpose(1, 2)[:4], None, None, ps[1], ps[2], training=True)",
    "gn_affine": "ps = leaves((2, 6, 5), (6,), (6,)); y = F.group_norm(ps[0], 3, ps[1], ps[2])",
    "gn_no_affine": "ps = leaves((2, 6, 5)); y = F.group_norm(ps[0], 2)",
    "gn_4d": "ps = leaves((2, 4, 2, 3), (4,), (4,)); y = F.group_norm(ps[0], 2, ps[1], ps[2], eps=1e-3)",
    "gn_one_group": "ps = leaves((3, 4), (4,), (4,)); y = F.group_norm(ps[0], 1, ps[1], ps[2])",
    "gn_module": "torch.manual_seed(1); m = torch.nn.GroupNorm(2, 4); x = leaves((3, 4, 3))[0]; "
                 "ps = [x, m.weight, m.bias]; y = m(x)",
    "gn_float64": "ps = leaves((2, 6, 5), (6,), (6,), dtype=torch.float64); y = F.group_norm(ps[0], 3, ps[1], ps[2])",
}
cases("grad_norm_double", {k: PRE + F + v + BN2 for k, v in NORMS.items()}, tol=F32, vars=False)

# group norm's mean / rstd outputs: gradients flowing into them go through the same helper
cases("grad_norm_double_stats", {k: PRE + v for k, v in {
    "gn_stats_grad": "x, w, b = leaves((2, 4, 3), (4,), (4,), dtype=torch.float64); "
                     "out, mean, rstd = torch.ops.aten.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5); "
                     "torch.autograd.grad(out.sum() + (mean * 3).sum() + rstd.sum(), (x, w, b))",
    "gn_stats_only": "x, = leaves((2, 4, 3), dtype=torch.float64); "
                     "out, mean, rstd = torch.ops.aten.native_group_norm(x, None, None, 2, 4, 3, 2, 1e-5); "
                     "torch.autograd.grad(mean.sum() + rstd.pow(2).sum(), x)",
    "gn_double_with_stats": "x, w = leaves((2, 4, 3), (4,), dtype=torch.float64); "
                            "out, mean, rstd = torch.ops.aten.native_group_norm(x, w, None, 2, 4, 3, 2, 1e-5); "
                            "g = torch.autograd.grad((out * out).sum() + rstd.sum(), (x, w), create_graph=True); "
                            "torch.autograd.grad(g[0].sum() + g[1].pow(2).sum(), (x, w))",
}.items()}, tol=F64, vars=False)

GGC = "import torch.nn.functional as F\nfrom torch.autograd import gradcheck, gradgradcheck\n"
cases("gradgradcheck_norms", {k: PRE + GGC + v for k, v in {
    "bn_train": "ps = leaves((4, 3, 2), (3,), (3,), dtype=torch.float64); "
                "(gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), ps), "
                "gradgradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), ps))",
    "bn_train_running": "ps = leaves((4, 3), (3,), (3,), dtype=torch.float64); rm = torch.zeros(3, dtype=torch.float64); "
                        "rv = torch.ones(3, dtype=torch.float64); "
                        "gradgradcheck(lambda x, w, b: F.batch_norm(x, rm.clone(), rv.clone(), w, b, training=True), ps)",
    "bn_eval": "ps = leaves((4, 3, 2), (3,), (3,), dtype=torch.float64); rm = torch.zeros(3, dtype=torch.float64); "
               "rv = torch.full((3,), 2., dtype=torch.float64); "
               "gradgradcheck(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), ps)",
    "bn_no_affine": "ps = leaves((3, 2, 3), dtype=torch.float64); "
                    "gradgradcheck(lambda x: F.batch_norm(x, None, None, training=True), ps)",
    "gn": "ps = leaves((2, 6, 3), (6,), (6,), dtype=torch.float64); "
          "(gradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), ps), gradgradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), ps))",
    "gn_no_affine": "ps = leaves((2, 4, 3), dtype=torch.float64); gradgradcheck(lambda x: F.group_norm(x, 2), ps)",
    "gn_stats": "ps = leaves((2, 4, 3), (4,), (4,), dtype=torch.float64); "
                "gradgradcheck(lambda x, w, b: torch.ops.aten.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5), ps)",
}.items()}, vars=False)

# ---- slice_backward / select_backward double backward ------------------------------------------
cases("grad_view_backward_double", {k: PRE + v for k, v in {
    "slice": "x, v = leaves((5, 3), (2, 3)); (g,) = torch.autograd.grad(x[1:5:2], x, v, create_graph=True); "
             "(graph(g), torch.autograd.grad((g * g).sum(), v))",
    "select": "x, v = leaves((4, 3), (3,)); (g,) = torch.autograd.grad(x[2], x, v, create_graph=True); "
              "(graph(g), torch.autograd.grad((g * g.detach().exp()).sum(), v))",
    "slice_dim1": "x, v = leaves((2, 6), (2, 2)); (g,) = torch.autograd.grad(x[:, -2:], x, v, create_graph=True); "
                  "(graph(g), torch.autograd.grad(g.sum() + (g * g).sum(), v))",
}.items()}, tol=F32, vars=False)

# ---- torch._C._functions.UndefinedGrad -----------------------------------------------------------
cases("undefined_grad", {k: PRE + v for k, v in {
    "clone_node": "x = leaves((3,))[0]; y = torch._C._functions.UndefinedGrad()(x * 2); "
                  "(y, graph(y), y.requires_grad, y.is_leaf, y._base is None, y.data_ptr() == x.data_ptr())",
    "grad_is_none": "x = leaves((3,))[0]; y = torch._C._functions.UndefinedGrad()(x * 2); "
                    "torch.autograd.grad(y.sum(), x, allow_unused=True)",
    "no_requires_grad": "u = torch._C._functions.UndefinedGrad()(torch.ones(2)); (u, u.grad_fn is None, u.requires_grad)",
    "under_no_grad": "x = leaves((3,))[0]\nwith torch.no_grad():\n    u = torch._C._functions.UndefinedGrad()(x)\n"
                     "(graph(u), u.requires_grad)",
    "bad_ctor": "torch._C._functions.UndefinedGrad(1)",
    "bad_arg": "torch._C._functions.UndefinedGrad()(3)",
    "two_args": "x = leaves((3,))[0]; torch._C._functions.UndefinedGrad()(x, x)",
    "gradcheck_undefined": "x = leaves((3, 4), dtype=torch.float64)[0]; "
                           "torch.autograd.gradcheck(lambda t: (t.sin() * t).sum(1), (x,), check_undefined_grad=True)",
}.items()}, tol=F32, vars=False)

# ---- views of a base that gains history later; as_strided with a storage offset -----------------
cases("grad_views_later_history", {k: PRE + v for k, v in {
    "copy_into_base": "x = leaves((5,))[0]; r = torch.zeros(5); v = r[1:]; w = r[::2]; r.copy_(x); "
                      "(v.requires_grad, graph(v), w.requires_grad, torch.autograd.grad((v * w[:4]).sum(), x))",
    "inplace_other_view": "x = leaves((3,))[0]; q = torch.zeros(3); w = q[2:]; u = q[:1]; u.mul_(x[:1]); "
                          "(w.requires_grad, graph(w), graph(u), graph(q))",
    "no_history_stays": "r = torch.zeros(5); v = r[1:]; r.add_(1); (v.requires_grad, v.grad_fn is None)",
    "int_view": "x = leaves((3,))[0]; r = torch.zeros(3, dtype=torch.long); v = r[1:]; r.add_(2); (v.requires_grad, v.grad_fn is None)",
}.items()}, tol=F32, vars=False)

cases("grad_as_strided_offset", {k: PRE + v + "\nout.sum().backward() if out.dim() else out.backward()\nresult = (graph(out), ps[0].grad)"
      for k, v in {
    "offset": "ps = leaves((10,)); out = ps[0].as_strided((2, 2), (3, 1), 2) * torch.arange(4.).reshape(2, 2)",
    "offset_overlap": "ps = leaves((10,)); out = ps[0].as_strided((3, 3), (1, 1), 4) * torch.arange(9.).reshape(3, 3)",
    "offset_of_view": "ps = leaves((12,)); out = ps[0][3:].as_strided((2, 3), (1, 2), 5) ** 2",
    "offset_below_input": "ps = leaves((12,)); out = ps[0][4:].as_strided((3,), (2,), 1) * torch.tensor([1., 2., 3.])",
    "offset_zero": "ps = leaves((4, 3)); out = ps[0].as_strided((2, 2), (1, 3), 0) * 3",
}.items()}, tol=F32, vars=False)

# in-place ops upstream has no derivative for: its NotImplementedError, raised in backward
cases("grad_inplace_not_implemented", {op: "import torch\nx = torch.rand(3, requires_grad=True); y = x.clone() + 1.5\n"
      "y.%s()\ntry:\n    y.sum().backward()\n    result = None\nexcept NotImplementedError as e:\n    result = str(e)" % op
      for op in ("asinh_", "atanh_", "acosh_")}, vars=False)

# _batch_norm_with_update / _no_update: BatchNormBackwardBackward0 (batch_norm_backward's double backward)
cases("grad_bn_update_double", {k: PRE + v + BN2 for k, v in {
    "with_update": "ps = leaves((4, 3, 2), (3,), (3,)); rm = torch.zeros(3); rv = torch.ones(3); "
                   "y = torch.ops.aten._batch_norm_with_update(ps[0], ps[1], ps[2], rm, rv, 0.1, 1e-5)[0]",
    "no_update": "ps = leaves((4, 3, 2), (3,), (3,)); rm = torch.linspace(-1, 1, 3); rv = torch.linspace(0.5, 2, 3); "
                 "y = torch.ops.aten._batch_norm_no_update(ps[0], ps[1], ps[2], rm, rv, 0.1, 1e-5)[0]",
}.items()}, tol=F32, vars=False)

# torch.autograd.grad of an input the graph does not use: upstream's message names its index
cases("grad_unused_input", {
    "second": "x = torch.randn(2, requires_grad=True); y = torch.randn(2, requires_grad=True)\n"
              "try:\n    torch.autograd.grad((x * 2).sum(), (x, y))\nexcept RuntimeError as e:\n    result = str(e)",
    "first_of_three": "x = torch.randn(2, requires_grad=True); y = torch.randn(2, requires_grad=True); z = torch.randn(2, requires_grad=True)\n"
                      "try:\n    torch.autograd.grad((x * 2).sum(), (y, x, z))\nexcept RuntimeError as e:\n    result = str(e)",
}, vars=False)
