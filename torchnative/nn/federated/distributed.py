"""The torch.distributed transport: every rank is a client; rank `root` also keeps the server
state. A round: the root broadcasts the global model; every selected rank trains locally and
validates its own delta; the ranks all-reduce (1) a per-rank table of example counts (negative =
rejected, 0 = not selected) and (2) the example-weighted sum of the deltas (float64, zeros from
ranks that do not contribute); the root applies the aggregator's server update. Uses only
broadcast and all_reduce, so any process group (gloo) works, including a world that mixes
torchnative and upstream-torch ranks."""
import torch
import torch.distributed as dist

from .core import RejectedUpdate, validate_state, validate_weight


def _float_keys(state):
    return [k for k, v in state.items() if v.is_floating_point()]


def run(engine):
    group = engine.group
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    root = engine.root
    model, agg = engine.model, engine.aggregator
    keys = _float_keys(model.state_dict())
    history = []
    for rnd in range(1, engine.rounds + 1):
        # 1. broadcast the global model from the root
        state = model.state_dict()
        for k in state:
            buf = state[k].detach().clone().contiguous()
            dist.broadcast(buf, src=root, group=group)
            with torch.no_grad():
                state[k].copy_(buf)
        global_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        # 2. client selection: the root draws, seeded by round, and broadcasts the mask
        sel = torch.zeros(world, dtype=torch.float64)
        if rank == root:
            k_sel = max(int(world * agg.fraction), min(agg.min_clients, world))
            g = torch.Generator().manual_seed(engine.seed * 1000003 + rnd)
            sel[torch.randperm(world, generator=g)[:k_sel]] = 1.0
        dist.broadcast(sel, src=root, group=group)
        selected = bool(sel[rank] > 0)
        # 3. local training and self-validation
        n, reason, loss = 0.0, None, float("nan")
        delta = {k: torch.zeros_like(global_state[k], dtype=torch.float64) for k in keys}
        if selected:
            try:
                out = engine._train_local(rnd)
                if isinstance(out, tuple) and len(out) >= 2 and isinstance(out[0], dict):
                    local, n = out[0], out[1]
                else:
                    local, n = {k: v.detach() for k, v in model.state_dict().items()}, out
                if isinstance(n, tuple):
                    n, loss = n
                validate_weight(n, "rank %d" % rank)
                validate_state({k: local[k] for k in local if k in keys or k not in global_state},
                               {k: global_state[k] for k in keys}, "rank %d" % rank)
                n = float(n)
                delta = {k: local[k].detach().to(torch.float64) - global_state[k].to(torch.float64) for k in keys}
            except RejectedUpdate as e:
                reason, n = str(e), -1.0
                engine.log("round %d: rank %d: update rejected: %s" % (rnd, rank, reason))
            # the local model goes back to the global one: the next broadcast overwrites it anyway
        # 4. table of example counts, then the weighted sum of deltas
        table = torch.zeros(world, dtype=torch.float64)
        table[rank] = n
        dist.all_reduce(table, group=group)
        w = n if n > 0 else 0.0
        flat = torch.cat([(delta[k] * w).reshape(-1) for k in keys]) if keys else torch.zeros(0, dtype=torch.float64)
        if w == 0.0:
            flat = torch.zeros_like(flat)
        dist.all_reduce(flat, group=group)
        total = float(table.clamp(min=0).sum())
        contributed = [r for r in range(world) if table[r] > 0]
        rejected = [r for r in range(world) if table[r] < 0]
        rec = {"round": rnd, "selected": [r for r in range(world) if sel[r] > 0],
               "results": contributed, "rejected": rejected, "num_examples": total}
        if rank == root and rejected:
            engine.log("round %d: %d result(s), %d rejected (ranks %s)" % (rnd, len(contributed), len(rejected), rejected))
        # 5. server update on the root (its result reaches everyone with the next broadcast)
        if len(contributed) >= max(1, min(agg.min_clients, world)) and total > 0:
            avg, off = {}, 0
            for k in keys:
                m = global_state[k].numel()
                avg[k] = (flat[off:off + m] / total).reshape(global_state[k].shape).to(global_state[k].dtype)
                off += m
            new = agg.server_update(rnd, {k: global_state[k] for k in keys}, avg)
            rec["updated"] = True
        else:
            new = {k: global_state[k] for k in keys}
            rec["updated"] = False
            if rank == root:
                engine.log("round %d: too few results (%d < %d): global model unchanged" % (rnd, len(contributed), agg.min_clients))
        with torch.no_grad():
            st = model.state_dict()
            for k in st:
                st[k].copy_(new[k] if k in new else global_state[k])
        history.append(rec)
    # final broadcast so every rank ends with the root's global model
    st = model.state_dict()
    for k in st:
        buf = st[k].detach().clone().contiguous()
        dist.broadcast(buf, src=root, group=group)
        with torch.no_grad():
            st[k].copy_(buf)
    return history
