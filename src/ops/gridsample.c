/* ops/gridsample.c — grid_sampler_2d / grid_sampler_3d and their backward ops (kernels in
 * kernels/ref/gridsample.c; the 2-d forward is shared over the thread pool by output position),
 * the grid_sampler composite (4-D input -> 2-d, else 3-d), and affine_grid_generator with its
 * backward, both built from ops through the door as upstream's AffineGridGenerator.cpp
 * (linspace base grid, bmm with theta transposed). Checks and messages as upstream's
 * GridSamplerUtils.h (measured on torch 2.13.0). */
#include "autograd/autograd.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "kernels/gridsample.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <string.h>

static int dt_code(tn_dtype d) { return d == TN_DTYPE_F32 ? 0 : d == TN_DTYPE_F64 ? 1 : d == TN_DTYPE_BF16 ? 2 : 3; }

/* upstream's check_grid_sampler_common then check_grid_sampler_{2,3}d */
static int gs_check(const tn_tensor *in, const tn_tensor *g, int k, int64_t mode) {
    char s1[256], s2[256];
    tn_shape_str(s1, sizeof s1, in->ndim, in->sizes);
    tn_shape_str(s2, sizeof s2, g->ndim, g->sizes);
    /* input.size(0), grid.size(0), grid.size(-1) are read first: IndexError for a 0-d one */
    if (!in->ndim || !g->ndim) return tn_size_read(in->ndim ? g : in, 0);
    int64_t in0 = in->sizes[0], g0 = g->sizes[0], glast = g->sizes[g->ndim - 1];
    if (in0 != g0) {
        PyErr_Format(PyExc_RuntimeError, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes %s "
                     "and grid with sizes %s", s1, s2);
        return -1;
    }
    if (glast != in->ndim - 2) {
        PyErr_Format(PyExc_RuntimeError, "grid_sampler(): expected grid to have size %d in last dimension, but got grid with sizes %s",
                     in->ndim - 2, s2);
        return -1;
    }
    for (int i = 2; i < in->ndim; i++)
        if (in->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes %s "
                         "with dimension %d being empty", s1, i);
            return -1;
        }
    if (in->ndim != k + 2 || g->ndim != in->ndim) {
        PyErr_Format(PyExc_RuntimeError, "grid_sampler(): expected %dD input and grid with same number of dimensions, but got input with "
                     "sizes %s and grid with sizes %s", k + 2, s1, s2);
        return -1;
    }
    if (k == 3 && mode == 2) {
        PyErr_SetString(PyExc_RuntimeError, "grid_sampler(): bicubic interpolation only supports 4D input");
        return -1;
    }
    if (mode < 0 || mode > 2) {
        PyErr_Format(PyExc_RuntimeError, "grid_sampler(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got %lld",
                     (long long)mode);
        return -1;
    }
    return 0;
}

static int gs_plan(tn_gs_plan *p, const tn_tensor *in, const tn_tensor *g, int k, tn_value *a) {
    memset(p, 0, sizeof *p);
    p->dt = dt_code(in->dtype);
    p->k = k;
    p->mode = (int)a[2].u.i;
    p->pad = (int)a[3].u.i;
    if (p->pad < 0 || p->pad > 2) {
        PyErr_Format(PyExc_RuntimeError, "grid_sampler(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got %lld",
                     (long long)a[3].u.i);
        return -1;
    }
    p->align = a[4].u.i != 0;
    p->N = in->sizes[0];
    p->C = in->sizes[1];
    int lead = 3 - k;
    for (int i = 0; i < 3; i++) {
        p->isz[i] = i < lead ? 1 : in->sizes[2 + i - lead];
        p->osz[i] = i < lead ? 1 : g->sizes[1 + i - lead];
    }
    p->ist[0] = in->strides[0];
    p->ist[1] = in->strides[1];
    p->gst[0] = g->strides[0];
    for (int i = 0; i < 3; i++) {
        p->ist[2 + i] = i < lead ? 0 : in->strides[2 + i - lead];
        p->gst[1 + i] = i < lead ? 0 : g->strides[1 + i - lead];
    }
    p->gst[4] = g->strides[g->ndim - 1];
    p->in = tn_data(in);
    p->grid = tn_data(g);
    return 0;
}

static int gs_types(const tn_tensor *in, const tn_tensor *g, int k) {
    if (!tn_nn_float(in->dtype)) {
        tn_kernel_missing(k == 2 ? "grid_sampler_2d_cpu_kernel_impl" : "grid_sampler3d_cpu", in->dtype);
        return -1;
    }
    if (g->dtype != in->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(in->dtype), tn_dtype_cpp_name(g->dtype));
        return -1;
    }
    return 0;
}

typedef struct { const tn_gs_plan *p; } fwd_job;
static void fwd_chunk(int64_t b, int64_t e, void *ctx) { tn_gs_forward(((fwd_job *)ctx)->p, b, e); }

/* a: input, grid, interpolation_mode, padding_mode, align_corners */
static PyObject *gs_forward(tn_value *a, int k) {
    const tn_tensor *in = TN_T(a[0]), *g = TN_T(a[1]);
    /* on meta, upstream's grid_sampler_2d is a decomposition: it checks both modes, then unpacks
     * input's and grid's shapes in fours (docs/breadth_more2.md "group meta2 (session 40)") */
    if (k == 2 && tn_door_on_meta()) {
        if (a[2].u.i < 0 || a[2].u.i > 2 || a[3].u.i < 0 || a[3].u.i > 2) {
            bool m = a[2].u.i < 0 || a[2].u.i > 2;
            PyErr_Format(PyExc_RuntimeError, "Invalid %s mode %lld", m ? "interpolation" : "padding", (long long)a[m ? 2 : 3].u.i);
            return NULL;
        }
        if (in->ndim != 4) return tn_py_unpack_error(4, in->ndim), NULL;
        if (g->ndim != 4) return tn_py_unpack_error(4, g->ndim), NULL;
    }
    if (gs_check(in, g, k, a[2].u.i) < 0 || gs_types(in, g, k) < 0) return NULL;
    tn_gs_plan p;
    if (gs_plan(&p, in, g, k, a) < 0) return NULL;
    int64_t osz[5] = {p.N, p.C, 0, 0, 0};
    for (int i = 0; i < k; i++) osz[2 + i] = p.osz[3 - k + i];
    PyObject *out = tn_tensor_new_empty(k + 2, osz, in->dtype, TN_DEVICE_CPU);
    if (!out) return NULL;
    p.out = tn_data(tn_tensor_of(out));
    int64_t npos = p.N * p.osz[0] * p.osz[1] * p.osz[2];
    if (npos > 0 && p.C > 0) {
        fwd_job j = {&p};
        int64_t grain = 1 + 4096 / (p.C > 0 ? p.C : 1);
        Py_BEGIN_ALLOW_THREADS
        tn_parallel_for(npos, grain, fwd_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    return out;
}
PyObject *tn_op_grid_sampler_2d(tn_value *a) { return gs_forward(a, 2); }
PyObject *tn_op_grid_sampler_3d(tn_value *a) { return gs_forward(a, 3); }

/* the composite: 4-D input -> grid_sampler_2d, else grid_sampler_3d (no cuDNN on CPU) */
PyObject *tn_op_grid_sampler(tn_value *a) {
    return (TN_T(a[0])->ndim == 4 ? tn_at_grid_sampler_2d : tn_at_grid_sampler_3d)(a[0].u.obj, a[1].u.obj, a[2].u.i, a[3].u.i,
                                                                                  a[4].u.i != 0);
}

/* a: grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask */
static PyObject *gs_backward(tn_value *a, int k) {
    const tn_tensor *go = TN_T(a[0]), *in = TN_T(a[1]), *g = TN_T(a[2]);
    if (gs_check(in, g, k, a[3].u.i) < 0 || gs_types(in, g, k) < 0) return NULL;
    tn_gs_plan p;
    if (gs_plan(&p, in, g, k, a + 1) < 0) return NULL;
    int64_t osz[5] = {p.N, p.C, 0, 0, 0};
    for (int i = 0; i < k; i++) osz[2 + i] = p.osz[3 - k + i];
    bool same = go->ndim == k + 2 && go->dtype == in->dtype;
    for (int i = 0; same && i < k + 2; i++) same = go->sizes[i] == osz[i];
    if (!same) {
        char s1[256], s2[256];
        tn_shape_str(s1, sizeof s1, go->ndim, go->sizes);
        tn_shape_str(s2, sizeof s2, k + 2, osz);
        PyErr_Format(PyExc_RuntimeError, "grid_sampler_%dd_backward: grad_output of sizes %s (%s) does not match the output %s (%s)", k, s1,
                     tn_dtype_cpp_name(go->dtype), s2, tn_dtype_cpp_name(in->dtype));
        return NULL;
    }
    bool want_in = a[6].tag == TN_V_BOOLLIST && a[6].u.ints.n > 0 ? a[6].u.ints.v[0] != 0 : true;
    int lead = 3 - k;
    p.gost[0] = go->strides[0];
    p.gost[1] = go->strides[1];
    for (int i = 0; i < 3; i++) p.gost[2 + i] = i < lead ? 0 : go->strides[2 + i - lead];
    p.gout = tn_data(go);
    int64_t gsz[5] = {p.N, 0, 0, 0, 0};
    for (int i = 0; i < k; i++) gsz[1 + i] = p.osz[lead + i];
    gsz[1 + k] = k;
    PyObject *ggrid = tn_tensor_new_empty(k + 2, gsz, in->dtype, TN_DEVICE_CPU), *ginp = NULL, *acc = NULL;
    if (!ggrid) return NULL;
    p.ggrid = tn_data(tn_tensor_of(ggrid));
    tn_dtype cdt = in->dtype == TN_DTYPE_F64 ? TN_DTYPE_F64 : TN_DTYPE_F32;
    if (want_in) {
        acc = tn_tensor_new_empty(in->ndim, in->sizes, cdt, TN_DEVICE_CPU);
        if (!acc) { Py_DECREF(ggrid); return NULL; }
        const tn_tensor *at = tn_tensor_of(acc);
        if (tn_numel(at)) memset(tn_data(at), 0, (size_t)(tn_numel(at) * tn_dtype_itemsize(cdt)));
        p.ginp = tn_data(at);
    }
    Py_BEGIN_ALLOW_THREADS
    tn_gs_backward(&p);
    Py_END_ALLOW_THREADS
    if (want_in) {
        ginp = tn_as_dtype(acc, in->dtype, true);
        Py_DECREF(acc);
        if (!ginp) { Py_DECREF(ggrid); return NULL; }
    }
    PyObject *r = PyTuple_Pack(2, ginp ? ginp : Py_None, ggrid);
    Py_XDECREF(ginp);
    Py_DECREF(ggrid);
    return r;
}
PyObject *tn_op_grid_sampler_2d_backward(tn_value *a) { return gs_backward(a, 2); }
PyObject *tn_op_grid_sampler_3d_backward(tn_value *a) { return gs_backward(a, 3); }

/* ---- affine_grid_generator ---- */

/* upstream's linspace_from_neg_one: 0 for a single step, else linspace(-1, 1, n), times
 * (n - 1) / n when not align_corners */
static PyObject *lin_neg_one(tn_dtype dt, int64_t n, bool align) {
    PyObject *r;
    if (n <= 1) {
        r = tn_at_full(TN_IS0, TN_SI(0), TN_DT(dt), NULL, NULL, NULL);   /* at::tensor(0): 0-dim */
    } else {
        r = tn_at_linspace(TN_SI(-1), TN_SI(1), n, TN_DT(dt), NULL, NULL, NULL);
        if (r && !align) {
            PyObject *m = tn_at_mul_Scalar(r, TN_SI((long long)(n - 1)));
            Py_SETREF(r, m ? tn_at_div_Scalar(m, TN_SI((long long)n)) : NULL);
            Py_XDECREF(m);
        }
    }
    return r;
}

/* base grid (N, [D,] H, W, k + 1): x, y[, z] from linspace, last 1 */
static PyObject *base_grid(tn_dtype dt, const int64_t *size, int nsz, bool align) {
    int k = nsz - 2;
    int64_t shape[5];
    shape[0] = size[0];
    for (int i = 0; i < k; i++) shape[1 + i] = size[2 + i];
    shape[1 + k] = k + 1;
    PyObject *base = tn_at_empty_memory_format(TN_IN(shape, k + 2), TN_DT(dt), NULL, NULL, NULL, NULL);
    if (!base) return NULL;
    for (int c = 0; c < k; c++) {
        /* coordinate c (x = W, y = H, z = D) along spatial dim k - 1 - c */
        PyObject *l = lin_neg_one(dt, size[2 + k - 1 - c], align);
        for (int u = 0; l && u < c; u++) Py_SETREF(l, tn_at_unsqueeze(l, -1));
        PyObject *s = l ? tn_at_select_int(base, -1LL, (long long)c) : NULL;
        PyObject *r = s ? tn_at_copy_(s, l, false) : NULL;
        Py_XDECREF(l);
        Py_XDECREF(s);
        if (!r) { Py_DECREF(base); return NULL; }
        Py_DECREF(r);
    }
    PyObject *s = tn_at_select_int(base, -1LL, (long long)k);
    PyObject *r = s ? tn_at_fill__Scalar(s, TN_SI(1)) : NULL;
    Py_XDECREF(s);
    if (!r) { Py_DECREF(base); return NULL; }
    Py_DECREF(r);
    return base;
}

static int size_arg(const tn_value *v, int64_t *size, int *n) {
    *n = v->tag == TN_V_INTLIST ? v->u.ints.n : 1;
    if (*n != 4 && *n != 5) {
        PyErr_SetString(PyExc_RuntimeError, "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
        return -1;
    }
    for (int i = 0; i < *n; i++) size[i] = v->u.ints.v[i];
    return 0;
}

/* affine_grid_generator(theta, size, align_corners) */
PyObject *tn_op_affine_grid_generator(tn_value *a) {
    int64_t size[5];
    int n;
    if (size_arg(&a[1], size, &n) < 0) return NULL;
    int k = n - 2;
    int64_t pts = 1;
    for (int i = 0; i < k; i++) pts *= size[2 + i];
    PyObject *base = base_grid(TN_T(a[0])->dtype, size, n, a[2].u.i != 0);
    PyObject *bv = base ? tn_at_view(base, TN_IS((long long)size[0], (long long)pts, (long long)(k + 1))) : NULL;
    PyObject *tt = bv ? tn_at_transpose_int(a[0].u.obj, 1, 2) : NULL;
    PyObject *g = tt ? tn_at_bmm(bv, tt) : NULL;
    int64_t osz[5];
    osz[0] = size[0];
    for (int i = 0; i < k; i++) osz[1 + i] = size[2 + i];
    osz[1 + k] = k;
    PyObject *r = g ? tn_at__unsafe_view(g, TN_IN(osz, k + 2)) : NULL;   /* the op's result is no view */
    Py_XDECREF(base);
    Py_XDECREF(bv);
    Py_XDECREF(tt);
    Py_XDECREF(g);
    return r;
}

/* affine_grid_generator_backward(grad, size, align_corners): base^T bmm grad, transposed */
PyObject *tn_op_affine_grid_generator_backward(tn_value *a) {
    int64_t size[5];
    int n;
    if (size_arg(&a[1], size, &n) < 0) return NULL;
    int k = n - 2;
    int64_t pts = 1;
    for (int i = 0; i < k; i++) pts *= size[2 + i];
    PyObject *base = base_grid(TN_T(a[0])->dtype, size, n, a[2].u.i != 0);
    PyObject *bv = base ? tn_at_view(base, TN_IS((long long)size[0], (long long)pts, (long long)(k + 1))) : NULL;
    PyObject *bt = bv ? tn_at_transpose_int(bv, 1, 2) : NULL;
    PyObject *gv = bt ? tn_at_view(a[0].u.obj, TN_IS((long long)size[0], (long long)pts, (long long)k)) : NULL;
    PyObject *m = gv ? tn_at_bmm(bt, gv) : NULL;
    PyObject *r = m ? tn_at_transpose_int(m, 1, 2) : NULL;
    Py_XDECREF(base);
    Py_XDECREF(bv);
    Py_XDECREF(bt);
    Py_XDECREF(gv);
    Py_XDECREF(m);
    return r;
}
