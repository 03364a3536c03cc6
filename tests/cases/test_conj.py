"""The lazy conjugate and negative bits (core/tensor.h math_bits; the door's materialisation in
dispatch/door.c; ops in src/ops/predicates.c) and complex matrix products (src/ops/linalg.c,
kernels/ref/gemm.c) compared with upstream: which results are views with the bit (is_conj /
is_neg, storage sharing, strides, ._base), which ops materialise (clone, resolve_conj,
conj_physical, arithmetic), in-place ops and out= through a conjugate view (written back
conjugated), real / imag views (imag of a conjugate view carries the negative bit) and their
setters, view_as_real / view_as_complex and their errors, torch.save / torch.load of a conjugate
view (the bit travels in the metadata), numpy() refusing, tolist / item reading the conjugated
values; mm / bmm / addmm / baddbmm / matmul / mv / dot / vdot / linear on complex64 / complex128
(tol="float": MKL's summation order is host-dependent), complex alpha / beta, conjugate and
transposed operands; gradients through conj, mH, real / imag, view_as_real / view_as_complex,
conj_physical and the complex product formulas (grad.mm(mat2.t().conj()), ...)."""
from harness import cases
from harness.autograd import grads, F64

R = "torch.manual_seed(0)\n"
X = R + "x = torch.randn(2, 3, dtype=torch.complex64)\n"

cases("conj_bit", {
    "view": X + "c = x.conj()\n(c, c.is_conj(), c.is_neg(), c.data_ptr() == x.data_ptr(), c.stride(), c._base is x, torch.is_conj(c))",
    "real_dtype": R + "x = torch.randn(3)\n(x.conj() is x, x.conj().is_conj(), torch.arange(3).conj().is_conj(), x.resolve_conj() is x)",
    "double_conj": X + "cc = x.conj().conj()\n(cc.is_conj(), cc.data_ptr() == x.data_ptr(), cc)",
    "views_keep_bit": X + "c = x.conj()\n(c.t().is_conj(), c[0].is_conj(), c.view(3, 2).is_conj(), c.reshape(6).is_conj(), c.unsqueeze(0).is_conj(), c.expand(2, 2, 3).is_conj(), c.select(0, 1).is_conj(), c.detach().is_conj(), c.t(), c[1, 1:])",
    "materialise": X + "c = x.conj()\n(c.clone().is_conj(), c.contiguous().is_conj(), c.resolve_conj().is_conj(), c.resolve_conj().data_ptr() == x.data_ptr(), c.conj_physical().is_conj(), (c + 1).is_conj(), c.to(torch.complex128).is_conj(), c.to(torch.complex64) is c, torch.empty_like(c).is_conj())",
    "underscore_ops": X + "(torch._conj(x).is_conj(), torch._conj_physical(x).is_conj(), torch._conj_physical(x), torch.conj_physical(x), torch.resolve_conj(x.conj()), torch._conj(x.conj()).is_conj())",
    "inplace_through_conj": X + "y = x.clone()\nyc = y.conj()\nr = yc.add_(1 + 2j)\n(r is yc, r.is_conj(), y, yc)",
    "setitem_through_conj": X + "y = x.clone()\nyc = y.conj()\nyc[0] = 5j\nyc[1, 1:] = torch.tensor([1 + 1j, 2 - 3j])\ny",
    "out_through_conj": X + "o = torch.zeros(2, 3, dtype=torch.complex64).conj()\nr = torch.add(x, 1, out=o)\n(r is o, o.is_conj(), o, o._base)",
    "copy_into_conj": X + "y = torch.zeros(2, 3, dtype=torch.complex64)\ny.conj().copy_(x)\nz = torch.zeros(2, 3, dtype=torch.complex64)\nz.copy_(x.conj())\n(y, z, z.is_conj())",
    "conj_physical_inplace": X + "y = x.clone()\nr = y.conj_physical_()\nw = torch.randn(3)\n(r is y, y, w.clone().conj_physical_(), torch.conj_physical(x, out=torch.empty(0, dtype=torch.complex64)))",
    "neg_view": X + "n = torch._neg_view(x)\nr = torch.randn(3)\n(n.is_neg(), n, n.resolve_neg().is_neg(), n.resolve_neg(), torch._neg_view(r).is_neg(), torch._neg_view(r) + 1, torch.view_as_real(n).is_neg())",
    "real_imag": X + "c = x.conj()\n(x.real, x.imag, x.real.stride(), x.imag.storage_offset(), c.imag.is_neg(), c.imag.is_conj(), c.real.is_neg(), c.imag, c.real, torch.real(x), torch.imag(c), x.real._base is x)",
    "aten_spellings": X + "c = x.conj()\n(torch.ops.aten.conj_physical.default(c), torch.ops.aten.real.default(c), torch.ops.aten.imag.default(c), torch.ops.aten.imag.default(c).is_neg(), torch.ops.aten.conj_physical.default(torch.randn(2)), torch.ops.aten.real.default(torch.randn(2)))",
    "real_of_real": R + "x = torch.randn(3)\n(torch.real(x) is x, x.real is x)",
    "real_imag_setters": X + "y = x.clone()\ny.real = torch.zeros(2, 3)\nz = x.clone()\nz.imag = torch.ones(2, 3)\nw = x.clone()\nw.imag.mul_(2)\n(y, z, w)",
    "view_as_real_complex": X + "r = torch.view_as_real(x)\nc = torch.view_as_complex(r * 2)\n(r, r.stride(), r.data_ptr() == x.data_ptr(), c, torch.view_as_complex(torch.randn(3, 3, 2)[:, :1]), torch.view_as_complex(torch.randn(2, 2, dtype=torch.float64)), torch.view_as_real(torch.randn(2, 2, dtype=torch.complex128).t()).stride(), torch.view_as_real(torch.tensor(1 + 2j)))",
    "serialize": X + "import io\nb = io.BytesIO()\ntorch.save({'c': x.conj(), 'n': torch._neg_view(x.real)}, b)\nb.seek(0)\nd = torch.load(b)\n(d['c'].is_conj(), d['c'], d['n'].is_neg(), d['n'], torch._C._get_tensor_metadata(x.conj()), torch._C._get_tensor_metadata(x))",
    "tolist_item": X + "c = x.conj()\n(c.tolist(), c[0, 1].item(), complex(c[1, 2]), torch._neg_view(x.real)[0, 0].item())",
    "deepcopy": X + "import copy\nc = copy.deepcopy(x.conj())\n(c.is_conj(), c)",
    "mH": X + "(x.mH.is_conj(), x.mH, x.H.is_conj(), x.adjoint().is_conj(), x.mT.is_conj(), torch.randn(2, 3).mH.is_conj())",
    "mH_of_conj": X + "c = x.conj()\n(c.mH.is_conj(), c.mH, c.adjoint().is_conj(), c.adjoint(), c.mT.is_conj(), c.H.is_conj(), torch.ops.aten.mH(c).is_conj(), c.mH.mH.is_conj(), c.mH.mH)",
    "bad_view_as_real_conj": X + "torch.view_as_real(x.conj())",
    "bad_view_as_real_real": "torch.view_as_real(torch.randn(3))",
    "bad_view_as_complex_bf16": "torch.view_as_complex(torch.randn(3, 2).bfloat16())",
    "bad_view_as_complex_last": "torch.view_as_complex(torch.randn(3, 4))",
    "bad_view_as_complex_stride": "torch.view_as_complex(torch.randn(2, 3).t())",
    "bad_view_as_complex_offset": "torch.view_as_complex(torch.randn(7)[1:].view(3, 2))",
    "bad_view_as_complex_0dim": "torch.view_as_complex(torch.randn(()))",
    "bad_imag_real": "torch.imag(torch.randn(3))",
    "bad_numpy_conj": X + "x.conj().numpy()",
    "bad_numpy_neg": X + "torch._neg_view(x).numpy()",
})

cases("complex_products", {
    "mm": R + "a = torch.randn(3, 4, dtype=torch.complex64)\nb = torch.randn(4, 5, dtype=torch.complex64)\n(torch.mm(a, b), a @ b, torch.mm(a.double().to(torch.complex128), b.to(torch.complex128)))",
    "mm_conj_transposed": R + "a = torch.randn(4, 3, dtype=torch.complex64)\nb = torch.randn(4, 5, dtype=torch.complex128)\n(torch.mm(a.mH, a), torch.mm(a.conj(), a.t()), torch.mm(b.t().conj(), b), torch.matmul(a.conj().t(), a[:, :2]))",
    "addmm": R + "a = torch.randn(3, 4, dtype=torch.complex64)\nb = torch.randn(4, 5, dtype=torch.complex64)\nc = torch.randn(3, 5, dtype=torch.complex64)\n(torch.addmm(c, a, b), torch.addmm(c, a, b, beta=1 + 2j, alpha=2 - 1j), torch.addmm(c, a, b, beta=0), torch.addmm(c[0], a, b, alpha=0.5j), c.clone().addmm_(a, b, alpha=2))",
    "bmm_baddbmm": R + "a = torch.randn(2, 3, 4, dtype=torch.complex128)\nb = torch.randn(2, 4, 2, dtype=torch.complex128)\n(torch.bmm(a, b), torch.baddbmm(torch.ones(2, 3, 2, dtype=torch.complex128), a, b, beta=0.5j, alpha=2), torch.matmul(a, b[0]))",
    "mv_dot_vdot": R + "a = torch.randn(3, 4, dtype=torch.complex64)\nv = torch.randn(4, dtype=torch.complex64)\n(torch.mv(a, v), torch.dot(v, v), torch.vdot(v, v), torch.vdot(a[0], v), torch.vdot(v.conj(), v), torch.vdot(torch.randn(4), torch.randn(4)), torch.vdot(v, v, out=torch.empty((), dtype=torch.complex64)))",
    "linear": R + "x = torch.randn(2, 3, 4, dtype=torch.complex64)\nw = torch.randn(5, 4, dtype=torch.complex64)\nb = torch.randn(5, dtype=torch.complex64)\n(torch.nn.functional.linear(x, w, b), torch.nn.functional.linear(x[0], w))",
    "conj_values": X + "c = x.conj()\n(c * c, c * x, c.sum(), c.abs(), c.exp(), c / x)",
    "empty": "(torch.mm(torch.zeros(0, 3, dtype=torch.complex64), torch.zeros(3, 2, dtype=torch.complex64)), torch.mm(torch.zeros(2, 0, dtype=torch.complex64), torch.zeros(0, 3, dtype=torch.complex64)))",
    "bad_dtype_mix": "torch.mm(torch.randn(2, 2, dtype=torch.complex64), torch.randn(2, 2))",
    "bad_vdot_dims": "torch.vdot(torch.randn(2, 2, dtype=torch.complex64), torch.randn(2, dtype=torch.complex64))",
    "bad_vdot_dtype": "torch.vdot(torch.randn(2, dtype=torch.complex64), torch.randn(2, dtype=torch.complex128))",
}, tol="float")

grads("conj_grad", {
    "conj": "ps = [torch.randn(2, 3, dtype=torch.complex128, requires_grad=True)]; out = (ps[0].conj() * torch.arange(3.)).abs()",
    "mH_mm": "torch.manual_seed(0); ps = [torch.randn(2, 3, dtype=torch.complex128, requires_grad=True)]; out = (ps[0].mH @ ps[0]).real",
    "real_imag": "ps = [torch.randn(2, 3, dtype=torch.complex128, requires_grad=True)]; out = ps[0].real * 2 + ps[0].conj().imag * 3",
    "view_as_real": "ps = [torch.randn(2, 3, dtype=torch.complex128, requires_grad=True)]; out = torch.view_as_real(ps[0]) * torch.arange(2.)",
    "view_as_complex": "ps = [torch.randn(2, 3, 2, dtype=torch.float64, requires_grad=True)]; out = torch.view_as_complex(ps[0]).imag.exp()",
    "conj_physical": "ps = [torch.randn(3, dtype=torch.complex128, requires_grad=True)]; out = (torch.conj_physical(ps[0]) * (1 + 2j)).real",
    "products": "torch.manual_seed(0); a = torch.randn(3, 4, dtype=torch.complex128, requires_grad=True); b = torch.randn(4, 2, dtype=torch.complex128, requires_grad=True); v = torch.randn(2, dtype=torch.complex128, requires_grad=True); ps = [a, b, v]; out = (torch.mm(a, b).mv(v).abs() + torch.vdot(v, v).real + torch.dot(v, v).imag + torch.bmm(a[None], b[None]).abs().sum())",
    "resolve_conj": "ps = [torch.randn(3, dtype=torch.complex128, requires_grad=True)]; out = ps[0].conj().resolve_conj().real * 2",
}, tol=F64)

cases("product_composites", {
    "outer": R + "a = torch.randn(3)\nb = torch.randn(4)\n(torch.outer(a, b), a.outer(b), torch.ger(a, b), a.ger(b), torch.outer(torch.arange(3), b), torch.outer(a.to(torch.complex64), b.to(torch.complex64)), torch.outer(torch.zeros(0), b), torch.outer(a[::2], b[1:]))",
    "vecdot": R + "x = torch.randn(2, 3, dtype=torch.complex64)\ny = torch.randn(2, 3, dtype=torch.complex64)\nr = torch.randn(4, 3)\n(torch.linalg.vecdot(x, y), torch.linalg.vecdot(x, y, dim=0), torch.linalg.vecdot(r, r[0]), torch.linalg.vecdot(r.double(), r.double(), dim=-2), torch.linalg.vecdot(x.conj(), y))",
    "isreal": "(torch.isreal(torch.tensor([1 + 0j, 1j, -2 + 0j])), torch.isreal(torch.randn(3)), torch.tensor([1, 2]).isreal(), torch.isreal(torch.tensor([1j, 2]).conj()), torch.isreal(torch.zeros(0, dtype=torch.complex128)))",
    "aten_spellings": R + "a = torch.randn(3)\nb = torch.randn(3)\n(torch.ops.aten.outer.default(a, b), torch.ops.aten.ger.default(a, b), torch.ops.aten.linalg_vecdot.default(a, b), torch.ops.aten.linalg_vecdot.default(a[None], b[None], dim=1), torch.ops.aten.isreal.default(a))",
    "bad_outer_self": "torch.outer(torch.ones(2, 2), torch.ones(2))",
    "bad_outer_vec2": "torch.outer(torch.ones(2), torch.ones(2, 1))",
    "bad_vecdot_dtype": "torch.linalg.vecdot(torch.ones(2), torch.ones(2, dtype=torch.float64))",
    "bad_vecdot_shape": "torch.linalg.vecdot(torch.ones(2, 3), torch.ones(3, 2), dim=0)",
    "bad_vecdot_int": "torch.linalg.vecdot(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long))",
}, tol="float")

grads("product_composites_grad", {
    "outer_vecdot": "torch.manual_seed(0); a = torch.randn(3, dtype=torch.complex128, requires_grad=True); b = torch.randn(3, dtype=torch.complex128, requires_grad=True); ps = [a, b]; out = torch.outer(a, b).abs().sum() + torch.linalg.vecdot(a, b).real + torch.ger(a.real, b.imag).sum()",
}, tol=F64)

# A written tensor list carrying a bit: upstream's MathBitsFallback refuses (the Negative fallback
# before the Conjugate one), with its message (compared as text)
WRITTEN_LIST = """
def err(f):
    try:
        return ("ok", f())
    except Exception as e:
        return (type(e).__name__, str(e))
"""
cases("conj_bit_written_list", {
    "conj": WRITTEN_LIST + "err(lambda: torch._foreach_add_([torch.ones(2, dtype=torch.complex64).conj()], 1))",
    "neg": WRITTEN_LIST + "err(lambda: torch._foreach_mul_([torch.ones(2), torch.ones(2)._neg_view()], 2.0))",
    "neg_conj": WRITTEN_LIST + "err(lambda: torch._foreach_add_([torch.ones(2, dtype=torch.complex64).conj(), torch.ones(2, dtype=torch.complex64)._neg_view()], 1))",
    "read_list": "l = [torch.tensor([1 + 2j, 3j]).conj(), torch.tensor([1 - 1j, 2j])._neg_view()]; (torch._foreach_add(l, 1), torch._foreach_mul(l, l))",
}, tol="float")
