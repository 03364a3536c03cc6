"""_scaled_dot_product_flash_attention_for_cpu_backward (upstream's one backward op of the CPU flash
forward; ours: ops/nn.c, kernels/attention.c) called directly and through the backward of
F.scaled_dot_product_attention — values within the float rule (our blocked sums are not upstream's),
the gradients' (B, L, H, E) memory layout, upstream's errors, the backward's op stream and the double
backward's refusal."""
from harness import cases

SETUP = """
torch.manual_seed(0)
F = torch.nn.functional
fw = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
bw = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward
def call(B, H, Hk, L, S, E, dt=torch.float32, causal=False, mask=None, bwmask=None, scale=None, llama=True, p=0.0):
    q = (torch.randn(B, L, H, E).transpose(1, 2) if llama else torch.randn(B, H, L, E)).to(dt)
    k, v = (torch.randn(B, Hk, S, E).to(dt) for _ in range(2))
    o, lse = fw(q, k, v, is_causal=causal, attn_mask=mask, scale=scale)
    g = torch.randn_like(o)
    # bwmask: a mask of a dtype only the backward takes (bool: added as 1 / 0 by upstream's kernel, float64,
    # bfloat16, ...); the forward sees its float32 numbers
    m = mask if bwmask is None else bwmask
    if bwmask is not None:
        o, lse = fw(q, k, v, is_causal=causal, attn_mask=bwmask.to(torch.float32), scale=scale)
    return bw(g, q, k, v, o, lse, p, causal, attn_mask=m, scale=scale)
"""

cases("flash_bw_direct", [
    "call(2, 4, 4, 5, 7, 8)", "call(2, 4, 4, 5, 7, 8, llama=False)", "call(2, 4, 4, 5, 7, 8, causal=True)",
    "call(2, 4, 4, 5, 7, 8, dt=torch.bfloat16)", "call(2, 4, 4, 5, 7, 8, dt=torch.float16, causal=True)",
    "call(2, 4, 2, 5, 7, 8)", "call(1, 6, 1, 9, 9, 4, causal=True)",
    "call(2, 4, 4, 5, 7, 8, mask=torch.randn(5, 7))", "call(2, 4, 4, 5, 7, 8, mask=torch.randn(2, 1, 5, 7))",
    "call(2, 4, 4, 5, 7, 8, mask=torch.randn(1, 4, 1, 7))", "call(2, 4, 4, 5, 7, 8, bwmask=torch.randn(5, 7).double())",
    "call(2, 4, 4, 5, 7, 8, bwmask=torch.randn(5, 7).bfloat16())", "call(2, 4, 4, 5, 7, 8, mask=torch.randn(7, 5).t())",
    "call(2, 4, 4, 5, 7, 8, bwmask=torch.rand(5, 7) > 0.4)", "call(2, 4, 4, 5, 7, 8, dt=torch.bfloat16, mask=torch.randn(5, 7))",
    "call(2, 4, 4, 5, 7, 8, dt=torch.bfloat16, mask=torch.randn(5, 7).bfloat16())",
    # a row whose every key is masked: the forward's lse 0, no gradient
    "call(1, 2, 2, 4, 6, 8, mask=torch.zeros(4, 6).index_fill_(0, torch.tensor([1]), float('-inf')))",
    "call(1, 2, 2, 4, 6, 8, mask=torch.randn(4, 6), causal=True)", "call(1, 2, 2, 9, 4, 8, causal=True)",
    # dropout_p is not read by upstream's kernel
    "call(2, 4, 4, 5, 7, 8, p=0.5)",
    # (no query or no key rows: upstream's kernel divides by zero, SIGFPE; ours gives zeros)
    "call(0, 4, 4, 5, 7, 8)", "call(2, 4, 4, 5, 7, 8, mask=torch.randn(0, 7))",   # an empty mask: none
    # several query blocks (64 rows) and key blocks (256 keys), causal cuts inside a block
    "call(1, 9, 3, 130, 130, 64, causal=True)", "call(1, 2, 2, 300, 600, 16)",
    "call(1, 2, 1, 300, 600, 16, causal=True, mask=torch.randn(300, 600))",
    "call(1, 3, 3, 200, 300, 32, dt=torch.bfloat16, causal=True)",
], setup=SETUP, tol="float", strides=True)

# through the backward of F.scaled_dot_product_attention (upstream's flash choice for 4-d inputs)
GRAD = """
torch.manual_seed(0)
F = torch.nn.functional
def run(B, H, Hk, L, S, E, dt=torch.float32, **kw):
    q = torch.randn(B, L, H, E).transpose(1, 2).to(dt).requires_grad_()
    k, v = (torch.randn(B, S, Hk, E).transpose(1, 2).to(dt).requires_grad_() for _ in range(2))
    o = F.scaled_dot_product_attention(q, k, v, **kw)
    g = torch.autograd.grad(o.float().pow(2).sum(), (q, k, v))
    return (type(o.grad_fn).__name__, o, g)
"""

cases("flash_bw_sdpa", [
    "run(2, 4, 4, 5, 7, 8)", "run(2, 4, 4, 5, 7, 8, is_causal=True)",
    "run(2, 4, 4, 5, 7, 8, dt=torch.bfloat16, is_causal=True)", "run(2, 4, 4, 5, 7, 8, attn_mask=torch.randn(5, 7))",
    "run(2, 4, 4, 5, 7, 8, attn_mask=torch.rand(2, 1, 5, 7) > 0.3)", "run(2, 4, 2, 5, 7, 8, enable_gqa=True)",
    "run(1, 9, 3, 130, 130, 64, is_causal=True, enable_gqa=True)",
    "run(1, 9, 3, 70, 70, 64, dt=torch.bfloat16, is_causal=True, enable_gqa=True)",
], setup=GRAD, tol="float", strides=True)

# float64: the float rule's error is upstream's float64-vs-float64 (0), so only bits would pass, and
# upstream's bits are its BLAS's summation order; each side's gradients are compared instead with the
# math path's (q k^T, softmax, @ v, autograd) in float64, on both sides, within 1e-12
F64 = """
torch.manual_seed(0)
F = torch.nn.functional
fw = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
bw = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward
def check(B, H, Hk, L, S, E, causal=False, mask=None, scale=None, direct=True):
    q = torch.randn(B, L, H, E, dtype=torch.float64).transpose(1, 2).requires_grad_()
    k, v = (torch.randn(B, Hk, S, E, dtype=torch.float64).requires_grad_() for _ in range(2))
    g = torch.randn(B, H, L, E, dtype=torch.float64)
    if direct:
        o, lse = fw(q, k, v, is_causal=causal, attn_mask=mask, scale=scale)
        got = bw(g, q, k, v, o, lse, 0.0, causal, attn_mask=mask, scale=scale)
    else:
        got = torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scale,
                                                                 enable_gqa=True), (q, k, v), g)
    kk, vv = (t.repeat_interleave(H // Hk, 1) for t in (k, v))
    s = q @ kk.transpose(-2, -1) * (scale if scale is not None else E ** -0.5)
    if mask is not None:
        s = s + (torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, float('-inf')) if mask.dtype == torch.bool else mask)
    if causal:
        s = s.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float('-inf'))
    want = torch.autograd.grad(torch.softmax(s, -1) @ vv, (q, k, v), g)
    return [(a.dtype, a.shape, a.stride(), torch.allclose(a, b, rtol=1e-12, atol=1e-12)) for a, b in zip(got, want)]
"""

cases("flash_bw_f64", [
    "check(2, 4, 4, 5, 7, 8)", "check(2, 4, 2, 5, 7, 8, causal=True, scale=0.2)",
    "check(1, 2, 2, 9, 6, 8, mask=torch.randn(9, 6, dtype=torch.float64))",
    "check(1, 6, 2, 100, 300, 16, causal=True)", "check(2, 4, 4, 5, 7, 8, direct=False, causal=True)",
    "check(1, 2, 2, 100, 300, 16, direct=False, mask=torch.rand(100, 300) > 0.5)",
    "check(1, 6, 3, 70, 90, 8, direct=False)",
], setup=F64)

ERR = """
torch.manual_seed(0)
bw = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward
q = torch.randn(2, 4, 5, 8); k = torch.randn(2, 4, 7, 8); v = torch.randn(2, 4, 7, 8)
o, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v)
g = torch.randn_like(o)
"""

cases("flash_bw_errors", [
    "bw(g.double(), q, k, v, o, lse, 0.0, False)", "bw(g, q, k, v, o.double(), lse, 0.0, False)",
    "bw(g, q, k, v, o, lse.double(), 0.0, False)", "bw(g, q, k, v, o, lse.bfloat16(), 0.0, False)",
    "bw(g.double(), q.double(), k.double(), v.double(), o.double(), lse, 0.0, False)",
    "bw(g, q.long(), k.long(), v.long(), o.long(), lse, 0.0, False)",
    "bw(g, q, k, v, o, lse, 0.0, False, attn_mask=torch.ones(5, 7, dtype=torch.int64))",
    "bw(g[0], q[0], k[0], v[0], o[0], lse[0], 0.0, False)", "bw(g, q, k, v[..., :3], o, lse, 0.0, False)",
    "bw(g, q, k, v, o, lse, 0.0, False, attn_mask=torch.randn(3, 3))",
    "bw(g, q, k, v, o, lse, 0.0, False, attn_mask=torch.randn(4, 5, 7))",
    "bw(g, q, k, v, o, lse, 0.0, False, attn_mask=torch.randn(3, 4, 5, 7))",
    "bw(g, q, k, v, o, lse, 0.0, False, attn_mask=torch.randn(7))",
    "bw(g, q[None], k, v, o, lse, 0.0, False)",
    # the forward overload itself takes a float32 or query-dtype mask only (no bool: the public path converts)
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=torch.ones(5, 7, dtype=torch.bool))",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=torch.ones(0, 7, dtype=torch.bool))",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=torch.ones(5, 7).double())",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q.double(), k.double(), v.double(), attn_mask=torch.ones(5, 7).half())",
], setup=ERR, vars=False)

# the backward's op stream (one fused op, as upstream) and its double backward's refusal
cases("flash_bw_stream", {
    "mode": """
from torch.utils._python_dispatch import TorchDispatchMode
class M(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.seen = []
    def __torch_dispatch__(self, f, types, args, kwargs=None):
        self.seen.append(str(f))
        return f(*args, **(kwargs or {}))
q = torch.randn(1, 4, 6, 8, requires_grad=True); k = torch.randn(1, 2, 6, 8, requires_grad=True)
v = torch.randn(1, 2, 6, 8, requires_grad=True)
out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
with M() as m:
    out.sum().backward()
(m.seen, [(t.shape, t.stride()) for t in (q.grad, k.grad, v.grad)])
""",
    "double_backward": """
q = torch.randn(1, 2, 4, 8, requires_grad=True)
out = torch.nn.functional.scaled_dot_product_attention(q, q.detach(), q.detach())
gq, = torch.autograd.grad(out.sum(), q, create_graph=True)
try:
    torch.autograd.grad(gq.sum(), q)
    r = None
except RuntimeError as e:
    r = (type(gq.grad_fn).__name__, str(e))
r
"""}, tol="float", vars=False)
