/* dlpack.c — DLPack exchange (torch.utils.dlpack, Tensor.__dlpack__, torch.from_dlpack):
 * torch._C._to_dlpack / _to_dlpack_versioned wrap a CPU tensor's memory in a DLPack capsule
 * ("dltensor", or "dltensor_versioned" for DLPack >= 1.0 consumers such as NumPy 2), keeping the
 * tensor alive until the consumer calls the deleter; _from_dlpack takes a capsule from any
 * producer and returns a tensor sharing its memory, renaming the capsule "used_..." as the
 * protocol asks (a capsule is consumed once). The structs follow the DLPack specification
 * (dmlc/dlpack, version 1.x); upstream's Python does the rest (requires_grad, conj, streams). */
#include <stdlib.h>
#include <string.h>

#include "python/common.h"
#include "python/tensor.h"
#include "core/object.h"

/* ---- the DLPack structs (specification layout) */
typedef struct { int32_t device_type, device_id; } dl_device;
typedef struct { uint8_t code, bits; uint16_t lanes; } dl_dtype;
typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_dtype dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} dl_tensor;
typedef struct dl_managed {
    dl_tensor t;
    void *ctx;
    void (*deleter)(struct dl_managed *);
} dl_managed;
typedef struct dl_managed_v {
    struct { uint32_t major, minor; } version;
    void *ctx;
    void (*deleter)(struct dl_managed_v *);
    uint64_t flags;
    dl_tensor t;
} dl_managed_v;

enum { DL_CPU = 1, DL_CUDA_HOST = 3 };
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_BFLOAT = 4, DL_COMPLEX = 5, DL_BOOL = 6, DL_F8_E4M3FN = 10,
       DL_F8_E4M3FNUZ = 11, DL_F8_E5M2 = 12, DL_F8_E5M2FNUZ = 13, DL_F8_E8M0FNU = 14 };
#define DL_FLAG_IS_COPIED (1u << 1)
#define DL_VERSION_MAJOR 1
#define DL_VERSION_MINOR 3

static const struct { tn_dtype dt; uint8_t code; } dl_codes[] = {
    {TN_DTYPE_BOOL, DL_BOOL}, {TN_DTYPE_U8, DL_UINT}, {TN_DTYPE_U16, DL_UINT}, {TN_DTYPE_U32, DL_UINT},
    {TN_DTYPE_U64, DL_UINT}, {TN_DTYPE_I8, DL_INT}, {TN_DTYPE_I16, DL_INT}, {TN_DTYPE_I32, DL_INT},
    {TN_DTYPE_I64, DL_INT}, {TN_DTYPE_F16, DL_FLOAT}, {TN_DTYPE_F32, DL_FLOAT}, {TN_DTYPE_F64, DL_FLOAT},
    {TN_DTYPE_BF16, DL_BFLOAT}, {TN_DTYPE_C32, DL_COMPLEX}, {TN_DTYPE_C64, DL_COMPLEX}, {TN_DTYPE_C128, DL_COMPLEX},
    {TN_DTYPE_F8E4M3FN, DL_F8_E4M3FN}, {TN_DTYPE_F8E4M3FNUZ, DL_F8_E4M3FNUZ}, {TN_DTYPE_F8E5M2, DL_F8_E5M2},
    {TN_DTYPE_F8E5M2FNUZ, DL_F8_E5M2FNUZ}, {TN_DTYPE_F8E8M0FNU, DL_F8_E8M0FNU},
};

/* ---- export: the producer's context holds the tensor (and the shape / stride arrays) */
typedef struct {
    PyObject *tensor;
    int64_t dims[2 * TN_MAX_DIMS];
} export_ctx;

static void release_ctx(export_ctx *c) {
    PyGILState_STATE g = PyGILState_Ensure();   /* a consumer may free from any thread */
    Py_XDECREF(c->tensor);
    PyGILState_Release(g);
    free(c);
}
static void del_managed(dl_managed *m) { release_ctx(m->ctx); free(m); }
static void del_managed_v(dl_managed_v *m) { release_ctx(m->ctx); free(m); }

/* an unconsumed capsule frees its tensor when it dies */
static void capsule_dtor(PyObject *cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
        dl_managed *m = PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter) m->deleter(m);
    } else if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        dl_managed_v *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m && m->deleter) m->deleter(m);
    }
    PyErr_Clear();
}

static int fill(dl_tensor *d, export_ctx *c) {
    const tn_tensor *t = tn_tensor_of(c->tensor);
    size_t i = 0;
    while (i < sizeof dl_codes / sizeof *dl_codes && dl_codes[i].dt != t->dtype) i++;
    if (i == sizeof dl_codes / sizeof *dl_codes) {
        PyErr_Format(PyExc_BufferError, "%s is not supported by dlpack", tn_dtype_cpp_name(t->dtype));
        return -1;
    }
    d->data = tn_data(t);
    d->device = (dl_device){DL_CPU, 0};
    d->ndim = t->ndim;
    d->dtype = (dl_dtype){dl_codes[i].code, (uint8_t)(8 * tn_dtype_itemsize(t->dtype)), 1};
    for (int k = 0; k < t->ndim; k++) {
        c->dims[k] = t->sizes[k];
        c->dims[TN_MAX_DIMS + k] = t->strides[k];
    }
    d->shape = c->dims;
    d->strides = c->dims + TN_MAX_DIMS;
    d->byte_offset = 0;
    return 0;
}

static PyObject *to_dlpack(PyObject *args, PyObject *kw, bool versioned) {
    static char *kws[] = {"data", "dl_device", "copy", NULL};
    PyObject *t, *dev = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, versioned ? "O|OO:_to_dlpack_versioned" : "O|OO:_to_dlpack", kws, &t,
                                     &dev, &copy))
        return NULL;
    if (!tn_py_is_tensor(t)) {
        PyErr_Format(PyExc_TypeError, "data must be a Tensor, not %s", tn_py_type_name(t));
        return NULL;
    }
    if (tn_tensor_of(t)->storage->device == TN_DEVICE_META) {
        PyErr_SetString(PyExc_BufferError, "Cannot pack tensors on meta");
        return NULL;
    }
    if (dev != Py_None) {   /* (device_type, index): only the CPU exists here */
        long type = -1, idx = -1;
        if (!PyArg_ParseTuple(dev, "ll", &type, &idx)) return NULL;
        if (type != DL_CPU) {
            PyErr_Format(PyExc_RuntimeError, "torchnative: dl_device (%ld, %ld) is not available (the CPU is the only "
                         "device)", type, idx);
            return NULL;
        }
    }
    int cp = copy == Py_None ? 0 : PyObject_IsTrue(copy);
    if (cp < 0) return NULL;
    export_ctx *c = calloc(1, sizeof *c);
    if (!c) return PyErr_NoMemory();
    c->tensor = cp ? PyObject_CallMethod(t, "clone", NULL) : Py_NewRef(t);
    void *m = c->tensor ? calloc(1, versioned ? sizeof(dl_managed_v) : sizeof(dl_managed)) : NULL;
    if (!m) {
        if (c->tensor) PyErr_NoMemory();
        Py_XDECREF(c->tensor);
        free(c);
        return NULL;
    }
    int rc;
    if (versioned) {
        dl_managed_v *v = m;
        v->version.major = DL_VERSION_MAJOR;
        v->version.minor = DL_VERSION_MINOR;
        v->ctx = c;
        v->deleter = del_managed_v;
        v->flags = cp ? DL_FLAG_IS_COPIED : 0;
        rc = fill(&v->t, c);
    } else {
        dl_managed *u = m;
        u->ctx = c;
        u->deleter = del_managed;
        rc = fill(&u->t, c);
    }
    PyObject *cap = rc < 0 ? NULL : PyCapsule_New(m, versioned ? "dltensor_versioned" : "dltensor", capsule_dtor);
    if (!cap) {
        Py_DECREF(c->tensor);
        free(c);
        free(m);
    }
    return cap;
}
static PyObject *f_to_dlpack(PyObject *s, PyObject *a, PyObject *kw) { return to_dlpack(a, kw, false); }
static PyObject *f_to_dlpack_versioned(PyObject *s, PyObject *a, PyObject *kw) { return to_dlpack(a, kw, true); }

/* ---- import: the storage's release calls the producer's deleter */
typedef struct { void *managed; bool versioned; } import_ctx;
static void release_import(void *p, char *data, size_t n) {
    import_ctx *c = p;
    if (c->versioned) {
        dl_managed_v *m = c->managed;
        if (m->deleter) m->deleter(m);
    } else {
        dl_managed *m = c->managed;
        if (m->deleter) m->deleter(m);
    }
    free(c);
}

static PyObject *bad_capsule(void) {
    PyErr_SetString(PyExc_RuntimeError, "from_dlpack received an invalid capsule. Note that DLTensor capsules can be "
                                        "consumed only once, so you might have already constructed a tensor from it once.");
    return NULL;
}

static PyObject *f_from_dlpack(PyObject *s, PyObject *cap) {
    bool versioned = PyCapsule_IsValid(cap, "dltensor_versioned");
    if (!versioned && !PyCapsule_IsValid(cap, "dltensor")) return bad_capsule();
    void *m = PyCapsule_GetPointer(cap, versioned ? "dltensor_versioned" : "dltensor");
    if (!m) return NULL;
    if (versioned && ((dl_managed_v *)m)->version.major > DL_VERSION_MAJOR) {
        PyErr_Format(PyExc_BufferError, "from_dlpack: the DLPack version %u.%u of the capsule is newer than the supported "
                     "%d.%d", ((dl_managed_v *)m)->version.major, ((dl_managed_v *)m)->version.minor, DL_VERSION_MAJOR,
                     DL_VERSION_MINOR);
        return NULL;
    }
    const dl_tensor *d = versioned ? &((dl_managed_v *)m)->t : &((dl_managed *)m)->t;
    if (d->device.device_type != DL_CPU && d->device.device_type != DL_CUDA_HOST) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: DLPack device type %d is not available (the CPU is the only device)",
                     (int)d->device.device_type);
        return NULL;
    }
    if (d->ndim < 0 || d->ndim > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "from_dlpack: %d dimensions are not supported", (int)d->ndim);
        return NULL;
    }
    tn_dtype dt = TN_DTYPE_UNDEFINED;
    for (size_t i = 0; i < sizeof dl_codes / sizeof *dl_codes; i++)
        if (dl_codes[i].code == d->dtype.code && 8 * tn_dtype_itemsize(dl_codes[i].dt) == d->dtype.bits)
            dt = dl_codes[i].dt;
    if (dt == TN_DTYPE_UNDEFINED || d->dtype.lanes != 1) {
        PyErr_Format(PyExc_RuntimeError, "from_dlpack: unsupported DLPack dtype (code %d, %d bits, %d lanes)",
                     (int)d->dtype.code, (int)d->dtype.bits, (int)d->dtype.lanes);
        return NULL;
    }
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = d->ndim;
    t.dtype = dt;
    /* the extent the elements span (strides may be negative), in elements */
    int64_t lo = 0, hi = 0, numel = 1;
    for (int k = 0; k < d->ndim; k++) {
        t.sizes[k] = d->shape[k];
        numel *= d->shape[k];
    }
    int64_t acc = 1;
    for (int k = d->ndim - 1; k >= 0; k--) {   /* no strides: compact row-major */
        t.strides[k] = d->strides ? d->strides[k] : acc;
        acc *= d->shape[k];
    }
    for (int k = 0; numel > 0 && k < d->ndim; k++) {
        int64_t span = (t.sizes[k] - 1) * t.strides[k];
        if (span < 0) lo += span; else hi += span;
    }
    int isz = tn_dtype_itemsize(dt);
    char *base = (char *)d->data + d->byte_offset + lo * isz;
    t.offset = -lo;
    import_ctx *c = malloc(sizeof *c);
    if (!c) return PyErr_NoMemory();
    c->managed = m;
    c->versioned = versioned;
    /* consumed: from here the tensor's storage, not the capsule, owns the managed tensor */
    if (PyCapsule_SetName(cap, versioned ? "used_dltensor_versioned" : "used_dltensor") < 0) {
        free(c);
        return NULL;
    }
    size_t nbytes = numel > 0 ? (size_t)(hi - lo + 1) * (size_t)isz : 0;
    t.storage = tn_storage_wrap(base, nbytes, release_import, c);
    if (!t.storage) {
        release_import(c, base, nbytes);
        return PyErr_NoMemory();
    }
    t.storage->resizable = false;
    return tn_tensor_wrap(&t);
}

/* _torchDeviceToDLDevice(device) -> (device_type, index) */
static PyObject *f_device_to_dl(PyObject *s, PyObject *dev) {
    PyObject *type = PyObject_GetAttrString(dev, "type");
    if (!type) return NULL;
    int cpu = PyUnicode_Check(type) && PyUnicode_CompareWithASCIIString(type, "cpu") == 0;
    Py_DECREF(type);
    if (!cpu) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: only the CPU device has a DLPack device here");
        return NULL;
    }
    return Py_BuildValue("(ii)", DL_CPU, 0);
}

static PyMethodDef dlpack_methods[] = {
    {"_to_dlpack", (PyCFunction)(void (*)(void))f_to_dlpack, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_to_dlpack_versioned", (PyCFunction)(void (*)(void))f_to_dlpack_versioned, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_from_dlpack", f_from_dlpack, METH_O, NULL},
    {"_torchDeviceToDLDevice", f_device_to_dl, METH_O, NULL},
    {NULL},
};

int tn_dlpack_init(PyObject *m) { return PyModule_AddFunctions(m, dlpack_methods); }
