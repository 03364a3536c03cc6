/* ref/pool.c — pooling and interpolation kernels (kernels/pool.h). Planes are independent and
 * split over the thread pool; inside a plane every loop runs in upstream's order. */
#include "kernels/pool.h"

#include "core/dtype.h"
#include "core/parallel.h"
#include "kernels/pool_interp.h"

#include <stdlib.h>

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

/* Linear / cubic kernels: kernels/pool_interp.h, here with libm's fma; kernels/x86/pool_fma.c
 * has the same code built for FMA, chosen at run time. */
TN_INTERP_KERNELS(interp_ref_f32, float, fmaf, )
TN_INTERP_KERNELS(interp_ref_f64, double, fma, )

#if defined(__x86_64__)
void tn_interp_fma_f32(const tn_interp_plan *p, const float *in, float *out);
void tn_interp_fma_f64(const tn_interp_plan *p, const double *in, double *out);
void tn_interp_fma_f32_bwd(const tn_interp_plan *p, const float *gout, float *gin);
void tn_interp_fma_f64_bwd(const tn_interp_plan *p, const double *gout, double *gin);
static bool use_fma(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("TN_INTERP");
        __builtin_cpu_init();
        v = !(e && !strcmp(e, "ref")) && __builtin_cpu_supports("fma");
    }
    return v;
}
#else
static bool use_fma(void) { return false; }
#define tn_interp_fma_f32 interp_ref_f32
#define tn_interp_fma_f64 interp_ref_f64
#define tn_interp_fma_f32_bwd interp_ref_f32_bwd
#define tn_interp_fma_f64_bwd interp_ref_f64_bwd
#endif

void tn_interp_f32(const tn_interp_plan *p, const float *in, float *out) {
    if (use_fma()) tn_interp_fma_f32(p, in, out);
    else interp_ref_f32(p, in, out);
}
void tn_interp_f64(const tn_interp_plan *p, const double *in, double *out) {
    if (use_fma()) tn_interp_fma_f64(p, in, out);
    else interp_ref_f64(p, in, out);
}
void tn_interp_f32_bwd(const tn_interp_plan *p, const float *gout, float *gin) {
    if (use_fma()) tn_interp_fma_f32_bwd(p, gout, gin);
    else interp_ref_f32_bwd(p, gout, gin);
}
void tn_interp_f64_bwd(const tn_interp_plan *p, const double *gout, double *gin) {
    if (use_fma()) tn_interp_fma_f64_bwd(p, gout, gin);
    else interp_ref_f64_bwd(p, gout, gin);
}
