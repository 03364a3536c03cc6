"""Tensor subclasses with __torch_dispatch__ (issue #11): Tensor._make_wrapper_subclass, the door's
subclass stage (after the dispatch modes, below autograd), the sizes/strides policy, upstream's
TwoTensor and LoggingTensor, user-written wrapper and _make_subclass subclasses, and torch.nested's
jagged layout (NestedTensor, a wrapper subclass in upstream's Python). Compared with upstream: the
values, the `func` sequence and `types` a subclass sees, metadata, and the exception types of bad
input (docs/ARCHITECTURE.md, "The path of a tensor subclass")."""
from harness import cases

WRAP = """
from torch.utils._pytree import tree_map
SEEN = []
class W(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride(),
                                                   storage_offset=elem.storage_offset(), requires_grad=elem.requires_grad)
    def __init__(self, elem):
        self.elem = elem
    __torch_function__ = torch._C._disabled_torch_function_impl
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        SEEN.append((str(func), [t.__name__ for t in types],
                     [type(a).__name__ for a in args], sorted((kwargs or {}).keys())))
        un = lambda x: x.elem if isinstance(x, W) else x
        out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
        return tree_map(lambda x: W(x) if isinstance(x, torch.Tensor) else x, out)
def plain(x):
    return x.elem if isinstance(x, W) else x
x = torch.arange(6.).reshape(2, 3)
"""

cases("subclass_wrapper", {
    # a wrapper's metadata is the one given; it holds no data
    "metadata": WRAP + """
w = W(x)
result = (type(w).__name__, w.shape, w.stride(), w.storage_offset(), w.dtype, w.device, w.layout, w.requires_grad,
          w.is_leaf, w.data_ptr(), w.untyped_storage().nbytes(), w.dim(), w.numel(), w.is_contiguous())
""",
    "pointwise_funcs": WRAP + """
r = (W(x) + 1) * W(x)
result = (plain(r), SEEN)
""",
    "mixed_plain": WRAP + """
r = torch.add(torch.ones(2, 3), W(x), alpha=2)
result = (type(r).__name__, plain(r), SEEN)
""",
    "list_arg": WRAP + """
r = torch.cat([torch.ones(1, 3), W(x)])
result = (plain(r), SEEN)
""",
    "composite_decomposed": WRAP + """
r = torch.nn.functional.linear(W(x), torch.ones(4, 3), torch.ones(4))
result = (plain(r), SEEN)
""",
    "reduction_view": WRAP + """
r = W(x).sum(dim=1), W(x).t(), W(x)[1]
result = ([plain(t) for t in r], SEEN)
""",
    "inplace": WRAP + """
w = W(x.clone())
w.mul_(3)
result = (plain(w), SEEN)
""",
    "repr": WRAP + """
result = (repr(W(x)).startswith("W("), len(SEEN) > 0)
""",
    "requires_grad_graph": WRAP + """
w = W(x.clone().requires_grad_())
y = (w * w).sum()
result = (type(y).__name__, type(y.grad_fn).__name__, y.requires_grad, plain(y), SEEN)
""",
    "under_mode": WRAP + """
from torch.utils._python_dispatch import TorchDispatchMode
MODE = []
class M(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        MODE.append((str(func), [t.__name__ for t in types], [type(a).__name__ for a in args]))
        return func(*args, **(kwargs or {}))
with M():
    r = W(x) * 2 + torch.ones(2, 3)
result = (plain(r), MODE, SEEN)
""",
    "mode_plain_types": """
from torch.utils._python_dispatch import TorchDispatchMode
MODE = []
class M(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        MODE.append((str(func), list(types), [type(a).__name__ for a in args]))
        return func(*args, **(kwargs or {}))
x = torch.ones(2)
with M():
    x + 1; x * 2.5; torch.add(x, 1, alpha=2); x + True
result = MODE
""",
    # the public_api a dunder hands to __torch_function__ (x + 1: Tensor.add; == and ~: their own)
    "torch_function_dunder_api": """
import operator as o
from torch.overrides import TorchFunctionMode
names = []
class M(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))
x = torch.ones(2); i = torch.ones(2, dtype=torch.int64)
with M():
    x + 1; 1 + x; x * 2; x - 1; 1 - x; x / 2; x == 1; x != 1; x < 1; -x; ~i; i & i; 1 | i; i << 1
    o.iadd(x.clone(), 1); o.imul(x.clone(), 2); o.iand(i.clone(), i); x @ x; x % 2
result = names
""",
    "tags": """
a = torch.ops.aten
result = [f.tags for f in (a.add.Tensor, a.add_.Tensor, a.add.out, a.sum.default, a.view.default,
                           a.squeeze_.default, a.rand.default, a.linear.default, a.index_put_.default)]
""",
}, vars=False)

POLICY = """
LOG = []
class P(torch.Tensor):
    @staticmethod
    def __new__(cls, pol, **kw):
        return torch.Tensor._make_wrapper_subclass(cls, (2, 3), dispatch_sizes_strides_policy=pol, **kw)
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        LOG.append(str(func))
        if func is torch.ops.aten.sym_size.default: return (5, 7)
        if func is torch.ops.aten.sym_stride.default: return (7, 1)
        if func is torch.ops.aten.dim.default: return 2
        if func is torch.ops.aten.sym_numel.default: return 35
        if func is torch.ops.prim.layout.default: return torch.strided
        if func is torch.ops.prim.device.default: return torch.device("cpu")
        return None
def probe(p):
    out = []
    for f in (lambda: p.size(), lambda: p.shape, lambda: p.size(1), lambda: p.dim(), lambda: p.ndim,
              lambda: p.numel(), lambda: p.stride(), lambda: p.stride(0), lambda: p.storage_offset(),
              lambda: p.is_contiguous(), lambda: p.device, lambda: p.layout, lambda: len(p)):
        try:
            out.append(f())
        except Exception as e:
            out.append(type(e).__name__)
    return out
"""

cases("subclass_policy", {
    "none": POLICY + "result = (probe(P(None)), LOG)",
    "strides": POLICY + "result = (probe(P('strides')), LOG)",
    "sizes": POLICY + "result = (probe(P('sizes')), LOG)",
    "device_layout": POLICY + "result = (probe(P(None, dispatch_device=True, dispatch_layout=True)), LOG)",
    "none_answers": """
class Q(torch.Tensor):
    @staticmethod
    def __new__(cls):
        return torch.Tensor._make_wrapper_subclass(cls, (2, 3), dispatch_sizes_strides_policy="sizes")
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return None
q = Q()
result = (q.size(), q.stride(), q.numel(), q.is_contiguous(), q.storage_offset())
""",
    "dim_none_raises": """
class Q(torch.Tensor):
    @staticmethod
    def __new__(cls):
        return torch.Tensor._make_wrapper_subclass(cls, (2, 3), dispatch_sizes_strides_policy="sizes")
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return None
Q().dim()
""",
}, vars=False)

NI = """
class N(torch.Tensor):
    @staticmethod
    def __new__(cls, shape=(2, 3)):
        return torch.Tensor._make_wrapper_subclass(cls, shape)
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return NotImplemented
class N2(N):
    pass
mws = torch.Tensor._make_wrapper_subclass
class Plain(torch.Tensor):
    pass
"""

cases("subclass_errors", {
    "all_not_implemented": NI + "torch.add(N(), torch.ones(2, 3))",
    "all_not_implemented_msg": NI + """
try:
    torch.mul(N(), N2())
except TypeError as e:
    result = str(e)
""",
    "dunder_unsupported_operand": NI + """
try:
    N() + 1
except TypeError as e:
    result = str(e)
""",
    "sum": NI + "N().sum()",
    "index": NI + "N()[0]",
    "clone": NI + "N().clone()",
    "cls_not_type": NI + "mws(3, (2, 3))",
    "cls_without_dispatch": NI + "mws(Plain, (2, 3))",
    "cls_not_tensor": NI + "mws(int, (2, 3))",
    "offset_without_strides": NI + "mws(N, (2, 3), storage_offset=2)",
    "bad_policy": NI + "mws(N, (2, 3), dispatch_sizes_strides_policy='foo')",
    "int_requires_grad": NI + "mws(N, (2, 3), dtype=torch.int64, requires_grad=True)",
    "size_str": NI + "mws(N, 'ab')",
    "negative_size": NI + "mws(N, (2, -3))",
    "unknown_keyword": NI + "mws(N, (2, 3), foo=1)",
    "missing_size": NI + "mws(N)",
    "extra_keys_not_keyset": NI + "mws(N, (2, 3), _extra_dispatch_keys=5)",
    "strides_rank_mismatch": NI + "mws(N, (2, 3), (1,))",
    "huge_size": NI + "mws(N, (2**40, 2**40, 2**40))",
    "strided_given": NI + """
t = mws(N, (2, 3), (1, 2), 2)
result = (t.shape, t.stride(), t.storage_offset(), t.untyped_storage().nbytes())
""",
    "storage_size": NI + "result = mws(N, (2, 3), dtype=torch.float64, storage_size=7).untyped_storage().nbytes()",
    "meta_device": NI + "t = mws(N, (2, 3), device='meta'); result = (t.device, t.is_meta)",
    "layout_given": NI + "result = mws(N, (2, 3), layout=torch.sparse_coo).layout",
    "tolist": NI + "N().tolist()",
    "numpy": NI + "N().numpy()",
    "storage_data_ptr": NI + "N().untyped_storage().data_ptr()",
    "storage_item": NI + "N().untyped_storage()[0]",
    "item_many": NI + "N().item()",
    "data_ptr_zero": NI + "result = N().data_ptr()",
    "make_subclass_numpy": NI + "N._make_subclass(N, torch.ones(2)).numpy()",
    "make_subclass_tolist": NI + "N._make_subclass(N, torch.ones(2)).tolist()",
    "plain_subclass_numpy": NI + "result = Plain._make_subclass(Plain, torch.ones(2)).numpy().tolist()",
    "disabled_impl_plain": NI + """
result = torch._C._disabled_torch_dispatch_impl(torch.ops.aten.add.Tensor, (), (torch.ones(2), 1), {})
""",
}, vars=False)

cases("subclass_make_subclass", {
    # a real-data subclass whose __torch_dispatch__ logs and defers to Tensor's (the kernels)
    "logging_super": """
SEEN = []
class S(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        SEEN.append(str(func))
        return super().__torch_dispatch__(func, types, args, kwargs)
s = S._make_subclass(S, torch.arange(4.))
r = (s * 2).sum()
result = (type(r).__name__, r, SEEN)
""",
    "disabled_guard": """
SEEN = []
class S(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        SEEN.append(str(func))
        return super().__torch_dispatch__(func, types, args, kwargs)
s = S._make_subclass(S, torch.arange(4.))
g = torch._C._DisableTorchDispatch()
r = s + 1
del g
r2 = s + 1
result = (r, r2, SEEN)
""",
    "two_handlers_order": """
SEEN = []
class A(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        SEEN.append(("A", str(func), [t.__name__ for t in types]))
        return NotImplemented
class B(A):
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        SEEN.append(("B", str(func), [t.__name__ for t in types]))
        with torch._C._DisableTorchDispatch():
            return func(*[torch.Tensor._make_subclass(torch.Tensor, a) if isinstance(a, torch.Tensor) else a
                          for a in args], **(kwargs or {}))
a = A._make_subclass(A, torch.ones(3)); b = B._make_subclass(B, torch.full((3,), 2.))
r = torch.add(a, b)
result = (r, SEEN)
""",
}, vars=False)

cases("subclass_upstream", {
    "two_tensor": """
from torch.testing._internal.two_tensor import TwoTensor
x = torch.arange(6.).reshape(2, 3); y = x * 2
a = TwoTensor(x, y)
r = (a * 2 + a).sin()
result = (type(r).__name__, r.a, r.b)
""",
    "two_tensor_view_and_linear": """
from torch.testing._internal.two_tensor import TwoTensor
x = torch.arange(6.).reshape(2, 3)
a = TwoTensor(x, x + 1)
v = a.view(3, 2).t()
l = torch.nn.functional.linear(a, torch.ones(4, 3))
result = (v.a, v.b, v.shape, l.a, l.b)
""",
    "logging_tensor": """
from torch.testing._internal.logging_tensor import LoggingTensor, capture_logs
with capture_logs() as logs:
    lt = LoggingTensor(torch.ones(2, 3), requires_grad=True)
    z = (lt * lt).sum()
    z.backward(torch.tensor(1.))
result = logs
""",
    "logging_tensor_ops": """
from torch.testing._internal.logging_tensor import LoggingTensor, capture_logs
with capture_logs() as logs:
    lt = LoggingTensor(torch.arange(6.).reshape(2, 3))
    r = torch.cat([lt, lt]).relu().mean(0)
result = logs
""",
}, vars=False)

NJT = """
torch.manual_seed(0)
a = torch.randn(2, 4); b = torch.randn(3, 4); c = torch.randn(1, 4)
def nt(*ts, **kw):
    return torch.nested.nested_tensor(list(ts or (a, b, c)), layout=torch.jagged, **kw)
"""

cases("subclass_njt", {
    "construct": NJT + """
n = nt()
result = (type(n).__name__, n.layout, n.dim(), n.is_nested, n.size(0), n.size(2), str(n.shape), n.dtype,
          n.values(), n.offsets(), n.unbind())
""",
    "as_nested": NJT + "result = torch.nested.as_nested_tensor([a, b, c], layout=torch.jagged).to_padded_tensor(0.0)",
    "from_jagged": NJT + """
n = torch.nested.nested_tensor_from_jagged(torch.cat([a, b, c]), torch.tensor([0, 2, 5, 6]))
result = (n.to_padded_tensor(-1.0), n.unbind())
""",
    "pointwise": NJT + """
n = nt()
r = (n.sin() * 2 + 1).relu()
r2 = r + r
result = (r.to_padded_tensor(0.0), r2.unbind())
""",
    "mismatched_raggedness": NJT + "nt() + nt()",
}, vars=False)

# sin's derivative (cos times the incoming gradient), matrix products and exp/mean: upstream's own
# float error (docs/ARCHITECTURE.md, "Adding an operator")
cases("subclass_upstream_float", {
    "two_tensor_backward": """
from torch.testing._internal.two_tensor import TwoTensor
x = torch.arange(6.).reshape(2, 3)
a = TwoTensor(x.clone(), (x * 2).clone()).requires_grad_()
(a.sin() * 3).sum().backward()
result = (type(a.grad).__name__, a.grad.a, a.grad.b)
""",
}, tol="float", vars=False)

cases("subclass_njt_float", {
    "backward_to_padded": NJT + """
n = nt(requires_grad=True)
y = (n.sin() * 2).to_padded_tensor(0.0)
y.sum().backward()
result = (type(y.grad_fn).__name__, type(n.grad).__name__, n.grad.to_padded_tensor(0.0), y)
""",
    "backward_components": NJT + """
aa = a.clone().requires_grad_(); bb = b.clone().requires_grad_()
n = torch.nested.as_nested_tensor([aa, bb], layout=torch.jagged)
(n.cos() * 3).values().sum().backward()
result = (aa.grad, bb.grad)
""",
    "encoder_layer": NJT + """
torch.manual_seed(1)
layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval()
x = nt(torch.randn(3, 8), torch.randn(5, 8))
with torch.no_grad():
    layer(x)
""",
    "linear_matmul": NJT + """
n = nt()
result = (torch.nn.functional.linear(n, torch.ones(5, 4), torch.ones(5)).to_padded_tensor(0.0),
          torch.matmul(n, torch.ones(4, 2)).unbind())
""",
    "softmax_reduce": NJT + """
n = nt()
result = (torch.softmax(n, dim=-1).to_padded_tensor(0.0), n.sum(dim=-1).to_padded_tensor(0.0), n.mean(dim=1))
""",
}, tol="float", vars=False)

cases("jagged_dense_ops", {
    "to_padded": """
v = torch.arange(12.).reshape(6, 2); off = torch.tensor([0, 2, 5, 6])
result = (torch.ops.aten._jagged_to_padded_dense_forward.default(v, [off], [3], -1.0),
          torch.ops.aten._jagged_to_padded_dense_forward.default(v, [off], [2]),
          torch.ops.aten._jagged_to_padded_dense_forward.default(torch.arange(6), [off.int()], [4], 7.0))
""",
    "to_jagged": """
p = torch.arange(24.).reshape(3, 4, 2); off = torch.tensor([0, 2, 5, 6])
result = (torch.ops.aten._padded_dense_to_jagged_forward.default(p, [off]),
          torch.ops.aten._padded_dense_to_jagged_forward.default(p, [off], 6))
""",
    "to_jagged_total_mismatch": "torch.ops.aten._padded_dense_to_jagged_forward.default(torch.ones(3, 4, 2), [torch.tensor([0, 2, 5, 6])], 7)",
    "to_jagged_too_long": "torch.ops.aten._padded_dense_to_jagged_forward.default(torch.ones(3, 2, 2), [torch.tensor([0, 2, 5, 6])])",
    "to_jagged_1d": "torch.ops.aten._padded_dense_to_jagged_forward.default(torch.ones(3), [torch.tensor([0, 2, 3])])",
    "offsets_2d": "torch.ops.aten._jagged_to_padded_dense_forward.default(torch.ones(3, 2), [torch.tensor([[0, 2, 3]])], [2])",
})
