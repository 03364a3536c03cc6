/* cast.c — dtype conversion (and plain copy) between every pair of computable dtypes and
 * complex32, uint16/32/64, float8_e4m3fn and float8_e5m2 (storable, castable, no arithmetic), a byte copy from any dtype to itself, and fill.
 *
 * A cast loads the source in its natural C type (f16/bf16 widened to float, bool as 0/1), then a
 * per-destination converter (_Generic on the loaded type) produces the destination. Conversions
 * follow upstream on x86, measured on torch 2.13: float -> int64 truncates, NaN and out-of-range
 * give INT64_MIN; float -> i32/i16/i8 truncate to int32 (NaN / out of range -> INT32_MIN)
 * and then wrap, float -> u8 goes the same way through int64, so 300.0 -> i8 is 44 and
 * -1.0 -> u8 is 255; float -> bool is x != 0 (NaN is
 * true); complex -> real takes the real part, complex -> bool tests both parts; anything ->
 * f16/bf16 goes through f32 (so f64 -> f16 rounds twice, as upstream). No conversion is UB. */
#include "kernels/ref/ew_impl.h"
#include "kernels/lowp.h"
#include "core/parallel.h"

static inline int64_t tn__d2i64(double d) {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)d;
}
static inline int32_t tn__d2i32(double d) {
    if (!(d > -2147483649.0 && d < 2147483648.0)) return INT32_MIN;
    return (int32_t)d;
}

#define TO_I64(v) _Generic((v), float: tn__d2i64(v), double: tn__d2i64(v),                     \
    tn_c64_t: tn__d2i64(crealf(v)), tn_c128_t: tn__d2i64(creal(v)), default: (int64_t)(v))
#define TO_I32(v) _Generic((v), float: tn__d2i32(v), double: tn__d2i32(v),                     \
    tn_c64_t: tn__d2i32(crealf(v)), tn_c128_t: tn__d2i32(creal(v)), default: (int32_t)(v))
/* uint16/32/64 (measured on torch 2.13, AVX-512 host): integers wrap; a float goes to uint16
 * through int32 as to int16 (65536.0 -> 0, 5e9 -> 0); to uint32 through int64 (5e9 -> 705032704,
 * NaN -> 0); to uint64 by the compiler's unsigned sequence: x >= 2^63 converts x - 2^63 and sets
 * the top bit, else int64 (so NaN and -1e20 give 2^63, +inf and 1e20 give 0). Complex: the real
 * part. Contiguous float -> uint32 runs follow another rule (cast_u32_vec below). */
static inline uint32_t tn__d2u32(double d) { return (uint32_t)tn__d2i64(d); }
static inline uint64_t tn__d2u64(double d) {
    if (d >= 9223372036854775808.0) return (uint64_t)tn__d2i64(d - 9223372036854775808.0) ^ (UINT64_C(1) << 63);
    return (uint64_t)tn__d2i64(d);
}
#define TO_UN(v, F, T) _Generic((v), float: F(v), double: F(v), tn_c64_t: F(crealf(v)),           \
    tn_c128_t: F(creal(v)), default: (T)(v))
#define TO_U16(v) ((uint16_t)TO_I32(v))
#define TO_U32(v) TO_UN(v, tn__d2u32, uint32_t)
#define TO_U64(v) TO_UN(v, tn__d2u64, uint64_t)
/* float8_e4m3fn / float8_e5m2 (measured): a value is first made float (so double rounds twice),
 * then rounded to nearest even on the format's grid; e4m3fn saturates (anything above 448,
 * infinities included, gives +-448), e5m2 overflows to +-inf; NaN keeps its sign (e4m3fn 0x7F,
 * e5m2 0x7F). Loading an e4m3fn NaN gives the float bits 0x7FF00000 (with the sign). */
static inline uint8_t tn__f2f8(float f, int mbits, int bias, float maxv, bool saturate) {
    const uint8_t sign = signbit(f) ? 0x80 : 0;
    const float a = fabsf(f);
    const int mq = 1 << mbits;
    if (a != a) return sign | 0x7F;
    if (a == INFINITY) return saturate ? (uint8_t)(sign | 0x7E) : (uint8_t)(sign | 0x7C);
    if (a >= ldexpf(1.0f, 1 - bias)) { /* normal: a * 2^(mbits - e) in [mq, 2 mq) */
        int e;
        (void)frexpf(a, &e);
        e -= 1;
        float q = nearbyintf(ldexpf(a, mbits - e));
        if (q >= 2 * mq) { q = (float)mq; e++; }
        if (ldexpf(q, e - mbits) > maxv)
            return saturate ? (uint8_t)(sign | 0x7E) : (uint8_t)(sign | 0x7C); /* 448 / inf */
        return (uint8_t)(sign | ((e + bias) << mbits) | ((int)q - mq));
    }
    return (uint8_t)(sign | (int)nearbyintf(ldexpf(a, mbits + bias - 1))); /* subnormal (q == mq: the least normal) */
}
static inline float tn__f8e4_load(uint8_t b) {
    const int e = (b >> 3) & 15, m = b & 7;
    if (e == 15 && m == 7) {
        uint32_t u = 0x7FF00000u | ((uint32_t)(b & 0x80) << 24);
        float r;
        memcpy(&r, &u, sizeof r);
        return r;
    }
    const float v = e == 0 ? ldexpf((float)m, -9) : ldexpf((float)(8 + m), e - 10);
    return b & 0x80 ? -v : v;
}
/* e5m2 is the top byte of a half; a NaN comes out quieted (0x7D -> half 0x7F00) */
static inline uint16_t tn__f8e5_half(uint8_t b) {
    return (uint16_t)((b << 8) | ((b & 0x7C) == 0x7C && (b & 3) ? 0x0200 : 0));
}
static inline float tn__f8e5_load(uint8_t b) { return tn__h2f(tn__f8e5_half(b)); }
/* float8_e4m3fnuz / e5m2fnuz (measured over the float grid): round to nearest even on the grid
 * like the fn formats, but no infinity and no negative zero: NaN, infinities and anything that
 * rounds above the largest finite (240 / 57344) give the NaN code 0x80, a result of zero is 0x00.
 * Loading 0x80 gives the float bits 0x7F800001 (upstream's value: quieted when widened further). */
static inline uint8_t tn__f2f8z(float f, int mbits, int bias, float maxv) {
    const float a = fabsf(f);
    if (a != a || a == INFINITY) return 0x80;
    const int mq = 1 << mbits;
    int r;
    if (a >= ldexpf(1.0f, 1 - bias)) {
        int e;
        (void)frexpf(a, &e);
        e -= 1;
        float q = nearbyintf(ldexpf(a, mbits - e));
        if (q >= 2 * mq) { q = (float)mq; e++; }
        if (ldexpf(q, e - mbits) > maxv) return 0x80;
        r = ((e + bias) << mbits) | ((int)q - mq);
    } else {
        r = (int)nearbyintf(ldexpf(a, mbits + bias - 1));
    }
    return r == 0 ? 0 : (uint8_t)((signbit(f) ? 0x80 : 0) | r);
}
static inline float tn__f8_nan(void) {
    const uint32_t u = 0x7F800001u;
    float r;
    memcpy(&r, &u, sizeof r);
    return r;
}
static inline float tn__f8z_load(uint8_t b, int mbits, int bias) {
    if (b == 0x80) return tn__f8_nan();
    const int e = (b >> mbits) & ((1 << (7 - mbits)) - 1), m = b & ((1 << mbits) - 1);
    const float v = e == 0 ? ldexpf((float)m, 1 - bias - mbits) : ldexpf((float)((1 << mbits) + m), e - bias - mbits);
    return b & 0x80 ? -v : v;
}
/* float8_e8m0fnu: the exponent of a float, 2^(b - 127); 0xFF is NaN. From a float: its exponent
 * field, rounded up when the mantissa's top bit is set and (the bits below it, or the implied
 * leading bit of a normal) make it more than a tie-to-even down (c10's guard / round / sticky
 * rule; the sign is dropped); NaN and infinities give 0xFF. */
static inline uint8_t tn__f2e8m0(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    uint32_t e = (u >> 23) & 0xFF;
    if (e == 0xFF) return 0xFF;
    const bool g = u & 0x400000, r = u & 0x200000, s = u & 0x1FFFFF, lsb = e > 0;
    if (g && (r || s || lsb)) e++;
    return (uint8_t)e;
}
static inline float tn__e8m0_load(uint8_t b) {
    if (b == 0xFF) return tn__f8_nan();
    const uint32_t u = b ? (uint32_t)b << 23 : 0x400000u;
    float r;
    memcpy(&r, &u, sizeof r);
    return r;
}
#define TO_F8E4Z(v) tn__f2f8z(TO_F32(v), 3, 8, 240.0f)
#define TO_F8E5Z(v) tn__f2f8z(TO_F32(v), 2, 16, 57344.0f)
#define TO_F8E8(v) tn__f2e8m0(TO_F32(v))
#define TN_LD_F8E4Z(v) tn__f8z_load(v, 3, 8)
#define TN_LD_F8E5Z(v) tn__f8z_load(v, 2, 16)
#define TN_LD_F8E8(v) tn__e8m0_load(v)
#define TO_F8E4(v) tn__f2f8(TO_F32(v), 3, 7, 448.0f, true)
#define TO_F8E5(v) tn__f2f8(TO_F32(v), 2, 15, 57344.0f, false)
#define TN_LD_F8E4(v) tn__f8e4_load(v)
#define TN_LD_F8E5(v) tn__f8e5_load(v)
#define TO_I16(v) ((int16_t)TO_I32(v))
#define TO_I8(v) ((int8_t)TO_I32(v))
#define TO_U8(v) ((uint8_t)TO_I64(v)) /* upstream goes through int64 for uint8 */
#define TO_F32(v) _Generic((v), tn_c64_t: crealf(v), tn_c128_t: (float)creal(v), default: (float)(v))
#define TO_F64(v) _Generic((v), tn_c64_t: (double)crealf(v), tn_c128_t: creal(v), default: (double)(v))
#define TO_F16(v) tn__f2h(TO_F32(v))
#define TO_BF16(v) tn__f2b(TO_F32(v))
#define TO_C64(v) _Generic((v), tn_c64_t: (v), tn_c128_t: CMPLXF((float)creal(v), (float)cimag(v)), \
    default: CMPLXF((float)(v), 0.0f))
#define TO_C128(v) _Generic((v), tn_c64_t: CMPLX(crealf(v), cimagf(v)), tn_c128_t: (v),         \
    default: CMPLX((double)(v), 0.0))
#define TO_BOOL(v) _Generic((v), tn_c64_t: (crealf(v) != 0 || cimagf(v) != 0),                   \
    tn_c128_t: (creal(v) != 0 || cimag(v) != 0), default: ((v) != 0))

/* complex32: two f16 halves; loaded as complex64, stored by narrowing each part through f32
 * (so complex128 -> complex32 rounds twice, as upstream's f64 -> f16 does). */
typedef struct { uint16_t re, im; } tn_c32_t;
static inline tn_c64_t tn__c32_load(tn_c32_t v) { return CMPLXF(tn__h2f(v.re), tn__h2f(v.im)); }
static inline tn_c32_t tn__c32_from_c64(tn_c64_t v) {
    tn_c32_t r = {tn__f2h(crealf(v)), tn__f2h(cimagf(v))};
    return r;
}
#define TN_LD_C32(v) tn__c32_load(v)
#define TO_C32(v) tn__c32_from_c64(TO_C64(v))

/* X(sfx, storage type, load, to-converter, dtype enum) */
#define CAST_TYPES(X, ...)                                                                      \
    X(u8, uint8_t, TN_LD_ID, TO_U8, U8, __VA_ARGS__)                                            \
    X(i8, int8_t, TN_LD_ID, TO_I8, I8, __VA_ARGS__)                                             \
    X(i16, int16_t, TN_LD_ID, TO_I16, I16, __VA_ARGS__)                                         \
    X(i32, int32_t, TN_LD_ID, TO_I32, I32, __VA_ARGS__)                                         \
    X(i64, int64_t, TN_LD_ID, TO_I64, I64, __VA_ARGS__)                                         \
    X(f16, uint16_t, TN_LD_H, TO_F16, F16, __VA_ARGS__)                                         \
    X(f32, float, TN_LD_ID, TO_F32, F32, __VA_ARGS__)                                           \
    X(f64, double, TN_LD_ID, TO_F64, F64, __VA_ARGS__)                                          \
    X(c64, tn_c64_t, TN_LD_ID, TO_C64, C64, __VA_ARGS__)                                        \
    X(c128, tn_c128_t, TN_LD_ID, TO_C128, C128, __VA_ARGS__)                                    \
    X(b8, uint8_t, TN_LD_BOOL_U8, TO_BOOL, BOOL, __VA_ARGS__)                                   \
    X(bf16, uint16_t, TN_LD_B, TO_BF16, BF16, __VA_ARGS__)                                   \
    X(u16, uint16_t, TN_LD_ID, TO_U16, U16, __VA_ARGS__)                                        \
    X(u32, uint32_t, TN_LD_ID, TO_U32, U32, __VA_ARGS__)                                        \
    X(u64, uint64_t, TN_LD_ID, TO_U64, U64, __VA_ARGS__)                                        \
    X(f8e4, uint8_t, TN_LD_F8E4, TO_F8E4, F8E4M3FN, __VA_ARGS__)                              \
    X(f8e5, uint8_t, TN_LD_F8E5, TO_F8E5, F8E5M2, __VA_ARGS__)                                  \
    X(f8e4z, uint8_t, TN_LD_F8E4Z, TO_F8E4Z, F8E4M3FNUZ, __VA_ARGS__)                           \
    X(f8e5z, uint8_t, TN_LD_F8E5Z, TO_F8E5Z, F8E5M2FNUZ, __VA_ARGS__)                           \
    X(f8e8, uint8_t, TN_LD_F8E8, TO_F8E8, F8E8M0FNU, __VA_ARGS__)                               \
    X(c32, tn_c32_t, TN_LD_C32, TO_C32, C32, __VA_ARGS__)
/* A second copy of the list: a macro cannot expand inside its own expansion. */
#define CAST_TYPES2(X, ...)                                                                      \
    X(u8, uint8_t, TN_LD_ID, TO_U8, U8, __VA_ARGS__)                                            \
    X(i8, int8_t, TN_LD_ID, TO_I8, I8, __VA_ARGS__)                                             \
    X(i16, int16_t, TN_LD_ID, TO_I16, I16, __VA_ARGS__)                                         \
    X(i32, int32_t, TN_LD_ID, TO_I32, I32, __VA_ARGS__)                                         \
    X(i64, int64_t, TN_LD_ID, TO_I64, I64, __VA_ARGS__)                                         \
    X(f16, uint16_t, TN_LD_H, TO_F16, F16, __VA_ARGS__)                                         \
    X(f32, float, TN_LD_ID, TO_F32, F32, __VA_ARGS__)                                           \
    X(f64, double, TN_LD_ID, TO_F64, F64, __VA_ARGS__)                                          \
    X(c64, tn_c64_t, TN_LD_ID, TO_C64, C64, __VA_ARGS__)                                        \
    X(c128, tn_c128_t, TN_LD_ID, TO_C128, C128, __VA_ARGS__)                                    \
    X(b8, uint8_t, TN_LD_BOOL_U8, TO_BOOL, BOOL, __VA_ARGS__)                                   \
    X(bf16, uint16_t, TN_LD_B, TO_BF16, BF16, __VA_ARGS__)                                   \
    X(u16, uint16_t, TN_LD_ID, TO_U16, U16, __VA_ARGS__)                                        \
    X(u32, uint32_t, TN_LD_ID, TO_U32, U32, __VA_ARGS__)                                        \
    X(u64, uint64_t, TN_LD_ID, TO_U64, U64, __VA_ARGS__)                                        \
    X(f8e4, uint8_t, TN_LD_F8E4, TO_F8E4, F8E4M3FN, __VA_ARGS__)                              \
    X(f8e5, uint8_t, TN_LD_F8E5, TO_F8E5, F8E5M2, __VA_ARGS__)                                  \
    X(f8e4z, uint8_t, TN_LD_F8E4Z, TO_F8E4Z, F8E4M3FNUZ, __VA_ARGS__)                           \
    X(f8e5z, uint8_t, TN_LD_F8E5Z, TO_F8E5Z, F8E5M2FNUZ, __VA_ARGS__)                           \
    X(f8e8, uint8_t, TN_LD_F8E8, TO_F8E8, F8E8M0FNU, __VA_ARGS__)                               \
    X(c32, tn_c32_t, TN_LD_C32, TO_C32, C32, __VA_ARGS__)
#define TN_LD_BOOL_U8(v) ((uint8_t)((v) != 0))

#define CAST_DEF(ssfx, STS, SLD, SCONV, SE, dsfx, DTS, DLD, DCONV, DE)                          \
    static void cast_##dsfx##_##ssfx(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        (void)ctx;                                                                              \
        if (s[0] == (int64_t)sizeof(DTS) && s[1] == (int64_t)sizeof(STS)) {                     \
            DTS *o = (DTS *)d[0];                                                               \
            const STS *a = (const STS *)d[1];                                                   \
            for (int64_t k = 0; k < n; k++) o[k] = DCONV(SLD(a[k]));                            \
            return;                                                                             \
        }                                                                                       \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1])                                   \
            *(DTS *)o = DCONV(SLD(*(const STS *)a));                                            \
    }
/* Same-dtype casts are copies (also right for bool bytes other than 0/1: kept as is). */
#define COPY_DEF(dsfx, DTS)                                                                     \
    static void copy_##dsfx(char **d, const int64_t *s, int64_t n, const void *ctx) {           \
        (void)ctx;                                                                              \
        if (s[0] == (int64_t)sizeof(DTS) && s[1] == (int64_t)sizeof(DTS)) {                     \
            memmove(d[0], d[1], (size_t)n * sizeof(DTS));                                       \
            return;                                                                             \
        }                                                                                       \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) memcpy(o, a, sizeof(DTS));        \
    }

#define CAST_INNER(ssfx, STS, SLD, SCONV, SE, dsfx, DTS, DLD, DCONV, DE) \
    CAST_DEF(ssfx, STS, SLD, SCONV, SE, dsfx, DTS, DLD, DCONV, DE)
#define CAST_OUTER(dsfx, DTS, DLD, DCONV, DE, _) CAST_TYPES2(CAST_INNER, dsfx, DTS, DLD, DCONV, DE)
CAST_TYPES(CAST_OUTER, _)
#define COPY_OUTER(dsfx, DTS, DLD, DCONV, DE, _) COPY_DEF(dsfx, DTS)
CAST_TYPES(COPY_OUTER, _)

/* f32/f64 -> bf16 NaN, as upstream's AVX512 copy kernels produce it (measured): the vectorised
 * conversion gives 0xFFFF, the scalar one 0x7FC0. f32 -> bf16 is vectorised over a whole
 * contiguous run (tail included); f64 -> bf16 over the first n - n % 16 elements of one; strided
 * runs are scalar. Other values convert the same either way. */
static inline uint16_t tn__f2b_nan(float f, bool vec) {
    return f != f ? (vec ? 0xFFFFu : 0x7FC0u) : tn__f2b(f);
}
static void cast_bf16_f32_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    if (s[0] == 2 && s[1] == 4) { /* the same bits through kernels/lowp.h's vector bodies */
        tn_lp_narrow(TN_LP_BF16, (uint16_t *)d[0], (const float *)d[1], n, TN_LP_NAN_FFFF);
        return;
    }
    const bool vec = (s[0] == 2 && s[1] == 4) || n == 1; /* one element: any strides */
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1])
        *(uint16_t *)o = tn__f2b_nan(*(const float *)a, vec);
}
static void cast_bf16_f64_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    const int64_t nv = s[0] == 2 && s[1] == 8 ? n - n % 16 : 0;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1])
        *(uint16_t *)o = tn__f2b_nan((float)*(const double *)a, k < nv);
}

static void cast_f32_bf16_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (s[0] == 4 && s[1] == 2) tn_lp_widen(TN_LP_BF16, (float *)d[0], (const uint16_t *)d[1], n);
    else cast_f32_bf16(d, s, n, ctx);
}

/* f16 <-> f32 on contiguous runs: kernels/lowp.h's vector bodies. The values are the scalar
 * loop's; an f16 NaN widens quiet, as upstream's vectorised copy gives it. */
static void cast_f16_f32_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (s[0] == 2 && s[1] == 4) tn_lp_narrow(TN_LP_F16, (uint16_t *)d[0], (const float *)d[1], n, TN_LP_NAN_KEEP);
    else cast_f16_f32(d, s, n, ctx);
}
static void cast_f32_f16_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    if (s[0] == 4 && s[1] == 2) tn_lp_widen(TN_LP_F16, (float *)d[0], (const uint16_t *)d[1], n);
    else cast_f32_f16(d, s, n, ctx);
}

/* float -> uint32 over a run where both sides are contiguous (measured): the vectorised
 * conversion takes x >= 2^31 through int32 of x - 2^31 with the top bit set, smaller x through
 * int32 (out of range and NaN: INT32_MIN), so 5e9 -> 0 and -5e9, NaN -> 2^31 where the scalar rule
 * gives 705032704, 3589934592, 0. It covers the first n - n % 4 elements of an f32 / f64 /
 * complex128 run, n - n % 8 of a bf16 run, 4 * floor((n - 1) / 4) of a complex64 run; the rest
 * (and strided or broadcast runs, f16) take the scalar rule. A run is what the loop is handed:
 * upstream splits a copy above 32768 elements across threads, and the tails then fall where its
 * chunks end. */
static inline uint32_t tn__d2u32_vec(double d) {
    if (d >= 2147483648.0) return (uint32_t)tn__d2i32(d - 2147483648.0) ^ 0x80000000u;
    return (uint32_t)tn__d2i32(d);
}
#define CAST_U32_VEC(sfx, STS, LD, NV)                                                          \
    static void cast_u32_##sfx##_up(char **d, const int64_t *s, int64_t n, const void *ctx) {   \
        (void)ctx;                                                                              \
        const int64_t nv = s[0] == 4 && s[1] == (int64_t)sizeof(STS) ? (NV) : 0;                \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {                                 \
            const double x = LD(*(const STS *)a);                                               \
            *(uint32_t *)o = k < nv ? tn__d2u32_vec(x) : tn__d2u32(x);                          \
        }                                                                                       \
    }
CAST_U32_VEC(f32, float, (double), n - n % 4)
CAST_U32_VEC(f64, double, (double), n - n % 4)
CAST_U32_VEC(c128, tn_c128_t, creal, n - n % 4)
CAST_U32_VEC(c64, tn_c64_t, (double)crealf, n > 0 ? (n - 1) / 4 * 4 : 0)
CAST_U32_VEC(bf16, uint16_t, (double)tn__b2f, n - n % 8)

/* float8 NaN -> f16 / bf16 as upstream gives it (measured): e4m3fn -> f16 0x7F80 with the sign,
 * e5m2 -> f16 the quieted half; -> bf16 0x7FC0 whatever the sign; other values are exact. */
#define CAST_F8E4_TO(sfx, CONV, NANBITS)                                                        \
    static void cast_##sfx##_f8e4_up(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        (void)ctx;                                                                              \
        char *o = d[0];                                                                         \
        const char *a = d[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {                                 \
            const uint8_t b = *(const uint8_t *)a;                                              \
            *(uint16_t *)o = (b & 0x7F) == 0x7F ? (uint16_t)(NANBITS) : CONV(tn__f8e4_load(b)); \
        }                                                                                       \
    }
CAST_F8E4_TO(f16, tn__f2h, 0x7F80u | ((b & 0x80u) << 8))
CAST_F8E4_TO(bf16, tn__f2b, 0x7FC0u)
static void cast_bf16_f8e5_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {
        const uint8_t b = *(const uint8_t *)a;
        *(uint16_t *)o = (b & 0x7C) == 0x7C && (b & 3) ? 0x7FC0u : tn__f2b(tn__f8e5_load(b));
    }
}
static void cast_f16_f8e5_up(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    char *o = d[0];
    const char *a = d[1];
    for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) *(uint16_t *)o = tn__f8e5_half(*(const uint8_t *)a);
}

static tn_loop ctab[TN_DTYPE_COUNT][TN_DTYPE_COUNT];
static bool ctab_ready;
#define REG_INNER(ssfx, STS, SLD, SCONV, SE, dsfx, DTS, DLD, DCONV, DE) \
    ctab[TN_DTYPE_##DE][TN_DTYPE_##SE] = cast_##dsfx##_##ssfx;
#define REG_OUTER(dsfx, DTS, DLD, DCONV, DE, _)       \
    CAST_TYPES2(REG_INNER, dsfx, DTS, DLD, DCONV, DE) \
    ctab[TN_DTYPE_##DE][TN_DTYPE_##DE] = copy_##dsfx;

/* the NaN code of the fnuz / e8m0fnu formats to int64 / int32 / uint64 gives 0 upstream
 * (measured; the other integer types come out as 0 through int32 / int64 anyway) */
#define F8NAN_INT(fmt, NANCODE, LD, U64NAN)                                                             \
    static void cast_i64_##fmt##_nan(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        (void)ctx;                                                                              \
        for (int64_t k = 0; k < n; k++) {                                                       \
            const uint8_t b = *(const uint8_t *)(d[1] + k * s[1]);                              \
            *(int64_t *)(d[0] + k * s[0]) = b == NANCODE ? 0 : TO_I64(LD(b));                   \
        }                                                                                       \
    }                                                                                           \
    static void cast_i32_##fmt##_nan(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        (void)ctx;                                                                              \
        for (int64_t k = 0; k < n; k++) {                                                       \
            const uint8_t b = *(const uint8_t *)(d[1] + k * s[1]);                              \
            *(int32_t *)(d[0] + k * s[0]) = b == NANCODE ? 0 : TO_I32(LD(b));                   \
        }                                                                                       \
    }                                                                                           \
    static void cast_u64_##fmt##_nan(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        (void)ctx;                                                                              \
        for (int64_t k = 0; k < n; k++) {                                                       \
            const uint8_t b = *(const uint8_t *)(d[1] + k * s[1]);                              \
            *(uint64_t *)(d[0] + k * s[0]) = b == NANCODE ? (U64NAN) : TO_U64(LD(b));           \
        }                                                                                       \
    }
F8NAN_INT(f8e4z, 0x80, TN_LD_F8E4Z, 0)
F8NAN_INT(f8e5z, 0x80, TN_LD_F8E5Z, 0)
F8NAN_INT(f8e8, 0xFF, TN_LD_F8E8, 0)

tn_loop tn_cast_loop(tn_dtype dst, tn_dtype src) {
    if ((unsigned)dst >= TN_DTYPE_COUNT || (unsigned)src >= TN_DTYPE_COUNT) return NULL;
    if (!ctab_ready) { /* idempotent: racing initialisers write identical values */
        CAST_TYPES(REG_OUTER, _)
        ctab[TN_DTYPE_BF16][TN_DTYPE_F32] = cast_bf16_f32_up;
        ctab[TN_DTYPE_BF16][TN_DTYPE_F64] = cast_bf16_f64_up;
        ctab[TN_DTYPE_F32][TN_DTYPE_BF16] = cast_f32_bf16_up;
        ctab[TN_DTYPE_F16][TN_DTYPE_F32] = cast_f16_f32_up;
        ctab[TN_DTYPE_F32][TN_DTYPE_F16] = cast_f32_f16_up;
        ctab[TN_DTYPE_F16][TN_DTYPE_F8E4M3FN] = cast_f16_f8e4_up;
        ctab[TN_DTYPE_BF16][TN_DTYPE_F8E4M3FN] = cast_bf16_f8e4_up;
        ctab[TN_DTYPE_F16][TN_DTYPE_F8E5M2] = cast_f16_f8e5_up;
        ctab[TN_DTYPE_BF16][TN_DTYPE_F8E5M2] = cast_bf16_f8e5_up;
        ctab[TN_DTYPE_U32][TN_DTYPE_F32] = cast_u32_f32_up;
        ctab[TN_DTYPE_U32][TN_DTYPE_F64] = cast_u32_f64_up;
        ctab[TN_DTYPE_U32][TN_DTYPE_C128] = cast_u32_c128_up;
        ctab[TN_DTYPE_U32][TN_DTYPE_C64] = cast_u32_c64_up;
        ctab[TN_DTYPE_U32][TN_DTYPE_BF16] = cast_u32_bf16_up;
#define REG_F8NAN(fmt, E) ctab[TN_DTYPE_I64][TN_DTYPE_##E] = cast_i64_##fmt##_nan; \
        ctab[TN_DTYPE_I32][TN_DTYPE_##E] = cast_i32_##fmt##_nan; ctab[TN_DTYPE_U64][TN_DTYPE_##E] = cast_u64_##fmt##_nan;
        REG_F8NAN(f8e4z, F8E4M3FNUZ) REG_F8NAN(f8e5z, F8E5M2FNUZ) REG_F8NAN(f8e8, F8E8M0FNU)
        ctab_ready = true;
    }
    if (!ctab[dst][src] && dst == src && tn_dtype_infos[dst].kind != TN_KIND_QUANT) { /* same dtype, no kernels (uint16, float8, ...): bytes */
        switch (tn_dtype_itemsize(dst)) {
        case 1: return copy_u8;
        case 2: return copy_f16;
        case 4: return copy_f32;
        case 8: return copy_f64;
        case 16: return copy_c128;
        default: return NULL;
        }
    }
    return ctab[dst][src];
}

/* ---- fill ---- */
#define FILL(TB)                                                                                \
    static void fill_##TB(char **d, const int64_t *s, int64_t n, const void *ctx) {             \
        TB v;                                                                                   \
        memcpy(&v, ctx, sizeof v);                                                              \
        if (s[0] == (int64_t)sizeof(TB)) {                                                      \
            TB *o = (TB *)d[0];                                                                 \
            for (int64_t k = 0; k < n; k++) o[k] = v;                                           \
            return;                                                                             \
        }                                                                                       \
        char *o = d[0];                                                                         \
        for (int64_t k = 0; k < n; k++, o += s[0]) memcpy(o, &v, sizeof v);                     \
    }
typedef struct { uint64_t w[2]; } tn__b16f;
FILL(uint8_t)
FILL(uint16_t)
FILL(uint32_t)
FILL(uint64_t)
FILL(tn__b16f)

tn_loop tn_fill_loop(tn_dtype dt) {
    if ((unsigned)dt >= TN_DTYPE_COUNT || !tn_dtype_computable(dt)) return NULL;
    switch (tn_dtype_itemsize(dt)) {
    case 1: return fill_uint8_t;
    case 2: return fill_uint16_t;
    case 4: return fill_uint32_t;
    case 8: return fill_uint64_t;
    case 16: return fill_tn__b16f;
    default: return NULL;
    }
}

/* ---- tn_transpose_copy: tiles of TN_TR_TILE x TN_TR_TILE elements ---- */
#define TN_TR_TILE 32
typedef struct {
    int64_t rows, cols, rs, cs;
    int size;
    const char *src;
    char *dst;
} tr_job;

#define TR_TILE(T)                                                                                  \
    for (int64_t i0 = b0 * TN_TR_TILE; i0 < i1; i0 += TN_TR_TILE)                                   \
        for (int64_t j0 = 0; j0 < j->cols; j0 += TN_TR_TILE) {                                      \
            const int64_t ie = i0 + TN_TR_TILE < j->rows ? i0 + TN_TR_TILE : j->rows;               \
            const int64_t je = j0 + TN_TR_TILE < j->cols ? j0 + TN_TR_TILE : j->cols;               \
            for (int64_t i = i0; i < ie; i++) {                                                     \
                T *o = (T *)j->dst + i * j->cols;                                                   \
                const T *a = (const T *)j->src + i * j->rs;                                         \
                for (int64_t c = j0; c < je; c++) o[c] = a[c * j->cs];                              \
            }                                                                                       \
        }

static void tr_blocks(int64_t b0, int64_t b1, void *vjob) {
    const tr_job *j = vjob;
    const int64_t i1 = b1 * TN_TR_TILE < j->rows ? b1 * TN_TR_TILE : j->rows;
    if (j->size == 4) { TR_TILE(uint32_t) }
    else { TR_TILE(uint64_t) }
}

void tn_transpose_copy(int64_t rows, int64_t cols, int size, const char *src, int64_t rs, int64_t cs, char *dst) {
    tr_job j = {rows, cols, rs, cs, size, src, dst};
    const int64_t blocks = (rows + TN_TR_TILE - 1) / TN_TR_TILE;
    /* a block row is TN_TR_TILE x cols elements; aim for ~64K elements per chunk */
    tn_parallel_for(blocks, (1 << 16) / (TN_TR_TILE * cols + 1) + 1, tr_blocks, &j);
}
