"""Neural-network operators transformer models dispatch: softmax / log_softmax, layer norm, RMS
norm, scaled dot-product attention, embedding, isin, sort / argsort / topk — compared with
upstream. Float results use tol="float" where upstream's vectorised kernels (fast exp, lane-wise
f32 sums) make bit-equality a property of its instruction set, not of the operator."""
from harness import cases

SETUP = """
torch.manual_seed(0)
x = torch.randn(3, 4, 5)
"""

cases("softmax", [
    "torch.softmax(x, -1)", "torch.softmax(x, 0)", "x.softmax(1)", "torch.nn.functional.softmax(x, dim=-1)",
    "torch.softmax(x.double(), 2)", "torch.softmax(x.bfloat16(), -1)", "torch.softmax(x.half(), 1)",
    "torch.softmax(x.bfloat16(), -1, dtype=torch.float32)", "torch.softmax(x, -1, dtype=torch.float64)",
    "torch.softmax(x.transpose(0, 2), 1)", "torch.softmax(x[:, ::2], -1)", "torch.softmax(x.permute(2, 0, 1), 1)",
    "torch.softmax(torch.tensor(2.), 0)", "torch.softmax(torch.randn(2, 0), 0)", "torch.softmax(torch.randn(0, 3), -1)",
    "torch.softmax(torch.tensor([float('-inf')] * 2), 0)", "torch.softmax(torch.tensor([float('-inf'), 1., 2.]), 0)",
    "torch.softmax(torch.tensor([float('inf'), 1.]), 0)", "torch.softmax(torch.tensor([float('nan'), 1.]), 0)",
    "torch.softmax(torch.tensor([1000., 0., -1000.]), 0)", "torch.ops.aten._softmax(x, 1, False)",
    "torch.ops.aten._softmax.default(x.bfloat16(), -1, False)", "torch.ops.aten.softmax.int(x, 0)",
    "torch.softmax(torch.arange(6).reshape(2, 3), 1, dtype=torch.float32)",
    "torch.softmax(x, -1, out=torch.empty(0))" if False else "torch._softmax(x, 2, False)",
    "torch.ops.aten._softmax.out(x, 2, False, out=torch.empty(3, 4, 5))",
    "torch.softmax(torch.randn(4, 300), -1)", "torch.softmax(torch.randn(300, 7), 0)",
    "torch.ops.aten._safe_softmax(torch.tensor([[float('-inf')] * 3, [1., 2., 3.]]), 1)",
], setup=SETUP, tol="float")

cases("softmax_errors", [
    "torch.softmax(torch.tensor([1, 2]), 0)", "torch.softmax(x, 3)", "torch.softmax(x, -4)",
    "torch.ops.aten._softmax(x, 0, True)", "torch.ops.aten._softmax(x.half(), 0, True)",
    "torch.log_softmax(torch.tensor([1, 2]), 0)", "torch.softmax(torch.tensor([True]), 0)",
], setup=SETUP)

cases("log_softmax", [
    "torch.log_softmax(x, -1)", "torch.log_softmax(x, 0)", "x.log_softmax(1)",
    "torch.nn.functional.log_softmax(x, dim=2)", "torch.log_softmax(x.double(), 1)",
    "torch.log_softmax(x.bfloat16(), -1)", "torch.log_softmax(x.half(), 0)",
    "torch.log_softmax(x.transpose(1, 2), 1)", "torch.log_softmax(torch.tensor(3.), 0)",
    "torch.log_softmax(torch.tensor([float('-inf'), 1.]), 0)", "torch.log_softmax(torch.tensor([float('-inf')] * 2), 0)",
    "torch.log_softmax(torch.randn(0, 3), 1)", "torch.ops.aten._log_softmax(x, 1, False)",
    "torch.log_softmax(x, 1, dtype=torch.float64)", "torch.ops.aten.log_softmax.int(x.bfloat16(), -1, torch.float32)",
], setup=SETUP, tol="float")

LN = """
torch.manual_seed(0)
x = torch.randn(2, 3, 8)
w = torch.randn(8)
b = torch.randn(8)
"""

cases("layer_norm", [
    "torch.layer_norm(x, [8])", "torch.layer_norm(x, [8], w, b)", "torch.layer_norm(x, (3, 8))",
    "torch.layer_norm(x, [8], w, b, 1e-2)",
    "torch.layer_norm(x.bfloat16(), [8], w.bfloat16(), b.bfloat16())", "torch.layer_norm(x.half(), [8])",
    "torch.layer_norm(x.bfloat16(), [8], w, b)", "torch.layer_norm(x.transpose(0, 1), [8], w)",
    "torch.layer_norm(x[..., ::2], [4])", "torch.layer_norm(torch.randn(0, 8), [8])",
    "torch.native_layer_norm(x, [8], w, b, 1e-5)", "torch.native_layer_norm(x, [3, 8], None, None, 1e-5)",
    "torch.native_layer_norm(x.bfloat16(), [8], w, b, 1e-5)", "torch.native_layer_norm(x.half(), [8], None, None, 1e-5)",
    "torch.native_layer_norm(torch.randn(2, 0), [0], None, None, 1e-5)", "torch.layer_norm(torch.randn(8), [8], w, b)",
    "torch.layer_norm(torch.ones(2, 8), [8])",
], setup=LN, tol="float")

cases("layer_norm_errors", [
    "torch.layer_norm(x, [7])", "torch.layer_norm(x, [])", "torch.layer_norm(x, [8], torch.ones(7))",
    "torch.layer_norm(x, [8], None, torch.ones(3))", "torch.layer_norm(torch.arange(8).reshape(1, 8), [8])",
    "torch.layer_norm(x, [8], w.half())", "torch.layer_norm(x.bfloat16(), [8], w.half())",
], setup=LN)

cases("rms_norm", [
    "torch.rms_norm(x, [8])", "torch.rms_norm(x, [8], w)", "torch.rms_norm(x, [3, 8], None, 1e-3)",
    "torch.rms_norm(x.double(), [8], w.double())", "torch.rms_norm(x.bfloat16(), [8], w.bfloat16())",
    "torch.rms_norm(x.half(), [8])", "torch.rms_norm(x, [8], w.bfloat16())",
    "torch.rms_norm(x.transpose(0, 1), [8], w, 1e-6)", "torch.rms_norm(torch.zeros(2, 8), [8])",
    "torch.nn.functional.rms_norm(x, (8,), w, 1e-6)",
    "torch.ops.aten._fused_rms_norm(x, [8], w, 1e-6)", "torch.ops.aten._fused_rms_norm(x.bfloat16(), [8], None, None)",
    "torch.ops.aten._fused_rms_norm(x.double(), [3, 8], None, None)", "torch.rms_norm(torch.randn(0, 8), [8])",
], setup=LN, tol="float")

# complex64 / complex128 (upstream's kernels dispatch over the complex types): the composite's
# steps in the input's type; a few ulps from upstream's (complex pow / rsqrt), so the float rule.
# complex128 is not a case: the rule's float64 bound (err is 0 there) is 2 ulps of each component,
# and a small component (-0.0167 beside 1.23j) differs by up to 8.9e-16, 4 ulps of |z| (measured)
cases("rms_norm_complex", [
    "torch.rms_norm(torch.complex(x, w), [8])", "torch.rms_norm(torch.complex(x, w), [8], w)",
    "torch.rms_norm(torch.complex(x, w), [3, 8], None, 1e-3)",
    "torch.rms_norm(torch.complex(x, w), [8], torch.ones(8, dtype=torch.int64))",
    "torch.ops.aten._fused_rms_norm(torch.complex(x, w), [8], torch.complex(w, b), None)[0]",
    "torch.rms_norm(torch.zeros(2, 8, dtype=torch.complex64), [8])",
], setup=LN, tol="float")

cases("rms_norm_errors", [
    "torch.rms_norm(x, [7])", "torch.rms_norm(x, [8], torch.ones(7))", "torch.rms_norm(torch.arange(8).reshape(1, 8), [8])",
], setup=LN)

ATT = """
torch.manual_seed(0)
q = torch.randn(2, 4, 5, 8)
k = torch.randn(2, 4, 7, 8)
v = torch.randn(2, 4, 7, 8)
F = torch.nn.functional
"""

cases("sdpa", [
    "F.scaled_dot_product_attention(q, k, v)", "F.scaled_dot_product_attention(q, q, q, is_causal=True)",
    "F.scaled_dot_product_attention(q, k, v, is_causal=True)", "F.scaled_dot_product_attention(q, k, v, scale=0.3)",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(5, 7))",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(2, 1, 5, 7))",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.rand(5, 7) > 0.3)",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(5, 7, dtype=torch.bool))",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(5, 7), is_causal=True)",
    "F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :1], v[:, :1], enable_gqa=True, is_causal=True)",
    "F.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), is_causal=True)",
    "F.scaled_dot_product_attention(q.half(), k.half(), v.half())",
    "F.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), attn_mask=torch.randn(5, 7))",
    "F.scaled_dot_product_attention(q.transpose(1, 2).contiguous().transpose(1, 2), k, v)",
    "F.scaled_dot_product_attention(q[:, :, ::2], k, v)", "F.scaled_dot_product_attention(q[0], k[0], v[0])",
    "F.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0])", "F.scaled_dot_product_attention(q, k, v[..., :3])",
    "F.scaled_dot_product_attention(q[:, :, :1], k, v)", "F.scaled_dot_product_attention(q[:0], k[:0], v[:0])",
    "F.scaled_dot_product_attention(q, k[:, :, :0], v[:, :, :0])",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True, scale=0.5)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=torch.randn(2, 4, 5, 7))",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q.bfloat16(), k.bfloat16(), v.bfloat16())",
], setup=ATT, tol="float", strides=True)

# Shapes only upstream's math path takes (mixed ranks, broadcast batch or heads, 5-d): run op by op
# as upstream's; and the math path's checks (validate_sdpa_input, GQA head counts, causal + mask).
cases("sdpa_math_shapes", [
    "F.scaled_dot_product_attention(q[0, :3], k, v)", "F.scaled_dot_product_attention(q[0, :3], k, v, is_causal=True)",
    "F.scaled_dot_product_attention(q[:1], k, v)", "F.scaled_dot_product_attention(q, k[:, :1], v[:, :1])",
    "F.scaled_dot_product_attention(q[0, 0], k[0], v[0])",
    "F.scaled_dot_product_attention(q.expand(3, 2, 4, 5, 8), k.expand(3, 2, 4, 7, 8), v.expand(3, 2, 4, 7, 8))",
    "F.scaled_dot_product_attention(q[:1], k, v, attn_mask=torch.randn(5, 7))",
    "F.scaled_dot_product_attention(q[:1], k, v, attn_mask=torch.randn(2, 1, 5, 1) > 0)",
    "F.scaled_dot_product_attention(q[0, :3], k[0, :3], v[0, :3])",   # the kernel's shape: unchanged
    "F.scaled_dot_product_attention(q[0], k[:, :1], v[:, :1], enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :2], v[:, :1], enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :3], v[:, :3], enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :2], v[:, :3], enable_gqa=True)",
    "F.scaled_dot_product_attention(q[0, 0, 0], k[0, 0], v[0, 0])",
    "F.scaled_dot_product_attention(q[0, 0], k[0, 0, 0], v[0, 0])",
    "F.scaled_dot_product_attention(q[0, :2], k[0, :3], v[0, :3])",
    "F.scaled_dot_product_attention(q[0], k[0, ..., :6], v[0])",
    "F.scaled_dot_product_attention(q[0], k[0], v[0, :, :6])",
    "F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=torch.randn(5, 7), is_causal=True)",
    "F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=torch.randn(5, 6))",
    "F.scaled_dot_product_attention(q[:1], k, v, attn_mask=torch.randn(5, 6))",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(5, 7).double())",
    "F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=torch.randn(5, 7).half())",
    "F.scaled_dot_product_attention(q[:1], k, v, attn_mask=torch.ones(5, 7, dtype=torch.int64))",
    "torch.matmul(q[0], k[:3].transpose(-2, -1))",
], setup=ATT, tol="float", strides=True)

# Sequences longer than the f32 kernel's 64-row query block (kernels/attention.c): several
# (batch, head, block) units shared over the thread pool, causal blocks cut at the diagonal,
# grouped key/value heads, masks and a query layout whose heads are not outermost (Llama's).
ATT_LONG = """
torch.manual_seed(0)
q = torch.randn(2, 6, 150, 32)
k = torch.randn(2, 6, 150, 32)
v = torch.randn(2, 6, 150, 32)
F = torch.nn.functional
"""

cases("sdpa_long", [
    "F.scaled_dot_product_attention(q, k, v)", "F.scaled_dot_product_attention(q, k, v, is_causal=True)",
    "F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], is_causal=True, enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :, :70], v[:, :, :70])",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.randn(150, 150))",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.rand(150, 150) > 0.2, is_causal=False)",
    "F.scaled_dot_product_attention(q.transpose(1, 2).contiguous().transpose(1, 2), k, v, is_causal=True)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q[:, :, :130], k, v, scale=0.1)",
], setup=ATT_LONG, tol="float", strides=True)

# Keys past one of the f32 kernel's key blocks (kernels/attention.c, flash-style: 512 keys a
# block, 96 query rows a unit): the running max and sum carried from block to block and the
# output rescaled when a later block holds a larger score (keys growing along the sequence), rows
# whose first key block is wholly masked (running max -inf, then a finite one), rows masked
# everywhere (0), causal units that stop inside a key block, grouped heads, log-sum-exp.
ATT_FLASH = """
torch.manual_seed(0)
q = torch.randn(1, 3, 1100, 16)
k = torch.randn(1, 3, 1100, 16) * torch.linspace(0.2, 3.0, 1100)[:, None]
v = torch.randn(1, 3, 1100, 16)
F = torch.nn.functional
late = torch.ones(1100, 1100, dtype=torch.bool)
late[:200, :700] = False
late[200:210] = False
"""

cases("sdpa_flash", [
    "F.scaled_dot_product_attention(q, k, v, is_causal=True)",
    "F.scaled_dot_product_attention(q[:, :, :100], k, v)",
    "F.scaled_dot_product_attention(q[:, :, 1000:], k.flip(2), v)",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=late)",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=late, is_causal=False, scale=0.05)",
    "F.scaled_dot_product_attention(q[:, :, :300], k, v, attn_mask=torch.randn(300, 1100) * 4)",
    "F.scaled_dot_product_attention(q, k[:, :1], v[:, :1], is_causal=True, enable_gqa=True)",
    "F.scaled_dot_product_attention(q.transpose(1, 2).contiguous().transpose(1, 2), k, v, is_causal=True)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=True)",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q[:, :, :250], k, v, attn_mask=late[:250].float().log())",
    "F.scaled_dot_product_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), is_causal=True)",
], setup=ATT_FLASH, tol="float", strides=True)

# bf16 / f16 sdpa where the decomposition runs (a dispatch mode, or inputs requiring grad with grad
# mode off): upstream's flash overload, as for f32 (the op stream and the values)
cases("sdpa_lowp_decomposed", {
    "mode": """
from torch.utils._python_dispatch import TorchDispatchMode
class M(TorchDispatchMode):
    def __init__(self):
        super().__init__(); self.seen = []
    def __torch_dispatch__(self, f, types, args, kwargs=None):
        self.seen.append(str(f))
        return f(*args, **(kwargs or {}))
with M() as m:
    o = F.scaled_dot_product_attention(q.bfloat16(), k[:, :2].bfloat16(), v[:, :2].bfloat16(), is_causal=True, enable_gqa=True)
    o2 = F.scaled_dot_product_attention(q.half(), k.half(), v.half())
(m.seen, o, o2)
""",
    "no_grad_leaf": """
qb = q.bfloat16().requires_grad_()
with torch.no_grad():
    o = F.scaled_dot_product_attention(qb, k.bfloat16(), v.bfloat16())
(o, o.requires_grad)
"""}, setup=ATT, tol="float", vars=False)

cases("sdpa_errors", [
    "F.scaled_dot_product_attention(q.long(), k.long(), v.long())",
    "F.scaled_dot_product_attention(q, k.double(), v)",
    "F.scaled_dot_product_attention(q, k[:, :3], v[:, :3], enable_gqa=True)",
    "F.scaled_dot_product_attention(q, k[:, :2], v[:, :2])",
    "F.scaled_dot_product_attention(q, k, v, attn_mask=torch.zeros(5, 7, dtype=torch.bfloat16))",
    "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v[..., :3])",
], setup=ATT)

EMB = """
torch.manual_seed(0)
w = torch.randn(10, 4)
F = torch.nn.functional
"""

cases("embedding", [
    "F.embedding(torch.tensor([1, 2, 9]), w)", "F.embedding(torch.tensor([[0, 3], [3, 0]]), w)",
    "F.embedding(torch.tensor(5), w)", "F.embedding(torch.tensor([], dtype=torch.int64), w)",
    "F.embedding(torch.tensor([1, 2], dtype=torch.int32), w)", "F.embedding(torch.tensor([1, 2]), w.t().contiguous().t())",
    "F.embedding(torch.tensor([1, 2]), w[:, ::2])", "F.embedding(torch.tensor([1, 2]), w.bfloat16())",
    "F.embedding(torch.tensor([1, 2]), w.half())", "F.embedding(torch.tensor([4, 0]), torch.arange(20).reshape(10, 2))",
    "torch.embedding(w, torch.tensor([3, 3]))", "torch.nn.Embedding(5, 3)(torch.tensor([1, 4]))" if False else
    "F.embedding(torch.tensor([7, 1]), w, padding_idx=1)", "torch.ops.aten.embedding.default(w.double(), torch.tensor([0]))",
    "F.embedding(torch.tensor([1.]), w)", "F.embedding(torch.tensor([10]), w)", "F.embedding(torch.tensor([-1]), w)",
    "F.embedding(torch.tensor([1], dtype=torch.int16), w)", "torch.embedding(torch.randn(3), torch.tensor([1]))",
], setup=EMB)

cases("isin", [
    "torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 3]))", "torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2., 3.5]))",
    "torch.isin(torch.tensor([1, 2, 3]), 2)", "torch.isin(2, torch.tensor([1, 2, 3]))",
    "torch.isin(torch.tensor([1., float('nan')]), torch.tensor([float('nan'), 1.]))",
    "torch.isin(torch.tensor([1, 2, 3], dtype=torch.uint8), torch.tensor([-254]))",
    "torch.isin(torch.tensor([[1, 5], [7, 2]]), torch.tensor([[2, 7]]), invert=True)",
    "torch.isin(torch.tensor([1, 2, 3]), torch.tensor([], dtype=torch.int64))",
    "torch.isin(torch.arange(10)[::3], torch.arange(4, 20))", "torch.isin(torch.tensor([True, False]), torch.tensor([True]))",
    "torch.isin(torch.tensor([1, 2]), torch.tensor([1 + 0j]))",
    "torch.isin(torch.tensor([1, 2]), torch.tensor([2]), out=torch.empty(0, dtype=torch.bool))",
    "torch.isin(torch.tensor(3), torch.tensor([3, 4]))",
])

SRT = """
torch.manual_seed(0)
x = torch.randn(3, 6)
"""

cases("sort", [
    "torch.sort(x)", "torch.sort(x, 0)", "torch.sort(x, descending=True)", "x.sort(dim=0, descending=True)",
    "torch.sort(x.double())", "torch.sort(x.bfloat16(), 1)", "torch.sort(x.half(), descending=True)",
    "torch.sort(torch.randperm(20).reshape(4, 5), 1)", "torch.sort(torch.randperm(20).to(torch.int32), descending=True)",
    "torch.sort(torch.randperm(20).to(torch.uint8))", "torch.sort(torch.randperm(20).to(torch.int8), descending=True)",
    "torch.sort(x.t(), 1)", "torch.sort(x[:, ::2])", "torch.sort(torch.tensor(3.))", "torch.sort(torch.randn(0, 3))",
    "torch.sort(torch.tensor([1., float('nan'), -1., float('inf')]))",
    "torch.sort(torch.tensor([1., float('nan'), -1., float('-inf')]), descending=True)",
    "torch.sort(torch.tensor([1, 0, 1, 0, 1, 2]), stable=True)",
    "torch.sort(torch.tensor([1, 0, 1, 0, 1, 2]), stable=True, descending=True)",
    "torch.sort(torch.tensor([True, False, True]), stable=True)",
    "torch.sort(x, out=(torch.empty(0), torch.empty(0, dtype=torch.int64)))", "torch.sort(x, 2)",
    "torch.argsort(x)", "torch.argsort(x, 0, descending=True)", "x.argsort(stable=True)",
    "torch.argsort(torch.tensor([3, 1, 3, 1, 2]), stable=True, descending=True)", "torch.msort(x)",
    "torch.sort(torch.randn(2, 100), -1)",
], setup=SRT)

cases("topk", [
    "torch.topk(x, 2)", "torch.topk(x, 3, 0)", "torch.topk(x, 2, largest=False)", "x.topk(6)", "x.topk(0)",
    "torch.topk(x.bfloat16(), 2)", "torch.topk(x.double(), 1, dim=0)", "torch.topk(torch.randperm(30), 5)",
    "torch.topk(torch.tensor([3, float('nan'), 2]), 2)", "torch.topk(torch.tensor(3.), 1)", "torch.topk(x.t(), 2)",
    "torch.topk(x, 7)", "torch.topk(x, 2, 2)",
    "torch.topk(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.int64)))",
    "torch.topk(torch.randn(2, 200), 10)",
], setup=SRT)

# float64: upstream's own float64 result is its reference (err = 0), but its loop order and
# formula differ from ours by an ulp or two; a small absolute/relative tolerance instead.
cases("nn_f64", {
    "layer_norm": LN + "torch.layer_norm(x.double(), [8], w.double(), b.double())",
    "native_layer_norm": LN + "torch.native_layer_norm(x.double(), [8], None, None, 1e-5)",
    "rms_norm": LN + "torch.rms_norm(x.double(), [8], w.double())",
    "softmax": SETUP + "torch.softmax(x.double(), 0)",
    "log_softmax": SETUP + "torch.log_softmax(x.double(), -1)",
    "sdpa": ATT + "F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)",
    "sdpa_mask": ATT + "F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=torch.randn(5, 7).double())",
}, tol=(1e-14, 1e-13))

cases("dropout", {
    "eval": "x = torch.randn(3)\ny = torch.dropout(x, 0.1, False)\n(y is x, y)",
    "p0": "x = torch.randn(3)\ny = torch.nn.functional.dropout(x, 0.0, training=True)\n(y is x, y)",
    "F_eval": "x = torch.randn(2, 3)\ny = torch.nn.functional.dropout(x, 0.5, training=False)\n(y is x, y)",
    "inplace": "x = torch.randn(3)\ny = torch.dropout_(x, 0.3, False)\n(y is x, y)",
    "bad_p": "torch.dropout(torch.randn(3), 1.5, False)",
})

# long rows and other dims with special values inside (ref/softmax.c: rows of the last dim, 256
# inner positions side by side for other dims)
cases("softmax_long", {
    f"{fn}_{d}": f"torch.{fn}(z, {d})" for fn in ("softmax", "log_softmax") for d in (0, 1, 2)
} | {"safe_1": "torch.ops.aten._safe_softmax(z, 1)", "safe_2": "torch.ops.aten._safe_softmax(z, 2)"},
    setup="""
torch.manual_seed(0)
z = torch.randn(5, 300, 19) * 5
z[0, :, 0] = float('-inf'); z[1, 3, 1] = float('nan'); z[2, 5, 2] = float('inf'); z[3, 7, :] = float('-inf')
""", tol="float")

cases("sdpa_dropout", {   # upstream's math path with dropout: the generator drawn as upstream (values under the float rule: bmm)
    "plain": "torch.manual_seed(0)\nq, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8)\n"
             "torch.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.3), torch.rand(2)",
    "causal_scale": "torch.manual_seed(0)\nq = torch.randn(1, 2, 4, 8)\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.5, is_causal=True, scale=0.2)",
    "bool_mask_3d": "torch.manual_seed(0)\nq = torch.randn(3, 4, 8)\nm = torch.rand(4, 4) > 0.3\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=m, dropout_p=0.1)",
    "float_mask_gqa": "torch.manual_seed(0)\nq, k = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8)\n"
                      "torch.nn.functional.scaled_dot_product_attention(q, k, k, attn_mask=torch.randn(3, 5), dropout_p=0.2, enable_gqa=True)",
    "p_one": "torch.manual_seed(0)\nq = torch.randn(1, 1, 3, 4)\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=1.0)",
    "bf16": "torch.manual_seed(0)\nq = torch.randn(1, 2, 4, 8).bfloat16()\ntorch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.25)",
    "flash_overload_refuses": "q = torch.randn(1, 1, 2, 4)\ndef f():\n    try:\n        torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default(q, q, q, 0.5)\n"
                              "    except RuntimeError as e:\n        return str(e)\nf()",
    "bad_dims": "q = torch.randn(2, 4)\ndef f():\n    try:\n        torch.nn.functional.scaled_dot_product_attention(q, q, torch.randn(3, 4, 4), dropout_p=0.5)\n"
                "    except RuntimeError as e:\n        return str(e)\nf()",
}, tol="float")

from harness.autograd import F32 as _F32
cases("sdpa_dropout_grad", {   # gradients through the dropout mask: the autograd cases' fixed rule (harness/autograd.py)
    "grad": "torch.manual_seed(0)\nq = torch.randn(1, 2, 4, 8, requires_grad=True)\nk = torch.randn(1, 2, 4, 8, requires_grad=True)\n"
            "o = torch.nn.functional.scaled_dot_product_attention(q, k, k, dropout_p=0.4)\no.sum().backward()\no, q.grad, k.grad",
}, tol=_F32)
