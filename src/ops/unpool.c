/* ops/unpool.c — max_unpool2d / max_unpool3d (and .out): every input element written to the
 * output position its index names within its plane, zeros elsewhere (upstream's
 * max_unpooling{2,3}d_forward_out_cpu). Checks and messages as upstream's (measured on torch
 * 2.13.0); floating dtypes only; max_unpool2d keeps a channels-last input's layout, max_unpool3d
 * is always contiguous. The gradient is derivatives.yaml's max_pool_double_backward (a gather;
 * autograd/formulas.c). */
#include "core/dtype.h"
#include "kernels/unpool.h"
#include "ops/common.h"
#include "ops/pool.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <string.h>

static void int_list_str(char *b, size_t n, const tn_value *v) {
    size_t o = 0;
    int len = v->tag == TN_V_INTLIST ? v->u.ints.n : 1;
    o += (size_t)snprintf(b + o, n - o, "[");
    for (int i = 0; i < len && o < n; i++)
        o += (size_t)snprintf(b + o, n - o, "%s%lld", i ? ", " : "", (long long)(v->tag == TN_V_INTLIST ? v->u.ints.v[i] : v->u.i));
    if (o < n) snprintf(b + o, n - o, "]");
}
static int nlist(const tn_value *v) { return v->tag == TN_V_INTLIST ? v->u.ints.n : v->tag == TN_V_INT ? 1 : 0; }
static int64_t at(const tn_value *v, int i) { return v->tag == TN_V_INT ? v->u.i : v->u.ints.v[i]; }

/* a: self, indices, output_size[, stride, padding]; out: the out= tensor or NULL */
static PyObject *unpool(tn_value *a, int k, PyObject *out) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj), *x = tn_tensor_of(a[1].u.obj);
    const char *name = k == 2 ? "max_unpool2d" : "max_unpool3d";
    char s1[256], s2[256];
    int nd = t->ndim;
    if (x->dtype != TN_DTYPE_I64) {
        if (k == 2) PyErr_Format(PyExc_RuntimeError, "elements in indices should be type int64 but got: %s", tn_dtype_cpp_name(x->dtype));
        else PyErr_SetString(PyExc_RuntimeError, "elements in indices should be type int64");
        return NULL;
    }
    if (k == 2 && nlist(&a[2]) != 2) {
        PyErr_Format(PyExc_RuntimeError, "There should be exactly two elements (height, width) in output_size, but got %d elements.", nlist(&a[2]));
        return NULL;
    }
    if (!(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "Input to max_unpooling%dd should be a %dd or %dd Tensor, but got a tensor with %d dimensions.",
                     k, k + 1, k + 2, nd);
        return NULL;
    }
    if (k == 3) {
        const char *what[3] = {"output_size", "stride", "padding"};
        for (int i = 0; i < 3; i++)
            if (nlist(&a[2 + i]) != 3) {
                PyErr_Format(PyExc_RuntimeError, "There should be exactly three elements (depth, height, width) in %s, but got%s %d elements.",
                             what[i], i ? ":" : "", nlist(&a[2 + i]));
                return NULL;
            }
    }
    bool same = x->ndim == nd;
    for (int i = 0; same && i < nd; i++) same = x->sizes[i] == t->sizes[i];
    if (!same) {
        tn_shape_str(s1, sizeof s1, nd, t->sizes);
        tn_shape_str(s2, sizeof s2, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected shape of indices to be same as that of the input tensor (%s) but got indices tensor "
                     "with shape: %s", s1, s2);
        return NULL;
    }
    for (int i = 1; i < nd; i++)
        if (t->sizes[i] <= 0) {
            tn_shape_str(s1, sizeof s1, nd, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "max_unpooling%dd_forward_out_cpu(): Expected input to have non-zero size for non-batch "
                         "dimensions, but got %s with dimension %d being empty.", k, s1, i);
            return NULL;
        }
    if (k == 3 && (at(&a[3], 0) <= 0 || at(&a[3], 1) <= 0 || at(&a[3], 2) <= 0)) {
        int_list_str(s1, sizeof s1, &a[3]);
        PyErr_Format(PyExc_RuntimeError, "strides should be greater than zero, but got stride: %s", s1);
        return NULL;
    }
    int64_t osp[3];
    for (int i = 0; i < k; i++) osp[i] = at(&a[2], i);
    for (int i = 0; i < k; i++)
        if (osp[i] < 0) {
            if (k == 2)
                PyErr_Format(PyExc_RuntimeError, "max_unpooling2d(): output_size must contain non-negative spatial dimensions, but got "
                             "output_size=(%lld, %lld)", (long long)osp[0], (long long)osp[1]);
            else
                PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld", (long long)osp[i]);
            return NULL;
        }
    if (!tn_nn_float(t->dtype)) return tn_kernel_missing(name, t->dtype);
    if (out && tn_tensor_of(out)->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(t->dtype),
                     tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    bool batched = nd == k + 2;
    int64_t osz[5];
    int on = 0;
    if (batched) osz[on++] = t->sizes[0];
    osz[on++] = t->sizes[batched ? 1 : 0];
    for (int i = 0; i < k; i++) osz[on++] = osp[i];
    /* upstream: 2-d keeps the input's suggested layout (channels-last in, channels-last out) */
    bool cl = k == 2 && batched && tn_suggest_format(t) == 2;
    PyObject *res = tn_pool_new(on, osz, t->dtype, cl ? 2 : 0);
    if (!res) return NULL;
    tn_value zero = {.tag = TN_V_INT, .u.i = 0};
    if (tn_fill_number(res, &zero) < 0) { Py_DECREF(res); return NULL; }
    const tn_tensor *o = tn_tensor_of(res);
    if (tn_numel(o) > 0 && tn_numel(t) > 0) {
        tn_unpool_plan p = {.nb = batched ? t->sizes[0] : 1, .nc = t->sizes[batched ? 1 : 0], .k = k, .cl = cl,
                            .itemsize = tn_dtype_itemsize(t->dtype)};
        int lead = batched ? 0 : 1;   /* unbatched: the batch stride is unused (nb = 1) */
        for (int i = 0; i < k + 2; i++) {
            int src = i - lead;
            p.ist[i] = src < 0 ? 0 : t->strides[src];
            p.xst[i] = src < 0 ? 0 : x->strides[src];
            p.ost[i] = src < 0 ? 0 : o->strides[src];
        }
        for (int i = 0; i < k; i++) {
            p.isp[i] = t->sizes[nd - k + i];
            p.osp[i] = osp[i];
        }
        int64_t bad = 0;
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = tn_unpool_scatter(&p, tn_data(t), (const int64_t *)tn_data(x), tn_data(o), &bad);
        Py_END_ALLOW_THREADS
        if (rc < 0) {
            if (k == 2)
                PyErr_Format(PyExc_RuntimeError, "Found an invalid max index: %lld (output volumes are of size %lldx%lld)", (long long)bad,
                             (long long)osp[0], (long long)osp[1]);
            else
                PyErr_Format(PyExc_RuntimeError, "Found an invalid max index: %lld (output volumes are of size %lldx%lldx%lld)",
                             (long long)bad, (long long)osp[0], (long long)osp[1], (long long)osp[2]);
            Py_DECREF(res);
            return NULL;
        }
    }
    return out ? tn_out_deliver(res, out, name) : res;
}

PyObject *tn_op_max_unpool2d(tn_value *a) { return unpool(a, 2, NULL); }
PyObject *tn_op_max_unpool2d_out(tn_value *a) { return unpool(a, 2, a[3].u.obj); }
PyObject *tn_op_max_unpool3d(tn_value *a) { return unpool(a, 3, NULL); }
PyObject *tn_op_max_unpool3d_out(tn_value *a) { return unpool(a, 3, a[5].u.obj); }
