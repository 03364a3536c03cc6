"""Comparing two serialised case results (reference vs subject) and describing them briefly.

Input is the neutral JSON produced by worker.py; nothing here imports torch. `compare` returns a
list of human-readable problems (empty = agreement). The float tolerance rule lives in
`float_tolerance` and is documented in runner.py's module docstring.
"""
import math

ERR_FACTOR = 2.0   # K: multiple of upstream's own float32-vs-float64 error
LAPACK_ERR_FACTOR = 4.0   # K for tol="lapack" (runner.py: LAPACK errors vary by driver/build)
ULP_FLOOR = 2.0    # F: floor, in machine epsilons of the output dtype times |ref| (2-4 ulps)
GEMM_EXTRA = 2     # G_i = (n_i + GEMM_EXTRA) * eps(acc) * mag_i, see gemm_allowance

EPS = {
    "float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7,
    "complex128": 2.0 ** -52, "complex64": 2.0 ** -23, "complex32": 2.0 ** -10,
    "float8_e4m3fn": 2.0 ** -3, "float8_e4m3fnuz": 2.0 ** -3, "float8_e5m2": 2.0 ** -2,
    "float8_e5m2fnuz": 2.0 ** -2, "float8_e8m0fnu": 1.0, "float4_e2m1fn_x2": 0.5,
}

# The type a matrix product of this output dtype accumulates in: upstream's opmath type
# (at::opmath_type: float for half and bfloat16), for MKL, oneDNN and its fallback kernels alike.
ACC_EPS = {"float64": 2.0 ** -52, "complex128": 2.0 ** -52}

TENSOR_FIELDS = ("cls", "dtype", "shape", "device", "layout", "contig", "requires_grad",
                 "grad_fn", "is_view", "storage", "obj")


def _short(v, n=120):
    s = repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def _num(v, dtype=None):
    """Display text for one value: floats narrower than float64 with 9 significant digits."""
    if isinstance(v, list):
        return "(%s%+sj)" % (_num(v[0], dtype), _num(v[1], dtype))
    if isinstance(v, float) and dtype not in (None, "float64", "complex128") and math.isfinite(v):
        return "%.9g" % v
    return repr(v)


def _fmt_vals(vals, n=8, dtype=None):
    if not isinstance(vals, list):
        return _short(vals)
    body = ", ".join(_num(v, dtype)[:40] for v in vals[:n])
    return "[%s%s]" % (body, ", ... (%d)" % len(vals) if len(vals) > n else "")


def describe(node):
    """One-line summary of a serialised value."""
    if node is None:
        return "<missing>"
    k = node.get("k")
    if k == "tensor":
        extra = ""
        if node.get("requires_grad") is True:
            extra += " requires_grad"
        if node.get("grad_fn"):
            extra += " grad_fn=%s" % node["grad_fn"]
        return "tensor(%s, shape=%s, stride=%s, offset=%s%s) %s" % (
            node.get("dtype"), node.get("shape"), node.get("stride"), node.get("offset"),
            extra, _fmt_vals(node.get("values"), dtype=node.get("dtype")))
    if k == "exc":
        return "raised %s: %s" % (node["t"], _short(node.get("msg", ""), 200))
    if k == "py":
        v = node["values"][0]
        return "%s %s" % (node["t"], _short(v))
    if k in ("str", "text"):
        return "%s %s" % (node["t"], _short(node["v"], 300))
    if k == "seq":
        return "%s(%s)" % (node["t"], "; ".join(describe(x) for x in node["items"][:6]))
    if k == "dict":
        return "dict{%s}" % "; ".join("%s: %s" % (a, describe(b)) for a, b in node["items"][:6])
    if k == "none":
        return "None"
    if k == "obj":
        return "<%s %s>" % (node["t"], _short(node.get("repr", ""), 80))
    return _short(node)


def _unravel(i, shape):
    if not isinstance(shape, list) or not shape:
        return "[%d]" % i if shape != [] else "[]"
    idx = []
    for s in reversed(shape):
        s = max(int(s), 1)
        idx.append(i % s)
        i //= s
    return "[%s]" % ", ".join(str(x) for x in reversed(idx))


def _same_float(a, b):
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b and type(a) is type(b)


def gemm_allowance(leaf, dtype):
    """Per-element allowance G_i for a tensor returned by a GEMM-family call, else None.

    The reference records (worker.attach_gemm_bounds) mag_i = |alpha| sum_k |a_ik b_kj| +
    |beta| |c_ij| in float64 and n_i, the number of those summands. Any evaluation order, with or
    without fused multiply-adds, blocking or threads, lands within gamma(n_i + 1) * mag_i of the
    exact value (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., sec. 3.1;
    gamma(m) = m u / (1 - m u), u = eps/2; the +1 is the alpha/beta scaling), so two correct
    implementations differ by at most 2 gamma(n_i + 1) mag_i, which (n_i + 2) eps(acc) mag_i
    covers; complex products (sec. 3.6) are sqrt(2) wider. eps(acc) is the epsilon of the
    accumulation type (float32 for float16/bfloat16/float32 outputs, float64 for float64); the
    final rounding to a narrower output dtype is the ulp floor's part.
    """
    mag, n = leaf.get("gemm_mag"), leaf.get("gemm_n")
    if not isinstance(mag, list) or not isinstance(n, list) or len(mag) != len(n):
        return None
    eps = ACC_EPS.get(dtype, 2.0 ** -23)
    c = math.sqrt(2.0) if str(dtype).startswith("complex") else 1.0
    return [c * (k + GEMM_EXTRA) * eps * m for m, k in zip(mag, n)]


def _max_abs(vals):
    """Largest finite |component| of a leaf's values (complex values are [re, im] pairs)."""
    top = 0.0
    for v in vals if isinstance(vals, list) else []:
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, float) and math.isfinite(x):
                top = max(top, abs(x))
    return top


def float_tolerance(case_tol, leaf, dtype):
    """Returns (allowed(i, r) -> float, text) or None for exact comparison; i is the element's
    flat index, r its reference value."""
    if case_tol is None:
        return None
    if isinstance(case_tol, tuple):
        atol, rtol = case_tol
        return (lambda i, r: atol + rtol * abs(r)), "atol=%g rtol=%g" % (atol, rtol)
    err = leaf.get("err")
    eps = EPS.get(dtype, 2.0 ** -52)
    base = ERR_FACTOR * (err or 0.0)
    if case_tol == "lapack":
        # LAPACK's error bounds are normwise: a small component carries the rounding of the
        # largest one (runner.py), so the ulp floor scales with the leaf's largest |ref|
        top = _max_abs(leaf.get("values"))
        base = LAPACK_ERR_FACTOR * (err or 0.0)
        text = "lapack rule: %g*err(%s) + %g*eps(%s)*max|ref|(%g)" % (
            LAPACK_ERR_FACTOR, _short(err), ULP_FLOOR, dtype, top)
        return (lambda i, r: base + ULP_FLOOR * eps * top), text
    text = "float rule: %g*err(%s) + %g*eps(%s)*|ref|" % (ERR_FACTOR, _short(err), ULP_FLOOR,
                                                        dtype)
    gemm = gemm_allowance(leaf, dtype)
    if gemm is None:
        return (lambda i, r: base + ULP_FLOOR * eps * abs(r)), text
    text = "float rule: max(%g*err(%s), (n+%d)*eps(acc)*sum|ab|) + %g*eps(%s)*|ref|" % (
        ERR_FACTOR, _short(err), GEMM_EXTRA, ULP_FLOOR, dtype)
    return (lambda i, r: max(base, gemm[i]) + ULP_FLOOR * eps * abs(r)), text


def compare_values(path, ref, sub, case_tol, dtype, shape):
    rk, sk = ref.get("vkind"), sub.get("vkind")
    rv, sv = ref.get("values"), sub.get("values")
    if not isinstance(rv, list) or not isinstance(sv, list):
        if rv == sv:
            return None
        return "%s.values: ref %s, subject %s" % (path, _short(rv), _short(sv))
    if rk != sk:
        return "%s.values kind: ref %s, subject %s" % (path, rk, sk)
    if len(rv) != len(sv):
        return "%s.values: ref has %d, subject %d elements" % (path, len(rv), len(sv))
    tol = float_tolerance(case_tol, ref, dtype) if rk in ("f", "c") else None
    allowed, tol_text = tol if tol else (None, "exact")
    bad, first, worst = 0, None, 0.0
    for i, (a, b) in enumerate(zip(rv, sv)):
        pairs = list(zip(a, b)) if rk == "c" else [(a, b)]
        ok = True
        for x, y in pairs:
            if rk in ("f", "c"):
                if allowed is None or not (isinstance(x, float) and isinstance(y, float)) \
                        or not (math.isfinite(x) and math.isfinite(y)):
                    ok = ok and _same_float(x, y)
                else:
                    d = abs(x - y)
                    ok = ok and d <= allowed(i, x)
                if isinstance(x, float) and isinstance(y, float) and \
                        math.isfinite(x) and math.isfinite(y):
                    worst = max(worst, abs(x - y))
                elif not _same_float(x, y):
                    worst = math.inf
            else:
                ok = ok and x == y and type(x) is type(y)
        if not ok:
            bad += 1
            if first is None:
                first = i
    if not bad:
        return None
    where = _unravel(first, shape)
    msg = "%s.values: %d of %d differ (%s); first at %s: ref %s, subject %s" % (
        path, bad, len(rv), tol_text, where, _num(rv[first], dtype), _num(sv[first], dtype))
    if rk in ("f", "c"):
        msg += "; max |diff| %g" % worst
    return msg


def _field_eq(a, b):
    if isinstance(a, dict) or isinstance(b, dict):  # error markers: equal if same error type
        return isinstance(a, dict) and isinstance(b, dict) and a.get("error") == b.get("error")
    return a == b and type(a) is type(b)


def _compare_tensor(path, r, s, case, out):
    for f in TENSOR_FIELDS:
        if not _field_eq(r.get(f), s.get(f)):
            out.append("%s.%s: ref %s, subject %s" % (path, f, _short(r.get(f)), _short(s.get(f))))
    want_strides = case.strides
    if want_strides is None:
        st = r.get("storage")   # an error mark (dict) where the storage could not be read
        want_strides = r.get("is_view") is True or (not isinstance(st, dict) and
                                                    st in case_shared_storages(case))
    if want_strides:
        for f in ("stride", "offset"):
            if not _field_eq(r.get(f), s.get(f)):
                out.append("%s.%s: ref %s, subject %s" % (path, f, r.get(f), s.get(f)))
    if not case.values:
        return
    if not _field_eq(r.get("shape"), s.get("shape")) or not _field_eq(r.get("dtype"),
                                                                      s.get("dtype")):
        return  # already reported; element-wise detail would only add noise
    msg = compare_values(path, r, s, case.tol, r.get("dtype"), r.get("shape"))
    if msg:
        out.append(msg)


def case_shared_storages(case):
    return getattr(case, "_shared", ())


def compare_node(path, r, s, case, out):
    if r is None or s is None:
        if r is not s:
            out.append("%s: ref %s, subject %s" % (path, describe(r), describe(s)))
        return
    rk, sk = r.get("k"), s.get("k")
    if rk != sk:
        if rk == "exc":
            out.append("%s: reference raised %s but subject returned %s" % (
                path, r["t"], describe(s)))
        elif sk == "exc":
            out.append("%s: subject raised %s: %s (reference returned %s)" % (
                path, s["t"], _short(s.get("msg", ""), 300), describe(r)))
        else:
            out.append("%s: ref %s, subject %s" % (path, describe(r), describe(s)))
        return
    if rk == "exc":
        if r["t"] != s["t"]:
            out.append("%s: exception type: ref %s, subject %s: %s" % (
                path, r["t"], s["t"], _short(s.get("msg", ""), 300)))
        return
    if rk == "tensor":
        _compare_tensor(path, r, s, case, out)
        return
    if r.get("t") != s.get("t"):
        out.append("%s: type: ref %s, subject %s" % (path, r.get("t"), s.get("t")))
        return
    if rk == "py":
        if case.values:
            dtype = "float64" if r.get("vkind") in ("f", "c") else None
            msg = compare_values(path, r, s, case.tol, dtype, [])
            if msg:
                out.append(msg)
    elif rk in ("str", "text"):
        a, b = r["v"], s["v"]
        if a != b:
            i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            out.append("%s: text differs at char %d: ref %r, subject %r" % (
                path, i, a[max(0, i - 20): i + 40], b[max(0, i - 20): i + 40]))
    elif rk == "seq":
        ri, si = r["items"], s["items"]
        if len(ri) != len(si):
            out.append("%s: length: ref %d, subject %d" % (path, len(ri), len(si)))
            return
        for i, (x, y) in enumerate(zip(ri, si)):
            compare_node("%s[%d]" % (path, i), x, y, case, out)
    elif rk == "dict":
        rkeys, skeys = [k for k, _ in r["items"]], [k for k, _ in s["items"]]
        if rkeys != skeys:
            out.append("%s: keys: ref %s, subject %s" % (path, _short(rkeys), _short(skeys)))
            return
        for (key, x), (_, y) in zip(r["items"], s["items"]):
            compare_node("%s[%s]" % (path, key), x, y, case, out)
    # "none" and "obj" (type already compared) need nothing more


def _storage_counts(rec):
    counts = {}

    def walk(n):
        if not isinstance(n, dict):
            return
        if n.get("k") == "tensor" and isinstance(n.get("storage"), str):
            counts.setdefault(n["storage"], set()).add(n.get("obj"))
        for x in n.get("items", ()) or ():
            walk(x[1] if isinstance(x, list) else x)

    walk(rec.get("result"))
    for v in (rec.get("vars") or {}).values():
        walk(v)
    return {s for s, objs in counts.items() if len(objs) > 1}


class _CaseView:
    """The case's options plus the set of reference storages shared by two tensors."""

    def __init__(self, case, shared):
        self.tol, self.strides, self.values, self.vars = case.tol, case.strides, case.values, \
            case.vars
        self._shared = shared


# Exceptions that mean the case's code itself is wrong (a typo, a missing setup, bad indentation),
# not an operator's behaviour: such a case compares two identical failures and can never fail.
BROKEN_CASE = {"NameError", "UnboundLocalError", "SyntaxError", "IndentationError", "TabError"}


def compare(ref, sub, case):
    """Problems (list of str) between reference and subject records for `case`."""
    if "harness" in ref:
        return ["reference run failed: %s" % ref["harness"]]
    if "harness" in sub:
        return ["subject run failed: %s" % sub["harness"]]
    res = ref.get("result") or {}
    if res.get("k") == "exc" and res.get("t") in BROKEN_CASE:
        # the case's own code is wrong (both sides would fail alike): a case that cannot fail
        return ["the case is broken: the reference raised %s: %s" % (res.get("t"), res.get("msg"))]
    view = _CaseView(case, _storage_counts(ref))
    out = []
    compare_node("result", ref.get("result"), sub.get("result"), view, out)
    if case.vars:
        rv, sv = ref.get("vars") or {}, sub.get("vars") or {}
        for name in sorted(set(rv) | set(sv)):
            compare_node(name, rv.get(name), sv.get(name), view, out)
    if out and sub.get("seed_error"):
        out.append("note: subject torch.manual_seed failed: %s" % sub["seed_error"])
    return out


def report(case, ref, sub, problems, limit=12):
    lines = ["case %s:" % case.id]
    lines += ["    " + l for l in case.code.splitlines()[:15]]
    lines += ["  " + p for p in problems[:limit]]
    if len(problems) > limit:
        lines.append("  ... %d more" % (len(problems) - limit))
    if "harness" not in ref and "harness" not in sub:
        lines.append("  ref:     " + describe(ref.get("result")))
        lines.append("  subject: " + describe(sub.get("result")))
    if ref.get("hi_error") and case.tol in ("float", "lapack"):
        lines.append("  note: float64 re-run failed (%s); tolerance is the ulp floor only"
                     % ref["hi_error"])
    return "\n".join(lines)
