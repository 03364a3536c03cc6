/* bnorm.h — batch norm and group norm kernels (ops/bnorm.c): per-channel statistics, the
 * per-channel affine y = x * alpha[c] + beta[c], and the backward reductions.
 *
 * Plain C: no Python, no allocation, no failure; work is shared over core/parallel.c. Written once
 * in kernels/bnorm_body.h, built plain (ref/bnorm.c) and for AVX2+FMA (x86/bnorm_fma.c, chosen at
 * run time; TN_BNORM=ref forces the plain build; same bits). Float
 * (f32, f16/bf16 widened by the op layer) and double flavours. The batch-norm statistics follow
 * upstream's CPU kernels (aten/native/cpu/batch_norm_kernel.cpp) summation for summation:
 *  - NCHW input with H*W > 1: per channel, a sequential double sum of x, mean = (T)(sum / n), then
 *    a sequential double sum of the T-rounded (x - mean)^2 (float: computed in double lanes, with
 *    an error bound that proves the same float result, else sequentially; kernels/bnorm_body.h);
 *  - channels-last input (and NC / NC11 input): rows split into `parts` contiguous chunks exactly
 *    as at::parallel_for splits them over upstream's threads, each chunk summing in T per channel
 *    (the variance with a fused multiply-add, as upstream's vectorised loop compiles), the chunks
 *    then added in double.
 * The affine is fma(x, alpha, beta), beta = fma(-mean, alpha, b), also as upstream's build rounds. */
#ifndef TN_KERNELS_BNORM_H
#define TN_KERNELS_BNORM_H

#include <stdbool.h>
#include <stdint.h>

/* Geometry of a [nb, C, hw] batch: cl = channels-last (element (n, c, i) at (n*hw + i)*C + c),
 * else (n*C + c)*hw + i. Both are dense. */
typedef struct {
    int64_t nb, C, hw;
    bool cl;
} tn_bn_geom;

/* The number of row chunks upstream's channels-last statistics use for `rows` rows when its pool
 * has `threads` threads. */
int64_t tn_bn_parts(int64_t rows, int threads);

/* mean[C] and var_sum[C] (sum of (x - mean)^2) of x. scratch: parts * C elements of T (channels-
 * last layouts only; may be NULL otherwise). */
void tn_bn_stats_f32(const tn_bn_geom *g, const float *x, float *mean, float *var_sum, int64_t parts, float *scratch);
void tn_bn_stats_f64(const tn_bn_geom *g, const double *x, double *mean, double *var_sum, int64_t parts, double *scratch);

/* y = fma(x, alpha[c], beta[c]) over the geometry (x and y the same layout). */
void tn_bn_affine_f32(const tn_bn_geom *g, const float *x, const float *alpha, const float *beta, float *y);
void tn_bn_affine_f64(const tn_bn_geom *g, const double *x, const double *alpha, const double *beta, double *y);

/* Batch-norm backward per channel: sum_dy[c] = sum dy, dotp[c] = sum (x - mean[c]) * dy (double
 * accumulation, 8 lanes per NCHW plane); then, when dx is not NULL, train:
 * dx = (dy - sum_dy/n - (x - mean) * k) * invstd * w with k = dotp * invstd^2 / n; eval:
 * dx = dy * invstd * w. w may be NULL (1). */
void tn_bn_backward_f32(const tn_bn_geom *g, const float *dy, const float *x, const float *mean,
                        const float *invstd, const float *w, bool train, float *dx, double *sum_dy, double *dotp);
void tn_bn_backward_f64(const tn_bn_geom *g, const double *dy, const double *x, const double *mean,
                        const double *invstd, const double *w, bool train, double *dx, double *sum_dy, double *dotp);

/* Group norm over a contiguous [N, C, HxW] buffer with G groups: mean/rstd [N*G] (rstd =
 * 1/sqrt(max(var, 0) + eps), biased), y = x * scale + shift per (n, c) with scale = rstd * w[c],
 * shift = b[c] - scale * mean. w, b may be NULL. Double accumulation. */
void tn_gn_forward_f32(const float *x, const float *w, const float *b, int64_t N, int64_t C, int64_t HxW,
                       int64_t G, double eps, float *y, float *mean, float *rstd);
void tn_gn_forward_f64(const double *x, const double *w, const double *b, int64_t N, int64_t C, int64_t HxW,
                       int64_t G, double eps, double *y, double *mean, double *rstd);
/* Group-norm backward (upstream's formulation: ds = sum dy*x, db = sum dy per (n, c); per group
 * c2 = (db_g * mean - ds_g) * rstd^3 / D, c3 = -c2 * mean - db_g * rstd / D, dx = rstd*w*dy + c2*x + c3).
 * dx, dw, db may be NULL; scratch: 2 * N * C doubles. */
void tn_gn_backward_f32(const float *dy, const float *x, const float *mean, const float *rstd, const float *w,
                        int64_t N, int64_t C, int64_t HxW, int64_t G, float *dx, float *dw, float *db, double *scratch);
void tn_gn_backward_f64(const double *dy, const double *x, const double *mean, const double *rstd, const double *w,
                        int64_t N, int64_t C, int64_t HxW, int64_t G, double *dx, double *dw, double *db,
                        double *scratch);

#endif
