"""Transport-independent pieces of torchnative.nn.federated: aggregators, the local training step,
and validation of a client's contribution. Pure Python over torch: the same code runs on
torchnative and on upstream torch."""
import math

import torch


class RejectedUpdate(ValueError):
    """A client's contribution was refused (wrong keys or shapes, non-finite values, bad weight)."""


# ---------------------------------------------------------------------------------------------
# Aggregators. Each describes (a) what the client adds to its local loss and (b) how the server
# turns the weighted average of the clients' deltas into the next global model. The Flower
# transport maps each one onto Flower's own strategy of the same name.

class FedAvg:
    """Federated averaging (McMahan et al. 2017): global += sum_i n_i * delta_i / sum_i n_i,
    n_i the number of examples client i trained on."""
    proximal_mu = 0.0

    def __init__(self, fraction=1.0, min_clients=1):
        if not 0.0 < fraction <= 1.0:
            raise ValueError("fraction must be in (0, 1], got %r" % (fraction,))
        self.fraction = float(fraction)
        self.min_clients = int(min_clients)

    def server_update(self, server_round, global_params, avg_delta):
        """global_params / avg_delta: dict name -> tensor. Returns the next global parameters."""
        return {k: global_params[k] + avg_delta[k] for k in global_params}

    def flower_strategy_kwargs(self):
        return {}

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % kv for kv in sorted(vars(self).items()) if not kv[0].startswith("_")))


class FedProx(FedAvg):
    """FedAvg with the proximal term mu/2 * ||w - w_global||^2 added to every client's local loss
    (Li et al. 2020)."""

    def __init__(self, proximal_mu=0.01, fraction=1.0, min_clients=1):
        super().__init__(fraction, min_clients)
        if proximal_mu < 0:
            raise ValueError("proximal_mu must be >= 0, got %r" % (proximal_mu,))
        self.proximal_mu = float(proximal_mu)

    def flower_strategy_kwargs(self):
        return {"proximal_mu": self.proximal_mu}


class FedOpt(FedAvg):
    """Adaptive server optimizers (Reddi et al. 2021): the averaged delta is a pseudo-gradient
    fed to a server-side optimizer. m = b1*m + (1-b1)*delta; v per subclass;
    w += eta * m / (sqrt(v) + tau). FedAdam uses Flower's bias-corrected step size."""

    def __init__(self, eta=1e-1, beta_1=0.9, beta_2=0.99, tau=1e-9, fraction=1.0, min_clients=1):
        super().__init__(fraction, min_clients)
        self.eta, self.beta_1, self.beta_2, self.tau = float(eta), float(beta_1), float(beta_2), float(tau)
        self._m, self._v = None, None

    def _v_update(self, v, d):
        raise NotImplementedError

    def _step(self, server_round):
        return self.eta

    def server_update(self, server_round, global_params, avg_delta):
        if self._m is None:
            self._m = {k: torch.zeros_like(d) for k, d in avg_delta.items()}
            self._v = {k: torch.zeros_like(d) for k, d in avg_delta.items()}
        self._m = {k: self.beta_1 * self._m[k] + (1.0 - self.beta_1) * avg_delta[k] for k in avg_delta}
        self._v = {k: self._v_update(self._v[k], avg_delta[k]) for k in avg_delta}
        eta = self._step(server_round)
        return {k: global_params[k] + eta * self._m[k] / (self._v[k].sqrt() + self.tau)
                for k in global_params}

    def flower_strategy_kwargs(self):
        return {"eta": self.eta, "beta_1": self.beta_1, "beta_2": self.beta_2, "tau": self.tau}


class FedAdam(FedOpt):
    def _v_update(self, v, d):
        return self.beta_2 * v + (1.0 - self.beta_2) * d * d

    def _step(self, server_round):
        return (self.eta * math.sqrt(1.0 - self.beta_2 ** (server_round + 1.0))
                / (1.0 - self.beta_1 ** (server_round + 1.0)))


class FedYogi(FedOpt):
    def _v_update(self, v, d):
        d2 = d * d
        return v - (1.0 - self.beta_2) * d2 * torch.sign(v - d2)


# ---------------------------------------------------------------------------------------------
# Validation of a contribution against the global model it was computed from.

def validate_state(state, reference, what="update"):
    """Raise RejectedUpdate naming the first problem: missing/unexpected keys, a shape or dtype
    that differs from the global model's, or a non-finite value. state / reference: name ->
    tensor or numpy array."""
    missing = [k for k in reference if k not in state]
    extra = [k for k in state if k not in reference]
    if missing or extra:
        raise RejectedUpdate("%s has wrong keys: missing %s, unexpected %s" % (what, missing, extra))
    for k, ref in reference.items():
        v = state[k]
        vshape, rshape = tuple(v.shape), tuple(ref.shape)
        if vshape != rshape:
            raise RejectedUpdate("%s: %r has shape %s, the global model's is %s" % (what, k, list(vshape), list(rshape)))
        t = v if isinstance(v, torch.Tensor) else torch.as_tensor(v)
        if t.is_floating_point():
            bad = int((~torch.isfinite(t)).sum())
            if bad:
                raise RejectedUpdate("%s: %r has %d non-finite value(s) (NaN or inf)" % (what, k, bad))


def validate_weight(n, what="update"):
    if not isinstance(n, (int, float)) or isinstance(n, bool) or not math.isfinite(n) or n <= 0:
        raise RejectedUpdate("%s: number of examples must be a positive finite number, got %r" % (what, n))


# ---------------------------------------------------------------------------------------------
# Local training.

def float_state(model):
    """The model's trainable state as name -> detached tensor (parameters and float buffers)."""
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def local_train(model, data, epochs=1, lr=0.1, batch_size=None, loss_fn=None, proximal_mu=0.0,
                optimizer=None, momentum=0.0):
    """Train `model` in place on `data` ((x, y) tensors, or an iterable of (x, y) batches) for
    `epochs` epochs with SGD (or the given optimizer factory); with proximal_mu > 0 the FedProx
    term mu/2 * ||w - w_start||^2 is added to the loss. Returns (number of examples, mean loss of
    the last epoch)."""
    loss_fn = loss_fn or torch.nn.functional.cross_entropy
    opt = optimizer(model.parameters()) if optimizer else torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    start = [p.detach().clone() for p in model.parameters()] if proximal_mu > 0 else None
    if isinstance(data, (tuple, list)) and len(data) == 2 and isinstance(data[0], torch.Tensor):
        x, y = data
        bs = batch_size or x.shape[0]
        batches = [(x[i:i + bs], y[i:i + bs]) for i in range(0, x.shape[0], bs)]
    else:
        batches = list(data)
    n = sum(int(b[0].shape[0]) for b in batches)
    model.train()
    last = 0.0
    for _ in range(epochs):
        total = 0.0
        for xb, yb in batches:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            if start is not None:
                prox = sum(((p - s) ** 2).sum() for p, s in zip(model.parameters(), start))
                loss = loss + (proximal_mu / 2.0) * prox
            loss.backward()
            opt.step()
            total += float(loss.detach()) * int(xb.shape[0])
        last = total / max(n, 1)
    return n, last


def evaluate(model, data, loss_fn=None):
    """(mean loss, accuracy) of a classifier on (x, y)."""
    loss_fn = loss_fn or torch.nn.functional.cross_entropy
    x, y = data
    model.eval()
    with torch.no_grad():
        out = model(x)
        return float(loss_fn(out, y)), float((out.argmax(1) == y).float().mean())
