/* ref/fakequant.c — fake quantization kernels (kernels/fakequant.h).
 *
 * Each loop follows upstream's scalar lambda with C++'s usual conversions spelled out: a float
 * input is multiplied by the float inverse scale in float and rounded with nearbyint (half to
 * even), the int64 zero point is added in the input's compute type (float for f32 / f16 / bf16,
 * double for f64), the clamp is std::fmin / std::fmax in double, and per tensor the dequantized
 * value is (q - zero_point) converted to float times the float scale (so an f64 input gets a
 * float-precision result, as upstream's); per channel that product is formed in double. */
#include "kernels/fakequant.h"
#include "kernels/ref/ew_impl.h"

#include <math.h>

#define P ((const tn_fq_params *)ctx)

/* ---- per tensor: {out, mask, in} ---- */
#define FQ_TENSOR_LOOP(name, TS, CT, LD, ST)                                                     \
    static void name(char **d, const int64_t *s, int64_t n, const void *ctx) {                 \
        const float sc = P->scale, inv = P->inv_scale;                                          \
        const int64_t zp = P->zero_point, qmin = P->qmin, qmax = P->qmax;                       \
        for (int64_t k = 0; k < n; k++) {                                                       \
            TS *o = (TS *)(d[0] + k * s[0]);                                                    \
            bool *m = (bool *)(d[1] + k * s[1]);                                                \
            TS x = *(const TS *)(d[2] + k * s[2]);                                              \
            if (!P->on) { *o = x; *m = true; continue; }                                        \
            CT qf = (CT)zp + nearbyint((CT)(LD(x)) * (CT)inv);                                  \
            int64_t q = (int64_t)fmin(fmax((double)qf, (double)qmin), (double)qmax);            \
            *o = ST((float)(q - zp) * sc);                                                      \
            *m = (CT)qmin <= qf && qf <= (CT)qmax;                                              \
        }                                                                                       \
    }
#define LD_ID(v) (v)
#define ST_F64(v) ((double)(v))
#define ST_F32(v) (v)
FQ_TENSOR_LOOP(fq_tensor_f32, float, float, LD_ID, ST_F32)
FQ_TENSOR_LOOP(fq_tensor_f64, double, double, LD_ID, ST_F64)
FQ_TENSOR_LOOP(fq_tensor_f16, uint16_t, float, tn__h2f, tn__f2h)
FQ_TENSOR_LOOP(fq_tensor_bf16, uint16_t, float, tn__b2f, tn__f2b)

tn_loop tn_fq_tensor_loop(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return fq_tensor_f32;
    case TN_DTYPE_F64: return fq_tensor_f64;
    case TN_DTYPE_F16: return fq_tensor_f16;
    case TN_DTYPE_BF16: return fq_tensor_bf16;
    default: return NULL;
    }
}

/* ---- per channel: {out, mask, in, scale (f32), zero_point} ----
 * an integer zero point: q = int64(zp + nearbyint(x * inv)) in the input's compute type; a float
 * one: q = lrintf(zp + x * inv), the sum narrowed to float (upstream's mirror of the affine
 * quantizer). The value is (clamp(q) - zp) * scale in double, narrowed to the output type (f16 /
 * bf16 through float, as c10::Half's constructor from double does). zp + x * inv is one fused
 * multiply-add: upstream's kernel is built for AVX2 / AVX-512 with FMA and the compiler contracts
 * it (measured: the plain sum differs on 43% of random learnable-backward elements, FMA on none). */
#define FQ_CHANNEL_LOOP(name, TS, CT, LD, ST, FMA)                                                  \
    static void name(char **d, const int64_t *s, int64_t n, const void *ctx) {                 \
        const int64_t qmin = P->qmin, qmax = P->qmax;                                           \
        const tn_dtype zdt = P->zp_dtype;                                                        \
        for (int64_t k = 0; k < n; k++) {                                                       \
            TS *o = (TS *)(d[0] + k * s[0]);                                                    \
            bool *m = (bool *)(d[1] + k * s[1]);                                                \
            CT x = (CT)LD(*(const TS *)(d[2] + k * s[2]));                                      \
            float sc = *(const float *)(d[3] + k * s[3]);                                       \
            float inv = 1.0f / sc;                                                              \
            const char *zpp = d[4] + k * s[4];                                                  \
            int64_t q;                                                                          \
            double zpd;                                                                         \
            if (zdt == TN_DTYPE_I32) {                                                          \
                int32_t zp = *(const int32_t *)zpp;                                             \
                q = tn_fq_to_i64((double)((CT)zp + nearbyint(x * (CT)inv)));                    \
                zpd = zp;                                                                       \
            } else {                                                                            \
                float zp = zdt == TN_DTYPE_F16 ? tn__h2f(*(const uint16_t *)zpp) : *(const float *)zpp; \
                q = tn_fq_to_i64(nearbyintf((float)FMA(x, (CT)inv, (CT)zp)));                   \
                zpd = zp;                                                                       \
            }                                                                                   \
            *m = qmin <= q && q <= qmax;                                                        \
            double v = (fmin(fmax((double)q, (double)qmin), (double)qmax) - zpd) * (double)sc;  \
            *o = ST(v);                                                                         \
        }                                                                                       \
    }
#define STC_F64(v) (v)
#define STC_F32(v) ((float)(v))
#define STC_F16(v) tn__f2h((float)(v))
#define STC_BF16(v) tn__f2b((float)(v))
FQ_CHANNEL_LOOP(fq_channel_f32, float, float, LD_ID, STC_F32, fmaf)
FQ_CHANNEL_LOOP(fq_channel_f64, double, double, LD_ID, STC_F64, fma)
FQ_CHANNEL_LOOP(fq_channel_f16, uint16_t, float, tn__h2f, STC_F16, fmaf)
FQ_CHANNEL_LOOP(fq_channel_bf16, uint16_t, float, tn__b2f, STC_BF16, fmaf)

tn_loop tn_fq_channel_loop(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return fq_channel_f32;
    case TN_DTYPE_F64: return fq_channel_f64;
    case TN_DTYPE_F16: return fq_channel_f16;
    case TN_DTYPE_BF16: return fq_channel_bf16;
    default: return NULL;
    }
}

/* ---- learnable backward (f32), upstream's order of float operations; the two contractions its
 * FMA build forms: zp + x * inv and (clamped q - zp) * scale - x ---- */
static inline void learnable_grad(float x, float dy, float scale, float inv, float zp_f, int64_t xqi,
                                  int64_t qmin, int64_t qmax, float gf, float dsmall, float dbig,
                                  float *dx, float *ds, float *dz) {
    *dx = dy * (float)(xqi >= qmin && xqi <= qmax);
    int64_t c = xqi < qmax ? xqi : qmax;
    c = c > qmin ? c : qmin;
    if (xqi < qmin || xqi > qmax) {
        *dz = dy * (-1.0f) * scale * gf;
        *ds = ((xqi < qmin) ? (dy * dsmall) : (dy * dbig)) * gf;
    } else {
        *dz = 0;
        *ds = dy * fmaf((float)c - zp_f, scale, -x) * inv * gf;
    }
}

/* per tensor: scale and the int64 zero point in the params ((c - zp) made float is exact: both
 * are quantized values) */
void tn_fq_learnable_tensor_grad(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const float scale = P->scale, inv = P->inv_scale, gf = P->grad_factor, zpf = (float)P->zero_point;
    const int64_t qmin = P->qmin, qmax = P->qmax;
    const float dsmall = (float)(qmin - P->zero_point), dbig = (float)(qmax - P->zero_point);
    for (int64_t k = 0; k < n; k++) {
        float x = *(const float *)(d[3] + k * s[3]), dy = *(const float *)(d[4] + k * s[4]);
        int64_t xqi = tn_fq_to_i64(nearbyintf(fmaf(x, inv, zpf)));
        learnable_grad(x, dy, scale, inv, zpf, xqi, qmin, qmax, gf, dsmall, dbig,
                       (float *)(d[0] + k * s[0]), (float *)(d[1] + k * s[1]), (float *)(d[2] + k * s[2]));
    }
}

/* per channel: scale and the rounded float zero point come as operands */
void tn_fq_learnable_channel_grad(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const int64_t qmin = P->qmin, qmax = P->qmax;
    const float gf = P->grad_factor;
    for (int64_t k = 0; k < n; k++) {
        float x = *(const float *)(d[3] + k * s[3]), dy = *(const float *)(d[4] + k * s[4]);
        float scale = *(const float *)(d[5] + k * s[5]), zp = *(const float *)(d[6] + k * s[6]);
        float inv = 1.0f / scale;
        float dsmall = (float)qmin - zp, dbig = (float)qmax - zp;
        int64_t xqi = tn_fq_to_i64(nearbyintf(fmaf(x, inv, zp)));
        learnable_grad(x, dy, scale, inv, zp, xqi, qmin, qmax, gf, dsmall, dbig,
                       (float *)(d[0] + k * s[0]), (float *)(d[1] + k * s[1]), (float *)(d[2] + k * s[2]));
    }
}

/* ---- ChooseQuantizationParams ---- */
#define SMALL_SCALE_THRESHOLD 6.1e-5f

bool tn_fq_choose_qparams(float min, float max, int32_t qmin, int32_t qmax, bool preserve_sparsity,
                          bool reduce_range, double *scale_out, int32_t *zp_out) {
    if (!(min <= max)) return false;
    if (reduce_range) { qmin /= 2; qmax /= 2; }
    if (min < 0 && max > 0 && preserve_sparsity) {
        int sqmin = -((qmax - qmin) / 2 + 1), sqmax = (qmax - qmin) / 2;
        double a = fabsf(min / (float)sqmin), b = fabsf(max / (float)sqmax);
        double max_scale = a > b ? a : b;
        min = (float)(max_scale * sqmin);
        max = (float)(max_scale * sqmax);
    }
    min = min < 0.f ? min : 0.f;
    max = max > 0.f ? max : 0.f;
    if (!(qmin < qmax)) return false;
    double scale = ((double)max - min) / (qmax - qmin);
    if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) scale = 0.1;
    if (scale < SMALL_SCALE_THRESHOLD) {   /* the cut-off: min / max widened by the same factor */
        float org = (float)scale;
        scale = SMALL_SCALE_THRESHOLD;
        if (min == 0.0f) max = SMALL_SCALE_THRESHOLD * (qmax - qmin);
        else if (max == 0.0f) min = -SMALL_SCALE_THRESHOLD * (qmax - qmin);
        else { float amp = SMALL_SCALE_THRESHOLD / org; min *= amp; max *= amp; }
    }
    /* upstream's error terms subtract (fbgemm's add): the variant with the smaller one is taken */
    double zfmin = qmin - min / scale, zfmax = qmax - max / scale;
    double emin = fabs((double)qmin) - fabs(min / scale), emax = fabs((double)qmax) - fabs(max / scale);
    double izp = emin < emax ? zfmin : zfmax;
    if (min < 0 && max > 0 && preserve_sparsity) izp = (double)(qmin + qmax) / 2;
    int32_t zp;
    if (izp < qmin) zp = qmin;
    else if (izp > qmax) zp = qmax;
    else zp = (int32_t)nearbyint(izp);
    *scale_out = scale;
    *zp_out = zp;
    return true;
}

/* ---- choose_qparams_optimized ---- */
static float via_half(float v) { return tn__h2f(tn__f2h(v)); }

static float quant_loss(const float *x, int64_t n, float xmin, float xmax, int bit_width) {
    xmin = via_half(xmin);
    float range = xmax - xmin, qmax = (float)((1 << bit_width) - 1);
    float scale = range == 0 ? 1.0f : via_half(range / qmax);
    float inv = scale == 0 ? 1.0f : 1.0f / scale;
    float norm = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        float q = nearbyintf((x[i] - xmin) * inv);
        q = q < qmax ? q : qmax;
        q = 0.0f > q ? 0.0f : q;
        q = q * scale + xmin;
        norm += (x[i] - q) * (x[i] - q);
    }
    return sqrtf(norm);
}

void tn_fq_choose_qparams_optimized(const float *x, int64_t n, int64_t n_bins, double ratio, int bit_width,
                                    float *xmin_out, float *xmax_out) {
    float xmin = x[0], xmax = x[0];
    for (int64_t i = 1; i < n; i++) {
        if (x[i] < xmin) xmin = x[i];
        if (x[i] > xmax) xmax = x[i];
    }
    float step = (xmax - xmin) / (float)n_bins;
    int min_bins = (int)((double)n_bins * (1.0 - (double)(float)ratio));
    float loss = quant_loss(x, n, xmin, xmax, bit_width), best = loss;
    float cur_min = xmin, cur_max = xmax, cur = loss, thr = (float)min_bins * step;
    while (cur_min + thr < cur_max) {
        float l1 = quant_loss(x, n, cur_min + step, cur_max, bit_width);
        float l2 = quant_loss(x, n, cur_min, cur_max - step, bit_width);
        if (cur < l1 && cur < l2 && cur < best) { best = cur; xmin = cur_min; xmax = cur_max; }
        float m0 = cur_min, m1 = cur_max;
        if (l1 < l2) { cur_min = cur_min + step; cur = l1; }
        else { cur_max = cur_max - step; cur = l2; }
        if (cur_min == m0 && cur_max == m1) break;   /* a step lost to rounding: upstream loops forever */
    }
    *xmin_out = xmin;
    *xmax_out = xmax;
}

/* ---- quantized tensors ---- */
#define QP ((const tn_q_params *)ctx)

static inline int64_t q_load(const char *p, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_QI8: return *(const int8_t *)p;
    case TN_DTYPE_QI32: return *(const int32_t *)p;
    default: return *(const uint8_t *)p;
    }
}
static inline void q_store(char *p, tn_dtype dt, int64_t v) {
    switch (dt) {
    case TN_DTYPE_QI8: *(int8_t *)p = (int8_t)v; break;
    case TN_DTYPE_QI32: *(int32_t *)p = (int32_t)v; break;
    default: *(uint8_t *)p = (uint8_t)v; break;
    }
}
static inline int64_t q_round(float x, float inv, int64_t zp, int64_t qmin, int64_t qmax) {
    double v = nearbyintf(fmaf(x, inv, (float)zp));
    v = v < (double)qmin ? (double)qmin : v > (double)qmax ? (double)qmax : v;
    return v == v ? (int64_t)v : qmin;
}

void tn_q_quantize_tensor(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const float inv = 1.0f / QP->scale;
    for (int64_t k = 0; k < n; k++)
        q_store(d[0] + k * s[0], QP->qdtype, q_round(*(const float *)(d[1] + k * s[1]), inv, QP->zero_point, QP->qmin, QP->qmax));
}
void tn_q_quantize_channel(char **d, const int64_t *s, int64_t n, const void *ctx) {
    for (int64_t k = 0; k < n; k++) {
        float inv = 1.0f / (float)*(const double *)(d[2] + k * s[2]);
        int64_t zp = *(const int64_t *)(d[3] + k * s[3]);
        q_store(d[0] + k * s[0], QP->qdtype, q_round(*(const float *)(d[1] + k * s[1]), inv, zp, QP->qmin, QP->qmax));
    }
}
void tn_q_dequantize_tensor(char **d, const int64_t *s, int64_t n, const void *ctx) {
    for (int64_t k = 0; k < n; k++)
        *(float *)(d[0] + k * s[0]) = (float)(q_load(d[1] + k * s[1], QP->qdtype) - QP->zero_point) * QP->scale;
}
void tn_q_dequantize_channel(char **d, const int64_t *s, int64_t n, const void *ctx) {
    for (int64_t k = 0; k < n; k++) {
        double sc = *(const double *)(d[2] + k * s[2]);
        int64_t zp = *(const int64_t *)(d[3] + k * s[3]);
        *(float *)(d[0] + k * s[0]) = (float)((double)(q_load(d[1] + k * s[1], QP->qdtype) - zp) * sc);
    }
}
