"""Shared pieces of the autograd golden cases (tests/cases/test_autograd*.py).

GRAPH is prepended to a snippet: `graph(t)` lists the nodes reachable from t.grad_fn, depth
first, each with its next_functions as (name, output slot) pairs; `leaves(*shapes, dtype=None)`
makes seeded randn leaves requiring grad; `leaf(values)` one from literal values. ERR defines
`err(f)`: the (exception type, message) f raises, or None.

Tolerances: the harness's derived float rule does not yet work for gradient snippets (its
float64 re-run widens call arguments, not the leaves whose .grad is read), so gradients are
compared with one fixed rule: F32 = rtol 64 * eps(float32) (7.6e-6), atol 1e-6; F64 = rtol
64 * eps(float64), atol 1e-15. Graph structure and errors are exact.
"""
import sys

from .case import cases

GRAPH = """
def graph(t):
    out, seen = [], set()
    def walk(fn):
        if fn is None or id(fn) in seen:
            return
        seen.add(id(fn))
        out.append((fn.name(), tuple((None if f is None else f.name(), nr) for f, nr in fn.next_functions)))
        for f, _ in fn.next_functions:
            walk(f)
    walk(t.grad_fn)
    return out
def leaves(*shapes, dtype=None):
    torch.manual_seed(0)
    return [torch.randn(*s, dtype=dtype, requires_grad=True) for s in shapes]
def leaf(values, dtype=None):
    return torch.tensor(values, dtype=dtype, requires_grad=True)
"""

ERR = """
def err(f):
    try:
        f()
    except Exception as e:
        return (type(e).__name__, str(e))
    return None"""[1:]

F32 = (1e-6, 64 * 2.0 ** -23)
F64 = (1e-15, 64 * 2.0 ** -52)

BACKWARD = "\nout.sum().backward() if out.dim() else out.backward()\nresult = (graph(out), [p.grad for p in ps])"


def grads(name, bodies, tol=F32):
    """Each body defines leaves `ps` and `out`; the case backpropagates from out and returns the
    graph, then the leaves' gradients. The test function lands in the calling module."""
    return cases(name, {k: GRAPH + v + BACKWARD for k, v in bodies.items()}, tol=tol, vars=False,
                 _globals=sys._getframe(1).f_globals)
