/* gemm.h — matrix multiply kernels: C[M,N] = beta*C + alpha * A[M,K] @ B[K,N], row-major
 * with row strides lda, ldb, ldc (in elements; the last dimension is contiguous). Plain C, no
 * allocation, no Python. f32 accumulates in f32 with a fused multiply-add chain in k order per
 * output (as upstream's BLAS for short k), restarted from 0 every TN_GEMM_KC k and the chunks'
 * sums added in order (long k: about upstream's MKL accuracy instead of a K-long chain's), then
 * alpha*acc + beta*C; f64 likewise in f64; i64 exactly in i64 (wrapping).
 *
 * The f32 entry points pick a register-blocked kernel for the CPU at run time (kernels/gemm.c);
 * every variant gives the reference kernel's results bit for bit. They take a scratch buffer of
 * at least tn_gemm_*_scratch(M, N, K) bytes (may be NULL when that is 0), allocated by the
 * caller. */
#ifndef TN_KERNELS_GEMM_H
#define TN_KERNELS_GEMM_H

#include <stddef.h>
#include <stdint.h>

/* k chunk of the floating chains. Measured (2026-12-04, float32, random normal operands, rms
 * error against float64): 16 x 32768 @ 32768 x 32 one chain 6.1e-4, chunks of 256 6.3e-5,
 * upstream (MKL) 6.5e-5; 16 x 8192 @ 8192 x 32: 1.4e-4, 2.8e-5, 2.6e-5; 64 x 4096 @ 4096 x 64:
 * 7.4e-5, 1.9e-5, 1.7e-5. Products with k <= 256 are one chain, as MKL's (kernels/ref/gemm.c). */
#define TN_GEMM_KC 256

size_t tn_gemm_f32_scratch(int64_t M, int64_t N, int64_t K);
void tn_gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                 const float *B, int64_t ldb, float beta, float *C, int64_t ldc, float *scratch);
/* C = A @ B with B already in the blocked kernel's packed layout: panels of V = tn_gemm_f32_panel()
 * columns, panel j holding columns [jV, jV+V) as K rows of V floats (k-major, zero padded past N),
 * the panels one after another. Same results as tn_gemm_f32 with alpha 1, beta 0. Only when
 * tn_gemm_f32_panel() is not 0 (a blocked kernel exists for this CPU). */
int tn_gemm_f32_panel(void);
/* B (K x N, row stride ldb) into that layout (dst: K * N rounded up to V floats) */
void tn_gemm_f32_pack_b(int64_t N, int64_t K, const float *B, int64_t ldb, float *dst);
void tn_gemm_f32_packed(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc);
void tn_gemm_f64(int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t lda,
                 const double *B, int64_t ldb, double beta, double *C, int64_t ldc);
void tn_gemm_i64(int64_t M, int64_t N, int64_t K, int64_t alpha, const int64_t *A, int64_t lda,
                 const int64_t *B, int64_t ldb, int64_t beta, int64_t *C, int64_t ldc);
/* complex64 / complex128: interleaved (re, im), strides in complex elements, alpha / beta as
 * (re, im) pairs; accumulates in the real type, k in order (kernels/ref/gemm.c) */
void tn_gemm_c64(int64_t M, int64_t N, int64_t K, const double alpha[2], const float *A, int64_t lda,
                 const float *B, int64_t ldb, const double beta[2], float *C, int64_t ldc);
void tn_gemm_c128(int64_t M, int64_t N, int64_t K, const double alpha[2], const double *A, int64_t lda,
                  const double *B, int64_t ldb, const double beta[2], double *C, int64_t ldc);

/* B given transposed: W is (N,K) with row stride ldw and C = alpha * A @ W^T + beta*C, bit-identical to
 * tn_gemm_* on the transposed copy (same per-output FMA chain), except for one row, or fewer
 * than 8 rows with K > 64, where each row sums in 16 lanes (tn_gemv_nt_ref_f32's order). */
size_t tn_gemm_nt_f32_scratch(int64_t M, int64_t N, int64_t K);
void tn_gemm_nt_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                    const float *W, int64_t ldw, float beta, float *C, int64_t ldc, float *scratch);
void tn_gemm_nt_f64(int64_t M, int64_t N, int64_t K, double alpha, const double *A, int64_t lda,
                    const double *W, int64_t ldw, double beta, double *C, int64_t ldc);

/* The portable reference kernels (kernels/ref/gemm.c), which every variant reproduces. */
void tn_gemm_ref_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc);
void tn_gemm_nt_ref_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                        const float *W, int64_t ldw, float beta, float *C, int64_t ldc);
/* One row of A @ W^T in the lane-blocked order, see kernels/ref/gemm.c. */
void tn_gemv_nt_ref_f32(int64_t N, int64_t K, float alpha, const float *a, const float *W, int64_t ldw, float beta,
                        float *c);

#endif
