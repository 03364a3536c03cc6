"""topk with equal keys: which positions upstream returns, and in which order (kernels/ref/topk.c
follows upstream's selection step by step; docs/topk.md). Indices compare exactly.

Rows with few distinct values (many ties), NaN, every dtype topk takes, both sides of upstream's
k * 64 <= n switch (partial_sort vs nth_element + sort), sorted and unsorted, largest and
smallest, the introsort threshold (17+ elements before the k-th) and the depth limits (long rows
of one value)."""
from harness import cases

TIES = """
g = torch.Generator().manual_seed(%d)
x = torch.randint(0, %d, (%d, %d), generator=g).to(torch.%s)
"""

c = {}
shapes = [(3, 4), (2, 8), (4, 17), (2, 33), (3, 100), (2, 1000), (1, 5000)]
for s, (m, n) in enumerate(shapes):
    for levels in (1, 2, 5):
        for k in sorted({1, 2, 3, n // 4, n // 2, n - 1, n} & set(range(0, n + 1))):
            for largest in (True, False):
                for srt in (True, False):
                    if srt is False and not largest and levels != 2:
                        continue
                    key = "n%d-lv%d-k%d-%s%s" % (n, levels, k, "max" if largest else "min", "" if srt else "-unsorted")
                    c[key] = TIES % (s, levels, m, n, "float32") + \
                        "torch.topk(x, %d, largest=%s, sorted=%s)" % (k, largest, srt)
for dt in ("float64", "bfloat16", "float16", "int64", "int32", "int16", "int8", "uint8"):
    c["dtype-" + dt] = TIES % (7, 3, 4, 50, dt) + "torch.topk(x, 9)"
    c["dtype-" + dt + "-small"] = TIES % (8, 2, 2, 700, dt) + "torch.topk(x, 5, largest=False)"
c["nan"] = TIES % (9, 3, 3, 40, "float32") + "x[0, ::3] = float('nan')\nx[2] = float('nan')\n" \
    "(torch.topk(x, 10), torch.topk(x, 10, largest=False), torch.topk(x, 40, sorted=False))"
c["neg-zero"] = "x = torch.tensor([0., -0., 0., -0., 1., -0.])\n(torch.topk(x, 4), torch.topk(x, 3, largest=False))"
c["dim0"] = TIES % (10, 2, 30, 3, "float32") + "torch.topk(x, 7, dim=0)"
c["moe-router"] = "s = torch.zeros(6, 4)\ntorch.topk(torch.softmax(s, -1), 2, dim=-1)"
c["bool"] = "torch.topk(torch.tensor([True, False, True, True, False]).to(torch.uint8), 2)"
cases("topk_ties", c)
