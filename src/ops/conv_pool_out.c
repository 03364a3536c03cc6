/* ops/conv_pool_out.c — the out= forms of convolution, pooling and the losses upstream gives generated
 * out= kernels (nll_loss, multilabel_margin_loss): the functional overload runs
 * through the door (its checks first, as upstream's meta functions run before the out tensors are
 * looked at), then each out tensor must have the result's dtype exactly (upstream's structured and
 * generated out= kernels refuse a cast; the wording differs by kernel family), is resized as
 * upstream resizes out= tensors, and receives the result. */
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <string.h>

enum { MSG_STRUCTURED, MSG_SCALAR_TYPE, MSG_ADAPTIVE };

static PyObject *out_form(tn_value *a, const char *func, const char *overload, int nin, int nout, int msg, const char *label) {
    int row = tn_op_find(func, overload);
    if (row < 0) return tn_not_implemented(func);
    PyObject *r = tn_door_call(row, a);
    if (!r) return NULL;
    PyObject *res[3] = {NULL, NULL, NULL};   /* a one-out form of a tuple-returning op takes item 0 */
    for (int k = 0; k < nout; k++) res[k] = Py_NewRef(nout == 1 && !PyTuple_Check(r) ? r : PyTuple_GetItem(r, k));
    Py_DECREF(r);
    for (int k = 0; k < nout; k++) {
        tn_dtype got = tn_tensor_of(a[nin + k].u.obj)->dtype;
        if (res[k] == Py_None) {   /* an output the mask left undefined (convolution_backward) */
            PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype nullptr (uninitialized), but got %s instead",
                         tn_dtype_cxx_name(got));
            for (int j = 0; j < nout; j++) Py_XDECREF(res[j]);
            return NULL;
        }
        tn_dtype want = tn_tensor_of(res[k])->dtype;
        if (want == got) continue;
        if (msg == MSG_SCALAR_TYPE)
            PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(want), tn_dtype_cpp_name(got));
        else if (msg == MSG_ADAPTIVE)
            PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `output` but got dtype %s", tn_dtype_cxx_name(want), tn_dtype_cxx_name(got));
        else
            PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype %s, but got %s instead", tn_dtype_cxx_name(want),
                         tn_dtype_cxx_name(got));
        for (int j = 0; j < nout; j++) Py_XDECREF(res[j]);
        return NULL;
    }
    PyObject *outs[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int k = 0; k < nout; k++) {
        outs[k] = ok ? tn_out_deliver(res[k], a[nin + k].u.obj, label) : (Py_DECREF(res[k]), NULL);
        if (!outs[k]) ok = 0;
    }
    if (!ok) {
        for (int k = 0; k < nout; k++) Py_XDECREF(outs[k]);
        return NULL;
    }
    if (nout == 1) return outs[0];
    PyObject *t = PyTuple_New(nout);
    for (int k = 0; t && k < nout; k++) PyTuple_SetItem(t, k, outs[k]);
    if (!t)
        for (int k = 0; k < nout; k++) Py_DECREF(outs[k]);
    return t;
}

#define OUT_FORM(fn, func, ov, nin, nout, msg) \
    PyObject *fn(tn_value *a) { return out_form(a, func, ov, nin, nout, msg, func); }

OUT_FORM(tn_op_convolution_out, "convolution", "", 9, 1, MSG_STRUCTURED)
/* the generated out= forms of lift and lift_fresh_copy (copy_arg: the dtype exactly; an out of
 * self's shape with internal overlap, an expanded one, is refused first, as upstream's copy into
 * it; an out of another shape is resized first: measured) */
static bool same_shape(const tn_tensor *a, const tn_tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->sizes[i] != b->sizes[i]) return false;
    return true;
}
#define LIFT_OUT_FORM(fn, func) \
    PyObject *fn(tn_value *a) { \
        if (same_shape(tn_tensor_of(a[0].u.obj), tn_tensor_of(a[1].u.obj)) && tn_check_overlap(a[1].u.obj, 0, NULL) < 0) \
            return NULL; \
        return out_form(a, func, "", 1, 1, MSG_STRUCTURED, func); \
    }
LIFT_OUT_FORM(tn_op_lift_out, "lift")
LIFT_OUT_FORM(tn_op_lift_fresh_copy_out, "lift_fresh_copy")
OUT_FORM(tn_op_convolution_backward_out, "convolution_backward", "", 11, 3, MSG_STRUCTURED)
OUT_FORM(tn_op_nll_loss_out, "nll_loss_forward", "", 5, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_multilabel_margin_loss_out, "multilabel_margin_loss_forward", "", 3, 1, MSG_SCALAR_TYPE)
OUT_FORM(tn_op__convolution_out, "_convolution", "", 13, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_im2col_out, "im2col", "", 5, 1, MSG_SCALAR_TYPE)
OUT_FORM(tn_op_col2im_out, "col2im", "", 6, 1, MSG_SCALAR_TYPE)
OUT_FORM(tn_op_max_pool2d_with_indices_out, "max_pool2d_with_indices", "", 6, 2, MSG_STRUCTURED)
OUT_FORM(tn_op_max_pool3d_with_indices_out, "max_pool3d_with_indices", "", 6, 2, MSG_STRUCTURED)
OUT_FORM(tn_op_max_pool2d_with_indices_backward_grad_input, "max_pool2d_with_indices_backward", "", 8, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_max_pool3d_with_indices_backward_grad_input, "max_pool3d_with_indices_backward", "", 8, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_avg_pool2d_out, "avg_pool2d", "", 7, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_avg_pool3d_out, "avg_pool3d", "", 7, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_avg_pool2d_backward_grad_input, "avg_pool2d_backward", "", 8, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_avg_pool3d_backward_grad_input, "avg_pool3d_backward", "", 8, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_adaptive_max_pool2d_out, "adaptive_max_pool2d", "", 2, 2, MSG_STRUCTURED)
OUT_FORM(tn_op_adaptive_max_pool3d_out, "adaptive_max_pool3d", "", 2, 2, MSG_STRUCTURED)
OUT_FORM(tn_op_adaptive_max_pool2d_backward_grad_input, "adaptive_max_pool2d_backward", "", 3, 1, MSG_STRUCTURED)
OUT_FORM(tn_op_adaptive_max_pool3d_backward_grad_input, "adaptive_max_pool3d_backward", "", 3, 1, MSG_STRUCTURED)
OUT_FORM(tn_op__adaptive_avg_pool2d_out, "_adaptive_avg_pool2d", "", 2, 1, MSG_STRUCTURED)
OUT_FORM(tn_op__adaptive_avg_pool3d_out, "_adaptive_avg_pool3d", "", 2, 1, MSG_STRUCTURED)
OUT_FORM(tn_op__adaptive_avg_pool2d_backward_out, "_adaptive_avg_pool2d_backward", "", 2, 1, MSG_STRUCTURED)
/* with a meta tensor among its three, upstream's call goes to its Python meta function, which it
 * calls with out= twice: that TypeError (measured) */
PyObject *tn_op__adaptive_avg_pool3d_backward_out(tn_value *a) {
    if (tn_door_on_meta() || tn_door_out_trial()) {
        PyErr_SetString(PyExc_TypeError, "torch._meta_registrations.meta__adaptive_avg_pool3d_backward() got multiple "
                                         "values for keyword argument 'out'");
        return NULL;
    }
    return out_form(a, "_adaptive_avg_pool3d_backward", "", 2, 1, MSG_STRUCTURED, "_adaptive_avg_pool3d_backward");
}
/* adaptive_avg_pool2d.out has its own CPU kernel (no Meta one): output_size of 2, no empty
 * non-batch dim, then a 3-d or 4-d input (the functional form also takes other ranks; measured) */
PyObject *tn_op_adaptive_avg_pool2d_out(tn_value *a) {
    if (tn_door_on_meta() || tn_door_out_trial()) return tn_meta_no_kernel("adaptive_avg_pool2d.out");
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    char b[512];
    if (a[1].u.ints.n != 2) {
        PyErr_SetString(PyExc_RuntimeError, "adaptive_avg_pool2d: output_size must be 2");
        return NULL;
    }
    for (int i = 1; i < t->ndim; i++)
        if (t->sizes[i] == 0) {
            tn_shape_str(b, sizeof b, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                         "dimensions, but input has sizes %s with dimension %d being empty", b, i);
            return NULL;
        }
    if (t->ndim != 3 && t->ndim != 4) {
        tn_shape_str(b, sizeof b, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", b);
        return NULL;
    }
    return out_form(a, "adaptive_avg_pool2d", "", 2, 1, MSG_ADAPTIVE, "adaptive_avg_pool2d");
}
OUT_FORM(tn_op_adaptive_avg_pool3d_out, "adaptive_avg_pool3d", "", 2, 1, MSG_ADAPTIVE)
