"""Seed files for the GGUF reader's fuzzer (tools/fuzz/gguf_fuzz.py), written by gguf's own writer
(the `gguf` package of .venv-ref), so the seeds are files llama.cpp's tooling produces, not ours.

    .venv-ref/bin/python tools/fuzz/gguf_seeds.py DIR

Writes into DIR (the corpus, tests/fuzz/gguf_corpus, keeps them):
  - types.gguf: metadata of every GGUF value type (all scalars, string, arrays of ints and of
    strings) and one small tensor of every block type the reader takes (F32, F16, Q4_0, Q4_1, Q8_0,
    Q2_K .. Q6_K), the Q4_0 / Q4_1 / Q8_0 ones quantised by gguf.quants from seeded data, the k-quants random bytes;
  - llama.gguf: a one-layer llama model (hidden 32, 2 heads, 1 key-value head, vocab 64) with the
    tensor names and metadata load_llama reads, weights Q8_0 / Q4_1 and F32 norms;
  - align64.gguf: a file with general.alignment = 64 and two tensors.
Files stay small (a few KB each) so a fuzzer's mutations reach every field.
"""
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q


def quantised(rng, rows, cols, qtype):
    """Block bytes of a rows x cols matrix: gguf's quantiser where it has one (Q4_0, Q4_1, Q8_0);
    random bytes of the format's size for the k-quants, which gguf 0.19 cannot quantise."""
    if qtype in (Q.Q4_0, Q.Q4_1, Q.Q8_0):
        return gguf.quants.quantize(rng.standard_normal((rows, cols)).astype(np.float32), qtype)
    bl, bs = gguf.GGML_QUANT_SIZES[qtype]
    return rng.integers(0, 256, (rows, cols // bl * bs), dtype=np.uint8)


def types_file(path, rng):
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_uint8("t.u8", 7)
    w.add_int8("t.i8", -7)
    w.add_uint16("t.u16", 700)
    w.add_int16("t.i16", -700)
    w.add_uint32("t.u32", 70000)
    w.add_int32("t.i32", -70000)
    w.add_float32("t.f32", 1.5)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "seed")
    w.add_array("t.arr_i", [1, 2, 3])
    w.add_array("t.arr_s", ["a", "bc"])
    w.add_uint64("t.u64", 2**40)
    w.add_int64("t.i64", -2**40)
    w.add_float64("t.f64", 2.25)
    w.add_tensor("f32", rng.standard_normal((2, 4)).astype(np.float32))
    w.add_tensor("f16", rng.standard_normal((2, 4)).astype(np.float16))
    for qt, cols in ((Q.Q4_0, 32), (Q.Q4_1, 32), (Q.Q8_0, 64), (Q.Q2_K, 256), (Q.Q3_K, 256), (Q.Q4_K, 256),
                     (Q.Q5_K, 256), (Q.Q6_K, 256)):
        w.add_tensor(qt.name.lower(), quantised(rng, 2, cols, qt), raw_dtype=qt)
    finish(w)


def llama_file(path, rng):
    D, H, KV, F, V = 32, 2, 1, 64, 64
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_block_count(1)
    w.add_context_length(64)
    w.add_embedding_length(D)
    w.add_feed_forward_length(F)
    w.add_head_count(H)
    w.add_head_count_kv(KV)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(V)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_tensor("token_embd.weight", quantised(rng, V, D, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("output_norm.weight", np.ones(D, np.float32))
    hd = D // H
    for name, rows, cols, qt in (("attn_q", H * hd, D, Q.Q4_1), ("attn_k", KV * hd, D, Q.Q4_1),
                                 ("attn_v", KV * hd, D, Q.Q8_0), ("attn_output", D, H * hd, Q.Q8_0),
                                 ("ffn_gate", F, D, Q.Q4_1), ("ffn_up", F, D, Q.Q4_1), ("ffn_down", D, F, Q.Q8_0)):
        w.add_tensor("blk.0.%s.weight" % name, quantised(rng, rows, cols, qt), raw_dtype=qt)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(D, np.float32))
    w.add_tensor("blk.0.ffn_norm.weight", np.ones(D, np.float32))
    finish(w)


def align_file(path, rng):
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_custom_alignment(64)
    w.add_tensor("a", rng.standard_normal(3).astype(np.float32))
    w.add_tensor("b", quantised(rng, 1, 32, Q.Q8_0), raw_dtype=Q.Q8_0)
    finish(w)


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    types_file(os.path.join(out, "types.gguf"), rng)
    llama_file(os.path.join(out, "llama.gguf"), rng)
    align_file(os.path.join(out, "align64.gguf"), rng)


if __name__ == "__main__":
    main()
