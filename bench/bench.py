"""Side-by-side benchmark: torchnative (.venv) against upstream torch 2.13.0 (.venv-ref).

Every figure is a ratio ours/upstream from the same run: processes alternate between the two
environments and each figure is a median, because the machines are shared and noisy.
  - import torch: wall time of `python -c "import torch"` (median of N alternating runs)
  - per-call time of tiny ops, measured inside each interpreter with timeit (median of repeats)
  - f32 nn.Linear products at the SmolLM2-135M shapes (x (M,K) @ W(N,K)^T, M = 1 decode, 6 and
    128 prefill rows), the choice of GEMM recorded against upstream's MKL
  - convolution (conv family): conv2d forward of a ResNet-style block's two 3x3 layers on 32x32
    images, batch 32 (3->32, 32->64 channels), the block (conv, relu, conv, relu) forward, and its
    forward + backward (parameter gradients), and a ResNet-style training step (stem + two basic
    blocks with BatchNorm, cross-entropy, SGD with momentum), at 1 and 2 threads
The micro workers run one thread (OMP_NUM_THREADS=1 / MKL_NUM_THREADS=1 on both sides); the
convolution workers set both to the thread count they measure.
--quick (CI, BENCH_QUICK=1): one worker round per side instead of five, three import runs
instead of seven: it shows the benchmark runs; its ratios are noisier than the full run's.
usage: bench.py [--quick] [--json FILE] [--only conv|resnet]  (resnet: that row alone)
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")

MICRO = {
    "x + y (1 element)": ("x = torch.ones(1); y = torch.ones(1)", "x + y"),
    "x.view(-1)": ("x = torch.ones(2, 3)", "x.view(-1)"),
    "x[0]": ("x = torch.ones(4, 3)", "x[0]"),
    "torch.zeros(8)": ("", "torch.zeros(8)"),
}
# autograd: a chain of 1,000 multiplications of one-element tensors, recorded; and recorded then
# run backward: (second - first) / 1000 is the engine's time per node
CHAIN = ("x = torch.ones(1, requires_grad=True)\n"
         "def chain():\n    y = x\n    for _ in range(1000):\n        y = y * 1.0001\n    return y")
MICRO["autograd: record 1000-op chain"] = (CHAIN, "chain()")
MICRO["autograd: record + backward 1000-op chain"] = (CHAIN, "chain().backward()")
LINEAR = "torch.manual_seed(0); x = torch.randn(%d, %d); w = torch.randn(%d, %d); F = torch.nn.functional"
for M, N, K in [(1, 576, 576), (1, 1536, 576), (1, 49152, 576), (6, 1536, 576), (128, 576, 576),
                (128, 1536, 576), (128, 576, 1536), (512, 1536, 576)]:
    MICRO["linear %dx%d <- %d" % (M, N, K)] = (LINEAR % (M, K, N, K), "F.linear(x, w)")

CONV_SETUP = ("torch.manual_seed(0); F = torch.nn.functional; nn = torch.nn\n"
              "x = torch.randn(32, 3, 32, 32); h = torch.randn(32, 32, 32, 32)\n"
              "blk = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU())\n"
              "w1, b1, w2, b2 = [p.detach() for p in blk.parameters()]\n"
              "def fwd():\n    with torch.no_grad():\n        return blk(x)\n"
              "def fwd_bwd():\n    blk.zero_grad(set_to_none=True)\n    blk(x).sum().backward()\n"
              "pair = nn.Sequential(blk[0], blk[2])\n"
              "def pair_fwd_bwd():\n    pair.zero_grad(set_to_none=True)\n    pair(x).sum().backward()")
# a ResNet-style training step: stem conv-BN-ReLU, two residual basic blocks (the second
# downsampling 32 -> 64 channels with a strided 1x1 shortcut), global average pool, linear head;
# cross-entropy over 10 classes, SGD with momentum (zero_grad, forward, backward, step)
RESNET_SETUP = (CONV_SETUP + "\n"
                "class Basic(nn.Module):\n"
                "    def __init__(s, i, o, st):\n"
                "        super().__init__()\n"
                "        s.c1 = nn.Conv2d(i, o, 3, st, 1, bias=False); s.b1 = nn.BatchNorm2d(o)\n"
                "        s.c2 = nn.Conv2d(o, o, 3, 1, 1, bias=False); s.b2 = nn.BatchNorm2d(o)\n"
                "        s.sc = nn.Sequential() if st == 1 and i == o else nn.Sequential(nn.Conv2d(i, o, 1, st, bias=False), nn.BatchNorm2d(o))\n"
                "    def forward(s, x):\n"
                "        return F.relu(s.b2(s.c2(F.relu(s.b1(s.c1(x))))) + s.sc(x))\n"
                "net = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(), Basic(32, 32, 1),\n"
                "                    Basic(32, 64, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).train()\n"
                "opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)\n"
                "labels = torch.randint(0, 10, (32,))\n"
                "def resnet_step():\n    opt.zero_grad()\n    F.cross_entropy(net(x), labels).backward()\n    opt.step()")
CONV = {
    "conv2d 3->32 3x3 32x32 b32": (CONV_SETUP, "F.conv2d(x, w1, b1, padding=1)"),
    "conv2d 32->64 3x3 32x32 b32": (CONV_SETUP, "F.conv2d(h, w2, b2, padding=1)"),
    "conv block fwd (no grad)": (CONV_SETUP, "fwd()"),
    "conv block fwd+bwd": (CONV_SETUP, "fwd_bwd()"),
    "conv pair (block without relu) fwd+bwd": (CONV_SETUP, "pair_fwd_bwd()"),
    "relu 32x32x32x32": (CONV_SETUP, "torch.relu(h)"),
    "ResNet-style training step (SGD) b32": (RESNET_SETUP, "resnet_step()"),
}

WORKER = r"""
import json, sys, timeit
import torch
out = {}
for name, (setup, stmt) in json.loads(sys.argv[1]).items():
    g = {"torch": torch}
    try:
        exec(setup, g)
        t = timeit.Timer(stmt, globals=g)
        n, _ = t.autorange()
        reps = [t.timeit(n) / n for _ in range(int(sys.argv[2]))]
        reps.sort()
        out[name] = reps[len(reps) // 2]
    except Exception as e:  # an op we lack is reported, not hidden
        out[name] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"""


def import_time(python):
    t0 = time.perf_counter()
    subprocess.run([python, "-c", "import torch"], check=True)
    return time.perf_counter() - t0


def side_by_side(table, rounds, reps, threads):
    """Median per-call seconds of each entry of `table`, ours and upstream's, in alternating
    worker processes running `threads` threads."""
    got = {"ours": [], "ref": []}
    for _ in range(rounds):
        for side, py in (("ref", REF), ("ours", OURS)):
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
            r = subprocess.run([py, "-c", WORKER, json.dumps(table), str(reps)], capture_output=True, text=True, env=env)
            if r.returncode:
                sys.exit(f"bench worker failed on {side}:\n{r.stderr}")
            got[side].append(json.loads(r.stdout.strip().splitlines()[-1]))
    out = []
    for name in table:
        vals = {}
        for side in ("ours", "ref"):
            xs = [m[name] for m in got[side]]
            vals[side] = statistics.median(xs) if all(isinstance(x, float) for x in xs) else xs[0]
        out.append((name, vals["ours"], vals["ref"]))
    return out


def main():
    quick = "--quick" in sys.argv or os.environ.get("BENCH_QUICK")
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    runs = 3 if quick else 7
    rows = []
    conv = {k: v for k, v in CONV.items() if only != "resnet" or k.startswith("ResNet")}
    for threads in (1, 2):
        for name, ours, ref in side_by_side(conv, 1 if quick else 5, 3, threads):
            rows.append(("%s, %d thr (ms)" % (name, threads), ours, ref))
    if only in ("conv", "resnet"):
        return report(rows)
    imp = {"ours": [], "ref": []}
    for _ in range(runs):
        imp["ref"].append(import_time(REF))
        imp["ours"].append(import_time(OURS))
    rows.append(("import torch (s)", statistics.median(imp["ours"]), statistics.median(imp["ref"])))
    rows += [(name + " (us)", ours, ref) for name, ours, ref in side_by_side(MICRO, 1 if quick else 5, 5, 1)]
    report(rows)


def report(rows):
    print(f"{'benchmark':44} {'ours':>12} {'upstream':>12} {'ratio':>8}")
    result = {}
    for name, ours, ref in rows:
        if isinstance(ours, float) and isinstance(ref, float):
            scale = 1e6 if "(us)" in name else 1e3 if "(ms)" in name else 1.0
            ratio = ours / ref
            print(f"{name:44} {ours * scale:12.3f} {ref * scale:12.3f} {ratio:8.2f}")
            result[name] = {"ours": ours * scale, "upstream": ref * scale, "ratio": ratio}
        else:
            print(f"{name:44} {str(ours)[:40]}")
            result[name] = {"ours": str(ours), "upstream": ref}
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    if "-h" in sys.argv or "--help" in sys.argv:
        sys.exit(print(__doc__))
    main()
