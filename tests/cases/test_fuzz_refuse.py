"""Calls of the no-crash corpus (tests/test_no_crash.py) ours refused and upstream runs, compared
with upstream 2.13.0 by value (docs/breadth_more2.md "Fuzz corpus exception types"):

- upstream's deprecated signatures of add / sub: torch.add(input, alpha, other, *, out=None) and
  Tensor.add(alpha, other) (add_, sub, sub_ alike) run as add(input, other, alpha=alpha), `other`
  a number too (a wrapped number: torch.add(bf16, 2, 1j) is complex64), after one UserWarning per
  process for all of them together (fresh interpreters: the harness's workers are shared).
- every binary dunder returns NotImplemented for any TypeError of its parse (too many arguments,
  two tensors, an unknown keyword), as upstream's TypeError_to_NotImplemented_; the unary ones
  take no arguments.
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
x = torch.arange(6.).reshape(2, 3) * 0.37 - 1.1
xb = x.bfloat16()
xi = torch.arange(6).reshape(2, 3)
"""

cases("fuzz_refuse_deprecated_alpha", {
    "function_forms": "[torch.add(xb, 2, -1), torch.add(xb, 2, float('-inf')), torch.add(x, 2, 1j), torch.sub(xb, 2, -1), "
                      "torch.sub(x, 1.5, 2), torch.add(xi, 2, 3), torch.add(xi, 2, 1.5), torch.add(x, 2, x), torch.sub(x, torch.tensor(2.), x), "
                      "torch.add(x, True, 2), torch.add(2, 3, x)]",
    "method_forms": "[x.add(2, 3), x.sub(2, 1.5), x.add(2, x), xb.sub(-1, 2), x.clone().add_(2, 3), x.clone().sub_(2, x), "
                    "xi.clone().add_(2, 3)]",
    "out_form": "o = torch.empty(2, 3); r = torch.add(x, 2, 3, out=o); o2 = torch.empty(2, 3); torch.sub(x, 2, x, out=o2); "
                "(r is o, o, o2)",
    "refusals": "[err(f) for f in [lambda: torch.sub(x, 2, True), lambda: torch.add(x, 2, 'a'), lambda: torch.add(x, 'a', 2), "
                "lambda: x.add(x, 2), lambda: torch.add(x, 2, 3, alpha=2), lambda: xi.clone().add_(2, 1.5), "
                "lambda: torch.add(x, 2, 1j, out=torch.empty(2, 3))]]",
}, setup=SETUP)

RUN = '''
import subprocess, sys
CODE = """
import torch, warnings
x = torch.ones(2)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    %s
print(repr([(x.category.__name__, str(x.message)) for x in w]))
"""
def run(body):
    p = subprocess.run([sys.executable, "-c", CODE % body], capture_output=True, text=True, timeout=120)
    return p.stdout.strip(), p.stderr.strip()[-300:]
'''

cases("fuzz_refuse_deprecated_alpha_warning", {
    "function_then_method": RUN + "run('torch.add(x, 2, 3); torch.sub(x, 2, 3); x.add(2, 3)')",
    "method_first": RUN + "run('x.sub_(2, 3); torch.add(x, 2, 3)')",
    "out_first": RUN + "run('torch.sub(x, 2, 3, out=torch.empty(2))')",
    "refused_then_ok": RUN + "run('''\n    try:\n        torch.sub(x, 2, True)\n    except RuntimeError:\n        pass\n    x.add_(2, 3)''')",
    "not_deprecated_silent": RUN + "run('torch.add(x, 2, alpha=3); x.add(2)')",
}, traced=False)   # each case runs in a fresh interpreter: nothing here for the dispatch trace to see

cases("fuzz_refuse_dunders", {
    "not_implemented": "[f() for f in [lambda: x.__and__(2, 3), lambda: x.__and__(x, x), lambda: x.__and__(), "
                       "lambda: x.__and__(foo=3), lambda: x.__or__(2, 3), lambda: x.__xor__(x, 3), lambda: x.__lshift__(2, 3), "
                       "lambda: x.__rshift__(x, x), lambda: xi.clone().__iand__(2, 3), lambda: xi.clone().__ior__(x, x), "
                       "lambda: xi.clone().__ixor__(2, 3), lambda: xi.clone().__ilshift__(2, 3), lambda: xi.clone().__irshift__(x, x), "
                       "lambda: x.__add__(x, 'a'), lambda: x.__add__('a', alpha=3), lambda: x.__eq__(x, 3), lambda: x.__matmul__(2, 3), "
                       "lambda: x.__rand__(2, 3), lambda: x.__mul__(x, x), lambda: x.__truediv__()]]",
    "still_run": "[x.__add__(2, 3), x.__radd__(2, 3), xi.clone().__iadd__(2, 3), xi.__and__(3), xi.clone().__ilshift__(1)]",
    "still_raise": "[err(f) for f in [lambda: x.__and__(other=3), lambda: x.__and__(3), lambda: x.__neg__(2)]]",
}, setup=SETUP)
