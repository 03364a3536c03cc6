/* ops/shape_composites.h — shape composites (ops/shape_composites.c), run by autograd/decomp.c. */
#ifndef TN_OPS_SHAPE_COMPOSITES_H
#define TN_OPS_SHAPE_COMPOSITES_H

#include "dispatch/door.h"

PyObject *tn_shape_d_atleast_1d(tn_value *a);
PyObject *tn_shape_d_atleast_2d(tn_value *a);
PyObject *tn_shape_d_atleast_3d(tn_value *a);
PyObject *tn_shape_d_atleast_1d_seq(tn_value *a);
PyObject *tn_shape_d_atleast_2d_seq(tn_value *a);
PyObject *tn_shape_d_atleast_3d_seq(tn_value *a);
PyObject *tn_shape_d_column_stack(tn_value *a);
PyObject *tn_shape_d_dstack(tn_value *a);
PyObject *tn_shape_d_tensor_split_sections(tn_value *a);
PyObject *tn_shape_d_tensor_split_indices(tn_value *a);
PyObject *tn_shape_d_tensor_split_tensor(tn_value *a);
PyObject *tn_shape_d_hsplit_int(tn_value *a);
PyObject *tn_shape_d_hsplit_array(tn_value *a);
PyObject *tn_shape_d_vsplit_int(tn_value *a);
PyObject *tn_shape_d_vsplit_array(tn_value *a);
PyObject *tn_shape_d_dsplit_int(tn_value *a);
PyObject *tn_shape_d_dsplit_array(tn_value *a);
PyObject *tn_shape_d_inner(tn_value *a);
PyObject *tn_shape_d_kron(tn_value *a);
PyObject *tn_shape_d_diagflat(tn_value *a);
PyObject *tn_shape_d_cartesian_prod(tn_value *a);
PyObject *tn_shape_d_sum_to_size(tn_value *a);

#endif
