"""gradcheck / gradgradcheck over upstream's OpInfo sample inputs (a fixed subset), on torchnative.

tools/gradcheck_report.py does the work in a child `.venv/bin/python` (this process never imports
torch): for each OpInfo of its SUBSET that supports autograd, up to 5 seeded float64 samples go
through torch.autograd.gradcheck (and gradgradcheck where the OpInfo supports_gradgrad); the ops of
FORWARD_SUBSET also through gradcheck(check_forward_ad=True) (forward-mode AD). An op
may refuse (NotImplementedError "torchnative: ..." for a missing op, overload or formula); it may
not crash the interpreter, and an op that does not refuse must pass: a gradcheck failure is a
wrong gradient. The full set runs with `.venv/bin/python tools/gradcheck_report.py`.
"""
import json
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))

# Known failures not fixed yet: op key -> reason. Each stays visible as an xfail.
KNOWN = {
    "nn.functional.pad.circular": "gradgradcheck: the double backward of _pad_circular's composite (new_empty, slices, "
                                  "copy_ into CopySlices) reports a nonzero analytical gradient where the numerical one "
                                  "is zero; first-order gradients agree with upstream",
}

_RESULTS = []


def _results():
    if not _RESULTS:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            p = subprocess.run([PY, os.path.join(ROOT, "tools", "gradcheck_report.py"), "--subset", "--json", out],
                               capture_output=True, text=True, timeout=900, cwd=ROOT)
            if p.returncode != 0 or not os.path.exists(out):
                raise RuntimeError(f"gradcheck_report failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
            _RESULTS.append((json.load(open(out)), p.stdout))
    return _RESULTS[0]


def _subset():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import gradcheck_report
        return gradcheck_report.SUBSET
    finally:
        sys.path.pop(0)


def test_no_crash_and_summary():
    results, summary = _results()
    print(summary)
    crashed = [k for k, r in results.items() if r.get("crash")]
    assert not crashed, f"crashed: {crashed}"
    assert results, "no OpInfo ran"


def _ops():
    return _subset()


@pytest.mark.parametrize("name", _ops())
def test_gradcheck(name):
    results, _ = _results()
    recs = [r for k, r in results.items() if k == name or k.startswith(name + ".")]
    assert recs, f"{name}: not in op_db (or no autograd support)"
    for r in recs:
        if r["op"] in KNOWN and (r["grad"] == "failed" or r["gradgrad"] == "failed"):
            pytest.xfail(f"known wrong gradient: {r['op']}: {KNOWN[r['op']]}")
        assert r["grad"] != "failed", f"{r['op']}: gradcheck failed: {r.get('grad_error') or r.get('error')}"
        assert r["gradgrad"] != "failed", f"{r['op']}: gradgradcheck failed: {r.get('gradgrad_error')}"



_FW_RESULTS = []


def _fw_results():
    if not _FW_RESULTS:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.json")
            p = subprocess.run([PY, os.path.join(ROOT, "tools", "gradcheck_report.py"), "--subset", "--forward-only",
                                "--json", out], capture_output=True, text=True, timeout=900, cwd=ROOT)
            if p.returncode != 0 or not os.path.exists(out):
                raise RuntimeError(f"gradcheck_report --forward-only failed:\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
            _FW_RESULTS.append(json.load(open(out)))
    return _FW_RESULTS[0]


def _fw_ops():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import gradcheck_report
        return gradcheck_report.FORWARD_SUBSET
    finally:
        sys.path.pop(0)


@pytest.mark.parametrize("name", _fw_ops())
def test_forward_ad(name):
    results = _fw_results()
    assert not any(r.get("crash") for r in results.values()), "crashed"
    recs = [r for k, r in results.items() if k == name or k.startswith(name + ".")]
    assert recs, f"{name}: not in op_db (or no autograd support)"
    for r in recs:
        assert r.get("fwgrad") != "failed", f"{r['op']}: forward AD gradcheck failed: {r.get('fwgrad_error')}"
