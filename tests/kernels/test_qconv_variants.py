"""The static quantized convolution's kernel variants (kernels/ref/qconv.c, the portable reference;
kernels/x86/qconv-avx512vnni.c: im2col rows and vpdpbusd tiles, a depthwise loop 16 channels to a
register, the requantizations in lanes) must return the reference's bits exactly: the sums are
exact int32 either way and the float steps the same IEEE operations in the same order. Random
configurations (seeded: shapes, strides, padding, dilation, groups incl. depthwise and fbgemm's
dw_pairs case, per tensor / per channel, weight zero points or not, both engines, bias or not, relu,
channels-last input, output scales saturating some outputs) run in torchnative processes forced
to TN_QCONV=ref (one thread) and on the default variant and TN_QCONV=avx2 (two threads); the
int_repr bytes are compared. `python tests/kernels/test_qconv_variants.py COUNT [ref]` prints COUNT configurations'
hashes and their output count (the stress figure of docs/quant_tensors.md)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness.variants import run_snippet  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, ".venv", "bin", "python")

SNIPPET = r"""
import hashlib, random, sys, warnings, torch
warnings.simplefilter("ignore")
count = int(sys.argv[1])
rnd = random.Random(1234)
torch.manual_seed(0)
Q = torch.ops.quantized
out, total = [], 0
for i in range(count):
    engine = "fbgemm" if rnd.random() < 0.3 else "x86"
    torch.backends.quantized.engine = engine
    kind = rnd.random()
    N = rnd.choice([1, 1, 2, 3])
    if kind < 0.3:                     # depthwise (fbgemm's dw_pairs when it qualifies)
        G = rnd.choice([1, 3, 8, 16, 17, 24, 40, 64, 136])
        C, OC = G, G * rnd.choice([1, 1, 1, 2])
        k = rnd.choice([3, 3, 5, 7, 4])
        KH = KW = k
        stride = [rnd.choice([1, 2])] * 2
        pad = [(k - 1) // 2] * 2 if rnd.random() < 0.7 else [rnd.randint(0, 3), rnd.randint(0, 3)]
        dil = [1, 1] if rnd.random() < 0.8 else [2, 1]
    else:
        G = rnd.choice([1, 1, 1, 2, 3, 4])
        C = G * rnd.randint(1, 40)
        OC = G * rnd.randint(1, 80)
        KH, KW = rnd.choice([(1, 1), (1, 1), (3, 3), (3, 3), (5, 5), (2, 3), (1, 7), (7, 1)])
        stride = [rnd.randint(1, 3), rnd.randint(1, 3)]
        pad = [rnd.randint(0, KH + 2), rnd.randint(0, KW + 2)]
        dil = [rnd.randint(1, 2), rnd.randint(1, 2)]
    H, W = rnd.randint(1, 20), rnd.randint(1, 20)
    if (H + 2 * pad[0] - dil[0] * (KH - 1) - 1) < 0 or (W + 2 * pad[1] - dil[1] * (KW - 1) - 1) < 0:
        H, W = H + dil[0] * KH, W + dil[1] * KW
    w = torch.randn(OC, C // G, KH, KW) * 0.3
    sym = rnd.random() < 0.6
    if rnd.random() < 0.5:
        zp = torch.zeros(OC, dtype=torch.long) if sym else torch.randint(-20, 20, (OC,))
        qw = torch.quantize_per_channel(w, torch.rand(OC).double() * 0.01 + 0.002, zp, 0, torch.qint8)
    else:
        qw = torch.quantize_per_tensor(w, 0.004 + rnd.random() * 0.01, 0 if sym else rnd.randint(-20, 20), torch.qint8)
    bias = torch.randn(OC) if rnd.random() < 0.7 else None
    x = torch.rand(N, C, H, W) * 4 - 1
    qx = torch.quantize_per_tensor(x, 0.02 + rnd.random() * 0.02, rnd.choice([0, 3, 50, 128, 255]), torch.quint8)
    if rnd.random() < 0.3:
        qx = qx.contiguous(memory_format=torch.channels_last)
    p = Q.conv2d_prepack(qw, bias, stride, pad, dil, G)
    oscale = rnd.choice([0.01, 0.05, 0.2, 1.0, 0.003])
    ozp = rnd.randint(0, 255)
    for relu in (0, 1):
        y = (Q.conv2d_relu if relu else Q.conv2d)(qx, p, oscale, ozp)
        b = y.int_repr().contiguous().numpy().tobytes()
        total += y.numel()
        out.append("%d %s %d %s" % (i, engine, relu, hashlib.sha256(b).hexdigest()[:16]))
print("\n".join(out))
print("outputs", total)
"""


def run(env_extra, threads, count):
    return run_snippet(OURS, SNIPPET, env_extra, threads=threads, unset="TN_QCONV", args=(str(count),), timeout=1800)


def compare(count, variant):
    ref = run({"TN_QCONV": "ref"}, 1, count)
    got = run({"TN_QCONV": variant} if variant else {}, 2, count)
    bad = [f"{a}  !=  {b}" for a, b in zip(got, ref) if a != b]
    return ref, got, bad


# the default (AVX-512 VNNI where the CPU has it, else AVX2) and AVX2 forced (the reference where
# the CPU lacks it: then the comparison is trivially equal)
@pytest.mark.parametrize("variant", [None, "avx2"])
def test_qconv_variants_match_reference_bits(variant):
    if not os.path.exists(OURS):
        pytest.skip("torchnative environment not built (make setup)")
    ref, got, bad = compare(150, variant)
    assert len(ref) == 301
    assert len(got) == len(ref) and not bad, "the variant differs from the reference:\n" + "\n".join(bad[:20])


if __name__ == "__main__":
    for variant in (None, "avx2"):
        ref, got, bad = compare(int(sys.argv[1]), variant)
        same = sum(a == b for a, b in zip(got[:-1], ref[:-1]))
        print("%s: configurations x relu: %d, identical: %d, %s" % (variant or "default", len(ref) - 1, same, ref[-1]))
        for b in bad[:20]:
            print(b)
