"""Where one ModuleInfo sample's result first differs between upstream and ours, op by op
(docs/opinfo.md, "ModuleInfo: the Transformer gradients").

usage: .venv/bin/python tools/module_op_diff.py nn.TransformerEncoder 0 [float32] [--all]

Builds the sample as tests/harness/opinfo_worker.py does (same spec bytes on both sides), runs
opinfo_worker.module_call (forward and the gradients) on each interpreter under a
TorchDispatchMode that records every aten call's arguments and results (one thread, as the
harness's workers run), then prints:
  1. the calls of the two traces aligned by (op, argument shapes), and the first ones (or --all)
     whose arguments or results differ in bits: where the difference enters;
  2. upstream's calls replayed on ours with upstream's own arguments: the ops whose kernel gives
     other bits on the same input (ops ours does not implement standalone, e.g. a fused backward
     it decomposes, are named as such).
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import io, sys
sys.path.insert(0, sys.argv[1] + "/tests")
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map
from harness import opinfo_worker as ow
mode, name, idx, dt, blob, out = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7]
if mode == "make":
    from torch.testing._internal.common_modules import module_db
    info = [i for i in module_db if "nn." + i.module_cls.__name__ == name][0]
    ow.hw._seed(torch)   # as opinfo_worker.run_job before the generator
    mi, tr = ow._samples(torch, info, dt, True)[idx]
    open(blob, "wb").write(ow.dumps_module_sample(torch, info, mi, tr))
    sys.exit(0)

def keep(x):   # tensors copied; devices, layouts, memory formats as their repr
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    return x if x is None or isinstance(x, (bool, int, float, str, torch.dtype)) else repr(x)

if mode == "trace":
    calls = []
    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            a = tree_map(keep, (args, kwargs))
            res = func(*args, **kwargs)
            calls.append((str(func), a, tree_map(keep, res)))
            return res
    spec, args, kwargs = torch.load(io.BytesIO(open(blob, "rb").read()), weights_only=False)
    ow.hw._seed(torch)
    with Rec():
        ow.module_call(spec, *args, **kwargs)
    torch.save(calls, out)
    sys.exit(0)

# compare (upstream's trace in argv[6], ours in argv[7]) or replay (upstream's trace on ours)
SKIP = ("empty", "uniform_", "normal_", "detach", "copy_", "fill_", "zero_", "lift", "arange")

def flat(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in flat(y)]
    if isinstance(x, dict):
        return [t for y in x.values() for t in flat(y)]
    return []

def diff(x, y):
    if x.shape != y.shape or x.dtype != y.dtype:
        return "%s %s against %s %s" % (tuple(x.shape), x.dtype, tuple(y.shape), y.dtype)
    if not (x.is_floating_point() or x.is_complex()):
        return None if torch.equal(x, y) else "integers differ"
    bad = ~((x == y) | (x.isnan() & y.isnan()))
    if not bad.any():
        return None
    return "%d of %d differ, max |diff| %.3g" % (bad.sum(), x.numel(), (x - y)[bad].abs().max())

def key(c):
    return c[0] + str([tuple(t.shape) for t in flat(c[1][0])])

ref = torch.load(blob, weights_only=False)
if mode == "compare":
    import difflib
    limit = int(sys.argv[8])
    # (index in the trace, call) without the calls that create or alias (SKIP)
    ref = [(n, c) for n, c in enumerate(ref) if not any(s in c[0] for s in SKIP)]
    ours = [(n, c) for n, c in enumerate(torch.load(out, weights_only=False)) if not any(s in c[0] for s in SKIP)]
    ka, kb = [key(c) for _, c in ref], [key(c) for _, c in ours]
    shown = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes():
        if tag != "equal":
            print("  different steps: upstream calls %s %s | ours %s %s" % (
                  [n for n, _ in ref[i1:i2]][:1], sorted(set(c[0] for _, c in ref[i1:i2]))[:3],
                  [n for n, _ in ours[j1:j2]][:1], sorted(set(c[0] for _, c in ours[j1:j2]))[:3]))
            continue
        for (i, a), (j, b), k in zip(ref[i1:i2], ours[j1:j2], ka[i1:i2]):
            args = [diff(x, y) for x, y in zip(flat(a[1]), flat(b[1]))]
            if a[0].split(".")[-2].endswith("_"):
                args = args[1:]   # an in-place op's first argument is recorded after the call
            res = [diff(x, y) for x, y in zip(flat(a[2]), flat(b[2]))]
            if any(args) or any(res):
                print("  upstream call %d / ours %d %s\n    arguments: %s\n    results: %s" % (
                      i, j, k, [d or "same" for d in args], [d or "same" for d in res]))
                shown += 1
                if shown >= limit:
                    sys.exit(0)
    sys.exit(0)

def lit(x):
    return eval(x, {"torch": torch}) if isinstance(x, str) and x.startswith("torch.") else x

for i, (name, (args, kwargs), res) in enumerate(ref):
    if any(s in name for s in SKIP):
        continue
    ns, op, overload = name.split(".")
    fn = getattr(getattr(getattr(torch.ops, ns), op), overload)
    args = [lit(a) for a in tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, args)]
    kwargs = {k: lit(v) for k, v in kwargs.items()}
    try:
        got = fn(*args, **kwargs)
    except NotImplementedError:
        print("  upstream call %d %s: not a standalone op here (ours decomposes it)" % (i, name))
        continue
    d = [diff(x, y) for x, y in zip(flat(res), flat(got))]
    if any(d):
        print("  upstream call %d %s %s: %s" % (i, name, [tuple(t.shape) for t in flat(args)],
              [x or "same" for x in d]))
'''


def main():
    argv = [a for a in sys.argv[1:] if a != "--all"]
    name, idx = argv[0], argv[1]
    dt = argv[2] if len(argv) > 2 else "float32"
    limit = "1000000" if "--all" in sys.argv else "12"
    ref, sub = os.path.join(ROOT, ".venv-ref/bin/python"), os.path.join(ROOT, ".venv/bin/python")
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    tmp = tempfile.mkdtemp(prefix="tn-opdiff-")
    blob, tref, tsub = (os.path.join(tmp, f) for f in ("sample.pt", "ref.pt", "ours.pt"))

    def run(py, *a):
        subprocess.run([py, "-c", CHILD, ROOT, *a], check=True, env=env)

    run(ref, "make", name, idx, dt, blob, "-")
    run(ref, "trace", name, idx, dt, blob, tref)
    run(sub, "trace", name, idx, dt, blob, tsub)
    print("%s %s sample %s: calls whose arguments or results differ (upstream's trace against ours)" % (name, dt, idx))
    run(ref, "compare", name, idx, dt, tref, tsub, limit)
    print("upstream's calls replayed on ours with upstream's arguments: kernels that give other bits")
    run(sub, "replay", name, idx, dt, tref, "-")


if __name__ == "__main__":
    main()
