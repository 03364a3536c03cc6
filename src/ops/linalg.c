/* ops/linalg.c — matrix products: mm, bmm, addmm, baddbmm, matmul, linear, mv, dot.
 *
 * Every product reduces to batched 2-D GEMMs on operands whose last dimension is contiguous, in
 * the compute type: f32, f64, i64 for integral types; bf16 and f16 stay 16-bit in memory (never a
 * widened copy) and accumulate in f32 inside their kernels (kernels/gemm_lp.h), rounded once to the
 * output, beta * C included, as upstream's oneDNN. */
#include "ops/common.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"
#include "kernels/gemm.h"
#include "kernels/gemm_lp.h"

#include <stdlib.h>

static tn_dtype compute_type(tn_dtype d) {
    if (d == TN_DTYPE_F64 || d == TN_DTYPE_BF16 || d == TN_DTYPE_F16 || tn_dtype_is_complex(d)) return d;
    if (tn_dtype_is_floating(d)) return TN_DTYPE_F32;
    return TN_DTYPE_I64;
}

static int same_dtype(const char *a, const char *b, tn_tensor *x, tn_tensor *y) {
    if (x->dtype == y->dtype) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected %s and %s to have the same dtype, but got: %s != %s", a, b,
                 tn_dtype_cxx_name(x->dtype), tn_dtype_cxx_name(y->dtype));
    return -1;
}

/* bmm's kernel reads batch2 as batch1's type: upstream's data_ptr check words the mismatch */
static int bmm_dtype(tn_tensor *x, tn_tensor *y) {
    if (x->dtype == y->dtype) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(x->dtype),
                 tn_dtype_cpp_name(y->dtype));
    return -1;
}

/* A contiguous copy (or the tensor itself) of `t` viewed with `nd` dims `sizes`/`strides`. */
static PyObject *contig_view(PyObject *t, int nd, const int64_t *sizes, const int64_t *strides, tn_dtype ct) {
    PyObject *v = tn_tensor_new_view(t, nd, sizes, strides, tn_tensor_of(t)->offset);
    if (!v) return NULL;
    PyObject *c = tn_as_dtype(v, ct, true);
    Py_DECREF(v);
    return c;
}

/* Scratch for the f32 kernels (NULL when none is needed); NULL with MemoryError set on failure
 * is told apart by *ok. */
static float *gemm_scratch(size_t bytes, bool *ok) {
    *ok = true;
    if (!bytes) return NULL;
    float *p = malloc(bytes);
    if (!p) {
        PyErr_NoMemory();
        *ok = false;
    }
    return p;
}

/* out[b] = beta*out[b] + alpha*A[b]@B[b] over a batch: A (batch,M,K) B (batch,K,N) contiguous in ct,
 * acc (batch,M,N) contiguous in ct. */
/* A Scalar alpha / beta: complex for complex products (addbmm's samples pass 2+3j) */
typedef struct { double v[2]; } cnum;
static const cnum C0 = {{0, 0}}, C1 = {{1, 0}};
static cnum cnum_of(const tn_value *v) {
    cnum c = {{0, 0}};
    if (v->tag == TN_V_COMPLEX) { c.v[0] = v->u.c.re; c.v[1] = v->u.c.im; }
    else c.v[0] = tn_value_as_double(v);
    return c;
}

static int gemm_batch(tn_dtype ct, int64_t batch, int64_t M, int64_t N, int64_t K, cnum calpha,
                      PyObject *A, PyObject *B, cnum cbeta, PyObject *acc) {
    double alpha = calpha.v[0], beta = cbeta.v[0];
    char *a = tn_data(tn_tensor_of(A)), *b = tn_data(tn_tensor_of(B)), *c = tn_data(tn_tensor_of(acc));
    int isz = tn_dtype_itemsize(ct);
    bool ok;
    const bool lp = ct == TN_DTYPE_BF16 || ct == TN_DTYPE_F16;
    const tn_lp_type lt = ct == TN_DTYPE_BF16 ? TN_LP_BF16 : TN_LP_F16;
    float *scratch = gemm_scratch(ct == TN_DTYPE_F32 ? tn_gemm_f32_scratch(M, N, K)
                                  : lp             ? tn_gemm_lp_scratch(lt, false, M, N, K) : 0, &ok);
    if (!ok) return -1;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t i = 0; i < batch; i++) {
        char *ai = a + i * M * K * isz, *bi = b + i * K * N * isz, *ci = c + i * M * N * isz;
        if (lp) tn_gemm_lp(lt, false, M, N, K, (float)alpha, (const uint16_t *)ai, K, (const uint16_t *)bi, N, (float)beta, (uint16_t *)ci, N, scratch);
        else if (ct == TN_DTYPE_F32) tn_gemm_f32(M, N, K, (float)alpha, (float *)ai, K, (float *)bi, N, (float)beta, (float *)ci, N, scratch);
        else if (ct == TN_DTYPE_F64) tn_gemm_f64(M, N, K, alpha, (double *)ai, K, (double *)bi, N, beta, (double *)ci, N);
        else if (ct == TN_DTYPE_C64) tn_gemm_c64(M, N, K, calpha.v, (float *)ai, K, (float *)bi, N, cbeta.v, (float *)ci, N);
        else if (ct == TN_DTYPE_C128) tn_gemm_c128(M, N, K, calpha.v, (double *)ai, K, (double *)bi, N, cbeta.v, (double *)ci, N);
        else tn_gemm_i64(M, N, K, (int64_t)alpha, (int64_t *)ai, K, (int64_t *)bi, N, (int64_t)beta, (int64_t *)ci, N);
    }
    Py_END_ALLOW_THREADS
    free(scratch);
    return 0;
}

/* General product of a (..., M, K) and b (..., K, N) with broadcast batch dims; `bias` (or NULL)
 * broadcast to the result and scaled by beta. Returns a new tensor of the input dtype. */
static PyObject *product(PyObject *a, PyObject *b, PyObject *bias, cnum cbeta, cnum calpha,
                         int nb_a, int nb_b) {
    double beta = cbeta.v[0], alpha = calpha.v[0];
    tn_tensor *x = tn_tensor_of(a), *y = tn_tensor_of(b);
    tn_dtype dt = x->dtype, ct = compute_type(dt);
    /* float8 (but e8m0fnu): upstream's mm / addmm products are float sums of exact float products,
     * rounded once into the format (here in float32: the same bits while the sum is exact there) */
    bool f8 = tn_dtype_infos[dt].kind == TN_KIND_FLOAT8;
    if (dt == TN_DTYPE_F8E8M0FNU && tn_numel(x) && tn_numel(y)) return tn_kernel_missing("addmm_impl_cpu_", dt);
    if (!f8 && tn_require_computable("mm", dt) < 0) return NULL;
    int64_t M = x->sizes[x->ndim - 2], K = x->sizes[x->ndim - 1], N = y->sizes[y->ndim - 1];
    int nbatch;
    int64_t batch[TN_MAX_DIMS];
    if (tn_broadcast_shapes_checked(nb_a, x->sizes, nb_b, y->sizes, &nbatch, batch) < 0) return NULL;
    int64_t nbat = 1;
    for (int i = 0; i < nbatch; i++) nbat *= batch[i];
    int64_t sa[TN_MAX_DIMS], sb[TN_MAX_DIMS], za[TN_MAX_DIMS], zb[TN_MAX_DIMS];
    for (int i = 0; i < nbatch; i++) {
        int ia = i - (nbatch - nb_a), ib = i - (nbatch - nb_b);
        za[i] = zb[i] = batch[i];
        sa[i] = (ia < 0 || x->sizes[ia] == 1) ? 0 : x->strides[ia];
        sb[i] = (ib < 0 || y->sizes[ib] == 1) ? 0 : y->strides[ib];
    }
    za[nbatch] = M; za[nbatch + 1] = K; sa[nbatch] = x->strides[x->ndim - 2]; sa[nbatch + 1] = x->strides[x->ndim - 1];
    zb[nbatch] = K; zb[nbatch + 1] = N; sb[nbatch] = y->strides[y->ndim - 2]; sb[nbatch + 1] = y->strides[y->ndim - 1];
    /* nn.Linear's layout: B is the transpose of a contiguous (N,K) matrix shared by every batch
     * entry. Its kernel reads it in place (no transposed copy of the weight), with the same
     * per-output FMA chains, so the result is identical. */
    const bool lp = ct == TN_DTYPE_BF16 || ct == TN_DTYPE_F16;
    const tn_lp_type lt = ct == TN_DTYPE_BF16 ? TN_LP_BF16 : TN_LP_F16;
    bool nt = ct == dt && (ct == TN_DTYPE_F32 || ct == TN_DTYPE_F64 || lp) && N > 1 && K > 1 &&
              sb[nbatch] == 1 && sb[nbatch + 1] == K;
    for (int i = 0; i < nbatch && nt; i++) nt = sb[i] == 0;
    PyObject *A = contig_view(a, nbatch + 2, za, sa, ct);
    PyObject *B = A ? (nt ? Py_NewRef(b) : contig_view(b, nbatch + 2, zb, sb, ct)) : NULL;
    int64_t zc[TN_MAX_DIMS];
    memcpy(zc, batch, (size_t)nbatch * sizeof *zc);
    zc[nbatch] = M; zc[nbatch + 1] = N;
    PyObject *acc = B ? tn_tensor_new_empty(nbatch + 2, zc, ct, TN_DEVICE_CPU) : NULL, *res = NULL;
    if (!acc) goto done;
    if (bias && (beta != 0 || cbeta.v[1] != 0)) {
        if (tn_copy_into(acc, bias) < 0) goto done;
    } else {
        beta = 0;
        cbeta = C0;
    }
    if (nt) {
        const char *w = tn_data(y), *ad = tn_data(tn_tensor_of(A));
        char *cd = tn_data(tn_tensor_of(acc));
        int64_t rows = nbat * M;
        bool ok;
        float *scratch = gemm_scratch(ct == TN_DTYPE_F32 ? tn_gemm_nt_f32_scratch(rows, N, K)
                                      : lp             ? tn_gemm_lp_scratch(lt, true, rows, N, K) : 0, &ok);
        if (!ok) goto done;
        Py_BEGIN_ALLOW_THREADS
        if (lp) tn_gemm_lp(lt, true, rows, N, K, (float)alpha, (const uint16_t *)ad, K, (const uint16_t *)w, K, (float)beta, (uint16_t *)cd, N, scratch);
        else if (ct == TN_DTYPE_F32) tn_gemm_nt_f32(rows, N, K, (float)alpha, (const float *)ad, K, (const float *)w, K, (float)beta, (float *)cd, N, scratch);
        else tn_gemm_nt_f64(rows, N, K, alpha, (const double *)ad, K, (const double *)w, K, beta, (double *)cd, N);
        Py_END_ALLOW_THREADS
        free(scratch);
    } else if (gemm_batch(ct, nbat, M, N, K, (cnum){{alpha, calpha.v[1]}}, A, B, (cnum){{beta, cbeta.v[1]}}, acc) < 0) {
        goto done;
    }
    res = ct == dt ? Py_NewRef(acc) : tn_as_dtype(acc, dt, false);
done:
    Py_XDECREF(A);
    Py_XDECREF(B);
    Py_XDECREF(acc);
    return res;
}

/* out= given as an optional schema value (None or a tensor). */
static PyObject *finish(PyObject *res, const tn_value *out) {
    PyObject *o = out && out->tag == TN_V_TENSOR ? out->u.obj : NULL;
    /* structured mm / bmm / addmm / addmv: out= has the result's dtype exactly */
    if (res && o && tn_out_dtype_exact(o, tn_tensor_of(res)->dtype) < 0) { Py_DECREF(res); return NULL; }
    return tn_out_deliver(res, o, "mm");
}

static int need_dim(tn_tensor *t, int nd, const char *what) {
    if (t->ndim == nd) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s must be a %s", what, nd == 2 ? "matrix" : "batch1");
    return -1;
}

static PyObject *mm(tn_value *args, tn_value *out) {
    tn_tensor *x = TN_T(args[0]), *y = TN_T(args[1]);
    if (need_dim(x, 2, "self") < 0 || need_dim(y, 2, "mat2") < 0) return NULL;
    if (x->sizes[1] != y->sizes[0]) {
        PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)x->sizes[0], (long long)x->sizes[1], (long long)y->sizes[0], (long long)y->sizes[1]);
        return NULL;
    }
    if (same_dtype("m1", "m2", x, y) < 0) return NULL;
    if (out && out->tag == TN_V_TENSOR && tn_out_dtype_exact(out->u.obj, x->dtype) < 0) return NULL; /* meta's check, before the kernel */
    return finish(product(args[0].u.obj, args[1].u.obj, NULL, C0, C1, 0, 0), out);
}
PyObject *tn_op_mm(tn_value *a) { return mm(a, NULL); }
PyObject *tn_op_mm_out(tn_value *a) { return mm(a, &a[2]); }

static PyObject *bmm(tn_value *args, tn_value *out) {
    tn_tensor *x = TN_T(args[0]), *y = TN_T(args[1]);
    if (x->ndim != 3 || y->ndim != 3) {
        PyErr_SetString(PyExc_RuntimeError, x->ndim != 3 ? "batch1 must be a 3D tensor" : "batch2 must be a 3D tensor");
        return NULL;
    }
    if (x->sizes[0] != y->sizes[0] || x->sizes[2] != y->sizes[1]) {
        PyErr_Format(PyExc_RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                     (long long)x->sizes[0], (long long)x->sizes[2], (long long)y->sizes[0], (long long)y->sizes[1]);
        return NULL;
    }
    if (bmm_dtype(x, y) < 0) return NULL;
    if (tn_dtype_infos[x->dtype].kind == TN_KIND_FLOAT8) return tn_kernel_missing("baddbmm_with_gemm", x->dtype); /* none upstream */
    return finish(product(args[0].u.obj, args[1].u.obj, NULL, C0, C1, 1, 1), out);
}
PyObject *tn_op_bmm(tn_value *a) { return bmm(a, NULL); }
PyObject *tn_op_bmm_out(tn_value *a) { return bmm(a, &a[2]); }

/* addmm(self, mat1, mat2, beta, alpha) / baddbmm(self, batch1, batch2, beta, alpha) */
static PyObject *addmm_like(tn_value *args, tn_value *out, bool inplace, int nbatch) {
    tn_tensor *x = TN_T(args[1]), *y = TN_T(args[2]);
    if (nbatch == 0) {
        if (need_dim(x, 2, "mat1") < 0 || need_dim(y, 2, "mat2") < 0) return NULL;
        if (x->sizes[1] != y->sizes[0]) {
            PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                         (long long)x->sizes[0], (long long)x->sizes[1], (long long)y->sizes[0], (long long)y->sizes[1]);
            return NULL;
        }
    } else if (tn_size_read(x, 0) < 0 || tn_size_read(x, 1) < 0 || tn_size_read(y, 2) < 0) {
        return NULL;   /* upstream's meta expands self to (batch1.size(0), batch1.size(1), batch2.size(2)) first */
    } else if (x->ndim != 3 || y->ndim != 3 || x->sizes[0] != y->sizes[0] || x->sizes[2] != y->sizes[1]) {
        PyErr_SetString(PyExc_RuntimeError, "batch1 and batch2 shapes cannot be multiplied");
        return NULL;
    }
    if (same_dtype("mat1", "mat2", x, y) < 0 || same_dtype("self", "mat2", TN_T(args[0]), y) < 0) return NULL;
    if (nbatch && tn_dtype_infos[x->dtype].kind == TN_KIND_FLOAT8) return tn_kernel_missing("baddbmm_with_gemm", x->dtype);
    if (!nbatch && !inplace && !out && !tn_door_on_meta()) {
        /* upstream's CPU kernel expands self to the product's (n, m) first: its errors (its meta
         * function broadcasts instead; its out= form resizes out before) */
        int64_t nm[2] = {x->sizes[0], y->sizes[1]};
        PyObject *e = tn_at_expand(args[0].u.obj, TN_IN(nm, 2), false);
        if (!e) return NULL;
        Py_DECREF(e);
    }
    cnum beta = cnum_of(&args[3]), alpha = cnum_of(&args[4]);
    if (!tn_dtype_is_complex(x->dtype)) beta.v[1] = alpha.v[1] = 0;
    PyObject *res = product(args[1].u.obj, args[2].u.obj, args[0].u.obj, beta, alpha, nbatch, nbatch);
    if (!res) return NULL;
    if (inplace) {
        int r = tn_copy_into(args[0].u.obj, res);
        Py_DECREF(res);
        return r < 0 ? NULL : Py_NewRef(args[0].u.obj);
    }
    return finish(res, out);
}
PyObject *tn_op_addmm(tn_value *a) { return addmm_like(a, NULL, false, 0); }
PyObject *tn_op_addmm_out(tn_value *a) { return addmm_like(a, &a[5], false, 0); }
PyObject *tn_op_addmm_(tn_value *a) { return addmm_like(a, NULL, true, 0); }
PyObject *tn_op_baddbmm(tn_value *a) { return addmm_like(a, NULL, false, 1); }
PyObject *tn_op_baddbmm_out(tn_value *a) { return addmm_like(a, &a[5], false, 1); }
PyObject *tn_op_baddbmm_(tn_value *a) { return addmm_like(a, NULL, true, 1); }

/* upstream's should_fold (no out=): whether matmul folds the larger operand's batch into mm / mv
 * rows instead of a bmm (transposed when t2 is the larger: t2.mT() folded against t1) */
bool tn_matmul_should_fold(PyObject *t1, PyObject *t2) {
    const tn_tensor *a = tn_tensor_of(t1), *b = tn_tensor_of(t2);
    const bool t1_larger = a->ndim >= b->ndim;
    const tn_tensor *big = t1_larger ? a : b;
    const int dsmall = t1_larger ? b->ndim : a->ndim;
    if (!(big->ndim >= 3 && dsmall <= 2)) return false;
    if (tn_requires_grad(t1_larger ? t2 : t1)) return true;
    if (a->ndim == 2) return false;
    if (tn_numel(big) == 0) return true;
    /* big, transposed in its last two dims when it is t2: its leading dims must view as one */
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    memcpy(sz, big->sizes, sizeof(int64_t) * (size_t)big->ndim);
    memcpy(st, big->strides, sizeof(int64_t) * (size_t)big->ndim);
    if (!t1_larger) {
        int n = big->ndim;
        int64_t t = sz[n - 1]; sz[n - 1] = sz[n - 2]; sz[n - 2] = t;
        t = st[n - 1]; st[n - 1] = st[n - 2]; st[n - 2] = t;
    }
    for (int i = 0; i < big->ndim - 2; i++)
        if (st[i] != st[i + 1] * sz[i + 1]) return false;
    return true;
}

/* upstream's error for matmul operands (>= 3-d on one side) whose contraction sizes differ: the
 * mm / mv of the fold, or the bmm of the broadcast batch */
static void matmul_mismatch(PyObject *t1, PyObject *t2) {
    const tn_tensor *x = tn_tensor_of(t1), *y = tn_tensor_of(t2);
    const int d1 = x->ndim, d2 = y->ndim;
    if (tn_matmul_should_fold(t1, t2)) {
        const bool tr = d2 > d1;
        const tn_tensor *big = tr ? y : x, *small = tr ? x : y;
        int64_t rows = 1;
        for (int i = 0; i < big->ndim - 2; i++) rows *= big->sizes[i];
        rows *= tr ? big->sizes[big->ndim - 1] : big->sizes[big->ndim - 2];
        const int64_t cols = tr ? big->sizes[big->ndim - 2] : big->sizes[big->ndim - 1];
        if (small->ndim == 1)
            PyErr_Format(PyExc_RuntimeError, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)", (long long)rows,
                         (long long)rows, (long long)cols, (long long)small->sizes[0]);
        else /* small (or its transpose when folding t2) as mat2 */
            PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)rows,
                         (long long)cols, (long long)small->sizes[tr ? 1 : 0], (long long)small->sizes[tr ? 0 : 1]);
        return;
    }
    int nb;
    int64_t batch[TN_MAX_DIMS], bp = 1;
    if (!tn_broadcast_shapes(d1 > 2 ? d1 - 2 : 0, x->sizes, d2 > 2 ? d2 - 2 : 0, y->sizes, &nb, batch)) {
        PyErr_SetString(PyExc_RuntimeError, "matmul: batch dimensions are not broadcastable");
        return;
    }
    for (int i = 0; i < nb; i++) bp *= batch[i];
    PyErr_Format(PyExc_RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                 (long long)bp, (long long)x->sizes[d1 - 1], (long long)bp, (long long)y->sizes[d2 > 1 ? d2 - 2 : 0]);
}

/* matmul: 1-D operands get a dimension prepended (left) / appended (right), removed after. */
static PyObject *matmul(PyObject *a, PyObject *b) {
    tn_tensor *x = tn_tensor_of(a), *y = tn_tensor_of(b);
    if (x->ndim == 0 || y->ndim == 0) {
        PyErr_Format(PyExc_RuntimeError, "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                     x->ndim, y->ndim);
        return NULL;
    }
    /* a >= 3-d product upstream does not fold into mm / mv is its bmm (whose words), else mm's */
    if ((x->ndim >= 3 || y->ndim >= 3) && !tn_matmul_should_fold(a, b) ? bmm_dtype(x, y) < 0 : same_dtype("m1", "m2", x, y) < 0)
        return NULL;
    if (tn_dtype_infos[x->dtype].kind == TN_KIND_FLOAT8) { /* upstream's float8 kernels: mm / addmm only */
        if (x->ndim == 1 && y->ndim == 1) return tn_kernel_missing("dot", x->dtype);
        if (y->ndim == 1) return tn_kernel_missing("addmv_impl_cpu", x->dtype);
        if ((x->ndim >= 3 || y->ndim >= 3) && !tn_matmul_should_fold(a, b))
            return tn_kernel_missing("baddbmm_with_gemm", x->dtype);
    }
    int64_t xs[TN_MAX_DIMS], xst[TN_MAX_DIMS], ys[TN_MAX_DIMS], yst[TN_MAX_DIMS];
    int xn = x->ndim, yn = y->ndim;
    memcpy(xs, x->sizes, sizeof(int64_t) * (size_t)xn); memcpy(xst, x->strides, sizeof(int64_t) * (size_t)xn);
    memcpy(ys, y->sizes, sizeof(int64_t) * (size_t)yn); memcpy(yst, y->strides, sizeof(int64_t) * (size_t)yn);
    if (xn == 1) { xs[1] = xs[0]; xst[1] = xst[0]; xs[0] = 1; xst[0] = 0; xn = 2; }
    if (yn == 1) { ys[1] = 1; yst[1] = 0; yn = 2; }
    if (xs[xn - 1] != ys[yn - 2]) {
        if (x->ndim == 1 && y->ndim == 1)
            PyErr_Format(PyExc_RuntimeError, "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                         (long long)x->sizes[0], (long long)y->sizes[0], (long long)x->sizes[0], (long long)y->sizes[0]);
        else if (x->ndim <= 2 && y->ndim == 1)
            PyErr_Format(PyExc_RuntimeError, "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)", (long long)xs[xn - 2],
                         (long long)xs[xn - 2], (long long)xs[xn - 1], (long long)ys[yn - 2]);
        else if (x->ndim <= 2 && y->ndim <= 2)
            PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                         (long long)xs[xn - 2], (long long)xs[xn - 1], (long long)ys[yn - 2], (long long)ys[yn - 1]);
        else
            matmul_mismatch(a, b);
        return NULL;
    }
    PyObject *xa = tn_tensor_new_view(a, xn, xs, xst, x->offset), *yb = xa ? tn_tensor_new_view(b, yn, ys, yst, y->offset) : NULL;
    PyObject *r = yb ? product(xa, yb, NULL, C0, C1, xn - 2, yn - 2) : NULL;
    Py_XDECREF(xa);
    Py_XDECREF(yb);
    if (!r) return NULL;
    /* drop the added dimensions */
    tn_tensor *rt = tn_tensor_of(r);
    if (y->ndim == 1) { rt->ndim--; }
    if (x->ndim == 1) {
        int d = rt->ndim - (y->ndim == 1 ? 1 : 2);
        for (int i = d; i < rt->ndim - 1; i++) { rt->sizes[i] = rt->sizes[i + 1]; }
        rt->ndim--;
    }
    tn_contiguous_strides(rt->ndim, rt->sizes, rt->strides);
    return r;
}
PyObject *tn_op_matmul(tn_value *a) { return matmul(a[0].u.obj, a[1].u.obj); }
PyObject *tn_op_matmul_out(tn_value *a) { return finish(matmul(a[0].u.obj, a[1].u.obj), &a[2]); }

static PyObject *mv_dot(tn_value *a, tn_value *out, int xd, int yd, const char *name) {
    tn_tensor *x = TN_T(a[0]), *y = TN_T(a[1]);
    /* mv allocates its result of self.size(0) first (IndexError for a 0-d self; measured, not on
     * meta, where upstream's Python meta checks the dims) */
    if (xd == 2 && x->ndim == 0 && !tn_door_on_meta()) {
        tn_size_read(x, 0);
        return NULL;
    }
    if (x->ndim != xd || y->ndim != yd) {
        if (xd == 1) PyErr_Format(PyExc_RuntimeError, "1D tensors expected, but got %dD and %dD tensors", x->ndim, y->ndim);
        else PyErr_Format(PyExc_RuntimeError, "vector + matrix @ vector expected, got 1, %d, %d", x->ndim, y->ndim);
        return NULL;
    }
    if (xd == 1 && x->dtype != y->dtype) {
        PyErr_Format(PyExc_RuntimeError, "%s : expected both vectors to have same dtype, but found %s and %s", name,
                     tn_dtype_infos[x->dtype].name, tn_dtype_infos[y->dtype].name);
        return NULL;
    }
    return finish(matmul(a[0].u.obj, a[1].u.obj), out);
}
PyObject *tn_op_mv(tn_value *a) { return mv_dot(a, NULL, 2, 1, "mv"); }
PyObject *tn_op_mv_out(tn_value *a) { return mv_dot(a, &a[2], 2, 1, "mv"); }
PyObject *tn_op_dot(tn_value *a) { return mv_dot(a, NULL, 1, 1, "dot"); }
PyObject *tn_op_dot_out(tn_value *a) { return mv_dot(a, &a[2], 1, 1, "dot"); }
/* vdot(x, y) = dot(x.conj(), y) (helper-opb): the conjugate view goes through the door, which
 * materialises it for dot */
static PyObject *vdot(tn_value *a, tn_value *out) {
    tn_tensor *x = TN_T(a[0]), *y = TN_T(a[1]);
    if (x->ndim != 1 || y->ndim != 1) {
        PyErr_Format(PyExc_RuntimeError, "1D tensors expected, but got %dD and %dD tensors", x->ndim, y->ndim);
        return NULL;
    }
    if (x->dtype != y->dtype) {
        PyErr_Format(PyExc_RuntimeError, "vdot : expected both vectors to have same dtype, but found %s and %s",
                     tn_dtype_infos[x->dtype].name, tn_dtype_infos[y->dtype].name);
        return NULL;
    }
    PyObject *c = tn_at_conj(a[0].u.obj);
    PyObject *r = c ? tn_at_dot(c, a[1].u.obj) : NULL;
    Py_XDECREF(c);
    return finish(r, out);
}
PyObject *tn_op_vdot(tn_value *a) { return vdot(a, NULL); }
PyObject *tn_op_vdot_out(tn_value *a) { return vdot(a, &a[2]); }

/* addmm's checks where linear takes it (tn_linear_fused): the bias's dtype against the weight's, a
 * 1-D weight (mat2 is weight.t()), then the bias expanded to the result's 2-D size */
static int linear_addmm_checks(tn_value *a, bool out_form, PyObject *out) {
    tn_tensor *w = TN_T(a[1]), *x = TN_T(a[0]);
    tn_tensor *bt = a[2].tag == TN_V_TENSOR ? TN_T(a[2]) : NULL;
    if (!tn_linear_fused(x, bt, out_form))
        return 0;
    if (bt->dtype != w->dtype) {
        PyErr_Format(PyExc_RuntimeError, "self and mat2 must have the same dtype, but got %s and %s",
                     tn_dtype_cpp_name(bt->dtype), tn_dtype_cpp_name(w->dtype));
        return -1;
    }
    if (x->dtype != w->dtype) {
        PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 must have the same dtype, but got %s and %s",
                     tn_dtype_cpp_name(x->dtype), tn_dtype_cpp_name(w->dtype));
        return -1;
    }
    if (w->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "mat2 must be a matrix, got %d-D tensor", w->ndim);
        return -1;
    }
    int64_t rows = 1, K = x->sizes[x->ndim - 1];
    for (int i = 0; i < x->ndim - 1; i++) rows *= x->sizes[i];
    if (K != w->sizes[1]) {
        PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)rows, (long long)K, (long long)w->sizes[1], (long long)w->sizes[0]);
        return -1;
    }
    /* addmm_out's structured out= check comes before the bias is expanded */
    if (tn_out_dtype_exact(out, x->dtype) < 0) return -1;
    int64_t want[2] = {rows, w->sizes[0]};
    PyObject *e = tn_at_expand(a[2].u.obj, TN_IN(want, 2), false);
    if (!e) return -1;
    Py_DECREF(e);
    return 0;
}

/* upstream's weight.t() of a weight of more than 2 dims */
static PyObject *linear_t_error(const tn_tensor *w) {
    return PyErr_Format(PyExc_RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is %dD", w->ndim);
}
/* the 0-D refusal of linear ("linear") or of the matmul linear.out takes ("matmul") */
static PyObject *linear_0d_error(const char *op, const tn_tensor *x, const tn_tensor *w) {
    return PyErr_Format(PyExc_RuntimeError, "both arguments to %s need to be at least 1D, but they are %dD and %dD", op,
                        x->ndim, w->ndim);
}

/* linear(input, weight, bias): input @ weight.T + bias; upstream refuses a 0-D operand, then takes
 * weight.t() (at most 2 dims) -- measured, docs/breadth_more2.md "group nieok (session 39)" */
PyObject *tn_op_linear(tn_value *a) {
    tn_tensor *w = TN_T(a[1]), *x = TN_T(a[0]);
    if (x->ndim == 0 || w->ndim == 0) return linear_0d_error("linear", x, w);
    if (w->ndim > 2) return linear_t_error(w);
    if (linear_addmm_checks(a, false, NULL) < 0) return NULL;
    if (same_dtype("m1", "m2", x, w) < 0) return NULL;
    int64_t ws[2], wst[2];
    if (w->ndim == 2) { ws[0] = w->sizes[1]; ws[1] = w->sizes[0]; wst[0] = w->strides[1]; wst[1] = w->strides[0]; }
    PyObject *wt = w->ndim == 2 ? tn_tensor_new_view(a[1].u.obj, 2, ws, wst, w->offset) : Py_NewRef(a[1].u.obj);
    if (!wt) return NULL;
    /* bf16 / f16 with a bias, where upstream takes addmm (a 2-D input, or a 1-D or contiguous >= 3-D
     * one folded to 2-D): the bias joins the f32 sum before the one rounding (measured upstream:
     * rounding the product first and adding the bias in bf16 differs in ~25% of outputs). */
    tn_tensor *bt = a[2].tag == TN_V_TENSOR ? TN_T(a[2]) : NULL;
    /* (float8 too: upstream's addmm is its only float8 product with a bias) */
    if ((x->dtype == TN_DTYPE_BF16 || x->dtype == TN_DTYPE_F16 || tn_dtype_infos[x->dtype].kind == TN_KIND_FLOAT8) &&
        w->ndim == 2 && bt && bt->dtype == x->dtype &&
        bt->ndim == 1 && bt->sizes[0] == w->sizes[0] && x->sizes[x->ndim - 1] == w->sizes[1] &&
        (x->ndim == 2 || x->ndim == 1 || (x->ndim >= 3 && tn_is_contiguous(x)))) {
        int64_t K = w->sizes[1], N = w->sizes[0], rows = 1, xs[2], xst[2], os[TN_MAX_DIMS], ost[TN_MAX_DIMS];
        for (int i = 0; i < x->ndim - 1; i++) rows *= x->sizes[i];
        xs[0] = rows; xs[1] = K;
        xst[0] = x->ndim == 2 ? x->strides[0] : K; xst[1] = x->strides[x->ndim - 1];
        PyObject *x2 = tn_tensor_new_view(a[0].u.obj, 2, xs, xst, x->offset);
        PyObject *r2 = x2 ? product(x2, wt, a[2].u.obj, C1, C1, 0, 0) : NULL;
        Py_XDECREF(x2);
        Py_DECREF(wt);
        if (!r2 || x->ndim == 2) return r2;
        for (int i = 0; i < x->ndim - 1; i++) os[i] = x->sizes[i];
        os[x->ndim - 1] = N;
        tn_contiguous_strides(x->ndim, os, ost);
        PyObject *v = tn_tensor_new_view(r2, x->ndim, os, ost, tn_tensor_of(r2)->offset);
        Py_DECREF(r2);
        return v;
    }
    PyObject *r = matmul(a[0].u.obj, wt);
    Py_DECREF(wt);
    if (!r || !bt) return r;
    tn_value l = {.tag = TN_V_TENSOR}, bv = a[2];
    l.u.obj = r;
    bool fused = tn_linear_fused(x, bt, false);
    if (!fused || x->ndim == 2 || w->ndim != 2) {
        PyObject *s = tn_binary(TN_BINARY_ADD, "add", &l, &bv, NULL, !fused, NULL);
        Py_DECREF(r);
        return s;
    }
    /* addmm on the input folded to 2-D (the bias expanded to its (rows, N), checked above), returned
     * as a view of that 2-D result (so ._base is set) */
    tn_tensor *rt = tn_tensor_of(r);
    int nd = rt->ndim;
    int64_t sizes[TN_MAX_DIMS], strides[TN_MAX_DIMS], f[2] = {1, rt->sizes[nd - 1]}, fst[2];
    memcpy(sizes, rt->sizes, (size_t)nd * sizeof *sizes);
    tn_contiguous_strides(nd, sizes, strides);
    for (int i = 0; i < nd - 1; i++) f[0] *= sizes[i];
    tn_contiguous_strides(2, f, fst);
    PyObject *r2 = tn_is_contiguous(rt) ? tn_tensor_new_view(r, 2, f, fst, rt->offset) : NULL;
    Py_DECREF(r);
    if (!r2) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_SystemError, "linear: a non-contiguous product");
    l.u.obj = r2;
    PyObject *s = tn_binary(TN_BINARY_ADD, "add", &l, &bv, NULL, false, NULL);
    Py_DECREF(r2);
    if (!s) return NULL;
    PyObject *v = tn_tensor_new_view(s, nd, sizes, strides, tn_tensor_of(s)->offset);
    Py_DECREF(s);
    return v;
}
/* linear.out: addmm_out for a 2-D input with a bias; otherwise matmul_out, then out.add_(bias),
 * which refuses a bias that broadcasts the product to a larger shape (measured: "output with
 * shape [] doesn't match the broadcast shape [7]") */
PyObject *tn_op_linear_out(tn_value *a) {
    tn_tensor *w = TN_T(a[1]), *x = TN_T(a[0]);
    /* weight.t() first; no 0-D check of linear's own: addmm's (a 2-D input with a bias) or matmul's */
    if (w->ndim > 2) return linear_t_error(w);
    if ((x->ndim == 0 || w->ndim == 0) && !(x->ndim == 2 && a[2].tag == TN_V_TENSOR))
        return linear_0d_error("matmul", x, w);
    if (a[2].tag != TN_V_TENSOR || x->ndim == 2 || (w->ndim != 2 && w->ndim != 1)) {
        if (linear_addmm_checks(a, true, a[3].u.obj) < 0) return NULL;
        return finish(tn_op_linear(a), &a[3]);
    }
    tn_value b[3] = {a[0], a[1], {.tag = TN_V_NONE}};
    PyObject *r = tn_op_linear(b);
    if (!r) return NULL;
    tn_value l = {.tag = TN_V_TENSOR}, bv = a[2];
    l.u.obj = r;
    PyObject *s = tn_binary(TN_BINARY_ADD, "add", &l, &bv, NULL, true, NULL);
    Py_DECREF(r);
    return finish(s, &a[3]);
}

/* breadth family (helper-opb): upstream's composites outer / ger, linalg_vecdot, isreal, written as
 * the door calls they make (also their decompositions, autograd/decomp.c) */
PyObject *tn_op_outer(tn_value *a) {   /* self.reshape({self.size(0), 1}) * vec2 */
    const tn_tensor *x = tn_tensor_of(a[0].u.obj), *y = tn_tensor_of(a[1].u.obj);
    if (x->ndim != 1 || y->ndim != 1) {
        PyErr_Format(PyExc_RuntimeError, "outer: Expected 1-D argument %s, but got %d-D", x->ndim != 1 ? "self" : "vec2",
                     x->ndim != 1 ? x->ndim : y->ndim);
        return NULL;
    }
    PyObject *r = tn_at_reshape(a[0].u.obj, TN_IS((long long)x->sizes[0], 1));
    PyObject *m = r ? tn_at_mul_Tensor(r, a[1].u.obj) : NULL;
    Py_XDECREF(r);
    return m;
}
PyObject *tn_op_linalg_vecdot(tn_value *a) {   /* vdot for two vectors, else (x.conj() * y).sum(dim) */
    const tn_tensor *x = tn_tensor_of(a[0].u.obj), *y = tn_tensor_of(a[1].u.obj);
    if (x->dtype != y->dtype) {
        PyErr_Format(PyExc_RuntimeError, "linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead",
                     tn_dtype_infos[x->dtype].name, tn_dtype_infos[y->dtype].name);
        return NULL;
    }
    if (!tn_dtype_is_floating(x->dtype) && !tn_dtype_is_complex(x->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "linalg.vecdot: Expected a floating point or complex tensor as input. Got %s",
                     tn_dtype_infos[x->dtype].name);
        return NULL;
    }
    if (x->ndim == 1 && y->ndim == 1) return tn_at_vdot(a[0].u.obj, a[1].u.obj);   /* upstream: vdot */
    PyObject *c = tn_dtype_is_complex(x->dtype) ? tn_at_conj(a[0].u.obj) : Py_NewRef(a[0].u.obj);
    PyObject *m = c ? tn_at_mul_Tensor(c, a[1].u.obj) : NULL;
    PyObject *r = m ? tn_at_sum_dim_IntList(m, TN_IS((long long)a[2].u.i), false, NULL) : NULL;
    Py_XDECREF(c); Py_XDECREF(m);
    return r;
}
PyObject *tn_op_isreal(tn_value *a) {   /* ones_like(self, bool) for real, imag(self) == 0 for complex */
    if (!tn_dtype_is_complex(tn_tensor_of(a[0].u.obj)->dtype)) {
        return tn_at_ones_like(a[0].u.obj, TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL, NULL);
    }
    PyObject *im = tn_at_imag(a[0].u.obj);
    PyObject *r = im ? tn_at_eq_Scalar(im, TN_SI(0)) : NULL;
    Py_XDECREF(im);
    return r;
}
PyObject *tn_op_ger(tn_value *a) { return tn_op_outer(a); }
