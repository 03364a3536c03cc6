/* layer_norm.c — float32 / float64 layer norm, forward and backward, with upstream's CPU rounding
 * (declared in kernels/nn.h and kernels/backward.h; the steps are layer_norm_body.h, included once
 * per type). See docs/layer_norm.md.
 *
 * Upstream 2.13.0 (aten/src/ATen/native/cpu/layer_norm_kernel.cpp, moments_utils.h) computes
 * each row's mean and variance by Welford over Vectorized<float> lanes in chunks of 16 vectors,
 * folds the chunks with a cascade (binary-counter) stack, runs scalar Welford over the elements
 * past the last whole vector, then folds the lanes into that scalar state one by one; then
 * rstd = 1 / sqrt(var + eps) and y = (x - mean) * rstd * gamma + beta. Its bits depend on the
 * ATen CPU capability it runs at:
 *   - the lane count: 8 floats / 4 doubles (DEFAULT and AVX2);
 *   - fused multiply-adds: the explicit fmadd() of the lane updates is one instruction on AVX2
 *     and a multiply then an add on DEFAULT; the AVX2 build also lets the
 *     compiler contract the scalar lane fold (mean += c * d; m2 += m2_add + d*d*c*m0) and the
 *     last step of y (gamma and beta present: fma((x - mean) * rstd, gamma, beta); gamma absent:
 *     fma(x - mean, rstd, beta), the multiply by 1 folded away), but not the scalar tail's
 *     m2 += d * (x - mean) (measured: bit-identical on 352 shapes only that way).
 * The lanes are simulated in portable C (this file builds with -std=c11, so the compiler
 * contracts nothing itself; every fused step is an explicit fmaf). Which model runs follows
 * the CPU as upstream's dispatch does (AVX2+FMA -> 8 lanes fused, else 8 lanes unfused). The
 * kernel has no AVX-512 build: upstream registers it with REGISTER_DISPATCH, which leaves the
 * AVX-512 slot empty, so an AVX-512 host runs the AVX2 kernel (measured, docs/layer_norm.md).
 * TN_LNORM=default|avx2|avx512 (or, when that is unset, ATEN_CPU_CAPABILITY) forces one, to
 * compare against upstream forced onto the same path. */
#include "kernels/nn.h"
#include "kernels/backward.h"
#include "core/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LN_MAXL 8
#define LN_CHUNK 16

typedef struct {
    int lanes;
    int fused;
} ln_model;
static int ln_pick_done;
static ln_model ln_chosen;
#if defined(__x86_64__)
static int ln_has_fma;
#endif

static int ln_named(const char *s, ln_model *m) {
    if (!s || !*s) return 0;
    if (!strcmp(s, "default") || !strcmp(s, "DEFAULT")) *m = (ln_model){8, 0};
    else if (!strcmp(s, "avx2") || !strcmp(s, "AVX2") || !strcmp(s, "avx512") || !strcmp(s, "AVX512"))
        *m = (ln_model){8, 1};
    else return 0;
    return 1;
}

static ln_model ln_pick(void) {
    if (!ln_pick_done) { /* benign race: every thread computes the same values */
        ln_model m = {8, 0};
#if defined(__x86_64__)
        __builtin_cpu_init();
        ln_has_fma = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
        if (ln_has_fma) m = (ln_model){8, 1};
#endif
        if (!ln_named(getenv("TN_LNORM"), &m)) ln_named(getenv("ATEN_CPU_CAPABILITY"), &m);
        ln_chosen = m;
        ln_pick_done = 1;
    }
    return ln_chosen;
}

/* rows (or columns) per pool chunk: about 16K elements each */
static int64_t ln_grain(int64_t n) { return n >= 16384 ? 1 : 16384 / (n > 0 ? n : 1); }

#define LN_T float
#define LN_FMA fmaf
#define LN_SQRT sqrtf
#define LN_N(n) ln32_##n
#define LN_PUB(n) n##_f32
#include "kernels/layer_norm_body.h"
#undef LN_T
#undef LN_FMA
#undef LN_SQRT
#undef LN_N
#undef LN_PUB

#define LN_T double
#define LN_FMA fma
#define LN_SQRT sqrt
#define LN_N(n) ln64_##n
#define LN_PUB(n) n##_f64
#include "kernels/layer_norm_body.h"
#undef LN_T
#undef LN_FMA
#undef LN_SQRT
#undef LN_N
#undef LN_PUB
