"""torch.profiler's C side given hostile input (src/python/profiler.c, src/core/profiler.c): every
function and type of it called with wrong arguments, sessions started and stopped out of order,
handles used after their session, scopes ended twice, traces saved to bad paths. The child must
exit normally and never raise SystemError (a C function returning NULL without an exception)."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r'''
import itertools, gc, torch
A = torch._C._autograd
P = torch._C._profiler
def t(f):
    try: f()
    except SystemError: raise
    except BaseException: pass
vals = [None, 1, "x", [], set(), {P.ProfilerActivity.CPU}, {1: 2}, -1.5, object(), b"x", torch.ones(1)]
fns = [A._supported_activities, A.kineto_available, A._prepare_profiler, A._enable_profiler, A._disable_profiler,
       A._profiler_enabled, A._add_metadata_json, A._kineto_step, A._is_kineto_stopped, A._get_sequence_nr,
       torch._C._demangle, P.ProfilerConfig, P._ExperimentalConfig, P._RecordFunctionFast, A._ProfilerResult,
       A._KinetoEvent]
for f in fns:
    for k in range(4):
        for args in itertools.product(vals, repeat=k):
            t(lambda: f(*args))
while A._profiler_enabled():
    A._disable_profiler()
cfg = P.ProfilerConfig(P.ProfilerState.KINETO, True, True, False, True, False, P._ExperimentalConfig())
acts = {P.ProfilerActivity.CPU}
x = torch.randn(3, 3, requires_grad=True)
# a scope and an op left open across stop, ended after the session
A._enable_profiler(cfg, acts)
h = torch.ops.profiler._record_function_enter_new("open", None)
fast = P._RecordFunctionFast("fast"); fast.__enter__()
y = (x @ x).sum()
r = A._disable_profiler()
torch.ops.profiler._record_function_exit._RecordFunction(h)
torch.ops.profiler._record_function_exit._RecordFunction(h)
fast.__exit__(None, None, None); fast.__exit__(None, None, None)
A._enable_profiler(cfg, acts)       # a new session: the old handles stay stale
torch.ops.profiler._record_function_exit._RecordFunction(h)
y.backward()
A._enable_profiler(cfg, acts)       # nested: starts over
A._add_metadata_json("k\t\n\"", "not json")
r2 = A._disable_profiler()
r3 = A._disable_profiler()
for res in (r, r2, r3):
    evs = res.events()
    for e in evs:
        for m in dir(e):
            if not m.startswith("_"):
                t(lambda: getattr(e, m)())
    for p in [None, 1, "/nonexistent/dir/x.json", "/dev/null", b"/dev/null"]:
        t(lambda: res.save(p))
    t(lambda: res.experimental_event_tree())
    del res
gc.collect()
for e in evs:                        # events outlive their result object
    t(lambda: e.shapes()); t(lambda: e.name())
t(lambda: torch.ops.profiler._record_function_exit._RecordFunction(1))
t(lambda: torch.ops.profiler._record_function_enter_new(1))
# with_stack (src/python/profiler_pytrace.c): the Python tracer across odd control flow
scfg = P.ProfilerConfig(P.ProfilerState.KINETO, False, False, True, False, True, P._ExperimentalConfig(verbose=True))
def start_here():
    A._enable_profiler(scfg, acts)   # returns past the frames the tracer saw running
def gen():
    A._enable_profiler(scfg, acts)
    yield 1
    raise ValueError("inside")
def rec(n):
    return rec(n - 1) + 1 if n else (x * 2).sum()
import sys, threading
start_here()
t(lambda: list(gen()))               # nested: restarts, then an exception through traced frames
t(lambda: rec(10 ** 6))              # RecursionError while tracing
t(lambda: torch.nn.Module.__call__(object()))
sys.setprofile(lambda *a: None)      # the user's profile function replaces ours mid-session
(x @ x).sum().backward()
sys.setprofile(None)
th = threading.Thread(target=start_here); th.start(); th.join()   # started on another thread
rs = [A._disable_profiler(), A._disable_profiler()]
A._enable_profiler(scfg, acts)
th = threading.Thread(target=lambda: rs.append(A._disable_profiler())); th.start(); th.join()
(x + 1).sum()                        # the tracer left on this thread is off
for res in rs:
    for e in res.events():
        t(lambda: (e.stack(), e.python_id(), e.python_parent_id(), e.python_module_id(), e.is_python_function()))
    t(lambda: res.save("/dev/null"))
c = P._ExperimentalConfig(trace_only=True)
import copy
t(lambda: copy.deepcopy(c)); t(lambda: setattr(c, "trace_only", None)); t(lambda: delattr(c, "__dict__"))
print("no crash")
'''


def test_profiler_no_crash():
    py = os.environ.get("TN_FUZZ_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
    r = subprocess.run([py, "-W", "ignore", "-c", CHILD], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and "no crash" in r.stdout, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
