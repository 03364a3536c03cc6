"""With TN_HUGEPAGES=1, large tensor blocks ask the kernel for transparent huge pages (core/tensor.c,
docs/speed_training.md): a block of 32 MB or more gets MADV_HUGEPAGE on its 2 MB-aligned part
before it is first touched (the VMA then carries the "hg" flag in /proc/self/smaps); smaller
blocks are left alone, and without the switch (the default) nothing is advised. Only the pages
change, never the contents: the same values with and without it."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SCRIPT = r"""
import json, torch
def flags(addr):
    cur = None
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                cur = lo <= addr < hi
            elif cur and line.startswith("VmFlags:"):
                return line.split()[1:]
    return []
big = torch.empty(16 << 20)                       # 64 MB
mid = big.data_ptr() + (32 << 20)                  # inside the 2 MB-aligned part
small = torch.empty(256 << 10)                     # 1 MB: the heap, untouched
grown = torch.empty(0); grown.resize_(12 << 20)    # 48 MB through resize_
x = torch.arange(16 << 20, dtype=torch.float32).mul_(0.5).sqrt_()
print(json.dumps({"big": "hg" in flags(mid), "small": "hg" in flags(small.data_ptr() + 4096),
                  "grown": "hg" in flags(grown.data_ptr() + (24 << 20)),
                  "sum": x.double().sum().item(), "last": x[-1].item()}))
"""


def run(env):
    import json
    r = subprocess.run([OURS, "-c", SCRIPT], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_NUM_THREADS="1", **env))
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"),
                    reason="needs Linux transparent huge pages")
def test_large_blocks_advised_huge():
    on, off = run({"TN_HUGEPAGES": "1"}), run({"TN_HUGEPAGES": ""})
    assert on["big"] and on["grown"], on
    assert not on["small"], on
    assert not off["big"] and not off["grown"], off
    assert (on["sum"], on["last"]) == (off["sum"], off["last"])
