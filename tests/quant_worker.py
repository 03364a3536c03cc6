"""Worker for tests/test_quant.py, run in a child interpreter (the pytest process never imports
torch). Modes (argv[1]), each reading/writing .npz files in the directory argv[2]:

  ref   (.venv-ref, imports only numpy and gguf): ggml's reference bytes for inputs.npz through
        gguf.quants (Q8_0, Q4_0, Q4_1), their dequantisation, Q8_1 by a numpy transcription of
        ggml's quantize_row_q8_1_ref (gguf has no Q8_1 quantiser), and the quantised product by
        the formula of src/kernels/quant.h evaluated in numpy float32 (bit-exact IEEE steps).
  ours  (.venv, torchnative's torch; TN_QUANT may force a variant): the same through
        torch.ops.torchnative, written to ours-<tag>.npz.
  check (.venv): a named check of the contract, prints JSON {"ok": ..., ...}.
"""
import json
import os
import sys

import numpy as np

FMTS = ("q8_0", "q4_0", "q4_1")
KFMTS = ("q2_k", "q3_k", "q4_k", "q5_k", "q6_k")
KBYTES = {"q2_k": 84, "q3_k": 110, "q4_k": 144, "q5_k": 176, "q6_k": 210, "q8_k": 292}
# k-quant products (K a multiple of 256): super-block counts 1, 3, 6 (1536), 9
KSHAPES = [(1, 5, 256), (3, 9, 768), (2, 17, 1536), (4, 12, 2304)]
# (M, N, K) products: block counts 1, 7, 8, 9, 18 (SmolLM2's 576), 48 (1536); several rows.
# Several activation rows take the Q8_0 tile kernel (up to 8 rows by 8 weight rows): M = 9, 6, 11
# and 17 give full tiles of 8 and tails of 1, 6, 3 and 1 rows; N = 21 and 40 weight-row tails.
SHAPES = [(1, 5, 32), (3, 9, 224), (2, 16, 256), (1, 33, 288), (4, 20, 576), (1, 17, 1536),
          (9, 21, 576), (6, 40, 288), (11, 8, 1536), (17, 24, 64), (17, 9, 32), (8, 12, 128)]
# the last two take as activations the edge blocks and the scaled rows below (the activation
# quantiser's corner cases: zeros, ties, +-3.4e38, subnormals, 1/d overflowing)
EDGE_X, SCALED_X = len(SHAPES) - 2, len(SHAPES) - 1


def make_inputs(path):
    rng = np.random.default_rng(1234)
    arrs = {}
    arrs["rand"] = (rng.standard_normal((64, 256)) * 0.05).astype(np.float32)
    arrs["scaled"] = (rng.standard_normal((8, 128)) * np.array([1e-30, 1e-5, 1e-3, 1, 10, 1e3, 1e20, 3e37])[:, None]).astype(np.float32)
    edge = []
    z = np.zeros(32, np.float32)
    edge.append(z)                                                   # zeros
    edge.append(-z)                                                  # negative zeros
    edge.append(np.full(32, 0.75, np.float32))                       # constant
    edge.append(np.full(32, -2.5, np.float32))
    one = z.copy(); one[5] = 1.0; edge.append(one)                   # single value
    one = z.copy(); one[31] = -3.0; edge.append(one)
    edge.append(np.linspace(-127, 127, 32).astype(np.float32))      # q8 steps of exactly 1/... ties
    ties = (np.arange(32) - 16 + 0.5).astype(np.float32); ties[0] = 127.0; edge.append(ties)  # x*id = k + .5
    edge.append(np.where(np.arange(32) % 2, 3.4e38, -3.4e38).astype(np.float32))  # extremes, no inf
    edge.append(np.linspace(-3.4e38, 3.4e38, 32).astype(np.float32))
    edge.append(np.full(32, 1e-45, np.float32))                      # smallest subnormal
    edge.append((np.arange(32) - 16).astype(np.float32) * 1e-40)     # subnormals (1/d overflows)
    edge.append((np.arange(32) - 16).astype(np.float32) * 1e-38)     # subnormal scale
    mix = rng.standard_normal(32).astype(np.float32); mix[::3] = 1e-42; edge.append(mix)
    edge.append(np.float32(65504.0) * np.sign(rng.standard_normal(32)).astype(np.float32) * 127)  # d near f16 max
    edge.append(np.full(32, 1e6, np.float32) * np.linspace(0.9, 1.0, 32).astype(np.float32))  # d overflows f16
    edge.append(rng.standard_normal(32).astype(np.float32) * 7e-6)  # d f16-subnormal
    arrs["edge"] = np.stack(edge)
    for i, (M, N, K) in enumerate(SHAPES):
        arrs["x%d" % i] = rng.standard_normal((M, K)).astype(np.float32)
        arrs["w%d" % i] = (rng.standard_normal((N, K)) * 0.1).astype(np.float32)
        arrs["b%d" % i] = rng.standard_normal(N).astype(np.float32)
    arrs["x%d" % EDGE_X], arrs["x%d" % SCALED_X] = arrs["edge"], arrs["scaled"]
    arrs["randbytes"] = rng.integers(0, 256, (4, 36 * 20 * 4), dtype=np.uint8)  # any bit pattern
    # k-quants (super-blocks of 256)
    arrs["krand"] = (rng.standard_normal((24, 512)) * 0.05).astype(np.float32)
    arrs["kscaled"] = (rng.standard_normal((10, 256)) * np.array([1e-38, 1e-30, 1e-5, 1e-3, 1, 10, 1e3, 1e20, 1e30, 3e37])[:, None]).astype(np.float32)
    ke = []
    z = np.zeros(256, np.float32)
    ke += [z, -z, np.full(256, 0.75, np.float32), np.full(256, -2.5, np.float32)]
    one = z.copy(); one[5] = 1.0; ke.append(one)
    one = z.copy(); one[200] = -3.0; ke.append(one)
    ke.append(np.abs(rng.standard_normal(256)).astype(np.float32) + 5)      # all positive: min > 0
    ke.append(-np.abs(rng.standard_normal(256)).astype(np.float32) - 5)
    sp = rng.standard_normal(256).astype(np.float32); sp[rng.random(256) < 0.8] = 0; ke.append(sp)  # sparse
    ke.append((np.round(rng.standard_normal(256) * 4) / 4).astype(np.float32))  # ties
    ke.append(rng.standard_t(2, 256).astype(np.float32))                      # heavy tails
    ke.append(np.where(np.arange(256) % 2, 3.4e38, -3.4e38).astype(np.float32))
    ke.append(np.linspace(-3.4e38, 3.4e38, 256).astype(np.float32))
    ke.append(np.full(256, 1e-45, np.float32))
    ke.append(((np.arange(256) - 128) * 1e-40).astype(np.float32))
    ke.append(rng.standard_normal(256).astype(np.float32) * 7e-6)
    ke.append(np.float32(65504.0) * rng.standard_normal(256).astype(np.float32) * 64)
    inf = rng.standard_normal(256).astype(np.float32); inf[::7] = np.inf; ke.append(inf)
    nan = rng.standard_normal(256).astype(np.float32); nan[3] = np.nan; ke.append(nan)
    arrs["kedge"] = np.stack(ke)
    arrs["krandbytes"] = rng.integers(0, 256, (3, 144 * 210 // 6), dtype=np.uint8)  # 60 Q2_K, 45 Q3_K, 35 Q4_K, 28 Q5_K, 24 Q6_K blocks
    for i, (M, N, K) in enumerate(KSHAPES):
        arrs["kx%d" % i] = rng.standard_normal((M, K)).astype(np.float32)
        arrs["kw%d" % i] = (rng.standard_normal((N, K)) * 0.1).astype(np.float32)
        arrs["kb%d" % i] = rng.standard_normal(N).astype(np.float32)
    np.savez(path, **arrs)


# ---------------- ref side: numpy + gguf only ----------------

def q8_1_ref(x):
    """ggml's quantize_row_q8_1_ref in numpy float32: bytes (rows, nb*36)."""
    b = x.reshape(-1, 32).astype(np.float32)
    amax = np.abs(b).max(axis=1, keepdims=True)
    d = (amax / np.float32(127)).astype(np.float32)
    with np.errstate(divide="ignore"):
        idv = np.where(d == 0, np.float32(0), np.float32(1) / d).astype(np.float32)
    with np.errstate(invalid="ignore"):
        v = (b * idv).astype(np.float32)
        a = np.abs(v); fl = np.floor(a)
        r = (np.sign(v) * (fl + np.floor(np.float32(2) * (a - fl)))).astype(np.float32)
        q = r.astype(np.int8)
    s = (q.astype(np.int32).sum(axis=1, keepdims=True).astype(np.float32) * d).astype(np.float32)
    out = np.concatenate([d.astype(np.float16).view(np.uint8), s.astype(np.float16).view(np.uint8), q.view(np.uint8)], axis=1)
    return out.reshape(x.shape[0], -1)


def product_ref(fmt, x, qw, N, K, bias):
    """The formula of kernels/quant.h in numpy float32."""
    import gguf
    T = gguf.GGMLQuantizationType
    M, nb = x.shape[0], K // 32
    bs = {"q8_0": 34, "q4_0": 18, "q4_1": 20}[fmt]
    wb = qw.reshape(N, nb, bs)
    dw = wb[:, :, 0:2].copy().view(np.float16).astype(np.float32)[:, :, 0]
    if fmt == "q8_0":
        wq = wb[:, :, 2:].view(np.int8).astype(np.int64)
    else:
        raw = wb[:, :, 2 if fmt == "q4_0" else 4:]
        wq = np.concatenate([raw & 0x0F, raw >> 4], axis=2).astype(np.int64) - (8 if fmt == "q4_0" else 0)
    if fmt == "q4_1":
        act = q8_1_ref(x).reshape(M, nb, 36)
        da = act[:, :, 0:2].copy().view(np.float16).astype(np.float32)[:, :, 0]
        sa = act[:, :, 2:4].copy().view(np.float16).astype(np.float32)[:, :, 0]
        aq = act[:, :, 4:].view(np.int8).astype(np.int64)
        mw = wb[:, :, 2:4].copy().view(np.float16).astype(np.float32)[:, :, 0]
    else:
        act = gguf.quants.quantize(x, T.Q8_0).reshape(M, nb, 34)
        da = act[:, :, 0:2].copy().view(np.float16).astype(np.float32)[:, :, 0]
        aq = act[:, :, 2:].view(np.int8).astype(np.int64)
    y = np.zeros((M, N), np.float32)
    for m in range(M):
        sumi = (wq * aq[m][None]).sum(axis=2).astype(np.float32)  # exact: |sumi| < 2^24
        if fmt == "q4_1":
            p = ((dw * da[m][None]) * sumi + mw * sa[m][None]).astype(np.float32)
        else:
            p = (sumi * (dw * da[m][None])).astype(np.float32)
        lanes = np.zeros((N, 8), np.float32)
        for b in range(nb):
            lanes[:, b % 8] = (lanes[:, b % 8] + p[:, b]).astype(np.float32)
        h = [(lanes[:, i] + lanes[:, i + 4]).astype(np.float32) for i in range(4)]
        r = ((h[0] + h[2]).astype(np.float32) + (h[1] + h[3]).astype(np.float32)).astype(np.float32)
        y[m] = r + bias if bias is not None else r
    return y


def run_ref(d):
    import gguf
    T = {"q8_0": gguf.GGMLQuantizationType.Q8_0, "q4_0": gguf.GGMLQuantizationType.Q4_0,
         "q4_1": gguf.GGMLQuantizationType.Q4_1}
    inp = dict(np.load(os.path.join(d, "inputs.npz")))
    out = {}
    with np.errstate(all="ignore"):
        for f in FMTS:
            for name in ("rand", "scaled", "edge"):
                q = gguf.quants.quantize(inp[name], T[f])
                out["%s_%s" % (f, name)] = q
                out["%s_%s_dq" % (f, name)] = gguf.quants.dequantize(q, T[f])
            rb = inp["randbytes"][:, : (inp["randbytes"].shape[1] // {"q8_0": 34, "q4_0": 18, "q4_1": 20}[f]) * {"q8_0": 34, "q4_0": 18, "q4_1": 20}[f]]
            out["%s_randbytes_dq" % f] = gguf.quants.dequantize(rb, T[f])
        for name in ("rand", "scaled", "edge"):
            out["q8_1_%s" % name] = q8_1_ref(inp[name])
        # k-quants: bytes by the numpy transcription of ggml's C (tests/quant_kref.py), their
        # dequantisation by gguf's own dequantiser
        import quant_kref
        KT = {f: getattr(gguf.GGMLQuantizationType, f.upper()) for f in KFMTS}
        for name in ("krand", "kscaled", "kedge"):
            x = inp[name]
            for f in KFMTS:
                q = getattr(quant_kref, f)(x).reshape(x.shape[0], -1)
                out["%s_%s" % (f, name)] = q
                out["%s_%s_dq" % (f, name)] = gguf.quants.dequantize(q, KT[f])
            out["q8_k_%s" % name] = quant_kref.q8_k_bytes(x).reshape(x.shape[0], -1)
        for f in KFMTS:
            rb = inp["krandbytes"]
            rb = rb[:, : rb.shape[1] // KBYTES[f] * KBYTES[f]]
            out["%s_krandbytes_dq" % f] = gguf.quants.dequantize(rb, KT[f])
        for i in range(len(KSHAPES)):
            for f in KFMTS:
                w = inp["kw%d" % i]
                qw = getattr(quant_kref, f)(w).reshape(w.shape[0], -1)
                out["prod_%s_%d" % (f, i)] = quant_kref.product(f, inp["kx%d" % i], qw, w.shape[0], w.shape[1], None)
                out["prodb_%s_%d" % (f, i)] = quant_kref.product(f, inp["kx%d" % i], qw, w.shape[0], w.shape[1], inp["kb%d" % i])
        for i in range(len(SHAPES)):
            for f in FMTS:
                qw = gguf.quants.quantize(inp["w%d" % i], T[f])
                out["prod_%s_%d" % (f, i)] = product_ref(f, inp["x%d" % i], qw, qw.shape[0], inp["w%d" % i].shape[1], None)
                out["prodb_%s_%d" % (f, i)] = product_ref(f, inp["x%d" % i], qw, qw.shape[0], inp["w%d" % i].shape[1], inp["b%d" % i])
    np.savez(os.path.join(d, "ref.npz"), **out)


# ---------------- our side ----------------

def run_ours(d, tag):
    import torch
    ops = torch.ops.torchnative
    inp = dict(np.load(os.path.join(d, "inputs.npz")))
    out = {"isa": np.array(ops.quant_isa())}
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    bsz = {"q8_0": 34, "q4_0": 18, "q4_1": 20, "q8_1": 36}
    for f in FMTS + ("q8_1",):
        for name in ("rand", "scaled", "edge"):
            q = ops.quantize(t(inp[name]), f)
            out["%s_%s" % (f, name)] = q.numpy()
            if f != "q8_1":
                out["%s_%s_dq" % (f, name)] = ops.dequantize(q, f, q.shape[0], inp[name].shape[1]).numpy()
        if f != "q8_1":
            rb = inp["randbytes"]
            rb = rb[:, : (rb.shape[1] // bsz[f]) * bsz[f]]
            out["%s_randbytes_dq" % f] = ops.dequantize(t(rb), f, rb.shape[0], rb.shape[1] // bsz[f] * 32).numpy()
    for name in ("krand", "kscaled", "kedge"):
        for f in KFMTS + ("q8_k",):
            q = ops.quantize(t(inp[name]), f)
            out["%s_%s" % (f, name)] = q.numpy()
            if f != "q8_k":
                out["%s_%s_dq" % (f, name)] = ops.dequantize(q, f, q.shape[0], inp[name].shape[1]).numpy()
    for f in KFMTS:
        rb = inp["krandbytes"]
        rb = rb[:, : rb.shape[1] // KBYTES[f] * KBYTES[f]]
        out["%s_krandbytes_dq" % f] = ops.dequantize(t(rb), f, rb.shape[0], rb.shape[1] // KBYTES[f] * 256).numpy()
    cases = [(i, s, f, "") for i, s in enumerate(SHAPES) for f in FMTS]
    cases += [(i, s, f, "k") for i, s in enumerate(KSHAPES) for f in KFMTS]
    for i, (M, N, K), f, k in cases:
        qw = ops.quantize(t(inp["%sw%d" % (k, i)]), f)
        x = t(inp["%sx%d" % (k, i)])
        out["prod_%s_%d" % (f, i)] = ops.quant_linear(x, qw, f, N, K, None).numpy()
        out["prodb_%s_%d" % (f, i)] = ops.quant_linear(x, qw, f, N, K, t(inp["%sb%d" % (k, i)])).numpy()
        # non-contiguous input, 3-d input: the same rows
        xt = t(np.ascontiguousarray(inp["%sx%d" % (k, i)].T)).t()
        out["prodnc_%s_%d" % (f, i)] = ops.quant_linear(xt, qw, f, N, K, None).numpy()
        out["prod3d_%s_%d" % (f, i)] = ops.quant_linear(x.reshape(1, M, K), qw, f, N, K, None).numpy().reshape(M, N)
    np.savez(os.path.join(d, "ours-%s.npz" % tag), **out)


if __name__ == "__main__":
    mode, d = sys.argv[1], sys.argv[2]
    if mode == "inputs":
        make_inputs(os.path.join(d, "inputs.npz"))
    elif mode == "ref":
        run_ref(d)
    elif mode == "ours":
        run_ours(d, sys.argv[3])
    elif mode == "gguf_ref":
        # upstream torch + transformers' own GGUF loader (dequantised to float32 with gguf)
        import torch
        import transformers
        from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
        src, name = os.path.split(sys.argv[3])
        cfg = transformers.AutoConfig.from_pretrained(src, gguf_file=name)
        m = transformers.AutoModelForCausalLM.from_config(cfg)
        sd = load_gguf_checkpoint(sys.argv[3], return_tensors=True, model_to_load=m)["tensors"]
        m.load_state_dict(sd, strict=False)
        m.tie_weights()
        ids = torch.tensor([[504, 3575, 282, 4649, 314]])
        with torch.no_grad():
            np.save(os.path.join(d, "gguf_up.npy"), m.eval()(ids).logits.numpy())
    elif mode == "kgguf_bytes":
        # ours: every ffn_down of the file (in_features 1536) dequantised and re-quantised by
        # torchnative::quantize, layer i to KFMTS[i % 5]
        import torch
        from torchnative.quant.gguf import GGUFFile
        g, ops, out = GGUFFile(sys.argv[3]), torch.ops.torchnative, {}
        for name, (fmt, dims, off, nb) in g.tensors.items():
            if name.endswith("ffn_down.weight"):
                cols, rows = dims
                f = KFMTS[int(name.split(".")[1]) % len(KFMTS)]
                w = ops.dequantize(g.raw(name).reshape(rows, -1), fmt, rows, cols)
                out[f + ":" + name] = ops.quantize(w, f).numpy()
        np.savez(os.path.join(d, "kdown.npz"), **out)
    elif mode == "kgguf_write":
        # upstream side (gguf's writer): the file with those tensors in their k-quant types
        import gguf
        new = {k.split(":", 1)[1]: (k.split(":", 1)[0], v) for k, v in np.load(os.path.join(d, "kdown.npz")).items()}
        r = gguf.GGUFReader(sys.argv[3])
        w = gguf.GGUFWriter(os.path.join(d, "k.gguf"), r.fields["general.architecture"].contents())
        V = gguf.GGUFValueType
        for k, fld in r.fields.items():
            if not k.startswith("GGUF.") and k != "general.architecture":
                w.add_key_value(k, fld.contents(), fld.types[0], fld.types[-1] if fld.types[0] == V.ARRAY else None)
        for t in r.tensors:
            if t.name in new:
                w.add_tensor(t.name, new[t.name][1], raw_dtype=getattr(gguf.GGMLQuantizationType, new[t.name][0].upper()))
            else:
                w.add_tensor(t.name, np.asarray(t.data), raw_dtype=t.tensor_type)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    elif mode == "kgguf_fmts":
        import torch
        from torchnative.quant.gguf import load_llama
        m = load_llama(sys.argv[3])
        print(json.dumps([getattr(layer.mlp.down_proj, "fmt", None) for layer in m.model.layers]))
    elif mode == "gguf_ours":
        import torch
        from torchnative.quant.gguf import load_llama
        with torch.no_grad():
            lg = load_llama(sys.argv[3], dequantize=True)(torch.tensor([[504, 3575, 282, 4649, 314]])).logits
        np.save(os.path.join(d, "gguf_ours.npy"), lg.numpy())
    elif mode == "check":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import quant_checks
        print(json.dumps(getattr(quant_checks, sys.argv[3])()))
