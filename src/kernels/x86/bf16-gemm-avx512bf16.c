/* kernels/x86/bf16-gemm-avx512bf16.c — the bf16 products on AVX-512 BF16 (kernels/gemm_lp.c
 * drives them; orders in kernels/gemm_lp_isa.h). Only called after the CPU reported AVX512_BF16.
 *  - micro: 32 lanes (two zmm of 16 pairs) x 12 broadcast rows, 24 f32 accumulators; one vdpbf16ps
 *    per (row, half) per k pair. Accumulation order: the "pair chain" — each lane one f32
 *    accumulator, k pairs in order, within a pair k+1 then k (the instruction's own order, with its
 *    DAZ/FTZ), an odd K's last element paired with a zero.
 *  - gemv_rows: up to 6 rows of A against 4 rows of W per step, vectors along k (16 lanes of pairs,
 *    32 k per vdpbf16ps, the tail through zero-masked loads). Accumulation order: the "lane order",
 *    lanes folded by halves l+8, l+4, l+2, l+1. W streams once for all rows (decode). */
#if defined(__x86_64__)

#include "kernels/gemm_lp_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>
#include <string.h>



#define TN_PF_ROWS 4 /* W rows ahead to prefetch */
#define TN_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,avx2,fma")))

static inline uint32_t ld32(const uint16_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

#define TN_ROW(r)                                                                                  \
    b = (__m512bh)_mm512_set1_epi32((int)(pr(q + r * ldq)));                                       \
    c##r##0 = _mm512_dpbf16_ps(c##r##0, a0, b);                                                    \
    c##r##1 = _mm512_dpbf16_ps(c##r##1, a1, b);
#define TN_STORE(r)                                                                                \
    _mm512_storeu_ps(tile + r * 32, c##r##0);                                                      \
    _mm512_storeu_ps(tile + r * 32 + 16, c##r##1);

TN_BF16 static void micro32x12(int64_t K, const uint16_t *q, int64_t ldq, const uint16_t *p, float *tile) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00, c80 = c00, c81 = c00;
    __m512 c90 = c00, c91 = c00, c100 = c00, c101 = c00, c110 = c00, c111 = c00;
    const int64_t K2 = K / 2 * 2;
    int64_t k = 0;
#define pr(row) ld32((row) + k)
    for (; k < K2; k += 2, p += 64) {
        __m512bh a0 = (__m512bh)_mm512_loadu_si512(p), a1 = (__m512bh)_mm512_loadu_si512(p + 32), b;
        TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
        TN_ROW(6) TN_ROW(7) TN_ROW(8) TN_ROW(9) TN_ROW(10) TN_ROW(11)
    }
#undef pr
    if (k < K) { /* odd K: the last element paired with a zero */
#define pr(row) (uint32_t)(row)[k]
        __m512bh a0 = (__m512bh)_mm512_loadu_si512(p), a1 = (__m512bh)_mm512_loadu_si512(p + 32), b;
        TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
        TN_ROW(6) TN_ROW(7) TN_ROW(8) TN_ROW(9) TN_ROW(10) TN_ROW(11)
#undef pr
    }
    TN_STORE(0) TN_STORE(1) TN_STORE(2) TN_STORE(3) TN_STORE(4) TN_STORE(5)
    TN_STORE(6) TN_STORE(7) TN_STORE(8) TN_STORE(9) TN_STORE(10) TN_STORE(11)
}


TN_BF16 __attribute__((always_inline)) static inline void rows_m(const int m, int64_t N, int64_t K, float alpha,
                                                                  const uint16_t *A, int64_t lda, const uint16_t *W,
                                                                  int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t kb = K / 32 * 32;
    const __mmask32 tail = (__mmask32)((1ull << (K - kb)) - 1);
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const uint16_t *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m512 acc[6][4];
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++)
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) acc[i][r] = _mm512_setzero_ps();
        const bool ahead = j + 4 + TN_PF_ROWS <= N;
        for (int64_t k = 0; k < kb; k += 32) {
            __m512bh wv[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                if (ahead) _mm_prefetch((const char *)(w[r] + TN_PF_ROWS * ldw + k), _MM_HINT_T0);
                wv[r] = (__m512bh)_mm512_loadu_si512(w[r] + k);
            }
#pragma GCC unroll 6
            for (int i = 0; i < 6; i++) {
                if (i >= m) break;
                __m512bh x = (__m512bh)_mm512_loadu_si512(A + i * lda + k);
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) acc[i][r] = _mm512_dpbf16_ps(acc[i][r], x, wv[r]);
            }
        }
        if (kb < K) {
            __m512bh wv[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) wv[r] = (__m512bh)_mm512_maskz_loadu_epi16(tail, w[r] + kb);
#pragma GCC unroll 6
            for (int i = 0; i < 6; i++) {
                if (i >= m) break;
                __m512bh x = (__m512bh)_mm512_maskz_loadu_epi16(tail, A + i * lda + kb);
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) acc[i][r] = _mm512_dpbf16_ps(acc[i][r], x, wv[r]);
            }
        }
        for (int i = 0; i < m; i++)
            for (int r = 0; r < nr; r++)
                C[i * ldc + j + r] = tn_lp_close(true, tn_fold16_zmm(acc[i][r]), alpha, beta, C + i * ldc + j + r);
    }
}

TN_BF16 static void gemv_rows(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                              const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i += 6) {
        const uint16_t *a = A + i * lda;
        uint16_t *c = C + i * ldc;
        switch (M - i) {
        case 1: rows_m(1, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 2: rows_m(2, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 3: rows_m(3, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 4: rows_m(4, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 5: rows_m(5, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        default: rows_m(6, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        }
    }
}

/* tn_f32_to_bf16 on 16 lanes: round to nearest even, a NaN quieted. */
TN_BF16 static inline __m256i round16(__m512 v) {
    __m512i u = _mm512_castps_si512(v), hi = _mm512_srli_epi32(u, 16);
    __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
    return _mm512_cvtepi32_epi16(r);
}

/* The closing step (tn_lp_close) on a row of up to 32 outputs. */
TN_BF16 static void close_row(const float *acc, int n, float alpha, float beta, uint16_t *c) {
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    for (int h = 0; h < n; h += 16) {
        const __mmask16 m = (__mmask16)(n - h >= 16 ? 0xffffu : (1u << (n - h)) - 1);
        __m512 a = _mm512_maskz_loadu_ps(m, acc + h);
        if (beta == 0) {
            if (alpha != 1) a = _mm512_mul_ps(va, a);
        } else {
            __m512 cv = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, c + h)), 16));
            a = alpha == 1 && beta == 1 ? _mm512_add_ps(a, cv) : _mm512_add_ps(_mm512_mul_ps(va, a), _mm512_mul_ps(vb, cv));
        }
        _mm256_mask_storeu_epi16(c + h, m, round16(a));
    }
}

const tn_gemm_lp_isa tn_bf16_gemm_avx512bf16 = {.name = "avx512bf16", .V = 32, .R = 12, .micro = micro32x12,
                                                .close_row = close_row, .pack_rows = tn_bf16_pack_rows_avx2,
                                                .gemv_rows = gemv_rows};

#endif
