/* fused_optim.c — torch.optim's fused=True steps on CPU: _fused_adam_, _fused_adamw_,
 * _fused_sgd_ and _fused_adagrad_ (and their tensor_lr overloads), with upstream's arithmetic
 * (ATen/native/cpu/FusedAdamKernel.cpp, FusedSGDKernel.cpp) as its AVX2 / AVX-512 builds round it.
 *
 * Upstream splits each tensor into cache-line units and runs a vector loop over each piece, the
 * last piece ending in a scalar tail: element i is on the vector path iff i < n - n % V, V the
 * 256-bit Vectorized<T> width (8 floats / 4 doubles / 16 halves; on AVX-512 hosts too, as
 * measured). The two paths differ in how the compiler fused multiply-adds (measured on 2.13):
 *   Adam, vector: decay g = fma(p, wd, g); v = fma(c2 * g, g, v * b2)
 *   Adam, scalar: decay g = fma(p, wd, g); v = fma(v, b2, c2 * g * g)
 *   both: m = lerp(m, g, 1 - b1) as fma (|w| < 0.5 ? fma(w, g - m, m) : fma(w - 1, g - m, g)),
 *         den = sqrt(v or max(vmax, v)) / sqrt(bc2) + eps, p = p - (step_size * m) / den,
 *         AdamW's decay p = p * (1 - lr * wd) (coefficient computed in double).
 *   SGD, vector: g = fma(p, wd, g); buf = fma(1 - damp, g, buf * mom); nesterov g = fma(buf, mom,
 *         g); p = fma(g, -lr, p). SGD, scalar: the same with buf = fma(buf, mom, g * (1 - damp)).
 * f16 / bf16 compute in float and store each state rounded once, later steps of the same element
 * using the unrounded float values (upstream's opmath path). Upstream's f16 / bf16 _fused_sgd_
 * vector loop does not write the parameter and reads the momentum buffer as floats (a bug in
 * 2.13); here every f16 / bf16 element takes the scalar path's math, so such tensors with at least
 * V elements differ from upstream. Tensors must be contiguous (upstream reads data_ptr as dense). */
#include "ops/common.h"

#include <math.h>
#include <string.h>

/* Upstream's fused optimizer kernels run 256-bit vectors on AVX2 and AVX-512 hosts alike
 * (measured on torch 2.13 at capability AVX512: the scalar tail is n % 8 floats). */
static int vec_bytes(void) { return 32; }

typedef struct {
    double lr, beta1, beta2, wd, eps;
    bool amsgrad, maximize, adamw;
    double step;
    const float *grad_scale;
} adam_p;

static inline float ld_bf16(const void *p, int64_t i) { return tn_bf16_to_f32(((const uint16_t *)p)[i]); }
static inline float ld_f16(const void *p, int64_t i) { return tn_f16_to_f32(((const uint16_t *)p)[i]); }
static inline void st_bf16(void *p, int64_t i, float v) { ((uint16_t *)p)[i] = tn_f32_to_bf16(v); }
static inline void st_f16(void *p, int64_t i, float v) { ((uint16_t *)p)[i] = tn_f32_to_f16(v); }
static inline float ld_f32(const void *p, int64_t i) { return ((const float *)p)[i]; }
static inline void st_f32(void *p, int64_t i, float v) { ((float *)p)[i] = v; }
static inline double ld_f64(const void *p, int64_t i) { return ((const double *)p)[i]; }
static inline void st_f64(void *p, int64_t i, double v) { ((double *)p)[i] = v; }
static inline float fma_f(float a, float b, float c) { return fmaf(a, b, c); }
static inline double fma_d(double a, double b, double c) { return fma(a, b, c); }
static inline float sqrt_f(float a) { return sqrtf(a); }
static inline double sqrt_d(double a) { return sqrt(a); }

/* CT: compute type; SFX: storage; FM / SQ: fma / sqrt of CT; ESZ: element size */
#define DEF_ADAM(SFX, CT, FM, SQ, ESZ)                                                             \
    static void adam_##SFX(void *P, void *G, void *M, void *V, void *MX, int64_t n, const adam_p *a) { \
        const int64_t vw = vec_bytes() / (ESZ), nv = n - n % vw;                                   \
        const double bc1 = 1 - pow(a->beta1, a->step), bc2 = 1 - pow(a->beta2, a->step);          \
        const double ss = a->lr / bc1, c1 = 1 - a->beta1, c2 = 1 - a->beta2, bc2s = sqrt(bc2);    \
        const CT wd = (CT)a->wd, b2 = (CT)a->beta2, c2t = (CT)c2, w = (CT)c1, bs = (CT)bc2s,       \
                 eps = (CT)a->eps, nss = (CT)(-ss), pss = (CT)ss, decay = (CT)(1 - a->lr * a->wd); \
        const bool small = fabs((double)w) < 0.5;                                                  \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const bool vec = i < nv;                                                               \
            CT p = ld_##SFX(P, i), g = ld_##SFX(G, i);                                             \
            if (a->grad_scale) {                                                                   \
                g = g / (CT)*a->grad_scale;                                                        \
                st_##SFX(G, i, g);                                                                 \
            }                                                                                      \
            if (a->maximize) g = -g;                                                               \
            if (a->wd != 0) {                                                                      \
                if (a->adamw) p = p * decay;                                                       \
                else g = FM(p, wd, g);                                                             \
            }                                                                                      \
            CT m = ld_##SFX(M, i), diff = g - m;                                                   \
            m = small ? FM(w, diff, m) : FM(w - (CT)1, diff, g);                                   \
            CT v = ld_##SFX(V, i);                                                                 \
            v = vec ? FM(c2t * g, g, v * b2) : FM(v, b2, c2t * g * g);                             \
            st_##SFX(M, i, m);                                                                     \
            st_##SFX(V, i, v);                                                                     \
            CT den;                                                                                \
            if (a->amsgrad) {                                                                      \
                CT mx = ld_##SFX(MX, i);                                                           \
                mx = mx < v ? v : mx;                                                              \
                st_##SFX(MX, i, mx);                                                               \
                den = SQ(mx) / bs + eps;                                                           \
            } else {                                                                               \
                den = SQ(v) / bs + eps;                                                            \
            }                                                                                      \
            p = vec ? p + (nss * m) / den : p - (pss * m) / den;                                   \
            st_##SFX(P, i, p);                                                                     \
        }                                                                                          \
    }
DEF_ADAM(f32, float, fma_f, sqrt_f, 4)
DEF_ADAM(f64, double, fma_d, sqrt_d, 8)
DEF_ADAM(bf16, float, fma_f, sqrt_f, 2)
DEF_ADAM(f16, float, fma_f, sqrt_f, 2)

typedef struct {
    double wd, momentum, lr, dampening;
    bool nesterov, maximize, first;
    const float *grad_scale;
} sgd_p;

#define DEF_SGD(SFX, CT, FM, ESZ, LP)                                                              \
    static void sgd_##SFX(void *P, void *G, void *B, int64_t n, const sgd_p *a) {                  \
        const int64_t vw = (LP) ? 0 : vec_bytes() / (ESZ), nv = n - (vw ? n % vw : n);            \
        const CT wd = (CT)a->wd, mom = (CT)a->momentum, od = (CT)(1 - a->dampening),              \
                 nlr = (CT)(-a->lr);                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const bool vec = i < nv;                                                               \
            CT p = ld_##SFX(P, i), g = ld_##SFX(G, i);                                             \
            if (a->grad_scale) {                                                                   \
                g = g / (CT)*a->grad_scale;                                                        \
                st_##SFX(G, i, g);                                                                 \
            }                                                                                      \
            if (a->maximize) g = -g;                                                               \
            if (a->wd != 0) g = FM(p, wd, g);                                                      \
            if (a->momentum != 0) {                                                                \
                CT b;                                                                              \
                if (a->first) b = g;                                                               \
                else {                                                                             \
                    b = ld_##SFX(B, i);                                                            \
                    b = vec ? FM(od, g, b * mom) : FM(b, mom, g * od);                             \
                }                                                                                  \
                st_##SFX(B, i, b);                                                                 \
                g = a->nesterov ? FM(b, mom, g) : b;                                               \
            }                                                                                      \
            st_##SFX(P, i, FM(g, nlr, p));                                                         \
        }                                                                                          \
    }
DEF_SGD(f32, float, fma_f, 4, 0)
DEF_SGD(f64, double, fma_d, 8, 0)
DEF_SGD(bf16, float, fma_f, 2, 1)
DEF_SGD(f16, float, fma_f, 2, 1)

typedef struct {
    double lr, lr_decay, wd, eps, step;
    bool maximize;
    const float *grad_scale;
} adagrad_p;

/* Adagrad: g = fma(p, wd, g); sum = fma(g, g, sum); p = p - (clr * g) / (sqrt(sum) + eps), on
 * both paths; f16 / bf16's vector path rounds wd, eps and clr to the storage type first
 * (upstream's fVec(scalar_t(x))), the scalar tail uses them in float. */
#define DEF_ADAGRAD(SFX, CT, FM, SQ, ESZ, TOST)                                                   \
    static void adagrad_##SFX(void *P, void *G, void *S, int64_t n, const adagrad_p *a) {         \
        const int64_t vw = vec_bytes() / (ESZ), nv = n - n % vw;                                   \
        const double clr = a->lr / (1.0 + (a->step - 1.0) * a->lr_decay);                          \
        const CT wd_s = (CT)a->wd, eps_s = (CT)a->eps, clr_s = (CT)clr;                            \
        const CT wd_v = TOST(a->wd), eps_v = TOST(a->eps), clr_v = TOST(clr);                      \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const bool vec = i < nv;                                                               \
            CT p = ld_##SFX(P, i), g = ld_##SFX(G, i);                                             \
            if (a->grad_scale) {                                                                   \
                g = g / (CT)*a->grad_scale;                                                        \
                st_##SFX(G, i, g);                                                                 \
            }                                                                                      \
            if (a->maximize) g = -g;                                                               \
            if (a->wd != 0) g = FM(p, vec ? wd_v : wd_s, g);                                       \
            CT sum = FM(g, g, (CT)ld_##SFX(S, i));                                                 \
            st_##SFX(S, i, sum);                                                                   \
            CT sd = SQ(sum) + (vec ? eps_v : eps_s);                                               \
            p = p - ((vec ? clr_v : clr_s) * g) / sd;                                              \
            st_##SFX(P, i, p);                                                                     \
        }                                                                                          \
    }
static inline float id_f(double x) { return (float)x; }
static inline double id_d(double x) { return x; }
static inline float rt_bf16(double x) { return tn_bf16_to_f32(tn_f32_to_bf16((float)x)); }
static inline float rt_f16(double x) { return tn_f16_to_f32(tn_f32_to_f16((float)x)); }
DEF_ADAGRAD(f32, float, fma_f, sqrt_f, 4, id_f)
DEF_ADAGRAD(f64, double, fma_d, sqrt_d, 8, id_d)
DEF_ADAGRAD(bf16, float, fma_f, sqrt_f, 2, rt_bf16)
DEF_ADAGRAD(f16, float, fma_f, sqrt_f, 2, rt_f16)

/* ---- argument checks ---- */

static PyObject *check_false(const char *what) {
    PyErr_Format(PyExc_RuntimeError,
                 "Expected %s to be true, but got false.  (Could this error message be improved?  If so, please "
                 "report an enhancement request to PyTorch.)", what);
    return NULL;
}

static PyObject *item(PyObject *tup, Py_ssize_t i) { return PyTuple_GetItem(tup, i); }

/* A tensor of the parameter's dtype and numel, dense. */
static int usable(PyObject *t, const tn_tensor *p, const char *fn) {
    const tn_tensor *x = tn_tensor_of(t);
    if (x->dtype != p->dtype || tn_numel(x) != tn_numel(p)) {
        PyErr_Format(PyExc_RuntimeError, "%s: every tensor of one index must have the parameter's dtype and size", fn);
        return -1;
    }
    if (!tn_is_contiguous(x)) {
        PyErr_Format(PyExc_NotImplementedError, "torchnative: %s on non-contiguous tensors is not implemented", fn);
        return -1;
    }
    return 0;
}

static void *dptr(PyObject *t) { return tn_data(tn_tensor_of(t)); }

/* the kernels' dtype dispatch on the parameter (floating types, bf16, f16), which upstream makes
 * before it looks at the index's other tensors (measured: [bool, ...] params "fused_adagrad_kernel"
 * not implemented for 'Bool', whatever the grads) */
static PyObject *param_dtype(const tn_tensor *p, const char *kernel) {
    tn_dtype d = p->dtype;
    if (d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_BF16 || d == TN_DTYPE_F16) return Py_None;
    return tn_kernel_missing(kernel, d);
}

/* Every tensor of index i in the lists a[0..nl) (written: their autograd versions move). */
static void bump(tn_value *a, int nl, Py_ssize_t i) {
    for (int k = 0; k < nl; k++)
        if (PyTuple_Size(a[k].u.obj) > i) tn_tensor_of(PyTuple_GetItem(a[k].u.obj, i))->storage->version++;
}

static void not_float(PyObject *t) {
    PyErr_Format(PyExc_RuntimeError, "expected scalar type Float but found %s", tn_dtype_cpp_name(tn_tensor_of(t)->dtype));
}

/* grad_scale / found_inf (Tensor?): float32 data pointers, NULL when None. */
static int scale_ptrs(tn_value *gs, tn_value *fi, const float **g, const float **f) {
    *g = *f = NULL;
    if (gs->tag == TN_V_TENSOR) {
        if (tn_tensor_of(gs->u.obj)->dtype != TN_DTYPE_F32) { not_float(gs->u.obj); return -1; }
        *g = dptr(gs->u.obj);
    }
    if (fi->tag == TN_V_TENSOR) {
        if (tn_tensor_of(fi->u.obj)->dtype != TN_DTYPE_F32) { not_float(fi->u.obj); return -1; }
        *f = dptr(fi->u.obj);
    }
    return 0;
}

static int lr_of(tn_value *v, double *lr) {
    if (v->tag == TN_V_TENSOR) {
        tn_scalar s;
        const tn_tensor *t = tn_tensor_of(v->u.obj);
        if (tn_numel(t) != 1) {
            PyErr_SetString(PyExc_RuntimeError, "a Tensor with more than one element cannot be converted to Scalar");
            return -1;
        }
        if (t->ndim == 0) {
            if (tn_scalar_of_0dim(v->u.obj, &s) < 0) return -1;
            *lr = s.re;
            return 0;
        }
        PyObject *f = PyObject_CallMethod(v->u.obj, "item", NULL);
        if (!f) return -1;
        *lr = PyFloat_AsDouble(f);
        Py_DECREF(f);
        return PyErr_Occurred() ? -1 : 0;
    }
    *lr = v->u.f;
    return 0;
}

/* _fused_adam[w]_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr, beta1,
 * beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None) -> () */
static PyObject *fused_adam(tn_value *a, bool adamw) {
    const char *fn = adamw ? "_fused_adamw_" : "_fused_adam_";
    adam_p prm = {0};
    if (lr_of(&a[6], &prm.lr) < 0) return NULL;
    prm.beta1 = a[7].u.f; prm.beta2 = a[8].u.f; prm.wd = a[9].u.f; prm.eps = a[10].u.f;
    prm.amsgrad = a[11].u.i; prm.maximize = a[12].u.i; prm.adamw = adamw;
    const float *found;
    if (scale_ptrs(&a[13], &a[14], &prm.grad_scale, &found) < 0) return NULL;
    if (found && *found == 1.0f) Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_Size(a[0].u.obj);
    if (PyTuple_Size(a[1].u.obj) != n) return check_false("grads.size() == n_tensors");
    if (PyTuple_Size(a[2].u.obj) != n) return check_false("exp_avgs.size() == n_tensors");
    if (PyTuple_Size(a[3].u.obj) != n) return check_false("exp_avg_sqs.size() == n_tensors");
    if (prm.amsgrad ? PyTuple_Size(a[4].u.obj) != n : PyTuple_Size(a[4].u.obj) != 0)
        return check_false(prm.amsgrad ? "max_exp_avg_sqs.size() == n_tensors" : "max_exp_avg_sqs.size() == 0");
    if (PyTuple_Size(a[5].u.obj) != n) return check_false("state_steps.size() == n_tensors");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = item(a[0].u.obj, i);
        const tn_tensor *pt = tn_tensor_of(p);
        if (!param_dtype(pt, "fused_adam_kernel")) return NULL;
        for (int k = 0; k < 5; k++)
            if ((k < 4 || prm.amsgrad) && usable(item(a[k].u.obj, i), pt, fn) < 0) return NULL;
        tn_scalar st;
        PyObject *step = item(a[5].u.obj, i);
        if (tn_numel(tn_tensor_of(step)) != 1) {
            PyErr_SetString(PyExc_RuntimeError, "a Tensor with more than one element cannot be converted to Scalar");
            return NULL;
        }
        PyObject *sv = PyObject_CallMethod(step, "item", NULL);
        if (!sv) return NULL;
        st.re = PyFloat_AsDouble(sv);
        Py_DECREF(sv);
        if (PyErr_Occurred()) return NULL;
        prm.step = (double)(float)st.re; /* upstream: state_step.item<float>() */
        void *P = dptr(p), *G = dptr(item(a[1].u.obj, i)), *M = dptr(item(a[2].u.obj, i)),
             *V = dptr(item(a[3].u.obj, i)), *MX = prm.amsgrad ? dptr(item(a[4].u.obj, i)) : NULL;
        int64_t cnt = tn_numel(pt);
        switch (pt->dtype) {
        case TN_DTYPE_F32: adam_f32(P, G, M, V, MX, cnt, &prm); break;
        case TN_DTYPE_F64: adam_f64(P, G, M, V, MX, cnt, &prm); break;
        case TN_DTYPE_BF16: adam_bf16(P, G, M, V, MX, cnt, &prm); break;
        case TN_DTYPE_F16: adam_f16(P, G, M, V, MX, cnt, &prm); break;
        default:
            return tn_kernel_missing("fused_adam_kernel", pt->dtype);
        }
        bump(a, 5, i);
    }
    Py_RETURN_NONE;
}

PyObject *tn_op__fused_adam_(tn_value *a) { return fused_adam(a, false); }
PyObject *tn_op__fused_adam__tensor_lr(tn_value *a) { return fused_adam(a, false); }
PyObject *tn_op__fused_adamw_(tn_value *a) { return fused_adam(a, true); }
PyObject *tn_op__fused_adamw__tensor_lr(tn_value *a) { return fused_adam(a, true); }

/* _fused_sgd_(self, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening,
 * nesterov, maximize, is_first_step, grad_scale=None, found_inf=None) -> () */
static PyObject *fused_sgd(tn_value *a) {
    sgd_p prm = {0};
    prm.wd = a[3].u.f; prm.momentum = a[4].u.f;
    if (lr_of(&a[5], &prm.lr) < 0) return NULL;
    prm.dampening = a[6].u.f; prm.nesterov = a[7].u.i; prm.maximize = a[8].u.i; prm.first = a[9].u.i;
    const float *found;
    if (scale_ptrs(&a[10], &a[11], &prm.grad_scale, &found) < 0) return NULL;
    if (found && *found == 1.0f) Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_Size(a[0].u.obj);
    if (PyTuple_Size(a[1].u.obj) != n) return check_false("grads.size() == n_tensors");
    bool no_buf = prm.momentum == 0.0;
    if (no_buf ? PyTuple_Size(a[2].u.obj) != 0 : PyTuple_Size(a[2].u.obj) != n)
        return check_false(no_buf ? "momentum_buffer_list.size() == 0" : "momentum_buffer_list.size() == n_tensors");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = item(a[0].u.obj, i);
        const tn_tensor *pt = tn_tensor_of(p);
        if (!param_dtype(pt, "fused_sgd_kernel")) return NULL;
        for (int k = 0; k < 3; k++)
            if ((k < 2 || !no_buf) && usable(item(a[k].u.obj, i), pt, "_fused_sgd_") < 0) return NULL;
        void *P = dptr(p), *G = dptr(item(a[1].u.obj, i)), *B = no_buf ? NULL : dptr(item(a[2].u.obj, i));
        int64_t cnt = tn_numel(pt);
        switch (pt->dtype) {
        case TN_DTYPE_F32: sgd_f32(P, G, B, cnt, &prm); break;
        case TN_DTYPE_F64: sgd_f64(P, G, B, cnt, &prm); break;
        case TN_DTYPE_BF16: sgd_bf16(P, G, B, cnt, &prm); break;
        case TN_DTYPE_F16: sgd_f16(P, G, B, cnt, &prm); break;
        default:
            return tn_kernel_missing("fused_sgd_kernel", pt->dtype);
        }
        bump(a, 3, i);
    }
    Py_RETURN_NONE;
}

/* no Meta kernel upstream: a meta tensor anywhere (a list's element, grad_scale) refuses first,
 * in the door (dispatch/door.c no_meta_rows) */
PyObject *tn_op__fused_sgd_(tn_value *a) { return fused_sgd(a); }
PyObject *tn_op__fused_sgd__tensor_lr(tn_value *a) { return fused_sgd(a); }

/* _fused_adagrad_(self, grads, state_sums, state_steps, *, lr, lr_decay, weight_decay, eps,
 * maximize, grad_scale=None, found_inf=None) -> () */
PyObject *tn_op__fused_adagrad_(tn_value *a) {
    adagrad_p prm = {0};
    if (lr_of(&a[4], &prm.lr) < 0) return NULL;
    prm.lr_decay = a[5].u.f; prm.wd = a[6].u.f; prm.eps = a[7].u.f; prm.maximize = a[8].u.i;
    const float *found;
    if (scale_ptrs(&a[9], &a[10], &prm.grad_scale, &found) < 0) return NULL;
    if (found && *found == 1.0f) Py_RETURN_NONE;
    Py_ssize_t n = PyTuple_Size(a[0].u.obj);
    if (PyTuple_Size(a[1].u.obj) != n) return check_false("grads.size() == n_tensors");
    if (PyTuple_Size(a[2].u.obj) != n) return check_false("state_sums.size() == n_tensors");
    if (PyTuple_Size(a[3].u.obj) != n) return check_false("state_steps.size() == n_tensors");
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = item(a[0].u.obj, i);
        const tn_tensor *pt = tn_tensor_of(p);
        if (!param_dtype(pt, "fused_adagrad_kernel")) return NULL;
        for (int k = 0; k < 3; k++)
            if (usable(item(a[k].u.obj, i), pt, "_fused_adagrad_") < 0) return NULL;
        PyObject *sv = PyObject_CallMethod(item(a[3].u.obj, i), "item", NULL);
        if (!sv) return NULL;
        prm.step = (double)(float)PyFloat_AsDouble(sv); /* state_step.item<float>() */
        Py_DECREF(sv);
        if (PyErr_Occurred()) return NULL;
        void *P = dptr(p), *G = dptr(item(a[1].u.obj, i)), *S = dptr(item(a[2].u.obj, i));
        int64_t cnt = tn_numel(pt);
        switch (pt->dtype) {
        case TN_DTYPE_F32: adagrad_f32(P, G, S, cnt, &prm); break;
        case TN_DTYPE_F64: adagrad_f64(P, G, S, cnt, &prm); break;
        case TN_DTYPE_BF16: adagrad_bf16(P, G, S, cnt, &prm); break;
        case TN_DTYPE_F16: adagrad_f16(P, G, S, cnt, &prm); break;
        default:
            return tn_kernel_missing("fused_adagrad_kernel", pt->dtype);
        }
        bump(a, 3, i);
    }
    Py_RETURN_NONE;
}

PyObject *tn_op__fused_adagrad__tensor_lr(tn_value *a) { return tn_op__fused_adagrad_(a); }

/* ---- torch.amp.GradScaler on CPU: upstream's AmpGradScalerKernels.cpp ----
 * _amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale): each grad times
 * inv_scale in place (left as it is when inv_scale is 1; f16 / bf16 in float, rounded once; f64
 * times the float scale in double), found_inf set to 1 when an element is inf or NaN. An empty list
 * checks nothing; the grads are checked and scaled one after another, as upstream does. */
static int need_numel1(PyObject *t, const char *name) {
    if (tn_numel(tn_tensor_of(t)) == 1) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s must be a 1-element tensor.", name);
    return -1;
}
static int need_dtype(PyObject *t, const char *name, tn_dtype want, const char *kind) {
    if (tn_tensor_of(t)->dtype == want) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s must be %s tensor.", name, kind);
    return -1;
}

#define DEF_UNSCALE(sfx, CT, LD, ST)                                                   \
    static void unscale_##sfx(void *d, int64_t n, float *found, float inv) {          \
        for (int64_t k = 0; k < n; k++) {                                              \
            CT v = LD(d, k);                                                           \
            if (!isfinite(v)) *found = 1.0f;                                           \
            if (inv != 1.0f) ST(d, k, v * (CT)inv);                                    \
        }                                                                              \
    }
DEF_UNSCALE(f64, double, ld_f64, st_f64)
DEF_UNSCALE(f32, float, ld_f32, st_f32)
DEF_UNSCALE(f16, float, ld_f16, st_f16)
DEF_UNSCALE(bf16, float, ld_bf16, st_bf16)

static int unscale_one(PyObject *t, float *found, float inv) {
    const tn_tensor *x = tn_tensor_of(t);
    void (*fn)(void *, int64_t, float *, float) = x->dtype == TN_DTYPE_F64 ? unscale_f64 : x->dtype == TN_DTYPE_F32 ? unscale_f32
                                                 : x->dtype == TN_DTYPE_F16 ? unscale_f16 : x->dtype == TN_DTYPE_BF16 ? unscale_bf16 : NULL;
    if (!fn) {
        tn_kernel_missing("_amp_foreach_non_finite_check_and_unscale_cpu", x->dtype);
        return -1;
    }
    if (tn_check_overlap(t, 0, NULL) < 0) return -1;
    PyObject *c = tn_is_contiguous(x) ? Py_NewRef(t) : tn_as_dtype(t, x->dtype, true);
    if (!c) return -1;
    fn(dptr(c), tn_numel(x), found, inv);
    int rc = c == t ? 0 : tn_copy_into(t, c);
    Py_DECREF(c);
    tn_tensor_of(t)->storage->version++;
    return rc;
}

PyObject *tn_op__amp_foreach_non_finite_check_and_unscale_(tn_value *a) {
    PyObject *grads = a[0].u.obj, *fi = a[1].u.obj, *is = a[2].u.obj;
    Py_ssize_t n = PyTuple_Size(grads);
    if (n == 0) Py_RETURN_NONE;
    if (need_numel1(is, "inv_scale") < 0 || need_numel1(fi, "found_inf") < 0 ||
        need_dtype(is, "inv_scale", TN_DTYPE_F32, "a float") < 0 || need_dtype(fi, "found_inf", TN_DTYPE_F32, "a float") < 0)
        return NULL;
    float *found = dptr(fi);
    for (Py_ssize_t i = 0; i < n; i++)
        if (unscale_one(item(grads, i), found, *(const float *)dptr(is)) < 0) return NULL;
    tn_tensor_of(fi)->storage->version++;
    Py_RETURN_NONE;
}

/* _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
 * growth_interval): backoff and a reset tracker after a non-finite step (found_inf nonzero,
 * NaN too), else the tracker counts up and at growth_interval the scale grows unless that would
 * overflow float; products in double, rounded to float once. */
PyObject *tn_op__amp_update_scale_(tn_value *a) {
    PyObject *sc = a[0].u.obj, *gt = a[1].u.obj, *fi = a[2].u.obj;
    if (need_numel1(gt, "growth_tracker") < 0 || need_numel1(sc, "current_scale") < 0 || need_numel1(fi, "found_inf") < 0 ||
        need_dtype(gt, "growth_tracker", TN_DTYPE_I32, "an int") < 0 ||
        need_dtype(sc, "current_scale", TN_DTYPE_F32, "a float") < 0 || need_dtype(fi, "found_inf", TN_DTYPE_F32, "a float") < 0)
        return NULL;
    float *s = dptr(sc);
    int32_t *g = dptr(gt);
    if (*(const float *)dptr(fi) != 0.0f) {
        *s = (float)((double)*s * a[4].u.f);
        *g = 0;
    } else if ((int64_t)*g + 1 == a[5].u.i) {
        float ns = (float)((double)*s * a[3].u.f);
        if (isfinite(ns)) *s = ns;
        *g = 0;
    } else {
        *g += 1;
    }
    tn_tensor_of(sc)->storage->version++;
    tn_tensor_of(gt)->storage->version++;
    return Py_NewRef(sc);
}
