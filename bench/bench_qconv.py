"""The static quantized convolution (quantized::conv2d, docs/quant_tensors.md "Static convolution"),
ours against upstream 2.13.0 side by side: the same seeded quint8 inputs and per-channel symmetric
qint8 weights (x86's default qconfig: upstream runs oneDNN on an AVX-512 VNNI host) with a float
bias, one image, for the three shapes of the Speed paragraph and ResNet-18's convolutions at 224.
Each process times every shape: 7 samples of enough calls for ~20 ms, the median per call of the
wall time and of the process CPU time (robust to descheduling on a shared host; with two threads
it counts both). Ours and upstream alternate per thread count, so they share the same minute.

usage: .venv/bin/python bench/bench_qconv.py [THREADS ...]     (default: 1 2)
       TN_QCONV=ref: our reference kernel instead of the AVX-512 VNNI one
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHONS = {"ours": os.path.join(ROOT, ".venv", "bin", "python"),
           "upstream": os.path.join(ROOT, ".venv-ref", "bin", "python")}

# name, C, H (= W), OC, kernel, stride, groups
SHAPES = [
    ("3x3 64->64 @56", 64, 56, 64, 3, 1, 1),
    ("1x1 64->256 @56", 64, 56, 256, 1, 1, 1),
    ("dw 3x3 x64 @56", 64, 56, 64, 3, 1, 64),
    ("r18 conv1 7x7/2 3->64 @224", 3, 224, 64, 7, 2, 1),
    ("r18 3x3/2 64->128 @56", 64, 56, 128, 3, 2, 1),
    ("r18 1x1/2 64->128 @56", 64, 56, 128, 1, 2, 1),
    ("r18 3x3 128->128 @28", 128, 28, 128, 3, 1, 1),
    ("r18 3x3/2 128->256 @28", 128, 28, 256, 3, 2, 1),
    ("r18 3x3 256->256 @14", 256, 14, 256, 3, 1, 1),
    ("r18 3x3/2 256->512 @14", 256, 14, 512, 3, 2, 1),
    ("r18 3x3 512->512 @7", 512, 7, 512, 3, 1, 1),
]


def worker():
    import warnings

    import torch
    warnings.simplefilter("ignore")
    Q = torch.ops.quantized
    res = {}
    for name, C, H, OC, k, s, G in SHAPES:
        g = torch.Generator().manual_seed(0)
        x = torch.quantize_per_tensor(torch.rand(1, C, H, H, generator=g) * 3, 0.015, 7, torch.quint8)
        w = torch.randn(OC, C // G, k, k, generator=g) * 0.1
        scales = (torch.rand(OC, generator=g) * 0.004 + 0.001).double()
        qw = torch.quantize_per_channel(w, scales, torch.zeros(OC, dtype=torch.long), 0, torch.qint8)
        p = Q.conv2d_prepack(qw, torch.randn(OC, generator=g), [s, s], [k // 2, k // 2], [1, 1], G)
        Q.conv2d(x, p, 0.05, 64)
        t = time.perf_counter()
        Q.conv2d(x, p, 0.05, 64)
        reps = max(1, int(0.02 / max(time.perf_counter() - t, 1e-6)))
        wall, cpu = [], []
        for _ in range(7):
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(reps):
                Q.conv2d(x, p, 0.05, 64)
            wall.append((time.perf_counter() - w0) / reps)
            cpu.append((time.process_time() - c0) / reps)
        res[name] = (sorted(wall)[3] * 1e3, sorted(cpu)[3] * 1e3)
    print(json.dumps(res))


def main():
    threads = [int(t) for t in sys.argv[1:]] or [1, 2]
    for n in threads:
        got = {}
        for who, py in PYTHONS.items():
            env = dict(os.environ, OMP_NUM_THREADS=str(n), MKL_NUM_THREADS=str(n))
            r = subprocess.run([py, os.path.abspath(__file__), "--worker"], env=env, capture_output=True, text=True,
                               check=True)
            got[who] = json.loads(r.stdout.strip().splitlines()[-1])
        print("threads=%d%s  median ms per call: wall ours / upstream (ratio) | cpu ours / upstream (ratio)" % (
            n, " TN_QCONV=" + os.environ["TN_QCONV"] if os.environ.get("TN_QCONV") else ""))
        for name, *_ in SHAPES:
            (ow, oc), (uw, uc) = got["ours"][name], got["upstream"][name]
            print("  %-28s %7.3f / %7.3f (%5.2fx) | %7.3f / %7.3f (%5.2fx)" % (name, ow, uw, ow / uw, oc, uc, oc / uc))


if __name__ == "__main__":
    worker() if sys.argv[1:] == ["--worker"] else main()
