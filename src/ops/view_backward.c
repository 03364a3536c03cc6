/* ops/view_backward.c — select_backward and slice_backward: zeros of the input's shape with the
 * gradient copied into the selected part, as upstream's kernels compute them (the inner zeros /
 * view / copy_ calls pass the door below any dispatch mode, like upstream's composite kernels). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

static PyObject *zeros_sized(tn_value *grad, tn_value *sizes) {
    PyObject *sz = tn_value_to_python(sizes);
    PyObject *dt = sz ? tn_py_from_dtype(tn_tensor_of(grad->u.obj)->dtype) : NULL;
    PyObject *kw = dt ? Py_BuildValue("{sO}", "dtype", dt) : NULL;
    PyObject *z = kw ? tn_aten_kw(TN_ROW_zeros, kw, "(O)", sz) : NULL;
    Py_XDECREF(sz); Py_XDECREF(dt); Py_XDECREF(kw);
    return z;
}

static PyObject *fill_part(PyObject *z, PyObject *part, PyObject *grad) {
    PyObject *c = part ? tn_aten(TN_ROW_copy_, "(OO)", part, grad) : NULL;
    Py_XDECREF(part);
    Py_XDECREF(c);
    if (!c) Py_CLEAR(z);
    return z;
}

/* select_backward(grad_output, input_sizes, dim, index) */
PyObject *tn_op_select_backward(tn_value *a) {
    PyObject *z = zeros_sized(&a[0], &a[1]);
    if (!z) return NULL;
    return fill_part(z, tn_aten(TN_ROW_select_int, "(OLL)", z, (long long)a[2].u.i, (long long)a[3].u.i), a[0].u.obj);
}

/* slice_backward(grad_output, input_sizes, dim, start, end, step) */
PyObject *tn_op_slice_backward(tn_value *a) {
    PyObject *z = zeros_sized(&a[0], &a[1]);
    if (!z) return NULL;
    return fill_part(z, tn_aten(TN_ROW_slice_Tensor, "(OLLLL)", z, (long long)a[2].u.i, (long long)a[3].u.i,
                                (long long)a[4].u.i, (long long)a[5].u.i), a[0].u.obj);
}
