/* ops/predicates.c — questions about a tensor's kind, and the conjugate/negative-bit views.
 * The lazy bits live in tn_tensor.math_bits (core/tensor.h): conj / _conj and _neg_view are views
 * that flip a bit, view_as_real / view_as_complex / real / imag reinterpret the storage; the door
 * (dispatch/door.c) materialises bits for every op that is not a view, so the ops below that read
 * values (conj_physical, resolve_*) get bit-free tensors unless they are views themselves. There
 * are no zero tensors: that query answers False. */
#include "ops/common.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

static PyObject *no(tn_value *a) { Py_RETURN_FALSE; }
static PyObject *self_(tn_value *a) { return Py_NewRef(a[0].u.obj); }

PyObject *tn_op__is_zerotensor(tn_value *a) { return no(a); }
PyObject *tn_op_is_conj(tn_value *a) { return PyBool_FromLong((TN_T(a[0])->math_bits & TN_BIT_CONJ) != 0); }
PyObject *tn_op_is_neg(tn_value *a) { return PyBool_FromLong((TN_T(a[0])->math_bits & TN_BIT_NEG) != 0); }
/* made in inference mode, or a view of such (core/tensor.h) */
PyObject *tn_op_is_inference(tn_value *a) { return PyBool_FromLong(TN_T(a[0])->storage->inference); }
/* resolve_conj / resolve_neg (views in the schema, so the door passes the bits): the tensor itself
 * without the bit, else a materialised copy (upstream: a clone) */
static PyObject *resolve(tn_value *a, uint8_t bit) {
    if (!(TN_T(a[0])->math_bits & bit)) return self_(a);
    return tn_at_clone(a[0].u.obj, NULL);
}
PyObject *tn_op_resolve_conj(tn_value *a) { return resolve(a, TN_BIT_CONJ); }
PyObject *tn_op_resolve_neg(tn_value *a) { return resolve(a, TN_BIT_NEG); }

/* a view of t (same geometry) with math bits `bits` */
static PyObject *bit_view(PyObject *t, uint8_t bits) {
    const tn_tensor *g = tn_tensor_of(t);
    PyObject *v = tn_tensor_new_view(t, g->ndim, g->sizes, g->strides, g->offset);
    if (v) tn_tensor_of(v)->math_bits = bits;
    return v;
}
PyObject *tn_op__conj(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "isComplexType(typeMetaToScalarType(dtype())) INTERNAL ASSERT FAILED: _conj of a non-complex tensor");
        return NULL;
    }
    return bit_view(a[0].u.obj, t->math_bits ^ TN_BIT_CONJ);
}
PyObject *tn_op__neg_view(tn_value *a) { return bit_view(a[0].u.obj, TN_T(a[0])->math_bits ^ TN_BIT_NEG); }

/* negate the imaginary parts of a bit-free complex tensor in place */
static int negate_imag(PyObject *t) {
    PyObject *r = tn_at_view_as_real(t);
    PyObject *im = r ? tn_at_select_int(r, -1, 1) : NULL;
    PyObject *n = im ? tn_at_neg_(im) : NULL;
    Py_XDECREF(r); Py_XDECREF(im);
    if (!n) return -1;
    Py_DECREF(n);
    return 0;
}
/* _conj_physical / conj_physical / conj_physical.out / conj_physical_ (arguments arrive bit-free) */
PyObject *tn_op__conj_physical(tn_value *a) {
    /* upstream's kernel has no float8 or uint16/32/64 (empty tensors too; conj_physical returns a
     * real self before reaching it). Measured: docs/breadth_more2.md "fourth pass" */
    tn_dtype dt = TN_T(a[0])->dtype;
    if (!tn_door_on_meta() && (tn_dtype_infos[dt].kind == TN_KIND_FLOAT8 || tn_dtype_barebones(dt)))
        return tn_kernel_missing("conj_cpu", dt);
    PyObject *c = tn_at_clone(a[0].u.obj, NULL);
    if (c && tn_dtype_is_complex(tn_tensor_of(c)->dtype) && negate_imag(c) < 0) Py_CLEAR(c);
    return c;
}
PyObject *tn_op_conj_physical(tn_value *a) {
    if (!tn_dtype_is_complex(TN_T(a[0])->dtype)) return self_(a);
    return tn_op__conj_physical(a);
}
PyObject *tn_op_conj_physical_out(tn_value *a) {
    /* first (measured), then the iterator's overlap checks on out= as given */
    if (tn_out_dtype_found(a[1].u.obj, TN_T(a[0])->dtype) < 0 || tn_check_overlap(a[1].u.obj, 1, &a[0].u.obj) < 0) return NULL;
    return tn_out_deliver(tn_op__conj_physical(a), a[1].u.obj, "conj_physical");
}
PyObject *tn_op_conj_physical_(tn_value *a) {
    if (tn_dtype_is_complex(TN_T(a[0])->dtype) && negate_imag(a[0].u.obj) < 0) return NULL;
    return self_(a);
}

/* view_as_real: (..., 2) real view of a complex tensor (a conjugate view refuses, as upstream) */
PyObject *tn_op_view_as_real(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "view_as_real is only supported for complex tensors");
        return NULL;
    }
    if (t->math_bits & TN_BIT_CONJ) {
        PyErr_SetString(PyExc_RuntimeError, "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias the original.");
        return NULL;
    }
    if (t->ndim + 1 > TN_MAX_DIMS) return tn_not_implemented("view_as_real of a tensor with the most dimensions");
    PyObject *v = tn_tensor_new_view(a[0].u.obj, t->ndim, t->sizes, t->strides, t->offset);
    if (!v) return NULL;
    tn_tensor *r = tn_tensor_of(v);
    r->dtype = t->dtype == TN_DTYPE_C64 ? TN_DTYPE_F32 : t->dtype == TN_DTYPE_C128 ? TN_DTYPE_F64 : TN_DTYPE_F16;
    for (int i = 0; i < t->ndim; i++) r->strides[i] = t->strides[i] * 2;
    r->sizes[t->ndim] = 2;
    r->strides[t->ndim] = 1;
    r->ndim = t->ndim + 1;
    r->offset = t->offset * 2;
    return v;
}

/* view_as_complex: a (..., 2) float / double / half tensor as complex */
PyObject *tn_op_view_as_complex(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    const char *err = NULL;
    if (t->dtype != TN_DTYPE_F32 && t->dtype != TN_DTYPE_F64 && t->dtype != TN_DTYPE_F16) {
        PyErr_Format(PyExc_RuntimeError, "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: %s",
                     tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    if (t->ndim == 0) err = "Input tensor must have one or more dimensions";
    else if (t->sizes[t->ndim - 1] != 2) err = "Tensor must have a last dimension of size 2";
    else if (t->strides[t->ndim - 1] != 1) err = "Tensor must have a last dimension with stride 1";
    else {
        for (int i = 0; i < t->ndim - 1 && !err; i++)
            if (t->strides[i] % 2) err = "Tensor must have a stride divisible by 2 for all but last dimension";
        if (!err && t->offset % 2) err = "Tensor must have a storage_offset divisible by 2";
    }
    if (err) {
        PyErr_SetString(PyExc_RuntimeError, err);
        return NULL;
    }
    PyObject *v = tn_tensor_new_view(a[0].u.obj, t->ndim, t->sizes, t->strides, t->offset);
    if (!v) return NULL;
    tn_tensor *r = tn_tensor_of(v);
    r->dtype = t->dtype == TN_DTYPE_F32 ? TN_DTYPE_C64 : t->dtype == TN_DTYPE_F64 ? TN_DTYPE_C128 : TN_DTYPE_C32;
    r->ndim = t->ndim - 1;
    for (int i = 0; i < r->ndim; i++) r->strides[i] = t->strides[i] / 2;
    r->offset = t->offset / 2;
    return v;
}

/* real / imag (upstream's composites): a select of view_as_real (of the un-conjugated view; imag
 * of a conjugate view carries the negative bit) */
static PyObject *real_imag(PyObject *x, int part) {
    bool conj = (tn_tensor_of(x)->math_bits & TN_BIT_CONJ) != 0;
    PyObject *base = conj ? tn_at__conj(x) : Py_NewRef(x);
    PyObject *r = base ? tn_at_view_as_real(base) : NULL;
    Py_XDECREF(base);
    if (r && conj && part == 1) Py_SETREF(r, tn_at__neg_view(r));
    PyObject *s = r ? tn_at_select_int(r, tn_tensor_of(r)->ndim - 1, part) : NULL;
    Py_XDECREF(r);
    return s;
}
PyObject *tn_op_real(tn_value *a) {
    if (!tn_dtype_is_complex(TN_T(a[0])->dtype)) return self_(a);
    return real_imag(a[0].u.obj, 0);
}
PyObject *tn_op_imag(tn_value *a) {
    if (!tn_dtype_is_complex(TN_T(a[0])->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "imag is not implemented for tensors with non-complex dtypes.");
        return NULL;
    }
    return real_imag(a[0].u.obj, 1);
}

PyObject *tn_op_is_floating_point(tn_value *a) { return PyBool_FromLong(tn_dtype_is_floating(TN_T(a[0])->dtype)); }
PyObject *tn_op_is_complex(tn_value *a) { return PyBool_FromLong(tn_dtype_is_complex(TN_T(a[0])->dtype)); }
PyObject *tn_op_is_signed(tn_value *a) {
    tn_dtype_kind k = tn_dtype_infos[TN_T(a[0])->dtype].kind;
    return PyBool_FromLong(k != TN_KIND_UINT && k != TN_KIND_BOOL && k != TN_KIND_SUBBYTE_UINT);
}

/* is_pinned(self, device=None): no accelerator, so no memory is pinned */
PyObject *tn_op_is_pinned(tn_value *a) {
    if (a[1].tag != TN_V_NONE &&
        PyErr_WarnEx(PyExc_DeprecationWarning, "The argument 'device' of Tensor.is_pinned() is deprecated. Please do not "
                                               "pass this argument.", 1) < 0)
        return NULL;
    Py_RETURN_FALSE;
}

/* pin_memory(self, device=None): upstream's composite asks is_pinned, then _pin_memory, which
 * needs an accelerator's pinned-memory allocator; this build has none, so it raises upstream's
 * CPU-only errors (measured on 2.13.0). */
PyObject *tn_op__pin_memory(tn_value *a) {
    if (a[1].tag == TN_V_DEVICE && a[1].u.device.type == TN_DEVICE_CPU)
        PyErr_SetString(PyExc_RuntimeError, "CPU device type not an accelerator.");
    else
        PyErr_SetString(PyExc_RuntimeError, "Cannot access accelerator device when none is available.");
    return NULL;
}
PyObject *tn_op_pin_memory(tn_value *a) {
    if (a[1].tag != TN_V_NONE &&
        PyErr_WarnEx(PyExc_DeprecationWarning, "The argument 'device' of Tensor.pin_memory() is deprecated. Please do "
                                               "not pass this argument.", 1) < 0)
        return NULL;
    PyObject *pinned = tn_at_is_pinned(a[0].u.obj, Py_None);
    if (!pinned) return NULL;
    int yes = PyObject_IsTrue(pinned);
    Py_DECREF(pinned);
    if (yes) return Py_NewRef(a[0].u.obj);
    return tn_op__pin_memory(a);
}

PyObject *tn_op_is_same_size(tn_value *a) {
    tn_tensor *x = TN_T(a[0]), *y = TN_T(a[1]);
    return PyBool_FromLong(x->ndim == y->ndim && !memcmp(x->sizes, y->sizes, (size_t)x->ndim * sizeof(int64_t)));
}

PyObject *tn_op_conj(tn_value *a) {
    if (tn_dtype_is_complex(TN_T(a[0])->dtype)) return tn_at__conj(a[0].u.obj);
    return self_(a);
}

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

/* ---- geometry and autograd queries (upstream answers them inline in C++; these are the aten
 * spellings, torch.ops.aten.numel(x) / torch.numel(x) / torch.get_device(x), ...) ---- */

/* a strided nested tensor's Tensor methods (python/tensor.c) read its component metadata */
static bool nested(tn_value *a) { return ((tn_tensor_obj *)a[0].u.obj)->nested != NULL; }
static PyObject *method(tn_value *a, const char *name, PyObject *arg) {
    return PyObject_CallMethod(a[0].u.obj, name, arg ? "O" : NULL, arg);
}

PyObject *tn_op_numel(tn_value *a) { return PyLong_FromLongLong(tn_numel(TN_T(a[0]))); }   /* nested: the buffer's */
PyObject *tn_op_sym_numel(tn_value *a) { return tn_op_numel(a); }
PyObject *tn_op_dim(tn_value *a) { return nested(a) ? method(a, "dim", NULL) : PyLong_FromLong(TN_T(a[0])->ndim); }
PyObject *tn_op_dense_dim(tn_value *a) { return tn_op_dim(a); }   /* strided: every dim is dense */
PyObject *tn_op_sparse_dim(tn_value *a) { return PyLong_FromLong(0); }
PyObject *tn_op_storage_offset(tn_value *a) { return nested(a) ? method(a, "storage_offset", NULL) : PyLong_FromLongLong(TN_T(a[0])->offset); }
PyObject *tn_op_sym_storage_offset(tn_value *a) { return tn_op_storage_offset(a); }
PyObject *tn_op_get_device(tn_value *a) { return PyLong_FromLong(-1); }   /* CPU and meta tensors */

static PyObject *size_or_stride(tn_value *a, bool stride) {
    const tn_tensor *t = TN_T(a[0]);
    int d;
    if (nested(a)) {
        PyObject *dim = PyLong_FromLongLong(a[1].u.i), *r = dim ? method(a, stride ? "stride" : "size", dim) : NULL;
        Py_XDECREF(dim);
        return r;
    }
    if (t->ndim == 0)
        return PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)a[1].u.i);
    if (tn_wrap_dim_i(a[1].u.i, t->ndim, &d) < 0) return NULL;
    return PyLong_FromLongLong(stride ? t->strides[d] : t->sizes[d]);
}
PyObject *tn_op_size_int(tn_value *a) { return size_or_stride(a, false); }
PyObject *tn_op_sym_size_int(tn_value *a) { return size_or_stride(a, false); }
PyObject *tn_op_stride_int(tn_value *a) { return size_or_stride(a, true); }
PyObject *tn_op_sym_stride_int(tn_value *a) { return size_or_stride(a, true); }

PyObject *tn_op_is_contiguous(tn_value *a) { return nested(a) ? method(a, "is_contiguous", NULL) : PyBool_FromLong(tn_is_contiguous(TN_T(a[0]))); }
static PyObject *contiguous_as(tn_value *a) {
    if (nested(a)) return method(a, "is_contiguous", NULL);   /* whatever the format, as upstream's */
    int fmt = a[1].tag == TN_V_MEMFORMAT ? tn_py_memformat_code(a[1].u.obj) : 0;
    return PyBool_FromLong(fmt >= 0 && tn_is_contiguous_as(TN_T(a[0]), fmt));
}
PyObject *tn_op_is_contiguous_memory_format(tn_value *a) { return contiguous_as(a); }
PyObject *tn_op_sym_is_contiguous(tn_value *a) { return contiguous_as(a); }

PyObject *tn_op_is_coalesced(tn_value *a) {
    PyErr_SetString(PyExc_RuntimeError, "is_coalesced expected sparse coordinate tensor layout but got Strided");
    return NULL;
}

/* the autograd state lives on the Python tensor (python/tensor.c): its attributes answer */
static PyObject *attr(tn_value *a, const char *name) { return PyObject_GetAttrString(a[0].u.obj, name); }
PyObject *tn_op_is_leaf(tn_value *a) { return attr(a, "is_leaf"); }
PyObject *tn_op_output_nr(tn_value *a) { return attr(a, "output_nr"); }
PyObject *tn_op__version(tn_value *a) { return attr(a, "_version"); }
PyObject *tn_op_retains_grad(tn_value *a) { return attr(a, "retains_grad"); }
PyObject *tn_op_data(tn_value *a) { return attr(a, "data"); }
PyObject *tn_op_requires_grad_(tn_value *a) {
    return PyObject_CallMethod(a[0].u.obj, "requires_grad_", "O", a[1].u.i ? Py_True : Py_False);
}
