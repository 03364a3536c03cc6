/* ref/loss.c — reference kernels of the loss operators (kernels/loss.h).
 *
 * Formulas are upstream's scalar ones (ATen/native/Loss.cpp, LossMultiMargin.cpp,
 * LossMultiLabelMargin.cpp, cpu/BinaryOpsKernel.cpp, cpu/PointwiseOpsKernel.cpp,
 * cpu/Activation.cpp), in the same order. R rounds a compute-type (float) value to the 16-bit
 * storage type after an operation where upstream computes in c10::Half / c10::BFloat16 itself;
 * W is the identity where upstream widens the 16-bit type to float for the whole formula. */
#include "kernels/loss.h"
#include "kernels/ref/ew_impl.h"

#include <tgmath.h>

#define R_ID(v) (v)
#define R_H(v) tn__h2f(tn__f2h(v))
#define R_B(v) tn__b2f(tn__f2b(v))
#define PL ((const tn_loss_params *)ctx)

/* ---- elementwise loops over {out, in1, in2[, in3]} ---- */
#define TN_LOSS_LOOP2(name, TS, CT, LD, ST, R, BODY)                                           \
    static void name(char **data, const int64_t *s, int64_t n, const void *ctx) {              \
        (void)ctx;                                                                             \
        for (int64_t k = 0; k < n; k++) {                                                      \
            CT a = LD(*(const TS *)(data[1] + k * s[1])), b = LD(*(const TS *)(data[2] + k * s[2])); \
            CT r_;                                                                             \
            BODY                                                                               \
            *(TS *)(data[0] + k * s[0]) = ST(r_);                                              \
        }                                                                                      \
    }
#define TN_LOSS_LOOP3(name, TS, CT, LD, ST, R, BODY)                                           \
    static void name(char **data, const int64_t *s, int64_t n, const void *ctx) {              \
        (void)ctx;                                                                             \
        for (int64_t k = 0; k < n; k++) {                                                      \
            CT a = LD(*(const TS *)(data[1] + k * s[1])), b = LD(*(const TS *)(data[2] + k * s[2])); \
            CT c = LD(*(const TS *)(data[3] + k * s[3]));                                      \
            CT r_;                                                                             \
            BODY                                                                               \
            *(TS *)(data[0] + k * s[0]) = ST(r_);                                              \
        }                                                                                      \
    }

/* smooth_l1: z = |a - b|; z < beta ? 0.5 * z * z / beta : z - 0.5 * beta */
#define SL1_BODY(CT, R)                                                                        \
    const CT beta = R((CT)PL->p0);                                                             \
    CT z = R(fabs(R(a - b)));                                                                  \
    r_ = z < beta ? R(R(R((CT)0.5 * z) * z) / beta) : R(z - R((CT)0.5 * beta));
/* huber: z = |a - b|; z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta) */
#define HUBER_BODY(CT, R)                                                                      \
    const CT delta = R((CT)PL->p0);                                                            \
    CT z = R(fabs(R(a - b)));                                                                  \
    r_ = z < delta ? R(R((CT)0.5 * z) * z) : R(delta * R(z - R((CT)0.5 * delta)));
/* smooth_l1 backward (a input, b target, c grad): x = a - b; x <= -beta ? -norm * g :
 * x >= beta ? norm * g : norm * x / beta * g (the association upstream's vector code computes) */
#define SL1B_BODY(CT, R)                                                                       \
    const CT norm = R((CT)PL->p0), beta = R((CT)PL->p1);                                       \
    CT x = R(a - b);                                                                           \
    if (x <= -beta) r_ = R(-norm * c);                                                         \
    else if (x >= beta) r_ = R(norm * c);                                                      \
    else r_ = R(R(R(norm * x) / beta) * c);
/* huber backward: x <= -delta ? -norm * (g * delta) : x >= delta ? norm * (g * delta) : norm * x * g
 * (the association upstream's vector code computes) */
#define HUBERB_BODY(CT, R)                                                                     \
    const CT norm = R((CT)PL->p0), delta = R((CT)PL->p1);                                      \
    CT x = R(a - b);                                                                           \
    if (x <= -delta) r_ = R(-norm * R(c * delta));                                             \
    else if (x >= delta) r_ = R(norm * R(c * delta));                                          \
    else r_ = R(R(norm * x) * c);
/* binary_cross_entropy backward (a grad, b input, c target): g * (x - t) / max((1 - x) * x, eps) */
#define BCEB_BODY(CT, R, EPS)                                                                  \
    CT den = R(R((CT)1 - b) * b);                                                              \
    if (den < (CT)(EPS)) den = (CT)(EPS);                                                      \
    r_ = R(R(a * R(b - c)) / den);
/* log_sigmoid backward (a input, b buffer, c grad):
 * (max_deriv - sign * (buffer / (1 + buffer))) * grad */
#define LSB_BODY(CT, R)                                                                        \
    bool neg = a < (CT)0;                                                                      \
    CT md = neg ? (CT)1 : (CT)0, sg = neg ? (CT)1 : (CT)-1;                                    \
    r_ = R(R(md - R(sg * R(b / R((CT)1 + b)))) * c);

#define EPS_F 1e-12f
/* binary_cross_entropy (a input, b target): (t - 1) * max(log(1 - x), -100) - t * max(log(x), -100);
 * std::max(v, -100) is v < -100 ? -100 : v */
#define BCE_BODY(CT, R)                                                                        \
    CT l1 = R(log((CT)1 - a)), l0 = R(log(a)); /* 1 - x unrounded (measured) */                                              \
    if (l1 < (CT)-100) l1 = (CT)-100;                                                          \
    if (l0 < (CT)-100) l0 = (CT)-100;                                                          \
    r_ = R(R(R(b - (CT)1) * l1) - R(b * l0));

#define DEF_ALL(sfx, TS, CT, LD, ST, RS, RSB, RH, RHB, RB, RBB)                              \
    TN_LOSS_LOOP2(sl1_##sfx, TS, CT, LD, ST, RS, SL1_BODY(CT, RS))                             \
    TN_LOSS_LOOP2(huber_##sfx, TS, CT, LD, ST, RH, HUBER_BODY(CT, RH))                         \
    TN_LOSS_LOOP3(sl1b_##sfx, TS, CT, LD, ST, RSB, SL1B_BODY(CT, RSB))                         \
    TN_LOSS_LOOP3(huberb_##sfx, TS, CT, LD, ST, RHB, HUBERB_BODY(CT, RHB))                     \
    TN_LOSS_LOOP2(bce_##sfx, TS, CT, LD, ST, RB, BCE_BODY(CT, RB))                             \
    TN_LOSS_LOOP3(bceb_##sfx, TS, CT, LD, ST, RBB, BCEB_BODY(CT, RBB, RBB((CT)EPS_F)))         \
    TN_LOSS_LOOP3(lsb_##sfx, TS, CT, LD, ST, R_ID, LSB_BODY(CT, R_ID))

/* per op, R_H / R_B where upstream's kernel rounds every operation to the 16-bit type, R_ID
 * where it widens to float for the whole formula (measured against upstream) */
DEF_ALL(f32, float, float, TN_LD_ID, TN_ST_ID, R_ID, R_ID, R_ID, R_ID, R_ID, R_ID)
DEF_ALL(f64, double, double, TN_LD_ID, TN_ST_ID, R_ID, R_ID, R_ID, R_ID, R_ID, R_ID)
DEF_ALL(f16, uint16_t, float, TN_LD_H, TN_ST_H, R_H, R_ID, R_ID, R_H, R_H, R_H)
DEF_ALL(bf16, uint16_t, float, TN_LD_B, TN_ST_B, R_ID, R_ID, R_B, R_B, R_B, R_B)

tn_loop tn_loss_loop(tn_loss_op op, tn_dtype dt) {
#define PICK(name)                                                                             \
    switch (dt) {                                                                              \
    case TN_DTYPE_F32: return name##_f32;                                                      \
    case TN_DTYPE_F64: return name##_f64;                                                      \
    case TN_DTYPE_F16: return name##_f16;                                                      \
    case TN_DTYPE_BF16: return name##_bf16;                                                    \
    default: return NULL;                                                                      \
    }
    switch (op) {
    case TN_LOSS_SMOOTH_L1: PICK(sl1)
    case TN_LOSS_HUBER: PICK(huber)
    case TN_LOSS_SMOOTH_L1_BWD: PICK(sl1b)
    case TN_LOSS_HUBER_BWD: PICK(huberb)
    case TN_LOSS_BCE: PICK(bce)
    case TN_LOSS_BCE_BWD: PICK(bceb)
    case TN_LOSS_LOG_SIGMOID_BWD: PICK(lsb)
    default: return NULL;
    }
#undef PICK
}

/* ---- log_sigmoid forward: min(x, 0) - log1p(exp(-|x|)); 16-bit types in float ---- */
#define LSF(sfx, TS, CT, LD, ST)                                                               \
    static void lsf_##sfx(const TS *x, TS *out, TS *buf, int64_t n) {                          \
        for (int64_t i = 0; i < n; i++) {                                                      \
            CT v = LD(x[i]);                                                                   \
            CT mn = v < (CT)0 ? v : (CT)0;                                                     \
            if (v != v) mn = v;                                                                \
            CT b = exp(-fabs(v));                                                              \
            buf[i] = ST(b);                                                                    \
            out[i] = ST(mn - log1p(b));                                                        \
        }                                                                                      \
    }
LSF(f32, float, float, TN_LD_ID, TN_ST_ID)
LSF(f64, double, double, TN_LD_ID, TN_ST_ID)
LSF(f16, uint16_t, float, TN_LD_H, TN_ST_H)
LSF(bf16, uint16_t, float, TN_LD_B, TN_ST_B)

void tn_log_sigmoid_forward(tn_dtype dt, const void *x, void *out, void *buffer, int64_t n) {
    switch (dt) {
    case TN_DTYPE_F32: lsf_f32(x, out, buffer, n); break;
    case TN_DTYPE_F64: lsf_f64(x, out, buffer, n); break;
    case TN_DTYPE_F16: lsf_f16(x, out, buffer, n); break;
    case TN_DTYPE_BF16: lsf_bf16(x, out, buffer, n); break;
    default: break;
    }
}

/* ---- multi_margin_loss (scalar_t arithmetic, sums over frames in double) ---- */
#define MM(sfx, T)                                                                             \
    static T mm_inner_##sfx(const T *in, const T *w, int p, T margin, int64_t dim, int64_t ti) { \
        const T it = in[ti];                                                                   \
        T sum = 0;                                                                             \
        for (int64_t d = 0; d < dim; d++) {                                                    \
            if (d == ti) continue;                                                             \
            const T z = margin - it + in[d];                                                   \
            if (z > 0) {                                                                       \
                T h = p == 1 ? z : z * z;                                                      \
                if (w) h *= w[ti];                                                             \
                sum += h;                                                                      \
            }                                                                                  \
        }                                                                                      \
        sum /= (T)dim;                                                                         \
        return sum;                                                                            \
    }                                                                                          \
    static void mm_fwd_##sfx(const T *in, const int64_t *tg, int p, T margin, const T *w, int64_t nframe, \
                             int64_t dim, bool per_frame, bool mean, T *out) {                 \
        if (per_frame) {                                                                       \
            for (int64_t t = 0; t < nframe; t++) out[t] = mm_inner_##sfx(in + t * dim, w, p, margin, dim, tg[t]); \
            return;                                                                            \
        }                                                                                      \
        double sum = 0;                                                                        \
        for (int64_t t = 0; t < nframe; t++) sum += mm_inner_##sfx(in + t * dim, w, p, margin, dim, tg[t]); \
        if (mean) sum /= (double)nframe;                                                       \
        out[0] = (T)sum;                                                                       \
    }                                                                                          \
    static void mm_bwd_##sfx(const T *go, bool per_frame, const T *in, const int64_t *tg, int p, T margin, \
                             const T *w, int64_t nframe, int64_t dim, bool mean, T *gi) {      \
        const T g = mean ? (T)(1. / (double)(nframe * dim)) : (T)(1. / (double)dim);           \
        for (int64_t t = 0; t < nframe; t++) {                                                 \
            const T *row = in + t * dim;                                                       \
            T *grow = gi + t * dim;                                                            \
            const int64_t ti = tg[t];                                                          \
            const T it = row[ti];                                                              \
            T gt = 0;                                                                          \
            for (int64_t d = 0; d < dim; d++) {                                                \
                const T z = margin - it + row[d];                                              \
                if (d == ti) continue;                                                         \
                if (z > 0) {                                                                   \
                    T h = p == 1 ? g : 2 * g * z;                                              \
                    if (w) h *= w[ti];                                                         \
                    gt -= h;                                                                   \
                    grow[d] = h;                                                               \
                } else {                                                                       \
                    grow[d] = 0;                                                               \
                }                                                                              \
            }                                                                                  \
            grow[ti] = gt;                                                                     \
        }                                                                                      \
        if (!per_frame) {                                                                      \
            const T d = go[0];                                                                 \
            for (int64_t i = 0; i < nframe * dim; i++) gi[i] *= d;                             \
        } else {                                                                               \
            for (int64_t t = 0; t < nframe; t++)                                               \
                for (int64_t d = 0; d < dim; d++) gi[t * dim + d] *= go[t];                    \
        }                                                                                      \
    }
MM(f32, float)
MM(f64, double)

void tn_multi_margin_forward(tn_dtype dt, const void *input, const int64_t *target, int p, double margin,
                             const void *weight, int64_t nframe, int64_t dim, bool per_frame, bool mean, void *out) {
    if (dt == TN_DTYPE_F32) mm_fwd_f32(input, target, p, (float)margin, weight, nframe, dim, per_frame, mean, out);
    else if (dt == TN_DTYPE_F64) mm_fwd_f64(input, target, p, margin, weight, nframe, dim, per_frame, mean, out);
}
void tn_multi_margin_backward(tn_dtype dt, const void *grad_output, bool per_frame, const void *input,
                              const int64_t *target, int p, double margin, const void *weight, int64_t nframe,
                              int64_t dim, bool mean, void *grad_input) {
    if (dt == TN_DTYPE_F32)
        mm_bwd_f32(grad_output, per_frame, input, target, p, (float)margin, weight, nframe, dim, mean, grad_input);
    else if (dt == TN_DTYPE_F64)
        mm_bwd_f64(grad_output, per_frame, input, target, p, margin, weight, nframe, dim, mean, grad_input);
}

/* ---- multilabel_margin_loss ---- */
#define MLM(sfx, T)                                                                            \
    static T mlm_inner_##sfx(const T *in, const int64_t *tg, T *ist, int64_t dim) {            \
        double sum = 0;                                                                        \
        for (int64_t k = 0; k < dim; k++) {                                                    \
            if (tg[k] < 0) break;                                                              \
            ist[tg[k]] = 1;                                                                    \
        }                                                                                      \
        for (int64_t k = 0; k < dim; k++) {                                                    \
            const int64_t ti = tg[k];                                                          \
            if (ti < 0) break;                                                                 \
            const T it = in[ti];                                                               \
            for (int64_t d = 0; d < dim; d++)                                                  \
                if (!ist[d]) {                                                                 \
                    const T z = 1 - it + in[d];                                                \
                    if (z > 0) sum += z;                                                       \
                }                                                                              \
        }                                                                                      \
        return (T)sum;                                                                         \
    }                                                                                          \
    static void mlm_fwd_##sfx(const T *in, const int64_t *tg, int64_t nframe, int64_t dim, bool per_frame, \
                              bool mean, T *out, T *ist) {                                     \
        for (int64_t i = 0; i < nframe * dim; i++) ist[i] = 0;                                 \
        if (!per_frame) {                                                                      \
            double sum = 0;                                                                    \
            for (int64_t t = 0; t < nframe; t++) sum += mlm_inner_##sfx(in + t * dim, tg + t * dim, ist + t * dim, dim); \
            sum /= (double)dim;                                                                \
            if (mean) sum /= (double)nframe;                                                   \
            out[0] = (T)sum;                                                                   \
            return;                                                                            \
        }                                                                                      \
        for (int64_t t = 0; t < nframe; t++) {                                                 \
            T sum = mlm_inner_##sfx(in + t * dim, tg + t * dim, ist + t * dim, dim);           \
            sum /= (T)dim;                                                                     \
            out[t] = sum;                                                                      \
        }                                                                                      \
    }                                                                                          \
    static void mlm_bwd_##sfx(const T *go, bool per_frame, const T *in, const int64_t *tg, const T *ist, \
                              int64_t nframe, int64_t dim, bool mean, T *gi) {                 \
        const T g = (T)(mean ? 1. / (double)(nframe * dim) : 1. / (double)dim);                \
        for (int64_t i = 0; i < nframe * dim; i++) gi[i] = 0;                                  \
        for (int64_t t = 0; t < nframe; t++) {                                                 \
            const T *row = in + t * dim, *irow = ist + t * dim;                                \
            const int64_t *trow = tg + t * dim;                                                \
            T *grow = gi + t * dim;                                                            \
            for (int64_t k = 0; k < dim; k++) {                                                \
                const int64_t ti = trow[k];                                                    \
                if (ti < 0) break;                                                             \
                const T it = row[ti];                                                          \
                for (int64_t d = 0; d < dim; d++)                                              \
                    if (!irow[d]) {                                                            \
                        const T z = 1 - it + row[d];                                           \
                        if (z > 0) {                                                           \
                            grow[ti] -= g;                                                     \
                            grow[d] += g;                                                      \
                        }                                                                      \
                    }                                                                          \
            }                                                                                  \
        }                                                                                      \
        if (!per_frame) {                                                                      \
            const T d = go[0];                                                                 \
            for (int64_t i = 0; i < nframe * dim; i++) gi[i] *= d;                             \
        } else {                                                                               \
            for (int64_t t = 0; t < nframe; t++)                                               \
                for (int64_t d = 0; d < dim; d++) gi[t * dim + d] *= go[t];                    \
        }                                                                                      \
    }
MLM(f32, float)
MLM(f64, double)

void tn_multilabel_margin_forward(tn_dtype dt, const void *input, const int64_t *target, int64_t nframe,
                                  int64_t dim, bool per_frame, bool mean, void *out, void *is_target) {
    if (dt == TN_DTYPE_F32) mlm_fwd_f32(input, target, nframe, dim, per_frame, mean, out, is_target);
    else if (dt == TN_DTYPE_F64) mlm_fwd_f64(input, target, nframe, dim, per_frame, mean, out, is_target);
}
void tn_multilabel_margin_backward(tn_dtype dt, const void *grad_output, bool per_frame, const void *input,
                                   const int64_t *target, const void *is_target, int64_t nframe, int64_t dim,
                                   bool mean, void *grad_input) {
    if (dt == TN_DTYPE_F32)
        mlm_bwd_f32(grad_output, per_frame, input, target, is_target, nframe, dim, mean, grad_input);
    else if (dt == TN_DTYPE_F64)
        mlm_bwd_f64(grad_output, per_frame, input, target, is_target, nframe, dim, mean, grad_input);
}

/* ---- CTC: alpha / beta recursions in log space, upstream's scalar arithmetic ---- */
static inline int64_t ctc_prime(const int64_t *tg, int64_t off, int64_t stride, int64_t idx, int64_t blank) {
    return idx % 2 == 0 ? blank : tg[off + stride * (idx / 2)];
}
#define CTC(sfx, T_)                                                                           \
    static void ctc_fwd_##sfx(const T_ *lp, const int64_t *tg, const int64_t *off, int64_t st,  \
                              const int64_t *il, const int64_t *tl, int64_t T, int64_t B, int64_t C, \
                              int64_t S, int64_t blank, T_ *nll, T_ *la) {                     \
        const T_ neginf = -(T_)INFINITY;                                                       \
        for (int64_t b = 0; b < B; b++)                                                        \
            for (int64_t s = 0; s < S; s++) la[(b * T) * S + s] = neginf;                      \
        for (int64_t b = 0; b < B; b++) {                                                      \
            const int64_t in_len = il[b], tg_len = tl[b], o = off[b];                          \
            T_ *a = la + b * T * S;                                                            \
            const T_ *p = lp + b * C; /* p[t * B * C + c] */                                   \
            const int64_t ts = B * C;                                                          \
            if (in_len == 0) {                                                                 \
                T_ ll = tg_len == 0 ? (T_)0 : neginf;                                          \
                nll[b] = -ll;                                                                  \
                continue;                                                                      \
            }                                                                                  \
            a[0] = p[blank];                                                                   \
            if (tg_len > 0) a[1] = p[ctc_prime(tg, o, st, 1, blank)];                          \
            for (int64_t t = 1; t < in_len; t++)                                               \
                for (int64_t s = 0; s < 2 * tg_len + 1; s++) {                                 \
                    int64_t cur = ctc_prime(tg, o, st, s, blank);                              \
                    T_ la1 = a[(t - 1) * S + s], lamax = la1, la2, la3;                        \
                    if (s > 0) {                                                               \
                        la2 = a[(t - 1) * S + s - 1];                                          \
                        if (la2 > lamax) lamax = la2;                                          \
                    } else la2 = neginf;                                                       \
                    if (s > 1 && ctc_prime(tg, o, st, s - 2, blank) != cur) {                  \
                        la3 = a[(t - 1) * S + s - 2];                                          \
                        if (la3 > lamax) lamax = la3;                                          \
                    } else la3 = neginf;                                                       \
                    if (lamax == neginf) lamax = 0;                                            \
                    a[t * S + s] = log(exp(la1 - lamax) + exp(la2 - lamax) + exp(la3 - lamax)) + lamax + p[t * ts + cur]; \
                }                                                                              \
            if (tg_len == 0) {                                                                 \
                nll[b] = -a[(in_len - 1) * S];                                                 \
            } else {                                                                           \
                T_ l1 = a[(in_len - 1) * S + tg_len * 2], l2 = a[(in_len - 1) * S + tg_len * 2 - 1]; \
                T_ m = l1 < l2 ? l2 : l1;                                                      \
                m = m == neginf ? 0 : m;                                                       \
                T_ ll = log(exp(l1 - m) + exp(l2 - m)) + m;                                    \
                nll[b] = -ll;                                                                  \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
    static void ctc_bwd_##sfx(const T_ *go, int64_t gs, const T_ *lp, const int64_t *tg, const int64_t *off, \
                              int64_t st, const int64_t *il, const int64_t *tl, const T_ *nllv, const T_ *la, \
                              int64_t T, int64_t B, int64_t C, int64_t S, int64_t blank, bool zinf, T_ *lb, T_ *gr) { \
        const T_ neginf = -(T_)INFINITY;                                                       \
        const int64_t ts = B * C;                                                              \
        for (int64_t i = 0; i < T * B * C; i++) gr[i] = neginf;                                \
        for (int64_t b = 0; b < B; b++) {                                                      \
            T_ nll = nllv[b];                                                                  \
            T_ *g = gr + b * C;                                                                \
            if (zinf && nll == (T_)INFINITY) {                                                 \
                for (int64_t t = 0; t < T; t++)                                                \
                    for (int64_t c = 0; c < C; c++) g[t * ts + c] = 0;                         \
                continue;                                                                      \
            }                                                                                  \
            const T_ *p = lp + b * C, *a = la + b * T * S;                                     \
            T_ *be = lb + b * T * S;                                                           \
            const int64_t in_len = il[b], tg_len = tl[b], o = off[b];                          \
            if (in_len > 0) {                                                                  \
                for (int64_t q = 0; q < S; q++) be[(in_len - 1) * S + q] = neginf;             \
                be[(in_len - 1) * S + 2 * tg_len] = p[(in_len - 1) * ts + blank];              \
                g[(in_len - 1) * ts + blank] = a[(in_len - 1) * S + 2 * tg_len] + be[(in_len - 1) * S + 2 * tg_len]; \
                if (tg_len > 0) {                                                              \
                    int64_t cur = ctc_prime(tg, o, st, 2 * tg_len - 1, blank);                 \
                    be[(in_len - 1) * S + 2 * tg_len - 1] = p[(in_len - 1) * ts + cur];        \
                    g[(in_len - 1) * ts + cur] = a[(in_len - 1) * S + 2 * tg_len - 1] + be[(in_len - 1) * S + 2 * tg_len - 1]; \
                }                                                                              \
            }                                                                                  \
            for (int64_t t = in_len - 2; t >= 0; t--)                                          \
                for (int64_t s = 2 * tg_len; s >= 0; s--) {                                    \
                    T_ lb1 = be[(t + 1) * S + s], lbmax = lb1, lb2, lb3;                       \
                    int64_t cur = ctc_prime(tg, o, st, s, blank);                              \
                    if (s < 2 * tg_len) {                                                      \
                        lb2 = be[(t + 1) * S + s + 1];                                         \
                        if (lb2 > lbmax) lbmax = lb2;                                          \
                    } else lb2 = neginf;                                                       \
                    if (s < 2 * tg_len - 1 && ctc_prime(tg, o, st, s + 2, blank) != cur) {     \
                        lb3 = be[(t + 1) * S + s + 2];                                         \
                        if (lb3 > lbmax) lbmax = lb3;                                          \
                    } else lb3 = neginf;                                                       \
                    if (lbmax == neginf) lbmax = 0;                                            \
                    be[t * S + s] = log(exp(lb1 - lbmax) + exp(lb2 - lbmax) + exp(lb3 - lbmax)) + lbmax + p[t * ts + cur]; \
                    T_ lab = a[t * S + s] + be[t * S + s];                                     \
                    T_ *lc = &g[t * ts + cur];                                                 \
                    if (*lc == neginf) *lc = lab;                                              \
                    else {                                                                     \
                        T_ mx = *lc < lab ? lab : *lc;                                         \
                        *lc = log(exp(*lc - mx) + exp(lab - mx)) + mx;                         \
                    }                                                                          \
                }                                                                              \
            const T_ gv = go[b * gs];                                                          \
            for (int64_t t = 0; t < in_len; t++)                                               \
                for (int64_t c = 0; c < C; c++) {                                              \
                    T_ *r = &g[t * ts + c];                                                    \
                    T_ l = p[t * ts + c];                                                      \
                    *r = (exp(l) - exp(*r + nll - l)) * gv;                                    \
                }                                                                              \
            for (int64_t t = in_len; t < T; t++)                                               \
                for (int64_t c = 0; c < C; c++) g[t * ts + c] = 0;                             \
        }                                                                                      \
    }
CTC(f32, float)
CTC(f64, double)

void tn_ctc_loss_forward(tn_dtype dt, const void *log_probs, const int64_t *targets, const int64_t *tg_offset,
                         int64_t tg_stride, const int64_t *il, const int64_t *tl, int64_t T, int64_t B, int64_t C,
                         int64_t S, int64_t blank, void *nll, void *log_alpha) {
    if (dt == TN_DTYPE_F32)
        ctc_fwd_f32(log_probs, targets, tg_offset, tg_stride, il, tl, T, B, C, S, blank, nll, log_alpha);
    else if (dt == TN_DTYPE_F64)
        ctc_fwd_f64(log_probs, targets, tg_offset, tg_stride, il, tl, T, B, C, S, blank, nll, log_alpha);
}
void tn_ctc_loss_backward(tn_dtype dt, const void *grad_out, int64_t go_stride, const void *log_probs,
                          const int64_t *targets, const int64_t *tg_offset, int64_t tg_stride, const int64_t *il,
                          const int64_t *tl, const void *nll, const void *log_alpha, int64_t T, int64_t B, int64_t C,
                          int64_t S, int64_t blank, bool zero_infinity, void *log_beta, void *grad) {
    if (dt == TN_DTYPE_F32)
        ctc_bwd_f32(grad_out, go_stride, log_probs, targets, tg_offset, tg_stride, il, tl, nll, log_alpha, T, B, C, S,
                    blank, zero_infinity, log_beta, grad);
    else if (dt == TN_DTYPE_F64)
        ctc_bwd_f64(grad_out, go_stride, log_probs, targets, tg_offset, tg_stride, il, tl, nll, log_alpha, T, B, C, S,
                    blank, zero_infinity, log_beta, grad);
}
