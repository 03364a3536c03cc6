"""Sweep worker: one transformers model type per task, inside one interpreter (both envs).

Executed by the reference (`.venv-ref`) or the subject (`.venv`) interpreter through
modelcase.run_side (same job file / progress.jsonl protocol as model_worker.py: a crash loses
only the task that caused it and a fresh worker continues after it). Never imported by pytest.

  run JOBFILE START_INDEX

Each task is {"id", "model_type", "dir", "side", "timeout"}. The config is shrunk the same way
on both sides (shrink_config, deterministic). The reference builds every model with
`torch.manual_seed(0)`, builds the inputs, and writes weights and inputs to DIR/ref.pt
(torch.save) plus its float32 and float64 outputs (DIR/<run>.ref32.npy / .ref64.npy); the
subject builds the same classes (seed 0: its own init ops run), loads the reference's weights
with load_state_dict (so a difference in init draws cannot hide a forward difference), runs the
same inputs and writes DIR/<run>.sub.npy. Greedy 5-token generation tokens go in the record.

Per-task time limit: SIGALRM raises TimeoutError in Python code; a watchdog thread ends the
process (exit 124) if a task is stuck in C past the limit plus a grace period, which
run_side reports as a crash during that task and resumes after it.
"""
import inspect
import json
import os
import signal
import sys
import threading
import time
import traceback

LAYER_KEYS = {"num_hidden_layers", "num_layers", "encoder_layers", "decoder_layers", "n_layer",
              "n_layers", "num_encoder_layers", "num_decoder_layers", "num_text_layers",
              "num_vision_layers", "text_layers", "vision_layers", "num_hidden_groups_layers",
              "num_self_attends_per_block", "backbone_layers", "layers"}
HIDDEN_KEYS = {"hidden_size", "d_model", "n_embd", "embed_dim", "dim", "hidden_dim",
               "embedding_size", "word_embed_proj_dim", "projection_dim", "text_embed_dim",
               "vision_embed_dim", "d_latents", "num_latent_channels"}
HEAD_KEYS = {"num_attention_heads", "n_head", "n_heads", "encoder_attention_heads",
             "decoder_attention_heads", "num_heads", "num_key_value_heads", "n_kv_heads",
             "num_kv_heads", "encoder_num_attention_heads", "decoder_num_attention_heads"}
FFN_KEYS = {"intermediate_size", "ffn_dim", "encoder_ffn_dim", "decoder_ffn_dim", "n_inner",
            "d_ff", "dim_feedforward", "ffn_hidden_size", "moe_intermediate_size",
            "shared_expert_intermediate_size", "encoder_intermediate_size",
            "decoder_intermediate_size"}
EXPERT_KEYS = {"num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"}
HIDDEN, HEADS, FFN, VOCAB, MAXPOS, IMAGE = 32, 4, 40, 99, 512, 64
MILD_MAX_PARAMS = 30_000_000  # a mild (layers-only) config larger than this is not built
SEQ, BATCH, NEW_TOKENS = 8, 2, 5


def _token_ids(d, out):
    for k, v in d.items():
        if isinstance(v, dict):
            _token_ids(v, out)
        elif isinstance(k, str) and (k.endswith("_token_id") or k.endswith("_token_index") or k.endswith("_token_ids")):
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, int) and not isinstance(x, bool):
                    out.append(x)


def _shrink(d, vocab, mild):
    """Shrink one (nested) config dict in place; `mild`: layers and experts only."""
    orig = dict(d)
    for k, v in list(d.items()):
        if isinstance(v, dict):
            _shrink(v, vocab, mild)
            continue
        if isinstance(v, bool) or v is None:
            continue
        if k in LAYER_KEYS and isinstance(v, int) and v > 2:
            d[k] = 2
        elif k in EXPERT_KEYS and isinstance(v, int) and v > 4:
            d[k] = 4
        elif k in ("num_experts_per_tok", "moe_k", "top_k") and isinstance(v, int) and v > 2:
            d[k] = 2
        elif k == "depths" and isinstance(v, list) and all(isinstance(x, int) for x in v):
            d[k] = [min(x, 1) for x in v]
        elif mild:
            continue
        elif k in HIDDEN_KEYS and isinstance(v, int) and v > HIDDEN:
            d[k] = HIDDEN
        elif k in HEAD_KEYS and isinstance(v, int) and v > HEADS:
            d[k] = 2 if k in ("num_key_value_heads", "n_kv_heads", "num_kv_heads") else HEADS
        elif k == "head_dim" and isinstance(v, int) and v > HIDDEN // HEADS:
            d[k] = HIDDEN // HEADS
        elif k in FFN_KEYS and isinstance(v, int) and v > FFN:
            d[k] = FFN
        elif k == "vocab_size" and isinstance(v, int) and v > vocab:
            d[k] = vocab
        elif k in ("max_position_embeddings", "n_positions") and isinstance(v, int) and v > MAXPOS:
            d[k] = MAXPOS
        elif k == "image_size" and isinstance(v, int) and v > IMAGE:
            d[k] = IMAGE
    # per-layer lists (layer_types, ...) follow the new layer count
    for lk in LAYER_KEYS & set(d):
        n = orig.get(lk)
        if isinstance(n, int) and not isinstance(n, bool) and n > 2 and d[lk] == 2:
            for k, v in d.items():
                if isinstance(v, list) and len(v) == n and k != "depths":
                    d[k] = v[:2]
    if not mild and "num_key_value_heads" in d and isinstance(d.get("num_attention_heads"), int):
        kv = d["num_key_value_heads"]
        if isinstance(kv, int) and (kv > d["num_attention_heads"] or d["num_attention_heads"] % kv):
            d["num_key_value_heads"] = d["num_attention_heads"]


def shrink_config(model_type, mild=False):
    """The small config of a model type: the config class's defaults, shrunk (layers 2, hidden
    32, heads 4, ffn 37, vocab 99 or just above the largest token id the config names, positions
    <= 512, images <= 64 pixels; `mild`: layers and experts only)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    cls = CONFIG_MAPPING[model_type]
    d = cls().to_dict()
    ids = []
    _token_ids(d, ids)
    vocab = max([VOCAB] + [i + 1 for i in ids if i < 300000])
    _shrink(d, vocab, mild)
    for k in ("transformers_version", "architectures", "_name_or_path"):
        d.pop(k, None)
    return cls.from_dict(d)


def _classes(model_type):
    import transformers
    from transformers.models.auto import modeling_auto as ma
    base = ma.MODEL_MAPPING_NAMES[model_type]
    if not isinstance(base, str):
        base = base[0]
    out = [("base", getattr(transformers, base))]
    lm = ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES.get(model_type)
    if lm:
        out.append(("lm", getattr(transformers, lm if isinstance(lm, str) else lm[0])))
    return out


def _sub(config, names):
    for n in names:
        c = getattr(config, n, None)
        if c is not None and hasattr(c, "to_dict"):
            return c
    return config


def _get(config, keys, default):
    for c in (config, _sub(config, ("vision_config", "audio_config", "encoder_config",
                                    "backbone_config", "text_config"))):
        for k in keys:
            v = getattr(c, k, None)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
            if isinstance(v, (list, tuple)) and v and isinstance(v[0], int):
                return v[0]
    return default


def build_inputs(torch, model, config, lm=False, pixels=False):
    """Inputs from the forward signature and main_input_name, drawn from a seeded generator."""
    g = torch.Generator().manual_seed(1)
    params = inspect.signature(model.forward).parameters
    main = getattr(model, "main_input_name", "input_ids")
    tcfg = _sub(config, ("text_config", "decoder", "decoder_config"))
    vocab = getattr(tcfg, "vocab_size", None) or getattr(config, "vocab_size", None) or VOCAB
    lo = 3 if vocab > 8 else 0
    inp = {}

    def ids():
        return torch.randint(lo, vocab, (BATCH, SEQ), generator=g)

    required = [n for n, p in params.items() if p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n != "self"]
    if lm or main == "input_ids" or (main not in params and "input_ids" in params):
        inp["input_ids"] = ids()
    elif main == "pixel_values":
        ch = _get(config, ("num_channels", "in_channels", "num_channels_in"), 3)
        sz = _get(config, ("image_size", "input_size"), IMAGE)
        inp["pixel_values"] = torch.randn(BATCH, ch, sz, sz, generator=g)
    elif main == "input_values":
        inp["input_values"] = torch.randn(BATCH, 1600, generator=g)
    elif main == "input_features":
        mel = _get(config, ("num_mel_bins", "feature_size", "input_feat_per_channel"), 80)
        src = getattr(config, "max_source_positions", None)
        frames = 2 * src if isinstance(src, int) and src <= 1500 else 64
        inp["input_features"] = torch.randn(BATCH, mel, frames, generator=g)
    elif main in params:
        raise ValueError("sweep: no input recipe for main_input_name %r" % main)
    if not lm:   # the other arguments forward() requires, by name
        for n in required + (["pixel_values"] if pixels else []):
            if n in inp:
                continue
            if n.endswith("input_ids"):
                inp[n] = ids()
            elif n.endswith("attention_mask"):
                inp[n] = torch.ones(BATCH, SEQ, dtype=torch.long)
            elif n == "pixel_values" and n in params:
                ch = _get(config, ("num_channels", "in_channels"), 3)
                sz = _get(config, ("image_size",), IMAGE)
                inp[n] = torch.randn(BATCH, ch, sz, sz, generator=g)
            else:
                raise ValueError("sweep: no input recipe for the required argument %r" % n)
    if not lm and "decoder_input_ids" in params and getattr(config, "is_encoder_decoder", False):
        dv = getattr(_sub(config, ("decoder",)), "vocab_size", None) or vocab
        inp["decoder_input_ids"] = torch.randint(lo, dv, (BATCH, SEQ // 2), generator=g)
    return inp


def first_tensor(torch, out):
    for name in ("last_hidden_state", "logits", "prediction_logits", "logits_per_image"):
        v = getattr(out, name, None)
        if isinstance(v, torch.Tensor):
            return name, v
    items = out.to_tuple() if hasattr(out, "to_tuple") else (out if isinstance(out, tuple)
                                                              else (out,))
    for v in items:
        if isinstance(v, torch.Tensor):
            return "output[0]", v
    raise ValueError("sweep: no tensor in the model output")


def _impls(cls):
    return ("eager", "sdpa") if getattr(cls, "_supports_sdpa", False) else ("eager",)


def _build(torch, cls, config):
    torch.manual_seed(0)
    m = cls(config)
    m.eval()
    return m


def _forward(torch, m, inp):
    with torch.no_grad():
        return first_tensor(torch, m(**inp))


def _generate(torch, m, ids):
    with torch.no_grad():
        g = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=NEW_TOKENS,
                       do_sample=False, min_new_tokens=NEW_TOKENS, pad_token_id=0)
    return g[0, ids.shape[1]:].tolist()


class _NoF64(Exception):
    pass


def task_ref(torch, np, t):
    """Reference: build (seeded), write weights/inputs and the float32/float64 outputs."""
    import transformers  # noqa: F401
    mt, out = t["model_type"], t["dir"]
    config, shrink = None, None
    errors = []
    # small config; the same with pixel_values added (dual encoders such as CLIP need both
    # inputs); layers-only shrinking
    for mild, pixels in ((False, False), (False, True), (True, False)):
        try:
            config = shrink_config(mt, mild)
            saved, runs, gen, inputs = {}, [], {}, {}
            for kind, cls in _classes(mt):
                if mild:
                    with torch.device("meta"):
                        n = sum(p.numel() for p in cls(config).parameters())
                    if n > MILD_MAX_PARAMS:
                        raise ValueError("sweep: the layers-only config has %d parameters, more "
                                         "than the sweep builds" % n)
                m = _build(torch, cls, config)
                inp = build_inputs(torch, m, config, lm=(kind == "lm"), pixels=pixels)
                inputs[kind] = inp
                impls = _impls(cls)
                res32 = {}
                for impl in impls:
                    m.set_attn_implementation(impl)
                    name, y = _forward(torch, m, inp)
                    res32[impl] = (name, y.detach().to(torch.float32).numpy())
                if kind == "lm":
                    ids = inp["input_ids"][:1]
                    for impl in impls:
                        m.set_attn_implementation(impl)
                        gen[impl] = _generate(torch, m, ids)
                saved[kind] = {k: v.clone() for k, v in m.state_dict().items()}
                m.double()
                inp64 = {k: (v.double() if v.is_floating_point() else v) for k, v in inp.items()}
                for impl in impls:
                    m.set_attn_implementation(impl)
                    try:
                        try:
                            _, y64 = _forward(torch, m, inp64)
                        except RuntimeError:
                            # grouped_mm (the default experts path) has no float64 kernel: the
                            # yardstick takes transformers' eager experts loop (the same sums)
                            if not hasattr(m, "set_experts_implementation"):
                                raise
                            m.set_experts_implementation("eager")
                            _, y64 = _forward(torch, m, inp64)
                    except Exception as e:
                        raise _NoF64("float64 forward (the tolerance's yardstick) fails upstream: "
                                     "%s: %s" % (type(e).__name__, str(e)[:200])) from None
                    run = "%s.%s" % (kind, impl)
                    np.save(os.path.join(out, run + ".ref32.npy"), res32[impl][1])
                    np.save(os.path.join(out, run + ".ref64.npy"),
                            y64.detach().to(torch.float64).numpy())
                    runs.append({"run": run, "output": res32[impl][0],
                                 "shape": list(res32[impl][1].shape)})
        except Exception as e:
            errors.append("%s: %s" % (type(e).__name__, str(e)[:300]))
            if isinstance(e, (TimeoutError, _NoF64)):
                break
            continue
        shrink = "mild" if mild else "small+pixels" if pixels else "small"
        break
    if shrink is None:
        return {"upstream_error": errors[0], "upstream_errors": errors}
    torch.save({"weights": saved, "inputs": inputs}, os.path.join(out, "ref.pt"))
    return {"shrink": shrink, "runs": runs, "generate": gen, "family": family(config, inputs["base"]),
            "upstream_errors": errors}


def family(config, inp):
    sub = [n for n in ("vision_config", "audio_config", "speech_config")
           if getattr(config, n, None) is not None]
    if sub and (getattr(config, "text_config", None) is not None or "input_ids" in inp):
        return "multimodal"
    if "pixel_values" in inp:
        return "vision"
    if "input_values" in inp or "input_features" in inp:
        return "audio"
    return "text"


def task_sub(torch, np, t):
    """Subject: same classes and config, reference weights and inputs, our outputs."""
    mt, out = t["model_type"], t["dir"]
    ref = t["ref"]
    blob = torch.load(os.path.join(out, "ref.pt"), weights_only=True)
    config = shrink_config(mt, ref["shrink"] == "mild")
    gen, runs, stage = {}, [], "build"
    try:
        for kind, cls in _classes(mt):
            stage = "build %s" % cls.__name__
            m = _build(torch, cls, config)
            stage = "load_state_dict"
            m.load_state_dict(blob["weights"][kind], strict=True)
            for impl in _impls(cls):
                stage = "forward %s %s" % (kind, impl)
                m.set_attn_implementation(impl)
                _, y = _forward(torch, m, blob["inputs"][kind])
                np.save(os.path.join(out, "%s.%s.sub.npy" % (kind, impl)),
                        y.detach().to(torch.float32).numpy())
                runs.append("%s.%s" % (kind, impl))
            if kind == "lm":
                for impl in _impls(cls):
                    stage = "generate %s" % impl
                    m.set_attn_implementation(impl)
                    gen[impl] = _generate(torch, m, blob["inputs"]["lm"]["input_ids"][:1])
    except Exception as e:
        return {"error": type(e).__name__, "msg": str(e)[:500], "stage": stage,
                "trace": traceback.format_exc()[-2000:], "runs": runs, "generate": gen}
    return {"runs": runs, "generate": gen}


class _Alarm(TimeoutError):
    pass


def _on_alarm(signum, frame):
    raise _Alarm("sweep: per-model time limit reached")


def run(job, start):
    import numpy as np
    import torch
    torch.set_num_threads(1)
    outdir = job["outdir"]
    prog = open(os.path.join(outdir, "progress.jsonl"), "a")
    signal.signal(signal.SIGALRM, _on_alarm)
    current = {"i": None, "t": 0.0}

    def watchdog():
        while True:
            time.sleep(2)
            i = current["i"]
            if i is not None and time.monotonic() - current["t"] > job["tasks"][i]["timeout"] + 60:
                os._exit(124)

    threading.Thread(target=watchdog, daemon=True).start()
    for i in range(start, len(job["tasks"])):
        t = job["tasks"][i]
        os.makedirs(t["dir"], exist_ok=True)
        prog.write(json.dumps({"start": i}) + "\n")
        prog.flush()
        t0 = time.perf_counter()
        current.update(i=i, t=time.monotonic())
        signal.alarm(int(t["timeout"]))
        try:
            rec = (task_ref if t["side"] == "ref" else task_sub)(torch, np, t)
        except BaseException as e:  # an alarm may land anywhere
            rec = {"error": type(e).__name__, "msg": str(e)[:500],
                   "trace": traceback.format_exc()[-2000:]}
        finally:
            signal.alarm(0)
            current["i"] = None
        rec["done"] = i
        rec["seconds"] = round(time.perf_counter() - t0, 3)
        prog.write(json.dumps(rec) + "\n")
        prog.flush()
    prog.close()


def main():
    mode, jobfile = sys.argv[1], sys.argv[2]
    with open(jobfile) as f:
        job = json.load(f)
    assert mode == "run", mode
    run(job, int(sys.argv[3]))


if __name__ == "__main__":
    main()
