"""Per-op side-by-side timing of a low-precision Llama prefill: upstream torch 2.13.0 (.venv-ref)
and torchnative (.venv) in one run.

Each side, in a process of its own (single-threaded unless BENCH_THREADS says otherwise), builds
the SmolLM2-135M-shaped Llama of bench_models.py with 1 layer (the 30 layers repeat the same op
stream), converts it with `.to(dtype)`, and records the aten calls of one prefill of L tokens
under a TorchDispatchMode (args copied). Then, with no mode active, each distinct call
(op, argument shapes/strides/dtypes) is timed alone: repeats while fewer than 20 runs and less
than 0.2 s, median. Per row: the op, its first tensor's shape, calls per layer, median us per call
on each side, ratio ours/upstream (> 1: torchnative slower). The last line sums calls x time per
layer on both sides. Rows whose ratio exceeds --show (default 1.0) are marked '*'.

usage: bench_bf16_ops.py [--dtype bfloat16|float16] [--len L] [--rounds N] [--json FILE]
  (--rounds N: N alternating process pairs, median per row; default 3)
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, ".venv", "bin", "python")
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import CONFIG  # noqa: E402

WORKER = r"""
import json, statistics, sys, time, warnings
warnings.filterwarnings("ignore")
import torch, transformers
from torch.utils._python_dispatch import TorchDispatchMode
spec = json.loads(sys.argv[1])
cfg = dict(spec["config"], num_hidden_layers=1)
torch.manual_seed(0)
m = transformers.LlamaForCausalLM(transformers.LlamaConfig(**cfg)).eval().to(getattr(torch, spec["dtype"]))
g = torch.Generator().manual_seed(1)
ids = torch.randint(0, cfg["vocab_size"], (1, spec["len"]), generator=g)

def sig(x):
    if isinstance(x, torch.Tensor):
        return "%s%s%s" % (str(x.dtype).replace("torch.", ""), list(x.shape),
                           "" if x.is_contiguous() else "s" + str(list(x.stride())))
    if isinstance(x, (list, tuple)):
        return "(" + ",".join(sig(y) for y in x) + ")"
    return repr(x)

def copy(x):
    if isinstance(x, torch.Tensor):
        return x.detach()
    if isinstance(x, (list, tuple)):
        return type(x)(copy(y) for y in x)
    return x

calls = {}
order = []
class Rec(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = str(func.overloadpacket.__name__) + "." + func._overloadname
        key = name + " " + sig(args) + (" " + sig(kwargs) if kwargs else "")
        if key not in calls:
            calls[key] = [func, copy(args), copy(kwargs), 0]
            order.append(key)
        calls[key][3] += 1
        return out

with torch.no_grad():
    m(ids[:, :6], use_cache=True, logits_to_keep=1)
    with Rec():
        m(ids, use_cache=True, logits_to_keep=1)
res = []
skip = {"embedding", "detach", "_to_copy", "lift_fresh"}
with torch.no_grad():
    for key in order:
        func, args, kwargs, n = calls[key]
        if func._overloadname.endswith("_") or func.overloadpacket.__name__.endswith("_"):
            continue  # in-place: timing would compound
        try:
            func(*args, **kwargs)
        except Exception as e:
            res.append([key, n, None, type(e).__name__]); continue
        ts, start = [], time.perf_counter()
        while len(ts) < 20 and time.perf_counter() - start < 0.2 or len(ts) < 3:
            t = time.perf_counter()
            func(*args, **kwargs)
            ts.append(time.perf_counter() - t)
        res.append([key, n, statistics.median(ts), None])
print(json.dumps(res))
"""


def run(python, spec, threads):
    env = dict(os.environ, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads,
               TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    r = subprocess.run([python, "-c", WORKER, json.dumps(spec)], capture_output=True, text=True, env=env)
    if r.returncode:
        sys.exit("%s failed: %s" % (python, r.stderr.strip()[-2000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    dtype = arg("--dtype", "bfloat16")
    L = int(arg("--len", "128"))
    rounds = int(arg("--rounds", "3"))
    show = float(arg("--show", "1.0"))
    threads = os.environ.get("BENCH_THREADS", "1")
    spec = {"config": CONFIG, "dtype": dtype, "len": L}
    per = {"ref": [], "ours": []}
    for _ in range(rounds):
        for side, py in (("ref", REF), ("ours", OURS)):
            per[side].append({k: (n, t, e) for k, n, t, e in run(py, spec, threads)})
    keys = [k for k in per["ref"][0]]
    print("per-op %s prefill %d, 1 layer, %s thread(s), median of %d round(s)" % (dtype, L, threads, rounds))
    print(f"{'op':70} {'n':>3} {'ours us':>9} {'ref us':>9} {'ratio':>6}")
    tot = {"ours": 0.0, "ref": 0.0}
    table = []
    for k in keys:
        vals = {}
        n = per["ref"][0][k][0]
        for side in ("ours", "ref"):
            xs = [d[k][1] for d in per[side] if k in d and d[k][1] is not None]
            vals[side] = statistics.median(xs) if xs else None
        o, r = vals["ours"], vals["ref"]
        if o is None or r is None:
            print(f"{k[:70]:70} {n:3} failed")
            continue
        tot["ours"] += n * o
        tot["ref"] += n * r
        mark = "*" if o / r > show else " "
        print(f"{k[:70]:70} {n:3} {o * 1e6:9.1f} {r * 1e6:9.1f} {o / r:6.2f}{mark}")
        table.append({"op": k, "n": n, "ours": o, "ref": r, "ratio": o / r})
    print(f"{'total per layer (sum n x time)':70} {'':3} {tot['ours'] * 1e6:9.1f} {tot['ref'] * 1e6:9.1f} "
          f"{tot['ours'] / tot['ref']:6.2f}")
    if "--json" in sys.argv:
        with open(arg("--json", None), "w") as f:
            json.dump({"dtype": dtype, "len": L, "threads": threads, "rows": table}, f, indent=1)


if __name__ == "__main__":
    main()
