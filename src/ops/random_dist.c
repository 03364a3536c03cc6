/* ops/random_dist.c — the samplers torch.distributions calls: _standard_gamma (Gamma, Chi2,
 * StudentT, Beta through Dirichlet), _sample_dirichlet (Dirichlet, Beta, LKJCholesky), poisson,
 * binomial, and the reparameterized gradients _standard_gamma_grad (Gamma.rsample's backward) and
 * _dirichlet_grad (Dirichlet.rsample's, Beta.rsample's).
 *
 * Upstream's CPU kernels (Distributions.cpp) allocate a contiguous result of the first input's
 * sizes and run one serial TensorIterator loop over it, so elements are drawn in the logical
 * (row-major) order of the result whatever the inputs' strides: the inputs are made contiguous here
 * and walked linearly. The draws themselves are core/random.c's (tn_rng_standard_gamma_ and
 * friends). Meta tensors: _standard_gamma and poisson have Python meta kernels upstream
 * (torch/_meta_registrations: empty_like(self), any dtype, no checks); the others have none and
 * fail with the dispatcher's "no fake impl or Meta kernel" message; nothing is drawn either way
 * (measured on 2.13). */
#include "ops/common.h"

#include "core/pystate.h"
#include "core/random.h"
#include "kernels/dist_grad.h"
#include "tn_aten_gen.h"

#include <float.h>
#include <math.h>

static tn_generator *gen_of(const tn_value *v) {
    return tn_py_generator_of(v && v->tag == TN_V_GENERATOR ? v->u.obj : NULL);
}
static PyObject *gen_obj(const tn_value *v) { return v->tag == TN_V_GENERATOR ? v->u.obj : NULL; }

/* upstream's Python meta kernel of _standard_gamma and poisson: empty_like(self), any dtype */
static PyObject *meta_like(PyObject *self) { return tn_at_empty_like(self, NULL, NULL, NULL, NULL, NULL); }
static bool f32_or_f64(tn_dtype dt) { return dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64; }

/* The generated out= form upstream gives these ops: the functional result (its checks first), then
 * out must have its dtype exactly, is resized as out= tensors are, and receives it. */
static PyObject *autogen_out(PyObject *res, PyObject *out, const char *op) {
    if (!res) return NULL;
    return tn_out_deliver_overlap(res, out, op, true);   /* then copy_'s overlap check on out as resized */
}

/* TensorIterator's common-dtype check of an op whose inputs must share the output's dtype. */
static int same_dtype(tn_dtype expected, tn_dtype found) {
    if (expected == found) return 0;
    PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(found),
                 tn_dtype_cpp_name(expected));
    return -1;
}

/* A result allocated with first's sizes, as upstream's kernels allocate it, then fitted by the
 * iterator to the inputs' broadcast shape (resized with upstream's warning when that differs).
 * ins[k] come back as contiguous tensors of that shape and dtype dt (new references). */
static PyObject *broadcast_result(int nin, PyObject *const *in, tn_dtype dt, PyObject **ins, const char *op) {
    const tn_tensor *ts[3];
    for (int k = 0; k < nin; k++) ts[k] = tn_tensor_of(in[k]);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(nin, ts, &nd, shape) < 0) return NULL;
    PyObject *res = tn_tensor_new_empty(ts[0]->ndim, ts[0]->sizes, dt, TN_DEVICE_CPU);
    if (!res) return NULL;
    if (tn_out_prepare(res, nd, shape, dt, op) < 0) { Py_DECREF(res); return NULL; }
    for (int k = 0; k < nin; k++) ins[k] = NULL;
    for (int k = 0; k < nin; k++) {
        ins[k] = tn_tensor_new_empty(nd, shape, dt, TN_DEVICE_CPU);
        if (!ins[k] || tn_copy_into(ins[k], in[k]) < 0) {
            for (int j = 0; j <= k; j++) Py_XDECREF(ins[j]);
            Py_DECREF(res);
            return NULL;
        }
    }
    return res;
}

/* ---------------------------------------------------------------- _standard_gamma */

PyObject *tn_op__standard_gamma(tn_value *a) {
    if (tn_door_on_meta()) return meta_like(a[0].u.obj);
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    if (!f32_or_f64(dt)) return tn_kernel_missing("gamma_cpu", dt);
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    PyObject *src = tn_as_dtype(a[0].u.obj, dt, true);
    if (!src) return NULL;
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU);
    if (res) tn_rng_standard_gamma_(g, tn_data(tn_tensor_of(src)), tn_data(tn_tensor_of(res)), tn_numel(t), dt);
    Py_DECREF(src);
    return res;
}

PyObject *tn_op__standard_gamma_out(tn_value *a) {
    return autogen_out(tn_at__standard_gamma(a[0].u.obj, gen_obj(&a[1])), a[2].u.obj, "_standard_gamma");
}

/* ---------------------------------------------------------------- _standard_gamma_grad */

PyObject *tn_op__standard_gamma_grad(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_standard_gamma_grad");
    tn_dtype dt = TN_T(a[0])->dtype;
    if (same_dtype(dt, TN_T(a[1])->dtype) < 0) return NULL;
    PyObject *ins[2], *in[2] = {a[0].u.obj, a[1].u.obj};
    PyObject *res = broadcast_result(2, in, dt, ins, "_standard_gamma_grad");
    if (!res) return NULL;
    if (!f32_or_f64(dt)) {
        Py_DECREF(res);
        Py_DECREF(ins[0]);
        Py_DECREF(ins[1]);
        return tn_kernel_missing("_standard_gamma_grad_cpu", dt);
    }
    int64_t n = tn_numel(tn_tensor_of(res));
    void *o = tn_data(tn_tensor_of(res));
    const void *al = tn_data(tn_tensor_of(ins[0])), *x = tn_data(tn_tensor_of(ins[1]));
    if (dt == TN_DTYPE_F32)
        for (int64_t i = 0; i < n; i++)
            ((float *)o)[i] = (float)tn_standard_gamma_grad_one(((const float *)al)[i], ((const float *)x)[i]);
    else
        for (int64_t i = 0; i < n; i++)
            ((double *)o)[i] = tn_standard_gamma_grad_one(((const double *)al)[i], ((const double *)x)[i]);
    Py_DECREF(ins[0]);
    Py_DECREF(ins[1]);
    return res;
}

PyObject *tn_op__standard_gamma_grad_out(tn_value *a) {
    return autogen_out(tn_at__standard_gamma_grad(a[0].u.obj, a[1].u.obj), a[2].u.obj, "_standard_gamma_grad");
}

/* ---------------------------------------------------------------- _sample_dirichlet */
/* Upstream: gammas in double for every element (alpha widened, sample_gamma<double>, at least
 * DBL_MIN), their sum over the last dim (the sum op), then gamma / sum cast to the element type and
 * clamped to [min normal, largest value below 1]. */

PyObject *tn_op__sample_dirichlet(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_sample_dirichlet");
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    if (!f32_or_f64(dt)) return tn_kernel_missing("dirichlet", dt);
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    int64_t n = tn_numel(t);
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU);
    if (!res || n == 0) return res;
    PyObject *src = tn_as_dtype(a[0].u.obj, dt, true);
    PyObject *gam = src ? tn_tensor_new_empty(t->ndim, t->sizes, TN_DTYPE_F64, TN_DEVICE_CPU) : NULL;
    PyObject *sum = NULL;
    if (gam) {
        double *gd = (double *)tn_data(tn_tensor_of(gam));
        tn_rng_dirichlet_gammas(g, tn_data(tn_tensor_of(src)), dt, gd, n);
        sum = tn_at_sum_dim_IntList(gam, TN_IS(-1), true, NULL);
    }
    PyObject *sc = sum ? tn_as_dtype(sum, TN_DTYPE_F64, true) : NULL;
    if (!sc) {
        Py_XDECREF(src); Py_XDECREF(gam); Py_XDECREF(sum); Py_DECREF(res);
        return NULL;
    }
    const double *gd = (const double *)tn_data(tn_tensor_of(gam)), *sd = (const double *)tn_data(tn_tensor_of(sc));
    int64_t k = t->ndim ? t->sizes[t->ndim - 1] : 1;
    if (dt == TN_DTYPE_F32) {
        float *o = (float *)tn_data(tn_tensor_of(res)), lo = FLT_MIN, hi = nextafterf(1.0f, 0.0f);
        for (int64_t i = 0; i < n; i++) {
            float v = (float)(gd[i] / sd[i / k]);
            v = lo < v ? v : lo;
            o[i] = v < hi ? v : hi;
        }
    } else {
        double *o = (double *)tn_data(tn_tensor_of(res)), lo = DBL_MIN, hi = nextafter(1.0, 0.0);
        for (int64_t i = 0; i < n; i++) {
            double v = gd[i] / sd[i / k];
            v = lo < v ? v : lo;
            o[i] = v < hi ? v : hi;
        }
    }
    Py_DECREF(src); Py_DECREF(gam); Py_DECREF(sum); Py_DECREF(sc);
    return res;
}

PyObject *tn_op__sample_dirichlet_out(tn_value *a) {
    return autogen_out(tn_at__sample_dirichlet(a[0].u.obj, gen_obj(&a[1])), a[2].u.obj, "_sample_dirichlet");
}

/* ---------------------------------------------------------------- _dirichlet_grad */
/* Dirichlet.rsample's backward (torch.distributions' _Dirichlet): x, alpha, total broadcast, all of
 * x's dtype (TensorIterator's check), F32 / F64. */

PyObject *tn_op__dirichlet_grad(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_dirichlet_grad");
    tn_dtype dt = TN_T(a[0])->dtype;
    if (same_dtype(dt, TN_T(a[1])->dtype) < 0 || same_dtype(dt, TN_T(a[2])->dtype) < 0) return NULL;
    PyObject *ins[3], *in[3] = {a[0].u.obj, a[1].u.obj, a[2].u.obj};
    PyObject *res = broadcast_result(3, in, dt, ins, "_dirichlet_grad");
    if (!res) return NULL;
    int64_t n = tn_numel(tn_tensor_of(res));
    const void *x = tn_data(tn_tensor_of(ins[0])), *al = tn_data(tn_tensor_of(ins[1]));
    const void *tot = tn_data(tn_tensor_of(ins[2]));
    if (dt == TN_DTYPE_F32)
        tn_dirichlet_grad_f32(x, al, tot, (float *)tn_data(tn_tensor_of(res)), n);
    else if (dt == TN_DTYPE_F64)
        tn_dirichlet_grad_f64(x, al, tot, (double *)tn_data(tn_tensor_of(res)), n);
    else {
        Py_CLEAR(res);
        tn_kernel_missing("_dirichlet_grad_cpu", dt);
    }
    for (int k = 0; k < 3; k++) Py_DECREF(ins[k]);
    return res;
}

PyObject *tn_op__dirichlet_grad_out(tn_value *a) {
    return autogen_out(tn_at__dirichlet_grad(a[0].u.obj, a[1].u.obj, a[2].u.obj), a[3].u.obj, "_dirichlet_grad");
}

/* ---------------------------------------------------------------- poisson */
/* Float dtypes incl. f16/bf16 (the rate widened to double, the count cast back). A negative or NaN
 * rate raises where the loop meets it: the elements before it have drawn. */

PyObject *tn_op_poisson(tn_value *a) {
    if (tn_door_on_meta()) return meta_like(a[0].u.obj);
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    if (!tn_nn_float(dt)) return tn_kernel_missing("poisson_cpu", dt);
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    PyObject *src = tn_as_dtype(a[0].u.obj, dt, true);
    if (!src) return NULL;
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, dt, TN_DEVICE_CPU);
    int64_t n = tn_numel(t);
    if (res && tn_rng_poisson_(g, tn_data(tn_tensor_of(src)), tn_data(tn_tensor_of(res)), n, dt) < n) {
        PyErr_SetString(PyExc_RuntimeError, "invalid Poisson rate, expected rate to be non-negative");
        Py_CLEAR(res);
    }
    Py_DECREF(src);
    return res;
}

PyObject *tn_op_poisson_out(tn_value *a) {
    return autogen_out(tn_at_poisson(a[0].u.obj, gen_obj(&a[1])), a[2].u.obj, "poisson");
}

/* ---------------------------------------------------------------- binomial */

PyObject *tn_op_binomial(tn_value *a) {
    tn_dtype dc = TN_T(a[0])->dtype, dp = TN_T(a[1])->dtype;
    /* float8 passes these (a floating type upstream), to the dtype match and the kernel's refusal */
    if (!tn_dtype_is_floating(dc)) {
        PyErr_Format(PyExc_ValueError, "binomial only supports floating-point dtypes for count, got: %s", tn_dtype_cpp_name(dc));
        return NULL;
    }
    if (!tn_dtype_is_floating(dp)) {
        PyErr_Format(PyExc_ValueError, "binomial only supports floating-point dtypes for prob, got: %s", tn_dtype_cpp_name(dp));
        return NULL;
    }
    if (tn_door_on_meta()) return tn_meta_no_kernel("binomial");
    if (same_dtype(dc, dp) < 0) return NULL;
    PyObject *ins[2], *in[2] = {a[0].u.obj, a[1].u.obj};
    PyObject *res = broadcast_result(2, in, dc, ins, "binomial");
    if (!res) return NULL;
    tn_generator *g = f32_or_f64(dc) ? gen_of(&a[2]) : NULL;
    if (g) tn_rng_binomial_(g, tn_data(tn_tensor_of(ins[0])), tn_data(tn_tensor_of(ins[1])), tn_data(tn_tensor_of(res)),
                            tn_numel(tn_tensor_of(res)), dc);
    else if (!PyErr_Occurred()) tn_kernel_missing("binomial_cpu", dc);
    Py_DECREF(ins[0]);
    Py_DECREF(ins[1]);
    if (PyErr_Occurred()) Py_CLEAR(res);
    return res;
}

PyObject *tn_op_binomial_out(tn_value *a) {
    return autogen_out(tn_at_binomial(a[0].u.obj, a[1].u.obj, gen_obj(&a[2])), a[3].u.obj, "binomial");
}
