"""torchnative demo: the genuine upstream torch package running on our C torch._C.

Grows with the project: today it shows where torch._C lives, that no libtorch is present, and a
small torch.nn model's forward pass, and a transformers Llama generating tokens."""
import os
import sys
import time

t0 = time.perf_counter()
import torch  # noqa: E402
import_s = time.perf_counter() - t0

print(f"torch {torch.__version__} imported in {import_s * 1000:.0f} ms")
print(f"torch._C is ours: {torch._C.__file__}")
site = os.path.dirname(os.path.dirname(torch.__file__))
libtorch = [f for f in os.listdir(os.path.join(site, "torch", "lib")) if f != "libtorch_global_deps.so"]
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

# The main job, in miniature: a transformers Llama (built from a small config with seeded
# weights: no model hub is reachable here) generating greedily on torchnative, streaming tokens.
from transformers import AutoConfig, AutoModelForCausalLM  # noqa: E402
from transformers.generation.streamers import BaseStreamer  # noqa: E402


class PrintStreamer(BaseStreamer):
    def __init__(self):
        self.first = True

    def put(self, value):
        if self.first:  # the prompt
            self.first = False
            print("prompt ids:", value.tolist()[0], "\ngenerated:", end=" ", flush=True)
            return
        print(int(value.reshape(-1)[0]), end=" ", flush=True)

    def end(self):
        print()


torch.manual_seed(0)
cfg = AutoConfig.for_model("llama", hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, vocab_size=128)
llm = AutoModelForCausalLM.from_config(cfg).eval()
prompt = torch.tensor([[1, 5, 9, 3]])
t0 = time.perf_counter()
out = llm.generate(prompt, max_new_tokens=24, do_sample=False, streamer=PrintStreamer())
dt = time.perf_counter() - t0
print(f"{out.shape[1] - prompt.shape[1]} tokens in {dt:.2f} s ({(out.shape[1] - prompt.shape[1]) / dt:.1f} tokens/s)")
