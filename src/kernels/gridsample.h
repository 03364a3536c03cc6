/* gridsample.h — grid_sampler_2d / grid_sampler_3d forward and backward (kernels/ref/gridsample.c).
 * Plain C: no Python, no allocation. Index formulas as upstream's GridSampler.h (3-d, scalar)
 * and its vectorised 2-d CPU kernel (unnormalize as (x + 1) * scale [- 0.5]; out-of-range corners
 * contribute value 0 times their weight, so a NaN coordinate gives NaN). Computes in float (double
 * for f64); dt: 0 f32, 1 f64, 2 bf16, 3 f16. */
#ifndef TN_KERNELS_GRIDSAMPLE_H
#define TN_KERNELS_GRIDSAMPLE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int dt, k, mode, pad;           /* k: 2 or 3; mode: 0 bilinear 1 nearest 2 bicubic; pad: 0 zeros 1 border 2 reflection */
    bool align;
    int64_t N, C;
    int64_t isz[3], osz[3];         /* D, H, W (D = 1 for 2-d) */
    int64_t ist[5], gst[5];         /* element strides: input (n, c, d, h, w), grid (n, d, h, w, coord) */
    const char *in, *grid;
    char *out;                      /* forward: contiguous (N, C, oD, oH, oW) */
    /* backward */
    int64_t gost[5];                /* grad_output strides (n, c, d, h, w) */
    const char *gout;
    void *ginp;                     /* contiguous (N, C, D, H, W) accumulator in the compute type, or NULL */
    char *ggrid;                    /* contiguous (N, oD, oH, oW, k) in the dtype */
} tn_gs_plan;

/* forward over output positions [begin, end) of N * oD * oH * oW (all channels each) */
void tn_gs_forward(const tn_gs_plan *p, int64_t begin, int64_t end);
/* backward, serial (the input gradient is a scatter) */
void tn_gs_backward(const tn_gs_plan *p);

#endif
