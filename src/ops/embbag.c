/* ops/embbag.c — embedding_bag: the composite (padding_idx checked and wrapped, indices/offsets
 * made contiguous, _embedding_bag when weight requires grad else _embedding_bag_forward_only),
 * the CPU forward with upstream's extra outputs (offset2bag empty on its fast sum path, bag_size
 * zeros for sum, max_indices = bag_size for sum/mean and argmax rows for max), and the dense
 * backward ops derivatives.yaml names. Checks and messages as upstream's EmbeddingBag.cpp
 * (measured on torch 2.13.0). sparse=True gradients refuse by name. */
#include "autograd/autograd.h"
#include "core/dtype.h"
#include "kernels/embbag.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

static int dt_code(tn_dtype d) { return d == TN_DTYPE_F32 ? 0 : d == TN_DTYPE_F64 ? 1 : d == TN_DTYPE_BF16 ? 2 : 3; }

static const char *type_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "torch.FloatTensor";
    case TN_DTYPE_F64: return "torch.DoubleTensor";
    case TN_DTYPE_F16: return "torch.HalfTensor";
    case TN_DTYPE_BF16: return "torch.BFloat16Tensor";
    case TN_DTYPE_I64: return "torch.LongTensor";
    case TN_DTYPE_I32: return "torch.IntTensor";
    case TN_DTYPE_I16: return "torch.ShortTensor";
    case TN_DTYPE_I8: return "torch.CharTensor";
    case TN_DTYPE_U8: return "torch.ByteTensor";
    case TN_DTYPE_BOOL: return "torch.BoolTensor";
    default: return "torch.Tensor";
    }
}

static int check_index_type(const tn_tensor *t, const char *arg) {
    if (t->dtype == TN_DTYPE_I64 || t->dtype == TN_DTYPE_I32) return 0;
    PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #1 '%s' to have one of the following scalar types: Long, Int; but got "
                 "%s instead (while checking arguments for embedding_bag)", arg, type_name(t->dtype));
    return -1;
}
static int check_float_type(const tn_tensor *t, const char *arg) {
    if (tn_nn_float(t->dtype)) return 0;
    PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #1 '%s' to have one of the following scalar types: Half, BFloat16, "
                 "Float, Double; but got %s instead (while checking arguments for embedding_bag)", arg, type_name(t->dtype));
    return -1;
}

/* a 1-D view of an index tensor as a fresh int64 buffer (PyMem); NULL with an exception */
static int64_t *as_i64(const tn_tensor *t) {
    int64_t n = tn_numel(t);
    int64_t *b = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    if (!b) { PyErr_NoMemory(); return NULL; }
    const char *d = tn_data(t);
    int nd = t->ndim;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i, off = 0;
        for (int k = nd - 1; k >= 0; k--) {
            off += (r % t->sizes[k]) * t->strides[k];
            r /= t->sizes[k];
        }
        b[i] = t->dtype == TN_DTYPE_I64 ? ((const int64_t *)d)[off] : (int64_t)((const int32_t *)d)[off];
    }
    return b;
}

/* a new 1-D (or 2-D) tensor of dtype holding v */
static PyObject *from_i64(const int64_t *v, int nd, const int64_t *sz, tn_dtype dt) {
    PyObject *r = tn_tensor_new_empty(nd, sz, dt, TN_DEVICE_CPU);
    if (!r) return NULL;
    int64_t n = tn_numel(tn_tensor_of(r));
    char *d = tn_data(tn_tensor_of(r));
    for (int64_t i = 0; i < n; i++) {
        if (dt == TN_DTYPE_I64) ((int64_t *)d)[i] = v[i];
        else ((int32_t *)d)[i] = (int32_t)v[i];
    }
    return r;
}

/* upstream's make_offset2bag: ones added at the offsets, the first less one, cumsum */
static int make_offset2bag(const int64_t *off, int64_t noff, int64_t n, int64_t *o2b) {
    int64_t *c = PyMem_Calloc((size_t)n + 1, sizeof *c);
    if (!c) { PyErr_NoMemory(); return -1; }
    for (int64_t k = 0; k < noff; k++) {
        if (off[k] < 0 || off[k] > n) {
            PyMem_Free(c);
            PyErr_Format(PyExc_IndexError, "index out of range in self");
            return -1;
        }
        c[off[k]] += 1;
    }
    c[0] -= 1;
    int64_t s = 0;
    for (int64_t i = 0; i < n; i++) {
        s += c[i];
        o2b[i] = s;
    }
    PyMem_Free(c);
    return 0;
}

/* a: weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
 * include_last_offset, padding_idx */
static PyObject *ebag(tn_value *a, bool requires_grad) {
    const tn_tensor *w = TN_T(a[0]), *it = TN_T(a[1]), *ot = TN_T(a[2]);
    const tn_tensor *ps = a[6].tag == TN_V_TENSOR ? TN_T(a[6]) : NULL;
    int64_t mode = a[4].u.i, pad = a[8].u.i;
    bool ilo = a[7].u.i != 0;
    if (w->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "weight has to be a 2D Tensor, but got Tensor of dimension %d", w->ndim);
        return NULL;
    }
    if (mode < 0 || mode > 2) {
        PyErr_SetString(PyExc_RuntimeError, "`mode` must be sum, mean, or max.");
        return NULL;
    }
    if (it->ndim != 1 && it->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "input has to be a 1D or 2D Tensor, but got Tensor of dimension %d", it->ndim);
        return NULL;
    }
    if (it->ndim == 1 && ot->ndim != 1) {
        PyErr_Format(PyExc_RuntimeError, "offsets has to be a 1D Tensor, but got Tensor of dimension %d", ot->ndim);
        return NULL;
    }
    tn_dtype xt = tn_promote_types(ot->dtype, it->dtype);   /* promoted first (promoteIndicesAndOffsets) */
    tn_tensor fi = *it;
    fi.dtype = xt;
    if (check_index_type(&fi, "indices") < 0) return NULL;
    if (check_float_type(w, "weight") < 0) return NULL;
    if (ot->ndim == 0)   /* 2-D indices: upstream reads offsets.size(0) (measured) */
        return PyErr_Format(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
    int64_t n = it->ndim ? it->sizes[0] : 1, noff = ot->sizes[0], D = w->sizes[1];
    int64_t *idx = as_i64(it), *off = idx ? as_i64(ot) : NULL;
    int64_t *o2b = NULL, *bs = NULL, *mi = NULL;
    float *accf = NULL;
    unsigned char *seen = NULL;
    PyObject *out = NULL, *r_o2b = NULL, *r_bs = NULL, *r_mi = NULL, *res = NULL;
    if (!off) goto done;
    if (noff > 0) {
        if (off[0] != 0) {
            PyErr_Format(PyExc_RuntimeError, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                         "position 0. However, got %lld\n[ torch.LongTensor{} ]", (long long)off[0]);
            goto done;
        }
        if (off[noff - 1] > n) {
            PyErr_Format(PyExc_RuntimeError, "offsets[-1] can not be greater than input's length %lld but got offsets[-1] of %lld",
                         (long long)n, (long long)off[noff - 1]);
            goto done;
        }
    }
    if (ps) {
        if (mode != 0) {
            PyErr_SetString(PyExc_RuntimeError, "embedding_bag: per_sample_weights only supported with mode='sum'");
            goto done;
        }
        if (ps->dtype != w->dtype) {
            PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                         "'per_sample_weights'; but type %s does not equal %s (while checking arguments for embedding_bag)",
                         type_name(w->dtype), type_name(ps->dtype));
            goto done;
        }
        if (ps->ndim != 1) {
            PyErr_SetString(PyExc_RuntimeError, "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  "
                            "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
            goto done;
        }
        if (tn_numel(ps) != tn_numel(it)) {
            PyErr_SetString(PyExc_RuntimeError, "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false.  "
                            "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
            goto done;
        }
    }
    if (ilo && noff < 1) {
        PyErr_SetString(PyExc_RuntimeError, "include_last_offset: number of offset should be at least 1");
        goto done;
    }
    int64_t nbags = ilo ? noff - 1 : noff;
    /* upstream's fast path (no offset2bag for sum) */
    bool fast = w->dtype != TN_DTYPE_F64 && (w->sizes[1] == 1 || w->strides[1] == 1) && pad < 0 && (!ps || ps->strides[0] == 1 || ps->sizes[0] <= 1);
    if (w->strides[1] != 1) fast = false;
    bool want_o2b = mode != 0 || !fast;
    /* the fast path walks the bags by offsets (offsets[-1] ends the last bag when
     * include_last_offset; later indices are not read) and fails on decreasing offsets */
    int64_t n_read = n;
    if (fast && mode != 2) {
        for (int64_t k = 1; k < noff; k++)
            if (off[k] < off[k - 1]) {
                PyErr_SetString(PyExc_RuntimeError, "Expected i < index_size to be true, but got false.  (Could this error message be "
                                "improved?  If so, please report an enhancement request to PyTorch.)");
                goto done;
            }
        if (ilo) n_read = off[noff - 1];
    }
    o2b = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *o2b);
    bs = PyMem_Calloc((size_t)(nbags > 0 ? nbags : 1), sizeof *bs);
    mi = PyMem_Calloc((size_t)(nbags * D > 0 ? nbags * D : 1), sizeof *mi);
    seen = PyMem_Calloc((size_t)(nbags > 0 ? nbags : 1), 1);
    accf = PyMem_Calloc((size_t)(nbags * D > 0 ? nbags * D : 1), sizeof *accf);
    if (!o2b || !bs || !mi || !seen || !accf) { PyErr_NoMemory(); goto done; }
    if (make_offset2bag(off, nbags, n, o2b) < 0) goto done;
    for (int64_t b = 0; b < nbags; b++) bs[b] = (b + 1 < nbags ? off[b + 1] : n) - off[b];
    int64_t osz[2] = {nbags, D};
    out = tn_tensor_new_empty(2, osz, w->dtype, TN_DEVICE_CPU);
    if (!out) goto done;
    const tn_tensor *ot2 = tn_tensor_of(out);
    if (tn_numel(ot2)) memset(tn_data(ot2), 0, (size_t)(nbags * D * tn_dtype_itemsize(w->dtype)));
    tn_embbag_plan p = {.dt = dt_code(w->dtype), .mode = (int)mode, .n = n_read, .nbags = nbags, .dim = D, .nw = w->sizes[0], .idx = idx,
                        .bag_of = o2b, .w = tn_data(w), .ws0 = w->strides[0], .ws1 = w->strides[1],
                        .psw = ps ? tn_data(ps) : NULL, .pss = ps ? ps->strides[0] : 0, .pad = pad, .fma = fast, .out = tn_data(ot2), .accf = accf,
                        .bag_size = bs, .maxidx = mi, .seen = seen};
    int64_t bad = 0, pos = 0;
    int rc;
    if (nbags == 0) p.n = 0;   /* no bags: nothing is read (offset2bag would name bag -1) */
    Py_BEGIN_ALLOW_THREADS
    rc = tn_embbag_forward(&p, &bad, &pos);
    if (rc == 0 && mode == 1) tn_embbag_mean(&p);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        if (mode != 2 && fast)
            PyErr_Format(PyExc_RuntimeError, "Index %lld of input takes value %lld which is not in the valid range [0, %lld)", (long long)pos,
                         (long long)bad, (long long)w->sizes[0]);
        else
            PyErr_Format(PyExc_RuntimeError, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be %lld", (long long)bad);
        goto done;
    }
    int64_t z = 0, no = want_o2b ? n : 0;
    r_o2b = from_i64(want_o2b ? o2b : &z, 1, &no, xt);
    if (mode == 0) memset(bs, 0, (size_t)(nbags > 0 ? nbags : 1) * sizeof *bs);
    int64_t nbs = (mode == 0 && !requires_grad) ? noff : nbags;
    int64_t *zeros = PyMem_Calloc((size_t)(nbs > 0 ? nbs : 1), sizeof *zeros);
    if (!zeros) { PyErr_NoMemory(); goto done; }
    r_bs = r_o2b ? from_i64(mode == 0 ? zeros : bs, 1, &nbs, xt) : NULL;
    if (mode == 2) r_mi = r_bs ? from_i64(mi, 2, osz, xt) : NULL;
    else r_mi = r_bs ? from_i64(mode == 0 ? zeros : bs, 1, &nbs, xt) : NULL;
    PyMem_Free(zeros);
    if (r_mi) res = PyTuple_Pack(4, out, r_o2b, r_bs, r_mi);
done:
    PyMem_Free(idx);
    PyMem_Free(off);
    PyMem_Free(o2b);
    PyMem_Free(bs);
    PyMem_Free(mi);
    PyMem_Free(seen);
    PyMem_Free(accf);
    Py_XDECREF(out);
    Py_XDECREF(r_o2b);
    Py_XDECREF(r_bs);
    Py_XDECREF(r_mi);
    return res;
}

PyObject *tn_op__embedding_bag(tn_value *a) { return ebag(a, true); }
PyObject *tn_op__embedding_bag_forward_only(tn_value *a) { return ebag(a, false); }

/* the composite: padding_idx checked and wrapped, then the forward-only or the recording op */
static PyObject *ebag_composite(tn_value *a, bool has_pad) {
    const tn_tensor *w = TN_T(a[0]);
    int64_t pad = -1;
    if (has_pad && a[8].tag != TN_V_NONE) {
        if (w->ndim == 0)   /* upstream reads weight.size(0) first (measured) */
            return PyErr_Format(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
        int64_t ne = w->sizes[0];
        pad = a[8].u.i;
        if (pad < -ne || pad >= ne) {
            PyErr_Format(PyExc_RuntimeError, "padding_idx must be within the number of embeddings, -%lld through %lld, but got %lld",
                         (long long)ne, (long long)ne - 1, (long long)pad);
            return NULL;
        }
        if (pad < 0) pad += ne;
    }
    PyObject *ic = tn_at_contiguous(a[1].u.obj, NULL);
    PyObject *oc = ic ? tn_at_contiguous(a[2].u.obj, NULL) : NULL;
    PyObject *res = NULL;
    if (oc) {
        res = (tn_requires_grad(a[0].u.obj) ? tn_at__embedding_bag : tn_at__embedding_bag_forward_only)(
            a[0].u.obj, ic, oc, a[3].u.i != 0, a[4].u.i, a[5].u.i != 0, a[6].tag == TN_V_TENSOR ? a[6].u.obj : NULL, a[7].u.i != 0,
            pad);
    }
    Py_XDECREF(ic);
    Py_XDECREF(oc);
    return res;
}
PyObject *tn_op_embedding_bag(tn_value *a) { return ebag_composite(a, false); }
PyObject *tn_op_embedding_bag_padding_idx(tn_value *a) { return ebag_composite(a, true); }

/* offset2bag for the backward ops: the given one, or computed from offsets when it is empty */
static int64_t *bwd_offset2bag(const tn_tensor *o2b, const int64_t *off, int64_t noff, int64_t n) {
    int64_t *r;
    if (n != 0 && tn_numel(o2b) == 0) {
        r = PyMem_Malloc((size_t)n * sizeof *r);
        if (!r) { PyErr_NoMemory(); return NULL; }
        if (make_offset2bag(off, noff, n, r) < 0) { PyMem_Free(r); return NULL; }
        return r;
    }
    if (check_index_type(o2b, "offset2bag") < 0) return NULL;
    if (tn_numel(o2b) < n) {
        PyErr_SetString(PyExc_RuntimeError, "embedding_bag: offset2bag is shorter than indices");
        return NULL;
    }
    return as_i64(o2b);
}

/* _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
 * num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx) */
PyObject *tn_op__embedding_bag_backward(tn_value *a) {
    const tn_tensor *it = TN_T(a[1]), *ot = TN_T(a[2]);
    tn_dtype xt = tn_promote_types(ot->dtype, it->dtype);
    tn_tensor fi = *it, fo = *ot;
    fi.dtype = fo.dtype = xt;
    if (check_index_type(&fi, "indices") < 0) return NULL;
    if (a[9].u.i) return tn_not_implemented("aten::_embedding_bag_sparse_backward (sparse=True embedding_bag gradients)");
    PyObject *ic = tn_as_dtype(a[1].u.obj, xt, true), *oc = ic ? tn_as_dtype(a[2].u.obj, xt, true) : NULL;
    PyObject *o2b = NULL, *res = NULL;
    if (!oc) goto done;
    const tn_tensor *oct = tn_tensor_of(oc), *ict = tn_tensor_of(ic);
    int64_t n = ict->ndim ? ict->sizes[0] : 1;
    if (n != 0 && tn_numel(TN_T(a[3])) == 0) {
        int64_t *off = as_i64(oct), *b = NULL;
        if (off) {
            b = PyMem_Malloc((size_t)n * sizeof *b);
            if (!b) PyErr_NoMemory();
            else if (make_offset2bag(off, oct->ndim ? oct->sizes[0] : 1, n, b) == 0) o2b = from_i64(b, 1, &n, xt);
        }
        PyMem_Free(off);
        PyMem_Free(b);
        if (!o2b) goto done;
    } else {
        if (check_index_type(TN_T(a[3]), "offset2bag") < 0) goto done;
        o2b = Py_NewRef(a[3].u.obj);
    }
    res = tn_at__embedding_bag_dense_backward(a[0].u.obj, ic, o2b, a[4].u.obj, a[5].u.obj, (long long)a[6].u.i, a[7].u.i, (long long)a[8].u.i, a[10].tag == TN_V_TENSOR ? a[10].u.obj : Py_None, (long long)a[11].u.i);
done:
    Py_XDECREF(ic);
    Py_XDECREF(oc);
    Py_XDECREF(o2b);
    return res;
}

static int cmp_pair(const void *x, const void *y) {
    const int64_t *p = x, *q = y;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* _embedding_bag_dense_backward(grad, indices, offset2bag, bag_size, maximum_indices, num_weights,
 * scale_grad_by_freq, mode, per_sample_weights, padding_idx) */
PyObject *tn_op__embedding_bag_dense_backward(tn_value *a) {
    const tn_tensor *gt = TN_T(a[0]), *it = TN_T(a[1]);
    int64_t nw = a[5].u.i, mode = a[7].u.i;
    if (check_float_type(gt, "grad_") < 0) return NULL;
    /* sum / mean: upstream allocates the result, sorts indices and index_selects offset2bag by
     * the permutation before any other check, refusing an index of more than 1 dim there (indices
     * of a dtype its sort takes, uint16+ included; not on meta, which goes elsewhere upstream).
     * A grad of other than 2 dims upstream reads past for the result's size. */
    bool idx_2d = (mode == 0 || mode == 1) && it->ndim > 1 && !tn_door_on_meta() &&
                  (tn_dtype_is_integral(it->dtype, true) || it->dtype == TN_DTYPE_F16 || it->dtype == TN_DTYPE_BF16 ||
                   it->dtype == TN_DTYPE_F32 || it->dtype == TN_DTYPE_F64);
    /* float8 indices: that sort's dispatch (measured, any number of dims) */
    if ((mode == 0 || mode == 1) && !tn_door_on_meta() && tn_dtype_infos[it->dtype].kind == TN_KIND_FLOAT8)
        return tn_kernel_missing("sorting_kernel_method_name", it->dtype);
    static const char *const IDX_2D = "index_select(): Index is supposed to be a vector";
    if (idx_2d && gt->ndim != 2) {
        PyErr_SetString(PyExc_IndexError, IDX_2D);
        return NULL;
    }
    /* indices of at most 1 dim: that index_select's own refusals (its index is the sort's
     * permutation, 0 .. n-1), then the kernel's dispatch on the index dtype, Long / Int only, all
     * before grad, bag_size or the dims are looked at (measured, docs/breadth_more2.md "group sparse") */
    bool sortable = tn_dtype_is_integral(it->dtype, true) || it->dtype == TN_DTYPE_F16 || it->dtype == TN_DTYPE_BF16 ||
                    it->dtype == TN_DTYPE_F32 || it->dtype == TN_DTYPE_F64;
    if ((mode == 0 || mode == 1) && it->ndim <= 1 && sortable && !tn_door_on_meta()) {
        const tn_tensor *ob = TN_T(a[2]);
        int64_t ni = tn_numel(it);
        if (ob->ndim == 0 && ni != 1)
            return PyErr_Format(PyExc_RuntimeError, "index_select(): Index to scalar can have only 1 value, got %lld value(s)", (long long)ni);
        if (ob->ndim > 0 && ni > ob->sizes[0]) return PyErr_Format(PyExc_IndexError, "index out of range in self");
        if (it->dtype != TN_DTYPE_I64 && it->dtype != TN_DTYPE_I32)
            return tn_kernel_missing("_embedding_bag_dense_backward_cpu_sum_mean", it->dtype);
    }
    if (gt->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "embedding_bag backward: grad has to be a 2D Tensor, but got Tensor of dimension %d", gt->ndim);
        return NULL;
    }
    if (nw < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld, %lld]", (long long)nw, (long long)nw,
                     (long long)gt->sizes[1]);
        return NULL;
    }
    int64_t D = gt->sizes[1], nbags = gt->sizes[0], n = tn_numel(it);
    PyObject *gc = tn_as_dtype(a[0].u.obj, gt->dtype, true);
    PyObject *psc = NULL, *res = NULL;
    int64_t *idx = NULL, *o2b = NULL, *bs = NULL, *mi = NULL, *pairs = NULL, *sorted = NULL, *perm = NULL, *counts = NULL, *next = NULL;
    if (!gc) return NULL;
    int64_t gsz[2] = {nw, D};
    res = tn_tensor_new_empty(2, gsz, gt->dtype, TN_DEVICE_CPU);
    if (!res) goto fail;
    const tn_tensor *rt = tn_tensor_of(res);
    if (tn_numel(rt)) memset(tn_data(rt), 0, (size_t)(nw * D * tn_dtype_itemsize(gt->dtype)));
    if (idx_2d) {
        PyErr_SetString(PyExc_IndexError, IDX_2D);
        goto fail;
    }
    if (check_index_type(TN_T(a[3]), "bag_size") < 0) goto fail;
    bs = as_i64(TN_T(a[3]));
    if (!bs) goto fail;
    tn_embbag_bwd_plan p = {.dt = dt_code(gt->dtype), .mode = (int)mode, .n = n, .dim = D, .nw = nw, .nbags = nbags,
                            .grad = tn_data(tn_tensor_of(gc)), .pad = a[9].u.i, .scale_freq = a[6].u.i != 0, .gw = tn_data(rt), .bag_size = bs};
    if (mode == 2) {
        const tn_tensor *mt = TN_T(a[4]);
        if (tn_numel(TN_T(a[3])) < nbags || mt->ndim != 2 || mt->sizes[0] != nbags || mt->sizes[1] != D) {
            PyErr_SetString(PyExc_RuntimeError, "embedding_bag backward: maximum_indices must be [bags, embedding_dim]");
            goto fail;
        }
        mi = as_i64(mt);
        if (!mi) goto fail;
        for (int64_t b = 0; b < nbags; b++)
            for (int64_t d = 0; d < D; d++)
                if (bs[b] != 0 && (mi[b * D + d] < 0 || mi[b * D + d] >= nw)) {
                    PyErr_SetString(PyExc_IndexError, "index out of range in self");
                    goto fail;
                }
        p.maxidx = mi;
    } else {
        if (check_index_type(it, "indices") < 0) goto fail;
        idx = as_i64(it);
        o2b = idx ? as_i64(TN_T(a[2])) : NULL;
        pairs = o2b ? PyMem_Malloc((size_t)(2 * n + 1) * sizeof *pairs) : NULL;
        sorted = pairs ? PyMem_Malloc((size_t)(n + 1) * sizeof *sorted) : NULL;
        perm = sorted ? PyMem_Malloc((size_t)(n + 1) * sizeof *perm) : NULL;
        next = perm ? PyMem_Malloc((size_t)(n + 1) * sizeof *next) : NULL;
        counts = next ? PyMem_Calloc((size_t)(nw + 1), sizeof *counts) : NULL;
        if (o2b && !counts) PyErr_NoMemory();
        if (!counts) goto fail;
        if (tn_numel(TN_T(a[2])) < n) {
            PyErr_SetString(PyExc_RuntimeError, "embedding_bag backward: offset2bag is shorter than indices");
            goto fail;
        }
        for (int64_t i = 0; i < n; i++) {
            if (idx[i] < 0 || idx[i] >= nw || o2b[i] < 0 || o2b[i] >= nbags || (mode == 1 && o2b[i] >= tn_numel(TN_T(a[3])))) {
                PyErr_SetString(PyExc_IndexError, "index out of range in self");
                goto fail;
            }
            pairs[2 * i] = idx[i];
            pairs[2 * i + 1] = i;
            counts[idx[i]]++;
        }
        qsort(pairs, (size_t)n, 2 * sizeof *pairs, cmp_pair);
        for (int64_t i = 0; i < n; i++) {
            sorted[i] = pairs[2 * i];
            perm[i] = pairs[2 * i + 1];
        }
        int64_t ng = 0;
        for (int64_t i = 0; i < n; i += counts[sorted[i]]) next[ng] = (ng ? next[ng - 1] : 0) + counts[sorted[i]], ng++;
        p.sorted = sorted;
        p.perm = perm;
        p.bag_of = o2b;
        p.counts = counts;
        p.next = next;
        p.ngroups = ng;
        if (a[8].tag == TN_V_TENSOR) {
            const tn_tensor *pt = TN_T(a[8]);
            psc = tn_as_dtype(a[8].u.obj, gt->dtype, true);
            if (!psc) goto fail;
            if (tn_numel(pt) < n) {
                PyErr_SetString(PyExc_RuntimeError, "embedding_bag backward: per_sample_weights is shorter than indices");
                goto fail;
            }
            p.psw = tn_data(tn_tensor_of(psc));
            p.pss = 1;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    tn_embbag_dense_backward(&p);
    Py_END_ALLOW_THREADS
    goto done;
fail:
    Py_CLEAR(res);
done:
    Py_XDECREF(gc);
    Py_XDECREF(psc);
    PyMem_Free(idx);
    PyMem_Free(o2b);
    PyMem_Free(bs);
    PyMem_Free(mi);
    PyMem_Free(pairs);
    PyMem_Free(sorted);
    PyMem_Free(perm);
    PyMem_Free(counts);
    PyMem_Free(next);
    return res;
}

/* _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode,
 * padding_idx) */
PyObject *tn_op__embedding_bag_per_sample_weights_backward(tn_value *a) {
    const tn_tensor *gt = TN_T(a[0]), *w = TN_T(a[1]), *it = TN_T(a[2]), *ot = TN_T(a[3]);
    /* upstream dispatches on grad's dtype before its mode check (measured) */
    if (!tn_nn_float(gt->dtype)) return tn_kernel_missing("_embedding_bag_per_sample_weights_backward_cpu", gt->dtype);
    if (a[5].u.i != 0) {
        PyErr_SetString(PyExc_RuntimeError, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
        return NULL;
    }
    tn_dtype xt = tn_promote_types(ot->dtype, it->dtype);
    tn_tensor fi = *it;
    fi.dtype = xt;
    if (check_index_type(&fi, "indices") < 0) return NULL;
    if (gt->ndim != 2 || w->ndim != 2 || w->sizes[1] != gt->sizes[1] || it->ndim != 1 || w->dtype != gt->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "embedding_bag_backward: grad and weight must be 2-D with the same embedding size and dtype, "
                        "indices 1-D");
        return NULL;
    }
    int64_t n = it->sizes[0];
    int64_t *idx = as_i64(it), *off = idx ? as_i64(ot) : NULL, *o2b = off ? bwd_offset2bag(TN_T(a[4]), off, ot->ndim ? ot->sizes[0] : 1, n) : NULL;
    PyObject *res = NULL;
    if (o2b) {
        res = tn_tensor_new_empty(1, &n, gt->dtype, TN_DEVICE_CPU);
        if (res) {
            const tn_tensor *rt = tn_tensor_of(res);
            if (n) memset(tn_data(rt), 0, (size_t)(n * tn_dtype_itemsize(gt->dtype)));
            for (int64_t i = 0; i < n; i++)
                if (idx[i] != a[6].u.i && (idx[i] < 0 || idx[i] >= w->sizes[0] || o2b[i] < 0 || o2b[i] >= gt->sizes[0])) {
                    PyErr_SetString(PyExc_IndexError, "index out of range in self");
                    Py_CLEAR(res);
                    break;
                }
            if (res) {
                Py_BEGIN_ALLOW_THREADS
                tn_embbag_psw_backward(dt_code(gt->dtype), n, gt->sizes[1], idx, o2b, tn_data(gt), gt->strides[0], gt->strides[1], tn_data(w),
                                       w->strides[0], w->strides[1], a[6].u.i, tn_data(rt));
                Py_END_ALLOW_THREADS
            }
        }
    }
    PyMem_Free(idx);
    PyMem_Free(off);
    PyMem_Free(o2b);
    return res;
}
