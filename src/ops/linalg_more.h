/* ops/linalg_more.h — more torch.linalg composites (named decompositions, autograd/decomp.c). */
#ifndef TN_OPS_LINALG_MORE_H
#define TN_OPS_LINALG_MORE_H
#include "dispatch/door.h"

PyObject *tn_linalg_more_d_diagonal(tn_value *a);
PyObject *tn_linalg_more_d_cross(tn_value *a);
PyObject *tn_linalg_more_d_vander(tn_value *a);
PyObject *tn_linalg_more_d_matrix_power(tn_value *a);
PyObject *tn_linalg_more_d_multi_dot(tn_value *a);
PyObject *tn_linalg_more_d_matrix_norm(tn_value *a);
PyObject *tn_linalg_more_d_matrix_norm_str(tn_value *a);
PyObject *tn_linalg_more_d_matrix_norm_out(tn_value *a);
PyObject *tn_linalg_more_d_matrix_norm_str_out(tn_value *a);
PyObject *tn_linalg_more_d_nuclear_norm(tn_value *a);
PyObject *tn_linalg_more_d_nuclear_norm_dim(tn_value *a);
PyObject *tn_linalg_more_d_cond(tn_value *a);
PyObject *tn_linalg_more_d_cond_str(tn_value *a);
PyObject *tn_linalg_more_d_pinv_ff(tn_value *a);
PyObject *tn_linalg_more_d_pinv_rcond(tn_value *a);
PyObject *tn_linalg_more_d_pinv_rcond_tensor(tn_value *a);
PyObject *tn_linalg_more_d_pinverse(tn_value *a);
PyObject *tn_linalg_more_d_pinv_ff_out(tn_value *a);
PyObject *tn_linalg_more_d_pinv_rcond_out(tn_value *a);
PyObject *tn_linalg_more_d_pinv_rcond_tensor_out(tn_value *a);
PyObject *tn_linalg_more_d_rank_tt(tn_value *a);
PyObject *tn_linalg_more_d_rank_ff(tn_value *a);
PyObject *tn_linalg_more_d_rank_tol(tn_value *a);
PyObject *tn_linalg_more_d_rank_tol_tensor(tn_value *a);
PyObject *tn_linalg_more_d_tensorinv(tn_value *a);
PyObject *tn_linalg_more_d_tensorsolve(tn_value *a);
PyObject *tn_linalg_more_d_cov(tn_value *a);
PyObject *tn_linalg_more_d_corrcoef(tn_value *a);
PyObject *tn_linalg_more_d_lu_solve_old(tn_value *a);
PyObject *tn_linalg_more_d_lu_with_info(tn_value *a);
PyObject *tn_linalg_more_d_orgqr(tn_value *a);
/* linalg_matrix_norm through the door (ord a number or a str), for norm.c's linalg_norm */
PyObject *tn_linalg_more_matrix_norm_call(PyObject *A, PyObject *ord, const tn_value *dimv, bool keepdim, const tn_value *dtv);
#endif
