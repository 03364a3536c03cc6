/* ops/nnmore.h — nn.functional breadth composites (ops/nnmore.c) run by autograd/decomp.c. */
#ifndef TN_OPS_NNMORE_H
#define TN_OPS_NNMORE_H

#include "dispatch/door.h"

PyObject *tn_op_one_hot(tn_value *a);
PyObject *tn_op_prelu(tn_value *a);
PyObject *tn_op_bilinear(tn_value *a);
PyObject *tn_op_rrelu(tn_value *a);
PyObject *tn_op_rrelu_(tn_value *a);

#endif
