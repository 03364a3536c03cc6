"""One quantization-aware training run (tests/test_qat.py): a seeded QuantStub + Conv2d + BatchNorm2d +
ReLU (fused for QAT) + Linear + DeQuantStub model prepared with upstream's torch.ao.quantization,
trained a few SGD steps; writes every step's loss, parameters and fake-quantize buffers (scale,
zero point, observer min / max) to an .npz, and the aten overloads a dispatch mode saw.

usage: qat_worker.py CONFIG DTYPE OUT.npz   (CONFIG: x86 | fbgemm_v0 | qnnpack | lsq)"""
import json
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.ao.quantization as tq
from torch.ao.quantization._learnable_fake_quantize import _LearnableFakeQuantize
from torch.utils._python_dispatch import TorchDispatchMode

warnings.simplefilter("ignore")
config, dtype, out = sys.argv[1], getattr(torch, sys.argv[2]), sys.argv[3]
STEPS = 6


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(4 * 6 * 6, 5)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.relu(self.bn(self.conv(self.quant(x))))
        return self.dequant(self.fc(x.flatten(1)))


def qconfig():
    if config == "x86":
        return tq.get_default_qat_qconfig("x86")           # fused observer + fake quantize
    if config == "qnnpack":
        return tq.get_default_qat_qconfig("qnnpack")       # per-tensor weights, no reduce_range
    if config == "fbgemm_v0":
        return tq.get_default_qat_qconfig("fbgemm", 0)     # FakeQuantize + Python observers
    if config == "lsq":                                     # learnable scale / zero point
        act = _LearnableFakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                               dtype=torch.quint8, use_grad_scaling=True)
        wt = _LearnableFakeQuantize.with_args(observer=tq.MovingAverageMinMaxObserver, quant_min=-128,
                                              quant_max=127, dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)
        return tq.QConfig(activation=act, weight=wt)
    raise SystemExit("unknown config " + config)


torch.manual_seed(0)
m = Net().train()
m.qconfig = qconfig()
tq.fuse_modules_qat(m, [["conv", "bn", "relu"]], inplace=True)
tq.prepare_qat(m, inplace=True)
m.to(dtype)
opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
g = torch.Generator().manual_seed(1)
xs = [torch.randn(8, 3, 8, 8, generator=g).to(dtype) for _ in range(STEPS)]
ys = [torch.randint(0, 5, (8,), generator=g) for _ in range(STEPS)]
ops = set()


class Log(TorchDispatchMode):
    def __torch_dispatch__(self, f, t, a=(), k=None):
        ops.add(str(f))
        return f(*a, **(k or {}))


rec = {}
def keep(name, v):
    rec.setdefault(name, []).append(np.asarray(v.detach().double() if isinstance(v, torch.Tensor) else v, dtype=np.float64))


for step in range(STEPS):
    with Log():
        loss = nn.functional.cross_entropy(m(xs[step]), ys[step])
        opt.zero_grad()
        loss.backward()
        opt.step()
    keep("loss", loss)
    for n, p in m.named_parameters():
        keep("p." + n, p)
    for n, b in m.named_buffers():
        if n.split(".")[-1] in ("scale", "zero_point", "min_val", "max_val"):
            keep("b." + n, b)
np.savez(out, **{k: np.stack(v) for k, v in rec.items()})
print(json.dumps(sorted(ops)))
