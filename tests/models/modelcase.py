"""Small transformers models run on both interpreters: configs, jobs, subprocess driver, rules.

The pytest process never imports torch. Models are built by upstream (`.venv-ref`) from small
configs with `torch.manual_seed(0)` and written with `save_pretrained` (safetensors) into
`build/models/<name>-<key>/` (key = sha256 of class, config and the worker's build code, so a
changed config builds a new directory; delete build/models to rebuild). Each side then runs the
whole task list in ONE worker subprocess (model_worker.py; both sides concurrently), results
coming back as progress.jsonl records plus one .npy file per array. A crashing or hanging task is
recorded as {"harness": ...} and a fresh worker continues after it.

Tolerance rules (numpy only, here):
  float32 logits:  |sub - ref32| <= max(K32 * err64, F * eps32 * |ref32|) elementwise, where
                   err64 = max |ref32 - ref64| over the tensor: upstream's own float32-vs-float64
                   discrepancy for the same model, attention implementation and input (the
                   reference also runs the model loaded with dtype=float64), K32 = 4, F = 4
                   (4 ulp floor).
  bf16 / f16 logits: |sub - ref_lp| <= max(KLP * errlp, F * eps_lp * |ref_lp|), where
                   errlp = max |ref_lp - ref32|: upstream's own reduced-precision error against
                   its float32 result, KLP = 2 (two independent roundings of the same size).
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORKER = HERE / "model_worker.py"
MODELS_DIR = Path(os.environ.get("TN_MODELS_DIR", str(ROOT / "build" / "models")))

K32, KLP, FLOOR_ULP = 4.0, 2.0, 4.0
EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52, "bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}

_TOKENS = dict(bos_token_id=1, eos_token_id=2, pad_token_id=0)
_SMALL = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
              vocab_size=128, max_position_embeddings=256)

# name -> (transformers class, config kwargs incl. model_type, causal?)
MODELS = {
    "llama": ("LlamaForCausalLM", dict(model_type="llama", num_key_value_heads=2, **_SMALL,
                                       **_TOKENS), True),
    "qwen2": ("Qwen2ForCausalLM", dict(model_type="qwen2", num_key_value_heads=2, **_SMALL,
                                       **_TOKENS), True),
    "gpt2": ("GPT2LMHeadModel", dict(model_type="gpt2", n_layer=2, n_embd=64, n_head=4,
                                     n_inner=128, vocab_size=128, n_positions=256, **_TOKENS),
             True),
    "bert": ("BertForMaskedLM", dict(model_type="bert", **_SMALL, pad_token_id=0), False),
}
CAUSAL = [n for n, (_, _, c) in MODELS.items() if c]
IMPLS = ("eager", "sdpa")
LOW = ("bfloat16", "float16")
GEN_MODES = {"greedy-cache": (False, True), "greedy-nocache": (False, False),
             "sample": (True, True)}  # name -> (sample, use_cache)
MAX_NEW = 20
BAD_KINDS = ("truncated", "bad-header-json", "bad-header-length", "wrong-dtype")

_ROW0 = [5, 17, 42, 99, 3, 64, 7, 120, 33, 8, 71, 56]


def _inputs(causal):
    """Batch of two: the second row padded (left for causal models, right for BERT)."""
    n, pad = len(_ROW0), 3
    row1 = [(t * 7 + 11) % 125 + 3 for t in _ROW0[:n - pad]]
    if causal:
        return [_ROW0, [0] * pad + row1], [[1] * n, [0] * pad + [1] * (n - pad)]
    return [_ROW0, row1 + [0] * pad], [[1] * n, [1] * (n - pad) + [0] * pad]


def model_spec(name):
    cls, cfg, causal = MODELS[name]
    build_src = WORKER.read_text().split("def build(job):")[1].split("def run(")[0]
    key = hashlib.sha256(json.dumps([cls, cfg, build_src], sort_keys=True).encode()).hexdigest()
    ids, mask = _inputs(causal)
    return {"name": name, "class": cls, "config": cfg, "causal": causal,
            "path": str(MODELS_DIR / ("%s-%s" % (name, key[:12]))),
            "input_ids": ids, "attention_mask": mask, "prompt": [1] + _ROW0[:7],
            "pad_token_id": 0}


def bad_spec(kind):
    """A copy of the llama checkpoint with model.safetensors damaged in one way."""
    good = model_spec("llama")
    path = Path(good["path"] + "-" + kind)
    st = path / "model.safetensors"
    if not st.exists():
        tmp = Path(str(path) + ".tmp%d" % os.getpid())
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(good["path"], tmp)
        data = bytearray((Path(good["path"]) / "model.safetensors").read_bytes())
        hlen = int.from_bytes(data[:8], "little")
        if kind == "truncated":          # cut in the middle of the tensor data
            data = data[:8 + hlen + (len(data) - 8 - hlen) // 2]
        elif kind == "bad-header-json":  # garbage inside the JSON header
            data[8 + hlen // 3: 8 + hlen // 3 + 16] = b"\xff\x00{]]\x01garbage!!"
        elif kind == "bad-header-length":  # header length far beyond the file
            data[:8] = (len(data) * 4).to_bytes(8, "little")
        elif kind == "wrong-dtype":  # a float32 tensor declared int32 (valid file, wrong type)
            i = data.index(b'"F32"', 8, 8 + hlen)
            data[i:i + 5] = b'"I32"'
        (tmp / "model.safetensors").write_bytes(bytes(data))
        os.replace(tmp, path)
    return dict(good, path=str(path), name="llama-" + kind)


def tasks(reference):
    """The task list for one side (the reference also runs float64 forwards)."""
    out = []
    for name in MODELS:
        spec = model_spec(name)
        dts = ("float32",) + LOW + (("float64",) if reference else ())
        for impl in IMPLS:
            for dt in dts:
                out.append({"id": "forward/%s/%s/%s" % (name, impl, dt), "kind": "forward",
                            "model": spec, "impl": impl, "dtype": dt})
        if spec["causal"]:
            for impl in IMPLS:
                for mode, (sample, cache) in GEN_MODES.items():
                    out.append({"id": "generate/%s/%s/%s" % (name, impl, mode),
                                "kind": "generate", "model": spec, "impl": impl,
                                "sample": sample, "use_cache": cache,
                                "max_new_tokens": MAX_NEW})
    for kind in BAD_KINDS:
        for how in ("from_pretrained", "load_file"):
            out.append({"id": "badfile/%s/%s" % (kind, how), "kind": "badfile",
                        "model": bad_spec(kind), "how": how})
    return out


def ref_python():
    return os.environ.get("TN_REF_PYTHON", str(ROOT / ".venv-ref" / "bin" / "python"))


def subject_python():
    return os.environ.get("TN_SUBJECT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))


def _env():
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               TRANSFORMERS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error",
               HF_HUB_DISABLE_PROGRESS_BARS="1", TOKENIZERS_PARALLELISM="false")
    env.pop("PYTHONPATH", None)
    return env


def build_models(timeout=600):
    """Build every model not yet in build/models (reference interpreter)."""
    specs = [model_spec(n) for n in MODELS]
    if all(os.path.exists(os.path.join(s["path"], "model.safetensors")) for s in specs):
        return
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"models": specs}, f)
    try:
        r = subprocess.run([ref_python(), str(WORKER), "build", f.name], capture_output=True,
                           text=True, timeout=timeout, env=_env())
    finally:
        os.unlink(f.name)
    if r.returncode:
        raise RuntimeError("building the models in the reference failed:\n" + r.stderr[-3000:])


def _read_progress(path):
    recs, started = {}, []
    try:
        with open(path) as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                d = json.loads(line)
                if "start" in d:
                    started.append(d["start"])
                else:
                    recs[d["done"]] = d
    except OSError:
        pass
    return recs, started


def run_side(python, task_list, timeout=900):
    """Run `task_list` in `python`; returns (records by task id, arrays by task id, seconds)."""
    t0 = time.perf_counter()
    outdir = tempfile.mkdtemp(prefix="tn-models-")
    job = os.path.join(outdir, "job.json")
    with open(job, "w") as f:
        json.dump({"outdir": outdir, "tasks": task_list}, f)
    prog, log = os.path.join(outdir, "progress.jsonl"), os.path.join(outdir, "worker.log")
    harness = {}
    start = 0
    deadline = time.monotonic() + timeout
    while start < len(task_list):
        if not os.path.exists(python):
            for i in range(start, len(task_list)):
                harness[i] = "interpreter not found: %s" % python
            break
        with open(log, "ab") as lf:
            p = subprocess.Popen([python, str(WORKER), "run", job, str(start)], stdout=lf,
                                 stderr=lf, stdin=subprocess.DEVNULL, cwd=outdir, env=_env())
        try:
            rc = p.wait(timeout=max(1.0, deadline - time.monotonic()))
            why = "worker crashed (exit status %s)" % rc
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            why = "timeout (side budget %gs)" % timeout
        recs, started = _read_progress(prog)
        if not started or started[-1] < start:  # died before its first task: give up
            with open(log, "rb") as lf:
                tail = lf.read()[-1500:].decode("utf-8", "replace")
            for i in range(start, len(task_list)):
                harness[i] = "worker failed at start-up (%s); log tail:\n%s" % (why, tail)
            break
        nxt = start
        while nxt in recs:
            nxt += 1
        if nxt >= len(task_list):
            break
        with open(log, "rb") as lf:
            tail = lf.read()[-1500:].decode("utf-8", "replace")
        harness[nxt] = "%s during this task; log tail:\n%s" % (why, tail)
        if "timeout" in why:
            for i in range(nxt + 1, len(task_list)):
                harness[i] = why
            break
        start = nxt + 1
    recs, _ = _read_progress(prog)
    out, arrays = {}, {}
    for i, t in enumerate(task_list):
        rec = recs.get(i) or {"harness": harness.get(i, "no record")}
        out[t["id"]] = rec
        if rec.get("array"):
            arrays[t["id"]] = np.load(os.path.join(outdir, "%d.npy" % i))
    shutil.rmtree(outdir, ignore_errors=True)
    return out, arrays, time.perf_counter() - t0


class Session:
    """Builds the models once, then runs both sides concurrently (once per pytest session)."""

    def __init__(self):
        build_models()
        todo = {"ref": tasks(True), "sub": tasks(False)}  # (makes the damaged copies once)
        res = {}

        def side(name, python):
            res[name] = run_side(python, todo[name])

        th = [threading.Thread(target=side, args=a) for a in
              (("ref", ref_python()), ("sub", subject_python()))]
        for t in th:
            t.start()
        for t in th:
            t.join()
        self.ref, self.ref_arr, self.ref_s = res["ref"]
        self.sub, self.sub_arr, self.sub_s = res["sub"]
        self.measured = []   # logits rows for the terminal summary
        self.generated = []  # (model, impl, mode, new tokens, identical)

    def record(self, tid, side):
        return (self.ref if side == "ref" else self.sub)[tid]

    def array(self, tid, side):
        return (self.ref_arr if side == "ref" else self.sub_arr)[tid]


def trouble(rec):
    """A short text when a record says the task did not produce a result, else None."""
    if "harness" in rec:
        return "harness: " + rec["harness"]
    if "error" in rec:
        return "%s: %s" % (rec["error"], rec["msg"])
    return None


def maxabs(a, b):
    """max |a - b| over positions where both are finite (0.0 when none)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ok = np.isfinite(a) & np.isfinite(b)
    return float(np.max(np.abs(a - b)[ok])) if ok.any() else 0.0


def within(sub, ref, err, k, dtype):
    """(ok, worst ratio |sub-ref|/tol, max |sub-ref|) under tol = max(k*err, F*eps*|ref|)."""
    sub, ref = np.asarray(sub, np.float64), np.asarray(ref, np.float64)
    if sub.shape != ref.shape:
        return False, float("inf"), float("inf")
    fin = np.isfinite(ref)
    if not np.array_equal(fin, np.isfinite(sub)) or not np.array_equal(ref[~fin], sub[~fin], equal_nan=True):
        return False, float("inf"), float("inf")
    tol = np.maximum(k * err, FLOOR_ULP * EPS[dtype] * np.abs(ref[fin]))
    d = np.abs(sub[fin] - ref[fin])
    if d.size == 0:
        return True, 0.0, 0.0
    return bool(np.all(d <= tol)), float(np.max(d / tol)), float(np.max(d))
