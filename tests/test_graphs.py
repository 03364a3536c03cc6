"""torchnative.graphs (issue #12: decode without Python between the operators; docs/graphs.md).

Every check runs in child interpreters (tests/graphs_worker.py). Claims:
  - a replay computes what the captured function computes when run again eagerly, bit for bit
    (the same calls reach the same kernels), for views, reductions, tuple results, a write into a
    tensor made before the capture, Python constants (restored before each replay), and a value
    read through bool() (replayed while it reads the same, refused with a RuntimeError when not);
  - what a capture cannot replay is refused by name (grad mode on, tolist(), numpy(), an output
    made outside the recorded calls, inputs of other dtypes / sizes / count) and leaves no capture
    open; a function that raises leaves none either;
  - a seeded 2-layer Llama decoding 16 steps with transformers' StaticCache: the replayed logits
    equal our eager ones bit for bit, and agree with upstream 2.13.0's eager ones within the model
    tests' rule (tol = max(K*err, F*eps*|ref|), err = upstream's float32 vs float64 difference,
    tests/models/modelcase.py), with every greedy token upstream's.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "models"))
import modelcase  # noqa: E402

WORKER = ROOT / "tests" / "graphs_worker.py"
OURS = os.environ.get("TN_SUBJECT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))
REF = os.environ.get("TN_REF_PYTHON", str(ROOT / ".venv-ref" / "bin" / "python"))


def _run(python, *args):
    e = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="2")
    r = subprocess.run([python, str(WORKER), *map(str, args)], capture_output=True, text=True, timeout=600, env=e,
                       stdin=subprocess.DEVNULL, cwd=str(ROOT))
    assert r.returncode == 0, "worker %s failed (rc %d):\n%s" % (args, r.returncode, r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_replay_equals_eager():
    r = _run(OURS, "functions")
    assert r["replay_equals_eager"], r
    assert r["constant_restored"] == [[4.0, 6.0], [4.0, 6.0]], r
    assert r["guard_same"] == [6.0, 8.0], r
    assert r["guard_other"].startswith("torchnative.graphs: is_nonzero returned True at capture and False at replay"), r


def test_refusals():
    r = _run(OURS, "refusals")
    assert r["grad_enabled"].startswith("RuntimeError: torchnative.graphs: capture records no autograd graph")
    assert r["tolist"].startswith("RuntimeError: torchnative.graphs: tolist() reads a tensor's values")
    assert r["numpy"].startswith("RuntimeError: torchnative.graphs: numpy() reads a tensor's values")
    assert r["after_refusal"] == [[1.0] * 3] * 2 and r["after_raise"] == [[1.0] * 3] * 2
    for k in ("wrong_shape", "wrong_dtype"):
        assert r[k] == "RuntimeError: torchnative.graphs: input 0 differs from the captured one in dtype, sizes, strides or device"
    assert r["wrong_count"] == "RuntimeError: torchnative.graphs: the graph takes 1 inputs, got 2"
    assert r["non_tensor_input"] == "TypeError: torchnative.graphs: the inputs must be tensors, got int"
    assert r["output_not_recorded"] == ("RuntimeError: torchnative.graphs: output 1 is not an input or a result of the "
                                        "recorded operators")
    assert r["function_raises"] == "RuntimeError: shape '[7]' is invalid for input of size 6"
    for k in ("input_data", "result_data"):   # .data: an alias made outside the recorded operators
        assert r[k] == ("RuntimeError: torchnative.graphs: a tensor that shares the memory of an input or a recorded result "
                        "was made outside the recorded operators; it cannot be replayed"), r[k]
    assert r["stale_handle"] == "RuntimeError: torchnative.graphs: no captured graph 12345"


def test_llama_static_cache_decode(tmp_path):
    ref32, ref64, eager, graph = (tmp_path / n for n in ("ref32.npz", "ref64.npz", "eager.npz", "graph.npz"))
    _run(REF, "decode", ref32)
    _run(REF, "decode", ref64, "--float64", "--tokens", ref32)
    _run(OURS, "decode", eager, "--tokens", ref32)
    _run(OURS, "decode", graph, "--graph", "--tokens", ref32)
    r32, r64, e, g = (np.load(p) for p in (ref32, ref64, eager, graph))
    assert np.array_equal(g["logits"].view(np.uint32), e["logits"].view(np.uint32)), "replay differs from eager"
    err = modelcase.maxabs(r32["logits"], r64["logits"])
    ok, worst, d = modelcase.within(g["logits"], r32["logits"], err, modelcase.K32, "float32")
    assert ok, "replayed logits vs upstream: max|d| %.3e, upstream err %.3e, worst/tol %.3f" % (d, err, worst)
    # every step's greedy choice is upstream's (upstream's run was greedy; ours was fed its tokens)
    assert list(g["logits"].argmax(-1)[:-1]) == list(r32["tokens"][1:])


def test_generate_replayed(tmp_path):
    """transformers' generate() with a static cache and the forward wrapped by
    torchnative.graphs.replayed: the prompt and the first decode step eager, the second captured,
    the other 13 replayed; logits equal to the same generate() run eagerly bit for bit, and to
    upstream's generate() within the model tests' rule, every token upstream's. A DynamicCache
    generate() and a call with grad mode on stay eager; the wrapper's entries die with the cache."""
    ref32, ref64, ours = (tmp_path / n for n in ("ref32.npz", "ref64.npz", "ours.npz"))
    _run(REF, "generate", ref32)
    _run(REF, "generate", ref64, "--float64")
    r = _run(OURS, "generate", ours, "--replayed")
    assert r["counts"] == {"eager": 2, "captured": 1, "replayed": 13} and r["graphs"] == 1, r
    assert r["eager_bits"] and r["eager_tokens"], r
    assert r["entries_after_cache_died"] == 0 and r["dynamic_entries"] == 0 and r["grad_entries"] == 0, r
    assert r["dynamic_counts"] == {"eager": 18, "captured": 1, "replayed": 13}, r
    r32, r64, o = (np.load(p) for p in (ref32, ref64, ours))
    assert list(o["tokens"]) == list(r32["tokens"]) == list(r64["tokens"]) == r["dynamic_tokens"][0]
    err = modelcase.maxabs(r32["logits"], r64["logits"])
    ok, worst, d = modelcase.within(o["logits"], r32["logits"], err, modelcase.K32, "float32")
    assert ok, "replayed generate() logits vs upstream: max|d| %.3e, upstream err %.3e, worst/tol %.3f" % (d, err, worst)
