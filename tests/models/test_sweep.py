"""The CI subset of the transformers architecture sweep (tools/sweep.py, docs/sweep.md).

A fixed, named list of architectures (text encoders and decoders, mixture of experts,
encoder-decoders, vision, audio, multimodal) goes through the same sweep `make sweep` runs over
every model type: built on upstream from a shrunk config with seeded weights, forward of the base
model (and the causal-LM class) with attn_implementation "eager" and "sdpa" where offered, loaded
with upstream's weights on torchnative; float32 outputs within modelcase's rule
(|sub - ref32| <= max(4 * err64, 4 ulp * |ref32|), err64 = upstream's own float32-vs-float64
discrepancy), 5 greedy tokens identical. Each subset member runs on upstream (a member upstream
cannot run fails the test: the list must then change). This process never imports torch.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

import sweep  # noqa: E402

SUBSET = ["bert", "roberta", "distilbert", "electra", "gpt2", "gpt_neox", "opt", "bloom",
          "llama", "mistral", "qwen2", "gemma", "phi", "mixtral", "t5", "bart", "vit", "deit",
          "convnext", "resnet", "pvt_v2", "wav2vec2", "hubert", "whisper", "clip", "llava",
          # runnable since the 2026-12-05 shrink rules: multi-head latent attention, a hybrid
          # (one linear-attention and one attention layer), M-RoPE, frames-first audio features
          "deepseek_v3", "qwen3_next", "qwen2_vl", "parakeet_ctc"]

# Known failures on torchnative: {model type: the blocker}, marked xfail(strict=True) so a fix
# shows up as an unexpected pass.
XFAIL = {
}

_RES = []


def _results():
    if not _RES:
        _RES.append(sweep.sweep(SUBSET, shards=2, timeout=240, progress=False,
                               work=os.path.join(sweep.ROOT, "build", "sweep-ci")))
    return _RES[0]["types"]


@pytest.mark.parametrize("model_type", SUBSET)
def test_sweep(model_type, request):
    if model_type in XFAIL:
        request.applymarker(pytest.mark.xfail(strict=True, reason=XFAIL[model_type]))
    r = _results()[model_type]
    assert r["status"] != "not-runnable", "upstream cannot run it: " + r["reason"]
    assert r["status"] == "passed", r["reason"]
