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
              "num_self_attends_per_block", "backbone_layers", "layers", "depth"}
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
QUERIES = 16  # detection queries (top-k over a 64-pixel image's anchors)
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


def _pick(d, n):
    """The 2 of n layers kept: the first, and the first one of another kind when the config
    names a kind per layer (`layer_types`, ...), so a hybrid keeps one layer of each kind."""
    for k in ("layer_types", "attn_layers", "mlp_layer_types"):
        v = d.get(k)
        if isinstance(v, list) and len(v) == n:
            for j in range(1, n):
                if v[j] != v[0]:
                    return [0, j]
    return [0, 1]


def _split(total, weights):
    """`total` split in proportion to `weights` (integers, each >= 1 while total allows)."""
    if total < len(weights):
        return [1] * total + [0] * (len(weights) - total)
    w = sum(weights)
    out = [max(1, total * x // w) for x in weights]
    i = 0
    while sum(out) != total:
        j = i % len(out)
        if sum(out) < total:
            out[j] += 1
        elif out[j] > 1:
            out[j] -= 1
        i += 1
    return out


def _cut_layers(d, lk, n, sel):
    """Layer count `lk` of n cut to len(sel): per-layer lists and per-layer dicts keep the
    selected layers, lists of layer indices keep the selected ones (renumbered)."""
    d[lk] = len(sel)
    for k, v in list(d.items()):
        if k == "depths":
            continue
        if isinstance(v, list) and len(v) == n:
            d[k] = [v[i] for i in sel]
        elif k == "per_layer_config" and isinstance(v, dict):
            # keys are layer indices ("05" or 5): the kept layers' entries, renumbered
            new = {}
            for i, old in enumerate(sel):
                for kk, vv in v.items():
                    if str(kk).lstrip("0") == str(old).lstrip("0"):
                        new[str(i).zfill(len(kk)) if isinstance(kk, str) else i] = vv
            d[k] = new
        elif (isinstance(v, list) and v and str(k).endswith(("_layers", "_layer_indices",
                                                         "_block_indexes"))
              and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n for x in v)):
            d[k] = [sel.index(x) for x in v if x in sel]
    if isinstance(d.get("attn_layer_period"), int) and d["attn_layer_period"] > len(sel):
        d["attn_layer_period"], d["attn_layer_offset"] = len(sel), len(sel) - 1  # jamba


def _backbone_outputs(d, lk, n):
    """A backbone's out_indices / out_features over stage names: as many layers as outputs
    (at least 2), the outputs renumbered in order onto the last stages."""
    idx = d.get("out_indices")
    if not (isinstance(idx, list) and idx and all(isinstance(x, int) and 0 <= x <= n for x in idx)):
        return None
    m = max(2, len(idx))
    new = [x if x == 0 else m - len([y for y in idx if y > x]) for x in sorted(idx)]
    d["out_indices"] = new
    d["stage_names"] = ["stem"] + ["stage%d" % i for i in range(1, m + 1)]
    d["out_features"] = [d["stage_names"][i] for i in new]
    return m


def _heads_list(v):
    """Per-stage head counts (swin-like): powers of two at most HEADS."""
    return [max(p for p in (1, 2, 4) if p <= min(x, HEADS)) for x in v]


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
        elif k in ("num_experts_per_tok", "num_experts_per_token", "moe_k", "top_k",
                   "moe_top_k") and isinstance(v, int) and v > 2:
            d[k] = 2
        elif k in ("n_group", "num_expert_group") and isinstance(v, int) and v > 2:
            d[k] = 2     # expert groups of the 4 experts (deepseek routing), one group chosen
        elif k == "topk_group" and isinstance(v, int) and v > 1:
            d[k] = 1
        elif k == "depths" and isinstance(v, list) and all(isinstance(x, int) for x in v):
            d[k] = [min(x, 1) for x in v]
        elif mild:
            continue
        elif ((k in HIDDEN_KEYS or str(k).endswith("_hidden_size") or k == "upsample_groups")
              and isinstance(v, int) and v > HIDDEN):
            d[k] = HIDDEN    # (another config's hidden size named here: the projector's, ...)
        elif k == "num_queries" and isinstance(v, int) and v > QUERIES:
            d[k] = QUERIES   # detection queries: a top-k over the small image's anchors
        elif k in HEAD_KEYS and isinstance(v, int) and v > HEADS:
            d[k] = 2 if k in ("num_key_value_heads", "n_kv_heads", "num_kv_heads") else HEADS
        elif k in HEAD_KEYS and isinstance(v, list) and v and all(isinstance(x, int) for x in v):
            d[k] = _heads_list(v)
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
    for lk in sorted(LAYER_KEYS & set(d)):
        n = orig.get(lk)
        if isinstance(n, int) and not isinstance(n, bool) and n > 2 and d[lk] == 2:
            if isinstance(d.get("depths"), list) and len(d["depths"]) == n:
                d[lk] = n        # the stage count of `depths` (swin): the stages stay, 1 block each
                continue
            m = _backbone_outputs(d, lk, n)
            _cut_layers(d, lk, n, list(range(m)) if m else _pick(orig, n))
    if (d.get("num_experts_per_tok", 0) is None
            and any(isinstance(d.get(k), int) for k in EXPERT_KEYS)):
        d["num_experts_per_tok"] = 2    # unset in deepseek_v2's defaults (checkpoints set it)
    if "attn_layer_indices" in d and d["attn_layer_indices"] is None and "mamba_n_heads" in d:
        d["attn_layer_indices"] = [1]   # bamba's default has no attention layer; checkpoints do
    bt = d.get("block_types")   # a repeating pattern (recurrent_gemma): one block of each kind
    if isinstance(bt, list) and len(bt) > 2 and len(set(map(str, bt))) > 1:
        d["block_types"] = [bt[0], next(x for x in bt if x != bt[0])]
    if mild:
        return
    if "num_key_value_heads" in d and isinstance(d.get("num_attention_heads"), int):
        kv = d["num_key_value_heads"]
        if isinstance(kv, int) and (kv > d["num_attention_heads"] or d["num_attention_heads"] % kv
                                    or orig["num_key_value_heads"] == orig["num_attention_heads"]):
            d["num_key_value_heads"] = d["num_attention_heads"]   # (multi-head stays multi-head)
    _shrink_dims(d, orig)


def _shrink_dims(d, orig):
    """Sizes derived from the shrunk ones: head dims, rotary and MLA dims, rope sections,
    state-space heads."""
    hid, heads = d.get("hidden_size"), d.get("num_attention_heads")
    per_head = hid // heads if isinstance(hid, int) and isinstance(heads, int) and heads else None
    if "head_dim" in d and d["head_dim"] is None and per_head:
        d["head_dim"] = per_head      # the class reads it without a fallback (hunyuan, ministral)
    hd = d.get("head_dim") if isinstance(d.get("head_dim"), int) else per_head
    nhead = d.get("n_head")
    if isinstance(d.get("rotary_dim"), int) and isinstance(nhead, int):   # gptj, codegen
        d["rotary_dim"] = min(d["rotary_dim"], d.get("n_embd", HIDDEN) // nhead)
    if isinstance(d.get("qk_rope_head_dim"), int):      # multi-head latent attention (deepseek)
        same = orig.get("head_dim") == orig["qk_rope_head_dim"]
        for k, v in (("qk_rope_head_dim", 4), ("qk_nope_head_dim", 8), ("v_head_dim", 8),
                     ("kv_lora_rank", 16), ("q_lora_rank", 16), ("index_head_dim", 8)):
            if isinstance(d.get(k), int):
                d[k] = v
        if isinstance(d.get("qk_head_dim"), int):
            d["qk_head_dim"] = d["qk_rope_head_dim"] + d.get("qk_nope_head_dim", 0)
        if same:
            d["head_dim"] = hd = d["qk_rope_head_dim"]
        if isinstance(d.get("index_n_heads"), int) and d["index_n_heads"] > HEADS:
            d["index_n_heads"] = HEADS
    rp = d.get("rope_parameters")
    if isinstance(rp, dict) and isinstance(rp.get("mrope_section"), list) and hd:
        prf = rp.get("partial_rotary_factor", d.get("partial_rotary_factor", 1.0)) or 1.0
        rp["mrope_section"] = _split(int(hd * prf) // 2, rp["mrope_section"])
    elif (isinstance(rp, dict) and "rope_type" in rp and hd and "mrope_section" in
          getattr(_config_class(d.get("model_type")), "ignore_keys_at_rope_validation", ())):
        # the class has a built-in default for hidden sizes the shrunk one is not (glm4v)
        prf = rp.get("partial_rotary_factor", d.get("partial_rotary_factor", 1.0)) or 1.0
        rp["mrope_section"] = _split(int(hd * prf) // 2, [2, 3, 3])
    for nh, dh, ex in (("mamba_n_heads", "mamba_d_head", "mamba_expand"),
                       ("num_heads", "head_dim", "expand")):   # heads * dim = expand * hidden
        if (all(isinstance(d.get(k), int) for k in (nh, dh, ex)) and isinstance(hid, int)
                and "mamba_d_ssm" not in d):   # (falcon_h1 sizes its mamba by d_ssm: runs as is)
            d[nh] = min(d[nh], HEADS)
            d[dh] = d[ex] * hid // d[nh]
            for g in ("n_groups", "mamba_n_groups"):
                if isinstance(d.get(g), int) and d[nh] % d[g]:
                    d[g] = 1


def _config_class(model_type):
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    try:
        return CONFIG_MAPPING[model_type] if model_type else None
    except KeyError:
        return None


def shrink_config(model_type, mild=False):
    """The small config of a model type: the config class's defaults, shrunk (layers 2, hidden
    32, heads 4, ffn 40, vocab 99 or just above the largest token id the config names, positions
    <= 512, images <= 64 pixels, and the sizes those imply: _cut_layers, _shrink_dims; `mild`:
    layers and experts only). docs/sweep.md lists the rules."""
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


VARIANTS = ("pixels", "bbox", "audio3d", "frames-first")


def _vision_patches(torch, g, config):
    """Flattened patches and their (t, h, w) grid, the Qwen2-VL-style vision tower input: per
    image a 1 x 4 x 4 grid (even, for a 2 x 2 spatial merge)."""
    ch = _get(config, ("in_channels", "num_channels"), 3)
    ps = _get(config, ("patch_size",), 14)
    tp = _get(config, ("temporal_patch_size",), 1)
    grid = torch.tensor([[1, 4, 4]] * BATCH)
    return torch.randn(BATCH * 16, ch * tp * ps * ps, generator=g), grid


def build_inputs(torch, model, config, lm=False, variant=None):
    """Inputs from the forward signature and main_input_name, drawn from a seeded generator.
    `variant`: "pixels" adds pixel_values (dual encoders), "bbox" adds token boxes (layout
    models whose bbox is optional in the signature only), "audio3d" gives input_values a
    channel dimension (B, 1, T), "frames-first" gives input_features as (B, frames, mel)."""
    g = torch.Generator().manual_seed(1)
    params = inspect.signature(model.forward).parameters
    main = getattr(model, "main_input_name", "input_ids")
    tcfg = _sub(config, ("text_config", "decoder", "decoder_config"))
    vocab = getattr(tcfg, "vocab_size", None) or getattr(config, "vocab_size", None) or VOCAB
    lo = 3 if vocab > 8 else 0
    inp = {}
    if lm:
        variant = None

    required = [n for n, p in params.items() if p.default is inspect.Parameter.empty
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n != "self"]
    patches = None
    if any(n.endswith("grid_thw") for n in required):
        patches = _vision_patches(torch, g, config)

    def make(n, is_main=False):
        """The recipe for the argument named n (None: there is none)."""
        if n.endswith("input_ids"):
            return torch.randint(lo, vocab, (BATCH, SEQ), generator=g)
        if n.endswith("attention_mask"):
            return torch.ones(BATCH, SEQ, dtype=torch.long)
        if n == "pixel_values" and patches is not None:
            return patches[0]
        if n == "pixel_values":
            ch = _get(config, ("num_channels", "in_channels") + (("num_channels_in",) if is_main
                                                                 else ()), 3)
            sz = _get(config, ("image_size", "input_size") if is_main else ("image_size",), IMAGE)
            return torch.randn(BATCH, ch, sz, sz, generator=g)
        if n == "input_values":
            shape = (BATCH, 1, 1600) if variant == "audio3d" else (BATCH, 1600)
            return torch.randn(*shape, generator=g)
        if n == "input_features":
            mel = _get(config, ("num_mel_bins", "feature_size", "input_feat_per_channel"), 80)
            src = getattr(config, "max_source_positions", None)
            frames = 2 * src if isinstance(src, int) and src <= 1500 else 64
            x = torch.randn(BATCH, mel, frames, generator=g)
            return x.transpose(1, 2).contiguous() if variant == "frames-first" else x
        if n == "input_features_mask" and "input_features" in inp:
            frames = inp["input_features"].shape[1 if variant == "frames-first" else 2]
            return torch.ones(BATCH, frames, dtype=torch.bool)
        if n == "past_values":   # time series (patchtst): (batch, context, channels)
            return torch.randn(BATCH, _get(config, ("context_length",), 32),
                               _get(config, ("num_input_channels",), 1), generator=g)
        if n == "bbox":   # layout models: boxes with x0 <= x1, y0 <= y1 in 0..1000
            xy = torch.randint(0, 1000, (BATCH, SEQ, 2, 2), generator=g).sort(dim=2).values
            return xy.transpose(2, 3).reshape(BATCH, SEQ, 4)
        if n.endswith("grid_thw") and patches is not None:
            return patches[1]
        if n == "hidden_states" and patches is not None:
            return patches[0]
        return None

    if lm or (main == "input_ids" and (patches is None or main in params)) or (
            main not in params and "input_ids" in params):
        inp["input_ids"] = make("input_ids")
    elif main in params:
        inp[main] = make(main, is_main=True)
        if inp[main] is None:
            raise ValueError("sweep: no input recipe for main_input_name %r" % main)
    if not lm:   # the other arguments forward() requires, by name
        extra = {"pixels": ["pixel_values"], "bbox": ["bbox"]}.get(variant, [])
        if "input_features_mask" in params:
            extra.append("input_features_mask")
        for n in required + extra:
            v = inp[n] if n in inp else make(n)
            if v is not None:
                inp[n] = v
            elif n in required:
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


def _impls(m):
    """eager, and sdpa where the class offers it and set_attn_implementation accepts it for
    every sub-model (a sub-model may refuse: pp_ocr's HGNetV2 backbone, vibevoice's tokenizer)."""
    out = ["eager"]
    if getattr(type(m), "_supports_sdpa", False):
        try:
            m.set_attn_implementation("sdpa")
            out.append("sdpa")
        except ValueError as e:
            if "does not support" not in str(e):
                raise
    return out


def _build(torch, cls, config):
    torch.manual_seed(0)
    cc = getattr(cls, "config_class", None)
    if (isinstance(cc, type) and not isinstance(config, cc) and hasattr(config, "get_text_config")
            and isinstance(config.get_text_config(decoder=True), cc)):
        # the causal-LM class of a composite config (qwen3_5, musicgen) gets its text decoder's
        config = config.get_text_config(decoder=True)
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


class _TooBig(ValueError):
    pass


def _variant_applies(cls, variant):
    """Whether an input variant changes anything for the class (read off its forward signature
    before anything is built: building a large model for nothing cost sam2 its time limit)."""
    params = inspect.signature(cls.forward).parameters
    main = getattr(cls, "main_input_name", "input_ids")
    return variant is None or {"pixels": "pixel_values" in params and main != "pixel_values",
                               "bbox": "bbox" in params, "audio3d": "input_values" in params,
                               "frames-first": main == "input_features"}[variant]


def task_ref(torch, np, t):
    """Reference: build (seeded), write weights/inputs and the float32/float64 outputs."""
    import transformers  # noqa: F401
    mt, out = t["model_type"], t["dir"]
    config, shrink = None, None
    errors = []
    # small config, then layers-only shrinking; each with the plain inputs, then the input
    # variants that apply (pixel_values added: dual encoders such as CLIP need both; audio
    # with a channel dimension; features frames-first)
    for mild, variant in [(m, v) for m in (False, True) for v in (None,) + VARIANTS]:
        if not _variant_applies(_classes(mt)[0][1], variant):
            continue
        try:
            config = shrink_config(mt, mild)
            saved, runs, gen, inputs = {}, [], {}, {}
            for kind, cls in _classes(mt):
                if mild:
                    with torch.device("meta"):
                        n = sum(p.numel() for p in cls(config).parameters())
                    if n > MILD_MAX_PARAMS:
                        raise _TooBig("sweep: the layers-only config has %d parameters, more "
                                         "than the sweep builds" % n)
                m = _build(torch, cls, config)
                inp = build_inputs(torch, m, config, lm=(kind == "lm"), variant=variant)
                inputs[kind] = inp
                impls = _impls(m)
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
            if isinstance(e, (TimeoutError, _NoF64, _TooBig)):
                break
            continue
        shrink = ("mild" if mild else "small") + ("+" + variant if variant else "")
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
    if "pixel_values" in inp or any(k.endswith("grid_thw") for k in inp):
        return "vision"
    if "input_values" in inp or "input_features" in inp:
        return "audio"
    return "text"


def task_sub(torch, np, t):
    """Subject: same classes and config, reference weights and inputs, our outputs."""
    mt, out = t["model_type"], t["dir"]
    ref = t["ref"]
    blob = torch.load(os.path.join(out, "ref.pt"), weights_only=True)
    config = shrink_config(mt, ref["shrink"].startswith("mild"))
    gen, runs, stage = {}, [], "build"
    try:
        for kind, cls in _classes(mt):
            stage = "build %s" % cls.__name__
            m = _build(torch, cls, config)
            stage = "load_state_dict"
            m.load_state_dict(blob["weights"][kind], strict=True)
            impls = _impls(m)
            for impl in impls:
                stage = "forward %s %s" % (kind, impl)
                m.set_attn_implementation(impl)
                _, y = _forward(torch, m, blob["inputs"][kind])
                np.save(os.path.join(out, "%s.%s.sub.npy" % (kind, impl)),
                        y.detach().to(torch.float32).numpy())
                runs.append("%s.%s" % (kind, impl))
            if kind == "lm":
                for impl in impls:
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
