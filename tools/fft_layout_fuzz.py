"""Random calls of the three FFT primitives on permuted / narrowed inputs; prints one JSON record
per call: shape, strides and storage offset of the result, or the exception type. Run under
`.venv-ref` and `.venv` and compare (tests/test_fft_layout_fuzz.py; docs/fft_layout.md).

usage: python tools/fft_layout_fuzz.py [N] [SEED]"""
import json
import random
import sys

import torch


def main(n=2000, seed=2):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        nd = rng.randint(1, 5)
        sizes = [rng.choice([0, 1, 1, 2, 3, 4, 5, 6]) for _ in range(nd)]
        dims = rng.sample(range(nd), rng.randint(1, nd))
        kind = rng.choice(["c2c", "r2c", "c2r", "r2cfull"])
        perm = list(range(nd))
        if rng.random() < 0.5:
            rng.shuffle(perm)
        dt = torch.complex64 if kind in ("c2c", "c2r") else torch.float32
        base = torch.zeros([sizes[p] for p in perm], dtype=dt)
        x = base.permute([perm.index(i) for i in range(nd)])
        if rng.random() < 0.3:
            d = rng.randrange(nd)
            if sizes[d] > 1:
                x = x.narrow(d, 0, sizes[d] - 1)
        last = 2 * max(x.shape[dims[-1]] - 1, 1)
        rec = {"kind": kind, "sizes": list(x.shape), "strides": list(x.stride()), "dims": dims}
        try:
            if kind == "c2c":
                r = torch._fft_c2c(x, dims, 0, True)
            elif kind == "r2c":
                r = torch._fft_r2c(x, dims, 0, True)
            elif kind == "r2cfull":
                r = torch._fft_r2c(x, dims, 0, False)
            else:
                r = torch._fft_c2r(x, dims, 0, last)
            rec["out"] = [list(r.shape), list(r.stride()), r.storage_offset()]
        except Exception as e:
            rec["exc"] = type(e).__name__
        out.append(rec)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
