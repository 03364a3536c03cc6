/* kernels/ref/qlinear.c — dynamic quantized Linear, portable C (kernels/qlinear.h has the float
 * steps, upstream's fbgemm x86 ones, measured). */
#include "kernels/qlinear.h"

#include "core/parallel.h"

#include <math.h>

/* MINPS / MAXPS: the second operand unless the first compares below / above it */
static inline float vmin(float a, float b) { return a < b ? a : b; }
static inline float vmax(float a, float b) { return a > b ? a : b; }

void tn_qdyn_minmax(const float *x, int64_t n, float *mn, float *mx) {
    if (n <= 0) { *mn = *mx = 0.0f; return; }
    float tmin = x[0], tmax = x[0];
    int64_t i = 0;
    if (n >= 8) {
        float lmin[8], lmax[8];
        for (int l = 0; l < 8; l++) lmin[l] = lmax[l] = x[0];
        for (; i < n / 8 * 8; i += 8)
            for (int l = 0; l < 8; l++) {
                lmin[l] = vmin(lmin[l], x[i + l]);
                lmax[l] = vmax(lmax[l], x[i + l]);
            }
        for (int l = 0; l < 8; l++) {   /* std::min(a, b): b only when b < a */
            tmin = lmin[l] < tmin ? lmin[l] : tmin;
            tmax = tmax < lmax[l] ? lmax[l] : tmax;
        }
    }
    for (; i < n; i++) {
        tmin = x[i] < tmin ? x[i] : tmin;
        tmax = tmax < x[i] ? x[i] : tmax;
    }
    *mn = tmin;
    *mx = tmax;
}

/* CVTPS2DQ: round half to even; NaN and out of range give INT32_MIN */
static inline int32_t cvtps(float t) {
    if (!(t >= -2147483648.0f && t < 2147483648.0f)) return INT32_MIN;
    return (int32_t)nearbyintf(t);
}

static int32_t quantize_row(const float *x, int64_t K, float inv, int32_t zp, uint8_t *q) {
    uint32_t sum = 0;
    for (int64_t k = 0; k < K; k++) {
        int32_t v = cvtps(vmin(fmaf(x[k], inv, (float)zp), 2147483520.0f));
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        q[k] = (uint8_t)v;
        sum += (uint32_t)v;
    }
    return (int32_t)sum;
}

static void quantize_rows(int64_t begin, int64_t end, void *ctx) {
    const tn_qdyn_args *a = ctx;
    float inv = 1.0f / a->a_scale;
    for (int64_t i = begin; i < end; i++)
        a->row_off[i] = quantize_row(a->x + i * a->K, a->K, inv, a->a_zp, a->qx + i * a->K);
}

static inline float requant(const tn_qdyn_args *a, int64_t i, int64_t j, uint32_t acc) {
    uint32_t raw = acc - (uint32_t)a->a_zp * (uint32_t)a->col_off[j] - (uint32_t)a->row_off[i] * (uint32_t)a->w_zp[j];
    float mult = a->a_scale * a->w_scale[j];
    float y = a->bias ? fmaf((float)(int32_t)raw, mult, a->bias[j]) : (float)(int32_t)raw * mult;
    return a->relu && 0.0f > y ? 0.0f : y;
}

/* columns [jb, je) for every row, rows four at a time (one pass over a weight row serves four) */
static void gemm_cols(int64_t jb, int64_t je, void *ctx) {
    const tn_qdyn_args *a = ctx;
    const int64_t K = a->K, N = a->N;
    int64_t i = 0;
    for (; i + 4 <= a->M; i += 4) {
        const uint8_t *q0 = a->qx + i * K, *q1 = q0 + K, *q2 = q1 + K, *q3 = q2 + K;
        for (int64_t j = jb; j < je; j++) {
            const int8_t *w = a->w + j * K;
            uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            for (int64_t k = 0; k < K; k++) {
                int32_t wk = w[k];
                s0 += (uint32_t)(q0[k] * wk);
                s1 += (uint32_t)(q1[k] * wk);
                s2 += (uint32_t)(q2[k] * wk);
                s3 += (uint32_t)(q3[k] * wk);
            }
            a->y[i * N + j] = requant(a, i, j, s0);
            a->y[(i + 1) * N + j] = requant(a, i + 1, j, s1);
            a->y[(i + 2) * N + j] = requant(a, i + 2, j, s2);
            a->y[(i + 3) * N + j] = requant(a, i + 3, j, s3);
        }
    }
    for (; i < a->M; i++) {
        const uint8_t *q = a->qx + i * K;
        for (int64_t j = jb; j < je; j++) {
            const int8_t *w = a->w + j * K;
            uint32_t s = 0;
            for (int64_t k = 0; k < K; k++) s += (uint32_t)(q[k] * (int32_t)w[k]);
            a->y[i * N + j] = requant(a, i, j, s);
        }
    }
}

static int64_t grain_for(int64_t work_per_item) {
    int64_t g = 65536 / (work_per_item > 0 ? work_per_item : 1);
    return g > 0 ? g : 1;
}

void tn_qdyn_linear(const tn_qdyn_args *a) {
    if (a->M <= 0 || a->N <= 0) return;
    tn_parallel_for(a->M, grain_for(a->K), quantize_rows, (void *)a);
    tn_parallel_for(a->N, grain_for(a->M * a->K), gemm_cols, (void *)a);
}

typedef struct {
    int64_t M, N, K;
    const float *x, *w;
    float *y;
} fp16_args;

#define FP16_KBLOCK 512

static void fp16_cols(int64_t jb, int64_t je, void *ctx) {
    const fp16_args *a = ctx;
    for (int64_t i = 0; i < a->M; i++) {
        const float *x = a->x + i * a->K;
        for (int64_t j = jb; j < je; j++) {
            const float *w = a->w + j * a->K;
            float acc = 0.0f;
            for (int64_t k0 = 0; k0 < a->K; k0 += FP16_KBLOCK) {
                int64_t k1 = k0 + FP16_KBLOCK < a->K ? k0 + FP16_KBLOCK : a->K;
                float c = 0.0f;
                for (int64_t k = k0; k < k1; k++) c = fmaf(x[k], w[k], c);
                acc = k0 == 0 ? c : acc + c;
            }
            a->y[i * a->N + j] = acc;
        }
    }
}

void tn_qdyn_linear_fp16(int64_t M, int64_t N, int64_t K, const float *x, const float *w16, float *y) {
    if (M <= 0 || N <= 0) return;
    fp16_args a = {M, N, K, x, w16, y};
    tn_parallel_for(N, grain_for(M * K), fp16_cols, &a);
}
