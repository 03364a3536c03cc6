"""torch.distributed on torchnative, compared with upstream torch 2.13.0.

Every check runs the same snippet in the reference interpreter (`.venv-ref`, upstream) and in
ours (`.venv`) as subprocesses and compares what they print, or runs a world of processes from
both interpreters against each other (our store client against upstream's server and the
reverse). All processes talk over 127.0.0.1 on free ports, run under a timeout and are killed
at the end of their test.

By hand:  .venv/bin/python -m pytest -q tests/test_distributed.py
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF_PY = os.environ.get("TN_REF_PYTHON", os.path.join(ROOT, ".venv-ref", "bin", "python"))
SUBJECT_PY = os.environ.get("TN_SUBJECT_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))
PYS = {"ref": REF_PY, "ours": SUBJECT_PY}
TIMEOUT = 120


def _run(python, code, timeout=TIMEOUT, env=None):
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         timeout=timeout, cwd=ROOT, env=e)
    if out.returncode != 0:
        raise AssertionError(f"{python} failed ({out.returncode}):\n{out.stderr[-4000:]}")
    return out.stdout


def _both(code, **kw):
    ref, ours = _run(REF_PY, code, **kw), _run(SUBJECT_PY, code, **kw)
    return ref, ours


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _Procs:
    """Processes started by one test, killed when it ends (by their pid, never by name)."""

    def __init__(self):
        self.procs = []

    def start(self, python, code, env=None):
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.Popen([python, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, env=e)
        self.procs.append(p)
        return p

    def finish(self, p, timeout=TIMEOUT):
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            raise AssertionError(f"process timed out after {timeout}s:\n{err[-4000:]}")
        if p.returncode != 0:
            raise AssertionError(f"process failed ({p.returncode}):\n{err[-4000:]}")
        return out

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.fixture
def procs():
    ps = _Procs()
    yield ps
    ps.close()


# ---------------------------------------------------------------------------------------------
# 1. the surface

def test_available_and_import():
    code = """
    import torch, torch.distributed as dist
    print(dist.is_available(), dist.is_gloo_available())
    print([c.__name__ for c in dist.QueueEmptyError.__mro__])
    print(torch._C._DistError.__module__, torch._C._DistError.__qualname__)
    import torch._C._distributed_c10d as c10d, torch._C._distributed as pl
    print(sorted(n for n in dir(c10d) if not n.startswith("__")))
    print(sorted(n for n in dir(pl) if not n.startswith("__")))
    print(type(c10d.ProcessGroup).__name__, type(c10d.ReduceOp).__name__, type(c10d.Store).__name__)
    print([b.__name__ for b in c10d.TCPStore.__mro__][:2], [b.__name__ for b in c10d.ProcessGroupGloo.__mro__][:2])
    print(dict((k, int(v)) for k, v in c10d.ProcessGroup.BackendType.__members__.items()))
    print(dict((k, int(v)) for k, v in c10d.ReduceOp.RedOpType.__members__.items()))
    print(dict((k, int(v)) for k, v in c10d.OpType.__members__.items()))
    print(dist.ReduceOp.SUM, isinstance(dist.ReduceOp.SUM, dist.ReduceOp), dist.ReduceOp(dist.ReduceOp.MAX) == dist.ReduceOp.MAX)
    print(c10d._DEFAULT_PG_TIMEOUT, c10d._DEFAULT_NO_TIMEOUT, c10d._DEFAULT_FIRST_BUCKET_BYTES, dist.get_debug_level())
    import torch.distributed.distributed_c10d, torch.distributed.rendezvous, torch.distributed.elastic
    """
    ref, ours = _both(code)
    assert ours == ref


def test_debug_level_from_env():
    code = """
    import torch.distributed as dist
    print(dist.get_debug_level())
    try:
        import torch._C._distributed_c10d as c; import os; os.environ["TORCH_DISTRIBUTED_DEBUG"] = "bogus"; c.set_debug_level_from_env()
    except Exception as e: print(type(e).__name__)
    """
    ref, ours = _both(code, env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})
    assert ours == ref


def test_c10d_meta_kernels_registered():
    # import torch registers Meta kernels for the c10d:: collectives through torch.library
    _run(SUBJECT_PY, "import torch, torch.distributed._meta_registrations as m; assert len(m._META_FUNCTIONS) == 16")


def test_unimplemented_refuse_by_name():
    code = """
    import torch._C._distributed_c10d as c10d
    for f in (lambda: c10d.Reducer(), lambda: c10d._compute_bucket_assignment_by_size([], [1]),
              lambda: c10d.Logger(None)):
        try: f(); print("no error")
        except NotImplementedError as e: print("refused", "torchnative:" in str(e) and "is not implemented" in str(e))
    """
    out = _run(SUBJECT_PY, code)
    assert out.split("\n")[:3] == ["refused True"] * 3
