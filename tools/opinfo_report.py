"""Upstream's OpInfo suite (or, with --modules, its ModuleInfo suite) compared with upstream
(tests/harness/opinfo.py), from the command line.

usage: .venv/bin/python tools/opinfo_report.py [--modules] [--cap N | --all] [--ops a,b,...]
                                               [--json out.json] [--failures] [-v]

--cap N   samples per (entry, dtype), picked by a seeded spread (default: the CI run's cap)
--all     every sample (the full sweep)
--ops     only these entries (name or name.variant)
Writes build/opinfo-results.json (build/moduleinfo-results.json with --modules; both read by
`make golden-report`) unless --ops is given, prints
the totals, the table by family and (with --failures, the default when --ops is given) every
entry that does not pass with its class and first failing sample.
"""
import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from harness import opinfo  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", action="store_true")
    ap.add_argument("--cap", type=int, default=opinfo.CI_CAP)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--ops")
    ap.add_argument("--json")
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    cap = None if a.all else a.cap
    t0 = time.time()
    suite = "module" if a.modules else "op"
    keys = opinfo.entry_keys(suite=suite)
    if a.ops:
        want = set(a.ops.split(","))
        keys = [k for k in keys if k in want or k.split(".")[0] in want or
                any(k == w or k.startswith(w + ".") for w in want)]
    sweep = opinfo.Sweep(keys, cap=cap, verbose=a.verbose, suite=suite)
    results = sweep.run()
    s = opinfo.summarize(results)
    if not a.ops:
        opinfo.write_results(results, s, cap, opinfo.MODULE_RESULTS if a.modules else opinfo.RESULTS)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    print(opinfo.format_summary(s, results, cap, suite))
    if a.failures or a.ops:
        for k, r in results.items():
            if r["class"] != "pass":
                print("  %-16s %-40s %s" % (r["class"], k, (r.get("detail") or "")[:300]))
    print("(%.0fs; reference ran %d entries, %d cached; subject ran %d)" % (
        time.time() - t0, sweep.stats["ref_run"], sweep.stats["ref_cached"], sweep.stats["sub_run"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
