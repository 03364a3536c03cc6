/* kernels/x86/f16-gemm-avx512.c — the f16 few-row product A @ W^T (decode) on AVX-512F: the 16
 * lanes of the "lane order" (kernels/gemm_lp_isa.h) are one zmm, each 16 f16 of W widened by one
 * vcvtph2ps; the fold by halves (l+8, l+4, l+2, l+1) and the scalar tail are the AVX2 kernel's, so
 * the bits are the reference's. The packed products stay on the AVX2 kernels (kernels/gemm_lp.c). */
#if defined(__x86_64__)

#include "kernels/gemm_lp_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>

#define TN_512 __attribute__((target("avx512f,avx2,fma,f16c")))
#define TN_PF_ROWS 4 /* W rows ahead to prefetch (as the bf16 GEMV) */

TN_512 static inline __m512 ld16(const uint16_t *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)); }

TN_512 static inline float h2f(uint16_t h) { return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))); }


TN_512 __attribute__((always_inline)) static inline void rows_m(const int m, int64_t N, int64_t K, float alpha,
                                                                const uint16_t *A, int64_t lda, const uint16_t *W,
                                                                int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t kb = K / 16 * 16;
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const uint16_t *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m512 acc[4][4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) acc[i][r] = _mm512_setzero_ps();
        const bool ahead = j + 4 + TN_PF_ROWS <= N;
        for (int64_t k = 0; k < kb; k += 16) {
            __m512 wv[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                if (ahead && (k & 31) == 0) _mm_prefetch((const char *)(w[r] + TN_PF_ROWS * ldw + k), _MM_HINT_T0);
                wv[r] = ld16(w[r] + k);
            }
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                if (i >= m) break;
                __m512 x = ld16(A + i * lda + k);
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) acc[i][r] = _mm512_fmadd_ps(x, wv[r], acc[i][r]);
            }
        }
        for (int i = 0; i < m; i++)
            for (int r = 0; r < nr; r++) {
                float s = tn_fold16_zmm(acc[i][r]);
                for (int64_t k = kb; k < K; k++) s = __builtin_fmaf(h2f(A[i * lda + k]), h2f(w[r][k]), s);
                C[i * ldc + j + r] = tn_lp_close(false, s, alpha, beta, C + i * ldc + j + r);
            }
    }
}

TN_512 void tn_f16_gemv_rows_avx512(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                                    const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i += 4) {
        const uint16_t *a = A + i * lda;
        uint16_t *c = C + i * ldc;
        switch (M - i) {
        case 1: rows_m(1, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 2: rows_m(2, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 3: rows_m(3, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        default: rows_m(4, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        }
    }
}

#endif
