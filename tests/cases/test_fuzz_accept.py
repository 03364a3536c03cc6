"""Calls of the no-crash corpus ours accepted and upstream refuses (docs/breadth_more2.md "Fuzz corpus
exception types", "ours ok, upstream RuntimeError"): upstream's checks reproduced with its messages,
in the layer owning each.

- Structured ops' out= check (set_output): the out tensor's dtype must be the result's exactly --
  argmax / argmin (long), max.dim / min.dim (values self's dtype, then indices long), sort / topk
  (values, indices), argsort / msort, isin (bool) -- after the meta checks (dim wrap, bool / complex
  input), before the kernel; nonzero.out's own check ("scalar type Long") first of all.
- isin refuses a bool or complex operand, each by its own dtype (a complex number is ComplexDouble);
  with few test elements (upstream's brute-force path) a same-dtype test tensor that cannot be
  flattened as a view raises view()'s error.
- topk refuses bool input after the k range check.
- out= with an input requiring grad: a CompositeImplicitAutograd out= row (absolute.out, divide.out,
  square.out ...) refuses as the out= op its kernel calls, naming an alias's target (square.out names
  itself, where upstream's names pow: the one message left different); an input the functional refuses outright
  (soft_margin_loss's target, fractional_max_pool2d_backward's indices) refuses the out= form too;
  lift.out / lift_fresh_copy.out into an expanded out of self's shape refuse as upstream's copy.
- threshold converts threshold (to the opmath type: float for half / bfloat16) and value (to self's
  dtype) with the overflow check; not on meta tensors.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
b = x > 2
c = x.to(torch.complex64)
E = lambda *s, dt=torch.float32: torch.empty(*(s or (2, 3)), dtype=dt)
L = lambda *s: torch.empty(*(s or (2, 3)), dtype=torch.long)
"""

cases("fuzz_accept", {
    "argmax_argmin_out_dtype": "[err(lambda: f(t, *d, out=o)) for f in [A.argmax.out, A.argmin.out] for t, d, o in "
                               "[(x, (), E()), (x, (0,), E()), (x, (0,), E(dt=torch.int32)), (b, (), E()), (c, (0,), E()), (x, (5,), E()), "
                               "(torch.ones(0, 3), (), E())]], [f(x, 1, out=L(2)).tolist() for f in [torch.argmax, torch.argmin]]",
    "max_min_dim_out_dtype": "[err(lambda: f(t, 0, False, o1, o2)) for f in [A.max.dim_max, A.min.dim_min] for t, o1, o2 in "
                             "[(x, E(), E()), (x, L(), L()), (x, E(), E(dt=torch.int32)), (b, E(), L()), (c, E(), L()), (x.half(), E(), L())]], "
                             "[tuple(r.tolist() for r in f(x, 0, False, E(3), L(3))) for f in [A.max.dim_max, A.min.dim_min]]",
    "sort_topk_argsort_msort_out_dtype": "[err(g) for g in [lambda: A.sort.values(x.bfloat16(), values=E(), indices=L()), "
                                         "lambda: A.sort.values(x, values=E(), indices=E()), lambda: A.sort.values(b, values=E(), indices=L()), "
                                         "lambda: A.sort.values(x, 5, values=E(dt=torch.half), indices=E()), lambda: A.sort.values(c, values=E(), indices=L()), "
                                         "lambda: A.sort.values_stable(x, stable=True, values=E(dt=torch.float64), indices=L()), "
                                         "lambda: A.topk.values(x.bfloat16(), 1, values=E(), indices=L()), lambda: A.topk.values(x, 1, values=E(), indices=E()), "
                                         "lambda: A.topk.values(x, 9, values=E(dt=torch.half), indices=E()), "
                                         "lambda: A.argsort.stable_out(x, stable=False, out=E()), lambda: A.argsort.stable_out(c, stable=False, out=E()), "
                                         "lambda: torch.argsort(x, stable=True, out=E(dt=torch.int32)), lambda: A.msort.out(x, out=L()), "
                                         "lambda: torch.msort(x.double(), out=E())]], A.sort.values(x, 0, True, values=E(), indices=L())[1].tolist()",
    "nonzero_out_dtype": "[err(lambda: A.nonzero.out(t, out=o)) for t, o in [(x, E()), (b, E(dt=torch.int32)), (c, E()), (torch.ones([1] * 20), E()), "
                         "(x, torch.empty(0, dtype=torch.bool))]], A.nonzero.out(b, out=L(0)).tolist()",
    "isin_operand_dtypes": "[err(g) for g in [lambda: A.isin.Tensor_Tensor(b, x), lambda: A.isin.Tensor_Tensor(x, b), lambda: A.isin.Tensor_Tensor(c, x), "
                           "lambda: A.isin.Tensor_Tensor(x, c), lambda: A.isin.Tensor_Scalar(b, 2), lambda: A.isin.Tensor_Scalar(x, True), "
                           "lambda: A.isin.Tensor_Scalar(x, 1j), lambda: A.isin.Scalar_Tensor(2, b), lambda: A.isin.Scalar_Tensor(True, x), "
                           "lambda: A.isin.Scalar_Tensor(1j, x), lambda: torch.isin(x, b, invert=True)]], "
                           "[A.isin.Tensor_Scalar(x.long(), 2.5).tolist(), A.isin.Scalar_Tensor(2.0, x.long()).tolist(), A.isin.Tensor_Tensor(x, x.half()).tolist()]",
    "isin_out_dtype": "[err(g) for g in [lambda: A.isin.Tensor_Tensor_out(x, x, out=E()), lambda: A.isin.Tensor_Scalar_out(x, 2, out=L()), "
                      "lambda: A.isin.Scalar_Tensor_out(2.0, x, out=E()), lambda: torch.isin(x, x, out=E(dt=torch.uint8)), "
                      "lambda: A.isin.Tensor_Tensor_out(b, x, out=E())]], A.isin.Tensor_Tensor_out(x, x[:1], out=E(dt=torch.bool)).tolist()",
    # upstream's brute-force path (few test elements) flattens the test tensor with view(-1)
    "isin_test_elements_view": "[err(lambda: f()) for f in [lambda: A.isin.Tensor_Tensor(x, x.t()), lambda: A.isin.Tensor_Tensor(x, torch.ones(3).expand(2, 3)), "
                               "lambda: A.isin.Scalar_Tensor(2, x.t()), lambda: A.isin.Scalar_Tensor(2, torch.ones(3).expand(2, 3)), "
                               "lambda: A.isin.Tensor_Tensor(x.t(), x), lambda: A.isin.Tensor_Tensor(x, torch.ones(2, 6)[:, ::2]), "
                               "lambda: A.isin.Tensor_Tensor(torch.arange(400.).reshape(20, 20).t(), torch.arange(400.).reshape(20, 20).t()), "
                               "lambda: A.isin.Tensor_Tensor(x, x.t().long()), lambda: A.isin.Tensor_Tensor(x, torch.tensor(1.))]]",
    "topk_bool": "[err(lambda: A.topk.default(b, k)) for k in [0, 1, 3, 4, -1]], err(lambda: torch.topk(b, 1, out=(E(), L()))), "
                 "err(lambda: b.topk(1, dim=0))",
    "threshold_scalar_overflow": "[(str(dt), th, v, err(lambda: A.threshold.default(torch.ones(2, 3).to(dt), th, v))) for dt in "
                                 "[torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int32, torch.int64, torch.bool, torch.complex64] "
                                 "for th, v in [(1e308, 2), (2, 1e308), (1j, 2), (2, 1j), (2 ** 63 - 1, 2), (2, 2 ** 63 - 1), (-2 ** 63, 2), (300, 2), (2, 300), "
                                 "(2.5, 2), (float('inf'), 2), (float('nan'), 2), (True, 2), (1e308, 1j)]]",
    "threshold_inplace_out_meta": "[err(g) for g in [lambda: A.threshold_.default(x.half(), 2, 2 ** 63 - 1), lambda: torch.threshold_(x.clone(), 1e308, 2), "
                                  "lambda: A.threshold.out(torch.tensor(1.), 1e308, 2, out=E()), lambda: A.threshold.out(x, 2, 1j, out=E())]], "
                                  "A.threshold.default(torch.empty(2, 3, device='meta'), 1e308, 1j).shape, A.threshold.default(x, 2.5, -1).tolist()",
    "out_requires_grad_composite_and_nograd": "g = torch.ones(2, 3, requires_grad=True); "
        "[err(h) for h in [lambda: A.absolute.out(g, out=E()), lambda: A.arccos.out(g, out=E()), "
        "lambda: A.divide.out(g, x, out=E()), lambda: A.multiply.out(x, g, out=E()), "
        "lambda: torch.arctan2(g, x, out=E()), lambda: torch.clip(g, 0, 1, out=E()), "
        "lambda: A.absolute.out(x, out=E().requires_grad_()), "
        "lambda: A.soft_margin_loss.out(x, g, out=E()), "
        "lambda: A.fractional_max_pool2d_backward.grad_input(x, x, [1, 1], [1, 1], g, grad_input=E())]], "
        "A.absolute.out(-x, out=E()).tolist(), err(lambda: A.square.out(g, out=E()))[0]",
    "lift_out_expanded": "[err(lambda: f(x, out=torch.zeros(3).expand(2, 3))) for f in [A.lift.out, A.lift_fresh_copy.out]], "
                         "[f(x, out=torch.zeros(0)).tolist() for f in [A.lift.out, A.lift_fresh_copy.out]]",
}, setup=SETUP)
