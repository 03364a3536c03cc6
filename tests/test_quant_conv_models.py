"""Static quantization of ConvNets end to end against upstream (docs/quant_tensors.md "Static
convolution"): torch.ao.quantization prepare / calibrate / convert of seeded float models on both
torches (tests/qconv_worker.py):
- conv_x86: QuantStub, Conv2d + BatchNorm2d + ReLU (fused, the norm folded into the conv), a
  strided depthwise Conv2d + ReLU (fused), a 1x1 Conv2d, DeQuantStub; x86's default qconfig
  (per-channel symmetric weights, reduce_range activations): every conv on upstream's oneDNN path;
- conv_per_tensor: the same under default_qconfig (per-tensor weights);
- depthwise128: a 128-group depthwise conv, which upstream's x86 engine runs on fbgemm's depthwise
  kernel (int16 pair sums), between two oneDNN convs;
- residual_x86 / residual_per_tensor: the usual ConvNet shape, conv-bn-relu (fused), max_pool2d, a
  residual block with FloatFunctional.add_relu as its skip, FloatFunctional add / mul / cat, ReLU6,
  Hardtanh, avg_pool2d, adaptive_avg_pool2d, flatten, Linear (src/ops/qops.c between the convs);
- decoder_per_tensor: conv + relu, a strided conv, ConvTranspose2d upsampling (2x2, stride 2) +
  relu and a 3x3 ConvTranspose2d, under default_qconfig (per-channel weights are refused for
  transposed convs upstream): the transposed convs on upstream's oneDNN path.

Checked:
- every conv's unpacked weight (integers, scales, zero points) and bias identical to upstream's;
- the output scales / zero points the observers chose: identical, or (where a float conv's output
  extreme differs from upstream's mkldnn conv in its last bit during calibration: measured on one
  module per model, scales 1 float ulp apart, relative 7.1e-8) the scale within 1e-6 relative and
  the zero point equal;
- outputs: bit-identical when every output scale / zero point is upstream's; otherwise within one
  output quantum (the calibration difference above, not the kernels);
- the kernels alone, bit for bit: a state_dict saved by one torch, loaded into the other's
  converted model: output bit-identical to the saving side's, both ways;
- print(model) identical but for the scale digits of such a module.
Whole pickled models are not compared: upstream's own quantized conv modules fail after
unpickling (their __setstate__ leaves out _backward_hooks), measured.
"""
import os
import re

import numpy as np
import pytest

from harness import crossload
from harness.runner import fbgemm_vnni

pytestmark = pytest.mark.skipif(not fbgemm_vnni(), reason="upstream's x86 engine runs oneDNN convolutions only on "
                                "AVX-512 VNNI hosts (elsewhere fbgemm with int16-saturating sums): these bits are the VNNI host's")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "qconv_worker.py")
REF = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
MODELS = ("conv_x86", "conv_per_tensor", "depthwise128", "residual_x86", "residual_per_tensor", "decoder_per_tensor")


@pytest.fixture(scope="module")
def runs():
    if not os.path.exists(REF):
        pytest.skip("upstream environment .venv-ref missing")
    return crossload.runs(WORKER)


def _identical(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def _keys(runs, model, qparams):
    ref, sub = runs["ref"], runs["sub"]
    keys = sorted(k for k in ref if k.startswith(model + ".") and k.endswith(".out_qp") == qparams)
    assert keys and keys == sorted(k for k in sub if k.startswith(model + ".") and k.endswith(".out_qp") == qparams)
    return keys


@pytest.mark.parametrize("model", MODELS)
def test_packed_weights_identical(runs, model):
    bad = [k for k in _keys(runs, model, False) if not _identical(runs["ref"][k], runs["sub"][k])]
    assert not bad, bad


@pytest.mark.parametrize("model", MODELS)
def test_output_qparams(runs, model):
    for k in _keys(runs, model, True):
        (rs, rz), (ss, sz) = runs["ref"][k], runs["sub"][k]
        assert rz == sz and abs(ss - rs) <= 1e-6 * rs, (k, (rs, rz), (ss, sz))


@pytest.mark.parametrize("model", MODELS)
def test_outputs(runs, model):
    r, s = runs["ref"]["out." + model], runs["sub"]["out." + model]
    if all(_identical(runs["ref"][k], runs["sub"][k]) for k in _keys(runs, model, True)):
        assert _identical(r, s), "%d of %d outputs differ" % (int((r != s).sum()), r.size)
    else:
        quantum = max(runs["ref"][k][0] for k in _keys(runs, model, True))
        assert np.abs(r.astype(np.float64) - s).max() <= quantum * (1 + 1e-6)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("direction", ["ours_loads_upstream", "upstream_loads_ours"])
def test_state_dict_loaded(runs, model, direction):
    loaded, saver = ("sub_loaded", "ref") if direction == "ours_loads_upstream" else ("ref_loaded", "sub")
    assert _identical(runs[loaded]["sd." + model], runs[saver]["out." + model])


def test_repr(runs):
    ref, sub = str(runs["ref"]["repr.conv"]).splitlines(), str(runs["sub"]["repr.conv"]).splitlines()
    pat = re.compile(r"scale=([0-9.e+-]+)")
    assert len(ref) == len(sub)
    for a, b in zip(ref, sub):
        sa, sb = [float(v) for v in pat.findall(a)], [float(v) for v in pat.findall(b)]
        assert pat.sub("scale=", a) == pat.sub("scale=", b) and len(sa) == len(sb), (a, b)
        assert all(abs(x - y) <= 1e-6 * x for x, y in zip(sa, sb)), (a, b)
