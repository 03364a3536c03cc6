"""Overloads that other cases reach only from inside upstream's composites or autograd (squeeze_.dim
inside quantile, the grad_input forms of activation backwards, an optimizer's _foreach_add_.Tensor),
spelled here once each. Besides testing them directly, this lets the coverage gate find every
implemented overload without tracing every case (tests/harness/coverage.py trace_rounds: a trace
is another run of the snippet on upstream)."""
from harness import cases

cases("implicit_overloads", {
    "squeeze_dim_inplace": "x = torch.arange(6.).reshape(1, 2, 1, 3)\n"
                           "(torch.ops.aten.squeeze_.dim(x, 2), x.shape, torch.ops.aten.squeeze_.dim(x, 1).shape)",
    "view_copy_dtype": "x = torch.tensor([1.5, -2.0, 0.25])\n"
                       "(torch.ops.aten.view_copy.dtype(x, torch.int32), torch.ops.aten.view_copy.dtype(x, torch.int16))",
    "hardsigmoid_backward_out": "g = torch.linspace(-1, 1, 7); x = torch.linspace(-4, 4, 7); o = torch.empty(0)\n"
                                "(torch.ops.aten.hardsigmoid_backward.grad_input(g, x, grad_input=o), o)",
    "softplus_backward_out": "g = torch.linspace(-1, 1, 7); x = torch.linspace(-30, 30, 7); o = torch.empty(0)\n"
                             "(torch.ops.aten.softplus_backward.grad_input(g, x, 2.0, 20.0, grad_input=o), o)",
    "logit_backward_out": "g = torch.linspace(-1, 1, 7); x = torch.linspace(0, 1, 7); o = torch.empty(0)\n"
                          "(torch.ops.aten.logit_backward.grad_input(g, x, 0.1, grad_input=o), o, "
                          "torch.ops.aten.logit_backward.grad_input(g, x, None, grad_input=torch.empty(7)))",
    "foreach_add_tensor_inplace": "xs = [torch.arange(3.), torch.ones(2, 2)]\n"
                                  "torch.ops.aten._foreach_add_.Tensor(xs, torch.tensor(2.5), alpha=2)\n"
                                  "xs",
    "sdpa_flash_cpu_backward": "torch.manual_seed(0)\nq, k, v = (torch.randn(1, 2, 4, 8) for _ in range(3))\n"
                               "out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(q, k, v, 0.0, True)\n"
                               "g = torch.randn_like(out)\n"
                               "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default(g, q, k, v, out, lse, 0.0, True)",
    "compressed_indices": "d = torch.tensor([[0., 1, 0], [2, 0, 3], [0, 0, 0], [4, 5, 0]])\n"
                          "c = d.to_sparse_csc(); b = d.to_sparse_bsc((2, 1))\n"
                          "(torch.ops.aten.ccol_indices.default(c), torch.ops.aten.row_indices.default(c), "
                          "torch.ops.aten.ccol_indices.default(b), torch.ops.aten.row_indices.default(b))",
}, tol="float")

# a LAPACK solver's result: the normwise rule (tests/harness/runner.py)
cases("implicit_overloads_lapack", {
    "linalg_lstsq_out": "torch.manual_seed(0)\na = torch.randn(5, 3); b = torch.randn(5, 2)\n"
                        "s, r, k, v = (torch.empty(0), torch.empty(0), torch.empty(0, dtype=torch.long), torch.empty(0))\n"
                        "torch.ops.aten.linalg_lstsq.out(a, b, None, driver='gelsd', solution=s, residuals=r, rank=k, singular_values=v)\n"
                        "(s, r, k, v)",
}, tol="lapack")
