/* nested.c — strided nested tensors: upstream's NestedTensorImpl (layout torch.strided, is_nested,
 * the NestedTensorCPU dispatch key) and the kernels everyday code reaches (docs/nested_strided.md).
 *
 * A nested tensor is a tensor object whose t is its buffer (a 1-d contiguous view of a storage) and
 * whose `nested` (core/object.h) lists each component's sizes, strides and offset into the buffer.
 * The door (dispatch/door.c) sends every call with one among its arguments here, below autograd
 * and the dispatch modes. Kernels are built from dense ops through the typed op API: elementwise
 * ops run once on the buffer; shape ops compute each component's view with the dense view op and
 * keep the buffer; the rest run per component and pack the results into a new buffer. An overload
 * upstream registers no nested kernel for decomposes when it is CompositeImplicitAutograd
 * (upstream's math kernels cover the NestedTensor key) and refuses in upstream's words otherwise;
 * one upstream has and we lack refuses by name. */
#include "ops/nested.h"

#include <stdlib.h>
#include <string.h>

#include "ops/common.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

static tn_nested *NT(PyObject *o) { return o ? tn_nested_of(o) : NULL; }
static const int64_t *csz(const tn_nested *m, int64_t i) { return m->sizes + i * m->dim; }

static PyObject *err(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return NULL;
}

/* component sizes -> contiguous metadata (strides row-major, components one after another) */
static tn_nested *meta_contig(int64_t n, int dim, const int64_t *sizes) {
    tn_nested *m = tn_nested_alloc(n, dim);
    if (!m) { PyErr_NoMemory(); return NULL; }
    if (n > 0 && dim > 0) memcpy(m->sizes, sizes, (size_t)(n * dim) * sizeof *sizes);
    int64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t st = 1;
        for (int d = dim - 1; d >= 0; d--) {
            m->strides[i * dim + d] = st;
            st *= sizes[i * dim + d];
        }
        m->offsets[i] = off;
        off += st;
    }
    return m;
}

/* a nested tensor over the storage of t's geometry (its storage reference is taken); the first
 * one made warns as upstream's NestedTensorImpl constructor does (TORCH_WARN_ONCE) */
static PyObject *wrap_t(tn_tensor *t, tn_nested *m) {
    static bool warned;
    if (m && !warned) {
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning, "The PyTorch API of nested tensors is in prototype stage and will change in the near "
                         "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout "
                         "receives active development, has better operator coverage, and works with torch.compile.", 1) < 0) {
            free(m);
            m = NULL;
        }
    }
    if (!m) { tn_storage_decref(t->storage); return NULL; }
    PyObject *o = tn_tensor_wrap(t);
    if (!o) { free(m); return NULL; }
    ((tn_tensor_obj *)o)->nested = m;
    tn_nested_live++;
    return o;
}
static tn_nested *meta_dup(const tn_nested *m) {
    tn_nested *c = tn_nested_copy(m);
    if (!c) PyErr_NoMemory();
    return c;
}

/* a new nested tensor whose buffer is buf's elements in order (buf: a dense tensor, the reference
 * taken; made contiguous when it is not) */
static PyObject *wrap(PyObject *buf, tn_nested *m) {
    PyObject *flat = buf && m ? tn_at_reshape(buf, TN_IS(-1)) : NULL;
    PyObject *c = flat ? tn_at_contiguous(flat, NULL) : NULL;
    Py_XDECREF(buf);
    Py_XDECREF(flat);
    if (!c) { free(m); return NULL; }
    tn_tensor t = *tn_tensor_of(c);
    tn_storage_incref(t.storage);
    Py_DECREF(c);
    return wrap_t(&t, m);
}

/* the same buffer with other metadata: a view of nt (its _base the root), or with view false an
 * alias autograd does not track (detach) */
static PyObject *rewrap_as(PyObject *nt, tn_nested *m, bool view) {
    tn_tensor t = *tn_tensor_of(nt);
    tn_storage_incref(t.storage);
    PyObject *v = wrap_t(&t, m);
    if (v && view && !tn_tls_untracked_views) {
        PyObject *root = ((tn_tensor_obj *)nt)->base ? ((tn_tensor_obj *)nt)->base : nt;
        ((tn_tensor_obj *)v)->base = Py_NewRef(root);
        ((tn_tensor_obj *)v)->view_version = t.storage->version;
    }
    return v;
}
static PyObject *rewrap(PyObject *nt, tn_nested *m) { return rewrap_as(nt, m, true); }

/* the dense 1-d buffer of a contiguous nested tensor (its numel elements) */
static PyObject *buffer(PyObject *nt) {
    const tn_nested *m = NT(nt);
    if (!tn_nested_is_contiguous(m)) return err("NestedTensor must be contiguous to get buffer.");
    tn_tensor t = *tn_tensor_of(nt);
    t.ndim = 1;
    t.sizes[0] = tn_nested_numel(m);
    t.strides[0] = 1;
    tn_storage_incref(t.storage);
    return tn_tensor_wrap(&t);
}

/* component i: a dense view of the buffer (its _base the nested tensor, as upstream's unbind) */
static PyObject *component(PyObject *nt, int64_t i) {
    const tn_nested *m = NT(nt);
    return tn_tensor_new_view(nt, m->dim, csz(m, i), m->strides + i * m->dim, tn_tensor_of(nt)->offset + m->offsets[i]);
}

static PyObject *components(PyObject *nt) {
    const tn_nested *m = NT(nt);
    PyObject *r = PyTuple_New(m->n);
    for (int64_t i = 0; r && i < m->n; i++) {
        PyObject *c = component(nt, i);
        if (!c) Py_CLEAR(r);
        else PyTuple_SetItem(r, i, c);
    }
    return r;
}

/* a contiguous nested tensor holding copies of the dense tensors of seq; dtype NULL: the first's */
PyObject *tn_nested_from_list(PyObject *seq, PyObject *dtype) {
    PyObject *tup = PySequence_Tuple(seq);
    if (!tup) return NULL;
    Py_ssize_t n = PyTuple_Size(tup);
    int dim = 0;
    tn_dtype dt = tn_py.default_dtype;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GetItem(tup, i);
        if (!tn_py_is_tensor(e) || NT(e)) {
            Py_DECREF(tup);
            return err("nested_tensor: expected a list of dense tensors");
        }
        int nd = tn_tensor_of(e)->ndim;
        if (i == 0) { dim = nd; dt = tn_tensor_of(e)->dtype; }
        else if (nd != dim) {
            Py_DECREF(tup);
            return PyErr_Format(PyExc_RuntimeError, "All Tensors given to nested_tensor must have the same dimension. Found "
                                "dimension %d for Tensor at index %zd and dimension %d for Tensor at index 0.", nd, i, dim);
        }
    }
    if (dtype && dtype != Py_None && tn_py_to_dtype(dtype, &dt) < 0) { Py_DECREF(tup); return NULL; }
    int64_t *sizes = malloc((size_t)(n * dim + 1) * sizeof *sizes);
    if (!sizes) { Py_DECREF(tup); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++) sizes[i * dim + d] = tn_tensor_of(PyTuple_GetItem(tup, i))->sizes[d];
    tn_nested *m = meta_contig(n, dim, sizes);
    free(sizes);
    int64_t total = m ? tn_nested_numel(m) : 0;
    PyObject *buf = m ? tn_tensor_new_empty(1, &total, dt, TN_DEVICE_CPU) : NULL;
    for (Py_ssize_t i = 0; buf && i < n; i++) {
        PyObject *v = tn_tensor_new_view(buf, dim, csz(m, i), m->strides + i * dim, m->offsets[i]);
        PyObject *r = v ? tn_at_copy_(v, PyTuple_GetItem(tup, i), false) : NULL;
        if (!r) Py_CLEAR(buf);
        Py_XDECREF(v);
        Py_XDECREF(r);
    }
    Py_DECREF(tup);
    if (!buf) { free(m); return NULL; }
    tn_tensor_of(buf)->storage->version = 0;   /* a fresh buffer, as upstream's cat makes it: the copies are no writes to it */
    return wrap(buf, m);
}

/* a nested tensor over nt's buffer whose components are the dense views in `views` (each a view of
 * nt's storage, as the dense view ops make them) */
static PyObject *from_views(PyObject *nt, PyObject *views) {
    if (!views) return NULL;
    Py_ssize_t n = PyTuple_Size(views);
    int dim = n ? tn_tensor_of(PyTuple_GetItem(views, 0))->ndim : NT(nt)->dim;
    tn_nested *m = tn_nested_alloc(n, dim);
    if (!m) { Py_DECREF(views); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *v = tn_tensor_of(PyTuple_GetItem(views, i));
        for (int d = 0; d < dim; d++) {
            m->sizes[i * dim + d] = v->sizes[d];
            m->strides[i * dim + d] = v->strides[d];
        }
        m->offsets[i] = v->offset - tn_tensor_of(nt)->offset;
    }
    Py_DECREF(views);
    return rewrap(nt, m);
}

/* the results of a callback per component, packed into a new contiguous nested tensor */
typedef PyObject *(*comp_fn)(PyObject *c, int64_t i, tn_value *a);
static PyObject *per_component(PyObject *nt, comp_fn f, tn_value *a, bool pack) {
    const tn_nested *m = NT(nt);
    PyObject *out = PyTuple_New(m->n);
    for (int64_t i = 0; out && i < m->n; i++) {
        PyObject *c = component(nt, i);
        PyObject *r = c ? f(c, i, a) : NULL;
        Py_XDECREF(c);
        if (!r) Py_CLEAR(out);
        else PyTuple_SetItem(out, i, r);
    }
    if (!out || !pack) return out;
    PyObject *dt = m->n ? tn_py_from_dtype(tn_tensor_of(PyTuple_GetItem(out, 0))->dtype) : NULL;
    PyObject *r = tn_nested_from_list(out, dt);
    Py_XDECREF(dt);
    Py_DECREF(out);
    return r;
}

/* a contiguous copy when nt is not contiguous (nt itself otherwise); new reference */
static PyObject *contig(PyObject *nt) {
    if (tn_nested_is_contiguous(NT(nt))) return Py_NewRef(nt);
    PyObject *cs = components(nt);
    PyObject *r = cs ? tn_nested_from_list(cs, NULL) : NULL;
    Py_XDECREF(cs);
    return r;
}

static bool same_sizes(const tn_nested *a, const tn_nested *b) {
    return a->n == b->n && a->dim == b->dim && !memcmp(a->sizes, b->sizes, (size_t)(a->n * a->dim) * sizeof(int64_t));
}

/* the op's dense row on args with tensor argument i replaced by `with` */
static PyObject *call_with(int op, tn_value *a, int i, PyObject *with, int j, PyObject *with_j) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    tn_value v[64];
    int n = s->nargs < 64 ? s->nargs : 64;
    memcpy(v, a, (size_t)n * sizeof *v);
    v[i].u.obj = with;
    if (j >= 0) v[j].u.obj = with_j;
    return tn_call_row(op, v, n);
}

/* ---- elementwise: the dense op once on the buffer */

/* the op's dense row with self's buffer for self */
static PyObject *on_buffer(int op, tn_value *a) {
    PyObject *b = buffer(a[0].u.obj);
    PyObject *r = b ? call_with(op, a, 0, b, -1, NULL) : NULL;
    Py_XDECREF(b);
    return r;
}
static PyObject *like_self(PyObject *r, PyObject *nt) {
    const tn_nested *m = NT(nt);
    return wrap(r, meta_contig(m->n, m->dim, m->sizes));
}
/* the result with self's sizes */
static PyObject *k_map(int op, tn_value *a) {
    PyObject *r = on_buffer(op, a);
    return r ? like_self(r, a[0].u.obj) : NULL;
}
/* a tuple result (native_dropout's output and mask): each element with self's sizes */
static PyObject *k_map_tuple(int op, tn_value *a) {
    PyObject *r = on_buffer(op, a);
    PyObject *out = r ? PyTuple_New(PyTuple_Size(r)) : NULL;
    for (Py_ssize_t i = 0; out && i < PyTuple_Size(r); i++) {
        PyObject *e = like_self(Py_NewRef(PyTuple_GetItem(r, i)), a[0].u.obj);
        if (!e) Py_CLEAR(out);
        else PyTuple_SetItem(out, i, e);
    }
    Py_XDECREF(r);
    return out;
}
/* in place on the buffer, self returned */
static PyObject *k_inplace(int op, tn_value *a) {
    PyObject *r = on_buffer(op, a);
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(a[0].u.obj);
}
/* dropout: upstream's takes native_dropout for a nested input, in eval too (a copy) */
static PyObject *k_dropout(int op, tn_value *a) {
    PyObject *r = tn_at_native_dropout(a[0].u.obj, a[1].u.f, &(bool){a[2].u.i});
    PyObject *out = r ? Py_NewRef(PyTuple_GetItem(r, 0)) : NULL;
    Py_XDECREF(r);
    return out;
}

static const char *base_name(int op) { return tn_op_at(op)->name; }

/* self and other: both nested with the same sizes (buffers), or one a 0-dim dense tensor */
static PyObject *k_binary(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    tn_nested *mx = NT(x), *my = NT(y);
    bool inplace = tn_op_schema(op) && tn_op_schema(op)->args[0].is_write;
    if (mx && my && !same_sizes(mx, my))
        return PyErr_Format(PyExc_RuntimeError, "%s does not support broadcasting when given a NestedTensor", base_name(op));
    if ((!mx && tn_tensor_of(x)->ndim != 0) || (!my && tn_tensor_of(y)->ndim != 0))
        return PyErr_Format(PyExc_RuntimeError, "Expected both self and other to be nested, but got a %snested self and %snested other",
                            mx ? "" : "non-", my ? "" : "non-");
    if (!mx || !my) {   /* with a 0-dim tensor: the whole buffer, the metadata kept (upstream's storage-as-tensor) */
        PyObject *nt = mx ? x : y;
        const tn_tensor *t = tn_tensor_of(nt);
        PyObject *whole = tn_tensor_new_view(nt, 1, t->sizes, t->strides, t->offset);
        PyObject *r = whole ? call_with(op, a, mx ? 0 : 1, whole, -1, NULL) : NULL;
        Py_XDECREF(whole);
        if (!r) return NULL;
        if (inplace) { Py_DECREF(r); return Py_NewRef(x); }
        return wrap(r, meta_dup(NT(nt)));
    }
    PyObject *cx = inplace ? Py_NewRef(x) : contig(x);
    PyObject *cy = cx ? contig(y) : NULL;
    PyObject *bx = cy ? buffer(cx) : NULL;
    PyObject *by = bx ? buffer(cy) : NULL;
    PyObject *r = by ? call_with(op, a, 0, bx, 1, by) : NULL;
    Py_XDECREF(cx); Py_XDECREF(cy); Py_XDECREF(bx); Py_XDECREF(by);
    if (!r) return NULL;
    if (inplace) { Py_DECREF(r); return Py_NewRef(x); }
    return like_self(r, x);
}

/* ---- the nested-only rows of nested.def */

static PyObject *dense_backend(int op) {
    const tn_op_def *d = tn_op_at(op);
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s' with arguments from the 'CPU' backend. This could "
                        "be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
                        "build process (if using custom build).", d->name);
}
#define NEED_NESTED(ROW, T) do { if (!NT(T)) return dense_backend(TN_ROW_##ROW); } while (0)

/* an int64 (n, dim) tensor of one metadata array; offsets: (n) */
static PyObject *meta_tensor(const tn_nested *m, const int64_t *v, bool per_component) {
    int64_t shape[2] = {m->n, m->dim};
    PyObject *t = tn_tensor_new_empty(per_component ? 1 : 2, shape, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (t && m->n) memcpy(tn_data(tn_tensor_of(t)), v, (size_t)(m->n * (per_component ? 1 : m->dim)) * sizeof *v);
    return t;
}
PyObject *tn_op__nested_tensor_size(tn_value *a) {
    NEED_NESTED(_nested_tensor_size, a[0].u.obj);
    return meta_tensor(NT(a[0].u.obj), NT(a[0].u.obj)->sizes, false);
}
PyObject *tn_op__nested_tensor_strides(tn_value *a) {
    NEED_NESTED(_nested_tensor_strides, a[0].u.obj);
    return meta_tensor(NT(a[0].u.obj), NT(a[0].u.obj)->strides, false);
}
PyObject *tn_op__nested_tensor_storage_offsets(tn_value *a) {
    NEED_NESTED(_nested_tensor_storage_offsets, a[0].u.obj);
    return meta_tensor(NT(a[0].u.obj), NT(a[0].u.obj)->offsets, true);
}

/* _nested_tensor_from_tensor_list(list, dtype=None, layout=None, device=None, pin_memory=None) */
PyObject *tn_op__nested_tensor_from_tensor_list(tn_value *a) {
    /* upstream converts each tensor to dtype first: to()'s empty_like of a quantized dtype */
    Py_ssize_t n = PySequence_Size(a[0].u.obj);
    for (Py_ssize_t i = 0; a[1].tag == TN_V_DTYPE && i < n; i++) {
        PyObject *e = PySequence_GetItem(a[0].u.obj, i);
        if (!e) return NULL;
        bool differs = tn_py_is_tensor(e) && tn_tensor_of(e)->dtype != a[1].u.dtype;
        Py_DECREF(e);
        if (differs && tn_require_unquantized_result(a[1].u.dtype) < 0) return NULL;
    }
    PyObject *dt = a[1].tag == TN_V_DTYPE ? tn_value_to_python(&a[1]) : NULL;
    if (a[1].tag == TN_V_DTYPE && !dt) return NULL;
    PyObject *r = tn_nested_from_list(a[0].u.obj, dt);
    Py_XDECREF(dt);
    return r;
}

/* an int64 tensor's elements as a C array (contiguous copy); NULL with an error */
static int64_t *ints_of(PyObject *t, int64_t *count) {
    if (tn_tensor_of(t)->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type Long but found %s", tn_dtype_cpp_name(tn_tensor_of(t)->dtype));
        return NULL;
    }
    PyObject *cc = tn_at_contiguous(t, NULL);
    if (!cc) return NULL;
    int64_t n = tn_numel(tn_tensor_of(cc));
    int64_t *v = malloc((size_t)(n + 1) * sizeof *v);
    if (v && n) memcpy(v, tn_data(tn_tensor_of(cc)), (size_t)n * sizeof *v);
    Py_DECREF(cc);
    if (!v) PyErr_NoMemory();
    *count = n;
    return v;
}

/* _nested_view_from_buffer(buffer, nested_size, nested_strides, offsets): a view of buffer's storage */
PyObject *tn_op__nested_view_from_buffer(tn_value *a) {
    PyObject *buf = a[0].u.obj;
    const tn_tensor *bt = tn_tensor_of(buf), *st = TN_T(a[1]);
    if (NT(buf)) return err("Can only a create Nested Tensor from a normal tensor buffer");
    if (bt->ndim != 1) return err("Expected buffer to be a 1-d tensor");
    if (st->ndim != 2 || TN_T(a[2])->ndim != 2 || TN_T(a[3])->ndim != 1 || TN_T(a[2])->sizes[0] != st->sizes[0] ||
        TN_T(a[2])->sizes[1] != st->sizes[1] || TN_T(a[3])->sizes[0] != st->sizes[0])
        return err("nested_size and nested_strides must be 2-d of the same shape, offsets 1-d of their length");
    int64_t n = st->sizes[0], dim = st->sizes[1], k1, k2, k3;
    if (dim > TN_MAX_DIMS) return err("nested_size: too many dimensions");
    int64_t *sz = ints_of(a[1].u.obj, &k1), *sd = sz ? ints_of(a[2].u.obj, &k2) : NULL, *of = sd ? ints_of(a[3].u.obj, &k3) : NULL;
    tn_nested *m = of ? tn_nested_alloc(n, (int)dim) : NULL;
    if (m) {
        memcpy(m->sizes, sz, (size_t)(n * dim) * sizeof *sz);
        memcpy(m->strides, sd, (size_t)(n * dim) * sizeof *sd);
        memcpy(m->offsets, of, (size_t)n * sizeof *of);
    } else if (of) {
        PyErr_NoMemory();
    }
    free(sz); free(sd); free(of);
    if (!m) return NULL;
    for (int64_t i = 0; i < n; i++) {
        bool ok = m->offsets[i] >= 0;
        for (int d = 0; d < dim; d++) ok = ok && csz(m, i)[d] >= 0;
        if (!ok || !tn_view_in_bounds((int)dim, csz(m, i), m->strides + i * dim, bt->offset + m->offsets[i],
                                      tn_dtype_itemsize(bt->dtype), bt->storage->nbytes)) {
            free(m);
            return err("_nested_view_from_buffer: a component lies outside the buffer");
        }
    }
    return rewrap(buf, m);
}

/* _nested_compute_contiguous_strides_offsets(nested_size) -> (strides, offsets) */
PyObject *tn_op__nested_compute_contiguous_strides_offsets(tn_value *a) {
    const tn_tensor *st = TN_T(a[0]);
    /* upstream: a 0-d nested_size is returned itself as the strides, with no offsets; otherwise it
     * reads size(1) (IndexError for a 1-d one; measured) */
    if (st->ndim == 0) {
        int64_t zero = 0;
        PyObject *o = tn_tensor_new_empty(1, &zero, TN_DTYPE_I64, TN_DEVICE_CPU);
        if (!o) return NULL;
        PyObject *r = PyTuple_Pack(2, a[0].u.obj, o);
        Py_DECREF(o);
        return r;
    }
    if (st->ndim == 1 && tn_size_read(st, 1) < 0) return NULL;
    if (st->ndim != 2) return err("nested_size must be a 2-d tensor");
    int64_t k, n = st->sizes[0];
    int64_t *sz = ints_of(a[0].u.obj, &k);
    tn_nested *m = sz ? meta_contig(n, (int)st->sizes[1], sz) : NULL;
    free(sz);
    if (!m) return NULL;
    PyObject *s = meta_tensor(m, m->strides, false), *o = s ? meta_tensor(m, m->offsets, true) : NULL;
    free(m);
    PyObject *r = o ? PyTuple_Pack(2, s, o) : NULL;
    Py_XDECREF(s); Py_XDECREF(o);
    return r;
}

/* the checks _nested_tensor_from_mask and its left-aligned test share; the mask's rows as bytes */
static int mask_checks(const tn_tensor *t, const tn_tensor *mk) {
    if (mk->ndim != 2) { err("Padding mask should be 2D"); return -1; }
    if (t->ndim != 3) { err("Input should be a 3D tensor, N * L * D"); return -1; }
    if (mk->dtype != TN_DTYPE_BOOL) {
        PyErr_Format(PyExc_RuntimeError, "Expected mask to be of ScalarType Bool, but got %s instead.", tn_dtype_cpp_name(mk->dtype));
        return -1;
    }
    if (mk->sizes[0] != t->sizes[0] || mk->sizes[1] != t->sizes[1]) { err("Mask size should match input size"); return -1; }
    return 0;
}
static bool mask_at(const tn_tensor *mk, int64_t i, int64_t j) {
    return *(const bool *)(tn_data(mk) + i * mk->strides[0] + j * mk->strides[1]);
}
static bool left_aligned(const tn_tensor *mk) {
    for (int64_t i = 0; i < mk->sizes[0]; i++)
        for (int64_t j = 1; j < mk->sizes[1]; j++)
            if (mask_at(mk, i, j) && !mask_at(mk, i, j - 1)) return false;
    return true;
}

PyObject *tn_op__nested_tensor_from_mask_left_aligned(tn_value *a) {
    if (mask_checks(TN_T(a[0]), TN_T(a[1])) < 0) return NULL;
    return PyBool_FromLong(left_aligned(TN_T(a[1])));
}

/* _nested_tensor_from_mask(t, mask, mask_check=True): component i is t[i, :sum(mask[i])] */
PyObject *tn_op__nested_tensor_from_mask(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]), *mk = TN_T(a[1]);
    if (mask_checks(t, mk) < 0) return NULL;
    if (a[2].u.i && !left_aligned(mk)) return err("Mask must be left-aligned without gaps");
    PyObject *parts = PyTuple_New(t->sizes[0]);
    for (int64_t i = 0; parts && i < t->sizes[0]; i++) {
        int64_t len = 0, zero = 0;
        for (int64_t j = 0; j < mk->sizes[1]; j++) len += mask_at(mk, i, j);
        PyObject *row = tn_at_select_int(a[0].u.obj, 0, i);
        PyObject *s = row ? tn_at_slice_Tensor(row, 0, &zero, &len, 1) : NULL;
        Py_XDECREF(row);
        if (!s) Py_CLEAR(parts);
        else PyTuple_SetItem(parts, i, s);
    }
    PyObject *r = parts ? tn_nested_from_list(parts, NULL) : NULL;
    Py_XDECREF(parts);
    return r;
}

/* to_padded_tensor(self, padding, output_size=None) */
PyObject *tn_op_to_padded_tensor(tn_value *a) {
    PyObject *nt = a[0].u.obj;
    NEED_NESTED(to_padded_tensor, nt);
    const tn_nested *m = NT(nt);
    if (!tn_nested_is_contiguous(m)) return err("for now to_padded_tensor only supports contiguous nested tensor");
    int64_t shape[TN_MAX_DIMS];
    shape[0] = m->n;
    for (int d = 0; d < m->dim; d++) {
        shape[d + 1] = 0;
        for (int64_t i = 0; i < m->n; i++) shape[d + 1] = csz(m, i)[d] > shape[d + 1] ? csz(m, i)[d] : shape[d + 1];
    }
    if (a[2].tag == TN_V_INTLIST) {
        if (a[2].u.ints.n != m->dim + 1)
            return err("Length of output_size does not match NestedTensor dims. Broadcasting is not supported.");
        for (int d = 0; d <= m->dim; d++) {
            if (a[2].u.ints.v[d] < shape[d]) return err("Value in output_size is less than NestedTensor padded size. Truncation is not supported.");
            shape[d] = a[2].u.ints.v[d];
        }
    }
    PyObject *b = tn_tensor_new_view(nt, 1, (int64_t[]){0}, (int64_t[]){1}, tn_tensor_of(nt)->offset);
    PyObject *out = b ? tn_at_new_full(b, TN_IN(shape, m->dim + 1), TN_SD(a[1].u.f), NULL, NULL, NULL, NULL) : NULL;
    Py_XDECREF(b);
    for (int64_t i = 0; out && i < m->n; i++) {
        const tn_tensor *o = tn_tensor_of(out);
        PyObject *dst = tn_tensor_new_view(out, m->dim, csz(m, i), o->strides + 1, o->offset + i * o->strides[0]);
        PyObject *src = dst ? component(nt, i) : NULL;
        PyObject *r = src ? tn_at_copy_(dst, src, false) : NULL;
        if (!r) Py_CLEAR(out);
        Py_XDECREF(dst); Py_XDECREF(src); Py_XDECREF(r);
    }
    if (out) Py_CLEAR(((tn_tensor_obj *)out)->base);
    return out;
}

/* torch.nested.to_padded_tensor (python_module nested): to_padded_tensor */
PyObject *tn_op_nested_to_padded_tensor(tn_value *a) {
    return tn_at_to_padded_tensor(a[0].u.obj, a[1].u.f, a[2].tag == TN_V_INTLIST ? tn_ints_of(&a[2]) : TN_IDEF);
}

/* ---- kernels of rows that also have a dense one */

static int64_t wrap_dim(int64_t d, const tn_nested *m, bool *ok) {
    int64_t r;
    *ok = tn_wrap_dim(d, m->dim + 1, &r) == 0;
    return r;
}

static PyObject *k_unbind(int op, tn_value *a) {
    int64_t d = a[1].u.i;   /* not wrapped, as upstream's */
    if (d != 0) return PyErr_Format(PyExc_RuntimeError, "NestedTensor can only be unbound along dimension 0 got dimension %lld instead.", (long long)d);
    return components(a[0].u.obj);
}

static PyObject *c_select(PyObject *c, int64_t i, tn_value *a) { return tn_at_select_int(c, a[1].u.i - 1, a[2].u.i); }
static PyObject *k_select(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    bool ok;
    int64_t d = wrap_dim(a[1].u.i, m, &ok), i = a[2].u.i;
    if (!ok) return NULL;
    if (d == 0) {
        if (i < -m->n || i >= m->n)
            return PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension 0 with size %lld", (long long)i, (long long)m->n);
        return component(a[0].u.obj, i < 0 ? i + m->n : i);
    }
    tn_value v[3] = {a[0], a[1], a[2]};
    v[1].u.i = d;
    return from_views(a[0].u.obj, per_component(a[0].u.obj, c_select, v, false));
}

/* values(): the whole buffer, a view of the nested tensor */
static PyObject *k_values(int op, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    return tn_tensor_new_view(a[0].u.obj, 1, t->sizes, t->strides, t->offset);
}

static PyObject *k_alias(int op, tn_value *a) { return rewrap_as(a[0].u.obj, meta_dup(NT(a[0].u.obj)), op != TN_ROW_detach); }

static PyObject *k_clone(int op, tn_value *a) {
    PyObject *cs = components(a[0].u.obj);
    PyObject *r = cs ? tn_nested_from_list(cs, NULL) : NULL;
    Py_XDECREF(cs);
    return r;
}
static PyObject *k_contiguous(int op, tn_value *a) { return contig(a[0].u.obj); }

static PyObject *c_softmax(PyObject *c, int64_t i, tn_value *a) { return tn_at__softmax(c, a[1].u.i - 1, a[2].u.i); }
static PyObject *k_softmax(int op, tn_value *a) {
    bool ok;
    int64_t d = wrap_dim(a[1].u.i, NT(a[0].u.obj), &ok);
    if (!ok) return NULL;
    if (d == 0) return err("Cannot apply softmax across nested dimension 0");
    tn_value v[3] = {a[0], a[1], a[2]};
    v[1].u.i = d;
    return per_component(a[0].u.obj, c_softmax, v, true);
}

static PyObject *c_sum(PyObject *c, int64_t i, tn_value *a) { return tn_at_sum_dim_IntList(c, TN_IS(a[1].u.i - 1), true, NULL); }
static PyObject *k_sum(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    if (a[1].tag != TN_V_INTLIST || a[1].u.ints.n != 1) return err("NestedTensor only allows reduction of a single dimension for now.");
    bool ok;
    int64_t d = wrap_dim(a[1].u.ints.v[0], m, &ok);
    if (!ok) return NULL;
    if (d != m->dim)
        return PyErr_Format(PyExc_RuntimeError, "NestedTensor can only be reduced across the last dimension for now got dimension %lld instead.", (long long)d);
    if (!a[2].u.i) return err("NestedTensor always requires keepdim=True for now.");
    if (a[3].tag != TN_V_NONE) return err("NestedTensor does not support dtype argument for now.");
    tn_value v[2] = {a[0], a[1]};
    v[1].u.i = d;
    return per_component(a[0].u.obj, c_sum, v, true);
}

/* linear(input, weight, bias=None): the dense op on the buffer's rows */
static PyObject *k_linear(int op, tn_value *a) {
    PyObject *nt = a[0].u.obj;
    const tn_nested *m = NT(nt);
    if (NT(a[1].u.obj) || (a[2].tag == TN_V_TENSOR && NT(a[2].u.obj))) return err("Linear does not support nested weight or bias");
    const tn_tensor *w = TN_T(a[1]);
    if (m->dim != 2 || w->ndim != 2)
        return PyErr_Format(PyExc_RuntimeError, "Linear requires nested_tensor.dim == 3 and dense_matrix.dim == 2. Nested tensor dim: %d. Dense tensor dim: %d",
                            m->dim + 1, w->ndim);
    int64_t K = m->n ? csz(m, 0)[1] : 0;
    for (int64_t i = 1; i < m->n; i++)
        if (csz(m, i)[1] != K) return err("Linear requires the last dimension of a nested tensor to be regular");
    if (K != w->sizes[1])
        return PyErr_Format(PyExc_RuntimeError, "Shape mismatch for NestedTensor Linear: Expected input's (a nested tensor) 'last_dim' to equal "
                            "'weight.size(1), but got: last_dim = %lld, and weight.size(1) = %lld", (long long)K, (long long)w->sizes[1]);
    PyObject *c = contig(nt), *b = c ? buffer(c) : NULL;
    PyObject *x = b ? tn_at_view(b, TN_IS(-1, K)) : NULL;
    PyObject *y = x ? tn_at_linear(x, a[1].u.obj, a[2].tag == TN_V_TENSOR ? a[2].u.obj : NULL) : NULL;
    Py_XDECREF(c); Py_XDECREF(b); Py_XDECREF(x);
    if (!y) return NULL;
    int64_t *sz = malloc((size_t)(m->n * 2 + 1) * sizeof *sz);
    if (!sz) { Py_DECREF(y); return PyErr_NoMemory(); }
    for (int64_t i = 0; i < m->n; i++) { sz[2 * i] = csz(m, i)[0]; sz[2 * i + 1] = w->sizes[0]; }
    tn_nested *mo = meta_contig(m->n, 2, sz);
    free(sz);
    return wrap(y, mo);
}

/* bmm / matmul: component by component against the other's components (bmm: or a dense batch) */
static PyObject *c_bmm(PyObject *c, int64_t i, tn_value *a) {
    PyObject *o = a[1].u.obj;
    PyObject *oc = NT(o) ? component(o, i) : tn_at_select_int(o, 0, i);
    if (!oc) return NULL;
    const tn_tensor *x = tn_tensor_of(c), *y = tn_tensor_of(oc);
    PyObject *r = NULL;
    if (x->ndim == 2 && y->ndim == 2 && x->sizes[1] != y->sizes[0])
        PyErr_Format(PyExc_RuntimeError, "%lld-th nested matrices in batch cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)i,
                     (long long)x->sizes[0], (long long)x->sizes[1], (long long)y->sizes[0], (long long)y->sizes[1]);
    else
        r = a[2].u.i ? tn_at_matmul(c, oc) : tn_at_mm(c, oc);
    Py_DECREF(oc);
    return r;
}
static PyObject *k_bmm(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    const tn_nested *mx = NT(x), *my = NT(y);
    bool matmul = op == TN_ROW_matmul;
    if (!mx || (matmul && !my))
        return PyErr_Format(PyExc_RuntimeError, "Expected both to be nested, but got a %snested self and %snested other", mx ? "" : "non-", my ? "" : "non-");
    if (!matmul && mx->dim != 2) return PyErr_Format(PyExc_RuntimeError, "batch1 must be a 3D tensor");
    if (!matmul && (my ? my->dim : tn_tensor_of(y)->ndim - 1) != 2) return PyErr_Format(PyExc_RuntimeError, "batch2 must be a 3D tensor");
    int64_t ny = my ? my->n : tn_tensor_of(y)->sizes[0];
    if (ny != mx->n)
        return PyErr_Format(PyExc_RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [%lld, ...] but got: [%lld, ...].",
                            (long long)mx->n, (long long)ny);
    tn_value v[3] = {a[0], a[1], a[1]};
    v[2].tag = TN_V_INT;
    v[2].u.i = matmul;
    return per_component(x, c_bmm, v, true);
}

/* ---- views: each component's dense view, the buffer kept */

static PyObject *c_transpose(PyObject *c, int64_t i, tn_value *a) { return tn_at_transpose_int(c, a[1].u.i - 1, a[2].u.i - 1); }
static PyObject *k_transpose(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    bool ok1, ok2;
    int64_t d0 = wrap_dim(a[1].u.i, m, &ok1), d1 = ok1 ? wrap_dim(a[2].u.i, m, &ok2) : 0;
    if (!ok1 || !ok2) return NULL;
    if (d0 == d1) return k_alias(op, a);
    if (d0 == 0 || d1 == 0) return err("Nested tensor dimension 0 cannot be transposed");
    tn_value v[3] = {a[0], a[1], a[2]};
    v[1].u.i = d0;
    v[2].u.i = d1;
    return from_views(a[0].u.obj, per_component(a[0].u.obj, c_transpose, v, false));
}

static PyObject *k_mT(int op, tn_value *a) {
    tn_value v[3] = {a[0], {.tag = TN_V_INT, .u.i = -2}, {.tag = TN_V_INT, .u.i = -1}};
    return k_transpose(op, v);
}

/* view / reshape: size[0] the batch; a -1 at a position the components have keeps each one's own
 * size there, one past them is inferred per component */
static PyObject *c_view(PyObject *c, int64_t i, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(c);
    const int64_t *s = a[1].u.ints.v;
    int n = a[1].u.ints.n - 1;
    int64_t sz[TN_MAX_DIMS], prod = 1;
    bool infer = false;
    for (int d = 0; d < n; d++) {
        sz[d] = s[d + 1] == -1 && d < t->ndim ? t->sizes[d] : s[d + 1];
        if (sz[d] == -1) infer = true;
        else prod *= sz[d];
    }
    if (!infer && prod != tn_numel(t)) {   /* upstream's message names the whole size */
        char buf[512];
        int k = snprintf(buf, sizeof buf, "shape '[");
        for (int d = 0; d <= n && k < (int)sizeof buf - 32; d++)
            k += snprintf(buf + k, sizeof buf - k, "%s%lld", d ? ", " : "", (long long)s[d]);
        PyErr_Format(PyExc_RuntimeError, "%s]' is invalid for input of size %lld", buf, (long long)tn_numel(t));
        return NULL;
    }
    return a[2].u.i ? tn_at_reshape(c, TN_IN(sz, n)) : tn_at_view(c, TN_IN(sz, n));
}
static PyObject *k_view(int op, tn_value *a) {
    PyObject *nt = a[0].u.obj;
    const tn_nested *m = NT(nt);
    bool reshape = op == TN_ROW_reshape;
    if (a[1].u.ints.n < 1 || a[1].u.ints.n > TN_MAX_DIMS || a[1].u.ints.v[0] != m->n)
        return PyErr_Format(PyExc_RuntimeError, "%s: For now nested %s cannot change or infer the implicit batch dimension",
                            reshape ? "reshape" : "view", reshape ? "reshape" : "view");
    tn_value v[3] = {a[0], a[1], a[1]};
    v[2].tag = TN_V_INT;
    v[2].u.i = reshape;
    PyObject *vs = per_component(nt, c_view, v, false);
    if (!vs) return NULL;
    bool views = true;   /* reshape may have copied: then pack the copies */
    for (Py_ssize_t i = 0; i < PyTuple_Size(vs); i++)
        views = views && tn_tensor_of(PyTuple_GetItem(vs, i))->storage == tn_tensor_of(nt)->storage;
    if (views) return from_views(nt, vs);
    PyObject *r = tn_nested_from_list(vs, NULL);
    Py_DECREF(vs);
    return r;
}

static PyObject *c_unsqueeze(PyObject *c, int64_t i, tn_value *a) { return tn_at_unsqueeze(c, a[1].u.i - 1); }
static PyObject *k_unsqueeze(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, m->dim + 2, &d) < 0) return NULL;
    if (d == 0)
        return err("unsqueeze(): For nested tensors, unsqueezing dimension 0 is not supported at the moment if you need this feature, "
                   "please open an issue on github describing your use case.");
    tn_value v[2] = {a[0], a[1]};
    v[1].u.i = d;
    return from_views(a[0].u.obj, per_component(a[0].u.obj, c_unsqueeze, v, false));
}

static PyObject *k_squeeze_all(int op, tn_value *a) {
    return err("squeeze(): For nested tensors, squeeze without the dim argument is not supported at the moment, however you can "
               "use squeeze(Tensor self, int dim) instead if you need this feature, please open an issue on github describing your use case.");
}
static PyObject *c_squeeze(PyObject *c, int64_t i, tn_value *a) { return tn_at_squeeze_dim(c, a[1].u.i - 1); }
static PyObject *k_squeeze(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    bool ok;
    int64_t d = wrap_dim(a[1].u.i, m, &ok);
    if (!ok) return NULL;
    if (d == 0)
        return err("squeeze(): For nested tensors, squeezing dimension 0 is not supported at the moment if you need this feature, "
                   "please open an issue on github describing your use case.");
    tn_value v[2] = {a[0], a[1]};
    v[1].u.i = d;
    return from_views(a[0].u.obj, per_component(a[0].u.obj, c_squeeze, v, false));
}

/* chunk(self, chunks, dim): along the last dim, each chunk a view */
static PyObject *c_narrow_last(PyObject *c, int64_t i, tn_value *a) {
    return tn_at_narrow(c, tn_tensor_of(c)->ndim - 1, a[1].u.i, a[2].u.i);
}
static PyObject *k_chunk(int op, tn_value *a) {
    PyObject *nt = a[0].u.obj;
    const tn_nested *m = NT(nt);
    bool ok;
    int64_t d = wrap_dim(a[2].u.i, m, &ok), chunks = a[1].u.i;
    if (!ok) return NULL;
    if (d != m->dim) return err("Chunk for nested tensors is currently only supported for the last dimension.");
    if (chunks <= 0) return err("chunk expects `chunks` to be greater than 0");
    int64_t last = m->n ? csz(m, 0)[m->dim - 1] : 0;
    if (last % chunks)
        return PyErr_Format(PyExc_RuntimeError, "Chunk for nested tensors is only supported for nested tensors with trailing dimension "
                            "divisible by chunks, got: %lld %% %lld != 0", (long long)last, (long long)chunks);
    int64_t step = last / chunks;
    PyObject *r = PyTuple_New(chunks);
    for (int64_t k = 0; r && k < chunks; k++) {
        tn_value v[3] = {a[0], a[1], a[1]};
        v[1].u.i = k * step;
        v[2].u.i = step;
        PyObject *c = from_views(nt, per_component(nt, c_narrow_last, v, false));
        if (!c) Py_CLEAR(r);
        else PyTuple_SetItem(r, k, c);
    }
    return r;
}

static PyObject *k_eq_tensor(int op, tn_value *a) {
    if (NT(a[1].u.obj)) return err("eq does not support nested tensor as other value.");
    return k_binary(op, a);
}

static PyObject *k_narrow(int op, tn_value *a) {
    const tn_nested *m = NT(a[0].u.obj);
    bool ok;
    int64_t d = wrap_dim(a[1].u.i, m, &ok), start = a[2].u.i, len = a[3].u.i;
    if (!ok) return NULL;
    if (d != 0) return err("narrow(): only dim=0 supported for nested tensors, but got: 1");
    if (start < -m->n || start > m->n)
        return PyErr_Format(PyExc_IndexError, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                            (long long)-m->n, (long long)m->n, (long long)start);
    if (start < 0) start += m->n;
    if (len < 0) return err("narrow(): length must be non-negative.");
    if (start + len > m->n)
        return PyErr_Format(PyExc_RuntimeError, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start,
                            (long long)len, (long long)m->n);
    tn_nested *r = tn_nested_alloc(len, m->dim);
    if (!r) return PyErr_NoMemory();
    memcpy(r->sizes, m->sizes + start * m->dim, (size_t)(len * m->dim) * sizeof(int64_t));
    memcpy(r->strides, m->strides + start * m->dim, (size_t)(len * m->dim) * sizeof(int64_t));
    memcpy(r->offsets, m->offsets + start, (size_t)len * sizeof(int64_t));
    return rewrap(a[0].u.obj, r);
}

static PyObject *k_self(int op, tn_value *a) { return Py_NewRef(a[0].u.obj); }   /* to_dense: already strided */
static PyObject *k_false(int op, tn_value *a) { Py_RETURN_FALSE; }                  /* is_pinned */
static PyObject *k_cpu_device(int op, tn_value *a) { return PyLong_FromLong(-1); }  /* get_device */

static PyObject *k_is_same_size(int op, tn_value *a) {
    const tn_nested *x = NT(a[0].u.obj), *y = NT(a[1].u.obj);
    if (!x || !y) return err("Expected both self and other to be nested tensors. Self is_nested: ... Other is_nested: ...");
    return PyBool_FromLong(same_sizes(x, y));
}

/* native_layer_norm(input, normalized_shape, weight, bias, eps): on the buffer's rows */
static PyObject *k_layer_norm(int op, tn_value *a) {
    PyObject *nt = a[0].u.obj;
    const tn_nested *m = NT(nt);
    if (a[2].tag != TN_V_TENSOR || a[3].tag != TN_V_TENSOR) {
        PyErr_SetString(PyExc_ValueError, "NestedTensor layer_norm requires weight and bias");
        return NULL;
    }
    if (a[1].u.ints.n != 1) return err("NestedTensor layer_norm only supports normalized_shape of size 1");
    int64_t D = a[1].u.ints.v[0];
    for (int64_t i = 0; i < m->n; i++)
        if (m->dim < 1 || csz(m, i)[m->dim - 1] != D) return err("Expected normalized_shape to match the last dimension of every component");
    PyObject *c = contig(nt), *b = c ? buffer(c) : NULL;
    PyObject *x = b ? tn_at_view(b, TN_IS(-1, D)) : NULL;
    PyObject *r = x ? tn_at_native_layer_norm(x, TN_IS(D), a[2].u.obj, a[3].u.obj, a[4].u.f) : NULL;
    Py_XDECREF(c); Py_XDECREF(b); Py_XDECREF(x);
    if (!r) return NULL;
    PyObject *y = wrap(Py_NewRef(PyTuple_GetItem(r, 0)), meta_contig(m->n, m->dim, m->sizes));
    PyObject *res = y ? PyTuple_Pack(3, y, PyTuple_GetItem(r, 1), PyTuple_GetItem(r, 2)) : NULL;
    Py_XDECREF(y);
    Py_DECREF(r);
    return res;
}

static PyObject *k_cat(int op, tn_value *a) {
    PyObject *list = a[0].u.obj;
    Py_ssize_t k = PyTuple_Size(list);
    for (Py_ssize_t i = 0; i < k; i++)
        if (!NT(PyTuple_GetItem(list, i))) return err("Expected each tensor in given list to be nested.");
    const tn_nested *m0 = NT(PyTuple_GetItem(list, 0));
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, m0->dim + 1, &d) < 0) return NULL;
    if (d != 0) return err("cat: only dim=0 is supported for nested tensors");
    PyObject *all = PyList_New(0);
    for (Py_ssize_t i = 0; all && i < k; i++) {
        PyObject *cs = components(PyTuple_GetItem(list, i));
        for (Py_ssize_t j = 0; cs && j < PyTuple_Size(cs); j++)
            if (PyList_Append(all, PyTuple_GetItem(cs, j)) < 0) Py_CLEAR(cs);
        if (!cs) Py_CLEAR(all);
        Py_XDECREF(cs);
    }
    PyObject *r = all ? tn_nested_from_list(all, NULL) : NULL;
    Py_XDECREF(all);
    return r;
}


/* ---- the inference fast path (transformer.c) on a nested input: upstream pads inside its
 * attention; here the whole layer runs on the padded batch with the lengths as a key padding
 * mask (mask_type 1), and each component's rows are taken back */

static PyObject *padding_mask(const tn_nested *m, int64_t T) {
    PyObject *mk = tn_tensor_new_empty(2, (int64_t[]){m->n, T}, TN_DTYPE_BOOL, TN_DEVICE_CPU);
    if (!mk) return NULL;
    bool *p = (bool *)tn_data(tn_tensor_of(mk));
    for (int64_t i = 0; i < m->n; i++)
        for (int64_t t = 0; t < T; t++) p[i * T + t] = t >= csz(m, i)[0];
    return mk;
}
/* the nested tensor of like's lengths from a padded (B, T, D) result */
static PyObject *unpad(PyObject *like, PyObject *padded) {
    return padded ? tn_at__nested_from_padded_and_nested_example(padded, like) : NULL;
}
/* _nested_from_padded_and_nested_example(padded, nt_example): each component's leading block of
 * padded[i] (to_padded_tensor's backward) */
static PyObject *c_block(PyObject *c, int64_t i, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(c);
    PyObject *r = tn_at_select_int(a[0].u.obj, 0, i);
    for (int d = 0; r && d < t->ndim; d++) {
        int64_t zero = 0, len = t->sizes[d];
        Py_SETREF(r, tn_at_slice_Tensor(r, d, &zero, &len, 1));
    }
    return r;
}
PyObject *tn_op__nested_from_padded_and_nested_example(tn_value *a) {
    PyObject *like = a[1].u.obj;
    if (!NT(like)) return dense_backend(TN_ROW__nested_from_padded_and_nested_example);
    if (NT(a[0].u.obj)) return err("_nested_from_padded_and_nested_example: padded must be a dense tensor");
    if (TN_T(a[0])->ndim != NT(like)->dim + 1)
        return err("_nested_from_padded_and_nested_example: padded must have one dim more than each component");
    return per_component(like, c_block, a, true);
}

static int check_3d(PyObject *nt, const char *what) {
    const tn_nested *m = NT(nt);
    if (m->dim != 2) {
        PyErr_Format(PyExc_RuntimeError, "expected 3-D `%s`, got %d-D tensor", what, m->dim + 1);
        return -1;
    }
    return 0;
}

static PyObject *k_encoder_layer(int op, tn_value *a) {
    PyObject *src = a[0].u.obj;
    for (int i = 1; i < 20; i++)
        if (a[i].tag == TN_V_TENSOR && NT(a[i].u.obj)) return tn_not_implemented("aten::_transformer_encoder_layer_fwd with nested weights");
    if (check_3d(src, "src") < 0) return NULL;
    if (a[18].tag == TN_V_TENSOR) return tn_not_implemented("aten::_transformer_encoder_layer_fwd of a nested src with a mask");
    const tn_nested *m = NT(src);
    if (tn_nested_numel(m) == 0) return k_clone(op, a);
    PyObject *padded = tn_at_to_padded_tensor(src, 0.0, TN_IDEF);
    PyObject *mk = padded ? padding_mask(m, tn_tensor_of(padded)->sizes[1]) : NULL;
    PyObject *y = mk ? tn_at__transformer_encoder_layer_fwd(padded, a[1].u.i, a[2].u.i, a[3].u.obj, a[4].u.obj, a[5].u.obj, a[6].u.obj,
                                                             a[7].u.i, a[8].u.i, a[9].u.f, a[10].u.obj, a[11].u.obj, a[12].u.obj,
                                                             a[13].u.obj, a[14].u.obj, a[15].u.obj, a[16].u.obj, a[17].u.obj, mk,
                                                             &(int64_t){1})
                          : NULL;
    PyObject *r = unpad(src, y);
    Py_XDECREF(padded); Py_XDECREF(mk); Py_XDECREF(y);
    return r;
}

static PyObject *k_mha(int op, tn_value *a) {
    PyObject *q = a[0].u.obj, *k = a[1].u.obj, *v = a[2].u.obj;
    if (!NT(q) || !NT(k) || !NT(v) || q != k || k != v)
        return tn_not_implemented("aten::_native_multi_head_attention of nested tensors other than one self-attention input");
    if (a[9].tag == TN_V_TENSOR || a[10].u.i)
        return tn_not_implemented("aten::_native_multi_head_attention of a nested input with a mask or need_weights=True");
    if (check_3d(q, "query") < 0) return NULL;
    PyObject *padded = tn_at_to_padded_tensor(q, 0.0, TN_IDEF);
    PyObject *mk = padded ? padding_mask(NT(q), tn_tensor_of(padded)->sizes[1]) : NULL;
    PyObject *y = mk ? tn_at__native_multi_head_attention(padded, padded, padded, a[3].u.i, a[4].u.i, a[5].u.obj, a[6].u.obj,
                                                          a[7].u.obj, a[8].u.obj, mk, false, a[11].u.i, &(int64_t){1})
                     : NULL;
    PyObject *out = y ? unpad(q, PyTuple_GetItem(y, 0)) : NULL;
    PyObject *r = out ? PyTuple_Pack(2, out, Py_None) : NULL;
    Py_XDECREF(padded); Py_XDECREF(mk); Py_XDECREF(y); Py_XDECREF(out);
    return r;
}

/* ---- the stage */

typedef PyObject *(*nested_fn)(int op, tn_value *args);
static PyObject *k_own(int op, tn_value *a) { return tn_op_at(op)->fn(a); }   /* a nested.def row */

static const struct { int row; nested_fn fn; } kernels[] = {
    /* elementwise on the buffer */
    {TN_ROW_abs, k_map}, {TN_ROW_sgn, k_map}, {TN_ROW_neg, k_map}, {TN_ROW_relu, k_map}, {TN_ROW_gelu, k_map},
    {TN_ROW_silu, k_map}, {TN_ROW_sin, k_map}, {TN_ROW_cos, k_map}, {TN_ROW_sqrt, k_map}, {TN_ROW_tanh, k_map},
    {TN_ROW_logical_not, k_map}, {TN_ROW_isnan, k_map}, {TN_ROW_isinf, k_map}, {TN_ROW_isposinf, k_map},
    {TN_ROW_isneginf, k_map}, {TN_ROW_eq_Scalar, k_map}, {TN_ROW_ge_Scalar, k_map}, {TN_ROW_gt_Scalar, k_map},
    {TN_ROW_mul_Scalar, k_map}, {TN_ROW_div_Scalar, k_map}, {TN_ROW_empty_like, k_map}, {TN_ROW_ones_like, k_map},
    {TN_ROW_zeros_like, k_map}, {TN_ROW_native_dropout, k_map_tuple}, {TN_ROW_dropout, k_dropout},
    {TN_ROW_abs_, k_inplace}, {TN_ROW_sgn_, k_inplace}, {TN_ROW_neg_, k_inplace}, {TN_ROW_relu_, k_inplace},
    {TN_ROW_gelu_, k_inplace}, {TN_ROW_silu_, k_inplace}, {TN_ROW_tanh_, k_inplace}, {TN_ROW_logical_not_, k_inplace},
    {TN_ROW_mul__Scalar, k_inplace}, {TN_ROW_fill__Scalar, k_inplace}, {TN_ROW_zero_, k_inplace},
    {TN_ROW_add_Tensor, k_binary}, {TN_ROW_sub_Tensor, k_binary}, {TN_ROW_mul_Tensor, k_binary},
    {TN_ROW_div_Tensor, k_binary}, {TN_ROW_add__Tensor, k_binary}, {TN_ROW_mul__Tensor, k_binary},
    {TN_ROW_masked_fill_Scalar, k_binary}, {TN_ROW_copy_, k_binary}, {TN_ROW_threshold_backward, k_binary},
    {TN_ROW_gelu_backward, k_binary}, {TN_ROW_silu_backward, k_binary},
    /* copies and views */
    {TN_ROW_clone, k_clone}, {TN_ROW_contiguous, k_contiguous}, {TN_ROW__to_copy, k_map}, {TN_ROW_detach, k_alias},
    {TN_ROW_alias, k_alias}, {TN_ROW_unbind_int, k_unbind}, {TN_ROW_select_int, k_select},
    {TN_ROW_transpose_int, k_transpose}, {TN_ROW_mT, k_mT}, {TN_ROW_view, k_view}, {TN_ROW_reshape, k_view}, {TN_ROW_unsqueeze, k_unsqueeze},
    {TN_ROW_narrow, k_narrow}, {TN_ROW_squeeze, k_squeeze_all}, {TN_ROW_squeeze_dim, k_squeeze},
    {TN_ROW_chunk, k_chunk}, {TN_ROW_eq_Tensor, k_eq_tensor}, {TN_ROW_cat, k_cat}, {TN_ROW_is_same_size, k_is_same_size},
    {TN_ROW_is_pinned, k_false},
    /* the rest */
    {TN_ROW__softmax, k_softmax}, {TN_ROW_sum_dim_IntList, k_sum}, {TN_ROW_linear, k_linear}, {TN_ROW_bmm, k_bmm},
    {TN_ROW_matmul, k_bmm}, {TN_ROW_native_layer_norm, k_layer_norm},
    {TN_ROW__transformer_encoder_layer_fwd, k_encoder_layer}, {TN_ROW__native_multi_head_attention, k_mha},
    /* nested.def */
    {TN_ROW_to_padded_tensor, k_own}, {TN_ROW_nested_to_padded_tensor, k_own}, {TN_ROW__nested_tensor_size, k_own},
    {TN_ROW__nested_tensor_strides, k_own}, {TN_ROW__nested_from_padded_and_nested_example, k_own}, {TN_ROW__nested_tensor_storage_offsets, k_own},
};

static bool is_nested_value(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return NT(v->u.obj) != NULL;
    if (v->tag == TN_V_TENSORLIST)
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++)
            if (NT(PyTuple_GetItem(v->u.obj, k))) return true;
    return false;
}

bool tn_nested_among(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++)
        if (is_nested_value(&args[i])) return true;
    return false;
}

PyObject *tn_nested_call(int op, tn_value *args) {
    /* rows without a dense kernel have no TN_ROW_ constant: found by name once */
    static struct { const char *name; nested_fn fn; int row; } by_name[] = {{"values", k_values, -2}, {"to_dense", k_self, -2},
                                                                 {"get_device", k_cpu_device, -2}};
    for (size_t i = 0; i < sizeof by_name / sizeof *by_name; i++) {
        if (by_name[i].row == -2) by_name[i].row = tn_op_find(by_name[i].name, "");
        if (op == by_name[i].row) return by_name[i].fn(op, args);
    }
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        if (kernels[i].row == op) return kernels[i].fn(op, args);
    const tn_op_def *d = tn_op_at(op);
    /* the queries upstream's Tensor answers inline (ops/predicates.c asks a nested tensor's methods) */
    static const int queries[] = {TN_ROW_numel, TN_ROW_sym_numel, TN_ROW_dim, TN_ROW_size_int, TN_ROW_sym_size_int,
                                  TN_ROW_stride_int, TN_ROW_storage_offset, TN_ROW_is_contiguous,
                                  TN_ROW_is_contiguous_memory_format, TN_ROW_sym_is_contiguous, TN_ROW_is_leaf,
                                  TN_ROW_output_nr, TN_ROW__version, TN_ROW_retains_grad, TN_ROW_data, TN_ROW_requires_grad_};
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++)
        if (queries[i] == op) return d->fn(args);
    /* upstream's math kernels cover the nested key unless it registers one of its own; ours read
     * the dense geometry, so only those that do not run on a nested tensor (the others fail as
     * upstream's do where they ask for its sizes) */
    if (!(tn_op_tags(op) & TN_TAG_NESTED)) {
        static const int geometry_free[] = {TN_ROW_softmax_int, TN_ROW_log_softmax_int, TN_ROW_layer_norm, TN_ROW_to_dtype,
                                            TN_ROW_to_other, TN_ROW_to_device, TN_ROW_to_dtype_layout, TN_ROW_type_as};
        bool handled = false, free_ = false;
        for (size_t i = 0; i < sizeof geometry_free / sizeof *geometry_free; i++) free_ |= geometry_free[i] == op;
        PyObject *r = free_ ? tn_composite_under_mode(op, args, &handled) : NULL;
        if (handled) return r;
        if (tn_op_decomposes(op))
            return err("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.");
        return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s%s%s' with arguments from the 'NestedTensorCPU' backend. This "
                            "could be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
                            "build process (if using custom build).", d->name, d->overload[0] ? "." : "", d->overload);
    }
    char what[160];
    snprintf(what, sizeof what, "aten::%s%s%s for strided nested tensors", d->name, d->overload[0] ? "." : "", d->overload);
    return tn_not_implemented(what);
}
