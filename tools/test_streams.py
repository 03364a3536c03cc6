"""`make test`: the whole suite as two pytest processes side by side, each line of their output
prefixed with its stream's name, exit status nonzero when either fails.

Why two: the machine has two cores. The golden cases and the OpInfo suite already keep both busy
(reference and subject interpreters run in parallel), but most other tests run one interpreter at
a time or wait (Flower's polls and heartbeat, process-group timeouts), leaving a core idle. The
streams split along that line:

  cases   tests/cases, tests/kernels and the tests that read the golden or OpInfo machinery,
          then tests/test_pg_wrapper.py (for balance: with the reference's float64 re-runs
          deferred the cases stream got ~4 min shorter than the system stream, measured 27 min in
          CI; that file's process groups mostly wait, about 2 min), and tests/test_adapt.py (with
          the reference's dispatch traces made only where the coverage gate needs them the cases
          stream took 30.9 min in a CI rehearsal, the system stream 32.4; that file ~1.5 min)
  system  every other test file or folder under tests/ (a new one lands here by default)

`make test-asan` (--asan): the subject is the sanitizer build, the slow side, while the reference
comes from make test's cache, so one pytest process keeps one core busy. tests/cases is split in
two streams case by case (every second golden case: TN_SHARD=0/2 and 1/2), the GGUF fuzzer joining
one and the gloo frame fuzzer the other; each stream writes its own golden-results file under
build/asan/.

`--then CMD` (make test's TEST_THEN): CMD runs at nice 19 beside the streams from their start, so
it takes the CPU time they leave idle (tests waiting on process groups, Flower's polls, timeouts:
about a fifth of make test's two cores in a CI rehearsal) and next to nothing when they use both
cores; .ci/run builds the sanitizer extension there for make test-asan. (Started only once the
first stream had finished, the build was still running 3.6 minutes after the second one ended.)
Its exit status is reported, not counted: make test's verdict is the tests'.

`--sample K` (with --asan; make test-asan ASAN_SAMPLE=K): every K-th golden case only, still split
between the two streams (CI runs half of them under the sanitizers: the whole set took 5 of CI's
minutes; `make test-asan` runs them all).

Usage: python tools/test_streams.py [--asan [--sample K]] [--then CMD] [extra pytest arguments, given to both streams]
"""
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
CASES = ["cases", "kernels", "test_coverage_gate.py", "test_harness_selftest.py",
         "test_opinfo.py", "test_opinfo_gradcheck.py", "test_surface_names.py",
         "test_pg_wrapper.py", "test_adapt.py"]


def streams():
    entries = sorted(os.listdir(TESTS))
    missing = [e for e in CASES if e not in entries]
    if missing:
        sys.exit("tools/test_streams.py: %s not found under tests/" % ", ".join(missing))
    system = [e for e in entries if e not in CASES and (
        (e.startswith("test_") and e.endswith(".py"))
        or (os.path.isdir(os.path.join(TESTS, e)) and any(
            f.startswith("test_") and f.endswith(".py") for f in os.listdir(os.path.join(TESTS, e)))))]
    return {"cases": CASES, "system": system}


def asan_streams(sample=1):
    """tests/cases split case by case (TN_SHARD, tests/conftest.py): stream i keeps every second
    golden case from the i-th, so both get as many cases of each file and about the same work
    (split by whole files, one stream took 294 s and the other 167 s in CI); the gloo frame fuzzer
    in one, the GGUF fuzzer in the other (in CI under ASan: gloo 18 s, GGUF 52 s); torchnative.graphs'
    replays (reference counts of recorded arguments) beside the gloo fuzzer (75 s on a loaded host)."""
    n = 2 * sample   # --sample K: every K-th golden case only (CI: 2), the two streams' shards of it
    return {"asan-a": (["cases", "test_gguf_fuzz.py"], "0/%d" % n),
            "asan-b": (["cases", "test_gloo_fuzz.py", "test_graphs.py"], "1/%d" % n)}


def _option(argv, flag, default):
    """(the value after flag, argv without both), or (default, argv)."""
    if flag not in argv:
        return default, argv
    i = argv.index(flag)
    return argv[i + 1], argv[:i] + argv[i + 2:]


def main(argv):
    asan = "--asan" in argv
    sample, argv = _option(argv, "--sample", "1")
    then, argv = _option(argv, "--then", None)
    extra = [a for a in argv if a != "--asan"]
    procs = {}
    plan = asan_streams(int(sample)) if asan else {k: (v, None) for k, v in streams().items()}
    for name, (entries, shard) in plan.items():
        argv = [sys.executable, "-m", "pytest", "-q", "--durations=15", "-p", "no:cacheprovider"] \
            + ["tests/" + e for e in entries] + extra
        env = dict(os.environ)
        if shard:
            env["TN_SHARD"] = shard
        if asan:
            env["TN_GOLDEN_RESULTS"] = os.path.join(ROOT, "build", "asan", "golden-results-%s.json" % name)
        procs[name] = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, env=env,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    last = {}
    failures = {name: [] for name in procs}
    lock = threading.Lock()

    def pump(name, p):
        for raw in p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.strip():
                last[name] = line
            if line.startswith(("FAILED ", "ERROR ")):
                failures[name].append(line)
            with lock:
                sys.stdout.write("[%s] %s\n" % (name, line))
                sys.stdout.flush()

    t0 = time.time()
    pumps = {name: threading.Thread(target=pump, args=(name, p)) for name, p in procs.items()}
    for t in pumps.values():
        t.start()
    then_proc = None
    if then:
        print("[then] %.0f s: %s" % (time.time() - t0, then), flush=True)
        then_proc = subprocess.Popen(["nice", "-n", "19", "sh", "-c", then], cwd=ROOT,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        pumps["then"] = threading.Thread(target=pump, args=("then", then_proc))
        failures["then"] = []
        pumps["then"].start()
    for t in pumps.values():
        t.join()
    rcs = {name: p.wait() for name, p in procs.items()}
    print("\nmake %s, %.0f s of wall time:" % ("test-asan" if asan else "test", time.time() - t0))
    for name in procs:
        print("  %-7s exit %d  %s" % (name, rcs[name], last.get(name, "")))
    if then_proc is not None:
        print("  then    exit %d  %s (%.0f s in all)" % (then_proc.wait(), then, time.time() - t0))
    for name in procs:  # again at the very end, where a log cut to its tail still shows them
        for line in failures[name]:
            print("  %-7s %s" % (name, line[:400]))
    return 0 if all(rc == 0 for rc in rcs.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
