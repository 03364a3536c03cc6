"""Worker of tests/test_quant_conv_models.py: run under either torch (ours or upstream).

    python qconv_worker.py make DIR      seeded ConvNets -> prepare / calibrate / convert ->
                                         outputs.npz, state_dicts saved in DIR
    python qconv_worker.py load SRC DIR  the other torch's saved state_dicts (from SRC) loaded here
                                         and run on the same input -> DIR/loaded.npz
(No whole-model pickles: upstream's quantized conv modules do not survive one, their __setstate__
leaves the module without _backward_hooks, measured; the packed object's own pickle is a golden
case in tests/cases/test_quant_conv.py.)
"""
import os
import sys
import warnings

warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.ao.quantization as tq  # noqa: E402
import torch.nn as nn  # noqa: E402

torch.set_num_threads(1)
MODELS = ("conv_x86", "conv_per_tensor", "depthwise128", "residual_x86", "residual_per_tensor", "decoder_per_tensor")


class ConvNet(nn.Module):
    """conv + batch norm + relu (fused, the norm folded), a strided depthwise conv + relu, a 1x1 conv"""
    def __init__(self):
        super().__init__()
        self.q, self.dq = tq.QuantStub(), tq.DeQuantStub()
        self.c1, self.b1, self.r1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()
        self.c2, self.r2 = nn.Conv2d(8, 8, 3, stride=2, groups=8, bias=False), nn.ReLU()
        self.c3 = nn.Conv2d(8, 16, 1)
        self.fuse = [["c1", "b1", "r1"], ["c2", "r2"]]

    def forward(self, x):
        return self.dq(self.c3(self.r2(self.c2(self.r1(self.b1(self.c1(self.q(x))))))))


class Depthwise128(nn.Module):
    """128 groups: upstream's x86 engine runs this depthwise conv on fbgemm, the others on oneDNN"""
    def __init__(self):
        super().__init__()
        self.q, self.dq = tq.QuantStub(), tq.DeQuantStub()
        self.c1, self.r1 = nn.Conv2d(3, 128, 1), nn.ReLU()
        self.c2 = nn.Conv2d(128, 128, 3, padding=1, dilation=1, groups=128)
        self.c3 = nn.Conv2d(128, 4, 1)
        self.fuse = [["c1", "r1"]]

    def forward(self, x):
        return self.dq(self.c3(self.c2(self.r1(self.c1(self.q(x))))))


class Residual(nn.Module):
    """the usual ConvNet shape: conv-bn-relu (fused), max_pool2d, a residual block whose skip is
    FloatFunctional.add_relu, then FloatFunctional add / mul / cat, ReLU6, Hardtanh, avg_pool2d,
    adaptive_avg_pool2d, flatten, Linear (ops/qops.c between the convolutions)"""
    def __init__(self):
        super().__init__()
        self.q, self.dq = tq.QuantStub(), tq.DeQuantStub()
        self.c1, self.b1, self.r1 = nn.Conv2d(3, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.c2, self.b2, self.r2 = nn.Conv2d(24, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU()
        self.c3, self.b3 = nn.Conv2d(24, 24, 3, padding=1), nn.BatchNorm2d(24)
        self.skip, self.add, self.mul, self.cat = (torch.ao.nn.quantized.FloatFunctional() for _ in range(4))
        self.r6, self.ht = nn.ReLU6(), nn.Hardtanh(-2.0, 2.0)
        self.avg, self.gap = nn.AvgPool2d(3, 1, 1), nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(48, 10)
        self.fuse = [["c1", "b1", "r1"], ["c2", "b2", "r2"], ["c3", "b3"]]

    def forward(self, x):
        x = self.pool(self.r1(self.b1(self.c1(self.q(x)))))
        y = self.skip.add_relu(self.b3(self.c3(self.r2(self.b2(self.c2(x))))), x)
        z = self.mul.mul(self.add.add(y, x), y)
        z = self.ht(self.r6(self.cat.cat([z, y], 1)))
        z = torch.flatten(self.gap(self.avg(z)), 1)
        return self.dq(self.fc(z))


class Decoder(nn.Module):
    """a small encoder-decoder: conv + relu (fused), a strided conv, then ConvTranspose2d upsampling
    (2x2 stride 2, 8 -> 4 channels: upstream's oneDNN path reads such non-square weight blocks
    permuted) + relu, a 3x3 ConvTranspose2d with padding, 4 -> 3 channels"""
    def __init__(self):
        super().__init__()
        self.q, self.dq = tq.QuantStub(), tq.DeQuantStub()
        self.c1, self.r1 = nn.Conv2d(3, 8, 3, padding=1), nn.ReLU()
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.up, self.r2 = nn.ConvTranspose2d(8, 4, 2, stride=2), nn.ReLU()
        self.out = nn.ConvTranspose2d(4, 3, 3, padding=1)
        self.fuse = [["c1", "r1"]]

    def forward(self, x):
        return self.dq(self.out(self.r2(self.up(self.c2(self.r1(self.c1(self.q(x))))))))


def model(name):
    torch.manual_seed(0)
    m = (Depthwise128() if name == "depthwise128" else Residual() if name.startswith("residual")
         else Decoder() if name.startswith("decoder") else ConvNet())
    for bn in [v for v in m.modules() if isinstance(v, nn.BatchNorm2d)]:   # a trained-looking batch norm
        bn.running_mean.uniform_(-0.2, 0.2)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-0.1, 0.1)
    m.eval()
    m.qconfig = tq.default_qconfig if name.endswith("per_tensor") else tq.get_default_qconfig("x86")
    m = tq.fuse_modules(m, m.fuse)
    p = tq.prepare(m)
    g = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for _ in range(4):
            p(torch.randn(4, 3, 12, 12, generator=g))
    return tq.convert(p)


def data():
    return torch.randn(3, 3, 12, 12, generator=torch.Generator().manual_seed(3))


def packed_arrays(q, prefix):
    """every quantized conv's unpacked weight (integers, scales, zero points), bias, output qparams"""
    out = {}
    for n, mod in q.named_modules():
        if hasattr(mod, "_packed_params") and hasattr(mod, "_weight_bias"):
            w, b = mod._weight_bias()
            out[f"{prefix}.{n}.int"] = w.int_repr().numpy()
            if w.qscheme() == torch.per_tensor_affine:
                out[f"{prefix}.{n}.qp"] = np.array([w.q_scale(), w.q_zero_point()])
            else:
                out[f"{prefix}.{n}.qp"] = np.concatenate([w.q_per_channel_scales().numpy(), w.q_per_channel_zero_points().numpy()])
            if b is not None:
                out[f"{prefix}.{n}.bias"] = b.detach().numpy()
        if isinstance(getattr(mod, "scale", None), (float, torch.Tensor)) and hasattr(mod, "zero_point"):
            out[f"{prefix}.{n}.out_qp"] = np.array([float(mod.scale), int(mod.zero_point)])
    return out


def make(d):
    res = {"repr.conv": np.array(repr(model("conv_x86")))}
    for name in MODELS:
        q = model(name)
        with torch.no_grad():
            res[f"out.{name}"] = q(data()).numpy()
        res.update(packed_arrays(q, name))
        torch.save(q.state_dict(), os.path.join(d, f"{name}.sd.pt"))
    np.savez(os.path.join(d, "outputs.npz"), **res)


def load(src, d):
    res = {}
    for name in MODELS:
        q = model(name)
        q.load_state_dict(torch.load(os.path.join(src, f"{name}.sd.pt")))
        with torch.no_grad():
            res[f"sd.{name}"] = q(data()).numpy()
    np.savez(os.path.join(d, "loaded.npz"), **res)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        load(sys.argv[2], sys.argv[3])
