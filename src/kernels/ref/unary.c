/* unary.c — reference unary elementwise kernels and their (op, dtype) lookup table.
 *
 * Each op is one expression per dtype family (float: f32/f64/f16/bf16 computed in f32 or f64
 * through <tgmath.h>; complex; integers; bool). The family macros in ew_impl.h stamp out one
 * loop per storage type, and designated initialisers build the lookup table; a missing entry
 * means upstream has no kernel for that pair. Formulas follow upstream's scalar definitions
 * (sigmoid = 1/(1+exp(-x)), gelu = x*0.5*(1+erf(x/sqrt2)), ...), measured against torch 2.13. */
#include "kernels/ref/ew_impl.h"
#include "kernels/lowp.h"
#include "kernels/vmath.h"

#include <tgmath.h>

const char *const tn_unary_names[TN_UNARY_COUNT] = {
#define TN_X(E, n) [TN_UNARY_##E] = #n,
    TN_UNARY_OPS(TN_X)
#undef TN_X
};

/* NaN-propagating helpers with std::max / std::min tie rules (first operand on ties). */
#define TN_SMAX(a, b) ((a) < (b) ? (b) : (a))
#define TN_SMIN(a, b) ((b) < (a) ? (b) : (a))

static const tn_unary_params tn__softplus_default = {1.0, 20.0, 0.0, false};
#define PRM(P) ((P) ? (const tn_unary_params *)(P) : &tn__softplus_default)

/* ---- float family: x has type T (float or double) ---- */
#define UF_NEG(x, T, P) (-(x))
#define UF_ABS(x, T, P) fabs(x)
#define UF_SQUARE(x, T, P) ((x) * (x))
#define UF_RECIPROCAL(x, T, P) ((T)1 / (x))
#define UF_SIGN(x, T, P) ((T)(((x) > 0) - ((x) < 0)))
#define UF_EXP(x, T, P) exp(x)
#define UF_EXP2(x, T, P) exp2(x)
#define UF_EXPM1(x, T, P) expm1(x)
#define UF_LOG(x, T, P) log(x)
#define UF_LOG2(x, T, P) log2(x)
#define UF_LOG10(x, T, P) log10(x)
#define UF_LOG1P(x, T, P) log1p(x)
#define UF_SQRT(x, T, P) sqrt(x)
#define UF_RSQRT(x, T, P) ((T)1 / sqrt(x))
#define UF_SIN(x, T, P) sin(x)
#define UF_COS(x, T, P) cos(x)
#define UF_TAN(x, T, P) tan(x)
#define UF_ASIN(x, T, P) asin(x)
#define UF_ACOS(x, T, P) acos(x)
#define UF_ATAN(x, T, P) atan(x)
#define UF_SINH(x, T, P) sinh(x)
#define UF_COSH(x, T, P) cosh(x)
#define UF_TANH(x, T, P) tanh(x)
#define UF_ASINH(x, T, P) asinh(x)
#define UF_ACOSH(x, T, P) acosh(x)
#define UF_ATANH(x, T, P) atanh(x)
#define UF_ERF(x, T, P) erf(x)
#define UF_ERFC(x, T, P) erfc(x)
#define UF_SIGMOID(x, T, P) ((T)1 / ((T)1 + exp(-(x))))
#define UF_LOGIT(x, T, P) tn__logit_##T(x, PRM(P))
#define UF_RELU(x, T, P) ((x) < 0 ? (T)0 : (x))
#define UF_SILU(x, T, P) ((x) / ((T)1 + exp(-(x))))
#define UF_GELU(x, T, P) ((x) * (T)0.5 * ((T)1 + erf((x) * (T)TN_SQRT1_2)))
#define UF_GELU_TANH(x, T, P)                                                                 \
    ((T)0.5 * (x) *                                                                            \
     ((T)1 + tanh((T)TN_SQRT_2_OVER_PI * ((x) + (T)0.044715 * ((x) * (x) * (x))))))
#define UF_MISH(x, T, P) ((x) * tanh(log1p(exp(x))))
#define UF_HARDSIGMOID(x, T, P) (TN_SMIN(TN_SMAX((x) + (T)3, (T)0), (T)6) / (T)6)
#define UF_HARDSWISH(x, T, P) ((x) * TN_SMIN(TN_SMAX((x) + (T)3, (T)0), (T)6) / (T)6)
#define UF_SOFTPLUS(x, T, P) tn__softplus_##T(x, PRM(P))
#define UF_CEIL(x, T, P) ceil(x)
#define UF_FLOOR(x, T, P) floor(x)
#define UF_ROUND(x, T, P) nearbyint(x)
#define UF_TRUNC(x, T, P) trunc(x)
#define UF_FRAC(x, T, P) ((x) - trunc(x))
#define UF_LOGICAL_NOT(x, T, P) ((x) == 0)
#define UF_ISNAN(x, T, P) ((x) != (x))
#define UF_ISINF(x, T, P) (fabs(x) == (T)INFINITY)
#define UF_ISFINITE(x, T, P) (fabs(x) < (T)INFINITY)
#define UF_ISPOSINF(x, T, P) ((x) == (T)INFINITY)
#define UF_ISNEGINF(x, T, P) ((x) == -(T)INFINITY)
/* copysign, not signbit(): gcc 12 -O3 ICEs vectorising signbit on widened bf16 */
#define UF_SIGNBIT(x, T, P) (copysign((T)1, x) < 0)

#define TN_LOGIT_SOFTPLUS(T)                                                                  \
    static inline T tn__logit_##T(T x, const tn_unary_params *p) {                            \
        if (p->has_eps) {                                                                      \
            T lo = (T)p->eps, hi = (T)1 - (T)p->eps;                                           \
            x = x < lo ? lo : (x > hi ? hi : x);                                               \
        }                                                                                      \
        return log(x / ((T)1 - x));                                                            \
    }                                                                                          \
    static inline T tn__softplus_##T(T x, const tn_unary_params *p) {                         \
        T beta = (T)p->beta, xb = x * beta;                                                    \
        return xb > (T)p->threshold ? x : log1p(exp(xb)) / beta;                               \
    }
TN_LOGIT_SOFTPLUS(float)

/* erf for f16 / bf16: upstream computes these with its vectorised float erf, the Abramowitz &
 * Stegun 7.1.26 approximation (|error| < 1.5e-7, and 0 for |x| < ~1e-7), not std::erf; f32/f64
 * erf use an accurate one. Re-derived from the published formula, evaluated with fused
 * multiply-adds in the same order so results match bit for bit after narrowing. */
static inline float tn__erf_as(float x) {
    float ax = fabsf(x);
    float t = 1.0f / fmaf(0.3275911f, ax, 1.0f);
    float r = fmaf(fmaf(fmaf(fmaf(1.061405429f, t, -1.453152027f), t, 1.421413741f), t, -0.284496736f), t,
                   0.254829592f);
    float e = expf(-(x * x));
    float v = fmaf(t * -e, r, 1.0f);
    return signbit(x) ? -v : v;
}
#define UF_ERF_AS(x, T, P) tn__erf_as(x)
TN_LOGIT_SOFTPLUS(double)


/* ---- gamma family: digamma, trigamma, lgamma, polygamma ----
 * Upstream's CPU algorithms (ATen/native/Math.h, derived from the Cephes Math Library by
 * S. Moshier, 3-clause BSD), re-written here: digamma by the recurrence psi(x) = psi(x+1) - 1/x up
 * to x >= 10, then the asymptotic series (reflection for x < 0 with pi/tan(pi*frac(x)) in double);
 * trigamma by six recurrence steps then its asymptotic series (reflection for x < 0.5); polygamma
 * n >= 2 as (-1)^(n+1) n! zeta(n+1, x), the Hurwitz zeta summed directly then corrected by
 * Euler-Maclaurin. As upstream: float / f16 / bf16 compute in float (f16 / bf16 rounded once at
 * the end, as measured on upstream), the Hurwitz zeta in double (float's accumulate type) after a
 * first term q^-x in float, n! as exp(lgamma(n+1)) in the dtype. lgamma is libm's. */
#define TN_PI 3.14159265358979323846
static const double tn__psi_asym[7] = {
    8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
    -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
    8.33333333333333333333E-2,
};
static double tn__digamma_double(double x) {
    if (x == 0) return copysign(INFINITY, -x);
    if (x < 0) {
        if (x == trunc(x)) return NAN;
        double ip, fr = modf(x, &ip);
        return tn__digamma_double(1 - x) - TN_PI / tan(TN_PI * fr);
    }
    double acc = 0;
    while (x < 10) { acc -= 1 / x; x += 1; }
    if (x == 10) return acc + 2.25175258906672110764;
    double y = 0;
    if (x < 1.0e17) {
        double z = 1.0 / (x * x), p = 0;
        for (int i = 0; i < 7; i++) p = p * z + tn__psi_asym[i];
        y = z * p;
    }
    return acc + log(x) - (0.5 / x) - y;
}
static float tn__digamma_float(float x) {
    if (x == 0) return copysignf(INFINITY, -x);
    if (x < 0) {
        if (x == truncf(x)) return NAN;
        double ip, fr = modf((double)x, &ip);
        float refl = (float)(TN_PI / tan(TN_PI * fr));
        return tn__digamma_float(1 - x) - refl;
    }
    float acc = 0;
    while (x < 10) { acc -= 1 / x; x += 1; }
    if (x == 10) return acc + 2.25175258906672110764f;
    float y = 0;
    if (x < 1.0e17f) {
        float z = 1 / (x * x), p = 0;
        for (int i = 0; i < 7; i++) p = p * z + (float)tn__psi_asym[i];
        y = z * p;
    }
    return acc + logf(x) - (0.5f / x) - y;
}
#define TN_TRIGAMMA(T, SIN, PI)                                                                 \
    static T tn__trigamma_##T(T x) {                                                            \
        T sign = 1, acc = 0;                                                                    \
        if (x < (T)0.5) {                                                                       \
            sign = -1;                                                                          \
            T sp = SIN(PI * x);                                                                 \
            acc -= (PI * PI) / (sp * sp);                                                       \
            x = 1 - x;                                                                          \
        }                                                                                       \
        for (int i = 0; i < 6; i++) { acc += 1 / (x * x); x += 1; }                             \
        T ixx = 1 / (x * x);                                                                    \
        acc += (1 + 1 / (2 * x) + ixx * ((T)1 / 6 - ixx * ((T)1 / 30 - ixx * ((T)1 / 42)))) / x; \
        return sign * acc;                                                                      \
    }
TN_TRIGAMMA(double, sin, TN_PI)
TN_TRIGAMMA(float, sinf, (float)TN_PI)
/* Hurwitz zeta(x, q) in accumulate type A; s0 = q^-x as the caller's dtype computes it. */
#define TN_HZETA(A, POW, FLOOR, FABS)                                                          \
    static A tn__hzeta_##A(A x, A q, A s0) {                                                    \
        static const A B[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,                  \
            -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,                  \
            1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17,      \
            -7.1661652561756670113e18};                                                         \
        const A eps = (A)1.11022302462515654042E-16;                                            \
        if (x == 1) return (A)INFINITY;                                                         \
        if (x < 1) return (A)NAN;                                                               \
        if (q <= 0) {                                                                           \
            if (q == FLOOR(q)) return (A)INFINITY;                                              \
            if (x != FLOOR(x)) return (A)NAN;                                                   \
        }                                                                                       \
        A s = s0, a = q, b = 0, w, k, t;                                                        \
        int i = 0;                                                                              \
        while (i < 9 || a <= (A)9) {                                                            \
            i++;                                                                                \
            a += 1;                                                                             \
            b = POW(a, -x);                                                                     \
            s += b;                                                                             \
            if (-eps * s < b && b < eps * s) return s;                                          \
        }                                                                                       \
        w = a;                                                                                  \
        s += b * w / (x - 1);                                                                   \
        s -= (A)0.5 * b;                                                                        \
        a = 1;                                                                                  \
        k = 0;                                                                                  \
        for (i = 0; i < 12; i++) {                                                              \
            a *= x + k;                                                                         \
            b /= w;                                                                             \
            t = a * b / B[i];                                                                   \
            s = s + t;                                                                          \
            t = FABS(t / s);                                                                    \
            if (t < eps) return s;                                                              \
            k += 1;                                                                             \
            a *= x + k;                                                                         \
            b /= w;                                                                             \
            k += 1;                                                                             \
        }                                                                                       \
        return s;                                                                               \
    }
TN_HZETA(double, pow, floor, fabs)
static double tn__polygamma_double(double x, const void *ctx) {
    int64_t n = *(const int64_t *)ctx;
    if (n == 0) return tn__digamma_double(x);
    if (n == 1) return tn__trigamma_double(x);
    double nn = (double)(n + 1);
    return ((n % 2) ? 1.0 : -1.0) * exp(lgamma((double)n + 1.0)) * tn__hzeta_double(nn, x, pow(x, -nn));
}
static float tn__polygamma_float(float x, const void *ctx) {
    int64_t n = *(const int64_t *)ctx;
    if (n == 0) return tn__digamma_float(x);
    if (n == 1) return tn__trigamma_float(x);
    float nn = (float)(n + 1);
    float z = (float)tn__hzeta_double(nn, x, (double)powf(x, -nn));
    return ((n % 2) ? 1.0f : -1.0f) * expf(lgammaf((float)n + 1.0f)) * z;
}
#define UF_DIGAMMA(x, T, P) tn__digamma_##T(x)
#define UF_TRIGAMMA(x, T, P) tn__trigamma_##T(x)
#define UF_LGAMMA(x, T, P) lgamma(x)
#define UF_POLYGAMMA(x, T, P) tn__polygamma_##T(x, P)

/* ---- complex family: x has type T (tn_c64_t / tn_c128_t) ---- */
#define UC_NEG(x, T, P) (-(x))
#define UC_SQUARE(x, T, P) tn__cmul_##T(x, x)
#define UC_RECIPROCAL(x, T, P) tn__cdiv_##T((T)1, x)
#define UC_EXP(x, T, P) exp(x)
#define UC_LOG(x, T, P) log(x)
#define UC_LOG2(x, T, P) tn__cscale_##T(log(x), TN_LN2)
#define UC_LOG10(x, T, P) tn__cscale_##T(log(x), TN_LN10)
#define UC_SQRT(x, T, P) sqrt(x)
#define UC_RSQRT(x, T, P) tn__cdiv_##T((T)1, sqrt(x))
#define UC_SIN(x, T, P) sin(x)
#define UC_COS(x, T, P) cos(x)
#define UC_TAN(x, T, P) tan(x)
#define UC_ASIN(x, T, P) asin(x)
#define UC_ACOS(x, T, P) acos(x)
#define UC_ATAN(x, T, P) atan(x)
#define UC_SINH(x, T, P) sinh(x)
#define UC_COSH(x, T, P) cosh(x)
#define UC_TANH(x, T, P) tanh(x)
#define UC_ASINH(x, T, P) asinh(x)
#define UC_ACOSH(x, T, P) acosh(x)
#define UC_ATANH(x, T, P) atanh(x)
#define UC_SIGMOID(x, T, P) tn__cdiv_##T((T)1, (T)1 + exp(-(x)))
#define UC_SILU(x, T, P) tn__cdiv_##T(x, (T)1 + exp(-(x)))
#define UC_EXP2(x, T, P) tn__cexp2_##T(x)
#define UC_EXPM1(x, T, P) tn__cexpm1_##T(x)
#define UC_LOG1P(x, T, P) tn__clog1p_##T(x)
/* upstream's complex formulas (c10 complex math): exp2(z) = exp(ln2 * z) with a real scale;
 * expm1(x+iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y; log1p(z) = log|1+z| + i arg(1+z)
 * with the small-|z| branch 0.5 * log1p(x(2+x) + y^2). */
#define TN_CPLX_UNARY(T, R, MK)                                                                \
    static inline T tn__cexp2_##T(T z) { return exp(MK(creal(z) * (R)TN_LN2, cimag(z) * (R)TN_LN2)); } \
    static inline T tn__cexpm1_##T(T z) {                                                      \
        R x = creal(z), y = cimag(z), a = sin(y / 2);                                          \
        return MK(expm1(x) * cos(y) - (R)2 * a * a, exp(x) * sin(y));                          \
    }                                                                                          \
    static inline T tn__clog1p_##T(T z) {                                                      \
        R x = creal(z), y = cimag(z), zabs = fabs(z), theta = atan2(y, x + (R)1);              \
        if (zabs < (R)0.5) {                                                                   \
            R r = x * ((R)2 + x) + y * y;                                                      \
            if (r == 0) return MK(x, theta);                                                   \
            return MK((R)0.5 * log1p(r), theta);                                               \
        }                                                                                      \
        return MK(log(hypot(x + (R)1, y)), theta);                                             \
    }
TN_CPLX_UNARY(tn_c64_t, float, CMPLXF)
TN_CPLX_UNARY(tn_c128_t, double, CMPLX)
#define UC_LOGICAL_NOT(x, T, P) (creal(x) == 0 && cimag(x) == 0)
#define UC_ISNAN(x, T, P) (creal(x) != creal(x) || cimag(x) != cimag(x))
#define UC_ISINF(x, T, P) (fabs(creal(x)) == INFINITY || fabs(cimag(x)) == INFINITY)
#define UC_ISFINITE(x, T, P) (fabs(creal(x)) < INFINITY && fabs(cimag(x)) < INFINITY)
#define UC_ABS(x, T, P) fabs(x) /* tgmath: cabs / cabsf */
/* divide both parts by a real constant (C's complex / real-as-complex makes NaNs from infs) */
static inline tn_c64_t tn__cscale_tn_c64_t(tn_c64_t z, double k) {
    return CMPLXF(crealf(z) / (float)k, cimagf(z) / (float)k);
}
static inline tn_c128_t tn__cscale_tn_c128_t(tn_c128_t z, double k) { return CMPLX(creal(z) / k, cimag(z) / k); }


/* ---- integer family: x has type T ---- */
#define UI_NEG(x, T, P) ((T)((TN_UNS(T))0 - (TN_UNS(T))(x)))
#define UI_ABS(x, T, P) ((x) < 0 ? UI_NEG(x, T, P) : (x))
#define UI_SQUARE(x, T, P) ((T)((uint64_t)(x) * (uint64_t)(x)))
#define UI_SIGN(x, T, P) ((T)(((x) > 0) - ((x) < 0)))
#define UI_RELU(x, T, P) ((x) < 0 ? (T)0 : (x))
#define UI_CEIL(x, T, P) (x)
#define UI_FLOOR(x, T, P) (x)
#define UI_ROUND(x, T, P) (x)
#define UI_TRUNC(x, T, P) (x)
#define UI_LOGICAL_NOT(x, T, P) ((x) == 0)
#define UI_BITWISE_NOT(x, T, P) ((T)~(x))
#define UI_ISNAN(x, T, P) ((void)(x), false)
#define UI_ISINF(x, T, P) ((void)(x), false)
#define UI_ISPOSINF(x, T, P) ((void)(x), false)
#define UI_ISNEGINF(x, T, P) ((void)(x), false)
#define UI_ISFINITE(x, T, P) ((void)(x), true)
#define UI_SIGNBIT(x, T, P) ((x) < 0)

/* ---- bool family: x is bool ---- */
#define UB_LOGICAL_NOT(x, T, P) (!(x))
#define UB_BITWISE_NOT(x, T, P) (!(x))
#define UB_SIGN(x, T, P) (x)
#define UB_ABS(x, T, P) (x)
#define UB_ISNAN(x, T, P) ((void)(x), false)
#define UB_ISINF(x, T, P) ((void)(x), false)
#define UB_ISPOSINF(x, T, P) ((void)(x), false)
#define UB_ISNEGINF(x, T, P) ((void)(x), false)
#define UB_ISFINITE(x, T, P) ((void)(x), true)
#define UB_SIGNBIT(x, T, P) ((void)(x), false)

/* ---- instantiation ---- */
#define INST(FAM, PFX, sfx, TS, CT, LD, ST, E, op) \
    TN_DEF_UNARY(u_##op##_##sfx, TS, TS, CT, LD, ST, PFX##_##op, )
#define INST_F(sfx, TS, CT, LD, ST, E, op) INST(F, UF, sfx, TS, CT, LD, ST, E, op)
#define INST_C(sfx, TS, CT, LD, ST, E, op) INST(C, UC, sfx, TS, CT, LD, ST, E, op)
#define INST_I(sfx, TS, CT, LD, ST, E, op) INST(I, UI, sfx, TS, CT, LD, ST, E, op)
#define INST_B(sfx, TS, CT, LD, ST, E, op) INST(B, UB, sfx, TS, CT, LD, ST, E, op)
/* predicates: bool output */
#define INSTP(PFX, sfx, TS, CT, LD, E, op) \
    TN_DEF_UNARY(u_##op##_##sfx, uint8_t, TS, CT, LD, TN_ST_BOOL, PFX##_##op, )
#define INSTP_F(sfx, TS, CT, LD, ST, E, op) INSTP(UF, sfx, TS, CT, LD, E, op)
#define INSTP_C(sfx, TS, CT, LD, ST, E, op) INSTP(UC, sfx, TS, CT, LD, E, op)
#define INSTP_I(sfx, TS, CT, LD, ST, E, op) INSTP(UI, sfx, TS, CT, LD, E, op)
#define INSTP_B(sfx, TS, CT, LD, ST, E, op) INSTP(UB, sfx, TS, CT, LD, E, op)

/* Which families each op has. */
#define OPS_F(X) X(NEG) X(ABS) X(SQUARE) X(RECIPROCAL) X(SIGN) X(EXP) X(EXP2) X(EXPM1) X(LOG) \
    X(LOG2) X(LOG10) X(LOG1P) X(SQRT) X(RSQRT) X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN)  \
    X(SINH) X(COSH) X(TANH) X(ASINH) X(ACOSH) X(ATANH) X(ERF) X(ERFC) X(SIGMOID) X(LOGIT)     \
    X(RELU) X(SILU) X(GELU) X(GELU_TANH) X(MISH) X(HARDSIGMOID) X(HARDSWISH) X(SOFTPLUS)     \
    X(CEIL) X(FLOOR) X(ROUND) X(TRUNC) X(FRAC) X(DIGAMMA) X(TRIGAMMA) X(LGAMMA) X(POLYGAMMA)
#define OPS_FP(X) X(LOGICAL_NOT) X(ISNAN) X(ISINF) X(ISFINITE) X(ISPOSINF) X(ISNEGINF) X(SIGNBIT)
#define OPS_C(X) X(NEG) X(SQUARE) X(RECIPROCAL) X(EXP) X(LOG) X(LOG2) X(LOG10) X(SQRT) X(RSQRT) \
    X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN) X(SINH) X(COSH) X(TANH) X(ASINH) X(ACOSH)   \
    X(ATANH) X(SIGMOID) X(SILU) X(EXP2) X(EXPM1) X(LOG1P)
#define OPS_CP(X) X(LOGICAL_NOT) X(ISNAN) X(ISINF) X(ISFINITE)
#define OPS_I(X) X(NEG) X(ABS) X(SQUARE) X(SIGN) X(RELU) X(CEIL) X(FLOOR) X(ROUND) X(TRUNC) \
    X(BITWISE_NOT)
#define OPS_IP(X) X(LOGICAL_NOT) X(ISNAN) X(ISINF) X(ISFINITE) X(ISPOSINF) X(ISNEGINF) X(SIGNBIT)
#define OPS_UW(X) X(CEIL) X(FLOOR) X(ROUND) X(TRUNC)   /* uint16/32/64: what upstream builds */
#define OPS_UWP(X) X(ISNAN) X(ISINF) X(ISFINITE) X(ISPOSINF) X(ISNEGINF)
#define OPS_B(X) X(BITWISE_NOT) X(SIGN) X(ABS)
#define OPS_BP(X) X(LOGICAL_NOT) X(ISNAN) X(ISINF) X(ISFINITE) X(ISPOSINF) X(ISNEGINF) X(SIGNBIT)

#define GEN_F(op) TN_FAM_F(INST_F, op)
#define GEN_FP(op) TN_FAM_F(INSTP_F, op)
#define GEN_C(op) TN_FAM_C(INST_C, op)
#define GEN_CP(op) TN_FAM_C(INSTP_C, op)
#define GEN_I(op) TN_FAM_I(INST_I, op)
#define GEN_IP(op) TN_FAM_I(INSTP_I, op)
#define GEN_UW(op) TN_FAM_UW(INST_I, op)
#define GEN_UWP(op) TN_FAM_UW(INSTP_I, op)
#define GEN_B(op) TN_FAM_BOOL(INST_B, op)
#define GEN_BP(op) TN_FAM_BOOL(INSTP_B, op)
OPS_F(GEN_F)
OPS_FP(GEN_FP)
TN_DEF_UNARY(u_ERF_AS_f16, uint16_t, uint16_t, float, TN_LD_H, TN_ST_H, UF_ERF_AS, )
TN_DEF_UNARY(u_ERF_AS_bf16, uint16_t, uint16_t, float, TN_LD_B, TN_ST_B, UF_ERF_AS, )
OPS_C(GEN_C)
OPS_CP(GEN_CP)
OPS_I(GEN_I)
OPS_IP(GEN_IP)
OPS_UW(GEN_UW)
OPS_UWP(GEN_UWP)
OPS_B(GEN_B)
OPS_BP(GEN_BP)

/* ---- float8: upstream's CPU kernels for these formats are abs, isnan, and isinf / isfinite for
 * e5m2 (isfinite also for e8m0fnu, where it is true for every code, NaN included). The rules on
 * the bits, measured over all 256 codes of each format: abs clears the sign of a non-zero,
 * non-NaN value (upstream's x < 0 ? -x : x keeps -0 and every NaN as they are). ---- */
#define F8NAN_e4m3fn(c) (((c) & 0x7F) == 0x7F)
#define F8NAN_e5m2(c) (((c) & 0x7F) > 0x7C)
#define F8NAN_fnuz(c) ((c) == 0x80)
#define F8NAN_e8m0(c) ((c) == 0xFF)
#define F8LOOP(name, OT, EXPR)                                                                  \
    static void name(char **d, const int64_t *s, int64_t n, const void *ctx) {                 \
        (void)ctx;                                                                              \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {                                 \
            const uint8_t c = *(const uint8_t *)a;                                              \
            *(OT *)o = (OT)(EXPR);                                                              \
        }                                                                                       \
    }
#define F8FMT(f)                                                                                \
    F8LOOP(u_ABS_f8##f, uint8_t, (c & 0x80) && (c & 0x7F) && !F8NAN_##f(c) ? c & 0x7F : c)    \
    F8LOOP(u_ISNAN_f8##f, bool, F8NAN_##f(c))
F8FMT(e4m3fn)
F8FMT(e5m2)
F8FMT(fnuz)
F8LOOP(u_ISNAN_f8e8m0, bool, F8NAN_e8m0(c))
F8LOOP(u_ISINF_f8e5m2, bool, (c & 0x7F) == 0x7C)
F8LOOP(u_ISFINITE_f8e5m2, bool, (c & 0x7C) != 0x7C)
F8LOOP(u_TRUE_f8, bool, ((void)c, true))

/* abs of complex: real output. */
#define UC_ABS_F(x, T, P) cabsf(x)
#define UC_ABS_D(x, T, P) cabs(x)
TN_DEF_UNARY(u_ABS_c64, float, tn_c64_t, tn_c64_t, TN_LD_ID, TN_ST_ID, UC_ABS_F, )
TN_DEF_UNARY(u_ABS_c128, double, tn_c128_t, tn_c128_t, TN_LD_ID, TN_ST_ID, UC_ABS_D, )

/* f32 exp, log, tanh, sigmoid, silu, gelu (both forms) through kernels/vmath.h (upstream runs
 * vectorised kernels for these too). Strided operands go through a stack block, so every layout
 * gives the same bits. */
#define TN_VM_UNARY(NAME, FN)                                                                     \
    static void NAME(char **data, const int64_t *s, int64_t n, const void *ctx) {                 \
        (void)ctx;                                                                                \
        if (s[0] == (int64_t)sizeof(float) && s[1] == (int64_t)sizeof(float)) {                  \
            FN((float *)data[0], (const float *)data[1], n);                                      \
            return;                                                                               \
        }                                                                                         \
        float t[256];                                                                             \
        for (int64_t i = 0; i < n; i += 256) {                                                    \
            int64_t m = n - i < 256 ? n - i : 256;                                                \
            for (int64_t k = 0; k < m; k++) t[k] = *(const float *)(data[1] + (i + k) * s[1]);    \
            FN(t, t, m);                                                                          \
            for (int64_t k = 0; k < m; k++) *(float *)(data[0] + (i + k) * s[0]) = t[k];          \
        }                                                                                         \
    }
TN_VM_UNARY(u_EXP_f32_vm, tn_vm_exp_f32)
TN_VM_UNARY(u_LOG_f32_vm, tn_vm_log_f32)
TN_VM_UNARY(u_TANH_f32_vm, tn_vm_tanh_f32)
TN_VM_UNARY(u_SIGMOID_f32_vm, tn_vm_sigmoid_f32)
TN_VM_UNARY(u_SILU_f32_vm, tn_vm_silu_f32)
TN_VM_UNARY(u_GELU_f32_vm, tn_vm_gelu_f32)
TN_VM_UNARY(u_GELU_TANH_f32_vm, tn_vm_gelu_tanh_f32)

/* bf16 / f16 silu: widened in 256-element blocks (kernels/lowp.h), x / (1 + exp(-x)) in f32 with
 * kernels/vmath.h's exp (0.5 ulp, as the C library's expf the scalar loop calls; the f32-lane
 * tn_vm_silu_f32 would round 17 of the 65,536 bf16 inputs differently from upstream, measured),
 * rounded once (the scalar store's bits); strided operands go through the same blocks. */
TN_EW_CLONES static void silu_lp(tn_lp_fmt fmt, char **data, const int64_t *s, int64_t n) {
    float t[256], e[256];
    uint16_t h[256];
    const bool contig = s[0] == 2 && s[1] == 2;
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        const uint16_t *src = (const uint16_t *)data[1] + i;
        if (!contig) {
            for (int64_t k = 0; k < m; k++) h[k] = *(const uint16_t *)(data[1] + (i + k) * s[1]);
            src = h;
        }
        tn_lp_widen(fmt, t, src, m);
        for (int64_t k = 0; k < m; k++) e[k] = -t[k];
        tn_vexp_f32(e, e, m);
        for (int64_t k = 0; k < m; k++) t[k] = t[k] / (1.0f + e[k]);
        if (contig) {
            tn_lp_narrow(fmt, (uint16_t *)data[0] + i, t, m, TN_LP_NAN_KEEP);
        } else {
            tn_lp_narrow(fmt, h, t, m, TN_LP_NAN_KEEP);
            for (int64_t k = 0; k < m; k++) *(uint16_t *)(data[0] + (i + k) * s[0]) = h[k];
        }
    }
}
static void u_SILU_bf16_vm(char **data, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    silu_lp(TN_LP_BF16, data, s, n);
}
static void u_SILU_f16_vm(char **data, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    silu_lp(TN_LP_F16, data, s, n);
}

/* bf16 / f16 neg on contiguous runs: kernels/lowp.h's vector bodies (the same bits) */
static void u_NEG_bf16_lp(char **data, const int64_t *s, int64_t n, const void *ctx) {
    if (s[0] == 2 && s[1] == 2) tn_lp_neg(TN_LP_BF16, (uint16_t *)data[0], (const uint16_t *)data[1], n);
    else u_NEG_bf16(data, s, n, ctx);
}
static void u_NEG_f16_lp(char **data, const int64_t *s, int64_t n, const void *ctx) {
    if (s[0] == 2 && s[1] == 2) tn_lp_neg(TN_LP_F16, (uint16_t *)data[0], (const uint16_t *)data[1], n);
    else u_NEG_f16(data, s, n, ctx);
}

static tn_loop utab[TN_UNARY_COUNT][TN_DTYPE_COUNT];
static bool utab_ready;

#define REG(sfx, TS, CT, LD, ST, E, op) utab[TN_UNARY_##op][TN_DTYPE_##E] = u_##op##_##sfx;
#define REG_F(op) TN_FAM_F(REG, op)
#define REG_C(op) TN_FAM_C(REG, op)
#define REG_I(op) TN_FAM_I(REG, op)
#define REG_B(op) TN_FAM_BOOL(REG, op)
#define REG_UW(op) TN_FAM_UW(REG, op)

static void utab_init(void) {
    OPS_UW(REG_UW) OPS_UWP(REG_UW)
    utab[TN_UNARY_SIGNBIT][TN_DTYPE_U16] = u_ISNEGINF_u16; /* never set for an unsigned value */
    utab[TN_UNARY_SIGNBIT][TN_DTYPE_U32] = u_ISNEGINF_u32;
    utab[TN_UNARY_SIGNBIT][TN_DTYPE_U64] = u_ISNEGINF_u64;
    utab[TN_UNARY_ABS][TN_DTYPE_F8E4M3FN] = u_ABS_f8e4m3fn;
    utab[TN_UNARY_ABS][TN_DTYPE_F8E5M2] = u_ABS_f8e5m2;
    utab[TN_UNARY_ABS][TN_DTYPE_F8E4M3FNUZ] = u_ABS_f8fnuz;
    utab[TN_UNARY_ABS][TN_DTYPE_F8E5M2FNUZ] = u_ABS_f8fnuz;
    utab[TN_UNARY_ISNAN][TN_DTYPE_F8E4M3FN] = u_ISNAN_f8e4m3fn;
    utab[TN_UNARY_ISNAN][TN_DTYPE_F8E5M2] = u_ISNAN_f8e5m2;
    utab[TN_UNARY_ISNAN][TN_DTYPE_F8E4M3FNUZ] = u_ISNAN_f8fnuz;
    utab[TN_UNARY_ISNAN][TN_DTYPE_F8E5M2FNUZ] = u_ISNAN_f8fnuz;
    utab[TN_UNARY_ISNAN][TN_DTYPE_F8E8M0FNU] = u_ISNAN_f8e8m0;
    utab[TN_UNARY_ISINF][TN_DTYPE_F8E5M2] = u_ISINF_f8e5m2;
    utab[TN_UNARY_ISFINITE][TN_DTYPE_F8E5M2] = u_ISFINITE_f8e5m2;
    utab[TN_UNARY_ISFINITE][TN_DTYPE_F8E8M0FNU] = u_TRUE_f8;
    OPS_F(REG_F) OPS_FP(REG_F)
    OPS_C(REG_C) OPS_CP(REG_C)
    OPS_I(REG_I) OPS_IP(REG_I)
    OPS_B(REG_B) OPS_BP(REG_B)
    utab[TN_UNARY_ERF][TN_DTYPE_F16] = u_ERF_AS_f16;
    utab[TN_UNARY_ERF][TN_DTYPE_BF16] = u_ERF_AS_bf16;
    utab[TN_UNARY_ABS][TN_DTYPE_C64] = u_ABS_c64;
    utab[TN_UNARY_ABS][TN_DTYPE_C128] = u_ABS_c128;
    utab[TN_UNARY_EXP][TN_DTYPE_F32] = u_EXP_f32_vm;
    utab[TN_UNARY_LOG][TN_DTYPE_F32] = u_LOG_f32_vm;
    utab[TN_UNARY_TANH][TN_DTYPE_F32] = u_TANH_f32_vm;
    utab[TN_UNARY_SIGMOID][TN_DTYPE_F32] = u_SIGMOID_f32_vm;
    utab[TN_UNARY_SILU][TN_DTYPE_F32] = u_SILU_f32_vm;
    utab[TN_UNARY_SILU][TN_DTYPE_BF16] = u_SILU_bf16_vm;
    utab[TN_UNARY_NEG][TN_DTYPE_BF16] = u_NEG_bf16_lp;
    utab[TN_UNARY_SILU][TN_DTYPE_F16] = u_SILU_f16_vm;
    utab[TN_UNARY_NEG][TN_DTYPE_F16] = u_NEG_f16_lp;
    utab[TN_UNARY_GELU][TN_DTYPE_F32] = u_GELU_f32_vm;
    utab[TN_UNARY_GELU_TANH][TN_DTYPE_F32] = u_GELU_TANH_f32_vm;
    utab_ready = true;
}

tn_dtype tn_unary_out_dtype(tn_unary_op op, tn_dtype dt) {
    switch (op) {
    case TN_UNARY_LOGICAL_NOT: case TN_UNARY_ISNAN: case TN_UNARY_ISINF: case TN_UNARY_ISFINITE:
    case TN_UNARY_ISPOSINF: case TN_UNARY_ISNEGINF: case TN_UNARY_SIGNBIT:
        return TN_DTYPE_BOOL;
    case TN_UNARY_ABS:
        if (dt == TN_DTYPE_C64) return TN_DTYPE_F32;
        if (dt == TN_DTYPE_C128) return TN_DTYPE_F64;
        return dt;
    default:
        return dt;
    }
}

tn_loop tn_unary_loop(tn_unary_op op, tn_dtype dt) {
    if ((unsigned)op >= TN_UNARY_COUNT || (unsigned)dt >= TN_DTYPE_COUNT) return NULL;
    if (!utab_ready) utab_init(); /* idempotent: racing initialisers write identical values */
    return utab[op][dt];
}
