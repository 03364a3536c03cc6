/* kernels/x86/quant-dot-avx2.c — integer block dot products (kernels/quant.h) with AVX2. Q8_0:
 * both operands widened to 16 bits and multiplied pairwise (vpmaddwd), exact for every byte.
 * Q4_0/Q4_1: the nibbles (0..15, unsigned) times the activation bytes (vpmaddubsw: |15*128*2|
 * fits 16 bits, no saturation), then pairs summed to 32 bits; Q4_0's -8 is applied as
 * -8 * (sum of the activation quants). Only called after the CPU reported AVX2. */
#if defined(__x86_64__)

#include "kernels/quant.h"
#include "core/dtype.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#define TN_QTARGET __attribute__((target("avx2,f16c")))
#define TN_QNAME tn_qrow_avx2
#define TN_QNAME8 tn_qrows8_avx2
#define TN_QNAMET tn_qtile_avx2
#define TN_QNAMEA tn_qact8_avx2
#define Q8_SHIFT 0 /* Q8_0 partials are exact: no correction */

TN_QTARGET static inline __m256i dot_q8(const uint8_t *q, const int8_t *a) {
    __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)q));
    __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + 16)));
    __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)a));
    __m256i a1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(a + 16)));
    return _mm256_add_epi32(_mm256_madd_epi16(w0, a0), _mm256_madd_epi16(w1, a1));
}

TN_QTARGET static inline __m256i dot_q4(const uint8_t *q, const int8_t *a) {
    __m128i p = _mm_loadu_si128((const __m128i *)q);
    __m256i n = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(p, 4), p), _mm256_set1_epi8(0x0f));
    __m256i s16 = _mm256_maddubs_epi16(n, _mm256_loadu_si256((const __m256i *)a));
    return _mm256_madd_epi16(s16, _mm256_set1_epi16(1));
}

TN_QTARGET static inline __m128i pack_halves(__m256i v) {
    const __m256i sel = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
                                         0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i p = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, sel), 0x08);
    return _mm256_castsi256_si128(p);
}

/* k-quants: unsigned bytes (Q2_K values <= 3, Q3_K values <= 7, Q4_K nibbles <= 15, Q5_K values <= 31, Q6_K values <= 63) times activation bytes,
 * pairs summed to 16 bits (63*127*2 fits), then times the 16-bit scales into 32 bits. */
TN_QTARGET static inline __m256i kdot(__m256i u, const int8_t *a, int s0, int s1) {
    __m256i s16 = _mm256_maddubs_epi16(u, _mm256_loadu_si256((const __m256i *)a));
    return _mm256_madd_epi16(s16, _mm256_set_m128i(_mm_set1_epi16((short)s1), _mm_set1_epi16((short)s0)));
}

/* Two rows' Q4_0 nibbles (lo: values 0..15, hi: 16..31 of each 128-bit half) times the
 * activation halves: pairs to 16 bits (two sums of 15*127*2 fit), then to 32 bits. */
TN_QTARGET static inline __m256i pair_dot(__m256i lo, __m256i hi, __m256i alo, __m256i ahi) {
    __m256i s16 = _mm256_add_epi16(_mm256_maddubs_epi16(lo, alo), _mm256_maddubs_epi16(hi, ahi));
    return _mm256_madd_epi16(s16, _mm256_set1_epi16(1));
}

/* Q8_0 tile (quant_dot_body.h tile_q8): the eight rows' quants widened to 16 bits once per block;
 * per activation row, two vpmaddwd per weight row (exact) and one fold8 into lane r = row r. */
typedef struct { __m256i lo[8], hi[8]; } tq8_w;

TN_QTARGET static inline void tq8_prep(tq8_w *t, const uint8_t *q, int64_t rb) {
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) {
        t->lo[r] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + r * rb)));
        t->hi[r] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(q + r * rb + 16)));
    }
}

TN_QTARGET static inline __m256i fold8(const __m256i *v); /* quant_dot_body.h */

TN_QTARGET static inline __m256i tq8_dot(const tq8_w *t, const int8_t *x) {
    const __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)x));
    const __m256i a1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x + 16)));
    __m256i v[8];
#pragma GCC unroll 8
    for (int r = 0; r < 8; r++) v[r] = _mm256_add_epi32(_mm256_madd_epi16(t->lo[r], a0), _mm256_madd_epi16(t->hi[r], a1));
    return fold8(v);
}

#include "kernels/x86/quant_dot_body.h"

#endif
