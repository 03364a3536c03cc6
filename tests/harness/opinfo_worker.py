"""OpInfo worker: runs upstream's OpInfo sample inputs inside one interpreter (see opinfo.py).

Executed by the interpreter under test (the reference `.venv-ref` or the subject `.venv`), never
imported by pytest; it speaks runner.run_batch's protocol (a "ready" line, then one JSON line per
job on a private file descriptor) so a crash loses only the job (one OpInfo entry) that caused it.
Values are serialised with worker.py's `ser` (the golden harness's neutral JSON).

A job is one OpInfo entry (`name` or `name.variant_test_name`) and one side:

  reference  for each dtype of the job that the entry supports on CPU: torch.manual_seed(0), the
             entry's sample_inputs('cpu', dtype) (all of them, then `cap` picked by a seeded
             spread), each sample (input, args, kwargs) torch.save'd to bytes; the list of
             (dtype, index, bytes) is pickled to the job's file. Then each sample is loaded
             back from its bytes and run as the subject will run it, plus the float rule's
             extra runs (worker.make_widening_mode: upstream's own float64 error `err`;
             worker.make_gemm_mode: summand magnitudes of matrix products).
  subject    loads that file and runs every sample once.
  extras     (reference) the float rule's extra runs for the samples listed: with "defer" the
             reference's first job leaves them out, and they are made only for a sample whose
             subject value differs beyond the rule with err = 0 and no GEMM allowance.

Running a sample: load its bytes (torch.load, weights_only=False), torch.manual_seed(0),
`op(input, *args, **kwargs)` (the OpInfo's function variant, as upstream's TestCommon calls it);
the record holds the result (or the exception) and the inputs after the call (aliasing with the
result, in-place effects).

The same worker runs upstream's ModuleInfo suite (`common_modules.module_db`, job "suite":
"module"): a sample is one ModuleInput in eval mode, and in train mode too where the ModuleInfo
says they differ. The reference builds the module (torch.manual_seed(0), the constructor input)
and ships its class, constructor arguments and state_dict with the forward input; both sides
then run `module_call`: build the module, load that state (so both start from the same
parameters and buffers, whatever each side's initialisation draws), set the mode, forward, and
the gradients of the outputs (fixed non-random grad_outputs) with respect to every floating
input and parameter that requires grad. The record holds the output, those gradients and the
module's buffers after the call (running statistics).

Usage: python opinfo_worker.py JOBFILE RESULT_FD START_INDEX
"""
import io
import json
import os
import pickle
import random
import sys
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worker as hw  # noqa: E402  (the golden harness's worker: serialisation, float-rule modes)


def first_line(e):
    s = ("%s: %s" % (type(e).__name__, e)).strip()
    return s.splitlines()[0][:300] if s else type(e).__name__


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def pick(n, cap, key, dtype):
    """Indices of the samples to run: all, or `cap` of them spread by a seed fixed per
    (entry, dtype) (the first sample always included: often the plainest)."""
    if cap is None or n <= cap:
        return list(range(n))
    rnd = random.Random(zlib.crc32(("%s|%s" % (key, dtype)).encode()))
    return [0] + sorted(rnd.sample(range(1, n), cap - 1))


def dumps(torch, sample):
    buf = io.BytesIO()
    torch.save((sample.input, tuple(sample.args), dict(sample.kwargs)), buf)
    return buf.getvalue()


def dumps_module_sample(torch, info, minput, training):
    """A ModuleInput as (spec, forward args, forward kwargs) bytes; spec names the class and
    carries the constructor input and the reference module's state."""
    cls = info.module_cls
    ci = minput.constructor_input
    torch.manual_seed(0)
    m = cls(*ci.args, **ci.kwargs)
    if info.is_lazy:   # materialised by one call, so the shipped state holds real parameters
        with torch.no_grad():
            m(*minput.forward_input.args, **minput.forward_input.kwargs)
    spec = {"cls": cls.__module__ + "." + cls.__qualname__, "cargs": tuple(ci.args),
            "ckwargs": dict(ci.kwargs), "state": m.state_dict(), "training": bool(training),
            "desc": minput.desc}
    buf = io.BytesIO()
    torch.save((spec, tuple(minput.forward_input.args), dict(minput.forward_input.kwargs)), buf)
    return buf.getvalue()


def _grad_out(torch, t):
    """A fixed, non-random grad_output exact in every floating dtype: (i % 7 - 3) / 4."""
    g = (torch.arange(t.numel()) % 7 - 3).to(t.dtype) / 4
    return g.reshape(t.shape)


def module_call(spec, *args, **kwargs):
    """Build spec's module with its state, run it in spec's mode, and return (output, the
    gradients of the output with respect to the floating inputs and parameters that require
    grad, the buffers after the call)."""
    import importlib
    import torch
    modname, _, qual = spec["cls"].rpartition(".")
    cls = getattr(importlib.import_module(modname), qual)
    import contextlib
    from torch.overrides import _pop_mode_temporarily
    # built and differentiated outside the float rule's widening mode (worker.make_widening_mode),
    # which would turn the parameters (and autograd.grad's inputs) into new float64 tensors;
    # only the forward call runs under it
    def outside():
        return _pop_mode_temporarily() if torch._C._len_torch_function_stack() else contextlib.nullcontext()
    with outside():
        torch.manual_seed(0)
        m = cls(*spec["cargs"], **spec["ckwargs"])
        m.load_state_dict(spec["state"])
        m.train(spec["training"])
    torch.manual_seed(0)
    out = m(*args, **kwargs)
    flat = out if isinstance(out, (tuple, list)) else (out,)
    outs = [t for t in flat if isinstance(t, torch.Tensor) and t.requires_grad]
    named = [("input%d" % i, a) for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    named += [(n, p) for n, p in m.named_parameters()]
    named = [(n, t) for n, t in named if t.requires_grad and (t.is_floating_point() or t.is_complex())]
    grads = {}
    if outs and named:
        with outside():
            gs = torch.autograd.grad(outs, [t for _, t in named], [_grad_out(torch, o) for o in outs],
                                     allow_unused=True)
        grads = {n: g for (n, _), g in zip(named, gs)}
    return out, grads, dict(m.named_buffers())


def loads(torch, blob):
    return torch.load(io.BytesIO(blob), weights_only=False)


def run_sample(torch, op, blob, mode=None):
    """The record of one call: {"result", "vars"} as worker.run_snippet makes them."""
    try:
        inp, args, kwargs = loads(torch, blob)
    except Exception as e:
        return {"load_error": first_line(e)}
    hw._seed(torch)
    try:
        if mode is None:
            value = op(inp, *args, **kwargs)
        else:
            with mode:
                value = op(inp, *args, **kwargs)
        raised = None
    except (Exception, SystemExit) as e:
        value, raised = None, e
    ctx = hw._Ctx()
    rec = {"result": hw.ser_exc(raised) if raised is not None else hw.ser(torch, value, ctx)}
    rec["vars"] = {"input": hw.ser(torch, inp, ctx), "args": hw.ser(torch, list(args), ctx),
                   "kwargs": hw.ser(torch, kwargs, ctx)}
    if raised is not None:
        rec["traceback"] = "".join(traceback.format_exception(raised)[-3:])[-800:]
    return rec, value, (inp, args, kwargs)


SCALE64 = 2.0 ** -29   # eps(float64) / eps(float32)


def make_narrowing_mode(torch):
    """worker.make_widening_mode's mirror: every float64 (complex128) tensor argument and
    dtype argument of every call becomes float32 (complex64); factories without tensor
    arguments and random draws run unchanged."""
    from torch.overrides import TorchFunctionMode

    def narrow(x):
        if isinstance(x, torch.Tensor):
            if x.dtype == torch.float64:
                return x.to(torch.float32)
            if x.dtype == torch.complex128:
                return x.to(torch.complex64)
            return x
        if isinstance(x, torch.dtype):
            return {torch.float64: torch.float32, torch.complex128: torch.complex64}.get(x, x)
        if type(x) in (list, tuple):
            return type(x)(narrow(y) for y in x)
        return x

    def has_tensor(x):
        if isinstance(x, torch.Tensor):
            return True
        if isinstance(x, (list, tuple)):
            return any(has_tensor(y) for y in x)
        if isinstance(x, dict):
            return any(has_tensor(y) for y in x.values())
        return False

    class Narrow(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name, inplace, _ = hw.op_kind(func)
            if name in hw._RANDOM or not has_tensor((args, kwargs)):
                return func(*args, **kwargs)
            if name == "double" and len(args) == 1 and not kwargs:
                return narrow(args[0])
            inplace = inplace or name.startswith("__i") or name == "__setitem__"
            return func(*[a if (i == 0 and inplace) else narrow(a) for i, a in enumerate(args)],
                        **{k: (v if k == "out" else narrow(v)) for k, v in kwargs.items()})

    return Narrow()


def attach_float64_error(torch, op, blob, rec):
    """For float64 / complex128 leaves, whose err the widening re-run cannot measure (it is 0):
    err = eps(float64)/eps(float32) * max |ref - ref_float32|, where ref_float32 is the same
    sample run with every float64 argument narrowed to float32. Upstream's float64 error
    scaled down from its float32 error at the ratio of the two unit roundoffs: the same
    algorithm, the same order of operations, a 2^29 times finer rounding."""
    leaves = [x for xs in hw._all_leaves(rec).values() for x in xs
              if x.get("vkind") in ("f", "c") and x.get("dtype") in ("float64", "complex128")]
    if not leaves:
        return
    lo = run_sample(torch, op, blob, make_narrowing_mode(torch))
    if isinstance(lo, dict) or lo[0]["result"]["k"] == "exc":
        rec["lo_error"] = lo.get("load_error") if isinstance(lo, dict) else lo[0]["result"]["t"]
        return
    wide = {id(x) for x in leaves}
    everything = [x for xs in hw._all_leaves(rec).values() for x in xs]
    saved = {id(x): (x.get("err"), "err" in x) for x in everything}
    hw.attach_float_error(rec, lo[0])   # sets err on every floating leaf: keep only float64's
    for x in everything:
        old, had = saved[id(x)]
        if id(x) in wide and x.get("err") is not None:
            x["err"] = max(old or 0.0, x["err"] * SCALE64)
        elif had:
            x["err"] = old
        else:
            x.pop("err", None)


def gemm_bounds(torch, op, blob, rec):
    """worker.attach_gemm_bounds for a sample: leaves that are unmodified results of
    GEMM-family calls get gemm_mag / gemm_n."""
    found = {}
    try:
        inp, args, kwargs = loads(torch, blob)
        hw._seed(torch)
        with hw.make_gemm_mode(torch, found):
            value = op(inp, *args, **kwargs)
    except (Exception, SystemExit):
        return
    if not found:
        return
    tens = {}
    hw._tensor_leaves(torch, value, "result", tens)
    hw._tensor_leaves(torch, inp, "input", tens)
    hw._tensor_leaves(torch, list(args), "args", tens)
    hw._tensor_leaves(torch, kwargs, "kwargs", tens)
    leaves = hw._all_leaves(rec)
    for path, t in tens.items():
        hit = found.get(id(t))
        for leaf in leaves.get(path) or ():
            if hit is None or hit[0] is not t or t._version != hit[1] or \
                    leaf.get("vkind") not in ("f", "c"):
                continue
            leaf["gemm_mag"] = [float(x) for x in hit[2].reshape(-1).tolist()]
            leaf["gemm_n"] = [float(x) for x in hit[3].reshape(-1).tolist()]


def one(torch, op, blob, reference, defer=False):
    """One sample's record; the reference's also carries the float rule's extra runs, or with
    `defer` is marked "deferred" instead (opinfo.Sweep asks for them where a value differs)."""
    got = run_sample(torch, op, blob)
    if isinstance(got, dict):
        return got
    rec, value, _ = got
    if reference and rec["result"]["k"] != "exc" and defer:
        rec["deferred"] = True
    elif reference and rec["result"]["k"] != "exc":
        try:
            hi = run_sample(torch, op, blob, hw.make_widening_mode(torch))
            if isinstance(hi, dict):
                rec["hi_error"] = hi["load_error"]
            elif hi[0]["result"]["k"] == "exc":
                rec["hi_error"] = "%s: %s" % (hi[0]["result"]["t"], hi[0]["result"]["msg"][:200])
            else:
                hw.attach_float_error(rec, hi[0])
        except Exception as e:
            rec["hi_error"] = first_line(e)
        try:
            attach_float64_error(torch, op, blob, rec)
        except Exception as e:
            rec["lo_error"] = first_line(e)
        try:
            gemm_bounds(torch, op, blob, rec)
        except Exception as e:
            rec["gemm_error"] = first_line(e)
    return rec


# Ops whose returned indices upstream leaves unspecified among equal keys: unstable sorts
# (x86-simd-sort on AVX2 / AVX-512 for int32/int64/float/double, an ISA-dependent order;
# std::sort otherwise), std::nth_element / partial_sort (topk), quickselect (kthvalue, median,
# mode). The comparison (opinfo.py) then checks the keys the indices select instead of the
# indices. Each entry: a Python signature (self first) and the result path of the indices.
def _sort(input, dim=-1, descending=False, stable=False): pass          # noqa: E704
def _topk(input, k, dim=-1, largest=True, sorted=True): pass           # noqa: E704
def _kth(input, k, dim=-1, keepdim=False): pass                       # noqa: E704
def _dimred(input, dim=None, keepdim=False): pass                     # noqa: E704
def _mode(input, dim=-1, keepdim=False): pass                         # noqa: E704


TIES = {"sort": (_sort, "result[1]"), "argsort": (_sort, "result"), "topk": (_topk, "result[1]"),
        "kthvalue": (_kth, "result[1]"), "median": (_dimred, "result[1]"),
        "nanmedian": (_dimred, "result[1]"), "mode": (_mode, "result[1]")}


def tie_rule(name, blob, torch):
    """{"dim", "keepdim", "path"} when the sample's indices may differ among equal keys."""
    import inspect
    fn, path = TIES[name]
    inp, args, kwargs = loads(torch, blob)
    try:
        b = inspect.signature(fn).bind(inp, *args, **kwargs)
    except TypeError:
        return None
    b.apply_defaults()
    a = b.arguments
    if a.get("stable") or a.get("dim", -1) is None:
        return None   # stable sorts and full reductions: indices are exact
    return {"dim": int(a["dim"]), "keepdim": bool(a.get("keepdim", True)), "path": path}


def _samples(torch, info, dt, module):
    """The entry's samples for one dtype: (sample, training) pairs for a ModuleInfo (eval mode,
    and train mode where the two differ), (sample, None) for an OpInfo."""
    if not module:
        return [(x, None) for x in info.sample_inputs("cpu", getattr(torch, dt))]
    modes = (False, True) if info.train_and_eval_differ else (False,)
    return [(x, tr) for tr in modes for x in info.module_inputs_func(
        info, device="cpu", dtype=getattr(torch, dt), requires_grad=True, training=tr)]


def run_job(torch, by_key, job):
    t0 = time.perf_counter()
    key, reference = job["key"], job["side"] == "ref"
    module = job.get("suite") == "module"
    info = by_key.get(key)
    out = {"key": key, "samples": []}
    if info is None:
        out["missing"] = True
        return out
    op = module_call if module else info
    if job["side"] == "extras":   # the float rule's extra runs for the listed samples
        with open(job["file"], "rb") as f:
            want = {(dt, i) for dt, i in job["samples"]}
            blobs = [b for b in pickle.load(f) if (b[0], b[1]) in want]
        reference = True
    elif reference:
        blobs, gen_errors, unshippable = [], {}, []
        for dt in job["dtypes"]:
            dtype = getattr(torch, dt)
            if (dtype not in info.supported_dtypes("cpu")) if module else not info.supports_dtype(dtype, "cpu"):
                continue
            hw._seed(torch)
            try:
                samples = _samples(torch, info, dt, module)
            except Exception as e:
                gen_errors[dt] = first_line(e)
                continue
            for i in pick(len(samples), job.get("cap"), key, dt):
                try:
                    x, tr = samples[i]
                    blobs.append((dt, i, dumps_module_sample(torch, info, x, tr) if module
                                  else dumps(torch, x)))
                except Exception as e:
                    unshippable.append([dt, i, first_line(e)])
        with open(job["file"], "wb") as f:
            pickle.dump(blobs, f)
        out["gen_errors"], out["unshippable"] = gen_errors, unshippable
        out["family"] = "nn" if module else job_family(torch, info)
        out["nondet"] = bool(getattr(info, "has_nondeterministic_output", False))
    else:
        with open(job["file"], "rb") as f:
            blobs = pickle.load(f)
    for dt, i, blob in blobs:
        rec = one(torch, op, blob, reference, defer=job.get("defer", False))
        rec["dtype"], rec["i"] = dt, i
        if job["side"] == "ref" and not module and info.name in TIES:
            try:
                rec["ties"] = tie_rule(info.name, blob, torch)
            except Exception as e:
                rec["ties_error"] = first_line(e)
        out["samples"].append(rec)
    out["time"] = round(time.perf_counter() - t0, 3)
    return out


def job_family(torch, op):
    """A family for the report: the namespace of dotted names (nn.functional, linalg, special,
    fft, masked, signal.windows, sparse, ...), else the OpInfo's kind."""
    name = op.name
    if "." in name:
        return name.rsplit(".", 1)[0]
    from torch.testing._internal import opinfo
    for cls, fam in ((opinfo.core.UnaryUfuncInfo, "unary"), (opinfo.core.BinaryUfuncInfo, "binary"),
                     (opinfo.core.ReductionOpInfo, "reduction"), (opinfo.core.ShapeFuncInfo, "shape"),
                     (opinfo.core.ForeachFuncInfo, "foreach")):
        if isinstance(op, cls):
            return fam
    return "other"


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
        import warnings
        warnings.filterwarnings("ignore")
        import torch
        with open(job_path) as f:
            jobs = json.load(f)
        by_key = {}
        if any(j.get("suite") == "module" for j in jobs):
            from torch.testing._internal.common_modules import module_db
            for info in module_db:
                by_key.setdefault(info.name, info)
        else:
            from torch.testing._internal.common_methods_invocations import op_db
            for op in op_db:
                by_key.setdefault(op_key(op), op)
    except BaseException:
        emit({"fatal": "import failed:\n" + traceback.format_exc()[-3000:]})
        return
    emit({"ready": getattr(torch, "__version__", "?")})
    for job in jobs[start:]:
        try:
            line = json.dumps(run_job(torch, by_key, job))
        except Exception as e:
            line = json.dumps({"harness": "worker error: %s" % first_line(e),
                               "tb": traceback.format_exc()[-1500:]})
        out.write(line + "\n")
        out.flush()


if __name__ == "__main__":
    main()
