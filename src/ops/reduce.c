/* ops/reduce.c — reductions and scans: sum, mean, prod, amax/amin, max/min (full and along a
 * dim, with torch.return_types results), argmax/argmin, all/any, count_nonzero, var/std (and
 * var_mean/std_mean), logsumexp, cumsum/cumprod.
 *
 * The op layer here resolves dims (wrapping, duplicate and range errors as upstream), keepdim,
 * result dtypes and out=, then runs the kernels of kernels/reduce.h. var/std and logsumexp have
 * no kernel there; they are computed here in double over a contiguous copy whose rows are the
 * reduced elements of one output (upstream accumulates var/std in double too: Welford per
 * output, or a two-pass sum over a mean in the input dtype when the result has one element). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include "kernels/reduce.h"

#include <math.h>

void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);   /* ops/create.c */

/* ---------------------------------------------------------------- dims and shapes */


static uint64_t all_mask(const tn_tensor *t) { return TN_ALL_DIMS_MASK(t->ndim); }


static int reduced_shape(const tn_tensor *t, uint64_t mask, bool keepdim, int64_t *sz) {
    int k = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (mask >> d & 1) { if (keepdim) sz[k++] = 1; }
        else sz[k++] = t->sizes[d];
    }
    return k;
}

static bool arg_bool(const tn_value *v) { return v->tag == TN_V_BOOL || v->tag == TN_V_INT ? v->u.i != 0 : false; }

static bool is_meta(const tn_tensor *t) { return t->storage->device == TN_DEVICE_META; }



/* Run tn_reduce into a new tensor of the reduced shape. */
static PyObject *run_reduce(tn_reduce_op op, const char *kname, PyObject *self, uint64_t mask,
                            bool keepdim, tn_dtype od);

/* uint16/32/64 and float8 have no reduction kernels upstream: a reduction into another dtype
 * (sum's int64 default for the unsigned types, an explicit dtype=, all / any's bool) reads the
 * input cast to it, as upstream's iterator does; one in the input's own dtype is refused with
 * upstream's kernel name. */
static PyObject *reduce_barebones(tn_reduce_op op, const char *kname, PyObject *self, uint64_t mask,
                                  bool keepdim, tn_dtype od) {
    tn_dtype dt = tn_tensor_of(self)->dtype;
    tn_dtype via = op == TN_REDUCE_ALL || op == TN_REDUCE_ANY ? TN_DTYPE_BOOL : od;
    if (via != dt && tn_dtype_computable(via) &&
        (op == TN_REDUCE_SUM || op == TN_REDUCE_PROD || op == TN_REDUCE_ALL || op == TN_REDUCE_ANY)) {
        PyObject *x = tn_as_dtype(self, via, false);
        if (!x) return NULL;
        PyObject *r = run_reduce(op, kname, x, mask, keepdim, od);
        Py_DECREF(x);
        return r;
    }
    const char *k = op == TN_REDUCE_SUM || op == TN_REDUCE_MEAN ? "sum_cpu"
                  : op == TN_REDUCE_PROD ? "prod_out_cpu"
                  : op == TN_REDUCE_AMAX ? "max_values_cpu"
                  : op == TN_REDUCE_AMIN ? "min_values_cpu"
                  : op == TN_REDUCE_COUNT_NONZERO ? "nonzero_count_cpu" : kname;
    return tn_kernel_missing(k, dt);
}

static PyObject *run_reduce(tn_reduce_op op, const char *kname, PyObject *self, uint64_t mask,
                            bool keepdim, tn_dtype od) {
    tn_tensor *t = tn_tensor_of(self);
    /* the result is allocated in od before any kernel looks at a dtype (measured: a float8 or
     * uint16 input with dtype=torch.qint8 too); prod / nansum's is upstream's INTERNAL ASSERT
     * "cannot call qscheme on UnknownQuantizer", a RuntimeError as well */
    if (tn_require_unquantized_result(od) < 0) return NULL;
    if (tn_dtype_is_complex(t->dtype) && !tn_dtype_is_complex(od) && od != TN_DTYPE_BOOL &&
        (tn_dtype_computable(od) || tn_dtype_barebones(od)) && (op == TN_REDUCE_SUM || op == TN_REDUCE_PROD)) {
        /* a complex input summed into a real dtype (dtype= or out=): upstream's iterator reads
         * the input cast to that dtype, its real part (measured, docs/breadth_more2.md); a dtype
         * without the kernel (float8, uint16/32/64) is then refused by its name */
        PyObject *x = tn_as_dtype(self, od, false);
        if (!x) return NULL;
        PyObject *r = run_reduce(op, kname, x, mask, keepdim, od);
        Py_DECREF(x);
        return r;
    }
    if (od == TN_DTYPE_BOOL && t->dtype != TN_DTYPE_BOOL && tn_dtype_computable(t->dtype) && !is_meta(t) &&
        (op == TN_REDUCE_SUM || op == TN_REDUCE_PROD)) {
        /* into bool the iterator reads the input cast to bool (x != 0) first (measured:
         * sum(0.2, dtype=bool) is True, as upstream's; a truncation to int gave False) */
        PyObject *x = tn_as_dtype(self, TN_DTYPE_BOOL, false);
        if (!x) return NULL;
        PyObject *r = run_reduce(op, kname, x, mask, keepdim, od);
        Py_DECREF(x);
        return r;
    }
    if (tn_dtype_barebones(t->dtype)) return reduce_barebones(op, kname, self, mask, keepdim, od);
    if (tn_require_computable(kname, t->dtype) < 0 || tn_require_computable(kname, od) < 0) return NULL;
    int64_t sz[TN_MAX_DIMS];
    int k = reduced_shape(t, mask, keepdim, sz);
    PyObject *res = tn_tensor_new_empty(k, sz, od, t->storage->device);
    if (!res || is_meta(t)) return res;
    bool ok;
    if (tn_numel(t) >= 65536) {
        Py_BEGIN_ALLOW_THREADS
        ok = tn_reduce(op, t, mask, tn_data(tn_tensor_of(res)), od);
        Py_END_ALLOW_THREADS
    } else {
        ok = tn_reduce(op, t, mask, tn_data(tn_tensor_of(res)), od);
    }
    if (!ok) { Py_DECREF(res); return tn_kernel_missing(kname, t->dtype); }
    return res;
}


static PyObject *pair(PyObject *a, PyObject *b) {
    if (!a || !b) { Py_XDECREF(a); Py_XDECREF(b); return NULL; }
    PyObject *t = PyTuple_Pack(2, a, b);
    Py_DECREF(a);
    Py_DECREF(b);
    return t;
}

/* ---------------------------------------------------------------- sum / prod / mean */

static tn_dtype sum_dtype(const tn_tensor *t, const tn_value *dt, PyObject *out) {
    if (dt && dt->tag == TN_V_DTYPE) return dt->u.dtype;
    if (out) return tn_tensor_of(out)->dtype;
    return tn_dtype_is_integral(t->dtype, true) ? TN_DTYPE_I64 : t->dtype;
}

static PyObject *sum_like(tn_reduce_op op, const char *kname, tn_value *self, const tn_value *dimv,
                          bool empty_all, bool keepdim, const tn_value *dt, PyObject *out) {
    tn_tensor *t = TN_T(*self);
    uint64_t mask;
    if (tn_dims_mask(t, dimv, empty_all, &mask) < 0) return NULL;
    tn_dtype od = sum_dtype(t, dt, out);
    /* the structured out= check: a given dtype is out='s exactly, after the dims (measured) */
    if (tn_out_dtype_exact(out, od) < 0) return NULL;
    return tn_out_deliver(run_reduce(op, kname, self->u.obj, mask, keepdim, od), out, kname);
}

PyObject *tn_op_sum(tn_value *a) { return sum_like(TN_REDUCE_SUM, "sum", &a[0], NULL, true, false, &a[1], NULL); }
PyObject *tn_op_sum_dim_IntList(tn_value *a) { return sum_like(TN_REDUCE_SUM, "sum", &a[0], &a[1], true, arg_bool(&a[2]), &a[3], NULL); }
PyObject *tn_op_sum_IntList_out(tn_value *a) { return sum_like(TN_REDUCE_SUM, "sum", &a[0], &a[1], true, arg_bool(&a[2]), &a[3], a[4].u.obj); }
PyObject *tn_op_prod(tn_value *a) { return sum_like(TN_REDUCE_PROD, "prod", &a[0], NULL, true, false, &a[1], NULL); }
PyObject *tn_op_prod_dim_int(tn_value *a) { return sum_like(TN_REDUCE_PROD, "prod", &a[0], &a[1], true, arg_bool(&a[2]), &a[3], NULL); }
PyObject *tn_op_prod_int_out(tn_value *a) { return sum_like(TN_REDUCE_PROD, "prod", &a[0], &a[1], true, arg_bool(&a[2]), &a[3], a[4].u.obj); }

static bool is_float_or_complex(tn_dtype d) { return tn_dtype_is_floating(d) || tn_dtype_is_complex(d); }

static PyObject *mean_impl(tn_value *self, const tn_value *dimv, bool keepdim, const tn_value *dt, PyObject *out) {
    tn_tensor *t = TN_T(*self);
    tn_dtype od;
    if (dt && dt->tag == TN_V_DTYPE) {
        od = dt->u.dtype;
        if (!is_float_or_complex(od)) {
            PyErr_Format(PyExc_RuntimeError, "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: %s",
                         tn_dtype_cpp_name(od));
            return NULL;
        }
    } else {
        od = t->dtype;
        if (!is_float_or_complex(od)) {
            PyErr_Format(PyExc_RuntimeError, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s",
                         tn_dtype_cpp_name(od));
            return NULL;
        }
    }
    uint64_t mask;
    if (tn_dims_mask(t, dimv, true, &mask) < 0) return NULL;
    if (dt && dt->tag == TN_V_DTYPE && tn_out_dtype_exact(out, od) < 0) return NULL;   /* a given dtype: out='s exactly */
    PyObject *src = self->u.obj, *real = NULL;
    if (out && !(dt && dt->tag == TN_V_DTYPE)) {   /* out='s cast after the dims (measured) */
        tn_dtype o = tn_tensor_of(out)->dtype;
        /* sum_out(out, self, dtype=out's) dispatches its kernel on an out= of a dtype it lacks
         * (uint16/32/64, float8, complex32) before the cast check, when there is something to sum */
        if ((tn_dtype_barebones(o) || o == TN_DTYPE_C32) && !tn_dtype_barebones(t->dtype) && t->dtype != TN_DTYPE_C32 &&
            tn_numel(t) > 0 && !is_meta(t) && !tn_door_on_meta())
            return tn_kernel_missing_cpu("sum", o);
        if (tn_dtype_is_complex(od) && (o == TN_DTYPE_F16 || o == TN_DTYPE_BF16 || o == TN_DTYPE_F32 || o == TN_DTYPE_F64)) {
            /* upstream's mean.out is sum_out(out, self, dtype=out's).div_(n): a complex input into a
             * real floating out reads its real parts in that dtype (float32 for half / bfloat16)
             * (measured: docs/breadth_more2.md "Fuzz corpus: calls upstream runs, fourth pass") */
            od = o;
            if (tn_numel(t) > 0 && PyErr_WarnEx(PyExc_UserWarning, "Casting complex values to real discards the imaginary part", 1) < 0)
                return NULL;
            if (!(real = tn_as_dtype(src, o == TN_DTYPE_F16 || o == TN_DTYPE_BF16 ? TN_DTYPE_F32 : o, false))) return NULL;
            src = real;
        } else if (!tn_can_cast(od, o)) {
            /* an integral / bool out: upstream's sum into it succeeds, its div_ by the count (a
             * default-dtype result) is what fails */
            tn_cast_error(tn_dtype_is_integral(o, true) ? tn_py.default_dtype : od, o);
            return NULL;
        }
        if (is_float_or_complex(o)) od = o;
    }
    if (out && !real && !(dt && dt->tag == TN_V_DTYPE) && tn_f8_reduces_in(t->dtype, od) && !is_meta(t)) {
        if (!(real = tn_as_dtype(src, od, false))) return NULL;
        src = real;
    }
    PyObject *r;
    if (od == TN_DTYPE_F16 || od == TN_DTYPE_BF16) {
        /* upstream (CPU): a float32 sum of the input, divided in float32, then cast once */
        PyObject *r32 = run_reduce(TN_REDUCE_MEAN, "mean", src, mask, keepdim, TN_DTYPE_F32);
        r = r32 ? tn_as_dtype(r32, od, false) : NULL;
        Py_XDECREF(r32);
    } else {
        r = run_reduce(TN_REDUCE_MEAN, "mean", src, mask, keepdim, od);
    }
    Py_XDECREF(real);
    return tn_out_deliver_overlap(r, out, "mean", false);
}

PyObject *tn_op_mean(tn_value *a) { return mean_impl(&a[0], NULL, false, &a[1], NULL); }
PyObject *tn_op_mean_dtype_out(tn_value *a) {
    /* upstream's mean.dtype_out checks the input's cast to out first (a complex input into a real
     * out is refused here, unlike mean.out's) */
    tn_dtype sd = TN_T(a[0])->dtype, od = tn_tensor_of(a[2].u.obj)->dtype;
    if (!tn_can_cast(sd, od)) {
        PyErr_Format(PyExc_RuntimeError, "mean.dtype_out(): input types can't be cast to the desired output type %s",
                     tn_dtype_cpp_name(od));
        return NULL;
    }
    return mean_impl(&a[0], NULL, false, &a[1], a[2].u.obj);
}
PyObject *tn_op_mean_dim(tn_value *a) { return mean_impl(&a[0], &a[1], arg_bool(&a[2]), &a[3], NULL); }
PyObject *tn_op_mean_out(tn_value *a) { return mean_impl(&a[0], &a[1], arg_bool(&a[2]), &a[3], a[4].u.obj); }

/* ---------------------------------------------------------------- amax / amin */

/* Upstream's checks for max/min-like reductions over empty inputs. */
static int check_nonempty(const char *name, const tn_tensor *t, uint64_t mask, bool dims_given) {
    if (tn_numel(t) != 0) return 0;
    if (!dims_given || t->ndim == 0) {
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                     "Specify the reduction dim with the 'dim' argument.", name);
        return -1;
    }
    for (int d = 0; d < t->ndim; d++)
        if ((mask >> d & 1) && t->sizes[d] == 0) {
            PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim %d to have non-zero size.", name, d);
            return -1;
        }
    return 0;
}

static PyObject *amax_impl(bool is_max, tn_value *a, PyObject *out) {
    const char *name = is_max ? "amax" : "amin";
    tn_tensor *t = TN_T(a[0]);
    /* upstream's meta function: out='s dtype, then an empty input's dims one by one (wrapped,
     * non-empty), before the dims as a set */
    if (out && tn_tensor_of(out)->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "Expected the dtype for input and out to match, but got %s for input's dtype "
                     "and %s for out's dtype.", tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    for (int k = 0; tn_numel(t) == 0 && k < a[1].u.ints.n; k++) {
        int64_t d;
        if (tn_wrap_dim(a[1].u.ints.v[k], t->ndim, &d) < 0) return NULL;
        if (check_nonempty(name, t, (uint64_t)1 << d, true) < 0) return NULL;
    }
    uint64_t mask;
    if (tn_dims_mask(t, &a[1], true, &mask) < 0) return NULL;
    if (check_nonempty(name, t, mask, a[1].u.ints.n > 0) < 0) return NULL;
    if (tn_dtype_is_complex(t->dtype)) return tn_kernel_missing(is_max ? "max_values_cpu" : "min_values_cpu", t->dtype);
    return tn_out_deliver(run_reduce(is_max ? TN_REDUCE_AMAX : TN_REDUCE_AMIN, name, a[0].u.obj, mask, arg_bool(&a[2]), t->dtype),
                  out, name);
}

PyObject *tn_op_amax(tn_value *a) { return amax_impl(true, a, NULL); }
PyObject *tn_op_amax_out(tn_value *a) { return amax_impl(true, a, a[3].u.obj); }
PyObject *tn_op_amin(tn_value *a) { return amax_impl(false, a, NULL); }
PyObject *tn_op_amin_out(tn_value *a) { return amax_impl(false, a, a[3].u.obj); }

/* ---------------------------------------------------------------- max / min */

static PyObject *minmax_all(bool is_max, tn_value *a, PyObject *out) {
    const char *name = is_max ? "max" : "min";
    tn_tensor *t = TN_T(a[0]);
    /* max / min.unary_out check that self's dtype casts to out='s first (measured, in the C++
     * condition's words), before the kernel's dtype dispatch */
    if (out && !tn_can_cast(t->dtype, tn_tensor_of(out)->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                        "to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement "
                        "request to PyTorch.)");
        return NULL;
    }
    if (tn_dtype_is_complex(t->dtype) || !tn_dtype_computable(t->dtype))
        return tn_kernel_missing(is_max ? "max_all" : "min_all", t->dtype);
    if (out) {
        /* unary_out is upstream's resize_output(out, []) and its kernel's out.fill_(value): an
         * empty input fills the reduction's identity (-inf / +inf, the dtype's lowest / highest,
         * false / true for bool), and fill_'s overflow check applies to out's dtype (an int32
         * minimum into an int8 out is refused). Measured in docs/breadth_more2.md, "Fuzz corpus:
         * calls upstream runs, fifth pass". */
        if (tn_out_prepare(out, 0, NULL, t->dtype, name) < 0) return NULL;
        if (is_meta(t) || is_meta(tn_tensor_of(out))) return Py_NewRef(out);
        char buf[16];
        uint64_t all = t->ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << t->ndim) - 1;
        bool done = tn_numel(t) == 0 ? tn_reduce(is_max ? TN_REDUCE_AMAX : TN_REDUCE_AMIN, t, all, buf, t->dtype)
                                     : tn_reduce_arg(is_max, t, -1, buf, NULL);
        if (!done) return tn_kernel_missing(is_max ? "max_all" : "min_all", t->dtype);
        tn_value v;
        tn_cr_load(buf, t->dtype, &v);
        if (tn_cr_fill_checked(out, &v) < 0) return NULL;
        return Py_NewRef(out);
    }
    if (tn_numel(t) == 0) {
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected reduction dim to be specified for input.numel() == 0. "
                     "Specify the reduction dim with the 'dim' argument.", name);
        return NULL;
    }
    PyObject *res = tn_tensor_new_empty(0, NULL, t->dtype, t->storage->device);
    if (res && !is_meta(t)) tn_reduce_arg(is_max, t, -1, tn_data(tn_tensor_of(res)), NULL);
    return res;
}

PyObject *tn_op_max(tn_value *a) { return minmax_all(true, a, NULL); }
PyObject *tn_op_max_unary_out(tn_value *a) { return minmax_all(true, a, a[1].u.obj); }
PyObject *tn_op_min(tn_value *a) { return minmax_all(false, a, NULL); }
PyObject *tn_op_min_unary_out(tn_value *a) { return minmax_all(false, a, a[1].u.obj); }

/* values (may be skipped) and indices along one dim (dimv NONE: over everything). vout / iout:
 * the out= tensors (or NULL), whose exact dtypes the structured kernel checks after the dim and
 * before its dtype dispatch (measured) */
static int arg_reduce(bool is_max, const char *name, tn_value *self, const tn_value *dimv, bool keepdim,
                      PyObject **values, PyObject **indices, PyObject *vout, PyObject *iout) {
    tn_tensor *t = TN_T(*self);
    int dim = -1;
    int64_t sz[TN_MAX_DIMS];
    int k;
    if (dimv->tag == TN_V_NONE) {
        if (tn_numel(t) == 0) {
            PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim to be specified for input.numel() == 0.", name);
            return -1;
        }
        k = keepdim ? t->ndim : 0;
        for (int d = 0; d < k; d++) sz[d] = 1;
    } else {
        if (tn_wrap_dim_i(dimv->u.i, t->ndim, &dim) < 0) return -1;
        if (t->ndim > 0 && t->sizes[dim] == 0) {
            PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim %d to have non-zero size.", name, dim);
            return -1;
        }
        k = reduced_shape(t, t->ndim ? 1ull << dim : 0, keepdim, sz);
        if (t->ndim == 0) dim = -1;
    }
    if (tn_out_dtype_exact(vout, t->dtype) < 0 || tn_out_dtype_exact(iout, TN_DTYPE_I64) < 0) return -1;
    if (tn_require_computable(name, t->dtype) < 0) return -1;
    *indices = tn_tensor_new_empty(k, sz, TN_DTYPE_I64, t->storage->device);
    if (!*indices) return -1;
    if (values) {
        *values = tn_tensor_new_empty(k, sz, t->dtype, t->storage->device);
        if (!*values) { Py_CLEAR(*indices); return -1; }
    }
    if (!is_meta(t))
        tn_reduce_arg(is_max, t, dim, values ? tn_data(tn_tensor_of(*values)) : NULL,
                      (int64_t *)tn_data(tn_tensor_of(*indices)));
    return 0;
}

static PyObject *minmax_dim(bool is_max, tn_value *a, PyObject *vout, PyObject *iout) {
    const char *name = is_max ? "max" : "min";
    tn_tensor *t = TN_T(a[0]);
    int64_t wd;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &wd) < 0) return NULL;   /* upstream's meta wraps dim first (measured) */
    if (tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "%s(): does not support complex input", name);
        return NULL;
    }
    PyObject *v = NULL, *i = NULL;
    if (arg_reduce(is_max, name, &a[0], &a[1], arg_bool(&a[2]), &v, &i, vout, iout) < 0) return NULL;
    if (vout) {
        v = tn_out_deliver(v, vout, name);
        if (!v) { Py_DECREF(i); return NULL; } /* no second out= check with an error pending */
        i = tn_out_deliver(i, iout, name);
        return tn_return_pair(is_max ? "max_out" : "min_out", v, i);
    }
    return tn_return_pair(name, v, i);
}

PyObject *tn_op_max_dim(tn_value *a) { return minmax_dim(true, a, NULL, NULL); }
PyObject *tn_op_max_dim_max(tn_value *a) { return minmax_dim(true, a, a[3].u.obj, a[4].u.obj); }
PyObject *tn_op_min_dim(tn_value *a) { return minmax_dim(false, a, NULL, NULL); }
PyObject *tn_op_min_dim_min(tn_value *a) { return minmax_dim(false, a, a[3].u.obj, a[4].u.obj); }

static PyObject *argmax_impl(bool is_max, tn_value *a, PyObject *out) {
    const char *name = is_max ? "argmax" : "argmin";
    tn_tensor *t = TN_T(a[0]);
    if (t->dtype == TN_DTYPE_BOOL || tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "%s(): does not support %s input", name,
                     t->dtype == TN_DTYPE_BOOL ? "bool" : "complex");
        return NULL;
    }
    PyObject *i = NULL;
    if (arg_reduce(is_max, name, &a[0], &a[1], arg_bool(&a[2]), NULL, &i, NULL, out) < 0) return NULL;
    return tn_out_deliver_exact(i, out, name);
}

PyObject *tn_op_argmax(tn_value *a) { return argmax_impl(true, a, NULL); }
PyObject *tn_op_argmax_out(tn_value *a) { return argmax_impl(true, a, a[3].u.obj); }
PyObject *tn_op_argmin(tn_value *a) { return argmax_impl(false, a, NULL); }
PyObject *tn_op_argmin_out(tn_value *a) { return argmax_impl(false, a, a[3].u.obj); }

/* ---------------------------------------------------------------- all / any / count_nonzero */

static PyObject *allany(bool is_all, tn_value *self, const tn_value *dimv, bool keepdim, PyObject *out) {
    const char *name = is_all ? "all" : "any";
    tn_tensor *t = TN_T(*self);
    /* upstream's meta function: out= must be bool or uint8 (either, whatever self's dtype: the
     * result is computed in out's dtype), checked before the dims */
    tn_dtype od = out ? tn_tensor_of(out)->dtype : t->dtype == TN_DTYPE_U8 ? TN_DTYPE_U8 : TN_DTYPE_BOOL;
    if (od != TN_DTYPE_BOOL && od != TN_DTYPE_U8) {
        PyErr_Format(PyExc_RuntimeError, "%s only supports bool tensor for result, got: %s", name, tn_dtype_cpp_name(od));
        return NULL;
    }
    uint64_t mask;
    if (tn_dims_mask(t, dimv, false, &mask) < 0) return NULL;
    /* a uint8 result reduces self cast to uint8 (measured: any(x, out=uint8) of -0.7 and 0.4 is 0) */
    /* complex32 reduces as its exact widening to complex64 (upstream's kernel tests each value != 0) */
    PyObject *in = od == TN_DTYPE_U8 && t->dtype != TN_DTYPE_U8 ? tn_as_dtype(self->u.obj, TN_DTYPE_U8, false)
                   : t->dtype == TN_DTYPE_C32                   ? tn_as_dtype(self->u.obj, TN_DTYPE_C64, false)
                                                                : Py_NewRef(self->u.obj);   /* (uint16/32/64, float8: run_reduce reads it as bool) */
    if (!in) return NULL;
    PyObject *r = run_reduce(is_all ? TN_REDUCE_ALL : TN_REDUCE_ANY, name, in, mask, keepdim, od);
    Py_DECREF(in);
    return tn_out_deliver(r, out, name);
}

PyObject *tn_op_all(tn_value *a) { return allany(true, &a[0], NULL, false, NULL); }
PyObject *tn_op_all_all_out(tn_value *a) { return allany(true, &a[0], NULL, false, a[1].u.obj); }
PyObject *tn_op_all_dim(tn_value *a) { return allany(true, &a[0], &a[1], arg_bool(&a[2]), NULL); }
PyObject *tn_op_all_out(tn_value *a) { return allany(true, &a[0], &a[1], arg_bool(&a[2]), a[3].u.obj); }
PyObject *tn_op_all_dims(tn_value *a) { return allany(true, &a[0], &a[1], arg_bool(&a[2]), NULL); }
PyObject *tn_op_all_dims_out(tn_value *a) { return allany(true, &a[0], &a[1], arg_bool(&a[2]), a[3].u.obj); }
PyObject *tn_op_any(tn_value *a) { return allany(false, &a[0], NULL, false, NULL); }
PyObject *tn_op_any_all_out(tn_value *a) { return allany(false, &a[0], NULL, false, a[1].u.obj); }
PyObject *tn_op_any_dim(tn_value *a) { return allany(false, &a[0], &a[1], arg_bool(&a[2]), NULL); }
PyObject *tn_op_any_out(tn_value *a) { return allany(false, &a[0], &a[1], arg_bool(&a[2]), a[3].u.obj); }
PyObject *tn_op_any_dims(tn_value *a) { return allany(false, &a[0], &a[1], arg_bool(&a[2]), NULL); }
PyObject *tn_op_any_dims_out(tn_value *a) { return allany(false, &a[0], &a[1], arg_bool(&a[2]), a[3].u.obj); }

/* count_nonzero: with dims upstream computes (self != 0).sum(dims), so a dtype without the
 * counting kernel (float8, uint16/32/64) runs there; without dims, the kernel (which has
 * complex32: counted the same way here) */
static PyObject *count_nonzero_impl(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    uint64_t mask;
    if (tn_dims_mask(t, &a[1], true, &mask) < 0) return NULL;
    bool dims = a[1].tag == TN_V_INT || (a[1].tag == TN_V_INTLIST && a[1].u.ints.n > 0);
    if ((dims && !tn_dtype_computable(t->dtype)) || t->dtype == TN_DTYPE_C32) {
        int64_t one = a[1].tag == TN_V_INT ? a[1].u.i : 0;
        tn_ints d = a[1].tag == TN_V_INT ? TN_IN(&one, 1) : dims ? TN_IN(a[1].u.ints.v, a[1].u.ints.n) : TN_IN(&one, 0);
        PyObject *nz = tn_at_ne_Scalar(a[0].u.obj, TN_SI(0));
        PyObject *r = nz ? tn_at_sum_dim_IntList(nz, d, false, NULL) : NULL;
        Py_XDECREF(nz);
        return r;
    }
    return run_reduce(TN_REDUCE_COUNT_NONZERO, "count_nonzero", a[0].u.obj, mask, false, TN_DTYPE_I64);
}
PyObject *tn_op_count_nonzero_dim_IntList(tn_value *a) { return count_nonzero_impl(a); }
PyObject *tn_op_count_nonzero(tn_value *a) { return count_nonzero_impl(a); }

/* ---------------------------------------------------------------- cumsum / cumprod */

static PyObject *scan(tn_scan_op op, const char *name, tn_value *a, PyObject *out, bool inplace) {
    tn_tensor *t = TN_T(a[0]);
    int dim;
    if (tn_wrap_dim_i(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    /* the written-to tensor's internal overlap next (self; out= as resized), before the dtypes */
    if (inplace ? tn_check_overlap(a[0].u.obj, 0, NULL) < 0
                : out && tn_out_overlap_as_resized(out, t->ndim, t->sizes, 0, NULL) < 0)
        return NULL;
    tn_dtype od = a[2].tag == TN_V_DTYPE ? a[2].u.dtype
                : inplace ? t->dtype
                : out ? tn_tensor_of(out)->dtype
                : tn_dtype_is_integral(t->dtype, true) ? TN_DTYPE_I64 : t->dtype;
    /* a given dtype against out= / self (in-place), before the kernel's dtypes (measured) */
    if (a[2].tag == TN_V_DTYPE && tn_out_dtype_exact(out, od) < 0) return NULL;
    if (inplace && od != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "Bad in-place call: input tensor dtype %s and output tensor dtype %s should match",
                     tn_dtype_cxx_name(t->dtype), tn_dtype_cxx_name(od));
        return NULL;
    }
    if (tn_require_unquantized_result(od) < 0) return NULL;   /* the result's allocation, as for sum */
    PyObject *src = NULL; /* uint16/32/64: no scan kernel upstream; into another dtype it reads the input cast */
    if (tn_dtype_is_complex(t->dtype) && !tn_dtype_is_complex(od) && od != TN_DTYPE_BOOL && tn_dtype_computable(od)) {
        /* complex into a real dtype: the input cast to it (its real part), as for sum */
        if (!(src = tn_as_dtype(a[0].u.obj, od, false))) return NULL;
        t = tn_tensor_of(src);
    } else if (tn_dtype_barebones(t->dtype)) {
        if (od == t->dtype || !tn_dtype_computable(od))
            return tn_kernel_missing(op == TN_SCAN_CUMSUM ? "cumsum_out_cpu" : "cumprod_out_cpu", t->dtype);
        if (!(src = tn_as_dtype(a[0].u.obj, od, false))) return NULL;
        t = tn_tensor_of(src);
    }
    if (tn_require_computable(name, t->dtype) < 0 || tn_require_computable(name, od) < 0) { Py_XDECREF(src); return NULL; }
    if (od == TN_DTYPE_BOOL && !is_meta(t) && !tn_door_on_meta()) {   /* no bool result in upstream's scan kernels (cumsum_ of bool) */
        Py_XDECREF(src);
        return tn_kernel_missing(op == TN_SCAN_CUMSUM ? "cumsum_out_cpu" : "cumprod_out_cpu", od);
    }
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, od, t->storage->device);
    if (!res) { Py_XDECREF(src); return NULL; }
    bool ran = is_meta(t) || tn_scan(op, t, t->ndim ? dim : 0, tn_data(tn_tensor_of(res)), od);
    tn_dtype in_dt = t->dtype;
    Py_XDECREF(src);
    if (!ran) {
        Py_DECREF(res);
        return tn_kernel_missing(name, in_dt);
    }
    if (inplace) {
        int r = tn_copy_into(a[0].u.obj, res);
        Py_DECREF(res);
        return r < 0 ? NULL : Py_NewRef(a[0].u.obj);
    }
    return tn_out_deliver(res, out, name);
}

PyObject *tn_op_cumsum(tn_value *a) { return scan(TN_SCAN_CUMSUM, "cumsum", a, NULL, false); }
PyObject *tn_op_cumsum_(tn_value *a) { return scan(TN_SCAN_CUMSUM, "cumsum", a, NULL, true); }
PyObject *tn_op_cumsum_out(tn_value *a) { return scan(TN_SCAN_CUMSUM, "cumsum", a, a[3].u.obj, false); }
PyObject *tn_op_cumprod(tn_value *a) { return scan(TN_SCAN_CUMPROD, "cumprod", a, NULL, false); }
PyObject *tn_op_cumprod_(tn_value *a) { return scan(TN_SCAN_CUMPROD, "cumprod", a, NULL, true); }
PyObject *tn_op_cumprod_out(tn_value *a) { return scan(TN_SCAN_CUMPROD, "cumprod", a, a[3].u.obj, false); }

/* ---------------------------------------------------------------- rows of reduced elements */

/* A contiguous copy of `self` in dtype `dt` laid out [kept dims..., reduced dims...]: row o
 * (of *rowlen elements) holds the reduced elements of output o, in logical order. */
static PyObject *reduction_rows(PyObject *self, uint64_t mask, tn_dtype dt, int64_t *nrows, int64_t *rowlen) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    int k = 0;
    int64_t outer = 1, inner = 1;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < t->ndim; d++)
            if ((int)(mask >> d & 1) == pass) {
                sz[k] = t->sizes[d];
                st[k] = t->strides[d];
                if (pass) inner *= sz[k]; else outer *= sz[k];
                k++;
            }
    *nrows = outer;
    *rowlen = inner;
    PyObject *view = tn_tensor_new_view(self, k, sz, st, t->offset);
    if (!view) return NULL;
    PyObject *r = tn_as_dtype(view, dt, true);
    Py_DECREF(view);
    return r;
}

static tn_dtype real_of(tn_dtype d) {
    return d == TN_DTYPE_C64 ? TN_DTYPE_F32 : d == TN_DTYPE_C128 ? TN_DTYPE_F64 : d == TN_DTYPE_C32 ? TN_DTYPE_F16 : d;
}

/* Store a double into element i of a contiguous tensor of a real float dtype. */
static void store_real(char *base, tn_dtype dt, int64_t i, double v) {
    switch (dt) {
    case TN_DTYPE_F64: ((double *)base)[i] = v; break;
    case TN_DTYPE_F32: ((float *)base)[i] = (float)v; break;
    case TN_DTYPE_F16: ((uint16_t *)base)[i] = tn_f32_to_f16((float)v); break;
    case TN_DTYPE_BF16: ((uint16_t *)base)[i] = tn_f32_to_bf16((float)v); break;
    default: break;
    }
}

static double load_real(const char *base, tn_dtype dt, int64_t i) {
    switch (dt) {
    case TN_DTYPE_F64: return ((const double *)base)[i];
    case TN_DTYPE_F32: return ((const float *)base)[i];
    case TN_DTYPE_F16: return tn_f16_to_f32(((const uint16_t *)base)[i]);
    case TN_DTYPE_BF16: return tn_bf16_to_f32(((const uint16_t *)base)[i]);
    default: return 0;
    }
}

/* ---------------------------------------------------------------- var / std */

static PyObject *var_std(bool take_sqrt, bool with_mean, tn_value *self, const tn_value *dimv, double correction,
                         bool keepdim, PyObject *out, PyObject **mean_out) {
    const char *name = take_sqrt ? "std" : "var";
    tn_tensor *t = TN_T(*self);
    if (!is_float_or_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "std and var only support floating point and complex dtypes");
        return NULL;
    }
    uint64_t mask;
    if (tn_dims_mask(t, dimv, true, &mask) < 0) return NULL;   /* the dims wrap first (IndexError) */
    bool cplx = tn_dtype_is_complex(t->dtype);
    tn_dtype rt = real_of(t->dtype);
    int64_t sz[TN_MAX_DIMS];
    int k = reduced_shape(t, mask, keepdim, sz);
    int64_t nout = 1;
    for (int i = 0; i < k; i++) nout *= sz[i];
    if (out && !is_meta(t) && (rt == TN_DTYPE_F16 || rt == TN_DTYPE_BF16) && tn_numel(t) > 0) {
        /* upstream's out= reduction runs in out's dtype; one with at most one output element goes to
         * its all-elements CPU kernel unless that dtype is half / bfloat16, and that kernel has no
         * half / bfloat16 input (measured: docs/breadth_more2.md "third pass"); a complex32 input
         * goes through its real view, out= too (measured: complex32 into float32 / complex64 refused,
         * into float16 / complex32 not) */
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (tn_dtype_is_complex(t->dtype)) od = real_of(od);
        if (nout <= 1 && od != TN_DTYPE_F16 && od != TN_DTYPE_BF16 && tn_can_cast(rt, od)) {
            PyErr_Format(PyExc_RuntimeError, "std_var_all: Unsupported dtype %s", tn_dtype_cpp_name(rt));
            return NULL;
        }
    }
    if (out && !with_mean && !is_meta(t) && nout > 1 && tn_f8_reduces_in(t->dtype, tn_tensor_of(out)->dtype)) {
        /* cast to out='s dtype first (tn_f8_reduces_in); one output element goes to the all-elements
         * kernel, which refuses float8 (below) */
        tn_value w = *self;
        w.u.obj = tn_as_dtype(self->u.obj, tn_tensor_of(out)->dtype, false);
        if (!w.u.obj) return NULL;
        PyObject *r = var_std(take_sqrt, with_mean, &w, dimv, correction, keepdim, out, mean_out);
        Py_DECREF(w.u.obj);
        return r;
    }
    if (out && !with_mean && !is_meta(t) && !cplx && nout > 1 && tn_numel(t) > 0) {
        /* a real input reduces in out='s dtype: its reduction kernel has no complex or float8 one
         * (measured: std(f32, dim=[0], out=complex64) refused; one output element runs) */
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (tn_dtype_is_complex(od) || tn_dtype_infos[od].kind == TN_KIND_FLOAT8) return tn_kernel_missing("std_cpu", od);
    }
    if (tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8 && tn_numel(t) > 0) {
        /* upstream's CPU kernels: one output element goes to its all-elements path, which names the
         * dtype (RuntimeError); more to the reduction stub (docs/breadth_more2.md, group ne 3) */
        if (!with_mean && nout == 1) {
            PyErr_Format(PyExc_RuntimeError, "std_var_all: Unsupported dtype %s", tn_dtype_cpp_name(t->dtype));
            return NULL;
        }
        return tn_kernel_missing("std_cpu", t->dtype);
    }
    /* complex32 runs too (upstream: the variances of the real and imaginary halves) */
    if (t->dtype != TN_DTYPE_C32 && tn_require_computable(name, t->dtype) < 0) return NULL;
    PyObject *res = tn_tensor_new_empty(k, sz, rt, t->storage->device);
    PyObject *mres = with_mean ? tn_tensor_new_empty(k, sz, t->dtype, t->storage->device) : NULL;
    if (!res || (with_mean && !mres)) goto fail;
    if (!is_meta(t)) {
        int64_t nrows, n;
        PyObject *rows = reduction_rows(self->u.obj, t->ndim ? mask : 0, cplx ? TN_DTYPE_C128 : TN_DTYPE_F64, &nrows, &n);
        if (!rows) goto fail;
        if (t->ndim == 0) { nrows = 1; n = 1; }
        if (nrows > 0 && n - correction <= 0) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s(): degrees of freedom is <= 0. Correction should be strictly less than the "
                     "reduction factor (input numel divided by output numel).", name);
            if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) { Py_DECREF(rows); goto fail; }
        }
        const double *x = (const double *)tn_data(tn_tensor_of(rows));
        char *ro = tn_data(tn_tensor_of(res));
        char *mo = mres ? tn_data(tn_tensor_of(mres)) : NULL;
        int ncomp = cplx ? 2 : 1;
        double divisor = n - correction > 0 ? n - correction : 0;
        /* full reduction of f32/f64 (upstream's all-elements path): mean in the input dtype, then
         * the squared deviations summed in double */
        bool two_pass = !with_mean && nrows == 1 && !cplx && (t->dtype == TN_DTYPE_F32 || t->dtype == TN_DTYPE_F64) && n > 0;
        double allmean = 0;
        if (two_pass) {
            PyObject *m = run_reduce(TN_REDUCE_MEAN, "mean", self->u.obj, all_mask(t), false, t->dtype);
            if (!m) { Py_DECREF(rows); goto fail; }
            allmean = load_real(tn_data(tn_tensor_of(m)), t->dtype, 0);
            Py_DECREF(m);
        }
        for (int64_t o = 0; o < nrows; o++) {
            double var = 0, mean[2] = {0, 0};
            for (int c = 0; c < ncomp; c++) {
                double m = 0, m2 = 0;
                if (two_pass) {
                    m = allmean;
                    for (int64_t i = 0; i < n; i++) { double dx = x[o * n + i] - m; m2 += dx * dx; }
                } else {
                    for (int64_t i = 0; i < n; i++) {
                        double v = x[(o * n + i) * ncomp + c];
                        double d = v - m;
                        m += d / (double)(i + 1);
                        m2 += d * (v - m);
                    }
                }
                mean[c] = n ? m : NAN;
                double vc = n ? m2 / divisor : NAN;
                /* complex32: each half's variance is a float16 tensor upstream, added in float16 */
                if (t->dtype == TN_DTYPE_C32) vc = tn_f16_to_f32(tn_f32_to_f16((float)vc));
                var += vc;
            }
            if (t->dtype == TN_DTYPE_C32) {
                float h = tn_f16_to_f32(tn_f32_to_f16((float)var));
                var = take_sqrt ? tn_f16_to_f32(tn_f32_to_f16(sqrtf(h))) : h;
                store_real(ro, rt, o, var);
            } else {
                store_real(ro, rt, o, take_sqrt ? sqrt(var) : var);
            }
            if (mo) {
                if (cplx) {
                    tn_dtype c = t->dtype;
                    if (c == TN_DTYPE_C128) { ((double *)mo)[2 * o] = mean[0]; ((double *)mo)[2 * o + 1] = mean[1]; }
                    else if (c == TN_DTYPE_C32) {
                        ((uint16_t *)mo)[2 * o] = tn_f32_to_f16((float)mean[0]);
                        ((uint16_t *)mo)[2 * o + 1] = tn_f32_to_f16((float)mean[1]);
                    } else { ((float *)mo)[2 * o] = (float)mean[0]; ((float *)mo)[2 * o + 1] = (float)mean[1]; }
                } else {
                    store_real(mo, t->dtype, o, mean[0]);
                }
            }
        }
        Py_DECREF(rows);
    }
    if (mean_out) *mean_out = mres;
    return tn_out_deliver(res, out, name);
fail:
    Py_XDECREF(res);
    Py_XDECREF(mres);
    return NULL;
}

/* correction= as upstream reads it: toDouble() with its overflow check (a
 * complex with an imaginary part is refused); on meta, the Python meta's refusal of any complex
 * (measured: docs/breadth_more2.md "third pass") */
static int correction_of(const tn_value *self, const tn_value *v, double *c) {
    *c = 1.0;
    if (v->tag == TN_V_NONE) return 0;
    if (tn_door_on_meta() && v->tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_ValueError, "correction argument should be integer or float");
        return -1;
    }
    /* after the floating / complex input check (var_std's), before the dims */
    if (is_float_or_complex(TN_T(*self)->dtype) && tn_cr_check_scalar(v, TN_DTYPE_F64) < 0) return -1;
    *c = tn_value_as_double(v);
    return 0;
}
#define CORRECTION(v, c) double c; if (correction_of(&a[0], v, &c) < 0) return NULL

PyObject *tn_op_var(tn_value *a) { return var_std(false, false, &a[0], NULL, arg_bool(&a[1]) ? 1 : 0, false, NULL, NULL); }
PyObject *tn_op_var_dim(tn_value *a) { return var_std(false, false, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3]), NULL, NULL); }
PyObject *tn_op_var_correction(tn_value *a) { CORRECTION(&a[2], c); return var_std(false, false, &a[0], &a[1], c, arg_bool(&a[3]), NULL, NULL); }
PyObject *tn_op_var_out(tn_value *a) { return var_std(false, false, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3]), a[4].u.obj, NULL); }
PyObject *tn_op_var_correction_out(tn_value *a) { CORRECTION(&a[2], c); return var_std(false, false, &a[0], &a[1], c, arg_bool(&a[3]), a[4].u.obj, NULL); }
PyObject *tn_op_std(tn_value *a) { return var_std(true, false, &a[0], NULL, arg_bool(&a[1]) ? 1 : 0, false, NULL, NULL); }
PyObject *tn_op_std_dim(tn_value *a) { return var_std(true, false, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3]), NULL, NULL); }
PyObject *tn_op_std_correction(tn_value *a) { CORRECTION(&a[2], c); return var_std(true, false, &a[0], &a[1], c, arg_bool(&a[3]), NULL, NULL); }
PyObject *tn_op_std_out(tn_value *a) { return var_std(true, false, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3]), a[4].u.obj, NULL); }
PyObject *tn_op_std_correction_out(tn_value *a) { CORRECTION(&a[2], c); return var_std(true, false, &a[0], &a[1], c, arg_bool(&a[3]), a[4].u.obj, NULL); }

static PyObject *var_mean_impl(bool take_sqrt, tn_value *self, const tn_value *dimv, double corr, bool keepdim) {
    PyObject *m = NULL;
    PyObject *v = var_std(take_sqrt, true, self, dimv, corr, keepdim, NULL, &m);
    if (!v) return NULL;
    return pair(v, m);
}

PyObject *tn_op_var_mean(tn_value *a) { return var_mean_impl(false, &a[0], NULL, arg_bool(&a[1]) ? 1 : 0, false); }
PyObject *tn_op_var_mean_dim(tn_value *a) { return var_mean_impl(false, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3])); }
PyObject *tn_op_var_mean_correction(tn_value *a) { CORRECTION(&a[2], c); return var_mean_impl(false, &a[0], &a[1], c, arg_bool(&a[3])); }
PyObject *tn_op_std_mean(tn_value *a) { return var_mean_impl(true, &a[0], NULL, arg_bool(&a[1]) ? 1 : 0, false); }
PyObject *tn_op_std_mean_dim(tn_value *a) { return var_mean_impl(true, &a[0], &a[1], arg_bool(&a[2]) ? 1 : 0, arg_bool(&a[3])); }
PyObject *tn_op_std_mean_correction(tn_value *a) { CORRECTION(&a[2], c); return var_mean_impl(true, &a[0], &a[1], c, arg_bool(&a[3])); }

/* ---------------------------------------------------------------- logsumexp */

/* logsumexp as upstream's kernel computes it, step by step in the input's dtype (each step an op
 * through the door, so the bits are those ops'): m = amax(self, dims, keepdim=True) with infinite
 * maxima replaced by 0, log(sum(exp(self - m), dims, keepdim)) + m. Integral input is converted
 * to the default dtype first; an empty input gives log(sum(exp(self))). Complex input takes m
 * from the real parts. */
static PyObject *logsumexp_impl(tn_value *a, PyObject *out) {
    tn_tensor *t = TN_T(a[0]);
    const tn_dtype od = out ? tn_tensor_of(out)->dtype : TN_DTYPE_UNDEFINED;
    if (out && !tn_dtype_is_floating(od) && !tn_dtype_is_complex(od)) { /* upstream checks this first */
        PyErr_Format(PyExc_RuntimeError, "logsumexp(): Expected floating point type for result tensor, but got: %s",
                     tn_dtype_cpp_name(od));
        return NULL;
    }
    bool keepdim = arg_bool(&a[2]);
    bool cplx = tn_dtype_is_complex(t->dtype);
    PyObject *x = tn_dtype_is_integral(t->dtype, true) ? tn_as_dtype(a[0].u.obj, tn_py.default_dtype, false)
                                                        : Py_NewRef(a[0].u.obj);
    if (!x) return NULL;
    PyObject *dims = tn_value_to_python(&a[1]), *kd = keepdim ? Py_True : Py_False, *res = NULL;
    if (!dims) { Py_DECREF(x); return NULL; }
    if (tn_numel(tn_tensor_of(x)) == 0) {
        PyObject *e = tn_at_exp(x);
        PyObject *sm = e ? tn_at_sum_dim_IntList(e, TN_IPY(dims), (kd) == Py_True, NULL) : NULL;
        res = sm ? tn_at_log_(sm) : NULL;
        Py_XDECREF(e);
        Py_XDECREF(sm);
    } else if (!keepdim && t->ndim > 0 && a[1].tag == TN_V_INTLIST && a[1].u.ints.n == 0 && !tn_door_on_meta()) {
        /* dim=[]: upstream reduces every dim but squeezes none of its kept-dim maxima, whose in-place
         * add into the 0-dim result fails; not on meta, whose kept dims stay (measured: docs/breadth_more2.md "third pass") */
        char b[256];
        int64_t ones[TN_MAX_DIMS];
        for (int i = 0; i < t->ndim; i++) ones[i] = 1;
        tn_shape_str(b, sizeof b, t->ndim, ones);
        PyErr_Format(PyExc_RuntimeError, "output with shape [] doesn't match the broadcast shape %s", b);
    } else {
        /* complex: the maxima of the real parts (upstream's amax(real(self))) */
        PyObject *xr = cplx ? tn_at_real(x) : Py_NewRef(x);
        PyObject *m = xr ? tn_at_amax(xr, TN_IPY(dims), true) : NULL;
        Py_XDECREF(xr);
        PyObject *ma = m ? tn_at_abs(m) : NULL;
        PyObject *inf = ma ? tn_at_eq_Scalar(ma, TN_SD(INFINITY)) : NULL;
        PyObject *mf = inf ? tn_at_masked_fill__Scalar(m, inf, TN_SI(0)) : NULL;
        PyObject *d = mf ? tn_at_sub_Tensor(x, m, TN_SDEF) : NULL;
        PyObject *e = d ? tn_at_exp_(d) : NULL;
        /* upstream sums into out itself: a complex input with a real out sums the real parts of
         * exp(self - m) in out's dtype, then log_ / add_ there (measured: docs/breadth_more2.md
         * "Fuzz corpus: calls upstream runs, fourth pass") */
        PyObject *sdt = cplx && out && !tn_dtype_is_complex(od) ? TN_DT(od) : NULL;
        PyObject *sm = e ? tn_at_sum_dim_IntList(d, TN_IPY(dims), (kd) == Py_True, sdt) : NULL;
        PyObject *lg = sm ? tn_at_log_(sm) : NULL;
        PyObject *shape = lg ? PyObject_GetAttrString(sm, "shape") : NULL;
        PyObject *ms = shape ? tn_at_view(m, TN_IPY(shape)) : NULL;
        PyObject *r = ms ? tn_at_add__Tensor(sm, ms, TN_SDEF) : NULL;
        if (r) res = Py_NewRef(sm);
        Py_XDECREF(m); Py_XDECREF(ma); Py_XDECREF(inf); Py_XDECREF(mf); Py_XDECREF(d); Py_XDECREF(e);
        Py_XDECREF(sm); Py_XDECREF(lg); Py_XDECREF(shape); Py_XDECREF(ms); Py_XDECREF(r);
    }
    Py_DECREF(dims);
    Py_DECREF(x);
    if (res && out && (tn_dtype_infos[od].kind == TN_KIND_FLOAT8 || od == TN_DTYPE_C32)) { /* upstream sums into out: no float8 / complex32 sum */
        Py_DECREF(res);
        return tn_kernel_missing_cpu("sum", od);
    }
    return tn_out_deliver_overlap(res, out, "logsumexp", false);
}

PyObject *tn_op_logsumexp(tn_value *a) { return logsumexp_impl(a, NULL); }
PyObject *tn_op_logsumexp_out(tn_value *a) { return logsumexp_impl(a, a[3].u.obj); }
/* torch.special.logsumexp: upstream's alias (decomposed to logsumexp while recording) */
PyObject *tn_op_special_logsumexp(tn_value *a) { return tn_door_call(TN_ROW_logsumexp, a); }
PyObject *tn_op_special_logsumexp_out(tn_value *a) { return tn_door_call(TN_ROW_logsumexp_out, a); }

/* ---------------------------------------------------------------- hash_tensor */

/* hash_tensor(self, dim=[], keepdim, mode=0): mode 0 (the only one) is upstream's xor_sum, the
 * xor of the reduced elements, each taken as uint64: integers and bool cast to int64 (signed ones
 * sign-extended), floating values cast to double and taken by their bits (measured on upstream:
 * float32 / float16 / bfloat16 hash as their double). Result dtype uint64; dims as the other
 * reductions (empty = all); an empty input needs explicit dims of non-zero size. */
static uint64_t hash_elem(const char *p, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_BOOL: return *(const uint8_t *)p != 0;
    case TN_DTYPE_U8: return *(const uint8_t *)p;
    case TN_DTYPE_I8: return (uint64_t)(int64_t)*(const int8_t *)p;
    case TN_DTYPE_I16: return (uint64_t)(int64_t)*(const int16_t *)p;
    case TN_DTYPE_I32: return (uint64_t)(int64_t)*(const int32_t *)p;
    case TN_DTYPE_I64: return *(const uint64_t *)p;
    default: {
        double d = load_real(p, dt, 0);
        uint64_t u;
        memcpy(&u, &d, 8);
        return u;
    }
    }
}

static PyObject *hash_tensor_impl(tn_value *a, PyObject *out) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    bool keepdim = arg_bool(&a[2]);
    uint64_t mask;
    if (out && tn_tensor_of(out)->dtype != TN_DTYPE_U64) {   /* upstream's first check (measured) */
        PyErr_Format(PyExc_RuntimeError, "Expected result to be of dtype uint64, but got %s",
                     tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    if (tn_numel(t) == 0 && a[1].tag != TN_V_NONE) {
        /* each given dim's size is read (wrapped, in order) before the repeats are looked for
         * (measured: docs/breadth_more2.md "group types (session 37)") */
        int nd = a[1].tag == TN_V_INT ? 1 : a[1].u.ints.n;
        for (int i = 0; i < nd; i++) {
            int64_t d = a[1].tag == TN_V_INT ? a[1].u.i : a[1].u.ints.v[i], w;
            if (tn_wrap_dim(d, t->ndim, &w) < 0) return NULL;
            if (t->ndim > 0 && t->sizes[w] == 0) {
                PyErr_Format(PyExc_IndexError, "hash_tensor: Expected reduction dim %lld to have non-zero size.", (long long)d);
                return NULL;
            }
        }
    }
    if (tn_dims_mask(t, &a[1], true, &mask) < 0) return NULL;
    if (tn_numel(t) == 0) {
        bool all = a[1].tag == TN_V_NONE || (a[1].tag != TN_V_INT && a[1].u.ints.n == 0);
        if (all && t->ndim > 0) {
            PyErr_SetString(PyExc_RuntimeError, "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                            "Specify the reduction dim with the 'dim' argument.");
            return NULL;
        }
        for (int d = 0; d < t->ndim; d++)
            if ((mask >> d & 1) && t->sizes[d] == 0) {
                PyErr_Format(PyExc_IndexError, "hash_tensor: Expected reduction dim %d to have non-zero size.", d);
                return NULL;
            }
    }
    /* upstream switches on the mode as a 32-bit int (2**32 is mode 0) and only in the CPU
     * kernel: a meta input takes any mode (measured) */
    if ((int32_t)a[3].u.i != 0 && !is_meta(t) && !tn_door_on_meta()) {
        PyErr_Format(PyExc_RuntimeError, "Unknown hash_tensor mode: %lld", (long long)a[3].u.i);
        return NULL;
    }
    tn_dtype dt = t->dtype;
    bool ok = dt == TN_DTYPE_BOOL || dt == TN_DTYPE_U8 || dt == TN_DTYPE_I8 || dt == TN_DTYPE_I16 || dt == TN_DTYPE_I32 ||
              dt == TN_DTYPE_I64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64;
    if (!ok) return tn_kernel_missing("xor_sum_cpu", dt);
    int64_t sz[TN_MAX_DIMS];
    int nd = reduced_shape(t, mask, keepdim, sz);
    PyObject *res = tn_tensor_new_empty(nd, sz, TN_DTYPE_U64, is_meta(t) ? TN_DEVICE_META : TN_DEVICE_CPU);
    if (!res) return NULL;
    if (!is_meta(t)) {
        int64_t nrows, rowlen;
        PyObject *rows = reduction_rows(self, mask, dt, &nrows, &rowlen);
        if (!rows) { Py_DECREF(res); return NULL; }
        const char *src = tn_data(tn_tensor_of(rows));
        uint64_t *dst = (uint64_t *)tn_data(tn_tensor_of(res));
        int isz = tn_dtype_itemsize(dt);
        for (int64_t o = 0; o < nrows; o++) {
            uint64_t h = 0;
            for (int64_t k = 0; k < rowlen; k++) h ^= hash_elem(src + (o * rowlen + k) * isz, dt);
            dst[o] = h;
        }
        Py_DECREF(rows);
    }
    if (!out) return res;
    /* out= by hand: copy_ has no uint64 kernel (a storable dtype here) */
    if (tn_out_prepare(out, nd, sz, TN_DTYPE_U64, "hash_tensor") < 0) { Py_DECREF(res); return NULL; }
    tn_tensor *o = tn_tensor_of(out);
    if (!is_meta(o)) {
        const uint64_t *src = (const uint64_t *)tn_data(tn_tensor_of(res));
        char *base = tn_data(o);
        int64_t n = tn_numel(o);
        for (int64_t i = 0; i < n; i++) {
            int64_t rem = i, off = 0;
            for (int d = o->ndim - 1; d >= 0; d--) {
                off += (rem % o->sizes[d]) * o->strides[d];
                rem /= o->sizes[d];
            }
            memcpy(base + off * 8, &src[i], 8);
        }
        o->storage->version++;
    }
    Py_DECREF(res);
    return Py_NewRef(out);
}

PyObject *tn_op_hash_tensor(tn_value *a) { return hash_tensor_impl(a, NULL); }
PyObject *tn_op_hash_tensor_out(tn_value *a) { return hash_tensor_impl(a, a[4].u.obj); }

/* ---------------------------------------------------------------- segment_reduce */

/* segment_reduce(data, reduce, lengths=, indices=, offsets=, axis, unsafe, initial) as upstream's
 * CPU kernel: along `axis`, segment k of each outer row covers the next lengths[k] elements
 * (offsets: [offsets[k], offsets[k+1])); each segment starts at `initial` (else -inf / +inf for
 * max / min, 0 for sum / mean, 1 for prod) and folds the elements in order in the data's dtype
 * (float16 / bfloat16 round after every step as c10::Half arithmetic; a NaN element is taken by
 * max / min); mean divides by the length (a length converted to the dtype first), an empty
 * segment's mean without initial is NaN. Offsets win when both are given. Segment bounds that
 * leave the data (upstream reads out of bounds, only `unsafe` lengths or offsets can) raise. */
enum { SEG_MAX, SEG_MEAN, SEG_MIN, SEG_SUM, SEG_PROD };

static double seg_round(tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F32: return (float)v;
    case TN_DTYPE_F16: return tn_f16_to_f32(tn_f32_to_f16((float)v));
    case TN_DTYPE_BF16: return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    default: return v;
    }
}

/* the reduce argument of segment_reduce and its backward: SEG_*, or -1 with upstream's error */
static int seg_reduction(PyObject *name) {
    const char *rs = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!rs) return -1;
    if (!strcmp(rs, "max") || !strcmp(rs, "amax")) return SEG_MAX;
    if (!strcmp(rs, "mean")) return SEG_MEAN;
    if (!strcmp(rs, "min") || !strcmp(rs, "amin")) return SEG_MIN;
    if (!strcmp(rs, "sum")) return SEG_SUM;
    if (!strcmp(rs, "prod")) return SEG_PROD;
    PyErr_Format(PyExc_RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got %s", rs);
    return -1;
}

static PyObject *segment_reduce_impl(tn_value *a) {
    PyObject *data = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(data);
    int axis;
    if (tn_wrap_dim_i(a[5].u.i, t->ndim, &axis) < 0) return NULL;
    bool has_len = a[2].tag == TN_V_TENSOR, has_off = a[4].tag == TN_V_TENSOR;
    if (a[3].tag == TN_V_TENSOR) {
        /* upstream's Python meta kernel raises it as NotImplementedError, the CPU kernel as RuntimeError */
        PyErr_SetString(tn_door_on_meta() ? PyExc_NotImplementedError : PyExc_RuntimeError,
                        "segment_reduce(): indices based reduction is not supported yet.");
        return NULL;
    }
    if (!has_len && !has_off) {
        PyErr_SetString(PyExc_RuntimeError, "segment_reduce(): Either lengths or offsets must be defined.");
        return NULL;
    }
    int red = seg_reduction(a[1].u.obj);
    if (red < 0) return NULL;
    PyObject *lo = has_off ? a[4].u.obj : a[2].u.obj;
    const tn_tensor *lt = tn_tensor_of(lo);
    const char *what = has_off ? "offsets" : "lengths";
    if (t->ndim < lt->ndim) {
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): Expected data.dim() >= %s.dim(), got %d and %d", what, t->ndim, lt->ndim);
        return NULL;
    }
    if (axis != lt->ndim - 1) {
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): Expected axis to be the last dimension of %s but got %d.", what, axis);
        return NULL;
    }
    bool unsafe = a[6].u.i != 0;
    if (!has_off && !unsafe) {
        PyObject *mn = tn_at_min(lo);
        if (!mn) return NULL;
        tn_value v;
        tn_cr_load(tn_data(tn_tensor_of(mn)), tn_tensor_of(mn)->dtype, &v);
        Py_DECREF(mn);
        double m = v.tag == TN_V_FLOAT ? v.u.f : (double)v.u.i;
        if (m < 0) { PyErr_SetString(PyExc_RuntimeError, "lengths contains negative value!"); return NULL; }
        PyObject *s = tn_at_sum_dim_IntList(lo, TN_IS(-1), false, NULL);
        PyObject *eq = s ? tn_at_eq_Scalar(s, TN_SI((long long)t->sizes[axis])) : NULL;
        PyObject *all = eq ? tn_at_all(eq) : NULL;
        Py_XDECREF(s);
        Py_XDECREF(eq);
        if (!all) return NULL;
        bool ok = *(const uint8_t *)tn_data(tn_tensor_of(all)) != 0;
        Py_DECREF(all);
        if (!ok) {
            PyErr_SetString(PyExc_RuntimeError, "segment_reduce(): Expected all rows of lengths along axis to sum to "
                            "data.size(lengths.dim()-1) when !unsafe.");
            return NULL;
        }
    }
    if (lt->dtype != TN_DTYPE_I64 && lt->dtype != TN_DTYPE_I32)
        return tn_kernel_missing(has_off ? "_segment_reduce_offsets_cpu_kernel1" : "_segment_reduce_lengths_cpu_kernel1", lt->dtype);
    tn_dtype dt = t->dtype;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F16 && dt != TN_DTYPE_BF16)
        return tn_kernel_missing("_segment_reduce_cpu", dt);
    int64_t nseg = lt->sizes[axis] - (has_off ? 1 : 0);
    if (nseg < 0) {
        PyErr_SetString(PyExc_RuntimeError, "segment_reduce(): offsets must have at least one element along axis");
        return NULL;
    }
    int64_t outer = 1, inner = 1, len_axis = t->sizes[axis];
    for (int d = 0; d < axis; d++) outer *= t->sizes[d];
    for (int d = axis + 1; d < t->ndim; d++) inner *= t->sizes[d];
    if (tn_numel(lt) != outer * lt->sizes[axis]) {
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): %s of shape %s does not match data's leading dimensions", what,
                     "(given)");
        return NULL;
    }
    bool has_init = a[7].tag != TN_V_NONE;
    double init0 = red == SEG_MAX ? -INFINITY : red == SEG_MIN ? INFINITY : red == SEG_PROD ? 1.0 : 0.0;
    if (has_init) {
        if (tn_cr_check_scalar(&a[7], dt) < 0) return NULL;
        init0 = seg_round(dt, tn_value_as_double(&a[7]));
    }
    PyObject *x = tn_as_dtype(data, dt, true);
    PyObject *li = x ? tn_as_dtype(lo, TN_DTYPE_I64, true) : NULL;
    int64_t osz[TN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) osz[d] = d == axis ? nseg : t->sizes[d];
    PyObject *res = li ? tn_tensor_new_empty(t->ndim, osz, dt, TN_DEVICE_CPU) : NULL;
    if (!res) { Py_XDECREF(x); Py_XDECREF(li); return NULL; }
    const char *src = tn_data(tn_tensor_of(x));
    char *dst = tn_data(tn_tensor_of(res));
    const int64_t *lv = (const int64_t *)tn_data(tn_tensor_of(li));
    int64_t lsz = lt->sizes[axis];
    int bad = 0;
    for (int64_t o = 0; o < outer && !bad; o++) {
        int64_t end = has_off ? lv[o * lsz] : 0, start, seglen;
        for (int64_t k = 0; k < nseg && !bad; k++) {
            start = end;
            if (has_off) { end = lv[o * lsz + k + 1]; seglen = end - start; }
            else { seglen = lv[o * lsz + k]; end += seglen; }
            if (start < 0 || end > len_axis || seglen < 0) { bad = 1; break; }
            for (int64_t in = 0; in < inner; in++) {
                double acc = init0;
                for (int64_t j = start; j < end; j++) {
                    double v = load_real(src, dt, (o * len_axis + j) * inner + in);
                    switch (red) {
                    case SEG_MAX: acc = isnan(v) ? v : (acc < v ? v : acc); break;
                    case SEG_MIN: acc = isnan(v) ? v : (v < acc ? v : acc); break;
                    case SEG_PROD: acc = seg_round(dt, acc * v); break;
                    default: acc = seg_round(dt, acc + v); break;
                    }
                }
                if (red == SEG_MEAN) {
                    if (seglen == 0 && !has_init) acc = NAN;
                    else if (seglen > 0 && !isnan(acc)) acc = seg_round(dt, acc / seg_round(dt, (double)seglen));
                }
                store_real(dst, dt, (o * nseg + k) * inner + in, acc);
            }
        }
    }
    Py_DECREF(x);
    Py_DECREF(li);
    if (bad) {
        Py_DECREF(res);
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): a segment of %s reaches outside data's dimension %d (size %lld)",
                     what, axis, (long long)len_axis);
        return NULL;
    }
    return res;
}

PyObject *tn_op_segment_reduce(tn_value *a) { return segment_reduce_impl(a); }

/* _segment_reduce_backward(grad, output, data, reduce, lengths=, offsets=, axis, initial) as
 * upstream's CPU kernel: zeros, then per non-empty segment: sum: grad; mean: grad / length (in the
 * dtype); max / min: grad at the elements equal to the output (or NaN), divided by their count
 * when there are two or more and the gradient is positive (upstream's test, kept); prod:
 * grad * output / x, or grad * the product of the other elements (from initial or 1) where x is
 * 0 or NaN. */
static PyObject *segment_reduce_backward_impl(tn_value *a) {
    PyObject *grad = a[0].u.obj, *outp = a[1].u.obj, *data = a[2].u.obj;
    const tn_tensor *t = tn_tensor_of(data);
    int axis;
    if (tn_wrap_dim_i(a[6].u.i, t->ndim, &axis) < 0) return NULL;
    bool has_off = a[5].tag == TN_V_TENSOR;
    if (!has_off && a[4].tag != TN_V_TENSOR) {
        PyErr_SetString(PyExc_RuntimeError, "segment_reduce(): Either lengths or offsets must be defined.");
        return NULL;
    }
    int red = seg_reduction(a[3].u.obj);
    if (red < 0) return NULL;
    PyObject *lo = has_off ? a[5].u.obj : a[4].u.obj;
    const tn_tensor *lt = tn_tensor_of(lo);
    tn_dtype dt = t->dtype;
    if (lt->dtype != TN_DTYPE_I64 && lt->dtype != TN_DTYPE_I32)
        return tn_kernel_missing("_segment_reduce_cpu_lengths_backward_kernel1", lt->dtype);
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F16 && dt != TN_DTYPE_BF16)
        return tn_kernel_missing("_segment_reduce_cpu", dt);
    if (lt->ndim == 0 || axis != lt->ndim - 1 || t->ndim < lt->ndim) {
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): Expected axis to be the last dimension of %s but got %d.",
                     has_off ? "offsets" : "lengths", axis);
        return NULL;
    }
    int64_t nseg = lt->sizes[axis] - (has_off ? 1 : 0), outer = 1, inner = 1, len_axis = t->sizes[axis];
    for (int d = 0; d < axis; d++) outer *= t->sizes[d];
    for (int d = axis + 1; d < t->ndim; d++) inner *= t->sizes[d];
    int64_t want = outer * (nseg < 0 ? 0 : nseg) * inner;
    if (nseg < 0 || tn_numel(lt) != outer * lt->sizes[axis] || tn_numel(tn_tensor_of(grad)) != want ||
        tn_numel(tn_tensor_of(outp)) != want) {
        PyErr_SetString(PyExc_RuntimeError, "_segment_reduce_backward(): grad, output and lengths / offsets do not match data");
        return NULL;
    }
    double init_prod = 1.0;
    if (red == SEG_PROD && a[7].tag != TN_V_NONE) {
        if (tn_cr_check_scalar(&a[7], dt) < 0) return NULL;
        init_prod = seg_round(dt, tn_value_as_double(&a[7]));
    }
    PyObject *x = tn_as_dtype(data, dt, true);
    PyObject *gc = x ? tn_as_dtype(grad, dt, true) : NULL;
    PyObject *oc = gc ? tn_as_dtype(outp, dt, true) : NULL;
    PyObject *li = oc ? tn_as_dtype(lo, TN_DTYPE_I64, true) : NULL;
    PyObject *res = li ? tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU) : NULL;
    if (!res) { Py_XDECREF(x); Py_XDECREF(gc); Py_XDECREF(oc); Py_XDECREF(li); return NULL; }
    const char *src = tn_data(tn_tensor_of(x)), *gs = tn_data(tn_tensor_of(gc)), *os = tn_data(tn_tensor_of(oc));
    char *dst = tn_data(tn_tensor_of(res));
    memset(dst, 0, (size_t)tn_numel(t) * (size_t)tn_dtype_itemsize(dt));
    const int64_t *lv = (const int64_t *)tn_data(tn_tensor_of(li));
    int64_t lsz = lt->sizes[axis];
    int bad = 0;
    for (int64_t o = 0; o < outer && !bad; o++) {
        int64_t end = has_off ? lv[o * lsz] : 0, start, seglen;
        for (int64_t k = 0; k < nseg && !bad; k++) {
            start = end;
            if (has_off) { end = lv[o * lsz + k + 1]; seglen = end - start; }
            else { seglen = lv[o * lsz + k]; end += seglen; }
            if (start < 0 || end > len_axis || seglen < 0) { bad = 1; break; }
            if (seglen == 0) continue;
            for (int64_t in = 0; in < inner; in++) {
                int64_t oi = (o * nseg + k) * inner + in;
                double g = load_real(gs, dt, oi), out = load_real(os, dt, oi);
#define SEG_IX(j) ((o * len_axis + (j)) * inner + in)
                if (red == SEG_MAX || red == SEG_MIN) {
                    int64_t counter = 0;
                    for (int64_t j = start; j < end; j++) {
                        double v = load_real(src, dt, SEG_IX(j));
                        if (isnan(v) || v == out) { store_real(dst, dt, SEG_IX(j), g); counter++; }
                    }
                    if (counter < 2) continue;
                    for (int64_t j = start; j < end; j++) {
                        double gi = load_real(dst, dt, SEG_IX(j));
                        if (gi > 0) store_real(dst, dt, SEG_IX(j), seg_round(dt, gi / seg_round(dt, (double)counter)));
                    }
                } else if (red == SEG_MEAN) {
                    double gv = seg_round(dt, g / seg_round(dt, (double)seglen));
                    for (int64_t j = start; j < end; j++) store_real(dst, dt, SEG_IX(j), gv);
                } else if (red == SEG_SUM) {
                    for (int64_t j = start; j < end; j++) store_real(dst, dt, SEG_IX(j), g);
                } else {
                    double gv = seg_round(dt, g * out);
                    for (int64_t j = start; j < end; j++) {
                        double v = load_real(src, dt, SEG_IX(j));
                        if (isnan(v) || v == 0) {
                            double ex = init_prod;
                            for (int64_t q = start; q < end; q++)
                                if (q != j) ex = seg_round(dt, ex * load_real(src, dt, SEG_IX(q)));
                            store_real(dst, dt, SEG_IX(j), seg_round(dt, g * ex));
                        } else {
                            store_real(dst, dt, SEG_IX(j), seg_round(dt, gv / v));
                        }
                    }
                }
#undef SEG_IX
            }
        }
    }
    Py_DECREF(x); Py_DECREF(gc); Py_DECREF(oc); Py_DECREF(li);
    if (bad) {
        Py_DECREF(res);
        PyErr_Format(PyExc_RuntimeError, "segment_reduce(): a segment reaches outside data's dimension %d (size %lld)", axis,
                     (long long)len_axis);
        return NULL;
    }
    return res;
}

PyObject *tn_op__segment_reduce_backward(tn_value *a) { return segment_reduce_backward_impl(a); }
