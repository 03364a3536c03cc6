/* ops/linalg_lapack.h — the linalg composites run as named decompositions (autograd/decomp.c). */
#ifndef TN_OPS_LINALG_LAPACK_H
#define TN_OPS_LINALG_LAPACK_H
#include "dispatch/door.h"

int tn_linalg_init(PyObject *m);   /* torch._C._LinAlgError */
/* upstream's linalg_solve_is_vector_rhs on shapes: B (bndim, bsz) is a vector, or a batch of vectors
 * matching A's (andim, asz) batch (linalg_solve and the lstsq formulas of autograd/formulas.c) */
bool tn_linalg_vector_rhs(int andim, const int64_t *asz, int bndim, const int64_t *bsz);
PyObject *tn_linalg_d_inv(tn_value *a);
PyObject *tn_linalg_d_solve_ex(tn_value *a);
PyObject *tn_linalg_d_solve(tn_value *a);
PyObject *tn_linalg_d_cholesky(tn_value *a);
PyObject *tn_linalg_d_det(tn_value *a);
PyObject *tn_linalg_d_slogdet(tn_value *a);
PyObject *tn_linalg_d_slogdet_old(tn_value *a);
PyObject *tn_linalg_d_logdet(tn_value *a);
PyObject *tn_linalg_d_svd(tn_value *a);
PyObject *tn_linalg_d_svdvals(tn_value *a);
PyObject *tn_linalg_d_svd_old(tn_value *a);
PyObject *tn_linalg_d_eigh(tn_value *a);
PyObject *tn_linalg_d_eigvalsh(tn_value *a);
PyObject *tn_linalg_d_lu_factor(tn_value *a);
PyObject *tn_linalg_d_qr_old(tn_value *a);
PyObject *tn_linalg_d_eigvals(tn_value *a);
PyObject *tn_linalg_d_ldl_factor(tn_value *a);
PyObject *tn_linalg_d_inv_out(tn_value *a);
PyObject *tn_linalg_d_ldl_factor_out(tn_value *a);
#endif
