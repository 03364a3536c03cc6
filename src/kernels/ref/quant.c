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
    case TN_Q4_K: return 144;
    case TN_Q6_K: return 210;
    case TN_Q8_K: return 292;
    case TN_Q5_K: return 176;
    case TN_Q3_K: return 110;
    case TN_Q2_K: return 84;
    default: return -1;
    }
}

int tn_quant_block_values(tn_qfmt f) {
    return f == TN_Q2_K || f == TN_Q3_K || f == TN_Q4_K || f == TN_Q5_K || f == TN_Q6_K || f == TN_Q8_K ? TN_QKK : TN_QK;
}

static const char *const names[TN_QFMT_COUNT] = {"q8_0", "q4_0", "q4_1", "q8_1", "q4_k", "q6_k", "q8_k", "q5_k", "q3_k", "q2_k"};

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

/* ---- k-quants: ggml's reference quantisers (quantize_row_q2_K_ref, _q3_K_ref, _q4_K_ref, _q5_K_ref, _q6_K_ref,
 * _q8_K_ref),
 * the same float operations in the same order (this file is compiled in ISO C mode: no
 * contraction into fused multiply-adds), so the bytes are ggml's C's. */

/* Round to nearest, ties to even, by ggml's float trick (exact for |v| < 2^22; outside it the
 * same bits as ggml's C give, never undefined). */
static inline int nearest_int(float v) {
    float t = v + 12582912.f;
    int32_t i;
    memcpy(&i, &t, sizeof i);
    return (i & 0x007fffff) - 0x00400000;
}

static inline int imin(int a, int b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

/* The first element of x[0, n) with the largest magnitude, sign kept (ggml's max / amax scan);
 * *amax gets that magnitude. */
static float signed_absmax(const float *x, int n, float *amax) {
    float max = 0;
    *amax = 0;
    for (int i = 0; i < n; i++)
        if (fabsf(x[i]) > *amax) {
            *amax = fabsf(x[i]);
            max = x[i];
        }
    return max;
}

/* ggml's make_qkx2_quants with rdelta = 0.1 (Q4_K: n 32, nmax 15, rmin -1, nstep 20, squared
 * error; Q5_K: n 32, nmax 31, rmin -0.5, nstep 15, squared; Q2_K: n 16, nmax 3, rmin -0.5, nstep 15,
 * absolute error (use_mad)): a scale and a min (returned in *the_min as -min) minimising the
 * weighted error. n <= 32. */
static float qkx2(const float *x, const float *w, uint8_t *L, float *the_min, int n, int nmax, float rmin, int nstep,
                  int use_mad) {
    uint8_t Laux[32];
    const float rdelta = 0.1f;
    float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        memset(L, 0, (size_t)n);
        *the_min = -min;
        return 0.f;
    }
    float iscale = nmax / (max - min), scale = 1 / iscale, best = 0;
    for (int i = 0; i < n; i++) {
        int l = nearest_int(iscale * (x[i] - min));
        L[i] = (uint8_t)imax(0, imin(nmax, l));
        float diff = scale * L[i] + min - x[i];
        diff = use_mad ? fabsf(diff) : diff * diff;
        best += w[i] * diff;
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * is + nmax) / (max - min);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            int l = imax(0, imin(nmax, nearest_int(iscale * (x[i] - min))));
            Laux[i] = (uint8_t)l;
            sum_l += w[i] * l;
            sum_l2 += w[i] * l * l;
            sum_xl += w[i] * l * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (D > 0) {
            float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
            float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
            if (this_min > 0) {
                this_min = 0;
                this_scale = sum_xl / sum_l2;
            }
            float err = 0;
            for (int i = 0; i < n; i++) {
                float diff = this_scale * Laux[i] + this_min - x[i];
                diff = use_mad ? fabsf(diff) : diff * diff;
                err += w[i] * diff;
            }
            if (err < best) {
                memcpy(L, Laux, (size_t)n);
                best = err;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    *the_min = -min;
    return scale;
}

/* Sub-block j's 6-bit scale and min of a Q4_K block's 12 scale bytes (ggml's layout). */
static inline void q4k_scale_min(int j, const uint8_t *q, int *sc, int *m) {
    if (j < 4) {
        *sc = q[j] & 63;
        *m = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/* Q4_K (five = 0) and Q5_K (five = 1): the same steps but for the quant range (15, 31), the
 * candidate scales (make_qkx2_quants' rmin and nstep) and where the quants go. */
static void quant_q45k(const float *x, uint8_t *y, const int five) {
    const int nmax = five ? 31 : 15;
    uint8_t L[TN_QKK], *scb = y + 4;
    float w[32], mins[8], scales[8], max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; j++) {
        float sum_x2 = 0;
        for (int l = 0; l < 32; l++) sum_x2 += x[32 * j + l] * x[32 * j + l];
        float av_x = sqrtf(sum_x2 / 32);
        for (int l = 0; l < 32; l++) w[l] = av_x + fabsf(x[32 * j + l]);
        scales[j] = five ? qkx2(x + 32 * j, w, L + 32 * j, &mins[j], 32, 31, -0.5f, 15, 0)
                         : qkx2(x + 32 * j, w, L + 32 * j, &mins[j], 32, 15, -1.f, 20, 0);
        if (scales[j] > max_scale) max_scale = scales[j];
        if (mins[j] > max_min) max_min = mins[j];
    }
    float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f, inv_min = max_min > 0 ? 63.f / max_min : 0.f;
    memset(scb, 0, 12);
    for (int j = 0; j < 8; j++) {
        uint8_t ls = (uint8_t)nearest_int(inv_scale * scales[j]), lm = (uint8_t)nearest_int(inv_min * mins[j]);
        ls = ls < 63 ? ls : 63;
        lm = lm < 63 ? lm : 63;
        if (j < 4) {
            scb[j] = ls;
            scb[j + 4] = lm;
        } else {
            scb[j + 4] = (uint8_t)((ls & 0xF) | ((lm & 0xF) << 4));
            scb[j - 4] |= (uint8_t)((ls >> 4) << 6);
            scb[j] |= (uint8_t)((lm >> 4) << 6);
        }
    }
    wr16(y, tn_f32_to_f16(max_scale / 63.f));
    wr16(y + 2, tn_f32_to_f16(max_min / 63.f));
    const float D = tn_f16_to_f32(rd16(y)), DM = tn_f16_to_f32(rd16(y + 2));
    for (int j = 0; j < 8; j++) {
        int sc, m;
        q4k_scale_min(j, scb, &sc, &m);
        const float d = D * sc;
        if (!d) continue;
        const float dm = DM * m;
        for (int i = 0; i < 32; i++) L[32 * j + i] = (uint8_t)imax(0, imin(nmax, nearest_int((x[32 * j + i] + dm) / d)));
    }
    if (!five) {
        uint8_t *q = y + 16;
        for (int j = 0; j < TN_QKK; j += 64, q += 32)
            for (int l = 0; l < 32; l++) q[l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 4));
        return;
    }
    /* Q5_K: the fifth bit of value 32j + l in bit j of qh[l], the low four as Q4_K's nibbles */
    uint8_t *qh = y + 16, *q = y + 48;
    memset(qh, 0, 32);
    for (int j = 0; j < TN_QKK; j += 64, q += 32)
        for (int l = 0; l < 32; l++) {
            const int c = j / 32, l1 = L[j + l], l2 = L[j + l + 32];
            qh[l] |= (uint8_t)(((l1 >> 4) << c) | ((l2 >> 4) << (c + 1)));
            q[l] = (uint8_t)((l1 & 0xF) | ((l2 & 0xF) << 4));
        }
}

/* ggml's make_qx_quants for n = 16, nmax = 32, rmse_type 1 (weights x^2), no external weights. */
static float qx_16(const float *x, int8_t *L) {
    const int n = 16, nmax = 32;
    float amax, max = signed_absmax(x, n, &amax);
    if (amax < 1e-15f) {
        memset(L, 0, (size_t)n);
        return 0.f;
    }
    float iscale = -nmax / max, sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imax(-nmax, imin(nmax - 1, nearest_int(iscale * x[i])));
        L[i] = (int8_t)(l + nmax);
        float w = x[i] * x[i];
        sumlx += w * x[i] * l;
        suml2 += w * l * l;
    }
    float scale = suml2 ? sumlx / suml2 : 0.0f, best = scale * sumlx;
    for (int is = -9; is <= 9; is++) {
        if (is == 0) continue;
        iscale = -(nmax + 0.1f * is) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < n; i++) {
            int l = imax(-nmax, imin(nmax - 1, nearest_int(iscale * x[i])));
            float w = x[i] * x[i];
            sumlx += w * x[i] * l;
            suml2 += w * l * l;
        }
        if (suml2 > 0 && sumlx * sumlx > best * suml2) {
            for (int i = 0; i < n; i++) L[i] = (int8_t)(nmax + imax(-nmax, imin(nmax - 1, nearest_int(iscale * x[i]))));
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

static void quant_q6k(const float *x, uint8_t *y) {
    int8_t L[TN_QKK], *sc = (int8_t *)(y + 192);
    float scales[16], max_abs;
    for (int g = 0; g < 16; g++) scales[g] = qx_16(x + 16 * g, L + 16 * g);
    const float max_scale = signed_absmax(scales, 16, &max_abs);
    if (max_abs < 1e-15f) {
        memset(y, 0, 210);
        return;
    }
    float iscale = -128.f / max_scale;
    wr16(y + 208, tn_f32_to_f16(1 / iscale));
    for (int g = 0; g < 16; g++) sc[g] = (int8_t)imin(127, nearest_int(iscale * scales[g]));
    const float D = tn_f16_to_f32(rd16(y + 208));
    for (int g = 0; g < 16; g++) {
        const float d = D * sc[g];
        if (!d) continue;
        for (int i = 0; i < 16; i++) L[16 * g + i] = (int8_t)(imax(-32, imin(31, nearest_int(x[16 * g + i] / d))) + 32);
    }
    uint8_t *ql = y, *qh = y + 128;
    for (int j = 0; j < TN_QKK; j += 128, ql += 64, qh += 32)
        for (int l = 0; l < 32; l++) {
            const uint8_t *u = (const uint8_t *)L + j + l;
            ql[l] = (uint8_t)((u[0] & 0xF) | ((u[64] & 0xF) << 4));
            ql[l + 32] = (uint8_t)((u[32] & 0xF) | ((u[96] & 0xF) << 4));
            qh[l] = (uint8_t)((u[0] >> 4) | ((u[32] >> 4) << 2) | ((u[64] >> 4) << 4) | ((u[96] >> 4) << 6));
        }
}

/* ggml's make_q3_quants for n = 16, nmax = 4, do_rmse (weights x^2): L in 0..7 (an all-zero group:
 * L = 0, as ggml). */
static float q3_16(const float *x, int8_t *L) {
    const int n = 16, nmax = 4;
    float amax, max = signed_absmax(x, n, &amax);
    if (amax < 1e-15f) {
        memset(L, 0, (size_t)n);
        return 0.f;
    }
    float iscale = -nmax / max, sumlx = 0, suml2 = 0;
    for (int i = 0; i < n; i++) {
        int l = imax(-nmax, imin(nmax - 1, nearest_int(iscale * x[i])));
        L[i] = (int8_t)l;
        float w = x[i] * x[i];
        sumlx += w * x[i] * l;
        suml2 += w * l * l;
    }
    for (int itry = 0; itry < 5; itry++) {
        int n_changed = 0;
        for (int i = 0; i < n; i++) {
            float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * L[i];
            if (slx > 0) {
                float sl2 = suml2 - w * L[i] * L[i];
                int new_l = imax(-nmax, imin(nmax - 1, nearest_int(x[i] * sl2 / slx)));
                if (new_l != L[i]) {
                    slx += w * x[i] * new_l;
                    sl2 += w * new_l * new_l;
                    if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
                        L[i] = (int8_t)new_l;
                        sumlx = slx;
                        suml2 = sl2;
                        n_changed++;
                    }
                }
            }
        }
        if (!n_changed) break;
    }
    for (int i = 0; i < n; i++) L[i] = (int8_t)(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* The sixteen 6-bit scales of a Q3_K block's 12 scale bytes, minus 32 (ggml's unpacking). */
static inline void q3k_scales(const uint8_t *s, int *sc) {
    for (int g = 0; g < 16; g++) {
        int lo = g < 8 ? s[g] & 0xF : s[g - 8] >> 4, hi = (s[8 + g % 4] >> (2 * (g / 4))) & 3;
        sc[g] = (lo | (hi << 4)) - 32;
    }
}

static void quant_q3k(const float *x, uint8_t *y) {
    int8_t L[TN_QKK];
    uint8_t *hm = y, *qs = y + 32, *scb = y + 96;
    float scales[16], amax;
    for (int g = 0; g < 16; g++) scales[g] = q3_16(x + 16 * g, L + 16 * g);
    const float max_scale = signed_absmax(scales, 16, &amax);
    memset(scb, 0, 12);
    if (max_scale) {
        float iscale = -32.f / max_scale;
        for (int g = 0; g < 16; g++) {
            /* ggml: int8_t l = nearest_int(...) (the low byte), clamped to -32..31, + 32 */
            int8_t l = (int8_t)(uint8_t)((unsigned)nearest_int(iscale * scales[g]) & 0xffu);
            l = (int8_t)(imax(-32, imin(31, l)) + 32);
            if (g < 8)
                scb[g] = (uint8_t)(l & 0xF);
            else
                scb[g - 8] |= (uint8_t)((l & 0xF) << 4);
            l >>= 4;
            scb[g % 4 + 8] |= (uint8_t)(l << (2 * (g / 4)));
        }
        wr16(y + 108, tn_f32_to_f16(1 / iscale));
    } else {
        wr16(y + 108, tn_f32_to_f16(0.f));
    }
    int sc[16];
    q3k_scales(scb, sc);
    const float D = tn_f16_to_f32(rd16(y + 108));
    for (int g = 0; g < 16; g++) {
        const float d = D * sc[g];
        if (!d) continue;
        for (int i = 0; i < 16; i++) L[16 * g + i] = (int8_t)(imax(-4, imin(3, nearest_int(x[16 * g + i] / d))) + 4);
    }
    memset(hm, 0, 32);
    for (int j = 0; j < TN_QKK; j++)
        if (L[j] > 3) {
            hm[j % 32] |= (uint8_t)(1u << (j / 32));
            L[j] = (int8_t)(L[j] - 4);
        }
    for (int j = 0; j < TN_QKK; j += 128)
        for (int l = 0; l < 32; l++)
            qs[j / 4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

static void quant_q2k(const float *x, uint8_t *y) {
    uint8_t L[TN_QKK], *scb = y, *qs = y + 16;
    float w[16], mins[16], scales[16], max_scale = 0, max_min = 0;
    const float q4scale = 15.f;
    for (int g = 0; g < 16; g++) {
        for (int l = 0; l < 16; l++) w[l] = fabsf(x[16 * g + l]);
        scales[g] = qkx2(x + 16 * g, w, L + 16 * g, &mins[g], 16, 3, -0.5f, 15, 1);
        if (scales[g] > max_scale) max_scale = scales[g];
        if (mins[g] > max_min) max_min = mins[g];
    }
    if (max_scale > 0) {
        float iscale = q4scale / max_scale;
        for (int g = 0; g < 16; g++) scb[g] = (uint8_t)nearest_int(iscale * scales[g]);
        wr16(y + 80, tn_f32_to_f16(max_scale / q4scale));
    } else {
        memset(scb, 0, 16);
        wr16(y + 80, tn_f32_to_f16(0.f));
    }
    if (max_min > 0) {
        float iscale = q4scale / max_min;
        for (int g = 0; g < 16; g++) scb[g] |= (uint8_t)((unsigned)nearest_int(iscale * mins[g]) << 4);
        wr16(y + 82, tn_f32_to_f16(max_min / q4scale));
    } else {
        wr16(y + 82, tn_f32_to_f16(0.f));
    }
    const float D = tn_f16_to_f32(rd16(y + 80)), DM = tn_f16_to_f32(rd16(y + 82));
    for (int g = 0; g < 16; g++) {
        const float d = D * (scb[g] & 0xF);
        if (!d) continue;
        const float dm = DM * (scb[g] >> 4);
        for (int i = 0; i < 16; i++) L[16 * g + i] = (uint8_t)imax(0, imin(3, nearest_int((x[16 * g + i] + dm) / d)));
    }
    for (int j = 0; j < TN_QKK; j += 128)
        for (int l = 0; l < 32; l++)
            qs[j / 4 + l] = (uint8_t)(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) | (L[j + l + 96] << 6));
}

/* Q8_K: f32 d, int8 q[256], int16 bsums[16]. */
static void quant_q8k(const float *x, uint8_t *y) {
    float amax, max = signed_absmax(x, TN_QKK, &amax);
    int8_t *q = (int8_t *)(y + 4);
    if (!amax) {
        memset(y, 0, 292);
        return;
    }
    const float iscale = -127.f / max, d = 1 / iscale;
    for (int j = 0; j < TN_QKK; j++) q[j] = (int8_t)imin(127, nearest_int(iscale * x[j]));
    for (int g = 0; g < 16; g++) {
        int s = 0;
        for (int i = 0; i < 16; i++) s += q[16 * g + i];
        wr16(y + 260 + 2 * g, (uint16_t)(int16_t)s);
    }
    memcpy(y, &d, 4);
}

void tn_quant_row(tn_qfmt f, const float *x, uint8_t *y, int64_t k) {
    int bs = tn_quant_block_bytes(f);
    if (tn_quant_block_values(f) == TN_QKK) {
        for (int64_t i = 0; i < k / TN_QKK; i++, x += TN_QKK, y += bs)
            f == TN_Q4_K   ? quant_q45k(x, y, 0)
            : f == TN_Q5_K ? quant_q45k(x, y, 1)
            : f == TN_Q6_K ? quant_q6k(x, y)
            : f == TN_Q3_K ? quant_q3k(x, y)
            : f == TN_Q2_K ? quant_q2k(x, y)
                           : quant_q8k(x, y);
        return;
    }
    for (int64_t i = 0; i < k / TN_QK; i++) quant_block(f, x + i * TN_QK, y + i * bs);
}

static void dequant_q4k(const uint8_t *x, float *y) {
    const float d = tn_f16_to_f32(rd16(x)), dmin = tn_f16_to_f32(rd16(x + 2));
    const uint8_t *q = x + 16;
    for (int j = 0; j < 8; j++) {
        int sc, m;
        q4k_scale_min(j, x + 4, &sc, &m);
        const float d1 = d * sc, m1 = dmin * m;
        const int sh = (j & 1) * 4;
        for (int l = 0; l < 32; l++) *y++ = d1 * ((q[l] >> sh) & 0xF) - m1;
        if (j & 1) q += 32;
    }
}

static void dequant_q5k(const uint8_t *x, float *y) {
    const float d = tn_f16_to_f32(rd16(x)), dmin = tn_f16_to_f32(rd16(x + 2));
    const uint8_t *qh = x + 16, *q = x + 48;
    for (int j = 0; j < 8; j++) {
        int sc, m;
        q4k_scale_min(j, x + 4, &sc, &m);
        const float d1 = d * sc, m1 = dmin * m;
        const int sh = (j & 1) * 4;
        for (int l = 0; l < 32; l++) *y++ = d1 * (((q[l] >> sh) & 0xF) + ((qh[l] >> j) & 1 ? 16 : 0)) - m1;
        if (j & 1) q += 32;
    }
}

static void dequant_q3k(const uint8_t *x, float *y) {
    const float d = tn_f16_to_f32(rd16(x + 108));
    const uint8_t *hm = x, *q = x + 32;
    int sc[16];
    q3k_scales(x + 96, sc);
    for (int j = 0; j < TN_QKK; j++, y++) {
        const int h = j / 128, k = (j % 128) / 32, l = j % 32;
        const float dl = d * sc[j / 16];
        *y = dl * (((q[32 * h + l] >> (2 * k)) & 3) - ((hm[l] >> (j / 32)) & 1 ? 0 : 4));
    }
}

static void dequant_q2k(const uint8_t *x, float *y) {
    const float d = tn_f16_to_f32(rd16(x + 80)), dmin = tn_f16_to_f32(rd16(x + 82));
    for (int j = 0; j < TN_QKK; j++, y++) {
        const int h = j / 128, k = (j % 128) / 32, l = j % 32, sc = x[j / 16];
        const float dl = d * (sc & 0xF), ml = dmin * (sc >> 4);
        *y = dl * ((x[16 + 32 * h + l] >> (2 * k)) & 3) - ml;
    }
}

static void dequant_q6k(const uint8_t *x, float *y) {
    const float d = tn_f16_to_f32(rd16(x + 208));
    const uint8_t *ql = x, *qh = x + 128;
    const int8_t *sc = (const int8_t *)(x + 192);
    for (int n = 0; n < TN_QKK; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
        for (int l = 0; l < 32; l++) {
            int is = l / 16;
            int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * sc[is] * q1;
            y[l + 32] = d * sc[is + 2] * q2;
            y[l + 64] = d * sc[is + 4] * q3;
            y[l + 96] = d * sc[is + 6] * q4;
        }
}

void tn_dequant_row(tn_qfmt f, const uint8_t *x, float *y, int64_t k) {
    int bs = tn_quant_block_bytes(f);
    if (f == TN_Q2_K || f == TN_Q3_K || f == TN_Q4_K || f == TN_Q5_K || f == TN_Q6_K) {
        for (int64_t i = 0; i < k / TN_QKK; i++, x += bs, y += TN_QKK)
            f == TN_Q4_K   ? dequant_q4k(x, y)
            : f == TN_Q5_K ? dequant_q5k(x, y)
            : f == TN_Q3_K ? dequant_q3k(x, y)
            : f == TN_Q2_K ? dequant_q2k(x, y)
                           : dequant_q6k(x, y);
        return;
    }
    if (f == TN_Q8_K) {
        for (int64_t i = 0; i < k / TN_QKK; i++, x += bs, y += TN_QKK) {
            float d;
            memcpy(&d, x, 4);
            for (int j = 0; j < TN_QKK; j++) y[j] = d * (float)(int8_t)x[4 + j];
        }
        return;
    }
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

/* The k-quant row dot products (formulas in kernels/quant.h). Q4_K (five = 0) and Q5_K. */
static float qrow_q45k(const uint8_t *w, const tn_qact *a, int64_t nb, const int five) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += five ? 176 : 144) {
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        int32_t isum = 0, msum = 0;
        for (int j = 0; j < 8; j++) {
            int sc, m, s = 0;
            q4k_scale_min(j, w + 4, &sc, &m);
            const uint8_t *q = w + (five ? 48 : 16) + (j / 2) * 32, *qh = w + 16;
            const int sh = (j & 1) * 4;
            if (five)
                for (int l = 0; l < 32; l++) s += (((q[l] >> sh) & 0xF) | (((qh[l] >> j) & 1) << 4)) * x[32 * j + l];
            else
                for (int l = 0; l < 32; l++) s += ((q[l] >> sh) & 0xF) * x[32 * j + l];
            isum += sc * s;
            msum += m * (bs[2 * j] + bs[2 * j + 1]);
        }
        const float da = a->d[i];
        const float t = (tn_f16_to_f32(rd16(w)) * da) * (float)isum, u = (tn_f16_to_f32(rd16(w + 2)) * da) * (float)msum;
        acc += t - u;
    }
    return acc;
}

static float qrow_q6k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 210) {
        const int8_t *x = a->q + i * TN_QKK;
        const int8_t *sc = (const int8_t *)(w + 192);
        int32_t isum = 0;
        for (int g = 0; g < 16; g++) {
            /* value v = 128h + 32k + l (g = 8h + 2k + l/16): low 4 bits in ql[64h + 32(k&1) + l]
             * (nibble k/2), high 2 bits in qh[32h + l] (bits 2k) */
            int h = g / 8, k = (g % 8) / 2, s = 0;
            for (int l = (g & 1) * 16; l < (g & 1) * 16 + 16; l++) {
                int lo = (w[64 * h + 32 * (k & 1) + l] >> (4 * (k / 2))) & 0xF;
                int hi = (w[128 + 32 * h + l] >> (2 * k)) & 3;
                s += ((lo | (hi << 4)) - 32) * x[128 * h + 32 * k + l];
            }
            isum += sc[g] * s;
        }
        acc += (tn_f16_to_f32(rd16(w + 208)) * a->d[i]) * (float)isum;
    }
    return acc;
}

static float qrow_q3k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 110) {
        const int8_t *x = a->q + i * TN_QKK;
        int sc[16];
        q3k_scales(w + 96, sc);
        int32_t isum = 0;
        for (int g = 0; g < 16; g++) {
            /* value 128h + 32k + l (g = 8h + 2k + l/16): low bits 2k of qs[32h + l], high bit 4h + k of hmask[l] */
            const int h = g / 8, k = (g % 8) / 2, l0 = (g & 1) * 16;
            const uint8_t *qs = w + 32 + 32 * h, *hm = w;
            const int8_t *xg = x + 128 * h + 32 * k;
            int s = 0;
            for (int l = l0; l < l0 + 16; l++) s += ((((qs[l] >> (2 * k)) & 3) | (((hm[l] >> (4 * h + k)) & 1) << 2)) - 4) * xg[l];
            isum += sc[g] * s;
        }
        acc += (tn_f16_to_f32(rd16(w + 108)) * a->d[i]) * (float)isum;
    }
    return acc;
}

static float qrow_q2k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 84) {
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        int32_t isum = 0, msum = 0;
        for (int g = 0; g < 16; g++) {
            /* value 128h + 32k + l (g = 8h + 2k + l/16): bits 2k of qs[32h + l] */
            const int h = g / 8, k = (g % 8) / 2, l0 = (g & 1) * 16;
            const uint8_t *qs = w + 16 + 32 * h;
            const int8_t *xg = x + 128 * h + 32 * k;
            int s = 0;
            for (int l = l0; l < l0 + 16; l++) s += ((qs[l] >> (2 * k)) & 3) * xg[l];
            isum += (w[g] & 0xF) * s;
            msum += (w[g] >> 4) * bs[g];
        }
        const float da = a->d[i];
        const float t = (tn_f16_to_f32(rd16(w + 80)) * da) * (float)isum, u = (tn_f16_to_f32(rd16(w + 82)) * da) * (float)msum;
        acc += t - u;
    }
    return acc;
}

float tn_qrow_ref(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb) {
    if (f == TN_Q4_K) return qrow_q45k(w, a, nb, 0);
    if (f == TN_Q5_K) return qrow_q45k(w, a, nb, 1);
    if (f == TN_Q6_K) return qrow_q6k(w, a, nb);
    if (f == TN_Q3_K) return qrow_q3k(w, a, nb);
    if (f == TN_Q2_K) return qrow_q2k(w, a, nb);
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
