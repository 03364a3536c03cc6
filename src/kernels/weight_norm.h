/* weight_norm.h — the fused weight-norm kernels (kernels/ref/weight_norm.c): upstream's
 * WeightNormKernel.cpp semantics over contiguous buffers. Plain C: no Python, no allocation.
 * dt: 0 f32, 1 f64, 2 bf16, 3 f16. v, w, g, grad_w, grad_v, grad_g are dt; norm and the scratch
 * are the accumulation type (double for f64, else float), as upstream's opmath type.
 * first: dim 0, M rows of N (one norm per row); else the last dim, M rows of N (one norm per
 * column, rows summed in order into scratch). */
#ifndef TN_KERNELS_WEIGHT_NORM_H
#define TN_KERNELS_WEIGHT_NORM_H

#include <stdbool.h>
#include <stdint.h>

/* w = v * (g / norm), norm = ||v|| over the kept slices. scratch: N accumulation elements
 * (last dim only), zeroed by the caller. */
void tn_weight_norm_fwd(int dt, bool first, int64_t M, int64_t N, const void *v, const void *g, void *w,
                        void *norm, void *scratch);
/* grad_g = sum(grad_w * v) / norm; grad_v = a * grad_w - b * v with a = g / norm,
 * b = a * grad_g / norm. scratch: 3 * N accumulation elements (last dim only), zeroed. */
void tn_weight_norm_bwd(int dt, bool first, int64_t M, int64_t N, const void *grad_w, const void *v,
                        const void *g, const void *norm, void *grad_v, void *grad_g, void *scratch);

#endif
