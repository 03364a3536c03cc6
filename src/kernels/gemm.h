/* gemm.h — matrix multiply kernels: C[M,N] = beta*C + alpha * A[M,K] @ B[K,N], all contiguous
 * row-major. Plain C, no allocation, no Python. f32 accumulates in f32 with a fused
 * multiply-add chain in k order per output (as upstream's BLAS), then alpha*acc + beta*C; f64
 * likewise in f64; i64 exactly in i64 (wrapping). */
#ifndef TN_KERNELS_GEMM_H
#define TN_KERNELS_GEMM_H

#include <stdint.h>

void tn_gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, const float *B,
                 float beta, float *C);
void tn_gemm_f64(int64_t M, int64_t N, int64_t K, double alpha, const double *A, const double *B,
                 double beta, double *C);
void tn_gemm_i64(int64_t M, int64_t N, int64_t K, int64_t alpha, const int64_t *A, const int64_t *B,
                 int64_t beta, int64_t *C);

/* B given transposed: W is (N,K) contiguous and C = alpha * A @ W^T + beta*C, bit-identical to
 * tn_gemm_* on the transposed copy (same per-output FMA chain). */
void tn_gemm_nt_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, const float *W,
                    float beta, float *C);
void tn_gemm_nt_f64(int64_t M, int64_t N, int64_t K, double alpha, const double *A, const double *W,
                    double beta, double *C);

#endif
