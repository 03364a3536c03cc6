"""python -m torchnative.quant — quantise a transformers causal LM and report, per format, the
logits error against the float32 model and decode tokens/s against our float32.

    python -m torchnative.quant [--model DIR] [--formats q8_0,q4_0,q4_1] [--decode 16] [--rounds 3]

Without --model: a SmolLM2-135M-shaped Llama (the shape bench/bench_models.py uses) built from
its config with seeded weights (torch.manual_seed(0); no hub download). With --model DIR: a
transformers directory (e.g. the float32 conversion of SmolLM2-135M-Instruct that examples/demo.py
makes under build/models).

Logits error: over a fixed prompt set (4 prompts of 32 tokens drawn from torch.Generator seed 1,
or the fixed texts below when DIR has a tokenizer), every position's logits: RMS of
(quantised - f32), that RMS relative to the RMS of the f32 logits, and top-1 agreement (fraction
of positions whose argmax matches f32's).
With --gguf FILE: f32 is the file's float32 dequantisation (torchnative.quant.gguf.load_llama),
"file" its quantised tensors used in place, and each --formats entry a re-quantisation of f32.
Decode: a 6-token prompt prefilled with the KV cache, one untimed step, then N greedy steps
timed; tokens/s is N / their total time; each round measures every model in turn (f32 and each
format alternating); the ratio to f32 is taken per round and its median (and range) reported, from
wall time and from process CPU time (robust to a loaded host descheduling the process).
"""
import argparse
import copy
import json
import statistics
import sys
import time
import warnings

CONFIG = dict(hidden_size=576, num_hidden_layers=30, num_attention_heads=9, num_key_value_heads=3,
              intermediate_size=1536, vocab_size=49152, max_position_embeddings=2048,
              tie_word_embeddings=True, rope_theta=100000.0, rms_norm_eps=1e-5)
TEXTS = ["The capital of France is", "def fibonacci(n):\n    if n < 2:\n        return n",
         "Photosynthesis converts light energy into", "Once upon a time, in a small village by the sea,"]


def build(path):
    import torch
    import transformers
    if path:
        m = transformers.AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32)
        try:
            tok = transformers.AutoTokenizer.from_pretrained(path)
        except Exception:
            tok = None
    else:
        torch.manual_seed(0)
        m = transformers.LlamaForCausalLM(transformers.LlamaConfig(**CONFIG))
        tok = None
    return m.eval(), tok


def prompts(tok, vocab):
    import torch
    if tok is not None:
        return [torch.tensor([tok(t)["input_ids"]]) for t in TEXTS]
    g = torch.Generator().manual_seed(1)
    return [torch.randint(0, vocab, (1, 32), generator=g) for _ in range(4)]


def logits(m, ps):
    import torch
    with torch.no_grad():
        return [m(p, use_cache=False).logits[0].float() for p in ps]


def decode_tok_s(m, n, vocab):
    import torch
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        o = m(torch.randint(0, vocab, (1, 6), generator=g), use_cache=True, logits_to_keep=1)
        cache, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
        total = cpu = 0.0
        for i in range(n + 1):
            t, c = time.perf_counter(), time.process_time()
            o = m(nxt, cache=cache, use_cache=True)
            cache, nxt = o.past_key_values, o.logits[:, -1:].argmax(-1)
            if i:
                total += time.perf_counter() - t
                cpu += time.process_time() - c
    return n / total, n / cpu


def weight_mb(m):
    seen, total = set(), 0
    for t in list(m.parameters()) + list(m.buffers()):
        if id(t) not in seen and t.dim() >= 2:
            seen.add(id(t))
            total += t.numel() * t.element_size()
    return total / 2**20


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m torchnative.quant", description=__doc__.split("\n")[0])
    ap.add_argument("--model", help="transformers model directory (default: seeded SmolLM2-shaped Llama)")
    ap.add_argument("--gguf", help="a llama GGUF file: f32 = its float32 dequantisation, 'file' = its tensors "
                    "used in place (torchnative.quant.gguf), plus --formats re-quantised from the f32 model")
    ap.add_argument("--formats", default="q8_0,q4_0,q4_1")
    ap.add_argument("--decode", type=int, default=16, help="timed decode steps per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the results as one JSON line too")
    a = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    import torch
    import torchnative.quant as tq
    fmts = [f for f in a.formats.split(",") if f]
    for f in fmts:
        tq._check_fmt(f)
    t0 = time.perf_counter()
    if a.gguf:
        from torchnative.quant.gguf import load_llama
        base, tok = load_llama(a.gguf, dequantize=True), None
    else:
        base, tok = build(a.model)
    vocab = base.config.vocab_size
    ps = prompts(tok, vocab)
    ref = logits(base, ps)
    models = {"f32": base}
    if a.gguf:
        models["file"] = load_llama(a.gguf)
    for f in fmts:
        models[f] = tq.quantize(copy.deepcopy(base), f)
    print("model: %s, %d threads, quant ISA %s, built+quantised in %.1f s" % (
        a.gguf or a.model or "SmolLM2-135M-shaped Llama (seeded)", torch.get_num_threads(),
        torch.ops.torchnative.quant_isa(), time.perf_counter() - t0))
    res = {}
    ref_rms = torch.cat([r.reshape(-1) for r in ref]).pow(2).mean().sqrt().item()
    for name, m in models.items():
        out = ref if name == "f32" else logits(m, ps)
        d = torch.cat([(o - r).reshape(-1) for o, r in zip(out, ref)])
        agree = torch.cat([(o.argmax(-1) == r.argmax(-1)).float() for o, r in zip(out, ref)]).mean().item()
        rms = d.pow(2).mean().sqrt().item()
        res[name] = {"weights_mb": weight_mb(m), "rms": rms, "rel_rms": rms / ref_rms, "top1": agree, "tok_s": [],
                     "cpu_tok_s": []}
    for _ in range(a.rounds):
        for name, m in models.items():
            w, c = decode_tok_s(m, a.decode, vocab)
            res[name]["tok_s"].append(w)
            res[name]["cpu_tok_s"].append(c)
    print("%-6s %10s %12s %10s %8s %12s %8s %8s %8s" % ("format", "weights MB", "logits RMS", "rel. RMS", "top-1",
                                                        "decode tok/s", "vs f32", "range", "cpu"))
    for name, r in res.items():
        # ratios per round (each round times every model in turn), then their median and range
        ratios = [t / f for t, f in zip(r["tok_s"], res["f32"]["tok_s"])]
        cratios = [t / f for t, f in zip(r["cpu_tok_s"], res["f32"]["cpu_tok_s"])]
        r["tok_s_median"] = statistics.median(r["tok_s"])
        r["speedup"] = statistics.median(ratios)
        r["speedup_cpu"] = statistics.median(cratios)
        print("%-6s %10.1f %12.3g %10.3g %8.3f %12.1f %7.2fx %4.2f-%4.2f %7.2fx" % (
            name, r["weights_mb"], r["rms"], r["rel_rms"], r["top1"], r["tok_s_median"], r["speedup"], min(ratios),
            max(ratios), r["speedup_cpu"]))
    print("(logits over %d prompts, %d positions; decode: median of %d rounds of %d steps; 'vs f32' is the median "
          "of the per-round ratios, 'range' their spread, 'cpu' the same from process CPU time, which a loaded "
          "host's descheduling does not inflate)" % (len(ps), sum(p.shape[1] for p in ps), a.rounds, a.decode))
    if a.json:
        print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
