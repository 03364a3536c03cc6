/* gemm.c — reference GEMM: i-k-j loops over a row block so the inner j loop vectorises.
 * // A is (M,K), B is (K,N), C is (M,N), all contiguous row-major.
 * beta == 0 overwrites C (NaNs in C do not propagate), as BLAS does. */
#include "kernels/gemm.h"

#define TN_GEMM(NAME, T)                                                                      \
    void NAME(int64_t M, int64_t N, int64_t K, T alpha, const T *A, const T *B, T beta, T *C) { \
        for (int64_t i = 0; i < M; i++) {                                                     \
            T *c = C + i * N;                                                                 \
            if (beta == 0) for (int64_t j = 0; j < N; j++) c[j] = 0;                          \
            else if (beta != 1) for (int64_t j = 0; j < N; j++) c[j] *= beta;                 \
        }                                                                                     \
        const int64_t JB = 512;                                                               \
        for (int64_t j0 = 0; j0 < N; j0 += JB) {                                              \
            int64_t j1 = j0 + JB < N ? j0 + JB : N;                                           \
            for (int64_t i = 0; i < M; i++) {                                                 \
                T *restrict c = C + i * N;                                                    \
                const T *a = A + i * K;                                                       \
                for (int64_t k = 0; k < K; k++) {                                             \
                    T av = alpha * a[k];                                                      \
                    const T *restrict b = B + k * N;                                          \
                    for (int64_t j = j0; j < j1; j++) c[j] += av * b[j];                      \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
    }

TN_GEMM(tn_gemm_f32, float)
TN_GEMM(tn_gemm_f64, double)
TN_GEMM(tn_gemm_i64, int64_t)
