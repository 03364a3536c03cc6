/* gemm_lp_isa.h — the summation orders of the bf16 / f16 products and what an instruction-set
 * variant supplies to the driver in kernels/gemm_lp.c. Private to src/kernels.
 *
 * Orders (every variant reproduces them bit for bit; the reference in kernels/ref/ spells them out):
 *
 * bf16 "pair chain" (products with 8 or more rows of A, and every A @ B): one f32 accumulator per
 *   output, starting at +0, walks k in pairs (k, k+1) = (2p, 2p+1), p = 0 .. ceil(K/2)-1, a missing
 *   k+1 (odd K) being a zero in both operands; per pair
 *       acc = ftz(fma(daz(a[k+1]), daz(b[k+1]), acc));  acc = ftz(fma(daz(a[k]), daz(b[k]), acc))
 *   — the odd element first — where daz turns a denormal input into a signed zero and ftz a
 *   denormal result into a signed zero. This is exactly what AVX-512 BF16's vdpbf16ps does to one
 *   f32 lane (Intel SDM: two fused steps, odd element first, DAZ in, FTZ out, round to nearest
 *   even, MXCSR ignored), so that instruction runs the order natively; the other variants widen in
 *   registers and run the same two fused multiply-adds with MXCSR.DAZ|FTZ set around their dot loop.
 * bf16 "lane order" (A @ W^T with fewer than 8 rows: decode): 16 lanes; lane l runs the pair chain
 *   over the pairs p = l, l+16, l+32, ... up to ceil(K/32)*16 pairs (pairs past K are zeros in both
 *   operands); then the lanes fold by halves in plain f32 adds: l + l+8, then + l+4, + l+2, + l+1.
 * f16 "chain": a plain fused multiply-add chain over k in order from +0 (the f32 GEMM's order) on
 *   the exactly widened values. f16 "lane order" (fewer than 8 rows of A @ W^T): 16 lanes, lane l a
 *   chain over k = l, l+16, ... below K rounded down to 16, folded as above, the remaining k
 *   continuing that chain in order (tn_gemv_nt_ref_f32's order).
 * Closing step, every order: out = round(tn_gemm_finish(acc, alpha, beta, widen(C))) with one
 *   round-to-nearest-even to the output type (tn_f32_to_bf16 / tn_f32_to_f16), outside DAZ/FTZ.
 *
 * Packed panels: bf16 pairs interleaved, [ceil(K/2)][V lanes][2]; f16 k-major [K][V]; zero padded.
 * The packed operand is op(B)'s columns (W's rows for A @ W^T), the broadcast rows are A's, so a
 * tile row is a run of one output row. */
#ifndef TN_KERNELS_GEMM_LP_ISA_H
#define TN_KERNELS_GEMM_LP_ISA_H

#include "core/dtype.h"
#include "kernels/gemm_isa.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *name;
    int V, R; /* lanes of the packed operand, broadcast rows */
    /* tile[r][l] = the chain over k of q[r][k] * p[k][l] for R rows q (row r at q + r*ldq) and the
     * packed panel p */
    void (*micro)(int64_t K, const uint16_t *q, int64_t ldq, const uint16_t *p, float *tile /* [R][V] */);
    /* c[l] = closing step of acc[l] for l < n (n <= V), a row of outputs */
    void (*close_row)(const float *acc, int n, float alpha, float beta, uint16_t *c);
    /* bf16: rows [0, n) of src (k contiguous, row stride ld) into packed panels, for even K and
     * ld only; NULL: the driver's C */
    void (*pack_rows)(int64_t n, int64_t K, const uint16_t *src, int64_t ld, int V, uint16_t *dst);
    /* M (< 8) rows of A @ W^T in the lane order, closing step included */
    void (*gemv_rows)(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                      const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc);
} tn_gemm_lp_isa;

#if defined(__x86_64__)
/* bf16 pairs packed as the f32 driver packs floats: 32-bit moves only. */
void tn_bf16_pack_rows_avx2(int64_t n, int64_t K, const uint16_t *src, int64_t ld, int V, uint16_t *dst);
extern const tn_gemm_lp_isa tn_bf16_gemm_avx512bf16, tn_bf16_gemm_avx2, tn_f16_gemm_avx2;
/* f16 on AVX-512F hosts: tn_f16_gemm_avx2 with this gemv_rows (kernels/x86/f16-gemm-avx512.c) */
void tn_f16_gemv_rows_avx512(int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                             const uint16_t *W, int64_t ldw, float beta, uint16_t *C, int64_t ldc);
#endif

static inline float tn_lp_zero_denormal(float x) { return fabsf(x) < FLT_MIN ? copysignf(0.0f, x) : x; }

/* One pair step of the bf16 chain; pairs hold element k in the low and k+1 in the high 16 bits. */
static inline float tn_bf16_dot2(float acc, uint32_t a, uint32_t b) {
    float a1 = tn_lp_zero_denormal(tn_bf16_to_f32((uint16_t)(a >> 16)));
    float b1 = tn_lp_zero_denormal(tn_bf16_to_f32((uint16_t)(b >> 16)));
    float a0 = tn_lp_zero_denormal(tn_bf16_to_f32((uint16_t)a));
    float b0 = tn_lp_zero_denormal(tn_bf16_to_f32((uint16_t)b));
    acc = tn_lp_zero_denormal(fmaf(a1, b1, acc));
    return tn_lp_zero_denormal(fmaf(a0, b0, acc));
}

static inline uint16_t tn_lp_close(bool bf16, float acc, float alpha, float beta, const uint16_t *c) {
    float cv = beta == 0 ? 0.0f : bf16 ? tn_bf16_to_f32(*c) : tn_f16_to_f32(*c);
    float r = tn_gemm_finish(acc, alpha, beta, cv);
    return bf16 ? tn_f32_to_bf16(r) : tn_f32_to_f16(r);
}

/* Lane folding of the lane order. */
static inline float tn_lp_fold16(float acc[16]) {
    for (int h = 8; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) acc[l] = acc[l] + acc[l + h];
    return acc[0];
}

#endif
