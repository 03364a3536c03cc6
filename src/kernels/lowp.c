/* lowp.c — kernels/lowp.h: the portable instantiation of kernels/lowp_body.h and the run-time
 * choice among it, AVX2 (+F16C) and AVX-512 (kernels/x86/lowp_*.c). TN_VEXP=ref forces the portable
 * body, TN_VEXP=avx2 the AVX2 one (the same switch as kernels/vmath.c). */
#include "kernels/lowp.h"

#include <stdlib.h>
#include <string.h>

#define LP_W 4
#define LP_SFX ref
#define LP_ATTR
#include "kernels/lowp_body.h"

#if defined(__x86_64__)
#define LP_DECL(isa)                                                                                          \
    void tn_lp_widen_##isa(tn_lp_fmt, float *, const uint16_t *, int64_t);                                    \
    void tn_lp_narrow_##isa(tn_lp_fmt, uint16_t *, const float *, int64_t, int);                              \
    void tn_lp_binary_##isa(tn_lp_fmt, int, uint16_t *, const uint16_t *, int, const uint16_t *, int, int64_t); \
    void tn_lp_neg_##isa(tn_lp_fmt, uint16_t *, const uint16_t *, int64_t);
LP_DECL(avx2)
LP_DECL(avx512)
#endif

/* 0 portable, 1 AVX2, 2 AVX-512 (F + BW + VL) */
static int lp_level = -1; /* benign race: every thread computes the same value */

static int lp_pick(void) {
    if (lp_level < 0) {
        int l = 0;
        const char *env = getenv("TN_VEXP");
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vl"))
            l = 2;
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"))
            l = 1;
        if (env && strcmp(env, "avx2") == 0 && l > 1) l = 1;
#endif
        if (env && strcmp(env, "ref") == 0) l = 0;
        lp_level = l;
    }
    return lp_level;
}

/* the chosen body of one entry point */
#if defined(__x86_64__)
#define LP_CALL(name, ...)                                           \
    switch (lp_pick()) {                                             \
    case 2: name##_avx512(__VA_ARGS__); return;                      \
    case 1: name##_avx2(__VA_ARGS__); return;                        \
    default: name##_ref(__VA_ARGS__);                                \
    }
#else
#define LP_CALL(name, ...) name##_ref(__VA_ARGS__)
#endif

void tn_lp_widen(tn_lp_fmt fmt, float *y, const uint16_t *x, int64_t n) { LP_CALL(tn_lp_widen, fmt, y, x, n); }

void tn_lp_narrow(tn_lp_fmt fmt, uint16_t *y, const float *x, int64_t n, int nan_mode) {
    LP_CALL(tn_lp_narrow, fmt, y, x, n, nan_mode);
}

void tn_lp_binary(tn_lp_fmt fmt, int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b, int b_step,
                  int64_t n) {
    LP_CALL(tn_lp_binary, fmt, op, y, a, a_step, b, b_step, n);
}

void tn_lp_neg(tn_lp_fmt fmt, uint16_t *y, const uint16_t *x, int64_t n) { LP_CALL(tn_lp_neg, fmt, y, x, n); }
