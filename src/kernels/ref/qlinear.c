/* kernels/ref/qlinear.c — dynamic quantized Linear, portable C (kernels/qlinear.h has the float
 * steps, upstream's fbgemm x86 ones, measured). */
#include "kernels/qlinear.h"

#include "core/dtype.h"
#include "core/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
void tn_qdyn_pack_vnni(const int8_t *w, int64_t N, int64_t K, int8_t *out);
void tn_qdyn_tile_vnni(const uint8_t *a, int64_t lda, int mr, const int8_t *wp, int64_t kg, int nb, int32_t *out,
                       int64_t ldo);
int32_t tn_qdyn_quantize_row_vnni(const float *x, int64_t K, float inv, int32_t zp, uint8_t *q);
void tn_qdyn_requant_vnni(const int32_t *acc, int64_t n, int32_t a_zp, float a_scale, int32_t row_off,
                          const int32_t *col_off, const int32_t *w_zp, const float *w_scale, const float *bias,
                          int relu, float *y);
#endif

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

/* static: the quint8 input rows copied into the scratch (padded), their sums the row offsets */
static void load_rows(int64_t begin, int64_t end, void *ctx) {
    const tn_qdyn_args *a = ctx;
    for (int64_t i = begin; i < end; i++) {
        const uint8_t *x = a->xq + i * a->K;
        uint8_t *q = a->qx + i * a->ldq;
        uint32_t sum = 0;
        for (int64_t k = 0; k < a->K; k++) sum += q[k] = x[k];
        memset(q + a->K, 0, (size_t)(a->ldq - a->K));
        a->row_off[i] = (int32_t)sum;
    }
}

static void quantize_rows(int64_t begin, int64_t end, void *ctx) {
    const tn_qdyn_args *a = ctx;
    float inv = 1.0f / a->a_scale;
    for (int64_t i = begin; i < end; i++) {
        uint8_t *q = a->qx + i * a->ldq;
#if defined(__x86_64__)
        if (a->wp) a->row_off[i] = tn_qdyn_quantize_row_vnni(a->x + i * a->K, a->K, inv, a->a_zp, q);
        else
#endif
        a->row_off[i] = quantize_row(a->x + i * a->K, a->K, inv, a->a_zp, q);
        memset(q + a->K, 0, (size_t)(a->ldq - a->K));   /* the packed kernel's padding */
    }
}

static inline int32_t sat16(int32_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : v; }

/* static: one quint8 output (kernels/qlinear.h) */
static inline uint8_t requant_static(const tn_qdyn_args *a, int64_t i, int64_t j, uint32_t acc) {
    uint32_t raw = acc - (uint32_t)a->a_zp * (uint32_t)a->col_off[j] - (uint32_t)a->row_off[i] * (uint32_t)a->w_zp[j];
    float f = (float)(int32_t)raw;
    if (a->bias) f = a->per_channel ? f + a->bias[j] / a->atws[j] : fmaf(a->bias[j], a->rcp, f);
    int32_t q = sat16(sat16(cvtps(f * a->mult[a->per_channel ? j : 0])) + a->out_zp);
    int32_t lo = a->relu ? a->out_zp : 0;
    return (uint8_t)(q < lo ? lo : q > 255 ? 255 : q);
}

static inline float requant(const tn_qdyn_args *a, int64_t i, int64_t j, uint32_t acc) {
    uint32_t raw = acc - (uint32_t)a->a_zp * (uint32_t)a->col_off[j] - (uint32_t)a->row_off[i] * (uint32_t)a->w_zp[j];
    float mult = a->a_scale * a->w_scale[j];
    float y = a->bias ? fmaf((float)(int32_t)raw, mult, a->bias[j]) : (float)(int32_t)raw * mult;
    return a->relu && 0.0f > y ? 0.0f : y;
}

/* the reference: columns [jb, je) for every row, each output one exact (wrapping) int32 sum */
static void gemm_cols(int64_t jb, int64_t je, void *ctx) {
    const tn_qdyn_args *a = ctx;
    for (int64_t i = 0; i < a->M; i++) {
        const uint8_t *q = a->qx + i * a->ldq;
        for (int64_t j = jb; j < je; j++) {
            const int8_t *w = a->w + j * a->K;
            uint32_t s = 0;
            for (int64_t k = 0; k < a->K; k++) s += (uint32_t)(q[k] * (int32_t)w[k]);
            if (a->yq) a->yq[i * a->N + j] = requant_static(a, i, j, s);
            else a->y[i * a->N + j] = requant(a, i, j, s);
        }
    }
}

#if defined(__x86_64__)

/* groups [gb, ge) of four packed column blocks (64 columns), every row four at a time */
static void gemm_vnni(int64_t gb, int64_t ge, void *ctx) {
    const tn_qdyn_args *a = ctx;
    int64_t kg = (a->K + 3) / 4, nblocks = (a->N + 15) / 16;
    int32_t acc[4 * 64];
    for (int64_t g = gb; g < ge; g++) {
        int nb = nblocks - g * 4 < 4 ? (int)(nblocks - g * 4) : 4;
        int64_t j0 = g * 64, nc = a->N - j0 < 64 ? a->N - j0 : 64;
        for (int64_t i = 0; i < a->M; i += 4) {
            int mr = a->M - i < 4 ? (int)(a->M - i) : 4;
            tn_qdyn_tile_vnni(a->qx + i * a->ldq, a->ldq, mr, a->wp + g * 4 * kg * 64, kg, nb, acc, 64);
            if (a->yq) {
                for (int r = 0; r < mr; r++)
                    for (int64_t c = 0; c < nc; c++)
                        a->yq[(i + r) * a->N + j0 + c] = requant_static(a, i + r, j0 + c, (uint32_t)acc[r * 64 + c]);
                continue;
            }
            for (int r = 0; r < mr; r++)
                tn_qdyn_requant_vnni(acc + r * 64, nc, a->a_zp, a->a_scale, a->row_off[i + r], a->col_off + j0,
                                     a->w_zp + j0, a->w_scale + j0, a->bias ? a->bias + j0 : NULL, a->relu,
                                     a->y + (i + r) * a->N + j0);
        }
    }
}
#endif

/* the integer products' variant: AVX-512 VNNI when the CPU has it (TN_QDYN=ref forces the
 * reference); both give the same exact sums */
static int use_vnni(void) {
    static int chosen = -1;
    if (chosen < 0) {   /* a benign race: every thread finds the same */
        int v = 0;
#if defined(__x86_64__)
        const char *env = getenv("TN_QDYN");
        __builtin_cpu_init();
        v = !(env && !strcmp(env, "ref")) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vnni");
#endif
        chosen = v;
    }
    return chosen;
}

const char *tn_qdyn_isa(void) { return use_vnni() ? "avx512vnni" : "ref"; }

int64_t tn_qdyn_packed_bytes(int64_t N, int64_t K) { return use_vnni() ? (N + 15) / 16 * ((K + 3) / 4) * 64 : 0; }

void tn_qdyn_pack(const int8_t *w, int64_t N, int64_t K, int8_t *out) {
#if defined(__x86_64__)
    if (use_vnni()) tn_qdyn_pack_vnni(w, N, K, out);
#endif
}

int64_t tn_qdyn_row_stride(int64_t K) { return use_vnni() ? (K + 3) / 4 * 4 : K; }

static int64_t grain_for(int64_t work_per_item) {
    int64_t g = 65536 / (work_per_item > 0 ? work_per_item : 1);
    return g > 0 ? g : 1;
}

void tn_qdyn_linear(const tn_qdyn_args *a) {
    if (a->M <= 0 || a->N <= 0) return;
    tn_parallel_for(a->M, grain_for(a->K), a->xq ? load_rows : quantize_rows, (void *)a);
#if defined(__x86_64__)
    if (a->wp) {
        tn_parallel_for((a->N + 63) / 64, grain_for(a->M * a->K * 64), gemm_vnni, (void *)a);
        return;
    }
#endif
    tn_parallel_for(a->N, grain_for(a->M * a->K), gemm_cols, (void *)a);
}

void tn_qdyn_col_offsets(const int8_t *w, int64_t N, int64_t K, const int32_t *w_zp, int32_t *col_off) {
    for (int64_t j = 0; j < N; j++) {
        uint32_t sum = 0;
        for (int64_t k = 0; k < K; k++) sum += (uint32_t)(int32_t)w[j * K + k];
        col_off[j] = (int32_t)(sum - (uint32_t)w_zp[j] * (uint32_t)K);
    }
}

void tn_qdyn_saturate_f16(float *w, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (w[i] > 65504.0f) w[i] = 65504.0f;
        if (w[i] < -65504.0f) w[i] = -65504.0f;
    }
}

void tn_qdyn_round_f16(float *w, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        float v = w[i];
        w[i] = v != v ? -65504.0f : v > 65504.0f ? 65504.0f : v < -65504.0f ? -65504.0f : tn_f16_to_f32(tn_f32_to_f16(v));
    }
}

typedef struct {
    int64_t M, N, K;
    const float *x, *w, *wp;
    float *y;
} fp16_args;

#if defined(__x86_64__)
void tn_qdyn_fp16_pack_avx512(const float *w, int64_t N, int64_t K, float *out);
void tn_qdyn_fp16_cols_avx512(int64_t M, int64_t N, int64_t K, const float *x, const float *wp, int64_t bb,
                              int64_t be, float *y);

/* column blocks [bb, be) of 16 */
static void fp16_blocks(int64_t bb, int64_t be, void *ctx) {
    const fp16_args *a = ctx;
    tn_qdyn_fp16_cols_avx512(a->M, a->N, a->K, a->x, a->wp, bb, be, a->y);
}
#endif

int64_t tn_qdyn_fp16_packed_floats(int64_t N, int64_t K) { return use_vnni() ? (N + 15) / 16 * 16 * K : 0; }

void tn_qdyn_fp16_pack(const float *w16, int64_t N, int64_t K, float *out) {
#if defined(__x86_64__)
    if (use_vnni()) tn_qdyn_fp16_pack_avx512(w16, N, K, out);
#endif
}

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

void tn_qdyn_linear_fp16(int64_t M, int64_t N, int64_t K, const float *x, const float *w16, const float *wp, float *y) {
    if (M <= 0 || N <= 0) return;
    fp16_args a = {M, N, K, x, w16, wp, y};
#if defined(__x86_64__)
    if (wp) {
        tn_parallel_for((N + 15) / 16, grain_for(M * K * 16), fp16_blocks, &a);
        return;
    }
#endif
    tn_parallel_for(N, grain_for(M * K), fp16_cols, &a);
}
