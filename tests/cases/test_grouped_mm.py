"""aten::_grouped_mm (src/ops/grouped_mm.c, docs/grouped_mm.md) compared with upstream.

Upstream leaves the rows (3d x 2d: columns; 2d x 2d: nothing) that no group reaches uninitialised,
so snippets return only the parts some group wrote, plus the whole result's shape and strides
(the last dimension padded to 16 bytes).

Values. The harness's tol="float" needs a float64 re-run, which _grouped_mm refuses, and its GEMM
allowance (worker.attach_gemm_bounds) does not know _grouped_mm; so the inputs are small dyadic
numbers (multiples of 1/4 in [-2, 2], `dy`), whose products and sums are exact in float32 in any
summation order, and the results compare bit for bit (bf16 / f16: one rounding of an exact sum).
One float32 case on randn inputs takes the GEMM bound by hand: (K + 2) * eps(float32) * max
sum_k |a_ik b_kj| (Higham sec. 3.1; K = 96, max mag < 200 here: 2.3e-3). Gradients: the autograd
harness on dyadic leaves with offsets that cover every row, so no gradient element is left
uninitialised upstream."""
from harness import cases
from harness.autograd import grads

R = "torch.manual_seed(0)\ndef dy(*s):\n    return torch.randint(-8, 9, s).float() / 4\n"
OFFS = "offs = torch.tensor([3, 3, 7, 10], dtype=torch.int32)\n"


def lay(expr, keep):
    """the result's shape and strides and its written part"""
    return f"_r = {expr}\n(_r.shape, _r.stride(), {keep.replace('r', '_r')})"


cases("grouped_mm_f32", {
    # 2d x 3d: rows of a by group (transformers' experts path), an empty group
    "2d3d": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(4, 16, 12), offs=offs)", "r"),
    "2d3d_wt": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(4, 12, 16).transpose(1, 2), offs=offs)", "r"),
    "2d3d_at": R + OFFS + lay("torch._grouped_mm(dy(16, 10).t(), dy(4, 16, 8), offs=offs)", "r"),
    "2d3d_pad": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(4, 5, 16).transpose(1, 2), offs=offs)", "r"),
    "2d3d_partial": R + lay("torch._grouped_mm(dy(10, 16), dy(3, 16, 8), offs=torch.tensor([2, 2, 6], dtype=torch.int32))", "r[:6]"),
    "2d3d_big": R + lay("torch._grouped_mm(dy(70, 96), dy(5, 96, 40), offs=torch.tensor([9, 30, 30, 61, 70], dtype=torch.int32))", "r"),
    "2d3d_big_wt": R + lay("torch._grouped_mm(dy(70, 96), dy(5, 40, 96).transpose(1, 2), offs=torch.tensor([9, 30, 30, 61, 70], dtype=torch.int32))", "r"),
    # offsets as Tensor.slice reads them: past the end (clamped), decreasing, negative
    "offs_past": R + lay("torch._grouped_mm(dy(10, 16), dy(3, 16, 8), offs=torch.tensor([2, 30, 40], dtype=torch.int32))", "r"),
    "offs_decreasing": R + lay("torch._grouped_mm(dy(10, 16), dy(3, 16, 8), offs=torch.tensor([5, 3, 7], dtype=torch.int32))", "r[:7]"),
    "offs_negative": R + lay("torch._grouped_mm(dy(10, 16), dy(3, 16, 8), offs=torch.tensor([-1, 3, 7], dtype=torch.int32))", "r[:9]"),
    "offs_very_negative": R + lay("torch._grouped_mm(dy(10, 16), dy(3, 16, 8), offs=torch.tensor([-20, 3, 7], dtype=torch.int32))", "r[:7]"),
    "offs_strided": R + lay("torch._grouped_mm(dy(10, 16), dy(2, 16, 8), offs=torch.tensor([4, 0, 10, 0], dtype=torch.int32)[::2])", "r"),
    "no_rows": R + lay("torch._grouped_mm(dy(0, 16), dy(3, 16, 8), offs=torch.zeros(3, dtype=torch.int32))", "r"),
    "no_groups": R + lay("torch._grouped_mm(dy(10, 16), dy(0, 16, 8), offs=torch.zeros(0, dtype=torch.int32))", "r.shape"),
    "a_row_slice": R + OFFS + lay("torch._grouped_mm(dy(10, 20)[:, :16], dy(4, 16, 8), offs=offs)", "r"),
    "b_batch_stride": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(4, 17, 8)[:, :16], offs=offs)", "r"),
    "b_expanded": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(1, 16, 8).expand(4, 16, 8), offs=offs)", "r"),
    # 3d x 3d: batched, no offsets
    "3d3d": R + lay("torch._grouped_mm(dy(3, 4, 16), dy(3, 16, 8))", "r"),
    "3d3d_pad": R + lay("torch._grouped_mm(dy(3, 4, 16), dy(3, 5, 16).transpose(1, 2))", "r"),
    "3d3d_at": R + lay("torch._grouped_mm(dy(3, 16, 6).transpose(1, 2), dy(3, 16, 8))", "r"),
    # 2d x 2d: the contraction dimension by group (a weight gradient); empty group -> zeros
    "2d2d": R + OFFS + lay("torch._grouped_mm(dy(4, 16), dy(16, 8), offs=offs)", "r"),
    "2d2d_pad": R + OFFS + lay("torch._grouped_mm(dy(16, 5).t(), dy(3, 16).t(), offs=offs)", "r"),
    "2d2d_k_short": R + OFFS + lay("torch._grouped_mm(dy(4, 16), dy(12, 8), offs=offs)", "r"),
    # 3d x 2d: columns of b by group
    "3d2d": R + lay("torch._grouped_mm(dy(3, 4, 16), dy(16, 8), offs=torch.tensor([3, 3, 8], dtype=torch.int32))", "r"),
    "3d2d_pad": R + lay("torch._grouped_mm(dy(3, 4, 16), dy(5, 16).t(), offs=torch.tensor([2, 5, 5], dtype=torch.int32))", "r"),
    "3d2d_partial": R + lay("torch._grouped_mm(dy(3, 4, 16), dy(16, 8), offs=torch.tensor([2, 2, 6], dtype=torch.int32))", "r[:, :6]"),
    "out_dtype": R + OFFS + lay("torch._grouped_mm(dy(10, 16), dy(4, 16, 8), offs=offs, out_dtype=torch.float32)", "r"),
    "spellings": R + OFFS + "a, b = dy(10, 16), dy(4, 16, 8)\n"
                 "(torch._grouped_mm(a, b, offs), torch.ops.aten._grouped_mm.default(a, b, offs), torch.nn.functional.grouped_mm(a, b, offs=offs))",
})

cases("grouped_mm_randn", {
    "2d3d": "torch.manual_seed(0)\nr = torch._grouped_mm(torch.randn(70, 96), torch.randn(5, 96, 40), offs=torch.tensor([9, 30, 30, 61, 70], dtype=torch.int32))\n(r, (r.abs() > 0).all())",
    "2d3d_wt": "torch.manual_seed(0)\ntorch._grouped_mm(torch.randn(70, 96), torch.randn(5, 40, 96).transpose(1, 2), offs=torch.tensor([9, 30, 30, 61, 70], dtype=torch.int32))",
}, tol=(2.3e-3, 0))

cases("grouped_mm_lowp", {
    f"{k}_{dt}": R + v.replace("DT", dt) for dt in ("bfloat16", "float16") for k, v in {
        "2d3d": OFFS + lay("torch._grouped_mm(dy(10, 16).to(torch.DT), dy(4, 16, 24).to(torch.DT), offs=offs)", "r"),
        "2d3d_wt": OFFS + lay("torch._grouped_mm(dy(10, 16).to(torch.DT), dy(4, 5, 16).to(torch.DT).transpose(1, 2), offs=offs)", "r"),
        "3d3d": lay("torch._grouped_mm(dy(2, 3, 40).to(torch.DT), dy(2, 40, 16).to(torch.DT))", "r"),
        "2d2d": OFFS + lay("torch._grouped_mm(dy(16, 3).to(torch.DT).t(), dy(16, 8).to(torch.DT), offs=offs)", "r"),
        "3d2d": lay("torch._grouped_mm(dy(2, 3, 16).to(torch.DT), dy(16, 16).to(torch.DT), offs=torch.tensor([9, 16], dtype=torch.int32))", "r"),
        # groups starting at odd elements of column-major operands (copied aligned for the 16-bit kernels)
        "2d2d_bt": OFFS + lay("torch._grouped_mm(dy(16, 3).to(torch.DT).t(), dy(8, 16).to(torch.DT).t(), offs=offs)", "r"),
        "3d2d_bt": lay("torch._grouped_mm(dy(2, 3, 16).to(torch.DT), dy(16, 16).to(torch.DT).t(), offs=torch.tensor([9, 16], dtype=torch.int32))", "r"),
    }.items()
})

cases("grouped_mm_errors", {
    "f64": R + "torch._grouped_mm(dy(10, 16, dtype=torch.float64), dy(3, 16, 8, dtype=torch.float64), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "int": "torch._grouped_mm(torch.ones(10, 16, dtype=torch.int32), torch.ones(3, 16, 8, dtype=torch.int32), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "b_f64": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8, dtype=torch.float64), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "mixed": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 16, dtype=torch.bfloat16), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "mixed_lowp": "torch._grouped_mm(torch.ones(10, 16, dtype=torch.float16), torch.ones(3, 16, 16, dtype=torch.bfloat16), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "mixed_3d": "torch._grouped_mm(torch.ones(3, 4, 16), torch.ones(3, 16, 16, dtype=torch.bfloat16))",
    "a_1d": "torch._grouped_mm(torch.ones(16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "b_4d": "torch._grouped_mm(torch.ones(10, 16), torch.ones(1, 3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "contraction": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 12, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "contraction_3d": "torch._grouped_mm(torch.ones(3, 4, 12), torch.ones(3, 16, 8))",
    "stride_16_bytes": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 5), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "stride_16_bytes_bf16": "torch._grouped_mm(torch.ones(10, 16, dtype=torch.bfloat16), torch.ones(3, 16, 12, dtype=torch.bfloat16), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "stride_16_bytes_a": "torch._grouped_mm(torch.ones(10, 3), torch.ones(3, 3, 4), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "stride_column": "torch._grouped_mm(torch.ones(10, 1), torch.ones(3, 1, 16), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "invalid_strides": "torch._grouped_mm(torch.ones(10, 16)[:, ::2], torch.ones(3, 8, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "expanded_a": "torch._grouped_mm(torch.ones(1, 16).expand(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "no_offs_2d": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8))",
    "no_offs_2d2d": "torch._grouped_mm(torch.ones(4, 16), torch.ones(16, 8))",
    "offs_3d3d": "torch._grouped_mm(torch.ones(3, 4, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32))",
    "offs_int64": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7]))",
    "offs_float": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3., 3., 7.]))",
    "offs_2d": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([[3, 3, 7]], dtype=torch.int32))",
    "offs_0d": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor(3, dtype=torch.int32))",
    "offs_short": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 7], dtype=torch.int32))",
    "offs_short_3d2d": "torch._grouped_mm(torch.ones(3, 4, 16), torch.ones(16, 8), offs=torch.tensor([3, 7], dtype=torch.int32))",
    "batch_3d3d": "torch._grouped_mm(torch.ones(2, 4, 16), torch.ones(3, 16, 8))",
    "bias": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32), bias=torch.ones(3, 8))",
    "bias_3d3d": "torch._grouped_mm(torch.ones(3, 4, 16), torch.ones(3, 16, 8), bias=torch.ones(3, 8))",
    "out_dtype": "torch._grouped_mm(torch.ones(10, 16), torch.ones(3, 16, 8), offs=torch.tensor([3, 3, 7], dtype=torch.int32), out_dtype=torch.bfloat16)",
    "out_dtype_lowp": "torch._grouped_mm(torch.ones(10, 16, dtype=torch.bfloat16), torch.ones(3, 16, 8, dtype=torch.bfloat16), offs=torch.tensor([3, 3, 7], dtype=torch.int32), out_dtype=torch.float32)",
    "2d2d_k_mismatch": "torch._grouped_mm(torch.ones(4, 16), torch.ones(12, 8), offs=torch.tensor([3, 3, 14], dtype=torch.int32))",
})

GM = "offs = torch.tensor([3, 3, 7, 10], dtype=torch.int32)\n"
# dyadic leaves: every gradient is exact in float32
LV = ("def leaves(*shapes, dtype=torch.float32):\n    torch.manual_seed(0)\n"
      "    return [(torch.randint(-8, 9, s).float() / 4).to(dtype).requires_grad_() for s in shapes]\n")
grads("grouped_mm_grad", {k: LV + v for k, v in {
    "2d3d": GM + "ps = leaves((10, 16), (4, 16, 8)); out = torch._grouped_mm(ps[0], ps[1], offs=offs) * torch.arange(8.)",
    "2d3d_wt": GM + "ps = leaves((10, 16), (4, 8, 16)); out = torch._grouped_mm(ps[0], ps[1].transpose(1, 2), offs=offs) * torch.arange(8.)",
    "2d3d_col_major": GM + "ps = leaves((16, 10), (4, 8, 16)); a = ps[0].t(); w = ps[1].transpose(1, 2)\n"
                      "a.retain_grad(); w.retain_grad(); out = torch._grouped_mm(a, w, offs=offs) * torch.arange(8.)",
    "3d3d": "ps = leaves((3, 4, 16), (3, 16, 8)); out = torch._grouped_mm(ps[0], ps[1]) * torch.arange(8.)",
    "3d3d_col_major": "ps = leaves((3, 16, 4), (3, 8, 16)); out = torch._grouped_mm(ps[0].transpose(1, 2), ps[1].transpose(1, 2)) * torch.arange(8.)",
    "2d2d": "offs = torch.tensor([4, 4, 12, 16], dtype=torch.int32)\n"
            "ps = leaves((4, 16), (16, 8)); out = torch._grouped_mm(ps[0], ps[1], offs=offs) * torch.arange(8.)",
    "3d2d": "offs = torch.tensor([3, 3, 8], dtype=torch.int32)\n"
            "ps = leaves((3, 4, 16), (16, 8)); out = torch._grouped_mm(ps[0], ps[1], offs=offs) * torch.arange(8.)",
    "2d3d_bf16": GM + "ps = leaves((10, 16), (4, 8, 16), dtype=torch.bfloat16)\n"
                 "out = torch._grouped_mm(ps[0], ps[1].transpose(1, 2), offs=offs) * torch.arange(8.).to(torch.bfloat16)",
    "2d3d_f16": GM + "ps = leaves((10, 16), (4, 16, 8), dtype=torch.float16)\n"
                "out = torch._grouped_mm(ps[0], ps[1], offs=offs) * torch.arange(8.).to(torch.float16)",
    "moe_silu": GM + "ps = leaves((10, 16), (4, 16, 32), (4, 16, 16))\n"
                "h = torch._grouped_mm(ps[0], ps[1], offs=offs); h = torch.nn.functional.silu(h[:, :16]) * h[:, 16:]\n"
                "out = torch._grouped_mm(h, ps[2], offs=offs)",
}.items()})

cases("grouped_mm_grad_layout", {
    # gradients come out column-major when the input was; an expanded grad (sum's) is refused as upstream
    "strides": R + GM + "a = dy(16, 10).t().requires_grad_(); w = dy(4, 8, 16).transpose(1, 2).requires_grad_()\n"
               "a.retain_grad(); w.retain_grad()\n(torch._grouped_mm(a, w, offs=offs) * torch.arange(8.)).sum().backward()\n"
               "(a.grad.stride(), w.grad.stride(), a.grad, w.grad)",
    "expanded_grad": R + GM + "a = dy(10, 16, requires_grad=True); w = dy(4, 8, 16).transpose(1, 2).requires_grad_()\n"
                     "torch._grouped_mm(a, w, offs=offs).sum().backward()",
    "create_graph": R + GM + "a = dy(10, 16, requires_grad=True); w = dy(4, 16, 8, requires_grad=True)\n"
                    "g, = torch.autograd.grad((torch._grouped_mm(a, w, offs=offs) * torch.arange(8.)).sum(), a, create_graph=True)\n"
                    "(g.grad_fn.name(), torch.autograd.grad((g * g).sum(), w)[0])",
})

# meta tensors: upstream's Python meta kernel (bf16 only, its own wording, a contiguous result on a
# build without CUDA), not the CPU kernel's rules
MS = "M = dict(device='meta', dtype=torch.bfloat16)\no3 = torch.tensor([3, 3, 7], dtype=torch.int32, device='meta')\n"
cases("grouped_mm_meta", {k: MS + v for k, v in {
    "2d3d": "r = torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M), offs=o3)\n(r.device, r.dtype, r.shape, r.stride())",
    "2d3d_wt": "r = torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 5, 16, **M).transpose(1, 2), offs=o3)\n(r.device, r.shape, r.stride())",
    "3d3d": "r = torch._grouped_mm(torch.empty(3, 4, 16, **M), torch.empty(3, 16, 8, **M))\n(r.device, r.shape, r.stride())",
    "2d2d": "r = torch._grouped_mm(torch.empty(4, 16, **M), torch.empty(16, 8, **M), offs=o3)\n(r.device, r.shape, r.stride())",
    "3d2d": "r = torch._grouped_mm(torch.empty(3, 4, 16, **M), torch.empty(16, 8, **M), offs=o3, out_dtype=torch.bfloat16)\n(r.device, r.shape, r.stride())",
    "bad_f32": "torch._grouped_mm(torch.empty(10, 16, device='meta'), torch.empty(3, 16, 8, device='meta'), offs=o3)",
    "bad_dim": "torch._grouped_mm(torch.empty(16, **M), torch.empty(3, 16, 8, **M), offs=o3)",
    "bad_contraction": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 8, 8, **M), offs=o3)",
    "bad_stride": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 12, **M), offs=o3)",
    "bad_layout": "torch._grouped_mm(torch.empty(10, 32, **M)[:, ::2], torch.empty(3, 16, 8, **M), offs=o3)",
    "bad_no_offs": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M))",
    "bad_offs_dim": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M), offs=o3.view(1, 3))",
    "bad_offs_dtype": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M), offs=o3.long())",
    "bad_offs_3d3d": "torch._grouped_mm(torch.empty(3, 4, 16, **M), torch.empty(3, 16, 8, **M), offs=o3)",
    "bad_bias": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M), offs=o3, bias=torch.empty(3, 8, **M))",
    "bad_out_dtype": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(3, 16, 8, **M), offs=o3, out_dtype=torch.float32)",
    "bad_batch": "torch._grouped_mm(torch.empty(10, 16, **M), torch.empty(2, 16, 8, **M), offs=o3)",
}.items()})
