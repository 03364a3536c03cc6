"""torchnative demo: the genuine upstream torch package running on our C torch._C.

Grows with the project: today it shows where torch._C lives, that no libtorch is present, and a
small torch.nn model's forward pass."""
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
