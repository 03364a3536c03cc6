/* ops/storage_ops.c — set_: point a tensor at another storage (or tensor's storage) with new
 * geometry. torch.load's _rebuild_tensor_v2 builds every tensor this way:
 * torch.empty((0,)).set_(storage, offset, size, stride). A TypedStorage argument is accepted
 * through its untyped storage, as upstream's binding does. */
#include "ops/common.h"

/* The tn_storage behind a Storage argument (UntypedStorage or TypedStorage), or NULL + TypeError. */
static tn_storage *storage_of(PyObject *o) {
    PyObject *u = NULL;
    if (!PyObject_TypeCheck(o, tn_py.storage_type)) {
        u = PyObject_GetAttrString(o, "_untyped_storage");
        if (!u || !PyObject_TypeCheck(u, tn_py.storage_type)) {
            Py_XDECREF(u);
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "set_(): expected a Storage as source");
            return NULL;
        }
        o = u;
    }
    tn_storage *s = ((tn_storage_obj *)o)->s;
    Py_XDECREF(u);
    return s;
}

static const char *device_name(tn_device_type d) { return d == TN_DEVICE_META ? "meta" : "cpu"; }

/* upstream's bounds check of set_ when the geometry keeps self's sizes (and strides, when given):
 * then nothing resizes the storage, so the new view must fit in it. 0, or -1 with its error. */
static int set_fits_unchanged(const tn_tensor *t, const tn_storage *s, int64_t offset, int nd, const int64_t *sizes,
                              const int64_t *strides, bool given_strides) {
    if (nd != t->ndim || memcmp(sizes, t->sizes, (size_t)nd * sizeof *sizes) ||
        (given_strides && memcmp(strides, t->strides, (size_t)nd * sizeof *strides)))
        return 0;
    int64_t isz = tn_dtype_itemsize(t->dtype), span = 1, bytes, need;
    for (int i = 0; i < nd; i++) {
        if (sizes[i] == 0) return 0; /* a tensor without elements fits any storage */
        if (strides[i] < 0) return 0;
        int64_t reach;
        if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) || __builtin_add_overflow(span, reach, &span))
            return 0;
    }
    if (__builtin_mul_overflow(span, isz, &bytes) || __builtin_mul_overflow(offset, isz, &need) ||
        __builtin_add_overflow(need, bytes, &need) || (uint64_t)need <= s->nbytes)
        return 0;
    char sz[512], st[512];
    tn_shape_str(sz, sizeof sz, nd, sizes);
    tn_shape_str(st, sizeof st, given_strides ? nd : 0, strides);
    PyErr_Format(PyExc_RuntimeError,
                 "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %d requiring a storage size of "
                 "%lld are out of bounds for storage of size %llu",
                 sz, st, (long long)offset, (int)isz, (long long)need, (unsigned long long)s->nbytes);
    return -1;
}

/* Make `self` view `s` with the given geometry (contiguous strides when none are given), checked
 * as upstream's set_: the devices must match, the offset be >= 0, and a geometry of self's own
 * sizes fit the storage as it is; another one resizes a resizable storage to hold it. */
static PyObject *set_geometry(PyObject *self, tn_storage *s, tn_device_type sdev, int64_t offset,
                              const tn_value *size, const tn_value *stride) {
    tn_tensor *t = tn_tensor_of(self);
    int nd = size ? size->u.ints.n : 1;
    int64_t sizes[TN_MAX_DIMS], strides[TN_MAX_DIMS];
    if (stride && stride->u.ints.n && stride->u.ints.n != nd) {
        PyErr_Format(PyExc_RuntimeError, "unequal size length (%d) and stride length (%d)", nd, stride->u.ints.n);
        return NULL;
    }
    tn_device_type tdev = tn_door_arg_device(self);   /* a meta self runs on a CPU stand-in */
    if (tdev != sdev) {
        PyErr_Format(PyExc_RuntimeError,
                     "Attempted to set the storage of a tensor on device \"%s\" to a storage on different device "
                     "\"%s\".  This is no longer allowed; the devices must match.",
                     device_name(tdev), device_name(sdev));
        return NULL;
    }
    if (nd > TN_MAX_DIMS) return tn_not_implemented("set_ with this many dimensions");
    if (size) {
        memcpy(sizes, size->u.ints.v, (size_t)nd * sizeof *sizes);
    } else {
        sizes[0] = (int64_t)(s->nbytes / (size_t)tn_dtype_itemsize(t->dtype));
    }
    for (int i = 0; i < nd; i++)
        if (sizes[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld", (long long)sizes[i]);
            return NULL;
        }
    bool given_strides = stride && stride->u.ints.n;
    if (given_strides)
        memcpy(strides, stride->u.ints.v, (size_t)nd * sizeof *strides);
    else
        tn_contiguous_strides(nd, sizes, strides);
    if (offset < 0) {
        PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld", (long long)offset);
        return NULL;
    }
    if (set_fits_unchanged(t, s, offset, nd, sizes, strides, given_strides) < 0) return NULL;
    /* a resizable storage grows to hold the new geometry, as upstream's set_ does */
    uint64_t need;
    if (!tn_extent_bytes(nd, sizes, strides, offset, tn_dtype_itemsize(t->dtype), &need)) {
        /* negative strides / sizes get tn_check_in_bounds' messages below */
        for (int i = 0; i < nd; i++)
            if (strides[i] < 0 || sizes[i] < 0) goto check;
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return NULL;
    }
    if (need > SIZE_MAX / 2) {
        PyErr_Format(PyExc_RuntimeError, "DefaultCPUAllocator: not enough memory: you tried to allocate %llu bytes.",
                     (unsigned long long)need);
        return NULL;
    }
    if (need > s->nbytes && s->aliases) return tn_not_implemented("growing a storage while a .data alias of it lives");
    if (need > s->nbytes && s->resizable && !s->release && tn_storage_resize(s, need) != TN_OK) return PyErr_NoMemory();
check:
    if (tn_check_in_bounds(nd, sizes, strides, offset, t->dtype, s->nbytes) < 0) return NULL;
    tn_storage_incref(s);
    tn_storage_decref(t->storage);
    t->storage = s;
    t->offset = offset;
    t->ndim = nd;
    memcpy(t->sizes, sizes, (size_t)nd * sizeof *sizes);
    memcpy(t->strides, strides, (size_t)nd * sizeof *strides);
    return Py_NewRef(self);
}

PyObject *tn_op_set__source_Storage(tn_value *a) {
    tn_storage *s = storage_of(a[1].u.obj);
    return s ? set_geometry(a[0].u.obj, s, s->device, 0, NULL, NULL) : NULL;
}

PyObject *tn_op_set__source_Storage_storage_offset(tn_value *a) {
    tn_storage *s = storage_of(a[1].u.obj);
    return s ? set_geometry(a[0].u.obj, s, s->device, a[2].u.i, &a[3], &a[4]) : NULL;
}

/* set_(source tensor, offset, size, stride): source's storage from source's own offset on, any
 * dtype (upstream's set_ takes source.storage(), untyped), source contiguous */
PyObject *tn_op_set__source_Tensor_storage_offset(tn_value *a) {
    tn_tensor *src = TN_T(a[1]);
    if (!tn_is_contiguous(src)) {
        PyErr_SetString(PyExc_RuntimeError, "passed in tensor to be used as storage must be contiguous");
        return NULL;
    }
    int64_t off;
    if (__builtin_add_overflow(a[2].u.i, src->offset, &off)) off = a[2].u.i;
    return set_geometry(a[0].u.obj, src->storage, tn_door_arg_device(a[1].u.obj), off, &a[3], &a[4]);
}

PyObject *tn_op_set__source_Tensor(tn_value *a) {
    tn_tensor *src = TN_T(a[1]);
    tn_value size = {.tag = TN_V_INTLIST}, stride = {.tag = TN_V_INTLIST};
    size.u.ints.v = src->sizes; size.u.ints.n = src->ndim;
    stride.u.ints.v = src->strides; stride.u.ints.n = src->ndim;
    return set_geometry(a[0].u.obj, src->storage, tn_door_arg_device(a[1].u.obj), src->offset, &size, &stride);
}

PyObject *tn_op_set_(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    tn_storage *s = tn_storage_new(0, t->storage->device);
    if (!s) return PyErr_NoMemory();
    tn_value size = {.tag = TN_V_INTLIST};
    int64_t zero = 0;
    size.u.ints.v = &zero; size.u.ints.n = 1;
    PyObject *r = set_geometry(a[0].u.obj, s, tn_door_arg_device(a[0].u.obj), 0, &size, NULL);
    tn_storage_decref(s);
    return r;
}
