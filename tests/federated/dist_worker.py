"""One rank of the torch.distributed federated test. argv: rank world port aggregator rounds fault
Prints one JSON line: final global state and history (rank 0)."""
import json
import os
import sys

import torch
import torch.distributed as dist

from torchnative.nn import federated
from torchnative.nn.federated import toy

rank, world, port, aggname, rounds, fault = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                             sys.argv[4], int(sys.argv[5]), sys.argv[6])
agg = {"fedavg": lambda: federated.FedAvg(), "fedprox": lambda: federated.FedProx(proximal_mu=0.5),
       "fedadam": lambda: federated.FedAdam(eta=0.05), "fedyogi": lambda: federated.FedYogi(eta=0.05),
       "fedavg-half": lambda: federated.FedAvg(fraction=0.5, min_clients=2)}[aggname]()


def simulate():
    """The same rounds in one process, no torch.distributed: every client trained in turn from
    the global model, deltas summed in rank order in float64, divided by the examples."""
    g = toy.make_model(0)
    for rnd in range(1, rounds + 1):
        gs = {k: v.detach().clone() for k, v in g.state_dict().items()}
        total, acc = 0.0, {k: torch.zeros_like(v, dtype=torch.float64) for k, v in gs.items()}
        for r in range(world):
            m = toy.make_model(0)
            m.load_state_dict(gs)
            n, _ = federated.local_train(m, toy.partition(r, world), epochs=2, lr=0.1, batch_size=16,
                                         proximal_mu=agg.proximal_mu)
            for k, v in m.state_dict().items():
                acc[k] += (v.detach().to(torch.float64) - gs[k].to(torch.float64)) * n
            total += n
        new = agg.server_update(rnd, gs, {k: (acc[k] / total).to(gs[k].dtype) for k in gs})
        g.load_state_dict(new)
    return g


if rank < 0:
    print(json.dumps({"rank": rank, "state": toy.state_to_json(simulate().state_dict()), "history": []}))
    sys.exit(0)

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
dist.init_process_group("gloo", rank=rank, world_size=world)
model = toy.make_model(0)
data = toy.partition(rank, world)


def faulty(model, data, cfg):
    # the last rank misbehaves in round 2: NaN weights, or a state with a wrong shape
    n, _ = federated.local_train(model, data, epochs=cfg["local-epochs"], lr=cfg["lr"],
                                 proximal_mu=cfg["proximal-mu"])
    # fault "nan" / "shape": the last rank, round 2; "both": also the rank before it sends a wrong
    # shape in round 3
    kind = None
    if rank == world - 1 and cfg["server-round"] == 2:
        kind = "nan" if fault in ("nan", "both") else "shape"
    if rank == world - 2 and cfg["server-round"] == 3 and fault == "both":
        kind = "shape"
    if kind:
        st = {k: v.detach().clone() for k, v in model.state_dict().items()}
        if kind == "nan":
            st["0.weight"][0, 0] = float("nan")
        else:
            st["2.bias"] = torch.zeros(5)
        return st, n
    return n


engine = federated.Engine(model, rounds=rounds, aggregator=agg, data=data, local_epochs=2, lr=0.1,
                          batch_size=16, train_fn=faulty if fault != "none" else None)
hist = engine.participate()
# every rank has finished its last collective before any tears down its pairs (an upstream rank
# torn down while a peer was still in its last broadcast aborted once in CI: "terminate called
# without an active exception")
dist.barrier()
dist.destroy_process_group()
print(json.dumps({"rank": rank, "state": toy.state_to_json(model.state_dict()), "history": hist}), flush=True)
# ...and it aborted once more after the barrier, in a world of four upstream ranks (CI, 2026-12-03,
# same message): the abort comes from upstream's teardown, which is not what this worker tests, so
# the worker leaves without the interpreter's teardown once its result is out and its group is gone
sys.stderr.flush()
os._exit(0)
