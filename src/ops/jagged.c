/* ops/jagged.c — the jagged <-> padded dense conversions torch.nested's jagged layout calls
 * (NestedTensor.to_padded_tensor, nested_tensor_from_padded), as upstream's CPU kernels
 * (_jagged_to_padded_dense_forward_cpu / _padded_dense_to_jagged_forward_cpu): one slice copy per
 * batch item through the door, a single jagged dim, with upstream's checks. */
#include "ops/common.h"

#include "tn_ops_gen.h"

/* offsets[i] as int64 (any integer or floating dtype, as item<int64_t>); reads int64 offsets in place */
static PyObject *offsets_i64(PyObject *offs) {
    if (tn_tensor_of(offs)->dtype == TN_DTYPE_I64) return Py_NewRef(offs);
    return tn_at_to_dtype(offs, TN_DT(TN_DTYPE_I64), false, false, NULL);
}
static int64_t off_at(PyObject *o64, int64_t i) {
    const tn_tensor *t = tn_tensor_of(o64);
    return *(const int64_t *)(tn_data(t) + (size_t)(i * t->strides[0]) * sizeof(int64_t));
}

static PyObject *the_offsets(tn_value *list, const char *who) {
    if (PyTuple_Size(list->u.obj) != 1) {
        PyErr_Format(PyExc_RuntimeError, "%s(): only a single jagged dim is supported for now", who);
        return NULL;
    }
    PyObject *offs = PyTuple_GetItem(list->u.obj, 0);
    if (tn_tensor_of(offs)->ndim != 1)
        return PyErr_Format(PyExc_RuntimeError, "%s(): expected 1D offsets, but got offsets.dim() == %d", who,
                            tn_tensor_of(offs)->ndim);
    return offsets_i64(offs);
}

/* copy src.slice(0, 0 or s0, ...) of `len` rows into dst's rows: dst_rows = dst[b] (dense) or a slice (values) */
static int copy_rows(PyObject *dst, PyObject *src) {
    PyObject *r = tn_at_copy_(dst, src, false);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

PyObject *tn_op__jagged_to_padded_dense_forward(tn_value *args) {
    PyObject *values = args[0].u.obj;
    const char *who = "_jagged_to_padded_dense_forward";
    if (args[2].u.ints.n != 1 || PyTuple_Size(args[1].u.obj) != 1)
        return PyErr_Format(PyExc_RuntimeError, "%s(): only a single jagged dim is supported for now", who);
    PyObject *o64 = the_offsets(&args[1], who);
    if (!o64) return NULL;
    const tn_tensor *v = tn_tensor_of(values);
    int64_t batch = tn_tensor_of(o64)->sizes[0] - 1, max_len = args[2].u.ints.v[0];
    int64_t shape[TN_MAX_DIMS + 1];
    if (v->ndim + 1 > TN_MAX_DIMS) { Py_DECREF(o64); return tn_not_implemented("_jagged_to_padded_dense_forward of this many dims"); }
    shape[0] = batch;
    shape[1] = max_len;
    for (int d = 1; d < v->ndim; d++) shape[d + 1] = v->sizes[d];
    PyObject *padded = tn_at_new_full(values, TN_IN(shape, v->ndim + 1), TN_SD(args[3].u.f), NULL, NULL, NULL, NULL);
    for (int64_t i = 0; padded && i < batch; i++) {
        int64_t start = off_at(o64, i), len = off_at(o64, i + 1) - start;
        if (len > max_len) len = max_len;   /* truncated, as upstream's CUDA kernel */
        int64_t end = start + len, zero = 0;
        PyObject *src = tn_at_slice_Tensor(values, 0, &start, &end, 1);
        PyObject *row = src ? tn_at_select_int(padded, 0, i) : NULL;
        PyObject *dst = row ? tn_at_slice_Tensor(row, 0, &zero, &len, 1) : NULL;
        if (!dst || copy_rows(dst, src) < 0) Py_CLEAR(padded);
        Py_XDECREF(src); Py_XDECREF(row); Py_XDECREF(dst);
    }
    Py_DECREF(o64);
    return padded;
}

PyObject *tn_op__padded_dense_to_jagged_forward(tn_value *args) {
    PyObject *padded = args[0].u.obj;
    const char *who = "_padded_dense_to_jagged_forward";
    PyObject *o64 = the_offsets(&args[1], who);
    if (!o64) return NULL;
    int64_t n = tn_tensor_of(o64)->sizes[0];
    if (n == 0) { Py_DECREF(o64); return PyErr_Format(PyExc_IndexError, "index -1 is out of bounds for dimension 0 with size 0"); }
    int64_t final = off_at(o64, n - 1);
    const int64_t *total = tn_opt_int_of(&args[2]);
    int64_t total_l = total ? *total : final;
    const tn_tensor *p = tn_tensor_of(padded);
    if (total && final != total_l) {
        Py_DECREF(o64);
        return PyErr_Format(PyExc_RuntimeError, "%s(): final offset should match total_L value", who);
    }
    if (p->ndim < 2) {
        Py_DECREF(o64);
        return PyErr_Format(PyExc_RuntimeError, "%s(): expected padded dim >= 2, but padded.dim() == %d", who, p->ndim);
    }
    int64_t shape[TN_MAX_DIMS];
    shape[0] = total_l;
    for (int d = 2; d < p->ndim; d++) shape[d - 1] = p->sizes[d];
    PyObject *values = tn_at_new_empty(padded, TN_IN(shape, p->ndim - 1), NULL, NULL, NULL, NULL);
    for (int64_t i = 0; values && i < n - 1; i++) {
        int64_t start = off_at(o64, i), end = off_at(o64, i + 1), len = end - start, zero = 0;
        if (len > p->sizes[1]) {
            PyErr_Format(PyExc_RuntimeError, "%s(): found batch item of length %lld when max length specified by padded input is %lld",
                         who, (long long)len, (long long)p->sizes[1]);
            Py_CLEAR(values);
            break;
        }
        PyObject *dst = tn_at_slice_Tensor(values, 0, &start, &end, 1);
        PyObject *row = dst ? tn_at_select_int(padded, 0, i) : NULL;
        PyObject *src = row ? tn_at_slice_Tensor(row, 0, &zero, &len, 1) : NULL;
        if (!src || copy_rows(dst, src) < 0) Py_CLEAR(values);
        Py_XDECREF(src); Py_XDECREF(row); Py_XDECREF(dst);
    }
    Py_DECREF(o64);
    return values;
}
