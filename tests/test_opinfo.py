"""Upstream's OpInfo suite (op_db, 702 entries) run on both interpreters and compared.

tests/harness/opinfo.py does the work (this process never imports torch): for every entry, the
samples upstream generates for each dtype among float32, float64, int64, bool, bfloat16, float16
and complex64 that the entry supports on CPU (seeded; CI takes up to CI_CAP = 3 per entry and
dtype, picked by a fixed seeded spread; `make opinfo-full` takes every sample), shipped to our
side through torch.save, run on both sides and compared with the golden harness's comparator
(floating values within upstream's own float error, never bit-exact; integers, shapes, dtypes,
views and exception types exact). The sweep writes build/opinfo-results.json, which
`make golden-report` prints.

Fails on any entry whose class is `wrong-value` or `crash` (bugs), unless it is listed in
tests/opinfo_known_failures.txt with its class and reason; a listed entry that no longer fails
that way fails too (the list cannot rot).

The same three checks run over upstream's ModuleInfo suite (common_modules.module_db, 114
torch.nn modules; the `module` parameter): each ModuleInput in eval mode, and in train mode
where the ModuleInfo says they differ, built from the same state on both sides; the output,
the gradients of the output with respect to the inputs and parameters, and the buffers after
the call are compared (opinfo_worker.py). Results in build/moduleinfo-results.json, known
failures in tests/moduleinfo_known_failures.txt. Refusals by name (NotImplementedError
"torchnative: ..." or upstream's "\"kernel\" not implemented for 'Dtype'" where upstream
computes) and wrong exception types are reported, not failed: they are breadth work.
"""
import os
import subprocess

import pytest

from harness import opinfo
from harness.runner import ref_python

_RES = {}
SUITES = ("op", "module")


def _results(suite):
    if suite not in _RES:
        keys = opinfo.entry_keys(suite=suite)
        sweep = opinfo.Sweep(keys, cap=opinfo.CI_CAP, suite=suite)
        res = sweep.run()
        summary = opinfo.summarize(res)
        opinfo.write_results(res, summary, opinfo.CI_CAP,
                             opinfo.MODULE_RESULTS if suite == "module" else opinfo.RESULTS)
        _RES[suite] = (res, summary)
    return _RES[suite]


_CAP = []


def _upstream_capability():
    if not _CAP:
        r = subprocess.run([ref_python(), "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                           capture_output=True, text=True)
        _CAP.append(r.stdout.strip())
    return _CAP[0]


def _known(suite):
    """A class written `CLASS@no-avx512` is expected only where upstream's ATen runs without its
    AVX-512 kernels (their summation order differs from its AVX2 ones; the entry passes on AVX-512
    hosts); elsewhere the entry is neither known nor stale."""
    known = opinfo.load_known(opinfo.MODULE_KNOWN_FILE if suite == "module" else opinfo.KNOWN_FILE)
    out = {}
    for k, (cls, why) in known.items():
        if cls.endswith("@no-avx512"):
            if _upstream_capability().startswith("AVX512"):
                continue
            cls = cls[:-len("@no-avx512")]
        out[k] = (cls, why)
    return out


pytestmark = pytest.mark.skipif(not os.path.exists(ref_python()), reason="no reference interpreter")


def _listing(res, classes):
    return "\n".join("  %-16s %-40s %s" % (r["class"], k, (r.get("detail") or "")[:300])
                     for k, r in sorted(res.items()) if r["class"] in classes)


@pytest.mark.parametrize("suite", SUITES)
def test_opinfo_summary(suite):
    res, s = _results(suite)
    print(opinfo.format_summary(s, res, opinfo.CI_CAP, suite))
    print(_listing(res, ("refused", "wrong-exception", "load-failed")))
    least = 100 if suite == "module" else 600
    assert s["upstream_runs"] > least, "upstream ran only %d entries" % s["upstream_runs"]


@pytest.mark.parametrize("suite", SUITES)
def test_opinfo_no_wrong_value_or_crash(suite):
    res, _ = _results(suite)
    known = _known(suite)
    bad = {k: r for k, r in res.items() if r["class"] in ("wrong-value", "crash")
           and known.get(k, (None,))[0] != r["class"]}
    assert not bad, "entries with wrong values or crashes:\n" + _listing(bad, ("wrong-value", "crash"))


@pytest.mark.parametrize("suite", SUITES)
def test_opinfo_known_failures_still_fail(suite):
    res, _ = _results(suite)
    stale = ["%s (listed as %s, now %s)" % (k, cls, res[k]["class"] if k in res else "not in the database")
             for k, (cls, _) in _known(suite).items() if k not in res or res[k]["class"] != cls]
    assert not stale, "the known-failures file lists entries that no longer fail that way:\n  " + \
        "\n  ".join(stale)
