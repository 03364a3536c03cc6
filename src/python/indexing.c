/* indexing.c — Tensor.__getitem__ / __setitem__ (Python indexing syntax), in C.
 *
 * An index expression is taken apart the way upstream's python_variable_indexing does: ints
 * become select.int, slices slice.Tensor, None unsqueeze, Ellipsis skips dims, bools and 0-dim
 * bool tensors unsqueeze plus a 1-element (or empty) index, and integer / bool tensors and
 * sequences are gathered into one index.Tensor (getitem) or index_put_ (setitem) call.
 * Assignment without tensors goes through copy_ / fill_.Tensor (view + expand for shapes).
 * Every tensor operation goes through the door (tn_door_call), in upstream's order, so dispatch
 * modes see the same aten calls. The methods are installed as __getitem__ / __setitem__ /
 * __delitem__ entries of TensorBase's manual method table (python/tensor.c). */
#include "ops/views.h"
#include "python/tensor.h"

/* helper from ops/create.c: would upstream refuse this number for dtype dt? */
int tn_cr_check_scalar(const tn_value *v, tn_dtype dt);

PyObject *tn_tensor_getitem(PyObject *self, PyObject *index);
PyObject *tn_tensor_setitem(PyObject *self, PyObject *args);
PyObject *tn_tensor_delitem(PyObject *self, PyObject *index);
PyObject *tn_tensor_get_T(PyObject *self, void *c);
PyObject *tn_tensor_get_H(PyObject *self, void *c);
PyObject *tn_tensor_get_mT(PyObject *self, void *c);
PyObject *tn_tensor_get_mH(PyObject *self, void *c);

/* ---------- door calls ---------- */

static PyObject *door(const char *name, const char *overload, tn_value *args) {
    int row = tn_op_find(name, overload);
    if (row < 0) return tn_not_implemented(name);
    return tn_door_call(row, args);
}

static tn_value vt(PyObject *o) { tn_value v; memset(&v, 0, sizeof v); v.tag = TN_V_TENSOR; v.u.obj = o; return v; }
static tn_value vi(int64_t i) { tn_value v; memset(&v, 0, sizeof v); v.tag = TN_V_INT; v.u.i = i; return v; }
static tn_value vb(bool b) { tn_value v; memset(&v, 0, sizeof v); v.tag = TN_V_BOOL; v.u.i = b; return v; }
static tn_value vlist(PyObject *tup) { tn_value v; memset(&v, 0, sizeof v); v.tag = TN_V_TENSORLIST; v.u.obj = tup; return v; }
static tn_value vints(int n, int64_t *p) { tn_value v; memset(&v, 0, sizeof v); v.tag = TN_V_INTLIST; v.u.ints.v = p; v.u.ints.n = n; return v; }

static PyObject *op_select(PyObject *t, int64_t dim, int64_t i) {
    tn_value a[3] = {vt(t), vi(dim), vi(i)};
    return door("select", "int", a);
}
static PyObject *op_slice(PyObject *t, int64_t dim, int64_t start, int64_t stop, int64_t step) {
    tn_value a[5] = {vt(t), vi(dim), vi(start), vi(stop), vi(step)};
    return door("slice", "Tensor", a);
}
static PyObject *op_unsqueeze(PyObject *t, int64_t dim) {
    tn_value a[2] = {vt(t), vi(dim)};
    return door("unsqueeze", "", a);
}
static PyObject *op_alias(PyObject *t) {
    tn_value a[1] = {vt(t)};
    return door("alias", "", a);
}

/* ---------- index classification ---------- */

static bool is_int_index(PyObject *o) {
    if (PyBool_Check(o) || tn_py_is_tensor(o)) return false;
    if (PyLong_Check(o)) return true;
    return !PyFloat_Check(o) && !PyComplex_Check(o) && !PySequence_Check(o) && PyIndex_Check(o);
}

static bool treat_as_tuple(PyObject *index) {
    if (PyTuple_Check(index)) return true;
    if (tn_py_is_tensor(index) || !PySequence_Check(index) || PyUnicode_Check(index) || PyBytes_Check(index)) return false;
    PyObject *arr = NULL;   /* a numpy array is an index tensor, never a tuple (as upstream) */
    int isarr = tn_py_ndarray_index(index, &arr);
    Py_XDECREF(arr);
    if (isarr != 0) { PyErr_Clear(); return false; }
    Py_ssize_t n = PySequence_Size(index);
    if (n < 0) { PyErr_Clear(); return false; }
    if (n >= 32) return false;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_GetItem(index, i);
        if (!o) { PyErr_Clear(); return false; }
        bool yes = tn_py_is_tensor(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || o == Py_None;
        Py_DECREF(o);
        if (yes) return true;
    }
    return false;
}

/* ---------- Python sequences as index tensors ---------- */

/* An int index or value read as upstream's THPUtils_unpackLong: out of int64, ValueError
 * "Overflow when unpacking long long" (x[2**63], x[[2**63]]). */
static int64_t index_int(PyObject *o) {
    int of;
    long long v = PyLong_AsLongLongAndOverflow(o, &of);
    if (of) {
        PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
        return -1;
    }
    return v;
}

static int seq_shape(PyObject *o, int depth, int *nd, int64_t *shape, int *kind) {
    if (PySequence_Check(o) && !tn_py_is_tensor(o) && !PyUnicode_Check(o)) {
        Py_ssize_t n = PySequence_Size(o);
        if (n < 0) return -1;
        if (depth >= TN_MAX_DIMS) { PyErr_SetString(PyExc_ValueError, "too many dimensions in index"); return -1; }
        if (depth == *nd) { shape[depth] = n; (*nd)++; }
        else if (depth > *nd || shape[depth] != n) {
            PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %lld)",
                         (long long)shape[depth], depth, (long long)n);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PySequence_GetItem(o, i);
            if (!e) return -1;
            int r = seq_shape(e, depth + 1, nd, shape, kind);
            Py_DECREF(e);
            if (r < 0) return -1;
        }
        return 0;
    }
    if (depth != *nd) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got a scalar)", (long long)shape[depth], depth);
        return -1;
    }
    if (PyBool_Check(o)) { if (*kind == 0) *kind = 1; }
    else if (is_int_index(o) || (tn_py_is_tensor(o) && tn_tensor_of(o)->ndim == 0 &&
                                 tn_dtype_is_integral(tn_tensor_of(o)->dtype, false))) *kind = 2;
    else if (PyFloat_Check(o) || PyComplex_Check(o) || tn_py_is_tensor(o)) *kind = 3;
    else {
        PyErr_Format(PyExc_TypeError, "an index sequence may only hold numbers, got %s", tn_py_type_name(o));
        return -1;
    }
    return 0;
}

static int seq_fill(PyObject *o, bool is_bool, char **p) {
    if (PySequence_Check(o) && !tn_py_is_tensor(o)) {
        Py_ssize_t n = PySequence_Size(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PySequence_GetItem(o, i);
            if (!e) return -1;
            int r = seq_fill(e, is_bool, p);
            Py_DECREF(e);
            if (r < 0) return -1;
        }
        return 0;
    }
    if (is_bool) { **p = (char)(o == Py_True); *p += 1; return 0; }
    int64_t v;
    if (PyFloat_Check(o) || PyComplex_Check(o)) {
        /* truncate as upstream; NaN / out of int64 range is its overflow error (a C cast is UB) */
        double d = PyFloat_Check(o) ? PyFloat_AsDouble(o) : PyComplex_RealAsDouble(o);
        if (!(d > -9223372036854775809.0 && d < 9223372036854775808.0)) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type int64 without overflow");
            return -1;
        }
        v = (int64_t)d;
    } else if (tn_py_is_tensor(o)) {
        PyObject *c = tn_as_dtype(o, TN_DTYPE_I64, true);
        if (!c) return -1;
        memcpy(&v, tn_data(tn_tensor_of(c)), 8);
        Py_DECREF(c);
        memcpy(*p, &v, 8);
        *p += 8;
        return 0;
    } else v = index_int(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    memcpy(*p, &v, 8);
    *p += 8;
    return 0;
}

static PyObject *seq_to_tensor(PyObject *seq) {
    int nd = 0, kind = 0;
    int64_t shape[TN_MAX_DIMS];
    if (seq_shape(seq, 0, &nd, shape, &kind) < 0) return NULL;
    bool is_bool = kind == 1; /* anything else becomes int64 (floats truncate, as upstream) */
    PyObject *t = tn_tensor_new_empty(nd, shape, is_bool ? TN_DTYPE_BOOL : TN_DTYPE_I64, TN_DEVICE_CPU);
    if (!t) return NULL;
    char *p = tn_data(tn_tensor_of(t));
    if (tn_numel(tn_tensor_of(t)) > 0 && seq_fill(seq, is_bool, &p) < 0) { Py_DECREF(t); return NULL; }
    return t;
}

/* A 1-element ([0]) or empty int64 index for a bool index. */
static PyObject *bool_index(bool v) {
    int64_t n = v ? 1 : 0;
    PyObject *t = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (t && v) memset(tn_data(tn_tensor_of(t)), 0, 8);
    return t;
}

/* ---------- the slicing walk ---------- */

typedef struct {
    PyObject *tensors[TN_MAX_DIMS * 2];  /* index tensor at result dim i, or NULL; owned */
    int ntensors;                        /* 1 + highest dim holding a tensor */
    bool any;
} index_list;

static void index_list_free(index_list *l) {
    for (int i = 0; i < l->ntensors; i++) Py_CLEAR(l->tensors[i]);
}

static int record(index_list *l, int64_t dim, PyObject *t) {
    if (dim >= TN_MAX_DIMS * 2) { Py_DECREF(t); tn_not_implemented("indexing this many dimensions"); return -1; }
    while (l->ntensors <= dim) l->tensors[l->ntensors++] = NULL;
    Py_XSETREF(l->tensors[dim], t);
    l->any = true;
    return 0;
}

static int count_dims(PyObject *tup, int ndim) {
    Py_ssize_t n = PyTuple_Size(tup);
    int64_t count = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GetItem(tup, i);
        if (o == Py_None || o == Py_Ellipsis || PyBool_Check(o)) continue;
        if (tn_py_is_tensor(o)) {
            tn_tensor *t = tn_tensor_of(o);
            count += (t->dtype == TN_DTYPE_BOOL || t->dtype == TN_DTYPE_U8) ? t->ndim : 1;
        } else {
            count++;
        }
    }
    if (count > ndim) {
        PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", ndim);
        return -1;
    }
    return (int)count;
}

static PyObject *select_checked(PyObject *t, int64_t dim, int64_t real_dim, int64_t i) {
    tn_tensor *x = tn_tensor_of(t);
    if (x->ndim == 0) {
        PyErr_SetString(PyExc_IndexError,
                        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                        "convert a 0-dim tensor to a number");
        return NULL;
    }
    int64_t size = x->sizes[dim];
    if (i < -size || i >= size) {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension %lld with size %lld",
                     (long long)i, (long long)real_dim, (long long)size);
        return NULL;
    }
    return op_select(t, dim, i);
}

static int slice_args(PyObject *s, int64_t *start, int64_t *stop, int64_t *step) {
    Py_ssize_t a, b, c;
    if (PySlice_Unpack(s, &a, &b, &c) < 0) return -1;
    if (c <= 0) {
        PyErr_SetString(PyExc_ValueError, "step must be greater than zero");
        return -1;
    }
    *start = a; *stop = b == PY_SSIZE_T_MAX ? INT64_MAX : b; *step = c;
    return 0;
}

static int64_t scalar_long(PyObject *t) {
    PyObject *c = tn_as_dtype(t, TN_DTYPE_I64, true);
    if (!c) return -1;
    int64_t v;
    memcpy(&v, tn_data(tn_tensor_of(c)), 8);
    Py_DECREF(c);
    return v;
}

/* Apply the basic part of `tup` to self; collect tensor indices in l. New reference or NULL. */
static PyObject *apply_slicing(PyObject *self, PyObject *tup, index_list *l) {
    tn_tensor *st = tn_tensor_of(self);
    int specified = count_dims(tup, st->ndim);
    if (specified < 0) return NULL;
    PyObject *res = Py_NewRef(self);
    int64_t dim = 0, real_dim = 0;
    Py_ssize_t n = PyTuple_Size(tup);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GetItem(tup, i), *next = NULL;
        if (is_int_index(o)) {
            int64_t v = index_int(o);
            if (v == -1 && PyErr_Occurred()) goto fail;
            next = select_checked(res, dim, real_dim, v);
            real_dim++;
        } else if (PySlice_Check(o)) {
            int64_t a, b, c;
            if (slice_args(o, &a, &b, &c) < 0) goto fail;
            /* a slice that keeps the whole dimension is skipped, as upstream's applySlicing does */
            tn_tensor *rt = tn_tensor_of(res);
            if (a == 0 && c == 1 && dim < rt->ndim && b >= rt->sizes[dim]) next = Py_NewRef(res);
            else next = op_slice(res, dim, a, b, c);
            dim++; real_dim++;
        } else if (o == Py_Ellipsis) {
            dim += st->ndim - specified;
            real_dim += st->ndim - specified;
            continue;
        } else if (o == Py_None) {
            next = op_unsqueeze(res, dim);
            dim++;
        } else if (PyBool_Check(o)) {
            next = op_unsqueeze(res, dim);
            PyObject *bi = next ? bool_index(o == Py_True) : NULL;
            if (next && (!bi || record(l, dim, bi) < 0)) Py_CLEAR(next);
            dim++;
        } else if (tn_py_is_tensor(o)) {
            tn_tensor *t = tn_tensor_of(o);
            bool maskish = t->dtype == TN_DTYPE_BOOL || t->dtype == TN_DTYPE_U8;
            if (t->ndim == 0 && tn_dtype_is_integral(t->dtype, false) && !maskish) {
                int64_t v = scalar_long(o);
                if (v == -1 && PyErr_Occurred()) goto fail;
                next = select_checked(res, dim, real_dim, v);
                real_dim++;
            } else if (t->ndim == 0 && maskish) {
                next = op_unsqueeze(res, dim);
                int64_t v = next ? scalar_long(o) : 0;
                PyObject *bi = next && !PyErr_Occurred() ? bool_index(v != 0) : NULL;
                if (next && (!bi || record(l, dim, bi) < 0)) Py_CLEAR(next);
                dim++;
            } else {
                if (record(l, dim, Py_NewRef(o)) < 0) goto fail;
                int64_t used = maskish ? t->ndim : 1;
                dim += used;
                real_dim += used;
                continue;
            }
        } else if (PyUnicode_Check(o)) {
            PyErr_SetString(PyExc_TypeError, "new(): invalid data type 'str'");
            goto fail;
        } else if (PySequence_Check(o)) {
            PyObject *t = seq_to_tensor(o);
            if (!t) goto fail;
            int64_t used = tn_tensor_of(t)->dtype == TN_DTYPE_BOOL ? tn_tensor_of(t)->ndim : 1;
            if (record(l, dim, t) < 0) goto fail;
            dim += used;
            real_dim += used;
            continue;
        } else {
            PyErr_Format(PyExc_IndexError,
                         "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got %s)",
                         tn_py_type_name(o));
            goto fail;
        }
        if (!next) goto fail;
        Py_XSETREF(res, next);
    }
    return res;
fail:
    Py_DECREF(res);
    return NULL;
}

/* the index as a tuple, its numpy arrays converted to tensors (upstream's indexing_tensor_from_data:
 * x[np.array([True, False])] is a bool mask) */
static PyObject *arrays_converted(PyObject *tup) {
    if (!tup) return NULL;
    Py_ssize_t n = PyTuple_Size(tup);
    PyObject *res = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = NULL;
        int r = tn_py_ndarray_index(PyTuple_GetItem(tup, i), &t);
        if (r < 0) { Py_XDECREF(res); Py_DECREF(tup); return NULL; }
        if (r == 0) continue;
        if (!res) {
            if (!(res = PyTuple_New(n))) { Py_DECREF(t); Py_DECREF(tup); return NULL; }
            for (Py_ssize_t k = 0; k < n; k++) PyTuple_SetItem(res, k, Py_NewRef(PyTuple_GetItem(tup, k)));
        }
        PyTuple_SetItem(res, i, t);   /* res is our fresh tuple: SetItem drops the array it held */
    }
    if (!res) return tup;
    Py_DECREF(tup);
    return res;
}

static PyObject *as_tuple(PyObject *index) {
    if (PyTuple_Check(index)) return arrays_converted(Py_NewRef(index));
    if (treat_as_tuple(index)) {
        if (PyErr_WarnEx(PyExc_UserWarning,
                "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; "
                "use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, "
                "x[torch.tensor(seq)], which will result either in an error or a different result", 1) < 0)
            return NULL;
        return arrays_converted(PySequence_Tuple(index));
    }
    return arrays_converted(PyTuple_Pack(1, index));
}

static PyObject *index_tuple(index_list *l) {
    PyObject *tup = PyTuple_New(l->ntensors);
    if (!tup) return NULL;
    for (int i = 0; i < l->ntensors; i++)
        PyTuple_SetItem(tup, i, Py_NewRef(l->tensors[i] ? l->tensors[i] : Py_None));
    return tup;
}

/* a strided nested tensor (ops/nested.c): an index starting with an int takes that component
 * (select.int on dim 0), then the rest on it; (..., x) takes x on the last dim; other forms fail
 * (a slice reaches the slice op, which nested tensors refuse, as upstream) */
static PyObject *nested_getitem(PyObject *self, PyObject *index) {
    PyObject *first = PyTuple_Check(index) && PyTuple_Size(index) > 0 ? PyTuple_GetItem(index, 0) : NULL;
    if (first && is_int_index(first)) {
        int64_t v = index_int(first);
        if (v == -1 && PyErr_Occurred()) return NULL;
        PyObject *c = select_checked(self, 0, 0, v);
        PyObject *rest = c ? PyTuple_GetSlice(index, 1, PyTuple_Size(index)) : NULL;
        PyObject *r = rest ? tn_tensor_getitem(c, rest) : NULL;
        Py_XDECREF(c);
        Py_XDECREF(rest);
        return r;
    }
    PyObject *last = first == Py_Ellipsis && PyTuple_Size(index) == 2 ? PyTuple_GetItem(index, 1) : NULL;
    if (last && is_int_index(last)) {
        int64_t v = index_int(last);
        return v == -1 && PyErr_Occurred() ? NULL : op_select(self, -1, v);
    }
    if (last == Py_None) return op_unsqueeze(self, -1);
    if (last && PySlice_Check(last)) {
        int64_t a, b, c;
        return slice_args(last, &a, &b, &c) < 0 ? NULL : op_slice(self, -1, a, b, c);
    }
    return tn_not_implemented("this index of a strided nested tensor");
}

PyObject *tn_tensor_getitem(PyObject *self, PyObject *index) {
    /* fast paths, as upstream */
    if (index == Py_None) return op_unsqueeze(self, 0);
    if (index == Py_Ellipsis) return op_alias(self);
    if (is_int_index(index)) {
        int64_t v = index_int(index);
        if (v == -1 && PyErr_Occurred()) return NULL;
        return select_checked(self, 0, 0, v);
    }
    if (((tn_tensor_obj *)self)->nested && !PySlice_Check(index)) return nested_getitem(self, index);
    if (PySlice_Check(index)) {
        if (tn_tensor_of(self)->ndim == 0) {
            PyErr_SetString(PyExc_IndexError, "too many indices for tensor of dimension 0");
            return NULL;
        }
        int64_t a, b, c;
        if (slice_args(index, &a, &b, &c) < 0) return NULL;
        return op_slice(self, 0, a, b, c);
    }
    PyObject *tup = as_tuple(index);
    if (!tup) return NULL;
    index_list l;
    memset(&l, 0, sizeof l);
    PyObject *res = apply_slicing(self, tup, &l);
    Py_DECREF(tup);
    if (res && l.any) {
        PyObject *lt = index_tuple(&l);
        if (!lt) Py_CLEAR(res);
        else {
            tn_value a[2] = {vt(res), vlist(lt)};
            PyObject *r = door("index", "Tensor", a);
            Py_DECREF(lt);
            Py_XSETREF(res, r);
        }
    } else if (res && res == self) {
        Py_XSETREF(res, op_alias(self));
    }
    index_list_free(&l);
    return res;
}

/* ---------- assignment ---------- */

/* Strip leading size-1 dims of src (upstream's slicePrefix1sDims) with view. */
static PyObject *strip_prefix_ones(PyObject *src) {
    tn_tensor *t = tn_tensor_of(src);
    int k = 0;
    while (k < t->ndim && t->sizes[k] == 1) k++;
    if (k == 0) return Py_NewRef(src);
    int64_t sz[TN_MAX_DIMS];
    memcpy(sz, t->sizes + k, (size_t)(t->ndim - k) * sizeof *sz);
    tn_value a[2] = {vt(src), vints(t->ndim - k, sz)};
    return door("view", "", a);
}

static int copy_to(PyObject *dst, PyObject *src) {
    tn_tensor *d = tn_tensor_of(dst), *s = tn_tensor_of(src);
    PyObject *r;
    if (d->ndim == s->ndim && memcmp(d->sizes, s->sizes, (size_t)d->ndim * sizeof *d->sizes) == 0) {
        tn_value a[3] = {vt(dst), vt(src), vb(false)};
        r = door("copy_", "", a);
    } else if (s->ndim == 0) {
        tn_value a[2] = {vt(dst), vt(src)};
        r = door("fill_", "Tensor", a);
    } else {
        PyObject *v = strip_prefix_ones(src);
        if (!v) return -1;
        int64_t sizes[TN_MAX_DIMS];
        memcpy(sizes, d->sizes, sizeof sizes);
        tn_value e[3] = {vt(v), vints(d->ndim, sizes), vb(false)};
        PyObject *ex = door("expand", "", e);
        Py_DECREF(v);
        if (!ex) return -1;
        tn_value a[3] = {vt(dst), vt(ex), vb(false)};
        r = door("copy_", "", a);
        Py_DECREF(ex);
    }
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}

/* The value of an assignment as a tensor: tensors as they are, numbers as 0-dim tensors of
 * self's dtype. */
static PyObject *value_tensor(PyObject *self, PyObject *value) {
    if (tn_py_is_tensor(value)) return Py_NewRef(value);
    tn_dtype dt = tn_tensor_of(self)->dtype;
    tn_value v;
    memset(&v, 0, sizeof v);
    if (PyBool_Check(value)) { v.tag = TN_V_BOOL; v.u.i = value == Py_True; }
    else if (PyLong_Check(value)) {
        int of;
        v.tag = TN_V_INT;
        v.u.i = PyLong_AsLongLongAndOverflow(value, &of);
        if (of) { PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long"); return NULL; }
    } else if (PyFloat_Check(value)) { v.tag = TN_V_FLOAT; v.u.f = PyFloat_AsDouble(value); }
    else if (PyComplex_Check(value)) {
        if (!tn_dtype_is_complex(dt)) {
            PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow",
                         tn_dtype_is_floating(dt) ? (tn_dtype_itemsize(dt) == 8 ? "double" : "float") : tn_dtype_infos[dt].name);
            return NULL;
        }
        v.tag = TN_V_COMPLEX; v.u.c.re = PyComplex_RealAsDouble(value); v.u.c.im = PyComplex_ImagAsDouble(value);
    } else {
        PyErr_Format(PyExc_TypeError, "can't assign a %s to a torch.%sTensor", tn_py_type_name(value), tn_dtype_cpp_name(dt));
        return NULL;
    }
    if (tn_cr_check_scalar(&v, dt) < 0) return NULL; /* upstream: "value cannot be converted ..." */
    PyObject *t = tn_tensor_new_empty(0, NULL, dt, TN_DEVICE_CPU);
    if (t && tn_fill_number(t, &v) < 0) Py_CLEAR(t);
    return t;
}

static int setitem(PyObject *self, PyObject *index, PyObject *value) {
    /* a strided nested tensor: into a component (select.int on dim 0) when the index starts with
     * an int; any other index needs its sizes, which upstream's NestedTensorImpl refuses */
    if (((tn_tensor_obj *)self)->nested) {
        if (!PyTuple_Check(index) || PyTuple_Size(index) == 0 || !is_int_index(PyTuple_GetItem(index, 0))) {
            PyErr_SetString(PyExc_RuntimeError, "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.");
            return -1;
        }
        int64_t v = index_int(PyTuple_GetItem(index, 0));
        if (v == -1 && PyErr_Occurred()) return -1;
        PyObject *c = select_checked(self, 0, 0, v);
        PyObject *rest = c ? PyTuple_GetSlice(index, 1, PyTuple_Size(index)) : NULL;
        int rc = rest ? setitem(c, rest, value) : -1;
        Py_XDECREF(c);
        Py_XDECREF(rest);
        return rc;
    }
    PyObject *val = value_tensor(self, value);
    if (!val) return -1;
    int rc = -1;
    PyObject *sliced = NULL;
    index_list l;
    memset(&l, 0, sizeof l);
    if (index == Py_Ellipsis) {
        sliced = Py_NewRef(self);
    } else if (index == Py_None || index == Py_True) {
        sliced = op_unsqueeze(self, 0);
    } else if (is_int_index(index)) {
        int64_t v = index_int(index);
        if (v == -1 && PyErr_Occurred()) goto done;
        sliced = select_checked(self, 0, 0, v);
    } else if (PySlice_Check(index) && tn_tensor_of(self)->ndim > 0) {
        int64_t a, b, c;
        if (slice_args(index, &a, &b, &c) < 0) goto done;
        sliced = op_slice(self, 0, a, b, c);
    } else {
        PyObject *tup = as_tuple(index);
        if (!tup) goto done;
        sliced = apply_slicing(self, tup, &l);
        Py_DECREF(tup);
    }
    if (!sliced) goto done;
    if (!l.any) {
        rc = copy_to(sliced, val);
        goto done;
    }
    PyObject *lt = index_tuple(&l);
    if (!lt) goto done;
    PyObject *vs = strip_prefix_ones(val);
    if (!vs) { Py_DECREF(lt); goto done; }
    tn_value a[4] = {vt(sliced), vlist(lt), vt(vs), vb(false)};
    PyObject *r = door("index_put_", "", a);
    Py_DECREF(lt);
    Py_DECREF(vs);
    if (r) { Py_DECREF(r); rc = 0; }
done:
    Py_XDECREF(sliced);
    Py_DECREF(val);
    index_list_free(&l);
    return rc;
}

PyObject *tn_tensor_setitem(PyObject *self, PyObject *args) {
    PyObject *index, *value;
    if (!PyArg_ParseTuple(args, "OO:__setitem__", &index, &value)) return NULL;
    if (setitem(self, index, value) < 0) return NULL;
    Py_RETURN_NONE;
}

PyObject *tn_tensor_delitem(PyObject *self, PyObject *index) {
    PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
    return NULL;
}

/* ---------- matrix-transpose properties (x.T, x.H, x.mT, x.mH) ----------
 * Upstream exposes these as TensorBase properties; the getters go through the door
 * (numpy_T, matrix_H, mT, mH). For TensorBase's getset table (python/tensor.c). */
static PyObject *prop(PyObject *self, const char *name) {
    tn_value a[1] = {vt(self)};
    return door(name, "", a);
}
PyObject *tn_tensor_get_T(PyObject *self, void *c) { return prop(self, "numpy_T"); }
PyObject *tn_tensor_get_H(PyObject *self, void *c) { return prop(self, "matrix_H"); }
PyObject *tn_tensor_get_mT(PyObject *self, void *c) { return prop(self, "mT"); }
PyObject *tn_tensor_get_mH(PyObject *self, void *c) { return prop(self, "mH"); }

/* x.real / x.imag (helper-opb): views through the door (real, imag); assignment copies into the
 * view, as upstream's setters (self.real().copy_(value)) */
PyObject *tn_tensor_get_real(PyObject *self, void *c) { return prop(self, "real"); }
PyObject *tn_tensor_get_imag(PyObject *self, void *c) { return prop(self, "imag"); }
static int set_part(PyObject *self, PyObject *value, const char *name) {
    if (!value) {
        PyErr_Format(PyExc_TypeError, "cannot delete %s", name);
        return -1;
    }
    PyObject *v = tn_py_is_tensor(value) ? Py_NewRef(value) : tn_tensor_from_number(value, true);
    if (!v) return -1;
    PyObject *part = prop(self, name);
    PyObject *r = NULL;
    if (part) {
        tn_value a[3] = {vt(part), vt(v), vb(false)};
        r = door("copy_", "", a);
    }
    Py_XDECREF(part); Py_DECREF(v);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}
int tn_tensor_set_real(PyObject *self, PyObject *value, void *c) { return set_part(self, value, "real"); }
int tn_tensor_set_imag(PyObject *self, PyObject *value, void *c) { return set_part(self, value, "imag"); }
