/* vmath.c — f32 exp for whole arrays (see vmath.h): the portable lane function, and the choice
 * of the AVX-512 / AVX2 bodies (kernels/x86/vmath_x86.c) at run time.
 *
 * exp(x) = 2^n * e^r with n = round(x / ln 2) and r = x - n ln 2 (ln 2 split in two constants so
 * r is exact), e^r by Cephes' degree-7 polynomial on |r| <= ln2/2, 2^n built in the exponent
 * bits. No fused multiply-adds are needed for the accuracy, so every variant gives the same bits.
 * TN_VEXP=ref (or avx2) in the environment forces a variant, to compare them
 * (tests/kernels/test_vexp_variants.py). */
#include "kernels/vmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
void tn_vexp_f32_avx512(float *y, const float *x, int64_t n);
void tn_vexp_f32_avx2(float *y, const float *x, int64_t n);
#endif

/* One lane; branch-free so the loop below vectorises. */
static inline float exp1(float x) {
    const float hi = 88.72283935546875f, lo = -87.33654022216797f; /* exp(lo) = FLT_MIN */
    float xc = x > hi ? hi : x < lo ? lo : x == x ? x : 0.0f;
    float fx = xc * 1.44269504088896341f + 0.5f;
    int32_t n = (int32_t)fx;                  /* truncates toward zero */
    n -= (float)n > fx;                       /* floor */
    float nf = (float)n;
    float r = xc - nf * 0.693359375f;
    r = r - nf * -2.12194440e-4f;
    float p = r * 1.9875691500e-4f + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    int32_t h = n >> 1; /* 2^n as two normal factors: n reaches 128 */
    int32_t b1 = (h + 127) << 23, b2 = (n - h + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, sizeof s1);
    memcpy(&s2, &b2, sizeof s2);
    float v = p * s1 * s2;
    v = x > hi ? INFINITY : v;
    v = x < lo ? 0.0f : v;
    return x == x ? v : x;
}

static void vexp_portable(float *y, const float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = exp1(x[i]);
}

static void (*vexp_impl)(float *, const float *, int64_t); /* benign race: same value */

void tn_vexp_f32(float *y, const float *x, int64_t n) {
    if (!vexp_impl) {
        void (*f)(float *, const float *, int64_t) = vexp_portable;
        const char *env = getenv("TN_VEXP");
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) f = tn_vexp_f32_avx512;
        else if (__builtin_cpu_supports("avx2")) f = tn_vexp_f32_avx2;
        if (env && strcmp(env, "avx2") == 0 && __builtin_cpu_supports("avx2")) f = tn_vexp_f32_avx2;
#endif
        if (env && strcmp(env, "ref") == 0) f = vexp_portable;
        vexp_impl = f;
    }
    vexp_impl(y, x, n);
}
