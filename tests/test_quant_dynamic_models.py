"""Dynamic (and static Linear) quantization end to end against upstream (docs/quant_tensors.md
"Dynamic quantization"): torch.ao.quantization.quantize_dynamic of seeded float models on both
torches (tests/qdyn_worker.py): an MLP (default qint8 per-tensor qconfig, per-channel, float16), a
small transformers BertModel and a small LlamaForCausalLM built from configs (no downloads); and
static post-training quantization (QuantStub, fused Linear+ReLU, Linear, DeQuantStub: prepare,
calibrate, convert) of an MLP under x86's qconfig (per-channel weights) and default_qconfig (per
tensor).

Checked:
- every quantized Linear's packed weight (integers, scale / zero point or per-channel parameters,
  float16 values) and bias: identical to upstream's;
- outputs: the MLPs' must be bit-identical (every op between input and output is a quantized
  Linear, relu, quantize or dequantize, all reproduced with upstream's float steps), the static
  models' output scales / zero points too. The transformers models also run
  float ops (attention, norms, activations) whose last bits may differ from upstream's, and the
  dynamic quantization of a Linear's input can turn such a difference into a rounding flip; the
  rule there: bit-identical while the float models' outputs agree to the bit, else a deviation of
  at most 5% of upstream's own quantization error (max |quantized - float|). Measured 2026-12-05:
  the float models differ by up to 4.8e-7 (BERT) / 1.8e-7 (Llama), the quantized outputs are
  bit-identical all the same;
- state_dict saved by one torch, loaded into the other's quantized model: output bit-identical to
  the saving side's; a whole pickled model (torch.save of the module: the packed parameters are
  pickled as upstream's ScriptObject state) likewise, both ways;
- print(model) identical.
"""
import os

import numpy as np
import pytest

from harness import crossload
from harness.runner import fbgemm_vnni

pytestmark = pytest.mark.skipif(not fbgemm_vnni(), reason="upstream's fbgemm runs without AVX-512 VNNI here "
                                "(int16-saturating sums, another float16 order): the models' bits are the VNNI path's")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKER = os.path.join(HERE, "qdyn_worker.py")
REF = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
MODELS = ("mlp", "mlp_per_channel", "mlp_fp16", "bert", "llama", "static_x86", "static_per_tensor")
EXACT = ("mlp", "static")   # models whose every op between input and output is reproduced to the bit


@pytest.fixture(scope="module")
def runs():
    if not os.path.exists(REF):
        pytest.skip("upstream environment .venv-ref missing")
    return crossload.runs(WORKER)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.int32) if a.dtype == np.float32 else a.view(np.int64) if a.dtype == np.float64 else a


def _identical(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("model", MODELS)
def test_packed_weights_identical(runs, model):
    ref, sub = runs["ref"], runs["sub"]
    keys = sorted(k for k in ref if k.startswith(model + "."))
    assert keys and keys == sorted(k for k in sub if k.startswith(model + "."))
    bad = [k for k in keys if not _identical(ref[k], sub[k])]
    assert not bad, bad


@pytest.mark.parametrize("model", MODELS)
def test_outputs(runs, model):
    ref, sub = runs["ref"], runs["sub"]
    r, s = ref["out." + model], sub["out." + model]
    if _identical(r, s):
        return
    float_same = _identical(ref["float." + model], sub["float." + model])
    assert not model.startswith(EXACT) and not float_same, "quantized outputs differ from upstream's bits"
    qerr = np.abs(r.astype(np.float64) - ref["float." + model]).max()
    dev = np.abs(r.astype(np.float64) - s).max()
    assert dev <= 0.05 * qerr, "deviation %.3g, allowed 5%% of upstream's quantization error %.3g" % (dev, qerr)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("direction", ["ours_loads_upstream", "upstream_loads_ours"])
def test_saved_and_loaded(runs, model, direction):
    loaded, saver = ("sub_loaded", "ref") if direction == "ours_loads_upstream" else ("ref_loaded", "sub")
    got, want = runs[loaded], runs[saver]["out." + model]
    assert _identical(got["sd." + model], want), "state_dict round trip"
    if model.startswith(EXACT):
        assert _identical(got["whole." + model], want), "whole pickled model"


@pytest.mark.parametrize("which", ["mlp", "static"])
def test_repr(runs, which):
    assert str(runs["ref"]["repr." + which]) == str(runs["sub"]["repr." + which])
