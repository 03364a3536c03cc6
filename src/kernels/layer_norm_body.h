/* layer_norm_body.h — the steps of kernels/layer_norm.c for one type: included with LN_T (float
 * or double), LN_FMA / LN_SQRT (its fma / sqrt) and LN_N(name) (the type's function names). */
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
        for (int64_t j = 0; j < N; j++) {
            LN_T bj = b ? b[j] : (LN_T)0;
            if (!md.fused) yr[j] = (xr[j] + nm) * rs * (w ? w[j] : (LN_T)1) + bj;
            else if (w) yr[j] = LN_FMA((xr[j] + nm) * rs, w[j], bj);
            else yr[j] = LN_FMA(xr[j] + nm, rs, bj);
        }
        mean[r] = mu;
        rstd[r] = rs;
    }
}

static void LN_N(portable)(ln_model md, const LN_T *x, const LN_T *w, const LN_T *b, LN_T *y, LN_T *mean,
                        LN_T *rstd, int64_t M, int64_t N, double eps) {
    LN_N(rows)(md, x, w, b, y, mean, rstd, M, N, eps);
}

#if defined(__x86_64__)
/* Same steps with LN_FMA as one instruction and the lane loops vectorised (hosts with AVX2 + FMA;
 * contraction stays off, so every lane rounds as the scalar code). The lane count is made a
 * constant so the compiler can unroll and vectorise the lane loops. */
__attribute__((target("avx2,fma"))) static void LN_N(fma_host)(ln_model md, const LN_T *x, const LN_T *w,
                                                            const LN_T *b, LN_T *y, LN_T *mean, LN_T *rstd,
                                                            int64_t M, int64_t N, double eps) {
    if (md.lanes == 8) LN_N(rows)((ln_model){8, 1}, x, w, b, y, mean, rstd, M, N, eps);
    else if (md.lanes == 4) LN_N(rows)((ln_model){4, 1}, x, w, b, y, mean, rstd, M, N, eps);
    else LN_N(rows)(md, x, w, b, y, mean, rstd, M, N, eps);
}
#endif

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

/* sum over j of f(j) as vec::map*_reduce_all folds it; f(j) = p[j] * q[j] * r[j] with q or r
 * NULL meaning absent (multiplying by 1 is skipped, as the lambdas skip it). */
static inline __attribute__((always_inline)) LN_T LN_N(prod)(const LN_T *p, const LN_T *q, const LN_T *r, int64_t j) {
    LN_T v = p[j];
    if (q) v = v * q[j];
    if (r) v = v * r[j];
    return v;
}
static inline __attribute__((always_inline)) LN_T LN_N(acc)(ln_model md, LN_T acc, const LN_T *p, const LN_T *q, const LN_T *r, int64_t j) {
    if (!md.fused || !q) return acc + LN_N(prod)(p, q, r, j);
    if (!r) return LN_FMA(p[j], q[j], acc);
    return LN_FMA(p[j] * q[j], r[j], acc);
}
static inline __attribute__((always_inline)) LN_T LN_N(reduce)(ln_model md, const LN_T *p, const LN_T *q, const LN_T *r, int64_t N) {
    const int L = md.lanes;
    LN_T v[LN_MAXL];
    if (N < L) {
        LN_T s = N > 0 ? LN_N(prod)(p, q, r, 0) : (LN_T)0;
        for (int64_t j = 1; j < N; j++) s = s + LN_N(prod)(p, q, r, j);
        return s;
    }
    for (int l = 0; l < L; l++) v[l] = LN_N(prod)(p, q, r, l);
    int64_t d = L;
    /* whole vectors: a multiply then an add, also on AVX2 (measured); the blended tail fused */
    for (; d < N - N % L; d += L)
        for (int l = 0; l < L; l++) v[l] = v[l] + LN_N(prod)(p, q, r, d + l);
    for (int l = 0; d + l < N; l++) v[l] = LN_N(acc)(md, v[l], p, q, r, d + l);
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

static inline __attribute__((always_inline)) void LN_N(bwd_rows)(ln_model md, const LN_T *dy, const LN_T *x, const LN_T *mean, const LN_T *rstd,
                               const LN_T *gamma, LN_T *dx, LN_T *dgamma, LN_T *dbeta, int64_t M, int64_t N) {
    const LN_T scale = (LN_T)1 / (LN_T)N;
    if (dgamma) memset(dgamma, 0, sizeof(LN_T) * (size_t)N);
    if (dbeta) memset(dbeta, 0, sizeof(LN_T) * (size_t)N);
    for (int64_t i = 0; i < M; i++) {
        const LN_T *dyr = dy + i * N, *xr = x + i * N;
        const LN_T a = rstd[i], mu = mean[i];
        if (dgamma) {
            const LN_T b = -a * mu;
            for (int64_t j = 0; j < N; j++)
                dgamma[j] = md.fused ? LN_FMA(dyr[j], LN_FMA(a, xr[j], b), dgamma[j]) : dgamma[j] + dyr[j] * (a * xr[j] + b);
        }
        if (dbeta)
            for (int64_t j = 0; j < N; j++) dbeta[j] = dbeta[j] + dyr[j];
        if (dx) {
            LN_T ds = LN_N(reduce)(md, dyr, xr, gamma, N);
            LN_T db = gamma ? LN_N(reduce)(md, dyr, gamma, NULL, N) : LN_N(reduce)(md, dyr, NULL, NULL, N);
            LN_T b, c;
            if (md.fused) {
                b = LN_FMA(db, mu, -ds) * a * a * a * scale;
                c = LN_FMA(-b, mu, -(db * a * scale));
            } else {
                b = (db * mu - ds) * a * a * a * scale;
                c = -b * mu - db * a * scale;
            }
            LN_T *dxr = dx + i * N;
            for (int64_t j = 0; j < N; j++) {
                LN_T t = gamma ? a * dyr[j] * gamma[j] : a * dyr[j];
                dxr[j] = (md.fused ? LN_FMA(b, xr[j], t) : t + b * xr[j]) + c;
            }
        }
    }
    /* the second pass: 0 + the one thread's buffer (turns -0 into +0) */
    if (dgamma)
        for (int64_t j = 0; j < N; j++) dgamma[j] = (LN_T)0 + dgamma[j];
    if (dbeta)
        for (int64_t j = 0; j < N; j++) dbeta[j] = (LN_T)0 + dbeta[j];
}

static void LN_N(bwd_portable)(ln_model md, const LN_T *dy, const LN_T *x, const LN_T *mean, const LN_T *rstd,
                            const LN_T *gamma, LN_T *dx, LN_T *dgamma, LN_T *dbeta, int64_t M, int64_t N) {
    LN_N(bwd_rows)(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static void LN_N(bwd_fma_host)(ln_model md, const LN_T *dy, const LN_T *x,
                                                                const LN_T *mean, const LN_T *rstd,
                                                                const LN_T *gamma, LN_T *dx, LN_T *dgamma,
                                                                LN_T *dbeta, int64_t M, int64_t N) {
    if (md.lanes == 8) LN_N(bwd_rows)((ln_model){8, 1}, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
    else if (md.lanes == 4) LN_N(bwd_rows)((ln_model){4, 1}, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
    else LN_N(bwd_rows)(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
}
#endif

