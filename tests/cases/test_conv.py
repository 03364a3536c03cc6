"""Golden cases for convolution (src/ops/conv.c on kernels/conv.c; the composites in
autograd/decomp.c): conv1d/2d/3d and conv_transpose1d/2d/3d through every spelling (torch.X,
torch.nn.functional.X, nn.Conv*/nn.ConvTranspose* modules, torch.ops.aten.convolution /
_convolution / convolution_backward / im2col / col2im), padding strings, padding modes, groups,
depthwise, dilation, output_padding, unbatched, empty, non-contiguous and channels_last inputs
(strides compared), dtypes, bad input, F.unfold / F.fold, upstream's ModuleInfo samples, and the
gradients (graph + values). Convolution results are sums of products: values take tol="float"
(the harness's GEMM allowance covers the convolution family); gradient cases use dyadic inputs
(multiples of 1/4), whose sums are exact in any order, or float64."""
from harness import cases
from harness.autograd import F64, grads

SEED = "torch.manual_seed(0)\nF = torch.nn.functional\n"
MSG = """
def msg(f):
    try:
        r = f()
        return ("ok", tuple(r.shape), r.dtype)
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
"""


# ---- forward values: F.convNd over stride / padding / dilation / groups / bias ----
fwd = {}
CONF = [  # (dim, in shape, weight shape, kwargs)
    (1, (2, 4, 9), (6, 4, 3), ""), (1, (2, 4, 9), (6, 2, 2), ", stride=2, padding=1, dilation=2, groups=2"),
    (1, (3, 6, 7), (6, 1, 3), ", padding=1, groups=6"), (1, (1, 3, 5), (2, 3, 5), ", padding=2"),
    (2, (2, 3, 8, 8), (4, 3, 3, 3), ", padding=1"), (2, (2, 4, 9, 7), (6, 2, 3, 2), ", stride=(2, 1), padding=(1, 0), groups=2"),
    (2, (2, 4, 8, 8), (4, 1, 3, 3), ", padding=1, groups=4"), (2, (2, 4, 8, 8), (8, 1, 3, 3), ", padding=2, dilation=2, groups=4"),
    (2, (1, 3, 10, 9), (5, 3, 3, 2), ", stride=3, padding=(2, 1), dilation=(2, 3)"), (2, (2, 5, 6, 6), (7, 5, 1, 1), ""),
    (2, (2, 5, 6, 6), (7, 5, 1, 1), ", stride=2"), (2, (2, 3, 5, 5), (2, 3, 5, 5), ""),
    (3, (1, 2, 5, 6, 4), (3, 2, 3, 2, 2), ", padding=1"), (3, (2, 4, 5, 5, 5), (4, 2, 2, 3, 2), ", stride=(1, 2, 1), padding=(0, 1, 1), dilation=(2, 1, 1), groups=2"),
]
for i, (d, xs, ws, kw) in enumerate(CONF):
    for bias in (False, True):
        b = ", torch.randn(%d)" % ws[0] if bias else ""
        fwd["%dd-%d-%s" % (d, i, "b" if bias else "nob")] = (
            SEED + "result = F.conv%dd(torch.randn%r, torch.randn%r%s%s)" % (d, xs, ws, b, kw))
cases("conv_forward", fwd, tol="float")

# every spelling of the same 2-d convolution
SP = SEED + "x = torch.randn(2, 3, 7, 6); w = torch.randn(4, 3, 3, 2); b = torch.randn(4)\n"
cases("conv_spellings", {
    "torch.conv2d": SP + "result = torch.conv2d(x, w, b, 2, 1, 1, 1)",
    "torch.conv2d-kw": SP + "result = torch.conv2d(input=x, weight=w, bias=b, stride=(1, 2), padding=(0, 1), dilation=(2, 1))",
    "F.conv2d": SP + "result = F.conv2d(x, w, b, stride=1, padding=1)",
    "torch.convolution": SP + "result = torch.convolution(x, w, b, [1, 1], [1, 0], [1, 1], False, [0, 0], 1)",
    "aten.convolution": SP + "result = torch.ops.aten.convolution.default(x, w, b, [2], [1], [1], False, [0], 1)",
    "aten.convolution-none": SP + "result = torch.ops.aten.convolution(x, w, None, [1, 2], [0, 1], [1, 1], False, [0, 0], 1)",
    "aten._convolution": SP + "result = torch.ops.aten._convolution.default(x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, False, False, True, True)",
    "torch._convolution-deprecated": SP + "result = torch.ops.aten._convolution.deprecated(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True)",
    "aten._convolution_mode": SP + "result = torch.ops.aten._convolution_mode(x, w, b, [1, 1], 'same', [1, 1], 1)",
    "aten.conv2d": SP + "result = torch.ops.aten.conv2d.default(x, w, b, [1, 1], [1, 1])",
    "aten.conv2d.padding": SP + "result = torch.ops.aten.conv2d.padding(x, w, b, [1, 1], 'valid')",
    "aten.conv1d": SP + "result = torch.ops.aten.conv1d.default(x[0], w[:, :, 0], b)",
    "aten.conv1d.padding": SP + "result = torch.ops.aten.conv1d.padding(x[0], w[:, :, 0], b, [1], 'same')",
    "aten.conv3d": SP + "result = torch.ops.aten.conv3d.default(x[None], w[..., None], b, [1], [1])",
    "aten.conv3d.padding": SP + "result = torch.ops.aten.conv3d.padding(x[None], w[..., :1, None], b, [1], 'same')",
    "aten.conv_transpose1d": SP + "result = torch.ops.aten.conv_transpose1d.default(x[:, :, 0], w[:, :, 0].transpose(0, 1), None, [2])",
    "aten.conv_transpose2d": SP + "result = torch.ops.aten.conv_transpose2d.input(x, w.transpose(0, 1), None, [2, 1], [1, 0], [1, 0])",
    "aten.conv_transpose3d": SP + "result = torch.ops.aten.conv_transpose3d.input(x[None], w[..., None].transpose(0, 1), b[:3])",
    "nn.Conv2d": SP + "m = torch.nn.Conv2d(3, 4, (3, 2), stride=(2, 1), padding=1)\nresult = m(x)",
    "nn.Conv1d": SP + "m = torch.nn.Conv1d(3, 5, 2, bias=False)\nresult = m(x[:, :, 0])",
    "nn.Conv3d": SP + "m = torch.nn.Conv3d(3, 2, 2, padding=(1, 0, 1))\nresult = m(x[None])",
    "method-free-function": SP + "result = torch.nn.functional.conv2d(x, w, None, 1, 'same', (2, 1))",
}, tol="float")

# padding strings
pstr = {}
for d, xs, ws in [(1, (2, 3, 7), (4, 3, 4)), (2, (2, 3, 6, 5), (4, 3, 3, 2)), (2, (1, 2, 5, 5), (3, 2, 2, 2)),
                  (3, (1, 2, 4, 5, 3), (2, 2, 2, 3, 1))]:
    for pad in ("same", "valid"):
        for dil in (1, 2):
            pstr["%dd-%s-k%s-d%d" % (d, pad, "x".join(map(str, ws[2:])), dil)] = (
                SEED + "import warnings\nwarnings.simplefilter('ignore')\n"
                "result = F.conv%dd(torch.randn%r, torch.randn%r, torch.randn(%d), padding=%r, dilation=%d)"
                % (d, xs, ws, ws[0], pad, dil))
cases("conv_padding_str", pstr, tol="float")

# transposed convolutions
tr = {}
TCONF = [
    (1, (2, 4, 6), (4, 3, 3), ""), (1, (2, 4, 6), (4, 2, 3), ", stride=2, padding=1, output_padding=1, groups=2"),
    (1, (1, 2, 5), (2, 3, 2), ", stride=3, dilation=2, output_padding=2"),
    (2, (2, 3, 5, 4), (3, 4, 3, 3), ", stride=2, padding=1, output_padding=1"),
    (2, (2, 4, 4, 5), (4, 2, 2, 3), ", stride=(1, 2), padding=(0, 1), groups=2, dilation=(2, 1)"),
    (2, (2, 4, 5, 5), (4, 1, 3, 3), ", padding=1, groups=4"), (2, (1, 3, 4, 4), (3, 2, 1, 1), ", stride=2"),
    (2, (1, 3, 4, 4), (3, 2, 1, 1), ""), (2, (2, 3, 3, 3), (3, 2, 3, 3), ", padding=2"),
    (3, (1, 2, 3, 4, 3), (2, 3, 2, 2, 3), ", stride=(2, 1, 2), padding=(0, 1, 1), output_padding=(1, 0, 0)"),
]
for i, (d, xs, ws, kw) in enumerate(TCONF):
    for bias in (False, True):
        b = ", torch.randn(%d)" % (ws[1] * (2 if "groups=2" in kw else 4 if "groups=4" in kw else 1)) if bias else ""
        tr["%dd-%d-%s" % (d, i, "b" if bias else "nob")] = (
            SEED + "result = F.conv_transpose%dd(torch.randn%r, torch.randn%r%s%s)" % (d, xs, ws, b, kw))
tr["nn.ConvTranspose2d-output_size"] = (SEED + "m = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)\n"
                                        "result = m(torch.randn(2, 3, 4, 4), output_size=(8, 8))")
tr["nn.ConvTranspose1d"] = SEED + "m = torch.nn.ConvTranspose1d(3, 2, 2, stride=2, groups=1)\nresult = m(torch.randn(2, 3, 5))"
tr["nn.ConvTranspose3d"] = SEED + "m = torch.nn.ConvTranspose3d(2, 4, 2, groups=2, bias=False)\nresult = m(torch.randn(1, 2, 3, 2, 3))"
tr["unbatched"] = SEED + "result = F.conv_transpose2d(torch.randn(3, 4, 4), torch.randn(3, 2, 2, 2), stride=2)"
cases("conv_transpose", tr, tol="float")

# padding modes (F.pad in Python, then a convolution without padding)
pm = {}
for mode in ("zeros", "reflect", "replicate", "circular"):
    pm["1d-" + mode] = SEED + "m = torch.nn.Conv1d(2, 3, 3, padding=2, padding_mode=%r)\nresult = m(torch.randn(2, 2, 6))" % mode
    pm["2d-" + mode] = SEED + "m = torch.nn.Conv2d(2, 3, (3, 2), padding=(1, 1), padding_mode=%r)\nresult = m(torch.randn(2, 2, 5, 6))" % mode
    pm["3d-" + mode] = SEED + "m = torch.nn.Conv3d(2, 2, 2, padding=1, padding_mode=%r)\nresult = m(torch.randn(1, 2, 3, 4, 3))" % mode
    pm["same-" + mode] = SEED + "m = torch.nn.Conv2d(2, 3, 3, padding='same', padding_mode=%r)\nresult = m(torch.randn(2, 2, 5, 6))" % mode
cases("conv_padding_mode", pm, tol="float")

# unbatched, empty
cases("conv_shapes", {
    "unbatched-1d": SEED + "result = F.conv1d(torch.randn(3, 7), torch.randn(2, 3, 3), torch.randn(2), padding=1)",
    "unbatched-2d": SEED + "result = F.conv2d(torch.randn(3, 5, 6), torch.randn(2, 3, 3, 3))",
    "unbatched-3d": SEED + "result = F.conv3d(torch.randn(2, 3, 4, 3), torch.randn(2, 2, 2, 2, 2), stride=2)",
    "unbatched-nn": SEED + "result = torch.nn.Conv2d(3, 2, 2)(torch.randn(3, 4, 4))",
    "empty-batch": SEED + "result = F.conv2d(torch.randn(0, 3, 5, 5), torch.randn(2, 3, 3, 3), torch.randn(2))",
    "empty-channels": SEED + "result = F.conv2d(torch.randn(2, 0, 5, 5), torch.randn(4, 0, 3, 3), torch.randn(4))",
    "empty-transposed": SEED + "result = F.conv_transpose2d(torch.randn(0, 3, 3, 3), torch.randn(3, 2, 2, 2))",
    "zero-size-output": SEED + "result = torch.ops.aten.convolution(torch.randn(2, 4, 8, 8), torch.randn(4, 4, 3, 3), None, [1], [5], [1], True, [0], 1)",
    "1x1-kernel-input": SEED + "result = F.conv2d(torch.randn(2, 3, 1, 1), torch.randn(5, 3, 1, 1), torch.randn(5))",
}, tol="float")

# dtypes: float64 / reduced floats / integers (exact small integers) / refusals
DT = SEED + "x = torch.randn(2, 3, 6, 5); w = torch.randn(4, 3, 3, 2); b = torch.randn(4)\n"
dts = {}
for dt in ("float64", "bfloat16", "float16"):
    dts[dt] = DT + "result = F.conv2d(x.to(torch.%s), w.to(torch.%s), b.to(torch.%s), padding=1)" % (dt, dt, dt)
    dts[dt + "-1d"] = DT + "result = F.conv1d(x[:, :, 0].to(torch.%s), w[..., 0].to(torch.%s), stride=2)" % (dt, dt)
    dts[dt + "-transposed"] = DT + "result = F.conv_transpose2d(x.to(torch.%s), w.transpose(0, 1).to(torch.%s), stride=2)" % (dt, dt)
    dts[dt + "-3d"] = DT + "result = F.conv3d(x[None].to(torch.%s), w[:2, :2, None].to(torch.%s))" % (dt, dt)
for dt in ("int64", "int32", "int16", "int8", "uint8"):
    dts[dt] = (DT + "xi = (x * 2).to(torch.%s).abs(); wi = (w * 2).to(torch.%s).abs()\n"
               "result = torch.ops.aten.convolution(xi, wi, None, [1], [1], [1], False, [0], 1)" % (dt, dt))
dts["int64-bias"] = DT + "result = torch.ops.aten.convolution((x * 3).long(), (w * 3).long(), (b * 3).long(), [1], [0], [1], False, [0], 1)"
dts["int64-float-bias"] = DT + "result = torch.ops.aten.convolution((x * 3).long(), (w * 3).long(), b, [1], [0], [1], False, [0], 1)"
dts["int64-transposed"] = DT + "result = torch.ops.aten.convolution((x * 3).long(), (w * 3).long().transpose(0, 1), None, [2], [0], [1], True, [1], 1)"
dts["float64-float32-bias"] = DT + "result = torch.ops.aten.convolution(x.double(), w.double(), b, [1], [0], [1], False, [0], 1)"
dts["float16-float32-bias"] = DT + "result = torch.ops.aten.convolution(x.half(), w.half(), b, [1], [0], [1], False, [0], 1)"
cases("conv_dtypes", dts, tol="float")
cases("conv_dtype_errors", {
    "bool": DT + "result = msg(lambda: torch.ops.aten.convolution(x.bool(), w.bool(), None, [1], [0], [1], False, [0], 1))",
    "f32-f64": DT + "result = msg(lambda: F.conv2d(x, w.double()))",
    "f64-f32": DT + "result = msg(lambda: torch.ops.aten.convolution(x.double(), w, None, [1], [0], [1], False, [0], 1))",
    "long-f32": DT + "result = msg(lambda: torch.ops.aten.convolution(x.long(), w, None, [1], [0], [1], False, [0], 1))",
    "bias-f64": DT + "result = msg(lambda: F.conv2d(x, w, b.double()))",
    "bias-f64-aten": DT + "result = msg(lambda: torch.ops.aten.convolution(x, w, b.double(), [1], [0], [1], False, [0], 1))",
    "bias-bf16-f32": DT + "result = msg(lambda: torch.ops.aten.convolution(x.bfloat16(), w.bfloat16(), b, [1], [0], [1], False, [0], 1))",
    "long-float-bias-conv2d": DT + "result = msg(lambda: F.conv2d(x.long(), w.long(), b))",
}, setup=MSG)

# non-contiguous and channels_last inputs: values and the result's strides
CL = SEED + "x = torch.randn(2, 4, 7, 6); w = torch.randn(5, 4, 3, 3); b = torch.randn(5)\ncl = torch.channels_last\n"
nc = {
    "transposed-input": CL + "result = F.conv2d(x.transpose(2, 3), w, b)",
    "stepped-input": CL + "result = F.conv2d(x[:, :, ::2, 1::2], w, b, padding=1)",
    "expanded-input": CL + "result = F.conv2d(torch.randn(1, 4, 5, 5).expand(3, 4, 5, 5), w)",
    "noncontig-weight": CL + "result = F.conv2d(x, torch.randn(4, 5, 3, 3).transpose(0, 1), b)",
    "sliced-channels": CL + "result = F.conv1d(x[:, 1:3, 0], w[:2, 1:3, 0], padding=1)",
    "cl-input": CL + "result = F.conv2d(x.to(memory_format=cl), w, b)",
    "cl-weight": CL + "result = F.conv2d(x, w.to(memory_format=cl), b, padding=1)",
    "cl-both": CL + "result = F.conv2d(x.to(memory_format=cl), w.to(memory_format=cl))",
    "cl-depthwise": CL + "result = F.conv2d(x.to(memory_format=cl), torch.randn(4, 1, 3, 3), groups=4)",
    "cl-grouped": CL + "result = F.conv2d(x.to(memory_format=cl), w[:4, :2], groups=2, dilation=2)",
    "cl-transposed": CL + "result = F.conv_transpose2d(x.to(memory_format=cl), w.transpose(0, 1), stride=2)",
    "cl-transposed-weight": CL + "result = F.conv_transpose2d(x, w.transpose(0, 1).contiguous().to(memory_format=cl))",
    "cl-f64": CL + "result = F.conv2d(x.double().to(memory_format=cl), w.double())",
    "cl-bf16": CL + "result = F.conv2d(x.bfloat16().to(memory_format=cl), w.bfloat16())",
    "cl-long": CL + "result = F.conv2d((x * 2).long().to(memory_format=cl), (w * 2).long())",
    "cl-sliced": CL + "result = F.conv2d(x.to(memory_format=cl)[:, :, 1:, :], w)",
    "cl3d-f32": CL + "result = F.conv3d(torch.randn(1, 2, 4, 4, 4).to(memory_format=torch.channels_last_3d), torch.randn(3, 2, 2, 2, 2))",
    "cl3d-bf16": CL + "result = F.conv3d(torch.randn(1, 2, 4, 4, 4).bfloat16().to(memory_format=torch.channels_last_3d), torch.randn(3, 2, 2, 2, 2).bfloat16())",
    "cl-module": CL + "m = torch.nn.Conv2d(4, 3, 3).to(memory_format=cl)\nresult = m(x)",
}
cases("conv_layout", nc, tol="float", strides=True)

# bad input: upstream's exception types (messages compared too where ours match)
E = SEED + "x = torch.randn(2, 4, 8, 8); w = torch.randn(4, 4, 3, 3); b = torch.randn(4)\nC = torch.ops.aten.convolution\n"
errs = {
    "channels": "F.conv2d(x, w[:, :2])", "weight-dims": "F.conv2d(x, w[0])", "weight-2d": "C(x, w[0, 0], None, [1], [0], [1], False, [0], 1)",
    "neg-padding": "F.conv2d(x, w, padding=-1)", "zero-stride": "F.conv2d(x, w, stride=0)", "neg-stride": "F.conv1d(x[0], w[..., 0], stride=-1)",
    "groups-not-dividing-in": "F.conv2d(x, w, groups=2)", "zero-groups": "F.conv2d(x, w, groups=0)", "zero-dilation": "F.conv2d(x, w, dilation=0)",
    "neg-dilation": "C(x, w, None, [1], [0], [-1], False, [0], 1)",
    "groups-not-dividing-out": "C(x, w, None, [1], [1], [1], False, [0], 3)", "groups-too-big": "C(x, w, None, [1], [1], [1], False, [0], 8)",
    "input-too-small": "F.conv2d(x[:, :, :2, :2], w)", "input-too-small-dilated": "F.conv1d(x[:, :, 0, :5], w[..., 0], dilation=3)",
    "bias-size": "F.conv2d(x, w, b[:3])", "bias-2d": "C(x, w, torch.randn(4, 1), [1], [1], [1], False, [0], 1)",
    "bias-0d": "C(x, w, torch.tensor(1.), [1], [0], [1], False, [0], 1)",
    "input-dims-conv2d": "F.conv2d(x[0, 0], w)", "input-dims-conv1d": "F.conv1d(torch.randn(3), torch.randn(2, 4, 1))",
    "input-dims-aten": "C(x[0], w, None, [1], [1], [1], False, [0], 1)", "conv3d-on-4d-weight": "F.conv3d(x, w)",
    "padding-len": "F.conv2d(x, w, padding=(1, 1, 1))", "stride-len": "C(x, w, None, [1, 1, 1], [0], [1], False, [0], 1)",
    "stride-empty": "C(x, w, None, [], [0], [1], False, [0], 1)",
    "empty-weight": "F.conv2d(x, w[:0])", "zero-spatial": "C(torch.randn(2, 4, 0, 8), w, None, [1], [0], [1], False, [0], 1)",
    "transposed-channels": "F.conv_transpose2d(x[:, :3], w)", "transposed-bias": "F.conv_transpose2d(x, w, b[:3])",
    "transposed-out-padding": "F.conv_transpose2d(x, w, output_padding=1)",
    "transposed-out-padding-2": "F.conv_transpose2d(x, w, stride=2, output_padding=(1, 2))",
    "transposed-out-padding-1d": "C(x[:, :, 0], w[..., 0], None, [1], [0], [1], True, [1], 1)",
    "transposed-out-padding-3d": "C(torch.randn(2, 4, 4, 4, 4), torch.randn(4, 4, 3, 3, 3), None, [1], [0], [1], True, [1], 1)",
    "transposed-neg-out-padding": "C(x, w, None, [1], [1], [1], True, [-1], 1)",
    "transposed-groups": "C(x, w, None, [1], [1], [1], True, [0], 3)",
    "transposed-input-dims": "F.conv_transpose2d(x[0, 0], w)",
    "same-strided": "F.conv2d(x, w, padding='same', stride=2)", "bad-padding-string": "F.conv2d(x, w, padding='foo')",
    "same-groups": "F.conv2d(x, w, padding='same', groups=3)",
    "mode-stride-len": "torch.ops.aten._convolution_mode(x, w, None, [1, 1, 1], 'same', [1], 1)",
    "mode-dilation-len": "torch.ops.aten._convolution_mode(x, w, None, [1], 'same', [1, 1, 1], 1)",
    "mode-dims": "torch.ops.aten._convolution_mode(x[0], w, None, [1], 'same', [1], 1)",
    "module-channels": "torch.nn.Conv2d(3, 2, 3)(x)",
}
cases("conv_errors", {k: E + "result = msg(lambda: %s)" % v for k, v in errs.items()}, setup=MSG)

# ---- convolution_backward directly: output masks, transposed, groups, layouts ----
B = SEED + "x = torch.randn(2, 4, 7, 6); w = torch.randn(6, 2, 3, 2); go = torch.randn(2, 6, 4, 7)\nCB = torch.ops.aten.convolution_backward\n"
MASKS = ["[True, True, True]", "[True, False, False]", "[False, True, False]", "[True, True, False]",
         "[False, True, True]", "[True, False, True]", "[False, False, True]", "[False, False, False]"]
# f32 with the bias gradient but not the weight's: upstream's oneDNN returns the weight gradient
# too, its float64 re-run (another path) does not, so no GEMM bound: dyadic values, exact sums
BQ = B + "q = lambda t: (t * 4).round() / 4\nx, w, go = q(x), q(w), q(go)\n"
cbw = {}
for dt in ("float32", "float64", "bfloat16"):
    for m in MASKS:
        if dt == "bfloat16" and m not in ("[True, True, True]", "[False, False, True]"):
            continue
        quirk = dt != "float64" and m.startswith(("[True, False, True]", "[False, False, True]"))
        cbw["%s-%s" % (dt, m.replace(" ", ""))] = (
            (BQ if quirk else B) + "result = CB(go.to(torch.{0}), x.to(torch.{0}), w.to(torch.{0}), [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, {1})"
            .format(dt, m))
cbw["no-bias-sizes"] = B + "result = CB(go, x, w, None, [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])"
cbw["transposed"] = (SEED + "x = torch.randn(2, 4, 3, 3); w = torch.randn(4, 3, 3, 2)\n"
                     "go = torch.randn(2, 6, 7, 4)\n"
                     "result = torch.ops.aten.convolution_backward(go, x, w, [6], [2], [1, 0], [1], True, [1, 0], 2, [True, True, True])")
cbw["transposed-f64"] = (SEED + "x = torch.randn(2, 4, 3, 3).double(); w = torch.randn(4, 3, 3, 2).double()\n"
                         "go = torch.randn(2, 6, 7, 4).double()\n"
                         "result = torch.ops.aten.convolution_backward(go, x, w, [6], [2], [1, 0], [1], True, [1, 0], 2, [True, True, True])")
cbw["1d"] = (SEED + "result = torch.ops.aten.convolution_backward(torch.randn(2, 3, 5), torch.randn(2, 4, 7), "
             "torch.randn(3, 4, 3), [3], [1], [0], [1], False, [0], 1, [True, True, True])")
# upstream's oneDNN returns the weight gradient too (4-d for a 1-d convolution); dyadic values:
# its float64 re-run takes another path, so there is no GEMM bound to compare within
cbw["1d-f32-bias-only"] = (SEED + "q = lambda *s: torch.randint(-4, 5, s) / 4\n"
                           "result = torch.ops.aten.convolution_backward(q(2, 3, 5), q(2, 4, 7), "
                           "q(3, 4, 3), [3], [1], [0], [1], False, [0], 1, [False, False, True])")
cbw["3d-dilated"] = (SEED + "result = torch.ops.aten.convolution_backward(torch.randn(1, 2, 2, 3, 2), torch.randn(1, 3, 4, 5, 4), "
                     "torch.randn(2, 3, 2, 2, 2), [2], [1], [0], [2, 1, 2], False, [0], 1, [True, True, True])")
cbw["depthwise"] = (SEED + "result = torch.ops.aten.convolution_backward(torch.randn(2, 4, 5, 5), torch.randn(2, 4, 5, 5), "
                    "torch.randn(4, 1, 3, 3), [4], [1], [1], [1], False, [0], 4, [True, True, True])")
cbw["1x1"] = (SEED + "result = torch.ops.aten.convolution_backward(torch.randn(2, 3, 4, 4), torch.randn(2, 5, 4, 4), "
              "torch.randn(3, 5, 1, 1), [3], [1], [0], [1], False, [0], 1, [True, True, True])")
cbw["int64-bias-only"] = (SEED + "result = torch.ops.aten.convolution_backward((torch.randn(2, 3, 4, 4) * 4).long(), "
                          "torch.ones(2, 5, 4, 4).long(), torch.ones(3, 5, 1, 1).long(), [3], [1], [0], [1], False, [0], 1, [False, False, True])")
for name, (xx, ww, gg) in {"cl-input": ("x.to(memory_format=torch.channels_last)", "w", "go"),
                           "cl-weight": ("x", "w.to(memory_format=torch.channels_last)", "go"),
                           "cl-grad": ("x", "w", "go.to(memory_format=torch.channels_last)")}.items():
    cbw[name] = B + "result = CB(%s, %s, %s, [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])" % (gg, xx, ww)
cases("conv_backward_op", cbw, tol="float", strides=True)

# ---- shapes of the packed-panel paths (kernels/conv.c): the forward builds its columns a block
# of panels at a time (several blocks here), a stride-1 input gradient runs as the forward of a
# flipped weight (dilated, groups, 1-d / 3-d, transposed stride 1), and the fallbacks (stride 2,
# padding past the kernel's reach) ----
LG = SEED + "CB = torch.ops.aten.convolution_backward\n"
ALL = "[True, True, True]"
large = {
    "3x3-blocks": "CB(torch.randn(2, 24, 20, 21), torch.randn(2, 40, 20, 21), torch.randn(24, 40, 3, 3), [24], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, %s)",
    "3x3-rows-tail": "CB(torch.randn(3, 13, 9, 11), torch.randn(3, 7, 9, 11), torch.randn(13, 7, 3, 3), [13], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, %s)",
    "dilated-stride1": "CB(torch.randn(2, 6, 8, 7), torch.randn(2, 5, 12, 11), torch.randn(6, 5, 3, 3), [6], [1, 1], [0, 0], [2, 2], False, [0, 0], 1, %s)",
    "pad-past-reach": "CB(torch.randn(2, 6, 14, 13), torch.randn(2, 5, 10, 9), torch.randn(6, 5, 3, 3), [6], [1, 1], [3, 3], [1, 1], False, [0, 0], 1, %s)",
    "groups-asym": "CB(torch.randn(2, 8, 9, 6), torch.randn(2, 6, 9, 8), torch.randn(8, 3, 3, 5), [8], [1, 1], [1, 2], [1, 1], False, [0, 0], 2, %s)",
    "stride2": "CB(torch.randn(2, 16, 8, 8), torch.randn(2, 12, 16, 16), torch.randn(16, 12, 3, 3), [16], [2, 2], [1, 1], [1, 1], False, [0, 0], 1, %s)",
    "1d": "CB(torch.randn(3, 10, 70), torch.randn(3, 9, 70), torch.randn(10, 9, 5), [10], [1], [2], [1], False, [0], 1, %s)",
    "3d": "CB(torch.randn(2, 4, 5, 6, 7), torch.randn(2, 3, 5, 6, 7), torch.randn(4, 3, 3, 3, 3), [4], [1], [1], [1], False, [0], 1, %s)",
    "transposed-stride1": "CB(torch.randn(2, 5, 12, 11), torch.randn(2, 6, 10, 9), torch.randn(6, 5, 3, 3), [5], [1, 1], [0, 0], [1, 1], True, [0, 0], 1, %s)",
}
cases("conv_panels", {k: LG + "result = " + v % ALL for k, v in large.items()} | {
    "fwd-3x3-blocks": SEED + "result = F.conv2d(torch.randn(2, 40, 20, 21), torch.randn(24, 40, 3, 3), torch.randn(24), padding=1)",
    "fwd-strided-blocks": SEED + "result = F.conv2d(torch.randn(2, 40, 33, 30), torch.randn(13, 40, 3, 3), stride=(2, 3), padding=(1, 0))",
    "fwd-transposed-stride1": SEED + "result = F.conv_transpose2d(torch.randn(2, 6, 10, 9), torch.randn(6, 5, 3, 3), torch.randn(5))",
    "fwd-transposed-dilated": SEED + "result = F.conv_transpose2d(torch.randn(2, 6, 10, 9), torch.randn(6, 5, 3, 3), dilation=2, padding=1)",
}, tol="float")
ETYPE = """
def etype(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return type(e).__name__
"""
cases("conv_backward_errors_type", {   # upstream's messages here come from oneDNN internals
    "dtype-mismatch": B + "result = etype(lambda: CB(go.double(), x, w, [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])[0])",
    "grad-shape": B + "result = etype(lambda: CB(go[:, :, :3], x, w, [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, True, True])[0])",
}, setup=ETYPE)
cases("conv_backward_errors", {
    "int-grad-input": B + "result = msg(lambda: CB(go.long(), x.long(), w.long(), [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [True, False, False])[0])",
    "int-grad-weight": B + "result = msg(lambda: CB(go.long(), x.long(), w.long(), [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 2, [False, True, False])[1])",
    "neg-padding": B + "result = msg(lambda: CB(go, x, w, [6], [2, 1], [-1, 1], [1, 1], False, [0, 0], 2, [True, True, True])[0])",
    "channels": B + "result = msg(lambda: CB(go, x, w, [6], [2, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])[0])",
}, setup=MSG)

# ---- F.unfold / F.fold (im2col / col2im) ----
U = SEED + "x = torch.randn(2, 3, 7, 6)\n"
cases("conv_unfold_fold", {
    "unfold": U + "result = F.unfold(x, 3)",
    "unfold-params": U + "result = F.unfold(x, (2, 3), dilation=(2, 1), padding=(1, 2), stride=(2, 3))",
    "unfold-unbatched": U + "result = F.unfold(x[0], 2, stride=2)",
    "unfold-cl": U + "result = F.unfold(x.to(memory_format=torch.channels_last), 3, padding=1)",
    "unfold-noncontig": U + "result = F.unfold(x.transpose(2, 3), 2)",
    "unfold-f64": U + "result = F.unfold(x.double(), 2)", "unfold-bf16": U + "result = F.unfold(x.bfloat16(), 2, padding=1)",
    "unfold-f16": U + "result = F.unfold(x.half(), 3)", "unfold-empty-batch": U + "result = F.unfold(x[:0], 2)",
    "unfold-bool": U + "result = F.unfold(x > 0, 2, padding=1)",
    "unfold-complex": U + "result = F.unfold(torch.complex(x, -x.flip(3)), 3, padding=(1, 0), stride=2)",
    "unfold-complex128-conj": U + "result = F.unfold(torch.complex(x.double(), x.flip(2).double()).conj(), 2)",
    "aten-im2col": U + "result = torch.ops.aten.im2col(x, [2, 2], [1, 1], [0, 0], [1, 1])",
    "nn.Unfold": U + "result = torch.nn.Unfold(2, padding=1)(x)",
    "fold": U + "result = F.fold(torch.randn(2, 27, 20), (6, 7), 3, padding=1, stride=2)",
    "fold-unbatched": U + "result = F.fold(torch.randn(12, 12), (4, 5), 2)",
    "fold-overlap": U + "result = F.fold(torch.randn(2, 18, 30), (7, 6), (3, 2), dilation=1)",
    "fold-params": U + "result = F.fold(torch.randn(1, 8, 6), (5, 6), 2, dilation=2, padding=1, stride=(2, 2))",
    "fold-noncontig": U + "result = F.fold(torch.randn(2, 30, 12).transpose(1, 2), (6, 7), 2)",
    "fold-f64": U + "result = F.fold(torch.randn(2, 12, 20).double(), (5, 6), 2)",
    "fold-bf16": U + "result = F.fold(torch.randn(2, 12, 20).bfloat16(), (5, 6), 2)",
    "aten-col2im": U + "result = torch.ops.aten.col2im(torch.randn(2, 12, 20), [5, 6], [2, 2], [1, 1], [0, 0], [1, 1])",
    "nn.Fold": U + "result = torch.nn.Fold((5, 6), 2)(torch.randn(2, 12, 20))",
    "roundtrip": U + "result = F.fold(F.unfold(x, 3, padding=1), (7, 6), 3, padding=1)",
}, tol="float")
cases("conv_unfold_fold_errors", {
    "unfold-long": U + "result = msg(lambda: F.unfold(x.long(), 2))",
    "unfold-stride0": U + "result = msg(lambda: F.unfold(x, 2, stride=0))",
    "unfold-kernel0": U + "result = msg(lambda: torch.ops.aten.im2col(x, [0, 2], [1, 1], [0, 0], [1, 1]))",
    "unfold-dilation0": U + "result = msg(lambda: F.unfold(x, 2, dilation=0))",
    "unfold-neg-padding": U + "result = msg(lambda: torch.ops.aten.im2col(x, [2, 2], [1, 1], [-1, 0], [1, 1]))",
    "unfold-too-big": U + "result = msg(lambda: F.unfold(x, 10))",
    "unfold-2d": U + "result = msg(lambda: torch.ops.aten.im2col(x[0, 0], [2, 2], [1, 1], [0, 0], [1, 1]))",
    "unfold-zero-channel": U + "result = msg(lambda: F.unfold(x[:, :0], 2))",
    "fold-divisible": U + "result = msg(lambda: F.fold(torch.randn(2, 26, 36), (8, 8), 3))",
    "fold-blocks": U + "result = msg(lambda: F.fold(torch.randn(2, 27, 35), (8, 8), 3))",
    "fold-long": U + "result = msg(lambda: F.fold(torch.ones(2, 4, 4).long(), (3, 3), 2))",
    "fold-4d": U + "result = msg(lambda: torch.ops.aten.col2im(torch.randn(1, 2, 4, 4), [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]))",
    "fold-output0": U + "result = msg(lambda: torch.ops.aten.col2im(torch.randn(1, 4, 4), [0, 3], [2, 2], [1, 1], [0, 0], [1, 1]))",
}, setup=MSG)

# ---- upstream's ModuleInfo samples (torch.testing._internal.common_modules.module_db) ----
MODS = """
from torch.testing._internal.common_modules import module_db
def run_samples(name, dtype):
    info = [m for m in module_db if m.name == name][0]
    torch.manual_seed(0)
    samples = info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=False, training=False)
    out = []
    for s in samples:
        torch.manual_seed(1)
        m = info.module_cls(*s.constructor_input.args, **s.constructor_input.kwargs).to(dtype)
        out.append(m(*s.forward_input.args, **s.forward_input.kwargs))
    return out
"""
mods = {}
for name in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
    for dt in ("float32", "float64"):
        mods["%s-%s" % (name, dt)] = MODS + "result = run_samples('nn.%s', torch.%s)" % (name, dt)
cases("conv_module_db", mods, tol="float")

# ---- gradients: graph and values ----
# dyadic leaves (multiples of 1/4): every sum of their products is exact in any order, so f32
# gradients compare exactly; weights of the loss likewise dyadic
DY = """
def dy(*shapes, dtype=None):
    torch.manual_seed(0)
    return [(torch.randint(-4, 5, s, dtype=torch.float32) / 4).to(dtype or torch.float32).requires_grad_() for s in shapes]
def dyw(shape):
    torch.manual_seed(1)
    return torch.randint(-3, 4, shape) / 2
F = torch.nn.functional
"""
g = {
    "conv2d-bias": "ps = dy((2, 3, 6, 5), (4, 3, 3, 2), (4,))\nout = F.conv2d(ps[0], ps[1], ps[2], padding=1) * dyw((2, 4, 6, 6))",
    "conv2d-nobias": "ps = dy((2, 3, 6, 5), (4, 3, 3, 2))\nout = F.conv2d(ps[0], ps[1], stride=2) * dyw((2, 4, 2, 2))",
    "conv2d-groups-dil": "ps = dy((2, 4, 7, 7), (6, 2, 3, 3), (6,))\nout = F.conv2d(ps[0], ps[1], ps[2], padding=2, dilation=2, groups=2) * dyw((2, 6, 7, 7))",
    "conv2d-depthwise": "ps = dy((2, 4, 5, 5), (4, 1, 3, 3))\nout = F.conv2d(ps[0], ps[1], groups=4, padding=1) * dyw((2, 4, 5, 5))",
    "conv2d-1x1": "ps = dy((2, 5, 4, 4), (3, 5, 1, 1), (3,))\nout = F.conv2d(ps[0], ps[1], ps[2]) * dyw((2, 3, 4, 4))",
    "conv1d": "ps = dy((2, 3, 9), (2, 3, 4), (2,))\nout = F.conv1d(ps[0], ps[1], ps[2], stride=2, padding=1) * dyw((2, 2, 4))",
    "conv3d": "ps = dy((1, 2, 4, 5, 4), (3, 2, 2, 3, 2), (3,))\nout = F.conv3d(ps[0], ps[1], ps[2], padding=(1, 0, 1)) * dyw((1, 3, 5, 3, 5))",
    "conv-input-only": "ps = dy((2, 3, 5, 5))\nw = dyw((4, 3, 3, 3))\nout = F.conv2d(ps[0], w, padding=1) * dyw((2, 4, 5, 5))",
    "conv-weight-only": "ps = dy((4, 3, 3, 3))\nx = dyw((2, 3, 5, 5))\nout = F.conv2d(x, ps[0]) * dyw((2, 4, 3, 3))",
    "conv-bias-only": "ps = dy((4,))\nout = F.conv2d(dyw((2, 3, 5, 5)), dyw((4, 3, 3, 3)), ps[0]) * dyw((2, 4, 3, 3))",
    "unbatched": "ps = dy((3, 6, 5), (4, 3, 3, 3), (4,))\nout = F.conv2d(ps[0], ps[1], ps[2]) * dyw((4, 4, 3))",
    "same-even": "import warnings\nwarnings.simplefilter('ignore')\nps = dy((2, 3, 6, 5), (4, 3, 2, 2), (4,))\nout = F.conv2d(ps[0], ps[1], ps[2], padding='same') * dyw((2, 4, 6, 5))",
    "valid": "ps = dy((2, 3, 6, 5), (4, 3, 2, 2))\nout = F.conv2d(ps[0], ps[1], padding='valid') * dyw((2, 4, 5, 4))",
    "transpose2d": "ps = dy((2, 4, 3, 4), (4, 3, 3, 2), (3,))\nout = F.conv_transpose2d(ps[0], ps[1], ps[2], stride=2, padding=1, output_padding=1) * dyw((2, 3, 6, 7))",
    "transpose-groups": "ps = dy((2, 4, 3, 3), (4, 2, 2, 2), (4,))\nout = F.conv_transpose2d(ps[0], ps[1], ps[2], groups=2, dilation=2) * dyw((2, 4, 5, 5))",
    "transpose1d": "ps = dy((2, 3, 5), (3, 2, 3))\nout = F.conv_transpose1d(ps[0], ps[1], stride=3) * dyw((2, 2, 15))",
    "transpose3d": "ps = dy((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,))\nout = F.conv_transpose3d(ps[0], ps[1], ps[2]) * dyw((1, 2, 3, 4, 3))",
    "channels-last": ("ps = dy((2, 3, 5, 5), (4, 3, 3, 3), (4,))\n"
                      "ps[0] = ps[0].detach().to(memory_format=torch.channels_last).requires_grad_()\n"
                      "out = F.conv2d(ps[0], ps[1], ps[2]) * dyw((2, 4, 3, 3))"),
    "two-layers": ("ps = dy((2, 3, 6, 6), (4, 3, 3, 3), (4,), (2, 4, 3, 3))\n"
                   "out = F.conv2d(F.conv2d(ps[0], ps[1], ps[2], padding=1).relu(), ps[3], stride=2) * dyw((2, 2, 2, 2))"),
    "reuse-weight": "ps = dy((2, 2, 5, 5), (2, 2, 3, 3))\nout = F.conv2d(F.conv2d(ps[0], ps[1], padding=1), ps[1]) * dyw((2, 2, 3, 3))",
    "unfold": "ps = dy((2, 3, 5, 4))\nout = F.unfold(ps[0], 2, padding=1, stride=(1, 2)) * dyw((2, 12, 18))",
    "fold": "ps = dy((2, 12, 12))\nout = F.fold(ps[0], (5, 4), 2) * dyw((2, 3, 5, 4))",
    "_convolution": ("ps = dy((2, 3, 5, 5), (4, 3, 3, 3), (4,))\n"
                     "out = torch.ops.aten._convolution(ps[0], ps[1], ps[2], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True) * dyw((2, 4, 5, 5))"),
}
# circular is left out: autograd through aten::_pad_circular refuses by name (the pad family's)
for mode in ("reflect", "replicate", "zeros"):
    g["module-" + mode] = ("ps = dy((2, 2, 5, 4))\nm = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode=%r)\n"
                           "with torch.no_grad():\n    m.weight.copy_(dyw((3, 2, 3, 3))); m.bias.copy_(dyw((3,)))\n"
                           "ps = ps + [m.weight, m.bias]\nout = m(ps[0]) * dyw((2, 3, 5, 4))" % mode)
# double backward (ConvolutionBackwardBackward0): the first-order gradients with create_graph,
# weighted, then backpropagated
DB = """
gs = torch.autograd.grad((y * dyw(y.shape)).sum(), ps, create_graph=True)
out = sum((t * dyw(t.shape)).sum() for t in gs)
"""
g["double-conv2d"] = "ps = dy((2, 3, 5, 5), (4, 3, 3, 3), (4,))\ny = F.conv2d(ps[0], ps[1], ps[2], padding=1, stride=2)" + DB
g["double-groups"] = "ps = dy((2, 4, 5, 4), (6, 2, 2, 3))\ny = F.conv2d(ps[0], ps[1], groups=2, dilation=(2, 1))" + DB
g["double-transposed"] = "ps = dy((2, 4, 3, 3), (4, 2, 2, 2), (2,))\ny = F.conv_transpose2d(ps[0], ps[1], ps[2], stride=2)" + DB
g["double-conv1d"] = "ps = dy((2, 3, 6), (2, 3, 3), (2,))\ny = F.conv1d(ps[0], ps[1], ps[2], padding=1)" + DB
g["double-input-only"] = "ps = dy((2, 3, 5, 5))\nw = dy((4, 3, 3, 3))[0]\ny = F.conv2d(ps[0], w)" + DB
grads("conv_grads", {k: DY + v for k, v in g.items()})
g64 = {
    "conv2d": "ps = leaves((2, 3, 6, 5), (4, 3, 3, 2), (4,), dtype=torch.float64)\nout = F.conv2d(ps[0], ps[1], ps[2], padding=1, stride=(2, 1))",
    "transpose2d": "ps = leaves((2, 4, 3, 4), (4, 2, 3, 2), (4,), dtype=torch.float64)\nout = F.conv_transpose2d(ps[0], ps[1], ps[2], stride=2, groups=2)",
    "conv3d": "ps = leaves((1, 2, 4, 3, 4), (2, 2, 2, 2, 2), dtype=torch.float64)\nout = F.conv3d(ps[0], ps[1], dilation=(1, 2, 1))",
}
grads("conv_grads_f64", {k: "F = torch.nn.functional\n" + v for k, v in g64.items()}, tol=F64)
