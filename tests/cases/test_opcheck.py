"""torch.library.opcheck on torchnative (src/python/schema_info.c, src/python/library.c):
torch._C._SchemaInfo / _SchemaArgument / _overlaps answer as upstream's SchemaInfo, run-time
operators reach dispatch modes (upstream's Python key), so opcheck's test_schema catches an
undeclared mutation or alias and test_autograd_registration a kernel registered only at CPU, with
upstream's exception types and messages. test_faketensor is compared in test_fake_tensor.py;
test_aot_dispatch_dynamic needs functionalization / make_fx (docs/custom_ops.md): not compared.
Each case defines its own namespace, since the harness's workers are shared."""
from harness import cases

PRE = """
import warnings
warnings.filterwarnings("ignore")
from torch.library import opcheck
def check(op, args, kwargs=None, tu=("test_schema", "test_autograd_registration")):
    out = []
    for t in tu:
        try:
            out.append((t, opcheck(op, args, kwargs, test_utils=t)))
        except Exception as e:
            c = e.__cause__
            out.append((t, type(e).__name__, str(e).split("\\n")[0], type(c).__name__, str(c).split("\\n")[0]))
    return out
"""

SCHEMAS = r'''
C = torch._C
A, T = C._SchemaArgument, C._SchemaArgType
x = torch.ones(4); y = torch.ones(4)
schemas = [
 ("ns::f(Tensor(a!) x, Tensor(a) y, Tensor(*) z, Tensor? w, Tensor[] l, int[] i, Tensor?[] o, str s, Any q, Scalar sc, Tensor(b -> *) e) -> (Tensor(a), Tensor)",
  [{}, {"x": x, "y": x[1:], "z": y, "l": [y], "w": None, "i": [1, 2]}, {"x": x, "w": x, "e": x}, {"l": [x, y], "z": x, "q": x}]),
 ("ns::g(Tensor self, Tensor(a!)[] outs, Tensor(b) v) -> Tensor(b)", [{}, {"input": x, "v": x}, {"self": x, "outs": [x]}]),
 ("ns::h(Tensor(a) x, Tensor(a) y, Tensor(a!) z) -> (Tensor(a), Tensor(a))", [{}, {"x": x, "y": y}]),
 ("ns::k(Tensor[](a) l, Tensor t, Any d, Tensor(*) w) -> Tensor[](a)", [{}, {"l": [x], "t": x, "w": y, "d": {"k": y}}]),
 ("aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
  [{}, {"training": False}, {"training": True}, {"running_mean": x, "input": x, "training": False}]),
 (str(torch.ops.aten.add_.Tensor._schema), [{}, {"self": x, "other": x}]),
 (str(torch.ops.aten.native_batch_norm.default._schema), [{}, {"training": False}]),
 (str(torch.ops.aten.split.Tensor._schema), [{}, {"self": x}]),
 (str(torch.ops.aten.cat.default._schema), [{}, {"tensors": [x, y]}]),
]
rows = []
for text, vals in schemas:
    s = C.parse_schema(text)
    na, nr = len(s.arguments), len(s.returns)
    for v in vals:
        si = C._SchemaInfo(s)
        si.add_argument_values(v)
        out = [si.is_mutable(), si.has_argument("x"), si.has_argument("self")]
        args = [A(T.input, i) for i in range(na)] + [A(T.output, j) for j in range(nr)]
        out.append("".join("1" if si.is_mutable(a) else "0" for a in args))
        for a in args:
            out.append("".join("1" if si.may_alias(a, b) else "0" for b in args) + "/" +
                       "".join("1" if si.may_contain_alias(a, b) else "0" for b in args))
        rows.append((text, sorted(v), out))
result = rows
'''

cases("opcheck", {
    "schema_info_queries": SCHEMAS,
    "schema_info_values_one_by_one": """
C = torch._C
A, T = C._SchemaArgument, C._SchemaArgType
s = C.parse_schema("ns::f(Tensor(a!) x, Tensor y, Tensor(*) z, Tensor[] l) -> Tensor(a)")
si = C._SchemaInfo(s)
x = torch.ones(3)
before = si.is_mutable(A(T.input, 1))
si.add_argument_value("y", x)
si.add_argument_value("x", x[1:])
after = (si.is_mutable(A(T.input, 1)), si.is_mutable("y"), si.may_alias(A(T.input, 0), A(T.input, 1)))
si.add_argument_value("l", [x])
si.add_argument_value("z", torch.ones(2))
result = (before, after, si.may_alias(A(T.input, 2), A(T.input, 3)), si.may_contain_alias(A(T.input, 3), A(T.input, 2)),
          A(T.output, 2).index, A(T.output, 2).type)
""",
    "schema_info_errors": """
C = torch._C
A, T = C._SchemaArgument, C._SchemaArgType
si = C._SchemaInfo(C.parse_schema("ns::f(Tensor(a!) x, Tensor(a) y) -> Tensor(a)"))
def e(f):
    try:
        return f()
    except Exception as ex:
        return type(ex).__name__, str(ex).split(" object at ")[0]
result = [e(lambda: si.add_argument_value("nope", 1)), e(lambda: si.is_mutable("nope")),
          e(lambda: si.is_mutable(A(T.input, 5))), e(lambda: si.may_alias(A(T.input, 0), A(T.output, 3))),
          e(lambda: si.may_contain_alias(A(T.output, 3), A(T.input, 0))),
          e(lambda: si.is_mutable(3)), e(lambda: C._SchemaInfo("x")), e(lambda: A(0, 1)), e(lambda: A(T.input, -1)),
          e(lambda: A(T.input, 2 ** 70)), e(lambda: si.may_alias(1, 2)),
          e(lambda: si.add_argument_values({"nope": 1})), e(lambda: si.add_argument_values({1: 1}))]
""",
    "overlaps": """
x = torch.ones(4); y = torch.ones(4)
o = torch._C._overlaps
result = [o(a, b) for a, b in [(x, x[1:]), (x, y), ([x], x), ((1, x), [x[2:]]), (1, 1), ('a', 'a'), (None, None),
          (x, None), ([1, 2], [1, 2]), ({1: x}, x), ({x: 1}, x.view(2, 2)), (object(), x), (x.data, x), (x.detach(), x),
          ([[y]], (x, (y[1],)))]]
""",
    "mode_sees_runtime_op": """
from torch.utils._python_dispatch import TorchDispatchMode
lib = torch.library.Library("tnoc_m", "FRAGMENT")
lib.define("f(Tensor x, *, float k=2.0) -> Tensor")
lib.impl("f", lambda x, k=2.0: x * k, "CPU")
seen = []
class M(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        seen.append((str(func), types, len(args), dict(kwargs or {})))
        return func(*args, **(kwargs or {}))
with M():
    a = torch.ops.tnoc_m.f(torch.ones(2))
    b = torch.ops.tnoc_m.f.default(torch.ones(2), k=3.0)
result = (seen, a, b)
""",
    "computed_kernel": """
lib = torch.library.Library("tnoc_k", "FRAGMENT")
lib.define("f(Tensor x) -> Tensor"); lib.impl("f", lambda x: x, "CPU")
lib.define("g(Tensor x) -> Tensor"); lib.impl("g", lambda x: x, "CompositeExplicitAutograd")
lib.define("m(Tensor x) -> Tensor"); lib.impl("m", lambda x: x, "Meta")
lib.define("n(Tensor x) -> Tensor")
k = torch._C._dispatch_has_computed_kernel_for_dispatch_key
def e(f):
    try:
        return f()
    except Exception as ex:
        return type(ex).__name__, str(ex)
result = [(n, [e(lambda: k(n, key)) for key in ["Meta", "CPU", "AutogradCPU", "Python", "CompositeImplicitAutograd", "Nope"]])
          for n in ["tnoc_k::f", "tnoc_k::g", "tnoc_k::m", "tnoc_k::n", "aten::add.Tensor", "aten::linear", "tnoc_k::absent"]]
""",
    "good_custom_op": PRE + """
@torch.library.custom_op("tnoc_a::mysin", mutates_args=())
def mysin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)
@mysin.register_fake
def _(x):
    return torch.empty_like(x)
def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
def backward(ctx, grad):
    x, = ctx.saved_tensors
    return grad * x.cos()
torch.library.register_autograd("tnoc_a::mysin", backward, setup_context=setup_context)
result = check(mysin, (torch.randn(3, requires_grad=True),)) + check(mysin, (torch.randn(3),))
""",
    "undeclared_mutation": PRE + """
@torch.library.custom_op("tnoc_b::mut", mutates_args=())
def mut(x: torch.Tensor) -> torch.Tensor:
    x.add_(1)
    return x.clone()
result = check(mut, (torch.randn(3),))
""",
    "declared_mutation": PRE + """
@torch.library.custom_op("tnoc_c::addone", mutates_args=("x",))
def addone(x: torch.Tensor) -> None:
    x.add_(1)
result = check(addone, (torch.randn(3),))
""",
    "cpu_only_kernel": PRE + """
lib = torch.library.Library("tnoc_d", "FRAGMENT")
lib.define("cpuonly(Tensor x) -> Tensor")
lib.impl("cpuonly", lambda x: x.sin(), "CPU")
op = torch.ops.tnoc_d.cpuonly.default
result = check(op, (torch.randn(3, requires_grad=True),)) + check(op, (torch.randn(3),))
""",
    "returns_input_and_view": PRE + """
lib = torch.library.Library("tnoc_e", "FRAGMENT")
lib.define("retin(Tensor x) -> Tensor")
lib.impl("retin", lambda x: x, "CPU")
lib.define("view1(Tensor x) -> Tensor")
lib.impl("view1", lambda x: x.view(-1), "CPU")
lib.define("view2(Tensor(a) x) -> Tensor(a)")
lib.impl("view2", lambda x: x.view(-1), "CPU")
lib.define("two(Tensor x) -> (Tensor, Tensor)")
lib.impl("two", lambda x: (x.sin(), x.sin()[1:]), "CPU")
result = [check(getattr(torch.ops.tnoc_e, n).default, (torch.randn(3),)) for n in ("retin", "view1", "view2", "two")]
""",
    "kwarg_custom_op": PRE + """
@torch.library.custom_op("tnoc_f::scale", mutates_args=())
def scale(x: torch.Tensor, *, k: float) -> torch.Tensor:
    return x * k
scale.register_autograd(lambda ctx, g: g * ctx.k,
                        setup_context=lambda ctx, inputs, keyword_only_inputs, output: setattr(ctx, "k", keyword_only_inputs["k"]))
result = check(scale, (torch.randn(3, requires_grad=True),), {"k": 2.0})
""",
})
