/* sparse_compressed.c — the sparse compressed layouts (CSR, CSC, BSR, BSC): upstream's
 * SparseCsrTensorImpl and the SparseCsrCPU kernels everyday code reaches (docs/sparse_compressed.md).
 *
 * A compressed tensor is a tensor object like a COO one (ops/sparse.c: no bytes of its own, zero
 * strides) whose `sparse` (core/object.h) has kind CSR / CSC / BSR / BSC and holds the compressed
 * indices ([*batch, ncompressed + 1]), the plain indices ([*batch, nnz]) and the values
 * ([*batch, nnz, *block, *dense]). The door sends every call with one among its arguments to
 * sparse.c's stage, which asks tn_compressed_call first. Kernels are built from dense ops on the
 * members through the typed op API; the loops of our own expand the compressed indices into one
 * (batch, compressed, plain) triple per specified element and check upstream's index invariants. */
#include "ops/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/common.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);   /* ops/create.c */

static tn_sparse *CP(PyObject *o) { return o && tn_py_is_tensor(o) ? tn_compressed_of(o) : NULL; }
static bool row_major(int kind) { return kind == TN_SPARSE_CSR || kind == TN_SPARSE_BSR; }
static bool blocked(int kind) { return kind == TN_SPARSE_BSR || kind == TN_SPARSE_BSC; }

static PyObject *layout_of_kind(int kind) {
    switch (kind) {
    case TN_SPARSE_CSR: return tn_py.layout_sparse_csr;
    case TN_SPARSE_CSC: return tn_py.layout_sparse_csc;
    case TN_SPARSE_BSR: return tn_py.layout_sparse_bsr;
    case TN_SPARSE_BSC: return tn_py.layout_sparse_bsc;
    }
    return tn_py.layout_sparse_coo;
}
/* the compressed kind of a layout object, 0 for any other */
static int kind_of_layout(PyObject *l) {
    for (int k = TN_SPARSE_CSR; k <= TN_SPARSE_BSC; k++)
        if (l == layout_of_kind(k)) return k;
    return 0;
}
/* upstream's layout names in messages ("but got SparseCsr") */
static const char *layout_name(PyObject *l) {
    static const char *const names[] = {"Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc"};
    if (l == tn_py.layout_strided) return "Strided";
    if (l == tn_py.layout_sparse_coo) return "Sparse";
    int k = kind_of_layout(l);
    return k ? names[k] : "Mkldnn";
}
static const char *tensor_layout_name(PyObject *t) {
    tn_sparse *m = tn_py_is_tensor(t) ? ((tn_tensor_obj *)t)->sparse : NULL;
    return layout_name(m ? layout_of_kind(m->kind) : tn_py.layout_strided);
}
static const char *cname(int kind) { return row_major(kind) ? "crow_indices" : "ccol_indices"; }
static const char *pname(int kind) { return row_major(kind) ? "col_indices" : "row_indices"; }

static PyObject *err(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return NULL;
}

/* ---- the tensor ---- */

/* A new compressed tensor of `size` over its members (references taken; NULL passes a failure
 * through). The values' dtype is the tensor's. */
static PyObject *make(int kind, const int64_t *size, int ndim, PyObject *ci, PyObject *pi, PyObject *v) {
    PyObject *o = NULL;
    if (!ci || !pi || !v) goto done;
    static bool warned;   /* upstream's compressed tensor constructor warns once per process */
    if (!warned) {
        warned = true;
        static const char *const names[] = {"CSR", "CSC", "BSR", "BSC"};
        if (PyErr_WarnFormat(PyExc_UserWarning, 1, "Sparse %s tensor support is in beta state. If you miss a "
                             "functionality in the sparse tensor support, please submit a feature request to "
                             "https://github.com/pytorch/pytorch/issues. (Triggered internally at "
                             "/__w/pytorch/pytorch/aten/src/ATen/SparseCsrTensorImpl.cpp:49.)", names[kind - TN_SPARSE_CSR]) < 0)
            goto done;
    }
    tn_storage *st = tn_storage_new(0, tn_tensor_of(v)->storage->device);
    if (!st) { PyErr_NoMemory(); goto done; }
    st->no_data = true;
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = st;
    t.dtype = tn_tensor_of(v)->dtype;
    t.ndim = ndim;
    if (ndim) memcpy(t.sizes, size, (size_t)ndim * sizeof *size);
    if (!(o = tn_tensor_wrap(&t))) goto done;
    int batch = tn_tensor_of(ci)->ndim - 1, dense = tn_tensor_of(v)->ndim - batch - 1 - (blocked(kind) ? 2 : 0);
    tn_sparse m = {2, dense < 0 ? 0 : dense, false, ci, v, kind, pi};
    if (tn_sparse_set(o, &m) < 0) { Py_CLEAR(o); goto done; }
    ((tn_tensor_obj *)o)->layout = Py_NewRef(layout_of_kind(kind));
done:
    Py_XDECREF(ci);
    Py_XDECREF(pi);
    Py_XDECREF(v);
    return o;
}
static PyObject *make_like(PyObject *like, PyObject *ci, PyObject *pi, PyObject *v) {
    const tn_tensor *t = tn_tensor_of(like);
    return make(CP(like)->kind, t->sizes, t->ndim, ci, pi, v);
}
/* a new tensor object over t's storage and geometry, not a view (upstream returns its member) */
static PyObject *share(PyObject *t) {
    tn_tensor c = *tn_tensor_of(t);
    tn_storage_incref(c.storage);
    return tn_tensor_wrap(&c);
}

/* the values' block size (1, 1 when not blocked) */
static void blocksize_of(const tn_sparse *m, int64_t *br, int64_t *bc) {
    *br = *bc = 1;
    if (!blocked(m->kind)) return;
    const tn_tensor *v = tn_tensor_of(m->values), *ci = tn_tensor_of(m->indices);
    int b = ci->ndim - 1;
    if (v->ndim >= b + 3) { *br = v->sizes[b + 1]; *bc = v->sizes[b + 2]; }
}

/* ---- upstream's invariants (_validate_sparse_compressed_tensor_args_worker) ---- */

static void fmt_dims(char *b, size_t n, const int64_t *v, int nd) {
    size_t k = (size_t)snprintf(b, n, "[");
    for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(b + k, n - k, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (k < n) snprintf(b + k, n - k, "]");
}

/* the index invariants (upstream's _validate_compressed_sparse_indices, in its order): ci and pi
 * int64 contiguous [B, ncomp + 1] / [B, nnz] */
static int check_indices(int kind, const int64_t *C, const int64_t *P, int64_t B, int64_t ncomp, int64_t nplain, int64_t nnz) {
    const char *cn = cname(kind), *pn = pname(kind), *pd = row_major(kind) ? "ncols" : "nrows";
    for (int64_t b = 0; b < B; b++)
        if (C[b * (ncomp + 1)] != 0) {
            PyErr_Format(PyExc_RuntimeError, "`%s[..., 0] == 0` is not satisfied.", cn);
            return -1;
        }
    for (int64_t b = 0; b < B; b++)
        if (C[b * (ncomp + 1) + ncomp] != nnz) {
            PyErr_Format(PyExc_RuntimeError, "`%s[..., -1] == nnz` is not satisfied.", cn);
            return -1;
        }
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 1; i <= ncomp; i++) {
            int64_t d = C[b * (ncomp + 1) + i] - C[b * (ncomp + 1) + i - 1];
            if (d < 0 || d > nplain) {
                PyErr_Format(PyExc_RuntimeError, "`0 <= %s[..., 1:] - %s[..., :-1] <= %s` is not satisfied.", cn, cn, pd);
                return -1;
            }
        }
    for (int64_t k = 0; k < B * nnz; k++)
        if (P[k] < 0 || P[k] >= nplain) {
            PyErr_Format(PyExc_RuntimeError, "`0 <= %s < %s` is not satisfied.", pn, pd);
            return -1;
        }
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < ncomp; i++)
            for (int64_t k = C[b * (ncomp + 1) + i] + 1; k < C[b * (ncomp + 1) + i + 1]; k++)
                if (P[b * nnz + k] <= P[b * nnz + k - 1]) {
                    PyErr_Format(PyExc_RuntimeError, "`%s[..., %s[..., i - 1]:%s[..., i]] for all i = 1, ..., %s are sorted and "
                                 "distinct along the last dimension values` is not satisfied.", pn, cn, cn,
                                 row_major(kind) ? "nrows" : "ncols");
                    return -1;
                }
    return 0;
}

static int validate(PyObject *cio, PyObject *pio, PyObject *vo, const int64_t *size, int nsize, int kind) {
    const tn_tensor *ci = tn_tensor_of(cio), *pi = tn_tensor_of(pio), *v = tn_tensor_of(vo);
    const char *cn = cname(kind), *pn = pname(kind);
    char b1[120], b2[120], b3[120], b4[120];
    if (((tn_tensor_obj *)pio)->sparse) {
        PyErr_Format(PyExc_RuntimeError, "expected %s to be a strided tensor but got %s tensor", pn, tensor_layout_name(pio));
        return -1;
    }
    if (((tn_tensor_obj *)cio)->sparse) {
        PyErr_Format(PyExc_RuntimeError, "expected %s to be a strided tensor but got %s tensor", cn, tensor_layout_name(cio));
        return -1;
    }
    int batch = ci->ndim - 1, block = blocked(kind) ? 2 : 0, dense = v->ndim - batch - block - 1;
    if (((tn_tensor_obj *)vo)->sparse) {
        PyErr_Format(PyExc_RuntimeError, "expected values to be a strided tensor but got %s tensor", tensor_layout_name(vo));
        return -1;
    }
    if (batch < 0) { PyErr_Format(PyExc_RuntimeError, "%s must have dimensionality >= 1 but got %d", cn, ci->ndim); return -1; }
    if (ci->ndim != pi->ndim) {
        PyErr_Format(PyExc_RuntimeError, "%s and %s dimensionalities must be equal but got %d and %d, respectively", cn, pn, ci->ndim,
                     pi->ndim);
        return -1;
    }
    if (dense < 0) {
        PyErr_Format(PyExc_RuntimeError, "values must have dimensionality > sum of batch and block dimensionalities (=%d + %d) but got %d",
                     batch, block, v->ndim);
        return -1;
    }
    if (pi->sizes[pi->ndim - 1] != 0 && pi->strides[pi->ndim - 1] != 1 && pi->sizes[pi->ndim - 1] != 1) {
        PyErr_Format(PyExc_RuntimeError, "expected %s to be a contiguous tensor per batch", pn);
        return -1;
    }
    if (ci->sizes[ci->ndim - 1] != 1 && ci->strides[ci->ndim - 1] != 1) {
        PyErr_Format(PyExc_RuntimeError, "expected %s to be a contiguous tensor per batch", cn);
        return -1;
    }
    if (nsize != batch + 2 + dense) {
        PyErr_Format(PyExc_RuntimeError, "tensor dimensionality must be sum of batch, base, and dense dimensionalities (=%d + 2 + %d) "
                     "but got %d", batch, dense, nsize);
        return -1;
    }
    int64_t bs[2] = {1, 1};
    if (block) {
        bs[0] = v->sizes[batch + 1] > 1 ? v->sizes[batch + 1] : 1;
        bs[1] = v->sizes[batch + 2] > 1 ? v->sizes[batch + 2] : 1;
    }
    bool same = true;
    for (int d = 0; d < batch; d++)
        same = same && size[d] == ci->sizes[d] && size[d] == pi->sizes[d] && size[d] == v->sizes[d];
    if (!same) {
        fmt_dims(b1, sizeof b1, ci->sizes, batch);
        fmt_dims(b2, sizeof b2, pi->sizes, batch);
        fmt_dims(b3, sizeof b3, v->sizes, batch);
        fmt_dims(b4, sizeof b4, size, batch);
        PyErr_Format(PyExc_RuntimeError, "all batch dimensions of %s (=%s), %s (=%s), and values (=%s) must be equal to tensor batch "
                     "dimensions (=%s)", cn, b1, pn, b2, b3, b4);
        return -1;
    }
    for (int i = 0; i < block; i++)
        if (size[batch + i] % bs[i]) {
            PyErr_Format(PyExc_RuntimeError, "tensor shape[%d] (=%lld) must be divisible with blocksize[%d] (=%lld) as defined by values "
                         "shape", batch + i, (long long)size[batch + i], i, (long long)bs[i]);
            return -1;
        }
    int64_t nrows = size[batch] / bs[0], ncols = size[batch + 1] / bs[1];
    int64_t ncomp = row_major(kind) ? nrows : ncols, nplain = row_major(kind) ? ncols : nrows;
    if (ci->sizes[batch] != ncomp + 1) {
        PyErr_Format(PyExc_RuntimeError, "%s.shape[-1] must be equal to the number of %s + 1 (=%lld), but got %lld", cn,
                     row_major(kind) ? "rows" : "columns", (long long)(ncomp + 1), (long long)ci->sizes[batch]);
        return -1;
    }
    int64_t nnz = v->sizes[batch];
    if (pi->sizes[batch] != nnz) {
        PyErr_Format(PyExc_RuntimeError, "%s.shape[-1] must be equal to nnz (=%lld) as defined by values.shape[%d], but got %lld", pn,
                     (long long)nnz, batch, (long long)pi->sizes[batch]);
        return -1;
    }
    if (ci->dtype != pi->dtype) {
        PyErr_Format(PyExc_RuntimeError, "%s and %s must have the same dtype, bot got %s and %s, respectively", cn, pn,
                     tn_dtype_cpp_name(ci->dtype), tn_dtype_cpp_name(pi->dtype));
        return -1;
    }
    if (ci->dtype != TN_DTYPE_I32 && ci->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "%s and %s dtype must be Int or Long, but got %s", cn, pn, tn_dtype_cpp_name(ci->dtype));
        return -1;
    }
    PyObject *C = tn_as_dtype(cio, TN_DTYPE_I64, true), *P = C ? tn_as_dtype(pio, TN_DTYPE_I64, true) : NULL;
    int rc = -1;
    if (P) {
        int64_t B = 1;
        for (int d = 0; d < batch; d++) B *= size[d];
        rc = check_indices(kind, (const int64_t *)tn_data(tn_tensor_of(C)), (const int64_t *)tn_data(tn_tensor_of(P)), B, ncomp, nplain,
                           nnz);
    }
    Py_XDECREF(C);
    Py_XDECREF(P);
    return rc;
}

/* ---- constructors ---- */

/* _sparse_compressed_tensor_unsafe's body: the members held as they are (values in `dtype` when
 * given), validated when the invariant checks are on */
static PyObject *construct(PyObject *ci, PyObject *pi, PyObject *v, const int64_t *size, int nsize, const tn_value *dtype, int kind) {
    if (tn_sparse_check_invariants && validate(ci, pi, v, size, nsize, kind) < 0) return NULL;
    if (nsize > TN_MAX_DIMS) return err("sparse_compressed_tensor: too many dimensions");
    PyObject *vals = tn_at_alias(v);
    if (vals && dtype && dtype->tag == TN_V_DTYPE && dtype->u.dtype != tn_tensor_of(v)->dtype)
        Py_SETREF(vals, tn_at__to_copy(vals, TN_DT(dtype->u.dtype), NULL, NULL, NULL, false, NULL));
    if (vals) Py_SETREF(vals, tn_at_detach(vals));
    return make(kind, size, nsize, tn_at_detach(ci), tn_at_detach(pi), vals);
}

/* upstream's _estimate_sparse_compressed_tensor_size: the size from the indices and values */
static int estimate_size(PyObject *cio, PyObject *pio, PyObject *vo, int kind, int64_t *size, int *nsize) {
    const tn_tensor *ci = tn_tensor_of(cio), *pi = tn_tensor_of(pio), *v = tn_tensor_of(vo);
    const char *cn = cname(kind), *pn = pname(kind);
    int batch = ci->ndim - 1, block = blocked(kind) ? 2 : 0;
    if (batch < 0) { PyErr_Format(PyExc_RuntimeError, "%s must have dimensionality >= 1 but got %d", cn, ci->ndim); return -1; }
    if (ci->ndim != pi->ndim) {
        PyErr_Format(PyExc_RuntimeError, "%s and %s dimensionalities must be equal but got %d and %d, respectively", cn, pn, ci->ndim,
                     pi->ndim);
        return -1;
    }
    int dense = v->ndim - batch - block - 1;
    if (dense < 0) {
        PyErr_Format(PyExc_RuntimeError, "values must have dimensionality > sum of batch and block dimensionalities (=%d + %d) but got %d",
                     batch, block, v->ndim);
        return -1;
    }
    if (batch + 2 + dense > TN_MAX_DIMS) { PyErr_SetString(PyExc_RuntimeError, "sparse_compressed_tensor: too many dimensions"); return -1; }
    int64_t bs[2] = {1, 1};
    if (block) {
        bs[0] = v->sizes[batch + 1] > 1 ? v->sizes[batch + 1] : 1;
        bs[1] = v->sizes[batch + 2] > 1 ? v->sizes[batch + 2] : 1;
    }
    for (int d = 0; d < batch; d++) size[d] = ci->sizes[d];
    int64_t ncomp = ci->sizes[batch] > 0 ? ci->sizes[batch] - 1 : 0, nplain = 0;
    if (tn_numel(pi) > 0) {
        PyObject *mx = tn_at_max(pio);
        PyObject *l = mx ? tn_as_dtype(mx, TN_DTYPE_I64, true) : NULL;
        Py_XDECREF(mx);
        if (!l) return -1;
        nplain = *(const int64_t *)tn_data(tn_tensor_of(l)) + 1;
        Py_DECREF(l);
    }
    size[batch] = (row_major(kind) ? ncomp : nplain) * bs[0];
    size[batch + 1] = (row_major(kind) ? nplain : ncomp) * bs[1];
    for (int i = 0; i < dense; i++) size[batch + 2 + i] = v->sizes[batch + 1 + block + i];
    *nsize = batch + 2 + dense;
    return 0;
}

static int require_compressed_layout(const tn_value *layout, const char *what) {
    if (layout->tag != TN_V_LAYOUT || layout->u.obj == Py_None) {
        PyErr_Format(PyExc_RuntimeError, "%s expected sparse compressed tensor layout but got none", what);
        return 0;
    }
    int k = kind_of_layout(layout->u.obj);
    if (!k) PyErr_Format(PyExc_RuntimeError, "%s expected sparse compressed tensor layout but got %s", what, layout_name(layout->u.obj));
    return k;
}

/* sparse_compressed_tensor.comp_plain_value_size(ci, pi, values, size, *, dtype, layout, device, pin_memory) */
PyObject *tn_op_sparse_compressed_tensor_comp_plain_value_size(tn_value *a) {
    int k = require_compressed_layout(&a[5], "sparse_compressed_tensor");
    if (!k) return NULL;
    return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, &a[4], k);
}
/* sparse_compressed_tensor.comp_plain_value(ci, pi, values, *, dtype, layout, device, pin_memory) */
PyObject *tn_op_sparse_compressed_tensor_comp_plain_value(tn_value *a) {
    int k = require_compressed_layout(&a[4], "sparse_compressed_tensor");
    if (!k) return NULL;
    int64_t size[TN_MAX_DIMS];
    int n;
    if (estimate_size(a[0].u.obj, a[1].u.obj, a[2].u.obj, k, size, &n) < 0) return NULL;
    return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, size, n, &a[3], k);
}

/* _sparse_compressed_tensor_unsafe(ci, pi, values, size, *, dtype, layout, device, pin_memory) */
PyObject *tn_compressed_d_unsafe(tn_value *a) {
    int k = require_compressed_layout(&a[5], "sparse_compressed_tensor_unsafe");
    if (!k) return NULL;
    return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, &a[4], k);
}

/* a fixed layout's factories: the layout given must be it */
static int fixed_layout(const tn_value *layout, int kind, const char *fmt) {
    if (layout->tag == TN_V_LAYOUT && layout->u.obj != Py_None && layout->u.obj != layout_of_kind(kind)) {
        PyErr_Format(PyExc_RuntimeError, fmt, layout_name(layout_of_kind(kind)), layout_name(layout->u.obj));
        return -1;
    }
    return 0;
}
static const char *const kind_lower[] = {"coo", "csr", "csc", "bsr", "bsc"};
/* sparse_{csr,csc,bsr,bsc}_tensor with and without size */
static PyObject *fixed_ctor(tn_value *a, int kind, bool sized) {
    const tn_value *dtype = &a[sized ? 4 : 3], *layout = &a[sized ? 5 : 4];
    char fmt[80];
    snprintf(fmt, sizeof fmt, "sparse %s layout must be %%s but got %%s", kind_lower[kind]);
    if (fixed_layout(layout, kind, fmt) < 0) return NULL;
    if (sized) return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, dtype, kind);
    int64_t size[TN_MAX_DIMS];
    int n;
    if (estimate_size(a[0].u.obj, a[1].u.obj, a[2].u.obj, kind, size, &n) < 0) return NULL;
    return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, size, n, dtype, kind);
}
PyObject *tn_compressed_d_csr_size(tn_value *a) { return fixed_ctor(a, TN_SPARSE_CSR, true); }
PyObject *tn_compressed_d_csc_size(tn_value *a) { return fixed_ctor(a, TN_SPARSE_CSC, true); }
PyObject *tn_compressed_d_bsr_size(tn_value *a) { return fixed_ctor(a, TN_SPARSE_BSR, true); }
PyObject *tn_compressed_d_bsc_size(tn_value *a) { return fixed_ctor(a, TN_SPARSE_BSC, true); }
PyObject *tn_compressed_d_csr(tn_value *a) { return fixed_ctor(a, TN_SPARSE_CSR, false); }
PyObject *tn_compressed_d_csc(tn_value *a) { return fixed_ctor(a, TN_SPARSE_CSC, false); }
PyObject *tn_compressed_d_bsr(tn_value *a) { return fixed_ctor(a, TN_SPARSE_BSR, false); }
PyObject *tn_compressed_d_bsc(tn_value *a) { return fixed_ctor(a, TN_SPARSE_BSC, false); }

/* _sparse_{csr,csc,bsr,bsc}_tensor_unsafe(ci, pi, values, size, *, dtype, layout, device, pin_memory) */
static PyObject *fixed_unsafe(tn_value *a, int kind) {
    if (fixed_layout(&a[5], kind, "sparse compressed layout must be %s but got %s") < 0) return NULL;
    return construct(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, &a[4], kind);
}
PyObject *tn_compressed_d_csr_unsafe(tn_value *a) { return fixed_unsafe(a, TN_SPARSE_CSR); }
PyObject *tn_compressed_d_csc_unsafe(tn_value *a) { return fixed_unsafe(a, TN_SPARSE_CSC); }
PyObject *tn_compressed_d_bsr_unsafe(tn_value *a) { return fixed_unsafe(a, TN_SPARSE_BSR); }
PyObject *tn_compressed_d_bsc_unsafe(tn_value *a) { return fixed_unsafe(a, TN_SPARSE_BSC); }

/* _validate_sparse_compressed_tensor_args(ci, pi, values, size, layout, check_pinning) */
PyObject *tn_compressed_d_validate(tn_value *a) {
    int k = kind_of_layout(a[4].u.obj);
    if (!k)
        return PyErr_Format(PyExc_RuntimeError, "validate_sparse_compressed_tensor_args expected sparse compressed tensor layout but got %s",
                            layout_name(a[4].u.obj));
    if (validate(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, k) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *validate_fixed(tn_value *a, int kind) {
    if (validate(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.ints.v, a[3].u.ints.n, kind) < 0) return NULL;
    Py_RETURN_NONE;
}
PyObject *tn_compressed_d_validate_csr(tn_value *a) { return validate_fixed(a, TN_SPARSE_CSR); }
PyObject *tn_compressed_d_validate_csc(tn_value *a) { return validate_fixed(a, TN_SPARSE_CSC); }
PyObject *tn_compressed_d_validate_bsr(tn_value *a) { return validate_fixed(a, TN_SPARSE_BSR); }
PyObject *tn_compressed_d_validate_bsc(tn_value *a) { return validate_fixed(a, TN_SPARSE_BSC); }

/* ---- the specified elements ---- */

typedef struct {
    int64_t B, ncomp, nnz;   /* batches (flattened), compressed dim (in blocks), nnz per batch */
    PyObject *b, *c, *p;     /* int64 vectors of B * nnz: each element's batch, compressed and plain index */
} entries_t;
static void entries_free(entries_t *e) { Py_CLEAR(e->b); Py_CLEAR(e->c); Py_CLEAR(e->p); }

/* each specified element's (batch, compressed, plain) indices, in storage order; an index
 * structure that would read out of bounds is refused with upstream's invariant message */
static int entries(PyObject *self, entries_t *e) {
    tn_sparse *m = CP(self);
    const tn_tensor *ci = tn_tensor_of(m->indices), *pi = tn_tensor_of(m->plain);
    memset(e, 0, sizeof *e);
    int batch = ci->ndim - 1;
    e->B = 1;
    for (int d = 0; d < batch; d++) e->B *= ci->sizes[d];
    e->ncomp = ci->sizes[batch] - 1;
    e->nnz = pi->sizes[pi->ndim - 1];
    if (pi->ndim != ci->ndim || tn_numel(pi) != e->B * e->nnz) {   /* an unchecked tensor whose members disagree */
        PyErr_Format(PyExc_RuntimeError, "%s and %s dimensionalities or batch sizes must be equal", cname(m->kind), pname(m->kind));
        return -1;
    }
    PyObject *C = tn_as_dtype(m->indices, TN_DTYPE_I64, true), *P = C ? tn_as_dtype(m->plain, TN_DTYPE_I64, true) : NULL;
    int64_t n = e->B * e->nnz;
    if (P && n >= 0) {
        e->b = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
        e->c = e->b ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
        e->p = e->c ? share(P) : NULL;
        if (e->p) Py_SETREF(e->p, tn_at_reshape(e->p, TN_IS(-1)));
    }
    int rc = -1;
    if (e->p && e->ncomp >= 0) {
        const int64_t *cv = (const int64_t *)tn_data(tn_tensor_of(C));
        int64_t *bo = (int64_t *)tn_data(tn_tensor_of(e->b)), *co = (int64_t *)tn_data(tn_tensor_of(e->c));
        rc = 0;
        for (int64_t b = 0; b < e->B && rc == 0; b++) {
            const int64_t *row = cv + b * (e->ncomp + 1);
            if (row[0] != 0 || row[e->ncomp] != e->nnz) {
                PyErr_Format(PyExc_RuntimeError, row[0] ? "`%s[..., 0] == 0` is not satisfied." : "`%s[..., -1] == nnz` is not satisfied.",
                             cname(m->kind));
                rc = -1;
                break;
            }
            for (int64_t i = 0; i < e->ncomp && rc == 0; i++) {
                if (row[i + 1] < row[i] || row[i + 1] > e->nnz) {
                    PyErr_Format(PyExc_RuntimeError, "`0 <= %s[..., 1:] - %s[..., :-1] <= %s` is not satisfied.", cname(m->kind),
                                 cname(m->kind), row_major(m->kind) ? "ncols" : "nrows");
                    rc = -1;
                }
                for (int64_t k = row[i]; rc == 0 && k < row[i + 1]; k++) { bo[b * e->nnz + k] = b; co[b * e->nnz + k] = i; }
            }
        }
    } else if (e->p) {
        PyErr_Format(PyExc_RuntimeError, "%s must have at least one element per batch", cname(m->kind));
    }
    Py_XDECREF(C);
    Py_XDECREF(P);
    if (rc < 0) entries_free(e);
    return rc;
}

/* the batch sizes of a compressed tensor, and their product */
static int batch_of(PyObject *self) { return tn_tensor_of(CP(self)->indices)->ndim - 1; }

/* _to_dense(self, dtype, masked_grad): zeros with each element (block) added at its place */
static PyObject *to_dense(PyObject *self) {
    tn_sparse *m = CP(self);
    const tn_tensor *t = tn_tensor_of(self);
    int batch = batch_of(self), dd = m->dense_dim;
    int64_t br, bc;
    blocksize_of(m, &br, &bc);
    entries_t e;
    if (entries(self, &e) < 0) return NULL;
    int64_t R = t->sizes[batch], C = t->sizes[batch + 1], Rb = R / br, Cb = C / bc;
    /* the blocks as [B, Rb, Cb, br, bc, *dense] (BSC: [B, Cb, Rb, br, bc, *dense]), permuted to
     * [B, Rb, br, Cb, bc, *dense] and reshaped: a view where one is possible, as upstream's (its
     * strides show) */
    bool colfirst = m->kind == TN_SPARSE_BSC;
    int64_t ws[TN_MAX_DIMS + 4] = {e.B, colfirst ? Cb : Rb, colfirst ? Rb : Cb, br, bc};
    for (int i = 0; i < dd; i++) ws[5 + i] = t->sizes[batch + 2 + i];
    PyObject *z = tn_at_zeros(TN_IN(ws, 5 + dd), TN_DT(t->dtype), NULL, NULL, NULL);
    int64_t vs[TN_MAX_DIMS + 4] = {e.B * e.nnz, br, bc};
    for (int i = 0; i < dd; i++) vs[3 + i] = t->sizes[batch + 2 + i];
    PyObject *v = z ? tn_at_reshape(m->values, TN_IN(vs, 3 + dd)) : NULL;
    PyObject *rows = row_major(m->kind) ? e.c : e.p, *cols = row_major(m->kind) ? e.p : e.c;
    PyObject *r = v ? tn_at_index_put_(z, colfirst ? TN_TS(e.b, cols, rows) : TN_TS(e.b, rows, cols), v, true) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(v);
    entries_free(&e);
    if (!r) { Py_XDECREF(z); return NULL; }
    int64_t perm[TN_MAX_DIMS + 4] = {0, 1, 3, 2, 4};
    if (colfirst) { perm[1] = 2; perm[2] = 3; perm[3] = 1; }
    for (int i = 0; i < dd; i++) perm[5 + i] = 5 + i;
    PyObject *p = tn_at_permute(z, TN_IN(perm, 5 + dd));
    Py_DECREF(z);
    int64_t os[TN_MAX_DIMS];
    int no = 0;
    for (int d = 0; d < batch; d++) os[no++] = t->sizes[d];
    os[no++] = R;
    os[no++] = C;
    for (int i = 0; i < dd; i++) os[no++] = t->sizes[batch + 2 + i];
    PyObject *out = p ? tn_at_reshape(p, TN_IN(os, no)) : NULL;
    Py_XDECREF(p);
    if (out && ((tn_tensor_obj *)out)->base) Py_SETREF(out, share(out));   /* the tensor itself, not a view of a temporary */
    return out;
}

/* the COO form of a compressed tensor, in storage order (a block's elements row by row): indices
 * [batch + 2, B * nnz * br * bc], values [B * nnz * br * bc, *dense]; flagged coalesced when row
 * compressed, as upstream */
static PyObject *to_coo(PyObject *self) {
    tn_sparse *m = CP(self);
    const tn_tensor *t = tn_tensor_of(self);
    int batch = batch_of(self), dd = m->dense_dim;
    int64_t br, bc;
    blocksize_of(m, &br, &bc);
    entries_t e;
    if (entries(self, &e) < 0) return NULL;
    int64_t ne = e.B * e.nnz, n = ne * br * bc;
    PyObject *ix = tn_at_empty_memory_format(TN_IS(batch + 2, n), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
    if (ix) {
        int64_t *o = (int64_t *)tn_data(tn_tensor_of(ix));
        const int64_t *bv = (const int64_t *)tn_data(tn_tensor_of(e.b)), *cv = (const int64_t *)tn_data(tn_tensor_of(e.c));
        PyObject *pc = tn_at_contiguous(e.p, NULL);
        const int64_t *pv = pc ? (const int64_t *)tn_data(tn_tensor_of(pc)) : NULL;
        for (int64_t k = 0, q = 0; pv && k < ne; k++) {
            int64_t rb = row_major(m->kind) ? cv[k] : pv[k], cb = row_major(m->kind) ? pv[k] : cv[k];
            for (int64_t i = 0; i < br; i++)
                for (int64_t j = 0; j < bc; j++, q++) {
                    int64_t b = bv[k];
                    for (int d = batch - 1; d >= 0; d--) { o[d * n + q] = b % t->sizes[d]; b /= t->sizes[d]; }
                    o[batch * n + q] = rb * br + i;
                    o[(batch + 1) * n + q] = cb * bc + j;
                }
        }
        if (!pv) Py_CLEAR(ix);
        Py_XDECREF(pc);
    }
    entries_free(&e);
    int64_t vs[TN_MAX_DIMS + 1];
    vs[0] = n;
    for (int i = 0; i < dd; i++) vs[1 + i] = t->sizes[batch + 2 + i];
    PyObject *v = ix ? tn_at_reshape(m->values, TN_IN(vs, 1 + dd)) : NULL;
    if (v) Py_SETREF(v, tn_at_clone(v, tn_py.memory_format_contiguous));
    if (!v) { Py_XDECREF(ix); return NULL; }
    PyObject *r = tn_at__sparse_coo_tensor_with_dims_and_tensors(batch + 2, dd, TN_IN(t->sizes, t->ndim), ix, v, NULL,
                                                                 tn_py.layout_sparse_coo, NULL, NULL, TN_B(row_major(m->kind)));
    Py_DECREF(ix);
    Py_DECREF(v);
    return r;
}

/* ---- conversions to the compressed layouts ---- */

/* the compressed tensor of `kind` whose specified blocks are mask's ([B, Rb, Cb], bool) and
 * whose values are taken from src (dense, [*batch, R, C, *dense]) */
static PyObject *build(PyObject *src, PyObject *mask, int kind, int64_t br, int64_t bc, int batch, int dd) {
    const tn_tensor *t = tn_tensor_of(src);
    int64_t B = 1;
    for (int d = 0; d < batch; d++) B *= t->sizes[d];
    int64_t R = t->sizes[batch], C = t->sizes[batch + 1], Rb = R / br, Cb = C / bc;
    bool rm = row_major(kind);
    int64_t ncomp = rm ? Rb : Cb;
    PyObject *mk = rm ? Py_NewRef(mask) : tn_at_transpose_int(mask, 1, 2);
    PyObject *nz = mk ? tn_at_nonzero(mk) : NULL;   /* [N, 3]: batch, compressed, plain, row-major */
    Py_XDECREF(mk);
    if (nz) Py_SETREF(nz, tn_at_contiguous(nz, NULL));
    if (!nz) return NULL;
    int64_t N = tn_tensor_of(nz)->sizes[0];
    const int64_t *z = (const int64_t *)tn_data(tn_tensor_of(nz));
    int64_t nnz = B ? N / B : 0;
    int64_t *cnt = calloc((size_t)(B * (ncomp + 1) + 1), sizeof *cnt);
    if (!cnt) { Py_DECREF(nz); return PyErr_NoMemory(); }
    for (int64_t k = 0; k < N; k++) cnt[z[3 * k] * (ncomp + 1) + z[3 * k + 1] + 1]++;
    bool even = true;
    for (int64_t b = 0; b < B; b++) {
        int64_t s = 0;
        for (int64_t i = 0; i <= ncomp; i++) { s += cnt[b * (ncomp + 1) + i]; cnt[b * (ncomp + 1) + i] = s; }
        even = even && s == nnz;
    }
    PyObject *ci = NULL, *pi = NULL, *vals = NULL;
    if (!even) {
        PyErr_SetString(PyExc_RuntimeError, "Expect the same number of specified elements per batch.");
        goto done;
    }
    int64_t cs[TN_MAX_DIMS], ps[TN_MAX_DIMS];
    for (int d = 0; d < batch; d++) cs[d] = ps[d] = t->sizes[d];
    cs[batch] = ncomp + 1;
    ps[batch] = nnz;
    /* the plain indices are the second row of a [2, N] buffer whose first holds the compressed
     * ones per element (upstream goes through COO indices; its storage offsets show) */
    ci = tn_at_empty_memory_format(TN_IN(cs, batch + 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
    PyObject *buf = ci ? tn_at_empty_memory_format(TN_IS(2, N), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL) : NULL;
    if (!buf) goto done;
    memcpy(tn_data(tn_tensor_of(ci)), cnt, (size_t)(B * (ncomp + 1)) * sizeof *cnt);
    int64_t *po = (int64_t *)tn_data(tn_tensor_of(buf));
    for (int64_t k = 0; k < N; k++) { po[k] = z[3 * k + 1]; po[N + k] = z[3 * k + 2]; }
    pi = tn_at_select_int(buf, 0, 1);
    Py_DECREF(buf);
    if (pi) Py_SETREF(pi, tn_at_view(pi, TN_IN(ps, batch + 1)));
    if (pi) Py_SETREF(pi, share(pi));   /* the member itself, not a view of the buffer */
    if (!pi) goto done;
    /* values: src as [B, Rb, br, Cb, bc, *dense] -> [B, Rb, Cb, br, bc, *dense], the specified blocks */
    int64_t ws[TN_MAX_DIMS + 4] = {B, Rb, br, Cb, bc};
    for (int i = 0; i < dd; i++) ws[5 + i] = t->sizes[batch + 2 + i];
    int64_t perm[TN_MAX_DIMS + 4] = {0, 1, 3, 2, 4};
    for (int i = 0; i < dd; i++) perm[5 + i] = 5 + i;
    PyObject *w = tn_at_reshape(src, TN_IN(ws, 5 + dd));
    if (w) Py_SETREF(w, tn_at_permute(w, TN_IN(perm, 5 + dd)));
    PyObject *cols = tn_at_select_int(nz, 1, 0), *c1 = cols ? tn_at_select_int(nz, 1, 1) : NULL, *c2 = c1 ? tn_at_select_int(nz, 1, 2) : NULL;
    PyObject *blocks = w && c2 ? tn_at_index_Tensor(w, rm ? TN_TS(cols, c1, c2) : TN_TS(cols, c2, c1)) : NULL;
    Py_XDECREF(w); Py_XDECREF(cols); Py_XDECREF(c1); Py_XDECREF(c2);
    if (!blocks) goto done;
    int64_t vs[TN_MAX_DIMS + 4];
    int nv = 0;
    for (int d = 0; d < batch; d++) vs[nv++] = t->sizes[d];
    vs[nv++] = nnz;
    if (blocked(kind)) { vs[nv++] = br; vs[nv++] = bc; }
    for (int i = 0; i < dd; i++) vs[nv++] = t->sizes[batch + 2 + i];
    vals = tn_at_reshape(blocks, TN_IN(vs, nv));
    Py_DECREF(blocks);
    if (vals) Py_SETREF(vals, tn_at_clone(vals, tn_py.memory_format_contiguous));
done:
    free(cnt);
    Py_DECREF(nz);
    if (!vals) { Py_XDECREF(ci); Py_XDECREF(pi); return NULL; }
    return make(kind, t->sizes, t->ndim, ci, pi, vals);
}

static const char *const conv_suffix[] = {"", "csr", "csc", "bsr", "bsc"};

/* upstream's refusals of a conversion of a sparse self (_to_sparse_check_arguments and the
 * kernels' checks), `who` naming the function in their words: a dense_dim given; a blocked self
 * to CSR / CSC; a blocked self to a blocked layout with another block size */
static int sparse_source_check(PyObject *self, int kind, const tn_value *blocksize, const tn_value *dense_dim, const char *who) {
    tn_sparse *m = ((tn_tensor_obj *)self)->sparse;
    if (!m) return 0;
    PyObject *from = m->kind ? layout_of_kind(m->kind) : tn_py.layout_sparse_coo;
    if (dense_dim && dense_dim->tag == TN_V_INT) {
        PyErr_Format(PyExc_RuntimeError, "%s: conversion from %s to %s with dense_dim argument given is not supported", who, layout_name(from),
                     layout_name(layout_of_kind(kind)));
        return -1;
    }
    if (!m->kind || !blocked(m->kind)) return 0;
    if (!blocked(kind)) {
        PyErr_Format(PyExc_RuntimeError, "%s: expected SparseCsr or SparseCsc layout but got %s", who, layout_name(from));
        return -1;
    }
    int64_t br, bc;
    blocksize_of(m, &br, &bc);
    if (blocksize && blocksize->tag == TN_V_INTLIST && blocksize->u.ints.n == 2 && (blocksize->u.ints.v[0] != br || blocksize->u.ints.v[1] != bc)) {
        PyErr_Format(PyExc_RuntimeError, "%s: conversion from %s to %s with blocksize changed from [%lld, %lld] to [%lld, %lld] is not supported",
                     who, layout_name(from), layout_name(layout_of_kind(kind)), (long long)br, (long long)bc,
                     (long long)blocksize->u.ints.v[0], (long long)blocksize->u.ints.v[1]);
        return -1;
    }
    return 0;
}

/* _to_sparse_{csr,csc,bsr,bsc}(self, [blocksize,] dense_dim): any layout to `kind` */
static PyObject *convert(PyObject *self, int kind, const tn_value *blocksize, const tn_value *dense_dim) {
    const tn_tensor *t = tn_tensor_of(self);
    tn_sparse *any = ((tn_tensor_obj *)self)->sparse;
    char name[48];   /* upstream's kernel name in its messages */
    snprintf(name, sizeof name, "%s_to_sparse_%s", !any ? "dense" : any->kind ? "sparse_compressed" : "coo", conv_suffix[kind]);
    int64_t br = 1, bc = 1;
    if (blocked(kind)) {
        if (!blocksize || blocksize->tag != TN_V_INTLIST || blocksize->u.ints.n != 2)
            return PyErr_Format(PyExc_RuntimeError, "%s: blocksize needs to be a tuple of size 2, but got %d", name,
                                blocksize && blocksize->tag == TN_V_INTLIST ? blocksize->u.ints.n : 0);
        br = blocksize->u.ints.v[0];
        bc = blocksize->u.ints.v[1];
        if (br <= 0 || bc <= 0)
            return PyErr_Format(PyExc_RuntimeError, "%s: blocksize needs to be positive, but got [%lld, %lld]", name, (long long)br,
                                (long long)bc);
    }
    int dd;
    if (!any) {
        int64_t dd64 = dense_dim && dense_dim->tag == TN_V_INT ? dense_dim->u.i : 0;
        if (blocked(kind) && !tn_door_on_meta()) {
            /* dense to blocked reads the sparse sizes self.size(-2 - dense_dim), self.size(-1 -
             * dense_dim) (wrapping int64 arithmetic; IndexError) and checks them against the
             * block size before dense_dim's range (measured) */
            int64_t i0 = (int64_t)((uint64_t)-2 - (uint64_t)dd64), i1 = (int64_t)((uint64_t)-1 - (uint64_t)dd64), w0, w1;
            if (tn_size_read(t, i0) < 0 || tn_size_read(t, i1) < 0) return NULL;
            tn_wrap_dim(i0, t->ndim, &w0);
            tn_wrap_dim(i1, t->ndim, &w1);
            if (t->sizes[w0] % br || t->sizes[w1] % bc)
                return PyErr_Format(PyExc_RuntimeError, "%s: tensor sparse size (%lld,%lld) must be divisible by given blocksize (%lld,%lld)",
                                    name, (long long)t->sizes[w0], (long long)t->sizes[w1], (long long)br, (long long)bc);
        }
        if (!blocked(kind) && t->ndim < 2 && !(dense_dim && dense_dim->tag == TN_V_INT) && !tn_door_on_meta()) {
            /* without a dense_dim, upstream's dense to CSC wraps dim 1 (IndexError) and dense to CSR
             * selects column 1 of the (nnz, ndim) COO indices (measured: docs/breadth_more2.md "group
             * types (session 37)") */
            int64_t w, nnz = 0, n = tn_numel(t), st = t->ndim ? t->strides[0] : 0;
            if (kind == TN_SPARSE_CSC) {
                tn_wrap_dim(1, t->ndim, &w);   /* raises */
                return NULL;
            }
            for (int64_t i = 0; i < n; i++) {
                tn_value v;
                tn_cr_load(tn_data(t) + i * st * tn_dtype_itemsize(t->dtype), t->dtype, &v);
                nnz += v.tag == TN_V_COMPLEX ? (v.u.c.re != 0 || v.u.c.im != 0)
                     : v.tag == TN_V_FLOAT ? v.u.f != 0 : v.u.i != 0;
            }
            return PyErr_Format(PyExc_IndexError, "select(): index 1 out of range for tensor of size [%lld, %d] at dimension 1",
                                (long long)nnz, t->ndim);
        }
        if (dd64 < 0 || dd64 > t->ndim - 2)   /* upstream prints ndim - 2 as it is */
            return PyErr_Format(PyExc_RuntimeError, "%s: dense_dim argument must be in [0,%d] range, but %lld is given", name,
                                t->ndim - 2, (long long)dd64);
        dd = (int)dd64;
    } else {
        dd = any->dense_dim;
        if (any->kind == kind)   /* the composites return such a self before the kernel (upstream asserts here) */
            return PyErr_Format(PyExc_RuntimeError, "%s: unexpected same input and output layout", name);
        if (sparse_source_check(self, kind, blocksize, dense_dim, name) < 0) return NULL;
        if (any->kind == TN_SPARSE_COO && any->sparse_dim < 2)
            return err("Can only convert sparse tensors of two or more sparse dims to a sparse compressed layout");
    }
    if (t->ndim - dd < 2) return PyErr_Format(PyExc_RuntimeError, "%s: expected a tensor of two or more sparse dims", name);
    int batch = t->ndim - dd - 2;
    int64_t R = t->sizes[batch], C = t->sizes[batch + 1];
    if (R % br || C % bc)
        return PyErr_Format(PyExc_RuntimeError, "%s: tensor sparse size (%lld,%lld) must be divisible by given blocksize (%lld,%lld)",
                            name, (long long)R, (long long)C, (long long)br, (long long)bc);
    /* dense to CSR / CSC gathers the values with index_select, not built for uint16/32/64
     * (measured; float8 runs) */
    if (!any && !blocked(kind) && tn_dtype_barebones(t->dtype) && tn_dtype_infos[t->dtype].kind != TN_KIND_FLOAT8)
        return tn_kernel_missing("index_select", t->dtype);
    int64_t B = 1;
    for (int d = 0; d < batch; d++) B *= t->sizes[d];
    PyObject *src = NULL, *mask = NULL;
    if (!any) {   /* the blocks holding a nonzero */
        src = Py_NewRef(self);
        int64_t ws[5] = {B, R / br, br, C / bc, bc};
        int64_t rest = 1;
        for (int i = 0; i < dd; i++) rest *= t->sizes[batch + 2 + i];
        PyObject *nzm = tn_at_ne_Scalar(self, TN_SI(0));
        if (nzm) Py_SETREF(nzm, tn_at_reshape(nzm, TN_IS(ws[0], ws[1], ws[2], ws[3], ws[4], rest)));
        if (nzm) Py_SETREF(nzm, tn_at_permute(nzm, TN_IS(0, 1, 3, 2, 4, 5)));
        if (nzm) Py_SETREF(nzm, tn_at_reshape(nzm, TN_IS(ws[0], ws[1], ws[3], ws[2] * ws[4] * rest)));
        if (nzm && br * bc * rest == 0) Py_SETREF(nzm, tn_at_zeros(TN_IS(ws[0], ws[1], ws[3]), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL));
        else if (nzm) Py_SETREF(nzm, tn_at_any_dim(nzm, 3, false));
        mask = nzm;
    } else {   /* the blocks holding a specified element (zero-valued ones included) */
        src = tn_at_to_dense(self, NULL, NULL);
        PyObject *coo = src ? (any->kind == TN_SPARSE_COO ? tn_at_coalesce(self) : to_coo(self)) : NULL;
        tn_sparse *cm = coo ? tn_sparse_of(coo) : NULL;
        mask = cm ? tn_at_zeros(TN_IS(B, R / br, C / bc), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL) : NULL;
        if (mask) {
            int64_t n = tn_tensor_of(cm->values)->sizes[0];
            PyObject *ix = tn_at_contiguous(cm->indices, NULL);
            PyObject *bi = ix ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
            PyObject *ri = bi ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
            PyObject *ki = ri ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
            if (ki) {
                const int64_t *I = (const int64_t *)tn_data(tn_tensor_of(ix));
                int64_t *bo = (int64_t *)tn_data(tn_tensor_of(bi)), *ro = (int64_t *)tn_data(tn_tensor_of(ri)),
                        *ko = (int64_t *)tn_data(tn_tensor_of(ki));
                for (int64_t k = 0; k < n; k++) {
                    int64_t b = 0;
                    for (int d = 0; d < batch; d++) b = b * t->sizes[d] + I[d * n + k];
                    bo[k] = b;
                    ro[k] = I[batch * n + k] / br;
                    ko[k] = I[(batch + 1) * n + k] / bc;
                }
            }
            PyObject *one = ki ? tn_at_ones(TN_IN(&n, 1), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL) : NULL;
            PyObject *put_ = one ? tn_at_index_put_(mask, TN_TS(bi, ri, ki), one, false) : NULL;
            if (!put_) Py_CLEAR(mask);
            Py_XDECREF(put_); Py_XDECREF(one); Py_XDECREF(ix); Py_XDECREF(bi); Py_XDECREF(ri); Py_XDECREF(ki);
        }
        Py_XDECREF(coo);
    }
    PyObject *r = src && mask ? build(src, mask, kind, br, bc, batch, dd) : NULL;
    Py_XDECREF(src);
    Py_XDECREF(mask);
    return r;
}

/* a dense tensor on meta: upstream has no Meta kernel for these (sparse inputs have theirs) */
#define DENSE_META(op) do { if (tn_door_on_meta() && !((tn_tensor_obj *)a[0].u.obj)->sparse) return tn_meta_no_kernel(op); } while (0)
PyObject *tn_op__to_sparse_csr(tn_value *a) { DENSE_META("_to_sparse_csr"); return convert(a[0].u.obj, TN_SPARSE_CSR, NULL, &a[1]); }
PyObject *tn_op__to_sparse_csc(tn_value *a) { DENSE_META("_to_sparse_csc"); return convert(a[0].u.obj, TN_SPARSE_CSC, NULL, &a[1]); }
PyObject *tn_op__to_sparse_bsr(tn_value *a) { DENSE_META("_to_sparse_bsr"); return convert(a[0].u.obj, TN_SPARSE_BSR, &a[1], &a[2]); }
PyObject *tn_op__to_sparse_bsc(tn_value *a) { DENSE_META("_to_sparse_bsc"); return convert(a[0].u.obj, TN_SPARSE_BSC, &a[1], &a[2]); }

/* to_sparse_csr / ... (CompositeImplicitAutograd): self in that layout already (a dense_dim or
 * another block size refused, as upstream's _to_sparse_check_arguments), else the conversion */
static bool same_layout_checked(PyObject *self, int kind, const tn_value *blocksize, const tn_value *dense_dim, const char *who, int *rc) {
    tn_sparse *m = CP(self);
    *rc = 0;
    if (!m || m->kind != kind) return false;
    *rc = sparse_source_check(self, kind, blocksize, dense_dim, who);
    return true;
}
#define TO_LAYOUT(KIND, BS, DD, CALL)                                                                  \
    int rc;                                                                                            \
    char who[24];                                                                                      \
    snprintf(who, sizeof who, "to_sparse_%s", conv_suffix[KIND]);                                      \
    if (same_layout_checked(a[0].u.obj, KIND, BS, DD, who, &rc)) return rc < 0 ? NULL : Py_NewRef(a[0].u.obj); \
    return CALL
PyObject *tn_compressed_d_to_csr(tn_value *a) { TO_LAYOUT(TN_SPARSE_CSR, NULL, &a[1], tn_at__to_sparse_csr(a[0].u.obj, tn_opt_int_of(&a[1]))); }
PyObject *tn_compressed_d_to_csc(tn_value *a) { TO_LAYOUT(TN_SPARSE_CSC, NULL, &a[1], tn_at__to_sparse_csc(a[0].u.obj, tn_opt_int_of(&a[1]))); }
PyObject *tn_compressed_d_to_bsr(tn_value *a) { TO_LAYOUT(TN_SPARSE_BSR, &a[1], &a[2], tn_at__to_sparse_bsr(a[0].u.obj, tn_ints_of(&a[1]), tn_opt_int_of(&a[2]))); }
PyObject *tn_compressed_d_to_bsc(tn_value *a) { TO_LAYOUT(TN_SPARSE_BSC, &a[1], &a[2], tn_at__to_sparse_bsc(a[0].u.obj, tn_ints_of(&a[1]), tn_opt_int_of(&a[2]))); }
#undef TO_LAYOUT

/* _to_sparse(self, *, layout, blocksize, dense_dim) to a compressed layout (sparse.c's caller) */
PyObject *tn_compressed_to_layout(PyObject *self, PyObject *layout, const tn_value *blocksize, const tn_value *dense_dim) {
    int k = kind_of_layout(layout);
    if (!k) {   /* torch._mkldnn / torch.jagged: no conversion (upstream names self's layout; measured) */
        tn_sparse *sm = ((tn_tensor_obj *)self)->sparse;
        return PyErr_Format(PyExc_RuntimeError, "%s: unexpected source layout %s",
                            !sm ? "dense_to_sparse" : sm->kind ? "sparse_compressed_to_sparse" : "sparse_coo_to_sparse",
                            tensor_layout_name(self));
    }
    if (blocked(k) && (!blocksize || blocksize->tag == TN_V_NONE))
        return PyErr_Format(PyExc_RuntimeError, "%s: conversion from %s to %s without blocksize argument given is not supported",
                            ((tn_tensor_obj *)self)->sparse ? "sparse_to_sparse" : "dense_to_sparse", tensor_layout_name(self), layout_name(layout));
    if (!blocked(k) && blocksize && blocksize->tag != TN_V_NONE)
        return PyErr_Format(PyExc_RuntimeError, "to_sparse for %s to %s conversion does not use specified blocksize",
                            tensor_layout_name(self), layout_name(layout));
    tn_sparse *m = ((tn_tensor_obj *)self)->sparse;
    int rc;
    if (same_layout_checked(self, k, blocksize, dense_dim, "to_sparse", &rc)) return rc < 0 ? NULL : Py_NewRef(self);
    if (m && dense_dim && dense_dim->tag == TN_V_INT)   /* the dense_dim refusal in _to_sparse's words */
        return sparse_source_check(self, k, NULL, dense_dim, m->kind ? "sparse_compressed_to_sparse" : "sparse_coo_to_sparse"), NULL;
    return convert(self, k, blocksize, dense_dim);
}
/* a compressed tensor to COO (to_sparse() / _to_sparse.sparse_dim of a compressed self) */
PyObject *tn_compressed_to_coo(PyObject *self, int64_t sparse_dim) {
    if (sparse_dim >= 0 && sparse_dim != batch_of(self) + 2)
        return tn_not_implemented("conversion of a sparse compressed tensor to sparse COO with another sparse_dim");
    return to_coo(self);
}

/* ---- queries ---- */

typedef PyObject *(*cfn)(int op, tn_value *a);
#define SELF a[0].u.obj
#define M CP(a[0].u.obj)

static PyObject *member(PyObject *self, const char *name, bool compressed, bool want_row) {
    tn_sparse *m = CP(self);
    if (!m || row_major(m->kind) != want_row)
        return PyErr_Format(PyExc_RuntimeError, "%s expected sparse %s compressed tensor layout but got %s", name, want_row ? "row" : "column",
                            tensor_layout_name(self));
    return share(compressed ? m->indices : m->plain);
}
PyObject *tn_op_crow_indices(tn_value *a) { return member(SELF, "crow_indices", true, true); }
PyObject *tn_op_col_indices(tn_value *a) { return member(SELF, "col_indices", false, true); }
PyObject *tn_op_ccol_indices(tn_value *a) { return member(SELF, "ccol_indices", true, false); }
PyObject *tn_op_row_indices(tn_value *a) { return member(SELF, "row_indices", false, false); }
static PyObject *k_crow(int op, tn_value *a) { return tn_op_crow_indices(a); }
static PyObject *k_col(int op, tn_value *a) { return tn_op_col_indices(a); }
static PyObject *k_ccol(int op, tn_value *a) { return tn_op_ccol_indices(a); }
static PyObject *k_row(int op, tn_value *a) { return tn_op_row_indices(a); }
static PyObject *k_values(int op, tn_value *a) { return tn_at_alias(M->values); }
/* values(self) of a strided tensor (COO's is sparse.c's) */
PyObject *tn_op_values(tn_value *a) { return PyErr_Format(PyExc_RuntimeError, "values expected sparse tensor layout but got %s", tensor_layout_name(SELF)); }
static PyObject *k_nnz(int op, tn_value *a) {
    return PyLong_FromLongLong(tn_tensor_of(M->plain)->sizes[tn_tensor_of(M->plain)->ndim - 1]);
}
static PyObject *k_sparse_dim(int op, tn_value *a) { return PyLong_FromLong(2); }
static PyObject *k_dense_dim(int op, tn_value *a) { return PyLong_FromLong(M->dense_dim); }
static PyObject *k_coo_only(int op, tn_value *a) {
    const tn_op_def *d = tn_op_at(op);
    return PyErr_Format(PyExc_RuntimeError, "%s expected sparse coordinate tensor layout but got %s", d->name, tensor_layout_name(SELF));
}
static PyObject *k_to_dense(int op, tn_value *a) {
    if (a[1].tag == TN_V_DTYPE) return err("dtype argument is not supported by sparse_csr_to_dense");
    return to_dense(SELF);
}
static PyObject *k_to_csr(int op, tn_value *a) { return tn_op__to_sparse_csr(a); }
static PyObject *k_to_csc(int op, tn_value *a) { return tn_op__to_sparse_csc(a); }
static PyObject *k_to_bsr(int op, tn_value *a) { return tn_op__to_sparse_bsr(a); }
static PyObject *k_to_bsc(int op, tn_value *a) { return tn_op__to_sparse_bsc(a); }

static PyObject *k_to_sparse(int op, tn_value *a) { return tn_op__to_sparse(a); }
static PyObject *k_to_sparse_dim(int op, tn_value *a) { return tn_op__to_sparse_sparse_dim(a); }

/* ---- members' ops ---- */

static PyObject *k_clone(int op, tn_value *a) {
    return make_like(SELF, tn_at_clone(M->indices, NULL), tn_at_clone(M->plain, NULL), tn_at_clone(M->values, NULL));
}
static PyObject *k_detach(int op, tn_value *a) { return make_like(SELF, Py_NewRef(M->indices), Py_NewRef(M->plain), Py_NewRef(M->values)); }
/* _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format) */
static PyObject *k_to_copy(int op, tn_value *a) {
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj != layout_of_kind(M->kind)) {
        if (a[2].u.obj == tn_py.layout_strided) {
            PyObject *d = to_dense(SELF);
            if (d && a[1].tag == TN_V_DTYPE) Py_SETREF(d, tn_at__to_copy(d, TN_DT(a[1].u.dtype), NULL, NULL, NULL, false, NULL));
            return d;
        }
        return tn_not_implemented("aten::_to_copy of a sparse compressed tensor to another layout");
    }
    PyObject *v = tn_at__to_copy(M->values, a[1].tag == TN_V_DTYPE ? TN_DT(a[1].u.dtype) : NULL, NULL, NULL, NULL, a[5].u.i != 0, NULL);
    return make_like(SELF, v ? tn_at_clone(M->indices, NULL) : NULL, v ? tn_at_clone(M->plain, NULL) : NULL, v);
}
static PyObject *mul_tensor(PyObject *x, PyObject *y);

/* mul by a number or a 0-dim dense tensor: the values scaled (upstream has no compressed div) */
static PyObject *k_scale(int op, tn_value *a) {
    if (a[1].tag == TN_V_TENSOR && (((tn_tensor_obj *)a[1].u.obj)->sparse || TN_T(a[1])->ndim != 0)) {
        if (!M && CP(a[1].u.obj) && blocked(CP(a[1].u.obj)->kind)) return err("Expected result Tensor to be of format CSR");
        if (!M) return mul_tensor(a[1].u.obj, SELF);   /* dense * compressed */
        return mul_tensor(SELF, a[1].u.obj);
    }
    if (!M) return tn_not_implemented("aten::mul of a number by a sparse compressed tensor");
    PyObject *v = M->values;
    PyObject *nv = a[1].tag == TN_V_TENSOR ? tn_at_mul_Tensor(v, a[1].u.obj) : tn_at_mul_Scalar(v, TN_SV(&a[1]));
    return make_like(SELF, nv ? tn_at_clone(M->indices, NULL) : NULL, nv ? tn_at_clone(M->plain, NULL) : NULL, nv);
}
/* f(0) = 0 ops on the values (neg, abs, sin, sqrt, tanh, ...) */
static PyObject *k_unary(int op, tn_value *a) {
    tn_value b[1] = {a[0]};
    b[0].u.obj = M->values;
    PyObject *nv = tn_call_row(op, b, 1);
    return make_like(SELF, nv ? tn_at_clone(M->indices, NULL) : NULL, nv ? tn_at_clone(M->plain, NULL) : NULL, nv);
}
static PyObject *k_sum(int op, tn_value *a) { return tn_at_sum(M->values, a[1].tag == TN_V_DTYPE ? TN_DT(a[1].u.dtype) : NULL); }

/* t / transpose of the two sparse dims: the other compressed layout over the same members */
static PyObject *transpose(PyObject *self, int64_t d0, int64_t d1) {
    tn_sparse *m = CP(self);
    const tn_tensor *t = tn_tensor_of(self);
    int batch = batch_of(self);
    if (tn_wrap_dim(d0, t->ndim, &d0) < 0 || tn_wrap_dim(d1, t->ndim, &d1) < 0) return NULL;
    if (d0 == d1) return make_like(self, Py_NewRef(m->indices), Py_NewRef(m->plain), Py_NewRef(m->values));
    if (!((d0 == batch && d1 == batch + 1) || (d1 == batch && d0 == batch + 1)))
        return tn_not_implemented("aten::transpose of a sparse compressed tensor over batch or dense dims");
    static const int other[] = {0, TN_SPARSE_CSC, TN_SPARSE_CSR, TN_SPARSE_BSC, TN_SPARSE_BSR};
    int64_t size[TN_MAX_DIMS];
    memcpy(size, t->sizes, (size_t)t->ndim * sizeof *size);
    size[batch] = t->sizes[batch + 1];
    size[batch + 1] = t->sizes[batch];
    PyObject *v = Py_NewRef(m->values);
    if (blocked(m->kind)) Py_SETREF(v, tn_at_transpose_int(v, batch + 1, batch + 2));
    return make(other[m->kind], size, t->ndim, Py_NewRef(m->indices), Py_NewRef(m->plain), v);
}
static PyObject *k_transpose(int op, tn_value *a) { return transpose(SELF, a[1].u.i, a[2].u.i); }
static PyObject *k_t(int op, tn_value *a) {
    if (tn_tensor_of(SELF)->ndim != 2) return err("t() expects a tensor with <= 2 dimensions");
    return transpose(SELF, 0, 1);
}

/* select.int(self, dim, index): the COO form's select, flagged coalesced as upstream's */
static PyObject *k_select(int op, tn_value *a) {
    PyObject *coo = to_coo(SELF);
    if (coo && !tn_sparse_of(coo)->coalesced) Py_SETREF(coo, tn_at_coalesce(coo));
    PyObject *r = coo ? tn_at_select_int(coo, a[1].u.i, a[2].u.i) : NULL;
    Py_XDECREF(coo);
    if (r && tn_sparse_of(r)) tn_sparse_of(r)->coalesced = true;
    return r;
}

/* mul(self, other) of a compressed self and a compressed or dense tensor of its shape: self's
 * layout; the elements both specify (their COO product, converted back), or self's pattern times
 * the dense values at it */
static PyObject *mul_tensor(PyObject *x, PyObject *y) {
    tn_sparse *mx = CP(x), *my = CP(y);
    const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
    bool same = p->ndim == q->ndim;
    for (int i = 0; same && i < p->ndim; i++) same = p->sizes[i] == q->sizes[i];
    if (mx && (blocked(mx->kind) || (my && blocked(my->kind))))   /* upstream's result allocation refuses blocked layouts */
        return PyErr_Format(PyExc_RuntimeError, "empty_sparse_compressed expected sparse compressed (non-block) tensor layout but got %s",
                            tensor_layout_name(blocked(mx->kind) ? x : y));
    if (!mx || !same || (!my && ((tn_tensor_obj *)y)->sparse))
        return tn_not_implemented("aten::mul of a sparse compressed tensor by a tensor of another shape or layout");
    if (!my) {
        PyObject *v = tn_at_sparse_mask(y, x);   /* y's values at x's elements */
        PyObject *nv = v ? tn_at_mul_Tensor(mx->values, CP(v)->values) : NULL;
        Py_XDECREF(v);
        return make_like(x, nv ? tn_at_clone(mx->indices, NULL) : NULL, nv ? tn_at_clone(mx->plain, NULL) : NULL, nv);
    }
    PyObject *cx = to_coo(x), *cy = cx ? to_coo(y) : NULL;
    PyObject *pr = cy ? tn_at_mul_Tensor(cx, cy) : NULL;
    Py_XDECREF(cx);
    Py_XDECREF(cy);
    tn_value dd = {.tag = TN_V_NONE};
    PyObject *r = pr ? convert(pr, mx->kind, NULL, &dd) : NULL;
    Py_XDECREF(pr);
    return r;
}

/* ---- products (dense results) ---- */

/* upstream's "mat1 and mat2 shapes cannot be multiplied" for 2-d p @ q */
static PyObject *shapes_error(const tn_tensor *p, const tn_tensor *q) {
    return PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)p->sizes[0],
                        (long long)p->sizes[1], (long long)q->sizes[0], (long long)q->sizes[1]);
}

/* the operand as COO for the COO kernels (sparse.c), whose entry order is the compressed one's:
 * a 2-d non-blocked matrix without dense dims */
static PyObject *matrix_coo(PyObject *self, const char *what) {
    tn_sparse *m = CP(self);
    int nd = tn_tensor_of(self)->ndim;
    if (nd != 2 && !strcmp(what, "mv"))   /* a batched or hybrid operand: upstream's shape checks */
        return PyErr_Format(PyExc_RuntimeError, "vector + matrix @ vector expected, got 1, %d, 1", nd);
    if (nd != 2) return PyErr_Format(PyExc_RuntimeError, "mat1 must be a matrix, got %d-D tensor", nd);
    if (m->kind == TN_SPARSE_BSC)
        return PyErr_Format(PyExc_RuntimeError, strcmp(what, "mv") ? "addmm: computation on CPU is not implemented for Strided + SparseBsc @ Strided"
                                                                   : "torch.addmv: operation not supported for mat with SparseBsc layout");
    int64_t br, bc;
    blocksize_of(m, &br, &bc);
    if (br != bc) return err("MKL Sparse doesn't support matrices with non-square blocks.");
    tn_dtype dt = tn_tensor_of(self)->dtype;
    if (strcmp(what, "mv") && !tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt))
        return PyErr_Format(PyExc_NotImplementedError, "\"addmm_out_sparse_csr_impl_mkl\" not implemented for '%s'", tn_dtype_cpp_name(dt));
    return to_coo(self);
}

/* mm(self, mat2): a compressed matrix times a dense one (or a dense one times it): dense */
static PyObject *spgemm(PyObject *x, PyObject *y);
static PyObject *k_mm(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    if (CP(x) && CP(y)) return spgemm(x, y);
    if (CP(x) && ((tn_tensor_obj *)y)->sparse) {   /* a COO mat2: upstream's shape check, then its refusal */
        const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
        if (p->ndim == 2 && q->ndim == 2 && p->sizes[1] != q->sizes[0]) return shapes_error(p, q);
        return PyErr_Format(PyExc_RuntimeError, "addmm: computation on CPU is not implemented for %s + %s @ Sparse", tensor_layout_name(x),
                            tensor_layout_name(x));
    }
    if (CP(x)) {
        if (tn_tensor_of(x)->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "mat1 must be a matrix, got %d-D tensor", tn_tensor_of(x)->ndim);
        if (TN_T(a[1])->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "mat2 must be a matrix, got %d-D tensor", TN_T(a[1])->ndim);
        if (tn_tensor_of(x)->sizes[1] != TN_T(a[1])->sizes[0]) return shapes_error(tn_tensor_of(x), TN_T(a[1]));
        PyObject *c = matrix_coo(x, "mm");
        PyObject *r = c ? tn_sparse_addmm(NULL, c, y, NULL, NULL, false) : NULL;
        Py_XDECREF(c);
        return r;
    }
    if (((tn_tensor_obj *)x)->sparse)   /* COO @ compressed */
        return PyErr_Format(PyExc_RuntimeError, "addmm: computation on CPU is not implemented for Sparse + Sparse @ %s", tensor_layout_name(y));
    /* dense @ compressed = (compressed^T @ dense^T)^T, contiguous as upstream's */
    if (CP(y)->kind == TN_SPARSE_BSR) return err("addmm: computation on CPU is not implemented for Strided + Strided @ SparseBsr");
    if (TN_T(a[0])->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "mat1 must be a matrix, got %d-D tensor", TN_T(a[0])->ndim);
    if (tn_tensor_of(y)->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "mat2 must be a matrix, got %d-D tensor", tn_tensor_of(y)->ndim);
    if (TN_T(a[0])->sizes[1] != tn_tensor_of(y)->sizes[0]) return shapes_error(TN_T(a[0]), tn_tensor_of(y));
    PyObject *yt = transpose(y, 0, 1), *xt = yt ? tn_at_t(x) : NULL;
    PyObject *r = xt ? tn_at_mm(yt, xt) : NULL;
    Py_XDECREF(yt);
    Py_XDECREF(xt);
    if (r) Py_SETREF(r, tn_at_t(r));
    if (r) Py_SETREF(r, tn_at_clone(r, tn_py.memory_format_contiguous));
    return r;
}
/* addmm(self, mat1, mat2, *, beta, alpha) with a compressed mat1 */
static PyObject *k_addmm(int op, tn_value *a) {
    if (!CP(a[1].u.obj) || ((tn_tensor_obj *)a[0].u.obj)->sparse || ((tn_tensor_obj *)a[2].u.obj)->sparse)
        return tn_not_implemented("aten::addmm with a sparse compressed self or mat2");
    PyObject *c = matrix_coo(a[1].u.obj, "addmm");
    PyObject *r = c ? tn_sparse_addmm(a[0].u.obj, c, a[2].u.obj, &a[3], &a[4], false) : NULL;
    Py_XDECREF(c);
    return r;
}
/* mv(self, vec) */
static PyObject *k_mv(int op, tn_value *a) {
    if (!M || ((tn_tensor_obj *)a[1].u.obj)->sparse) return tn_not_implemented("aten::mv with a sparse vector");
    PyObject *c = matrix_coo(SELF, "mv");
    PyObject *col = c ? tn_at_unsqueeze(a[1].u.obj, 1) : NULL;
    PyObject *r = col ? tn_sparse_addmm(NULL, c, col, NULL, NULL, false) : NULL;
    Py_XDECREF(c);
    Py_XDECREF(col);
    if (r) Py_SETREF(r, tn_at_squeeze_dim(r, 1));
    if (r) Py_SETREF(r, tn_at_clone(r, NULL));   /* a new tensor, not a view */
    return r;
}

/* addmv(self, mat, vec, *, beta, alpha) with a compressed mat: beta * self + alpha * (mat @ vec)
 * (self ignored when beta is 0). Upstream runs MKL's sparse mv, whose order is its own. */
static PyObject *k_addmv(int op, tn_value *a) {
    if (!CP(a[1].u.obj) || ((tn_tensor_obj *)a[0].u.obj)->sparse || ((tn_tensor_obj *)a[2].u.obj)->sparse)
        return tn_not_implemented("aten::addmv with a sparse compressed self or vec");
    PyObject *r = tn_at_mv(a[1].u.obj, a[2].u.obj);
    bool beta0 = (a[3].tag == TN_V_INT && a[3].u.i == 0) || (a[3].tag == TN_V_FLOAT && a[3].u.f == 0);
    PyObject *b = !r ? NULL : beta0 ? tn_at_zeros_like(r, NULL, NULL, NULL, NULL, NULL) : tn_at_mul_Scalar(a[0].u.obj, TN_SV(&a[3]));
    PyObject *out = b ? tn_at_add_Tensor(b, r, TN_SV(&a[4])) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(b);
    return out;
}
/* expand (matmul's batched path reaches it): upstream's refusal */
static PyObject *k_expand(int op, tn_value *a) {
    return PyErr_Format(PyExc_RuntimeError, "expand is unsupported for %s tensors", tensor_layout_name(SELF));
}

/* sparse_mask(self, mask): a dense self's values (blocks) at a compressed mask's elements; a
 * compressed self: the elements both specify, self's values there, in the mask's layout (upstream's
 * intersection: a mask of ones in self's dtype times self, 1 * v being v) */
static PyObject *k_sparse_mask(int op, tn_value *a) {
    tn_sparse *mk = CP(a[1].u.obj);
    if (mk && CP(a[0].u.obj)) {
        if (mk->kind != TN_SPARSE_CSR || CP(a[0].u.obj)->kind != TN_SPARSE_CSR) return err("Expected result Tensor to be of format CSR");
        PyObject *one = tn_at_ones_like(mk->values, TN_DT(tn_tensor_of(a[0].u.obj)->dtype), NULL, NULL, NULL, NULL);
        PyObject *ones = one ? make_like(a[1].u.obj, tn_at_clone(mk->indices, NULL), tn_at_clone(mk->plain, NULL), one) : NULL;
        PyObject *r = ones ? mul_tensor(ones, a[0].u.obj) : NULL;
        Py_XDECREF(ones);
        return r;
    }
    if (!mk || ((tn_tensor_obj *)a[0].u.obj)->sparse) return tn_not_implemented("aten::sparse_mask of a sparse COO self by a sparse compressed mask");
    const tn_tensor *s = TN_T(a[0]), *mt = TN_T(a[1]);
    bool same = s->ndim == mt->ndim;
    for (int i = 0; same && i < s->ndim; i++) same = s->sizes[i] == mt->sizes[i];
    if (!same) return err("sparse_mask(): operands have incompatible sizes");
    PyObject *mask = a[1].u.obj;
    int batch = batch_of(mask), dd = mk->dense_dim;
    int64_t br, bc;
    blocksize_of(mk, &br, &bc);
    entries_t e;
    if (entries(mask, &e) < 0) return NULL;
    /* self as [B, Rb, Cb, br, bc, *dense], the blocks at the elements, in the values' shape */
    int64_t ws[TN_MAX_DIMS + 4] = {e.B, mt->sizes[batch] / br, br, mt->sizes[batch + 1] / bc, bc};
    int64_t perm[TN_MAX_DIMS + 4] = {0, 1, 3, 2, 4};
    for (int i = 0; i < dd; i++) { ws[5 + i] = mt->sizes[batch + 2 + i]; perm[5 + i] = 5 + i; }
    PyObject *w = tn_at_reshape(a[0].u.obj, TN_IN(ws, 5 + dd));
    if (w) Py_SETREF(w, tn_at_permute(w, TN_IN(perm, 5 + dd)));
    PyObject *rows = row_major(mk->kind) ? e.c : e.p, *cols = row_major(mk->kind) ? e.p : e.c;
    PyObject *v = w ? tn_at_index_Tensor(w, TN_TS(e.b, rows, cols)) : NULL;
    Py_XDECREF(w);
    entries_free(&e);
    const tn_tensor *vt = tn_tensor_of(mk->values);
    if (v) Py_SETREF(v, tn_at_reshape(v, TN_IN(vt->sizes, vt->ndim)));
    if (v) Py_SETREF(v, tn_at_clone(v, tn_py.memory_format_contiguous));
    return make_like(mask, v ? tn_at_clone(mk->indices, NULL) : NULL, v ? tn_at_clone(mk->plain, NULL) : NULL, v);
}

/* sparse_sampled_addmm(self, mat1, mat2, *, beta, alpha): self's pattern, values
 * beta * self's + alpha * (mat1 @ mat2) at each element */
static PyObject *k_sampled_addmm(int op, tn_value *a) {
    PyObject *self = a[0].u.obj, *m1 = a[1].u.obj, *m2 = a[2].u.obj;
    tn_sparse *m = CP(self);
    if (!m || m->kind != TN_SPARSE_CSR || ((tn_tensor_obj *)m1)->sparse || ((tn_tensor_obj *)m2)->sparse)
        return tn_not_implemented("aten::sparse_sampled_addmm other than of a CSR self and dense mat1, mat2");
    const tn_tensor *t = tn_tensor_of(self), *p = tn_tensor_of(m1), *q = tn_tensor_of(m2);
    if (t->ndim != 2 || m->dense_dim || p->ndim != 2 || q->ndim != 2)
        return tn_not_implemented("aten::sparse_sampled_addmm of batched or hybrid operands");
    if (p->sizes[1] != q->sizes[0])
        return PyErr_Format(PyExc_RuntimeError, "sampled_addmm: Expected mat1 and mat2 to have compatible shapes for matrix multiplication, "
                            "but got mat1.shape = [%lld, %lld] and mat2.shape = [%lld, %lld]", (long long)p->sizes[0], (long long)p->sizes[1],
                            (long long)q->sizes[0], (long long)q->sizes[1]);
    if (t->sizes[0] != p->sizes[0] || t->sizes[1] != q->sizes[1])
        return PyErr_Format(PyExc_RuntimeError, "sampled_addmm: Expected self to have the shape of mat1 @ mat2 ([%lld, %lld]), but got "
                            "[%lld, %lld]", (long long)p->sizes[0], (long long)q->sizes[1], (long long)t->sizes[0], (long long)t->sizes[1]);
    entries_t e;
    if (entries(self, &e) < 0) return NULL;
    PyObject *r1 = tn_at_index_select(m1, 0, e.c), *q2 = r1 ? tn_at_t(m2) : NULL;
    PyObject *r2 = q2 ? tn_at_index_select(q2, 0, e.p) : NULL;
    PyObject *dot = r2 ? tn_at_mul_Tensor(r1, r2) : NULL;
    entries_free(&e);
    Py_XDECREF(r1); Py_XDECREF(q2); Py_XDECREF(r2);
    if (dot) Py_SETREF(dot, tn_at_sum_dim_IntList(dot, TN_IS(-1), false, NULL));
    PyObject *v = dot ? tn_at_mul_Scalar(m->values, TN_SV(&a[3])) : NULL;
    if (v) Py_SETREF(v, tn_at_add_Tensor(v, dot, TN_SV(&a[4])));
    Py_XDECREF(dot);
    return make_like(self, v ? tn_at_clone(m->indices, NULL) : NULL, v ? tn_at_clone(m->plain, NULL) : NULL, v);
}

/* _sparse_mm_reduce_impl(self, other, reduce): each row of a CSR self reduced over its elements'
 * products with other's rows, upstream's spmm_reduce: "sum" / "mean" accumulate each product with
 * one fused multiply-add, in storage order (its vectorised fmadd); "mean" divides by the row's
 * count; "amax" / "amin" take the rounded products; rows without elements stay 0. The second
 * result is upstream's empty arg_out (filled only for its backward). */
static void spmm_rows(int red, bool f64, const int64_t *crow, const int64_t *col, const void *vals, const void *x, void *out, int64_t nrows,
                      int64_t N) {
    for (int64_t i = 0; i < nrows; i++) {
        int64_t lo = crow[i], hi = crow[i + 1];
        for (int64_t j = 0; j < N; j++) {
            double acc = 0;
            float accf = 0;
            for (int64_t k = lo; k < hi; k++) {
                if (f64) {
                    double a = ((const double *)vals)[k], b = ((const double *)x)[col[k] * N + j];
                    if (red < 2) acc = fma(a, b, acc);
                    else if (k == lo || (red == 2 ? a * b > acc : a * b < acc)) acc = a * b;
                } else {
                    float a = ((const float *)vals)[k], b = ((const float *)x)[col[k] * N + j];
                    if (red < 2) accf = fmaf(a, b, accf);
                    else if (k == lo || (red == 2 ? a * b > accf : a * b < accf)) accf = a * b;
                }
            }
            if (red == 1 && hi > lo) { acc /= (double)(hi - lo); accf /= (float)(hi - lo); }
            if (f64) ((double *)out)[i * N + j] = acc;
            else ((float *)out)[i * N + j] = accf;
        }
    }
}
static PyObject *k_mm_reduce(int op, tn_value *a) {
    static const char *const reds[] = {"sum", "mean", "amax", "amin", "max", "min"};   /* max / min: amax / amin */
    const char *red = tn_str_of(&a[2]);
    if (!red) return NULL;
    int r = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(red, reds[i])) r = i < 4 ? i : i - 2;
    if (r < 0 && !strcmp(red, "prod")) return err("sparse_mm_reduce: reduce type of prod has not been enabled.");
    if (r < 0) return PyErr_Format(PyExc_RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got %s", red);
    tn_sparse *m = M;
    if (!m || m->kind != TN_SPARSE_CSR)
        return PyErr_Format(PyExc_RuntimeError, "sparse_mm_reduce: expect self to be SparseCsr, got %s", tensor_layout_name(SELF));
    const tn_tensor *t = tn_tensor_of(SELF), *o = TN_T(a[1]);
    if (t->ndim != 2 || m->dense_dim) return tn_not_implemented("aten::_sparse_mm_reduce_impl of a batched or hybrid CSR tensor");
    if (o->ndim != 2 || o->sizes[0] != t->sizes[1])
        return PyErr_Format(PyExc_RuntimeError, "Expected a tensor of dimension 2 and tensor.size[0] == %lld but got: dimension %d and "
                            "tensor.size[0] = %lld", (long long)t->sizes[1], o->ndim, (long long)(o->ndim ? o->sizes[0] : 0));
    bool reduced = t->dtype == TN_DTYPE_BF16 || t->dtype == TN_DTYPE_F16;   /* accumulated in float32, rounded once */
    if ((t->dtype != TN_DTYPE_F32 && t->dtype != TN_DTYPE_F64 && !reduced) || o->dtype != t->dtype)
        return tn_not_implemented("aten::_sparse_mm_reduce_impl other than of floating operands of one dtype");
    tn_dtype wt = reduced ? TN_DTYPE_F32 : t->dtype;
    entries_t e;
    if (entries(SELF, &e) < 0) return NULL;   /* checks the index structure */
    entries_free(&e);
    int64_t M_ = t->sizes[0], N = o->sizes[1];
    if (tn_numel(tn_tensor_of(m->values)) != e.nnz || tn_tensor_of(m->indices)->sizes[0] != M_ + 1)
        return err("sparse_mm_reduce: the values or crow_indices do not match the tensor's size");
    PyObject *C = tn_as_dtype(m->indices, TN_DTYPE_I64, true), *P = C ? tn_as_dtype(m->plain, TN_DTYPE_I64, true) : NULL;
    PyObject *V = P ? tn_as_dtype(m->values, wt, true) : NULL, *X = V ? tn_as_dtype(a[1].u.obj, wt, true) : NULL;
    PyObject *out = X ? tn_at_empty_memory_format(TN_IS(M_, N), TN_DT(wt), NULL, NULL, NULL, NULL) : NULL;
    PyObject *arg = out ? tn_at_empty_memory_format(TN_IS(0), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL) : NULL;
    PyObject *res = NULL;
    for (int64_t k = 0; arg && k < e.nnz; k++) {   /* the plain indices read other's rows: in range */
        int64_t col = ((const int64_t *)tn_data(tn_tensor_of(P)))[k];
        if (col < 0 || col >= o->sizes[0]) {
            PyErr_SetString(PyExc_RuntimeError, "`0 <= col_indices < ncols` is not satisfied.");
            Py_CLEAR(arg);
        }
    }
    if (arg) {
        /* reduced dtypes: a mean's sum is rounded to the dtype before its division, as upstream's */
        bool sum_first = reduced && r == 1;
        const int64_t *cv = (const int64_t *)tn_data(tn_tensor_of(C));
        spmm_rows(sum_first ? 0 : r, wt == TN_DTYPE_F64, cv, (const int64_t *)tn_data(tn_tensor_of(P)), tn_data(tn_tensor_of(V)),
                  tn_data(tn_tensor_of(X)), tn_data(tn_tensor_of(out)), M_, N);
        if (reduced) Py_SETREF(out, tn_as_dtype(out, t->dtype, false));
        if (out && sum_first) {
            PyObject *cnt = tn_at_empty_memory_format(TN_IS(M_, 1), TN_DT(TN_DTYPE_F32), NULL, NULL, NULL, NULL);
            if (cnt)
                for (int64_t i = 0; i < M_; i++) ((float *)tn_data(tn_tensor_of(cnt)))[i] = cv[i + 1] > cv[i] ? (float)(cv[i + 1] - cv[i]) : 1.f;
            PyObject *f = cnt ? tn_as_dtype(out, TN_DTYPE_F32, false) : NULL;
            PyObject *q = f ? tn_at_div_Tensor(f, cnt) : NULL;
            Py_XDECREF(cnt);
            Py_XDECREF(f);
            Py_SETREF(out, q ? tn_as_dtype(q, t->dtype, false) : NULL);
            Py_XDECREF(q);
        }
        res = out ? PyTuple_Pack(2, out, arg) : NULL;
    }
    Py_XDECREF(C); Py_XDECREF(P); Py_XDECREF(V); Py_XDECREF(X); Py_XDECREF(out); Py_XDECREF(arg);
    return res;
}
/* _sparse_mm_reduce_impl_backward(self, grad_out, weight, reduce, arg_out, output_mask) for "sum"
 * and "mean": self's gradient has self's pattern, each element (r, c) grad_out[r] . weight[c]
 * (sampled_addmm), over the row's count for "mean"; weight's is self^T @ grad_out (self's values
 * over their rows' counts for "mean"). "amax" / "amin" (which read arg_out) are refused by name. */
static PyObject *k_mm_reduce_backward(int op, tn_value *a) {
    PyObject *self = a[0].u.obj, *go = a[1].u.obj, *w = a[2].u.obj;
    tn_sparse *m = CP(self);
    const char *red = tn_str_of(&a[3]);
    if (!red) return NULL;
    bool mean = !strcmp(red, "mean");
    if (!mean && strcmp(red, "sum")) return tn_not_implemented("the backward of torch.sparse.mm(..., reduce) other than \"sum\" or \"mean\"");
    if (!m || m->kind != TN_SPARSE_CSR || tn_tensor_of(self)->ndim != 2 || m->dense_dim)
        return tn_not_implemented("aten::_sparse_mm_reduce_impl_backward other than of a 2-d CSR self");
    bool want[2] = {true, true};
    for (int i = 0; a[5].tag == TN_V_INTLIST && i < a[5].u.ints.n && i < 2; i++) want[i] = a[5].u.ints.v[i] != 0;
    /* each element's row count (mean) */
    PyObject *cnt = NULL;
    if (mean) {
        entries_t e;
        if (entries(self, &e) < 0) return NULL;
        PyObject *ci = tn_as_dtype(m->indices, TN_DTYPE_I64, false);
        PyObject *df = ci ? tn_at_diff(ci, 1, -1, NULL, NULL) : NULL;
        cnt = df ? tn_at_index_select(df, 0, e.c) : NULL;
        if (cnt) Py_SETREF(cnt, tn_as_dtype(cnt, tn_tensor_of(m->values)->dtype, false));
        Py_XDECREF(ci);
        Py_XDECREF(df);
        entries_free(&e);
        if (!cnt) return NULL;
    }
    PyObject *gs = Py_NewRef(Py_None), *gw = Py_NewRef(Py_None);
    bool ok = true;
    if (want[0]) {
        PyObject *z = tn_at_zeros_like(m->values, NULL, NULL, NULL, NULL, NULL);
        PyObject *zs = z ? make_like(self, tn_at_clone(m->indices, NULL), tn_at_clone(m->plain, NULL), z) : NULL;
        PyObject *wt = zs ? tn_at_t(w) : NULL;
        PyObject *r = wt ? tn_at_sparse_sampled_addmm(zs, go, wt, TN_SI(0), TN_SI(1)) : NULL;
        if (r && mean) {
            PyObject *v = tn_at_div_Tensor(CP(r)->values, cnt);
            Py_SETREF(r, v ? make_like(r, Py_NewRef(CP(r)->indices), Py_NewRef(CP(r)->plain), v) : NULL);
        }
        Py_XDECREF(zs);
        Py_XDECREF(wt);
        ok = r != NULL;
        if (r) Py_SETREF(gs, r);
    }
    if (ok && want[1]) {
        PyObject *src = Py_NewRef(self);
        if (mean) {
            PyObject *v = tn_at_div_Tensor(m->values, cnt);
            Py_SETREF(src, v ? make_like(self, Py_NewRef(m->indices), Py_NewRef(m->plain), v) : NULL);
        }
        PyObject *st = src ? transpose(src, 0, 1) : NULL;
        PyObject *r = st ? tn_at_mm(st, go) : NULL;
        Py_XDECREF(src);
        Py_XDECREF(st);
        ok = r != NULL;
        if (r) Py_SETREF(gw, r);
    }
    Py_XDECREF(cnt);
    PyObject *res = ok ? PyTuple_Pack(2, gs, gw) : NULL;
    Py_DECREF(gs);
    Py_DECREF(gw);
    return res;
}

/* _sparse_mm.reduce(sparse, dense, reduce) (CompositeImplicitAutograd): the reduction's first result */
PyObject *tn_compressed_d_sparse_mm_reduce(tn_value *a) {
    PyObject *r = tn_at__sparse_mm_reduce_impl(a[0].u.obj, a[1].u.obj, tn_str_of(&a[2]));
    PyObject *o = r ? Py_NewRef(PyTuple_GetItem(r, 0)) : NULL;
    Py_XDECREF(r);
    return o;
}

/* add.Tensor(self, other, alpha): two compressed tensors of one layout (their COO sum, back in the
 * layout: the union of their elements), or dense + alpha * compressed (dense) */
static PyObject *k_add(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    tn_sparse *mx = CP(x), *my = CP(y);
    if (!mx && !((tn_tensor_obj *)x)->sparse && my) {
        const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
        bool same = p->ndim == q->ndim;
        for (int i = 0; same && i < p->ndim; i++) same = p->sizes[i] == q->sizes[i];
        if (!same) return tn_not_implemented("aten::add of a dense and a sparse compressed tensor of other shapes");
        if (blocked(my->kind))   /* upstream asserts there (its add_out_dense_sparse_compressed_cpu takes CSR / CSC only) */
            return PyErr_Format(PyExc_RuntimeError, "add of a dense and a %s tensor is not supported", tensor_layout_name(y));
        PyObject *dn = to_dense(y);
        if (dn && !a[2].defaulted) Py_SETREF(dn, tn_at_mul_Scalar(dn, TN_SV(&a[2])));
        PyObject *r = dn ? tn_at_add_Tensor(x, dn, TN_SDEF) : NULL;
        Py_XDECREF(dn);
        return r;
    }
    if (mx && !blocked(mx->kind) && !((tn_tensor_obj *)y)->sparse) {   /* compressed + dense: upstream's dense + alpha * compressed */
        const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
        bool same = p->ndim == q->ndim;
        for (int i = 0; same && i < p->ndim; i++) same = p->sizes[i] == q->sizes[i];
        if (!same) return tn_not_implemented("aten::add of a sparse compressed and a dense tensor of other shapes");
        PyObject *dn = to_dense(x);
        if (dn && !a[2].defaulted) Py_SETREF(dn, tn_at_mul_Scalar(dn, TN_SV(&a[2])));
        PyObject *r = dn ? tn_at_add_Tensor(y, dn, TN_SDEF) : NULL;
        Py_XDECREF(dn);
        return r;
    }
    if (mx && my && !row_major(mx->kind))   /* upstream adds through crow_indices */
        return PyErr_Format(PyExc_RuntimeError, "crow_indices expected sparse row compressed tensor layout but got %s", tensor_layout_name(x));
    if (mx && my && !row_major(my->kind))
        return PyErr_Format(PyExc_RuntimeError, "crow_indices expected sparse row compressed tensor layout but got %s", tensor_layout_name(y));
    if (mx && my && (blocked(mx->kind) || blocked(my->kind)))   /* upstream's MKL path fails (1x1 blocks: a malformed result) */
        return PyErr_Format(PyExc_RuntimeError, "add of %s and %s tensors is not supported (upstream's MKL path fails with an MKL error)",
                            tensor_layout_name(x), tensor_layout_name(y));
    if (!mx || !my || mx->kind != TN_SPARSE_CSR || my->kind != TN_SPARSE_CSR)
        return tn_not_implemented("aten::add of sparse compressed tensors other than two CSR tensors or a dense and a compressed one");
    PyObject *cx = to_coo(x), *cy = cx ? to_coo(y) : NULL;
    PyObject *s = cy ? tn_at_add_Tensor(cx, cy, TN_SV(&a[2])) : NULL;
    Py_XDECREF(cx);
    Py_XDECREF(cy);
    tn_value dd = {.tag = TN_V_NONE};
    PyObject *r = s ? convert(s, mx->kind, NULL, &dd) : NULL;
    Py_XDECREF(s);
    return r;
}

/* zeros_like / empty_like(self, *, dtype, layout, device, pin_memory, memory_format) of a
 * compressed self: no elements (zeros_like), self's indices with zero values (empty_like, whose
 * values upstream leaves uninitialised); layout=torch.strided: dense zeros */
static PyObject *k_like(int op, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(SELF);
    tn_dtype dt = a[1].tag == TN_V_DTYPE ? a[1].u.dtype : t->dtype;
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj == tn_py.layout_strided)
        return PyErr_Format(PyExc_RuntimeError, "empty_like with different sparse layout is not supported (self is %s but you requested Strided)",
                            tensor_layout_name(SELF));
    if (a[2].tag == TN_V_LAYOUT && a[2].u.obj != layout_of_kind(M->kind)) {   /* torch.zeros in that layout */
        if (op == TN_ROW_empty_like) return tn_not_implemented("aten::empty_like of a sparse compressed tensor in another sparse layout");
        return tn_at_zeros(TN_IN(t->sizes, t->ndim), TN_DT(dt), a[2].u.obj, NULL, NULL);
    }
    const tn_tensor *vt = tn_tensor_of(M->values);
    if (op == TN_ROW_empty_like) {
        PyObject *v = tn_at_zeros(TN_IN(vt->sizes, vt->ndim), TN_DT(dt), NULL, NULL, NULL);
        return make_like(SELF, v ? tn_at_clone(M->indices, NULL) : NULL, v ? tn_at_clone(M->plain, NULL) : NULL, v);
    }
    const tn_tensor *ct = tn_tensor_of(M->indices), *pt = tn_tensor_of(M->plain);
    int batch = ct->ndim - 1;
    int64_t ps[TN_MAX_DIMS + 1], vs[TN_MAX_DIMS + 4];
    memcpy(ps, pt->sizes, (size_t)pt->ndim * sizeof *ps);
    memcpy(vs, vt->sizes, (size_t)vt->ndim * sizeof *vs);
    ps[batch] = vs[batch] = 0;
    PyObject *ci = tn_at_zeros(TN_IN(ct->sizes, ct->ndim), TN_DT(ct->dtype), NULL, NULL, NULL);
    PyObject *pi = ci ? tn_at_zeros(TN_IN(ps, pt->ndim), TN_DT(pt->dtype), NULL, NULL, NULL) : NULL;
    PyObject *v = pi ? tn_at_zeros(TN_IN(vs, vt->ndim), TN_DT(dt), NULL, NULL, NULL) : NULL;
    return make_like(SELF, ci, pi, v);
}

/* torch.empty / torch.zeros(size, layout=<CSR or CSC>): no elements, zero compressed indices */
PyObject *tn_compressed_empty(const int64_t *size, int n, PyObject *layout, tn_dtype dtype, const char *who) {
    int k = kind_of_layout(layout);
    char b[120];
    if (n < 2) {
        fmt_dims(b, sizeof b, size, n);
        return PyErr_Format(PyExc_RuntimeError, "torch.%s: Only batched sparse compressed (non-block) tensors are supported, but got size %s",
                            who, b);
    }
    if (blocked(k))
        return PyErr_Format(PyExc_RuntimeError, "%s_sparse_compressed expected sparse compressed (non-block) tensor layout but got %s", who,
                            layout_name(layout));
    int64_t cs[TN_MAX_DIMS], ps[TN_MAX_DIMS];
    memcpy(cs, size, (size_t)(n - 2) * sizeof *cs);
    memcpy(ps, size, (size_t)(n - 2) * sizeof *ps);
    cs[n - 2] = size[row_major(k) ? n - 2 : n - 1] + 1;
    ps[n - 2] = 0;
    PyObject *ci = tn_at_zeros(TN_IN(cs, n - 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL);
    PyObject *pi = ci ? tn_at_zeros(TN_IN(ps, n - 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL) : NULL;
    PyObject *v = pi ? tn_at_zeros(TN_IN(ps, n - 1), TN_DT(dtype), NULL, NULL, NULL) : NULL;
    return make(k, size, n, ci, pi, v);
}

/* ---- in place ---- */

/* the in-place unary ops (abs_, sin_, ...), fill_.Scalar and mul_ by a number: the values changed
 * in place, the pattern kept (upstream's values-only kernels) */
static PyObject *k_unary_(int op, tn_value *a) {
    const tn_schema *sc = tn_op_schema(op);
    int n = sc && sc->nargs <= 4 ? sc->nargs : 1;
    tn_value b[4];
    memcpy(b, a, (size_t)n * sizeof *b);
    b[0].u.obj = M->values;
    PyObject *r = tn_call_row(op, b, n);
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(SELF);
}
/* zero_: no elements, as upstream's zero_sparse_csr_: the compressed indices zeroed, the plain
 * indices and values resized to no elements, all in place */
static PyObject *k_zero_(int op, tn_value *a) {
    int batch = batch_of(SELF);
    PyObject *r = tn_at_zero_(M->indices);
    for (int i = 0; r && i < 2; i++) {
        PyObject *x = i ? M->values : M->plain;
        const tn_tensor *t = tn_tensor_of(x);
        int64_t sz[TN_MAX_DIMS];
        memcpy(sz, t->sizes, (size_t)t->ndim * sizeof *sz);
        sz[batch] = 0;
        Py_SETREF(r, tn_at_resize_(x, TN_IN(sz, t->ndim), NULL));
    }
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(SELF);
}
/* add_.Tensor / mul_.Tensor by a compressed tensor: the out-of-place result copied into self's
 * members, each resized in place (upstream's: views of self's values see the new ones); mul_ by a
 * number or a 0-dim tensor: the values scaled in place */
static PyObject *k_arith_(int op, tn_value *a) {
    static int add_ = -2, mul_t = -2;
    if (add_ == -2) { add_ = tn_op_find("add_", "Tensor"); mul_t = tn_op_find("mul_", "Tensor"); }
    if (!M && op == add_) {   /* a dense self: the dense sum copied into it */
        PyObject *r = tn_at_add_Tensor(SELF, a[1].u.obj, TN_SV(&a[2]));
        if (r) Py_SETREF(r, tn_at_copy_(SELF, r, false));
        return r;
    }
    if (!M) return tn_not_implemented("aten::mul_ of a dense self by a sparse compressed tensor");
    if (op != add_ && (op != mul_t || (!CP(a[1].u.obj) && !((tn_tensor_obj *)a[1].u.obj)->sparse && TN_T(a[1])->ndim == 0)))
        return k_unary_(op, a);
    PyObject *r = op == add_ ? tn_at_add_Tensor(SELF, a[1].u.obj, TN_SV(&a[2])) : tn_at_mul_Tensor(SELF, a[1].u.obj);
    tn_sparse *m = r ? CP(r) : NULL;
    if (r && !m) PyErr_SetString(PyExc_RuntimeError, "the result of an in-place op on a sparse compressed tensor must keep its layout");
    PyObject *mine[3] = {M->indices, M->plain, M->values}, *theirs[3] = {m ? m->indices : NULL, m ? m->plain : NULL, m ? m->values : NULL};
    bool ok = m != NULL;
    for (int i = 0; ok && i < 3; i++) {
        const tn_tensor *t = tn_tensor_of(theirs[i]);
        PyObject *w = tn_at_resize_(mine[i], TN_IN(t->sizes, t->ndim), NULL);
        if (w) Py_SETREF(w, tn_at_copy_(mine[i], theirs[i], false));
        ok = w != NULL;
        Py_XDECREF(w);
    }
    Py_XDECREF(r);
    return ok ? Py_NewRef(SELF) : NULL;
}
/* copy_(self, src, non_blocking): src's members copied into self's, upstream's checks in its order
 * (copy_sparse_compressed_) */
static PyObject *k_copy_(int op, tn_value *a) {
    PyObject *self = SELF, *src = a[1].u.obj;
    tn_sparse *m = CP(self), *s = CP(src);
    if (!m) return tn_not_implemented("aten::copy_ of a sparse compressed tensor into a tensor of another layout");
    if (!s || s->kind != m->kind)
        return PyErr_Format(PyExc_RuntimeError, "torch.copy_: copy of sparse compressed tensors having different layouts is not supported. "
                            "self layout is %s and src layout is %s", tensor_layout_name(self), tensor_layout_name(src));
    const tn_tensor *pm = tn_tensor_of(m->plain), *ps = tn_tensor_of(s->plain);
    if (pm->sizes[pm->ndim - 1] != ps->sizes[ps->ndim - 1])
        return err("torch.copy_: only sparse compressed tensors with the same number of specified elements are supported.");
    const tn_tensor *t = tn_tensor_of(self), *u = tn_tensor_of(src);
    int cd = batch_of(self) + (row_major(m->kind) ? 0 : 1), cs = batch_of(src) + (row_major(s->kind) ? 0 : 1);
    if (t->sizes[cd] != u->sizes[cs])
        return PyErr_Format(PyExc_RuntimeError, "torch.copy_: expected shapes of self and src to match along dimension %d for %s layout but "
                            "the corresponding dimensions of self and src are %lld and %lld, respectively.", cd, tensor_layout_name(self),
                            (long long)t->sizes[cd], (long long)u->sizes[cs]);
    int64_t b1, b2, s1, s2;
    blocksize_of(m, &b1, &b2);
    blocksize_of(s, &s1, &s2);
    if (b1 != s1 || b2 != s2)
        return PyErr_Format(PyExc_RuntimeError, "torch.copy_: copy of sparse compressed tensors having different block sizes is not supported. "
                            "self and src block sizes are (%lld, %lld) and (%lld, %lld), respectively.", (long long)b1, (long long)b2,
                            (long long)s1, (long long)s2);
    bool nb = a[2].u.i != 0;
    PyObject *r = tn_at_copy_(m->indices, s->indices, nb);
    if (r) Py_SETREF(r, tn_at_copy_(m->plain, s->plain, nb));
    if (r) Py_SETREF(r, tn_at_copy_(m->values, s->values, nb));
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(self);
}

/* sum.dim_IntList(self, dim, keepdim, dtype) of a 2-d CSR matrix (upstream's reduce_sparse_csr):
 * keepdim only; dim 1: each row holding elements one element, the row's values added in storage
 * order; dim 0: each column holding elements (sorted) one, added in storage order; both: one
 * element, every value added in storage order. Integral inputs sum in int64. */
static PyObject *k_sum_dim(int op, tn_value *a) {
    tn_sparse *m = M;
    const tn_tensor *t = tn_tensor_of(SELF);
    if (m->kind != TN_SPARSE_CSR)
        return PyErr_Format(PyExc_RuntimeError, "Currently the only compressed sparse format supported for sum.dim_IntList is CSR, but got "
                            "layout %s", tensor_layout_name(SELF));
    bool rows = false, cols = false;
    int n = a[1].tag == TN_V_INTLIST ? a[1].u.ints.n : 0;
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (tn_wrap_dim(a[1].u.ints.v[i], t->ndim, &d) < 0) return NULL;
        if (d == t->ndim - 2) rows = true; else if (d == t->ndim - 1) cols = true;
    }
    if (!a[2].u.i) return err("reduction operations on CSR tensors with keepdim=False is unsupported");
    if (t->ndim != 2 || m->dense_dim) return err("reduction of a batched or hybrid CSR tensor: input_dim == 2 is required (upstream's internal assert)");
    if (!n) rows = cols = true;
    if (t->dtype == TN_DTYPE_BOOL) return PyErr_Format(PyExc_NotImplementedError, "\"_sparse_csr_sum_cpu\" not implemented for 'Bool'");
    tn_dtype dt = a[3].tag == TN_V_DTYPE ? a[3].u.dtype : tn_dtype_is_integral(t->dtype, true) ? TN_DTYPE_I64 : t->dtype;
    /* float16 / bfloat16 add in float32 and round once (upstream's accumulate type) */
    tn_dtype acc = dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16 ? TN_DTYPE_F32 : dt;
    entries_t e;
    if (entries(SELF, &e) < 0) return NULL;
    int64_t R = t->sizes[0], C = t->sizes[1], nout = rows && cols ? 1 : rows ? C : R;
    PyObject *where = rows && cols ? e.b : rows ? e.p : e.c;   /* the output slot of each element */
    PyObject *v = tn_as_dtype(m->values, acc, false);
    PyObject *z = v ? tn_at_zeros(TN_IS(nout), TN_DT(acc), NULL, NULL, NULL) : NULL;
    PyObject *s = z ? tn_at_index_add(z, 0, where, v, TN_SDEF) : NULL;
    Py_XDECREF(v);
    Py_XDECREF(z);
    if (s && acc != dt) Py_SETREF(s, tn_as_dtype(s, dt, false));
    /* the slots holding elements, in order */
    PyObject *hit = s ? tn_at_empty_memory_format(TN_IS(nout), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL) : NULL;
    int64_t nh = 0, *h = hit ? (int64_t *)tn_data(tn_tensor_of(hit)) : NULL;
    if (h) {
        const int64_t *w = (const int64_t *)tn_data(tn_tensor_of(where));
        bool *seen = calloc((size_t)nout + 1, 1);
        if (!seen) { PyErr_NoMemory(); Py_CLEAR(hit); }
        for (int64_t k = 0; seen && k < e.nnz; k++) seen[w[k]] = true;
        for (int64_t i = 0; seen && i < nout; i++)
            if (seen[i]) h[nh++] = i;
        free(seen);
    }
    entries_free(&e);
    PyObject *ci = NULL, *pi = NULL, *nv = NULL;
    if (hit) {
        Py_SETREF(hit, tn_at_narrow(hit, 0, 0, nh));
        nv = hit ? tn_at_index_select(s, 0, hit) : NULL;
        int64_t nc = rows ? 1 : R;
        ci = nv ? tn_at_empty_memory_format(TN_IS(nc + 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL) : NULL;
        if (ci) {
            int64_t *cv = (int64_t *)tn_data(tn_tensor_of(ci));
            const int64_t *hv = (const int64_t *)tn_data(tn_tensor_of(hit));
            cv[0] = 0;
            if (rows) cv[1] = nh;
            else
                for (int64_t i = 0, k = 0; i < R; i++) { k += k < nh && hv[k] == i; cv[i + 1] = k; }
            pi = rows && !cols ? tn_at_clone(hit, NULL) : tn_at_zeros(TN_IS(nh), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL);
        }
    }
    Py_XDECREF(s);
    Py_XDECREF(hit);
    tn_dtype it = tn_tensor_of(m->indices)->dtype;
    if (ci) Py_SETREF(ci, tn_as_dtype(ci, it, false));
    if (pi) Py_SETREF(pi, tn_as_dtype(pi, it, false));
    int64_t size[2] = {rows ? 1 : R, cols ? 1 : C};
    return make(TN_SPARSE_CSR, size, 2, ci, pi, nv);
}

/* mm of two compressed matrices (CSR or CSC, not blocked): a CSR result, upstream's (MKL's
 * mkl_sparse_spmm) Gustavson product: row i of the result gathers, for each element (k, a) of
 * self's row i in order, each element (j, b) of other's row k in order, a column taking its place
 * at its first appearance and its value the products added in that order */
static PyObject *spgemm(PyObject *x, PyObject *y) {
    const tn_tensor *p = tn_tensor_of(x), *q = tn_tensor_of(y);
    tn_sparse *mx = CP(x), *my = CP(y);
    if (blocked(mx->kind) || blocked(my->kind)) {
        return PyErr_Format(PyExc_RuntimeError, "zeros_sparse_compressed expected sparse compressed (non-block) tensor layout but got %s",
                            tensor_layout_name(blocked(mx->kind) ? x : y));
    }
    if (p->ndim != 2 || q->ndim != 2 || mx->dense_dim || my->dense_dim)
        return tn_not_implemented("aten::mm of batched or hybrid sparse compressed tensors");
    if (p->sizes[1] != q->sizes[0]) return shapes_error(p, q);
    tn_dtype dt = tn_promote_types(p->dtype, q->dtype);
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64) return tn_not_implemented("aten::mm of two sparse compressed matrices other than float32 / float64");
    tn_value dd = {.tag = TN_V_NONE};
    PyObject *a = mx->kind == TN_SPARSE_CSR ? Py_NewRef(x) : convert(x, TN_SPARSE_CSR, NULL, &dd);
    PyObject *b = a ? (my->kind == TN_SPARSE_CSR ? Py_NewRef(y) : convert(y, TN_SPARSE_CSR, NULL, &dd)) : NULL;
    PyObject *ac = b ? tn_as_dtype(CP(a)->indices, TN_DTYPE_I64, true) : NULL, *ap = ac ? tn_as_dtype(CP(a)->plain, TN_DTYPE_I64, true) : NULL;
    PyObject *av = ap ? tn_as_dtype(CP(a)->values, dt, true) : NULL;
    PyObject *bc = av ? tn_as_dtype(CP(b)->indices, TN_DTYPE_I64, true) : NULL, *bp = bc ? tn_as_dtype(CP(b)->plain, TN_DTYPE_I64, true) : NULL;
    PyObject *bv = bp ? tn_as_dtype(CP(b)->values, dt, true) : NULL;
    int64_t R = p->sizes[0], K = p->sizes[1], N = q->sizes[1];
    PyObject *res = NULL, *ci = NULL, *pi = NULL, *v = NULL;
    int64_t *mark = NULL;
    if (!bv) goto done;
    entries_t e;   /* checks both index structures */
    if (entries(a, &e) < 0) goto done;
    entries_free(&e);
    if (entries(b, &e) < 0) goto done;
    entries_free(&e);
    const int64_t *AC = (const int64_t *)tn_data(tn_tensor_of(ac)), *AP = (const int64_t *)tn_data(tn_tensor_of(ap));
    const int64_t *BC = (const int64_t *)tn_data(tn_tensor_of(bc)), *BP = (const int64_t *)tn_data(tn_tensor_of(bp));
    for (int64_t k = 0; k < AC[R]; k++)
        if (AP[k] < 0 || AP[k] >= K) { PyErr_SetString(PyExc_RuntimeError, "`0 <= col_indices < ncols` is not satisfied."); goto done; }
    for (int64_t k = 0; k < BC[K]; k++)
        if (BP[k] < 0 || BP[k] >= N) { PyErr_SetString(PyExc_RuntimeError, "`0 <= col_indices < ncols` is not satisfied."); goto done; }
    /* the result's size: each row's distinct columns */
    mark = malloc((size_t)(N ? N : 1) * sizeof *mark);
    if (!mark) { PyErr_NoMemory(); goto done; }
    for (int64_t j = 0; j < N; j++) mark[j] = -1;
    int64_t nnz = 0;
    for (int64_t i = 0; i < R; i++)
        for (int64_t k = AC[i]; k < AC[i + 1]; k++)
            for (int64_t l = BC[AP[k]]; l < BC[AP[k] + 1]; l++)
                if (mark[BP[l]] != i) { mark[BP[l]] = i; nnz++; }
    ci = tn_at_empty_memory_format(TN_IS(R + 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
    pi = ci ? tn_at_empty_memory_format(TN_IS(nnz), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL) : NULL;
    v = pi ? tn_at_empty_memory_format(TN_IS(nnz), TN_DT(dt), NULL, NULL, NULL, NULL) : NULL;
    if (!v) goto done;
    int64_t *RC = (int64_t *)tn_data(tn_tensor_of(ci)), *RP = (int64_t *)tn_data(tn_tensor_of(pi));
    bool f64 = dt == TN_DTYPE_F64;
    const void *A = tn_data(tn_tensor_of(av)), *B = tn_data(tn_tensor_of(bv));
    void *V = tn_data(tn_tensor_of(v));
    for (int64_t j = 0; j < N; j++) mark[j] = -1;   /* mark[j]: j's place in the result, this row */
    int64_t q_ = 0;
    RC[0] = 0;
    for (int64_t i = 0; i < R; i++) {
        int64_t start = q_;
        for (int64_t k = AC[i]; k < AC[i + 1]; k++)
            for (int64_t l = BC[AP[k]]; l < BC[AP[k] + 1]; l++) {
                int64_t j = BP[l];
                bool first = mark[j] < start;
                if (first) { mark[j] = q_; RP[q_++] = j; }
                if (f64) {
                    double pr = ((const double *)A)[k] * ((const double *)B)[l];
                    ((double *)V)[mark[j]] = first ? pr : ((double *)V)[mark[j]] + pr;
                } else {
                    float pr = ((const float *)A)[k] * ((const float *)B)[l];
                    ((float *)V)[mark[j]] = first ? pr : ((float *)V)[mark[j]] + pr;
                }
            }
        RC[i + 1] = q_;
    }
    int64_t size[2] = {R, N};
    res = make(TN_SPARSE_CSR, size, 2, ci, pi, v);
    ci = pi = v = NULL;
done:
    free(mark);
    Py_XDECREF(ci); Py_XDECREF(pi); Py_XDECREF(v);
    Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(ac); Py_XDECREF(ap); Py_XDECREF(av); Py_XDECREF(bc); Py_XDECREF(bp); Py_XDECREF(bv);
    return res;
}

/* ---- the stage ---- */

static struct { const char *name, *overload; cfn fn; bool coo_too; int row; } kernels[] = {
    {"crow_indices", "", k_crow, false, -2}, {"col_indices", "", k_col, false, -2}, {"ccol_indices", "", k_ccol, false, -2},
    {"row_indices", "", k_row, false, -2}, {"values", "", k_values, false, -2}, {"_nnz", "", k_nnz, false, -2},
    {"sparse_dim", "", k_sparse_dim, false, -2}, {"dense_dim", "", k_dense_dim, false, -2}, {"_dimI", "", k_sparse_dim, false, -2},
    {"_dimV", "", k_dense_dim, false, -2}, {"indices", "", k_coo_only, false, -2}, {"is_coalesced", "", k_coo_only, false, -2},
    {"_to_dense", "", k_to_dense, false, -2}, {"_to_sparse_csr", "", k_to_csr, true, -2}, {"_to_sparse_csc", "", k_to_csc, true, -2},
    {"_to_sparse_bsr", "", k_to_bsr, true, -2}, {"_to_sparse_bsc", "", k_to_bsc, true, -2}, {"clone", "", k_clone, false, -2},
    {"detach", "", k_detach, false, -2}, {"alias", "", k_detach, false, -2}, {"_to_copy", "", k_to_copy, false, -2},
    {"mul", "Tensor", k_scale, false, -2}, {"mul", "Scalar", k_scale, false, -2}, {"neg", "", k_unary, false, -2}, {"abs", "", k_unary, false, -2},
    {"sin", "", k_unary, false, -2}, {"sqrt", "", k_unary, false, -2}, {"tanh", "", k_unary, false, -2}, {"sum", "", k_sum, false, -2},
    {"transpose", "int", k_transpose, false, -2}, {"select", "int", k_select, false, -2}, {"t", "", k_t, false, -2}, {"mm", "", k_mm, false, -2}, {"addmm", "", k_addmm, false, -2},
    {"mv", "", k_mv, false, -2}, {"_sparse_mm_reduce_impl", "", k_mm_reduce, false, -2},
    {"_sparse_mm_reduce_impl_backward", "", k_mm_reduce_backward, false, -2}, {"add", "Tensor", k_add, false, -2},
    {"zero_", "", k_zero_, false, -2}, {"copy_", "", k_copy_, false, -2}, {"fill_", "Scalar", k_unary_, false, -2},
    {"add_", "Tensor", k_arith_, false, -2}, {"mul_", "Tensor", k_arith_, false, -2}, {"mul_", "Scalar", k_arith_, false, -2},
    {"sum", "dim_IntList", k_sum_dim, false, -2}, {"addmv", "", k_addmv, false, -2}, {"expand", "", k_expand, false, -2},
    /* the f(0) = 0 pointwise ops of upstream's SparseCsrCPU rows, on the values */
    {"angle", "", k_unary, false, -2}, {"sgn", "", k_unary, false, -2}, {"asinh", "", k_unary, false, -2}, {"atanh", "", k_unary, false, -2},
    {"asin", "", k_unary, false, -2}, {"atan", "", k_unary, false, -2}, {"ceil", "", k_unary, false, -2}, {"erf", "", k_unary, false, -2},
    {"expm1", "", k_unary, false, -2}, {"floor", "", k_unary, false, -2}, {"frac", "", k_unary, false, -2}, {"isnan", "", k_unary, false, -2},
    {"log1p", "", k_unary, false, -2}, {"rad2deg", "", k_unary, false, -2}, {"deg2rad", "", k_unary, false, -2},
    {"round", "", k_unary, false, -2}, {"relu", "", k_unary, false, -2}, {"sinh", "", k_unary, false, -2}, {"tan", "", k_unary, false, -2},
    {"trunc", "", k_unary, false, -2}, {"erfinv", "", k_unary, false, -2}, {"sign", "", k_unary, false, -2},
    {"signbit", "", k_unary, false, -2}, {"isinf", "", k_unary, false, -2}, {"isposinf", "", k_unary, false, -2},
    {"isneginf", "", k_unary, false, -2}, {"_conj_physical", "", k_unary, false, -2},
    {"abs_", "", k_unary_, false, -2}, {"sgn_", "", k_unary_, false, -2}, {"asinh_", "", k_unary_, false, -2}, {"atanh_", "", k_unary_, false, -2},
    {"asin_", "", k_unary_, false, -2}, {"atan_", "", k_unary_, false, -2}, {"ceil_", "", k_unary_, false, -2}, {"erf_", "", k_unary_, false, -2},
    {"expm1_", "", k_unary_, false, -2}, {"floor_", "", k_unary_, false, -2}, {"frac_", "", k_unary_, false, -2},
    {"log1p_", "", k_unary_, false, -2}, {"rad2deg_", "", k_unary_, false, -2}, {"deg2rad_", "", k_unary_, false, -2},
    {"neg_", "", k_unary_, false, -2}, {"round_", "", k_unary_, false, -2}, {"relu_", "", k_unary_, false, -2}, {"sin_", "", k_unary_, false, -2},
    {"sinh_", "", k_unary_, false, -2}, {"sqrt_", "", k_unary_, false, -2}, {"tan_", "", k_unary_, false, -2}, {"tanh_", "", k_unary_, false, -2},
    {"trunc_", "", k_unary_, false, -2}, {"erfinv_", "", k_unary_, false, -2}, {"sign_", "", k_unary_, false, -2},
    {"conj_physical_", "", k_unary_, false, -2},
    {"zeros_like", "", k_like, false, -2}, {"empty_like", "", k_like, false, -2}, {"_to_sparse", "", k_to_sparse, false, -2}, {"_to_sparse", "sparse_dim", k_to_sparse_dim, false, -2}, {"sparse_mask", "", k_sparse_mask, false, -2}, {"sparse_sampled_addmm", "", k_sampled_addmm, false, -2},
};

static bool compressed_value(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return CP(v->u.obj) != NULL;
    if (v->tag == TN_V_TENSORLIST)
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++)
            if (CP(PyTuple_GetItem(v->u.obj, k))) return true;
    return false;
}

bool tn_compressed_among(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++)
        if (compressed_value(&args[i])) return true;
    return false;
}

PyObject *tn_compressed_call(int op, tn_value *args, bool *handled) {
    bool among = tn_compressed_among(op, args);
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
        if (kernels[i].row == -2) kernels[i].row = tn_op_find(kernels[i].name, kernels[i].overload);
        if (op == kernels[i].row && (among || kernels[i].coo_too)) {
            *handled = true;
            return kernels[i].fn(op, args);
        }
    }
    *handled = false;
    return NULL;
}
