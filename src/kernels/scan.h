/* scan.h — kernels of the cumulative operators in ops/scan.c: cummax / cummin with indices and
 * logcumsumexp, over contiguous [outer, n, inner] buffers (the scan runs over n).
 *
 * Plain C: no Python, no allocation, no failure; the op layer validates and allocates. */
#ifndef TN_KERNELS_SCAN_H
#define TN_KERNELS_SCAN_H

#include "core/dtype.h"

#include <stdbool.h>
#include <stdint.h>

/* Running maximum (`is_max`) or minimum and the int64 position it came from, as upstream's
 * kernel: an element replaces the running value when it is NaN, or when the running value is
 * not NaN and the element is >= (max) / <= (min) it, so ties take the later position. Every
 * dtype but complex / quantised. */
void tn_cummaxmin(tn_dtype dt, const void *x, void *values, int64_t *indices, int64_t outer, int64_t n,
                  int64_t inner, bool is_max);

/* log(cumsum(exp(x))) in upstream's accumulation type (double for f32 / f64, float for f16 /
 * bf16), each step log1p(exp(min - max)) + max; infinities of one sign carry through. */
void tn_logcumsumexp(tn_dtype dt, const void *x, void *out, int64_t outer, int64_t n, int64_t inner);

#endif
