"""Setup code shared by the quantized convolution cases (tests/cases/test_quant_conv.py,
tests/cases/test_quant_conv_dynamic.py). These are strings: a group's `setup=` is prepended to each
snippet, which runs in both sides' workers (harness/case.py), so the cases' modules import the
strings from here rather than from each other (importing a case module would declare its cases a
second time). Nothing here imports torch.

BASE   a seeded float input `x` (2, 4, 9, 8), a float weight `wf` (6, 4, 3, 3) and bias `b`, and
       its quantized forms: `w` per tensor symmetric (upstream's x86 engine: oneDNN), `wa` per tensor
       with zero point 3 (fbgemm), `wc` / `wca` per channel symmetric / asymmetric; `pk(...)`
       prepacks one for quantized::conv2d. The random draws happen in this order (x, wf, b, scales,
       zero points): what a module adds after BASE draws after them.
RESULT `r(q)` a quantized result's observable parts, `wd(q)` a quantized weight's, `state(o)` a
       packed parameters object's __getstate__ with its weight so unpacked.
"""

BASE = """
import copy, pickle, warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
Q = torch.ops.quantized
x = torch.randn(2, 4, 9, 8) * 2
wf = torch.randn(6, 4, 3, 3) * 0.3
b = torch.randn(6)
w = torch.quantize_per_tensor(wf, 0.004, 0, torch.qint8)
wa = torch.quantize_per_tensor(wf, 0.004, 3, torch.qint8)
sc = torch.rand(6).double() * 0.004 + 0.001
wc = torch.quantize_per_channel(wf, sc, torch.zeros(6, dtype=torch.long), 0, torch.qint8)
wca = torch.quantize_per_channel(wf, sc, torch.randint(-4, 4, (6,)), 0, torch.qint8)
def pk(wt, bias=b, s=(1, 1), p=(0, 0), d=(1, 1), g=1):
    return Q.conv2d_prepack(wt, bias, list(s), list(p), list(d), g)
"""

RESULT = """
def r(q):
    return q.int_repr(), q.q_scale(), q.q_zero_point(), q.dtype, q.shape, q.stride()
def wd(q):
    if q.qscheme() == torch.per_tensor_affine:
        return q.int_repr(), q.q_scale(), q.q_zero_point()
    return q.int_repr(), q.q_per_channel_scales(), q.q_per_channel_zero_points(), q.q_per_channel_axis()
def state(o):
    (ver, (cfg, wt), (bias,)), name = o.__getstate__()
    return ver, cfg, wd(wt), bias, name
"""
