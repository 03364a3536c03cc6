"""The backward formulas generated from derivatives.yaml (tools/bw_formulas.py, docs/bw_formulas.md):
the generator runs, its counts are the ones docs/bw_formulas.md states, and no row is both
generated and overridden by formulas.c without being listed there with its reason."""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _generate():
    import torchgen
    yaml = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
    defs = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "list_sources.py"), "def"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "gen_ops.py"), yaml,
                            os.path.join(d, "tn_ops_gen.h")] + defs, cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]
        return p.stdout, open(os.path.join(d, "tn_bw_gen.c")).read()


def _doc():
    return open(os.path.join(ROOT, "docs", "bw_formulas.md")).read()


def test_counts_and_overrides_match_the_doc():
    out, gen = _generate()
    m = re.search(r"backward formulas: (\d+) generated, (\d+) hand-written in formulas.c \((\d+) of them also generated\), "
                  r"(\d+) rows not translated", out)
    assert m, out
    doc = _doc()
    for label, val in zip(("generated", "hand-written", "overridden", "not translated"), m.groups()):
        dm = re.search(r"^- %s: (\d+)" % label, doc, re.M)
        assert dm, f"docs/bw_formulas.md states no count '- {label}: N'"
        assert dm.group(1) == val, f"{label}: the build counts {val}, docs/bw_formulas.md says {dm.group(1)}"
    overridden = set(re.findall(r"^/\* (\S+): overridden in formulas.c \*/$", gen, re.M))
    listed = set(re.findall(r"^\| `([^`]+)` \|", doc, re.M))
    assert overridden == listed, ("rows generated and overridden, not listed in docs/bw_formulas.md: "
                                  f"{sorted(overridden - listed)}; listed but not overridden: {sorted(listed - overridden)}")
