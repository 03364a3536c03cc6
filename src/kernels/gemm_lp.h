/* gemm_lp.h — bf16 and f16 matrix products with f32 accumulation, computed on the 16-bit data in
 * place (no widened copy of either operand): C = round(alpha * A @ op(B) + beta * C), rounded
 * once to the output dtype with round-to-nearest-even, as upstream 2.13 (oneDNN / its f16 gemm)
 * does (measured: docs/gemm_bf16.md).
 *
 * A is (M,K) row stride lda; op(B) is B (K,N) with row stride ldb, or with nt W^T for W (N,K)
 * with row stride ldb (nn.Linear's layout); C (M,N) row stride ldc; last dims contiguous. C is read
 * only when beta != 0. Every output's sum follows one fixed order (kernels/gemm_lp_isa.h), so the
 * run-time chosen variants (AVX-512 BF16, AVX2 widening in registers, the portable reference,
 * forced with TN_GEMM=ref|avx2) return the same bits, whatever the thread count. The scratch buffer
 * is caller-allocated, at least tn_gemm_lp_scratch(...) bytes (NULL when that is 0). */
#ifndef TN_KERNELS_GEMM_LP_H
#define TN_KERNELS_GEMM_LP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { TN_LP_BF16 = 0, TN_LP_F16 = 1 } tn_lp_type;

size_t tn_gemm_lp_scratch(tn_lp_type t, bool nt, int64_t M, int64_t N, int64_t K);
void tn_gemm_lp(tn_lp_type t, bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc, void *scratch);
/* The name of the variant in use for t ("avx512bf16", "avx2", "ref"). */
const char *tn_gemm_lp_variant(tn_lp_type t);

/* The portable reference (kernels/ref/gemm_bf16.c, gemm_f16.c): every output in the chain order. */
void tn_gemm_bf16_ref(bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                      const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc);
void tn_gemm_f16_ref(bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                     const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc);
/* M rows of A @ W^T, each output in the lane order (few-row products and decode). */
void tn_gemv_bf16_ref(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                      const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc);
void tn_gemv_f16_ref(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                     const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc);

#endif
