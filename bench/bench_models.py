"""Side-by-side model benchmark: a SmolLM2-135M-shaped Llama on torchnative (.venv) and upstream
torch 2.13.0 (.venv-ref), float32, seeded weights (no checkpoint is written: each process builds
the model from the config after `torch.manual_seed(0)`).

Model: LlamaForCausalLM, hidden 576, 30 layers, 9 heads, 3 key-value heads, intermediate 1536,
vocab 49152, tied embeddings, attn_implementation "sdpa" (transformers' default).
Figures (inside each process, after one untimed 6-token forward):
  - prefill L tokens: wall time of `model(ids, use_cache=True, logits_to_keep=1)` under no_grad
    (what generate() runs for the prompt), for L in 6, 128, 512; each process repeats a length
    while it has run fewer than 5 times and for less than 2 s, and reports the median;
  - decode: a 6-token prompt is prefilled with the KV cache, one untimed step, then N greedy
    single-token steps with the cache; tokens/s = N / their total time;
  - backward 128 tokens: forward with gradients recorded plus `logits.mean().backward()` on the
    same weights (attn_implementation "eager" for this figure, as it was first measured, so the
    ratio stays comparable across rounds; the training step below runs sdpa and its fused flash
    backward), gradients dropped between repeats; median of repeats as for prefill.
  - AdamW training step 128 tokens: in processes of their own, model in train mode (sdpa),
    `opt.zero_grad(); model(ids, labels=ids).loss.backward(); opt.step()` with AdamW(lr=1e-4),
    one untimed step (it creates the optimizer state), then the median of 3-5 steps; and the
    process's peak RSS (ru_maxrss) after those steps.
Processes alternate (upstream, ours, upstream, ours, ...); each figure is the median over
rounds, the ratio is ours/upstream for times and upstream/ours for tokens/s (so > 1 always
means we are slower). Both sides run single-threaded (OMP_NUM_THREADS=1, the machines are shared;
BENCH_THREADS=n changes it for both, torchnative's pool reads the same variable).
Full run (about 2 minutes): 3 rounds of prefill 6, 128 and 512 and 16 decode tokens.
BENCH_QUICK=1 (or --quick): 1 round, 8 decode tokens.
BENCH_PREFILL=512,2048: prefill only, at those lengths (no decode / backward / training figures).
--dtype bfloat16|float16 (or BENCH_DTYPE): the model converted with `.to(dtype)` after building, on
both sides; prefill 128 and 512 and decode only (no backward / training figures), plus our own
float32 decode in the same rounds, to print the low-precision decode speed-up over float32.
usage: bench_models.py [--quick] [--dtype DT] [--json FILE]
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")

CONFIG = dict(hidden_size=576, num_hidden_layers=30, num_attention_heads=9,
              num_key_value_heads=3, intermediate_size=1536, vocab_size=49152,
              max_position_embeddings=2048, tie_word_embeddings=True, rope_theta=100000.0,
              rms_norm_eps=1e-5)

WORKER = r"""
import json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
import torch, transformers
spec = json.loads(sys.argv[1])
out = {"threads": torch.get_num_threads()}
t0 = time.perf_counter()
cfg = transformers.LlamaConfig(**spec["config"])
torch.manual_seed(0)
m = transformers.LlamaForCausalLM(cfg).eval()
if spec.get("dtype"):
    m = m.to(getattr(torch, spec["dtype"]))
out["build_s"] = time.perf_counter() - t0
g = torch.Generator().manual_seed(1)
V = spec["config"]["vocab_size"]
with torch.no_grad():
    if spec["prefill"]:
        m(torch.randint(0, V, (1, 6), generator=g), use_cache=True, logits_to_keep=1)  # warm-up
    for L in spec["prefill"]:
        ids = torch.randint(0, V, (1, L), generator=g)
        ts, start = [], time.perf_counter()
        while not ts or (len(ts) < 5 and time.perf_counter() - start < 2.0):
            t = time.perf_counter()
            m(ids, use_cache=True, logits_to_keep=1)
            ts.append(time.perf_counter() - t)
        out["prefill_%d" % L] = statistics.median(ts)
    n = spec["decode"]
    if n:
        o = m(torch.randint(0, V, (1, 6), generator=g), use_cache=True, logits_to_keep=1)
        cache, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
        total = 0.0
        for i in range(n + 1):
            t = time.perf_counter()
            o = m(nxt, cache=cache, use_cache=True)
            cache, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
            if i:
                total += time.perf_counter() - t
        out["decode_tok_s"] = n / total
L = spec.get("backward")
if L:
    m.config._attn_implementation = "eager"
    for layer in m.model.layers:
        layer.self_attn.config._attn_implementation = "eager"
    ids = torch.randint(0, V, (1, L), generator=g)
    ts, start = [], time.perf_counter()
    while not ts or (len(ts) < 3 and time.perf_counter() - start < 4.0):
        for p in m.parameters():
            p.grad = None
        t = time.perf_counter()
        m(ids, use_cache=False).logits.mean().backward()
        ts.append(time.perf_counter() - t)
    out["backward_%d" % L] = statistics.median(ts)
L = spec.get("train")
if L:
    import resource
    m.train()
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    ids = torch.randint(0, V, (1, L), generator=g)
    def step():
        opt.zero_grad()
        m(ids, labels=ids, use_cache=False).loss.backward()
        opt.step()
    step()  # warm-up: creates the optimizer state
    ts, start = [], time.perf_counter()
    while len(ts) < 3 or (len(ts) < 5 and time.perf_counter() - start < 6.0):
        t = time.perf_counter()
        step()
        ts.append(time.perf_counter() - t)
    out["train_%d" % L] = statistics.median(ts)
    out["train_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


def run(python, spec, threads):
    env = dict(os.environ, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads,
               TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    r = subprocess.run([python, "-c", WORKER, json.dumps(spec)], capture_output=True, text=True,
                       env=env)
    if r.returncode:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    quick = "--quick" in sys.argv or os.environ.get("BENCH_QUICK", "") not in ("", "0")
    threads = os.environ.get("BENCH_THREADS", "1")
    dtype = os.environ.get("BENCH_DTYPE", "")
    if "--dtype" in sys.argv:
        dtype = sys.argv[sys.argv.index("--dtype") + 1]
    if dtype and dtype != "float32":
        return main_lowp(dtype, quick, threads)
    only = os.environ.get("BENCH_PREFILL", "")
    if only:
        lens = [int(x) for x in only.split(",")]
        rounds = [{"prefill": lens, "decode": 0}] * (1 if quick else 3)
    elif quick:
        rounds = [{"prefill": [6, 128, 512], "decode": 8, "backward": 128}]
    else:
        rounds = [{"prefill": [6, 128, 512], "decode": 16, "backward": 128}] * 3
    # the training step runs in processes of its own, so their peak RSS is the step's
    if not only:
        rounds = rounds + [{"prefill": [], "decode": 0, "train": 128}] * (1 if quick else 3)
    res = {"ref": [], "ours": []}
    t0 = time.perf_counter()
    for r in rounds:
        spec = dict(r, config=CONFIG)
        for side, py in (("ref", REF), ("ours", OURS)):
            res[side].append(run(py, spec, threads))
    keys = ["prefill_%d" % L for L in rounds[0]["prefill"]] + ([] if only else [
        "decode_tok_s", "backward_128", "train_128", "train_peak_rss_mb"])
    print("SmolLM2-135M-shaped Llama, float32, %s thread(s), %d round(s)%s, %.0fs" % (
        threads, len(rounds), " (quick)" if quick else "", time.perf_counter() - t0))
    print(f"{'benchmark':32} {'ours':>12} {'upstream':>12} {'ratio':>8}")
    table = {}
    for k in keys:
        vals = {}
        for side in ("ours", "ref"):
            xs = [d[k] for d in res[side] if isinstance(d.get(k), float)]
            errs = [d["error"] for d in res[side] if "error" in d]
            vals[side] = statistics.median(xs) if xs else (errs[0] if errs else "n/a")
        ours, ref = vals["ours"], vals["ref"]
        label = ("prefill %s tokens (s)" % k.split("_")[1]) if k.startswith("prefill") \
            else ("forward+backward %s tokens (s)" % k.split("_")[1]) if k.startswith("backward") \
            else "AdamW training step 128 (s)" if k == "train_128" \
            else "training step peak RSS (MB)" if k == "train_peak_rss_mb" \
            else "decode (tokens/s)"
        if isinstance(ours, float) and isinstance(ref, float):
            ratio = ref / ours if k == "decode_tok_s" else ours / ref
            print(f"{label:32} {ours:12.4f} {ref:12.4f} {ratio:8.2f}")
            table[k] = {"ours": ours, "upstream": ref, "ratio": ratio}
        else:
            print(f"{label:32} failed: ours: {ours}; upstream: {ref}")
            table[k] = {"ours": ours, "upstream": ref}
    print("(ratio > 1: torchnative slower or larger; prefill = median seconds, decode = tokens/s)")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump({"threads": threads, "quick": bool(quick), "figures": table,
                       "runs": res}, f, indent=1)


def main_lowp(dtype, quick, threads):
    n = 1 if quick else 3
    spec = {"prefill": [128, 512], "decode": 8 if quick else 16, "config": CONFIG, "dtype": dtype}
    f32 = {"prefill": [], "decode": spec["decode"], "config": CONFIG}
    res = {"ref": [], "ours": [], "ours_f32": []}
    t0 = time.perf_counter()
    for _ in range(n):
        for side, py, sp in (("ref", REF, spec), ("ours", OURS, spec), ("ours_f32", OURS, f32)):
            res[side].append(run(py, sp, threads))
    print("SmolLM2-135M-shaped Llama, %s, %s thread(s), %d round(s)%s, %.0fs" % (
        dtype, threads, n, " (quick)" if quick else "", time.perf_counter() - t0))
    print(f"{'benchmark':32} {'ours':>12} {'upstream':>12} {'ratio':>8}")

    def med(side, k):
        xs = [d[k] for d in res[side] if isinstance(d.get(k), float)]
        errs = [d["error"] for d in res[side] if "error" in d]
        return statistics.median(xs) if xs else (errs[0] if errs else "n/a")
    table = {}
    for k in ("prefill_128", "prefill_512", "decode_tok_s"):
        ours, ref = med("ours", k), med("ref", k)
        label = "decode (tokens/s)" if k == "decode_tok_s" else "prefill %s tokens (s)" % k.split("_")[1]
        if isinstance(ours, float) and isinstance(ref, float):
            ratio = ref / ours if k == "decode_tok_s" else ours / ref
            print(f"{label:32} {ours:12.4f} {ref:12.4f} {ratio:8.2f}")
            table[k] = {"ours": ours, "upstream": ref, "ratio": ratio}
        else:
            print(f"{label:32} failed: ours: {ours}; upstream: {ref}")
    o16, o32 = med("ours", "decode_tok_s"), med("ours_f32", "decode_tok_s")
    if isinstance(o16, float) and isinstance(o32, float):
        print(f"{'ours decode float32 (tokens/s)':32} {o32:12.4f}   {dtype}/float32 speed-up {o16 / o32:.2f}x")
        table["decode_vs_f32"] = {"ours_f32": o32, "ours": o16, "speedup": o16 / o32}
    print("(ratio > 1: torchnative slower; prefill = median seconds, decode = tokens/s)")
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump({"threads": threads, "dtype": dtype, "quick": bool(quick), "figures": table, "runs": res}, f, indent=1)


if __name__ == "__main__":
    if "-h" in sys.argv or "--help" in sys.argv:
        sys.exit(print(__doc__))
    main()
