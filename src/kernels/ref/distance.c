/* ref/distance.c — cdist / pdist kernels (kernels/distance.h). Written once as a macro over the
 * element type; the p-specific map / reduce / finish / backward follow upstream's formulas. */
#include "kernels/distance.h"

#include <math.h>
#include <string.h>

enum { P_ZERO, P_ONE, P_TWO, P_INF, P_GEN };
static int p_kind(double p) {
    if (p == 0.0) return P_ZERO;
    if (p == 1.0) return P_ONE;
    if (p == 2.0) return P_TWO;
    if (isinf(p)) return P_INF;
    return P_GEN;
}

#define TN_DIST_DEF(SFX, T, ABS, POW, SQRT, CEIL, FLOOR)                                         \
    static inline T sign_##SFX(T v) {                                                            \
        T c = CEIL(v), f = FLOOR(v);                                                             \
        T a = c > 0 ? c : 0, b = f > -1 ? f : -1;                                                \
        return (a < 1 ? a : 1) + (b < 0 ? b : 0);                                                \
    }                                                                                            \
    static inline T dist_##SFX(const T *a, const T *b, int64_t m, int kind, T p) {               \
        T agg = 0;                                                                               \
        for (int64_t x = 0; x < m; x++) {                                                        \
            T d = ABS(a[x] - b[x]);                                                              \
            switch (kind) {                                                                      \
            case P_ZERO: { T c = CEIL(d); agg = agg + (c < 1 ? c : 1); break; }                  \
            case P_ONE: agg = agg + d; break;                                                    \
            case P_TWO: agg = agg + d * d; break;                                                \
            case P_INF: agg = agg > d ? agg : d; break;                                          \
            default: agg = agg + POW(d, p); break;                                               \
            }                                                                                    \
        }                                                                                        \
        if (kind == P_TWO) return SQRT(agg);                                                     \
        if (kind == P_GEN) return (T)pow((double)agg, 1.0 / (double)p);                          \
        return agg;                                                                              \
    }                                                                                            \
    /* upstream's backward of one component difference; p < 2 (not 1) has its own case */       \
    static inline T bw_##SFX(T diff, T grad, T dist, int kind, T p) {                            \
        switch (kind) {                                                                          \
        case P_ZERO: return 0;                                                                   \
        case P_ONE: return grad * sign_##SFX(diff);                                              \
        case P_TWO: return dist == 0 ? 0 : grad * diff / dist;                                   \
        case P_INF: {                                                                            \
            T e = CEIL(ABS(ABS(diff) - dist));                                                   \
            return grad * sign_##SFX(diff) * (1 - (e < 1 ? e : 1));                              \
        }                                                                                        \
        default:                                                                                 \
            if (p < 2) {                                                                         \
                if (diff == 0 && p < 1) return 0;                                                \
                return dist == 0 ? 0 : sign_##SFX(diff) * POW(ABS(diff), p - 1) * grad / POW(dist, p - 1); \
            }                                                                                    \
            return dist == 0 ? 0 : diff * POW(ABS(diff), p - 2) * grad / POW(dist, p - 1);       \
        }                                                                                        \
    }                                                                                            \
    static void cdist_##SFX(const T *x1, const T *x2, int64_t B, int64_t r1, int64_t r2, int64_t m, double p, T *o) { \
        int kind = p_kind(p);                                                                    \
        for (int64_t b = 0; b < B; b++)                                                          \
            for (int64_t i = 0; i < r1; i++)                                                     \
                for (int64_t j = 0; j < r2; j++)                                                 \
                    *o++ = dist_##SFX(x1 + (b * r1 + i) * m, x2 + (b * r2 + j) * m, m, kind, (T)p); \
    }                                                                                            \
    static void cdist_bw_##SFX(const T *g, const T *x1, const T *x2, const T *dist, int64_t B, int64_t r1, \
                               int64_t r2, int64_t m, double p, T *gx) {                         \
        int kind = p_kind(p);                                                                    \
        memset(gx, 0, (size_t)(B * r1 * m) * sizeof(T));                                         \
        if (kind == P_ZERO) return;                                                              \
        for (int64_t b = 0; b < B; b++)                                                          \
            for (int64_t i = 0; i < r1; i++) {                                                   \
                const T *a = x1 + (b * r1 + i) * m;                                              \
                T *r = gx + (b * r1 + i) * m;                                                    \
                const T *gk = g + (b * r1 + i) * r2, *dk = dist + (b * r1 + i) * r2;              \
                for (int64_t j = 0; j < r2; j++) {                                               \
                    const T *c = x2 + (b * r2 + j) * m;                                          \
                    for (int64_t x = 0; x < m; x++) r[x] = r[x] + bw_##SFX(a[x] - c[x], gk[j], dk[j], kind, (T)p); \
                }                                                                                \
            }                                                                                    \
    }                                                                                            \
    static void pdist_##SFX(const T *x, int64_t n, int64_t m, double p, T *o) {                   \
        int kind = p_kind(p);                                                                    \
        for (int64_t i = 0; i < n; i++)                                                          \
            for (int64_t j = i + 1; j < n; j++) *o++ = dist_##SFX(x + i * m, x + j * m, m, kind, (T)p); \
    }                                                                                            \
    static void pdist_bw_##SFX(const T *g, int64_t gs, const T *x, const T *dist, int64_t n, int64_t m, double p, \
                               T *gx) {                                                          \
        int kind = p_kind(p);                                                                    \
        memset(gx, 0, (size_t)(n * m) * sizeof(T));                                              \
        if (kind == P_ZERO) return;                                                              \
        int64_t k = 0;                                                                           \
        for (int64_t i = 0; i < n; i++)                                                          \
            for (int64_t j = i + 1; j < n; j++, k++)                                             \
                for (int64_t c = 0; c < m; c++) {                                                \
                    T r = bw_##SFX(x[i * m + c] - x[j * m + c], g[k * gs], dist[k], kind, (T)p); \
                    gx[i * m + c] = gx[i * m + c] + r;                                           \
                    gx[j * m + c] = gx[j * m + c] - r;                                           \
                }                                                                                \
    }

TN_DIST_DEF(f32, float, fabsf, powf, sqrtf, ceilf, floorf)
TN_DIST_DEF(f64, double, fabs, pow, sqrt, ceil, floor)

void tn_cdist(bool dbl, const void *x1, const void *x2, int64_t B, int64_t r1, int64_t r2, int64_t m, double p,
              void *out) {
    if (dbl) cdist_f64(x1, x2, B, r1, r2, m, p, out);
    else cdist_f32(x1, x2, B, r1, r2, m, p, out);
}
void tn_cdist_backward(bool dbl, const void *grad, const void *x1, const void *x2, const void *dist, int64_t B,
                       int64_t r1, int64_t r2, int64_t m, double p, void *gx1) {
    if (dbl) cdist_bw_f64(grad, x1, x2, dist, B, r1, r2, m, p, gx1);
    else cdist_bw_f32(grad, x1, x2, dist, B, r1, r2, m, p, gx1);
}
void tn_pdist(bool dbl, const void *x, int64_t n, int64_t m, double p, void *out) {
    if (dbl) pdist_f64(x, n, m, p, out);
    else pdist_f32(x, n, m, p, out);
}
void tn_pdist_backward(bool dbl, const void *grad, int64_t gs, const void *x, const void *dist, int64_t n, int64_t m,
                       double p, void *gx) {
    if (dbl) pdist_bw_f64(grad, gs, x, dist, n, m, p, gx);
    else pdist_bw_f32(grad, gs, x, dist, n, m, p, gx);
}
