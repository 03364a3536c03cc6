/* object.c — the tensor and storage objects every layer makes: allocation, wrapping, views,
 * 0-dim tensors from Python numbers, and the one shared state tn_py (core/pystate.h).
 *
 * Results are instances of torch.Tensor (tn_py.tensor_class, set by _initExtension) or, before
 * that, of TensorBase; the types are created by the Python face (python/tensor.c). See
 * docs/ARCHITECTURE.md, "Layers and folders". */
#include "core/object.h"

#include <stdlib.h>
#include <string.h>

tn_py_state tn_py;

PyObject *tn_not_implemented(const char *what) {
    PyErr_Format(PyExc_NotImplementedError, "torchnative: %s is not implemented", what);
    return NULL;
}

/* The name lives in one of four rotating buffers per thread, so up to four names can appear in
 * one message. */
const char *tn_py_type_name(PyObject *o) {
    static _Thread_local char buf[4][128];
    static _Thread_local int k;
    char *b = buf[k = (k + 1) % 4];
    PyObject *n = PyType_GetName(Py_TYPE(o));
    const char *s = n ? PyUnicode_AsUTF8AndSize(n, NULL) : NULL;
    snprintf(b, sizeof buf[0], "%s", s ? s : "object");
    if (!s) PyErr_Clear();
    Py_XDECREF(n);
    return b;
}

/* ---------- allocation ---------- */

static PyTypeObject *result_type(void) {
    return tn_py.tensor_class ? tn_py.tensor_class : tn_py.TensorBase;
}

PyObject *tn_obj_alloc(PyTypeObject *tp) {
    allocfunc a = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    return a(tp, 0);
}

PyObject *tn_storage_obj_new(PyTypeObject *tp, tn_storage *s) {
    tn_storage_obj *o = (tn_storage_obj *)tn_obj_alloc(tp);
    if (!o) { tn_storage_decref(s); return NULL; }
    o->s = s;
    s->pyobj = o;
    return (PyObject *)o;
}

PyObject *tn_tensor_wrap(const tn_tensor *t) {
    tn_tensor_obj *o = (tn_tensor_obj *)tn_obj_alloc(result_type());
    if (!o) {
        tn_storage_decref(t->storage);
        return NULL;
    }
    o->t = *t;
    return (PyObject *)o;
}

PyObject *tn_tensor_new_empty(int ndim, const int64_t *sizes, tn_dtype dtype, tn_device_type dev) {
    tn_tensor t;
    int64_t n;
    if (ndim > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: tensors of more than %d dimensions are not supported", TN_MAX_DIMS);
        return NULL;
    }
    for (int i = 0; i < ndim; i++)
        if (sizes[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld%s]",
                         (long long)sizes[i], (long long)sizes[0], ndim > 1 ? ", ..." : "");
            return NULL;
        }
    size_t isz = (size_t)tn_dtype_itemsize(dtype);
    if (!tn_sizes_numel(ndim, sizes, &n) || (uint64_t)n > SIZE_MAX / isz / 2) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return NULL;
    }
    memset(&t, 0, sizeof t);
    t.storage = tn_storage_new((size_t)n * isz, dev);
    if (!t.storage) {
        PyErr_Format(PyExc_RuntimeError, "DefaultCPUAllocator: not enough memory: you tried to allocate %lld bytes.",
                     (long long)((size_t)n * isz));
        return NULL;
    }
    t.ndim = ndim;
    t.dtype = dtype;
    if (ndim) memcpy(t.sizes, sizes, (size_t)ndim * sizeof *sizes);
    tn_contiguous_strides(ndim, sizes, t.strides);
    return tn_tensor_wrap(&t);
}

int64_t tn_nested_live;

tn_nested *tn_nested_alloc(int64_t n, int dim) {
    size_t per = (size_t)(2 * dim + 1);
    tn_nested *nt = malloc(sizeof *nt + (size_t)(n > 0 ? n : 1) * per * sizeof(int64_t));
    if (!nt) return NULL;
    nt->n = n;
    nt->dim = dim;
    nt->sizes = (int64_t *)(nt + 1);
    nt->strides = nt->sizes + n * dim;
    nt->offsets = nt->strides + n * dim;
    return nt;
}

tn_nested *tn_nested_copy(const tn_nested *m) {
    tn_nested *c = tn_nested_alloc(m->n, m->dim);
    if (c) memcpy(c->sizes, m->sizes, (size_t)(m->n * (2 * m->dim + 1)) * sizeof(int64_t));
    return c;
}

int tn_nested_set(PyObject *dst, const tn_nested *src) {
    tn_tensor_obj *o = (tn_tensor_obj *)dst;
    tn_nested *c = NULL;
    if (src) {
        if (!(c = tn_nested_copy(src))) { PyErr_NoMemory(); return -1; }
        tn_nested_live++;
    }
    if (o->nested) {
        free(o->nested);
        tn_nested_live--;
    }
    o->nested = c;
    return 0;
}

int64_t tn_sparse_live;

int tn_sparse_set(PyObject *dst, const tn_sparse *src) {
    tn_tensor_obj *o = (tn_tensor_obj *)dst;
    tn_sparse *c = NULL;
    if (src) {
        if (!(c = malloc(sizeof *c))) { PyErr_NoMemory(); return -1; }
        *c = *src;
        Py_XINCREF(c->indices);
        Py_XINCREF(c->values);
        Py_XINCREF(c->plain);
        tn_sparse_live++;
    }
    tn_sparse *old = o->sparse;
    o->sparse = c;
    if (old) {
        tn_sparse_live--;
        Py_XDECREF(old->indices);
        Py_XDECREF(old->values);
        Py_XDECREF(old->plain);
        free(old);
    }
    return 0;
}

int tn_tensor_copy_sparse(PyObject *dst, PyObject *src) {
    tn_tensor_obj *d = (tn_tensor_obj *)dst, *s = (tn_tensor_obj *)src;
    if (!d->sparse && !s->sparse) return 0;
    if (tn_sparse_set(dst, s->sparse) < 0) return -1;
    PyObject *old = d->layout;
    d->layout = s->layout;
    Py_XINCREF(d->layout);
    Py_XDECREF(old);
    return 0;
}

int64_t tn_quant_live;

int tn_quant_set(PyObject *dst, const tn_qparams *src) {
    tn_tensor_obj *o = (tn_tensor_obj *)dst;
    tn_qparams *c = NULL;
    if (src) {
        if (!(c = malloc(sizeof *c))) { PyErr_NoMemory(); return -1; }
        *c = *src;
        Py_XINCREF(c->scales);
        Py_XINCREF(c->zero_points);
        tn_quant_live++;
    }
    if (o->quant) {
        Py_XDECREF(o->quant->scales);
        Py_XDECREF(o->quant->zero_points);
        free(o->quant);
        tn_quant_live--;
    }
    o->quant = c;
    return 0;
}

bool tn_nested_is_contiguous(const tn_nested *nt) {
    int64_t next = 0;
    for (int64_t i = 0; i < nt->n; i++) {
        const int64_t *sz = nt->sizes + i * nt->dim, *st = nt->strides + i * nt->dim;
        int64_t numel = 1;   /* the stride a packed dim has */
        for (int d = nt->dim - 1; d >= 0; d--) {
            if (sz[d] != 1 && st[d] != numel) return false;
            numel *= sz[d];
        }
        if (numel == 0) continue;
        if (nt->offsets[i] != next) return false;
        next += numel;
    }
    return true;
}

PyObject *tn_tensor_new_view(PyObject *base, int ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t offset) {
    tn_tensor t = *tn_tensor_of(base);
    /* Every view lies inside its storage: the one check that keeps a wrong geometry computed by
     * any op from becoming an out-of-bounds read in a kernel. */
    if (ndim < 0 || ndim > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: tensors of more than %d dimensions are not supported", TN_MAX_DIMS);
        return NULL;
    }
    if (!tn_view_in_bounds(ndim, sizes, strides, offset, tn_dtype_itemsize(t.dtype), t.storage->nbytes)) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: view geometry out of bounds for a storage of %zu bytes",
                     t.storage->nbytes);
        return NULL;
    }
    t.ndim = ndim;
    if (ndim) memcpy(t.sizes, sizes, (size_t)ndim * sizeof *sizes);
    if (ndim) memcpy(t.strides, strides, (size_t)ndim * sizeof *strides);
    t.offset = offset;
    tn_storage_incref(t.storage);
    PyObject *v = tn_tensor_wrap(&t);
    if (v && !tn_tls_untracked_views) {
        PyObject *root = ((tn_tensor_obj *)base)->base ? ((tn_tensor_obj *)base)->base : base;
        ((tn_tensor_obj *)v)->base = Py_NewRef(root);
        ((tn_tensor_obj *)v)->view_version = t.storage->version;   /* autograd/views.c: written since? */
    }
    return v;
}

int tn_check_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                       tn_dtype dtype, size_t nbytes) {
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0) return 0;
        if (strides[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "as_strided: Negative strides are not supported at the moment, got strides: [...]");
            return -1;
        }
    }
    uint64_t need = 0;
    if (offset >= 0 && !tn_extent_bytes(ndim, sizes, strides, offset, tn_dtype_itemsize(dtype), &need)) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return -1;
    }
    if (offset < 0 || need > nbytes) {
        PyErr_Format(PyExc_RuntimeError,
                     "setStorage: sizes and strides are out of bounds for a storage of %zu bytes (would need %llu)",
                     nbytes, (unsigned long long)need);
        return -1;
    }
    return 0;
}

PyObject *tn_storage_to_python(tn_storage *s) {
    if (s->pyobj) return Py_NewRef((PyObject *)s->pyobj);
    PyObject *cls = PyObject_GetAttrString(PyImport_AddModule("torch"), "UntypedStorage");
    PyTypeObject *tp = (cls && PyType_Check(cls)) ? (PyTypeObject *)cls : tn_py.storage_type;
    PyErr_Clear();
    tn_storage_obj *o = (tn_storage_obj *)tn_obj_alloc(tp);
    Py_XDECREF(cls);
    if (!o) return NULL;
    tn_storage_incref(s);
    o->s = s;
    s->pyobj = o;
    return (PyObject *)o;
}

/* A 0-dim tensor holding a Python number: bool -> bool, int -> int64 (uint64 in [2**63, 2**64)),
 * float -> float64, complex -> complex128 (upstream's scalar_to_tensor); `wrapped` marks it a wrapped number for
 * type promotion, where it only decides the category. */
PyObject *tn_tensor_from_number(PyObject *num, bool wrapped) {
    tn_dtype dt;
    union { int64_t i; double f; double c[2]; uint8_t b; } v;
    if (PyBool_Check(num)) { dt = TN_DTYPE_BOOL; v.b = num == Py_True; }
    else if (PyLong_Check(num)) {
        int overflow;
        v.i = PyLong_AsLongLongAndOverflow(num, &overflow);
        dt = TN_DTYPE_I64;
        if (overflow > 0) {   /* [2**63, 2**64): upstream's unsigned Scalar becomes a uint64 tensor */
            uint64_t u = PyLong_AsUnsignedLongLong(num);
            if (u == (uint64_t)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                overflow = 1;
            } else {
                memcpy(&v.i, &u, sizeof u);
                dt = TN_DTYPE_U64;
                overflow = 0;
            }
        }
        if (overflow) { PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long"); return NULL; }
    } else if (PyFloat_Check(num)) { dt = TN_DTYPE_F64; v.f = PyFloat_AsDouble(num); }
    else if (PyComplex_Check(num)) {
        dt = TN_DTYPE_C128;
        v.c[0] = PyComplex_RealAsDouble(num);
        v.c[1] = PyComplex_ImagAsDouble(num);
    } else {
        PyErr_SetString(PyExc_TypeError, "expected a Python number");
        return NULL;
    }
    PyObject *t = tn_tensor_new_empty(0, NULL, dt, TN_DEVICE_CPU);
    if (!t) return NULL;
    memcpy(tn_data(tn_tensor_of(t)), &v, (size_t)tn_dtype_itemsize(dt));
    ((tn_tensor_obj *)t)->wrapped_number = wrapped;
    return t;
}
