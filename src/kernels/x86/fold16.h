/* kernels/x86/fold16.h — the few-row GEMVs' "lane order" fold (tn_gemv_nt_ref_f32's for f32,
 * tn_lp_fold16 for bf16 / f16): sixteen f32 lanes folded by halves (l + l+8, + l+4, + l+2, + l+1),
 * held as two ymm (lanes 0-7, 8-15: the AVX2 kernels) or one zmm (the AVX-512 kernels). */
#ifndef TN_KERNELS_X86_FOLD16_H
#define TN_KERNELS_X86_FOLD16_H
#if defined(__x86_64__)

#include <immintrin.h>

__attribute__((target("avx2"))) static inline float tn_fold16_ymm(__m256 lo, __m256 hi) {
    __m256 a = _mm256_add_ps(lo, hi);
    __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
    return _mm_cvtss_f32(_mm_add_ss(c, _mm_movehdup_ps(c)));
}

__attribute__((target("avx512f"))) static inline float tn_fold16_zmm(__m512 v) {
    return tn_fold16_ymm(_mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

#endif
#endif
