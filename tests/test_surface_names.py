"""Our public torch surface has no name upstream lacks.

The same script runs in the reference interpreter (upstream torch 2.13.0, `$TN_REF_PYTHON`,
default `.venv-ref/bin/python`) and in ours (`$TN_SUBJECT_PYTHON`, default `.venv/bin/python`)
and lists the names of torch, torch.Tensor, torch._C.TensorBase, torch._C and the binding
namespaces (_VariableFunctions, _nn, _linalg, _special, _fft, _nested, _sparse). Any name ours
has and upstream's lacks fails: upstream's own code probes for names (ForeachFuncInfo asserts
`torch._foreach_copy` is absent, `hasattr(torch, ...)` checks, `torch.__all__` is built from
`dir(torch._C)`), so an extra name changes what upstream's Python does.

Dunder names are left out of the comparison for the namespaces whose kind differs by design
(our _VariableFunctions is a module, upstream's an instance; TensorBase operator slots).
Missing names are not failures here (they refuse or are work to do), only reported.

By hand:  .venv/bin/python tests/test_surface_names.py   (prints extra and missing names)
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PY = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
SUBJECT_PY = os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))

_DUMP = r"""
import json, sys, torch
spaces = {
    "torch": torch, "torch.Tensor": torch.Tensor, "torch._C.TensorBase": torch._C.TensorBase,
    "torch._C": torch._C, "torch._C._VariableFunctions": torch._C._VariableFunctions,
    "torch._C._nn": torch._C._nn, "torch._C._linalg": torch._C._linalg,
    "torch._C._special": torch._C._special, "torch._C._fft": torch._C._fft,
    "torch._C._nested": torch._C._nested, "torch._C._sparse": torch._C._sparse,
    "torch.nn.functional": torch.nn.functional, "torch.linalg": torch.linalg,
    "torch.special": torch.special, "torch.fft": torch.fft,
}
json.dump({k: sorted(dir(v)) for k, v in spaces.items()}, sys.stdout)
"""

# Where dunder names differ by the kind of object, not by the API.
_DUNDERS_DIFFER = {"torch._C._VariableFunctions", "torch._C.TensorBase", "torch._C"}

# Extra names known and accepted for now (none today).
KNOWN_EXTRA = set()


def _dump(python):
    out = subprocess.run([python, "-c", _DUMP], capture_output=True, text=True, timeout=600, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{python}: the name dump failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def _differences():
    ref, ours = _dump(REF_PY), _dump(SUBJECT_PY)
    extra, missing = set(), set()
    for space in ref:
        keep = (lambda n: not (n.startswith("__") and n.endswith("__"))) if space in _DUNDERS_DIFFER else (lambda n: True)
        r = {n for n in ref[space] if keep(n)}
        o = {n for n in ours[space] if keep(n)}
        extra |= {(space, n) for n in o - r}
        missing |= {(space, n) for n in r - o}
    return extra, missing


_CACHE = []


def _get():
    if not _CACHE:
        _CACHE.append(_differences())
    return _CACHE[0]


@pytest.mark.skipif(not os.path.exists(REF_PY), reason="no reference interpreter")
def test_no_name_upstream_lacks():
    extra, _ = _get()
    unexpected = sorted(extra - KNOWN_EXTRA)
    assert not unexpected, "names upstream torch 2.13.0 lacks:\n" + "\n".join(f"  {s}.{n}" for s, n in unexpected)


if __name__ == "__main__":
    extra, missing = _differences()
    print("extra (ours only):")
    for s, n in sorted(extra):
        print(f"  {s}.{n}" + ("   [known]" if (s, n) in KNOWN_EXTRA else ""))
    print("missing (upstream only):")
    for s, n in sorted(missing):
        print(f"  {s}.{n}")
    sys.exit(1 if extra - KNOWN_EXTRA else 0)
