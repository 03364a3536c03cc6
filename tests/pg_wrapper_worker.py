"""One rank of a TORCH_DISTRIBUTED_DEBUG=DETAIL gloo world for tests/test_pg_wrapper.py (runs on our
torch or upstream's).

    python pg_wrapper_worker.py OUT_DIR [SUITE]   (env: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)

SUITE "main" (default): matching and mismatching collectives; "late": 2-rank edge cases with a 3 s
timeout, ending with rank 1 arriving 5 s late at a collective (every rank raises); "bcap": DDP's
rebuilt bucket layout (run without DETAIL, with or without DDP_SET_LAST_BUCKET_CAP=1).

Writes OUT_DIR/rank<r>.json: {case name: digest of the result bytes, or [exception type, message]},
plus the wrapped backend's sequence number after every case. Inputs are small integers in float
tensors, so every world sees identical bytes whichever torch runs a rank."""
import datetime
import hashlib
import json
import os
import sys
import time

import torch
import torch.distributed as dist

OUT = sys.argv[1]
SUITE = sys.argv[2] if len(sys.argv) > 2 else "main"
RANK = int(os.environ["RANK"])
W = int(os.environ["WORLD_SIZE"])


def digest(t):
    if isinstance(t, (list, tuple)):
        return [digest(x) for x in t]
    return hashlib.sha256(t.reshape(-1).contiguous().view(torch.uint8).numpy().tobytes()).hexdigest()[:24]


def x(n=4, dtype=torch.float32, shape=None):
    t = torch.arange(n, dtype=torch.float64).mul(RANK + 1).add(RANK).to(dtype)
    return t.reshape(shape) if shape else t


res = {}
TIMEOUT_S = 3 if SUITE == "late" else int(os.environ.get("TN_TEST_PG_TIMEOUT", "60"))
# the ranks meet before the rendezvous, so a 3 s timeout is not spent importing torch on a loaded host
open(os.path.join(OUT, f"ready{RANK}"), "w").close()
for _ in range(1200):
    if all(os.path.exists(os.path.join(OUT, f"ready{r}")) for r in range(W)):
        break
    time.sleep(0.1)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=TIMEOUT_S))
pg = dist.distributed_c10d._get_default_group()
be = pg._get_backend(torch.device("cpu"))
res["backend_type"] = type(be).__name__
res["wrapped_type"] = type(be.wrapped_pg).__name__ if hasattr(be, "wrapped_pg") else None
res["backend_name"] = be.name()


def case(name, f):
    try:
        out = f()
        res[name] = digest(out) if out is not None else "ok"
    except Exception as e:  # noqa: BLE001 - the type and message are the evidence
        res[name] = [type(e).__name__, str(e)]
    res[name + ".seq"] = be._get_sequence_number_for_group()


def all_reduce(t):
    dist.all_reduce(t)
    return t


def broadcast(t):
    dist.broadcast(t, 0)
    return t


def all_gather(t):
    outs = [torch.zeros_like(t) for _ in range(W)]
    dist.all_gather(outs, t)
    return outs


def all_gather_into(t):
    out = torch.zeros((W * t.shape[0],) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.all_gather_into_tensor(out, t)
    return out


def reduce_scatter_tensor(t):
    out = torch.zeros(t.shape[0] // W, dtype=t.dtype)
    dist.reduce_scatter_tensor(out, t)
    return out


def gather(t):
    outs = [torch.zeros_like(t) for _ in range(W)] if RANK == 0 else None
    dist.gather(t, outs, dst=0)
    return outs if RANK == 0 else t


def scatter(t):
    out = torch.zeros_like(t)
    dist.scatter(out, [t + i for i in range(W)] if RANK == 0 else None, src=0)
    return out


def reduce(t):
    dist.reduce(t, 0)
    return t


def a2a(t):
    out = torch.zeros_like(t)
    dist.all_to_all_single(out, t)
    return out


def save():
    with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print("done", RANK, flush=True)


if SUITE == "bcap":
    # 14 params (7 Linear(64, 64)-like layers), caps of ~20 KB: several buckets; the layout after
    # the rebuild (before the 2nd forward) is what DDP_SET_LAST_BUCKET_CAP changes
    torch.manual_seed(0)
    m = torch.nn.Sequential(*[torch.nn.Linear(64, 64) for _ in range(6)], torch.nn.Linear(64, 3))
    ddp = torch.nn.parallel.DistributedDataParallel(m, bucket_cap_mb=0.02)
    for step in range(3):
        ddp(torch.arange(128.).reshape(2, 64).mul(RANK + 1) / 100).sum().backward()
        d = ddp._get_ddp_logging_data()
        res[f"step{step}"] = [d.get("bucket_sizes"), d.get("has_rebuilt_buckets"), d.get("rebuilt_bucket_sizes"),
                              d.get("rebuilt_per_bucket_param_indices")]
    save()
    dist.destroy_process_group()
    sys.exit(0)

if SUITE == "late":
    def coalesced_ag():
        outs = [torch.zeros(2 * W), torch.zeros(3 * W)]
        with dist._coalescing_manager():
            dist.all_gather_into_tensor(outs[0], x(2))
            dist.all_gather_into_tensor(outs[1], x(3))
        return outs

    def coalesced_rs():
        outs = [torch.zeros(2), torch.zeros(1)]
        with dist._coalescing_manager():
            dist.reduce_scatter_tensor(outs[0], x(2 * W))
            dist.reduce_scatter_tensor(outs[1], x(W))
        return outs

    def ag_coalesced():
        outs = [[torch.zeros(2), torch.zeros(3)] for _ in range(W)]
        dist.all_gather_coalesced(outs, [x(2), x(3)])
        return outs

    def ar_coalesced():
        ts = [x(2), x(3, torch.float64)]
        dist.all_reduce_coalesced(ts)
        return ts

    case("coalesced.all_gather_into_tensor", coalesced_ag)
    case("coalesced.reduce_scatter_tensor", coalesced_rs)
    case("coalesced.all_gather_coalesced", ag_coalesced)
    case("coalesced.all_reduce_coalesced", ar_coalesced)
    # fingerprints of 17..20 entries: the length round names op types COALESCED, _ALLREDUCE_SPARSE,
    # REDUCE_SCATTER_TENSOR_COALESCED, then 20 (upstream's internal assert)
    for nd in (11, 12, 13, 14):
        case(f"mismatch.length{nd + 6}", lambda: all_reduce(torch.zeros([1] * nd) if RANK == 1 else torch.zeros(1)))
    case("match.after", lambda: all_reduce(x()))
    case("wrapper.props", lambda: res.__setitem__("props", [be.rank(), be.size(), be.name(), be._get_backend_name(),
                                                            be.supports_splitting, type(be.options).__name__]))
    case("wrapper.get_error", lambda: be.get_error())
    case("wrapper.bad_ctor", lambda: dist.distributed_c10d._ProcessGroupWrapper(be.wrapped_pg, 3))

    def late():
        if RANK == 1:
            time.sleep(2 * TIMEOUT_S)
        return all_reduce(x())

    case("late", late)
    save()
    os._exit(0)   # the world is broken now: no orderly shutdown

# collectives every rank calls alike: checked, then run
case("match.all_reduce", lambda: all_reduce(x()))
case("match.broadcast", lambda: broadcast(x(6, shape=(2, 3))))
case("match.all_gather", lambda: all_gather(x(3, torch.int64)))
case("match.all_gather_into_tensor", lambda: all_gather_into(x(2)))
case("match.reduce_scatter_tensor", lambda: reduce_scatter_tensor(x(2 * W)))
case("match.gather", lambda: gather(x(2)))
case("match.scatter", lambda: scatter(x(2)))
case("match.reduce", lambda: reduce(x(5, torch.float64)))
case("match.all_to_all_single", lambda: a2a(x(W)))
case("match.barrier", lambda: dist.barrier())
case("match.all_gather_object", lambda: (lambda o: (dist.all_gather_object(o, {"r": RANK}), torch.tensor([v["r"] for v in o]))[1])([None] * W))
case("match.all_reduce_empty", lambda: all_reduce(torch.zeros(0)))
case("match.all_reduce_0d", lambda: all_reduce(torch.tensor(3.0 + RANK)))

# mismatches: every rank raises, and the wrapped collective does not run
last = W - 1
case("mismatch.op", lambda: broadcast(x()) if RANK == last else all_reduce(x()))
case("mismatch.op_rank0", lambda: reduce(x()) if RANK == 0 else all_reduce(x()))
case("mismatch.shape", lambda: all_reduce(x(5) if RANK == last else x(4)))
case("mismatch.shape_2d", lambda: all_reduce(x(6, shape=(3, 2)) if RANK == last else x(6, shape=(2, 3))))
case("mismatch.ndim", lambda: all_reduce(x(6, shape=(2, 3)) if RANK == last else x(6)))
case("mismatch.dtype", lambda: all_reduce(x(dtype=torch.float64) if RANK == last else x()))
case("mismatch.dtype_int", lambda: all_reduce(x(dtype=torch.int32) if RANK == 1 else x(dtype=torch.int64)))
case("mismatch.shape_and_dtype", lambda: all_reduce(x(3, torch.float64) if RANK == last else x()))
case("mismatch.barrier_vs_all_reduce", lambda: dist.barrier() if RANK == last else all_reduce(x()))
case("mismatch.all_gather", lambda: all_gather(x(3 if RANK == last else 2)))
case("after.all_reduce", lambda: all_reduce(x()))

# a new group is wrapped too (its own helper group)
g = dist.new_group(list(range(W)))
case("group.backend_type", lambda: type(g._get_backend(torch.device("cpu"))).__name__ and None)
case("group.all_reduce", lambda: (lambda t: (dist.all_reduce(t, group=g), t)[1])(x()))
case("group.mismatch", lambda: (lambda t: (dist.all_reduce(t, group=g), t)[1])(x(2 if RANK == 0 else 3)))

# monitored_barrier is forwarded unchecked, and moves the wrapped backend's sequence number by its
# sends and recvs: rank 0 by 2 (W - 1), the others by 2, so every later collective mismatches on the
# sequence number (upstream's behaviour, measured)
case("after.monitored_barrier", lambda: dist.monitored_barrier(wait_all_ranks=True))
case("after.all_reduce2", lambda: all_reduce(x(7)))

save()
dist.destroy_process_group()
print("destroyed", RANK, flush=True)
