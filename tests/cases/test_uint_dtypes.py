
# float8_e4m3fn / float8_e5m2: every float32 whose top 20 bits vary (all grid points, midpoints and
# their neighbours), every code out to the other dtypes (bits compared: NaN payloads too)
F8 = """
bits = torch.arange(0, 2**20, dtype=torch.int64) << 12
f = torch.cat([bits, bits + 1, bits + 0x800, bits + 0x7FF]).to(torch.int32).view(torch.float32)
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
    c[f"from_f32_{d}"] = f"digest(f.to(torch.{d}))"
    c[f"from_f64_{d}"] = f"digest((f.double() * (1 + 2**-30)).to(torch.{d}))"  # rounds through float
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
