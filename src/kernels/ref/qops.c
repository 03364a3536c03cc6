/* kernels/ref/qops.c — quantized add / mul and the NHWC cat (kernels/qops.h has the arithmetic). */
#include "kernels/qops.h"

#include <math.h>
#include <string.h>

static int32_t load(int dt, const char *p) {
    return dt == 0 ? *(const uint8_t *)p : dt == 1 ? *(const int8_t *)p : *(const int32_t *)p;
}
static void store(int dt, char *p, int64_t v) {
    int64_t lo = dt == 0 ? 0 : dt == 1 ? -128 : INT32_MIN, hi = dt == 0 ? 255 : dt == 1 ? 127 : INT32_MAX;
    v = v < lo ? lo : v > hi ? hi : v;
    if (dt == 0) *(uint8_t *)p = (uint8_t)v;
    else if (dt == 1) *(int8_t *)p = (int8_t)v;
    else *(int32_t *)p = (int32_t)v;
}
static int itemsize(int dt) { return dt == 2 ? 4 : 1; }

/* the vector body's float -> integer (QuantizeAvx512 / QuantizeAvx2: x * inv, clipped at the
 * largest float below 2^31, CVTPS2DQ, + zero point) */
static int64_t quant_vec(float c, float inv, int32_t zp) {
    float t = c * inv;
    if (t > 2147483520.f) t = 2147483520.f;
    return (int64_t)rintf(t) + zp;
}
/* fbgemm's vector Quantize as quantize_vec reaches it for 8-bit types: x * inv + zp fused, rounded */
static int64_t quant_fma(float c, float inv, int32_t zp) { return (int64_t)rintf(fmaf(c, inv, (float)zp)); }
/* upstream's quantize_val (fbgemm's Quantize, built without FMA there): zp + x * inv in float,
 * rounded, clamped as a double (the qint32 range) */
static int64_t quant_scalar(float c, float inv, int32_t zp) {
    float t = c * inv;
    double r = rintf((float)zp + t);
    return r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX : (int64_t)r;
}


static int64_t one(const tn_qbin_args *a, int32_t qa, int32_t qb, bool vec, float inv, float ma, float mb, float mul) {
    if (a->mul) {
        int32_t c = (int32_t)((uint32_t)(qa - a->za) * (uint32_t)(qb - a->zb));
        int64_t r = (int64_t)rintf((float)c * mul) + a->zo;
        return a->relu && r < a->zo ? a->zo : r;
    }
    float da, db;
    if (vec) {
        da = fmaf(a->sa, (float)qa, ma);
        db = fmaf(a->sb, (float)qb, mb);
    } else {
        /* dequantize_val: the int32 difference (wrapping), then float */
        da = (float)(int32_t)((uint32_t)qa - (uint32_t)a->za) * a->sa;
        db = (float)(int32_t)((uint32_t)qb - (uint32_t)a->zb) * a->sb;
    }
    float c = da + db;
    if (a->relu) c = fmaxf(c, 0.f);
    /* qint32's vector quantize is quantize_vec<qint32, 32>: fbgemm's scalar Quantize per element */
    return vec && a->dt != 2 ? quant_vec(c, inv, a->zo) : quant_scalar(c, inv, a->zo);
}

void tn_qbinary(const tn_qbin_args *a) {
    int64_t outer = 1, idx[TN_QOPS_MAXD] = {0};
    for (int d = 1; d < a->ndim; d++) outer *= a->sizes[d];
    int64_t n = a->ndim ? a->sizes[0] : 1, is = itemsize(a->dt);
    float inv = 1.0f / a->so, ma = a->sa * -(float)a->za, mb = a->sb * -(float)a->zb, mul = a->sa * a->sb * inv;
    int64_t vend = a->vblock ? n / a->vblock * a->vblock : 0;
    for (int64_t o = 0; o < outer; o++) {
        int64_t off[3] = {0, 0, 0};
        for (int d = 1; d < a->ndim; d++)
            for (int k = 0; k < 3; k++) off[k] += idx[d] * a->st[k][d];
        for (int64_t i = 0; i < n; i++) {
            int64_t s0 = a->ndim ? i : 0;
            int32_t qa = load(a->dt, a->a + (off[1] + s0 * (a->ndim ? a->st[1][0] : 0)) * is);
            int32_t qb = load(a->dt, a->b + (off[2] + s0 * (a->ndim ? a->st[2][0] : 0)) * is);
            store(a->dt, a->out + (off[0] + s0 * (a->ndim ? a->st[0][0] : 0)) * is, one(a, qa, qb, i < vend, inv, ma, mb, mul));
        }
        for (int d = 1; d < a->ndim; d++) {
            if (++idx[d] < a->sizes[d]) break;
            idx[d] = 0;
        }
    }
}

void tn_qcat_nhwc(const tn_qcat_args *a) {
    int64_t is = itemsize(a->dt);
    float inv = a->inv, m = a->sx * -(float)a->zx;
    int64_t vend = a->C / a->vlen * a->vlen;
    if (a->flen && a->C - vend >= a->flen) vend += (a->C - vend) / a->flen * a->flen;
    for (int64_t r = 0; r < a->rows; r++) {
        const char *x = a->x + r * a->C * is;
        char *y = a->y + (r * a->C_out + a->c0) * is;
        if (a->copy) {
            memcpy(y, x, (size_t)(a->C * is));
            continue;
        }
        for (int64_t c = 0; c < a->C; c++) {
            int32_t q = load(a->dt, x + c * is);
            bool vec = c < vend;
            float f = vec ? fmaf(a->sx, (float)q, m) : (float)(int32_t)((uint32_t)q - (uint32_t)a->zx) * a->sx;
            if (a->relu) f = fmaxf(f, 0.f);
            store(a->dt, y + c * is, vec && a->dt != 2 ? quant_vec(f, inv, a->zo) : quant_scalar(f, 1.0f / a->so, a->zo));
        }
    }
}

void tn_qmaxpool2d(const tn_qpool_args *a) {
    int64_t is = itemsize(a->dt);
    for (int64_t n = 0; n < a->N; n++)
        for (int64_t c = 0; c < a->C; c++) {
            const char *x = a->x + (n * a->xs[0] + c * a->xs[1]) * is;
            for (int64_t oh = 0; oh < a->OH; oh++)
                for (int64_t ow = 0; ow < a->OW; ow++) {
                    int64_t h0 = oh * a->sh - a->ph, w0 = ow * a->sw - a->pw;
                    int64_t h1 = h0 + (a->kh - 1) * a->dh + 1, w1 = w0 + (a->kw - 1) * a->dw + 1;
                    if (h1 > a->H) h1 = a->H;
                    if (w1 > a->W) w1 = a->W;
                    while (h0 < 0) h0 += a->dh;
                    while (w0 < 0) w0 += a->dw;
                    int32_t m = a->dt == 0 ? 0 : a->dt == 1 ? -128 : INT32_MIN;
                    for (int64_t h = h0; h < h1; h += a->dh)
                        for (int64_t w = w0; w < w1; w += a->dw) {
                            int32_t v = load(a->dt, x + (h * a->xs[2] + w * a->xs[3]) * is);
                            if (v > m) m = v;
                        }
                    store(a->dt, a->y + (n * a->ys[0] + c * a->ys[1] + oh * a->ys[2] + ow * a->ys[3]) * is, m);
                }
        }
}

void tn_qavgpool2d(const tn_qavg_args *a) {
    int64_t is = itemsize(a->dt);
    for (int64_t n = 0; n < a->N; n++)
        for (int64_t oh = 0; oh < a->OH; oh++)
            for (int64_t ow = 0; ow < a->OW; ow++) {
                int64_t h0, h1, w0, w1, div;
                if (a->adaptive) {
                    h0 = (int64_t)floorf((float)(oh * a->H) / (float)a->OH);
                    h1 = (int64_t)ceilf((float)((oh + 1) * a->H) / (float)a->OH);
                    w0 = (int64_t)floorf((float)(ow * a->W) / (float)a->OW);
                    w1 = (int64_t)ceilf((float)((ow + 1) * a->W) / (float)a->OW);
                    div = (h1 - h0) * (w1 - w0);
                } else {
                    h0 = oh * a->sh - a->ph;
                    w0 = ow * a->sw - a->pw;
                    h1 = h0 + a->kh < a->H + a->ph ? h0 + a->kh : a->H + a->ph;
                    w1 = w0 + a->kw < a->W + a->pw ? w0 + a->kw : a->W + a->pw;
                    int64_t pool = (h1 - h0) * (w1 - w0);
                    if (h0 < 0) h0 = 0;
                    if (w0 < 0) w0 = 0;
                    if (h1 > a->H) h1 = a->H;
                    if (w1 > a->W) w1 = a->W;
                    div = a->divisor ? a->divisor : a->count_include_pad ? pool : (h1 - h0) * (w1 - w0);
                }
                int64_t cnt = (h1 - h0) * (w1 - w0);
                for (int64_t c = 0; c < a->C; c++) {
                    const char *x = a->x + (n * a->xs[0] + c * a->xs[1]) * is;
                    int64_t s = 0;
                    for (int64_t h = h0; h < h1; h++)
                        for (int64_t w = w0; w < w1; w++) s += load(a->dt, x + (h * a->xs[2] + w * a->xs[3]) * is);
                    int64_t q;
                    if (!a->nhwc && !a->adaptive) {
                        float m = (float)(1.0 / (double)div);
                        q = (int64_t)nearbyintf((float)(int32_t)(s - cnt * a->zp) * m + (float)a->zp);
                    } else if (!a->nhwc) {
                        float r = (float)(1.0 / (double)(h1 - h0)) / (float)(w1 - w0);
                        q = (int64_t)nearbyintf((float)s * r);
                    } else {
                        float m = 1.0f / (float)div, acc = (float)(int32_t)(s - cnt * a->zp), inv = 1.0f / (1.0f / m);
                        if (c >= a->vend) q = quant_scalar(acc, inv, a->zp);
                        else if (a->adaptive) q = quant_fma(acc, inv, a->zp);
                        else if (c < a->vend / 16 * 16) q = quant_vec(acc, m, a->zp);
                        else q = quant_scalar(acc, m, a->zp);   /* QuantizeAvx2's scalar tail */
                    }
                    store(a->dt, a->y + (n * a->ys[0] + c * a->ys[1] + oh * a->ys[2] + ow * a->ys[3]) * is, q);
                }
            }
}
