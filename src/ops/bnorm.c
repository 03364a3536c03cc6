/* ops/bnorm.c — batch norm, group norm and instance norm, forward and backward, as upstream's CPU
 * kernels (aten/native/Normalization.cpp, cpu/batch_norm_kernel.cpp, group_norm.cpp).
 *
 * native_batch_norm: per-channel statistics of an NCHW-dense or channels-last-dense input (other
 * layouts are copied to NCHW first; upstream reduces those through at::mean, so they agree within
 * float rounding only), save_mean / save_invstd in the parameter dtype (f32 for a reduced-
 * precision input with f32 parameters, "mixed"), running statistics updated in place with
 * upstream's rounding (momentum in the parameter type, unbiased variance), then the affine
 * x * alpha + beta. f16 / bf16 inputs are widened to f32 and narrowed once.
 * The composites (batch_norm, _batch_norm_impl_index, group_norm, instance_norm) call the ops
 * upstream's composites call, through the door, so a dispatch mode and autograd see upstream's ops. */
#include "autograd/autograd.h"
#include "core/parallel.h"
#include "kernels/bnorm.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>

static bool bool_of(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }
static PyObject *opt_tensor(const tn_value *v) { return v->tag == TN_V_TENSOR ? v->u.obj : NULL; }

/* channels-last dense (4-D / 5-D) and not plain contiguous */
static bool is_cl(const tn_tensor *t) {
    if ((t->ndim != 4 && t->ndim != 5) || tn_is_contiguous(t)) return false;
    int order[5] = {1, t->ndim - 1, t->ndim - 2, t->ndim - 3, 0};   /* innermost first */
    if (t->ndim == 4) { order[0] = 1; order[1] = 3; order[2] = 2; order[3] = 0; }
    else { order[0] = 1; order[1] = 4; order[2] = 3; order[3] = 2; order[4] = 0; }
    int64_t expect = 1;
    for (int k = 0; k < t->ndim; k++) {
        int d = order[k];
        if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->sizes[d];
    }
    return true;
}
static void cl_strides(const tn_tensor *t, int64_t *st) {
    int nd = t->ndim;
    int64_t s = 1;
    st[1] = s; s *= t->sizes[1];
    for (int d = nd - 1; d >= 2; d--) { st[d] = s; s *= t->sizes[d]; }
    st[0] = s;
}
/* a copy of t in dtype dt, channels-last dense when `cl`, else contiguous (or t itself) */
static PyObject *as_layout(PyObject *t, tn_dtype dt, bool cl) {
    const tn_tensor *x = tn_tensor_of(t);
    if (!cl) return tn_as_dtype(t, dt, true);
    if (x->dtype == dt && is_cl(x)) return Py_NewRef(t);
    int64_t st[TN_MAX_DIMS];
    cl_strides(x, st);
    PyObject *r = tn_tensor_new_strided(x->ndim, x->sizes, st, dt);
    if (r && tn_copy_into(r, t) < 0) Py_CLEAR(r);
    return r;
}
static PyObject *new_like_layout(const tn_tensor *x, tn_dtype dt, bool cl) {
    if (!cl) return tn_tensor_new_empty(x->ndim, x->sizes, dt, TN_DEVICE_CPU);
    int64_t st[TN_MAX_DIMS];
    cl_strides(x, st);
    return tn_tensor_new_strided(x->ndim, x->sizes, st, dt);
}
static PyObject *vec_new(int64_t n, tn_dtype dt) { return tn_tensor_new_empty(1, &n, dt, TN_DEVICE_CPU); }
static double rd(const char *p, tn_dtype ct, int64_t i) { return ct == TN_DTYPE_F64 ? ((const double *)p)[i] : ((const float *)p)[i]; }

/* upstream's check_mixed_data_type: returns 1 when mixed (reduced input, f32 parameters), 0 when
 * all share the input's dtype, -1 with upstream's error otherwise */
static int bn_mixed(tn_dtype in, PyObject *const *params, int n) {
    bool mixed = false;
    for (int i = 0; i < n; i++)
        if (params[i] && tn_tensor_of(params[i])->dtype != in) mixed = true;
    if (!mixed) return 0;
    for (int i = 0; i < n; i++)
        if (params[i] && tn_tensor_of(params[i])->dtype != TN_DTYPE_F32) {
            PyErr_SetString(PyExc_RuntimeError, "mixed dtype (CPU): expect parameter to have scalar type of Float");
            return -1;
        }
    if (in != TN_DTYPE_BF16 && in != TN_DTYPE_F16) {
        PyErr_SetString(PyExc_RuntimeError, "mixed dtype (CPU): all inputs must share same datatype.");
        return -1;
    }
    return 1;
}

static int bn_check_count(const char *name, PyObject *t, int64_t C) {
    if (!t || tn_numel(tn_tensor_of(t)) == C) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s should contain %lld elements not %lld", name, (long long)C,
                 (long long)tn_numel(tn_tensor_of(t)));
    return -1;
}

/* ---------------------------------------------------------------- native_batch_norm */

/* The forward. Returns (out, save_mean, save_invstd). */
/* `update`: upstream's train flag as passed to its CPU kernel (false for _batch_norm_no_update even
 * without running statistics, where `train` computes batch statistics). Without it an empty input
 * returns (empty_like(input), empty(0), empty(0)) after the dtype checks only: no dim 1, no counts,
 * no running statistics needed (measured: docs/breadth_more2.md "Fuzz corpus: calls upstream runs,
 * fourth pass"). */
static PyObject *bn_forward(PyObject *input, PyObject *w, PyObject *b, PyObject *rm, PyObject *rv, bool train,
                            bool update, double momentum, double eps) {
    const tn_tensor *x = tn_tensor_of(input);
    if (!update && tn_numel(x) == 0) {
        if (!tn_nn_float(x->dtype)) return tn_kernel_missing("batch_norm", x->dtype);
        PyObject *params[4] = {w, b, rm, rv};
        int mixed = bn_mixed(x->dtype, params, 4);
        if (mixed < 0) return NULL;
        tn_dtype pd = mixed ? TN_DTYPE_F32 : x->dtype;
        int64_t zero = 0;
        PyObject *y = new_like_layout(x, x->dtype, is_cl(x));
        PyObject *sm = y ? tn_tensor_new_empty(1, &zero, pd, TN_DEVICE_CPU) : NULL;
        PyObject *si = sm ? tn_tensor_new_empty(1, &zero, pd, TN_DEVICE_CPU) : NULL;
        PyObject *res = si ? PyTuple_Pack(3, y, sm, si) : NULL;
        Py_XDECREF(y); Py_XDECREF(sm); Py_XDECREF(si);
        return res;
    }
    int dim1;
    /* upstream's training path reads input.size(1) before its dtype dispatch, the evaluation one
     * after it (measured: docs/breadth_more2.md "group types (session 37)") */
    if (!train && x->ndim > 0 && !tn_nn_float(x->dtype)) return tn_kernel_missing("batch_norm", x->dtype);
    if (tn_wrap_dim_i(1, x->ndim, &dim1) < 0) return NULL;
    int64_t C = x->sizes[1];
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("batch_norm", x->dtype);
    if (tn_numel(x) == 0) {
        char s[256];
        tn_shape_str(s, sizeof s, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "input tensor must have at least one element, but got input_sizes = %s", s);
        return NULL;
    }
    PyObject *params[4] = {w, b, rm, rv};
    int mixed = bn_mixed(x->dtype, params, 4);
    if (mixed < 0) return NULL;
    /* upstream's CPU kernels read the running stats through 1-d accessors, before any count check
     * (measured: a [3, 1] running_mean refused, a [3, 1] weight runs; docs/breadth_more2.md "fourth pass") */
    for (int i = 2; i < 4 && !tn_door_on_meta(); i++)
        if (params[i] && tn_tensor_of(params[i])->ndim != 1) {
            PyErr_Format(PyExc_RuntimeError, "TensorAccessor expected 1 dims but tensor has %d", tn_tensor_of(params[i])->ndim);
            return NULL;
        }
    if (!train && (!rm || !rv)) {
        PyErr_Format(PyExc_RuntimeError, "running_%s must be defined in evaluation mode", rm ? "var" : "mean");
        return NULL;
    }
    if (bn_check_count("weight", w, C) < 0 || bn_check_count("bias", b, C) < 0 ||
        bn_check_count("running_mean", rm, C) < 0 || bn_check_count("running_var", rv, C) < 0)
        return NULL;
    tn_dtype ct = tn_nn_compute(x->dtype), pd = mixed ? TN_DTYPE_F32 : x->dtype;
    int64_t nb = x->sizes[0], hw = 1;
    for (int d = 2; d < x->ndim; d++) hw *= x->sizes[d];
    bool cl_in = is_cl(x);
    tn_bn_geom g = {nb, C, hw, cl_in || hw == 1};
    int64_t n = nb * hw;
    PyObject *xc = NULL, *y = NULL, *sm = NULL, *si = NULL, *ab = NULL, *res = NULL, *scratch = NULL;
    PyObject *pv[4] = {NULL, NULL, NULL, NULL};   /* w, b, rm, rv in ct, contiguous */
    if (!(xc = as_layout(input, ct, cl_in))) goto done;
    for (int i = 0; i < 4; i++)
        if (params[i] && !(pv[i] = tn_as_dtype(params[i], ct, true))) goto done;
    int64_t two = 2 * C;
    if (!(ab = vec_new(two, ct)) || !(y = new_like_layout(x, ct, cl_in))) goto done;
    char *alpha = tn_data(tn_tensor_of(ab)), *beta = alpha + C * tn_dtype_itemsize(ct);
    const char *wp = pv[0] ? tn_data(tn_tensor_of(pv[0])) : NULL, *bp = pv[1] ? tn_data(tn_tensor_of(pv[1])) : NULL;
    if (train) {
        int64_t parts = g.cl ? tn_bn_parts(n, tn_get_num_threads()) : 1;
        PyObject *st = vec_new(two, ct);
        if (!st || !(scratch = vec_new(g.cl ? parts * C : 1, ct))) { Py_XDECREF(st); goto done; }
        char *mp = tn_data(tn_tensor_of(st)), *vp = mp + C * tn_dtype_itemsize(ct);
        const char *xp = tn_data(tn_tensor_of(xc));
        char *sp = tn_data(tn_tensor_of(scratch));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64) tn_bn_stats_f64(&g, (const double *)xp, (double *)mp, (double *)vp, parts, (double *)sp);
        else tn_bn_stats_f32(&g, (const float *)xp, (float *)mp, (float *)vp, parts, (float *)sp);
        Py_END_ALLOW_THREADS
        /* save_mean / save_invstd in ct, then in pd */
        PyObject *smc = vec_new(C, ct), *sic = vec_new(C, ct);
        if (!smc || !sic) { Py_XDECREF(smc); Py_XDECREF(sic); Py_DECREF(st); goto done; }
        char *smp = tn_data(tn_tensor_of(smc)), *sip = tn_data(tn_tensor_of(sic));
        for (int64_t c = 0; c < C; c++) {
            if (ct == TN_DTYPE_F64) {
                double var = ((double *)vp)[c] / (double)n;
                ((double *)smp)[c] = ((double *)mp)[c];
                ((double *)sip)[c] = (var != 0 || eps != 0) ? 1.0 / sqrt(var + eps) : 0.0;
            } else {
                float var = ((float *)vp)[c] / (float)n;
                ((float *)smp)[c] = ((float *)mp)[c];
                ((float *)sip)[c] = (var != 0 || eps != 0) ? (float)(1.0 / sqrt((double)var + eps)) : 0.0f;
            }
        }
        /* running statistics */
        for (int k = 2; k < 4; k++) {
            if (!pv[k]) continue;
            char *r = tn_data(tn_tensor_of(pv[k]));
            for (int64_t c = 0; c < C; c++) {
                if (ct == TN_DTYPE_F64) {
                    double *rr = (double *)r;
                    if (k == 2) rr[c] = momentum * ((double *)mp)[c] + (1 - momentum) * rr[c];
                    else rr[c] = momentum * (((double *)vp)[c] / (double)(n - 1)) + (1 - momentum) * rr[c];
                } else {
                    float *rr = (float *)r, mf = (float)momentum;
                    if (k == 2) rr[c] = mf * ((float *)mp)[c] + (1 - mf) * rr[c];
                    else {
                        float ub = ((float *)vp)[c] / (float)(n - 1);
                        rr[c] = (float)((double)mf * (double)ub + (double)((1 - mf) * rr[c]));
                    }
                }
            }
            if (pv[k] != params[k] && tn_copy_into(params[k], pv[k]) < 0) {
                Py_DECREF(smc); Py_DECREF(sic); Py_DECREF(st);
                goto done;
            }
        }
        Py_DECREF(st);
        sm = tn_as_dtype(smc, pd, false);
        si = tn_as_dtype(sic, pd, false);
        Py_DECREF(smc); Py_DECREF(sic);
        if (!sm || !si) goto done;
        /* alpha / beta from the parameter-typed statistics */
        PyObject *smr = tn_as_dtype(sm, ct, true), *sir = smr ? tn_as_dtype(si, ct, true) : NULL;
        if (!sir) { Py_XDECREF(smr); goto done; }
        const char *m2 = tn_data(tn_tensor_of(smr)), *i2 = tn_data(tn_tensor_of(sir));
        for (int64_t c = 0; c < C; c++) {
            if (ct == TN_DTYPE_F64) {
                double al = ((const double *)i2)[c] * (wp ? ((const double *)wp)[c] : 1.0);
                ((double *)alpha)[c] = al;
                ((double *)beta)[c] = fma(-((const double *)m2)[c], al, bp ? ((const double *)bp)[c] : 0.0);
            } else {
                float al = ((const float *)i2)[c] * (wp ? ((const float *)wp)[c] : 1.0f);
                ((float *)alpha)[c] = al;
                ((float *)beta)[c] = fmaf(-((const float *)m2)[c], al, bp ? ((const float *)bp)[c] : 0.0f);
            }
        }
        Py_DECREF(smr); Py_DECREF(sir);
    } else {
        int64_t zero = 0;
        if (!(sm = tn_tensor_new_empty(1, &zero, pd, TN_DEVICE_CPU)) || !(si = tn_tensor_new_empty(1, &zero, pd, TN_DEVICE_CPU)))
            goto done;
        const char *mp = tn_data(tn_tensor_of(pv[2])), *vp = tn_data(tn_tensor_of(pv[3]));
        for (int64_t c = 0; c < C; c++) {
            if (ct == TN_DTYPE_F64) {
                double iv = 1.0 / sqrt(((const double *)vp)[c] + eps);
                double al = iv * (wp ? ((const double *)wp)[c] : 1.0);
                ((double *)alpha)[c] = al;
                ((double *)beta)[c] = fma(-((const double *)mp)[c], al, bp ? ((const double *)bp)[c] : 0.0);
            } else {
                float iv = 1.0f / sqrtf(((const float *)vp)[c] + (float)eps);
                float al = iv * (wp ? ((const float *)wp)[c] : 1.0f);
                ((float *)alpha)[c] = al;
                ((float *)beta)[c] = fmaf(-((const float *)mp)[c], al, bp ? ((const float *)bp)[c] : 0.0f);
            }
        }
    }
    {
        const char *xp = tn_data(tn_tensor_of(xc));
        char *yp = tn_data(tn_tensor_of(y));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64) tn_bn_affine_f64(&g, (const double *)xp, (const double *)alpha, (const double *)beta, (double *)yp);
        else tn_bn_affine_f32(&g, (const float *)xp, (const float *)alpha, (const float *)beta, (float *)yp);
        Py_END_ALLOW_THREADS
    }
    if (x->dtype != ct) {
        PyObject *yo = new_like_layout(x, x->dtype, cl_in);
        if (!yo || tn_copy_into(yo, y) < 0) { Py_XDECREF(yo); goto done; }
        Py_SETREF(y, yo);
    }
    res = PyTuple_Pack(3, y, sm, si);
done:
    Py_XDECREF(xc); Py_XDECREF(y); Py_XDECREF(sm); Py_XDECREF(si); Py_XDECREF(ab); Py_XDECREF(scratch);
    for (int i = 0; i < 4; i++) Py_XDECREF(pv[i]);
    return res;
}

/* `update` < 0: upstream's kernel flag is `train` itself */
static PyObject *bn_args_u(tn_value *a, int rm_i, int train_i, int mom_i, bool force_train, int update) {
    bool train = force_train || (train_i >= 0 && bool_of(&a[train_i]));
    return bn_forward(a[0].u.obj, opt_tensor(&a[1]), opt_tensor(&a[2]), rm_i >= 0 ? opt_tensor(&a[rm_i]) : NULL,
                      rm_i >= 0 ? opt_tensor(&a[rm_i + 1]) : NULL, train, update < 0 ? train : update != 0,
                      a[mom_i].u.f, a[mom_i + 1].u.f);
}
static PyObject *bn_args(tn_value *a, int rm_i, int train_i, int mom_i, bool force_train) {
    return bn_args_u(a, rm_i, train_i, mom_i, force_train, -1);
}

PyObject *tn_op_native_batch_norm(tn_value *a) { return bn_args(a, 3, 5, 6, false); }
PyObject *tn_op__native_batch_norm_legit(tn_value *a) { return bn_args(a, 3, 5, 6, false); }
/* on meta, upstream's decomposition asserts running statistics outside training before anything
 * (docs/breadth_more2.md "group meta (session 40)") */
PyObject *tn_op__native_batch_norm_legit_no_stats(tn_value *a) {
    if (tn_door_on_meta() && !bool_of(&a[3]))
        return PyErr_Format(PyExc_AssertionError, "running_mean and running_var must not be None in eval mode");
    return bn_args(a, -1, 3, 4, false);
}
/* (input, weight, bias, running_mean, running_var, momentum, eps): eval mode */
PyObject *tn_op__native_batch_norm_legit_no_training(tn_value *a) { return bn_args(a, 3, -1, 5, false); }

/* (out, save_mean, save_invstd) + reserve = empty({0}, uint8) */
static PyObject *with_reserve(PyObject *r) {
    if (!r) return NULL;
    int64_t zero = 0;
    PyObject *rs = tn_tensor_new_empty(1, &zero, TN_DTYPE_U8, TN_DEVICE_CPU);
    PyObject *t = rs ? PyTuple_Pack(4, PyTuple_GetItem(r, 0), PyTuple_GetItem(r, 1), PyTuple_GetItem(r, 2), rs) : NULL;
    Py_XDECREF(rs);
    Py_DECREF(r);
    return t;
}
PyObject *tn_op__batch_norm_with_update(tn_value *a) { return with_reserve(bn_args(a, 3, -1, 5, true)); }
/* training exactly when no running statistics are given */
PyObject *tn_op__batch_norm_no_update(tn_value *a) {
    bool train = a[3].tag != TN_V_TENSOR;
    return with_reserve(bn_args_u(a, 3, -1, 5, train, 0));
}

/* ---------------------------------------------------------------- native_batch_norm_backward */

/* (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask) */
static PyObject *bn_backward(tn_value *a, bool train, const tn_value *maskv) {
    PyObject *go = a[0].u.obj, *input = a[1].u.obj, *w = opt_tensor(&a[2]), *rm = opt_tensor(&a[3]);
    PyObject *rv = opt_tensor(&a[4]), *smo = opt_tensor(&a[5]), *sio = opt_tensor(&a[6]);
    double eps = a[8].u.f;
    const tn_tensor *x = tn_tensor_of(input), *dy = tn_tensor_of(go);
    int dim1;
    if (tn_wrap_dim_i(1, x->ndim, &dim1) < 0) return NULL;
    int64_t C = x->sizes[1];
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("batch_norm_backward_cpu", x->dtype);
    bool mask[3] = {true, true, true};
    for (int i = 0; i < 3 && i < maskv->u.ints.n; i++) mask[i] = maskv->u.ints.v[i] != 0;
    PyObject *params[5] = {w, rm, rv, smo, sio};
    int mixed = bn_mixed(x->dtype, params, train ? 1 : 3);
    if (mixed < 0) return NULL;
    if (train && (!smo || !sio)) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_batch_norm_backward: save_mean and save_invstd are "
                                            "required when train=True");
        return NULL;
    }
    if (!train && (!rm || !rv)) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_batch_norm_backward: running_mean and running_var are "
                                            "required when train=False");
        return NULL;
    }
    if (mask[1] && !w) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_batch_norm_backward: grad_weight needs a weight");
        return NULL;
    }
    bool same = dy->ndim == x->ndim;
    for (int d = 0; same && d < x->ndim; d++) same = dy->sizes[d] == x->sizes[d];
    if (!same || bn_check_count("weight", w, C) < 0 || (train ? bn_check_count("save_mean", smo, C) < 0 ||
                                                                bn_check_count("save_invstd", sio, C) < 0
                                                              : bn_check_count("running_mean", rm, C) < 0 ||
                                                                bn_check_count("running_var", rv, C) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "torchnative: native_batch_norm_backward: grad_out must have the "
                                                "input's shape");
        return NULL;
    }
    if (dy->dtype != x->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(x->dtype),
                     tn_dtype_cpp_name(dy->dtype));
        return NULL;
    }
    tn_dtype ct = tn_nn_compute(x->dtype), pd = mixed ? TN_DTYPE_F32 : x->dtype;
    int64_t nb = x->sizes[0], hw = 1;
    for (int d = 2; d < x->ndim; d++) hw *= x->sizes[d];
    bool cl_in = is_cl(x) && is_cl(dy);
    tn_bn_geom g = {nb, C, hw, cl_in};
    PyObject *xc = NULL, *dyc = NULL, *wc = NULL, *mi = NULL, *dx = NULL, *sums = NULL, *res = NULL;
    PyObject *outs[3] = {NULL, NULL, NULL};
    if (!(xc = as_layout(input, ct, cl_in)) || !(dyc = as_layout(go, ct, cl_in))) goto done;
    if (w && !(wc = tn_as_dtype(w, ct, true))) goto done;
    if (!(mi = vec_new(2 * C, ct)) || !(sums = vec_new(2 * C, TN_DTYPE_F64))) goto done;
    char *mp = tn_data(tn_tensor_of(mi)), *ip = mp + C * tn_dtype_itemsize(ct);
    if (train) {
        PyObject *m = tn_as_dtype(smo, ct, true), *s = m ? tn_as_dtype(sio, ct, true) : NULL;
        if (!s) { Py_XDECREF(m); goto done; }
        memcpy(mp, tn_data(tn_tensor_of(m)), (size_t)(C * tn_dtype_itemsize(ct)));
        memcpy(ip, tn_data(tn_tensor_of(s)), (size_t)(C * tn_dtype_itemsize(ct)));
        Py_DECREF(m); Py_DECREF(s);
    } else {
        PyObject *m = tn_as_dtype(rm, ct, true), *v = m ? tn_as_dtype(rv, ct, true) : NULL;
        if (!v) { Py_XDECREF(m); goto done; }
        memcpy(mp, tn_data(tn_tensor_of(m)), (size_t)(C * tn_dtype_itemsize(ct)));
        const char *vp = tn_data(tn_tensor_of(v));
        for (int64_t c = 0; c < C; c++) {
            if (ct == TN_DTYPE_F64) ((double *)ip)[c] = 1.0 / sqrt(((const double *)vp)[c] + eps);
            else ((float *)ip)[c] = (float)(1.0 / sqrt((double)((const float *)vp)[c] + eps));
        }
        Py_DECREF(m); Py_DECREF(v);
    }
    if (mask[0] && !(dx = new_like_layout(x, ct, cl_in))) goto done;
    {
        const char *xp = tn_data(tn_tensor_of(xc)), *dp = tn_data(tn_tensor_of(dyc));
        const char *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL;
        char *dxp = dx ? tn_data(tn_tensor_of(dx)) : NULL;
        double *sdy = (double *)tn_data(tn_tensor_of(sums)), *dot = sdy + C;
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64)
            tn_bn_backward_f64(&g, (const double *)dp, (const double *)xp, (const double *)mp, (const double *)ip,
                               (const double *)wp, train, (double *)dxp, sdy, dot);
        else
            tn_bn_backward_f32(&g, (const float *)dp, (const float *)xp, (const float *)mp, (const float *)ip,
                               (const float *)wp, train, (float *)dxp, sdy, dot);
        Py_END_ALLOW_THREADS
        tn_dtype wd = w ? tn_tensor_of(w)->dtype : pd;
        for (int k = 1; k < 3; k++) {
            if (!mask[k]) continue;
            PyObject *t = vec_new(C, TN_DTYPE_F64);
            if (!t) goto done;
            double *tp = (double *)tn_data(tn_tensor_of(t));
            for (int64_t c = 0; c < C; c++) {
                double v = k == 1 ? dot[c] * rd(ip, ct, c) : sdy[c];
                tp[c] = ct == TN_DTYPE_F32 ? (double)(float)v : v;
            }
            outs[k] = tn_as_dtype(t, wd, false);
            Py_DECREF(t);
            if (!outs[k]) goto done;
        }
    }
    if (dx) {
        if (x->dtype != ct) {
            PyObject *o = new_like_layout(x, x->dtype, cl_in);
            if (!o || tn_copy_into(o, dx) < 0) { Py_XDECREF(o); goto done; }
            outs[0] = o;
        } else {
            outs[0] = Py_NewRef(dx);
        }
    }
    res = PyTuple_Pack(3, outs[0] ? outs[0] : Py_None, outs[1] ? outs[1] : Py_None, outs[2] ? outs[2] : Py_None);
done:
    Py_XDECREF(xc); Py_XDECREF(dyc); Py_XDECREF(wc); Py_XDECREF(mi); Py_XDECREF(dx); Py_XDECREF(sums);
    for (int i = 0; i < 3; i++) Py_XDECREF(outs[i]);
    return res;
}
PyObject *tn_op_native_batch_norm_backward(tn_value *a) { return bn_backward(a, bool_of(&a[7]), &a[9]); }
/* batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_var, update,
 * eps, output_mask, reserve): the statistics of the forward were the batch's exactly when
 * save_mean holds them (upstream: update, or no running statistics) */
PyObject *tn_op_batch_norm_backward(tn_value *a) {
    bool train = bool_of(&a[7]) || a[3].tag != TN_V_TENSOR;
    return bn_backward(a, train, &a[9]);
}

/* ---------------------------------------------------------------- composites */

static PyObject *empty_1d(int64_t n, tn_dtype dt) {
    return tn_at_empty_memory_format(TN_IS(n), TN_DT(dt), NULL, NULL, NULL, NULL);
}
static PyObject *obj_or_none(PyObject *o) { return o ? o : Py_None; }

/* _batch_norm_impl_index(input, weight, bias, running_mean, running_var, training, momentum, eps,
 * cudnn_enabled) -> (out, save_mean, save_invstd, reserve, 0) */
PyObject *tn_op__batch_norm_impl_index(tn_value *a) {
    PyObject *x = a[0].u.obj, *w = opt_tensor(&a[1]), *b = opt_tensor(&a[2]), *rm = opt_tensor(&a[3]), *rv = opt_tensor(&a[4]);
    bool train = bool_of(&a[5]);
    const tn_tensor *xt = tn_tensor_of(x);
    /* upstream reads input.sizes()[1] unchecked: 0 past a 1-d input (an empty one is cloned; a
     * non-empty one fails the running-stat count or native_batch_norm's dim check) */
    int64_t C = xt->ndim > 1 ? xt->sizes[1] : 0;
    if (tn_numel(xt) == 0) {
        tn_dtype acc = xt->dtype == TN_DTYPE_F32 || xt->dtype == TN_DTYPE_F64 ? TN_DTYPE_F64 : xt->dtype;
        if (tn_nn_float(xt->dtype)) acc = xt->dtype == TN_DTYPE_F64 || xt->dtype == TN_DTYPE_F32 ? TN_DTYPE_F64 : TN_DTYPE_F32;
        PyObject *reserve = empty_1d(0, TN_DTYPE_U8), *sm = reserve ? empty_1d(C, acc) : NULL;
        PyObject *si = sm ? empty_1d(C, acc) : NULL, *out = si ? tn_at_clone(x, NULL) : NULL;
        if (out && w) {
            PyObject *s = tn_at_select_int(w, 0LL, 0LL);
            PyObject *m = s ? tn_at_mul_Tensor(out, s) : NULL;
            Py_XDECREF(s);
            Py_SETREF(out, m);
        }
        if (out && b) {
            PyObject *s = tn_at_select_int(b, 0LL, 0LL);
            PyObject *m = s ? tn_at_add_Tensor(out, s, TN_SDEF) : NULL;
            Py_XDECREF(s);
            Py_SETREF(out, m);
        }
        PyObject *r = out ? Py_BuildValue("(OOOOi)", out, sm, si, reserve, 0) : NULL;
        Py_XDECREF(reserve); Py_XDECREF(sm); Py_XDECREF(si); Py_XDECREF(out);
        return r;
    }
    if (rm) { if (bn_check_count("running_mean", rm, C) < 0) return NULL; }
    else if (!train) { PyErr_SetString(PyExc_RuntimeError, "running_mean must be defined in evaluation mode"); return NULL; }
    if (rv) { if (bn_check_count("running_var", rv, C) < 0) return NULL; }
    else if (!train) { PyErr_SetString(PyExc_RuntimeError, "running_var must be defined in evaluation mode"); return NULL; }
    if (bn_check_count("weight", w, C) < 0 || bn_check_count("bias", b, C) < 0) return NULL;
    PyObject *reserve = empty_1d(0, TN_DTYPE_U8);
    PyObject *r = reserve ? tn_at_native_batch_norm(x, obj_or_none(w), obj_or_none(b), obj_or_none(rm), obj_or_none(rv), train, a[6].u.f, a[7].u.f)
                          : NULL;
    PyObject *t = r ? Py_BuildValue("(OOOOi)", PyTuple_GetItem(r, 0), PyTuple_GetItem(r, 1), PyTuple_GetItem(r, 2),
                                    reserve, 0) : NULL;
    Py_XDECREF(reserve); Py_XDECREF(r);
    return t;
}

PyObject *tn_op_batch_norm(tn_value *a) {
    PyObject *r = tn_door_call(TN_ROW__batch_norm_impl_index, a);
    if (!r) return NULL;
    PyObject *o = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return o;
}

/* instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
 * cudnn_enabled): batch norm of the input viewed as (1, N*C, *), parameters repeated N times */
/* x.to(dt): x itself when it has dt already, else _to_copy through the door (new ref) */
static PyObject *to_dtype_of(PyObject *x, tn_dtype dt) {
    if (tn_tensor_of(x)->dtype == dt) return Py_NewRef(x);
    PyObject *d = tn_py_from_dtype(dt);
    PyObject *r = d ? tn_at_to_dtype(x, d, false, false, NULL) : NULL;
    Py_XDECREF(d);
    return r;
}

PyObject *tn_op_instance_norm(tn_value *a) {
    PyObject *x = a[0].u.obj, *w = opt_tensor(&a[1]), *b = opt_tensor(&a[2]), *rm = opt_tensor(&a[3]), *rv = opt_tensor(&a[4]);
    bool use = bool_of(&a[5]);
    if (!use && (!rm || !rv)) {
        PyErr_SetString(PyExc_RuntimeError, "Expected running_mean and running_var to be defined when use_input_stats is false");
        return NULL;
    }
    const tn_tensor *xt = tn_tensor_of(x);
    int d1;
    if (tn_wrap_dim_i(1, xt->ndim, &d1) < 0) return NULL;
    int64_t nb = xt->sizes[0], C = xt->sizes[1];
    PyObject *rep[4] = {NULL, NULL, NULL, NULL}, *src[4] = {w, b, rm, rv};
    PyObject *xr = NULL, *shape = NULL, *out = NULL, *res = NULL, *xc = NULL;
    for (int i = 0; i < 4; i++) {
        if (!src[i]) continue;
        /* upstream converts the running stats (not weight / bias) to the input's dtype first */
        PyObject *s = i >= 2 ? to_dtype_of(src[i], xt->dtype) : Py_NewRef(src[i]);
        rep[i] = s ? tn_at_repeat(s, TN_IS((long long)nb)) : NULL;
        Py_XDECREF(s);
        if (!rep[i]) goto done;
    }
    if (!(xc = tn_at_contiguous(x, NULL))) goto done;
    shape = PyList_New(xt->ndim);
    if (!shape) goto done;
    for (int d = 0; d < xt->ndim; d++)
        PyList_SetItem(shape, d, PyLong_FromLongLong(d == 0 ? 1 : d == 1 ? nb * C : xt->sizes[d]));
    if (!(xr = tn_at_view(xc, TN_IPY(shape)))) goto done;
    if (!(out = tn_at_batch_norm(xr, obj_or_none(rep[0]), obj_or_none(rep[1]), obj_or_none(rep[2]), obj_or_none(rep[3]), use, a[6].u.f, a[7].u.f, bool_of(&a[8]))))
        goto done;
    for (int k = 2; k < 4 && use; k++) {
        if (!src[k]) continue;
        PyObject *al = tn_at_alias(src[k]);
        PyObject *v = al ? tn_at_view(rep[k], TN_IS((long long)nb, (long long)C)) : NULL;
        PyObject *m = v ? tn_at_mean_dim(v, TN_IS(0LL), false, NULL) : NULL;
        PyObject *mc = m ? to_dtype_of(m, tn_tensor_of(src[k])->dtype) : NULL;
        PyObject *c = mc ? tn_at_copy_(al, mc, false) : NULL;
        Py_XDECREF(al); Py_XDECREF(v); Py_XDECREF(m); Py_XDECREF(mc);
        if (!c) goto done;
        Py_DECREF(c);
    }
    {
        PyObject *sz = PyList_New(xt->ndim);
        for (int d = 0; sz && d < xt->ndim; d++) PyList_SetItem(sz, d, PyLong_FromLongLong(xt->sizes[d]));
        res = sz ? tn_at_view(out, TN_IPY(sz)) : NULL;
        Py_XDECREF(sz);
    }
done:
    for (int i = 0; i < 4; i++) Py_XDECREF(rep[i]);
    Py_XDECREF(xr); Py_XDECREF(shape); Py_XDECREF(out); Py_XDECREF(xc);
    return res;
}

/* ---------------------------------------------------------------- group norm */

static int gn_check(const tn_tensor *x, PyObject *w, PyObject *b, int64_t C, int64_t G) {
    char s1[256], s2[256];
    if (G <= 0) {
        PyErr_Format(PyExc_RuntimeError, "Expected num groups to be greater than 0, got %lld", (long long)G);
        return -1;
    }
    if (C % G != 0) {
        tn_shape_str(s1, sizeof s1, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected number of channels in input to be divisible by num_groups, but got "
                     "input of shape %s and num_groups=%lld", s1, (long long)G);
        return -1;
    }
    PyObject *ps[2] = {w, b};
    for (int i = 0; i < 2; i++) {
        if (!ps[i]) continue;
        const tn_tensor *p = tn_tensor_of(ps[i]);
        if (p->ndim == 1 && p->sizes[0] == C) continue;
        tn_shape_str(s1, sizeof s1, p->ndim, p->sizes);
        tn_shape_str(s2, sizeof s2, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected %s to be a vector of size equal to the number of channels in input, "
                     "but got %s of shape %s and input of shape %s", i ? "bias" : "weight", i ? "bias" : "weight", s1, s2);
        return -1;
    }
    return 0;
}

/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd) */
PyObject *tn_op_native_group_norm(tn_value *a) {
    PyObject *input = a[0].u.obj, *w = opt_tensor(&a[1]), *b = opt_tensor(&a[2]);
    const tn_tensor *x = tn_tensor_of(input);
    int64_t N = a[3].u.i, C = a[4].u.i, HxW = a[5].u.i, G = a[6].u.i;
    double eps = a[7].u.f;
    if (gn_check(x, w, b, C, G) < 0) return NULL;
    if (N * C * HxW != tn_numel(x) || N < 0 || C < 0 || HxW < 0) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_group_norm: N * C * HxW must equal the input's numel");
        return NULL;
    }
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("GroupNormKernelImpl", x->dtype);
    PyObject *params[2] = {w, b};
    int mixed = bn_mixed(x->dtype, params, 2);
    if (mixed < 0) return NULL;
    tn_dtype ct = tn_nn_compute(x->dtype), pd = mixed ? TN_DTYPE_F32 : x->dtype;
    bool cl_in = is_cl(x);
    PyObject *xc = NULL, *wc = NULL, *bc = NULL, *y = NULL, *mean = NULL, *rstd = NULL, *res = NULL;
    if (!(xc = tn_as_dtype(input, ct, true))) goto done;
    if (w && !(wc = tn_as_dtype(w, ct, true))) goto done;
    if (b && !(bc = tn_as_dtype(b, ct, true))) goto done;
    int64_t ms[2] = {N, G};
    if (!(y = tn_tensor_new_empty(x->ndim, x->sizes, ct, TN_DEVICE_CPU)) ||
        !(mean = tn_tensor_new_empty(2, ms, ct, TN_DEVICE_CPU)) || !(rstd = tn_tensor_new_empty(2, ms, ct, TN_DEVICE_CPU)))
        goto done;
    if (N * G > 0) {
        const char *xp = tn_data(tn_tensor_of(xc)), *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL;
        const char *bp = bc ? tn_data(tn_tensor_of(bc)) : NULL;
        char *yp = tn_data(tn_tensor_of(y)), *mp = tn_data(tn_tensor_of(mean)), *rp = tn_data(tn_tensor_of(rstd));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64)
            tn_gn_forward_f64((const double *)xp, (const double *)wp, (const double *)bp, N, C, HxW, G, eps,
                              (double *)yp, (double *)mp, (double *)rp);
        else
            tn_gn_forward_f32((const float *)xp, (const float *)wp, (const float *)bp, N, C, HxW, G, eps,
                              (float *)yp, (float *)mp, (float *)rp);
        Py_END_ALLOW_THREADS
    }
    {
        PyObject *yo = new_like_layout(x, x->dtype, cl_in);
        if (!yo || tn_copy_into(yo, y) < 0) { Py_XDECREF(yo); goto done; }
        Py_SETREF(y, yo);
    }
    {
        PyObject *m2 = tn_as_dtype(mean, pd, false), *r2 = m2 ? tn_as_dtype(rstd, pd, false) : NULL;
        Py_SETREF(mean, m2);
        Py_SETREF(rstd, r2);
    }
    if (mean && rstd) res = PyTuple_Pack(3, y, mean, rstd);
done:
    Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(bc); Py_XDECREF(y); Py_XDECREF(mean); Py_XDECREF(rstd);
    return res;
}

/* native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask) */
PyObject *tn_op_native_group_norm_backward(tn_value *a) {
    PyObject *go = a[0].u.obj, *input = a[1].u.obj, *mo = a[2].u.obj, *ro = a[3].u.obj, *w = opt_tensor(&a[4]);
    const tn_tensor *x = tn_tensor_of(input);
    int64_t N = a[5].u.i, C = a[6].u.i, HxW = a[7].u.i, G = a[8].u.i;
    bool mask[3] = {true, true, true};
    for (int i = 0; i < 3 && i < a[9].u.ints.n; i++) mask[i] = a[9].u.ints.v[i] != 0;
    if (gn_check(x, w, NULL, C, G) < 0) return NULL;
    if (N * C * HxW != tn_numel(x) || tn_numel(tn_tensor_of(go)) != tn_numel(x) || tn_numel(tn_tensor_of(mo)) != N * G ||
        tn_numel(tn_tensor_of(ro)) != N * G) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_group_norm_backward: grad_out, mean and rstd must match "
                                            "the input's shape");
        return NULL;
    }
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("GroupNormBackwardKernelImpl", x->dtype);
    PyObject *params[3] = {w, mo, ro};
    int mixed = bn_mixed(x->dtype, params, 3);
    if (mixed < 0) return NULL;
    tn_dtype ct = tn_nn_compute(x->dtype), pd = mixed ? TN_DTYPE_F32 : x->dtype;
    tn_dtype wd = w ? tn_tensor_of(w)->dtype : pd;
    PyObject *xc = NULL, *dyc = NULL, *mc = NULL, *rc = NULL, *wc = NULL, *scr = NULL, *res = NULL;
    PyObject *outs[3] = {NULL, NULL, NULL};
    if (!(xc = tn_as_dtype(input, ct, true)) || !(dyc = tn_as_dtype(go, ct, true)) || !(mc = tn_as_dtype(mo, ct, true)) ||
        !(rc = tn_as_dtype(ro, ct, true)))
        goto done;
    if (w && !(wc = tn_as_dtype(w, ct, true))) goto done;
    if (mask[0] && !(outs[0] = tn_tensor_new_empty(x->ndim, x->sizes, ct, TN_DEVICE_CPU))) goto done;
    for (int k = 1; k < 3; k++)
        if (mask[k] && !(outs[k] = vec_new(C, ct))) goto done;
    if (!(scr = vec_new(2 * N * C > 0 ? 2 * N * C : 1, TN_DTYPE_F64))) goto done;
    for (int k = 1; k < 3; k++)
        if (outs[k] && C > 0) memset(tn_data(tn_tensor_of(outs[k])), 0, (size_t)(C * tn_dtype_itemsize(ct)));
    if (N * C > 0) {
        const char *dp = tn_data(tn_tensor_of(dyc)), *xp = tn_data(tn_tensor_of(xc)), *mp = tn_data(tn_tensor_of(mc));
        const char *rp = tn_data(tn_tensor_of(rc)), *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL;
        char *o0 = outs[0] ? tn_data(tn_tensor_of(outs[0])) : NULL, *o1 = outs[1] ? tn_data(tn_tensor_of(outs[1])) : NULL;
        char *o2 = outs[2] ? tn_data(tn_tensor_of(outs[2])) : NULL;
        double *sp = (double *)tn_data(tn_tensor_of(scr));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64)
            tn_gn_backward_f64((const double *)dp, (const double *)xp, (const double *)mp, (const double *)rp,
                               (const double *)wp, N, C, HxW, G, (double *)o0, (double *)o1, (double *)o2, sp);
        else
            tn_gn_backward_f32((const float *)dp, (const float *)xp, (const float *)mp, (const float *)rp,
                               (const float *)wp, N, C, HxW, G, (float *)o0, (float *)o1, (float *)o2, sp);
        Py_END_ALLOW_THREADS
    }
    if (outs[0]) {
        PyObject *o = new_like_layout(x, x->dtype, is_cl(x));
        if (!o || tn_copy_into(o, outs[0]) < 0) { Py_XDECREF(o); goto done; }
        Py_SETREF(outs[0], o);
    }
    for (int k = 1; k < 3; k++) {
        if (!outs[k]) continue;
        PyObject *t = tn_as_dtype(outs[k], wd, false);
        Py_SETREF(outs[k], t);
        if (!t) goto done;
    }
    res = PyTuple_Pack(3, outs[0] ? outs[0] : Py_None, outs[1] ? outs[1] : Py_None, outs[2] ? outs[2] : Py_None);
done:
    Py_XDECREF(xc); Py_XDECREF(dyc); Py_XDECREF(mc); Py_XDECREF(rc); Py_XDECREF(wc); Py_XDECREF(scr);
    for (int i = 0; i < 3; i++) Py_XDECREF(outs[i]);
    return res;
}

/* group_norm(input, num_groups, weight, bias, eps, cudnn_enabled): native_group_norm of the input
 * made contiguous in its suggested memory format */
PyObject *tn_op_group_norm(tn_value *a) {
    PyObject *x = a[0].u.obj, *w = opt_tensor(&a[2]), *b = opt_tensor(&a[3]);
    const tn_tensor *xt = tn_tensor_of(x);
    int d1;
    if (tn_wrap_dim_i(1, xt->ndim, &d1) < 0) return NULL;
    int64_t N = xt->sizes[0], C = xt->sizes[1], HxW = 1, G = a[1].u.i;
    for (int d = 2; d < xt->ndim; d++) HxW *= xt->sizes[d];
    if (gn_check(xt, w, b, C, G) < 0) return NULL;
    PyObject *xc = is_cl(xt) ? Py_NewRef(x) : tn_at_contiguous(x, NULL);
    PyObject *wc = xc && w ? tn_at_contiguous(w, NULL) : NULL;
    PyObject *bc = xc && b ? tn_at_contiguous(b, NULL) : NULL;
    PyObject *r = NULL;
    if (xc && (!w || wc) && (!b || bc))
        r = tn_at_native_group_norm(xc, obj_or_none(wc), obj_or_none(bc), (long long)N, (long long)C, (long long)HxW, (long long)G, a[4].u.f);
    Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(bc);
    if (!r) return NULL;
    PyObject *o = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return o;
}
