/* kernels/x86/quant-dot-avx512vnni.c — integer block dot products (kernels/quant.h) with AVX-512
 * VNNI on 256-bit registers (vpdpbusd: unsigned bytes times signed bytes, four products summed
 * into each 32-bit lane, exact). Q8_0: weights offset to unsigned (w ^ 0x80 = w + 128), then
 * -128 * (sum of the activation quants). Q4_0/Q4_1: the nibbles are already unsigned; Q4_0's -8
 * is -8 * (sum of the activation quants). Only called after the CPU reported AVX512F, VL, BW and
 * VNNI. */
#if defined(__x86_64__)

#include "kernels/quant.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#define TN_QTARGET __attribute__((target("avx2,f16c,avx512f,avx512vl,avx512bw,avx512vnni")))
#define TN_QNAME tn_qrow_avx512vnni
#define TN_QNAME8 tn_qrows8_avx512vnni
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

#include "kernels/x86/quant_dot_body.h"

#endif
