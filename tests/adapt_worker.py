"""Checks of torchnative.adapt's contract, run in one interpreter (torchnative's .venv or upstream's
.venv-ref, with the repository root on PYTHONPATH); prints one JSON object {check: "ok" | reason}.
tests/test_adapt.py runs it on both sides and asserts every check passes on each. Never imported by
pytest (the pytest process does not import torch)."""
import copy
import json
import os
import sys
import tempfile
import traceback

import torch
from torch import nn

from torchnative import adapt

CHECKS = {}


def check(f):
    CHECKS[f.__name__] = f
    return f


def convnet(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10))


def confident(seed=0):
    """convnet() with a scaled classifier: low-entropy predictions (EATA's and SAR's reliable
    samples) without training"""
    m = convnet(seed)
    with torch.no_grad():
        m[-1].weight.mul_(40)
    return m


def batch(seed, n=16):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, 1, 8, 8, generator=g) * 1.7 + 0.4


def snapshot(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def bits_equal(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point():
        return torch.equal(a.reshape(-1).view(torch.int32 if a.dtype == torch.float32 else torch.int64),
                           b.reshape(-1).view(torch.int32 if b.dtype == torch.float32 else torch.int64))
    return torch.equal(a, b)


def same_state(model, snap):
    sd = model.state_dict()
    return set(sd) == set(snap) and all(bits_equal(sd[k].detach(), snap[k]) for k in snap)


def served(w):
    return {s.name: (s.base + s.delta).detach() for s in w._slots}


def raises(exc, f, *a, **k):
    try:
        f(*a, **k)
    except exc as e:
        return str(e)
    except Exception as e:  # noqa: BLE001
        raise AssertionError("%s raised %s (%s), expected %s" % (getattr(f, "__name__", f), type(e).__name__, e, exc.__name__))
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f), exc.__name__))


@check
def tent_selects_norm_affine_only():
    w = adapt.wrap(convnet(), method=adapt.Tent())
    assert w.adapted_names() == ["1.weight", "1.bias", "4.weight", "4.bias"], w.adapted_names()
    assert w.mode == "offline"


@check
def online_adapts_offline_does_not():
    m = convnet()
    snap = snapshot(m)
    flags = [mod.training for mod in m.modules()]
    w = adapt.wrap(m, method=adapt.Tent())
    before = w(batch(1))
    assert all(bool((d == 0).all()) for d in w.delta().values()), "offline forward changed the delta"
    w.online()
    with torch.no_grad():  # a serving loop under no_grad still adapts (the reference's enable_grad)
        for i in range(3):
            w(batch(10 + i))
    assert any(bool((d != 0).any()) for d in w.delta().values()), "online forwards left the delta at zero"
    w.eval()
    after = w(batch(1))
    assert not torch.equal(before, after), "adaptation did not change the predictions"
    assert same_state(m, snap), "adaptation wrote the base weights or the BatchNorm buffers"
    assert [mod.training for mod in m.modules()] == flags, "the model's train/eval flags changed"
    assert w.stats["batches"] == 3 and w.stats["steps"] == 3 and w.stats["samples"] == 48, w.stats
    w.train()
    assert w.mode == "online"


@check
def reset_is_bit_exact():
    m = convnet()
    snap = snapshot(m)
    w = adapt.wrap(m, method=adapt.Tent())
    ref = w(batch(1))
    w.online()
    for i in range(4):
        w(batch(20 + i))
    w.reset().offline()
    assert same_state(m, snap)
    assert all(bits_equal(v, snap[k]) for k, v in served(w).items()), "served weights differ from base after reset"
    assert bits_equal(w(batch(1)), ref), "predictions after reset differ from the unadapted ones"


@check
def reset_after_nan_and_failed_steps():
    m = convnet()
    snap = snapshot(m)
    w = adapt.wrap(m, method=adapt.Tent()).online()
    w(batch(2))
    d1 = w.delta()
    bad = batch(3)
    bad[0, 0, 0, 0] = float("nan")
    w(bad)  # the step yields a NaN delta: rolled back
    assert w.stats["rollbacks"] == 1, w.stats
    assert all(bits_equal(w.delta()[k], d1[k]) for k in d1), "a NaN step was not undone"
    raises(RuntimeError, w, torch.randn(4, 3, 8, 8))  # wrong channel count: the step fails
    assert w.stats["failures"] == 1, w.stats
    assert all(bits_equal(w.delta()[k], d1[k]) for k in d1), "a failed step changed the delta"
    assert same_state(m, snap), "a failed or NaN step wrote the base"
    w.reset()
    assert all(bits_equal(v, snap[k]) for k, v in served(w).items())


@check
def save_load_round_trip():
    base = convnet()
    w = adapt.wrap(copy.deepcopy(base), method=adapt.Tent()).online()
    for i in range(3):
        w(batch(30 + i))
    w.offline()
    out = w(batch(5))
    with tempfile.TemporaryDirectory() as d:
        p = w.save_delta(os.path.join(d, "delta.pt"))
        w2 = adapt.wrap(copy.deepcopy(base), method=adapt.Tent())
        w2.load_delta(p)
        assert all(bits_equal(w2.delta()[k], v) for k, v in w.delta().items())
        assert bits_equal(w2(batch(5)), out), "a loaded delta serves different predictions"
        other = adapt.wrap(convnet(seed=7), method=adapt.Tent())
        assert "different base" in raises(ValueError, other.load_delta, p)
        other.load_delta(p, strict=False)  # explicitly allowed
        torch.save({"x": 1}, os.path.join(d, "junk.pt"))
        raises(ValueError, w2.load_delta, os.path.join(d, "junk.pt"))
    dd = w.delta()
    raises(ValueError, w2.load_delta, {**dd, "9.weight": torch.zeros(1)})
    raises(ValueError, w2.load_delta, {k: v for k, v in list(dd.items())[1:]})
    raises(ValueError, w2.load_delta, {**dd, "1.weight": torch.zeros(3)})
    raises(ValueError, w2.load_delta, {**dd, "1.weight": torch.full((8,), float("nan"))})
    raises(ValueError, w2.load_delta, {**dd, "1.weight": torch.zeros(8, dtype=torch.float64)})
    raises(TypeError, w2.load_delta, {**dd, "1.weight": [0.0] * 8})
    raises(TypeError, w2.load_delta, 42)


@check
def merge_folds_delta():
    m = convnet()
    w = adapt.wrap(m, method=adapt.Tent()).online()
    for i in range(3):
        w(batch(40 + i))
    w.offline()
    out = w(batch(6))
    expect = {k: v.clone() for k, v in served(w).items()}
    w.merge()
    assert all(bits_equal(dict(m.named_parameters())[k].detach(), v) for k, v in expect.items()), "base != base + delta after merge"
    assert all(bool((d == 0).all()) and bool(torch.signbit(d).all()) for d in w.delta().values()), "delta not -0.0 after merge"
    assert bits_equal(w(batch(6)), out), "merge changed the predictions"
    snap = snapshot(m)
    w.online()
    w(batch(50))
    w.reset()
    assert all(bits_equal(v, snap[k]) for k, v in served(w).items()), "reset after merge is not the merged base"
    assert w.unwrap() is m


@check
def events_lifetime():
    base = convnet()
    with tempfile.TemporaryDirectory() as d:
        w = adapt.wrap(copy.deepcopy(base), method=adapt.Tent(), store=d, user="alice").online()
        snap = snapshot(w.model)
        w(batch(60))
        alice = w.delta()
        p = w.on_background()
        assert p and os.path.exists(p) and w.mode == "online"
        assert all(bits_equal(w.delta()[k], v) for k, v in alice.items()), "background changed the delta"
        assert w.on_user_switch("bob") is None  # bob has no stored delta
        assert all(bits_equal(v, snap[k]) for k, v in served(w).items()), "new user not on the base"
        w(batch(61))
        bob = w.delta()
        assert w.on_user_switch("alice").endswith("alice.delta.pt")
        assert all(bits_equal(w.delta()[k], v) for k, v in alice.items()), "alice's delta not restored"
        w.on_user_switch("bob")
        assert all(bits_equal(w.delta()[k], v) for k, v in bob.items()), "bob's delta not restored"
        raises(TypeError, w.on_user_switch, 5)
        raises(ValueError, w.on_user_switch, "../x")
    # without a store: a user switch discards the delta
    w = adapt.wrap(copy.deepcopy(base), method=adapt.Tent()).online()
    w(batch(62))
    assert w.on_background() is None
    w.on_user_switch("carol")
    assert all(bool((v == 0).all()) for v in w.delta().values())


@check
def on_sync_hands_over_delta():
    m = convnet()
    w = adapt.wrap(m, method=adapt.Tent()).online()
    w(batch(70))
    w(batch(71))
    seen = {}

    def keep(delta, info):
        seen.update(delta=delta, info=info)

    assert w.on_sync(keep) is None
    assert set(seen["delta"]) == set(w.adapted_names())
    assert seen["info"]["method"] == "Tent" and seen["info"]["samples"] == 32 and seen["info"]["steps"] == 2
    assert all(bits_equal(seen["delta"][k], v) for k, v in w.delta().items())
    d_before = w.delta()

    def boom(delta, info):
        raise RuntimeError("link down")

    raises(RuntimeError, w.on_sync, boom)
    raises(TypeError, w.on_sync, "not callable")
    raises(TypeError, w.on_sync, lambda d, i: 3)
    raises(ValueError, w.on_sync, lambda d, i: {"1.weight": torch.zeros(3)})
    raises(ValueError, w.on_sync, lambda d, i: {"nope": torch.zeros(3)})
    assert all(bits_equal(w.delta()[k], v) for k, v in d_before.items()), "a failed sync changed the delta"
    # the engine returns aggregated weights: they become the base, the delta restarts
    new = {k: (dict(m.named_parameters())[k] + v).detach() * 0.5 for k, v in w.delta().items()}
    w.on_sync(lambda d, i: new)
    assert all(bits_equal(dict(m.named_parameters())[k].detach(), v) for k, v in new.items())
    assert all(bool((v == 0).all()) for v in w.delta().values())


@check
def eata_selection_and_fisher():
    m = confident()
    src = [batch(80 + i) / 1.7 for i in range(2)]
    w = adapt.wrap(m, method=adapt.EATA(fisher_data=src)).online()
    f = w.method.fishers
    assert len(f) == 4 and all(bool((x >= 0).all()) and x.shape == s.delta.shape for x, s in zip(f, w._slots))
    assert any(bool((x > 0).any()) for x in f)
    for i in range(3):
        w(batch(90 + i))
    me = w.method
    assert me.num_samples_update_1 >= me.num_samples_update_2 > 0, (me.num_samples_update_1, me.num_samples_update_2)
    assert me.current_probs is not None and abs(float(me.current_probs.sum()) - 1) < 1e-5
    # no reliable sample (margin ~0): no step
    w2 = adapt.wrap(convnet(), method=adapt.EATA(e_margin=1e-9)).online()
    w2(batch(93))
    assert w2.stats["steps"] == 0 and all(bool((v == 0).all()) for v in w2.delta().values())
    w.reset()
    assert me.current_probs is None


@check
def sar_steps_and_recovery():
    w = adapt.wrap(confident(), method=adapt.SAR(lr=0.01)).online()
    for i in range(3):
        w(batch(100 + i))
    assert w.stats["steps"] == 3 and w.stats["recoveries"] == 0 and w.method.ema is not None
    assert any(bool((v != 0).any()) for v in w.delta().values())
    # a collapse threshold above any entropy: every step ends in a recovery (reset to the base)
    w2 = adapt.wrap(confident(), method=adapt.SAR(lr=0.01, reset_constant=100.0)).online()
    w2(batch(103))
    assert w2.stats["recoveries"] == 1 and all(bool((v == 0).all()) for v in w2.delta().values())


@check
def ttt_updates_extractor_and_head():
    torch.manual_seed(3)
    net = nn.Module()
    net = _YNet()
    head = nn.Linear(8, 4)
    w = adapt.wrap(net, method=adapt.TTT(head, features="features"))
    names = w.adapted_names()
    assert all(n.startswith("features.") or n.startswith("aux_head.") for n in names)
    assert "aux_head.weight" in names and "head.weight" not in names
    w.online()
    w(batch(110))
    d = w.delta()
    assert bool((d["aux_head.weight"] != 0).any()) and bool((d["features.0.weight"] != 0).any())
    w2 = adapt.wrap(_YNet(), method=adapt.TTT(nn.Linear(8, 4), features="features", update_aux_head=False))
    assert not any(n.startswith("aux_head") for n in w2.adapted_names())
    loss = adapt.TTT(nn.Linear(8, 4), features="features").joint_loss(_YNet(), batch(111), torch.arange(16) % 10)
    assert loss.dim() == 0 and loss.requires_grad
    x, y = adapt.rotate_batch(torch.arange(4.).reshape(1, 1, 2, 2))
    assert y.tolist() == [0, 1, 2, 3]
    assert x.reshape(4, 4).tolist() == [[0, 1, 2, 3], [1, 3, 0, 2], [3, 2, 1, 0], [2, 0, 3, 1]], x.reshape(4, 4).tolist()


class _YNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        return self.head(self.features(x))


@check
def episodic_resets_each_batch():
    w = adapt.wrap(convnet(), method=adapt.Tent(episodic=True)).online()
    w(batch(120))
    d1 = w.delta()
    w(batch(120))
    assert all(bits_equal(w.delta()[k], v) for k, v in d1.items()), "episodic: the second batch did not start from the base"


@check
def bad_input():
    m = convnet()
    raises(TypeError, adapt.wrap, "model", method=adapt.Tent())
    assert "instance" in raises(TypeError, adapt.wrap, m, method=adapt.Tent)
    raises(TypeError, adapt.wrap, m, method="tent")
    mlp = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    assert "normalisation" in raises(ValueError, adapt.wrap, mlp, method=adapt.Tent())
    raises(ValueError, adapt.wrap, mlp, method=adapt.SAR())
    raises(ValueError, adapt.wrap, nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4, elementwise_affine=False)), method=adapt.EATA())
    raises(ValueError, adapt.Tent, lr=-1)
    raises(ValueError, adapt.Tent, lr=float("nan"))
    raises(TypeError, adapt.Tent, lr="0.1")
    raises(ValueError, adapt.Tent, steps=0)
    raises(TypeError, adapt.Tent, steps=1.5)
    raises(TypeError, adapt.Tent, episodic=1)
    raises(ValueError, adapt.Tent, optimizer="rmsprop")
    raises(TypeError, adapt.Tent, optimizer=3)
    raises(ValueError, adapt.Tent, betas=(0.9, 1.0))
    raises(TypeError, adapt.Tent, exclude="layer4")
    raises(ValueError, adapt.EATA, d_margin=-1)
    raises(ValueError, adapt.EATA, e_margin=0)
    raises(ValueError, adapt.EATA, fisher_alpha=-1)
    raises(TypeError, adapt.EATA, fisher_data=5)
    raises(ValueError, adapt.EATA, fisher_data=[])
    raises(TypeError, adapt.wrap, convnet(), method=adapt.EATA(fisher_data=["x"]))
    raises(ValueError, adapt.SAR, rho=0)
    raises(TypeError, adapt.SAR, reset_constant=None)
    raises(TypeError, adapt.TTT, "head", features="features")
    raises(TypeError, adapt.TTT, nn.Linear(8, 4), features=3)
    assert "no submodule" in raises(ValueError, adapt.wrap, _YNet(), method=adapt.TTT(nn.Linear(8, 4), features="trunk"))
    raises(ValueError, adapt.rotate_batch, torch.zeros(2, 1, 4, 5))
    raises(TypeError, adapt.rotate_batch, [1, 2])
    t = adapt.Tent()
    adapt.wrap(convnet(), method=t)
    assert "already" in raises(ValueError, adapt.wrap, convnet(), method=t)
    raises(TypeError, adapt.wrap, convnet(), method=adapt.Tent(), user=5)
    raises(TypeError, adapt.wrap, convnet(), method=adapt.Tent(), store=5)
    raises(TypeError, adapt.wrap, convnet(), method=adapt.Tent(optimizer=lambda p: "sgd"))
    w = adapt.wrap(convnet(), method=adapt.Tent())
    raises(ValueError, w.train, "yes")
    # a custom optimizer factory is accepted
    w = adapt.wrap(convnet(), method=adapt.Tent(optimizer=lambda p: torch.optim.SGD(p, lr=0.1))).online()
    w(batch(130))
    assert isinstance(w.optimizer, torch.optim.SGD) and w.stats["steps"] == 1


@check
def float64_model():
    m = convnet().double()
    w = adapt.wrap(m, method=adapt.Tent()).online()
    w(batch(140).double())
    assert all(v.dtype == torch.float64 for v in w.delta().values())
    w.reset()
    assert all(bool(torch.signbit(v).all()) for v in w.delta().values())
    # converting the wrapper converts base and delta together
    w = adapt.wrap(convnet(), method=adapt.Tent()).online()
    w(batch(141))
    d32 = w.delta()
    w.double()
    assert all(v.dtype == torch.float64 for v in w.delta().values())
    assert all(bool((w.delta()[k] == v.double()).all()) for k, v in d32.items())
    w(batch(142).double())
    assert w.stats["steps"] == 2


def main():
    torch.set_num_threads(1)
    res = {}
    for name, f in CHECKS.items():
        try:
            f()
            res[name] = "ok"
        except Exception:  # noqa: BLE001
            res[name] = traceback.format_exc()[-3000:]
    print(json.dumps(res))


if __name__ == "__main__":
    sys.exit(main())
