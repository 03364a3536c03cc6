"""TORCH_DISTRIBUTED_DEBUG=DETAIL gloo worlds: upstream's _ProcessGroupWrapper on torchnative.

Under DETAIL, distributed_c10d wraps every gloo backend in `_ProcessGroupWrapper(backend, helper)`:
before each collective a monitored barrier and two all-gathers of the collective's fingerprint run
on the helper gloo group, and a rank calling another collective (op type, shapes, dtypes) makes
every rank raise upstream's "Detected mismatch between collectives on ranks" RuntimeError. Worlds
of processes on 127.0.0.1 run tests/pg_wrapper_worker.py; the all-upstream world (`.venv-ref`) is
the reference, and a world of our ranks and mixed worlds must give the same result bytes, the same
error messages and the same sequence numbers on every rank. Mixed worlds only agree when our
helper traffic is upstream's (the fingerprint serialization included): a difference in any
fingerprint would make every collective raise.

By hand:  .venv/bin/python -m pytest -q tests/test_pg_wrapper.py
"""
import os
import re

import pytest

from harness.worlds import run_world

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "pg_wrapper_worker.py")
TIMEOUT = 150


def _world(spec, suite, out, env=None):
    """spec[i]: 'n' (ours) or 'u' (upstream) for rank i, under DETAIL (tests/harness/worlds.py).
    Returns the per-rank results; fails when a rank wrote nothing."""
    results, status = run_world(spec, ["-W", "ignore", WORKER, out, suite], out,
                                {"TORCH_DISTRIBUTED_DEBUG": "DETAIL", "TN_TEST_PG_TIMEOUT": "60", **(env or {})}, TIMEOUT)
    for r, res in enumerate(results):
        assert res is not None, f"world {spec} ({suite}): rank {r} ({spec[r]}) wrote nothing:\n{status[r][1]}"
    return results


def _norm(v):
    """Object addresses and peer ports differ run to run; gloo's own errors carry its source
    location ("[/__w/.../pair.cc:553] ") in upstream's build, which ours does not print."""
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, str):
        v = re.sub(r"0x[0-9a-f]+", "0x", v)
        v = re.sub(r"\]:\d+", "]:PORT", v)
        return re.sub(r"\[/[^\]]*\.(cc|cpp):\d+\] ", "", v)
    return v


_cache = {}


def _reference(suite, spec, factory):
    if suite not in _cache:
        _cache[suite] = _world(spec, suite, str(factory.mktemp("ref-" + suite)))
    return _cache[suite]


def test_reference_pins(tmp_path_factory):
    """What the all-upstream world shows (so the comparisons below compare something)."""
    ref = _reference("main", "uuu", tmp_path_factory)
    r0, r2 = ref[0], ref[2]
    assert r0["backend_type"] == "_ProcessGroupWrapper" and r0["wrapped_type"] == "ProcessGroupGloo"
    for k, v in r0.items():
        if k.startswith("match.") and not k.endswith(".seq"):
            assert not (isinstance(v, list) and v and v[0] == "RuntimeError"), (k, v)
    assert [r0[f"match.{k}.seq"] for k in ("all_reduce", "broadcast", "barrier", "all_gather_object")] == [1, 2, 10, 12]
    op = r0["mismatch.op"]
    assert op[0] == "RuntimeError"
    assert op[1].startswith("Detected mismatch between collectives on ranks. Rank 0 is running collective: "
                            "CollectiveFingerPrint(SequenceNumber=14, OpType=ALLREDUCE, TensorShape=[4], "
                            "TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cpu")
    assert op[1].endswith("Collectives differ in the following aspects:   Op type: ALLREDUCEvs BROADCAST")
    assert r2["mismatch.op"][1].startswith("Detected mismatch between collectives on ranks. Rank 2 is running "
                                           "collective: CollectiveFingerPrint(SequenceNumber=14, OpType=BROADCAST")
    assert r0["mismatch.shape"][1].endswith("  Tensor Tensor shapes: 4vs 5")
    assert r0["mismatch.shape_2d"][1].endswith("  Tensor Tensor shapes: 2 3vs 3 2")
    assert r0["mismatch.dtype"][1].endswith("  Tensor Tensor dtypes: Floatvs Double")
    assert r0["mismatch.dtype_int"][1].endswith("  Tensor Tensor dtypes: Longvs Int")
    # different fingerprint lengths (7 and 8 entries): the length round deserializes rank 2's
    # 1-element tensor [8] as a fingerprint of op type 8
    assert "but Rank 2 is running collective: CollectiveFingerPrint(SequenceNumber=0OpType=SCATTER)." \
        in r0["mismatch.ndim"][1]
    assert "\t Sequence number: 14vs 0  Op type: ALLREDUCEvs SCATTER  Tensor Tensor shapes: 6vs   Tensor Tensor dtypes: " \
        "Floatvs   Tensor Tensor devices: TensorOptions(" in r0["mismatch.ndim"][1]
    assert r0["mismatch.all_gather.seq"] == 14 and r0["after.all_reduce.seq"] == 15   # no mismatch ran
    # monitored_barrier: rank 0 moved by 4, the others by 2, so the next collective mismatches
    assert r0["after.all_reduce2"][1].endswith("\t Sequence number: 19vs 17")
    assert r0["group.mismatch"][1].startswith("Detected mismatch between collectives on ranks. Rank 0 is running "
                                              "collective: CollectiveFingerPrint(SequenceNumber=1, OpType=ALLREDUCE, "
                                              "TensorShape=[2]")


@pytest.mark.parametrize("spec", ["nnn", "nun", "unu"])
def test_world_matches_upstream(spec, tmp_path, tmp_path_factory):
    ref = _reference("main", "uuu", tmp_path_factory)
    res = _world(spec, "main", str(tmp_path / spec))
    for r in range(3):
        want, got = _norm(ref[r]), _norm(res[r])
        for k in sorted(want):
            assert got.get(k) == want[k], f"world {spec}, rank {r} ({spec[r]}), {k}"
        assert sorted(got) == sorted(want)


def test_late_reference_pins(tmp_path_factory):
    ref = _reference("late", "uu", tmp_path_factory)
    assert ref[0]["late"] == ["RuntimeError", "[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 3000 ms"]
    assert ref[1]["late"][1].startswith("ProcessGroupWrapper: Monitored Barrier encountered error running "
                                        "collective: CollectiveFingerPrint(SequenceNumber=5, OpType=ALLREDUCE")
    assert "Connection closed by peer" in ref[1]["late"][1]
    assert ref[0]["mismatch.length20"][1] == (
        'false INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroup.cpp":59, '
        "please report a bug to PyTorch. Unknown op type!")
    assert "OpType=REDUCE_SCATTER_TENSOR_COALESCED)" in ref[0]["mismatch.length19"][1]
    assert ref[0]["wrapper.get_error"] == ["RuntimeError", "Backend gloo does not support getError"]
    assert ref[0]["props"] == [0, 2, "gloo", "gloo", True, "_Options"]
    assert [ref[0][f"coalesced.{k}.seq"] for k in ("all_gather_into_tensor", "reduce_scatter_tensor",
                                                   "all_gather_coalesced")] == [1, 3, 4]


@pytest.mark.parametrize("spec", ["nn", "nu", "un"])
def test_late_world_matches_upstream(spec, tmp_path, tmp_path_factory):
    """Coalesced forms, fingerprints of 17..20 entries, the wrapper's properties and errors, and a
    rank arriving after the helper's timeout (rank 0 names it; rank 1 finds the helper closed)."""
    ref = _reference("late", "uu", tmp_path_factory)
    res = _world(spec, "late", str(tmp_path / spec))
    for r in range(2):
        assert _norm(res[r]) == _norm(ref[r]), f"world {spec}, rank {r} ({spec[r]})"


@pytest.mark.parametrize("last", ["0", "1"])
def test_ddp_set_last_bucket_cap(last, tmp_path):
    """DDP_SET_LAST_BUCKET_CAP=1 (exactly "1"): the rebuilt buckets are assigned over the params
    in reverse and then reversed, so the small first cap lands on the last bucket. Without DETAIL
    (upstream's DDP crashes under DETAIL, docs/distributed.md); the layout in nn and nu equals uu's."""
    env = {"TORCH_DISTRIBUTED_DEBUG": "OFF", "DDP_SET_LAST_BUCKET_CAP": last}
    ref = _world("uu", "bcap", str(tmp_path / "uu"), env)
    want = {"0": ["34060, 33280, 33280", "13 12 11 10 9 8, 7 6 5 4, 3 2 1 0"],
            "1": ["1036, 33280, 33280, 33024", "11 12 13, 7 8 9 10, 3 4 5 6, 0 1 2"]}[last]
    assert ref[0]["step2"][2:] == want and ref[0]["step0"][2:] == [None, None]
    for spec in ("nn", "nu"):
        res = _world(spec, "bcap", str(tmp_path / spec), env)
        for r in range(2):
            assert res[r] == ref[r], f"world {spec}, rank {r} ({spec[r]})"
