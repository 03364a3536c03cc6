/* ref/nn.c — scalar reference kernels for softmax, layer norm, RMS norm, attention and row
 * gathers (declared in kernels/nn.h). Each kernel is written once as a macro over the storage
 * type (float or double) and instantiated twice; accumulation is in double. */
#include "kernels/nn.h"

#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------- softmax */

#define TN_SOFTMAX_DEF(NAME, T)                                                                  \
    void NAME(const T *x, T *y, int64_t outer, int64_t n, int64_t inner, bool lg, bool safe) {   \
        for (int64_t o = 0; o < outer; o++)                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                \
                const T *xr = x + o * n * inner + i;                                             \
                T *yr = y + o * n * inner + i;                                                   \
                T mx = -INFINITY;                                                                \
                bool nan = false;                                                                \
                for (int64_t j = 0; j < n; j++) {                                                \
                    T v = xr[j * inner];                                                         \
                    if (v != v) nan = true;                                                      \
                    else if (v > mx) mx = v;                                                     \
                }                                                                                \
                if (nan) mx = (T)NAN;                                                            \
                if (safe && mx == -INFINITY) {                                                   \
                    for (int64_t j = 0; j < n; j++) yr[j * inner] = 0;                           \
                    continue;                                                                    \
                }                                                                                \
                double sum = 0.0;                                                                \
                for (int64_t j = 0; j < n; j++) sum += exp((double)xr[j * inner] - (double)mx);  \
                if (lg) {                                                                        \
                    double ls = log(sum);                                                        \
                    for (int64_t j = 0; j < n; j++)                                              \
                        yr[j * inner] = (T)((double)xr[j * inner] - (double)mx - ls);            \
                } else {                                                                         \
                    for (int64_t j = 0; j < n; j++)                                              \
                        yr[j * inner] = (T)(exp((double)xr[j * inner] - (double)mx) / sum);      \
                }                                                                                \
            }                                                                                    \
    }

/* f32: ref/softmax.c */
TN_SOFTMAX_DEF(tn_softmax_f64, double)

/* ---------------------------------------------------------------- layer norm / rms norm */

#define TN_LAYER_NORM_DEF(NAME, T)                                                               \
    void NAME(const T *x, const T *w, const T *b, T *y, T *mean, T *rstd, int64_t M, int64_t N,  \
              double eps) {                                                                      \
        for (int64_t r = 0; r < M; r++) {                                                        \
            const T *xr = x + r * N;                                                             \
            T *yr = y + r * N;                                                                   \
            double s = 0.0;                                                                      \
            for (int64_t j = 0; j < N; j++) s += xr[j];                                          \
            double mu = N ? s / (double)N : 0.0;                                                 \
            double ss = 0.0;                                                                     \
            for (int64_t j = 0; j < N; j++) { double d = xr[j] - mu; ss += d * d; }              \
            double var = N ? ss / (double)N : NAN;                                               \
            double rs = 1.0 / sqrt(var + eps);                                                   \
            for (int64_t j = 0; j < N; j++) {                                                    \
                double v = ((double)xr[j] - mu) * rs;                                            \
                if (w) v *= (double)w[j];                                                        \
                if (b) v += (double)b[j];                                                        \
                yr[j] = (T)v;                                                                    \
            }                                                                                    \
            mean[r] = (T)mu;                                                                     \
            rstd[r] = (T)rs;                                                                     \
        }                                                                                        \
    }

/* f32 / f64: kernels/layer_norm.c (upstream's rounding); this one serves reduced-precision input */
TN_LAYER_NORM_DEF(tn_layer_norm_f32_wide, float)

#define TN_RMS_NORM_DEF(NAME, T)                                                                 \
    void NAME(const T *x, const T *w, T *y, T *rstd, int64_t M, int64_t N, double eps) {         \
        for (int64_t r = 0; r < M; r++) {                                                        \
            const T *xr = x + r * N;                                                             \
            T *yr = y + r * N;                                                                   \
            double ss = 0.0;                                                                     \
            for (int64_t j = 0; j < N; j++) ss += (double)xr[j] * (double)xr[j];                 \
            double rs = 1.0 / sqrt((N ? ss / (double)N : NAN) + eps);                            \
            for (int64_t j = 0; j < N; j++) {                                                    \
                double v = (double)xr[j] * rs;                                                   \
                if (w) v *= (double)w[j];                                                        \
                yr[j] = (T)v;                                                                    \
            }                                                                                    \
            if (rstd) rstd[r] = (T)rs;                                                           \
        }                                                                                        \
    }

TN_RMS_NORM_DEF(tn_rms_norm_f32, float)
TN_RMS_NORM_DEF(tn_rms_norm_f64, double)

/* ---------------------------------------------------------------- attention */

#define TN_ATTN_DEF(NAME, T)                                                                     \
    void NAME(const tn_attn_geom *g, const T *q, const T *k, const T *v, const T *mask, T *out,  \
              T *lse, double *sc) {                                                              \
        int64_t rep = g->Hk ? g->H / g->Hk : 1;                                                  \
        for (int64_t b = 0; b < g->B; b++)                                                       \
            for (int64_t h = 0; h < g->H; h++) {                                                 \
                int64_t hk = h / rep;                                                            \
                const T *qb = q + b * g->qs[0] + h * g->qs[1];                                   \
                const T *kb = k + b * g->ks[0] + hk * g->ks[1];                                  \
                const T *vb = v + b * g->vs[0] + hk * g->vs[1];                                  \
                for (int64_t i = 0; i < g->L; i++) {                                             \
                    const T *qi = qb + i * g->qs[2];                                             \
                    double mx = -INFINITY;                                                       \
                    for (int64_t j = 0; j < g->S; j++) {                                         \
                        double s;                                                                \
                        if (g->causal && j > i) s = -INFINITY;                                   \
                        else {                                                                   \
                            const T *kj = kb + j * g->ks[2];                                     \
                            double d = 0.0;                                                      \
                            for (int64_t e = 0; e < g->E; e++)                                   \
                                d += (double)qi[e * g->qs[3]] * (double)kj[e * g->ks[3]];        \
                            s = d * g->scale;                                                    \
                            if (mask)                                                            \
                                s += (double)mask[b * g->ms[0] + h * g->ms[1] + i * g->ms[2] +   \
                                                  j * g->ms[3]];                                 \
                        }                                                                        \
                        sc[j] = s;                                                               \
                        if (s > mx || s != s) mx = s;                                            \
                    }                                                                            \
                    T *oi = out + b * g->os[0] + h * g->os[1] + i * g->os[2];                    \
                    if (mx == -INFINITY) {                                                       \
                        for (int64_t e = 0; e < g->Ev; e++) oi[e * g->os[3]] = 0;                \
                        if (lse) lse[b * g->ls[0] + h * g->ls[1] + i * g->ls[2]] = 0;            \
                        continue;                                                                \
                    }                                                                            \
                    double sum = 0.0;                                                            \
                    for (int64_t j = 0; j < g->S; j++) { sc[j] = exp(sc[j] - mx); sum += sc[j]; } \
                    for (int64_t e = 0; e < g->Ev; e++) {                                        \
                        double acc = 0.0;                                                        \
                        const T *ve = vb + e * g->vs[3];                                         \
                        for (int64_t j = 0; j < g->S; j++) acc += sc[j] * (double)ve[j * g->vs[2]]; \
                        oi[e * g->os[3]] = (T)(acc / sum);                                       \
                    }                                                                            \
                    if (lse) lse[b * g->ls[0] + h * g->ls[1] + i * g->ls[2]] = (T)(mx + log(sum)); \
                }                                                                                \
            }                                                                                    \
    }

TN_ATTN_DEF(tn_attention_f32, float)
TN_ATTN_DEF(tn_attention_f64, double)

/* ---------------------------------------------------------------- embedding rows */

void tn_gather_rows(char *out, const char *weight, int64_t s0, int64_t s1, int64_t D, int itemsize,
                    const int64_t *idx, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        const char *src = weight + idx[i] * s0;
        char *dst = out + i * D * itemsize;
        if (s1 == itemsize) {
            memcpy(dst, src, (size_t)(D * itemsize));
        } else {
            for (int64_t j = 0; j < D; j++) memcpy(dst + j * itemsize, src + j * s1, (size_t)itemsize);
        }
    }
}
