"""torch.nn.parallel.DistributedDataParallel on torchnative against upstream torch 2.13.0.

2-rank gloo worlds on 127.0.0.1 run tests/dist_ddp_worker.py (this pytest process never imports
torch): all upstream ("uu", the reference), all ours ("nn") and mixed ("nu": rank 0 ours, rank 1
upstream; "un" the other way). Each case trains a small MLP or ConvNet (float64) for 3 SGD steps
under DDP: find_unused_parameters on/off (a parameter unused everywhere, and parameters used on
one rank only), tiny bucket_cap_mb (many buckets, rebuilt after the first step), comm hooks
(Python allreduce / fp16_compress, built-in ALLREDUCE / FP16_COMPRESS), no_sync accumulation,
gradient_as_bucket_view, static_graph, batched_grad_copy, skip_all_reduce_unused_params, an
nn.Embedding(sparse=True) (sparse-gradient buckets), Join with uneven batch counts. Checks:

* step 1 is byte-identical to the all-upstream world on every rank (parameters and .grad): the
  inputs are dyadic float64 values, so each rank's local backward is exact (the same bytes on
  either torch whatever its GEMM's summation order) and the bytes are decided by DDP;
* every step, every rank: .grad after backward equals the reduction of the two ranks' local
  gradients (recorded by a post-accumulate-grad hook, which runs before DDP's hook) by upstream's
  arithmetic — (g0*(1/2)) + (g1*(1/2)) as IEEE float64, or the fp16 path
  f16(f16(f16(g0)/2) + f16(g1)/2) — checked on the upstream world too, so the formula is
  upstream's, not ours; parameters of a globally unused param keep .grad None; the ranks end
  with identical parameters;
* DDP's logging data (bucket sizes, rebuilt buckets and their param indices, gradient ready
  order, iteration, buckets reduced) equals upstream's;
* bad input: params whose shapes or count differ across ranks, a parameter without gradient
  under find_unused_parameters=False, mixed precision on CPU, an unused sparse-gradient param:
  upstream's exception type and message;
* dist.all_reduce of complex sparse tensors (the sparse all_reduce DDP's sparse buckets use).
Sparse gradients past step 1 and Join steps after a rank joined: see _check_world. Also
Reducer._set_sparse_metadata (meta_sparse), the logger's CPU timings and their sampling
(timing_sample, "timing" in each case's log), parameter names in DDP's errors (debug_names, also
under TORCH_DISTRIBUTED_DEBUG=INFO).

By hand:  .venv/bin/python -m pytest -q tests/test_ddp.py
"""
import base64
import os
import subprocess

import numpy as np
import pytest

from harness.worlds import REF_PY, SUBJECT_PY, run_world

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "dist_ddp_worker.py")
TIMEOUT = 240

CASES = ["mlp", "conv", "mlp_unused_extra", "branch", "mlp_smallbucket", "conv_smallbucket_unused",
         "mlp_hook_allreduce", "conv_hook_fp16", "mlp_builtin_allreduce", "mlp_builtin_fp16", "mlp_nosync",
         "conv_nosync_unused", "mlp_asview", "mlp_smallbucket_asview_nosync", "mlp_static", "emb_sparse",
         "emb_sparse_hook_allreduce", "mlp_join", "branch_join", "emb_sparse_join", "mlp_unused_extra_smallbucket_skip", "mlp_batched",
         "mlp_smallbucket_asview_batched"]
FP16 = ("hook_fp16", "builtin_fp16")
# not training runs, compared whole with upstream's (test_extra_matches_upstream); last in each world
EXTRA = ["caught_sparse_unused", "coll_complex_sparse", "meta_sparse", "timing_sample", "debug_names"]


TIMING = ["avg_forward_compute_time", "avg_backward_compute_time", "avg_backward_comm_time",
          "avg_backward_compute_comm_overlap_time", "forward_compute_time", "backward_compute_time", "backward_comm_time",
          "backward_compute_comm_overlap_time", "forward_compute_time_start", "backward_compute_time_start",
          "backward_comm_time_start", "backward_compute_time_end", "backward_comm_time_end"]


def _world(spec, cases, out, timeout=TIMEOUT, env=None):
    """spec[i]: 'n' (ours) or 'u' (upstream) for rank i (tests/harness/worlds.py); fails when a rank
    wrote nothing"""
    results, status = run_world(spec, [WORKER, ",".join(cases), out], out, env, timeout)
    for r, res in enumerate(results):
        if res is None:
            pytest.fail(f"world {spec}: rank {r} produced nothing:\n{status[r][1]}")
    return results


_cache = {}


def world(spec, tmp_path_factory):
    if spec not in _cache:
        _cache[spec] = _world(spec, CASES + EXTRA, str(tmp_path_factory.mktemp(spec)))
    return _cache[spec]


def _arr(b64):
    return None if b64 is None else np.frombuffer(base64.b64decode(b64), dtype="<f8")


def _expected_grad(case, l0, l1):
    """upstream's reduction of the two ranks' local gradients (None: no gradient on that rank)"""
    if l0 is None and l1 is None:
        return None
    z = np.zeros_like(l0 if l0 is not None else l1)
    g0 = l0 if l0 is not None else z
    g1 = l1 if l1 is not None else z
    if any(h in case for h in FP16):
        two = np.float16(2)
        c0 = g0.astype(np.float16) / two
        c1 = g1.astype(np.float16) / two
        return (c0 + c1).astype(np.float64)
    return g0 * 0.5 + g1 * 0.5


def _check_world(spec, res, ref):
    bad = []
    for case in CASES:
        for r in (0, 1):
            mine, theirs = res[r].get(case), ref[r].get(case)
            if theirs is None or "error" in theirs:
                bad.append(f"{case}: upstream rank {r} failed: {theirs}")
                continue
            if mine is None or "error" in mine:
                bad.append(f"{case}: rank {r} ({spec[r]}) failed: {mine}")
                continue
            s0, u0 = mine["steps"][0], theirs["steps"][0]
            if s0["params"] != u0["params"] or s0["grads"] != u0["grads"]:
                bad.append(f"{case}: rank {r} ({spec[r]}): step 1 differs from the all-upstream world")
            if mine["log"] != theirs["log"]:
                bad.append(f"{case}: rank {r}: logging data {mine['log']} != upstream {theirs['log']}")
        if any(bad and b.startswith(case + ":") and "failed" in b for b in bad):
            continue
        a, b = res[0][case]["steps"], res[1][case]["steps"]
        if res[0][case]["final"] != res[1][case]["final"]:
            bad.append(f"{case}: the ranks end with different parameters")
        for step in range(3):
            # join: a rank that has joined has no step (params None) and contributes zeros
            if a[step]["params"] != b[step]["params"] and None not in (a[step]["params"], b[step]["params"]):
                bad.append(f"{case}: step {step + 1}: the ranks' parameters differ")
            nparams = len(a[0]["grads"])
            joined = a[step]["local"] is None or b[step]["local"] is None
            for i, (l0, l1) in enumerate(zip(a[step]["local"] or [None] * nparams, b[step]["local"] or [None] * nparams)):
                want = _expected_grad(case, _arr(l0), _arr(l1))
                if i == 0 and step > 0 and case.startswith("emb"):
                    # the sparse embedding past step 1 (values no longer exact): the all_reduce adds the
                    # rows in its coalesce order, not the formula's, so: the same bytes on both ranks
                    # (each rank sums the gathered rows itself: a mixed world shows a different order)
                    # and the formula's value to 1e-12 (join: a joined rank has no .grad, it sent zeros)
                    gs = [_arr(x[step]["grads"][i]) for x in (a, b) if x[step]["grads"] is not None]
                    if any(g.tobytes() != gs[0].tobytes() or not np.allclose(g, want, rtol=0, atol=1e-12) for g in gs):
                        bad.append(f"{case}: step {step + 1} param 0: the sparse .grad differs across ranks or from "
                                   f"the reduction of the local gradients")
                    continue
                last = [x[step - 1]["local"][i] for x in (a, b) if x[step]["local"] is None]
                if want is None and joined and last and last[0] is not None:
                    # upstream: the joined rank all-reduces its last local_used_map, so a param it used
                    # then counts as used and gets zeros (measured on the all-upstream world)
                    want = np.zeros_like(_arr(last[0]))
                for r, rank_steps in ((0, a), (1, b)):
                    if rank_steps[step]["grads"] is None:
                        continue
                    got = _arr(rank_steps[step]["grads"][i])
                    if (want is None) != (got is None) or (want is not None and want.tobytes() != got.tobytes()):
                        bad.append(f"{case}: step {step + 1} rank {r} param {i}: .grad is not upstream's reduction of "
                                   f"the local gradients")
    assert not bad, f"world {spec}:\n" + "\n".join(bad[:40])


def test_reference_world_follows_the_formula(tmp_path_factory):
    """the all-upstream world: the reduction formula and the checks hold for upstream's DDP"""
    ref = world("uu", tmp_path_factory)
    _check_world("uu", ref, ref)
    # the cases exercise what they claim: several buckets, rebuilt buckets, an unused parameter
    assert "," in ref[0]["mlp_smallbucket"]["log"]["rebuilt_bucket_sizes"]
    assert "," in ref[0]["conv_smallbucket_unused"]["log"]["bucket_sizes"]
    assert ref[0]["mlp"]["log"]["has_rebuilt_buckets"] == 1
    assert ref[0]["mlp_unused_extra"]["log"]["unused_parameter_size"] > 0
    assert ref[0]["branch"]["steps"][0]["grads"][-1] is None   # c: unused on every rank
    assert ref[1]["emb_sparse_join"]["steps"][2]["grads"] is None   # rank 1 joined: rank 0 reduced with its zeros
    # the logger's CPU timings (sampled at the 3rd forward: iteration 2's), every one > 0 here
    assert all(ref[r][c]["log"]["timing"] == {k: ["int", True] for k in TIMING} for r in (0, 1) for c in ("mlp", "conv"))


@pytest.mark.parametrize("spec", ["nn", "nu", "un"])
def test_world_matches_upstream(spec, tmp_path_factory):
    """all ours, and mixed worlds (ours rank 0 / upstream rank 1 and the reverse)"""
    ref = world("uu", tmp_path_factory)
    res = world(spec, tmp_path_factory)
    _check_world(spec, res, ref)


BAD = ["bad_shapes", "bad_count", "bad_unused", "bad_mixed_precision"]


@pytest.mark.parametrize("case", BAD)
@pytest.mark.parametrize("spec", ["nn", "nu"])
def test_bad_input(case, spec, tmp_path, tmp_path_factory):
    """upstream's exception type and message on each rank that raises in the upstream world
    (one bad case per world: a raising rank ends its world; the upstream world of each case is
    run once and shared by both specs)"""
    key = "uu-" + case
    if key not in _cache:
        _cache[key] = _world("uu", [case], str(tmp_path_factory.mktemp(key)))
    ref = _cache[key]
    res = _world(spec, [case], str(tmp_path / spec))
    checked = 0
    for r in (0, 1):
        want = ref[r].get(case)
        if not want or "error" not in want:
            continue
        if case == "bad_shapes" and r == 0:
            continue   # rank 0 passed the check and fails later on its peer's exit (the message names sockets)
        got = res[r].get(case)
        assert got and "error" in got, f"{case} rank {r} ({spec[r]}): no error, upstream raised {want}"
        assert got["error"] == want["error"], f"{case} rank {r}: {got} != upstream {want}"
        assert got["msg"] == want["msg"], f"{case} rank {r}:\n{got['msg']}\n!= upstream\n{want['msg']}"
        checked += 1
    assert checked >= 1, f"{case}: upstream raised nowhere: {ref}"


@pytest.mark.parametrize("spec", ["nn", "nu", "un"])
def test_extra_matches_upstream(spec, tmp_path_factory):
    """caught_sparse_unused: an nn.Embedding(sparse=True) unused under find_unused_parameters raises
    upstream's RuntimeError "Expected sparse gradient to be defined." on every rank.
    coll_complex_sparse: dist.all_reduce of complex sparse COO tensors reduces
    view_as_real(tensor), a new sparse tensor, so the input keeps its own values (upstream's
    behaviour, measured; the Work's result holds the sum); the backend's allreduce refuses complex
    values ("Invalid scalar type") on every rank; a dense all_reduce after both agrees"""
    ref = world("uu", tmp_path_factory)
    res = world(spec, tmp_path_factory)
    assert ref[0]["caught_sparse_unused"] == {"error": "RuntimeError", "msg": "Expected sparse gradient to be defined."}
    assert ref[0]["coll_complex_sparse"]["backend"] == ["RuntimeError", "Invalid scalar type"]
    assert ref[0]["coll_complex_sparse"]["dense_after"] == [3.0, 3.0]
    meta = ref[0]["meta_sparse"]
    assert [m[0] for m in meta["hook"]] == ["ok", "ok"] and meta["hook"][0][1][1] is False   # uncoalesced, rows = ids
    assert meta["wrongname"][0][:2] == ["RuntimeError", "param: emb.weight not found in sparse metadata"]
    assert meta["short"][0][:2] == ["RuntimeError", "Sparse metadata and gradient size mismatch"]
    assert meta["full"][0][1] == meta["shift"][0][1] == "expected values to be a dense tensor, but got values of layout Sparse"
    steps = ref[0]["timing_sample"]["steps"]
    assert [s[0] for s in steps] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 12, 12]
    assert [s[2] for s in steps] == [False] + [True] * 10 + [False, True, False]
    dbg = ref[0]["debug_names"]
    assert "with name 0.bias" in dbg["twice"][1] and "TORCH_DISTRIBUTED_DEBUG to either INFO" in dbg["unused_False"][1]
    for case in EXTRA:
        for r in (0, 1):
            assert res[r].get(case) == ref[r][case], f"{case}: rank {r} ({spec[r]})"


@pytest.mark.parametrize("spec", ["nn", "nu"])
def test_debug_names_match_upstream(spec, tmp_path, tmp_path_factory):
    """TORCH_DISTRIBUTED_DEBUG=INFO: the names of the params that received no gradient in the
    "Expected to have finished reduction" error (upstream's order: the reverse of the name mapping's,
    how its unordered_map iterates). Not DETAIL: upstream 2.13.0's DDP constructor crashes under
    DETAIL in a gloo world (docs/distributed.md, "DETAIL worlds"), so there is nothing to compare."""
    key = "uu-debug"
    if key not in _cache:
        _cache[key] = _world("uu", ["debug_names"], str(tmp_path_factory.mktemp(key)), env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})
    ref = _cache[key]
    res = _world(spec, ["debug_names"], str(tmp_path / spec), env={"TORCH_DISTRIBUTED_DEBUG": "INFO"})
    want = ref[0]["debug_names"]
    assert want["level"] == "DebugLevel.INFO" and "with name 0.bias" in want["twice"][1]
    assert "Parameters which did not receive grad for rank 0: u3.weight, u2.bias, u2.weight, u1.bias" in want["unused_False"][1]
    assert "Parameters which did not receive grad" in want["unused_True"][1]
    for r in (0, 1):
        assert res[r]["debug_names"] == ref[r]["debug_names"], f"rank {r} ({spec[r]})"


CASES3 = ["mlp", "mlp_batched", "mlp_hook_allreduce", "conv_hook_fp16", "mlp_builtin_fp16", "conv_smallbucket_unused", "branch"]


def test_three_ranks_mixed(tmp_path):
    """3 ranks (ours, upstream, ours): with a world of 3 the division rounds, so the bytes show
    that the gradient is multiplied by the double 1/3 before the all-reduce (upstream's mul_out;
    dividing by 3 instead gives other bytes, measured) and that the 3-rank ring sums in gloo's
    order; step 1 byte-identical to the all-upstream world, logging data equal, ranks agree"""
    ref = _world("uuu", CASES3, str(tmp_path / "uuu"))
    res = _world("nun", CASES3, str(tmp_path / "nun"))
    bad = []
    for case in CASES3:
        for r in range(3):
            want, got = ref[r][case], res[r][case]
            assert "error" not in want, f"{case}: upstream rank {r} failed: {want}"
            if "error" in got:
                bad.append(f"{case}: rank {r} failed: {got}")
                continue
            if got["steps"][0]["params"] != want["steps"][0]["params"] or got["steps"][0]["grads"] != want["steps"][0]["grads"]:
                bad.append(f"{case}: rank {r}: step 1 differs from the all-upstream world")
            if got["log"] != want["log"]:
                bad.append(f"{case}: rank {r}: logging data {got['log']} != upstream {want['log']}")
            for step in range(3):
                if got["steps"][step]["params"] != res[0][case]["steps"][step]["params"]:
                    bad.append(f"{case}: step {step + 1}: rank {r}'s parameters differ from rank 0's")
    assert not bad, "\n".join(bad)


def _run_both(code):
    outs = []
    for py in (REF_PY, SUBJECT_PY):
        p = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert p.returncode == 0, f"{py}:\n{p.stdout}\n{p.stderr[-3000:]}"
        outs.append(p.stdout)
    return outs


def test_bucket_assignment_matches_upstream():
    """_compute_bucket_assignment_by_size: limits advancing per dtype, sparse params alone, the
    leftover order of mixed dtypes, tensor_indices (no sorting), empty and bad input"""
    code = r"""
import torch
C = torch._C._distributed_c10d
f32 = lambda n: torch.zeros(n)
f64 = lambda n: torch.zeros(n, dtype=torch.float64)
ts = [f32(3), f32(1000), f64(5), f32(2), f64(300), torch.zeros(7, dtype=torch.float16), f32(40), f32(1)]
def show(f):
    try: print(repr(f()))
    except Exception as e: print(type(e).__name__)
show(lambda: C._compute_bucket_assignment_by_size(ts, [100, 4000]))
show(lambda: C._compute_bucket_assignment_by_size(ts, [1]))
show(lambda: C._compute_bucket_assignment_by_size(ts, [10**9]))
show(lambda: C._compute_bucket_assignment_by_size(ts, [16, 64, 4096], [False, True] + [False] * 6))
show(lambda: C._compute_bucket_assignment_by_size(ts[:4], [100, 4000], [False] * 4, [3, 2, 1, 0]))
show(lambda: C._compute_bucket_assignment_by_size(ts, [200], [], [7, 6, 5, 4, 3, 2, 1, 0]))
show(lambda: C._compute_bucket_assignment_by_size([], [5]))
show(lambda: C._compute_bucket_assignment_by_size([torch.zeros(0), f32(3)], [4]))
show(lambda: C._compute_bucket_assignment_by_size([1, 2], [4]))
"""
    ref, ours = _run_both(code)
    assert ours == ref


def test_future_matches_upstream():
    """torch.futures.Future over torch._C.Future: results, then-chains, callback errors,
    set_exception, double completion, collect_all / wait_all"""
    code = r"""
import torch
F = torch.futures.Future
def show(f):
    try: print(repr(f()))
    except Exception as e: print(type(e).__name__, str(e).split(chr(10))[0])
f = F(); print(f.done())
f.set_result(3); show(lambda: f.set_result(4)); print(f.done(), f.wait(), f.value())
g = f.then(lambda x: x.value() + 1).then(lambda x: x.wait() * 10); print(g.done(), g.wait())
h = f.then(lambda x: 1 / 0); print(h.done()); show(h.wait); show(h.value)
e = F(); e.set_exception(ValueError("foo")); show(e.wait); show(e.value); print(e.done())
print(e.then(lambda x: 5).wait())
seen = []
p = F(); p.add_done_callback(lambda x: seen.append(x.value())); p.then(lambda x: seen.append(-x.value())); p.set_result(7); print(seen)
q = F(); r = F(); c = torch.futures.collect_all([q, r]); print(c.done()); q.set_result(1); print(c.done()); r.set_result(2)
print(c.done(), [x.wait() for x in c.wait()]); print(torch.futures.wait_all([q, r]))
print(isinstance(f, torch._C.Future), torch._C.Future.__name__, torch._C.Future.__module__)
show(lambda: e.set_exception(3))
"""
    ref, ours = _run_both(code)
    assert ours == ref
