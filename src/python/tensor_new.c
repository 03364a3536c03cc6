/* tensor_new.c — the tensor constructors and conversions upstream binds by hand (not yaml ops):
 * torch.tensor / as_tensor / asarray / from_numpy / frombuffer, and the TensorBase methods
 * tolist, numpy, new_tensor, to (its Python argument forms), __bool__/__int__/__float__/
 * __index__/__complex__/__len__; plus `requires_grad=` for the factory functions (upstream's
 * bindings accept it although the schemas lack it).
 *
 * torch.tensor follows upstream's recipe: infer the dtype over the nested data (bool < int64 <
 * default float < default complex, numpy scalars and 0-dim tensors by their own dtype), measure
 * the shape along the first elements, then store element by element with upstream's per-dtype
 * unpacking (checked integer conversion, unchecked float narrowing). numpy arrays are shared
 * through __array_interface__ (storage released by dropping the array reference); Tensor.numpy()
 * hands numpy an object exposing __array_interface__ that keeps the tensor alive.
 *
 * Everything here is reached through tn_tensor_new_init(m), called once the operator functions
 * exist; `to` and item-like conversions reach kernels through the door. */
#include <string.h>
#include <math.h>

#include "dispatch/door.h"
#include "dispatch/args.h"
#include "dispatch/modes.h"
#include "dispatch/graph.h"
#include "core/profiler.h"
#include "dispatch/subclass.h"
#include "python/common.h"
#include "python/tensor.h"
#include "autograd/autograd.h"
#include "python/torch_function.h"
#include "kernels/elementwise.h"
#include "ops/nested.h"

/* helpers from ops/create.c */
int tn_cr_check_scalar(const tn_value *v, tn_dtype dt);
void tn_cr_store(char *p, tn_dtype dt, const tn_value *v);
void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);
PyObject *tn_cr_number_to_python(const tn_value *v);
tn_dtype tn_cr_default_complex(void);
PyObject *tn_cr_empty_like(const tn_tensor *t, PyObject *mf, tn_dtype dt, tn_device_type dev);
tn_dtype tn_promote_types(tn_dtype a, tn_dtype b);
int tn_copy_into(PyObject *dst, PyObject *src);
PyObject *tn_call_method(int name, PyObject *self, PyObject *args, PyObject *kw);

/* ---------- numpy (looked up only when numpy is already imported, or on from_numpy) ---------- */

static PyObject *np_ndarray, *np_generic; /* borrowed forever once found */

static int numpy_types(bool import) {
    if (np_ndarray) return 1;
    PyObject *np = import ? PyImport_ImportModule("numpy") : NULL;
    if (!np) {
        if (import) return -1;
        PyObject *mods = PyImport_GetModuleDict();
        np = mods ? PyDict_GetItemString(mods, "numpy") : NULL;
        if (!np) return 0;
        Py_INCREF(np);
    }
    np_ndarray = PyObject_GetAttrString(np, "ndarray");
    np_generic = PyObject_GetAttrString(np, "generic");
    Py_DECREF(np);
    if (!np_ndarray || !np_generic) { Py_CLEAR(np_ndarray); Py_CLEAR(np_generic); return -1; }
    return 1;
}

static bool is_ndarray(PyObject *o) {
    if (PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyList_CheckExact(o) || PyTuple_CheckExact(o)) return false;
    if (numpy_types(false) <= 0) { PyErr_Clear(); return false; }
    return PyObject_IsInstance(o, np_ndarray) == 1;
}

static bool is_np_scalar(PyObject *o) {
    if (PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o) || PyList_CheckExact(o)) return false;
    if (numpy_types(false) <= 0) { PyErr_Clear(); return false; }
    return PyObject_IsInstance(o, np_generic) == 1;
}

/* numpy dtype object -> tn dtype; -1 with TypeError naming the numpy type. */
static int np_dtype(PyObject *npdt, tn_dtype *out, bool *swapped) {
    PyObject *kind = PyObject_GetAttrString(npdt, "kind"), *isz = PyObject_GetAttrString(npdt, "itemsize");
    PyObject *bo = PyObject_GetAttrString(npdt, "byteorder");
    int r = -1;
    if (kind && isz && bo) {
        const char *k = PyUnicode_AsUTF8AndSize(kind, NULL), *b = PyUnicode_AsUTF8AndSize(bo, NULL);
        long n = PyLong_AsLong(isz);
        tn_dtype d = TN_DTYPE_UNDEFINED;
        if (k && b) {
            if (k[0] == 'f') d = n == 2 ? TN_DTYPE_F16 : n == 4 ? TN_DTYPE_F32 : n == 8 ? TN_DTYPE_F64 : d;
            else if (k[0] == 'i') d = n == 1 ? TN_DTYPE_I8 : n == 2 ? TN_DTYPE_I16 : n == 4 ? TN_DTYPE_I32 : n == 8 ? TN_DTYPE_I64 : d;
            else if (k[0] == 'u') d = n == 1 ? TN_DTYPE_U8 : n == 2 ? TN_DTYPE_U16 : n == 4 ? TN_DTYPE_U32 : n == 8 ? TN_DTYPE_U64 : d;
            else if (k[0] == 'b') d = TN_DTYPE_BOOL;
            else if (k[0] == 'c') d = n == 8 ? TN_DTYPE_C64 : n == 16 ? TN_DTYPE_C128 : d;
            if (swapped) *swapped = b[0] == '>';
            if (d != TN_DTYPE_UNDEFINED) { *out = d; r = 0; }
            else {
                PyObject *tp = PyObject_GetAttrString(npdt, "type");
                PyObject *mod = tp ? PyObject_GetAttrString(tp, "__module__") : NULL;
                PyObject *nm = tp ? PyObject_GetAttrString(tp, "__name__") : NULL;
                if (mod && nm)
                    PyErr_Format(PyExc_TypeError, "can't convert np.ndarray of type %U.%U. The only supported types are: "
                                 "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
                                 "uint32, uint16, uint8, and bool.", mod, nm);
                Py_XDECREF(tp); Py_XDECREF(mod); Py_XDECREF(nm);
            }
        }
    }
    Py_XDECREF(kind); Py_XDECREF(isz); Py_XDECREF(bo);
    return r;
}

static void release_pyobj(void *ctx, char *data, size_t nbytes) {
    (void)data; (void)nbytes;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

static bool warned_np_readonly, warned_buf_readonly;

/* torch.from_numpy: a tensor sharing arr's memory. */
static PyObject *from_numpy_obj(PyObject *arr) {
    if (numpy_types(true) < 0) return NULL;
    if (PyObject_IsInstance(arr, np_ndarray) != 1) {
        PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)", tn_py_type_name(arr));
        return NULL;
    }
    PyObject *npdt = PyObject_GetAttrString(arr, "dtype");
    if (!npdt) return NULL;
    tn_dtype dt;
    bool swapped = false;
    int r = np_dtype(npdt, &dt, &swapped);
    Py_DECREF(npdt);
    if (r < 0) return NULL;
    if (swapped) {
        PyErr_SetString(PyExc_ValueError, "given numpy array has byte order different from the native byte order. "
                        "Conversion between byte orders is currently not supported.");
        return NULL;
    }
    PyObject *iface = PyObject_GetAttrString(arr, "__array_interface__");
    PyObject *shape = PyObject_GetAttrString(arr, "shape"), *strides = PyObject_GetAttrString(arr, "strides");
    PyObject *flags = PyObject_GetAttrString(arr, "flags");
    PyObject *wr = flags ? PyObject_GetAttrString(flags, "writeable") : NULL;
    PyObject *res = NULL;
    if (!iface || !shape || !strides || !wr) goto done;
    PyObject *data = PyDict_GetItemString(iface, "data"); /* (ptr, readonly) */
    if (!data || !PyTuple_Check(data)) { PyErr_SetString(PyExc_TypeError, "bad __array_interface__"); goto done; }
    char *ptr = PyLong_AsVoidPtr(PyTuple_GetItem(data, 0));
    if (PyErr_Occurred()) goto done;
    int nd = (int)PyTuple_Size(shape);
    if (nd > TN_MAX_DIMS) { tn_not_implemented("numpy arrays of more than " TN_MAX_DIMS_S " dimensions"); goto done; }
    tn_tensor t;
    memset(&t, 0, sizeof t);
    int isz = tn_dtype_itemsize(dt);
    int64_t extent = 1;
    bool empty = false;
    for (int i = 0; i < nd; i++) {
        t.sizes[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        int64_t sb = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
        if (PyErr_Occurred()) goto done;
        if (sb < 0) {
            PyErr_SetString(PyExc_ValueError, "At least one stride in the given numpy array is negative, and tensors with "
                            "negative strides are not currently supported. (You can probably work around this by making "
                            "a copy of your array  with array.copy().) ");
            goto done;
        }
        if (sb % isz) {
            PyErr_SetString(PyExc_ValueError, "given numpy array strides not a multiple of the element byte size. "
                            "Copy the numpy array to reallocate the memory.");
            goto done;
        }
        t.strides[i] = sb / isz;
        if (t.sizes[i] == 0) empty = true;
        else extent += (t.sizes[i] - 1) * t.strides[i];
    }
    if (empty) extent = 0;
    if (!PyObject_IsTrue(wr) && !warned_np_readonly) {
        warned_np_readonly = true;
        if (PyErr_WarnEx(PyExc_UserWarning,
                "The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means "
                "writing to this tensor will result in undefined behavior. You may want to copy the array to protect its "
                "data or make it writable before converting it to a tensor. This type of warning will be suppressed for "
                "the rest of this program.", 1) < 0)
            goto done;
    }
    t.storage = tn_storage_wrap(ptr, (size_t)extent * (size_t)isz, release_pyobj, Py_NewRef(arr));
    if (!t.storage) { Py_DECREF(arr); PyErr_NoMemory(); goto done; }
    t.storage->resizable = false;
    t.ndim = nd;
    t.dtype = dt;
    res = tn_tensor_wrap(&t);
done:
    Py_XDECREF(iface); Py_XDECREF(shape); Py_XDECREF(strides); Py_XDECREF(flags); Py_XDECREF(wr);
    return res;
}

/* ---------- dtype inference and shape ---------- */

static int infer_dtype(PyObject *o, tn_dtype *out) {
    if (tn_py_is_tensor(o)) { *out = tn_tensor_of(o)->dtype; return 0; }
    if (PyFloat_CheckExact(o)) { *out = tn_py.default_dtype; return 0; }
    if (PyBool_Check(o)) { *out = TN_DTYPE_BOOL; return 0; }
    if (PyLong_CheckExact(o)) { *out = TN_DTYPE_I64; return 0; }
    if (is_ndarray(o) || is_np_scalar(o)) {
        PyObject *npdt = PyObject_GetAttrString(o, "dtype");
        if (!npdt) return -1;
        int r = np_dtype(npdt, out, NULL);
        Py_DECREF(npdt);
        return r;
    }
    if (PyErr_Occurred()) return -1;
    if (PyLong_Check(o)) { *out = TN_DTYPE_I64; return 0; }
    if (PyFloat_Check(o)) { *out = tn_py.default_dtype; return 0; }
    if (PyComplex_Check(o)) { *out = tn_cr_default_complex(); return 0; }
    if (PyUnicode_Check(o) || PyBytes_Check(o)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", tn_py_type_name(o));
        return -1;
    }
    if (PySequence_Check(o)) {
        Py_ssize_t n = PySequence_Size(o);
        if (n < 0) return -1;
        if (n == 0) { *out = tn_py.default_dtype; return 0; }
        tn_dtype acc = TN_DTYPE_UNDEFINED;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PySequence_GetItem(o, i);
            if (!e) return -1;
            tn_dtype d;
            int r = infer_dtype(e, &d);
            Py_DECREF(e);
            if (r < 0) return -1;
            acc = acc == TN_DTYPE_UNDEFINED ? d : tn_promote_types(acc, d);
            if (acc == TN_DTYPE_C128) break;
        }
        *out = acc;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", tn_py_type_name(o));
    return -1;
}

static int compute_sizes(PyObject *o, int *nd, int64_t *sizes) {
    int k = 0;
    PyObject *cur = Py_NewRef(o);
    while (!tn_py_is_tensor(cur) && !PyUnicode_Check(cur) && PySequence_Check(cur)) {
        if (is_ndarray(cur)) {
            PyObject *shape = PyObject_GetAttrString(cur, "shape");
            if (!shape) { Py_DECREF(cur); return -1; }
            for (Py_ssize_t i = 0; i < PyTuple_Size(shape) && k < TN_MAX_DIMS; i++)
                sizes[k++] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
            Py_DECREF(shape);
            break;
        }
        Py_ssize_t n = PySequence_Size(cur);
        if (n < 0) { Py_DECREF(cur); return -1; }
        if (k == TN_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'", tn_py_type_name(cur));
            Py_DECREF(cur);
            return -1;
        }
        sizes[k++] = n;
        if (n == 0) break;
        PyObject *e = PySequence_GetItem(cur, 0);
        Py_DECREF(cur);
        if (!e) return -1;
        cur = e;
    }
    Py_DECREF(cur);
    *nd = k;
    return 0;
}

/* One leaf into dtype dt at p, unpacking like upstream's store_scalar. */
static int store_leaf(PyObject *o, tn_dtype dt, char *p) {
    tn_value v;
    memset(&v, 0, sizeof v);
    if (tn_py_is_tensor(o) && tn_numel(tn_tensor_of(o)) == 1 && tn_tensor_of(o)->storage->data) {
        tn_tensor *t = tn_tensor_of(o);
        tn_cr_load(tn_data(t), t->dtype, &v);
        if (tn_dtype_is_integral(dt, false) && (v.tag == TN_V_FLOAT || v.tag == TN_V_COMPLEX)) {
            PyErr_SetString(PyExc_TypeError, "only integer tensors of a single element can be converted to an index");
            return -1;
        }
        if (!tn_dtype_is_complex(dt) && dt != TN_DTYPE_BOOL && v.tag == TN_V_COMPLEX && v.u.c.im != 0) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type double without overflow");
            return -1;
        }
    } else if (dt == TN_DTYPE_BOOL) {
        if (PyBool_Check(o)) { v.tag = TN_V_BOOL; v.u.i = o == Py_True; }
        else if (PyFloat_Check(o)) { v.tag = TN_V_FLOAT; v.u.f = PyFloat_AsDouble(o); }
        else if (PyComplex_Check(o)) { v.tag = TN_V_COMPLEX; v.u.c.re = PyComplex_RealAsDouble(o); v.u.c.im = PyComplex_ImagAsDouble(o); }
        else {
            int t = PyObject_IsTrue(o);
            if (t < 0) return -1;
            v.tag = TN_V_BOOL; v.u.i = t;
        }
    } else if (dt == TN_DTYPE_U64) { /* upstream unpacks as unsigned long long: its errors */
        unsigned long long x = PyLong_AsUnsignedLongLong(o);
        if (x == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        v.tag = TN_V_INT;
        v.u.i = (int64_t)x; /* the cast int64 -> uint64 keeps the bits */
    } else if (tn_dtype_is_integral(dt, false)) {
        if (PyFloat_Check(o)) { v.tag = TN_V_FLOAT; v.u.f = PyFloat_AsDouble(o); }
        else {
            int overflow = 0;
            long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (x == -1 && PyErr_Occurred()) return -1;
            if (overflow) { PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long"); return -1; }
            v.tag = TN_V_INT; v.u.i = x;
        }
        if (dt != TN_DTYPE_I64 || v.tag == TN_V_FLOAT) {
            tn_dtype chk = dt;
            if (tn_cr_check_scalar(&v, chk) < 0) {
                PyErr_Clear();
                PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow", tn_dtype_infos[dt].name);
                return -1;
            }
        }
    } else if (tn_dtype_is_complex(dt)) {
        v.tag = TN_V_COMPLEX;
        if (PyComplex_Check(o)) { v.u.c.re = PyComplex_RealAsDouble(o); v.u.c.im = PyComplex_ImagAsDouble(o); }
        else if (!PyFloat_Check(o) && !PyLong_Check(o) && PyObject_HasAttrString(o, "__complex__")) {
            PyObject *c = PyObject_CallMethod(o, "__complex__", NULL);
            if (!c) return -1;
            v.u.c.re = PyComplex_RealAsDouble(c); v.u.c.im = PyComplex_ImagAsDouble(c);
            Py_DECREF(c);
        } else {
            v.u.c.re = PyFloat_AsDouble(o);
            if (v.u.c.re == -1 && PyErr_Occurred()) return -1;
        }
    } else {
        v.tag = TN_V_FLOAT;
        v.u.f = PyFloat_AsDouble(o);
        if (v.u.f == -1 && PyErr_Occurred()) return -1;
    }
    if (PyErr_Occurred()) return -1;
    tn_cr_store(p, dt, &v);
    return 0;
}

static int store_rec(PyObject *o, int dim, int nd, const int64_t *sizes, tn_dtype dt, char **p) {
    if (dim == nd) {
        if (store_leaf(o, dt, *p) < 0) return -1;
        *p += tn_dtype_itemsize(dt);
        return 0;
    }
    PyObject *seq = PySequence_Fast(o, "not a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Size(seq);
    if (n != sizes[dim]) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d (got %zd)", (long long)sizes[dim], dim, n);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PySequence_GetItem(seq, i);
        int r = e ? store_rec(e, dim + 1, nd, sizes, dt, p) : -1;
        Py_XDECREF(e);
        if (r < 0) { Py_DECREF(seq); return -1; }
    }
    Py_DECREF(seq);
    return 0;
}

/* Cast/copy `t` to dtype/device, aliasing when nothing changes and !copy. */
static PyObject *tensor_to(PyObject *t, tn_dtype dt, tn_device_type dev, bool copy) {
    tn_tensor *x = tn_tensor_of(t);
    if (!copy && x->dtype == dt && x->storage->device == dev) return Py_NewRef(t);
    if (x->math_bits) {   /* a copy holds the values the tensor reads as (conj / neg bits applied) */
        PyObject *r = tn_resolve_bits(t);
        PyObject *c = r ? tensor_to(r, dt, dev, false) : NULL;
        Py_XDECREF(r);
        return c;
    }
    if (x->storage->device == TN_DEVICE_META && dev != TN_DEVICE_META) {
        PyErr_SetString(PyExc_NotImplementedError, "Cannot copy out of meta tensor; no data!");
        return NULL;
    }
    /* a plain CPU tensor into a quantized dtype: empty_like's refusal (ops/create.c), as upstream's */
    if (tn_dtype_infos[dt].kind == TN_KIND_QUANT && tn_dtype_infos[x->dtype].kind != TN_KIND_QUANT) {
        PyObject *e = tn_cr_empty_like(x, NULL, dt, dev);
        if (!e) return NULL;
        Py_DECREF(e);
    }
    if (!tn_cast_loop(dt, x->dtype)) {
        if (dt == x->dtype) { /* storable only: a byte copy of a dense layout */
            PyObject *r = tn_cr_empty_like(x, NULL, dt, dev);
            if (r && tn_is_contiguous(x) && tn_is_contiguous(tn_tensor_of(r)) && dev != TN_DEVICE_META && tn_data(x))
                memcpy(tn_data(tn_tensor_of(r)), tn_data(x), (size_t)tn_numel(x) * (size_t)tn_dtype_itemsize(dt));
            else if (r && dev != TN_DEVICE_META && tn_numel(x)) { Py_DECREF(r); return tn_not_implemented("copying this dtype"); }
            return r;
        }
        return tn_not_implemented("conversion to or from this dtype");
    }
    PyObject *r = tn_cr_empty_like(x, NULL, dt, dev);
    if (!r) return NULL;
    if (tn_copy_into(r, t) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

/* A tensor made from Python data or a NumPy array is handed to lift_fresh, as upstream's
 * constructors do; only a dispatch mode can see it (FakeTensorMode makes its fakes there), so
 * without one it is skipped. Steals r. */
static PyObject *lift_fresh(PyObject *r) {
    if (!r || tn_dispatch_mode_len() == 0 || tn_dispatch_modes_disabled()) return r;
    PyObject *l = tn_at_lift_fresh(r);
    Py_DECREF(r);
    return l;
}

/* upstream's internal_new_from_data. dt UNDEFINED: infer. */
static PyObject *new_from_data(PyObject *data, tn_dtype dt, tn_device_type dev, bool copy_tensors, bool copy_numpy,
                               const char *warn_name) {
    if (tn_py_is_tensor(data)) {
        if (warn_name) {
            char msg[400];
            snprintf(msg, sizeof msg, "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                     "or sourceTensor.detach().clone().requires_grad_(True), rather than %s.", warn_name);
            if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) return NULL;
        }
        tn_tensor *t = tn_tensor_of(data);
        /* a strided nested tensor has no dense geometry to copy: detach + _to_copy (ops/nested.c) */
        bool nested = ((tn_tensor_obj *)data)->nested != NULL;
        if (nested && !copy_tensors && (dt == TN_DTYPE_UNDEFINED || dt == t->dtype) && dev == t->storage->device)
            return Py_NewRef(data);
        if ((copy_tensors && tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) || nested) {
            /* a mode sees upstream's steps: detach, then _to_copy */
            PyObject *d = tn_at_detach(data);
            PyObject *r = d ? tn_at__to_copy(d, TN_DT(dt == TN_DTYPE_UNDEFINED ? t->dtype : dt), NULL,
                                             dev == TN_DEVICE_META ? tn_py.device_meta : tn_py.device_cpu, NULL, false,
                                             NULL) : NULL;
            Py_XDECREF(d);
            return r;
        }
        PyObject *r = tensor_to(data, dt == TN_DTYPE_UNDEFINED ? t->dtype : dt, dev, copy_tensors);
        if (r && r != data && copy_tensors) ((tn_tensor_obj *)r)->requires_grad = false;
        return r;
    }
    if (is_ndarray(data)) {
        PyObject *t = from_numpy_obj(data);
        if (!t) return NULL;
        PyObject *r = tensor_to(t, dt == TN_DTYPE_UNDEFINED ? tn_tensor_of(t)->dtype : dt, dev, copy_numpy);
        Py_DECREF(t);
        return lift_fresh(r);
    }
    if (PyErr_Occurred()) return NULL;
    tn_dtype inferred = dt;
    if (inferred == TN_DTYPE_UNDEFINED && infer_dtype(data, &inferred) < 0) return NULL;
    if (dt != TN_DTYPE_UNDEFINED && PyUnicode_Check(data)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", tn_py_type_name(data));
        return NULL;
    }
    int nd;
    int64_t sizes[TN_MAX_DIMS];
    if (compute_sizes(data, &nd, sizes) < 0) return NULL;
    if (!tn_dtype_computable(inferred) && !tn_cast_loop(inferred, TN_DTYPE_I64))
        return tn_not_implemented("torch.tensor with this dtype");
    PyObject *r = tn_tensor_new_empty(nd, sizes, inferred, TN_DEVICE_CPU);
    if (!r) return NULL;
    if (tn_numel(tn_tensor_of(r)) > 0) {
        char *p = tn_data(tn_tensor_of(r));
        if (store_rec(data, 0, nd, sizes, inferred, &p) < 0) { Py_DECREF(r); return NULL; }
    }
    if (dev != TN_DEVICE_CPU) {
        PyObject *m = tn_tensor_new_empty(nd, sizes, inferred, dev);
        Py_DECREF(r);
        r = m;
    }
    return lift_fresh(r);
}

/* ---------- keyword parsing helpers ---------- */

/* torch.sparse_coo_tensor's conversion of its indices and values (upstream's internal_new_from_data
 * without copying a tensor of the right dtype): a tensor converted to dt (TN_DTYPE_UNDEFINED: kept),
 * anything else read as torch.tensor reads it */
PyObject *tn_py_sparse_operand(PyObject *data, tn_dtype dt) { return new_from_data(data, dt, TN_DEVICE_CPU, false, true, NULL); }

/* A numpy array used as an index (python/indexing.c): upstream's indexing_tensor_from_data, a bool or
 * uint8 array kept as its dtype (a mask), any other converted to int64. 0 when o is no ndarray. */
int tn_py_ndarray_index(PyObject *o, PyObject **out) {
    if (!is_ndarray(o)) return PyErr_Occurred() ? -1 : 0;
    tn_dtype d;
    if (infer_dtype(o, &d) < 0) return -1;
    *out = new_from_data(o, d == TN_DTYPE_BOOL || d == TN_DTYPE_U8 ? d : TN_DTYPE_I64, TN_DEVICE_CPU, false, true, NULL);
    return *out ? 1 : -1;
}

static int opt_dtype(PyObject *o, tn_dtype *out) {
    if (!o || o == Py_None) { *out = TN_DTYPE_UNDEFINED; return 0; }
    if (o == (PyObject *)&PyFloat_Type) { *out = TN_DTYPE_F64; return 0; }
    if (o == (PyObject *)&PyLong_Type) { *out = TN_DTYPE_I64; return 0; }
    if (o == (PyObject *)&PyBool_Type) { *out = TN_DTYPE_BOOL; return 0; }
    if (o == (PyObject *)&PyComplex_Type) { *out = TN_DTYPE_C128; return 0; }
    if (!tn_py_is_dtype(o)) {
        PyErr_Format(PyExc_TypeError, "argument 'dtype' must be torch.dtype, not %s", tn_py_type_name(o));
        return -1;
    }
    return tn_py_to_dtype(o, out);
}

/* torch.tensor / as_tensor / asarray / new_tensor and Tensor.to initialize a device upstream
 * initializes lazily (AssertionError "Torch not compiled with CUDA enabled", python/types.c) */
static int opt_device(PyObject *o, tn_device_type def, tn_device_type *out) {
    if (!o || o == Py_None) { *out = def; return 0; }
    int idx;
    return tn_py_parse_device(o, out, &idx) < 0 ? tn_py_device_lazy_init(o) : 0;
}

static int set_requires_grad(PyObject *t, PyObject *rg) {
    if (!rg) return 0;
    int v = PyObject_IsTrue(rg);
    if (v < 0) return -1;
    if (!v) return 0;
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!tn_dtype_is_floating(o->t.dtype) && !tn_dtype_is_complex(o->t.dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "Only Tensors of floating point and complex dtype can require gradients");
        return -1;
    }
    o->requires_grad = true;
    return 0;
}

static PyObject *finish(PyObject *r, PyObject *rg) {
    if (r && set_requires_grad(r, rg) < 0) Py_CLEAR(r);
    return r;
}

/* ---------- torch.tensor & friends ---------- */

static PyObject *f_tensor(PyObject *m, PyObject *args, PyObject *kw) {
    bool tf;
    PyObject *tfr = tn_torch_function_manual("tensor", args, kw, &tf);
    if (tf) return tfr;
    static char *kws[] = {"data", "dtype", "device", "requires_grad", "pin_memory", "names", NULL};
    PyObject *data, *dto = NULL, *dvo = NULL, *rg = NULL, *pin = NULL, *names = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOOO:tensor", kws, &data, &dto, &dvo, &rg, &pin, &names)) return NULL;
    tn_dtype dt;
    tn_device_type dev;
    if (opt_dtype(dto, &dt) < 0 || opt_device(dvo, TN_DEVICE_CPU, &dev) < 0) return NULL;
    if (pin && PyObject_IsTrue(pin) == 1) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is available on this system.");
        return NULL;
    }
    return finish(new_from_data(data, dt, dev, true, true, "torch.tensor(sourceTensor)"), rg);
}

static PyObject *f_as_tensor(PyObject *m, PyObject *args, PyObject *kw) {
    bool tf;
    PyObject *tfr = tn_torch_function_manual("as_tensor", args, kw, &tf);
    if (tf) return tfr;
    static char *kws[] = {"data", "dtype", "device", NULL};
    PyObject *data, *dto = NULL, *dvo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OO:as_tensor", kws, &data, &dto, &dvo)) return NULL;
    tn_dtype dt;
    tn_device_type dev = TN_DEVICE_CPU;
    if (opt_dtype(dto, &dt) < 0) return NULL;
    if (tn_py_is_tensor(data)) dev = tn_tensor_of(data)->storage->device;
    if (opt_device(dvo, dev, &dev) < 0) return NULL;
    return new_from_data(data, dt, dev, false, false, NULL);
}

static PyObject *from_buffer(PyObject *buf, tn_dtype dt, Py_ssize_t count, Py_ssize_t offset);

static PyObject *f_asarray(PyObject *m, PyObject *args, PyObject *kw) {
    bool tf;
    PyObject *tfr = tn_torch_function_manual("asarray", args, kw, &tf);
    if (tf) return tfr;
    static char *kws[] = {"obj", "dtype", "device", "copy", "requires_grad", NULL};
    PyObject *obj, *dto = NULL, *dvo = NULL, *cp = NULL, *rg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:asarray", kws, &obj, &dto, &dvo, &cp, &rg)) return NULL;
    tn_dtype dt;
    tn_device_type dev = TN_DEVICE_CPU;
    if (opt_dtype(dto, &dt) < 0) return NULL;
    if (tn_py_is_tensor(obj)) dev = tn_tensor_of(obj)->storage->device;
    if (opt_device(dvo, dev, &dev) < 0) return NULL;
    int copy = cp && cp != Py_None ? PyObject_IsTrue(cp) : -1; /* -1: only when needed */
    PyObject *r;
    if (tn_py_is_tensor(obj) || is_ndarray(obj)) {
        PyObject *t = tn_py_is_tensor(obj) ? Py_NewRef(obj) : from_numpy_obj(obj);
        if (!t) return NULL;
        tn_dtype want = dt == TN_DTYPE_UNDEFINED ? tn_tensor_of(t)->dtype : dt;
        bool changes = want != tn_tensor_of(t)->dtype || dev != tn_tensor_of(t)->storage->device;
        if (copy == 0 && changes) {
            Py_DECREF(t);
            PyErr_SetString(PyExc_ValueError, "can't alias tensor with a different dtype or device");
            return NULL;
        }
        r = tensor_to(t, want, dev, copy == 1);
        Py_DECREF(t);
    } else if (PyErr_Occurred()) {
        return NULL;
    } else if (copy != 0 && PyObject_TypeCheck(obj, tn_py.storage_type)) {
        /* an UntypedStorage: a 1-d tensor over all its bytes (int64 unless a dtype is given),
         * aliasing it even when copy=True is given, as upstream does */
        tn_tensor t = {0};
        t.storage = ((tn_storage_obj *)obj)->s;
        t.dtype = dt == TN_DTYPE_UNDEFINED ? TN_DTYPE_I64 : dt;
        t.ndim = 1;
        t.sizes[0] = (int64_t)(t.storage->nbytes / (size_t)tn_dtype_itemsize(t.dtype));
        t.strides[0] = 1;
        tn_storage_incref(t.storage);
        PyObject *b = tn_tensor_wrap(&t);
        if (!b) return NULL;
        r = dev != t.storage->device ? tensor_to(b, t.dtype, dev, false) : Py_NewRef(b);
        Py_DECREF(b);
    } else if (PyObject_CheckBuffer(obj) && !PyUnicode_Check(obj)) {
        PyObject *b = from_buffer(obj, dt == TN_DTYPE_UNDEFINED ? tn_py.default_dtype : dt, -1, 0);
        if (!b) return NULL;
        r = copy == 1 ? tensor_to(b, tn_tensor_of(b)->dtype, dev, true) : Py_NewRef(b);
        Py_DECREF(b);
    } else {
        if (copy == 0) {
            PyErr_SetString(PyExc_ValueError, "can't alias arbitrary sequence into a tensor.");
            return NULL;
        }
        r = new_from_data(obj, dt, dev, true, true, NULL);
    }
    return finish(r, rg);
}

static PyObject *f_from_numpy(PyObject *m, PyObject *arr) { return lift_fresh(from_numpy_obj(arr)); }

typedef struct { Py_buffer view; } buf_ctx;

static void release_buffer(void *ctx, char *data, size_t nbytes) {
    (void)data; (void)nbytes;
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(&((buf_ctx *)ctx)->view);
    PyMem_Free(ctx);
    PyGILState_Release(g);
}

static PyObject *from_buffer(PyObject *buf, tn_dtype dt, Py_ssize_t count, Py_ssize_t offset) {
    if (!PyObject_CheckBuffer(buf)) {
        PyErr_SetString(PyExc_ValueError, "object does not implement Python buffer protocol.");
        return NULL;
    }
    buf_ctx *c = PyMem_Calloc(1, sizeof *c);
    if (!c) return PyErr_NoMemory();
    bool readonly = false;
    if (PyObject_GetBuffer(buf, &c->view, PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(buf, &c->view, PyBUF_SIMPLE) < 0) { PyMem_Free(c); return NULL; }
        readonly = true;
    }
    Py_ssize_t len = c->view.len, isz = tn_dtype_itemsize(dt);
    const char *err = NULL;
    char msg[300];
    if (len == 0 || count == 0) {
        snprintf(msg, sizeof msg, "both buffer length (%zd) and count (%zd) must not be 0", len, count);
        err = msg;
    } else if (offset < 0 || offset >= len) {
        snprintf(msg, sizeof msg, "offset (%zd bytes) must be non-negative and no greater than buffer length (%zd bytes) minus 1", offset, len);
        err = msg;
    } else if (count < 0 && (len - offset) % isz != 0) {
        snprintf(msg, sizeof msg, "buffer length (%zd bytes) after offset (%zd bytes) must be a multiple of element size (%zd)", len - offset, offset, isz);
        err = msg;
    } else if (count > 0 && (len - offset) / isz < count) {
        snprintf(msg, sizeof msg, "requested buffer length (%zd * %zd bytes) after offset (%zd bytes) must not be greater than actual buffer length (%zd bytes)",
                 count, isz, offset, len);
        err = msg;
    }
    if (err) {
        PyBuffer_Release(&c->view);
        PyMem_Free(c);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    if (readonly && !warned_buf_readonly) {
        warned_buf_readonly = true;
        if (PyErr_WarnEx(PyExc_UserWarning,
                "The given buffer is not writable, and PyTorch does not support non-writable tensors. This means you can "
                "write to the underlying (supposedly non-writable) buffer using the tensor. You may want to copy the buffer "
                "to protect its data or make it writable before converting it to a tensor. This type of warning will be "
                "suppressed for the rest of this program.", 1) < 0) {
            PyBuffer_Release(&c->view);
            PyMem_Free(c);
            return NULL;
        }
    }
    int64_t n = count < 0 ? (len - offset) / isz : count;
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = tn_storage_wrap((char *)c->view.buf + offset, (size_t)(n * isz), release_buffer, c);
    if (!t.storage) { PyBuffer_Release(&c->view); PyMem_Free(c); return PyErr_NoMemory(); }
    t.storage->resizable = false;
    t.ndim = 1;
    t.dtype = dt;
    t.sizes[0] = n;
    t.strides[0] = 1;
    return tn_tensor_wrap(&t);
}

static PyObject *f_frombuffer(PyObject *m, PyObject *args, PyObject *kw) {
    bool tf;
    PyObject *tfr = tn_torch_function_manual("frombuffer", args, kw, &tf);
    if (tf) return tfr;
    static char *kws[] = {"buffer", "dtype", "count", "offset", "requires_grad", NULL};
    PyObject *buf, *dto = NULL, *rg = NULL;
    Py_ssize_t count = -1, offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OnnO:frombuffer", kws, &buf, &dto, &count, &offset, &rg)) return NULL;
    if (!dto) {
        PyErr_SetString(PyExc_TypeError, "frombuffer() missing 1 required positional arguments: \"dtype\"");
        return NULL;
    }
    tn_dtype dt;
    if (opt_dtype(dto, &dt) < 0) return NULL;
    return finish(from_buffer(buf, dt, count, offset), rg);
}

/* ---------- TensorBase methods ---------- */

#define T(o) tn_tensor_of(o)

static PyObject *elem_to_python(const tn_tensor *t, const char *p) {
    switch (t->dtype) {   /* the unsigned wide dtypes (storable, not computable): Python ints */
    case TN_DTYPE_U16: { uint16_t u; memcpy(&u, p, 2); return PyLong_FromUnsignedLong(u); }
    case TN_DTYPE_U32: { uint32_t u; memcpy(&u, p, 4); return PyLong_FromUnsignedLong(u); }
    case TN_DTYPE_U64: { unsigned long long u; memcpy(&u, p, 8); return PyLong_FromUnsignedLongLong(u); }
    default: break;
    }
    tn_value v;
    tn_cr_load(p, t->dtype, &v);
    return tn_cr_number_to_python(&v);
}

static PyObject *tolist_rec(const tn_tensor *t, int dim, const char *p) {
    if (dim == t->ndim) return elem_to_python(t, p);
    PyObject *l = PyList_New(t->sizes[dim]);
    int isz = tn_dtype_itemsize(t->dtype);
    for (int64_t i = 0; l && i < t->sizes[dim]; i++) {
        PyObject *e = tolist_rec(t, dim + 1, p + i * t->strides[dim] * isz);
        if (!e) { Py_CLEAR(l); break; }
        PyList_SetItem(l, (Py_ssize_t)i, e);
    }
    return l;
}

/* a read of a tensor's values a graph capture cannot record (dispatch/graph.c) */
static bool graph_refuses(const char *what) {
    if (!tn_graph_on || !tn_graph_capturing()) return false;
    PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: %s reads a tensor's values outside the operators a capture records", what);
    return true;
}

static PyObject *m_tolist(PyObject *self, PyObject *unused) {
    if (graph_refuses("tolist()")) return NULL;
    if (((tn_tensor_obj *)self)->nested)   /* upstream's NestedTensorImpl has no strides */
        return PyErr_Format(PyExc_RuntimeError, "Internal error: NestedTensorImpl doesn't support strides. Please file an issue.");
    if (((tn_tensor_obj *)self)->sparse)
        return PyErr_Format(PyExc_RuntimeError, "Cannot access data pointer of Tensor that doesn't have storage");
    if (tn_has_torch_dispatch(self))
        return PyErr_Format(PyExc_RuntimeError, ".tolist() is not supported for tensor subclasses, got %s", tn_py_type_name(self));
    if (T(self)->math_bits) {   /* the values it reads as (conj / neg bits applied) */
        PyObject *r = tn_resolve_bits(self);
        PyObject *l = r ? m_tolist(r, unused) : NULL;
        Py_XDECREF(r);
        return l;
    }
    tn_tensor *t = T(self);
    if (t->storage->device == TN_DEVICE_META) {
        PyErr_SetString(PyExc_NotImplementedError, "Cannot copy out of meta tensor; no data!");
        return NULL;
    }
    bool wide_uint = t->dtype == TN_DTYPE_U16 || t->dtype == TN_DTYPE_U32 || t->dtype == TN_DTYPE_U64;
    /* storable dtypes with casts (complex32, float8) read each element through them */
    if (tn_dtype_infos[t->dtype].kind == TN_KIND_QUANT) {   /* upstream's message for a quantized tensor */
        PyErr_SetString(PyExc_RuntimeError, "load_scalar: invalid type");
        return NULL;
    }
    if (!tn_dtype_computable(t->dtype) && !wide_uint && !tn_cast_loop(t->dtype, TN_DTYPE_I64))
        return tn_not_implemented("tolist() for this dtype");
    const char *base = tn_numel(t) ? tn_data(t) : NULL;
    if (!base && t->ndim == 0) return tn_not_implemented("tolist() of a tensor without data");
    return tolist_rec(t, 0, base);
}

/* Whether a conversion to a Python number is seen: by a subclass with __torch_dispatch__, a dispatch
 * mode or the profiler; then it goes through the door as upstream's (item, or is_nonzero for bool) */
static bool observed(PyObject *self) {
    return tn_has_torch_dispatch(self) || (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) || tn_prof_on ||
           (tn_graph_on && tn_graph_capturing());   /* torchnative.graphs records the read (dispatch/graph.c) */
}

/* A 1-element tensor's value; ValueError (or RuntimeError for bool) otherwise. */
static int single_value(PyObject *self, tn_value *v, bool for_bool) {
    tn_tensor *t = T(self);
    int64_t n = tn_numel(t);
    if (n != 1) {
        if (for_bool)
            PyErr_SetString(PyExc_RuntimeError, n == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                                       : "Boolean value of Tensor with more than one value is ambiguous");
        else
            PyErr_SetString(PyExc_ValueError, "only one element tensors can be converted to Python scalars");
        return -1;
    }
    if (t->storage->device == TN_DEVICE_META) {
        PyErr_SetString(PyExc_RuntimeError, "Tensor.item() cannot be called on meta tensors");
        return -1;
    }
    if (observed(self)) {
        /* a subclass with __torch_dispatch__, a dispatch mode or the profiler sees the call:
         * aten::item through the door (a mode or subclass gets its decomposition,
         * _local_scalar_dense), as upstream's item() / float() / int() reach it */
        PyObject *r = tn_at_item(self);
        if (!r) return -1;
        int rc = 0;
        if (PyBool_Check(r)) { v->tag = TN_V_BOOL; v->u.i = r == Py_True; }
        else if (PyLong_Check(r)) { v->tag = TN_V_INT; v->u.i = PyLong_AsLongLong(r); rc = v->u.i == -1 && PyErr_Occurred() ? -1 : 0; }
        else if (PyFloat_Check(r)) { v->tag = TN_V_FLOAT; v->u.f = PyFloat_AsDouble(r); }
        else if (PyComplex_Check(r)) { v->tag = TN_V_COMPLEX; v->u.c.re = PyComplex_RealAsDouble(r); v->u.c.im = PyComplex_ImagAsDouble(r); }
        else {
            PyErr_Format(PyExc_TypeError, "item returned %s, expected a number", tn_py_type_name(r));
            rc = -1;
        }
        Py_DECREF(r);
        return rc;
    }
    if (t->storage->no_data) { tn_no_data_error(); return -1; }   /* a wrapper subclass's */
    if (!tn_dtype_computable(t->dtype) && !tn_cast_loop(t->dtype, TN_DTYPE_I64)) {
        tn_not_implemented("scalar conversion of this dtype");
        return -1;
    }
    /* uint64 above int64's range: upstream's int() / bool() convert through int64 and refuse it
     * (its float() gives the value: not reproduced here, refused too) */
    if (t->dtype == TN_DTYPE_U64 && *(const uint64_t *)tn_data(t) > (uint64_t)INT64_MAX) {
        PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type int64_t without overflow");
        return -1;
    }
    if (t->math_bits) {   /* the value it reads as (conj / neg bits applied) */
        PyObject *r = tn_resolve_bits(self);
        if (!r) return -1;
        tn_cr_load(tn_data(tn_tensor_of(r)), t->dtype, v);
        Py_DECREF(r);
        return 0;
    }
    tn_cr_load(tn_data(t), t->dtype, v);
    return 0;
}

static PyObject *m_bool(PyObject *self, PyObject *unused) {
    tn_value v;
    if (observed(self) && tn_numel(T(self)) == 1 && T(self)->storage->device != TN_DEVICE_META)
        return tn_at_is_nonzero(self);
    if (single_value(self, &v, true) < 0) return NULL;
    bool b = v.tag == TN_V_COMPLEX ? (v.u.c.re != 0 || v.u.c.im != 0) : v.tag == TN_V_FLOAT ? v.u.f != 0 : v.u.i != 0;
    return PyBool_FromLong(b);
}

static PyObject *m_int(PyObject *self, PyObject *unused) {
    tn_value v;
    if (single_value(self, &v, false) < 0) return NULL;
    if (v.tag == TN_V_FLOAT) return PyLong_FromDouble(v.u.f);
    if (v.tag == TN_V_COMPLEX) {
        if (v.u.c.im != 0 || !(v.u.c.re >= -9.2233720368547758e18 && v.u.c.re < 9.2233720368547758e18)) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type int64_t without overflow");
            return NULL;
        }
        return PyLong_FromLongLong((long long)v.u.c.re);
    }
    return PyLong_FromLongLong(v.u.i);
}

static PyObject *m_float(PyObject *self, PyObject *unused) {
    tn_value v;
    if (single_value(self, &v, false) < 0) return NULL;
    if (v.tag == TN_V_COMPLEX) {
        if (v.u.c.im != 0) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type double without overflow");
            return NULL;
        }
        return PyFloat_FromDouble(v.u.c.re);
    }
    return PyFloat_FromDouble(v.tag == TN_V_FLOAT ? v.u.f : (double)v.u.i);
}

static PyObject *m_complex(PyObject *self, PyObject *unused) {
    tn_value v;
    if (single_value(self, &v, false) < 0) return NULL;
    if (v.tag == TN_V_COMPLEX) return PyComplex_FromDoubles(v.u.c.re, v.u.c.im);
    return PyComplex_FromDoubles(v.tag == TN_V_FLOAT ? v.u.f : (double)v.u.i, 0);
}

static PyObject *m_index(PyObject *self, PyObject *unused) {
    tn_tensor *t = T(self);
    if (!tn_dtype_is_integral(t->dtype, true) || tn_numel(t) != 1) {
        PyErr_SetString(PyExc_TypeError, "only integer tensors of a single element can be converted to an index");
        return NULL;
    }
    tn_value v;
    if (single_value(self, &v, false) < 0) return NULL;
    return PyLong_FromLongLong(v.u.i);
}

static PyObject *m_len(PyObject *self, PyObject *unused) {
    tn_tensor *t = T(self);
    if (t->ndim == 0) { PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor"); return NULL; }
    return PyLong_FromLongLong(t->sizes[0]);
}

/* numpy(): an ndarray over this tensor's memory, via an object exposing __array_interface__. */
typedef struct {
    PyObject_HEAD
    PyObject *iface;
    PyObject *owner;
} np_holder;

static PyTypeObject *np_holder_type;

static void holder_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(((np_holder *)self)->iface);
    Py_CLEAR(((np_holder *)self)->owner);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyMemberDef holder_members[] = {
    {"__array_interface__", T_OBJECT, offsetof(np_holder, iface), READONLY, NULL},
    {NULL},
};
static PyType_Slot holder_slots[] = {
    {Py_tp_dealloc, holder_dealloc},
    {Py_tp_members, holder_members},
    {0, NULL},
};
static PyType_Spec holder_spec = {"torch._C._TensorNumpyView", sizeof(np_holder), 0, Py_TPFLAGS_DEFAULT, holder_slots};

static const char *np_typestr(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F64: return "<f8";
    case TN_DTYPE_F32: return "<f4";
    case TN_DTYPE_F16: return "<f2";
    case TN_DTYPE_C64: return "<c8";
    case TN_DTYPE_C128: return "<c16";
    case TN_DTYPE_I64: return "<i8";
    case TN_DTYPE_I32: return "<i4";
    case TN_DTYPE_I16: return "<i2";
    case TN_DTYPE_I8: return "|i1";
    case TN_DTYPE_U8: return "|u1";
    case TN_DTYPE_U16: return "<u2";
    case TN_DTYPE_U32: return "<u4";
    case TN_DTYPE_U64: return "<u8";
    case TN_DTYPE_BOOL: return "|b1";
    default: return NULL;
    }
}

static PyObject *m_numpy(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"force", NULL};
    int force = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$p:numpy", kws, &force)) return NULL;
    if (graph_refuses("numpy()")) return NULL;
    if (((tn_tensor_obj *)self)->sparse) {
        static const char *const names[] = {"Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc"};
        return PyErr_Format(PyExc_TypeError, "can't convert %s layout tensor to numpy. Use Tensor.to_dense() first.",
                            names[((tn_tensor_obj *)self)->sparse->kind]);
    }
    if (((tn_tensor_obj *)self)->nested)
        return PyErr_Format(PyExc_RuntimeError, "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.");
    if (tn_has_torch_dispatch(self)) {
        PyErr_SetString(PyExc_RuntimeError, ".numpy() is not supported for tensor subclasses.");
        return NULL;
    }
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    tn_tensor *t = &o->t;
    if (!force && (o->requires_grad || o->grad_fn)) {
        PyErr_SetString(PyExc_RuntimeError, "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.");
        return NULL;
    }
    if (!force && (t->math_bits & TN_BIT_CONJ)) {
        PyErr_SetString(PyExc_RuntimeError, "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead.");
        return NULL;
    }
    if (!force && (t->math_bits & TN_BIT_NEG)) {
        PyErr_SetString(PyExc_RuntimeError, "Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() instead.");
        return NULL;
    }
    if (force && t->math_bits) return tn_not_implemented("numpy(force=True) of a tensor with the conjugate or negative bit");
    if (t->storage->device == TN_DEVICE_META) {
        PyErr_SetString(PyExc_TypeError, "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
        return NULL;
    }
    if (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) {
        /* upstream's tensor_to_numpy detaches after its checks: a dispatch mode sees aten.detach */
        PyObject *d = tn_at_detach(self);
        if (!d) return NULL;
        Py_DECREF(d);
    }
    const char *ts = np_typestr(t->dtype);
    if (!ts) {
        PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    if (numpy_types(true) < 0) return NULL;
    int isz = tn_dtype_itemsize(t->dtype);
    PyObject *shape = PyTuple_New(t->ndim), *strides = PyTuple_New(t->ndim);
    for (int i = 0; shape && strides && i < t->ndim; i++) {
        PyTuple_SetItem(shape, i, PyLong_FromLongLong(t->sizes[i]));
        PyTuple_SetItem(strides, i, PyLong_FromLongLong(t->strides[i] * isz));
    }
    char *ptr = t->storage->data ? tn_data(t) : NULL;
    static char dummy[16];
    PyObject *iface = (shape && strides)
        ? Py_BuildValue("{s:N,s:s,s:(Ni),s:N,s:i}", "shape", shape, "typestr", ts, "data",
                        PyLong_FromVoidPtr(ptr ? ptr : dummy), 0, "strides", strides, "version", 3)
        : NULL;
    if (!iface) { Py_XDECREF(shape); Py_XDECREF(strides); return NULL; }
    np_holder *h = (np_holder *)PyType_GenericAlloc(np_holder_type, 0);
    if (!h) { Py_DECREF(iface); return NULL; }
    h->iface = iface;
    h->owner = Py_NewRef(self);
    PyObject *np = PyImport_ImportModule("numpy");
    PyObject *arr = np ? PyObject_CallMethod(np, "asarray", "O", (PyObject *)h) : NULL;
    Py_XDECREF(np);
    Py_DECREF(h);
    return arr;
}

static PyObject *m_new_tensor(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"data", "dtype", "device", "requires_grad", "pin_memory", NULL};
    PyObject *data, *dto = NULL, *dvo = NULL, *rg = NULL, *pin = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOO:new_tensor", kws, &data, &dto, &dvo, &rg, &pin)) return NULL;
    tn_dtype dt;
    tn_device_type dev;
    if (opt_dtype(dto, &dt) < 0 || opt_device(dvo, T(self)->storage->device, &dev) < 0) return NULL;
    if (dt == TN_DTYPE_UNDEFINED) dt = T(self)->dtype;
    return finish(new_from_data(data, dt, dev, true, true, "tensor.new_tensor(sourceTensor)"), rg);
}

/* Tensor.to(...): upstream's three Python forms, each sent through the door as its aten overload. */
static PyObject *to_no_match(PyObject *args, PyObject *kw) { return tn_to_no_match(args, kw); }

static bool dtype_like(PyObject *o) {
    return tn_py_is_dtype(o) || o == (PyObject *)&PyFloat_Type || o == (PyObject *)&PyLong_Type ||
           o == (PyObject *)&PyBool_Type || o == (PyObject *)&PyComplex_Type;
}

static PyObject *to_impl(PyObject *self, PyObject *args, PyObject *kw, PyObject **wrapped_out) {
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *pos[4] = {0}, *other = NULL, *dto = NULL, *dvo = NULL, *nb = NULL, *cp = NULL, *mf = NULL;
    if (n > 4) return to_no_match(args, kw);
    for (Py_ssize_t i = 0; i < n; i++) pos[i] = PyTuple_GetItem(args, i);
    enum { F_DEVICE, F_DTYPE, F_OTHER } form = F_DEVICE;
    Py_ssize_t k = 0;
    /* to(3.5): upstream lets a Python number bind its Tensor `other` (an int is a device index) */
    if (n && (PyBool_Check(pos[0]) || PyFloat_Check(pos[0]) || PyComplex_Check(pos[0]))) {
        if (!(other = *wrapped_out = tn_tensor_from_number(pos[0], true))) return NULL;
        form = F_OTHER;
        k++;
    } else if (n && tn_py_is_tensor(pos[0])) { form = F_OTHER; other = pos[k++]; }
    else if (n && dtype_like(pos[0])) { form = F_DTYPE; dto = pos[k++]; }
    else {
        if (n) dvo = pos[k++];
        if (k < n && (dtype_like(pos[k]) || pos[k] == Py_None)) dto = pos[k++];
    }
    if (k < n) { if (!PyBool_Check(pos[k])) return to_no_match(args, kw); nb = pos[k++]; }
    if (k < n) { if (!PyBool_Check(pos[k])) return to_no_match(args, kw); cp = pos[k++]; }
    if (k < n) return to_no_match(args, kw);
    if (kw) {
        PyObject *key, *val;
        Py_ssize_t it = 0;
        while (PyDict_Next(kw, &it, &key, &val)) {
            const char *s = PyUnicode_AsUTF8AndSize(key, NULL);
            if (!s) return NULL;
            PyObject **slot = !strcmp(s, "dtype") ? &dto : !strcmp(s, "device") ? &dvo : !strcmp(s, "non_blocking") ? &nb
                            : !strcmp(s, "copy") ? &cp : !strcmp(s, "memory_format") ? &mf : NULL;
            if (!slot || *slot) return to_no_match(args, kw);
            if (slot == &dvo && form != F_DEVICE) return to_no_match(args, kw);
            if (slot == &dto && form == F_OTHER) return to_no_match(args, kw);
            *slot = val;
        }
    }
    /* non_blocking and copy are bools in every signature (measured: copy=2, copy=None refused) */
    if ((nb && !PyBool_Check(nb)) || (cp && !PyBool_Check(cp))) return to_no_match(args, kw);
    tn_value v[8];
    memset(v, 0, sizeof v);
    v[0].tag = TN_V_TENSOR;
    v[0].u.obj = self;
    tn_value vnb = {.tag = TN_V_BOOL}, vcp = {.tag = TN_V_BOOL}, vmf = {.tag = TN_V_NONE};
    if (nb) { int b = PyObject_IsTrue(nb); if (b < 0) return NULL; vnb.u.i = b; }
    if (cp) { int b = PyObject_IsTrue(cp); if (b < 0) return NULL; vcp.u.i = b; }
    if (mf && mf != Py_None) {
        if (!PyObject_TypeCheck(mf, tn_py.memory_format_type)) return to_no_match(args, kw);
        vmf.tag = TN_V_MEMFORMAT; vmf.u.obj = mf;
    }
    tn_dtype dt = TN_DTYPE_UNDEFINED;
    if (dto && opt_dtype(dto, &dt) < 0) return NULL;
    int row;
    if (form == F_OTHER) {
        row = tn_op_find("to", "other");
        v[1].tag = TN_V_TENSOR; v[1].u.obj = other;
        v[2] = vnb; v[3] = vcp; v[4] = vmf;
    } else if (form == F_DTYPE) {
        row = tn_op_find("to", "dtype");
        v[1].tag = TN_V_DTYPE; v[1].u.dtype = dt;
        v[2] = vnb; v[3] = vcp; v[4] = vmf;
    } else {
        row = tn_op_find("to", "dtype_layout");
        if (dt != TN_DTYPE_UNDEFINED) { v[1].tag = TN_V_DTYPE; v[1].u.dtype = dt; } else v[1].tag = TN_V_NONE;
        v[2].tag = TN_V_NONE;
        bool has_dev = dvo && dvo != Py_None;
        if (has_dev || dt == TN_DTYPE_UNDEFINED) {
            /* upstream's binding passes self's options with the device and dtype given (a dtype
             * alone goes to to.dtype's composite: nothing else filled) */
            const tn_tensor *t = tn_tensor_of(self);
            if (dt == TN_DTYPE_UNDEFINED) { v[1].tag = TN_V_DTYPE; v[1].u.dtype = t->dtype; }
            v[2].tag = TN_V_LAYOUT; v[2].u.obj = tn_py.layout_strided;
            if (!has_dev) { v[3].tag = TN_V_DEVICE; v[3].u.device.type = t->storage->device; v[3].u.device.index = -1; }
        }
        if (dvo && dvo != Py_None) {
            v[3].tag = TN_V_DEVICE;
            if (tn_py_parse_device(dvo, &v[3].u.device.type, &v[3].u.device.index) < 0) {
                tn_py_device_lazy_init(dvo);   /* x.to("cuda"): upstream's lazy init error */
                return NULL;
            }
        } else if (v[3].tag != TN_V_DEVICE) v[3].tag = TN_V_NONE;
        v[4].tag = TN_V_NONE;
        v[5] = vnb; v[6] = vcp; v[7] = vmf;
    }
    if (row < 0) return tn_not_implemented("aten::to");
    return tn_door_call(row, v);
}
static PyObject *m_to(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *wrapped = NULL;
    PyObject *r = to_impl(self, args, kw, &wrapped);
    Py_XDECREF(wrapped);
    return r;
}

/* ---------- requires_grad= for factories ---------- */

/* Split requires_grad out of kw; returns a new kw (or NULL when absent, or the same dict). */
static int split_rg(PyObject *kw, PyObject **kw2, PyObject **rg) {
    *kw2 = kw;
    *rg = NULL;
    if (!kw) return 0;
    PyObject *v = PyDict_GetItemString(kw, "requires_grad");
    if (!v) return 0;
    *rg = v;
    *kw2 = PyDict_Copy(kw);
    if (!*kw2 || PyDict_DelItemString(*kw2, "requires_grad") < 0) return -1;
    return 0;
}

void tn_set_public_api(const char *name, PyObject *f); /* functions.c */

static PyObject *rg_function(PyObject *orig, PyObject *args, PyObject *kw) {
    PyObject *kw2, *rg;
    if (split_rg(kw, &kw2, &rg) < 0) return NULL;
    PyObject *rgref = Py_XNewRef(rg);
    PyObject *r = PyObject_Call(orig, args, kw2);
    if (kw2 != kw) Py_XDECREF(kw2);
    if (r && rgref && tn_py_is_tensor(r)) r = finish(r, rgref);
    Py_XDECREF(rgref);
    return r;
}

static const char *const rg_function_names[] = {
    "zeros", "ones", "full", "empty", "empty_strided", "arange", "linspace", "eye", "zeros_like", "ones_like",
    "empty_like", "full_like", "scalar_tensor", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
    "randint_like", "normal", "logspace", "range", "bartlett_window", "blackman_window", "hamming_window",
    "hann_window", "kaiser_window", "empty_permuted", "tril_indices", "triu_indices",
    /* torch._C._fft's (the same binding rule: every function with TensorOptions) */
    "fft_fftfreq", "fft_rfftfreq",
};
#define N_RG_FUNCS ((int)(sizeof rg_function_names / sizeof *rg_function_names))
static PyMethodDef rg_defs[N_RG_FUNCS];

static const char *const rg_method_names[] = {"new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided"};
#define N_RG_METHODS ((int)(sizeof rg_method_names / sizeof *rg_method_names))
static int rg_method_index[N_RG_METHODS];

static PyObject *rg_method(int which, PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *kw2, *rg;
    if (split_rg(kw, &kw2, &rg) < 0) return NULL;
    PyObject *rgref = Py_XNewRef(rg);
    PyObject *r = tn_call_method(rg_method_index[which], self, args, kw2);
    if (kw2 != kw) Py_XDECREF(kw2);
    if (r && rgref && tn_py_is_tensor(r)) r = finish(r, rgref);
    Py_XDECREF(rgref);
    return r;
}
#define RGM(i) static PyObject *rgm_##i(PyObject *s, PyObject *a, PyObject *k) { return rg_method(i, s, a, k); }
RGM(0) RGM(1) RGM(2) RGM(3) RGM(4)
static const PyCFunction rg_method_fns[N_RG_METHODS] = {
    (PyCFunction)(void (*)(void))rgm_0, (PyCFunction)(void (*)(void))rgm_1, (PyCFunction)(void (*)(void))rgm_2,
    (PyCFunction)(void (*)(void))rgm_3, (PyCFunction)(void (*)(void))rgm_4,
};

/* ---------- nonzero(as_tuple=) ---------- */

/* upstream's hand-written bindings "nonzero(Tensor input, *, bool as_tuple=False, Tensor
 * out=None)" and the method's "nonzero(*, bool as_tuple=False)": as_tuple=True is
 * aten::nonzero_numpy (a tuple of index tensors), never with out=. Returns 1 with *res set
 * when as_tuple was given (true or false: *kw2 is kw without it), 0 when absent, -1 on error. */
static int nonzero_as_tuple(PyObject *self, PyObject *args, PyObject *kw, PyObject **kw2, PyObject **res) {
    *kw2 = kw;
    *res = NULL;
    PyObject *at = kw ? PyDict_GetItemString(kw, "as_tuple") : NULL;
    if (!at) return 0;
    if (!PyBool_Check(at)) {
        PyObject *tn = PyType_GetName(Py_TYPE(at));
        if (tn) PyErr_Format(PyExc_TypeError, "nonzero(): argument 'as_tuple' must be bool, not %U", tn);
        Py_XDECREF(tn);
        return -1;
    }
    *kw2 = PyDict_Copy(kw);
    if (!*kw2 || PyDict_DelItemString(*kw2, "as_tuple") < 0) return -1;
    if (at == Py_False) return 1;
    PyObject *out = PyDict_GetItemString(*kw2, "out");
    if (out && out != Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "nonzero does not support the out kwarg when as_tuple is True");
        return -1;
    }
    PyObject *x = self;
    Py_ssize_t given = PyTuple_Size(args) + PyDict_Size(*kw2) - (out ? 1 : 0);
    if (!x) x = PyTuple_Size(args) == 1 ? PyTuple_GetItem(args, 0) : PyDict_GetItemString(*kw2, "input");
    if (!x || !tn_py_is_tensor(x) || given != (self ? 0 : 1)) {
        PyErr_SetString(PyExc_TypeError, "nonzero() received an invalid combination of arguments");
        return -1;
    }
    int row = tn_op_find("nonzero_numpy", "");
    if (row < 0) return -1;
    tn_value v[1];
    memset(v, 0, sizeof v);
    v[0].tag = TN_V_TENSOR;
    v[0].u.obj = x;
    PyObject *r = tn_door_call(row, v);
    if (!r) return -1;
    *res = PySequence_Tuple(r);
    Py_DECREF(r);
    return *res ? 1 : -1;
}

static PyObject *nonzero_function(PyObject *orig, PyObject *args, PyObject *kw) {
    PyObject *kw2, *res;
    int r = nonzero_as_tuple(NULL, args, kw, &kw2, &res);
    if (r == 1 && !res) res = PyObject_Call(orig, args, kw2);
    else if (r == 0) res = PyObject_Call(orig, args, kw);
    if (kw2 != kw) Py_XDECREF(kw2);
    return r < 0 ? NULL : res;
}

static int nonzero_method_index;
static PyObject *nonzero_method(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *kw2, *res;
    int r = nonzero_as_tuple(self, args, kw, &kw2, &res);
    if (r == 1 && !res) res = tn_call_method(nonzero_method_index, self, args, kw2);
    else if (r == 0) res = tn_call_method(nonzero_method_index, self, args, kw);
    if (kw2 != kw) Py_XDECREF(kw2);
    return r < 0 ? NULL : res;
}

/* ---------- init ---------- */

/* torch._C._nested.nested_tensor(tensor_list, *, dtype=None, device=None, requires_grad=False,
 * pin_memory=False): each element a tensor or data for torch.tensor, copied into a strided nested
 * tensor (ops/nested.c) that is a leaf */
static PyObject *f_nested_tensor(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensor_list", "dtype", "device", "requires_grad", "pin_memory", NULL};
    PyObject *list, *dtype = Py_None, *device = Py_None;
    int rg = 0, pin = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOpp:nested_tensor", kws, &list, &dtype, &device, &rg, &pin)) return NULL;
    if (!PyList_Check(list))
        return PyErr_Format(PyExc_TypeError, "Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in nested_tensor");
    if (device != Py_None) {
        tn_device_type dt;
        int idx;
        if (tn_py_parse_device(device, &dt, &idx) < 0) return NULL;
        if (dt != TN_DEVICE_CPU) return tn_not_implemented("torch.nested.nested_tensor on a device other than cpu");
    }
    Py_ssize_t n = PyList_Size(list);
    PyObject *items = PyTuple_New(n);
    for (Py_ssize_t i = 0; items && i < n; i++) {
        PyObject *e = PyList_GetItem(list, i), *t;
        if (tn_py_is_tensor(e)) {
            t = Py_NewRef(e);
        } else if (PyUnicode_Check(e) || PyBytes_Check(e)) {
            PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", tn_py_type_name(e));
            t = NULL;
        } else {
            PyObject *a = PyTuple_Pack(1, e);
            t = a ? f_tensor(NULL, a, NULL) : NULL;
            Py_XDECREF(a);
        }
        if (!t) Py_CLEAR(items);
        else PyTuple_SetItem(items, i, t);
    }
    PyObject *r = items ? tn_nested_from_list(items, dtype) : NULL;
    Py_XDECREF(items);
    if (r && rg) ((tn_tensor_obj *)r)->requires_grad = true;
    return r;
}

static PyMethodDef nested_functions[] = {
    {"nested_tensor", (PyCFunction)(void (*)(void))f_nested_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef module_functions[] = {
    {"tensor", (PyCFunction)(void (*)(void))f_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"as_tensor", (PyCFunction)(void (*)(void))f_as_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"asarray", (PyCFunction)(void (*)(void))f_asarray, METH_VARARGS | METH_KEYWORDS, NULL},
    {"from_numpy", f_from_numpy, METH_O, NULL},
    {"frombuffer", (PyCFunction)(void (*)(void))f_frombuffer, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};

/* ---------- Tensor.apply_ / map_ / map2_ ----------
 * upstream's CPU-only helpers: fn is called per element, in index order, with Python numbers
 * (self's element, then the others' broadcast to self's shape), and its result is stored into self
 * with the dtype's cast (an int tensor truncates a float result). They write through no op, so
 * the version counter stays as it is (upstream's does). */
static int elem_from_python(PyObject *r, tn_dtype dt, tn_value *v) {
    memset(v, 0, sizeof *v);
    if (tn_dtype_is_complex(dt)) {
        v->tag = TN_V_COMPLEX;
        v->u.c.re = PyComplex_RealAsDouble(r);
        v->u.c.im = PyComplex_Check(r) ? PyComplex_ImagAsDouble(r) : 0.0;
        if (PyErr_Occurred()) return -1;
    } else if (PyLong_Check(r) && tn_dtype_is_integral(dt, true)) {
        v->tag = TN_V_INT; v->u.i = PyLong_AsLongLong(r);
        if (v->u.i == -1 && PyErr_Occurred()) return -1;
    } else {
        v->tag = TN_V_FLOAT; v->u.f = PyFloat_AsDouble(r);
        if (v->u.f == -1.0 && PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *apply_elems(PyObject *self, const char *name, PyObject *fn, int nothers, PyObject *const *others) {
    PyObject *rgo = PyObject_GetAttrString(self, "requires_grad");
    if (!rgo) return NULL;
    int rg = PyObject_IsTrue(rgo);
    Py_DECREF(rgo);
    if (rg)
        return PyErr_Format(PyExc_RuntimeError, "Can't call %s() on Variable that requires grad. Use var.detach().%s() instead.", name, name);
    if (!PyCallable_Check(fn)) return PyErr_Format(PyExc_TypeError, "'%s' object is not callable", tn_py_type_name(fn));
    const tn_tensor *t = tn_tensor_of(self);
    PyObject *ex[2] = {NULL, NULL}, *res = NULL;
    for (int k = 0; k < nothers; k++) {
        if (!tn_py_is_tensor(others[k])) { PyErr_Format(PyExc_TypeError, "%s: expected a Tensor", name); goto done; }
        if (tn_tensor_of(others[k])->dtype != t->dtype) {
            PyObject *want = PyObject_CallMethod(self, "type", NULL), *got = want ? PyObject_CallMethod(others[k], "type", NULL) : NULL;
            if (got) PyErr_Format(PyExc_TypeError, "%s: expected %U for '%s' (got %U)", name, want, k ? "x2" : nothers > 1 ? "x1" : "other", got);
            Py_XDECREF(want); Py_XDECREF(got);
            goto done;
        }
        if (!(ex[k] = PyObject_CallMethod(others[k], "expand_as", "O", self))) goto done;
    }
    int nd = t->ndim;
    int64_t idx[TN_MAX_DIMS] = {0}, n = tn_numel(t);
    size_t isz = (size_t)tn_dtype_itemsize(t->dtype);
    for (int64_t e = 0; e < n; e++) {
        const tn_tensor *ts[3] = {t, ex[0] ? tn_tensor_of(ex[0]) : NULL, ex[1] ? tn_tensor_of(ex[1]) : NULL};
        char *ptr[3];
        PyObject *args = PyTuple_New(1 + nothers);
        if (!args) goto done;
        for (int k = 0; k <= nothers; k++) {
            int64_t off = 0;
            for (int d = 0; d < nd; d++) off += idx[d] * ts[k]->strides[d];
            ptr[k] = (char *)tn_data(ts[k]) + off * (int64_t)isz;
            tn_value v;
            tn_cr_load(ptr[k], t->dtype, &v);
            PyObject *o = tn_cr_number_to_python(&v);
            if (!o) { Py_DECREF(args); goto done; }
            PyTuple_SetItem(args, k, o);
        }
        PyObject *r = PyObject_Call(fn, args, NULL);
        Py_DECREF(args);
        tn_value v;
        int rc = r ? elem_from_python(r, t->dtype, &v) : -1;
        Py_XDECREF(r);
        if (rc < 0) goto done;
        tn_cr_store(ptr[0], t->dtype, &v);
        for (int d = nd - 1; d >= 0 && ++idx[d] == t->sizes[d]; d--) idx[d] = 0;
    }
    res = Py_NewRef(self);
done:
    Py_XDECREF(ex[0]);
    Py_XDECREF(ex[1]);
    return res;
}
static PyObject *m_apply_(PyObject *self, PyObject *fn) { return apply_elems(self, "apply_", fn, 0, NULL); }
static PyObject *m_map_(PyObject *self, PyObject *args) {
    PyObject *other, *fn;
    if (!PyArg_ParseTuple(args, "OO:map_", &other, &fn)) return NULL;
    return apply_elems(self, "map_", fn, 1, &other);
}
static PyObject *m_map2_(PyObject *self, PyObject *args) {
    PyObject *xs[2], *fn;
    if (!PyArg_ParseTuple(args, "OOO:map2_", &xs[0], &xs[1], &fn)) return NULL;
    return apply_elems(self, "map2_", fn, 2, xs);
}

static PyMethodDef tensor_methods[] = {
    {"tolist", m_tolist, METH_NOARGS, NULL},
    {"numpy", (PyCFunction)(void (*)(void))m_numpy, METH_VARARGS | METH_KEYWORDS, NULL},
    {"new_tensor", (PyCFunction)(void (*)(void))m_new_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"to", (PyCFunction)(void (*)(void))m_to, METH_VARARGS | METH_KEYWORDS, NULL},
    {"apply_", m_apply_, METH_O, NULL},
    {"map_", m_map_, METH_VARARGS, NULL},
    {"map2_", m_map2_, METH_VARARGS, NULL},
    {"__bool__", m_bool, METH_NOARGS, NULL},
    {"__nonzero__", m_bool, METH_NOARGS, NULL},
    {"__int__", m_int, METH_NOARGS, NULL},
    {"__long__", m_int, METH_NOARGS, NULL},
    {"__float__", m_float, METH_NOARGS, NULL},
    {"__complex__", m_complex, METH_NOARGS, NULL},
    {"__index__", m_index, METH_NOARGS, NULL},
    {"__len__", m_len, METH_NOARGS, NULL},
    {NULL},
};

static int add_method(PyMethodDef *def) {
    PyObject *d = PyDescr_NewMethod(tn_py.TensorBase, def);
    if (!d) return -1;
    int r = PyObject_SetAttrString((PyObject *)tn_py.TensorBase, def->ml_name, d);
    Py_DECREF(d);
    return r;
}

int tn_tensor_new_init(PyObject *m) {
    PyObject *vf = PyObject_GetAttrString(m, "_VariableFunctions");
    if (!vf) return -1;
    PyObject *modname = PyUnicode_FromString("torch._C._VariableFunctions");
    if (!modname) { Py_DECREF(vf); return -1; }
    for (PyMethodDef *d = module_functions; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, NULL, modname);
        if (!f || PyObject_SetAttrString(vf, d->ml_name, f) < 0) { Py_XDECREF(f); goto fail; }
        Py_DECREF(f);
    }
    PyObject *nested = PyObject_GetAttrString(m, "_nested");
    PyObject *nmod = nested ? PyUnicode_FromString("torch._C._nested") : NULL;
    PyObject *nf = nmod ? PyCFunction_NewEx(&nested_functions[0], NULL, nmod) : NULL;
    int nrc = nf ? PyObject_SetAttrString(nested, "nested_tensor", nf) : -1;
    Py_XDECREF(nested); Py_XDECREF(nmod); Py_XDECREF(nf);
    if (nrc < 0) goto fail;
    PyObject *fft = PyObject_GetAttrString(m, "_fft");
    if (!fft) PyErr_Clear();
    for (int i = 0; i < N_RG_FUNCS; i++) {
        bool in_fft = !strncmp(rg_function_names[i], "fft_", 4);
        PyObject *space = in_fft ? fft : vf;
        if (!space) continue;
        PyObject *orig = PyObject_GetAttrString(space, rg_function_names[i]);
        if (!orig) { PyErr_Clear(); continue; }
        rg_defs[i].ml_name = rg_function_names[i];
        rg_defs[i].ml_meth = (PyCFunction)(void (*)(void))rg_function;
        rg_defs[i].ml_flags = METH_VARARGS | METH_KEYWORDS;
        PyObject *mn = in_fft ? PyUnicode_FromString("torch._C._fft") : Py_NewRef(modname);
        PyObject *f = mn ? PyCFunction_NewEx(&rg_defs[i], orig, mn) : NULL;
        Py_XDECREF(mn);
        Py_DECREF(orig);
        if (!f || PyObject_SetAttrString(space, rg_function_names[i], f) < 0) { Py_XDECREF(f); Py_XDECREF(fft); goto fail; }
        if (in_fft) { Py_DECREF(f); continue; }
        tn_set_public_api(rg_function_names[i], f);
        Py_DECREF(f);
    }
    Py_XDECREF(fft);
    {
        static PyMethodDef nz_def = {"nonzero", (PyCFunction)(void (*)(void))nonzero_function, METH_VARARGS | METH_KEYWORDS, NULL};
        static PyMethodDef nz_mdef = {"nonzero", (PyCFunction)(void (*)(void))nonzero_method, METH_VARARGS | METH_KEYWORDS, NULL};
        PyObject *orig = PyObject_GetAttrString(vf, "nonzero");
        if (!orig) goto fail;
        PyObject *f = PyCFunction_NewEx(&nz_def, orig, modname);
        Py_DECREF(orig);
        if (!f || PyObject_SetAttrString(vf, "nonzero", f) < 0) { Py_XDECREF(f); goto fail; }
        tn_set_public_api("nonzero", f);
        Py_DECREF(f);
        nonzero_method_index = tn_name_find("nonzero");
        if (nonzero_method_index >= 0 && add_method(&nz_mdef) < 0) goto fail;
    }
    for (PyMethodDef *d = tensor_methods; d->ml_name; d++)
        if (add_method(d) < 0) goto fail;
    static PyMethodDef rg_mdefs[N_RG_METHODS];
    for (int i = 0; i < N_RG_METHODS; i++) {
        rg_method_index[i] = tn_name_find(rg_method_names[i]);
        if (rg_method_index[i] < 0) continue;
        rg_mdefs[i].ml_name = rg_method_names[i];
        rg_mdefs[i].ml_meth = rg_method_fns[i];
        rg_mdefs[i].ml_flags = METH_VARARGS | METH_KEYWORDS;
        if (add_method(&rg_mdefs[i]) < 0) goto fail;
    }
    np_holder_type = (PyTypeObject *)PyType_FromSpec(&holder_spec);
    if (!np_holder_type) goto fail;
    Py_DECREF(modname);
    Py_DECREF(vf);
    return 0;
fail:
    Py_DECREF(modname);
    Py_DECREF(vf);
    return -1;
}
