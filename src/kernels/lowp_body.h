/* lowp_body.h — kernels/lowp.h's bodies, written once over GNU C vectors of LP_W lanes and
 * compiled three times (kernels/lowp.c: portable; kernels/x86/lowp_avx2.c, lowp_avx512.c). The
 * including file defines LP_W, LP_SFX and LP_ATTR. Only exact integer operations and single f32
 * adds / multiplies (never contracted: ISO C mode), so every variant gives the same bits. */
#include <stdint.h>
#include <string.h>

typedef float lp_f __attribute__((vector_size(LP_W * 4)));
typedef uint32_t lp_u __attribute__((vector_size(LP_W * 4)));
typedef int32_t lp_i __attribute__((vector_size(LP_W * 4)));
typedef uint16_t lp_h __attribute__((vector_size(LP_W * 2)));

#define LP_CAT2(a, b) a##b
#define LP_CAT(a, b) LP_CAT2(a, b)
#define LP_NAME(n) LP_CAT(n, LP_SFX)
#define LP_IN static inline __attribute__((always_inline)) LP_ATTR

LP_IN lp_f lp_ld(const uint16_t *p) {
    lp_h h;
    memcpy(&h, p, sizeof h);
    return (lp_f)(__builtin_convertvector(h, lp_u) << 16);
}
LP_IN lp_f lp_ld1(const uint16_t *p) { /* one element in every lane */
    uint32_t u = (uint32_t)*p << 16;
    return (lp_f)((lp_u){0} + u);
}
LP_IN lp_h lp_round(lp_f f, int nan_mode) {
    lp_u u = (lp_u)f;
    lp_u r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    lp_i nan = (lp_i)(u & 0x7fffffffu) > (lp_i)((lp_u){0} + 0x7f800000u);
    lp_u nv = nan_mode ? (lp_u){0} + 0xffffu : (u >> 16) | 0x40u;
    r = (lp_u)(((lp_i)r & ~nan) | ((lp_i)nv & nan));
    return __builtin_convertvector(r, lp_h);
}
LP_IN void lp_st(uint16_t *p, lp_f f, int nan_mode) {
    lp_h h = lp_round(f, nan_mode);
    memcpy(p, &h, sizeof h);
}

LP_ATTR void LP_NAME(tn_lp_bf16_to_f32_)(float *y, const uint16_t *x, int64_t n) {
    int64_t i = 0;
    for (; i + LP_W <= n; i += LP_W) {
        lp_f v = lp_ld(x + i);
        memcpy(y + i, &v, sizeof v);
    }
    for (; i < n; i++) {
        uint32_t u = (uint32_t)x[i] << 16;
        memcpy(y + i, &u, 4);
    }
}

LP_ATTR void LP_NAME(tn_lp_f32_to_bf16_)(uint16_t *y, const float *x, int64_t n, int nan_mode) {
    int64_t i = 0;
    for (; i + LP_W <= n; i += LP_W) {
        lp_f v;
        memcpy(&v, x + i, sizeof v);
        lp_st(y + i, v, nan_mode);
    }
    if (i < n) { /* the tail through one padded vector: the same lane operations */
        float t[LP_W] = {0};
        uint16_t o[LP_W];
        memcpy(t, x + i, (size_t)(n - i) * 4);
        lp_f v;
        memcpy(&v, t, sizeof v);
        lp_st(o, v, nan_mode);
        memcpy(y + i, o, (size_t)(n - i) * 2);
    }
}

#define LP_BIN_LOOP(EXPR)                                                                        \
    for (; i + LP_W <= n; i += LP_W) {                                                           \
        lp_f va = a_step ? lp_ld(a + i) : a1, vb = b_step ? lp_ld(b + i) : b1;                   \
        lp_st(y + i, EXPR, TN_LP_NAN_KEEP);                                                      \
    }                                                                                            \
    if (i < n) {                                                                                 \
        uint16_t ta[LP_W] = {0}, tb[LP_W] = {0}, to[LP_W];                                       \
        if (a_step) memcpy(ta, a + i, (size_t)(n - i) * 2);                                      \
        if (b_step) memcpy(tb, b + i, (size_t)(n - i) * 2);                                      \
        lp_f va = a_step ? lp_ld(ta) : a1, vb = b_step ? lp_ld(tb) : b1;                         \
        lp_st(to, EXPR, TN_LP_NAN_KEEP);                                                         \
        memcpy(y + i, to, (size_t)(n - i) * 2);                                                  \
    }

LP_ATTR void LP_NAME(tn_lp_binary_bf16_)(int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b,
                                         int b_step, int64_t n) {
    const lp_f a1 = lp_ld1(a), b1 = lp_ld1(b);
    int64_t i = 0;
    if (op == TN_LP_ADD) {
        LP_BIN_LOOP(va + vb)
    } else {
        LP_BIN_LOOP(va * vb)
    }
}

/* -x: the sign flipped; a NaN also gets the quiet bit (tn__f2b of the negated widened value) */
LP_ATTR void LP_NAME(tn_lp_neg_bf16_)(uint16_t *y, const uint16_t *x, int64_t n) {
    int64_t i = 0;
    for (; i < n && (i + LP_W <= n); i += LP_W) {
        lp_h h;
        memcpy(&h, x + i, sizeof h);
        lp_u u = __builtin_convertvector(h, lp_u);
        lp_i nan = (lp_i)(u & 0x7fffu) > (lp_i)((lp_u){0} + 0x7f80u);
        u = (u ^ 0x8000u) | ((lp_u)nan & 0x40u);
        h = __builtin_convertvector(u, lp_h);
        memcpy(y + i, &h, sizeof h);
    }
    for (; i < n; i++) {
        uint16_t v = x[i];
        y[i] = (uint16_t)((v ^ 0x8000u) | ((v & 0x7fffu) > 0x7f80u ? 0x40u : 0u));
    }
}
