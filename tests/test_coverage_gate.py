"""Coverage gate: every overload listed in src/ops/*.def has golden cases and a Python spelling.

Exercised means the overload appears in the upstream dispatch trace of some case in tests/cases
(recorded by the reference worker for the cases the gate asks for, cached with the reference
results), or the case spells it as `torch.ops.aten.<name>.<overload>` (see harness/coverage.py;
trace_rounds traces cases until every implemented overload is found, or every case is traced).
The first test also writes the union as the coverage map build/golden-coverage.json (read by
`python -m torchnative.golden_report`). Reachability: one subprocess in the subject interpreter (.venv)
looks up `torch.ops.aten.<name>.<overload>` for every implemented overload.
"""
import json
import subprocess

import pytest

from harness import coverage
from harness.runner import _worker_env, subject_python

_PROBE = r"""
import json, sys
import torch
missing = []
for key in json.load(sys.stdin):
    name, ov = key.split(".", 1)
    try:
        packet = getattr(torch.ops.aten, name)
        getattr(packet, ov)
    except Exception as e:
        missing.append("%s (%s: %s)" % (key, type(e).__name__, str(e).splitlines()[0][:120] if str(e) else ""))
print(json.dumps(missing))
"""


@pytest.fixture(scope="module")
def coverage_map(tn_runner):
    by_family = coverage.load_cases()
    cases = [c for cs in by_family.values() for c in cs]
    recs = tn_runner.references(cases)
    records = {c.exec_key: r for c, r in zip(cases, recs)}
    chunks = coverage.trace_rounds(by_family, records, tn_runner.traces)
    cmap = coverage.build_map(by_family, records, chunks)
    coverage.write_map(cmap)
    return cmap


def test_traces_ran(coverage_map):
    failed = coverage_map["trace_failures"]
    assert not failed, "%d case(s) could not be traced on upstream (worker crash or timeout): %s" % (
        len(failed), ", ".join(failed[:50]))


def test_every_implemented_overload_has_cases(coverage_map):
    unc = coverage_map["uncovered_by_family"]
    lines = ["  %s.def: %s" % (fam, " ".join(keys)) for fam, keys in unc.items() if keys]
    assert not coverage_map["uncovered"], (
        "%d of %d implemented overloads are exercised by no golden case (neither in an upstream "
        "dispatch trace nor spelled torch.ops.aten.<name>.<overload>); add cases in "
        "tests/cases/:\n%s" % (len(coverage_map["uncovered"]), coverage_map["implemented"],
                               "\n".join(lines)))


def test_every_implemented_overload_reachable_from_python():
    keys = [k for _, k in coverage.implemented()]
    proc = subprocess.run([subject_python(), "-c", _PROBE], input=json.dumps(keys),
                          capture_output=True, text=True, timeout=300, env=_worker_env(),
                          cwd="/")
    assert proc.returncode == 0, "probe failed in %s:\n%s" % (subject_python(),
                                                             proc.stderr[-3000:])
    missing = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not missing, "%d implemented overload(s) not reachable as torch.ops.aten.X.overload " \
        "in %s:\n  %s" % (len(missing), subject_python(), "\n  ".join(missing))
