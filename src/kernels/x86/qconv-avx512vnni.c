/* kernels/x86/qconv-avx512vnni.c — the static quantized convolution (kernels/qconv.h) with
 * AVX-512 VNNI, the same bits as the reference:
 *   - general case: per output row and group, im2col rows of the raw uint8 input (a padded
 *     position holds x_zp; zero bytes up to a multiple of four), times the group's raw int8
 *     weights packed as the quantized Linear's (tn_qdyn_pack_vnni: 16 output channels per block,
 *     four k per 32-bit lane), in the Linear's 4-pixel x 64-channel vpdpbusd tiles
 *     (tn_qdyn_tile_vnni), exact and wrapping; the zero points' terms then make the reference's
 *     sum: acc = S - x_zp * colsum[oc] - w_zp[oc] * rowsum + K * x_zp * w_zp[oc] (mod 2^32).
 *     A 1x1 kernel without padding over G = 1 and C a multiple of four reads the input's pixels
 *     in place;
 *   - depthwise (one input and one output channel per group): 16 channels to a register, the
 *     exact products of x - x_zp and w - w_zp[oc] (vpmaddwd) summed over the window's taps in bounds;
 *   - the requantizations of kernels/ref/qconv.c in 16 lanes (the same IEEE operations in the same
 *     order; CVTPS2DQ itself).
 * Only called after the CPU reported AVX512F, BW, VL and VNNI (kernels/ref/qconv.c variant). */
#if defined(__x86_64__)

#include "kernels/qconv.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define UNROLL _Pragma("GCC unroll 4")

/* kernels/x86/qlinear-avx512vnni.c */
void tn_qdyn_pack_vnni(const int8_t *w, int64_t N, int64_t K, int8_t *out);
void tn_qdyn_tile_vnni(const uint8_t *a, int64_t lda, int mr, const int8_t *wp, int64_t kg, int nb, int32_t *out,
                       int64_t ldo);

/* the packed weights: this header, then colsum (OC int32) and the group blocks (GEMM), or w32
 * (depthwise: KH x KW x OC int32 lanes holding w - w_zp as int16 in the low half, 0 in the high:
 * vpmaddwd of x - x_zp (an int16 in the low half) by it is the exact product) */
typedef struct {
    int64_t OC, G, KH, KW, CG;
    int64_t K, kg, gbytes;     /* K = KH * KW * CG; kg = ceil(K / 4); bytes of one group's blocks */
    int dw, any_wz;
    int32_t *colsum;           /* OC: sum of the raw weights over the window */
    int8_t *wq;                /* G x gbytes */
    int32_t *w32;              /* depthwise */
} packed;

static size_t up64(size_t n) { return (n + 63) / 64 * 64; }

void *tn_qconv_pack_vnni(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16,
                         const int32_t *w_zp) {
    int64_t og = OC / G, kk = KH * KW, K = kk * CG, kg = (K + 3) / 4;
    int dw = CG == 1 && og == 1;
    int64_t gbytes = (og + 15) / 16 * kg * 64;
    size_t body = dw ? (size_t)(kk * OC) * 4 : (size_t)(G * gbytes) + up64((size_t)OC * 4);
    char *m = aligned_alloc(64, up64(sizeof(packed)) + up64(body) + (dw ? 0 : up64((size_t)(og * K))));
    if (!m) return NULL;
    packed *p = (packed *)m;
    *p = (packed){.OC = OC, .G = G, .KH = KH, .KW = KW, .CG = CG, .K = K, .kg = kg, .gbytes = gbytes, .dw = dw};
    for (int64_t o = 0; o < OC; o++) p->any_wz |= w_zp[o] != 0;
    char *d = m + up64(sizeof(packed));
    if (dw) {
        p->w32 = (int32_t *)d;
        for (int64_t o = 0; o < OC; o++)
            for (int64_t t = 0; t < kk; t++) p->w32[t * OC + o] = (int32_t)(uint16_t)w16[o * kk + t];
        return p;
    }
    p->colsum = (int32_t *)d;
    p->wq = (int8_t *)(d + up64((size_t)OC * 4));
    int8_t *raw = (int8_t *)(m + up64(sizeof(packed)) + up64(body));   /* one group's og x K raw weights */
    for (int64_t g = 0; g < G; g++) {
        for (int64_t j = 0; j < og; j++) {
            int64_t o = g * og + j;
            uint32_t s = 0;
            for (int64_t k = 0; k < K; k++) {
                int32_t v = w16[o * K + k] + w_zp[o];
                raw[j * K + k] = (int8_t)v;
                s += (uint32_t)v;
            }
            p->colsum[o] = (int32_t)s;
        }
        tn_qdyn_pack_vnni(raw, og, K, p->wq + g * gbytes);
    }
    return p;
}

/* y[0, n) (n <= 16) of output channels [oc, oc + n) from their exact sums: kernels/ref/qconv.c's
 * requant in lanes */
TARGET static inline __attribute__((always_inline)) void requant(const tn_qconv_args *a, int64_t oc, __m512i acc, int n,
                                                                  uint8_t *y) {
    __mmask16 m = n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
    __m512 f = _mm512_cvtepi32_ps(acc), zero = _mm512_setzero_ps();
    __m512i q;
    if (a->onednn) {
        f = _mm512_mul_ps(_mm512_mul_ps(f, _mm512_set1_ps(a->src_scale)), _mm512_maskz_loadu_ps(m, a->w_scale + oc));
        if (a->bias) f = _mm512_add_ps(f, _mm512_maskz_loadu_ps(m, a->bias + oc));
        if (a->relu) f = _mm512_max_ps(f, zero);   /* f > 0 ? f : 0 (NaN: 0) */
        f = _mm512_add_ps(_mm512_mul_ps(f, _mm512_set1_ps(a->dinv)), _mm512_set1_ps((float)a->y_zp));
        f = _mm512_min_ps(_mm512_max_ps(f, zero), _mm512_set1_ps(255.0f));   /* NaN: 0, as the reference's */
        q = _mm512_cvtps_epi32(f);
    } else {
        if (a->bias) {
            __m512 b = _mm512_maskz_loadu_ps(m, a->bias + oc);
            f = a->per_channel ? _mm512_add_ps(f, _mm512_div_ps(b, _mm512_maskz_loadu_ps(m, a->atws + oc)))
                               : _mm512_fmadd_ps(b, _mm512_set1_ps(a->rcp), f);
        }
        __m512 mult = a->per_channel ? _mm512_maskz_loadu_ps(m, a->mult + oc) : _mm512_set1_ps(a->mult[0]);
        __m512i lo16 = _mm512_set1_epi32(-32768), hi16 = _mm512_set1_epi32(32767);
        q = _mm512_cvtps_epi32(_mm512_mul_ps(f, mult));
        q = _mm512_min_epi32(_mm512_max_epi32(q, lo16), hi16);
        q = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(q, _mm512_set1_epi32(a->y_zp)), lo16), hi16);
        q = _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(a->relu ? a->y_zp : 0)), _mm512_set1_epi32(255));
    }
    _mm512_mask_cvtepi32_storeu_epi8(y, m, q);
}

/* depthwise: output rows [b, e), every column; per pixel 64 channels at a time, 16 to a register */
TARGET static void dw_rows(const tn_qconv_args *a, const packed *p, int64_t b, int64_t e) {
    int64_t C = a->C;
    __m512i xz = _mm512_set1_epi32(a->x_zp);
    for (int64_t r = b; r < e; r++) {
        int64_t n = r / a->OH, oh = r % a->OH;
        const uint8_t *xn = a->xu + n * a->H * a->W * C;
        for (int64_t ow = 0; ow < a->OW; ow++) {
            uint8_t *y = a->y + (r * a->OW + ow) * C;
            for (int64_t c0 = 0; c0 < C; c0 += 64) {
                __mmask16 m[4];
                for (int i = 0; i < 4; i++) {
                    int64_t left = C - c0 - 16 * i;
                    m[i] = left >= 16 ? (__mmask16)0xffff : left > 0 ? (__mmask16)((1u << left) - 1) : 0;
                }
                __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                                  _mm512_setzero_si512()};
                for (int64_t kh = 0; kh < a->KH; kh++) {
                    int64_t ih = oh * a->sh - a->ph + kh * a->dh;
                    if (ih < 0 || ih >= a->H) continue;
                    for (int64_t kw = 0; kw < a->KW; kw++) {
                        int64_t iw = ow * a->sw - a->pw + kw * a->dw;
                        if (iw < 0 || iw >= a->W) continue;   /* the zero point: adds nothing */
                        const uint8_t *x = xn + (ih * a->W + iw) * C + c0;
                        const int32_t *w = p->w32 + (kh * a->KW + kw) * C + c0;
                        UNROLL for (int i = 0; i < 4; i++) {
                            __m512i xv = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m[i], x + 16 * i));
                            __m512i wv = _mm512_maskz_loadu_epi32(m[i], w + 16 * i);
                            acc[i] = _mm512_add_epi32(acc[i], _mm512_madd_epi16(_mm512_sub_epi32(xv, xz), wv));
                        }
                    }
                }
                for (int i = 0; i < 4 && m[i]; i++) {
                    int64_t c = c0 + 16 * i;
                    requant(a, c, acc[i], C - c >= 16 ? 16 : (int)(C - c), y + c);
                }
            }
        }
    }
}

/* 1x1, no padding, G = 1, C % 4 == 0: the input's pixels are the rows */
static int direct(const tn_qconv_args *a, const packed *p) {
    return p->KH == 1 && p->KW == 1 && a->G == 1 && a->C % 4 == 0 && a->ph == 0 && a->pw == 0;
}

/* output rows [b, e) by im2col and the Linear's tiles; col: scratch of OW x kg * 4 bytes, rs: OW */
TARGET static void gemm_rows(const tn_qconv_args *a, const packed *p, int64_t b, int64_t e, uint8_t *col, int32_t *rs) {
    int64_t og = a->OC / a->G, kg = p->kg, K = p->K;
    int dir = direct(a, p);
    int32_t acc[4 * 64] __attribute__((aligned(64)));
    __m512i xz = _mm512_set1_epi32(a->x_zp), kxz = _mm512_set1_epi32((int32_t)((uint32_t)K * (uint32_t)a->x_zp));
    for (int64_t r = b; r < e; r++) {
        for (int64_t g = 0; g < a->G; g++) {
            const uint8_t *rows = col;
            int64_t lda = kg * 4;
            if (dir) {
                int64_t n = r / a->OH, oh = r % a->OH;
                rows = a->xu + ((n * a->H + oh * a->sh) * a->W) * a->C;
                lda = a->sw * a->C;
            } else {
                tn_qconv_im2col(a, a->xu, 1, (uint8_t)a->x_zp, r, g, col, lda);
            }
            if (p->any_wz)   /* the rows' sums over the K values */
                for (int64_t ow = 0; ow < a->OW; ow++) {
                    uint32_t s = 0;
                    for (int64_t k = 0; k < K; k++) s += rows[ow * lda + k];
                    rs[ow] = (int32_t)s;
                }
            const int8_t *wg = p->wq + g * p->gbytes;
            for (int64_t j0 = 0; j0 < og; j0 += 64) {
                int nb = (int)((og - j0 + 15) / 16 < 4 ? (og - j0 + 15) / 16 : 4);
                for (int64_t ow = 0; ow < a->OW; ow += 4) {
                    int mr = a->OW - ow >= 4 ? 4 : (int)(a->OW - ow);
                    tn_qdyn_tile_vnni(rows + ow * lda, lda, mr, wg + (j0 / 16) * kg * 64, kg, nb, acc, 64);
                    for (int i = 0; i < mr; i++) {
                        uint8_t *y = a->y + (r * a->OW + ow + i) * a->OC + g * og;
                        __m512i rsv = _mm512_set1_epi32(p->any_wz ? rs[ow + i] : 0);
                        for (int64_t j = j0; j < og && j < j0 + 64; j += 16) {
                            int nc = og - j >= 16 ? 16 : (int)(og - j);
                            __mmask16 m = nc == 16 ? (__mmask16)0xffff : (__mmask16)((1u << nc) - 1);
                            int64_t oc = g * og + j;
                            __m512i s = _mm512_loadu_si512(acc + i * 64 + (j - j0));
                            __m512i cs = _mm512_maskz_loadu_epi32(m, p->colsum + oc);
                            s = _mm512_sub_epi32(s, _mm512_mullo_epi32(xz, cs));
                            if (p->any_wz) {
                                __m512i wz = _mm512_maskz_loadu_epi32(m, a->w_zp + oc);
                                s = _mm512_add_epi32(_mm512_sub_epi32(s, _mm512_mullo_epi32(wz, rsv)),
                                                     _mm512_mullo_epi32(kxz, wz));
                            }
                            requant(a, oc, s, nc, y + j);
                        }
                    }
                }
            }
        }
    }
}

static void rows(const tn_qconv_args *a, int64_t b, int64_t e, void *scratch) {
    const packed *p = a->wp;
    if (p->dw) { dw_rows(a, p, b, e); return; }
    uint8_t *col = scratch;
    gemm_rows(a, p, b, e, col, (int32_t *)(col + up64((size_t)(a->OW * p->kg * 4))));
}

/* 0 when the scratch cannot be had (the caller then runs the reference) */
int tn_qconv2d_vnni(const tn_qconv_args *a) {
    const packed *p = a->wp;
    if (p->OC != a->OC || p->G != a->G || p->KH != a->KH || p->KW != a->KW || p->CG * a->G != a->C) return 0;
    int64_t per = p->dw ? 0 : (int64_t)(up64((size_t)(a->OW * p->kg * 4)) + up64((size_t)a->OW * 4));
    return tn_qconv_run_rows(a, p->K, per, rows);
}

#endif
