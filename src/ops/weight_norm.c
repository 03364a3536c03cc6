/* ops/weight_norm.c — weight normalisation, as upstream's WeightNorm.cpp (measured on torch
 * 2.13.0): the composites norm_except_dim, _weight_norm (the fused kernel for dim 0 / the last
 * dim, else v * (g / norm_except_dim(v, 2, dim))) and _weight_norm_differentiable_backward, each
 * piece through the door; and the CPU kernels _weight_norm_interface (w, norm; norm in float for
 * bf16/f16 g) and _weight_norm_interface_backward with upstream's checks and messages.
 * Differences kept on purpose where upstream reads memory it does not own: a g with another
 * element count than the kept dim raises instead of reading past it, and non-contiguous v / g of
 * the interface are read in logical order (upstream reads their storage as if contiguous). */
#include "autograd/autograd.h"
#include "core/dtype.h"
#include "kernels/weight_norm.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

static int dt_code(tn_dtype d) { return d == TN_DTYPE_F32 ? 0 : d == TN_DTYPE_F64 ? 1 : d == TN_DTYPE_BF16 ? 2 : 3; }
static tn_dtype acc_of(tn_dtype d) { return d == TN_DTYPE_BF16 || d == TN_DTYPE_F16 ? TN_DTYPE_F32 : d; }

static PyObject *scalar_type_error(tn_dtype expected, tn_dtype found) {
    PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(expected),
                 tn_dtype_cpp_name(found));
    return NULL;
}

static PyObject *fused_dim_error(void) {
    PyErr_SetString(PyExc_RuntimeError, "dim == 0 || dim == v.dim() - 1 INTERNAL ASSERT FAILED: "
                    "fused kernels can only be applied for first or last dim");
    return NULL;
}

/* M rows of N for the fused kernels: dim 0 keeps size(0), the last dim keeps size(-1).
 * IndexError as upstream's size() on a 0-dim tensor. */
static int no_dims(int64_t dim) {
    PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
    return -1;
}
static int fused_shape(const tn_tensor *v, bool first, int64_t *M, int64_t *N) {
    int64_t d;
    if (v->ndim == 0) return no_dims(first ? 0 : -1);
    if (tn_wrap_dim(first ? 0 : -1, v->ndim, &d) < 0) return -1;
    int64_t n = tn_numel(v), k = v->sizes[d];
    if (first) { *M = k; *N = k ? n / k : 0; }
    else { *N = k; *M = k ? n / k : 0; }
    return 0;
}

static PyObject *empty_like_contig(const tn_tensor *t, tn_dtype dt) {
    return tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU);
}

static int zero_fill(PyObject *t) {
    tn_value z = {.tag = TN_V_INT, .u.i = 0};
    return tn_fill_number(t, &z);
}

/* _weight_norm_interface(v, g, dim) -> (w, norm) */
/* The checks both fused kernels open with, in upstream's order: dim is the first or the last, v's
 * dtype has the kernel, then v's shape as M x N (fused_shape). 0, or -1 with the error set. */
static int fused_prep(const tn_tensor *v, int64_t dim, const char *kernel, bool *first, int64_t *M, int64_t *N) {
    *first = dim == 0;
    if (!(dim == 0 || dim == v->ndim - 1)) {
        fused_dim_error();
        return -1;
    }
    if (!tn_nn_float(v->dtype)) {
        tn_kernel_missing(kernel, v->dtype);
        return -1;
    }
    return fused_shape(v, *first, M, N);
}

PyObject *tn_op__weight_norm_interface(tn_value *a) {
    const tn_tensor *v = tn_tensor_of(a[0].u.obj), *g = tn_tensor_of(a[1].u.obj);
    int64_t dim = a[2].u.i;
    PyObject *w = empty_like_contig(v, v->dtype);
    PyObject *norm = w ? empty_like_contig(g, acc_of(g->dtype)) : NULL;
    if (!norm) { Py_XDECREF(w); return NULL; }
    PyObject *res = NULL, *vc = NULL, *gc = NULL;
    void *scratch = NULL;
    /* the kernel dispatches on v's dtype for an empty v too (measured: an empty int64 v refused) */
    if (tn_numel(v) == 0 && (dim == 0 || dim == v->ndim - 1) && !tn_nn_float(v->dtype)) {
        tn_kernel_missing("weight_norm_kernel", v->dtype);
        goto done;
    }
    if (tn_numel(v) == 0) {
        if (zero_fill(norm) < 0) goto done;
        res = PyTuple_Pack(2, w, norm);
        goto done;
    }
    bool first;
    int64_t M, N;
    if (fused_prep(v, dim, "weight_norm_kernel", &first, &M, &N) < 0) goto done;
    if (g->dtype != v->dtype) { scalar_type_error(v->dtype, g->dtype); goto done; }
    if (tn_numel(g) != (first ? M : N)) {
        PyErr_Format(PyExc_RuntimeError, "weight_norm: expected g to have %lld elements (the size of v's dim %lld), but got %lld",
                     (long long)(first ? M : N), (long long)dim, (long long)tn_numel(g));
        goto done;
    }
    vc = tn_as_dtype(a[0].u.obj, v->dtype, true);
    gc = vc ? tn_as_dtype(a[1].u.obj, g->dtype, true) : NULL;
    if (!gc) goto done;
    if (!first && !(scratch = calloc((size_t)N, tn_dtype_itemsize(acc_of(v->dtype))))) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    tn_weight_norm_fwd(dt_code(v->dtype), first, M, N, tn_data(tn_tensor_of(vc)), tn_data(tn_tensor_of(gc)),
                       tn_data(tn_tensor_of(w)), tn_data(tn_tensor_of(norm)), scratch);
    Py_END_ALLOW_THREADS
    res = PyTuple_Pack(2, w, norm);
done:
    free(scratch);
    Py_XDECREF(vc); Py_XDECREF(gc); Py_DECREF(w); Py_DECREF(norm);
    return res;
}

/* _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim) -> (grad_v, grad_g) */
PyObject *tn_op__weight_norm_interface_backward(tn_value *a) {
    const tn_tensor *gw = tn_tensor_of(a[0].u.obj), *v = tn_tensor_of(a[1].u.obj), *g = tn_tensor_of(a[2].u.obj),
                    *nm = tn_tensor_of(a[3].u.obj);
    int64_t dim = a[4].u.i;
    static const char *names[3] = {"saved_v", "saved_g", "saved_norm"};
    const tn_tensor *chk[3] = {v, g, nm};
    for (int i = 0; i < 3; i++)
        if (!tn_is_contiguous(chk[i])) return PyErr_Format(PyExc_RuntimeError, "%s must be contiguous", names[i]);
    PyObject *gv = empty_like_contig(v, v->dtype);
    PyObject *gg = gv ? empty_like_contig(g, g->dtype) : NULL;
    if (!gg) { Py_XDECREF(gv); return NULL; }
    PyObject *res = NULL, *gwc = NULL;
    void *scratch = NULL;
    if (tn_numel(v) == 0 && (dim == 0 || dim == v->ndim - 1) && !tn_nn_float(v->dtype)) {
        tn_kernel_missing("weight_norm_backward_kernel", v->dtype);
        goto done;
    }
    if (tn_numel(v) == 0) {
        if (zero_fill(gg) < 0) goto done;
        res = PyTuple_Pack(2, gv, gg);
        goto done;
    }
    bool first;
    int64_t M, N;
    if (fused_prep(v, dim, "weight_norm_backward_kernel", &first, &M, &N) < 0) goto done;
    if (gw->dtype != v->dtype) { scalar_type_error(v->dtype, gw->dtype); goto done; }
    if (g->dtype != v->dtype) { scalar_type_error(v->dtype, g->dtype); goto done; }
    if (nm->dtype != acc_of(v->dtype)) { scalar_type_error(acc_of(v->dtype), nm->dtype); goto done; }
    int64_t keep = first ? M : N;
    if (tn_numel(gw) != tn_numel(v) || tn_numel(g) != keep || tn_numel(nm) != keep) {
        PyErr_SetString(PyExc_RuntimeError, "weight_norm backward: grad_w must have saved_v's element count and saved_g / "
                        "saved_norms one element per kept slice");
        goto done;
    }
    gwc = tn_as_dtype(a[0].u.obj, gw->dtype, true);
    if (!gwc) goto done;
    if (!first && !(scratch = calloc((size_t)N * 3, tn_dtype_itemsize(acc_of(v->dtype))))) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    tn_weight_norm_bwd(dt_code(v->dtype), first, M, N, tn_data(tn_tensor_of(gwc)), tn_data(v), tn_data(g), tn_data(nm),
                       tn_data(tn_tensor_of(gv)), tn_data(tn_tensor_of(gg)), scratch);
    Py_END_ALLOW_THREADS
    res = PyTuple_Pack(2, gv, gg);
done:
    free(scratch);
    Py_XDECREF(gwc); Py_DECREF(gv); Py_DECREF(gg);
    return res;
}

/* norm_except_dim(v, pow, dim): v.norm(pow) for dim -1; for dim 0 / the last dim the norm of
 * v.contiguous() viewed as 2-D over the other dims, viewed back with ones elsewhere; any other
 * dim through transpose(0, dim) */
PyObject *tn_op_norm_except_dim(tn_value *a) {
    PyObject *v = a[0].u.obj;
    int64_t p = a[1].u.i, dim = a[2].u.i;
    const tn_tensor *t = tn_tensor_of(v);
    int nd = t->ndim;
    if (dim == -1) return tn_at_norm_Scalar(v, TN_SI(p));
    if (dim == 0 || dim == nd - 1) {
        int64_t d;
        if (nd == 0) { no_dims(dim); return NULL; }
        if (tn_wrap_dim(dim, nd, &d) < 0) return NULL;
        int64_t out[TN_MAX_DIMS];
        for (int i = 0; i < nd; i++) out[i] = 1;
        out[d] = t->sizes[d];
        PyObject *c = tn_at_contiguous(v, NULL);
        PyObject *f = c ? (dim == 0 ? tn_at_view(c, TN_IS(t->sizes[0], -1)) : tn_at_view(c, TN_IS(-1, t->sizes[d]))) : NULL;
        PyObject *n = f ? tn_at_norm_ScalarOpt_dim(f, TN_SI(p), TN_IS(dim == 0 ? 1 : 0), false) : NULL;
        PyObject *r = n ? tn_at_view(n, TN_IN(out, nd)) : NULL;
        Py_XDECREF(c); Py_XDECREF(f); Py_XDECREF(n);
        return r;
    }
    PyObject *tr = tn_at_transpose_int(v, 0, dim);
    PyObject *n = tr ? tn_at_norm_except_dim(tr, p, 0) : NULL;
    PyObject *r = n ? tn_at_transpose_int(n, 0, dim) : NULL;
    Py_XDECREF(tr); Py_XDECREF(n);
    return r;
}

/* _weight_norm(v, g, dim): v, g made contiguous; the fused kernel's w for dim 0 or the last dim,
 * else v * (g / norm_except_dim(v, 2, dim)) (so dim -1 is the norm over the whole tensor) */
PyObject *tn_op__weight_norm(tn_value *a) {
    int64_t dim = a[2].u.i;
    PyObject *v = tn_at_contiguous(a[0].u.obj, NULL);
    PyObject *g = v ? tn_at_contiguous(a[1].u.obj, NULL) : NULL;
    PyObject *r = NULL;
    if (g && (dim == 0 || dim == tn_tensor_of(v)->ndim - 1)) {
        PyObject *t = tn_at__weight_norm_interface(v, g, dim);
        r = t ? Py_NewRef(PyTuple_GetItem(t, 0)) : NULL;
        Py_XDECREF(t);
    } else if (g) {
        PyObject *n = tn_at_norm_except_dim(v, 2, dim);
        PyObject *q = n ? tn_at_div_Tensor(g, n) : NULL;
        r = q ? tn_at_mul_Tensor(v, q) : NULL;
        Py_XDECREF(n); Py_XDECREF(q);
    }
    Py_XDECREF(v); Py_XDECREF(g);
    return r;
}

/* _weight_norm_differentiable_backward(grad_w, saved_v, saved_g, saved_norms, dim): the backward
 * of the fused kernel in differentiable ops (double backward):
 *   s = (grad_w * v).view(rows, cols).sum(kept dim's other axis).view(bcast)
 *   grad_v = (g / norms) * (grad_w - v * (s / (norms * norms))), grad_g = s / norms */
PyObject *tn_op__weight_norm_differentiable_backward(tn_value *a) {
    static const char *names[4] = {"grad_w", "saved_v", "saved_g", "saved_norms"};
    for (int i = 0; i < 4; i++)
        if (!tn_is_contiguous(tn_tensor_of(a[i].u.obj)))
            return PyErr_Format(PyExc_RuntimeError, "%s must be contiguous", names[i]);
    PyObject *gw = a[0].u.obj, *v = a[1].u.obj, *g = a[2].u.obj;
    const tn_tensor *vt = tn_tensor_of(v);
    int64_t dim = a[4].u.i;
    int nd = vt->ndim, last = nd - 1;
    if (nd == 0) { no_dims(-1); return NULL; }   /* saved_v.size(-1) on a 0-dim tensor */
    int64_t last_size = vt->sizes[last];
    if (!(dim == 0 || dim == last)) {
        PyErr_SetString(PyExc_RuntimeError, "Expected dim to be the first or last dimension");
        return NULL;
    }
    int64_t bc[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) bc[i] = 1;
    PyObject *norms = tn_at_to_dtype(a[3].u.obj, tn_py.dtypes[tn_tensor_of(g)->dtype], false, false, NULL);
    PyObject *prod = norms ? tn_at_mul_Tensor(gw, v) : NULL, *flat = NULL;
    if (prod && dim == 0) {
        bc[0] = vt->sizes[0];
        flat = tn_at_view(prod, TN_IS(vt->sizes[0], -1));
    } else if (prod) {
        bc[last] = last_size;
        flat = tn_at_view(prod, TN_IS(-1, last_size));
    }
    PyObject *s = flat ? tn_at_sum_dim_IntList(flat, TN_IS(dim == 0 ? 1 : 0), false, NULL) : NULL;
    PyObject *sums = s ? tn_at_view(s, TN_IN(bc, nd)) : NULL;
    PyObject *a1 = sums ? tn_at_div_Tensor(g, norms) : NULL;
    PyObject *nn2 = a1 ? tn_at_mul_Tensor(norms, norms) : NULL;
    PyObject *q = nn2 ? tn_at_div_Tensor(sums, nn2) : NULL;
    PyObject *vq = q ? tn_at_mul_Tensor(v, q) : NULL;
    PyObject *d = vq ? tn_at_sub_Tensor(gw, vq, TN_SDEF) : NULL;
    PyObject *grad_v = d ? tn_at_mul_Tensor(a1, d) : NULL;
    PyObject *grad_g = grad_v ? tn_at_div_Tensor(sums, norms) : NULL;
    PyObject *res = grad_g ? PyTuple_Pack(2, grad_v, grad_g) : NULL;
    Py_XDECREF(norms); Py_XDECREF(prod); Py_XDECREF(flat); Py_XDECREF(s); Py_XDECREF(sums); Py_XDECREF(a1);
    Py_XDECREF(nn2); Py_XDECREF(q); Py_XDECREF(vq); Py_XDECREF(d); Py_XDECREF(grad_v); Py_XDECREF(grad_g);
    return res;
}
