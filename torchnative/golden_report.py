"""Golden-case report: implemented overloads out of upstream's, golden cases run, pass/fail by family.

Reads what the last pytest session left under build/ (nothing is run here):
  build/golden-results.json   outcome of every golden case (tests/conftest.py writes it at the
                              end of any session that ran harness cases; `make golden-report`
                              runs tests/cases plus the coverage gate first)
  build/golden-coverage.json  implemented overloads exercised by the cases on upstream (written
                              by tests/test_coverage_gate.py; see tests/harness/coverage.py)
  build/opinfo-results.json   upstream's OpInfo suite compared entry by entry (written by
                              tests/test_opinfo.py or tools/opinfo_report.py; see
                              tests/harness/opinfo.py)
  build/moduleinfo-results.json  the same for upstream's ModuleInfo suite (module_db)
and src/ops/*.def plus upstream's native_functions.yaml through torchnative.coverage.
A family is a test file (tests/cases/test_<family>.py); --groups also lists each case group
(test function). usage: python -m torchnative.golden_report [--json] [--groups]
"""
import json
import os
import sys

from torchnative.coverage import implemented, upstream_overloads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "build", "golden-results.json")
COVERAGE = os.path.join(ROOT, "build", "golden-coverage.json")
OPINFO = os.path.join(ROOT, "build", "opinfo-results.json")
MODULEINFO = os.path.join(ROOT, "build", "moduleinfo-results.json")
OUTCOMES = ("passed", "failed", "error", "skipped")


def _load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _tally(rows, key):
    out = {}
    for r in rows:
        t = out.setdefault(r[key], dict.fromkeys(OUTCOMES + ("cases",), 0))
        t["cases"] += 1
        t[r["outcome"] if r["outcome"] in OUTCOMES else "error"] += 1
    return out


def build_report():
    impl = implemented(ROOT)
    total = upstream_overloads()
    by_def = {}
    for fam, _ in impl:
        by_def[fam] = by_def.get(fam, 0) + 1
    rep = {"implemented": len(impl), "upstream_total": len(total),
           "implemented_by_family": by_def}
    res = _load(RESULTS)
    if res:
        rows = res["cases"]
        rep["session"] = {"time": res.get("time"), "args": res.get("args"),
                          "harness": res.get("harness")}
        rep["cases_run"] = len(rows)
        rep["totals"] = {k: sum(1 for r in rows if r["outcome"] == k) for k in OUTCOMES}
        rep["by_family"] = _tally(rows, "family")
        for fam, t in rep["by_family"].items():
            t["groups"] = _tally([r for r in rows if r["family"] == fam], "group")
        rep["failed_cases"] = ["%s::%s" % (r["family"], r["case"]) for r in rows
                               if r["outcome"] in ("failed", "error")]
    for key, path in (("opinfo", OPINFO), ("moduleinfo", MODULEINFO)):
        op = _load(path)
        if op:
            rep[key] = {"time": op.get("time"), "cap": op.get("cap"), "summary": op["summary"],
                        "failing": {k: {"class": r["class"], "family": r["family"],
                                        "detail": r.get("detail")}
                                    for k, r in op["entries"].items()
                                    if r.get("upstream_runs") and r["class"] != "pass"}}
    cov = _load(COVERAGE)
    if cov:
        rep["coverage_gate"] = {"cases": cov.get("cases"),
                                "implemented_exercised": cov.get("implemented_exercised"),
                                "implemented": cov.get("implemented"),
                                "uncovered": cov.get("uncovered")}
    return rep


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rep = build_report()
    if "--json" in argv:
        print(json.dumps(rep, indent=1))
        return 0
    n, tot = rep["implemented"], rep["upstream_total"]
    print("implemented overloads: %d / %d upstream aten overloads (%.1f%%)" % (n, tot, 100.0 * n / tot))
    cg = rep.get("coverage_gate")
    if cg:
        print("exercised by golden cases on upstream: %s / %s implemented; uncovered: %s" % (
            cg["implemented_exercised"], cg["implemented"],
            ", ".join(cg["uncovered"][:20]) + (" ..." if len(cg["uncovered"]) > 20 else "")
            if cg["uncovered"] else "none"))
    else:
        print("coverage map: none yet (%s; run pytest tests/test_coverage_gate.py)"
              % os.path.relpath(COVERAGE, ROOT))
    _print_opinfo(rep, "--opinfo-failures" in argv)
    _print_opinfo(rep, "--opinfo-failures" in argv, "moduleinfo")
    if "cases_run" not in rep:
        print("golden cases: no results yet (%s; run `make golden-report` or pytest tests/cases)"
              % os.path.relpath(RESULTS, ROOT))
        return 0
    t = rep["totals"]
    print("golden cases run: %d (%s, pytest %s): %d passed, %d failed, %d errors, %d skipped" % (
        rep["cases_run"], rep["session"]["time"], " ".join(rep["session"]["args"] or []),
        t["passed"], t["failed"], t["error"], t["skipped"]))
    print("  %-16s %6s %6s %6s %6s %6s  %s" % ("family", "cases", "pass", "fail", "error", "skip",
                                            "overloads in <family>.def"))
    fams = sorted(set(rep["by_family"]) | set(rep["implemented_by_family"]))
    for fam in fams:
        f = rep["by_family"].get(fam)
        d = rep["implemented_by_family"].get(fam, "-")
        if f is None:
            print("  %-16s %6s %6s %6s %6s %6s  %s" % (fam, "-", "-", "-", "-", "-", d))
            continue
        print("  %-16s %6d %6d %6d %6d %6d  %s" % (fam, f["cases"], f["passed"], f["failed"],
                                                  f["error"], f["skipped"], d))
        if "--groups" in argv:
            for g, x in sorted(f["groups"].items()):
                print("    %-30s %6d %6d %6d %6d %6d" % (g, x["cases"], x["passed"], x["failed"],
                                                       x["error"], x["skipped"]))
    return 0


def _print_opinfo(rep, all_failures, key="opinfo"):
    op = rep.get(key)
    title = "OpInfo" if key == "opinfo" else "ModuleInfo"
    if not op:
        print("%s suite: no results yet (%s; run pytest tests/test_opinfo.py or "
              "tools/opinfo_report.py%s)" % (title, os.path.relpath(OPINFO if key == "opinfo" else MODULEINFO, ROOT),
                                             "" if key == "opinfo" else " --modules"))
        return
    s = op["summary"]
    t = s["totals"]
    ran = s["upstream_runs"]
    print(title + " entries fully passing: %d / %d run by upstream (%.1f%%; %s, %s samples per entry "
          "and dtype): refused %d, wrong value %d, wrong exception %d, load failed %d, crash %d" % (
              t["pass"], ran, 100.0 * t["pass"] / max(ran, 1), op["time"],
              "all" if op["cap"] is None else "up to %s" % op["cap"], t["refused"], t["wrong-value"],
              t["wrong-exception"], t["load-failed"], t["crash"]))
    print("  %-22s %7s %6s %7s %7s %7s %6s" % ("family", "entries", "pass", "refused", "wrongv",
                                             "wrongx", "crash"))
    for fam, f in sorted(s["by_family"].items()):
        print("  %-22s %7d %6d %7d %7d %7d %6d" % (fam, f["entries"], f["pass"], f["refused"],
                                                 f["wrong-value"], f["wrong-exception"],
                                                 f["crash"] + f["load-failed"]))
    order = {"crash": 0, "wrong-value": 1, "load-failed": 2, "wrong-exception": 3, "refused": 4}
    failing = sorted(op["failing"].items(), key=lambda kv: (order.get(kv[1]["class"], 5), kv[0]))
    shown = [kv for kv in failing if all_failures or kv[1]["class"] != "refused"]
    print("  failing entries (%d; %s):" % (len(failing), "all" if all_failures else
                                          "refusals left out, --opinfo-failures lists them"))
    for k, r in shown:
        print("    %-16s %-40s %s" % (r["class"], k, (r.get("detail") or "")[:160]))


if __name__ == "__main__":
    sys.exit(main())
