/* bw_helpers.c — the FunctionsManual helpers of bw_helpers.h too long to be inline: prod and norm
 * backward (docs/bw_formulas.md). Each follows upstream's torch/csrc/autograd/FunctionsManual.cpp
 * step for step, calling ops through the typed op API in the order upstream's build evaluates them
 * (operands of a Tensor operator right to left, a method's receiver before its arguments). Tensor
 * arguments are borrowed; results are new references, NULL with an exception. */
#include "autograd/bw_helpers.h"

#include <math.h>
#include <string.h>

/* prod_safe_zeros_backward(grad, inp, dim): grad * (exclusive cumprod from the left * exclusive
 * cumprod from the right).conj() along dim; grad expanded for an empty inp, grad itself when dim has
 * size 1 */
static PyObject *prod_safe_zeros_backward(PyObject *grad, PyObject *inp, int64_t dim) {
    const tn_tensor *t = tn_tensor_of(inp);
    if (tn_numel(t) == 0) return tn_at_expand_as(grad, inp);
    int64_t len = t->sizes[dim] - 1, sz[TN_MAX_DIMS];
    if (len == 0) return Py_NewRef(grad);
    for (int d = 0; d < t->ndim; d++) sz[d] = t->sizes[d];
    sz[dim] = 1;
    PyObject *ones = tn_at_ones(TN_IN(sz, t->ndim), TN_DT(tn_tensor_of(grad)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
    PyObject *lead = ones ? tn_at_narrow(inp, dim, 0, len) : NULL;
    PyObject *c1 = lead ? tn_at_cat(TN_TS(ones, lead), dim) : NULL, *en = c1 ? tn_at_cumprod(c1, dim, NULL) : NULL;
    PyObject *tail = en ? tn_at_narrow(inp, dim, 1, len) : NULL, *rev = tail ? tn_at_flip(tail, TN_IS(dim)) : NULL;
    PyObject *c2 = rev ? tn_at_cat(TN_TS(ones, rev), dim) : NULL, *cp = c2 ? tn_at_cumprod(c2, dim, NULL) : NULL;
    PyObject *er = cp ? tn_at_flip(cp, TN_IS(dim)) : NULL, *m = er ? tn_at_mul_Tensor(en, er) : NULL;
    PyObject *c = m ? tn_bw_conj(m) : NULL, *r = c ? tn_at_mul_Tensor(grad, c) : NULL;
    Py_XDECREF(ones); Py_XDECREF(lead); Py_XDECREF(c1); Py_XDECREF(en); Py_XDECREF(tail); Py_XDECREF(rev);
    Py_XDECREF(c2); Py_XDECREF(cp); Py_XDECREF(er); Py_XDECREF(m); Py_XDECREF(c);
    return r;
}

PyObject *tn_bw_prod_safe_zeros_backward(PyObject *grad, PyObject *inp, int64_t dim) {
    return prod_safe_zeros_backward(grad, inp, dim);
}

/* prod_safe_zeros_backward over input.contiguous().view(-1), viewed back as input */
static PyObject *prod_safe_flat(PyObject *grad, PyObject *input) {
    PyObject *c = tn_at_contiguous(input, NULL), *v = c ? tn_at_view(c, TN_IS(-1)) : NULL;
    PyObject *b = v ? prod_safe_zeros_backward(grad, v, 0) : NULL, *r = b ? tn_at_view_as(b, input) : NULL;
    Py_XDECREF(c); Py_XDECREF(v); Py_XDECREF(b);
    return r;
}

/* grad * (result / input).conj() */
static PyObject *prod_no_zeros(PyObject *grad, PyObject *input, PyObject *result) {
    PyObject *q = tn_at_div_Tensor(result, input), *c = q ? tn_bw_conj(q) : NULL, *r = c ? tn_at_mul_Tensor(grad, c) : NULL;
    Py_XDECREF(q); Py_XDECREF(c);
    return r;
}

/* prod_backward(grad, input, result) (prod over all elements): grad for a 0-dim input; the safe
 * path while a dispatch mode is active (upstream's isTensorSubclassLike branch); without zeros
 * grad * (result / input).conj(); with more than one zero and grad mode off zeros; else the safe
 * path over the flattened input */
PyObject *tn_bw_prod_backward(PyObject *grad, PyObject *input, PyObject *result) {
    if (tn_tensor_of(input)->ndim == 0) return Py_NewRef(grad);
    if (tn_bw_subclass_like()) return prod_safe_flat(grad, input);
    PyObject *eq = tn_at_eq_Scalar(input, TN_SI(0)), *zi = eq ? tn_at_nonzero(eq) : NULL, *r = NULL;
    Py_XDECREF(eq);
    if (!zi) return NULL;
    const tn_tensor *zt = tn_tensor_of(zi);
    if (tn_numel(zt) == 0) r = prod_no_zeros(grad, input, result);
    else if (!tn_grad_enabled() && zt->sizes[0] > 1)
        r = tn_at_zeros_like(input, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous);
    else r = prod_safe_flat(grad, input);
    Py_DECREF(zi);
    return r;
}

/* prod_backward(grad, input, result, dim, keepdim): grad and result unsqueezed at dim without
 * keepdim; the safe path while a dispatch mode is active or when a slice holds a zero (counted
 * with sum(dim, true).sum().item()), else grad * (result / input).conj() */
PyObject *tn_bw_prod_backward_dim(PyObject *grad, PyObject *input, PyObject *result, int64_t dim, bool keepdim) {
    const tn_tensor *t = tn_tensor_of(input);
    if (t->ndim == 0) return Py_NewRef(grad);
    int64_t d;
    if (tn_wrap_dim(dim, t->ndim, &d) < 0) return NULL;
    PyObject *g = keepdim ? Py_NewRef(grad) : tn_at_unsqueeze(grad, d);
    PyObject *res = !g ? NULL : keepdim ? Py_NewRef(result) : tn_at_unsqueeze(result, d), *r = NULL;
    if (!res) goto out;
    if (tn_bw_subclass_like()) {
        r = prod_safe_zeros_backward(g, input, d);
        goto out;
    }
    PyObject *zm = tn_at_eq_Scalar(input, TN_SI(0)), *cnt = zm ? tn_at_sum_dim_IntList(zm, TN_IS(d), true, NULL) : NULL;
    PyObject *tot = cnt ? tn_at_sum(cnt, NULL) : NULL, *item = tot ? tn_at_item(tot) : NULL;
    long long zeros = item ? PyLong_AsLongLong(item) : -1;
    Py_XDECREF(zm); Py_XDECREF(cnt); Py_XDECREF(tot); Py_XDECREF(item);
    if (zeros < 0 && PyErr_Occurred()) goto out;
    r = zeros == 0 ? prod_no_zeros(g, input, res) : prod_safe_zeros_backward(g, input, d);
out:
    Py_XDECREF(g); Py_XDECREF(res);
    return r;
}

/* norm_backward(grad, self, p?, norm, dims, keepdim) (p None: 2): grad and norm unsqueezed at the
 * reduced dims without keepdim (for a non-0-dim self; dims None as none); then by p: 0 gives no
 * gradient (None), 1 self.sgn() * grad, 2 grad * (self / norm) with 0 where norm is 0, inf the
 * gradient shared among the elements whose abs is the norm (or NaN), below 1 / below 2 / above
 * upstream's three scaled forms */
PyObject *tn_bw_norm_backward(PyObject *grad0, PyObject *self, const tn_value *pv, PyObject *norm0, tn_ints dims, bool keepdim) {
    const int64_t *dv;
    int k = tn_bw_ints(dims, &dv);
    tn_ints dl = k < 0 ? TN_IS0 : dims;
    int64_t nd = tn_tensor_of(self)->ndim;
    double p = pv ? tn_value_as_double(pv) : 2.0;
    bool u = !keepdim && nd != 0;
    PyObject *grad = u ? tn_bw_unsqueeze_multiple(grad0, dl, nd) : Py_NewRef(grad0);
    PyObject *norm = !grad ? NULL : u ? tn_bw_unsqueeze_multiple(norm0, dl, nd) : Py_NewRef(norm0);
    PyObject *a = NULL, *b = NULL, *c = NULL, *e = NULL, *r = NULL;
    if (!norm) goto out;
    if (p == 0.0) r = Py_NewRef(Py_None);   /* an undefined gradient */
    else if (p == 1.0) {
        if ((a = tn_at_sgn(self))) r = tn_at_mul_Tensor(a, grad);
    } else if (p == 2.0) {   /* grad * (self / norm).masked_fill_(norm == 0, 0) */
        if ((a = tn_at_div_Tensor(self, norm)) && (b = tn_at_eq_Scalar(norm, TN_SI(0))) && (c = tn_at_masked_fill__Scalar(a, b, TN_SI(0))))
            r = tn_at_mul_Tensor(grad, a);
    } else if (isinf(p)) {   /* self.sgn() * ((grad / mask.sum(dim, true)) * mask) */
        PyObject *ab = tn_at_abs(self), *eq = ab ? tn_at_eq_Tensor(ab, norm) : NULL, *nan = eq ? tn_at_isnan(ab) : NULL;
        PyObject *mask = nan ? tn_at_logical_or(eq, nan) : NULL;
        Py_XDECREF(ab); Py_XDECREF(eq); Py_XDECREF(nan);
        if (mask && (a = tn_at_sum_dim_IntList(mask, dl, true, NULL)) && (b = tn_at_div_Tensor(grad, a))
            && (c = tn_at_mul_Tensor(b, mask)) && (e = tn_at_sgn(self)))
            r = tn_at_mul_Tensor(e, c);
        Py_XDECREF(mask);
    } else if (p < 1.0) {   /* self.sgn() * self.abs().pow_(p - 1).masked_fill_(self == 0, 0) * grad * norm.pow(1 - p) */
        PyObject *ab = tn_at_abs(self), *pw = ab ? tn_at_pow__Scalar(ab, TN_SD(p - 1)) : NULL;
        PyObject *z = pw ? tn_at_eq_Scalar(self, TN_SI(0)) : NULL, *f = z ? tn_at_masked_fill__Scalar(ab, z, TN_SI(0)) : NULL;
        if (f && (a = tn_at_sgn(self)) && (b = tn_at_mul_Tensor(a, ab)) && (c = tn_at_pow_Tensor_Scalar(norm, TN_SD(1 - p)))
            && (e = tn_at_mul_Tensor(b, grad)))
            r = tn_at_mul_Tensor(e, c);
        Py_XDECREF(ab); Py_XDECREF(pw); Py_XDECREF(z); Py_XDECREF(f);
    } else {   /* self_scaled * scale_v, scale_v = (grad / norm.pow(p - 1)).masked_fill_(norm == 0, 0) */
        PyObject *ab = tn_at_abs(self), *pw = ab ? tn_at_pow__Scalar(ab, TN_SD(p < 2.0 ? p - 1 : p - 2)) : NULL, *sc = NULL;
        if (pw) {
            if (p < 2.0) { if ((a = tn_at_sgn(self))) sc = tn_at_mul_Tensor(a, ab); }   /* self.sgn() * self.abs().pow_(p - 1) */
            else sc = tn_at_mul_Tensor(self, ab);                                      /* self * self.abs().pow_(p - 2) */
        }
        PyObject *np = sc ? tn_at_pow_Tensor_Scalar(norm, TN_SD(p - 1)) : NULL, *sv = np ? tn_at_div_Tensor(grad, np) : NULL;
        if (sv && (b = tn_at_eq_Scalar(norm, TN_SI(0))) && (c = tn_at_masked_fill__Scalar(sv, b, TN_SI(0))))
            r = tn_at_mul_Tensor(sc, sv);
        Py_XDECREF(ab); Py_XDECREF(pw); Py_XDECREF(sc); Py_XDECREF(np); Py_XDECREF(sv);
    }
out:
    Py_XDECREF(grad); Py_XDECREF(norm); Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c); Py_XDECREF(e);
    return r;
}

/* ---- Tensor[] inputs: one gradient per tensor of the list, as a Python list ---- */

/* grad and, for a complex grad, at::real(grad) (taken once, before the pieces, as upstream's) */
static int grad_and_real(PyObject *grad, PyObject **re) {
    *re = NULL;
    if (!tn_dtype_is_complex(tn_tensor_of(grad)->dtype)) return 0;
    return (*re = tn_at_real(grad)) ? 0 : -1;
}
/* the gradient a piece of dtype dt takes: the real part for a real piece of a complex grad */
static PyObject *grad_for(PyObject *grad, PyObject *re, tn_dtype dt) { return re && !tn_dtype_is_complex(dt) ? re : grad; }
static bool legacy_empty(const tn_meta *m) { return m->ndim == 1 && tn_meta_sizes(m)[0] == 0; }
static PyObject *zeros0(PyObject *like) {   /* at::zeros({0}, like.options()) */
    return tn_at_zeros(TN_IS(0), TN_DT(tn_tensor_of(like)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
}

/* cat_tensors_backward(grad, sizes, dtypes, dim): grad narrowed along dim to each input's extent
 * (dim wrapped against the first input that is not a legacy empty 1-D tensor); a legacy empty
 * input gets zeros({0}) */
PyObject *tn_bw_cat_tensors_backward(PyObject *grad, const tn_meta *m, int k, const tn_meta *m2, int k2, int64_t dim) {
    (void)m2; (void)k2;   /* the dtypes: the same inputs' metadata */
    int64_t d = dim, at = 0;
    for (int i = 0; i < k; i++)
        if (!legacy_empty(&m[i])) {
            if (tn_wrap_dim(dim, m[i].ndim, &d) < 0) return NULL;
            break;
        }
    PyObject *re, *l = NULL;
    if (grad_and_real(grad, &re) < 0 || !(l = PyList_New(k))) goto fail;
    for (int i = 0; i < k; i++) {
        PyObject *gv = grad_for(grad, re, m[i].dtype), *p;
        if (legacy_empty(&m[i])) p = zeros0(gv);
        else {
            int64_t len = tn_meta_sizes(&m[i])[d];
            p = tn_at_narrow(gv, d, at, len);
            at += len;
        }
        if (!p) goto fail;
        PyList_SetItem(l, i, p);
    }
    Py_XDECREF(re);
    return l;
fail:
    Py_XDECREF(re); Py_XDECREF(l);
    return NULL;
}

/* stack_tensors_backward(grad, dim, dtypes): grad.select(dim, i) for every input (real for a real
 * input of a complex grad) */
PyObject *tn_bw_stack_tensors_backward(PyObject *grad, int64_t dim, const tn_meta *m, int k) {
    bool gc = tn_dtype_is_complex(tn_tensor_of(grad)->dtype);
    PyObject *l = PyList_New(k);
    for (int i = 0; l && i < k; i++) {
        PyObject *p = tn_at_select_int(grad, dim, i);
        if (p && gc && !tn_dtype_is_complex(m[i].dtype)) Py_SETREF(p, tn_at_real(p));
        if (!p) { Py_CLEAR(l); break; }
        PyList_SetItem(l, i, p);
    }
    return l;
}

/* block_diag_backward(grad, sizes, dtypes): each input's block, sliced from grad at the running
 * row / column (a 1-D input is one row, a 0-d one 1 x 1, squeezed back); a legacy empty input
 * gets zeros({0}) and moves neither (upstream's, measured) */
PyObject *tn_bw_block_diag_backward(PyObject *grad, const tn_meta *m, int k, const tn_meta *m2, int k2) {
    (void)m2; (void)k2;   /* the dtypes: the same inputs' metadata */
    int64_t c0 = 0, c1 = 0;
    PyObject *re, *l = NULL;
    if (grad_and_real(grad, &re) < 0 || !(l = PyList_New(k))) goto fail;
    for (int i = 0; i < k; i++) {
        PyObject *gv = grad_for(grad, re, m[i].dtype), *p;
        const int64_t *sz = tn_meta_sizes(&m[i]);
        if (legacy_empty(&m[i])) p = zeros0(gv);
        else {
            int nd = m[i].ndim;
            int64_t d0 = nd == 2 ? sz[0] : 1, d1 = nd == 2 ? sz[1] : nd == 1 ? sz[0] : 1, e0 = c0 + d0, e1 = c1 + d1;
            PyObject *s0 = tn_at_slice_Tensor(gv, 0, &c0, &e0, 1);
            p = s0 ? tn_at_slice_Tensor(s0, 1, &c1, &e1, 1) : NULL;
            Py_XDECREF(s0);
            for (int q = nd; p && q < 2; q++) Py_SETREF(p, tn_at_squeeze_dim(p, -1));
            c0 = e0;
            c1 = e1;
        }
        if (!p) goto fail;
        PyList_SetItem(l, i, p);
    }
    Py_XDECREF(re);
    return l;
fail:
    Py_XDECREF(re); Py_XDECREF(l);
    return NULL;
}

/* ---- as_strided (TensorGeometry: an input's recorded sizes, strides and storage offset) ---- */

/* the NOTE [ Detecting Memory Overlap Within A Strided Tensor ] check on dims of size > 1: sorted
 * by stride, each stride must exceed the furthest offset of the dims before it */
static bool maybe_overlapping_memory(const int64_t *sz, const int64_t *st, int k) {
    int ord[TN_MAX_DIMS];
    for (int i = 0; i < k; i++) ord[i] = i;
    for (int i = 1; i < k; i++)   /* stable insertion sort by increasing stride */
        for (int j = i; j > 0 && st[ord[j]] < st[ord[j - 1]]; j--) { int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t; }
    int64_t mx = 0;
    for (int i = 0; i < k; i++) {
        if (st[ord[i]] <= mx) return true;
        mx += st[ord[i]] * (sz[ord[i]] - 1);
    }
    return false;
}
/* the storage a tensor of these sizes, strides and offset needs */
static int64_t min_storage_size(const int64_t *sz, const int64_t *st, int k, int64_t off) {
    int64_t r = off + 1;
    for (int i = 0; i < k; i++) {
        if (sz[i] == 0) return off;
        r += (sz[i] - 1) * st[i];
    }
    return r;
}
static PyObject *zeros_of_meta(const tn_meta *m, PyObject *like) {   /* at::zeros(m's sizes, like.options()) */
    return tn_at_zeros(TN_IN(tn_meta_sizes(m), m->ndim), TN_DT(tn_tensor_of(like)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
}

/* as_strided_backward(grad, input_geometry, sizes, strides, storage_offset?): the output's dims of
 * size 1 squeezed and of stride 0 summed away (last dim first); a storage tensor of the size both
 * geometries need (offsets relative to the smaller); grad copied into it through the output's
 * geometry (index_add_ of arange indices when the output may overlap itself), divided by how often
 * the input's geometry sees each element when it may overlap; viewed by the input's geometry */
PyObject *tn_bw_as_strided_backward(PyObject *grad0, const tn_meta *im, tn_ints sizes, tn_ints strides, const int64_t *offset) {
    const int64_t *sz, *st;
    int ns = tn_bw_ints(sizes, &sz), nt = tn_bw_ints(strides, &st);
    int odim = tn_tensor_of(grad0)->ndim;
    if (ns < odim || nt < odim || im->ndim > TN_MAX_DIMS || odim > TN_MAX_DIMS) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: as_strided_backward: sizes and strides do not fit the gradient");
        return NULL;
    }
    int64_t in_off = im->offset, out_off = offset ? *offset : in_off;
    int64_t osz[TN_MAX_DIMS], ost[TN_MAX_DIMS], isz[TN_MAX_DIMS], ist[TN_MAX_DIMS];
    int ok = 0, ik = 0;
    PyObject *grad = Py_NewRef(grad0), *storage = NULL, *full = NULL, *r = NULL;
    for (int i = odim - 1; i >= 0; i--) {
        if (sz[i] == 0) { Py_DECREF(grad); return zeros_of_meta(im, grad0); }
        if (sz[i] == 1) Py_SETREF(grad, tn_at_squeeze_dim(grad, i));
        else if (st[i] == 0) Py_SETREF(grad, tn_at_sum_dim_IntList(grad, TN_IS(i), false, NULL));
        else {
            memmove(osz + 1, osz, (size_t)ok * sizeof *osz);
            memmove(ost + 1, ost, (size_t)ok * sizeof *ost);
            osz[0] = sz[i];
            ost[0] = st[i];
            ok++;
        }
        if (!grad) return NULL;
    }
    bool out_overlap = maybe_overlapping_memory(osz, ost, ok);
    const int64_t *imsz = tn_meta_sizes(im), *imst = tn_meta_strides(im);
    for (int i = im->ndim - 1; i >= 0; i--) {
        if (imsz[i] == 0) { Py_DECREF(grad); return zeros_of_meta(im, grad0); }
        if (imsz[i] != 1) {
            memmove(isz + 1, isz, (size_t)ik * sizeof *isz);
            memmove(ist + 1, ist, (size_t)ik * sizeof *ist);
            isz[0] = imsz[i];
            ist[0] = imst[i];
            ik++;
        }
    }
    bool in_overlap = maybe_overlapping_memory(isz, ist, ik);
    int64_t shared = in_off < out_off ? in_off : out_off, ie = in_off - shared, oe = out_off - shared;
    int64_t b1 = min_storage_size(isz, ist, ik, ie), b2 = min_storage_size(osz, ost, ok, oe), base = b1 > b2 ? b1 : b2;
    if (!(storage = tn_at_new_zeros(grad, TN_IS(base), NULL, NULL, NULL, NULL))) goto out;
    if ((in_overlap || out_overlap)
        && !(full = tn_at_arange_start(TN_SI(0), TN_SI(base), TN_DT(TN_DTYPE_I64), tn_py.layout_strided, tn_py.device_cpu, NULL)))
        goto out;
    if (out_overlap) {   /* storage.index_add_(0, out_indices.reshape(-1), grad.reshape(-1)) */
        PyObject *oi = tn_at_as_strided(full, TN_IN(osz, ok), TN_IN(ost, ok), &oe);
        PyObject *gf = oi ? tn_at_reshape(grad, TN_IS(-1)) : NULL, *of = gf ? tn_at_reshape(oi, TN_IS(-1)) : NULL;
        PyObject *a = of ? tn_at_index_add_(storage, 0, of, gf, TN_SDEF) : NULL;
        Py_XDECREF(oi); Py_XDECREF(gf); Py_XDECREF(of);
        if (!a) goto out;
        Py_DECREF(a);
    } else {
        PyObject *v = tn_at_as_strided(storage, TN_IN(osz, ok), TN_IN(ost, ok), &oe), *c = v ? tn_at_copy_(v, grad, false) : NULL;
        Py_XDECREF(v);
        if (!c) goto out;
        Py_DECREF(c);
    }
    if (in_overlap) {   /* storage.div_(count), count: how often the input's geometry reads each element */
        PyObject *cnt = tn_at_zeros_like(storage, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous);
        PyObject *iv = cnt ? tn_at_as_strided(full, TN_IN(isz, ik), TN_IN(ist, ik), &ie) : NULL;
        PyObject *ii = iv ? tn_at_reshape(iv, TN_IS(-1)) : NULL;
        PyObject *one = ii ? tn_at_ones(TN_IS(1), TN_DT(tn_tensor_of(grad)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL) : NULL;
        PyObject *ones = one ? tn_at_expand_as(one, ii) : NULL, *a = ones ? tn_at_index_add_(cnt, 0, ii, ones, TN_SDEF) : NULL;
        PyObject *d = a ? tn_at_div__Tensor(storage, cnt) : NULL;
        Py_XDECREF(cnt); Py_XDECREF(iv); Py_XDECREF(ii); Py_XDECREF(one); Py_XDECREF(ones); Py_XDECREF(a);
        if (!d) goto out;
        Py_DECREF(d);
    }
    r = tn_at_as_strided(storage, TN_IN(imsz, im->ndim), TN_IN(imst, im->ndim), &ie);
out:
    Py_XDECREF(grad); Py_XDECREF(storage); Py_XDECREF(full);
    return r;
}

/* as_strided_scatter_backward(grad, input_geometry, src_geometry, sizes, strides, storage_offset?):
 * grad made contiguous, the scattered window zeroed: a new_zeros buffer of the input's sizes,
 * viewed by the input's geometry, with grad's window copied into the same window of it */
PyObject *tn_bw_as_strided_scatter_backward(PyObject *grad, const tn_meta *im, const tn_meta *sm, tn_ints sizes, tn_ints strides,
                                            const int64_t *offset) {
    (void)sm;
    PyObject *g = tn_at_contiguous(grad, NULL), *gs = g ? tn_at_as_strided(g, sizes, strides, offset) : NULL;
    PyObject *buf = gs ? tn_at_new_zeros(g, TN_IN(tn_meta_sizes(im), im->ndim), NULL, NULL, NULL, NULL) : NULL;
    PyObject *res = buf ? tn_at_as_strided(buf, TN_IN(tn_meta_sizes(im), im->ndim), TN_IN(tn_meta_strides(im), im->ndim), NULL) : NULL;
    PyObject *rs = res ? tn_at_as_strided(buf, sizes, strides, offset) : NULL, *c = rs ? tn_at_copy_(rs, gs, false) : NULL;
    Py_XDECREF(g); Py_XDECREF(gs); Py_XDECREF(buf); Py_XDECREF(rs);
    if (!c) { Py_XDECREF(res); return NULL; }
    Py_DECREF(c);
    return res;
}

/* ---- mm / addmm ---- */

/* maybe_multiply(t, alpha.conj()), stealing t */
static PyObject *times_alpha_conj(PyObject *t, const tn_value *alpha) {
    if (!t) return NULL;
    tn_value c = tn_bw_sconj(alpha);
    PyObject *r = tn_bw_maybe_multiply(t, &c);
    Py_DECREF(t);
    return r;
}
/* the recorded matrix was column-major: strides (1, rows) */
static bool column_major(tn_ints sizes, tn_ints strides) {
    const int64_t *sz, *st;
    return tn_bw_ints(sizes, &sz) == 2 && tn_bw_ints(strides, &st) == 2 && st[0] == 1 && st[1] == sz[0];
}

/* mm_mat1_backward(grad, mat2, mat1_sizes, mat1_strides, mat1_layout, alpha): for a column-major
 * mat1 mat2.conj().mm(grad.t()).t() (a column-major gradient), else grad.mm(mat2.t().conj());
 * times alpha.conj() unless it is 1 (every layout here is strided) */
PyObject *tn_bw_mm_mat1_backward(PyObject *grad, PyObject *mat2, tn_ints sizes, tn_ints strides, PyObject *layout, const tn_value *alpha) {
    (void)layout;
    PyObject *a, *b, *p = NULL;
    if (column_major(sizes, strides)) {
        a = tn_bw_conj(mat2);
        b = a ? tn_at_t(grad) : NULL;
        PyObject *m = b ? tn_at_mm(a, b) : NULL;
        p = m ? tn_at_t(m) : NULL;
        Py_XDECREF(m);
    } else {
        a = tn_at_t(mat2);
        b = a ? tn_bw_conj(a) : NULL;
        p = b ? tn_at_mm(grad, b) : NULL;
    }
    Py_XDECREF(a); Py_XDECREF(b);
    return times_alpha_conj(p, alpha);
}
/* mm_mat2_backward(grad, mat1, mat2_sizes, mat2_strides, mat2_layout, alpha): for a column-major
 * mat2 grad.t().mm(mat1.conj()).t(), else mat1.t().conj().mm(grad); times alpha.conj() */
PyObject *tn_bw_mm_mat2_backward(PyObject *grad, PyObject *mat1, tn_ints sizes, tn_ints strides, PyObject *layout, const tn_value *alpha) {
    (void)layout;
    PyObject *a, *b, *p = NULL;
    if (column_major(sizes, strides)) {
        a = tn_at_t(grad);
        b = a ? tn_bw_conj(mat1) : NULL;
        PyObject *m = b ? tn_at_mm(a, b) : NULL;
        p = m ? tn_at_t(m) : NULL;
        Py_XDECREF(m);
    } else {
        a = tn_at_t(mat1);
        b = a ? tn_bw_conj(a) : NULL;
        p = b ? tn_at_mm(b, grad) : NULL;
    }
    Py_XDECREF(a); Py_XDECREF(b);
    return times_alpha_conj(p, alpha);
}

/* ---- pow.Scalar: a Scalar base ---- */

/* pow_backward_exponent(grad, base, exponent, result) for a Scalar base: grad * (result *
 * base.log()).conj() (the base as complex for a complex exponent; Scalar::log is the complex log
 * of a complex base, else log of the double), with 0 where base == 0 and the exponent is real and
 * >= 0 (at::where with zeros({}) of grad's options); handle_r_to_c(exponent, ...) */
PyObject *tn_bw_pow_backward_exponent_s(PyObject *grad, const tn_value *base, PyObject *exponent, PyObject *result) {
    bool ce = tn_dtype_is_complex(tn_tensor_of(exponent)->dtype), cb = base->tag == TN_V_COMPLEX;
    double re = cb ? base->u.c.re : tn_value_as_double(base), im = cb ? base->u.c.im : 0.0;
    tn_value lg = {.tag = TN_V_FLOAT};
    if (cb || ce) {   /* log of the complex base: log|b| + i arg(b) */
        lg.tag = TN_V_COMPLEX;
        lg.u.c.re = log(hypot(re, im));
        lg.u.c.im = atan2(im, re);
    } else lg.u.f = log(re);
    PyObject *m = tn_at_mul_Scalar(result, TN_SV(&lg)), *l = m ? tn_bw_conj(m) : NULL, *w = NULL, *out = NULL, *r = NULL;
    Py_XDECREF(m);
    if (!l) return NULL;
    if (re == 0.0 && im == 0.0) {   /* base.equal(0.0) */
        PyObject *z = tn_at_zeros(TN_IS0, TN_DT(tn_tensor_of(grad)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL), *cond = NULL;
        if (z && ce) {   /* logical_and(imag(exp) == 0, real(exp) >= 0), its arguments right to left */
            PyObject *rl = tn_at_real(exponent), *ge = rl ? tn_at_ge_Scalar(rl, TN_SI(0)) : NULL;
            PyObject *ig = ge ? tn_at_imag(exponent) : NULL, *eq = ig ? tn_at_eq_Scalar(ig, TN_SI(0)) : NULL;
            cond = eq ? tn_at_logical_and(eq, ge) : NULL;
            Py_XDECREF(rl); Py_XDECREF(ge); Py_XDECREF(ig); Py_XDECREF(eq);
        } else if (z) cond = tn_at_ge_Scalar(exponent, TN_SI(0));
        w = cond ? tn_at_where_self(cond, z, l) : NULL;
        Py_XDECREF(z); Py_XDECREF(cond);
    } else w = Py_NewRef(l);
    out = w ? tn_at_mul_Tensor(grad, w) : NULL;
    r = out ? tn_bw_r_to_c_t(exponent, out) : NULL;
    Py_XDECREF(l); Py_XDECREF(w); Py_XDECREF(out);
    return r;
}

/* ---- layer_norm_double_backward (derivatives.yaml: native_layer_norm_backward) ---- */

/* intermediates of a long helper: each op's result is kept here and released at the end */
typedef struct { PyObject *v[192]; int n; bool bad; } pool;
static PyObject *keep(pool *p, PyObject *o) {
    if (!o || p->bad) { Py_XDECREF(o); p->bad = true; return NULL; }
    if (p->n == 192) { Py_DECREF(o); p->bad = true; PyErr_SetString(PyExc_RuntimeError, "torchnative: helper temporaries"); return NULL; }
    return p->v[p->n++] = o;
}
static void pool_free(pool *p) { for (int i = 0; i < p->n; i++) Py_DECREF(p->v[i]); }
/* ops on pooled operands: a NULL operand (an earlier failure) gives NULL without a call */
#define P(expr) (pp->bad ? NULL : keep(pp, (expr)))
static PyObject *l_sum1(pool *p, PyObject *t) { return p->bad ? NULL : keep(p, tn_at_sum_dim_IntList(t, TN_IS(1), true, NULL)); }
static PyObject *l_mul(pool *p, PyObject *a, PyObject *b) { return p->bad ? NULL : keep(p, tn_at_mul_Tensor(a, b)); }
/* an in-place Scalar op on a pooled tensor (returns it) */
static PyObject *l_div_(pool *p, PyObject *t, int64_t s) {
    if (p->bad) return NULL;
    PyObject *r = tn_at_div__Scalar(t, TN_SI(s));
    if (!r) { p->bad = true; return NULL; }
    Py_DECREF(r);
    return t;
}
static PyObject *l_inplace(pool *p, PyObject *(*f)(PyObject *, PyObject *, tn_scalar_arg), PyObject *t, PyObject *o) {
    if (p->bad) return NULL;
    PyObject *r = f(t, o, TN_SDEF);
    if (!r) { p->bad = true; return NULL; }
    Py_DECREF(r);
    return t;
}

/* the first backward's grad_input for (gO_local, gamma_local): (gamma * s12).div_(N) *
 * (N * gO).sub_(gO.sum(1, true)).sub_(input_sub_mu.mul(s1) * (gO * input_sub_mu).sum(1, true)) */
static PyObject *ln_first_bwd(pool *p, PyObject *gO, PyObject *gamma, PyObject *s12, PyObject *s1, PyObject *xmu, int64_t N) {
    pool *pp = p;
    PyObject *h0 = l_div_(pp, l_mul(pp, gamma, s12), N);
    PyObject *h1 = P(tn_at_mul_Scalar(gO, TN_SI(N)));
    l_inplace(pp, tn_at_sub__Tensor, h1, l_sum1(pp, gO));
    PyObject *rs = l_sum1(pp, l_mul(pp, gO, xmu));
    PyObject *ls = P(tn_at_mul_Tensor(xmu, s1));
    l_inplace(pp, tn_at_sub__Tensor, h1, l_mul(pp, ls, rs));
    return l_mul(pp, h0, h1);
}

/* layer_norm_double_backward(input, gamma, ggI, ggG, ggB, gO, save_mean, save_invstd,
 * normalized_shape, mask) -> (input's, gamma's, grad_out's): upstream's FunctionsManual helper
 * step for step over [M, N] reshapes (M the leading elements, N the normalized ones); the mask
 * does not skip work there either. ggI / ggG / ggB may be NULL (no gradient flowed). */
PyObject *tn_bw_layer_norm_double_backward(PyObject *input_t, PyObject *gamma, PyObject *ggI, PyObject *ggG, PyObject *ggB,
                                           PyObject *gO_t, PyObject *mean_t, PyObject *invstd_t, tn_ints normalized_shape,
                                           tn_ints mask) {
    const int64_t *ns;
    int nn = tn_bw_ints(normalized_shape, &ns);
    const tn_tensor *it = tn_tensor_of(input_t);
    if (nn < 0 || nn > it->ndim) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: layer_norm_double_backward: normalized_shape");
        return NULL;
    }
    int axis = it->ndim - nn;
    int64_t M = 1, N = 1;
    for (int d = 0; d < it->ndim; d++) *(d < axis ? &M : &N) *= it->sizes[d];
    bool affine = gamma && gamma != Py_None;
    pool pl = {{0}, 0, false}, *pp = &pl;
    PyObject *input = P(tn_at_reshape(input_t, TN_IS(M, N)));
    PyObject *gO = P(tn_at_reshape(gO_t, TN_IS(M, N)));
    PyObject *save_mean = P(tn_at_reshape(mean_t, TN_IS(M, 1)));
    PyObject *save_invstd = P(tn_at_reshape(invstd_t, TN_IS(M, 1)));
    PyObject *gamma_e = NULL, *ggG_e = NULL, *ggB_e = NULL, *ggI_e = NULL;
    if (affine) {
        gamma_e = P(tn_at_reshape(gamma, TN_IS(1, N)));
        if (ggG) ggG_e = P(tn_at_reshape(ggG, TN_IS(1, N)));
        if (ggB) ggB_e = P(tn_at_reshape(ggB, TN_IS(1, N)));
    } else {
        gamma_e = P(tn_at_ones(TN_IS(1), TN_DT(it->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL));
    }
    if (ggI) ggI_e = P(tn_at_reshape(ggI, TN_IS(M, N)));
    /* save_mean / save_invstd .to(input's dtype): themselves when it is theirs */
    PyObject *mu = save_mean && tn_tensor_of(save_mean)->dtype != it->dtype
                       ? P(tn_at__to_copy(save_mean, TN_DT(it->dtype), NULL, NULL, NULL, false, NULL)) : save_mean;
    PyObject *xmu = P(tn_at_sub_Tensor(input, mu, TN_SDEF));
    PyObject *s12 = save_invstd && tn_tensor_of(save_invstd)->dtype != it->dtype
                        ? P(tn_at__to_copy(save_invstd, TN_DT(it->dtype), NULL, NULL, NULL, false, NULL)) : save_invstd;
    PyObject *s1 = P(tn_at_pow_Tensor_Scalar(s12, TN_SI(2)));
    PyObject *s32 = P(tn_at_pow_Tensor_Scalar(s12, TN_SI(3)));
    PyObject *gI = NULL, *gG = NULL, *ggO = NULL;
    PyObject *xmu_s32 = l_mul(pp, xmu, s32);
    if (ggI) {
        PyObject *gxhat = l_mul(pp, gO, gamma_e);
        PyObject *gxhat_mu_sum = l_sum1(pp, l_mul(pp, gxhat, xmu));
        PyObject *gxhat_sum = l_sum1(pp, gxhat);
        PyObject *ggI_sum = l_sum1(pp, ggI_e);
        PyObject *ggI_mu_sum = l_sum1(pp, l_mul(pp, ggI_e, xmu));
        PyObject *all = l_div_(pp, l_mul(pp, ggI_sum, gxhat_sum), N);
        l_inplace(pp, tn_at_sub__Tensor, all, l_sum1(pp, l_mul(pp, ggI_e, gxhat)));
        PyObject *t3 = l_mul(pp, l_mul(pp, s1, gxhat_mu_sum), ggI_mu_sum);
        if (t3 && !P(tn_at_mul__Scalar(t3, TN_SD(3. / (double)N)))) t3 = NULL;
        l_inplace(pp, tn_at_add__Tensor, all, t3);
        PyObject *gI0 = l_div_(pp, l_mul(pp, xmu_s32, all), N);
        PyObject *r1 = P(tn_at_sub_Tensor(P(tn_at_div_Scalar(gxhat_sum, TN_SI(N))), gxhat, TN_SDEF));
        PyObject *gI1 = l_mul(pp, l_div_(pp, l_mul(pp, ggI_mu_sum, s32), N), r1);
        PyObject *r2 = P(tn_at_sub_Tensor(P(tn_at_div_Scalar(ggI_sum, TN_SI(N))), ggI_e, TN_SDEF));
        PyObject *gI2 = l_mul(pp, l_div_(pp, l_mul(pp, gxhat_mu_sum, s32), N), r2);
        gI = l_inplace(pp, tn_at_add__Tensor, l_inplace(pp, tn_at_add__Tensor, gI0, gI1), gI2);
    }
    if (affine && ggG) {
        PyObject *t0 = l_mul(pp, l_mul(pp, gO, ggG_e), s12);
        PyObject *t1 = l_div_(pp, l_mul(pp, s12, l_sum1(pp, l_mul(pp, gO, ggG_e))), -N);
        PyObject *t2 = l_div_(pp, l_mul(pp, xmu_s32, l_sum1(pp, l_mul(pp, l_mul(pp, gO, ggG_e), xmu))), -N);
        PyObject *term = l_inplace(pp, tn_at_add__Tensor, l_inplace(pp, tn_at_add__Tensor, t0, t1), t2);
        gI = gI ? l_inplace(pp, tn_at_add__Tensor, gI, term) : term;
    }
    if (gI) gI = P(tn_at_reshape(gI, TN_IN(it->sizes, it->ndim)));
    if (affine && ggI) {
        PyObject *one = P(tn_at_ones(TN_IS0, TN_DT(s12 ? tn_tensor_of(s12)->dtype : it->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL));
        PyObject *fb = pp->bad ? NULL : ln_first_bwd(pp, ggI_e, one, s12, s1, xmu, N);
        gG = P(tn_at_sum_dim_IntList(l_mul(pp, gO, fb), TN_IS(0), false, NULL));
        if (gG) gG = P(tn_at_reshape(gG, TN_IN(tn_tensor_of(gamma)->sizes, tn_tensor_of(gamma)->ndim)));
    }
    if (ggI) ggO = pp->bad ? NULL : ln_first_bwd(pp, ggI_e, gamma_e, s12, s1, xmu, N);
    if (ggG && ggG_e) {
        PyObject *term = l_mul(pp, l_mul(pp, ggG_e, xmu), s12);
        ggO = ggO ? l_inplace(pp, tn_at_add__Tensor, ggO, term) : term;
    }
    if (ggB && ggB_e) ggO = ggO ? l_inplace(pp, tn_at_add__Tensor, ggO, ggB_e) : ggB_e;
    if (ggO) ggO = P(tn_at_reshape(P(tn_at_expand(ggO, TN_IS(M, N), false)), TN_IN(it->sizes, it->ndim)));
    (void)mask;
    PyObject *r = pp->bad ? NULL : PyTuple_Pack(3, gI ? gI : Py_None, gG ? gG : Py_None, ggO ? ggO : Py_None);
    pool_free(pp);
    if (!r && !PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: layer_norm_double_backward failed");
    return r;
}

/* ---- batchnorm_double_backward (moved from formulas.c) ---- */

#define NFAIL(x) do { if (!(x)) goto fail; } while (0)

/* r = t.sum(0, keepdim), then the dims from last down to (keepdim ? 2 : 1), one at a time */
static PyObject *bn_sum_exclude_dim1(pool *tt, PyObject *t, bool keepdim) {
    if (!t) return NULL;
    PyObject *r = keep(tt, tn_at_sum_dim_IntList(t, TN_IS(0), keepdim, NULL));
    if (!r) return NULL;
    int start = keepdim ? 1 : 0;
    for (int d = tn_tensor_of(r)->ndim - 1; d > start; d--)
        if (!(r = keep(tt, tn_at_sum_dim_IntList(r, TN_IS(d), keepdim, NULL)))) return NULL;
    return r;
}
/* unsqueeze(1) until one dim short of target, then unsqueeze(0) (keepdim-shaped statistics) */
static PyObject *bn_unsqueeze_dim1(pool *tt, PyObject *src, PyObject *target) {
    if (!src) return NULL;
    int nd = tn_tensor_of(target)->ndim;
    while (tn_tensor_of(src)->ndim < nd - 1)
        if (!(src = keep(tt, tn_at_unsqueeze(src, 1)))) return NULL;
    if (tn_tensor_of(src)->ndim == nd - 1) src = keep(tt, tn_at_unsqueeze(src, 0));
    return src;
}
/* unsqueeze(1) until one dim short of target, then expand to target's sizes (expand_as) */
static PyObject *bn_expand_as_dim1(pool *tt, PyObject *src, PyObject *target) {
    if (!src) return NULL;
    const tn_tensor *t = tn_tensor_of(target);
    while (tn_tensor_of(src)->ndim < t->ndim - 1)
        if (!(src = keep(tt, tn_at_unsqueeze(src, 1)))) return NULL;
    PyObject *sz = keep(tt, tn_py_size_new(t->ndim, t->sizes));
    return sz ? keep(tt, tn_at_expand(src, TN_IPY(sz), false)) : NULL;
}
/* .to(dtype of like): the tensor itself when the dtype is already like's */
static PyObject *bn_to_dtype_of(pool *tt, PyObject *t, PyObject *like) {
    if (!t || tn_tensor_of(t)->dtype == tn_tensor_of(like)->dtype) return t;
    return keep(tt, tn_at__to_copy(t, TN_DT(tn_tensor_of(like)->dtype), NULL, NULL, NULL, false, NULL));
}
static PyObject *bn_ones0(pool *tt, PyObject *like) {   /* at::ones({}, like.options()) */
    return keep(tt, tn_at_ones(TN_IS0, TN_DT(tn_tensor_of(like)->dtype), NULL, NULL, NULL));
}
/* first backward's grad_input: (gamma * s12).div_(M) * ((M * gO).sub_(sum(gO)).sub_(xmu.mul(s1) * sum(gO * xmu))) */
static PyObject *bn_first_back(pool *tt, PyObject *gO, PyObject *gamma, PyObject *s12, PyObject *s1, PyObject *xmu, int64_t M) {
    PyObject *h0 = keep(tt, tn_at_mul_Tensor(gamma, s12));
    if (!h0 || !keep(tt, tn_at_div__Scalar(h0, TN_SI((long long)M)))) return NULL;
    PyObject *h1 = keep(tt, tn_at_mul_Scalar(gO, TN_SI((long long)M)));
    if (!h1 || !keep(tt, tn_at_sub__Tensor(h1, bn_sum_exclude_dim1(tt, gO, true), TN_SDEF))) return NULL;
    PyObject *b = bn_sum_exclude_dim1(tt, keep(tt, tn_at_mul_Tensor(gO, xmu)), true);   /* right operand first */
    PyObject *a = keep(tt, tn_at_mul_Tensor(xmu, s1));
    PyObject *ab = a && b ? keep(tt, tn_at_mul_Tensor(a, b)) : NULL;
    if (!ab || !keep(tt, tn_at_sub__Tensor(h1, ab, TN_SDEF))) return NULL;
    return keep(tt, tn_at_mul_Tensor(h0, h1));
}

/* batchnorm_double_backward(input, gamma, ggI, ggG, ggB, gO, running_mean, running_var, train, eps,
 * save_mean, save_invstd, mask) -> (input's, gamma's, gO's) (derivatives.yaml:
 * native_batch_norm_backward and batch_norm_backward): upstream's FunctionsManual helper op by op;
 * ggI / ggG / ggB may be NULL (no gradient flowed), gamma and the statistics None. */
PyObject *tn_bw_batchnorm_double_backward(PyObject *input, PyObject *gamma_opt, PyObject *ggI, PyObject *ggG, PyObject *ggB,
                                          PyObject *gO, PyObject *running_mean, PyObject *running_var, bool training,
                                          double eps, PyObject *save_mean, PyObject *save_invstd, tn_ints mask) {
    pool NT_ = {{0}, 0, false}, *tt = &NT_;
    (void)mask;
    bool affine = gamma_opt && gamma_opt != Py_None;
    PyObject *gamma = affine ? gamma_opt : NULL;
    PyObject *gamma_e, *ggG_e = NULL, *ggB_e = NULL;
    if (affine) {
        NFAIL(gamma_e = bn_expand_as_dim1(tt, gamma, input));
        if (ggG) NFAIL(ggG_e = bn_expand_as_dim1(tt, ggG, input));
        if (ggB) NFAIL(ggB_e = bn_expand_as_dim1(tt, ggB, input));
    } else {
        NFAIL(gamma_e = bn_ones0(tt, input));
    }
    const tn_tensor *it = tn_tensor_of(input);
    int64_t M = it->sizes[0];
    for (int d = 2; d < it->ndim; d++) M *= it->sizes[d];
    /* mu, input - mu, then the inverse standard deviation (upstream's order) */
    PyObject *mu, *s12;
    NFAIL(mu = bn_unsqueeze_dim1(tt, training ? bn_to_dtype_of(tt, save_mean, input) : running_mean, input));
    PyObject *xmu = keep(tt, tn_at_sub_Tensor(input, mu, TN_SDEF));
    if (training) {
        NFAIL(s12 = bn_unsqueeze_dim1(tt, bn_to_dtype_of(tt, save_invstd, input), input));
    } else {
        PyObject *ve = keep(tt, tn_at_add_Scalar(running_var, TN_SD(eps), TN_SDEF));
        NFAIL(s12 = bn_unsqueeze_dim1(tt, ve ? keep(tt, tn_at_pow_Tensor_Scalar(ve, TN_SD(-0.5))) : NULL, input));
    }
    PyObject *s1 = keep(tt, tn_at_pow_Tensor_Scalar(s12, TN_SI(2)));
    PyObject *s32 = keep(tt, tn_at_pow_Tensor_Scalar(s12, TN_SI(3)));
    NFAIL(xmu && s1 && s32);
    /* gI */
    PyObject *xmu_s32 = keep(tt, tn_at_mul_Tensor(xmu, s32));
    PyObject *gOinmu_sum = bn_sum_exclude_dim1(tt, keep(tt, tn_at_mul_Tensor(gO, xmu)), true);
    PyObject *gO_sum = bn_sum_exclude_dim1(tt, gO, true);
    NFAIL(xmu_s32 && gOinmu_sum && gO_sum);
    PyObject *gI = NULL;
    if (ggI && training) {
        PyObject *ggI_sum = bn_sum_exclude_dim1(tt, ggI, true);
        PyObject *ggIinmu_sum = bn_sum_exclude_dim1(tt, keep(tt, tn_at_mul_Tensor(ggI, xmu)), true);
        NFAIL(ggI_sum && ggIinmu_sum);
        PyObject *all = keep(tt, tn_at_mul_Tensor(ggI_sum, gO_sum));
        NFAIL(all && keep(tt, tn_at_div__Scalar(all, TN_SI((long long)M))));
        NFAIL(keep(tt, tn_at_sub__Tensor(all, bn_sum_exclude_dim1(tt, keep(tt, tn_at_mul_Tensor(gO, ggI)), true), TN_SDEF)));
        PyObject *t3 = keep(tt, tn_at_mul_Tensor(keep(tt, tn_at_mul_Tensor(s1, gOinmu_sum)), ggIinmu_sum));
        NFAIL(t3 && keep(tt, tn_at_mul__Scalar(t3, TN_SD(3. / (double)M))));
        NFAIL(keep(tt, tn_at_add__Tensor(all, t3, TN_SDEF)));
        PyObject *gI0 = keep(tt, tn_at_mul_Tensor(xmu_s32, all));
        NFAIL(gI0 && keep(tt, tn_at_div__Scalar(gI0, TN_SI((long long)M))));
        /* (x * s32).div_(M) * (s.div(M) - g): the right operand first */
        PyObject *r1 = keep(tt, tn_at_sub_Tensor(keep(tt, tn_at_div_Scalar(gO_sum, TN_SI((long long)M))), gO, TN_SDEF));
        PyObject *a1 = keep(tt, tn_at_mul_Tensor(ggIinmu_sum, s32));
        NFAIL(r1 && a1 && keep(tt, tn_at_div__Scalar(a1, TN_SI((long long)M))));
        PyObject *gI1 = keep(tt, tn_at_mul_Tensor(a1, r1));
        PyObject *r2 = keep(tt, tn_at_sub_Tensor(keep(tt, tn_at_div_Scalar(ggI_sum, TN_SI((long long)M))), ggI, TN_SDEF));
        PyObject *a2 = keep(tt, tn_at_mul_Tensor(gOinmu_sum, s32));
        NFAIL(gI1 && r2 && a2 && keep(tt, tn_at_div__Scalar(a2, TN_SI((long long)M))));
        PyObject *gI2 = keep(tt, tn_at_mul_Tensor(a2, r2));
        NFAIL(gI2 && keep(tt, tn_at_add__Tensor(gI0, gI1, TN_SDEF)) && keep(tt, tn_at_add__Tensor(gI0, gI2, TN_SDEF)));
        NFAIL(gI = keep(tt, tn_at_mul_Tensor(gamma_e, gI0)));
    }
    if (affine && ggG) {
        PyObject *term;
        if (training) {
            PyObject *t0 = keep(tt, tn_at_mul_Tensor(gO, s12));
            PyObject *t1 = keep(tt, tn_at_mul_Tensor(s12, gO_sum));
            NFAIL(t0 && t1 && keep(tt, tn_at_div__Scalar(t1, TN_SI((long long)-M))));
            PyObject *t2 = keep(tt, tn_at_mul_Tensor(xmu_s32, bn_sum_exclude_dim1(tt, keep(tt, tn_at_mul_Tensor(gO, xmu)), true)));
            NFAIL(t2 && keep(tt, tn_at_div__Scalar(t2, TN_SI((long long)-M))));
            NFAIL(keep(tt, tn_at_add__Tensor(t0, t1, TN_SDEF)) && keep(tt, tn_at_add__Tensor(t0, t2, TN_SDEF)));
            term = keep(tt, tn_at_mul_Tensor(ggG_e, t0));
        } else {
            term = keep(tt, tn_at_mul_Tensor(keep(tt, tn_at_mul_Tensor(ggG_e, s12)), gO));
        }
        NFAIL(term);
        if (gI) NFAIL(keep(tt, tn_at_add__Tensor(gI, term, TN_SDEF)));
        else gI = term;
    }
    PyObject *gG = NULL;
    if (affine && ggI) {
        if (training) {
            PyObject *one = bn_ones0(tt, s12);
            PyObject *fb = one ? bn_first_back(tt, gO, one, s12, s1, xmu, M) : NULL;
            NFAIL(gG = bn_sum_exclude_dim1(tt, fb ? keep(tt, tn_at_mul_Tensor(ggI, fb)) : NULL, false));
        } else {
            PyObject *p = keep(tt, tn_at_mul_Tensor(keep(tt, tn_at_mul_Tensor(ggI, gO)), s12));
            NFAIL(gG = bn_sum_exclude_dim1(tt, p, false));
        }
    }
    PyObject *ggO = NULL;
    if (ggI) {
        if (training) NFAIL(ggO = bn_first_back(tt, ggI, gamma_e, s12, s1, xmu, M));
        else NFAIL(ggO = keep(tt, tn_at_mul_Tensor(keep(tt, tn_at_mul_Tensor(ggI, s12)), gamma_e)));
    }
    if (ggG && ggG_e) {
        PyObject *term = keep(tt, tn_at_mul_Tensor(keep(tt, tn_at_mul_Tensor(ggG_e, xmu)), s12));
        NFAIL(term);
        if (ggO) NFAIL(keep(tt, tn_at_add__Tensor(ggO, term, TN_SDEF)));
        else ggO = term;
    }
    if (ggB && ggB_e) {
        if (ggO) NFAIL(keep(tt, tn_at_add__Tensor(ggO, ggB_e, TN_SDEF)));
        else ggO = ggB_e;
    }
    PyObject *r = PyTuple_Pack(3, gI ? gI : Py_None, gG ? gG : Py_None, ggO ? ggO : Py_None);
    pool_free(tt);
    return r;
fail:
    pool_free(tt);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: batchnorm_double_backward failed");
    return NULL;
}

/* ---- i1_backward / i1e_backward / polar_backward ---- */

/* i1_backward(grad, self, result) and (scaled) i1e_backward: safe_self = where(|self| > eps,
 * self, eps) (eps the dtype's epsilon; i1 has float and double kernels only); gradx =
 * i0(safe_self) - result * safe_self.reciprocal(), or special_i0e(safe_self) - result *
 * (safe_self.sgn() + safe_self.reciprocal()); grad * where(|self| > eps, gradx, 0.5). Right
 * operands first, as upstream's build evaluates them. */
static PyObject *i1_like_backward(PyObject *grad, PyObject *self, PyObject *result, bool scaled) {
    double eps = tn_tensor_of(self)->dtype == TN_DTYPE_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    pool pl = {{0}, 0, false}, *pp = &pl;
    PyObject *big = P(tn_at_gt_Scalar(P(tn_at_abs(self)), TN_SD(eps)));
    PyObject *st = P(tn_bw_scalar_tensor(eps, self));
    PyObject *safe = P(tn_at_where_self(big, self, st));
    PyObject *rhs;
    if (!scaled) {
        rhs = P(tn_at_mul_Tensor(result, P(tn_at_reciprocal(safe))));
    } else {
        PyObject *rc = P(tn_at_reciprocal(safe));
        PyObject *sum = P(tn_at_add_Tensor(P(tn_at_sgn(safe)), rc, TN_SDEF));
        rhs = P(tn_at_mul_Tensor(result, sum));
    }
    PyObject *lhs = P(scaled ? tn_at_special_i0e(safe) : tn_at_i0(safe));
    PyObject *gx = P(tn_at_sub_Tensor(lhs, rhs, TN_SDEF));
    PyObject *half = P(tn_bw_scalar_tensor(0.5, self));
    PyObject *w = P(tn_at_where_self(big, gx, half));
    PyObject *r = pp->bad ? NULL : tn_at_mul_Tensor(grad, w);
    pool_free(pp);
    return r;
}
PyObject *tn_bw_i1_backward(PyObject *grad, PyObject *self, PyObject *result) { return i1_like_backward(grad, self, result, false); }
PyObject *tn_bw_i1e_backward(PyObject *grad, PyObject *self, PyObject *result) { return i1_like_backward(grad, self, result, true); }

/* polar_backward(grad, result) -> (abs's, angle's): grad_conj = grad.conj(); real(grad_conj *
 * sgn(result)); real(grad_conj * (result * 1j)); both computed, as upstream's helper */
PyObject *tn_bw_polar_backward(PyObject *grad, PyObject *result) {
    pool pl = {{0}, 0, false}, *pp = &pl;
    PyObject *gc = P(tn_bw_conj(grad));
    PyObject *ga = P(tn_at_real(P(tn_at_mul_Tensor(gc, P(tn_at_sgn(result))))));
    PyObject *j = P(PyComplex_FromDoubles(0.0, 1.0));
    PyObject *rj = P(tn_at_mul_Scalar(result, TN_SO(j)));
    PyObject *gt = P(tn_at_real(P(tn_at_mul_Tensor(gc, rj))));
    PyObject *r = pp->bad ? NULL : PyTuple_Pack(2, ga, gt);
    pool_free(pp);
    return r;
}

/* repeat_backward(grad, repeats, input_shape): zeros of the input's shape when a repeat is 0;
 * else the leading new dims summed away one at a time, then one reshape to [repeat, size] pairs
 * (a pair only where repeat != 1) and one sum over the repeat dims */
PyObject *tn_bw_repeat_backward(PyObject *grad, tn_ints repeats, tn_ints input_shape) {
    const int64_t *rp, *in;
    int nr = tn_bw_ints(repeats, &rp), ni = nr < 0 ? -1 : tn_bw_ints(input_shape, &in);
    if (ni < 0 || ni > TN_MAX_DIMS || nr < ni) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: repeat_backward: repeats");
        return NULL;
    }
    for (int i = 0; i < nr; i++)
        if (rp[i] == 0)
            return tn_at_zeros(TN_IN(in, ni), TN_DT(tn_tensor_of(grad)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
    PyObject *g = Py_NewRef(grad);
    int nun = tn_tensor_of(grad)->ndim - ni;
    for (int i = 0; g && i < nun; i++) Py_SETREF(g, tn_at_sum_dim_IntList(g, TN_IS(0), false, NULL));
    int64_t gs[2 * TN_MAX_DIMS], sd[TN_MAX_DIMS];
    int ng = 0, ns = 0;
    for (int d = 0; d < ni; d++) {
        int64_t rep = rp[d + nun];
        if (rep != 1) { gs[ng++] = rep; sd[ns++] = ng - 1; }
        gs[ng++] = in[d];
    }
    if (g && ns > 0) {
        Py_SETREF(g, tn_at_reshape(g, TN_IN(gs, ng)));
        if (g) Py_SETREF(g, tn_at_sum_dim_IntList(g, TN_IN(sd, ns), false, NULL));
    }
    return g;
}

/* embedding_dense_double_backward(grad, indices, padding_idx): grad's rows at the indices
 * (index_select over indices.reshape(-1)), the padding index's rows masked to 0, viewed as
 * indices.shape + [-1] */
PyObject *tn_bw_embedding_dense_double_backward(PyObject *grad, PyObject *indices, int64_t padding_idx) {
    pool pl = {{0}, 0, false}, *pp = &pl;
    PyObject *gw = P(tn_at_index_select(grad, 0, P(tn_at_reshape(indices, TN_IS(-1)))));
    if (padding_idx >= 0) {
        PyObject *m = P(tn_at_reshape(P(tn_at_eq_Scalar(indices, TN_SI(padding_idx))), TN_IS(-1, 1)));
        P(tn_at_masked_fill__Scalar(gw, m, TN_SI(0)));
    }
    const tn_tensor *it = tn_tensor_of(indices);
    int64_t sz[TN_MAX_DIMS + 1];
    for (int d = 0; d < it->ndim; d++) sz[d] = it->sizes[d];
    sz[it->ndim] = -1;
    PyObject *r = pp->bad ? NULL : tn_at_view(gw, TN_IN(sz, it->ndim + 1));
    pool_free(pp);
    return r;
}

/* flip(logcumsumexp(flip(x, {dim}), dim), {dim}); steals x */
static PyObject *reverse_logcumsumexp(PyObject *x, int64_t dim) {
    PyObject *f = x ? tn_at_flip(x, TN_IN(&dim, 1)) : NULL;
    PyObject *c = f ? tn_at_logcumsumexp(f, dim) : NULL;
    PyObject *r = c ? tn_at_flip(c, TN_IN(&dim, 1)) : NULL;
    Py_XDECREF(x); Py_XDECREF(f); Py_XDECREF(c);
    return r;
}
/* (reverse_logcumsumexp(lg - result) + self).exp(); steals lg */
static PyObject *lcse_term(PyObject *lg, PyObject *self, PyObject *result, int64_t dim) {
    PyObject *d = lg ? tn_at_sub_Tensor(lg, result, TN_SDEF) : NULL;
    PyObject *rv = reverse_logcumsumexp(d, dim);
    PyObject *a = rv ? tn_at_add_Tensor(rv, self, TN_SDEF) : NULL;
    PyObject *r = a ? tn_at_exp(a) : NULL;
    Py_XDECREF(lg); Py_XDECREF(rv); Py_XDECREF(a);
    return r;
}
/* logcumsumexp_backward(grad, self, result, dim): grad itself for a 0-dim or empty grad; complex:
 * (rev(grad.conj().log() - result) + self).exp().conj(); real: the positive and negative parts of
 * grad in log space (log|grad| where grad > 0 / < 0, the dtype's lowest value elsewhere), each
 * through the same, their difference (upstream's op order, measured with a dispatch mode) */
PyObject *tn_bw_logcumsumexp_backward(PyObject *grad, PyObject *self, PyObject *result, int64_t dim) {
    const tn_tensor *gt = tn_tensor_of(grad);
    if (gt->ndim == 0 || tn_numel(gt) == 0) return Py_NewRef(grad);
    if (tn_dtype_is_complex(gt->dtype)) {
        PyObject *c = tn_at_conj(grad);
        PyObject *lg = c ? tn_at_log(c) : NULL;
        Py_XDECREF(c);
        PyObject *out = lcse_term(lg, self, result, dim);
        PyObject *r = out ? tn_at_conj(out) : NULL;
        Py_XDECREF(out);
        return r;
    }
    const double lowest = gt->dtype == TN_DTYPE_F64 ? -1.7976931348623157e308
                        : gt->dtype == TN_DTYPE_F16 ? -65504.0
                        : gt->dtype == TN_DTYPE_BF16 ? -3.3895313892515355e38 : -3.4028234663852886e38;
    PyObject *gmin = tn_at_scalar_tensor(TN_SD(lowest), TN_DT(gt->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
    PyObject *ab = gmin ? tn_at_abs(grad) : NULL;
    PyObject *lag = ab ? tn_at_log(ab) : NULL;
    PyObject *gp = lag ? tn_at_gt_Scalar(grad, TN_SI(0)) : NULL;
    PyObject *pos = gp ? tn_at_where_self(gp, lag, gmin) : NULL;
    PyObject *ln = pos ? tn_at_lt_Scalar(grad, TN_SI(0)) : NULL;
    PyObject *neg = ln ? tn_at_where_self(ln, lag, gmin) : NULL;
    PyObject *op = neg ? lcse_term(Py_NewRef(pos), self, result, dim) : NULL;
    PyObject *on = op ? lcse_term(Py_NewRef(neg), self, result, dim) : NULL;
    PyObject *r = on ? tn_at_sub_Tensor(op, on, TN_SDEF) : NULL;
    Py_XDECREF(gmin); Py_XDECREF(ab); Py_XDECREF(lag); Py_XDECREF(gp); Py_XDECREF(pos);
    Py_XDECREF(ln); Py_XDECREF(neg); Py_XDECREF(op); Py_XDECREF(on);
    return r;
}

/* renorm_backward(grad, self, p, dim, maxnorm): upstream's norm over every dim but `dim` in the
 * accumulate type (CPU: float -> double, 16-bit -> float), norm_backward of the summed
 * self.conj() * grad (its real part for a complex self), then
 * where(norm > maxnorm, (maxnorm * invnorm * (grad - invnorm * nb)).to(grad's dtype), grad),
 * invnorm = 1 / (norm + 1e-7); upstream's op order (measured with a dispatch mode) */
PyObject *tn_bw_renorm_backward(PyObject *grad, PyObject *self, const tn_value *p, int64_t dim, const tn_value *maxnorm) {
    const tn_tensor *st = tn_tensor_of(self);
    int nd = st->ndim;
    if (tn_wrap_dim(dim, nd, &dim) < 0) return NULL;
    int64_t rd[TN_MAX_DIMS];
    int nr = 0;
    for (int d = 0; d < nd; d++)
        if (d != dim) rd[nr++] = d;
    tn_dtype acc = st->dtype == TN_DTYPE_F32 ? TN_DTYPE_F64
                 : st->dtype == TN_DTYPE_F16 || st->dtype == TN_DTYPE_BF16 ? TN_DTYPE_F32
                 : st->dtype == TN_DTYPE_C64 ? TN_DTYPE_C128 : st->dtype;
    bool cplx = tn_dtype_is_complex(acc);
    tn_dtype racc = acc == TN_DTYPE_C128 ? TN_DTYPE_F64 : acc;
    PyObject *norm = tn_at_linalg_vector_norm(self, TN_SV(p), TN_IN(rd, nr), true, TN_DT(acc));
    PyObject *sc = norm ? tn_bw_conj(self) : NULL;
    PyObject *m = sc ? tn_at_mul_Tensor(sc, grad) : NULL;
    PyObject *re = m && cplx ? tn_at_real(m) : Py_XNewRef(m);
    PyObject *go = re ? tn_at_sum_dim_IntList(re, TN_IN(rd, nr), true, TN_DT(racc)) : NULL;
    PyObject *nb = go ? tn_bw_norm_backward(go, self, p, norm, TN_IN(rd, nr), true) : NULL;
    PyObject *a = nb ? tn_at_add_Scalar(norm, TN_SD(1e-7), TN_SDEF) : NULL;
    PyObject *inv = a ? tn_at_reciprocal(a) : NULL;
    PyObject *in = inv ? tn_at_mul_Tensor(inv, nb) : NULL;
    PyObject *df = in ? tn_at_sub_Tensor(grad, in, TN_SDEF) : NULL;
    PyObject *f = df ? tn_at_mul_Scalar(inv, TN_SV(maxnorm)) : NULL;
    PyObject *gn = f ? tn_at_mul_Tensor(f, df) : NULL;
    PyObject *gt = gn ? tn_at_to_dtype(gn, TN_DT(tn_tensor_of(grad)->dtype), false, false, NULL) : NULL;
    PyObject *c = gt ? tn_at_gt_Scalar(norm, TN_SV(maxnorm)) : NULL;
    PyObject *r = c ? tn_at_where_self(c, gt, grad) : NULL;
    PyObject *tmp[] = {norm, sc, m, re, go, nb, a, inv, in, df, f, gn, gt, c};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) Py_XDECREF(tmp[i]);
    return r;
}

/* glu_double_backward_grad_output(grad, input, dim): tmp = grad * glu_backward(ones(input's sizes
 * with dim halved), input, dim), then the sum of tmp's two halves along dim */
PyObject *tn_bw_glu_double_backward_grad_output(PyObject *grad, PyObject *input, int64_t dim) {
    const tn_tensor *t = tn_tensor_of(input);
    if (tn_wrap_dim(dim, t->ndim, &dim) < 0) return NULL;
    int64_t sz[TN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) sz[d] = t->sizes[d];
    sz[dim] /= 2;
    int64_t h = sz[dim];
    PyObject *ones = tn_at_ones(TN_IN(sz, t->ndim), TN_DT(t->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
    PyObject *gb = ones ? tn_at_glu_backward(ones, input, dim) : NULL, *tmp = gb ? tn_at_mul_Tensor(grad, gb) : NULL;
    PyObject *b = tmp ? tn_at_narrow(tmp, dim, h, h) : NULL, *a = b ? tn_at_narrow(tmp, dim, 0, h) : NULL;
    PyObject *r = a ? tn_at_add_Tensor(a, b, TN_SDEF) : NULL;
    Py_XDECREF(ones); Py_XDECREF(gb); Py_XDECREF(tmp); Py_XDECREF(b); Py_XDECREF(a);
    return r;
}

/* glu_double_backward(grad, grad_output, input, dim): with a, b the halves of input, s =
 * sigmoid(b), t = s (1 - s): the first half's gradient gg_b * gO * t, the second's
 * gg_b * a * gO * (t (1 - s) - s t) + gg_a * gO * t, concatenated along dim */
PyObject *tn_bw_glu_double_backward(PyObject *grad, PyObject *gO, PyObject *input, int64_t dim) {
    const tn_tensor *t = tn_tensor_of(input);
    if (tn_wrap_dim(dim, t->ndim, &dim) < 0) return NULL;
    int64_t h = t->sizes[dim] / 2;
    PyObject *tmp[24] = {0};
    int k = 0;
#define T_(e) (tmp[k++] = (e))
    PyObject *r = NULL, *fh, *sh, *sig, *oms, *sos, *ga, *gb, *gbfh, *m1, *gi1, *m2, *m3, *so, *m4, *m5, *m6, *m7, *gi2;
    if (T_(fh = tn_at_narrow(input, dim, 0, h)) && T_(sh = tn_at_narrow(input, dim, h, h)) && T_(sig = tn_at_sigmoid(sh)) &&
        T_(oms = tn_bw_scalar_rop(TN_SI(1), sig, false)) && T_(sos = tn_at_mul_Tensor(sig, oms)) &&
        T_(ga = tn_at_narrow(grad, dim, 0, h)) && T_(gb = tn_at_narrow(grad, dim, h, h)) && T_(gbfh = tn_at_mul_Tensor(gb, fh)) &&
        T_(m1 = tn_at_mul_Tensor(gb, gO)) && T_(gi1 = tn_at_mul_Tensor(m1, sos)) &&
        T_(m2 = tn_at_mul_Tensor(sig, sos)) && T_(m3 = tn_at_mul_Tensor(sos, oms)) && T_(so = tn_at_sub_Tensor(m3, m2, TN_SDEF)) &&
        T_(m4 = tn_at_mul_Tensor(ga, gO)) && T_(m5 = tn_at_mul_Tensor(m4, sos)) &&
        T_(m6 = tn_at_mul_Tensor(gbfh, gO)) && T_(m7 = tn_at_mul_Tensor(m6, so)) && T_(gi2 = tn_at_add_Tensor(m7, m5, TN_SDEF)))
        r = tn_at_cat(TN_TS(gi1, gi2), dim);
#undef T_
    for (int i = 0; i < k; i++) Py_XDECREF(tmp[i]);
    return r;
}
