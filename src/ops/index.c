/* ops/index.c — gathering and scattering by index: advanced indexing (index.Tensor, index_put_),
 * index_select, gather, scatter / scatter_add, masked_fill, masked_select, nonzero, take.
 *
 * All of them reduce to two plain-C loops over a strided iteration (core/iter.h): "gather"
 * (out = *(src + sum_k idx_k * stride_k)) and "put" (*(dst + sum_k idx_k * stride_k) = v, or +=).
 * The op layer restrides the source/destination (stride 0 along indexed dims), converts index
 * tensors to int64, checks every index against its bound (kernels cannot fail) and allocates the
 * output with the stride order upstream's TensorIterator gives it. */
#include "ops/views.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <stdlib.h>

#define MAX_IDX (TN_ITER_MAX_OPS - 2)

/* ---------- kernels ---------- */

typedef struct {
    int k, itemsize;
    tn_dtype dt;
    bool accumulate;
    bool multiply;            /* with accumulate: combine by product (scatter reduce='multiply') */
    int extreme;              /* with accumulate: 1 amax, -1 amin (scatter_reduce), NaN propagating */
    int64_t stride[MAX_IDX];  /* bytes */
    int64_t size[MAX_IDX];
} idx_ctx;

/* data = {out, src, idx_0..idx_k-1} */
static void gather_loop(char **data, const int64_t *st, int64_t n, const void *vctx) {
    const idx_ctx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        const char *s = data[1] + i * st[1];
        for (int j = 0; j < c->k; j++) {
            int64_t v;
            memcpy(&v, data[2 + j] + i * st[2 + j], 8);
            if (v < 0) v += c->size[j];
            s += v * c->stride[j];
        }
        memcpy(data[0] + i * st[0], s, (size_t)c->itemsize);
    }
}

/* *d = *d + *s, or *d * *s for scatter's reduce='multiply' (reduced floats widen and narrow once) */
static void add_into(tn_dtype dt, char *d, const char *s, bool mul) {
    switch (dt) {
#define ADD(T) { T a, b; memcpy(&a, d, sizeof a); memcpy(&b, s, sizeof b); a = mul ? (T)(a * b) : (T)(a + b); memcpy(d, &a, sizeof a); break; }
    case TN_DTYPE_F32: ADD(float)
    case TN_DTYPE_F64: ADD(double)
    case TN_DTYPE_I64: ADD(int64_t)
    case TN_DTYPE_I32: ADD(int32_t)
    case TN_DTYPE_I16: ADD(int16_t)
    case TN_DTYPE_I8: ADD(int8_t)
    case TN_DTYPE_U8: ADD(uint8_t)
#undef ADD
    case TN_DTYPE_BOOL: *d = mul ? (char)(*d && *s) : (char)(*d || *s); break;
    case TN_DTYPE_BF16: {
        uint16_t a, b;
        memcpy(&a, d, 2); memcpy(&b, s, 2);
        a = tn_f32_to_bf16(mul ? tn_bf16_to_f32(a) * tn_bf16_to_f32(b) : tn_bf16_to_f32(a) + tn_bf16_to_f32(b));
        memcpy(d, &a, 2);
        break;
    }
    case TN_DTYPE_F16: {
        uint16_t a, b;
        memcpy(&a, d, 2); memcpy(&b, s, 2);
        a = tn_f32_to_f16(mul ? tn_f16_to_f32(a) * tn_f16_to_f32(b) : tn_f16_to_f32(a) + tn_f16_to_f32(b));
        memcpy(d, &a, 2);
        break;
    }
    case TN_DTYPE_C64: {
        float a[2], b[2], r[2];
        memcpy(a, d, 8); memcpy(b, s, 8);
        if (mul) { r[0] = a[0] * b[0] - a[1] * b[1]; r[1] = a[0] * b[1] + a[1] * b[0]; }
        else { r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; }
        memcpy(d, r, 8);
        break;
    }
    case TN_DTYPE_C128: {
        double a[2], b[2], r[2];
        memcpy(a, d, 16); memcpy(b, s, 16);
        if (mul) { r[0] = a[0] * b[0] - a[1] * b[1]; r[1] = a[0] * b[1] + a[1] * b[0]; }
        else { r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; }
        memcpy(d, r, 16);
        break;
    }
    case TN_DTYPE_F8E4M3FN: case TN_DTYPE_F8E5M2: case TN_DTYPE_F8E4M3FNUZ: case TN_DTYPE_F8E5M2FNUZ: {
        /* c10's float8 operators: in float, rounded once */
        tn_loop ld = tn_cast_loop(TN_DTYPE_F32, dt), st = tn_cast_loop(dt, TN_DTYPE_F32);
        float a, b;
        int64_t z[2] = {0, 0};
        char *p1[2] = {(char *)&a, d}, *p2[2] = {(char *)&b, (char *)s};
        ld(p1, z, 1, NULL);
        ld(p2, z, 1, NULL);
        float r = mul ? a * b : a + b;
        char *p3[2] = {d, (char *)&r};
        st(p3, z, 1, NULL);
        break;
    }
    default: break;
    }
}

/* *d = max(*d, *s) (or min), as upstream's scatter_reduce: a NaN source wins, a NaN in d stays
 * (std::max / std::min keep the first operand on unordered compares) */
static void extreme_into(tn_dtype dt, char *d, const char *s, bool mx) {
    switch (dt) {
    case TN_DTYPE_F32: { float a, b; memcpy(&a, d, 4); memcpy(&b, s, 4); if (b != b || (mx ? a < b : b < a)) memcpy(d, &b, 4); break; }
    case TN_DTYPE_F64: { double a, b; memcpy(&a, d, 8); memcpy(&b, s, 8); if (b != b || (mx ? a < b : b < a)) memcpy(d, &b, 8); break; }
#define INT_EXT(T) { T a, b; memcpy(&a, d, sizeof a); memcpy(&b, s, sizeof b); if (mx ? a < b : b < a) memcpy(d, &b, sizeof b); break; }
    case TN_DTYPE_I64: INT_EXT(int64_t)
    case TN_DTYPE_I32: INT_EXT(int32_t)
    case TN_DTYPE_I16: INT_EXT(int16_t)
    case TN_DTYPE_I8: INT_EXT(int8_t)
    case TN_DTYPE_U8: INT_EXT(uint8_t)
    case TN_DTYPE_BOOL: INT_EXT(uint8_t)
#undef INT_EXT
    case TN_DTYPE_BF16: case TN_DTYPE_F16: {
        uint16_t a, b;
        memcpy(&a, d, 2); memcpy(&b, s, 2);
        float fa = dt == TN_DTYPE_BF16 ? tn_bf16_to_f32(a) : tn_f16_to_f32(a);
        float fb = dt == TN_DTYPE_BF16 ? tn_bf16_to_f32(b) : tn_f16_to_f32(b);
        if (fb != fb || (mx ? fa < fb : fb < fa)) memcpy(d, &b, 2);
        break;
    }
    default: break;
    }
}

/* data = {dst, values, idx_0..idx_k-1} */
static void put_loop(char **data, const int64_t *st, int64_t n, const void *vctx) {
    const idx_ctx *c = vctx;
    for (int64_t i = 0; i < n; i++) {
        char *d = data[0] + i * st[0];
        for (int j = 0; j < c->k; j++) {
            int64_t v;
            memcpy(&v, data[2 + j] + i * st[2 + j], 8);
            if (v < 0) v += c->size[j];
            d += v * c->stride[j];
        }
        if (c->accumulate && c->extreme) extreme_into(c->dt, d, data[1] + i * st[1], c->extreme > 0);
        else if (c->accumulate) add_into(c->dt, d, data[1] + i * st[1], c->multiply);
        else memcpy(d, data[1] + i * st[1], (size_t)c->itemsize);
    }
}

/* Run a loop over `ndim`/`shape` with operands given by address + element strides. Runs
 * single-threaded in order (index_put_ with duplicate indices relies on it). */
static void run_ops(tn_loop loop, const idx_ctx *c, int ndim, const int64_t *shape, int nops, char **data,
                    int64_t (*strides)[TN_MAX_DIMS], const int *isz) {
    tn_iter it;
    tn_iter_init(&it, nops, ndim, shape);
    for (int k = 0; k < nops; k++) tn_iter_set(&it, k, data[k], strides[k], isz[k]);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    if (n >= 65536) {
        Py_BEGIN_ALLOW_THREADS
        tn_iter_run(&it, loop, c);
        Py_END_ALLOW_THREADS
    } else {
        tn_iter_run(&it, loop, c);
    }
}

/* Element strides of tensor t broadcast (right-aligned) to nd dims. */
static void bcast_strides(const tn_tensor *t, int nd, const int64_t *shape, int64_t *st) {
    int lead = nd - t->ndim;
    for (int d = 0; d < nd; d++) {
        int td = d - lead;
        st[d] = (td < 0 || t->sizes[td] == 1 || shape[d] == 1) ? 0 : t->strides[td];
    }
}

/* Output strides the way upstream's TensorIterator orders dims for an output it allocates. */
void tn_ti_output_strides(int nd, const int64_t *shape, int nops, int64_t (*st)[TN_MAX_DIMS], int64_t *out) {
    int perm[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int cmp = 0, a = perm[d0], b = perm[d1];
            for (int k = 0; k < nops && !cmp; k++) {
                int64_t s0 = st[k][a], s1 = st[k][b];
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (shape[a] > shape[b]) cmp = 1;
            }
            if (cmp > 0) { int t = perm[d0]; perm[d0] = perm[d1]; perm[d1] = t; d1 = d0; }
            else if (cmp < 0) break;
        }
    }
    int64_t s = 1;
    for (int i = 0; i < nd; i++) {
        out[perm[i]] = s;
        s *= shape[perm[i]] > 1 ? shape[perm[i]] : 1;
    }
}

/* ---------- index helpers ---------- */

/* An int64 copy of an integral index tensor; `what` names the op for the dtype error. */
static PyObject *as_long_index(PyObject *t) {
    return tn_as_dtype(t, TN_DTYPE_I64, false);
}

/* Check every value of int64 tensor `idx` lies in [-size, size). Returns the first bad value
 * through *bad and -1, or 0. */
static int check_bounds(PyObject *idx, int64_t size, int64_t *bad) {
    tn_tensor *t = tn_tensor_of(idx);
    int64_t n = tn_numel(t);
    if (n == 0) return 0;
    PyObject *c = tn_as_dtype(idx, TN_DTYPE_I64, true);
    if (!c) return -2;
    const int64_t *p = (const int64_t *)tn_data(tn_tensor_of(c));
    int r = 0;
    for (int64_t i = 0; i < n; i++)
        if (p[i] < -size || p[i] >= size) { *bad = p[i]; r = -1; break; }
    Py_DECREF(c);
    return r;
}

/* Every value of int64 tensor `idx` in [0, size): -1 with the first bad value, -2 on error. */
static int check_nonneg_bounds(PyObject *idx, int64_t size, int64_t *bad) {
    int64_t n = tn_numel(tn_tensor_of(idx));
    if (n == 0) return 0;
    PyObject *c = tn_as_dtype(idx, TN_DTYPE_I64, true);
    if (!c) return -2;
    const int64_t *p = (const int64_t *)tn_data(tn_tensor_of(c));
    int r = 0;
    for (int64_t i = 0; i < n; i++)
        if (p[i] < 0 || p[i] >= size) { *bad = p[i]; r = -1; break; }
    Py_DECREF(c);
    return r;
}

/* nonzero as an int64 [n, ndim] tensor with upstream's (1, n) strides. */
static PyObject *nonzero_of(PyObject *x) {
    tn_tensor *t = tn_tensor_of(x);
    if (t->dtype != TN_DTYPE_C32 && tn_require_computable("nonzero", t->dtype) < 0) return NULL; /* complex32: upstream's too */
    PyObject *b = tn_as_dtype(x, TN_DTYPE_BOOL, true);
    if (!b) return NULL;
    int64_t total = tn_numel(t), n = 0;
    const char *p = tn_data(tn_tensor_of(b));
    for (int64_t i = 0; i < total; i++) n += p[i] != 0;
    int nd = t->ndim;
    int64_t alloc[2] = {nd, n};
    PyObject *r = tn_tensor_new_empty(2, alloc, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (!r) { Py_DECREF(b); return NULL; }
    int64_t *o = (int64_t *)tn_data(tn_tensor_of(r));
    int64_t coord[TN_MAX_DIMS] = {0}, j = 0;
    for (int64_t i = 0; i < total; i++) {
        if (p[i]) {
            for (int d = 0; d < nd; d++) o[d * n + j] = coord[d];
            j++;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++coord[d] < t->sizes[d]) break;
            coord[d] = 0;
        }
    }
    Py_DECREF(b);
    tn_tensor *rt = tn_tensor_of(r);
    rt->sizes[0] = n; rt->sizes[1] = nd;
    rt->strides[0] = 1; rt->strides[1] = n;
    return r;
}

/* ---------- advanced indexing ---------- */

typedef struct {
    PyObject *idx[TN_MAX_DIMS];   /* int64 index per source dim (NULL: not indexed); owned */
    PyObject *hold[TN_MAX_DIMS];  /* extra references (nonzero results) */
    int nhold;
    tn_tensor src;                /* source geometry, permuted so indexed dims are adjacent */
    int orig_dim[TN_MAX_DIMS];    /* source dim -> dim of the caller's tensor */
    int ndim;                     /* result ndim */
    int64_t shape[TN_MAX_DIMS];   /* result shape */
    int k;                        /* number of index operands */
    int64_t src_st[TN_MAX_DIMS];  /* source element strides over the result shape */
    int64_t idx_st[MAX_IDX][TN_MAX_DIMS];
    PyObject *ops[MAX_IDX];       /* borrowed from idx[] */
    idx_ctx ctx;
} adv_index;

static void adv_free(adv_index *ai) {
    for (int i = 0; i < TN_MAX_DIMS; i++) Py_CLEAR(ai->idx[i]);
    for (int i = 0; i < ai->nhold; i++) Py_CLEAR(ai->hold[i]);
}

/* The parser hands Tensor?[] over as a tuple; anything else (a None that slipped through) is a
 * TypeError, not a NULL to dereference. */
static int check_index_list(PyObject *list) {
    if (list && PyTuple_Check(list)) return 0;
    PyErr_SetString(PyExc_TypeError, "indices must be a tuple of Tensors or None, not NoneType");
    return -1;
}

static int adv_prepare(PyObject *self, PyObject *list, adv_index *ai) {
    tn_tensor *t = tn_tensor_of(self);
    memset(ai, 0, sizeof *ai);
    if (check_index_list(list) < 0) return -1;
    Py_ssize_t n = PySequence_Size(list);
    if (n < 0) return -1;
    int dim = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GetItem(list, i);
        if (e == Py_None) { dim++; continue; }
        tn_tensor *it = tn_tensor_of(e);
        if (it->dtype == TN_DTYPE_BOOL || it->dtype == TN_DTYPE_U8) {
            if (it->dtype == TN_DTYPE_U8 &&
                PyErr_WarnEx(PyExc_UserWarning, "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.", 1) < 0)
                return -1;
            if (dim + it->ndim > t->ndim) {
                PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", t->ndim);
                return -1;
            }
            for (int j = 0; j < it->ndim; j++)
                if (it->sizes[j] != t->sizes[dim + j]) {
                    char b1[256], b2[256];
                    tn_shape_str(b1, sizeof b1, it->ndim, it->sizes);
                    tn_shape_str(b2, sizeof b2, t->ndim, t->sizes);
                    PyErr_Format(PyExc_IndexError,
                                 "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
                                 b1, j, b2, dim + j);
                    return -1;
                }
            PyObject *nz = nonzero_of(e);
            if (!nz) return -1;
            ai->hold[ai->nhold++] = nz;
            tn_tensor *zt = tn_tensor_of(nz);
            for (int j = 0; j < it->ndim; j++) {
                int64_t sz = zt->sizes[0], st = zt->strides[0];
                PyObject *col = tn_tensor_new_view(nz, 1, &sz, &st, zt->offset + j * zt->strides[1]);
                if (!col) return -1;
                ai->idx[dim++] = col;
            }
            if (it->ndim == 0) { /* a 0-dim mask: handled by callers as unsqueeze; treat as full */
            }
            continue;
        }
        if (!tn_dtype_is_integral(it->dtype, false)) {
            PyErr_SetString(PyExc_IndexError, "tensors used as indices must be long, int, byte or bool tensors");
            return -1;
        }
        if (dim >= t->ndim) {
            PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", t->ndim);
            return -1;
        }
        ai->idx[dim] = as_long_index(e);
        if (!ai->idx[dim]) return -1;
        dim++;
    }
    if (dim > t->ndim) {
        PyErr_Format(PyExc_IndexError, "too many indices for tensor of dimension %d", t->ndim);
        return -1;
    }
    /* bounds, broadcast */
    const tn_tensor *ts[TN_MAX_DIMS];
    int nt = 0, first = -1, last = -1;
    bool gap = false;
    for (int d = 0; d < t->ndim; d++) {
        if (!ai->idx[d]) continue;
        int64_t bad;
        int r = check_bounds(ai->idx[d], t->sizes[d], &bad);
        if (r == -2) return -1;
        if (r < 0) {
            PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension %d with size %lld",
                         (long long)bad, d, (long long)t->sizes[d]);
            return -1;
        }
        if (first < 0) first = d;
        else if (last != d - 1) gap = true;
        last = d;
        ts[nt++] = tn_tensor_of(ai->idx[d]);
    }
    if (nt == 0) return tn_not_implemented("advanced indexing whose only index is a 0-dim bool mask"), -1;
    if (nt > MAX_IDX) return tn_not_implemented("advanced indexing with more than 6 index tensors"), -1;
    int bnd;
    int64_t bshape[TN_MAX_DIMS];
    {
        int nd = 0;
        for (int i = 0; i < nt; i++) {
            int64_t tmp[TN_MAX_DIMS];
            int kk;
            if (!tn_broadcast_shapes(nd, bshape, ts[i]->ndim, ts[i]->sizes, &kk, tmp)) {
                char buf[1024];
                size_t off = 0;
                for (int j = 0; j < nt && off < sizeof buf; j++) {
                    char b[256];
                    tn_shape_str(b, sizeof b, ts[j]->ndim, ts[j]->sizes);
                    off += (size_t)snprintf(buf + off, sizeof buf - off, j ? ", %s" : "%s", b);
                }
                PyErr_Format(PyExc_IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes %s", buf);
                return -1;
            }
            nd = kk;
            memcpy(bshape, tmp, (size_t)kk * sizeof *tmp);
        }
        bnd = nd;
    }
    /* permute the source so indexed dims come first when they are not adjacent */
    int order[TN_MAX_DIMS], no = 0;
    if (gap) {
        for (int d = 0; d < t->ndim; d++) if (ai->idx[d]) order[no++] = d;
        for (int d = 0; d < t->ndim; d++) if (!ai->idx[d]) order[no++] = d;
        first = 0;
    } else {
        for (int d = 0; d < t->ndim; d++) order[no++] = d;
    }
    ai->src = *t;
    PyObject *pidx[TN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        ai->src.sizes[d] = t->sizes[order[d]];
        ai->src.strides[d] = t->strides[order[d]];
        ai->orig_dim[d] = order[d];
        pidx[d] = ai->idx[order[d]];
    }
    /* result: before dims, broadcast index shape, after dims */
    int rd = 0;
    int isz = tn_dtype_itemsize(t->dtype);
    for (int d = 0; d < first; d++) { ai->shape[rd] = ai->src.sizes[d]; ai->src_st[rd] = ai->src.strides[d]; rd++; }
    int bstart = rd;
    if (first + nt > TN_MAX_DIMS || rd + bnd + (t->ndim - first - nt) > TN_MAX_DIMS)
        return tn_not_implemented("advanced indexing results of more than " TN_MAX_DIMS_S " dimensions"), -1;
    for (int j = 0; j < bnd; j++) { ai->shape[rd] = bshape[j]; ai->src_st[rd] = 0; rd++; }
    for (int d = first + nt; d < t->ndim; d++) { ai->shape[rd] = ai->src.sizes[d]; ai->src_st[rd] = ai->src.strides[d]; rd++; }
    ai->ndim = rd;
    ai->k = nt;
    ai->ctx.k = nt;
    ai->ctx.itemsize = isz;
    ai->ctx.dt = t->dtype;
    for (int j = 0; j < nt; j++) {
        PyObject *ix = pidx[first + j];
        tn_tensor *xt = tn_tensor_of(ix);
        ai->ops[j] = ix;
        ai->ctx.stride[j] = ai->src.strides[first + j] * isz;
        ai->ctx.size[j] = ai->src.sizes[first + j];
        int64_t bst[TN_MAX_DIMS];
        bcast_strides(xt, bnd, bshape, bst);
        for (int d = 0; d < rd; d++) ai->idx_st[j][d] = 0;
        for (int d = 0; d < bnd; d++) ai->idx_st[j][bstart + d] = bst[d];
    }
    return 0;
}

static PyObject *index_tensor(PyObject *self, PyObject *list) {
    adv_index ai;
    tn_dtype sdt = tn_tensor_of(self)->dtype; /* moves bytes: upstream's index runs for uint16/32/64 and float8 too */
    if (!tn_dtype_barebones(sdt) && sdt != TN_DTYPE_C32 && tn_require_computable("index", sdt) < 0) return NULL;
    if (list && PyTuple_Check(list) && PyTuple_Size(list) == 0) {   /* aten.index(x, []), _unsafe_masked_index */
        PyErr_SetString(PyExc_IndexError, "at least one index must be provided");
        return NULL;
    }
    if (adv_prepare(self, list, &ai) < 0) { adv_free(&ai); return NULL; }
    int nops = 2 + ai.k;
    int64_t st[TN_ITER_MAX_OPS][TN_MAX_DIMS];
    int isz[TN_ITER_MAX_OPS];
    char *data[TN_ITER_MAX_OPS];
    int itemsize = ai.ctx.itemsize;
    /* stride order as upstream's iterator: operands are the restrided source and the indices */
    int64_t ord[1 + MAX_IDX][TN_MAX_DIMS];
    for (int d = 0; d < ai.ndim; d++) {
        ord[0][d] = ai.src_st[d] * itemsize;
        for (int j = 0; j < ai.k; j++) ord[1 + j][d] = ai.idx_st[j][d] * 8;
    }
    int64_t ost[TN_MAX_DIMS];
    tn_ti_output_strides(ai.ndim, ai.shape, 1 + ai.k, ord, ost);
    PyObject *out = tn_tensor_new_empty(ai.ndim, ai.shape, ai.src.dtype, TN_DEVICE_CPU);
    if (!out) { adv_free(&ai); return NULL; }
    tn_tensor *o = tn_tensor_of(out);
    memcpy(o->strides, ost, (size_t)ai.ndim * sizeof *ost);
    data[0] = tn_data(o); memcpy(st[0], ost, sizeof ost); isz[0] = itemsize;
    data[1] = tn_data(&ai.src); memcpy(st[1], ai.src_st, sizeof ai.src_st); isz[1] = itemsize;
    for (int j = 0; j < ai.k; j++) {
        data[2 + j] = tn_data(tn_tensor_of(ai.ops[j]));
        memcpy(st[2 + j], ai.idx_st[j], sizeof st[0]);
        isz[2 + j] = 8;
    }
    if (tn_numel(o) > 0 && data[1]) run_ops(gather_loop, &ai.ctx, ai.ndim, ai.shape, nops, data, st, isz);
    adv_free(&ai);
    return out;
}

PyObject *tn_op_index_Tensor(tn_value *a) { return index_tensor(a[0].u.obj, a[1].u.obj); }
PyObject *tn_op__unsafe_index_Tensor(tn_value *a) { return index_tensor(a[0].u.obj, a[1].u.obj); }

PyObject *tn_op_index_Tensor_out(tn_value *a) {
    PyObject *r = index_tensor(a[0].u.obj, a[1].u.obj);
    if (!r) return NULL;
    tn_tensor *rt = tn_tensor_of(r);
    int ok = tn_out_prepare(a[2].u.obj, rt->ndim, rt->sizes, rt->dtype, "index");
    if (ok == 0) ok = tn_copy_into(a[2].u.obj, r);
    Py_DECREF(r);
    return ok < 0 ? NULL : Py_NewRef(a[2].u.obj);
}

static bool is_f8_with_put(tn_dtype d) {
    return tn_dtype_infos[d].kind == TN_KIND_FLOAT8 && d != TN_DTYPE_F8E8M0FNU;
}

static PyObject *index_put(PyObject *self, PyObject *list, PyObject *values, bool accumulate) {
    tn_tensor *t = tn_tensor_of(self), *v = tn_tensor_of(values);
    /* upstream's index_put kernel covers the float8 formats but float8_e8m0fnu (accumulating: adds
     * in float, rounded each time); not uint16/32/64 */
    if (tn_dtype_barebones(t->dtype) && !is_f8_with_put(t->dtype)) return tn_kernel_missing("index_put", t->dtype);
    if (!tn_dtype_barebones(t->dtype) && tn_require_computable("index_put_", t->dtype) < 0) return NULL;
    if (t->dtype != v->dtype) {
        PyErr_Format(PyExc_RuntimeError,
                     "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                     tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(v->dtype));
        return NULL;
    }
    /* all-None index list: copy values into self */
    if (check_index_list(list) < 0) return NULL;
    Py_ssize_t n = PySequence_Size(list);
    bool any = false;
    for (Py_ssize_t i = 0; i < n; i++) if (PyTuple_GetItem(list, i) != Py_None) any = true;
    if (!any) {
        if (tn_copy_into(self, values) < 0) return NULL;
        return Py_NewRef(self);
    }
    adv_index ai;
    if (adv_prepare(self, list, &ai) < 0) { adv_free(&ai); return NULL; }
    int64_t tmp[TN_MAX_DIMS];
    int kk;
    if (!tn_broadcast_shapes(ai.ndim, ai.shape, v->ndim, v->sizes, &kk, tmp) || kk != ai.ndim ||
        memcmp(tmp, ai.shape, (size_t)kk * sizeof *tmp) != 0) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, v->ndim, v->sizes);
        tn_shape_str(b2, sizeof b2, ai.ndim, ai.shape);
        PyErr_Format(PyExc_RuntimeError, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", b1, b2);
        adv_free(&ai);
        return NULL;
    }
    /* values may overlap self: copy them first */
    PyObject *vals = tn_storage_root(v->storage) == tn_storage_root(t->storage) ? tn_clone_contiguous(values) : Py_NewRef(values);
    if (!vals) { adv_free(&ai); return NULL; }
    ai.ctx.accumulate = accumulate;
    ai.ctx.multiply = false;
    int nops = 2 + ai.k, itemsize = ai.ctx.itemsize;
    int64_t st[TN_ITER_MAX_OPS][TN_MAX_DIMS];
    int isz[TN_ITER_MAX_OPS];
    char *data[TN_ITER_MAX_OPS];
    data[0] = tn_data(&ai.src); memcpy(st[0], ai.src_st, sizeof st[0]); isz[0] = itemsize;
    data[1] = tn_data(tn_tensor_of(vals)); bcast_strides(tn_tensor_of(vals), ai.ndim, ai.shape, st[1]); isz[1] = itemsize;
    for (int j = 0; j < ai.k; j++) {
        data[2 + j] = tn_data(tn_tensor_of(ai.ops[j]));
        memcpy(st[2 + j], ai.idx_st[j], sizeof st[0]);
        isz[2 + j] = 8;
    }
    int64_t total = 1;
    for (int d = 0; d < ai.ndim; d++) total *= ai.shape[d];
    if (total > 0 && data[0]) run_ops(put_loop, &ai.ctx, ai.ndim, ai.shape, nops, data, st, isz);
    t->storage->version++;
    Py_DECREF(vals);
    adv_free(&ai);
    return Py_NewRef(self);
}

PyObject *tn_op_index_put_(tn_value *a) { return index_put(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.i != 0); }
PyObject *tn_op__index_put_impl_(tn_value *a) { return index_put(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.i != 0); }
PyObject *tn_op_index_put(tn_value *a) {
    PyObject *c = tn_clone_contiguous(a[0].u.obj);
    if (!c) return NULL;
    PyObject *r = index_put(c, a[1].u.obj, a[2].u.obj, a[3].u.i != 0);
    Py_DECREF(c);
    return r;
}


/* ---------- index_select / gather / scatter ---------- */

static PyObject *index_select(PyObject *self, int64_t dim, PyObject *index, PyObject *out) {
    tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(index);
    int64_t d;
    if (tn_wrap_dim(dim, t->ndim, &d) < 0) return NULL;
    if (it->ndim > 1) { PyErr_SetString(PyExc_IndexError, "index_select(): Index is supposed to be a vector"); return NULL; }
    if (t->ndim == 0 && tn_numel(it) != 1) {
        PyErr_Format(PyExc_RuntimeError, "index_select(): Index to scalar can have only 1 value, got %lld value(s)",
                     (long long)tn_numel(it));
        return NULL;
    }
    if (it->dtype != TN_DTYPE_I64 && it->dtype != TN_DTYPE_I32) {
        PyErr_SetString(PyExc_RuntimeError, "index_select(): Expected dtype int32 or int64 for index");
        return NULL;
    }
    if (out && tn_tensor_of(out)->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "index_select(): self and result must have the same scalar type");
        return NULL;
    }
    PyObject *ins[2] = {self, index};
    if (out && tn_check_no_overlap(out, 2, ins) < 0) return NULL;   /* upstream's assert_no_overlap */
    if (tn_dtype_barebones(t->dtype) && tn_dtype_infos[t->dtype].kind != TN_KIND_FLOAT8)
        return tn_kernel_missing("index_select", t->dtype);   /* upstream's covers float8 and complex32, not uint16/32/64 */
    if (!tn_dtype_barebones(t->dtype) && t->dtype != TN_DTYPE_C32 && tn_require_computable("index_select", t->dtype) < 0)
        return NULL;
    int64_t size = t->ndim ? t->sizes[d] : 1, bad;
    /* upstream's CPU kernel (measured on 2.13): a self of 2+ dims with no elements checks the
     * indices by its own words (RuntimeError), as does its dim-1 path (into a contiguous result,
     * as resized); the others raise IndexError */
    bool empty_self = t->ndim > 1 && tn_numel(t) == 0 && tn_numel(it) > 0;
    if (empty_self && size == 0) {
        PyErr_SetString(PyExc_RuntimeError, "index_select(): self indexing axis dim should be positive");
        return NULL;
    }
    bool own_words = empty_self;
    if (t->ndim > 1 && d == 1) {
        const tn_tensor *ot = out ? tn_tensor_of(out) : NULL;
        bool resized = ot && (ot->ndim != t->ndim || ot->sizes[1] != tn_numel(it) || ot->sizes[0] != t->sizes[0]);
        for (int k = 2; ot && !resized && k < t->ndim; k++) resized = ot->sizes[k] != t->sizes[k];
        own_words = own_words || !ot || resized || tn_is_contiguous(ot);
    }
    PyObject *idx = as_long_index(index);
    if (!idx) return NULL;
    int r = check_nonneg_bounds(idx, size, &bad);
    if (r < 0) {
        Py_DECREF(idx);
        if (r == -1 && !own_words) PyErr_SetString(PyExc_IndexError, "index out of range in self");
        else if (r == -1)
            PyErr_Format(PyExc_RuntimeError, "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld",
                         (long long)bad, (long long)size);
        return NULL;
    }
    int64_t n = tn_numel(tn_tensor_of(idx));
    int nd = t->ndim;
    int64_t shape[TN_MAX_DIMS];
    memcpy(shape, t->sizes, (size_t)nd * sizeof *shape);
    if (nd) shape[d] = n;
    PyObject *res = tn_tensor_new_empty(nd, shape, t->dtype, TN_DEVICE_CPU);
    if (!res) { Py_DECREF(idx); return NULL; }
    tn_tensor *o = tn_tensor_of(res), *xt = tn_tensor_of(idx);
    int isz = tn_dtype_itemsize(t->dtype);
    idx_ctx c = {.k = 1, .itemsize = isz, .dt = t->dtype};
    c.stride[0] = nd ? t->strides[d] * isz : 0;
    c.size[0] = size;
    int64_t st[3][TN_MAX_DIMS];
    int iz[3] = {isz, isz, 8};
    char *data[3] = {tn_data(o), tn_data(t), tn_data(xt)};
    memcpy(st[0], o->strides, sizeof st[0]);
    memcpy(st[1], t->strides, sizeof st[1]);
    for (int k = 0; k < nd; k++) st[2][k] = 0;
    if (nd) { st[1][d] = 0; st[2][d] = xt->ndim ? xt->strides[0] : 0; }
    if (tn_numel(o) > 0) run_ops(gather_loop, &c, nd, shape, 3, data, st, iz);
    Py_DECREF(idx);
    if (!out) return res;
    int ok = tn_out_prepare(out, nd, shape, t->dtype, "index_select");
    if (ok == 0) ok = tn_copy_into(out, res);
    Py_DECREF(res);
    return ok < 0 ? NULL : Py_NewRef(out);
}

PyObject *tn_op_index_select(tn_value *a) { return index_select(a[0].u.obj, a[1].u.i, a[2].u.obj, NULL); }
PyObject *tn_op_index_select_out(tn_value *a) { return index_select(a[0].u.obj, a[1].u.i, a[2].u.obj, a[3].u.obj); }

static int gs_check(const char *op, tn_tensor *t, int64_t d, tn_tensor *it, tn_tensor *src, bool is_scatter) {
    if (tn_numel(it) == 0) return 0;   /* upstream checks nothing, the index dtype included, for an empty index */
    if (it->dtype != TN_DTYPE_I64 && it->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected dtype int32/int64 for index", op);
        return -1;
    }
    int tnd = t->ndim ? t->ndim : 1, ind = it->ndim ? it->ndim : 1;
    if (tn_numel(it) == 0) return 0;
    if (ind != tnd) {
        PyErr_Format(PyExc_RuntimeError, "Index tensor must have the same number of dimensions as %s tensor",
                     is_scatter ? "self" : "input");
        return -1;
    }
    /* upstream's scatter_shape_check: index against self apart from dim, then (if that fits) against
     * src over self's dims — reading src.size(k) (an IndexError when src has fewer) —, then src's rank */
    int badk = -1;
    for (int k = 0; k < it->ndim && badk < 0; k++)
        if (k != d && it->sizes[k] > (t->ndim ? t->sizes[k] : 1)) badk = k;
    for (int k = 0; src && badk < 0 && k < it->ndim; k++) {
        int64_t w;
        if (src->ndim && tn_wrap_dim(k, src->ndim, &w) < 0) return -1;
        if (it->sizes[k] > (src->ndim ? src->sizes[k] : 1)) badk = k;
    }
    if (src && (src->ndim ? src->ndim : 1) != ind) {
        PyErr_SetString(PyExc_RuntimeError, "Index tensor must have the same number of dimensions as src tensor");
        return -1;
    }
    if (badk >= 0) {
        char b1[256], b2[256], b3[256];
        tn_shape_str(b1, sizeof b1, it->ndim, it->sizes);
        tn_shape_str(b2, sizeof b2, t->ndim, t->sizes);
        if (is_scatter && src) {
            tn_shape_str(b3, sizeof b3, src->ndim, src->sizes);
            PyErr_Format(PyExc_RuntimeError,
                         "Expected index %s to be no larger than self %s apart from dimension %lld and to be no larger size than src %s",
                         b1, b2, (long long)d, b3);
        } else {
            PyErr_Format(PyExc_RuntimeError,
                         "Size does not match at dimension %d expected index %s to be no larger than self %s apart from dimension %lld",
                         badk, b1, b2, (long long)d);
        }
        return -1;
    }
    return 0;
}

static PyObject *gather_impl(PyObject *self, int64_t dim, PyObject *index, PyObject *out) {
    tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(index);
    int64_t d;
    if (tn_wrap_dim(dim, t->ndim, &d) < 0) return NULL;
    /* the structured out='s checks after the dim wrap: self's dtype exactly, then (on out= as
     * resized to index's shape: here when no resize, after it below) no internal overlap, none
     * with self, no partial one with index (measured) */
    if (out && tn_out_dtype_exact(out, t->dtype) < 0) return NULL;
    const tn_tensor *ot0 = out ? tn_tensor_of(out) : NULL;
    if (out && ot0->ndim == it->ndim && !memcmp(ot0->sizes, it->sizes, (size_t)it->ndim * sizeof *it->sizes) &&
        (tn_check_no_overlap(out, 1, &self) < 0 || tn_check_overlap(out, 1, &index) < 0))
        return NULL;
    if (gs_check("gather", t, d, it, NULL, false) < 0) return NULL;
    if (tn_require_computable("gather", t->dtype) < 0) return NULL;
    int64_t size = t->ndim ? t->sizes[d] : 1, bad;
    int r = check_nonneg_bounds(index, size, &bad);
    if (r == -2) return NULL;
    if (r < 0) {
        PyErr_Format(PyExc_RuntimeError, "index %lld is out of bounds for dimension %lld with size %lld",
                     (long long)bad, (long long)d, (long long)size);
        return NULL;
    }
    PyObject *lidx = as_long_index(index);
    if (!lidx) return NULL;
    it = tn_tensor_of(lidx);
    int nd = it->ndim;
    PyObject *res = tn_tensor_new_empty(nd, it->sizes, t->dtype, TN_DEVICE_CPU);
    if (!res) { Py_DECREF(lidx); return NULL; }
    tn_tensor *o = tn_tensor_of(res);
    int isz = tn_dtype_itemsize(t->dtype);
    idx_ctx c = {.k = 1, .itemsize = isz, .dt = t->dtype};
    c.stride[0] = t->ndim ? t->strides[d] * isz : 0;
    c.size[0] = size;
    int64_t st[3][TN_MAX_DIMS];
    int iz[3] = {isz, isz, 8};
    char *data[3] = {tn_data(o), tn_data(t), tn_data(it)};
    memcpy(st[0], o->strides, sizeof st[0]);
    memcpy(st[1], t->strides, sizeof st[1]);
    memcpy(st[2], it->strides, sizeof st[2]);
    if (nd) st[1][d] = 0;
    if (tn_numel(o) > 0) run_ops(gather_loop, &c, nd, it->sizes, 3, data, st, iz);
    Py_DECREF(lidx); /* `it` dies with it (an int32 index was converted): use o's sizes below */
    if (!out) return res;
    int ok = tn_out_prepare(out, o->ndim, o->sizes, t->dtype, "gather");
    if (ok == 0) ok = tn_check_no_overlap(out, 1, &self);
    if (ok == 0) ok = tn_copy_into(out, res);
    Py_DECREF(res);
    return ok < 0 ? NULL : Py_NewRef(out);
}

PyObject *tn_op_gather(tn_value *a) { return gather_impl(a[0].u.obj, a[1].u.i, a[2].u.obj, NULL); }
PyObject *tn_op_gather_out(tn_value *a) { return gather_impl(a[0].u.obj, a[1].u.i, a[2].u.obj, a[4].u.obj); }

/* scatter into `dst` (modified in place). src: a tensor (same dtype) or NULL with `value`. */
static int scatter_into_ex(PyObject *dst, int64_t dim, PyObject *index, PyObject *src, const tn_value *value,
                           bool accumulate, bool multiply, int extreme, const char *op);
static int scatter_into(PyObject *dst, int64_t dim, PyObject *index, PyObject *src, const tn_value *value,
                        bool accumulate, bool multiply, const char *op) {
    return scatter_into_ex(dst, dim, index, src, value, accumulate, multiply, 0, op);
}
/* upstream's scatter_meta_impl checks: dim, dtypes, shapes (worded "scatter()" for every scatter
 * variant, scatter_add and scatter_reduce included, as upstream's) */
static int scatter_meta(tn_tensor *t, int64_t dim, PyObject *index, PyObject *src, int64_t *d) {
    if (tn_wrap_dim(dim, t->ndim, d) < 0) return -1;
    if (src && tn_tensor_of(src)->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype");
        return -1;
    }
    return gs_check("scatter", t, *d, tn_tensor_of(index), src ? tn_tensor_of(src) : NULL, true);
}

static int scatter_into_ex(PyObject *dst, int64_t dim, PyObject *index, PyObject *src, const tn_value *value,
                           bool accumulate, bool multiply, int extreme, const char *op) {
    tn_tensor *t = tn_tensor_of(dst), *it = tn_tensor_of(index);
    int64_t d;
    if (scatter_meta(t, dim, index, src, &d) < 0) return -1;
    if (tn_require_computable(op, t->dtype) < 0) return -1;
    int64_t size = t->ndim ? t->sizes[d] : 1, bad;
    int r = check_nonneg_bounds(index, size, &bad);
    if (r == -2) return -1;
    if (r < 0) {
        PyErr_Format(PyExc_RuntimeError, "index %lld is out of bounds for dimension %lld with size %lld",
                     (long long)bad, (long long)d, (long long)size);
        return -1;
    }
    /* the kernel's value.to<scalar_t>(), after its index checks (measured) */
    if (!src && value->tag != TN_V_TENSOR && !tn_door_on_meta() && tn_cr_check_scalar(value, t->dtype) < 0)
        return -1; /* (a meta call runs no kernel) */
    if (accumulate && (t->dtype == TN_DTYPE_BF16 || t->dtype == TN_DTYPE_F16)) {
        /* upstream accumulates reduced floats in a float buffer and rounds once at the end */
        PyObject *wd = tn_as_dtype(dst, TN_DTYPE_F32, true), *ws = wd && src ? tn_as_dtype(src, TN_DTYPE_F32, true) : NULL;
        if (wd == dst) { Py_DECREF(wd); wd = tn_clone_contiguous(dst); }
        int rc = !wd || (src && !ws) ? -1 : scatter_into_ex(wd, dim, index, ws, value, accumulate, multiply, extreme, op);
        if (!rc) rc = tn_copy_into(dst, wd);
        if (!rc) t->storage->version++;
        Py_XDECREF(wd);
        Py_XDECREF(ws);
        return rc;
    }
    PyObject *s;
    if (src) {
        s = tn_storage_root(tn_tensor_of(src)->storage) == tn_storage_root(t->storage) ? tn_clone_contiguous(src) : Py_NewRef(src);
    } else {
        s = tn_tensor_new_empty(0, NULL, t->dtype, TN_DEVICE_CPU);
        if (s && tn_fill_number(s, value) < 0) Py_CLEAR(s);
    }
    if (!s) return -1;
    PyObject *lidx = as_long_index(index);
    if (!lidx) { Py_DECREF(s); return -1; }
    it = tn_tensor_of(lidx);
    tn_tensor *stn = tn_tensor_of(s);
    int nd = it->ndim, isz = tn_dtype_itemsize(t->dtype);
    idx_ctx c = {.k = 1, .itemsize = isz, .dt = t->dtype, .accumulate = accumulate, .multiply = multiply, .extreme = extreme};
    c.stride[0] = t->ndim ? t->strides[d] * isz : 0;
    c.size[0] = size;
    int64_t st[3][TN_MAX_DIMS];
    int iz[3] = {isz, isz, 8};
    char *data[3] = {tn_data(t), tn_data(stn), tn_data(it)};
    memcpy(st[0], t->strides, sizeof st[0]);
    if (nd) st[0][d] = 0;
    if (src) memcpy(st[1], stn->strides, sizeof st[1]);
    else for (int k = 0; k < TN_MAX_DIMS; k++) st[1][k] = 0;
    memcpy(st[2], it->strides, sizeof st[2]);
    if (tn_numel(it) > 0) run_ops(put_loop, &c, nd, it->sizes, 3, data, st, iz);
    t->storage->version++;
    Py_DECREF(s);
    Py_DECREF(lidx);
    return 0;
}

static int reduce_mode(const tn_value *v, bool *acc, bool *mul) {
    const char *m = PyUnicode_AsUTF8AndSize(v->u.obj, NULL);
    if (!m) return -1;
    if (!strcmp(m, "add")) { *acc = true; return 0; }
    if (!strcmp(m, "multiply")) { *acc = *mul = true; return 0; }
    PyErr_Format(PyExc_RuntimeError, "reduce argument must be either add or multiply.");
    return -1;
}

static PyObject *scatter_op(tn_value *a, bool is_src, const tn_value *reduce, bool inplace, PyObject *out, bool add) {
    bool acc = add, mul = false;
    if (reduce && reduce_mode(reduce, &acc, &mul) < 0) {   /* upstream checks the reduce after its meta checks */
        int64_t d;
        PyErr_Clear();
        if (scatter_meta(tn_tensor_of(a[0].u.obj), a[1].u.i, a[2].u.obj, is_src ? a[3].u.obj : NULL, &d) == 0)
            reduce_mode(reduce, &acc, &mul);
        return NULL;
    }
    if (reduce && is_src &&
        PyErr_WarnEx(PyExc_UserWarning, "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future PyTorch release. Use torch.scatter_reduce instead for more reduction options.", 1) < 0)
        return NULL;
    PyObject *self = a[0].u.obj;
    const char *op = add ? "scatter_add" : "scatter";
    if (out) { /* structured out=: the meta checks, the out's overlap, then its dtype, before the kernel */
        int64_t d;
        PyObject *given[2] = {a[2].u.obj, is_src ? a[3].u.obj : NULL}; /* self may overlap */
        if (scatter_meta(tn_tensor_of(self), a[1].u.i, a[2].u.obj, is_src ? a[3].u.obj : NULL, &d) < 0 ||
            tn_check_overlap(out, 2, given) < 0 || tn_out_dtype_exact(out, tn_tensor_of(self)->dtype) < 0)
            return NULL;
    }
    if (inplace) { /* structured in-place: the meta checks, then self's internal overlap (measured) */
        int64_t d;
        if (scatter_meta(tn_tensor_of(self), a[1].u.i, a[2].u.obj, is_src ? a[3].u.obj : NULL, &d) < 0 ||
            tn_check_overlap(self, 0, NULL) < 0)
            return NULL;
    }
    PyObject *dst = inplace ? Py_NewRef(self) : tn_clone_contiguous(self);
    if (!dst) return NULL;
    if (scatter_into(dst, a[1].u.i, a[2].u.obj, is_src ? a[3].u.obj : NULL, &a[3], acc, mul, op) < 0) {
        Py_DECREF(dst);
        return NULL;
    }
    return tn_out_deliver(dst, out, "scatter");
}

PyObject *tn_op_scatter_src(tn_value *a) { return scatter_op(a, true, NULL, false, NULL, false); }
PyObject *tn_op_scatter__src(tn_value *a) { return scatter_op(a, true, NULL, true, NULL, false); }
PyObject *tn_op_scatter_src_out(tn_value *a) { return scatter_op(a, true, NULL, false, a[4].u.obj, false); }
PyObject *tn_op_scatter_value(tn_value *a) { return scatter_op(a, false, NULL, false, NULL, false); }
PyObject *tn_op_scatter__value(tn_value *a) { return scatter_op(a, false, NULL, true, NULL, false); }
PyObject *tn_op_scatter_value_out(tn_value *a) { return scatter_op(a, false, NULL, false, a[4].u.obj, false); }
PyObject *tn_op_scatter_reduce(tn_value *a) { return scatter_op(a, true, &a[4], false, NULL, false); }
PyObject *tn_op_scatter__reduce(tn_value *a) { return scatter_op(a, true, &a[4], true, NULL, false); }
PyObject *tn_op_scatter_value_reduce(tn_value *a) { return scatter_op(a, false, &a[4], false, NULL, false); }
PyObject *tn_op_scatter__value_reduce(tn_value *a) { return scatter_op(a, false, &a[4], true, NULL, false); }
PyObject *tn_op_scatter_add(tn_value *a) { return scatter_op(a, true, NULL, false, NULL, true); }
PyObject *tn_op_scatter_add_(tn_value *a) { return scatter_op(a, true, NULL, true, NULL, true); }
PyObject *tn_op_scatter_add_out(tn_value *a) { return scatter_op(a, true, NULL, false, a[4].u.obj, true); }

/* ---------- masked ---------- */


static PyObject *masked_fill(tn_value *a, bool inplace) {
    PyObject *self = a[0].u.obj, *mask = a[1].u.obj;
    tn_tensor *t = tn_tensor_of(self), *m = tn_tensor_of(mask);
    if (m->dtype != TN_DTYPE_BOOL) {
        PyErr_Format(PyExc_RuntimeError, "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                     tn_dtype_cxx_name(m->dtype));
        return NULL;
    }
    if (a[2].tag == TN_V_TENSOR && TN_T(a[2])->ndim != 0) {
        PyErr_Format(PyExc_RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                     TN_T(a[2])->ndim);
        return NULL;
    }
    const tn_tensor *both[2] = {t, m};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, both, &nd, shape) < 0) return NULL;
    if (inplace && (nd != t->ndim || memcmp(shape, t->sizes, (size_t)nd * sizeof *shape))) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, t->ndim, t->sizes);
        tn_shape_str(b2, sizeof b2, nd, shape);
        PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
        return NULL;
    }
    /* the kernel's value.to<scalar_t>(), after the iterator's shape checks */
    bool kernel = tn_dtype_computable(t->dtype) || t->dtype == TN_DTYPE_C32; /* upstream's dispatch list */
    if (kernel && a[2].tag != TN_V_TENSOR && tn_cr_check_scalar(&a[2], t->dtype) < 0) return NULL;
    /* the float8 / uint16-64 / bits / float4 formats: its CPU dispatch's refusal (measured; upstream's
     * meta function takes them, ours still refuses them there) */
    if (!kernel && tn_dtype_infos[t->dtype].kind != TN_KIND_QUANT && !tn_door_on_meta())
        return tn_kernel_missing("masked_fill", t->dtype);
    if (t->dtype != TN_DTYPE_C32 && tn_require_computable("masked_fill", t->dtype) < 0) return NULL;
    PyObject *dst;
    if (inplace) {
        dst = Py_NewRef(self);
    } else {
        dst = tn_tensor_new_empty(nd, shape, t->dtype, TN_DEVICE_CPU);
        if (dst && tn_copy_into(dst, self) < 0) Py_CLEAR(dst);
    }
    if (!dst) return NULL;
    PyObject *val = tn_tensor_new_empty(0, NULL, t->dtype, TN_DEVICE_CPU);
    if (!val || tn_fill_number(val, &a[2]) < 0) { Py_XDECREF(val); Py_DECREF(dst); return NULL; }
    PyObject *mk = tn_storage_root(tn_tensor_of(mask)->storage) == tn_storage_root(tn_tensor_of(dst)->storage) ? tn_clone_contiguous(mask) : Py_NewRef(mask);
    if (!mk) { Py_DECREF(val); Py_DECREF(dst); return NULL; }
    PyObject *ins[3] = {mk, val, dst};
    tn_run_loop(tn_where_loop(t->dtype), NULL, dst, 3, ins);
    tn_tensor_of(dst)->storage->version++;
    Py_DECREF(mk);
    Py_DECREF(val);
    return dst;
}

PyObject *tn_op_masked_fill_Scalar(tn_value *a) { return masked_fill(a, false); }
PyObject *tn_op_masked_fill__Scalar(tn_value *a) { return masked_fill(a, true); }
PyObject *tn_op_masked_fill_Tensor(tn_value *a) { return masked_fill(a, false); }
PyObject *tn_op_masked_fill__Tensor(tn_value *a) { return masked_fill(a, true); }

static PyObject *masked_select(PyObject *self, PyObject *mask, PyObject *out) {
    tn_tensor *t = tn_tensor_of(self), *m = tn_tensor_of(mask);
    if (m->dtype != TN_DTYPE_BOOL) { PyErr_SetString(PyExc_RuntimeError, "masked_select: expected BoolTensor for mask"); return NULL; }
    /* out=: self's dtype, then no internal overlap, before anything else (measured) */
    if (out && tn_tensor_of(out)->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "masked_select(): self and result must have the same scalar type");
        return NULL;
    }
    if (out && tn_check_overlap(out, 0, NULL) < 0) return NULL;
    /* then out= against self and mask (upstream's assert_no_overlap, measured: out=self, self.t(),
     * self[0] refused) */
    PyObject *sm[2] = {self, mask};
    if (out && tn_check_no_overlap(out, 2, sm) < 0) return NULL;
    /* moves bytes: upstream's covers complex32 and the float8 formats, not uint16/32/64 */
    bool bytes_ok = t->dtype == TN_DTYPE_C32 || tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8;
    if (!bytes_ok && tn_require_computable("masked_select", t->dtype) < 0) return NULL;
    const tn_tensor *both[2] = {t, m};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, both, &nd, shape) < 0) return NULL;
    PyObject *xs = tn_tensor_new_empty(nd, shape, t->dtype, TN_DEVICE_CPU);
    PyObject *ms = tn_tensor_new_empty(nd, shape, TN_DTYPE_BOOL, TN_DEVICE_CPU);
    if (!xs || !ms || tn_copy_into(xs, self) < 0 || tn_copy_into(ms, mask) < 0) { Py_XDECREF(xs); Py_XDECREF(ms); return NULL; }
    int64_t total = tn_numel(tn_tensor_of(xs)), n = 0;
    const char *mp = tn_data(tn_tensor_of(ms)), *xp = tn_data(tn_tensor_of(xs));
    for (int64_t i = 0; i < total; i++) n += mp[i] != 0;
    PyObject *res = tn_tensor_new_empty(1, &n, t->dtype, TN_DEVICE_CPU);
    if (res) {
        int isz = tn_dtype_itemsize(t->dtype);
        char *o = tn_data(tn_tensor_of(res));
        for (int64_t i = 0, j = 0; i < total; i++)
            if (mp[i]) memcpy(o + (j++) * isz, xp + i * isz, (size_t)isz);
    }
    Py_DECREF(xs);
    Py_DECREF(ms);
    if (!res || !out) return res;
    int ok = tn_out_prepare(out, 1, &n, t->dtype, "masked_select");
    if (ok == 0) ok = tn_copy_into(out, res);
    Py_DECREF(res);
    return ok < 0 ? NULL : Py_NewRef(out);
}

PyObject *tn_op_masked_select(tn_value *a) {
    return masked_select(a[0].u.obj, a[1].u.obj, NULL);
}
PyObject *tn_op_masked_select_out(tn_value *a) {
    return masked_select(a[0].u.obj, a[1].u.obj, a[2].u.obj);
}

PyObject *tn_op_nonzero(tn_value *a) { return nonzero_of(a[0].u.obj); }
PyObject *tn_op_nonzero_out(tn_value *a) {
    tn_dtype od = tn_tensor_of(a[1].u.obj)->dtype;
    if (od != TN_DTYPE_I64) { /* upstream's first check, before reading self */
        PyErr_Format(PyExc_RuntimeError, "nonzero: Expected out tensor to have scalar type Long but got scalar type%s",
                     tn_dtype_cpp_name(od));
        return NULL;
    }
    PyObject *r = nonzero_of(a[0].u.obj);
    if (!r) return NULL;
    tn_tensor *rt = tn_tensor_of(r), *ot = tn_tensor_of(a[1].u.obj);
    bool resized = ot->ndim != rt->ndim || memcmp(ot->sizes, rt->sizes, (size_t)rt->ndim * sizeof(int64_t)) != 0;
    int ok = tn_out_prepare(a[1].u.obj, rt->ndim, rt->sizes, TN_DTYPE_I64, "nonzero");
    if (ok == 0 && resized && rt->ndim == 2) { /* a resized out takes the result's (1, n) layout, as upstream */
        ot->strides[0] = 1;
        ot->strides[1] = rt->sizes[0] > 1 ? rt->sizes[0] : 1;
    }
    if (ok == 0) ok = tn_copy_into(a[1].u.obj, r);
    Py_DECREF(r);
    return ok < 0 ? NULL : Py_NewRef(a[1].u.obj);
}

PyObject *tn_op_argwhere(tn_value *a) { return nonzero_of(a[0].u.obj); }

/* nonzero_numpy (torch.nonzero(as_tuple=True)): upstream's composite, nonzero().unbind(1), a
 * 0-dim self unsqueezed first; through the door, so dispatch modes see the pieces. */
PyObject *tn_op_nonzero_numpy(tn_value *a) {
    PyObject *x = a[0].u.obj;
    PyObject *u = TN_T(a[0])->ndim == 0 ? tn_at_unsqueeze(x, 0) : Py_NewRef(x);
    PyObject *nz = u ? tn_at_nonzero(u) : NULL;
    Py_XDECREF(u);
    PyObject *r = nz ? tn_at_unbind_int(nz, 1) : NULL;
    Py_XDECREF(nz);
    return r;
}

PyObject *tn_op_take(tn_value *a) {
    PyObject *self = a[0].u.obj, *index = a[1].u.obj;
    tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(index);
    if (it->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "take(): Expected a long tensor for index, but got %s", tn_dtype_cpp_name(it->dtype));
        return NULL;
    }
    /* no uint16/32/64, float8 or complex32 kernel */
    if (tn_dtype_barebones(t->dtype) || t->dtype == TN_DTYPE_C32) return tn_kernel_missing("take_cpu", t->dtype);
    int64_t numel = tn_numel(t), bad;
    int r = check_bounds(index, numel, &bad);
    if (r == -2) return NULL;
    if (r < 0) {
        if (numel == 0) PyErr_SetString(PyExc_IndexError, "take(): tried to take from an empty tensor");
        else PyErr_Format(PyExc_IndexError, "index %lld out of range for tensor of size [%lld] at dimension 0", (long long)bad, (long long)numel);
        return NULL;
    }
    PyObject *flat = tn_clone_contiguous(self);
    if (!flat) return NULL;
    tn_tensor *ft = tn_tensor_of(flat);
    ft->ndim = 1; ft->sizes[0] = numel; ft->strides[0] = 1;
    PyObject *res = tn_tensor_new_empty(it->ndim, it->sizes, t->dtype, TN_DEVICE_CPU);
    if (!res) { Py_DECREF(flat); return NULL; }
    tn_tensor *o = tn_tensor_of(res);
    int isz = tn_dtype_itemsize(t->dtype);
    idx_ctx c = {.k = 1, .itemsize = isz, .dt = t->dtype};
    c.stride[0] = isz;
    c.size[0] = numel;
    int64_t st[3][TN_MAX_DIMS] = {{0}};
    int iz[3] = {isz, isz, 8};
    char *data[3] = {tn_data(o), tn_data(ft), tn_data(it)};
    memcpy(st[0], o->strides, sizeof st[0]);
    memcpy(st[2], it->strides, sizeof st[2]);
    if (tn_numel(o) > 0) run_ops(gather_loop, &c, it->ndim, it->sizes, 3, data, st, iz);
    Py_DECREF(flat);
    return res;
}

/* ---------- scatter_reduce.two / index_reduce (helper-opb) ----------
 * Upstream's scatter_reduce_two: with include_self=False the scattered-to positions first take the
 * reduction's identity (0, 1, lowest, highest); sum / prod / amax / amin then combine each source
 * element in index order (reduced floats through a float buffer, rounded once); mean is the sum
 * divided by the count of contributions (plus one with include_self; zero counts read as one),
 * with floor division for integers, as upstream's ops through the door. index_reduce is the same
 * reduction with a 1-D index along dim, expanded to the source's shape. */
static int reduce_kind(const char *m) {
    if (!strcmp(m, "sum")) return 0;
    if (!strcmp(m, "prod")) return 1;
    if (!strcmp(m, "mean")) return 2;
    if (!strcmp(m, "amax") || !strcmp(m, "max")) return 3;   /* max / min: upstream's undocumented aliases */
    if (!strcmp(m, "amin") || !strcmp(m, "min")) return 4;
    return -1;
}
static const char *const reduce_names[5] = {"sum", "prod", "mean", "amax", "amin"};

/* the identity of reduction k for dtype dt, as a Python number */
static PyObject *reduce_identity(int k, tn_dtype dt) {
    if (k == 0 || k == 2) return PyLong_FromLong(0);
    if (k == 1) return PyLong_FromLong(1);
    bool hi = k == 4;
    if (tn_dtype_is_floating(dt)) return PyFloat_FromDouble(hi ? INFINITY : -INFINITY);
    if (dt == TN_DTYPE_BOOL) return PyBool_FromLong(hi);
    switch (dt) {
    case TN_DTYPE_U8: return PyLong_FromLong(hi ? 255 : 0);
    case TN_DTYPE_I8: return PyLong_FromLong(hi ? 127 : -128);
    case TN_DTYPE_I16: return PyLong_FromLong(hi ? 32767 : -32768);
    case TN_DTYPE_I32: return PyLong_FromLongLong(hi ? INT32_MAX : INT32_MIN);
    default: return PyLong_FromLongLong(hi ? INT64_MAX : INT64_MIN);
    }
}

/* reduce src into dst (a tensor we own, modified in place) by kind k */
static int scatter_reduce_into(PyObject *dst, int64_t dim, PyObject *index, PyObject *src, int k, bool include_self,
                               const char *op) {
    tn_tensor *t = tn_tensor_of(dst);
    if (tn_tensor_of(src)->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype");
        return -1;
    }
    if (tn_dtype_is_complex(t->dtype) && k >= 3) {
        PyErr_Format(PyExc_NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_%s\" not implemented for '%s'",
                     reduce_names[k], tn_dtype_cpp_name(t->dtype));
        return -1;
    }
    if (t->dtype == TN_DTYPE_BOOL && k == 2) {
        PyErr_SetString(PyExc_NotImplementedError, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
        return -1;
    }
    if (!include_self) {
        PyObject *num = reduce_identity(k, t->dtype);
        if (!num) return -1;
        tn_value v;
        memset(&v, 0, sizeof v);
        if (PyBool_Check(num)) { v.tag = TN_V_BOOL; v.u.i = num == Py_True; }
        else if (PyFloat_Check(num)) { v.tag = TN_V_FLOAT; v.u.f = PyFloat_AsDouble(num); }
        else { v.tag = TN_V_INT; v.u.i = PyLong_AsLongLong(num); }
        Py_DECREF(num);
        if (scatter_into(dst, dim, index, NULL, &v, false, false, op) < 0) return -1;
    }
    if (scatter_into_ex(dst, dim, index, src, NULL, true, k == 1, k == 3 ? 1 : k == 4 ? -1 : 0, op) < 0) return -1;
    if (k != 2) return 0;
    /* mean: count contributions through the door, as upstream */
    PyObject *ones = tn_at_ones_like(src, NULL, NULL, NULL, NULL, NULL);
    PyObject *count = ones ? (include_self ? tn_at_ones_like(dst, NULL, NULL, NULL, NULL, NULL) : tn_at_zeros_like(dst, NULL, NULL, NULL, NULL, NULL)) : NULL;
    PyObject *r1 = count ? tn_at_scatter_add_(count, (long long)dim, index, ones) : NULL;
    PyObject *zero = r1 ? tn_at_eq_Scalar(count, TN_SI(0)) : NULL;
    PyObject *r2 = zero ? tn_at_masked_fill__Scalar(count, zero, TN_SI(1)) : NULL;
    PyObject *r3 = NULL;
    if (r2) {
        if (tn_dtype_is_floating(t->dtype) || tn_dtype_is_complex(t->dtype)) r3 = tn_at_div__Tensor(dst, count);
        else {
            r3 = tn_at_div__Tensor_mode(dst, count, "floor");
        }
    }
    Py_XDECREF(ones); Py_XDECREF(count); Py_XDECREF(r1); Py_XDECREF(zero); Py_XDECREF(r2);
    if (!r3) return -1;
    Py_DECREF(r3);
    return 0;
}

/* scatter_reduce.two(self, dim, index, src, reduce, *, include_self) / scatter_reduce_.two / .two_out */
static PyObject *scatter_reduce_op(tn_value *a, bool inplace, PyObject *out) {
    const char *m = PyUnicode_AsUTF8AndSize(a[4].u.obj, NULL);
    if (!m) return NULL;
    int k = reduce_kind(m);
    if (k < 0) {   /* after the meta checks, as upstream's */
        int64_t d;
        if (scatter_meta(tn_tensor_of(a[0].u.obj), a[1].u.i, a[2].u.obj, a[3].u.obj, &d) == 0)
            PyErr_Format(PyExc_RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got %s", m);
        return NULL;
    }
    PyObject *self = a[0].u.obj;
    PyObject *dst = inplace ? Py_NewRef(self) : tn_clone_contiguous(self);
    if (!dst) return NULL;
    if (scatter_reduce_into(dst, a[1].u.i, a[2].u.obj, a[3].u.obj, k, a[5].u.i != 0, "scatter_reduce") < 0) {
        Py_DECREF(dst);
        return NULL;
    }
    return inplace ? dst : tn_out_deliver(dst, out, "scatter_reduce");
}
PyObject *tn_op_scatter_reduce_two(tn_value *a) { return scatter_reduce_op(a, false, NULL); }
PyObject *tn_op_scatter_reduce__two(tn_value *a) { return scatter_reduce_op(a, true, NULL); }
PyObject *tn_op_scatter_reduce_two_out(tn_value *a) { return scatter_reduce_op(a, false, a[6].u.obj); }

/* index_reduce(self, dim, index, source, reduce, *, include_self) / index_reduce_ / .out */
static PyObject *index_reduce_op(tn_value *a, bool inplace, PyObject *out) {
    PyObject *self = a[0].u.obj, *index = a[2].u.obj, *source = a[3].u.obj;
    tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(index), *so = tn_tensor_of(source);
    const char *m = PyUnicode_AsUTF8AndSize(a[4].u.obj, NULL);
    if (!m) return NULL;
    int k = reduce_kind(m);
    if (k < 1) {
        PyErr_Format(PyExc_RuntimeError, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", m);
        return NULL;
    }
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    if (it->ndim > 1) {
        char b[256];
        tn_shape_str(b, sizeof b, it->ndim, it->sizes);
        PyErr_Format(PyExc_IndexError, "index_reduce_(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s",
                     it->ndim, tn_dtype_infos[it->dtype].name, b);
        return NULL;
    }
    if (it->dtype != TN_DTYPE_I64 && it->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "index_reduce_(): Expected dtype int32/int64 for index but got: %s", tn_dtype_infos[it->dtype].name);
        return NULL;
    }
    if (so->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "index_reduce_(): self (%s) and source (%s) must have the same scalar type",
                     tn_dtype_infos[t->dtype].name, tn_dtype_infos[so->dtype].name);
        return NULL;
    }
    bool same = so->ndim == t->ndim;
    for (int i = 0; same && i < t->ndim; i++) same = i == d || t->sizes[i] == so->sizes[i];
    if (!same) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, t->ndim, t->sizes);
        tn_shape_str(b2, sizeof b2, so->ndim, so->sizes);
        PyErr_Format(PyExc_RuntimeError, "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = %s source.shape = %s", b1, b2);
        return NULL;
    }
    int64_t n = tn_numel(it), ssz = so->ndim ? so->sizes[d] : 1;
    if (n != ssz) {
        PyErr_Format(PyExc_RuntimeError, "index_reduce_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), for dim: %lld",
                     (long long)n, (long long)ssz, (long long)d);
        return NULL;
    }
    static bool warned;   /* upstream's TORCH_WARN_ONCE, where its kernel starts (after the checks above) */
    if (!warned) {
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning, "index_reduce() is in beta and the API may change at any time.", 1) < 0) return NULL;
    }
    if (tn_dtype_is_complex(t->dtype) || t->dtype == TN_DTYPE_BOOL) {
        PyErr_Format(PyExc_NotImplementedError, "\"index_func_\" not implemented for '%s'", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    int64_t size = t->ndim ? t->sizes[d] : 1, bad;
    int r = check_nonneg_bounds(index, size, &bad);
    if (r == -2) return NULL;
    if (r < 0) {
        PyErr_SetString(PyExc_IndexError, "index out of range in self");
        return NULL;
    }
    /* the index along dim, expanded to the source's shape */
    int nd = so->ndim;
    int64_t vs[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) vs[i] = i == d ? -1 : 1;
    PyObject *li = tn_at__to_copy(index, TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL);
    PyObject *v = li ? tn_at_view(li, TN_IN(vs, nd)) : NULL;   /* nd == 0: a 0-dim index */
    PyObject *e = v ? (nd ? tn_at_expand(v, TN_IN(so->sizes, nd), false) : Py_NewRef(v)) : NULL;
    Py_XDECREF(li); Py_XDECREF(v);
    if (!e) return NULL;
    PyObject *dst = inplace ? Py_NewRef(self) : tn_clone_contiguous(self);
    int rc = dst ? scatter_reduce_into(dst, d, e, source, k, a[5].u.i != 0, "index_reduce") : -1;
    Py_DECREF(e);
    if (rc < 0) { Py_XDECREF(dst); return NULL; }
    return inplace ? dst : tn_out_deliver(dst, out, "index_reduce");
}
PyObject *tn_op_index_reduce(tn_value *a) { return index_reduce_op(a, false, NULL); }
PyObject *tn_op_index_reduce_(tn_value *a) { return index_reduce_op(a, true, NULL); }
PyObject *tn_op_index_reduce_out(tn_value *a) { return index_reduce_op(a, false, a[6].u.obj); }

/* ---------------------------------------------------------------- _unsafe_masked_index
 * (breadth-more, docs/breadth_more.md) upstream's CompositeExplicitAutograd bodies, op by op
 * through the door: each index (int64 / int32 only) clamped to [-size, size - 1] of the dim it
 * indexes, then
 *   _unsafe_masked_index(self, mask, indices, fill) = _unsafe_index(self, clamped)
 *       .masked_fill(logical_not(mask), fill); for an empty self, _unsafe_index of
 *       new_full(sizes, fill) where an indexed size-0 dim becomes 1 and a dim past the indices 0
 *   _unsafe_masked_index_put_accumulate(self, mask, indices, values) = index_put(self, clamped,
 *       values.masked_fill(logical_not(mask), 0), accumulate=True); an empty self: a clone */
static PyObject *masked_index_clamped(PyObject *self, PyObject *seq) {
    const tn_tensor *t = tn_tensor_of(self);
    if (!seq || seq == Py_None || !PySequence_Check(seq))   /* as the index ops' parse refuses it */
        return PyErr_Format(PyExc_TypeError, "indices must be a tuple of Tensors or None, not %s",
                            seq ? tn_py_type_name(seq) : "NoneType");
    PyObject *list = PySequence_List(seq);
    if (!list) return NULL;
    Py_ssize_t n = PyList_Size(list);
    PyObject *r = PyList_New(n);
    if (!r) { Py_DECREF(list); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ix = PyList_GetItem(list, i), *c;
        if (ix == Py_None || !tn_py_is_tensor(ix) || i >= t->ndim) {
            c = Py_NewRef(ix);
        } else {
            tn_dtype dt = tn_tensor_of(ix)->dtype;
            if (dt != TN_DTYPE_I64 && dt != TN_DTYPE_I32) {
                PyErr_Format(PyExc_RuntimeError, "_unsafe_masked_index found unexpected index type %s", tn_dtype_cpp_name(dt));
                Py_DECREF(r);
                Py_DECREF(list);
                return NULL;
            }
            long long sz = (long long)t->sizes[i];
            c = tn_at_clamp(ix, TN_SI(-sz), TN_SI(sz - 1));
            if (!c) { Py_DECREF(r); Py_DECREF(list); return NULL; }
        }
        PyList_SetItem(r, i, c);
    }
    Py_DECREF(list);
    return r;
}

PyObject *tn_op__unsafe_masked_index(tn_value *a) {
    PyObject *self = a[0].u.obj, *mask = a[1].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    PyObject *idx = masked_index_clamped(self, a[2].u.obj);
    if (!idx) return NULL;
    PyObject *fill = tn_value_to_python(&a[3]), *r = NULL;
    if (!fill) { Py_DECREF(idx); return NULL; }
    if (tn_numel(t) == 0) {
        int64_t sz[TN_MAX_DIMS];
        Py_ssize_t ni = PyList_Size(idx);   /* idx holds None where the indices do */
        for (int d = 0; d < t->ndim; d++) {
            if (d >= ni) sz[d] = 0;
            else sz[d] = (PyList_GetItem(idx, d) != Py_None && t->sizes[d] == 0) ? 1 : t->sizes[d];
        }
        PyObject *full = tn_at_new_full(self, TN_IN(sz, t->ndim), TN_SO(fill), NULL, NULL, NULL, NULL);
        r = full ? tn_at__unsafe_index_Tensor(full, TN_TPY(idx)) : NULL;
        Py_XDECREF(full);
    } else {
        PyObject *g = tn_at__unsafe_index_Tensor(self, TN_TPY(idx));
        PyObject *nm = g ? tn_at_logical_not(mask) : NULL;
        r = nm ? tn_at_masked_fill_Scalar(g, nm, TN_SO(fill)) : NULL;
        Py_XDECREF(g);
        Py_XDECREF(nm);
    }
    Py_DECREF(idx);
    Py_DECREF(fill);
    return r;
}

PyObject *tn_op__unsafe_masked_index_put_accumulate(tn_value *a) {
    PyObject *self = a[0].u.obj, *mask = a[1].u.obj, *values = a[3].u.obj;
    if (tn_numel(tn_tensor_of(self)) == 0) return tn_at_clone(self, NULL);
    PyObject *idx = masked_index_clamped(self, a[2].u.obj);
    if (!idx) return NULL;
    PyObject *nm = tn_at_logical_not(mask);
    PyObject *mv = nm ? tn_at_masked_fill_Scalar(values, nm, TN_SI(0)) : NULL;
    PyObject *r = mv ? tn_at_index_put(self, TN_TPY(idx), mv, true) : NULL;
    Py_DECREF(idx);
    Py_XDECREF(nm);
    Py_XDECREF(mv);
    return r;
}
