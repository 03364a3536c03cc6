/* kernels/qlinear.h — quantized Linear (quantized::linear_dynamic / _fp16 / linear; ops/qlinear.c,
 * docs/quant_tensors.md), with the float steps of upstream's x86 engine (fbgemm), measured:
 *
 * int8 weights:
 *   - x's min / max as fbgemm's FindMinMax (eight AVX lanes over the first n/8*8 values, folded,
 *     then the tail; NaN handling of MINPS / std::min follows from that);
 *   - x quantized to uint8 as upstream's fbgemm quantizer (measured: the zero point is added in
 *     an FMA, as its QTensor quantizer): t = min(fmaf(x, 1.f / scale, zp), 2147483520.f), cvtps
 *     (round half to even; out of range: INT32_MIN), clamped to [0, 255]; its row sums are the
 *     row offsets;
 *   - the exact int32 product (VNNI hosts: no int16 saturation) and fbgemm's requantizeForFloat:
 *       raw = acc - a_zp * col_off[j] - row_off[i] * w_zp[j]       (wrapping int32)
 *       y   = fmaf((float)raw, a_scale * w_scale[j], bias[j])      (without bias: the product)
 *     (upstream's AVX2 build contracts the multiply and the bias add into one FMA);
 *   - relu variant: y = 0 > y ? 0 : y.
 * float16 weights (fbgemm's PackedGemmMatrixFP16): per output, K in blocks of 512, each block a
 * sequential fmaf chain from 0 over its k, the blocks' sums added in order; the bias is added
 * afterwards by the op.
 *
 * Kernels never allocate: the caller passes scratch (M rows of tn_qdyn_row_stride(K) bytes + M int32
 * row offsets). */
#ifndef TN_KERNELS_QLINEAR_H
#define TN_KERNELS_QLINEAR_H

#include <stdint.h>

void tn_qdyn_minmax(const float *x, int64_t n, float *mn, float *mx);

typedef struct {
    int64_t M, N, K;
    const float *x;            /* M rows of K floats, contiguous */
    float a_scale;             /* the activation's qparams (quant_utils' ChooseQuantizationParams) */
    int32_t a_zp;
    const int8_t *w;           /* N rows of K, contiguous */
    const int8_t *wp;          /* the same packed by tn_qdyn_pack, or NULL (the reference runs) */
    const int32_t *col_off;    /* N: sum_k w[j][k] - w_zp[j] * K */
    const float *w_scale;      /* N (per tensor: the one scale repeated) */
    const int32_t *w_zp;       /* N */
    const float *bias;         /* N or NULL */
    float *y;                  /* M rows of N */
    uint8_t *qx;               /* scratch: M rows of ldq bytes */
    int64_t ldq;               /* tn_qdyn_row_stride(K) */
    int32_t *row_off;          /* scratch: M */
    int relu;
    /* static (quantized::linear): xq, the quint8 input (M rows of K, contiguous), instead of x;
     * the output yq quint8, requantized as fbgemm's ReQuantizeOutput with a float bias:
     *   f = (float)raw + b,  b = per channel: bias[j] / atws[j]; per tensor: fmaf(bias[j], rcp, f)
     *       (upstream's build contracts this one; rcp = (float)(1.0 / atws[0]))
     *   q = CVTPS2DQ(f * mult[j]), saturated to int16, + out_zp saturated to int16, clamped to
     *       [relu ? out_zp : 0, 255]
     * with atws[j] = a_scale * w_scale[j] and mult[j] = atws[j] / (float)output_scale */
    const uint8_t *xq;
    uint8_t *yq;
    const float *atws, *mult;
    float rcp;
    int per_channel;
    int32_t out_zp;
} tn_qdyn_args;

/* y for the whole problem, columns shared over the thread pool; the integer products by the
 * reference or AVX-512 VNNI (exact either way; TN_QDYN=ref forces the reference) */
void tn_qdyn_linear(const tn_qdyn_args *a);
/* the integer products' variant in use: "ref" or "avx512vnni" */
const char *tn_qdyn_isa(void);
/* bytes of the weights packed for the variant in use (0: the reference reads them unpacked),
 * and the packing (N rows of K int8 into out) */
int64_t tn_qdyn_packed_bytes(int64_t N, int64_t K);
void tn_qdyn_pack(const int8_t *w, int64_t N, int64_t K, int8_t *out);
/* fbgemm's column offsets: col_off[j] = sum_k w[j][k] - w_zp[j] * K (wrapping int32) */
void tn_qdyn_col_offsets(const int8_t *w, int64_t N, int64_t K, const int32_t *w_zp, int32_t *col_off);
/* float16 weights: upstream's in-place saturation of a contiguous float weight (beyond +-65504,
 * NaN kept), and fbgemm's packing rounding (beyond +-65504 saturates, NaN becomes -65504, the rest
 * to the nearest float16, ties to even, subnormals kept), over n values */
void tn_qdyn_saturate_f16(float *w, int64_t n);
void tn_qdyn_round_f16(float *w, int64_t n);
/* the activation rows' stride in the scratch (K, or K rounded up to 4 for the packed kernel) */
int64_t tn_qdyn_row_stride(int64_t K);

/* y[M][N] = x[M][K] . w16[N][K]^T, w16 the float16 weights widened to float (as stored, N rows of
 * K), blocks of 512 as above; columns shared over the thread pool. wp: the same packed by
 * tn_qdyn_fp16_pack for the AVX-512 variant (16 outputs' chains side by side in one register:
 * the same fused multiply-adds in the same order, so the reference's bits), or NULL */
void tn_qdyn_linear_fp16(int64_t M, int64_t N, int64_t K, const float *x, const float *w16, const float *wp, float *y);
/* floats of the packed copy for the variant in use (0: the reference reads w16 as stored) */
int64_t tn_qdyn_fp16_packed_floats(int64_t N, int64_t K);
void tn_qdyn_fp16_pack(const float *w16, int64_t N, int64_t K, float *out);

#endif
