"""Nothing a user can pass from Python may crash the interpreter (DESIGN §3.7).

A deterministic fuzz corpus: for every implemented operator overload (the names in src/ops/*.def)
the child process calls `torch.ops.aten.<name>.<overload>` -- and `torch.<name>` / `Tensor.<name>`
where those exist -- with hostile arguments: wrong types, overflowing ints, NaN/inf, empty /
0-dim / non-contiguous / expanded / many-dimensional tensors, every dtype (storable-only ones
too), mismatched shapes and dtypes, bad out= tensors, dims out of range. One argument is made
hostile at a time (the others keep a plausible value), plus a few whole-call combinations.
Any exception is fine; the test only asserts that the child exits normally.

The child runs in a subprocess of `.venv/bin/python` (or `$TN_FUZZ_PYTHON`, e.g.
`TN_FUZZ_PYTHON=tools/asan/python` for the sanitizer build), printing each call before making it,
so a crash names the call. To reproduce by hand:

    .venv/bin/python tests/test_no_crash.py --child --only add.Tensor      # one overload
    .venv/bin/python tests/test_no_crash.py --child --record /tmp/a.tsv    # exception types
    .venv-ref/bin/python tests/test_no_crash.py --child --record /tmp/b.tsv
    .venv/bin/python tests/test_no_crash.py --compare /tmp/a.tsv /tmp/b.tsv
    .venv-ref/bin/python tests/test_no_crash.py --ref-record /tmp/b.tsv --only isin   # forked, past crashes

(--start N skips the calls numbered below N, to continue past a crash; upstream itself crashes
on a few of these calls, e.g. aten._to_copy(x, dtype=int:-1).)

The test also records every call's outcome (ok or the exception's type) on both sides -- ours and
upstream's (`.venv-ref/bin/python`, or `$TN_FUZZ_REF_PYTHON`) -- and fails on a call whose exception
type differs unless its (spelling.op.overload, our type, upstream's type) is listed in
tests/no_crash_type_diffs.txt (the differences measured when the comparison was added, with why
each cannot match yet). Upstream's run goes through `--ref-record`: torch imported once, the calls
in forked children, restarted just past a call that crashes upstream (those calls are not compared,
nor are calls given a ScalarType outside upstream's enum, labelled `dtype=int:-1`: upstream's
outcome there varies from run to run).

Besides crashes the child reports SystemError (a C function returned NULL without an exception,
or a result with one set), which always means a bug in our C code; the test fails on those too.
"""
import os
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD_ENUM = "int:"  # the label of a ScalarType argument given as an int outside the enum


# --------------------------------------------------------------------------------------------
# The child: everything below `_child_main` runs inside the fuzzed interpreter.
# --------------------------------------------------------------------------------------------

def _load_names(only=None):
    import glob
    names = []
    for f in sorted(glob.glob(os.path.join(ROOT, "src", "ops", "*.def"))):
        for line in open(f):
            line = line.split("#")[0].strip()
            if line:
                name, _, ov = line.partition(".")
                names.append((name, ov or "default"))
    if only:
        want = set(only.split(","))
        names = [(n, o) for n, o in names if f"{n}.{o}" in want or n in want]
    return names


def _split_args(s):
    """Schema argument list -> [(type, name, has_default, kwarg_only)]."""
    inner = s[s.index("(") + 1: s.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    out, kw = [], False
    for p in parts:
        if p == "*":
            kw = True
            continue
        decl, eq, _default = p.partition("=")
        typ, name = decl.rsplit(" ", 1)
        out.append((typ, name, bool(eq), kw))
    return out


def _kind(typ):
    import re
    writes = "!" in typ
    t = re.sub(r"\([^)]*\)", "", typ)
    optional = t.endswith("?")
    t = t.rstrip("?")
    t = re.sub(r"\[\d+\]", "[]", t)
    t = t.replace("SymInt", "int")
    return t, optional, writes


def _child_main(argv):
    import argparse
    import faulthandler
    import math
    import warnings

    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("--record")
    ap.add_argument("--shard", default="0/1")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--start", type=int, default=0, help="skip calls numbered below this")
    ap.add_argument("--first-op", type=int, default=0,
                    help="skip the operators listed before this index (each is seeded on its own); "
                         "--start then counts from its first call")
    opts = ap.parse_args(argv)

    asan = bool(os.environ.get("TN_ASAN_C"))
    if not asan:
        # Huge allocations must fail cleanly, not take the machine's memory.
        import resource
        lim = 6 << 30
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        faulthandler.enable()
    warnings.simplefilter("ignore")

    import torch

    nan, inf = math.nan, math.inf
    out = sys.stdout

    def log(s):
        if not opts.quiet:
            out.write(s + "\n")
            out.flush()

    # ---- the value pools: label -> factory (fresh objects for every call) ----
    def T(*shape, dtype=torch.float32):
        n = 1
        for s in shape:
            n *= s
        return (torch.arange(n, dtype=torch.float64) * 0.37 - 1.1).reshape(shape).to(dtype)

    def dt(d):
        def f():
            try:
                return torch.ones(2, 3, dtype=d)
            except Exception:
                return torch.empty(2, 3, dtype=d)
        return f

    def many(n):
        return lambda: T(*([1] * n))

    tensors = {
        "f32_2x3": lambda: T(2, 3),
        "f32_0dim": lambda: torch.tensor(1.5),
        "i64_0dim": lambda: torch.tensor(-3),
        "f32_empty0": lambda: torch.empty(0),
        "f32_0x3": lambda: torch.empty(0, 3),
        "f32_3x0": lambda: torch.empty(3, 0),
        "f32_T": lambda: T(3, 2).t(),
        "f32_step": lambda: T(4, 6)[::2, ::3],
        "f32_offset": lambda: T(3, 3)[1:],
        "f32_expand": lambda: T(1, 3).expand(2, 3),
        "f32_expand00": lambda: torch.tensor(2.0).expand(2, 3),
        "f32_big1d": lambda: T(7),
        "f32_4d": lambda: T(2, 1, 3, 2),
        "f32_5x5": lambda: T(5, 5),
        "dims20": many(20),
        "dims32": many(32),
        "nan_inf": lambda: torch.tensor([nan, inf, -inf, 0.0, -0.0, 1e38]),
        "i64_idx_bad": lambda: torch.tensor([[2**62, -2**62, 5], [-1, 0, -4]]),
        "i64_2x3": lambda: torch.tensor([[0, 1, 0], [1, 0, 1]]),
        "i32_2x3": lambda: torch.tensor([[0, 1, 0], [1, 0, 1]], dtype=torch.int32),
        "bool_2x3": lambda: torch.tensor([[True, False, True], [False, True, False]]),
        "u8_2x3": lambda: torch.tensor([[0, 255, 7], [1, 2, 3]], dtype=torch.uint8),
        "i8_neg": lambda: torch.tensor([[-128, 127, -1], [0, 5, -5]], dtype=torch.int8),
        "f64_2x3": lambda: T(2, 3, dtype=torch.float64),
        "f16_2x3": lambda: T(2, 3, dtype=torch.float16),
        "bf16_2x3": lambda: T(2, 3, dtype=torch.bfloat16),
        "c64_2x3": dt(torch.complex64),
        "c128_2x3": dt(torch.complex128),
        "c32_2x3": dt(torch.complex32),
        "f8e4_2x3": dt(torch.float8_e4m3fn),
        "f8e5_2x3": dt(torch.float8_e5m2),
        "f8e4fnuz_2x3": dt(torch.float8_e4m3fnuz),
        "u16_2x3": dt(torch.uint16),
        "u32_2x3": dt(torch.uint32),
        "u64_2x3": dt(torch.uint64),
        "i16_2x3": dt(torch.int16),
        "meta_2x3": lambda: torch.empty(2, 3, device="meta"),
        "f32_requires_grad": lambda: T(2, 3).requires_grad_(),
    }
    tensors.update({
        "i64_neg_inrange": lambda: torch.tensor([[-1, -2, 0], [1, -1, 0]]),
        "i64_oob_by1": lambda: torch.tensor([[2, 3, 0], [0, 0, -4]]),
        "i64_empty": lambda: torch.tensor([], dtype=torch.long),
        "i64_5": lambda: torch.tensor([5]),
        "f32_huge": lambda: torch.tensor([[1e30, -1e30, nan], [3e9, -3e9, 2.5]]),
    })
    geo_tensors = ["f32_0dim", "f32_empty0", "f32_0x3", "f32_3x0", "f32_T", "f32_step",
                   "f32_expand", "dims20", "dims32", "f32_4d", "f32_big1d", "meta_2x3", "i64_2x3",
                   "bool_2x3", "c64_2x3", "f16_2x3"]
    dtype_tensors = ["i64_2x3", "i32_2x3", "u8_2x3", "i8_neg", "bool_2x3", "f16_2x3",
                     "bf16_2x3", "u64_2x3", "u16_2x3", "f8e4_2x3", "c32_2x3", "c64_2x3",
                     "f32_0dim", "i64_0dim", "meta_2x3"]
    sem_ints = {"-3": -3, "-1": -1, "2": 2, "3": 3, "33": 33, "-33": -33, "0": 0}
    sem_intlists = {"[-1]": [-1], "[2]": [2], "[1,0]": [1, 0], "[0,0]": [0, 0], "[3,2]": [3, 2],
                    "[6]": [6], "[-1,2]": [-1, 2], "[2,-1,3]": [2, -1, 3], "[0,1,2]": [0, 1, 2],
                    "[-1,-1]": [-1, -1], "[]": [], "[1]*32": [1] * 32, "[0]": [0], "[7]": [7]}
    sem_scalars = {"nan": nan, "inf": inf, "-inf": -inf, "1e308": 1e308, "1e20": 1e20,
                   "2**63-1": 2**63 - 1, "-2**63": -2**63, "2**64": 2**64, "-1": -1, "300": 300,
                   "True": True, "1j": 1j, "0": 0}
    cross_selves = ["f32_0dim", "f32_empty0", "f32_3x0", "f32_T", "f32_expand", "f32_4d",
                    "i64_2x3", "f32_5x5"]
    cross_others = ["i64_neg_inrange", "i64_oob_by1", "i64_empty", "i64_5", "i64_0dim",
                    "i32_2x3", "bool_2x3", "f32_big1d", "f32_T", "f32_expand00", "f32_0x3",
                    "u8_2x3", "f32_4d"]
    # Rarely-reached tensors for combos only.
    pair_shapes = {
        "f32_3x2": lambda: T(3, 2),
        "f32_4x5": lambda: T(4, 5),
        "f32_2x1": lambda: T(2, 1),
    }

    ints = {"-1": -1, "-2**63": -2**63, "2**63": 2**63, "2**70": 2**70, "2**31": 2**31,
            "2**62": 2**62, "-2**31-1": -2**31 - 1, "-100": -100, "100": 100, "1.5": 1.5,
            "True": True, "nan": nan, "0": 0, "1": 1}
    intlists = {"[]": [], "[-1]": [-1], "[2**63]": [2**63], "[2**62,2**62]": [2**62, 2**62],
                "[2**31,2**31,4]": [2**31, 2**31, 4], "[0]*40": [0] * 40, "[1]*40": [1] * 40,
                "[-2**63]": [-2**63], "['a']": ["a"], "[None]": [None], "2**63": 2**63, "5": 5,
                "[1.5]": [1.5], "[0,0]": [0, 0], "[100]": [100], "[-100]": [-100],
                "(1,)*33": (1,) * 33, "[-1,-1]": [-1, -1], "[0,-3]": [0, -3], "[3,-7]": [3, -7],
                "[2**31,-2**31]": [2**31, -2**31], "[-2,2]": [-2, 2]}
    floats = {"nan": nan, "inf": inf, "-inf": -inf, "1e308": 1e308, "-1e308": -1e308,
              "2**70": 2**70, "1j": 1j, "-0.0": -0.0, "0.0": 0.0, "-1.0": -1.0}
    scalars = dict(floats)
    scalars.update({"2**63": 2**63, "2**64": 2**64, "-2**63-1": -2**63 - 1, "-2**63": -2**63,
                    "True": True, "T0dim": torch.tensor(1.0), "T2": torch.ones(2),
                    "Tc": torch.tensor(1 + 2j)})
    bools = {"2": 2, "0.5": 0.5, "T2": torch.ones(2)}
    scalartypes = {str(d): d for d in (
        torch.float8_e4m3fn, torch.float8_e5m2, torch.complex32, torch.uint16, torch.uint64,
        torch.bool, torch.bfloat16, torch.complex128, torch.qint8, torch.bits8, torch.int8,
        torch.float16)}
    # plain ints outside upstream's ScalarType enum: its aten spelling reads them as the enum (past
    # its tables: a segfault, an error or garbage, varying from run to run), so they are run on ours
    # (no crash) but never compared (`_type_diffs`); the label marks them
    scalartypes.update({BAD_ENUM + "100": 100, BAD_ENUM + "-1": -1})
    devices = {"meta": "meta", "cuda": "cuda", "bogus": "bogus", "-1": -1, "cpu:5": "cpu:5",
               "dev_meta": torch.device("meta")}
    layouts = {"sparse_coo": torch.sparse_coo, "strided": torch.strided, "7": 7}
    memfmts = {"channels_last": torch.channels_last, "channels_last_3d": torch.channels_last_3d,
               "contiguous": torch.contiguous_format, "preserve": torch.preserve_format}
    gens = {"Generator": torch.Generator(), "5": 5}
    strs = {"''": "", "bogus": "bogus", "nul": "\x00", "floor": "floor", "reflect": "reflect"}
    generic = {"None": None, "str": "abc", "list_str": ["a", "b"], "dict": {"a": 1},
               "object": object(), "1j": 1j, "dtype": torch.float32}

    def tensor_lists():
        return {
            "[]": lambda: [],
            "[t,None]": lambda: [T(2, 3), None],
            "[2x3,3x2]": lambda: [T(2, 3), T(3, 2)],
            "[t]*70": lambda: [T(2, 3)] * 70,
            "[i64,f32]": lambda: [tensors["i64_2x3"](), T(2, 3)],
            "[empty0]": lambda: [torch.empty(0)],
            "[0dim,0dim]": lambda: [torch.tensor(1.0), torch.tensor(2.0)],
            "[t,'a']": lambda: [T(2, 3), "a"],
            "tensor": lambda: T(2, 3),
            "[dims32,dims32]": lambda: [many(32)(), many(32)()],
            "[f8,c32]": lambda: [dt(torch.float8_e5m2)(), dt(torch.complex32)()],
            "[meta,cpu]": lambda: [torch.empty(2, 3, device="meta"), T(2, 3)],
            "[bool,i64_bad]": lambda: [tensors["bool_2x3"](), tensors["i64_idx_bad"]()],
        }

    # ---- plausible base values per argument ----
    def base_value(kind, name, opt, op_name):
        if kind == "Tensor":
            if name in ("index", "indices"):
                return "i64_2x3", tensors["i64_2x3"]
            if name == "mask":
                return "bool_2x3", tensors["bool_2x3"]
            return "f32_2x3", tensors["f32_2x3"]
        if kind == "Tensor[]":
            if opt:  # indices for index / index_put
                return "[i64]", lambda: [torch.tensor([0, 1])]
            return "[t,t]", lambda: [T(2, 3), T(2, 3)]
        if kind == "int":
            return "0" if name in ("dim", "dim0", "dim1", "start") else "1", (
                0 if name in ("dim", "dim0", "dim1", "start") else 1)
        if kind == "int[]":
            if name in ("dim", "dims") and op_name in ("permute",):
                return "[1,0]", [1, 0]
            if name in ("dim", "dims"):
                return "[0]", [0]
            if name == "stride":
                return "[3,1]", [3, 1]
            if name in ("size", "sizes", "shape"):
                return "[2,3]", [2, 3]
            return "[1,1]", [1, 1]
        if kind in ("float", "Scalar"):
            return "2", 2
        if kind == "bool":
            return "False", False
        if kind == "ScalarType":
            return "float32", torch.float32
        if kind == "str":
            return "'none'", "none"
        if kind == "Device":
            return "cpu", "cpu"
        if kind == "MemoryFormat":
            return "contiguous", torch.contiguous_format
        if kind == "Layout":
            return "strided", torch.strided
        if kind == "Storage":
            return "storage", lambda: torch.empty(6).untyped_storage()
        return "None", None

    def hostile_values(kind, writes):
        if kind == "Tensor":
            d = dict(tensors)
            if writes:
                d.update({"alias_0dim_view": lambda: torch.tensor(1.0).expand(3)})
            return d
        pools = {"Tensor[]": tensor_lists(), "int": ints, "int[]": intlists, "float": floats,
                 "Scalar": scalars, "bool": bools, "ScalarType": scalartypes, "Device": devices,
                 "Layout": layouts, "MemoryFormat": memfmts, "Generator": gens, "str": strs,
                 "Storage": {"storage0": lambda: torch.empty(0).untyped_storage(),
                             "storage_f8": lambda: torch.empty(1, dtype=torch.uint8).untyped_storage()}}
        d = dict(pools.get(kind, {}))
        for k, v in generic.items():
            d.setdefault("g:" + k, v)
        return d

    def materialize(v):
        return v() if callable(v) and not isinstance(v, (type, torch.Generator)) else v

    # --record appends "call<TAB>outcome" lines (so a run restarted after a crash keeps adding)
    rec_file = open(opts.record, "a", buffering=1) if opts.record else None
    stats = {"calls": 0, "systemerror": []}
    shard_i, shard_n = map(int, opts.shard.split("/"))

    def attempt(desc, fn):
        n = stats["calls"]
        stats["calls"] += 1
        if n < opts.start:
            return
        log(f"#{n} {desc}")
        try:
            fn()
            res = "ok"
        except SystemError as e:
            res = "SystemError"
            stats["systemerror"].append(f"{desc}: {e}")
            log("  !! SystemError: " + str(e)[:200])
        except Exception as e:
            res = type(e).__name__
        except BaseException as e:  # noqa: B036 -- e.g. a stray KeyboardInterrupt
            res = type(e).__name__
        if rec_file:
            rec_file.write(f"{desc}\t{res}\n")

    names = _load_names(opts.only)
    for idx, (name, ov) in enumerate(names):
        if idx % shard_n != shard_i or idx < opts.first_op:
            continue
        log(f"@op {idx} {stats['calls']}")
        try:
            op = getattr(getattr(torch.ops.aten, name), ov)
        except Exception:
            continue
        schema = str(op._schema)
        args = [(t, n, d, kw) + _kind(t) for t, n, d, kw in _split_args(schema)]
        torch_fn = getattr(torch, name, None) if not name.startswith("_") or hasattr(torch, name) else None
        meth = getattr(torch.Tensor, name, None)
        out_names = [n for t, n, d, kw, k, o, w in args if kw and w and k == "Tensor"]
        is_out = bool(out_names)
        # deterministic per-op seed so the whole run is reproducible op by op
        seed = zlib.crc32(f"{name}.{ov}".encode())
        torch.manual_seed(seed)

        base = {}
        for t, n, d, kw, kind, opt, w in args:
            if d and not (kind == "Tensor" and w):
                continue  # use the schema default
            base[n] = base_value(kind, n, opt, name)

        def build(overrides):
            pos, kwd, labels = [], {}, []
            for t, n, d, kw, kind, opt, w in args:
                if n in overrides:
                    lab, v = overrides[n]
                elif n in base:
                    lab, v = base[n]
                else:
                    continue
                v = materialize(v)
                if isinstance(v, list):
                    v = [materialize(x) for x in v]
                labels.append(f"{n}={lab}")
                if kw:
                    kwd[n] = v
                else:
                    pos.append(v)
            return pos, kwd, ", ".join(labels)

        variants = [{}]
        for t, n, d, kw, kind, opt, w in args:
            for lab, v in hostile_values(kind, w).items():
                variants.append({n: (lab, v)})
        tensor_args = [n for t, n, d, kw, kind, opt, w in args if kind == "Tensor" and not w]
        if len(tensor_args) >= 2:
            # every tensor argument the same hostile tensor, and mismatched shape pairs
            for lab, v in tensors.items():
                variants.append({n: (lab, v) for n in tensor_args})
            for lab, v in pair_shapes.items():
                variants.append({tensor_args[-1]: (lab, v)})
        # Plausible-but-wrong values for int / int[] / Scalar arguments crossed with self tensors
        # of awkward geometry or dtype: the checks that depend on both (dim in range for this
        # tensor, a scalar representable in this dtype) are where holes hide.
        self_kind = args[0][4] if args else None
        if self_kind == "Tensor" and args[0][1] == "self":
            for t, n, d, kw, kind, opt, w in args[1:]:
                if kind == "int":
                    sem, sub = sem_ints, geo_tensors
                elif kind == "int[]":
                    sem, sub = sem_intlists, geo_tensors
                elif kind == "Scalar" or kind == "float":
                    sem, sub = sem_scalars, dtype_tensors
                else:
                    continue
                for tl in sub:
                    for vl, v in sem.items():
                        variants.append({"self": (tl, tensors[tl]), n: (vl, v)})
            # other tensor arguments (index, src, other, mask...) against awkward selves
            for t, n, d, kw, kind, opt, w in args[1:]:
                if kind != "Tensor" or w:
                    continue
                for tl in cross_selves:
                    for ol in cross_others:
                        variants.append({"self": (tl, tensors[tl]), n: (ol, tensors[ol])})
        if is_out:
            for how in ("self", "self.t()", "self[0]", "self[:, :2]"):
                variants.append(("alias", how))

        for vi, var in enumerate(variants):
            if isinstance(var, tuple):  # out= aliasing (a view of) self
                if "self" not in base or not out_names:
                    continue
                pos, kwd, lab = build({})
                shared = pos[0] if pos else None
                if not isinstance(shared, torch.Tensor) or shared.dim() != 2:
                    continue
                view = {"self": shared, "self.t()": shared.t(), "self[0]": shared[0],
                        "self[:, :2]": shared[:, :2]}[var[1]]
                for on in out_names:
                    kwd[on] = view
                lab += f" [out={var[1]}]"
                calls = [("aten", pos, kwd)]
            else:
                pos, kwd, lab = build(var)
                calls = [("aten", pos, kwd)]
            # The other spellings on a deterministic third of the variants.
            if vi % 3 == 0:
                if torch_fn is not None:
                    calls.append(("torch", pos, kwd))
                if meth is not None and pos and isinstance(pos[0], torch.Tensor) and args[0][1] == "self":
                    calls.append(("method", pos, kwd))
            for spelling, p, k in calls:
                if spelling == "aten":
                    desc = f"aten.{name}.{ov}({lab})"
                    fn = (lambda p=p, k=k: op(*p, **k))
                elif spelling == "torch":
                    desc = f"torch.{name}({lab})"
                    k2 = dict(k)
                    if is_out:
                        outs = [k2.pop(o) for o in out_names if o in k2]
                        if outs:
                            k2["out"] = outs[0] if len(outs) == 1 else tuple(outs)
                    fn = (lambda p=p, k2=k2: torch_fn(*p, **k2))
                else:
                    desc = f"Tensor.{name}({lab})"
                    k2 = {kk: vv for kk, vv in k.items() if kk not in out_names}
                    fn = (lambda p=p, k2=k2: meth(*p, **k2))
                if not asan:
                    faulthandler.dump_traceback_later(20, exit=True)
                try:
                    attempt(desc, fn)
                except BaseException as e:  # an exception leaked past the call (C bug)
                    stats["systemerror"].append(f"{desc}: leaked {type(e).__name__}: {e}")
        if not asan:
            faulthandler.cancel_dump_traceback_later()

    # Tensor construction and indexing paths that bypass the operator table.
    extra = [
        ("torch.tensor(nested ragged)", lambda: torch.tensor([[1, 2], [3]])),
        ("torch.tensor(deep)", lambda: torch.tensor(eval("[" * 40 + "1" + "]" * 40))),
        ("torch.tensor(2**64)", lambda: torch.tensor(2**64)),
        ("torch.tensor([object()])", lambda: torch.tensor([object()])),
        ("torch.tensor(str)", lambda: torch.tensor("abc")),
        ("torch.tensor(dtype=f8)", lambda: torch.tensor([1.0, 2.0], dtype=torch.float8_e4m3fn)),
        ("torch.tensor(dtype=c32)", lambda: torch.tensor([1.0, 2.0], dtype=torch.complex32)),
        ("torch.tensor(dtype=qint8)", lambda: torch.tensor([1.0], dtype=torch.qint8)),
        ("x[2**63]", lambda: T(2, 3)[2**63]),
        ("x[-2**63]", lambda: T(2, 3)[-2**63]),
        ("x[5]", lambda: T(2, 3)[5]),
        ("x[...,...]", lambda: T(2, 3)[..., ...]),
        ("x[None]*40", lambda: T(2, 3)[(None,) * 40]),
        ("x[0,0,0]", lambda: T(2, 3)[0, 0, 0]),
        ("x[::0]", lambda: T(2, 3)[::0]),
        ("x[::-1]", lambda: T(2, 3)[::-1]),
        ("x[2**63:]", lambda: T(2, 3)[2**63:]),
        ("x[idx_bad]", lambda: T(2, 3)[torch.tensor([5])]),
        ("x[idx_-2**62]", lambda: T(2, 3)[torch.tensor([-2**62])]),
        ("x[mask_wrong]", lambda: T(2, 3)[torch.tensor([True, False, True])]),
        ("x[f_idx]", lambda: T(2, 3)[torch.tensor([0.5])]),
        ("x['a']", lambda: T(2, 3)["a"]),
        ("x[object]", lambda: T(2, 3)[object()]),
        ("x[[0,'a']]", lambda: T(2, 3)[[0, "a"]]),
        ("x[idx_bad]=1", lambda: T(2, 3).__setitem__(torch.tensor([7]), 1.0)),
        ("x[0]=ones(5)", lambda: T(2, 3).__setitem__(0, torch.ones(5))),
        ("x[0]='a'", lambda: T(2, 3).__setitem__(0, "a")),
        ("x[0]=2**70", lambda: T(2, 3).__setitem__(0, 2**70)),
        ("expand[0]=1", lambda: T(1, 3).expand(2, 3).__setitem__(0, 1.0)),
        ("meta[0]", lambda: torch.empty(2, 3, device="meta")[0]),
        ("meta.tolist", lambda: torch.empty(2, 3, device="meta").tolist()),
        ("meta.item", lambda: torch.empty((), device="meta").item()),
        ("meta.numpy", lambda: torch.empty(2, device="meta").numpy()),
        ("meta repr", lambda: repr(torch.empty(2, device="meta"))),
        ("f8.tolist", lambda: dt(torch.float8_e4m3fn)().tolist()),
        ("c32.tolist", lambda: dt(torch.complex32)().tolist()),
        ("u64.tolist", lambda: dt(torch.uint64)().tolist()),
        ("f8 repr", lambda: repr(dt(torch.float8_e5m2)())),
        ("c32 repr", lambda: repr(dt(torch.complex32)())),
        ("u16.numpy", lambda: dt(torch.uint16)().numpy()),
        ("f8.numpy", lambda: dt(torch.float8_e4m3fn)().numpy()),
        ("empty.item", lambda: torch.empty(0).item()),
        ("dims32.unsqueeze", lambda: many(32)().unsqueeze(0)),
        ("dims32[None]", lambda: many(32)()[None]),
        ("dims33 view", lambda: T(1).view([1] * 33)),
        ("dims33 tensor", lambda: torch.tensor(eval("[" * 33 + "1" + "]" * 33))),
        ("dims33 zeros", lambda: torch.zeros([1] * 33)),
        ("set_ bad storage", lambda: T(2, 3).set_(torch.empty(1).untyped_storage(), 0, (10,), (1,))),
        ("as_strided oob", lambda: torch.as_strided(T(2, 3), (10,), (1,))),
        ("as_strided neg", lambda: torch.as_strided(T(2, 3), (2,), (-1,))),
        ("as_strided huge", lambda: torch.as_strided(T(2, 3), (2**40, 2**40), (2**40, 1))),
        ("storage resize -1", lambda: torch.empty(3).untyped_storage().resize_(-1)),
        ("storage[100]", lambda: torch.empty(3).untyped_storage()[100]),
        ("from_buffer bad", lambda: torch.frombuffer(b"abc", dtype=torch.float32)),
        ("Tensor.__new__", lambda: torch.Tensor.__new__(torch.Tensor, "x")),
        ("Tensor(2**63)", lambda: torch.Tensor(2**63)),
        ("Tensor(-1)", lambda: torch.Tensor(-1)),
        ("t.data = str", lambda: setattr(T(2), "data", "x")),
        ("t.grad = str", lambda: setattr(T(2), "grad", "x")),
        ("t.requires_grad = str", lambda: setattr(T(2), "requires_grad", "x")),
        ("t.__dict__ del", lambda: delattr(T(2), "data")),
        ("del t.grad", lambda: delattr(T(2), "grad")),
        ("t.shape = 1", lambda: setattr(T(2), "shape", (1,))),
        ("t.__index__ 2el", lambda: [1, 2][torch.ones(2, dtype=torch.long)]),
        ("int(empty)", lambda: int(torch.empty(0))),
        ("float(meta)", lambda: float(torch.empty((), device="meta"))),
        ("len(0dim)", lambda: len(torch.tensor(1.0))),
        ("iter(0dim)", lambda: list(iter(torch.tensor(1.0)))),
        ("bool(2el)", lambda: bool(torch.ones(2))),
        ("hash", lambda: hash(T(2))),
        ("reversed", lambda: list(reversed(T(2)))),
        ("x.stride(40)", lambda: T(2, 3).stride(40)),
        ("x.size(-40)", lambda: T(2, 3).size(-40)),
        ("x.size(2**63)", lambda: T(2, 3).size(2**63)),
        ("x.new_empty(-1)", lambda: T(2).new_empty(-1)),
        ("x.new_tensor(str)", lambda: T(2).new_tensor("a")),
        ("x.to(str)", lambda: T(2).to("bogus")),
        ("x.view(dtype=f8)", lambda: T(2, 3).view(torch.float8_e4m3fn)),
        ("x.view(c128)", lambda: T(2, 3).view(torch.complex128)),
        ("x.view(c128) noncontig", lambda: T(3, 4).t().view(torch.complex128)),
        # indexing paths (src/python/indexing.c)
        ("x[...,None,...]", lambda: T(2, 3)[..., None, ...]),
        ("0dim[0]", lambda: torch.tensor(1.0)[0]),
        ("0dim[None,...,None]", lambda: torch.tensor(1.0)[None, ..., None]),
        ("0dim[True]", lambda: torch.tensor(1.0)[True]),
        ("0dim[False]=1", lambda: torch.tensor(1.0).__setitem__(False, 1.0)),
        ("0dim[idx]", lambda: torch.tensor(1.0)[torch.tensor([0])]),
        ("x[T_idx]", lambda: T(3, 4).t()[torch.tensor([[0, 1], [2, 3]])]),
        ("x[:, idx, :]", lambda: T(2, 3, 4)[:, torch.tensor([2, -3]), :]),
        ("x[idx, :, idx]", lambda: T(2, 3, 4)[torch.tensor([1]), :, torch.tensor([3, 0])]),
        ("x[idx_bcast_bad]", lambda: T(2, 3)[torch.tensor([0, 1]), torch.tensor([0, 1, 2])]),
        ("x[mask2d]", lambda: T(2, 3)[torch.tensor([[True, False, True], [False, True, True]])]),
        ("x[mask_0dim]", lambda: T(2, 3)[torch.tensor(True)]),
        ("x[mask_bad2d]", lambda: T(2, 3)[torch.ones(3, 2, dtype=torch.bool)]),
        ("x[[True,False]]", lambda: T(2, 3)[[True, False]]),
        ("x[1:0]", lambda: T(2, 3)[1:0]),
        ("x[-100:100]", lambda: T(2, 3)[-100:100]),
        ("x[::2**62]", lambda: T(2, 3)[::2**62]),
        ("x[::-2**63]", lambda: T(2, 3)[::-2**63]),
        ("x[-2**63:2**63:2**63]", lambda: T(2, 3)[-2**63:2**63:2**63]),
        ("x[0.5]", lambda: T(2, 3)[0.5]),
        ("x[(0,)*33]", lambda: T(*([1] * 32))[(0,) * 33]),
        ("x[np.int64]", lambda: T(2, 3)[__import__("numpy").int64(1)]),
        ("x[np.array]", lambda: T(2, 3)[__import__("numpy").array([1, 0])]),
        ("x[np.bool_array]", lambda: T(2, 3)[__import__("numpy").array([True, False])]),
        ("x[idx]=vals wrong", lambda: T(2, 3).__setitem__(torch.tensor([0, 1]), torch.ones(3, 3))),
        ("x[mask]=vals", lambda: T(2, 3).__setitem__(torch.ones(2, 3, dtype=torch.bool), torch.ones(5))),
        ("x[mask]=nan into int", lambda: torch.zeros(2, 3, dtype=torch.long).__setitem__(torch.ones(2, 3, dtype=torch.bool), float("nan"))),
        ("x[:, idx]=x", lambda: (lambda x: x.__setitem__((slice(None), torch.tensor([0, 1])), x[:, :2].t()))(T(2, 3))),
        ("expand[idx]=1", lambda: T(1, 3).expand(4, 3).__setitem__(torch.tensor([0, 1]), 5.0)),
        ("x[...]=x.t()", lambda: (lambda x: x.__setitem__(Ellipsis, x.t()))(T(3, 3))),
        ("x[0]=f8", lambda: T(2, 3).__setitem__(0, dt(torch.float8_e4m3fn)()[0])),
        ("c32[0]=1", lambda: dt(torch.complex32)().__setitem__(0, 1.0)),
        ("u64[0]=-1", lambda: dt(torch.uint64)().__setitem__(0, -1)),
        ("u64[0]=2**64", lambda: dt(torch.uint64)().__setitem__(0, 2**64)),
        ("i8[0]=1e20", lambda: dt(torch.int8)().__setitem__(0, 1e20)),
        ("meta[idx]=1", lambda: torch.empty(2, 3, device="meta").__setitem__(torch.tensor([0]), 1.0)),
        # construction paths (src/python/tensor_new.c)
        ("tensor(np noncontig)", lambda: torch.tensor(__import__("numpy").arange(12.).reshape(3, 4)[:, ::-2])),
        ("from_numpy(neg strides)", lambda: torch.from_numpy(__import__("numpy").arange(6.)[::-1])),
        ("from_numpy(0-stride)", lambda: torch.from_numpy(__import__("numpy").lib.stride_tricks.as_strided(__import__("numpy").zeros(1), (3,), (0,)))),
        ("from_numpy(object)", lambda: torch.from_numpy(__import__("numpy").array([object()]))),
        ("from_numpy(str)", lambda: torch.from_numpy(__import__("numpy").array(["a"]))),
        ("from_numpy(f16 unaligned)", lambda: torch.from_numpy(__import__("numpy").frombuffer(b"\0" * 9, dtype="<f2", offset=1, count=4))),
        ("from_numpy(big-endian)", lambda: torch.from_numpy(__import__("numpy").arange(3, dtype=">i4"))),
        ("from_numpy(0-d)", lambda: torch.from_numpy(__import__("numpy").array(1.5))),
        ("from_numpy(40-d)", lambda: torch.from_numpy(__import__("numpy").zeros([1] * 40))),
        ("tensor(np 40-d)", lambda: torch.tensor(__import__("numpy").zeros([1] * 40))),
        ("tensor([np.float16])", lambda: torch.tensor([__import__("numpy").float16(1.5)])),
        ("tensor(mixed)", lambda: torch.tensor([1, 2.5, True, 1j])),
        ("tensor([tensor, 1])", lambda: torch.tensor([torch.ones(2), 1])),
        ("tensor([t2, t3])", lambda: torch.tensor([torch.ones(2), torch.ones(3)])),
        ("tensor([meta])", lambda: torch.tensor([torch.empty((), device="meta")])),
        ("tensor(gen)", lambda: torch.tensor(x for x in range(3))),
        ("tensor(range big)", lambda: torch.tensor(range(2**62, 2**62 + 2))),
        ("tensor(bytes)", lambda: torch.tensor(b"abc")),
        ("tensor(memoryview)", lambda: torch.tensor(memoryview(b"abc"))),
        ("as_tensor(bytearray)", lambda: torch.as_tensor(bytearray(b"ab"))),
        ("frombuffer offset", lambda: torch.frombuffer(bytearray(8), dtype=torch.float32, offset=6)),
        ("frombuffer count", lambda: torch.frombuffer(bytearray(8), dtype=torch.float32, count=5)),
        ("frombuffer neg", lambda: torch.frombuffer(bytearray(8), dtype=torch.float32, count=-2, offset=-1)),
        ("frombuffer empty", lambda: torch.frombuffer(b"", dtype=torch.float32)),
        ("T.numpy()", lambda: T(3, 4).t().numpy()),
        ("expand.numpy()", lambda: T(1, 3).expand(4, 3).numpy()),
        ("bf16.numpy()", lambda: T(2, dtype=torch.bfloat16).numpy()),
        ("grad.numpy()", lambda: T(2).requires_grad_().numpy()),
        ("0size.tolist", lambda: torch.empty(0, 3, 0).tolist()),
        ("dims32.tolist", lambda: many(32)().tolist()),
        ("step.tolist", lambda: T(4, 6)[::2, ::-1].tolist() if False else T(4, 6)[::2, ::3].tolist()),
        ("storage.tolist", lambda: torch.empty(3).untyped_storage().tolist()),
        ("new_tensor(np)", lambda: T(2).new_tensor(__import__("numpy").ones(2))),
        ("Tensor(storage)", lambda: torch.Tensor(torch.empty(3).untyped_storage())),
        ("Tensor([[1],[2,3]])", lambda: torch.Tensor([[1], [2, 3]])),
        ("FloatTensor(2**40)", lambda: torch.FloatTensor(2**40)),
        ("x.set_(storage tiny)", lambda: T(2, 3).set_(torch.empty(1).untyped_storage())),
        ("x.untyped_storage()[2**63]", lambda: T(2).untyped_storage()[2**63]),
        ("storage[-100]", lambda: T(2).untyped_storage()[-100]),
        ("storage[1:100]", lambda: T(2).untyped_storage()[1:100]),
        ("storage[0]=300", lambda: T(2).untyped_storage().__setitem__(0, 300)),
        ("storage.fill_(-1)", lambda: T(2).untyped_storage().fill_(-1)),
        ("storage.copy_(bigger)", lambda: T(2).untyped_storage().copy_(T(9).untyped_storage())),
        ("storage resize shared", lambda: (lambda x: (x.untyped_storage().resize_(0), x + 1))(T(2, 3))),
        ("resize_ then view", lambda: (lambda x: (x.view(2, 3).untyped_storage().resize_(4), x.sum()))(T(6))),
    ]
    log(f"@op {len(names)} {stats['calls']}")   # the extras: after the last operator
    for desc, fn in extra:
        if shard_i != 0:
            break
        if not asan:
            faulthandler.dump_traceback_later(20, exit=True)
        attempt(desc, fn)
    if not asan:
        faulthandler.cancel_dump_traceback_later()

    if rec_file:
        rec_file.close()
    out.write(f"FUZZ DONE calls={stats['calls']} systemerrors={len(stats['systemerror'])}\n")
    for s in stats["systemerror"]:
        out.write("SYSTEMERROR " + s[:300] + "\n")
    out.flush()
    os._exit(0)  # skip teardown: we only test the calls, not interpreter shutdown order


def _compare_main(a_path, b_path):
    """Print calls whose exception type differs between two --record files (ours, upstream)."""
    def load(p):
        return dict(line.rstrip("\n").split("\t", 1) for line in open(p) if "\t" in line)
    a, b = load(a_path), load(b_path)
    diffs = {}
    for k in sorted(set(a) & set(b)):
        if a[k] != b[k]:
            diffs.setdefault((a[k], b[k]), []).append(k)
    for (ours, ref), ks in sorted(diffs.items(), key=lambda kv: -len(kv[1])):
        print(f"== ours {ours} vs upstream {ref}: {len(ks)} calls")
        for k in ks[:8]:
            print("   ", k)


def _ref_record_main(out, shard, only=None):
    """Record the corpus's outcomes in this interpreter (upstream's), each attempt in a forked child;
    a call that kills the child is recorded as `crash` and the next attempt starts just past it.
    `only`: the child's --only (some operators)."""
    import torch  # noqa: F401 -- imported once, before the forks
    log = out + ".calls"
    first, start = 0, 0
    while True:
        pid = os.fork()
        if pid == 0:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            sys.stdout = os.fdopen(1, "w", buffering=1)
            _child_main(["--child", "--record", out, "--shard", shard, "--first-op", str(first),
                         "--start", str(start)] + (["--only", only] if only else []))
            os._exit(0)
        os.waitpid(pid, 0)
        last = opline = None
        done = False
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("#"):
                    last = line
                elif line.startswith("@op "):
                    opline = line
                elif line.startswith("FUZZ DONE"):
                    done = True
        if done or last is None:
            break
        n, desc = last.rstrip("\n").split(" ", 1)
        with open(out, "a") as f:
            f.write(f"{desc}\tcrash\n")
        _, oi, base = opline.split()
        first, start = int(oi), int(n[1:]) + 1 - int(base)
    os.remove(log)


def _load_record(path):
    rec = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "\t" in line:
                k, v = line.rstrip("\n").rsplit("\t", 1)
                rec[k] = v
    return rec


def _diff_key(desc, ours, ref):
    return "\t".join((desc.split("(", 1)[0], ours, ref))


def _load_known():
    known = set()
    with open(os.path.join(ROOT, "tests", "no_crash_type_diffs.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if line:
                known.add(line)
    return known


def _type_diffs(ours, ref):
    """(desc, our outcome, upstream's) of every call recorded on both sides whose outcome differs,
    upstream's crashes and its undefined behaviour (a ScalarType outside its enum) left out."""
    return [(k, ours[k], ref[k]) for k in sorted(set(ours) & set(ref))
            if ref[k] != "crash" and ours[k] != ref[k] and "=" + BAD_ENUM not in k]


# --------------------------------------------------------------------------------------------
# The pytest side.
# --------------------------------------------------------------------------------------------

def _python():
    p = os.environ.get("TN_FUZZ_PYTHON")
    if p:
        return p if os.path.isabs(p) else os.path.join(ROOT, p)
    return os.path.join(ROOT, ".venv", "bin", "python")


SHARDS = 2


MAX_CRASHES = 40


def _ref_python():
    p = os.environ.get("TN_FUZZ_REF_PYTHON")
    if p:
        return p if os.path.isabs(p) else os.path.join(ROOT, p)
    return os.path.join(ROOT, ".venv-ref", "bin", "python")


def _run_shard(i, start, record):
    env = dict(os.environ)
    if "asan" in _python():
        # huge allocations fail instead of aborting (no RLIMIT_AS under ASan)
        env["ASAN_OPTIONS"] = "allocator_may_return_null=1:max_allocation_size_mb=6144:" + env.get(
            "ASAN_OPTIONS", "")
    p = subprocess.Popen([_python(), os.path.abspath(__file__), "--child", "--shard",
                          f"{i}/{SHARDS}", "--start", str(start), "--record", record], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        err = "TIMEOUT\n" + err
    return p.returncode, out, err


def _crash_summary(err):
    """The telling lines of a crash's stderr: the sanitizer's verdict and first frames, or the
    fatal error and Python traceback."""
    import re
    lines = err.splitlines()
    keep = [l for l in lines if re.search(r"runtime error|ERROR: AddressSanitizer|SUMMARY:|"
                                          r"^\s*#[0-5] 0x|Fatal Python error|free\(\)|"
                                          r"double free|corrupted", l)]
    if not keep:
        keep = [l for l in lines if "tests/" not in l][-12:]
    return "\n".join("    " + l.strip()[:200] for l in keep[:14])


def _fuzz_shard(i, record):
    """Run shard i to the end, restarting after each crash just past the crashing call, so one
    run reports every crash; outcomes appended to `record`. Returns a list of failure descriptions."""
    failures, start = [], 0
    while True:
        rc, out, err = _run_shard(i, start, record)
        lines = out.splitlines()
        failures += [l for l in lines if l.startswith("SYSTEMERROR")]
        if rc == 0 and any(l.startswith("FUZZ DONE") for l in lines):
            return failures
        calls = [l for l in lines if l.startswith("#")]
        if not calls:
            failures.append(f"shard {i}: exit {rc} before the first call\n{err[-3000:]}")
            return failures
        last = calls[-1]
        failures.append(f"CRASH (exit {rc}) in {last.split(' ', 1)[1]}\n{_crash_summary(err)}")
        if sum(f.startswith("CRASH") for f in failures) >= MAX_CRASHES:
            failures.append(f"shard {i}: stopped after {MAX_CRASHES} crashes")
            return failures
        start = int(last.split()[0][1:]) + 1


def _ref_shard(i, record):
    subprocess.run([_ref_python(), os.path.abspath(__file__), "--ref-record", record, "--shard", f"{i}/{SHARDS}"],
                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3600)


def test_no_crash(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    ours = [str(tmp_path / f"ours{i}.tsv") for i in range(SHARDS)]
    refs = [str(tmp_path / f"ref{i}.tsv") for i in range(SHARDS)]
    compare = os.path.exists(_ref_python())
    with ThreadPoolExecutor(2 * SHARDS) as ex:
        ref_jobs = [ex.submit(_ref_shard, i, refs[i]) for i in range(SHARDS)] if compare else []
        results = list(ex.map(_fuzz_shard, range(SHARDS), ours))
        for j in ref_jobs:
            j.result()
    failures = [f for r in results for f in r]
    assert not failures, f"{len(failures)} failures:\n" + "\n\n".join(failures)
    if not compare:
        return
    o, r = {}, {}
    for p in ours:
        o.update(_load_record(p))
    for p in refs:
        r.update(_load_record(p))
    assert len(r) > 0.9 * len(o), f"upstream's run recorded {len(r)} calls of our {len(o)}"
    known = _load_known()
    new = [d for d in _type_diffs(o, r) if _diff_key(*d) not in known]
    keys = sorted({_diff_key(*d) for d in new})
    assert not new, (f"{len(new)} calls raise another exception type than upstream's ({len(keys)} keys not in "
                     f"tests/no_crash_type_diffs.txt):\n" + "\n".join(f"  {d[1]} vs upstream {d[2]}: {d[0][:200]}"
                                                                    for d in new[:40]) +
                     "\nkeys:\n" + "\n".join(keys[:100]))


if __name__ == "__main__":
    if "--ref-record" in sys.argv:
        i = sys.argv.index("--ref-record")
        shard = sys.argv[sys.argv.index("--shard") + 1] if "--shard" in sys.argv else "0/1"
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
        _ref_record_main(sys.argv[i + 1], shard, only)
    elif "--compare" in sys.argv:
        i = sys.argv.index("--compare")
        _compare_main(sys.argv[i + 1], sys.argv[i + 2])
    else:
        _child_main(sys.argv[1:])
