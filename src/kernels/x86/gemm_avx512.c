/* kernels/x86/gemm_avx512.c — the AVX-512 microkernel of the blocked f32 GEMM (see
 * kernels/gemm_isa.h): 32 lanes (two zmm) x 12 broadcast rows, 24 accumulators, one fused
 * multiply-add chain per output over k in order (bit-identical to the reference); fewer rows
 * (a product's last ones) by micro_rows. Packing and
 * the few-row path are the AVX2 ones (every AVX-512 CPU has AVX2). Only called after the CPU
 * reported AVX512F. Also A @ W^T for one row (decode) or a few: 16 lanes along k,
 * see tn_gemv_nt_ref_f32. */
#if defined(__x86_64__)

#include "kernels/gemm_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>
#include <stdbool.h>

#define TN_AVX512 __attribute__((target("avx512f,avx2,fma")))

#define TN_ROW(r)                                                                                  \
    b = _mm512_set1_ps(q[r * ldq + k]);                                                            \
    c##r##0 = _mm512_fmadd_ps(a0, b, c##r##0);                                                     \
    c##r##1 = _mm512_fmadd_ps(a1, b, c##r##1);
#define TN_STORE(r)                                                                                \
    _mm512_storeu_ps(tile + r * ldt, c##r##0);                                                     \
    _mm512_storeu_ps(tile + r * ldt + 16, c##r##1);

#define TN_ADD(r)                                                                                  \
    c##r##0 = _mm512_add_ps(_mm512_loadu_ps(tile + r * ldt), c##r##0);                             \
    c##r##1 = _mm512_add_ps(_mm512_loadu_ps(tile + r * ldt + 16), c##r##1);

TN_AVX512 static void micro32x12(int64_t K, const float *q, int64_t ldq, const float *p, float *tile, int64_t ldt,
                                 int acc) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00, c80 = c00, c81 = c00;
    __m512 c90 = c00, c91 = c00, c100 = c00, c101 = c00, c110 = c00, c111 = c00;
    for (int64_t k = 0; k < K; k++, p += 32) {
        __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16), b;
        TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
        TN_ROW(6) TN_ROW(7) TN_ROW(8) TN_ROW(9) TN_ROW(10) TN_ROW(11)
    }
    if (acc) { /* the tile holds earlier k chunks' sums: add this chunk's */
        TN_ADD(0) TN_ADD(1) TN_ADD(2) TN_ADD(3) TN_ADD(4) TN_ADD(5)
        TN_ADD(6) TN_ADD(7) TN_ADD(8) TN_ADD(9) TN_ADD(10) TN_ADD(11)
    }
    TN_STORE(0) TN_STORE(1) TN_STORE(2) TN_STORE(3) TN_STORE(4) TN_STORE(5)
    TN_STORE(6) TN_STORE(7) TN_STORE(8) TN_STORE(9) TN_STORE(10) TN_STORE(11)
}

/* The same for n < 12 rows (a constant after inlining): the last rows of a product, without
 * computing padding rows. */
TN_AVX512 __attribute__((always_inline)) static inline void micro_n(const int n, int64_t K, const float *q, int64_t ldq,
                                                                     const float *p, float *tile, int64_t ldt, int acc) {
    __m512 c[11][2];
#pragma GCC unroll 11
    for (int r = 0; r < 11; r++)
        if (r < n) c[r][0] = c[r][1] = _mm512_setzero_ps();
    for (int64_t k = 0; k < K; k++, p += 32) {
        const __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16);
#pragma GCC unroll 11
        for (int r = 0; r < 11; r++)
            if (r < n) {
                const __m512 b = _mm512_set1_ps(q[r * ldq + k]);
                c[r][0] = _mm512_fmadd_ps(a0, b, c[r][0]);
                c[r][1] = _mm512_fmadd_ps(a1, b, c[r][1]);
            }
    }
#pragma GCC unroll 11
    for (int r = 0; r < 11; r++)
        if (r < n) {
            if (acc) {
                c[r][0] = _mm512_add_ps(_mm512_loadu_ps(tile + r * ldt), c[r][0]);
                c[r][1] = _mm512_add_ps(_mm512_loadu_ps(tile + r * ldt + 16), c[r][1]);
            }
            _mm512_storeu_ps(tile + r * ldt, c[r][0]);
            _mm512_storeu_ps(tile + r * ldt + 16, c[r][1]);
        }
}

TN_AVX512 static void micro_rows(int rows, int64_t K, const float *q, int64_t ldq, const float *p, float *tile,
                                 int64_t ldt, int acc) {
    switch (rows) {
    case 1: micro_n(1, K, q, ldq, p, tile, ldt, acc); break;
    case 2: micro_n(2, K, q, ldq, p, tile, ldt, acc); break;
    case 3: micro_n(3, K, q, ldq, p, tile, ldt, acc); break;
    case 4: micro_n(4, K, q, ldq, p, tile, ldt, acc); break;
    case 5: micro_n(5, K, q, ldq, p, tile, ldt, acc); break;
    case 6: micro_n(6, K, q, ldq, p, tile, ldt, acc); break;
    case 7: micro_n(7, K, q, ldq, p, tile, ldt, acc); break;
    case 8: micro_n(8, K, q, ldq, p, tile, ldt, acc); break;
    case 9: micro_n(9, K, q, ldq, p, tile, ldt, acc); break;
    case 10: micro_n(10, K, q, ldq, p, tile, ldt, acc); break;
    default: micro_n(11, K, q, ldq, p, tile, ldt, acc); break;
    }
}


/* Up to 6 rows of A (m, a constant after inlining) against 4 rows of W per step, each output
 * in tn_gemv_nt_ref_f32's lane order; W streams once for all m rows (one row is decode). */
TN_AVX512 __attribute__((always_inline)) static inline void rows_m(const int m, int64_t N, int64_t K, float alpha,
                                                                    const float *A, int64_t lda, const float *W,
                                                                    int64_t ldw, float beta, float *C, int64_t ldc) {
    const int64_t kb = K / 16 * 16;
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const float *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m512 acc[6][4];
#pragma GCC unroll 6
        for (int i = 0; i < 6; i++)
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) acc[i][r] = _mm512_setzero_ps();
        const bool ahead = j + 8 <= N;
        for (int64_t k = 0; k < kb; k += 16) {
            __m512 wv[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) {
                if (ahead) _mm_prefetch((const char *)(w[r] + 4 * ldw + k), _MM_HINT_T0);
                wv[r] = _mm512_loadu_ps(w[r] + k);
            }
#pragma GCC unroll 6
            for (int i = 0; i < 6; i++) {
                if (i >= m) break;
                __m512 x = _mm512_loadu_ps(A + i * lda + k);
#pragma GCC unroll 4
                for (int r = 0; r < 4; r++) acc[i][r] = _mm512_fmadd_ps(x, wv[r], acc[i][r]);
            }
        }
        for (int i = 0; i < m; i++)
            for (int r = 0; r < nr; r++) {
                float s = tn_fold16_zmm(acc[i][r]);
                for (int64_t k = kb; k < K; k++) s = __builtin_fmaf(A[i * lda + k], w[r][k], s);
                C[i * ldc + j + r] = tn_gemm_finish(s, alpha, beta, C[i * ldc + j + r]);
            }
    }
}

TN_AVX512 static void gemv_rows(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *W,
                      int64_t ldw, float beta, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i += 6) {
        const float *a = A + i * lda;
        float *c = C + i * ldc;
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

const tn_gemm_isa tn_gemm_isa_avx512 = {
    .name = "avx512", .V = 32, .R = 12, .micro = micro32x12, .micro_rows = micro_rows, .pack_t = tn_gemm_avx2_pack_t,
    .nt_few = tn_gemm_avx2_nt_few,
    .gemv_rows = gemv_rows, .store_t = tn_gemm_avx2_store_t};

#endif
