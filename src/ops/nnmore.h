/* ops/nnmore.h — nn.functional breadth composites (ops/nnmore.c) run by autograd/decomp.c. */
#ifndef TN_OPS_NNMORE_H
#define TN_OPS_NNMORE_H

#include "dispatch/door.h"

PyObject *tn_op_one_hot(tn_value *a);
PyObject *tn_op_prelu(tn_value *a);
PyObject *tn_op_bilinear(tn_value *a);
PyObject *tn_op_rrelu(tn_value *a);
PyObject *tn_op_rrelu_(tn_value *a);
/* ops/nn.c: the composite rms_norm's steps (x * rsqrt(mean of x^2 over the last k dims + eps)) */
PyObject *tn_rms_norm_steps(PyObject *x, int k, double eps, PyObject **rs_out);
/* rms_norm (real input) as upstream's composite, op by op, after its checks: what autograd records */
PyObject *tn_rms_norm_decomposed(tn_value *a);

#endif
