"""gradcheck / gradgradcheck over upstream's OpInfo sample inputs, on torchnative.

usage: .venv/bin/python tools/gradcheck_report.py [--ops a,b,...] [--subset] [--samples N]
                                                  [--json out.json] [--verbose]

For every OpInfo in torch.testing._internal.common_methods_invocations.op_db that supports
autograd and float64 on CPU: its sample_inputs(device='cpu', dtype=torch.float64,
requires_grad=True) (seeded, the first N, default 5) go through torch.autograd.gradcheck as
upstream's TestGradients._check_helper builds the call (tensors requiring grad become gradcheck's
inputs, the rest stay in place; op.gradcheck_wrapper, output_process_fn_grad, nondet_tol,
fast_mode, check_grad_dtypes), and through gradgradcheck when the OpInfo supports_gradgrad.
With --forward, also gradcheck(check_forward_ad=True, check_backward_ad=False) (forward-mode AD's
Jacobian-vector products against finite differences) for OpInfos that supports_forward_ad; the
child then runs with PYTORCH_JIT=0 (forward_ad.make_dual imports torch._decomp's JIT-scripted jvp
decompositions when the JIT is on, and torchnative has no TorchScript compiler).
Not run: batched-gradient checks (vmap) and check_undefined_grad (it needs
torch._C._functions.UndefinedGrad, which the autograd layer does not have yet).

Each op ends as one of
  passed    every sample passed gradcheck
  refused   torchnative raised NotImplementedError("torchnative: ...") (a missing op, overload or
            derivative formula) on some sample and no sample failed
  failed    some sample failed: gradcheck's verdict (GradcheckError: a Jacobian mismatch, a
            non-reentrant backward, ...) or any other exception
  skipped   no float64 support or no sample
and the same for gradgradcheck. Ops run in a child process; a crash is recorded for the op that
was running and the child restarts after it.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# A fixed subset for the test suite (tests/test_opinfo_gradcheck.py): families the autograd
# layer covers (pointwise, reductions, views, indexing, linear algebra, softmax/norms, losses).
SUBSET = [
    "abs", "add", "sub", "mul", "div", "pow", "exp", "log", "sin", "tanh", "sigmoid", "sqrt", "rsqrt",
    "reciprocal", "neg", "clamp", "where", "atan2", "hypot", "xlogy", "lerp", "addcmul", "maximum",
    "sum", "mean", "prod", "amax", "var", "std", "logsumexp", "cumsum", "cumprod", "norm", "max", "min",
    "view", "reshape", "permute", "transpose", "expand", "squeeze", "unsqueeze", "select", "narrow",
    "flip", "roll", "cat", "stack", "split", "chunk", "unbind", "tril", "triu", "diagonal",
    "gather", "index_select", "__getitem__", "masked_fill", "masked_select", "scatter_add", "take",
    "mm", "bmm", "addmm", "matmul", "mv", "dot", "baddbmm",
    "softmax", "log_softmax", "nn.functional.layer_norm", "nn.functional.rms_norm", "nn.functional.gelu",
    "nn.functional.silu", "nn.functional.relu", "nn.functional.embedding", "nn.functional.pad",
    "linalg.vector_norm", "topk", "sort",
    "nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d", "nn.functional.conv_transpose1d",
    "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d", "nn.functional.unfold",
    "fft.rfft", "fft.irfftn", "fft.ihfft2", "fft.fftn", "stft",
]

# Forward-mode AD's fixed subset (tests/test_opinfo_gradcheck.py, --forward-only): the families
# forward_ad covers first (elementwise, views, matmul family, reductions, softmax, layer_norm).
FORWARD_SUBSET = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "abs",
    "clamp", "where", "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu",
    "view", "reshape", "transpose", "permute", "expand", "select", "narrow", "unsqueeze", "squeeze", "cat", "stack",
    "mm", "bmm", "addmm", "matmul", "nn.functional.linear",
    "sum", "mean", "amax", "softmax", "log_softmax", "logsumexp", "nn.functional.layer_norm",
    "linalg.pinv", "pinverse", "linalg.lstsq", "linalg.householder_product",
]


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def first_line(e):
    s = f"{type(e).__name__}: {e}".strip()
    return s.splitlines()[0][:300] if s else type(e).__name__


def is_refusal(e):
    return isinstance(e, NotImplementedError) and str(e).startswith("torchnative:")


# ---------------------------------------------------------------------------------------------
# child: runs ops, one JSON line per op on stdout ("BEGIN <key>" before each, for crash blame)

def sample_fn(op, sample):
    """The function gradcheck differentiates for one OpInfo sample, and the tensors it takes (the
    sample's tensors that require grad, lists of tensors and keyword arguments included, in order);
    upstream's test_ops builds the same. Also used by tools/linalg_complex_grads.py's child."""
    import torch
    from torch.testing._internal.common_utils import is_iterable_of_tensors

    if is_iterable_of_tensors(sample.input):
        all_args = list(sample.input) + list(sample.args) + list(sample.kwargs.values())
    else:
        all_args = [sample.input] + list(sample.args) + list(sample.kwargs.values())
    gc_args = tuple(x for x in all_args if isinstance(x, torch.Tensor) and x.requires_grad)

    def recompose(inputs, inp, i):
        if is_iterable_of_tensors(inp):
            out = []
            for x in inp:
                if isinstance(x, torch.Tensor) and x.requires_grad:
                    out.append(inputs[i])
                    i += 1
                else:
                    out.append(x)
            return out, i
        if isinstance(inp, torch.Tensor) and inp.requires_grad:
            return inputs[i], i + 1
        return inp, i

    def fn(*inputs):
        i = 0
        pos = []
        for x in (sample.input, *sample.args):
            v, i = recompose(inputs, x, i)
            pos.append(v)
        kw = {}
        for k, x in sample.kwargs.items():
            kw[k], i = recompose(inputs, x, i)
        out = op.gradcheck_wrapper(op.get_op(), *pos, **kw)
        return sample.output_process_fn_grad(out) if sample.output_process_fn_grad else out

    return fn, gc_args


def _child(keys, samples_cap, start, forward=False, forward_only=False):
    if forward:
        os.environ["PYTORCH_JIT"] = "0"
    import warnings
    warnings.filterwarnings("ignore")
    import torch
    from torch.autograd import gradcheck, gradgradcheck
    from torch.autograd.gradcheck import GradcheckError
    from torch.testing._internal.common_methods_invocations import op_db

    by_key = {op_key(op): op for op in op_db}
    for idx, key in enumerate(keys):
        if idx < start:
            continue
        print("BEGIN", idx, key, flush=True)
        op = by_key[key]
        rec = {"op": key, "grad": None, "gradgrad": None, "samples": [], "seconds": 0.0}
        if forward:
            rec["fwgrad"] = None if op.supports_forward_ad else "n/a"
        t0 = time.time()
        if not op.supports_dtype(torch.float64, "cpu"):
            rec["grad"] = rec["gradgrad"] = "skipped"
            rec["reason"] = "no float64"
            print("RESULT", json.dumps(rec), flush=True)
            continue
        torch.manual_seed(0)
        try:
            samples = list(op.sample_inputs("cpu", torch.float64, requires_grad=True))[:samples_cap]
        except Exception as e:   # the sample generator itself calls ops
            samples = None
            rec["grad"] = "refused" if is_refusal(e) else "failed"
            rec["error"] = "sample_inputs: " + first_line(e)
        if samples is not None and not samples:
            rec["grad"] = rec["gradgrad"] = "skipped"
            rec["reason"] = "no sample"
        for si, sample in enumerate(samples or []):
            srec = {}
            rec["samples"].append(srec)
            fn, gc_args = sample_fn(op, sample)
            if not gc_args:
                srec["grad"] = "skipped"
                continue

            checks = [("grad", lambda: gradcheck(fn, gc_args, check_batched_grad=False, check_grad_dtypes=True,
                                                 nondet_tol=op.gradcheck_nondet_tol, fast_mode=op.gradcheck_fast_mode,
                                                 check_undefined_grad=False))]
            if op.supports_gradgrad:
                def gg():
                    for nc in (False, True):
                        gradgradcheck(fn, gc_args, gen_non_contig_grad_outputs=nc, check_batched_grad=False,
                                      check_grad_dtypes=True, nondet_tol=op.gradcheck_nondet_tol,
                                      fast_mode=op.gradcheck_fast_mode, check_undefined_grad=False)
                    return True
                checks.append(("gradgrad", gg))
            if forward_only:
                checks = []
            if forward and op.supports_forward_ad:
                try:
                    gradcheck(fn, gc_args, check_forward_ad=True, check_backward_ad=False, check_batched_grad=False,
                              check_batched_forward_grad=False, check_grad_dtypes=True, nondet_tol=op.gradcheck_nondet_tol,
                              fast_mode=op.gradcheck_fast_mode, check_undefined_grad=False)
                    srec["fwgrad"] = "passed"
                except GradcheckError as e:
                    srec["fwgrad"] = "failed"
                    srec["fwgrad_error"] = first_line(e)
                except Exception as e:
                    srec["fwgrad"] = "refused" if is_refusal(e) else "failed"
                    srec["fwgrad_error"] = first_line(e)
            for what, check in checks:
                try:
                    check()
                    srec[what] = "passed"
                except GradcheckError as e:
                    srec[what] = "failed"
                    srec[what + "_error"] = first_line(e)
                except Exception as e:
                    srec[what] = "refused" if is_refusal(e) else "failed"
                    srec[what + "_error"] = first_line(e)
                if srec[what] != "passed":
                    break   # gradgradcheck only after gradcheck passed
        for what in ("grad", "gradgrad") + (("fwgrad",) if forward else ()):
            if rec[what] is not None:
                continue
            got = [s.get(what) for s in rec["samples"] if s.get(what)]
            if what == "fwgrad":
                rec[what] = ("failed" if "failed" in got else "refused" if "refused" in got else
                             "passed" if "passed" in got else "skipped")
            elif what == "gradgrad" and not op.supports_gradgrad:
                rec[what] = "n/a"
            elif "failed" in got:
                rec[what] = "failed"
            elif "refused" in got:
                rec[what] = "refused"
            elif "passed" in got:
                rec[what] = "passed"
            else:
                rec[what] = "skipped" if what == "grad" or rec["grad"] != "passed" else "n/a"
            errs = [s[what + "_error"] for s in rec["samples"] if s.get(what) == rec[what] and (what + "_error") in s]
            if errs and rec[what] in ("failed", "refused"):
                rec[what + "_error"] = errs[0]
        if rec["grad"] != "passed" and rec["gradgrad"] not in ("n/a", "skipped"):
            rec["gradgrad"] = "n/a" if not op.supports_gradgrad else rec["gradgrad"]
        rec["seconds"] = round(time.time() - t0, 2)
        print("RESULT", json.dumps(rec), flush=True)


# ---------------------------------------------------------------------------------------------
# parent

def select_ops(names=None):
    """OpInfo keys (name[.variant]) that support autograd, in op_db order."""
    import warnings
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db
    keys = []
    for op in op_db:
        if not op.supports_autograd:
            continue
        if names is not None and op.name not in names and op_key(op) not in names:
            continue
        if op_key(op) not in keys:
            keys.append(op_key(op))
    return keys


def run(keys, samples_cap=5, python=sys.executable, timeout=1800, verbose=False, forward=False, forward_only=False):
    """Run the child over keys; returns {key: record}. A crash (or a hang past `timeout` seconds
    without a result) is recorded as failed for the op that was running, and the child goes on
    after it."""
    results = {}
    start = 0
    while start < len(keys):
        proc = subprocess.Popen([python, os.path.abspath(__file__), "--child", "--samples", str(samples_cap),
                                 "--start", str(start), "--keys", json.dumps(keys)] + (["--forward"] if forward else []) + (["--forward-only"] if forward_only else []),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        current = None
        last = time.time()
        import selectors
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        hung = False
        while True:
            if not sel.select(timeout=5):
                if time.time() - last > timeout:
                    proc.kill()
                    hung = True
                    break
                if proc.poll() is not None:
                    break
                continue
            line = proc.stdout.readline()
            if not line:
                break
            last = time.time()
            if line.startswith("BEGIN "):
                _, idx, key = line.split(" ", 2)
                current = int(idx)
            elif line.startswith("RESULT "):
                rec = json.loads(line[len("RESULT "):])
                results[rec["op"]] = rec
                current = None
                if verbose:
                    print(f"{rec['op']:40s} grad={rec['grad']:8s} gradgrad={rec['gradgrad']:8s} fwgrad={rec.get('fwgrad') or '-':8s} "
                          f"{rec.get('grad_error') or rec.get('gradgrad_error') or rec.get('fwgrad_error') or rec.get('error') or ''}"[:240],
                          flush=True)
        proc.wait()
        stderr = proc.stderr.read()
        if current is None:
            if proc.returncode != 0 and len(results) < len(keys) and start == 0 and not results:
                raise RuntimeError(f"gradcheck child failed before any op:\n{stderr[-3000:]}")
            break
        why = "hung (killed)" if hung else f"crashed (exit {proc.returncode}): {stderr.strip().splitlines()[-1:] }"
        results[keys[current]] = {"op": keys[current], "grad": "failed", "gradgrad": "n/a", "crash": True,
                                  "grad_error": f"the process {why}", "samples": []}
        if verbose:
            print(f"{keys[current]:40s} CRASH {why}", flush=True)
        start = current + 1
    return results


def summarize(results):
    c = {k: 0 for k in ("tried", "grad_passed", "grad_failed", "grad_refused", "grad_skipped", "gradgrad_passed",
                        "gradgrad_failed", "gradgrad_refused", "crashed", "fwgrad_passed", "fwgrad_failed",
                        "fwgrad_refused")}
    for r in results.values():
        if r.get("fwgrad") in ("passed", "failed", "refused"):
            c["fwgrad_" + r["fwgrad"]] += 1
        if r["grad"] == "skipped":
            c["grad_skipped"] += 1
            continue
        c["tried"] += 1
        c["grad_" + r["grad"]] += 1
        if r["gradgrad"] in ("passed", "failed", "refused"):
            c["gradgrad_" + r["gradgrad"]] += 1
        c["crashed"] += bool(r.get("crash"))
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--keys")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--ops", help="comma-separated OpInfo names (default: all that support autograd)")
    ap.add_argument("--subset", action="store_true", help="the test suite's fixed subset (FORWARD_SUBSET with --forward-only)")
    ap.add_argument("--json", help="write every op's record here")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--forward", action="store_true", help="also check forward-mode AD (supports_forward_ad)")
    ap.add_argument("--forward-only", action="store_true", help="only the forward-mode AD check")
    a = ap.parse_args()
    if a.child:
        _child(json.loads(a.keys), a.samples, a.start, a.forward or a.forward_only, a.forward_only)
        return 0
    names = (set(a.ops.split(",")) if a.ops else set(FORWARD_SUBSET) if a.subset and a.forward_only
             else set(SUBSET) if a.subset else None)
    keys = select_ops(names)
    t0 = time.time()
    a.forward = a.forward or a.forward_only
    results = run(keys, a.samples, verbose=a.verbose, forward=a.forward, forward_only=a.forward_only)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    c = summarize(results)
    print(f"OpInfos supporting autograd: {len(keys)} ({c['grad_skipped']} skipped: no float64 or no sample)")
    print(f"ops tried:                   {c['tried']}")
    print(f"passing gradcheck:           {c['grad_passed']}")
    print(f"passing gradgradcheck:       {c['gradgrad_passed']}  (gradgrad failed {c['gradgrad_failed']}, "
          f"refused {c['gradgrad_refused']})")
    print(f"refused (torchnative):       {c['grad_refused']}")
    print(f"failing gradcheck:           {c['grad_failed']}  (crashes: {c['crashed']})")
    if a.forward:
        print(f"forward AD (check_forward_ad): passed {c['fwgrad_passed']}, refused {c['fwgrad_refused']}, "
              f"failed {c['fwgrad_failed']}")
    failing = [k for k, r in results.items() if r["grad"] == "failed" or r["gradgrad"] == "failed"
               or r.get("fwgrad") == "failed"]
    # the same samples and checks on upstream: a failure upstream shares is the check's, not ours
    ref_py = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".venv-ref", "bin", "python")
    ref = run(failing, a.samples, python=ref_py, forward=a.forward, forward_only=a.forward_only) if failing and os.path.exists(ref_py) else {}
    for k in failing:
        r = results[k]
        what = "grad" if r["grad"] == "failed" else "gradgrad" if r["gradgrad"] == "failed" else "fwgrad"
        up = ref.get(k, {}).get(what)
        note = " [fails on upstream too]" if up == "failed" else ""
        print(f"  FAILED {what:8s} {r['op']}{note}: {r.get(what + '_error') or r.get('error')}")
    print(f"({time.time() - t0:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
