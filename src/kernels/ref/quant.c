/* kernels/ref/quant.c — GGUF block formats, portable reference (see kernels/quant.h): ggml's
 * reference quantisation (quantize_row_*_ref, whose bytes the gguf Python package reproduces),
 * dequantisation, and the integer block dot products of the quantised Linear.
 *
 * ggml converts float to int8 with a C cast, undefined outside the type's range (it happens only
 * for non-finite values or when 1/d overflows on tiny blocks); numpy's cast, which the byte
 * reference uses, goes through a 32-bit conversion (out of range: INT32_MIN) and keeps the low
 * byte. q_byte() does the same, so every input gives numpy's bytes and none is undefined. */
#include "kernels/quant.h"
#include "core/dtype.h"

#include <math.h>
#include <string.h>

static inline uint8_t q_byte(float v) {
    int32_t i = (v >= -2147483648.0f && v < 2147483648.0f) ? (int32_t)v : INT32_MIN;
    return (uint8_t)((uint32_t)i & 0xffu);
}

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v & 0xff); p[1] = (uint8_t)(v >> 8); }

int tn_quant_block_bytes(tn_qfmt f) {
    switch (f) {
    case TN_Q8_0: return 34;
    case TN_Q4_0: return 18;
    case TN_Q4_1: return 20;
    case TN_Q8_1: return 36;
    default: return -1;
    }
}

static const char *const names[TN_QFMT_COUNT] = {"q8_0", "q4_0", "q4_1", "q8_1"};

int tn_quant_fmt_parse(const char *name) {
    for (int i = 0; i < TN_QFMT_COUNT; i++)
        if (name && !strcmp(name, names[i])) return i;
    return -1;
}

const char *tn_quant_fmt_name(tn_qfmt f) { return (unsigned)f < TN_QFMT_COUNT ? names[f] : "?"; }

/* One block of 32 values at x into y (ggml's reference rounding). */
static void quant_block(tn_qfmt f, const float *x, uint8_t *y) {
    if (f == TN_Q8_0 || f == TN_Q8_1) {
        float amax = 0.0f;
        for (int j = 0; j < TN_QK; j++) {
            float a = fabsf(x[j]);
            amax = amax > a ? amax : a;
        }
        const float d = amax / 127;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        wr16(y, tn_f32_to_f16(d));
        uint8_t *q = y + (f == TN_Q8_1 ? 4 : 2);
        int sum = 0;
        for (int j = 0; j < TN_QK; j++) {
            q[j] = q_byte(roundf(x[j] * id));
            sum += (int8_t)q[j];
        }
        if (f == TN_Q8_1) wr16(y + 2, tn_f32_to_f16((float)sum * d));
    } else if (f == TN_Q4_0) {
        /* the first value of largest magnitude (ggml starts from max = 0.0f, numpy's argmax
         * from x[0]: they differ only on a block of zeros starting with -0.0, where the gguf
         * package's bytes, the reference here, have d = +0.0) */
        float amax = fabsf(x[0]), max = x[0];
        for (int j = 1; j < TN_QK; j++)
            if (amax < fabsf(x[j])) {
                amax = fabsf(x[j]);
                max = x[j];
            }
        const float d = max / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        wr16(y, tn_f32_to_f16(d));
        for (int j = 0; j < TN_QK / 2; j++) {
            uint8_t a = q_byte(x[j] * id + 8.5f), b = q_byte(x[j + 16] * id + 8.5f);
            a = a < 15 ? a : 15;
            b = b < 15 ? b : 15;
            y[2 + j] = (uint8_t)(a | (b << 4));
        }
    } else { /* TN_Q4_1 */
        float min = x[0], max = x[0];
        for (int j = 1; j < TN_QK; j++) {
            if (x[j] < min) min = x[j];
            if (x[j] > max) max = x[j];
        }
        const float d = (max - min) / 15;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        wr16(y, tn_f32_to_f16(d));
        wr16(y + 2, tn_f32_to_f16(min));
        for (int j = 0; j < TN_QK / 2; j++) {
            uint8_t a = q_byte((x[j] - min) * id + 0.5f), b = q_byte((x[j + 16] - min) * id + 0.5f);
            a = a < 15 ? a : 15;
            b = b < 15 ? b : 15;
            y[4 + j] = (uint8_t)(a | (b << 4));
        }
    }
}

void tn_quant_row(tn_qfmt f, const float *x, uint8_t *y, int64_t k) {
    int bs = tn_quant_block_bytes(f);
    for (int64_t i = 0; i < k / TN_QK; i++) quant_block(f, x + i * TN_QK, y + i * bs);
}

void tn_dequant_row(tn_qfmt f, const uint8_t *x, float *y, int64_t k) {
    int bs = tn_quant_block_bytes(f);
    for (int64_t i = 0; i < k / TN_QK; i++, x += bs, y += TN_QK) {
        const float d = tn_f16_to_f32(rd16(x));
        if (f == TN_Q8_0 || f == TN_Q8_1) {
            const int8_t *q = (const int8_t *)(x + (f == TN_Q8_1 ? 4 : 2));
            for (int j = 0; j < TN_QK; j++) y[j] = (float)q[j] * d;
        } else if (f == TN_Q4_0) {
            for (int j = 0; j < TN_QK / 2; j++) {
                y[j] = (float)((x[2 + j] & 0x0f) - 8) * d;
                y[j + 16] = (float)((x[2 + j] >> 4) - 8) * d;
            }
        } else {
            const float m = tn_f16_to_f32(rd16(x + 2));
            for (int j = 0; j < TN_QK / 2; j++) {
                y[j] = (float)(x[4 + j] & 0x0f) * d + m;
                y[j + 16] = (float)(x[4 + j] >> 4) * d + m;
            }
        }
    }
}

float tn_qrow_ref(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb) {
    int bs = tn_quant_block_bytes(f);
    float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t b = 0; b < nb; b++, w += bs) {
        const int8_t *x = a->q + b * TN_QK;
        int32_t s = 0;
        if (f == TN_Q8_0) {
            const int8_t *q = (const int8_t *)(w + 2);
            for (int j = 0; j < TN_QK; j++) s += q[j] * x[j];
        } else {
            const uint8_t *q = w + (f == TN_Q4_0 ? 2 : 4);
            int off = f == TN_Q4_0 ? 8 : 0;
            for (int j = 0; j < TN_QK / 2; j++) s += ((q[j] & 0x0f) - off) * x[j] + ((q[j] >> 4) - off) * x[j + 16];
        }
        const float dw = tn_f16_to_f32(rd16(w));
        float p;
        if (f == TN_Q4_1) {
            float t = (dw * a->d[b]) * (float)s, u = tn_f16_to_f32(rd16(w + 2)) * a->s[b];
            p = t + u;
        } else {
            p = (float)s * (dw * a->d[b]);
        }
        lane[b & 7] += p;
    }
    float h0 = lane[0] + lane[4], h1 = lane[1] + lane[5], h2 = lane[2] + lane[6], h3 = lane[3] + lane[7];
    return (h0 + h2) + (h1 + h3);
}
