/* ops/predicates.c — questions about a tensor's kind, and the conjugate/negative-bit views.
 * torchnative has no lazy conjugate or negative bits, zero tensors or inference tensors, so the
 * bit queries answer False and resolve_conj / resolve_neg return the tensor itself, as upstream
 * does for tensors without those bits. conj of a real tensor is the tensor itself; of a complex
 * one it would need the lazy bit, and refuses by name. */
#include "ops/common.h"

static PyObject *no(tn_value *a) { Py_RETURN_FALSE; }
static PyObject *self_(tn_value *a) { return Py_NewRef(a[0].u.obj); }

PyObject *tn_op__is_zerotensor(tn_value *a) { return no(a); }
PyObject *tn_op_is_conj(tn_value *a) { return no(a); }
PyObject *tn_op_is_neg(tn_value *a) { return no(a); }
PyObject *tn_op_is_inference(tn_value *a) { return no(a); }
PyObject *tn_op_resolve_conj(tn_value *a) { return self_(a); }
PyObject *tn_op_resolve_neg(tn_value *a) { return self_(a); }

PyObject *tn_op_is_floating_point(tn_value *a) { return PyBool_FromLong(tn_dtype_is_floating(TN_T(a[0])->dtype)); }
PyObject *tn_op_is_complex(tn_value *a) { return PyBool_FromLong(tn_dtype_is_complex(TN_T(a[0])->dtype)); }
PyObject *tn_op_is_signed(tn_value *a) {
    tn_dtype_kind k = tn_dtype_infos[TN_T(a[0])->dtype].kind;
    return PyBool_FromLong(k != TN_KIND_UINT && k != TN_KIND_BOOL && k != TN_KIND_SUBBYTE_UINT);
}

PyObject *tn_op_is_same_size(tn_value *a) {
    tn_tensor *x = TN_T(a[0]), *y = TN_T(a[1]);
    return PyBool_FromLong(x->ndim == y->ndim && !memcmp(x->sizes, y->sizes, (size_t)x->ndim * sizeof(int64_t)));
}

PyObject *tn_op_conj(tn_value *a) {
    if (tn_dtype_is_complex(TN_T(a[0])->dtype)) return tn_not_implemented("aten::conj for complex tensors");
    return self_(a);
}
PyObject *tn_op__conj(tn_value *a) { return tn_op_conj(a); }

PyObject *tn_op_is_nonzero(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int64_t n = tn_numel(t);
    if (n != 1) {
        PyErr_SetString(PyExc_RuntimeError, n == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                                   : "Boolean value of Tensor with more than one value is ambiguous");
        return NULL;
    }
    PyObject *b = tn_as_dtype(a[0].u.obj, TN_DTYPE_BOOL, true);
    if (!b) return NULL;
    PyObject *r = PyBool_FromLong(*tn_data(tn_tensor_of(b)) != 0);
    Py_DECREF(b);
    return r;
}
