/* kernels/x86/qconv-avx2.c — the static quantized convolution (kernels/qconv.h) with AVX2, the same
 * bits as the reference: the zero-point-shifted int16 values (the reference's own input form and
 * w16), pairs of k multiplied and added by vpmaddwd into int32 lanes — exact (|x - x_zp|, |w - w_zp|
 * <= 255), wrapping sums, so the reference's:
 *   - general case: per output row and group, im2col rows of x - x_zp (0 where padded, and up to an
 *     even length) times the group's weights packed at prepack (8 output channels per block, per
 *     pair of k the 8 channels' two int16 side by side: one register), 4-pixel x 16-channel tiles;
 *     a 1x1 unpadded kernel over G = 1 and an even C reads the input's pixels in place;
 *   - depthwise (one input and one output channel per group): 8 channels to a register;
 *   - the requantizations of kernels/ref/qconv.c in 8 lanes (the same IEEE operations in the same
 *     order; CVTPS2DQ itself).
 * Only called after the CPU reported AVX2 and FMA (kernels/ref/qconv.c). */
#if defined(__x86_64__)

#include "kernels/qconv.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define TARGET __attribute__((target("avx2,fma")))
#define UNROLL _Pragma("GCC unroll 4")

/* the packed weights: this header, then the group blocks (G x gbytes), or w32 (depthwise: KH x KW
 * x OC int32 lanes holding w - w_zp as int16 in the low half, 0 in the high) */
typedef struct {
    int64_t OC, G, KH, KW, CG;
    int64_t K, kp, gbytes;     /* K = KH * KW * CG; kp = ceil(K / 2) */
    int dw;
    int16_t *wq;
    int32_t *w32;
} packed;

static size_t up64(size_t n) { return (n + 63) / 64 * 64; }

void *tn_qconv_pack_avx2(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16) {
    int64_t og = OC / G, kk = KH * KW, K = kk * CG, kp = (K + 1) / 2;
    int dw = CG == 1 && og == 1;
    int64_t gbytes = (og + 7) / 8 * kp * 32;
    size_t body = dw ? (size_t)(kk * OC) * 4 : (size_t)(G * gbytes);
    char *m = aligned_alloc(64, up64(sizeof(packed)) + up64(body));
    if (!m) return NULL;
    packed *p = (packed *)m;
    *p = (packed){.OC = OC, .G = G, .KH = KH, .KW = KW, .CG = CG, .K = K, .kp = kp, .gbytes = gbytes, .dw = dw};
    char *d = m + up64(sizeof(packed));
    if (dw) {
        p->w32 = (int32_t *)d;
        for (int64_t o = 0; o < OC; o++)
            for (int64_t t = 0; t < kk; t++) p->w32[t * OC + o] = (int32_t)(uint16_t)w16[o * kk + t];
        return p;
    }
    p->wq = (int16_t *)d;
    memset(d, 0, body);
    for (int64_t g = 0; g < G; g++)
        for (int64_t j = 0; j < og; j++)
            for (int64_t k = 0; k < K; k++)
                p->wq[g * gbytes / 2 + ((j / 8) * kp + k / 2) * 16 + (j % 8) * 2 + k % 2] = w16[(g * og + j) * K + k];
    return p;
}

/* y[0, n) (n <= 8) of output channels [oc, oc + n) from their exact sums */
TARGET static inline __attribute__((always_inline)) void requant(const tn_qconv_args *a, int64_t oc, __m256i acc, int n,
                                                                  uint8_t *y) {
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 f = _mm256_cvtepi32_ps(acc), zero = _mm256_setzero_ps();
    __m256i q;
    if (a->onednn) {
        f = _mm256_mul_ps(_mm256_mul_ps(f, _mm256_set1_ps(a->src_scale)), _mm256_maskload_ps(a->w_scale + oc, m));
        if (a->bias) f = _mm256_add_ps(f, _mm256_maskload_ps(a->bias + oc, m));
        if (a->relu) f = _mm256_max_ps(f, zero);   /* f > 0 ? f : 0 (NaN: 0) */
        f = _mm256_add_ps(_mm256_mul_ps(f, _mm256_set1_ps(a->dinv)), _mm256_set1_ps((float)a->y_zp));
        f = _mm256_min_ps(_mm256_max_ps(f, zero), _mm256_set1_ps(255.0f));   /* NaN: 0, as the reference's */
        q = _mm256_cvtps_epi32(f);
    } else {
        if (a->bias) {
            __m256 b = _mm256_maskload_ps(a->bias + oc, m);
            /* masked-off lanes divide 0 by 1 */
            f = a->per_channel ? _mm256_add_ps(f, _mm256_div_ps(b, _mm256_blendv_ps(_mm256_set1_ps(1.0f),
                                                      _mm256_maskload_ps(a->atws + oc, m), _mm256_castsi256_ps(m))))
                               : _mm256_fmadd_ps(b, _mm256_set1_ps(a->rcp), f);
        }
        __m256 mult = a->per_channel ? _mm256_maskload_ps(a->mult + oc, m) : _mm256_set1_ps(a->mult[0]);
        __m256i lo16 = _mm256_set1_epi32(-32768), hi16 = _mm256_set1_epi32(32767);
        q = _mm256_cvtps_epi32(_mm256_mul_ps(f, mult));
        q = _mm256_min_epi32(_mm256_max_epi32(q, lo16), hi16);
        q = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(q, _mm256_set1_epi32(a->y_zp)), lo16), hi16);
        q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(a->relu ? a->y_zp : 0)), _mm256_set1_epi32(255));
    }
    /* the eight values (0..255) to bytes */
    __m256i b16 = _mm256_packus_epi32(q, q);                       /* lanes: 0-3 0-3 | 4-7 4-7 */
    __m128i b8 = _mm_packus_epi16(_mm256_castsi256_si128(b16), _mm256_extracti128_si256(b16, 1));
    if (n == 8) { _mm_storel_epi64((__m128i *)y, _mm_shuffle_epi32(b8, 0x08)); return; }
    uint8_t t[16];
    _mm_storeu_si128((__m128i *)t, _mm_shuffle_epi32(b8, 0x08));
    memcpy(y, t, (size_t)n);
}

/* depthwise: output rows [b, e), every column; 32 channels per pass over the taps */
TARGET static void dw_rows(const tn_qconv_args *a, const packed *p, int64_t b, int64_t e) {
    int64_t C = a->C;
    for (int64_t r = b; r < e; r++) {
        int64_t n = r / a->OH, oh = r % a->OH;
        const int16_t *xn = a->x + n * a->H * a->W * C;
        for (int64_t ow = 0; ow < a->OW; ow++) {
            uint8_t *y = a->y + (r * a->OW + ow) * C;
            for (int64_t c0 = 0; c0 < C; c0 += 32) {
                int nv = (int)((C - c0 + 7) / 8 < 4 ? (C - c0 + 7) / 8 : 4);
                int full = C - c0 >= 32;
                __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                                  _mm256_setzero_si256()};
                for (int64_t kh = 0; kh < a->KH; kh++) {
                    int64_t ih = oh * a->sh - a->ph + kh * a->dh;
                    if (ih < 0 || ih >= a->H) continue;
                    for (int64_t kw = 0; kw < a->KW; kw++) {
                        int64_t iw = ow * a->sw - a->pw + kw * a->dw;
                        if (iw < 0 || iw >= a->W) continue;   /* the zero point: adds nothing */
                        const int16_t *x = xn + (ih * a->W + iw) * C + c0;
                        const int32_t *w = p->w32 + (kh * a->KW + kw) * C + c0;
                        if (full) {
                            UNROLL for (int i = 0; i < 4; i++) {
                                __m256i xv = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(x + 8 * i)));
                                __m256i wv = _mm256_loadu_si256((const __m256i *)(w + 8 * i));
                                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(xv, wv));
                            }
                        } else {
                            for (int i = 0; i < nv; i++) {
                                int64_t left = C - c0 - 8 * i;
                                int16_t xt[8] = {0};
                                int32_t wt[8] = {0};
                                memcpy(xt, x + 8 * i, (size_t)(left < 8 ? left : 8) * 2);
                                memcpy(wt, w + 8 * i, (size_t)(left < 8 ? left : 8) * 4);
                                __m256i xv = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)xt));
                                __m256i wv = _mm256_loadu_si256((const __m256i *)wt);
                                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(xv, wv));
                            }
                        }
                    }
                }
                for (int i = 0; i < nv; i++) {
                    int64_t c = c0 + 8 * i;
                    requant(a, c, acc[i], C - c >= 8 ? 8 : (int)(C - c), y + c);
                }
            }
        }
    }
}

/* MR rows (row stride lda int16, kp pairs each) by NB blocks of 8 channels from wp; out[r * 16 + c] */
#define TILE(MR, NB)                                                                                           \
    TARGET static void tile_##MR##x##NB(const int16_t *x, int64_t lda, const int16_t *wp, int64_t kp, int32_t *out) { \
        __m256i acc[MR][NB];                                                                                   \
        UNROLL for (int r = 0; r < MR; r++)                                                                    \
            UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm256_setzero_si256();                            \
        for (int64_t k = 0; k < kp; k++) {                                                                     \
            __m256i wv[NB];                                                                                    \
            UNROLL for (int c = 0; c < NB; c++) wv[c] = _mm256_loadu_si256((const __m256i *)(wp + (c * kp + k) * 16)); \
            UNROLL for (int r = 0; r < MR; r++) {                                                              \
                int32_t two;                                                                                   \
                memcpy(&two, x + r * lda + 2 * k, 4);                                                          \
                __m256i xv = _mm256_set1_epi32(two);                                                           \
                UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(xv, wv[c])); \
            }                                                                                                  \
        }                                                                                                      \
        UNROLL for (int r = 0; r < MR; r++)                                                                    \
            UNROLL for (int c = 0; c < NB; c++) _mm256_storeu_si256((__m256i *)(out + r * 16 + c * 8), acc[r][c]); \
    }
TILE(4, 2)
TILE(1, 2)
TILE(4, 1)
TILE(1, 1)

static int direct(const tn_qconv_args *a, const packed *p) {
    return p->KH == 1 && p->KW == 1 && a->G == 1 && a->C % 2 == 0 && a->ph == 0 && a->pw == 0;
}

TARGET static void gemm_rows(const tn_qconv_args *a, const packed *p, int64_t b, int64_t e, int16_t *col) {
    int64_t og = a->OC / a->G, kp = p->kp;
    int dir = direct(a, p);
    int32_t acc[4 * 16] __attribute__((aligned(32)));
    for (int64_t r = b; r < e; r++) {
        for (int64_t g = 0; g < a->G; g++) {
            const int16_t *rows = col;
            int64_t lda = kp * 2;
            if (dir) {
                int64_t n = r / a->OH, oh = r % a->OH;
                rows = a->x + ((n * a->H + oh * a->sh) * a->W) * a->C;
                lda = a->sw * a->C;
            } else {
                tn_qconv_im2col(a, a->x, 2, 0, r, g, col, lda);
            }
            const int16_t *wg = p->wq + g * p->gbytes / 2;
            for (int64_t j0 = 0; j0 < og; j0 += 16) {
                int two = og - j0 > 8;
                const int16_t *wb = wg + (j0 / 8) * kp * 16;
                for (int64_t ow = 0; ow < a->OW;) {
                    int mr = a->OW - ow >= 4 ? 4 : 1;
                    if (mr == 4) (two ? tile_4x2 : tile_4x1)(rows + ow * lda, lda, wb, kp, acc);
                    else (two ? tile_1x2 : tile_1x1)(rows + ow * lda, lda, wb, kp, acc);
                    for (int i = 0; i < mr; i++) {
                        uint8_t *y = a->y + (r * a->OW + ow + i) * a->OC + g * og;
                        for (int64_t j = j0; j < og && j < j0 + 16; j += 8)
                            requant(a, g * og + j, _mm256_load_si256((const __m256i *)(acc + i * 16 + (j - j0))),
                                    og - j >= 8 ? 8 : (int)(og - j), y + j);
                    }
                    ow += mr;
                }
            }
        }
    }
}

static void rows(const tn_qconv_args *a, int64_t b, int64_t e, void *scratch) {
    if (((const packed *)a->wp)->dw) dw_rows(a, a->wp, b, e);
    else gemm_rows(a, a->wp, b, e, scratch);
}

/* a->x must hold x - x_zp (kernels/ref/qconv.c's prep); 0 when the scratch cannot be had */
int tn_qconv2d_avx2(const tn_qconv_args *a) {
    const packed *p = a->wp;
    if (p->OC != a->OC || p->G != a->G || p->KH != a->KH || p->KW != a->KW || p->CG * a->G != a->C) return 0;
    return tn_qconv_run_rows(a, p->K, p->dw ? 0 : a->OW * p->kp * 4, rows);
}

#endif
