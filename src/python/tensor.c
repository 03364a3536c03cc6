/* tensor.c — torch._C.TensorBase (its metaclass _TensorMeta) and torch._C.StorageBase.
 *
 * A tensor object owns one reference to a tn_storage and carries geometry (tn_tensor) plus the
 * autograd fields. Operators are not here: they reach tensors through the door (functions.c).
 * Here live only the manual members upstream binds by hand (size, stride, dim, data_ptr, ...). */
#include "python/tensor.h"
#include "python/arg_errors.h"
#include "dispatch/functorch.h"
#include "dispatch/subclass.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------- lifetime ---------- */

static int tensor_traverse(PyObject *self, visitproc visit, void *arg) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    Py_VISIT(o->dict);
    Py_VISIT(o->grad);
    Py_VISIT(o->grad_fn);
    Py_VISIT(o->base);
    Py_VISIT(o->fw_grad);
    for (int i = 0; i < o->fw_nmore; i++) Py_VISIT(o->fw_more[i].g);
    Py_VISIT(o->bt_value);
    Py_VISIT(o->layout);
    if (o->sparse) { Py_VISIT(o->sparse->indices); Py_VISIT(o->sparse->values); Py_VISIT(o->sparse->plain); }
    if (o->quant) { Py_VISIT(o->quant->scales); Py_VISIT(o->quant->zero_points); }
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int tensor_clear(PyObject *self) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    Py_CLEAR(o->dict);
    Py_CLEAR(o->grad);
    Py_CLEAR(o->grad_fn);
    Py_CLEAR(o->base);
    Py_CLEAR(o->grad_acc);
    Py_CLEAR(o->fw_grad);
    for (int i = 0; i < o->fw_nmore; i++) Py_CLEAR(o->fw_more[i].g);
    PyMem_Free(o->fw_more);
    o->fw_more = NULL;
    o->fw_nmore = 0;
    if (o->bt_value) tn_bt_live--;
    Py_CLEAR(o->bt_value);
    Py_CLEAR(o->layout);
    tn_nested_set(self, NULL);   /* frees a nested tensor's metadata; cannot fail */
    tn_sparse_set(self, NULL);   /* releases a sparse tensor's indices and values; cannot fail */
    tn_quant_set(self, NULL);    /* and a quantized tensor's quantizer */
    return 0;
}

static void tensor_dealloc(PyObject *self) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (o->weakrefs) PyObject_ClearWeakRefs(self);
    tensor_clear(self);
    tn_storage_decref(o->t.storage);
    o->t.storage = NULL;
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}


/* TensorBase(...) directly: upstream only allows subclass construction through _make_subclass
 * or the legacy torch.Tensor(...) constructor: Tensor.new on the default dtype (legacy_new:
 * sizes, a storage, data), or an alias of a tensor of any dtype. */
static PyObject *tensor_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    if (tp == tn_py.TensorBase) {
        PyErr_SetString(PyExc_RuntimeError, "Cannot create TensorBase directly; use torch.Tensor or torch.empty");
        return NULL;
    }
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *r;
    if (n == 1 && tn_py_is_tensor(PyTuple_GetItem(args, 0)) && !(kw && PyDict_Size(kw)))
        r = tn_at_alias(PyTuple_GetItem(args, 0));   /* other.alias(), any dtype, as upstream */
    else
        r = tn_legacy_tensor_new(tn_py.default_dtype, TN_DEVICE_CPU, args, kw);
    if (!r || Py_TYPE(r) == tp) return r;
    tn_tensor t = *tn_tensor_of(r);
    tn_storage_incref(t.storage);
    Py_DECREF(r);
    tn_tensor_obj *o = (tn_tensor_obj *)tn_obj_alloc(tp);
    if (!o) { tn_storage_decref(t.storage); return NULL; }
    o->t = t;
    return (PyObject *)o;
}

/* ---------- geometry members ---------- */

/* an int argument read as upstream's THPUtils_unpackLong: out of int64, ValueError "Overflow when
 * unpacking long long" (x.size(2**63), storage[2**63]) */
static int unpack_long(PyObject *arg, long long *d) {
    int of;
    *d = PyLong_AsLongLongAndOverflow(arg, &of);
    if (of) PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
    return of || (*d == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* size(d) / stride(d) of a 0-dim tensor: upstream refuses any d (measured) */
static PyObject *no_dims(PyObject *arg) {
    long long d;
    if (unpack_long(arg, &d) < 0) return NULL;
    return PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", d);
}

static int parse_dim(PyObject *self, PyObject *arg, int *out) {
    int nd = tn_tensor_of(self)->ndim, lim = nd ? nd : 1;
    long long d;
    if (unpack_long(arg, &d) < 0) return -1;
    if (d < -lim || d >= lim) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                     -lim, lim - 1, d);
        return -1;
    }
    *out = (int)(d < 0 ? d + lim : d);
    return 0;
}

static PyObject *int_tuple(int n, const int64_t *v) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SetItem(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

/* ---- metadata a wrapper subclass asked to answer itself (dispatch/subclass.c) ----
 * As upstream's TensorImpl with python_custom_sizes_strides / device / layout: "sizes" sends
 * sym_size, sym_stride, dim, sym_numel, sym_storage_offset and is_contiguous to the class's
 * __torch_dispatch__, "strides" only sym_stride and is_contiguous; a None answer (sizes, strides,
 * numel, offset, contiguity) means the tensor's own, dim must answer an int. */
static bool custom(PyObject *self, uint8_t bit) { return (((tn_tensor_obj *)self)->py_policy & bit) != 0; }

static PyObject *query(PyObject *self, const char *name) { return tn_subclass_query(self, "aten", name); }

/* dim under the "sizes" policy: -1 with an error */
static int custom_dim(PyObject *self) {
    PyObject *r = query(self, "dim");
    if (!r) return -1;
    if (!PyLong_Check(r)) {
        PyErr_Format(PyExc_RuntimeError, "dim returned invalid type %s, expected int", tn_py_type_name(r));
        Py_DECREF(r);
        return -1;
    }
    long d = PyLong_AsLong(r);
    Py_DECREF(r);
    return (int)d;
}

/* sizes or strides under the policy as a tuple (torch.Size for sizes); NULL with an error */
static PyObject *custom_list(PyObject *self, bool sizes) {
    PyObject *r = query(self, sizes ? "sym_size" : "sym_stride");
    if (!r) return NULL;
    tn_tensor *t = tn_tensor_of(self);
    if (r == Py_None) {
        Py_DECREF(r);
        if (sizes) return tn_py_size_new(t->ndim, t->sizes);
        PyObject *tup = PyTuple_New(t->ndim);
        for (int i = 0; tup && i < t->ndim; i++) PyTuple_SetItem(tup, i, PyLong_FromLongLong(t->strides[i]));
        return tup;
    }
    PyObject *tup = PySequence_Tuple(r);
    Py_DECREF(r);
    if (!tup || !sizes) return tup;
    PyObject *sz = PyObject_CallFunctionObjArgs((PyObject *)tn_py.size_type, tup, NULL);
    Py_DECREF(tup);
    return sz;
}

static PyObject *custom_item(PyObject *self, PyObject *list, PyObject *dim) {
    if (!list) return NULL;
    Py_ssize_t n = PyTuple_Size(list), lim = n ? n : 1;
    long d = PyLong_AsLong(dim);
    if (d == -1 && PyErr_Occurred()) { Py_DECREF(list); return NULL; }
    if (d < -lim || d >= lim) {
        Py_DECREF(list);
        return PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%zd, %zd], but got %ld)",
                            -lim, lim - 1, d);
    }
    if (!n) { Py_DECREF(list); return PyLong_FromLong(1); }
    PyObject *r = Py_NewRef(PyTuple_GetItem(list, d < 0 ? d + n : d));
    Py_DECREF(list);
    return r;
}

/* ---- a strided nested tensor (core/object.h tn_nested): upstream's NestedTensorImpl answers dim,
 * numel and size(d) of a regular dim, and refuses sizes() and strides() whole */
static PyObject *nested_refuse(const char *what) {
    return PyErr_Format(PyExc_RuntimeError, "Internal error: NestedTensorImpl doesn't support %s. Please file an issue.", what);
}
static PyObject *nested_size(PyObject *self, const tn_nested *nt, PyObject *dim) {
    int nd = nt->dim + 1;
    long d = PyLong_AsLong(dim);
    if (d == -1 && PyErr_Occurred()) return NULL;
    if (d < -nd || d >= nd)
        return PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %ld)", -nd, nd - 1, d);
    if (d < 0) d += nd;
    if (d == 0) return PyLong_FromLongLong(nt->n);
    bool regular = nt->n > 0;
    for (int64_t i = 1; i < nt->n; i++) regular = regular && nt->sizes[i * nt->dim + d - 1] == nt->sizes[d - 1];
    if (!regular) return PyErr_Format(PyExc_RuntimeError, "Given dimension %ld is irregular and does not have a size.", d);
    return PyLong_FromLongLong(nt->sizes[d - 1]);
}

/* A hand-written method's bad arguments: upstream's TypeError (python/arg_errors.c), else the
 * one already set. */
static PyObject *arg_error(const char *name, PyObject *args, PyObject *kw) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (tn_arg_error(name, true, args, kw)) {
        Py_XDECREF(type); Py_XDECREF(value); Py_XDECREF(tb);
    } else {
        PyErr_Restore(type, value, tb);
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments", name);
    }
    return NULL;
}

static PyObject *m_size(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dim", NULL};
    PyObject *dim = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:size", kws, &dim) ||
        (dim && dim != Py_None && (PyBool_Check(dim) || !PyIndex_Check(dim))))
        return arg_error("size", args, kw);
    if (custom(self, TN_PY_SIZES)) {
        if (dim && dim != Py_None && custom_dim(self) < 0) return NULL;
        PyObject *l = custom_list(self, true);
        return dim && dim != Py_None ? custom_item(self, l, dim) : l;
    }
    tn_tensor *t = tn_tensor_of(self);
    tn_nested *nt = ((tn_tensor_obj *)self)->nested;
    if (nt) return !dim || dim == Py_None ? nested_refuse("sizes") : nested_size(self, nt, dim);
    if (!dim || dim == Py_None) return tn_py_size_new(t->ndim, t->sizes);
    int d;
    if (!t->ndim) return no_dims(dim);
    if (parse_dim(self, dim, &d) < 0) return NULL;
    return PyLong_FromLongLong(t->sizes[d]);
}

/* a sparse compressed tensor has no strides (upstream's SparseCsrTensorImpl: "Sparse CSR tensors do
 * not have strides", the layout's name upper-cased) */
static const char *const compressed_names[] = {"", "CSR", "CSC", "BSR", "BSC"};
static PyObject *no_strides(PyObject *self, const char *what) {
    return PyErr_Format(PyExc_RuntimeError, "Sparse %s tensors do not have %s", compressed_names[tn_compressed_of(self)->kind], what);
}
static PyObject *m_stride(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dim", NULL};
    PyObject *dim = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:stride", kws, &dim) ||
        (dim && dim != Py_None && (PyBool_Check(dim) || !PyIndex_Check(dim))))
        return arg_error("stride", args, kw);
    if (custom(self, TN_PY_STRIDES | TN_PY_SIZES)) {
        PyObject *l = custom_list(self, false);
        return dim && dim != Py_None ? custom_item(self, l, dim) : l;
    }
    tn_tensor *t = tn_tensor_of(self);
    if (((tn_tensor_obj *)self)->nested) return nested_refuse("strides");
    if (tn_compressed_of(self)) return no_strides(self, "strides");
    if (!dim || dim == Py_None) return int_tuple(t->ndim, t->strides);
    int d;
    if (!t->ndim) return no_dims(dim);
    if (parse_dim(self, dim, &d) < 0) return NULL;
    return PyLong_FromLongLong(t->strides[d]);
}

static PyObject *m_dim(PyObject *self, PyObject *unused) {
    if (custom(self, TN_PY_SIZES)) {
        int d = custom_dim(self);
        return d < 0 && PyErr_Occurred() ? NULL : PyLong_FromLong(d);
    }
    tn_nested *nt = ((tn_tensor_obj *)self)->nested;
    return PyLong_FromLong(nt ? nt->dim + 1 : tn_tensor_of(self)->ndim);
}
static PyObject *m_numel(PyObject *self, PyObject *unused) {
    if (custom(self, TN_PY_SIZES)) {
        PyObject *r = query(self, "sym_numel");
        if (r != Py_None) return r;
        Py_DECREF(r);
    }
    tn_nested *nt = ((tn_tensor_obj *)self)->nested;
    return PyLong_FromLongLong(nt ? tn_nested_numel(nt) : tn_numel(tn_tensor_of(self)));
}
static PyObject *m_element_size(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(tn_dtype_itemsize(tn_tensor_of(self)->dtype));
}
static PyObject *m_storage_offset(PyObject *self, PyObject *unused) {
    if (custom(self, TN_PY_SIZES)) {
        PyObject *r = query(self, "sym_storage_offset");
        if (r != Py_None) return r;
        Py_DECREF(r);
    }
    return PyLong_FromLongLong(tn_tensor_of(self)->offset);
}
/* a sparse COO tensor has no storage of its own (upstream's SparseTensorImpl) */
static PyObject *no_storage(void) {
    PyErr_SetString(PyExc_RuntimeError, "Cannot access data pointer of Tensor that doesn't have storage");
    return NULL;
}
/* a storage FakeTensorMode marked (tn_storage.data_ptr_guard): upstream's warning (once per process,
 * measured: four accesses on two tensors and a storage warn once) or error; -1 raised */
static bool data_ptr_warned;
static int data_ptr_guard(const tn_storage *s) {
    if (s->data_ptr_guard == 2) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Cannot access data pointer of Tensor (e.g. FakeTensor, FunctionalTensor). If you're using "
                        "torch.compile/export/fx, it is likely that we are erroneously tracing into a custom kernel. To "
                        "fix this, please wrap the custom kernel into an opaque custom op. Please see the following for "
                        "details: https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html");
        return -1;
    }
    if (s->data_ptr_guard == 1 && !data_ptr_warned) {
        data_ptr_warned = true;
        return PyErr_WarnEx(PyExc_UserWarning,
                            "Accessing the data pointer of FakeTensor is deprecated and will error in PyTorch 2.5. This is "
                            "almost definitely a bug in your code and will cause undefined behavior with subsystems like "
                            "torch.compile. Please wrap calls to tensor.data_ptr() in an opaque custom op; If all else "
                            "fails, you can guard accesses to tensor.data_ptr() on isinstance(tensor, FakeTensor).", 1);
    }
    return 0;
}
static PyObject *m_data_ptr(PyObject *self, PyObject *unused) {
    if (((tn_tensor_obj *)self)->sparse) return no_storage();
    if (data_ptr_guard(tn_tensor_of(self)->storage) < 0) return NULL;
    return PyLong_FromVoidPtr(tn_data(tn_tensor_of(self)));
}
static PyObject *m_is_contiguous(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"memory_format", NULL};
    PyObject *mf = NULL;
    if (PyTuple_Size(args) > 0) {
        PyErr_Format(PyExc_TypeError, "is_contiguous() takes 0 positional arguments but %zd %s given", PyTuple_Size(args),
                     PyTuple_Size(args) == 1 ? "was" : "were");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$O:is_contiguous", kws, &mf)) return NULL;
    if (custom(self, TN_PY_STRIDES | TN_PY_SIZES) && tn_py_memformat_code(mf) == 0) {
        PyObject *r = query(self, "is_contiguous");
        if (r != Py_None) return r;
        Py_DECREF(r);
    }
    int code = tn_py_memformat_code(mf);
    if (code < 0 || mf == Py_None) { /* torch's own types by their qualified name, as upstream prints them */
        PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(mf), "__module__");
        bool torch_type = mod && PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "torch") == 0;
        Py_XDECREF(mod);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "is_contiguous(): argument 'memory_format' must be torch.memory_format, not %s%s",
                     torch_type ? "torch." : "", tn_py_type_name(mf));
        return NULL;
    }
    tn_nested *nt = ((tn_tensor_obj *)self)->nested;
    if (tn_compressed_of(self)) return no_strides(self, "is_contiguous");
    if (nt) return PyBool_FromLong(tn_nested_is_contiguous(nt));   /* whatever the memory format, as upstream */
    return PyBool_FromLong(tn_is_contiguous_as(tn_tensor_of(self), code == 1 ? 0 : code));
}
static PyObject *m_is_floating_point(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(tn_dtype_is_floating(tn_tensor_of(self)->dtype));
}
static PyObject *m_is_complex(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(tn_dtype_is_complex(tn_tensor_of(self)->dtype));
}
static PyObject *m_is_signed(PyObject *self, PyObject *unused) {
    tn_dtype_kind k = tn_dtype_infos[tn_tensor_of(self)->dtype].kind;
    return PyBool_FromLong(k != TN_KIND_UINT && k != TN_KIND_BOOL && k != TN_KIND_SUBBYTE_UINT);
}
static PyObject *m_untyped_storage(PyObject *self, PyObject *unused) {
    if (((tn_tensor_obj *)self)->sparse) {
        PyErr_SetString(PyExc_NotImplementedError, tn_compressed_of(self) ? "Cannot access storage of SparseCsrTensorImpl"
                                                                          : "Cannot access storage of SparseTensorImpl");
        return NULL;
    }
    return tn_storage_to_python(tn_tensor_of(self)->storage);
}
static PyObject *m_is_view(PyObject *self, PyObject *unused) {
    /* views of inference tensors are not tracked as views (upstream: no autograd meta) */
    return PyBool_FromLong(((tn_tensor_obj *)self)->base != NULL && !tn_tensor_of(self)->storage->inference);
}
static PyObject *set_requires_grad(PyObject *self, PyObject *args, PyObject *kw);
/* Tensor.requires_grad_() inside a torch.func transform is upstream's error unless torch.func's
 * own Python allows it (set_inplace_requires_grad_allowed); the attribute setter is not checked */
static PyObject *m_requires_grad_(PyObject *self, PyObject *args, PyObject *kw) {
    if (tn_functorch_depth() && !tn_functorch_inplace_rg_allowed()) {
        PyErr_SetString(PyExc_RuntimeError,
                        "You are attempting to call Tensor.requires_grad_() (or perhaps using "
                        "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
                        "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, "
                        "vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
                        "transformed instead.");
        return NULL;
    }
    return set_requires_grad(self, args, kw);
}
static PyObject *set_requires_grad(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"requires_grad", NULL};
    PyObject *rgo = Py_True;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:requires_grad_", kws, &rgo) || !PyBool_Check(rgo))
        return arg_error("requires_grad_", args, kw);
    int rg = rgo == Py_True;
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    if (rg && o->t.storage->inference && !tn_inference_mode()) {
        PyErr_SetString(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
        return NULL;
    }
    if (rg && !tn_dtype_is_floating(o->t.dtype) && !tn_dtype_is_complex(o->t.dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    if (!rg && o->grad_fn) {
        PyErr_SetString(PyExc_RuntimeError, "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
        return NULL;
    }
    o->requires_grad = rg;
    return Py_NewRef(self);
}

static int policy_bits(PyObject *pol);

/* device_for_backend_keys: a torch.device (or what torch.device accepts, with its errors) as
 * 1 + its device type; only cpu and meta exist here, another type is refused by name */
static int backend_key_device(PyObject *dev) {
    PyObject *d = PyObject_CallFunctionObjArgs((PyObject *)tn_py.device_type, dev, NULL);
    PyObject *ty = d ? PyObject_GetAttrString(d, "type") : NULL;
    Py_XDECREF(d);
    const char *s = ty ? PyUnicode_AsUTF8AndSize(ty, NULL) : NULL;
    int r = !s ? -1 : !strcmp(s, "cpu") ? 1 + TN_DEVICE_CPU : !strcmp(s, "meta") ? 1 + TN_DEVICE_META : 0;
    if (s && !r) {
        char what[96];
        snprintf(what, sizeof what, "Tensor._make_subclass(device_for_backend_keys=%s)", s);
        tn_not_implemented(what);
        r = -1;
    }
    Py_XDECREF(ty);
    return r;
}

/* Tensor._make_subclass(cls, data, require_grad=False): a new `cls` object aliasing data. */
static PyObject *m_make_subclass(PyObject *unused, PyObject *args, PyObject *kw) {
    static char *kws[] = {"cls", "data", "require_grad", "dispatch_sizes_strides_policy",
                          "dispatch_device", "dispatch_layout", "_extra_dispatch_keys",
                          "storage_size", "device_for_backend_keys", NULL};
    PyObject *cls, *data, *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL, *kdev = NULL;
    int rg = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|pOOOOOO:_make_subclass", kws, &cls, &data, &rg,
                                     &a, &b, &c, &d, &e, &kdev))
        return NULL;
    int key_device = kdev && kdev != Py_None ? backend_key_device(kdev) : 0;
    if (key_device < 0) return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, tn_py.TensorBase)) {
        PyErr_SetString(PyExc_TypeError, "cls must be a subclass of torch.Tensor");
        return NULL;
    }
    if (!tn_py_is_tensor(data)) {
        PyErr_SetString(PyExc_TypeError, "data must be a Tensor");
        return NULL;
    }
    tn_tensor_obj *o = (tn_tensor_obj *)tn_obj_alloc((PyTypeObject *)cls);
    if (!o) return NULL;
    o->t = *tn_tensor_of(data);
    tn_storage_incref(o->t.storage);
    if (tn_nested_set((PyObject *)o, ((tn_tensor_obj *)data)->nested) < 0 || tn_tensor_copy_sparse((PyObject *)o, data) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    if (rg && !tn_dtype_is_floating(o->t.dtype) && !tn_dtype_is_complex(o->t.dtype)) {
        Py_DECREF(o);
        PyErr_SetString(PyExc_RuntimeError, "Only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    if (rg && o->t.storage->inference && !tn_inference_mode()) {   /* nn.Parameter(inference tensor) */
        Py_DECREF(o);
        PyErr_SetString(PyExc_RuntimeError, "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
        return NULL;
    }
    o->requires_grad = rg;
    int bits = policy_bits(a);
    int b_dev = b ? PyObject_IsTrue(b) : 0, b_lay = c ? PyObject_IsTrue(c) : 0;
    if (bits < 0 || b_dev < 0 || b_lay < 0) { Py_DECREF(o); return NULL; }
    o->py_policy = (uint8_t)(bits | (b_dev ? TN_PY_DEVICE : 0) | (b_lay ? TN_PY_LAYOUT : 0));
    o->key_device = (uint8_t)key_device;
    return (PyObject *)o;
}

/* dispatch_sizes_strides_policy: None, "strides" or "sizes" (upstream's
 * parseSizesStridesPolicyArgument) as TN_PY_* bits; -1 with ValueError */
static int policy_bits(PyObject *pol) {
    if (!pol || pol == Py_None) return 0;
    const char *p = PyUnicode_Check(pol) ? PyUnicode_AsUTF8AndSize(pol, NULL) : NULL;
    if (!p) {
        PyErr_Format(PyExc_TypeError, "dispatch_sizes_strides_policy must be str or None, not %s", tn_py_type_name(pol));
        return -1;
    }
    if (!strcmp(p, "strides")) return TN_PY_STRIDES;
    if (!strcmp(p, "sizes")) return TN_PY_SIZES;
    PyErr_Format(PyExc_ValueError, "Unknown sizes_strides_policy: %s; expected 'strides' or 'sizes'", p);
    return -1;
}

/* a tuple of ints for size / strides; -1 with upstream's TypeError */
static int int_list_arg(PyObject *o, const char *name, int pos, int64_t *out, int *n, bool symbolic) {
    PyObject *seq = PyTuple_Check(o) || PyList_Check(o) || PyObject_TypeCheck(o, tn_py.size_type) ? PySequence_Tuple(o) : NULL;
    Py_ssize_t len = seq ? PyTuple_Size(seq) : -1;
    bool ok = seq && len <= TN_MAX_DIMS;
    for (Py_ssize_t i = 0; ok && i < len; i++) {
        PyObject *e = PyTuple_GetItem(seq, i);
        ok = !PyFloat_Check(e) && !PyBool_Check(e);
        if (ok && symbolic && tn_py_is_symint(e)) {
            /* a torch.SymInt (a jagged tensor's nested int): the class answers its sizes itself
             * (the "sizes" policy); C keeps 0 there */
            out[i] = 0;
            continue;
        }
        PyObject *v = ok ? PyNumber_Index(e) : NULL;
        ok = v != NULL;
        if (v) { out[i] = PyLong_AsLongLong(v); Py_DECREF(v); ok = !PyErr_Occurred(); }
    }
    if (!ok) {
        bool too_many = seq && len > TN_MAX_DIMS;
        Py_XDECREF(seq);
        PyErr_Clear();
        if (too_many) {
            PyErr_Format(PyExc_RuntimeError, "torchnative: tensors of more than %d dimensions are not supported", TN_MAX_DIMS);
            return -1;
        }
        PyErr_Format(PyExc_TypeError, "_make_wrapper_subclass(): argument '%s' (position %d) must be tuple of ints, not %s",
                     name, pos, tn_py_type_name(o));
        return -1;
    }
    *n = (int)len;
    Py_DECREF(seq);
    return 0;
}

/* Tensor._make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None,
 * dtype=None, layout=torch.strided, device=None, pin_memory=False, requires_grad=False,
 * dispatch_sizes_strides_policy=None, dispatch_device=False, dispatch_layout=False,
 * _extra_dispatch_keys=None, storage_size=None): a `cls` tensor with this metadata and a storage
 * of upstream's byte size that holds no bytes (dispatch/subclass.c); cls must define
 * __torch_dispatch__, which then receives every operation on it. memory_format is accepted and
 * unused, as upstream's. */
static PyObject *m_make_wrapper_subclass(PyObject *unused, PyObject *args, PyObject *kw) {
    static char *kws[] = {"cls", "size", "strides", "storage_offset", "memory_format", "dtype", "layout", "device",
                          "pin_memory", "requires_grad", "dispatch_sizes_strides_policy", "dispatch_device",
                          "dispatch_layout", "_extra_dispatch_keys", "storage_size", NULL};
    PyObject *cls, *size, *strides = Py_None, *offset = Py_None, *mf = Py_None, *dtype = Py_None, *layout = Py_None,
             *device = Py_None, *pin = Py_False, *rg = Py_False, *pol = Py_None, *ddev = Py_False, *dlay = Py_False,
             *keys = Py_None, *ssize = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOOOOOOOOOO:_make_wrapper_subclass", kws, &cls, &size, &strides,
                                     &offset, &mf, &dtype, &layout, &device, &pin, &rg, &pol, &ddev, &dlay, &keys, &ssize))
        return NULL;
    if (!PyType_Check(cls))
        return PyErr_Format(PyExc_TypeError, "cls must be a type (got %s)", tn_py_type_name(cls));
    if (!PyType_IsSubtype((PyTypeObject *)cls, tn_py.TensorBase)) {
        PyErr_SetString(PyExc_TypeError, "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                                         "possible. Make sure your class inherits from Tensor.");
        return NULL;
    }
    PyObject *td = PyObject_GetAttrString(cls, "__torch_dispatch__");
    PyObject *dis = td ? PyObject_GetAttrString(tn_py.module, "_disabled_torch_dispatch_impl") : NULL;
    PyObject *fn = td ? PyObject_GetAttrString(td, "__func__") : NULL;
    PyErr_Clear();
    bool defined = td && (fn ? fn : td) != dis;
    Py_XDECREF(td); Py_XDECREF(dis); Py_XDECREF(fn);
    if (!defined) {
        PyObject *qn = PyType_GetName((PyTypeObject *)cls);
        if (qn) PyErr_Format(PyExc_TypeError, "%U must define __torch_dispatch__", qn);
        Py_XDECREF(qn);
        return NULL;
    }
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    int nd, nst = -1;
    int bits = policy_bits(pol);
    if (bits < 0) return NULL;
    if (int_list_arg(size, "size", 2, sz, &nd, bits == TN_PY_SIZES) < 0) return NULL;
    if (strides != Py_None && int_list_arg(strides, "strides", 3, st, &nst, bits == TN_PY_SIZES) < 0) return NULL;
    int64_t off = 0;
    if (offset != Py_None) {
        PyObject *v = PyNumber_Index(offset);
        if (!v) return NULL;
        off = PyLong_AsLongLong(v);
        Py_DECREF(v);
        if (off == -1 && PyErr_Occurred()) return NULL;
        if (nst < 0) {
            PyErr_SetString(PyExc_RuntimeError, "setting storage offset without stride not supported");
            return NULL;
        }
    }
    if (nst >= 0 && nst != nd)
        return PyErr_Format(PyExc_RuntimeError, "dimensionality of sizes (%d) must match dimensionality of strides (%d)", nd, nst);
    tn_dtype dt = tn_py.default_dtype;
    if (dtype != Py_None && tn_py_to_dtype(dtype, &dt) < 0) return NULL;
    tn_device_type dev = TN_DEVICE_CPU;
    int dix = -1;
    if (device != Py_None && tn_py_parse_device(device, &dev, &dix) < 0) return NULL;
    if (layout != Py_None && !PyObject_TypeCheck(layout, tn_py.layout_type))
        return PyErr_Format(PyExc_TypeError, "_make_wrapper_subclass(): argument 'layout' (position 7) must be torch.layout, not %s",
                            tn_py_type_name(layout));
    int b_rg = PyObject_IsTrue(rg), b_dev = PyObject_IsTrue(ddev), b_lay = PyObject_IsTrue(dlay);
    if (b_rg < 0 || b_dev < 0 || b_lay < 0) return NULL;
    /* upstream's computeStorageNbytes[Contiguous] unless storage_size says */
    int64_t numel = 1, itemsize = tn_dtype_itemsize(dt);
    for (int i = 0; i < nd; i++) {
        if (sz[i] < 0) return PyErr_Format(PyExc_RuntimeError, "numel: integer multiplication overflow");
        if (sz[i] && numel > INT64_MAX / sz[i]) return PyErr_Format(PyExc_RuntimeError, "numel: integer multiplication overflow");
        numel *= sz[i];
    }
    if (nst < 0) {   /* contiguous strides */
        int64_t acc = 1;
        for (int i = nd - 1; i >= 0; i--) { st[i] = acc; acc *= sz[i] > 1 ? sz[i] : 1; }
    }
    int64_t nbytes = 0;
    if (ssize != Py_None) {
        PyObject *v = PyNumber_Index(ssize);
        if (!v) return NULL;
        nbytes = PyLong_AsLongLong(v);
        Py_DECREF(v);
        if (nbytes == -1 && PyErr_Occurred()) return NULL;
    } else if (numel) {
        int64_t span = 1;
        for (int i = 0; i < nd; i++) span += (sz[i] - 1) * st[i];
        nbytes = (off + span) * itemsize;
    }
    if (b_rg && !tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt)) {
        PyErr_SetString(PyExc_RuntimeError, "Only Tensors of floating point and complex dtype can require gradients");
        return NULL;
    }
    tn_storage *stor = tn_storage_new(0, dev == TN_DEVICE_META ? TN_DEVICE_META : TN_DEVICE_CPU);
    if (!stor) return PyErr_NoMemory();
    stor->nbytes = (size_t)(nbytes > 0 ? nbytes : 0);
    stor->no_data = true;
    tn_tensor_obj *o = (tn_tensor_obj *)tn_obj_alloc((PyTypeObject *)cls);
    if (!o) { tn_storage_decref(stor); return NULL; }
    memset(&o->t, 0, sizeof o->t);
    o->t.storage = stor;
    o->t.dtype = dt;
    o->t.ndim = nd;
    o->t.offset = off;
    memcpy(o->t.sizes, sz, (size_t)nd * sizeof *sz);
    memcpy(o->t.strides, st, (size_t)nd * sizeof *st);
    o->requires_grad = b_rg;
    o->py_policy = (uint8_t)(bits | (b_dev ? TN_PY_DEVICE : 0) | (b_lay ? TN_PY_LAYOUT : 0));
    if (layout != Py_None && layout != tn_py.layout_strided) o->layout = Py_NewRef(layout);
    if (keys != Py_None) {   /* _extra_dispatch_keys: the NestedTensor key is the one that changes behaviour */
        PyObject *kst = PyObject_GetAttrString(tn_py.module, "DispatchKeySet");
        int isks = kst ? PyObject_IsInstance(keys, kst) : -1;
        Py_XDECREF(kst);
        if (isks <= 0) {
            if (isks == 0)
                PyErr_Format(PyExc_TypeError, "_make_wrapper_subclass(): argument '_extra_dispatch_keys' must be DispatchKeySet, not %s",
                             tn_py_type_name(keys));
            Py_DECREF(o);
            return NULL;
        }
        PyObject *dk = PyObject_GetAttrString(tn_py.module, "DispatchKey");
        PyObject *nk = dk ? PyObject_GetAttrString(dk, "NestedTensor") : NULL;
        PyObject *has = nk ? PyObject_CallMethod(keys, "has", "O", nk) : NULL;
        int t = has ? PyObject_IsTrue(has) : -1;
        Py_XDECREF(dk); Py_XDECREF(nk); Py_XDECREF(has);
        if (t < 0) { Py_DECREF(o); return NULL; }
        if (t) o->py_policy |= TN_PY_NESTED;
    }
    (void)mf; (void)pin; (void)dix;
    return (PyObject *)o;
}

/* x.as_subclass(cls): self.alias() (through the door: AliasBackward0, a view of self) as a cls object */
static PyObject *m_as_subclass(PyObject *self, PyObject *cls) {
    if (!PyType_Check(cls)) return PyErr_Format(PyExc_TypeError, "cls must be a type (got %s)", tn_py_type_name(cls));
    if (!PyType_IsSubtype((PyTypeObject *)cls, tn_py.TensorBase)) {
        PyErr_SetString(PyExc_TypeError, "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                                         "possible. Make sure your class inherits from Tensor.");
        return NULL;
    }
    PyObject *r = tn_at_alias(self);
    if (r && Py_TYPE(r) != (PyTypeObject *)cls && PyObject_SetAttrString(r, "__class__", cls) < 0) Py_CLEAR(r);
    return r;
}

/* upstream re-owns the C++ tensor from a Python object revived through a weak reference; this
 * object is the tensor, so there is nothing to fix */
static PyObject *m_fix_weakref(PyObject *self, PyObject *unused) { Py_RETURN_NONE; }

/* Tensor._dtensor__new__(cls, local_tensor, spec, requires_grad): DTensor's constructor, upstream's
 * shortcut of _make_wrapper_subclass: sizes and strides from spec.tensor_meta, dtype and device
 * from the local tensor; then `_spec` and `_local_tensor` are set on the new object */
static PyObject *m_dtensor_new(PyObject *unused, PyObject *args, PyObject *kw) {
    static char *kws[] = {"cls", "local_tensor", "spec", "requires_grad", NULL};
    PyObject *cls, *local, *spec;
    int rg;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOp:_dtensor__new__", kws, &cls, &local, &spec, &rg)) return NULL;
    if (!tn_py_is_tensor(local))
        return PyErr_Format(PyExc_TypeError, "_dtensor__new__(): argument 'local_tensor' must be Tensor, not %s", tn_py_type_name(local));
    if (((tn_tensor_obj *)local)->requires_grad && !rg &&
        PyErr_WarnEx(PyExc_UserWarning, "To construct DTensor from torch.Tensor, it's recommended to use "
                                        "local_tensor.detach() and make requires_grad consistent.", 1) < 0)
        return NULL;
    PyObject *meta = PyObject_GetAttrString(spec, "tensor_meta");
    if (!meta) return NULL;
    if (meta == Py_None) { Py_DECREF(meta); PyErr_SetString(PyExc_RuntimeError, "Expected !tensor_meta.is_none() to be true, but got false."); return NULL; }
    PyObject *shape = PyObject_GetAttrString(meta, "shape"), *stride = shape ? PyObject_GetAttrString(meta, "stride") : NULL;
    Py_DECREF(meta);
    PyObject *r = NULL;
    if (stride && (!PyTuple_Check(shape) || !PyTuple_Check(stride)))
        PyErr_Format(PyExc_RuntimeError, "spec.tensor_meta.%s must be a tuple", PyTuple_Check(shape) ? "stride" : "shape");
    else if (stride) {
        PyObject *dt = tn_py_from_dtype(tn_tensor_of(local)->dtype);
        PyObject *dev = PyObject_GetAttrString(local, "device");
        PyObject *a = dt && dev ? PyTuple_Pack(3, cls, shape, stride) : NULL;
        PyObject *k = a ? Py_BuildValue("{sOsOsO}", "dtype", dt, "device", dev, "requires_grad", rg ? Py_True : Py_False) : NULL;
        r = k ? m_make_wrapper_subclass(NULL, a, k) : NULL;
        Py_XDECREF(dt); Py_XDECREF(dev); Py_XDECREF(a); Py_XDECREF(k);
        if (r && (PyObject_SetAttrString(r, "_spec", spec) < 0 || PyObject_SetAttrString(r, "_local_tensor", local) < 0)) Py_CLEAR(r);
    }
    Py_XDECREF(shape); Py_XDECREF(stride);
    return r;
}

/* The arguments of upstream's "name(*, MemoryFormat? memory_format=None)" bindings: *mf is the
 * memory format or NULL; -1 with upstream's TypeError for anything else (python/arg_errors.c). */
static int memory_format_only(const char *name, PyObject *args, PyObject *kw, PyObject **mf) {
    *mf = kw ? PyDict_GetItemString(kw, "memory_format") : NULL;
    bool ok = PyTuple_Size(args) == 0 && (!kw || PyDict_Size(kw) == (*mf ? 1 : 0)) &&
              (!*mf || *mf == Py_None || PyObject_TypeCheck(*mf, tn_py.memory_format_type));
    if (ok) {
        if (*mf == Py_None) *mf = NULL;
        return 0;
    }
    if (!tn_arg_error(name, true, args, kw))
        PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments", name);
    return -1;
}

/* x.half(), x.float(), ... : x.to(dtype) through the door, as upstream's manual bindings do. */
static PyObject *to_dtype(const char *name, PyObject *self, PyObject *args, PyObject *kw, tn_dtype d) {
    PyObject *mf;
    if (memory_format_only(name, args, kw, &mf) < 0) return NULL;
    PyObject *to = PyObject_GetAttrString(self, "to");
    if (!to) return NULL;
    PyObject *a = PyTuple_Pack(1, tn_py.dtypes[d]);
    PyObject *k = mf ? Py_BuildValue("{sO}", "memory_format", mf) : NULL;
    PyObject *r = a ? PyObject_Call(to, a, k) : NULL;
    Py_DECREF(to);
    Py_XDECREF(a);
    Py_XDECREF(k);
    return r;
}
#define TO_DTYPE(NAME, D) \
    static PyObject *m_##NAME(PyObject *self, PyObject *args, PyObject *kw) { return to_dtype(#NAME, self, args, kw, D); }
TO_DTYPE(half, TN_DTYPE_F16) TO_DTYPE(float, TN_DTYPE_F32) TO_DTYPE(double, TN_DTYPE_F64)
TO_DTYPE(bfloat16, TN_DTYPE_BF16) TO_DTYPE(int, TN_DTYPE_I32) TO_DTYPE(long, TN_DTYPE_I64)
TO_DTYPE(short, TN_DTYPE_I16) TO_DTYPE(char, TN_DTYPE_I8) TO_DTYPE(byte, TN_DTYPE_U8)
TO_DTYPE(bool, TN_DTYPE_BOOL) TO_DTYPE(cfloat, TN_DTYPE_C64) TO_DTYPE(cdouble, TN_DTYPE_C128)
TO_DTYPE(chalf, TN_DTYPE_C32)
#define TO_DTYPE_DEF(NAME) {#NAME, (PyCFunction)(void (*)(void))m_##NAME, METH_VARARGS | METH_KEYWORDS, NULL}

/* x.type(): the legacy type name ("torch.FloatTensor"); x.type(T) converts to dtype T given as a
 * dtype, a legacy class (torch.DoubleTensor) or its name. */
static const char *legacy_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "Float"; case TN_DTYPE_F64: return "Double"; case TN_DTYPE_F16: return "Half";
    case TN_DTYPE_BF16: return "BFloat16"; case TN_DTYPE_U8: return "Byte"; case TN_DTYPE_I8: return "Char";
    case TN_DTYPE_I16: return "Short"; case TN_DTYPE_I32: return "Int"; case TN_DTYPE_I64: return "Long";
    case TN_DTYPE_BOOL: return "Bool"; case TN_DTYPE_C64: return "ComplexFloat"; case TN_DTYPE_C128: return "ComplexDouble";
    case TN_DTYPE_C32: return "ComplexHalf";
    default: return NULL;
    }
}

static PyObject *m_type(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dtype", "non_blocking", NULL};
    PyObject *t = NULL;
    int nb = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Op:type", kws, &t, &nb)) return NULL;
    tn_dtype d = tn_tensor_of(self)->dtype;
    if (!t || t == Py_None) {
        const char *n = legacy_name(d);
        if (!n) return tn_not_implemented("Tensor.type() for this dtype");
        return PyUnicode_FromFormat("torch.%sTensor", n);
    }
    PyObject *dt = NULL;
    if (tn_py_is_dtype(t)) dt = Py_NewRef(t);
    else if (PyType_Check(t)) dt = PyObject_GetAttrString(t, "dtype");
    else if (PyUnicode_Check(t)) {
        for (int k = 0; k < TN_DTYPE_COUNT && !dt; k++) {
            const char *n = legacy_name((tn_dtype)k);
            PyObject *full = n ? PyUnicode_FromFormat("torch.%sTensor", n) : NULL;
            if (full && PyUnicode_Compare(full, t) == 0) dt = Py_NewRef(tn_py.dtypes[k]);
            Py_XDECREF(full);
        }
        if (!dt) return PyErr_Format(PyExc_ValueError, "invalid type: '%U'", t);
    }
    if (!dt) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "type(): expected a dtype, a tensor type or its name");
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(self, "to", "O", dt);
    Py_DECREF(dt);
    return r;
}

/* x.cpu(): x itself for CPU tensors, else x.to("cpu") through the door. */
static PyObject *m_cpu(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *mf;
    if (memory_format_only("cpu", args, kw, &mf) < 0) return NULL;
    if (!mf && tn_tensor_of(self)->storage->device == TN_DEVICE_CPU) return Py_NewRef(self);
    PyObject *to = PyObject_GetAttrString(self, "to");
    PyObject *a = to ? Py_BuildValue("(s)", "cpu") : NULL;
    PyObject *k = a && mf ? Py_BuildValue("{sO}", "memory_format", mf) : NULL;
    PyObject *r = a ? PyObject_Call(to, a, k) : NULL;
    Py_XDECREF(to); Py_XDECREF(a); Py_XDECREF(k);
    return r;
}

/* indexing (python/indexing.c) */
PyObject *tn_tensor_getitem(PyObject *self, PyObject *index);
PyObject *tn_tensor_setitem(PyObject *self, PyObject *args);
PyObject *tn_tensor_delitem(PyObject *self, PyObject *index);

/* Tensor.new(...): upstream's legacy constructor on self's dtype (legacy_tensor_new):
 * new() empty 1-d; new(storage) a 1-d tensor over an UntypedStorage or a TypedStorage of
 * self's dtype (default_collate builds its shared batch so); new(tensor) an alias of a tensor
 * of self's dtype; new(*sizes) / new(torch.Size) uninitialised; new(sequence) a copy of data. */
/* an int argument of the size form: a Python int or, as upstream's parser takes them, any
 * non-tensor with __index__ (numpy integer scalars, 0-dim integer arrays) */
static bool legacy_size_arg(PyObject *o) {
    if (PyLong_Check(o)) return true;
    if (tn_py_is_tensor(o) || !PyIndex_Check(o)) return false;
    PyObject *i = PyNumber_Index(o);   /* numpy arrays have the slot but refuse unless 0-dim integer */
    if (!i) { PyErr_Clear(); return false; }
    Py_DECREF(i);
    return true;
}

PyObject *tn_legacy_tensor_new(tn_dtype dt, tn_device_type device, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_Size(args);
    if (kw && PyDict_Size(kw)) {
        PyObject *dev = PyDict_GetItemString(kw, "device");
        if (PyDict_Size(kw) > 1 || !dev)
            return PyErr_Format(PyExc_TypeError, "new() received an invalid combination of arguments: the only keyword argument is device");
        tn_device_type t; int idx;
        if (dev != Py_None && tn_py_parse_device(dev, &t, &idx) < 0) return NULL;
        if (dev != Py_None && t != device) return tn_not_implemented("Tensor.new(...) on another device");
    }
    PyObject *a0 = n ? PyTuple_GetItem(args, 0) : NULL;
    if (n == 1 && (PyObject_TypeCheck(a0, tn_py.storage_type) || PyObject_HasAttrString(a0, "_untyped_storage"))) {
        PyObject *us = a0;
        if (!PyObject_TypeCheck(a0, tn_py.storage_type)) {
            PyObject *sd = PyObject_GetAttrString(a0, "dtype");
            tn_dtype sdt;
            int bad = !sd || tn_py_to_dtype(sd, &sdt) < 0;
            Py_XDECREF(sd);
            if (bad) return NULL;
            if (sdt != dt)
                return PyErr_Format(PyExc_RuntimeError, "Expected a Storage of type %s or an UntypedStorage, but got type %s for argument 1 'storage'",
                                    tn_dtype_cpp_name(dt), tn_dtype_cpp_name(sdt));
            us = PyObject_GetAttrString(a0, "_untyped_storage");
            if (!us) return NULL;
            if (!PyObject_TypeCheck(us, tn_py.storage_type)) { Py_DECREF(us); return tn_not_implemented("Tensor.new(storage) of this storage type"); }
        } else {
            Py_INCREF(us);
        }
        tn_storage *st = ((tn_storage_obj *)us)->s;
        tn_tensor t;
        memset(&t, 0, sizeof t);
        t.storage = st;
        t.dtype = dt;
        t.ndim = 1;
        t.sizes[0] = (int64_t)(st->nbytes / tn_dtype_itemsize(dt));
        t.strides[0] = 1;
        tn_storage_incref(st);
        Py_DECREF(us);
        return tn_tensor_wrap(&t);
    }
    if (n == 1 && tn_py_is_tensor(a0)) {
        if (tn_tensor_of(a0)->dtype != dt)
            return PyErr_Format(PyExc_TypeError, "expected %s tensor (got %s tensor)", tn_dtype_cpp_name(dt),
                                tn_dtype_cpp_name(tn_tensor_of(a0)->dtype));
        tn_tensor t = *tn_tensor_of(a0);   /* other.alias(): same storage and geometry, no autograd history */
        tn_storage_incref(t.storage);
        return tn_tensor_wrap(&t);
    }
    bool sizes = true;
    PyObject *dims = args;
    if (n == 1 && PyObject_TypeCheck(a0, tn_py.size_type)) dims = a0;
    else if (n == 1 && !legacy_size_arg(a0)) sizes = false;
    if (sizes) {
        int64_t sz[TN_MAX_DIMS];
        Py_ssize_t nd = PySequence_Size(dims);
        if (nd < 0) return NULL;
        if (nd > TN_MAX_DIMS) return tn_not_implemented("Tensor.new with this many dimensions");
        for (Py_ssize_t i = 0; i < nd; i++) {
            PyObject *d = PySequence_GetItem(dims, i);
            if (!d) return NULL;
            if (!legacy_size_arg(d)) {
                PyErr_Format(PyExc_TypeError, "new(): argument 'size' must be tuple of ints, but found element of type %s at pos %zd",
                             tn_py_type_name(d), i);
                Py_DECREF(d);
                return NULL;
            }
            PyObject *di = PyNumber_Index(d);
            Py_DECREF(d);
            if (!di) return NULL;
            sz[i] = PyLong_AsLongLong(di);
            Py_DECREF(di);
            if (sz[i] == -1 && PyErr_Occurred()) return NULL;
            if (sz[i] < 0) return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld]", (long long)sz[i], (long long)sz[i]);
        }
        if (nd == 0) { nd = 1; sz[0] = 0; }
        return tn_tensor_new_empty((int)nd, sz, dt, device);
    }
    if (PyUnicode_Check(a0) || PyBytes_Check(a0))
        return PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'", tn_py_type_name(a0));
    if (!PySequence_Check(a0))
        return PyErr_Format(PyExc_TypeError, "new(): data must be a sequence (got %s)", tn_py_type_name(a0));
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return NULL;
    PyObject *r, *f = PyObject_GetAttrString(torch, "tensor");
    Py_DECREF(torch);
    if (!f) return NULL;
    PyObject *kwd = Py_BuildValue("{sO}", "dtype", tn_py.dtypes[dt]);
    PyObject *a = PyTuple_Pack(1, a0);
    r = kwd && a ? PyObject_Call(f, a, kwd) : NULL;
    Py_XDECREF(kwd); Py_XDECREF(a); Py_DECREF(f);
    return r;
}
/* Tensor.new on a sparse tensor (upstream's legacy_sparse_tensor_new): new(indices, values[, size])
 * builds a sparse tensor of self's dtype; new(*sizes) / new(size) an empty one */
static PyObject *sparse_legacy_new(PyObject *self, PyObject *args) {
    Py_ssize_t n = PyTuple_Size(args);
    PyObject *dt = tn_py.dtypes[tn_tensor_of(self)->dtype];
    PyObject *a0 = n > 0 ? PyTuple_GetItem(args, 0) : NULL, *a1 = n > 1 ? PyTuple_GetItem(args, 1) : NULL;
    if (a1 && tn_py_is_tensor(a0) && tn_py_is_tensor(a1) && n <= 3)
        return n == 3 ? tn_at_sparse_coo_tensor_indices_size(a0, a1, TN_IPY(PyTuple_GetItem(args, 2)), dt, NULL, NULL, NULL, NULL)
                      : tn_at_sparse_coo_tensor_indices(a0, a1, dt, NULL, NULL, NULL, NULL);
    PyObject *sizes = n == 1 && PySequence_Check(a0) ? a0 : args;
    Py_ssize_t nd = PySequence_Size(sizes);
    if (nd < 0) return NULL;
    return tn_at__sparse_coo_tensor_with_dims(n ? nd : 1, 0, n ? TN_IPY(sizes) : TN_IS(0), dt, tn_py.layout_sparse_coo, NULL, NULL);
}

static PyObject *m_legacy_new(PyObject *self, PyObject *args, PyObject *kw) {
    if (tn_sparse_of(self) && (!kw || !PyDict_Size(kw))) return sparse_legacy_new(self, args);
    if (tn_compressed_of(self)) return PyErr_Format(PyExc_RuntimeError, "Cannot map DispatchKey SparseCsrCPU to a unique layout.");
    return tn_legacy_tensor_new(tn_tensor_of(self)->dtype, tn_tensor_of(self)->storage->device, args, kw);
}

static PyMethodDef tensor_methods[] = {
    {"new", (PyCFunction)(void (*)(void))m_legacy_new, METH_VARARGS | METH_KEYWORDS, NULL},
    {"size", (PyCFunction)(void (*)(void))m_size, METH_VARARGS | METH_KEYWORDS, NULL},
    {"stride", (PyCFunction)(void (*)(void))m_stride, METH_VARARGS | METH_KEYWORDS, NULL},
    {"dim", m_dim, METH_NOARGS, NULL},
    {"ndimension", m_dim, METH_NOARGS, NULL},
    {"numel", m_numel, METH_NOARGS, NULL},
    {"nelement", m_numel, METH_NOARGS, NULL},
    {"element_size", m_element_size, METH_NOARGS, NULL},
    {"storage_offset", m_storage_offset, METH_NOARGS, NULL},
    {"data_ptr", m_data_ptr, METH_NOARGS, NULL},
    {"is_contiguous", (PyCFunction)(void (*)(void))m_is_contiguous, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_floating_point", m_is_floating_point, METH_NOARGS, NULL},
    {"is_complex", m_is_complex, METH_NOARGS, NULL},
    {"is_signed", m_is_signed, METH_NOARGS, NULL},
    {"untyped_storage", m_untyped_storage, METH_NOARGS, NULL},
    {"_is_view", m_is_view, METH_NOARGS, NULL},
    {"requires_grad_", (PyCFunction)(void (*)(void))m_requires_grad_, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_make_subclass", (PyCFunction)(void (*)(void))m_make_subclass, METH_VARARGS | METH_KEYWORDS | METH_STATIC, NULL},
    {"_fix_weakref", m_fix_weakref, METH_NOARGS, NULL},
    {"as_subclass", m_as_subclass, METH_O, NULL},
    {"_dtensor__new__", (PyCFunction)(void (*)(void))m_dtensor_new, METH_VARARGS | METH_KEYWORDS | METH_STATIC, NULL},
    {"_make_wrapper_subclass", (PyCFunction)(void (*)(void))m_make_wrapper_subclass, METH_VARARGS | METH_KEYWORDS | METH_STATIC, NULL},
    /* indexing (python/indexing.c) */
    {"__getitem__", tn_tensor_getitem, METH_O, NULL},
    {"__setitem__", tn_tensor_setitem, METH_VARARGS, NULL},
    {"__delitem__", tn_tensor_delitem, METH_O, NULL},
    {"type", (PyCFunction)(void (*)(void))m_type, METH_VARARGS | METH_KEYWORDS, NULL},
    {"cpu", (PyCFunction)(void (*)(void))m_cpu, METH_VARARGS | METH_KEYWORDS, NULL},
    TO_DTYPE_DEF(half), TO_DTYPE_DEF(float), TO_DTYPE_DEF(double), TO_DTYPE_DEF(bfloat16),
    TO_DTYPE_DEF(int), TO_DTYPE_DEF(long), TO_DTYPE_DEF(short), TO_DTYPE_DEF(char), TO_DTYPE_DEF(byte),
    TO_DTYPE_DEF(bool), TO_DTYPE_DEF(cfloat), TO_DTYPE_DEF(cdouble), TO_DTYPE_DEF(chalf),
    {NULL},
};

/* ---------- properties ---------- */

#define T(self) tn_tensor_of(self)
static PyObject *g_shape(PyObject *self, void *c) {
    if (custom(self, TN_PY_SIZES)) return custom_list(self, true);
    if (((tn_tensor_obj *)self)->nested) return nested_refuse("sizes");
    return tn_py_size_new(T(self)->ndim, T(self)->sizes);
}
static PyObject *g_dtype(PyObject *self, void *c) { return tn_py_from_dtype(T(self)->dtype); }
static PyObject *g_device(PyObject *self, void *c) {
    if (custom(self, TN_PY_DEVICE)) {
        PyObject *r = tn_subclass_query(self, "prim", "device");
        if (r && !PyObject_TypeCheck(r, tn_py.device_type)) {
            PyErr_Format(PyExc_RuntimeError, "device returned invalid type %s, expected Device", tn_py_type_name(r));
            Py_CLEAR(r);
        }
        return r;
    }
    return Py_NewRef(T(self)->storage->device == TN_DEVICE_META ? tn_py.device_meta : tn_py.device_cpu);
}
static PyObject *g_ndim(PyObject *self, void *c) { return m_dim(self, NULL); }
/* _has_symbolic_sizes_strides: a size given as a torch.SymInt (only a wrapper subclass with the
 * "sizes" policy can have one: int_list_arg) */
static PyObject *g_symbolic(PyObject *self, void *c) {
    if (!custom(self, TN_PY_SIZES)) Py_RETURN_FALSE;
    PyObject *l = custom_list(self, true);
    if (!l) return NULL;
    PyObject *seq = PySequence_Tuple(l);
    Py_DECREF(l);
    if (!seq) return NULL;
    bool sym = false;
    for (Py_ssize_t i = 0; i < PyTuple_Size(seq) && !sym; i++) sym = tn_py_is_symint(PyTuple_GetItem(seq, i));
    Py_DECREF(seq);
    return PyBool_FromLong(sym);
}
static PyObject *g_layout(PyObject *self, void *c) {
    if (custom(self, TN_PY_LAYOUT)) {
        PyObject *r = tn_subclass_query(self, "prim", "layout");
        if (r && !PyObject_TypeCheck(r, tn_py.layout_type)) {
            PyErr_Format(PyExc_RuntimeError, "layout returned invalid type %s, expected Layout", tn_py_type_name(r));
            Py_CLEAR(r);
        }
        return r;
    }
    PyObject *l = ((tn_tensor_obj *)self)->layout;
    return Py_NewRef(l ? l : tn_py.layout_strided);
}
static PyObject *g_false(PyObject *self, void *c) { Py_RETURN_FALSE; }
static PyObject *g_is_sparse(PyObject *self, void *c) { return PyBool_FromLong(tn_sparse_of(self) != NULL); }
static PyObject *g_is_sparse_csr(PyObject *self, void *c) {
    tn_sparse *m = tn_compressed_of(self);
    return PyBool_FromLong(m && m->kind == TN_SPARSE_CSR);
}
static PyObject *g_is_quantized(PyObject *self, void *c) { return PyBool_FromLong(((tn_tensor_obj *)self)->quant != NULL); }
static PyObject *g_is_nested(PyObject *self, void *c) { return PyBool_FromLong(custom(self, TN_PY_NESTED) || ((tn_tensor_obj *)self)->nested); }
static PyObject *g_is_cpu(PyObject *self, void *c) { return PyBool_FromLong(T(self)->storage->device == TN_DEVICE_CPU); }
static PyObject *g_is_meta(PyObject *self, void *c) { return PyBool_FromLong(T(self)->storage->device == TN_DEVICE_META); }
static PyObject *g_itemsize(PyObject *self, void *c) { return PyLong_FromLong(tn_dtype_itemsize(T(self)->dtype)); }
static PyObject *g_nbytes(PyObject *self, void *c) {
    if (tn_sparse_of(self)) {
        PyErr_SetString(PyExc_RuntimeError, "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
                        "tensors, add the nbytes of the indices and values.  If you want the size of the  equivalent dense "
                        "tensor, multiply numel() by element_size()");
        return NULL;
    }
    return PyLong_FromLongLong(tn_numel(T(self)) * tn_dtype_itemsize(T(self)->dtype));
}
static PyObject *g_version(PyObject *self, void *c) {
    if (tn_no_version(self))
        return PyErr_Format(PyExc_RuntimeError, "Inference tensors do not track version counter.");
    return PyLong_FromLongLong(T(self)->storage->version);
}
static PyObject *g_requires_grad(PyObject *self, void *c) {
    return PyBool_FromLong(tn_requires_grad(self));   /* a view whose base got history since: views.c */
}
static int s_requires_grad(PyObject *self, PyObject *v, void *c) {
    /* upstream's THPUtils_assertRet: a RuntimeError, deleting included */
    if (!v || !PyBool_Check(v)) { PyErr_SetString(PyExc_RuntimeError, "requires_grad must be a bool"); return -1; }
    PyObject *args = PyTuple_Pack(1, v), *r = args ? set_requires_grad(self, args, NULL) : NULL;
    Py_XDECREF(args);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}
/* grad_dtype: a leaf's gradient dtype, its own dtype (upstream lets one set another dtype or None,
 * which AccumulateGrad then follows; not done here: setting is refused by name) */
static PyObject *g_is_leaf(PyObject *self, void *c);
static PyObject *g_grad_dtype(PyObject *self, void *c) {
    PyObject *leaf = g_is_leaf(self, NULL);
    if (!leaf) return NULL;
    int is = leaf == Py_True;
    Py_DECREF(leaf);
    if (!is) {
        PyErr_SetString(PyExc_RuntimeError, "grad_dtype can only be accessed on leaf tensors.");
        return NULL;
    }
    return g_dtype(self, NULL);
}
static int s_grad_dtype(PyObject *self, PyObject *v, void *c) {
    tn_not_implemented("setting Tensor.grad_dtype");
    return -1;
}
static PyObject *g_is_leaf(PyObject *self, void *c) {
    if (tn_ng_view_check(self) < 0) return NULL;
    tn_view_refresh(self);
    return PyBool_FromLong(((tn_tensor_obj *)self)->grad_fn == NULL);
}
static PyObject *g_grad(PyObject *self, void *c) {
    PyObject *g = ((tn_tensor_obj *)self)->grad;
    return Py_NewRef(g ? g : Py_None);
}
static int s_grad(PyObject *self, PyObject *v, void *c) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    if (v && v != Py_None && !tn_py_is_tensor(v)) {
        PyErr_SetString(PyExc_TypeError, "assigned grad expected to be a Tensor or None");
        return -1;
    }
    Py_XSETREF(o->grad, (v && v != Py_None) ? Py_NewRef(v) : NULL);
    return 0;
}
static PyObject *g_grad_fn(PyObject *self, void *c) {
    if (tn_ng_view_check(self) < 0) return NULL;
    tn_view_refresh(self);
    PyObject *g = ((tn_tensor_obj *)self)->grad_fn;
    return Py_NewRef(g ? g : Py_None);
}
static PyObject *g_base(PyObject *self, void *c) {
    PyObject *b = T(self)->storage->inference ? NULL : ((tn_tensor_obj *)self)->base;
    return Py_NewRef(b ? b : Py_None);
}
static PyObject *g_cdata(PyObject *self, void *c) { return PyLong_FromVoidPtr(self); }
static PyObject *g_data(PyObject *self, void *c) {
    /* .data: the same bytes and geometry, detached from autograd, with a version counter of its
     * own (upstream: a fresh VariableVersion), so writes through .data are invisible to
     * autograd's saved-tensor checks (gradcheck perturbs inputs this way) */
    tn_tensor t = *T(self);
    t.storage = tn_storage_alias(t.storage);
    if (!t.storage) return PyErr_NoMemory();
    PyObject *r = tn_tensor_wrap(&t);
    if (r && (tn_nested_set(r, ((tn_tensor_obj *)self)->nested) < 0 || tn_tensor_copy_sparse(r, self) < 0)) Py_CLEAR(r);
    if (r) tn_bt_copy_meta(r, self);
    if (r && t.storage->inference && !tn_inference_mode()) ((tn_tensor_obj *)r)->inf_versioned = true;   /* as detach */
    return r;
}
static int s_data(PyObject *self, PyObject *v, void *c) {
    if (!v) {
        PyErr_SetString(PyExc_RuntimeError, "Deleting tensor data is not allowed. Delete tensor instead!");
        return -1;
    }
    if (!tn_py_is_tensor(v)) {
        PyErr_Format(PyExc_TypeError, "Variable data has to be a tensor, but got %s", tn_py_type_name(v));
        return -1;
    }
    if (!((tn_tensor_obj *)self)->nested != !((tn_tensor_obj *)v)->nested) {   /* a nested and a dense tensor */
        PyErr_SetString(PyExc_RuntimeError, "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor type.");
        return -1;
    }
    if (!((tn_tensor_obj *)self)->sparse != !((tn_tensor_obj *)v)->sparse) {   /* a sparse and a dense tensor */
        PyErr_SetString(PyExc_RuntimeError, "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible tensor type.");
        return -1;
    }
    if (tn_nested_set(self, ((tn_tensor_obj *)v)->nested) < 0 || tn_tensor_copy_sparse(self, v) < 0) return -1;
    tn_tensor t = *T(v);
    tn_storage_incref(t.storage);
    tn_storage_decref(T(self)->storage);
    *T(self) = t;
    return 0;
}

PyObject *tn_tensor_get_T(PyObject *self, void *c);
PyObject *tn_tensor_get_H(PyObject *self, void *c);
PyObject *tn_tensor_get_mT(PyObject *self, void *c);
PyObject *tn_tensor_get_mH(PyObject *self, void *c);
PyObject *tn_tensor_get_real(PyObject *self, void *c);
PyObject *tn_tensor_get_imag(PyObject *self, void *c);
int tn_tensor_set_real(PyObject *self, PyObject *value, void *c);
int tn_tensor_set_imag(PyObject *self, PyObject *value, void *c);

/* _backward_hooks / _post_accumulate_grad_hooks: data descriptors on TensorBase as upstream's
 * (torch.overrides reads `Tensor._backward_hooks.__get__`), the values kept in the instance
 * __dict__ under the same name; None until assigned. */
static PyObject *g_hook_dict(PyObject *self, void *name) {
    PyObject *d = PyObject_GenericGetDict(self, NULL);
    if (!d) return NULL;
    PyObject *v = PyDict_GetItemString(d, (const char *)name);
    Py_DECREF(d);
    return Py_NewRef(v ? v : Py_None);
}
static int s_hook_dict(PyObject *self, PyObject *value, void *name) {
    PyObject *d = PyObject_GenericGetDict(self, NULL);
    if (!d) return -1;
    int rc = value ? PyDict_SetItemString(d, (const char *)name, value) : PyDict_DelItemString(d, (const char *)name);
    Py_DECREF(d);
    return rc;
}

static PyGetSetDef tensor_getset[] = {
    {"_backward_hooks", g_hook_dict, s_hook_dict, NULL, "_backward_hooks"},
    {"_post_accumulate_grad_hooks", g_hook_dict, s_hook_dict, NULL, "_post_accumulate_grad_hooks"},
    {"T", tn_tensor_get_T, NULL, NULL, NULL},
    {"H", tn_tensor_get_H, NULL, NULL, NULL},
    {"mT", tn_tensor_get_mT, NULL, NULL, NULL},
    {"mH", tn_tensor_get_mH, NULL, NULL, NULL},
    {"real", tn_tensor_get_real, tn_tensor_set_real, NULL, NULL},
    {"imag", tn_tensor_get_imag, tn_tensor_set_imag, NULL, NULL},
    {"shape", g_shape, NULL, NULL, NULL},
    {"dtype", g_dtype, NULL, NULL, NULL},
    {"device", g_device, NULL, NULL, NULL},
    {"ndim", g_ndim, NULL, NULL, NULL},
    {"_has_symbolic_sizes_strides", g_symbolic, NULL, NULL, NULL},
    {"layout", g_layout, NULL, NULL, NULL},
    {"is_cpu", g_is_cpu, NULL, NULL, NULL},
    {"is_meta", g_is_meta, NULL, NULL, NULL},
    {"is_cuda", g_false, NULL, NULL, NULL},
    {"is_xpu", g_false, NULL, NULL, NULL},
    {"is_mps", g_false, NULL, NULL, NULL},
    {"is_mtia", g_false, NULL, NULL, NULL},
    {"is_ipu", g_false, NULL, NULL, NULL},
    {"is_xla", g_false, NULL, NULL, NULL},
    {"is_maia", g_false, NULL, NULL, NULL},
    {"is_vulkan", g_false, NULL, NULL, NULL},
    {"is_sparse", g_is_sparse, NULL, NULL, NULL},
    {"is_sparse_csr", g_is_sparse_csr, NULL, NULL, NULL},
    {"is_mkldnn", g_false, NULL, NULL, NULL},
    {"is_quantized", g_is_quantized, NULL, NULL, NULL},
    {"is_nested", g_is_nested, NULL, NULL, NULL},
    {"itemsize", g_itemsize, NULL, NULL, NULL},
    {"nbytes", g_nbytes, NULL, NULL, NULL},
    {"_version", g_version, NULL, NULL, NULL},
    {"requires_grad", g_requires_grad, s_requires_grad, NULL, NULL},
    {"is_leaf", g_is_leaf, NULL, NULL, NULL},
    {"grad_dtype", g_grad_dtype, s_grad_dtype, NULL, NULL},
    {"grad", g_grad, s_grad, NULL, NULL},
    {"_grad", g_grad, s_grad, NULL, NULL},
    {"grad_fn", g_grad_fn, NULL, NULL, NULL},
    {"_grad_fn", g_grad_fn, NULL, NULL, NULL},
    {"_base", g_base, NULL, NULL, NULL},
    {"_cdata", g_cdata, NULL, NULL, NULL},
    {"data", g_data, s_data, NULL, NULL},
    /* the instance dict (upstream's TensorBase has one: torch.Tensor.__deepcopy__ and
       _clear_non_serializable_cached_data read self.__dict__; a subclass made by a class statement
       gets no __dict__ descriptor when its base already has a dict offset) */
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};

static PyMemberDef tensor_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_tensor_obj, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(tn_tensor_obj, weakrefs), READONLY, NULL},
    {NULL},
};

PyMethodDef *tn_tensor_methods_with_ops(const PyMethodDef *manual, const PyGetSetDef *props);

static PyType_Slot tensor_slots[] = {
    {Py_tp_new, tensor_new},
    {Py_tp_dealloc, tensor_dealloc},
    {Py_tp_traverse, tensor_traverse},
    {Py_tp_clear, tensor_clear},
    {Py_tp_methods, tensor_methods},
    {Py_tp_getset, tensor_getset},
    {Py_tp_members, tensor_members},
    {0, NULL},
};

static PyType_Spec tensor_spec = {
    "torch._C.TensorBase", sizeof(tn_tensor_obj), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, tensor_slots,
};

/* ---------- storage ---------- */

static void storage_dealloc(PyObject *self) {
    tn_storage_obj *o = (tn_storage_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (o->weakrefs) PyObject_ClearWeakRefs(self);
    Py_CLEAR(o->dict);
    if (o->s) {
        if (o->s->pyobj == self) o->s->pyobj = NULL;
        tn_storage_decref(o->s);
    }
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static int storage_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((tn_storage_obj *)self)->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static PyObject *storage_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    Py_ssize_t n = 0;
    PyObject *device = NULL;
    static char *kws[] = {"size", "device", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|nO", kws, &n, &device)) return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size must be non-negative");
        return NULL;
    }
    tn_device_type dt = TN_DEVICE_CPU;
    int idx;
    if (device && device != Py_None && tn_py_parse_device(device, &dt, &idx) < 0) return NULL;
    tn_storage_obj *o = (tn_storage_obj *)tn_obj_alloc(tp);
    if (!o) return NULL;
    o->s = tn_storage_new((size_t)n, dt);
    if (!o->s) { Py_DECREF(o); return PyErr_NoMemory(); }
    o->s->pyobj = o;
    return (PyObject *)o;
}

#define S(self) (((tn_storage_obj *)self)->s)
static PyObject *sm_nbytes(PyObject *self, PyObject *u) { return PyLong_FromSize_t(S(self)->nbytes); }
/* a wrapper subclass's storage (_make_wrapper_subclass) has a size and no bytes */
static bool sm_no_bytes(PyObject *self) { return S(self)->no_data && S(self)->nbytes; }
static PyObject *sm_data_ptr(PyObject *self, PyObject *u) {
    if (S(self)->no_data) {
        PyErr_SetString(PyExc_RuntimeError, "Attempted to access the data pointer on an invalid python storage.");
        return NULL;
    }
    if (data_ptr_guard(S(self)) < 0) return NULL;
    return PyLong_FromVoidPtr(S(self)->data);
}
static PyObject *sm_element_size(PyObject *self, PyObject *u) { return PyLong_FromLong(1); }
static PyObject *sm_resizable(PyObject *self, PyObject *u) { return PyBool_FromLong(S(self)->resizable && !S(self)->release); }
static PyObject *sm_device(PyObject *self, void *c) {
    return Py_NewRef(S(self)->device == TN_DEVICE_META ? tn_py.device_meta : tn_py.device_cpu);
}
static PyObject *sm_cdata(PyObject *self, void *c) { return PyLong_FromVoidPtr(S(self)); }
static PyObject *sm_resize_(PyObject *self, PyObject *arg) {
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0) { PyErr_SetString(PyExc_RuntimeError, "Storage size must be non-negative"); return NULL; }
    if (!S(self)->resizable || S(self)->release) {
        PyErr_SetString(PyExc_RuntimeError, "Trying to resize storage that is not resizable");
        return NULL;
    }
    if ((size_t)n > S(self)->nbytes && S(self)->aliases)
        return tn_not_implemented("growing a storage while a .data alias of it lives");
    size_t old = S(self)->nbytes;
    if ((size_t)n > old) {
        if (tn_storage_resize(S(self), (size_t)n) != TN_OK) return PyErr_NoMemory();
    } else {
        S(self)->nbytes = (size_t)n;
    }
    return Py_NewRef(self);
}
static PyObject *sm_fill_(PyObject *self, PyObject *arg) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (sm_no_bytes(self)) return tn_no_data_error();
    if (S(self)->data) memset(S(self)->data, (int)(unsigned char)v, S(self)->nbytes);
    return Py_NewRef(self);
}
static PyObject *sm_copy_(PyObject *self, PyObject *args) {
    PyObject *src;
    int nb = 0;
    if (!PyArg_ParseTuple(args, "O|p", &src, &nb)) return NULL;
    if (!PyObject_TypeCheck(src, tn_py.storage_type)) {
        PyErr_SetString(PyExc_TypeError, "copy_(): expected a storage");
        return NULL;
    }
    if (S(src)->nbytes != S(self)->nbytes) {
        PyErr_SetString(PyExc_RuntimeError, "size does not match");
        return NULL;
    }
    if (sm_no_bytes(self) || sm_no_bytes(src)) return tn_no_data_error();
    if (S(self)->data && S(src)->data) memmove(S(self)->data, S(src)->data, S(self)->nbytes);
    return Py_NewRef(self);
}
/* A slice of a storage is a storage over the same bytes that keeps its parent alive. */
static void release_parent(void *ctx, char *data, size_t nbytes) {
    ((tn_storage *)ctx)->aliases--;
    tn_storage_decref((tn_storage *)ctx);
}

static PyObject *sm_getitem(PyObject *self, PyObject *key) {
    if (PySlice_Check(key)) {
        Py_ssize_t start, stop, step, len = (Py_ssize_t)S(self)->nbytes;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return NULL;
        if (step != 1) {
            PyErr_Format(PyExc_RuntimeError, "Trying to slice with a step of %zd, but only a step of 1 is supported", step);
            return NULL;
        }
        Py_ssize_t n = PySlice_AdjustIndices(len, &start, &stop, step);
        tn_storage *parent = S(self);
        tn_storage *sub = tn_storage_wrap(parent->data ? parent->data + start : NULL, (size_t)n, release_parent, parent);
        if (!sub) return PyErr_NoMemory();
        tn_storage_incref(parent);
        parent->aliases++;   /* the slice holds parent's bytes: they may neither grow nor move */
        sub->device = parent->device;
        tn_storage_obj *o = (tn_storage_obj *)tn_obj_alloc(Py_TYPE(self));
        if (!o) { tn_storage_decref(sub); return NULL; }
        o->s = sub;
        sub->pyobj = o;
        return (PyObject *)o;
    }
    if (!PyLong_Check(key)) {
        PyErr_Format(PyExc_TypeError, "can't index a torch.UntypedStorage with %s", Py_TYPE(key) == NULL ? "?" : "this type");
        return NULL;
    }
    long long ll;
    if (unpack_long(key, &ll) < 0) return NULL;   /* upstream's unpackLong: ValueError out of int64 */
    Py_ssize_t i = (Py_ssize_t)ll, n = (Py_ssize_t)S(self)->nbytes;
    if (i < 0) i += n;
    if (i < 0 || i >= n) {
        PyErr_Format(PyExc_IndexError, "index %zd out of range for storage of size %zd", i, n);
        return NULL;
    }
    if (!S(self)->data) return sm_no_bytes(self) ? tn_no_data_error() : tn_not_implemented("reading the bytes of a meta storage");
    return PyLong_FromLong((unsigned char)S(self)->data[i]);
}
static Py_ssize_t sm_len(PyObject *self) { return (Py_ssize_t)S(self)->nbytes; }

/* storage[i] = v / storage[a:b] = v: the byte(s) set to the int v modulo 256 (upstream's
 * THPStorage_set, measured on 2.13.0: a negative index is "out of bounds", not wrapped; a slice
 * is clamped, step 1 only; a bool index and a value that is not an int (bool counts as one) are
 * refused with RuntimeError; a meta storage takes the call and keeps no bytes). docs/breadth_more2.md */
static int sm_setitem(PyObject *self, PyObject *key, PyObject *val) {
    if (!val) { PyErr_SetString(PyExc_TypeError, "storage items cannot be deleted"); return -1; }
    if (!PyLong_Check(val)) {
        PyErr_Format(PyExc_RuntimeError, "can only set storage content with a int types, but got %s instead",
                     tn_py_type_name(val));
        return -1;
    }
    long long v = PyLong_AsLongLong(val);
    if (v == -1 && PyErr_Occurred()) return -1;
    tn_storage *st = S(self);
    Py_ssize_t start, stop, len = (Py_ssize_t)st->nbytes;
    if (PySlice_Check(key)) {
        Py_ssize_t step;
        if (PySlice_Unpack(key, &start, &stop, &step) < 0) return -1;
        if (step != 1) {
            PyErr_Format(PyExc_RuntimeError, "Trying to slice with a step of %zd, but only a step of 1 is supported", step);
            return -1;
        }
        PySlice_AdjustIndices(len, &start, &stop, step);
    } else if (PyLong_Check(key) && !PyBool_Check(key)) {
        start = PyLong_AsSsize_t(key);
        if (start == -1 && PyErr_Occurred()) return -1;
        if (start < 0 || start >= len) { PyErr_SetString(PyExc_RuntimeError, "out of bounds"); return -1; }
        stop = start + 1;
    } else {
        PyErr_Format(PyExc_RuntimeError, "can't index a torch.UntypedStorage with %s", tn_py_type_name(key));
        return -1;
    }
    if (stop <= start || st->device == TN_DEVICE_META) return 0;
    if (!st->data) return sm_no_bytes(self) ? (tn_no_data_error(), -1) : (tn_not_implemented("writing the bytes of a storage without data"), -1);
    memset(st->data + start, (unsigned char)v, (size_t)(stop - start));
    return 0;
}

/* UntypedStorage.from_file(filename, shared=False, nbytes=0): a storage memory-mapped from a
 * file (MAP_SHARED when shared: writes reach the file, which is created or grown as needed;
 * MAP_PRIVATE otherwise: the file must hold nbytes). Errors word upstream's. */
static void unmap(void *ctx, char *data, size_t nbytes) {
    if (data) munmap(data, nbytes);
}

static PyObject *sm_from_file(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kws[] = {"filename", "shared", "nbytes", "size", NULL};
    PyObject *fname;
    int shared = 0;
    Py_ssize_t nbytes = 0, size = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|pnn:from_file", kws, PyUnicode_FSConverter, &fname, &shared, &nbytes, &size))
        return NULL;
    if (size >= 0) nbytes = size;
    const char *path = PyBytes_AsString(fname);
    if (nbytes < 0) { Py_DECREF(fname); PyErr_SetString(PyExc_RuntimeError, "nbytes must be non-negative"); return NULL; }
    int fd = open(path, shared ? O_RDWR | O_CREAT : O_RDONLY, 0644);
    if (fd < 0) {
        int e = errno;
        PyErr_Format(PyExc_RuntimeError, "unable to open file <%s> in %s mode: %s (%d)", path,
                     shared ? "read-write" : "read-only", strerror(e), e);
        Py_DECREF(fname);
        return NULL;
    }
    struct stat st;
    char *data = NULL;
    if (fstat(fd, &st) < 0) goto io_fail;
    if ((Py_ssize_t)st.st_size < nbytes) {
        if (!shared) {
            PyErr_Format(PyExc_RuntimeError, "file <%s> size <%lld> is smaller than the required mapping size <%zd>",
                         path, (long long)st.st_size, nbytes);
            goto fail;
        }
        if (ftruncate(fd, nbytes) < 0) goto io_fail;
    }
    if (nbytes > 0) {
        data = mmap(NULL, (size_t)nbytes, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
        if (data == MAP_FAILED) { data = NULL; goto io_fail; }
    }
    close(fd);
    tn_storage *s = tn_storage_wrap(data, (size_t)nbytes, unmap, NULL);
    if (!s) { if (data) munmap(data, (size_t)nbytes); Py_DECREF(fname); return PyErr_NoMemory(); }
    tn_storage_obj *o = (tn_storage_obj *)tn_obj_alloc((PyTypeObject *)cls);
    if (!o) { tn_storage_decref(s); Py_DECREF(fname); return NULL; }
    o->s = s;
    s->pyobj = o;
    Py_DECREF(fname);
    return (PyObject *)o;
io_fail: {
        int e = errno;
        PyErr_Format(PyExc_RuntimeError, "unable to mmap %zd bytes from file <%s>: %s (%d)", nbytes, path, strerror(e), e);
    }
fail:
    close(fd);
    Py_DECREF(fname);
    return NULL;
}

/* UntypedStorage.from_buffer(buffer, byte_order="native", count=-1, offset=0, *, dtype): a new
 * storage holding a copy of the buffer's bytes (count elements of dtype from byte offset), the
 * elements byte-swapped for a byte order other than this machine's (little endian). */
static PyObject *sm_from_buffer(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kws[] = {"buffer", "byte_order", "count", "offset", "dtype", NULL};
    PyObject *bufo, *dto = NULL;
    const char *order = "native";
    Py_ssize_t count = -1, offset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|snn$O:from_buffer", kws, &bufo, &order, &count, &offset, &dto))
        return NULL;
    tn_dtype dt = TN_DTYPE_U8;
    if (dto && tn_py_to_dtype(dto, &dt) < 0) return NULL;
    int swap = !strcmp(order, "big") || !strcmp(order, "swap");
    if (!swap && strcmp(order, "native") && strcmp(order, "little"))
        return PyErr_Format(PyExc_ValueError, "invalid byte_order '%s' (expected 'big', 'little', or 'native')", order);
    Py_buffer view;
    if (PyObject_GetBuffer(bufo, &view, PyBUF_SIMPLE) < 0) return NULL;
    size_t es = (size_t)tn_dtype_itemsize(dt);
    PyObject *res = NULL;
    if (offset < 0 || offset > view.len) {
        PyErr_Format(PyExc_ValueError, "offset must be non-negative and no greater than buffer length (%zd) , but got %zd",
                     view.len, offset);
        goto out;
    }
    Py_ssize_t avail = view.len - offset;
    if (count < 0) {
        if ((size_t)avail % es) {
            PyErr_Format(PyExc_ValueError, "buffer size (%zd) must be a multiple of element size (%zu)", avail, es);
            goto out;
        }
        count = (Py_ssize_t)((size_t)avail / es);
    }
    if ((size_t)count * es > (size_t)avail) {
        PyErr_Format(PyExc_ValueError, "buffer has only %zd elements after offset %zd, but specified a size of %zd",
                     (Py_ssize_t)((size_t)avail / es), offset, count);
        goto out;
    }
    size_t nb = (size_t)count * es;
    tn_storage *st = tn_storage_new(nb, TN_DEVICE_CPU);
    if (!st) { PyErr_NoMemory(); goto out; }
    if (nb) memcpy(st->data, (const char *)view.buf + offset, nb);
    if (swap && es > 1)
        for (size_t i = 0; i < nb; i += es)
            for (size_t a = 0, b = es - 1; a < b; a++, b--) {
                char c = st->data[i + a];
                st->data[i + a] = st->data[i + b];
                st->data[i + b] = c;
            }
    res = tn_storage_obj_new((PyTypeObject *)cls, st);
out:
    PyBuffer_Release(&view);
    return res;
}

static PyMethodDef storage_methods[] = {
    {"from_buffer", (PyCFunction)(void (*)(void))sm_from_buffer, METH_VARARGS | METH_KEYWORDS | METH_CLASS, NULL},
    {"from_file", (PyCFunction)(void (*)(void))sm_from_file, METH_VARARGS | METH_KEYWORDS | METH_CLASS, NULL},
    {"nbytes", sm_nbytes, METH_NOARGS, NULL},
    {"size", sm_nbytes, METH_NOARGS, NULL},
    {"data_ptr", sm_data_ptr, METH_NOARGS, NULL},
    {"element_size", sm_element_size, METH_NOARGS, NULL},
    {"resizable", sm_resizable, METH_NOARGS, NULL},
    TN_STORAGE_SHARE_METHODS
    TN_STORAGE_FILE_METHODS
    {"resize_", sm_resize_, METH_O, NULL},
    {"fill_", sm_fill_, METH_O, NULL},
    {"copy_", sm_copy_, METH_VARARGS, NULL},
    {NULL},
};

static PyGetSetDef storage_getset[] = {
    {"device", sm_device, NULL, NULL, NULL},
    {"_cdata", sm_cdata, NULL, NULL, NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};

static PyMemberDef storage_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_storage_obj, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(tn_storage_obj, weakrefs), READONLY, NULL},
    {NULL},
};

static PyType_Slot storage_slots[] = {
    {Py_tp_new, storage_new},
    {Py_tp_dealloc, storage_dealloc},
    {Py_tp_traverse, storage_traverse},
    {Py_tp_methods, storage_methods},
    {Py_tp_getset, storage_getset},
    {Py_tp_members, storage_members},
    {Py_mp_subscript, sm_getitem},
    {Py_mp_ass_subscript, sm_setitem},
    {Py_mp_length, sm_len},
    {Py_sq_length, sm_len},
    {0, NULL},
};

static PyType_Spec storage_spec = {
    "torch._C.StorageBase", sizeof(tn_storage_obj), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, storage_slots,
};

/* ---------- _TensorMeta ---------- */

static PyType_Slot meta_slots[] = {{0, NULL}};
static PyType_Spec meta_spec = {"torch._C._TensorMeta", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, meta_slots};

int tn_tensor_type_init(PyObject *m) {
    PyObject *meta = PyType_FromSpecWithBases(&meta_spec, (PyObject *)&PyType_Type);
    if (!meta) return -1;
    PyMethodDef *all = tn_tensor_methods_with_ops(tensor_methods, tensor_getset);
    if (!all) { Py_DECREF(meta); return -1; }
    for (PyType_Slot *sl = tensor_slots; sl->slot; sl++)
        if (sl->slot == Py_tp_methods) sl->pfunc = all;
    PyObject *tb = PyType_FromSpec(&tensor_spec);
    if (!tb) { Py_DECREF(meta); return -1; }
    /* Make _TensorMeta the metaclass of TensorBase: upstream subclasses it (nn.Parameter's).
     * Python 3.11's limited API has no PyType_FromMetaclass and refuses __class__ assignment on
     * types, so the type pointer is set directly: _TensorMeta adds no fields to `type`, so the
     * object layout is unchanged. TensorBase lives as long as the process. */
    Py_SET_TYPE(tb, (PyTypeObject *)Py_NewRef(meta));
    tn_py.TensorMeta = (PyTypeObject *)meta;
    tn_py.TensorBase = (PyTypeObject *)tb;
    PyObject *st = PyType_FromSpec(&storage_spec);
    if (!st) return -1;
    tn_py.storage_type = (PyTypeObject *)st;
    if (PyModule_AddObjectRef(m, "_TensorMeta", meta) < 0 || PyModule_AddObjectRef(m, "TensorBase", tb) < 0 ||
        PyModule_AddObjectRef(m, "_TensorBase", tb) < 0 || PyModule_AddObjectRef(m, "StorageBase", st) < 0)
        return -1;
    return 0;
}
