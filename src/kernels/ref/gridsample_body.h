/* gridsample_body.h — the grid sampler loops for one compute type R (float or double), included
 * twice by gridsample.c with R and SFX defined. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define FN(name) CAT(name, SFX)

static inline R FN(unnorm)(const tn_gs_plan *p, R x, int64_t size, R *g) {
    if (p->k == 2) {   /* the vectorised 2-d kernel: (x + 1) * scale, less 0.5 when not aligned */
        R s = p->align ? (R)(size - 1) / 2 : (R)size / 2;
        *g = s;
        return p->align ? (x + 1) * s : (x + 1) * s - (R)0.5;
    }
    if (p->align) {
        *g = (R)(size - 1) / 2;
        return ((x + 1) / 2) * (R)(size - 1);
    }
    *g = (R)size / 2;
    return ((x + 1) * (R)size - 1) / 2;
}
static inline R FN(clip)(R x, int64_t lim, R *g) {
    if (x <= 0) { *g = 0; return 0; }
    R m = (R)(lim - 1);
    if (x >= m) { *g = 0; return m; }
    *g = 1;
    return x;
}
static inline R FN(reflect)(R x, int64_t tlow, int64_t thigh, R *g) {
    if (tlow == thigh) { *g = 0; return 0; }
    R mn = (R)tlow / 2, span = (R)(thigh - tlow) / 2, mult = 1;
    x = x - mn;
    if (x < 0) { mult = -1; x = -x; }
    R extra = CAT(fmod, FSFX)(x, span);
    int64_t flips = (int64_t)CAT(floor, FSFX)(x / span);
    if (flips % 2 == 0) { *g = mult; return extra + mn; }
    *g = -mult;
    return span - extra + mn;
}
/* the vectorised 2-d kernel's reflection: |x - low| folded by trunc(/ twice_span), the nearer
 * of extra and twice_span - extra, low added back; gradient sign from the fold and the side */
static inline R FN(reflect2)(const tn_gs_plan *p, R x, int64_t size, R *g) {
    R low = p->align ? 0 : (R)-0.5, ts = p->align ? (R)(size - 1) * 2 : (R)size * 2;
    if (p->align && size <= 1) { *g = 0; return 0; }
    R in = x - low;
    bool neg = in < 0;
    R a = CAT(fabs, FSFX)(in), flips = CAT(trunc, FSFX)(a / ts), extra = a - flips * ts, refl = ts - extra;
    bool more = extra > refl;
    *g = (more != neg) ? -1 : 1;
    return (more ? refl : extra) + low;
}
/* padding applied to an unnormalized coordinate; *g multiplies the gradient */
static inline R FN(pad_coord)(const tn_gs_plan *p, R x, int64_t size, R *g) {
    R g1 = 1, g2 = 1;
    if (p->k == 2 && p->pad != 0) {   /* 2-d clamps a NaN to 0 (clamp_min(0, x) first) */
        if (p->pad == 2) x = FN(reflect2)(p, x, size, &g1);
        if (x != x) { *g = 0; return 0; }
        x = FN(clip)(x, size, &g2);
        *g = g1 * g2;
        return x;
    }
    if (p->pad == 1) x = FN(clip)(x, size, &g1);
    else if (p->pad == 2) {
        if (!(x == x) || CAT(fabs, FSFX)(x) > (R)1e30) { *g = 0; return x; }
        x = p->align ? FN(reflect)(x, 0, 2 * (size - 1), &g1) : FN(reflect)(x, -1, 2 * size - 1, &g1);
        x = FN(clip)(x, size, &g2);
    }
    *g = g1 * g2;
    return x;
}
static inline R FN(source)(const tn_gs_plan *p, R x, int64_t size, R *g) {
    R gu, gp;
    x = FN(unnorm)(p, x, size, &gu);
    x = FN(pad_coord)(p, x, size, &gp);
    *g = gu * gp;
    return x;
}
/* integer index of a floored / rounded coordinate; non-finite or huge -> out of range */
static inline int64_t FN(ix)(R v) { return (v == v && v > (R)-1e15 && v < (R)1e15) ? (int64_t)v : INT64_MIN / 2; }

static inline R FN(cc1)(R x, R A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
static inline R FN(cc2)(R x, R A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }
static inline void FN(cubic_coeffs)(R c[4], R t) {
    R A = (R)-0.75;
    c[0] = FN(cc2)(t + 1, A);
    c[1] = FN(cc1)(t, A);
    c[2] = FN(cc1)(1 - t, A);
    c[3] = FN(cc2)(2 - t, A);
}
static inline void FN(cubic_coeffs_grad)(R c[4], R t) {
    R A = (R)-0.75, x;
    x = -1 - t;
    c[0] = (-3 * A * x - 10 * A) * x - 8 * A;
    x = -t;
    c[1] = (-3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 1 - t;
    c[2] = (3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 2 - t;
    c[3] = (3 * A * x - 10 * A) * x + 8 * A;
}

static inline R FN(in_at)(const tn_gs_plan *p, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
    return (R)ld(p->dt, p->in, n * p->ist[0] + c * p->ist[1] + d * p->ist[2] + h * p->ist[3] + w * p->ist[4]);
}
static inline bool FN(inb)(const tn_gs_plan *p, int64_t d, int64_t h, int64_t w) {
    return d >= 0 && d < p->isz[0] && h >= 0 && h < p->isz[1] && w >= 0 && w < p->isz[2];
}
/* bicubic tap: padding applied to the tap's coordinate, 0 outside */
static inline bool FN(tap)(const tn_gs_plan *p, R x, R y, int64_t *xi, int64_t *yi) {
    R g;
    x = FN(pad_coord)(p, x, p->isz[2], &g);
    y = FN(pad_coord)(p, y, p->isz[1], &g);
    *xi = FN(ix)(x);
    *yi = FN(ix)(y);
    return FN(inb)(p, 0, *yi, *xi);
}

static void FN(gs_fwd)(const tn_gs_plan *p, int64_t begin, int64_t end) {
    int64_t oD = p->osz[0], oH = p->osz[1], oW = p->osz[2], osp = oD * oH * oW, C = p->C;
    for (int64_t q = begin; q < end; q++) {
        int64_t n = q / osp, r = q % osp, od = r / (oH * oW), oh = (r / oW) % oH, ow = r % oW;
        int64_t go = n * p->gst[0] + od * p->gst[1] + oh * p->gst[2] + ow * p->gst[3];
        R gx = (R)ld(p->dt, p->grid, go), gy = (R)ld(p->dt, p->grid, go + p->gst[4]);
        R gz = p->k == 3 ? (R)ld(p->dt, p->grid, go + 2 * p->gst[4]) : 0, gm;
        int64_t ob = n * C * osp + r;
        if (p->mode == 2) {
            R x = FN(unnorm)(p, gx, p->isz[2], &gm), y = FN(unnorm)(p, gy, p->isz[1], &gm);
            R x0 = CAT(floor, FSFX)(x), y0 = CAT(floor, FSFX)(y), tx = x - x0, ty = y - y0, cx[4], cy[4];
            FN(cubic_coeffs)(cx, tx);
            FN(cubic_coeffs)(cy, ty);
            for (int64_t c = 0; c < C; c++) {
                R rows[4];
                for (int j = 0; j < 4; j++) {
                    R acc = 0;
                    for (int i = 0; i < 4; i++) {
                        int64_t xi, yi;
                        R v = FN(tap)(p, x0 - 1 + i, y0 - 1 + j, &xi, &yi) ? FN(in_at)(p, n, c, 0, yi, xi) : 0;
                        acc = i == 0 ? v * cx[0] : acc + v * cx[i];
                    }
                    rows[j] = acc;
                }
                st(p->dt, p->out, ob + c * osp, rows[0] * cy[0] + rows[1] * cy[1] + rows[2] * cy[2] + rows[3] * cy[3]);
            }
            continue;
        }
        R x = FN(source)(p, gx, p->isz[2], &gm), y = FN(source)(p, gy, p->isz[1], &gm);
        R z = p->k == 3 ? FN(source)(p, gz, p->isz[0], &gm) : 0;
        if (p->mode == 1) {
            int64_t xi = FN(ix)(CAT(nearbyint, FSFX)(x)), yi = FN(ix)(CAT(nearbyint, FSFX)(y)), zi = p->k == 3 ? FN(ix)(CAT(nearbyint, FSFX)(z)) : 0;
            bool ok = FN(inb)(p, zi, yi, xi);
            for (int64_t c = 0; c < C; c++) st(p->dt, p->out, ob + c * osp, ok ? FN(in_at)(p, n, c, zi, yi, xi) : 0);
            continue;
        }
        if (p->k == 2) {
            R x0 = CAT(floor, FSFX)(x), y0 = CAT(floor, FSFX)(y);
            int64_t xw = FN(ix)(x0), yn = FN(ix)(y0);
            R w = x - x0, e = 1 - w, nn = y - y0, s = 1 - nn;
            R wnw = s * e, wne = s * w, wsw = nn * e, wse = nn * w;
            bool bnw = FN(inb)(p, 0, yn, xw), bne = FN(inb)(p, 0, yn, xw + 1), bsw = FN(inb)(p, 0, yn + 1, xw), bse = FN(inb)(p, 0, yn + 1, xw + 1);
            for (int64_t c = 0; c < C; c++) {
                R vnw = bnw ? FN(in_at)(p, n, c, 0, yn, xw) : 0, vne = bne ? FN(in_at)(p, n, c, 0, yn, xw + 1) : 0;
                R vsw = bsw ? FN(in_at)(p, n, c, 0, yn + 1, xw) : 0, vse = bse ? FN(in_at)(p, n, c, 0, yn + 1, xw + 1) : 0;
                st(p->dt, p->out, ob + c * osp, vnw * wnw + vne * wne + vsw * wsw + vse * wse);
            }
            continue;
        }
        /* trilinear, as upstream's scalar 3-d kernel */
        R fx = CAT(floor, FSFX)(x), fy = CAT(floor, FSFX)(y), fz = CAT(floor, FSFX)(z);
        int64_t x0 = FN(ix)(fx), y0 = FN(ix)(fy), z0 = FN(ix)(fz);
        R X1 = fx + 1, Y1 = fy + 1, Z1 = fz + 1;
        R w[8] = {(X1 - x) * (Y1 - y) * (Z1 - z), (x - fx) * (Y1 - y) * (Z1 - z), (X1 - x) * (y - fy) * (Z1 - z), (x - fx) * (y - fy) * (Z1 - z),
                  (X1 - x) * (Y1 - y) * (z - fz), (x - fx) * (Y1 - y) * (z - fz), (X1 - x) * (y - fy) * (z - fz), (x - fx) * (y - fy) * (z - fz)};
        for (int64_t c = 0; c < C; c++) {
            R acc = 0;
            for (int k = 0; k < 8; k++) {
                int64_t xi = x0 + (k & 1), yi = y0 + ((k >> 1) & 1), zi = z0 + (k >> 2);
                if (FN(inb)(p, zi, yi, xi)) acc += FN(in_at)(p, n, c, zi, yi, xi) * w[k];
            }
            st(p->dt, p->out, ob + c * osp, acc);
        }
    }
}

static inline void FN(gadd)(const tn_gs_plan *p, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w, R v) {
    if (!p->ginp || !FN(inb)(p, d, h, w)) return;
    R *g = (R *)p->ginp;
    g[(((n * p->C + c) * p->isz[0] + d) * p->isz[1] + h) * p->isz[2] + w] += v;
}

static void FN(gs_bwd)(const tn_gs_plan *p) {
    int64_t oD = p->osz[0], oH = p->osz[1], oW = p->osz[2], osp = oD * oH * oW, C = p->C;
    for (int64_t q = 0; q < p->N * osp; q++) {
        int64_t n = q / osp, r = q % osp, od = r / (oH * oW), oh = (r / oW) % oH, ow = r % oW;
        int64_t go = n * p->gst[0] + od * p->gst[1] + oh * p->gst[2] + ow * p->gst[3];
        int64_t gob = n * p->gost[0] + od * p->gost[2] + oh * p->gost[3] + ow * p->gost[4];
        R gx = (R)ld(p->dt, p->grid, go), gy = (R)ld(p->dt, p->grid, go + p->gst[4]);
        R gz = p->k == 3 ? (R)ld(p->dt, p->grid, go + 2 * p->gst[4]) : 0;
        R mx, my, mz = 0, gix = 0, giy = 0, giz = 0;
        int64_t gg = q * p->k;
        if (p->mode == 2) {
            R x = FN(unnorm)(p, gx, p->isz[2], &mx), y = FN(unnorm)(p, gy, p->isz[1], &my);
            R x0 = CAT(floor, FSFX)(x), y0 = CAT(floor, FSFX)(y), tx = x - x0, ty = y - y0, cx[4], cy[4], dx[4], dy[4];
            FN(cubic_coeffs)(cx, tx);
            FN(cubic_coeffs)(cy, ty);
            FN(cubic_coeffs_grad)(dx, tx);
            FN(cubic_coeffs_grad)(dy, ty);
            for (int64_t c = 0; c < C; c++) {
                R go_ = (R)ld(p->dt, p->gout, gob + c * p->gost[1]);
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++) {
                        int64_t xi, yi;
                        bool ok = FN(tap)(p, x0 - 1 + i, y0 - 1 + j, &xi, &yi);
                        if (ok) FN(gadd)(p, n, c, 0, yi, xi, go_ * cx[i] * cy[j]);
                        R v = ok ? FN(in_at)(p, n, c, 0, yi, xi) : 0;
                        gix = gix - v * go_ * dx[i] * cy[j];
                        giy = giy - v * go_ * dy[j] * cx[i];
                    }
            }
            st(p->dt, p->ggrid, gg, mx * gix);
            st(p->dt, p->ggrid, gg + 1, my * giy);
            continue;
        }
        R x = FN(source)(p, gx, p->isz[2], &mx), y = FN(source)(p, gy, p->isz[1], &my);
        R z = p->k == 3 ? FN(source)(p, gz, p->isz[0], &mz) : 0;
        if (p->mode == 1) {
            int64_t xi = FN(ix)(CAT(nearbyint, FSFX)(x)), yi = FN(ix)(CAT(nearbyint, FSFX)(y)), zi = p->k == 3 ? FN(ix)(CAT(nearbyint, FSFX)(z)) : 0;
            for (int64_t c = 0; c < C; c++) FN(gadd)(p, n, c, zi, yi, xi, (R)ld(p->dt, p->gout, gob + c * p->gost[1]));
            for (int k = 0; k < p->k; k++) st(p->dt, p->ggrid, gg + k, 0);
            continue;
        }
        if (p->k == 2) {
            R fx = CAT(floor, FSFX)(x), fy = CAT(floor, FSFX)(y);
            int64_t xw = FN(ix)(fx), yn = FN(ix)(fy);
            R w = x - fx, e = 1 - w, nn = y - fy, s = 1 - nn;
            for (int64_t c = 0; c < C; c++) {
                R go_ = (R)ld(p->dt, p->gout, gob + c * p->gost[1]);
                FN(gadd)(p, n, c, 0, yn, xw, s * e * go_);
                FN(gadd)(p, n, c, 0, yn, xw + 1, s * w * go_);
                FN(gadd)(p, n, c, 0, yn + 1, xw, nn * e * go_);
                FN(gadd)(p, n, c, 0, yn + 1, xw + 1, nn * w * go_);
                R vnw = FN(inb)(p, 0, yn, xw) ? FN(in_at)(p, n, c, 0, yn, xw) : 0, vne = FN(inb)(p, 0, yn, xw + 1) ? FN(in_at)(p, n, c, 0, yn, xw + 1) : 0;
                R vsw = FN(inb)(p, 0, yn + 1, xw) ? FN(in_at)(p, n, c, 0, yn + 1, xw) : 0;
                R vse = FN(inb)(p, 0, yn + 1, xw + 1) ? FN(in_at)(p, n, c, 0, yn + 1, xw + 1) : 0;
                gix += ((vne - vnw) * s + (vse - vsw) * nn) * go_;
                giy += ((vsw - vnw) * e + (vse - vne) * w) * go_;
            }
            st(p->dt, p->ggrid, gg, mx * gix);
            st(p->dt, p->ggrid, gg + 1, my * giy);
            continue;
        }
        R fx = CAT(floor, FSFX)(x), fy = CAT(floor, FSFX)(y), fz = CAT(floor, FSFX)(z);
        int64_t x0 = FN(ix)(fx), y0 = FN(ix)(fy), z0 = FN(ix)(fz);
        R X1 = fx + 1, Y1 = fy + 1, Z1 = fz + 1;
        R ax[2] = {X1 - x, x - fx}, ay[2] = {Y1 - y, y - fy}, az[2] = {Z1 - z, z - fz};
        for (int64_t c = 0; c < C; c++) {
            R go_ = (R)ld(p->dt, p->gout, gob + c * p->gost[1]);
            for (int k = 0; k < 8; k++) {
                int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
                FN(gadd)(p, n, c, z0 + bz, y0 + by, x0 + bx, ax[bx] * ay[by] * az[bz] * go_);
            }
            for (int k = 0; k < 8; k++) {
                int bx = k & 1, by = (k >> 1) & 1, bz = k >> 2;
                if (!FN(inb)(p, z0 + bz, y0 + by, x0 + bx)) continue;
                R v = FN(in_at)(p, n, c, z0 + bz, y0 + by, x0 + bx);
                R sx = bx ? 1 : -1, sy = by ? 1 : -1, sz = bz ? 1 : -1;
                gix += sx * v * ay[by] * az[bz] * go_;
                giy += sy * v * ax[bx] * az[bz] * go_;
                giz += sz * v * ax[bx] * ay[by] * go_;
            }
        }
        st(p->dt, p->ggrid, gg, mx * gix);
        st(p->dt, p->ggrid, gg + 1, my * giy);
        st(p->dt, p->ggrid, gg + 2, mz * giz);
    }
}

#undef FN
#undef CAT
#undef CAT_
