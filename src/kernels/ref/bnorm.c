/* ref/bnorm.c — batch-norm and group-norm kernels (declared in kernels/bnorm.h). Each kernel is
 * written once as a macro over the element type and instantiated for float and double; work is
 * split over core/parallel.c (the split never changes a result: every reduction order is fixed
 * by the geometry and `parts`, not by the pool). */
#include "kernels/bnorm.h"
#include "kernels/bnorm_body.h"

#include "core/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t tn_bn_parts(int64_t rows, int threads) {
    if (rows <= 1 || threads <= 1) return 1;
    return rows < threads ? rows : threads;
}

/* Batch norm: kernels/bnorm_body.h, here with libm's fma; kernels/x86/bnorm_fma.c has the same
 * code built for FMA (vectorised), chosen at run time. Same bits either way. */
TN_BN_KERNELS_DECL(bn_ref_f32, float)
TN_BN_KERNELS_DECL(bn_ref_f64, double)
TN_BN_KERNELS(bn_ref_f32, float, fmaf, )
TN_BN_KERNELS(bn_ref_f64, double, fma, )

#if defined(__x86_64__)
TN_BN_KERNELS_DECL(tn_bn_fma_f32, float)
TN_BN_KERNELS_DECL(tn_bn_fma_f64, double)
static bool use_fma(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("TN_BNORM");
        __builtin_cpu_init();
        v = !(e && !strcmp(e, "ref")) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return v;
}
#define BN_PICK(S, f) (use_fma() ? tn_bn_fma_##S##_##f : bn_ref_##S##_##f)
#else
#define BN_PICK(S, f) bn_ref_##S##_##f
#endif

#define TN_BN_PUBLIC(S, T)                                                                        \
    void tn_bn_stats_##S(const tn_bn_geom *g, const T *x, T *mean, T *var_sum, int64_t parts, T *scratch) { \
        BN_PICK(S, stats)(g, x, mean, var_sum, parts, scratch);                                   \
    }                                                                                             \
    void tn_bn_affine_##S(const tn_bn_geom *g, const T *x, const T *alpha, const T *beta, T *y) { \
        BN_PICK(S, affine)(g, x, alpha, beta, y);                                                 \
    }                                                                                             \
    void tn_bn_backward_##S(const tn_bn_geom *g, const T *dy, const T *x, const T *mean, const T *invstd, \
                            const T *w, bool train, T *dx, double *sum_dy, double *dotp) {        \
        BN_PICK(S, backward)(g, dy, x, mean, invstd, w, train, dx, sum_dy, dotp);                 \
    }
TN_BN_PUBLIC(f32, float)
TN_BN_PUBLIC(f64, double)

/* Group norm (double accumulation), one macro over the element type. */
#define GRAIN(work) TN_BN_GRAIN(work)
#define TN_GN_DEF(S, T)                                                                           \
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

TN_GN_DEF(f32, float)
TN_GN_DEF(f64, double)
