/* ops/matrix_exp.c — linalg_matrix_exp (and its alias matrix_exp, matrix_exp_backward).
 *
 * Upstream's algorithm (docs/breadth_more2.md): Bader, Blanes and Casas' optimized Taylor
 * polynomials of degree 1, 2, 4, 8, 12 and 18, chosen by the matrix's 1-norm against upstream's
 * thresholds (single matrices), degree 18 with scaling and squaring otherwise (every batch of
 * more than one matrix, and single matrices of large norm). Written as the door calls upstream's
 * kernel makes (abs/sum/max for the norm, bmm for the products, the linear combinations of
 * matrix powers as multiply-adds in the input's dtype), so values follow from the same
 * operations; only the matrix products' rounding (our GEMM vs MKL) differs.
 *
 * Half and bfloat16: upstream computes these with its double coefficients (the thresholds and
 * Taylor constants of scalar_t = double) but builds the coefficient tensors from the double
 * arrays' bytes read as 16-bit values of the input's dtype; the coefficients are therefore those
 * reinterpreted bits (mx_coef), reproduced here because upstream's results (mostly far from
 * exp(A)) are what callers get. */
#include "ops/common.h"
#include "autograd/autograd.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- temporaries: a small bag released at once ---- */
typedef struct { PyObject **o; int n, cap; } mx_bag;
#define MX_BAG {NULL, 0, 0}
static PyObject *mk(mx_bag *b, PyObject *x) {
    if (!x) return NULL;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        PyObject **o = realloc(b->o, (size_t)cap * sizeof *o);
        if (!o) { Py_DECREF(x); PyErr_NoMemory(); return NULL; }
        b->o = o;
        b->cap = cap;
    }
    return b->o[b->n++] = x;
}
/* a Python float in the bag: given for a Tensor argument it is a wrapped number, as upstream's double */
static PyObject *mx_num(mx_bag *b, double v) { return mk(b, PyFloat_FromDouble(v)); }
static void mx_drop(mx_bag *b) {
    for (int i = 0; i < b->n; i++) Py_DECREF(b->o[i]);
    free(b->o);
    b->o = NULL;
    b->n = b->cap = 0;
}

static bool mx_half(tn_dtype dt) { return dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16; }
static bool mx_single(tn_dtype dt) { return dt == TN_DTYPE_F32 || dt == TN_DTYPE_C64; }
/* scalar_t's value of a double constant: float for float32 / complex64, double otherwise */
static double R(tn_dtype dt, double x) { return mx_single(dt) ? (double)(float)x : x; }

/* Coefficient k of an array of scalar_t values as upstream's coefficient tensor holds it: the
 * value itself, or for half / bfloat16 the k-th 16-bit word of the double array's bytes read
 * in that dtype (see the file comment). */
static double mx_coef(const double *vals, int k, tn_dtype dt) {
    if (!mx_half(dt)) return vals[k];
    uint16_t h;
    memcpy(&h, (const char *)vals + 2 * (size_t)k, 2);
    return dt == TN_DTYPE_BF16 ? (double)tn_bf16_to_f32(h) : (double)tn_f16_to_f32(h);
}

/* sum_j coef[j] * in[j], accumulated from zero in order j (upstream's linear-combination kernel) */
static PyObject *mx_lincomb(mx_bag *b, PyObject *const *in, int n, const double *vals, int off, tn_dtype dt) {
    PyObject *acc = mk(b, tn_at_zeros_like(in[0], NULL, NULL, NULL, NULL, NULL));
    for (int j = 0; j < n && acc; j++) {
        PyObject *t = mk(b, tn_at_mul_Tensor(in[j], mx_num(b, mx_coef(vals, off + j, dt))));
        acc = t ? mk(b, tn_at_add_Tensor(acc, t, TN_SDEF)) : NULL;
    }
    return acc;
}
static PyObject *mx_mm(mx_bag *b, PyObject *x, PyObject *y) {
    return x && y ? mk(b, tn_at_bmm(x, y)) : NULL;
}
/* I + A sum or stack-and-sum (upstream's As.sum(0)) */
static PyObject *mx_sum0(mx_bag *b, PyObject *const *in, int n) {
    PyObject *lst = PyList_New(n);
    if (!lst) return NULL;
    for (int i = 0; i < n; i++) PyList_SetItem(lst, i, Py_NewRef(in[i]));
    PyObject *st = mk(b, tn_at_stack(TN_TPY(lst), 0));
    Py_DECREF(lst);
    return st ? mk(b, tn_at_sum_dim_IntList(st, TN_IS(0), false, NULL)) : NULL;
}

/* powers {I, A, A^2, A^3, A^6}[0:k] of a batch A (b, n, n) */
static int mx_powers(mx_bag *b, PyObject *A, int k, PyObject **P) {
    PyObject *I = mk(b, tn_at_zeros_like(A, NULL, NULL, NULL, NULL, NULL));
    PyObject *d = I ? mk(b, tn_at_diagonal(I, 0, -2, -1)) : NULL;
    if (!d || !mk(b, tn_at_fill__Scalar(d, TN_SI(1)))) return -1;
    P[0] = I;
    P[1] = A;
    if (k > 2 && !(P[2] = mx_mm(b, A, A))) return -1;
    if (k > 3 && !(P[3] = mx_mm(b, A, P[2]))) return -1;
    if (k > 4 && !(P[4] = mx_mm(b, P[3], P[3]))) return -1;
    return 0;
}

static PyObject *mx_T1(mx_bag *b, PyObject *A) {
    PyObject *P[2];
    return mx_powers(b, A, 2, P) < 0 ? NULL : mx_sum0(b, P, 2);
}
static PyObject *mx_T2(mx_bag *b, PyObject *A) {
    PyObject *P[3];
    if (mx_powers(b, A, 3, P) < 0) return NULL;
    if (!(P[2] = mk(b, tn_at_div_Tensor(P[2], mx_num(b, 2.0))))) return NULL;
    return mx_sum0(b, P, 3);
}
static PyObject *mx_T4(mx_bag *b, PyObject *A, tn_dtype dt) {
    PyObject *P[4];
    if (mx_powers(b, A, 3, P) < 0) return NULL;
    const double c1[3] = {R(dt, 1 / 2.0), R(dt, 1 / 6.0), R(dt, 1 / 24.0)}, c2[4] = {1.0, 1.0, 0.0, 1.0};
    if (!(P[3] = mx_mm(b, P[2], mx_lincomb(b, P, 3, c1, 0, dt)))) return NULL;
    return mx_lincomb(b, P, 4, c2, 0, dt);
}
static PyObject *mx_T8(mx_bag *b, PyObject *A, tn_dtype dt) {
    /* upstream's constexpr scalar_t constants: each rounded to scalar_t where it is declared */
    const double s177 = R(dt, 0.1330413469565007072504e+2), x3 = R(dt, 2. / 3.);
    const double x1 = R(dt, x3 * ((1. + s177) / 88.)), x2 = R(dt, x3 * ((1. + s177) / 352.));
    const double x4 = R(dt, (-271. + 29. * s177) / (315. * x3)), x5 = R(dt, (-11. + 11. * s177) / (1260. * x3));
    const double x6 = R(dt, (-99. + 11. * s177) / (5040. * x3)), x7 = R(dt, (89. - s177) / (5040. * x3));
    const double y2 = R(dt, (857. - 58. * s177) / 630.);
    PyObject *P[5];
    if (mx_powers(b, A, 3, P) < 0) return NULL;
    const double ca[2] = {x1, x2}, cb[2] = {x3, 1.0}, cc[4] = {x4, x5, x6, x7}, cd[5] = {1.0, 1.0, y2, 0.0, 1.0};
    if (!(P[3] = mx_mm(b, P[2], mx_lincomb(b, P + 1, 2, ca, 0, dt)))) return NULL;
    if (!(P[4] = mx_mm(b, mx_lincomb(b, P + 2, 2, cb, 0, dt), mx_lincomb(b, P, 4, cc, 0, dt)))) return NULL;
    return mx_lincomb(b, P, 5, cd, 0, dt);
}
static const double mx_b12[16] = {
    9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740,
    5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989,
    0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230,
    -2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359};
static const double mx_b18[25] = {
    0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.,
    0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01, -6.37898194594723280150e-04,
    -1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02, -6.98210122488052056106e-03,
    3.34975017086070470649e-05,
    -9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02, 2.95552570429315521194e-02,
    -1.39180257516060693404e-05,
    0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05};
/* the coefficient table as scalar_t holds it (float-rounded for single precision) */
static void mx_table(const double *src, int n, tn_dtype dt, double *dst) {
    for (int i = 0; i < n; i++) dst[i] = R(dt, src[i]);
}
static PyObject *mx_T12(mx_bag *b, PyObject *A, tn_dtype dt) {
    double c[16];
    mx_table(mx_b12, 16, dt, c);
    PyObject *P[4], *B[4];
    if (mx_powers(b, A, 4, P) < 0) return NULL;
    for (int i = 0; i < 4; i++)
        if (!(B[i] = mx_lincomb(b, P, 4, c, 4 * i, dt))) return NULL;
    PyObject *a6 = mx_mm(b, B[3], B[3]);
    if (!a6 || !(B[2] = mk(b, tn_at_add_Tensor(B[2], a6, TN_SDEF)))) return NULL;
    PyObject *s = mk(b, tn_at_add_Tensor(B[1], B[2], TN_SDEF));
    PyObject *p = mx_mm(b, s, B[2]);
    return p ? mk(b, tn_at_add_Tensor(B[0], p, TN_SDEF)) : NULL;
}
static PyObject *mx_T18(mx_bag *b, PyObject *A, tn_dtype dt) {
    double c[25];
    mx_table(mx_b18, 25, dt, c);
    PyObject *P[5], *B[5];
    if (mx_powers(b, A, 5, P) < 0) return NULL;
    for (int i = 0; i < 5; i++)
        if (!(B[i] = mx_lincomb(b, P, 5, c, 5 * i, dt))) return NULL;
    PyObject *a9 = mx_mm(b, B[0], B[4]);
    if (!a9 || !(B[3] = mk(b, tn_at_add_Tensor(B[3], a9, TN_SDEF)))) return NULL;
    PyObject *s = mk(b, tn_at_add_Tensor(B[2], B[3], TN_SDEF));
    PyObject *p = mx_mm(b, s, B[3]);
    return p ? mk(b, tn_at_add_Tensor(B[1], p, TN_SDEF)) : NULL;
}

/* the values of a 1-d real tensor as doubles (malloc'd; NULL with an exception) */
static double *mx_values(PyObject *t, int64_t *n) {
    PyObject *d = tn_as_dtype(t, TN_DTYPE_F64, true);
    if (!d) return NULL;
    const tn_tensor *x = tn_tensor_of(d);
    *n = tn_numel(x);
    double *v = malloc((size_t)(*n ? *n : 1) * sizeof *v);
    if (!v) PyErr_NoMemory();
    else if (*n) memcpy(v, tn_data(x), (size_t)*n * sizeof *v);
    Py_DECREF(d);
    return v;
}

/* degree 18 after scaling by 2^-s, s = max(ceil(log2(norm / theta)), 0) per matrix, then each
 * result squared s times (matrices of equal s squared together, as upstream's batched loop) */
static PyObject *mx_scale_square(mx_bag *b, PyObject *A, PyObject *norm, double theta, tn_dtype dt) {
    PyObject *q = mk(b, tn_at_div_Tensor(norm, mx_num(b, theta)));
    PyObject *l = q ? mk(b, tn_at_log2(q)) : NULL;
    PyObject *c = l ? mk(b, tn_at_ceil(l)) : NULL;
    PyObject *s = c ? mk(b, tn_at_clamp_min(c, TN_SI(0))) : NULL;
    PyObject *ns = s ? mk(b, tn_at_neg(s)) : NULL;
    PyObject *p2 = ns ? mk(b, tn_at_pow_Scalar(TN_SI(2), ns)) : NULL;
    PyObject *pv = p2 ? mk(b, tn_at_view(p2, TN_IS(-1, 1, 1))) : NULL;
    PyObject *as = pv ? mk(b, tn_at_mul_Tensor(A, pv)) : NULL;
    PyObject *e = as ? mx_T18(b, as, dt) : NULL;
    if (!e) return NULL;
    int64_t nb;
    double *sv = mx_values(s, &nb);
    if (!sv) return NULL;
    /* upstream converts s to int64 after sorting: NaN / inf (a non-finite norm) become the
     * smallest int64, clamped to no squaring */
    int64_t *cnt = malloc((size_t)(nb ? nb : 1) * sizeof *cnt), *ord = malloc((size_t)(nb ? nb : 1) * sizeof *ord);
    if (!cnt || !ord) { free(sv); free(cnt); free(ord); PyErr_NoMemory(); return NULL; }
    int64_t top = 0;
    for (int64_t i = 0; i < nb; i++) {
        cnt[i] = isfinite(sv[i]) ? (int64_t)sv[i] : 0;
        if (cnt[i] > top) top = cnt[i];
        ord[i] = i;
    }
    free(sv);
    PyObject *res = NULL;
    if (top == 0) { free(cnt); free(ord); return e; }
    /* stable order by squaring count (insertion sort: batches are small next to the products) */
    for (int64_t i = 1; i < nb; i++) {
        int64_t k = ord[i], j = i;
        while (j > 0 && cnt[ord[j - 1]] > cnt[k]) { ord[j] = ord[j - 1]; j--; }
        ord[j] = k;
    }
    bool sorted = true;
    for (int64_t i = 0; i < nb; i++) sorted = sorted && ord[i] == i;
    PyObject *idx = NULL, *inv = NULL, *acc = e;
    if (!sorted) {
        idx = mk(b, tn_tensor_new_empty(1, &nb, TN_DTYPE_I64, TN_DEVICE_CPU));
        inv = idx ? mk(b, tn_tensor_new_empty(1, &nb, TN_DTYPE_I64, TN_DEVICE_CPU)) : NULL;
        if (!inv) goto done;
        int64_t *pi = (int64_t *)tn_data(tn_tensor_of(idx)), *pv2 = (int64_t *)tn_data(tn_tensor_of(inv));
        for (int64_t i = 0; i < nb; i++) { pi[i] = ord[i]; pv2[ord[i]] = i; }
        if (!(acc = mk(b, tn_at_index_select(e, 0, idx)))) goto done;
    }
    int64_t start = 0;
    for (int64_t p = 1; p <= top; p++) {
        while (start < nb && cnt[ord[start]] < p) start++;
        PyObject *sub = mk(b, tn_at_narrow(acc, 0, (long long)start, (long long)(nb - start)));
        PyObject *sq = mx_mm(b, sub, sub);
        if (!sq || tn_copy_into(sub, sq) < 0) goto done;
    }
    res = sorted ? acc : mk(b, tn_at_index_select(acc, 0, inv));
done:
    free(cnt);
    free(ord);
    return res;
}

static const double mx_theta_f[6] = {1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                                     5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00};
static const double mx_theta_d[6] = {2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                                     4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00};

/* a threshold as the norm tensor's dtype holds it when compared (a wrapped scalar) */
static double mx_as(double x, tn_dtype dt) {
    if (dt == TN_DTYPE_F32) return (double)(float)x;
    if (dt == TN_DTYPE_BF16) return (double)tn_bf16_to_f32(tn_f32_to_bf16((float)x));
    if (dt == TN_DTYPE_F16) return (double)tn_f16_to_f32(tn_f32_to_f16((float)x));
    return x;
}

/* mexp of a (b, n, n) batch */
static PyObject *mx_batch(mx_bag *b, PyObject *A3, tn_dtype dt) {
    const double *th = mx_single(dt) ? mx_theta_f : mx_theta_d;
    double theta[6];
    mx_table(th, 6, dt, theta);
    PyObject *ab = mk(b, tn_at_abs(A3));
    PyObject *cs = ab ? mk(b, tn_at_sum_dim_IntList(ab, TN_IS(-2), false, NULL)) : NULL;
    PyObject *mx = cs ? mk(b, tn_at_max_dim(cs, -1, false)) : NULL;
    PyObject *norm = mx ? PyTuple_GetItem(mx, 0) : NULL;
    if (!norm) return NULL;
    const tn_tensor *a = tn_tensor_of(A3);
    if (a->sizes[0] > 1) return mx_scale_square(b, A3, norm, theta[5], dt);
    if (a->sizes[0] == 0) return mk(b, tn_at_clone(A3, NULL));
    int64_t one;
    double *nv = mx_values(norm, &one);
    if (!nv) return NULL;
    double v = *nv;
    free(nv);
    tn_dtype ndt = tn_tensor_of(norm)->dtype;
    if (v >= mx_as(theta[4], ndt)) return mx_scale_square(b, A3, norm, theta[5], dt);
    for (int i = 0; i < 5; i++) {
        double lo = i == 0 ? -1.0 : mx_as(theta[i - 1], ndt), hi = mx_as(theta[i], ndt);
        if (lo < v && v <= hi) {
            switch (i) {
            case 0: return mx_T1(b, A3);
            case 1: return mx_T2(b, A3);
            case 2: return mx_T4(b, A3, dt);
            case 3: return mx_T8(b, A3, dt);
            default: return mx_T12(b, A3, dt);
            }
        }
    }
    /* a NaN norm: upstream's result stays the NaN it was filled with */
    return mk(b, tn_at_full_like(A3, TN_SD(NAN), NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous));
}

PyObject *tn_op_linalg_matrix_exp(tn_value *a) {
    const char *api = "linalg.matrix_exp";
    PyObject *x = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(x);
    if (t->ndim < 2) {
        PyErr_Format(PyExc_RuntimeError, "%s: The input tensor A must have at least 2 dimensions.", api);
        return NULL;
    }
    int64_t n = t->sizes[t->ndim - 1];
    if (n != t->sizes[t->ndim - 2]) {
        PyErr_Format(PyExc_RuntimeError, "%s: A must be batches of square matrices, but they are %lld by %lld matrices",
                     api, (long long)t->sizes[t->ndim - 2], (long long)n);
        return NULL;
    }
    tn_dtype dt = t->dtype;
    if (!tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt)) {
        PyErr_Format(PyExc_RuntimeError, "%s: Expected a floating point or complex tensor as input. Got %s", api,
                     tn_dtype_cpp_name(dt));
        return NULL;
    }
    if (tn_require_computable("linalg_matrix_exp", dt) < 0) return NULL;
    if (n == 0) return tn_at_clone(x, NULL);
    if (n == 1) return tn_at_exp(x);
    mx_bag b = MX_BAG;
    /* upstream views the batch as one dimension (a view error when the batch dimensions cannot
     * merge) and computes in contiguous buffers */
    PyObject *A3v = mk(&b, tn_at_view(x, TN_IS(-1LL, (long long)n, (long long)n)));
    PyObject *A3 = A3v ? mk(&b, tn_at_contiguous(A3v, NULL)) : NULL;
    PyObject *r = A3 ? mx_batch(&b, A3, dt) : NULL;
    PyObject *res = r ? tn_at__unsafe_view(r, TN_IN(t->sizes, t->ndim)) : NULL;   /* not a view, as upstream's */
    mx_drop(&b);
    return res;
}
PyObject *tn_op_linalg_matrix_exp_out(tn_value *a) {
    PyObject *r = tn_op_linalg_matrix_exp(a);
    return r ? tn_out_deliver(r, a[1].u.obj, "linalg_matrix_exp") : NULL;
}
/* matrix_exp: the alias (autograd/decomp.c runs it as linalg_matrix_exp) */
PyObject *tn_op_matrix_exp(tn_value *a) { return tn_door_call(TN_ROW_linalg_matrix_exp, a); }

/* upstream's differential of an analytic matrix function f at A applied to G (FunctionsManual's
 * differential_analytic_matrix_function): f([[B, G], [0, B]]) top-right block, B = A^H for the
 * adjoint (backward), A itself for the differential (forward) */
PyObject *tn_matrix_exp_differential(PyObject *self, PyObject *grad, bool adjoint) {
    mx_bag b = MX_BAG;
    const tn_tensor *t = tn_tensor_of(self);
    int nd = t->ndim;
    int64_t n = t->sizes[nd - 1], sz[TN_MAX_DIMS];
    PyObject *res = NULL, *A = self;
    if (adjoint) {
        PyObject *tr = mk(&b, tn_at_transpose_int(self, -2, -1));
        if (!tr || !(A = mk(&b, tn_at_conj(tr)))) goto done;
    }
    memcpy(sz, t->sizes, (size_t)nd * sizeof *sz);
    sz[nd - 2] *= 2;
    sz[nd - 1] *= 2;
    {
        PyObject *M = mk(&b, tn_at_new_zeros(grad, TN_IN(sz, nd), NULL, NULL, NULL, NULL));
        if (!M) goto done;
        const long long o[3][2] = {{0, 0}, {n, n}, {0, n}};
        for (int k = 0; k < 3; k++) {
            PyObject *r1 = mk(&b, tn_at_narrow(M, -2, o[k][0], (long long)n));
            PyObject *blk = r1 ? mk(&b, tn_at_narrow(r1, -1, o[k][1], (long long)n)) : NULL;
            if (!blk || !mk(&b, tn_at_copy_(blk, k < 2 ? A : grad, false))) goto done;
        }
        PyObject *E = mk(&b, tn_at_linalg_matrix_exp(M));
        PyObject *top = E ? mk(&b, tn_at_narrow(E, -2, 0LL, (long long)n)) : NULL;
        res = top ? tn_at_narrow(top, -1, (long long)n, (long long)n) : NULL;
    }
done:
    mx_drop(&b);
    return res;
}

/* matrix_exp_backward(self, grad): upstream's older spelling of the same adjoint */
PyObject *tn_op_matrix_exp_backward(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    if (t->ndim < 2) {
        PyErr_SetString(PyExc_RuntimeError, "matrix_exp_backward: The input tensor A must have at least 2 dimensions.");
        return NULL;
    }
    if (t->sizes[t->ndim - 1] != t->sizes[t->ndim - 2]) {
        PyErr_Format(PyExc_RuntimeError, "matrix_exp_backward: A must be batches of square matrices, but they are %lld by %lld matrices",
                     (long long)t->sizes[t->ndim - 2], (long long)t->sizes[t->ndim - 1]);
        return NULL;
    }
    return tn_matrix_exp_differential(a[0].u.obj, a[1].u.obj, true);
}
