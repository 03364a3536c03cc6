"""einsum and tensordot (src/ops/einsum.c, upstream's composites over permute / reshape / bmm /
mm / dot / sum / diagonal) compared with upstream: explicit and implicit outputs, ellipsis,
repeated labels (diagonals), broadcasting, contraction paths, one operand, integer and float64
inputs, non-contiguous inputs, tensordot's int and list dims, broadcast contracted dims, full
contractions (dot, mul + sum), out=, gradients and the graphs they record, and upstream's
errors. Products take the float rule (GEMM summation order)."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\n"

cases("einsum", {
    "matmul": R + "torch.einsum('ij,jk->ik', torch.randn(2, 3), torch.randn(3, 4))",
    "implicit": R + "(torch.einsum('ij,jk', torch.randn(2, 3), torch.randn(3, 4)), torch.einsum('ba', torch.randn(2, 3)))",
    "trace_diag": R + "x = torch.randn(3, 3)\n(torch.einsum('ii', x), torch.einsum('ii->i', x), torch.einsum('iji->j', torch.randn(2, 3, 2)))",
    "outer_dot": R + "a, b = torch.randn(3), torch.randn(4)\n(torch.einsum('i,j->ij', a, b), torch.einsum('i,i', a, a), torch.einsum('i,i->', b, b))",
    "batch": R + "torch.einsum('bij,bjk->bik', torch.randn(2, 3, 4), torch.randn(2, 4, 5))",
    "ellipsis": R + "(torch.einsum('...ij,...jk->...ik', torch.randn(2, 1, 3, 4), torch.randn(5, 4, 2)), torch.einsum('i...->...', torch.randn(3, 2, 2)), torch.einsum('...,...', torch.randn(2, 3), torch.randn(3)))",
    "three": R + "torch.einsum('ij,jk,kl->il', torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 5))",
    "path": R + "torch.ops.aten.einsum.default('ij,jk,kl->il', [torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 5)], path=[1, 2, 0, 1])",
    "bad_path": R + "torch.ops.aten.einsum.default('ij,jk->ik', [torch.randn(2, 3), torch.randn(3, 4)], path=[0, 0])",
    "bad_path_len": R + "torch.ops.aten.einsum.default('ij,jk->ik', [torch.randn(2, 3), torch.randn(3, 4)], path=[0])",
    "broadcast_sum": R + "(torch.einsum('ij,kj->ik', torch.randn(2, 1), torch.randn(3, 4)), torch.einsum('ij->', torch.randn(3, 4)), torch.einsum('bij->bi', torch.randn(2, 3, 4)))",
    "int_f64": "a = torch.arange(6).reshape(2, 3)\n(torch.einsum('ij,kj->ik', a, a), torch.einsum('ij->ji', a.double()), torch.einsum('i,j', torch.arange(3.).double(), torch.arange(2.).double()))",
    "noncontig_spaces": R + "torch.einsum('i j , j k -> i k', torch.randn(3, 2).t(), torch.randn(4, 3)[:, ::1].t())",
    "list_spelling": R + "torch.einsum('ij,jk', [torch.randn(2, 3), torch.randn(3, 2)])",
    "upper_labels": R + "torch.einsum('Ab,bC->AC', torch.randn(2, 3), torch.randn(3, 2))",
    "empty": "(torch.einsum('ij,jk->ik', torch.ones(2, 0), torch.ones(0, 3)), torch.einsum('ij->j', torch.ones(0, 3)))",
    "bad_count": "torch.einsum('ij,jk->ik', torch.ones(2, 3))",
    "bad_more_ops": "torch.einsum('ij->ij', torch.ones(2, 3), torch.ones(2, 3))",
    "bad_dims": "torch.einsum('ijk->i', torch.ones(2, 3))",
    "bad_label": "torch.einsum('i1->i', torch.ones(2, 3))",
    "bad_out_label": "torch.einsum('ij->k', torch.ones(2, 3))",
    "bad_out_twice": "torch.einsum('ij->ii', torch.ones(2, 3))",
    "bad_size": "torch.einsum('ij,jk->ik', torch.ones(2, 3), torch.ones(4, 2))",
    "bad_diag_size": "torch.einsum('ii->i', torch.ones(2, 3))",
    "bad_ellipsis": "torch.einsum('..i->i', torch.ones(2, 3))",
    "bad_no_operands": "torch.einsum('i->i')",
}, tol="float")

cases("tensordot", {
    "int_dims": R + "a = torch.randn(2, 3, 4)\nb = torch.randn(3, 4, 5)\n(torch.tensordot(a, b), torch.tensordot(a, b, 2), torch.tensordot(a, torch.randn(4, 2), dims=1))",
    "list_dims": R + "a = torch.randn(3, 4, 5)\nb = torch.randn(4, 3, 2)\n(torch.tensordot(a, b, dims=([1, 0], [0, 1])), torch.tensordot(a, b, dims=[[0], [1]]))",
    "zero_dims": R + "torch.tensordot(torch.randn(2, 3), torch.randn(4), dims=0)",
    "broadcast_dims": R + "torch.tensordot(torch.randn(2, 1, 3), torch.randn(4, 5, 3), dims=([1, 2], [0, 2]))",
    "full_dot": R + "a = torch.randn(2, 3)\n(torch.tensordot(a, torch.randn(3, 2), dims=([0, 1], [1, 0])), torch.tensordot(a, torch.randn(2, 3), dims=2))",
    "full_mul_sum": R + "torch.tensordot(torch.randn(2, 2, 1), torch.randn(2, 1, 2), dims=([0, 1], [2, 0]))",
    "ones_sum": R + "torch.tensordot(torch.randn(1, 1, 1), torch.randn(2, 1, 2), dims=([0, 1], [2, 0]))",
    "int64_f64": "a = torch.arange(24).reshape(2, 3, 4)\n(torch.tensordot(a, a, dims=([1, 2], [1, 2])), torch.tensordot(a.double(), a.double(), dims=([0], [0])))",
    "int32_broadcast": "a = torch.ones(2, 1, dtype=torch.int32)\ntorch.tensordot(a, torch.ones(3, 2, dtype=torch.int32), dims=([1], [0]))",
    "negative_dims": R + "torch.tensordot(torch.randn(2, 3), torch.randn(3, 2), dims=([-1], [-2]))",
    "noncontig": R + "torch.tensordot(torch.randn(4, 3).t(), torch.randn(5, 4).t(), dims=([1], [0]))",
    "out": R + "o = torch.empty(0)\nr = torch.tensordot(torch.randn(2, 3), torch.randn(3, 2), dims=1, out=o)\n(r is o, o)",
    "aten": R + "torch.ops.aten.tensordot.default(torch.randn(2, 3), torch.randn(3, 2), [1], [0])",
    "bad_len": "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([1], [0, 1]))",
    "bad_dtype": "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2, dtype=torch.double), dims=1)",
    "bad_size": "torch.tensordot(torch.ones(2, 3), torch.ones(4, 2), dims=([1], [0]))",
    "bad_repeat": "torch.tensordot(torch.ones(2, 2), torch.ones(2, 2), dims=([0, 0], [0, 1]))",
    "bad_dim": "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([2], [0]))",
    "bad_out_dtype": "torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=1, out=torch.empty(0, dtype=torch.double))",
}, tol="float")

grads("einsum_grad", {
    "matmul": "ps = leaves((2, 3), (3, 4)); out = torch.einsum('ij,jk->ik', ps[0], ps[1])",
    "diag_ellipsis": "ps = leaves((3, 3), (2, 3)); out = torch.einsum('ii,...i->...', ps[0], ps[1])",
    "three": "ps = leaves((2, 3), (3, 4), (4,)); out = torch.einsum('ij,jk,k->i', *ps)",
    "one_operand": "ps = leaves((2, 3, 4)); out = torch.einsum('ijk->ki', ps[0]).sin()",
    "tensordot": "ps = leaves((2, 3, 4), (4, 3, 2)); out = torch.tensordot(ps[0], ps[1], dims=([1, 2], [1, 0]))",
    "tensordot_dot": "ps = leaves((2, 3), (3, 2)); out = torch.tensordot(ps[0], ps[1], dims=([0, 1], [1, 0]))",
    "tensordot_broadcast": "ps = leaves((2, 1, 3), (4, 5, 3)); out = torch.tensordot(ps[0], ps[1], dims=([1, 2], [0, 2]))",
})
