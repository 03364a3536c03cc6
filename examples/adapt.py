"""Test-time adaptation on device (torchnative.adapt): a small ConvNet trained on scikit-learn's
bundled digits (8x8 images, 10 classes; no network), then served on corrupted copies of the
held-out digits (Gaussian noise, Gaussian blur, contrast, as CIFAR-10-C) with Tent, EATA, SAR and
TTT adapting online. Prints the error before and after adaptation per corruption and method.

    .venv/bin/python examples/adapt.py                     # on torchnative
    PYTHONPATH=. .venv-ref/bin/python examples/adapt.py    # the same script on upstream torch

Options: --dtype float64 (the whole run in float64: upstream's float64 run is the reference for the
float32 tolerance), --out FILE.npz (records for tests/test_adapt.py: parameters after training and
after every adapted batch, logits, errors), --quick (the demo's short version: Tent only).

Set-up (fixed; every random draw is numpy's, seeded, so both torches see the same data):
  data      1797 digits / 16; a seeded permutation: 1200 train, 597 test (the stream).
  model     Conv(1->16, 3x3) BN ReLU, Conv(16->32) BN ReLU, MaxPool 2, Conv(32->32) BN ReLU,
            global average pool, Linear(32->10); torch.manual_seed(0) initialisation.
  training  Adam(lr 3e-3), batch 64, 5 epochs, cross-entropy (clean images).
  TTT model the same layers with GroupNorm(8) instead of BatchNorm as `features`, Linear(32->10) as
            the main head, Linear(32->4) as the rotation head, trained jointly (TTT.joint_loss).
  shifts    gaussian_noise (sigma 0.5, clipped to [0, 1]), gaussian_blur (sigma 0.9),
            contrast (each image pulled to its mean: (x - m) * 0.2 + m).
  serving   the 597 test digits in batches of 64 (fixed order), wrapped model online: every batch
            adapts and is predicted. Each (shift, method) starts from the trained weights.
  methods   every method with its defaults (the published reference code's: docs/adapt.md):
            Tent, EATA (Fisher from 256 clean training digits), SAR on the BatchNorm model, TTT on
            the GroupNorm Y-network. "norm" = the BatchNorm model served with test-batch statistics
            and no update (the BN-adaptation baseline of the Tent paper): Tent served offline.
"""
import argparse
import copy
import os
import sys
import time

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torchnative import adapt  # noqa: E402

SHIFTS = ("gaussian_noise", "gaussian_blur", "contrast")
METHODS = ("tent", "eata", "sar", "ttt")
BATCH = 64


def digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0)[:, None]
    y = d.target.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(x))
    tr, te = perm[:1200], perm[1200:]
    return x[tr], y[tr], x[te], y[te]


def corrupt(x, kind):
    """CIFAR-10-C style corruptions of images in [0, 1] (numpy, seeded, float32)."""
    rs = np.random.RandomState({"gaussian_noise": 1, "gaussian_blur": 2, "contrast": 3}[kind])
    if kind == "gaussian_noise":
        out = np.clip(x + rs.normal(0.0, 0.5, size=x.shape), 0, 1)
    elif kind == "gaussian_blur":
        from scipy.ndimage import gaussian_filter
        out = np.stack([gaussian_filter(im, sigma=(0, 0.9, 0.9), mode="constant") for im in x])
    elif kind == "contrast":
        m = x.mean(axis=(1, 2, 3), keepdims=True)
        out = (x - m) * 0.2 + m
    else:
        raise ValueError(kind)
    return out.astype(np.float32)


def convnet(norm):
    def n(c):
        return nn.BatchNorm2d(c) if norm == "bn" else nn.GroupNorm(8, c)
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), n(16), nn.ReLU(),
                         nn.Conv2d(16, 32, 3, padding=1), n(32), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 32, 3, padding=1), n(32), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten())


class YNet(nn.Module):
    """TTT's Y-shaped network: a shared extractor, the main head here, the rotation head outside."""

    def __init__(self):
        super().__init__()
        self.features = convnet("gn")
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.features(x))


def train(model, xtr, ytr, dtype, loss_fn, epochs=5):
    params = list(model.parameters()) + list(getattr(loss_fn, "extra_params", []))
    opt = torch.optim.Adam(params, lr=3e-3)
    order = np.random.RandomState(5)
    model.train()
    for _ in range(epochs):
        perm = order.permutation(len(xtr))
        for i in range(0, len(xtr), BATCH):
            idx = perm[i:i + BATCH]
            x, y = torch.from_numpy(xtr[idx]).to(dtype), torch.from_numpy(ytr[idx])
            opt.zero_grad()
            loss = loss_fn(model, x, y)
            loss.backward()
            opt.step()
    model.eval()
    return model


def load(model, init, prefix, dtype):
    sd = {k[len(prefix):]: torch.from_numpy(v) for k, v in init.items() if k.startswith(prefix)}
    model.load_state_dict({k: v.to(dtype) if v.is_floating_point() else v for k, v in sd.items()})
    model.eval()


def flat_params(named):
    return np.concatenate([t.detach().double().reshape(-1).numpy() for _, t in named])


def serve(wrapped, xte, dtype, record):
    """Stream the test set through the wrapped (online) model; returns logits, and records the
    served adapted tensors (base + delta) after every batch."""
    outs, steps = [], []
    for i in range(0, len(xte), BATCH):
        out = wrapped(torch.from_numpy(xte[i:i + BATCH]).to(dtype))
        outs.append(out.detach().double().numpy())
        if record:
            steps.append(np.concatenate([(s.base + s.delta).detach().double().reshape(-1).numpy()
                                         for s in wrapped._slots]))
    return np.concatenate(outs), (np.stack(steps) if record else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtype", default="float32", choices=("float32", "float64"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--save-init", default=None, help="write the trained weights (npz)")
    ap.add_argument("--init", default=None, help="start from these trained weights (npz written by "
                    "--save-init, e.g. upstream's float32 run) instead of training")
    ap.add_argument("--train-only", action="store_true", help="stop after training (records the "
                    "trained weights only)")
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype)
    t0 = time.perf_counter()
    xtr, ytr, xte, yte = digits()
    rec = {}

    init = dict(np.load(a.init)) if a.init else None
    methods = ("tent",) if a.quick else METHODS
    torch.manual_seed(0)
    bn = nn.Sequential(convnet("bn"), nn.Linear(32, 10)).to(dtype)
    if init:
        load(bn, init, "bn.", dtype)
    else:
        train(bn, xtr, ytr, dtype, lambda m, x, y: F.cross_entropy(m(x), y), epochs=3 if a.quick else 5)
    rec["trained_bn"] = flat_params(bn.named_parameters())[None]
    if "ttt" in methods:
        torch.manual_seed(1)
        ynet, rot_head = YNet().to(dtype), nn.Linear(32, 4).to(dtype)
        if init:
            load(ynet, init, "ynet.", dtype)
            load(rot_head, init, "rot.", dtype)
        else:
            joint = adapt.TTT(rot_head, features="features")
            loss = lambda m, x, y: joint.joint_loss(m, x, y)  # noqa: E731
            loss.extra_params = list(rot_head.parameters())
            train(ynet, xtr, ytr, dtype, loss)
        rec["trained_ttt"] = flat_params(list(ynet.named_parameters()) + list(rot_head.named_parameters()))[None]
    if a.save_init:
        st = {"bn." + k: v for k, v in bn.state_dict().items()}
        if "ttt" in methods:
            st.update({"ynet." + k: v for k, v in ynet.state_dict().items()})
            st.update({"rot." + k: v for k, v in rot_head.state_dict().items()})
        np.savez(a.save_init, **{k: v.detach().numpy() for k, v in st.items()})
    if a.train_only:
        if a.out:
            np.savez(a.out, seconds=np.array(time.perf_counter() - t0), **rec)
        print("trained in %.1f s" % (time.perf_counter() - t0))
        return None
    fisher = [torch.from_numpy(xtr[i:i + BATCH]).to(dtype) for i in range(0, 256, BATCH)]

    def make(method):
        if method == "tent":
            return copy.deepcopy(bn), adapt.Tent()
        if method == "norm":
            return copy.deepcopy(bn), adapt.Tent()  # served offline: batch statistics, no update
        if method == "eata":
            return copy.deepcopy(bn), adapt.EATA(fisher_data=fisher)
        if method == "sar":
            return copy.deepcopy(bn), adapt.SAR()
        return copy.deepcopy(ynet), adapt.TTT(copy.deepcopy(rot_head), features="features")

    errors = {}
    for shift in SHIFTS:
        xs = corrupt(xte, shift)
        with torch.no_grad():
            errors[(shift, "source")] = float((bn(torch.from_numpy(xs).to(dtype)).argmax(1).numpy() != yte).mean())
            if "ttt" in methods:
                errors[(shift, "source-ttt")] = float((ynet(torch.from_numpy(xs).to(dtype)).argmax(1).numpy() != yte).mean())
        for method in ("norm",) + methods:
            model, m = make(method)
            w = adapt.wrap(model, method=m)
            if method != "norm":
                w.online()
            logits, steps = serve(w, xs, dtype, record=method != "norm")
            errors[(shift, method)] = float((logits.argmax(1) != yte).mean())
            rec["logits:%s:%s" % (shift, method)] = logits[None]
            if steps is not None:
                rec["params:%s:%s" % (shift, method)] = steps
    clean = {}
    with torch.no_grad():
        clean["source"] = float((bn(torch.from_numpy(xte).to(dtype)).argmax(1).numpy() != yte).mean())
        if "ttt" in methods:
            clean["source-ttt"] = float((ynet(torch.from_numpy(xte).to(dtype)).argmax(1).numpy() != yte).mean())
    seconds = time.perf_counter() - t0

    cols = ["source", "norm"] + list(methods) + (["source-ttt"] if "ttt" in methods else [])
    print("test error (%%) on %d held-out digits, torch %s (%s), %s, %.1f s"
          % (len(yte), torch.__version__, "torchnative" if "abi3" in os.path.basename(torch._C.__file__)
             else "upstream", a.dtype, seconds))
    print("clean: source %.1f%s" % (100 * clean["source"], ", TTT's source model %.1f" % (100 * clean["source-ttt"])
                                    if "source-ttt" in clean else ""))
    print("%-16s" % "shift" + "".join("%11s" % c for c in cols))
    for shift in SHIFTS:
        print("%-16s" % shift + "".join("%11.1f" % (100 * errors[(shift, c)]) for c in cols))
    print("(source, norm, tent, eata, sar: the BatchNorm ConvNet; ttt: the GroupNorm Y-network, whose "
          "unadapted error is source-ttt)")
    if a.out:
        rec["labels"] = yte[None]
        rec["seconds"] = np.array(seconds)
        for (shift, c), v in errors.items():
            rec["error:%s:%s" % (shift, c)] = np.array(v)
        np.savez(a.out, **rec)
    return errors


def demo(epochs=2):
    """make demo's section: train the BatchNorm ConvNet briefly, serve shifted digits without and
    with Tent (a few seconds on torchnative)."""
    t0 = time.perf_counter()
    xtr, ytr, xte, yte = digits()
    torch.manual_seed(0)
    bn = nn.Sequential(convnet("bn"), nn.Linear(32, 10))
    train(bn, xtr, ytr, torch.float32, lambda m, x, y: F.cross_entropy(m(x), y), epochs=epochs)
    with torch.no_grad():
        clean = float((bn(torch.from_numpy(xte)).argmax(1).numpy() != yte).mean())
    print("ConvNet with BatchNorm trained on %d digits (%d epochs): %.1f%% error on %d clean test digits"
          % (len(xtr), epochs, 100 * clean, len(yte)))
    print("%-16s %14s %14s" % ("shifted copy", "unadapted", "Tent online"))
    for shift in SHIFTS:
        xs = corrupt(xte, shift)
        with torch.no_grad():
            before = float((bn(torch.from_numpy(xs)).argmax(1).numpy() != yte).mean())
        w = adapt.wrap(copy.deepcopy(bn), method=adapt.Tent()).online()
        logits, _ = serve(w, xs, torch.float32, False)
        after = float((logits.argmax(1) != yte).mean())
        print("%-16s %13.1f%% %13.1f%%" % (shift, 100 * before, 100 * after))
    print("(error; Tent adapts the BatchNorm affine parameters as a delta over the frozen weights "
          "while serving batches of %d; %.1f s)" % (BATCH, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
