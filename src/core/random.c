/* random.c — upstream torch's CPU generator (mt19937 + normal caches) and the CPU sampling
 * kernels built on it, reproducing upstream 2.13.0's numbers bit for bit.
 *
 * Written from measurements of upstream (tools/dev/check_random.py) and from the behaviour its
 * public headers describe; see random.h for the facts each function reproduces. The transforms
 * deliberately keep upstream's precision choices (f32 maths for f16/bf16, double for the scalar
 * normal path, the exact draw widths), since any deviation changes the stream. */
#include "core/random.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__linux__)
#include <sys/random.h>
#endif

#define TN_MT_M 397

static const double TN_PI = 3.14159265358979323846;

/* ---- mt19937 ------------------------------------------------------------------------------ */

static void mt_reseed(tn_generator *g, uint64_t seed) {
    g->seed = seed;
    g->seeded = true;
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < TN_MT_N; j++) {
        uint32_t prev = g->state[j - 1];
        g->state[j] = 1812433253u * (prev ^ (prev >> 30)) + j;
    }
    g->left = 1;
    g->next = 0;
}

static inline uint32_t mt_twist(uint32_t u, uint32_t v) {
    uint32_t mixed = (u & 0x80000000u) | (v & 0x7fffffffu);
    return (mixed >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}

static void mt_regenerate(tn_generator *g) {
    uint32_t *s = g->state;
    int k = 0;
    for (; k < TN_MT_N - TN_MT_M; k++) s[k] = s[k + TN_MT_M] ^ mt_twist(s[k], s[k + 1]);
    for (; k < TN_MT_N - 1; k++) s[k] = s[k + TN_MT_M - TN_MT_N] ^ mt_twist(s[k], s[k + 1]);
    s[TN_MT_N - 1] = s[TN_MT_M - 1] ^ mt_twist(s[TN_MT_N - 1], s[0]);
    g->left = TN_MT_N;
    g->next = 0;
}

uint32_t tn_generator_random(tn_generator *g) {
    if (--g->left == 0) mt_regenerate(g);
    uint32_t y = g->state[g->next++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

uint64_t tn_generator_random64(tn_generator *g) {
    uint64_t hi = tn_generator_random(g);
    uint64_t lo = tn_generator_random(g);
    return (hi << 32) | lo;
}

void tn_generator_seed(tn_generator *g, uint64_t seed) {
    mt_reseed(g, seed);
    g->has_next_double_normal = false;
    g->has_next_float_normal = false;
    g->next_double_normal = 0.0;
    g->next_float_normal = 0.0f;
}

void tn_generator_init(tn_generator *g) {
    memset(g, 0, sizeof *g);
    tn_generator_seed(g, TN_DEFAULT_RNG_SEED);
}

uint64_t tn_generator_initial_seed(const tn_generator *g) { return g->seed; }

uint64_t tn_random_nondeterministic_u64(void) {
    uint64_t v = 0;
#if defined(__linux__)
    if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
#endif
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        size_t got = fread(&v, 1, sizeof v, f);
        fclose(f);
        if (got == sizeof v) return v;
    }
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    v = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&v;
    v ^= v >> 33; v *= UINT64_C(0xff51afd7ed558ccd); v ^= v >> 33;
    return v;
}

uint64_t tn_generator_seed_nondeterministic(tn_generator *g) {
    uint64_t s = tn_random_nondeterministic_u64();
    tn_generator_seed(g, s);
    return s;
}

/* ---- state bytes -------------------------------------------------------------------------- */

static void put_u64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put_u32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static uint32_t get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

enum {
    ST_SEED = 0, ST_LEFT = 8, ST_SEEDED = 12, ST_NEXT = 16, ST_STATE = 24,
    ST_NORMAL_X = 5016, ST_NORMAL_Y = 5024, ST_NORMAL_RHO = 5032, ST_NORMAL_VALID = 5040,
    ST_FLOAT_NORMAL = 5048, ST_FLOAT_VALID = 5052,
};

size_t tn_generator_get_state(const tn_generator *g, uint8_t *out, size_t len) {
    if (len < TN_GENERATOR_STATE_SIZE) return TN_GENERATOR_STATE_SIZE;
    memset(out, 0, TN_GENERATOR_STATE_SIZE);
    put_u64(out + ST_SEED, g->seed);
    put_u32(out + ST_LEFT, (uint32_t)g->left);
    put_u32(out + ST_SEEDED, g->seeded ? 1u : 0u);
    put_u64(out + ST_NEXT, g->next);
    for (int i = 0; i < TN_MT_N; i++) put_u64(out + ST_STATE + 8 * i, g->state[i]);
    if (g->has_next_double_normal) {
        union { double d; uint64_t u; } c = { .d = g->next_double_normal };
        put_u64(out + ST_NORMAL_Y, c.u);
        put_u32(out + ST_NORMAL_VALID, 1u);
    }
    if (g->has_next_float_normal) {
        union { float f; uint32_t u; } c = { .f = g->next_float_normal };
        put_u32(out + ST_FLOAT_NORMAL, c.u);
        out[ST_FLOAT_VALID] = 1;
    }
    return TN_GENERATOR_STATE_SIZE;
}

int tn_generator_set_state(tn_generator *g, const uint8_t *in, size_t len) {
    if (len != TN_GENERATOR_STATE_SIZE) return TN_RNG_STATE_BAD_SIZE;
    int32_t left = (int32_t)get_u32(in + ST_LEFT);
    int32_t seeded = (int32_t)get_u32(in + ST_SEEDED);
    uint64_t next = get_u64(in + ST_NEXT);
    /* upstream narrows `next` to 32 bits before validating */
    uint32_t next32 = (uint32_t)next;
    if (!seeded || left <= 0 || left > TN_MT_N || next32 > TN_MT_N) return TN_RNG_STATE_INVALID;
    g->seed = get_u64(in + ST_SEED);
    g->seeded = true;
    g->left = left;
    g->next = next32;
    for (int i = 0; i < TN_MT_N; i++) g->state[i] = (uint32_t)get_u64(in + ST_STATE + 8 * i);
    g->has_next_double_normal = get_u32(in + ST_NORMAL_VALID) != 0;
    union { double d; uint64_t u; } c;
    c.u = get_u64(in + ST_NORMAL_Y);
    g->next_double_normal = g->has_next_double_normal ? c.d : 0.0;
    g->has_next_float_normal = in[ST_FLOAT_VALID] != 0;
    union { float f; uint32_t u; } cf;
    cf.u = get_u32(in + ST_FLOAT_NORMAL);
    g->next_float_normal = g->has_next_float_normal ? cf.f : 0.0f;
    return TN_RNG_STATE_OK;
}

/* ---- element stores ------------------------------------------------------------------------ */

static inline bool is_float_dt(tn_dtype dt) {
    return dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16;
}
static inline bool is_int_dt(tn_dtype dt) {
    return dt == TN_DTYPE_U8 || dt == TN_DTYPE_I8 || dt == TN_DTYPE_I16 || dt == TN_DTYPE_I32 ||
           dt == TN_DTYPE_I64;
}
static inline bool is_uint_wide(tn_dtype dt) {
    return dt == TN_DTYPE_U16 || dt == TN_DTYPE_U32 || dt == TN_DTYPE_U64;
}

/* float -> reduced dtype, RNE */
static inline void store_f32_as(void *data, int64_t i, tn_dtype dt, float v) {
    switch (dt) {
    case TN_DTYPE_F32: ((float *)data)[i] = v; break;
    case TN_DTYPE_F64: ((double *)data)[i] = v; break;
    case TN_DTYPE_F16: ((uint16_t *)data)[i] = tn_f32_to_f16(v); break;
    case TN_DTYPE_BF16: ((uint16_t *)data)[i] = tn_f32_to_bf16(v); break;
    default: break;
    }
}

/* static_cast<scalar_t>(double); reduced floats go through float like c10::Half/BFloat16. */
static inline void store_double(void *data, int64_t i, tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F64: ((double *)data)[i] = v; break;
    case TN_DTYPE_F32: case TN_DTYPE_F16: case TN_DTYPE_BF16: store_f32_as(data, i, dt, (float)v); break;
    case TN_DTYPE_BOOL: ((uint8_t *)data)[i] = v != 0.0; break;
    case TN_DTYPE_U8: ((uint8_t *)data)[i] = (uint8_t)(int64_t)v; break;
    case TN_DTYPE_I8: ((int8_t *)data)[i] = (int8_t)(int64_t)v; break;
    case TN_DTYPE_I16: ((int16_t *)data)[i] = (int16_t)(int64_t)v; break;
    case TN_DTYPE_I32: ((int32_t *)data)[i] = (int32_t)(int64_t)v; break;
    case TN_DTYPE_I64: ((int64_t *)data)[i] = (int64_t)v; break;
    default: break;
    }
}

/* static_cast<scalar_t>(int64_t): integers wrap, floats round to nearest (reduced via float). */
static inline void store_i64(void *data, int64_t i, tn_dtype dt, int64_t v) {
    switch (dt) {
    case TN_DTYPE_F64: ((double *)data)[i] = (double)v; break;
    case TN_DTYPE_F32: case TN_DTYPE_F16: case TN_DTYPE_BF16: store_f32_as(data, i, dt, (float)v); break;
    case TN_DTYPE_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case TN_DTYPE_U8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case TN_DTYPE_I8: ((int8_t *)data)[i] = (int8_t)v; break;
    case TN_DTYPE_I16: ((int16_t *)data)[i] = (int16_t)v; break;
    case TN_DTYPE_I32: ((int32_t *)data)[i] = (int32_t)v; break;
    case TN_DTYPE_I64: ((int64_t *)data)[i] = v; break;
    case TN_DTYPE_U16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    case TN_DTYPE_U32: ((uint32_t *)data)[i] = (uint32_t)v; break;
    case TN_DTYPE_U64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    default: break;
    }
}

static inline float load_as_f32(const void *data, int64_t i, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return ((const float *)data)[i];
    case TN_DTYPE_F64: return (float)((const double *)data)[i];
    case TN_DTYPE_F16: return tn_f16_to_f32(((const uint16_t *)data)[i]);
    case TN_DTYPE_BF16: return tn_bf16_to_f32(((const uint16_t *)data)[i]);
    default: return 0.0f;
    }
}
static inline double load_as_f64(const void *data, int64_t i, tn_dtype dt) {
    if (dt == TN_DTYPE_F64) return ((const double *)data)[i];
    return (double)load_as_f32(data, i, dt);
}

/* ---- uniform transforms ----------------------------------------------------------------- */

/* [0,1) float from the low 24 bits of a 32-bit draw */
static inline float u01_f32(tn_generator *g) {
    return (float)(tn_generator_random(g) & 0xffffffu) * (1.0f / 16777216.0f);
}
/* [0,1) double from the low 53 bits of a 64-bit draw */
static inline double u01_f64(tn_generator *g) {
    return (double)(tn_generator_random64(g) & ((UINT64_C(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

int tn_rng_uniform_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double from, double to) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    if (dt == TN_DTYPE_F64) {
        double *d = data;
        double span = to - from;
        for (int64_t i = 0; i < n; i++) {
            double v = fma(u01_f64(g), span, from);
            d[i] = v == to ? from : v;
        }
        return 0;
    }
    float f = (float)from, t = (float)to, span = t - f;
    if (dt == TN_DTYPE_F32) {
        float *d = data;
        for (int64_t i = 0; i < n; i++) {
            float v = fmaf(u01_f32(g), span, f);
            d[i] = v == t ? f : v;
        }
        return 0;
    }
    /* f16 / bf16: f32 maths, round once, compare in the dtype */
    uint16_t *d = data;
    uint16_t (*narrow)(float) = dt == TN_DTYPE_F16 ? tn_f32_to_f16 : tn_f32_to_bf16;
    uint16_t to_h = narrow((float)to), from_h = narrow((float)from);
    float to_hf = dt == TN_DTYPE_F16 ? tn_f16_to_f32(to_h) : tn_bf16_to_f32(to_h);
    for (int64_t i = 0; i < n; i++) {
        uint16_t h = narrow(fmaf(u01_f32(g), span, f));
        float hv = dt == TN_DTYPE_F16 ? tn_f16_to_f32(h) : tn_bf16_to_f32(h);
        d[i] = hv == to_hf ? from_h : h;
    }
    return 0;
}

/* ---- normal ---------------------------------------------------------------------------- */

double tn_rng_normal_double(tn_generator *g, double mean, double std) {
    double ret;
    if (g->has_next_double_normal) {
        g->has_next_double_normal = false;
        ret = g->next_double_normal;
        return fma(ret, std, mean);
    }
    double u1 = u01_f64(g);
    double u2 = u01_f64(g);
    double r = sqrt(-2.0 * log1p(-u2));
    double theta = 2.0 * TN_PI * u1;
    g->next_double_normal = r * sin(theta);
    g->has_next_double_normal = true;
    ret = r * cos(theta);
    return fma(ret, std, mean);
}

int tn_rng_normal_serial_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean,
                          double std) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, tn_rng_normal_double(g, mean, std));
    return 0;
}

/* 16-wide Box–Muller in f32, as upstream's AVX2 kernel computes it (used on AVX2 and AVX512
 * machines alike; upstream's DEFAULT-capability build uses libm instead and differs in the last
 * bit now and then). log and sincos are the Cephes single-precision polynomials, evaluated lane by
 * lane with the same operation order; upstream's compiler contracts each multiply feeding an add
 * into one fused multiply-add, so TN_FMA marks exactly those places. */
#define TN_FMA(a, b, c) fmaf((a), (b), (c))

static inline uint32_t f2u(float f) { union { float f; uint32_t u; } c = { .f = f }; return c.u; }
static inline float u2f(uint32_t u) { union { float f; uint32_t u; } c = { .u = u }; return c.f; }

static inline __attribute__((always_inline)) float cephes_logf(float x) {
    bool invalid = x <= 0.0f;
    if (!(x > 1.17549435e-38f)) x = 1.17549435e-38f; /* max(x, FLT_MIN), second operand on NaN */
    int32_t ex = (int32_t)(f2u(x) >> 23) - 0x7f;
    x = u2f((f2u(x) & ~0x7f800000u) | f2u(0.5f));
    float e = (float)ex + 1.0f;
    bool small = x < 0.707106781186547524f;
    float tmp = small ? x : 0.0f;
    x = x - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = 7.0376836292E-2f;
    y = TN_FMA(y, x, -1.1514610310E-1f);
    y = TN_FMA(y, x, 1.1676998740E-1f);
    y = TN_FMA(y, x, -1.2420140846E-1f);
    y = TN_FMA(y, x, 1.4249322787E-1f);
    y = TN_FMA(y, x, -1.6668057665E-1f);
    y = TN_FMA(y, x, 2.0000714765E-1f);
    y = TN_FMA(y, x, -2.4999993993E-1f);
    y = TN_FMA(y, x, 3.3333331174E-1f);
    y = y * x;
    y = TN_FMA(y, z, e * -2.12194440e-4f);
    y = y - z * 0.5f; /* z * 0.5 is exact: fused or not, same value */
    x = x + y;
    x = TN_FMA(e, 0.693359375f, x);
    return invalid ? u2f(0xffffffffu) : x;
}

static inline __attribute__((always_inline)) void cephes_sincosf(float x, float *s, float *c) {
    uint32_t sign_sin = f2u(x) & 0x80000000u;
    x = u2f(f2u(x) & 0x7fffffffu);
    float y = x * 1.27323954473516f;
    int32_t j = (int32_t)y; /* truncation; only [0, 2pi) reaches here */
    j = (j + 1) & ~1;
    y = (float)j;
    uint32_t swap_sin = ((uint32_t)j & 4u) << 29;
    bool poly_sin = (j & 2) == 0;
    x = TN_FMA(y, -0.78515625f, x);
    x = TN_FMA(y, -2.4187564849853515625e-4f, x);
    x = TN_FMA(y, -3.77489497744594108e-8f, x);
    uint32_t sign_cos = (~(uint32_t)(j - 2) & 4u) << 29;
    sign_sin ^= swap_sin;
    float z = x * x;
    float yc = 2.443315711809948E-005f;
    yc = TN_FMA(yc, z, -1.388731625493765E-003f);
    yc = TN_FMA(yc, z, 4.166664568298827E-002f);
    yc = yc * z;
    yc = TN_FMA(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = -1.9515295891E-4f;
    ys = TN_FMA(ys, z, 8.3321608736E-3f);
    ys = TN_FMA(ys, z, -1.6666654611E-1f);
    ys = ys * z;
    ys = TN_FMA(ys, x, x);
    /* masked select written as upstream does it (and/andnot + adds), keeping signed zeros */
    float ysin2 = poly_sin ? ys : 0.0f, ysin1 = poly_sin ? 0.0f : yc;
    float ys_rest = ys - ysin2, yc_rest = yc - ysin1;
    float sv = ysin1 + ysin2, cv = yc_rest + ys_rest;
    *s = u2f(f2u(sv) ^ sign_sin);
    *c = u2f(f2u(cv) ^ sign_cos);
}

/* On x86-64, an AVX2 + FMA clone makes fmaf one instruction (the default clone calls libm's; same
 * bits): torch.randn(10**7) 1.0 s -> 0.6 s (upstream: 0.19 s; the cephes steps are not
 * vectorised yet). */
#if defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
static void normal16_f32(float *x, float mean, float std) {
    const float two_pi = (float)(2.0 * TN_PI);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - x[j];
        float u2 = x[j + 8];
        float radius = sqrtf(-2.0f * cephes_logf(u1));
        float sn, cs;
        cephes_sincosf(two_pi * u2, &sn, &cs);
        x[j] = fmaf(radius * cs, std, mean);
        x[j + 8] = fmaf(radius * sn, std, mean);
    }
}

static void normal16_f64(double *x, double mean, double std) {
    for (int j = 0; j < 8; j++) {
        double u1 = 1.0 - x[j];
        double u2 = x[j + 8];
        double radius = sqrt(-2.0 * log(u1));
        double theta = 2.0 * TN_PI * u2;
        x[j] = fma(radius * cos(theta), std, mean);
        x[j + 8] = fma(radius * sin(theta), std, mean);
    }
}

int tn_rng_normal_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean, double std) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    if (n < 16) return tn_rng_normal_serial_(g, data, n, dt, mean, std);
    if (dt == TN_DTYPE_F64) {
        double *d = data;
        for (int64_t i = 0; i < n; i++) d[i] = u01_f64(g);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal16_f64(d + i, mean, std);
        if (n % 16) {
            d += n - 16;
            for (int i = 0; i < 16; i++) d[i] = u01_f64(g);
            normal16_f64(d, mean, std);
        }
        return 0;
    }
    float fm = (float)mean, fs = (float)std;
    if (dt == TN_DTYPE_F32) {
        float *d = data;
        for (int64_t i = 0; i < n; i++) d[i] = u01_f32(g);
        for (int64_t i = 0; i + 16 <= n; i += 16) normal16_f32(d + i, fm, fs);
        if (n % 16) {
            d += n - 16;
            for (int i = 0; i < 16; i++) d[i] = u01_f32(g);
            normal16_f32(d, fm, fs);
        }
        return 0;
    }
    float buf[16];
    for (int64_t i = 0; i + 16 <= n; i += 16) {
        for (int j = 0; j < 16; j++) buf[j] = u01_f32(g);
        normal16_f32(buf, fm, fs);
        for (int j = 0; j < 16; j++) store_f32_as(data, i + j, dt, buf[j]);
    }
    if (n % 16) {
        for (int j = 0; j < 16; j++) buf[j] = u01_f32(g);
        normal16_f32(buf, fm, fs);
        for (int j = 0; j < 16; j++) store_f32_as(data, n - 16 + j, dt, buf[j]);
    }
    return 0;
}

/* ---- integers ---------------------------------------------------------------------------- */

int tn_rng_random_from_to_(tn_generator *g, void *data, int64_t n, tn_dtype dt, uint64_t range,
                           int64_t base) {
    if (n <= 0) return 0;
    if (!(is_int_dt(dt) || is_uint_wide(dt) || is_float_dt(dt) || dt == TN_DTYPE_BOOL)) return -1;
    if (range == 0) return -1;
    bool wide = range >= (UINT64_C(1) << 28);
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = wide ? tn_generator_random64(g) : (uint64_t)tn_generator_random(g);
        store_i64(data, i, dt, (int64_t)(v % range + (uint64_t)base));
    }
    return 0;
}

int tn_rng_random_full_64_(tn_generator *g, void *data, int64_t n, tn_dtype dt) {
    if (n <= 0) return 0;
    if (!(dt == TN_DTYPE_I64 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F32 || dt == TN_DTYPE_BF16))
        return -1;
    for (int64_t i = 0; i < n; i++) store_i64(data, i, dt, (int64_t)tn_generator_random64(g));
    return 0;
}

int tn_rng_random_(tn_generator *g, void *data, int64_t n, tn_dtype dt) {
    if (n <= 0) return 0;
    uint64_t mod;
    bool wide = false;
    switch (dt) {
    case TN_DTYPE_BOOL: mod = 0; break;
    case TN_DTYPE_U8: mod = UINT64_C(1) << 8; break;
    case TN_DTYPE_I8: mod = UINT64_C(1) << 7; break;
    case TN_DTYPE_I16: mod = UINT64_C(1) << 15; break;
    case TN_DTYPE_I32: mod = UINT64_C(1) << 31; break;
    case TN_DTYPE_I64: mod = UINT64_C(1) << 63; wide = true; break;
    case TN_DTYPE_F32: mod = (UINT64_C(1) << 24) + 1; break;
    case TN_DTYPE_F64: mod = (UINT64_C(1) << 53) + 1; wide = true; break;
    case TN_DTYPE_F16: mod = (UINT64_C(1) << 11) + 1; break;
    case TN_DTYPE_BF16: mod = (UINT64_C(1) << 8) + 1; break;
    default: return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = wide ? tn_generator_random64(g) : (uint64_t)tn_generator_random(g);
        if (dt == TN_DTYPE_BOOL) ((uint8_t *)data)[i] = (uint8_t)(v & 1u);
        else store_i64(data, i, dt, (int64_t)(v % mod));
    }
    return 0;
}

/* ---- bernoulli / exponential -------------------------------------------------------------- */

int tn_rng_bernoulli_scalar_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double p) {
    if (n <= 0) return 0;
    if (!(is_int_dt(dt) || is_float_dt(dt) || dt == TN_DTYPE_BOOL)) return -1;
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, u01_f64(g) < p ? 1.0 : 0.0);
    return 0;
}

int tn_rng_bernoulli_tensor_(tn_generator *g, void *data, int64_t n, tn_dtype dt, const void *p,
                             tn_dtype p_dt) {
    if (n <= 0) return 0;
    if (!(is_int_dt(dt) || is_float_dt(dt) || dt == TN_DTYPE_BOOL) || !is_float_dt(p_dt)) return -1;
    if (p_dt == TN_DTYPE_F64) {
        const double *pp = p;
        for (int64_t i = 0; i < n; i++) store_double(data, i, dt, u01_f64(g) < pp[i] ? 1.0 : 0.0);
    } else {
        for (int64_t i = 0; i < n; i++) {
            float pv = load_as_f32(p, i, p_dt);
            store_double(data, i, dt, u01_f32(g) < pv ? 1.0 : 0.0);
        }
    }
    return 0;
}

static inline double exponential_sample(tn_generator *g, double lambd) {
    double u = u01_f64(g);
    return -1.0 / lambd * log1p(-u);
}

int tn_rng_exponential_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double lambd) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, exponential_sample(g, lambd));
    return 0;
}

int tn_rng_cauchy_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double median, double sigma) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, median + sigma * tan(TN_PI * (u01_f64(g) - 0.5)));
    return 0;
}

int tn_rng_log_normal_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean, double std) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt)) return -1;
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, exp(tn_rng_normal_double(g, mean, std)));
    return 0;
}

int tn_rng_geometric_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double p) {
    if (n <= 0) return 0;
    if (!is_float_dt(dt) && !is_int_dt(dt)) return -1;
    double lp = log1p(-p);
    for (int64_t i = 0; i < n; i++) store_double(data, i, dt, ceil(log(u01_f64(g)) / lp));
    return 0;
}

/* ---- randperm --------------------------------------------------------------------------- */

static inline void swap_elems(char *d, int64_t a, int64_t b, int sz) {
    char tmp[16];
    memcpy(tmp, d + a * sz, (size_t)sz);
    memcpy(d + a * sz, d + b * sz, (size_t)sz);
    memcpy(d + b * sz, tmp, (size_t)sz);
}

int tn_rng_randperm(tn_generator *g, void *data, int64_t n, tn_dtype dt) {
    if (n <= 0) return 0;
    if (!(is_int_dt(dt) || is_uint_wide(dt) || is_float_dt(dt))) return -1;
    char *d = data;
    int sz = tn_dtype_itemsize(dt);
    if (n < (int64_t)(UINT32_MAX / 20)) {
        for (int64_t i = 0; i < n; i++) store_i64(data, i, dt, i);
        for (int64_t i = 0; i < n - 1; i++) {
            int64_t z = (int64_t)(tn_generator_random(g) % (uint64_t)(n - i));
            swap_elems(d, i, z + i, sz);
        }
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t z = (int64_t)(tn_generator_random64(g) % (uint64_t)(i + 1));
        memcpy(d + i * sz, d + z * sz, (size_t)sz);
        store_i64(data, z, dt, i);
    }
    return 0;
}

/* ---- multinomial ------------------------------------------------------------------------ */

size_t tn_rng_multinomial_scratch_bytes(int64_t n_dist, int64_t n_cat, tn_dtype dt) {
    (void)dt;
    /* q (as double) for all rows + (value, index) pairs for one row's top-k */
    return (size_t)(n_dist * n_cat) * sizeof(double) + (size_t)n_cat * 2 * sizeof(double) + 16;
}

typedef struct { double v; int64_t i; } tn_vi;

/* true when a ranks before b: larger first, NaN largest, ties by lower index (a total order) */
static inline bool ranks_before(const tn_vi *a, const tn_vi *b) {
    bool an = isnan(a->v), bn = isnan(b->v);
    if (an != bn) return an;
    if (!an && a->v != b->v) return a->v > b->v;
    return a->i < b->i;
}

/* in-place heap sort into ranking order (no allocation, unlike qsort) */
static void sift_down(tn_vi *h, int64_t root, int64_t n) {
    for (;;) {
        int64_t c = 2 * root + 1;
        if (c >= n) return;
        /* max-heap on "ranks after", so the root is the element ranked last */
        if (c + 1 < n && ranks_before(&h[c], &h[c + 1])) c++;
        if (!ranks_before(&h[root], &h[c])) return;
        tn_vi t = h[root]; h[root] = h[c]; h[c] = t;
        root = c;
    }
}
static void sort_ranked(tn_vi *h, int64_t n) {
    for (int64_t i = n / 2 - 1; i >= 0; i--) sift_down(h, i, n);
    for (int64_t end = n - 1; end > 0; end--) {
        tn_vi t = h[0]; h[0] = h[end]; h[end] = t;
        sift_down(h, 0, end);
    }
}

/* round a value to dt's precision and back */
static inline double round_to(double v, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F64: return v;
    case TN_DTYPE_F32: return (float)v;
    case TN_DTYPE_F16: return tn_f16_to_f32(tn_f32_to_f16((float)v));
    case TN_DTYPE_BF16: return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    default: return v;
    }
}

int tn_rng_multinomial(tn_generator *g, const void *probs, tn_dtype dt, int64_t n_dist,
                       int64_t n_cat, int64_t n_sample, bool replacement, int64_t *out,
                       void *scratch) {
    if (!is_float_dt(dt) || n_cat <= 0) return -1;
    if (replacement && n_sample > 1) {
        double *cum = scratch; /* values held at dt's accumulation precision */
        bool dbl = dt == TN_DTYPE_F64;
        for (int64_t r = 0; r < n_dist; r++) {
            if (dbl) {
                const double *p = (const double *)probs + r * n_cat;
                double sum = 0;
                for (int64_t j = 0; j < n_cat; j++) { sum += p[j]; cum[j] = sum; }
                for (int64_t j = 0; j < n_cat; j++) cum[j] /= sum;
            } else {
                float sum = 0;
                for (int64_t j = 0; j < n_cat; j++) {
                    sum += load_as_f32(probs, r * n_cat + j, dt);
                    cum[j] = sum;
                }
                for (int64_t j = 0; j < n_cat; j++) cum[j] = (float)cum[j] / sum;
            }
            cum[n_cat - 1] = 1.0;
            for (int64_t s = 0; s < n_sample; s++) {
                double u = u01_f64(g);
                int64_t lo = 0, hi = n_cat;
                while (hi - lo > 0) {
                    int64_t mid = lo + (hi - lo) / 2;
                    if (cum[mid] < u) lo = mid + 1;
                    else hi = mid;
                }
                out[r * n_sample + s] = lo;
            }
        }
        return 0;
    }
    /* exponential race: q ~ Exp(1) over every element first, stored in dt */
    int64_t total = n_dist * n_cat;
    double *q = scratch;
    tn_vi *pairs = (tn_vi *)(q + total);
    for (int64_t k = 0; k < total; k++) q[k] = round_to(exponential_sample(g, 1.0), dt);
    for (int64_t k = 0; k < total; k++) {
        double p = load_as_f64(probs, k, dt);
        q[k] = dt == TN_DTYPE_F64 ? p / q[k] : round_to((float)p / (float)q[k], dt);
    }
    for (int64_t r = 0; r < n_dist; r++) {
        const double *row = q + r * n_cat;
        if (n_sample == 1) {
            int64_t best = 0;
            for (int64_t j = 1; j < n_cat; j++) {
                if (isnan(row[best])) break;
                if (isnan(row[j]) || row[j] > row[best]) best = j;
            }
            out[r] = best;
            continue;
        }
        for (int64_t j = 0; j < n_cat; j++) { pairs[j].v = row[j]; pairs[j].i = j; }
        sort_ranked(pairs, n_cat);
        for (int64_t s = 0; s < n_sample; s++) out[r * n_sample + s] = pairs[s].i;
    }
    return 0;
}

/* ---- random_(from, to) argument handling ------------------------------------------------- */

static int float_digits(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_F32: return 24;
    case TN_DTYPE_F64: return 53;
    case TN_DTYPE_F16: return 11;
    case TN_DTYPE_BF16: return 8;
    default: return 0;
    }
}

/* (int64)(T)v: int64 -> dtype (reduced via float) -> int64, x86 semantics for out of range */
static int64_t roundtrip_int(tn_dtype dt, int64_t v) {
    double d;
    switch (dt) {
    case TN_DTYPE_F64: d = (double)v; break;
    case TN_DTYPE_F32: d = (float)v; break;
    case TN_DTYPE_F16: d = tn_f16_to_f32(tn_f32_to_f16((float)v)); break;
    case TN_DTYPE_BF16: d = tn_bf16_to_f32(tn_f32_to_bf16((float)v)); break;
    default: return v;
    }
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)d;
}

static int floor_log2_u64(uint64_t v) {
    int n = 0;
    while (v >>= 1) ++n;
    return n;
}

static int64_t update_from(tn_dtype dt, int64_t from) {
    int64_t fp1 = roundtrip_int(dt, (int64_t)((uint64_t)from + 1));
    if (fp1 < from) {
        int64_t a = (int64_t)((uint64_t)from + 1);
        uint64_t mag = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
        int n = floor_log2_u64(mag);
        from = (int64_t)((uint64_t)fp1 + (UINT64_C(1) << (n - float_digits(dt) + 1)));
    }
    return from;
}

static int64_t update_to(tn_dtype dt, int64_t to) {
    int64_t tm1 = roundtrip_int(dt, (int64_t)((uint64_t)to - 1));
    if (tm1 >= to) {
        int64_t a = (int64_t)((uint64_t)to - 1);
        uint64_t mag = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
        int n = floor_log2_u64(mag);
        to = (int64_t)((uint64_t)tm1 - (UINT64_C(1) << (n - float_digits(dt) + 1)));
    }
    return to;
}

static bool int_limits(tn_dtype dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
    case TN_DTYPE_BOOL: *lo = 0; *hi = 1; return true;
    case TN_DTYPE_U8: *lo = 0; *hi = UINT8_MAX; return true;
    case TN_DTYPE_I8: *lo = INT8_MIN; *hi = INT8_MAX; return true;
    case TN_DTYPE_I16: *lo = INT16_MIN; *hi = INT16_MAX; return true;
    case TN_DTYPE_I32: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case TN_DTYPE_I64: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    case TN_DTYPE_U16: *lo = 0; *hi = UINT16_MAX; return true;
    case TN_DTYPE_U32: *lo = 0; *hi = UINT32_MAX; return true;
    case TN_DTYPE_U64: *lo = 0; *hi = INT64_MAX; return true;
    default: return false;
    }
}

static int check_in_range(tn_dtype dt, int64_t from, int64_t to_inc, tn_rng_bounds *b) {
    int digits = float_digits(dt);
    if (digits) {
        double mx = dt == TN_DTYPE_F64 ? 1.7976931348623157e308
                  : dt == TN_DTYPE_F32 ? 3.4028234663852886e38
                  : dt == TN_DTYPE_F16 ? 65504.0 : 3.3895313892515355e38;
        if (!((double)from >= -mx && (double)from <= mx)) return TN_RNG_BOUNDS_FROM_OOB;
        if (!((double)to_inc >= -mx && (double)to_inc <= mx)) return TN_RNG_BOUNDS_TO_OOB;
        int64_t lim = INT64_C(1) << digits;
        if (from < -lim || from > lim) b->warn |= 1;
        if (to_inc < -lim || to_inc > lim) b->warn |= 2;
        return TN_RNG_BOUNDS_RANGE;
    }
    int64_t lo, hi;
    if (!int_limits(dt, &lo, &hi)) return TN_RNG_BOUNDS_BAD_DTYPE;
    if (from < lo || from > hi) return TN_RNG_BOUNDS_FROM_OOB;
    if (to_inc < lo || to_inc > hi) return TN_RNG_BOUNDS_TO_OOB;
    return TN_RNG_BOUNDS_RANGE;
}

int tn_rng_random_bounds(tn_dtype dt, int64_t from, bool has_to, int64_t to, tn_rng_bounds *b) {
    memset(b, 0, sizeof *b);
    bool fl = float_digits(dt) != 0;
    int64_t lo, hi;
    if (!fl && !int_limits(dt, &lo, &hi)) return TN_RNG_BOUNDS_BAD_DTYPE;
    if (has_to) {
        b->from = from;
        b->to_inc = to;
        if (from >= to) return TN_RNG_BOUNDS_FROM_GE_TO;
        if (fl) {
            from = update_from(dt, from);
            to = update_to(dt, to);
            b->from = from;
            b->to_inc = to;
            if (from >= to) return TN_RNG_BOUNDS_CAST_FROM_GE_TO;
        }
        b->from = from;
        b->to_inc = to - 1;
        int rc = check_in_range(dt, from, to - 1, b);
        if (rc) return rc;
        b->range = (uint64_t)to - (uint64_t)from;
        b->base = from;
        return TN_RNG_BOUNDS_RANGE;
    }
    if (from == INT64_MIN) return TN_RNG_BOUNDS_FULL64;
    int64_t to_inc;
    if (fl) {
        int digits = float_digits(dt);
        to_inc = INT64_C(1) << digits;
        from = update_from(dt, from);
        b->from = from;
        b->to_inc = to_inc;
        if (from >= to_inc) return TN_RNG_BOUNDS_CAST_FROM_GE_TO;
    } else {
        /* upstream casts numeric_limits<uint64_t>::max() to int64 (-1), which then fails the
         * range check: random_(from) on uint64 raises "to - 1 is out of bounds" */
        to_inc = dt == TN_DTYPE_U64 ? -1 : hi;
    }
    b->from = from;
    b->to_inc = to_inc;
    int rc = check_in_range(dt, from, to_inc, b);
    if (rc) return rc;
    b->range = (uint64_t)to_inc - (uint64_t)from + 1;
    b->base = from;
    return TN_RNG_BOUNDS_RANGE;
}

/* ---- gamma, Dirichlet's gammas, Poisson, binomial ------------------------------------------
 * Upstream's CPU kernels (Distributions.cpp / Distributions.h) run one serial loop over the
 * elements, drawing 53-bit double uniforms (uniform_real_distribution<double>) and double normals
 * (normal_distribution<double>: Box-Muller that fills and uses the generator's cached second
 * sample, tn_rng_normal_double). Their arithmetic mixes float literals (1.0f / 3.0f, 0.0331f) and
 * the element type: for float elements some steps run in float, the rest in double. The code
 * below keeps each step in the type upstream's expression has. */

/* Marsaglia-Tsang's acceptance loop of both precisions, d and the small-alpha scale given */
static double gamma_accept(tn_generator *g, double d, double scale) {
    const double c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x, y;
        do {
            x = tn_rng_normal_double(g, 0.0, 1.0);
            y = 1.0 + c * x;
        } while (y <= 0);
        const double v = y * y * y;
        const double u = 1 - u01_f64(g);
        const double xx = x * x;
        if (u < 1.0 - (double)0.0331f * xx * xx) return scale * d * v;
        if (log(u) < 0.5 * xx + d * (1.0 - v + log(v))) return scale * d * v;
    }
}

/* Marsaglia-Tsang with the alpha < 1 boost (one uniform first, pow(1 - u, 1 / alpha)). For float
 * elements alpha, 1 / alpha and alpha - 1/3 are float maths; the rest double. Returns the double
 * before the cast to the element type. */
static double gamma_f32(tn_generator *g, float alpha) {
    double scale = 1.0;
    if (alpha < 1.0f) {
        if (alpha == 0.f) return 0.0;
        scale *= pow(1 - u01_f64(g), (double)(1.0f / alpha));
        alpha += 1.0f;
    }
    const double d = (double)(alpha - 1.0f / 3.0f);
    return gamma_accept(g, d, scale);
}

double tn_rng_gamma_double(tn_generator *g, double alpha) {
    double scale = 1.0;
    if (alpha < 1.0) {
        if (alpha == 0.) return 0.0;
        scale *= pow(1 - u01_f64(g), 1.0 / alpha);
        alpha += 1.0;
    }
    const double d = alpha - (double)(1.0f / 3.0f);
    return gamma_accept(g, d, scale);
}

int tn_rng_standard_gamma_(tn_generator *g, const void *alpha, void *out, int64_t n, tn_dtype dt) {
    if (n <= 0) return 0;
    if (dt == TN_DTYPE_F32) {
        const float *a = alpha;
        float *o = out;
        for (int64_t i = 0; i < n; i++) {
            float s = (float)gamma_f32(g, a[i]);
            o[i] = FLT_MIN < s ? s : FLT_MIN; /* std::max(min, s): NaN gives min */
        }
        return 0;
    }
    if (dt == TN_DTYPE_F64) {
        const double *a = alpha;
        double *o = out;
        for (int64_t i = 0; i < n; i++) {
            double s = tn_rng_gamma_double(g, a[i]);
            o[i] = DBL_MIN < s ? s : DBL_MIN;
        }
        return 0;
    }
    return -1;
}

int tn_rng_dirichlet_gammas(tn_generator *g, const void *alpha, tn_dtype dt, double *out, int64_t n) {
    if (n <= 0) return 0;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64) return -1;
    for (int64_t i = 0; i < n; i++) {
        double s = tn_rng_gamma_double(g, load_as_f64(alpha, i, dt));
        out[i] = DBL_MIN < s ? s : DBL_MIN;
    }
    return 0;
}

/* Numpy's Poisson sampler as upstream's sample_poisson: transformed rejection (Hoermann) for
 * lambda >= 10, multiplication of uniforms below. */
static int64_t poisson_one(tn_generator *g, double lambda) {
    if (lambda >= 10) {
        double slam = sqrt(lambda), loglam = log(lambda);
        double b = 0.931 + 2.53 * slam;
        double a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4);
        double vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double U = u01_f64(g) - 0.5;
            double V = u01_f64(g);
            double us = 0.5 - fabs(U);
            int64_t k = (int64_t)floor((2 * a / us + b) * U + lambda + 0.43);
            if ((us >= 0.07) && (V <= vr)) return k;
            if ((k < 0) || ((us < 0.013) && (V > us))) continue;
            if ((log(V) + log(invalpha) - log(a / (us * us) + b)) <= (-lambda + k * loglam - lgamma((double)k + 1)))
                return k;
        }
    }
    if (lambda == 0) return 0;
    double enlam = exp(-lambda), prod = 1.0;
    int64_t X = 0;
    for (;;) {
        prod *= u01_f64(g);
        if (prod > enlam) X += 1;
        else return X;
    }
}

int64_t tn_rng_poisson_(tn_generator *g, const void *lambda, void *out, int64_t n, tn_dtype dt) {
    if (!is_float_dt(dt)) return -1;
    for (int64_t i = 0; i < n; i++) {
        double l = load_as_f64(lambda, i, dt);
        if (!(l >= 0)) return i;
        store_i64(out, i, dt, poisson_one(g, l));
    }
    return n;
}

/* Binomial as upstream's sample_binomial<scalar_t, double> (TensorFlow's BTRS and inversion):
 * T is the element type; expressions of two T operands stay in T (sqrt, floor and log1p of a T
 * are T's), the rest is double. */
static double stirling_tail(double k) {
    static const double tail[] = {0.0810614667953272, 0.0413406959554092, 0.0276779256849983,
                                  0.02079067210376509, 0.0166446911898211, 0.0138761288230707,
                                  0.0118967099458917, 0.0104112652619720, 0.00925546218271273,
                                  0.00833056343336287};
    if (k <= 9) return tail[(size_t)k];
    double kp1sq = (k + 1) * (k + 1);
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

#define TN_BINOMIAL_DEFS(T, SFX, SQRT, FLOOR, LOG1P)                                                  \
    static T binomial_inversion_##SFX(tn_generator *g, T count, T prob) {                            \
        double geom_sum = 0;                                                                         \
        T num_geom = 0;                                                                              \
        double logprob = LOG1P(-prob);                                                               \
        for (;;) {                                                                                   \
            double U = u01_f64(g);                                                                   \
            double geom = ceil(log(U) / logprob);                                                    \
            geom_sum += geom;                                                                        \
            if (geom_sum > count) break;                                                             \
            num_geom = num_geom + 1;                                                                 \
        }                                                                                            \
        return num_geom;                                                                             \
    }                                                                                                \
    static T btrs_##SFX(tn_generator *g, T count, T prob) {                                          \
        const double stddev = SQRT(count * prob * (1 - prob));                                       \
        const double b = 1.15 + 2.53 * stddev;                                                       \
        const double a = -0.0873 + 0.0248 * b + 0.01 * prob;                                         \
        const double c = count * prob + 0.5;                                                         \
        const double v_r = 0.92 - 4.2 / b;                                                           \
        const double r = prob / (1 - prob);                                                          \
        const double alpha = (2.83 + 5.1 / b) * stddev;                                              \
        const double m = FLOOR((count + 1) * prob);                                                  \
        for (;;) {                                                                                   \
            double U = u01_f64(g) - 0.5;                                                             \
            double V = u01_f64(g);                                                                   \
            double us = 0.5 - fabs(U);                                                               \
            T k = (T)floor((2 * a / us + b) * U + c);                                                \
            if (k < 0 || k > count) continue;                                                        \
            if (us >= 0.07 && V <= v_r) return k;                                                    \
            V = log(V * alpha / (a / (us * us) + b));                                                \
            double upperbound = ((m + 0.5) * log((m + 1) / (r * (count - m + 1))) +                  \
                                 (count + 1) * log((count - m + 1) / (count - k + 1)) +              \
                                 (k + 0.5) * log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) + \
                                 stirling_tail(count - m) - stirling_tail(k) -                       \
                                 stirling_tail(count - k));                                          \
            if (V <= upperbound) return k;                                                           \
        }                                                                                            \
    }                                                                                                \
    static T binomial_##SFX(tn_generator *g, T count, T prob) {                                      \
        if (count <= 0.0 || prob <= 0.0) return 0;                                                   \
        if (prob >= 1.0) return count;                                                               \
        if (prob <= 0.5) {                                                                           \
            if (count * prob >= 10.0) return btrs_##SFX(g, count, prob);                             \
            return binomial_inversion_##SFX(g, count, prob);                                         \
        }                                                                                            \
        if (prob > 0.5) {                                                                            \
            T qprob = (T)(1.0 - prob);                                                               \
            if (count * qprob >= 10.0) return count - btrs_##SFX(g, count, qprob);                   \
            return count - binomial_inversion_##SFX(g, count, qprob);                                \
        }                                                                                            \
        return (T)NAN;                                                                               \
    }
TN_BINOMIAL_DEFS(float, f32, sqrtf, floorf, log1pf)
TN_BINOMIAL_DEFS(double, f64, sqrt, floor, log1p)

int tn_rng_binomial_(tn_generator *g, const void *count, const void *prob, void *out, int64_t n, tn_dtype dt) {
    if (n <= 0) return 0;
    if (dt == TN_DTYPE_F32) {
        const float *c = count, *p = prob;
        float *o = out;
        for (int64_t i = 0; i < n; i++) o[i] = binomial_f32(g, c[i], p[i]);
        return 0;
    }
    if (dt == TN_DTYPE_F64) {
        const double *c = count, *p = prob;
        double *o = out;
        for (int64_t i = 0; i < n; i++) o[i] = binomial_f64(g, c[i], p[i]);
        return 0;
    }
    return -1;
}
