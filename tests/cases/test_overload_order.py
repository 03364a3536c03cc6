"""torch.ops packets' overload order (issue #11): `torch.ops.aten.X.overloads()` and the order a
packet call tries them follow upstream's dispatcher registration order, not native_functions.yaml's
(src/ops/overload_order.txt, tools/dump_overload_order.py). Every packet named in the yaml is
compared, a group per initial letter; then calls whose overload depends on the order."""
import string

from harness import cases

NAMES = """
import os, re, torchgen
_yaml = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native", "native_functions.yaml")
NAMES = sorted(set(re.findall(r"^- func: ([A-Za-z0-9_]+)", open(_yaml).read(), re.M)))
def order(first):
    return [(n, getattr(torch.ops.aten, n).overloads()) for n in NAMES if n[0].lower() == first]
"""

cases("overload_order", {c: f"order({c!r})" for c in "_" + string.ascii_lowercase}, setup=NAMES)

DISPATCHED = """
from torch.utils._python_dispatch import TorchDispatchMode
class Seen(TorchDispatchMode):
    def __torch_dispatch__(self, f, types, args, kwargs=None):
        seen.append(str(f))
        return f(*args, **(kwargs or {}))
def via(f):
    global seen
    seen = []
    with Seen():
        r = f()
    return seen[-1], r
x = torch.arange(1, 4, dtype=torch.int32)
t = torch.ones(3)
a = torch.ops.aten
"""

cases("packet_picks", {   # the overload a packet call ends on (upstream tries them in its order)
    "bitwise_and_tensor": "via(lambda: a.bitwise_and(x, x))",
    "bitwise_and_number": "via(lambda: a.bitwise_and(x, 3))",
    "bitwise_or_number_first": "via(lambda: a.bitwise_or(3, x))",
    "remainder_number": "via(lambda: a.remainder(x, 2))",
    "scatter_value": "via(lambda: a.scatter(torch.zeros(3), 0, torch.tensor([0]), 1.0))",
    "scatter_src": "via(lambda: a.scatter(torch.zeros(3), 0, torch.tensor([0]), t))",
    "xlogy_number_first": "via(lambda: a.xlogy(2.0, t))",
    "xlogy_number_second": "via(lambda: a.xlogy(t, 2.0))",
    "special_zeta_number": "via(lambda: a.special_zeta(t, 2.0))",
    "sum": "via(lambda: a.sum(t))",
    "where_scalar_self": "via(lambda: a.where(t > 0, 1.0, t))",
    "to_dtype": "via(lambda: a.to(t, torch.float64))",
    "sort": "via(lambda: a.sort(t))",
    "round_decimals": "via(lambda: a.round(t, decimals=1))",
    "set_": "via(lambda: a.set_(torch.zeros(3), torch.ones(2)))",
}, setup=DISPATCHED)
