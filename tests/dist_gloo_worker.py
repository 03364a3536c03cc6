"""One rank of a gloo world for tests/test_distributed_gloo.py (runs on our torch or upstream's).

    python dist_gloo_worker.py SUITE OUT_DIR      (env: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)

Writes OUT_DIR/rank<r>.json: {case name: sha256 of the result bytes (or a repr)}. Inputs are built
by numpy's PCG64 into raw bytes (torch.frombuffer), so every world sees identical inputs
whichever torch runs a rank; results are compared byte for byte across worlds."""
import datetime
import hashlib
import json
import re
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist

SUITE, OUT = sys.argv[1], sys.argv[2]
RANK = int(os.environ.get("RANK", "0"))
SIZES = (1, 1023, 2**20 + 3)


def data(dtype, n, seed):
    # numpy's PCG64 (same numpy in both environments), so inputs are identical bytes
    rng = np.random.default_rng([seed, RANK, n])
    if dtype in (torch.float32, torch.float64):
        v = rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-3, 3, n)
        b = v.astype("<f4" if dtype == torch.float32 else "<f8").tobytes()
    elif dtype == torch.int64:
        b = rng.integers(-(2**40), 2**40, n, dtype=np.int64).astype("<i8").tobytes()
    elif dtype == torch.bfloat16:
        # finite bf16 bit patterns: sign, exponent 100..150, any mantissa
        bits = (rng.integers(0, 2, n) << 15) | (rng.integers(100, 151, n) << 7) | rng.integers(0, 128, n)
        b = bits.astype("<u2").tobytes()
    else:
        raise ValueError(dtype)
    return torch.frombuffer(bytearray(b), dtype=dtype).clone()


def record_errors(res, prefix, calls, cut):
    """res[prefix + name]: the exception type and first line (up to `cut`) each call raises, or "no error" """
    for k, f in calls.items():
        try:
            f()
            res[prefix + k] = "no error"
        except Exception as e:  # noqa: BLE001 - type and message are the evidence
            res[prefix + k] = [type(e).__name__, str(e).splitlines()[0].split(cut)[0][:400]]


def digest(t):
    if isinstance(t, (list, tuple)):
        return [digest(x) for x in t]
    return hashlib.sha256(t.contiguous().view(torch.uint8).numpy().tobytes()).hexdigest()[:32]


res = {}
DT = {"f32": torch.float32, "f64": torch.float64, "i64": torch.int64, "bf16": torch.bfloat16}


def collectives():
    W = dist.get_world_size()
    seed = 1
    # all_reduce SUM: every dtype and size
    for dn, dt in DT.items():
        for n in SIZES:
            t = data(dt, n, seed)
            dist.all_reduce(t)
            res[f"all_reduce_sum_{dn}_{n}"] = digest(t)
    # the other reductions
    for dn in ("f32", "bf16", "f64"):
        for op in ("PRODUCT", "MIN", "MAX", "AVG"):
            if op == "AVG" and dn != "f32":
                continue
            t = data(DT[dn], 1023, 2)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            res[f"all_reduce_{op}_{dn}"] = digest(t)
    for op in ("BAND", "BOR", "BXOR", "MIN", "MAX", "PRODUCT"):
        t = data(torch.int64, 1023, 3)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        res[f"all_reduce_{op}_i64"] = digest(t)
    # async all_reduce + wait
    t = data(torch.float32, 5000, 4)
    w = dist.all_reduce(t, async_op=True)
    w.wait()
    res["all_reduce_async"] = digest(t)
    # broadcast
    for dn, n, root in (("f32", 1023, 2 % W), ("f64", 2**20 + 3, 1 % W), ("bf16", 1, 0), ("i64", 1023, W - 1)):
        t = data(DT[dn], n, 5)
        dist.broadcast(t, root)
        res[f"broadcast_{dn}_{n}_{root}"] = digest(t)
    dist.barrier()
    # all_gather (+ into_tensor)
    for dn in ("f32", "bf16", "i64"):
        x = data(DT[dn], 1023, 6)
        out = [torch.empty_like(x) for _ in range(W)]
        dist.all_gather(out, x)
        res[f"all_gather_{dn}"] = digest(out)
    x = data(torch.float32, 2**16 + 1, 7)
    out = torch.empty(W * x.numel(), dtype=x.dtype)
    dist.all_gather_into_tensor(out, x)
    res["all_gather_into_tensor"] = digest(out)
    # reduce
    for n in (1023, 2**20 + 3):
        t = data(torch.float32, n, 8)
        dist.reduce(t, dst=1 % W)
        res[f"reduce_f32_{n}"] = digest(t) if RANK == 1 % W else "-"
    # gather / scatter
    x = data(torch.float64, 1023, 9)
    g = [torch.empty_like(x) for _ in range(W)] if RANK == W - 1 else None
    dist.gather(x, g, dst=W - 1)
    res["gather"] = digest(g) if g else "-"
    y = torch.empty(1023, dtype=torch.float32)
    sl = [data(torch.float32, 1023, 10 + i) for i in range(W)] if RANK == 1 % W else None
    dist.scatter(y, sl, src=1 % W)
    res["scatter"] = digest(y)
    # reduce_scatter
    ins = [data(torch.float32, 1023, 11 + i) for i in range(W)]
    o = torch.empty(1023)
    dist.reduce_scatter(o, ins)
    res["reduce_scatter"] = digest(o)
    x = data(torch.float32, 1024 * W, 12)
    o = torch.empty(1024)
    dist.reduce_scatter_tensor(o, x)
    res["reduce_scatter_tensor"] = digest(o)
    # all_to_all
    x = data(torch.float32, 8 * W, 13)
    o = torch.empty_like(x)
    dist.all_to_all_single(o, x)
    res["all_to_all_single"] = digest(o)
    ins_sp = [(RANK + i) % 3 + 1 for i in range(W)]
    outs_sp = [(i + RANK) % 3 + 1 for i in range(W)]
    x = data(torch.float32, sum(ins_sp), 14)
    o = torch.empty(sum(outs_sp))
    dist.all_to_all_single(o, x, outs_sp, ins_sp)
    res["all_to_all_single_splits"] = digest(o)
    ins = [data(torch.int64, 3, 15 + i) for i in range(W)]
    outs = [torch.empty(3, dtype=torch.int64) for _ in range(W)]
    dist.all_to_all(outs, ins)
    res["all_to_all"] = digest(outs)
    # point to point
    nxt, prv = (RANK + 1) % W, (RANK - 1) % W
    x = data(torch.float32, 1023, 16)
    r = torch.empty(1023)
    if RANK % 2 == 0:
        dist.send(x, nxt)
        dist.recv(r, prv)
    else:
        dist.recv(r, prv)
        dist.send(x, nxt)
    res["send_recv"] = digest(r)
    r2 = torch.empty(1023)
    ws = [dist.isend(x, nxt, tag=3), dist.irecv(r2, prv, tag=3)]
    for w in ws:
        w.wait()
    res["isend_irecv"] = digest(r2)
    r3 = torch.empty(1023)
    ops = [dist.P2POp(dist.isend, x, nxt), dist.P2POp(dist.irecv, r3, prv)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    res["batch_isend_irecv"] = digest(r3)
    if RANK == 0:
        r4 = torch.empty(7)
        src = dist.recv(r4)
        res["recv_any"] = [digest(r4), src]
    elif RANK == W - 1:
        dist.send(data(torch.float32, 7, 17), 0)
    # objects (upstream's Python over the collectives above)
    objs = [None] * W
    dist.all_gather_object(objs, {"rank": RANK, "v": [RANK] * 3})
    res["all_gather_object"] = repr(objs)
    lst = [f"x{RANK}", 5, {"a": RANK}] if RANK == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    res["broadcast_object_list"] = repr(lst)
    # a subgroup
    sub = dist.new_group([0, W - 1])
    if RANK in (0, W - 1):
        t = data(torch.float32, 1023, 18)
        dist.all_reduce(t, group=sub)
        res["subgroup_all_reduce"] = digest(t)
    dist.barrier()
    # upstream's monitored_barrier is point to point on two tags (int32 rank tensors): a mixed world
    # only passes it when both sides speak that protocol
    res["monitored_barrier"] = repr(dist.monitored_barrier(timeout=datetime.timedelta(seconds=30)))
    async_collectives(W)
    coalesced(W)
    lists(W)
    sparse(W)
    groups(W)
    res["rank_size"] = [dist.get_rank(), dist.get_world_size()]


def shape(v):
    """the structure of a Future's value / a Work's result: lists of tensor shapes"""
    if isinstance(v, (list, tuple)):
        return [shape(x) for x in v]
    return list(v.shape) if isinstance(v, torch.Tensor) else repr(v)


def async_collectives(W):
    """every collective with async_op=True, all issued before any is waited for, then waited in
    reverse order: result bytes, get_future()'s value and result() (or the exception upstream
    raises for them) per collective"""
    ws = {}
    t_ar = data(torch.float32, 2**20 + 3, 30)
    ws["all_reduce"] = (dist.all_reduce(t_ar, op=dist.ReduceOp.AVG, async_op=True), t_ar)
    t_bc = data(torch.float64, 1023, 31)
    ws["broadcast"] = (dist.broadcast(t_bc, 1 % W, async_op=True), t_bc)
    t_rd = data(torch.bfloat16, 1023, 32)
    ws["reduce"] = (dist.reduce(t_rd, dst=W - 1, op=dist.ReduceOp.MAX, async_op=True), t_rd if RANK == W - 1 else None)
    x = data(torch.int64, 1023, 33)
    ag = [torch.empty_like(x) for _ in range(W)]
    ws["all_gather"] = (dist.all_gather(ag, x, async_op=True), ag)
    x2 = data(torch.float32, 4097, 34)
    agt = torch.empty(W * 4097)
    ws["all_gather_into_tensor"] = (dist.all_gather_into_tensor(agt, x2, async_op=True), agt)
    x3 = data(torch.float64, 1023, 35)
    g = [torch.empty_like(x3) for _ in range(W)] if RANK == 0 else None
    ws["gather"] = (dist.gather(x3, g, dst=0, async_op=True), g)
    sc = torch.empty(1023)
    sl = [data(torch.float32, 1023, 36 + i) for i in range(W)] if RANK == W - 1 else None
    ws["scatter"] = (dist.scatter(sc, sl, src=W - 1, async_op=True), sc)
    rs = torch.empty(1023)
    ws["reduce_scatter"] = (dist.reduce_scatter(rs, [data(torch.float32, 1023, 40 + i) for i in range(W)],
                                                async_op=True), rs)
    rst = torch.empty(1024)
    ws["reduce_scatter_tensor"] = (dist.reduce_scatter_tensor(rst, data(torch.float32, 1024 * W, 45),
                                                              op=dist.ReduceOp.AVG, async_op=True), rst)
    ins_sp = [(RANK + i) % 3 + 1 for i in range(W)]
    outs_sp = [(i + RANK) % 3 + 1 for i in range(W)]
    a2s = torch.empty(sum(outs_sp))
    ws["all_to_all_single"] = (dist.all_to_all_single(a2s, data(torch.float32, sum(ins_sp), 46), outs_sp, ins_sp,
                                                      async_op=True), a2s)
    a2a = [torch.empty(3, dtype=torch.int64) for _ in range(W)]
    ws["all_to_all"] = (dist.all_to_all(a2a, [data(torch.int64, 3, 47 + i) for i in range(W)], async_op=True), a2a)
    ws["barrier"] = (dist.barrier(async_op=True), None)
    co = [data(torch.float32, 5, 52), data(torch.float32, 7, 53)]
    fut = dist.all_reduce_coalesced(co, async_op=True)   # upstream returns the Future here
    for name in reversed(list(ws)):
        w, out = ws[name]
        try:
            f = w.get_future()
        except RuntimeError as e:
            f = f"get_future: {e}"
        w.wait()
        res[f"async_{name}"] = digest(out) if out is not None else "-"
        res[f"async_{name}_done"] = w.is_success()
        # upstream's reduce_scatter works (LambdaWork) stay not completed after wait(); the others are
        res[f"async_{name}_completed"] = w.is_completed()
        res[f"async_{name}_future"] = shape(f.value()) if not isinstance(f, str) else f
        if not isinstance(f, str) and out is not None:
            res[f"async_{name}_future_bytes"] = digest(f.value())
        try:
            res[f"async_{name}_result"] = shape(w.result())
        except RuntimeError as e:
            res[f"async_{name}_result"] = str(e)
    res["async_all_reduce_coalesced"] = [digest(fut.wait()), digest(co)]


def coalesced(W):
    """the coalesced forms (dist._coalescing_manager and the ProcessGroup calls it makes): one
    allgather for all the all_gather_into_tensor calls (one tag), one all-reduce per
    reduce_scatter_tensor pair (a tag each), one for the all_reduces; a later all_reduce only
    agrees across a mixed world when both sides took the same tags. Per form: bytes, the works'
    is_completed() after wait, get_future()'s value / result() or upstream's error; then bad
    inputs, which raise upstream's error before any tag is taken"""
    def record(name, work, outs):
        work.wait()
        res[f"co_{name}"] = digest(outs)
        res[f"co_{name}_completed"] = work.is_completed()
        for what, f in (("future", lambda: shape(work.get_future().value())), ("result", lambda: shape(work.result()))):
            try:
                res[f"co_{name}_{what}"] = f()
            except RuntimeError as e:
                res[f"co_{name}_{what}"] = str(e)
    o1, o2 = torch.empty(7 * W), torch.empty(2 * W, 3, dtype=torch.float64)
    with dist._coalescing_manager(async_ops=True) as cm:
        dist.all_gather_into_tensor(o1, data(torch.float32, 7, 60))
        dist.all_gather_into_tensor(o2, data(torch.float64, 6, 61).view(2, 3))
    assert len(cm.works) == 1
    record("all_gather_into_tensor", cm.works[0], [o1, o2])
    r1, r2 = torch.empty(5), torch.empty(3, 2, dtype=torch.bfloat16)
    with dist._coalescing_manager(async_ops=True) as cm:
        dist.reduce_scatter_tensor(r1, data(torch.float32, 5 * W, 62))
        dist.reduce_scatter_tensor(r2, data(torch.bfloat16, 6 * W, 63).view(3 * W, 2), op=dist.ReduceOp.MAX)
    record("reduce_scatter_tensor", cm.works[0], [r1, r2])
    a1, a2 = data(torch.float32, 9, 64), data(torch.float32, 4, 65)
    with dist._coalescing_manager(async_ops=True) as cm:
        dist.all_reduce(a1)
        dist.all_reduce(a2)
    record("all_reduce", cm.works[0], [a1, a2])
    # synchronous: the manager waits
    s1 = torch.empty(3 * W)
    with dist._coalescing_manager():
        dist.all_gather_into_tensor(s1, data(torch.float32, 3, 66))
    res["co_sync"] = digest(s1)
    pg = dist.distributed_c10d._get_default_group()
    bad = {"rs_len": lambda: pg.reduce_scatter_tensor_coalesced([torch.empty(2)], [torch.ones(2 * W), torch.ones(2)]),
           "rs_shape": lambda: pg.reduce_scatter_tensor_coalesced([torch.empty(2), torch.empty(3)],
                                                                  [torch.ones(2 * W), torch.ones(3 * W + 1)]),
           "rs_dtype": lambda: pg.reduce_scatter_tensor_coalesced([torch.empty(2)], [torch.ones(2 * W).double()]),
           "rs_dims": lambda: pg.reduce_scatter_tensor_coalesced([torch.empty(2, 3)], [torch.ones(2 * W, 4)]),
           "ag_len": lambda: pg.allgather_into_tensor_coalesced([torch.empty(2 * W)], []),
           "ag_size": lambda: pg.allgather_into_tensor_coalesced([torch.empty(2 * W), torch.empty(3 * W)],
                                                                 [torch.ones(2), torch.ones(4)]),
           "ag_type": lambda: pg.allgather_into_tensor_coalesced([torch.empty(2 * W)], [torch.ones(2).double()]),
           "ag_empty": lambda: pg.allgather_into_tensor_coalesced([], []),
           "start_coalescing": lambda: pg._start_coalescing(torch.device("cpu"))}
    for k, f in bad.items():
        try:
            f()
            res[f"co_bad_{k}"] = "no error"
        except Exception as e:  # noqa: BLE001 - type and message are the evidence
            # upstream prefixes its TORCH_CHECK_EQ messages with "[rankN]:[F<time>] file:line] "
            res[f"co_bad_{k}"] = [type(e).__name__, re.sub(r"^\[rank\d+\]:\[[^\]]*\] ", "", str(e).splitlines()[0])[:160]]
    t = data(torch.float32, 1023, 67)
    dist.all_reduce(t)   # the tags still agree
    res["co_after"] = digest(t)


def lists(W):
    """several tensors in one low-level call, where upstream's gloo takes a list (measured on
    upstream 2.13): allreduce reduces the list locally (t0 op t1 op ...) then over the ranks, every
    tensor gets the result, AVG divides the first tensor only, and the bytes are each tensor's memory
    as it lies (a transposed or strided tensor is reduced in memory order); broadcast sends
    tensors[rootTensor] of the root (its memory as it lies) and copies it into the others;
    allgather of n inputs fills every output list with n * W tensors; allgather_coalesced gathers
    inputs of several shapes and dtypes. Bad inputs raise upstream's errors before a tag is taken"""
    pg = dist.distributed_c10d._get_default_group()

    def ar(name, ts, op=dist.ReduceOp.SUM):
        o = dist.AllreduceOptions()
        o.reduceOp = op
        w = pg.allreduce(ts, o)
        res[f"li_ar_{name}_future"] = digest(w.get_future().wait())
        res[f"li_ar_{name}"] = digest(ts)
    ar("sum3", [data(torch.float32, 1023, 70 + k) for k in range(3)])
    ar("sum_big", [data(torch.float64, 2**20 + 3, 73), data(torch.float64, 2**20 + 3, 74)])
    ar("avg", [data(torch.float32, 1023, 75), data(torch.float32, 1023, 76)], dist.ReduceOp.AVG)
    ar("min", [data(torch.float32, 1023, 77), data(torch.float32, 1023, 78)], dist.ReduceOp.MIN)
    ar("prod_bf16", [data(torch.bfloat16, 1023, 79) for _ in range(3)], dist.ReduceOp.PRODUCT)
    ar("bxor_i64", [data(torch.int64, 1023, 80), data(torch.int64, 1023, 81)], dist.ReduceOp.BXOR)
    t = data(torch.float32, 12, 82).view(3, 4)
    ar("same_tensor", [t, t])
    ar("transposed", [data(torch.float32, 12, 83).view(3, 4).t(), data(torch.float32, 12, 84).view(4, 3)])
    base = data(torch.float64, 20, 85)
    ar("strided", [base[::2], data(torch.float64, 10, 86)])
    res["li_ar_strided_base"] = digest(base)
    for rt, root in ((0, 1 % W), (2, W - 1)):
        ts = [data(torch.float64, 12, 87).view(3, 4), data(torch.float64, 12, 88).view(3, 4),
              data(torch.float64, 12, 89).view(4, 3)]
        o = dist.BroadcastOptions()
        o.rootRank, o.rootTensor = root, rt
        w = pg.broadcast([ts[0].t(), ts[1].t(), ts[2]], o)
        res[f"li_bc_{rt}_future"] = digest(w.get_future().wait())
        res[f"li_bc_{rt}"] = digest(ts)
    ins = [data(torch.float64, 7, 90), data(torch.float64, 7, 91)]
    outs = [[torch.empty(7, dtype=torch.float64) for _ in range(2 * W)] for _ in range(2)]
    w = pg.allgather(outs, ins)
    res["li_ag_future"] = digest(w.get_future().wait())
    res["li_ag"] = digest(outs)
    w.wait()   # upstream's Work may complete after its Future: result() before wait() can race
    try:
        w.result()
    except RuntimeError as e:
        res["li_ag_result"] = str(e)
    ins = [data(torch.float32, 5, 92), data(torch.int64, 6, 93).view(2, 3)]
    outs = [[torch.empty(5), torch.empty(2, 3, dtype=torch.int64)] for _ in range(W)]
    w = pg.allgather_coalesced(outs, ins)
    res["li_agc_future"] = digest(w.get_future().wait())
    res["li_agc"] = digest(outs)
    x, d = torch.ones(2), torch.ones(2, dtype=torch.float64)
    bo = dist.BroadcastOptions()
    bo.rootTensor = 2
    bad = {"ar_type": lambda: pg.allreduce([x, x, d]),
           "ar_size": lambda: pg.allreduce([x, torch.ones(3)]),
           "ar_empty": lambda: pg.allreduce([]),
           "bc_root_tensor": lambda: pg.broadcast([x, x], bo),
           "bc_size": lambda: pg.broadcast([x, torch.ones(1)]),
           "ag_len": lambda: pg.allgather([[x] * W], [x, x]),
           "ag_out_len": lambda: pg.allgather([[x] * (2 * W), [x] * W], [x, x]),
           "ag_in": lambda: pg.allgather([[x] * (2 * W)] * 2, [x, d]),
           "ag_out": lambda: pg.allgather([[x] * (2 * W), [x] * (2 * W - 1) + [d]], [x, x]),
           "agc_lists": lambda: pg.allgather_coalesced([[x]] * (W + 1), [x]),
           "agc_len": lambda: pg.allgather_coalesced([[x, x]] * W, [x]),
           "agc_size": lambda: pg.allgather_coalesced([[torch.ones(3)]] * W, [x]),
           "reduce": lambda: pg.reduce([x, x]),
           "gather": lambda: pg.gather([[x] * W] * 2, [x, x]),
           "scatter": lambda: pg.scatter([x, x], [[x] * W] * 2),
           "reduce_scatter": lambda: pg.reduce_scatter([x, x], [[x] * W] * 2),
           "send": lambda: pg.send([x, x], (RANK + 1) % W, 0)}
    # the dispatcher's error goes on with the kernels upstream's build registered
    # ("  Available functions are [CPU, CUDA, ...]"): compared up to there
    record_errors(res, "li_bad_", bad, "  Available functions")
    t = data(torch.float32, 1023, 94)
    dist.all_reduce(t)   # the tags still agree
    res["li_after"] = digest(t)


def sparse(W):
    """all_reduce of sparse COO tensors (upstream's AsyncSparseAllreduceWork, measured on upstream
    2.13): an allgather of every rank's sizes and nnz, allgathervs of the indices and the values (one
    tag, the allgather slot), then the W tensors summed in rank order and coalesced, copied into the
    input (new indices and values, coalesced). Several sparse / dense dims, dtypes, ranks without
    entries, uncoalesced inputs, a list of two, async with its result / future; upstream's errors"""
    pg = dist.distributed_c10d._get_default_group()

    def sp(name, sdims, ddims, dt, nnz, seed):
        rng = np.random.default_rng([seed, RANK])
        idx = torch.from_numpy(np.stack([rng.integers(0, n, nnz) for n in sdims]).reshape(len(sdims), nnz))
        count = nnz * int(np.prod(ddims, dtype=np.int64))
        if not count:
            vals = torch.empty(0, dtype=dt)
        else:   # data() has no float16: float32 inputs rounded
            vals = data(torch.float32, count, seed).to(dt) if dt == torch.float16 else data(dt, count, seed)
        vals = vals.view(nnz, *ddims)
        return torch.sparse_coo_tensor(idx, vals, (*sdims, *ddims), check_invariants=False)

    def desc(t):
        return [digest(t._indices()), digest(t._values()), list(t._indices().stride()), t.is_coalesced(),
                t._nnz(), str(t.dtype), list(t.shape), t.sparse_dim()]

    cases = [("f32_1d", (50,), (), torch.float32, 30),          # duplicates: uncoalesced inputs
             ("f64_2s1d", (6, 7), (3,), torch.float64, 12),
             ("i64_3s", (4, 3, 5), (), torch.int64, 9),
             ("bf16_1s2d", (9,), (2, 3), torch.bfloat16, 7),
             ("f32_4s4d", (2, 3, 2, 2), (1, 2, 1, 2), torch.float32, 5)]
    for k, (name, sdims, ddims, dt, nnz) in enumerate(cases):
        t = sp(name, sdims, ddims, dt, nnz, 200 + k)
        coalesced_in = t.is_coalesced()
        dist.all_reduce(t)
        res[f"sp_{name}"] = desc(t) + [coalesced_in]
    # ranks 1 and 3 without entries; every rank without
    t = sp("e", (8, 8), (2,), torch.float32, 0 if RANK % 2 else 6, 210)
    dist.all_reduce(t)
    res["sp_empty_some"] = desc(t)
    t = sp("e", (8,), (), torch.float32, 0, 211)
    dist.all_reduce(t)
    res["sp_empty_all"] = desc(t)
    # an input already coalesced; the input tensor object is the one updated, its old indices kept
    t = sp("c", (20,), (), torch.float32, 6, 212).coalesce()
    old = t._indices()
    before = digest(old)
    dist.all_reduce(t)
    res["sp_coalesced_in"] = desc(t) + [digest(old) == before]
    # async: the Work's result and Future hold the input itself
    t = sp("a", (30,), (2,), torch.float64, 10, 213)
    w = dist.all_reduce(t, async_op=True)
    w.wait()
    fv = w.get_future().wait()
    res["sp_async"] = desc(t) + [fv[0] is t, w.result()[0] is t]
    # a list of two: summed locally into the first, every tensor gets the result
    a, b = sp("l", (10,), (), torch.float32, 4, 214), sp("l", (10,), (), torch.float32, 3, 215)
    pg.allreduce([a, b]).wait()
    res["sp_list"] = [desc(a), desc(b)]
    x = sp("x", (3,), (), torch.float32, 1, 216)
    bad = {"max": lambda: dist.all_reduce(x, op=dist.ReduceOp.MAX),
           "avg": lambda: dist.all_reduce(x, op=dist.ReduceOp.AVG),
           "mixed": lambda: pg.allreduce([x, torch.ones(3)]).wait(),
           "mixed_dense_first": lambda: pg.allreduce([torch.ones(3), x]).wait(),
           "list_size": lambda: pg.allreduce([x, sp("y", (4,), (), torch.float32, 1, 217)]).wait(),
           "list_dtype": lambda: pg.allreduce([x, sp("y", (3,), (), torch.float64, 1, 217)]).wait(),
           "ranks_size": lambda: dist.all_reduce(sp("y", (3 + RANK % 2,), (), torch.float32, 2, 218)),
           "ranks_dims": lambda: dist.all_reduce(sp("y", (3,) * (1 + RANK % 2), (), torch.float32, 2, 219)),
           "five_sparse_dims": lambda: dist.all_reduce(sp("y", (2,) * 5, (), torch.float32, 1, 220)),
           "five_dense_dims": lambda: dist.all_reduce(sp("y", (2,), (1, 2, 1, 2, 1), torch.float32, 1, 222)),
           "csr": lambda: dist.all_reduce(torch.ones(2, 2).to_sparse_csr()),
           "csr_backend": lambda: pg._get_backend(torch.device("cpu")).allreduce([torch.ones(2, 2).to_sparse_csr()]),
           "half": lambda: dist.all_reduce(sp("y", (5,), (), torch.float16, 2, 223))}
    # the dispatcher's text goes on with the backends upstream's build registered
    record_errors(res, "sp_bad_", bad, " If you are a Facebook")
    t = data(torch.float32, 1023, 221)
    dist.all_reduce(t)   # the tags still agree
    res["sp_after"] = digest(t)


def groups(W):
    """new_subgroups / new_subgroups_by_enumeration (new_group underneath: names, ranks, an
    all_reduce in each) and split_group, which upstream 2.13 refuses on a CPU-only host (it wants a
    device bound to the default group, then an accelerator) although gloo supports_splitting"""
    cur, subs = dist.new_subgroups(group_size=2)
    t = data(torch.float32, 1023, 95)
    dist.all_reduce(t, group=cur)
    res["gr_new_subgroups"] = [digest(t), dist.get_rank(cur), dist.get_world_size(cur), cur.group_name,
                               [dist.get_process_group_ranks(g) for g in subs]]
    cur, subs = dist.new_subgroups_by_enumeration([[0, W - 1], list(range(1, W - 1))])
    t = data(torch.float64, 1023, 96)
    dist.all_reduce(t, group=cur, op=dist.ReduceOp.MAX)
    res["gr_by_enumeration"] = [digest(t), dist.get_rank(cur), dist.get_world_size(cur), cur.group_name,
                                cur.group_desc, [dist.get_process_group_ranks(g) for g in subs]]
    pg = dist.distributed_c10d._get_default_group()
    res["gr_supports_splitting"] = pg._get_backend(torch.device("cpu")).supports_splitting
    try:
        dist.split_group(split_ranks=[[0, 1], list(range(2, W))])
        res["gr_split_group"] = "no error"
    except Exception as e:  # noqa: BLE001 - type and message are the evidence
        res["gr_split_group"] = [type(e).__name__, str(e)]
    t = data(torch.float32, 1023, 97)
    dist.all_reduce(t)
    res["gr_after"] = digest(t)


def killed():
    """rank 1 dies by SIGKILL after one all_reduce; the others must raise within seconds"""
    t = torch.ones(10)
    dist.all_reduce(t)
    if RANK == 1:   # dies while the others' async all_reduce waits for its data
        time.sleep(0.5)
        os.kill(os.getpid(), 9)
    t0 = time.time()
    w = dist.all_reduce(torch.ones(1 << 20), async_op=True)
    try:
        w.wait()
        res["raised"] = None
    except Exception as e:  # noqa: BLE001 - the type is the evidence
        res["raised"] = type(e).__name__
        res["message_has_peer"] = "Connection closed by peer" in str(e) or "Connection reset" in str(e)
    res["seconds"] = time.time() - t0
    # the failed job does not wedge the queue: the next collectives fail too, at once
    t0 = time.time()
    try:
        w2 = dist.broadcast(t, 0, async_op=True)
        w2.wait()
        dist.all_reduce(t)
        res["raised_next"] = None
    except Exception as e:  # noqa: BLE001
        res["raised_next"] = type(e).__name__
    res["seconds_next"] = time.time() - t0
    # the coalesced forms fail too: the one Work of the manager raises on wait()
    W = dist.get_world_size()
    for name, call in (("ag", lambda: dist.all_gather_into_tensor(torch.empty(2 * W), torch.ones(2))),
                       ("rs", lambda: dist.reduce_scatter_tensor(torch.empty(2), torch.ones(2 * W)))):
        try:
            with dist._coalescing_manager(async_ops=True) as cm:
                call()
                call()
            cm.wait()
            res[f"raised_coalesced_{name}"] = None
        except Exception as e:  # noqa: BLE001
            res[f"raised_coalesced_{name}"] = type(e).__name__


def stopped():
    """rank 1 stops (SIGSTOP) after one all_reduce; the others must raise at the timeout of the
    group (5 s; the default group keeps the long timeout so a slow start-up is not a failure), not
    hang"""
    g = dist.new_group(timeout=datetime.timedelta(seconds=5))
    monitored()
    t = torch.ones(10)
    dist.all_reduce(t, group=g)
    if RANK == 1:
        os.kill(os.getpid(), signal.SIGSTOP)
    t0 = time.time()
    try:
        dist.all_reduce(t, group=g)
        res["raised"] = None
    except Exception as e:  # noqa: BLE001 - the type is the evidence
        res["raised"] = type(e).__name__
        res["message"] = str(e)[:2000]
    res["seconds"] = time.time() - t0


def monitored():
    """monitored_barrier with rank 1 absent (1 s timeout), first with wait_all_ranks=False, then
    True, each on its own group: rank 0 names the missing rank (with the original exception, or
    every missing rank), rank 2 (arrived) raises at once that it reached the barrier, with the
    closed connection (gloo closes a context whose wait timed out)"""
    gs = [dist.new_group(timeout=datetime.timedelta(seconds=30)) for _ in range(2)]
    for i, wait_all in enumerate((False, True)):
        if RANK != 1:
            t0 = time.time()
            try:
                dist.monitored_barrier(gs[i], timeout=datetime.timedelta(seconds=1), wait_all_ranks=wait_all)
                res[f"mb{i}"] = None
            except Exception as e:  # noqa: BLE001 - type and message are the evidence
                # upstream prefixes gloo's messages with their source location; ports and the time
                # left vary by run
                m = re.sub(r"\[[^\]]*\.cc:\d+\] ", "", str(e))
                m = re.sub(r"\]:\d+", "]:PORT", re.sub(r"waiting \d+ms", "waiting Nms", m))
                res[f"mb{i}"] = [type(e).__name__, m, round(time.time() - t0) <= 3]
        dist.barrier()


def overlap():
    """async collectives return before their peers have joined: rank 1 joins 1.5 s late; rank 0
    issues every collective, computes while they are pending (they run on the backend's worker
    thread, off the calling thread), and a wait with a short timeout raises while the work goes on"""
    W = dist.get_world_size()
    t = torch.arange(1 << 16, dtype=torch.float32) + RANK
    bc = torch.arange(1000, dtype=torch.float64) * (RANK + 1)
    agt = torch.empty(W * 100)
    rst = torch.empty(100)
    a2s = torch.empty(10 * W)
    g = [torch.empty(50) for _ in range(W)] if RANK == 0 else None
    sc = torch.empty(30)
    if RANK == 1:
        time.sleep(1.5)
    t0 = time.time()
    ws = [dist.broadcast(bc, 1, async_op=True),
          dist.all_gather_into_tensor(agt, torch.arange(100.0) + RANK, async_op=True),
          dist.reduce_scatter_tensor(rst, torch.arange(100.0 * W) * (RANK + 1), async_op=True),
          dist.all_to_all_single(a2s, torch.arange(10.0 * W) + 100 * RANK, async_op=True),
          dist.gather(torch.full((50,), float(RANK)), g, dst=0, async_op=True),
          dist.scatter(sc, [torch.full((30,), float(i)) for i in range(W)] if RANK == 0 else None, src=0,
                       async_op=True),
          dist.barrier(async_op=True),
          dist.all_reduce(t, async_op=True)]
    res["call_seconds"] = time.time() - t0
    res["completed_at_return"] = any(w.is_completed() for w in ws)
    w = ws[-1]
    if RANK == 0:
        try:
            w.wait(timeout=datetime.timedelta(milliseconds=100))
            res["wait_timeout"] = None
        except Exception as e:  # noqa: BLE001 - type and message are the evidence
            res["wait_timeout"] = [type(e).__name__, str(e)]
    a = torch.randn(64, 64)
    n = 0
    while not w.is_completed() and time.time() - t0 < 10:
        a = torch.tanh(a @ a)
        n += 1
    res["computed_while_pending"] = n > 0 if RANK == 0 else None
    for x in ws:
        x.wait()
    res["sum"] = digest([t, bc, agt, rst, a2s, sc] + (g or []))
    threads()


def threads():
    """ProcessGroupGloo runs options._threads workers (default 2): a small all_reduce B issued
    after a large one A can complete first with 2 (it runs beside A; upstream measured: B first in
    every trial), never with 1 (the queue runs A, then B). Order of completion from the Futures'
    callbacks, three trials each; the bytes are compared with the all-upstream world."""
    from torch._C._distributed_c10d import ProcessGroupGloo
    W = dist.get_world_size()
    store = dist.distributed_c10d._get_default_store()
    res["default_threads"] = dist.distributed_c10d._get_default_group()._get_backend(
        torch.device("cpu")).options._threads
    for nth in (1, 2):
        opts = ProcessGroupGloo._Options()
        opts._devices = [ProcessGroupGloo.create_default_device()]
        opts._threads = nth
        opts._timeout = datetime.timedelta(seconds=60)
        g = ProcessGroupGloo(dist.PrefixStore(f"threads{nth}", store), RANK, W, opts)
        orders, sums = [], []
        for trial in range(3):
            a, b = torch.arange(1 << 23, dtype=torch.float32) + RANK, torch.ones(3) * (trial + RANK)
            order = []
            wa, wb = g.allreduce([a]), g.allreduce([b])
            wa.get_future().then(lambda f: order.append("A"))
            wb.get_future().then(lambda f: order.append("B"))
            wa.wait()
            wb.wait()
            deadline = time.time() + 5
            while len(order) < 2 and time.time() < deadline:   # the callbacks run on the workers
                time.sleep(0.01)
            orders.append("".join(order))
            sums.append(digest([a, b]))
        res[f"threads{nth}_orders"] = orders
        res[f"threads{nth}_sums"] = sums
        del g


def init_method():
    t = torch.arange(4, dtype=torch.float32) + RANK
    dist.all_reduce(t)
    res["sum"] = t.tolist()
    res["rank_size"] = [dist.get_rank(), dist.get_world_size()]


def split():
    """the low-level ProcessGroup.split_group / merge_remote_group (upstream's ProcessGroup::splitGroup
    and ProcessGroupGloo::split / merge): which ranks get a group, its name, rank, size, desc, device
    types and timeout, a collective on it; bad input. Few groups: each new group is a rendezvous in
    which upstream's gloo sometimes leaves a rank hanging (docs/distributed.md "### Groups")"""
    W = dist.get_world_size()
    pg = dist.distributed_c10d._get_default_group()
    lo, hi = [0, 1], list(range(2, W))

    def info(name, g, seed):
        if g is None:
            res[name] = None
            return
        be = g._get_backend(torch.device("cpu"))
        t = data(torch.float32, 1023, seed)
        g.allreduce([t]).wait()
        b = data(torch.float64, 257, seed)
        opts = dist.BroadcastOptions()
        opts.rootRank = g.size() - 1
        g.broadcast([b], opts).wait()
        # upstream's default desc counts from an uninitialized counter (any integer): the pattern
        desc = re.sub(r"(?<=:split:)-?\d+", "<n>", g.group_desc)
        res[name] = [type(g).__name__, g.group_name, desc, g.rank(), g.size(), repr(g.bound_device_id),
                     sorted(str(d) for d in g._device_types), type(be).__name__, be.rank(), be.size(),
                     str(be.options._timeout), be.options.group_name, g.name(), digest(t), digest(b)]

    def fresh():
        # options of one's own with a device of one's own: upstream's gloo then connects every new
        # group reliably; with the parent's shared options and device it often leaves a rank
        # stuck (docs/distributed.md "### Groups"), so only sp_shared below (not in the
        # comparisons with upstream) takes that path with a rendezvous
        o = dist.ProcessGroupGloo._Options()
        o._devices = [dist.ProcessGroupGloo.create_default_device()]
        o._timeout = datetime.timedelta(seconds=20)
        return o

    # every rank asks for both groups: a rank outside the list gets None
    info("sp_lo", pg.split_group(lo, opts=fresh()), 120)
    info("sp_hi", pg.split_group(hi, opts=fresh()), 121)
    # names, desc and timeout given; ranks in any order are taken sorted; the options given are
    # the new backend's (and are rewritten: name, timeout, global ranks)
    o = fresh()
    info("sp_named", pg.split_group(list(reversed(range(W))), timeout=datetime.timedelta(seconds=7), opts=o,
                                    group_name="sp_all", group_desc="sp desc"), 123)
    res["sp_named_opts"] = [o.group_name, str(o._timeout), o.global_ranks_in_group]
    # a split of a split
    outer = pg.split_group([3, 1, 2, 0][:W] if W == 4 else list(range(W)), opts=fresh())
    info("sp_outer", outer, 124)
    info("sp_inner", outer.split_group(lo if RANK < 2 else hi, opts=fresh()), 125)
    # bad input: upstream's checks (a rank out of range is not checked: the group waits for it until
    # the store times out)
    for k, ranks in (("empty", []), ("dup", [RANK, RANK]), ("too_long", list(range(W + 1))), ("not_int", ["a"])):
        try:
            pg.split_group(ranks)
            res[f"sp_bad_{k}"] = "no error"
        except Exception as e:  # noqa: BLE001 - type and message are the evidence
            res[f"sp_bad_{k}"] = [type(e).__name__, str(e).split("\n")[0]]
    try:
        pg.split_group(list(range(W)), device_types=[torch.device("meta")])
        res["sp_bad_device_type"] = "no error"
    except Exception as e:  # noqa: BLE001
        res["sp_bad_device_type"] = [type(e).__name__, str(e)]
    # without opts the parent backend's options are the new group's, and each split rewrites them,
    # even on a rank outside the list (None, no rendezvous)
    po = pg._get_backend(torch.device("cpu")).options
    res["sp_parent_options_before"] = [po.group_name, str(po._timeout), len(po._devices)]
    res["sp_not_member"] = repr(pg.split_group([r for r in range(W) if r != RANK]))
    res["sp_not_member_timeout"] = repr(pg.split_group([r for r in range(W) if r != RANK], group_name="sp_other",
                                                       timeout=datetime.timedelta(seconds=5)))
    res["sp_parent_options"] = [po is pg._get_backend(torch.device("cpu")).options, po.group_name, str(po._timeout)]
    if os.environ.get("TN_SPLIT_SHARED"):
        g = pg.split_group(list(range(W)), group_name="sp_shared")
        t = torch.arange(4, dtype=torch.float64) + 10 * RANK
        g.allreduce([t]).wait()
        go = g._get_backend(torch.device("cpu")).options
        res["sp_shared"] = [go is po, go._devices[0] is po._devices[0], po.group_name, str(po._timeout),
                            go.global_ranks_in_group, g.rank(), t.tolist()]
    t = data(torch.float32, 1023, 127)
    dist.all_reduce(t)   # the default group is untouched
    res["sp_after"] = digest(t)


def merge():
    """merge_remote_group: ranks from the order of arrival on the store's counter `mergeGroupRank`"""
    W = dist.get_world_size()
    pg = dist.distributed_c10d._get_default_group()
    store = dist.PrefixStore("merge_test", dist.distributed_c10d._get_default_store())
    g = pg.merge_remote_group(store, W, datetime.timedelta(seconds=30))
    t = torch.full((5,), float(RANK + 1))
    g.allreduce([t]).wait()
    be = g._get_backend(torch.device("cpu"))
    res["mg"] = [type(g).__name__, g.group_name, g.group_desc, g.size(), repr(g.bound_device_id),
                 sorted(str(d) for d in g._device_types), str(be.options._timeout), be.options.group_name, t.tolist()]
    res["mg_rank"] = g.rank()
    res["mg_rank_key"] = store.get("mergeGroupRank").decode()
    g2 = pg.merge_remote_group(dist.PrefixStore("merge_named", dist.distributed_c10d._get_default_store()), W,
                               group_name="merged", group_desc="merged desc")
    t = torch.full((3,), float(RANK + 1))
    g2.allreduce([t]).wait()
    res["mg_named"] = [g2.group_name, g2.group_desc, g2.size(), t.tolist()]


timeout = datetime.timedelta(seconds=float(os.environ.get("TN_TEST_PG_TIMEOUT", "60")))
init = os.environ.get("TN_TEST_INIT", "env://")
if init.startswith("env://"):
    dist.init_process_group("gloo", timeout=timeout)
else:
    dist.init_process_group("gloo", init_method=init, rank=RANK, world_size=int(os.environ["WORLD_SIZE"]),
                            timeout=timeout)
{"collectives": collectives, "killed": killed, "stopped": stopped, "init": init_method, "overlap": overlap,
 "split": split, "merge": merge, "sparse": lambda: sparse(dist.get_world_size())}[SUITE]()
with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
    json.dump(res, f, sort_keys=True)
if SUITE not in ("killed", "stopped"):
    dist.barrier()   # no rank tears down while a peer is still in its last collective
    dist.destroy_process_group()
