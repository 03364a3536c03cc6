/* ref/bnorm.c — batch-norm and group-norm kernels (declared in kernels/bnorm.h). Each kernel is
 * written once as a macro over the element type and instantiated for float and double; work is
 * split over core/parallel.c (the split never changes a result: every reduction order is fixed
 * by the geometry and `parts`, not by the pool). */
#include "kernels/bnorm.h"

#include "core/parallel.h"

#include <math.h>
#include <string.h>

int64_t tn_bn_parts(int64_t rows, int threads) {
    if (rows <= 1 || threads <= 1) return 1;
    return rows < threads ? rows : threads;
}

static inline float fma_f(float a, float b, float c) { return fmaf(a, b, c); }
static inline double fma_d(double a, double b, double c) { return fma(a, b, c); }

/* offset of element (n, c, i) */
static inline int64_t bn_at(const tn_bn_geom *g, int64_t n, int64_t c, int64_t i) {
    return g->cl ? (n * g->hw + i) * g->C + c : (n * g->C + c) * g->hw + i;
}

#define GRAIN(work) ((work) > 0 ? (32768 / (work) + 1) : 1)

#define TN_BN_DEF(S, T, FMA)                                                                      \
    typedef struct { const tn_bn_geom *g; const T *x; T *mean, *var_sum, *buf; int64_t parts, chunk, rows; \
                     int phase; } bn_stats_##S;                                                   \
    static void bn_stats_chan_##S(int64_t b, int64_t e, void *ctx) {                              \
        bn_stats_##S *s = ctx;                                                                    \
        const tn_bn_geom *g = s->g;                                                               \
        int64_t n = g->nb * g->hw;                                                                \
        for (int64_t c = b; c < e; c++) {                                                         \
            double sum = 0.0;                                                                     \
            for (int64_t k = 0; k < g->nb; k++) {                                                 \
                const T *p = s->x + (k * g->C + c) * g->hw;                                       \
                for (int64_t i = 0; i < g->hw; i++) sum += p[i];                                  \
            }                                                                                     \
            T m = (T)(sum / (double)n);                                                           \
            double vs = 0.0;                                                                      \
            for (int64_t k = 0; k < g->nb; k++) {                                                 \
                const T *p = s->x + (k * g->C + c) * g->hw;                                       \
                for (int64_t i = 0; i < g->hw; i++) { T d = p[i] - m; vs += (T)(d * d); }         \
            }                                                                                     \
            s->mean[c] = m;                                                                       \
            s->var_sum[c] = (T)vs;                                                                \
        }                                                                                         \
    }                                                                                             \
    static void bn_stats_part_##S(int64_t b, int64_t e, void *ctx) {                              \
        bn_stats_##S *s = ctx;                                                                    \
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
    void tn_bn_stats_##S(const tn_bn_geom *g, const T *x, T *mean, T *var_sum, int64_t parts, T *scratch) { \
        bn_stats_##S s = {g, x, mean, var_sum, scratch, parts, 0, g->nb * g->hw, 0};              \
        if (!g->cl) {                                                                             \
            tn_parallel_for(g->C, GRAIN(2 * g->nb * g->hw), bn_stats_chan_##S, &s);               \
            return;                                                                               \
        }                                                                                         \
        s.chunk = (s.rows + parts - 1) / parts;                                                   \
        for (int phase = 0; phase < 2; phase++) {                                                 \
            s.phase = phase;                                                                      \
            tn_parallel_for(parts, 1, bn_stats_part_##S, &s);                                     \
            for (int64_t c = 0; c < g->C; c++) {                                                  \
                double t = 0.0;                                                                   \
                for (int64_t p = 0; p < parts; p++) t += scratch[p * g->C + c];                   \
                if (phase == 0) mean[c] = (T)(t / (double)s.rows);                                \
                else var_sum[c] = (T)t;                                                           \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    typedef struct { const tn_bn_geom *g; const T *x, *alpha, *beta; T *y; } bn_aff_##S;          \
    static void bn_aff_rows_##S(int64_t b, int64_t e, void *ctx) {                                \
        bn_aff_##S *a = ctx;                                                                      \
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
    void tn_bn_affine_##S(const tn_bn_geom *g, const T *x, const T *alpha, const T *beta, T *y) { \
        bn_aff_##S a = {g, x, alpha, beta, y};                                                    \
        int64_t rows = g->cl ? g->nb * g->hw : g->nb * g->C, width = g->cl ? g->C : g->hw;        \
        tn_parallel_for(rows, GRAIN(width), bn_aff_rows_##S, &a);                                 \
    }                                                                                             \
    typedef struct { const tn_bn_geom *g; const T *dy, *x, *mean, *invstd, *w; bool train; T *dx;  \
                     double *sum_dy, *dotp; } bn_bwd_##S;                                         \
    static void bn_bwd_chan_##S(int64_t b, int64_t e, void *ctx) {                                \
        bn_bwd_##S *a = ctx;                                                                      \
        const tn_bn_geom *g = a->g;                                                               \
        int64_t n = g->nb * g->hw;                                                                \
        for (int64_t c = b; c < e; c++) {                                                         \
            T m = a->mean[c], iv = a->invstd[c], w = a->w ? a->w[c] : (T)1;                       \
            double sum = 0.0, dot = 0.0;                                                          \
            for (int64_t k = 0; k < g->nb; k++)                                                   \
                for (int64_t i = 0; i < g->hw; i++) {                                             \
                    int64_t o = bn_at(g, k, c, i);                                                \
                    sum += a->dy[o];                                                              \
                    dot += (double)(a->x[o] - m) * (double)a->dy[o];                              \
                }                                                                                 \
            a->sum_dy[c] = sum;                                                                   \
            a->dotp[c] = dot;                                                                     \
            if (!a->dx) continue;                                                                 \
            T kk = (T)dot * iv * iv / (T)n, gm = (T)(sum / (double)n);                                   \
            for (int64_t k = 0; k < g->nb; k++)                                                   \
                for (int64_t i = 0; i < g->hw; i++) {                                             \
                    int64_t o = bn_at(g, k, c, i);                                                \
                    if (a->train) a->dx[o] = (a->dy[o] - gm - (a->x[o] - m) * kk) * iv * w;       \
                    else a->dx[o] = a->dy[o] * iv * w;                                            \
                }                                                                                 \
        }                                                                                         \
    }                                                                                             \
    void tn_bn_backward_##S(const tn_bn_geom *g, const T *dy, const T *x, const T *mean, const T *invstd, \
                            const T *w, bool train, T *dx, double *sum_dy, double *dotp) {        \
        bn_bwd_##S a = {g, dy, x, mean, invstd, w, train, dx, sum_dy, dotp};                      \
        tn_parallel_for(g->C, GRAIN(3 * g->nb * g->hw), bn_bwd_chan_##S, &a);                     \
    }                                                                                             \
    typedef struct { const T *x, *w, *b; int64_t C, HxW, G; double eps; T *y, *mean, *rstd; } gn_fwd_##S; \
    static void gn_fwd_rows_##S(int64_t b, int64_t e, void *ctx) {                                \
        gn_fwd_##S *a = ctx;                                                                      \
        int64_t D = a->C / a->G, len = D * a->HxW;                                                \
        for (int64_t r = b; r < e; r++) {                                                         \
            const T *xr = a->x + r * len;                                                         \
            T *yr = a->y + r * len;                                                               \
            double s = 0.0;                                                                       \
            for (int64_t j = 0; j < len; j++) s += xr[j];                                         \
            double mu = len ? s / (double)len : 0.0, ss = 0.0;                                    \
            for (int64_t j = 0; j < len; j++) { double d = xr[j] - mu; ss += d * d; }             \
            double var = len ? ss / (double)len : NAN;                                            \
            if (var < 0) var = 0;                                                                 \
            double rs = 1.0 / sqrt(var + a->eps);                                                 \
            a->mean[r] = (T)mu;                                                                   \
            a->rstd[r] = (T)rs;                                                                   \
            int64_t g = r % a->G;                                                                 \
            for (int64_t d = 0; d < D; d++) {                                                     \
                int64_t c = g * D + d;                                                            \
                double sc = a->w ? rs * (double)a->w[c] : rs;                                     \
                double sh = (a->b ? (double)a->b[c] : 0.0) - sc * mu;                             \
                for (int64_t i = 0; i < a->HxW; i++)                                              \
                    yr[d * a->HxW + i] = (T)((double)xr[d * a->HxW + i] * sc + sh);               \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    void tn_gn_forward_##S(const T *x, const T *w, const T *b, int64_t N, int64_t C, int64_t HxW, int64_t G, \
                           double eps, T *y, T *mean, T *rstd) {                                  \
        gn_fwd_##S a = {x, w, b, C, HxW, G, eps, y, mean, rstd};                                  \
        tn_parallel_for(N * G, GRAIN(3 * (C / G) * HxW), gn_fwd_rows_##S, &a);                   \
    }                                                                                             \
    typedef struct { const T *dy, *x, *mean, *rstd, *w; int64_t N, C, HxW, G; T *dx; double *ds, *db; } gn_bwd_##S; \
    static void gn_bwd_sums_##S(int64_t b, int64_t e, void *ctx) {                                \
        gn_bwd_##S *a = ctx;                                                                      \
        for (int64_t r = b; r < e; r++) {                                                         \
            const T *dyr = a->dy + r * a->HxW, *xr = a->x + r * a->HxW;                           \
            double s1 = 0.0, s2 = 0.0;                                                            \
            for (int64_t i = 0; i < a->HxW; i++) { s1 += (double)dyr[i] * (double)xr[i]; s2 += dyr[i]; } \
            a->ds[r] = s1;                                                                        \
            a->db[r] = s2;                                                                        \
        }                                                                                         \
    }                                                                                             \
    static void gn_bwd_dx_##S(int64_t b, int64_t e, void *ctx) {                                  \
        gn_bwd_##S *a = ctx;                                                                      \
        int64_t D = a->C / a->G;                                                                  \
        double s = 1.0 / (double)(D * a->HxW);                                                    \
        for (int64_t r = b; r < e; r++) {                                                         \
            int64_t n = r / a->G, g = r % a->G;                                                   \
            double dsg = 0.0, dbg = 0.0;                                                          \
            for (int64_t d = 0; d < D; d++) {                                                     \
                int64_t c = g * D + d;                                                            \
                double gm = a->w ? (double)a->w[c] : 1.0;                                         \
                dsg += a->ds[n * a->C + c] * gm;                                                  \
                dbg += a->db[n * a->C + c] * gm;                                                  \
            }                                                                                     \
            double mu = a->mean[r], rs = a->rstd[r];                                              \
            double c2 = (dbg * mu - dsg) * rs * rs * rs * s, c3 = -c2 * mu - dbg * rs * s;        \
            for (int64_t d = 0; d < D; d++) {                                                     \
                int64_t c = g * D + d;                                                            \
                double c1 = rs * (a->w ? (double)a->w[c] : 1.0);                                  \
                const T *dyr = a->dy + (n * a->C + c) * a->HxW, *xr = a->x + (n * a->C + c) * a->HxW; \
                T *dxr = a->dx + (n * a->C + c) * a->HxW;                                         \
                for (int64_t i = 0; i < a->HxW; i++) dxr[i] = (T)(c1 * dyr[i] + c2 * xr[i] + c3); \
            }                                                                                     \
        }                                                                                         \
    }                                                                                             \
    void tn_gn_backward_##S(const T *dy, const T *x, const T *mean, const T *rstd, const T *w, int64_t N, \
                            int64_t C, int64_t HxW, int64_t G, T *dx, T *dw, T *db, double *scratch) { \
        gn_bwd_##S a = {dy, x, mean, rstd, w, N, C, HxW, G, dx, scratch, scratch + N * C};        \
        tn_parallel_for(N * C, GRAIN(2 * HxW), gn_bwd_sums_##S, &a);                              \
        if (dx) tn_parallel_for(N * G, GRAIN(2 * (C / G) * HxW), gn_bwd_dx_##S, &a);              \
        int64_t D = C / G;                                                                        \
        for (int64_t c = 0; c < C && (dw || db); c++) {                                           \
            double sw = 0.0, sb = 0.0;                                                            \
            for (int64_t n = 0; n < N; n++) {                                                     \
                int64_t r = n * G + c / D;                                                        \
                sw += (a.ds[n * C + c] - a.db[n * C + c] * (double)mean[r]) * (double)rstd[r];    \
                sb += a.db[n * C + c];                                                            \
            }                                                                                     \
            if (dw) dw[c] = (T)sw;                                                                \
            if (db) db[c] = (T)sb;                                                                \
        }                                                                                         \
    }

TN_BN_DEF(f32, float, fma_f)
TN_BN_DEF(f64, double, fma_d)
