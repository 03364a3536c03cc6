/* ops/fracpool.c — fractional_max_pool2d / 3d, forward and backward (and their out= forms).
 * Checks and messages as upstream's meta and CPU functions (measured on torch 2.13.0, in their
 * order); floating dtypes; results contiguous. The window starts follow upstream's
 * generate_intervals in the tensor's dtype (kernels/fracpool.h), so bfloat16 / float16 inputs pick
 * the windows upstream picks. Kernels run on float64 copies holding the dtype's values exactly. */
#include "core/dtype.h"
#include "kernels/fracpool.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <string.h>

static int nlist(const tn_value *v) { return v->tag == TN_V_INTLIST ? v->u.ints.n : v->tag == TN_V_INT ? 1 : 0; }
static int64_t at(const tn_value *v, int i) { return v->tag == TN_V_INT ? v->u.i : v->u.ints.v[i]; }
static int rnd_of(tn_dtype d) { return d == TN_DTYPE_F32 ? 1 : d == TN_DTYPE_BF16 ? 2 : d == TN_DTYPE_F16 ? 3 : 0; }

static const char *const dim_word[3] = {"time", "height", "width"};

/* the shared checks of the forward: fills plan geometry and the output sizes */
static int fwd_check(const tn_tensor *t, const tn_value *ks, const tn_value *os, int k, tn_fracpool_plan *p, int64_t *osz, int *on) {
    char sh[256];
    const char *pre = k == 2 ? "fractional_max_pool2d()" : "fractional_max_pool3d_out()";
    if (nlist(ks) != k) {
        PyErr_Format(PyExc_RuntimeError, "fractional_max_pool%dd: kernel_size must either be a single Int or tuple of %s", k,
                     k == 2 ? "Ints" : "three Ints");
        return -1;
    }
    if (nlist(os) != k) {
        PyErr_Format(PyExc_RuntimeError, "fractional_max_pool%dd: output_size must either be a single Int or tuple of %s", k,
                     k == 2 ? "Ints" : "three Ints");
        return -1;
    }
    int nd = t->ndim;
    tn_shape_str(sh, sizeof sh, nd, t->sizes);
    if (!(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "%s: Expected %dD or %dD tensor, but got: %s", pre, k + 1, k + 2, sh);
        return -1;
    }
    for (int i = 1; i < nd; i++)
        if (t->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "%s: Expected input to have non-zero size for non-batch dimensions, but got%s with "
                         "dimension %d being empty.", pre, sh, i);
            return -1;
        }
    memset(p, 0, sizeof *p);
    p->k = k;
    for (int d = 0; d < 3; d++) p->in[d] = p->out[d] = p->pool[d] = 1;
    for (int i = 0; i < k; i++) {
        int d = 3 - k + i;
        p->in[d] = t->sizes[nd - k + i];
        p->out[d] = at(os, i);
        p->pool[d] = at(ks, i);
    }
    for (int d = 3 - k; d < 3; d++)
        /* upstream's 2-d check allows the window to reach the end, its 3-d one does not */
        if (!(k == 2 ? p->out[d] + p->pool[d] - 1 <= p->in[d] : p->out[d] + p->pool[d] - 1 < p->in[d])) {
            PyErr_Format(PyExc_RuntimeError, "%s: pool %s %lld too large relative to input %s %lld", pre, dim_word[d],
                         (long long)p->pool[d], dim_word[d], (long long)p->in[d]);
            return -1;
        }
    bool batched = nd == k + 2;
    p->channels = t->sizes[batched ? 1 : 0];
    p->planes = (batched ? t->sizes[0] : 1) * p->channels;
    *on = 0;
    if (batched) osz[(*on)++] = t->sizes[0];
    osz[(*on)++] = p->channels;
    for (int d = 3 - k; d < 3; d++) osz[(*on)++] = p->out[d];
    for (int i = 0; i < *on; i++)
        if (osz[i] < 0) {
            tn_shape_str(sh, sizeof sh, *on, osz);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)osz[i], sh);
            return -1;
        }
    return 0;
}

static PyObject *fwd(tn_value *a, int k, PyObject *out_v, PyObject *out_i) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj), *s = tn_tensor_of(a[3].u.obj);
    tn_fracpool_plan p;
    int64_t osz[5];
    int on;
    if (fwd_check(t, &a[1], &a[2], k, &p, osz, &on) < 0) return NULL;
    if (s->ndim != 3) {
        PyErr_Format(PyExc_RuntimeError, "Expect _random_samples to have 3 dimensions, got %d", s->ndim);
        return NULL;
    }
    if (s->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "Expect _random_samples to have the same dtype as input");
        return NULL;
    }
    bool batched = t->ndim == k + 2;
    if (s->sizes[0] < (batched ? t->sizes[0] : 1)) {
        PyErr_SetString(PyExc_RuntimeError, "Expect _random_samples.size(0) no less then input batch size.");
        return NULL;
    }
    if (s->sizes[1] != p.channels) {
        PyErr_SetString(PyExc_RuntimeError, "Expect _random_samples.size(1) equals to input channel size.");
        return NULL;
    }
    if (s->sizes[2] != k) {
        PyErr_Format(PyExc_RuntimeError, "Expect _random_samples.size(2) equals to %d; got %lld.", k, (long long)s->sizes[2]);
        return NULL;
    }
    if (!tn_nn_float(t->dtype)) return tn_kernel_missing(k == 2 ? "fractional_max_pool2d_out_frame" : "fractional_max_pool3d_out_frame", t->dtype);
    p.rnd = rnd_of(t->dtype);
    PyObject *val = tn_tensor_new_empty(on, osz, TN_DTYPE_F64, TN_DEVICE_CPU);
    PyObject *idx = val ? tn_tensor_new_empty(on, osz, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
    PyObject *xin = idx ? tn_as_dtype(a[0].u.obj, TN_DTYPE_F64, true) : NULL;
    PyObject *sin = xin ? tn_as_dtype(a[3].u.obj, TN_DTYPE_F64, true) : NULL;
    int64_t *starts = sin ? PyMem_Malloc((size_t)(p.out[0] + p.out[1] + p.out[2] + 1) * sizeof *starts) : NULL;
    if (sin && !starts) PyErr_NoMemory();
    if (starts && tn_numel(tn_tensor_of(val)) > 0) {
        const tn_tensor *vt = tn_tensor_of(val), *it = tn_tensor_of(idx);
        Py_BEGIN_ALLOW_THREADS
        tn_fracpool_fwd(&p, (const double *)tn_data(tn_tensor_of(xin)), (const double *)tn_data(tn_tensor_of(sin)), (double *)tn_data(vt),
                        (int64_t *)tn_data(it), starts);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(starts);
    Py_XDECREF(xin);
    PyObject *res = NULL;
    if (sin) {
        PyObject *v = tn_as_dtype(val, t->dtype, true);
        if (v && out_v) {
            v = tn_out_deliver(v, out_v, k == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d");
            PyObject *ix = v ? tn_out_deliver(Py_NewRef(idx), out_i, k == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d") : NULL;
            res = ix ? PyTuple_Pack(2, v, ix) : NULL;
            Py_XDECREF(ix);
        } else if (v) {
            res = PyTuple_Pack(2, v, idx);
        }
        Py_XDECREF(v);
    }
    Py_XDECREF(sin);
    Py_XDECREF(val);
    Py_XDECREF(idx);
    return res;
}

/* backward(grad_output, self, kernel_size, output_size, indices) */
static PyObject *bwd(tn_value *a, int k, PyObject *out) {
    const tn_tensor *g = tn_tensor_of(a[0].u.obj), *t = tn_tensor_of(a[1].u.obj), *ix = tn_tensor_of(a[4].u.obj);
    int nd = t->ndim;
    /* upstream first reads input's channel, then spatial sizes (one leading batch dim when it has k + 2),
     * then, for 3-d, grad_output's time, height and width (2-d compares grad_output's sizes whole) */
    const int c0 = nd == k + 2 ? 1 : 0;
    for (int i = 0; i <= k; i++)
        if (tn_size_read(t, c0 + i) < 0) return NULL;
    for (int i = 0; k == 3 && i < k; i++) {
        if (tn_size_read(g, c0 + 1 + i) < 0) return NULL;
        /* each compared with output_size[i] as soon as read (measured; past a shorter output_size
         * upstream reads garbage: refused below) */
        if (i < nlist(&a[3]) && g->sizes[c0 + 1 + i] != at(&a[3], i)) {
            PyErr_Format(PyExc_RuntimeError, "fractional_max_pool3d_backward_out(): gradOutput %s unexpected", dim_word[i]);
            return NULL;
        }
    }
    if (nlist(&a[3]) != k || !(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "fractional_max_pool%dd_backward: expected a %dD or %dD input and %d output sizes", k, k + 1, k + 2, k);
        return NULL;
    }
    tn_fracpool_plan p;
    memset(&p, 0, sizeof p);
    p.k = k;
    for (int d = 0; d < 3; d++) p.in[d] = p.out[d] = 1;
    for (int i = 0; i < k; i++) {
        p.in[3 - k + i] = t->sizes[nd - k + i];
        p.out[3 - k + i] = at(&a[3], i);
    }
    bool batched = nd == k + 2;
    p.channels = t->sizes[batched ? 1 : 0];
    p.planes = (batched ? t->sizes[0] : 1) * p.channels;
    p.rnd = rnd_of(t->dtype);
    if (k == 2) {
        bool ok = g->ndim == nd;
        for (int i = 0; ok && i < nd; i++) ok = g->sizes[i] == (i < nd - 2 ? t->sizes[i] : p.out[3 - nd + i]);
        if (!ok) {
            PyErr_SetString(PyExc_RuntimeError, "fractional_max_pool2d_backward(): gradOutput sizes unexpected");
            return NULL;
        }
    } else {
        for (int d = 0; d < 3; d++)
            if (g->ndim != nd || g->sizes[nd - 3 + d] != p.out[d]) {
                PyErr_Format(PyExc_RuntimeError, "fractional_max_pool3d_backward_out(): gradOutput %s unexpected", dim_word[d]);
                return NULL;
            }
    }
    if (g->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(g->dtype));
        return NULL;
    }
    if (!tn_nn_float(t->dtype))
        return tn_kernel_missing(k == 2 ? "fractional_max_pool2d_backward_out_frame" : "fractional_max_pool3d_backward_out_frame", t->dtype);
    bool same = ix->ndim == g->ndim && ix->dtype == TN_DTYPE_I64;
    for (int i = 0; same && i < g->ndim; i++) same = ix->sizes[i] == g->sizes[i];
    if (!same) {
        PyErr_SetString(PyExc_RuntimeError, "fractional_max_pool: indices must be int64 with gradOutput's sizes");
        return NULL;
    }
    PyObject *ic = tn_as_dtype(a[4].u.obj, TN_DTYPE_I64, true);
    if (!ic) return NULL;
    int64_t isz = p.in[0] * p.in[1] * p.in[2], osz_ = p.out[0] * p.out[1] * p.out[2];
    const int64_t *iv = (const int64_t *)tn_data(tn_tensor_of(ic));
    for (int64_t j = 0; iv && j < p.planes * osz_; j++)
        if (iv[j] < 0 || iv[j] >= isz) {
            Py_DECREF(ic);
            PyErr_Format(PyExc_RuntimeError, "fractional_max_pool%dd_backward: index %lld out of range for an input plane of %lld elements",
                         k, (long long)iv[j], (long long)isz);
            return NULL;
        }
    PyObject *gc = tn_as_dtype(a[0].u.obj, TN_DTYPE_F64, true);
    PyObject *gin = gc ? tn_tensor_new_empty(nd, t->sizes, TN_DTYPE_F64, TN_DEVICE_CPU) : NULL;
    if (gin && tn_numel(t) > 0) {
        const tn_tensor *gt = tn_tensor_of(gin);
        Py_BEGIN_ALLOW_THREADS
        tn_fracpool_bwd(&p, (const double *)tn_data(tn_tensor_of(gc)), iv, (double *)tn_data(gt));
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(ic);
    Py_XDECREF(gc);
    PyObject *r = gin ? tn_as_dtype(gin, t->dtype, true) : NULL;
    Py_XDECREF(gin);
    return out && r ? tn_out_deliver(r, out, k == 2 ? "fractional_max_pool2d_backward" : "fractional_max_pool3d_backward") : r;
}

PyObject *tn_op_fractional_max_pool2d(tn_value *a) { return fwd(a, 2, NULL, NULL); }
PyObject *tn_op_fractional_max_pool2d_output(tn_value *a) { return fwd(a, 2, a[4].u.obj, a[5].u.obj); }
PyObject *tn_op_fractional_max_pool3d(tn_value *a) { return fwd(a, 3, NULL, NULL); }
PyObject *tn_op_fractional_max_pool3d_output(tn_value *a) { return fwd(a, 3, a[4].u.obj, a[5].u.obj); }
PyObject *tn_op_fractional_max_pool2d_backward(tn_value *a) { return bwd(a, 2, NULL); }
PyObject *tn_op_fractional_max_pool2d_backward_grad_input(tn_value *a) { return bwd(a, 2, a[5].u.obj); }
PyObject *tn_op_fractional_max_pool3d_backward(tn_value *a) { return bwd(a, 3, NULL); }
PyObject *tn_op_fractional_max_pool3d_backward_grad_input(tn_value *a) { return bwd(a, 3, a[5].u.obj); }
