"""check_kernels.py — compare the reference elementwise kernels with upstream torch 2.13.0.

Builds src/kernels/ref/*.c + src/core/{dtype,iter,tensor}.c into a shared library under /tmp,
drives every loop from src/kernels/elementwise.h through ctypes on numpy buffers, and compares
against upstream torch (run with /work/main/.venv-ref/bin/python) on edge-case values (0, -0,
+-1, halves, large, tiny, subnormal, NaN, +-inf, integer extremes) plus random values. Each loop
runs on a contiguous buffer, on strided buffers, and (binary) with a broadcast second operand.
Reports per (op, dtype): exact matches, within-1-ulp, worst ulp, mismatches; plus "missing"
(upstream computes it in that dtype but our lookup returns NULL) and "extra" (we have a loop,
upstream refuses that dtype). Usage: check_kernels.py [-v] [filter-substring]
"""
import ctypes, os, re, subprocess, sys, math, warnings
import numpy as np
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = "/tmp/tn_check_kernels"
VERBOSE = "-v" in sys.argv
FILT = [a for a in sys.argv[1:] if not a.startswith("-")]


def build():
    os.makedirs(OUT, exist_ok=True)
    srcs = [os.path.join(ROOT, "src/kernels/ref", f) for f in ("unary.c", "binary.c", "cast.c")]
    srcs += [os.path.join(ROOT, "src/core", f) for f in ("dtype.c", "iter.c", "tensor.c")]
    lib = os.path.join(OUT, "libtn_ew.so")
    cmd = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "src"), *srcs, "-o", lib, "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode or r.stderr.strip():
        print(r.stderr)
        if r.returncode:
            sys.exit(1)
    return ctypes.CDLL(lib)


def xlist(header, macro):
    txt = open(os.path.join(ROOT, header)).read()
    m = re.search(r"#define %s\(X\)(.*?)\n\n" % macro, txt, re.S)
    return [a for a, _ in re.findall(r"X\((\w+),\s*(\w+)", m.group(1))]


def dtype_list():
    txt = open(os.path.join(ROOT, "src/core/dtype.h")).read()
    m = re.search(r"#define TN_DTYPES\(X\)(.*?)\n\n", txt, re.S)
    return re.findall(r"X\((\w+),", m.group(1))


lib = build()
DT = {n: i for i, n in enumerate(dtype_list())}
UN = {n: i for i, n in enumerate(xlist("src/kernels/elementwise.h", "TN_UNARY_OPS"))}
BIN = {n: i for i, n in enumerate(xlist("src/kernels/elementwise.h", "TN_BINARY_OPS"))}
for f in ("tn_unary_loop", "tn_binary_loop", "tn_binary_scalar_loop", "tn_cast_loop"):
    getattr(lib, f).restype = ctypes.c_void_p
for f in ("tn_pow_scalar_loop", "tn_where_loop", "tn_clamp_loop", "tn_clamp_tensor_loop", "tn_fill_loop"):
    getattr(lib, f).restype = ctypes.c_void_p
lib.tn_unary_out_dtype.restype = ctypes.c_int
lib.tn_binary_out_dtype.restype = ctypes.c_int
LOOP = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_void_p)


class Scalar(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double), ("i", ctypes.c_int64)]


class UParams(ctypes.Structure):
    _fields_ = [("beta", ctypes.c_double), ("threshold", ctypes.c_double), ("eps", ctypes.c_double), ("has_eps", ctypes.c_bool)]


class ClampP(ctypes.Structure):
    _fields_ = [("has_min", ctypes.c_bool), ("has_max", ctypes.c_bool), ("min", Scalar), ("max", Scalar)]


def scal(v):
    if isinstance(v, complex):
        return Scalar(v.real, v.imag, 0)
    if isinstance(v, bool) or isinstance(v, int):
        return Scalar(float(v), 0.0, int(v))
    return Scalar(v, 0.0, int(v) if math.isfinite(v) and abs(v) < 9e18 else 0)


# dtype name (ours) -> torch dtype, numpy storage dtype
TD = {"U8": torch.uint8, "I8": torch.int8, "I16": torch.int16, "I32": torch.int32, "I64": torch.int64,
      "F16": torch.float16, "F32": torch.float32, "F64": torch.float64, "C64": torch.complex64,
      "C128": torch.complex128, "BOOL": torch.bool, "BF16": torch.bfloat16}
ND = {"U8": np.uint8, "I8": np.int8, "I16": np.int16, "I32": np.int32, "I64": np.int64, "F16": np.uint16,
      "F32": np.float32, "F64": np.float64, "C64": np.complex64, "C128": np.complex128, "BOOL": np.uint8,
      "BF16": np.uint16}
NAME_OF = {v: k for k, v in DT.items()}
DTYPES = list(TD)


def to_np(t):
    t = t.contiguous()
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.view(torch.int16).numpy().view(np.uint16).copy()
    if t.dtype == torch.bool:
        return t.numpy().view(np.uint8).copy()
    return t.numpy().copy()


def run(loop_addr, outdt, ins, stride_mult=1, bcast_last=False, ctx=None):
    """Run a loop on numpy inputs (storage arrays), return the output storage array."""
    n = len(ins[0]) if ins else 16
    fn = LOOP(loop_addr)
    bufs, strides, keep = [], [], []
    out = np.zeros(n * stride_mult, dtype=ND[outdt])
    bufs.append(out.ctypes.data); strides.append(out.itemsize * stride_mult)
    for j, a in enumerate(ins):
        if bcast_last and j == len(ins) - 1:
            b = np.ascontiguousarray(a[:1]); st = 0
        else:
            b = np.zeros(n * stride_mult, dtype=a.dtype); b[::stride_mult] = a; st = a.itemsize * stride_mult
        keep.append(b); bufs.append(b.ctypes.data); strides.append(st)
    data = (ctypes.c_void_p * len(bufs))(*bufs)
    st = (ctypes.c_int64 * len(strides))(*strides)
    fn(data, st, n, ctypes.cast(ctypes.pointer(ctx), ctypes.c_void_p) if ctx is not None else None)
    return out[::stride_mult].copy()


def ordered(bits, width):
    bits = bits.astype(np.int64)
    sign = 1 << (width - 1)
    mag = bits & (sign - 1)
    return np.where(bits & sign, -mag, mag)


def ulps(got, exp, dt):
    """Per-element ulp distance (0 exact, inf for NaN/non-NaN or integer mismatch)."""
    if dt in ("F16", "BF16"):
        g, e = got.astype(np.int64), exp.astype(np.int64)
        nan = lambda b: ((b & 0x7fff) > (0x7c00 if dt == "F16" else 0x7f80))
        gn, en = nan(g), nan(e)
        d = np.abs(ordered(g, 16) - ordered(e, 16)).astype(np.float64)
        d[gn & en] = 0; d[gn ^ en] = np.inf
        return d
    if dt in ("F32", "F64"):
        w = 32 if dt == "F32" else 64
        iv = np.int32 if w == 32 else np.int64
        g, e = got.view(iv), exp.view(iv)
        gn, en = np.isnan(got), np.isnan(exp)
        if w == 64:
            d = np.array([abs(int(a) - int(b)) for a, b in zip(ordered_py(g), ordered_py(e))], dtype=np.float64)
        else:
            d = np.abs(ordered(g.view(np.uint32), 32) - ordered(e.view(np.uint32), 32)).astype(np.float64)
        d[gn & en] = 0; d[gn ^ en] = np.inf
        return d
    if dt in ("C64", "C128"):
        r = "F32" if dt == "C64" else "F64"
        fd = np.float32 if dt == "C64" else np.float64
        return np.maximum(ulps(np.ascontiguousarray(got.real.astype(fd)), np.ascontiguousarray(exp.real.astype(fd)), r),
                          ulps(np.ascontiguousarray(got.imag.astype(fd)), np.ascontiguousarray(exp.imag.astype(fd)), r))
    if dt == "BOOL":
        got, exp = got != 0, exp != 0
    return np.where(got == exp, 0.0, np.inf)


def ordered_py(a):
    out = []
    for v in a.tolist():
        out.append(-(v & ((1 << 63) - 1)) if v < 0 else v)
    return out


# ---- values ----
FLOAT_EDGE = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, -3.0, 0.25, 2.0, 7.0, -7.0, 10.0, -10.0,
              100.0, -100.0, 1e-3, -1e-3, 1e-30, -1e-30, 1e-40, 5e-324, 1e30, -1e30, 3.4e38, -3.4e38, 1e300, 65504.0,
              70000.0, 300.0, -129.0, 40000.0, 3e9 + 1, -3e9 - 1, 2.0**31, 2.0**63, 1e10, 0.9999, 1.0001, 20.0, -20.0,
              88.0, -88.0, 710.0, math.pi, -math.pi, 1e-8, float("nan"), float("inf"), float("-inf")]
rng = np.random.default_rng(0)
FLOAT_RAND = list(rng.standard_normal(60) * 3) + list(rng.uniform(-1, 1, 20)) + list(np.exp(rng.uniform(-20, 20, 20)))
INT_EDGE = {"I8": [0, 1, -1, 2, -2, 3, 7, -7, 8, 100, -100, 127, -128, 126, -127, 5, 64],
            "U8": [0, 1, 2, 3, 7, 8, 100, 127, 128, 200, 255, 254, 5, 64],
            "I16": [0, 1, -1, 2, -2, 3, 7, -7, 15, 16, 1000, -1000, 32767, -32768, 255, 256, 300],
            "I32": [0, 1, -1, 2, -2, 3, 7, -7, 31, 32, 65536, -65536, 2**31 - 1, -2**31, 123456, -99999, 46341],
            "I64": [0, 1, -1, 2, -2, 3, 7, -7, 63, 64, 2**32, -2**32, 2**63 - 1, -2**63, 3037000500, -123456789, 10**18]}


def values(dt, nrand=True):
    if dt in ("F16", "F32", "F64", "BF16"):
        v = FLOAT_EDGE + (FLOAT_RAND if nrand else [])
        return torch.tensor(v, dtype=torch.float64).to(TD[dt])
    if dt in ("C64", "C128"):
        re_ = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 30.0, -30.0, float("nan"), float("inf"), 100.0, -2.5]
        v = [complex(a, b) for a in re_ for b in re_[:9]] + ([complex(a, b) for a, b in rng.standard_normal((40, 2))] if nrand else [])
        return torch.tensor(v, dtype=TD[dt])
    if dt == "BOOL":
        return torch.tensor([False, True, True, False, True], dtype=torch.bool)
    v = INT_EDGE[dt] + (list(rng.integers(np.iinfo(ND[dt]).min, np.iinfo(ND[dt]).max, 30, endpoint=True)) if nrand else [])
    return torch.tensor([int(x) for x in v], dtype=TD[dt])


# ---- reporting ----
rows = []


def compare(kind, op, dt, got, expt, outdt, note=""):
    d = ulps(got, expt, outdt)
    exact = int((d == 0).sum()); one = int(((d > 0) & (d <= 1)).sum()); bad = int((d > 1).sum())
    worst = float(d.max()) if len(d) else 0.0
    rows.append((kind, op, dt, len(d), exact, one, bad, worst, note))
    return d


def show_bad(op, dt, ins, got, exp, d, outdt, lim=6):
    if not VERBOSE:
        return
    idx = np.nonzero(d > 1)[0][:lim]
    for i in idx:
        def fmt(a, t):
            if t in ("F16", "BF16"):
                return repr(torch.tensor([int(a)], dtype=torch.int16 if a < 32768 else torch.int32).to(torch.int16).view(TD[t]).item())
            return repr(a.item() if hasattr(a, "item") else a)
        print("    %s %s in=%s got=%s exp=%s" % (op, dt, [fmt(x[i], t) for x, t in ins], fmt(got[i], outdt), fmt(exp[i], outdt)))


UNARY_REF = {
    "neg": torch.neg, "abs": torch.abs, "square": torch.square, "reciprocal": torch.reciprocal, "sign": torch.sign,
    "exp": torch.exp, "exp2": torch.exp2, "expm1": torch.expm1, "log": torch.log, "log2": torch.log2, "log10": torch.log10,
    "log1p": torch.log1p, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin, "cos": torch.cos, "tan": torch.tan,
    "asin": torch.asin, "acos": torch.acos, "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh,
    "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh, "erf": torch.erf, "erfc": torch.erfc,
    "sigmoid": torch.sigmoid, "logit": torch.logit, "relu": torch.relu, "silu": F.silu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "mish": F.mish, "hardsigmoid": F.hardsigmoid,
    "hardswish": F.hardswish, "softplus": F.softplus, "ceil": torch.ceil, "floor": torch.floor, "round": torch.round,
    "trunc": torch.trunc, "frac": torch.frac, "logical_not": torch.logical_not, "bitwise_not": torch.bitwise_not,
    "isnan": torch.isnan, "isinf": torch.isinf, "isfinite": torch.isfinite, "isposinf": torch.isposinf,
    "isneginf": torch.isneginf, "signbit": torch.signbit,
}
BINARY_REF = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"), "remainder": torch.remainder,
    "fmod": torch.fmod, "pow": torch.pow, "maximum": torch.maximum, "minimum": torch.minimum, "fmax": torch.fmax,
    "fmin": torch.fmin, "atan2": torch.atan2, "hypot": torch.hypot, "copysign": torch.copysign,
    "nextafter": torch.nextafter, "logaddexp": torch.logaddexp, "xlogy": torch.xlogy, "eq": torch.eq, "ne": torch.ne,
    "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge, "logical_and": torch.logical_and,
    "logical_or": torch.logical_or, "logical_xor": torch.logical_xor, "bitwise_and": torch.bitwise_and,
    "bitwise_or": torch.bitwise_or, "bitwise_xor": torch.bitwise_xor, "lshift": torch.bitwise_left_shift,
    "rshift": torch.bitwise_right_shift,
}
INT_DIV = ("div_trunc", "div_floor", "remainder", "fmod")
support = []  # (kind, op, dt, status)


def want(op):
    return not FILT or any(f in op for f in FILT)


def ref_supported(fn, args, outdt):
    try:
        r = fn(*args)
    except Exception:
        return None, "raises"
    if r.dtype != TD[outdt]:
        return None, "promotes"
    return r, "ok"


def check_unary():
    for op, code in UN.items():
        name = op.lower()
        if not want(name):
            continue
        for dt in DTYPES:
            addr = lib.tn_unary_loop(code, DT[dt])
            outdt = NAME_OF[lib.tn_unary_out_dtype(code, DT[dt])]
            x = values(dt)
            r, st = ref_supported(UNARY_REF[name], (x,), outdt)
            if not addr:
                if st == "ok":
                    support.append(("unary", name, dt, "MISSING"))
                continue
            if st != "ok":
                support.append(("unary", name, dt, "extra (upstream %s)" % st))
                continue
            xin = to_np(x)
            got = run(addr, outdt, [xin])
            exp = to_np(r)
            d = compare("unary", name, dt, got, exp, outdt, "vec")
            show_bad(name, dt, [(xin, dt)], got, exp, d, outdt)
            # upstream's scalar path: one element at a time
            exp1 = np.concatenate([to_np(UNARY_REF[name](x[i:i + 1])) for i in range(len(x))])
            d = compare("unary", name, dt, got, exp1, outdt, "elem")
            show_bad(name, dt, [(xin, dt)], got, exp1, d, outdt)
            got2 = run(addr, outdt, [xin], stride_mult=3)
            if (ulps(got2, got, outdt) != 0).any():
                rows.append(("unary", name, dt, len(got), 0, 0, len(got), np.inf, "STRIDED PATH DIFFERS"))


def pair_values(dt):
    v = values(dt, nrand=False)
    n = len(v)
    a = v.repeat_interleave(n)
    b = v.repeat(n)
    ra, rb = values(dt), values(dt).flip(0)
    return torch.cat([a, ra]), torch.cat([b, rb])


def check_binary():
    for op, code in BIN.items():
        name = op.lower()
        if not want(name):
            continue
        for dt in DTYPES:
            addr = lib.tn_binary_loop(code, DT[dt])
            outdt = NAME_OF[lib.tn_binary_out_dtype(code, DT[dt])]
            a, b = pair_values(dt)
            if name in INT_DIV and dt in INT_EDGE:
                keep = (b != 0) & ~((a == torch.iinfo(TD[dt]).min) & (b == -1))
                a, b = a[keep], b[keep]
            fn = BINARY_REF[name]
            r, st = ref_supported(fn, (a, b), outdt)
            if not addr:
                if st == "ok":
                    support.append(("binary", name, dt, "MISSING"))
                continue
            if st != "ok":
                support.append(("binary", name, dt, "extra (upstream %s)" % st))
                continue
            ain, bin_ = to_np(a), to_np(b)
            got = run(addr, outdt, [ain, bin_])
            exp = to_np(r)
            d = compare("binary", name, dt, got, exp, outdt, "vec")
            show_bad(name, dt, [(ain, dt), (bin_, dt)], got, exp, d, outdt)
            m = min(len(a), 400)
            exp1 = np.concatenate([to_np(fn(a[i:i + 1], b[i:i + 1])) for i in range(m)])
            d = compare("binary", name, dt, got[:m], exp1, outdt, "elem")
            show_bad(name, dt, [(ain, dt), (bin_, dt)], got, exp1, d, outdt)
            got2 = run(addr, outdt, [ain, bin_], stride_mult=2)
            if (ulps(got2, got, outdt) != 0).any():
                rows.append(("binary", name, dt, len(got), 0, 0, len(got), np.inf, "STRIDED PATH DIFFERS"))
            # broadcast second operand (s[2] == 0 fast path)
            bb = b[:1].expand(len(a))
            rb = fn(a, bb)
            gotb = run(addr, outdt, [ain, to_np(bb.contiguous())], bcast_last=True)
            compare("binary", name, dt, gotb, to_np(rb), outdt, "bcast")
            # alpha
            if name in ("add", "sub") and dt != "BOOL":
                for alpha in ((0.3, -2.5, 1e-3) if dt in ("F16", "F32", "F64", "BF16") else (3, -1) if dt not in ("C64", "C128") else (0.3, 1 + 2j)):
                    ra = fn(a, b, alpha=alpha)
                    s = scal(alpha)
                    ga = run(addr, outdt, [ain, bin_], ctx=s)
                    compare("binary", name, dt, ga, to_np(ra), outdt, "alpha=%s" % alpha)


def check_scalar_variants():
    for opn in ("add", "sub", "mul", "div", "div_floor"):
        if not want(opn):
            continue
        fn = BINARY_REF[opn]
        for dt in DTYPES:
            addr = lib.tn_binary_scalar_loop(BIN[opn.upper()], DT[dt])
            if not addr:
                continue
            x = values(dt)
            nums = {"F": [0.1, 2.5, -3.7, 1e-3, 1e5, 3.0], "C": [0.1, 1 + 2j, -3.7], "I": [3, -2, 7, 0], "B": [True, False]}
            kind = "F" if dt in ("F16", "F32", "F64", "BF16") else "C" if dt in ("C64", "C128") else "B" if dt == "BOOL" else "I"
            for num in nums[kind]:
                if opn == "div_floor" and kind == "I" and num == 0:
                    continue
                try:
                    r = fn(x, num)
                except Exception:
                    continue
                if r.dtype != x.dtype:
                    continue
                got = run(addr, dt, [to_np(x)], ctx=scal(num))
                compare("scalar", opn, dt, got, to_np(r), dt, "num=%s" % num)
    if want("pow_scalar"):
        for dt in DTYPES:
            addr = lib.tn_pow_scalar_loop(DT[dt])
            if not addr:
                continue
            x = values(dt)
            exps = [2, 3, 0.5, -0.5, -1, -2, 0.3, 1.7, 4] if dt not in INT_EDGE else [0, 1, 2, 3, 5, 7]
            for e in exps:
                r = torch.pow(x, e)
                if r.dtype != x.dtype:
                    continue
                got = run(addr, dt, [to_np(x)], ctx=scal(e))
                d = compare("scalar", "pow_scalar", dt, got, to_np(r), dt, "e=%s" % e)
                show_bad("pow_scalar", dt, [(to_np(x), dt)], got, to_np(r), d, dt)


def check_ternary():
    for dt in DTYPES:
        x = values(dt)
        n = len(x)
        if want("where"):
            c = torch.tensor(rng.integers(0, 2, n).astype(bool))
            y = x.flip(0)
            got = run(lib.tn_where_loop(DT[dt]), dt, [to_np(c), to_np(x), to_np(y)])
            compare("ternary", "where", dt, got, to_np(torch.where(c, x, y)), dt, "")
            got2 = run(lib.tn_where_loop(DT[dt]), dt, [to_np(c), to_np(x), to_np(y)], stride_mult=2)
            compare("ternary", "where", dt, got2, to_np(torch.where(c, x, y)), dt, "strided")
        if want("clamp"):
            addr = lib.tn_clamp_loop(DT[dt])
            if not addr:
                if dt not in ("C64", "C128"):
                    support.append(("ternary", "clamp", dt, "MISSING"))
                continue
            isf = dt in ("F16", "F32", "F64", "BF16")
            if isf:
                bounds = [(0.0, 2.0), (float("nan"), 2.0), (3.0, 2.0), (None, 1.0), (-1.0, None), (-0.0, 0.0), (0.1, 0.7), (1.0, float("nan"))]
            elif dt == "BOOL":
                bounds = [(False, True), (True, None), (None, False)]
            else:
                bounds = [(0, 5), (-3, 100), (None, 7), (2, None), (10, 3)]
            for lo, hi in bounds:
                try:
                    r = torch.clamp(x, lo, hi)
                except Exception:
                    continue
                if r.dtype != x.dtype:
                    continue
                p = ClampP(lo is not None, hi is not None, scal(lo if lo is not None else 0), scal(hi if hi is not None else 0))
                got = run(addr, dt, [to_np(x)], ctx=p)
                compare("ternary", "clamp", dt, got, to_np(r), dt, "min=%s max=%s" % (lo, hi))
            if dt != "BOOL":
                lo = x.flip(0)
                hi = x.roll(7)
                for hl, hh in ((True, True), (True, False), (False, True)):
                    r = torch.clamp(x, lo if hl else None, hi if hh else None)
                    p = ClampP(hl, hh, scal(0), scal(0))
                    got = run(lib.tn_clamp_tensor_loop(DT[dt]), dt, [to_np(x), to_np(lo), to_np(hi)], ctx=p)
                    compare("ternary", "clamp_tensor", dt, got, to_np(r), dt, "min=%s max=%s" % (hl, hh))


def check_cast():
    if not want("cast"):
        return
    for src in DTYPES:
        if src in ("F16", "F32", "F64", "BF16"):
            x = torch.tensor(FLOAT_EDGE + FLOAT_RAND + [1 + 2**-11 + 2**-40, 1 + 2**-8 + 2**-40, 255.5, -0.7, 2.0**32 + 257, -2.0**40 - 3],
                             dtype=torch.float64).to(TD[src])
        else:
            x = values(src)
        for dst in DTYPES:
            addr = lib.tn_cast_loop(DT[dst], DT[src])
            if not addr:
                support.append(("cast", "cast", "%s<-%s" % (dst, src), "MISSING"))
                continue
            r = x.to(TD[dst])
            got = run(addr, dst, [to_np(x)])
            d = compare("cast", "cast", "%s<-%s" % (dst, src), got, to_np(r), dst, "")
            show_bad("cast", "%s<-%s" % (dst, src), [(to_np(x), src)], got, to_np(r), d, dst)
            got2 = run(addr, dst, [to_np(x)], stride_mult=2)
            if (ulps(got2, got, dst) != 0).any():
                rows.append(("cast", "cast", "%s<-%s" % (dst, src), len(got), 0, 0, len(got), np.inf, "STRIDED PATH DIFFERS"))
    for dt in DTYPES:
        v = to_np(values(dt)[3:4])
        out = run(lib.tn_fill_loop(DT[dt]), dt, [], ctx=ctypes.c_char.from_buffer(v))
        compare("cast", "fill", dt, out, np.repeat(v, 16), dt, "")


check_unary()
check_binary()
check_scalar_variants()
check_ternary()
check_cast()

# ---- summary: per (kind, op, dtype) aggregated over variants ----
agg = {}
for kind, op, dt, n, ex, one, bad, worst, note in rows:
    k = (kind, op)
    a = agg.setdefault(k, {"n": 0, "exact": 0, "ulp1": 0, "bad": 0, "worst": 0.0, "badwhere": []})
    a["n"] += n; a["exact"] += ex; a["ulp1"] += one; a["bad"] += bad; a["worst"] = max(a["worst"], worst)
    if bad:
        a["badwhere"].append("%s[%s]%d%s" % (dt, note, bad, "" if worst == np.inf else "/%gulp" % worst))
print("%-8s %-14s %8s %8s %7s %6s %s" % ("kind", "op", "values", "exact", "<=1ulp", "bad", "where bad (dtype[variant]count/worst)"))
tot = [0, 0, 0, 0]
for (kind, op), a in agg.items():
    tot[0] += a["n"]; tot[1] += a["exact"]; tot[2] += a["ulp1"]; tot[3] += a["bad"]
    print("%-8s %-14s %8d %8d %7d %6d %s" % (kind, op, a["n"], a["exact"], a["ulp1"], a["bad"], " ".join(a["badwhere"])[:200]))
print("TOTAL values %d exact %d <=1ulp %d bad %d" % tuple(tot))
miss = [s for s in support if s[3] == "MISSING"]
extra = [s for s in support if s[3] != "MISSING"]
print("missing loops (upstream computes in-dtype, we return NULL): %d" % len(miss))
for s in miss:
    print("   ", *s[:3])
print("extra loops (upstream refuses or promotes this dtype): %d" % len(extra))
if VERBOSE:
    for s in extra:
        print("   ", *s)
