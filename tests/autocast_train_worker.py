"""One training run under torch.autocast("cpu") for tests/test_autocast_training.py.

usage: autocast_train_worker.py RUN MODE OUT.npz
  RUN   mlp      Linear(12, 32) - GELU - Linear(32, 32) - GELU - Linear(32, 5), cross-entropy,
                 AdamW(lr 1e-2, weight_decay 0.01), 20 steps, batch 16
        convnet  Conv2d(3, 8, 3, pad 1) - BatchNorm2d - ReLU - MaxPool2d(2) - Conv2d(8, 8, 3) -
                 ReLU - AdaptiveAvgPool2d(1) - Flatten - Linear(8, 4), cross-entropy,
                 SGD(lr 0.05, momentum 0.9), 20 steps, batch 8 of 3x8x8
  MODE  bf16 / f16: float32 parameters, forward under torch.autocast("cpu", dtype=...);
        f64: the same model and data in float64 without autocast (the exact reference)
Saves, after every step, the loss and every parameter (and the BatchNorm running statistics).
"""
import sys

import numpy as np
import torch

run, mode, out = sys.argv[1:4]
torch.manual_seed(0)
nn = torch.nn
if run == "mlp":
    model = nn.Sequential(nn.Linear(12, 32), nn.GELU(), nn.Linear(32, 32), nn.GELU(), nn.Linear(32, 5))
    x, y = torch.randn(16, 12), torch.randint(0, 5, (16,))
    make = lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.01)
else:
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    x, y = torch.randn(8, 3, 8, 8), torch.randint(0, 4, (8,))
    make = lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)
if mode == "f64":
    model, x = model.double(), x.double()
opt = make(model.parameters())
dt = {"bf16": torch.bfloat16, "f16": torch.float16}.get(mode)
rec = {}
for step in range(20):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=dt or torch.bfloat16, enabled=dt is not None):
        loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    rec.setdefault("loss", []).append(loss.item())
    for k, v in model.state_dict().items():
        if v.is_floating_point():
            rec.setdefault(k, []).append(v.detach().double().numpy().copy())
np.savez(out, **{k: np.asarray(v) for k, v in rec.items()})
