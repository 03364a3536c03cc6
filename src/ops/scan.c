/* ops/scan.c — cummax / cummin (values and the int64 index each came from) and logcumsumexp.
 *
 * As upstream: results are contiguous tensors of the input's shape; a 0-dim input gives itself
 * and index 0; out= tensors must have exactly the result dtypes. The scans are kernels/scan.h
 * over a contiguous copy viewed as [outer, n, inner]. */
#include "ops/common.h"

#include "kernels/scan.h"

static bool scan_dtype_ok(tn_dtype d) {
    return d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_F16 || d == TN_DTYPE_BF16 ||
           tn_dtype_is_integral(d, true);
}

/* The [outer, n, inner] split of t around dim (already wrapped; a 0-dim tensor is 1x1x1). */
static void split3(const tn_tensor *t, int dim, int64_t *outer, int64_t *n, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    *n = t->ndim ? t->sizes[dim] : 1;
    for (int d = 0; d < dim; d++) *outer *= t->sizes[d];
    for (int d = dim + 1; d < t->ndim; d++) *inner *= t->sizes[d];
}

/* upstream's check_scalar_type_device_layout_equal on an out= tensor */
static int out_dtype_is(PyObject *out, tn_dtype want) {
    tn_dtype got = tn_tensor_of(out)->dtype;
    if (got == want) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected scalar_type %s but found %s", tn_dtype_cpp_name(want),
                 tn_dtype_cpp_name(got));
    return -1;
}

/* values and indices of cummax / cummin of self along dim, new contiguous tensors */
static int cummaxmin(PyObject *self, int64_t dim_arg, bool is_max, PyObject **values, PyObject **indices) {
    const tn_tensor *t = tn_tensor_of(self);
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return -1;
    if (!scan_dtype_ok(t->dtype)) {
        tn_kernel_missing(is_max ? "cummax_cpu" : "cummin_cpu", t->dtype);
        return -1;
    }
    PyObject *x = tn_as_dtype(self, t->dtype, true);
    *values = x ? tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU) : NULL;
    *indices = *values ? tn_tensor_new_empty(t->ndim, t->sizes, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
    if (!*indices) {
        Py_XDECREF(x);
        Py_CLEAR(*values);
        return -1;
    }
    int64_t outer, n, inner;
    split3(t, dim, &outer, &n, &inner);
    if (tn_numel(t))
        tn_cummaxmin(t->dtype, tn_data(tn_tensor_of(x)), tn_data(tn_tensor_of(*values)),
                     (int64_t *)tn_data(tn_tensor_of(*indices)), outer, n, inner, is_max);
    Py_DECREF(x);
    return 0;
}

static PyObject *cummaxmin_op(tn_value *a, bool is_max, PyObject *vout, PyObject *iout) {
    const char *name = is_max ? "cummax" : "cummin";
    /* out='s dtypes before the kernel's (measured, uint16 / float8 too) */
    if (vout && (out_dtype_is(vout, TN_T(a[0])->dtype) < 0 || out_dtype_is(iout, TN_DTYPE_I64) < 0)) return NULL;
    if (tn_dtype_barebones(TN_T(a[0])->dtype)) return tn_kernel_missing(is_max ? "cummax_cpu" : "cummin_cpu", TN_T(a[0])->dtype);
    const tn_tensor *t = TN_T(a[0]);
    PyObject *v, *i;
    if (t->ndim == 0 || tn_numel(t) == 0) {
        /* upstream fills a 0-d self's results (dim -1 or 0 only) and returns an empty self's
         * without looking at dim or dtype (measured) */
        if (t->ndim == 0 && a[1].u.i != 0 && a[1].u.i != -1)
            return PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim -1 or 0 for scalar but got %lld", name,
                                (long long)a[1].u.i);
        v = tn_at_clone(a[0].u.obj, NULL);
        i = v ? tn_tensor_new_empty(t->ndim, t->sizes, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
        if (!i) { Py_XDECREF(v); return NULL; }
        if (tn_numel(t)) *(int64_t *)tn_data(tn_tensor_of(i)) = 0;
    } else if (cummaxmin(a[0].u.obj, a[1].u.i, is_max, &v, &i) < 0) return NULL;
    if (!vout) return tn_return_pair(name, v, i);
    v = tn_out_deliver(v, vout, name);
    if (!v) { Py_DECREF(i); return NULL; }
    i = tn_out_deliver(i, iout, name);
    return tn_return_pair(is_max ? "cummax_out" : "cummin_out", v, i);
}

PyObject *tn_op_cummax(tn_value *a) { return cummaxmin_op(a, true, NULL, NULL); }
PyObject *tn_op_cummax_out(tn_value *a) { return cummaxmin_op(a, true, a[2].u.obj, a[3].u.obj); }
PyObject *tn_op_cummin(tn_value *a) { return cummaxmin_op(a, false, NULL, NULL); }
PyObject *tn_op_cummin_out(tn_value *a) { return cummaxmin_op(a, false, a[2].u.obj, a[3].u.obj); }

/* upstream's data_ptr<T>() of a tensor the kernel writes: dtype `want` exactly */
static int scalar_type_is(PyObject *t, tn_dtype want) {
    tn_dtype got = tn_tensor_of(t)->dtype;
    if (got == want) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(want), tn_dtype_cpp_name(got));
    return -1;
}

/* _cummax_helper(self, values, indices, dim) -> (): the kernel into given tensors of self's shape.
 * As upstream's: no Meta kernel; self's dtype dispatched first, then values of self's dtype and indices Long, then
 * dim (a 0-dim self has none to name). */
static PyObject *helper(tn_value *a, bool is_max) {
    const tn_tensor *t = TN_T(a[0]);
    if (tn_door_on_meta()) return tn_meta_no_kernel(is_max ? "_cummax_helper" : "_cummin_helper");
    if (tn_dtype_barebones(t->dtype) || !scan_dtype_ok(t->dtype))
        return tn_kernel_missing(is_max ? "cummax_cpu" : "cummin_cpu", t->dtype);
    if (scalar_type_is(a[1].u.obj, t->dtype) < 0 || scalar_type_is(a[2].u.obj, TN_DTYPE_I64) < 0) return NULL;
    /* then upstream's tensor_dim_apply3 reads the strides of self, values and indices at dim (the
     * dim as given, wrapped against each one's own dims), and walks self's other dims reading
     * values' and indices' strides there: values or indices of fewer dims is its IndexError
     * (measured, docs/breadth_more2.md "group tail") */
    int64_t dim = a[3].u.i;
    const tn_tensor *vt = TN_T(a[1]), *it = TN_T(a[2]);
    if (tn_size_read(t, dim) < 0 || tn_size_read(vt, dim) < 0 || tn_size_read(it, dim) < 0) return NULL;
    if (t->ndim > 1 && tn_numel(t) > 0)
        for (int d = 0; d < t->ndim; d++)
            if (d != dim && (tn_size_read(vt, d) < 0 || tn_size_read(it, d) < 0)) return NULL;
    PyObject *v, *i;
    if (cummaxmin(a[0].u.obj, a[3].u.i, is_max, &v, &i) < 0) return NULL;
    int rc = tn_copy_into(a[1].u.obj, v) < 0 || tn_copy_into(a[2].u.obj, i) < 0 ? -1 : 0;
    Py_DECREF(v);
    Py_DECREF(i);
    return rc < 0 ? NULL : Py_NewRef(Py_None);
}
PyObject *tn_op__cummax_helper(tn_value *a) { return helper(a, true); }
PyObject *tn_op__cummin_helper(tn_value *a) { return helper(a, false); }

/* logcumsumexp(self, dim[, out]) */
static PyObject *logcumsumexp(tn_value *a, PyObject *out, bool out_first) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int dim;
    /* logcumsumexp.out checks out='s dtype first, _logcumsumexp.out after the dim and the dtype (measured) */
    if (out && out_first && out_dtype_is(out, t->dtype) < 0) return NULL;
    if (tn_wrap_dim_i(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    tn_dtype dt = t->dtype;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F16 && dt != TN_DTYPE_BF16 && dt != TN_DTYPE_C64 &&
        dt != TN_DTYPE_C128)
        return tn_kernel_missing("logcumsumexp_out_cpu", dt);
    /* out='s internal overlap (as resized): before _logcumsumexp.out's dtype check, after logcumsumexp.out's */
    if (out && (tn_out_overlap_as_resized(out, t->ndim, t->sizes, 0, NULL) < 0 || (!out_first && out_dtype_is(out, dt) < 0)))
        return NULL;
    PyObject *x = tn_as_dtype(self, dt, true);
    PyObject *res = x ? tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU) : NULL;
    if (res && tn_numel(t)) {
        int64_t outer, n, inner;
        split3(t, dim, &outer, &n, &inner);
        tn_logcumsumexp(dt, tn_data(tn_tensor_of(x)), tn_data(tn_tensor_of(res)), outer, n, inner);
    }
    Py_XDECREF(x);
    return tn_out_deliver(res, out, "logcumsumexp");
}
PyObject *tn_op_logcumsumexp(tn_value *a) { return logcumsumexp(a, NULL, false); }
PyObject *tn_op_logcumsumexp_out(tn_value *a) { return logcumsumexp(a, a[2].u.obj, true); }
PyObject *tn_op__logcumsumexp(tn_value *a) {
    return logcumsumexp(a, NULL, false);
}
PyObject *tn_op__logcumsumexp_out(tn_value *a) {
    return logcumsumexp(a, a[2].u.obj, false);
}
