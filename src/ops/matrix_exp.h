/* ops/matrix_exp.h — linalg_matrix_exp's differential, shared by its backward formula
 * (autograd/formulas.c) and matrix_exp_backward (ops/matrix_exp.c). */
#ifndef TN_OPS_MATRIX_EXP_H
#define TN_OPS_MATRIX_EXP_H
#include <Python.h>
#include <stdbool.h>

/* exp([[B, G], [0, B]])'s top-right block, B = A^H when adjoint (the backward) else A */
PyObject *tn_matrix_exp_differential(PyObject *A, PyObject *G, bool adjoint);
#endif
