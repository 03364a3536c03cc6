/* pad_backward.h — the kernel of reflection_pad{1,2,3}d_backward and replication_pad{1,2,3}d_backward
 * (ops/bw_ops.c): each output position's gradient added into the input position the pad read it
 * from. Plain C: no Python, no allocation, no failure; the op layer validates and allocates. */
#ifndef TN_KERNELS_PAD_BACKWARD_H
#define TN_KERNELS_PAD_BACKWARD_H

#include "core/dtype.h"

#include <stdbool.h>
#include <stdint.h>

/* gi: contiguous [planes, in[0], .., in[k-1]] of dt, zero-filled; go: contiguous [planes,
 * out[0], .., out[k-1]]; pad_before[j]: the padding before trailing dim j (negative crops).
 * Output positions run in row-major order per plane, as upstream's CPU kernel, each added into
 * gi in dt's own arithmetic (16-bit types round after every addition). reflect: the index
 * reflects at the edges (needs pad < in), else it is clamped to them. dt: f32, f64, f16, bf16,
 * c64, c128 (false for any other). */
bool tn_pad_backward(tn_dtype dt, bool reflect, int k, int64_t planes, const int64_t *in, const int64_t *out,
                     const int64_t *pad_before, const void *go, void *gi);

#endif
