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
