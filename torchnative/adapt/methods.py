"""Test-time adaptation methods, following the published algorithms and their reference code:

  Tent  Wang et al., ICLR 2021 (github.com/DequanWang/tent): entropy minimisation; only the
        affine parameters of normalisation layers adapt; BatchNorm uses the test batch's
        statistics. Defaults from its CIFAR-10-C configuration: Adam(lr=1e-3, betas=(0.9, 0.999)),
        1 step per batch, not episodic.
  EATA  Niu et al., ICML 2022 (github.com/mr-eggplant/EATA): Tent's loss on reliable samples
        (entropy < E0 = 0.4 ln C) that are not redundant (|cos(p, moving average of p)| < 0.05),
        re-weighted by 1 / exp(entropy - E0), plus an anti-forgetting Fisher regulariser
        alpha * sum F (theta - theta0)^2, F estimated on source samples with the model's own
        pseudo-labels. Defaults: SGD(lr=2.5e-4, momentum 0.9), alpha 2000, moving average 0.9.
  SAR   Niu et al., ICLR 2023 (github.com/mr-eggplant/SAR): entropy on reliable samples
        (entropy < 0.4 ln C), minimised with sharpness-aware minimisation (SAM, rho 0.05) on the
        normalisation affine parameters; a moving average of the second-pass loss below 0.2 is a
        collapse: the model is reset. Defaults: SGD(lr=2.5e-4, momentum 0.9).
  TTT   Sun et al., ICML 2020 (github.com/yueatsprograms/ttt_cifar_release): a self-supervised
        auxiliary head (rotation prediction, 4 classes) shares the feature extractor; at test time
        the extractor and the head take SGD steps on the rotation loss of the test batch, then the
        main head predicts. Defaults: SGD(lr=1e-3, no momentum), 1 step (TTT-Online when not
        episodic; episodic=True resets before each batch: standard TTT).
"""
import contextlib
import math
import numbers

import torch
import torch.nn.functional as F
from torch import nn

_BN = nn.modules.batchnorm._BatchNorm
NORM_TYPES = (_BN, nn.GroupNorm, nn.LayerNorm, nn.modules.instancenorm._InstanceNorm)


def softmax_entropy(x):
    """Entropy of the softmax distribution of logits x (rows), as the reference code computes it."""
    return -(x.softmax(1) * x.log_softmax(1)).sum(1)


def norm_parameters(model, exclude=()):
    """Names of the affine parameters (weight, bias) of normalisation layers in `model`, in
    named_parameters order; modules whose name starts with a prefix in `exclude` are skipped."""
    out = []
    for mn, m in model.named_modules():
        if not isinstance(m, NORM_TYPES):
            continue
        if any(mn == e or mn.startswith(e + ".") for e in exclude):
            continue
        for pn in ("weight", "bias"):
            p = m._parameters.get(pn)
            if p is not None:
                out.append((mn + "." + pn) if mn else pn)
    order = {n: i for i, (n, _) in enumerate(model.named_parameters())}
    return sorted((n for n in out if n in order), key=order.__getitem__)


def rotate_batch(x):
    """TTT's rotation task, 'expand' form: every image of x (N, C, H, W) at 0, 90, 180 and 270
    degrees, batch of 4N in that order, with labels 0..3 (the reference's rotate_batch 'expand')."""
    if not isinstance(x, torch.Tensor):
        raise TypeError("rotate_batch: expected a tensor, got %s" % type(x).__name__)
    if x.dim() != 4 or x.shape[2] != x.shape[3]:
        raise ValueError("rotate_batch: expected square images (N, C, H, H), got shape %s" % (tuple(x.shape),))
    r90 = x.flip(3).transpose(2, 3)
    r180 = x.flip(3).flip(2)
    r270 = x.transpose(2, 3).flip(3)
    n = x.shape[0]
    labels = torch.arange(4).reshape(4, 1).expand(4, n).reshape(-1)
    return torch.cat([x, r90, r180, r270]), labels


def _number(who, name, v, lo=None, lo_open=False, integer=False):
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(v, bool) or not isinstance(v, kind):
        raise TypeError("%s: %s must be %s, got %s" % (who, name, "an int" if integer else "a number", type(v).__name__))
    if not integer and not math.isfinite(v):
        raise ValueError("%s: %s must be finite, got %r" % (who, name, v))
    if lo is not None and (v <= lo if lo_open else v < lo):
        raise ValueError("%s: %s must be %s %s, got %r" % (who, name, ">" if lo_open else ">=", lo, v))
    return v


@contextlib.contextmanager
def _batch_statistics(model):
    """Tent/EATA/SAR configuration: train mode; BatchNorm normalises with the batch's statistics
    and does not touch its running buffers (the reference sets them to None; we switch tracking
    off for the duration of the call instead)."""
    bns = [(m, m.track_running_stats) for m in model.modules() if isinstance(m, _BN)]
    model.train()
    for m, _ in bns:
        m.track_running_stats = False
    try:
        yield
    finally:
        for m, t in bns:
            m.track_running_stats = t


class Method:
    """Base of the adaptation methods. A method instance adapts one wrapped model."""
    _bound = False
    _defaults = dict(lr=1e-3, optimizer="sgd", momentum=0.9)

    def __init__(self, lr=None, optimizer=None, momentum=None, betas=(0.9, 0.999), weight_decay=0.0,
                 steps=1, episodic=False):
        who = type(self).__name__
        d = self._defaults
        self.lr = _number(who, "lr", d["lr"] if lr is None else lr, 0, lo_open=True)
        opt = d["optimizer"] if optimizer is None else optimizer
        if isinstance(opt, str):
            if opt.lower() not in ("sgd", "adam"):
                raise ValueError("%s: optimizer must be 'sgd', 'adam' or a callable params -> "
                                 "torch.optim.Optimizer, got %r" % (who, opt))
            opt = opt.lower()
        elif not callable(opt):
            raise TypeError("%s: optimizer must be 'sgd', 'adam' or a callable, got %s" % (who, type(opt).__name__))
        self.optimizer = opt
        self.momentum = _number(who, "momentum", d["momentum"] if momentum is None else momentum, 0)
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise TypeError("%s: betas must be a pair of numbers" % who)
        self.betas = tuple(_number(who, "betas", b, 0) for b in betas)
        if any(b >= 1 for b in self.betas):
            raise ValueError("%s: betas must be in [0, 1), got %r" % (who, betas))
        self.weight_decay = _number(who, "weight_decay", weight_decay, 0)
        self.steps = _number(who, "steps", steps, 1, integer=True)
        if not isinstance(episodic, bool):
            raise TypeError("%s: episodic must be a bool, got %s" % (who, type(episodic).__name__))
        self.episodic = episodic

    # hooks the wrapper calls
    def extra_modules(self):
        return {}

    def select(self, ad):
        raise NotImplementedError

    def attach(self, ad):
        pass

    def reset_state(self):
        pass

    def make_optimizer(self, params):
        if callable(self.optimizer):
            opt = self.optimizer(params)
            if not isinstance(opt, torch.optim.Optimizer):
                raise TypeError("%s: the optimizer callable returned %s, not a torch.optim.Optimizer"
                                % (type(self).__name__, type(opt).__name__))
            return opt
        if self.optimizer == "adam":
            return torch.optim.Adam(params, lr=self.lr, betas=self.betas, weight_decay=self.weight_decay)
        return torch.optim.SGD(params, lr=self.lr, momentum=self.momentum, weight_decay=self.weight_decay)

    def context(self, ad, adapting):
        return _batch_statistics(ad.model)

    def predict(self, ad, *args, **kwargs):
        return ad.run("", *args, **kwargs)

    def adapt(self, ad, *args, **kwargs):
        raise NotImplementedError


class _NormMethod(Method):
    def __init__(self, exclude=(), **kw):
        super().__init__(**kw)
        if isinstance(exclude, str) or not all(isinstance(e, str) for e in exclude):
            raise TypeError("%s: exclude must be a sequence of module-name prefixes" % type(self).__name__)
        self.exclude = tuple(exclude)

    def select(self, ad):
        names = norm_parameters(ad.model, self.exclude)
        if not names:
            raise ValueError("%s adapts the affine parameters of normalisation layers (BatchNorm, "
                             "GroupNorm, LayerNorm, InstanceNorm with affine=True); %s has none"
                             % (type(self).__name__, type(ad.model).__name__))
        return names

    @staticmethod
    def _margin(e_margin, out):
        return e_margin if e_margin is not None else 0.4 * math.log(out.shape[1])


class Tent(_NormMethod):
    """Tent: minimise the entropy of the predictions on each test batch (its mean over the batch),
    updating only normalisation affine parameters; BatchNorm uses the batch's statistics."""
    _defaults = dict(lr=1e-3, optimizer="adam", momentum=0.9)

    def adapt(self, ad, *args, **kwargs):
        for _ in range(self.steps):
            out = ad.run("", *args, **kwargs)
            loss = softmax_entropy(out).mean(0)
            loss.backward()
            ad.optimizer.step()
            ad.optimizer.zero_grad()
            ad.stats["steps"] += 1
        return out


def _update_probs(current, new):
    with torch.no_grad():
        if current is None:
            return None if new.shape[0] == 0 else new.mean(0)
        if new.shape[0] == 0:
            return current
        return 0.9 * current + (1 - 0.9) * new.mean(0)


class EATA(_NormMethod):
    """EATA: reliable (entropy < e_margin) and non-redundant (|cosine similarity to the moving
    average of predictions| < d_margin) samples, entropy re-weighted by 1/exp(entropy - e_margin),
    plus fisher_alpha * sum F (theta - theta0)^2 when fisher_data (source batches: tensors or
    (x, y) pairs; labels are not used, the model's own predictions are) is given; without it, the
    method is the paper's ETA. e_margin None means 0.4 * ln(number of classes)."""
    _defaults = dict(lr=0.00025, optimizer="sgd", momentum=0.9)

    def __init__(self, fisher_data=None, fisher_alpha=2000.0, e_margin=None, d_margin=0.05, **kw):
        super().__init__(**kw)
        self.fisher_alpha = _number("EATA", "fisher_alpha", fisher_alpha, 0)
        self.e_margin = None if e_margin is None else _number("EATA", "e_margin", e_margin, 0, lo_open=True)
        self.d_margin = _number("EATA", "d_margin", d_margin, 0)
        if fisher_data is not None and not isinstance(fisher_data, torch.Tensor):
            try:
                fisher_data = list(fisher_data)
            except TypeError:
                raise TypeError("EATA: fisher_data must be a tensor batch or an iterable of batches, "
                                "got %s" % type(fisher_data).__name__) from None
            if not fisher_data:
                raise ValueError("EATA: fisher_data is empty")
        self.fisher_data = fisher_data
        self.fishers = None
        self.reset_state()

    def reset_state(self):
        self.current_probs = None
        self.num_samples_update_1 = 0
        self.num_samples_update_2 = 0

    def attach(self, ad):
        if self.fisher_data is not None:
            self.fishers = self.compute_fishers(ad, self.fisher_data)

    @staticmethod
    def compute_fishers(ad, data):
        """Diagonal Fisher of the adapted tensors on source batches, as EATA's main.py: per batch,
        cross-entropy against the model's own argmax, squared gradients summed over batches and
        divided by their number (in the method's configuration: batch statistics)."""
        batches = [data] if isinstance(data, torch.Tensor) else data
        deltas = [s.delta for s in ad._slots]
        acc = None
        with torch.enable_grad(), ad._context(adapting=True):
            for i, b in enumerate(batches, 1):
                x = b[0] if isinstance(b, (tuple, list)) else b
                if not isinstance(x, torch.Tensor):
                    raise TypeError("EATA: a fisher_data batch is %s, not a tensor" % type(x).__name__)
                out = ad.run("", x)
                loss = F.cross_entropy(out, out.max(1)[1])
                grads = torch.autograd.grad(loss, deltas, allow_unused=True)
                sq = [torch.zeros_like(d) if g is None else g.detach().clone() ** 2 for d, g in zip(deltas, grads)]
                acc = sq if acc is None else [g + a for g, a in zip(sq, acc)]
        return [a / i for a in acc]

    def adapt(self, ad, *args, **kwargs):
        for _ in range(self.steps):
            out = ad.run("", *args, **kwargs)
            e_margin = self._margin(self.e_margin, out)
            ent = softmax_entropy(out)
            keep1 = ent < e_margin
            ent = ent[keep1]
            probs = out.detach()[keep1].softmax(1)
            n1 = int(ent.shape[0])
            if self.current_probs is not None:
                cos = F.cosine_similarity(self.current_probs.unsqueeze(dim=0), probs, dim=1)
                keep2 = torch.abs(cos) < self.d_margin
                ent = ent[keep2]
                updated = _update_probs(self.current_probs, probs[keep2])
            else:
                updated = _update_probs(None, probs)
            coeff = 1 / (torch.exp(ent.clone().detach() - e_margin))
            ent = ent.mul(coeff)
            loss = ent.mean(0)
            if self.fishers is not None:
                ewc = 0
                for s, f in zip(ad._slots, self.fishers):
                    ewc += self.fisher_alpha * (f * s.delta ** 2).sum()  # theta - theta0 is the delta
                loss += ewc
            n2 = int(ent.shape[0])
            if n2 != 0:
                loss.backward()
                ad.optimizer.step()
                ad.stats["steps"] += 1
            ad.optimizer.zero_grad()
            self.num_samples_update_1 += n1
            self.num_samples_update_2 += n2
            self.current_probs = updated
        return out


class SAR(_NormMethod):
    """SAR: entropy of reliable samples (entropy < e_margin, 0.4 ln C by default) minimised by
    SAM (perturb by rho * g / |g|, take the gradient there, step from the unperturbed point);
    when the moving average (0.9) of the second-pass loss falls below reset_constant, the model
    is reset (recovery). exclude: module-name prefixes left unadapted (the reference skips the
    top layers of ResNets and ViTs by name)."""
    _defaults = dict(lr=0.00025, optimizer="sgd", momentum=0.9)

    def __init__(self, rho=0.05, e_margin=None, reset_constant=0.2, **kw):
        super().__init__(**kw)
        self.rho = _number("SAR", "rho", rho, 0, lo_open=True)
        self.e_margin = None if e_margin is None else _number("SAR", "e_margin", e_margin, 0, lo_open=True)
        self.reset_constant = _number("SAR", "reset_constant", reset_constant, 0)
        self.ema = None

    def reset_state(self):
        self.ema = None

    def adapt(self, ad, *args, **kwargs):
        deltas = [s.delta for s in ad._slots]
        for _ in range(self.steps):
            ad.optimizer.zero_grad()
            out = ad.run("", *args, **kwargs)
            margin = self._margin(self.e_margin, out)
            ent = softmax_entropy(out)
            keep1 = ent < margin
            loss = ent[keep1].mean(0)
            loss.backward()
            # SAM first step: climb to the local worst case within radius rho
            with torch.no_grad():
                live = [d for d in deltas if d.grad is not None]
                grad_norm = torch.norm(torch.stack([d.grad.norm(p=2) for d in live]), p=2) if live else None
                old = []
                for d in live:
                    scale = self.rho / (grad_norm + 1e-12)
                    old.append((d, d.clone()))
                    d.add_(1.0 * d.grad * scale.to(d))
            ad.optimizer.zero_grad()
            ent2 = softmax_entropy(ad.run("", *args, **kwargs))[keep1]
            keep2 = ent2 < margin
            loss2 = ent2[keep2].mean(0)
            v = loss2.item()
            if not math.isnan(v):
                self.ema = v if self.ema is None else 0.9 * self.ema + (1 - 0.9) * v
            loss2.backward()
            # SAM second step: back to the unperturbed point, step with the perturbed gradient
            with torch.no_grad():
                for d, o in old:
                    d.copy_(o)
            ad.optimizer.step()
            ad.optimizer.zero_grad()
            ad.stats["steps"] += 1
            ema = self.ema
            if ema is not None and ema < self.reset_constant:
                ad.reset()  # model recovery: back to the base weights
                ad.stats["recoveries"] += 1
            self.ema = ema
        return out


class TTT(Method):
    """Test-time training with a rotation-prediction head. aux_head: a module mapping the output
    of the model's submodule `features` (its name, e.g. "features") to 4 rotation logits; the
    model's forward must compute its prediction from that submodule. At test time the extractor
    (and the head, update_aux_head=True as the reference) take `steps` SGD steps on the rotation
    loss of the batch (each image at 0/90/180/270 degrees), then the model predicts. The model
    runs in eval mode throughout (BatchNorm keeps the source statistics, the reference's --fix_bn;
    the paper uses GroupNorm). joint_loss() is the source training objective (main + rotation)."""
    _defaults = dict(lr=0.001, optimizer="sgd", momentum=0.0)

    def __init__(self, aux_head, features, update_aux_head=True, **kw):
        super().__init__(**kw)
        if not isinstance(aux_head, nn.Module):
            raise TypeError("TTT: aux_head must be a torch.nn.Module (the rotation head), got %s"
                            % type(aux_head).__name__)
        if not isinstance(features, str):
            raise TypeError("TTT: features must be the name of the model's feature-extractor "
                            "submodule (a str), got %s" % type(features).__name__)
        if not isinstance(update_aux_head, bool):
            raise TypeError("TTT: update_aux_head must be a bool")
        self.aux_head, self.features, self.update_aux_head = aux_head, features, update_aux_head

    def extra_modules(self):
        return {"aux_head": self.aux_head}

    def _extractor(self, model):
        try:
            return model.get_submodule(self.features) if self.features else model
        except AttributeError:
            raise ValueError("TTT: the model has no submodule %r (features must name the shared "
                             "feature extractor)" % self.features) from None

    def select(self, ad):
        self._extractor(ad.model)
        pre = self.features + "." if self.features else ""
        names = [n for n, _ in ad.model.named_parameters() if n.startswith(pre)]
        if not names:
            raise ValueError("TTT: the feature extractor %r has no parameters" % self.features)
        if self.update_aux_head:
            names += ["aux_head." + n for n, _ in self.aux_head.named_parameters()]
        return names

    @contextlib.contextmanager
    def context(self, ad, adapting):
        ad.model.eval()
        self.aux_head.eval()
        yield

    def aux_loss(self, ad, x):
        xr, yr = rotate_batch(x)
        return F.cross_entropy(ad.run("aux_head", ad.run(self.features, xr)), yr)

    def adapt(self, ad, x):
        for _ in range(self.steps):
            loss = self.aux_loss(ad, x)
            loss.backward()
            ad.optimizer.step()
            ad.optimizer.zero_grad()
            ad.stats["steps"] += 1
        with torch.no_grad():
            return ad.run("", x)

    def joint_loss(self, model, x, y):
        """Source training objective (Sun et al.): cross-entropy of the main task plus the
        rotation task's cross-entropy on the same images, the extractor shared."""
        xr, yr = rotate_batch(x)
        main = F.cross_entropy(model(x), y)
        return main + F.cross_entropy(self.aux_head(self._extractor(model)(xr)), yr)
