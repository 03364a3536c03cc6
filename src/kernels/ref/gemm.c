/* gemm.c — reference GEMM: C = alpha * A @ B + beta * C with A (M,K), B (K,N), C (M,N), all
 * row-major with row strides lda, ldb (ldw), ldc in elements.
 *
 * Floating products are accumulated the way upstream's BLAS (MKL, measured on torch 2.13 CPU)
 * does for two or more rows and short k: for each output, a fused multiply-add chain over k in
 * order starting from 0, then combined once with C: alpha * acc + beta * C (beta == 0 overwrites
 * C, so NaNs in C do not propagate, as BLAS does). Measured: MKL's bits equal this chain up to
 * k = 65 with 4 rows, 129 with 8, 256 with 128 rows; past that it blocks k its own way, and for
 * one row (its gemv) it never matches, so larger products agree with upstream to float rounding,
 * not bit for bit. Past TN_GEMM_KC (256) k, the chain restarts from 0 for each chunk of 256 and
 * the chunks' sums are added in order, which keeps long products about as accurate as MKL's
 * (kernels/gemm.h). The i-k-j order over a block of at most JB columns keeps the inner
 * j loop vectorisable; the block's accumulators live on the stack. The "fma" clone (chosen at
 * load time on CPUs that have it) turns fma()/fmaf() into instructions; the default clone gets
 * the same results from libm. Integers accumulate exactly (wrapping). */
#include "kernels/gemm.h"

#include <math.h>

#define TN_GEMM_JB 256

#define TN_GEMM(NAME, T, FMA)                                                                  \
    __attribute__((target_clones("fma", "default")))                                           \
    void NAME(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *B,        \
              int64_t ldb, T beta, T *C, int64_t ldc) { \
        T acc[TN_GEMM_JB], part[TN_GEMM_JB];                                                   \
        for (int64_t j0 = 0; j0 < N; j0 += TN_GEMM_JB) {                                       \
            int64_t jn = N - j0 < TN_GEMM_JB ? N - j0 : TN_GEMM_JB;                            \
            for (int64_t i = 0; i < M; i++) {                                                  \
                T *restrict c = C + i * ldc + j0;                                                \
                const T *a = A + i * lda;                                                      \
                for (int64_t j = 0; j < jn; j++) acc[j] = 0;                                   \
                for (int64_t k0 = 0; k0 < K; k0 += TN_GEMM_KC) {                               \
                    int64_t k1 = K - k0 < TN_GEMM_KC ? K : k0 + TN_GEMM_KC;                    \
                    T *s = k0 ? part : acc;                                                    \
                    for (int64_t j = 0; j < jn && k0; j++) s[j] = 0;                           \
                    for (int64_t k = k0; k < k1; k++) {                                        \
                        const T av = a[k];                                                     \
                        const T *restrict b = B + k * ldb + j0;                                  \
                        for (int64_t j = 0; j < jn; j++) s[j] = FMA(av, b[j], s[j]);           \
                    }                                                                          \
                    for (int64_t j = 0; j < jn && k0; j++) acc[j] = acc[j] + s[j];             \
                }                                                                              \
                if (beta == 0) {                                                               \
                    if (alpha == 1) for (int64_t j = 0; j < jn; j++) c[j] = acc[j];            \
                    else for (int64_t j = 0; j < jn; j++) c[j] = alpha * acc[j];               \
                } else if (alpha == 1 && beta == 1) {                                          \
                    for (int64_t j = 0; j < jn; j++) c[j] = acc[j] + c[j];                     \
                } else {                                                                       \
                    for (int64_t j = 0; j < jn; j++) c[j] = alpha * acc[j] + beta * c[j];      \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

#define TN_IMAD(a, b, c) ((int64_t)((uint64_t)(c) + (uint64_t)(a) * (uint64_t)(b)))

TN_GEMM(tn_gemm_ref_f32, float, fmaf)
TN_GEMM(tn_gemm_f64, double, fma)
TN_GEMM(tn_gemm_i64, int64_t, TN_IMAD)

/* Complex products (helper-opb): A, B, C interleaved (re, im) pairs of R, strides in complex
 * elements; per output an accumulation over k in order in R (re += ar*br - ai*bi, im += ar*bi +
 * ai*br), then alpha * acc + beta * C with complex alpha, beta (beta == 0 overwrites C). Upstream's
 * MKL cgemm / zgemm sums in its own blocked order, so results agree to the summation-order bound,
 * not bit for bit. */
#define TN_GEMM_C(NAME, R)                                                                     \
    void NAME(int64_t M, int64_t N, int64_t K, const double alpha[2], const R *A, int64_t lda,    \
              const R *B, int64_t ldb, const double beta[2], R *C, int64_t ldc) {                 \
        R are = (R)alpha[0], aim = (R)alpha[1], bre = (R)beta[0], bim = (R)beta[1];            \
        R accr[TN_GEMM_JB], acci[TN_GEMM_JB];                                                  \
        for (int64_t j0 = 0; j0 < N; j0 += TN_GEMM_JB) {                                       \
            int64_t jn = N - j0 < TN_GEMM_JB ? N - j0 : TN_GEMM_JB;                            \
            for (int64_t i = 0; i < M; i++) {                                                  \
                R *restrict c = C + 2 * (i * ldc + j0);                                        \
                const R *a = A + 2 * i * lda;                                                  \
                for (int64_t j = 0; j < jn; j++) accr[j] = acci[j] = 0;                        \
                for (int64_t k = 0; k < K; k++) {                                              \
                    const R ar = a[2 * k], ai = a[2 * k + 1];                                  \
                    const R *restrict b = B + 2 * (k * ldb + j0);                              \
                    for (int64_t j = 0; j < jn; j++) {                                         \
                        accr[j] += ar * b[2 * j] - ai * b[2 * j + 1];                          \
                        acci[j] += ar * b[2 * j + 1] + ai * b[2 * j];                          \
                    }                                                                          \
                }                                                                              \
                for (int64_t j = 0; j < jn; j++) {                                             \
                    R xr = are * accr[j] - aim * acci[j], xi = are * acci[j] + aim * accr[j];  \
                    if (bre != 0 || bim != 0) {                                                \
                        R cr = c[2 * j], ci = c[2 * j + 1];                                    \
                        xr += bre * cr - bim * ci;                                             \
                        xi += bre * ci + bim * cr;                                             \
                    }                                                                          \
                    c[2 * j] = xr;                                                             \
                    c[2 * j + 1] = xi;                                                         \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }
TN_GEMM_C(tn_gemm_c64, float)
TN_GEMM_C(tn_gemm_c128, double)

/* The same products with B given transposed: W (N,K) contiguous, C = alpha * A @ W^T + beta*C
 * (nn.Linear's weight layout, no transposed copy). Each output is still one fused multiply-add
 * chain over k in order from 0, so results equal tn_gemm_* bit for bit; 16 outputs advance
 * together so the chains run in SIMD lanes. */
#define TN_GEMM_NT(NAME, T, FMA)                                                               \
    __attribute__((target_clones("fma", "default")))                                           \
    void NAME(int64_t M, int64_t N, int64_t K, T alpha, const T *A, int64_t lda, const T *W,        \
              int64_t ldw, T beta, T *C, int64_t ldc) { \
        for (int64_t i = 0; i < M; i++) {                                                      \
            const T *a = A + i * lda;                                                          \
            T *c = C + i * ldc;                                                                  \
            int64_t j = 0;                                                                     \
            for (; j + 16 <= N; j += 16) {                                                     \
                T acc[16] = {0};                                                               \
                const T *w = W + j * ldw;                                                      \
                for (int64_t k0 = 0; k0 < K; k0 += TN_GEMM_KC) {                               \
                    int64_t k1 = K - k0 < TN_GEMM_KC ? K : k0 + TN_GEMM_KC;                    \
                    T s[16] = {0};                                                             \
                    for (int64_t k = k0; k < k1; k++) {                                        \
                        const T av = a[k];                                                     \
                        for (int q = 0; q < 16; q++) s[q] = FMA(av, w[q * ldw + k], s[q]);     \
                    }                                                                          \
                    for (int q = 0; q < 16; q++) acc[q] = k0 ? acc[q] + s[q] : s[q];           \
                }                                                                              \
                for (int q = 0; q < 16; q++)                                                   \
                    c[j + q] = beta == 0 ? (alpha == 1 ? acc[q] : alpha * acc[q])              \
                             : (alpha == 1 && beta == 1) ? acc[q] + c[j + q]                   \
                             : alpha * acc[q] + beta * c[j + q];                               \
            }                                                                                  \
            for (; j < N; j++) {                                                               \
                T acc = 0;                                                                     \
                const T *w = W + j * ldw;                                                      \
                for (int64_t k0 = 0; k0 < K; k0 += TN_GEMM_KC) {                               \
                    int64_t k1 = K - k0 < TN_GEMM_KC ? K : k0 + TN_GEMM_KC;                    \
                    T s = 0;                                                                   \
                    for (int64_t k = k0; k < k1; k++) s = FMA(a[k], w[k], s);                  \
                    acc = k0 ? acc + s : s;                                                    \
                }                                                                              \
                c[j] = beta == 0 ? (alpha == 1 ? acc : alpha * acc)                            \
                     : (alpha == 1 && beta == 1) ? acc + c[j] : alpha * acc + beta * c[j];     \
            }                                                                                  \
        }                                                                                      \
    }

TN_GEMM_NT(tn_gemm_nt_ref_f32, float, fmaf)
TN_GEMM_NT(tn_gemm_nt_f64, double, fma)

/* One row times W^T (decode): c[j] = alpha * (a . W[j]) + beta * c[j] in a fixed lane order
 * that SIMD runs without transposes: 16 partial sums, lane l a fused multiply-add chain over
 * k = l, l+16, ... below K rounded down to 16; the lanes folded by halves (l + l+8, then +4,
 * +2, +1); the remaining k continue that chain in order. (Upstream's MKL matches neither this
 * nor the plain chain for one row, so no order is upstream's; this one is the fast one.) */
__attribute__((target_clones("fma", "default")))
void tn_gemv_nt_ref_f32(int64_t N, int64_t K, float alpha, const float *a, const float *W, int64_t ldw, float beta,
                        float *c) {
    const int64_t kb = K / 16 * 16;
    for (int64_t j = 0; j < N; j++) {
        const float *w = W + j * ldw;
        float acc[16] = {0};
        for (int64_t k = 0; k < kb; k += 16)
            for (int l = 0; l < 16; l++) acc[l] = fmaf(a[k + l], w[k + l], acc[l]);
        for (int h = 8; h >= 1; h /= 2)
            for (int l = 0; l < h; l++) acc[l] = acc[l] + acc[l + h];
        float s = acc[0];
        for (int64_t k = kb; k < K; k++) s = fmaf(a[k], w[k], s);
        c[j] = beta == 0 ? (alpha == 1 ? s : alpha * s) : (alpha == 1 && beta == 1) ? s + c[j] : alpha * s + beta * c[j];
    }
}
