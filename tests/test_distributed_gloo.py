"""The gloo process group on torchnative against upstream torch 2.13.0's gloo.

Worlds of processes on 127.0.0.1 (env:// rendezvous on a free port) run tests/dist_gloo_worker.py;
each rank writes a digest of every collective's result bytes. The all-upstream world (`.venv-ref`)
is the reference; a world of our ranks and mixed worlds (2 of ours + 2 upstream, the store host
on each side) must produce identical bytes on every rank. Mixed worlds only work when our ranks
speak upstream's rendezvous record, pair handshake, frames, slots and tag sequence, and compute
with gloo's algorithms (ring all-reduce segmenting, reduction order).

By hand:  .venv/bin/python -m pytest -q tests/test_distributed_gloo.py
"""
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time

import pytest

from harness.worlds import REF_PY, SUBJECT_PY, free_port, run_world

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "dist_gloo_worker.py")
TIMEOUT = 150


def _world(spec, suite, out, env=None, timeout=TIMEOUT, wait=None):
    """Run one world (tests/harness/worlds.py): returns (per-rank results or None, per-rank
    (returncode, log tail))."""
    return run_world(spec, [WORKER, suite, out], out, {"TN_TEST_PG_TIMEOUT": "60", **(env or {})}, timeout, wait)


def _check_ok(spec, results, status):
    for r, res in enumerate(results):
        assert res is not None, f"world {spec}: rank {r} ({spec[r]}) produced nothing, exit {status[r][0]}:\n{status[r][1]}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("uuuu"))
    results, status = _world("uuuu", "collectives", out)
    _check_ok("uuuu", results, status)
    return results


def _compare(spec, results, reference):
    bad = []
    for r, (mine, ref) in enumerate(zip(results, reference)):
        for k in sorted(set(ref) | set(mine)):
            if mine.get(k) != ref.get(k):
                bad.append(f"rank {r} ({spec[r]}): {k}: {str(mine.get(k))[:70]} != upstream {str(ref.get(k))[:70]}")
    assert not bad, f"world {spec} differs from the all-upstream world:\n" + "\n".join(bad)


def test_reference_covers_every_case(reference):
    """the worker's cases all ran on upstream (sizes 1, 1023, 2**20+3 of f32/f64/i64/bf16 ...)"""
    keys = set(reference[0])
    for dt in ("f32", "f64", "i64", "bf16"):
        for n in (1, 1023, 2**20 + 3):
            assert f"all_reduce_sum_{dt}_{n}" in keys
    for k in ("broadcast_f64_1048579_1", "all_gather_bf16", "reduce_f32_1048579", "gather", "scatter",
              "reduce_scatter", "reduce_scatter_tensor", "all_to_all_single_splits", "all_to_all", "send_recv",
              "isend_irecv", "batch_isend_irecv", "all_gather_object", "broadcast_object_list",
              "subgroup_all_reduce", "all_reduce_BXOR_i64", "all_reduce_AVG_f32"):
        assert k in keys, k
    assert "recv_any" in reference[0] and reference[0]["recv_any"][1] == 3
    # every collective once more with async_op=True (issued together, waited in reverse order), with
    # its get_future() value and result() (or upstream's exception for them)
    for k in ("all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter",
              "reduce_scatter", "reduce_scatter_tensor", "all_to_all_single", "all_to_all", "barrier"):
        for suffix in ("", "_done", "_future", "_result"):
            assert f"async_{k}{suffix}" in keys, k + suffix
    assert "async_all_reduce_coalesced" in keys
    assert reference[0]["monitored_barrier"] == "None"
    # upstream's reduce_scatter works stay not completed after wait() (LambdaWork); the others are
    ref0 = reference[0]
    assert ref0["async_reduce_scatter_completed"] is False and ref0["async_reduce_scatter_tensor_completed"] is False
    assert ref0["async_all_reduce_completed"] is True and ref0["async_all_gather_completed"] is True
    # the coalesced forms: one Work; all_gather_into_tensor's is one allgather (list-of-lists future,
    # result() refused), reduce_scatter_tensor's a LambdaWork (no future, never completed); bad
    # inputs raise before a tag is taken (co_after agrees in the mixed worlds only if so)
    assert ref0["co_all_gather_into_tensor_completed"] is True
    assert ref0["co_all_gather_into_tensor_result"].startswith("work result does not support list of lists")
    assert ref0["co_reduce_scatter_tensor_completed"] is False
    assert ref0["co_reduce_scatter_tensor_future"] == "Work::getFuture not implemented."
    assert ref0["co_bad_start_coalescing"] == ["RuntimeError", "Backend gloo does not implement startCoalescing"]
    assert ref0["co_bad_ag_empty"][0] == "NotImplementedError"
    assert "co_after" in keys
    # several tensors per call (dist_gloo_worker.lists): upstream's answers the tests pin
    assert ref0["li_bad_ar_empty"][0] == "NotImplementedError"
    assert ref0["li_bad_ar_type"][1].startswith("ProcessGroupGloo::allreduce: invalid tensor type at index 1 ")
    assert ref0["li_bad_bc_root_tensor"] == ["RuntimeError", "ProcessGroupGloo::broadcast: invalid root tensor: 2"]
    assert ref0["li_ag_result"].startswith("work result does not support list of lists")
    assert "li_after" in keys


@pytest.mark.parametrize("spec", ["nnnn", "nnuu", "uunn"])
def test_world_matches_upstream(spec, reference, tmp_path):
    """4 of our ranks; 2 of ours + 2 upstream with the store host (rank 0) ours, then upstream's"""
    results, status = _world(spec, "collectives", str(tmp_path))
    _check_ok(spec, results, status)
    _compare(spec, results, reference)


def test_killed_rank_makes_survivors_raise(tmp_path):
    """rank 1 (ours) dies by SIGKILL while the others wait in an async all_reduce for its data: the
    upstream survivor (rank 0) and ours (rank 2) both raise on wait(), with the same exception type,
    within seconds (the process group timeout is 60 s), naming the closed connection; the failed
    job does not wedge the queue: the next async broadcast and all_reduce raise at once"""
    results, status = _world("unn", "killed", str(tmp_path), timeout=90)
    assert status[1][0] == -9, status[1]
    up, ours = results[0], results[2]
    assert up is not None and ours is not None, status
    assert up["raised"] is not None and ours["raised"] == up["raised"], (up, ours)
    assert ours["message_has_peer"] and up["message_has_peer"]
    assert ours["seconds"] < 15 and up["seconds"] < 15, (up, ours)
    assert up["raised_next"] is not None and ours["raised_next"] == up["raised_next"], (up, ours)
    for k in ("raised_coalesced_ag", "raised_coalesced_rs"):
        assert up[k] is not None and ours[k] == up[k], (k, up, ours)
    assert ours["seconds_next"] < 15 and up["seconds_next"] < 15, (up, ours)


def _stopped_outcome(spec, tmp_path):
    results, status = _world(spec, "stopped", str(tmp_path), timeout=120, wait=(0, 2))
    assert status[1][0] == -9, status[1]     # still stopped at the end: killed by the harness
    out = []
    for r in (0, 2):
        res = results[r]
        assert res is not None, status
        # upstream prefixes gloo's source location ("[.../unbound_buffer.cc:78] "); the text after it
        # is the message
        out.append((res["raised"], re.sub(r"^\[[^\]]*\] ", "", res.get("message", "")), res["seconds"],
                    res["mb0"], res["mb1"]))
    return out


@pytest.fixture(scope="module")
def stopped_reference(tmp_path_factory):
    return _stopped_outcome("uuu", tmp_path_factory.mktemp("stopped-ref"))


@pytest.mark.parametrize("spec", ["nnn", "unn", "nnu"])
def test_stopped_rank_makes_survivors_raise_at_timeout(spec, stopped_reference, tmp_path):
    """rank 1 stops itself (SIGSTOP) inside a group whose timeout is 5 s: each survivor raises what
    the same rank of an all-upstream world raises (RuntimeError "Timed out waiting 5000ms for
    recv/send operation to complete"), at the timeout, never hanging. Before that, with rank 1
    absent from two monitored_barriers (wait_all_ranks False / True), ranks 0 and 2 raise what
    upstream's raise (dist_gloo_worker.monitored)"""
    ref, got = stopped_reference, _stopped_outcome(spec, tmp_path)
    for (rt, rm, _, *rmb), (gt, gm, gs, *gmb) in zip(ref, got):
        assert rt == "RuntimeError" and "Timed out waiting 5000ms" in rm, ref
        assert (gt, gm) == (rt, rm), (spec, ref, got)
        assert 4.5 <= gs < 20, (spec, got)
        # monitored_barrier with rank 1 absent (before it stops): rank 0's and rank 2's errors
        assert gmb == rmb, (spec, rmb, gmb)
    (_, _, _, mb0_r0, mb1_r0), (_, _, _, mb0_r2, mb1_r2) = ref
    assert mb0_r0[1].startswith("[Rank 0]: Rank 1 failed to pass monitoredBarrier in 1000 ms\n Original exception")
    assert mb1_r0[1] == "[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 1000 ms"
    assert mb0_r2[1].startswith("Rank 2 successfully reached monitoredBarrier") and mb0_r2[2], mb0_r2


@pytest.fixture(scope="module")
def overlap_reference(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("overlap-uu"))
    ref, status = _world("uu", "overlap", out)
    _check_ok("uu", ref, status)
    return ref


@pytest.mark.parametrize("spec", ["nn", "nu", "un"])
def test_async_collectives_overlap_compute(spec, overlap_reference, tmp_path):
    """collectives with async_op=True return at once and complete later, as upstream's gloo work
    queue does (then: two workers, see threads() in the worker): with rank 1 joining 1.5 s late, rank 0's eight calls (broadcast, all_gather_into_tensor,
    reduce_scatter_tensor, all_to_all_single, gather, scatter, barrier, all_reduce) return in well
    under a second, none completed yet; wait(timeout=100 ms) raises what upstream raises; rank 0
    computes while they are pending; the result bytes equal the all-upstream world's"""
    ref = overlap_reference
    got, status = _world(spec, "overlap", str(tmp_path / spec))
    _check_ok(spec, got, status)
    for r in (0, 1):
        assert got[r]["sum"] == ref[r]["sum"], (spec, r)
    assert ref[0]["wait_timeout"] == ["RuntimeError", "Operation timed out!"], ref[0]
    assert got[0]["wait_timeout"] == ref[0]["wait_timeout"], (spec, got[0])
    for res in (ref[0], got[0]):
        assert res["call_seconds"] < 0.5 and res["completed_at_return"] is False, (spec, ref[0], got[0])
        assert res["computed_while_pending"] is True, (spec, ref[0], got[0])
    # options._threads workers (default 2): with 1 the small all_reduce B issued after the large A
    # always completes after it; with 2 it runs beside A and completes first (upstream: in every
    # trial; here at least once in three, as a loaded machine may delay B's worker)
    for r in (0, 1):
        for res in (ref[r], got[r]):
            assert res["default_threads"] == 2, res
            assert res["threads1_orders"] == ["AB"] * 3, (spec, r, res["threads1_orders"])
            assert "BA" in res["threads2_orders"], (spec, r, res["threads2_orders"])
        assert got[r]["threads1_sums"] == ref[r]["threads1_sums"], (spec, r)
        assert got[r]["threads2_sums"] == ref[r]["threads2_sums"], (spec, r)


@pytest.mark.parametrize("spec,method", [("nu", "tcp"), ("un", "file")])
def test_init_methods(spec, method, tmp_path):
    """init_process_group with tcp:// and file:// in mixed worlds"""
    if method == "tcp":
        init = f"tcp://127.0.0.1:{free_port()}"
    else:
        init = f"file://{tmp_path}/rendezvous"
    results, status = _world(spec, "init", str(tmp_path / "out"), env={"TN_TEST_INIT": init}, timeout=90)
    _check_ok(spec, results, status)
    assert results[0]["sum"] == results[1]["sum"]
    assert [results[0]["rank_size"], results[1]["rank_size"]] == [[0, 2], [1, 2]]
    assert results[0]["sum"] == [1.0, 3.0, 5.0, 7.0]


# ---------------------------------------------------------------- hostile peers

HOSTILE_RANK0 = r"""
import os, sys, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=40))
# the collective's own timeout (upstream's Backend._set_default_timeout), short for the silent peer
dist.distributed_c10d._get_default_group()._get_backend(torch.device("cpu"))._set_default_timeout(
    datetime.timedelta(seconds=4))
t = torch.ones(1000)
try:
    dist.all_reduce(t)
    print("NO-ERROR")
except Exception as e:
    print("RAISED", type(e).__name__, str(e)[:200])
sys.stdout.flush()
os._exit(0)
"""


FAKE_RANK1 = r"""
import os, socket, struct, sys, time, datetime
import torch.distributed as dist
port = int(sys.argv[1]); mode = sys.argv[2]
store = dist.TCPStore("127.0.0.1", port, 2, False, timeout=datetime.timedelta(seconds=30))
# our listener and record: hostname, sockaddr_storage of the listener, seq -1, pair ids [0, 1]
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(4)
lport = ls.getsockname()[1]
ss = struct.pack("<H", socket.AF_INET) + struct.pack(">H", lport) + socket.inet_aton("127.0.0.1")
ss = ss.ljust(128, b"\0")
host = b"fake"
rec = struct.pack("<Q", len(host)) + host + struct.pack("<Q", 136) + ss + struct.pack("<q", -1) + struct.pack("<qq", 0, 1)
key = "default_pg/0//cpu//0/"
# the default group's store-based init: rank 1 joins like upstream (set its record, read rank 0's)
store.set(key + "1", rec)
peer = store.get(key + "0")
hl = struct.unpack_from("<Q", peer, 0)[0]
addr = peer[16 + hl: 16 + hl + 128]
pport = struct.unpack_from(">H", addr, 2)[0]
pids = struct.unpack_from("<qq", peer, 16 + hl + 136)
# initiator: gloo compares the addresses, then the ports as the raw network-order u16 read natively
raw = lambda p: struct.unpack("<H", struct.pack(">H", p))[0]
if raw(lport) > raw(pport):
    s = socket.create_connection(("127.0.0.1", pport))
    s.sendall(struct.pack("<q", pids[1]))
else:
    s, _ = ls.accept()
    s.recv(8)
time.sleep(0.5)
slot = 4 << 56
if mode == "garbage":
    s.sendall(b"\xff" * 48)
elif mode == "toolong":
    # announce, then push more bytes than rank 0 asked for
    s.sendall(struct.pack("<6Q", 48, 2, slot, 0, 1 << 40, 0))
    s.sendall(struct.pack("<6Q", 48 + (1 << 40), 1, slot, 0, 1 << 40, 0) + b"\0" * 4096)
elif mode == "truncated":
    s.sendall(struct.pack("<3Q", 48, 3, slot))
    s.close()
elif mode == "silent":
    time.sleep(40)
time.sleep(3)
"""


def _against_fake_peer(rank0_script, env, fake_cmd, fake_env):
    """Our rank 0 (rank0_script, in the subject interpreter) against a fake rank 1 (`fake_cmd`: an
    upstream-interpreter script and its arguments); returns our (returncode, stdout, stderr)"""
    ours = subprocess.Popen([SUBJECT_PY, "-c", rank0_script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, env=env)
    fake = subprocess.Popen([REF_PY, "-c", *fake_cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env=fake_env)
    try:
        out, err = ours.communicate(timeout=60)
    finally:
        for p in (ours, fake):
            if p.poll() is None:
                p.kill()
                p.wait()
    return ours.returncode, out, err


@pytest.mark.parametrize("mode", ["garbage", "toolong", "truncated", "silent"])
def test_hostile_peer(mode, tmp_path):
    """a peer that sends a malformed frame, data longer than the posted recv, a truncated frame, or
    nothing: our rank raises RuntimeError (the timeout for the silent peer), never crashes or hangs"""
    port = free_port()
    e = dict(os.environ)
    e.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2", "RANK": "0"})
    rc, out, err = _against_fake_peer(HOSTILE_RANK0, e, [FAKE_RANK1, str(port), mode], None)
    assert rc == 0, err[-3000:]
    assert out.startswith("RAISED RuntimeError"), (out, err[-2000:])


SPARSE_RANK0 = r"""
import os, sys, time, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=40))
dist.distributed_c10d._get_default_group()._get_backend(torch.device("cpu"))._set_default_timeout(
    datetime.timedelta(seconds=4))
s = torch.sparse_coo_tensor([[0, 2]], [1., 2.], (5,))
t0 = time.time()
try:
    dist.all_reduce(s)
    print("NO-ERROR")
except Exception as e:
    print("RAISED", type(e).__name__, round(time.time() - t0, 1), str(e)[:200])
sys.stdout.flush()
os._exit(0)
"""

# the peer's half of a sparse all_reduce's first exchange: an allgather of 9 int64 on the next tag
# (dist.all_gather_into_tensor has the same wire shape), holding hostile metadata; then silence
SPARSE_FAKE_RANK1 = r"""
import os, sys, time, datetime, torch, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=40))
meta = torch.zeros(9, dtype=torch.int64)
meta[0], meta[8] = int(sys.argv[1]), int(sys.argv[2])
dist.all_gather_into_tensor(torch.empty(18, dtype=torch.int64), meta)
time.sleep(10)
os._exit(0)
"""


@pytest.mark.parametrize("mode,size,nnz,says", [("negative_nnz", 5, -3, "announced -3 sparse entries"),
                                                 ("huge_nnz", 5, 2**62, "announced 4611686018427387904 sparse"),
                                                 ("other_size", 6, 1, "Sparse dimensions do not match"),
                                                 ("silent", 5, 1000, "Timed out waiting 4000ms")])
def test_sparse_all_reduce_hostile_metadata(mode, size, nnz, says, tmp_path):
    """a peer announcing a negative or impossible number of entries, other sizes, or entries it never
    sends: our rank raises RuntimeError (at once; the timeout for the silent peer), never allocates
    from the peer's word unchecked, crashes or hangs"""
    port = free_port()
    e = dict(os.environ)
    e.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2"})
    rc, out, err = _against_fake_peer(SPARSE_RANK0, dict(e, RANK="0"), [SPARSE_FAKE_RANK1, str(size), str(nnz)], dict(e, RANK="1"))
    assert rc == 0, err[-3000:]
    assert out.startswith("RAISED RuntimeError") and says in out, (out, err[-2000:])
    seconds = float(out.split()[2])
    assert seconds < (10 if mode == "silent" else 3), out


TORCHRUN_SCRIPT = r"""
import os, sys, torch, torch.distributed as dist
dist.init_process_group("gloo")
t = torch.arange(3, dtype=torch.float32) + dist.get_rank()
dist.all_reduce(t)
with open(os.path.join(sys.argv[1], f"r{dist.get_rank()}"), "w") as f:
    f.write(f"rank {dist.get_rank()} {dist.get_world_size()} {t.tolist()}")
dist.barrier()
dist.destroy_process_group()
"""


def test_torchrun_two_ranks(tmp_path):
    """torchrun (upstream's elastic agent over our TCPStore) launches 2 of our ranks; the sum of
    arange(3) + rank over ranks 0 and 1 is [1, 3, 5]"""
    script = tmp_path / "s.py"
    script.write_text(TORCHRUN_SCRIPT)
    out = subprocess.run([SUBJECT_PY, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port",
                          str(free_port()), str(script), str(tmp_path)], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [(tmp_path / f"r{r}").read_text() for r in range(2)]
    assert lines == ["rank 0 2 [1.0, 3.0, 5.0]", "rank 1 2 [1.0, 3.0, 5.0]"], out.stderr[-2000:]


BAD_SIZES = r"""
import os, sys, torch, torch.distributed as dist
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:" + sys.argv[1], rank=0, world_size=1)
cases = [lambda: dist.scatter(torch.empty(4), [torch.ones(2)], src=0),
         lambda: dist.scatter(torch.empty(2, 3), [torch.ones(3, 2)], src=0),
         lambda: dist.scatter(torch.empty(()), [torch.ones(1)], src=0),
         lambda: dist.gather(torch.ones(3), [torch.empty(4)], dst=0),
         lambda: dist.gather(torch.ones(2, 3), [torch.empty(6)], dst=0),
         lambda: dist.all_gather([torch.empty(3, 2)], torch.ones(2, 3)),
         lambda: dist.all_gather([torch.empty(3, 2), torch.empty(2, 3)], torch.ones(2, 3)),
         lambda: dist.broadcast(torch.ones(2), src=3)]
for f in cases:
    try:
        f()
        print("no error")
    except Exception as e:  # noqa: BLE001 - type and message are the evidence
        print(type(e).__name__, str(e).splitlines()[0][:200])
dist.destroy_process_group()
"""


def test_bad_sizes_raise_as_upstream():
    """outputs/inputs of the wrong size (scatter reading past a short input, gather/all_gather into
    wrong shapes, a bad root): upstream's exception type and message, before anything is queued
    (one single-rank world per side)"""
    outs = []
    for py in (REF_PY, SUBJECT_PY):
        out = subprocess.run([py, "-c", BAD_SIZES, str(free_port())], capture_output=True, text=True, timeout=120,
                             cwd=ROOT)
        assert out.returncode == 0, out.stderr[-3000:]
        outs.append(out.stdout.splitlines())
    assert len(outs[0]) == 8 and not any(line == "no error" for line in outs[0][:6]), outs[0]
    assert outs[1] == outs[0]


# ProcessGroup.split_group / merge_remote_group (dist_gloo_worker.split / merge). Upstream's own
# gloo often leaves one rank of a new group hanging in the ProcessGroupGloo constructor while its
# peers return, when the new backend shares the parent's device (split or merge without options of
# its own; docs/distributed.md "### Groups"). The split suite gives its groups options with a device
# of their own, which makes it much rarer; merge cannot. So a world holding upstream ranks gets up
# to four attempts and is skipped, saying so, when upstream got stuck in all; ours gets one.
SPLIT_ENV = {"TN_TEST_PG_TIMEOUT": "20"}
# Those worlds (an all-upstream reference, then ours against it) are opt-in: on the shared 2-core
# host upstream got stuck in all four attempts of its own reference world (measured 2026-12-04:
# 7 of 8 tests skipped after 8 minutes), so in `make test` they would cost minutes and compare
# nothing. TN_DIST_SPLIT_UPSTREAM=1 runs them. The world of our ranks below always runs.
UPSTREAM_SPLIT_WORLDS = pytest.mark.skipif(
    os.environ.get("TN_DIST_SPLIT_UPSTREAM") != "1",
    reason="opt-in (TN_DIST_SPLIT_UPSTREAM=1): upstream's own gloo intermittently hangs connecting a "
           "split / merged group, so its reference world often cannot run (docs/distributed.md)")


def _upstream_stuck(spec, status):
    """an attempt that failed the way upstream's gloo does on its own: an upstream rank hung in the
    constructor (killed at the world's timeout) or raised its connect timeout, and none of ours
    failed to connect"""
    ours_failed = any(c == "n" and "connectFullMesh failed" in log for c, (_, log) in zip(spec, status))
    theirs = any(c == "u" and (rc == -9 or "connectFullMesh failed" in log) for c, (rc, log) in zip(spec, status))
    return theirs and not ours_failed


def _world_attempts(spec, suite, out, attempts):
    """the world's results; after `attempts` failed runs that upstream's ranks got stuck in (see
    above) the test is skipped, saying so; any other failure fails it"""
    for i in range(attempts):
        results, status = _world(spec, suite, os.path.join(out, f"try{i}"), env=SPLIT_ENV, timeout=60)
        if all(r is not None for r in results):
            return results
        if not _upstream_stuck(spec, status):
            break
    else:
        pytest.skip(f"world {spec}: upstream's gloo left a rank stuck connecting a new group in all {attempts} "
                    f"attempts (upstream's own intermittent failure, docs/distributed.md)")
    _check_ok(spec, results, status)
    return results


@pytest.fixture(scope="module")
def split_reference(tmp_path_factory):
    return _world_attempts("uuuu", "split", str(tmp_path_factory.mktemp("split-uuuu")), 4)


@UPSTREAM_SPLIT_WORLDS
def test_split_reference_pins(split_reference):
    """what upstream 2.13 answers (the worlds below must equal it): a rank outside the list gets
    None; the name is `<parent>:split:<sorted ranks>`, the rank the place in the sorted list; the
    backend is a ProcessGroupGloo with the parent's timeout (or the one given), no bound device;
    upstream's checks, in its order"""
    ref = split_reference
    assert ref[0]["sp_hi"] is None and ref[3]["sp_lo"] is None
    assert ref[1]["sp_lo"][:5] == ["ProcessGroup", "0:split:[0, 1]", "default_pg:split:<n>", 1, 2]
    assert ref[3]["sp_named"][1:5] == ["sp_all", "sp desc", 3, 4] and ref[3]["sp_named"][10] == "0:00:07"
    assert ref[3]["sp_outer"][1] == "0:split:[0, 1, 2, 3]" and ref[3]["sp_outer"][3] == 3
    assert ref[2]["sp_inner"][1:5] == ["0:split:[0, 1, 2, 3]:split:[2, 3]", "default_pg:split:<n>:split:<n>", 0, 2]
    assert ref[0]["sp_lo"][5:8] == ["None", ["cpu", "cuda"], "ProcessGroupGloo"] and ref[0]["sp_lo"][10] == "0:00:20"
    assert ref[0]["sp_outer"][10] == "0:00:20"
    assert ref[0]["sp_bad_empty"] == ["RuntimeError", "Split ranks cannot be empty. Please provide a non-empty list "
                                      "of ranks to split the group."]
    assert ref[0]["sp_bad_dup"][0] == "RuntimeError" and ref[0]["sp_bad_too_long"][0] == "RuntimeError"
    assert ref[0]["sp_bad_not_int"][0] == "TypeError"
    assert ref[0]["sp_bad_device_type"] == ["RuntimeError", "Requested device type for splitGroup is not present in "
                                            "the parent process group: meta"]
    assert ref[1]["sp_not_member"] == "None"
    # the options given are rewritten (name, timeout, global ranks); without options the parent's
    # are, even by a rank outside the list
    assert ref[1]["sp_named_opts"] == ["sp_all", "0:00:07", [0, 1, 2, 3]]
    assert ref[0]["sp_parent_options_before"] == ["0", "0:00:20", 1]
    assert ref[0]["sp_parent_options"] == [True, "sp_other", "0:00:05"]


@pytest.mark.parametrize("spec", ["nnnn", "nnuu", "uunn"])
@UPSTREAM_SPLIT_WORLDS
def test_split_group_matches_upstream(spec, split_reference, tmp_path):
    """split_group in 4 of our ranks and in the mixed worlds: every group's name, desc, rank, size,
    device types, backend, timeout and the bytes of an all_reduce and a broadcast in it equal the
    all-upstream world's"""
    results = _world_attempts(spec, "split", str(tmp_path), 1 if spec == "nnnn" else 4)
    _compare(spec, results, split_reference)


def test_split_group_shared_options_own_ranks(tmp_path):
    """a split without options shares the parent backend's options and device (upstream's, measured
    in docs/distributed.md; with a rendezvous upstream's gloo often leaves a rank stuck there, so
    this runs in a world of our ranks only): the all_reduce in it gives the exact sum"""
    results, status = _world("nnnn", "split", str(tmp_path), env=dict(SPLIT_ENV, TN_SPLIT_SHARED="1"), timeout=90)
    _check_ok("nnnn", results, status)
    for r, res in enumerate(results):
        assert res["sp_shared"] == [True, True, "sp_shared", "0:00:05", [0, 1, 2, 3], r,
                                    [60.0, 64.0, 68.0, 72.0]], (r, res["sp_shared"])


@pytest.fixture(scope="module")
def merge_reference(tmp_path_factory):
    return _world_attempts("uuuu", "merge", str(tmp_path_factory.mktemp("merge-uuuu")), 4)


@pytest.mark.parametrize("spec", ["nnnn", "nnuu", "uunn"])
@UPSTREAM_SPLIT_WORLDS
def test_merge_remote_group_matches_upstream(spec, merge_reference, tmp_path):
    """merge_remote_group: the ranks are the order of arrival on the store's `mergeGroupRank`
    counter (any permutation, on either side), name `<parent>:merge` (or the one given), the timeout
    given (default 30 min), an all_reduce over all four"""
    results = _world_attempts(spec, "merge", str(tmp_path), 1 if spec == "nnnn" else 4)
    ref = [dict(r) for r in merge_reference]
    for res in (ref, results):
        assert sorted(r.pop("mg_rank") for r in res) == [0, 1, 2, 3]
    assert ref[0]["mg"] == ["ProcessGroup", "0:merge", "default_pg:merge", 4, "None", ["cpu", "cuda"], "0:00:30",
                            "0:merge", [10.0] * 5]
    assert ref[0]["mg_named"] == ["merged", "merged desc", 4, [10.0] * 3] and ref[0]["mg_rank_key"] == "4"
    _compare(spec, results, ref)
