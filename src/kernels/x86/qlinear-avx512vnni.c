/* kernels/x86/qlinear-avx512vnni.c — the int32 products of the dynamic quantized Linear
 * (kernels/qlinear.h) with AVX-512 VNNI. The weights are packed once (tn_qdyn_pack): blocks of 16
 * output columns, and in each, per group of four k, the 16 columns' four bytes side by side (64
 * bytes: one register), zero padded to whole blocks and groups. vpdpbusd then multiplies four
 * activation bytes (unsigned, broadcast) by each column's four weight bytes (signed) and adds the
 * four products into that column's 32-bit lane, exactly (no int16 saturation): the sums are the
 * reference's. Only called after the CPU reported AVX512F, BW and VNNI. */
#if defined(__x86_64__)

#include "kernels/qlinear.h"

#include <immintrin.h>
#include <string.h>

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))

void tn_qdyn_pack_vnni(const int8_t *w, int64_t N, int64_t K, int8_t *out) {
    int64_t kg = (K + 3) / 4, nb = (N + 15) / 16;
    memset(out, 0, (size_t)(nb * kg * 64));
    for (int64_t j = 0; j < N; j++)
        for (int64_t k = 0; k < K; k++) out[((j / 16) * kg + k / 4) * 64 + (j % 16) * 4 + k % 4] = w[j * K + k];
}

/* MR rows (a: row stride lda, zero padded to kg * 4 bytes) by NB column blocks of 16 starting
 * at packed block `wp`; out[r * ldo + c] int32 */
#define UNROLL _Pragma("GCC unroll 4")
#define TILE(MR, NB)                                                                                          \
    TARGET static void tile_##MR##x##NB(const uint8_t *a, int64_t lda, const int8_t *wp, int64_t kg,           \
                                         int32_t *out, int64_t ldo) {                                         \
        __m512i acc[MR][NB];                                                                                  \
        UNROLL for (int r = 0; r < MR; r++)                                                                   \
            UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm512_setzero_si512();                           \
        for (int64_t g = 0; g < kg; g++) {                                                                    \
            __m512i bv[NB];                                                                                   \
            UNROLL for (int c = 0; c < NB; c++) bv[c] = _mm512_loadu_si512(wp + (c * kg + g) * 64);           \
            UNROLL for (int r = 0; r < MR; r++) {                                                             \
                int32_t four;                                                                                 \
                memcpy(&four, a + r * lda + g * 4, 4);                                                        \
                __m512i av = _mm512_set1_epi32(four);                                                         \
                UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm512_dpbusd_epi32(acc[r][c], av, bv[c]);    \
            }                                                                                                 \
        }                                                                                                     \
        UNROLL for (int r = 0; r < MR; r++)                                                                   \
            UNROLL for (int c = 0; c < NB; c++) _mm512_storeu_si512(out + r * ldo + c * 16, acc[r][c]);       \
    }
TILE(4, 4)
TILE(3, 4)
TILE(2, 4)
TILE(1, 4)
TILE(4, 1)
TILE(3, 1)
TILE(2, 1)
TILE(1, 1)

/* out[r * ldo + c] for r < mr (<= 4) and the columns of nb (<= 4) blocks from block wp */
TARGET void tn_qdyn_tile_vnni(const uint8_t *a, int64_t lda, int mr, const int8_t *wp, int64_t kg, int nb, int32_t *out,
                              int64_t ldo) {
    static void (*const four[4])(const uint8_t *, int64_t, const int8_t *, int64_t, int32_t *, int64_t) = {
        tile_1x4, tile_2x4, tile_3x4, tile_4x4};
    static void (*const one[4])(const uint8_t *, int64_t, const int8_t *, int64_t, int32_t *, int64_t) = {
        tile_1x1, tile_2x1, tile_3x1, tile_4x1};
    if (nb == 4) { four[mr - 1](a, lda, wp, kg, out, ldo); return; }
    for (int c = 0; c < nb; c++) one[mr - 1](a, lda, wp + c * kg * 64, kg, out + c * 16, ldo);
}

/* one activation row quantized (kernels/qlinear.h's steps, 16 lanes: the same IEEE operations,
 * MINPS / CVTPS2DQ themselves); returns the row sum */
TARGET int32_t tn_qdyn_quantize_row_vnni(const float *x, int64_t K, float inv, int32_t zp, uint8_t *q) {
    __m512 iv = _mm512_set1_ps(inv), zf = _mm512_set1_ps((float)zp), cap = _mm512_set1_ps(2147483520.0f);
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_set1_epi32(255), sum = _mm512_setzero_si512();
    for (int64_t k = 0; k < K; k += 16) {
        __mmask16 m = K - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (K - k)) - 1);
        __m512 t = _mm512_min_ps(_mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, x + k), iv, zf), cap);
        __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(t), lo), hi);
        v = _mm512_maskz_mov_epi32(m, v);
        sum = _mm512_add_epi32(sum, v);
        _mm512_mask_cvtepi32_storeu_epi8(q + k, m, v);
    }
    return _mm512_reduce_add_epi32(sum);
}

/* y[c] for n columns of one row from the int32 sums acc[c] (the requantization of
 * kernels/qlinear.h: wrapping int32 offsets, one FMA with the bias, relu as MAXPS(0, y)) */
TARGET void tn_qdyn_requant_vnni(const int32_t *acc, int64_t n, int32_t a_zp, float a_scale, int32_t row_off,
                                 const int32_t *col_off, const int32_t *w_zp, const float *w_scale, const float *bias,
                                 int relu, float *y) {
    __m512i az = _mm512_set1_epi32(a_zp), ro = _mm512_set1_epi32(row_off);
    __m512 as = _mm512_set1_ps(a_scale), zero = _mm512_setzero_ps();
    for (int64_t c = 0; c < n; c += 16) {
        __mmask16 m = n - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - c)) - 1);
        __m512i raw = _mm512_sub_epi32(_mm512_maskz_loadu_epi32(m, acc + c),
                                       _mm512_mullo_epi32(az, _mm512_maskz_loadu_epi32(m, col_off + c)));
        raw = _mm512_sub_epi32(raw, _mm512_mullo_epi32(ro, _mm512_maskz_loadu_epi32(m, w_zp + c)));
        __m512 mult = _mm512_mul_ps(as, _mm512_maskz_loadu_ps(m, w_scale + c));
        __m512 v = bias ? _mm512_fmadd_ps(_mm512_cvtepi32_ps(raw), mult, _mm512_maskz_loadu_ps(m, bias + c))
                        : _mm512_mul_ps(_mm512_cvtepi32_ps(raw), mult);
        if (relu) v = _mm512_max_ps(zero, v);
        _mm512_mask_storeu_ps(y + c, m, v);
    }
}

/* float16 weights (widened to float): blocks of 16 columns, k-major inside a block
 * (out[(j / 16) * K * 16 + k * 16 + j % 16]), zero padded */
void tn_qdyn_fp16_pack_avx512(const float *w, int64_t N, int64_t K, float *out) {
    int64_t nb = (N + 15) / 16;
    memset(out, 0, (size_t)(nb * K * 16) * sizeof(float));
    for (int64_t j = 0; j < N; j++)
        for (int64_t k = 0; k < K; k++) out[(j / 16) * K * 16 + k * 16 + j % 16] = w[j * K + k];
}

/* rows [i, i + MR) by column blocks [b, b + NB): per lane (one output) the reference's chain:
 * K in blocks of 512, each a sequential fused multiply-add chain from 0, the blocks' sums added in
 * order */
#define FTILE(MR, NB)                                                                                       \
    TARGET static void ftile_##MR##x##NB(const float *x, int64_t K, const float *wp, float *y, int64_t ldy,  \
                                         int64_t ncols) {                                                    \
        __m512 tot[MR][NB];                                                                                  \
        UNROLL for (int r = 0; r < MR; r++)                                                                  \
            UNROLL for (int c = 0; c < NB; c++) tot[r][c] = _mm512_setzero_ps();                             \
        for (int64_t k0 = 0; k0 < K; k0 += 512) {                                                            \
            int64_t k1 = k0 + 512 < K ? k0 + 512 : K;                                                        \
            __m512 acc[MR][NB];                                                                              \
            UNROLL for (int r = 0; r < MR; r++)                                                              \
                UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm512_setzero_ps();                         \
            for (int64_t k = k0; k < k1; k++) {                                                              \
                __m512 wv[NB];                                                                               \
                UNROLL for (int c = 0; c < NB; c++) wv[c] = _mm512_loadu_ps(wp + c * K * 16 + k * 16);       \
                UNROLL for (int r = 0; r < MR; r++) {                                                        \
                    __m512 xv = _mm512_set1_ps(x[r * K + k]);                                                \
                    UNROLL for (int c = 0; c < NB; c++) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);   \
                }                                                                                            \
            }                                                                                                \
            UNROLL for (int r = 0; r < MR; r++)                                                              \
                UNROLL for (int c = 0; c < NB; c++) tot[r][c] = k0 ? _mm512_add_ps(tot[r][c], acc[r][c]) : acc[r][c]; \
        }                                                                                                    \
        UNROLL for (int r = 0; r < MR; r++)                                                                  \
            UNROLL for (int c = 0; c < NB; c++) {                                                            \
                int64_t left = ncols - c * 16;                                                               \
                if (left > 0)                                                                                \
                    _mm512_mask_storeu_ps(y + r * ldy + c * 16, left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1), tot[r][c]); \
            }                                                                                                \
    }
FTILE(4, 2)
FTILE(1, 2)
FTILE(4, 1)
FTILE(1, 1)

/* rows [0, M) by the column blocks [bb, be) (pairs first), y row stride N */
TARGET void tn_qdyn_fp16_cols_avx512(int64_t M, int64_t N, int64_t K, const float *x, const float *wp, int64_t bb,
                                     int64_t be, float *y) {
    for (int64_t b = bb; b < be;) {
        int two = be - b >= 2;
        int64_t ncols = N - b * 16 < (two ? 32 : 16) ? N - b * 16 : (two ? 32 : 16);
        const float *w = wp + b * K * 16;
        int64_t i = 0;
        for (; i + 4 <= M; i += 4)
            (two ? ftile_4x2 : ftile_4x1)(x + i * K, K, w, y + i * N + b * 16, N, ncols);
        for (; i < M; i++)
            (two ? ftile_1x2 : ftile_1x1)(x + i * K, K, w, y + i * N + b * 16, N, ncols);
        b += two ? 2 : 1;
    }
}

#endif
