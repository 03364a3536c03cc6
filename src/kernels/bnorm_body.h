/* bnorm_body.h — the batch-norm kernels of kernels/bnorm.h written once as a macro over the element
 * type, the fused multiply-add and a function attribute: ref/bnorm.c instantiates them with libm's
 * fma, x86/bnorm_fma.c with the FMA instruction (target "avx2,fma", so the loops vectorise). The
 * build is ISO C (no contraction), so both give the same bits. Included by those two files only.
 *
 * NCHW float statistics (docs/speed_training.md, "Batch norm"): upstream sums each channel in one
 * sequential double chain, which is latency-bound. Here each channel is summed in 8 independent
 * double lanes, with a bound E on how far that sum and the sequential one can each be from the
 * exact sum (u = 2^-53; sequential: u * sum of |partial sums|, bounded per block of 64 elements by
 * |prefix before the block| + sum of |x| in the block). When (float)((s - E) / n) and
 * (float)((s + E) / n) agree, upstream's mean (a monotone function of its sum, which lies within
 * E of s) is that float; otherwise (and for non-finite sums) the channel is summed sequentially.
 * The variance sum (non-negative terms) is checked the same way with E = 3u * n * s. Double input
 * keeps the sequential chains (its result is the double sum itself, order-sensitive). */
#ifndef TN_KERNELS_BNORM_BODY_H
#define TN_KERNELS_BNORM_BODY_H

#include "kernels/bnorm.h"

#include "core/parallel.h"

#include <math.h>

#define TN_BN_GRAIN(work) ((work) > 0 ? (32768 / (work) + 1) : 1)
#define TN_BN_LANES 8
#define TN_BN_BLOCK 64

/* the prototypes of one instantiation P (for the file that dispatches to it) */
#define TN_BN_KERNELS_DECL(P, T)                                                                  \
    void P##_stats(const tn_bn_geom *g, const T *x, T *mean, T *var_sum, int64_t parts, T *scratch); \
    void P##_affine(const tn_bn_geom *g, const T *x, const T *alpha, const T *beta, T *y);        \
    void P##_backward(const tn_bn_geom *g, const T *dy, const T *x, const T *mean, const T *invstd, \
                      const T *w, bool train, T *dx, double *sum_dy, double *dotp);

#define TN_BN_KERNELS(P, T, FMA, ATTR)                                                            \
    typedef struct { const tn_bn_geom *g; const T *x; T *mean, *var_sum, *buf; int64_t parts, chunk, rows; \
                     int phase; } P##_stats_ctx;                                                  \
    /* upstream's order: one sequential double chain per channel */                               \
    ATTR static T P##_seq_mean(const tn_bn_geom *g, const T *x, int64_t c) {                      \
        double sum = 0.0;                                                                         \
        for (int64_t k = 0; k < g->nb; k++) {                                                     \
            const T *p = x + (k * g->C + c) * g->hw;                                              \
            for (int64_t i = 0; i < g->hw; i++) sum += p[i];                                      \
        }                                                                                         \
        return (T)(sum / (double)(g->nb * g->hw));                                                \
    }                                                                                             \
    ATTR static T P##_seq_var(const tn_bn_geom *g, const T *x, int64_t c, T m) {                  \
        double vs = 0.0;                                                                          \
        for (int64_t k = 0; k < g->nb; k++) {                                                     \
            const T *p = x + (k * g->C + c) * g->hw;                                              \
            for (int64_t i = 0; i < g->hw; i++) { T d = p[i] - m; vs += (T)(d * d); }             \
        }                                                                                         \
        return (T)vs;                                                                             \
    }                                                                                             \
    /* the lane sums and bounds described above; false when the check fails */                    \
    ATTR static bool P##_fast_mean(const tn_bn_geom *g, const T *x, int64_t c, T *out) {          \
        double total = 0.0, bnd = 0.0;                                                            \
        for (int64_t k = 0; k < g->nb; k++) {                                                     \
            const T *p = x + (k * g->C + c) * g->hw;                                              \
            for (int64_t i0 = 0; i0 < g->hw; i0 += TN_BN_BLOCK) {                                 \
                int64_t len = g->hw - i0 < TN_BN_BLOCK ? g->hw - i0 : TN_BN_BLOCK, i = 0;         \
                const T *q = p + i0;                                                              \
                double s[TN_BN_LANES] = {0}, a[TN_BN_LANES] = {0};                                \
                for (; i + TN_BN_LANES <= len; i += TN_BN_LANES)                                  \
                    for (int l = 0; l < TN_BN_LANES; l++) {                                       \
                        double v = q[i + l];                                                      \
                        s[l] += v;                                                                \
                        a[l] += fabs(v);                                                          \
                    }                                                                             \
                for (; i < len; i++) { s[0] += q[i]; a[0] += fabs((double)q[i]); }                \
                double bs = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));    \
                double ba = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));    \
                bnd += (double)len * (fabs(total) + ba);                                          \
                total += bs;                                                                      \
            }                                                                                     \
        }                                                                                         \
        double n = (double)(g->nb * g->hw), e = 3.0 * 0x1p-53 * (bnd + fabs(total));             \
        T lo = (T)((total - e) / n), hi = (T)((total + e) / n);                                   \
        if (!(lo == hi)) return false;                                                            \
        *out = lo;                                                                                \
        return true;                                                                              \
    }                                                                                             \
    ATTR static bool P##_fast_var(const tn_bn_geom *g, const T *x, int64_t c, T m, T *out) {      \
        double s[TN_BN_LANES] = {0};                                                              \
        for (int64_t k = 0; k < g->nb; k++) {                                                     \
            const T *p = x + (k * g->C + c) * g->hw;                                              \
            int64_t i = 0;                                                                        \
            for (; i + TN_BN_LANES <= g->hw; i += TN_BN_LANES)                                    \
                for (int l = 0; l < TN_BN_LANES; l++) { T d = p[i + l] - m; s[l] += (T)(d * d); } \
            for (; i < g->hw; i++) { T d = p[i] - m; s[0] += (T)(d * d); }                        \
        }                                                                                         \
        double t = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));             \
        double e = 3.0 * 0x1p-53 * (double)(g->nb * g->hw) * t;                                   \
        T lo = (T)(t - e), hi = (T)(t + e);                                                       \
        if (!(lo == hi)) return false;                                                            \
        *out = lo;                                                                                \
        return true;                                                                              \
    }                                                                                             \
    ATTR static void P##_stats_chan(int64_t b, int64_t e, void *ctx) {                            \
        P##_stats_ctx *s = ctx;                                                                   \
        const tn_bn_geom *g = s->g;                                                               \
        bool fast = sizeof(T) == sizeof(float);                                                   \
        for (int64_t c = b; c < e; c++) {                                                         \
            T m, v;                                                                               \
            if (!(fast && P##_fast_mean(g, s->x, c, &m))) m = P##_seq_mean(g, s->x, c);           \
            if (!(fast && P##_fast_var(g, s->x, c, m, &v))) v = P##_seq_var(g, s->x, c, m);       \
            s->mean[c] = m;                                                                       \
            s->var_sum[c] = v;                                                                    \
        }                                                                                         \
    }                                                                                             \
    ATTR static void P##_stats_part(int64_t b, int64_t e, void *ctx) {                            \
        P##_stats_ctx *s = ctx;                                                                   \
        int64_t C = s->g->C;                                                                      \
        for (int64_t p = b; p < e; p++) {                                                         \
            T *acc = s->buf + p * C;                                                              \
            int64_t r0 = p * s->chunk, r1 = r0 + s->chunk < s->rows ? r0 + s->chunk : s->rows;    \
            for (int64_t c = 0; c < C; c++) acc[c] = 0;                                           \
            for (int64_t r = r0; r < r1; r++) {                                                   \
                const T *xr = s->x + r * C;                                                       \
                if (s->phase == 0)                                                                \
                    for (int64_t c = 0; c < C; c++) acc[c] = acc[c] + xr[c];                      \
                else                                                                              \
                    for (int64_t c = 0; c < C; c++) {                                             \
                        T d = xr[c] - s->mean[c];                                                 \
                        acc[c] = FMA(d, d, acc[c]);                                               \
                    }                                                                             \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    ATTR void P##_stats(const tn_bn_geom *g, const T *x, T *mean, T *var_sum, int64_t parts, T *scratch) { \
        P##_stats_ctx s = {g, x, mean, var_sum, scratch, parts, 0, g->nb * g->hw, 0};             \
        if (!g->cl) {                                                                             \
            tn_parallel_for(g->C, TN_BN_GRAIN(2 * g->nb * g->hw), P##_stats_chan, &s);            \
            return;                                                                               \
        }                                                                                         \
        s.chunk = (s.rows + parts - 1) / parts;                                                   \
        for (int phase = 0; phase < 2; phase++) {                                                 \
            s.phase = phase;                                                                      \
            tn_parallel_for(parts, 1, P##_stats_part, &s);                                        \
            for (int64_t c = 0; c < g->C; c++) {                                                  \
                double t = 0.0;                                                                   \
                for (int64_t p = 0; p < parts; p++) t += scratch[p * g->C + c];                   \
                if (phase == 0) mean[c] = (T)(t / (double)s.rows);                                \
                else var_sum[c] = (T)t;                                                           \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    typedef struct { const tn_bn_geom *g; const T *x, *alpha, *beta; T *y; } P##_aff_ctx;         \
    ATTR static void P##_aff_rows(int64_t b, int64_t e, void *ctx) {                              \
        P##_aff_ctx *a = ctx;                                                                     \
        const tn_bn_geom *g = a->g;                                                               \
        if (g->cl) {                                                                              \
            for (int64_t r = b; r < e; r++) {                                                     \
                const T *xr = a->x + r * g->C;                                                    \
                T *yr = a->y + r * g->C;                                                          \
                for (int64_t c = 0; c < g->C; c++) yr[c] = FMA(xr[c], a->alpha[c], a->beta[c]);  \
            }                                                                                     \
        } else {                                                                                  \
            for (int64_t r = b; r < e; r++) {                                                     \
                int64_t c = r % g->C;                                                             \
                const T *xr = a->x + r * g->hw;                                                   \
                T *yr = a->y + r * g->hw;                                                         \
                T al = a->alpha[c], be = a->beta[c];                                              \
                for (int64_t i = 0; i < g->hw; i++) yr[i] = FMA(xr[i], al, be);                   \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    ATTR void P##_affine(const tn_bn_geom *g, const T *x, const T *alpha, const T *beta, T *y) {  \
        P##_aff_ctx a = {g, x, alpha, beta, y};                                                   \
        int64_t rows = g->cl ? g->nb * g->hw : g->nb * g->C, width = g->cl ? g->C : g->hw;        \
        tn_parallel_for(rows, TN_BN_GRAIN(width), P##_aff_rows, &a);                              \
    }                                                                                             \
    typedef struct { const tn_bn_geom *g; const T *dy, *x, *mean, *invstd, *w; bool train; T *dx;  \
                     double *sum_dy, *dotp; } P##_bwd_ctx;                                        \
    /* sum dy and sum (x - m) * dy over one channel: 8 double lanes per plane (NCHW) */            \
    ATTR static void P##_bwd_sums(const tn_bn_geom *g, const T *dy, const T *x, int64_t c, T m,   \
                                  double *sum, double *dot) {                                     \
        double s[TN_BN_LANES] = {0}, d[TN_BN_LANES] = {0};                                        \
        if (g->cl) {                                                                              \
            for (int64_t r = 0; r < g->nb * g->hw; r++) {                                         \
                int64_t o = r * g->C + c;                                                         \
                s[0] += dy[o];                                                                    \
                d[0] += (double)(x[o] - m) * (double)dy[o];                                       \
            }                                                                                     \
        } else {                                                                                  \
            for (int64_t k = 0; k < g->nb; k++) {                                                 \
                const T *xp = x + (k * g->C + c) * g->hw, *gp = dy + (k * g->C + c) * g->hw;      \
                int64_t i = 0;                                                                    \
                for (; i + TN_BN_LANES <= g->hw; i += TN_BN_LANES)                                \
                    for (int l = 0; l < TN_BN_LANES; l++) {                                       \
                        s[l] += gp[i + l];                                                        \
                        d[l] += (double)(xp[i + l] - m) * (double)gp[i + l];                      \
                    }                                                                             \
                for (; i < g->hw; i++) { s[0] += gp[i]; d[0] += (double)(xp[i] - m) * (double)gp[i]; } \
            }                                                                                     \
        }                                                                                         \
        *sum = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));                \
        *dot = ((d[0] + d[4]) + (d[1] + d[5])) + ((d[2] + d[6]) + (d[3] + d[7]));                 \
    }                                                                                             \
    ATTR static void P##_bwd_chan(int64_t b, int64_t e, void *ctx) {                              \
        P##_bwd_ctx *a = ctx;                                                                     \
        const tn_bn_geom *g = a->g;                                                               \
        int64_t n = g->nb * g->hw;                                                                \
        for (int64_t c = b; c < e; c++) {                                                         \
            T m = a->mean[c], iv = a->invstd[c], w = a->w ? a->w[c] : (T)1;                       \
            double sum, dot;                                                                      \
            P##_bwd_sums(g, a->dy, a->x, c, m, &sum, &dot);                                       \
            a->sum_dy[c] = sum;                                                                   \
            a->dotp[c] = dot;                                                                     \
            if (!a->dx) continue;                                                                 \
            T kk = (T)dot * iv * iv / (T)n, gm = (T)(sum / (double)n);                            \
            for (int64_t k = 0; k < (g->cl ? n : g->nb); k++) {                                   \
                /* NCHW: plane k, contiguous; channels-last: one element, stride C */             \
                int64_t o0 = g->cl ? k * g->C + c : (k * g->C + c) * g->hw, len = g->cl ? 1 : g->hw; \
                const T *xp = a->x + o0, *gp = a->dy + o0;                                        \
                T *dp = a->dx + o0;                                                               \
                if (a->train)                                                                     \
                    for (int64_t i = 0; i < len; i++) dp[i] = (gp[i] - gm - (xp[i] - m) * kk) * iv * w; \
                else                                                                              \
                    for (int64_t i = 0; i < len; i++) dp[i] = gp[i] * iv * w;                     \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    ATTR void P##_backward(const tn_bn_geom *g, const T *dy, const T *x, const T *mean, const T *invstd, \
                           const T *w, bool train, T *dx, double *sum_dy, double *dotp) {         \
        P##_bwd_ctx a = {g, dy, x, mean, invstd, w, train, dx, sum_dy, dotp};                     \
        tn_parallel_for(g->C, TN_BN_GRAIN(3 * g->nb * g->hw), P##_bwd_chan, &a);                  \
    }

#endif
