/* backward.h — kernels of the aten backward operators autograd's formulas call (ops/backward.c):
 * elementwise activation backwards (threshold / relu, sigmoid, tanh, silu, gelu, hardtanh,
 * leaky_relu, elu), mse_loss's backward, softmax / log_softmax backward, layer norm backward and
 * nll_loss forward / backward.
 *
 * Plain C: no Python, no allocation, no failure; the op layer validates, promotes and allocates.
 * Elementwise loops follow upstream's scalar formulas in upstream's order; f16 / bf16 widen to
 * f32, compute, and narrow once (except mse_loss_backward, whose upstream kernel computes in the
 * 16-bit type itself, rounding after every operation: reproduced). */
#ifndef TN_KERNELS_BACKWARD_H
#define TN_KERNELS_BACKWARD_H

#include "core/iter.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- elementwise: data = {out, grad, x} (x: self, output or self_or_result), all of dt ---- */
typedef enum {
    TN_BWD_THRESHOLD,  /* x <= threshold ? 0 : grad (threshold: p0 / i0 for integers) */
    TN_BWD_SIGMOID,    /* grad * (1 - y) * y */
    TN_BWD_TANH,       /* grad * (1 - y * y) */
    TN_BWD_SILU,       /* grad * s * (1 + x * (1 - s)), s = sigmoid(x) */
    TN_BWD_GELU,       /* erf form */
    TN_BWD_GELU_TANH,  /* tanh approximation */
    TN_BWD_HARDTANH,   /* x <= p0 || x >= p1 ? 0 : grad */
    TN_BWD_LEAKY_RELU, /* x > 0 ? grad : grad * p0 */
    TN_BWD_ELU,        /* p0 alpha, p1 scale, p2 input_scale, flag is_result */
    TN_BWD_SHRINK,     /* -p0 <= x <= p0 ? 0 : grad (hard/softshrink backward; i0: upstream's vector width) */
    TN_BWD_HARDSIGMOID, /* -3 < x < 3 ? grad * (float)(1/6) : 0 */
    TN_BWD_HARDSWISH,  /* x <= -3 ? 0 : x >= 3 ? grad : grad * (x / 3 + 0.5) (upstream's vector body) */
    TN_BWD_SOFTPLUS,   /* p0 beta, p1 threshold: x * beta > threshold ? grad : grad * z / (z + 1), z = exp(x * beta) */
    TN_BWD_MISH,       /* grad * (t + x * sigmoid(x) * (1 - t * t)), t = tanh(log1p(exp(x))) */
    TN_BWD_COUNT
} tn_bwd_op;

typedef struct {
    double p0, p1, p2;
    int64_t i0;
    bool flag;
} tn_bwd_params;

/* NULL when upstream has no kernel for (op, dt). */
tn_loop tn_bwd_loop(tn_bwd_op op, tn_dtype dt);

/* logit_backward: data = {out, grad, x}, all of dt (f32, f64, f16, bf16; NULL otherwise); ctx =
 * const tn_bwd_params *: flag set when eps < 0 (NaN outside [0, 1]), else p0 = eps (0 outside
 * [eps, 1 - eps]); inside, grad / (x * (1 - x)). 16-bit types round after every operation, as
 * upstream's BFloat16 / Half arithmetic. */
tn_loop tn_logit_backward_loop(tn_dtype dt);

/* mse_loss_backward: data = {out, input, target, grad_output}, all of dt; ctx = const double*
 * norm (2 or 2/numel), converted to dt first as upstream does. Floating and integral dt. */
tn_loop tn_mse_backward_loop(tn_dtype dt);

/* ---- softmax backward over the middle dim of contiguous [outer, n, inner] buffers ----
 * softmax: gi = y * (g - sum(g * y)); log_softmax: gi = g - exp(y) * sum(g). Sums in double. */
void tn_softmax_backward_f32(const float *g, const float *y, float *gi, int64_t outer, int64_t n, int64_t inner,
                             bool log);
void tn_softmax_backward_f64(const double *g, const double *y, double *gi, int64_t outer, int64_t n,
                             int64_t inner, bool log);

/* ---- layer norm backward over rows of contiguous [M, N] buffers ----
 * gamma may be NULL (ones); dx, dgamma, dbeta may each be NULL (not wanted). mean / rstd: M
 * values. _f32 / _f64 round as upstream's CPU kernel (kernels/layer_norm.c, one thread);
 * _f32_wide (bfloat16 / float16 input) sums in double. */
void tn_layer_norm_backward_f32_wide(const float *dy, const float *x, const float *mean, const float *rstd,
                                     const float *gamma, float *dx, float *dgamma, float *dbeta, int64_t M, int64_t N);
void tn_layer_norm_backward_f32(const float *dy, const float *x, const float *mean, const float *rstd,
                                const float *gamma, float *dx, float *dgamma, float *dbeta, int64_t M, int64_t N);
void tn_layer_norm_backward_f64(const double *dy, const double *x, const double *mean, const double *rstd,
                                const double *gamma, double *dx, double *dgamma, double *dbeta, int64_t M,
                                int64_t N);

/* ---- nll_loss ----
 * input: contiguous [B, C] of dt (f32, f64, f16, bf16); target: B int64 (already range-checked
 * by the op layer, ignore_index entries skipped); weight: C of dt or NULL.
 * Reduction none: out[b] = -input[b, t] * w[t] (0 where ignored).
 * Sum / mean: upstream's cascade sum (8 levels), in the storage type's arithmetic (16-bit types
 * round after every operation, as upstream's Half / BFloat16 scalar math); writes the loss and
 * the total weight (one element each). */
void tn_nll_loss_forward(tn_dtype dt, const void *input, const int64_t *target, const void *weight, int64_t B,
                         int64_t C, int64_t ignore_index, int reduction, void *out, void *total_weight);
/* grad_input (contiguous [B, C] of dt, zero-filled by the op layer). Reduction none: grad_output
 * has B elements (element stride go_stride); else one element, scaled by 1 / total_weight for
 * mean. */
void tn_nll_loss_backward(tn_dtype dt, const void *grad_output, int64_t go_stride, const int64_t *target,
                          const void *weight, const void *total_weight, int64_t B, int64_t C, int64_t ignore_index,
                          int reduction, bool none_2d, void *grad_input);

#endif
