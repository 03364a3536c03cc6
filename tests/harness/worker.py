"""Case worker: runs harness cases inside one interpreter and prints neutral results.

This file is executed by the interpreter under test (the reference `.venv-ref` or the subject
`.venv`), never imported by pytest. It imports only the standard library and `torch`, runs every
case of a job file in order (seeding `torch.manual_seed(0)` before each), and writes one JSON line
per case to a private file descriptor, so a crash loses at most the case that caused it and the
parent can restart us after it. No torch object crosses the process boundary: every value is
turned into plain JSON (see `ser`). For cases that ask for the float tolerance rule, the
reference also re-runs the snippet with floating inputs widened to float64 and records, per
floating leaf, its own float error `err` (see runner.py's docstring for the rule), and runs it
once more to record, for tensors returned by matrix products, their summands' magnitudes and
counts (`gemm_mag`, `gemm_n`). For jobs with `cpu` (the reference side), the record gets the
ATen CPU capability upstream runs at (`cpu`). A job with `trace_only` (the runner's `traces`, when
the coverage gate needs a case's dispatch trace, after the plain run) runs the snippet under a
recording TorchDispatchMode instead, for `ops`: the sorted operator overloads it dispatched
("aten::add.Tensor"); the observed results always come from the plain, unrecorded run.

Usage: python worker.py JOBFILE RESULT_FD START_INDEX
"""
import ast
import json
import math
import os
import sys
import time
import traceback

MAX_DEPTH = 20


def _errmark(e):
    return {"error": type(e).__name__, "msg": str(e)[:300]}


class _Ctx:
    """Assigns storage and object labels in order of first appearance (aliasing pattern)."""

    def __init__(self):
        self.storages = {}
        self.objects = {}

    def storage(self, t):
        st = t.untyped_storage()
        if st.nbytes() == 0:
            return None
        ptr = st.data_ptr()
        if not ptr:
            return None
        return self.storages.setdefault(ptr, "s%d" % len(self.storages))

    def obj(self, t):
        return self.objects.setdefault(id(t), "o%d" % len(self.objects))


def _flatten(lst, ndim):
    if ndim == 0:
        return [lst]
    for _ in range(ndim - 1):
        lst = [y for x in lst for y in x]
    return list(lst)


def _num(x):
    """A Python number as JSON-safe value (floats keep nan/inf/-0 via json's NaN/Infinity)."""
    if isinstance(x, complex):
        return [x.real, x.imag]
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    return float(x)


def _tensor_values(torch, t):
    x = t.detach()
    if x.layout != torch.strided:
        x = x.to_dense()
    if x.device.type == "meta":
        return None, None
    dt = x.dtype
    if dt.is_complex:
        if dt != torch.complex128:
            x = x.to(torch.complex128)
        kind = "c"
    elif dt.is_floating_point:
        if dt != torch.float64:
            x = x.to(torch.float64)  # exact for every narrower float format
        kind = "f"
    elif dt == torch.bool:
        kind = "b"
    else:
        kind = "i"
    vals = _flatten(x.tolist(), x.dim())
    if kind == "c":
        vals = [[v.real, v.imag] for v in vals]
    elif kind == "f":
        vals = [float(v) for v in vals]
    return kind, vals


def _field(d, name, fn):
    try:
        d[name] = fn()
    except Exception as e:  # a missing attribute on the subject is a finding, not a crash
        d[name] = _errmark(e)


def ser_tensor(torch, t, ctx, want_values):
    d = {"k": "tensor"}
    _field(d, "cls", lambda: type(t).__name__)
    _field(d, "dtype", lambda: str(t.dtype).replace("torch.", ""))
    _field(d, "shape", lambda: [int(s) for s in t.shape])
    _field(d, "device", lambda: str(t.device))
    _field(d, "layout", lambda: str(t.layout).replace("torch.", ""))
    _field(d, "stride", lambda: [int(s) for s in t.stride()])
    _field(d, "offset", lambda: int(t.storage_offset()))
    _field(d, "contig", lambda: bool(t.is_contiguous()))
    _field(d, "requires_grad", lambda: bool(t.requires_grad))
    _field(d, "grad_fn", lambda: None if t.grad_fn is None else type(t.grad_fn).__name__)
    _field(d, "is_view", lambda: bool(t._is_view()))
    _field(d, "storage", lambda: ctx.storage(t))
    d["obj"] = ctx.obj(t)
    if want_values:
        try:
            d["vkind"], d["values"] = _tensor_values(torch, t)
        except Exception as e:
            d["vkind"], d["values"] = None, _errmark(e)
    return d


def ser(torch, v, ctx, want_values=True, depth=0):
    if depth > MAX_DEPTH:
        return {"k": "obj", "t": type(v).__name__, "repr": "<too deep>"}
    if isinstance(v, torch.Tensor):
        return ser_tensor(torch, v, ctx, want_values)
    if v is None:
        return {"k": "none"}
    if isinstance(v, bool):
        return {"k": "py", "t": "bool", "vkind": "b", "values": [v]}
    if isinstance(v, int):
        return {"k": "py", "t": type(v).__name__, "vkind": "i", "values": [int(v)]}
    if isinstance(v, float):
        return {"k": "py", "t": type(v).__name__, "vkind": "f", "values": [float(v)]}
    if isinstance(v, complex):
        return {"k": "py", "t": type(v).__name__, "vkind": "c", "values": [[v.real, v.imag]]}
    if isinstance(v, str):
        return {"k": "str", "t": type(v).__name__, "v": str(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"k": "str", "t": type(v).__name__, "v": bytes(v).hex()}
    if isinstance(v, (torch.Size, torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return {"k": "text", "t": type(v).__name__, "v": repr(v)}
    if isinstance(v, (tuple, list)):
        return {"k": "seq", "t": type(v).__name__,
                "items": [ser(torch, x, ctx, want_values, depth + 1) for x in v]}
    if isinstance(v, dict):
        return {"k": "dict", "t": type(v).__name__,
                "items": [[repr(k), ser(torch, x, ctx, want_values, depth + 1)]
                          for k, x in v.items()]}
    try:
        r = repr(v)[:200]
    except Exception as e:
        r = "<repr failed: %s>" % type(e).__name__
    return {"k": "obj", "t": type(v).__name__, "repr": r}


def ser_exc(e):
    return {"k": "exc", "t": type(e).__name__, "msg": str(e)[:1000]}


def execute(code, ns):
    """Run statements; the value is the last expression, else the variable `result`."""
    tree = ast.parse(code, "<case>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<case>", "exec"), ns)
    if last is not None:
        return eval(compile(last, "<case>", "eval"), ns)
    return ns.get("result")


def _seed(torch):
    try:
        torch.manual_seed(0)
        return None
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)


def run_snippet(torch, code, want_values, mode=None):
    ns = {"torch": torch, "math": math, "__name__": "__tn_case__"}
    seed_error = _seed(torch)
    try:
        if mode is None:
            value = execute(code, ns)
        else:
            with mode:
                value = execute(code, ns)
        raised = None
    except (Exception, SystemExit) as e:
        value, raised = None, e
    ctx = _Ctx()
    rec = {"result": ser_exc(raised) if raised is not None else ser(torch, value, ctx, want_values)}
    tvars = {}
    for name in sorted(ns):
        if name.startswith("_") or name in ("torch", "math"):
            continue
        if isinstance(ns[name], torch.Tensor):
            tvars[name] = ser(torch, ns[name], ctx, want_values)
    rec["vars"] = tvars
    if seed_error:
        rec["seed_error"] = seed_error
    return rec


# ---------------------------------------------------------------------------------------------
# float64 re-run for tol="float" (reference only)

_NARROWING_METHODS = {"half", "bfloat16", "float"}
# ops whose result views their argument: run on it unchanged, as a widened copy would break the
# aliasing an in-place write through the view relies on (make_tensor fills a complex tensor with
# view_as_real(t).uniform_(): widened, the fill went to a copy and t kept torch.empty's memory, so
# the float64 re-run of every complex sample computed on garbage); exact, so err is unchanged
_VIEWS = {"view_as_real", "view_as_complex", "view", "__getitem__", "select", "narrow", "transpose",
          "t", "unsqueeze", "squeeze", "expand", "expand_as", "permute", "diagonal", "as_strided",
          "unbind", "split", "chunk", "unfold", "movedim"}
_RANDOM = {"randn", "rand", "randint", "normal", "normal_", "uniform_", "bernoulli", "bernoulli_",
           "randn_like", "rand_like", "randint_like", "multinomial", "dropout", "random_",
           "exponential_", "cauchy_", "log_normal_", "geometric_", "randperm", "poisson"}


def op_kind(func):
    """(name, inplace, out_overload) of a function a TorchFunctionMode sees: `name` without
    the overload for torch.ops.aten spellings ("addmm_"), inplace if it ends in one underscore,
    out_overload for an aten overload with out arguments (.out, .int_out, .OutTensor, ...)."""
    opname = getattr(func, "_opname", None)
    if isinstance(opname, str):  # OpOverload
        try:
            out_ov = any(a.is_out for a in func._schema.arguments)
        except AttributeError:
            out_ov = False
        return opname, opname.endswith("_"), out_ov
    name = getattr(func, "__name__", "") or ""
    return name, name.endswith("_") and not name.endswith("__"), False


def out_of_place(torch, func):
    """The functional counterpart of an in-place or out= spelling, taking the same arguments
    (self first, no out=): torch.ops.aten.addmm_.default -> aten.addmm.default, aten.x.int_out
    -> aten.x.int, Tensor.addmm_ -> Tensor.addmm, torch.mm (called with out=) -> torch.mm.
    None if there is none."""
    name, inplace, out_ov = op_kind(func)
    if hasattr(func, "_opname"):
        packet = getattr(getattr(torch.ops, getattr(func, "namespace", "aten"), None),
                         name[:-1] if inplace else name, None)
        if packet is None:
            return None
        if not (inplace or out_ov):
            return func
        # the functional overload whose arguments are this one's without out=
        want = [(a.name, str(a.type)) for a in func._schema.arguments if not a.is_out]
        for ov in packet.overloads():
            op = getattr(packet, ov)
            if not op._schema.is_mutable and \
                    [(a.name, str(a.type)) for a in op._schema.arguments] == want:
                return op
        return None
    if name.startswith("__"):
        return None if name.startswith("__i") else func
    if inplace:
        return getattr(torch.Tensor, name[:-1], None)
    return func


def make_widening_mode(torch):
    from torch.overrides import TorchFunctionMode

    narrow = {torch.float16, torch.bfloat16, torch.float32}
    cnarrow = {torch.complex32, torch.complex64}

    def widen(x, ints=False):
        if isinstance(x, torch.Tensor):
            if x.dtype in narrow or (ints and not x.is_floating_point() and not x.is_complex()):
                return x.to(torch.float64)
            if x.dtype in cnarrow:
                return x.to(torch.complex128)
            return x
        if isinstance(x, torch.dtype):
            if x in narrow:
                return torch.float64
            if x in cnarrow:
                return torch.complex128
            return x
        if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size):
            return type(x)(widen(y, ints) for y in x) if type(x) in (list, tuple) else x
        return x

    def has_tensor(x):
        if isinstance(x, torch.Tensor):
            return True
        if isinstance(x, (list, tuple)):
            return any(has_tensor(y) for y in x)
        if isinstance(x, dict):
            return any(has_tensor(y) for y in x.values())
        return False

    class Widen(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            name, inplace, _ = op_kind(func)
            if name in _RANDOM or name in _VIEWS or not has_tensor((args, kwargs)):
                return func(*args, **kwargs)  # factories, random draws and views run unchanged
            if name in _NARROWING_METHODS and len(args) == 1 and not kwargs:
                return widen(args[0])
            inplace = inplace or name.startswith("__i") or name == "__setitem__"
            # torch.fft promotes integer and bool input to the default float dtype (float32):
            # its float64 counterpart takes them as float64, else err would be 0 for them
            ints = name.startswith("fft_")
            wargs = [a if (i == 0 and inplace) else widen(a, ints) for i, a in enumerate(args)]
            wkw = {k: (v if k == "out" else widen(v, ints)) for k, v in kwargs.items()}
            out = kwargs.get("out")
            if isinstance(out, torch.Tensor) and (out.dtype in narrow or out.dtype in cnarrow):
                # a narrow out= tensor: compute in float64 without it, then deliver into it
                # (rounded once, as the float result would be)
                oop = out_of_place(torch, func)
                if oop is not None:
                    del wkw["out"]
                    return _deliver(oop(*wargs, **wkw), out)
            if inplace and args and isinstance(args[0], torch.Tensor) and \
                    (args[0].dtype in narrow or args[0].dtype in cnarrow):
                try:
                    return func(*wargs, **wkw)
                except (RuntimeError, TypeError):
                    # ops that insist on one dtype (addmm_, baddbmm_): float64 out of place,
                    # then into self
                    oop = out_of_place(torch, func)
                    if oop is None or name.startswith("__"):
                        raise
                    return _deliver(oop(widen(args[0]), *wargs[1:], **wkw), args[0])
            return func(*wargs, **wkw)

    def _deliver(res, dst):
        if not isinstance(res, torch.Tensor):
            raise RuntimeError("harness: out-of-place counterpart returned %s" % type(res))
        if tuple(dst.shape) != tuple(res.shape):
            dst.resize_(res.shape)
        dst.copy_(res)
        return dst

    return Widen()


def _leaves(node, path, out):
    k = node.get("k")
    if k in ("tensor", "py"):
        out[path] = node
    elif k == "seq":
        for i, x in enumerate(node["items"]):
            _leaves(x, "%s[%d]" % (path, i), out)
    elif k == "dict":
        for key, x in node["items"]:
            _leaves(x, "%s[%s]" % (path, key), out)


def _all_leaves(rec):
    """path -> the serialised leaves at that path: the result's and the variables' (a snippet's
    `result` variable is both, serialised twice; each copy gets the annotations)."""
    out = {}
    parts = [("result", rec["result"])] + list(rec["vars"].items())
    for name, node in parts:
        one = {}
        _leaves(node, name, one)
        for path, leaf in one.items():
            out.setdefault(path, []).append(leaf)
    return out


def attach_float_error(lo, hi):
    """Set leaf['err'] = max |lo - hi| over positions where both are finite."""
    hil = _all_leaves(hi)
    for path, leaf in ((p, x) for p, xs in _all_leaves(lo).items() for x in xs):
        if leaf.get("vkind") not in ("f", "c"):
            continue
        other = (hil.get(path) or [{}])[0]
        a, b = leaf.get("values"), other.get("values")
        if other.get("vkind") != leaf["vkind"] or not isinstance(a, list) \
                or not isinstance(b, list) or len(a) != len(b):
            leaf["err"] = None
            continue
        if leaf["vkind"] == "c":
            a = [c for p in a for c in p]
            b = [c for p in b for c in p]
        err = 0.0
        for x, y in zip(a, b):
            if math.isfinite(x) and math.isfinite(y):
                err = max(err, abs(x - y))
        leaf["err"] = err


# ---------------------------------------------------------------------------------------------
# GEMM-family magnitudes for tol="float" (reference only)
#
# A matrix product's bits depend on its summation order, which upstream's BLAS (MKL) and oneDNN
# choose by CPU, thread count and shape; no order is "the" result. What every order satisfies is
# the classical bound: each element is within gamma(n) * sum of |summand| of the exact value. So
# for each tensor returned by a GEMM-family call (and not modified afterwards) the reference
# records, per element, `gemm_mag` = |alpha| * sum_k |a_ik| |b_kj| + |beta| |c_ij| (computed in
# float64 on absolute values, the same call) and `gemm_n` = the number of those summands (the same
# call on all-ones inputs). comparator.float_tolerance turns them into the allowance.

GEMM_OPS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "rmatmul", "linear", "mv",
            "addmv", "dot", "vdot", "inner", "einsum", "tensordot",
            # convolutions are sums of products too (oneDNN picks their order by CPU and shape);
            # each is linear in every tensor argument, so the same two re-runs give mag and n
            "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
            "convolution", "_convolution", "convolution_backward"}
_SCALE_KWARGS = ("alpha", "beta")


def _gemm_callable(torch, func):
    """The out-of-place callable taking `func`'s arguments (without out=) if `func` is a
    GEMM-family spelling (function, method, dunder, in-place, out=, torch.ops.aten), else None."""
    name, inplace, _ = op_kind(func)
    base = name[:-1] if inplace else name
    if base.startswith("__") and base.endswith("__"):
        base = base[2:-2]
    if base not in GEMM_OPS:
        return None
    return out_of_place(torch, func)


def make_gemm_mode(torch, found):
    """TorchFunctionMode computing every GEMM-family call normally and, for its floating
    result, the float64 summand magnitudes and counts, kept in `found[id(result)]`."""
    from torch.overrides import TorchFunctionMode

    def conv(x, f):
        if isinstance(x, torch.Tensor):
            if x.dtype.is_floating_point or x.dtype.is_complex:
                return f(x.detach())
            return x
        if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size):
            return type(x)(conv(y, f) for y in x) if type(x) in (list, tuple) else x
        return x

    def absf(t):
        return t.abs().to(torch.float64)

    def onesf(t):
        return torch.ones(t.shape, dtype=torch.float64)

    def scale(v, ones):
        if isinstance(v, (int, float, complex)) and not isinstance(v, bool):
            return (1.0 if v != 0 else 0.0) if ones else float(abs(v))
        return v

    class Gemm(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            r = func(*args, **kwargs)
            try:
                oop = _gemm_callable(torch, func)
                multi = isinstance(r, tuple)   # convolution_backward: one bound per tensor
                rs = r if multi else (r,)
                if oop is None or not any(isinstance(x, torch.Tensor) and
                                          (x.dtype.is_floating_point or x.dtype.is_complex) for x in rs):
                    return r
                kw = {k: v for k, v in kwargs.items() if k != "out"}
                with torch.no_grad():
                    mag = oop(*conv(args, absf), **{k: scale(v, False) if k in _SCALE_KWARGS
                                                    else conv(v, absf) for k, v in kw.items()})
                    n = oop(*conv(args, onesf), **{k: scale(v, True) if k in _SCALE_KWARGS
                                                   else conv(v, onesf) for k, v in kw.items()})
                mags, ns = (mag, n) if multi else ((mag,), (n,))
                for x, m, c in zip(rs, mags, ns):
                    if isinstance(x, torch.Tensor) and isinstance(m, torch.Tensor) and \
                            isinstance(c, torch.Tensor) and tuple(m.shape) == tuple(x.shape) == tuple(c.shape) \
                            and (x.dtype.is_floating_point or x.dtype.is_complex):
                        found[id(x)] = (x, x._version, m, c)
            except Exception:
                pass  # no magnitude: this result gets no GEMM allowance
            return r

    return Gemm()


def _tensor_leaves(torch, v, path, out, depth=0):
    """Tensors of a value by the leaf paths `_leaves` gives their serialised nodes."""
    if depth > MAX_DEPTH:
        return
    if isinstance(v, torch.Tensor):
        out[path] = v
    elif isinstance(v, (tuple, list)) and not isinstance(v, torch.Size):
        for i, x in enumerate(v):
            _tensor_leaves(torch, x, "%s[%d]" % (path, i), out, depth + 1)
    elif isinstance(v, dict):
        for k, x in v.items():
            _tensor_leaves(torch, x, "%s[%s]" % (path, repr(k)), out, depth + 1)


def attach_gemm_bounds(torch, code, rec):
    """Re-run the snippet under the GEMM mode; set leaf['gemm_mag'], leaf['gemm_n'] on leaves
    that are unmodified results of GEMM-family calls."""
    found = {}
    ns = {"torch": torch, "math": math, "__name__": "__tn_case__"}
    _seed(torch)
    try:
        with make_gemm_mode(torch, found):
            value = execute(code, ns)
    except (Exception, SystemExit):
        return
    if not found:
        return
    tens = {}
    _tensor_leaves(torch, value, "result", tens)
    for name in sorted(ns):
        if not name.startswith("_") and name not in ("torch", "math") and \
                isinstance(ns[name], torch.Tensor):
            tens[name] = ns[name]
    leaves = _all_leaves(rec)
    for path, t in tens.items():
        hit = found.get(id(t))
        for leaf in leaves.get(path) or ():
            if hit is None or hit[0] is not t or t._version != hit[1] or \
                    leaf.get("vkind") not in ("f", "c"):
                continue
            leaf["gemm_mag"] = [float(x) for x in hit[2].reshape(-1).tolist()]
            leaf["gemm_n"] = [float(x) for x in hit[3].reshape(-1).tolist()]


# ---------------------------------------------------------------------------------------------
# dispatch trace (reference only): which operator overloads does the snippet reach?

def overload_name(func):
    """'aten::add.Tensor' for an OpOverload (default overloads end in '.default')."""
    try:
        return "%s::%s.%s" % (func.namespace, func._opname, func._overloadname)
    except AttributeError:
        return str(func)


def trace_ops(torch, code):
    """Run the snippet under a recording TorchDispatchMode; the set of overloads it dispatched."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = set()

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(overload_name(func))
            return func(*args, **(kwargs or {}))

    ns = {"torch": torch, "math": math, "__name__": "__tn_case__"}
    _seed(torch)
    try:
        with Record():
            execute(code, ns)
    except (Exception, SystemExit):
        pass  # what ran up to the error still counts
    return sorted(seen)


_CPU = []


def cpu_capability(torch):
    """The instruction set upstream's ATen dispatches its CPU kernels to (DEFAULT, AVX2,
    AVX512, ...), as ATEN_CPU_CAPABILITY may force it; None where torch cannot tell."""
    if not _CPU:
        try:
            _CPU.append(str(torch.backends.cpu.get_cpu_capability()))
        except Exception:
            _CPU.append(None)
    return _CPU[0]


def run_case(torch, job):
    t0 = time.perf_counter()
    if job.get("trace_only"):   # the coverage gate's trace of a case already run (runner.traces)
        rec = {"cpu": cpu_capability(torch)}
        try:
            rec["ops"] = trace_ops(torch, job["code"])
        except Exception as e:
            rec["ops"], rec["trace_error"] = [], "%s: %s" % (type(e).__name__, e)
        rec["time"] = time.perf_counter() - t0
        return rec
    rec = run_snippet(torch, job["code"], job.get("values", True))
    if job.get("hi"):
        try:
            hi = run_snippet(torch, job["code"], True, make_widening_mode(torch))
            if hi["result"]["k"] == "exc":
                # no err at all: what the failed run left in its variables (an out= tensor
                # resized but never written) is no float64 counterpart of anything
                rec["hi_error"] = "%s: %s" % (hi["result"]["t"], hi["result"]["msg"][:200])
            elif rec["result"]["k"] != "exc":
                attach_float_error(rec, hi)
        except Exception as e:
            rec["hi_error"] = "%s: %s" % (type(e).__name__, e)
        try:
            attach_gemm_bounds(torch, job["code"], rec)
        except Exception as e:
            rec["gemm_error"] = "%s: %s" % (type(e).__name__, e)
    if job.get("cpu"):
        rec["cpu"] = cpu_capability(torch)
    rec["time"] = time.perf_counter() - t0
    return rec


def main():
    job_path, fd, start = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    out = os.fdopen(fd, "w", buffering=1)

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    try:
        import faulthandler
        faulthandler.enable()
    except Exception:
        pass
    try:
        import torch
    except BaseException:
        emit({"fatal": "import torch failed:\n" + traceback.format_exc()[-3000:]})
        return
    emit({"ready": getattr(torch, "__version__", "?")})
    with open(job_path) as f:
        jobs = json.load(f)
    for job in jobs[start:]:
        try:
            rec = run_case(torch, job)
            line = json.dumps(rec)
        except Exception as e:  # serialisation bug: report it as a harness problem for this case
            line = json.dumps({"harness": "worker error: %s: %s" % (type(e).__name__, e)})
        out.write(line + "\n")
        out.flush()


if __name__ == "__main__":
    main()
