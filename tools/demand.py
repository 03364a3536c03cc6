"""Demand: which aten overloads does a model dispatch on upstream, and which does torchnative lack?

Runs in the reference environment (`.venv-ref/bin/python tools/demand.py llama`). Builds a
transformers model from a small config (`AutoConfig.for_model`, 2 layers, hidden 64, vocab 128,
seeded weights), runs a forward pass (and for causal LMs `generate(max_new_tokens=5)`, greedy)
once per attention implementation (eager, sdpa) under a recording TorchDispatchMode, and prints
every dispatched overload with the number of calls and whether src/ops/*.def lists it as
implemented, and whether the golden cases exercise it (build/golden-coverage.json, written by
tests/test_coverage_gate.py; '?' when that map is absent). `demand(fn)` records any callable.
usage: python tools/demand.py llama|gpt2|bert|qwen2 [--json] [--attn eager,sdpa]
"""
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODELS = {
    "llama": ("llama", True, dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=2,
                                  max_position_embeddings=64, vocab_size=128)),
    "qwen2": ("qwen2", True, dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                  num_attention_heads=4, num_key_value_heads=2,
                                  max_position_embeddings=64, vocab_size=128)),
    "gpt2": ("gpt2", True, dict(n_embd=64, n_layer=2, n_head=4, n_positions=64, vocab_size=128,
                                bos_token_id=1, eos_token_id=2)),
    "bert": ("bert", False, dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                 num_attention_heads=4, max_position_embeddings=64,
                                 vocab_size=128)),
}


def implemented():
    """Implemented overloads from src/ops/*.def as 'name.overload' ('name.default' for default)."""
    out = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "ops", "*.def"))):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                name, _, ov = line.partition(".")
                out.add("%s.%s" % (name, ov or "default"))
    return out


def exercised():
    """Overloads the golden cases exercise on upstream (coverage map), or None if not built."""
    try:
        with open(os.path.join(ROOT, "build", "golden-coverage.json")) as f:
            return set(json.load(f)["exercised"])
    except (OSError, ValueError, KeyError):
        return None


def demand(fn, *args, **kwargs):
    """Run fn(*args, **kwargs) under a recording TorchDispatchMode: ({overload: calls}, result)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    calls = {}

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, a=(), kw=None):
            key = "%s::%s.%s" % (func.namespace, func._opname, func._overloadname)
            calls[key] = calls.get(key, 0) + 1
            return func(*a, **(kw or {}))

    with Record():
        result = fn(*args, **kwargs)
    return calls, result


def build(which, attn):
    import torch
    import transformers

    model_type, causal, cfg = MODELS[which]
    config = transformers.AutoConfig.for_model(model_type, **cfg)
    config._attn_implementation = attn
    torch.manual_seed(0)
    cls = transformers.AutoModelForCausalLM if causal else transformers.AutoModel
    model = cls.from_config(config, attn_implementation=attn)
    model.eval()
    return model, causal


def run(which, attns=("eager", "sdpa")):
    import torch

    per_run = {}
    for attn in attns:
        model, causal = build(which, attn)
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, 128, (2, 7), generator=g)
        mask = torch.ones(2, 7, dtype=torch.long)
        mask[1, :2] = 0  # a padded row exercises the mask path
        with torch.no_grad():
            calls, _ = demand(model, input_ids=ids, attention_mask=mask)
            per_run["%s/forward" % attn] = calls
            if causal:
                calls, _ = demand(model.generate, input_ids=ids[:1], attention_mask=mask[:1],
                                  max_new_tokens=5, do_sample=False,
                                  pad_token_id=0)
                per_run["%s/generate" % attn] = calls
    return per_run


def summarise(which, per_run):
    impl = implemented()
    cased = exercised()
    ops = {}
    for run_name, calls in per_run.items():
        for key, n in calls.items():
            o = ops.setdefault(key, {"calls": 0, "runs": []})
            o["calls"] += n
            o["runs"].append(run_name)
    rows = []
    for key in sorted(ops):
        ns, _, rest = key.partition("::")
        rows.append({"overload": key, "calls": ops[key]["calls"], "runs": ops[key]["runs"],
                     "implemented": ns == "aten" and rest in impl,
                     "golden_cases": None if cased is None else (ns == "aten" and rest in cased)})
    missing = [r["overload"] for r in rows if not r["implemented"]]
    return {"model": which, "runs": list(per_run), "overloads": rows,
            "count": len(rows), "implemented": len(rows) - len(missing), "missing": missing,
            "without_golden_cases": [r["overload"] for r in rows if r["golden_cases"] is False]}


def main(argv):
    if not argv or argv[0] not in MODELS:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    attns = ("eager", "sdpa")
    if "--attn" in argv:
        attns = tuple(argv[argv.index("--attn") + 1].split(","))
    rep = summarise(argv[0], run(argv[0], attns))
    if "--json" in argv:
        print(json.dumps(rep, indent=1))
        return 0
    print("%s (%s): %d overloads dispatched, %d implemented, %d missing, %d without golden "
          "cases" % (rep["model"], ", ".join(rep["runs"]), rep["count"], rep["implemented"],
                     len(rep["missing"]), len(rep["without_golden_cases"])))
    print("  impl cases %-55s %6s" % ("overload", "calls"))
    yn = {True: "yes", False: "NO", None: "?"}
    for r in rep["overloads"]:
        only = "" if len(r["runs"]) == len(rep["runs"]) else "  [%s]" % ", ".join(r["runs"])
        print("  %-4s %-5s %-55s %6d%s" % (yn[r["implemented"]], yn[r["golden_cases"]],
                                           r["overload"], r["calls"], only))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
