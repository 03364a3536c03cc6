"""Memory formats: `Tensor.is_contiguous(memory_format=)` and `contiguous(memory_format=)` for
channels_last / channels_last_3d / preserve_format (upstream's rule: the dims of size != 1 densely
packed in the order C, W, H(, D), N; no empty-tensor exception; preserve_format asks the usual
rule, and contiguous(preserve_format) of a non-contiguous tensor is refused), compared with
upstream: results, strides, whether the result is self, errors, and the graph while recording."""
from harness import cases

SETUP = """
CL, CL3, PF, CF = torch.channels_last, torch.channels_last_3d, torch.preserve_format, torch.contiguous_format
def formats(t):
    out = []
    for mf in (CL, CL3, PF, CF):
        out.append(t.is_contiguous(memory_format=mf))
    for mf in (CL, CL3, PF):
        try:
            c = t.contiguous(memory_format=mf)
            out.append((c, c.stride(), c is t))
        except Exception as e:
            out.append((type(e).__name__, str(e)))
    return out
"""

T = {
    "contiguous": "torch.randn(2, 3, 5, 4)",
    "channels_last": "torch.randn(2, 3, 5, 4).to(memory_format=torch.channels_last)",
    "empty": "torch.empty(0, 3, 5, 4)",
    "empty_odd_strides": "torch.empty_strided((0, 3, 2, 2), (1, 1, 1, 1))",
    "size1": "torch.randn(1, 3, 1, 1)",
    "one_channel": "torch.randn(2, 1, 5, 4)",
    "one_channel_cl": "torch.randn(2, 1, 5, 4).to(memory_format=torch.channels_last)",
    "expanded": "torch.randn(1, 3, 1, 1).expand(2, 3, 5, 4)",
    "rank3": "torch.randn(3, 4, 5)",
    "rank5": "torch.randn(2, 3, 4, 4, 4)",
    "rank5_cl3": "torch.randn(2, 3, 4, 4, 4).to(memory_format=torch.channels_last_3d)",
    "sliced_cl": "torch.randn(2, 3, 6, 4).to(memory_format=torch.channels_last)[:, :, ::2]",
    "permuted_cl": "torch.randn(2, 5, 4, 3).permute(0, 3, 1, 2)",
    "permuted_other": "torch.randn(2, 4, 5, 3).permute(0, 3, 2, 1)",
    "scalar": "torch.tensor(1.5)",
    "transposed": "torch.randn(4, 3).t()",
    "zero_channel_stride": "torch.empty_strided((2, 3, 5, 4), (60, 0, 12, 3)).fill_(1.0)",
}
cases("memory_format", {k: "formats(%s)" % v for k, v in T.items()}, setup=SETUP)

cases("memory_format_misc", {
    "bad_format_type": "def f():\n    try:\n        torch.ones(2).is_contiguous(memory_format=torch.float32)\n    except TypeError as e:\n        return str(e)\nf()",
    "bad_format_none": "def f():\n    try:\n        torch.ones(2).is_contiguous(memory_format=None)\n    except TypeError as e:\n        return str(e)\nf()",
    "aten_contiguous_cl": "x = torch.randn(2, 3, 4, 4)\nr = torch.ops.aten.contiguous.default(x, memory_format=torch.channels_last)\nr, r.stride()",
    "grad_through_cl": "x = torch.randn(2, 3, 4, 4, requires_grad=True)\ny = x.contiguous(memory_format=torch.channels_last)\n(y * torch.arange(96.).view(2, 3, 4, 4)).sum().backward()\n"
                       "type(y.grad_fn).__name__, y.stride(), x.grad",
    "grad_already_cl": "x = torch.randn(2, 3, 4, 4).to(memory_format=torch.channels_last).requires_grad_()\ny = x.contiguous(memory_format=torch.channels_last)\ny is x, y.grad_fn",
    "grad_preserve_refused": "x = torch.randn(4, 3).t().requires_grad_()\ndef f():\n    try:\n        x.contiguous(memory_format=torch.preserve_format)\n    except RuntimeError as e:\n        return str(e)\nf()",
}, setup=SETUP)

cases("memory_format_conv", {   # a GEMM: values under the float rule, layout exact
    "output_cl": "torch.manual_seed(0)\nm = torch.nn.Conv2d(3, 4, 3)\ny = m(torch.randn(2, 3, 8, 8).to(memory_format=torch.channels_last))\ny, y.is_contiguous(memory_format=torch.channels_last)",
}, tol="float")
