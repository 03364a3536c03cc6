"""torchnative.nn.federated: federated learning over torch, two transports behind one API.

    from torchnative.nn import federated
    engine = federated.Engine(model, rounds=3, aggregator=federated.FedAvg(), data=(x, y))
    engine.participate()          # local epochs, then contribute a delta

transport="distributed" (default): every rank of the default (or given) torch.distributed process
group calls participate(); see distributed.py. transport="flower": engine.client_app() and
engine.server_app() give a Flower ClientApp / ServerApp for real SuperLink / SuperNode processes;
see flower.py. Aggregators: FedAvg, FedProx, FedAdam, FedYogi (core.py). Pure Python over torch:
runs on torchnative and on upstream torch alike. docs/federated.md has the details.
"""
import sys

from .core import (FedAvg, FedProx, FedOpt, FedAdam, FedYogi, RejectedUpdate, validate_state,
                   validate_weight, local_train, evaluate)

__all__ = ["Engine", "FedAvg", "FedProx", "FedAdam", "FedYogi", "RejectedUpdate", "validate_state",
           "local_train", "evaluate"]


class Engine:
    """model: an nn.Module (or, for Flower, a zero-argument factory returning one, since each
    ClientApp process builds its own). data: (x, y) tensors, an iterable of batches, or (Flower)
    a callable (partition_id, num_partitions) -> data. train_fn(model, data, config) replaces the
    built-in local SGD; it returns the number of examples, or (state_dict, number of examples)."""

    def __init__(self, model, rounds=1, aggregator=None, data=None, local_epochs=1, lr=0.1,
                 batch_size=None, loss_fn=None, optimizer=None, momentum=0.0, transport="distributed",
                 train_fn=None, group=None, root=0, seed=0, log=None):
        if int(rounds) < 1:
            raise ValueError("rounds must be >= 1, got %r" % (rounds,))
        if transport not in ("distributed", "flower"):
            raise ValueError("transport must be 'distributed' or 'flower', got %r" % (transport,))
        self.model, self.rounds = model, int(rounds)
        self.aggregator = aggregator if aggregator is not None else FedAvg()
        self.data, self.local_epochs, self.lr, self.batch_size = data, int(local_epochs), lr, batch_size
        self.loss_fn, self.optimizer, self.momentum = loss_fn, optimizer, momentum
        self.transport, self.train_fn, self.group, self.root, self.seed = transport, train_fn, group, root, seed
        self.log = log or (lambda s: print("[federated] " + s, file=sys.stderr, flush=True))
        self.history = []

    def _train_local(self, rnd, model=None, data=None, config=None):
        model = model if model is not None else self.model
        data = data if data is not None else self.data
        cfg = {"server-round": rnd, "local-epochs": self.local_epochs, "lr": self.lr,
               "proximal-mu": self.aggregator.proximal_mu}
        cfg.update(config or {})
        if self.train_fn is not None:
            return self.train_fn(model, data, cfg)
        return local_train(model, data, epochs=int(cfg["local-epochs"]), lr=float(cfg["lr"]),
                           batch_size=self.batch_size, loss_fn=self.loss_fn,
                           proximal_mu=float(cfg["proximal-mu"]), optimizer=self.optimizer,
                           momentum=self.momentum)

    def participate(self):
        """Run every round as one participant. torch.distributed: call on every rank; returns the
        per-round history (selected, results, rejected, num_examples) and leaves the final global
        model in self.model on every rank."""
        if self.transport == "distributed":
            from . import distributed
            self.history = distributed.run(self)
            return self.history
        raise RuntimeError("with transport='flower' the rounds are driven by the SuperLink: serve "
                           "engine.client_app() from SuperNodes and engine.server_app() from the "
                           "SuperLink (torchnative.nn.federated.flower)")

    def client_app(self, **kw):
        from . import flower
        return flower.client_app(self, **kw)

    def server_app(self, **kw):
        from . import flower
        return flower.server_app(self, **kw)
