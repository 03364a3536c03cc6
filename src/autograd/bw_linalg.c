/* bw_linalg.c — FunctionsManual's linear-algebra backward helpers (cholesky, LU, triangular_solve, eig,
 * slogdet, qr, det, svd; real and complex: docs/linalg.md "Complex gradients")
 * (docs/bw_formulas.md), step for step through the typed op API in the order upstream's build
 * evaluates them (operands of a Tensor operator right to left, a call's arguments before the
 * call). Tensor arguments are borrowed; results are new references, NULL with an exception. */
#include "autograd/bw_helpers.h"

#include <string.h>

/* cholesky_inverse_backward(grad, L, upper, inverse): common = inverse (grad + grad^H) inverse;
 * -(L common) when upper, else -(common L) */
PyObject *tn_bw_cholesky_inverse_backward(PyObject *grad, PyObject *L, bool upper, PyObject *inverse) {
    PyObject *gh = tn_at_mH(grad), *ct = gh ? tn_at_add_Tensor(grad, gh, TN_SDEF) : NULL;
    PyObject *a = ct ? tn_at_matmul(ct, inverse) : NULL, *b = a ? tn_at_matmul(inverse, a) : NULL;
    PyObject *m = b ? (upper ? tn_at_matmul(L, b) : tn_at_matmul(b, L)) : NULL, *r = m ? tn_at_neg(m) : NULL;
    Py_XDECREF(gh); Py_XDECREF(ct); Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(m);
    return r;
}

/* cholesky_solve_backward(grad_x, self, input2, result, upper, mask) -> (self's, input2's):
 * grad_self = grad_x.cholesky_solve(input2, upper); common = grad_self result^H, made Hermitian
 * (common + common^H); input2's -(input2 common) when upper, else -(common input2). Both are
 * computed whatever the mask says, as upstream's. */
PyObject *tn_bw_cholesky_solve_backward(PyObject *grad, PyObject *self, PyObject *input2, PyObject *result, bool upper, tn_ints mask) {
    (void)self; (void)mask;
    PyObject *gs = tn_at_cholesky_solve(grad, input2, upper), *rh = gs ? tn_at_mH(result) : NULL;
    PyObject *ct = rh ? tn_at_matmul(gs, rh) : NULL, *cth = ct ? tn_at_mH(ct) : NULL;
    PyObject *c2 = cth ? tn_at_add_Tensor(ct, cth, TN_SDEF) : NULL;
    PyObject *m = c2 ? (upper ? tn_at_matmul(input2, c2) : tn_at_matmul(c2, input2)) : NULL, *gi = m ? tn_at_neg(m) : NULL;
    PyObject *r = gi ? PyTuple_Pack(2, gs, gi) : NULL;
    Py_XDECREF(gs); Py_XDECREF(rh); Py_XDECREF(ct); Py_XDECREF(cth); Py_XDECREF(c2); Py_XDECREF(m); Py_XDECREF(gi);
    return r;
}

/* ---- the LU, triangular_solve and eig helpers. Each keeps its temporaries in a pool released at
 * the end; KEEP(x) stores x and is false when x is NULL (an exception is set). ---- */
#define NTMP 64
typedef struct { PyObject *t[NTMP]; int n; } pool;
static PyObject *keep(pool *p, PyObject *x) {
    if (x && p->n == NTMP) {   /* never reached by the bodies below; a guard, not a path */
        Py_DECREF(x);
        PyErr_SetString(PyExc_RuntimeError, "torchnative: bw_linalg temporaries exhausted");
        return NULL;
    }
    if (x) p->t[p->n++] = x;
    return x;
}
static void drain(pool *p) {
    for (int i = 0; i < p->n; i++) Py_DECREF(p->t[i]);
    p->n = 0;
}
#define KEEP(e) (keep(&P_, (e)) != NULL)
#define RET(x) (Py_XNewRef(x))
#define DEF(x) ((x) && (x) != Py_None)

static int64_t size_at(PyObject *x, int d) {
    const tn_tensor *t = tn_tensor_of(x);
    return t->sizes[d < 0 ? t->ndim + d : d];
}
static PyObject *tuple_item(pool *p, PyObject *tup, int k) {
    PyObject *x = tup ? PyTuple_GetItem(tup, k) : NULL;
    return x ? keep(p, Py_NewRef(x)) : NULL;
}
/* A.mH() solved against, the forms upstream writes at::linalg_solve_triangular(A.mH(), B, ...):
 * B is evaluated before A.mH() (a call's arguments right to left) */
static PyObject *solve_tri_h(pool *p, PyObject *A, PyObject *B, bool upper, bool left, bool unit) {
    PyObject *Ah = B ? keep(p, tn_at_mH(A)) : NULL;
    return Ah ? keep(p, tn_at_linalg_solve_triangular(Ah, B, upper, left, unit)) : NULL;
}

/* linalg_lu_backward(L_grad, U_grad, P, L, U, pivot): square, wide (m < n) and tall (m > n)
 * cases; L_grad / U_grad may be undefined (NULL or None) */
PyObject *tn_bw_linalg_lu_backward(PyObject *gL, PyObject *gU, PyObject *P, PyObject *L, PyObject *U, bool pivot) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *A = NULL, *x, *y, *z;
    bool hL = DEF(gL), hU = DEF(gU);
    if (!hL && !hU) return Py_NewRef(Py_None);
    int64_t m = size_at(L, -2), n = size_at(U, -1), k = m < n ? m : n;
    if (m == n) {
        /* A = (L^H gL).tril(-1) [+ (gU U^H).triu()]; A = U^{-H} on the right, L^{-H} on the left */
        if (hL && !(KEEP(x = tn_at_mH(L)) && KEEP(y = tn_at_matmul(x, gL)) && KEEP(A = tn_at_tril(y, -1)))) goto done;
        if (hU) {
            if (!(KEEP(x = tn_at_mH(U)) && KEEP(y = tn_at_matmul(gU, x)) && KEEP(z = tn_at_triu(y, 0)))) goto done;
            if (A && !KEEP(z = tn_at_add_Tensor(A, z, TN_SDEF))) goto done;
            A = z;
        }
        if (!(A = solve_tri_h(&P_, U, A, false, false, false)) || !(A = solve_tri_h(&P_, L, A, true, true, true))) goto done;
    } else if (m < n) {
        PyObject *U1, *U2;
        if (hL && !(KEEP(x = tn_at_mH(L)) && KEEP(A = tn_at_matmul(x, gL)))) goto done;
        if (hU) {
            if (!(KEEP(x = tn_at_triu(gU, 0)) && KEEP(y = tn_at_mH(U)) && KEEP(z = tn_at_matmul(x, y)))) goto done;
            if (!KEEP(z = A ? tn_at_sub_Tensor(A, z, TN_SDEF) : tn_at_neg(z))) goto done;
            A = z;
        }
        if (!(KEEP(x = tn_at_tril(A, -1)) && KEEP(U1 = tn_at_narrow(U, -1, 0, k)) && KEEP(y = tn_at_mH(U1)) &&
              KEEP(A = tn_at_linalg_solve_triangular(y, x, false, false, false))))
            goto done;
        if (hU) {
            PyObject *g1, *g2;
            if (!(KEEP(g1 = tn_at_narrow(gU, -1, 0, k)) && KEEP(x = tn_at_triu(g1, 0)) && KEEP(y = tn_at_add_Tensor(A, x, TN_SDEF)) &&
                  KEEP(g2 = tn_at_narrow(gU, -1, k, n - k)) && KEEP(A = tn_at_cat(TN_TS(y, g2), -1))))
                goto done;
        }
        if (!(A = solve_tri_h(&P_, L, A, true, true, true))) goto done;
        if (!hU && !(KEEP(U2 = tn_at_narrow(U, -1, k, n - k)) && KEEP(x = tn_at_zeros_like(U2, NULL, NULL, NULL, NULL, NULL)) &&
                     KEEP(A = tn_at_cat(TN_TS(A, x), -1))))
            goto done;
    } else {
        PyObject *L1, *L2;
        if (hU && !(KEEP(x = tn_at_mH(U)) && KEEP(A = tn_at_matmul(gU, x)))) goto done;
        if (hL) {
            if (!(KEEP(x = tn_at_mH(L)) && KEEP(y = tn_at_tril(gL, -1)) && KEEP(z = tn_at_matmul(x, y)))) goto done;
            if (!KEEP(z = A ? tn_at_sub_Tensor(A, z, TN_SDEF) : tn_at_neg(z))) goto done;
            A = z;
        }
        if (!(KEEP(x = tn_at_triu(A, 0)) && KEEP(L1 = tn_at_narrow(L, -2, 0, k)) && KEEP(y = tn_at_mH(L1)) &&
              KEEP(A = tn_at_linalg_solve_triangular(y, x, true, true, true))))
            goto done;
        if (hL) {
            PyObject *g1, *g2;
            if (!(KEEP(g1 = tn_at_narrow(gL, -2, 0, k)) && KEEP(x = tn_at_tril(g1, -1)) && KEEP(y = tn_at_add_Tensor(A, x, TN_SDEF)) &&
                  KEEP(g2 = tn_at_narrow(gL, -2, k, m - k)) && KEEP(A = tn_at_cat(TN_TS(y, g2), -2))))
                goto done;
        }
        if (!(A = solve_tri_h(&P_, U, A, false, false, false))) goto done;
        if (!hL && !(KEEP(L2 = tn_at_narrow(L, -2, k, m - k)) && KEEP(x = tn_at_zeros_like(L2, NULL, NULL, NULL, NULL, NULL)) &&
                     KEEP(A = tn_at_cat(TN_TS(A, x), -2))))
            goto done;
    }
    r = pivot ? tn_at_matmul(P, A) : RET(A);
done:
    drain(&P_);
    return r;
}

/* lu_factor_ex_backward(grad, LU, pivots, pivot): lu_unpack, then linalg_lu_backward with the
 * L part (grad[..., :k]) and the U part (grad[..., :k, :]) of grad */
PyObject *tn_bw_lu_factor_ex_backward(PyObject *grad, PyObject *LU, PyObject *piv, bool pivot) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *plu, *P, *L, *U, *gL, *gU;
    int64_t m = size_at(LU, -2), n = size_at(LU, -1), k = m < n ? m : n;
    if (KEEP(plu = tn_at_lu_unpack(LU, piv, true, pivot)) && (P = tuple_item(&P_, plu, 0)) && (L = tuple_item(&P_, plu, 1)) &&
        (U = tuple_item(&P_, plu, 2)) && KEEP(gL = tn_at_narrow(grad, -1, 0, k)) && KEEP(gU = tn_at_narrow(grad, -2, 0, k)))
        r = tn_bw_linalg_lu_backward(gL, gU, P, L, U, pivot);
    drain(&P_);
    return r;
}

/* lu_unpack_backward(L_grad, U_grad, m, n): L_grad's strict lower part and U_grad's upper part
 * put back in LU's (m, n) shape; zeros where only one of them is defined and the other covers more */
PyObject *tn_bw_lu_unpack_backward(PyObject *gL, PyObject *gU, int64_t m, int64_t n) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *x, *y, *z, *w;
    bool hL = DEF(gL), hU = DEF(gU);
    int64_t k = m < n ? m : n;
    if (!hL && !hU) return Py_NewRef(Py_None);
    if (hL && hU) {
        if (m == n) {
            if (KEEP(x = tn_at_triu(gU, 0)) && KEEP(y = tn_at_tril(gL, -1))) r = tn_at_add_Tensor(y, x, TN_SDEF);
        } else {   /* get_U1(gU), then get_L1(gL) (operands right to left); then L2 or U2 */
            bool ok = (n == k ? KEEP(x = tn_at_triu(gU, 0)) : KEEP(w = tn_at_narrow(gU, -1, 0, k)) && KEEP(x = tn_at_triu(w, 0))) &&
                      (m == k ? KEEP(y = tn_at_tril(gL, -1)) : KEEP(w = tn_at_narrow(gL, -2, 0, k)) && KEEP(y = tn_at_tril(w, -1))) &&
                      KEEP(z = tn_at_add_Tensor(y, x, TN_SDEF)) &&
                      KEEP(w = m > n ? tn_at_narrow(gL, -2, k, m - k) : tn_at_narrow(gU, -1, k, n - k));
            if (ok) r = tn_at_cat(TN_TS(z, w), m > n ? -2 : -1);
        }
    } else {
        PyObject *g = hL ? gL : gU;
        const tn_tensor *t = tn_tensor_of(g);
        if (hL ? m >= n : n >= m) r = hL ? tn_at_tril(g, -1) : tn_at_triu(g, 0);
        else if (KEEP(x = hL ? tn_at_tril(g, -1) : tn_at_triu(g, 0))) {
            int64_t sz[TN_MAX_DIMS];
            for (int i = 0; i < t->ndim; i++) sz[i] = t->sizes[i];
            sz[t->ndim - (hL ? 1 : 2)] = hL ? n - m : m - n;
            if (KEEP(y = tn_at_zeros(TN_IN(sz, t->ndim), TN_DT(t->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL)))
                r = tn_at_cat(TN_TS(x, y), hL ? -1 : -2);
        }
    }
    drain(&P_);
    return r;
}

/* linalg_lu_solve_LU(gX, LU, pivots, X, left, adjoint): LU's gradient of linalg_lu_solve */
PyObject *tn_bw_linalg_lu_solve_LU(PyObject *gX, PyObject *LU, PyObject *piv, PyObject *X, bool left, bool adjoint) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *plu, *P, *L, *U, *a, *b, *c, *gR, *gL, *gU;
    if (!KEEP(plu = tn_at_lu_unpack(LU, piv, true, left == adjoint)) || !(P = tuple_item(&P_, plu, 0)) ||
        !(L = tuple_item(&P_, plu, 1)) || !(U = tuple_item(&P_, plu, 2)))
        goto done;
    if (left != adjoint) {
        /* gR = U^{-H} (-(op(gX) op(X)^H)); gL = (L^{-H} gR U^H).tril(-1); gL + gR.triu() */
        if (!(KEEP(a = left ? Py_NewRef(gX) : tn_at_mH(gX)) && KEEP(b = left ? tn_at_mH(X) : Py_NewRef(X)) &&
              KEEP(c = tn_at_matmul(a, b)) && KEEP(c = tn_at_neg(c)) && (gR = solve_tri_h(&P_, U, c, false, true, false)) &&
              KEEP(a = tn_at_mH(U)) && KEEP(b = tn_at_matmul(gR, a)) && (c = solve_tri_h(&P_, L, b, true, true, true)) &&
              KEEP(gL = tn_at_tril(c, -1)) && KEEP(a = tn_at_triu(gR, 0))))
            goto done;
        r = tn_at_add_Tensor(gL, a, TN_SDEF);
    } else {
        /* gR = -(P^T op(X) op(gX) P) L^{-H} (on the right); gU = (L^H gR U^{-H}).triu(); gR.tril(-1) + gU */
        if (!(KEEP(a = tn_at_mT(P)) && KEEP(b = left ? Py_NewRef(X) : tn_at_mH(X)) && KEEP(a = tn_at_matmul(a, b)) &&
              KEEP(b = left ? tn_at_mH(gX) : Py_NewRef(gX)) && KEEP(a = tn_at_matmul(a, b)) && KEEP(a = tn_at_matmul(a, P)) &&
              KEEP(a = tn_at_neg(a)) && KEEP(b = tn_at_mH(L)) && KEEP(gR = tn_at_linalg_solve_triangular(b, a, true, false, true)) &&
              KEEP(a = tn_at_mH(L)) && KEEP(b = tn_at_matmul(a, gR)) && (c = solve_tri_h(&P_, U, b, false, false, false)) &&
              KEEP(gU = tn_at_triu(c, 0)) && KEEP(a = tn_at_tril(gR, -1))))
            goto done;
        r = tn_at_add_Tensor(a, gU, TN_SDEF);
    }
done:
    drain(&P_);
    return r;
}

/* triangular_solve_backward(grad_x, grad_m, b, a, x, upper, transpose, unitriangular, mask) ->
 * (self's, A's); the missing one of the two a zeros({1}) expanded to its input, as upstream's */
PyObject *tn_bw_triangular_solve_backward(PyObject *gx, PyObject *gm, PyObject *b, PyObject *a, PyObject *x, bool upper,
                                          bool transpose, bool unit, tn_ints mask) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *gb = NULL, *ga = NULL, *s, *t, *u;
    bool hx = DEF(gx), hm = DEF(gm), want_a = mask.n > 1 && mask.v[1];
    if (!hx && !hm) return PyTuple_Pack(2, Py_None, Py_None);
    if (hx) {
        if (!(KEEP(s = tn_bw_conj(a)) && KEEP(t = tn_at_triangular_solve(gx, s, upper, !transpose, unit)) && (gb = tuple_item(&P_, t, 0))))
            goto done;
        if (want_a) {
            if (transpose ? !(KEEP(s = tn_bw_conj(x)) && KEEP(t = tn_at_mT(gb)) && KEEP(u = tn_at_matmul(s, t)))
                          : !(KEEP(s = tn_at_mH(x)) && KEEP(u = tn_at_matmul(gb, s))))
                goto done;
            if (!(KEEP(u = tn_at_neg(u)) && KEEP(ga = upper ? tn_at_triu(u, unit) : tn_at_tril(u, -(int64_t)unit)))) goto done;
        }
    }
    if (!ga && !(KEEP(s = tn_at_zeros(TN_IS(1), TN_DT(tn_tensor_of(a)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL)) &&
                 KEEP(ga = tn_at_expand_as(s, a))))
        goto done;
    if (!gb && !(KEEP(s = tn_at_zeros(TN_IS(1), TN_DT(tn_tensor_of(b)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL)) &&
                 KEEP(gb = tn_at_expand_as(s, b))))
        goto done;
    if (want_a && hm && !KEEP(ga = tn_at_add_Tensor(ga, gm, TN_SDEF))) goto done;
    r = PyTuple_Pack(2, gb, ga);
done:
    drain(&P_);
    return r;
}

/* linalg_eig_backward(gL, gV, L, V, is_hermitian): gA = V^{-H} (diag(gL) + (V^H gV - V^H V
 * diag(re(V^H gV))) / E*) V^H (the Hermitian case: V^{-1} = V^H, the skew-Hermitian projection).
 * Under a dispatch mode every tensor is subclass-like to upstream: no phase check, and gL goes
 * in through diagonal_scatter. */
PyObject *tn_bw_linalg_eig_backward(PyObject *gL, PyObject *gV, PyObject *L, PyObject *V, bool herm) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *a, *b, *c, *W, *dg, *E;
    bool hL = DEF(gL), hV = DEF(gV), sub = tn_bw_subclass_like();
    if (!hL && !hV) return Py_NewRef(Py_None);
    if (!hV) {
        if (herm) {   /* (V * gL.unsqueeze(-2)) V^H */
            if (KEEP(a = tn_at_mH(V)) && KEEP(b = tn_at_unsqueeze(gL, -2)) && KEEP(c = tn_at_mul_Tensor(V, b))) r = tn_at_matmul(c, a);
        } else {      /* solve(V^H, gL.unsqueeze(-1) * V^H) */
            if (KEEP(a = tn_at_mH(V)) && KEEP(b = tn_at_unsqueeze(gL, -1)) && KEEP(c = tn_at_mul_Tensor(b, a)) && KEEP(a = tn_at_mH(V)))
                r = tn_at_linalg_solve(a, c, true);
        }
        goto done;
    }
    if (!(KEEP(a = tn_at_mH(V)) && KEEP(W = tn_at_matmul(a, gV)) && KEEP(dg = tn_at_diagonal(W, 0, -2, -1)))) goto done;
    if (tn_dtype_is_complex(tn_tensor_of(V)->dtype) && !sub) {
        PyObject *im, *z, *ok;
        if (!(KEEP(im = tn_at_imag(dg)) && KEEP(z = tn_at_zeros_like(im, NULL, NULL, NULL, NULL, NULL)) &&
              KEEP(ok = tn_at_allclose(im, z, 1e-2, 1e-2, false))))
            goto done;
        int t = PyObject_IsTrue(ok);
        if (t < 0) goto done;
        if (!t) {
            PyErr_Format(PyExc_RuntimeError, "%s: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
                         "The specified loss function depends on this quantity, so it is ill-defined.",
                         herm ? "linalg_eigh_backward" : "linalg_eig_backward");
            goto done;
        }
    }
    if (herm) {   /* 0.5 * (W - W^H) */
        if (!(KEEP(a = tn_at_mH(W)) && KEEP(b = tn_at_sub_Tensor(W, a, TN_SDEF)) && KEEP(W = tn_at_mul_Scalar(b, TN_SD(0.5))))) goto done;
    } else {      /* W - V^H (V * re(diag W).unsqueeze(-2)) */
        if (!(KEEP(a = tn_at_real(dg)) && KEEP(b = tn_at_unsqueeze(a, -2)) && KEEP(c = tn_at_mul_Tensor(V, b)) && KEEP(a = tn_at_mH(V)) &&
              KEEP(b = tn_at_matmul(a, c)) && KEEP(W = tn_at_sub_Tensor(W, b, TN_SDEF))))
            goto done;
    }
    /* E* = conj(L)_j - conj(L)_i, 1 on the diagonal */
    if (!(KEEP(a = tn_bw_conj(L)) && KEEP(b = tn_at_unsqueeze(a, -1)) && KEEP(c = tn_at_unsqueeze(a, -2)) &&
          KEEP(E = tn_at_sub_Tensor(c, b, TN_SDEF)) && KEEP(b = tn_at_diagonal(E, 0, -2, -1)) && KEEP(b = tn_at_fill__Scalar(b, TN_SD(1.0))) &&
          KEEP(W = tn_at_div__Tensor(W, E))))
        goto done;
    if (hL) {
        if (sub) {
            if (!KEEP(W = tn_at_diagonal_scatter(W, gL, 0, -2, -1))) goto done;
        } else if (!(KEEP(a = tn_at_diagonal(W, 0, -2, -1)) && KEEP(a = tn_at_copy_(a, gL, false)))) {
            goto done;
        }
    }
    if (!(KEEP(a = tn_at_mH(V)) && KEEP(b = tn_at_matmul(W, a)))) goto done;
    if (herm) r = tn_at_matmul(V, b);
    else if (KEEP(a = tn_at_mH(V))) r = tn_at_linalg_solve(a, b, true);
done:
    drain(&P_);
    return r;
}

/* slogdet_backward(grad_sign, grad_logabsdet, A, sign, LU, pivots): g = grad_logabsdet
 * (- i Im(conj(grad_sign) sign) for a complex A), then A^{-H} diag(g): an lu_solve with the
 * saved LU, or (recording gradients) a linalg_solve of A^H so that the LU is differentiated too */
PyObject *tn_bw_slogdet_backward(PyObject *gs, PyObject *gl, PyObject *A, PyObject *sign, PyObject *LU, PyObject *piv) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *g = NULL, *a, *b, *d;
    bool hs = DEF(gs), hl = DEF(gl), cplx = tn_dtype_is_complex(tn_tensor_of(A)->dtype);
    if ((!hs && !hl) || (!cplx && !hl)) return Py_NewRef(Py_None);
    if (cplx && hs) {   /* (g -) i * imag(conj(grad_sign) * sign) */
        PyObject *i;
        if (!(KEEP(a = tn_bw_conj(gs)) && KEEP(b = tn_at_mul_Tensor(a, sign)) && KEEP(a = tn_at_imag(b)) &&
              KEEP(i = PyComplex_FromDoubles(0.0, hl ? 1.0 : -1.0)) && KEEP(g = tn_at_mul_Scalar(a, TN_SO(i)))))
            goto done;
        if (hl && !KEEP(g = tn_at_sub_Tensor(gl, g, TN_SDEF))) goto done;
    } else if (cplx) {
        if (!KEEP(g = tn_at_to_dtype(gl, TN_DT(tn_tensor_of(A)->dtype), false, false, NULL))) goto done;
    } else {
        g = gl;
    }
    /* d = diag_embed(g.unsqueeze(-1).expand_as(pivots)).mT() */
    if (!(KEEP(a = tn_at_unsqueeze(g, -1)) && KEEP(b = tn_at_expand_as(a, piv)) && KEEP(a = tn_at_diag_embed(b, 0, -2, -1)) &&
          KEEP(d = tn_at_mT(a))))
        goto done;
    if (!tn_grad_enabled()) r = tn_at_linalg_lu_solve(LU, piv, d, true, !(tn_is_contiguous(tn_tensor_of(A)) && !cplx));
    else if (KEEP(a = tn_at_mH(A))) r = tn_at_linalg_solve(a, d, true);
done:
    drain(&P_);
    return r;
}

/* linalg_qr_backward(gQ, gR, Q, R, mode): m >= n: gA = (Q syminvadj(triu(gR R^H - Q^H gQ)) + gQ) R^{-H};
 * m < n: gA = (Q trilImInvAdjSkew(-(gR R^H - Q^H gQ)) R_1^{-H} | 0) + Q gR */
PyObject *tn_bw_linalg_qr_backward(PyObject *gQ, PyObject *gR, PyObject *Q, PyObject *R, const char *mode) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *A = NULL, *a, *b, *c;
    bool hQ = DEF(gQ), hR = DEF(gR), cplx = tn_dtype_is_complex(tn_tensor_of(Q)->dtype);
    if (!strcmp(mode, "r")) {
        PyErr_SetString(PyExc_RuntimeError, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                        "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
        return NULL;
    }
    int64_t m = size_at(Q, -2), n = size_at(R, -1);
    if (!strcmp(mode, "complete") && m > n) {
        PyErr_SetString(PyExc_RuntimeError, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        return NULL;
    }
    if (!hQ && !hR) return Py_NewRef(Py_None);
    if (hQ) {   /* [gR R^H] - Q^H gQ: the right operand first */
        if (!(KEEP(a = tn_at_mH(Q)) && KEEP(b = tn_at_matmul(a, gQ)))) goto done;
        if (hR ? !(KEEP(a = tn_at_mH(R)) && KEEP(c = tn_at_matmul(gR, a)) && KEEP(A = tn_at_sub_Tensor(c, b, TN_SDEF))) : !KEEP(A = tn_at_neg(b)))
            goto done;
    } else if (!(KEEP(a = tn_at_mH(R)) && KEEP(A = tn_at_matmul(gR, a)))) {
        goto done;
    }
    if (m >= n) {   /* syminvadj(X) = X + X^H with re(diag) halved */
        if (!(KEEP(a = tn_at_triu(A, 0)) && KEEP(b = tn_at_mH(a)) && KEEP(c = tn_at_add_Tensor(a, b, TN_SDEF)) &&
              KEEP(b = tn_at_diagonal(c, 0, -2, -1)) && (!cplx || KEEP(b = tn_at_real(b))) && KEEP(b = tn_at_mul__Scalar(b, TN_SD(0.5))) &&
              KEEP(A = tn_at_matmul(Q, c))))
            goto done;
        if (hQ && !KEEP(A = tn_at_add_Tensor(A, gQ, TN_SDEF))) goto done;
        r = RET(solve_tri_h(&P_, R, A, false, false, false));
    } else {        /* trilImInvAdjSkew(X) = (X - X^H).tril() with im(diag) halved */
        const tn_tensor *rt = tn_tensor_of(R);
        int64_t sz[TN_MAX_DIMS];
        for (int i = 0; i < rt->ndim; i++) sz[i] = rt->sizes[i];
        sz[rt->ndim - 1] = n - m;
        if (!(KEEP(a = tn_at_neg(A)) && KEEP(b = tn_at_mH(a)) && KEEP(c = tn_at_sub_Tensor(a, b, TN_SDEF)) && KEEP(c = tn_at_tril(c, 0))))
            goto done;
        if (cplx && !(KEEP(b = tn_at_diagonal(c, 0, -2, -1)) && KEEP(b = tn_at_imag(b)) && KEEP(b = tn_at_mul__Scalar(b, TN_SD(0.5))))) goto done;
        if (!(KEEP(A = tn_at_matmul(Q, c)) && KEEP(a = tn_at_narrow(R, -1, 0, m)) && KEEP(b = tn_at_mH(a)) &&
              KEEP(A = tn_at_linalg_solve_triangular(b, A, false, false, false)) &&
              KEEP(a = tn_at_new_zeros(A, TN_IN(sz, rt->ndim), NULL, NULL, NULL, NULL)) && KEEP(A = tn_at_cat(TN_TS(A, a), -1))))
            goto done;
        if (hR && !(KEEP(a = tn_at_matmul(Q, gR)) && KEEP(A = tn_at_add_Tensor(A, a, TN_SDEF)))) goto done;
        r = RET(A);
    }
done:
    drain(&P_);
    return r;
}

/* cholesky_backward(gL, upper, L): gA = L^{-H} pi*(tril(L^H gL)) L^{-1}, pi*(X) = 0.5 (X + tril(X, -1)^H);
 * with upper, L and gL enter conjugate-transposed. Conjugate transposes throughout (a plain
 * transpose gave wrong complex gradients, measured: tools/linalg_complex_grads.py). */
PyObject *tn_bw_cholesky_backward(PyObject *gL, bool upper, PyObject *L) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *L_ = L, *g_ = gL, *a, *b, *gA;
    if (upper && !(KEEP(L_ = tn_at_mH(L)) && KEEP(g_ = tn_at_mH(gL)))) goto done;
    if (KEEP(a = tn_at_mH(L_)) && KEEP(b = tn_at_matmul(a, g_)) && KEEP(gA = tn_at_tril(b, 0)) &&
        KEEP(a = tn_at_tril(gA, -1)) && KEEP(b = tn_at_mH(a)) && KEEP(a = tn_at_add_Tensor(gA, b, TN_SDEF)) &&
        KEEP(gA = tn_at_mul_Scalar(a, TN_SD(0.5))) && (gA = solve_tri_h(&P_, L_, gA, true, true, false)))
        r = tn_at_linalg_solve_triangular(L_, gA, false, false, false);
done:
    drain(&P_);
    return r;
}

/* linalg_det_backward's singular branch: the adjugate through the SVD, (U * D.unsqueeze(-2)) Vh with
 * D = prod_safe_zeros_backward(alpha.unsqueeze(-1), S, -1), alpha = conj(det U det Vh) grad */
static PyObject *det_singular(pool *p, PyObject *A, PyObject *grad) {
    PyObject *usv = keep(p, tn_at_linalg_svd(A, true, NULL)), *U, *S, *Vh, *a, *b;
    if (!(U = tuple_item(p, usv, 0)) || !(S = tuple_item(p, usv, 1)) || !(Vh = tuple_item(p, usv, 2))) return NULL;
    int64_t sd = tn_tensor_of(S)->ndim - 1;
    if (!(keep(p, a = tn_at_linalg_det(Vh)) && keep(p, b = tn_at_linalg_det(U)) && keep(p, a = tn_at_mul_Tensor(b, a)) &&
          keep(p, a = tn_bw_conj(a)) && keep(p, a = tn_at_mul_Tensor(a, grad)) && keep(p, a = tn_at_unsqueeze(a, -1)) &&
          keep(p, a = tn_bw_prod_safe_zeros_backward(a, S, sd)) && keep(p, a = tn_at_unsqueeze(a, -2)) && keep(p, a = tn_at_mul_Tensor(U, a))))
        return NULL;
    return keep(p, tn_at_matmul(a, Vh));
}
static PyObject *det_nonsingular(pool *p, PyObject *A, PyObject *d) {   /* linalg_solve(A^H, d) */
    PyObject *a = keep(p, tn_at_mH(A));
    return a ? keep(p, tn_at_linalg_solve(a, d, true)) : NULL;
}

/* linalg_det_backward(grad, det, A, LU, pivots): G solves A^H G = conj(det) grad I. Without grad
 * mode an lu_solve with the saved LU (zero pivots nudged by the dtype's eps; adjoint unless A is
 * contiguous and real); recording gradients, upstream's masked_fmap: linalg_solve(A^H, d) where
 * |det| >= 100 eps, the SVD adjugate where it is smaller (every matrix the SVD under a dispatch mode,
 * upstream's subclass branch) */
PyObject *tn_bw_linalg_det_backward(PyObject *grad, PyObject *det, PyObject *A, PyObject *LU, PyObject *piv) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *a, *b, *d, *z, *e, *LU_;
    const tn_tensor *at = tn_tensor_of(A);
    if (!DEF(grad) || tn_numel(at) == 0) return Py_NewRef(Py_None);
    bool cplx = tn_dtype_is_complex(at->dtype);
    tn_dtype rd = at->dtype == TN_DTYPE_C128 ? TN_DTYPE_F64 : at->dtype == TN_DTYPE_C64 ? TN_DTYPE_F32 : at->dtype;
    double eps = rd == TN_DTYPE_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    /* d = diag_embed((grad * det.conj()).unsqueeze(-1).expand_as(pivots)).mT() */
    if (!(KEEP(a = tn_bw_conj(det)) && KEEP(b = tn_at_mul_Tensor(grad, a)) && KEEP(a = tn_at_unsqueeze(b, -1)) &&
          KEEP(b = tn_at_expand_as(a, piv)) && KEEP(a = tn_at_diag_embed(b, 0, -2, -1)) && KEEP(d = tn_at_mT(a))))
        goto done;
    if (!tn_grad_enabled()) {
        /* LU + diag_embed(where(LU.diagonal() == 0, eps, 0.)) */
        if (KEEP(a = tn_at_diagonal(LU, 0, -2, -1)) && KEEP(z = tn_at_eq_Scalar(a, TN_SD(0.0))) &&
            KEEP(a = tn_at_where_Scalar(z, TN_SD(eps), TN_SD(0.0))) &&
            KEEP(b = tn_at_diag_embed(a, 0, -2, -1)) && KEEP(LU_ = tn_at_add_Tensor(LU, b, TN_SDEF)))
            r = tn_at_linalg_lu_solve(LU_, piv, d, true, !(tn_is_contiguous(at) && !cplx));
    } else if (tn_bw_subclass_like()) {
        r = RET(det_singular(&P_, A, grad));
    } else {   /* masked_fmap(|det| < 100 eps, singular, non_singular, A, d, grad) */
        PyObject *mask, *nmask;
        if (!(KEEP(a = tn_at_abs(det)) && KEEP(mask = tn_at_lt_Scalar(a, TN_SD(100.0 * eps))))) goto done;
        int64_t k, all = tn_numel(at);
        if (tn_tensor_of(mask)->ndim == 0) {   /* one matrix: all or none (A[mask] with a 0-dim mask is not written here) */
            int t = PyObject_IsTrue(mask);
            if (t < 0) goto done;
            k = t ? all : 0;
        } else if (KEEP(a = tn_at_index_Tensor(A, TN_TS(mask)))) {
            k = tn_numel(tn_tensor_of(a));
        } else {
            goto done;
        }
        if (k == all) {
            r = RET(det_singular(&P_, A, grad));
        } else if (k == 0) {
            r = RET(det_nonsingular(&P_, A, d));
        } else {   /* empty_like(A).index_put_({mask}, singular(A[mask], ...)).index_put_({~mask}, non_singular(...)) */
            PyObject *gs, *s1, *s2, *R;
            if (KEEP(nmask = tn_at_logical_not(mask)) && KEEP(b = tn_at_index_Tensor(d, TN_TS(nmask))) &&
                KEEP(e = tn_at_index_Tensor(A, TN_TS(nmask))) && (s2 = det_nonsingular(&P_, e, b)) &&
                KEEP(gs = tn_at_index_Tensor(grad, TN_TS(mask))) && (s1 = det_singular(&P_, a, gs)) &&
                KEEP(R = tn_at_empty_like(A, NULL, NULL, NULL, NULL, NULL)) && KEEP(R = tn_at_index_put_(R, TN_TS(mask), s1, false)))
                r = tn_at_index_put_(R, TN_TS(nmask), s2, false);
        }
    }
done:
    drain(&P_);
    return r;
}

/* svd_backward(gU, gS, gVh, U, S, Vh) (U / Vh already cut to k = len(S) columns / rows):
 * gA = U [(skew(U^H gU) / E) S + S (skew(V^H gV) / E) + diag(gS) + i Im(diag(U^H gU)) / (2S)] V^H,
 * plus (I - U U^H) gU S^{-1} V^H when m > n, U S^{-1} gVh (I - V V^H) when m < n; skew(X) = X - X^H,
 * E_jk = S_k^2 - S_j^2 (1 on the diagonal). A complex loss must not depend on the phase of the
 * singular vectors: Im(diag(U^H gU)) = -Im(diag(V^H gV)), checked as upstream's (rtol = atol = 1e-2). */
static PyObject *skew_mm(pool *p, PyObject *x, PyObject *y) {   /* skew(x y) */
    PyObject *a = keep(p, tn_at_matmul(x, y)), *b = a ? keep(p, tn_at_mH(a)) : NULL;
    return b ? keep(p, tn_at_sub_Tensor(a, b, TN_SDEF)) : NULL;
}
PyObject *tn_bw_svd_backward(PyObject *gU, PyObject *gS, PyObject *gVh, PyObject *U, PyObject *S, PyObject *Vh) {
    pool P_ = {{0}, 0};
    PyObject *r = NULL, *a, *b, *c, *E, *G, *UhgU = NULL, *VhgV = NULL;
    bool hU = DEF(gU), hS = DEF(gS), hV = DEF(gVh), cplx = tn_dtype_is_complex(tn_tensor_of(U)->dtype);
    if (!hU && !hS && !hV) return Py_NewRef(Py_None);
    int64_t m = size_at(U, -2), n = size_at(Vh, -1);
    if (!hU && !hV) {   /* svdvals: U diag(gS) Vh */
        if (m >= n) {
            if (KEEP(a = tn_at_unsqueeze(gS, -1)) && KEEP(b = tn_at_mul_Tensor(a, Vh))) r = tn_at_matmul(U, b);
        } else if (KEEP(a = tn_at_unsqueeze(gS, -2)) && KEEP(b = tn_at_mul_Tensor(U, a))) {
            r = tn_at_matmul(b, Vh);
        }
        goto done;
    }
    if (hU && !(KEEP(a = tn_at_mH(U)) && (UhgU = skew_mm(&P_, a, gU)))) goto done;
    if (hV && !(KEEP(a = tn_at_mH(gVh)) && (VhgV = skew_mm(&P_, Vh, a)))) goto done;
    if (cplx) {   /* the phase check */
        PyObject *iu, *iv, *ok;
        if (!(hU ? KEEP(a = tn_at_diagonal(UhgU, 0, -2, -1)) && KEEP(iu = tn_at_imag(a)) : KEEP(iu = tn_at_zeros_like(S, NULL, NULL, NULL, NULL, NULL))) ||
            !(hV ? KEEP(a = tn_at_diagonal(VhgV, 0, -2, -1)) && KEEP(iv = tn_at_imag(a)) : KEEP(iv = tn_at_zeros_like(S, NULL, NULL, NULL, NULL, NULL))) ||
            !(KEEP(iv = tn_at_neg(iv)) && KEEP(ok = tn_at_allclose(iu, iv, 1e-2, 1e-2, false))))
            goto done;
        int t = PyObject_IsTrue(ok);
        if (t < 0) goto done;
        if (!t) {
            PyErr_SetString(PyExc_RuntimeError, "svd_backward: The singular vectors in the complex case are specified up to multiplication "
                            "by e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.");
            goto done;
        }
    }
    /* E = S2.unsqueeze(-2) - S2.unsqueeze(-1), diagonal 1 */
    if (!(KEEP(a = tn_at_mul_Tensor(S, S)) && KEEP(b = tn_at_unsqueeze(a, -1)) && KEEP(c = tn_at_unsqueeze(a, -2)) &&
          KEEP(E = tn_at_sub_Tensor(c, b, TN_SDEF)) && KEEP(a = tn_at_diagonal(E, 0, -2, -1)) && KEEP(a = tn_at_fill__Scalar(a, TN_SD(1.0)))))
        goto done;
    if (hU && hV) {   /* (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E */
        if (!(KEEP(a = tn_at_unsqueeze(S, -1)) && KEEP(b = tn_at_mul_Tensor(a, VhgV)) && KEEP(a = tn_at_unsqueeze(S, -2)) &&
              KEEP(c = tn_at_mul_Tensor(UhgU, a)) && KEEP(a = tn_at_add_Tensor(c, b, TN_SDEF)) && KEEP(G = tn_at_div_Tensor(a, E))))
            goto done;
    } else if (hU) {  /* (UhgU / E) * S.unsqueeze(-2) */
        if (!(KEEP(a = tn_at_unsqueeze(S, -2)) && KEEP(b = tn_at_div_Tensor(UhgU, E)) && KEEP(G = tn_at_mul_Tensor(b, a)))) goto done;
    } else if (!(KEEP(a = tn_at_div_Tensor(VhgV, E)) && KEEP(b = tn_at_unsqueeze(S, -1)) && KEEP(G = tn_at_mul_Tensor(b, a)))) {
        goto done;
    }
    if (hS && !(KEEP(a = tn_at_diag_embed(gS, 0, -2, -1)) && KEEP(G = tn_at_add_Tensor(G, a, TN_SDEF)))) goto done;
    if (cplx && hU && hV &&   /* + (diag(UhgU) / (2 S)).diag_embed() */
        !(KEEP(a = tn_at_mul_Scalar(S, TN_SD(2.0))) && KEEP(b = tn_at_diagonal(UhgU, 0, -2, -1)) && KEEP(c = tn_at_div_Tensor(b, a)) &&
          KEEP(a = tn_at_diag_embed(c, 0, -2, -1)) && KEEP(G = tn_at_add_Tensor(G, a, TN_SDEF))))
        goto done;
    if (m > n && hU) {   /* [U G + gU S^{-1} - U (U^H gU S^{-1})] Vh */
        if (!(KEEP(G = tn_at_matmul(U, G)) && KEEP(a = tn_at_unsqueeze(S, -2)) && KEEP(c = tn_at_div_Tensor(gU, a)) &&
              KEEP(a = tn_at_mH(U)) && KEEP(a = tn_at_matmul(a, c)) && KEEP(a = tn_at_matmul(U, a)) &&
              KEEP(b = tn_at_add_Tensor(G, c, TN_SDEF)) && KEEP(G = tn_at_sub_Tensor(b, a, TN_SDEF))))
            goto done;
        r = tn_at_matmul(G, Vh);
    } else if (m < n && hV) {   /* U [G Vh + S^{-1} gVh - (S^{-1} gVh V) Vh] */
        if (!(KEEP(G = tn_at_matmul(G, Vh)) && KEEP(a = tn_at_unsqueeze(S, -1)) && KEEP(c = tn_at_div_Tensor(gVh, a)) &&
              KEEP(a = tn_at_mH(Vh)) && KEEP(a = tn_at_matmul(c, a)) && KEEP(a = tn_at_matmul(a, Vh)) &&
              KEEP(b = tn_at_add_Tensor(G, c, TN_SDEF)) && KEEP(G = tn_at_sub_Tensor(b, a, TN_SDEF))))
            goto done;
        r = tn_at_matmul(U, G);
    } else if (m >= n) {
        if (KEEP(a = tn_at_matmul(G, Vh))) r = tn_at_matmul(U, a);
    } else if (KEEP(a = tn_at_matmul(U, G))) {
        r = tn_at_matmul(a, Vh);
    }
done:
    drain(&P_);
    return r;
}
