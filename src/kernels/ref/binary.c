/* binary.c — reference binary kernels (arithmetic, comparisons, logical, bitwise, shifts),
 * the tensor-op-number and pow-by-scalar variants, where, and clamp.
 *
 * Layout as in unary.c: one expression per op and dtype family, stamped out per storage type
 * by the family macros of ew_impl.h, collected into a lookup table. Integer arithmetic wraps
 * (computed in the unsigned twin type) and integer division never traps: a zero divisor gives
 * 0 and INT_MIN / -1 gives INT_MIN (the op layer raises ZeroDivisionError like upstream). */
#include "kernels/ref/ew_impl.h"
#include "kernels/lowp.h"
#include "kernels/ref/clogaddexp.h"
#include "kernels/vmath.h"

#include <tgmath.h>

const char *const tn_binary_names[TN_BINARY_COUNT] = {
#define TN_X(E, n) [TN_BINARY_##E] = #n,
    TN_BINARY_OPS(TN_X)
#undef TN_X
};

#define SC(P) ((const tn_scalar *)(P))

/* ---- float helpers (T = float or double) ---- */
#define TN_FLOAT_HELPERS(T)                                                                    \
    static inline T tn__divfloor_##T(T a, T b) {                                               \
        if (b == 0) return a / b;                                                              \
        T mod = fmod(a, b), div = (a - mod) / b;                                               \
        if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;                                        \
        if (div == 0) return copysign((T)0, a / b);                                            \
        T fl = floor(div);                                                                     \
        if (div - fl > (T)0.5) fl += 1;                                                        \
        return fl;                                                                             \
    }                                                                                          \
    static inline T tn__rem_##T(T a, T b) {                                                    \
        T mod = fmod(a, b);                                                                    \
        if (mod != 0 && (b < 0) != (mod < 0)) mod += b;                                        \
        return mod;                                                                            \
    }                                                                                          \
    static inline T tn__logaddexp_##T(T a, T b) {                                              \
        if (isinf(a) && a == b) return a;                                                      \
        T m = a < b ? b : a; /* NaN falls through and propagates below */                     \
        return m + log1p(exp(-fabs(a - b)));                                                   \
    }                                                                                          \
    static inline T tn__xlogy_##T(T x, T y) {                                                  \
        if (y != y) return y;                                                                  \
        if (x == 0) return 0;                                                                  \
        return x * log(y);                                                                     \
    }
TN_FLOAT_HELPERS(float)
TN_FLOAT_HELPERS(double)

#define BF_ADD1(x, y, T, P) ((x) + (y))
#define BF_SUB1(x, y, T, P) ((x) - (y))
#define BF_ADDA(x, y, T, P) fma(al_, (y), (x))
#define BF_SUBA(x, y, T, P) fma(-al_, (y), (x))
#define BF_MUL(x, y, T, P) ((x) * (y))
#define BF_DIV(x, y, T, P) ((x) / (y))
#define BF_DIV_TRUNC(x, y, T, P) trunc((x) / (y))
#define BF_DIV_FLOOR(x, y, T, P) tn__divfloor_##T(x, y)
#define BF_REMAINDER(x, y, T, P) tn__rem_##T(x, y)
#define BF_FMOD(x, y, T, P) fmod(x, y)
#define BF_POW(x, y, T, P) pow(x, y)
#define BF_MAXIMUM(x, y, T, P) ((x) != (x) ? (x) : (y) != (y) ? (y) : (x) < (y) ? (y) : (x))
#define BF_MINIMUM(x, y, T, P) ((x) != (x) ? (x) : (y) != (y) ? (y) : (y) < (x) ? (y) : (x))
#define BF_FMAX(x, y, T, P) ((y) != (y) ? (x) : (x) != (x) ? (y) : (x) < (y) ? (y) : (x))
#define BF_FMIN(x, y, T, P) ((y) != (y) ? (x) : (x) != (x) ? (y) : (y) < (x) ? (y) : (x))
#define BF_ATAN2(x, y, T, P) atan2(x, y)
#define BF_HYPOT(x, y, T, P) hypot(x, y)
#define BF_COPYSIGN(x, y, T, P) copysign(x, y)
#define BF_NEXTAFTER(x, y, T, P) nextafter(x, y)
#define BF_LOGADDEXP(x, y, T, P) tn__logaddexp_##T(x, y)
#define BF_XLOGY(x, y, T, P) tn__xlogy_##T(x, y)
#define BF_EQ(x, y, T, P) ((x) == (y))
#define BF_NE(x, y, T, P) ((x) != (y))
#define BF_LT(x, y, T, P) ((x) < (y))
#define BF_LE(x, y, T, P) ((x) <= (y))
#define BF_GT(x, y, T, P) ((x) > (y))
#define BF_GE(x, y, T, P) ((x) >= (y))
#define BF_LOGICAL_AND(x, y, T, P) ((x) != 0 && (y) != 0)
#define BF_LOGICAL_OR(x, y, T, P) ((x) != 0 || (y) != 0)
#define BF_LOGICAL_XOR(x, y, T, P) (((x) != 0) != ((y) != 0))

/* ---- complex (T = tn_c64_t / tn_c128_t) ---- */
#define CNZ(x) (creal(x) != 0 || cimag(x) != 0)
/* upstream computes a + alpha*b with a complex product even for alpha = 1 (NaN spreads) */
#define BC_ADD1(x, y, T, P) ((x) + tn__cmul_##T((T)1, y))
#define BC_SUB1(x, y, T, P) ((x) + tn__cmul_##T((T)-1, y))
#define BC_ADDA(x, y, T, P) ((x) + tn__cmul_##T(al_, y))
#define BC_SUBA(x, y, T, P) ((x) + tn__cmul_##T(-al_, y))
#define BC_MUL(x, y, T, P) tn__cmul_##T(x, y)
#define BC_DIV(x, y, T, P) tn__cdiv_##T(x, y)
#define BC_POW(x, y, T, P) pow(x, y)
#define BC_LOGADDEXP(x, y, T, P) tn__clogaddexp_##T(x, y)   /* upstream's complex helper (clogaddexp.h) */
#define BC_EQ(x, y, T, P) ((x) == (y))
#define BC_NE(x, y, T, P) ((x) != (y))
#define BC_LOGICAL_AND(x, y, T, P) (CNZ(x) && CNZ(y))
#define BC_LOGICAL_OR(x, y, T, P) (CNZ(x) || CNZ(y))
#define BC_LOGICAL_XOR(x, y, T, P) (CNZ(x) != CNZ(y))

/* ---- integers (T signed or unsigned, U its unsigned twin) ---- */
#define U_(T) TN_UNS(T)
#define BI_ADD1(x, y, T, P) ((T)((U_(T))(x) + (U_(T))(y)))
#define BI_SUB1(x, y, T, P) ((T)((U_(T))(x) - (U_(T))(y)))
#define BI_ADDA(x, y, T, P) ((T)((uint64_t)(x) + (uint64_t)al_ * (uint64_t)(y)))
#define BI_SUBA(x, y, T, P) ((T)((uint64_t)(x) - (uint64_t)al_ * (uint64_t)(y)))
#define BI_MUL(x, y, T, P) ((T)((uint64_t)(x) * (uint64_t)(y)))
/* truncating quotient and remainder that never trap */
#define BI_QT(x, y, T) ((y) == 0 ? (T)0 : (TN_IS_SIGNED(T) && (y) == (T)-1) ? BI_SUB1(0, x, T, 0) : (T)((x) / (y)))
#define BI_RT(x, y, T) (((y) == 0 || (TN_IS_SIGNED(T) && (y) == (T)-1)) ? (T)0 : (T)((x) % (y)))
#define BI_DIV_TRUNC(x, y, T, P) BI_QT(x, y, T)
#define BI_DIV_FLOOR(x, y, T, P) tn__divfloor_i(x, y, T)
#define tn__divfloor_i(x, y, T)                                                                 \
    ({ T q_ = BI_QT(x, y, T), r_ = BI_RT(x, y, T);                                              \
       (r_ != 0 && ((r_ < 0) != ((y) < 0))) ? (T)(q_ - 1) : q_; })
#define BI_REMAINDER(x, y, T, P)                                                                \
    ({ T r_ = BI_RT(x, y, T); (r_ != 0 && ((r_ < 0) != ((y) < 0))) ? (T)(r_ + (y)) : r_; })
#define BI_FMOD(x, y, T, P) BI_RT(x, y, T)
#define BI_POW(x, y, T, P) ((T)tn__powi((int64_t)(x), (int64_t)(y), TN_IS_SIGNED(T)))
#define BI_MAXIMUM(x, y, T, P) ((x) < (y) ? (y) : (x))
#define BI_MINIMUM(x, y, T, P) ((y) < (x) ? (y) : (x))
#define BI_FMAX BI_MAXIMUM
#define BI_FMIN BI_MINIMUM
#define BI_EQ(x, y, T, P) ((x) == (y))
#define BI_NE(x, y, T, P) ((x) != (y))
#define BI_LT(x, y, T, P) ((x) < (y))
#define BI_LE(x, y, T, P) ((x) <= (y))
#define BI_GT(x, y, T, P) ((x) > (y))
#define BI_GE(x, y, T, P) ((x) >= (y))
#define BI_LOGICAL_AND(x, y, T, P) ((x) != 0 && (y) != 0)
#define BI_LOGICAL_OR(x, y, T, P) ((x) != 0 || (y) != 0)
#define BI_LOGICAL_XOR(x, y, T, P) (((x) != 0) != ((y) != 0))
#define BI_BITWISE_AND(x, y, T, P) ((T)((x) & (y)))
#define BI_BITWISE_OR(x, y, T, P) ((T)((x) | (y)))
#define BI_BITWISE_XOR(x, y, T, P) ((T)((x) ^ (y)))
#define BI_LSHIFT(x, y, T, P)                                                                   \
    (((y) < 0 || (int64_t)(y) >= (int64_t)sizeof(T) * 8) ? (T)0 : (T)((U_(T))(x) << (y)))
#define BI_RSHIFT(x, y, T, P)                                                                   \
    (((y) < 0 || (int64_t)(y) >= (int64_t)sizeof(T) * 8) ? ((x) < 0 ? (T)-1 : (T)0)             \
                                                         : (T)((x) >> (y)))

/* Integer power by squaring, wrapping; negative exponents give 0 except for bases 1 and -1. */
static inline int64_t tn__powi(int64_t a, int64_t b, bool is_signed) {
    if (b < 0) {
        if (a == 1) return 1;
        if (a == -1 && is_signed) return (b & 1) ? -1 : 1;
        return 0;
    }
    uint64_t r = 1, base = (uint64_t)a;
    uint64_t e = (uint64_t)b;
    while (e) {
        if (e & 1) r *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)r;
}

/* ---- bool ---- */
#define BB_ADD1(x, y, T, P) ((x) || (y))
#define BB_ADDA(x, y, T, P) ((x) || (al_ && (y)))
#define BB_MUL(x, y, T, P) ((x) && (y))
#define BB_MAXIMUM(x, y, T, P) ((x) || (y))
#define BB_MINIMUM(x, y, T, P) ((x) && (y))
#define BB_FMAX BB_MAXIMUM
#define BB_FMIN BB_MINIMUM
#define BB_EQ(x, y, T, P) ((x) == (y))
#define BB_NE(x, y, T, P) ((x) != (y))
#define BB_LT(x, y, T, P) ((x) < (y))
#define BB_LE(x, y, T, P) ((x) <= (y))
#define BB_GT(x, y, T, P) ((x) > (y))
#define BB_GE(x, y, T, P) ((x) >= (y))
#define BB_LOGICAL_AND(x, y, T, P) ((x) && (y))
#define BB_LOGICAL_OR(x, y, T, P) ((x) || (y))
#define BB_LOGICAL_XOR(x, y, T, P) ((x) != (y))
#define BB_BITWISE_AND(x, y, T, P) ((x) & (y))
#define BB_BITWISE_OR(x, y, T, P) ((x) | (y))
#define BB_BITWISE_XOR(x, y, T, P) ((x) ^ (y))

/* alpha in the compute type; f16/bf16 round it to the storage type first (upstream does). */
#define PRE_ALPHA_F(T, LD, ST) const T al_ = (T)LD(ST((T)SC(ctx_)->re));
#define PRE_ALPHA_C(T, LD, ST) const T al_ = (T)CMPLX(SC(ctx_)->re, SC(ctx_)->im);
#define PRE_ALPHA_I(T, LD, ST) const T al_ = (T)SC(ctx_)->i;
#define PRE_ALPHA_B(T, LD, ST) const bool al_ = SC(ctx_)->i != 0;

/* ---- instantiation ---- */
#define INST(PFX, sfx, TS, CT, LD, ST, op) TN_DEF_BINARY(b_##op##_##sfx, TS, TS, CT, LD, ST, PFX##_##op, )
#define INSTP(PFX, sfx, TS, CT, LD, op) TN_DEF_BINARY(b_##op##_##sfx, uint8_t, TS, CT, LD, TN_ST_BOOL, PFX##_##op, )
#define INST_F(sfx, TS, CT, LD, ST, E, op) INST(BF, sfx, TS, CT, LD, ST, op)
#define INST_C(sfx, TS, CT, LD, ST, E, op) INST(BC, sfx, TS, CT, LD, ST, op)
#define INST_I(sfx, TS, CT, LD, ST, E, op) INST(BI, sfx, TS, CT, LD, ST, op)
#define INST_B(sfx, TS, CT, LD, ST, E, op) INST(BB, sfx, TS, CT, LD, ST, op)
#define INSTP_F(sfx, TS, CT, LD, ST, E, op) INSTP(BF, sfx, TS, CT, LD, op)
#define INSTP_C(sfx, TS, CT, LD, ST, E, op) INSTP(BC, sfx, TS, CT, LD, op)
#define INSTP_I(sfx, TS, CT, LD, ST, E, op) INSTP(BI, sfx, TS, CT, LD, op)
#define INSTP_B(sfx, TS, CT, LD, ST, E, op) INSTP(BB, sfx, TS, CT, LD, op)

/* add / sub: an alpha-free loop and an alpha loop behind one entry point. */
#define INST_ADDSUB(PFX, FAMP, sfx, TS, CT, LD, ST)                                             \
    TN_DEF_BINARY(b_ADD1_##sfx, TS, TS, CT, LD, ST, PFX##_ADD1, )                               \
    TN_DEF_BINARY(b_ADDA_##sfx, TS, TS, CT, LD, ST, PFX##_ADDA, PRE_ALPHA_##FAMP(CT, LD, ST))   \
    static void b_ADD_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {           \
        if (!ctx || (SC(ctx)->re == 1 && SC(ctx)->im == 0 && SC(ctx)->i == 1))                  \
            b_ADD1_##sfx(d, s, n, NULL);                                                        \
        else                                                                                    \
            b_ADDA_##sfx(d, s, n, ctx);                                                         \
    }
#define INST_SUB(PFX, FAMP, sfx, TS, CT, LD, ST)                                                \
    TN_DEF_BINARY(b_SUB1_##sfx, TS, TS, CT, LD, ST, PFX##_SUB1, )                               \
    TN_DEF_BINARY(b_SUBA_##sfx, TS, TS, CT, LD, ST, PFX##_SUBA, PRE_ALPHA_##FAMP(CT, LD, ST))   \
    static void b_SUB_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {           \
        if (!ctx || (SC(ctx)->re == 1 && SC(ctx)->im == 0 && SC(ctx)->i == 1))                  \
            b_SUB1_##sfx(d, s, n, NULL);                                                        \
        else                                                                                    \
            b_SUBA_##sfx(d, s, n, ctx);                                                         \
    }
#define AS_F(sfx, TS, CT, LD, ST, E, _) INST_ADDSUB(BF, F, sfx, TS, CT, LD, ST) INST_SUB(BF, F, sfx, TS, CT, LD, ST)
#define AS_C(sfx, TS, CT, LD, ST, E, _) INST_ADDSUB(BC, C, sfx, TS, CT, LD, ST) INST_SUB(BC, C, sfx, TS, CT, LD, ST)
#define AS_I(sfx, TS, CT, LD, ST, E, _) INST_ADDSUB(BI, I, sfx, TS, CT, LD, ST) INST_SUB(BI, I, sfx, TS, CT, LD, ST)
#define AS_B(sfx, TS, CT, LD, ST, E, _) INST_ADDSUB(BB, B, sfx, TS, CT, LD, ST)
TN_FAM_F(AS_F, _)
TN_FAM_C(AS_C, _)
TN_FAM_I(AS_I, _)
TN_FAM_BOOL(AS_B, _)

#define OPS_F(X) X(MUL) X(DIV) X(DIV_TRUNC) X(DIV_FLOOR) X(REMAINDER) X(FMOD) X(POW) X(MAXIMUM) \
    X(MINIMUM) X(FMAX) X(FMIN) X(ATAN2) X(HYPOT) X(COPYSIGN) X(LOGADDEXP) X(XLOGY)
#define OPS_FP(X) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(LOGICAL_AND) X(LOGICAL_OR) X(LOGICAL_XOR)
#define OPS_C(X) X(MUL) X(DIV) X(POW) X(LOGADDEXP)
#define OPS_CP(X) X(EQ) X(NE) X(LOGICAL_AND) X(LOGICAL_OR) X(LOGICAL_XOR)
#define OPS_I(X) X(MUL) X(DIV_TRUNC) X(DIV_FLOOR) X(REMAINDER) X(FMOD) X(POW) X(MAXIMUM)         \
    X(MINIMUM) X(FMAX) X(FMIN) X(BITWISE_AND) X(BITWISE_OR) X(BITWISE_XOR) X(LSHIFT) X(RSHIFT)
#define OPS_IP(X) OPS_FP(X)
#define OPS_UW(X) X(MUL) X(BITWISE_AND) X(BITWISE_OR) X(BITWISE_XOR)
#define OPS_UWP(X) X(EQ) X(NE)
#define OPS_B(X) X(MUL) X(MAXIMUM) X(MINIMUM) X(FMAX) X(FMIN) X(BITWISE_AND) X(BITWISE_OR) X(BITWISE_XOR)
#define OPS_BP(X) OPS_FP(X)

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
OPS_C(GEN_C)
OPS_CP(GEN_CP)
OPS_I(GEN_I)
OPS_IP(GEN_IP)
OPS_UW(GEN_UW)
OPS_UWP(GEN_UWP)
OPS_B(GEN_B)
OPS_BP(GEN_BP)
/* nextafter only where it is exact in the compute type (f32, f64). */
TN_DEF_BINARY(b_NEXTAFTER_f32, float, float, float, TN_LD_ID, TN_ST_ID, BF_NEXTAFTER, )
TN_DEF_BINARY(b_NEXTAFTER_f64, double, double, double, TN_LD_ID, TN_ST_ID, BF_NEXTAFTER, )

/* f16/bf16 add/sub with alpha, as upstream's AVX512 build computes them (measured): the
 * vectorised body (the first n - n % 32 elements of a contiguous run, a broadcast scalar operand
 * allowed) is fma(alpha, b, a) in f32 rounded once; the scalar tail, and every element of a
 * strided run, is Half arithmetic: alpha * b rounded to the dtype, then a + that, rounded. Alpha
 * is rounded to the dtype first; sub is add with -alpha. */
#define ADDSUB16(name, LD, ST, SIGN)                                                             \
    static void name(char **d, const int64_t *s, int64_t n, const void *ctx) {                  \
        const float al = SIGN LD(ST((float)SC(ctx)->re));                                       \
        const bool vec = s[0] == 2 && ((s[1] == 2 && (s[2] == 2 || s[2] == 0)) || (s[1] == 0 && s[2] == 2)); \
        const int64_t nv = vec ? n - n % 32 : 0;                                                \
        char *o = d[0];                                                                         \
        const char *a = d[1], *b = d[2];                                                        \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1], b += s[2]) {                      \
            float x = LD(*(const uint16_t *)a), y = LD(*(const uint16_t *)b);                   \
            float r = k < nv ? fmaf(al, y, x) : x + LD(ST(al * y));                             \
            *(uint16_t *)o = ST(r);                                                             \
        }                                                                                       \
    }
ADDSUB16(b_ADDA16_f16, TN_LD_H, TN_ST_H, +)
ADDSUB16(b_SUBA16_f16, TN_LD_H, TN_ST_H, -)
ADDSUB16(b_ADDA16_bf16, TN_LD_B, TN_ST_B, +)
ADDSUB16(b_SUBA16_bf16, TN_LD_B, TN_ST_B, -)
#define ALPHA_IS_1(ctx) (!(ctx) || (SC(ctx)->re == 1 && SC(ctx)->im == 0 && SC(ctx)->i == 1))
static void b_ADD16_f16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (ALPHA_IS_1(ctx)) b_ADD1_f16(d, s, n, NULL); else b_ADDA16_f16(d, s, n, ctx);
}
static void b_SUB16_f16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (ALPHA_IS_1(ctx)) b_SUB1_f16(d, s, n, NULL); else b_SUBA16_f16(d, s, n, ctx);
}
static void b_ADD16_bf16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (ALPHA_IS_1(ctx)) b_ADD1_bf16(d, s, n, NULL); else b_ADDA16_bf16(d, s, n, ctx);
}
static void b_SUB16_bf16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (ALPHA_IS_1(ctx)) b_SUB1_bf16(d, s, n, NULL); else b_SUBA16_bf16(d, s, n, ctx);
}

/* bf16 / f16 add (alpha 1) and mul where every operand is contiguous or one broadcast element:
 * the vector bodies of kernels/lowp.h (the same bits: f32 result rounded once). */
#define LP_FAST(s) ((s)[0] == 2 && ((s)[1] == 2 || (s)[1] == 0) && ((s)[2] == 2 || (s)[2] == 0))
#define LP_BINARY(sfx, FMT)                                                                                        \
    static void b_ADDLP_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {                          \
        if (ALPHA_IS_1(ctx) && LP_FAST(s))                                                                        \
            tn_lp_binary(FMT, TN_LP_ADD, (uint16_t *)d[0], (const uint16_t *)d[1], s[1] != 0,                     \
                         (const uint16_t *)d[2], s[2] != 0, n);                                                   \
        else                                                                                                      \
            b_ADD16_##sfx(d, s, n, ctx);                                                                          \
    }                                                                                                             \
    static void b_MULLP_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {                          \
        if (LP_FAST(s))                                                                                           \
            tn_lp_binary(FMT, TN_LP_MUL, (uint16_t *)d[0], (const uint16_t *)d[1], s[1] != 0,                     \
                         (const uint16_t *)d[2], s[2] != 0, n);                                                   \
        else                                                                                                      \
            b_MUL_##sfx(d, s, n, ctx);                                                                            \
    }
LP_BINARY(bf16, TN_LP_BF16)
LP_BINARY(f16, TN_LP_F16)

/* float8 eq / ne on the bits (upstream converts to float: NaN equals nothing, -0 == +0 where the
 * format has a negative zero; measured over all 256 x 256 code pairs of each format) */
#define F8NAN_fn(c) (((c) & 0x7F) == 0x7F)
#define F8NAN_e5m2(c) (((c) & 0x7F) > 0x7C)
#define F8NAN_fnuz(c) ((c) == 0x80)
#define F8NAN_e8m0(c) ((c) == 0xFF)
#define F8EQ(f, SIGNED_ZERO)                                                                    \
    static inline bool f8eq_##f(uint8_t x, uint8_t y) {                                         \
        return !F8NAN_##f(x) && !F8NAN_##f(y) && (x == y || (SIGNED_ZERO && ((x | y) & 0x7F) == 0)); \
    }                                                                                           \
    static void b_EQ_f8##f(char **d, const int64_t *s, int64_t n, const void *ctx) {            \
        (void)ctx;                                                                              \
        for (int64_t k = 0; k < n; k++)                                                         \
            *(bool *)(d[0] + k * s[0]) = f8eq_##f(*(const uint8_t *)(d[1] + k * s[1]), *(const uint8_t *)(d[2] + k * s[2])); \
    }                                                                                           \
    static void b_NE_f8##f(char **d, const int64_t *s, int64_t n, const void *ctx) {            \
        (void)ctx;                                                                              \
        for (int64_t k = 0; k < n; k++)                                                         \
            *(bool *)(d[0] + k * s[0]) = !f8eq_##f(*(const uint8_t *)(d[1] + k * s[1]), *(const uint8_t *)(d[2] + k * s[2])); \
    }
F8EQ(fn, 1)
F8EQ(e5m2, 1)
F8EQ(fnuz, 0)
F8EQ(e8m0, 0)

static tn_loop btab[TN_BINARY_COUNT][TN_DTYPE_COUNT];
static bool btab_ready;

#define REG(sfx, TS, CT, LD, ST, E, op) btab[TN_BINARY_##op][TN_DTYPE_##E] = b_##op##_##sfx;
#define REG_F(op) TN_FAM_F(REG, op)
#define REG_C(op) TN_FAM_C(REG, op)
#define REG_I(op) TN_FAM_I(REG, op)
#define REG_B(op) TN_FAM_BOOL(REG, op)
#define REG_UW(op) TN_FAM_UW(REG, op)

/* pow(tensor, tensor) on float32 / float64 as upstream's kernel: Sleef's pow over the vector body
 * (every operand contiguous, or one input a broadcast element), std::pow (powf for float32) on
 * the scalar tail and strided runs (kernels/ref/vpow.c, docs/pow_bits.md) */
#define POWV(sfx, T, SZ, VPOW, TAILPOW)                                                         \
    static void b_POWV_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {         \
        (void)ctx;                                                                              \
        const bool vec = s[0] == SZ && ((s[1] == SZ && (s[2] == SZ || s[2] == 0)) || (s[1] == 0 && s[2] == SZ)); \
        const int64_t nv = vec ? tn_vpow_body(n, SZ) : 0;                                       \
        char *o = d[0];                                                                         \
        const char *a = d[1], *b = d[2];                                                        \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1], b += s[2]) {                      \
            T x = *(const T *)a, y = *(const T *)b;                                             \
            *(T *)o = k < nv ? VPOW(x, y) : TAILPOW(x, y);                                      \
        }                                                                                       \
    }
POWV(f32, float, 4, tn_vpow_f32, powf)
POWV(f64, double, 8, tn_vpow_f64, pow)

static void btab_init(void) {
    OPS_F(REG_F) OPS_FP(REG_F) REG_F(ADD) REG_F(SUB)
    OPS_C(REG_C) OPS_CP(REG_C) REG_C(ADD) REG_C(SUB)
    OPS_I(REG_I) OPS_IP(REG_I) REG_I(ADD) REG_I(SUB)
    OPS_B(REG_B) OPS_BP(REG_B) REG_B(ADD)
    OPS_UW(REG_UW) OPS_UWP(REG_UW)
#define REG_F8(E, f) btab[TN_BINARY_EQ][TN_DTYPE_##E] = b_EQ_f8##f; btab[TN_BINARY_NE][TN_DTYPE_##E] = b_NE_f8##f;
    REG_F8(F8E4M3FN, fn) REG_F8(F8E5M2, e5m2) REG_F8(F8E4M3FNUZ, fnuz) REG_F8(F8E5M2FNUZ, fnuz)
    REG_F8(F8E8M0FNU, e8m0)
    btab[TN_BINARY_POW][TN_DTYPE_F32] = b_POWV_f32;
    btab[TN_BINARY_POW][TN_DTYPE_F64] = b_POWV_f64;
    btab[TN_BINARY_NEXTAFTER][TN_DTYPE_F32] = b_NEXTAFTER_f32;
    btab[TN_BINARY_NEXTAFTER][TN_DTYPE_F64] = b_NEXTAFTER_f64;
    btab[TN_BINARY_ADD][TN_DTYPE_F16] = b_ADDLP_f16;
    btab[TN_BINARY_MUL][TN_DTYPE_F16] = b_MULLP_f16;
    btab[TN_BINARY_SUB][TN_DTYPE_F16] = b_SUB16_f16;
    btab[TN_BINARY_ADD][TN_DTYPE_BF16] = b_ADDLP_bf16;
    btab[TN_BINARY_MUL][TN_DTYPE_BF16] = b_MULLP_bf16;
    btab[TN_BINARY_SUB][TN_DTYPE_BF16] = b_SUB16_bf16;
    btab_ready = true;
}

tn_dtype tn_binary_out_dtype(tn_binary_op op, tn_dtype dt) {
    switch (op) {
    case TN_BINARY_EQ: case TN_BINARY_NE: case TN_BINARY_LT: case TN_BINARY_LE:
    case TN_BINARY_GT: case TN_BINARY_GE: case TN_BINARY_LOGICAL_AND:
    case TN_BINARY_LOGICAL_OR: case TN_BINARY_LOGICAL_XOR:
        return TN_DTYPE_BOOL;
    default:
        return dt;
    }
}

tn_loop tn_binary_loop(tn_binary_op op, tn_dtype dt) {
    if ((unsigned)op >= TN_BINARY_COUNT || (unsigned)dt >= TN_DTYPE_COUNT) return NULL;
    if (!btab_ready) btab_init(); /* idempotent: racing initialisers write identical values */
    return btab[op][dt];
}

/* ---- tensor op Python number: data = {out, a}, y_ fixed for the call ---- */
/* f16/bf16 keep the number in f32 for MUL/DIV/DIV_FLOOR (OPM), round it for ADD/SUB (RND). */
#define PRE_Y_OPM(T, LD, ST) const T y_ = (T)SC(ctx_)->re;
#define PRE_Y_RND(T, LD, ST) const T y_ = (T)LD(ST((T)SC(ctx_)->re));
#define PRE_Y_C(T, LD, ST) const T y_ = (T)CMPLX(SC(ctx_)->re, SC(ctx_)->im);
#define PRE_Y_I(T, LD, ST) const T y_ = (T)SC(ctx_)->i;
#define PRE_Y_B(T, LD, ST) const bool y_ = SC(ctx_)->i != 0;
#define S_ADD(PFX) PFX##_ADD1
#define SCX(x, T, P, F) F(x, y_, T, P)
#define SF_ADD(x, T, P) BF_ADD1(x, y_, T, P)
#define SF_SUB(x, T, P) BF_SUB1(x, y_, T, P)
#define SF_MUL(x, T, P) BF_MUL(x, y_, T, P)
#define SF_DIV(x, T, P) BF_DIV(x, y_, T, P)
#define SF_DIV_FLOOR(x, T, P) BF_DIV_FLOOR(x, y_, T, P)
#define SF_DIV_TRUNC(x, T, P) BF_DIV_TRUNC(x, y_, T, P)
#define SC_ADD(x, T, P) BC_ADD1(x, y_, T, P)
#define SC_SUB(x, T, P) BC_SUB1(x, y_, T, P)
#define SC_MUL(x, T, P) BC_MUL(x, y_, T, P)
#define SC_DIV(x, T, P) BC_DIV(x, y_, T, P)
#define SI_ADD(x, T, P) BI_ADD1(x, y_, T, P)
#define SI_SUB(x, T, P) BI_SUB1(x, y_, T, P)
#define SI_MUL(x, T, P) BI_MUL(x, y_, T, P)
#define SI_DIV_FLOOR(x, T, P) BI_DIV_FLOOR(x, y_, T, P)
#define SB_ADD(x, T, P) BB_ADD1(x, y_, T, P)
#define SB_MUL(x, T, P) BB_MUL(x, y_, T, P)

#define SINST(PFX, PREK, sfx, TS, CT, LD, ST, op) \
    TN_DEF_UNARY(s_##op##_##sfx, TS, TS, CT, LD, ST, PFX##_##op, PRE_Y_##PREK(CT, LD, ST))
#define SG_F(sfx, TS, CT, LD, ST, E, _)                                                         \
    SINST(SF, RND, sfx, TS, CT, LD, ST, ADD) SINST(SF, RND, sfx, TS, CT, LD, ST, SUB)           \
    SINST(SF, OPM, sfx, TS, CT, LD, ST, MUL) SINST(SF, OPM, sfx, TS, CT, LD, ST, DIV)           \
    SINST(SF, OPM, sfx, TS, CT, LD, ST, DIV_FLOOR) SINST(SF, OPM, sfx, TS, CT, LD, ST, DIV_TRUNC)
#define SG_C(sfx, TS, CT, LD, ST, E, _)                                                         \
    SINST(SC, C, sfx, TS, CT, LD, ST, ADD) SINST(SC, C, sfx, TS, CT, LD, ST, SUB)               \
    SINST(SC, C, sfx, TS, CT, LD, ST, MUL) SINST(SC, C, sfx, TS, CT, LD, ST, DIV)
#define SG_I(sfx, TS, CT, LD, ST, E, _)                                                         \
    SINST(SI, I, sfx, TS, CT, LD, ST, ADD) SINST(SI, I, sfx, TS, CT, LD, ST, SUB)               \
    SINST(SI, I, sfx, TS, CT, LD, ST, MUL) SINST(SI, I, sfx, TS, CT, LD, ST, DIV_FLOOR)
#define SG_B(sfx, TS, CT, LD, ST, E, _)                                                         \
    SINST(SB, B, sfx, TS, CT, LD, ST, ADD) SINST(SB, B, sfx, TS, CT, LD, ST, MUL)
TN_FAM_F(SG_F, _)
TN_FAM_C(SG_C, _)
TN_FAM_I(SG_I, _)
TN_FAM_BOOL(SG_B, _)

#define SREG(sfx, TS, CT, LD, ST, E, op) \
    if (dt == TN_DTYPE_##E) return s_##op##_##sfx;
tn_loop tn_binary_scalar_loop(tn_binary_op op, tn_dtype dt) {
    switch (op) {
    case TN_BINARY_ADD: TN_FAM_F(SREG, ADD) TN_FAM_C(SREG, ADD) TN_FAM_I(SREG, ADD) TN_FAM_BOOL(SREG, ADD) break;
    case TN_BINARY_SUB: TN_FAM_F(SREG, SUB) TN_FAM_C(SREG, SUB) TN_FAM_I(SREG, SUB) break;
    case TN_BINARY_MUL: TN_FAM_F(SREG, MUL) TN_FAM_C(SREG, MUL) TN_FAM_I(SREG, MUL) TN_FAM_BOOL(SREG, MUL) break;
    case TN_BINARY_DIV: TN_FAM_F(SREG, DIV) TN_FAM_C(SREG, DIV) break;
    case TN_BINARY_DIV_FLOOR: TN_FAM_F(SREG, DIV_FLOOR) TN_FAM_I(SREG, DIV_FLOOR) break;
    case TN_BINARY_DIV_TRUNC: TN_FAM_F(SREG, DIV_TRUNC) break;
    default: break;
    }
    return NULL;
}

/* ---- pow(Tensor, Scalar) ---- */
#define PW_SQ(x, T, P) ((x) * (x))
#define PW_CUBE(x, T, P) ((x) * (x) * (x))
#define PW_SQRT(x, T, P) sqrt(x)
#define PW_RSQRT(x, T, P) ((T)1 / sqrt(x))
#define PW_RECIP(x, T, P) ((T)1 / (x))
#define PW_RECIP2(x, T, P) ((T)1 / ((x) * (x)))
#define PW_CRSQRT(x, T, P) tn__cdiv_##T((T)1, sqrt(x))
#define PW_CRECIP(x, T, P) tn__cdiv_##T((T)1, x)
#define PW_GEN(x, T, P) pow(x, y_)
#define PW_CSQ(x, T, P) tn__cmul_##T(x, x)
#define PW_CCUBE(x, T, P) tn__cmul_##T(tn__cmul_##T(x, x), x)
#define PW_CRECIP2(x, T, P) tn__cdiv_##T((T)1, tn__cmul_##T(x, x))
#define PW_INT(x, T, P) ((T)tn__powi((int64_t)(x), y_, TN_IS_SIGNED(T)))
#define PWI(sfx, TS, CT, LD, ST, K, PRE) TN_DEF_UNARY(pw_##K##_##sfx, TS, TS, CT, LD, ST, PW_##K, PRE)
#define PW_FAM_F(sfx, TS, CT, LD, ST, E, _)                                                     \
    PWI(sfx, TS, CT, LD, ST, SQ, ) PWI(sfx, TS, CT, LD, ST, CUBE, )                             \
    PWI(sfx, TS, CT, LD, ST, SQRT, ) PWI(sfx, TS, CT, LD, ST, RSQRT, )                          \
    PWI(sfx, TS, CT, LD, ST, RECIP, ) PWI(sfx, TS, CT, LD, ST, RECIP2, )                        \
    PWI(sfx, TS, CT, LD, ST, GEN, PRE_Y_RND(CT, LD, ST))                                        \
    static void pw_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {              \
        CT e = (CT)LD(ST((CT)SC(ctx)->re));                                                     \
        if (e == 2) pw_SQ_##sfx(d, s, n, ctx);                                                  \
        else if (e == 3) pw_CUBE_##sfx(d, s, n, ctx);                                           \
        else if (e == (CT)0.5) pw_SQRT_##sfx(d, s, n, ctx);                                     \
        else if (e == (CT)-0.5) pw_RSQRT_##sfx(d, s, n, ctx);                                   \
        else if (e == -1) pw_RECIP_##sfx(d, s, n, ctx);                                         \
        else if (e == -2) pw_RECIP2_##sfx(d, s, n, ctx);                                        \
        else pw_GEN_##sfx(d, s, n, ctx);                                                        \
    }
#define PW_FAM_C(sfx, TS, CT, LD, ST, E, _)                                                     \
    PWI(sfx, TS, CT, LD, ST, CSQ, ) PWI(sfx, TS, CT, LD, ST, CCUBE, )                           \
    PWI(sfx, TS, CT, LD, ST, SQRT, ) PWI(sfx, TS, CT, LD, ST, CRSQRT, )                         \
    PWI(sfx, TS, CT, LD, ST, CRECIP, ) PWI(sfx, TS, CT, LD, ST, CRECIP2, )                      \
    PWI(sfx, TS, CT, LD, ST, GEN, PRE_Y_C(CT, LD, ST))                                          \
    static void pw_##sfx(char **d, const int64_t *s, int64_t n, const void *ctx) {              \
        double re = SC(ctx)->re;                                                                \
        if (SC(ctx)->im != 0) pw_GEN_##sfx(d, s, n, ctx);                                       \
        else if (re == 2) pw_CSQ_##sfx(d, s, n, ctx);                                           \
        else if (re == 3) pw_CCUBE_##sfx(d, s, n, ctx);                                         \
        else if (re == 0.5) pw_SQRT_##sfx(d, s, n, ctx);                                        \
        else if (re == -0.5) pw_CRSQRT_##sfx(d, s, n, ctx);                                     \
        else if (re == -1) pw_CRECIP_##sfx(d, s, n, ctx);                                        \
        else if (re == -2) pw_CRECIP2_##sfx(d, s, n, ctx);                                      \
        else pw_GEN_##sfx(d, s, n, ctx);                                                        \
    }
#define PW_FAM_I(sfx, TS, CT, LD, ST, E, _) \
    TN_DEF_UNARY(pw_##sfx, TS, TS, CT, LD, ST, PW_INT, const int64_t y_ = SC(ctx_)->i;)
TN_FAM_F(PW_FAM_F, _)
TN_FAM_C(PW_FAM_C, _)
TN_FAM_I(PW_FAM_I, _)

/* Upstream's float32 / float64 pow by a number other than 2, 3, -2, 0.5, -0.5, -1 (compared as
 * doubles, as upstream does): the vector body of a contiguous run is Sleef's pow with the
 * exponent rounded to the dtype (kernels/ref/vpow.c), the scalar tail and strided runs the C
 * library's double pow with the exponent as given (docs/pow_bits.md). */
static bool pw_special(double e) { return e == 2 || e == 3 || e == -2 || e == 0.5 || e == -0.5 || e == -1; }
static void pw_v_f32(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const double e = SC(ctx)->re;
    if (pw_special(e)) { pw_f32(d, s, n, ctx); return; }
    const int64_t nv = s[0] == 4 && s[1] == 4 ? tn_vpow_body(n, 4) : 0;
    const float ef = (float)e;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {
        float x = *(const float *)a;
        *(float *)o = k < nv ? tn_vpow_f32(x, ef) : (float)pow((double)x, e);
    }
}
static void pw_v_f64(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const double e = SC(ctx)->re;
    if (pw_special(e)) { pw_f64(d, s, n, ctx); return; }
    const int64_t nv = s[0] == 8 && s[1] == 8 ? tn_vpow_body(n, 8) : 0;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {
        double x = *(const double *)a;
        *(double *)o = k < nv ? tn_vpow_f64(x, e) : pow(x, e);
    }
}
/* bfloat16: upstream multiplies in BFloat16 arithmetic (each product rounded) for 3 and -2, and
 * its rsqrt's scalar tail takes the square root rounded to bfloat16 first */
static void pw_v_bf16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const float e = TN_LD_B(TN_ST_B((float)SC(ctx)->re));
    if (e != 3 && e != -2 && e != -0.5f) { pw_bf16(d, s, n, ctx); return; }
    const int64_t nv = e == -0.5f && s[0] == 2 && s[1] == 2 ? tn_vpow_body(n, 2) : n;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {
        float x = TN_LD_B(*(const uint16_t *)a), r;
        if (e == 3) r = TN_LD_B(TN_ST_B(x * x)) * x;
        else if (e == -2) r = 1.0f / TN_LD_B(TN_ST_B(x * x));
        else r = k < nv ? 1.0f / sqrtf(x) : 1.0f / TN_LD_B(TN_ST_B(sqrtf(x)));
        *(uint16_t *)o = TN_ST_B(r);
    }
}

#define PWREG(sfx, TS, CT, LD, ST, E, _) case TN_DTYPE_##E: return pw_##sfx;
tn_loop tn_pow_scalar_loop(tn_dtype dt) {
    if (dt == TN_DTYPE_F32) return pw_v_f32;
    if (dt == TN_DTYPE_F64) return pw_v_f64;
    if (dt == TN_DTYPE_BF16) return pw_v_bf16;
    switch (dt) {
    TN_FAM_F(PWREG, _)
    TN_FAM_C(PWREG, _)
    TN_FAM_I(PWREG, _)
    default: return NULL;
    }
}

/* ---- where: bytes only ---- */
#define WHERE(TB)                                                                               \
    static void where_##TB(char **d, const int64_t *s, int64_t n, const void *ctx) {            \
        (void)ctx;                                                                              \
        if (s[0] == sizeof(TB) && s[1] == 1 && s[2] == sizeof(TB) && s[3] == sizeof(TB)) {      \
            TB *o = (TB *)d[0];                                                                 \
            const uint8_t *c = (const uint8_t *)d[1];                                           \
            const TB *a = (const TB *)d[2], *b = (const TB *)d[3];                              \
            for (int64_t k = 0; k < n; k++) o[k] = c[k] ? a[k] : b[k];                          \
            return;                                                                             \
        }                                                                                       \
        char *o = d[0];                                                                         \
        const char *c = d[1], *a = d[2], *b = d[3];                                             \
        for (int64_t k = 0; k < n; k++, o += s[0], c += s[1], a += s[2], b += s[3])             \
            memcpy(o, *(const uint8_t *)c ? a : b, sizeof(TB));                                 \
    }
typedef struct { uint64_t lo, hi; } tn__b16;
WHERE(uint8_t)
WHERE(uint16_t)
WHERE(uint32_t)
WHERE(uint64_t)
static void where_tn__b16(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    char *o = d[0];
    const char *c = d[1], *a = d[2], *b = d[3];
    for (int64_t k = 0; k < n; k++, o += s[0], c += s[1], a += s[2], b += s[3])
        memcpy(o, *(const uint8_t *)c ? a : b, 16);
}

tn_loop tn_where_loop(tn_dtype dt) {
    if ((unsigned)dt >= TN_DTYPE_COUNT || (!tn_dtype_computable(dt) && !tn_dtype_barebones(dt) && dt != TN_DTYPE_C32))
        return NULL;
    switch (tn_dtype_itemsize(dt)) {
    case 1: return where_uint8_t;
    case 2: return where_uint16_t;
    case 4: return where_uint32_t;
    case 8: return where_uint64_t;
    case 16: return where_tn__b16;
    default: return NULL;
    }
}

/* ---- clamp ---- */
#define CL_F(x, T, lo, hi, hl, hh)                                                              \
    ({ T r_ = (x);                                                                              \
       if (hl) r_ = (r_ < (lo) || (lo) != (lo)) ? (lo) : r_;                                    \
       if (hh) r_ = (r_ > (hi) || (hi) != (hi)) ? (hi) : r_;                                    \
       r_; })
#define CL_I(x, T, lo, hi, hl, hh)                                                              \
    ({ T r_ = (x);                                                                              \
       if (hl) r_ = r_ < (lo) ? (lo) : r_;                                                      \
       if (hh) r_ = r_ > (hi) ? (hi) : r_;                                                      \
       r_; })
#define CLS_F(x, T, P) CL_F(x, T, lo_, hi_, hl_, hh_)
#define CLS_I(x, T, P) CL_I(x, T, lo_, hi_, hl_, hh_)
#define CLP(P) ((const tn_clamp_params *)(P))
#define PRE_CL_F(T)                                                                             \
    const bool hl_ = CLP(ctx_)->has_min, hh_ = CLP(ctx_)->has_max;                              \
    const T lo_ = (T)CLP(ctx_)->min.re, hi_ = (T)CLP(ctx_)->max.re;
#define PRE_CL_I(T)                                                                             \
    const bool hl_ = CLP(ctx_)->has_min, hh_ = CLP(ctx_)->has_max;                              \
    const T lo_ = (T)CLP(ctx_)->min.i, hi_ = (T)CLP(ctx_)->max.i;

#define CLT(FK, fname, TS, CT, LD, ST)                                                          \
    static void fname(char **d, const int64_t *s, int64_t n, const void *ctx) {                 \
        const bool hl = CLP(ctx)->has_min, hh = CLP(ctx)->has_max;                              \
        char *o = d[0];                                                                         \
        const char *x = d[1], *l = d[2], *h = d[3];                                             \
        int64_t sl = hl ? s[2] : 0, sh = hh ? s[3] : 0;                                         \
        for (int64_t k = 0; k < n; k++, o += s[0], x += s[1], l += sl, h += sh) {               \
            CT lo = hl ? (CT)LD(*(const TS *)l) : (CT)0, hi = hh ? (CT)LD(*(const TS *)h) : (CT)0; \
            *(TS *)o = ST(CL_##FK(LD(*(const TS *)x), CT, lo, hi, hl, hh));                     \
        }                                                                                       \
    }
#define CL_FAM_F(sfx, TS, CT, LD, ST, E, _)                                                     \
    TN_DEF_UNARY(cl_##sfx, TS, TS, CT, LD, ST, CLS_F, PRE_CL_F(CT))                             \
    CLT(F, clt_##sfx, TS, CT, LD, ST)
#define CL_FAM_I(sfx, TS, CT, LD, ST, E, _)                                                     \
    TN_DEF_UNARY(cl_##sfx, TS, TS, CT, LD, ST, CLS_I, PRE_CL_I(CT))                             \
    CLT(I, clt_##sfx, TS, CT, LD, ST)
TN_FAM_F(CL_FAM_F, _)
TN_FAM_I(CL_FAM_I, _)
TN_FAM_BOOL(CL_FAM_I, _)

#define CLREG(sfx, TS, CT, LD, ST, E, P) case TN_DTYPE_##E: return P##_##sfx;
tn_loop tn_clamp_loop(tn_dtype dt) {
    switch (dt) {
    TN_FAM_F(CLREG, cl) TN_FAM_I(CLREG, cl) TN_FAM_BOOL(CLREG, cl)
    default: return NULL;
    }
}
tn_loop tn_clamp_tensor_loop(tn_dtype dt) {
    switch (dt) {
    TN_FAM_F(CLREG, clt) TN_FAM_I(CLREG, clt) TN_FAM_BOOL(CLREG, clt)
    default: return NULL;
    }
}
