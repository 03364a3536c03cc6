/* layer_norm.c — float32 layer norm forward with upstream's CPU rounding (declared in
 * kernels/nn.h). See docs/layer_norm.md.
 *
 * Upstream 2.13.0 (aten/src/ATen/native/cpu/layer_norm_kernel.cpp, moments_utils.h) computes
 * each row's mean and variance by Welford over Vectorized<float> lanes in chunks of 16 vectors,
 * folds the chunks with a cascade (binary-counter) stack, runs scalar Welford over the elements
 * past the last whole vector, then folds the lanes into that scalar state one by one; then
 * rstd = 1 / sqrt(var + eps) and y = (x - mean) * rstd * gamma + beta. Its bits depend on the
 * ATen CPU capability it runs at:
 *   - the lane count: 8 floats (DEFAULT and AVX2), 16 (AVX-512);
 *   - fused multiply-adds: the explicit fmadd() of the lane updates is one instruction on AVX2 /
 *     AVX-512 and a multiply then an add on DEFAULT; the AVX2 / AVX-512 build also lets the
 *     compiler contract the scalar lane fold (mean += c * d; m2 += m2_add + d*d*c*m0) and the
 *     last step of y (gamma and beta present: fma((x - mean) * rstd, gamma, beta); gamma absent:
 *     fma(x - mean, rstd, beta), the multiply by 1 folded away), but not the scalar tail's
 *     m2 += d * (x - mean) (measured: bit-identical on 352 shapes only that way).
 * The lanes are simulated in portable C (this file builds with -std=c11, so the compiler
 * contracts nothing itself; every fused step is an explicit fmaf). Which model runs follows
 * the CPU as upstream's dispatch does (AVX-512F -> 16 lanes fused, AVX2+FMA -> 8 lanes fused,
 * else 8 lanes unfused); TN_LNORM=default|avx2|avx512 (or, when that is unset,
 * ATEN_CPU_CAPABILITY) forces one, to compare against upstream forced onto the same path. */
#include "kernels/nn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LN_MAXL 16
#define LN_CHUNK 16

typedef struct {
    int lanes;
    int fused;
} ln_model;

static inline float ln_fma(int fused, float a, float b, float c) { return fused ? fmaf(a, b, c) : a * b + c; }

/* Merge lane state (m0a, m1a, m2a) into (m0, m1, m2), every lane at once. */
static inline void ln_merge(ln_model md, int64_t m0a, const float *m1a, const float *m2a, int64_t *m0, float *m1,
                            float *m2) {
    int64_t n = *m0 + m0a;
    float c = n == 0 ? 0.0f : (float)m0a / (float)n;
    float f0 = (float)*m0;
    for (int l = 0; l < md.lanes; l++) {
        float d = m1a[l] - m1[l];
        float t = m2[l] + m2a[l];
        float cd = c * d;
        m1[l] = m1[l] + cd;
        m2[l] = ln_fma(md.fused, d * f0, cd, t);
    }
    *m0 = n;
}

static inline void ln_moments(ln_model md, const float *x, int64_t N, float *mean, float *var) {
    const int L = md.lanes;
    int64_t n = N / L, chunks = (n + LN_CHUNK - 1) / LN_CHUNK;
    int depth = 0;
    while (((int64_t)1 << depth) < chunks) depth++;
    int64_t s0[64] = {0};
    float s1[64][LN_MAXL], s2[64][LN_MAXL], cv[LN_CHUNK];
    memset(s1, 0, sizeof(float) * LN_MAXL * (depth ? depth : 1));
    memset(s2, 0, sizeof(float) * LN_MAXL * (depth ? depth : 1));
    for (int j = 0; j < LN_CHUNK; j++) cv[j] = 1.0f / (float)(j + 1);
    for (int64_t i = 0; i < chunks; i++) {
        const float *xp = x + i * LN_CHUNK * L;
        int64_t cnt = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;
        float a1[LN_MAXL] = {0}, a2[LN_MAXL] = {0};
        for (int64_t j = 0; j < cnt; j++)
            for (int l = 0; l < L; l++) {
                float v = xp[j * L + l], d = v - a1[l];
                a1[l] = ln_fma(md.fused, cv[j], d, a1[l]);
                a2[l] = ln_fma(md.fused, d, v - a1[l], a2[l]);
            }
        ln_merge(md, cnt, a1, a2, &s0[0], s1[0], s2[0]);
        int64_t mask = i + 1;
        for (int j = 1; j < depth && (mask & 1) == 0; j++) {
            ln_merge(md, s0[j - 1], s1[j - 1], s2[j - 1], &s0[j], s1[j], s2[j]);
            s0[j - 1] = 0;
            memset(s1[j - 1], 0, sizeof s1[0]);
            memset(s2[j - 1], 0, sizeof s2[0]);
            mask >>= 1;
        }
    }
    for (int i = 1; i < depth; i++) ln_merge(md, s0[i], s1[i], s2[i], &s0[0], s1[0], s2[0]);
    /* depth 0 (at most one chunk): the stack's slot 0 was still written by ln_merge above */
    int64_t c0 = 0;
    float m1 = 0.0f, m2 = 0.0f;
    for (int64_t i = n * L; i < N; i++) {
        float v = x[i], d = v - m1;
        ++c0;
        m1 += d / (float)c0;
        m2 += d * (v - m1);
    }
    for (int l = 0; l < L; l++) {
        int64_t t = c0 + n;
        float c = t == 0 ? 0.0f : (float)n / (float)t;
        float d = s1[0][l] - m1;
        if (md.fused) {
            m1 = fmaf(c, d, m1);
            m2 = m2 + fmaf(d * d * c, (float)c0, s2[0][l]);
        } else {
            m1 += c * d;
            m2 += s2[0][l] + d * d * c * (float)c0;
        }
        c0 = t;
    }
    *mean = m1;
    *var = m2 / (float)N;
}

static inline void ln_rows(ln_model md, const float *x, const float *w, const float *b, float *y, float *mean,
                           float *rstd, int64_t M, int64_t N, double eps) {
    float e = (float)eps;
    for (int64_t r = 0; r < M; r++) {
        const float *xr = x + r * N;
        float *yr = y + r * N;
        float mu, var;
        ln_moments(md, xr, N, &mu, &var);
        float rs = 1.0f / sqrtf(var + e), nm = -mu;
        for (int64_t j = 0; j < N; j++) {
            float bj = b ? b[j] : 0.0f;
            if (!md.fused) yr[j] = (xr[j] + nm) * rs * (w ? w[j] : 1.0f) + bj;
            else if (w) yr[j] = fmaf((xr[j] + nm) * rs, w[j], bj);
            else yr[j] = fmaf(xr[j] + nm, rs, bj);
        }
        mean[r] = mu;
        rstd[r] = rs;
    }
}

static void ln_portable(ln_model md, const float *x, const float *w, const float *b, float *y, float *mean,
                        float *rstd, int64_t M, int64_t N, double eps) {
    ln_rows(md, x, w, b, y, mean, rstd, M, N, eps);
}

#if defined(__x86_64__)
/* Same steps with fmaf as one instruction (hosts with FMA; contraction stays off). */
__attribute__((target("fma"))) static void ln_fma_host(ln_model md, const float *x, const float *w, const float *b,
                                                       float *y, float *mean, float *rstd, int64_t M, int64_t N,
                                                       double eps) {
    ln_rows(md, x, w, b, y, mean, rstd, M, N, eps);
}
#endif

static int ln_pick_done;
static ln_model ln_chosen;
#if defined(__x86_64__)
static int ln_has_fma;
#endif

static int ln_named(const char *s, ln_model *m) {
    if (!s || !*s) return 0;
    if (!strcmp(s, "default") || !strcmp(s, "DEFAULT")) *m = (ln_model){8, 0};
    else if (!strcmp(s, "avx2") || !strcmp(s, "AVX2")) *m = (ln_model){8, 1};
    else if (!strcmp(s, "avx512") || !strcmp(s, "AVX512")) *m = (ln_model){16, 1};
    else return 0;
    return 1;
}

static ln_model ln_pick(void) {
    if (!ln_pick_done) { /* benign race: every thread computes the same values */
        ln_model m = {8, 0};
#if defined(__x86_64__)
        __builtin_cpu_init();
        ln_has_fma = __builtin_cpu_supports("fma");
        if (__builtin_cpu_supports("avx512f")) m = (ln_model){16, 1};
        else if (__builtin_cpu_supports("avx2") && ln_has_fma) m = (ln_model){8, 1};
#endif
        if (!ln_named(getenv("TN_LNORM"), &m)) ln_named(getenv("ATEN_CPU_CAPABILITY"), &m);
        ln_chosen = m;
        ln_pick_done = 1;
    }
    return ln_chosen;
}

void tn_layer_norm_f32(const float *x, const float *w, const float *b, float *y, float *mean, float *rstd,
                       int64_t M, int64_t N, double eps) {
    ln_model md = ln_pick();
#if defined(__x86_64__)
    if (md.fused && ln_has_fma) {
        ln_fma_host(md, x, w, b, y, mean, rstd, M, N, eps);
        return;
    }
#endif
    ln_portable(md, x, w, b, y, mean, rstd, M, N, eps);
}

/* ---------------------------------------------------------------- backward
 * Upstream's LayerNormBackwardKernelImplInternal with one thread (its per-thread dgamma / dbeta
 * buffers are then one row each, summed into 0): per row, dgamma_buf += dy * (rstd * x +
 * (-rstd * mean)), dbeta_buf += dy; ds = sum(dy * x * gamma), db = sum(dy * gamma) by its
 * vec::map*_reduce_all (one vector accumulator: the first vector's products, then the others
 * added lane-wise, the tail's lanes blended in, then the lanes folded: a halving tree on
 * AVX2 / AVX-512, in order on DEFAULT; fewer elements than a vector: folded in order);
 * b = (db * mean - ds) * a^3 / N, c = -b * mean - db * a / N, dx = a * dy * gamma + b * x + c.
 * Contractions on AVX2 (measured, 110 shapes x masks bit-identical only this way): dgamma's
 * fma(dy, fma(a, x, b), buf); the reduce's blended tail fma(p, q, acc) / fma(p*q, r, acc) but
 * not its whole-vector steps; b = fma(db, mean, -ds) * a * a * a / N; c = fma(-b, mean, -(db*a/N));
 * dx = fma(b, x, a * dy * gamma) + c. */

/* sum over j of f(j) as vec::map*_reduce_all folds it; f(j) = p[j] * q[j] * r[j] with q or r
 * NULL meaning absent (multiplying by 1 is skipped, as the lambdas skip it). */
static inline float ln_prod(const float *p, const float *q, const float *r, int64_t j) {
    float v = p[j];
    if (q) v = v * q[j];
    if (r) v = v * r[j];
    return v;
}
static inline float ln_acc(ln_model md, float acc, const float *p, const float *q, const float *r, int64_t j) {
    if (!md.fused || !q) return acc + ln_prod(p, q, r, j);
    if (!r) return fmaf(p[j], q[j], acc);
    return fmaf(p[j] * q[j], r[j], acc);
}
static inline float ln_reduce(ln_model md, const float *p, const float *q, const float *r, int64_t N) {
    const int L = md.lanes;
    float v[LN_MAXL];
    if (N < L) {
        float s = N > 0 ? ln_prod(p, q, r, 0) : 0.0f;
        for (int64_t j = 1; j < N; j++) s = s + ln_prod(p, q, r, j);
        return s;
    }
    for (int l = 0; l < L; l++) v[l] = ln_prod(p, q, r, l);
    int64_t d = L;
    /* whole vectors: a multiply then an add, also on AVX2 (measured); the blended tail fused */
    for (; d < N - N % L; d += L)
        for (int l = 0; l < L; l++) v[l] = v[l] + ln_prod(p, q, r, d + l);
    for (int l = 0; d + l < N; l++) v[l] = ln_acc(md, v[l], p, q, r, d + l);
    if (!md.fused) { /* DEFAULT: lanes in order */
        float s = v[0];
        for (int l = 1; l < L; l++) s = s + v[l];
        return s;
    }
    for (int h = L / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) v[l] = v[l] + v[l + h];
    return v[0];
}

static inline void ln_bwd_rows(ln_model md, const float *dy, const float *x, const float *mean, const float *rstd,
                               const float *gamma, float *dx, float *dgamma, float *dbeta, int64_t M, int64_t N) {
    const float scale = 1.0f / (float)N;
    if (dgamma) memset(dgamma, 0, sizeof(float) * (size_t)N);
    if (dbeta) memset(dbeta, 0, sizeof(float) * (size_t)N);
    for (int64_t i = 0; i < M; i++) {
        const float *dyr = dy + i * N, *xr = x + i * N;
        const float a = rstd[i], mu = mean[i];
        if (dgamma) {
            const float b = -a * mu;
            for (int64_t j = 0; j < N; j++)
                dgamma[j] = md.fused ? fmaf(dyr[j], fmaf(a, xr[j], b), dgamma[j]) : dgamma[j] + dyr[j] * (a * xr[j] + b);
        }
        if (dbeta)
            for (int64_t j = 0; j < N; j++) dbeta[j] = dbeta[j] + dyr[j];
        if (dx) {
            float ds = ln_reduce(md, dyr, xr, gamma, N);
            float db = gamma ? ln_reduce(md, dyr, gamma, NULL, N) : ln_reduce(md, dyr, NULL, NULL, N);
            float b, c;
            if (md.fused) {
                b = fmaf(db, mu, -ds) * a * a * a * scale;
                c = fmaf(-b, mu, -(db * a * scale));
            } else {
                b = (db * mu - ds) * a * a * a * scale;
                c = -b * mu - db * a * scale;
            }
            float *dxr = dx + i * N;
            for (int64_t j = 0; j < N; j++) {
                float t = gamma ? a * dyr[j] * gamma[j] : a * dyr[j];
                dxr[j] = (md.fused ? fmaf(b, xr[j], t) : t + b * xr[j]) + c;
            }
        }
    }
    /* the second pass: 0 + the one thread's buffer (turns -0 into +0) */
    if (dgamma)
        for (int64_t j = 0; j < N; j++) dgamma[j] = 0.0f + dgamma[j];
    if (dbeta)
        for (int64_t j = 0; j < N; j++) dbeta[j] = 0.0f + dbeta[j];
}

static void ln_bwd_portable(ln_model md, const float *dy, const float *x, const float *mean, const float *rstd,
                            const float *gamma, float *dx, float *dgamma, float *dbeta, int64_t M, int64_t N) {
    ln_bwd_rows(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
}

#if defined(__x86_64__)
__attribute__((target("fma"))) static void ln_bwd_fma_host(ln_model md, const float *dy, const float *x,
                                                           const float *mean, const float *rstd, const float *gamma,
                                                           float *dx, float *dgamma, float *dbeta, int64_t M,
                                                           int64_t N) {
    ln_bwd_rows(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
}
#endif

void tn_layer_norm_backward_f32(const float *dy, const float *x, const float *mean, const float *rstd,
                                const float *gamma, float *dx, float *dgamma, float *dbeta, int64_t M, int64_t N) {
    ln_model md = ln_pick();
#if defined(__x86_64__)
    if (md.fused && ln_has_fma) {
        ln_bwd_fma_host(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
        return;
    }
#endif
    ln_bwd_portable(md, dy, x, mean, rstd, gamma, dx, dgamma, dbeta, M, N);
}
