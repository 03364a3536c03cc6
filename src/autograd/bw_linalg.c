/* bw_linalg.c — FunctionsManual's cholesky_inverse_backward and cholesky_solve_backward
 * (docs/bw_formulas.md), step for step through the typed op API in the order upstream's build
 * evaluates them (operands of a Tensor operator right to left, a call's arguments before the
 * call). Tensor arguments are borrowed; results are new references, NULL with an exception. */
#include "autograd/bw_helpers.h"

/* cholesky_inverse_backward(grad, L, upper, inverse): common = inverse (grad + grad^H) inverse;
 * -(L common) when upper, else -(common L) */
PyObject *tn_bw_cholesky_inverse_backward(PyObject *grad, PyObject *L, bool upper, PyObject *inverse) {
    PyObject *gh = tn_at_mH(grad), *ct = gh ? tn_at_add_Tensor(grad, gh, TN_SDEF) : NULL;
    PyObject *a = ct ? tn_at_matmul(ct, inverse) : NULL, *b = a ? tn_at_matmul(inverse, a) : NULL;
    PyObject *m = b ? (upper ? tn_at_matmul(L, b) : tn_at_matmul(b, L)) : NULL, *r = m ? tn_at_neg(m) : NULL;
    Py_XDECREF(gh); Py_XDECREF(ct); Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(m);
    return r;
}

/* cholesky_solve_backward(grad_x, self, input2, result, upper, mask) -> (self's, input2's):
 * grad_self = grad_x.cholesky_solve(input2, upper); common = grad_self result^H, made Hermitian
 * (common + common^H); input2's -(input2 common) when upper, else -(common input2). Both are
 * computed whatever the mask says, as upstream's. */
PyObject *tn_bw_cholesky_solve_backward(PyObject *grad, PyObject *self, PyObject *input2, PyObject *result, bool upper, tn_ints mask) {
    (void)self; (void)mask;
    PyObject *gs = tn_at_cholesky_solve(grad, input2, upper), *rh = gs ? tn_at_mH(result) : NULL;
    PyObject *ct = rh ? tn_at_matmul(gs, rh) : NULL, *cth = ct ? tn_at_mH(ct) : NULL;
    PyObject *c2 = cth ? tn_at_add_Tensor(ct, cth, TN_SDEF) : NULL;
    PyObject *m = c2 ? (upper ? tn_at_matmul(input2, c2) : tn_at_matmul(c2, input2)) : NULL, *gi = m ? tn_at_neg(m) : NULL;
    PyObject *r = gi ? PyTuple_Pack(2, gs, gi) : NULL;
    Py_XDECREF(gs); Py_XDECREF(rh); Py_XDECREF(ct); Py_XDECREF(cth); Py_XDECREF(c2); Py_XDECREF(m); Py_XDECREF(gi);
    return r;
}
