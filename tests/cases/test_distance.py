"""cdist / pdist and their aten pieces (_cdist_forward, _cdist_backward, _euclidean_dist,
_pdist_forward, _pdist_backward; src/ops/distance.c) compared with upstream: p = 0, 1, 2, inf,
fractional and general p, batch broadcasting, the matrix-product path (p = 2 with more than 25
rows, or compute_mode='use_mm_for_euclid_dist'), float64, empty and zero-column inputs,
non-contiguous inputs, gradients of every path, and upstream's errors. Values take the float
rule: the matrix-product path is a GEMM and upstream's pdist sums in vector lanes."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
AB = R + "a = torch.randn(4, 3)\nb = torch.randn(5, 3)\n"

cases("cdist", {
    "p2": AB + "torch.cdist(a, b)",
    "p_values": AB + "[torch.cdist(a, b, p) for p in (0., 1., 0.5, 1.5, 3., float('inf'))]",
    "p0_ties": "a = torch.tensor([[0., 1., 2.], [1., 1., 1.]])\ntorch.cdist(a, a, 0)",
    "f64": AB + "(torch.cdist(a.double(), b.double()), torch.cdist(a.double(), b.double(), 1.3))",
    "batched": R + "(torch.cdist(torch.randn(2, 3, 4), torch.randn(2, 5, 4)), torch.cdist(torch.randn(2, 1, 3, 4), torch.randn(3, 2, 4), 1.))",
    "mm_path_rows": R + "a = torch.randn(30, 4)\nb = torch.randn(6, 4)\n(torch.cdist(a, b), torch.cdist(a, b, compute_mode='donot_use_mm_for_euclid_dist'))",
    "mm_path_mode": AB + "torch.cdist(a, b, compute_mode='use_mm_for_euclid_dist')",
    "mm_path_batched": R + "torch.cdist(torch.randn(2, 1, 27, 3), torch.randn(3, 4, 3), compute_mode='use_mm_if_necessary')",
    "same_points": "a = torch.tensor([[1., 2.], [1., 2.], [0., 0.]])\n(torch.cdist(a, a), torch.cdist(a, a, compute_mode='use_mm_for_euclid_dist'))",
    "noncontig": R + "a = torch.randn(3, 4).t()\nb = torch.randn(5, 6)[:, ::2]\ntorch.cdist(a, b, 1.5)",
    "empty": "(torch.cdist(torch.empty(0, 3), torch.ones(2, 3)), torch.cdist(torch.ones(2, 0), torch.ones(3, 0)), torch.cdist(torch.empty(2, 0, 3), torch.ones(2, 4, 3)))",
    "aten": AB + "(torch.ops.aten._cdist_forward.default(a, b, 2., None), torch.ops.aten._cdist_forward.default(a, b, 2., 1), torch.ops.aten._euclidean_dist.default(a, b))",
    "aten_backward": AB + "d = torch.cdist(a, b, 3.)\ntorch.ops.aten._cdist_backward.default(torch.ones(4, 5), a, b, 3., d)",
    "bad_1d": "torch.cdist(torch.ones(3), torch.ones(2, 3))",
    "bad_1d_x2": "torch.cdist(torch.ones(2, 3), torch.ones(3))",
    "bad_cols": "torch.cdist(torch.ones(2, 3), torch.ones(2, 4))",
    "bad_int": "torch.cdist(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 3, dtype=torch.long))",
    "bad_bf16": "torch.cdist(torch.ones(2, 3, dtype=torch.bfloat16), torch.ones(2, 3, dtype=torch.bfloat16))",
    "bad_mixed": "torch.cdist(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.double))",
    "bad_p": "torch.cdist(torch.ones(2, 3), torch.ones(2, 3), -1.)",
    "bad_mode_str": "torch.cdist(torch.ones(2, 3), torch.ones(2, 3), compute_mode='foo')",
    "bad_mode_int": "torch.ops.aten._cdist_forward.default(torch.ones(2, 3), torch.ones(2, 3), 2., 3)",
    "bad_batch": "torch.cdist(torch.ones(2, 2, 3), torch.ones(3, 2, 3))",
}, tol="float")

cases("pdist", {
    "p2": R + "torch.pdist(torch.randn(5, 3))",
    "p_values": R + "x = torch.randn(4, 6)\n[torch.nn.functional.pdist(x, p) for p in (0., 1., 0.5, 1.5, 3., float('inf'))]",
    "f64": R + "torch.pdist(torch.randn(6, 9, dtype=torch.float64), 2.5)",
    "wide": R + "torch.pdist(torch.randn(3, 37))",
    "noncontig": R + "torch.pdist(torch.randn(4, 5).t())",
    "small": "(torch.pdist(torch.ones(1, 3)), torch.pdist(torch.empty(0, 3)), torch.pdist(torch.ones(3, 0)))",
    "aten": R + "x = torch.randn(4, 3)\nd = torch.ops.aten._pdist_forward.default(x, 2.)\n(d, torch.ops.aten._pdist_backward.default(torch.ones(6), x, 2., d))",
    "bad_1d": "torch.pdist(torch.ones(3))",
    "bad_int": "torch.pdist(torch.ones(3, 2, dtype=torch.long))",
    "bad_p": "torch.pdist(torch.ones(3, 2), -1)",
    "bad_bf16": "torch.pdist(torch.ones(3, 2, dtype=torch.bfloat16))",
    "bad_noncontig_aten": "torch.ops.aten._pdist_forward.default(torch.ones(3, 2).t(), 2.)",
}, tol="float")

grads("distance_grad", {
    "cdist_p2": "ps = leaves((4, 3), (5, 3)); out = torch.cdist(ps[0], ps[1]) * torch.arange(5.)",
    "cdist_p1": "ps = leaves((3, 2), (4, 2)); out = torch.cdist(ps[0], ps[1], 1.).sin()",
    "cdist_p_half": "ps = leaves((3, 2), (4, 2)); out = torch.cdist(ps[0], ps[1], 0.5)",
    "cdist_p3": "ps = leaves((3, 4), (2, 4)); out = torch.cdist(ps[0], ps[1], 3.)",
    "cdist_inf": "ps = leaves((3, 4), (2, 4)); out = torch.cdist(ps[0], ps[1], float('inf'))",
    "cdist_p0": "ps = leaves((3, 4), (2, 4)); out = torch.cdist(ps[0], ps[1], 0.)",
    "cdist_batched": "ps = leaves((2, 3, 4), (1, 2, 4)); out = torch.cdist(ps[0], ps[1], 1.5)",
    "cdist_mm": "ps = leaves((3, 2), (4, 2)); out = torch.cdist(ps[0], ps[1], compute_mode='use_mm_for_euclid_dist') * torch.arange(4.)",
    "cdist_mm_rows": "ps = leaves((27, 3), (2, 3)); out = torch.cdist(ps[0], ps[1])",
    "cdist_zero": "ps = [leaf([[1., 2.], [0., 0.]]), leaf([[1., 2.]])]; out = torch.cdist(ps[0], ps[1])",
    "pdist": "ps = leaves((5, 3)); out = torch.pdist(ps[0]) * torch.arange(10.)",
    "pdist_p_values": "ps = leaves((4, 3)); out = sum(torch.pdist(ps[0], p).sum() for p in (1., 0.5, 1.5, 3., float('inf')))",
    "pdist_equal_rows": "ps = [leaf([[1., 2.], [1., 2.], [0., 1.]])]; out = torch.pdist(ps[0], 0.5)",
})
grads("distance_grad_f64", {
    "cdist": "ps = leaves((3, 4), (5, 4), dtype=torch.float64); out = torch.cdist(ps[0], ps[1], 2.5)",
    "pdist": "ps = leaves((4, 3), dtype=torch.float64); out = torch.pdist(ps[0], 1.5)",
}, tol=F64)
