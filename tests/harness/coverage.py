"""Which implemented overloads do the golden cases exercise? (the coverage gate's data)

An overload counts as exercised by a case when it appears in the case's upstream dispatch trace
(the reference worker re-runs every snippet not declared `traced=False` under a recording
TorchDispatchMode, worker.py, and caches the sorted list as the record's `ops`), or when the
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


def case_overloads(case, record):
    """Overloads a case exercises: aten entries of its upstream trace plus explicit spellings."""
    ops = {norm(o) for o in (record or {}).get("ops", ()) if o.startswith("aten::")}
    return ops | explicit_spellings(case.code)


def build_map(by_family, records):
    """Coverage map from {family: [Case]} and {exec_key: reference record}."""
    exercised = {}
    untraced = []
    n = 0
    for fam, cs in by_family.items():
        for c in cs:
            n += 1
            rec = records.get(c.exec_key) or {}
            if c.traced and "ops" not in rec:
                untraced.append(c.id)
            for ov in case_overloads(c, rec):
                exercised.setdefault(ov, []).append(c.id)
    impl = implemented()
    impl_keys = [k for _, k in impl]
    uncovered = [k for k in impl_keys if k not in exercised]
    return {
        "cases": n,
        "untraced_cases": untraced,
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
