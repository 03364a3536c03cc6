"""Coverage-guided fuzzer of the GGUF reader (torchnative.quant.gguf, issue #12 "Bad input"), with
atheris (libFuzzer for Python: the reader's bytecode is instrumented for coverage).

    python tools/fuzz/gguf_fuzz.py [--mode reader|model] [libFuzzer flags] CORPUS_DIR [SEED_DIR]
    python tools/fuzz/gguf_fuzz.py -merge=1 NEW_DIR DIR...   (the corpus minimised into NEW_DIR)

Each input is a whole file's bytes, written to a scratch file and opened as a user would.
  - reader mode (the default, fast): GGUFFile parses it; then every tensor the reader accepted
    and that is small (at most 2^16 values) is used as a user's model would use it: F32 / F16
    read as float, quantised ones dequantised and multiplied by a QuantLinear (the C kernels over
    the file's block bytes, any scale bits); with llama metadata, the model config is read.
  - model mode (slower: builds a transformers model per input): load_llama on it and, when it
    loads, one forward of two tokens.
The only exception allowed out of the reader and the loader is ValueError("GGUF: ..."): anything
else (another exception type, a crash, a sanitizer report) is a finding, which libFuzzer reports
and saves as crash-<sha1>. Run with the sanitizer build as tools/asan/python (the C kernels under
ASan + UBSan): tests/test_gguf_fuzz.py runs it; docs/quant.md "Fuzzing the GGUF reader" gives the
runs made. tools/fuzz/gguf_seeds.py writes the seeds (files made by gguf's own writer); the
corpus the runs grew, merged, is kept in tests/fuzz/gguf_corpus.
"""
import os
import sys
import tempfile
import warnings

import atheris

with atheris.instrument_imports(include=["torchnative.quant"]):
    import torch
    from torchnative.quant import QuantLinear, dequantize_tensor, gguf

warnings.filterwarnings("ignore")
CAP = 1 << 16  # values per tensor the reader mode computes with (keeps one input to ~1 ms)
PATH = os.path.join(tempfile.mkdtemp(prefix="gguf-fuzz-"), "input.gguf")


def allowed(e):
    return isinstance(e, ValueError) and str(e).startswith("GGUF: ")


def use_tensors(g):
    for name, (fmt, dims, _, _) in g.tensors.items():
        n = 1
        for d in dims:
            n *= d
        if n == 0 or n > CAP:
            continue
        if fmt in ("f32", "f16"):
            g.floats(name)
            continue
        cols, rows = dims[0], n // dims[0]
        q = g.raw(name).reshape(rows, -1)
        dequantize_tensor(q, fmt, rows, cols)
        QuantLinear(cols, rows, fmt, bias=False, qweight=q)(torch.ones(1, cols))


def one_input(data):
    with open(PATH, "wb") as f:
        f.write(data)
    try:
        if MODE == "model":
            m = gguf.load_llama(PATH)
            with torch.no_grad():
                m(torch.zeros(1, 2, dtype=torch.long))
            return
        g = gguf.GGUFFile(PATH)
        use_tensors(g)
        if g.meta.get("general.architecture") == "llama":
            gguf._config(g)
    except Exception as e:  # noqa: BLE001 - the allowed error is checked, anything else re-raised
        if not allowed(e):
            raise


def main():
    global MODE
    argv = list(sys.argv)
    MODE = "reader"
    if "--mode" in argv:
        i = argv.index("--mode")
        MODE = argv[i + 1]
        del argv[i:i + 2]
    torch.set_num_threads(1)
    # libFuzzer re-runs argv[0] for -merge / -jobs: an executable that runs this script with this
    # interpreter (the script itself is not one)
    again = os.path.join(os.path.dirname(PATH), "gguf_fuzz")
    with open(again, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "%s" --mode %s "$@"\n' % (sys.executable, os.path.abspath(__file__), MODE))
    os.chmod(again, 0o755)
    argv[0] = again
    atheris.Setup(argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
