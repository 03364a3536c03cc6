"""Dynamic quantized Linear (src/ops/qlinear.c, kernels/ref/qlinear.c; docs/quant_tensors.md
"Dynamic quantization"): quantized::linear_prepack / linear_unpack / linear_dynamic /
linear_relu_dynamic and their float16 forms, the packed parameters (torch.ScriptObject: state,
pickling, copies, str), and upstream's errors. Values bit-exact: the activation's qparams
(reduce_range or not), its uint8 rounding (ties and specials included), the exact int32 product
and the requantization with its FMA are upstream's x86 (fbgemm) steps. The model-level comparison
(quantize_dynamic of an MLP, BERT, Llama; state_dict both ways) is tests/test_quant_dynamic_models.py."""
import pytest

from harness import cases
from harness.runner import fbgemm_vnni

pytestmark = pytest.mark.skipif(not fbgemm_vnni(), reason="upstream's fbgemm runs without AVX-512 VNNI here "
                                "(int16-saturating sums, another float16 order): these bits are the VNNI path's")

SETUP = """
import copy, io, pickle, warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
x = torch.randn(5, 24) * 2
w = torch.randn(7, 24) * 0.2
b = torch.randn(7)
qw = torch.quantize_per_tensor(w, 0.003, 2, torch.qint8)
qc = torch.quantize_per_channel(w, torch.rand(7).double() * 0.005 + 0.001, torch.randint(-4, 4, (7,)), 0, torch.qint8)
p = Q.linear_prepack(qw, b)
pc = Q.linear_prepack(qc, None)
p16 = Q.linear_prepack_fp16(w * 1000, b)
def d(q):
    if not (isinstance(q, torch.Tensor) and q.is_quantized):
        return q
    if q.qscheme() == torch.per_tensor_affine:
        return q.int_repr(), q.q_scale(), q.q_zero_point()
    return q.int_repr(), q.q_per_channel_scales(), q.q_per_channel_zero_points(), q.q_per_channel_axis()
def state(o):
    (wt, bias), name = o.__getstate__()
    return d(wt), bias, name
"""

cases("linear_dynamic", {
    "per_tensor": "Q.linear_dynamic(x, p)",
    "per_tensor_reduce_range": "Q.linear_dynamic(x, p, True), Q.linear_dynamic(x, p, reduce_range=True)",
    "per_channel": "Q.linear_dynamic(x, pc), Q.linear_dynamic(x, pc, True)",
    "relu": "Q.linear_relu_dynamic(x, p), Q.linear_relu_dynamic(x, pc, True)",
    "batched_3d": "Q.linear_dynamic(x.reshape(5, 1, 24).expand(5, 3, 24) * torch.arange(3.).reshape(1, 3, 1), p, True)",
    "transposed_input": "Q.linear_dynamic(torch.randn(24, 6).t(), p)",
    "positive_input": "Q.linear_dynamic(x.abs(), p), Q.linear_dynamic(x.abs(), p, True)",
    "negative_input": "Q.linear_dynamic(-x.abs(), p)",
    "constant_input": "Q.linear_dynamic(torch.full((3, 24), 0.7), p), Q.linear_dynamic(torch.zeros(3, 24), p)",
    "tiny_input": "Q.linear_dynamic(x * 1e-9, p)",
    "huge_input": "Q.linear_dynamic(x * 1e30, p)",
    "ties": "Q.linear_dynamic(torch.tensor([[0.5, 1.5, 2.5, -0.5, 127.5, -127.5, 0.25] * 3 + [255., -255., 1.]]), p)",
    "special_inf": "x2 = x.clone(); x2[1, 3] = float('inf'); Q.linear_dynamic(x2, p)",
    "special_nan_washed_out": "x2 = x.clone(); x2[0, 2] = float('nan'); Q.linear_dynamic(x2, p), Q.linear_dynamic(x2, p, True)",
    "weight_zero_point": "Q.linear_dynamic(x, Q.linear_prepack(torch.quantize_per_tensor(w, 0.004, -9, torch.qint8), b))",
    "empty": "Q.linear_dynamic(torch.empty(0, 24), p)",
    "many_rows_rounding": "Q.linear_dynamic(torch.randn(2500, 128) * 3 + 0.5, Q.linear_prepack(torch.quantize_per_tensor(torch.randn(3, 128) * 0.1, 0.002, 1, torch.qint8), None))",
    "large_k": "Q.linear_dynamic(torch.randn(4, 700), Q.linear_prepack(torch.quantize_per_tensor(torch.randn(9, 700) * 0.1, 0.002, 0, torch.qint8), None), True)",
    "requires_grad_input": "r = Q.linear_dynamic(x.requires_grad_(), p); out = r.detach(), r.requires_grad; del r; out",
    "_quantized_namespace": "torch.ops._quantized.linear_dynamic(x, torch.ops._quantized.linear_prepack(qw, b))",
    "err_double_input": "Q.linear_dynamic(x.double(), p)",
    "err_1d_input": "Q.linear_dynamic(x[0], p)",
    "err_k_mismatch": "Q.linear_dynamic(x[:, :5], p)",
    "err_all_nan": "Q.linear_dynamic(torch.full((2, 24), float('nan')), p)",
    "err_quantized_input": "Q.linear_dynamic(torch.quantize_per_tensor(x, 0.1, 0, torch.quint8), p)",
    "err_not_packed": "Q.linear_dynamic(x, qw)",
    "err_str_packed": "Q.linear_dynamic(x, 'w')",
    "err_double_bias": "Q.linear_dynamic(x, Q.linear_prepack(qw, b.double()))",
}, setup=SETUP)

cases("linear_prepack", {
    "unpack_per_tensor": "wt, bias = Q.linear_unpack(p); d(wt), bias, bias is b",
    "unpack_per_channel": "wt, bias = Q.linear_unpack(pc); d(wt), bias",
    "unpack_transposed_weight": "d(Q.linear_unpack(Q.linear_prepack(torch.quantize_per_tensor(torch.randn(24, 7), 0.01, 0, torch.qint8).t(), None))[0])",
    "methods": "d(p.unpack()[0]), p.bias() is b, pc.bias(), p._method_names(), p._has_method('unpack'), p._has_method('x')",
    "str": "str(p), str(p16), type(p).__name__, type(p).__module__, isinstance(p, torch.ScriptObject)",
    "getstate": "state(p), state(pc), state(p16)",
    "setstate": "o = torch.ScriptObject.__new__(torch.ScriptObject); o.__setstate__(p.__getstate__()); Q.linear_dynamic(x, o), state(o)",
    "setstate_fp16": "o = torch.ScriptObject.__new__(torch.ScriptObject); o.__setstate__(p16.__getstate__()); Q.linear_dynamic_fp16(x, o)",
    "pickle": "o = pickle.loads(pickle.dumps(pc)); Q.linear_dynamic(x, o), state(o)",
    "torch_save": "f = io.BytesIO(); torch.save({'p': p}, f); f.seek(0); o = torch.load(f, weights_only=False)['p']; Q.linear_dynamic(x, o)",
    "deepcopy": "o = copy.deepcopy(p); o is p, o.bias() is b, Q.linear_dynamic(x, o), state(o)",
    "copy": "o = copy.copy(pc); o is pc, state(o)",
    "reduce_ex": "r = p.__reduce_ex__(2); r[0].__name__, r[1][0] is torch.ScriptObject, r[2][1], r[3], r[4], d(r[2][0][0])",
    "custom_class": "type(torch.classes.quantized.LinearPackedParamsBase).__name__",
    "err_dense_weight": "Q.linear_prepack(w, b)",
    "err_quint8_weight": "Q.linear_prepack(torch.quantize_per_tensor(w, 0.01, 3, torch.quint8), b)",
    "err_3d_weight": "Q.linear_prepack(torch.quantize_per_tensor(torch.randn(2, 3, 4), 0.01, 0, torch.qint8), None)",
    "err_bias_size": "Q.linear_prepack(qw, torch.randn(6))",
    "err_bias_2d": "Q.linear_prepack(qw, b.reshape(7, 1))",
    "err_unpack_dense": "Q.linear_unpack(w)",
    "err_unpack_quantized": "Q.linear_unpack(qw)",
    "err_unpack_none": "Q.linear_unpack(None)",
    "err_unpack_int": "Q.linear_unpack(3)",
    "err_scriptobject_ctor": "torch.ScriptObject()",
    "err_unknown_custom_class": "torch.classes.quantized.NoSuchClass",
}, setup=SETUP)

cases("linear_dynamic_fp16", {
    "basic": "Q.linear_dynamic_fp16(x, p16)",
    "relu": "Q.linear_relu_dynamic_fp16(x, p16)",
    "no_bias": "Q.linear_dynamic_fp16(x, Q.linear_prepack_fp16(w, None))",
    "batched_3d": "Q.linear_dynamic_fp16(x.reshape(5, 1, 24).expand(5, 2, 24), p16)",
    "k_blocks": "[Q.linear_dynamic_fp16(torch.randn(3, k), Q.linear_prepack_fp16(torch.randn(4, k), None)) for k in (511, 512, 513, 1100)]",
    "unpack": "Q.linear_unpack_fp16(p16)[0], Q.linear_unpack_fp16(p16)[1] is b",
    "rounding": "Q.linear_unpack_fp16(Q.linear_prepack_fp16(torch.tensor([[float('nan'), float('inf'), -float('inf'), -1e6, 1e-5, 3e-8, 6e-8, 65519., 65520., 1.00048828125]]), None))[0]",
    "saturates_in_place": "wt = torch.tensor([[1e6, -1e6, 3.0, float('nan')]]); Q.linear_prepack_fp16(wt, None); wt",
    "noncontiguous_not_in_place": "wt = torch.tensor([[1e6], [3.0]]).t(); Q.linear_prepack_fp16(wt, None); wt",
    "double_weight": "Q.linear_unpack_fp16(Q.linear_prepack_fp16(w.double(), None))[0]",
    "unpacked_weight": "Q.linear_dynamic_fp16_unpacked_weight(x, w, b)",
    "cross_kind": "Q.linear_dynamic_fp16(x, p), Q.linear_dynamic(x, p16, True), Q.linear_unpack(p16)[0], d(Q.linear_unpack_fp16(p)[0])",
    "empty": "Q.linear_dynamic_fp16(torch.empty(0, 24), p16)",
    "err_double_input": "Q.linear_dynamic_fp16(x.double(), p16)",
    "err_1d_input": "Q.linear_dynamic_fp16(x[0], p16)",
    "err_k_mismatch": "Q.linear_dynamic_fp16(x[:, :5], p16)",
    "err_quantized_weight": "Q.linear_prepack_fp16(qw, None)",
    "err_unpacked_weight_3d": "Q.linear_dynamic_fp16_unpacked_weight(x, w.reshape(7, 4, 6), None)",
}, setup=SETUP)

STATIC = SETUP + """
xq = torch.quantize_per_tensor(x, 0.02, 120, torch.quint8)
def r(q):
    return q.int_repr(), q.q_scale(), q.q_zero_point(), q.dtype
"""

cases("linear_static", {
    "per_tensor": "r(Q.linear(xq, p, 0.05, 60))",
    "per_channel": "r(Q.linear(xq, pc, 0.05, 60))",
    "relu": "r(Q.linear_relu(xq, p, 0.05, 60)), r(Q.linear_relu(xq, pc, 0.03, 0))",
    "no_bias": "r(Q.linear(xq, Q.linear_prepack(qw, None), 0.05, 60))",
    "large_bias": "r(Q.linear(xq, Q.linear_prepack(qw, b * 40), 0.07, 128))",
    "saturating": "r(Q.linear(xq, p, 1e-4, 250)), r(Q.linear(xq, p, 1e-4, 0)), r(Q.linear(xq, p, 1e-9, 3))",
    "batched_3d": "r(Q.linear(torch.quantize_per_tensor(x.reshape(5, 1, 24).expand(5, 3, 24).contiguous(), 0.02, 120, torch.quint8), p, 0.05, 60))",
    # one output of these 12,800 rounds differently unless the bias enters through upstream's FMA
    "bias_fma": "torch.manual_seed(46); w2 = torch.quantize_per_tensor(torch.randn(64, 64) * 0.2, 0.003, 0, torch.qint8); b2 = torch.randn(64) * 3; r(Q.linear(torch.quantize_per_tensor(torch.randn(200, 64) * 2, 0.03, 100, torch.quint8), Q.linear_prepack(w2, b2), 0.0106, 128))",
    "empty": "r(Q.linear(torch.quantize_per_tensor(torch.empty(0, 24), 0.02, 120, torch.quint8), p, 0.05, 60))",
    "_quantized_namespace": "r(torch.ops._quantized.linear(xq, p, 0.05, 60))",
    "err_dense_input": "Q.linear(x, p, 0.05, 60)",
    "err_qint8_input": "Q.linear(torch.quantize_per_tensor(x, 0.02, 0, torch.qint8), p, 0.05, 60)",
    "err_1d_input": "Q.linear(xq[0], p, 0.05, 60)",
    "err_k_mismatch": "Q.linear(torch.quantize_per_tensor(x[:, :5], 0.02, 120, torch.quint8), p, 0.05, 60)",
    "err_not_packed": "Q.linear(xq, qw, 0.05, 60)",
}, setup=STATIC)

# torch.backends.quantized.engine: upstream's default on x86 is X86; FBGEMM runs the same kernels
# there. (QNNPACK / ONEDNN, which upstream also lists, round differently: ours refuses them by
# name, so they are not golden cases.) Each case puts the default back.
ENGINE = """
def err(f):
    try:
        return ("ok", f())
    except Exception as e:
        return (type(e).__name__, str(e))
def engine_after(name):
    torch.backends.quantized.engine = name
    got = (torch.backends.quantized.engine, torch._C._get_qengine())
    torch.backends.quantized.engine = "x86"
    return got
"""
cases("quant_engine", {
    "default": "(torch.backends.quantized.engine, torch._C._get_qengine())",
    "fbgemm": ENGINE + "engine_after('fbgemm')",
    "x86": ENGINE + "engine_after('x86')",
    "bad_none": ENGINE + "err(lambda: torch._C._set_qengine(0))",
    "bad_unknown": ENGINE + "(err(lambda: torch._C._set_qengine(9)), err(lambda: torch._C._set_qengine(-1)), torch.backends.quantized.engine)",
})
