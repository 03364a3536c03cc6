/* layer_norm_body.h — the steps of kernels/layer_norm.c for one type: included with LN_T (float
 * or double), LN_FMA / LN_SQRT (its fma / sqrt), LN_N(name) (the type's internal names) and LN_PUB(name)
 * (its public names: name_f32 / name_f64). */
static inline __attribute__((always_inline)) LN_T LN_N(fma)(int fused, LN_T a, LN_T b, LN_T c) { return fused ? LN_FMA(a, b, c) : a * b + c; }

/* Merge lane state (m0a, m1a, m2a) into (m0, m1, m2), every lane at once. */
static inline __attribute__((always_inline)) void LN_N(merge)(ln_model md, int64_t m0a, const LN_T *m1a, const LN_T *m2a, int64_t *m0, LN_T *m1,
                            LN_T *m2) {
    int64_t n = *m0 + m0a;
    LN_T c = n == 0 ? (LN_T)0 : (LN_T)m0a / (LN_T)n;
    LN_T f0 = (LN_T)*m0;
    for (int l = 0; l < md.lanes; l++) {
        LN_T d = m1a[l] - m1[l];
        LN_T t = m2[l] + m2a[l];
        LN_T cd = c * d;
        m1[l] = m1[l] + cd;
        m2[l] = LN_N(fma)(md.fused, d * f0, cd, t);
    }
    *m0 = n;
}

static inline __attribute__((always_inline)) void LN_N(moments)(ln_model md, const LN_T *x, int64_t N, LN_T *mean, LN_T *var) {
    const int L = md.lanes;
    int64_t n = N / L, chunks = (n + LN_CHUNK - 1) / LN_CHUNK;
    int depth = 0;
    while (((int64_t)1 << depth) < chunks) depth++;
    int64_t s0[64] = {0};
    LN_T s1[64][LN_MAXL], s2[64][LN_MAXL], cv[LN_CHUNK];
    memset(s1, 0, sizeof(LN_T) * LN_MAXL * (depth ? depth : 1));
    memset(s2, 0, sizeof(LN_T) * LN_MAXL * (depth ? depth : 1));
    for (int j = 0; j < LN_CHUNK; j++) cv[j] = (LN_T)1 / (LN_T)(j + 1);
    for (int64_t i = 0; i < chunks; i++) {
        const LN_T *xp = x + i * LN_CHUNK * L;
        int64_t cnt = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;
        LN_T a1[LN_MAXL] = {0}, a2[LN_MAXL] = {0};
        for (int64_t j = 0; j < cnt; j++)
            for (int l = 0; l < L; l++) {
                LN_T v = xp[j * L + l], d = v - a1[l];
                a1[l] = LN_N(fma)(md.fused, cv[j], d, a1[l]);
                a2[l] = LN_N(fma)(md.fused, d, v - a1[l], a2[l]);
            }
        LN_N(merge)(md, cnt, a1, a2, &s0[0], s1[0], s2[0]);
        int64_t mask = i + 1;
        for (int j = 1; j < depth && (mask & 1) == 0; j++) {
            LN_N(merge)(md, s0[j - 1], s1[j - 1], s2[j - 1], &s0[j], s1[j], s2[j]);
            s0[j - 1] = 0;
            memset(s1[j - 1], 0, sizeof s1[0]);
            memset(s2[j - 1], 0, sizeof s2[0]);
            mask >>= 1;
        }
    }
    for (int i = 1; i < depth; i++) LN_N(merge)(md, s0[i], s1[i], s2[i], &s0[0], s1[0], s2[0]);
    /* depth 0 (at most one chunk): the stack's slot 0 was still written by LN_N(merge) above */
    int64_t c0 = 0;
    LN_T m1 = (LN_T)0, m2 = (LN_T)0;
    for (int64_t i = n * L; i < N; i++) {
        LN_T v = x[i], d = v - m1;
        ++c0;
        m1 += d / (LN_T)c0;
        m2 += d * (v - m1);
    }
    for (int l = 0; l < L; l++) {
        int64_t t = c0 + n;
        LN_T c = t == 0 ? (LN_T)0 : (LN_T)n / (LN_T)t;
        LN_T d = s1[0][l] - m1;
        if (md.fused) {
            m1 = LN_FMA(c, d, m1);
            m2 = m2 + LN_FMA(d * d * c, (LN_T)c0, s2[0][l]);
        } else {
            m1 += c * d;
            m2 += s2[0][l] + d * d * c * (LN_T)c0;
        }
        c0 = t;
    }
    *mean = m1;
    *var = m2 / (LN_T)N;
}

static inline __attribute__((always_inline)) void LN_N(rows)(ln_model md, const LN_T *x, const LN_T *w, const LN_T *b, LN_T *y, LN_T *mean,
                           LN_T *rstd, int64_t M, int64_t N, double eps) {
    LN_T e = (LN_T)eps;
    for (int64_t r = 0; r < M; r++) {
        const LN_T *xr = x + r * N;
        LN_T *yr = y + r * N;
        LN_T mu, var;
        LN_N(moments)(md, xr, N, &mu, &var);
        LN_T rs = (LN_T)1 / LN_SQRT(var + e), nm = -mu;
        /* one loop per case, so each vectorises (an absent beta adds +0, an absent gamma is a
         * multiply by 1 that upstream's compiler folded away) */
#define LN_Y(expr) for (int64_t j = 0; j < N; j++) yr[j] = (expr)
        if (!md.fused) {
            if (w && b) LN_Y((xr[j] + nm) * rs * w[j] + b[j]);
            else if (w) LN_Y((xr[j] + nm) * rs * w[j] + (LN_T)0);
            else if (b) LN_Y((xr[j] + nm) * rs + b[j]);
            else LN_Y((xr[j] + nm) * rs + (LN_T)0);
        } else if (w) {
            if (b) LN_Y(LN_FMA((xr[j] + nm) * rs, w[j], b[j]));
            else LN_Y(LN_FMA((xr[j] + nm) * rs, w[j], (LN_T)0));
        } else if (b) LN_Y(LN_FMA(xr[j] + nm, rs, b[j]));
        else LN_Y(LN_FMA(xr[j] + nm, rs, (LN_T)0));
#undef LN_Y
        mean[r] = mu;
        rstd[r] = rs;
    }
}

/* ---------------------------------------------------------------- backward
 * Upstream's LayerNormBackwardKernelImplInternal with one thread (its per-thread dgamma / dbeta
 * buffers are then one row each, summed into 0): per row, dgamma_buf += dy * (rstd * x +
 * (-rstd * mean)), dbeta_buf += dy; ds = sum(dy * x * gamma), db = sum(dy * gamma) by its
 * vec::map*_reduce_all (one vector accumulator: the first vector's products, then the others
 * added lane-wise, the tail's lanes blended in, then the lanes folded: for float a halving tree on
 * AVX2, in order on DEFAULT; fewer elements than a vector: folded in order);
 * b = (db * mean - ds) * a^3 / N, c = -b * mean - db * a / N, dx = a * dy * gamma + b * x + c.
 * Contractions on AVX2 (measured, 110 shapes x masks bit-identical only this way): dgamma's
 * fma(dy, fma(a, x, b), buf); the reduce's blended tail fma(p, q, acc) / fma(p*q, r, acc) but
 * not its whole-vector steps; b = fma(db, mean, -ds) * a * a * a / N; c = fma(-b, mean, -(db*a/N));
 * dx = fma(b, x, a * dy * gamma) + c. */

/* sum over j of f(j) as vec::map*_reduce_all folds it; f(j) = p[j] * q[j] * r[j] with its first
 * k factors (k = 1, 2 or 3, a constant at every call so each loop is compiled for one product;
 * multiplying by an absent factor is skipped, as the lambdas skip it). */
static inline __attribute__((always_inline)) LN_T LN_N(prod)(int k, const LN_T *p, const LN_T *q, const LN_T *r, int64_t j) {
    LN_T v = p[j];
    if (k > 1) v = v * q[j];
    if (k > 2) v = v * r[j];
    return v;
}
static inline __attribute__((always_inline)) LN_T LN_N(acc)(ln_model md, int k, LN_T acc, const LN_T *p, const LN_T *q, const LN_T *r, int64_t j) {
    if (!md.fused || k == 1) return acc + LN_N(prod)(k, p, q, r, j);
    if (k == 2) return LN_FMA(p[j], q[j], acc);
    return LN_FMA(p[j] * q[j], r[j], acc);
}
static inline __attribute__((always_inline)) LN_T LN_N(reduce)(ln_model md, int k, const LN_T *p, const LN_T *q, const LN_T *r, int64_t N) {
    const int L = md.lanes;
    LN_T v[LN_MAXL] = {0};
    if (N < L) {
        LN_T s = N > 0 ? LN_N(prod)(k, p, q, r, 0) : (LN_T)0;
        for (int64_t j = 1; j < N; j++) s = s + LN_N(prod)(k, p, q, r, j);
        return s;
    }
    for (int l = 0; l < L; l++) v[l] = LN_N(prod)(k, p, q, r, l);
    int64_t d = L;
    /* whole vectors: a multiply then an add, also on AVX2 (measured); the blended tail fused */
    for (; d < N - N % L; d += L)
        for (int l = 0; l < L; l++) v[l] = v[l] + LN_N(prod)(k, p, q, r, d + l);
    for (int l = 0; d + l < N; l++) v[l] = LN_N(acc)(md, k, v[l], p, q, r, d + l);
    /* lanes in order on DEFAULT, and for double everywhere (measured on AVX2: upstream's
     * shuffle-tree fold, VecReduceAllSIMD, is float-only) */
    if (!md.fused || sizeof(LN_T) == 8) {
        LN_T s = v[0];
        for (int l = 1; l < L; l++) s = s + v[l];
        return s;
    }
    for (int h = L / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) v[l] = v[l] + v[l + h];
    return v[0];
}

/* dx for rows [0, M) (each row on its own) */
static inline __attribute__((always_inline)) void LN_N(dx_rows)(ln_model md, const LN_T *dy, const LN_T *x, const LN_T *mean,
                                                            const LN_T *rstd, const LN_T *gamma, LN_T *dx, int64_t M,
                                                            int64_t N) {
    const LN_T scale = (LN_T)1 / (LN_T)N;
    for (int64_t i = 0; i < M; i++) {
        const LN_T *dyr = dy + i * N, *xr = x + i * N;
        const LN_T a = rstd[i], mu = mean[i];
        LN_T ds = gamma ? LN_N(reduce)(md, 3, dyr, xr, gamma, N) : LN_N(reduce)(md, 2, dyr, xr, NULL, N);
        LN_T db = gamma ? LN_N(reduce)(md, 2, dyr, gamma, NULL, N) : LN_N(reduce)(md, 1, dyr, NULL, NULL, N);
        LN_T b, c;
        if (md.fused) {
            b = LN_FMA(db, mu, -ds) * a * a * a * scale;
            c = LN_FMA(-b, mu, -(db * a * scale));
        } else {
            b = (db * mu - ds) * a * a * a * scale;
            c = -b * mu - db * a * scale;
        }
        LN_T *dxr = dx + i * N;
#define LN_DX(t) for (int64_t j = 0; j < N; j++) dxr[j] = (md.fused ? LN_FMA(b, xr[j], (t)) : (t) + b * xr[j]) + c
        if (gamma) LN_DX(a * dyr[j] * gamma[j]);
        else LN_DX(a * dyr[j]);
#undef LN_DX
    }
}

/* dgamma / dbeta for columns [j0, j1): every column sums its rows in row order, so splitting the
 * columns keeps the one-thread bits. The second pass, 0 + the one thread's buffer, turns -0 into
 * +0. */
static inline __attribute__((always_inline)) void LN_N(dparam_cols)(ln_model md, const LN_T *dy, const LN_T *x,
                                                                const LN_T *mean, const LN_T *rstd, LN_T *dgamma,
                                                                LN_T *dbeta, int64_t M, int64_t N, int64_t j0,
                                                                int64_t j1) {
    if (dgamma) {
        for (int64_t j = j0; j < j1; j++) dgamma[j] = (LN_T)0;
        for (int64_t i = 0; i < M; i++) {
            const LN_T *dyr = dy + i * N, *xr = x + i * N;
            const LN_T a = rstd[i], b = -a * mean[i];
            if (md.fused)
                for (int64_t j = j0; j < j1; j++) dgamma[j] = LN_FMA(dyr[j], LN_FMA(a, xr[j], b), dgamma[j]);
            else
                for (int64_t j = j0; j < j1; j++) dgamma[j] = dgamma[j] + dyr[j] * (a * xr[j] + b);
        }
        for (int64_t j = j0; j < j1; j++) dgamma[j] = (LN_T)0 + dgamma[j];
    }
    if (dbeta) {
        for (int64_t j = j0; j < j1; j++) dbeta[j] = (LN_T)0;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = j0; j < j1; j++) dbeta[j] = dbeta[j] + dy[i * N + j];
        for (int64_t j = j0; j < j1; j++) dbeta[j] = (LN_T)0 + dbeta[j];
    }
}

/* ---------------------------------------------------------------- entry points
 * One job shape for the three passes (forward rows, dx rows, parameter-gradient columns), run
 * over the intra-op pool. Each pass runs in the AVX2 + FMA clone when the model is fused and the
 * host has FMA (the fused steps are then one instruction and the lane loops are vectorised with
 * the lane count as a constant; contraction stays off, so every lane rounds as the portable
 * code), else portably. */
typedef struct {
    ln_model md;
    const LN_T *x, *w, *b, *dy, *mean_in, *rstd_in;
    LN_T *y, *mean, *rstd, *dx, *dgamma, *dbeta;
    int64_t M, N;
    double eps;
} LN_N(job);

static inline __attribute__((always_inline)) void LN_N(pass)(ln_model md, int which, LN_N(job) *j, int64_t s,
                                                         int64_t e) {
    int64_t o = s * j->N;
    if (which == 0) LN_N(rows)(md, j->x + o, j->w, j->b, j->y + o, j->mean + s, j->rstd + s, e - s, j->N, j->eps);
    else if (which == 1)
        LN_N(dx_rows)(md, j->dy + o, j->x + o, j->mean_in + s, j->rstd_in + s, j->w, j->dx + o, e - s, j->N);
    else LN_N(dparam_cols)(md, j->dy, j->x, j->mean_in, j->rstd_in, j->dgamma, j->dbeta, j->M, j->N, s, e);
}

static void LN_N(run_portable)(int which, LN_N(job) *j, int64_t s, int64_t e) { LN_N(pass)(j->md, which, j, s, e); }

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static void LN_N(run_fma)(int which, LN_N(job) *j, int64_t s, int64_t e) {
    if (j->md.lanes == 8) LN_N(pass)((ln_model){8, 1}, which, j, s, e);
    else LN_N(pass)((ln_model){4, 1}, which, j, s, e);
}
#endif

static void LN_N(run)(int which, LN_N(job) *j, int64_t s, int64_t e) {
#if defined(__x86_64__)
    if (j->md.fused && ln_has_fma) {
        LN_N(run_fma)(which, j, s, e);
        return;
    }
#endif
    LN_N(run_portable)(which, j, s, e);
}
static void LN_N(fwd_chunk)(int64_t s, int64_t e, void *ctx) { LN_N(run)(0, ctx, s, e); }
static void LN_N(dx_chunk)(int64_t s, int64_t e, void *ctx) { LN_N(run)(1, ctx, s, e); }
static void LN_N(dparam_chunk)(int64_t s, int64_t e, void *ctx) { LN_N(run)(2, ctx, s, e); }

static ln_model LN_N(model)(void) {
    ln_model md = ln_pick();
    if (sizeof(LN_T) == 8) md.lanes /= 2; /* Vectorized<double>: half the floats */
    return md;
}

void LN_PUB(tn_layer_norm)(const LN_T *x, const LN_T *w, const LN_T *b, LN_T *y, LN_T *mean, LN_T *rstd, int64_t M,
                           int64_t N, double eps) {
    LN_N(job) j = {.md = LN_N(model)(), .x = x, .w = w, .b = b, .y = y, .mean = mean, .rstd = rstd, .M = M, .N = N,
                   .eps = eps};
    tn_parallel_for(M, ln_grain(N), LN_N(fwd_chunk), &j);
}

void LN_PUB(tn_layer_norm_backward)(const LN_T *dy, const LN_T *x, const LN_T *mean, const LN_T *rstd,
                                    const LN_T *gamma, LN_T *dx, LN_T *dgamma, LN_T *dbeta, int64_t M, int64_t N) {
    LN_N(job) j = {.md = LN_N(model)(), .x = x, .w = gamma, .dy = dy, .mean_in = mean, .rstd_in = rstd, .dx = dx,
                   .dgamma = dgamma, .dbeta = dbeta, .M = M, .N = N};
    if (dx) tn_parallel_for(M, ln_grain(N), LN_N(dx_chunk), &j);
    if (dgamma || dbeta) tn_parallel_for(N, ln_grain(M) < 16 ? 16 : ln_grain(M), LN_N(dparam_chunk), &j);
}
