/* ops/views.h — geometry helpers shared by the view, indexing and joining families
 * (views.c, index.c, join.c, python/indexing.c): size inference, upstream's view-stride rule and
 * a contiguous clone (dimension wrapping and shape formatting live in ops/common.h). All raise upstream's exception
 * types with upstream's wording. */
#ifndef TN_OPS_VIEWS_H
#define TN_OPS_VIEWS_H

#include "ops/common.h"

/* Resolve one -1 in shape against numel (upstream's infer_size): RuntimeError on failure. */
int tn_infer_size(int n, const int64_t *shape, int64_t numel, int64_t *out);
/* Upstream's computeStride: strides that view t with `sizes`, or false if it cannot be viewed. */
bool tn_view_strides(const tn_tensor *t, int nd, const int64_t *sizes, int64_t *strides);
/* A new contiguous copy of t (same dtype). */
PyObject *tn_clone_contiguous(PyObject *t);
/* contiguous(memory_format)'s rule: 1 when self is already contiguous in mf (preserve_format: the
 * usual rule), 0 when it takes a clone(memory_format), -1 with upstream's error for preserve_format */
int tn_contiguous_check(PyObject *self, PyObject *mf);
/* reshape: a view when upstream's stride rule allows, else a contiguous copy (not a view). */
PyObject *tn_reshape(PyObject *self, int n, const int64_t *shape);
/* Strides (elements) of an output of `shape` allocated the way upstream's TensorIterator orders
 * dimensions, given the operands' strides (any unit; 0 = broadcast) over the same shape. */
void tn_ti_output_strides(int nd, const int64_t *shape, int nops, int64_t (*strides)[TN_MAX_DIMS], int64_t *out);

#endif
