/* unpool.h — max_unpool{2,3}d's scatter (kernels/ref/unpool.c). Plain C: no Python, no
 * allocation. Each input element is written to its plane's flat index (d * oH * oW + h * oW + w)
 * of the (zeroed) output, in upstream's order (planes, then input positions; channels-last:
 * positions, then channels), so of two elements naming one index the later wins. */
#ifndef TN_KERNELS_UNPOOL_H
#define TN_KERNELS_UNPOOL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t nb, nc;                 /* batch (1 when unbatched), channels */
    int k;                          /* spatial dims: 2 or 3 */
    int64_t isp[3], osp[3];         /* input / output spatial sizes (k used) */
    int64_t ist[5], xst[5], ost[5]; /* element strides of input, indices, output: [n, c, spatial...] */
    bool cl;                        /* channels-last order */
    int itemsize;
} tn_unpool_plan;

/* Returns 0, or -1 with the last out-of-range index in *bad (as upstream's serial kernel, which
 * skips such elements and reports the last; the others are written). */
int tn_unpool_scatter(const tn_unpool_plan *p, const char *in, const int64_t *ix, char *out, int64_t *bad);

#endif
