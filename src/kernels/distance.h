/* distance.h — kernels of cdist / pdist (ops/distance.c): p-norm distances between rows and
 * their gradients, with upstream's per-p formulas (0: count of differing components, 1, 2,
 * inf: max, else pow(sum |d|^p, 1/p)) and its backward cases (p < 2, 2, inf, general), which
 * give 0 where the distance is 0 (and, for p < 1, where a component difference is 0).
 *
 * Plain C: contiguous buffers, no Python, no allocation, no failure. `dbl` selects double
 * (else float) elements. */
#ifndef TN_KERNELS_DISTANCE_H
#define TN_KERNELS_DISTANCE_H

#include <stdbool.h>
#include <stdint.h>

/* out[b, i, j] = dist_p(x1[b, i, :], x2[b, j, :]); x1 [B, r1, m], x2 [B, r2, m]; m >= 1. */
void tn_cdist(bool dbl, const void *x1, const void *x2, int64_t B, int64_t r1, int64_t r2, int64_t m, double p,
              void *out);
/* grad_x1 [B, r1, m] (written) = sum_j backward(x1[b,i] - x2[b,j], grad[b,i,j], dist[b,i,j]). */
void tn_cdist_backward(bool dbl, const void *grad, const void *x1, const void *x2, const void *dist, int64_t B,
                       int64_t r1, int64_t r2, int64_t m, double p, void *gx1);
/* out[k] over pairs i < j of the n rows of x [n, m] in row-major pair order. */
void tn_pdist(bool dbl, const void *x, int64_t n, int64_t m, double p, void *out);
/* gx [n, m] (written): for each pair k = (i, j), gx[i] += backward(x[i] - x[j]), gx[j] -= it;
 * grad read with stride gs. */
void tn_pdist_backward(bool dbl, const void *grad, int64_t gs, const void *x, const void *dist, int64_t n, int64_t m,
                       double p, void *gx);

#endif
