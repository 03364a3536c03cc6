/* ref/backward.c — reference kernels of the aten backward operators (kernels/backward.h).
 *
 * Elementwise formulas are upstream's scalar ones (ATen/native/cpu/Activation.cpp,
 * BinaryOpsKernel.cpp, PointwiseOpsKernel.cpp), written in the same order; f16 / bf16 load to
 * f32 and store once. Reductions (softmax, layer norm) accumulate in double. */
#include "kernels/backward.h"
#include "kernels/ref/ew_impl.h"
#include "kernels/vmath.h"

#include <tgmath.h>

#define PP ((const tn_bwd_params *)ctx_)
/* R rounds a compute-type value to the storage type's precision (identity for f32 / f64). */
#define R_ID(v) (v)
#define R_H(v) tn__h2f(tn__f2h(v))
#define R_B(v) tn__b2f(tn__f2b(v))
#define TN_SQRT1_2_D 0.70710678118654752440
#define TN_2_SQRTPI_D 1.12837916709551257390
#define TN_SQRT2_D 1.41421356237309504880

/* ---- float family: g = grad, x = self / output, T = compute type (float or double) ---- */
#define BF_THRESHOLD(g, x, T, P) ((x) <= (T)PP->p0 ? (T)0 : (g))
#define BF_SIGMOID(g, x, T, P) ((g) * ((T)1 - (x)) * (x))
/* upstream's vector code is compiled with contraction: 1 - y * y is one fused multiply-add */
#define BF_TANH(g, x, T, P) ((g) * fma(-(x), (x), (T)1))
#define BF_SILU(g, x, T, P) tn__silu_bwd_##T(g, x)
#define BF_GELU(g, x, T, P) tn__gelu_bwd_##T(g, x)
#define BF_GELU_TANH(g, x, T, P) tn__gelu_tanh_bwd_##T(g, x)
#define BF_HARDTANH(g, x, T, P) (((x) <= (T)PP->p0 || (x) >= (T)PP->p1) ? (T)0 : (g))
#define BF_LEAKY_RELU(g, x, T, P) ((x) > (T)0 ? (g) : (g) * (T)PP->p0)
#define BF_ELU(g, x, T, P) tn__elu_bwd_##T(g, x, PP)
/* upstream's one_sixth is scalar_t(1.0f / 6.0f): the float quotient, also for double */
#define BF_HARDSIGMOID(g, x, T, P) (((x) > (T)-3 && (x) < (T)3) ? (g) * (T)(1.0f / 6.0f) : (T)0)
/* upstream's vector body (2.13: 0 from x <= -3 on, measured; NaN x gives NaN) */
#define BF_HARDSWISH(g, x, T, P) ((x) <= (T)-3 ? (T)0 : (x) >= (T)3 ? (g) : (g) * ((x) / (T)3 + (T)0.5))
#define BF_SOFTPLUS(g, x, T, P) tn__softplus_bwd_##T(g, x, PP)
/* mish: upstream's formula with the C library's exp / log1p / tanh. Upstream's float64 kernel takes
 * them from Sleef (expd / log1pd / tanhd, 1 ulp), on every element: length-15 inputs (no whole
 * 16-element vector block) differ as much as long ones. Measured (issue #11, seeded sweep of
 * 700,001 values, x ~ N(0, 0.5 / 3 / 12) and [-40, 40]): 38% of results differ, 1 ulp 58% of
 * those, <= 3 ulps 91%, <= 28 ulps 99%; the largest (58,680 ulps, relative 9e-12) where the result
 * cancels to near 0 (x near -1.2). Bits would take ports of Sleef's double-double tanh and log1p. */
#define BF_MISH(g, x, T, P) tn__mish_bwd_##T(g, x)

#define TN_BWD_HELPERS(T)                                                                      \
    static inline T tn__silu_bwd_##T(T dy, T x) {                                              \
        const T s = (T)1 / ((T)1 + exp(-x));                                                   \
        return dy * s * ((T)1 + x * ((T)1 - s));                                               \
    }                                                                                          \
    static inline T tn__gelu_bwd_##T(T dy, T x) {                                              \
        const T kBeta = (T)(TN_2_SQRTPI_D * TN_SQRT1_2_D * 0.5);                               \
        const T kAlpha = (T)TN_SQRT1_2_D;                                                      \
        const T cdf = (T)0.5 * ((T)1 + erf(x * kAlpha));                                       \
        const T pdf = kBeta * exp(x * x * (T)-0.5);                                            \
        return dy * (cdf + x * pdf);                                                           \
    }                                                                                          \
    static inline T tn__gelu_tanh_bwd_##T(T dy, T x) {                                         \
        const T kBeta = (T)(TN_SQRT2_D * TN_2_SQRTPI_D * 0.5);                                 \
        const T kKappa = (T)0.044715;                                                          \
        const T x_sq = x * x;                                                                  \
        const T x_cube = x_sq * x;                                                             \
        const T inner = kBeta * (x + kKappa * x_cube);                                         \
        const T tanh_inner = tanh(inner);                                                      \
        const T left = (T)0.5 * x;                                                             \
        const T right = (T)1 + tanh_inner;                                                     \
        const T left_derivative = (T)0.5 * right;                                              \
        const T tanh_derivative = (T)1 - tanh_inner * tanh_inner;                              \
        const T inner_derivative = kBeta * ((T)1 + (T)3 * kKappa * x_sq);                      \
        const T right_derivative = left * tanh_derivative * inner_derivative;                  \
        return dy * (left_derivative + right_derivative);                                      \
    }                                                                                          \
    static inline T tn__elu_bwd_##T(T a, T b, const tn_bwd_params *p) {                        \
        const T negcoef = (T)p->p0 * (T)p->p1, poscoef = (T)p->p1, negiptcoef = (T)p->p2;      \
        if (p->flag) return b <= (T)0 ? a * negiptcoef * (b + negcoef) : a * poscoef;          \
        return b <= (T)0 ? a * negiptcoef * negcoef * exp(b * negiptcoef) : a * poscoef;       \
    }                                                                                          \
    static inline T tn__softplus_bwd_##T(T a, T b, const tn_bwd_params *p) {                   \
        const T beta = (T)p->p0, xb = b * beta, z = exp(xb);                                   \
        return xb > (T)p->p1 ? a : a * z / (z + (T)1);                                         \
    }                                                                                          \
    static inline T tn__mish_bwd_##T(T dy, T x) {                                              \
        const T sig = (T)1 / ((T)1 + exp(-x));                                                 \
        const T tsp = tanh(log1p(exp(x)));                                                     \
        return dy * (tsp + x * sig * ((T)1 - tsp * tsp));                                      \
    }
TN_BWD_HELPERS(float)
TN_BWD_HELPERS(double)

/* ---- complex family (sigmoid / tanh backward): grad * conj(...) ---- */
#define TN_BWD_CPLX(T, R, MK)                                                                  \
    static inline T tn__conj_##T(T z) { return MK(creal(z), -cimag(z)); }                      \
    static inline T tn__sig_bwd_##T(T a, T b) {                                                \
        return tn__cmul_##T(a, tn__conj_##T(tn__cmul_##T(MK((R)1 - creal(b), -cimag(b)), b))); \
    }                                                                                          \
    static inline T tn__tanh_bwd_##T(T a, T b) {                                               \
        T bb = tn__cmul_##T(b, b);                                                             \
        return tn__cmul_##T(a, tn__conj_##T(MK((R)1 - creal(bb), -cimag(bb))));                 \
    }                                                                                          \
    /* silu: s = 1 / (1 + exp(-x)); dy * s * (1 + x * (1 - s)), left to right (upstream's scalar \
     * complex kernel, measured within float rounding) */                                      \
    static inline T tn__silu_bwd_##T(T dy, T x) {                                              \
        T e = exp(MK(-creal(x), -cimag(x)));                                                   \
        T s = tn__cdiv_##T(MK((R)1, 0), MK((R)1 + creal(e), cimag(e)));                        \
        T xs = tn__cmul_##T(x, MK((R)1 - creal(s), -cimag(s)));                                \
        return tn__cmul_##T(tn__cmul_##T(dy, s), MK((R)1 + creal(xs), cimag(xs)));             \
    }
TN_BWD_CPLX(tn_c64_t, float, CMPLXF)
TN_BWD_CPLX(tn_c128_t, double, CMPLX)
#define BC_SIGMOID(g, x, T, P) tn__sig_bwd_##T(g, x)
#define BC_TANH(g, x, T, P) tn__tanh_bwd_##T(g, x)
#define BC_SILU(g, x, T, P) tn__silu_bwd_##T(g, x)

/* ---- integer family: threshold only ---- */
#define BI_THRESHOLD(g, x, T, P) ((x) <= (T)PP->i0 ? (T)0 : (g))

#define INST(PFX, sfx, TS, CT, LD, ST, E, op) \
    TN_DEF_BINARY(b_##op##_##sfx, TS, TS, CT, LD, ST, PFX##_##op, )
#define INST_F(sfx, TS, CT, LD, ST, E, op) INST(BF, sfx, TS, CT, LD, ST, E, op)
#define INST_C(sfx, TS, CT, LD, ST, E, op) INST(BC, sfx, TS, CT, LD, ST, E, op)
#define INST_I(sfx, TS, CT, LD, ST, E, op) INST(BI, sfx, TS, CT, LD, ST, E, op)

#define OPS_F(X) X(THRESHOLD) X(SIGMOID) X(TANH) X(SILU) X(GELU) X(GELU_TANH) X(HARDTANH) \
    X(LEAKY_RELU) X(ELU) X(HARDSIGMOID) X(HARDSWISH) X(SOFTPLUS) X(MISH)
#define OPS_C(X) X(SIGMOID) X(TANH) X(SILU)
#define OPS_I(X) X(THRESHOLD)
#define GEN_F(op) TN_FAM_F(INST_F, op)
#define GEN_C(op) TN_FAM_C(INST_C, op)
#define GEN_I(op) TN_FAM_I(INST_I, op)
OPS_F(GEN_F)
OPS_C(GEN_C)
OPS_I(GEN_I)

/* f16 sigmoid_backward: upstream widens only bfloat16; Half runs its Vectorized<Half> / Half
 * arithmetic, rounding after every operation (measured). */
#define BF_SIGMOID_H(g, x, T, P) R_H(R_H((g) * R_H((T)1 - (x))) * (x))
TN_DEF_BINARY(b_SIGMOID_H_f16, uint16_t, uint16_t, float, TN_LD_H, TN_ST_H, BF_SIGMOID_H, )

/* f32 silu / gelu backward through kernels/vmath.h; strided operands through a stack block */
#define TN_VM_BWD(NAME, FN)                                                                       \
    static void NAME(char **data, const int64_t *s, int64_t n, const void *ctx) {                 \
        (void)ctx;                                                                                \
        if (s[0] == 4 && s[1] == 4 && s[2] == 4) {                                                \
            FN((float *)data[0], (const float *)data[1], (const float *)data[2], n);              \
            return;                                                                               \
        }                                                                                         \
        float g[256], x[256];                                                                     \
        for (int64_t i = 0; i < n; i += 256) {                                                    \
            int64_t m = n - i < 256 ? n - i : 256;                                                \
            for (int64_t k = 0; k < m; k++) {                                                     \
                g[k] = *(const float *)(data[1] + (i + k) * s[1]);                                \
                x[k] = *(const float *)(data[2] + (i + k) * s[2]);                                \
            }                                                                                     \
            FN(g, g, x, m);                                                                       \
            for (int64_t k = 0; k < m; k++) *(float *)(data[0] + (i + k) * s[0]) = g[k];          \
        }                                                                                         \
    }
TN_VM_BWD(b_SILU_f32_vm, tn_vm_silu_bw_f32)
TN_VM_BWD(b_GELU_f32_vm, tn_vm_gelu_bw_f32)
TN_VM_BWD(b_GELU_TANH_f32_vm, tn_vm_gelu_tanh_bw_f32)

static tn_loop btab[TN_BWD_COUNT][TN_DTYPE_COUNT];
static bool btab_ready;

#define REG(sfx, TS, CT, LD, ST, E, op) btab[TN_BWD_##op][TN_DTYPE_##E] = b_##op##_##sfx;
#define REG_F(op) TN_FAM_F(REG, op)
#define REG_C(op) TN_FAM_C(REG, op)
#define REG_I(op) TN_FAM_I(REG, op)

static void btab_init(void) {
    OPS_F(REG_F)
    OPS_C(REG_C)
    OPS_I(REG_I)
    btab[TN_BWD_SIGMOID][TN_DTYPE_F16] = b_SIGMOID_H_f16;
    btab[TN_BWD_SILU][TN_DTYPE_F32] = b_SILU_f32_vm;
    btab[TN_BWD_GELU][TN_DTYPE_F32] = b_GELU_f32_vm;
    btab[TN_BWD_GELU_TANH][TN_DTYPE_F32] = b_GELU_TANH_f32_vm;
    btab_ready = true;
}

/* hard/softshrink backward: upstream's vector body (the first n - n % i0 elements when all operands
 * are contiguous, or grad or self a broadcast scalar) keeps grad only where x < -l or x > l (NaN
 * gives 0); the scalar tail zeroes where -l <= x <= l (NaN keeps grad) */
#define TN_SHRINK_F(sfx, TS, CT, LD, ST, E, unused)                                               \
    static void shrink_##sfx(char **data, const int64_t *s, int64_t n, const void *ctx_) {        \
        const CT l = (CT)PP->p0;                                                                  \
        const int64_t z = (int64_t)sizeof(TS);                                                    \
        int64_t nv = 0;                                                                           \
        if (PP->i0 > 0 && s[0] == z && ((s[1] == z && s[2] == z) || (s[1] == 0 && s[2] == z) ||   \
                                        (s[1] == z && s[2] == 0)))                                \
            nv = n - n % PP->i0;                                                                  \
        for (int64_t k = 0; k < n; k++) {                                                         \
            CT g = LD(*(const TS *)(data[1] + k * s[1])), x = LD(*(const TS *)(data[2] + k * s[2])); \
            CT r = k < nv ? ((x < -l || x > l) ? g : (CT)0) : ((x >= -l && x <= l) ? (CT)0 : g);   \
            *(TS *)(data[0] + k * s[0]) = ST(r);                                                  \
        }                                                                                         \
    }
TN_FAM_F(TN_SHRINK_F, _)

tn_loop tn_bwd_loop(tn_bwd_op op, tn_dtype dt) {
    if (op == TN_BWD_SHRINK) {
        switch (dt) {
        case TN_DTYPE_F32: return shrink_f32;
        case TN_DTYPE_F64: return shrink_f64;
        case TN_DTYPE_F16: return shrink_f16;
        case TN_DTYPE_BF16: return shrink_bf16;
        default: return NULL;
        }
    }
    if ((unsigned)op >= TN_BWD_COUNT || (unsigned)dt >= TN_DTYPE_COUNT) return NULL;
    if (!btab_ready) btab_init(); /* idempotent: racing initialisers write identical values */
    return btab[op][dt];
}

/* ---- logit_backward in the storage type's arithmetic (R rounds a 16-bit intermediate) ---- */
#define TN_LOGIT_F(sfx, TS, CT, LD, ST, R)                                                     \
    static void logit_##sfx(char **data, const int64_t *s, int64_t n, const void *ctx_) {      \
        const bool nan_mode = PP->flag;                                                        \
        const CT lo = R((CT)PP->p0), hi = R((CT)1 - lo);                                       \
        for (int64_t k = 0; k < n; k++) {                                                      \
            CT g = LD(*(const TS *)(data[1] + k * s[1])), x = LD(*(const TS *)(data[2] + k * s[2])); \
            CT r;                                                                              \
            if (nan_mode ? (x < (CT)0 || x > (CT)1) : (x < lo || x > hi))                      \
                r = nan_mode ? (CT)NAN : (CT)0;                                                \
            else                                                                               \
                r = R(g / R(x * R((CT)1 - x)));                                                \
            *(TS *)(data[0] + k * s[0]) = ST(r);                                               \
        }                                                                                      \
    }
TN_LOGIT_F(f32, float, float, TN_LD_ID, TN_ST_ID, R_ID)
TN_LOGIT_F(f64, double, double, TN_LD_ID, TN_ST_ID, R_ID)
TN_LOGIT_F(f16, uint16_t, float, TN_LD_H, TN_ST_H, R_H)
TN_LOGIT_F(bf16, uint16_t, float, TN_LD_B, TN_ST_B, R_B)

tn_loop tn_logit_backward_loop(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return logit_f32;
    case TN_DTYPE_F64: return logit_f64;
    case TN_DTYPE_F16: return logit_f16;
    case TN_DTYPE_BF16: return logit_bf16;
    default: return NULL;
    }
}

/* ---- mse_loss_backward: norm * (x - t) * g, in the storage type's arithmetic ---- */

#define TN_MSE_F(sfx, TS, CT, LD, ST, R)                                                       \
    static void mse_##sfx(char **data, const int64_t *s, int64_t n, const void *ctx) {         \
        const CT v = R((CT) * (const double *)ctx);                                            \
        for (int64_t k = 0; k < n; k++) {                                                      \
            CT x = LD(*(const TS *)(data[1] + k * s[1])), t = LD(*(const TS *)(data[2] + k * s[2])); \
            CT g = LD(*(const TS *)(data[3] + k * s[3]));                                      \
            *(TS *)(data[0] + k * s[0]) = ST(R(R(v * R(x - t)) * g));                          \
        }                                                                                      \
    }
TN_MSE_F(f32, float, float, TN_LD_ID, TN_ST_ID, R_ID)
TN_MSE_F(f64, double, double, TN_LD_ID, TN_ST_ID, R_ID)
TN_MSE_F(f16, uint16_t, float, TN_LD_H, TN_ST_H, R_H)
TN_MSE_F(bf16, uint16_t, float, TN_LD_B, TN_ST_B, R_B)

/* integers: the norm truncated to the type, wrap-around arithmetic */
#define TN_MSE_I(sfx, TS, CT, LD, ST, E, unused)                                               \
    static void mse_##sfx(char **data, const int64_t *s, int64_t n, const void *ctx) {         \
        const TN_UNS(TS) v = (TN_UNS(TS))(TS)(int64_t) * (const double *)ctx;                  \
        for (int64_t k = 0; k < n; k++) {                                                      \
            TN_UNS(TS) x = (TN_UNS(TS)) * (const TS *)(data[1] + k * s[1]);                   \
            TN_UNS(TS) t = (TN_UNS(TS)) * (const TS *)(data[2] + k * s[2]);                   \
            TN_UNS(TS) g = (TN_UNS(TS)) * (const TS *)(data[3] + k * s[3]);                   \
            *(TS *)(data[0] + k * s[0]) = (TS)(TN_UNS(TS))((TN_UNS(TS))(v * (TN_UNS(TS))(x - t)) * g); \
        }                                                                                      \
    }
TN_FAM_I(TN_MSE_I, 0)

tn_loop tn_mse_backward_loop(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return mse_f32;
    case TN_DTYPE_F64: return mse_f64;
    case TN_DTYPE_F16: return mse_f16;
    case TN_DTYPE_BF16: return mse_bf16;
    case TN_DTYPE_I8: return mse_i8;
    case TN_DTYPE_U8: return mse_u8;
    case TN_DTYPE_I16: return mse_i16;
    case TN_DTYPE_I32: return mse_i32;
    case TN_DTYPE_I64: return mse_i64;
    default: return NULL;
    }
}

/* ---- softmax backward ---- */
#define TN_SMAX_BWD_DEF(NAME, T)                                                                 \
    void NAME(const T *g, const T *y, T *gi, int64_t outer, int64_t n, int64_t inner, bool lg) { \
        for (int64_t o = 0; o < outer; o++)                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                \
                const int64_t base = o * n * inner + i;                                          \
                double sum = 0.0;                                                                \
                if (lg) {                                                                        \
                    for (int64_t j = 0; j < n; j++) sum += (double)g[base + j * inner];          \
                    for (int64_t j = 0; j < n; j++) {                                            \
                        int64_t k = base + j * inner;                                            \
                        gi[k] = (T)((double)g[k] - exp((double)y[k]) * sum);                     \
                    }                                                                            \
                } else {                                                                         \
                    for (int64_t j = 0; j < n; j++) {                                            \
                        int64_t k = base + j * inner;                                            \
                        /* upstream's kernel for a dim other than the last accumulates with */  \
                        /* fused multiply-adds lane by lane (its AVX2 / AVX-512 builds) */       \
                        sum = inner > 1 ? fma((double)g[k], (double)y[k], sum)                   \
                                        : sum + (double)g[k] * (double)y[k];                     \
                    }                                                                            \
                    for (int64_t j = 0; j < n; j++) {                                            \
                        int64_t k = base + j * inner;                                            \
                        gi[k] = (T)((double)y[k] * ((double)g[k] - sum));                        \
                    }                                                                            \
                }                                                                                \
            }                                                                                    \
    }
/* f32: ref/softmax.c */
TN_SMAX_BWD_DEF(tn_softmax_backward_f64, double)

/* ---- layer norm backward (upstream's formulation: a = rstd, b = (db * mean - ds) a^3 / N,
 * c = -b * mean - db * a / N, dx = a * dy * gamma + b * x + c) ---- */
#define TN_LN_BWD_DEF(NAME, T)                                                                   \
    void NAME(const T *dy, const T *x, const T *mean, const T *rstd, const T *gamma, T *dx,      \
              T *dgamma, T *dbeta, int64_t M, int64_t N) {                                       \
        const double scale = N ? 1.0 / (double)N : 0.0;                                          \
        for (int64_t r = 0; r < M; r++) {                                                        \
            const T *dyr = dy + r * N, *xr = x + r * N;                                          \
            const double mu = (double)mean[r], rs = (double)rstd[r];                             \
            if (dx) {                                                                            \
                double ds = 0.0, db = 0.0;                                                       \
                for (int64_t j = 0; j < N; j++) {                                                \
                    double gm = gamma ? (double)gamma[j] : 1.0;                                  \
                    ds += (double)dyr[j] * (double)xr[j] * gm;                                   \
                    db += (double)dyr[j] * gm;                                                   \
                }                                                                                \
                const double b = (db * mu - ds) * rs * rs * rs * scale;                          \
                const double c = -b * mu - db * rs * scale;                                      \
                T *dxr = dx + r * N;                                                             \
                for (int64_t j = 0; j < N; j++) {                                                \
                    double gm = gamma ? (double)gamma[j] : 1.0;                                  \
                    dxr[j] = (T)(rs * (double)dyr[j] * gm + b * (double)xr[j] + c);              \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        if (dgamma || dbeta)                                                                     \
            for (int64_t j = 0; j < N; j++) {                                                    \
                double sg = 0.0, sb = 0.0;                                                       \
                for (int64_t r = 0; r < M; r++) {                                                \
                    double d = (double)dy[r * N + j];                                            \
                    sg += d * ((double)x[r * N + j] - (double)mean[r]) * (double)rstd[r];        \
                    sb += d;                                                                     \
                }                                                                                \
                if (dgamma) dgamma[j] = (T)sg;                                                   \
                if (dbeta) dbeta[j] = (T)sb;                                                     \
            }                                                                                    \
    }
/* f32 / f64: kernels/layer_norm.c (upstream's rounding); this one serves reduced-precision input */
TN_LN_BWD_DEF(tn_layer_norm_backward_f32_wide, float)

/* ---- nll_loss: upstream's scalar_t arithmetic (R rounds 16-bit intermediate results) ---- */
#define TN_NLL_DEF(sfx, TS, CT, LD, ST, R)                                                       \
    static void nll_fwd_##sfx(const TS *in, const int64_t *tg, const TS *w, int64_t B, int64_t C, \
                              int64_t ignore, int red, TS *out, TS *tw) {                        \
        if (red == 0) {                                                                          \
            for (int64_t b = 0; b < B; b++) {                                                    \
                int64_t t = tg[b];                                                               \
                if (t == ignore) { out[b] = ST((CT)0); continue; }                               \
                CT wv = w ? LD(w[t]) : (CT)1;                                                    \
                out[b] = ST(R(-LD(in[b * C + t]) * wv));                                         \
            }                                                                                    \
            *tw = ST((CT)0);                                                                     \
            return;                                                                              \
        }                                                                                        \
        enum { LEVELS = 8 };                                                                     \
        int64_t lp = 0;                                                                          \
        while (lp < 63 && ((int64_t)1 << lp) < B) lp++; /* CeilLog2(B) */                        \
        lp = lp / LEVELS > 4 ? lp / LEVELS : 4;                                                  \
        const int64_t mask0 = ((int64_t)1 << lp) - 1;                                            \
        int64_t ignored = 0;                                                                     \
        CT wsum[LEVELS] = {0}, lsum[LEVELS] = {0};                                               \
        for (int64_t b = 0; b < B; b++) {                                                        \
            int64_t t = tg[b];                                                                   \
            if (t == ignore) { ignored++; continue; }                                            \
            CT d = LD(in[b * C + t]);                                                            \
            if (w) {                                                                             \
                CT wv = LD(w[t]);                                                                \
                lsum[0] = R(lsum[0] - R(d * wv));                                                \
                wsum[0] = R(wsum[0] + wv);                                                       \
            } else {                                                                             \
                lsum[0] = R(lsum[0] - d);                                                        \
            }                                                                                    \
            for (int j = 0; j + 1 < LEVELS; j++) {                                               \
                if ((b & (mask0 << (j * lp))) != 0) break;                                       \
                wsum[j + 1] = R(wsum[j + 1] + wsum[j]);                                          \
                lsum[j + 1] = R(lsum[j + 1] + lsum[j]);                                          \
                wsum[j] = 0;                                                                     \
                lsum[j] = 0;                                                                     \
            }                                                                                    \
        }                                                                                        \
        CT total = 0, loss = 0;                                                                  \
        if (!w) total = R((CT)(B - ignored));                                                    \
        else for (int j = 0; j < LEVELS; j++) total = R(total + wsum[j]);                        \
        for (int j = 0; j < LEVELS; j++) loss = R(loss + lsum[j]);                               \
        if (red == 1) loss = R(loss / total);                                                    \
        *tw = ST(total);                                                                         \
        *out = ST(loss);                                                                         \
    }                                                                                            \
    static void nll_bwd_##sfx(const TS *go, int64_t gs, const int64_t *tg, const TS *w, const TS *tw, \
                              int64_t B, int64_t C, int64_t ignore, int red, bool none2d, TS *gi) { \
        if (none2d) {                                                                            \
            for (int64_t b = 0; b < B; b++) {                                                    \
                int64_t t = tg[b];                                                               \
                if (t == ignore) continue;                                                       \
                CT wv = w ? LD(w[t]) : (CT)1;                                                    \
                gi[b * C + t] = ST(R(-wv * LD(go[b * gs])));                                     \
            }                                                                                    \
            return;                                                                              \
        }                                                                                        \
        CT g = LD(go[0]);                                                                        \
        CT grad = -(red == 1 ? R(g / LD(tw[0])) : g);                                            \
        for (int64_t b = 0; b < B; b++) {                                                        \
            int64_t t = tg[b];                                                                   \
            if (t == ignore) continue;                                                           \
            gi[b * C + t] = ST(w ? R(LD(w[t]) * grad) : grad);                                   \
        }                                                                                        \
    }
TN_NLL_DEF(f32, float, float, TN_LD_ID, TN_ST_ID, R_ID)
TN_NLL_DEF(f64, double, double, TN_LD_ID, TN_ST_ID, R_ID)
TN_NLL_DEF(f16, uint16_t, float, TN_LD_H, TN_ST_H, R_H)
TN_NLL_DEF(bf16, uint16_t, float, TN_LD_B, TN_ST_B, R_B)

void tn_nll_loss_forward(tn_dtype dt, const void *input, const int64_t *target, const void *weight, int64_t B,
                         int64_t C, int64_t ignore_index, int reduction, void *out, void *total_weight) {
#define TN_NLL_CALL(sfx, TS)                                                                     \
    nll_fwd_##sfx((const TS *)input, target, (const TS *)weight, B, C, ignore_index, reduction,  \
                  (TS *)out, (TS *)total_weight)
    switch (dt) {
    case TN_DTYPE_F32: TN_NLL_CALL(f32, float); break;
    case TN_DTYPE_F64: TN_NLL_CALL(f64, double); break;
    case TN_DTYPE_F16: TN_NLL_CALL(f16, uint16_t); break;
    case TN_DTYPE_BF16: TN_NLL_CALL(bf16, uint16_t); break;
    default: break;
    }
#undef TN_NLL_CALL
}

void tn_nll_loss_backward(tn_dtype dt, const void *grad_output, int64_t go_stride, const int64_t *target,
                          const void *weight, const void *total_weight, int64_t B, int64_t C, int64_t ignore_index,
                          int reduction, bool none_2d, void *grad_input) {
#define TN_NLL_CALL(sfx, TS)                                                                     \
    nll_bwd_##sfx((const TS *)grad_output, go_stride, target, (const TS *)weight,                \
                  (const TS *)total_weight, B, C, ignore_index, reduction, none_2d, (TS *)grad_input)
    switch (dt) {
    case TN_DTYPE_F32: TN_NLL_CALL(f32, float); break;
    case TN_DTYPE_F64: TN_NLL_CALL(f64, double); break;
    case TN_DTYPE_F16: TN_NLL_CALL(f16, uint16_t); break;
    case TN_DTYPE_BF16: TN_NLL_CALL(bf16, uint16_t); break;
    default: break;
    }
#undef TN_NLL_CALL
}
