"""One ModuleInfo sample's gradients against a float64 run, on both interpreters
(docs/opinfo.md, "ModuleInfo: the Transformer gradients").

usage: .venv/bin/python tools/module_grad_error.py nn.Transformer 0 [float32]

Builds the sample as tests/harness/opinfo_worker.py does (same spec bytes on every run) and
computes the output's gradients (opinfo_worker.module_call) four ways: upstream in float32,
upstream with the module and inputs in float64 (the reference values), upstream in float32 with
F.layer_norm evaluated in float64 and rounded once (what our layer_norm kernel does), and ours
in float32. Prints, per gradient, each run's max |error| against the float64 run, and the
gradients where a run differs from upstream's float32 by more than twice upstream's own error.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import contextlib, io, sys
sys.path.insert(0, sys.argv[1] + "/tests")
import torch
from harness import opinfo_worker as ow
from torch.testing._internal.common_modules import module_db
name, idx, dt, mode, blob_path, out_path = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7]
if mode == "make":
    info = [i for i in module_db if "nn." + i.module_cls.__name__ == name][0]
    ow.hw._seed(torch)   # as opinfo_worker.run_job before the generator
    mi, tr = ow._samples(torch, info, dt, True)[idx]
    open(blob_path, "wb").write(ow.dumps_module_sample(torch, info, mi, tr))
    sys.exit(0)
spec, args, kwargs = torch.load(io.BytesIO(open(blob_path, "rb").read()), weights_only=False)
if mode == "f64":
    wide = lambda v: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
    spec["state"] = {k: wide(v) for k, v in spec["state"].items()}
    args = tuple(wide(a) for a in args)
    kwargs = {k: wide(v) for k, v in kwargs.items()}
    load = torch.nn.Module.load_state_dict
    torch.nn.Module.load_state_dict = lambda self, sd, *a, **k: load(self.double(), sd, *a, **k)
if mode == "ln64":
    F = torch.nn.functional
    ln = F.layer_norm
    def ln64(x, shape, w=None, b=None, eps=1e-5):
        if x.dtype != torch.float32:
            return ln(x, shape, w, b, eps)
        d = lambda t: None if t is None else t.double()
        return ln(x.double(), shape, d(w), d(b), eps).float()
    F.layer_norm = ln64
ow.hw._seed(torch)
out, grads, _ = ow.module_call(spec, *args, **kwargs)
torch.save({k: v.detach().double() for k, v in grads.items() if v is not None}, out_path)
'''


def main():
    name, idx = sys.argv[1], sys.argv[2]
    dt = sys.argv[3] if len(sys.argv) > 3 else "float32"
    ref, sub = os.path.join(ROOT, ".venv-ref/bin/python"), os.path.join(ROOT, ".venv/bin/python")
    tmp = tempfile.mkdtemp(prefix="tn-modgrad-")
    blob = os.path.join(tmp, "sample.pt")
    runs = [("make", ref), ("f64", ref), ("upstream", ref), ("ln64", ref), ("ours", sub)]
    for mode, py in runs:
        subprocess.run([py, "-c", CHILD, ROOT, name, idx, dt, mode, blob, os.path.join(tmp, mode + ".pt")],
                       check=True, stderr=subprocess.DEVNULL)
    report = r'''
import sys, torch
tmp = sys.argv[1]
t = torch.load(tmp + "/f64.pt")
runs = {m: torch.load(tmp + "/%s.pt" % m) for m in ("upstream", "ln64", "ours")}
print("%-50s %12s %12s %12s" % ("max |grad - float64 run|", "upstream", "upstream+ln64", "ours"))
flag = {m: [] for m in runs}
for k in t:
    e = {m: (r[k] - t[k]).abs().max().item() for m, r in runs.items()}
    print("%-50s %12.3g %12.3g %12.3g" % (k, e["upstream"], e["ln64"], e["ours"]))
    for m in ("ln64", "ours"):
        d = (runs[m][k] - runs["upstream"][k]).abs().max().item()
        if d > 2 * e["upstream"]:
            flag[m].append("%s (%.2fx)" % (k, d / e["upstream"] if e["upstream"] else float("inf")))
print("sum over gradients: upstream %.3g, upstream+ln64 %.3g, ours %.3g" % tuple(
    sum((r[k] - t[k]).abs().max().item() for k in t) for r in runs.values()))
for m in ("ln64", "ours"):
    print("differ from upstream by > 2x upstream's error (%s): %s" % (m, ", ".join(flag[m]) or "none"))
'''
    subprocess.run([ref, "-c", report, tmp], check=True)


if __name__ == "__main__":
    main()
