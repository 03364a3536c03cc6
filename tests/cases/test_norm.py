"""Vector norms (src/ops/norm.c) and torch._C._nn._parse_to (src/python/parse_to.c).

linalg_vector_norm / norm.* / linalg_norm through every spelling (torch.norm, Tensor.norm,
torch.linalg.norm / vector_norm, F.normalize, torch.ops.aten, _VF.norm, out=), dtypes f32 f64 f16
bf16 c64 c128, 0-dim / empty / non-contiguous inputs, every ord kind, and upstream's errors.
Most cases are bit-exact; the vectorised f32/f64 p=2 rows (contiguous last-dim reductions) and
fractional-p pow folds agree with upstream except for rare last-bit differences, so those
families use tol="float".
"""
from harness import cases

SEED = "torch.manual_seed(0)\n"


def _vals(dt):
    if dt.startswith("complex"):
        return "(torch.randn({s}, dtype=torch.float64) * 5 + 1j * torch.randn({s}, dtype=torch.float64)).to(torch.%s)" % dt
    return "(torch.randn({s}, dtype=torch.float64) * 5).to(torch.%s)" % dt


DTS = ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"]
SHAPES = ["()", "(1,)", "(7,)", "(37,)", "(5, 9)", "(3, 4, 5)", "(2, 1, 33)", "(0,)", "(0, 3)", "(3, 0)"]

# exact: ords whose folds agree bitwise (0, 1, inf, -inf; p=2 through the sequential path)
exact = {}
for dt in DTS:
    for sh in SHAPES:
        x = "x = " + _vals(dt).format(s=sh) + "\n"
        nd = len(eval(sh))
        for p in ["1", "0", "float('inf')", "float('-inf')"]:
            dims = ["None"] + [str(d) for d in range(nd)] + (["(0, -1)"] if nd >= 2 else [])
            for d in dims:
                exact["%s-%s-p%s-d%s" % (dt, sh, p, d)] = SEED + x + "torch.linalg.vector_norm(x, %s, %s)" % (p, d)
        if nd >= 2:
            exact["%s-%s-keepdim" % (dt, sh)] = SEED + x + "torch.linalg.vector_norm(x, 1, 0, keepdim=True)"
            exact["%s-%s-T-p2-d0" % (dt, sh)] = SEED + x + "torch.linalg.vector_norm(x.mT, 2, 0)"
cases("vector_norm_exact", exact)

tolerant = {}
for dt in DTS:
    for sh in SHAPES:
        x = "x = " + _vals(dt).format(s=sh) + "\n"
        nd = len(eval(sh))
        for p in ["2", "2.0", "3", "0.5", "-1", "-1.5", "2.5"]:
            for d in ["None", "-1"] if nd else ["None"]:
                for kd in ["False", "True"]:
                    tolerant["%s-%s-p%s-d%s-%s" % (dt, sh, p, d, kd)] = SEED + x + \
                        "torch.linalg.vector_norm(x, %s, %s, %s)" % (p, d, kd)
        if nd >= 2:
            tolerant["%s-%s-step" % (dt, sh)] = SEED + x + "torch.linalg.vector_norm(x[:, ::2], 2, -1)"
            tolerant["%s-%s-T-all" % (dt, sh)] = SEED + x + "torch.linalg.vector_norm(x.mT, 3)"
    tolerant["%s-expanded" % dt] = SEED + "x = " + _vals(dt).format(s="(3,)") + "\ntorch.linalg.vector_norm(x.expand(4, 3), 2, 0)"
cases("vector_norm_float", tolerant, tol="float")

cases("norm_spellings", {
    "torch.norm": SEED + "torch.norm(torch.randn(4, 6))",
    "method": SEED + "torch.randn(4, 6).norm()",
    "method-p": SEED + "torch.randn(4, 6).norm(1)",
    "method-p-dim-keep": SEED + "torch.randn(4, 6).norm(2, 1, True)",
    "method-kw": SEED + "torch.randn(4, 6).norm(p=float('inf'), dim=1)",
    "fro": SEED + "torch.norm(torch.randn(4, 6), 'fro')",
    "fro-dim": SEED + "torch.norm(torch.randn(4, 6), 'fro', dim=1)",
    "dtype": SEED + "torch.norm(torch.randn(4, 6), dtype=torch.float64)",
    "dtype-dim": SEED + "torch.norm(torch.randn(4, 6), 2, 1, dtype=torch.float64)",
    "p3-tuple": SEED + "torch.norm(torch.randn(4, 6), p=3, dim=(0, 1))",
    "half": SEED + "torch.norm(torch.randn(4, 6).half())",
    "out": SEED + "o = torch.empty(0)\nr = torch.norm(torch.randn(4, 6), p=2, dim=1, out=o)\n(r, o)",
    "out-all": SEED + "o = torch.empty(0)\ntorch.norm(torch.randn(4, 6), out=o)\no",
    "linalg.norm-vec": SEED + "torch.linalg.norm(torch.randn(7))",
    "linalg.norm-all": SEED + "torch.linalg.norm(torch.randn(3, 4))",
    "linalg.norm-dim": SEED + "torch.linalg.norm(torch.randn(3, 4), dim=1)",
    "linalg.norm-ord-dim": SEED + "torch.linalg.norm(torch.randn(3, 4), ord=1, dim=1)",
    "linalg.norm-ord-vec": SEED + "torch.linalg.norm(torch.randn(5), float('inf'))",
    "linalg.norm-fro": SEED + "torch.linalg.norm(torch.randn(3, 4), 'fro')",
    "linalg.norm-fro-dims": SEED + "torch.linalg.norm(torch.randn(2, 3, 4), 'fro', dim=(0, 2), keepdim=True)",
    "linalg.norm-out": SEED + "o = torch.empty(3)\ntorch.linalg.norm(torch.randn(3, 4), dim=1, out=o)\no",
    "vector_norm-kw": SEED + "torch.linalg.vector_norm(torch.randn(3, 4), ord=1, dim=(1,), keepdim=True, dtype=torch.float64)",
    "vector_norm-out": SEED + "o = torch.empty(2, 2)\ntorch.linalg.vector_norm(torch.randn(3, 4), out=o)\no",
    "vector_norm-ord-true": "torch.linalg.vector_norm(torch.tensor([1., -2.]), True)",
    "normalize": SEED + "torch.nn.functional.normalize(torch.randn(4, 6), dim=-1)",
    "normalize-p1-dim0": SEED + "torch.nn.functional.normalize(torch.randn(4, 6), p=1, dim=0)",
    "normalize-zero-row": "torch.nn.functional.normalize(torch.tensor([[0., 0.], [3., 4.]]))",
    "normalize-bf16": SEED + "torch.nn.functional.normalize(torch.randn(4, 6).bfloat16(), dim=-1)",
    "aten-default": SEED + "torch.ops.aten.linalg_vector_norm.default(torch.randn(3, 4), 2, [1])",
    "aten-out": SEED + "o = torch.empty(3)\ntorch.ops.aten.linalg_vector_norm.out(torch.randn(3, 4), 2, [1], out=o)\no",
    "aten-norm.Scalar": SEED + "torch.ops.aten.norm.Scalar(torch.randn(3, 4), 3)",
    "aten-norm.ScalarOpt_dim": SEED + "torch.ops.aten.norm.ScalarOpt_dim(torch.randn(3, 4), None, [1], True)",
    "aten-norm.ScalarOpt_dim-empty-dims": SEED + "torch.ops.aten.norm.ScalarOpt_dim(torch.randn(3, 4), 2, [])",
    "aten-norm.ScalarOpt_dtype": SEED + "torch.ops.aten.norm.ScalarOpt_dtype(torch.randn(3, 4), 2, dtype=torch.float64)",
    "aten-norm.ScalarOpt_dim_dtype": SEED + "torch.ops.aten.norm.ScalarOpt_dim_dtype(torch.randn(3, 4), 1, [0], False, dtype=torch.float64)",
    "aten-norm.out": SEED + "o = torch.empty(3)\ntorch.ops.aten.norm.out(torch.randn(3, 4), 2, [1], out=o)\no",
    "aten-norm.Scalar_out": SEED + "o = torch.empty(())\ntorch.ops.aten.norm.Scalar_out(torch.randn(3, 4), 2, out=o)\no",
    "aten-norm.dtype_out": SEED + "o = torch.empty(4, dtype=torch.float64)\ntorch.ops.aten.norm.dtype_out(torch.randn(3, 4), 2, [0], False, dtype=torch.float64, out=o)\no",
    "aten-norm.ScalarOpt_dtype_out": SEED + "o = torch.empty((), dtype=torch.float64)\ntorch.ops.aten.norm.ScalarOpt_dtype_out(torch.randn(3, 4), 2, dtype=torch.float64, out=o)\no",
    "aten-norm-complex": "torch.ops.aten.norm.Scalar(torch.tensor([3+4j, 1j], dtype=torch.complex64))",
    "VF.norm": SEED + "torch._VF.norm(torch.randn(3, 4), 2, dim=[1], keepdim=False)",
    "meta": "torch.linalg.vector_norm(torch.empty(3, 4, device='meta'), dim=1).shape",
    "nan-inf": "torch.linalg.vector_norm(torch.tensor([1., float('nan'), 2.]), float('inf'))",
    "nan-ninf": "torch.linalg.vector_norm(torch.tensor([1., float('nan'), 2.]), float('-inf'))",
    "nan-p0": "torch.linalg.vector_norm(torch.tensor([1., float('nan'), 0.]), 0)",
    "neg-p-zero": "torch.linalg.vector_norm(torch.tensor([0., 1.]), -1)",
    "size1-dims": "torch.linalg.vector_norm(torch.tensor([[-3.]]), -2.5)",
    "0dim-p0": "torch.linalg.vector_norm(torch.tensor(-2.), 0)",
    "0dim-keepdim": "torch.linalg.vector_norm(torch.tensor(-2.), 3, dim=0, keepdim=True)",
    "c64-dtype-c128": "torch.linalg.vector_norm(torch.tensor([3+4j, 1j], dtype=torch.complex64), dtype=torch.complex128)",
    "f16-dtype-f32": SEED + "torch.linalg.vector_norm(torch.randn(3, 4, 5).half(), dtype=torch.float32)",
}, tol="float")

cases("norm_errors", {
    "int": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64))",
    "bool": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.bool))",
    "uint8-norm": "torch.norm(torch.ones(3, dtype=torch.uint8))",
    "int-aten-norm": "torch.ops.aten.norm.Scalar(torch.ones(3, dtype=torch.int64))",
    "int-method": "torch.ones(3, dtype=torch.int32).norm()",
    "dtype-int": "torch.linalg.vector_norm(torch.ones(3), dtype=torch.int64)",
    "dtype-narrow": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.float64), dtype=torch.float32)",
    "dtype-complex-for-real": "torch.linalg.vector_norm(torch.ones(3), dtype=torch.complex64)",
    "dtype-real-for-complex": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.complex64), dtype=torch.float32)",
    "dup-dims": "torch.linalg.vector_norm(torch.ones(3), 2, (0, 0))",
    "dim-range": "torch.linalg.vector_norm(torch.ones(3), 2, 3)",
    "ord-str": "torch.linalg.vector_norm(torch.ones(3), 'fro')",
    "ord-complex": "torch.linalg.vector_norm(torch.ones(3), 2 + 1j)",
    "out-dtype": "torch.linalg.vector_norm(torch.ones(3), out=torch.empty(0, dtype=torch.float64))",
    "out-complex": "torch.linalg.vector_norm(torch.ones(3, dtype=torch.complex64), out=torch.empty(0, dtype=torch.complex64))",
    "empty-inf": "torch.linalg.vector_norm(torch.empty(0, 3), float('inf'))",
    "empty-neg": "torch.linalg.vector_norm(torch.empty(0, 3), -2)",
    "empty-neg-dim": "torch.linalg.vector_norm(torch.empty(0, 3), -1, dim=0)",
    "empty-inf-negdim": "torch.linalg.vector_norm(torch.empty(3, 0), float('inf'), dim=(0, -1))",
    "empty-inf-ok": "torch.linalg.vector_norm(torch.empty(0, 3), float('inf'), dim=1)",
    "empty-p0-all": "torch.linalg.vector_norm(torch.empty(0, 3), 0, dim=[])",
    "empty-ninf-keep": "torch.linalg.vector_norm(torch.empty(3, 0), float('-inf'), dim=0, keepdim=True)",
    "norm-dtype-int": "torch.ops.aten.norm.ScalarOpt_dtype(torch.ones(2), None, dtype=torch.int64)",
    "norm-dtype-complex": "torch.ops.aten.norm.ScalarOpt_dim_dtype(torch.ones(2, dtype=torch.complex64), 2, [0], False, dtype=torch.complex128)",
    "norm-dtype-int-input": "torch.ops.aten.norm.ScalarOpt_dtype(torch.ones(2, dtype=torch.int64), None, dtype=torch.float64)",
    "norm-out-dtype": "torch.ops.aten.norm.out(torch.ones(2, 3), 2, [1], False, out=torch.empty(0, dtype=torch.float64))",
    "linalg.norm-3dims": "torch.linalg.norm(torch.ones(2, 3), dim=(0, 1, 1))",
    "linalg.norm-3d-ord": "torch.linalg.norm(torch.ones(2, 2, 2), 2)",
    "linalg.norm-3d-fro": "torch.linalg.norm(torch.ones(2, 2, 2), 'fro')",
    "linalg.norm-fro-1dim": "torch.linalg.norm(torch.ones(2, 2, 2), 'fro', dim=(0,))",
    "linalg.norm-fro-vec": "torch.linalg.norm(torch.ones(3), 'fro')",
    "linalg.norm-bad-str": "torch.linalg.norm(torch.ones(2, 3), 'abc')",
    "linalg.norm-int": "torch.linalg.norm(torch.ones(3, dtype=torch.int64))",
})

# ---------------------------------------------------------------- torch._C._nn._parse_to
P = "torch._C._nn._parse_to"
T64 = "t = torch.ones(2, dtype=torch.float64)\n"
cases("parse_to", {
    "empty": P + "()",
    "str": P + "('cpu')",
    "device": P + "(torch.device('cpu'))",
    "dtype": P + "(torch.float64)",
    "int-dtype": P + "(torch.int64)",
    "tensor": T64 + P + "(t)",
    "tensor-int": P + "(torch.tensor(2))",
    "device-dtype": P + "('cpu', torch.float16)",
    "device-dtype-nb": P + "('cpu', torch.float16, True)",
    "dtype-nb": P + "(torch.float64, True)",
    "tensor-nb": T64 + P + "(t, True)",
    "kw-device": P + "(device='cpu')",
    "kw-dtype": P + "(dtype=torch.bfloat16)",
    "kw-all": P + "(device='cpu', dtype=torch.float32, non_blocking=True)",
    "kw-mf": P + "(memory_format=torch.channels_last)",
    "dtype-mf": P + "(torch.float64, memory_format=torch.preserve_format)",
    "kw-tensor": T64 + P + "(tensor=t)",
    "meta": P + "('meta')",
    "cuda": P + "('cuda')",
    "cuda1": P + "('cuda:1')",
    "cpu0": P + "('cpu:0')",
    "none": P + "(None)",
    "none-none": P + "(None, None)",
    "none-dtype": P + "(None, torch.float64)",
    "kw-nones": P + "(device=None, dtype=None, memory_format=None)",
    "float-number": P + "(1.5)",
    "bool-number": P + "(True)",
    "complex-number": P + "(1j)",
    "pytype-float": P + "(float)",
    "pytype-int": P + "(int)",
    "pytype-bool": P + "(bool)",
    "pytype-complex": P + "(complex)",
    "kw-pytype": P + "(dtype=float)",
    "device-kw-dtype": P + "('cpu', dtype=torch.float64)",
    "nb-only": P + "(non_blocking=True)",
    "device-mf": P + "('cpu', non_blocking=True, memory_format=torch.contiguous_format)",
    "device-dtype-mf3d": P + "('cpu', torch.float32, memory_format=torch.channels_last_3d)",
    # errors
    "copy": P + "(torch.float64, False, True)",
    "copy-kw": P + "(copy=True)",
    "copy-false": P + "('cpu', copy=False)",
    "copy-pos": P + "('cpu', None, False, False)",
    "int-device": P + "(0)",
    "int-device7": P + "(7)",
    "bad-str": P + "('xyz')",
    "two-dtypes": P + "(torch.float64, torch.float32)",
    "unknown-kw": P + "(foo=1)",
    "unknown-kws": P + "(foo=1, bar=2.0)",
    "unknown-kws-pos": P + "(torch.float64, foo=1, bar=None)",
    "dtype-twice": P + "(torch.float64, dtype=torch.float64)",
    "nb-int": T64 + P + "(t, non_blocking=1)",
    "nb-str": P + "(torch.float64, non_blocking='x')",
    "nb-none": P + "(torch.float32, non_blocking=None)",
    "too-many": P + "('cpu', torch.float64, False, False, 1)",
    "mf-int": P + "(memory_format=1)",
    "tensor-dtype": T64 + P + "(t, dtype=torch.float32)",
    "layout": P + "(torch.strided)",
    "list": P + "([1])",
    "dtype-none": P + "(torch.float64, None)",
    "tensor-none": T64 + P + "(t, None)",
    "dtype-device-kw": P + "(torch.float32, device='cpu')",
    "tensor-tensor": T64 + P + "(t, t)",
    "device-kw-tensor": T64 + P + "('cpu', tensor=t)",
    "str-int": P + "('cpu', 1)",
    "str-dtype-int": P + "('cpu', torch.float32, 1)",
})

cases("module_to", {
    "linear-f64-cpu-bf16": """
        torch.manual_seed(0)
        m = torch.nn.Linear(3, 4)
        m.to(torch.float64)
        a = [p.dtype for p in m.parameters()]
        m.to('cpu')
        b = [p.dtype for p in m.parameters()]
        m.to(torch.bfloat16)
        (a, b, [p.dtype for p in m.parameters()], m.weight)
    """,
    "device-dtype": """
        torch.manual_seed(0)
        m = torch.nn.Linear(3, 4).to(torch.device('cpu'), torch.float64)
        (m.weight.dtype, m.bias.dtype, str(m.weight.device))
    """,
    "to-tensor": """
        torch.manual_seed(0)
        m = torch.nn.Linear(2, 2).to(torch.ones(1, dtype=torch.float64))
        m.weight
    """,
    "kw": """
        torch.manual_seed(0)
        m = torch.nn.Linear(2, 2).to(dtype=torch.float16, non_blocking=True)
        m.weight
    """,
    "int-dtype-refused": "torch.nn.Linear(2, 2).to(torch.int64)",
    "copy-refused": "torch.nn.Linear(2, 2).to(torch.float64, copy=True)",
})

cases("linalg_norm_aten", {
    "default": SEED + "torch.ops.aten.linalg_norm.default(torch.randn(3, 4), None, [1])",
    "default-ord": SEED + "torch.ops.aten.linalg_norm.default(torch.randn(5), 3)",
    "default-dtype": SEED + "torch.ops.aten.linalg_norm.default(torch.randn(5), dtype=torch.float64)",
    "out": SEED + "o = torch.empty(3)\ntorch.ops.aten.linalg_norm.out(torch.randn(3, 4), 1, [1], out=o)\no",
    "ord_str": SEED + "torch.ops.aten.linalg_norm.ord_str(torch.randn(3, 4), 'fro')",
    "ord_str-dims": SEED + "torch.ops.aten.linalg_norm.ord_str(torch.randn(2, 3, 4), 'fro', [2, 0], True)",
    "ord_str_out": SEED + "o = torch.empty(())\ntorch.ops.aten.linalg_norm.ord_str_out(torch.randn(3, 4), 'fro', out=o)\no",
    "ord_str-3dims": "torch.ops.aten.linalg_norm.ord_str(torch.ones(2, 2, 2), 'fro', [0, 1, 2])",
    "ord_str-1d": "torch.ops.aten.linalg_norm.ord_str(torch.ones(3), 'fro')",
}, tol="float")
