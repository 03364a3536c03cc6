"""Which implemented overloads do the golden cases exercise? (the coverage gate's data)

An overload counts as exercised by a case when it appears in the case's upstream dispatch trace
(the reference worker re-runs a snippet not declared `traced=False` under a recording
TorchDispatchMode, worker.py, and caches the sorted list as the record's `ops`: for the cases
trace_rounds picks, until every implemented overload is found), or when the
snippet spells it explicitly as
`torch.ops.aten.<name>.<overload>` (upstream decomposes composite operators such as `linear`
before a dispatch mode sees them, so an explicit spelling is how a composite gets covered).
Overload keys are "name.overload" with "default" for the default overload (the `.def` files'
"name." form is normalised to "name.default"). Nothing here imports torch.
"""
import importlib.util
import json
import os
import re
import sys
from pathlib import Path

from .case import all_cases

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES_DIR = ROOT / "tests" / "cases"
MAP_PATH = ROOT / "build" / "golden-coverage.json"

_SPELLING = re.compile(r"torch\.ops\.aten\.([A-Za-z_]\w*)\.([A-Za-z_]\w*)")


def norm(key):
    """'abs.' / 'abs' / 'aten::abs.default' -> 'abs.default'; 'aten::add.Tensor' -> 'add.Tensor'."""
    if key.startswith("aten::"):
        key = key[len("aten::"):]
    name, _, ov = key.partition(".")
    return "%s.%s" % (name, ov or "default")


def implemented():
    """[(family, 'name.overload')] from src/ops/*.def, via torchnative.coverage."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from torchnative.coverage import implemented as impl
    return [(fam, norm(key)) for fam, key in impl(str(ROOT))]


def load_cases(directory=CASES_DIR):
    """{family: [Case]} for every tests/cases/test_*.py (family = file stem without 'test_').

    Each file is executed under a private module name (independent of whether pytest collected
    it in this session); the Case objects it declares are returned.
    """
    out = {}
    for path in sorted(Path(directory).glob("test_*.py")):
        fam = path.stem[len("test_"):]
        before = len(all_cases())
        name = "_tn_cov_" + path.stem
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[fam] = [c for c in all_cases()[before:] if not c.ref_only]
    return out


def explicit_spellings(code):
    """Overloads the snippet names as torch.ops.aten.<name>.<overload>."""
    return {"%s.%s" % m.groups() for m in _SPELLING.finditer(code)}


def traced_overloads(record):
    """The aten entries of a reference record's dispatch trace."""
    return {norm(o) for o in (record or {}).get("ops", ()) if o.startswith("aten::")}


def case_overloads(case, record):
    """Overloads a case exercises: aten entries of its upstream trace plus explicit spellings."""
    return traced_overloads(record) | explicit_spellings(case.code)


def _owns(case_family, def_family):
    """Case file test_foreach_more.py belongs to foreach.def's family (and test_foreach.py)."""
    return case_family == def_family or case_family.startswith(def_family + "_")


def trace_rounds(by_family, records, trace, chunk=500):
    """Trace only what the gate needs (a trace is another run of the snippet, as long as the
    first one). The spellings and the traces already in `records` count first; while implemented
    overloads remain uncovered, up to `chunk` cases not yet traced are traced, the coverage
    recomputed and the next chunk chosen, in this order: up to 3 cases per uncovered overload
    that name its operator (`torch.add`, `x.add_(`; those with an `out=` first for an out=
    overload, then its own family's), then the cases of the families owning an uncovered
    overload, then all others, each group fastest first (the plain run's time). So the verdict is
    the one tracing every case gives: an overload stays uncovered only when every case was
    traced. `trace(cases)` runs the traces (Runner.traces) and returns their records; `records`
    ({exec_key: record}) is updated. Returns the chunk sizes."""
    impl = implemented()
    fam_of = {}
    for fam, key in impl:
        fam_of.setdefault(key, fam)
    cases = [(fam, c) for fam, cs in by_family.items() for c in cs if c.traced]
    named = {}   # identifier in a snippet -> its cases
    for fam, c in cases:
        for word in set(re.findall(r"[A-Za-z_]\w*", c.code)):
            named.setdefault(word, []).append((fam, c))

    def rec(c):
        return records.get(c.exec_key) or {}

    def order(left):
        picked, seen = [], set()

        def take(cs):
            for c in cs:
                if c.exec_key not in seen and "ops" not in rec(c):
                    seen.add(c.exec_key)
                    picked.append(c)
        for key in left:
            name, ov = key.split(".")
            out = ov == "out" or ov.endswith("_out") or ov in ("grad_input", "output")
            mine = sorted(((out and "out=" not in c.code), not _owns(fam, fam_of[key]), rec(c).get("time", 0), id(c), c)
                          for fam, c in named.get(name, ()) if "ops" not in rec(c))
            take([m[-1] for m in mine[:3]])
        fams = {fam_of[k] for k in left}
        by_time = sorted(cases, key=lambda fc: rec(fc[1]).get("time", 0))
        take([c for fam, c in by_time if any(_owns(fam, F) for F in fams)])
        take([c for _, c in by_time])
        return picked

    spelled = {k for cs in by_family.values() for c in cs for k in explicit_spellings(c.code)}

    def uncovered():
        done = set(spelled)
        for cs in by_family.values():
            for c in cs:
                done |= traced_overloads(rec(c))
        return [k for _, k in impl if k not in done]

    rounds = []
    while True:
        left = uncovered()
        todo = order(left)[:chunk] if left else []
        if not todo:
            return rounds
        for c, r in zip(todo, trace(todo)):
            records[c.exec_key] = r
        rounds.append(len(todo))


def build_map(by_family, records, rounds=()):
    """Coverage map from {family: [Case]} and {exec_key: reference record}."""
    exercised = {}
    n = 0
    for fam, cs in by_family.items():
        for c in cs:
            n += 1
            rec = records.get(c.exec_key) or {}
            for ov in case_overloads(c, rec):
                exercised.setdefault(ov, []).append(c.id)
    impl = implemented()
    impl_keys = [k for _, k in impl]
    uncovered = [k for k in impl_keys if k not in exercised]
    return {
        "cases": n,
        "trace_failures": [c.id for cs in by_family.values() for c in cs
                           if "trace_failed" in (records.get(c.exec_key) or {})],
        "traced_cases": sum("ops" in (records.get(c.exec_key) or {}) for cs in by_family.values() for c in cs),
        "trace_chunks": list(rounds),
        "implemented": len(impl_keys),
        "implemented_exercised": len(impl_keys) - len(uncovered),
        "uncovered": uncovered,
        "uncovered_by_family": {f: [k for ff, k in impl if ff == f and k in uncovered]
                                for f in sorted({f for f, _ in impl})},
        "exercised": {k: sorted(v)[:5] + (["... %d more" % (len(v) - 5)] if len(v) > 5 else [])
                      for k, v in sorted(exercised.items())},
        "exercised_not_implemented": sorted(k for k in exercised if k not in set(impl_keys)),
    }


def write_map(cmap, path=MAP_PATH):
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp%d" % os.getpid())
        with open(tmp, "w") as f:
            json.dump(cmap, f, indent=1)
        os.replace(tmp, path)
    except OSError:
        pass
    return path
