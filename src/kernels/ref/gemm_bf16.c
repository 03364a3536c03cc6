/* ref/gemm_bf16.c — the portable reference of the bf16 products (kernels/gemm_lp.h): every
 * output in the orders stated in kernels/gemm_lp_isa.h ("pair chain": the pairing, odd element
 * first, DAZ/FTZ of AVX-512 BF16's vdpbf16ps, spelled out in C so that instruction and the
 * widening variants return these bits; "lane order" for few-row A @ W^T). Plain loops, no
 * allocation. */
#include "kernels/gemm_lp.h"
#include "kernels/gemm_lp_isa.h"

/* The pair (x[k], x[k+1]) of a row with stride 1, the missing k+1 of an odd K a zero. */
static inline uint32_t pair_row(const uint16_t *x, int64_t k, int64_t K) {
    return (uint32_t)x[k] | (k + 1 < K ? (uint32_t)x[k + 1] << 16 : 0u);
}

/* The pair (B[k][j], B[k+1][j]) of a column. */
static inline uint32_t pair_col(const uint16_t *B, int64_t ldb, int64_t j, int64_t k, int64_t K) {
    return (uint32_t)B[k * ldb + j] | (k + 1 < K ? (uint32_t)B[(k + 1) * ldb + j] << 16 : 0u);
}

__attribute__((target_clones("fma", "default")))
void tn_gemm_bf16_ref(bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                      const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            const uint16_t *a = A + i * lda;
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k += 2)
                acc = tn_bf16_dot2(acc, pair_row(a, k, K), nt ? pair_row(B + j * ldb, k, K) : pair_col(B, ldb, j, k, K));
            C[i * ldc + j] = tn_lp_close(true, acc, alpha, beta, C + i * ldc + j);
        }
}

__attribute__((target_clones("fma", "default")))
void tn_gemv_bf16_ref(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                      const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t pairs = (K + 31) / 32 * 16;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            const uint16_t *a = A + i * lda, *w = W + j * ldw;
            float acc[16] = {0};
            for (int64_t p = 0; p < pairs; p++) {
                int64_t k = 2 * p;
                uint32_t ap = k < K ? pair_row(a, k, K) : 0u, wp = k < K ? pair_row(w, k, K) : 0u;
                acc[p % 16] = tn_bf16_dot2(acc[p % 16], ap, wp);
            }
            C[i * ldc + j] = tn_lp_close(true, tn_lp_fold16(acc), alpha, beta, C + i * ldc + j);
        }
}
