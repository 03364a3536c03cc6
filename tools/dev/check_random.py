"""check_random.py — compare src/core/random.c bit-for-bit against upstream torch's CPU generator.

Builds random.c + dtype.c into a shared library under /tmp, loads it with ctypes and, for several
seeds, sizes and dtypes, checks that every fill produces the same bytes as upstream AND leaves
the generator in the same state (torch.get_rng_state()). Run with the reference interpreter:

    /work/main/.venv-ref/bin/python tools/dev/check_random.py [-v]
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERBOSE = "-v" in sys.argv
SEEDS = [0, 1, 42, 2**40 + 7]
SIZES = [0, 1, 3, 15, 16, 17, 100, 1000]


def build():
    out_dir = os.path.join(tempfile.gettempdir(), "tn_check_random")
    os.makedirs(out_dir, exist_ok=True)
    lib = os.path.join(out_dir, "libtnrandom.so")
    cmd = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
           "-I", os.path.join(ROOT, "src"),
           os.path.join(ROOT, "src/core/random.c"), os.path.join(ROOT, "src/core/dtype.c"),
           "-o", lib, "-lm"]
    subprocess.run(cmd, check=True)
    return ctypes.CDLL(lib)


def dtype_enum():
    text = open(os.path.join(ROOT, "src/core/dtype.h")).read()
    names = re.findall(r"X\((\w+), (\w+), \d+, TN_KIND_\w+\)", text)
    return {name: i for i, (_, name) in enumerate(names)}


L = build()
DT = dtype_enum()
c_void_p, c_int64, c_double, c_uint64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double, ctypes.c_uint64
L.tn_generator_seed.argtypes = [c_void_p, c_uint64]
L.tn_generator_init.argtypes = [c_void_p]
L.tn_generator_initial_seed.argtypes = [c_void_p]
L.tn_generator_initial_seed.restype = c_uint64
L.tn_generator_get_state.argtypes = [c_void_p, c_void_p, ctypes.c_size_t]
L.tn_generator_get_state.restype = ctypes.c_size_t
L.tn_generator_set_state.argtypes = [c_void_p, c_void_p, ctypes.c_size_t]
L.tn_generator_seed_nondeterministic.argtypes = [c_void_p]
L.tn_generator_seed_nondeterministic.restype = c_uint64
L.tn_rng_uniform_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_double, c_double]
L.tn_rng_normal_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_double, c_double]
L.tn_rng_normal_serial_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_double, c_double]
L.tn_rng_random_from_to_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_uint64, c_int64]
class Bounds(ctypes.Structure):
    _fields_ = [("range", c_uint64), ("base", c_int64), ("from_", c_int64), ("to_inc", c_int64),
                ("warn", ctypes.c_int)]


L.tn_rng_random_bounds.argtypes = [ctypes.c_int, c_int64, ctypes.c_bool, c_int64, ctypes.POINTER(Bounds)]
L.tn_rng_random_full_64_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int]
L.tn_rng_random_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int]
L.tn_rng_bernoulli_scalar_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_double]
L.tn_rng_bernoulli_tensor_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_void_p, ctypes.c_int]
L.tn_rng_exponential_.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int, c_double]
L.tn_rng_randperm.argtypes = [c_void_p, c_void_p, c_int64, ctypes.c_int]
L.tn_rng_multinomial_scratch_bytes.argtypes = [c_int64, c_int64, ctypes.c_int]
L.tn_rng_multinomial_scratch_bytes.restype = ctypes.c_size_t
L.tn_rng_multinomial.argtypes = [c_void_p, c_void_p, ctypes.c_int, c_int64, c_int64, c_int64,
                                 ctypes.c_bool, c_void_p, c_void_p]

GEN = ctypes.create_string_buffer(16384)  # larger than sizeof(tn_generator)
STATE_SIZE = 5056

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
UINTS_WIDE = [torch.uint16, torch.uint32, torch.uint64]
TNAME = {d: str(d).replace("torch.", "") for d in FLOATS + INTS + UINTS_WIDE + [torch.bool]}

results = {}  # group -> [passed, total, [failed case names]]


def record(group, name, ok):
    r = results.setdefault(group, [0, 0, []])
    r[1] += 1
    if ok:
        r[0] += 1
    else:
        r[2].append(name)
    if VERBOSE or not ok:
        print(("ok   " if ok else "FAIL ") + group + " " + name)


def tbytes(t):
    return t.contiguous().view(torch.uint8).numpy().tobytes() if t.numel() else b""


def our_state():
    buf = ctypes.create_string_buffer(STATE_SIZE)
    L.tn_generator_get_state(GEN, buf, STATE_SIZE)
    return buf.raw


def up_state():
    return bytes(torch.get_rng_state().numpy().tobytes())


def seed_both(seed):
    torch.manual_seed(seed)
    L.tn_generator_seed(GEN, seed)


def run_case(group, name, seed, upstream_fn, ours_fn, nbytes):
    """upstream_fn() -> tensor; ours_fn(buf) fills buf (returns rc). Compares bytes + state."""
    seed_both(seed)
    try:
        ref = upstream_fn()
    except Exception as e:  # upstream refuses: nothing to compare
        if VERBOSE:
            print("skip " + group + " " + name + ": upstream raises " + type(e).__name__)
        return
    buf = ctypes.create_string_buffer(max(nbytes, 1))
    rc = ours_fn(buf)
    ok = rc == 0 and buf.raw[:nbytes] == tbytes(ref) and our_state() == up_state()
    if not ok and VERBOSE:
        print("  rc", rc, "bytes equal", buf.raw[:nbytes] == tbytes(ref), "state equal", our_state() == up_state())
    record(group, name, ok)


def itemsize(dt):
    return torch.empty(0, dtype=dt).element_size()


# ---------------------------------------------------------------- generator and state
def check_generator():
    L.tn_generator_init(GEN)
    g = torch.Generator()
    record("state", "default seed", L.tn_generator_initial_seed(GEN) == g.initial_seed())
    record("state", "default state bytes", our_state() == bytes(g.get_state().numpy().tobytes()))
    for seed in SEEDS + [2**64 - 1, 2**63]:
        seed_both(seed)
        record("state", f"seed={seed} bytes", our_state() == up_state())
        record("state", f"seed={seed} initial_seed", L.tn_generator_initial_seed(GEN) == torch.initial_seed())
        # consume some draws + leave a cached double normal, then compare and round-trip
        torch.rand(1000)
        torch.randn(1, dtype=torch.float64)
        ref = up_state()
        rc = L.tn_generator_set_state(GEN, ref, STATE_SIZE)
        record("state", f"seed={seed} set_state(upstream) round trip", rc == 0 and our_state() == ref)
        a = torch.randn(3, dtype=torch.float64)
        buf = ctypes.create_string_buffer(24)
        L.tn_rng_normal_serial_(GEN, buf, 3, DT["float64"], 0.0, 1.0)
        record("state", f"seed={seed} cached normal continues", buf.raw == tbytes(a) and our_state() == up_state())
        # ours -> upstream
        L.tn_generator_seed(GEN, seed + 5)
        L.tn_rng_normal_serial_(GEN, buf, 1, DT["float64"], 0.0, 1.0)
        torch.set_rng_state(torch.frombuffer(bytearray(our_state()), dtype=torch.uint8))
        record("state", f"seed={seed} upstream accepts ours", up_state() == our_state())
    # manual_seed clears the cached normal
    torch.manual_seed(3); torch.randn(1, dtype=torch.float64); torch.manual_seed(3)
    L.tn_generator_seed(GEN, 3)
    record("state", "manual_seed clears normal cache", our_state() == up_state())
    # invalid states
    good = bytearray(up_state())
    record("state", "bad size rejected", L.tn_generator_set_state(GEN, bytes(good[:5048]), 5048) == 1)
    for off, val in ((8, 0), (8, 625), (12, 0), (16, 625)):
        bad = bytearray(good)
        bad[off:off + 4] = val.to_bytes(4, "little")
        try:
            torch.set_rng_state(torch.frombuffer(bytearray(bad), dtype=torch.uint8))
            up_ok = True
        except RuntimeError:
            up_ok = False
        ours_ok = L.tn_generator_set_state(GEN, bytes(bad), STATE_SIZE) == 0
        record("state", f"validity off={off} val={val}", up_ok == ours_ok)
    s1 = L.tn_generator_seed_nondeterministic(GEN)
    s2 = L.tn_generator_seed_nondeterministic(GEN)
    record("state", "nondeterministic seed differs", s1 != s2 and L.tn_generator_initial_seed(GEN) == s2)


# ---------------------------------------------------------------- fills
def check_uniform():
    for dt in FLOATS:
        for (lo, hi) in ((0.0, 1.0), (-3.7, 5.1)):
            for seed in SEEDS:
                for n in SIZES:
                    run_case("uniform", f"{TNAME[dt]} [{lo},{hi}) n={n} seed={seed}", seed,
                             lambda: torch.empty(n, dtype=dt).uniform_(lo, hi),
                             lambda b: L.tn_rng_uniform_(GEN, b, n, DT[TNAME[dt]], lo, hi), n * itemsize(dt))


def check_normal():
    for dt in FLOATS:
        for (mean, std) in ((0.0, 1.0), (0.5, 2.5)):
            for seed in SEEDS:
                for n in SIZES + [31, 33]:
                    run_case("normal", f"{TNAME[dt]} N({mean},{std}) n={n} seed={seed}", seed,
                             lambda: torch.empty(n, dtype=dt).normal_(mean, std),
                             lambda b: L.tn_rng_normal_(GEN, b, n, DT[TNAME[dt]], mean, std), n * itemsize(dt))
    # randn itself, and the scalar path of a non-contiguous tensor (filled in memory order)
    for seed in SEEDS:
        run_case("normal", f"torch.randn(100) seed={seed}", seed, lambda: torch.randn(100),
                 lambda b: L.tn_rng_normal_(GEN, b, 100, DT["float32"], 0.0, 1.0), 400)
        for dt in FLOATS:
            def up(dt=dt):
                t = torch.empty(6, 4, dtype=dt).t()
                t.normal_()
                return t.t()  # memory order
            run_case("normal", f"{TNAME[dt]} non-contiguous 4x6 seed={seed}", seed, up,
                     lambda b, dt=dt: L.tn_rng_normal_serial_(GEN, b, 24, DT[TNAME[dt]], 0.0, 1.0), 24 * itemsize(dt))


def ours_random_from(dt, n, lo, hi):
    """the op-layer sequence: bounds helper, then the kernel it selects"""
    def fill(b):
        bd = Bounds()
        rc = L.tn_rng_random_bounds(DT[TNAME[dt]], lo, hi is not None, 0 if hi is None else hi, ctypes.byref(bd))
        if rc < 0:
            return rc
        if n == 0:
            return 0
        if rc == 1:
            return L.tn_rng_random_full_64_(GEN, b, n, DT[TNAME[dt]])
        return L.tn_rng_random_from_to_(GEN, b, n, DT[TNAME[dt]], bd.range, bd.base)
    return fill


def check_random():
    import warnings
    warnings.simplefilter("ignore")
    dts = INTS + UINTS_WIDE + [torch.bool] + FLOATS
    ranges = [(0, 2), (-5, 7), (0, 2**20), (3, 2**28 + 3), (-2**40, 2**40), (0, 2**62), (0, 65504),
              (-2**63, 2**63 - 1), (5, None), (-3, None), (2**40, None), (-2**63, None)]
    for dt in dts:
        for (lo, hi) in ranges:
            # does upstream accept these bounds? (error agreement is checked on a non-empty tensor)
            try:
                torch.empty(1, dtype=dt).random_(lo, hi)
                up_ok = True
            except RuntimeError:
                up_ok = False
            bd = Bounds()
            rc = L.tn_rng_random_bounds(DT[TNAME[dt]], lo, hi is not None, 0 if hi is None else hi, ctypes.byref(bd))
            ours_ok = rc >= 0 and (rc != 1 or dt in (torch.int64, torch.float64, torch.float32, torch.bfloat16))
            record("random_bounds", f"{TNAME[dt]} random_({lo},{hi}) accepted={up_ok}", up_ok == ours_ok)
            for seed in SEEDS[:2]:
                for n in (0, 3, 17, 100):
                    run_case("random_from_to", f"{TNAME[dt]} random_({lo},{hi}) n={n} seed={seed}", seed,
                             lambda: torch.empty(n, dtype=dt).random_(lo, hi),
                             ours_random_from(dt, n, lo, hi), n * itemsize(dt))
        for seed in SEEDS:
            for n in (0, 1, 17, 1000):
                run_case("random_", f"{TNAME[dt]} random_() n={n} seed={seed}", seed,
                         lambda: torch.empty(n, dtype=dt).random_(),
                         lambda b: L.tn_rng_random_(GEN, b, n, DT[TNAME[dt]]), n * itemsize(dt))
                run_case("random_full64", f"{TNAME[dt]} random_(-2**63, None) n={n} seed={seed}", seed,
                         lambda: torch.empty(n, dtype=dt).random_(-2**63, None),
                         lambda b: L.tn_rng_random_full_64_(GEN, b, n, DT[TNAME[dt]]), n * itemsize(dt))
    for seed in SEEDS:
        for (lo, hi, dt) in ((0, 10, torch.int64), (-100, 100, torch.float32), (0, 2, torch.bool)):
            run_case("random_from_to", f"torch.randint({lo},{hi},(1000,),dtype={TNAME[dt]}) seed={seed}", seed,
                     lambda: torch.randint(lo, hi, (1000,), dtype=dt), ours_random_from(dt, 1000, lo, hi),
                     1000 * itemsize(dt))


def check_big():
    n = 1_000_003
    for seed in SEEDS[:2]:
        for dt in FLOATS:
            run_case("big", f"normal {TNAME[dt]} n={n} seed={seed}", seed,
                     lambda: torch.empty(n, dtype=dt).normal_(0.25, 3.0),
                     lambda b: L.tn_rng_normal_(GEN, b, n, DT[TNAME[dt]], 0.25, 3.0), n * itemsize(dt))
            run_case("big", f"uniform {TNAME[dt]} n={n} seed={seed}", seed,
                     lambda: torch.empty(n, dtype=dt).uniform_(-2.5, 7.0),
                     lambda b: L.tn_rng_uniform_(GEN, b, n, DT[TNAME[dt]], -2.5, 7.0), n * itemsize(dt))
        run_case("big", f"normal float64 scalar path x200000 seed={seed}", seed,
                 lambda: torch.cat([torch.empty(5, dtype=torch.float64).normal_(0.25, 3.0) for _ in range(40000)]),
                 lambda b: L.tn_rng_normal_serial_(GEN, b, 200000, DT["float64"], 0.25, 3.0), 200000 * 8)


def check_bernoulli():
    for dt in INTS + [torch.bool] + FLOATS:
        for p in (0.3, 0.0, 1.0, 0.77):
            for seed in SEEDS:
                for n in (0, 1, 17, 1000):
                    run_case("bernoulli_scalar", f"{TNAME[dt]} p={p} n={n} seed={seed}", seed,
                             lambda: torch.empty(n, dtype=dt).bernoulli_(p),
                             lambda b: L.tn_rng_bernoulli_scalar_(GEN, b, n, DT[TNAME[dt]], p), n * itemsize(dt))
    for pdt in FLOATS:
        for dt in (pdt, torch.float32, torch.int64, torch.bool):
            for seed in SEEDS:
                for n in (0, 1, 17, 1000):
                    g = torch.Generator().manual_seed(seed + 99)
                    probs = torch.rand(n, generator=g, dtype=torch.float64).to(pdt)
                    pbuf = ctypes.create_string_buffer(tbytes(probs), max(n * itemsize(pdt), 1))
                    if dt == pdt:
                        up = lambda: torch.bernoulli(probs)
                    else:
                        up = lambda: torch.empty(n, dtype=dt).bernoulli_(probs)
                    run_case("bernoulli_tensor", f"out={TNAME[dt]} p={TNAME[pdt]} n={n} seed={seed}", seed, up,
                             lambda b: L.tn_rng_bernoulli_tensor_(GEN, b, n, DT[TNAME[dt]], pbuf, DT[TNAME[pdt]]),
                             n * itemsize(dt))


def check_exponential():
    for dt in FLOATS:
        for lam in (1.0, 0.25):
            for seed in SEEDS:
                for n in SIZES:
                    run_case("exponential", f"{TNAME[dt]} lambd={lam} n={n} seed={seed}", seed,
                             lambda: torch.empty(n, dtype=dt).exponential_(lam),
                             lambda b: L.tn_rng_exponential_(GEN, b, n, DT[TNAME[dt]], lam), n * itemsize(dt))


def check_randperm():
    for seed in SEEDS:
        for n in (0, 1, 2, 5, 100, 10000):
            for dt in (torch.int64, torch.int32, torch.float32):
                run_case("randperm", f"{TNAME[dt]} n={n} seed={seed}", seed,
                         lambda: torch.randperm(n, dtype=dt),
                         lambda b: L.tn_rng_randperm(GEN, b, n, DT[TNAME[dt]]), n * itemsize(dt))


def check_multinomial():
    shapes = [(5,), (100,), (3, 7), (4, 50)]
    for dt in FLOATS:
        for shape in shapes:
            for n_sample in (1, 3):
                for repl in (True, False):
                    for seed in SEEDS:
                        g = torch.Generator().manual_seed(seed + 7)
                        probs = (torch.rand(shape, generator=g, dtype=torch.float64) + 0.05).to(dt)
                        n_dist = shape[0] if len(shape) == 2 else 1
                        n_cat = shape[-1]
                        pbuf = ctypes.create_string_buffer(tbytes(probs), probs.numel() * itemsize(dt))
                        scratch = ctypes.create_string_buffer(L.tn_rng_multinomial_scratch_bytes(n_dist, n_cat, DT[TNAME[dt]]))
                        run_case("multinomial",
                                 f"{TNAME[dt]} shape={shape} k={n_sample} replacement={repl} seed={seed}", seed,
                                 lambda: torch.multinomial(probs, n_sample, repl),
                                 lambda b: L.tn_rng_multinomial(GEN, pbuf, DT[TNAME[dt]], n_dist, n_cat, n_sample,
                                                                repl, b, scratch),
                                 n_dist * n_sample * 8)


def check_multinomial_big():
    """larger draws; f16/bf16 without replacement and k > 1 hit ties in p/q, where upstream's
    topk (libstdc++ partial_sort / nth_element) orders equal values differently from ours."""
    for dt in FLOATS:
        for shape, k in (((1000,), 50), ((1000,), 900), ((20, 300), 7), ((2000,), 1)):
            for repl in (False, True):
                for seed in (0, 1, 2):
                    g = torch.Generator().manual_seed(seed)
                    probs = torch.rand(shape, generator=g, dtype=torch.float64).to(dt) + 0.01
                    nd = shape[0] if len(shape) == 2 else 1
                    nc = shape[-1]
                    pbuf = ctypes.create_string_buffer(tbytes(probs), probs.numel() * itemsize(dt))
                    sc = ctypes.create_string_buffer(L.tn_rng_multinomial_scratch_bytes(nd, nc, DT[TNAME[dt]]))
                    run_case("multinomial_big", f"{TNAME[dt]} {shape} k={k} replacement={repl} seed={seed}", seed,
                             lambda: torch.multinomial(probs, k, repl),
                             lambda b: L.tn_rng_multinomial(GEN, pbuf, DT[TNAME[dt]], nd, nc, k, repl, b, sc),
                             nd * k * 8)


def check_noncontiguous_order():
    # upstream fills a transposed tensor in memory order: same bytes as a contiguous fill
    for seed in SEEDS:
        seed_both(seed)
        a = torch.empty(4, 6).t()
        a.uniform_()
        mem = a.t().contiguous()
        torch.manual_seed(seed)
        b = torch.empty(24).uniform_().view(4, 6)
        record("order", f"t().uniform_ fills memory order seed={seed}", torch.equal(mem, b))
        torch.manual_seed(seed)
        x = torch.empty(4, 6)[:, ::2]
        x.random_(0, 1000)
        torch.manual_seed(seed)
        y = torch.randint(0, 1000, (4, 3)).float()
        record("order", f"strided slice random_ fills row-major seed={seed}", torch.equal(x, y))


def main():
    torch.set_num_threads(max(1, torch.get_num_threads()))
    check_generator()
    check_uniform()
    check_normal()
    check_random()
    check_bernoulli()
    check_exponential()
    check_randperm()
    check_multinomial()
    check_multinomial_big()
    check_noncontiguous_order()
    check_big()
    tp = tt = 0
    print("\n== summary (group: passed/compared) ==")
    for group, (p, t, failed) in results.items():
        tp += p
        tt += t
        print(f"{group:18s} {p}/{t}")
        for f in failed:
            print(f"    FAIL {f}")
    print(f"TOTAL {tp}/{tt}")
    return 0 if tp == tt else 1


if __name__ == "__main__":
    sys.exit(main())
