/* ops/copies.c — the *_copy variants of view ops (upstream's generated view_copy kernels):
 * the view op with the same arguments through the door, then a contiguous copy of each
 * resulting tensor (never a view). narrow_copy is narrow then a contiguous copy, as upstream's
 * result. Their autograd nodes are the views' (<View>Backward0_copy) with the views' formulas. */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

static PyObject *contig_copy(PyObject *v) {
    const tn_tensor *t = tn_tensor_of(v);
    PyObject *c = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    if (c && tn_copy_into(c, v) < 0) Py_CLEAR(c);
    return c;
}

/* the view row's result (a tensor or a list of tensors), each copied contiguous */
static PyObject *copy_of(int view_row, tn_value *a) {
    PyObject *v = tn_door_call(view_row, a);
    if (!v) return NULL;
    if (PyObject_TypeCheck(v, tn_py.tensor_class)) {
        PyObject *c = contig_copy(v);
        Py_DECREF(v);
        return c;
    }
    PyObject *seq = PySequence_Tuple(v);
    Py_DECREF(v);
    if (!seq) return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    PyObject *l = PyTuple_New(n);   /* Tensor[] results are tuples, as the views' */
    for (Py_ssize_t i = 0; l && i < n; i++) {
        PyObject *c = contig_copy(PyTuple_GetItem(seq, i));
        if (!c) { Py_CLEAR(l); break; }
        PyTuple_SetItem(l, i, c);
    }
    Py_DECREF(seq);
    return l;
}

#define COPY_OF(fn, row) PyObject *tn_op_##fn(tn_value *a) { return copy_of(TN_ROW_##row, a); }
COPY_OF(as_strided_copy, as_strided)
COPY_OF(diagonal_copy, diagonal)
COPY_OF(expand_copy, expand)
COPY_OF(permute_copy, permute)
COPY_OF(select_copy_int, select_int)
COPY_OF(slice_copy_Tensor, slice_Tensor)
COPY_OF(split_copy_Tensor, split_Tensor)
COPY_OF(split_with_sizes_copy, split_with_sizes)
COPY_OF(squeeze_copy, squeeze)
COPY_OF(squeeze_copy_dim, squeeze_dim)
COPY_OF(squeeze_copy_dims, squeeze_dims)
COPY_OF(t_copy, t)
COPY_OF(transpose_copy_int, transpose_int)
COPY_OF(unsqueeze_copy, unsqueeze)
COPY_OF(unbind_copy_int, unbind_int)
COPY_OF(view_copy, reshape)   /* upstream copies through reshape when the view is impossible */
/* view_copy.dtype: upstream's view(dtype), then a contiguous clone, which for a quantized dtype
 * is its quantized copy refusing the (quantized) source (measured) */
PyObject *tn_op_view_copy_dtype(tn_value *a) {
    if (a[1].tag == TN_V_DTYPE && tn_dtype_infos[a[1].u.dtype].kind == TN_KIND_QUANT) {
        PyObject *v = tn_door_call(TN_ROW_view_dtype, a);
        if (!v) return NULL;
        Py_DECREF(v);
        PyErr_SetString(PyExc_RuntimeError, "Quantized copy only works with kFloat as source Tensor");
        return NULL;
    }
    return copy_of(TN_ROW_view_dtype, a);
}
COPY_OF(alias_copy, alias)
/* narrow_copy's CPU kernel: after narrow's 0-dim check, a dim past self's dims (not a negative
 * one, which wraps) is its own check's RuntimeError (measured; meta goes through narrow) */
PyObject *tn_op_narrow_copy(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    if (t->ndim > 0 && a[1].u.i >= t->ndim && !tn_door_on_meta()) {
        PyErr_SetString(PyExc_RuntimeError, "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                                            "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
        return NULL;
    }
    return copy_of(TN_ROW_narrow, a);
}
COPY_OF(lift_fresh_copy, lift_fresh)   /* a contiguous copy with the bits resolved (measured) */
