"""Upstream's OpInfo suite as a forward comparison: every entry of op_db, both interpreters.

`torch.testing._internal.common_methods_invocations.op_db` (702 entries in torch 2.13.0) lists
upstream's operators with sample-input generators. For each entry and each dtype among DTYPES
that the entry supports on CPU, the reference (upstream, `.venv-ref`) generates the samples
(torch.manual_seed(0) first), keeps all of them or `cap` picked by a seeded spread, and ships
them to the subject through torch.save bytes, so both sides run on bit-identical inputs (and the
subject's run does not depend on the ops the generators call). Both sides run
`op(input, *args, **kwargs)` after torch.manual_seed(0) (opinfo_worker.py); the records are
compared by the golden harness's comparator (comparator.compare) with:

  tol="float"  floating results within upstream's own float error (runner.py's rule: K * err +
               F ulps, matrix products within the summation-order bound), never bit-exact, since
               upstream's bits for reductions and products depend on the host (vector width,
               MKL's order); the report also counts samples that agree bit for bit;
  exact        integers, bools, dtypes, shapes, aliasing (a view where upstream returns a
               view), strides where the result is a view, the inputs after the call, and
               exception types.

Each sample ends as one of
  pass        agreement (including both sides raising the same exception type)
  refused     the subject raised NotImplementedError("torchnative: ...") (an op or behaviour it
              lacks, named): breadth work, not a bug
  wrong-value both computed and the comparator found a difference (value, dtype, shape, view)
  wrong-exception  one side raised and the other computed, or they raised different types
  load-failed the subject could not torch.load the sample upstream saved
and each entry as its worst sample, or `crash` when the subject process died or hung on it
(the worker restarts after the entry, so a crash costs only that entry). An entry counts as run
by upstream when upstream computed at least one of its samples. Reference records are cached in
build/opinfo-cache/ (keyed by both workers' text, torch version, dtypes and cap).
"""
import hashlib
import json
import os
import queue
import re
import subprocess
import threading
import time
from pathlib import Path

from .comparator import compare
from .runner import REF_PATH_VARS, ROOT, _worker_env, ref_python, run_batch, subject_python, \
    torch_version_of

HERE = Path(__file__).resolve().parent
WORKER = HERE / "opinfo_worker.py"
DTYPES = ("float32", "float64", "int64", "bool", "bfloat16", "float16", "complex64")
CLASSES = ("pass", "refused", "wrong-exception", "wrong-value", "load-failed", "crash")
WORST = {c: i for i, c in enumerate(CLASSES)}
CI_CAP = 3            # samples per (entry, dtype) in the CI run; None = every sample
RESULTS = ROOT / "build" / "opinfo-results.json"
KNOWN_FILE = ROOT / "tests" / "opinfo_known_failures.txt"

# the ModuleInfo suite (common_modules.module_db, 114 torch.nn modules) through the same
# worker, comparator and classes; see opinfo_worker.py for what a module sample runs
MODULE_RESULTS = ROOT / "build" / "moduleinfo-results.json"
MODULE_KNOWN_FILE = ROOT / "tests" / "moduleinfo_known_failures.txt"
MODULE_DTYPES = ("float32", "float64")

_LIST_MODULES = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
from torch.testing._internal.common_modules import module_db
keys = []
for m in module_db:
    if m.name not in keys:
        keys.append(m.name)
json.dump(keys, sys.stdout)
"""

_LIST = r"""
import json, sys, warnings
warnings.filterwarnings("ignore")
from torch.testing._internal.common_methods_invocations import op_db
keys = []
for op in op_db:
    k = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
    if k not in keys:
        keys.append(k)
json.dump(keys, sys.stdout)
"""


class _Tol:
    """What comparator.compare reads of a case."""
    tol, strides, values, vars = "float", None, True, True


def entry_keys(python=None, suite="op"):
    python = python or ref_python()
    p = subprocess.run([python, "-c", _LIST_MODULES if suite == "module" else _LIST],
                       capture_output=True, text=True, timeout=600, env=_worker_env())
    if p.returncode != 0:
        raise RuntimeError("listing the %s database failed:\n%s" % (suite, p.stderr[-3000:]))
    return json.loads(p.stdout)


def _safe(key):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", key) + "-" + hashlib.sha1(key.encode()).hexdigest()[:8]


# upstream's wording for a kernel without a dtype ("\"addcmul_cpu_out\" not implemented for
# 'ComplexFloat'"): a refusal naming the kernel when upstream itself computes (the entry's
# detail shows which wording)
_DTYPE_REFUSAL = re.compile(r'^"[A-Za-z0-9_]+" not implemented for \'[A-Za-z0-9]+\'$')


def is_refusal(node):
    return node.get("k") == "exc" and node.get("t") == "NotImplementedError" and \
        (str(node.get("msg", "")).startswith("torchnative:") or
         bool(_DTYPE_REFUSAL.match(str(node.get("msg", "")).strip())))


def _exact(ref, sub):
    """True when every compared value agrees bit for bit (the exact comparison passes)."""
    class Exact(_Tol):
        tol = None
    return not compare(ref, sub, Exact)


class _NoValues(_Tol):
    values = False


def _node_at(rec, path):
    """The serialised node at "result", "result[1]"."""
    node = rec.get("result")
    for part in re.findall(r"\[(\d+)\]", path):
        if not node or node.get("k") != "seq" or int(part) >= len(node["items"]):
            return None
        node = node["items"][int(part)]
    return node


def _tie_keys(inp, idx, dim, keepdim):
    """The keys idx selects from inp along dim (flat, in idx's order), or None when an index is
    out of range or repeats within a row (not a selection)."""
    shape, vals, ishape, ivals = inp.get("shape"), inp.get("values"), idx.get("shape"), \
        idx.get("values")
    if not isinstance(vals, list) or not isinstance(ivals, list) or not isinstance(shape, list):
        return None
    nd = len(shape)
    if nd == 0:
        return [vals[0] if i == 0 else None for i in ivals]
    d = dim % nd
    strides = [1] * nd
    for k in range(nd - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    full = list(ishape) if keepdim or len(ishape) == nd else ishape[:d] + [1] + ishape[d:]
    out, rows = [], {}
    for flat, ix in enumerate(ivals):
        if not isinstance(ix, int) or not -shape[d] <= ix < shape[d]:
            return None
        pos, r = [], flat
        for s in reversed(full):
            pos.append(r % s)
            r //= s
        pos.reverse()
        row = tuple(p for k, p in enumerate(pos) if k != d)
        seen = rows.setdefault(row, set())
        if ix % shape[d] in seen:
            return None
        seen.add(ix % shape[d])
        pos[d] = ix % shape[d]
        out.append(vals[sum(p * st for p, st in zip(pos, strides))])
    return out


def _apply_tie_rule(ref, sub):
    """Copies of the records whose indices are replaced by the keys they select (both sides
    from the reference's input), so the comparison accepts any order among equal keys."""
    import copy
    t = ref.get("ties")
    ri, si = _node_at(ref, t["path"]), _node_at(sub, t["path"])
    inp = (ref.get("vars") or {}).get("input")
    if not (ri and si and inp and ri.get("k") == si.get("k") == "tensor" and
            ri.get("shape") == si.get("shape")):
        return ref, sub
    rk = _tie_keys(inp, ri, t["dim"], t["keepdim"])
    sk = _tie_keys(inp, si, t["dim"], t["keepdim"])
    if rk is None or sk is None:
        return ref, sub
    ref, sub = copy.deepcopy(ref), copy.deepcopy(sub)
    for rec, keys in ((ref, rk), (sub, sk)):
        node = _node_at(rec, t["path"])
        node["values"], node["vkind"] = keys, inp.get("vkind")
        node.pop("err", None)
    return ref, sub


def classify_sample(ref, sub, nondet=False):
    """(class, detail, exact) for one sample's reference and subject records; `nondet`: the
    entry's values are not comparable (upstream's has_nondeterministic_output: empty & co.)."""
    if "load_error" in sub:   # a refusal by name while loading (conj / neg bits) is a refusal
        le = sub["load_error"]
        if le.startswith("NotImplementedError: torchnative:"):
            return "refused", le[len("NotImplementedError: "):][:200], False
        return "load-failed", le, False
    r, s = ref["result"], sub["result"]
    if is_refusal(s):
        return "refused", s["msg"][:200], False
    if r["k"] == "exc" or s["k"] == "exc":
        if r["k"] == "exc" and s["k"] == "exc" and r["t"] == s["t"]:
            return "pass", None, True
        if s["k"] == "exc":
            return "wrong-exception", "subject raised %s: %s (upstream %s)" % (
                s["t"], s["msg"][:200], "raised " + r["t"] if r["k"] == "exc" else "computed"), False
        return "wrong-exception", "upstream raised %s: %s; subject computed" % (
            r["t"], r["msg"][:150]), False
    if ref.get("ties"):
        ref, sub = _apply_tie_rule(ref, sub)
    problems = compare(ref, sub, _NoValues if nondet else _Tol)
    if problems:
        return "wrong-value", "; ".join(problems[:3])[:600], False
    return "pass", None, not nondet and _exact(ref, sub)


def classify_entry(ref, sub):
    """The entry's record: class, upstream_runs, counts, the first failing samples."""
    rec = {"family": ref.get("family", "?"), "samples": 0, "exact": 0,
           "counts": dict.fromkeys(CLASSES, 0), "failures": []}
    if "harness" in ref:
        rec.update({"class": "reference-failed", "detail": ref["harness"][-300:],
                    "upstream_runs": False})
        return rec
    rsamp = ref["samples"]
    rec["upstream_runs"] = any("result" in x and x["result"]["k"] != "exc" for x in rsamp)
    rec["gen_errors"] = ref.get("gen_errors") or {}
    rec["unshippable"] = len(ref.get("unshippable") or ())
    if "harness" in sub:
        rec.update({"class": "crash", "detail": sub["harness"][-600:], "samples": len(rsamp)})
        rec["counts"]["crash"] = 1
        return rec
    worst = "pass"
    bykey = {(x["dtype"], x["i"]): x for x in sub["samples"]}
    for r in rsamp:
        s = bykey.get((r["dtype"], r["i"]))
        if "load_error" in r:   # upstream could not load its own bytes: not a sample
            continue
        rec["samples"] += 1
        if s is None:
            c, d, ex = "crash", "no subject record", False
        else:
            c, d, ex = classify_sample(r, s, ref.get("nondet", False))
        rec["counts"][c] += 1
        rec["exact"] += bool(ex)
        if c != "pass":
            if WORST[c] > WORST[worst]:
                worst = c
            if sum(f["class"] == c for f in rec["failures"]) < 2:   # the first two per class
                rec["failures"].append({"dtype": r["dtype"], "i": r["i"], "class": c,
                                        "detail": d})
    rec["class"] = worst if rec["samples"] else "no-samples"
    if worst != "pass":
        first = next(f for f in rec["failures"] if f["class"] == worst)
        rec["detail"] = "%s[%d]: %s" % (first["dtype"], first["i"], first["detail"])
    return rec


class Sweep:
    """Runs the comparison over `keys` with reference caching and the two sides pipelined."""

    def __init__(self, keys, cap=CI_CAP, dtypes=None, chunk=120, verbose=False, timeout=None,
                 suite="op"):
        self.suite = suite
        dtypes = dtypes or (MODULE_DTYPES if suite == "module" else DTYPES)
        self.keys, self.cap, self.dtypes, self.chunk = list(keys), cap, list(dtypes), chunk
        self.verbose, self.timeout = verbose, timeout or (120 if cap else 900)
        self.ref_py, self.sub_py = ref_python(), subject_python()
        h = hashlib.sha256()
        for f in (WORKER, HERE / "worker.py"):
            h.update(f.read_bytes())
        env = _worker_env()
        h.update(("%s|%s|%s|%s" % (torch_version_of(self.ref_py), self.cap, self.dtypes,
                                   [(k, env.get(k)) for k in REF_PATH_VARS])).encode())
        cache = "moduleinfo-cache" if suite == "module" else "opinfo-cache"
        self.cache = ROOT / "build" / cache / h.hexdigest()[:16]
        self.use_cache = os.environ.get("TN_NO_CACHE", "") in ("", "0")
        self.stats = {"ref_run": 0, "ref_cached": 0, "sub_run": 0}

    def _paths(self, key):
        base = str(self.cache / _safe(key))
        return Path(base + ".json"), Path(base + ".pkl")

    def _log(self, msg):
        if self.verbose:
            print(msg, flush=True)

    def run(self):
        self.cache.mkdir(parents=True, exist_ok=True)
        ref = {}
        todo = []
        for k in self.keys:
            jp, pp = self._paths(k)
            if self.use_cache and jp.exists() and pp.exists():
                try:
                    ref[k] = json.loads(jp.read_text())
                    self.stats["ref_cached"] += 1
                    continue
                except ValueError:
                    pass
            todo.append(k)
        ready = queue.Queue()
        cached = [k for k in self.keys if k in ref]
        for i in range(0, len(cached), self.chunk):
            ready.put(cached[i:i + self.chunk])

        def ref_side():
            try:
                for i in range(0, len(todo), self.chunk):
                    part = todo[i:i + self.chunk]
                    jobs = [{"key": k, "side": "ref", "file": str(self._paths(k)[1]),
                             "dtypes": self.dtypes, "cap": self.cap, "suite": self.suite,
                             "defer": True} for k in part]
                    recs = run_batch(self.ref_py, jobs, timeout=self.timeout, worker=WORKER)
                    self.stats["ref_run"] += len(part)
                    for k, r in zip(part, recs):
                        ref[k] = r
                        if "harness" not in r and self.use_cache:
                            self._paths(k)[0].write_text(json.dumps(r))
                    self._log("reference: %d/%d entries" % (i + len(part), len(todo)))
                    ready.put([k for k in part if "harness" not in ref[k]])
            finally:
                ready.put(None)

        sub = {}
        t = threading.Thread(target=ref_side)
        t.start()
        t0 = time.time()
        while True:
            part = ready.get()
            if part is None:
                break
            if not part:
                continue
            jobs = [{"key": k, "side": "sub", "file": str(self._paths(k)[1]), "suite": self.suite}
                    for k in part]
            recs = run_batch(self.sub_py, jobs, timeout=self.timeout, worker=WORKER)
            self.stats["sub_run"] += len(part)
            for k, r in zip(part, recs):
                sub[k] = r
            self._log("subject: %d entries (%.0fs)" % (len(sub), time.time() - t0))
        t.join()
        self._complete(ref, sub)
        out = {}
        for k in self.keys:
            r = ref.get(k, {"harness": "no reference record"})
            out[k] = classify_entry(r, sub.get(k, {"harness": "not run (reference failed)"}))
        return out


    def _complete(self, ref, sub):
        """The float rule's extra runs (upstream's float64 error, GEMM bounds), deferred by the
        reference's first job, for the samples whose subject values are not within the rule
        without them (the rule only widens with them: no other verdict can change)."""
        want = {}
        for k, r in ref.items():
            s = sub.get(k)
            if "harness" in r or not s or "harness" in s:
                continue
            bykey = {(x["dtype"], x["i"]): x for x in s["samples"]}
            for x in r["samples"]:
                y = bykey.get((x["dtype"], x["i"]))
                if x.get("deferred") and y is not None and \
                        classify_sample(x, y, r.get("nondet", False))[0] == "wrong-value":
                    want.setdefault(k, []).append([x["dtype"], x["i"]])
        keys = sorted(want)
        jobs = [{"key": k, "side": "extras", "file": str(self._paths(k)[1]), "suite": self.suite,
                 "samples": want[k]} for k in keys]
        for k, got in zip(keys, run_batch(self.ref_py, jobs, timeout=self.timeout, worker=WORKER)):
            full = {(x["dtype"], x["i"]): x for x in got.get("samples", ())}
            samples = ref[k]["samples"]
            for j, x in enumerate(samples):
                y = full.get((x["dtype"], x["i"]))
                if y is not None:   # the first run's ties rule stays
                    samples[j] = dict(y, **{f: x[f] for f in ("ties", "ties_error") if f in x})
            if self.use_cache:
                self._paths(k)[0].write_text(json.dumps(ref[k]))
        self.stats["ref_completed"] = self.stats.get("ref_completed", 0) + sum(map(len, want.values()))


def load_known(path=KNOWN_FILE):
    """entry -> (class, reason) from tests/opinfo_known_failures.txt (or `path`)."""
    known = {}
    if not path.exists():
        return known
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, cls, reason = (x.strip() for x in line.split("|", 2))
        known[key] = (cls, reason)
    return known


def summarize(results):
    """Totals and by-family tallies over entries upstream runs."""
    fams = {}
    tot = dict.fromkeys(CLASSES, 0)
    ran = 0
    for k, r in results.items():
        if not r.get("upstream_runs") or r["class"] in ("no-samples", "reference-failed"):
            continue
        ran += 1
        tot[r["class"]] += 1
        f = fams.setdefault(r["family"], dict.fromkeys(CLASSES + ("entries",), 0))
        f["entries"] += 1
        f[r["class"]] += 1
    samples = sum(r["samples"] for r in results.values())
    exact = sum(r["exact"] for r in results.values())
    spass = sum(r["counts"]["pass"] for r in results.values())
    return {"entries": len(results), "upstream_runs": ran, "totals": tot, "by_family": fams,
            "samples": samples, "samples_pass": spass, "samples_exact": exact}


def format_summary(s, results, cap, suite="op"):
    lines = []
    ran = s["upstream_runs"]
    t = s["totals"]
    lines.append(("ModuleInfo entries: %d in module_db" if suite == "module" else
                  "OpInfo entries: %d in op_db") % s["entries"] + ", %d run by upstream on CPU; fully passing %d (%.1f%%); "
                 "refused %d, wrong value %d, wrong exception %d, load failed %d, crash %d" % (
                     ran, t["pass"], 100.0 * t["pass"] / max(ran, 1), t["refused"],
                     t["wrong-value"], t["wrong-exception"], t["load-failed"], t["crash"]))
    lines.append("samples: %d compared (%s per entry and dtype), %d pass, %d of them bit-exact" % (
        s["samples"], "all" if cap is None else "up to %d" % cap, s["samples_pass"],
        s["samples_exact"]))
    lines.append("  %-22s %7s %6s %7s %7s %7s %6s" % ("family", "entries", "pass", "refused",
                                                     "wrongv", "wrongx", "crash"))
    for fam, f in sorted(s["by_family"].items()):
        lines.append("  %-22s %7d %6d %7d %7d %7d %6d" % (fam, f["entries"], f["pass"], f["refused"],
                                                         f["wrong-value"], f["wrong-exception"],
                                                         f["crash"] + f["load-failed"]))
    return "\n".join(lines)


def write_results(results, summary, cap, path=RESULTS):
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = str(path) + ".tmp%d" % os.getpid()
    with open(tmp, "w") as f:
        json.dump({"time": time.strftime("%Y-%m-%d %H:%M:%S"), "cap": cap, "summary": summary,
                   "entries": results}, f, indent=0)
    os.replace(tmp, path)
