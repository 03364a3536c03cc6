/* ops/fakequant.h — helpers of the fake quantization family (ops/fakequant.c) that the quantized
 * tensors (ops/qtensor.c) share. */
#ifndef TN_OPS_FAKEQUANT_H
#define TN_OPS_FAKEQUANT_H
#include "dispatch/door.h"

/* RuntimeError(msg); NULL */
PyObject *tn_fq_error(const char *msg);
/* upstream's TORCH_CHECK(cond) without a message: "Expected <cond> to be true, but got false. ..." */
PyObject *tn_fq_check_failed(const char *cond);
/* Tensor.item() of a one-element tensor into a number value; -1 with upstream's message otherwise */
int tn_fq_item(PyObject *t, tn_value *v);
/* t.to(dt) through the door */
PyObject *tn_fq_to_dtype(PyObject *t, tn_dtype dt);

static inline double tn_fq_num_f(const tn_value *v) { return v->tag == TN_V_FLOAT ? v->u.f : (double)v->u.i; }
/* c10::Scalar::toInt / toLong of a float: truncation */
static inline int64_t tn_fq_num_i(const tn_value *v) { return v->tag == TN_V_FLOAT ? (int64_t)v->u.f : v->u.i; }

/* a 1-d per-channel parameter (scale / zero point) as an iterator operand broadcast along `axis`
 * of an ndim-d tensor */
static inline tn_tensor tn_fq_along_axis(const tn_tensor *v, int ndim, int axis) {
    tn_tensor r = *v;
    r.ndim = ndim;
    for (int i = 0; i < ndim; i++) { r.sizes[i] = 1; r.strides[i] = 0; }
    r.sizes[axis] = v->sizes[0];
    r.strides[axis] = v->strides[0];
    return r;
}

#endif
