/* kernels/quant.h — GGUF block formats for Linear weights (torchnative.quant, docs/quant.md).
 *
 * Formats (ggml's byte layouts, 32 values per block, f16 = IEEE half, little endian):
 *   Q8_0  34 bytes: f16 d, int8 q[32]                 x = d*q
 *   Q4_0  18 bytes: f16 d, u8 q[16] (low nibbles hold  x = d*(q-8); values 0..15 low, 16..31 high
 *                   values 0..15, high nibbles 16..31)
 *   Q4_1  20 bytes: f16 d, f16 m, u8 q[16]            x = d*q + m
 *   Q8_1  36 bytes: f16 d, f16 s, int8 q[32]          (activations only; s = f16(d*sum q))
 *   k-quants, super-blocks of 256 values (ggml's layouts):
 *   Q4_K 144 bytes: f16 d, f16 dmin, u8 scales[12] (eight 6-bit scales sc and mins m), u8 qs[128]
 *                   (per 64 values: 32 bytes, low nibbles values 0..31, high nibbles 32..63)
 *                   x = (d*sc_j)*q - dmin*m_j for sub-block j of 32 values
 *   Q5_K 176 bytes: f16 d, f16 dmin, u8 scales[12] (as Q4_K), u8 qh[32] (bit j of qh[l]: the fifth bit
 *                   of value 32j + l), u8 qs[128] (low 4 bits, as Q4_K's nibbles)
 *                   x = (d*sc_j)*q - dmin*m_j for sub-block j of 32 values, q in 0..31
 *   Q2_K  84 bytes: u8 scales[16] (low nibble sc_g, high nibble m_g), u8 qs[64] (2 bits: value
 *                   128h + 32k + l in bits 2k of qs[32h + l]), f16 d, f16 dmin
 *                   x = (d*sc_g)*q - dmin*m_g for group g of 16 values, q in 0..3
 *   Q3_K 110 bytes: u8 hmask[32] (bit k of hmask[l]: the high bit of value 32k + l), u8 qs[64] (low 2
 *                   bits: value 128h + 32k + l in bits 2k of qs[32h + l]), u8 scales[12] (sixteen 6-bit
 *                   scales: low 4 bits in nibbles of bytes 0..7, high 2 bits in bytes 8..11), f16 d
 *                   x = (d*(sc_g-32))*(q-4) for group g of 16 values, q in 0..7
 *   Q6_K 210 bytes: u8 ql[128] (low 4 bits), u8 qh[64] (high 2 bits), int8 scales[16], f16 d
 *                   x = (d*sc_g)*(q-32) for group g of 16 values
 *   Q8_K 292 bytes: f32 d, int8 q[256], int16 bsums[16]  (activations only)
 * Quantisation is ggml's reference (quantize_row_*_ref; the bytes of the gguf Python package for
 * Q8_0/Q4_0/Q4_1; for the k-quants, which gguf only dequantises, the bytes of ggml's C).
 *
 * The product y = x @ W^T quantises each row of x as ggml's vec_dot path does (Q8_0 for Q8_0 and
 * Q4_0 weights, Q8_1 for Q4_1), then per output and block b, in block order, without fused
 * multiply-adds (ggml's generic vec_dot formulas):
 *   Q8_0, Q4_0: acc += (float)sumi_b * (dw_b * da_b)
 *   Q4_1:       acc += (dw_b * da_b) * (float)sumi_b + mw_b * sa_b
 * with sumi_b the exact integer dot product of the block's quants (Q4_0: q-8; Q4_1: q), summed
 * in eight lanes (tn_qrow_fn below). Every ISA variant (AVX2, AVX-512 VNNI) returns the
 * reference's bits. TN_QUANT=ref|avx2 forces a variant. Kernels never allocate: the caller
 * passes scratch of tn_quant_linear_scratch() bytes. */
#ifndef TN_KERNELS_QUANT_H
#define TN_KERNELS_QUANT_H

#include <stddef.h>
#include <stdint.h>

typedef enum { TN_Q8_0, TN_Q4_0, TN_Q4_1, TN_Q8_1, TN_Q4_K, TN_Q6_K, TN_Q8_K, TN_Q5_K, TN_Q3_K, TN_Q2_K, TN_QFMT_COUNT } tn_qfmt;

#define TN_QK 32
#define TN_QKK 256 /* values of a k-quant super-block */

/* Bytes of one block; -1 for an unknown format. */
int tn_quant_block_bytes(tn_qfmt f);
/* Values of one block: 32, or 256 for the k-quants (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K). */
int tn_quant_block_values(tn_qfmt f);
/* The format named `name` ("q8_0", "q4_0", "q4_1", "q8_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k"), or
 * -1. */
int tn_quant_fmt_parse(const char *name);
const char *tn_quant_fmt_name(tn_qfmt f);

/* k values (a multiple of 32) of x into k/32 blocks at y; and back. */
void tn_quant_row(tn_qfmt f, const float *x, uint8_t *y, int64_t k);
void tn_dequant_row(tn_qfmt f, const uint8_t *x, float *y, int64_t k);

/* One row of activations, quantised for the product (Q8_0, Q8_1 or Q8_K as in ggml), held split:
 * q[k] int8, and per block the f16-rounded scale d, the f16-rounded s (Q8_1; else 0) and the
 * integer sum of the block's quants. Q8_K (for the k-quant weights): d per super-block (f32,
 * ggml's 1/iscale), s unused, sum per 16 values (ggml's bsums). */
typedef struct {
    int8_t *q;
    float *d, *s;
    int32_t *sum;
} tn_qact;

/* One output: the dot product of one weight row (nb blocks of format f) with one activation row.
 * k-quants (nb super-blocks), per super-block i, in order, one float sum (no lanes):
 *   Q4_K, Q5_K: acc += (dw_i*da_i)*(float)isum_i - (dmin_i*da_i)*(float)msum_i,
 *         isum_i = sum_j sc_j * sum_l q*a (exact), msum_i = sum_j m_j * (bsum_2j + bsum_2j+1)
 *   Q6_K: acc += (dw_i*da_i)*(float)isum_i,  isum_i = sum_g sc_g * sum_l (q-32)*a (exact)
 *   Q2_K: as Q4_K with groups g of 16: isum_i = sum_g sc_g * sum_l q*a, msum_i = sum_g m_g * bsum_g
 *   Q3_K: acc += (dw_i*da_i)*(float)isum_i,  isum_i = sum_g (sc_g-32) * sum_l (q-4)*a (exact)
 * Per block b, sumi_b is the exact integer sum (w_j = q for Q8_0 and Q4_1, q-8 for Q4_0), and
 *   p_b = (float)sumi_b * (dw_b * da_b)                    Q8_0, Q4_0
 *   p_b = (dw_b * da_b) * (float)sumi_b + mw_b * sa_b      Q4_1
 * (ggml's generic per-block formulas, no fused multiply-add). The p_b go to eight lane sums,
 * lane b % 8 in block order; the result is ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7)). Integer sums
 * are exact and the float steps are the same IEEE operations in every variant, so every variant
 * returns the reference's bits. */
typedef float (*tn_qrow_fn)(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb);
float tn_qrow_ref(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb);
#if defined(__x86_64__)
float tn_qrow_avx2(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb);
float tn_qrow_avx512vnni(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb);
#endif
/* Eight consecutive weight rows (row stride rowbytes) with one activation row: out[r] is exactly
 * tn_qrow_fn's result for row r (the same float steps per row; one activation block load serves
 * the eight rows). Returns 0, computing nothing, for formats the variant does not batch. */
typedef int (*tn_qrows8_fn)(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int64_t nb, float *out);
#if defined(__x86_64__)
int tn_qrows8_avx2(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int64_t nb, float *out);
int tn_qrows8_avx512vnni(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int64_t nb, float *out);
#endif
/* Up to TN_QTILE_M activation rows a[0..mt-1] by eight consecutive weight rows (row stride
 * rowbytes): out[m * ldo + r] is exactly tn_qrow_fn's result for a[m] and row r (the same float
 * steps per output). For prefill: each weight block is loaded (and rearranged) once for the mt
 * activation rows. Returns 0, computing nothing, for formats the variant does not tile. */
#define TN_QTILE_M 8
typedef int (*tn_qtile_fn)(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int mt, int64_t nb,
                           float *out, int64_t ldo);
#if defined(__x86_64__)
int tn_qtile_avx2(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int mt, int64_t nb, float *out,
                  int64_t ldo);
int tn_qtile_avx512vnni(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int mt, int64_t nb,
                        float *out, int64_t ldo);
#endif
/* One activation row of nb blocks (x: nb * 32 floats) quantised as Q8_0 or Q8_1 (af) into o,
 * the bits of the reference's tn_quant_row; returns 0 (o's contents then unspecified) for a row
 * holding a NaN, which the caller quantises with the reference. */
typedef int (*tn_qact8_fn)(tn_qfmt af, const float *x, int64_t nb, const tn_qact *o);
#if defined(__x86_64__)
int tn_qact8_avx2(tn_qfmt af, const float *x, int64_t nb, const tn_qact *o);
int tn_qact8_avx512vnni(tn_qfmt af, const float *x, int64_t nb, const tn_qact *o);
#endif
/* The variant in use: "ref", "avx2" or "avx512vnni". */
const char *tn_quant_isa(void);

size_t tn_quant_linear_scratch(tn_qfmt f, int64_t M, int64_t K);
/* y[m*ldy + n] = sum over blocks (formula above) (+ bias[n]) for m < M, n < N; x rows contiguous
 * of K floats (row stride ldx), W N rows of K/32 blocks each, contiguous. K % 32 == 0. Runs over
 * the thread pool. */
void tn_quant_linear(tn_qfmt f, int64_t M, int64_t N, int64_t K, const float *x, int64_t ldx, const uint8_t *W,
                     const float *bias, float *y, int64_t ldy, void *scratch);

#endif
