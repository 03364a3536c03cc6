/* ref/pool.c — pooling and interpolation kernels (kernels/pool.h). Planes are independent and
 * split over the thread pool; inside a plane every loop runs in upstream's order. */
#include "kernels/pool.h"

#include "core/dtype.h"
#include "core/parallel.h"

#include <math.h>
#include <string.h>

/* rounding to the storage dtype (tn_pool_plan.rnd) for f32 kernels; identity for the others */
static inline float rnd_f32(float v, int r) {
    return r == 1 ? tn_bf16_to_f32(tn_f32_to_bf16(v)) : r == 2 ? tn_f16_to_f32(tn_f32_to_f16(v)) : v;
}
static inline double rnd_f64(double v, int r) { (void)r; return v; }
static inline int64_t rnd_i64(int64_t v, int r) { (void)r; return v; }
#define RND(T, v, r) _Generic((T)0, float: rnd_f32, double: rnd_f64, int64_t: rnd_i64)((v), (r))

/* chunks of at least ~64K touched elements */
static int64_t plane_grain(int64_t per_plane) { return per_plane >= 65536 ? 1 : 65536 / (per_plane + 1) + 1; }

static int64_t in_plane(const tn_pool_plan *p) { return p->in[0] * p->in[1] * p->in[2]; }
static int64_t out_plane(const tn_pool_plan *p) { return p->out[0] * p->out[1] * p->out[2]; }

/* ---- max ---- */

typedef struct { const tn_pool_plan *p; const void *in; void *out; int64_t *idx; } pool_job;

/* first maximum; a NaN (floating) replaces the maximum whenever met, so the last NaN wins */
#define MAXPOOL(NAME, T, ISNAN, LOWEST)                                                                 \
    static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
        const pool_job *j = ctx;                                                                        \
        const tn_pool_plan *p = j->p;                                                                   \
        int64_t ip = in_plane(p), op = out_plane(p), H = p->in[1], W = p->in[2];                        \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *x = (const T *)j->in + c * ip;                                                     \
            T *y = (T *)j->out + c * op;                                                                \
            int64_t *ix = j->idx + c * op, o = 0;                                                       \
            for (int64_t od = 0; od < p->out[0]; od++)                                                  \
                for (int64_t oh = 0; oh < p->out[1]; oh++)                                              \
                    for (int64_t ow = 0; ow < p->out[2]; ow++, o++) {                                   \
                        int64_t d0 = p->start[0][od], d1 = p->end[0][od];                               \
                        int64_t h0 = p->start[1][oh], h1 = p->end[1][oh];                               \
                        int64_t w0 = p->start[2][ow], w1 = p->end[2][ow];                               \
                        int64_t mi = (d0 * H + h0) * W + w0;                                            \
                        T mv = LOWEST;                                                                  \
                        for (int64_t d = d0; d < d1; d += p->step[0])                                   \
                            for (int64_t h = h0; h < h1; h += p->step[1])                               \
                                for (int64_t w = w0; w < w1; w += p->step[2]) {                         \
                                    int64_t k = (d * H + h) * W + w;                                    \
                                    T v = x[k];                                                         \
                                    if (v > mv || ISNAN(v)) {                                           \
                                        mv = v;                                                         \
                                        mi = k;                                                         \
                                    }                                                                   \
                                }                                                                       \
                        y[o] = mv;                                                                      \
                        ix[o] = mi;                                                                     \
                    }                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    void NAME(const tn_pool_plan *p, const T *in, T *out, int64_t *idx) {                               \
        pool_job j = {p, in, out, idx};                                                                 \
        tn_parallel_for(p->planes, plane_grain(in_plane(p) + out_plane(p)), NAME##_run, &j);            \
    }

#define NOT_NAN(v) 0
MAXPOOL(tn_maxpool_f32, float, isnan, -INFINITY)
MAXPOOL(tn_maxpool_f64, double, isnan, -INFINITY)
MAXPOOL(tn_maxpool_i64, int64_t, NOT_NAN, INT64_MIN)

#define MAXPOOL_BWD(NAME, T)                                                                            \
    static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
        const pool_job *j = ctx;                                                                        \
        int64_t ip = in_plane(j->p), op = out_plane(j->p);                                              \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *g = (const T *)j->in + c * op;                                                     \
            const int64_t *ix = j->idx + c * op;                                                        \
            T *gi = (T *)j->out + c * ip;                                                               \
            memset(gi, 0, (size_t)ip * sizeof(T));                                                      \
            for (int64_t o = 0; o < op; o++) gi[ix[o]] = RND(T, gi[ix[o]] + g[o], j->p->rnd);                                         \
        }                                                                                               \
    }                                                                                                   \
    void NAME(const tn_pool_plan *p, const T *gout, const int64_t *idx, T *gin) {                       \
        pool_job j = {p, gout, gin, (int64_t *)idx};                                                    \
        tn_parallel_for(p->planes, plane_grain(in_plane(p) + out_plane(p)), NAME##_run, &j);            \
    }

MAXPOOL_BWD(tn_maxpool_bwd_f32, float)
MAXPOOL_BWD(tn_maxpool_bwd_f64, double)

/* ---- average ---- */

/* the divisor of output (od, oh, ow), applied to v as upstream's kernels do */
#define AVG_DIVIDE(T, v, p, od, oh, ow)                                                                 \
    ((p)->divisor != 0 ? RND(T, (v) / (T)(p)->divisor, (p)->rnd)                                        \
     : (p)->seq_div  ? RND(T, RND(T, RND(T, (v) / (T)(p)->div[0][od], (p)->rnd) / (T)(p)->div[1][oh], (p)->rnd) \
                             / (T)(p)->div[2][ow], (p)->rnd)                                            \
                     : RND(T, (v) / (T)((p)->div[0][od] * (p)->div[1][oh] * (p)->div[2][ow]), (p)->rnd))

#define AVGPOOL(NAME, T)                                                                                \
    static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
        const pool_job *j = ctx;                                                                        \
        const tn_pool_plan *p = j->p;                                                                   \
        int64_t ip = in_plane(p), op = out_plane(p), H = p->in[1], W = p->in[2];                        \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *x = (const T *)j->in + c * ip;                                                     \
            T *y = (T *)j->out + c * op;                                                                \
            int64_t o = 0;                                                                              \
            for (int64_t od = 0; od < p->out[0]; od++)                                                  \
                for (int64_t oh = 0; oh < p->out[1]; oh++)                                              \
                    for (int64_t ow = 0; ow < p->out[2]; ow++, o++) {                                   \
                        int64_t d0 = p->start[0][od], d1 = p->end[0][od];                               \
                        int64_t h0 = p->start[1][oh], h1 = p->end[1][oh];                               \
                        int64_t w0 = p->start[2][ow], w1 = p->end[2][ow];                               \
                        if (d0 >= d1 || h0 >= h1 || w0 >= w1) {                                         \
                            y[o] = 0;                                                                   \
                            continue;                                                                   \
                        }                                                                               \
                        T s = 0;                                                                        \
                        for (int64_t d = d0; d < d1; d++)                                               \
                            for (int64_t h = h0; h < h1; h++)                                           \
                                for (int64_t w = w0; w < w1; w++) s = RND(T, s + x[(d * H + h) * W + w], p->rnd);          \
                        y[o] = AVG_DIVIDE(T, s, p, od, oh, ow);                                         \
                    }                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    void NAME(const tn_pool_plan *p, const T *in, T *out) {                                             \
        pool_job j = {p, in, out, NULL};                                                                \
        tn_parallel_for(p->planes, plane_grain(in_plane(p) + out_plane(p)), NAME##_run, &j);            \
    }

AVGPOOL(tn_avgpool_f32, float)
AVGPOOL(tn_avgpool_f64, double)
AVGPOOL(tn_avgpool_i64, int64_t)

#define AVGPOOL_BWD(NAME, T)                                                                            \
    static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
        const pool_job *j = ctx;                                                                        \
        const tn_pool_plan *p = j->p;                                                                   \
        int64_t ip = in_plane(p), op = out_plane(p), H = p->in[1], W = p->in[2];                        \
        for (int64_t c = b; c < e; c++) {                                                               \
            const T *g = (const T *)j->in + c * op;                                                     \
            T *gi = (T *)j->out + c * ip;                                                               \
            memset(gi, 0, (size_t)ip * sizeof(T));                                                      \
            int64_t o = 0;                                                                              \
            for (int64_t od = 0; od < p->out[0]; od++)                                                  \
                for (int64_t oh = 0; oh < p->out[1]; oh++)                                              \
                    for (int64_t ow = 0; ow < p->out[2]; ow++, o++) {                                   \
                        int64_t d0 = p->start[0][od], d1 = p->end[0][od];                               \
                        int64_t h0 = p->start[1][oh], h1 = p->end[1][oh];                               \
                        int64_t w0 = p->start[2][ow], w1 = p->end[2][ow];                               \
                        T delta = AVG_DIVIDE(T, g[o], p, od, oh, ow);                                   \
                        for (int64_t d = d0; d < d1; d++)                                               \
                            for (int64_t h = h0; h < h1; h++)                                           \
                                for (int64_t w = w0; w < w1; w++) gi[(d * H + h) * W + w] = RND(T, gi[(d * H + h) * W + w] + delta, p->rnd);     \
                    }                                                                                   \
        }                                                                                               \
    }                                                                                                   \
    void NAME(const tn_pool_plan *p, const T *gout, T *gin) {                                           \
        pool_job j = {p, gout, gin, NULL};                                                              \
        tn_parallel_for(p->planes, plane_grain(in_plane(p) + out_plane(p)), NAME##_run, &j);            \
    }

AVGPOOL_BWD(tn_avgpool_bwd_f32, float)
AVGPOOL_BWD(tn_avgpool_bwd_f64, double)

/* ---- interpolation ---- */

typedef struct { const tn_interp_plan *p; const void *in; void *out; int isz; } interp_job;

static int64_t iin(const tn_interp_plan *p) { return p->in[0] * p->in[1] * p->in[2]; }
static int64_t iout(const tn_interp_plan *p) { return p->out[0] * p->out[1] * p->out[2]; }

static void nearest_run(int64_t b, int64_t e, void *ctx) {
    const interp_job *j = ctx;
    const tn_interp_plan *p = j->p;
    int64_t ip = iin(p), op = iout(p), H = p->in[1], W = p->in[2];
    size_t sz = (size_t)j->isz;
    for (int64_t c = b; c < e; c++) {
        const char *x = (const char *)j->in + (size_t)(c * ip) * sz;
        char *y = (char *)j->out + (size_t)(c * op) * sz;
        for (int64_t od = 0; od < p->out[0]; od++)
            for (int64_t oh = 0; oh < p->out[1]; oh++) {
                const char *row = x + (size_t)((p->idx[0][od] * H + p->idx[1][oh]) * W) * sz;
                const int64_t *iw = p->idx[2];
                int64_t n = p->out[2];
                switch (sz) {
                case 1: for (int64_t w = 0; w < n; w++) y[w] = row[iw[w]]; break;
                case 2: for (int64_t w = 0; w < n; w++) memcpy(y + 2 * w, row + 2 * iw[w], 2); break;
                case 4: for (int64_t w = 0; w < n; w++) memcpy(y + 4 * w, row + 4 * iw[w], 4); break;
                default: for (int64_t w = 0; w < n; w++) memcpy(y + sz * (size_t)w, row + sz * (size_t)iw[w], sz);
                }
                y += (size_t)n * sz;
            }
    }
}

void tn_interp_nearest(const tn_interp_plan *p, const char *in, char *out, int isz) {
    interp_job j = {p, in, out, isz};
    tn_parallel_for(p->planes, (iin(p) + iout(p) >= 65536) ? 1 : 65536 / (iin(p) + iout(p) + 1) + 1, nearest_run, &j);
}

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

#define INTERP(NAME, T, FMA)                                                                            \
    static T NAME##_inner(const tn_interp_plan *p, const T *row, int64_t ow) {                          \
        int K = p->taps;                                                                                \
        const int64_t *ix = p->idx[2] + ow * K;                                                         \
        const double *w = p->w[2] + ow * K;                                                             \
        T acc = FMA(row[ix[0]], (T)w[0], row[ix[1]] * (T)w[1]);                                         \
        for (int c = 2; c < K; c++) acc = FMA(row[ix[c]], (T)w[c], acc);                                \
        return acc;                                                                                     \
    }                                                                                                   \
    static T NAME##_combine(const T *t, const double *w, int K) {                                       \
        T acc = FMA(t[0], (T)w[0], t[1] * (T)w[1]);                                                     \
        for (int c = 2; c < K; c++) acc = FMA(t[c], (T)w[c], acc);                                      \
        return acc;                                                                                     \
    }                                                                                                   \
    static T NAME##_h(const tn_interp_plan *p, const T *x, int64_t di, int64_t oh, int64_t ow) {        \
        int64_t H = p->in[1], W = p->in[2];                                                             \
        if (TAPS(p, 1) == 1) return NAME##_inner(p, x + (di * H + p->idx[1][oh]) * W, ow);              \
        T t[4];                                                                                         \
        int K = p->taps;                                                                                \
        for (int b = 0; b < K; b++) t[b] = NAME##_inner(p, x + (di * H + p->idx[1][oh * K + b]) * W, ow); \
        return NAME##_combine(t, p->w[1] + oh * K, K);                                                  \
    }                                                                                                   \
    static T NAME##_nested(const tn_interp_plan *p, const T *x, int64_t od, int64_t oh, int64_t ow) {   \
        if (TAPS(p, 0) == 1) return NAME##_h(p, x, p->idx[0][od], oh, ow);                              \
        T t[4];                                                                                         \
        int K = p->taps;                                                                                \
        for (int a = 0; a < K; a++) t[a] = NAME##_h(p, x, p->idx[0][od * K + a], oh, ow);               \
        return NAME##_combine(t, p->w[0] + od * K, K);                                                  \
    }                                                                                                   \
    /* tap offsets and product weights of one output (linear: 2 taps per real dim) */                   \
    static int NAME##_products(const tn_interp_plan *p, int64_t od, int64_t oh, int64_t ow,             \
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
    static void NAME##_run(int64_t b, int64_t e, void *ctx) {                                           \
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
    void NAME(const tn_interp_plan *p, const T *in, T *out) {                                           \
        interp_job j = {p, in, out, 0};                                                                 \
        tn_parallel_for(p->planes, (iin(p) + iout(p) >= 65536) ? 1 : 65536 / (iin(p) + iout(p) + 1) + 1, NAME##_run, &j); \
    }                                                                                                   \
    /* Backward. Nearest: gin[src] += g. Linear: per tap (outer dim first), fma(product weight, g,    \
     * gin). Cubic (upstream's frame kernel): taps with the last dim outer, value (g * wh) * ww,     \
     * then gin += value. Output order throughout. */                                                   \
    static void NAME##_bwd_run(int64_t b, int64_t e, void *ctx) {                                       \
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
    void NAME##_bwd(const tn_interp_plan *p, const T *gout, T *gin) {                                   \
        interp_job j = {p, gout, gin, 0};                                                               \
        tn_parallel_for(p->planes, (iin(p) + iout(p) >= 65536) ? 1 : 65536 / (iin(p) + iout(p) + 1) + 1, NAME##_bwd_run, &j); \
    }

INTERP(tn_interp_f32, float, fmaf)
INTERP(tn_interp_f64, double, fma)
