/* kernels/x86/vmath_x86.c — tn_vexp_f32's AVX-512 and AVX2 bodies (kernels/vmath.c picks one at
 * run time). Lane for lane the same operations as vmath.c's portable exp1 (multiplies and adds,
 * never fused), so every variant returns the same bits. */
#if defined(__x86_64__)

#include <immintrin.h>
#include <stdint.h>

void tn_vexp_f32_avx512(float *y, const float *x, int64_t n);
void tn_vexp_f32_avx2(float *y, const float *x, int64_t n);

#define TN_EXP_HI 88.72283935546875f
#define TN_EXP_LO -87.33654022216797f

__attribute__((target("avx512f"))) void tn_vexp_f32_avx512(float *y, const float *x, int64_t n) {
    const __m512 hi = _mm512_set1_ps(TN_EXP_HI), lo = _mm512_set1_ps(TN_EXP_LO);
    for (int64_t i = 0; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n - i)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        __mmask16 big = _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), small = _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ);
        __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        __m512 xc = _mm512_mask_mov_ps(_mm512_min_ps(_mm512_max_ps(v, lo), hi), nan, _mm512_setzero_ps());
        __m512 fx = _mm512_add_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504088896341f)), _mm512_set1_ps(0.5f));
        __m512i k = _mm512_cvttps_epi32(fx);
        __mmask16 over = _mm512_cmp_ps_mask(_mm512_cvtepi32_ps(k), fx, _CMP_GT_OQ);
        k = _mm512_mask_sub_epi32(k, over, k, _mm512_set1_epi32(1));
        __m512 nf = _mm512_cvtepi32_ps(k);
        __m512 r = _mm512_sub_ps(xc, _mm512_mul_ps(nf, _mm512_set1_ps(0.693359375f)));
        r = _mm512_sub_ps(r, _mm512_mul_ps(nf, _mm512_set1_ps(-2.12194440e-4f)));
        __m512 p = _mm512_add_ps(_mm512_mul_ps(r, _mm512_set1_ps(1.9875691500e-4f)), _mm512_set1_ps(1.3981999507e-3f));
        p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(8.3334519073e-3f));
        p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(4.1665795894e-2f));
        p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(1.6666665459e-1f));
        p = _mm512_add_ps(_mm512_mul_ps(p, r), _mm512_set1_ps(5.0000001201e-1f));
        p = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(p, _mm512_mul_ps(r, r)), r), _mm512_set1_ps(1.0f));
        __m512i h = _mm512_srai_epi32(k, 1), bias = _mm512_set1_epi32(127);
        __m512 s1 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(h, bias), 23));
        __m512 s2 = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(k, h), bias), 23));
        __m512 out = _mm512_mul_ps(_mm512_mul_ps(p, s1), s2);
        out = _mm512_mask_mov_ps(out, big, _mm512_set1_ps(__builtin_inff()));
        out = _mm512_mask_mov_ps(out, small, _mm512_setzero_ps());
        out = _mm512_mask_mov_ps(out, nan, v);
        _mm512_mask_storeu_ps(y + i, m, out);
    }
}

__attribute__((target("avx2"))) void tn_vexp_f32_avx2(float *y, const float *x, int64_t n) {
    const __m256 hi = _mm256_set1_ps(TN_EXP_HI), lo = _mm256_set1_ps(TN_EXP_LO);
    for (int64_t i = 0; i < n; i += 8) {
        float t[8] = {0};
        const float *src = x + i;
        if (n - i < 8) {
            for (int64_t q = 0; q < n - i; q++) t[q] = x[i + q];
            src = t;
        }
        __m256 v = _mm256_loadu_ps(src);
        __m256 big = _mm256_cmp_ps(v, hi, _CMP_GT_OQ), small = _mm256_cmp_ps(v, lo, _CMP_LT_OQ);
        __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        __m256 xc = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(v, lo), hi));
        __m256 fx = _mm256_add_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)), _mm256_set1_ps(0.5f));
        __m256i k = _mm256_cvttps_epi32(fx);
        __m256i over = _mm256_castps_si256(_mm256_cmp_ps(_mm256_cvtepi32_ps(k), fx, _CMP_GT_OQ));
        k = _mm256_add_epi32(k, over); /* over lanes are -1 */
        __m256 nf = _mm256_cvtepi32_ps(k);
        __m256 r = _mm256_sub_ps(xc, _mm256_mul_ps(nf, _mm256_set1_ps(0.693359375f)));
        r = _mm256_sub_ps(r, _mm256_mul_ps(nf, _mm256_set1_ps(-2.12194440e-4f)));
        __m256 p = _mm256_add_ps(_mm256_mul_ps(r, _mm256_set1_ps(1.9875691500e-4f)), _mm256_set1_ps(1.3981999507e-3f));
        p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(8.3334519073e-3f));
        p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(4.1665795894e-2f));
        p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(1.6666665459e-1f));
        p = _mm256_add_ps(_mm256_mul_ps(p, r), _mm256_set1_ps(5.0000001201e-1f));
        p = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p, _mm256_mul_ps(r, r)), r), _mm256_set1_ps(1.0f));
        __m256i h = _mm256_srai_epi32(k, 1), bias = _mm256_set1_epi32(127);
        __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(h, bias), 23));
        __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, h), bias), 23));
        __m256 out = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
        out = _mm256_blendv_ps(out, _mm256_set1_ps(__builtin_inff()), big);
        out = _mm256_blendv_ps(out, _mm256_setzero_ps(), small);
        out = _mm256_blendv_ps(out, v, nan);
        if (n - i >= 8) {
            _mm256_storeu_ps(y + i, out);
        } else {
            _mm256_storeu_ps(t, out);
            for (int64_t q = 0; q < n - i; q++) y[i + q] = t[q];
        }
    }
}

#endif
