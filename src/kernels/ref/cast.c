/* cast.c — dtype conversion (and plain copy) between every pair of computable dtypes and
 * complex32 (storable, castable, no arithmetic), a byte copy from any dtype to itself, and fill.
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

static tn_loop ctab[TN_DTYPE_COUNT][TN_DTYPE_COUNT];
static bool ctab_ready;
#define REG_INNER(ssfx, STS, SLD, SCONV, SE, dsfx, DTS, DLD, DCONV, DE) \
    ctab[TN_DTYPE_##DE][TN_DTYPE_##SE] = cast_##dsfx##_##ssfx;
#define REG_OUTER(dsfx, DTS, DLD, DCONV, DE, _)       \
    CAST_TYPES2(REG_INNER, dsfx, DTS, DLD, DCONV, DE) \
    ctab[TN_DTYPE_##DE][TN_DTYPE_##DE] = copy_##dsfx;

tn_loop tn_cast_loop(tn_dtype dst, tn_dtype src) {
    if ((unsigned)dst >= TN_DTYPE_COUNT || (unsigned)src >= TN_DTYPE_COUNT) return NULL;
    if (!ctab_ready) { /* idempotent: racing initialisers write identical values */
        CAST_TYPES(REG_OUTER, _)
        ctab[TN_DTYPE_BF16][TN_DTYPE_F32] = cast_bf16_f32_up;
        ctab[TN_DTYPE_BF16][TN_DTYPE_F64] = cast_bf16_f64_up;
        ctab[TN_DTYPE_F32][TN_DTYPE_BF16] = cast_f32_bf16_up;
        ctab[TN_DTYPE_F16][TN_DTYPE_F32] = cast_f16_f32_up;
        ctab[TN_DTYPE_F32][TN_DTYPE_F16] = cast_f32_f16_up;
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
