/* kernels/x86/gemm_avx2.c — the AVX2+FMA pieces of the blocked f32 GEMM (kernels/gemm.c drives
 * them; see kernels/gemm_isa.h). Functions carry their own target attribute and are only called
 * after the CPU reported AVX2 and FMA, so the binary still runs on any x86-64.
 *
 * Bit-identical to the reference kernels: vectors run across outputs, never across k, so each
 * output is still one fused multiply-add chain over k in order.
 *  - micro: 16 lanes (two ymm) x 6 broadcast rows, 12 accumulators; micro_rows: fewer rows.
 *  - pack_t: rows into k-major panels through 8x8 register transposes.
 *  - nt_few: A @ W^T for up to a few rows without packing: W is read in 8x8 blocks, transposed
 *    in registers so 8 consecutive outputs share a vector, each row of A broadcast. Decode
 *    streams W once per 4 rows.
 *  - gemv16: one row of A @ W^T with 16 lanes along k (tn_gemv_nt_ref_f32's order). */
#if defined(__x86_64__)

#include "kernels/gemm_isa.h"
#include "kernels/x86/fold16.h"

#include <immintrin.h>
#include <stdbool.h>

#define TN_AVX2 __attribute__((target("avx2,fma")))
#define TN_INLINE __attribute__((always_inline)) static inline

TN_AVX2 TN_INLINE void transpose8(__m256 r[8]) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

/* ------------------------------------------------------------------ micro 16 x 6 */

#define TN_ROW(r)                                                                                  \
    b = _mm256_broadcast_ss(q##r + k);                                                             \
    c##r##0 = _mm256_fmadd_ps(a0, b, c##r##0);                                                     \
    c##r##1 = _mm256_fmadd_ps(a1, b, c##r##1);

TN_AVX2 static void micro16x6(int64_t K, const float *q, int64_t ldq, const float *p, float *tile, int64_t ldt,
                              int acc) {
    __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    const float *q0 = q, *q1 = q + ldq, *q2 = q + 2 * ldq, *q3 = q + 3 * ldq, *q4 = q + 4 * ldq, *q5 = q + 5 * ldq;
    for (int64_t k = 0; k < K; k++, p += 16) {
        __m256 a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + 8), b;
        TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
    }
    if (acc) { /* the tile holds earlier k chunks' sums: add this chunk's */
#define TN_ADD(c, o) c = _mm256_add_ps(_mm256_loadu_ps(tile + o), c);
        TN_ADD(c00, 0) TN_ADD(c01, 8) TN_ADD(c10, ldt) TN_ADD(c11, ldt + 8) TN_ADD(c20, 2 * ldt)
        TN_ADD(c21, 2 * ldt + 8) TN_ADD(c30, 3 * ldt) TN_ADD(c31, 3 * ldt + 8) TN_ADD(c40, 4 * ldt)
        TN_ADD(c41, 4 * ldt + 8) TN_ADD(c50, 5 * ldt) TN_ADD(c51, 5 * ldt + 8)
#undef TN_ADD
    }
    _mm256_storeu_ps(tile + 0, c00); _mm256_storeu_ps(tile + 8, c01);
    _mm256_storeu_ps(tile + ldt, c10); _mm256_storeu_ps(tile + ldt + 8, c11);
    _mm256_storeu_ps(tile + 2 * ldt, c20); _mm256_storeu_ps(tile + 2 * ldt + 8, c21);
    _mm256_storeu_ps(tile + 3 * ldt, c30); _mm256_storeu_ps(tile + 3 * ldt + 8, c31);
    _mm256_storeu_ps(tile + 4 * ldt, c40); _mm256_storeu_ps(tile + 4 * ldt + 8, c41);
    _mm256_storeu_ps(tile + 5 * ldt, c50); _mm256_storeu_ps(tile + 5 * ldt + 8, c51);
}

/* The same for n < 6 rows (a constant after inlining): a product's last rows, no padding rows. */
TN_AVX2 TN_INLINE void micro_n(const int n, int64_t K, const float *q, int64_t ldq, const float *p, float *tile,
                               int64_t ldt, int acc) {
    __m256 c[5][2];
#pragma GCC unroll 5
    for (int r = 0; r < 5; r++)
        if (r < n) c[r][0] = c[r][1] = _mm256_setzero_ps();
    for (int64_t k = 0; k < K; k++, p += 16) {
        const __m256 a0 = _mm256_loadu_ps(p), a1 = _mm256_loadu_ps(p + 8);
#pragma GCC unroll 5
        for (int r = 0; r < 5; r++)
            if (r < n) {
                const __m256 b = _mm256_broadcast_ss(q + r * ldq + k);
                c[r][0] = _mm256_fmadd_ps(a0, b, c[r][0]);
                c[r][1] = _mm256_fmadd_ps(a1, b, c[r][1]);
            }
    }
#pragma GCC unroll 5
    for (int r = 0; r < 5; r++)
        if (r < n) {
            if (acc) {
                c[r][0] = _mm256_add_ps(_mm256_loadu_ps(tile + r * ldt), c[r][0]);
                c[r][1] = _mm256_add_ps(_mm256_loadu_ps(tile + r * ldt + 8), c[r][1]);
            }
            _mm256_storeu_ps(tile + r * ldt, c[r][0]);
            _mm256_storeu_ps(tile + r * ldt + 8, c[r][1]);
        }
}

TN_AVX2 static void micro_rows(int rows, int64_t K, const float *q, int64_t ldq, const float *p, float *tile,
                               int64_t ldt, int acc) {
    switch (rows) {
    case 1: micro_n(1, K, q, ldq, p, tile, ldt, acc); break;
    case 2: micro_n(2, K, q, ldq, p, tile, ldt, acc); break;
    case 3: micro_n(3, K, q, ldq, p, tile, ldt, acc); break;
    case 4: micro_n(4, K, q, ldq, p, tile, ldt, acc); break;
    default: micro_n(5, K, q, ldq, p, tile, ldt, acc); break;
    }
}

#undef TN_ROW

/* ------------------------------------------------------------------ packing */

TN_AVX2 void tn_gemm_avx2_pack_t(int64_t n, int64_t K, const float *src, int64_t ld, int V, float *dst) {
    for (int64_t p = 0; p < n; p += V, dst += (int64_t)V * K) {
        int64_t rows = n - p < V ? n - p : V;
        int64_t k = 0;
        if (rows == V) {
            for (; k + 8 <= K; k += 8)
                for (int h = 0; h < V; h += 8) {
                    __m256 r[8];
#pragma GCC unroll 8
                    for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + (p + h + i) * ld + k);
                    transpose8(r);
#pragma GCC unroll 8
                    for (int i = 0; i < 8; i++) _mm256_storeu_ps(dst + (k + i) * V + h, r[i]);
                }
        }
        for (; k < K; k++)
            for (int i = 0; i < V; i++) dst[k * V + i] = i < rows ? src[(p + i) * ld + k] : 0.0f;
    }
}

/* ------------------------------------------------------------------ transposed tile store */

TN_AVX2 void tn_gemm_avx2_store_t(const float *tile, int V, int rows, int cols, float *C, int64_t ldc, int add) {
    for (int r0 = 0; r0 < rows; r0 += 8) {
        const int nr = rows - r0 < 8 ? rows - r0 : 8;
        const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(nr), lanes);
        for (int l0 = 0; l0 < cols; l0 += 8) {
            __m256 t[8];
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++) t[i] = _mm256_loadu_ps(tile + (r0 + i) * V + l0);
            transpose8(t);
            const int nl = cols - l0 < 8 ? cols - l0 : 8;
            for (int i = 0; i < nl; i++) {
                float *c = C + (int64_t)(l0 + i) * ldc + r0;
                if (nr == 8) {
                    _mm256_storeu_ps(c, add ? _mm256_add_ps(t[i], _mm256_loadu_ps(c)) : t[i]);
                } else if (nr == 4) { /* R = 12's last rows */
                    __m128 v = _mm256_castps256_ps128(t[i]);
                    _mm_storeu_ps(c, add ? _mm_add_ps(v, _mm_loadu_ps(c)) : v);
                } else { /* slow on AMD: kept for odd row counts */
                    _mm256_maskstore_ps(c, keep, add ? _mm256_add_ps(t[i], _mm256_maskload_ps(c, keep)) : t[i]);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ few rows of A @ W^T */

/* M (1..4, a constant after inlining) rows of A against the 8 W rows at w (row stride ldw);
 * stores the M x 8 outputs into C. */
TN_AVX2 TN_INLINE void few_block(const int M, int64_t K, float alpha, const float *A, int64_t lda, const float *w,
                                 int64_t ldw, float beta, float *C, int64_t ldc) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    const float *a0 = A, *a1 = A + lda, *a2 = A + 2 * lda, *a3 = A + 3 * lda;
    int64_t k = 0;
    for (; k + 8 <= K; k += 8) {
        __m256 r[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(w + i * ldw + k);
        transpose8(r);
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k + i), r[i], acc0);
            if (M > 1) acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k + i), r[i], acc1);
            if (M > 2) acc2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k + i), r[i], acc2);
            if (M > 3) acc3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k + i), r[i], acc3);
        }
    }
    for (; k < K; k++) {
        __m256 r = _mm256_setr_ps(w[k], w[ldw + k], w[2 * ldw + k], w[3 * ldw + k], w[4 * ldw + k], w[5 * ldw + k],
                                  w[6 * ldw + k], w[7 * ldw + k]);
        acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), r, acc0);
        if (M > 1) acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k), r, acc1);
        if (M > 2) acc2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k), r, acc2);
        if (M > 3) acc3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k), r, acc3);
    }
    float t[4][8];
    _mm256_storeu_ps(t[0], acc0);
    if (M > 1) _mm256_storeu_ps(t[1], acc1);
    if (M > 2) _mm256_storeu_ps(t[2], acc2);
    if (M > 3) _mm256_storeu_ps(t[3], acc3);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < 8; j++) C[i * ldc + j] = tn_gemm_finish(t[i][j], alpha, beta, C[i * ldc + j]);
}

TN_AVX2 TN_INLINE void few_rows(const int M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                                const float *W, int64_t ldw, float beta, float *C, int64_t ldc) {
    int64_t j = 0;
    for (; j + 8 <= N; j += 8) few_block(M, K, alpha, A, lda, W + j * ldw, ldw, beta, C + j, ldc);
    for (; j < N; j++)
        for (int i = 0; i < M; i++) {
            float acc = 0;
            const float *a = A + i * lda, *w = W + j * ldw;
            for (int64_t k = 0; k < K; k++) acc = __builtin_fmaf(a[k], w[k], acc);
            C[i * ldc + j] = tn_gemm_finish(acc, alpha, beta, C[i * ldc + j]);
        }
}

TN_AVX2 void tn_gemm_avx2_nt_few(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                                 const float *W, int64_t ldw, float beta, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i += 4) {
        const float *a = A + i * lda;
        float *c = C + i * ldc;
        switch (M - i) {
        case 1: few_rows(1, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 2: few_rows(2, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        case 3: few_rows(3, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        default: few_rows(4, N, K, alpha, a, lda, W, ldw, beta, c, ldc); break;
        }
    }
}

/* ------------------------------------------------------------------ one row of A @ W^T */


/* 4 rows of W at a time, two 8-lane accumulators each. */
TN_AVX2 static void gemv16(int64_t N, int64_t K, float alpha, const float *a, const float *W, int64_t ldw, float beta,
                           float *c) {
    const int64_t kb = K / 16 * 16;
    for (int64_t j = 0; j < N; j += 4) {
        const int nr = N - j < 4 ? (int)(N - j) : 4;
        const float *w[4];
        for (int r = 0; r < 4; r++) w[r] = W + (j + (r < nr ? r : 0)) * ldw;
        __m256 l0 = _mm256_setzero_ps(), l1 = l0, l2 = l0, l3 = l0, h0 = l0, h1 = l0, h2 = l0, h3 = l0;
        const bool ahead = j + 8 <= N; /* fetch the next 4 rows meanwhile (DRAM-bound otherwise) */
        for (int64_t k = 0; k < kb; k += 16) {
            if (ahead)
                for (int r = 0; r < 4; r++) _mm_prefetch((const char *)(w[r] + 4 * ldw + k), _MM_HINT_T0);
            __m256 xl = _mm256_loadu_ps(a + k), xh = _mm256_loadu_ps(a + k + 8);
            l0 = _mm256_fmadd_ps(xl, _mm256_loadu_ps(w[0] + k), l0);
            h0 = _mm256_fmadd_ps(xh, _mm256_loadu_ps(w[0] + k + 8), h0);
            l1 = _mm256_fmadd_ps(xl, _mm256_loadu_ps(w[1] + k), l1);
            h1 = _mm256_fmadd_ps(xh, _mm256_loadu_ps(w[1] + k + 8), h1);
            l2 = _mm256_fmadd_ps(xl, _mm256_loadu_ps(w[2] + k), l2);
            h2 = _mm256_fmadd_ps(xh, _mm256_loadu_ps(w[2] + k + 8), h2);
            l3 = _mm256_fmadd_ps(xl, _mm256_loadu_ps(w[3] + k), l3);
            h3 = _mm256_fmadd_ps(xh, _mm256_loadu_ps(w[3] + k + 8), h3);
        }
        float s[4] = {tn_fold16_ymm(l0, h0), tn_fold16_ymm(l1, h1), tn_fold16_ymm(l2, h2), tn_fold16_ymm(l3, h3)};
        for (int r = 0; r < nr; r++) {
            for (int64_t k = kb; k < K; k++) s[r] = __builtin_fmaf(a[k], w[r][k], s[r]);
            c[j + r] = tn_gemm_finish(s[r], alpha, beta, c[j + r]);
        }
    }
}

/* Several rows: one gemv per row (16 ymm registers hold one row's 4 x 16 lanes). */
static void gemv_rows(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *W,
                      int64_t ldw, float beta, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++) gemv16(N, K, alpha, A + i * lda, W, ldw, beta, C + i * ldc);
}

const tn_gemm_isa tn_gemm_isa_avx2 = {
    .name = "avx2", .V = 16, .R = 6, .micro = micro16x6, .micro_rows = micro_rows, .pack_t = tn_gemm_avx2_pack_t,
    .nt_few = tn_gemm_avx2_nt_few, .gemv_rows = gemv_rows,
    .store_t = tn_gemm_avx2_store_t};

#endif
