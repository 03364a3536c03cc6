"""Find the aten calls whose result differs from upstream's, one call at a time (a debugging
aid for "values differ" failures of the sweep and the model tests).

    .venv/bin/python tools/op_replay.py MODEL_TYPE [--lm] [--attn eager|sdpa] [--top N]

The reference (`.venv-ref`) builds the sweep's small model of MODEL_TYPE (tests/models/
sweep_worker.py: shrunk config, seed 0, its inputs), runs one forward under a TorchDispatchMode
that records every aten call (arguments cloned before the call, results after) and saves the
record with torch.save. Then torchnative (`.venv`) replays each recorded call on the recorded
arguments -- so every call sees upstream's exact inputs, and an error cannot be inherited from an
earlier op -- and compares with upstream's results. Printed: the calls whose floating results
differ, worst first, as the largest difference in units of the reference element's ulp, with
the op, the first argument's shape / dtype, and how many elements differ.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, ".venv-ref", "bin", "python")

RECORD = r"""
import sys, torch, transformers
sys.path.insert(0, %(models)r)
import sweep_worker as sw
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map
mt, lm, attn, path = %(mt)r, %(lm)r, %(attn)r, %(path)r
config = sw.shrink_config(mt)
config._attn_implementation = attn
kind, cls = [c for c in sw._classes(mt) if c[0] == ("lm" if lm else "base")][0]
m = sw._build(torch, cls, config)
inp = sw.build_inputs(torch, m, config, lm=lm)
cl = lambda x: x.clone() if isinstance(x, torch.Tensor) else x
calls = []
class Rec(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        a, k = tree_map(cl, args), tree_map(cl, kwargs)
        out = func(*args, **kwargs)
        calls.append((func._schema.name, func._overloadname, a, k, tree_map(cl, out)))
        return out
with torch.no_grad(), Rec():
    m(**inp)
import io, pickle
kept = []
for c in calls:  # a call whose arguments do not pickle is left out (counted)
    try:
        torch.save(c, io.BytesIO())
        kept.append(c)
    except (TypeError, pickle.PicklingError, AttributeError):
        kept.append((c[0], c[1], None, None, None))
torch.save(kept, path)
print(len(calls), "calls recorded")
"""


def ulps(torch, ref, sub):
    """largest |sub - ref| in ulps of ref's elements (finite, same shape), and the count differing"""
    if ref.shape != sub.shape:
        return float("inf"), -1
    r, s = ref.double(), sub.double()
    same = (r == s) | (torch.isnan(r) & torch.isnan(s))
    n = int((~same).sum())
    if n == 0:
        return 0.0, 0
    fin = torch.finfo(ref.dtype)
    ulp = torch.maximum(r.abs(), torch.tensor(fin.tiny, dtype=torch.float64)) * fin.eps
    d = ((r - s).abs() / ulp)[~same]
    return float(d.max()), n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_type")
    ap.add_argument("--lm", action="store_true")
    ap.add_argument("--attn", default="eager")
    ap.add_argument("--top", type=int, default=25)
    o = ap.parse_args()
    path = os.path.join(tempfile.mkdtemp(prefix="op_replay."), "calls.pt")
    src = RECORD % {"models": os.path.join(ROOT, "tests", "models"), "mt": o.model_type, "lm": o.lm,
                    "attn": o.attn, "path": path}
    subprocess.run([REF, "-c", src], check=True)
    import torch
    from torch.utils._pytree import tree_flatten
    calls = torch.load(path, weights_only=False)
    rows, skipped = [], 0
    for i, (name, ovl, args, kwargs, out) in enumerate(calls):
        if args is None:
            skipped += 1
            continue
        op = getattr(getattr(torch.ops.aten, name.split("::")[1]), ovl or "default")
        try:
            got = op(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 -- report and go on
            rows.append((float("inf"), i, name, "raised %s: %s" % (type(e).__name__, str(e)[:80]), 0))
            continue
        refs, subs = tree_flatten(out)[0], tree_flatten(got)[0]
        for r, s in zip(refs, subs):
            if not (isinstance(r, torch.Tensor) and isinstance(s, torch.Tensor)):
                continue
            if not r.dtype.is_floating_point or r.numel() == 0:
                skipped += 1
                continue
            u, n = ulps(torch, r, s)
            if n:
                a0 = next((a for a in tree_flatten(args)[0] if isinstance(a, torch.Tensor)), None)
                desc = "%s %s" % (tuple(a0.shape), str(a0.dtype).replace("torch.", "")) if a0 is not None else ""
                rows.append((u, i, name + "." + (ovl or "default"), desc, n))
    rows.sort(key=lambda r: -r[0])
    print("%d calls replayed (%d results or calls skipped: not floating, or not picklable); %d with a floating "
          "result differing from upstream's" % (len(calls), skipped, len(rows)))
    print("%10s %6s  %-40s %-28s %s" % ("max ulps", "call", "op", "first input", "elements differing"))
    for u, i, name, desc, n in rows[:o.top]:
        print("%10.1f %6d  %-40s %-28s %s" % (u, i, name, desc, n))


if __name__ == "__main__":
    main()
