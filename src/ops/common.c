/* ops/common.c — type promotion, copies, out= resizing and the elementwise drivers. */
#include "ops/common.h"
#include "ops/qlinear.h"

#include <string.h>

/* ---------- promotion (upstream's promoteTypes and ResultTypeState, measured) ---------- */

static int category(tn_dtype d) { /* 0 bool, 1 integral, 2 floating, 3 complex */
    if (d == TN_DTYPE_BOOL) return 0;
    if (tn_dtype_is_complex(d)) return 3;
    if (tn_dtype_is_floating(d)) return 2;
    return 1;
}

static tn_dtype complex_of(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F16: return TN_DTYPE_C32;
    case TN_DTYPE_F64: return TN_DTYPE_C128;
    default: return TN_DTYPE_C64;
    }
}

static int int_rank(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_U8: case TN_DTYPE_I8: return 1;
    case TN_DTYPE_I16: return 2;
    case TN_DTYPE_I32: return 3;
    case TN_DTYPE_I64: return 4;
    default: return 4;
    }
}

tn_dtype tn_promote_types(tn_dtype a, tn_dtype b) {
    if (a == b) return a;
    if (a == TN_DTYPE_UNDEFINED) return b;
    if (b == TN_DTYPE_UNDEFINED) return a;
    int ca = category(a), cb = category(b);
    if (ca != cb) {
        if (ca < cb) { tn_dtype t = a; a = b; b = t; int c = ca; ca = cb; cb = c; }
        /* a has the higher category */
        if (ca == 3 && cb == 2) { /* complex with float: widen to hold both */
            tn_dtype r = tn_promote_types(a == TN_DTYPE_C128 ? TN_DTYPE_F64 : a == TN_DTYPE_C32 ? TN_DTYPE_F16 : TN_DTYPE_F32, b);
            return complex_of(r);
        }
        return a;
    }
    switch (ca) {
    case 1: {
        bool ua = a == TN_DTYPE_U8, ub = b == TN_DTYPE_U8;
        if (ua || ub) { /* uint8 with a signed type: next wider signed */
            tn_dtype s = ua ? b : a;
            return s == TN_DTYPE_I8 ? TN_DTYPE_I16 : s;
        }
        return int_rank(a) >= int_rank(b) ? a : b;
    }
    case 2:
        if ((a == TN_DTYPE_F16 && b == TN_DTYPE_BF16) || (a == TN_DTYPE_BF16 && b == TN_DTYPE_F16)) return TN_DTYPE_F32;
        if (a == TN_DTYPE_F64 || b == TN_DTYPE_F64) return TN_DTYPE_F64;
        if (a == TN_DTYPE_F32 || b == TN_DTYPE_F32) return TN_DTYPE_F32;
        return a; /* same narrow type handled above */
    case 3:
        if (a == TN_DTYPE_C128 || b == TN_DTYPE_C128) return TN_DTYPE_C128;
        return TN_DTYPE_C64;
    }
    return a;
}

tn_dtype tn_number_dtype(const tn_value *v) {
    switch (v->tag) {
    case TN_V_BOOL: return TN_DTYPE_BOOL;
    case TN_V_INT: return v->uns ? TN_DTYPE_U64 : TN_DTYPE_I64;   /* a Python int in [2**63, 2**64): upstream's unsigned Scalar */
    case TN_V_COMPLEX: return TN_DTYPE_C128;
    default: return TN_DTYPE_F64;
    }
}

static bool barebones_unsigned(tn_dtype d) {
    return d == TN_DTYPE_U16 || d == TN_DTYPE_U32 || d == TN_DTYPE_U64;
}

tn_dtype tn_promote_types_checked(tn_dtype a, tn_dtype b) {
    if (a == b || a == TN_DTYPE_UNDEFINED || b == TN_DTYPE_UNDEFINED) return tn_promote_types(a, b);
    if (tn_dtype_infos[a].kind == TN_KIND_FLOAT8 || tn_dtype_infos[b].kind == TN_KIND_FLOAT8) {
        PyErr_Format(PyExc_RuntimeError, "Promotion for Float8 Types is not supported, attempted to promote %s and %s",
                     tn_dtype_cpp_name(a), tn_dtype_cpp_name(b));
        return TN_DTYPE_UNDEFINED;
    }
    if (barebones_unsigned(a) || barebones_unsigned(b)) {
        if (tn_dtype_infos[a].kind == TN_KIND_FLOAT) return a;
        if (tn_dtype_infos[b].kind == TN_KIND_FLOAT) return b;
        PyErr_Format(PyExc_RuntimeError,
                     "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote %s and %s",
                     tn_dtype_cpp_name(a), tn_dtype_cpp_name(b));
        return TN_DTYPE_UNDEFINED;
    }
    return tn_promote_types(a, b);
}

/* Upstream's combine_categories(higher, lower); *err set when a promotion is refused. */
static tn_dtype combine(tn_dtype higher, tn_dtype lower, bool *err) {
    if (higher == TN_DTYPE_UNDEFINED) return lower;
    if (lower == TN_DTYPE_UNDEFINED) return higher;
    if (tn_dtype_is_complex(higher)) return higher;
    if (tn_dtype_is_complex(lower)) {
        if (tn_dtype_infos[higher].kind == TN_KIND_FLOAT8) {   /* upstream's toComplexType has none (measured) */
            PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s", tn_dtype_cpp_name(higher));
            *err = true;
            return TN_DTYPE_UNDEFINED;
        }
        return tn_dtype_is_floating(higher) ? complex_of(higher) : lower;
    }
    if (tn_dtype_is_floating(higher)) return higher;
    if (higher == TN_DTYPE_BOOL || tn_dtype_is_floating(lower)) {
        tn_dtype r = tn_promote_types_checked(higher, lower);
        if (r == TN_DTYPE_UNDEFINED) *err = true;
        return r;
    }
    return higher;
}

/* A wrapped number contributes only its category, at the default dtype of that category. */
static tn_dtype wrapped_default(tn_dtype d) {
    if (tn_dtype_is_complex(d)) return tn_py.default_dtype == TN_DTYPE_F64 ? TN_DTYPE_C128 : TN_DTYPE_C64;
    if (tn_dtype_is_floating(d)) return tn_py.default_dtype;
    return d;
}

tn_dtype tn_result_type(int n, const tn_value *vals) {
    tn_dtype dim = TN_DTYPE_UNDEFINED, zero = TN_DTYPE_UNDEFINED, wrapped = TN_DTYPE_UNDEFINED;
    for (int i = 0; i < n; i++) {
        const tn_value *v = &vals[i];
        tn_dtype *state = NULL, d = TN_DTYPE_UNDEFINED;
        if (v->tag == TN_V_TENSOR) {
            tn_tensor *t = TN_T(*v);
            if (v->wrapped || ((tn_tensor_obj *)v->u.obj)->wrapped_number)
                state = &wrapped, d = wrapped_default(t->dtype);
            else if (t->ndim == 0)
                state = &zero, d = t->dtype;
            else
                state = &dim, d = t->dtype;
        } else if (tn_value_is_number(v)) {
            state = &wrapped, d = wrapped_default(tn_number_dtype(v));
        }
        if (!state) continue;
        if ((*state = tn_promote_types_checked(*state, d)) == TN_DTYPE_UNDEFINED) return TN_DTYPE_UNDEFINED;
    }
    bool err = false;
    tn_dtype r = combine(zero, wrapped, &err);
    if (!err) r = combine(dim, r, &err);
    return err ? TN_DTYPE_UNDEFINED : r;
}

bool tn_can_cast(tn_dtype from, tn_dtype to) {
    return category(from) <= category(to);
}


int tn_py_unpack_error(int expected, int64_t got) {
    if (got > expected) PyErr_Format(PyExc_ValueError, "too many values to unpack (expected %d)", expected);
    else PyErr_Format(PyExc_ValueError, "not enough values to unpack (expected %d, got %lld)", expected, (long long)got);
    return -1;
}

int tn_ref_weak_type_check(const char *what, const tn_value *v, tn_dtype dt) {
    static const char *const py[] = {"bool", "int", "float", "complex"};
    int have = v->tag == TN_V_BOOL ? 0 : v->tag == TN_V_INT ? 1 : v->tag == TN_V_FLOAT ? 2 : 3;
    int want = dt == TN_DTYPE_BOOL ? 0 : tn_dtype_is_complex(dt) ? 3 : tn_dtype_is_floating(dt) ? 2 : 1;
    if (have <= want) return 0;
    PyErr_Format(PyExc_ValueError, "%s argument of type <class '%s'> cannot be safely cast to type <class '%s'>!", what, py[have], py[want]);
    return -1;
}

int tn_alpha_check(tn_dtype ct, const tn_value *alpha, PyObject *target, bool inplace, const tn_value *a,
                   const tn_value *b) {
    if (target) { /* the iterator's own refusals (cast, in-place shape) come first: leave them to it */
        const tn_tensor *t = tn_tensor_of(target), *ts[2] = {TN_T(*a), TN_T(*b)};
        int nd;
        int64_t shape[TN_MAX_DIMS];
        if (!tn_can_cast(ct, t->dtype)) return 0;
        if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) { PyErr_Clear(); return 0; }
        if (inplace && (nd != t->ndim || memcmp(shape, t->sizes, (size_t)nd * sizeof *shape) != 0)) return 0;
    }
    const char *msg = NULL;
    bool real = !tn_dtype_is_complex(ct), integral = real && !tn_dtype_is_floating(ct);
    if (tn_door_on_meta()) {
        /* on meta, upstream's in-place add_ / sub_ (Python meta) check no alpha; its references'
         * add / sub (and out=) refuse an alpha of a Python type above the result dtype's, once the
         * operands broadcast (docs/breadth_more2.md "group meta (session 40)"). Not with a number
         * operand (add.Scalar's meta checks nothing), nor an alpha equal to 1, which sub skips
         * (add refuses 1.0 for integers: not reproduced, this check does not know which op) */
        bool one = (alpha->tag == TN_V_FLOAT && alpha->u.f == 1.0) ||
                   (alpha->tag == TN_V_COMPLEX && alpha->u.c.re == 1.0 && alpha->u.c.im == 0.0);
        if (inplace || ct == TN_DTYPE_BOOL || one || a->wrapped || b->wrapped) return 0;
        const tn_tensor *ts[2] = {TN_T(*a), TN_T(*b)};
        int nd;
        int64_t shape[TN_MAX_DIMS];
        if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) { PyErr_Clear(); return 0; }
        return tn_ref_weak_type_check("alpha", alpha, ct);
    }
    if (alpha->tag == TN_V_BOOL && ct != TN_DTYPE_BOOL) msg = "Boolean alpha only supported for Boolean results.";
    else if (integral && (alpha->tag == TN_V_FLOAT || alpha->tag == TN_V_COMPLEX))
        msg = "For integral input tensors, argument alpha must not be a floating point number.";
    else if (real && alpha->tag == TN_V_COMPLEX)
        msg = "For non-complex input tensors, argument alpha must not be a complex number.";
    if (msg) {
        PyErr_SetString(PyExc_RuntimeError, msg);
        return -1;
    }
    /* complex32 has an add kernel converting alpha to complex<Half> with the overflow check
     * (measured: add(c32, 2, alpha=70000) refused, alpha=65504 runs) */
    if (!tn_dtype_computable(ct) && ct != TN_DTYPE_C32) return 0;
    return tn_cr_check_scalar(alpha, ct);
}

int tn_require_unquantized_result(tn_dtype dt) {
    if (tn_dtype_infos[dt].kind != TN_KIND_QUANT) return 0;
    if (tn_door_on_meta()) return tn_q_backend_error("aten::empty_strided", "QuantizedMeta"), -1;
    PyErr_SetString(PyExc_RuntimeError,
                    "empty_strided not supported on quantized tensors yet see https://github.com/pytorch/pytorch/issues/74540");
    return -1;
}

int tn_require_computable(const char *op, tn_dtype dt) {
    if (tn_dtype_computable(dt)) return 0;
    PyErr_Format(PyExc_NotImplementedError, "torchnative: aten::%s is not implemented for dtype %s",
                 op, tn_dtype_infos[dt].name);
    return -1;
}

/* dtypes with casts but no arithmetic (uint16/32/64, complex32) can still be filled and copied */
int tn_require_castable(const char *op, tn_dtype dt) {
    if (tn_dtype_computable(dt) || tn_cast_loop(dt, TN_DTYPE_I64)) return 0;
    return tn_require_computable(op, dt);
}

/* ---------- shapes ---------- */

/* Dimension d of an ndim-dim tensor, wrapped; IndexError as upstream words it. */
int tn_wrap_dim(int64_t dim, int ndim, int64_t *out) {
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-n, (long long)(n - 1), (long long)dim);
        return -1;
    }
    *out = dim < 0 ? dim + n : dim;
    return 0;
}

int tn_symints_concrete(const int64_t *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] < -(INT64_C(1) << 62)) {   /* measured: -2^62 runs, -2^62 - 1 is refused */
            PyErr_SetString(PyExc_RuntimeError, "SymIntArrayRef expected to contain only concrete integers");
            return -1;
        }
    return 0;
}

int tn_size_read(const tn_tensor *t, int64_t dim) {
    if (t->ndim == 0) {
        PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
        return -1;
    }
    int64_t w;
    return tn_wrap_dim(dim, t->ndim, &w);
}

/* "[2, 3]" */
void tn_shape_str(char *buf, size_t n, int nd, const int64_t *s) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)s[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

int tn_broadcast_shapes_checked(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    if (tn_broadcast_shapes(na, a, nb, b, nout, out)) return 0;
    /* upstream names the first mismatching dimension, counted from the right */
    int off = 0;
    for (int d = 1; d <= na && d <= nb; d++)
        if (a[na - d] != b[nb - d] && a[na - d] != 1 && b[nb - d] != 1) { off = d; break; }
    PyErr_Format(PyExc_RuntimeError,
                 "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                 (long long)a[na - off], (long long)b[nb - off], (na > nb ? na : nb) - off);
    return -1;
}

int tn_broadcast_tensors_shape(int n, const tn_tensor *const *ts, int *ndim, int64_t *shape) {
    int nd = 0;
    for (int i = 0; i < n; i++) {
        int64_t tmp[TN_MAX_DIMS];
        int k;
        if (tn_broadcast_shapes_checked(nd, shape, ts[i]->ndim, ts[i]->sizes, &k, tmp) < 0) return -1;
        nd = k;
        memcpy(shape, tmp, (size_t)k * sizeof *tmp);
    }
    *ndim = nd;
    return 0;
}

/* ---------- running loops ---------- */

void tn_run_loop(tn_loop loop, const void *ctx, PyObject *out, int nin, PyObject *const *ins) {
    tn_iter it;
    tn_tensor *o = tn_tensor_of(out);
    tn_iter_init(&it, nin + 1, o->ndim, o->sizes);
    tn_iter_set(&it, 0, tn_data(o), o->strides, tn_dtype_itemsize(o->dtype));
    for (int i = 0; i < nin; i++) tn_iter_set_tensor(&it, i + 1, tn_tensor_of(ins[i]));
    if (tn_numel(o) >= 2 * TN_ITER_GRAIN) {
        Py_BEGIN_ALLOW_THREADS
        tn_iter_run_parallel(&it, loop, ctx);
        Py_END_ALLOW_THREADS
    } else {
        tn_iter_run(&it, loop, ctx);
    }
}

/* A same-dtype copy into a contiguous (batch,) rows x cols destination from a source whose
 * last dimension is not the contiguous one (a transposed view: mm's operands in backward) goes
 * through tn_transpose_copy's tiles instead of the element-by-element strided loop. Returns
 * whether it copied. */
static bool transposed_copy(tn_tensor *d, tn_tensor *s) {
    const int nd = d->ndim, size = tn_dtype_itemsize(d->dtype);
    if (d->dtype != s->dtype || (size != 4 && size != 8) || nd < 2 || nd > 3 || s->ndim != nd) return false;
    if (d->math_bits || s->math_bits) return false;
    if (!tn_is_contiguous(d) || tn_numel(d) < 4096) return false;
    const int64_t rows = d->sizes[nd - 2], cols = d->sizes[nd - 1];
    const int64_t rs = s->strides[nd - 2], cs = s->strides[nd - 1];
    if (rs != 1 || cs <= 1 || rows < 2 || cols < 2) return false;
    const int64_t batch = nd == 3 ? d->sizes[0] : 1, bs = nd == 3 ? s->strides[0] : 0;
    const char *sp = tn_data(s);
    char *dp = tn_data(d);
    Py_BEGIN_ALLOW_THREADS
    for (int64_t b = 0; b < batch; b++)
        tn_transpose_copy(rows, cols, size, sp + b * bs * size, rs, cs, dp + b * rows * cols * size);
    Py_END_ALLOW_THREADS
    return true;
}

int tn_out_dtype_exact(PyObject *out, tn_dtype dt) {
    if (!out || tn_tensor_of(out)->dtype == dt) return 0;
    PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype %s, but got %s instead", tn_dtype_cxx_name(dt),
                 tn_dtype_cxx_name(tn_tensor_of(out)->dtype));
    return -1;
}

/* out= of exactly dtype dt, in the words of upstream's TensorIterator / structured kernels (measured:
 * elu.out of a complex32 self into a float out, docs/breadth_more2.md) */
int tn_out_dtype_found(PyObject *out, tn_dtype dt) {
    if (!out || tn_tensor_of(out)->dtype == dt) return 0;
    PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(tn_tensor_of(out)->dtype),
                 tn_dtype_cpp_name(dt));
    return -1;
}

PyObject *tn_out_deliver_exact(PyObject *res, PyObject *out, const char *op) {
    if (res && out && tn_out_dtype_exact(out, tn_tensor_of(res)->dtype) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return tn_out_deliver(res, out, op);
}

PyObject *tn_out_deliver_overlap(PyObject *res, PyObject *out, const char *op, bool exact) {
    if (res && out) {
        const tn_tensor *r = tn_tensor_of(res);
        if ((exact && tn_out_dtype_exact(out, r->dtype) < 0) || tn_out_overlap_as_resized(out, r->ndim, r->sizes, 0, NULL) < 0) {
            Py_DECREF(res);
            return NULL;
        }
    }
    return tn_out_deliver(res, out, op);
}

int tn_out_linalg_castable_named(const char *api, const char *name, tn_dtype from, PyObject *out) {
    tn_dtype got = tn_tensor_of(out)->dtype;
    if (tn_can_cast(from, got)) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s: Expected %s to be safely castable from %s dtype, but got %s with dtype %s",
                 api, name, tn_dtype_cpp_name(from), name, tn_dtype_cpp_name(got));
    return -1;
}

int tn_out_linalg_castable(const char *api, tn_dtype from, PyObject *out) {
    return tn_out_linalg_castable_named(api, "result", from, out);
}

int tn_copy_into(PyObject *dst, PyObject *src) {
    tn_tensor *d = tn_tensor_of(dst), *s = tn_tensor_of(src);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    const tn_tensor *both[2] = {d, s};
    if (tn_broadcast_tensors_shape(2, both, &nd, shape) < 0) return -1;
    if (nd != d->ndim || memcmp(shape, d->sizes, (size_t)nd * sizeof *shape) != 0) {
        char a[256], b[256];
        tn_shape_str(a, sizeof a, s->ndim, s->sizes);
        tn_shape_str(b, sizeof b, d->ndim, d->sizes);
        PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", b, a);
        return -1;
    }
    /* copies work wherever a cast kernel exists (complex32 has casts but no arithmetic) */
    tn_loop loop = tn_cast_loop(d->dtype, s->dtype);
    if (!loop && (tn_require_computable("copy_", d->dtype) < 0 || tn_require_computable("copy_", s->dtype) < 0)) return -1;
    if (d->storage->device == TN_DEVICE_META || s->storage->device == TN_DEVICE_META) return 0;
    if (!loop) { tn_not_implemented("aten::copy_ between these dtypes"); return -1; }
    /* overlapping source: copy through a temporary */
    if (tn_storage_root(d->storage) == tn_storage_root(s->storage) && dst != src) {
        PyObject *tmp = tn_tensor_new_empty(s->ndim, s->sizes, s->dtype, TN_DEVICE_CPU);
        if (!tmp) return -1;
        tn_run_loop(tn_cast_loop(s->dtype, s->dtype), NULL, tmp, 1, &src);
        tn_run_loop(loop, NULL, dst, 1, &tmp);
        Py_DECREF(tmp);
    } else if (transposed_copy(d, s)) {
        /* done: a contiguous copy of a transposed matrix (or batch of them) */
    } else {
        tn_run_loop(loop, NULL, dst, 1, &src);
    }
    d->storage->version++;
    return 0;
}

PyObject *tn_as_dtype(PyObject *t, tn_dtype dtype, bool contig) {
    tn_tensor *x = tn_tensor_of(t);
    if (x->dtype == dtype && (!contig || tn_is_contiguous(x))) return Py_NewRef(t);
    PyObject *r = tn_tensor_new_empty(x->ndim, x->sizes, dtype, x->storage->device);
    if (!r) return NULL;
    if (tn_copy_into(r, t) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

int tn_fill_number(PyObject *t, const tn_value *v) {
    tn_tensor *x = tn_tensor_of(t);
    if (tn_require_castable("fill_", x->dtype) < 0) return -1;
    PyObject *src = NULL;
    if (v->tag == TN_V_TENSOR) src = Py_NewRef(v->u.obj);
    else {
        bool uns_float = v->tag == TN_V_INT && v->uns && !tn_dtype_is_integral(x->dtype, true);
        PyObject *num = v->tag == TN_V_BOOL ? PyBool_FromLong((long)v->u.i)
                      : uns_float ? PyFloat_FromDouble((double)(uint64_t)v->u.i)   /* an unsigned Scalar */
                      : v->tag == TN_V_INT ? PyLong_FromLongLong(v->u.i)
                      : v->tag == TN_V_COMPLEX ? PyComplex_FromDoubles(v->u.c.re, v->u.c.im)
                      : PyFloat_FromDouble(v->u.f);
        src = num ? tn_tensor_from_number(num, false) : NULL;
        Py_XDECREF(num);
    }
    if (!src) return -1;
    int r = tn_copy_into(t, src);
    Py_DECREF(src);
    return r;
}

/* ---------- out= ---------- */

int tn_resize(PyObject *t, int ndim, const int64_t *sizes) {
    tn_tensor *x = tn_tensor_of(t);
    int64_t n;
    if (ndim > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: tensors of more than %d dimensions are not supported", TN_MAX_DIMS);
        return -1;
    }
    if (!tn_sizes_numel(ndim, sizes, &n)) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return -1;
    }
    size_t need, isz = (size_t)tn_dtype_itemsize(x->dtype);
    if (__builtin_add_overflow((size_t)x->offset, (size_t)n, &need) || __builtin_mul_overflow(need, isz, &need)) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return -1;
    }
    if (need > x->storage->nbytes) {
        if (x->storage->aliases) {
            tn_not_implemented("growing a storage while a .data alias of it lives");
            return -1;
        }
        if (!x->storage->resizable || x->storage->release) {
            PyErr_SetString(PyExc_RuntimeError, "Trying to resize storage that is not resizable");
            return -1;
        }
        if (tn_storage_resize(x->storage, need) != TN_OK) { PyErr_NoMemory(); return -1; }
    }
    x->ndim = ndim;
    memcpy(x->sizes, sizes, (size_t)ndim * sizeof *sizes);
    tn_contiguous_strides(ndim, sizes, x->strides);
    return 0;
}

int tn_out_prepare(PyObject *out, int ndim, const int64_t *sizes, tn_dtype result_dtype, const char *op) {
    tn_tensor *o = tn_tensor_of(out);
    if (!tn_can_cast(result_dtype, o->dtype)) {
        tn_cast_error(result_dtype, o->dtype);
        return -1;
    }
    if (o->ndim == ndim && memcmp(o->sizes, sizes, (size_t)ndim * sizeof *sizes) == 0) return 0;
    if (tn_numel(o) != 0) {
        char a[256], b[256];
        tn_shape_str(a, sizeof a, o->ndim, o->sizes);
        tn_shape_str(b, sizeof b, ndim, sizes);
        if (PyErr_WarnFormat(PyExc_UserWarning, 1,
                "An output with one or more elements was resized since it had shape %s, which does not "
                "match the required output shape %s. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can explicitly "
                "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).", a, b) < 0)
            return -1;
    }
    return tn_resize(out, ndim, sizes);
}

int tn_meta_cover_view(tn_storage *s, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, tn_dtype dt) {
    uint64_t need;
    if (!tn_extent_bytes(ndim, sizes, strides, offset, tn_dtype_itemsize(dt), &need)) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return -1;
    }
    if (need <= s->nbytes) return 0;
    if (need > SIZE_MAX || tn_storage_grow_zeroed(s, (size_t)need) != TN_OK) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

PyObject *tn_meta_copy_out(PyObject *res, PyObject *out, bool restride) {
    const tn_tensor *r = tn_tensor_of(res);
    tn_dtype from = r->dtype, to = tn_tensor_of(out)->dtype;
    if (tn_out_prepare(out, r->ndim, r->sizes, to, NULL) < 0) return NULL;
    if (restride) {
        PyObject *v = tn_at_as_strided_(out, (tn_ints){.v = r->sizes, .n = r->ndim}, (tn_ints){.v = r->strides, .n = r->ndim}, NULL);
        if (!v) return NULL;
        Py_DECREF(v);
    }
    return tn_ref_safe_cast(from, to) < 0 ? NULL : Py_NewRef(out);
}

int tn_ref_safe_cast(tn_dtype from, tn_dtype to) {
    if (tn_can_cast(from, to)) return 0;
    PyErr_Format(PyExc_RuntimeError, "Attempting to cast from torch.%s to out tensor with dtype torch.%s, but "
                 "this can't be cast because it is not safe!", tn_dtype_infos[from].name, tn_dtype_infos[to].name);
    return -1;
}

/* A new dense tensor with explicit strides (a permutation of a contiguous layout), not a view. */
PyObject *tn_tensor_new_strided(int ndim, const int64_t *sizes, const int64_t *strides, tn_dtype dt) {
    int64_t n;
    if (!tn_sizes_numel(ndim, sizes, &n)) { PyErr_SetString(PyExc_RuntimeError, "size overflow"); return NULL; }
    tn_storage *s = tn_storage_new((size_t)n * (size_t)tn_dtype_itemsize(dt), TN_DEVICE_CPU);
    if (!s) return PyErr_NoMemory();
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = s;
    t.ndim = ndim;
    t.dtype = dt;
    for (int i = 0; i < ndim; i++) { t.sizes[i] = sizes[i]; t.strides[i] = strides[i]; }
    return tn_tensor_wrap(&t);
}

/* The value of a 0-dim tensor as a kernel scalar, exactly (float64/int64/bool read directly,
 * other real dtypes through float64). 0, or -1 with an exception. */
int tn_scalar_of_0dim(PyObject *t, tn_scalar *out) {
    tn_tensor *bt = tn_tensor_of(t);
    const char *p = tn_data(bt);
    if (bt->dtype == TN_DTYPE_F64) { double d; memcpy(&d, p, 8); *out = tn_scalar_f(d); return 0; }
    if (bt->dtype == TN_DTYPE_I64) { int64_t i; memcpy(&i, p, 8); *out = tn_scalar_i(i); return 0; }
    if (bt->dtype == TN_DTYPE_BOOL) { *out = tn_scalar_i(*p != 0); return 0; }
    PyObject *y = tn_as_dtype(t, TN_DTYPE_F64, true);
    if (!y) return -1;
    double d;
    memcpy(&d, tn_data(tn_tensor_of(y)), 8);
    Py_DECREF(y);
    *out = tn_scalar_f(d);
    return 0;
}

/* ---------- drivers ---------- */


static bool is_wrapped(const tn_value *v) {
    return v->tag == TN_V_TENSOR && (v->wrapped || ((tn_tensor_obj *)v->u.obj)->wrapped_number);
}

/* Finish an op computed into `res` (of result dtype): deliver to out= or in-place target. */
static PyObject *deliver(PyObject *res, PyObject *target) {
    if (!target) return res;
    int r = tn_copy_into(target, res);
    Py_DECREF(res);
    return r < 0 ? NULL : Py_NewRef(target);
}

/* Dense without overlap: some order of the dimensions makes the strides contiguous. */
bool tn_dense_non_overlapping(const tn_tensor *t) {
    int perm[TN_MAX_DIMS], n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] == 0) return true;
        if (t->sizes[i] != 1) perm[n++] = i;
    }
    for (int i = 1; i < n; i++) /* insertion sort by stride */
        for (int j = i; j > 0 && t->strides[perm[j - 1]] > t->strides[perm[j]]; j--) {
            int k = perm[j]; perm[j] = perm[j - 1]; perm[j - 1] = k;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expect) return false;
        expect *= t->sizes[perm[i]];
    }
    return true;
}

static int check_overlap(PyObject *dst, int nin, PyObject *const *ins, bool same_ok) {
    const tn_tensor *d = tn_tensor_of(dst);
    int64_t dn = tn_numel(d);
    if (dn == 0) return 0;
    bool ddense = tn_dense_non_overlapping(d);
    if (!ddense) {
        for (int i = 0; i < d->ndim; i++)
            if (d->strides[i] == 0 && d->sizes[i] > 1) {
                PyErr_SetString(PyExc_RuntimeError,
                                "unsupported operation: more than one element of the written-to tensor refers to a "
                                "single memory location. Please clone() the tensor before performing the operation.");
                return -1;
            }
        return 0;
    }
    const char *db = tn_data(d), *de = db + dn * tn_dtype_itemsize(d->dtype);
    for (int k = 0; k < nin; k++) {
        if (!ins[k] || (same_ok && ins[k] == dst)) continue;
        const tn_tensor *t = tn_tensor_of(ins[k]);
        if (tn_storage_root(t->storage) != tn_storage_root(d->storage) || tn_numel(t) == 0 || !tn_dense_non_overlapping(t))
            continue;
        const char *tb = tn_data(t), *te = tb + tn_numel(t) * tn_dtype_itemsize(t->dtype);
        bool full = tb == db && te == de && t->ndim == d->ndim &&
                    memcmp(t->strides, d->strides, (size_t)d->ndim * sizeof *d->strides) == 0;
        if ((!full || !same_ok) && tb < de && db < te) {
            PyErr_SetString(PyExc_RuntimeError,
                            "unsupported operation: some elements of the input tensor and the written-to tensor refer "
                            "to a single memory location. Please clone() the tensor before performing the operation.");
            return -1;
        }
    }
    return 0;
}

int tn_check_kernel_scalar(const tn_value *v, tn_dtype ct, bool opmath) {
    if (!v || !tn_value_is_number(v) || tn_door_on_meta()) return 0;
    if (opmath) ct = ct == TN_DTYPE_F16 || ct == TN_DTYPE_BF16 ? TN_DTYPE_F32 : ct == TN_DTYPE_C32 ? TN_DTYPE_C64 : ct;
    return tn_cr_check_scalar(v, ct);
}

int tn_check_overlap(PyObject *dst, int nin, PyObject *const *ins) { return check_overlap(dst, nin, ins, true); }

int tn_out_overlap_as_resized(PyObject *out, int ndim, const int64_t *sizes, int nin, PyObject *const *ins) {
    const tn_tensor *o = tn_tensor_of(out);
    if (o->ndim != ndim || memcmp(o->sizes, sizes, (size_t)ndim * sizeof *sizes) != 0) return 0;
    return check_overlap(out, nin, ins, true);
}
int tn_check_no_overlap(PyObject *dst, int nin, PyObject *const *ins) { return check_overlap(dst, nin, ins, false); }

bool tn_inplace_direct(PyObject *self, tn_dtype rt, int nin, PyObject *const *ins) {
    const tn_tensor *d = tn_tensor_of(self);
    if (d->dtype != rt || d->storage->device != TN_DEVICE_CPU || !tn_dense_non_overlapping(d)) return false;
    for (int k = 0; k < nin; k++) {
        const tn_tensor *t = tn_tensor_of(ins[k]);
        if (tn_storage_root(t->storage) != tn_storage_root(d->storage)) continue;
        if (tn_data(t) != tn_data(d) || t->ndim != d->ndim ||
            memcmp(t->sizes, d->sizes, (size_t)d->ndim * sizeof *d->sizes) != 0 ||
            memcmp(t->strides, d->strides, (size_t)d->ndim * sizeof *d->strides) != 0)
            return false;
    }
    return true;
}

PyObject *tn_new_result(int nd, const int64_t *shape, tn_dtype dtype, int nin, const tn_tensor *const *ins) {
    PyObject *res = tn_tensor_new_empty(nd, shape, dtype, TN_DEVICE_CPU);
    if (!res || nd < 2) return res;
    /* upstream's fast setup: all inputs of the result's shape, all contiguous -> contiguous; all
     * dense with one and the same strides -> those strides */
    bool same = true, contig = true, same_strides = true;
    for (int k = 0; k < nin && same; k++) {
        same = ins[k]->ndim == nd && memcmp(ins[k]->sizes, shape, (size_t)nd * sizeof *shape) == 0;
        if (same && !tn_is_contiguous(ins[k])) contig = false;
        if (same && memcmp(ins[k]->strides, ins[0]->strides, (size_t)nd * sizeof *shape) != 0) same_strides = false;
    }
    tn_tensor *r = tn_tensor_of(res);
    if (same && contig) return res;
    if (same && same_strides && nin > 0 && tn_dense_non_overlapping(ins[0])) {
        memcpy(r->strides, ins[0]->strides, (size_t)nd * sizeof *shape);
        return res;
    }
    /* general case: sort dimensions fastest-first by the inputs' strides (broadcast dimensions
     * skipped, ties broken by the next input, equal strides put the smaller size first), as
     * upstream's reorder_dimensions; then the result is contiguous in that order */
    int perm[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
#define TN__STRIDE(t, d) ((d) < nd - (t)->ndim || ((t)->sizes[(d) - (nd - (t)->ndim)] == 1 && shape[d] != 1)                           ? 0 : (t)->strides[(d) - (nd - (t)->ndim)])
    for (int i = 1; i < nd; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int cmp = 0;
            for (int k = 0; k < nin && !cmp; k++) {
                int64_t s0 = TN__STRIDE(ins[k], perm[d0]), s1 = TN__STRIDE(ins[k], perm[d1]);
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (shape[perm[d0]] > shape[perm[d1]]) cmp = 1;
            }
            if (cmp > 0) {
                int t = perm[d0]; perm[d0] = perm[d1]; perm[d1] = t;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
#undef TN__STRIDE
    bool inverted = true;
    for (int i = 0; i < nd; i++) if (perm[i] != nd - 1 - i) inverted = false;
    if (inverted) return res;
    int64_t st = 1;
    for (int i = 0; i < nd; i++) {
        r->strides[perm[i]] = st;
        st *= shape[perm[i]];
    }
    return res;
}

/* Upstream's refusal of a binary kernel its dispatch macro lacks the dtype for (uint16/32/64 and
 * float8 have few kernels): the kernel's name as upstream spells it. */
PyObject *tn_binary_kernel_missing(tn_binary_op op, bool reduced_float_scalar, tn_dtype dt) {
    const char *k = NULL;
    switch (op) {
    case TN_BINARY_ADD: case TN_BINARY_SUB: k = "add_stub"; break;
    case TN_BINARY_POW: k = "pow"; break;
    case TN_BINARY_MUL: if (reduced_float_scalar) k = "mul_cpu_reduced_float"; break;
    case TN_BINARY_FMAX: case TN_BINARY_FMIN:  /* integral fmax / fmin are maximum / minimum */
        if (!tn_dtype_is_floating(dt)) k = op == TN_BINARY_FMAX ? "maximum_cpu" : "minimum_cpu";
        break;
    default: break;
    }
    if (k) return tn_kernel_missing(k, dt);
    return tn_kernel_missing_cpu(tn_binary_names[op], dt);
}

PyObject *tn_binary(tn_binary_op op, const char *opname, tn_value *a, tn_value *b, PyObject *out,
                    bool inplace, const void *ctx) {
    tn_value pair[2] = {*a, *b};
    PyObject *orig[2] = {a->u.obj, b->u.obj}, *target = inplace ? a->u.obj : out;
    /* upstream's TensorIterator checks overlap before the shapes and dtypes */
    if (target && tn_check_overlap(target, 2, orig) < 0) return NULL;
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    bool compare = tn_binary_out_dtype(op, TN_DTYPE_F32) == TN_DTYPE_BOOL;
    if (op == TN_BINARY_DIV && !tn_dtype_is_floating(ct) && !tn_dtype_is_complex(ct))
        ct = tn_py.default_dtype; /* true division promotes integers to the default float */
    /* complex32 add/sub/mul: upstream computes in complex<float> and narrows once; kt is the
     * dtype the kernel runs in */
    tn_dtype kt = ct;
    if (ct == TN_DTYPE_C32 && (op == TN_BINARY_ADD || op == TN_BINARY_SUB || op == TN_BINARY_MUL)) kt = TN_DTYPE_C64;
    /* float8: upstream's mul converts each element to float (exact) and rounds the product
     * once; a second operand of one element takes mul's reduced-float scalar
     * path, which has no float8 kernel (measured) */
    bool f8 = tn_dtype_infos[ct].kind == TN_KIND_FLOAT8;
    bool f8_scalar_mul = f8 && op == TN_BINARY_MUL && tn_numel(TN_T(*b)) == 1;
    if (f8 && !f8_scalar_mul && op == TN_BINARY_MUL && tn_cast_loop(ct, TN_DTYPE_F32))
        kt = TN_DTYPE_F32;
    /* a dtype without the kernel (uint16/32/64 and float8 have only a few) is refused after the
     * iterator's shape and dtype checks, as upstream's dispatch comes after them */
    tn_loop loop = f8_scalar_mul ? NULL : tn_binary_loop(op, kt);
    if (!loop && tn_dtype_computable(kt)) { /* upstream raises NotImplementedError naming the kernel and ScalarType */
        PyErr_Format(PyExc_NotImplementedError, "\"%s_cpu\" not implemented for '%s'", tn_binary_names[op],
                     tn_dtype_cpp_name(ct));
        return NULL;
    }
    tn_dtype rt = tn_binary_out_dtype(op, ct);
    PyObject *x = NULL, *y = NULL, *res = NULL;
    const tn_tensor *ts[2] = {TN_T(*a), TN_T(*b)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (inplace) {
        tn_tensor *t = TN_T(*a);
        if (nd != t->ndim || memcmp(shape, t->sizes, (size_t)nd * sizeof *shape) != 0) {
            char s1[256], s2[256];
            tn_shape_str(s1, sizeof s1, t->ndim, t->sizes);
            tn_shape_str(s2, sizeof s2, nd, shape);
            PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", s1, s2);
            return NULL;
        }
        if (!tn_can_cast(rt, t->dtype)) {
            tn_cast_error(rt, t->dtype);
            return NULL;
        }
    } else if (out && tn_out_prepare(out, nd, shape, compare ? TN_DTYPE_BOOL : rt, opname) < 0) {
        return NULL;
    }
    if (!loop) return tn_binary_kernel_missing(op, f8_scalar_mul, ct);
    /* integer division by zero raises, as upstream does */
    int64_t nres = 1;
    for (int i = 0; i < nd; i++) nres *= shape[i];
    if ((op == TN_BINARY_DIV_TRUNC || op == TN_BINARY_DIV_FLOOR || op == TN_BINARY_REMAINDER ||
         op == TN_BINARY_FMOD) && tn_dtype_is_integral(ct, true) && nres > 0) {
        PyObject *bz = tn_as_dtype(b->u.obj, ct, true);
        if (!bz) return NULL;
        tn_tensor *bt = tn_tensor_of(bz);
        int64_t n = tn_numel(bt);
        int isz = tn_dtype_itemsize(ct);
        const char *p = tn_data(bt);
        bool zero = false;
        for (int64_t i = 0; i < n && !zero; i++) {
            int64_t v = 0;
            memcpy(&v, p + i * isz, (size_t)isz);
            zero = (isz == 8 ? v : (v & ((1LL << (8 * isz)) - 1))) == 0;
        }
        Py_DECREF(bz);
        if (zero) { PyErr_SetString(PyExc_RuntimeError, "ZeroDivisionError"); return NULL; }
    }
    /* Tensor op wrapped-number on reduced floats keeps the number in opmath (see elementwise.h) */
    tn_loop sloop = NULL;
    /* upstream's "CPU scalar" path: any 0-dim second operand (wrapped or not), measured */
    if (TN_T(*b)->ndim == 0 && !is_wrapped(a) && (op == TN_BINARY_MUL || op == TN_BINARY_DIV || op == TN_BINARY_DIV_FLOOR ||
                                                   op == TN_BINARY_DIV_TRUNC) &&
        (ct == TN_DTYPE_F16 || ct == TN_DTYPE_BF16) && !ctx)
        sloop = tn_binary_scalar_loop(op, ct);
    if ((f8 || ct == TN_DTYPE_C32) && kt != ct) {
        /* float8 computed in float, complex32 in complex64: an operand of another dtype (a number,
         * a 0-dim tensor) is first cast to the common dtype, as upstream's iterator does
         * (measured: -inf * x on float8_e4m3fn is -448 * x; complex32 * 0.3 multiplies by
         * complex<Half>(0.3)) */
        PyObject *xa = tn_as_dtype(a->u.obj, ct, false), *yb = xa ? tn_as_dtype(b->u.obj, ct, false) : NULL;
        x = yb ? tn_as_dtype(xa, kt, false) : NULL;
        y = x ? tn_as_dtype(yb, kt, false) : NULL;
        Py_XDECREF(xa);
        Py_XDECREF(yb);
        if (!y) goto fail;
    } else {
        x = tn_as_dtype(a->u.obj, kt, false);
        if (!x || (!sloop && !(y = tn_as_dtype(b->u.obj, kt, false)))) goto fail;
    }
    PyObject *ins[2] = {x, y};
    bool direct = target && kt == ct && tn_inplace_direct(target, rt, sloop ? 1 : 2, ins);
    bool narrow = kt != ct && !compare;
    res = direct ? Py_NewRef(target) : tn_new_result(nd, shape, narrow ? kt : rt, 2, ts);
    if (!res) goto fail;
    if (sloop) {
        tn_scalar sc;
        if (tn_scalar_of_0dim(b->u.obj, &sc) < 0) goto fail;
        tn_run_loop(sloop, &sc, res, 1, &x);
    } else {
        tn_run_loop(loop, ctx, res, 2, ins);
    }
    if (direct) { tn_tensor_of(res)->storage->version++; Py_DECREF(x); Py_XDECREF(y); return res; }
    if (narrow) { /* narrow once */
        PyObject *nr = tn_new_result(nd, shape, rt, 2, ts);
        if (!nr || tn_copy_into(nr, res) < 0) { Py_XDECREF(nr); goto fail; }
        Py_DECREF(res);
        res = nr;
    }
    Py_DECREF(x);
    Py_XDECREF(y);
    return deliver(res, target);
fail:
    Py_XDECREF(x);
    Py_XDECREF(y);
    Py_XDECREF(res);
    return NULL;
}

PyObject *tn_unary(tn_unary_op op, const char *opname, tn_value *a, PyObject *out, bool inplace,
                   bool float_op, const void *ctx) {
    tn_tensor *t = TN_T(*a);
    tn_dtype ct = t->dtype;
    if (float_op && tn_dtype_is_integral(ct, true)) ct = tn_py.default_dtype;
    if (tn_require_computable(opname, ct) < 0) return NULL;
    tn_loop loop = tn_unary_loop(op, ct);
    if (!loop) {
        PyErr_Format(PyExc_NotImplementedError, "\"%s_cpu\" not implemented for '%s'", opname, tn_dtype_cpp_name(ct));
        return NULL;
    }
    tn_dtype rt = tn_unary_out_dtype(op, ct);
    PyObject *target = inplace ? a->u.obj : out;
    if (inplace && !tn_can_cast(rt, t->dtype)) {
        tn_cast_error(rt, t->dtype);
        return NULL;
    }
    if (target && tn_check_overlap(target, 1, &a->u.obj) < 0) return NULL;
    if (out && tn_out_prepare(out, t->ndim, t->sizes, rt, opname) < 0) return NULL;
    PyObject *x = tn_as_dtype(a->u.obj, ct, false);
    if (!x) return NULL;
    const tn_tensor *t0 = t;
    bool direct = target && tn_inplace_direct(target, rt, 1, &x);
    PyObject *res = direct ? Py_NewRef(target) : tn_new_result(t->ndim, t->sizes, rt, 1, &t0);
    if (!res) { Py_DECREF(x); return NULL; }
    tn_run_loop(loop, ctx, res, 1, &x);
    Py_DECREF(x);
    if (direct) tn_tensor_of(res)->storage->version++;   /* as tn_copy_into counts a write */
    return direct ? res : deliver(res, target);
}

int tn_dims_mask(const tn_tensor *t, const tn_value *dv, bool empty_all, uint64_t *mask) {
    if (!dv || dv->tag == TN_V_NONE) { *mask = TN_ALL_DIMS_MASK(t->ndim); return 0; }
    if (dv->tag == TN_V_INT) {
        int d;
        if (tn_wrap_dim_i(dv->u.i, t->ndim, &d) < 0) return -1;
        *mask = t->ndim ? 1ull << d : 0;
        return 0;
    }
    if (dv->u.ints.n == 0) { *mask = empty_all ? TN_ALL_DIMS_MASK(t->ndim) : 0; return 0; }
    uint64_t seen = 0;
    for (int i = 0; i < dv->u.ints.n; i++) {
        int d;
        if (tn_wrap_dim_i(dv->u.ints.v[i], t->ndim, &d) < 0) return -1;
        if (seen >> d & 1) {
            PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", d);
            return -1;
        }
        seen |= 1ull << d;
    }
    *mask = t->ndim ? seen : 0;
    return 0;
}

const char *tn_dtype_cxx_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "float";
    case TN_DTYPE_F64: return "double";
    case TN_DTYPE_F16: return "c10::Half";
    case TN_DTYPE_BF16: return "c10::BFloat16";
    case TN_DTYPE_I64: return "long int";
    case TN_DTYPE_I32: return "int";
    case TN_DTYPE_I16: return "short int";
    case TN_DTYPE_I8: return "signed char";
    case TN_DTYPE_U8: return "unsigned char";
    case TN_DTYPE_BOOL: return "bool";
    case TN_DTYPE_C32: return "c10::complex<c10::Half>";
    case TN_DTYPE_C64: return "c10::complex<float>";
    case TN_DTYPE_C128: return "c10::complex<double>";
    case TN_DTYPE_U16: return "short unsigned int";
    case TN_DTYPE_U32: return "unsigned int";
    case TN_DTYPE_U64: return "long unsigned int";
    case TN_DTYPE_F8E4M3FN: return "c10::Float8_e4m3fn";
    case TN_DTYPE_F8E5M2: return "c10::Float8_e5m2";
    case TN_DTYPE_F8E4M3FNUZ: return "c10::Float8_e4m3fnuz";
    case TN_DTYPE_F8E5M2FNUZ: return "c10::Float8_e5m2fnuz";
    case TN_DTYPE_F8E8M0FNU: return "c10::Float8_e8m0fnu";
    case TN_DTYPE_QI8: return "c10::qint8";   /* the quantized and bits types: measured */
    case TN_DTYPE_QU8: return "c10::quint8";
    case TN_DTYPE_QI32: return "c10::qint32";
    case TN_DTYPE_QU4X2: return "c10::quint4x2";
    case TN_DTYPE_QU2X4: return "c10::quint2x4";
    case TN_DTYPE_BITS1X8: return "c10::bits1x8";
    case TN_DTYPE_BITS2X4: return "c10::bits2x4";
    case TN_DTYPE_BITS4X2: return "c10::bits4x2";
    case TN_DTYPE_BITS8: return "c10::bits8";
    case TN_DTYPE_BITS16: return "c10::bits16";
    default: return tn_dtype_cpp_name(d);
    }
}

PyObject *tn_out_deliver(PyObject *res, PyObject *out, const char *op) {
    if (!res || !out) return res;
    tn_tensor *r = tn_tensor_of(res);
    if (tn_out_prepare(out, r->ndim, r->sizes, r->dtype, op) < 0 || tn_copy_into(out, res) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    Py_DECREF(res);
    return Py_NewRef(out);
}

PyObject *tn_return_pair(const char *name, PyObject *a, PyObject *b) {
    if (!a || !b) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        return NULL;
    }
    PyObject *tup = PyTuple_Pack(2, a, b);
    Py_DECREF(a);
    Py_DECREF(b);
    if (!tup) return NULL;
    PyObject *cls = tn_return_type(name);
    if (!cls) {
        Py_DECREF(tup);
        return tn_not_implemented(name);
    }
    PyObject *r = PyObject_CallFunctionObjArgs(cls, tup, NULL);
    Py_DECREF(tup);
    return r;
}

PyObject *tn_kernel_missing(const char *kname, tn_dtype dt) {
    PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", kname, tn_dtype_cpp_name(dt));
    return NULL;
}

PyObject *tn_int_list(const int64_t *v, int n) {
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) { Py_CLEAR(l); break; }
        PyList_SetItem(l, i, x);
    }
    return l;
}

/* A number value as a 0-dim wrapped-number tensor value (new reference in out->u.obj); a tensor
 * value is passed through with a new reference. */
int tn_value_as_tensor(const tn_value *in, tn_value *out) {
    memset(out, 0, sizeof *out);
    if (in->tag == TN_V_TENSOR) { *out = *in; Py_INCREF(out->u.obj); return 0; }
    PyObject *num = in->tag == TN_V_BOOL ? PyBool_FromLong((long)in->u.i)
                  : in->tag == TN_V_INT && in->uns ? PyLong_FromUnsignedLongLong((uint64_t)in->u.i)
                  : in->tag == TN_V_INT ? PyLong_FromLongLong(in->u.i)
                  : in->tag == TN_V_COMPLEX ? PyComplex_FromDoubles(in->u.c.re, in->u.c.im)
                  : PyFloat_FromDouble(in->u.f);
    if (!num) return -1;
    PyObject *t = tn_tensor_from_number(num, true);
    Py_DECREF(num);
    if (!t) return -1;
    out->tag = TN_V_TENSOR;
    out->wrapped = true;
    out->u.obj = t;
    return 0;
}

PyObject *tn_cast_error(tn_dtype from, tn_dtype to) {
    PyErr_Format(PyExc_RuntimeError, "result type %s can't be cast to the desired output type %s",
                 tn_dtype_cpp_name(from), tn_dtype_cpp_name(to));
    return NULL;
}

PyObject *tn_kernel_missing_cpu(const char *name, tn_dtype dt) {
    PyErr_Format(PyExc_NotImplementedError, "\"%s_cpu\" not implemented for '%s'", name, tn_dtype_cpp_name(dt));
    return NULL;
}

int tn_div_rounding_mode(const tn_value *mode, bool meta_ref) {
    if (!mode || mode->tag != TN_V_STR) return 0;
    const char *m = PyUnicode_AsUTF8AndSize(mode->u.obj, NULL);
    if (!m) return -1;
    if (!strcmp(m, "trunc")) return 1;
    if (!strcmp(m, "floor")) return 2;
    if (meta_ref && tn_door_on_meta())
        PyErr_Format(PyExc_ValueError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %s.", m);
    else
        PyErr_Format(PyExc_RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", m);
    return -1;
}

PyObject *tn_meta_no_kernel(const char *op) {
    PyErr_Format(PyExc_NotImplementedError,
                 "aten::%s: attempted to run this operator with Meta tensors, but there was no fake impl or Meta "
                 "kernel registered. You may have run into this message while using an operator with PT2 "
                 "compilation APIs (torch.compile/torch.export); in order to use this operator with those APIs "
                 "you'll need to add a fake impl. Please see the following for next steps:  "
                 "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html",
                 op);
    return NULL;
}
