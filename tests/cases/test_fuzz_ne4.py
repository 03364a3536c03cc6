"""Exception types and messages of the no-crash corpus's "ours NotImplementedError, upstream
RuntimeError" differences, fourth round, fixed in the op owning each check
(docs/breadth_more2.md "Fuzz corpus exception types, group ne (session 37)"); the corpus itself
compares every call's exception type (tests/test_no_crash.py).

- view / reshape / _unsafe_view / view_copy / expand / broadcast_to / masked_scatter_backward /
  gradient / meshgrid / unflatten given more than 32 dims: upstream's size checks first (we have
  no tensors past 32 dims); unflatten's errors rephrased by message as upstream's; infer_size's
  ambiguity only for an empty tensor.
- the dunder shifts on meta: upstream's Python meta wants integral operands and an int shift.
- the dunders' Tensor forms on meta: mixed meta / CPU operands refused first; float meta operands
  take the meta result.
- the in-place dunders refuse a leaf (or a view of one) requiring grad before their kernel.
- empty_like (zeros_like / ones_like / full_like / rand_like / to ...) of a CPU tensor into a
  quantized dtype: upstream's empty_strided refusal.
- promote_types of a quantized or bits type.
- out= checks before the kernel's dtype refusal: max / min.unary_out (canCast), nanmean.out
  (nansum.out's dtype match), searchsorted / bucketize (out='s dtype), abs.out of bool, sgn.out /
  sinc.out of complex, lerp.Tensor_out (a weight that is not 0-dim), glu.out (the cast).
"""
from harness import cases
from harness.autograd import ERR

SETUP = ERR + """
A = torch.ops.aten
x = torch.arange(6.).reshape(2, 3)
xi = torch.arange(6).reshape(2, 3)
m = torch.empty(2, 3, device="meta")
mi = torch.empty(2, 3, device="meta", dtype=torch.long)
def meta_info(t):
    return (tuple(t.shape), t.dtype, t.device.type)
def etype(f):
    e = err(f)
    return e and e[0]
"""

cases("fuzz_ne4", {
    "many_dims_sizes_first": "[err(f) for s in [(1,) * 33, [0] * 40] for f in [lambda: x.view(s), lambda: x.reshape(s), "
                             "lambda: A._unsafe_view(x, s), lambda: A.view_copy(x, s), lambda: x.expand(s), lambda: A.expand_copy(x, s), "
                             "lambda: torch.broadcast_to(x, s), lambda: A.masked_scatter_backward(x, x > 2, s)]], "
                             "x.view(3, 2), x.expand(4, 2, 3), x.reshape(-1)",
    "many_dims_gradient": "[err(f) for d in [(1,) * 33, [0] * 40, [-1, 1] * 20] for f in [lambda: torch.gradient(x, dim=d), "
                          "lambda: torch.gradient(x, spacing=2, dim=d), lambda: torch.gradient(x, spacing=[x[0], x[1]], dim=d), "
                          "lambda: A.gradient.array(x, dim=d)]], torch.gradient(x, dim=[0, 1])",
    "many_dims_meshgrid": "[etype(lambda: torch.meshgrid([x] * 70, indexing='ij')), etype(lambda: torch.meshgrid([x[0]] * 3, indexing='bad')), "
                          "err(lambda: torch.meshgrid([x[0], x[0].long()], indexing='ij'))], torch.meshgrid([x[0], x[1, :2]], indexing='ij')",
    "unflatten_sizes": "d32 = torch.zeros([1] * 31 + [6]); [err(f) for s in [[-1, 2], [2, -1, 3], [3, 2], [-1, 3], [2 ** 62, 4], [0, -1], [2, 2]] "
                       "for t in [torch.zeros(1, 3), torch.zeros(6, 2), torch.zeros([1] * 32), d32] for f in [lambda: torch.unflatten(t, 0, s)]], "
                       "[err(f) for f in [lambda: torch.zeros(1).view(0, -1), lambda: torch.zeros(6).reshape(0, -1), lambda: torch.zeros(0).view(0, -1), "
                       "lambda: torch.zeros(0, 3).reshape(-1, 0)]], torch.unflatten(torch.zeros(6, 2), 0, [-1, 3]).shape, torch.zeros(0).view(2, -1).shape",
    "dunder_shift_meta": "[err(f) for f in [lambda: A.__lshift__.Scalar(m, -1), lambda: A.__lshift__.Tensor(x, m), lambda: A.__rshift__.Tensor(m, x), "
                         "lambda: A.__rshift__.Tensor(mi, m), lambda: A.__lshift__.Scalar(mi, 1e20), lambda: A.__lshift__.Scalar(mi, 2.0), "
                         "lambda: A.__rshift__.Scalar(mi, 1j), lambda: A.__ilshift__.Scalar(m, 0), lambda: A.__irshift__.Scalar(mi, 1.5), "
                         "lambda: A.__ilshift__.Tensor(mi, m), lambda: A.__lshift__.Tensor(mi, xi), lambda: A.__irshift__.Tensor(xi, mi), "
                         "lambda: m << True, lambda: mi.__ilshift__(float('inf'))]], "
                         "meta_info(mi << True), meta_info(A.__lshift__.Tensor(mi, mi[0])), meta_info(A.__rshift__.Tensor(mi, xi[0, 0])), "
                         "meta_info(mi.__irshift__(mi))",
    "dunder_tensor_devices": "[err(f) for f in [lambda: A.__and__.Tensor(m, x), lambda: A.__or__.Tensor(x, m), lambda: A.__xor__.Tensor(mi, xi), "
                             "lambda: A.__iand__.Tensor(mi, xi), lambda: A.__ior__.Tensor(m, x)]], "
                             "meta_info(A.__and__.Tensor(m, m)), meta_info(A.__xor__.Tensor(mi, xi[0, 0])), meta_info(A.__ior__.Tensor(m, m)), "
                             "meta_info(A.__and__.Scalar(m, 1))",
    "inplace_dunder_leaf": "g = torch.rand(2, 3, requires_grad=True); [err(f) for f in [lambda: g.__ilshift__(2), lambda: g.__irshift__(1), "
                           "lambda: g.__iand__(2), lambda: A.__ior__.Tensor(g, x), lambda: A.__ixor__.Scalar(g, 2), lambda: A.__ilshift__.Tensor(g, x), "
                           "lambda: g[0].__ilshift__(2), lambda: g.bitwise_and_(2)]], etype(lambda: (g * 1).__ilshift__(2))",
    "inplace_dunder_ints": "y = xi.clone(); v = y._version; y.__iand__(3); y <<= 1; y |= torch.ones(3, dtype=torch.long); y ^= 2; y >>= 1; "
                           "(y, y._version - v, y.requires_grad, y.grad_fn is None)",
    "quantized_like": "[err(f) for q in [torch.qint8, torch.quint8, torch.qint32, torch.quint4x2] for f in [lambda: torch.empty_like(x, dtype=q), "
                      "lambda: torch.zeros_like(x, dtype=q), lambda: torch.ones_like(x.t(), dtype=q), lambda: torch.full_like(x[:, ::2], 2, dtype=q), "
                      "lambda: torch.zeros_like(x.expand(4, 2, 3), dtype=q), lambda: torch.rand_like(x, dtype=q), lambda: torch.randn_like(x, dtype=q), "
                      "lambda: torch.randint_like(x, 1, dtype=q), lambda: x.to(q), lambda: A._to_copy(x, dtype=q), lambda: torch.tensor(x, dtype=q)]], "
                      "torch.zeros_like(x, dtype=torch.int32), torch.full_like(x, 2)",
    "promote_types_quantized_bits": "D = [torch.float32, torch.int64, torch.bool, torch.complex32, torch.float8_e4m3fn, torch.uint16, torch.qint8, "
                                    "torch.quint8, torch.qint32, torch.quint4x2, torch.bits8, torch.bits16, torch.bits1x8]; "
                                    "[err(lambda: torch.promote_types(a, b)) for a in D for b in D]",
    "out_checks_before_kernel": "c64 = torch.ones(2, 3, dtype=torch.complex64); c32 = c64.to(torch.complex32); b = x > 2; i5 = torch.arange(5); f5 = torch.rand(5); "
                                "L = torch.zeros(2, 3, dtype=torch.long); [err(f) for f in [lambda: A.max.unary_out(c64, out=x.clone()), "
                                "lambda: A.min.unary_out(c32, out=x.clone()), lambda: A.max.unary_out(x, out=torch.zeros((), dtype=torch.long)), "
                                "lambda: A.nanmean.out(x, dtype=torch.complex32, out=x.clone()), lambda: A.nanmean.out(x, dtype=torch.float8_e5m2, out=x.clone()), "
                                "lambda: A.nanmean.out(x, dtype=torch.float64, out=x.clone()), lambda: A.searchsorted.Tensor_out(c64, x, out=x.clone()), "
                                "lambda: torch.searchsorted(x, c32, out=x.clone()), lambda: torch.bucketize(x, x[0], out=x.clone()), "
                                "lambda: torch.searchsorted(x, x, sorter=torch.zeros(2, 3), out=L.clone()), lambda: A.abs.out(b, out=x.clone()), "
                                "lambda: torch.absolute(b, out=torch.zeros(0, dtype=torch.long)), lambda: A.abs.out(b, out=b.clone()), "
                                "lambda: A.sgn.out(c32, out=x.clone()), lambda: A.sgn.out(c64, out=x.clone()), lambda: A.sinc.out(c32, out=x.clone()), "
                                "lambda: A.special_sinc.out(c64, out=x.clone()), lambda: A.lerp.Tensor_out(i5, i5, i5, out=x.clone()), "
                                "lambda: A.lerp.Tensor_out(f5, f5, f5, out=x.double()), lambda: A.lerp.Tensor_out(f5.bool(), f5.bool(), f5.bool(), out=x.clone()), "
                                "lambda: A.glu.out(c64, 0, out=x.clone()), lambda: A.glu.out(x, 0, out=L.clone()), lambda: A.glu.out(x, 5, out=L.clone())]], "
                                "A.max.unary_out(x, out=torch.zeros((), dtype=torch.double)), A.nanmean.out(x, [0], dtype=torch.float32, out=torch.zeros(3)), "
                                "A.lerp.Tensor_out(f5, f5, torch.tensor(0.5).double(), out=torch.zeros(5).double()), A.glu.out(x.double(), 0, out=torch.zeros(1, 3)), "
                                "torch.searchsorted(x[0], x, out=L.clone())",
}, setup=SETUP)
