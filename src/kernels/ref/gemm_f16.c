/* ref/gemm_f16.c — the portable reference of the f16 products (kernels/gemm_lp.h), in the orders
 * of kernels/gemm_lp_isa.h: "chain" (one fused multiply-add chain over k in order on the exactly
 * widened values) and "lane order" for few-row A @ W^T. Plain loops, no allocation. */
#include "kernels/gemm_lp.h"
#include "kernels/gemm_lp_isa.h"

__attribute__((target_clones("fma", "default")))
void tn_gemm_f16_ref(bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                     const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            const uint16_t *a = A + i * lda;
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++)
                acc = fmaf(tn_f16_to_f32(a[k]), tn_f16_to_f32(nt ? B[j * ldb + k] : B[k * ldb + j]), acc);
            C[i * ldc + j] = tn_lp_close(false, acc, alpha, beta, C + i * ldc + j);
        }
}

__attribute__((target_clones("fma", "default")))
void tn_gemv_f16_ref(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                     const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc) {
    const int64_t kb = K / 16 * 16;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            const uint16_t *a = A + i * lda, *w = W + j * ldw;
            float acc[16] = {0};
            for (int64_t k = 0; k < kb; k++) acc[k % 16] = fmaf(tn_f16_to_f32(a[k]), tn_f16_to_f32(w[k]), acc[k % 16]);
            float s = tn_lp_fold16(acc);
            for (int64_t k = kb; k < K; k++) s = fmaf(tn_f16_to_f32(a[k]), tn_f16_to_f32(w[k]), s);
            C[i * ldc + j] = tn_lp_close(false, s, alpha, beta, C + i * ldc + j);
        }
}
