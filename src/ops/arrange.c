/* ops/arrange.c — meshgrid, repeat_interleave, tril_indices / triu_indices, trace and rot90.
 *
 * meshgrid and repeat_interleave(self, ...) are upstream composites: they run as the ops
 * upstream's composite calls, through the door (views and expands for meshgrid; unsqueeze,
 * expand, clone, flatten for an int repeat; repeat_interleave(repeats) then index_select for a
 * tensor of repeats), so the same functions serve as their autograd decompositions
 * (autograd/decomp.c). rot90 (a CompositeExplicitAutograd op with its own formula) runs as
 * upstream's flips and transpose. repeat_interleave(repeats), the index lists and
 * trace are kernels: trace sums the diagonal in upstream's accumulation type (double for float,
 * float for f16 / bf16, int64 for integers, whose result is int64). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <stdint.h>
#include <stdio.h>

/* ---- meshgrid ---- */

static PyObject *meshgrid(PyObject *list, const char *indexing) {
    Py_ssize_t n = PySequence_Size(list);
    if (n < 0) return NULL;
    if (n == 0) return PyErr_Format(PyExc_RuntimeError, "meshgrid expects a non-empty TensorList");
    /* upstream's checks (dtypes, indexing, each tensor's dims) come before our limit of
     * TN_MAX_DIMS tensors, so they run over all n */
    PyObject **ts = PyMem_Calloc((size_t)n, sizeof *ts);
    if (!ts) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) ts[i] = PySequence_GetItem(list, i);   /* new refs */
    PyObject *res = NULL;
    for (Py_ssize_t i = 0; i + 1 < n; i++)
        if (tn_tensor_of(ts[i])->dtype != tn_tensor_of(ts[i + 1])->dtype) {
            PyErr_SetString(PyExc_RuntimeError, "meshgrid expects all tensors to have the same dtype");
            goto done;
        }
    bool swap = false;
    if (strcmp(indexing, "xy") == 0) swap = n >= 2;
    else if (strcmp(indexing, "ij") != 0) {
        PyErr_Format(PyExc_RuntimeError, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s",
                     indexing);
        goto done;
    }
    if (swap) { PyObject *t = ts[0]; ts[0] = ts[1]; ts[1] = t; }
    int64_t shape[TN_MAX_DIMS], view[TN_MAX_DIMS];
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *t = tn_tensor_of(ts[i]);
        if (t->ndim > 1) {
            PyObject *r = PyObject_Repr(ts[i]);
            if (r) PyErr_Format(PyExc_RuntimeError, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                                                    "got: %U", r);
            Py_XDECREF(r);
            goto done;
        }
    }
    if (n > TN_MAX_DIMS) {
        tn_not_implemented("meshgrid of more than " TN_MAX_DIMS_S " tensors");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = tn_numel(tn_tensor_of(ts[i]));
        view[i] = 1;
    }
    res = PyTuple_New(n);
    for (Py_ssize_t i = 0; res && i < n; i++) {
        view[i] = -1;
        PyObject *v = tn_at_view(ts[i], TN_IN(view, n));
        PyObject *e = v ? tn_at_expand(v, TN_IN(shape, n), false) : NULL;
        Py_XDECREF(v);
        view[i] = 1;
        if (!e) { Py_CLEAR(res); break; }
        PyTuple_SetItem(res, swap && i < 2 ? 1 - i : i, e);
    }
done:
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(ts[i]);
    PyMem_Free(ts);
    return res;
}
PyObject *tn_op_meshgrid(tn_value *a) {
    static bool warned;
    if (!warned) { /* upstream's TORCH_WARN_ONCE */
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning, "torch.meshgrid: in an upcoming release, it will be required to pass "
                                            "the indexing argument.", 1) < 0)
            return NULL;
    }
    return meshgrid(a[0].u.obj, "ij");
}
PyObject *tn_op_meshgrid_indexing(tn_value *a) {
    const char *ix = PyUnicode_AsUTF8AndSize(a[1].u.obj, NULL);
    return ix ? meshgrid(a[0].u.obj, ix) : NULL;
}

/* ---- repeat_interleave ---- */

/* repeat_interleave(repeats, output_size): position i repeated repeats[i] times (int32 / int64) */
PyObject *tn_op_repeat_interleave_Tensor(tn_value *a) {
    PyObject *rep = a[0].u.obj;
    const tn_tensor *r = tn_tensor_of(rep);
    if (r->dtype != TN_DTYPE_I32 && r->dtype != TN_DTYPE_I64) return tn_kernel_missing("repeat_interleave_cpu", r->dtype);
    if (r->ndim != 1) return PyErr_Format(PyExc_RuntimeError, "repeat_interleave only accept 1D vector as repeat");
    PyObject *rc = tn_as_dtype(rep, TN_DTYPE_I64, true);
    if (!rc) return NULL;
    const int64_t *rv = (const int64_t *)tn_data(tn_tensor_of(rc));
    int64_t n = r->sizes[0], total = 0;
    bool neg = false;
    for (int64_t i = 0; i < n; i++) { total += rv[i]; neg |= rv[i] < 0; }
    PyObject *res = NULL;
    if (!tn_is_none(&a[1])) {
        if (n > 0 && a[1].u.i != total) {
            PyErr_SetString(PyExc_RuntimeError, neg ? "repeats can not be negative" : "allocated size does not match required size");
            goto done;
        }
        total = a[1].u.i;
    } else if (neg) {
        PyErr_SetString(PyExc_RuntimeError, "repeats can not be negative");
        goto done;
    }
    if (n == 0) total = 0;
    int64_t sz[1] = {total};
    res = tn_tensor_new_empty(1, sz, r->dtype, TN_DEVICE_CPU);
    if (!res) goto done;
    char *out = tn_data(tn_tensor_of(res));
    for (int64_t i = 0, j = 0; i < n; i++)
        for (int64_t k = 0; k < rv[i]; k++, j++) {
            if (r->dtype == TN_DTYPE_I64) ((int64_t *)out)[j] = i;
            else ((int32_t *)out)[j] = (int32_t)i;
        }
done:
    Py_DECREF(rc);
    return res;
}

/* repeat_interleave(self, repeats tensor, dim, output_size): index_select(dim, repeat_interleave(repeats)) */
PyObject *tn_op_repeat_interleave_self_Tensor(tn_value *a) {
    PyObject *self = a[0].u.obj, *rep = a[1].u.obj, *input = NULL, *reps = NULL, *idx = NULL, *res = NULL;
    int64_t dim = 0;
    if (tn_is_none(&a[2])) input = tn_at_flatten_using_ints(self, 0, -1);
    else { input = Py_NewRef(self); dim = a[2].u.i; }
    if (!input) return NULL;
    const tn_tensor *it = tn_tensor_of(input), *rt = tn_tensor_of(rep);
    if (rt->ndim > 1) {   /* upstream checks repeats' rank first; the dim is wrapped by size(dim) after */
        PyErr_SetString(PyExc_RuntimeError, "repeats must be 0-dim or 1-dim tensor");
        goto done;
    }
    int64_t wd;
    if (tn_wrap_dim(dim, it->ndim, &wd) < 0) goto done;
    int64_t size = it->ndim ? it->sizes[wd] : 1;
    if (rt->ndim == 0 || (rt->ndim == 1 && rt->sizes[0] == 1)) {
        PyObject *one = tn_at_reshape(rep, TN_IS(1));
        reps = one ? tn_at_expand(one, TN_IS((long long)size), false) : NULL;
        Py_XDECREF(one);
    } else if (rt->ndim == 1) {
        if (rt->sizes[0] != size) {
            PyErr_Format(PyExc_RuntimeError, "repeats must have the same size as input along dim, but got "
                                             "repeats.size(0) = %lld and input.size(%lld) = %lld",
                         (long long)rt->sizes[0], (long long)dim, (long long)size);
            goto done;
        }
        reps = Py_NewRef(rep);
    }
    if (!reps) goto done;
    if (tn_is_none(&a[3])) idx = tn_at_repeat_interleave_Tensor(reps, NULL);
    else {
        idx = tn_at_repeat_interleave_Tensor(reps, TN_I(a[3].u.i));
    }
    res = idx ? tn_at_index_select(input, (long long)dim, idx) : NULL;
done:
    Py_XDECREF(input);
    Py_XDECREF(reps);
    Py_XDECREF(idx);
    return res;
}

/* repeat_interleave(self, int repeats, dim, output_size): input.unsqueeze(dim + 1).expand(...)
 * .clone(contiguous).flatten(dim, dim + 1), the flattened self when dim is None */
PyObject *tn_op_repeat_interleave_self_int(tn_value *a) {
    PyObject *self = a[0].u.obj;
    int64_t reps = a[1].u.i, dim = tn_is_none(&a[2]) ? 0 : a[2].u.i;
    if (tn_is_none(&a[2]) == false) {
        int64_t w;
        if (tn_wrap_dim(dim, tn_tensor_of(self)->ndim, &w) < 0) return NULL;
        dim = w;
    }
    if (reps < 0) return PyErr_Format(PyExc_RuntimeError, "Repeats must be non-negative");
    PyObject *input = tn_is_none(&a[2]) ? tn_at_flatten_using_ints(self, 0, -1) : Py_NewRef(self);
    PyObject *u = input ? tn_at_unsqueeze(input, (long long)dim + 1) : NULL, *res = NULL;
    if (u) {
        const tn_tensor *ut = tn_tensor_of(u);
        int64_t sz[TN_MAX_DIMS];
        for (int d = 0; d < ut->ndim; d++) sz[d] = ut->sizes[d];
        sz[dim + 1] = reps;
        int64_t expect = ut->sizes[dim] * reps;
        if (!tn_is_none(&a[3]) && a[3].u.i != expect) {
            PyErr_Format(PyExc_RuntimeError, "repeat_interleave: Invalid output_size, expected %lld but got %lld",
                         (long long)expect, (long long)a[3].u.i);
        } else {
            PyObject *e = tn_at_expand(u, TN_IN(sz, ut->ndim), false);
            PyObject *c = e ? tn_at_clone(e, tn_py.memory_format_contiguous) : NULL;
            res = c ? tn_at_flatten_using_ints(c, (long long)dim, (long long)dim + 1) : NULL;
            Py_XDECREF(e); Py_XDECREF(c);
        }
    }
    Py_XDECREF(input);
    Py_XDECREF(u);
    return res;
}

/* ---- tril_indices / triu_indices ---- */

/* Elements of the lower triangle (c <= r + off) of a row x col matrix, in closed form (upstream's
 * get_tril_size; rows may be huge): sum over r of clamp(r + off + 1, 0, col). */
static int64_t tril_count(int64_t row, int64_t col, int64_t off) {
    if (row == 0 || col == 0) return 0;
    __int128 a = (__int128)off + 1, total = 0;
    __int128 r0 = a >= 1 ? 0 : 1 - a;                 /* first row with a positive count */
    __int128 r1 = (__int128)col - a;                  /* first row with a full count */
    if (r0 > row) r0 = row;
    if (r1 < r0) r1 = r0;
    if (r1 > row) r1 = row;
    total += (r1 - r0) * (r0 + a + r1 - 1 + a) / 2;   /* counts r0 + a .. r1 - 1 + a */
    total += ((__int128)row - r1) * col;
    return total > INT64_MAX ? INT64_MAX : (int64_t)total;
}

static PyObject *tri_indices(tn_value *a, bool lower) {
    int64_t row = a[0].u.i, col = a[1].u.i, off = a[2].u.i;
    tn_dtype dt = a[3].tag == TN_V_DTYPE ? a[3].u.dtype : TN_DTYPE_I64;
    const char *name = lower ? "tril_indices" : "triu_indices";
    /* upstream's order (measured): a sparse layout has no kernel (dispatch); the row / col checks;
     * empty_cpu's pinned allocator (any truthy pin_memory: 2, 0.5, 1j) and size; then the
     * kernel's dtypes */
    bool jagged = a[4].tag == TN_V_LAYOUT && a[4].u.obj == tn_py.layout_jagged;   /* dispatched as strided */
    if (a[4].tag == TN_V_LAYOUT && a[4].u.obj != tn_py.layout_strided && !jagged)
        return tn_not_implemented("tril_indices / triu_indices with a sparse layout");
    if (row < 0) return PyErr_Format(PyExc_RuntimeError, "row must be non-negative, got%lld", (long long)row);
    if (col < 0) return PyErr_Format(PyExc_RuntimeError, "col must be non-negative, got%lld", (long long)col);
    if (jagged) return PyErr_Format(PyExc_RuntimeError, "only support layout=torch.strided, gotJagged");   /* measured */
    const tn_value *pin = &a[6];
    bool pinned = ((pin->tag == TN_V_BOOL || pin->tag == TN_V_INT) && pin->u.i) || (pin->tag == TN_V_FLOAT && pin->u.f != 0) ||
                  (pin->tag == TN_V_COMPLEX && (pin->u.c.re != 0 || pin->u.c.im != 0));
    if (pinned && !(a[5].tag == TN_V_DEVICE && a[5].u.device.type == TN_DEVICE_META)) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True requires a CUDA or other accelerator backend; no pinned "
                        "memory allocator is available on this system.");
        return NULL;
    }
    __int128 full = (__int128)row * col;
    int64_t count = lower ? tril_count(row, col, off)
                          : (int64_t)(full - tril_count(row, col, off == INT64_MIN ? off : off - 1) > INT64_MAX
                                          ? INT64_MAX : full - tril_count(row, col, off == INT64_MIN ? off : off - 1));
    int64_t isz = tn_dtype_itemsize(dt) ? (int64_t)tn_dtype_itemsize(dt) : 1;   /* sub-byte dtypes: refused below */
    if (count > (INT64_MAX / 2) / isz)
        return PyErr_Format(PyExc_RuntimeError, "Storage size calculation overflowed with sizes=[2, %lld]", (long long)count);
    if (dt != TN_DTYPE_I64 && dt != TN_DTYPE_I32) return tn_kernel_missing(name, dt);
    int64_t sz[2] = {2, count};
    PyObject *res = tn_tensor_new_empty(2, sz, dt, TN_DEVICE_CPU);
    if (!res) return NULL;
    char *p = tn_data(tn_tensor_of(res));
    int64_t i = 0;
    int64_t r_first = lower && off < -1 ? -(off + 1) : 0;   /* rows before it are empty */
    for (int64_t r = r_first; r < row && i < count; r++) {
        int64_t lo = lower ? 0 : (r + off > 0 ? r + off : 0), hi = lower ? (r + off + 1 < col ? r + off + 1 : col) : col;
        if (lower && r + off + 1 < 0) hi = 0;
        for (int64_t c = lo; c < hi; c++, i++) {
            if (dt == TN_DTYPE_I64) { ((int64_t *)p)[i] = r; ((int64_t *)p)[count + i] = c; }
            else { ((int32_t *)p)[i] = (int32_t)r; ((int32_t *)p)[count + i] = (int32_t)c; }
        }
    }
    return res;
}
PyObject *tn_op_tril_indices(tn_value *a) { return tri_indices(a, true); }
PyObject *tn_op_triu_indices(tn_value *a) { return tri_indices(a, false); }

/* ---- trace ---- */

PyObject *tn_op_trace(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    bool float4 = dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16;
    bool cplx = dt == TN_DTYPE_C64 || dt == TN_DTYPE_C128;
    if ((!float4 && !cplx && !tn_dtype_is_integral(dt, false)) || tn_dtype_barebones(dt)) return tn_kernel_missing("trace", dt);
    if (t->ndim != 2) return PyErr_Format(PyExc_RuntimeError, "trace: expected a matrix, but got tensor with dim %d", t->ndim);
    bool integral = tn_dtype_is_integral(dt, false);
    PyObject *res = tn_tensor_new_empty(0, NULL, integral ? TN_DTYPE_I64 : dt, TN_DEVICE_CPU);
    if (!res) return NULL;
    int64_t n = t->sizes[0] < t->sizes[1] ? t->sizes[0] : t->sizes[1], step = t->strides[0] + t->strides[1];
    const char *base = tn_data(t);
    int es = tn_dtype_itemsize(dt);
    char *out = tn_data(tn_tensor_of(res));
    if (cplx) {   /* complex<double> accumulation (upstream's acc_type), real and imaginary parts */
        double sr = 0, si = 0;
        for (int64_t i = 0; i < n; i++) {
            if (dt == TN_DTYPE_C64) {
                sr += (double)((const float *)base)[2 * i * step];
                si += (double)((const float *)base)[2 * i * step + 1];
            } else {
                sr += ((const double *)base)[2 * i * step];
                si += ((const double *)base)[2 * i * step + 1];
            }
        }
        if (dt == TN_DTYPE_C64) { ((float *)out)[0] = (float)sr; ((float *)out)[1] = (float)si; }
        else { ((double *)out)[0] = sr; ((double *)out)[1] = si; }
    } else if (integral) {
        int64_t s = 0;
        for (int64_t i = 0; i < n; i++) {
            const char *p = base + i * step * es;
            switch (dt) {
            case TN_DTYPE_U8: s += *(const uint8_t *)p; break;
            case TN_DTYPE_I8: s += *(const int8_t *)p; break;
            case TN_DTYPE_I16: s += *(const int16_t *)p; break;
            case TN_DTYPE_U16: s += *(const uint16_t *)p; break;
            case TN_DTYPE_I32: s += *(const int32_t *)p; break;
            case TN_DTYPE_U32: s += *(const uint32_t *)p; break;
            default: s = (int64_t)((uint64_t)s + *(const uint64_t *)p); break;
            }
        }
        *(int64_t *)out = s;
    } else if (dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64) {
        double s = 0;
        for (int64_t i = 0; i < n; i++)
            s += dt == TN_DTYPE_F32 ? (double)((const float *)base)[i * step] : ((const double *)base)[i * step];
        if (dt == TN_DTYPE_F32) *(float *)out = (float)s;
        else *(double *)out = s;
    } else {
        bool bf = dt == TN_DTYPE_BF16;
        float s = 0;
        for (int64_t i = 0; i < n; i++) {
            uint16_t v = ((const uint16_t *)base)[i * step];
            s += bf ? tn_bf16_to_f32(v) : tn_f16_to_f32(v);
        }
        *(uint16_t *)out = bf ? tn_f32_to_bf16(s) : tn_f32_to_f16(s);
    }
    return res;
}

/* ---- rot90 ---- */

/* rot90(self, k, dims): upstream's composite of flips and a transpose (k taken modulo 4): k=1
 * flip(dims[1]).transpose_(dims), k=2 flip(both), k=3 flip(dims[0]).transpose_(dims), k=0 a
 * contiguous clone */
PyObject *tn_op_rot90(tn_value *a) {
    PyObject *self = a[0].u.obj;
    int nd = tn_tensor_of(self)->ndim;
    int64_t k = a[1].u.i;
    if (a[2].u.ints.n != 2)
        return PyErr_Format(PyExc_RuntimeError, "expected total rotation dims == 2, but got dims = %d", a[2].u.ints.n);
    if (nd < 2) return PyErr_Format(PyExc_RuntimeError, "expected total dims >= 2, but got total dims = %d", nd);
    int64_t d0, d1;
    if (tn_wrap_dim(a[2].u.ints.v[0], nd, &d0) < 0 || tn_wrap_dim(a[2].u.ints.v[1], nd, &d1) < 0) return NULL;
    if (d0 == d1)
        return PyErr_Format(PyExc_RuntimeError, "expected rotation dims to be different, but got dim0 = %lld and dim1 = %lld",
                            (long long)a[2].u.ints.v[0], (long long)a[2].u.ints.v[1]);
    k = (4 + (k % 4)) % 4;
    PyObject *f;
    switch (k) {
    case 1: f = tn_at_flip(self, TN_IS((long long)d1)); break;
    case 2: return tn_at_flip(self, TN_IS((long long)d0, (long long)d1));
    case 3: f = tn_at_flip(self, TN_IS((long long)d0)); break;
    default: {
        return tn_at_clone(self, tn_py.memory_format_contiguous);
    }
    }
    PyObject *r = f ? tn_at_transpose_(f, (long long)d0, (long long)d1) : NULL;
    Py_XDECREF(f);
    return r;
}
