/* lowp_body.h — kernels/lowp.h's bodies, written once over GNU C vectors of LP_W lanes and
 * compiled three times (kernels/lowp.c: portable; kernels/x86/lowp_avx2.c, lowp_avx512.c). The
 * including file defines LP_W, LP_SFX and LP_ATTR. Only exact integer operations, exact
 * conversions and single f32 adds / multiplies (never contracted: ISO C mode), so every variant
 * gives the same bits. f16 conversions are F16C's vcvtph2ps / vcvtps2ph (round to nearest even)
 * on x86 and the same arithmetic in integer lanes in the portable body. */
#include <stdint.h>
#include <string.h>
#if LP_W > 4
#include <immintrin.h>
#endif

typedef float lp_f __attribute__((vector_size(LP_W * 4)));
typedef uint32_t lp_u __attribute__((vector_size(LP_W * 4)));
typedef int32_t lp_i __attribute__((vector_size(LP_W * 4)));
typedef uint16_t lp_h __attribute__((vector_size(LP_W * 2)));
typedef int16_t lp_hs __attribute__((vector_size(LP_W * 2)));

#define LP_CAT2(a, b) a##b
#define LP_CAT(a, b) LP_CAT2(a, b)
#define LP_NAME(n) LP_CAT(n, LP_SFX)
#define LP_IN static inline __attribute__((always_inline)) LP_ATTR

/* lanes where m is set take a, the others b (m all ones or all zeros per lane) */
LP_IN lp_u lp_sel(lp_i m, lp_u a, lp_u b) { return (lp_u)(((lp_i)a & m) | ((lp_i)b & ~m)); }

LP_IN lp_f lp_widen_h(lp_h h) {
#if LP_W == 16
    __m256i x;
    memcpy(&x, &h, sizeof x);
    return (lp_f)_mm512_cvtph_ps(x);
#elif LP_W == 8
    __m128i x;
    memcpy(&x, &h, sizeof x);
    return (lp_f)_mm256_cvtph_ps(x);
#else
    lp_u u = __builtin_convertvector(h, lp_u);
    lp_u sign = (u & 0x8000u) << 16, e = (u >> 10) & 0x1fu, m = u & 0x3ffu;
    lp_u norm = ((e + 112u) << 23) | (m << 13);
    lp_u special = 0x7f800000u | (m << 13) | ((lp_u)(m != 0) & 0x400000u); /* inf; NaN made quiet */
    lp_u sub = (lp_u)(__builtin_convertvector(m, lp_f) * 5.9604644775390625e-8f); /* m * 2^-24, exact */
    return (lp_f)(sign | lp_sel(e == 31u, special, lp_sel(e == 0u, sub, norm)));
#endif
}

LP_IN lp_h lp_narrow_h(lp_f f) {
#if LP_W == 16
    __m256i x = _mm512_cvtps_ph((__m512)f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    lp_h r;
    memcpy(&r, &x, sizeof r);
#elif LP_W == 8
    __m128i x = _mm256_cvtps_ph((__m256)f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    lp_h r;
    memcpy(&r, &x, sizeof r);
#else
    lp_u u = (lp_u)f, a = u & 0x7fffffffu;
    lp_u sub = (lp_u)((lp_f)a + 0.5f) - 0x3f000000u; /* the FPU rounds the subnormal mantissa */
    lp_u norm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
    lp_i ai = (lp_i)a;
    lp_u v = lp_sel(ai > 0x7f800000, (lp_u){0} + 0x7e00u,
                    lp_sel(ai >= 0x477ff000, (lp_u){0} + 0x7c00u, lp_sel(ai < 0x38800000, sub, norm)));
    lp_h r = __builtin_convertvector(((u >> 16) & 0x8000u) | v, lp_h);
#endif
    /* a NaN keeps only its sign and the quiet bit: sign | 0x7E00 */
    lp_hs nan = (lp_hs)(r & 0x7fffu) > (lp_hs)((lp_h){0} + 0x7c00u);
    return r & ~((lp_h)nan & 0x01ffu);
}

LP_IN lp_f lp_ld(tn_lp_fmt fmt, const uint16_t *p) {
    lp_h h;
    memcpy(&h, p, sizeof h);
    if (fmt == TN_LP_F16) return lp_widen_h(h);
    return (lp_f)(__builtin_convertvector(h, lp_u) << 16);
}
LP_IN lp_f lp_ld1(tn_lp_fmt fmt, const uint16_t *p) { /* one element in every lane */
    lp_h h = (lp_h){0} + *p;
    if (fmt == TN_LP_F16) return lp_widen_h(h);
    return (lp_f)(__builtin_convertvector(h, lp_u) << 16);
}
LP_IN lp_h lp_round(tn_lp_fmt fmt, lp_f f, int nan_mode) {
    if (fmt == TN_LP_F16) return lp_narrow_h(f);
    lp_u u = (lp_u)f;
    lp_u r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    lp_i nan = (lp_i)(u & 0x7fffffffu) > (lp_i)((lp_u){0} + 0x7f800000u);
    lp_u nv = nan_mode ? (lp_u){0} + 0xffffu : (u >> 16) | 0x40u;
    return __builtin_convertvector(lp_sel(nan, nv, r), lp_h);
}
LP_IN void lp_st(tn_lp_fmt fmt, uint16_t *p, lp_f f, int nan_mode) {
    lp_h h = lp_round(fmt, f, nan_mode);
    memcpy(p, &h, sizeof h);
}

/* Each public body is one always-inline function instantiated per format. */
#define LP_BY_FMT(body, ...) \
    do {                                                \
        if (fmt == TN_LP_F16) body(TN_LP_F16, __VA_ARGS__); \
        else body(TN_LP_BF16, __VA_ARGS__);             \
    } while (0)

LP_IN void lp_widen_run(tn_lp_fmt fmt, float *y, const uint16_t *x, int64_t n) {
    int64_t i = 0;
    for (; i + LP_W <= n; i += LP_W) {
        lp_f v = lp_ld(fmt, x + i);
        memcpy(y + i, &v, sizeof v);
    }
    if (i < n) { /* the tail through one padded vector: the same lane operations */
        uint16_t t[LP_W] = {0};
        memcpy(t, x + i, (size_t)(n - i) * 2);
        lp_f v = lp_ld(fmt, t);
        memcpy(y + i, &v, (size_t)(n - i) * 4);
    }
}
LP_ATTR void LP_NAME(tn_lp_widen_)(tn_lp_fmt fmt, float *y, const uint16_t *x, int64_t n) {
    LP_BY_FMT(lp_widen_run, y, x, n);
}

LP_IN void lp_narrow_run(tn_lp_fmt fmt, uint16_t *y, const float *x, int64_t n, int nan_mode) {
    int64_t i = 0;
    for (; i + LP_W <= n; i += LP_W) {
        lp_f v;
        memcpy(&v, x + i, sizeof v);
        lp_st(fmt, y + i, v, nan_mode);
    }
    if (i < n) {
        float t[LP_W] = {0};
        uint16_t o[LP_W];
        memcpy(t, x + i, (size_t)(n - i) * 4);
        lp_f v;
        memcpy(&v, t, sizeof v);
        lp_st(fmt, o, v, nan_mode);
        memcpy(y + i, o, (size_t)(n - i) * 2);
    }
}
LP_ATTR void LP_NAME(tn_lp_narrow_)(tn_lp_fmt fmt, uint16_t *y, const float *x, int64_t n, int nan_mode) {
    LP_BY_FMT(lp_narrow_run, y, x, n, nan_mode);
}

/* a op b with a NaN operand: a's NaN if a is one, else b's, made quiet (what x86 gives for the
 * operands in this order; the compiler may swap the operands of a commutative op, so it is made
 * explicit) */
LP_IN lp_f lp_nan_first(lp_f a, lp_f b, lp_f r) {
    return (lp_f)lp_sel(a != a, (lp_u)a | 0x400000u, lp_sel(b != b, (lp_u)b | 0x400000u, (lp_u)r));
}

#define LP_BIN_LOOP(EXPR)                                                                        \
    for (; i + LP_W <= n; i += LP_W) {                                                           \
        lp_f va = a_step ? lp_ld(fmt, a + i) : a1, vb = b_step ? lp_ld(fmt, b + i) : b1;         \
        lp_st(fmt, y + i, lp_nan_first(va, vb, EXPR), TN_LP_NAN_KEEP);                           \
    }                                                                                            \
    if (i < n) {                                                                                 \
        uint16_t ta[LP_W] = {0}, tb[LP_W] = {0}, to[LP_W];                                       \
        if (a_step) memcpy(ta, a + i, (size_t)(n - i) * 2);                                      \
        if (b_step) memcpy(tb, b + i, (size_t)(n - i) * 2);                                      \
        lp_f va = a_step ? lp_ld(fmt, ta) : a1, vb = b_step ? lp_ld(fmt, tb) : b1;               \
        lp_st(fmt, to, lp_nan_first(va, vb, EXPR), TN_LP_NAN_KEEP);                              \
        memcpy(y + i, to, (size_t)(n - i) * 2);                                                  \
    }

LP_IN void lp_binary_run(tn_lp_fmt fmt, int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b,
                         int b_step, int64_t n) {
    const lp_f a1 = lp_ld1(fmt, a), b1 = lp_ld1(fmt, b);
    int64_t i = 0;
    if (op == TN_LP_ADD) {
        LP_BIN_LOOP(va + vb)
    } else {
        LP_BIN_LOOP(va * vb)
    }
}
LP_ATTR void LP_NAME(tn_lp_binary_)(tn_lp_fmt fmt, int op, uint16_t *y, const uint16_t *a, int a_step,
                                    const uint16_t *b, int b_step, int64_t n) {
    LP_BY_FMT(lp_binary_run, op, y, a, a_step, b, b_step, n);
}

/* -x: the sign flipped; a NaN as the narrowing stores it (bf16: the quiet bit added; f16: sign |
 * 0x7E00) */
LP_IN lp_h lp_neg(tn_lp_fmt fmt, lp_h h) {
    const uint16_t inf = fmt == TN_LP_F16 ? 0x7c00u : 0x7f80u;
    lp_h nan = (lp_h)((lp_hs)(h & 0x7fffu) > (lp_hs)((lp_h){0} + inf));
    h ^= 0x8000u;
    if (fmt == TN_LP_F16) return (h & ~nan) | (nan & ((h & 0x8000u) | 0x7e00u));
    return h | (nan & 0x40u);
}
LP_IN void lp_neg_run(tn_lp_fmt fmt, uint16_t *y, const uint16_t *x, int64_t n) {
    int64_t i = 0;
    for (; i + LP_W <= n; i += LP_W) {
        lp_h h;
        memcpy(&h, x + i, sizeof h);
        h = lp_neg(fmt, h);
        memcpy(y + i, &h, sizeof h);
    }
    if (i < n) {
        lp_h h = {0};
        memcpy(&h, x + i, (size_t)(n - i) * 2);
        h = lp_neg(fmt, h);
        memcpy(y + i, &h, (size_t)(n - i) * 2);
    }
}
LP_ATTR void LP_NAME(tn_lp_neg_)(tn_lp_fmt fmt, uint16_t *y, const uint16_t *x, int64_t n) {
    LP_BY_FMT(lp_neg_run, y, x, n);
}
