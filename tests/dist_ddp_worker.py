"""One rank of a DDP world for tests/test_ddp.py (runs on our torch or upstream's).

    python dist_ddp_worker.py CASES OUT_DIR      (env: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT)

CASES is a comma-separated list of case names (see CASES below). Every case builds its model from
raw bytes (numpy's PCG64, identical in both environments; rank 1's initial parameters differ on
purpose so DDP's broadcast from rank 0 matters), trains 3 SGD steps under DDP with inputs that
differ per rank, and records the sha256 of every parameter's bytes (and of every .grad) after each
step. OUT_DIR/rank<r>.json: {case: [[digest, ...] per step]} or {case: {"error": type, "msg": ...}}."""
import base64
import contextlib
import hashlib
import json
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

CASES_ARG, OUT = sys.argv[1], sys.argv[2]
RANK = int(os.environ.get("RANK", "0"))


def rnd(shape, seed, scale=0.5):
    """dyadic float64 values k/16, |k| <= 16*scale: every product and sum of the 3 steps stays
    exact in float64, so each rank's local forward/backward is the same bytes on our torch and on
    upstream's whatever the summation order of their GEMMs; the DDP reduction (division by the
    world size, the gloo ring, fp16 compression) is then what decides the bytes."""
    rng = np.random.default_rng([seed, RANK])
    k = int(16 * scale)
    v = (rng.integers(-k, k + 1, int(np.prod(shape))) / 16.0).astype("<f8")
    return torch.frombuffer(bytearray(v.tobytes()), dtype=torch.float64).clone().reshape(shape)


def fill(model, seed):
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(rnd(tuple(p.shape), seed * 100 + i))


def raw(t):
    if t.layout == torch.sparse_coo:   # a sparse .grad: its dense bytes (the sum is exact, so its order is not)
        t = t.to_dense()
    return base64.b64encode(t.detach().contiguous().view(torch.uint8).numpy().tobytes()).decode()


def digest(t):
    return hashlib.sha256(t.detach().contiguous().view(torch.uint8).numpy().tobytes()).hexdigest()[:24]


class MLP(nn.Module):
    def __init__(self, unused=False):
        super().__init__()
        self.l1 = nn.Linear(12, 32)
        self.l2 = nn.Linear(32, 16)
        self.l3 = nn.Linear(16, 4)
        self.extra = nn.Linear(16, 4) if unused else None

    def forward(self, x):
        h = torch.relu(self.l2(torch.relu(self.l1(x))))
        return self.l3(h)


class RankBranch(nn.Module):
    """rank 0 uses `a`, rank 1 uses `b`: a parameter used on one rank only (globally used),
    and `c` used by no rank (globally unused: its .grad stays None)."""
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(12, 16)
        self.a = nn.Linear(16, 4)
        self.b = nn.Linear(16, 4)
        self.c = nn.Linear(16, 4)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        return self.a(h) if dist.get_rank() == 0 else self.b(h)


class EmbSparse(nn.Module):
    """an nn.Embedding(sparse=True) (a sparse .grad: a bucket of its own) feeding a Linear"""
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 6, sparse=True)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return self.fc(self.emb(x).sum(1))


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2)
        self.fc = nn.Linear(8 * 3 * 3, 5)

    def forward(self, x):
        h = torch.relu(self.c1(x))
        h = torch.relu(self.c2(h))
        return self.fc(h.flatten(1))


def run_case(name):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    kw = {}
    model_cls, in_shape, nout = MLP, (8, 12), 4
    accumulate = 1
    hook = None
    if name.startswith("conv"):
        model_cls, in_shape, nout = Conv, (8, 3, 7, 7), 5
    if name.startswith("emb"):
        in_shape = (8, 3)
    if "unused" in name:
        kw["find_unused_parameters"] = True
    if "smallbucket" in name:
        kw["bucket_cap_mb"] = 0.0005   # 524 bytes: several buckets
    if "asview" in name:
        kw["gradient_as_bucket_view"] = True
    if "static" in name:
        kw["static_graph"] = True
    if "skip" in name:
        kw["skip_all_reduce_unused_params"] = True
    if "batched" in name:
        kw["batched_grad_copy"] = True
    torch.manual_seed(0)
    if name.startswith("branch"):
        model = RankBranch()
        kw["find_unused_parameters"] = True
    elif name.startswith("emb"):
        model = EmbSparse()
    elif "unused_extra" in name:
        model = MLP(unused=True)
    else:
        model = model_cls()
    model.double()
    fill(model, 7)
    ddp = nn.parallel.DistributedDataParallel(model, **kw)
    if "hook_allreduce" in name:
        ddp.register_comm_hook(None, default_hooks.allreduce_hook)
    if "hook_fp16" in name:
        ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
    if "builtin_allreduce" in name:
        ddp._register_builtin_comm_hook(dist.BuiltinCommHookType.ALLREDUCE)
    if "builtin_fp16" in name:
        ddp._register_builtin_comm_hook(dist.BuiltinCommHookType.FP16_COMPRESS)
    if "nosync" in name:
        accumulate = 2
    # plain SGD (no momentum buffer) for the sparse gradient
    opt = torch.optim.SGD(ddp.parameters(), lr=0.125, momentum=0 if name.startswith("emb") else 0.5)
    params = list(ddp.parameters())
    local = {}

    def keep_local(i):
        # runs after AccumulateGrad, before DDP's reducer hook: this rank's own gradient
        def h(p):
            local[i] = raw(p.grad)
        return h
    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(keep_local(i))
    # join: rank 1 has one batch fewer; inside ddp.join() rank 0's 3rd step all-reduces against
    # rank 1's zeros, and leaving the context broadcasts the last joiner's parameters
    join = ddp.join() if "join" in name else contextlib.nullcontext()
    nsteps = 2 if "join" in name and RANK == 1 else 3
    with join:
        out = train(ddp, opt, params, local, nsteps, name, in_shape, nout, accumulate)
    out += [{"grads": None, "local": None, "params": None}] * (3 - nsteps)
    data = ddp._get_ddp_logging_data()
    keep = {k: data.get(k) for k in ("bucket_sizes", "rebuilt_bucket_sizes", "rebuilt_per_bucket_param_indices",
                                      "has_rebuilt_buckets", "iteration", "num_buckets_reduced", "unused_parameter_size",
                                      "prev_iteration_grad_ready_order_indices", "module_name", "dtypes",
                                      "find_unused_parameters", "total_parameter_size_bytes", "comm_hook",
                                      "join_uneven_inputs")}
    keep["timing"] = timing(data)
    return {"steps": out, "log": keep, "final": [digest(p) for p in params]}


TIMING = ("avg_forward_compute_time", "avg_backward_compute_time", "avg_backward_comm_time",
          "avg_backward_compute_comm_overlap_time", "forward_compute_time", "backward_compute_time", "backward_comm_time",
          "backward_compute_comm_overlap_time", "forward_compute_time_start", "backward_compute_time_start",
          "backward_comm_time_start", "backward_compute_time_end", "backward_comm_time_end")


def timing(data):
    """the logger's CPU timings: values differ run to run, so which are present, their type, and > 0"""
    return {k: [type(data[k]).__name__, data[k] > 0] for k in TIMING if k in data}


def rnd_input(shape, seed, name):
    if name.startswith("emb"):   # 8 bags of 3 embedding rows, repeats included
        rng = np.random.default_rng([seed, RANK])
        return torch.tensor(rng.integers(0, 10, int(np.prod(shape))).reshape(shape).tolist(), dtype=torch.int64)
    return rnd(shape, seed, 1.0)


def train(ddp, opt, params, local, nsteps, name, in_shape, nout, accumulate):
    out = []
    for step in range(nsteps):
        opt.zero_grad()
        local.clear()
        for micro in range(accumulate):
            x = rnd_input(in_shape, 1000 + step * 10 + micro, name)
            y = rnd((in_shape[0], nout), 2000 + step * 10 + micro, 1.0)
            if micro < accumulate - 1:
                with ddp.no_sync():
                    loss = ((ddp(x) - y) ** 2).sum() * 0.125
                    loss.backward()
            else:
                loss = ((ddp(x) - y) ** 2).sum() * 0.125
                loss.backward()
        rec = {"grads": [raw(p.grad) if p.grad is not None else None for p in params],
               "local": [local.get(i) for i in range(len(params))]}
        opt.step()
        rec["params"] = [digest(p) for p in params]
        out.append(rec)
    return out


class EmbUnused(EmbSparse):
    def forward(self, x):
        return self.fc(x)


def caught_case(name):
    """a sparse-gradient param unused under find_unused_parameters: upstream's REDUCER_CHECK on
    every rank before any collective, so the world goes on (the error is returned, not raised)"""
    ddp = nn.parallel.DistributedDataParallel(EmbUnused().double(), find_unused_parameters=True)
    try:
        ddp(torch.ones(2, 6, dtype=torch.float64)).sum().backward()
    except Exception as e:  # noqa: BLE001 - compared with upstream's
        return {"error": type(e).__name__, "msg": str(e)}
    return {"no error": True}


def timing_case(name):
    """runtime stats sampled: the first 10 iterations, then every sample_rate-th
    (_set_ddp_runtime_logging_sample_rate(4): iteration 12, not 11 nor 13); a rate below 1 refused"""
    torch.manual_seed(0)
    ddp = nn.parallel.DistributedDataParallel(nn.Linear(4, 2).double())
    out = {}
    try:
        ddp._set_ddp_runtime_logging_sample_rate(0)
    except Exception as e:  # noqa: BLE001 - compared with upstream's
        out["rate0"] = [type(e).__name__, str(e)]
    ddp._set_ddp_runtime_logging_sample_rate(4)
    seen = []
    for _ in range(14):
        ddp(torch.ones(3, 4, dtype=torch.float64)).sum().backward()
        data = ddp._get_ddp_logging_data()
        seen.append([data.get("iteration"), timing(data), data.get("forward_compute_time_start")])
    # a timestamp changes only at a sampled iteration
    out["steps"] = [[it, t, i > 0 and ts != seen[i - 1][2]] for i, (it, t, ts) in enumerate(seen)]
    return out


def meta_case(name):
    """Reducer._set_sparse_metadata({param name: global row ids}) on gloo: the sparse .grad is
    coalesced, its rows renumbered to their positions in the ids (searchsorted), reduced, then
    rebuilt at the ids from the comm result, which must be dense (the sparse all_reduce's is not:
    upstream's sparse_coo_tensor error), with as many rows as ids (else a size mismatch error);
    the metadata holds for one backward. Each mode on a fresh DDP (an error leaves it mid-reduction)."""
    import re
    out = {}
    x = rnd_input((8, 3), 1000, "emb")
    ids = {"full": torch.arange(10), "short": torch.arange(9), "shift": torch.arange(10) * 3,
           "int32": torch.arange(10, dtype=torch.int32)}

    def grad_of(p):
        g = p.grad
        return None if g is None else [str(g.layout), g.is_coalesced(), g._indices().tolist(), raw(g._values())]

    def dense_hook(state, bucket):
        t = bucket.buffer()
        if t.layout == torch.sparse_coo and state["dense"]:
            d = t.to_dense()
            dist.all_reduce(d)
            f = torch.futures.Future()
            f.set_result(d)
            return f
        return dist.all_reduce(t, async_op=True).get_future().then(lambda fut: fut.value()[0])

    for mode, meta in (("wrongname", {"emb.bias": ids["full"]}), ("short", {"emb.weight": ids["short"]}),
                       ("full", {"emb.weight": ids["full"]}), ("shift", {"emb.weight": ids["shift"]}),
                       ("hook", {"emb.weight": ids["int32"]})):
        torch.manual_seed(0)
        model = EmbSparse().double()
        fill(model, 7)
        ddp = nn.parallel.DistributedDataParallel(model)
        state = {"dense": True}
        if mode == "hook":
            ddp.register_comm_hook(state, dense_hook)
        rec = []
        for step in range(2):   # the 2nd step without metadata (and the hook's sparse all_reduce)
            if step == 0:
                ddp._set_sparse_metadata(meta)
            state["dense"] = step == 0
            model.zero_grad()
            try:
                ((ddp(x) - 1) ** 2).sum().backward()
                rec.append(["ok", grad_of(model.emb.weight), raw(model.fc.weight.grad)])
            except Exception as e:  # noqa: BLE001 - compared with upstream's
                rec.append([type(e).__name__, str(e), grad_of(model.emb.weight), raw(model.fc.weight.grad)])
                break
        out[mode] = rec
    for bad in (5, {"emb.weight": 3}, {3: ids["full"]}, None):
        try:
            ddp._set_sparse_metadata(bad)
            out[repr(bad)] = "accepted"
        except Exception as e:  # noqa: BLE001 - compared with upstream's
            out[repr(bad)] = [type(e).__name__, re.sub("0x[0-9a-f]+", "0x", str(e))]
    return out


class Unused(nn.Module):
    """three layers no forward uses: their names in upstream's debug-mode errors"""
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.u1 = nn.Linear(3, 3)
        self.b = nn.Linear(3, 2)
        self.u2 = nn.Linear(3, 1)
        self.u3 = nn.Linear(2, 2, bias=False)

    def forward(self, x):
        return self.b(self.a(x))


def debug_case(name):
    """parameter names in DDP's errors: a param marked ready twice (named whatever the debug level, as
    upstream's DDP always passes the names), params without grad (named only when
    TORCH_DISTRIBUTED_DEBUG is INFO or DETAIL). Errors on every rank alike, each on a fresh DDP."""
    out = {"level": str(dist.get_debug_level())}
    torch.manual_seed(0)
    ddp = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2)).double())
    ddp(torch.ones(2, 3, dtype=torch.float64))
    try:
        ddp.reducer._autograd_hook(1)
        ddp.reducer._autograd_hook(1)
    except Exception as e:  # noqa: BLE001 - compared with upstream's
        out["twice"] = [type(e).__name__, str(e)]
    for fu in (False, True):
        torch.manual_seed(0)
        ddp = nn.parallel.DistributedDataParallel(Unused().double(), find_unused_parameters=fu)
        try:
            for _ in range(2):
                y = ddp(torch.ones(2, 3, dtype=torch.float64))
                # find_unused: a loss not using the output leaves the output's params without grad
                (y.sum() if not fu else ddp.module.a.weight.sum()).backward()
        except Exception as e:  # noqa: BLE001 - compared with upstream's
            out[f"unused_{fu}"] = [type(e).__name__, str(e)]
    return out


def coll_case(name):
    """all_reduce of complex sparse tensors (not DDP; the sparse path DDP's sparse buckets use):
    dist.all_reduce runs it on view_as_real of the tensor, whose result does not reach the input;
    the backend itself refuses complex values ("Invalid scalar type"); a dense all_reduce after each
    shows the ranks' collectives still in step"""
    out = {}
    i = torch.tensor([[0, 2, 2]])
    for dt in (torch.complex64, torch.complex128):
        s = torch.sparse_coo_tensor(i, (torch.tensor([1 + 2j, 3 - 1j, 0.5j]) * (RANK + 1)).to(dt), (4,))
        w = dist.all_reduce(s, async_op=True)
        w.wait()
        out[str(dt)] = [repr(s), s.is_coalesced(), repr(w.result())]
    try:
        dist.distributed_c10d._get_default_group().allreduce([s]).wait()
        out["backend"] = "no error"
    except Exception as e:  # noqa: BLE001 - compared with upstream's
        out["backend"] = [type(e).__name__, str(e)]
    t = torch.ones(2, dtype=torch.float64) * (RANK + 1)
    dist.all_reduce(t)
    out["dense_after"] = t.tolist()
    return out


def bad_case(name):
    if name == "bad_shapes":
        # rank 1's second layer has a different shape (same param count): upstream's
        # _verify_params_across_processes error
        model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2 if RANK == 0 else 5))
    elif name == "bad_count":
        model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(2 if RANK == 0 else 3)])
    elif name == "bad_unused":
        # a parameter that gets no gradient without find_unused_parameters: the next forward
        # raises upstream's "Expected to have finished reduction" error
        model = MLP(unused=True)
        ddp = nn.parallel.DistributedDataParallel(model)
        for step in range(2):
            ddp(torch.ones(2, 12)).sum().backward()
        return None
    elif name == "bad_mixed_precision":
        # DDP's mixed precision on CPU: upstream's root forward pre-hook records a torch.Event,
        # which the CPU backend refuses ("cpu backend doesn't support events.")
        from torch.nn.parallel.distributed import _MixedPrecision
        mp = _MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32, buffer_dtype=torch.bfloat16)
        ddp = nn.parallel.DistributedDataParallel(MLP(), mixed_precision=mp)
        ddp(torch.ones(2, 12)).float().sum().backward()
        return None
    else:
        raise ValueError(name)
    nn.parallel.DistributedDataParallel(model)
    return None


def main():
    dist.init_process_group("gloo")
    res = {}
    for name in CASES_ARG.split(","):
        failed = False
        try:
            kind = name.split("_")[0]
            res[name] = {"bad": bad_case, "coll": coll_case, "caught": caught_case, "meta": meta_case, "debug": debug_case,
                         "timing": timing_case}.get(kind, run_case)(name)
        except Exception as e:  # noqa: BLE001 - the test compares the exception with upstream's
            res[name] = {"error": type(e).__name__, "msg": str(e)[:3000]}
            failed = True
        with open(os.path.join(OUT, f"rank{RANK}.json"), "w") as f:
            json.dump(res, f)
        if failed:
            break   # the ranks' collectives may be out of step after an error
        dist.barrier()
    dist.destroy_process_group()


main()
