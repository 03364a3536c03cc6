"""One quantised Linear kernel alone (docs/quant.md): `torch.ops.torchnative.quant_linear` on seeded
N(0, 0.02) weights of N x K quantised to FMT, M activation rows, timed by process CPU time (robust
to descheduling on a shared host), best of 7; ROT > 1 rotates that many weight matrices so the
weights come from memory rather than cache. Prints nanoseconds per 32 weight values per row.

usage: OMP_NUM_THREADS=1 .venv/bin/python bench/bench_quant_kernel.py FMT N K [M] [ROT]
       (TN_QUANT_NO8=1: the one-row kernels only; TN_QUANT=avx2|ref: a lower ISA variant)
"""
import sys
import time

import torch


def main():
    f, N, K = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    M = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rot = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    ops = torch.ops.torchnative
    g = torch.Generator().manual_seed(0)
    ws = [ops.quantize(torch.randn(N, K, generator=g) * 0.02, f) for _ in range(rot)]
    x = torch.randn(M, K, generator=g)
    for w in ws:
        ops.quant_linear(x, w, f, N, K, None)
    best, reps = float("inf"), max(1, 200 // rot)
    for _ in range(7):
        c = time.process_time()
        for _ in range(reps):
            for w in ws:
                ops.quant_linear(x, w, f, N, K, None)
        best = min(best, (time.process_time() - c) / (reps * rot))
    print("%s %dx%d M=%d rot=%d isa=%s threads=%d: %.3f ns / 32 values (best of 7)" % (
        f, N, K, M, rot, ops.quant_isa(), torch.get_num_threads(), best / (M * N * K / 32) * 1e9))


if __name__ == "__main__":
    main()
