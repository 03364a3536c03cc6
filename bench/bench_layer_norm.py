"""Layer norm side by side: upstream torch 2.13.0 (.venv-ref) and torchnative (.venv) in one run.

`native_layer_norm` forward and `native_layer_norm_backward` (all three gradients) on float32
rows of BERT / GPT-2 shapes, each side in a process of its own with 1 and 2 intra-op threads;
rounds alternate the two sides. Per row: median ms per call on each side, ratio ours/upstream
(< 1: torchnative faster).

usage: bench_layer_norm.py [--rounds N]   (default 3)
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDES = {"ours": os.path.join(ROOT, ".venv", "bin", "python"),
         "upstream": os.path.join(ROOT, ".venv-ref", "bin", "python")}
SHAPES = [(2048, 768), (128, 768), (512, 1024), (64, 4096)]

WORKER = r"""
import json, sys, time
import torch
out = {}
for M, N in json.loads(sys.argv[1]):
    g = torch.Generator().manual_seed(0)
    x, dy = torch.randn(M, N, generator=g), torch.randn(M, N, generator=g)
    w, b = torch.randn(N, generator=g), torch.randn(N, generator=g)
    for th in (1, 2):
        torch.set_num_threads(th)
        _, mu, rs = torch.native_layer_norm(x, [N], w, b, 1e-5)
        calls = {"fwd": lambda: torch.native_layer_norm(x, [N], w, b, 1e-5),
                 "bwd": lambda: torch.ops.aten.native_layer_norm_backward(dy, x, [N], mu, rs, w, b,
                                                                          [True, True, True])}
        for name, fn in calls.items():
            for _ in range(3):
                fn()
            ts, t_end = [], time.perf_counter() + 0.3
            while len(ts) < 20 or time.perf_counter() < t_end:
                t = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t)
            ts.sort()
            out["%s %dx%d t%d" % (name, M, N, th)] = ts[len(ts) // 2] * 1e3
print(json.dumps(out))
"""


def main():
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    res = {side: [] for side in SIDES}
    for _ in range(rounds):
        for side, py in SIDES.items():
            p = subprocess.run([py, "-c", WORKER, json.dumps(SHAPES)], capture_output=True, text=True,
                               check=True)
            res[side].append(json.loads(p.stdout.strip().splitlines()[-1]))
    print("%-22s %10s %10s %7s" % ("layer_norm (float32)", "ours ms", "upstream", "ratio"))
    for key in res["ours"][0]:
        o = statistics.median(r[key] for r in res["ours"])
        u = statistics.median(r[key] for r in res["upstream"])
        print("%-22s %10.3f %10.3f %7.2f" % (key, o, u, o / u))


if __name__ == "__main__":
    main()
