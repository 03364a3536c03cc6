"""pytest wiring for the torchnative comparison harness (tests/harness).

Makes `harness` importable from any test module, provides the session-scoped `tn_runner`
fixture (one reference and one subject worker process for all cases of the session) and prints
a one-line harness summary at the end. When the session ran golden cases it also writes
build/golden-results.json (outcome of every case, its family = test file and group = test
function; read by `python -m torchnative.golden_report`). This process never imports torch.
"""
import json
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.runner import ROOT, Runner  # noqa: E402

_RUNNER = []
_OUTCOMES = {}  # nodeid -> {"family", "group", "case", "outcome"}
RESULTS_PATH = os.environ.get("TN_GOLDEN_RESULTS", str(ROOT / "build" / "golden-results.json"))


@pytest.fixture(scope="session")
def tn_runner(request):
    r = Runner(request.session.items)
    _RUNNER.append(r)
    return r


def _case_item(item):
    cs = getattr(item, "callspec", None)
    return cs.params.get("tn_case") if cs else None


def pytest_collection_modifyitems(session, config, items):
    shard = os.environ.get("TN_SHARD")   # "i/n": keep every n-th golden case from the i-th
    if shard:                            # (tools/test_streams.py --asan; other tests all kept)
        i, n = map(int, shard.split("/"))
        golden = [it for it in items if _case_item(it) is not None]
        drop = {id(it) for k, it in enumerate(golden) if k % n != i}
        if drop:
            config.hook.pytest_deselected(items=[it for it in items if id(it) in drop])
            items[:] = [it for it in items if id(it) not in drop]
    for item in items:
        c = _case_item(item)
        if c is not None and not c.ref_only:
            fam = os.path.basename(str(item.fspath))[:-3]
            fam = fam[len("test_"):] if fam.startswith("test_") else fam
            _OUTCOMES[item.nodeid] = {"family": fam, "group": item.originalname,
                                      "case": c.id, "outcome": "not run"}


def pytest_collection_finish(session):
    """A test module defining `start_early(items)` gets its collected items once collection is
    done, before the first test runs: it may start work that mostly waits (tests/test_federated.py
    starts its Flower federations) so that the waiting overlaps the tests before it."""
    if session.config.option.collectonly:
        return
    by_module = {}
    for item in session.items:
        mod = getattr(item, "module", None)
        if mod is not None and hasattr(mod, "start_early"):
            by_module.setdefault(mod, []).append(item)
    for mod, items in by_module.items():
        mod.start_early(items)


def pytest_runtest_logreport(report):
    rec = _OUTCOMES.get(report.nodeid)
    if rec is None:
        return
    if report.when == "call" or report.outcome != "passed":
        if report.outcome == "failed" and report.when != "call":
            rec["outcome"] = "error"
        elif rec["outcome"] not in ("failed", "error"):
            rec["outcome"] = report.outcome


def pytest_sessionfinish(session, exitstatus):
    ran = [r for r in _OUTCOMES.values() if r["outcome"] != "not run"]
    if not ran:
        return
    out = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "args": list(session.config.args),
           "harness": _RUNNER[0].summary() if _RUNNER else None,
           "cases": sorted(ran, key=lambda r: (r["family"], r["group"], r["case"]))}
    try:
        os.makedirs(os.path.dirname(RESULTS_PATH), exist_ok=True)
        tmp = RESULTS_PATH + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            json.dump(out, f)
        os.replace(tmp, RESULTS_PATH)
    except OSError:
        pass


def pytest_terminal_summary(terminalreporter):
    for r in _RUNNER:
        terminalreporter.write_line(r.summary())
