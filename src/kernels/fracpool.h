/* fracpool.h — fractional max pooling, forward and backward (kernels/ref/fracpool.c). Plain C:
 * no Python, no allocation beyond the caller's buffers. Buffers are contiguous float64
 * [planes, T, H, W] (2-d: T = 1) holding values of the tensor's dtype exactly; `rnd` says which
 * dtype upstream's kernel computes in (0 f64, 1 f32, 2 bf16, 3 f16): its window starts
 * (generate_intervals) and the backward's additions round to that dtype after every operation,
 * as upstream's scalar_t arithmetic. */
#ifndef TN_KERNELS_FRACPOOL_H
#define TN_KERNELS_FRACPOOL_H

#include <stdint.h>

typedef struct {
    int64_t planes;          /* batch x channels */
    int64_t channels;        /* samples are [batch][channels][k] */
    int k;                   /* 2 or 3 spatial dims */
    int64_t in[3], out[3];   /* spatial sizes (T, H, W); 2-d: T = 1 */
    int64_t pool[3];
    int rnd;
} tn_fracpool_plan;

/* starts: scratch of out[0] + out[1] + out[2] int64 */
void tn_fracpool_fwd(const tn_fracpool_plan *p, const double *in, const double *samples, double *out, int64_t *idx,
                     int64_t *starts);
/* gin (zeroed here) += gout at each output's index, in output order; indices in range */
void tn_fracpool_bwd(const tn_fracpool_plan *p, const double *gout, const int64_t *idx, double *gin);

#endif
