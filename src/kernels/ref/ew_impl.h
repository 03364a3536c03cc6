/* ew_impl.h — private helpers shared by the reference elementwise kernels (unary.c, binary.c,
 * cast.c): inline f16/bf16 conversions (bit-identical to core/dtype.c, but inlinable in hot
 * loops), load/store adapters per storage type, and the loop-writing macros.
 *
 * Every loop has a contiguous fast path (all strides equal to the item sizes) written as a plain
 * indexed for-loop so gcc can auto-vectorise it, and a generic strided path. */
#ifndef TN_KERNELS_REF_EW_IMPL_H
#define TN_KERNELS_REF_EW_IMPL_H

#include "kernels/elementwise.h"

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Integer expressions are written once for signed and unsigned types; "x < 0" on an unsigned
 * type is intentionally constant there. */
#pragma GCC diagnostic ignored "-Wtype-limits"

#define TN_SQRT1_2 0.70710678118654752440
#define TN_SQRT_2_OVER_PI 0.79788456080286535588 /* sqrt(2) * (2/sqrt(pi)) * 0.5 */
#define TN_LN2 0.69314718055994530942
#define TN_LN10 2.30258509299404568402

typedef float _Complex tn_c64_t;
typedef double _Complex tn_c128_t;

static inline uint32_t tn__fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float tn__bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float tn__h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    if (exp == 0x1f) bits = sign | 0x7f800000u | (man << 13);
    else if (exp == 0) {
        if (man == 0) bits = sign;
        else bits = sign | tn__fbits((float)man * 5.9604644775390625e-8f);
    } else bits = sign | ((exp + 112u) << 23) | (man << 13);
    return tn__bitsf(bits);
}

static inline uint16_t tn__f2h(float f) {
    uint32_t u = tn__fbits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;
    if (a >= 0x477ff000u) return sign | 0x7c00u;
    if (a < 0x38800000u) {
        float r = fabsf(f) + 0.5f;
        return sign | (uint16_t)(tn__fbits(r) - 0x3f000000u);
    }
    a += 0xc8000fffu + ((a >> 13) & 1u);
    return sign | (uint16_t)(a >> 13);
}

static inline float tn__b2f(uint16_t h) { return tn__bitsf((uint32_t)h << 16); }
static inline uint16_t tn__f2b(float f) {
    uint32_t u = tn__fbits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Complex multiply and divide the way upstream's c10::complex does them: the plain product (no
 * C Annex G NaN recovery) and Smith's scaled quotient, where a zero divisor divides each part
 * by |c| and |d| separately (so 1/(0+0j) is inf+nanj, as upstream). */
#define TN_CPLX_HELPERS(T, R)                                                                  \
    static inline T tn__cmul_##T(T x, T y) {                                                   \
        R a = creal(x), b = cimag(x), c = creal(y), d = cimag(y);                              \
        return CMPLX(a * c - b * d, a * d + b * c);                                            \
    }                                                                                          \
    static inline T tn__cdiv_##T(T x, T y) {                                                   \
        R a = creal(x), b = cimag(x), c = creal(y), d = cimag(y);                              \
        R ac = c < 0 ? -c : c, ad = d < 0 ? -d : d;                                            \
        if (ac >= ad) {                                                                        \
            if (ac == 0 && ad == 0) return CMPLX(a / ac, b / ad);                              \
            R rat = d / c, scl = (R)1 / (c + d * rat);                                         \
            return CMPLX((a + b * rat) * scl, (b - a * rat) * scl);                            \
        }                                                                                      \
        R rat = c / d, scl = (R)1 / (d + c * rat);                                             \
        return CMPLX((a * rat + b) * scl, (b * rat - a) * scl);                                \
    }
TN_CPLX_HELPERS(tn_c64_t, float)
TN_CPLX_HELPERS(tn_c128_t, double)

/* Load / store adapters: storage type <-> compute type. */
#define TN_LD_ID(v) (v)
#define TN_ST_ID(v) (v)
#define TN_LD_H(v) tn__h2f(v)
#define TN_ST_H(v) tn__f2h(v)
#define TN_LD_B(v) tn__b2f(v)
#define TN_ST_B(v) tn__f2b(v)
#define TN_LD_BOOL(v) ((v) != 0)
#define TN_ST_BOOL(v) ((uint8_t)((v) != 0))

/* Storage families. Each entry: X(suffix, storage type, compute type, LD, ST, dtype enum). */
#define TN_FAM_F(X, ...)                                                   \
    X(f32, float, float, TN_LD_ID, TN_ST_ID, F32, __VA_ARGS__)             \
    X(f64, double, double, TN_LD_ID, TN_ST_ID, F64, __VA_ARGS__)           \
    X(f16, uint16_t, float, TN_LD_H, TN_ST_H, F16, __VA_ARGS__)            \
    X(bf16, uint16_t, float, TN_LD_B, TN_ST_B, BF16, __VA_ARGS__)
#define TN_FAM_C(X, ...)                                                   \
    X(c64, tn_c64_t, tn_c64_t, TN_LD_ID, TN_ST_ID, C64, __VA_ARGS__)       \
    X(c128, tn_c128_t, tn_c128_t, TN_LD_ID, TN_ST_ID, C128, __VA_ARGS__)
/* Signed and unsigned integers; the compute type is the storage type, U is its unsigned twin. */
#define TN_FAM_I(X, ...)                                                   \
    X(i8, int8_t, int8_t, TN_LD_ID, TN_ST_ID, I8, __VA_ARGS__)             \
    X(u8, uint8_t, uint8_t, TN_LD_ID, TN_ST_ID, U8, __VA_ARGS__)           \
    X(i16, int16_t, int16_t, TN_LD_ID, TN_ST_ID, I16, __VA_ARGS__)         \
    X(i32, int32_t, int32_t, TN_LD_ID, TN_ST_ID, I32, __VA_ARGS__)         \
    X(i64, int64_t, int64_t, TN_LD_ID, TN_ST_ID, I64, __VA_ARGS__)
/* uint16 / uint32 / uint64: upstream's "barebones" unsigned types, for the few kernels upstream
 * builds for them (eq / ne / mul / bitwise and, or, xor; docs/outdev.md "Fourth round"). */
#define TN_FAM_UW(X, ...)                                                  \
    X(u16, uint16_t, uint16_t, TN_LD_ID, TN_ST_ID, U16, __VA_ARGS__)       \
    X(u32, uint32_t, uint32_t, TN_LD_ID, TN_ST_ID, U32, __VA_ARGS__)       \
    X(u64, uint64_t, uint64_t, TN_LD_ID, TN_ST_ID, U64, __VA_ARGS__)
#define TN_FAM_BOOL(X, ...) X(b8, uint8_t, bool, TN_LD_BOOL, TN_ST_BOOL, BOOL, __VA_ARGS__)

/* Unsigned twin of an integer compute type, for wrap-around arithmetic without UB. */
#define TN_UNS(T) __typeof__(_Generic((T)0, int8_t: (uint8_t)0, uint8_t: (uint8_t)0,       \
                                      int16_t: (uint16_t)0, uint16_t: (uint16_t)0,          \
                                      int32_t: (uint32_t)0, uint32_t: (uint32_t)0,          \
                                      int64_t: (uint64_t)0, default: (uint64_t)0))
#define TN_IS_SIGNED(T) ((T)-1 < (T)0)
#define TN_TMIN(T) (TN_IS_SIGNED(T) ? (T)((TN_UNS(T))1 << (sizeof(T) * 8 - 1)) : (T)0)

/* One unary loop. EXPR(x, T, P) computes in type CT from x; P is the ctx pointer; PRE declares
 * per-call constants. */
#define TN_DEF_UNARY(fname, TO, TI, CT, LD, ST, EXPR, PRE)                                    \
    TN_EW_CLONES static void fname(char **data, const int64_t *s, int64_t n, const void *ctx_) {           \
        (void)ctx_;                                                                            \
        PRE                                                                                    \
        char *o = data[0];                                                                     \
        const char *a = data[1];                                                               \
        if (s[0] == (int64_t)sizeof(TO) && s[1] == (int64_t)sizeof(TI)) {                      \
            TO *op = (TO *)o;                                                                  \
            const TI *ap = (const TI *)a;                                                      \
            for (int64_t k = 0; k < n; k++) {                                                  \
                CT x = LD(ap[k]);                                                              \
                op[k] = ST(EXPR(x, CT, ctx_));                                                 \
            }                                                                                  \
        } else {                                                                               \
            for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {                            \
                CT x = LD(*(const TI *)a);                                                     \
                *(TO *)o = ST(EXPR(x, CT, ctx_));                                              \
            }                                                                                  \
        }                                                                                      \
    }

#define TN_DEF_BINARY(fname, TO, TI, CT, LD, ST, EXPR, PRE)                                   \
    TN_EW_CLONES static void fname(char **data, const int64_t *s, int64_t n, const void *ctx_) {           \
        (void)ctx_;                                                                            \
        PRE                                                                                    \
        char *o = data[0];                                                                     \
        const char *a = data[1], *b = data[2];                                                 \
        if (s[0] == (int64_t)sizeof(TO) && s[1] == (int64_t)sizeof(TI) &&                      \
            s[2] == (int64_t)sizeof(TI)) {                                                     \
            TO *op = (TO *)o;                                                                  \
            const TI *ap = (const TI *)a, *bp = (const TI *)b;                                 \
            for (int64_t k = 0; k < n; k++) {                                                  \
                CT x = LD(ap[k]), y = LD(bp[k]);                                               \
                op[k] = ST(EXPR(x, y, CT, ctx_));                                              \
            }                                                                                  \
        } else if (s[0] == (int64_t)sizeof(TO) && s[1] == (int64_t)sizeof(TI) && s[2] == 0) { \
            TO *op = (TO *)o;                                                                  \
            const TI *ap = (const TI *)a;                                                      \
            const CT y = LD(*(const TI *)b);                                                   \
            for (int64_t k = 0; k < n; k++) {                                                  \
                CT x = LD(ap[k]);                                                              \
                op[k] = ST(EXPR(x, y, CT, ctx_));                                              \
            }                                                                                  \
        } else {                                                                               \
            for (int64_t k = 0; k < n; k++, o += s[0], a += s[1], b += s[2]) {                 \
                CT x = LD(*(const TI *)a), y = LD(*(const TI *)b);                             \
                *(TO *)o = ST(EXPR(x, y, CT, ctx_));                                           \
            }                                                                                  \
        }                                                                                      \
    }

#endif
