/* ops/quantile.h — quantile / nanquantile composites (ops/quantile.c), run by autograd/decomp.c. */
#ifndef TN_OPS_QUANTILE_H
#define TN_OPS_QUANTILE_H

#include "dispatch/door.h"

PyObject *tn_quantile_d_quantile(tn_value *a);
PyObject *tn_quantile_d_quantile_out(tn_value *a);
PyObject *tn_quantile_d_quantile_scalar(tn_value *a);
PyObject *tn_quantile_d_quantile_scalar_out(tn_value *a);
PyObject *tn_quantile_d_nanquantile(tn_value *a);
PyObject *tn_quantile_d_nanquantile_out(tn_value *a);
PyObject *tn_quantile_d_nanquantile_scalar(tn_value *a);
PyObject *tn_quantile_d_nanquantile_scalar_out(tn_value *a);

#endif
