"""check_reduce.py — compare src/kernels/ref/reduce.c against upstream torch, op by op.

Run with the reference interpreter (upstream torch 2.13.0):
    /work/main/.venv-ref/bin/python tools/dev/check_reduce.py [--threads N] [--big] [-v]
(--big adds >= 32768-element cases; upstream splits those across threads, the kernels do not,
so expect float differences there unless --threads 1.)
It compiles reduce.c + src/core/{dtype,tensor,iter}.c into a shared library under /tmp, hands it
torch tensors' memory through ctypes (tn_tensor built by hand), and compares every result with
upstream's: bit-exact match counts per op (NaNs of any payload count as equal) and, for floats,
the largest relative difference seen and the case that produced it.
"""
import ctypes, os, subprocess, sys, argparse
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = "/tmp/tn_check_reduce"

DT = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
      torch.float32: 6, torch.float64: 7, torch.complex64: 9, torch.complex128: 10, torch.bool: 11,
      torch.bfloat16: 15}
OPS = {"sum": 0, "prod": 1, "mean": 2, "amax": 3, "amin": 4, "all": 5, "any": 6, "count_nonzero": 7}
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
CPLX = [torch.complex64, torch.complex128]
INTS = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
ALL = FLOATS + CPLX + INTS + [torch.bool]


class Storage(ctypes.Structure):
    _fields_ = [("refcnt", ctypes.c_int64), ("data", ctypes.c_void_p), ("nbytes", ctypes.c_size_t),
                ("resizable", ctypes.c_bool), ("device", ctypes.c_int), ("release", ctypes.c_void_p),
                ("release_ctx", ctypes.c_void_p), ("pyobj", ctypes.c_void_p), ("version", ctypes.c_int64)]


class Tensor(ctypes.Structure):
    _fields_ = [("storage", ctypes.POINTER(Storage)), ("offset", ctypes.c_int64), ("ndim", ctypes.c_int),
                ("dtype", ctypes.c_int), ("sizes", ctypes.c_int64 * 32), ("strides", ctypes.c_int64 * 32)]


def build():
    os.makedirs(BUILD, exist_ok=True)
    so = os.path.join(BUILD, "libreduce.so")
    srcs = ["src/kernels/ref/reduce.c", "src/core/dtype.c", "src/core/tensor.c", "src/core/iter.c"]
    cmd = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-fPIC", "-shared", "-I", os.path.join(ROOT, "src"),
           *[os.path.join(ROOT, s) for s in srcs], "-o", so, "-lm"]
    subprocess.run(cmd, check=True)
    lib = ctypes.CDLL(so)
    lib.tn_reduce.restype = ctypes.c_bool
    lib.tn_reduce.argtypes = [ctypes.c_int, ctypes.POINTER(Tensor), ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int]
    lib.tn_reduce_arg.restype = ctypes.c_bool
    lib.tn_reduce_arg.argtypes = [ctypes.c_bool, ctypes.POINTER(Tensor), ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.tn_scan.restype = ctypes.c_bool
    lib.tn_scan.argtypes = [ctypes.c_int, ctypes.POINTER(Tensor), ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    return lib


_keep = []


def tview(x):
    st = Storage(1, x.data_ptr() if x.numel() else None, 0, False, 0, None, None, None, 0)
    t = Tensor(ctypes.pointer(st), 0, x.dim(), DT[x.dtype])
    for i in range(x.dim()):
        t.sizes[i] = x.shape[i]
        t.strides[i] = x.stride(i)
    _keep.append(st)
    return t


def same(a, b):
    """elementwise bit equality (NaN == NaN); returns (n_equal, n, max_rel_err)"""
    if a.shape != b.shape or a.dtype != b.dtype:
        return 0, max(b.numel(), 1), float("inf")
    if a.numel() == 0:
        return 0, 0, 0.0
    if a.is_complex():
        a, b = torch.view_as_real(a), torch.view_as_real(b)
    if a.is_floating_point():
        ibits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        eq = (a.view(ibits) == b.view(ibits)) | (torch.isnan(a) & torch.isnan(b))
        af, bf = a.double(), b.double()
        fin = torch.isfinite(af) & torch.isfinite(bf)
        err = ((af - bf).abs() / bf.abs().clamp_min(1e-300))[fin & ~eq]
        rel = err.max().item() if err.numel() else 0.0
        if (~eq & ~fin).any():
            rel = float("inf")
        return int(eq.sum()), eq.numel(), rel
    eq = a == b
    return int(eq.sum()), eq.numel(), 0.0 if bool(eq.all()) else float("inf")


def make(dtype, shape, kind="normal", gen=None):
    n = 1
    for s in shape:
        n *= s
    if dtype == torch.bool:
        return torch.rand(shape, generator=gen) > 0.4
    if dtype in INTS:
        lo, hi = (0, 6) if dtype == torch.uint8 else (-5, 6)
        if kind == "prod":
            lo, hi = (1, 3) if dtype == torch.uint8 else (-2, 3)
        return torch.randint(lo, hi, shape, generator=gen).to(dtype)
    if kind == "prod":
        x = torch.rand(shape, generator=gen, dtype=torch.float64) * 0.5 + 0.75
        if dtype.is_complex:
            x = torch.polar(x, torch.randn(shape, generator=gen, dtype=torch.float64) * 0.1)
        return x.to(dtype)
    if dtype.is_complex:
        return torch.randn(shape, generator=gen, dtype=dtype)
    x = torch.randn(shape, generator=gen, dtype=torch.float64)
    if kind == "big":
        x = x * 1000 + 3
    return x.to(dtype)


def cases(big=False):
    """(label, shape, transform, dims) ; transform builds the (maybe non-contiguous) input view"""
    out = [("0d", (), None, ()), ("empty0", (0,), None, (0,)), ("empty_r1", (3, 0), None, (1,)),
           ("empty_r0", (3, 0), None, (0,)), ("empty_k", (0, 4), None, (1,))]
    for n in list(range(1, 71)) + [1000]:
        out.append((f"1d{n}", (n,), None, (0,)))
    out += [("2d_r1", (37, 53), None, (1,)), ("2d_r0", (37, 53), None, (0,)), ("2d_all", (37, 53), None, (0, 1)),
            ("2d_r1_long", (5, 1000), None, (1,)), ("2d_r0_long", (1000, 5), None, (0,)),
            ("2d_r0_wide", (64, 133), None, (0,)), ("2d_r0_3x200", (3, 200), None, (0,)),
            ("2d_r0_f16blk", (9, 70), None, (0,)),
            ("3d_r02", (6, 7, 40), None, (0, 2)), ("3d_r01", (6, 7, 40), None, (0, 1)),
            ("3d_r12", (6, 7, 40), None, (1, 2)), ("3d_r02b", (4, 50, 3), None, (0, 2)),
            ("3d_r1", (4, 50, 33), None, (1,)), ("3d_size1", (4, 1, 33), None, (1,)),
            ("T_r0", (53, 37), "t", (0,)), ("T_r1", (53, 37), "t", (1,)), ("T_all", (53, 37), "t", (0, 1)),
            ("step_c_r1", (20, 90), "step_c", (1,)), ("step_c_r0", (20, 90), "step_c", (0,)),
            ("step_r_r0", (90, 20), "step_r", (0,)), ("step_all", (90, 20), "step_r", (0, 1)),
            ("perm_r02", (6, 40, 7), "perm", (0, 2)), ("perm_r1", (6, 40, 7), "perm", (1,)),
            ("expand_r0", (1, 40), "expand", (0,))]
    if big:
        out += [("big_1d", (100000,), None, (0,)), ("big_r1", (64, 4096), None, (1,)),
                ("big_r0", (4096, 64), None, (0,)), ("big_r0_odd", (300, 333), None, (0,))]
    return out


def apply(x, tr):
    if tr == "t":
        return x.t()
    if tr == "step_c":
        return x[:, ::2]
    if tr == "step_r":
        return x[::3]
    if tr == "perm":
        return x.permute(2, 0, 1)
    if tr == "expand":
        return x.expand(30, x.shape[1])
    return x


def kept_shape(x, dims):
    return tuple(s for i, s in enumerate(x.shape) if i not in dims)


class Tally:
    def __init__(self):
        self.rows = {}

    def add(self, key, eq, n, rel, label, unsupported=False):
        r = self.rows.setdefault(key, [0, 0, 0.0, "", 0, 0])
        r[0] += eq
        r[1] += n
        r[5] += 1
        if unsupported:
            r[4] += 1
        if rel > r[2]:
            r[2], r[3] = rel, label

    def report(self):
        for key in sorted(self.rows):
            eq, n, rel, lab, uns, ncase = self.rows[key]
            flag = "" if eq == n and not uns else "  <--"
            s = f"{key:28s} cases {ncase:4d}  exact {eq}/{n}"
            if rel:
                s += f"  max_rel {rel:.3g} ({lab})"
            if uns:
                s += f"  unsupported {uns}"
            print(s + flag)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None, help="torch.set_num_threads for upstream")
    ap.add_argument("--big", action="store_true", help="add cases with >= 32768 elements")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    lib = build()
    tal = Tally()
    gen = torch.Generator().manual_seed(1234)

    def red(opname, x, dims, out_dtype, ref, label):
        mask = 0
        for d in dims:
            mask |= 1 << d
        out = torch.empty(kept_shape(x, dims), dtype=out_dtype)
        if x.dim() == 0:
            mask = 0
        ok = lib.tn_reduce(OPS[opname], ctypes.byref(tview(x)), mask, out.data_ptr() or None, DT[out_dtype])
        key = f"{opname}:{str(x.dtype)[6:]}->{str(out_dtype)[6:]}"
        if not ok:
            tal.add(key, 0, ref.numel(), 0.0, label, unsupported=True)
            return
        eq, n, rel = same(out, ref)
        if args.v and eq != n:
            print("MISMATCH", key, label, "\n ours", out.flatten()[:8], "\n ref ", ref.flatten()[:8])
        tal.add(key, eq, n, rel, label)

    for label, shape, tr, dims in cases(args.big):
        for dt in ALL:
            for kind in ("normal", "prod"):
                base = make(dt, shape, kind, gen)
                x = apply(base, tr)
                kd = dict(dim=dims) if dims and x.dim() else {}
                if kind == "normal":
                    sd = torch.int64 if dt in INTS or dt == torch.bool else dt
                    red("sum", x, dims, sd, torch.sum(x, **kd), label)
                    if dt in FLOATS + CPLX:
                        red("mean", x, dims, dt, torch.mean(x, **kd), label)
                    if dt == torch.float32:
                        red("sum", x, dims, torch.float64, torch.sum(x, **kd, dtype=torch.float64), label)
                    if dt in (torch.float16, torch.bfloat16, torch.int32):
                        red("sum", x, dims, torch.float32, torch.sum(x, **kd, dtype=torch.float32), label)
                    if dt not in CPLX and x.numel():
                        bn = base.clone()
                        if dt.is_floating_point and bn.numel() > 3:
                            bn.view(-1)[bn.numel() // 3] = float("nan")
                        xn = apply(bn, tr)
                        red("amax", xn, dims, dt, torch.amax(xn, dim=dims) if dims and x.dim() else torch.amax(xn), label)
                        red("amin", x, dims, dt, torch.amin(x, dim=dims) if dims and x.dim() else torch.amin(x), label)
                    od = torch.uint8 if dt == torch.uint8 else torch.bool
                    for nm in ("all", "any"):
                        if len(dims) <= 1 or x.dim() == 0:
                            r = getattr(torch, nm)(x, **({"dim": dims[0]} if dims and x.dim() else {}))
                        else:
                            r = getattr(torch, nm)(x, dim=dims)
                        red(nm, x, dims, od, r, label)
                    red("count_nonzero", x, dims, torch.int64, torch.count_nonzero(x, **kd), label)
                    # max/min with indices, argmax/argmin
                    if dt not in CPLX and len(dims) == 1 and x.dim():
                        d = dims[0]
                        for is_max in (True, False):
                            bn = base.clone()
                            if dt.is_floating_point and bn.numel() > 5:
                                bn.view(-1)[[1, bn.numel() - 2]] = float("nan")
                            xx = apply(bn, tr)
                            if x.shape[d] == 0:
                                continue
                            rv, ri = (torch.max if is_max else torch.min)(xx, d)
                            vo = torch.empty(kept_shape(xx, dims), dtype=dt)
                            io = torch.empty(kept_shape(xx, dims), dtype=torch.int64)
                            ok = lib.tn_reduce_arg(is_max, ctypes.byref(tview(xx)), d, vo.data_ptr() or None,
                                                   io.data_ptr() or None)
                            key = f"{'max' if is_max else 'min'}.dim:{str(dt)[6:]}"
                            e1, n1, r1 = same(vo, rv)
                            e2, n2, _ = same(io, ri)
                            tal.add(key, min(e1, e2) if ok else 0, n1, r1, label, unsupported=not ok)
                    if dt not in CPLX and dt != torch.bool and x.numel():
                        for is_max in (True, False):
                            ri = (torch.argmax if is_max else torch.argmin)(x)
                            io = torch.empty((), dtype=torch.int64)
                            ok = lib.tn_reduce_arg(is_max, ctypes.byref(tview(x)), -1, None, io.data_ptr())
                            e2, n2, _ = same(io, ri)
                            tal.add(f"arg{'max' if is_max else 'min'}.all:{str(dt)[6:]}", e2 if ok else 0, 1, 0.0,
                                    label, unsupported=not ok)
                    # scans
                    if x.dim() and len(dims) == 1:
                        d = dims[0]
                        sd = torch.int64 if dt in INTS or dt == torch.bool else dt
                        out = torch.empty(x.shape, dtype=sd)
                        ok = lib.tn_scan(0, ctypes.byref(tview(x)), d, out.data_ptr() or None, DT[sd])
                        eq, n, rel = same(out, torch.cumsum(x, d))
                        tal.add(f"cumsum:{str(dt)[6:]}", eq if ok else 0, n, rel, label, unsupported=not ok)
                else:
                    sd = torch.int64 if dt in INTS or dt == torch.bool else dt
                    if len(dims) == 1 and x.dim():
                        red("prod", x, dims, sd, torch.prod(x, dims[0]), label)
                    elif len(dims) == x.dim():
                        red("prod", x, dims, sd, torch.prod(x), label)
                    if x.dim() and len(dims) == 1:
                        d = dims[0]
                        out = torch.empty(x.shape, dtype=sd)
                        ok = lib.tn_scan(1, ctypes.byref(tview(x)), d, out.data_ptr() or None, DT[sd])
                        eq, n, rel = same(out, torch.cumprod(x, d))
                        tal.add(f"cumprod:{str(dt)[6:]}", eq if ok else 0, n, rel, label, unsupported=not ok)
    tal.report()


if __name__ == "__main__":
    main()
