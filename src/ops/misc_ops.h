/* ops/misc_ops.h — upstream composites of the misc breadth family (ops/misc_ops.c), run by
 * autograd/decomp.c as named decompositions. */
#ifndef TN_OPS_MISC_OPS_H
#define TN_OPS_MISC_OPS_H

#include "dispatch/door.h"

PyObject *tn_misc_d_fftshift(tn_value *a);
PyObject *tn_misc_d_ifftshift(tn_value *a);
PyObject *tn_misc_d_take_along_dim(tn_value *a);
PyObject *tn_misc_d_trapezoid_x(tn_value *a);
PyObject *tn_misc_d_trapezoid_dx(tn_value *a);
PyObject *tn_misc_d_trapz_dx(tn_value *a);
PyObject *tn_misc_d_cumulative_trapezoid_x(tn_value *a);
PyObject *tn_misc_d_cumulative_trapezoid_dx(tn_value *a);
PyObject *tn_misc_d_vander(tn_value *a);
PyObject *tn_misc_d_combinations(tn_value *a);
PyObject *tn_misc_d_unsafe_chunk(tn_value *a);

#endif
