"""The wrapper: a model adapted as a weight delta over frozen base weights.

Every adapted tensor w of the wrapped model is served as  w = base + delta:  `base` is the model's
own parameter, never written by adaptation (only merge() and a rebase from on_sync() write it);
`delta` is a separate leaf tensor the method's optimizer updates. Forward passes substitute
base + delta through torch.func.functional_call, so the wrapped model's parameters and buffers
are never modified (BatchNorm running statistics included: methods that use batch statistics
switch tracking off for the call instead of overwriting the buffers). A fresh delta is -0.0 in
every element, so base + delta == base bit for bit (x + -0.0 is x for every x, signed zeros
included): before any step, after reset() and after merge() the served weights are exactly
the base weights.
"""
import contextlib
import hashlib
import os
from collections.abc import Mapping

import torch
from torch import nn
from torch.func import functional_call

DELTA_FORMAT = "torchnative.adapt.delta/1"


class _Slot:
    """One adapted tensor: its name in the wrapper's namespace, the module path and local name
    it lives under, the base parameter (the model's own) and its delta."""
    __slots__ = ("name", "base", "delta")

    def __init__(self, name, base):
        self.name, self.base = name, base
        self.delta = torch.full_like(base.detach(), -0.0).requires_grad_(True)


class Adapted(nn.Module):
    """A model served with test-time adaptation. Use wrap(model, method=...)."""

    def __init__(self, model, method, store=None, user=None):
        super().__init__()
        from .methods import Method
        if not isinstance(model, nn.Module):
            raise TypeError("adapt.wrap: model must be a torch.nn.Module, got %s" % type(model).__name__)
        if isinstance(method, type) and issubclass(method, Method):
            raise TypeError("adapt.wrap: method must be an instance, e.g. method=adapt.%s(), not the "
                            "class itself" % method.__name__)
        if not isinstance(method, Method):
            raise TypeError("adapt.wrap: method must be an adapt method (adapt.Tent(), adapt.EATA(), "
                            "adapt.SAR(), adapt.TTT(...)), got %s" % type(method).__name__)
        if store is not None and not isinstance(store, (str, os.PathLike)):
            raise TypeError("adapt.wrap: store must be a directory path or None, got %s" % type(store).__name__)
        _check_user(user)
        if getattr(method, "_bound", False):
            raise ValueError("adapt.wrap: this %s instance already adapts another model; create a new "
                             "one per wrapped model (it holds that model's adaptation state)" % type(method).__name__)
        self.model = model
        self.extra = nn.ModuleDict(method.extra_modules())
        for k in self.extra:
            if any(n == k or n.startswith(k + ".") for n, _ in model.named_parameters()):
                raise ValueError("adapt.wrap: the model already has parameters under %r, the name "
                                 "of the method's extra module" % k)
        self.method = method
        names = method.select(self)
        params = dict(self._named_base())
        if not names:
            raise ValueError("adapt.wrap: %s found no parameters to adapt in %s"
                             % (type(method).__name__, type(model).__name__))
        for n in names:
            p = params[n]
            if not p.is_floating_point():
                raise TypeError("adapt.wrap: parameter %s has dtype %s; only floating tensors adapt" % (n, p.dtype))
        self._slots = [_Slot(n, params[n]) for n in names]
        self.optimizer = method.make_optimizer([s.delta for s in self._slots])
        self._fingerprint = None
        self.mode = "offline"
        self.training = False
        self.store = os.fspath(store) if store is not None else None
        self.user = user
        self.stats = dict(batches=0, samples=0, steps=0, rollbacks=0, failures=0, resets=0, recoveries=0)
        method._bound = True
        method.attach(self)

    # ---- modes ----------------------------------------------------------------------------
    def online(self):
        """Adapt while serving: each forward adapts on its batch and predicts, as the method
        defines (Tent, EATA, SAR predict from the forward pass that computed the adaptation loss,
        as the published code does; TTT updates first, then predicts)."""
        self.mode, self.training = "online", True
        return self

    def offline(self):
        """Serve base + delta without adapting (no gradient, no weight change)."""
        self.mode, self.training = "offline", False
        return self

    def train(self, mode=True):
        """train() is online(), eval() / train(False) is offline(); the wrapped model's own
        train/eval flags are left as they are (each call sets what the method needs and restores
        them afterwards)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        return self.online() if mode else self.offline()

    def _apply(self, fn, recurse=True):
        """.to(dtype / device), .double(), ...: the deltas follow their base tensors (values
        converted, the optimizer restarted)."""
        super()._apply(fn, recurse)
        for s in getattr(self, "_slots", ()):
            with torch.no_grad():
                d = fn(s.delta.detach())
            s.delta = d.detach().clone().requires_grad_(True)
        if getattr(self, "_slots", None):
            self._fingerprint = None
            self._fresh_optimizer()
        return self

    # ---- forward --------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        if self.mode == "offline":
            with torch.no_grad(), self._context(adapting=False):
                return self.method.predict(self, *args, **kwargs)
        if self.method.episodic:
            self.reset()
        before = [s.delta.detach().clone() for s in self._slots]
        try:
            with torch.enable_grad(), self._context(adapting=True):
                out = self.method.adapt(self, *args, **kwargs)
        except BaseException:
            self._restore(before)
            self.stats["failures"] += 1
            raise
        if not all(bool(torch.isfinite(s.delta).all()) for s in self._slots):
            # a step that leaves a non-finite delta is undone; the optimizer's moments go too
            self._restore(before)
            self.stats["rollbacks"] += 1
        self.stats["batches"] += 1
        x = args[0] if args else None
        self.stats["samples"] += int(x.shape[0]) if isinstance(x, torch.Tensor) and x.dim() else 1
        return out

    def run(self, path, *args, **kwargs):
        """Call the module at `path` ('' = the model, 'features' = model.features, 'aux_head' =
        a method's extra module) with the adapted tensors under it served as base + delta."""
        if path in self.extra:
            module, prefix = self.extra[path], path + "."
        else:
            module = self.model.get_submodule(path) if path else self.model
            prefix = path + "." if path else ""
        extra = () if path in self.extra else tuple(k + "." for k in self.extra)
        eff = {s.name[len(prefix):]: s.base + s.delta for s in self._slots
               if s.name.startswith(prefix) and not s.name.startswith(extra)}
        if not eff:
            return module(*args, **kwargs)
        return functional_call(module, eff, args, kwargs)

    @contextlib.contextmanager
    def _context(self, adapting):
        mods = list(self.model.modules()) + list(self.extra.modules())
        flags = [(m, m.training) for m in mods]
        grads = [(p, p.requires_grad) for p in list(self.model.parameters()) + list(self.extra.parameters())]
        for p, _ in grads:
            p.requires_grad_(False)  # frozen base: no gradient is ever computed for it
        try:
            with self.method.context(self, adapting):
                yield
        finally:
            for m, t in flags:
                m.training = t
            for p, g in grads:
                p.requires_grad_(g)

    def _named_base(self):
        yield from self.model.named_parameters()
        for k, m in self.extra.items():
            for n, p in m.named_parameters():
                yield k + "." + n, p

    # ---- the delta ------------------------------------------------------------------------
    def adapted_names(self):
        return [s.name for s in self._slots]

    def delta(self):
        """The adaptation: name -> delta tensor (detached copies), over the base weights."""
        return {s.name: s.delta.detach().clone() for s in self._slots}

    def base_fingerprint(self):
        """sha256 over the base weights (every parameter and buffer of the model and the
        method's extra modules: names, dtypes, shapes, bytes): a saved delta records it, and
        load_delta() refuses a delta made for other base weights. Computed at wrap() and after
        merge() / rebase(), the operations of the wrapper that write the base."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            for n, t in self.base_state_dict().items():
                b = t.detach().contiguous()
                h.update(("%s|%s|%s|" % (n, b.dtype, tuple(b.shape))).encode())
                h.update(b.reshape(-1).view(torch.uint8).numpy().tobytes())
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def save_delta(self, path):
        torch.save({"format": DELTA_FORMAT, "method": type(self.method).__name__,
                    "base_sha256": self.base_fingerprint(), "user": self.user,
                    "delta": self.delta()}, path)
        return path

    def load_delta(self, src, strict=True):
        """Load a delta (a path written by save_delta, or a name -> tensor mapping). strict: the
        names must be exactly the adapted ones and a file's base fingerprint must match."""
        if isinstance(src, (str, os.PathLike)):
            obj = torch.load(src, weights_only=True)
            if not isinstance(obj, Mapping) or obj.get("format") != DELTA_FORMAT:
                raise ValueError("load_delta: %s is not a %s file" % (os.fspath(src), DELTA_FORMAT))
            if strict and obj.get("base_sha256") not in (None, self.base_fingerprint()):
                raise ValueError("load_delta: this delta was made for different base weights (base "
                                 "fingerprint %s..., ours %s...)" % (str(obj["base_sha256"])[:12],
                                                                     self.base_fingerprint()[:12]))
            delta = obj["delta"]
        elif isinstance(src, Mapping):
            delta = src
        else:
            raise TypeError("load_delta: expected a path or a mapping of name -> tensor, got %s" % type(src).__name__)
        self._check_tensors(delta, {s.name: s.delta for s in self._slots}, "load_delta", strict)
        with torch.no_grad():
            for s in self._slots:
                if s.name in delta:
                    s.delta.copy_(delta[s.name])
        self._fresh_optimizer()
        return self

    def merge(self):
        """Fold the delta into the base (base <- base + delta, the same sum the forward serves,
        so predictions do not change), then start a fresh delta. reset() afterwards returns to
        the merged base."""
        with torch.no_grad():
            for s in self._slots:
                s.base.copy_(s.base + s.delta)
                s.delta.fill_(-0.0)
        self._fingerprint = None
        self._fresh_optimizer()
        return self

    def reset(self):
        """Back to the base weights, bit for bit: the delta becomes -0.0 (base + -0.0 == base),
        the optimizer's state and the method's running state (EATA's probability average, SAR's
        loss average) start afresh. The base was never written, whatever the steps did."""
        with torch.no_grad():
            for s in self._slots:
                s.delta.fill_(-0.0)
        self._fresh_optimizer()
        self.method.reset_state()
        self.stats["resets"] += 1
        return self

    def unwrap(self, merge=True):
        """The wrapped model, with the delta merged into it (merge=True) or as the base."""
        if merge:
            self.merge()
        return self.model

    def _restore(self, before):
        with torch.no_grad():
            for s, b in zip(self._slots, before):
                s.delta.copy_(b)
                s.delta.grad = None
        self._fresh_optimizer()

    def _fresh_optimizer(self):
        self.optimizer = self.method.make_optimizer([s.delta for s in self._slots])

    @staticmethod
    def _check_tensors(given, expected, who, strict):
        names = set(given)
        missing, unexpected = sorted(set(expected) - names), sorted(names - set(expected))
        if unexpected or (strict and missing):
            raise ValueError("%s: names do not match the adapted tensors (missing %s, unexpected %s)"
                             % (who, missing[:5], unexpected[:5]))
        for n, t in given.items():
            e = expected[n]
            if not isinstance(t, torch.Tensor):
                raise TypeError("%s: %s is a %s, not a tensor" % (who, n, type(t).__name__))
            if tuple(t.shape) != tuple(e.shape):
                raise ValueError("%s: %s has shape %s, expected %s" % (who, n, tuple(t.shape), tuple(e.shape)))
            if t.dtype != e.dtype:
                raise ValueError("%s: %s has dtype %s, expected %s" % (who, n, t.dtype, e.dtype))
            if t.is_floating_point() and not bool(torch.isfinite(t).all()):
                raise ValueError("%s: %s has non-finite values" % (who, n))

    # ---- lifetime events the host app raises ------------------------------------------------
    def _store_path(self, user):
        return os.path.join(self.store, "%s.delta.pt" % (user if user is not None else "default"))

    def on_background(self):
        """The app goes to the background. The delta is kept (in memory, and written to
        store/<user>.delta.pt when wrap(store=...) was given); the optimizer's moments are
        dropped to free memory; the serving mode is unchanged. Returns the file written or None."""
        self._fresh_optimizer()
        if self.store is None:
            return None
        os.makedirs(self.store, exist_ok=True)
        return self.save_delta(self._store_path(self.user))

    def on_user_switch(self, user=None):
        """Another user takes the device. A delta is personal: the current one is written to the
        store (when configured) under the current user, then discarded (reset() to the base); the
        new user's stored delta, if any, is loaded. Returns the path loaded from or None."""
        _check_user(user)
        if self.store is not None:
            os.makedirs(self.store, exist_ok=True)
            self.save_delta(self._store_path(self.user))
        self.reset()
        self.user = user
        if self.store is not None and os.path.exists(self._store_path(user)):
            self.load_delta(self._store_path(user))
            return self._store_path(user)
        return None

    def on_sync(self, handler):
        """A sync window: hands the delta to handler(delta, info) (e.g. the federated engine).
        info: method, user, base_sha256, samples and steps adapted. If the handler returns None
        nothing changes (the delta stays). If it returns a mapping, it is new base weights (a
        state_dict of the model, whole or partial, extra modules under their prefix, e.g. the
        aggregated global model): they replace the base, and the delta, now contributed, restarts
        from -0.0. If the handler raises, nothing changes and the exception propagates."""
        if not callable(handler):
            raise TypeError("on_sync: handler must be callable, got %s" % type(handler).__name__)
        info = dict(method=type(self.method).__name__, user=self.user, base_sha256=self.base_fingerprint(),
                    samples=self.stats["samples"], steps=self.stats["steps"])
        result = handler(self.delta(), info)
        if result is None:
            return None
        if not isinstance(result, Mapping):
            raise TypeError("on_sync: the handler returned %s; expected None or a mapping of new base "
                            "weights" % type(result).__name__)
        self.rebase(result)
        return result

    def base_state_dict(self):
        sd = dict(self.model.state_dict(keep_vars=True))
        for k, m in self.extra.items():
            sd.update({k + "." + n: v for n, v in m.state_dict(keep_vars=True).items()})
        return sd

    def rebase(self, state):
        """Replace (part of) the base weights with `state` (validated first: names, shapes,
        dtypes, finite values; nothing is written unless all pass), then reset()."""
        cur = self.base_state_dict()
        self._check_tensors(state, cur, "rebase", strict=False)
        with torch.no_grad():
            for n, t in state.items():
                cur[n].copy_(t)
        self._fingerprint = None
        self.reset()
        return self


def _check_user(user):
    if user is not None and not isinstance(user, str):
        raise TypeError("user must be a str or None, got %s" % type(user).__name__)
    if isinstance(user, str) and (not user or os.sep in user or user in (".", "..")):
        raise ValueError("user %r cannot name a delta file" % user)


def wrap(model, method, store=None, user=None):
    """Wrap `model` for test-time adaptation with `method` (an instance: adapt.Tent(), ...).
    store: optional directory where lifetime events keep per-user deltas. Starts offline()."""
    return Adapted(model, method, store=store, user=user)
