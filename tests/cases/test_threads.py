"""Golden cases for the thread-count API: torch.get/set_num_threads, get/set_num_interop_threads.

Messages matter here (upstream's exact wording for bad counts), so most snippets catch the
exception and return "Type: message" strings; the harness then compares them exactly. State that
would leak between cases in the persistent case worker is handled two ways: set_num_threads is
restored before a snippet returns, and anything once-only (set_num_interop_threads) or read at
start-up (OMP_NUM_THREADS, MKL_NUM_THREADS, MKL_DYNAMIC, the affinity mask) runs in fresh child
interpreters (`sys.executable`, i.e. the same side's Python) whose printed results are compared.
"""
from harness import case, cases

_CATCH = """
import numpy as np
def attempt(f, *a, **k):
    try:
        return repr(f(*a, **k))
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)
_saved = torch.get_num_threads()
"""

_BAD = ["0", "-1", "-(2**31)", "2**31", "2**62", "2**63", "-(2**63) - 1", "'2'", "True", "False",
        "2.0", "None", "1j", "[2]", "torch.tensor(2)", "torch.float32", "np.int32(0)",
        "np.int64(2**40)", "np.uint64(2**63)", "np.True_", "np.float64(2)"]

cases("set_num_threads_bad", {
    str(i): "r = attempt(torch.set_num_threads, %s)\ntorch.set_num_threads(_saved)\nr" % a
    for i, a in enumerate(_BAD)
}, setup=_CATCH)

cases("set_num_interop_threads_bad", {
    str(i): "attempt(torch.set_num_interop_threads, %s)" % a
    for i, a in enumerate(["0", "-1", "2**31", "2**63", "'2'", "True", "2.0", "None", "np.float64(2)"])
}, setup=_CATCH)

cases("thread_api", {
    "get_default": "torch.get_num_threads()",
    "interop_default": "torch.get_num_interop_threads()",
    "set_get": """
        out = []
        for n in (1, 3, 2, 7, np.int64(2), np.uint8(1), _saved):
            out.append((attempt(torch.set_num_threads, n), torch.get_num_threads()))
        out
    """,
    "arity": """
        (attempt(torch.set_num_threads), attempt(torch.set_num_threads, 1, 2),
         attempt(torch.set_num_threads, num=2), attempt(torch.get_num_threads, 1),
         attempt(torch.set_num_interop_threads), attempt(torch.get_num_interop_threads, 1),
         attempt(torch._C.init_num_threads), torch.get_num_threads() == _saved)
    """,
    "same_objects": """
        (torch.set_num_threads is torch._C.set_num_threads, torch.get_num_threads.__module__,
         torch.set_num_interop_threads.__name__, type(torch.get_num_interop_threads).__name__,
         torch.get_num_threads.__self__ is torch._C)
    """,
    "raises_runtime": "torch.set_num_threads(0)",
    "raises_type": "torch.set_num_threads()",
    "raises_value": "torch.set_num_threads(2**40)",
}, setup=_CATCH)

# set_num_interop_threads succeeds once per process; the rule survives fork(); thread counts set
# in a parent are inherited by a fork()ed child.
case("interop_once", """
import subprocess, sys
script = '''
import os, torch
def attempt(f, *a):
    try:
        return repr(f(*a))
    except Exception as e:
        return "%s: %s" % (type(e).__name__, e)
print(attempt(torch.set_num_interop_threads, 0))
print(torch.get_num_interop_threads())
print(attempt(torch.set_num_interop_threads, 3))
print(torch.get_num_interop_threads())
print(attempt(torch.set_num_interop_threads, 3))
print(attempt(torch.set_num_interop_threads, 1))
print(attempt(torch.set_num_interop_threads, -2))
print(attempt(torch.set_num_interop_threads, True))
print(torch.get_num_interop_threads())
torch.set_num_threads(1)
x = torch.ones(1000) + 1
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    msg = "%s|%s|%s" % (torch.get_num_threads(), torch.get_num_interop_threads(),
                        attempt(torch.set_num_interop_threads, 2))
    torch.set_num_threads(2)
    msg += "|%s|%s" % (torch.get_num_threads(), float((torch.arange(10.) * 2).sum()))
    os.write(w, msg.encode())
    os._exit(0)
os.close(w)
os.waitpid(pid, 0)
print(os.read(r, 1000).decode())
print(torch.get_num_threads())
'''
p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
(p.returncode, p.stdout)
""", traced=False)   # each case runs in a fresh interpreter: nothing here for the dispatch trace to see

# Start-up defaults from the environment (read once, at start-up) and the affinity mask. Each
# setting costs a fresh `import torch`, so the groups are small and run one child at a time.
_ENV = """
import os, subprocess, sys
def startup(env, cpus=None):
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "MKL_DYNAMIC")}
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    p = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads(), torch.get_num_interop_threads())"],
                       env=dict(base, **env), preexec_fn=pre, capture_output=True, text=True, timeout=50)
    return p.stdout.strip(), p.returncode
"""

cases("env_defaults", {
    "omp": """[startup({}), startup({"OMP_NUM_THREADS": "1"}), startup({"OMP_NUM_THREADS": "64"})]""",
    "omp_bad": """[startup({"OMP_NUM_THREADS": "abc"}), startup({"OMP_NUM_THREADS": "1,3"})]""",
    "mkl": """[startup({"MKL_NUM_THREADS": "1", "OMP_NUM_THREADS": "2"}),
               startup({"MKL_DYNAMIC": "false", "OMP_NUM_THREADS": "3"})]""",
    "affinity": """
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        [startup({}, {cpus[0]}), startup({"OMP_NUM_THREADS": "2"}, {cpus[0]})] if len(cpus) > 1 else "one cpu"
    """,
}, setup=_ENV, traced=False)   # each case runs in a fresh interpreter: nothing here for the dispatch trace to see
