/* sparse.c — sparse COO tensors: upstream's SparseTensorImpl (layout torch.sparse_coo, the SparseCPU
 * dispatch key) and the kernels everyday code reaches (docs/sparse_coo.md).
 *
 * A sparse tensor is a tensor object whose t carries its size and dtype over a storage holding no
 * bytes, whose layout is torch.sparse_coo, and whose `sparse` (core/object.h) holds indices (int64
 * [sparse_dim, nnz]), values ([nnz, *dense sizes]) and the coalesced flag. The door
 * (dispatch/door.c) sends every call with one among its arguments here, below autograd and the
 * dispatch modes. Kernels are built from dense ops on indices and values through the typed op API;
 * the one loop of our own is coalescing's sort and add's merge, which follow upstream's order. An
 * overload without a kernel here decomposes when it is CompositeImplicitAutograd, refuses by name
 * when upstream runs something on sparse arguments (TN_TAG_SPARSE), and refuses in upstream's
 * words ("Could not run ... 'SparseCPU' backend") otherwise. */
#include "ops/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/common.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

bool tn_sparse_check_invariants;
bool tn_sparse_check_invariants_set;

int tn_sparse_warn_implicit_checks(void) {
    static bool warned;
    if (warned || tn_sparse_check_invariants_set) return 0;
    warned = true;
    return PyErr_WarnEx(PyExc_UserWarning, "Sparse invariant checks are implicitly disabled. Memory errors (e.g. "
                        "SEGFAULT) will occur when operating on a sparse tensor which violates the invariants, but "
                        "checks incur performance overhead. To silence this warning, explicitly opt in or out. See "
                        "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered internally at "
                        "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)", 1);
}

static tn_sparse *SP(PyObject *o) { return o ? tn_sparse_of(o) : NULL; }
static int64_t nnz_of(const tn_sparse *m) { return tn_tensor_of(m->values)->sizes[0]; }

static PyObject *err(PyObject *type, const char *msg) {
    PyErr_SetString(type, msg);
    return NULL;
}

/* "[2, 3]" as upstream prints an IntArrayRef */
static const char *fmt_sizes(char *b, size_t n, const int64_t *v, int nd) {
    size_t k = (size_t)snprintf(b, n, "[");
    for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(b + k, n - k, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (k < n) snprintf(b + k, n - k, "]");
    return b;
}

/* A new sparse tensor of `size` over indices and values (both references taken; NULL passes a
 * failure through). The values' dtype is the tensor's. */
static PyObject *make(const int64_t *size, int ndim, int sparse_dim, PyObject *indices, PyObject *values, bool coalesced) {
    PyObject *o = NULL;
    if (!indices || !values) goto done;
    /* upstream's numel check: the sizes multiplied as unsigned 64-bit numbers, refused when the
     * product overflows or passes INT64_MAX, so a negative size refuses unless a 0 comes first
     * (measured: [-1] and [3, -7] refused, [0, -3] runs; docs/breadth_more2.md) */
    uint64_t numel = 1;
    bool overflow = false;
    for (int d = 0; d < ndim; d++) overflow |= __builtin_mul_overflow(numel, (uint64_t)size[d], &numel);
    if (overflow || numel > (uint64_t)INT64_MAX) {
        PyErr_SetString(PyExc_RuntimeError, "numel: integer multiplication overflow");
        goto done;
    }
    tn_storage *st = tn_storage_new(0, tn_tensor_of(values)->storage->device);
    if (!st) { PyErr_NoMemory(); goto done; }
    st->no_data = true;
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = st;
    t.dtype = tn_tensor_of(values)->dtype;
    t.ndim = ndim;
    if (ndim) memcpy(t.sizes, size, (size_t)ndim * sizeof *size);
    if (!(o = tn_tensor_wrap(&t))) goto done;
    tn_sparse m = {sparse_dim, ndim - sparse_dim, coalesced, indices, values};
    if (tn_sparse_set(o, &m) < 0) { Py_CLEAR(o); goto done; }
    ((tn_tensor_obj *)o)->layout = Py_NewRef(tn_py.layout_sparse_coo);
done:
    Py_XDECREF(indices);
    Py_XDECREF(values);
    return o;
}
/* the same geometry as sparse tensor `like` with new indices and values */
static PyObject *make_like(PyObject *like, PyObject *indices, PyObject *values, bool coalesced) {
    const tn_tensor *t = tn_tensor_of(like);
    return make(t->sizes, t->ndim, SP(like)->sparse_dim, indices, values, coalesced);
}
/* self (a sparse tensor) takes new indices and values in place (references taken) */
static PyObject *replace(PyObject *self, PyObject *indices, PyObject *values, bool coalesced) {
    if (!indices || !values) { Py_XDECREF(indices); Py_XDECREF(values); return NULL; }
    tn_sparse m = *SP(self);
    m.indices = indices;
    m.values = values;
    m.coalesced = coalesced;
    int rc = tn_sparse_set(self, &m);
    Py_DECREF(indices);
    Py_DECREF(values);
    return rc < 0 ? NULL : Py_NewRef(self);
}

/* empty indices [sparse_dim, 0] and values [0, *dense] */
static PyObject *empty_indices(int sparse_dim) {
    return tn_at_empty_memory_format(TN_IS(sparse_dim, 0), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
}
static PyObject *empty_values(const int64_t *dense, int dense_dim, tn_dtype dt) {
    int64_t sz[TN_MAX_DIMS + 1] = {0};
    if (dense_dim) memcpy(sz + 1, dense, (size_t)dense_dim * sizeof *dense);
    return tn_at_empty_memory_format(TN_IN(sz, dense_dim + 1), TN_DT(dt), NULL, NULL, NULL, NULL);
}

/* a new int64 vector of v[0..n) */
static PyObject *int_tensor(const int64_t *v, int64_t n) {
    PyObject *t = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (t && n) memcpy(tn_data(tn_tensor_of(t)), v, (size_t)n * sizeof *v);
    return t;
}

/* the rows of indices as a tuple of 1-d tensors (advanced indexing of a dense tensor) */
static PyObject *index_rows(PyObject *indices) { return tn_at_unbind_int(indices, 0); }

/* ---- construction ---- */

static PyObject *layout_refusal(const char *name) {
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s' with arguments from the 'CPU' backend. This could be "
                        "because the operator doesn't exist for this backend, or was omitted during the selective/custom build "
                        "process (if using custom build).", name);
}

/* SparseTensorImpl's resize check: len(size) == sparse_dim + dense_dim */
static int check_dims(int nd, int64_t sd, int64_t dd) {
    if (sd + dd == nd) return 0;
    PyErr_Format(PyExc_RuntimeError, "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = %d, sparse_dim = %lld, "
                 "dense_dim = %lld", nd, (long long)sd, (long long)dd);
    return -1;
}

/* _sparse_coo_tensor_with_dims_and_tensors(sparse_dim, dense_dim, size, indices, values, *, dtype,
 * layout, device, pin_memory, is_coalesced): SparseTensorImpl's checks, indices and values held
 * as detached aliases (upstream's shallow copies: writes through the caller's tensors show) */
PyObject *tn_op__sparse_coo_tensor_with_dims_and_tensors(tn_value *a) {
    if (a[6].tag != TN_V_LAYOUT || a[6].u.obj != tn_py.layout_sparse_coo) return layout_refusal("_sparse_coo_tensor_with_dims_and_tensors");
    int64_t sd = a[0].u.i, dd = a[1].u.i;
    const int64_t *size = a[2].u.ints.v;
    int nd = a[2].u.ints.n;
    const tn_tensor *ix = TN_T(a[3]), *v = TN_T(a[4]);
    char b1[200];
    if (check_dims(nd, sd, dd) < 0) return NULL;
    if (ix->dtype != TN_DTYPE_I64)
        return PyErr_Format(PyExc_RuntimeError, "indices must be an int64 tensor");
    if (v->ndim == 0) return err(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
    if (v->ndim == 0 || ix->ndim != 2 || ix->sizes[0] != sd) {
        if (ix->ndim != 2 || ix->sizes[0] != sd)
            return PyErr_Format(PyExc_RuntimeError, "dimensionality of indices must match sparse_dim, but got %lld and %lld",
                                (long long)(ix->ndim == 2 ? ix->sizes[0] : ix->ndim), (long long)sd);
    }
    if (v->ndim != dd + 1)
        return PyErr_Format(PyExc_RuntimeError, "values has incorrect number of dimensions. Expected: %lld, got: %d",
                            (long long)(dd + 1), v->ndim);
    if (ix->sizes[1] != v->sizes[0])
        return PyErr_Format(PyExc_RuntimeError, "indices and values must have same nnz, but got nnz from indices: %lld, nnz "
                            "from values: %lld", (long long)ix->sizes[1], (long long)v->sizes[0]);
    for (int d = 0; d < dd; d++)
        if (v->sizes[d + 1] != size[sd + d])
            return PyErr_Format(PyExc_RuntimeError, "values has incorrect size, expected %s, got %s",
                                fmt_sizes(b1, 100, size + sd, (int)dd), fmt_sizes(b1 + 100, 100, v->sizes + 1, v->ndim - 1));
    PyObject *vals = tn_at_detach(a[4].u.obj);
    if (vals && a[5].tag == TN_V_DTYPE && a[5].u.dtype != v->dtype) Py_SETREF(vals, tn_at__to_copy(vals, TN_DT(a[5].u.dtype), NULL, NULL, NULL, false, NULL));
    bool coalesced = a[9].tag == TN_V_BOOL ? a[9].u.i != 0 : ix->sizes[1] < 2;
    return make(size, nd, (int)sd, tn_at_detach(a[3].u.obj), vals, coalesced);
}

/* _sparse_coo_tensor_with_dims(sparse_dim, dense_dim, size, *, dtype, layout, device, pin_memory):
 * an empty (nnz 0) sparse tensor */
PyObject *tn_op__sparse_coo_tensor_with_dims(tn_value *a) {
    if (a[4].tag != TN_V_LAYOUT || a[4].u.obj != tn_py.layout_sparse_coo) return layout_refusal("_sparse_coo_tensor_with_dims");
    int64_t sd = a[0].u.i, dd = a[1].u.i;
    int nd = a[2].u.ints.n;
    if (check_dims(nd, sd, dd) < 0) return NULL;
    tn_dtype dt = a[3].tag == TN_V_DTYPE ? a[3].u.dtype : tn_py.default_dtype;
    return make(a[2].u.ints.v, nd, (int)sd, empty_indices((int)sd), empty_values(a[2].u.ints.v + sd, (int)dd, dt), true);
}

/* sparse_coo_tensor.size(size, *, dtype, layout, device, pin_memory): an empty sparse tensor */
PyObject *tn_op_sparse_coo_tensor_size(tn_value *a) {
    return tn_at__sparse_coo_tensor_with_dims(a[0].u.ints.n, 0, tn_ints_of(&a[0]), a[1].tag == TN_V_DTYPE ? TN_DT(a[1].u.dtype) : NULL,
                                              tn_py.layout_sparse_coo, NULL, NULL);
}
static PyObject *obj_or_null(const tn_value *v) {
    if (v->tag == TN_V_DTYPE) return TN_DT(v->u.dtype);
    return v->tag == TN_V_NONE ? NULL : v->u.obj;
}

/* the min and max of each row of indices (nnz > 0) */
static int row_extrema(PyObject *indices, PyObject **mn, PyObject **mx) {
    PyObject *lo = tn_at_min_dim(indices, 1, false), *hi = lo ? tn_at_max_dim(indices, 1, false) : NULL;
    *mn = lo ? tn_at_contiguous(PyTuple_GetItem(lo, 0), NULL) : NULL;
    *mx = hi ? tn_at_contiguous(PyTuple_GetItem(hi, 0), NULL) : NULL;
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    if (*mn && *mx) return 0;
    Py_CLEAR(*mn);
    Py_CLEAR(*mx);
    return -1;
}

static int check_indices_2d(PyObject *indices) {
    const tn_tensor *ix = tn_tensor_of(indices);
    char b[100];
    if (ix->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "indices must be sparse_dim x nnz, but got: %s", fmt_sizes(b, sizeof b, ix->sizes, ix->ndim));
        return -1;
    }
    if (SP(indices)) {
        PyErr_SetString(PyExc_RuntimeError, "expected indices to be a dense tensor, but got indices of layout Sparse");
        return -1;
    }
    return 0;
}

/* values of 0 dims read as one value, as numpy */
static PyObject *values_1d(PyObject *values) {
    return tn_tensor_of(values)->ndim == 0 ? tn_at_expand(values, TN_IS(1), false) : Py_NewRef(values);
}

/* _validate_sparse_coo_tensor_args(indices, values, size, is_coalesced, check_pinning) */
PyObject *tn_sparse_d_validate_args(tn_value *a) {
    if (check_indices_2d(a[0].u.obj) < 0) return NULL;
    const tn_tensor *ix = TN_T(a[0]), *v = TN_T(a[1]);
    int64_t sd = ix->sizes[0], dd = (v->ndim ? v->ndim : 1) - 1;
    if (check_dims(a[2].u.ints.n, sd, dd) < 0) return NULL;
    if (tn_numel(ix) > 0) {
        PyObject *mn, *mx;
        if (row_extrema(a[0].u.obj, &mn, &mx) < 0) return NULL;
        const int64_t *lo = (const int64_t *)tn_data(tn_tensor_of(mn)), *hi = (const int64_t *)tn_data(tn_tensor_of(mx));
        for (int64_t d = 0; d < sd; d++) {
            if (lo[d] < 0) {
                PyErr_Format(PyExc_RuntimeError, "found negative index %lld for dim %lld", (long long)lo[d], (long long)d);
                break;
            }
            if (hi[d] >= a[2].u.ints.v[d]) {
                PyErr_Format(PyExc_RuntimeError, "size is inconsistent with indices: for dim %lld, size is %lld but found index %lld",
                             (long long)d, (long long)a[2].u.ints.v[d], (long long)hi[d]);
                break;
            }
        }
        Py_DECREF(mn);
        Py_DECREF(mx);
        if (PyErr_Occurred()) return NULL;
    }
    if (a[3].tag == TN_V_BOOL && a[3].u.i) {   /* is_coalesced=True is checked too */
        PyObject *t = tn_at__sparse_coo_tensor_unsafe(a[0].u.obj, a[1].u.obj, tn_ints_of(&a[2]), NULL, tn_py.layout_sparse_coo,
                                                      NULL, NULL, NULL);
        PyObject *c = t ? tn_at_coalesce(t) : NULL;
        bool same = c && SP(c) && nnz_of(SP(c)) == ix->sizes[1];
        Py_XDECREF(t);
        Py_XDECREF(c);
        if (PyErr_Occurred()) return NULL;
        if (!same) return err(PyExc_RuntimeError, "cannot set is_coalesced to true if indices correspond to uncoalesced COO tensor");
    }
    Py_RETURN_NONE;
}

/* _sparse_coo_tensor_unsafe(indices, values, size, *, dtype, layout, device, pin_memory, is_coalesced) */
PyObject *tn_sparse_d_coo_tensor_unsafe(tn_value *a) {
    PyObject *v = values_1d(a[1].u.obj);
    if (!v) return NULL;
    const tn_tensor *ix = TN_T(a[0]);
    int64_t sd = ix->ndim > 0 ? ix->sizes[0] : 0, dd = tn_tensor_of(v)->ndim - 1;
    PyObject *r = tn_at__sparse_coo_tensor_with_dims_and_tensors(sd, dd, tn_ints_of(&a[2]), a[0].u.obj, v, obj_or_null(&a[3]),
                                                                 tn_py.layout_sparse_coo, NULL, NULL,
                                                                 a[7].tag == TN_V_BOOL ? TN_B(a[7].u.i) : NULL);
    Py_DECREF(v);
    return r;
}

static PyObject *expected_sparse_layout(const tn_value *layout) {
    if (layout->tag == TN_V_LAYOUT && layout->u.obj != tn_py.layout_sparse_coo) {
        PyObject *s = PyObject_Str(layout->u.obj);
        if (s) PyErr_Format(PyExc_RuntimeError, "expected sparse layout, but got layout %U", s);
        Py_XDECREF(s);
        return NULL;
    }
    return Py_None;
}

/* sparse_coo_tensor.indices_size(indices, values, size, *, dtype, layout, device, pin_memory, is_coalesced) */
PyObject *tn_sparse_d_coo_tensor_indices_size(tn_value *a) {
    if (!expected_sparse_layout(&a[4])) return NULL;
    const bool *coalesced = a[7].tag == TN_V_BOOL ? TN_B(a[7].u.i) : NULL;
    if (tn_sparse_check_invariants) {
        PyObject *ok = tn_at__validate_sparse_coo_tensor_args(a[0].u.obj, a[1].u.obj, tn_ints_of(&a[2]), coalesced, NULL);
        if (!ok) return NULL;
        Py_DECREF(ok);
    }
    return tn_at__sparse_coo_tensor_unsafe(a[0].u.obj, a[1].u.obj, tn_ints_of(&a[2]), obj_or_null(&a[3]), tn_py.layout_sparse_coo,
                                           NULL, NULL, coalesced);
}

/* sparse_coo_tensor.indices(indices, values, *, dtype, layout, device, pin_memory, is_coalesced):
 * the size inferred as each sparse dim's largest index + 1 and the values' dense sizes */
PyObject *tn_sparse_d_coo_tensor_indices(tn_value *a) {
    if (!expected_sparse_layout(&a[3])) return NULL;
    if (check_indices_2d(a[0].u.obj) < 0) return NULL;
    PyObject *v = values_1d(a[1].u.obj);
    if (!v) return NULL;
    const tn_tensor *ix = TN_T(a[0]), *vt = tn_tensor_of(v);
    int64_t sd = ix->sizes[0], dd = vt->ndim - 1, size[TN_MAX_DIMS] = {0};
    if (sd + dd > TN_MAX_DIMS) { Py_DECREF(v); return err(PyExc_RuntimeError, "sparse_coo_tensor: too many dimensions"); }
    if (tn_numel(ix) > 0) {
        PyObject *mn, *mx;
        if (row_extrema(a[0].u.obj, &mn, &mx) < 0) { Py_DECREF(v); return NULL; }
        const int64_t *lo = (const int64_t *)tn_data(tn_tensor_of(mn)), *hi = (const int64_t *)tn_data(tn_tensor_of(mx));
        for (int64_t d = 0; d < sd && !PyErr_Occurred(); d++) {
            if (lo[d] < 0) PyErr_Format(PyExc_RuntimeError, "found negative index %lld for dim %lld", (long long)lo[d], (long long)d);
            size[d] = hi[d] + 1;
        }
        Py_DECREF(mn);
        Py_DECREF(mx);
        if (PyErr_Occurred()) { Py_DECREF(v); return NULL; }
    }
    for (int64_t d = 0; d < dd; d++) size[sd + d] = vt->sizes[d + 1];
    PyObject *r = tn_at__sparse_coo_tensor_with_dims_and_tensors(sd, dd, TN_IN(size, sd + dd), a[0].u.obj, v, obj_or_null(&a[2]),
                                                                 tn_py.layout_sparse_coo, NULL, NULL,
                                                                 a[6].tag == TN_V_BOOL ? TN_B(a[6].u.i) : NULL);
    Py_DECREF(v);
    return r;
}

/* ---- dense <-> sparse ---- */

/* the dense blocks of self at the sd-row indices ix: self with its sparse dims flattened, indexed
 * by each column's row-major position (one index tensor, so any number of sparse dims: advanced
 * indexing takes at most 6) */
static PyObject *sparse_block_values(PyObject *self, PyObject *ix, int64_t sd) {
    const tn_tensor *t = tn_tensor_of(self);
    int64_t shape[TN_MAX_DIMS + 1], n = 1;
    for (int64_t d = 0; d < sd; d++) n *= t->sizes[d];
    shape[0] = n;
    memcpy(shape + 1, t->sizes + sd, (size_t)(t->ndim - sd) * sizeof *shape);
    PyObject *lin = tn_at_select_int(ix, 0, 0);
    for (int64_t d = 1; d < sd && lin; d++) {
        PyObject *row = tn_at_select_int(ix, 0, d);
        Py_SETREF(lin, row ? tn_at_add_Tensor(row, lin, TN_SI(t->sizes[d])) : NULL);
        Py_XDECREF(row);
    }
    PyObject *flat = lin ? tn_at_reshape(self, TN_IN(shape, t->ndim - sd + 1)) : NULL;
    PyObject *key = flat ? PyTuple_Pack(1, lin) : NULL;
    PyObject *vals = key ? tn_at_index_Tensor(flat, TN_TPY(key)) : NULL;
    Py_XDECREF(key);
    Py_XDECREF(flat);
    Py_XDECREF(lin);
    return vals;
}

/* _to_sparse.sparse_dim(self, sparse_dim) on a dense tensor: the positions whose dense block has
 * a nonzero, in row-major order (coalesced) */
static PyObject *dense_to_sparse(PyObject *self, int64_t sd) {
    const tn_tensor *t = tn_tensor_of(self);
    if (sd < 0 || sd > t->ndim)
        return PyErr_Format(PyExc_RuntimeError, "dense_to_sparse: sparse_dim argument must be in [0,%d] range, but %lld is given",
                            t->ndim, (long long)sd);
    if (sd == 0 && t->ndim > 0) return err(PyExc_RuntimeError, "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0");
    /* upstream counts the nonzeros with a kernel not built for uint16/32/64 and float8 (measured) */
    if (tn_dtype_barebones(t->dtype)) return tn_kernel_missing("nonzero_count_cpu", t->dtype);
    PyObject *mask = tn_at_ne_Scalar(self, TN_SI(0));
    if (mask && sd < t->ndim) {   /* any nonzero in each dense block */
        int64_t shape[TN_MAX_DIMS + 1];
        memcpy(shape, t->sizes, (size_t)sd * sizeof *shape);
        shape[sd] = 1;   /* not -1: ambiguous when a sparse size is 0 */
        for (int d = (int)sd; d < t->ndim; d++) shape[sd] *= t->sizes[d];
        Py_SETREF(mask, tn_at_reshape(mask, TN_IN(shape, sd + 1)));
        if (mask && tn_numel(tn_tensor_of(mask)) == 0) Py_SETREF(mask, tn_at_zeros(TN_IN(t->sizes, sd), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL));
        else if (mask) Py_SETREF(mask, tn_at_any_dim(mask, sd, false));
    }
    PyObject *nz = mask ? tn_at_nonzero(mask) : NULL;
    PyObject *ix = nz ? tn_at_t(nz) : NULL;
    if (ix) Py_SETREF(ix, tn_at_contiguous(ix, NULL));
    Py_XDECREF(mask);
    Py_XDECREF(nz);
    if (!ix) return NULL;
    PyObject *vals = t->ndim ? sparse_block_values(self, ix, sd) : tn_at_reshape(self, TN_IS(1));
    if (vals) Py_SETREF(vals, tn_at_clone(vals, NULL));
    return make(t->sizes, t->ndim, (int)sd, ix, vals, true);
}

static PyObject *sparse_to_sparse_dim(PyObject *self, int64_t sd) {
    if (sd != SP(self)->sparse_dim)
        return err(PyExc_RuntimeError, "to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() is not supported");
    return Py_NewRef(self);
}

/* _to_sparse.sparse_dim(self, sparse_dim) */
/* a dense tensor on meta: upstream has no Meta kernel for the conversions (sparse inputs have theirs) */
static bool dense_on_meta(PyObject *self) { return tn_door_on_meta() && !SP(self) && !tn_compressed_of(self); }

PyObject *tn_op__to_sparse_sparse_dim(tn_value *a) {
    if (dense_on_meta(a[0].u.obj)) return tn_meta_no_kernel("_to_sparse.sparse_dim");
    if (tn_compressed_of(a[0].u.obj)) return tn_compressed_to_coo(a[0].u.obj, a[1].u.i);
    return SP(a[0].u.obj) ? sparse_to_sparse_dim(a[0].u.obj, a[1].u.i) : dense_to_sparse(a[0].u.obj, a[1].u.i);
}

static bool compressed_layout(const tn_value *layout) {
    return layout->tag == TN_V_LAYOUT && layout->u.obj != tn_py.layout_sparse_coo && layout->u.obj != Py_None &&
           layout->u.obj != tn_py.layout_strided;
}
static int check_coo_layout(const tn_value *layout, const tn_value *blocksize) {
    if (blocksize->tag != TN_V_NONE) {
        PyErr_SetString(PyExc_RuntimeError, "to_sparse for Strided to SparseCoo conversion does not use specified blocksize");
        return -1;
    }
    return 0;
}

static PyObject *same_layout_assert(int line, const char *who) {
    return PyErr_Format(PyExc_RuntimeError, "self.layout() != layout_to INTERNAL ASSERT FAILED at "
                        "\"/__w/pytorch/pytorch/aten/src/ATen/native/TensorConversions.cpp\":%d, please report a bug to PyTorch. "
                        "%s: unexpected same input and output layout", line, who);
}

/* _to_sparse(self, *, layout, blocksize, dense_dim): COO, or a compressed layout (sparse_compressed.c) */
PyObject *tn_op__to_sparse(tn_value *a) {
    if (dense_on_meta(a[0].u.obj)) return tn_meta_no_kernel("_to_sparse");
    bool strided = a[1].tag == TN_V_LAYOUT && a[1].u.obj == tn_py.layout_strided;
    /* the conversion to self's own layout is upstream's internal assert, before any other check
     * (to_sparse returns self before calling _to_sparse; measured, docs/breadth_more2.md "group sparse") */
    if (strided && !SP(a[0].u.obj) && !tn_compressed_of(a[0].u.obj)) return same_layout_assert(1456, "dense_to_sparse");
    if (SP(a[0].u.obj) && !strided && !compressed_layout(&a[1])) return same_layout_assert(2381, "sparse_coo_to_sparse");
    if (SP(a[0].u.obj) && strided) {   /* COO to strided: to_dense, neither blocksize nor dense_dim taken */
        const char *given = a[2].tag != TN_V_NONE ? "blocksize" : a[3].tag == TN_V_INT ? "dense_dim" : NULL;
        if (given)
            return PyErr_Format(PyExc_RuntimeError, "sparse_coo_to_sparse: conversion from Sparse to Strided with %s argument given is not supported", given);
        return tn_at__to_dense(a[0].u.obj, NULL, NULL);
    }
    if (compressed_layout(&a[1])) return tn_compressed_to_layout(a[0].u.obj, a[1].u.obj, &a[2], &a[3]);
    if (check_coo_layout(&a[1], &a[2]) < 0) return NULL;
    if (tn_compressed_of(a[0].u.obj)) return tn_compressed_to_coo(a[0].u.obj, -1);
    int64_t dd = a[3].tag == TN_V_INT ? a[3].u.i : 0;
    return dense_to_sparse(a[0].u.obj, TN_T(a[0])->ndim - dd);
}

/* to_sparse(self, *, layout, blocksize, dense_dim): self when already sparse COO */
PyObject *tn_sparse_d_to_sparse(tn_value *a) {
    bool strided = a[1].tag == TN_V_LAYOUT && a[1].u.obj == tn_py.layout_strided;
    if (strided && !SP(a[0].u.obj) && !tn_compressed_of(a[0].u.obj)) {   /* self, after _to_sparse_check_arguments' checks (measured) */
        int nd = TN_T(a[0])->ndim;
        if (a[2].tag != TN_V_NONE)
            return err(PyExc_RuntimeError, "to_sparse: conversion from Strided to Strided with blocksize argument given is not supported");
        if (a[3].tag == TN_V_INT && (a[3].u.i < 0 || a[3].u.i > nd - 2))
            return PyErr_Format(PyExc_RuntimeError, "to_sparse: dense_dim argument must be in [0,%d] range, but %lld is given", nd - 2,
                                (long long)a[3].u.i);
        return Py_NewRef(a[0].u.obj);
    }
    if (SP(a[0].u.obj) && !compressed_layout(&a[1]) && !strided) return check_coo_layout(&a[1], &a[2]) < 0 ? NULL : Py_NewRef(a[0].u.obj);
    return tn_at__to_sparse(a[0].u.obj, obj_or_null(&a[1]), a[2].tag == TN_V_NONE ? TN_INONE : tn_ints_of(&a[2]), tn_opt_int_of(&a[3]));
}

/* to_sparse.sparse_dim(self, sparse_dim) */
PyObject *tn_sparse_d_to_sparse_dim(tn_value *a) { return tn_at__to_sparse_sparse_dim(a[0].u.obj, a[1].u.i); }

/* coalesce(self): self when coalesced */
PyObject *tn_sparse_d_coalesce(tn_value *a) {
    tn_sparse *m = SP(a[0].u.obj);
    if (!m) return err(PyExc_RuntimeError, "coalesce expected sparse coordinate tensor layout but got Strided");
    return m->coalesced ? Py_NewRef(a[0].u.obj) : tn_at__coalesce(a[0].u.obj);
}

/* to_dense(self, dtype, *, masked_grad): self when strided */
PyObject *tn_sparse_d_to_dense(tn_value *a) {
    if (!SP(a[0].u.obj) && !tn_compressed_of(a[0].u.obj)) {
        if (a[1].tag == TN_V_DTYPE && a[1].u.dtype != TN_T(a[0])->dtype) return tn_at_to_dtype(a[0].u.obj, TN_DT(a[1].u.dtype), false, false, NULL);
        return Py_NewRef(a[0].u.obj);
    }
    return tn_at__to_dense(a[0].u.obj, obj_or_null(&a[1]), a[2].tag == TN_V_BOOL ? TN_B(a[2].u.i) : NULL);
}

/* to_dense_backward(grad, input, masked_grad): the gradient at the input's specified entries */
PyObject *tn_sparse_d_to_dense_backward(tn_value *a) {
    if (tn_compressed_of(a[1].u.obj)) return tn_at_sparse_mask(a[0].u.obj, a[1].u.obj);   /* the gradient at its elements */
    if (!SP(a[1].u.obj)) return Py_NewRef(a[0].u.obj);
    bool masked = a[2].tag == TN_V_BOOL ? a[2].u.i != 0 : true;
    if (!masked) return tn_at__to_sparse_sparse_dim(a[0].u.obj, SP(a[1].u.obj)->sparse_dim);
    PyObject *c = tn_at_coalesce(a[1].u.obj);   /* masked to the coalesced input, as upstream */
    PyObject *r = c ? tn_at_sparse_mask(a[0].u.obj, c) : NULL;
    Py_XDECREF(c);
    return r;
}

/* ---- coalescing: indices sorted row-major (upstream's sort, below), duplicates' values summed in that order ---- */

typedef struct { int64_t key, pos; } keyed;
static int cmp_keyed(const void *x, const void *y) {
    const keyed *p = x, *q = y;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* each entry's linear index over the sparse dims (ix: contiguous [sd, nnz]) */
static void linear_keys(const int64_t *ix, const int64_t *sizes, int64_t sd, int64_t nnz, keyed *k) {
    for (int64_t i = 0; i < nnz; i++) {   /* unsigned: sizes whose product overflows wrap, no UB */
        uint64_t key = 0;
        for (int64_t d = 0; d < sd; d++) key = key * (uint64_t)sizes[d] + (uint64_t)ix[d * nnz + i];
        k[i] = (keyed){(int64_t)key, i};
    }
}

/* The order upstream's coalesce sums duplicates in: its `indices.sort(0)` is libstdc++'s std::sort
 * (introsort, not stable) on (key, position) pairs compared by key, below at::internal::GRAIN_SIZE
 * (32768) entries; from there fbgemm's radix sort, which is stable (qsort on key then position).
 * Measured: an entry summed from three duplicates among 30 entries differs by an ulp between the
 * two orders. The steps below are libstdc++'s (__introsort_loop with its median-of-three pivot and
 * unguarded partition, the heap sort past the depth limit, __final_insertion_sort). */
#define KLT(a, b) ((a).key < (b).key)
static void heap_adjust(keyed *f, int64_t hole, int64_t len, keyed v) {
    int64_t top = hole, c = hole;
    while (c < (len - 1) / 2) {
        c = 2 * (c + 1);
        if (KLT(f[c], f[c - 1])) c--;
        f[hole] = f[c];
        hole = c;
    }
    if ((len & 1) == 0 && c == (len - 2) / 2) {
        c = 2 * (c + 1);
        f[hole] = f[c - 1];
        hole = c - 1;
    }
    int64_t parent = (hole - 1) / 2;
    while (hole > top && KLT(f[parent], v)) {
        f[hole] = f[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    f[hole] = v;
}
static void heap_sort(keyed *f, int64_t n) {
    if (n < 2) return;
    for (int64_t parent = (n - 2) / 2;; parent--) {
        heap_adjust(f, parent, n, f[parent]);
        if (parent == 0) break;
    }
    for (int64_t last = n - 1; last > 0; last--) {
        keyed v = f[last];
        f[last] = f[0];
        heap_adjust(f, 0, last, v);
    }
}
static void kswap(keyed *a, keyed *b) { keyed t = *a; *a = *b; *b = t; }
static void introsort_loop(keyed *f, keyed *l, int64_t depth) {
    while (l - f > 16) {
        if (depth == 0) { heap_sort(f, l - f); return; }
        depth--;
        keyed *a = f + 1, *b = f + (l - f) / 2, *c = l - 1;   /* median of three to the front */
        if (KLT(*a, *b)) kswap(f, KLT(*b, *c) ? b : KLT(*a, *c) ? c : a);
        else kswap(f, KLT(*a, *c) ? a : KLT(*b, *c) ? c : b);
        keyed *lo = f + 1, *hi = l;
        for (;;) {
            while (KLT(*lo, *f)) lo++;
            hi--;
            while (KLT(*f, *hi)) hi--;
            if (!(lo < hi)) break;
            kswap(lo, hi);
            lo++;
        }
        introsort_loop(lo, l, depth);
        l = lo;
    }
}
static void linear_insert(keyed *p) {
    keyed v = *p;
    while (KLT(v, p[-1])) { *p = p[-1]; p--; }
    *p = v;
}
static void std_sort_keyed(keyed *f, int64_t n) {
    if (n < 2) return;
    int64_t lg = 0;
    while ((n >> (lg + 1)) > 0) lg++;
    introsort_loop(f, f + n, 2 * lg);
    int64_t head = n > 16 ? 16 : n;
    for (int64_t i = 1; i < head; i++) {
        if (KLT(f[i], f[0])) {
            keyed v = f[i];
            memmove(f + 1, f, (size_t)i * sizeof *f);
            f[0] = v;
        } else {
            linear_insert(f + i);
        }
    }
    for (int64_t i = head; i < n; i++) linear_insert(f + i);
}
#undef KLT

static PyObject *coalesce_kernel(PyObject *self) {
    tn_sparse *m = SP(self);
    const tn_tensor *t = tn_tensor_of(self);
    int64_t nnz = nnz_of(m), sd = m->sparse_dim;
    if (nnz < 2) {
        PyObject *c = tn_at_clone(self, NULL);
        if (c) SP(c)->coalesced = true;
        return c;
    }
    PyObject *ixc = tn_at_contiguous(m->indices, NULL);
    if (!ixc) return NULL;
    const int64_t *ix = (const int64_t *)tn_data(tn_tensor_of(ixc));
    keyed *k = malloc((size_t)nnz * sizeof *k);
    int64_t *first = malloc((size_t)nnz * sizeof *first), *group = malloc((size_t)nnz * sizeof *group),
            *perm = malloc((size_t)nnz * sizeof *perm);
    PyObject *r = NULL, *newix = NULL, *p = NULL, *f = NULL, *g = NULL, *sorted = NULL, *vals = NULL;
    if (!k || !first || !group || !perm) { PyErr_NoMemory(); goto done; }
    linear_keys(ix, t->sizes, sd, nnz, k);
    if (nnz < 32768) std_sort_keyed(k, nnz);
    else qsort(k, (size_t)nnz, sizeof *k, cmp_keyed);
    int64_t n = 0;
    for (int64_t i = 0; i < nnz; i++) {
        if (i == 0 || k[i].key != k[i - 1].key) first[n++] = k[i].pos;
        group[i] = n - 1;
        perm[i] = k[i].pos;
    }
    /* made [sd, nnz] and narrowed to the n kept, as upstream (its strides show) */
    if (!(newix = tn_at_empty_memory_format(TN_IS(sd, nnz), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL))) goto done;
    int64_t *o = (int64_t *)tn_data(tn_tensor_of(newix));
    for (int64_t j = 0; j < n; j++)
        for (int64_t d = 0; d < sd; d++) o[d * nnz + j] = ix[d * nnz + first[j]];
    if (n < nnz) Py_SETREF(newix, tn_at_narrow(newix, 1, 0, n));
    if (!newix) goto done;
    /* values: each group's first (in sorted order) copied, the rest added in order */
    p = int_tensor(perm, nnz);
    f = int_tensor(first, n);
    sorted = p ? tn_at_index_select(m->values, 0, p) : NULL;
    vals = f ? tn_at_index_select(m->values, 0, f) : NULL;
    if (!sorted || !vals) goto done;
    if (n < nnz) {
        int64_t nr = 0;
        for (int64_t i = 0; i < nnz; i++)
            if (i > 0 && k[i].key == k[i - 1].key) { perm[nr] = i; group[nr] = group[i]; nr++; }
        PyObject *rest_pos = int_tensor(perm, nr);
        g = int_tensor(group, nr);
        PyObject *rest = rest_pos && g ? tn_at_index_select(sorted, 0, rest_pos) : NULL;
        PyObject *done_ = rest ? tn_at_index_add_(vals, 0, g, rest, TN_SDEF) : NULL;
        Py_XDECREF(rest_pos);
        Py_XDECREF(rest);
        if (!done_) goto done;
        Py_DECREF(done_);
    }
    r = make_like(self, newix, vals, true);
    newix = vals = NULL;
done:
    free(k); free(first); free(group); free(perm);
    Py_XDECREF(ixc); Py_XDECREF(newix); Py_XDECREF(p); Py_XDECREF(f); Py_XDECREF(g); Py_XDECREF(sorted); Py_XDECREF(vals);
    return r;
}

/* ---- the stage's kernels: fn(op, args) ---- */

typedef PyObject *(*sparse_fn)(int op, tn_value *a);
#define SELF a[0].u.obj
#define M SP(a[0].u.obj)

/* a new tensor object over t's storage and geometry, not a view (upstream returns its member) */
static PyObject *share(PyObject *t) {
    tn_tensor c = *tn_tensor_of(t);
    tn_storage_incref(c.storage);
    return tn_tensor_wrap(&c);
}
static PyObject *k_indices_raw(int op, tn_value *a) { return share(M->indices); }
static PyObject *k_values_raw(int op, tn_value *a) { return share(M->values); }
static PyObject *k_indices(int op, tn_value *a) {
    if (!M->coalesced) return err(PyExc_RuntimeError, "Cannot get indices on an uncoalesced tensor, please call .coalesce() first");
    return share(M->indices);
}
static PyObject *k_values(int op, tn_value *a) {
    if (!M->coalesced) return err(PyExc_RuntimeError, "Cannot get values on an uncoalesced tensor, please call .coalesce() first");
    return tn_at_alias(M->values);
}
static PyObject *k_nnz(int op, tn_value *a) { return PyLong_FromLongLong(nnz_of(M)); }
static PyObject *k_sparse_dim(int op, tn_value *a) { return PyLong_FromLong(M->sparse_dim); }
static PyObject *k_dense_dim(int op, tn_value *a) { return PyLong_FromLong(M->dense_dim); }
static PyObject *k_is_coalesced(int op, tn_value *a) { return PyBool_FromLong(M->coalesced); }
static PyObject *k_coalesced_(int op, tn_value *a) {
    M->coalesced = a[1].u.i != 0;
    return Py_NewRef(SELF);
}
static PyObject *k_coalesce(int op, tn_value *a) { return coalesce_kernel(SELF); }

/* _to_dense(self, dtype, masked_grad): zeros with the coalesced values put at their indices */
static PyObject *k_to_dense(int op, tn_value *a) {
    if (a[1].tag == TN_V_DTYPE) return err(PyExc_RuntimeError, "dtype argument is not supported by sparse_to_dense");
    const tn_tensor *t = tn_tensor_of(SELF);
    PyObject *z = tn_at_zeros(TN_IN(t->sizes, t->ndim), TN_DT(t->dtype), NULL, NULL, NULL);
    PyObject *r = z ? tn_at_add_Tensor(z, SELF, TN_SDEF) : NULL;
    Py_XDECREF(z);
    return r;
}

/* dense + alpha * sparse, into `dense` itself when inplace (upstream's add_out_dense_sparse) */
static PyObject *add_dense_sparse(PyObject *dense, PyObject *sparse, const tn_value *alpha, bool inplace) {
    const tn_tensor *d = tn_tensor_of(dense), *s = tn_tensor_of(sparse);
    bool same = d->ndim == s->ndim;
    for (int i = 0; same && i < d->ndim; i++) same = d->sizes[i] == s->sizes[i];
    if (!same) {
        char b1[100], b2[100];
        return PyErr_Format(PyExc_RuntimeError, "add: expected 'self' and 'other' to have same size, but self has size %s while other "
                            "has size %s (FYI: dense-sparse addition does not currently support broadcasting)",
                            fmt_sizes(b1, sizeof b1, d->sizes, d->ndim), fmt_sizes(b2, sizeof b2, s->sizes, s->ndim));
    }
    tn_dtype ct = tn_promote_types(d->dtype, s->dtype);
    if (inplace && !tn_can_cast(ct, d->dtype))
        return PyErr_Format(PyExc_RuntimeError, "Can't convert result type %s to output %s in add operation", tn_dtype_cpp_name(ct),
                            tn_dtype_cpp_name(d->dtype));
    /* entries in their order, uncoalesced, as upstream */
    tn_sparse *m = SP(sparse);
    int64_t nnz = nnz_of(m), sd = m->sparse_dim;
    PyObject *target = inplace && ct == d->dtype ? Py_NewRef(dense) : tn_at__to_copy(dense, TN_DT(ct), NULL, NULL, NULL, false, NULL);
    PyObject *ixc = target ? tn_at_contiguous(m->indices, NULL) : NULL;
    bool ok = ixc != NULL;
    if (ok && m->dense_dim > 0) {
        /* each entry's dense block: block.add_(values[k], alpha), one by one as upstream (the dense
         * add's rounding depends on the block's length, so blocks are not batched) */
        const int64_t *ix = (const int64_t *)tn_data(tn_tensor_of(ixc));
        PyObject *vals = tn_as_dtype(m->values, ct, false);
        ok = vals != NULL;
        for (int64_t k = 0; ok && k < nnz; k++) {
            PyObject *dst = Py_NewRef(target);
            for (int64_t dd = 0; dst && dd < sd; dd++) Py_SETREF(dst, tn_at_select_int(dst, 0, ix[dd * nnz + k]));
            PyObject *src = dst ? tn_at_select_int(vals, 0, k) : NULL;
            PyObject *res = src ? tn_at_add__Tensor(dst, src, alpha && !alpha->defaulted ? TN_SV(alpha) : TN_SDEF) : NULL;
            ok = res != NULL;
            Py_XDECREF(dst); Py_XDECREF(src); Py_XDECREF(res);
        }
        Py_XDECREF(vals);
    } else if (ok) {
        /* r[index] += alpha * values[k] in order (one rounding, as upstream's: the dense add with
         * alpha): a round takes each place's next occurrence, so no round writes one place twice */
        keyed *k = malloc((size_t)(nnz ? nnz : 1) * sizeof *k);
        int64_t *occ = malloc((size_t)(nnz ? nnz : 1) * 2 * sizeof *occ), *pos = occ ? occ + nnz : NULL;
        int64_t rounds = 0;
        if (!k || !occ) { PyErr_NoMemory(); ok = false; }
        else {
            linear_keys((const int64_t *)tn_data(tn_tensor_of(ixc)), s->sizes, sd, nnz, k);
            qsort(k, (size_t)nnz, sizeof *k, cmp_keyed);
            for (int64_t i = 0, run = 0; i < nnz; i++) {
                run = i > 0 && k[i].key == k[i - 1].key ? run + 1 : 0;
                occ[k[i].pos] = run;
                if (run + 1 > rounds) rounds = run + 1;
            }
        }
        for (int64_t r = 0; ok && r < rounds; r++) {
            int64_t np = 0;
            for (int64_t i = 0; i < nnz; i++)
                if (occ[i] == r) pos[np++] = i;
            PyObject *p = int_tensor(pos, np);
            PyObject *ix = p ? tn_at_index_select(m->indices, 1, p) : NULL;
            PyObject *v = ix ? tn_at_index_select(m->values, 0, p) : NULL;
            if (v) Py_SETREF(v, tn_as_dtype(v, ct, false));
            PyObject *rows = v ? index_rows(ix) : NULL;
            PyObject *cur = rows ? tn_at_index_Tensor(target, TN_TPY(rows)) : NULL;
            PyObject *nw = cur ? tn_at_add_Tensor(cur, v, alpha && !alpha->defaulted ? TN_SV(alpha) : TN_SDEF) : NULL;
            PyObject *res = nw ? tn_at_index_put_(target, TN_TPY(rows), nw, false) : NULL;
            ok = res != NULL;
            Py_XDECREF(p); Py_XDECREF(ix); Py_XDECREF(v); Py_XDECREF(rows); Py_XDECREF(cur); Py_XDECREF(nw); Py_XDECREF(res);
        }
        free(k);
        free(occ);
    }
    Py_XDECREF(ixc);
    if (!ok) { Py_XDECREF(target); return NULL; }
    if (inplace && target != dense) {
        PyObject *w = tn_at_copy_(dense, target, false);
        Py_DECREF(target);
        return w;
    }
    return target;
}

/* sparse + alpha * sparse: upstream's merge of two index lists in order (add_out_sparse_contiguous):
 * equal indices meet in one entry; the result is coalesced when both are */
static PyObject *add_sparse_sparse(PyObject *t, PyObject *s, const tn_value *alpha, tn_dtype out_dt) {
    const tn_tensor *tt = tn_tensor_of(t), *st = tn_tensor_of(s);
    tn_sparse *tm = SP(t), *sm = SP(s);
    bool same = tt->ndim == st->ndim;
    for (int i = 0; same && i < tt->ndim; i++) same = tt->sizes[i] == st->sizes[i];
    char b1[100], b2[100];
    if (!same)
        return PyErr_Format(PyExc_RuntimeError, "add: expected sizes of 'self' and 'other' to match, but %s != %s",
                            fmt_sizes(b1, sizeof b1, tt->sizes, tt->ndim), fmt_sizes(b2, sizeof b2, st->sizes, st->ndim));
    tn_dtype ct = tn_promote_types(tt->dtype, st->dtype);
    if (!tn_can_cast(ct, out_dt))
        return PyErr_Format(PyExc_RuntimeError, "Can't convert result type %s to output %s in add operation", tn_dtype_cpp_name(ct),
                            tn_dtype_cpp_name(out_dt));
    int64_t tn = nnz_of(tm), sn = nnz_of(sm);
    if (sn == 0) {   /* a copy of self */
        PyObject *v = tn_as_dtype(tm->values, out_dt, false);
        if (v) Py_SETREF(v, tn_at_clone(v, NULL));
        return make_like(t, v ? tn_at_clone(tm->indices, NULL) : NULL, v, tm->coalesced);
    }
    if (tn == 0) {   /* alpha * other */
        if (out_dt == TN_DTYPE_BOOL)   /* upstream's mul_out_sparse_scalar: bool values times the number alpha */
            return PyErr_Format(PyExc_RuntimeError, "result type %s can't be cast to the desired output type Bool",
                                alpha && alpha->tag == TN_V_FLOAT ? "Float" : "Long");
        PyObject *v = tn_as_dtype(sm->values, out_dt, false);
        if (v && alpha && !alpha->defaulted) Py_SETREF(v, tn_at_mul_Scalar(v, TN_SV(alpha)));
        else if (v) Py_SETREF(v, tn_at_clone(v, NULL));
        return make_like(s, tn_at_clone(sm->indices, NULL), v, sm->coalesced);
    }
    if (tm->sparse_dim != sm->sparse_dim)
        return PyErr_Format(PyExc_RuntimeError, "add: expected 'self' and 'other' to have same density, but 'self' has %d sparse "
                            "dimensions while 'other' has %d sparse dimensions", tm->sparse_dim, sm->sparse_dim);
    if (ct == TN_DTYPE_F16 || ct == TN_DTYPE_BOOL)   /* upstream's AT_DISPATCH for "cadd_sparse" has neither */
        return PyErr_Format(PyExc_NotImplementedError, "\"cadd_sparse\" not implemented for '%s'",
                            ct == TN_DTYPE_F16 ? "Half" : "Bool");
    int64_t sd = tm->sparse_dim;
    PyObject *tix = tn_at_contiguous(tm->indices, NULL), *six = tix ? tn_at_contiguous(sm->indices, NULL) : NULL;
    int64_t *ti = malloc((size_t)(tn + sn) * 2 * sizeof *ti);
    PyObject *r = NULL, *rix = NULL, *a1 = NULL, *a2 = NULL, *vals = NULL;
    if (!six || !ti) { if (six) PyErr_NoMemory(); goto done; }
    int64_t *t_to = ti, *s_to = ti + tn, *pos = ti + tn + sn;   /* output row of each entry; pos: source per output row */
    const int64_t *A = (const int64_t *)tn_data(tn_tensor_of(tix)), *B = (const int64_t *)tn_data(tn_tensor_of(six));
    int64_t ri = 0, i = 0, j = 0;
    while (i < tn || j < sn) {
        int cmp = 0;
        if (i >= tn) cmp = -1;
        else if (j >= sn) cmp = 1;
        else
            for (int64_t d = 0; d < sd; d++) {
                if (A[d * tn + i] < B[d * sn + j]) { cmp = 1; break; }
                if (A[d * tn + i] > B[d * sn + j]) { cmp = -1; break; }
            }
        if (cmp >= 0) { t_to[i] = ri; pos[ri] = i; i++; }
        if (cmp <= 0) { s_to[j] = ri; if (cmp < 0) pos[ri] = tn + j; j++; }
        ri++;
    }
    /* made [sd, tn + sn] and narrowed to the ri entries, as upstream */
    int64_t mx = tn + sn;
    if (!(rix = tn_at_empty_memory_format(TN_IS(sd, mx), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL))) goto done;
    int64_t *o = (int64_t *)tn_data(tn_tensor_of(rix));
    for (int64_t k = 0; k < ri; k++)
        for (int64_t d = 0; d < sd; d++) o[d * mx + k] = pos[k] < tn ? A[d * tn + pos[k]] : B[d * sn + pos[k] - tn];
    if (ri < mx) Py_SETREF(rix, tn_at_narrow(rix, 1, 0, ri));
    if (!rix) goto done;
    /* values: zeros, + self's, + alpha * other's (upstream's axpy order) */
    const tn_tensor *tv = tn_tensor_of(tm->values);
    int64_t vs[TN_MAX_DIMS + 1];
    memcpy(vs, tv->sizes, (size_t)tv->ndim * sizeof *vs);
    vs[0] = mx;
    vals = tn_at_zeros(TN_IN(vs, tv->ndim), TN_DT(ct), NULL, NULL, NULL);
    a1 = int_tensor(t_to, tn);
    a2 = int_tensor(s_to, sn);
    PyObject *tvals = a1 && a2 && vals ? tn_as_dtype(tm->values, ct, false) : NULL;
    PyObject *svals = tvals ? tn_as_dtype(sm->values, ct, false) : NULL;
    PyObject *x = svals ? tn_at_index_add_(vals, 0, a1, tvals, TN_SDEF) : NULL;
    PyObject *y = x ? tn_at_index_add_(vals, 0, a2, svals, alpha ? TN_SV(alpha) : TN_SDEF) : NULL;
    Py_XDECREF(tvals); Py_XDECREF(svals); Py_XDECREF(x);
    if (!y) goto done;
    Py_DECREF(y);
    if (ct != out_dt) Py_SETREF(vals, tn_as_dtype(vals, out_dt, false));
    if (vals && ri < mx) Py_SETREF(vals, tn_at_narrow(vals, 0, 0, ri));
    if (!vals) goto done;
    r = make_like(t, rix, vals, tm->coalesced && sm->coalesced);
    rix = vals = NULL;
done:
    free(ti);
    Py_XDECREF(tix); Py_XDECREF(six); Py_XDECREF(rix); Py_XDECREF(a1); Py_XDECREF(a2); Py_XDECREF(vals);
    return r;
}

/* add.Tensor / add_.Tensor / sub.Tensor / sub_.Tensor (self, other, alpha) */
static PyObject *k_add(int op, tn_value *a) {
    PyObject *self = SELF, *other = a[1].u.obj;
    bool inplace = op == TN_ROW_add__Tensor || op == TN_ROW_sub__Tensor, sub = op == TN_ROW_sub_Tensor || op == TN_ROW_sub__Tensor;
    tn_value alpha = a[2];
    if (sub) {   /* -alpha */
        if (alpha.defaulted || (alpha.tag == TN_V_INT)) { alpha.tag = TN_V_INT; alpha.u.i = alpha.defaulted ? -1 : -alpha.u.i; }
        else if (alpha.tag == TN_V_FLOAT) alpha.u.f = -alpha.u.f;
        else return tn_not_implemented("aten::sub of sparse tensors with this alpha");
        alpha.defaulted = false;
    }
    if (!SP(self)) return add_dense_sparse(self, other, &alpha, inplace);
    if (!SP(other)) return err(PyExc_RuntimeError, "add(sparse, dense) is not supported. Use add(dense, sparse) instead.");
    tn_dtype out_dt = inplace ? tn_tensor_of(self)->dtype : tn_promote_types(tn_tensor_of(self)->dtype, tn_tensor_of(other)->dtype);
    PyObject *r = add_sparse_sparse(self, other, &alpha, out_dt);
    if (!r || !inplace) return r;
    tn_sparse m = *SP(r);
    PyObject *out = replace(self, Py_NewRef(m.indices), Py_NewRef(m.values), m.coalesced);
    Py_DECREF(r);
    return out;
}

static PyObject *mul_sparse_sparse(PyObject *x, PyObject *y);
static PyObject *unsqueeze(PyObject *self, int64_t dim);

/* the scalar of a 0-dim dense `other` (mul / div of a sparse tensor by a number) */
static bool zero_dim_dense(PyObject *o) { return !SP(o) && tn_tensor_of(o)->ndim == 0; }

/* sparse * dense of the same shape (upstream's intersection_binary_op_sparse_dense): the dense
 * values at the sparse entries times the sparse values, the sparse tensor's indices (copied) and flag */
static PyObject *mul_sparse_dense(PyObject *sp, PyObject *dn) {
    tn_sparse *m = SP(sp);
    PyObject *rows = index_rows(m->indices);
    PyObject *df = rows ? tn_at_index_Tensor(dn, TN_TPY(rows)) : NULL;
    PyObject *v = df ? tn_at_mul_Tensor(df, m->values) : NULL;
    Py_XDECREF(rows);
    Py_XDECREF(df);
    return v ? make_like(sp, tn_at_clone(m->indices, NULL), v, m->coalesced) : NULL;
}

/* mul / div by a scalar or a 0-dim tensor: the values scaled, indices copied, flag kept; in
 * place: the values themselves */
static PyObject *k_scale(int op, tn_value *a) {
    PyObject *self = SELF;
    bool div = op == TN_ROW_div_Tensor || op == TN_ROW_div_Scalar || op == TN_ROW_div__Tensor || op == TN_ROW_div__Scalar;
    bool inplace = op == TN_ROW_mul__Tensor || op == TN_ROW_mul__Scalar || op == TN_ROW_div__Tensor || op == TN_ROW_div__Scalar;
    bool tensor = a[1].tag == TN_V_TENSOR;
    if (!inplace && !div && tensor && !SP(self) != !SP(a[1].u.obj)) {   /* sparse * dense of one shape, either order */
        PyObject *sp = SP(self) ? self : a[1].u.obj, *dn = SP(self) ? a[1].u.obj : self;
        const tn_tensor *st = tn_tensor_of(sp), *dt = tn_tensor_of(dn);
        bool same = st->ndim == dt->ndim;
        for (int i = 0; same && i < st->ndim; i++) same = st->sizes[i] == dt->sizes[i];
        if (same) return mul_sparse_dense(sp, dn);
    }
    if (!SP(self)) {
        if (div) return err(PyExc_RuntimeError, "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape [] for "
                                                "divisor)");
        return tn_not_implemented("aten::mul of a dense tensor by a sparse tensor of another shape");
    }
    if (tensor && !zero_dim_dense(a[1].u.obj)) {
        if (div) {
            char b[100];
            const tn_tensor *o = TN_T(a[1]);
            return PyErr_Format(PyExc_RuntimeError, "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape %s "
                                "for divisor)", fmt_sizes(b, sizeof b, o->sizes, o->ndim));
        }
        if (!div && !inplace && SP(a[1].u.obj)) return mul_sparse_sparse(self, a[1].u.obj);
        if (!div && SP(a[1].u.obj)) {   /* mul_ by a sparse tensor: self takes the product's members */
            PyObject *p = mul_sparse_sparse(self, a[1].u.obj);
            if (!p) return NULL;
            bool co = SP(p)->coalesced;
            PyObject *r = replace(self, Py_NewRef(SP(p)->indices), tn_as_dtype(SP(p)->values, tn_tensor_of(self)->dtype, false), co);
            Py_DECREF(p);
            return r;
        }
        return tn_not_implemented("aten::mul of a sparse tensor by a dense tensor of another shape, or in place");
    }
    PyObject *v = M->values;
    if (inplace) {
        PyObject *r = div ? (tensor ? tn_at_div__Tensor(v, a[1].u.obj) : tn_at_div__Scalar(v, TN_SV(&a[1])))
                          : (tensor ? tn_at_mul__Tensor(v, a[1].u.obj) : tn_at_mul__Scalar(v, TN_SV(&a[1])));
        if (!r) return NULL;
        Py_DECREF(r);
        return Py_NewRef(self);
    }
    PyObject *nv = div ? (tensor ? tn_at_div_Tensor(v, a[1].u.obj) : tn_at_div_Scalar(v, TN_SV(&a[1])))
                       : (tensor ? tn_at_mul_Tensor(v, a[1].u.obj) : tn_at_mul_Scalar(v, TN_SV(&a[1])));
    return make_like(self, nv ? tn_at_clone(M->indices, NULL) : NULL, nv, M->coalesced);
}

/* neg: values negated, indices copied, flag kept (upstream's neg_out_sparse) */
static PyObject *k_neg(int op, tn_value *a) {
    PyObject *nv = tn_at_neg(M->values);
    return make_like(SELF, nv ? tn_at_clone(M->indices, NULL) : NULL, nv, M->coalesced);
}
/* upstream's coalesced_unary_ufunc: the op on the coalesced values (f(0) = 0 ops) */
static PyObject *k_unary(int op, tn_value *a) {
    if (op == TN_ROW_pow_Tensor_Scalar && ((a[1].tag == TN_V_INT && a[1].u.i == 0) || (a[1].tag == TN_V_FLOAT && a[1].u.f == 0)))
        return err(PyExc_RuntimeError, "pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor dense");
    const tn_schema *sc = tn_op_schema(op);
    if (!sc) return NULL;
    PyObject *c = tn_at_coalesce(SELF);
    if (!c) return NULL;
    tn_value b[16];
    int n = sc->nargs < 16 ? sc->nargs : 16;
    memcpy(b, a, (size_t)n * sizeof *b);   /* the other arguments as given (exponent, decimals, ...) */
    b[0].u.obj = SP(c)->values;
    PyObject *nv = tn_call_row(op, b, n);
    PyObject *r = make_like(c, nv ? tn_at_clone(SP(c)->indices, NULL) : NULL, nv, true);
    Py_DECREF(c);
    return r;
}

/* the in-place forms (abs_, sin_, ...; upstream's coalesced_unary_ufunc_): the op on the values in
 * place; a self not coalesced refused in upstream's words, except for neg_ (f(a) + f(b) = f(a + b)) */
static PyObject *k_unary_(int op, tn_value *a) {
    const tn_schema *sc = tn_op_schema(op);
    if (!sc) return NULL;
    if (!M->coalesced && op != TN_ROW_neg_)
        return PyErr_Format(PyExc_RuntimeError, "%s requires coalesced input", tn_op_at(op)->name);
    tn_value b[16];
    int n = sc->nargs < 16 ? sc->nargs : 16;
    memcpy(b, a, (size_t)n * sizeof *b);
    b[0].u.obj = M->values;
    PyObject *r = tn_call_row(op, b, n);
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(SELF);
}

/* clone: indices and values copied, flag kept */
static PyObject *k_clone(int op, tn_value *a) {
    if (a[1].tag == TN_V_MEMFORMAT) return err(PyExc_RuntimeError, "unsupported memory format option Preserve");
    return make_like(SELF, tn_at_clone(M->indices, NULL), tn_at_clone(M->values, NULL), M->coalesced);
}
/* _sparse_coo_tensor_with_dims_and_tensors with sparse indices or values: upstream's SparseCPU kernel
 * checks the dims, then refuses the layout (set_indices_and_values_unsafe) */
static PyObject *k_with_dims_and_tensors(int op, tn_value *a) {
    if (check_dims(a[2].u.ints.n, a[0].u.i, a[1].u.i) < 0) return NULL;
    const char *what = SP(a[3].u.obj) ? "indices" : "values";
    return PyErr_Format(PyExc_RuntimeError, "expected %s to be a dense tensor, but got %s of layout Sparse", what, what);
}
/* detach / alias: the same indices and values (upstream's shallow copy) */
static PyObject *k_detach(int op, tn_value *a) { return make_like(SELF, Py_NewRef(M->indices), Py_NewRef(M->values), M->coalesced); }

/* view_as_real: the same indices, the complex values as reals (one more dense dim of 2), as
 * upstream's view_as_real_sparse (dist.all_reduce of a complex sparse tensor goes through it) */
static PyObject *k_view_as_real(int op, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(SELF);
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "view_as_real_sparse is only supported for complex sparse tensors");
        return NULL;
    }
    if (t->ndim + 1 > TN_MAX_DIMS) return tn_not_implemented("view_as_real of a sparse tensor with the most dimensions");
    int64_t size[TN_MAX_DIMS];
    memcpy(size, t->sizes, (size_t)t->ndim * sizeof *size);
    size[t->ndim] = 2;
    return make(size, t->ndim + 1, M->sparse_dim, Py_NewRef(M->indices), tn_at_view_as_real(M->values), M->coalesced);
}

/* zero_: no entries (upstream's sparse_resize_and_clear_) */
static PyObject *k_zero_(int op, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(SELF);
    return replace(SELF, empty_indices(M->sparse_dim), empty_values(t->sizes + M->sparse_dim, M->dense_dim, t->dtype), true);
}

/* empty_like / zeros_like(self, *, dtype, layout, device, pin_memory, memory_format): no entries,
 * self's sparse and dense dims (upstream's empty_like_sparse_coo); layout=torch.strided: dense zeros */
static PyObject *k_empty_like(int op, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(SELF);
    tn_dtype dt = a[1].tag == TN_V_DTYPE ? a[1].u.dtype : t->dtype;
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj == tn_py.layout_strided)
        return tn_at_zeros(TN_IN(t->sizes, t->ndim), TN_DT(dt), NULL, NULL, NULL);
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj != tn_py.layout_sparse_coo)
        return tn_not_implemented("aten::empty_like of a sparse tensor in a sparse compressed layout");
    return make(t->sizes, t->ndim, M->sparse_dim, empty_indices(M->sparse_dim), empty_values(t->sizes + M->sparse_dim, M->dense_dim, dt),
                true);
}

/* new_zeros / new_empty(self, size, *, dtype, layout, device, pin_memory): an empty sparse tensor
 * of that size, every dim sparse (self's options, as upstream's); layout=torch.strided: dense zeros */
static PyObject *k_new_zeros(int op, tn_value *a) {
    PyObject *dt = TN_DT(a[2].tag == TN_V_DTYPE ? a[2].u.dtype : tn_tensor_of(SELF)->dtype);
    if (a[3].tag == TN_V_LAYOUT && a[3].u.obj == tn_py.layout_strided) return tn_at_zeros(tn_ints_of(&a[1]), dt, NULL, NULL, NULL);
    return tn_at__sparse_coo_tensor_with_dims(a[1].u.ints.n, 0, tn_ints_of(&a[1]), dt, tn_py.layout_sparse_coo, NULL, NULL);
}

/* _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format) */
static PyObject *k_to_copy(int op, tn_value *a) {
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj != tn_py.layout_sparse_coo) {
        if (a[2].u.obj == tn_py.layout_strided) return tn_at_to_dense(SELF, NULL, NULL);
        return tn_not_implemented("aten::_to_copy of a sparse tensor to another sparse layout");
    }
    PyObject *v = tn_at__to_copy(M->values, obj_or_null(&a[1]), NULL, obj_or_null(&a[3]), NULL, a[5].u.i != 0, NULL);
    return make_like(SELF, v ? tn_at_clone(M->indices, NULL) : NULL, v, M->coalesced);
}

/* copy_(self, src, non_blocking): a sparse self takes a copy of a sparse src */
static PyObject *k_copy_(int op, tn_value *a) {
    tn_sparse *s = SP(a[1].u.obj);
    if (!M || !s) {
        tn_dtype ds = TN_T(a[0])->dtype, dr = TN_T(a[1])->dtype;
        return PyErr_Format(PyExc_RuntimeError, "copy_() between dense and sparse Tensors is not implemented! Found self type = "
                            "torch.%s%sTensor and src type = torch.%s%sTensor", M ? "sparse." : "", tn_dtype_cpp_name(ds),
                            s ? "sparse." : "", tn_dtype_cpp_name(dr));
    }
    const tn_tensor *src = TN_T(a[1]);
    tn_tensor *t = tn_tensor_of(SELF);
    PyObject *v = tn_as_dtype(s->values, t->dtype, false);
    if (v) Py_SETREF(v, tn_at_clone(v, NULL));
    PyObject *r = replace(SELF, tn_at_clone(s->indices, NULL), v, s->coalesced);
    if (r) {
        t->ndim = src->ndim;
        memcpy(t->sizes, src->sizes, sizeof t->sizes);
        M->sparse_dim = s->sparse_dim;
        M->dense_dim = s->dense_dim;
    }
    return r;
}

/* sum(self, dtype): the values' sum */
static PyObject *k_sum(int op, tn_value *a) { return tn_at_sum(M->values, obj_or_null(&a[1])); }

/* transpose.int(self, dim0, dim1) of two sparse dims: the index rows swapped (copied) */
static PyObject *transpose(PyObject *self, int64_t d0, int64_t d1) {
    tn_sparse *m = SP(self);
    tn_tensor *t = tn_tensor_of(self);
    if (tn_wrap_dim(d0, t->ndim, &d0) < 0 || tn_wrap_dim(d1, t->ndim, &d1) < 0) return NULL;
    if (d0 >= m->sparse_dim || d1 >= m->sparse_dim)
        return PyErr_Format(PyExc_RuntimeError, "sparse transpose: transposed dimensions must be sparse Got sparse_dim: %d, d0: %lld, "
                            "d1: %lld", m->sparse_dim, (long long)d0, (long long)d1);
    int64_t perm[TN_MAX_DIMS];
    for (int64_t d = 0; d < m->sparse_dim; d++) perm[d] = d;
    perm[d0] = d1;
    perm[d1] = d0;
    PyObject *p = int_tensor(perm, m->sparse_dim);
    PyObject *ix = p ? tn_at_index_select(m->indices, 0, p) : NULL;
    Py_XDECREF(p);
    int64_t size[TN_MAX_DIMS];
    memcpy(size, t->sizes, (size_t)t->ndim * sizeof *size);
    size[d0] = t->sizes[d1];
    size[d1] = t->sizes[d0];
    return make(size, t->ndim, m->sparse_dim, ix, ix ? tn_at_clone(m->values, NULL) : NULL, d0 == d1 && m->coalesced);
}
static PyObject *k_transpose(int op, tn_value *a) { return transpose(SELF, a[1].u.i, a[2].u.i); }
static PyObject *k_t(int op, tn_value *a) {
    if (M->sparse_dim > 2 || M->dense_dim > 0)
        return PyErr_Format(PyExc_RuntimeError, "t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got %d sparse and "
                            "%d dense dimensions", M->sparse_dim, M->dense_dim);
    return tn_tensor_of(SELF)->ndim < 2 ? k_detach(op, a) : transpose(SELF, 0, 1);
}

/* r (a new contiguous [M, N] float32 / float64 tensor) += alpha * sparse @ dense, upstream's
 * s_addmm_out_sparse_dense_worker: per entry in order, its BLAS axpy of the dense row scaled by
 * alpha * value (rounded to the dtype), each element one fused multiply-add (MKL's axpy) */
static PyObject *addmm_axpy(PyObject *r, tn_sparse *m, PyObject *dense, const tn_value *alpha) {
    tn_dtype dt = tn_tensor_of(r)->dtype;
    int64_t nrows = tn_tensor_of(r)->sizes[0], ncols = tn_tensor_of(r)->sizes[1], kdim = tn_tensor_of(dense)->sizes[0], nnz = nnz_of(m);
    PyObject *ix = tn_at_contiguous(m->indices, NULL), *v = ix ? tn_as_dtype(m->values, dt, true) : NULL;
    if (v && alpha && !alpha->defaulted) Py_SETREF(v, tn_at_mul_Scalar(v, TN_SV(alpha)));
    if (v) Py_SETREF(v, tn_as_dtype(v, dt, true));
    PyObject *d = v ? tn_as_dtype(dense, dt, true) : NULL;
    bool ok = d != NULL;
    const int64_t *I = ok ? (const int64_t *)tn_data(tn_tensor_of(ix)) : NULL;
    for (int64_t k = 0; ok && k < nnz; k++)
        if (I[k] < 0 || I[k] >= nrows || I[nnz + k] < 0 || I[nnz + k] >= kdim) {
            PyErr_Format(PyExc_RuntimeError, "index out of bounds in addmm: entry (%lld, %lld) of a %lldx%lld matrix", (long long)I[k],
                         (long long)I[nnz + k], (long long)nrows, (long long)kdim);
            ok = false;
        }
    for (int64_t k = 0; ok && k < nnz; k++) {
        int64_t row = I[k], col = I[nnz + k];
        if (dt == TN_DTYPE_F32) {
            float a = ((const float *)tn_data(tn_tensor_of(v)))[k], *o = (float *)tn_data(tn_tensor_of(r)) + row * ncols;
            const float *x = (const float *)tn_data(tn_tensor_of(d)) + col * ncols;
            for (int64_t j = 0; j < ncols; j++) o[j] = fmaf(a, x[j], o[j]);
        } else {
            double a = ((const double *)tn_data(tn_tensor_of(v)))[k], *o = (double *)tn_data(tn_tensor_of(r)) + row * ncols;
            const double *x = (const double *)tn_data(tn_tensor_of(d)) + col * ncols;
            for (int64_t j = 0; j < ncols; j++) o[j] = fma(a, x[j], o[j]);
        }
    }
    Py_XDECREF(ix); Py_XDECREF(v); Py_XDECREF(d);
    if (!ok) { Py_DECREF(r); return NULL; }
    return r;
}

/* beta * self + alpha * sparse @ dense (upstream's s_addmm_out_sparse_dense: entries in order);
 * fused: float32 / float64 through addmm_axpy (COO); else each product rounded, then added (the
 * compressed layouts' kernels, ops/sparse_compressed.c) */
PyObject *tn_sparse_addmm(PyObject *self, PyObject *sparse, PyObject *dense, const tn_value *beta, const tn_value *alpha, bool fused) {
    tn_sparse *m = SP(sparse);
    const tn_tensor *st = tn_tensor_of(sparse), *dt = tn_tensor_of(dense);
    if (m->sparse_dim != 2 || m->dense_dim != 0)
        return PyErr_Format(PyExc_RuntimeError, "addmm: matrices expected, got %dD tensor", st->ndim);
    if (SP(dense)) return tn_not_implemented("aten::addmm of two sparse matrices");
    if (dt->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "addmm: matrices expected, got %dD tensor", dt->ndim);
    if (dt->sizes[0] != st->sizes[1])
        return PyErr_Format(PyExc_RuntimeError, "addmm: Argument #3 (dense): Expected dim 0 size %lld, got %lld", (long long)st->sizes[1],
                            (long long)dt->sizes[0]);
    PyObject *r = NULL;
    bool beta0 = beta && !beta->defaulted && ((beta->tag == TN_V_INT && beta->u.i == 0) || (beta->tag == TN_V_FLOAT && beta->u.f == 0));
    if (!self || beta0) r = tn_at_zeros(TN_IS(st->sizes[0], dt->sizes[1]), TN_DT(dt->dtype), NULL, NULL, NULL);
    else {   /* beta * self broadcast to the result, a new contiguous tensor */
        PyObject *e = tn_at_expand(self, TN_IS(st->sizes[0], dt->sizes[1]), false);
        r = !e ? NULL : beta && !beta->defaulted ? tn_at_mul_Scalar(e, TN_SV(beta)) : tn_at_clone(e, tn_py.memory_format_contiguous);
        Py_XDECREF(e);
    }
    if (r && fused && (dt->dtype == TN_DTYPE_F32 || dt->dtype == TN_DTYPE_F64))   /* upstream's BLAS axpy per entry */
        return addmm_axpy(r, m, dense, alpha);
    PyObject *rows = r ? tn_at_select_int(m->indices, 0, 0) : NULL, *cols = rows ? tn_at_select_int(m->indices, 0, 1) : NULL;
    PyObject *v = cols ? tn_as_dtype(m->values, dt->dtype, false) : NULL;
    if (v && alpha && !alpha->defaulted) Py_SETREF(v, tn_at_mul_Scalar(v, TN_SV(alpha)));
    PyObject *picked = v ? tn_at_index_select(dense, 0, cols) : NULL;
    PyObject *scaled = picked ? tn_at_unsqueeze(v, 1) : NULL;
    if (scaled) Py_SETREF(scaled, tn_at_mul_Tensor(scaled, picked));
    PyObject *done_ = scaled ? tn_at_index_add_(r, 0, rows, scaled, TN_SDEF) : NULL;
    Py_XDECREF(rows); Py_XDECREF(cols); Py_XDECREF(v); Py_XDECREF(picked); Py_XDECREF(scaled);
    if (!done_) { Py_XDECREF(r); return NULL; }
    Py_DECREF(done_);
    return r;
}
/* sparse @ sparse (mm, _sparse_sparse_matmul), upstream's sparse_sparse_matmul_cpu: a coalesced COO
 * result, each element the products added in Gustavson's order (self's row in column order, then
 * other's row), which is the compressed kernel's (ops/sparse_compressed.c) on the CSR forms; the
 * result's columns sorted by coalescing */
static PyObject *sparse_matmul(PyObject *x, PyObject *y) {
    const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
    if (p->ndim != 2 || q->ndim != 2 || SP(x)->dense_dim || SP(y)->dense_dim)
        return tn_not_implemented("aten::mm of sparse COO tensors other than two 2-d matrices without dense dims");
    if (p->sizes[1] != q->sizes[0])
        return PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)p->sizes[0],
                            (long long)p->sizes[1], (long long)q->sizes[0], (long long)q->sizes[1]);
    if (p->dtype != q->dtype)
        return PyErr_Format(PyExc_RuntimeError, "mat1 dtype %s does not match mat2 dtype %s", tn_dtype_cpp_name(p->dtype), tn_dtype_cpp_name(q->dtype));
    if (p->dtype != TN_DTYPE_F32 && p->dtype != TN_DTYPE_F64)
        return PyErr_Format(PyExc_NotImplementedError, "\"sparse_matmul\" not implemented for '%s'", tn_dtype_cpp_name(p->dtype));
    PyObject *cx = tn_at__to_sparse_csr(x, NULL), *cy = cx ? tn_at__to_sparse_csr(y, NULL) : NULL;
    PyObject *r = cy ? tn_at_mm(cx, cy) : NULL;
    Py_XDECREF(cx);
    Py_XDECREF(cy);
    PyObject *co = r ? tn_compressed_to_coo(r, -1) : NULL;
    Py_XDECREF(r);
    if (!co) return NULL;
    SP(co)->coalesced = false;   /* the columns in first-appearance order: sorted by coalescing */
    PyObject *out = tn_at_coalesce(co);
    Py_DECREF(co);
    return out;
}
static PyObject *k_sparse_matmul(int op, tn_value *a) { return sparse_matmul(a[0].u.obj, a[1].u.obj); }

/* mm(self, mat2): sparse @ dense, or dense @ sparse through the sparse matrix's dense form */
static PyObject *k_mm(int op, tn_value *a) {
    if (SP(a[0].u.obj) && SP(a[1].u.obj)) return sparse_matmul(a[0].u.obj, a[1].u.obj);
    if (SP(a[0].u.obj)) return tn_sparse_addmm(NULL, a[0].u.obj, a[1].u.obj, NULL, NULL, true);
    /* dense @ sparse = (sparse^T @ dense^T)^T, upstream's transposed result */
    PyObject *st = tn_at_t(a[1].u.obj), *dt = st ? tn_at_t(a[0].u.obj) : NULL;
    PyObject *r = dt ? tn_at_mm(st, dt) : NULL;
    Py_XDECREF(st);
    Py_XDECREF(dt);
    PyObject *tr = r ? tn_at_t(r) : NULL;
    Py_XDECREF(r);
    r = tr ? share(tr) : NULL;   /* the transposed result itself, not a view of a temporary */
    Py_XDECREF(tr);
    return r;
}
/* hspmm(mat1, mat2): sparse @ dense as a hybrid COO tensor (upstream's hspmm_out_sparse_cpu): the
 * rows of the coalesced mat1 holding entries (sorted), each with its dense row of the product
 * (the entries added in order, as mm); flagged uncoalesced, as upstream's */
static PyObject *k_hspmm(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    tn_sparse *m = SP(x);
    if (!m || m->sparse_dim != 2 || m->dense_dim)
        return PyErr_Format(PyExc_RuntimeError, "hspmm: Argument #2: matrices expected, got %dD tensor", m ? m->sparse_dim : 0);
    const tn_tensor *q = tn_tensor_of(y);
    if (SP(y)) return tn_not_implemented("aten::hspmm of two sparse matrices");
    if (q->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "hspmm: Argument #3: matrices expected, got %dD tensor", q->ndim);
    if (q->sizes[0] != tn_tensor_of(x)->sizes[1])
        return PyErr_Format(PyExc_RuntimeError, "hspmm: Argument #3: Expected dim 0 size %lld, got %lld", (long long)tn_tensor_of(x)->sizes[1],
                            (long long)q->sizes[0]);
    PyObject *c = tn_at_coalesce(x);
    PyObject *r = c ? tn_sparse_addmm(NULL, c, y, NULL, NULL, true) : NULL;
    PyObject *ix = r ? tn_at_contiguous(SP(c)->indices, NULL) : NULL;
    int64_t n = ix ? nnz_of(SP(c)) : 0, nr = 0;
    PyObject *rows = ix ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
    if (rows) {
        const int64_t *I = (const int64_t *)tn_data(tn_tensor_of(ix));
        int64_t *o = (int64_t *)tn_data(tn_tensor_of(rows));
        for (int64_t k = 0; k < n; k++)   /* coalesced: each row's entries together, rows ascending */
            if (!nr || o[nr - 1] != I[k]) o[nr++] = I[k];
        Py_SETREF(rows, tn_at_narrow(rows, 0, 0, nr));
    }
    PyObject *v = rows ? tn_at_index_select(r, 0, rows) : NULL;
    PyObject *ri = v ? tn_at_unsqueeze(rows, 0) : NULL;
    if (ri) Py_SETREF(ri, tn_at_clone(ri, tn_py.memory_format_contiguous));
    int64_t size[2] = {tn_tensor_of(x)->sizes[0], q->sizes[1]};
    PyObject *out = ri ? make(size, 2, 1, ri, v, false) : (Py_XDECREF(v), NULL);
    Py_XDECREF(c); Py_XDECREF(r); Py_XDECREF(ix); Py_XDECREF(rows);
    return out;
}
/* mv(self, vec): sparse @ vec as a one-column mm */
static PyObject *k_mv(int op, tn_value *a) {
    if (!SP(a[0].u.obj) || SP(a[1].u.obj)) return tn_not_implemented("aten::mv with a dense matrix or a sparse vector");
    PyObject *col = tn_at_unsqueeze(a[1].u.obj, 1);
    PyObject *r = col ? tn_at_mm(a[0].u.obj, col) : NULL;
    Py_XDECREF(col);
    if (r) Py_SETREF(r, tn_at_squeeze_dim(r, 1));
    if (r) Py_SETREF(r, tn_at_clone(r, NULL));   /* a new tensor, not a view */
    return r;
}
static PyObject *k_reshape(int op, tn_value *a) { return err(PyExc_RuntimeError, "reshape is not implemented for sparse tensors"); }
/* addmm(self, mat1, mat2, *, beta, alpha) / _sparse_addmm */
static PyObject *k_addmm(int op, tn_value *a) {
    if (SP(a[0].u.obj) || !SP(a[1].u.obj)) return tn_not_implemented("aten::addmm with a sparse self or a dense mat1 and sparse mat2");
    return tn_sparse_addmm(a[0].u.obj, a[1].u.obj, a[2].u.obj, &a[3], &a[4], true);
}

/* sparse_mask of a sparse self: each mask entry takes the value of self's first entry at its
 * place (zero where self has none) */
static PyObject *sparse_mask_sparse(PyObject *self, PyObject *mask) {
    tn_sparse *m = SP(self), *mk = SP(mask);
    const tn_tensor *t = tn_tensor_of(self);
    if (m->sparse_dim != mk->sparse_dim) return tn_not_implemented("aten::sparse_mask of sparse tensors of different sparse dims");
    int64_t n = nnz_of(m), nm = nnz_of(mk), sd = m->sparse_dim;
    PyObject *ia = tn_at_contiguous(m->indices, NULL), *ib = ia ? tn_at_contiguous(mk->indices, NULL) : NULL;
    keyed *ka = malloc((size_t)(n + nm + 1) * sizeof *ka), *kb = ka ? ka + n : NULL;
    int64_t *pick = malloc((size_t)(nm + 1) * sizeof *pick), np = 0;
    int64_t *where = malloc((size_t)(nm + 1) * sizeof *where);
    PyObject *r = NULL;
    if (!ib || !ka || !pick || !where) { if (ib) PyErr_NoMemory(); goto done; }
    linear_keys((const int64_t *)tn_data(tn_tensor_of(ia)), t->sizes, sd, n, ka);
    linear_keys((const int64_t *)tn_data(tn_tensor_of(ib)), t->sizes, sd, nm, kb);
    qsort(ka, (size_t)n, sizeof *ka, cmp_keyed);
    for (int64_t j = 0; j < nm; j++) {   /* binary search for the first entry of self at the place */
        int64_t lo = 0, hi = n;
        while (lo < hi) { int64_t mid = (lo + hi) / 2; if (ka[mid].key < kb[j].key) lo = mid + 1; else hi = mid; }
        if (lo < n && ka[lo].key == kb[j].key) { pick[np] = ka[lo].pos; where[np++] = j; }
    }
    const tn_tensor *tv = tn_tensor_of(m->values);
    int64_t vs[TN_MAX_DIMS + 1];
    memcpy(vs, tv->sizes, (size_t)tv->ndim * sizeof *vs);
    vs[0] = nm;
    PyObject *vals = tn_at_zeros(TN_IN(vs, tv->ndim), TN_DT(tv->dtype), NULL, NULL, NULL);
    PyObject *pi = vals ? int_tensor(pick, np) : NULL, *wi = pi ? int_tensor(where, np) : NULL;
    PyObject *got = wi ? tn_at_index_select(m->values, 0, pi) : NULL;
    PyObject *put_ = got ? tn_at_index_put_(vals, TN_TS(wi), got, false) : NULL;
    Py_XDECREF(pi); Py_XDECREF(wi); Py_XDECREF(got);
    if (put_) {
        Py_DECREF(put_);
        r = make_like(mask, tn_at_clone(mk->indices, NULL), vals, mk->coalesced);
    } else Py_XDECREF(vals);
done:
    free(ka); free(pick); free(where);
    Py_XDECREF(ia); Py_XDECREF(ib);
    return r;
}

/* sparse_mask(self, mask): self's values at mask's indices, mask's flag */
static PyObject *k_sparse_mask(int op, tn_value *a) {
    tn_sparse *mk = SP(a[1].u.obj);
    const tn_tensor *s = TN_T(a[0]), *mt = TN_T(a[1]);
    bool same = mk && s->ndim == mt->ndim;
    for (int i = 0; same && i < s->ndim; i++) same = s->sizes[i] == mt->sizes[i];
    if (!mk) return err(PyExc_RuntimeError, "sparse_mask expects mask to be sparse");
    if (!same) return err(PyExc_RuntimeError, "sparse_mask(): operands have incompatible sizes; self has size [...] but mask has size [...]");
    if (SP(a[0].u.obj)) return sparse_mask_sparse(a[0].u.obj, a[1].u.obj);
    PyObject *rows = index_rows(mk->indices);
    PyObject *v = rows ? tn_at_index_Tensor(a[0].u.obj, TN_TPY(rows)) : NULL;
    Py_XDECREF(rows);
    return make_like(a[1].u.obj, v ? tn_at_clone(mk->indices, NULL) : NULL, v, mk->coalesced);
}

static PyObject *k_to_sparse_dim(int op, tn_value *a) { return sparse_to_sparse_dim(SELF, a[1].u.i); }
static PyObject *k_to_sparse(int op, tn_value *a) { return tn_op__to_sparse(a); }

/* index_select(self, dim, index): a sparse dim takes, for each position of index in turn, self's
 * entries at that index in their order (uncoalesced); a dense dim selects in the values */
static PyObject *k_index_select(int op, tn_value *a) {
    tn_sparse *m = M;
    const tn_tensor *t = tn_tensor_of(SELF);
    if (SP(a[2].u.obj)) return tn_not_implemented("aten::index_select with a sparse index");
    int64_t dim;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    const tn_tensor *it = TN_T(a[2]);
    if (it->ndim > 1) return err(PyExc_IndexError, "index_select() argument index must be 1-D strided (non-sparse) long-tensor.");
    int64_t size[TN_MAX_DIMS];
    memcpy(size, t->sizes, (size_t)t->ndim * sizeof *size);
    size[dim] = tn_numel(it);
    if (dim >= m->sparse_dim) {
        PyObject *v = tn_at_index_select(m->values, dim - m->sparse_dim + 1, a[2].u.obj);
        return make(size, t->ndim, m->sparse_dim, v ? tn_at_clone(m->indices, NULL) : NULL, v, m->coalesced);
    }
    PyObject *ix64 = tn_as_dtype(a[2].u.obj, TN_DTYPE_I64, false), *ixc = ix64 ? tn_at_contiguous(ix64, NULL) : NULL;
    PyObject *ic = ixc ? tn_at_contiguous(m->indices, NULL) : NULL;
    Py_XDECREF(ix64);
    if (!ic) { Py_XDECREF(ixc); return NULL; }
    int64_t n = nnz_of(m), ni = tn_numel(it), sd = m->sparse_dim;
    const int64_t *idx = (const int64_t *)tn_data(tn_tensor_of(ixc)), *I = (const int64_t *)tn_data(tn_tensor_of(ic));
    for (int64_t j = 0; j < ni; j++)
        if (idx[j] < -t->sizes[dim] || idx[j] >= t->sizes[dim]) {
            Py_DECREF(ixc); Py_DECREF(ic);
            return PyErr_Format(PyExc_IndexError, "index out of range in self");
        }
    int64_t cap = 16, cnt = 0, *src = malloc((size_t)cap * sizeof *src), *dst = malloc((size_t)cap * sizeof *dst);
    bool ok = src && dst;
    for (int64_t j = 0; ok && j < ni; j++) {
        int64_t want = idx[j] < 0 ? idx[j] + t->sizes[dim] : idx[j];
        for (int64_t k = 0; ok && k < n; k++) {
            if (I[dim * n + k] != want) continue;
            if (cnt == cap) {
                cap *= 2;
                int64_t *s2 = realloc(src, (size_t)cap * sizeof *src), *d2 = s2 ? realloc(dst, (size_t)cap * sizeof *dst) : NULL;
                if (s2) src = s2;
                if (d2) dst = d2;
                ok = s2 && d2;
                if (!ok) break;
            }
            src[cnt] = k;
            dst[cnt++] = j;
        }
    }
    PyObject *r = NULL;
    if (!ok) PyErr_NoMemory();
    else {
        PyObject *nix = tn_at_empty_memory_format(TN_IS(sd, cnt), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
        if (nix) {
            int64_t *o = (int64_t *)tn_data(tn_tensor_of(nix));
            for (int64_t c = 0; c < cnt; c++)
                for (int64_t d = 0; d < sd; d++) o[d * cnt + c] = d == dim ? dst[c] : I[d * n + src[c]];
        }
        PyObject *p = nix ? int_tensor(src, cnt) : NULL;
        PyObject *v = p ? tn_at_index_select(m->values, 0, p) : NULL;
        Py_XDECREF(p);
        r = make(size, t->ndim, (int)sd, v ? nix : (Py_XDECREF(nix), NULL), v, false);
    }
    free(src);
    free(dst);
    Py_DECREF(ixc);
    Py_DECREF(ic);
    return r;
}

/* _sparse_sum.dim(self, dim) / sum.dim_IntList(self, dim, keepdim, dtype): summed dense dims in
 * the values; summed sparse dims dropped from the indices and the entries coalesced; every sparse
 * dim summed: a dense result */
static PyObject *sparse_sum_dims_(PyObject *self, const tn_value *dims, bool fresh);
static PyObject *sparse_sum_dims(PyObject *self, const tn_value *dims) {   /* on the coalesced input, as upstream */
    PyObject *c = tn_at_coalesce(self);
    PyObject *r = c ? sparse_sum_dims_(c, dims, c != self) : NULL;
    Py_XDECREF(c);
    return r;
}
/* fresh: self is a coalesced copy made here, whose indices the result may keep (upstream's show
 * in their strides) */
static PyObject *sparse_sum_dims_(PyObject *self, const tn_value *dims, bool fresh) {
    tn_sparse *m = SP(self);
    const tn_tensor *t = tn_tensor_of(self);
    uint64_t mask = 0;
    for (int i = 0; i < dims->u.ints.n; i++) {
        int64_t d;
        if (tn_wrap_dim(dims->u.ints.v[i], t->ndim, &d) < 0) return NULL;
        mask |= 1ull << d;
    }
    int64_t vd[TN_MAX_DIMS], nvd = 0, keep[TN_MAX_DIMS], nk = 0, size[TN_MAX_DIMS], ns = 0;
    for (int d = m->sparse_dim; d < t->ndim; d++)
        if (mask >> d & 1) vd[nvd++] = d - m->sparse_dim + 1;
    for (int d = 0; d < m->sparse_dim; d++)
        if (!(mask >> d & 1)) { keep[nk++] = d; size[ns++] = t->sizes[d]; }
    for (int d = m->sparse_dim; d < t->ndim; d++)
        if (!(mask >> d & 1)) size[ns++] = t->sizes[d];
    PyObject *v = nvd ? tn_at_sum_dim_IntList(m->values, TN_IN(vd, nvd), false, NULL) : tn_at_clone(m->values, NULL);
    if (!v) return NULL;
    if (nk == m->sparse_dim) return make(size, (int)ns, (int)nk, fresh ? Py_NewRef(m->indices) : tn_at_clone(m->indices, NULL), v, true);
    if (nk == 0) {   /* dense */
        PyObject *r = tn_at_sum_dim_IntList(v, TN_IS(0), false, NULL);
        Py_DECREF(v);
        return r;
    }
    PyObject *p = int_tensor(keep, nk);
    PyObject *ix = p ? tn_at_index_select(m->indices, 0, p) : NULL;
    Py_XDECREF(p);
    PyObject *u = make(size, (int)ns, (int)nk, ix, ix ? v : (Py_DECREF(v), NULL), false);
    PyObject *r = u ? coalesce_kernel(u) : NULL;
    Py_XDECREF(u);
    return r;
}
/* keepdim: the summed dims put back with size 1 (sparse ones with index 0; the result flagged
 * uncoalesced, as upstream's; a dense result reshaped); a new reference */
static PyObject *keep_summed_dims(PyObject *self, PyObject *r, const tn_value *dims) {
    const tn_tensor *t = tn_tensor_of(self);
    uint64_t mask = 0;
    int n = dims->tag == TN_V_INTLIST ? dims->u.ints.n : 0;
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (tn_wrap_dim(dims->u.ints.v[i], t->ndim, &d) < 0) return NULL;
        mask |= 1ull << d;
    }
    if (!n) mask = ~0ull;   /* no dims (None or empty): every dim, as upstream's make_dim_mask */
    int64_t size[TN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) size[d] = mask >> d & 1 ? 1 : t->sizes[d];
    if (!SP(r)) {   /* a new tensor, not a view */
        PyObject *v = tn_at_reshape(r, TN_IN(size, t->ndim));
        if (v && ((tn_tensor_obj *)v)->base) Py_SETREF(v, share(v));
        return v;
    }
    PyObject *o = Py_NewRef(r);
    for (int d = 0; d < t->ndim && o; d++)
        if (mask >> d & 1) Py_SETREF(o, unsqueeze(o, d));
    return o;
}
static PyObject *k_sparse_sum_dim(int op, tn_value *a) { return sparse_sum_dims(SELF, &a[1]); }
/* sum.dim_IntList(self, dim, keepdim, dtype), upstream's sum_sparse_coo: dims given: _sparse_sum of
 * self in dtype (integral and bool in int64 when no dtype is given; no dims: the coalesced self);
 * dim None: the values' dense sum; keepdim: the summed dims (every dim when none are named) put back */
static PyObject *k_sum_dim(int op, tn_value *a) {
    bool given = a[3].tag == TN_V_DTYPE;
    PyObject *r;
    if (a[1].tag != TN_V_INTLIST) r = tn_at_sum(M->values, given ? TN_DT(a[3].u.dtype) : NULL);
    else {
        const tn_tensor *t = tn_tensor_of(SELF);
        tn_dtype dt = given ? a[3].u.dtype : tn_dtype_is_integral(t->dtype, true) ? TN_DTYPE_I64 : t->dtype;
        PyObject *x = dt != t->dtype ? tn_at__to_copy(SELF, TN_DT(dt), NULL, NULL, NULL, false, NULL) : Py_NewRef(SELF);
        r = x ? sparse_sum_dims(x, &a[1]) : NULL;
        Py_XDECREF(x);
    }
    if (r && a[2].u.i) Py_SETREF(r, keep_summed_dims(SELF, r, &a[1]));
    return r;
}

/* select.int(self, dim, index): a sparse dim keeps self's entries at that index in their order (the
 * dim dropped; every sparse dim gone: the dense sum of their values), a dense dim selects in the
 * values; coalesced when self is and dim is 0, as upstream's select_sparse */
static PyObject *k_select(int op, tn_value *a) {
    tn_sparse *m = M;
    const tn_tensor *t = tn_tensor_of(SELF);
    int64_t dim, idx = a[2].u.i;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    if (idx < -t->sizes[dim] || idx >= t->sizes[dim])
        return PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension %lld with size %lld", (long long)idx, (long long)dim,
                            (long long)t->sizes[dim]);
    if (idx < 0) idx += t->sizes[dim];
    int64_t size[TN_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < t->ndim; d++)
        if (d != dim) size[nd++] = t->sizes[d];
    if (dim >= m->sparse_dim) {   /* the values' view, as upstream's */
        PyObject *v = tn_at_select_int(m->values, dim - m->sparse_dim + 1, idx);
        return make(size, nd, m->sparse_dim, v ? tn_at_clone(m->indices, NULL) : NULL, v, m->coalesced && dim == 0);
    }
    PyObject *row = tn_at_select_int(m->indices, 0, dim);
    PyObject *hit = row ? tn_at_eq_Scalar(row, TN_SI(idx)) : NULL;
    PyObject *pos = hit ? tn_at_nonzero(hit) : NULL;
    if (pos) Py_SETREF(pos, tn_at_reshape(pos, TN_IS(-1)));
    Py_XDECREF(row);
    Py_XDECREF(hit);
    if (!pos) return NULL;
    PyObject *v = tn_at_index_select(m->values, 0, pos);
    if (m->sparse_dim == 1) {   /* a dense result: the sum's only row (a view, as upstream's) */
        PyObject *r = v ? tn_at_sum_dim_IntList(v, TN_IS(0), true, NULL) : NULL;
        if (r) Py_SETREF(r, tn_at_select_int(r, 0, 0));
        Py_DECREF(pos);
        Py_XDECREF(v);
        return r;
    }
    int64_t keep[TN_MAX_DIMS], nk = 0;
    for (int d = 0; d < m->sparse_dim; d++)
        if (d != dim) keep[nk++] = d;
    PyObject *k = int_tensor(keep, nk);
    PyObject *ix = k ? tn_at_index_select(m->indices, 0, k) : NULL;
    if (ix) Py_SETREF(ix, tn_at_index_select(ix, 1, pos));
    Py_XDECREF(k);
    Py_DECREF(pos);
    return make(size, nd, m->sparse_dim - 1, ix, ix ? v : (Py_XDECREF(v), NULL), m->coalesced && dim == 0);
}

/* unsqueeze(self, dim): a new sparse dim of index 0 (dim <= sparse_dim) or a dense one; flagged
 * uncoalesced, as upstream */
static PyObject *unsqueeze(PyObject *self, int64_t dim) {
    tn_sparse *m = SP(self);
    const tn_tensor *t = tn_tensor_of(self);
    if (dim < -(t->ndim + 1) || dim > t->ndim)
        return PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -(t->ndim + 1),
                            t->ndim, (long long)dim);
    if (dim < 0) dim += t->ndim + 1;
    if (t->ndim >= TN_MAX_DIMS) return err(PyExc_RuntimeError, "unsqueeze: too many dimensions");
    int64_t size[TN_MAX_DIMS];
    for (int d = 0, k = 0; d <= t->ndim; d++) size[d] = d == dim ? 1 : t->sizes[k++];
    if (dim <= m->sparse_dim) {
        int64_t n = nnz_of(m);
        PyObject *z = tn_at_zeros(TN_IS(1, n), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL);
        PyObject *lo = z ? tn_at_narrow(m->indices, 0, 0, dim) : NULL, *hi = lo ? tn_at_narrow(m->indices, 0, dim, m->sparse_dim - dim) : NULL;
        PyObject *ix = hi ? tn_at_cat(TN_TS(lo, z, hi), 0) : NULL;
        Py_XDECREF(z); Py_XDECREF(lo); Py_XDECREF(hi);
        return make(size, t->ndim + 1, m->sparse_dim + 1, ix, ix ? Py_NewRef(m->values) : NULL, false);   /* values shared, as upstream */
    }
    PyObject *v = tn_at_unsqueeze(m->values, dim - m->sparse_dim + 1);
    if (v) Py_SETREF(v, tn_at_clone(v, tn_py.memory_format_contiguous));
    return make(size, t->ndim + 1, m->sparse_dim, v ? tn_at_clone(m->indices, NULL) : NULL, v, false);
}
static PyObject *k_unsqueeze(int op, tn_value *a) { return unsqueeze(SELF, a[1].u.i); }

/* cat(tensors, dim) of sparse tensors: along a sparse dim the indices shifted by the sizes before
 * them, along a dense dim each one's values placed at its offset in zeros of the result's size;
 * indices and values concatenated in order (uncoalesced), the promoted dtype */
static PyObject *cat_sparse(PyObject *list, int64_t dim) {
    Py_ssize_t n = PyTuple_Size(list);
    if (n == 0) return err(PyExc_RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
    PyObject *first = PyTuple_GetItem(list, 0);
    for (Py_ssize_t k = 0; k < n; k++)
        if (!SP(PyTuple_GetItem(list, k)))
            return PyErr_Format(PyExc_RuntimeError, "Concatenating sparse tensors, but a dense tensor was found at position %zd.", k);
    tn_sparse *m0 = SP(first);
    const tn_tensor *t0 = tn_tensor_of(first);
    int64_t d;
    if (tn_wrap_dim(dim, t0->ndim, &d) < 0) return NULL;
    tn_dtype dt = t0->dtype;
    int64_t size[TN_MAX_DIMS];
    memcpy(size, t0->sizes, (size_t)t0->ndim * sizeof *size);
    size[d] = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyTuple_GetItem(list, k);
        tn_sparse *m = SP(x);
        const tn_tensor *t = tn_tensor_of(x);
        if (m->sparse_dim != m0->sparse_dim || m->dense_dim != m0->dense_dim)
            return PyErr_Format(PyExc_RuntimeError, "All tensors must have the same sparse_dim and dense_dim: %d, %d, but tensor at position %zd "
                                "has %d, %d.", m0->sparse_dim, m0->dense_dim, k, m->sparse_dim, m->dense_dim);
        for (int i = 0; i < t->ndim; i++)
            if (i != d && t->sizes[i] != t0->sizes[i]) {
                char b1[100], b2[100];
                return PyErr_Format(PyExc_RuntimeError, "All tensors must have the same shape: %s (except in the concatenating dimension), but "
                                    "tensor at position %zd has %s.", fmt_sizes(b1, sizeof b1, t0->sizes, t0->ndim), k,
                                    fmt_sizes(b2, sizeof b2, t->sizes, t->ndim));
            }
        dt = tn_promote_types(dt, t->dtype);
    }
    int64_t total = 0;   /* the result's size at a dense dim */
    for (Py_ssize_t k = 0; k < n; k++) total += tn_tensor_of(PyTuple_GetItem(list, k))->sizes[d];
    PyObject *ixs = PyTuple_New(n), *vs = ixs ? PyTuple_New(n) : NULL;
    PyObject *r = NULL;
    if (!vs) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyTuple_GetItem(list, k);
        tn_sparse *m = SP(x);
        PyObject *ix = tn_at_clone(m->indices, NULL);
        if (ix && d < m0->sparse_dim && size[d]) {
            PyObject *row = tn_at_select_int(ix, 0, d);
            PyObject *w = row ? tn_at_add__Scalar(row, TN_SI(size[d]), TN_SDEF) : NULL;
            if (!w) Py_CLEAR(ix);
            Py_XDECREF(row);
            Py_XDECREF(w);
        }
        PyObject *v = ix ? tn_as_dtype(m->values, dt, false) : NULL;
        if (v && d >= m0->sparse_dim) {   /* a dense dim: the values placed at their offset in zeros of the whole size */
            const tn_tensor *vt = tn_tensor_of(v);
            int vd = (int)d - m0->sparse_dim + 1;
            int64_t vs_[TN_MAX_DIMS];
            memcpy(vs_, vt->sizes, (size_t)vt->ndim * sizeof *vs_);
            vs_[vd] = total;
            PyObject *z = tn_at_zeros(TN_IN(vs_, vt->ndim), TN_DT(dt), NULL, NULL, NULL);
            PyObject *part = z ? tn_at_narrow(z, vd, (long long)size[d], (long long)vt->sizes[vd]) : NULL;
            PyObject *w = part ? tn_at_copy_(part, v, false) : NULL;
            Py_XDECREF(w);
            Py_XDECREF(part);
            Py_SETREF(v, w ? z : NULL);
            if (!w) Py_XDECREF(z);
        }
        if (!v) { Py_XDECREF(ix); goto done; }
        PyTuple_SetItem(ixs, k, ix);
        PyTuple_SetItem(vs, k, v);
        size[d] += tn_tensor_of(x)->sizes[d];
    }
    PyObject *ix = tn_at_cat(TN_TPY(ixs), 1);
    r = make(size, t0->ndim, m0->sparse_dim, ix, ix ? tn_at_cat(TN_TPY(vs), 0) : NULL, false);
done:
    Py_XDECREF(ixs);
    Py_XDECREF(vs);
    return r;
}
static PyObject *k_cat(int op, tn_value *a) { return cat_sparse(a[0].u.obj, a[1].u.i); }
/* stack(tensors, dim): each unsqueezed at dim, then cat */
static PyObject *k_stack(int op, tn_value *a) {
    Py_ssize_t n = PyTuple_Size(a[0].u.obj);
    PyObject *l = PyTuple_New(n);
    if (!l) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *x = PyTuple_GetItem(a[0].u.obj, k);
        PyObject *u = SP(x) ? unsqueeze(x, a[1].u.i) : NULL;
        if (!u) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "Concatenating sparse tensors, but a dense tensor was found at position %zd.", k);
            Py_DECREF(l);
            return NULL;
        }
        PyTuple_SetItem(l, k, u);
    }
    int64_t d = a[1].u.i < 0 ? a[1].u.i + tn_tensor_of(PyTuple_GetItem(a[0].u.obj, 0))->ndim + 1 : a[1].u.i;
    PyObject *r = cat_sparse(l, d);
    Py_DECREF(l);
    return r;
}

/* sparse * sparse of one shape (upstream's intersection kernel): the entries of the "source" in
 * their order, each times the other's (coalesced) value at its place, entries without one dropped.
 * The source is the operand other than the one upstream coalesces (x when coalesced, else y when
 * coalesced, else the one with more entries, x on a tie); the result's flag is the source's. */
static PyObject *mul_sparse_sparse(PyObject *x, PyObject *y) {
    tn_sparse *mx = SP(x), *my = SP(y);
    const tn_tensor *tx = tn_tensor_of(x), *ty = tn_tensor_of(y);
    bool same = tx->ndim == ty->ndim;
    for (int i = 0; same && i < tx->ndim; i++) same = tx->sizes[i] == ty->sizes[i];
    if (!same || mx->sparse_dim != my->sparse_dim) return tn_not_implemented("aten::mul of sparse COO tensors of other shapes or sparse dims");
    PyObject *pc = mx->coalesced ? x : my->coalesced ? y : nnz_of(mx) >= nnz_of(my) ? x : y;
    PyObject *src = pc == x ? y : x;
    PyObject *c = tn_at_coalesce(pc);
    if (!c) return NULL;
    tn_sparse *mc = SP(c), *ms = SP(src);
    int64_t n = nnz_of(mc), ns = nnz_of(ms), sd = mc->sparse_dim;
    PyObject *ia = tn_at_contiguous(mc->indices, NULL), *ib = ia ? tn_at_contiguous(ms->indices, NULL) : NULL;
    keyed *ka = malloc((size_t)(n + ns + 1) * sizeof *ka), *kb = ka ? ka + n : NULL;
    int64_t *pick = malloc((size_t)(ns + 1) * sizeof *pick), *keep = malloc((size_t)(ns + 1) * sizeof *keep), np = 0;
    PyObject *r = NULL;
    if (!ib || !ka || !pick || !keep) { if (ib) PyErr_NoMemory(); goto done; }
    linear_keys((const int64_t *)tn_data(tn_tensor_of(ia)), tx->sizes, sd, n, ka);   /* coalesced: sorted by key */
    linear_keys((const int64_t *)tn_data(tn_tensor_of(ib)), tx->sizes, sd, ns, kb);
    for (int64_t j = 0; j < ns; j++) {
        int64_t lo = 0, hi = n;
        while (lo < hi) { int64_t mid = (lo + hi) / 2; if (ka[mid].key < kb[j].key) lo = mid + 1; else hi = mid; }
        if (lo < n && ka[lo].key == kb[j].key) { pick[np] = lo; keep[np++] = j; }
    }
    PyObject *pi = int_tensor(pick, np), *ki = pi ? int_tensor(keep, np) : NULL;
    PyObject *va = ki ? tn_at_index_select(mc->values, 0, pi) : NULL, *vb = va ? tn_at_index_select(ms->values, 0, ki) : NULL;
    PyObject *v = vb ? tn_at_mul_Tensor(src == y ? va : vb, src == y ? vb : va) : NULL;
    PyObject *ix = v ? tn_at_index_select(ms->indices, 1, ki) : NULL;
    Py_XDECREF(pi); Py_XDECREF(ki); Py_XDECREF(va); Py_XDECREF(vb);
    r = make(tx->sizes, tx->ndim, (int)sd, ix, ix ? v : (Py_XDECREF(v), NULL), ms->coalesced);
done:
    free(ka); free(pick); free(keep);
    Py_XDECREF(ia); Py_XDECREF(ib); Py_DECREF(c);
    return r;
}

/* _sparse_softmax.int / _sparse_log_softmax.int (self, dim, dtype) and their half_to_float forms,
 * upstream's cpu_sparse_coo_softmax: over a dense dim, the values' (log_)softmax; over a sparse
 * dim, on the coalesced input, each pool (the entries sharing the other sparse indices) in entry
 * order: the max, exp(v - max) summed, then exp * (1 / sum) or v - (max + log(sum)), with the
 * C library's exp / log (float32 and float64, as upstream) */
#define SOFTMAX_POOL(T, EXP, LOG)                                                                             \
    do {                                                                                                     \
        const T *in = (const T *)iv;                                                                         \
        T *out = (T *)ov, *mx = (T *)scratch, *sm = mx + nv;                                                 \
        for (int64_t j = 0; j < nv; j++) { mx[j] = -INFINITY; sm[j] = 0; }                                  \
        for (int64_t q = g0; q < g1; q++)                                                                    \
            for (int64_t j = 0; j < nv; j++) { T x = in[k[q].pos * nv + j]; if (x > mx[j]) mx[j] = x; }       \
        for (int64_t q = g0; q < g1; q++)                                                                    \
            for (int64_t j = 0; j < nv; j++) {                                                               \
                T e = EXP(in[k[q].pos * nv + j] - mx[j]);                                                    \
                if (!logsm) out[k[q].pos * nv + j] = e;                                                      \
                sm[j] += e;                                                                                  \
            }                                                                                                \
        for (int64_t j = 0; j < nv; j++) {                                                                   \
            if (logsm) mx[j] += LOG(sm[j]);                                                                  \
            else sm[j] = (T)(1.0 / (double)sm[j]);                                                           \
        }                                                                                                    \
        for (int64_t q = g0; q < g1; q++)                                                                    \
            for (int64_t j = 0; j < nv; j++) {                                                               \
                int64_t at = k[q].pos * nv + j;                                                              \
                if (logsm) out[at] = in[at] - mx[j];                                                         \
                else out[at] *= sm[j];                                                                       \
            }                                                                                                \
    } while (0)
static PyObject *sparse_softmax(PyObject *self, int64_t dim, bool logsm, const tn_value *dtype) {
    PyObject *c = tn_at_coalesce(self);
    if (!c) return NULL;
    tn_sparse *m = SP(c);
    const tn_tensor *t = tn_tensor_of(c);
    PyObject *vals = Py_NewRef(m->values), *r = NULL, *nv_ = NULL;
    if (dtype && dtype->tag == TN_V_DTYPE) Py_SETREF(vals, tn_as_dtype(vals, dtype->u.dtype, false));
    int64_t d;
    if (!vals || tn_wrap_dim(dim, t->ndim, &d) < 0) goto done;
    tn_dtype vd = tn_tensor_of(vals)->dtype;
    if (vd != TN_DTYPE_F32 && vd != TN_DTYPE_F64) {
        PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", logsm ? "log_softmax" : "softmax", tn_dtype_cpp_name(vd));
        goto done;
    }
    if (d >= m->sparse_dim) {
        int64_t dv = d - m->sparse_dim + 1;
        nv_ = logsm ? tn_at__log_softmax(vals, dv, false) : tn_at__softmax(vals, dv, false);
    } else {
        int64_t n = nnz_of(m), sd = m->sparse_dim, nv = 1;
        for (int e = 1; e < tn_tensor_of(vals)->ndim; e++) nv *= tn_tensor_of(vals)->sizes[e];
        PyObject *ix = tn_at_contiguous(m->indices, NULL), *vin = ix ? tn_as_dtype(vals, vd, true) : NULL;
        nv_ = vin ? tn_at_empty_like(vin, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous) : NULL;
        keyed *k = nv_ ? malloc((size_t)(n ? n : 1) * sizeof *k) : NULL;
        double *scratch = k ? malloc((size_t)(2 * nv + 1) * sizeof *scratch) : NULL;
        if (nv_ && !scratch) PyErr_NoMemory();
        if (scratch) {
            const int64_t *I = (const int64_t *)tn_data(tn_tensor_of(ix));
            for (int64_t q = 0; q < n; q++) {   /* the pool: the entry's place over the other sparse dims */
                uint64_t key = 0;
                for (int64_t e = 0; e < sd; e++)
                    if (e != d) key = key * (uint64_t)t->sizes[e] + (uint64_t)I[e * n + q];
                k[q] = (keyed){(int64_t)key, q};
            }
            qsort(k, (size_t)n, sizeof *k, cmp_keyed);   /* stable by position: each pool in entry order */
            const void *iv = tn_data(tn_tensor_of(vin));
            void *ov = tn_data(tn_tensor_of(nv_));
            for (int64_t g0 = 0, g1; g0 < n; g0 = g1) {
                for (g1 = g0 + 1; g1 < n && k[g1].key == k[g0].key; g1++) {}
                if (vd == TN_DTYPE_F64) SOFTMAX_POOL(double, exp, log);
                else SOFTMAX_POOL(float, expf, logf);
            }
        } else Py_CLEAR(nv_);
        free(k);
        free(scratch);
        Py_XDECREF(ix);
        Py_XDECREF(vin);
    }
    r = make_like(c, nv_ ? tn_at_clone(m->indices, tn_py.memory_format_contiguous) : NULL, nv_, true);
    nv_ = NULL;
done:
    Py_XDECREF(vals);
    Py_DECREF(c);
    return r;
}
#undef SOFTMAX_POOL
/* _sparse_softmax / _sparse_log_softmax(self, dim, half_to_float) (the .int forms are composites
 * decomposed to these: softmax_int) */
static PyObject *k_softmax(int op, tn_value *a) {
    tn_value f = {.tag = TN_V_DTYPE};
    f.u.dtype = TN_DTYPE_F32;
    return sparse_softmax(SELF, a[1].u.i, strstr(tn_op_at(op)->name, "log") != NULL, a[2].u.i ? &f : NULL);
}

/* _sparse_softmax_backward_data / _sparse_log_softmax_backward_data(grad_output, output, dim, self):
 * upstream's cpu_sparse_coo_softmax_backward on the coalesced grad and output: output's entries,
 * each matched to grad's entry at its place (none: a zero gradient there); over a dense dim the
 * values' dense backward; over a sparse dim per pool in entry order, tmp -= out * g (log: tmp -= g),
 * then out * (g + tmp) (log: g + exp(out) * tmp) */
#define SOFTMAX_BW_POOL(T, EXP)                                                                          \
    do {                                                                                                 \
        const T *ov = (const T *)tn_data(tn_tensor_of(oc)), *gv = (const T *)tn_data(tn_tensor_of(gc)); \
        T *rv = (T *)tn_data(tn_tensor_of(res)), *tmp = (T *)scratch;                                    \
        for (int64_t j = 0; j < nv; j++) tmp[j] = 0;                                                     \
        for (int64_t q = g0; q < g1; q++) {                                                              \
            int64_t i = k[q].pos, m_ = match[i];                                                         \
            for (int64_t j = 0; m_ >= 0 && j < nv; j++)                                                  \
                tmp[j] -= logsm ? gv[m_ * nv + j] : ov[i * nv + j] * gv[m_ * nv + j];                    \
        }                                                                                                \
        for (int64_t q = g0; q < g1; q++) {                                                              \
            int64_t i = k[q].pos, m_ = match[i];                                                         \
            for (int64_t j = 0; j < nv; j++) {                                                           \
                T o_ = ov[i * nv + j];                                                                   \
                if (m_ >= 0) rv[i * nv + j] = logsm ? gv[m_ * nv + j] + EXP(o_) * tmp[j] : o_ * (gv[m_ * nv + j] + tmp[j]); \
                else rv[i * nv + j] = logsm ? EXP(o_) * tmp[j] : o_ * tmp[j];                            \
            }                                                                                            \
        }                                                                                                \
    } while (0)
static PyObject *k_softmax_backward(int op, tn_value *a) {
    bool logsm = strstr(tn_op_at(op)->name, "log") != NULL;
    PyObject *g = tn_at_coalesce(a[0].u.obj), *o = g ? tn_at_coalesce(a[1].u.obj) : NULL;
    PyObject *res = NULL, *gc = NULL, *oc = NULL, *oix = NULL, *gix = NULL;
    int64_t *match = NULL, *goff = NULL;
    keyed *k = NULL;
    double *scratch = NULL;
    if (!o) goto done;   /* a strided grad or output: coalesce's error, as upstream's */
    tn_sparse *mo = SP(o), *mg = SP(g);
    const tn_tensor *t = tn_tensor_of(o);
    int64_t d, sd = mo->sparse_dim, no = nnz_of(mo), ng = nnz_of(mg), nv = 1;
    if (tn_wrap_dim(a[2].u.i, t->ndim, &d) < 0) goto done;
    tn_dtype dt = tn_tensor_of(mo->values)->dtype;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64) {
        PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", logsm ? "log_softmax_backward" : "softmax_backward",
                     tn_dtype_cpp_name(dt));
        goto done;
    }
    if (mg->sparse_dim != sd || tn_tensor_of(g)->ndim != t->ndim) {
        PyErr_SetString(PyExc_RuntimeError, "softmax_backward: expected grad and output of the same sparse and dense dims");
        goto done;
    }
    for (int e = sd; e < t->ndim; e++) nv *= t->sizes[e];
    oix = tn_at_contiguous(mo->indices, NULL);
    gix = oix ? tn_at_contiguous(mg->indices, NULL) : NULL;
    oc = gix ? tn_as_dtype(mo->values, dt, true) : NULL;
    gc = oc ? tn_as_dtype(mg->values, dt, true) : NULL;
    match = gc ? malloc((size_t)(no ? no : 1) * sizeof *match) : NULL;
    goff = match ? malloc((size_t)(ng ? ng : 1) * sizeof *goff) : NULL;
    k = goff ? malloc((size_t)(no ? no : 1) * sizeof *k) : NULL;
    scratch = k ? malloc((size_t)(nv + 1) * sizeof *scratch) : NULL;
    if (gc && !scratch) { PyErr_NoMemory(); goto done; }
    if (!scratch) goto done;
    /* each entry's place (row-major over the sparse dims); grad's sorted (coalesced) */
    const int64_t *OI = (const int64_t *)tn_data(tn_tensor_of(oix)), *GI = (const int64_t *)tn_data(tn_tensor_of(gix));
    for (int64_t q = 0; q < ng; q++) {
        int64_t off = 0;
        for (int64_t e = 0; e < sd; e++) off = off * t->sizes[e] + GI[e * ng + q];
        goff[q] = off;
    }
    for (int64_t q = 0; q < no; q++) {
        int64_t off = 0, key = 0;
        for (int64_t e = 0; e < sd; e++) {
            off = off * t->sizes[e] + OI[e * no + q];
            if (e != d) key = key * t->sizes[e] + OI[e * no + q];
        }
        int64_t lo = 0, hi = ng;
        while (lo < hi) { int64_t mid = lo + (hi - lo) / 2; if (goff[mid] < off) lo = mid + 1; else hi = mid; }
        match[q] = lo < ng && goff[lo] == off ? lo : -1;
        k[q] = (keyed){key, q};
    }
    if (d >= sd) {   /* a dense dim: grad's values aligned to output's entries (zeros where it has none) */
        PyObject *al = tn_at_zeros_like(oc, NULL, NULL, NULL, NULL, NULL);
        if (!al) goto done;
        size_t row = (size_t)nv * (size_t)tn_dtype_itemsize(dt);
        for (int64_t q = 0; q < no; q++)
            if (match[q] >= 0) memcpy((char *)tn_data(tn_tensor_of(al)) + q * row, (const char *)tn_data(tn_tensor_of(gc)) + match[q] * row, row);
        res = logsm ? tn_at__log_softmax_backward_data(al, oc, d - sd + 1, TN_DT(dt)) : tn_at__softmax_backward_data(al, oc, d - sd + 1, TN_DT(dt));
        Py_DECREF(al);
    } else {
        res = tn_at_empty_like(oc, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous);
        if (!res) goto done;
        qsort(k, (size_t)no, sizeof *k, cmp_keyed);
        for (int64_t g0 = 0, g1; g0 < no; g0 = g1) {
            for (g1 = g0 + 1; g1 < no && k[g1].key == k[g0].key; g1++) {}
            if (dt == TN_DTYPE_F64) SOFTMAX_BW_POOL(double, exp);
            else SOFTMAX_BW_POOL(float, expf);
        }
    }
    if (res) res = make_like(o, tn_at_clone(mo->indices, tn_py.memory_format_contiguous), res, true);
done:
    free(match); free(goff); free(k); free(scratch);
    Py_XDECREF(oix); Py_XDECREF(gix); Py_XDECREF(oc); Py_XDECREF(gc); Py_XDECREF(g); Py_XDECREF(o);
    return res;
}
#undef SOFTMAX_BW_POOL

/* mean / mean.dim: upstream has no sparse kernel; mean() runs mean.dim, whose dispatch fails */
static PyObject *k_mean(int op, tn_value *a) {
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::mean.dim' with arguments from the 'SparseCPU' backend. This "
                        "could be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
                        "build process (if using custom build).");
}

/* ---- decompositions of composites with a sparse meaning ---- */

/* _sparse_softmax.int / _sparse_log_softmax.int (self, dim, dtype): the input in dtype, then the
 * half_to_float form, as upstream's composite */
static PyObject *softmax_int(tn_value *a, bool logsm) {
    PyObject *x = a[2].tag == TN_V_DTYPE ? tn_at__to_copy(a[0].u.obj, TN_DT(a[2].u.dtype), NULL, NULL, NULL, false, NULL) : Py_NewRef(a[0].u.obj);
    PyObject *r = !x ? NULL : logsm ? tn_at__sparse_log_softmax(x, a[1].u.i, false) : tn_at__sparse_softmax(x, a[1].u.i, false);
    Py_XDECREF(x);
    return r;
}
PyObject *tn_sparse_d_softmax_int(tn_value *a) { return softmax_int(a, false); }
PyObject *tn_sparse_d_log_softmax_int(tn_value *a) { return softmax_int(a, true); }

/* _sparse_mm(sparse, dense): _sparse_addmm(zeros, sparse, dense, beta=0), upstream's (its graph
 * node is SparseAddmmBackward0); a dense first argument: mm */
PyObject *tn_sparse_d_sparse_mm(tn_value *a) {
    PyObject *sp = a[0].u.obj, *dn = a[1].u.obj;
    if (!SP(sp) || SP(dn) || tn_tensor_of(sp)->ndim != 2 || tn_tensor_of(dn)->ndim != 2) return tn_at_mm(sp, dn);
    PyObject *z = tn_at_zeros(TN_IS(tn_tensor_of(sp)->sizes[0], tn_tensor_of(dn)->sizes[1]), TN_DT(tn_tensor_of(dn)->dtype), NULL, NULL, NULL);
    PyObject *r = z ? tn_at__sparse_addmm(z, sp, dn, TN_SI(0), TN_SI(1)) : NULL;
    Py_XDECREF(z);
    return r;
}
/* _sparse_sum(self): the coalesced values' sum */
PyObject *tn_sparse_d_sparse_sum(tn_value *a) {
    PyObject *c = tn_at_coalesce(a[0].u.obj);
    PyObject *v = c ? tn_at_values(c) : NULL;
    PyObject *r = v ? tn_at_sum(v, NULL) : NULL;
    Py_XDECREF(c);
    Py_XDECREF(v);
    return r;
}
/* _sparse_sum.dtype(self, dtype) / _sparse_sum.dim_dtype(self, dim, dtype): _sparse_sum of self in dtype */
PyObject *tn_sparse_d_sparse_sum_dtype(tn_value *a) {
    PyObject *x = tn_at__to_copy(a[0].u.obj, TN_DT(a[1].u.dtype), NULL, NULL, NULL, false, NULL);
    PyObject *r = x ? tn_at__sparse_sum(x) : NULL;
    Py_XDECREF(x);
    return r;
}
PyObject *tn_sparse_d_sparse_sum_dim_dtype(tn_value *a) {
    PyObject *x = tn_at__to_copy(a[0].u.obj, TN_DT(a[2].u.dtype), NULL, NULL, NULL, false, NULL);
    PyObject *r = x ? tn_at__sparse_sum_dim(x, tn_ints_of(&a[1])) : NULL;
    Py_XDECREF(x);
    return r;
}

/* embedding_sparse_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq): one
 * entry per looked-up index (padding_idx's dropped), uncoalesced, as upstream */
PyObject *tn_sparse_d_embedding_sparse_backward(tn_value *a) {
    if (a[4].u.i) return tn_not_implemented("aten::embedding_sparse_backward with scale_grad_by_freq=True");
    PyObject *grad = a[0].u.obj, *idx = a[1].u.obj;
    const tn_tensor *g = tn_tensor_of(grad);
    int64_t D = g->ndim ? g->sizes[g->ndim - 1] : 1;
    PyObject *ix = tn_at_reshape(idx, TN_IS(-1));
    PyObject *vals = ix ? tn_at_reshape(grad, TN_IS(-1, D)) : NULL;
    if (vals && a[3].u.i != -1) {
        PyObject *keep = tn_at_ne_Scalar(ix, TN_SI(a[3].u.i));
        PyObject *ix2 = keep ? tn_at_index_Tensor(ix, TN_TS(keep)) : NULL;
        PyObject *v2 = ix2 ? tn_at_index_Tensor(vals, TN_TS(keep)) : NULL;
        Py_XDECREF(keep);
        Py_SETREF(ix, ix2);
        Py_SETREF(vals, v2);
    }
    if (ix) Py_SETREF(ix, tn_at_unsqueeze(ix, 0));
    if (ix) Py_SETREF(ix, tn_as_dtype(ix, TN_DTYPE_I64, false));
    /* fresh contiguous indices and values (upstream's do not alias the arguments) */
    if (ix) Py_SETREF(ix, tn_at_clone(ix, tn_py.memory_format_contiguous));
    if (vals) Py_SETREF(vals, tn_at_clone(vals, tn_py.memory_format_contiguous));
    PyObject *r = ix && vals ? tn_at__sparse_coo_tensor_unsafe(ix, vals, TN_IS(a[2].u.i, D), NULL, tn_py.layout_sparse_coo, NULL, NULL, NULL) : NULL;
    Py_XDECREF(ix);
    Py_XDECREF(vals);
    return r;
}

/* ---- the stage ---- */

static struct { const char *name, *overload; sparse_fn fn; int row; } kernels[] = {
    {"_indices", "", k_indices_raw, -2}, {"_values", "", k_values_raw, -2}, {"indices", "", k_indices, -2},
    {"values", "", k_values, -2}, {"_nnz", "", k_nnz, -2}, {"sparse_dim", "", k_sparse_dim, -2}, {"_dimI", "", k_sparse_dim, -2},
    {"dense_dim", "", k_dense_dim, -2}, {"_dimV", "", k_dense_dim, -2}, {"is_coalesced", "", k_is_coalesced, -2},
    {"_coalesced_", "", k_coalesced_, -2}, {"_coalesce", "", k_coalesce, -2}, {"_to_dense", "", k_to_dense, -2},
    {"_to_sparse", "sparse_dim", k_to_sparse_dim, -2}, {"_to_sparse", "", k_to_sparse, -2},
    {"add", "Tensor", k_add, -2}, {"add_", "Tensor", k_add, -2}, {"sub", "Tensor", k_add, -2}, {"sub_", "Tensor", k_add, -2},
    {"abs_", "", k_unary_, -2}, {"neg_", "", k_unary_, -2}, {"sin_", "", k_unary_, -2}, {"sqrt_", "", k_unary_, -2},
    {"tanh_", "", k_unary_, -2}, {"floor_", "", k_unary_, -2}, {"ceil_", "", k_unary_, -2}, {"trunc_", "", k_unary_, -2},
    {"round_", "", k_unary_, -2}, {"frac_", "", k_unary_, -2}, {"sign_", "", k_unary_, -2}, {"sgn_", "", k_unary_, -2},
    {"log1p_", "", k_unary_, -2}, {"expm1_", "", k_unary_, -2}, {"asin_", "", k_unary_, -2}, {"atan_", "", k_unary_, -2},
    {"sinh_", "", k_unary_, -2}, {"tan_", "", k_unary_, -2}, {"asinh_", "", k_unary_, -2}, {"atanh_", "", k_unary_, -2},
    {"erf_", "", k_unary_, -2}, {"erfinv_", "", k_unary_, -2}, {"deg2rad_", "", k_unary_, -2}, {"rad2deg_", "", k_unary_, -2},
    {"relu_", "", k_unary_, -2}, {"nan_to_num_", "", k_unary_, -2},
    {"erfinv", "", k_unary, -2}, {"isposinf", "", k_unary, -2}, {"isneginf", "", k_unary, -2},
    {"mul", "Tensor", k_scale, -2}, {"mul", "Scalar", k_scale, -2}, {"mul_", "Tensor", k_scale, -2}, {"mul_", "Scalar", k_scale, -2},
    {"div", "Tensor", k_scale, -2}, {"div", "Scalar", k_scale, -2}, {"div_", "Tensor", k_scale, -2}, {"div_", "Scalar", k_scale, -2},
    {"neg", "", k_neg, -2}, {"abs", "", k_unary, -2}, {"sin", "", k_unary, -2}, {"sqrt", "", k_unary, -2}, {"tanh", "", k_unary, -2},
    {"clone", "", k_clone, -2}, {"detach", "", k_detach, -2}, {"view_as_real", "", k_view_as_real, -2}, {"alias", "", k_detach, -2}, {"zero_", "", k_zero_, -2},
    {"_to_copy", "", k_to_copy, -2}, {"empty_like", "", k_empty_like, -2}, {"zeros_like", "", k_empty_like, -2},
    {"new_zeros", "", k_new_zeros, -2}, {"new_empty", "", k_new_zeros, -2}, {"copy_", "", k_copy_, -2}, {"sum", "", k_sum, -2},
    {"transpose", "int", k_transpose, -2}, {"t", "", k_t, -2}, {"mm", "", k_mm, -2}, {"mv", "", k_mv, -2}, {"reshape", "", k_reshape, -2}, {"addmm", "", k_addmm, -2},
    {"_sparse_addmm", "", k_addmm, -2}, {"sparse_mask", "", k_sparse_mask, -2}, {"index_select", "", k_index_select, -2},
    {"_sparse_sum", "dim", k_sparse_sum_dim, -2}, {"sum", "dim_IntList", k_sum_dim, -2},
    {"select", "int", k_select, -2}, {"unsqueeze", "", k_unsqueeze, -2}, {"cat", "", k_cat, -2}, {"stack", "", k_stack, -2},
    {"_sparse_softmax", "", k_softmax, -2}, {"_sparse_log_softmax", "", k_softmax, -2},
    {"_sparse_softmax_backward_data", "", k_softmax_backward, -2}, {"mean", "", k_mean, -2}, {"_sparse_sparse_matmul", "", k_sparse_matmul, -2}, {"hspmm", "", k_hspmm, -2}, {"mean", "dim", k_mean, -2}, {"_sparse_log_softmax_backward_data", "", k_softmax_backward, -2},
    {"floor", "", k_unary, -2}, {"ceil", "", k_unary, -2}, {"trunc", "", k_unary, -2}, {"round", "", k_unary, -2},
{"frac", "", k_unary, -2}, {"sign", "", k_unary, -2}, {"sgn", "", k_unary, -2},
    {"log1p", "", k_unary, -2}, {"expm1", "", k_unary, -2}, {"asin", "", k_unary, -2}, {"atan", "", k_unary, -2},
    {"sinh", "", k_unary, -2}, {"tan", "", k_unary, -2}, {"asinh", "", k_unary, -2}, {"atanh", "", k_unary, -2},
    {"erf", "", k_unary, -2}, {"deg2rad", "", k_unary, -2}, {"rad2deg", "", k_unary, -2}, {"nan_to_num", "", k_unary, -2},
    {"relu", "", k_unary, -2}, {"isnan", "", k_unary, -2}, {"isinf", "", k_unary, -2}, {"signbit", "", k_unary, -2},
    {"pow", "Tensor_Scalar", k_unary, -2}, {"_sparse_coo_tensor_with_dims_and_tensors", "", k_with_dims_and_tensors, -2},
};

/* a COO or compressed tensor */
static bool any_sparse(PyObject *o) { return tn_py_is_tensor(o) && ((tn_tensor_obj *)o)->sparse; }
static bool is_sparse_value(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return any_sparse(v->u.obj);
    if (v->tag == TN_V_TENSORLIST)
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++)
            if (any_sparse(PyTuple_GetItem(v->u.obj, k))) return true;
    return false;
}

bool tn_sparse_among(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++)
        if (is_sparse_value(&args[i])) return true;
    return false;
}

PyObject *tn_sparse_call(int op, tn_value *args) {
    bool handled = false;
    PyObject *cr = tn_compressed_call(op, args, &handled);
    if (handled) return cr;
    bool compressed = tn_compressed_among(op, args);
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
        if (kernels[i].row == -2) kernels[i].row = tn_op_find(kernels[i].name, kernels[i].overload);
        if (op == kernels[i].row && !compressed) return kernels[i].fn(op, args);
    }
    const tn_op_def *d = tn_op_at(op);
    /* the queries upstream's Tensor answers itself */
    static const int queries[] = {TN_ROW_numel, TN_ROW_sym_numel, TN_ROW_dim, TN_ROW_size_int, TN_ROW_sym_size_int,
                                  TN_ROW_is_leaf, TN_ROW_output_nr, TN_ROW__version, TN_ROW_retains_grad, TN_ROW_data,
                                  TN_ROW_requires_grad_, TN_ROW_is_same_size, TN_ROW_get_device, TN_ROW_is_pinned};
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
        if (queries[i] == op) return d->fn(args);
    PyObject *r = tn_composite_under_mode(op, args, &handled);
    if (handled) return r;
    /* upstream's TensorIterator refuses the layout (nan_to_num, not structured, has no kernel there) */
    if (compressed && (tn_op_tags(op) & TN_TAG_POINTWISE) && op != TN_ROW_nan_to_num && op != TN_ROW_nan_to_num_) {
        const tn_schema *sc = tn_op_schema(op);
        for (int i = 0; sc && i < sc->nargs; i++)
            if (args[i].tag == TN_V_TENSOR && tn_compressed_of(args[i].u.obj)) {
                static const char *const names[] = {"Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc"};
                return PyErr_Format(PyExc_RuntimeError, "unsupported tensor layout: %s", names[tn_compressed_of(args[i].u.obj)->kind]);
            }
    }
    if (compressed || (tn_op_tags(op) & TN_TAG_SPARSE)) {
        char what[160];
        snprintf(what, sizeof what, "aten::%s%s%s for sparse %s tensors", d->name, d->overload[0] ? "." : "", d->overload,
                 compressed ? "compressed" : "COO");
        return tn_not_implemented(what);
    }
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s%s%s' with arguments from the 'SparseCPU' backend. This "
                        "could be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
                        "build process (if using custom build).", d->name, d->overload[0] ? "." : "", d->overload);
}
