/* kernels/pool_interp.h — the linear / cubic interpolation kernels as one macro, instantiated by
 * ref/pool.c (fmaf / fma from libm) and x86/pool_fma.c (the same code compiled for FMA, the
 * fused multiply-adds inline). Both give the same bits: every fused multiply-add is exactly
 * rounded wherever it runs. Included only by those two files. */
#ifndef TN_KERNELS_POOL_INTERP_H
#define TN_KERNELS_POOL_INTERP_H

#include "core/parallel.h"
#include "kernels/pool.h"

#include <stdbool.h>
#include <string.h>

typedef struct { const tn_interp_plan *p; const void *in; void *out; int isz; } interp_job;

static inline int64_t iin(const tn_interp_plan *p) { return p->in[0] * p->in[1] * p->in[2]; }
static inline int64_t iout(const tn_interp_plan *p) { return p->out[0] * p->out[1] * p->out[2]; }

/* Linear / cubic forward and backward. Upstream's kernels are compiled with FMA contraction
 * (its AVX2 / AVX-512 builds); the fused multiply-adds below are the ones GCC forms there, measured
 * bit for bit against torch 2.13.0: a*b + c*d is fma(a, b, c*d), s += a*b is fma(a, b, s).
 *
 * FWD_NESTED (upstream's generic kernel): the innermost (last) dim first, t = sum_j x_j * w_j,
 * then each outer dim sums the inner results with its weights, each sum fma(t0, w0, t1 * w1)
 * then fma(t_j, w_j, acc) for further taps.
 * FWD_PRODUCT (upstream's channels-last linear kernel): tap weights multiplied out (outer dim
 * first), then for the channels its vector loop covers (plane index within the batch below
 * `vec_planes`) fma(x0, w0, fma(x1, w1, ... fma(x_n, w_n, x_{n-1} * w_{n-1}))), and for the rest
 * (its scalar tail) fma(x_n, w_n, ... fma(x2, w2, fma(x0, w0, x1 * w1))). For f16 / bf16
 * (`reduced`, computed in f32) the innermost pair differs in the vector form (x_n * w_n alone),
 * and for f16 also in the tail (fma(x1, w1, x0 * w0)).
 * fma(x_n, w_n, ... fma(x2, w2, fma(x0, w0, x1 * w1))). */
#define TAPS(p, d) ((p)->nd > 2 - (d) ? (p)->taps : 1)

#define TN_INTERP_KERNELS(NAME, T, FMA, ATTR)                                                                            \
    ATTR static T NAME##_inner(const tn_interp_plan *p, const T *row, int64_t ow) {                          \
        int K = p->taps;                                                                                \
        const int64_t *ix = p->idx[2] + ow * K;                                                         \
        const double *w = p->w[2] + ow * K;                                                             \
        T acc = FMA(row[ix[0]], (T)w[0], row[ix[1]] * (T)w[1]);                                         \
        for (int c = 2; c < K; c++) acc = FMA(row[ix[c]], (T)w[c], acc);                                \
        return acc;                                                                                     \
    }                                                                                                   \
    ATTR static T NAME##_combine(const T *t, const double *w, int K) {                                       \
        T acc = FMA(t[0], (T)w[0], t[1] * (T)w[1]);                                                     \
        for (int c = 2; c < K; c++) acc = FMA(t[c], (T)w[c], acc);                                      \
        return acc;                                                                                     \
    }                                                                                                   \
    ATTR static T NAME##_h(const tn_interp_plan *p, const T *x, int64_t di, int64_t oh, int64_t ow) {        \
        int64_t H = p->in[1], W = p->in[2];                                                             \
        if (TAPS(p, 1) == 1) return NAME##_inner(p, x + (di * H + p->idx[1][oh]) * W, ow);              \
        T t[4];                                                                                         \
        int K = p->taps;                                                                                \
        for (int b = 0; b < K; b++) t[b] = NAME##_inner(p, x + (di * H + p->idx[1][oh * K + b]) * W, ow); \
        return NAME##_combine(t, p->w[1] + oh * K, K);                                                  \
    }                                                                                                   \
    ATTR static T NAME##_nested(const tn_interp_plan *p, const T *x, int64_t od, int64_t oh, int64_t ow) {   \
        if (TAPS(p, 0) == 1) return NAME##_h(p, x, p->idx[0][od], oh, ow);                              \
        T t[4];                                                                                         \
        int K = p->taps;                                                                                \
        for (int a = 0; a < K; a++) t[a] = NAME##_h(p, x, p->idx[0][od * K + a], oh, ow);               \
        return NAME##_combine(t, p->w[0] + od * K, K);                                                  \
    }                                                                                                   \
    /* tap offsets and product weights of one output (linear: 2 taps per real dim) */                   \
    ATTR static int NAME##_products(const tn_interp_plan *p, int64_t od, int64_t oh, int64_t ow,             \
                               int64_t *off, T *wt) {                                                   \
        int kd = TAPS(p, 0), kh = TAPS(p, 1), K = p->taps, n = 0;                                       \
        int64_t H = p->in[1], W = p->in[2];                                                             \
        for (int a = 0; a < kd; a++)                                                                    \
            for (int b = 0; b < kh; b++)                                                                \
                for (int c = 0; c < K; c++) {                                                           \
                    int64_t di = kd > 1 ? p->idx[0][od * K + a] : p->idx[0][od];                        \
                    int64_t hi = kh > 1 ? p->idx[1][oh * K + b] : p->idx[1][oh];                        \
                    off[n] = (di * H + hi) * W + p->idx[2][ow * K + c];                                 \
                    T v = (T)p->w[2][ow * K + c];                                                       \
                    if (kd > 1) v = ((T)p->w[0][od * K + a] * (T)p->w[1][oh * K + b]) * v;              \
                    else if (kh > 1) v = (T)p->w[1][oh * K + b] * v;                                    \
                    wt[n++] = v;                                                                        \
                }                                                                                       \
        return n;                                                                                       \
    }                                                                                                   \
    ATTR static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
        const interp_job *j = ctx;                                                                      \
        const tn_interp_plan *p = j->p;                                                                 \
        int64_t ip = iin(p), op = iout(p);                                                              \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *x = (const T *)j->in + c * ip;                                                     \
            T *y = (T *)j->out + c * op;                                                                \
            int64_t o = 0;                                                                              \
            bool lanes = p->order == TN_FWD_PRODUCT && (c % p->channels) < p->vec_planes;               \
            for (int64_t od = 0; od < p->out[0]; od++)                                                  \
                for (int64_t oh = 0; oh < p->out[1]; oh++)                                              \
                    for (int64_t ow = 0; ow < p->out[2]; ow++, o++) {                                   \
                        if (p->order == TN_FWD_NESTED) {                                                \
                            y[o] = NAME##_nested(p, x, od, oh, ow);                                     \
                            continue;                                                                   \
                        }                                                                               \
                        int64_t off[8];                                                                 \
                        T wt[8];                                                                        \
                        int n = NAME##_products(p, od, oh, ow, off, wt);                                \
                        T acc;                                                                          \
                        if (lanes) {                                                                    \
                            int k = n - 2;                                                              \
                            if (p->reduced) acc = x[off[n - 1]] * wt[n - 1], k = n - 2;                 \
                            else acc = FMA(x[off[n - 1]], wt[n - 1], x[off[n - 2]] * wt[n - 2]), k = n - 3; \
                            for (; k >= 0; k--) acc = FMA(x[off[k]], wt[k], acc);                       \
                        } else {                                                                        \
                            acc = p->reduced == 2 ? FMA(x[off[1]], wt[1], x[off[0]] * wt[0])             \
                                                 : FMA(x[off[0]], wt[0], x[off[1]] * wt[1]);             \
                            for (int k = 2; k < n; k++) acc = FMA(x[off[k]], wt[k], acc);               \
                        }                                                                               \
                        y[o] = acc;                                                                     \
                    }                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    ATTR void NAME(const tn_interp_plan *p, const T *in, T *out) {                                           \
        interp_job j = {p, in, out, 0};                                                                 \
        tn_parallel_for(p->planes, (iin(p) + iout(p) >= 65536) ? 1 : 65536 / (iin(p) + iout(p) + 1) + 1, NAME##_run, &j); \
    }                                                                                                   \
    /* Backward. Nearest: gin[src] += g. Linear: per tap (outer dim first), fma(product weight, g,    \
     * gin). Cubic (upstream's frame kernel): taps with the last dim outer, value (g * wh) * ww,     \
     * then gin += value. Output order throughout. */                                                   \
    ATTR static void NAME##_bwd_run(int64_t b, int64_t e, void *ctx) {                                       \
        const interp_job *j = ctx;                                                                      \
        const tn_interp_plan *p = j->p;                                                                 \
        int64_t ip = iin(p), op = iout(p), H = p->in[1], W = p->in[2];                                  \
        int K = p->taps;                                                                                \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *g = (const T *)j->in + c * op;                                                     \
            T *gi = (T *)j->out + c * ip;                                                               \
            memset(gi, 0, (size_t)ip * sizeof(T));                                                      \
            int64_t o = 0;                                                                              \
            for (int64_t od = 0; od < p->out[0]; od++)                                                  \
                for (int64_t oh = 0; oh < p->out[1]; oh++)                                              \
                    for (int64_t ow = 0; ow < p->out[2]; ow++, o++) {                                   \
                        T v = g[o];                                                                     \
                        if (K == 1) {                                                                   \
                            gi[(p->idx[0][od] * H + p->idx[1][oh]) * W + p->idx[2][ow]] += v;           \
                        } else if (K == 4) {                                                            \
                            for (int cx = 0; cx < 4; cx++)                                              \
                                for (int by = 0; by < 4; by++) {                                        \
                                    int64_t k = p->idx[1][oh * 4 + by] * W + p->idx[2][ow * 4 + cx];    \
                                    gi[k] += (v * (T)p->w[1][oh * 4 + by]) * (T)p->w[2][ow * 4 + cx];   \
                                }                                                                       \
                        } else {                                                                        \
                            int64_t off[8];                                                             \
                            T wt[8];                                                                    \
                            int n = NAME##_products(p, od, oh, ow, off, wt);                            \
                            for (int k = 0; k < n; k++) gi[off[k]] = FMA(wt[k], v, gi[off[k]]);         \
                        }                                                                               \
                    }                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    ATTR void NAME##_bwd(const tn_interp_plan *p, const T *gout, T *gin) {                                   \
        interp_job j = {p, gout, gin, 0};                                                               \
        tn_parallel_for(p->planes, (iin(p) + iout(p) >= 65536) ? 1 : 65536 / (iin(p) + iout(p) + 1) + 1, NAME##_bwd_run, &j); \
    }


#endif
