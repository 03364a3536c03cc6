/* kernels/x86/f16-gemm-avx2.c — the f16 products on AVX2+FMA+F16C (orders in
 * kernels/gemm_lp_isa.h); used on AVX2 and AVX-512 hosts. f16 converts to f32 exactly
 * (vcvtph2ps), so the sums are the f32 kernels' fused multiply-add chains on the widened values.
 *  - micro: 16 lanes (a packed k row of 16 f16, two conversions) x 6 broadcast rows, 12 f32
 *    accumulators; the broadcast rows are converted 128 k at a time into a 3 KB stack buffer.
 *    Accumulation order: the "chain" (one FMA chain per output over k in order).
 *  - gemv_rows: up to 4 rows of A against 4 rows of W, 16 lanes along k (two ymm), the last k
 *    below 16 continuing the folded chain, the next W rows prefetched; accumulation order: the
 *    "lane order". AVX-512 hosts take kernels/x86/f16-gemm-avx512.c's GEMV instead. */
#if defined(__x86_64__)

#include "kernels/gemm_lp_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>
#include <string.h>

#define TN_F16C __attribute__((target("avx2,fma,f16c")))
#define KC 128
#define TN_PF_ROWS 4 /* W rows ahead to prefetch in the GEMV (as the bf16 one) */

TN_F16C static inline float h2f(uint16_t h) { return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))); }

/* q rows [0, 6) at columns [k0, k0+n) into buf[r][0..n) as f32. */
TN_F16C static inline void widen_rows(const uint16_t *q, int64_t ldq, int64_t k0, int n, float buf[6][KC]) {
    for (int r = 0; r < 6; r++) {
        const uint16_t *s = q + r * ldq + k0;
        int k = 0;
        for (; k + 8 <= n; k += 8) _mm256_storeu_ps(buf[r] + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + k))));
        for (; k < n; k++) buf[r][k] = h2f(s[k]);
    }
}

#define TN_ROW(r)                                                                                  \
    b = _mm256_broadcast_ss(buf[r] + k);                                                           \
    c##r##0 = _mm256_fmadd_ps(a0, b, c##r##0);                                                     \
    c##r##1 = _mm256_fmadd_ps(a1, b, c##r##1);

TN_F16C static void micro16x6(int64_t K, const uint16_t *q, int64_t ldq, const uint16_t *p, float *tile) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    float buf[6][KC];
    for (int64_t k0 = 0; k0 < K; k0 += KC) {
        int n = K - k0 < KC ? (int)(K - k0) : KC;
        widen_rows(q, ldq, k0, n, buf);
        for (int k = 0; k < n; k++, p += 16) {
            __m256 a0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
            __m256 a1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 8))), b;
            TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
        }
    }
    _mm256_storeu_ps(tile + 0, c00); _mm256_storeu_ps(tile + 8, c01);
    _mm256_storeu_ps(tile + 16, c10); _mm256_storeu_ps(tile + 24, c11);
    _mm256_storeu_ps(tile + 32, c20); _mm256_storeu_ps(tile + 40, c21);
    _mm256_storeu_ps(tile + 48, c30); _mm256_storeu_ps(tile + 56, c31);
    _mm256_storeu_ps(tile + 64, c40); _mm256_storeu_ps(tile + 72, c41);
    _mm256_storeu_ps(tile + 80, c50); _mm256_storeu_ps(tile + 88, c51);
}


TN_F16C static inline __m256 ld8(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

TN_F16C __attribute__((always_inline)) static inline void rows_m(const int m, int64_t N, int64_t K, float alpha,
                                                                  const uint16_t *A, int64_t lda, const uint16_t *W,
                                                                  int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t kb = K / 16 * 16;
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const uint16_t *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m256 acc[4][4][2];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) acc[i][r][0] = acc[i][r][1] = _mm256_setzero_ps();
        const bool ahead = j + 4 + TN_PF_ROWS <= N;
        for (int64_t k = 0; k < kb; k += 16) {
            __m256 w0[4], w1[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                if (ahead && (k & 31) == 0) _mm_prefetch((const char *)(w[r] + TN_PF_ROWS * ldw + k), _MM_HINT_T0);
                w0[r] = ld8(w[r] + k);
                w1[r] = ld8(w[r] + k + 8);
            }
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                if (i >= m) break;
                __m256 x0 = ld8(A + i * lda + k), x1 = ld8(A + i * lda + k + 8);
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) {
                    acc[i][r][0] = _mm256_fmadd_ps(x0, w0[r], acc[i][r][0]);
                    acc[i][r][1] = _mm256_fmadd_ps(x1, w1[r], acc[i][r][1]);
                }
            }
        }
        for (int i = 0; i < m; i++)
            for (int r = 0; r < nr; r++) {
                float s = tn_fold16_ymm(acc[i][r][0], acc[i][r][1]);
                for (int64_t k = kb; k < K; k++) s = __builtin_fmaf(h2f(A[i * lda + k]), h2f(w[r][k]), s);
                C[i * ldc + j + r] = tn_lp_close(false, s, alpha, beta, C + i * ldc + j + r);
            }
    }
}

TN_F16C static void gemv_rows(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
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

/* The closing step (tn_lp_close) on a row of up to 16 outputs: vcvtps2ph rounds to nearest even
 * as tn_f32_to_f16 does (overflow to inf, f16 subnormals); a block holding a NaN, and the last
 * n % 8, take the scalar code (tn_f32_to_f16's canonical NaN). */
TN_F16C static void close_row(const float *acc, int n, float alpha, float beta, uint16_t *c) {
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    int h = 0;
    for (; h + 8 <= n; h += 8) {
        __m256 a = _mm256_loadu_ps(acc + h);
        if (beta == 0) {
            if (alpha != 1) a = _mm256_mul_ps(va, a);
        } else {
            __m256 cv = ld8(c + h);
            a = alpha == 1 && beta == 1 ? _mm256_add_ps(a, cv) : _mm256_add_ps(_mm256_mul_ps(va, a), _mm256_mul_ps(vb, cv));
        }
        if (_mm256_movemask_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)))
            for (int i = 0; i < 8; i++) c[h + i] = tn_lp_close(false, acc[h + i], alpha, beta, c + h + i);
        else
            _mm_storeu_si128((__m128i *)(c + h), _mm256_cvtps_ph(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    for (; h < n; h++) c[h] = tn_lp_close(false, acc[h], alpha, beta, c + h);
}

const tn_gemm_lp_isa tn_f16_gemm_avx2 = {.name = "avx2", .V = 16, .R = 6, .micro = micro16x6, .close_row = close_row,
                                         .gemv_rows = gemv_rows};

#endif
