"""Static quantized convolution (src/ops/qconv.c, kernels/ref/qconv.c; docs/quant_tensors.md
"Static convolution"): quantized::conv2d_prepack / conv2d / conv2d_relu / conv2d_unpack / the
getters, conv1d (upstream's: a conv2d over an unsqueezed height), conv_transpose2d / 1d (docs
"Transposed convolution"), the packed parameters
(torch.ScriptObject of Conv2dPackedParamsBase: state, pickling, copies, str) and upstream's errors.

Upstream's x86 engine runs a conv on oneDNN when the host has AVX-512 VNNI, groups <= 100 and the
weight is symmetric, else on fbgemm; the two requantize differently and word their errors
differently, and both are here (`w`, `wc`: oneDNN; `wa`, `wca`, 128 groups: fbgemm). On a host
without VNNI upstream takes fbgemm throughout, whose AVX2 sums saturate in int16: those bits are
another host's, hence the skip. Values are compared to the bit (int_repr, scale, zero point,
shape, strides: upstream's result is channels last). The model-level comparison (prepare /
calibrate / convert of ConvNets, state_dicts both ways) is tests/test_quant_conv_models.py."""
import pytest

from harness import cases
from harness.qconv_setup import BASE, RESULT
from harness.runner import fbgemm_vnni

pytestmark = pytest.mark.skipif(not fbgemm_vnni(), reason="upstream's x86 engine runs oneDNN convolutions only on "
                                "AVX-512 VNNI hosts (elsewhere fbgemm with int16-saturating sums): these bits are the VNNI host's")

SETUP = BASE + """
xq = torch.quantize_per_tensor(x, 0.03, 110, torch.quint8)
""" + RESULT + """
dw = torch.quantize_per_tensor(torch.randn(128, 1, 3, 3) * 0.3, 0.004, 0, torch.qint8)
xdw = torch.quantize_per_tensor(torch.randn(1, 128, 6, 7), 0.03, 100, torch.quint8)
"""

cases("qconv2d", {
    "per_tensor": "r(Q.conv2d(xq, pk(w), 0.05, 60))",
    "per_channel": "r(Q.conv2d(xq, pk(wc), 0.05, 60))",
    "per_tensor_fbgemm": "r(Q.conv2d(xq, pk(wa), 0.05, 60))",
    "per_channel_fbgemm": "r(Q.conv2d(xq, pk(wca), 0.05, 60))",
    "relu": "r(Q.conv2d_relu(xq, pk(w), 0.05, 60)), r(Q.conv2d_relu(xq, pk(wc), 0.03, 0))",
    "relu_fbgemm": "r(Q.conv2d_relu(xq, pk(wa), 0.05, 60)), r(Q.conv2d_relu(xq, pk(wca), 0.03, 0))",
    "no_bias": "r(Q.conv2d(xq, pk(w, None), 0.05, 60)), r(Q.conv2d(xq, pk(wca, None), 0.05, 60))",
    "stride_padding_dilation": "r(Q.conv2d(xq, pk(wc, s=(2, 1), p=(1, 2), d=(2, 1)), 0.05, 60)), r(Q.conv2d(xq, pk(wca, s=(1, 3), p=(2, 0), d=(1, 2)), 0.05, 60))",
    "groups": "wg = torch.quantize_per_channel(torch.randn(6, 2, 3, 2) * 0.3, sc, torch.zeros(6, dtype=torch.long), 0, torch.qint8); r(Q.conv2d(xq, pk(wg, g=2), 0.05, 60))",
    "depthwise": "wg = torch.quantize_per_tensor(torch.randn(8, 1, 3, 3) * 0.3, 0.004, 0, torch.qint8); r(Q.conv2d(xq, pk(wg, None, p=(1, 1), g=4), 0.02, 128))",
    "depthwise_128_groups_fbgemm": "r(Q.conv2d(xdw, pk(dw, None, p=(1, 1), g=128), 0.02, 128)), r(Q.conv2d_relu(xdw, pk(dw, torch.randn(128), g=128), 0.02, 128))",
    "kernel_1x1": "wg = torch.quantize_per_tensor(torch.randn(5, 4, 1, 1) * 0.3, 0.004, 0, torch.qint8); r(Q.conv2d(xq, pk(wg, None), 0.01, 128))",
    "large_bias": "r(Q.conv2d(xq, pk(w, b * 40), 0.07, 128)), r(Q.conv2d(xq, pk(wa, b * 40), 0.07, 128))",
    "saturating": "r(Q.conv2d(xq, pk(w), 1e-4, 250)), r(Q.conv2d(xq, pk(wa), 1e-4, 0)), r(Q.conv2d(xq, pk(wc), 1e-9, 3))",
    "output_zero_points": "[r(Q.conv2d(xq, pk(wc), 0.05, z)) for z in (0, 255)]",
    # power-of-two scales: outputs exactly halfway between integers round to even
    # oneDNN applies the input's scale, then the weight's (a near-tie: the product of the two scales gives 67, upstream 68)
    "scales_in_turn": "xi = torch.randint(0, 40, (1, 2, 3, 4), dtype=torch.uint8); xi[0, :, 0, 0] = torch.tensor([29, 69], dtype=torch.uint8); wt = torch._make_per_tensor_quantized_tensor(torch.tensor([100, 1], dtype=torch.int8).view(1, 2, 1, 1), 0.0046, 0); r(Q.conv2d(torch._make_per_tensor_quantized_tensor(xi, 0.0324, 0), pk(wt, None), 0.059, 60))",
    "ties": "wt = torch._make_per_tensor_quantized_tensor(torch.randint(-20, 20, (6, 4, 3, 3), dtype=torch.int8), 0.5, 0); xt = torch._make_per_tensor_quantized_tensor(torch.randint(0, 256, (1, 4, 12, 12), dtype=torch.uint8), 0.5, 128); r(Q.conv2d(xt, pk(wt, torch.full((6,), 0.25), p=(1, 1)), 64.0, 100)), r(Q.conv2d(xt, pk(wt, None), 64.0, 100))",
    "channels_last_input": "r(Q.conv2d(xq.contiguous(memory_format=torch.channels_last), pk(wc), 0.05, 60))",
    "noncontiguous_input": "r(Q.conv2d(xq[:, :, ::2], pk(wca), 0.05, 60))",
    # a dilated kernel wider than the input, the output size truncating to 1 (stride 2): both kernels run it
    "kernel_wider_than_input": "xs = torch.quantize_per_tensor(torch.randn(1, 4, 4, 5), 0.05, 100, torch.quint8); r(Q.conv2d(xs, pk(wc, s=(2, 1), d=(2, 2)), 0.05, 60)), r(Q.conv2d(xs, pk(wca, s=(2, 1), d=(2, 2)), 0.05, 60)), r(Q.conv2d(xs, pk(wa, None, s=(3, 3), d=(3, 3)), 0.05, 60))",
    "empty_batch": "r(Q.conv2d(torch.quantize_per_tensor(torch.randn(0, 4, 9, 8), 0.03, 110, torch.quint8), pk(w), 0.05, 60))",
    "empty_output": "r(Q.conv2d(torch.quantize_per_tensor(torch.randn(1, 4, 2, 2), 0.03, 110, torch.quint8), pk(w), 0.05, 60))",
    "_quantized_namespace": "r(torch.ops._quantized.conv2d(xq, pk(w), 0.05, 60)), r(torch.ops._quantized.conv2d_relu(xq, pk(wc), 0.05, 60))",
    "conv1d": "x1 = torch.quantize_per_tensor(torch.randn(2, 4, 11), 0.03, 110, torch.quint8); p1 = Q.conv1d_prepack(torch.quantize_per_channel(torch.randn(5, 4, 3) * 0.3, sc[:5], torch.zeros(5, dtype=torch.long), 0, torch.qint8), b[:5], [2], [1], [1], 1); r(Q.conv1d(x1, p1, 0.05, 60)), r(Q.conv1d_relu(x1, p1, 0.05, 60)), state(p1), wd(Q.conv1d_unpack(p1)[0])",
    "err_dense_input": "Q.conv2d(x, pk(w), 0.05, 60)",
    "err_qint8_input": "Q.conv2d(torch.quantize_per_tensor(x, 0.03, 0, torch.qint8), pk(w), 0.05, 60)",
    "err_qint8_input_fbgemm": "Q.conv2d(torch.quantize_per_tensor(x, 0.03, 0, torch.qint8), pk(wa), 0.05, 60)",
    "err_3d_input": "Q.conv2d(xq[0], pk(w), 0.05, 60)",
    "err_3d_input_fbgemm": "Q.conv2d(xq[0], pk(wa), 0.05, 60)",
    "err_channels": "Q.conv2d(xq[:, :3], pk(w), 0.05, 60)",
    "err_channels_fbgemm": "Q.conv2d(xq[:, :3], pk(wa), 0.05, 60)",
    "err_groups_fbgemm": "Q.conv2d(xq, pk(wa, g=4), 0.05, 60)",
    "err_small_input_fbgemm": "Q.conv2d(torch.quantize_per_tensor(torch.randn(1, 4, 2, 2), 0.03, 110, torch.quint8), pk(wa), 0.05, 60)",
    "err_negative_output": "Q.conv2d(torch.quantize_per_tensor(torch.randn(1, 4, 1, 5), 0.03, 110, torch.quint8), pk(w), 0.05, 60)",
    "err_double_bias_fbgemm": "Q.conv2d(xq, pk(wa, b.double()), 0.05, 60)",
    "err_per_channel_input": "Q.conv2d(torch.quantize_per_channel(x, torch.ones(2).double(), torch.zeros(2, dtype=torch.long), 0, torch.quint8), pk(w), 0.05, 60)",
    "err_not_packed": "Q.conv2d(xq, w, 0.05, 60)",
}, setup=SETUP)

cases("qconv2d_prepack", {
    "unpack_per_tensor": "wt, bias = Q.conv2d_unpack(pk(w)); wd(wt), bias",
    "unpack_per_channel": "wt, bias = pk(wc).unpack(); wd(wt), bias",
    "unpack_fbgemm": "wd(pk(wa).unpack()[0]), wd(pk(wca).unpack()[0]), wd(Q.conv_unpack(pk(wca))[0])",
    "unpack_bias_identity": "p = pk(wc); p.unpack()[1] is b, p.bias() is b, p.unpack()[0] is p.unpack()[0]",
    "getters": "p = pk(wc, s=(2, 1), p=(1, 0), d=(1, 2), g=1); p.stride(), p.padding(), p.dilation(), p.groups(), p.transpose(), p.output_padding(), wd(p.weight())",
    "getter_ops": "p = pk(wc, s=(2, 1), p=(1, 0), d=(1, 2)); Q.conv2d_stride(p), Q.conv2d_padding(p), Q.conv2d_dilation(p), Q.conv2d_groups(p), Q.conv2d_transpose(p), Q.conv2d_output_padding(p)",
    "methods": "p = pk(w); p._method_names(), p._has_method('stride'), str(p), isinstance(p, torch.ScriptObject)",
    "getstate": "state(pk(w)), state(pk(wca, None, s=(2, 2), p=(1, 1), g=1))",
    "setstate": "o = torch.ScriptObject.__new__(torch.ScriptObject); o.__setstate__(pk(wc).__getstate__()); r(Q.conv2d(xq, o, 0.05, 60)), state(o)",
    "pickle": "o = pickle.loads(pickle.dumps(pk(wca, s=(1, 2)))); r(Q.conv2d(xq, o, 0.05, 60)), state(o)",
    "deepcopy": "p = pk(wc); o = copy.deepcopy(p); r(Q.conv2d(xq, o, 0.05, 60)), o.bias() is b",
    "double_bias_kept": "pk(wc, b.double()).bias().dtype",
    "_quantized_and_conv_prepack": "state(torch.ops._quantized.conv2d_prepack(wc, b, [1, 1], [0, 0], [1, 1], 1)), state(Q.conv_prepack(wc, b, [1, 1], [0, 0], [1, 1], 1))",
    "err_dense_weight": "pk(wf)",
    "err_3d_weight": "pk(w[0])",
    "err_stride_len": "Q.conv2d_prepack(w, b, [1], [0, 0], [1, 1], 1)",
    "err_padding_len": "Q.conv2d_prepack(w, b, [1, 1], [0], [1, 1], 1)",
    "err_dilation_len": "Q.conv2d_prepack(w, b, [1, 1], [0, 0], [1], 1)",
    "err_stride_zero": "pk(w, s=(0, 1))",
    "err_bias_size": "pk(w, b[:3])",
    "err_bias_2d": "pk(w, b.reshape(6, 1))",
    "err_linear_params": "Q.conv2d(xq, Q.linear_prepack(torch.quantize_per_tensor(torch.randn(3, 4), 0.1, 0, torch.qint8), None), 0.05, 60)",
    "err_conv_params_to_linear": "Q.linear(torch.quantize_per_tensor(torch.randn(3, 4), 0.1, 0, torch.quint8), pk(w), 0.05, 60)",
}, setup=SETUP)

# quantized conv_transpose2d / conv_transpose1d: the weight is IC x OC/G x KH x KW, per tensor only;
# oneDNN for a symmetric weight without output padding (its weight blocks read double-transposed
# when IC/G != OC/G: `nonsquare`), fbgemm otherwise (`ta`, output padding)
SETUP_T = SETUP + """
xt = torch.quantize_per_tensor(torch.randn(2, 4, 5, 6) * 2, 0.03, 110, torch.quint8)
wtf = torch.randn(4, 6, 3, 3) * 0.3
bt = torch.randn(6)
wt = torch.quantize_per_tensor(wtf, 0.004, 0, torch.qint8)
ta = torch.quantize_per_tensor(wtf, 0.004, 3, torch.qint8)
def pt(wt, bias=bt, s=(1, 1), p=(0, 0), o=(0, 0), d=(1, 1), g=1):
    return Q.conv_transpose2d_prepack(wt, bias, list(s), list(p), list(o), list(d), g)
"""

cases("qconv_transpose2d", {
    "per_tensor": "r(Q.conv_transpose2d(xt, pt(wt), 0.05, 60))",
    "fbgemm": "r(Q.conv_transpose2d(xt, pt(ta), 0.05, 60))",
    "no_bias": "r(Q.conv_transpose2d(xt, pt(wt, None), 0.05, 60)), r(Q.conv_transpose2d(xt, pt(ta, None), 0.05, 60))",
    "stride_padding_dilation": "r(Q.conv_transpose2d(xt, pt(wt, s=(2, 3), p=(1, 2), d=(2, 1)), 0.05, 60)), r(Q.conv_transpose2d(xt, pt(ta, s=(3, 2), p=(2, 0), d=(1, 2)), 0.05, 60))",
    "upsample_2x2_stride_2": "w2 = torch.quantize_per_tensor(torch.randn(4, 6, 2, 2) * 0.3, 0.004, 0, torch.qint8); r(Q.conv_transpose2d(xt, pt(w2, s=(2, 2)), 0.05, 60))",
    "output_padding_fbgemm": "r(Q.conv_transpose2d(xt, pt(wt, s=(2, 2), p=(1, 1), o=(1, 1)), 0.05, 60)), r(Q.conv_transpose2d(xt, pt(ta, s=(3, 2), o=(2, 0)), 0.05, 60))",
    "nonsquare": "w2 = torch.quantize_per_tensor(torch.randn(4, 3, 3, 2) * 0.3, 0.004, 0, torch.qint8); w3 = torch.quantize_per_tensor(torch.randn(4, 16, 3, 3) * 0.3, 0.004, 0, torch.qint8); r(Q.conv_transpose2d(xt, pt(w2, None, s=(2, 1)), 0.05, 60)), r(Q.conv_transpose2d(xt, pt(w3, torch.randn(16), p=(1, 1)), 0.05, 60))",
    "groups": "w2 = torch.quantize_per_tensor(torch.randn(4, 3, 3, 3) * 0.3, 0.004, 0, torch.qint8); r(Q.conv_transpose2d(xt, pt(w2, torch.randn(6), g=2), 0.05, 60)), r(Q.conv_transpose2d(xt, pt(torch.quantize_per_tensor(w2.dequantize(), 0.004, -2, torch.qint8), None, g=2), 0.05, 60))",
    "depthwise": "w2 = torch.quantize_per_tensor(torch.randn(4, 1, 3, 3) * 0.3, 0.004, 0, torch.qint8); r(Q.conv_transpose2d(xt, pt(w2, None, s=(2, 2), g=4), 0.02, 128))",
    "large_bias_saturating": "r(Q.conv_transpose2d(xt, pt(wt, bt * 40), 0.07, 128)), r(Q.conv_transpose2d(xt, pt(ta, bt * 40), 1e-4, 0)), r(Q.conv_transpose2d(xt, pt(wt), 1e-4, 250))",
    "channels_last_input": "r(Q.conv_transpose2d(xt.contiguous(memory_format=torch.channels_last), pt(wt, s=(2, 2)), 0.05, 60))",
    "noncontiguous_input": "r(Q.conv_transpose2d(xt[:, :, ::2], pt(ta), 0.05, 60))",
    "empty_batch": "r(Q.conv_transpose2d(torch.quantize_per_tensor(torch.randn(0, 4, 5, 6), 0.03, 110, torch.quint8), pt(wt), 0.05, 60))",
    "conv2d_op_on_transposed": "r(Q.conv2d(xt, pt(wt, s=(2, 1)), 0.05, 60)), r(torch.ops._quantized.conv_transpose2d(xt, pt(ta), 0.05, 60))",
    "conv_transpose1d": "x1 = torch.quantize_per_tensor(torch.randn(2, 4, 7), 0.03, 110, torch.quint8); p1 = Q.conv_transpose1d_prepack(torch.quantize_per_tensor(torch.randn(4, 5, 3) * 0.3, 0.004, 0, torch.qint8), bt[:5], [2], [1], [0], [1], 1); r(Q.conv_transpose1d(x1, p1, 0.05, 60)), state(p1), wd(Q.conv_transpose1d_unpack(p1)[0])",
    "conv_transpose1d_fbgemm": "x1 = torch.quantize_per_tensor(torch.randn(2, 4, 7), 0.03, 110, torch.quint8); p1 = Q.conv_transpose1d_prepack(torch.quantize_per_tensor(torch.randn(4, 5, 3) * 0.3, 0.004, 1, torch.qint8), None, [2], [1], [1], [2], 1); r(Q.conv_transpose1d(x1, p1, 0.05, 60)), state(p1)",
    "unpack": "wd(pt(wt).unpack()[0]), pt(wt).unpack()[0].stride(), wd(Q.conv_transpose2d_unpack(pt(ta))[0]), Q.conv_transpose2d_unpack(pt(ta))[0].stride(), pt(ta).unpack()[1] is bt",
    "getters": "p = pt(ta, s=(2, 1), p=(1, 0), o=(1, 0), d=(1, 2)); p.stride(), p.padding(), p.output_padding(), p.dilation(), p.groups(), p.transpose(), wd(p.weight())",
    "getter_ops": "p = pt(wt, s=(2, 1), p=(1, 0), d=(1, 2)); Q.conv_transpose2d_stride(p), Q.conv_transpose2d_padding(p), Q.conv_transpose2d_output_padding(p), Q.conv_transpose2d_dilation(p), Q.conv_transpose2d_groups(p), Q.conv_transpose2d_transpose(p), Q.conv2d_transpose(p)",
    "getstate": "state(pt(wt)), state(pt(ta, None, s=(2, 2), p=(1, 1), o=(1, 1)))",
    "setstate_pickle_deepcopy": "o = torch.ScriptObject.__new__(torch.ScriptObject); o.__setstate__(pt(ta, s=(2, 2), o=(1, 0)).__getstate__()); u = pickle.loads(pickle.dumps(pt(wt, s=(2, 1)))); c = copy.deepcopy(pt(wt)); r(Q.conv_transpose2d(xt, o, 0.05, 60)), state(o), r(Q.conv_transpose2d(xt, u, 0.05, 60)), r(Q.conv_transpose2d(xt, c, 0.05, 60))",
    "err_per_channel": "pt(torch.quantize_per_channel(wtf, torch.rand(4).double() * 0.01 + 0.001, torch.zeros(4, dtype=torch.long), 0, torch.qint8))",
    "err_output_padding_len": "Q.conv_transpose2d_prepack(wt, bt, [1, 1], [0, 0], [0], [1, 1], 1)",
    "err_bias_size": "pt(wt, bt[:3])",
    "err_dense_weight": "pt(wtf)",
    "err_dense_input": "Q.conv_transpose2d(xt.dequantize(), pt(wt), 0.05, 60)",
    "err_qint8_input": "Q.conv_transpose2d(torch.quantize_per_tensor(xt.dequantize(), 0.03, 0, torch.qint8), pt(wt), 0.05, 60)",
    "err_qint8_input_fbgemm": "Q.conv_transpose2d(torch.quantize_per_tensor(xt.dequantize(), 0.03, 0, torch.qint8), pt(ta), 0.05, 60)",
    "err_3d_input": "Q.conv_transpose2d(xt[0], pt(wt), 0.05, 60)",
    "err_3d_input_fbgemm": "Q.conv_transpose2d(xt[0], pt(ta), 0.05, 60)",
    "err_channels": "Q.conv_transpose2d(xt[:, :3], pt(wt), 0.05, 60)",
    "err_channels_fbgemm": "Q.conv_transpose2d(xt[:, :3], pt(ta), 0.05, 60)",
    "err_groups_fbgemm": "Q.conv_transpose2d(xt, pt(ta, torch.randn(18), g=3), 0.05, 60)",
    "err_output_size_zero": "Q.conv_transpose2d(xt[:, :, :1, :1], pt(wt, p=(2, 2)), 0.05, 60)",
    "err_negative_padding": "Q.conv_transpose2d(xt, pt(wt, p=(-1, 0)), 0.05, 60)",
}, setup=SETUP_T)

# quantized conv3d (the 2-d reference with a depth; Conv3dPackedParamsBase): oneDNN for a symmetric
# weight (`w3`, `w3c`), fbgemm otherwise (`w3a`, `w3ca`). Not here: fbgemm's depthwise 3-d fast
# path (groups = channels, 3 / 5 / 7 kernels), where upstream corrupts its heap (it aborts or
# segfaults, a later op then or at exit: docs/quant_tensors.md "Convolution 3-d")
SETUP_3D = SETUP + """
x3 = torch.quantize_per_tensor(torch.randn(2, 4, 5, 6, 7) * 2, 0.03, 110, torch.quint8)
w3f = torch.randn(6, 4, 2, 3, 3) * 0.3
w3 = torch.quantize_per_tensor(w3f, 0.004, 0, torch.qint8)
w3a = torch.quantize_per_tensor(w3f, 0.004, 3, torch.qint8)
w3c = torch.quantize_per_channel(w3f, sc, torch.zeros(6, dtype=torch.long), 0, torch.qint8)
w3ca = torch.quantize_per_channel(w3f, sc, torch.randint(-4, 4, (6,)), 0, torch.qint8)
def p3(wt, bias=b, s=(1, 1, 1), p=(0, 0, 0), d=(1, 1, 1), g=1):
    return Q.conv3d_prepack(wt, bias, list(s), list(p), list(d), g)
def err(f):
    try:
        f()
    except RuntimeError as e:
        return str(e)
"""

cases("qconv3d", {
    "per_tensor_per_channel": "r(Q.conv3d(x3, p3(w3), 0.05, 60)), r(Q.conv3d(x3, p3(w3c), 0.05, 60))",
    "fbgemm": "r(Q.conv3d(x3, p3(w3a), 0.05, 60)), r(Q.conv3d(x3, p3(w3ca, None), 0.05, 60))",
    "relu": "r(Q.conv3d_relu(x3, p3(w3c), 0.05, 60)), r(Q.conv3d_relu(x3, p3(w3a), 0.03, 0))",
    "stride_padding_dilation": "r(Q.conv3d(x3, p3(w3c, s=(2, 1, 2), p=(1, 2, 0), d=(2, 1, 2)), 0.05, 60)), r(Q.conv3d(x3, p3(w3ca, s=(1, 3, 1), p=(0, 1, 2), d=(1, 2, 1)), 0.05, 60))",
    "groups": "wg = torch.quantize_per_tensor(torch.randn(6, 2, 1, 3, 2) * 0.3, 0.004, 0, torch.qint8); r(Q.conv3d(x3, p3(wg, g=2), 0.05, 60)), r(Q.conv3d(x3, p3(torch.quantize_per_tensor(wg.dequantize(), 0.004, -2, torch.qint8), None, g=2), 0.05, 60))",
    "depthwise_onednn": "wg = torch.quantize_per_channel(torch.randn(16, 1, 3, 3, 3) * 0.3, torch.rand(16).double() * 0.004 + 0.001, torch.zeros(16, dtype=torch.long), 0, torch.qint8); xg = torch.quantize_per_tensor(torch.randn(1, 8, 4, 5, 6), 0.03, 100, torch.quint8); r(Q.conv3d(xg, p3(wg, None, p=(1, 1, 1), g=8), 0.02, 128))",
    # oneDNN 3-d applies the source and weight scales one after the other: 2969 * 0.0324 * 0.0046
    # / 0.059 + 60 lands on 67.5 only so (the product of the scales first gives 67)
    "scales_in_turn": "xi = torch.randint(0, 40, (1, 2, 2, 3, 4), dtype=torch.uint8); xi[0, :, 0, 0, 0] = torch.tensor([29, 69], dtype=torch.uint8); wt = torch._make_per_tensor_quantized_tensor(torch.tensor([100, 1], dtype=torch.int8).view(1, 2, 1, 1, 1), 0.0046, 0); r(Q.conv3d(torch._make_per_tensor_quantized_tensor(xi, 0.0324, 0), p3(wt, None), 0.059, 60))",
    "saturating_large_bias": "r(Q.conv3d(x3, p3(w3, b * 40), 1e-4, 250)), r(Q.conv3d(x3, p3(w3a, b * 40), 0.07, 128))",
    "channels_last_input": "r(Q.conv3d(x3.contiguous(memory_format=torch.channels_last_3d), p3(w3c), 0.05, 60)), r(Q.conv3d(x3[:, :, :, ::2], p3(w3ca), 0.05, 60))",
    "empty": "r(Q.conv3d(torch.quantize_per_tensor(torch.randn(0, 4, 5, 6, 7), 0.03, 110, torch.quint8), p3(w3), 0.05, 60)), r(Q.conv3d(x3[:, :, :1], p3(w3), 0.05, 60)), r(Q.conv3d(x3[:, :, :0], p3(w3, p=(1, 0, 0)), 0.05, 60)), r(Q.conv3d(x3[:, :, :0], p3(w3a, p=(1, 0, 0)), 0.05, 60))",
    "_quantized_prepack": "r(Q.conv3d(x3, torch.ops._quantized.conv3d_prepack(w3c, b, [1, 1, 1], [0, 0, 0], [1, 1, 1], 1), 0.05, 60))",
    "err_quantized_namespace_conv3d": "torch.ops._quantized.conv3d(x3, p3(w3), 0.05, 60)",
    "unpack_getters": "p = p3(w3ca, s=(2, 1, 1), p=(1, 0, 2), d=(1, 2, 1)); q = p3(w3c); wd(Q.conv3d_unpack(p)[0]), Q.conv3d_unpack(p)[0].stride(), wd(q.unpack()[0]), q.unpack()[0].stride(), p.stride(), p.padding(), p.dilation(), p.groups(), p.transpose(), p.output_padding(), Q.conv3d_stride(p), Q.conv3d_padding(p), Q.conv3d_dilation(p), Q.conv3d_groups(p), Q.conv3d_transpose(p), Q.conv3d_output_padding(p), str(p)",
    "state_both_ways": "o = torch.ScriptObject.__new__(torch.ScriptObject); o.__setstate__(p3(w3ca, s=(1, 2, 1), p=(0, 1, 1)).__getstate__()); c = copy.deepcopy(p3(w3c, None)); state(p3(w3, s=(2, 1, 1))), state(o), r(Q.conv3d(x3, o, 0.05, 60)), r(Q.conv3d(x3, c, 0.05, 60))",
    "module": "m = torch.ao.nn.quantized.Conv3d(4, 6, (2, 3, 3), stride=(1, 2, 1), padding=1, groups=2); m.set_weight_bias(torch.quantize_per_tensor(torch.randn(6, 2, 2, 3, 3) * 0.3, 0.004, 0, torch.qint8), b); m.scale, m.zero_point = 0.05, 60; m2 = torch.ao.nn.quantized.Conv3d(4, 6, (2, 3, 3), stride=(1, 2, 1), padding=1, groups=2); m2.load_state_dict(m.state_dict()); r(m(x3)), r(m2(x3)), sorted(m.state_dict())",
    "err_prepack_lengths": "[err(lambda: Q.conv3d_prepack(w3, b, s, p, d, 1)) for s, p, d in (([1, 1], [0] * 3, [1] * 3), ([1] * 3, [0, 0], [1] * 3), ([1] * 3, [0] * 3, [1, 1]))]",
    "err_4d_weight": "p3(w3[:, :, 0])",
    "err_4d_input": "Q.conv3d(x3[0], p3(w3), 0.05, 60)",
    "err_4d_input_fbgemm": "Q.conv3d(x3[0], p3(w3a), 0.05, 60)",
    "err_channels": "Q.conv3d(x3[:, :3], p3(w3), 0.05, 60)",
    "err_channels_fbgemm": "Q.conv3d(x3[:, :3], p3(w3a), 0.05, 60)",
    "err_small_input_fbgemm": "Q.conv3d(x3[:, :, :1], p3(w3a), 0.05, 60)",
    "err_qint8_input": "Q.conv3d(torch.quantize_per_tensor(x3.dequantize(), 0.03, 0, torch.qint8), p3(w3), 0.05, 60)",
    "err_2d_params_to_conv3d": "Q.conv3d(x3, pk(w), 0.05, 60)",
    "err_3d_params_to_conv2d": "Q.conv2d(xq, p3(w3), 0.05, 60)",
}, setup=SETUP_3D)
