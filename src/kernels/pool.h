/* pool.h — pooling and interpolation kernels: max / average / adaptive pooling over windows, and
 * nearest / linear / cubic interpolation, forward and backward (kernels/ref/pool.c).
 *
 * Plain C: no Python, no allocation, no failure. Buffers are contiguous [planes, D, H, W] (1-d
 * and 2-d problems use leading sizes of 1); planes = batch x channels, split over the thread pool
 * (core/parallel.c). The op layer (ops/pool.c) validates, builds the per-dimension window and
 * index tables, widens f16 / bf16 to f32 and narrows once, and lays results out as upstream
 * does. Every kernel follows the arithmetic order of upstream's CPU kernel of the same op so the
 * bits agree: max keeps the first maximum and the last NaN of a window; sums run over the window
 * in (d, h, w) order; backward kernels add into the input gradient in output order. */
#ifndef TN_KERNELS_POOL_H
#define TN_KERNELS_POOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t planes;
    int64_t in[3], out[3];        /* spatial sizes (D, H, W) */
    const int64_t *start[3];      /* per dim and output index: first input index of the window */
    const int64_t *end[3];        /* ... one past the last */
    int64_t step[3];              /* dilation (1 for average / adaptive) */
    const int64_t *div[3];        /* average: per-dim divisor factor of each output index */
    int64_t divisor;              /* average: divisor_override when != 0 */
    bool seq_div;                 /* average: sum / fd / fh / fw (adaptive) instead of one division
                                     by fd * fh * fw */
    int rnd;                      /* f32 kernels: round every sum / quotient to bf16 (1) or f16 (2),
                                     as upstream's kernels that compute in the tensor's own dtype */
} tn_pool_plan;

/* Max over each window: value and flat in-plane index (d * H * W + h * W + w). */
void tn_maxpool_f32(const tn_pool_plan *p, const float *in, float *out, int64_t *idx);
void tn_maxpool_f64(const tn_pool_plan *p, const double *in, double *out, int64_t *idx);
void tn_maxpool_i64(const tn_pool_plan *p, const int64_t *in, int64_t *out, int64_t *idx);
/* gin (whole input, zeroed here) += gout at each output's index, in output order. Indices lie in
 * [0, D * H * W) (checked by the op layer). */
void tn_maxpool_bwd_f32(const tn_pool_plan *p, const float *gout, const int64_t *idx, float *gin);
void tn_maxpool_bwd_f64(const tn_pool_plan *p, const double *gout, const int64_t *idx, double *gin);

/* Average over each window (empty windows give 0). */
void tn_avgpool_f32(const tn_pool_plan *p, const float *in, float *out);
void tn_avgpool_f64(const tn_pool_plan *p, const double *in, double *out);
void tn_avgpool_i64(const tn_pool_plan *p, const int64_t *in, int64_t *out);
/* gin (zeroed here) += gout / divisor over each output's window, in output order. */
void tn_avgpool_bwd_f32(const tn_pool_plan *p, const float *gout, float *gin);
void tn_avgpool_bwd_f64(const tn_pool_plan *p, const double *gout, double *gin);

/* Interpolation plan: per real dim (the last `nd` of D, H, W) and output index, `taps` input
 * indices and weights (nearest: 1 tap, no weights; linear: 2; cubic: 4; dims that are not real
 * have one tap of index 0). Weights hold values of the compute type exactly. */
enum { TN_FWD_NESTED, TN_FWD_PRODUCT };
typedef struct {
    int64_t planes;
    int64_t in[3], out[3];
    int nd, taps;
    const int64_t *idx[3];
    const double *w[3];
    int order;                    /* TN_FWD_NESTED / TN_FWD_PRODUCT (see ref/pool.c) */
    int64_t channels;             /* FWD_PRODUCT: planes per batch item, and how many of them */
    int64_t vec_planes;           /* upstream's vector loop covers (the rest is its scalar tail) */
    int reduced;                  /* FWD_PRODUCT for bf16 (1) / f16 (2) (see ref/pool.c) */
} tn_interp_plan;

/* Nearest: a gather of elements of `isz` bytes. */
void tn_interp_nearest(const tn_interp_plan *p, const char *in, char *out, int isz);
/* Linear / cubic forward; backward of nearest / linear / cubic into gin (zeroed here). */
void tn_interp_f32(const tn_interp_plan *p, const float *in, float *out);
void tn_interp_f64(const tn_interp_plan *p, const double *in, double *out);
void tn_interp_f32_bwd(const tn_interp_plan *p, const float *gout, float *gin);
void tn_interp_f64_bwd(const tn_interp_plan *p, const double *gout, double *gin);


/* Antialiased interpolation (upstream's _upsample_{bilinear,bicubic}2d_aa), one dim at a time.
 * The dim has `in_n` input and `out_n` output positions; `outer` planes lie before it and `inner`
 * contiguous elements after it. Output position k reads `xsize[k]` inputs from `xmin[k]` with the
 * weights w[k * width ...] (of the data's type):
 *   out[(o * out_n + k) * inner + i] = sum_j in[(o * in_n + xmin[k] + j) * inner + i] * w[k * width + j]
 * summed in j order (see ref/interp_aa.c for how close to upstream's sums this is). */
typedef struct {
    int64_t outer, in_n, out_n, inner;
    const int64_t *xmin, *xsize;
    int64_t width;
    const void *w;
} tn_aa_plan;
void tn_interp_aa_f32(const tn_aa_plan *p, const float *in, float *out);
void tn_interp_aa_f64(const tn_aa_plan *p, const double *in, double *out);
/* uint8 (bilinear / bicubic, antialiased or not): w holds int16 weights scaled by 2**prec;
 *   out = clamp((2**(prec-1) + sum_j in[...] * w[k * width + j]) >> prec, 0, 255)
 * in exact integer arithmetic (so every summation order gives these bits). */
void tn_interp_aa_u8(const tn_aa_plan *p, int prec, const uint8_t *in, uint8_t *out);
/* Backward over H (plan h) and W (plan w) at once, in upstream's order: per plane, output row,
 * output column, then each (y, x) of the window: gin += (wx * wy) * gout (fused). gin is zeroed
 * here. */
void tn_interp_aa_bwd_f32(const tn_aa_plan *h, const tn_aa_plan *w, int64_t planes, const float *gout, float *gin);
void tn_interp_aa_bwd_f64(const tn_aa_plan *h, const tn_aa_plan *w, int64_t planes, const double *gout, double *gin);

#endif
