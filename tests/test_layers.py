"""Layer rule of torch._C (docs/ARCHITECTURE.md, "Layers and folders"): data flows down once,
Python -> parse -> door -> kernel, and no layer below the Python face includes it.

Read from the `#include "..."` lines of every C file under src/ (no build needed):
- ops/, autograd/, dispatch/, core/, kernels/, distributed/ include nothing from python/;
- core/ includes only core/;
- kernels/ include only kernels/ and core/, distributed/ only distributed/ and core/ (any layer
  may include third_party/), and neither
  reaches <Python.h> through any chain of includes (both run without the GIL).
An include is resolved as the compiler does (src/ is the include root, then the including file's
folder); `tn_ops_gen.h` (the operator table) and `tn_aten_gen.h` (the typed op API) are generated
into build/meson and belong to dispatch/, `tn_pysigs_gen.h` (upstream's Python parser signatures,
tools/gen_pysigs.py: plain data) to python/. A quoted
include that resolves nowhere fails too, so a misspelt path cannot hide a violation.
"""
import os
import re

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)
# generated into the build folder: the operator table (includes dispatch/door.h) and the typed op
# API's declarations (include dispatch/aten.h); upstream's parser signatures (data for python/)
GENERATED = {"tn_ops_gen.h": "dispatch", "tn_aten_gen.h": "dispatch", "tn_pysigs_gen.h": "python"}
SKIP = ("third_party",)
# layer -> the layers (top folders of src/) it may include; a layer not listed may include anything
ALLOWED = {
    "core": {"core"},
    "kernels": {"kernels", "core"},
    "distributed": {"distributed", "core"},
    "ops": {"ops", "kernels", "core", "dispatch", "autograd"},
    "autograd": {"autograd", "ops", "kernels", "core", "dispatch"},
    "dispatch": {"dispatch", "autograd", "ops", "kernels", "core"},
}
for _may in ALLOWED.values():
    _may.add("third_party")                  # vendored code (pocketfft) sits below every layer
PYTHON_FREE = ("kernels", "distributed")
PY_SYSTEM = ("Python.h", "structmember.h")


def _sources(src):
    for d, dirs, files in os.walk(src):
        dirs[:] = sorted(x for x in dirs if os.path.relpath(os.path.join(d, x), src) not in SKIP)
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(d, f), src)


def _includes(src, rel):
    """[(kind, text, resolved rel path or None)] of one file."""
    with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    out = []
    for kind, inc in INCLUDE.findall(text):
        res = None
        if kind == '"':
            for cand in (inc, os.path.join(os.path.dirname(rel), inc)):
                cand = os.path.normpath(cand)
                if not cand.startswith("..") and os.path.isfile(os.path.join(src, cand)):
                    res = cand
                    break
        out.append((kind, inc, res))
    return out


def _layer(rel):
    return rel.split(os.sep)[0]


def violations(src=SRC):
    """Every breach of the layer rule under `src`, one readable line each."""
    bad = []
    graph = {}
    files = list(_sources(src))
    for rel in files:
        graph[rel] = _includes(src, rel)
    for rel in files:
        layer = _layer(rel)
        for kind, inc, res in graph[rel]:
            if kind == "<":
                if layer in PYTHON_FREE and os.path.basename(inc) in PY_SYSTEM:
                    bad.append("%s includes <%s>: %s/ must not use Python" % (rel, inc, layer))
                continue
            if res is None:
                if inc in GENERATED:
                    target = GENERATED[inc]
                else:
                    bad.append('%s includes "%s", which is no file under src/' % (rel, inc))
                    continue
            else:
                target = _layer(res)
            if target == "python" and layer != "python":
                bad.append('%s includes "%s": %s/ must not include the Python face (src/python/)'
                           % (rel, inc, layer))
            elif layer in ALLOWED and target not in ALLOWED[layer]:
                bad.append('%s includes "%s": %s/ may include only %s' % (
                    rel, inc, layer, ", ".join(sorted(x + "/" for x in ALLOWED[layer]))))
    # Python-free layers: no chain of quoted includes reaches <Python.h>
    pyfile = {rel for rel in files
              if any(k == "<" and os.path.basename(i) in PY_SYSTEM for k, i, _ in graph[rel])}
    for rel in files:
        if _layer(rel) not in PYTHON_FREE:
            continue
        seen, stack = {rel: None}, [rel]
        while stack:
            cur = stack.pop()
            for _, _, res in graph.get(cur, ()):
                if res and res not in seen:
                    seen[res] = cur
                    stack.append(res)
        for hit in sorted(pyfile & set(seen) - {rel}):
            chain, x = [], hit
            while x is not None:
                chain.append(x)
                x = seen[x]
            bad.append("%s reaches <Python.h> through %s: %s/ must not use Python"
                       % (rel, " -> ".join(reversed(chain)), _layer(rel)))
    return bad


def test_no_layer_includes_upward():
    bad = violations()
    assert not bad, "layer rule broken (docs/ARCHITECTURE.md):\n" + "\n".join(bad)


def _tree(tmp_path, files):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(tmp_path)


def test_checker_catches_each_kind(tmp_path):
    """The checker itself: each kind of breach is reported, naming the file and the include."""
    src = _tree(tmp_path, {
        "python/common.h": "#include <Python.h>\n",
        "core/tensor.h": "",
        "core/pystate.h": "#include <Python.h>\n",
        "core/bad.c": '#include "core/tensor.h"\n#include "ops/common.h"\n',
        "ops/common.h": '#include "core/tensor.h"\n #  include "python/common.h"\n',
        "ops/rel.c": '#include "../python/common.h"\n',
        "autograd/a.c": '#include "tn_ops_gen.h"\n#include "python/common.h"\n',
        "kernels/k.c": '#include "ops/common.h"\n',
        "kernels/p.c": "#include <Python.h>\n",
        "distributed/d.c": '#include "core/pystate.h"\n#include "nowhere.h"\n',
        "dispatch/ok.c": '#include "dispatch/ok.h"\n#include "tn_ops_gen.h"\n',
        "dispatch/ok.h": '#include "core/tensor.h"\n',
    })
    bad = violations(src)
    expect = [
        'core/bad.c includes "ops/common.h"',
        'ops/common.h includes "python/common.h"',
        'ops/rel.c includes "../python/common.h"',
        'autograd/a.c includes "python/common.h"',
        'kernels/k.c includes "ops/common.h"',
        "kernels/p.c includes <Python.h>",
        'distributed/d.c includes "nowhere.h"',
        "distributed/d.c reaches <Python.h> through distributed/d.c -> core/pystate.h",
        "kernels/k.c reaches <Python.h> through kernels/k.c -> ops/common.h -> python/common.h",
    ]
    for e in expect:
        assert any(b.startswith(e) for b in bad), (e, bad)
    assert not [b for b in bad if b.startswith("dispatch/")], bad
    assert len(bad) == len(expect), bad
