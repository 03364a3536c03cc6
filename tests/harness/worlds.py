"""Worlds of processes on 127.0.0.1 for the distributed tests (test_distributed_gloo.py,
test_ddp.py, test_pg_wrapper.py): one process per rank, ours ('n') or upstream's ('u'), rendezvous
through env:// on a free port. Each rank writes `out/rank<r>.json` (its results) and its output to
`out/log<r>.txt`."""
import json
import os
import socket
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REF_PY = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
SUBJECT_PY = os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run_world(spec, argv, out, env=None, timeout=150, wait=None):
    """Run one world: spec[i] is 'n' (ours) or 'u' (upstream) for rank i, each running
    `python *argv` with MASTER_ADDR / MASTER_PORT / WORLD_SIZE / RANK and `env` set. Returns
    (per-rank results or None, per-rank (returncode, log tail)). Every process is killed by pid
    when the ranks in `wait` (default: all) have ended, or at the timeout."""
    os.makedirs(out, exist_ok=True)
    port = free_port()
    procs = []
    for r, c in enumerate(spec):
        e = dict(os.environ)
        e.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": str(len(spec)),
                  "RANK": str(r)})
        e.update(env or {})
        log = open(os.path.join(out, f"log{r}.txt"), "w")
        procs.append((subprocess.Popen([SUBJECT_PY if c == "n" else REF_PY, *argv], stdout=log,
                                       stderr=subprocess.STDOUT, cwd=ROOT, env=e), log))
    deadline = time.time() + timeout
    try:
        for r, (p, _) in enumerate(procs):
            if wait is None or r in wait:
                p.wait(timeout=max(1, deadline - time.time()))
    except subprocess.TimeoutExpired:
        pass
    finally:
        for p, log in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            log.close()
    results, status = [], []
    for r, (p, _) in enumerate(procs):
        path = os.path.join(out, f"rank{r}.json")
        results.append(json.load(open(path)) if os.path.exists(path) else None)
        with open(os.path.join(out, f"log{r}.txt")) as f:
            status.append((p.returncode, f.read()[-3000:]))
    return results, status
