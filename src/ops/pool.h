/* ops/pool.h — pieces of ops/pool.c (pooling) and ops/interp.c (interpolation) shared with each
 * other and with their decompositions in autograd/decomp.c. */
#ifndef TN_OPS_POOL_H
#define TN_OPS_POOL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "core/tensor.h"
#include "dispatch/door.h"
#include "ops/pad.h"   /* tn_suggest_format: upstream's suggest_memory_format */

/* A new tensor of sizes laid out contiguous, or channels-last (fmt 2 / 3) for 4-d / 5-d sizes. */
PyObject *tn_pool_new(int nd, const int64_t *sz, tn_dtype dt, int fmt);
/* max_pool1d's own checks (upstream's max_pool1d + check_max_pool1d), on max_pool1d's
 * arguments; sets the output width. 0, or -1 with upstream's exception. */
int tn_max_pool1d_check(tn_value *a, int64_t *ow);

/* max_pool1d as upstream's composite (checks, then max_pool1d_with_indices' pieces): the
 * decomposition autograd and dispatch modes see; tn_op_max_pool1d is its no-grad kernel. */
PyObject *tn_pool_max_pool1d_composite(tn_value *a);

#endif
