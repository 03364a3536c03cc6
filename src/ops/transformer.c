/* transformer.c — the CPU fast path nn.MultiheadAttention and nn.TransformerEncoderLayer take in
 * inference (no grad, eval; torch/nn/modules/activation.py and transformer.py decide):
 *   _native_multi_head_attention and _transformer_encoder_layer_fwd run upstream's steps op by op
 *   through the typed op API, so a TorchDispatchMode sees the one op as upstream's does and the
 *   arithmetic is that of the ops upstream calls;
 *   _masked_softmax (+ backward) and _transform_bias_rescale_qkv, kernels with upstream's
 *   rounding (scalar loops: exp in the element type, the sum in double for float / double and in
 *   float for bf16 / f16, one reciprocal, one multiply);
 *   _addmm_activation: addmm, then relu_ or gelu_ on the result. */
#include "ops/common.h"

#include <math.h>

/* ---- element access in the four floating dtypes, the accumulation in acc_type's precision */
static double ld(const char *p, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F64: return *(const double *)p;
    case TN_DTYPE_F32: return *(const float *)p;
    case TN_DTYPE_BF16: return tn_bf16_to_f32(*(const uint16_t *)p);
    default: return tn_f16_to_f32(*(const uint16_t *)p);
    }
}
/* round to the element type (float / bf16 / f16 values are exact in double) */
static double rnd(double v, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F64: return v;
    case TN_DTYPE_F32: return (float)v;
    case TN_DTYPE_BF16: return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    default: return tn_f16_to_f32(tn_f32_to_f16((float)v));
    }
}
static void st(char *p, tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F64: *(double *)p = v; break;
    case TN_DTYPE_F32: *(float *)p = (float)v; break;
    case TN_DTYPE_BF16: *(uint16_t *)p = tn_f32_to_bf16((float)v); break;
    default: *(uint16_t *)p = tn_f32_to_f16((float)v); break;
    }
}
/* exp in the element type: double exp for double, expf (the C library's, as std::exp) else */
static double ex(double v, tn_dtype dt) { return dt == TN_DTYPE_F64 ? exp(v) : rnd(expf((float)v), dt); }
/* acc_type on CPU: double for float / double, float for bf16 / f16 */
static double acc(double v, tn_dtype dt) { return dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16 ? (float)v : v; }

/* A result these kernels return is a new tensor to autograd, not a view, even where it shares
 * storage (upstream's kernels return them so): the base link the view ops leave is dropped. */
static PyObject *unview(PyObject *t) {
    if (t) Py_CLEAR(((tn_tensor_obj *)t)->base);
    return t;
}

static bool attn_float(tn_dtype d) {
    return d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_BF16 || d == TN_DTYPE_F16;
}
static int refuse_dtype(const char *op, tn_dtype d) {
    PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", op, tn_dtype_cpp_name(d));
    return -1;
}

/* _masked_softmax(self, mask, dim=None, mask_type=None): True in the mask drops the element. The
 * mask is the input's shape (type 2), or for a 4-d input and a 2-d mask an (L, L) attention mask
 * (type 0) or a (B, L) padding mask (type 1), expanded to the input's shape when the softmax is not
 * over the last dim. A row with every element dropped is NaN. The result is written in the input's
 * contiguous order into empty_like(self), as upstream's. */
PyObject *tn_op__masked_softmax(tn_value *a) {
    PyObject *xo = a[0].u.obj, *mo = a[1].u.obj;
    const tn_tensor *x = TN_T(a[0]), *m = TN_T(a[1]);
    if (m->dtype != TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError, "Mask should be a boolean tensor");
        return NULL;
    }
    bool has_type = a[3].tag == TN_V_INT;
    /* no mask_type with a 4-d input and a 2-d mask: no shape check, "Mask Type should be defined"
     * after dim is wrapped (measured: docs/breadth_more2.md "group types (session 37)") */
    int64_t type = has_type ? a[3].u.i : -1;
    bool has_dim = a[2].tag == TN_V_INT;
    if (m->ndim != 2 || x->ndim != 4) type = 2, has_type = true;
    PyObject *mc = NULL;
    if (type == 2) {
        bool same = m->ndim == x->ndim;
        for (int i = 0; same && i < x->ndim; i++) same = m->sizes[i] == x->sizes[i];
        if (!same) {
            PyErr_SetString(PyExc_RuntimeError, "For mask_type == 2 mask shape should match input shape");
            return NULL;
        }
    } else if (type == 1 || type == 0) {
        if (type == 1 ? (x->sizes[0] != m->sizes[0] || x->sizes[2] != m->sizes[1])
                      : (x->sizes[2] != m->sizes[0] || x->sizes[2] != m->sizes[1])) {
            PyErr_SetString(PyExc_RuntimeError, type == 1 ? "For mask_type == 1 mask shape should be (B, L)"
                                                          : "For mask_type == 0 mask shape should be (L, L)");
            return NULL;
        }
        if (!has_dim || a[2].u.i != x->ndim - 1) {   /* expanded to a generic 4-d mask */
            PyObject *v = type == 1 ? tn_at_view(mo, TN_IS(x->sizes[0], 1, 1, x->sizes[2]))
                                    : tn_at_view(mo, TN_IS(1, 1, x->sizes[2], x->sizes[2]));
            PyObject *e = v ? tn_at_expand(v, TN_IN(x->sizes, x->ndim), false) : NULL;
            mc = e ? tn_at_contiguous(e, NULL) : NULL;
            Py_XDECREF(v); Py_XDECREF(e);
            if (!mc) return NULL;
            type = 2;
        }
    }
    if (!mc && !(mc = tn_at_contiguous(mo, NULL))) return NULL;
    PyObject *out = NULL, *xc = NULL;
    int64_t dim;
    if (!(out = tn_at_empty_like(xo, NULL, NULL, NULL, NULL, NULL)) ||
        tn_wrap_dim(has_dim ? a[2].u.i : x->ndim - 1, x->ndim, &dim) < 0)
        goto done;
    if (!attn_float(x->dtype)) { refuse_dtype("masked_softmax", x->dtype); goto done; }
    if (!has_type) {
        PyErr_SetString(PyExc_RuntimeError, "Mask Type should be defined");
        goto done;
    }
    if (type < 0 || type > 2) {
        PyErr_SetString(PyExc_RuntimeError, "Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)");
        goto done;
    }
    if (!(xc = tn_at_contiguous(xo, NULL))) goto done;
    {
        const tn_dtype dt = x->dtype;
        const int isz = tn_dtype_itemsize(dt), nd = x->ndim ? x->ndim : 1;
        int64_t sz[TN_MAX_DIMS];
        for (int i = 0; i < nd; i++) sz[i] = x->ndim ? x->sizes[i] : 1;
        int64_t outer = 1, inner = 1, n = sz[dim];
        for (int i = 0; i < dim; i++) outer *= sz[i];
        for (int i = (int)dim + 1; i < nd; i++) inner *= sz[i];
        const char *in = tn_data(tn_tensor_of(xc));
        const bool *mk = (const bool *)tn_data(tn_tensor_of(mc));
        char *o = tn_data(tn_tensor_of(out));
        for (int64_t i = 0; i < outer * inner && n > 0; i++) {
            int64_t oi = i / inner, ii = i % inner, base = oi * n * inner + ii;
            int64_t mo_ = type == 0 ? oi % sz[2] : type == 1 ? oi / (sz[1] * sz[2]) : oi;
            const bool *mrow = mk + mo_ * n * inner + ii;
            double mx = ld(in + base * isz, dt);
            bool any = false;
            for (int64_t d = 0; d < n; d++)
                if (!mrow[d * inner]) {
                    double v = ld(in + (base + d * inner) * isz, dt);
                    mx = any ? (mx < v ? v : mx) : v;   /* std::max */
                    any = true;
                }
            double sum = 0;
            for (int64_t d = 0; d < n; d++) {
                double z = mrow[d * inner] ? 0.0 : ex(rnd(ld(in + (base + d * inner) * isz, dt) - mx, dt), dt);
                st(o + (base + d * inner) * isz, dt, z);
                sum = acc(sum + z, dt);
            }
            double r = sum == 0 ? NAN : acc(1 / sum, dt);
            for (int64_t d = 0; d < n; d++) {
                char *p = o + (base + d * inner) * isz;
                st(p, dt, ld(p, dt) * r);
            }
        }
    }
done:
    Py_XDECREF(mc); Py_XDECREF(xc);
    if (PyErr_Occurred()) Py_CLEAR(out);
    return out;
}

/* _masked_softmax_backward(grad_output, output, mask, dim=None): grad * (out - sum over the
 * kept elements of grad * out), 0 where the mask drops; the mask has grad's shape. */
PyObject *tn_op__masked_softmax_backward(tn_value *a) {
    const tn_tensor *g = TN_T(a[0]), *m = TN_T(a[2]);
    bool same = g->ndim == m->ndim;
    for (int i = 0; same && i < g->ndim; i++) same = g->sizes[i] == m->sizes[i];
    if (!same) {
        PyErr_SetString(PyExc_RuntimeError, "Mask shape should match grad shape");
        return NULL;
    }
    if (m->dtype != TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError, "Mask should be a boolean tensor");
        return NULL;
    }
    const tn_tensor *y = TN_T(a[1]);
    int64_t dim;   /* upstream wraps dim before anything reads the output */
    if (tn_wrap_dim(a[3].tag == TN_V_INT ? a[3].u.i : y->ndim - 1, g->ndim, &dim) < 0) return NULL;
    same = y->ndim == g->ndim;
    for (int i = 0; same && i < g->ndim; i++) same = y->sizes[i] == g->sizes[i];
    if (!same) {   /* upstream reads past a smaller output */
        PyErr_SetString(PyExc_RuntimeError, "_masked_softmax_backward: output shape should match grad shape");
        return NULL;
    }
    if (!attn_float(g->dtype)) { refuse_dtype("masked_softmax_backward", g->dtype); return NULL; }
    if (y->dtype != g->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(g->dtype),
                     tn_dtype_cpp_name(y->dtype));
        return NULL;
    }
    PyObject *gc = tn_at_contiguous(a[0].u.obj, NULL), *yc = gc ? tn_at_contiguous(a[1].u.obj, NULL) : NULL;
    PyObject *mc = yc ? tn_at_contiguous(a[2].u.obj, NULL) : NULL;
    PyObject *out = mc ? tn_at_empty_like(gc, NULL, NULL, NULL, NULL, NULL) : NULL;
    if (out) {
        const tn_dtype dt = g->dtype;
        const int isz = tn_dtype_itemsize(dt), nd = g->ndim ? g->ndim : 1;
        int64_t outer = 1, inner = 1, n = g->ndim ? g->sizes[dim] : 1;
        for (int i = 0; i < dim; i++) outer *= g->sizes[i];
        for (int i = (int)dim + 1; i < nd; i++) inner *= g->sizes[i];
        const char *gp = tn_data(tn_tensor_of(gc)), *yp = tn_data(tn_tensor_of(yc));
        const bool *mk = (const bool *)tn_data(tn_tensor_of(mc));
        char *o = tn_data(tn_tensor_of(out));
        for (int64_t i = 0; i < outer * inner && n > 0; i++) {
            int64_t base = (i / inner) * n * inner + i % inner;
            double sum = 0;
            for (int64_t d = 0; d < n; d++) {
                int64_t k = base + d * inner;
                if (!mk[k]) sum = acc(sum + rnd(ld(gp + k * isz, dt) * ld(yp + k * isz, dt), dt), dt);
            }
            for (int64_t d = 0; d < n; d++) {
                int64_t k = base + d * inner;
                st(o + k * isz, dt, mk[k] ? 0.0 : ld(yp + k * isz, dt) * acc(ld(gp + k * isz, dt) - sum, dt));
            }
        }
    }
    Py_XDECREF(gc); Py_XDECREF(yc); Py_XDECREF(mc);
    return out;
}

/* _transform_bias_rescale_qkv(qkv, qkv_bias, num_heads): qkv (B, T, 3D) plus its bias, split into
 * q, k, v of (B, heads, T, D / heads) each, q scaled by 1 / sqrt(D / heads) (rounded to the element
 * type; (x + b) rounded, then the product rounded). The three are views of one (3, B, heads, T,
 * dh) buffer, as upstream's. */
PyObject *tn_op__transform_bias_rescale_qkv(tn_value *a) {
    const tn_tensor *q = TN_T(a[0]), *b = TN_T(a[1]);
    int64_t nh = a[2].u.i;
    /* upstream reads qkv.size(0), size(1), size(2) in turn (their IndexErrors), dims past the third
     * unread (measured) */
    for (int d = 0; d < 3; d++)
        if (tn_size_read(q, d) < 0) return NULL;
    int64_t B = q->sizes[0], T = q->sizes[1], D3 = q->sizes[2], D = D3 / 3;
    if (nh == 0 || D % nh != 0) {
        PyErr_SetString(nh == 0 ? PyExc_ZeroDivisionError : PyExc_RuntimeError,
                        nh == 0 ? "ZeroDivisionError" : "Expected D % num_head == 0 to be true, but got false.  (Could this "
                                  "error message be improved?  If so, please report an enhancement request to PyTorch.)");
        return NULL;
    }
    if (D3 % 3 != 0) {
        PyErr_SetString(PyExc_RuntimeError, "Expected _3D % 3 == 0 to be true, but got false.  (Could this error message be "
                                            "improved?  If so, please report an enhancement request to PyTorch.)");
        return NULL;
    }
    /* more dims: upstream's kernel reads the first B * T * 3D elements of the contiguous data, as here
     * (measured); with fewer elements it would read past them */
    if (q->ndim > 3 && tn_numel(q) < B * T * D3)
        return tn_not_implemented("_transform_bias_rescale_qkv of a qkv with fewer elements than its first three sizes");
    const tn_dtype dt = q->dtype;
    if (!attn_float(dt)) { refuse_dtype("transform_bias_rescale_qkv", dt); return NULL; }
    if (b->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(dt), tn_dtype_cpp_name(b->dtype));
        return NULL;
    }
    if (tn_numel(b) < D3) {
        PyErr_Format(PyExc_RuntimeError, "_transform_bias_rescale_qkv: qkv_bias has %lld elements, %lld expected",
                     (long long)tn_numel(b), (long long)D3);
        return NULL;
    }
    const int64_t dh = D / nh;
    PyObject *qc = tn_at_contiguous(a[0].u.obj, NULL), *bc = qc ? tn_at_contiguous(a[1].u.obj, NULL) : NULL;
    PyObject *buf = bc ? tn_tensor_new_empty(5, (const int64_t[]){3, B, nh, T, dh}, dt, TN_DEVICE_CPU) : NULL;
    PyObject *res = NULL;
    if (buf) {
        /* 1.0 / sqrt((scalar_t)dh), in double, rounded to the element type */
        const double inv = rnd(1.0 / (dt == TN_DTYPE_F64 ? sqrt((double)dh) : rnd(sqrtf((float)rnd((double)dh, dt)), dt)), dt);
        const int isz = tn_dtype_itemsize(dt);
        const char *src = tn_data(tn_tensor_of(qc)), *bias = tn_data(tn_tensor_of(bc));
        char *o = tn_data(tn_tensor_of(buf));
        const int64_t part = B * nh * T * dh;
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t h = 0; h < nh; h++)
                for (int64_t t = 0; t < T; t++)
                    for (int64_t e = 0; e < dh; e++) {
                        int64_t d = h * dh + e, dst = ((bb * nh + h) * T + t) * dh + e;
                        for (int j = 0; j < 3; j++) {
                            double v = rnd(ld(src + (bb * D3 * T + t * D3 + d + j * D) * isz, dt) + ld(bias + (d + j * D) * isz, dt), dt);
                            st(o + (j * part + dst) * isz, dt, j ? v : v * inv);
                        }
                    }
        PyObject *v = tn_at_view(buf, TN_IS(3 * B, nh, T, dh));
        PyObject *parts = v ? tn_at_split_Tensor(v, B, 0) : NULL;
        if (parts && (res = PySequence_Tuple(parts)))
            for (Py_ssize_t i = 0; i < PyTuple_Size(res); i++) unview(PyTuple_GetItem(res, i));
        Py_XDECREF(v); Py_XDECREF(parts);
    }
    Py_XDECREF(qc); Py_XDECREF(bc); Py_XDECREF(buf);
    return res;
}

/* ---- the composites: upstream's steps through the typed op API */

/* _addmm_activation(self, mat1, mat2, *, beta=1, alpha=1, use_gelu=False) */
PyObject *tn_op__addmm_activation(tn_value *a) {
    PyObject *r = tn_at_addmm(a[0].u.obj, a[1].u.obj, a[2].u.obj, TN_SV(&a[3]), TN_SV(&a[4]));
    PyObject *act = r ? (a[5].u.i ? tn_at_gelu_(r, "none") : tn_at_relu_(r)) : NULL;
    if (!act) Py_CLEAR(r);
    Py_XDECREF(act);
    return r;
}

/* upstream's linear on a 2-d input: t + addmm */
static PyObject *linear2d(PyObject *x, PyObject *w, PyObject *b) {
    PyObject *wt = tn_at_t(w);
    PyObject *r = wt ? tn_at_addmm(b, x, wt, TN_SDEF, TN_SDEF) : NULL;
    Py_XDECREF(wt);
    return r;
}
/* gemm_nt: x @ w.t() for a 3-d x, as upstream's matmul folds it (reshape, mm, _unsafe_view) */
static PyObject *gemm_nt(PyObject *x, PyObject *w) {
    const tn_tensor *t = tn_tensor_of(x);
    int64_t B = t->sizes[0], T = t->sizes[1];
    PyObject *wt = tn_at_t(w);
    PyObject *x2 = wt ? tn_at_reshape(x, TN_IS(B * T, t->sizes[2])) : NULL;
    PyObject *p = x2 ? tn_at_mm(x2, wt) : NULL;
    PyObject *r = p ? tn_at__unsafe_view(p, TN_IS(B, T, tn_tensor_of(p)->sizes[1])) : NULL;
    Py_XDECREF(wt); Py_XDECREF(x2); Py_XDECREF(p);
    return r;
}
/* a (B, H, L, E) x b (B, H, E', S): the batches folded, bmm, unfolded to (B, H, L, S) */
static PyObject *bmm4(PyObject *a, PyObject *b, bool b_transposed) {
    const tn_tensor *x = tn_tensor_of(a), *y = tn_tensor_of(b);
    int64_t B = x->sizes[0], H = x->sizes[1];
    PyObject *a3 = tn_at_view(a, TN_IS(B * H, x->sizes[2], x->sizes[3]));
    PyObject *b3 = a3 ? (b_transposed ? tn_at_view(b, TN_IS(B * H, y->sizes[2], y->sizes[3]))
                                      : tn_at_reshape(b, TN_IS(B * H, y->sizes[2], y->sizes[3]))) : NULL;
    PyObject *bt = b3 && b_transposed ? tn_at_transpose_int(b3, 2, 1) : NULL;
    PyObject *c = b3 && (bt || !b_transposed) ? tn_at_bmm(a3, bt ? bt : b3) : NULL;
    PyObject *r = c ? tn_at_view(c, TN_IS(B, H, x->sizes[2], b_transposed ? y->sizes[2] : y->sizes[3])) : NULL;
    Py_XDECREF(a3); Py_XDECREF(b3); Py_XDECREF(bt); Py_XDECREF(c);
    return r;
}

/* a Tensor[] result as a tuple (the reference taken) */
static PyObject *seq_tuple(PyObject *seq) {
    PyObject *t = seq ? PySequence_Tuple(seq) : NULL;
    Py_XDECREF(seq);
    return t;
}

static int check_dim(const tn_tensor *t, int want, const char *what) {
    if (t->ndim == want) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected %d-D `%s`, got %d-D tensor", want, what, t->ndim);
    return -1;
}

/* _native_multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
 *     proj_weight, proj_bias, mask=None, need_weights=True, average_attn_weights=True,
 *     mask_type=None) -> (out, weights): upstream's native_multi_head_attention_cpu step by step:
 * the qkv projection (one product for self-attention, q / kv or q / k / v otherwise, then cat),
 * _transform_bias_rescale_qkv, q @ k^T, the (masked) softmax, @ v, heads merged, the output
 * projection; the weights averaged over heads when asked, None when not needed. */
PyObject *tn_op__native_multi_head_attention(tn_value *a) {
    PyObject *q = a[0].u.obj, *k = a[1].u.obj, *v = a[2].u.obj;
    const tn_tensor *qt = TN_T(a[0]), *kt = TN_T(a[1]), *vt = TN_T(a[2]), *wt = TN_T(a[5]), *bt = TN_T(a[6]);
    const int64_t D = a[3].u.i, H = a[4].u.i;
    if (check_dim(qt, 3, "query") < 0) return NULL;
    if (qt->sizes[2] != D) {
        PyErr_Format(PyExc_RuntimeError, "passed-in embed_dim %lld didn't match last dim of query %lld", (long long)D,
                     (long long)qt->sizes[2]);
        return NULL;
    }
    if (check_dim(kt, 3, "key") < 0 || check_dim(vt, 3, "value") < 0) return NULL;
    bool same = true;
    for (int i = 0; i < 3; i++) same = same && qt->sizes[i] == kt->sizes[i] && kt->sizes[i] == vt->sizes[i];
    if (!same) {
        PyErr_SetString(PyExc_RuntimeError, "expected `query`/`key`/`value` shapes to match");
        return NULL;
    }
    if (check_dim(wt, 2, "qkv_weight") < 0) return NULL;
    if (wt->sizes[0] != 3 * D || wt->sizes[1] != D) {
        PyErr_SetString(PyExc_RuntimeError, wt->sizes[0] != 3 * D ? "expected `qkv_weight` first dim to be 3x embed_dim"
                                                                  : "expected `qkv_weight` second dim to be embed_Dim");
        return NULL;
    }
    if (check_dim(bt, 1, "qkv_bias") < 0) return NULL;
    if (bt->sizes[0] != 3 * D) {
        PyErr_SetString(PyExc_RuntimeError, "expected `qkv_bias` first dim and first dim of query to be equal");
        return NULL;
    }
    if (H == 0 || D % H != 0) {
        PyErr_SetString(H == 0 ? PyExc_ZeroDivisionError : PyExc_RuntimeError,
                        H == 0 ? "ZeroDivisionError" : "`embed_dim` must divide evenly by `num_heads`");
        return NULL;
    }
    const bool need_weights = a[10].u.i, average = a[11].u.i;
    /* the qkv projection */
    PyObject *qkv = NULL;
    if (k == v) {
        if (q == k) {
            qkv = gemm_nt(q, a[5].u.obj);
        } else {
            PyObject *ws = seq_tuple(tn_at_split_with_sizes(a[5].u.obj, TN_IS(D, 2 * D), 0));
            PyObject *p1 = ws ? gemm_nt(q, PyTuple_GetItem(ws, 0)) : NULL;
            PyObject *p2 = p1 ? gemm_nt(k, PyTuple_GetItem(ws, 1)) : NULL;
            qkv = p2 ? tn_at_cat(TN_TS(p1, p2), 2) : NULL;
            Py_XDECREF(ws); Py_XDECREF(p1); Py_XDECREF(p2);
        }
    } else {
        PyObject *ws = seq_tuple(tn_at_chunk(a[5].u.obj, 3, 0));
        PyObject *p1 = ws ? gemm_nt(q, PyTuple_GetItem(ws, 0)) : NULL;
        PyObject *p2 = p1 ? gemm_nt(k, PyTuple_GetItem(ws, 1)) : NULL;
        PyObject *p3 = p2 ? gemm_nt(v, PyTuple_GetItem(ws, 2)) : NULL;
        qkv = p3 ? tn_at_cat(TN_TS(p1, p2, p3), 2) : NULL;
        Py_XDECREF(ws); Py_XDECREF(p1); Py_XDECREF(p2); Py_XDECREF(p3);
    }
    if (!qkv) return NULL;
    if (tn_numel(tn_tensor_of(qkv)) == 0) {
        Py_DECREF(qkv);
        PyObject *e = tn_at_empty_like(q, NULL, NULL, NULL, NULL, NULL);
        return e ? Py_BuildValue("(NO)", e, Py_None) : NULL;
    }
    PyObject *parts = tn_at__transform_bias_rescale_qkv(qkv, a[6].u.obj, H);
    Py_DECREF(qkv);
    if (!parts) return NULL;
    PyObject *qh = PyTuple_GetItem(parts, 0), *kh = PyTuple_GetItem(parts, 1), *vh = PyTuple_GetItem(parts, 2);
    PyObject *sc = bmm4(qh, kh, true), *mb = NULL, *w = NULL;
    if (sc && a[9].tag == TN_V_TENSOR) {
        PyObject *mask = a[9].u.obj;
        mb = tn_tensor_of(mask)->dtype == TN_DTYPE_BOOL ? Py_NewRef(mask)
                                                        : tn_at_to_dtype(mask, TN_DT(TN_DTYPE_BOOL), false, false, NULL);
        w = mb ? tn_at__masked_softmax(sc, mb, &(int64_t){tn_tensor_of(sc)->ndim - 1}, tn_opt_int_of(&a[12])) : NULL;
    } else if (sc) {
        w = tn_at__softmax(sc, tn_tensor_of(sc)->ndim - 1, false);
    }
    PyObject *ctx = w ? bmm4(w, vh, false) : NULL;
    /* heads merged: (B, H, T, dh) -> (B, T, H * dh), then the projection */
    PyObject *pm = ctx ? tn_at_permute(ctx, TN_IS(0, 2, 1, 3)) : NULL;
    PyObject *pc = pm ? tn_at_contiguous(pm, NULL) : NULL;
    const tn_tensor *ct = ctx ? tn_tensor_of(ctx) : NULL;
    PyObject *m3 = pc ? tn_at_view(pc, TN_IS(ct->sizes[0], ct->sizes[2], ct->sizes[1] * ct->sizes[3])) : NULL;
    PyObject *m2 = m3 ? tn_at_view(m3, TN_IS(ct->sizes[0] * ct->sizes[2], ct->sizes[1] * ct->sizes[3])) : NULL;
    PyObject *pr = m2 ? linear2d(m2, a[7].u.obj, a[8].u.obj) : NULL;
    PyObject *out = unview(pr ? tn_at_view(pr, TN_IS(ct->sizes[0], ct->sizes[2], tn_tensor_of(pr)->sizes[1])) : NULL);
    PyObject *res = NULL;
    if (out && need_weights && average) {
        PyObject *s = tn_at_sum_dim_IntList(w, TN_IS(1), false, NULL);
        PyObject *d = s ? tn_at_div__Scalar(s, TN_SI(H)) : NULL;
        res = d ? Py_BuildValue("(OO)", out, s) : NULL;
        Py_XDECREF(s); Py_XDECREF(d);
    } else if (out) {
        res = Py_BuildValue("(OO)", out, need_weights ? w : Py_None);
    }
    Py_DECREF(parts);
    Py_XDECREF(sc); Py_XDECREF(mb); Py_XDECREF(w); Py_XDECREF(ctx); Py_XDECREF(pm); Py_XDECREF(pc);
    Py_XDECREF(m3); Py_XDECREF(m2); Py_XDECREF(pr); Py_XDECREF(out);
    return res;
}

static PyObject *norm(PyObject *x, int64_t D, double eps, PyObject *w, PyObject *b) {
    return tn_at_layer_norm(x, TN_IS(D), w, b, eps, true);
}

/* upstream's ffn: x (B, T, D) viewed (B T, D), _addmm_activation with the first weight,
 * viewed back; then linear with the second (3-d input folded: view, t, addmm, view) */
static PyObject *ffn(PyObject *x, PyObject *w1, PyObject *b1, PyObject *w2, PyObject *b2, bool gelu) {
    const tn_tensor *t = tn_tensor_of(x);
    int64_t B = t->sizes[0], T = t->sizes[1];
    PyObject *x2 = tn_at_view(x, TN_IS(B * T, t->sizes[2]));
    PyObject *w1t = x2 ? tn_at_t(w1) : NULL;
    PyObject *h = w1t ? tn_at__addmm_activation(b1, x2, w1t, TN_SDEF, TN_SDEF, gelu) : NULL;
    PyObject *h3 = h ? tn_at_view(h, TN_IS(B, T, tn_tensor_of(h)->sizes[1])) : NULL;
    PyObject *h2 = h3 ? tn_at_view(h3, TN_IS(B * T, tn_tensor_of(h3)->sizes[2])) : NULL;
    PyObject *y = h2 ? linear2d(h2, w2, b2) : NULL;
    PyObject *r = y ? tn_at_view(y, TN_IS(B, T, tn_tensor_of(y)->sizes[1])) : NULL;
    Py_XDECREF(x2); Py_XDECREF(w1t); Py_XDECREF(h); Py_XDECREF(h3); Py_XDECREF(h2); Py_XDECREF(y);
    return r;
}

/* _transformer_encoder_layer_fwd(src, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight,
 *     proj_bias, use_gelu, norm_first, eps, norm_weight_1, norm_bias_1, norm_weight_2,
 *     norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2, ffn_bias_2, mask=None, mask_type=None):
 * [norm1] self-attention (weights not needed) += src [norm1], [norm2] ffn += its input [norm2]
 * (the norms before the blocks when norm_first, after them otherwise). */
PyObject *tn_op__transformer_encoder_layer_fwd(tn_value *a) {
    PyObject *src = a[0].u.obj;
    const int64_t D = a[1].u.i;
    const bool gelu = a[7].u.i, first = a[8].u.i;
    const double eps = a[9].u.f;
    PyObject *x = first ? norm(src, D, eps, a[10].u.obj, a[11].u.obj) : Py_NewRef(src);
    PyObject *att = NULL;
    if (x) {
        att = tn_at__native_multi_head_attention(x, x, x, D, a[2].u.i, a[3].u.obj, a[4].u.obj, a[5].u.obj, a[6].u.obj,
                                                 a[18].tag == TN_V_TENSOR ? a[18].u.obj : NULL, false, true,
                                                 tn_opt_int_of(&a[19]));
    }
    Py_XDECREF(x);
    if (!att) return NULL;
    x = Py_NewRef(PyTuple_GetItem(att, 0));
    Py_DECREF(att);
    PyObject *r = tn_at_add__Tensor(x, src, TN_SDEF);
    if (!r) { Py_DECREF(x); return NULL; }
    Py_DECREF(r);
    if (!first) Py_XSETREF(x, norm(x, D, eps, a[10].u.obj, a[11].u.obj));
    if (!x) return NULL;
    PyObject *pre = x;   /* the ffn's residual */
    PyObject *y = first ? norm(x, D, eps, a[12].u.obj, a[13].u.obj) : Py_NewRef(x);
    PyObject *f = y ? ffn(y, a[14].u.obj, a[15].u.obj, a[16].u.obj, a[17].u.obj, gelu) : NULL;
    Py_XDECREF(y);
    r = f ? tn_at_add__Tensor(f, pre, TN_SDEF) : NULL;
    Py_DECREF(pre);
    if (!r) { Py_XDECREF(f); return NULL; }
    Py_DECREF(r);
    if (!first) Py_XSETREF(f, norm(f, D, eps, a[12].u.obj, a[13].u.obj));
    return unview(f);
}
