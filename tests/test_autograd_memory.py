"""Autograd leaves nothing behind: 10,000 forward + backward passes (a small MLP with a view,
an in-place op on a view, a retained grad and autograd.grad with create_graph) on torchnative
keep the process's resident memory flat. RSS is read from /proc after 2,000 passes (allocator
pools warmed) and after 10,000; the growth must stay under 2 MB, while one leaked node per pass
(~200 bytes and its tensors) would add several MB."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SCRIPT = r"""
import gc, torch
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
torch.manual_seed(0)
w1 = torch.randn(16, 8, requires_grad=True); w2 = torch.randn(4, 16, requires_grad=True)
x = torch.randn(5, 8)
def step(i):
    h = torch.nn.functional.linear(x, w1).tanh()
    h2 = h * 1
    h2[:, :2].mul_(0.5)
    h2.retain_grad()
    out = torch.nn.functional.linear(h2, w2).exp().mean()
    g, = torch.autograd.grad(out, w2, create_graph=True, retain_graph=True)
    (out + g.pow(2).sum()).backward()
    w1.grad = None; w2.grad = None
marks = {}
for i in range(10000):
    step(i)
    if i + 1 in (2000, 10000):
        gc.collect()
        marks[i + 1] = rss()
print(marks[10000] - marks[2000])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_backward_rss_flat():
    r = subprocess.run([OURS, "-c", SCRIPT], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert r.returncode == 0, r.stderr[-2000:]
    growth = int(r.stdout.strip().splitlines()[-1])
    assert growth < 2 * 1024 * 1024, f"RSS grew by {growth} bytes between pass 2,000 and 10,000"
