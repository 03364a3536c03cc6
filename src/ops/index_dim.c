/* ops/index_dim.c — index_fill, index_add and index_copy: for each position i of a vector (or
 * scalar) index, write into self.select(dim, index[i]) (a value, source.select(dim, i) added,
 * or copied), sequentially in i so repeated indices accumulate / overwrite in upstream's order.
 *
 * Checks and messages are upstream's (each op has its own wording and its own index rules:
 * index_fill wraps negative indices and takes int64 only, index_add takes int32/int64 and no
 * negatives, index_copy int64 without wrapping). Out-of-place results: index_fill clones self
 * preserving its layout; index_add / index_copy (upstream's structured kernels) allocate a
 * contiguous result. index_add with alpha != 1 on a >= 2-d self adds each slice through the
 * door's add_ (upstream runs its add kernel per slice); the 1-d form multiplies then adds as
 * upstream's scalar loop does. */
#include "ops/common.h"
#include "dispatch/door.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <stdio.h>
#include <string.h>

typedef enum { IX_FILL, IX_ADD, IX_COPY } ix_kind;

/* Element offsets (in elements) of every position of t with dimension `dim` removed (a 0-dim
 * or 1-d tensor gives one offset, 0). Caller frees. */
static int64_t *slice_offsets(const tn_tensor *t, int dim, int64_t *count) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (d != dim) n *= t->sizes[d];
    int64_t *off = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *off);
    if (!off) { PyErr_NoMemory(); return NULL; }
    int64_t pos[TN_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t o = 0;
        for (int d = 0; d < t->ndim; d++) o += pos[d] * t->strides[d];
        off[k] = o;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (d == dim) continue;
            if (++pos[d] < t->sizes[d]) break;
            pos[d] = 0;
        }
    }
    *count = n;
    return off;
}

/* the index of index_fill / index_add as int64 values, checked to be a vector or scalar of an
 * accepted dtype (index_copy's checks: copy_checks) */
static PyObject *index_values(ix_kind kind, PyObject *index, int64_t *n) {
    const tn_tensor *it = tn_tensor_of(index);
    if (it->ndim > 1) {
        if (kind == IX_FILL) return PyErr_Format(PyExc_RuntimeError, "Index has to be a vector/scalar");
        char s[160];
        tn_shape_str(s, sizeof s, it->ndim, it->sizes);
        return PyErr_Format(PyExc_IndexError,
                            "%s(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s",
                            "index_add_", it->ndim,
                            tn_dtype_cpp_name(it->dtype), s);
    }
    if (kind == IX_FILL && it->dtype != TN_DTYPE_I64)
        return PyErr_Format(PyExc_IndexError, "index_fill_(): Expected dtype int64 for index.");
    if (kind == IX_ADD && it->dtype != TN_DTYPE_I64 && it->dtype != TN_DTYPE_I32)
        return PyErr_Format(PyExc_RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: %s",
                            tn_dtype_cpp_name(it->dtype));
    *n = tn_numel(it);
    return tn_as_dtype(index, TN_DTYPE_I64, true);
}

/* add src * alpha into dst (one element of dtype dt), as upstream's scalar loop (`mul_first`:
 * the product rounds first) or its add kernel with alpha 1 */
static int add_elem(tn_dtype dt, char *dst, const char *src, double alpha, bool mul_first) {
    switch (dt) {
    case TN_DTYPE_F32: { float *d = (float *)dst, s = *(const float *)src; *d = alpha == 1 ? *d + s : *d + s * (float)alpha; return 0; }
    case TN_DTYPE_F64: { double *d = (double *)dst, s = *(const double *)src; *d = alpha == 1 ? *d + s : *d + s * alpha; return 0; }
    case TN_DTYPE_BF16: case TN_DTYPE_F16: {
        bool bf = dt == TN_DTYPE_BF16;
        uint16_t *d = (uint16_t *)dst;
        float s = bf ? tn_bf16_to_f32(*(const uint16_t *)src) : tn_f16_to_f32(*(const uint16_t *)src);
        float a = bf ? tn_bf16_to_f32(tn_f32_to_bf16((float)alpha)) : tn_f16_to_f32(tn_f32_to_f16((float)alpha));
        if (alpha != 1 && mul_first) s = bf ? tn_bf16_to_f32(tn_f32_to_bf16(s * a)) : tn_f16_to_f32(tn_f32_to_f16(s * a));
        float r = (bf ? tn_bf16_to_f32(*d) : tn_f16_to_f32(*d)) + s;
        *d = bf ? tn_f32_to_bf16(r) : tn_f32_to_f16(r);
        return 0;
    }
#define IADD(E, T) case TN_DTYPE_##E: { T *d = (T *)dst; *d = (T)((uint64_t)*d + (uint64_t)((int64_t)*(const T *)src * (int64_t)alpha)); return 0; }
    IADD(U8, uint8_t) IADD(I8, int8_t) IADD(I16, int16_t) IADD(I32, int32_t) IADD(I64, int64_t)
    IADD(U16, uint16_t) IADD(U32, uint32_t) IADD(U64, uint64_t)
#undef IADD
    case TN_DTYPE_BOOL: { uint8_t *d = (uint8_t *)dst; *d = (*d || (*(const uint8_t *)src && alpha != 0)) ? 1 : 0; return 0; }
    /* complex (misc breadth family): d += s * complex(alpha, 0) as c10::complex multiplies */
    case TN_DTYPE_C64: {
        float *d = (float *)dst, sr = ((const float *)src)[0], si = ((const float *)src)[1], a = (float)alpha;
        if (alpha != 1) { float r = sr * a - si * 0.0f, i = sr * 0.0f + si * a; sr = r; si = i; }
        d[0] += sr; d[1] += si;
        return 0;
    }
    case TN_DTYPE_C128: {
        double *d = (double *)dst, sr = ((const double *)src)[0], si = ((const double *)src)[1];
        if (alpha != 1) { double r = sr * alpha - si * 0.0, i = sr * 0.0 + si * alpha; sr = r; si = i; }
        d[0] += sr; d[1] += si;
        return 0;
    }
    default: return -1;
    }
}

/* The write loop over an already validated (self, index, source/value). `dst` is written in
 * place; `value` is one element of dst's dtype for IX_FILL. */
static int run(ix_kind kind, PyObject *dst, int dim, const int64_t *idx, int64_t n, PyObject *src,
               const char *value, double alpha) {
    const tn_tensor *d = tn_tensor_of(dst);
    int64_t cnt, scnt = 0;
    int64_t *doff = slice_offsets(d, dim, &cnt), *soff = NULL;
    if (!doff) return -1;
    const tn_tensor *s = src ? tn_tensor_of(src) : NULL;
    if (s && !(soff = slice_offsets(s, s->ndim ? dim : 0, &scnt))) { PyMem_Free(doff); return -1; }
    int es = tn_dtype_itemsize(d->dtype);
    int64_t dstride = d->ndim ? d->strides[dim] : 0, sstride = s && s->ndim ? s->strides[dim] : 0;
    char *db = tn_data(d);
    const char *sb = s ? tn_data(s) : NULL;
    bool one_d = d->ndim <= 1;
    for (int64_t i = 0; i < n; i++) {
        char *drow = db + idx[i] * dstride * es;
        const char *srow = sb ? sb + i * sstride * es : NULL;
        for (int64_t k = 0; k < cnt; k++) {
            char *p = drow + doff[k] * es;
            if (kind == IX_FILL) memcpy(p, value, (size_t)es);
            else if (kind == IX_COPY) memcpy(p, srow + soff[k] * es, (size_t)es);
            else add_elem(d->dtype, p, srow + soff[k] * es, alpha, one_d);
        }
    }
    PyMem_Free(doff);
    PyMem_Free(soff);
    return 0;
}

/* ---- index_fill ---- */

static PyObject *index_fill(tn_value *a, bool inplace, bool tensor_value) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int dim;
    /* upstream's order (measured): the value tensor's dims, the index's dtype, a complex value
     * for a real self, then the dim, then the index's dims (index_values) */
    if (tensor_value && tn_tensor_of(a[3].u.obj)->ndim != 0)
        return PyErr_Format(PyExc_RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, but got "
                                                "tensor with %d dimension(s).", tn_tensor_of(a[3].u.obj)->ndim);
    if (tn_tensor_of(a[2].u.obj)->dtype != TN_DTYPE_I64)
        return PyErr_Format(PyExc_IndexError, "index_fill_(): Expected dtype int64 for index.");
    if (!tn_dtype_is_complex(t->dtype) &&
        (tensor_value ? tn_dtype_is_complex(tn_tensor_of(a[3].u.obj)->dtype) : a[3].tag == TN_V_COMPLEX))
        return PyErr_Format(PyExc_RuntimeError, "index_fill_(): Converting complex Scalar to non-complex type is not supported");
    if (tn_wrap_dim_i(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    int64_t n;
    PyObject *ix = index_values(IX_FILL, a[2].u.obj, &n);
    if (!ix) return NULL;
    if (tn_dtype_barebones(t->dtype)) { /* no uint16/32/64 or float8 kernel upstream; its bounds check is in the kernel */
        Py_DECREF(ix);
        return tn_kernel_missing("index_fill_cpu", t->dtype);
    }
    /* upstream converts the value first, then its kernel checks each index while it writes: over
     * self restrided to the index's count along dim, so nothing is checked when that is empty
     * (zeros(3, 0).index_fill(0, tensor([5]), 2) runs; measured) */
    PyObject *val = tn_tensor_new_empty(0, NULL, t->dtype, TN_DEVICE_CPU);
    if (!val || (tensor_value ? tn_copy_into(val, a[3].u.obj) : tn_cr_fill_checked(val, &a[3])) < 0) {
        Py_XDECREF(val);
        Py_DECREF(ix);
        return NULL;
    }
    int64_t written = n;
    for (int d = 0; d < t->ndim; d++) if (d != dim) written *= t->sizes[d];
    if (written == 0) n = 0;
    int64_t size = t->ndim ? t->sizes[dim] : 1, *iv = (int64_t *)tn_data(tn_tensor_of(ix));
    int64_t *w = PyMem_Malloc((size_t)(n ? n : 1) * sizeof *w);
    if (!w) { Py_DECREF(val); Py_DECREF(ix); return PyErr_NoMemory(); }
    for (int64_t i = 0; i < n; i++) {
        int64_t v = iv[i] < 0 ? iv[i] + size : iv[i];
        if (v < 0 || v >= size) {
            PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension %d with size %lld",
                         (long long)iv[i], dim, (long long)size);
            PyMem_Free(w);
            Py_DECREF(val);
            Py_DECREF(ix);
            return NULL;
        }
        w[i] = v;
    }
    Py_DECREF(ix);
    PyObject *dst = inplace ? Py_NewRef(self) : tn_at_clone(self, NULL);
    if (dst && run(IX_FILL, dst, dim, w, n, NULL, tn_data(tn_tensor_of(val)), 0) < 0) Py_CLEAR(dst);
    Py_XDECREF(val);
    PyMem_Free(w);
    return dst;
}
PyObject *tn_op_index_fill_int_Scalar(tn_value *a) { return index_fill(a, false, false); }
PyObject *tn_op_index_fill__int_Scalar(tn_value *a) { return index_fill(a, true, false); }
PyObject *tn_op_index_fill_int_Tensor(tn_value *a) { return index_fill(a, false, true); }
PyObject *tn_op_index_fill__int_Tensor(tn_value *a) { return index_fill(a, true, true); }

/* ---- index_add / index_copy ---- */

/* index_add: source's shape must be self's with dim's size replaced by the number of indices */
static int check_source(const tn_tensor *t, const tn_tensor *s, int dim, int64_t n) {
    if (t->dtype != s->dtype) {
        PyErr_Format(PyExc_RuntimeError, "index_add_(): self (%s) and source (%s) must have the same scalar type",
                     tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(s->dtype));
        return -1;
    }
    int64_t src_n = s->ndim ? s->sizes[dim < s->ndim ? dim : 0] : 1;
    if (s->ndim > 0 && t->ndim > 0 && src_n != n) {
        PyErr_Format(PyExc_RuntimeError, "index_add_(): Number of indices (%lld) should be equal to "
                                         "source.size(dim): (%lld), for dim: %d", (long long)n, (long long)src_n, dim);
        return -1;
    }
    bool same = s->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++) same = d == dim || s->sizes[d] == t->sizes[d];
    if (same) return 0;
    char a[160], b[160];
    tn_shape_str(a, sizeof a, t->ndim, t->sizes);
    tn_shape_str(b, sizeof b, s->ndim, s->sizes);
    PyErr_Format(PyExc_RuntimeError, "source tensor shape must match self tensor shape, excluding the "
                                     "specified dimension. Got self.shape = %s source.shape = %s", a, b);
    return -1;
}

/* index_copy's checks in upstream's order (its meta function, measured): the written-to tensor
 * (self in place, out=) overlapping itself or an input, out='s dtype, the index's dims, a scalar
 * source's one index, the dims of source against self, the index's dtype, source's dtype, the
 * slice shapes, then the number of indices against source.size(dim). 0 or -1. */
static int copy_checks(tn_value *a, PyObject *target, PyObject *out, int dim) {
    PyObject *self = a[0].u.obj, *index = a[2].u.obj, *src = a[3].u.obj;
    const tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(index), *s = tn_tensor_of(src);
    if (target) {
        PyObject *ins[2] = {index, src};
        if (tn_check_no_overlap(target, 2, ins) < 0) return -1;
    }
    if (tn_out_dtype_exact(out, t->dtype) < 0) return -1;
    if (it->ndim >= 2) {
        PyErr_Format(PyExc_IndexError, "index_copy_(): Index should have dimension 1 or 0 (got %d)", it->ndim);
        return -1;
    }
    int64_t n = tn_numel(it);
    if (s->ndim == 0 && n != 1) {
        PyErr_Format(PyExc_IndexError, "index_copy_(): When source is scalar, index should have one element (got %lld)", (long long)n);
        return -1;
    }
    if (s->ndim != t->ndim && s->ndim != 0 && t->ndim != 0) {
        PyErr_Format(PyExc_IndexError, "index_copy_(): When source and destination are not scalars, their dimensionality must "
                                       "match. Source dimensionality (%d), destination dimensionality (%d)", s->ndim, t->ndim);
        return -1;
    }
    if (it->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "index_copy_(): Expected a long tensor for index, but got %s", tn_dtype_cpp_name(it->dtype));
        return -1;
    }
    if (t->dtype != s->dtype) {
        PyErr_Format(PyExc_RuntimeError, "index_copy_(): self and source expected to have the same dtype, but got (self) %s and "
                                         "(source) %s", tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(s->dtype));
        return -1;
    }
    /* the sizes of each with dim removed (a 0-dim one has none; dim is within source's dims when
     * it has any), as upstream prints them: space-separated */
    int64_t ta[TN_MAX_DIMS], sb[TN_MAX_DIMS];
    int nt = 0, ns = 0;
    char da[200] = "", sa[200] = "";
    for (int d = 0; d < t->ndim; d++)
        if (d != dim) ta[nt++] = t->sizes[d];
    for (int d = 0; d < s->ndim; d++)
        if (d != dim) sb[ns++] = s->sizes[d];
    bool same = nt == ns;
    for (int k = 0; same && k < nt; k++) same = ta[k] == sb[k];
    for (int k = 0; k < nt; k++) { size_t l = strlen(da); snprintf(da + l, sizeof da - l, "%s%lld", k ? " " : "", (long long)ta[k]); }
    for (int k = 0; k < ns; k++) { size_t l = strlen(sa); snprintf(sa + l, sizeof sa - l, "%s%lld", k ? " " : "", (long long)sb[k]); }
    if (!same) {
        PyErr_Format(PyExc_RuntimeError, "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                                         "slice shape: %s at dimension %d and source slice shape: %s at dimension 0.", da, dim, sa);
        return -1;
    }
    if (s->ndim > 0 && n != s->sizes[dim]) {
        PyErr_Format(PyExc_IndexError, "index_copy_(): Number of indices (%lld) should be equal to source.size(dim) (%lld)",
                     (long long)n, (long long)s->sizes[dim]);
        return -1;
    }
    return 0;
}

/* On meta, upstream's functional and in-place index_add / index_copy are its Python
 * decompositions: after the dim wrap, self, index and source on one device (in their words; the
 * door leaves these rows' device check to them), then the index's dims (docs/breadth_more2.md). */
static int meta_decomp_checks(ix_kind kind, tn_value *a, bool inplace, PyObject *out) {
    if (!tn_door_on_meta() || out) return 0;
    (void)inplace;
    PyObject *self = a[0].u.obj, *index = a[2].u.obj, *src = a[3].u.obj;
    tn_device_type ds = tn_door_arg_device(self), di = tn_door_arg_device(index), dsrc = tn_door_arg_device(src);
    const char *name = kind == IX_ADD ? "index_add" : "index_copy";
    if (ds != di || ds != dsrc) {
#define DEVN(d) ((d) == TN_DEVICE_META ? "meta" : "cpu")
        PyErr_Format(PyExc_RuntimeError, "%s(): self, index and source expected to be in the same device, but got "
                     "(self) %s, (index) %s, and (source) %s", name, DEVN(ds), DEVN(di), DEVN(dsrc));
#undef DEVN
        return -1;
    }
    int nd = tn_tensor_of(index)->ndim;
    if (nd > 1) {
        PyErr_Format(PyExc_RuntimeError, "Index should have dimension 1 or 0 (got %d)", nd);
        return -1;
    }
    return 0;
}

static PyObject *add_or_copy(ix_kind kind, tn_value *a, bool inplace, PyObject *out) {
    PyObject *self = a[0].u.obj, *src = a[3].u.obj;
    const tn_tensor *t = tn_tensor_of(self), *s = tn_tensor_of(src);
    int dim;
    if (tn_wrap_dim_i(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    if (meta_decomp_checks(kind, a, inplace, out) < 0) return NULL;
    int64_t n;
    PyObject *ix;
    if (kind == IX_COPY) {
        if (copy_checks(a, inplace ? self : out, out, dim) < 0) return NULL;
        n = tn_numel(tn_tensor_of(a[2].u.obj));
        if (!(ix = tn_as_dtype(a[2].u.obj, TN_DTYPE_I64, true))) return NULL;
    } else {
        if (!(ix = index_values(kind, a[2].u.obj, &n))) return NULL;
        if (check_source(t, s, dim, n) < 0) { Py_DECREF(ix); return NULL; }
    }
    /* the structured out='s exact dtype before the kernel (measured) */
    if (kind == IX_ADD && tn_out_dtype_exact(out, t->dtype) < 0) { Py_DECREF(ix); return NULL; }
    if (tn_dtype_barebones(t->dtype)) { /* upstream has no uint16/32/64 or float8 kernel */
        Py_DECREF(ix);
        return tn_kernel_missing(kind == IX_ADD ? "index_add_" : "index_copy_cpu", t->dtype);
    }
    int64_t size = t->ndim ? t->sizes[dim] : 1, *iv = (int64_t *)tn_data(tn_tensor_of(ix));
    for (int64_t i = 0; i < n; i++)
        if (iv[i] < 0 || iv[i] >= size) {
            /* upstream's CPU index_add: a self of 2+ dims with an int64 index and alpha 1 goes
             * through its scatter-add path (RuntimeError with the index), every other call
             * through its loop's TORCH_CHECK_INDEX (measured) */
            if (kind == IX_ADD && t->ndim > 1 && tn_tensor_of(a[2].u.obj)->dtype == TN_DTYPE_I64 &&
                tn_value_as_double(&a[4]) == 1)
                PyErr_Format(PyExc_RuntimeError, "index %lld is out of bounds for dimension %d with size %lld",
                             (long long)iv[i], dim, (long long)size);
            else if (kind == IX_ADD)
                PyErr_SetString(PyExc_IndexError, "index out of range in self");
            else
                PyErr_Format(PyExc_IndexError, "index_copy_(): index %lld is out of bounds for dimension %d with size %lld",
                             (long long)iv[i], dim, (long long)size);
            Py_DECREF(ix);
            return NULL;
        }
    double alpha = kind == IX_ADD ? tn_value_as_double(&a[4]) : 1;
    PyObject *dst = inplace ? Py_NewRef(self) : tn_as_dtype(self, t->dtype, true);
    if (dst && !inplace && dst == self) Py_SETREF(dst, tn_at_clone(self, NULL));
    int rc = dst ? 0 : -1;
    bool same_sizes = s->ndim == t->ndim;
    for (int d = 0; same_sizes && d < t->ndim; d++) same_sizes = d == dim || s->sizes[d] == t->sizes[d];
    if (!rc && kind == IX_ADD && t->ndim > 1 && n > 0 && tn_numel(t) > 0 && (dim == 0 || dim == t->ndim - 1) &&
        alpha == 1 && tn_tensor_of(a[2].u.obj)->dtype == TN_DTYPE_I64 && same_sizes) {
        /* upstream's scatter_add_ path: the index expanded over the other dims (stride 0) */
        int64_t es[TN_MAX_DIMS], est[TN_MAX_DIMS];
        for (int d = 0; d < t->ndim; d++) { es[d] = d == dim ? n : t->sizes[d]; est[d] = d == dim ? 1 : 0; }
        PyObject *ep = tn_at_as_strided(ix, TN_IN(es, t->ndim), TN_IN(est, t->ndim), NULL);
        PyObject *r = ep ? tn_at_scatter_add_(dst, dim, ep, src) : NULL;
        rc = r ? 0 : -1;
        Py_XDECREF(ep); Py_XDECREF(r);
    } else if (!rc && kind == IX_ADD && alpha != 1 && t->ndim > 1) { /* upstream's add kernel, slice by slice */
        for (int64_t i = 0; i < n && !rc; i++) {
            PyObject *ds = tn_at_select_int(dst, dim, (long long)iv[i]);
            PyObject *ss = ds ? tn_at_select_int(src, dim, (long long)i) : NULL;
            PyObject *r = ss ? tn_at_add__Tensor(ds, ss, TN_SV(&a[4])) : NULL;
            rc = r ? 0 : -1;
            Py_XDECREF(ds); Py_XDECREF(ss); Py_XDECREF(r);
        }
    } else if (!rc) {
        if (kind == IX_ADD && t->dtype != TN_DTYPE_BOOL && t->dtype != TN_DTYPE_F32 && t->dtype != TN_DTYPE_F64 &&
            t->dtype != TN_DTYPE_F16 && t->dtype != TN_DTYPE_BF16 && t->dtype != TN_DTYPE_C64 && t->dtype != TN_DTYPE_C128 &&
            !tn_dtype_is_integral(t->dtype, false)) {
            tn_kernel_missing("index_add_cpu_", t->dtype);
            rc = -1;
        } else rc = run(kind, dst, dim, iv, n, src, NULL, alpha);
    }
    Py_DECREF(ix);
    if (rc < 0) { Py_XDECREF(dst); return NULL; }
    return out ? tn_out_deliver(dst, out, kind == IX_ADD ? "index_add" : "index_copy") : dst;
}
PyObject *tn_op_index_add(tn_value *a) { return add_or_copy(IX_ADD, a, false, NULL); }
PyObject *tn_op_index_add_(tn_value *a) { return add_or_copy(IX_ADD, a, true, NULL); }
PyObject *tn_op_index_add_out(tn_value *a) { return add_or_copy(IX_ADD, a, false, a[5].u.obj); }
PyObject *tn_op_index_copy(tn_value *a) { return add_or_copy(IX_COPY, a, false, NULL); }
PyObject *tn_op_index_copy_(tn_value *a) { return add_or_copy(IX_COPY, a, true, NULL); }
PyObject *tn_op_index_copy_out(tn_value *a) { return add_or_copy(IX_COPY, a, false, a[4].u.obj); }
