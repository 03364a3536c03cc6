"""all_reduce bandwidth of a 4-rank gloo world on 127.0.0.1: ours vs upstream torch 2.13.0, side by side.

    .venv/bin/python bench/bench_allreduce.py [--ranks 4] [--reps 5]

Each world (4 of our ranks, then 4 upstream ranks) times `dist.all_reduce` of f32 tensors from
1 KB to 64 MB (median of --reps after one warm-up, a barrier before each timed call); rank 0
prints the medians. The ratio column is ours / upstream (lower is better). Run it on an idle
machine: the ranks share the cores, so any other load skews both sides differently.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYS = {"ours": os.path.join(ROOT, ".venv", "bin", "python"), "upstream": os.path.join(ROOT, ".venv-ref", "bin", "python")}
SIZES = [1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]   # bytes

RANK_CODE = r"""
import json, os, sys, time, statistics, torch, torch.distributed as dist
sizes, reps, out = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
dist.init_process_group("gloo")
res = {}
for nb in sizes:
    t = torch.ones(nb // 4)
    dist.all_reduce(t)
    ts = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        ts.append(time.perf_counter() - t0)
    res[nb] = statistics.median(ts)
if dist.get_rank() == 0:
    json.dump(res, open(out, "w"))
dist.destroy_process_group()
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def world(py, ranks, reps):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        port = free_port()
        procs = []
        for r in range(ranks):
            e = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(ranks), RANK=str(r))
            procs.append(subprocess.Popen([py, "-c", RANK_CODE, json.dumps(SIZES), str(reps), out], env=e))
        for p in procs:
            p.wait(timeout=600)
        return {int(k): v for k, v in json.load(open(out)).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    res = {name: world(py, a.ranks, a.reps) for name, py in PYS.items()}
    print(f"all_reduce f32, {a.ranks} ranks on 127.0.0.1, median of {a.reps}")
    print(f"{'bytes':>10} {'ours ms':>10} {'upstream ms':>12} {'ratio':>7} {'ours GB/s':>10}")
    for nb in SIZES:
        o, u = res["ours"][nb], res["upstream"][nb]
        print(f"{nb:>10} {o * 1e3:>10.3f} {u * 1e3:>12.3f} {o / u:>7.2f} {nb / o / 1e9:>10.3f}")


if __name__ == "__main__":
    sys.exit(main())
