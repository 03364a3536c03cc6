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
for d in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"):
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

# ---- fourth round: the kernels upstream builds for uint16/32/64 ("barebones" unsigned support)
# and the float8 formats, and upstream's refusals of the rest (docs/outdev.md "Fourth round")
UOPS = SETUP + """
def val(r):
    if isinstance(r, torch.Tensor):
        return (str(r.dtype), tuple(r.shape), r.view(torch.int64).tolist() if r.dtype == torch.uint64 else r.tolist())
    if isinstance(r, tuple):
        return [val(x) for x in r]
    return r
def ev(f):
    try:
        return ("ok", val(f()))
    except Exception as e:
        return type(e).__name__  # refusals by type: ours may name the op, not upstream's kernel
def mk(d):
    return (torch.tensor([3, 1, 2**15 + 7, 0, 5, 60000]).to(torch.int64).to(d),
            torch.tensor([1, 1, 3, 0, 2**15 + 7, 9]).to(torch.int64).to(d))
"""
c = {}
for d in ("uint16", "uint32", "uint64"):
    for k, e in [
        ("eq", "a == b"), ("eq_s", "a == 1"), ("eq_neg", "a == -1"), ("eq_big", "a == 2**40"), ("eq_float", "a == 1.5"),
        ("eq_0dim", "a == torch.tensor(3)"), ("ne", "a != b"), ("ne_s", "a.ne(5)"), ("eq_fn_out", "torch.eq(a, b, out=torch.empty(6, dtype=a.dtype))"),
        ("eq_inplace", "a.clone().eq_(b)"), ("eq_bool_s", "a == True"), ("eq_strided", "a.view(2, 3).t() == b.view(3, 2)"),
        ("and", "a & b"), ("or", "a | b"), ("xor", "a ^ b"), ("and_s", "a & 3"), ("or_s", "a | -1"), ("xor_inplace", "a.clone().bitwise_xor_(b)"),
        ("and_bool", "a & True"), ("mul", "a * b"), ("mul_s", "a * 3"), ("mul_neg", "a * -1"), ("mul_inplace", "a.clone().mul_(b)"),
        ("mul_0dim_u", "a * b[0]"), ("mul_float", "a * 1.5"), ("div", "a / b"), ("div_s", "a / 4"),
        ("max_wrap", "torch.tensor([2**16 - 1, 2**32 - 1, 2**63 + 5], dtype=torch.uint64 if a.dtype == torch.uint64 else torch.int64).to(a.dtype) * 3"),
        ("add", "a + b"), ("add_s", "a + 1"), ("sub", "a - b"), ("lt", "a < b"), ("ge_s", "a >= 2"), ("floordiv", "a // b"),
        ("rem", "a % b"), ("lshift", "a << 1"), ("rshift_t", "a >> b"), ("maximum", "torch.maximum(a, b)"), ("fmax", "torch.fmax(a, b)"),
        ("logical_and", "torch.logical_and(a, b)"), ("pow", "a ** 2"), ("neg", "-a"), ("abs", "a.abs()"), ("not", "~a"),
        ("sign", "a.sign()"), ("sgn", "a.sgn()"), ("relu", "torch.relu(a)"), ("frac", "a.frac()"), ("logical_not", "a.logical_not()"),
        ("ceil", "a.ceil()"), ("floor", "a.floor()"), ("round", "a.round()"), ("trunc", "a.trunc()"), ("fix", "a.fix()"),
        ("isnan", "a.isnan()"), ("isinf", "a.isinf()"), ("isfinite", "a.isfinite()"), ("isposinf", "a.isposinf()"),
        ("isneginf", "a.isneginf()"), ("signbit", "a.signbit()"), ("nan_to_num", "a.nan_to_num()"), ("nan_to_num_", "a.clone().nan_to_num_()"),
        ("sqrt", "a.sqrt()"), ("exp_out", "torch.exp(a, out=torch.empty(6))"),
        ("promote_int", "a + torch.ones(6, dtype=torch.int32)"), ("promote_eq_long", "a == torch.ones(6, dtype=torch.int64)"),
        ("promote_bool", "a * torch.ones(6, dtype=torch.bool)"), ("shape_first", "a + torch.ones(4, dtype=a.dtype)"),
        ("sum", "a.sum()"), ("sum_dim", "a.view(2, 3).sum(1, keepdim=True)"), ("sum_f32", "a.sum(dtype=torch.float32)"),
        ("sum_self_dtype", "a.sum(dtype=a.dtype)"), ("prod", "a.view(2, 3).prod(0)"), ("nansum", "a.nansum()"),
        ("cumsum", "a.cumsum(0)"), ("cumprod", "a.cumprod(0)"), ("cumsum_self_dtype", "a.cumsum(0, dtype=a.dtype)"),
        ("mean", "a.mean()"), ("any", "a.any()"), ("all", "a.all()"), ("any_dim", "a.view(2, 3).any(1)"), ("all_dim_keep", "a.view(2, 3).all(0, keepdim=True)"),
        ("amax", "a.amax()"), ("max", "a.max()"), ("max_dim", "a.max(0)"), ("argmax", "a.argmax()"), ("aminmax", "torch.aminmax(a)"),
        ("count_nonzero", "a.count_nonzero()"), ("nonzero", "a.nonzero()"),
        ("index", "a[torch.tensor([0, 5, 2])]"), ("index_mask", "a[a == 5]"), ("index_2d", "a.view(2, 3)[:, [2, 0]]"),
        ("index_select", "a.index_select(0, torch.tensor([1]))"), ("index_put", "a.clone().index_put_((torch.tensor([1]),), b[:1])"),
        ("setitem_int", "(lambda x: (x.__setitem__(1, 9), x)[1])(a.clone())"), ("gather", "a.gather(0, torch.tensor([1, 0]))"),
        ("take", "a.take(torch.tensor([1]))"), ("index_fill", "a.clone().index_fill_(0, torch.tensor([1]), 4)"),
        ("index_fill_bad_value", "a.clone().index_fill_(0, torch.tensor([1]), torch.ones(2))"),
        ("index_copy", "a.clone().index_copy_(0, torch.tensor([1]), b[:1])"), ("index_add", "a.clone().index_add_(0, torch.tensor([1]), b[:1])"),
        ("topk", "a.topk(2)"), ("topk_bad_k", "a.topk(9)"), ("cummax", "a.cummax(0)"), ("cummin", "a.cummin(0)"),
        ("trace", "a.view(2, 3).trace()"), ("searchsorted", "torch.searchsorted(a.sort()[0], b)"),
        ("sort", "a.sort()"), ("argsort_stable", "a.argsort(stable=True)"), ("unique", "a.unique()"),
        ("equal", "torch.equal(a, b)"), ("equal_self", "torch.equal(a, a)"), ("equal_long", "torch.equal(a, a.long())"),
        ("isclose", "torch.isclose(a, b)"), ("isclose_atol", "torch.isclose(a, b, atol=2)"), ("isclose_rtol", "torch.isclose(a, b, rtol=0.5, atol=0)"),
        ("allclose", "torch.allclose(a, a.clone())"), ("clamp", "a.clamp(1, 3)"), ("where", "torch.where(a == 5, a, b)"),
        ("masked_fill", "a.masked_fill(a == 5, 7)"), ("mm", "a.view(6, 1).mm(b.view(1, 6))"), ("tril", "a.view(2, 3).tril()"),
    ]:
        c[f"{d}_{k}"] = f"a, b = mk(torch.{d}); ev(lambda: {e})"
cases("uint_barebones_ops", c, setup=UOPS)

# float8: every code of each format (views of the 256 bytes), so NaN / zero / sign rules are covered
F8OPS = SETUP + F8 + """
def ev(f):
    try:
        r = f()
        return ("ok", digest(r) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        return type(e).__name__  # refusals by type: ours may name the op, not upstream's kernel
"""
c = {}
for d in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"):
    x = f"codes(torch.{d})"
    for k, e in [
        ("eq_all_pairs", f"{x}.view(256, 1) == {x}.view(1, 256)"), ("ne_all_pairs", f"{x}.view(256, 1) != {x}.view(1, 256)"),
        ("eq_scalar", f"{x} == 2"), ("abs", f"{x}.abs()"), ("abs_", f"{x}.clone().abs_()"), ("isnan", f"{x}.isnan()"),
        ("isinf", f"{x}.isinf()"), ("isfinite", f"{x}.isfinite()"), ("isposinf", f"{x}.isposinf()"), ("signbit", f"{x}.signbit()"),
        ("neg", f"-{x}"), ("sign", f"{x}.sign()"), ("nan_to_num", f"{x}.nan_to_num()"), ("logical_not", f"{x}.logical_not()"),
        ("any", f"{x}.any()"), ("all", f"{x}.all()"), ("any_dim", f"{x}.view(16, 16).any(1)"), ("all_dim", f"{x}.view(16, 16).all(0)"),
        ("sum", f"{x}.sum()"), ("prod", f"{x}.prod()"), ("cumsum", f"{x}.cumsum(0)"), ("mean", f"{x}.mean()"), ("amax", f"{x}.amax()"),
        ("index", f"{x}[torch.tensor([255, 0, 127, 128])]"), ("index_select", f"{x}.index_select(0, torch.tensor([200, 3]))"),
        ("index_put", f"{x}.clone().index_put_((torch.tensor([1, 4]),), {x}[250:252])"),
        ("index_put_acc_u", f"{x}.clone().index_put_((torch.tensor([1]),), {x}[:1], accumulate=False)"),
        ("equal_clone", f"torch.equal({x}, {x}.clone())"), ("equal_self", f"(lambda c_: torch.equal(c_, c_))({x})"),
        ("equal_other", f"torch.equal({x}[:8], {x}[1:9])"), ("isclose", f"torch.isclose({x}, {x})"),
        ("take", f"{x}.take(torch.tensor([1]))"), ("index_fill", f"{x}.clone().index_fill_(0, torch.tensor([1]), 2)"),
        ("index_copy", f"{x}.clone().index_copy_(0, torch.tensor([1]), {x}[:1])"), ("sort", f"{x}.sort()"), ("unique", f"{x}.unique()"),
        ("add", f"{x} + {x}"), ("lt", f"{x} < {x}"), ("and", f"{x} & {x}"), ("maximum", f"torch.maximum({x}, {x})"),
        ("fmax", f"torch.fmax({x}, {x})"), ("mul_scalar", f"{x} * 2"), ("mul_0dim", f"{x} * {x}[3]"), ("mul_one_elem", f"{x} * {x}[3:4]"),
        ("promote", f"{x} == torch.ones(256)"),
    ]:
        c[f"{d}_{k}"] = f"ev(lambda: {e})"
for d in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"):
    x = f"codes(torch.{d})"
    c[f"{d}_mul_all_pairs"] = f"ev(lambda: {x}.view(256, 1) * {x}.view(1, 256))"
    c[f"{d}_mul_inplace"] = f"ev(lambda: {x}.clone().mul_({x}.flip(0).contiguous()))"
    c[f"{d}_mul_lhs_one"] = f"ev(lambda: {x}[3:4] * {x})"
    c[f"{d}_sum_f32"] = f"ev(lambda: {x}.view(16, 16).sum(1, dtype=torch.float32))"
    c[f"{d}_cumsum_f64"] = f"ev(lambda: {x}[:100].cumsum(0, dtype=torch.float64))"
    c[f"{d}_equal_nan"] = f"ev(lambda: torch.equal({x}[120:130], {x}[120:130].clone()))"
    c[f"{d}_index_put_acc"] = f"ev(lambda: {x}.clone().index_put_((torch.tensor([1, 5, 1, 200, 1]),), {x}[60:65], accumulate=True))"
    c[f"{d}_index_put_acc_all"] = (f"ev(lambda: {x}[:128].clone().index_put_((torch.arange(128) % 7,), "
                                   f"{x}[torch.arange(255, 127, -1)], accumulate=True))")
cases("float8_barebones_ops", c, setup=F8OPS)

# complex32 (ComplexHalf): casts, printing, views, and the few kernels upstream builds for it on CPU
C32 = SETUP + """
import warnings
warnings.simplefilter("ignore")
def ev(f):
    try:
        r = f()
        if isinstance(r, torch.Tensor):
            b = torch.view_as_real(r).contiguous().view(torch.int16) if r.dtype == torch.complex32 else r
            return ("ok", str(r.dtype), tuple(r.shape), r.stride(), b.view(torch.int16).tolist() if b.dtype == torch.float16 else b.tolist())
        return ("ok", r)
    except Exception as e:
        return type(e).__name__  # refusals by type: ours may name the op, not upstream's kernel
G = torch.tensor([0., -0., 1., -1.5, 3.14159, 1e-6, 6e-8, 65504., 65520., 7e4, -1e5, math.inf, -math.inf, math.nan, 0.1, 2.5e-5])
Z64 = torch.complex(G.view(4, 4), G.flip(0).view(4, 4))
z = Z64.to(torch.complex32)
zf = torch.tensor([1 + 2j, -0.5 + 3j, 100 - 7j, 0.1 + 0.2j]).to(torch.complex32)  # finite: see docs/outdev.md on inf - inf
"""
c = {}
for k, e in [
    ("from_c64", "z"), ("from_c128", "Z64.to(torch.complex128).to(torch.complex32)"), ("from_f32", "G.to(torch.complex32)"),
    ("from_f16", "G.half().to(torch.complex32)"), ("from_int", "torch.tensor([1, -3, 70000]).to(torch.complex32)"),
    ("from_bool", "torch.tensor([True, False]).to(torch.complex32)"), ("to_c64", "z.to(torch.complex64)"), ("to_c128", "z.to(torch.complex128)"),
    ("to_f32", "z.to(torch.float32)"), ("to_f16", "z.to(torch.float16)"), ("to_i64", "z[:2].to(torch.int64)"), ("to_bool", "z.to(torch.bool)"),
    ("tolist", "z.to(torch.complex64).tolist() == z.tolist()"), ("tolist_vals", "str(z[0].tolist())"), ("item", "str(z[0, 2].item())"),
    ("repr", "repr(z[:2, :2])"), ("view_as_real", "torch.view_as_real(z)"), ("view_as_complex", "torch.view_as_complex(G.half().view(8, 2))"),
    ("real", "z.real"), ("imag", "z.imag"), ("add", "z + (1 - 2j)"), ("sub", "z - 1"), ("mul", "z * z.t()"), ("neg", "-z"),
    ("neg_", "z.clone().neg_()"), ("neg_out", "torch.neg(z, out=torch.empty(0, dtype=torch.complex32))"), ("abs", "z.abs()"),
    ("abs_strided", "z.t().abs()"), ("abs_out", "torch.abs(z, out=torch.empty(0, dtype=torch.float16))"),
    ("abs_out_bad", "torch.abs(z, out=torch.empty(0, dtype=torch.float32))"), ("abs_", "z.clone().abs_()"),
    ("eq", "z == z.t()"), ("ne", "z != z"), ("eq_s", "z == 1"), ("eq_", "z.clone().eq_(z)"), ("isnan", "z.isnan()"),
    ("cat", "torch.cat([z, z[:1]])"), ("stack", "torch.stack([z, z.t()], 2)"), ("fill", "torch.zeros(3, dtype=torch.complex32).fill_(1 + 2j)"),
    ("full", "torch.full((2,), 3j, dtype=torch.complex32)"), ("ones", "torch.ones(2, dtype=torch.complex32)"),
    ("index", "z[[0, 3], 1:]"), ("index_mask", "z[z.isnan()]"), ("where", "torch.where(z.isnan(), z, z.t())"),
    ("copy", "torch.zeros(4, 4, dtype=torch.complex32).copy_(Z64)"), ("clone", "z.t().clone()"),
    ("sum", "z.sum()"), ("exp", "z.exp()"), ("sqrt", "z.sqrt()"), ("mm", "z @ z"), ("pow", "z ** 2"), ("reciprocal", "z.reciprocal()"),
    ("div", "z / z"), ("rsub", "torch.rsub(zf, 1 - 2j)"), ("rsub_alpha", "torch.rsub(zf, zf.flip(0), alpha=2)"),
    ("subtract", "torch.subtract(z, 0.5)"), ("subtract_", "zf.clone().subtract_(zf[1])"), ("promote_f32", "z + torch.ones(4)"), ("promote_c64", "z * torch.ones(4, dtype=torch.complex64)"),
]:
    c[f"c32_{k}"] = f"ev(lambda: {e})"
cases("complex32_basics", c, setup=C32)

# random_ / randint into uint16/32/64: upstream's from-to kernel covers them (the same draws as
# the signed types); random_() without bounds and the full 64-bit range refuse
RND = SETUP + """
def ev(f):
    try:
        r = f()
        return ("ok", str(r.dtype), r.view(torch.int64).tolist() if r.dtype == torch.uint64 else r.tolist())
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
g = lambda s: torch.Generator().manual_seed(s)
"""
c = {}
for d in ("uint16", "uint32", "uint64"):
    for k, e in [("to", "torch.ones(9, dtype=D).random_(5, generator=g(1))"), ("from_to", "torch.ones(9, dtype=D).random_(3, 70, generator=g(2))"),
                 ("from", "torch.ones(5, dtype=D).random_(3, None, generator=g(6))"), ("randint", "torch.randint(0, 5, (7,), dtype=D, generator=g(3))"),
                 ("randint_wide", "torch.randint(0, 2**40, (3,), dtype=D, generator=g(4))"), ("randint_31", "torch.randint(2**29, 2**31, (4,), dtype=D, generator=g(5))"),
                 ("randint_neg", "torch.randint(-1, 5, (3,), dtype=D)"), ("plain", "torch.ones(3, dtype=D).random_()"),
                 ("full64", "torch.ones(3, dtype=D).random_(-2**63, None)"), ("full64_empty", "torch.ones(0, dtype=D).random_(-2**63, None)"),
                 ("randint_like", "torch.randint_like(torch.ones(4, dtype=D), 10, generator=g(7))")]:
        c[f"{d}_{k}"] = f"D = torch.{d}; ev(lambda: {e})"
cases("uint_random", c, setup=RND)

# more byte-moving ops upstream runs for float8 / complex32, and the sort family's refusals
MORE = SETUP + """
import warnings
warnings.simplefilter("ignore")
def bitsv(r):
    if r.dtype.is_complex:
        r = torch.view_as_real(r)
    if r.dtype.is_floating_point:
        r = r.contiguous().view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[r.dtype.itemsize])
    return r.to(torch.int64).tolist() if r.dtype != torch.uint64 else r.view(torch.int64).tolist()
def ev(f):
    try:
        r = f()
        r = r[0] if isinstance(r, tuple) else r
        return ("ok", str(r.dtype), tuple(r.shape), r.stride(), bitsv(r))
    except NotImplementedError:  # a missing kernel: ours may name the op rather than upstream's kernel
        return "NotImplementedError"
    except Exception as e:
        return (type(e).__name__, str(e).split("\\n")[0])
M = torch.tensor([True, False, True, False])
def src(d):
    if d in (torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.float8_e8m0fnu):
        return torch.tensor([0, 56, 64, 200], dtype=torch.uint8).view(d)
    return torch.tensor([0, 1, 2, 0]).to(d)
"""
c = {}
for d in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "complex32", "uint16", "uint64"):
    for k, e in [("eye", "torch.eye(3, dtype=D)"), ("eye_nm", "torch.eye(2, 3, dtype=D)"), ("eye_out", "torch.eye(2, out=torch.empty(5, dtype=D))"),
                 ("masked_select", "src(D).masked_select(M)"), ("masked_select_bcast", "src(D).view(4, 1).expand(4, 2).masked_select(M.view(4, 1))"),
                 ("masked_fill", "src(D).masked_fill(M, 1)"), ("index_select", "src(D).index_select(0, torch.tensor([1, 3]))"),
                 ("nonzero", "src(D).nonzero()"), ("masked_scatter", "src(D).masked_scatter(M, src(D))"),
                 ("sort", "src(D).sort()"), ("argsort_stable", "src(D).argsort(stable=True)"), ("topk", "src(D).topk(1)"),
                 ("msort", "src(D).msort()")]:
        c[f"{d}_{k}"] = f"D = torch.{d}; ev(lambda: {e})"
for k, e in [("sort_c64", "torch.ones(3, dtype=torch.complex64).sort()"), ("topk_c64", "torch.ones(3, dtype=torch.complex64).topk(1)"),
             ("argsort_c128", "torch.ones(3, dtype=torch.complex128).argsort()")]:
    c[k] = f"ev(lambda: {e})"
cases("float8_complex32_more", c, setup=MORE)

# float8 matrix products: upstream runs mm / addmm (not e8m0fnu) as float sums rounded once; mv,
# dot, bmm, baddbmm and unfoldable batched matmul refuse; out= must have the result's dtype
MMF8 = MORE + """
g = torch.Generator().manual_seed(0)
def ab(d, m=7, k=33, n=5, s=3.0):
    return (torch.randn(m, k, generator=g) * s).to(d), (torch.randn(k, n, generator=g) * s).to(d), torch.randn(n, generator=g).to(d)
"""
c = {}
for d in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"):
    for k, e in [("mm", "a @ b"), ("mm_small", "(lambda a, b, c: a @ b)(*ab(D, 3, 4, 2, 0.3))"), ("mm_t", "a.t().contiguous().t() @ b"),
                 ("mm_out", "torch.mm(a, b, out=torch.empty(0, dtype=D))"), ("mm_out_f32", "torch.mm(a, b, out=torch.empty(0))"),
                 ("addmm", "torch.addmm(bias, a, b, beta=0.5, alpha=2)"), ("matmul_fold", "torch.matmul(a[None], b)"),
                 ("matmul_batched", "torch.matmul(a[None].expand(2, 7, 33), b[None].expand(2, 33, 5))"), ("mv", "a @ b[:, 0]"),
                 ("vm", "a[0] @ b"), ("dot", "a[0] @ a[1]"), ("bmm", "torch.bmm(a[None], b[None])"),
                 ("baddbmm", "torch.baddbmm(bias.expand(1, 7, 5), a[None], b[None])"), ("linear", "torch.nn.functional.linear(a, b.t())"),
                 ("linear_bias", "torch.nn.functional.linear(a, b.t(), bias)"), ("linear_bias_3d", "torch.nn.functional.linear(a.view(7, 1, 33), b.t(), bias)"),
                 ("empty_k", "a[:, :0] @ b[:0]"), ("mixed", "a @ b.to(torch.float32)")]:
        c[f"{d}_{k}"] = f"D = torch.{d}; a, b, bias = ab(D); ev(lambda: {e})"
cases("float8_matmul", c, setup=MMF8)
