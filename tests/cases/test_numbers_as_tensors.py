"""Python numbers for Tensor parameters (src/python/functions.c numbers_as_tensors): upstream's
Python parser and its torch.ops schema matcher take a number for a Tensor parameter only for one
list of names (add, sub, mul, div and their spellings subtract / multiply / divide / true_divide,
floor_divide, to, _to_copy, copy_, _conj), and for those names before any Scalar overload, so
torch.true_divide(t, 2), torch.multiply(t, 2), torch.ops.aten.add(t, 2) dispatch the Tensor
overload (div.Tensor, mul.Tensor, add.Tensor) on a wrapped number, which a dispatch mode sees as
the Python number again; every other name refuses a number there (torch.ops.aten.eq.Tensor(t, 2):
upstream's RuntimeError) and its packet takes the Scalar overload (aten.eq(t, 2) is eq.Scalar).
Each case compares the ops a TorchDispatchMode sees (name, argument types) and the result."""
from harness import cases

PRE = """
from torch.utils._python_dispatch import TorchDispatchMode
class Trace(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append((str(func), [type(a).__name__ for a in args]))
        return func(*args, **(kwargs or {}))
def trace(f):
    try:
        with Trace() as t:
            r = f()
        return (t.ops, r)
    except Exception as e:
        return (type(e).__name__, str(e))
x = torch.tensor([1.0, 2.5, -3.0])
i = torch.tensor([3, -7, 8])
a = torch.ops.aten
"""

NAMES = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide"]
FORMS = {
    "torch": "lambda: getattr(torch, n)(t, v)",
    "method": "lambda: getattr(t, n)(v)",
    "inplace": "lambda: getattr(t.clone(), n + '_')(v)",
    "packet": "lambda: getattr(a, n)(t, v)",
    "reversed": "lambda: getattr(torch, n)(v, t)",
}

cases("numbers_as_tensors", {
    f"{n}_{form}": f"""
n = {n!r}
result = [trace({f}) for t in (x, i) for v in (2, 2.5, True)]
""" for n in NAMES for form, f in FORMS.items()
}, setup=PRE)

cases("numbers_not_tensors", {
    "packets": """
result = [trace(lambda: getattr(a, n)(x, 2)) for n in ("eq", "lt", "pow", "remainder", "fmod", "bitwise_and")]
""",
    "tensor_overloads": """
result = [trace(lambda: f(x, 2)) for f in (a.eq.Tensor, a.lt.Tensor, a.pow.Tensor_Tensor, a.remainder.Tensor,
                                           a.maximum.default, a.atan2.default, a.fmod.Tensor)]
""",
    "tensor_overloads_taking_numbers": """
result = [trace(lambda: f(x, 2)) for f in (a.add.Tensor, a.mul.Tensor, a.div.Tensor, a.sub.Tensor,
                                           a.floor_divide.default, a.true_divide.Tensor)]
""",
}, setup=PRE)
