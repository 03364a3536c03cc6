"""Small Llama (GQA), Qwen2, GPT-2 and BERT: upstream builds and saves them, torchnative loads them
with `from_pretrained` and must agree with upstream (issue 4).

Both interpreters run in subprocesses (modelcase.py, model_worker.py); this process never
imports torch. Models: 2 layers, hidden 64, 4 heads (Llama/Qwen2: 2 key-value heads), vocab 128,
seeded weights (`torch.manual_seed(0)` + `from_config`), saved as safetensors under build/models.
Input: a batch of two 12-token rows, the second padded (left for causal models, right for BERT)
with an attention mask.

  test_forward       float32 logits, attn_implementation "eager" and "sdpa":
                     |sub - ref32| <= max(4 * err64, 4 ulp(f32) * |ref32|) elementwise,
                     err64 = max |ref32 - ref64|, upstream's own float32-vs-float64 discrepancy on
                     the same model, implementation and input (reference loads it in float64 too).
  test_low_precision the model loaded with dtype=bfloat16 / float16:
                     |sub - ref_lp| <= max(2 * errlp, 4 ulp(lp) * |ref_lp|),
                     errlp = max |ref_lp - ref32| (upstream's own reduced-precision error).
  test_generate      causal models, both implementations: greedy 20 new tokens with the KV cache
                     and without it, and seeded sampling (torch.manual_seed(0); temperature 0.7,
                     top_k 20, top_p 0.9): identical token ids (eos = 2 may end a sequence early;
                     it must then end identically on both sides).
  test_bad_file      a truncated safetensors file, garbage in its JSON header, a header length
                     beyond the file (upstream raises SafetensorError for each) and a float32
                     tensor declared int32 (upstream loads it without complaint), through
                     from_pretrained and safetensors.torch.load_file: the same outcome and
                     exception type on both sides, and never a crash.
The measured numbers are printed in the terminal summary.
"""
import pytest

import modelcase as mc

FORWARD = [(m, i) for m in mc.MODELS for i in mc.IMPLS]
LOWP = [(m, i, d) for m in mc.MODELS for i in mc.IMPLS for d in mc.LOW]
GEN = [(m, i, g) for m in mc.CAUSAL for i in mc.IMPLS for g in mc.GEN_MODES]
BAD = [(k, h) for k in mc.BAD_KINDS for h in ("from_pretrained", "load_file")]

# Known failures on torchnative: {test id: NotImplementedError text}, marked xfail(strict=True).
XFAIL = {}


def _params(rows):
    out = []
    for r in rows:
        pid = "-".join(r)
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[pid])] if pid in XFAIL else []
        out.append(pytest.param(*r, id=pid, marks=marks))
    return out


def _get(s, tid):
    ref, sub = s.record(tid, "ref"), s.record(tid, "sub")
    t = mc.trouble(ref)
    if t:
        pytest.fail("reference failed on %s: %s" % (tid, t), pytrace=False)
    t = mc.trouble(sub)
    if t:
        pytest.fail("torchnative failed on %s: %s" % (tid, t), pytrace=False)
    return ref, sub


def _check_logits(s, tid, ref_tid, k, dtype, label):
    ref, sub = _get(s, tid)
    rt = s.record(ref_tid, "ref")
    if mc.trouble(rt):
        pytest.fail("reference failed on %s: %s" % (ref_tid, mc.trouble(rt)), pytrace=False)
    assert (sub["dtype"], sub["shape"]) == (ref["dtype"], ref["shape"])
    r, x = s.array(tid, "ref"), s.array(tid, "sub")
    err = mc.maxabs(r, s.array(ref_tid, "ref"))
    ok, worst, d = mc.within(x, r, err, k, dtype)
    s.measured.append((label, dtype, err, k * err, d, worst))
    assert ok, ("%s: max |sub - ref| = %.3e exceeds the tolerance (upstream's own error %.3e, "
                "K = %g; worst |d|/tol = %.3f)" % (tid, d, err, k, worst))


@pytest.mark.parametrize("model,impl", _params(FORWARD))
def test_forward(models_session, model, impl):
    base = "forward/%s/%s/" % (model, impl)
    _check_logits(models_session, base + "float32", base + "float64", mc.K32, "float32",
                  "%s %s" % (model, impl))


@pytest.mark.parametrize("model,impl,dtype", _params(LOWP))
def test_low_precision(models_session, model, impl, dtype):
    base = "forward/%s/%s/" % (model, impl)
    _check_logits(models_session, base + dtype, base + "float32", mc.KLP, dtype,
                  "%s %s" % (model, impl))


@pytest.mark.parametrize("model,impl,mode", _params(GEN))
def test_generate(models_session, model, impl, mode):
    ref, sub = _get(models_session, "generate/%s/%s/%s" % (model, impl, mode))
    assert len(ref["tokens"]) > 0
    models_session.generated.append((model, impl, mode, len(ref["tokens"]),
                                     sub["tokens"] == ref["tokens"]))
    assert sub["tokens"] == ref["tokens"]


@pytest.mark.parametrize("kind,how", _params(BAD))
def test_bad_file(models_session, kind, how):
    tid = "badfile/%s/%s" % (kind, how)
    ref, sub = models_session.record(tid, "ref"), models_session.record(tid, "sub")
    assert "harness" not in sub, sub["harness"]
    assert "harness" not in ref, ref["harness"]
    if kind != "wrong-dtype":  # a well-formed file with a wrong dtype loads on both sides
        assert ref["raised"], "upstream did not raise on %s" % tid
    assert (sub["raised"], sub.get("module")) == (ref["raised"], ref.get("module")), (
        "torchnative raised %s (%s), upstream %s (%s)" % (sub["raised"], sub.get("msg"),
                                                          ref["raised"], ref.get("msg")))
