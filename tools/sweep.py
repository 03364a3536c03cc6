"""The transformers architecture sweep (`make sweep`; docs/sweep.md).

Every model type of transformers' MODEL_MAPPING_NAMES (or those named with --types) is built from
a shrunk config with seeded weights on upstream (`.venv-ref`), run forward (base model, and the
causal-LM class where one exists; eager, and sdpa where the class offers it) in float32 and
float64, and greedy-decoded for 5 tokens (causal LMs); then the same classes on torchnative
(`.venv`) load upstream's weights and run the same inputs. Workers are tests/models/sweep_worker.py
driven by tests/models/modelcase.run_side (one long-lived worker per shard and side, restarted
after a crash, per-model time limit). Tolerance: modelcase's float32 rule,
|sub - ref32| <= max(4 * max|ref32 - ref64|, 4 ulp * |ref32|) elementwise. Tokens: identical.

    .venv/bin/python tools/sweep.py [--types a,b] [--shards 2] [--timeout 300] [--json PATH]

The driver itself never imports torch. Prints passed / runnable-on-upstream, per family, the
failure list with reasons and the not-runnable list; writes the results JSON.
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "models"))

import numpy as np  # noqa: E402

import modelcase  # noqa: E402

SWEEP_WORKER = ROOT / "tests" / "models" / "sweep_worker.py"
WORK = ROOT / "build" / "sweep"


def all_types():
    """MODEL_MAPPING_NAMES' keys, asked of the reference interpreter (torch is not imported)."""
    r = subprocess.run([modelcase.ref_python(), "-c",
                        "import json\nfrom transformers.models.auto.modeling_auto import "
                        "MODEL_MAPPING_NAMES as M\nprint(json.dumps(list(M)))"],
                       capture_output=True, text=True, timeout=300, env=modelcase._env())
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    return json.loads(r.stdout)


_SWAP = {"n": 0, "old": None, "lock": threading.Lock()}


def _run(python, tasks, budget):
    """modelcase.run_side (crash restart, budget) with the sweep's worker; the module's WORKER is
    swapped while any sweep shard runs (counted: shards run in threads) and restored after."""
    with _SWAP["lock"]:
        if _SWAP["n"] == 0:
            _SWAP["old"] = modelcase.WORKER
            modelcase.WORKER = SWEEP_WORKER
        _SWAP["n"] += 1
    try:
        return modelcase.run_side(python, tasks, timeout=budget)
    finally:
        with _SWAP["lock"]:
            _SWAP["n"] -= 1
            if _SWAP["n"] == 0:
                modelcase.WORKER = _SWAP["old"]


def _missing_op(text):
    m = re.search(r"torchnative: (aten::[A-Za-z0-9_.]+|the derivative of aten::[A-Za-z0-9_.]+|"
                  r"[A-Za-z0-9_.:]+) is not implemented", text)
    return m.group(1) if m else None


def reason(rec):
    """One line: why a subject record failed (the missing op's name when there is one)."""
    if "harness" in rec:
        first = rec["harness"].splitlines()[0]
        return "harness: " + first
    op = _missing_op(rec.get("msg", ""))
    if op:
        return "missing op %s (%s)" % (op, rec.get("stage", "?"))
    return "%s: %s (%s)" % (rec["error"], rec["msg"].splitlines()[0][:200] if rec["msg"] else "",
                           rec.get("stage", "?"))


def compare(mt, ref, sub, work=WORK):
    """(status, reason, details) for one model type."""
    d = Path(work) / mt
    details = {"runs": {}}
    if "error" in sub or "harness" in sub:
        return "failed", reason(sub), details
    bad = []
    for r in ref["runs"]:
        run = r["run"]
        r32 = np.load(d / (run + ".ref32.npy"))
        r64 = np.load(d / (run + ".ref64.npy"))
        if r32.shape != r64.shape:   # e.g. a sampled output length (vits): no float64 yardstick
            return ("not-runnable", "upstream's float32 and float64 outputs differ in shape "
                    "(%s: %s vs %s), so the rule has no yardstick" % (run, r32.shape, r64.shape),
                    details)
        p = d / (run + ".sub.npy")
        if not p.exists():
            bad.append("%s: no subject output" % run)
            continue
        s = np.load(p)
        if not np.isfinite(r32).any():
            # nothing finite upstream (nemotron_asr's eager attention over its padded chunks gives
            # NaN everywhere): ours must be non-finite alike, value for value (NaN equals NaN)
            ok = s.shape == r32.shape and np.array_equal(r32, s, equal_nan=True)
            details["runs"][run] = {"upstream_all_nonfinite": True, "ok": ok}
            if not ok:
                bad.append("values differ %s (upstream's output is all non-finite, ours is not "
                           "the same)" % run)
            continue
        err = modelcase.maxabs(r32, r64)
        ok, worst, diff = modelcase.within(s, r32, err, modelcase.K32, "float32")
        details["runs"][run] = {"upstream_err64": err, "max_abs_diff": diff, "worst_ratio": worst,
                                "ok": ok}
        if not ok:
            bad.append("values differ %s max|d|=%.3g (upstream err %.3g, worst/tol %.3g)"
                       % (run, diff, err, worst))
    for impl, toks in ref.get("generate", {}).items():
        got = sub.get("generate", {}).get(impl)
        details.setdefault("generate", {})[impl] = {"ref": toks, "sub": got}
        if got != toks:
            bad.append("generate %s tokens differ: upstream %s, ours %s" % (impl, toks, got))
    if bad:
        return "failed", "; ".join(bad), details
    return "passed", "", details


def sweep(types, shards=2, timeout=300, progress=True, batch=20, partial=None, work=WORK):
    """Run the sweep over `types`; returns the results dict (also per type)."""
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    chunks = [types[i::shards] for i in range(shards)]
    results = {}
    lock = threading.Lock()

    def task(mt, side, ref=None):
        t = {"id": "%s/%s" % (side, mt), "model_type": mt, "dir": str(work / mt), "side": side,
             "timeout": timeout}
        if ref is not None:
            t["ref"] = {"shrink": ref["shrink"]}
        return t

    def shard(whole):
        for i in range(0, len(whole), batch):
            part(whole[i:i + batch])

    def part(chunk):
        for mt in chunk:
            shutil.rmtree(work / mt, ignore_errors=True)
        budget = timeout * 3 * max(1, len(chunk)) + 600
        ref, _, ref_s = _run(modelcase.ref_python(), [task(mt, "ref") for mt in chunk], budget)
        ok = {mt: ref["ref/" + mt] for mt in chunk
              if "runs" in ref["ref/" + mt]}
        sub, _, sub_s = _run(modelcase.subject_python(),
                             [task(mt, "sub", ok[mt]) for mt in chunk if mt in ok], budget)
        for mt in chunk:
            r = ref["ref/" + mt]
            if mt not in ok:
                why = (r.get("upstream_error") or trouble(r) or "?").splitlines()[0][:300]
                res = {"status": "not-runnable", "reason": why, "ref_seconds": r.get("seconds")}
            else:
                s = sub["sub/" + mt]
                status, why, det = compare(mt, r, s, work)
                res = dict(det, status=status, reason=why, family=r["family"],
                           shrink=r["shrink"], ref_seconds=r.get("seconds"),
                           sub_seconds=s.get("seconds"))
                if status == "passed":
                    shutil.rmtree(work / mt, ignore_errors=True)   # keep failures' files only
            with lock:
                results[mt] = res
                if progress:
                    print("%-40s %-13s %s" % (mt, res["status"], res["reason"][:150]), flush=True)
        if partial:
            with lock:
                with open(partial, "w") as f:
                    json.dump({"types": results, "partial": True, "shards": shards, "timeout": timeout,
                               "seconds": round(time.monotonic() - t0, 1), "of": len(types),
                               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
                              f, indent=1, sort_keys=True)

    th = [threading.Thread(target=shard, args=(c,)) for c in chunks if c]
    for t in th:
        t.start()
    for t in th:
        t.join()
    return {"types": results, "seconds": round(time.monotonic() - t0, 1), "shards": shards,
            "timeout": timeout, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def trouble(rec):
    t = modelcase.trouble(rec)
    return t


def summary(res):
    types = res["types"]
    runnable = [m for m, r in types.items() if r["status"] != "not-runnable"]
    passed = [m for m, r in types.items() if r["status"] == "passed"]
    lines = ["sweep: %d passed / %d runnable on upstream (%.1f%%); %d types, %d not runnable on "
             "upstream; %.0fs, %d shards"
             % (len(passed), len(runnable), 100.0 * len(passed) / max(1, len(runnable)),
                len(types), len(types) - len(runnable), res["seconds"], res["shards"])]
    if res.get("partial"):
        lines[0] += " -- PARTIAL: %d of %d types done (seeded order: a uniform sample)" % (
            len(types), res["of"])
    fam = collections.defaultdict(lambda: [0, 0])
    for m in runnable:
        f = types[m].get("family", "?")
        fam[f][1] += 1
        fam[f][0] += types[m]["status"] == "passed"
    lines.append("  by family: " + ", ".join("%s %d/%d" % (f, p, n)
                                               for f, (p, n) in sorted(fam.items())))
    shr = collections.Counter(types[m].get("shrink", "?") for m in runnable)
    lines.append("  runnable by shrink: " + ", ".join("%s %d" % kv for kv in sorted(shr.items())))
    fails = sorted(m for m in runnable if types[m]["status"] == "failed")
    if fails:
        lines.append("failures:")
        lines += ["  %-38s %s" % (m, types[m]["reason"]) for m in fails]
        ops = collections.Counter()
        for m in fails:
            op = re.match(r"missing op (\S+)", types[m]["reason"])
            ops[op.group(1) if op else types[m]["reason"].split(":")[0][:60]] += 1
        lines.append("blockers by count: " + ", ".join("%s x%d" % kv for kv in ops.most_common()))
    nr = sorted(m for m in types if types[m]["status"] == "not-runnable")
    if nr:
        lines.append("not runnable on upstream:")
        lines += ["  %-38s %s" % (m, types[m]["reason"]) for m in nr]
    return "\n".join(lines)


def main():
    if sys.argv[1:2] == ["--summary"]:   # print the summary of a (partial) results file
        with open(sys.argv[2]) as f:
            print(summary(json.load(f)))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--types", help="comma-separated model types (default: all)")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="per-model seconds, per side")
    ap.add_argument("--json", default=str(ROOT / "build" / "sweep-results.json"))
    a = ap.parse_args()
    types = a.types.split(",") if a.types else all_types()
    # a seeded order: a run stopped early is a uniform sample, not the first letters
    random.Random(0).shuffle(types)
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    res = sweep(types, a.shards, a.timeout, partial=a.json + ".partial")
    Path(a.json).parent.mkdir(parents=True, exist_ok=True)
    with open(a.json, "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print(summary(res))
    print("results:", a.json)


if __name__ == "__main__":
    main()
