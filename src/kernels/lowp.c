/* lowp.c — kernels/lowp.h: the portable instantiation of kernels/lowp_body.h and the run-time
 * choice among it, AVX2 and AVX-512 (kernels/x86/lowp_*.c). TN_VEXP=ref forces the portable
 * body, TN_VEXP=avx2 the AVX2 one (the same switch as kernels/vmath.c). */
#include "kernels/lowp.h"

#include <stdlib.h>
#include <string.h>

#define LP_W 4
#define LP_SFX ref
#define LP_ATTR
#include "kernels/lowp_body.h"

#if defined(__x86_64__)
void tn_lp_bf16_to_f32_avx2(float *, const uint16_t *, int64_t);
void tn_lp_bf16_to_f32_avx512(float *, const uint16_t *, int64_t);
void tn_lp_f32_to_bf16_avx2(uint16_t *, const float *, int64_t, int);
void tn_lp_f32_to_bf16_avx512(uint16_t *, const float *, int64_t, int);
void tn_lp_binary_bf16_avx2(int, uint16_t *, const uint16_t *, int, const uint16_t *, int, int64_t);
void tn_lp_binary_bf16_avx512(int, uint16_t *, const uint16_t *, int, const uint16_t *, int, int64_t);
void tn_lp_neg_bf16_avx2(uint16_t *, const uint16_t *, int64_t);
void tn_lp_neg_bf16_avx512(uint16_t *, const uint16_t *, int64_t);
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
        else if (__builtin_cpu_supports("avx2"))
            l = 1;
        if (env && strcmp(env, "avx2") == 0 && l > 1) l = 1;
#endif
        if (env && strcmp(env, "ref") == 0) l = 0;
        lp_level = l;
    }
    return lp_level;
}

void tn_lp_bf16_to_f32(float *y, const uint16_t *x, int64_t n) {
    switch (lp_pick()) {
#if defined(__x86_64__)
    case 2: tn_lp_bf16_to_f32_avx512(y, x, n); return;
    case 1: tn_lp_bf16_to_f32_avx2(y, x, n); return;
#endif
    default: tn_lp_bf16_to_f32_ref(y, x, n);
    }
}

void tn_lp_f32_to_bf16(uint16_t *y, const float *x, int64_t n, int nan_mode) {
    switch (lp_pick()) {
#if defined(__x86_64__)
    case 2: tn_lp_f32_to_bf16_avx512(y, x, n, nan_mode); return;
    case 1: tn_lp_f32_to_bf16_avx2(y, x, n, nan_mode); return;
#endif
    default: tn_lp_f32_to_bf16_ref(y, x, n, nan_mode);
    }
}

void tn_lp_binary_bf16(int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b, int b_step, int64_t n) {
    switch (lp_pick()) {
#if defined(__x86_64__)
    case 2: tn_lp_binary_bf16_avx512(op, y, a, a_step, b, b_step, n); return;
    case 1: tn_lp_binary_bf16_avx2(op, y, a, a_step, b, b_step, n); return;
#endif
    default: tn_lp_binary_bf16_ref(op, y, a, a_step, b, b_step, n);
    }
}

void tn_lp_neg_bf16(uint16_t *y, const uint16_t *x, int64_t n) {
    switch (lp_pick()) {
#if defined(__x86_64__)
    case 2: tn_lp_neg_bf16_avx512(y, x, n); return;
    case 1: tn_lp_neg_bf16_avx2(y, x, n); return;
#endif
    default: tn_lp_neg_bf16_ref(y, x, n);
    }
}
