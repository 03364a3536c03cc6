"""uint16 / uint32 / uint64 casts and fills (issue #11 item 5, docs/outdev.md "Fuzz corpus
exceptions", third round), compared with upstream's values and errors: out-of-range float ->
uint conversions are the platform's (measured on an AVX-512 host: float -> uint16 through int32,
-> uint32 through int64 or, over contiguous runs, the vectorised rule, -> uint64 the compiler's
unsigned sequence); fills and torch.tensor check overflow as c10 does (a negative int wraps)."""
from harness import cases

SETUP = """
def err(f):
    try:
        r = f()
        return ("ok", r.tolist() if hasattr(r, "tolist") else r)
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
V = [0., 1.5, -1.5, 255.9, 65535., 65536., 70000., -1., -70000., 2.**31, 2.**32, 5e9, -5e9, 2.**63,
     2.**64, 1e20, -1e20, math.inf, -math.inf, math.nan, -0.5, 4294967295., 3e9, -3e9, 1e10, -2.**31]
import math
V = [float(v) for v in V]
v64 = torch.tensor(V, dtype=torch.float64)
I = torch.tensor([0, 1, -1, 2**63 - 1, -2**63, 70000, -70000, 2**40 + 5, 4294967041])
U = [torch.uint16, torch.uint32, torch.uint64]
"""
SETUP = "import math\n" + SETUP

FLOATS = ["float64", "float32", "float16", "bfloat16", "complex64", "complex128"]
c = {}
for s in FLOATS:
    for d in ("uint16", "uint32", "uint64"):
        x = f"v64.to(torch.{s})"
        # whole contiguous runs of 26 / 13 / 9 / 5 (the vectorised blocks and their tails)
        c[f"{s}_to_{d}_runs"] = f"[{x}[:n].to(torch.{d}).tolist() for n in (26, 13, 9, 5, 1)]"
        c[f"{s}_to_{d}_strided"] = f"torch.stack([{x}, {x}], 1)[:, 0].to(torch.{d}).tolist()"
        c[f"{s}_to_{d}_rows"] = f"[{x}.view(2, 13).to(torch.{d}).tolist(), {x}.view(2, 13)[:, :9].to(torch.{d}).tolist()]"
        c[f"{s}_to_{d}_expand"] = f"{x}[11:12].expand(8).to(torch.{d}).tolist()"
cases("uint_cast_from_float", c, setup=SETUP)

c = {}
INTS = ["uint16", "uint32", "uint64", "int64", "int32", "int16", "int8", "uint8", "bool"]
for s in INTS:
    for d in INTS + ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"]:
        if s == d or ("uint" not in s or s == "uint8") and ("uint" not in d or d == "uint8"):
            continue
        c[f"{s}_to_{d}"] = f"I.to(torch.{s}).to(torch.{d}).tolist()"
c["uint64_big_to_floats"] = ("[torch.tensor([2**63, 2**63 + 1025, 2**64 - 1, 2**64 - 1025, 2**53 + 1, 2**60 + 2**36 + 1], "
                             "dtype=torch.uint64).to(dt).tolist() for dt in (torch.float32, torch.float64, torch.float16, "
                             "torch.bfloat16, torch.complex64, torch.int64, torch.uint32)]")
c["copy_into_uint32"] = "torch.zeros(8, 2, dtype=torch.uint32)[:, 0].copy_(v64[:8] * 1e9).tolist()"
c["copy_from_uint64"] = "torch.zeros(3, dtype=torch.float32).copy_(torch.tensor([1, 2**64 - 1, 7], dtype=torch.uint64)).tolist()"
cases("uint_cast_int", c, setup=SETUP)

c = {}
for d in ("uint16", "uint32", "uint64"):
    for k, v in [("5", "5"), ("neg1", "-1"), ("70000", "70000"), ("neg70000", "-70000"), ("2p40", "2**40"),
                 ("neg2p40", "-2**40"), ("f1p5", "1.5"), ("fneg1p5", "-1.5"), ("f1e20", "1e20"), ("nan", "math.nan"),
                 ("inf", "math.inf"), ("true", "True"), ("c3", "3+0j"), ("c3j", "3+1j")]:
        c[f"fill_{d}_{k}"] = f"err(lambda: torch.zeros(3, dtype=torch.{d}).fill_({v}))"
        c[f"full_{d}_{k}"] = f"err(lambda: torch.full((2,), {v}, dtype=torch.{d}))"
        c[f"tensor_{d}_{k}"] = f"err(lambda: torch.tensor([{v}], dtype=torch.{d}))"
    c[f"tensor_{d}_2p63"] = f"err(lambda: torch.tensor([2**63], dtype=torch.{d}))"
    c[f"tensor_{d}_2p64m1"] = f"err(lambda: torch.tensor([2**64 - 1], dtype=torch.{d}))"
    c[f"tensor_{d}_2p64"] = f"err(lambda: torch.tensor([2**64], dtype=torch.{d}))"
    c[f"fill_{d}_2p63"] = f"err(lambda: torch.zeros(3, dtype=torch.{d}).fill_(2**63))"
    c[f"zeros_ones_{d}"] = f"[torch.zeros(2, dtype=torch.{d}).tolist(), torch.ones(2, dtype=torch.{d}).tolist()]"
cases("uint_fill", c, setup=SETUP)

# float8_e4m3fn / float8_e5m2: every float32 whose top 16 bits vary and its neighbours (all grid
# points, midpoints and one ulp either side), every code out to the other dtypes (bits compared: NaN payloads too)
F8 = """
def grid():  # float32 over all top 16 bits, each with its neighbours one ulp below and above
    b = torch.arange(0, 2**16, dtype=torch.int64) << 16
    return torch.cat([b, b + 1, b - 1]).remainder(2**32).to(torch.int32).view(torch.float32)
def bitsof(r):
    if r.dtype.is_complex:
        r = torch.view_as_real(r).contiguous()
    if r.dtype.is_floating_point:
        r = r.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[r.dtype.itemsize])
    return r.to(torch.int64) if r.dtype != torch.uint64 else r.view(torch.int64)
def digest(r):
    r = bitsof(r).flatten()
    return [r.numel(), int(r.sum()), int((r * torch.arange(r.numel()) % 1000003).sum()), r[:64].tolist()]
def codes(dt):
    return torch.arange(256).to(torch.uint8).view(dt)
"""
c = {}
for d in ("float8_e4m3fn", "float8_e5m2"):
    c[f"from_f32_{d}"] = f"digest(grid().to(torch.{d}))"
    c[f"from_f64_{d}"] = f"digest((grid().double() * (1 + 2**-30)).to(torch.{d}))"  # rounds through float
    for o in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool",
              "uint16", "uint32", "uint64", "complex64"):
        c[f"{d}_to_{o}"] = f"digest(codes(torch.{d}).to(torch.{o}))"
    for s in ("int64", "int32", "float16", "bfloat16", "uint16", "uint64", "bool"):
        c[f"{s}_to_{d}"] = (f"digest(torch.tensor([0, 1, -1, 3, 17, 255, 500, 60000, 70000, 2**40])"
                            f".clamp(min={0 if s in ('uint16', 'uint64', 'bool') else -2**62}).to(torch.{s}).to(torch.{d}))")
    for k, v in [("5", "5"), ("neg1p5", "-1.5"), ("460", "460."), ("57344", "57344"), ("70000", "70000"),
                 ("inf", "math.inf"), ("nan", "math.nan"), ("true", "True"), ("c3", "3+0j")]:
        c[f"fill_{d}_{k}"] = f"err(lambda: digest(torch.zeros(3, dtype=torch.{d}).fill_({v})))"
        c[f"full_{d}_{k}"] = f"err(lambda: digest(torch.full((2,), {v}, dtype=torch.{d})))"
    c[f"ones_like_{d}"] = f"digest(torch.ones_like(torch.zeros(2, 3, dtype=torch.{d})))"
cases("float8_cast", c, setup=SETUP + F8)

# ops whose kernels upstream does not build for these dtypes, reached now that the casts exist
cases("uint_float8_refusals", {
    "ldexp_u16": "err(lambda: torch.ldexp(torch.ones(2), torch.tensor([1, 2], dtype=torch.uint16)))",
    "ldexp_inplace_u32": "err(lambda: torch.ones(2).ldexp_(torch.tensor([1, 2], dtype=torch.uint32)))",
    "ldexp_out_u64": "err(lambda: torch.ldexp(torch.ones(2), torch.tensor([1, 2], dtype=torch.uint64), out=torch.empty(2)))",
    "logsumexp_out_int": "err(lambda: torch.logsumexp(torch.ones(2, 3), [0], out=torch.empty(3, dtype=torch.int32)))",
    "logsumexp_out_bool_bad_dim": "err(lambda: torch.logsumexp(torch.ones(2, 3), [5], out=torch.empty(3, dtype=torch.bool)))",
    "logsumexp_out_uint16": "err(lambda: torch.special.logsumexp(torch.ones(2, 3), [0], out=torch.empty(3, dtype=torch.uint16)))",
    "logsumexp_out_float8": "err(lambda: torch.logsumexp(torch.ones(2, 3), [0], out=torch.empty(3, dtype=torch.float8_e5m2)))",
    "logsumexp_out_float8_bad_dim": "err(lambda: torch.logsumexp(torch.ones(2, 3), [5], out=torch.empty(3, dtype=torch.float8_e4m3fn)))",
    "logsumexp_out_complex": "torch.logsumexp(torch.ones(2, 3), [0], out=torch.empty(3, dtype=torch.complex64))",
}, setup=SETUP)

# data movement upstream runs for uint16/32/64 and float8 (values by their bits); flip of a
# non-contiguous tensor is upstream's "flip_cpu" refusal (a contiguous one runs there: left)
MOVE = """
def bits(r):
    if r.dtype.is_floating_point:
        r = r.view(torch.uint8) if r.dtype.itemsize == 1 else r.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[r.dtype.itemsize])
    return (str(r.dtype), tuple(r.shape), r.stride(), r.to(torch.int64).tolist() if r.dtype != torch.uint64 else r.view(torch.int64).tolist())
"""
c = {}
for d in ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"):
    a = f"torch.tensor([[1, 2, 7], [3, 0, 5], [9, 8, 6]]).to(torch.{d})"
    c[f"cat_{d}"] = f"a = {a}; bits(torch.cat([a, a.t()], 1))"
    c[f"cat0_{d}"] = f"a = {a}; bits(torch.cat([a[:1], a]))"
    c[f"stack_{d}"] = f"a = {a}; bits(torch.stack([a, a.t()], 2))"
    c[f"repeat_{d}"] = f"a = {a}; bits(a.t().repeat(2, 1, 3))"
    c[f"roll_{d}"] = f"a = {a}; bits(a.roll(1))"
    c[f"roll2_{d}"] = f"a = {a}; bits(a.t().roll((1, -1), (0, 1)))"
    c[f"diag_{d}"] = f"a = {a}; bits(a.diag(1))"
    c[f"diag1_{d}"] = f"a = {a}; bits(a[0].diag(-1))"
    c[f"flip_strided_{d}"] = f"a = {a}; err(lambda: bits(a.t().flip(0)))"
cases("uint_float8_move", c, setup=SETUP + MOVE)

MIX = """
u = torch.ones(2, dtype=torch.uint16); f = torch.ones(2, dtype=torch.float8_e5m2)
i = torch.ones(2, dtype=torch.int32); e = torch.ones(0); h = torch.ones(2, dtype=torch.complex32)
"""
c = {}
for k, ts in [("u_i", "[u, i]"), ("i_u", "[i, u]"), ("f_u", "[f, u]"), ("u_f", "[u, f]"), ("f_empty", "[f, e]"),
              ("empty_f", "[e, f]"), ("f_c32", "[f, h]"), ("u_float", "[u, torch.ones(2)]")]:
    c[f"cat_{k}"] = f"err(lambda: torch.cat({ts}))"
    c[f"stack_{k}"] = f"err(lambda: torch.stack({ts}))"  # the sizes are checked before the promotion
cases("uint_float8_cat_promotion", c, setup=SETUP + MIX)
