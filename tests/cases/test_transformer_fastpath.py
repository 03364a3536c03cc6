"""nn.MultiheadAttention's and nn.TransformerEncoderLayer's inference fast path (eval, no grad):
upstream's Python calls _native_multi_head_attention / _transformer_encoder_layer_fwd, which run
_transform_bias_rescale_qkv, bmm, _masked_softmax or _softmax and _addmm_activation
(src/ops/transformer.c). Values under the float rule (GEMMs inside); the ops called directly, and
their errors, compared with upstream."""
from harness import cases

SETUP = """
import copy
torch.manual_seed(0)
nn = torch.nn
x = torch.randn(2, 5, 8)
y = torch.randn(2, 5, 8)
kpm = torch.tensor([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]]).bool()
causal = torch.triu(torch.ones(5, 5), 1).bool()
# the modules are built outside the harness's float64 re-run mode (it measures upstream's own
# float error by widening each torch call's tensors; module construction does not survive it)
import contextlib
quiet = torch.overrides._pop_mode_temporarily if torch._C._len_torch_function_stack() else contextlib.nullcontext
with quiet():
    M = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    Ms = nn.MultiheadAttention(8, 2).eval()
    Mb = copy.deepcopy(M).bfloat16()
    L = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval()
    Lg = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True, activation="gelu").eval()
    E = nn.TransformerEncoder(copy.deepcopy(L), 2, enable_nested_tensor=False).eval()
def run(m, *a, **kw):
    with torch.no_grad():
        return m(*a, **kw)
"""

cases("mha_fastpath", {
    "self_no_weights": "run(M, x, x, x, need_weights=False)",
    "self_weights": "run(M, x, x, x)",
    "self_weights_per_head": "run(M, x, x, x, average_attn_weights=False)",
    "seq_first": "run(Ms, x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1))",
    "padding_mask": "run(M, x, x, x, key_padding_mask=kpm)",
    "padding_mask_float": "run(M, x, x, x, key_padding_mask=kpm.float() * -1e9, need_weights=False)",
    "attn_mask": "run(M, x, x, x, attn_mask=causal)",
    "both_masks": "run(M, x, x, x, attn_mask=causal, key_padding_mask=kpm, need_weights=False)",
    "row_fully_masked": "run(M, x, x, x, key_padding_mask=torch.ones(2, 5).bool(), need_weights=False)",
    "cross_kv_same": "run(M, x, y, y)",
    "cross_all_different": "run(M, x, y, y + 1)",
    "bfloat16": "run(Mb, x.bfloat16(), x.bfloat16(), x.bfloat16())",
    "empty_batch": "run(M, x[:0], x[:0], x[:0], need_weights=False)",
    "dispatch_mode_sees": "from torch.utils._python_dispatch import TorchDispatchMode\n"
                          "class Log(TorchDispatchMode):\n"
                          "    def __torch_dispatch__(self, f, types, args=(), kwargs=None):\n"
                          "        seen.append(str(f)); return f(*args, **(kwargs or {}))\n"
                          "seen = []\n"
                          "with Log(): run(M, x, x, x, key_padding_mask=kpm); run(L, x)\n"
                          "seen",
}, setup=SETUP, tol="float")

cases("encoder_layer_fastpath", {
    "relu": "run(L, x)",
    "gelu_norm_first": "run(Lg, x)",
    "src_mask": "run(L, x, src_mask=causal)",
    "padding_mask": "run(L, x, src_key_padding_mask=kpm)",
    "encoder_no_nested": "run(E, x, src_key_padding_mask=kpm)",
}, setup=SETUP, tol="float")

a = "torch.ops.aten."
S = torch_s = "torch.randn(2, 2, 3, 3)"
cases("masked_softmax_ops", {
    "type2_last": f"{a}_masked_softmax(s, torch.rand(2, 2, 3, 3) > 0.5)",
    "type2_dim1": f"{a}_masked_softmax(s, torch.rand(2, 2, 3, 3) > 0.5, 1)",
    "type0": f"{a}_masked_softmax(s, torch.rand(3, 3) > 0.5, 3, 0)",
    "type0_dim2": f"{a}_masked_softmax(s, torch.rand(3, 3) > 0.5, 2, 0)",
    "type1": f"{a}_masked_softmax(s, torch.rand(2, 3) > 0.5, 3, 1)",
    "type1_no_dim": f"{a}_masked_softmax(s, torch.rand(2, 3) > 0.5, None, 1)",
    "all_masked_row": f"{a}_masked_softmax(s, torch.ones(2, 2, 3, 3).bool())",
    "f64": f"{a}_masked_softmax(s.double(), torch.rand(2, 2, 3, 3) > 0.5)",
    "bf16": f"{a}_masked_softmax(s.bfloat16(), torch.rand(2, 2, 3, 3) > 0.5)",
    "f16": f"{a}_masked_softmax(s.half(), torch.rand(2, 2, 3, 3) > 0.5)",
    "three_d": f"{a}_masked_softmax(s[0], torch.rand(2, 3, 3) > 0.5, 0)",
    "scalar": f"{a}_masked_softmax(torch.tensor(1.5), torch.tensor(False))",
    "err_not_bool": f"{a}_masked_softmax(s, torch.ones(2, 2, 3, 3))",
    "err_shape2": f"{a}_masked_softmax(s, torch.ones(2, 3).bool())",
    "err_no_type": f"{a}_masked_softmax(s, torch.ones(3, 3).bool())",
    "err_type0_shape": f"{a}_masked_softmax(s, torch.ones(2, 3).bool(), 3, 0)",
    "err_type1_shape": f"{a}_masked_softmax(s, torch.ones(3, 2).bool(), 3, 1)",
    "err_type_value": f"{a}_masked_softmax(s, torch.ones(3, 3).bool(), 3, 5)",
    "err_int": f"{a}_masked_softmax(torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3).bool())",
    "err_dim": f"{a}_masked_softmax(s, torch.ones(2, 2, 3, 3).bool(), 4)",
    "backward": f"m = torch.rand(2, 2, 3, 3) > 0.5; o = {a}_masked_softmax(s, m); {a}_masked_softmax_backward(torch.randn(2, 2, 3, 3), o, m)",
    "backward_dim1": f"m = torch.rand(2, 2, 3, 3) > 0.5; o = {a}_masked_softmax(s, m, 1); {a}_masked_softmax_backward(torch.randn(2, 2, 3, 3), o, m, 1)",
    "backward_bf16": f"m = torch.rand(2, 2, 3, 3) > 0.5; o = {a}_masked_softmax(s.bfloat16(), m); {a}_masked_softmax_backward(torch.randn(2, 2, 3, 3).bfloat16(), o, m)",
    "backward_err_shape": f"{a}_masked_softmax_backward(s, s, torch.ones(3, 3).bool())",
    "transform_qkv": f"{a}_transform_bias_rescale_qkv(torch.randn(2, 5, 24), torch.randn(24), 2)",
    "transform_qkv_f64": f"{a}_transform_bias_rescale_qkv(torch.randn(2, 5, 24).double(), torch.randn(24).double(), 4)",
    "transform_qkv_bf16": f"{a}_transform_bias_rescale_qkv(torch.randn(2, 5, 24).bfloat16(), torch.randn(24).bfloat16(), 2)",
    "transform_qkv_odd_head": f"{a}_transform_bias_rescale_qkv(torch.randn(1, 3, 9), torch.randn(9), 1)",
    "transform_qkv_err_heads": f"{a}_transform_bias_rescale_qkv(torch.randn(2, 5, 24), torch.randn(24), 3)",
    "transform_qkv_views": f"r = {a}_transform_bias_rescale_qkv(torch.randn(2, 5, 24), torch.randn(24), 2); [t.storage_offset() for t in r], r[0].untyped_storage().data_ptr() == r[2].untyped_storage().data_ptr()",
    "addmm_act_relu": f"{a}_addmm_activation(torch.randn(4), torch.randn(3, 5), torch.randn(5, 4))",
    "addmm_act_gelu": f"{a}_addmm_activation(torch.randn(4), torch.randn(3, 5), torch.randn(5, 4), beta=0.5, alpha=2, use_gelu=True)",
    "nmha_err_dims": f"{a}_native_multi_head_attention(torch.randn(5, 8), torch.randn(5, 8), torch.randn(5, 8), 8, 2, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nmha_err_embed": f"{a}_native_multi_head_attention(x, x, x, 6, 2, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nmha_err_heads": f"{a}_native_multi_head_attention(x, x, x, 8, 3, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nmha_err_shapes": f"{a}_native_multi_head_attention(x, x[:, :3], x, 8, 2, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nmha_err_weight": f"{a}_native_multi_head_attention(x, x, x, 8, 2, torch.randn(16, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8))",
    "nmha_mask_type1": f"{a}_native_multi_head_attention(x, x, x, 8, 2, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8), kpm, True, False, 1)",
    "encoder_layer_op": f"{a}_transformer_encoder_layer_fwd(x, 8, 2, torch.randn(24, 8), torch.randn(24), torch.randn(8, 8), torch.randn(8), True, False, 1e-5, torch.randn(8), torch.randn(8), torch.randn(8), torch.randn(8), torch.randn(16, 8), torch.randn(16), torch.randn(8, 16), torch.randn(8))",
}, setup=SETUP + "s = " + S + "\n", tol="float")
