/* kernels/x86/bf16-gemm-avx2.c — the bf16 products on AVX2+FMA without AVX-512 BF16 (also what
 * TN_GEMM=avx2 forces on a BF16 host); orders in kernels/gemm_lp_isa.h. bf16 is widened in
 * registers only: a 32-bit pair (k, k+1) becomes two f32 vectors, k+1 by masking the low half away
 * and k by shifting left 16, and each goes through a fused multiply-add — k+1 first — with
 * MXCSR.DAZ|FTZ set around the dot loop, which is vdpbf16ps's per-lane arithmetic exactly.
 *  - micro: 16 lanes (two ymm of 8 pairs) x 6 broadcast rows, 12 f32 accumulators; accumulation
 *    order: the "pair chain".
 *  - gemv_rows: up to 4 rows of A against 4 rows of W, 16 lanes of pairs (two ymm) along k, the
 *    tail through zero-padded copies; accumulation order: the "lane order". */
#if defined(__x86_64__)

#include "kernels/gemm_lp_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>
#include <string.h>

#define TN_AVX2 __attribute__((target("avx2,fma")))
#define TN_DAZ_FTZ 0x8040u

static inline uint32_t ld32(const uint16_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

TN_AVX2 static inline __m256 hi_f32(__m256i v) { return _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xffff0000u))); }
TN_AVX2 static inline __m256 lo_f32(__m256i v) { return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16)); }

#define TN_ROW(r)                                                                                  \
    b = _mm256_set1_epi32((int)pr(q + r * ldq));                                                   \
    bo = hi_f32(b);                                                                                \
    be = lo_f32(b);                                                                                \
    c##r##0 = _mm256_fmadd_ps(po0, bo, c##r##0);                                                   \
    c##r##1 = _mm256_fmadd_ps(po1, bo, c##r##1);                                                   \
    c##r##0 = _mm256_fmadd_ps(pe0, be, c##r##0);                                                   \
    c##r##1 = _mm256_fmadd_ps(pe1, be, c##r##1);
#define TN_STEP                                                                                    \
    __m256i p0 = _mm256_loadu_si256((const __m256i *)p), p1 = _mm256_loadu_si256((const __m256i *)(p + 16)), b; \
    __m256 po0 = hi_f32(p0), pe0 = lo_f32(p0), po1 = hi_f32(p1), pe1 = lo_f32(p1), bo, be;          \
    TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)

TN_AVX2 static void micro16x6(int64_t K, const uint16_t *q, int64_t ldq, const uint16_t *p, float *tile) {
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | TN_DAZ_FTZ);
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    const int64_t K2 = K / 2 * 2;
    int64_t k = 0;
#define pr(row) ld32((row) + k)
    for (; k < K2; k += 2, p += 32) {
        TN_STEP
    }
#undef pr
    if (k < K) {
#define pr(row) (uint32_t)(row)[k]
        TN_STEP
#undef pr
    }
    _mm256_storeu_ps(tile + 0, c00); _mm256_storeu_ps(tile + 8, c01);
    _mm256_storeu_ps(tile + 16, c10); _mm256_storeu_ps(tile + 24, c11);
    _mm256_storeu_ps(tile + 32, c20); _mm256_storeu_ps(tile + 40, c21);
    _mm256_storeu_ps(tile + 48, c30); _mm256_storeu_ps(tile + 56, c31);
    _mm256_storeu_ps(tile + 64, c40); _mm256_storeu_ps(tile + 72, c41);
    _mm256_storeu_ps(tile + 80, c50); _mm256_storeu_ps(tile + 88, c51);
    _mm_setcsr(csr);
}


/* 32 k of a row pair-dotted into the lanes (lo: pairs 0-7, hi: pairs 8-15). */
#define TN_DOT32(acc0, acc1, x0, x1, w0, w1)                                                       \
    acc0 = _mm256_fmadd_ps(hi_f32(x0), hi_f32(w0), acc0);                                          \
    acc0 = _mm256_fmadd_ps(lo_f32(x0), lo_f32(w0), acc0);                                          \
    acc1 = _mm256_fmadd_ps(hi_f32(x1), hi_f32(w1), acc1);                                          \
    acc1 = _mm256_fmadd_ps(lo_f32(x1), lo_f32(w1), acc1);

TN_AVX2 __attribute__((always_inline)) static inline void rows_m(const int m, int64_t N, int64_t K, float alpha,
                                                                  const uint16_t *A, int64_t lda, const uint16_t *W,
                                                                  int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t kb = K / 32 * 32;
    uint16_t xt[4][32], wt[4][32]; /* zero-padded tails */
    for (int i = 0; i < m; i++) {
        memset(xt[i], 0, sizeof xt[i]);
        memcpy(xt[i], A + i * lda + kb, (size_t)(K - kb) * 2);
    }
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const uint16_t *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m256 acc[4][4][2];
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) acc[i][r][0] = acc[i][r][1] = _mm256_setzero_ps();
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(csr | TN_DAZ_FTZ);
        for (int64_t k = 0; k <= kb; k += 32) {
            const bool last = k == kb;
            if (last && k == K) break;
            __m256i w0[4], w1[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                const uint16_t *src = w[r] + k;
                if (last) {
                    memset(wt[r], 0, sizeof wt[r]);
                    memcpy(wt[r], src, (size_t)(K - kb) * 2);
                    src = wt[r];
                }
                w0[r] = _mm256_loadu_si256((const __m256i *)src);
                w1[r] = _mm256_loadu_si256((const __m256i *)(src + 16));
            }
#pragma GCC unroll 4
            for (int i = 0; i < 4; i++) {
                if (i >= m) break;
                const uint16_t *xs = last ? xt[i] : A + i * lda + k;
                __m256i x0 = _mm256_loadu_si256((const __m256i *)xs), x1 = _mm256_loadu_si256((const __m256i *)(xs + 16));
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) {
                    TN_DOT32(acc[i][r][0], acc[i][r][1], x0, x1, w0[r], w1[r])
                }
            }
        }
        _mm_setcsr(csr);
        for (int i = 0; i < m; i++)
            for (int r = 0; r < nr; r++)
                C[i * ldc + j + r] = tn_lp_close(true, tn_fold16_ymm(acc[i][r][0], acc[i][r][1]), alpha, beta, C + i * ldc + j + r);
    }
}

TN_AVX2 static void gemv_rows(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
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

/* tn_f32_to_bf16 on 8 lanes: round to nearest even, a NaN quieted; the 16-bit results in the low
 * 128 bits. */
TN_AVX2 static inline __m128i round8(__m256 v) {
    __m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
    __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
    r = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    return _mm256_castsi256_si128(r);
}

/* The closing step (tn_lp_close) on a row of up to 16 outputs, the last n % 8 in scalar code. */
TN_AVX2 static void close_row(const float *acc, int n, float alpha, float beta, uint16_t *c) {
    const __m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
    int h = 0;
    for (; h + 8 <= n; h += 8) {
        __m256 a = _mm256_loadu_ps(acc + h);
        if (beta == 0) {
            if (alpha != 1) a = _mm256_mul_ps(va, a);
        } else {
            __m256 cv = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(c + h))), 16));
            a = alpha == 1 && beta == 1 ? _mm256_add_ps(a, cv) : _mm256_add_ps(_mm256_mul_ps(va, a), _mm256_mul_ps(vb, cv));
        }
        _mm_storeu_si128((__m128i *)(c + h), round8(a));
    }
    for (; h < n; h++) c[h] = tn_lp_close(true, acc[h], alpha, beta, c + h);
}

/* Rows into pair-interleaved panels: a pair is 32 bits, so this is the f32 driver's packing of
 * K/2 "floats" per row (bit moves only). */
void tn_bf16_pack_rows_avx2(int64_t n, int64_t K, const uint16_t *src, int64_t ld, int V, uint16_t *dst) {
    tn_gemm_avx2_pack_t(n, K / 2, (const float *)(const void *)src, ld / 2, V, (float *)(void *)dst);
}

const tn_gemm_lp_isa tn_bf16_gemm_avx2 = {.name = "avx2", .V = 16, .R = 6, .micro = micro16x6, .close_row = close_row,
                                          .pack_rows = tn_bf16_pack_rows_avx2, .gemv_rows = gemv_rows};

#endif
