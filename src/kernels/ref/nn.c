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

TN_LAYER_NORM_DEF(tn_layer_norm_f32, float)
TN_LAYER_NORM_DEF(tn_layer_norm_f64, double)

/* float32 layer norm as upstream's CPU kernel rounds it (layer_norm_kernel.cpp with
 * moments_utils.h's RowwiseMoments, in its AVX2 / AVX-512 builds, whose compiler fuses some
 * multiply-adds): Welford moments in `lanes` float lanes over chunks of 16 vectors, chunk results
 * merged through a binary cascade, the lanes and the scalar tail merged last; rstd = 1 / sqrt(var
 * + eps) in float; y = fma((x - mean) * rstd, w, b). Measured against torch 2.13.0 (AVX2): mean,
 * rstd and y bit-identical for rows up to 255 elements; longer rows can differ in rstd's last bit
 * (the cascade's merge order is not fully reproduced), and so can y with a bias but no weight
 * (upstream's scalar path for it rounds another way, not found yet). lanes: upstream's float
 * vector width. */
#define LN_CHUNK 16
#define LN_MAXL 16
typedef struct { int64_t m0; float m1[LN_MAXL], m2[LN_MAXL]; } ln_mom;
static void ln_add_vec(int L, int64_t m0a, const float *m1a, const float *m2a, ln_mom *d) {
    int64_t n = d->m0 + m0a;
    float c = n == 0 ? 0.0f : (float)m0a / (float)n;
    for (int l = 0; l < L; l++) {
        float delta = m1a[l] - d->m1[l];
        float p = c * delta;
        d->m1[l] += p;
        d->m2[l] += fmaf(delta * delta * c, (float)d->m0, m2a[l]);
    }
    d->m0 = n;
}
static void ln_moments_f32(const float *x, int64_t N, int L, float *mean, float *var) {
    int64_t n = N / L, m = (n + LN_CHUNK - 1) / LN_CHUNK;
    int depth = 1;
    if (m > 2) { depth = 0; for (uint64_t v = (uint64_t)(m - 1); v; v >>= 1) depth++; }
    ln_mom stk[64];
    memset(stk, 0, sizeof stk[0] * (size_t)depth);
    float cv[LN_CHUNK];
    for (int i = 0; i < LN_CHUNK; i++) cv[i] = 1.0f / (float)(i + 1);
    for (int64_t i = 0; i < m; i++) {
        const float *xp = x + i * LN_CHUNK * L;
        int64_t m0 = n - i * LN_CHUNK < LN_CHUNK ? n - i * LN_CHUNK : LN_CHUNK;
        float m1[LN_MAXL] = {0}, m2[LN_MAXL] = {0};
        for (int64_t j = 0; j < m0; j++)
            for (int l = 0; l < L; l++) {
                float xv = xp[j * L + l], d = xv - m1[l];
                m1[l] = fmaf(d, cv[j], m1[l]);
                m2[l] = fmaf(d, xv - m1[l], m2[l]);
            }
        ln_add_vec(L, m0, m1, m2, &stk[0]);
        int64_t mask = i + 1;
        for (int j = 1; j < depth && (mask & 1) == 0; j++) {
            ln_add_vec(L, stk[j - 1].m0, stk[j - 1].m1, stk[j - 1].m2, &stk[j]);
            memset(&stk[j - 1], 0, sizeof stk[0]);
            mask >>= 1;
        }
    }
    for (int i = 1; i < depth; i++) ln_add_vec(L, stk[i].m0, stk[i].m1, stk[i].m2, &stk[0]);
    int64_t c0 = 0;
    float M1 = 0, M2 = 0;
    for (int64_t i = n * L; i < N; i++) {
        float d = x[i] - M1;
        ++c0;
        M1 += d / (float)c0;
        M2 = fmaf(d, x[i] - M1, M2);
    }
    for (int l = 0; l < L; l++) {
        int64_t nn = c0 + n;
        float c = nn == 0 ? 0.0f : (float)n / (float)nn;
        float delta = stk[0].m1[l] - M1;
        M1 = fmaf(c, delta, M1);
        M2 += fmaf(delta * delta * c, (float)c0, stk[0].m2[l]);
        c0 = nn;
    }
    *mean = M1;
    *var = M2 / (float)N;
}
void tn_layer_norm_f32_upstream(const float *x, const float *w, const float *b, float *y, float *mean, float *rstd,
                                int64_t M, int64_t N, double eps, int lanes) {
    int L = lanes > LN_MAXL ? LN_MAXL : lanes < 1 ? 1 : lanes;
    float e = (float)eps;
    for (int64_t r = 0; r < M; r++) {
        const float *xr = x + r * N;
        float *yr = y + r * N, mu, var;
        ln_moments_f32(xr, N, L, &mu, &var);
        float rs = 1.0f / sqrtf(var + e);
        for (int64_t j = 0; j < N; j++) {
            float t = (xr[j] - mu) * rs;
            yr[j] = fmaf(t, w ? w[j] : 1.0f, b ? b[j] : 0.0f);
        }
        mean[r] = mu;
        rstd[r] = rs;
    }
}

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
