/* kernels/x86/quant-dot-avx512vnni.c — integer block dot products (kernels/quant.h) with AVX-512
 * VNNI on 256-bit registers (vpdpbusd: unsigned bytes times signed bytes, four products summed
 * into each 32-bit lane, exact). Q8_0: weights offset to unsigned (w ^ 0x80 = w + 128), then
 * -128 * (sum of the activation quants). Q4_0/Q4_1: the nibbles are already unsigned; Q4_0's -8
 * is -8 * (sum of the activation quants). Only called after the CPU reported AVX512F, VL, BW and
 * VNNI. */
#if defined(__x86_64__)

#include "kernels/quant.h"
#include "core/dtype.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#define TN_QTARGET __attribute__((target("avx2,f16c,avx512f,avx512vl,avx512bw,avx512vnni")))
#define TN_QNAME tn_qrow_avx512vnni
#define TN_QNAME8 tn_qrows8_avx512vnni
#define TN_QNAMET tn_qtile_avx512vnni
#define TN_QNAMEA tn_qact8_avx512vnni
#define Q8_SHIFT 7 /* Q8_0 partials are of (w + 128) * a: subtract 128 * sum a */

TN_QTARGET static inline __m256i dot_q8(const uint8_t *q, const int8_t *a) {
    __m256i w = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)q), _mm256_set1_epi8((char)0x80));
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), w, _mm256_loadu_si256((const __m256i *)a));
}

TN_QTARGET static inline __m256i dot_q4(const uint8_t *q, const int8_t *a) {
    __m128i p = _mm_loadu_si128((const __m128i *)q);
    __m256i n = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(p, 4), p), _mm256_set1_epi8(0x0f));
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), n, _mm256_loadu_si256((const __m256i *)a));
}

TN_QTARGET static inline __m128i pack_halves(__m256i v) { return _mm256_cvtepi32_epi16(v); }

/* k-quants: vpdpbusd (exact 32-bit partials), times the scales. */
TN_QTARGET static inline __m256i kdot(__m256i u, const int8_t *a, int s0, int s1) {
    __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, _mm256_loadu_si256((const __m256i *)a));
    return _mm256_mullo_epi32(p, _mm256_set_m128i(_mm_set1_epi32(s1), _mm_set1_epi32(s0)));
}

/* Two rows' Q4_0 nibbles times the activation halves (see quant_dot_body.h rows8_q4_0). */
TN_QTARGET static inline __m256i pair_dot(__m256i lo, __m256i hi, __m256i alo, __m256i ahi) {
    return _mm256_dpbusd_epi32(_mm256_dpbusd_epi32(_mm256_setzero_si256(), lo, alo), hi, ahi);
}

/* Q8_0 tile (quant_dot_body.h tile_q8): the eight rows' 32 quant bytes rearranged once per block
 * so that register k holds bytes 4k..4k+3 of row r in lane r (offset to unsigned); one vpdpbusd
 * per k with the activation's bytes 4k..4k+3 broadcast adds row r's four products to lane r, so
 * eight give the eight rows' block sums with no horizontal step. */
typedef struct { __m256i k[8]; } tq8_w;

TN_QTARGET static inline void tq8_prep(tq8_w *t, const uint8_t *q, int64_t rb) {
    const __m256i x80 = _mm256_set1_epi8((char)0x80);
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) { /* bytes 16h..16h+15; rows r and r + 4 in the two 128-bit halves */
        __m256i p[4];
#pragma GCC unroll 4
        for (int r = 0; r < 4; r++)
            p[r] = _mm256_xor_si256(_mm256_loadu2_m128i((const __m128i *)(q + (r + 4) * rb + 16 * h),
                                                        (const __m128i *)(q + r * rb + 16 * h)), x80);
        const __m256i t0 = _mm256_unpacklo_epi32(p[0], p[1]), t1 = _mm256_unpackhi_epi32(p[0], p[1]);
        const __m256i t2 = _mm256_unpacklo_epi32(p[2], p[3]), t3 = _mm256_unpackhi_epi32(p[2], p[3]);
        t->k[4 * h + 0] = _mm256_unpacklo_epi64(t0, t2);
        t->k[4 * h + 1] = _mm256_unpackhi_epi64(t0, t2);
        t->k[4 * h + 2] = _mm256_unpacklo_epi64(t1, t3);
        t->k[4 * h + 3] = _mm256_unpackhi_epi64(t1, t3);
    }
}

/* lane r: sum over the block of (w_r + 128) * a (the body subtracts 128 * sum a) */
TN_QTARGET static inline __m256i tq8_dot(const tq8_w *t, const int8_t *x) {
    int32_t xv[8];
    memcpy(xv, x, 32);
    __m256i s0 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), t->k[0], _mm256_set1_epi32(xv[0]));
    __m256i s1 = _mm256_dpbusd_epi32(_mm256_setzero_si256(), t->k[1], _mm256_set1_epi32(xv[1]));
#pragma GCC unroll 3
    for (int k = 2; k < 8; k += 2) {
        s0 = _mm256_dpbusd_epi32(s0, t->k[k], _mm256_set1_epi32(xv[k]));
        s1 = _mm256_dpbusd_epi32(s1, t->k[k + 1], _mm256_set1_epi32(xv[k + 1]));
    }
    return _mm256_add_epi32(s0, s1);
}

#include "kernels/x86/quant_dot_body.h"

#endif
