"""ggml's k-quant reference quantisers (quantize_row_q2_K_ref, quantize_row_q3_K_ref, quantize_row_q4_K_ref, quantize_row_q5_K_ref,
quantize_row_q6_K_ref, quantize_row_q8_K_ref in ggml's src/ggml-quants.c) transcribed to numpy float32 for
tests/test_quant.py's reference side (the gguf package only dequantises k-quants).

Every float step is one IEEE float32 operation in ggml's C order (vectorised over blocks, loops
over a block's values in C order, so each sum accumulates as C's does); nearest_int is ggml's
float trick (v + 12582912, low mantissa bits). How it was checked: against ggml's C itself
(ggml-org/ggml src/ggml-quants.c, compiled without -march as ggml-base is) on random, scaled,
heavy-tailed, sparse, subnormal, +-3.4e38, inf and NaN blocks (docs/quant.md) — the same bytes.
Imports numpy only.
"""
import numpy as np

F = np.float32


def nint(v):
    """ggml's nearest_int: round half to even through the float trick (bits as ggml's C)."""
    t = (np.asarray(v, F) + F(12582912)).astype(F)
    return (t.view(np.int32) & 0x007FFFFF) - 0x00400000


def _qkx2(x, w, nmax=15, rmin=-1.0, nstep=20, use_mad=False):
    """make_qkx2_quants(n, nmax, x, w, L, &the_min, Laux, rmin, 0.1, nstep, use_mad) per row of x (R, n)
    (Q4_K: 32, 15, -1, 20, false; Q5_K: 32, 31, -0.5, 15, false; Q2_K: 16, 3, -0.5, 15, true)."""
    def err_of(diff):
        return np.abs(diff) if use_mad else (diff * diff).astype(F)

    R, n = x.shape
    mn, mx, sum_w = x[:, 0].copy(), x[:, 0].copy(), w[:, 0].copy()
    sum_x = sum_w * x[:, 0]
    for i in range(1, n):
        mn = np.where(x[:, i] < mn, x[:, i], mn)
        mx = np.where(x[:, i] > mx, x[:, i], mx)
        sum_w = sum_w + w[:, i]
        sum_x = sum_x + w[:, i] * x[:, i]
    mn = np.where(mn > 0, F(0), mn).astype(F)
    flat = mx == mn
    rng = (mx - mn).astype(F)
    iscale = (F(nmax) / rng).astype(F)
    scale = (F(1) / iscale).astype(F)
    L = np.zeros((R, n), np.int32)
    best = np.zeros(R, F)
    for i in range(n):
        l = np.clip(nint(iscale * (x[:, i] - mn)), 0, nmax)
        L[:, i] = l
        diff = (scale * l.astype(F) + mn - x[:, i]).astype(F)
        best = (best + w[:, i] * err_of(diff)).astype(F)
    for s in range(nstep + 1):
        # min (and so max - min) is the best candidate's so far, as in ggml's loop
        isc = ((F(rmin) + F(0.1) * F(s) + F(nmax)) / (mx - mn).astype(F)).astype(F)
        sl = np.zeros(R, F); sl2 = np.zeros(R, F); sxl = np.zeros(R, F)
        La = np.zeros((R, n), np.int32)
        for i in range(n):
            l = np.clip(nint(isc * (x[:, i] - mn)), 0, nmax)
            La[:, i] = l
            lf = l.astype(F)
            sl = sl + w[:, i] * lf
            sl2 = sl2 + w[:, i] * lf * lf
            sxl = sxl + w[:, i] * lf * x[:, i]
        D = (sum_w * sl2 - sl * sl).astype(F)
        ts = ((sum_w * sxl - sum_x * sl) / D).astype(F)
        tm = ((sl2 * sum_x - sl * sxl) / D).astype(F)
        neg = tm > 0
        tm = np.where(neg, F(0), tm).astype(F)
        ts = np.where(neg, (sxl / sl2).astype(F), ts).astype(F)
        err = np.zeros(R, F)
        for i in range(n):
            diff = (ts * La[:, i].astype(F) + tm - x[:, i]).astype(F)
            err = (err + w[:, i] * err_of(diff)).astype(F)
        upd = (D > 0) & (err < best) & ~flat
        L[upd] = La[upd]
        best = np.where(upd, err, best)
        scale = np.where(upd, ts, scale)
        mn = np.where(upd, tm, mn)
    L[flat] = 0
    scale = np.where(flat, F(0), scale).astype(F)
    return scale, (-mn).astype(F), L


def _f16(v):
    return np.asarray(v, F).astype(np.float16)


def q4_k(x):
    """(rows, n) float32 -> (rows, n/256*144) uint8 (one row per super-block)."""
    with np.errstate(all="ignore"):
        return _q4_k(np.asarray(x, F).reshape(-1, 256))


def q5_k(x):
    """(rows, n) float32 -> (rows, n/256*176) uint8 (one row per super-block)."""
    with np.errstate(all="ignore"):
        return _q4_k(np.asarray(x, F).reshape(-1, 256), five=True)


def _q4_k(x, five=False):
    """quantize_row_q4_K_ref, or (five) quantize_row_q5_K_ref: the same steps but for the quant
    range, make_qkx2_quants' candidates and the packing."""
    nmax = 31 if five else 15
    R = x.shape[0]
    L = np.zeros((R, 256), np.int32)
    scales = np.zeros((R, 8), F); mins = np.zeros((R, 8), F)
    for j in range(8):
        xs = x[:, 32 * j: 32 * j + 32]
        s2 = np.zeros(R, F)
        for l in range(32):
            s2 = (s2 + xs[:, l] * xs[:, l]).astype(F)
        av = np.sqrt((s2 / F(32)).astype(F)).astype(F)
        w = (av[:, None] + np.abs(xs)).astype(F)
        scales[:, j], mins[:, j], L[:, 32 * j: 32 * j + 32] = _qkx2(xs, w, 31, -0.5, 15) if five else _qkx2(xs, w)
    ms = np.zeros(R, F); mm = np.zeros(R, F)
    for j in range(8):
        ms = np.where(scales[:, j] > ms, scales[:, j], ms)
        mm = np.where(mins[:, j] > mm, mins[:, j], mm)
    inv_s = np.where(ms > 0, (F(63) / ms).astype(F), F(0)).astype(F)
    inv_m = np.where(mm > 0, (F(63) / mm).astype(F), F(0)).astype(F)
    sb = np.zeros((R, 12), np.int32)
    for j in range(8):
        ls = np.minimum(nint(inv_s * scales[:, j]) & 0xFF, 63)
        lm = np.minimum(nint(inv_m * mins[:, j]) & 0xFF, 63)
        if j < 4:
            sb[:, j] = ls; sb[:, j + 4] = lm
        else:
            sb[:, j + 4] = (ls & 0xF) | ((lm & 0xF) << 4)
            sb[:, j - 4] |= (ls >> 4) << 6
            sb[:, j] |= (lm >> 4) << 6
    d16, dm16 = _f16((ms / F(63)).astype(F)), _f16((mm / F(63)).astype(F))
    Dv, DMv = d16.astype(F), dm16.astype(F)
    for j in range(8):
        if j < 4:
            sc, m = sb[:, j] & 63, sb[:, j + 4] & 63
        else:
            sc = (sb[:, j + 4] & 0xF) | ((sb[:, j - 4] >> 6) << 4)
            m = (sb[:, j + 4] >> 4) | ((sb[:, j] >> 6) << 4)
        d = (Dv * sc.astype(F)).astype(F)
        dm = (DMv * m.astype(F)).astype(F)
        with np.errstate(all="ignore"):
            l = np.clip(nint(((x[:, 32 * j: 32 * j + 32] + dm[:, None]) / d[:, None]).astype(F)), 0, nmax)
        live = d != 0
        L[live, 32 * j: 32 * j + 32] = l[live]
    qs = np.zeros((R, 128), np.int32)
    qh = np.zeros((R, 32), np.int32)
    for c in range(4):
        lo, hi = L[:, 64 * c: 64 * c + 32], L[:, 64 * c + 32: 64 * c + 64]
        qs[:, 32 * c: 32 * c + 32] = (lo & 0xF) | ((hi & 0xF) << 4)
        qh |= ((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1))
    parts = [d16.view(np.uint8).reshape(R, 2), dm16.view(np.uint8).reshape(R, 2), sb.astype(np.uint8)]
    parts += [qh.astype(np.uint8)] if five else []
    return np.concatenate(parts + [qs.astype(np.uint8)], axis=1)


def _qx16(x):
    """make_qx_quants(16, 32, x, L, 1, NULL) per row of x (R, 16): (scale, L offset by +32)."""
    R, n = x.shape
    mx = np.zeros(R, F); amax = np.zeros(R, F)
    for i in range(n):
        ax = np.abs(x[:, i])
        u = ax > amax
        amax = np.where(u, ax, amax); mx = np.where(u, x[:, i], mx)
    zero = amax < F(1e-15)

    def sums(isc):
        slx = np.zeros(R, F); sl2 = np.zeros(R, F)
        Ls = np.zeros((R, n), np.int32)
        for i in range(n):
            l = np.clip(nint(isc * x[:, i]), -32, 31)
            Ls[:, i] = l + 32
            lf = l.astype(F)
            w = (x[:, i] * x[:, i]).astype(F)
            slx = (slx + w * x[:, i] * lf).astype(F)
            sl2 = (sl2 + w * lf * lf).astype(F)
        return slx, sl2, Ls

    isc = (F(-32) / mx).astype(F)
    slx, sl2, L = sums(isc)
    scale = np.where(sl2 != 0, (slx / sl2).astype(F), F(0)).astype(F)
    best = (scale * slx).astype(F)
    for s in range(-9, 10):
        if s == 0:
            continue
        isc = (-(F(32) + F(0.1) * F(s)) / mx).astype(F)
        slx, sl2, Ls = sums(isc)
        u = (sl2 > 0) & ((slx * slx).astype(F) > (best * sl2).astype(F))
        L[u] = Ls[u]
        scale = np.where(u, (slx / sl2).astype(F), scale).astype(F)
        best = np.where(u, (scale * slx).astype(F), best).astype(F)
    L[zero] = 0
    return np.where(zero, F(0), scale).astype(F), L


def q6_k(x):
    """(rows, n) float32 -> (rows, n/256*210) uint8 (one row per super-block)."""
    x = np.asarray(x, F).reshape(-1, 256)
    R = x.shape[0]
    L = np.zeros((R, 256), np.int32)
    scales = np.zeros((R, 16), F)
    with np.errstate(all="ignore"):
        for g in range(16):
            scales[:, g], L[:, 16 * g: 16 * g + 16] = _qx16(x[:, 16 * g: 16 * g + 16])
        ms = np.zeros(R, F); ma = np.zeros(R, F)
        for g in range(16):
            a = np.abs(scales[:, g]); u = a > ma
            ma = np.where(u, a, ma); ms = np.where(u, scales[:, g], ms)
        zero = ma < F(1e-15)
        isc = (F(-128) / ms).astype(F)
        d16 = _f16((F(1) / isc).astype(F))
        sc = np.minimum(127, nint(isc[:, None] * scales)).astype(np.int8)
        D = d16.astype(F)
        for g in range(16):
            d = (D * sc[:, g].astype(F)).astype(F)
            l = np.clip(nint((x[:, 16 * g: 16 * g + 16] / d[:, None]).astype(F)), -32, 31) + 32
            live = d != 0
            L[live, 16 * g: 16 * g + 16] = l[live]
    ql = np.zeros((R, 128), np.int32); qh = np.zeros((R, 64), np.int32)
    for h in range(2):
        u = [L[:, 128 * h + 32 * k: 128 * h + 32 * k + 32] for k in range(4)]
        ql[:, 64 * h: 64 * h + 32] = (u[0] & 0xF) | ((u[2] & 0xF) << 4)
        ql[:, 64 * h + 32: 64 * h + 64] = (u[1] & 0xF) | ((u[3] & 0xF) << 4)
        qh[:, 32 * h: 32 * h + 32] = (u[0] >> 4) | ((u[1] >> 4) << 2) | ((u[2] >> 4) << 4) | ((u[3] >> 4) << 6)
    out = np.concatenate([ql.astype(np.uint8), qh.astype(np.uint8), sc.view(np.uint8),
                          d16.view(np.uint8).reshape(R, 2)], axis=1)
    out[zero] = 0
    return out


def _q3_16(x):
    """make_q3_quants(16, 4, x, L, true) per row of x (R, 16): (scale, L in 0..7; an all-zero group
    L = 0, as ggml). The coordinate passes are repeated five times for every row: a row whose pass
    changed nothing would change nothing again (its state is the same), so ggml's early exit gives
    the same result."""
    R, n = x.shape
    mx = np.zeros(R, F); amax = np.zeros(R, F)
    for i in range(n):
        ax = np.abs(x[:, i]); u = ax > amax
        amax = np.where(u, ax, amax); mx = np.where(u, x[:, i], mx)
    zero = amax < F(1e-15)
    isc = (F(-4) / mx).astype(F)
    L = np.zeros((R, n), np.int32)
    slx_t = np.zeros(R, F); sl2_t = np.zeros(R, F)
    for i in range(n):
        l = np.clip(nint(isc * x[:, i]), -4, 3)
        L[:, i] = l
        lf = l.astype(F)
        w = (x[:, i] * x[:, i]).astype(F)
        slx_t = (slx_t + (w * x[:, i]).astype(F) * lf).astype(F)
        sl2_t = (sl2_t + (w * lf).astype(F) * lf).astype(F)
    for _ in range(5):
        for i in range(n):
            w = (x[:, i] * x[:, i]).astype(F)
            Li = L[:, i].astype(F)
            slx = (slx_t - ((w * x[:, i]).astype(F) * Li).astype(F)).astype(F)
            pos = slx > 0
            sl2 = (sl2_t - ((w * Li).astype(F) * Li).astype(F)).astype(F)
            nl = np.clip(nint(((x[:, i] * sl2).astype(F) / slx).astype(F)), -4, 3)
            ch = pos & (nl != L[:, i])
            nlf = nl.astype(F)
            slx2 = (slx + ((w * x[:, i]).astype(F) * nlf).astype(F)).astype(F)
            sl22 = (sl2 + ((w * nlf).astype(F) * nlf).astype(F)).astype(F)
            acc = ch & (sl22 > 0) & (((slx2 * slx2).astype(F) * sl2_t).astype(F) > ((slx_t * slx_t).astype(F) * sl22).astype(F))
            L[acc, i] = nl[acc]
            slx_t = np.where(acc, slx2, slx_t).astype(F)
            sl2_t = np.where(acc, sl22, sl2_t).astype(F)
    L = L + 4
    scale = np.where(sl2_t > 0, (slx_t / sl2_t).astype(F), F(0)).astype(F)
    L[zero] = 0
    return np.where(zero, F(0), scale).astype(F), L


def _q3k_scales(sb):
    """(R, 12) scale bytes -> (R, 16) scales minus 32 (int64)."""
    sb = sb.astype(np.int64)
    out = np.zeros(sb.shape[:-1] + (16,), np.int64)
    for g in range(16):
        lo = sb[..., g] & 0xF if g < 8 else sb[..., g - 8] >> 4
        hi = (sb[..., 8 + g % 4] >> (2 * (g // 4))) & 3
        out[..., g] = (lo | (hi << 4)) - 32
    return out


def q3_k(x):
    """(rows, n) float32 -> (rows, n/256*110) uint8 (one row per super-block)."""
    x = np.asarray(x, F).reshape(-1, 256)
    R = x.shape[0]
    L = np.zeros((R, 256), np.int32)
    scales = np.zeros((R, 16), F)
    with np.errstate(all="ignore"):
        for g in range(16):
            scales[:, g], L[:, 16 * g: 16 * g + 16] = _q3_16(x[:, 16 * g: 16 * g + 16])
        ms = np.zeros(R, F); ma = np.zeros(R, F)
        for g in range(16):
            a = np.abs(scales[:, g]); u = a > ma
            ma = np.where(u, a, ma); ms = np.where(u, scales[:, g], ms)
        live = ms != 0  # C's if (max_scale): NaN counts as non-zero
        isc = (F(-32) / ms).astype(F)
        sb = np.zeros((R, 12), np.int64)
        for g in range(16):
            l = (nint(isc * scales[:, g]) & 0xFF).astype(np.uint8).view(np.int8).astype(np.int64)  # int8_t l = ...
            l = np.clip(l, -32, 31) + 32
            if g < 8:
                sb[:, g] = l & 0xF
            else:
                sb[:, g - 8] |= (l & 0xF) << 4
            sb[:, g % 4 + 8] |= (l >> 4) << (2 * (g // 4))
        sb[~live] = 0
        d16 = np.where(live, _f16((F(1) / isc).astype(F)), np.float16(0))
        sc = _q3k_scales(sb)
        D = d16.astype(F)
        for g in range(16):
            d = (D * sc[:, g].astype(F)).astype(F)
            l = np.clip(nint((x[:, 16 * g: 16 * g + 16] / d[:, None]).astype(F)), -4, 3) + 4
            nz = d != 0
            L[nz, 16 * g: 16 * g + 16] = l[nz]
    hm = np.zeros((R, 32), np.int64)
    for k in range(8):
        hi = L[:, 32 * k: 32 * k + 32] > 3
        hm |= hi.astype(np.int64) << k
        L[:, 32 * k: 32 * k + 32] -= 4 * hi
    qs = np.zeros((R, 64), np.int64)
    for h in range(2):
        b = 128 * h
        qs[:, 32 * h: 32 * h + 32] = L[:, b: b + 32] | (L[:, b + 32: b + 64] << 2) | (L[:, b + 64: b + 96] << 4) | (L[:, b + 96: b + 128] << 6)
    return np.concatenate([hm.astype(np.uint8), qs.astype(np.uint8), sb.astype(np.uint8),
                           d16.view(np.uint8).reshape(R, 2)], axis=1)


def q2_k(x):
    """(rows, n) float32 -> (rows, n/256*84) uint8 (one row per super-block)."""
    x = np.asarray(x, F).reshape(-1, 256)
    R = x.shape[0]
    L = np.zeros((R, 256), np.int64)
    scales = np.zeros((R, 16), F); mins = np.zeros((R, 16), F)
    with np.errstate(all="ignore"):
        for g in range(16):
            xs = x[:, 16 * g: 16 * g + 16]
            scales[:, g], mins[:, g], L[:, 16 * g: 16 * g + 16] = _qkx2(xs, np.abs(xs), 3, -0.5, 15, True)
        ms = np.zeros(R, F); mm = np.zeros(R, F)
        for g in range(16):
            ms = np.where(scales[:, g] > ms, scales[:, g], ms)
            mm = np.where(mins[:, g] > mm, mins[:, g], mm)
        ls, lm = ms > 0, mm > 0
        isc = (F(15) / ms).astype(F)
        sb = np.where(ls[:, None], nint(isc[:, None] * scales) & 0xFF, 0).astype(np.int64)
        d16 = np.where(ls, _f16((ms / F(15)).astype(F)), np.float16(0))
        imn = (F(15) / mm).astype(F)
        sb = np.where(lm[:, None], sb | ((nint(imn[:, None] * mins) << 4) & 0xFF), sb) & 0xFF
        dm16 = np.where(lm, _f16((mm / F(15)).astype(F)), np.float16(0))
        D, DM = d16.astype(F), dm16.astype(F)
        for g in range(16):
            d = (D * (sb[:, g] & 0xF).astype(F)).astype(F)
            dm = (DM * (sb[:, g] >> 4).astype(F)).astype(F)
            l = np.clip(nint(((x[:, 16 * g: 16 * g + 16] + dm[:, None]) / d[:, None]).astype(F)), 0, 3)
            nz = d != 0
            L[nz, 16 * g: 16 * g + 16] = l[nz]
    qs = np.zeros((R, 64), np.int64)
    for h in range(2):
        b = 128 * h
        qs[:, 32 * h: 32 * h + 32] = L[:, b: b + 32] | (L[:, b + 32: b + 64] << 2) | (L[:, b + 64: b + 96] << 4) | (L[:, b + 96: b + 128] << 6)
    return np.concatenate([sb.astype(np.uint8), qs.astype(np.uint8), d16.view(np.uint8).reshape(R, 2),
                           dm16.view(np.uint8).reshape(R, 2)], axis=1)


def q8_k(x):
    """(rows, n) float32 -> (d (R,) float32, q (R, 256) int8, bsums (R, 16) int32) per super-block
    (ggml's block_q8_K; bsums of an all-zero block are 0)."""
    x = np.asarray(x, F).reshape(-1, 256)
    R = x.shape[0]
    mx = np.zeros(R, F); amax = np.zeros(R, F)
    for i in range(256):
        ax = np.abs(x[:, i]); u = ax > amax
        amax = np.where(u, ax, amax); mx = np.where(u, x[:, i], mx)
    with np.errstate(all="ignore"):
        isc = (F(-127) / mx).astype(F)
        q = np.minimum(127, nint(isc[:, None] * x)).astype(np.int8)
        d = (F(1) / isc).astype(F)
    zero = amax == 0
    q[zero] = 0
    d = np.where(zero, F(0), d).astype(F)
    return d, q, q.astype(np.int32).reshape(R, 16, 16).sum(axis=2)


def q8_k_bytes(x):
    d, q, bs = q8_k(x)
    R = q.shape[0]
    return np.concatenate([d.view(np.uint8).reshape(R, 4), q.view(np.uint8),
                           bs.astype(np.int16).view(np.uint8).reshape(R, 32)], axis=1)


def product(fmt, x, qw, N, K, bias):
    """The k-quant product formula of src/kernels/quant.h in numpy float32: (M, N)."""
    M, nb = x.shape[0], K // 256
    bsz = {"q2_k": 84, "q3_k": 110, "q4_k": 144, "q5_k": 176, "q6_k": 210}[fmt]
    wb = qw.reshape(N, nb, bsz)
    da, aq, abs_ = q8_k(x)
    da, aq, abs_ = da.reshape(M, nb), aq.reshape(M, nb, 256).astype(np.int64), abs_.reshape(M, nb, 16).astype(np.int64)
    if fmt in ("q4_k", "q5_k"):
        dw = wb[:, :, 0:2].copy().view(np.float16).astype(F)[:, :, 0]
        dmw = wb[:, :, 2:4].copy().view(np.float16).astype(F)[:, :, 0]
        s = wb[:, :, 4:16].astype(np.int64)
        sc = np.zeros((N, nb, 8), np.int64); mn = np.zeros((N, nb, 8), np.int64)
        for j in range(8):
            if j < 4:
                sc[:, :, j], mn[:, :, j] = s[:, :, j] & 63, s[:, :, j + 4] & 63
            else:
                sc[:, :, j] = (s[:, :, j + 4] & 0xF) | ((s[:, :, j - 4] >> 6) << 4)
                mn[:, :, j] = (s[:, :, j + 4] >> 4) | ((s[:, :, j] >> 6) << 4)
        qs = wb[:, :, 16 if fmt == "q4_k" else 48:].astype(np.int64).reshape(N, nb, 4, 32)
        vals = np.stack([qs & 0xF, qs >> 4], axis=3).reshape(N, nb, 8, 32)
        if fmt == "q5_k":  # bit j of qh[l]: the fifth bit of value 32j + l
            qh = wb[:, :, 16:48].astype(np.int64)
            vals = vals | np.stack([((qh >> j) & 1) << 4 for j in range(8)], axis=2)
    elif fmt == "q2_k":
        sb = wb[:, :, 0:16].astype(np.int64); qs = wb[:, :, 16:80].astype(np.int64)
        sc, mn = sb & 0xF, sb >> 4
        dw = wb[:, :, 80:82].copy().view(np.float16).astype(F)[:, :, 0]
        dmw = wb[:, :, 82:84].copy().view(np.float16).astype(F)[:, :, 0]
        v = np.zeros((N, nb, 256), np.int64)
        for j in range(8):
            h, k = j // 4, j % 4
            v[:, :, 32 * j: 32 * j + 32] = (qs[:, :, 32 * h: 32 * h + 32] >> (2 * k)) & 3
        vals = v.reshape(N, nb, 16, 16)
    elif fmt == "q3_k":
        hm = wb[:, :, 0:32].astype(np.int64); qs = wb[:, :, 32:96].astype(np.int64)
        sc = _q3k_scales(wb[:, :, 96:108])
        dw = wb[:, :, 108:110].copy().view(np.float16).astype(F)[:, :, 0]
        v = np.zeros((N, nb, 256), np.int64)
        for j in range(8):  # values 32j .. 32j+31: h = j // 4, bits 2(j % 4) of qs[32h + l], bit j of hm[l]
            h, k = j // 4, j % 4
            v[:, :, 32 * j: 32 * j + 32] = (((qs[:, :, 32 * h: 32 * h + 32] >> (2 * k)) & 3) | (((hm >> j) & 1) << 2)) - 4
        vals = v.reshape(N, nb, 16, 16)
    else:
        ql = wb[:, :, 0:128].astype(np.int64); qh = wb[:, :, 128:192].astype(np.int64)
        sc = wb[:, :, 192:208].copy().view(np.int8).astype(np.int64)
        dw = wb[:, :, 208:210].copy().view(np.float16).astype(F)[:, :, 0]
        v = np.zeros((N, nb, 256), np.int64)
        for h in range(2):
            l0, l1, hh = ql[:, :, 64 * h: 64 * h + 32], ql[:, :, 64 * h + 32: 64 * h + 64], qh[:, :, 32 * h: 32 * h + 32]
            parts = [(l0 & 0xF) | ((hh & 3) << 4), (l1 & 0xF) | (((hh >> 2) & 3) << 4),
                     (l0 >> 4) | (((hh >> 4) & 3) << 4), (l1 >> 4) | (((hh >> 6) & 3) << 4)]
            for k in range(4):
                v[:, :, 128 * h + 32 * k: 128 * h + 32 * k + 32] = parts[k] - 32
        vals = v.reshape(N, nb, 16, 16)
    y = np.zeros((M, N), F)
    for m in range(M):
        if fmt in ("q4_k", "q5_k"):
            isum = (sc * (vals * aq[m].reshape(1, nb, 8, 32)).sum(axis=3)).sum(axis=2)
            msum = (mn * abs_[m].reshape(1, nb, 8, 2).sum(axis=3)).sum(axis=2)
        else:
            isum = (sc * (vals * aq[m].reshape(1, nb, 16, 16)).sum(axis=3)).sum(axis=2)
            if fmt == "q2_k":
                msum = (mn * abs_[m].reshape(1, nb, 16)).sum(axis=2)
        acc = np.zeros(N, F)
        for i in range(nb):
            t = ((dw[:, i] * da[m, i]).astype(F) * isum[:, i].astype(F)).astype(F)
            if fmt in ("q2_k", "q4_k", "q5_k"):
                u = ((dmw[:, i] * da[m, i]).astype(F) * msum[:, i].astype(F)).astype(F)
                t = (t - u).astype(F)
            acc = (acc + t).astype(F)
        y[m] = acc + bias if bias is not None else acc
    return y
