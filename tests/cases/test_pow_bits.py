"""float pow with upstream's bits (#11, docs/pow_bits.md): pow.Tensor_Scalar by exponents other
than 2, 3, -2, 0.5, -0.5, -1 and pow.Tensor_Tensor on float32 / float64 run Sleef's pow over the
vector body of a contiguous run and the C library's over the tail (kernels/ref/vpow.c); bfloat16
rounds each product for 3 and -2. Compared bit for bit (no tolerance): these exponents differed
by 1 ulp in about 2 % of the elements before. Run lengths are chosen with n % 32 < 16, so the
tail is the same under upstream's AVX2 (16-float steps) and AVX-512 (32-float steps) builds."""
from harness import cases

S = """
torch.manual_seed(0)
x = torch.randn(1000) * 3
sp = torch.tensor([0., -0., 1., -1., 2., -2., float('inf'), -float('inf'), float('nan'), 1e-30, 1e30, 0.5, 1e-40, 3e38] * 3)
sp = torch.cat([sp, torch.randn(1000 - sp.numel())])
"""
EXPS = [-3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1 / 3, 2.5, 0.75, -1.5, 1e10, -1e10]


def sweep(dt):
    return f"xd = x.to(torch.{dt})\n[xd ** e for e in {EXPS!r}] + [xd.abs() ** e for e in {EXPS!r}]"


cases("pow_bits_scalar", {
    "brief_example": "torch.manual_seed(0)\nx = torch.randn(1000)\nx * torch.rand(1000) ** 8",
    "f32": sweep("float32"),
    "f64": sweep("float64"),
    "special_f32": f"[sp ** e for e in {EXPS!r}] + [sp ** e for e in (0.0, 1.0, float('inf'), -float('inf'), float('nan'))]",
    "special_f64": f"s = sp.double()\n[s ** e for e in {EXPS!r}] + [s ** e for e in (0.0, 1.0, float('inf'), -float('inf'), float('nan'))]",
    "strided": "(x[::2] ** 8, x.double()[::3] ** 7.5)",
    "out": "o = torch.empty(0)\ntorch.pow(x, 9, out=o)\no",
    "inplace": "y = x.clone()\ny.pow_(1 / 3)\ny",
    "aten": "torch.ops.aten.pow.Tensor_Scalar(x, 11)",
    "method": "x.pow(13)",
    "long_run": "torch.manual_seed(1)\na = torch.randn(40000)\n(a ** 8, a.double() ** 8)",
    "batch": "x.reshape(10, 100) ** 5",
}, setup=S)
cases("pow_bits_tensor", {
    "f32": "[torch.pow(x, torch.full_like(x, e)) for e in (-3., -2., -1., 0.5, 2., 3., 8., 2.5)]",
    "f64": "xd = x.double()\n[torch.pow(xd, torch.full_like(xd, e)) for e in (-3., -2., -1., 0.5, 2., 3., 8., 2.5)]",
    "both_vary": "(torch.pow(x.abs(), x), torch.pow(x.double().abs(), x.double()))",
    "broadcast_exp": "(torch.pow(x.abs(), torch.tensor(1.7)), torch.pow(torch.tensor(1.3), x))",
    "special": "torch.pow(sp, sp.flip(0))",
    "dunder": "x.abs() ** x",
}, setup=S)
cases("pow_bits_bf16", {
    "cube": "xb = x.bfloat16()\n(xb ** 3, xb.abs() ** 3)",
    "minus_two": "xb = x.bfloat16()\nxb ** -2",
    "rsqrt": "xb = x.abs().bfloat16()\nxb ** -0.5",
    "others": "xb = x.bfloat16()\n[xb ** e for e in (2, -1, 0.5, 4, 1 / 3)]",
}, setup=S)
