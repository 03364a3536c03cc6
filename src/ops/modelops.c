/* ops/modelops.c — operators the first transformers models reach that no family had yet:
 * constant padding (`F.pad` → aten::pad, aten::constant_pad_nd; transformers pads the masked-LM
 * bias and attention masks with it) and finite differences (aten::diff; generate() without the
 * KV cache looks for packed sequences with it). Both are compositions of existing machinery —
 * allocate, fill, copy through strided views (tn_copy_into) and the elementwise sub / xor
 * driver (tn_binary) — so they need no kernels of their own. Reflect / replicate / circular
 * padding go to the shared helpers of ops/pad.c. */
#include "ops/common.h"
#include "ops/pad.h"
#include "ops/views.h"
#include "core/pystate.h"

/* A view of `base` with its strides, `sizes`, starting `start[d]` elements into each dim. */
static PyObject *sub_view(PyObject *base, const int64_t *sizes, const int64_t *start) {
    tn_tensor *t = tn_tensor_of(base);
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += start[d] * t->strides[d];
    return tn_tensor_new_view(base, t->ndim, sizes, t->strides, off);
}

static bool any_zero(int nd, const int64_t *s) {
    for (int d = 0; d < nd; d++)
        if (s[d] == 0) return true;
    return false;
}

/* Pad the trailing dims of self by pad = (left_last, right_last, left_prev, ...) with `value`
 * (NULL or None: zero); negative amounts crop. Lengths were validated by the caller. */
static PyObject *constant_pad(PyObject *self, const int64_t *pad, int npad, const tn_value *value) {
    tn_tensor *t = tn_tensor_of(self);
    int nd = t->ndim;
    int64_t out_sizes[TN_MAX_DIMS], src_sizes[TN_MAX_DIMS], src_start[TN_MAX_DIMS],
        dst_start[TN_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        out_sizes[d] = src_sizes[d] = t->sizes[d];
        src_start[d] = dst_start[d] = 0;
    }
    for (int i = 0; i < npad / 2; i++) {
        int d = nd - 1 - i;
        int64_t l = pad[2 * i], r = pad[2 * i + 1], len = t->sizes[d];
        if (l == INT64_MIN || r == INT64_MIN) {
            PyErr_SetString(PyExc_RuntimeError, "pad: padding value out of range");
            return NULL;
        }
        if (l < 0) {
            len += l;
            src_start[d] = -l;
        }
        if (len >= 0 && r < 0) len += r;
        if (len < 0) {
            PyErr_SetString(PyExc_RuntimeError, "narrow(): length must be non-negative.");
            return NULL;
        }
        src_sizes[d] = len;
        dst_start[d] = l > 0 ? l : 0;
        int64_t grown;
        if (__builtin_add_overflow(len, l > 0 ? l : 0, &grown) ||
            __builtin_add_overflow(grown, r > 0 ? r : 0, &out_sizes[d])) {
            PyErr_SetString(PyExc_RuntimeError, "pad: the padded size overflows");
            return NULL;
        }
    }
    /* upstream fills the new tensor (fill_ converting value to self's dtype, ComplexHalf's through
     * complex<float>, with the overflow check) unless no pad is positive (then the result is a
     * narrowed copy of self) */
    bool grows = false;
    for (int i = 0; i < npad; i++) grows |= pad[i] > 0;
    if (grows && value && !tn_is_none(value) &&
        tn_check_kernel_scalar(value, t->dtype == TN_DTYPE_C32 ? TN_DTYPE_C64 : t->dtype, false) < 0)
        return NULL;
    PyObject *out = tn_tensor_new_empty(nd, out_sizes, t->dtype, t->storage->device);
    if (!out) return NULL;
    if (!any_zero(nd, out_sizes)) {
        tn_value zero = {.tag = TN_V_INT, .u.i = 0};
        if (tn_fill_number(out, value && !tn_is_none(value) ? value : &zero) < 0) goto fail;
    }
    if (!any_zero(nd, src_sizes)) {
        PyObject *src = sub_view(self, src_sizes, src_start);
        PyObject *dst = src ? sub_view(out, src_sizes, dst_start) : NULL;
        int r = dst ? tn_copy_into(dst, src) : -1;
        Py_XDECREF(src);
        Py_XDECREF(dst);
        if (r < 0) goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor */
PyObject *tn_op_constant_pad_nd(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int n = a[1].u.ints.n;
    if (n % 2) {
        PyErr_Format(PyExc_RuntimeError, "Length of pad must be even but instead it equals %d", n);
        return NULL;
    }
    if (n / 2 > t->ndim) {
        PyErr_Format(PyExc_RuntimeError,
                     "Length of pad should be no more than twice the number of dimensions of the "
                     "input. Pad length is %dwhile the input has %ddimensions.", n, t->ndim);
        return NULL;
    }
    return constant_pad(a[0].u.obj, a[1].u.ints.v, n, &a[2]);
}

/* pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor. Non-constant
 * modes go to the shared helpers of ops/pad.c for the (pad length, rank) pairs upstream accepts. */
PyObject *tn_op_pad(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int n = a[1].u.ints.n;
    const char *mode = "constant";
    if (a[2].tag == TN_V_STR && !(mode = PyUnicode_AsUTF8AndSize(a[2].u.obj, NULL))) return NULL;
    int m = !strcmp(mode, "constant") ? 0 : !strcmp(mode, "reflect") ? 1
          : !strcmp(mode, "replicate") ? 2 : !strcmp(mode, "circular") ? 3 : -1;
    if (m < 0) {
        PyErr_Format(PyExc_NotImplementedError, "Unrecognised padding mode %s", mode);
        return NULL;
    }
    if (n % 2) {
        PyErr_SetString(PyExc_RuntimeError, "Padding length must be divisible by 2");
        return NULL;
    }
    if (n / 2 > t->ndim) {
        PyErr_Format(PyExc_RuntimeError,
                     "Padding length should be less than or equal to two times the input dimension "
                     "but got padding length %d and input of dimension %d", n, t->ndim);
        return NULL;
    }
    if (m == 0) return constant_pad(a[0].u.obj, a[1].u.ints.v, n, &a[3]);
    /* upstream lets an explicit zero value through */
    if ((a[3].tag == TN_V_FLOAT && a[3].u.f != 0.0) || (a[3].tag == TN_V_INT && a[3].u.i != 0) ||
        (a[3].tag != TN_V_FLOAT && a[3].tag != TN_V_INT && !tn_is_none(&a[3]))) {
        PyErr_Format(PyExc_RuntimeError, "Padding mode \"%s\" doesn't take in value argument", mode);
        return NULL;
    }
    int k = n / 2;
    if (k >= 1 && k <= 3 && (t->ndim == k + 1 || t->ndim == k + 2)) {
        if (m == 3) return tn_pad_circular(a[0].u.obj, a[1].u.ints.v, n);
        return tn_pad_edge(a[0].u.obj, a[1].u.ints.v, n, k, m == 1 ? TN_PAD_REFLECT : TN_PAD_REPLICATE,
                           NULL);
    }
    PyErr_Format(PyExc_NotImplementedError,
                 "Padding size %d is not supported for %dD input tensor.\n"
                 "Supported combinations for non-constant padding:\n"
                 "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                 "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                 "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)", n, t->ndim);
    return NULL;
}

/* prepend / append must have self's rank and sizes except along dim. */
static int check_piece(const tn_tensor *s, const tn_tensor *p, int64_t dim) {
    if (p->ndim != s->ndim) {
        PyErr_SetString(PyExc_RuntimeError,
                        "diff expects prepend or append to be the same dimension as input");
        return -1;
    }
    for (int d = 0; d < s->ndim; d++)
        if (d != dim && p->sizes[d] != s->sizes[d]) {
            PyErr_Format(PyExc_RuntimeError,
                         "diff expects the shape of tensor to prepend or append to match that of "
                         "input except along the differencing dimension; input.size(%d) = %lld, "
                         "but got tensor.size(%d) = %lld", d, (long long)s->sizes[d], d,
                         (long long)p->sizes[d]);
            return -1;
        }
    return 0;
}

/* diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor */
PyObject *tn_op_diff(tn_value *a) {
    tn_tensor *s = TN_T(a[0]);
    if (s->ndim == 0) {
        PyErr_SetString(PyExc_RuntimeError, "diff expects input to be at least one-dimensional");
        return NULL;
    }
    int64_t n = a[1].u.i, dim;
    if (n < 0) {
        PyErr_Format(PyExc_RuntimeError, "order must be non-negative but got %lld", (long long)n);
        return NULL;
    }
    if (tn_wrap_dim(a[2].u.i, s->ndim, &dim) < 0) return NULL;
    /* combined = cat([prepend,] self[, append]) along dim, in their promoted dtype */
    tn_value pieces[3];
    int np = 0;
    if (!tn_is_none(&a[3])) pieces[np++] = a[3];
    pieces[np++] = a[0];
    if (!tn_is_none(&a[4])) pieces[np++] = a[4];
    PyObject *cur;
    if (n == 0) {   /* upstream: prepend / append are checked, then ignored (a copy of self) */
        for (int i = 0; i < np; i++)
            if (pieces[i].u.obj != a[0].u.obj && check_piece(s, TN_T(pieces[i]), dim) < 0) return NULL;
        np = 1;
    }
    if (np == 1 && n > 0) {
        cur = Py_NewRef(a[0].u.obj);  /* the first difference allocates; self is never written */
    } else if (np == 1) {             /* n == 0: a copy laid out like self, as upstream's clone */
        const tn_tensor *ins[1] = {s};
        cur = tn_new_result(s->ndim, s->sizes, s->dtype, 1, ins);
        if (cur && tn_copy_into(cur, a[0].u.obj) < 0) Py_CLEAR(cur);
    } else {
        int64_t sizes[TN_MAX_DIMS], start[TN_MAX_DIMS] = {0};
        memcpy(sizes, s->sizes, sizeof(int64_t) * (size_t)s->ndim);
        sizes[dim] = 0;
        for (int i = 0; i < np; i++) {
            if (check_piece(s, TN_T(pieces[i]), dim) < 0) return NULL;
            sizes[dim] += TN_T(pieces[i])->sizes[dim];
        }
        tn_dtype dt = tn_result_type(np, pieces);
        if (dt == TN_DTYPE_UNDEFINED) return NULL;
        cur = tn_tensor_new_empty(s->ndim, sizes, dt, s->storage->device);
        for (int i = 0; cur && i < np; i++) {
            tn_tensor *p = TN_T(pieces[i]);
            memcpy(sizes, p->sizes, sizeof(int64_t) * (size_t)p->ndim);
            if (!any_zero(p->ndim, sizes)) {
                PyObject *dst = sub_view(cur, sizes, start);
                int r = dst ? tn_copy_into(dst, pieces[i].u.obj) : -1;
                Py_XDECREF(dst);
                if (r < 0) Py_CLEAR(cur);
            }
            start[dim] += p->sizes[dim];
        }
    }
    for (int64_t k = 0; cur && k < n; k++) {
        tn_tensor *c = tn_tensor_of(cur);
        int64_t len = c->sizes[dim];
        if (len == 0) break;
        int64_t sizes[TN_MAX_DIMS], hi[TN_MAX_DIMS] = {0}, lo[TN_MAX_DIMS] = {0};
        memcpy(sizes, c->sizes, sizeof(int64_t) * (size_t)c->ndim);
        sizes[dim] = len - 1;
        hi[dim] = 1;
        PyObject *x = sub_view(cur, sizes, hi), *y = x ? sub_view(cur, sizes, lo) : NULL;
        PyObject *r = NULL;
        if (y) {
            tn_value vx = {.tag = TN_V_TENSOR, .u.obj = x}, vy = {.tag = TN_V_TENSOR, .u.obj = y};
            r = c->dtype == TN_DTYPE_BOOL
                    ? tn_binary(TN_BINARY_LOGICAL_XOR, "logical_xor", &vx, &vy, NULL, false, NULL)
                    : tn_binary(TN_BINARY_SUB, "sub", &vx, &vy, NULL, false, NULL);
        }
        Py_XDECREF(x);
        Py_XDECREF(y);
        Py_DECREF(cur);
        cur = r;
    }
    return cur;
}
