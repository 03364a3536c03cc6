/* fakequant.h — fake quantization (quantization-aware training) and quantized tensor kernels,
 * kernels/ref/fakequant.c.
 * Plain C: no Python, no allocation. Formulas and their rounding are upstream's scalar ones
 * (ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp,
 * ATen/native/quantized/cpu/quant_utils.h): nearbyint of x * (1.0f / scale) (round half to even),
 * the products in the same types as upstream's C++ (docs/quant_tensors.md). */
#ifndef TN_KERNELS_FAKEQUANT_H
#define TN_KERNELS_FAKEQUANT_H

#include "core/iter.h"
#include "core/dtype.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    float scale, inv_scale;
    int64_t zero_point, qmin, qmax;
    bool on;             /* fake_quant_enabled: off copies the input and sets the mask */
    float grad_factor;   /* learnable backward */
    tn_dtype zp_dtype;   /* per channel: i32, f32 or f16 zero points */
} tn_fq_params;

/* per tensor, operands {out, mask (bool), in}, out and in of dtype dt (f32 f64 f16 bf16) */
tn_loop tn_fq_tensor_loop(tn_dtype dt);
/* per channel, operands {out, mask, in, scale (f32), zero_point (zp_dtype)} */
tn_loop tn_fq_channel_loop(tn_dtype dt);
/* learnable backward, f32 operands {dX, dScale, dZeroPoint, X, dY} (per tensor: scalars in the
 * params) or {dX, dScale, dZeroPoint, X, dY, scale, zero_point (rounded, f32)} (per channel) */
void tn_fq_learnable_tensor_grad(char **data, const int64_t *strides, int64_t n, const void *ctx);
void tn_fq_learnable_channel_grad(char **data, const int64_t *strides, int64_t n, const void *ctx);

/* upstream's quant_utils::ChooseQuantizationParams (what _fused_moving_avg_obs_fq_helper and
 * _choose_qparams_per_tensor use, measured: the small-scale cut-off at 6.1e-5 shows): double scale,
 * reduce_range halving qmin / qmax, symmetric ranges for preserve_sparsity. false for the inputs it
 * refuses (min > max or NaN, qmin >= qmax). */
bool tn_fq_choose_qparams(float min, float max, int32_t qmin, int32_t qmax, bool preserve_sparsity,
                          bool reduce_range, double *scale, int32_t *zero_point);

/* choose_qparams_optimized's greedy search (upstream's QTensor.cpp, no FMA there): over the first
 * n floats of x, nudge [min, max] by (max - min) / n_bins while more than n_bins * (1 - ratio)
 * bins remain, keeping the pair of the smallest local L2 error of a bit_width-bit fake quantization
 * (xmin and the scale rounded through float16, as upstream's). */
void tn_fq_choose_qparams_optimized(const float *x, int64_t n, int64_t n_bins, double ratio, int bit_width,
                                    float *xmin_out, float *xmax_out);

/* Quantized tensors (ops/qtensor.c): the integers are read / written as int64 through the
 * quantized dtype's underlying type (quint8: uint8, qint8: int8, qint32: int32).
 * quantize: {q, x (f32)[, scale (f64), zero_point (i64)]}: clamp(nearbyint(fmaf(x, 1 / scale, zp)))
 * (upstream's fbgemm / AVX2 quantizer, per channel too); dequantize: {y (f32), q[, scale, zp]}:
 * per tensor float(q - zp) * float scale, per channel float((q - zp) * double scale). */
typedef struct {
    tn_dtype qdtype;
    float scale;             /* per tensor */
    int64_t zero_point, qmin, qmax;
} tn_q_params;
void tn_q_quantize_tensor(char **data, const int64_t *strides, int64_t n, const void *ctx);
void tn_q_quantize_channel(char **data, const int64_t *strides, int64_t n, const void *ctx);
void tn_q_dequantize_tensor(char **data, const int64_t *strides, int64_t n, const void *ctx);
void tn_q_dequantize_channel(char **data, const int64_t *strides, int64_t n, const void *ctx);

/* x86's conversion of a float outside int64's range (or NaN) to int64: INT64_MIN, as upstream's
 * compiled static_cast / lrint give on this architecture */
static inline int64_t tn_fq_to_i64(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (int64_t)v : INT64_MIN;
}

#endif
