"""The Flower transport (flwr 1.42, Message API): adapters between torch state_dicts and Flower
records, a ClientApp that trains the engine's model locally (on whatever torch the SuperNode's
Python has: torchnative in .venv), and a ServerApp running Flower's own strategy for the engine's
aggregator, guarded so that a bad reply (wrong keys or shapes, NaN/inf, non-positive weight) is
rejected and a node that never replies (dropped out, killed) is reported, while the round goes on
with the rest. Secure aggregation (SecAgg+) and fixed-clipping differential privacy are Flower's
own: secaggplus_mod + SecAggPlusWorkflow, fixedclipping_mod + DifferentialPrivacyClientSideFixedClipping.

Run configuration keys read by server_app (flwr run --run-config '...'; defaults from the Engine):
  rounds, local-epochs, lr, proximal-mu, aggregator (fedavg|fedprox|fedadam|fedyogi),
  fraction, min-nodes, round-timeout (s), secaggplus (bool), dp-clipping-norm (> 0 enables DP),
  dp-noise-multiplier, result-path (JSON file the ServerApp writes: final model and report).
Node configuration keys read by client_app (flower-supernode --node-config '...'):
  partition-id, num-partitions; for tests: fault / fault2 (nan|shape) + fault-round / fault2-round
  (corrupt the reply of that round), slow-round + marker + slow-seconds (write the marker file when
  that round's training starts, then linger so the SuperNode can be killed mid-round).
"""
import json
import logging
import os
import time

import numpy as np
import torch

from flwr.app import Array, ArrayRecord, ConfigRecord, Context, Message, MetricRecord, RecordDict
from flwr.clientapp import ClientApp
from flwr.serverapp import Grid, ServerApp
from flwr.serverapp import strategy as fl_strategy
from flwr.common.logger import log as _flwr_log

from .core import (FedAdam, FedAvg, FedProx, FedYogi, RejectedUpdate, validate_state,
                   validate_weight)

def _log(fmt, *args):
    """Into Flower's own log, so it reaches `flwr run --stream` / `flwr log`."""
    _flwr_log(logging.INFO, "[federated] " + fmt, *args)


# --------------------------------------------------------------------------------------------
# state_dict <-> records

def state_to_arrayrecord(state):
    """torch state_dict -> ArrayRecord (same keys, in order; values copied to numpy)."""
    return ArrayRecord({k: Array(np.ascontiguousarray(v.detach().cpu().numpy())) for k, v in state.items()})


def arrayrecord_to_state(record):
    """ArrayRecord -> dict name -> torch tensor (own memory)."""
    return {k: torch.from_numpy(np.array(a.numpy(), copy=True)) for k, a in record.items()}


def ndarrays_to_state(arrays, reference):
    """A list of numpy arrays in the reference state_dict's key order -> state dict."""
    keys = list(reference.keys())
    if len(arrays) != len(keys):
        raise RejectedUpdate("got %d arrays, the model has %d tensors" % (len(arrays), len(keys)))
    return {k: torch.from_numpy(np.array(a, copy=True)) for k, a in zip(keys, arrays)}


def _aggregator_from(name, engine, rc):
    name = str(rc.get("aggregator", name)).lower()
    agg = engine.aggregator
    frac = float(rc.get("fraction", agg.fraction))
    mn = int(rc.get("min-nodes", agg.min_clients))
    if name == "fedavg":
        return FedAvg(frac, mn)
    if name == "fedprox":
        return FedProx(float(rc.get("proximal-mu", getattr(agg, "proximal_mu", 0.01) or 0.01)), frac, mn)
    if name in ("fedadam", "fedyogi"):
        cls = FedAdam if name == "fedadam" else FedYogi
        kw = {k: getattr(agg, k) for k in ("eta", "beta_1", "beta_2", "tau") if hasattr(agg, k)}
        kw.update({k.replace("server-", "").replace("-", "_"): float(rc[k]) for k in
                   ("server-eta", "server-beta-1", "server-beta-2", "server-tau") if k in rc})
        return cls(fraction=frac, min_clients=mn, **kw)
    raise ValueError("unknown aggregator %r (fedavg, fedprox, fedadam, fedyogi)" % (name,))


def _agg_name(agg):
    return type(agg).__name__.lower()


# --------------------------------------------------------------------------------------------
# ClientApp

def _make_model(engine):
    m = engine.model
    return m() if callable(m) and not isinstance(m, torch.nn.Module) else m


def _load_data(engine, context):
    nc = context.node_config
    pid, nparts = int(nc.get("partition-id", 0)), int(nc.get("num-partitions", 1))
    d = engine.data
    return (d(pid, nparts) if callable(d) else d), pid


def _client_cfg(msg_cfg, context):
    cfg = dict(context.node_config)
    cfg.update({k: msg_cfg[k] for k in msg_cfg.keys()})
    return cfg


def _maybe_fault(state, cfg):
    """Testing hook (node config fault=nan|shape, fault-round=r): corrupt the reply."""
    rnd = int(cfg.get("server-round", 0))
    fault = ""
    for key in ("fault", "fault2"):
        if cfg.get(key) and int(cfg.get(key + "-round", 1)) == rnd:
            fault = str(cfg[key])
    if fault:
        state = {k: v.clone() for k, v in state.items()}
        k0 = next(iter(state))
        if fault == "nan":
            state[k0].view(-1)[0] = float("nan")
        elif fault == "shape":
            state[k0] = torch.zeros(tuple(state[k0].shape) + (2,))
    return state


def _slow_hook(cfg):
    """Testing hook (node config slow-round=r, marker=path): announce the round and linger, so a
    test can kill this SuperNode while it is mid-round."""
    if "slow-round" in cfg and int(cfg["slow-round"]) == int(cfg.get("server-round", 0)):
        with open(str(cfg["marker"]), "w") as f:
            f.write("started round %s\n" % cfg["server-round"])
        time.sleep(float(cfg.get("slow-seconds", 30)))


def _train_on(engine, model, data, cfg, rnd):
    out = engine._train_local(rnd, model=model, data=data, config=cfg)
    loss = float("nan")
    if isinstance(out, tuple) and len(out) >= 2 and isinstance(out[0], dict):
        state, n = out[0], out[1]
    else:
        state, n = {k: v.detach() for k, v in model.state_dict().items()}, out
    if isinstance(n, tuple):
        n, loss = n
    return state, n, loss


class _TorchClientApp(ClientApp):
    """ClientApp that picks the plain Message-API handlers or the SecAgg+ (legacy fit) path from
    the run config at call time, so one app module serves every run."""

    def __init__(self, engine):
        super().__init__()
        self._engine = engine

        @self.train()
        def _train(msg, context):
            return self._tn_train(msg, context)

        @self.evaluate()
        def _evaluate(msg, context):
            return self._tn_evaluate(msg, context)

        self._secure_app = None
        self._dp_mods = None

    def __call__(self, message, context):
        rc = context.run_config
        if bool(rc.get("secaggplus", False)):
            if self._secure_app is None:
                self._secure_app = _secure_client_app(self._engine)
            return self._secure_app(message=message, context=context)
        if float(rc.get("dp-clipping-norm", 0.0)) > 0:
            from flwr.clientapp.mod import fixedclipping_mod
            if self._dp_mods is None:
                self._dp_mods = ClientApp(mods=[fixedclipping_mod])
                self._dp_mods.train()(lambda msg, ctx: self._tn_train(msg, ctx))
                self._dp_mods.evaluate()(lambda msg, ctx: self._tn_evaluate(msg, ctx))
            return self._dp_mods(message=message, context=context)
        return super().__call__(message=message, context=context)

    def _tn_train(self, msg, context):
        engine = self._engine
        cfg = _client_cfg(msg.content["config"], context)
        rnd = int(cfg.get("server-round", 0))
        model = _make_model(engine)
        model.load_state_dict(arrayrecord_to_state(msg.content["arrays"]))
        data, pid = _load_data(engine, context)
        _slow_hook(cfg)
        state, n, loss = _train_on(engine, model, data, cfg, rnd)
        state = _maybe_fault(state, cfg)
        metrics = MetricRecord({"num-examples": int(n), "train-loss": float(loss), "partition-id": pid})
        content = RecordDict({"arrays": state_to_arrayrecord(state), "metrics": metrics})
        return Message(content=content, reply_to=msg)

    def _tn_evaluate(self, msg, context):
        from .core import evaluate
        engine = self._engine
        model = _make_model(engine)
        model.load_state_dict(arrayrecord_to_state(msg.content["arrays"]))
        data, pid = _load_data(engine, context)
        loss, acc = evaluate(model, data, engine.loss_fn)
        metrics = MetricRecord({"num-examples": int(data[0].shape[0]), "eval-loss": loss, "eval-acc": acc})
        return Message(content=RecordDict({"metrics": metrics}), reply_to=msg)


def client_app(engine):
    """The ClientApp for `engine` (model factory, data loader (partition_id, num_partitions),
    local training settings)."""
    return _TorchClientApp(engine)


def _secure_client_app(engine):
    """SecAgg+ runs in Flower's legacy fit path (its mod speaks the FitIns/FitRes format)."""
    from flwr.client import NumPyClient
    from flwr.client.mod import secaggplus_mod

    class _Client(NumPyClient):
        def __init__(self, context):
            self.context = context

        def fit(self, parameters, config):
            model = _make_model(engine)
            ref = model.state_dict()
            model.load_state_dict(ndarrays_to_state(parameters, ref))
            data, pid = _load_data(engine, self.context)
            cfg = _client_cfg(config, self.context)
            state, n, loss = _train_on(engine, model, data, cfg, int(cfg.get("server-round", 0)))
            return ([state[k].detach().numpy() for k in ref], int(n),
                    {"train-loss": float(loss), "partition-id": pid})

    def client_fn(context):
        return _Client(context).to_client()

    return ClientApp(client_fn=client_fn, mods=[secaggplus_mod])


# --------------------------------------------------------------------------------------------
# ServerApp

class _GridWithout:
    """A Grid proxy hiding nodes that dropped out earlier in the run from sampling."""

    def __init__(self, grid, gone):
        self._grid, self._gone = grid, gone

    def get_node_ids(self):
        return [n for n in self._grid.get_node_ids() if n not in self._gone]

    def __getattr__(self, name):
        return getattr(self._grid, name)


def _guarded(base):
    """Subclass of Flower strategy `base` that validates every reply before aggregation and
    reports results, failures, rejections and dropouts per round (self.report)."""

    class Guarded(base):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self.report, self._gone, self._sent, self._global = {}, set(), [], None

        def configure_train(self, server_round, arrays, config, grid):
            self._global = {k: a.numpy() for k, a in arrays.items()}
            if self._gone:
                # do not wait for nodes that dropped out: require only the ones still there
                if not hasattr(self, "_min_available0"):
                    self._min_available0 = self.min_available_nodes
                self.min_available_nodes = max(self.min_train_nodes, self._min_available0 - len(self._gone))
            msgs = list(super().configure_train(server_round, arrays, config, _GridWithout(grid, self._gone)))
            self._sent = [m.metadata.dst_node_id for m in msgs]
            return msgs

        def configure_evaluate(self, server_round, arrays, config, grid):
            return super().configure_evaluate(server_round, arrays, config, _GridWithout(grid, self._gone))

        def aggregate_train(self, server_round, replies):
            replies = list(replies)
            keep, rejected, failed, unattributed = [], {}, {}, []
            for msg in replies:
                node = msg.metadata.src_node_id
                if msg.has_error():
                    keep.append(msg)
                    if node in self._sent:
                        failed[node] = str(msg.error.reason)
                    else:  # e.g. the SuperLink answering for a node that stopped heartbeating
                        unattributed.append(str(msg.error.reason))
                    continue
                try:
                    recs = list(msg.content.array_records.values())
                    mets = list(msg.content.metric_records.values())
                    if len(recs) != 1 or len(mets) != 1:
                        raise RejectedUpdate("expected one ArrayRecord and one MetricRecord, got %d and %d"
                                             % (len(recs), len(mets)))
                    validate_weight(mets[0].get(self.weighted_by_key), "node %d" % node)
                    validate_state({k: a.numpy() for k, a in recs[0].items()}, self._global, "node %d" % node)
                    keep.append(msg)
                except (RejectedUpdate, ValueError, TypeError) as e:
                    rejected[node] = str(e)
                    _log("round %d: rejected the reply of node %d: %s", server_round, node, e)
            answered = {m.metadata.src_node_id for m in replies}
            dropped = [n for n in self._sent if n not in answered]
            for i, n in enumerate(dropped):
                why = unattributed[i] if i < len(unattributed) else "no reply within the round timeout"
                failed[n] = why
                _log("round %d: node %d dropped out (%s); left out of later rounds", server_round, n, why)
            self._gone.update(dropped)
            ok = [m for m in keep if not m.has_error()]
            # a fixed order (by partition id when clients send it) makes the float sums reproducible
            ok.sort(key=lambda m: (next(iter(m.content.metric_records.values())).get("partition-id", 0),
                                   m.metadata.src_node_id))
            rep = {"sent": len(self._sent), "results": len(ok), "failures": len(failed),
                   "failed": {str(k): v for k, v in failed.items()}, "dropped": dropped,
                   "rejected": {str(k): v for k, v in rejected.items()}}
            self.report[server_round] = rep
            _log("round %d: %d results, %d failures (%d dropped out), %d rejected",
                 server_round, rep["results"], rep["failures"], len(dropped), len(rejected))
            if not ok:
                return None, None
            return super().aggregate_train(server_round, ok + [m for m in keep if m.has_error()])

    Guarded.__name__ = Guarded.__qualname__ = "Guarded" + base.__name__
    return Guarded


def make_strategy(agg, n_nodes=None):
    """Flower strategy for aggregator `agg` (guarded, see _guarded)."""
    common = dict(fraction_train=agg.fraction, fraction_evaluate=0.0, min_train_nodes=agg.min_clients,
                  min_available_nodes=n_nodes or agg.min_clients)
    if isinstance(agg, FedProx):
        return _guarded(fl_strategy.FedProx)(proximal_mu=agg.proximal_mu, **common)
    if isinstance(agg, FedYogi):
        return _guarded(fl_strategy.FedYogi)(**common, **agg.flower_strategy_kwargs())
    if isinstance(agg, FedAdam):
        return _guarded(fl_strategy.FedAdam)(**common, **agg.flower_strategy_kwargs())
    return _guarded(fl_strategy.FedAvg)(**common)


class _TorchServerApp(ServerApp):
    def __init__(self, engine):
        super().__init__()
        self._engine = engine

        @self.main()
        def _main(grid, context):
            return self._tn_main(grid, context)

    def _tn_main(self, grid, context):
        engine, rc = self._engine, context.run_config
        agg = _aggregator_from(_agg_name(engine.aggregator), engine, rc)
        rounds = int(rc.get("rounds", engine.rounds))
        n_nodes = int(rc.get("min-available-nodes", max(agg.min_clients, 1)))
        timeout = float(rc.get("round-timeout", 600.0))
        model = _make_model(engine)
        init = model.state_dict()
        train_cfg = ConfigRecord({"lr": float(rc.get("lr", engine.lr)),
                                  "local-epochs": int(rc.get("local-epochs", engine.local_epochs))})
        t0 = time.time()
        if bool(rc.get("secaggplus", False)):
            final, report = _run_secaggplus(grid, context, agg, rounds, n_nodes, timeout, init, train_cfg, rc)
        else:
            strategy = make_strategy(agg, n_nodes)
            outer = strategy
            clip = float(rc.get("dp-clipping-norm", 0.0))
            if clip > 0:
                outer = fl_strategy.DifferentialPrivacyClientSideFixedClipping(
                    strategy, noise_multiplier=float(rc.get("dp-noise-multiplier", 0.0)),
                    clipping_norm=clip, num_sampled_clients=int(rc.get("dp-sampled-clients", n_nodes)))
            history = {}

            def keep(server_round, arrays):  # the global model after every round, for the report
                history[server_round] = {k: a.numpy().astype(np.float64).reshape(-1).tolist()
                                         for k, a in arrays.items()}
                return None

            result = outer.start(grid=grid, initial_arrays=state_to_arrayrecord(init), num_rounds=rounds,
                                 timeout=timeout, train_config=train_cfg, evaluate_fn=keep)
            final = arrayrecord_to_state(result.arrays)
            report = strategy.report
            for r, st in history.items():
                if r > 0:  # round 0 is the initial model
                    report.setdefault(r, {})["global"] = st
        out = {"state": {k: v.to(torch.float64).reshape(-1).tolist() for k, v in final.items()},
               "report": {str(k): v for k, v in report.items()}, "aggregator": repr(agg),
               "seconds": time.time() - t0}
        path = rc.get("result-path")
        if path:
            tmp = str(path) + ".tmp"
            with open(tmp, "w") as f:
                json.dump(out, f)
            os.replace(tmp, str(path))
        _log("done: %d rounds, report %s", rounds, out["report"])


def server_app(engine):
    """The ServerApp for `engine` (rounds, aggregator and training settings; the run config can
    override them, see the module docstring)."""
    return _TorchServerApp(engine)


def _run_secaggplus(grid, context, agg, rounds, n_nodes, timeout, init, train_cfg, rc):
    """FedAvg with SecAgg+ masking: Flower's legacy DefaultWorkflow + SecAggPlusWorkflow."""
    from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server import LegacyContext, ServerConfig
    from flwr.server.strategy import FedAvg as LegacyFedAvg
    from flwr.server.workflow import DefaultWorkflow, SecAggPlusWorkflow

    keys = list(init.keys())
    report = {}

    def fit_cfg(server_round):
        return {"lr": train_cfg["lr"], "local-epochs": train_cfg["local-epochs"], "server-round": server_round}

    history = {}

    def keep(server_round, ndarrays, config):  # the global model after every round
        if server_round > 0:
            history[server_round] = {k: np.asarray(a, dtype=np.float64).reshape(-1).tolist()
                                     for k, a in zip(keys, ndarrays)}
        return None

    strategy = LegacyFedAvg(fraction_fit=agg.fraction, fraction_evaluate=0.0, min_fit_clients=agg.min_clients,
                            min_available_clients=n_nodes, on_fit_config_fn=fit_cfg, evaluate_fn=keep,
                            initial_parameters=ndarrays_to_parameters([init[k].detach().numpy() for k in keys]))
    ctx = LegacyContext(context=context, config=ServerConfig(num_rounds=rounds, round_timeout=timeout),
                        strategy=strategy)
    fit = SecAggPlusWorkflow(num_shares=int(rc.get("secagg-shares", n_nodes)),
                             reconstruction_threshold=int(rc.get("secagg-threshold", max(2, n_nodes - 1))),
                             max_weight=float(rc.get("secagg-max-weight", 1000.0)),
                             clipping_range=float(rc.get("secagg-clipping-range", 8.0)),
                             quantization_range=int(rc.get("secagg-quantization-range", 4194304)),
                             timeout=float(rc.get("secagg-timeout", timeout)))
    DefaultWorkflow(fit_workflow=fit)(grid, ctx)
    from flwr.server.workflow.constant import MAIN_PARAMS_RECORD
    rec = ctx.state.array_records[MAIN_PARAMS_RECORD]
    final = {k: torch.from_numpy(np.array(a.numpy(), copy=True)) for k, a in zip(keys, rec.values())}
    fit_hist = ctx.history.metrics_distributed_fit
    report = {r: {"secaggplus": True} for r in range(1, rounds + 1)}
    for r, st in history.items():
        report.setdefault(r, {})["global"] = st
    for name, series in fit_hist.items():
        for r, v in series:
            report.setdefault(r, {})[name] = v
    return final, report
