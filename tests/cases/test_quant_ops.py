"""The quantized ops a converted ConvNet runs between its convolutions (src/ops/qops.c,
kernels/ref/qops.c; docs/quant_tensors.md "Quantized ops between the convolutions"):
quantized::add / add_relu / mul / mul_relu / cat / cat_relu / relu6 / max_pool2d, and on quantized
tensors aten's hardtanh, relu6, max_pool2d, avg_pool2d, adaptive_avg_pool2d, cat, flatten, reshape.

Upstream runs these kernels' AVX2 code (registered without the AVX-512 opt-in) even on AVX-512
hosts, and its vectorized loops round differently from their scalar tails (add: the vector body over
whole 64-byte blocks of each contiguous run, the rest scalar; cat / the pools' NHWC kernels: whole
32- and 8-channel groups by the vector formula); the cases hold power-of-two scales (ties) and lengths /
channel counts on both sides of those boundaries. Values are compared to the bit (int_repr, scale,
zero point, shape, strides). The bits are an AVX-512 host's (upstream's vector width decides where
the vector body ends), hence the skip elsewhere. quantized::add of qint32 (qint32_add_cat): whole
16-element blocks by the vector dequantize (fused) and fbgemm's scalar Quantize (the zero point added
in float before rounding: ties and values past 2^24 show it), the rest by the scalar formulas (the
int32 difference q - zp, wrapping); the NHWC cat of qint32 likewise. The model-level comparison is
tests/test_quant_conv_models.py's residual ConvNet."""
import pytest

from harness import cases
from harness.runner import fbgemm_vnni

pytestmark = pytest.mark.skipif(not fbgemm_vnni(), reason="the vector / scalar boundaries are those of upstream's AVX-512 build")

SETUP = """
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
F = torch.nn.functional
def q(shape, s, z, dt=torch.quint8, cl=False, m=4.0):
    t = torch.quantize_per_tensor(torch.randn(shape) * m, s, z, dt)
    return t.contiguous(memory_format=torch.channels_last) if cl else t
def r(t):
    return t.int_repr(), t.q_scale(), t.q_zero_point(), t.dtype, t.shape, t.stride()
a = q((2, 24, 5, 7), 0.05, 120); b = q((2, 24, 5, 7), 0.07, 100)
ap = q((2, 24, 5, 7), 2 ** -4, 120); bp = q((2, 24, 5, 7), 2 ** -3, 100)
acl = q((2, 24, 5, 7), 0.05, 120, cl=True); bcl = q((2, 24, 5, 7), 0.07, 100, cl=True)
i8 = q((2, 24, 5, 7), 0.05, -3, torch.qint8); j8 = q((2, 24, 5, 7), 0.04, 7, torch.qint8)
i32 = q((2, 24, 5, 7), 0.05, -30, torch.qint32); j32 = q((2, 24, 5, 7), 0.04, 70, torch.qint32)
pc = torch.quantize_per_channel(torch.randn(2, 24, 5, 7), torch.rand(2).double() + 0.01, torch.zeros(2, dtype=torch.long), 0, torch.quint8)
f = torch.randn(2, 24, 5, 7)
"""

cases("qadd", {
    "add": "r(Q.add(a, b, 0.09, 110))",
    "add_ties": "r(Q.add(ap, bp, 2 ** -3, 128))",
    "add_relu": "r(Q.add_relu(a, b, 0.09, 110)), r(Q.add_relu(ap, bp, 2 ** -2, 64))",
    "add_many_scales": "[r(Q.add(q((4, 1000), s1, 130), q((4, 1000), s2, 90), so, 120)) for s1, s2, so in ((0.031, 0.047, 0.05), (0.013, 0.029, 0.037), (0.11, 0.07, 0.09))]",
    "add_private": "r(torch.ops._quantized.add(a, b, 0.09, 110))",
    "add_lengths": "[r(Q.add(q((n,), 2 ** -4, 100), q((n,), 2 ** -3, 90), 2 ** -3, 128)) for n in (1, 63, 64, 65, 127, 128, 129, 300)]",
    "add_channels_last": "r(Q.add(acl, bcl, 0.09, 110)), r(Q.add(acl, b, 0.09, 110)), r(Q.add(a, bcl, 0.09, 110))",
    "add_broadcast": "r(Q.add(ap, q((1, 24, 1, 1), 2 ** -3, 100), 2 ** -3, 128)), r(Q.add(ap, q((7,), 2 ** -3, 100), 2 ** -3, 128))",
    "add_strided": "r(Q.add(ap[:, :, :, 1:], bp[:, :, :, :-1], 2 ** -3, 128)), r(Q.add(ap.transpose(2, 3), bp.transpose(2, 3), 2 ** -3, 128))",
    "add_qint8": "r(Q.add(i8, j8, 0.06, 5)), r(Q.add_relu(i8, j8, 0.06, 5))",
    "add_saturate": "r(Q.add(a, b, 0.001, 128)), r(Q.add(a, b, 0.09, 300))",
    "add_empty": "r(Q.add(q((0, 3), 0.1, 3), q((0, 3), 0.1, 3), 0.1, 2))",
    "mul": "r(Q.mul(a, b, 0.3, 100)), r(Q.mul(ap, bp, 2 ** -2, 128))",
    "mul_relu": "r(Q.mul_relu(a, b, 0.3, 100))",
    "mul_types": "r(Q.mul(i8, j8, 0.2, 0)), r(Q.mul(i32, j32, 0.2, 0)), r(Q.mul_relu(i8, j8, 0.2, 3))",
    "mul_broadcast_cl": "r(Q.mul(acl, q((1, 24, 1, 1), 0.02, 100), 0.3, 100)), r(Q.mul(acl, bcl, 0.3, 100))",
    "err_add_dense": "Q.add(f, f, 0.1, 1)",
    "err_add_dense_second": "Q.add(a, f, 0.1, 1)",
    "err_add_dtype": "Q.add(a, i8, 0.1, 1)",
    "err_add_per_channel": "Q.add(pc, a, 0.1, 1)",
    "err_add_scheme": "Q.add(a, pc, 0.1, 1)",
    "err_add_shape": "Q.add(a, q((2, 24, 5, 6), 0.1, 1), 0.1, 1)",
    "err_mul_dtype": "Q.mul(a, i8, 0.1, 1)",
    "err_mul_dense": "Q.mul(a, f, 0.1, 1)",
    "err_mul_per_channel": "Q.mul(pc, a, 0.1, 1)",
}, setup=SETUP)

QI32 = SETUP + """
def qi(shape, lim, s, z):   # raw qint32 values up to +-lim
    return torch._make_per_tensor_quantized_tensor(torch.randint(-lim, lim, shape, dtype=torch.int32), s, z)
"""

cases("qint32_add_cat", {
    "add": "r(Q.add(i32, j32, 0.09, 11))",
    "ties": "[r(Q.add(qi((4, 40), 2 ** 10, 2 ** -3, za), qi((4, 40), 2 ** 10, 2 ** -2, 9), 2 ** -1, zo)) for za, zo in ((0, 0), (-61, 47), (13, -95))]",
    "large": "[r(Q.add(qi((3, 50), lim, 0.37, -61), qi((3, 50), lim, 1.13, 40), 0.71, 47)) for lim in (2 ** 20, 2 ** 25, 2 ** 30)]",
    "relu": "r(Q.add_relu(qi((3, 50), 2 ** 26, 0.37, -61), qi((3, 50), 2 ** 26, 1.13, 40), 0.71, 47))",
    "lengths": "[r(Q.add(qi((n,), 2 ** 22, 2 ** -4, -7), qi((n,), 2 ** 22, 2 ** -3, 5), 2 ** -3, 3)) for n in (1, 15, 16, 17, 31, 32, 33, 100)]",
    "zero_point_wraps": "r(Q.add(qi((40,), 2 ** 31 - 1, 0.5, 2 ** 31 - 1), qi((40,), 2 ** 31 - 1, 0.25, -2 ** 31), 0.75, -2 ** 31 + 5))",
    "saturate": "r(Q.add(qi((40,), 2 ** 31 - 1, 3.0, 0), qi((40,), 2 ** 31 - 1, 3.0, 0), 0.001, 0))",
    "channels_last_broadcast": "r(Q.add(i32.contiguous(memory_format=torch.channels_last), j32, 0.09, 11)), r(Q.add(i32, q((1, 24, 1, 1), 0.04, 70, torch.qint32), 0.09, 11))",
    "strided": "r(Q.add(i32[:, :, :, 1:], j32[:, :, :, :-1], 0.09, 11)), r(Q.add(i32.transpose(2, 3), j32.transpose(2, 3), 0.09, 11))",
    # the NHWC cat's vector groups quantize as add's (quantize_vec<qint32, 32>)
    "cat_nhwc": "[r(Q.cat([qi((2, c, 3, 3), lim, 0.37, -61).contiguous(memory_format=torch.channels_last), qi((2, 5, 3, 3), lim, 0.5, 40).contiguous(memory_format=torch.channels_last)], 1, 0.71, 47)) for c in (7, 8, 17) for lim in (2 ** 10, 2 ** 30)]",
    "cat_nhwc_ties": "r(Q.cat([qi((1, 20, 3, 2), 2 ** 10, 2 ** -4, 3).contiguous(memory_format=torch.channels_last), qi((1, 5, 3, 2), 2 ** 10, 2 ** -3, 9).contiguous(memory_format=torch.channels_last)], 1, 2 ** -3, -13))",
}, setup=QI32)

cases("qcat", {
    "cat_nhwc": "r(Q.cat([acl, bcl], 1, 0.06, 110))",
    "cat_nhwc_ties_channels": "[r(Q.cat([q((1, c, 3, 2), 2 ** -4, 100, cl=True), q((1, 5, 3, 2), 2 ** -3, 90, cl=True)], 1, 2 ** -3, 128)) for c in (3, 16, 17, 33, 64, 65, 90)]",
    "cat_nhwc_many_scales": "[r(Q.cat([q((2, 45, 6, 6), s1, 130, cl=True), q((2, 13, 6, 6), 0.02, 90, cl=True)], 1, so, 120)) for s1, so in ((0.031, 0.047), (0.013, 0.037), (0.11, 0.09))]",
    "cat_nhwc_same_qparams": "r(Q.cat([acl, q((2, 3, 5, 7), 0.05, 120, cl=True)], 1, 0.05, 120))",
    "cat_relu": "r(Q.cat_relu([acl, bcl], 1, 0.06, 110)), r(Q.cat_relu([a, b], 1, 0.06, 110)), r(Q.cat_relu([acl, acl], 1, 0.05, 120))",
    "cat_nchw": "r(Q.cat([a, b], 1, 0.06, 110)), r(Q.cat([ap, bp], 3, 2 ** -3, 128))",
    "cat_other_dims_cl": "r(Q.cat([acl, bcl], 2, 0.06, 110)), r(Q.cat([acl, bcl], -3, 0.06, 110))",
    "cat_default_qparams": "r(Q.cat([a, b], 0, None, None))",
    "cat_types": "r(Q.cat([i8, j8], 1, 0.06, 0)), r(Q.cat([i32, j32], 1, 0.06, 0)), r(Q.cat([i8.contiguous(memory_format=torch.channels_last), j8.contiguous(memory_format=torch.channels_last)], 1, 0.06, 0))",
    "aten_cat": "r(torch.cat([a, a], 1)), r(torch.cat([acl, acl], -3)), r(torch.cat([a, b], 0))",
    "err_cat_dtype": "Q.cat([a, i8], 1, 0.1, 1)",
    "err_cat_scheme": "Q.cat([a, pc], 1, 0.1, 1)",
    "err_cat_dense": "Q.cat([a, f], 1, 0.1, 1)",
    "err_cat_shape": "Q.cat([a, q((2, 24, 4, 7), 0.1, 1)], 1, 0.1, 1)",
    "err_cat_nhwc_shape": "Q.cat([acl, q((2, 24, 4, 7), 0.1, 1, cl=True)], 1, 0.1, 1)",
    "err_cat_nhwc_dtype": "Q.cat([acl, i8.contiguous(memory_format=torch.channels_last)], 1, 0.1, 1)",
    "err_cat_empty": "Q.cat([], 1, 0.1, 1)",
    "err_aten_cat_zero_dim": "torch.cat([q((), 0.1, 1), q((), 0.1, 1)])",
}, setup=SETUP)

cases("qpointwise", {
    "relu6": "r(Q.relu6(a)), r(Q.relu6(acl)), r(Q.relu6(i8)), r(Q.relu6(q((50,), 2 ** -4, 10)))",
    "relu6_inplace": "t = a.clone(); u = Q.relu6(t, True); u is t, r(t)",
    "hardtanh": "r(F.hardtanh(a, -1.3, 2.7)), r(F.hardtanh(i8)), r(F.hardtanh(i32, -0.5, 0.25)), r(F.relu6(acl))",
    "hardtanh_inplace": "t = a.clone(); u = F.hardtanh(t, -0.5, 0.5, inplace=True); u is t, r(t)",
    "flatten_reshape": "r(torch.flatten(a, 1)), r(torch.flatten(acl, 1)), r(a.reshape(48, -1)), r(acl.reshape(-1)), r(torch.flatten(q((), 0.1, 2)))",
    "err_relu6_dense": "Q.relu6(f)",
    "err_relu6_per_channel": "Q.relu6(pc)",
    "err_hardtanh_per_channel": "F.hardtanh(pc)",
}, setup=SETUP)

cases("qpool", {
    "max_pool2d": "r(F.max_pool2d(a, 2)), r(F.max_pool2d(acl, 3, 2, 1)), r(F.max_pool2d(a, (2, 3), (1, 2), (1, 1), (2, 1), ceil_mode=True))",
    "max_pool2d_types_3d": "r(F.max_pool2d(i8, 2)), r(F.max_pool2d(i32, 2)), r(F.max_pool2d(a[0], 3, 1, 1))",
    "max_pool2d_ops": "r(Q.max_pool2d(acl, [2, 2], [2, 2], [0, 0], [1, 1], False)), r(torch.quantized_max_pool2d(a, [3, 3], [], [1, 1]))",
    "max_pool2d_nhwc_1x1_quirk": "r(F.max_pool2d(q((1, 8, 1, 1), 0.1, 3), 2, 1, 1))",
    "err_max_pool2d": "F.max_pool2d(a, 2, padding=2)",
    "err_max_pool2d_rank": "F.max_pool2d(q((1, 2, 3, 4, 4), 0.1, 3), 2)",
    "err_max_pool2d_small": "F.max_pool2d(q((1, 3, 4, 4), 0.1, 3), 9)",
    "err_max_pool2d_per_channel": "F.max_pool2d(pc, 2)",
    "err_max_pool2d_indices": "F.max_pool2d(a, 2, return_indices=True)",
    "avg_pool2d": "r(F.avg_pool2d(a, 2)), r(F.avg_pool2d(a, 3, 2, 1)), r(F.avg_pool2d(a, 3, 2, 1, count_include_pad=False, ceil_mode=True))",
    "avg_pool2d_nhwc": "[r(F.avg_pool2d(q((2, c, 6, 5), 2 ** -4, 100, cl=True), 2, 1, 1, divisor_override=d)) for c, d in ((3, None), (16, None), (40, 3), (130, None))]",
    "avg_pool2d_nhwc_ties": "[r(F.avg_pool2d(q((1, c, 4, 4), 0.05, 101, cl=True), 2, 1)) for c in (8, 16, 40, 48, 72)]",
    "avg_pool2d_types": "r(F.avg_pool2d(i8, 3, 1, 1)), r(F.avg_pool2d(i32, 2)), r(F.avg_pool2d(i8.contiguous(memory_format=torch.channels_last), 3, 1, 1)), r(F.avg_pool2d(a[0], 2))",
    "adaptive_avg_pool2d": "r(F.adaptive_avg_pool2d(a, 1)), r(F.adaptive_avg_pool2d(a, (3, 4))), r(F.adaptive_avg_pool2d(a[0], (2, 2)))",
    "adaptive_avg_pool2d_nhwc": "[r(F.adaptive_avg_pool2d(q((2, c, 7, 6), 0.03, 100, cl=True), o)) for c, o in ((3, 1), (17, (2, 3)), (40, (4, 4)), (130, 1))]",
    "adaptive_avg_pool2d_types": "r(F.adaptive_avg_pool2d(i8, (3, 2))), r(F.adaptive_avg_pool2d(i32.contiguous(memory_format=torch.channels_last), (3, 2)))",
    "err_avg_pool2d_divisor": "F.avg_pool2d(a, 2, divisor_override=0)",
    "err_avg_pool2d_per_channel": "F.avg_pool2d(pc, 2)",
    "avg_pool2d_empty_output": "r(F.avg_pool2d(q((1, 2, 1, 4), 0.1, 3), 3))",
    "err_avg_pool2d_negative": "F.avg_pool2d(q((2, 40, 1, 7), 0.1, 3), (4, 1), 1)",
    "err_adaptive_per_channel": "F.adaptive_avg_pool2d(pc, 1)",
    "err_adaptive_empty": "F.adaptive_avg_pool2d(q((1, 2, 0, 4), 0.1, 3), 1)",
}, setup=SETUP)
