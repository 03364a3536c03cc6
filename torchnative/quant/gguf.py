"""Load a llama-architecture GGUF file into a transformers LlamaForCausalLM on torchnative, with
the file's Q8_0 / Q4_0 / Q4_1 / Q2_K / Q3_K / Q4_K / Q5_K / Q6_K tensors used in place (QuantLinear / QuantEmbedding over uint8
views of the memory-mapped file: no float copy of those weights). F32/F16 tensors (norms) are
read as float. Q and K projections are stored permuted by llama.cpp's converter; their rows are
put back in transformers' order (a row permutation of the block bytes, as transformers' own GGUF
loader does to the float weights).

    from torchnative.quant.gguf import load_llama
    model = load_llama("SmolLM2-135M-Instruct.Q4_1.gguf")

The reader checks every length and offset against the file and raises ValueError naming the
problem (bad magic or version, truncated header, unknown value or tensor type, dimension products
that overflow, tensor data past the end or misaligned). No tokenizer is built (transformers'
GGUF tokenizer needs the `gguf` package).
"""
import mmap
import struct

GGML_TYPES = {0: ("f32", 1, 4), 1: ("f16", 1, 2), 2: ("q4_0", 32, 18), 3: ("q4_1", 32, 20), 8: ("q8_0", 32, 34),
              10: ("q2_k", 256, 84), 11: ("q3_k", 256, 110), 12: ("q4_k", 256, 144), 13: ("q5_k", 256, 176), 14: ("q6_k", 256, 210)}
_SCALAR = {t: struct.Struct(f) for t, f in
           {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}.items()}
_U32, _U64 = _SCALAR[4], _SCALAR[10]
_MAX_DIMS = 4


class GGUFFile:
    """The header of a GGUF v2/v3 file: `meta` (key -> value), `tensors` (name -> (type, dims,
    absolute offset, nbytes)), and `buf`, the file mapped read-only."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            try:
                self.buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:
                raise ValueError("GGUF: %s is empty" % path) from None
        self.pos = 0
        self._parse()

    def _take(self, n, what):
        if n < 0 or self.pos + n > len(self.buf):
            raise ValueError("GGUF: truncated file: %s needs %d bytes at offset %d of %d" % (what, n, self.pos, len(self.buf)))
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def _scalar(self, st, what):
        return st.unpack(self._take(st.size, what))[0]

    def _str(self, what):
        n = self._scalar(_U64, what + " length")
        return self._take(n, what).decode("utf-8", errors="replace")

    def _value(self, t, what, depth=0):
        if t in _SCALAR:
            return self._scalar(_SCALAR[t], what)
        if t == 8:
            return self._str(what)
        if t == 9 and depth == 0:
            et = self._scalar(_U32, what + " element type")
            n = self._scalar(_U64, what + " count")
            if n > len(self.buf):
                raise ValueError("GGUF: %s: array of %d elements cannot fit in the file" % (what, n))
            return [self._value(et, what, 1) for _ in range(n)]
        raise ValueError("GGUF: %s: unknown value type %d" % (what, t))

    def _parse(self):
        magic = self._take(4, "magic")
        if magic != b"GGUF":
            raise ValueError("GGUF: bad magic %r (not a GGUF file)" % bytes(magic))
        version = self._scalar(_U32, "version")
        if version not in (2, 3):
            raise ValueError("GGUF: unsupported version %d (expected 2 or 3)" % version)
        nt = self._scalar(_U64, "tensor count")
        nkv = self._scalar(_U64, "metadata count")
        if nt > len(self.buf) or nkv > len(self.buf):
            raise ValueError("GGUF: tensor count %d / metadata count %d cannot fit in the file" % (nt, nkv))
        self.meta = {}
        for _ in range(nkv):
            key = self._str("metadata key")
            t = self._scalar(_U32, "metadata type of " + key)
            self.meta[key] = self._value(t, key)
        infos = []
        for _ in range(nt):
            name = self._str("tensor name")
            nd = self._scalar(_U32, "dimension count of " + name)
            if nd == 0 or nd > _MAX_DIMS:
                raise ValueError("GGUF: tensor %s has %d dimensions (1 to %d allowed)" % (name, nd, _MAX_DIMS))
            dims = [self._scalar(_U64, "dimensions of " + name) for _ in range(nd)]
            t = self._scalar(_U32, "type of " + name)
            off = self._scalar(_U64, "offset of " + name)
            infos.append((name, dims, t, off))
        align = self.meta.get("general.alignment", 32)
        if not isinstance(align, int) or align <= 0 or align & (align - 1):
            raise ValueError("GGUF: general.alignment %r is not a power of two" % (align,))
        start = (self.pos + align - 1) // align * align
        self.tensors = {}
        for name, dims, t, off in infos:
            if t not in GGML_TYPES:
                raise ValueError("GGUF: tensor %s has block type %d, which torchnative does not read "
                                 "(F32, F16, Q4_0, Q4_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K)" % (name, t))
            fmt, bl, bs = GGML_TYPES[t]
            n = 1
            for d in dims:
                n *= d
                if n > 2**62:
                    raise ValueError("GGUF: tensor %s: dimension product overflows (%s)" % (name, dims))
            if dims[0] % bl:
                raise ValueError("GGUF: tensor %s: first dimension %d is not a multiple of the %s block (%d)" % (name, dims[0], fmt, bl))
            nbytes = n // bl * bs
            if off % align:
                raise ValueError("GGUF: tensor %s: offset %d is not aligned to %d" % (name, off, align))
            if start + off + nbytes > len(self.buf):
                raise ValueError("GGUF: tensor %s: data (%d bytes at %d) runs past the end of the file (%d bytes)"
                                 % (name, nbytes, start + off, len(self.buf)))
            if name in self.tensors:
                raise ValueError("GGUF: tensor %s appears twice" % name)
            self.tensors[name] = (fmt, dims, start + off, nbytes)

    def raw(self, name):
        """uint8 tensor over the tensor's bytes (a view of the mapped file; read-only memory)."""
        import torch
        fmt, dims, off, nbytes = self.tensors[name]
        return torch.frombuffer(self.buf, dtype=torch.uint8, count=nbytes, offset=off)

    def floats(self, name):
        """A float32 copy of an F32/F16 tensor (shape: dims reversed, as numpy/torch order)."""
        import torch
        fmt, dims, off, nbytes = self.tensors[name]
        if fmt not in ("f32", "f16"):
            raise ValueError("GGUF: tensor %s is %s, not float" % (name, fmt))
        t = self.raw(name).clone().view(torch.float32 if fmt == "f32" else torch.float16)
        return t.float().reshape(list(reversed(dims)))


def _meta_num(m, key, default=None, kind=int):
    """Metadata `key` as a positive number of `kind` (int, or float for which ints also do)."""
    v = m.get(key, default)
    if v is None:
        raise ValueError("GGUF: missing metadata %s" % key)
    ok = (int,) if kind is int else (int, float)
    if isinstance(v, bool) or not isinstance(v, ok) or not 0 < v < float("inf"):
        raise ValueError("GGUF: metadata %s is %r, expected a positive %s" % (key, v, kind.__name__))
    return v


def _config(g):
    """The LlamaConfig the metadata describes, every field checked (type, range, divisibility)."""
    import transformers
    m = g.meta
    if m.get("general.architecture") != "llama":
        raise ValueError("GGUF: architecture %r is not supported (llama only)" % m.get("general.architecture"))
    a = "llama."
    if a + "vocab_size" not in m:
        tokens = m.get("tokenizer.ggml.tokens")
        if not isinstance(tokens, list):
            raise ValueError("GGUF: missing metadata %svocab_size (and no tokenizer.ggml.tokens list)" % a)
    vocab = _meta_num(m, a + "vocab_size", len(m.get("tokenizer.ggml.tokens") or ()))
    D, H = _meta_num(m, a + "embedding_length"), _meta_num(m, a + "attention.head_count")
    KV = _meta_num(m, a + "attention.head_count_kv", H)
    if D % H or (D // H) % 2 or H % KV:
        raise ValueError("GGUF: embedding_length %d, head_count %d and head_count_kv %d do not make llama heads "
                         "(heads must divide the width into an even head size, kv heads the heads)" % (D, H, KV))
    ids = {}
    for k in ("bos", "eos"):
        v = m.get("tokenizer.ggml.%s_token_id" % k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise ValueError("GGUF: metadata tokenizer.ggml.%s_token_id is %r, expected an integer" % (k, v))
        ids[k] = v
    return transformers.LlamaConfig(
        hidden_size=D, num_hidden_layers=_meta_num(m, a + "block_count"), num_attention_heads=H,
        num_key_value_heads=KV, intermediate_size=_meta_num(m, a + "feed_forward_length"), vocab_size=vocab,
        max_position_embeddings=_meta_num(m, a + "context_length", 2048),
        rope_theta=_meta_num(m, a + "rope.freq_base", 10000.0, float),
        rms_norm_eps=_meta_num(m, a + "attention.layer_norm_rms_epsilon", 1e-5, float),
        tie_word_embeddings="output.weight" not in g.tensors, bos_token_id=ids["bos"], eos_token_id=ids["eos"])


def _check_shapes(g, cfg):
    """Every tensor load_llama reads is present with the shape the config gives (GGUF order: the
    row length first), before any module is built from them."""
    D, V, F = cfg.hidden_size, cfg.vocab_size, cfg.intermediate_size
    hd = D // cfg.num_attention_heads
    want = {"token_embd.weight": [D, V], "output_norm.weight": [D]}
    if "output.weight" in g.tensors:
        want["output.weight"] = [D, V]
    for i in range(cfg.num_hidden_layers):
        b = "blk.%d." % i
        want.update({b + "attn_q.weight": [D, cfg.num_attention_heads * hd], b + "attn_k.weight": [D, cfg.num_key_value_heads * hd],
                     b + "attn_v.weight": [D, cfg.num_key_value_heads * hd], b + "attn_output.weight": [cfg.num_attention_heads * hd, D],
                     b + "ffn_gate.weight": [D, F], b + "ffn_up.weight": [D, F], b + "ffn_down.weight": [F, D],
                     b + "attn_norm.weight": [D], b + "ffn_norm.weight": [D]})
        if len(want) > len(g.tensors):  # block_count past the file's tensors: one is missing already
            break
    for name, shape in want.items():
        if name not in g.tensors:
            raise ValueError("GGUF: tensor %s is missing" % name)
        fmt, dims = g.tensors[name][:2]
        if dims != shape:
            raise ValueError("GGUF: tensor %s has dims %s, the metadata gives %s" % (name, dims, shape))
        if len(shape) == 1 and fmt not in ("f32", "f16"):
            raise ValueError("GGUF: tensor %s is %s, not float" % (name, fmt))


def _unpermute_rows(n_rows, n_head):
    import torch
    dim = n_rows // n_head // 2
    return torch.arange(n_rows).reshape(n_head, dim, 2).transpose(1, 2).reshape(-1)


def load_llama(path, dequantize=False):
    """LlamaForCausalLM from a GGUF file. Quantised tensors stay in their format (QuantLinear /
    QuantEmbedding over the mapped bytes); with dequantize=True every weight is float32 instead
    (our dequantisation of the same bytes: the float model the quantised one approximates)."""
    import torch
    import transformers
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
    from . import QuantEmbedding, QuantLinear, dequantize_tensor
    g = GGUFFile(path)
    cfg = _config(g)
    _check_shapes(g, cfg)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(cfg)
    model.model.rotary_emb = LlamaRotaryEmbedding(config=cfg)
    H, KV = cfg.num_attention_heads, cfg.num_key_value_heads

    def matrix(name, perm_heads=None):
        fmt, (cols, rows), _, _ = g.tensors[name]
        if fmt in ("f32", "f16"):
            w = g.floats(name)
            if perm_heads:
                w = w[_unpermute_rows(rows, perm_heads)]
            return "float", w
        q = g.raw(name).reshape(rows, -1)
        if perm_heads:
            q = q[_unpermute_rows(rows, perm_heads)]
        if dequantize:
            return "float", dequantize_tensor(q, fmt, rows, cols)
        return fmt, q

    def linear(name, perm_heads=None):
        kind, w = matrix(name, perm_heads)
        cols, rows = g.tensors[name][1]
        if kind == "float":
            lin = torch.nn.Linear(cols, rows, bias=False)
            lin.weight = torch.nn.Parameter(w, requires_grad=False)
            return lin
        return QuantLinear(cols, rows, kind, bias=False, qweight=w)

    def vector(name):
        return torch.nn.Parameter(g.floats(name).reshape(-1), requires_grad=False)

    kind, emb = matrix("token_embd.weight")
    D, V = g.tensors["token_embd.weight"][1]
    if kind == "float":
        e = torch.nn.Embedding(V, D)
        e.weight = torch.nn.Parameter(emb, requires_grad=False)
    else:
        e = QuantEmbedding(V, D, kind, emb)
    model.model.embed_tokens = e
    if "output.weight" in g.tensors:
        model.lm_head = linear("output.weight")
    elif kind == "float":
        head = torch.nn.Linear(D, V, bias=False)
        head.weight = e.weight
        model.lm_head = head
    else:
        model.lm_head = QuantLinear(D, V, kind, bias=False, qweight=emb)
    model.model.norm.weight = vector("output_norm.weight")
    for i, layer in enumerate(model.model.layers):
        b = "blk.%d." % i
        at, mlp = layer.self_attn, layer.mlp
        at.q_proj = linear(b + "attn_q.weight", H)
        at.k_proj = linear(b + "attn_k.weight", KV)
        at.v_proj = linear(b + "attn_v.weight")
        at.o_proj = linear(b + "attn_output.weight")
        mlp.gate_proj = linear(b + "ffn_gate.weight")
        mlp.up_proj = linear(b + "ffn_up.weight")
        mlp.down_proj = linear(b + "ffn_down.weight")
        layer.input_layernorm.weight = vector(b + "attn_norm.weight")
        layer.post_attention_layernorm.weight = vector(b + "ffn_norm.weight")
    left = [n for n, p in list(model.named_parameters()) + list(model.named_buffers()) if p.device.type == "meta"]
    if left:
        raise ValueError("GGUF: no data for %s" % ", ".join(left[:5]))
    if not dequantize:
        model.gguf_file = g  # keeps the mapping alive for the views (no float model holds any)
    return model.eval()
