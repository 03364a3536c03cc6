"""Declaring harness cases: a case is a Python snippet run on both interpreters.

`cases(name, snippets, **opts)` and `case(name, snippet, **opts)` are called at module level in a
test module; they create a parametrised pytest function `test_<name>` in that module whose items
have readable ids (`add-0`, `add-1`, or the dict keys given). Each item asks the session runner
(conftest's `tn_runner` fixture) for both sides' results and compares them. Nothing here imports
torch.
"""
import hashlib
import json
import re
import sys
import textwrap

import pytest

TOLS = (None, "float", "lapack")
_ALL = []  # every Case constructed in this process, in order


class Case:
    """One snippet plus the options that say how to compare it.

    code     statements; the observed value is the last expression, else the variable `result`
    tol      None (exact; floats bit-exact, NaN == NaN), "float" (tolerance derived from
             upstream's own float error, see runner.py), "lapack" (the same with a normwise
             ulp floor, for LAPACK solvers' results, see runner.py), or (atol, rtol)
    strides  None: compare strides/storage_offset where the reference result is a view or shares
             storage with another tensor of the case; True: always; False: never
    values   False skips value comparison (uninitialised memory, e.g. torch.empty)
    vars     compare the snippet's named tensor variables after it ran (in-place effects)
    ref_only run only on the reference (harness self-tests)
    traced   False: the snippet runs all its torch work in child interpreters (the fresh()
             pattern), so the reference's dispatch trace (a third run of the snippet, under a
             TorchDispatchMode in this interpreter) could see nothing: it is not made, and the
             case exercises only the overloads it spells (tests/harness/coverage.py)
    """

    __slots__ = ("id", "code", "tol", "strides", "values", "vars", "ref_only", "traced", "where", "_key")

    def __init__(self, code, id=None, tol=None, strides=None, values=True, vars=True,
                 ref_only=False, traced=True, where=None):
        code = textwrap.dedent(code).strip("\n")
        if tol not in TOLS and not (isinstance(tol, tuple) and len(tol) == 2):
            raise ValueError("tol must be None, 'float', 'lapack' or (atol, rtol), not %r" % (tol,))
        self.id = id or code.splitlines()[0][:40]
        self.code = code
        self.tol = tol
        self.strides = strides
        self.values = values
        self.vars = vars
        self.ref_only = ref_only
        self.traced = traced
        self.where = where
        self._key = None
        _ALL.append(self)

    @property
    def exec_key(self):
        """Everything that changes what the worker does with this case."""
        if self._key is None:
            job = self.job()
            self._key = hashlib.sha256(json.dumps(job, sort_keys=True).encode()).hexdigest()
        return self._key

    def job(self, reference=True):
        return {"code": self.code, "values": self.values,
                "hi": bool(reference and self.tol in ("float", "lapack")), "trace": bool(reference and self.traced)}

    def __repr__(self):
        return "Case(%s)" % self.id


def all_cases():
    return list(_ALL)


def _module_globals(depth):
    return sys._getframe(depth + 1).f_globals


def _make_test(g, name, items):
    fname = "test_" + re.sub(r"\W", "_", name)
    if fname in g:
        raise ValueError("harness: %s defined twice in %s" % (fname, g.get("__name__")))

    @pytest.mark.parametrize("tn_case", items, ids=[c.id for c in items])
    def test(tn_case, tn_runner):
        tn_runner.check(tn_case)

    test.__name__ = test.__qualname__ = fname
    test.__module__ = g.get("__name__", test.__module__)
    g[fname] = test
    return test


def cases(name, snippets, **opts):
    """Declare a group: `snippets` is a list (ids name-0, name-1, ...) or a dict (ids name-key).

    Extra keyword `setup="..."` is prepended to every snippet of the group. Other keywords are
    Case options (tol, strides, values, vars, traced). Returns the list of Case objects.
    """
    setup = textwrap.dedent(opts.pop("setup", "") or "").strip("\n")
    g = opts.pop("_globals", None) or _module_globals(1)   # a helper may declare for its caller
    if isinstance(snippets, dict):
        pairs = [("%s-%s" % (name, k), v) for k, v in snippets.items()]
    else:
        pairs = [("%s-%d" % (name, i), v) for i, v in enumerate(snippets)]
    items = []
    for cid, snip in pairs:
        code = textwrap.dedent(snip).strip("\n")
        if setup:
            code = setup + "\n" + code
        items.append(Case(code, id=cid, where=g.get("__name__"), **opts))
    _make_test(g, name, items)
    return items


def case(name, snippet, **opts):
    """Declare a single case with id `name` (test function test_<name>)."""
    g = _module_globals(1)
    setup = textwrap.dedent(opts.pop("setup", "") or "").strip("\n")
    code = textwrap.dedent(snippet).strip("\n")
    if setup:
        code = setup + "\n" + code
    c = Case(code, id=name, where=g.get("__name__"), **opts)
    _make_test(g, name, [c])
    return c
