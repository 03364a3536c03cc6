"""`make test`: the whole suite as two pytest processes side by side, each line of their output
prefixed with its stream's name, exit status nonzero when either fails.

Why two: the machine has two cores. The golden cases and the OpInfo suite already keep both busy
(reference and subject interpreters run in parallel), but most other tests run one interpreter at
a time or wait (Flower's polls and heartbeat, process-group timeouts), leaving a core idle. The
streams split along that line:

  cases   tests/cases, tests/kernels and the tests that read the golden or OpInfo machinery
  system  every other test file or folder under tests/ (a new one lands here by default)

`make test-asan` (--asan): the subject is the sanitizer build, the slow side, while the reference
comes from make test's cache, so one pytest process keeps one core busy. tests/cases is split in
two streams with about as many cases each (files counted by a collect-only run), the gloo frame
fuzzer joining the lighter one and the GGUF fuzzer the other; each stream writes its own golden-results file under build/asan/.

Usage: python tools/test_streams.py [--asan] [extra pytest arguments, given to both streams]
"""
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests")
CASES = ["cases", "kernels", "test_coverage_gate.py", "test_harness_selftest.py",
         "test_opinfo.py", "test_opinfo_gradcheck.py", "test_surface_names.py"]


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


def asan_streams():
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                        "tests/cases"], cwd=ROOT, capture_output=True, text=True)
    count = {}
    for line in r.stdout.splitlines():
        if "::" in line:
            f = line.split("::")[0]
            count[f] = count.get(f, 0) + 1
    if r.returncode or not count:
        sys.exit("tools/test_streams.py: collecting tests/cases failed:\n" + r.stdout[-2000:] + r.stderr[-2000:])
    out, size = {"asan-a": [], "asan-b": []}, {"asan-a": 0, "asan-b": 0}
    for f in sorted(count, key=lambda f: (-count[f], f)):
        name = min(size, key=size.get)
        out[name].append(f[len("tests/"):])
        size[name] += count[f]
    for name in out:   # each stream in make test's (alphabetical) order
        out[name].sort()
    # the two fuzzers one in each stream (in CI under ASan: gloo 18 s, GGUF 56 s)
    lighter = min(size, key=size.get)
    out[lighter].append("test_gloo_fuzz.py")
    out[next(n for n in out if n != lighter)].append("test_gguf_fuzz.py")
    return out


def main(argv):
    asan = "--asan" in argv
    extra = [a for a in argv if a != "--asan"]
    procs = {}
    for name, entries in (asan_streams() if asan else streams()).items():
        argv = [sys.executable, "-m", "pytest", "-q", "--durations=15", "-p", "no:cacheprovider"] \
            + ["tests/" + e for e in entries] + extra
        env = dict(os.environ)
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
    pumps = [threading.Thread(target=pump, args=kv) for kv in procs.items()]
    for t in pumps:
        t.start()
    for t in pumps:
        t.join()
    rcs = {name: p.wait() for name, p in procs.items()}
    print("\nmake %s, %.0f s of wall time:" % ("test-asan" if asan else "test", time.time() - t0))
    for name in procs:
        print("  %-7s exit %d  %s" % (name, rcs[name], last.get(name, "")))
    for name in procs:  # again at the very end, where a log cut to its tail still shows them
        for line in failures[name]:
            print("  %-7s %s" % (name, line[:400]))
    return 0 if all(rc == 0 for rc in rcs.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
