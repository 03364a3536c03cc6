"""Runs harness cases on the reference and the subject interpreter and checks agreement.

Two interpreters are involved: the reference (upstream torch 2.13.0, `$TN_REF_PYTHON`, default
`<repo>/.venv-ref/bin/python`) and the subject (our torch, `$TN_SUBJECT_PYTHON`, default
`<repo>/.venv/bin/python`). The pytest process never imports torch: all cases of a session are
run in ONE worker subprocess per interpreter (worker.py; both sides run concurrently), which
writes one JSON line per case (two reference workers, tried in one CI rehearsal together with the
sanitizer build at nice 19 beside make test, oversubscribed the two cores: make test took 37 min
instead of 33, 62 CPU-minutes instead of about 41). If a worker crashes or a case exceeds `$TN_CASE_TIMEOUT` seconds
(default 300: a hang detector, not a speed limit — `make test` runs two pytest streams beside
Flower federations on two cores, where a case that takes 3 s alone was seen to pass 60 s), that
case is recorded as a harness failure and a fresh worker continues after it.
Reference results are cached in `$TN_GOLDEN_CACHE` (default `<repo>/build/golden-cache/`), one
file per case keyed by sha256(worker.py text, reference torch version, the REF_PATH_VARS set in
the environment, snippet and options), so re-runs only execute the subject side; any change to a
snippet changes its key. `TN_NO_CACHE=1` disables the cache. The reference record also carries
the case's dispatch trace (`ops`, see worker.py) once the coverage gate (coverage.py,
tests/test_coverage_gate.py) has asked for it (`traces`: another run of the snippet, made only for
the cases the gate needs; tracing every case took 44 % of the reference's time).

What is compared (comparator.py): kind of result; for tensors the class, dtype, shape, device,
layout, is_contiguous, requires_grad, grad_fn class, `_is_view()`, the aliasing pattern (storage
and object labels numbered in order of first appearance over the result, then the snippet's named
tensor variables sorted by name), strides and storage_offset (when the case says `strides=True`,
or by default when the reference tensor is a view or shares storage with another tensor of the
case) and values; Python scalars by type and value; strings, reprs, dtype/Size/device texts
byte for byte; sequences and dicts recursively; exceptions by class name only (the message is
kept for diagnostics). One side raising while the other computes is a failure.

Values: integers and bools bit-exact; floats exact by default (NaN matches NaN in the same
position, +0 and -0 differ, inf must match), or with the case's tolerance:

  tol=(atol, rtol):  |sub - ref| <= atol + rtol * |ref|
  tol="float":       |sub - ref| <= max(K * err, G) + F * eps(dtype) * |ref|,  K = 2, F = 2
  tol="lapack":      |sub - ref| <= 4 * err + F * eps(dtype) * max|ref|   (max over the tensor)

where eps(dtype) is the machine epsilon of the output dtype (bf16 2^-7, f16 2^-10, f32 2^-23,
f64 2^-52; Python floats count as f64), so F * eps * |ref| is 2 to 4 ulps of ref, and `err` is
upstream's own error for that output: the reference runs the snippet a second time (same
seed) under a TorchFunctionMode that widens every floating tensor argument and floating dtype
argument of every call to float64 (complex to complex128), leaving alone factory calls without
tensor arguments and random draws (so the same random inputs are used), view ops (a widened
copy would lose writes through the view: make_tensor fills complex tensors through
view_as_real), the self of in-place
calls and `out=` tensors; a call with a narrow `out=` tensor runs its functional form in float64
and is delivered into `out` (rounded once), and an in-place call that refuses the wider
arguments (addmm_) likewise into self; `err` is the largest |ref - ref_float64| over positions
where both are finite. If that re-run fails (or the snippet itself raises) or its structure
differs, err counts as 0 (the floor alone applies) and the failure message says so. Non-finite
values are always compared exactly. Complex numbers are compared per component.
The float64 re-run and the GEMM bounds below are made only when they can matter: the rule only
widens with err and G, so the reference's first run skips them (the record is marked
`hi_deferred`) and a case whose subject values fail the rule with err = G = 0 gets its reference
run again in full before it is judged (Runner._complete; `Runner.reference` always returns the
full record). In a run of all tests/cases, 1,152 of the 6,703 float-tolerance cases needed it;
the float64 re-run doubles a case's reference time.

G is 0 except for a tensor returned by a GEMM-family call (mm, bmm, addmm, baddbmm, addbmm,
matmul / @, linear, mv, addmv, dot, vdot, inner, einsum, tensordot, and the convolutions conv1d/2d/3d,
conv_transpose1d/2d/3d, convolution, _convolution, convolution_backward (each tensor of its
tuple); any spelling: function,
method, in-place, out=, torch.ops.aten) and not modified afterwards, where per element

  G_i = (n_i + 2) * eps(acc) * mag_i      (times sqrt(2) for complex)

mag_i = |alpha| sum_k |a_ik b_kj| + |beta| |c_ij| and n_i = the number of those summands, both
from a third reference run of the snippet (worker.attach_gemm_bounds; the same call on float64
absolute values and on all-ones inputs), eps(acc) the epsilon of the accumulation type (float32
for float16/bfloat16/float32 outputs, upstream's opmath type; float64 for float64). Why: a
product's bits depend on its summation order, which upstream's MKL/oneDNN pick by CPU model,
instruction set, shape and thread count, so exact agreement holds on one host only; every order
lies within gamma(n + 1) * mag of the exact value (Higham, sec. 3.1), so two correct ones lie
within (n + 2) * eps * mag of each other. err alone cannot stand in for this: it samples one
order's error (and is 0 for float64 outputs, which the widening cannot widen), and the ulp floor
is far too tight where the sum cancels. A wrong product (a lost term, a wrong operand) exceeds G
unless its error is itself under the rounding bound. Matrix products therefore take tol="float"
in every case file (integer products stay exact; so do products of small dyadic inputs, which
are exact in any order). Results derived from a product by further operations (softmax of
scores, attention) get no G: their tolerance comes from err as before.

tol="lapack" is for the results of LAPACK solvers and factorisations (solve, lu_solve, lstsq,
ldl, ormqr, ...), which upstream hands to MKL and torchnative to its own LAPACK build. Their
error guarantees are normwise (a backward-stable solve has ||x^ - x|| <= c(n) cond eps ||x||;
Higham, Accuracy and Stability of Numerical Algorithms, chs. 7, 9, 20): a small component of a
solution carries the rounding of its largest ones, so the ulp floor is taken of the largest
|ref| of the tensor rather than of each element. And the multiple of upstream's own error is 4,
not 2: the error of one float32 solve samples one algorithm's rounding, and correct algorithms'
errors on the same system differ by a factor of about 3 -- upstream's own four lstsq drivers
(gelsy, gels, gelsd, gelss) on one 3x5 complex64 system: 1.5e-7 to 4.8e-7 (|x - x_float64|,
max over the solution), torchnative's 1.5e-7 to 4.4e-7 -- and MKL's and the reference LAPACK's
versions of one driver differ as much (gelsy there: upstream 1.8e-7, torchnative 4.4e-7). MKL
picks its kernels by CPU, so upstream's own sample moves between hosts: on an AVX2-only host
lu_solve(left=False, adjoint=True) on a 4x4 float32 system differed from ours by 8.9e-8 (1.5
ulps of the row's largest value 0.63, 12 ulps of the element 0.065), the two errors being
4e-8 / 8e-8, where an AVX-512 host agreed within the float rule.

Host assumptions: reference records depend on the host where upstream ran (they are cached per
working copy under build/; the key includes the variables below that change upstream's code
paths). Upstream's ATen dispatches its vectorised kernels by CPU capability
(ATEN_CPU_CAPABILITY=default|avx2|avx512 forces one): AVX2 and AVX-512 give the same bits on
every exact case (values under tol="float" may move within the rule), but DEFAULT (x86-64 without
AVX2) changes exact results, which torchnative matches in their vectorised form only: randn /
normal of 16 or more elements (normal_fill instead of normal_fill_AVX2: about 230 cases whose
inputs are such draws), nn.Linear's uniform init, linspace and float64 arange steps, bfloat16
NaN bits (signbit, .bfloat16().view(int16)), complex64 log2(0) (-inf+nan j). The golden values
therefore assume a reference running at AVX2 or AVX-512; the reference's capability is recorded
in each record (`cpu`), shown in the session summary, and a failure under DEFAULT says so.
MKL_CBWR=COMPATIBLE and ONEDNN_MAX_CPU_ISA=AVX2 (other BLAS / oneDNN code paths) change no
verdict. Threads: the workers run with OMP_NUM_THREADS=MKL_NUM_THREADS=1 unless the environment
sets them; with 2 threads upstream's results change only under tol="float" (softmax over dim 0).
"""
import glob
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from hashlib import sha256
from pathlib import Path

from .case import Case, all_cases
from .comparator import compare, report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORKER = HERE / "worker.py"


def ref_python():
    return os.environ.get("TN_REF_PYTHON", str(ROOT / ".venv-ref" / "bin" / "python"))


def subject_python():
    return os.environ.get("TN_SUBJECT_PYTHON", str(ROOT / ".venv" / "bin" / "python"))


def cache_dir():
    return Path(os.environ.get("TN_GOLDEN_CACHE", str(ROOT / "build" / "golden-cache")))


def torch_version_of(python):
    """Version of torch installed for `python`, from its dist-info (no torch import)."""
    venv = Path(python).parent.parent
    hits = sorted(glob.glob(str(venv / "lib" / "python*" / "site-packages" / "torch-*.dist-info")))
    if hits:
        return Path(hits[-1]).name[len("torch-"):-len(".dist-info")]
    try:
        out = subprocess.run([python, "-c", "import importlib.metadata as m;"
                              "print(m.version('torch'))"], capture_output=True, text=True,
                             timeout=60)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# Environment variables that change which code paths upstream takes (and so its bits); part of
# the reference cache key.
REF_PATH_VARS = ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_CBWR",
                 "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA",
                 "FBGEMM_ENABLE_INSTRUCTIONS")


def fbgemm_vnni():
    """Whether upstream's fbgemm (its quantized Linear kernels) and oneDNN (its quantized
    convolutions) run their AVX-512 VNNI paths here: the CPU has avx512_vnni (with avx512bw / vl) and
    FBGEMM_ENABLE_INSTRUCTIONS / ONEDNN_MAX_CPU_ISA, if set, allow them.
    Without VNNI its AVX2 / AVX-512 paths sum uint8 x int8 pairs in saturating int16 (vpmaddubsw)
    and its float16 GEMM sums in another order, so their bits are another host's: measured with
    FBGEMM_ENABLE_INSTRUCTIONS=AVX2 and =AVX512, 23 of 91 quantized Linear cases differ."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return False
    forced = os.environ.get("FBGEMM_ENABLE_INSTRUCTIONS", "").upper()
    # the quantized convolutions run on oneDNN there (docs/quant_tensors.md): ONEDNN_MAX_CPU_ISA, if
    # set, must leave it its AVX-512 VNNI kernels (forced to AVX2 its int8 convolutions' bits differ:
    # 14 of 58 quantized-conv cases, measured)
    isa = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    onednn_vnni = isa in ("", "ALL", "DEFAULT") or isa.startswith("AVX10") or \
        (isa.startswith("AVX512_CORE_") and isa != "AVX512_CORE")
    return (all(f in flags for f in ("avx512_vnni", "avx512bw", "avx512vl")) and
            forced in ("", "AVX512_VNNI", "AVX512_E1") and onednn_vnni)


def _worker_env():
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MKL_NUM_THREADS", "1")
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONPATH", None)
    return env


class _LineReader:
    def __init__(self, fd):
        self.fd, self.buf, self.eof = fd, b"", False

    def readline(self, timeout):
        """A line (bytes), b'' at EOF, or None on timeout."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                line, self.buf = self.buf, b""
                return line
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                self.eof = True
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line + b"\n"


def _tail(path, n=1500):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""


def run_batch(python, jobs, timeout=None, import_timeout=300.0, stats=None, extra_env=None,
              worker=WORKER):
    """Run `jobs` (dicts from Case.job) in `python`; returns a list of records, same order.
    (`worker`: the script speaking this protocol; opinfo.py passes opinfo_worker.py.)

    A record is the worker's dict, or {"harness": reason} when the case could not be run
    (interpreter missing, import failure, crash, timeout).
    """
    timeout = float(timeout or os.environ.get("TN_CASE_TIMEOUT", 300))
    results = [None] * len(jobs)
    if not jobs:
        return results
    if not os.path.exists(python):
        return [{"harness": "interpreter not found: %s" % python}] * len(jobs)
    tmp = tempfile.mkdtemp(prefix="tn-harness-")
    job_path = os.path.join(tmp, "jobs.json")
    log_path = os.path.join(tmp, "worker.log")
    with open(job_path, "w") as f:
        json.dump(jobs, f)
    i = 0
    starts = 0
    while i < len(jobs):
        starts += 1
        rfd, wfd = os.pipe()
        with open(log_path, "ab") as log:
            proc = subprocess.Popen([python, str(worker), job_path, str(wfd), str(i)],
                                    pass_fds=(wfd,), stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=log, cwd=tmp,
                                    env=dict(_worker_env(), **(extra_env or {})))
        os.close(wfd)
        reader = _LineReader(rfd)
        try:
            head = reader.readline(import_timeout)
            hello = json.loads(head) if head else {"fatal": "worker exited before import "
                                                   "(exit %s)\n%s" % (proc.wait(), _tail(log_path))}
            if "fatal" in hello:
                for j in range(i, len(jobs)):
                    results[j] = {"harness": hello["fatal"]}
                break
            while i < len(jobs):
                line = reader.readline(timeout)
                if line is None:
                    results[i] = {"harness": "timeout after %gs" % timeout}
                    i += 1
                    break
                if not line.endswith(b"\n"):
                    rc = proc.wait()
                    results[i] = {"harness": "worker crashed (exit status %s); log tail:\n%s"
                                  % (rc, _tail(log_path))}
                    i += 1
                    break
                results[i] = json.loads(line)
                i += 1
        except (ValueError, OSError) as e:
            if i < len(jobs):
                results[i] = {"harness": "bad worker output: %s" % e}
                i += 1
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            os.close(rfd)
    shutil.rmtree(tmp, ignore_errors=True)
    if stats is not None:
        stats["workers"] = stats.get("workers", 0) + starts
    return results


class Runner:
    """Session-wide: runs every needed case once per side, caches the reference."""

    def __init__(self, items=()):
        self.items = items
        self.ref_python = ref_python()
        self.subject_python = subject_python()
        self.use_cache = os.environ.get("TN_NO_CACHE", "") in ("", "0")
        self.ref_version = torch_version_of(self.ref_python)
        self.worker_hash = sha256(WORKER.read_bytes()).hexdigest()[:16]
        env = _worker_env()
        self.path_env = "".join("%s=%s;" % (k, env[k]) for k in REF_PATH_VARS if k in env)
        self.ref = {}   # exec_key -> record
        self.sub = {}   # exec_key -> record
        self.stats = {"ref_cached": 0, "ref_run": 0, "sub_run": 0, "seconds": 0.0}
        self._lock = threading.Lock()

    # -- cache -------------------------------------------------------------------------------
    def _cache_path(self, case):
        key = sha256(("%s\0%s\0%s\0%s" % (self.worker_hash, self.ref_version, self.path_env,
                                           case.exec_key)).encode()).hexdigest()
        return cache_dir() / key[:2] / (key + ".json")

    def _cache_get(self, case):
        if not self.use_cache:
            return None
        try:
            with open(self._cache_path(case)) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def _cache_put(self, case, rec):
        if not self.use_cache or "harness" in rec:
            return
        text = json.dumps(rec)
        if '"TimeoutExpired"' in text:
            return   # a child process the snippet ran timed out: a fact about the load, not upstream
        p = self._cache_path(case)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_suffix(".tmp%d" % os.getpid())
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, p)
        except OSError:
            pass

    # -- running -----------------------------------------------------------------------------
    def _session_cases(self):
        seen = {}
        for item in self.items:
            cs = getattr(item, "callspec", None)
            for v in (cs.params.values() if cs else ()):
                if isinstance(v, Case):
                    seen.setdefault(v.exec_key, v)
        for c in all_cases():
            if c.ref_only:
                seen.setdefault(c.exec_key, c)
        return list(seen.values())

    def run(self, cases, subject=True):
        """Make sure reference and subject records exist for all `cases` (batched); with
        subject=False only reference records (the coverage gate reads only those)."""
        t0 = time.perf_counter()
        ref_todo, sub_todo = [], []
        ref_keys, sub_keys = set(), set()
        for c in cases:
            k = c.exec_key
            if k not in self.ref:
                hit = self._cache_get(c)
                if hit is not None:
                    self.ref[k] = hit
                    self.stats["ref_cached"] += 1
                elif k not in ref_keys:
                    ref_keys.add(k)
                    ref_todo.append(c)
            if subject and not c.ref_only and k not in self.sub and k not in sub_keys:
                sub_keys.add(k)
                sub_todo.append(c)
        out = {}

        def side(name, python, jobs):
            out[name] = run_batch(python, jobs, stats=self.stats)

        threads = [threading.Thread(target=side, args=a) for a in
                   (("ref", self.ref_python, [self._first_job(c) for c in ref_todo]),
                    ("sub", self.subject_python, [c.job(False) for c in sub_todo])) if a[2]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for c, rec in zip(ref_todo, out.get("ref", ())):
            if c.job()["hi"] and "harness" not in rec:
                rec["hi_deferred"] = True
            self.ref[c.exec_key] = rec
            self._cache_put(c, rec)
        for c, rec in zip(sub_todo, out.get("sub", ())):
            self.sub[c.exec_key] = rec
        self.stats["ref_run"] += len(ref_todo)
        self.stats["sub_run"] += len(sub_todo)
        # the float64 re-runs, only where the subject's values are not already within the
        # tolerance's floor (the rule with err = 0 and no GEMM allowance); not for a reference-only
        # call (the coverage gate's: comparing its ~25,000 cases again took 17 s in CI)
        if subject:
            self._complete([c for c in cases if self.ref[c.exec_key].get("hi_deferred")
                            and c.exec_key in self.sub
                            and compare(self.ref[c.exec_key], self.sub[c.exec_key], c)])
        self.stats["seconds"] += time.perf_counter() - t0

    @staticmethod
    def _first_job(case):
        """The reference's first run of a case: without the float64 re-run and the GEMM bounds,
        which only the tolerance of a differing value needs (_complete adds them), and without the
        dispatch trace, which only the coverage gate reads and asks for case by case (traces)."""
        return dict(case.job(True), hi=False, trace=False, cpu=True)

    def traces(self, cases):
        """The reference's dispatch trace (`ops`) of each of `cases`, added to its record (cached);
        returns the records. A case whose trace run crashed or timed out gets empty `ops` and
        `trace_failed` (the gate's test_traces_ran fails on it)."""
        self.references(cases)
        todo = [c for c in cases if "ops" not in self.ref[c.exec_key]]
        todo = list({c.exec_key: c for c in todo}.values())
        recs = run_batch(self.ref_python, [{"code": c.code, "trace_only": True} for c in todo], stats=self.stats)
        for c, rec in zip(todo, recs):
            full = dict(self.ref[c.exec_key])
            if "harness" in rec:   # not cached: the next session tries again
                full["ops"], full["trace_failed"] = [], rec["harness"][:300]
            else:
                full.update({k: rec[k] for k in ("ops", "cpu", "trace_error") if k in rec})
                full["trace_time"] = rec.get("time", 0.0)
                self._cache_put(c, full)
            self.ref[c.exec_key] = full
        self.stats["ref_traced"] = self.stats.get("ref_traced", 0) + len(todo)
        return [self.ref[c.exec_key] for c in cases]

    def _complete(self, cases):
        """Replace the deferred reference records of `cases` by full ones: the snippet run again
        with the float64 re-run and the GEMM bounds (its dispatch trace kept from the first run)."""
        todo, seen = [], set()
        for c in cases:
            if self.ref[c.exec_key].get("hi_deferred") and c.exec_key not in seen:
                seen.add(c.exec_key)
                todo.append(c)
        recs = run_batch(self.ref_python, [dict(c.job(True), trace=False) for c in todo],
                         stats=self.stats)
        for c, rec in zip(todo, recs):
            first = self.ref[c.exec_key]
            if "harness" in rec:   # the first run's values stand; the floor alone applies
                rec = dict(first, hi_error="the float64 re-run failed: %s" % rec["harness"][:300])
                rec.pop("hi_deferred")
            else:
                for k in ("ops", "cpu", "trace_error"):
                    if k in first:
                        rec[k] = first[k]
                rec["time"] = first.get("time", 0.0) + rec.get("time", 0.0)
            self.ref[c.exec_key] = rec
            self._cache_put(c, rec)
        self.stats["ref_completed"] = self.stats.get("ref_completed", 0) + len(todo)

    def _ensure(self, case):
        with self._lock:
            if case.exec_key not in self.ref or (not case.ref_only
                                                 and case.exec_key not in self.sub):
                wanted = self._session_cases()
                if all(case.exec_key != c.exec_key for c in wanted):
                    wanted.append(case)
                self.run(wanted)

    def references(self, cases):
        """Reference records for `cases` (list, same order), running only the reference side."""
        with self._lock:
            self.run(cases, subject=False)
        return [self.ref[c.exec_key] for c in cases]

    def reference(self, case):
        """The full reference record of `case` (float64 re-run and GEMM bounds included)."""
        return self.full_references([case])[0]

    def full_references(self, cases):
        for c in cases:
            self._ensure(c)
        with self._lock:
            self._complete(cases)
        return [self.ref[c.exec_key] for c in cases]

    def subject(self, case):
        self._ensure(case)
        return self.sub[case.exec_key]

    def problems(self, case):
        self._ensure(case)
        probs = compare(self.ref[case.exec_key], self.sub[case.exec_key], case)
        if probs and self.ref[case.exec_key].get("hi_deferred"):
            with self._lock:
                self._complete([case])
            probs = compare(self.ref[case.exec_key], self.sub[case.exec_key], case)
        return probs

    def check(self, case):
        """pytest entry: fail the current test with a concise two-sided report."""
        import pytest
        probs = self.problems(case)
        if probs:
            ref = self.ref[case.exec_key]
            text = report(case, ref, self.sub[case.exec_key], probs)
            if ref.get("cpu") == "DEFAULT":
                text += ("\n  note: the reference ran upstream's ATen at CPU capability DEFAULT "
                         "(no AVX2, or ATEN_CPU_CAPABILITY=default); golden values assume AVX2 or "
                         "AVX-512 (see tests/harness/runner.py)")
            pytest.fail(text, pytrace=False)

    def summary(self):
        s = self.stats
        cpus = sorted({str(r.get("cpu")) for r in self.ref.values() if "cpu" in r})
        return ("torchnative harness: reference %s (%s, ATen CPU capability %s%s), subject %s; "
                "reference ran %d case(s) (%d cached; %d re-run for a float tolerance, %d traced), subject ran %d, "
                "%d worker start(s), %.1fs" % (
                    self.ref_version, self.ref_python, "/".join(cpus) or "?",
                    ", " + self.path_env.rstrip(";").replace(";", ", ") if self.path_env else "",
                    self.subject_python, s["ref_run"], s["ref_cached"], s.get("ref_completed", 0),
                    s.get("ref_traced", 0), s["sub_run"],
                    s.get("workers", 0), s["seconds"]))
