"""torchnative.quant — Linear weights in GGUF block formats (Q8_0, Q4_0, Q4_1, Q2_K, Q3_K, Q4_K, Q5_K,
Q6_K), on torchnative.

    import torchnative.quant as tq
    tq.quantize(model, fmt="q8_0")          # in place: every nn.Linear -> QuantLinear
    y = model(ids)

Weights are held as the ggml block bytes (a uint8 buffer, byte for byte what ggml's reference
quantiser and the `gguf` package write); the product runs in C (torch.ops.torchnative.quant_linear:
activations quantised per row to Q8_0 / Q8_1 / Q8_K as ggml's vec_dot path does, int8 dot products on
AVX-512 VNNI / AVX2 / portable C, every variant the same bits). A tied embedding / LM head shares
one quantised matrix: the embedding lookup dequantises the rows it gathers. See docs/quant.md.

Needs torchnative's torch (the operators live in its torch._C); on upstream torch, quantize()
raises RuntimeError.
"""
import torch
from torch import nn

FORMATS = ("q8_0", "q4_0", "q4_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k")
BLOCK = 32
# values per block (the k-quants: super-blocks of 256) and bytes per block
BLOCK_VALUES = {"q8_0": 32, "q4_0": 32, "q4_1": 32, "q2_k": 256, "q3_k": 256, "q4_k": 256, "q5_k": 256, "q6_k": 256}
BLOCK_BYTES = {"q8_0": 34, "q4_0": 18, "q4_1": 20, "q2_k": 84, "q3_k": 110, "q4_k": 144, "q5_k": 176, "q6_k": 210}


def _ops():
    try:
        return torch.ops.torchnative
    except Exception as e:  # pragma: no cover - depends on the torch in use
        raise RuntimeError("torchnative.quant needs torchnative's torch (torch.ops.torchnative): %s" % e)


_LINEAR = []


def _linear():
    """torch.ops.torchnative.quant_linear.default (the overload itself: no packet resolution per call)."""
    if not _LINEAR:
        _LINEAR.append(_ops().quant_linear.default)
    return _LINEAR[0]


def _check_fmt(fmt):
    if fmt not in FORMATS:
        raise ValueError("unknown quantization format %r (expected one of %s)" % (fmt, ", ".join(FORMATS)))


def quantize_tensor(w, fmt):
    """(rows, cols) float tensor -> uint8 (rows, cols/32*block bytes) of ggml block bytes."""
    _check_fmt(fmt)
    return _ops().quantize(w.detach(), fmt)


def dequantize_tensor(q, fmt, rows, cols):
    _check_fmt(fmt)
    return _ops().dequantize(q, fmt, rows, cols)


class QuantLinear(nn.Module):
    """nn.Linear with its weight in a GGUF block format. `qweight` (uint8 buffer) holds the block
    bytes of the (out_features, in_features) weight; `bias` stays float."""

    def __init__(self, in_features, out_features, fmt="q8_0", bias=True, qweight=None, dtype=None):
        super().__init__()
        _check_fmt(fmt)
        bv = BLOCK_VALUES[fmt]
        if in_features % bv:
            raise ValueError("QuantLinear: in_features must be a multiple of %d for %s, got %d" % (bv, fmt, in_features))
        self.in_features, self.out_features, self.fmt = in_features, out_features, fmt
        if qweight is None:
            qweight = torch.zeros(out_features, in_features // bv * BLOCK_BYTES[fmt], dtype=torch.uint8)
        self.register_buffer("qweight", qweight)
        self.bias = nn.Parameter(torch.zeros(out_features, dtype=dtype), requires_grad=False) if bias else None

    @classmethod
    def from_linear(cls, lin, fmt="q8_0", qweight=None):
        q = quantize_tensor(lin.weight, fmt) if qweight is None else qweight
        m = cls(lin.in_features, lin.out_features, fmt, bias=lin.bias is not None, qweight=q)
        if lin.bias is not None:
            m.bias = nn.Parameter(lin.bias.detach().clone(), requires_grad=False)
        return m

    def dequantized_weight(self):
        return dequantize_tensor(self.qweight, self.fmt, self.out_features, self.in_features)

    def forward(self, x):
        return _linear()(x, self.qweight, self.fmt, self.out_features, self.in_features, self.bias)

    def extra_repr(self):
        return "in_features=%d, out_features=%d, fmt=%s, bias=%s" % (
            self.in_features, self.out_features, self.fmt, self.bias is not None)


class QuantEmbedding(nn.Module):
    """nn.Embedding over a quantised (num_embeddings, embedding_dim) matrix (shared with a tied LM
    head): a lookup dequantises the rows it gathers."""

    def __init__(self, num_embeddings, embedding_dim, fmt, qweight, padding_idx=None):
        super().__init__()
        _check_fmt(fmt)
        self.num_embeddings, self.embedding_dim, self.fmt = num_embeddings, embedding_dim, fmt
        self.padding_idx = padding_idx
        self.register_buffer("qweight", qweight)

    def forward(self, idx):
        rows = self.qweight[idx.reshape(-1)]
        out = _ops().dequantize(rows, self.fmt, rows.shape[0], self.embedding_dim)
        return out.reshape(*idx.shape, self.embedding_dim)

    def extra_repr(self):
        return "%d, %d, fmt=%s" % (self.num_embeddings, self.embedding_dim, self.fmt)


def _set(root, name, module):
    parent, _, leaf = name.rpartition(".")
    setattr(root.get_submodule(parent) if parent else root, leaf, module)


def quantize(model, fmt="q8_0", include_lm_head=True, skip=()):
    """Swap, in place, every nn.Linear of `model` whose in_features is a multiple of the block
    (32; 256 for the k-quants q2_k ... q6_k) for a
    QuantLinear in `fmt`; a tied input embedding / LM head (transformers' get_input_embeddings()
    and get_output_embeddings() sharing one weight) becomes one quantised matrix shared by a
    QuantEmbedding and a QuantLinear. `include_lm_head=False` leaves the output embedding (and the
    embedding tied to it) in float. Names in `skip` are left alone. Returns the model; its
    `quant_report` lists what was swapped and what was left (with the reason)."""
    _check_fmt(fmt)
    _ops()
    report = {"quantized": [], "left": []}
    out_emb = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    in_emb = model.get_input_embeddings() if hasattr(model, "get_input_embeddings") else None
    names = {id(m): n for n, m in model.named_modules()}
    tied = (out_emb is not None and in_emb is not None and isinstance(in_emb, nn.Embedding)
            and out_emb.weight is in_emb.weight)
    if out_emb is not None and not include_lm_head:
        skip = tuple(skip) + (names.get(id(out_emb)),)
    bv = BLOCK_VALUES[fmt]
    if tied and include_lm_head and in_emb.embedding_dim % bv == 0:
        q = quantize_tensor(in_emb.weight, fmt)
        _set(model, names[id(in_emb)], QuantEmbedding(in_emb.num_embeddings, in_emb.embedding_dim, fmt, q,
                                                    in_emb.padding_idx))
        _set(model, names[id(out_emb)], QuantLinear.from_linear(out_emb, fmt, qweight=q))
        report["quantized"] += [names[id(in_emb)], names[id(out_emb)]]
        skip = tuple(skip) + (names[id(out_emb)],)
    for name, m in list(model.named_modules()):
        if not isinstance(m, nn.Linear) or name in skip:
            continue
        if m.in_features % bv:
            report["left"].append((name, "in_features %d is not a multiple of %d" % (m.in_features, bv)))
            continue
        _set(model, name, QuantLinear.from_linear(m, fmt))
        report["quantized"].append(name)
    model.quant_report = report
    return model
