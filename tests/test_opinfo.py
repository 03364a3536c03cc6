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
that way fails too (the list cannot rot). Refusals by name (NotImplementedError
"torchnative: ..." or upstream's "\"kernel\" not implemented for 'Dtype'" where upstream
computes) and wrong exception types are reported, not failed: they are breadth work.
"""
import os

import pytest

from harness import opinfo
from harness.runner import ref_python

_RES = []


def _results():
    if not _RES:
        keys = opinfo.entry_keys()
        sweep = opinfo.Sweep(keys, cap=opinfo.CI_CAP)
        res = sweep.run()
        summary = opinfo.summarize(res)
        opinfo.write_results(res, summary, opinfo.CI_CAP)
        _RES.append((res, summary))
    return _RES[0]


pytestmark = pytest.mark.skipif(not os.path.exists(ref_python()), reason="no reference interpreter")


def _listing(res, classes):
    return "\n".join("  %-16s %-40s %s" % (r["class"], k, (r.get("detail") or "")[:300])
                     for k, r in sorted(res.items()) if r["class"] in classes)


def test_opinfo_summary():
    res, s = _results()
    print(opinfo.format_summary(s, res, opinfo.CI_CAP))
    print(_listing(res, ("refused", "wrong-exception", "load-failed")))
    assert s["upstream_runs"] > 600, "op_db ran on upstream for only %d entries" % s["upstream_runs"]


def test_opinfo_no_wrong_value_or_crash():
    res, _ = _results()
    known = opinfo.load_known()
    bad = {k: r for k, r in res.items() if r["class"] in ("wrong-value", "crash")
           and known.get(k, (None,))[0] != r["class"]}
    assert not bad, "OpInfo entries with wrong values or crashes:\n" + _listing(bad, ("wrong-value", "crash"))


def test_opinfo_known_failures_still_fail():
    res, _ = _results()
    stale = ["%s (listed as %s, now %s)" % (k, cls, res[k]["class"] if k in res else "not in op_db")
             for k, (cls, _) in opinfo.load_known().items() if k not in res or res[k]["class"] != cls]
    assert not stale, "tests/opinfo_known_failures.txt lists entries that no longer fail that way:\n  " + \
        "\n  ".join(stale)
