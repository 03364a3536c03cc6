/* ops/gradient.c — torch.gradient, every overload (CompositeImplicitAutograd upstream).
 *
 * Upstream's ReduceOps.cpp decomposition, op by op through the door, so values, dtypes and the
 * autograd graph are upstream's: along each dim, the interior is the second-order central
 * difference ((x[2:] - x[:-2]) / h / 2 for a scalar spacing; a * x[:-2] + b * x[1:-1] + c * x[2:]
 * with coefficients from the coordinate differences for a tensor spacing), the two edges one-sided
 * differences of order 1 or 2, joined with cat. The checks are upstream's pre_check_gradient. The
 * overloads are also the decompositions autograd records (autograd/decomp.c). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <stdio.h>

#define GMAX TN_MAX_DIMS

/* pre_check_gradient(self, spacing_size (-1: none), dims (NULL: none), edge_order) */
static int pre_check(const tn_tensor *t, int64_t spacing_size, const int64_t *dims, int ndims, int64_t edge_order) {
    if (t->dtype == TN_DTYPE_U8) {
        PyErr_SetString(PyExc_RuntimeError, "torch.gradient does not support uint8 input.");
        return -1;
    }
    if (spacing_size >= 0 && !dims && spacing_size != t->ndim) {
        PyErr_Format(PyExc_RuntimeError, "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                     "equal to 'self.dim() = %d', since dim argument was not given, but got a list of length %lld",
                     t->ndim, (long long)spacing_size);
        return -1;
    }
    if (spacing_size >= 0 && dims && spacing_size != ndims) {
        PyErr_Format(PyExc_RuntimeError, "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                     "arguments to have the same length, but got a spacing argument of length %lld and a dim argument of "
                     "length %d.", (long long)spacing_size, ndims);
        return -1;
    }
    if (edge_order != 1 && edge_order != 2) {
        PyErr_SetString(PyExc_RuntimeError, "torch.gradient only supports edge_order=1 and edge_order=2.");
        return -1;
    }
    if (dims) {
        bool seen[GMAX] = {0};
        for (int i = 0; i < ndims; i++) {   /* dim_list_to_bitset */
            int64_t d;
            if (tn_wrap_dim(dims[i], t->ndim, &d) < 0) return -1;
            if (seen[d]) {
                PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d);
                return -1;
            }
            seen[d] = true;
        }
        for (int i = 0; i < ndims; i++) {
            int64_t d;
            if (t->ndim == 0) {   /* upstream reads self.size(dim): IndexError on a 0-d self (measured) */
                tn_size_read(t, dims[i]);
                return -1;
            }
            tn_wrap_dim(dims[i], t->ndim, &d);
            if (t->sizes[d] < edge_order + 1) goto small;
        }
    } else {
        for (int i = 0; i < t->ndim; i++)
            if (t->sizes[i] < edge_order + 1) goto small;
    }
    return 0;
small:
    PyErr_SetString(PyExc_RuntimeError, "torch.gradient expected each dimension size to be at least edge_order+1");
    return -1;
}

/* at::slice(x, dim, start[, end]) */
static PyObject *sl(PyObject *x, int64_t dim, int64_t start, bool has_end, int64_t end) {
    if (has_end) return tn_at_slice_Tensor(x, (long long)dim, TN_I((long long)start), TN_I((long long)end), 1);
    return tn_at_slice_Tensor(x, (long long)dim, TN_I((long long)start), NULL, 1);
}

/* binary op on two new references (both released); NULL propagates */
static PyObject *bin(PyObject *(*op)(PyObject *, PyObject *), PyObject *a, PyObject *b) {
    PyObject *r = a && b ? op(a, b) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    return r;
}
/* op(a, number) on a new reference (released) */
static PyObject *bins(PyObject *(*op)(PyObject *, tn_scalar_arg), PyObject *a, PyObject *num) {
    PyObject *r = a && num ? op(a, TN_SO(num)) : NULL;
    Py_XDECREF(a);
    return r;
}
static PyObject *neg(PyObject *a) {
    PyObject *r = a ? tn_at_neg(a) : NULL;
    Py_XDECREF(a);
    return r;
}
static PyObject *sel(PyObject *x, int64_t i) { return tn_at_select_int(x, 0LL, (long long)i); }

/* prepend_append_on_dim: cat([prepend, center, append], dim); steals all three */
static PyObject *join3(PyObject *p, PyObject *c, PyObject *a, int64_t dim) {
    PyObject *r = NULL;
    if (p && c && a) {
        PyObject *l = PyList_New(0);
        if (l && PyList_Append(l, p) == 0 && PyList_Append(l, c) == 0 && PyList_Append(l, a) == 0)
            r = tn_at_cat(TN_TPY(l), (long long)dim);
        Py_XDECREF(l);
    }
    Py_XDECREF(p);
    Py_XDECREF(c);
    Py_XDECREF(a);
    return r;
}

/* gradient_helper_float along one dim with spacing h (a Python number) */
static PyObject *along_scalar(PyObject *x, int64_t d, PyObject *h, int64_t edge_order) {
    PyObject *center = bins(tn_at_div_Scalar, bin(tn_sub_tt, sl(x, d, 2, false, 0), sl(x, d, 0, true, -2)), h);
    PyObject *pre, *app;
    if (edge_order == 1) {
        pre = bins(tn_at_div_Scalar, bin(tn_sub_tt, sl(x, d, 1, true, 2), sl(x, d, 0, true, 1)), h);
        app = bins(tn_at_div_Scalar, bin(tn_sub_tt, sl(x, d, -1, false, 0), sl(x, d, -2, true, -1)), h);
    } else {
        PyObject *m15 = PyFloat_FromDouble(-1.5), *two = PyLong_FromLong(2), *h05 = PyFloat_FromDouble(0.5),
                 *p15 = PyFloat_FromDouble(1.5);
        pre = bins(tn_at_div_Scalar,
                   bin(tn_sub_tt,
                       bin(tn_add_tt, bins(tn_at_mul_Scalar, sl(x, d, 0, true, 1), m15),
                           bins(tn_at_mul_Scalar, sl(x, d, 1, true, 2), two)),
                       bins(tn_at_mul_Scalar, sl(x, d, 2, true, 3), h05)),
                   h);
        app = bins(tn_at_div_Scalar,
                   bin(tn_add_tt,
                       bin(tn_sub_tt, bins(tn_at_mul_Scalar, sl(x, d, -3, true, -2), h05),
                           bins(tn_at_mul_Scalar, sl(x, d, -2, true, -1), two)),
                       bins(tn_at_mul_Scalar, sl(x, d, -1, false, 0), p15)),
                   h);
        Py_XDECREF(m15); Py_XDECREF(two); Py_XDECREF(h05); Py_XDECREF(p15);
    }
    PyObject *two = PyLong_FromLong(2);
    PyObject *c2 = bins(tn_at_div_Scalar, center, two);
    Py_XDECREF(two);
    return join3(pre, c2, app, d);
}

/* gradient_helper along one dim with coordinates `coord` (1-d tensor) */
static PyObject *along_tensor(PyObject *x, int64_t d, PyObject *coord, int64_t edge_order) {
    const tn_tensor *ct = tn_tensor_of(coord);
    if (ct->ndim != 1) {
        PyErr_Format(PyExc_RuntimeError, "torch.gradient expected each element of spacing to have one dimension, but got an "
                     "element with %d dimensions!", ct->ndim);
        return NULL;
    }
    int nd = tn_tensor_of(x)->ndim;
    int64_t shape[GMAX];
    for (int i = 0; i < nd; i++) shape[i] = i == d ? -1 : 1;
    PyObject *dx = tn_at_diff(coord, 1LL, 0LL, NULL, NULL);
    if (!dx) return NULL;
    /* dx1 = dx[:-1], dx2 = dx[1:] (each made once, as upstream's locals) */
    PyObject *dx1 = sl(dx, 0, 0, true, -1), *dx2 = dx1 ? sl(dx, 0, 1, false, 0) : NULL;
    if (!dx2) { Py_XDECREF(dx1); Py_DECREF(dx); return NULL; }
#define S(a, b) Py_NewRef(dx1)
#define SE(a) Py_NewRef(dx2)
    /* a = -dx2 / (dx1 * (dx1 + dx2)); b = (dx2 - dx1) / (dx1 * dx2); c = dx1 / (dx2 * (dx1 + dx2)) */
    PyObject *a = bin(tn_at_div_Tensor, neg(SE(1)), bin(tn_at_mul_Tensor, S(0, -1), bin(tn_add_tt, S(0, -1), SE(1))));
    PyObject *b = bin(tn_at_div_Tensor, bin(tn_sub_tt, SE(1), S(0, -1)), bin(tn_at_mul_Tensor, S(0, -1), SE(1)));
    PyObject *c = bin(tn_at_div_Tensor, S(0, -1), bin(tn_at_mul_Tensor, SE(1), bin(tn_add_tt, S(0, -1), SE(1))));
#undef S
#undef SE
    Py_DECREF(dx1);
    Py_DECREF(dx2);
    PyObject *ar = a ? tn_at_reshape(a, TN_IN(shape, nd)) : NULL;
    PyObject *br = b ? tn_at_reshape(b, TN_IN(shape, nd)) : NULL;
    PyObject *cr = c ? tn_at_reshape(c, TN_IN(shape, nd)) : NULL;
    Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c);
    PyObject *center = bin(tn_add_tt,
                           bin(tn_add_tt, bin(tn_at_mul_Tensor, ar, sl(x, d, 0, true, -2)),
                               bin(tn_at_mul_Tensor, br, sl(x, d, 1, true, -1))),
                           bin(tn_at_mul_Tensor, cr, sl(x, d, 2, false, 0)));
    PyObject *pre, *app;
    if (edge_order == 1) {
        pre = bin(tn_at_div_Tensor, bin(tn_sub_tt, sl(x, d, 1, true, 2), sl(x, d, 0, true, 1)), sel(dx, 0));
        app = bin(tn_at_div_Tensor, bin(tn_sub_tt, sl(x, d, -1, false, 0), sl(x, d, -2, true, -1)), sel(dx, -1));
    } else {
        PyObject *f2 = PyFloat_FromDouble(2.0), *i2 = PyLong_FromLong(2);
#define D(i) sel(dx, i)
        /* a = -(2.0 * d0 + d1) / (d0 * (d0 + d1)); b = (d0 + d1) / (d0 * d1); c = (-d0) / (d1 * (d0 + d1)) */
        PyObject *pa = bin(tn_at_div_Tensor, neg(bin(tn_add_tt, bins(tn_at_mul_Scalar, D(0), f2), D(1))),
                           bin(tn_at_mul_Tensor, D(0), bin(tn_add_tt, D(0), D(1))));
        PyObject *pb = bin(tn_at_div_Tensor, bin(tn_add_tt, D(0), D(1)), bin(tn_at_mul_Tensor, D(0), D(1)));
        PyObject *pc = bin(tn_at_div_Tensor, neg(D(0)), bin(tn_at_mul_Tensor, D(1), bin(tn_add_tt, D(0), D(1))));
        pre = bin(tn_add_tt,
                  bin(tn_add_tt, bin(tn_at_mul_Tensor, pa, sl(x, d, 0, true, 1)), bin(tn_at_mul_Tensor, pb, sl(x, d, 1, true, 2))),
                  bin(tn_at_mul_Tensor, pc, sl(x, d, 2, true, 3)));
        /* a = d_1 / (d_2 * (d_1 + d_2)); b = -(d_1 + d_2) / (d_1 * d_2); c = (2 * d_1 + d_2) / (d_1 * (d_1 + d_2)) */
        PyObject *qa = bin(tn_at_div_Tensor, D(-1), bin(tn_at_mul_Tensor, D(-2), bin(tn_add_tt, D(-1), D(-2))));
        PyObject *qb = bin(tn_at_div_Tensor, neg(bin(tn_add_tt, D(-1), D(-2))), bin(tn_at_mul_Tensor, D(-1), D(-2)));
        PyObject *qc = bin(tn_at_div_Tensor, bin(tn_add_tt, bins(tn_at_mul_Scalar, D(-1), i2), D(-2)),
                           bin(tn_at_mul_Tensor, D(-1), bin(tn_add_tt, D(-1), D(-2))));
#undef D
        app = bin(tn_add_tt,
                  bin(tn_add_tt, bin(tn_at_mul_Tensor, qa, sl(x, d, -3, true, -2)), bin(tn_at_mul_Tensor, qb, sl(x, d, -2, true, -1))),
                  bin(tn_at_mul_Tensor, qc, sl(x, d, -1, false, 0)));
        Py_XDECREF(f2);
        Py_XDECREF(i2);
    }
    Py_DECREF(dx);
    return join3(pre, center, app, d);
}

/* The gradients along dims[] (spacing: n_sp Python numbers, or tensors when `tensors`). A tuple. */
static PyObject *run(PyObject *x, const int64_t *dims, int nd, PyObject *const *sp, bool tensors, int64_t edge_order) {
    PyObject *res = PyTuple_New(nd);
    for (int i = 0; res && i < nd; i++) {
        int64_t d;
        if (tn_wrap_dim(dims[i], tn_tensor_of(x)->ndim, &d) < 0) { Py_CLEAR(res); break; }
        PyObject *g = tensors ? along_tensor(x, d, sp[i], edge_order) : along_scalar(x, d, sp[i], edge_order);
        if (!g) { Py_CLEAR(res); break; }
        PyTuple_SetItem(res, i, g);
    }
    return res;
}

static PyObject *number(const tn_value *v) {
    if (v->tag == TN_V_NONE) return PyFloat_FromDouble(1.0);
    return tn_value_to_python(v);
}

static void all_dims(const tn_tensor *t, int64_t *dims, int *nd) {
    *nd = t->ndim;
    for (int i = 0; i < t->ndim; i++) dims[i] = i;
}

/* gradient.scalarint(self, *, Scalar? spacing=None, int? dim=None, int edge_order=1) */
PyObject *tn_op_gradient_scalarint(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    int64_t dims[GMAX];
    int nd;
    bool has_dim = a[2].tag == TN_V_INT;
    if (has_dim) { dims[0] = a[2].u.i; nd = 1; }
    else all_dims(t, dims, &nd);
    int n_sp = has_dim ? 1 : t->ndim;
    if (pre_check(t, a[1].tag != TN_V_NONE ? n_sp : -1, has_dim ? dims : NULL, nd, a[3].u.i) < 0) return NULL;
    PyObject *h = number(&a[1]);
    if (!h) return NULL;
    PyObject *sp[GMAX];
    for (int i = 0; i < nd; i++) sp[i] = h;
    PyObject *r = run(a[0].u.obj, dims, nd, sp, false, a[3].u.i);
    Py_DECREF(h);
    return r;
}

/* gradient.scalararray(self, *, Scalar spacing, int[] dim, int edge_order=1) */
PyObject *tn_op_gradient_scalararray(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    int nd = a[2].u.ints.n;
    if (pre_check(t, nd, a[2].u.ints.v, nd, a[3].u.i) < 0) return NULL;
    if (nd > GMAX) return tn_not_implemented("gradient over more than " TN_MAX_DIMS_S " dims");
    PyObject *h = number(&a[1]);
    if (!h) return NULL;
    PyObject *sp[GMAX];
    for (int i = 0; i < nd; i++) sp[i] = h;
    PyObject *r = run(a[0].u.obj, a[2].u.ints.v, nd, sp, false, a[3].u.i);
    Py_DECREF(h);
    return r;
}

/* gradient.array(self, *, int[] dim, int edge_order=1) */
PyObject *tn_op_gradient_array(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    int nd = a[1].u.ints.n;
    if (pre_check(t, nd, a[1].u.ints.v, nd, a[2].u.i) < 0) return NULL;
    if (nd > GMAX) return tn_not_implemented("gradient over more than " TN_MAX_DIMS_S " dims");
    PyObject *h = PyFloat_FromDouble(1.0);
    if (!h) return NULL;
    PyObject *sp[GMAX];
    for (int i = 0; i < nd; i++) sp[i] = h;
    PyObject *r = run(a[0].u.obj, a[1].u.ints.v, nd, sp, false, a[2].u.i);
    Py_DECREF(h);
    return r;
}

/* Scalar[] spacing with dims (NULL: dim=None, all dims, or the one int dim) */
static PyObject *scalar_list(tn_value *a, const tn_value *dimv, int64_t edge_order) {
    const tn_tensor *t = TN_T(a[0]);
    int n_sp = a[1].u.floats.n;
    int64_t dims[GMAX];
    int nd;
    const int64_t *given = NULL;
    if (dimv->tag == TN_V_INTLIST) { given = dimv->u.ints.v; nd = dimv->u.ints.n; }
    else if (dimv->tag == TN_V_INT) { dims[0] = dimv->u.i; nd = 1; given = dims; }
    else all_dims(t, dims, &nd);
    if (pre_check(t, n_sp, given, nd, edge_order) < 0) return NULL;
    if (nd > GMAX) return tn_not_implemented("gradient over more than " TN_MAX_DIMS_S " dims");
    PyObject *sp[GMAX] = {0};
    PyObject *r = NULL;
    for (int i = 0; i < nd; i++)
        if (!(sp[i] = PyFloat_FromDouble(a[1].u.floats.v[i]))) goto done;
    r = run(a[0].u.obj, given ? given : dims, nd, sp, false, edge_order);
done:
    for (int i = 0; i < nd; i++) Py_XDECREF(sp[i]);
    return r;
}
PyObject *tn_op_gradient_scalarrayint(tn_value *a) { return scalar_list(a, &a[2], a[3].u.i); }
PyObject *tn_op_gradient_scalarrayarray(tn_value *a) { return scalar_list(a, &a[2], a[3].u.i); }

/* Tensor[] spacing */
static PyObject *tensor_list(tn_value *a, const tn_value *dimv, int64_t edge_order) {
    const tn_tensor *t = TN_T(a[0]);
    PyObject *seq = a[1].u.obj;   /* a tuple (args.c) */
    int n_sp = (int)PyTuple_Size(seq);
    int64_t dims[GMAX];
    int nd;
    const int64_t *given = NULL;
    if (dimv->tag == TN_V_INTLIST) { given = dimv->u.ints.v; nd = dimv->u.ints.n; }
    else if (dimv->tag == TN_V_INT) { dims[0] = dimv->u.i; nd = 1; given = dims; }
    else all_dims(t, dims, &nd);
    if (pre_check(t, n_sp, given, nd, edge_order) < 0) return NULL;
    if (nd > GMAX) return tn_not_implemented("gradient over more than " TN_MAX_DIMS_S " dims");
    PyObject *sp[GMAX];
    for (int i = 0; i < nd; i++) sp[i] = PyTuple_GetItem(seq, i);
    return run(a[0].u.obj, given ? given : dims, nd, sp, true, edge_order);
}
PyObject *tn_op_gradient_tensorarrayint(tn_value *a) { return tensor_list(a, &a[2], a[3].u.i); }
PyObject *tn_op_gradient_tensorarray(tn_value *a) { return tensor_list(a, &a[2], a[3].u.i); }
