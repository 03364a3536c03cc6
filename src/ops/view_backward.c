/* ops/view_backward.c — select_backward and slice_backward: zeros of the input's shape with the
 * gradient copied into the selected part, as upstream's kernels compute them (the inner zeros /
 * view / copy_ calls pass the door below any dispatch mode, like upstream's composite kernels). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

static PyObject *zeros_sized(tn_value *grad, tn_value *sizes) {
    return tn_at_zeros(TN_IN(sizes->u.ints.v, sizes->u.ints.n), TN_DT(tn_tensor_of(grad->u.obj)->dtype), NULL, NULL, NULL);
}

static PyObject *fill_part(PyObject *z, PyObject *part, PyObject *grad) {
    PyObject *c = part ? tn_at_copy_(part, grad, false) : NULL;
    Py_XDECREF(part);
    Py_XDECREF(c);
    if (!c) Py_CLEAR(z);
    return z;
}

/* select_backward(grad_output, input_sizes, dim, index) */
PyObject *tn_op_select_backward(tn_value *a) {
    PyObject *z = zeros_sized(&a[0], &a[1]);
    if (!z) return NULL;
    return fill_part(z, tn_at_select_int(z, (long long)a[2].u.i, (long long)a[3].u.i), a[0].u.obj);
}

/* slice_backward(grad_output, input_sizes, dim, start, end, step) */
PyObject *tn_op_slice_backward(tn_value *a) {
    PyObject *z = zeros_sized(&a[0], &a[1]);
    if (!z) return NULL;
    return fill_part(z, tn_at_slice_Tensor(z, (long long)a[2].u.i, TN_I((long long)a[3].u.i), TN_I((long long)a[4].u.i), (long long)a[5].u.i), a[0].u.obj);
}
