"""Exception type and message of every call in the fuzz corpus (tests/test_no_crash.py), on ours
and on upstream, and the calls where they differ (issue #11 item 5, docs/outdev.md).

    .venv/bin/python tools/fuzz_errors.py --run .venv/bin/python /tmp/ours.tsv
    .venv/bin/python tools/fuzz_errors.py --run .venv-ref/bin/python /tmp/ref.tsv
    .venv/bin/python tools/fuzz_errors.py --diff /tmp/ours.tsv /tmp/ref.tsv [--only-type] [-v]

--run drives the corpus's child in a subprocess of the given interpreter, restarting it past a
call that crashed the interpreter (upstream crashes on a few), and records one line per call:
call, exception type ("ok" when none), first line of the message. The child is the corpus's own
code; only its outcome line is widened to carry the message (the corpus records the type only).
--diff counts the calls whose type differs, and those whose type agrees but message does not,
grouped by (ours, upstream) pair; extra arguments after the files go to the child
(e.g. --only add.Tensor) in --run mode.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "test_no_crash.py")
HOOK = "res = type(e).__name__"


def _outcome(e):
    msg = str(e).strip().split("\n")[0]
    msg = re.sub(r"0x[0-9a-fA-F]+", "0x?", msg)[:300].replace("\t", " ")
    return f"{type(e).__name__}\t{msg}"


def _child(argv):
    src = open(CORPUS).read()
    assert src.count(HOOK) == 2, "the corpus's outcome line changed: update tools/fuzz_errors.py"
    src = src.replace(HOOK, "res = _tn_outcome(e)")
    g = {"__name__": "tn_fuzz_corpus", "__file__": CORPUS, "_tn_outcome": _outcome}
    exec(compile(src, CORPUS, "exec"), g)
    g["_child_main"](argv)


def _run(python, record, extra):
    if os.path.exists(record):
        os.unlink(record)
    start, crashes = 0, []
    log = record + ".log"
    while True:
        with open(log, "w") as out:
            p = subprocess.run([python, os.path.abspath(__file__), "--child", "--record", record,
                                "--start", str(start)] + extra, cwd=ROOT, stdout=out,
                               stderr=subprocess.DEVNULL)
        lines = open(log).read().splitlines()
        if p.returncode == 0 and any(l.startswith("FUZZ DONE") for l in lines):
            break
        calls = [l for l in lines if l.startswith("#")]
        if not calls:
            sys.exit(f"{python}: exit {p.returncode} before the first call")
        n, desc = calls[-1][1:].split(" ", 1)
        crashes.append(desc)
        with open(record, "a") as f:
            f.write(f"{desc}\tCRASH\texit {p.returncode}\n")
        start = int(n) + 1
    print(f"{python}: done, {len(crashes)} crashed calls" + "".join("\n  " + c for c in crashes))


def _load(p):
    d = {}
    for line in open(p):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 2:
            d[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return d


def _diff(a_path, b_path, only_type, verbose):
    a, b = _load(a_path), _load(b_path)
    common = sorted(set(a) & set(b))
    types, msgs = {}, {}
    for k in common:
        (ta, ma), (tb, mb) = a[k], b[k]
        if ta != tb:
            types.setdefault((ta, tb), []).append(k)
        elif ma != mb and ta != "ok":
            msgs.setdefault(ta, []).append(k)
    nt, nm = sum(map(len, types.values())), sum(map(len, msgs.values()))
    print(f"calls compared: {len(common)}; type differs: {nt}; same type, message differs: {nm}")
    for (ta, tb), ks in sorted(types.items(), key=lambda kv: -len(kv[1])):
        print(f"== ours {ta} vs upstream {tb}: {len(ks)} calls")
        for k in ks[: (10**6 if verbose else 6)]:
            print(f"    {k}\n        ours: {a[k][1][:160]}\n        ref:  {b[k][1][:160]}")
    if not only_type:
        for t, ks in sorted(msgs.items(), key=lambda kv: -len(kv[1])):
            print(f"== {t}, message differs: {len(ks)} calls")
            for k in ks[: (10**6 if verbose else 4)]:
                print(f"    {k}\n        ours: {a[k][1][:160]}\n        ref:  {b[k][1][:160]}")


if __name__ == "__main__":
    av = sys.argv[1:]
    if av and av[0] == "--child":
        _child(av[1:])
    elif av and av[0] == "--run":
        _run(av[1], av[2], av[3:])
    elif av and av[0] == "--diff":
        _diff(av[1], av[2], "--only-type" in av, "-v" in av)
    else:
        sys.exit(__doc__)
