/* gemm_isa.h — what an instruction-set variant supplies to the blocked f32 GEMM driver in
 * kernels/gemm.c. Private to src/kernels.
 *
 * One microkernel shape serves both layouts: `micro` computes a tile
 *     tile[r][l] = sum over k, in order, of q[r][k] * p[k][l]     (one FMA chain per element)
 * (with acc, tile[r][l] + that chain's sum: the driver calls it once per k chunk of TN_GEMM_KC,
 * kernels/gemm.h)
 * for R broadcast rows q (row r at q + r*ldq, k contiguous) and a packed panel p of V lanes
 * (V floats per k). For A @ W^T (nn.Linear) p holds V rows of A and q is R rows of W; for
 * A @ B p holds V columns of B and q is R rows of A. */
#ifndef TN_KERNELS_GEMM_ISA_H
#define TN_KERNELS_GEMM_ISA_H

#include <stdint.h>

typedef struct {
    const char *name;
    int V, R; /* lanes of the packed operand, broadcast rows */
    /* acc: the chain (from 0) is added to the tile's values (the sums of earlier k chunks);
     * tile row r at tile + r*ldt (a tile buffer, or C itself) */
    void (*micro)(int64_t K, const float *q, int64_t ldq, const float *p, float *tile, int64_t ldt, int acc);
    /* the same for 1 <= rows < R broadcast rows (only those rows are read and written) */
    void (*micro_rows)(int rows, int64_t K, const float *q, int64_t ldq, const float *p, float *tile, int64_t ldt,
                       int acc);
    /* rows [0, n) of src (row i at src + i*ld, k contiguous) into V-lane k-major panels,
     * zero padded to a multiple of V */
    void (*pack_t)(int64_t n, int64_t K, const float *src, int64_t ld, int V, float *dst);
    /* C = alpha * A @ W^T + beta*C for a few rows of A (no packing), in-order chains */
    void (*nt_few)(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *W,
                   int64_t ldw, float beta, float *C, int64_t ldc);
    /* C[l][r] = tile[r][l] for r < rows, l < cols (the nt tile store with alpha 1, beta 0), or
     * with add C[l][r] = tile[r][l] + C[l][r] (alpha 1, beta 1); tile rows up to R + 7 may be
     * read (the caller pads the buffer). NULL: scalar. */
    void (*store_t)(const float *tile, int V, int rows, int cols, float *C, int64_t ldc, int add);
    /* M rows of A @ W^T, each in tn_gemv_nt_ref_f32's order */
    void (*gemv_rows)(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *W,
                      int64_t ldw, float beta, float *C, int64_t ldc);
} tn_gemm_isa;

#if defined(__x86_64__)
extern const tn_gemm_isa tn_gemm_isa_avx2, tn_gemm_isa_avx512;
/* The AVX2 packing and few-row kernels, which the AVX-512 variant shares. */
void tn_gemm_avx2_pack_t(int64_t n, int64_t K, const float *src, int64_t ld, int V, float *dst);
void tn_gemm_avx2_store_t(const float *tile, int V, int rows, int cols, float *C, int64_t ldc, int add);
void tn_gemm_avx2_nt_few(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                         const float *W, int64_t ldw, float beta, float *C, int64_t ldc);
#endif

/* The reference's closing step, shared so every variant rounds identically. */
static inline float tn_gemm_finish(float acc, float alpha, float beta, float c) {
    if (beta == 0) return alpha == 1 ? acc : alpha * acc;
    if (alpha == 1 && beta == 1) return acc + c;
    return alpha * acc + beta * c;
}

#endif
