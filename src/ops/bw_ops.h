/* ops/bw_ops.h — the composite backward operators of ops/bw_ops.c, also registered as their own
 * decompositions (autograd/decomp.c). */
#ifndef TN_OPS_BW_OPS_H
#define TN_OPS_BW_OPS_H

#include "dispatch/door.h"

PyObject *tn_op_trace_backward(tn_value *a);
PyObject *tn_op_index_select_backward(tn_value *a);
PyObject *tn_op_gather_backward(tn_value *a);
PyObject *tn_op_masked_select_backward(tn_value *a);
PyObject *tn_op_cummaxmin_backward(tn_value *a);
PyObject *tn_op_cumprod_backward(tn_value *a);

#endif
