/* loss.h — kernels of the loss operators (ops/loss.c): smooth_l1 / huber / binary_cross_entropy
 * forward and backward and log_sigmoid backward as elementwise tn_loops; log_sigmoid forward,
 * multi_margin and multilabel_margin forward / backward over contiguous buffers.
 *
 * Plain C: no Python, no allocation, no failure; the op layer validates (ranges, shapes),
 * promotes, allocates. Each follows upstream's scalar formula in upstream's order. f16 rounds
 * after every operation where upstream's kernel runs c10::Half arithmetic; bf16 likewise or
 * widened to float once, as upstream's kernel for that op does (see ref/loss.c). */
#ifndef TN_KERNELS_LOSS_H
#define TN_KERNELS_LOSS_H

#include "core/dtype.h"
#include "core/iter.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    TN_LOSS_SMOOTH_L1,     /* {out, a, b}; p0 beta */
    TN_LOSS_HUBER,         /* {out, a, b}; p0 delta */
    TN_LOSS_SMOOTH_L1_BWD, /* {out, input, target, grad}; p0 norm, p1 beta */
    TN_LOSS_HUBER_BWD,     /* {out, input, target, grad}; p0 norm, p1 delta */
    TN_LOSS_BCE,           /* {out, input, target} */
    TN_LOSS_BCE_BWD,       /* {out, grad, input, target} */
    TN_LOSS_LOG_SIGMOID_BWD, /* {out, input, buffer, grad} */
    TN_LOSS_COUNT
} tn_loss_op;

typedef struct {
    double p0, p1;
} tn_loss_params;

/* NULL when there is no kernel for (op, dt) (floating dtypes only). */
tn_loop tn_loss_loop(tn_loss_op op, tn_dtype dt);

/* log_sigmoid forward over n contiguous elements: out = min(x, 0) - log1p(exp(-|x|)),
 * buffer = exp(-|x|). dt: f32, f64, f16, bf16. */
void tn_log_sigmoid_forward(tn_dtype dt, const void *x, void *out, void *buffer, int64_t n);

/* multi_margin_loss over contiguous [nframe, dim] input (f32 / f64), target nframe int64 in
 * range, weight dim or NULL. per_frame: out has nframe values (reduction none), else one value
 * (sum, divided by nframe when mean), accumulated in double. */
void tn_multi_margin_forward(tn_dtype dt, const void *input, const int64_t *target, int p, double margin,
                             const void *weight, int64_t nframe, int64_t dim, bool per_frame, bool mean, void *out);
/* grad_input [nframe, dim]; grad_output: one value (per_frame false) or nframe values. */
void tn_multi_margin_backward(tn_dtype dt, const void *grad_output, bool per_frame, const void *input,
                              const int64_t *target, int p, double margin, const void *weight, int64_t nframe,
                              int64_t dim, bool mean, void *grad_input);

/* multilabel_margin_loss_forward over contiguous [nframe, dim] input (f32 / f64), target
 * [nframe, dim] int64 in [-1, dim); is_target [nframe, dim] written (zeroed here first). */
void tn_multilabel_margin_forward(tn_dtype dt, const void *input, const int64_t *target, int64_t nframe,
                                  int64_t dim, bool per_frame, bool mean, void *out, void *is_target);
void tn_multilabel_margin_backward(tn_dtype dt, const void *grad_output, bool per_frame, const void *input,
                                   const int64_t *target, const void *is_target, int64_t nframe, int64_t dim,
                                   bool mean, void *grad_input);

/* ---- CTC (upstream's ctc_loss_cpu_template / ctc_loss_backward_cpu_template) ----
 * log_probs contiguous [T, B, C] (f32 / f64); targets int64, batch b's k-th label at
 * targets[tg_offset[b] + tg_stride * k]; il / tl: B lengths (checked by the op layer); S = the
 * last dim of log_alpha ([B, T, S], written where upstream writes it). nll: B values. */
void tn_ctc_loss_forward(tn_dtype dt, const void *log_probs, const int64_t *targets, const int64_t *tg_offset,
                         int64_t tg_stride, const int64_t *il, const int64_t *tl, int64_t T, int64_t B, int64_t C,
                         int64_t S, int64_t blank, void *nll, void *log_alpha);
/* grad [T, B, C] contiguous (written whole); log_beta: scratch [B, T, S]; grad_out: B values
 * with element stride go_stride. */
void tn_ctc_loss_backward(tn_dtype dt, const void *grad_out, int64_t go_stride, const void *log_probs,
                          const int64_t *targets, const int64_t *tg_offset, int64_t tg_stride, const int64_t *il,
                          const int64_t *tl, const void *nll, const void *log_alpha, int64_t T, int64_t B, int64_t C,
                          int64_t S, int64_t blank, bool zero_infinity, void *log_beta, void *grad);

#endif
