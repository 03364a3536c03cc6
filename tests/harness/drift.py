"""The tolerance rule for training runs compared step by step with upstream (issue #9): results
are identical where every kernel involved is; otherwise our float32 run may deviate from
upstream's float32 run by a stated multiple of upstream's own float32-vs-float64 drift over the
same steps. Pure numpy: usable by any training test that has the three runs' records.

For every step s and every compared quantity q (the loss; each parameter tensor, or a fixed
sample of its elements), with ref32 / ref64 upstream's float32 / float64 runs from the same
initial values and sub our float32 run:

    max |sub[s, q] - ref32[s, q]|  <=  K * max |ref32[s, q] - ref64[s, q]|  +  F * eps32 * max |ref32[s, q]|

K (default 4) allows our rounding to differ from upstream's as much as upstream's own float32
rounding differs from exact arithmetic, with margin: two independent float32 roundings of the
same computation each sit ~drift away from float64, so their distance is up to ~2 drifts; the
floor F * eps32 * scale (F = 4 ulps) covers quantities where upstream happens to agree with float64
exactly (a zero drift, e.g. a parameter whose gradient is exactly representable).
exact=True demands bit equality instead (every kernel on the path exact).

alts: more float32 realisations of the same upstream run (upstream forced onto another of its CPU
code paths, e.g. ATEN_CPU_CAPABILITY=default). Upstream's float32 result is not one value: its
vectorised kernels sum in an order set by the host's CPU, so the same script on two hosts of this
kind gives two realisations. With alts, the drift of a step is the largest over every realisation,
max_r |r[s, q] - ref64[s, q]|: upstream's own float32 error measured on more than one of its paths.
(Measured on an AVX2-only host, 2026-12-03: the adaptation example's 5-epoch Adam training drifts
2.7e-3 from float64 on upstream's AVX2 path and 1.5e-2 on its default path; tests/test_adapt.py.)

pool(): quantities may be pooled into one (compared by their joint maximum), e.g. all parameters
of a model trained with Adam/AdamW: its first updates are lr * g / (|g| + eps), so an element whose
gradient is near eps moves by a chance amount up to ~lr on any float32 run; which elements do is
chance (upstream's own float32 run shows such one-step jumps in some tensor), so a per-tensor
drift would be a single random draw. Pooling measures the drift over every parameter at once.
"""
import numpy as np

EPS32 = 2.0 ** -23
K = 4.0
FLOOR_ULPS = 4.0


def compare(sub, ref32, ref64, k=K, floor_ulps=FLOOR_ULPS, exact=False, alts=()):
    """sub / ref32 / ref64: dicts name -> array shaped [steps, ...] (same names, same shapes).
    Returns (failures, rows): failures are strings naming quantity and step; rows are
    (name, worst upstream drift, worst |sub - ref32|, worst ratio to the allowance) per quantity."""
    failures, rows = [], []
    for name in ref32:
        r32 = np.asarray(ref32[name], dtype=np.float64)
        r64 = np.asarray(ref64[name], dtype=np.float64)
        s = np.asarray(sub.get(name), dtype=np.float64) if name in sub else None
        if s is None or s.shape != r32.shape:
            failures.append("%s: shape %s, upstream %s" % (name, None if s is None else s.shape, r32.shape))
            continue
        steps = r32.shape[0]
        r32f, r64f, sf = r32.reshape(steps, -1), r64.reshape(steps, -1), s.reshape(steps, -1)
        altf = [np.asarray(a[name], dtype=np.float64).reshape(steps, -1) for a in alts]
        worst_ratio, worst_drift, worst_dev = 0.0, 0.0, 0.0
        for st in range(steps):
            dev = float(np.max(np.abs(sf[st] - r32f[st]))) if sf.shape[1] else 0.0
            if not np.all(np.isfinite(sf[st])) and not np.array_equal(np.isnan(sf[st]), np.isnan(r32f[st])):
                failures.append("%s step %d: non-finite values differ from upstream's" % (name, st + 1))
                continue
            drift = max(float(np.max(np.abs(r[st] - r64f[st]))) if r32f.shape[1] else 0.0 for r in [r32f] + altf)
            scale = float(np.max(np.abs(r32f[st]))) if r32f.shape[1] else 0.0
            allow = 0.0 if exact else k * drift + floor_ulps * EPS32 * scale
            worst_drift, worst_dev = max(worst_drift, drift), max(worst_dev, dev)
            ratio = dev / allow if allow > 0 else (0.0 if dev == 0 else np.inf)
            worst_ratio = max(worst_ratio, ratio)
            if dev > allow:
                failures.append("%s step %d: max|sub - ref32| = %.3e > %s (upstream f32-f64 drift %.3e)"
                                % (name, st + 1, dev, "0 (exact)" if exact else "%.3e" % allow, drift))
        rows.append((name, worst_drift, worst_dev, worst_ratio))
    return failures, rows


def pool(rec, groups):
    """rec: name -> [steps, ...]; groups: group name -> predicate on names. Returns group name ->
    [steps, total elements] (the members' elements side by side); names no group takes stay."""
    out, taken = {}, set()
    for g, pred in groups.items():
        names = [n for n in rec if pred(n)]
        if names:
            steps = len(rec[names[0]])
            out[g] = np.concatenate([np.asarray(rec[n], dtype=np.float64).reshape(steps, -1) for n in names], axis=1)
            taken.update(names)
    out.update({n: v for n, v in rec.items() if n not in taken})
    return out


def summary(rows):
    """(worst upstream drift, worst deviation, worst ratio) over all quantities."""
    if not rows:
        return 0.0, 0.0, 0.0
    return (max(r[1] for r in rows), max(r[2] for r in rows), max(r[3] for r in rows))
