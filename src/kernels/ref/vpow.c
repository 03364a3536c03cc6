/* vpow.c — pow as upstream's vectorised CPU kernels compute it (docs/pow_bits.md).
 *
 * Upstream's float32 / float64 pow (pow.Tensor_Scalar with an exponent other than 2, 3, -2, 0.5,
 * -0.5, -1, and pow.Tensor_Tensor) runs the vector body of a contiguous run through the Sleef
 * library's 1-ulp pow (the AVX2 and AVX-512 builds compute the same bits), and the scalar tail
 * through the C library. This file evaluates the same algorithm one lane at a time: log|x| in
 * double-float (a float pair) arithmetic, times y, exp of the pair, then the IEEE special cases.
 * Every step is written with the same operations (fused multiply-adds where the vector code uses
 * them), so the result has the vector code's bits. No Python, no allocation. */
#include "kernels/vmath.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- float pairs: value x + y, |y| <= ulp(x) / 2 ---- */
typedef struct { float x, y; } fpair;

static inline float f_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t bits_f(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static inline fpair fp(float x, float y) { fpair r = {x, y}; return r; }
/* exact sum of two floats */
static inline fpair fp_add2_ff(float x, float y) {
    float s = x + y, v = s - x;
    return fp(s, (x - (s - v)) + (y - v));
}
static inline fpair fp_add2_pf(fpair x, float y) {
    float s = x.x + y, v = s - x.x;
    return fp(s, ((x.x - (s - v)) + (y - v)) + x.y);
}
static inline fpair fp_add2_pp(fpair x, fpair y) {
    float s = x.x + y.x, v = s - x.x;
    float t = (x.x - (s - v)) + (y.x - v);
    return fp(s, t + (x.y + y.y));
}
/* |x| >= |y| */
static inline fpair fp_add_pp(fpair x, fpair y) {
    float s = x.x + y.x;
    return fp(s, (((x.x - s) + y.x) + x.y) + y.y);
}
static inline fpair fp_add_fp(float x, fpair y) {
    float s = x + y.x;
    return fp(s, ((x - s) + y.x) + y.y);
}
static inline fpair fp_scale(fpair d, float s) { return fp(d.x * s, d.y * s); }
static inline fpair fp_normalize(fpair t) {
    float s = t.x + t.y;
    return fp(s, (t.x - s) + t.y);
}
static inline fpair fp_mul_pf(fpair x, float y) {
    float s = x.x * y;
    return fp(s, fmaf(x.y, y, fmaf(x.x, y, -s)));
}
static inline fpair fp_mul_pp(fpair x, fpair y) {
    float s = x.x * y.x;
    return fp(s, fmaf(x.x, y.y, fmaf(x.y, y.x, fmaf(x.x, y.x, -s))));
}
static inline fpair fp_squ(fpair x) {
    float s = x.x * x.x;
    return fp(s, fmaf(x.x + x.x, x.y, fmaf(x.x, x.x, -s)));
}
static inline fpair fp_div(fpair n, fpair d) {
    float t = 1.0f / d.x, s = n.x * t;
    float u = fmaf(t, n.x, -s);
    float v = fmaf(-d.y, t, fmaf(-d.x, t, 1.0f));
    return fp(s, fmaf(s, v, fmaf(n.y, t, u)));
}

/* cvtps2dq: round to nearest even; out of range and NaN give INT32_MIN */
static inline int32_t f_rint_i32(float v) {
    if (!(v > -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
    return (int32_t)nearbyintf(v);
}
/* cvttps2dq: truncation, INT32_MIN out of range */
static inline int32_t f_trunc_i32(float v) {
    if (!(v > -2147483648.0f && v < 2147483648.0f)) return INT32_MIN;
    return (int32_t)v;
}

/* x * 2^q in the vector code's steps (four multiplies by a clamped power, then the rest) */
static float f_ldexp(float x, int32_t q) {
    uint32_t uq = (uint32_t)q;
    int32_t m = q < 0 ? -1 : 0;
    m = (int32_t)((uint32_t)((((int32_t)(uq + (uint32_t)m)) >> 6) - m) << 4);
    q = (int32_t)(uq - ((uint32_t)m << 2));
    m = m + 0x7f;
    if (!(m > 0)) m = 0;
    if (m > 0xff) m = 0xff;
    float u = f_bits((uint32_t)m << 23);
    x = ((x * u) * u * u) * u;
    return x * f_bits((uint32_t)(q + 0x7f) << 23);
}

/* log(d) for d >= 0 as a float pair (the AVX-512 form: exponent and mantissa in [0.75, 1.5)) */
static fpair f_logk(float d) {
    float e, m;
    float p = d * (1.0f / 0.75f);
    if (p == 0) e = -INFINITY;
    else if (isinf(p)) e = 128.0f;
    else if (isnan(p)) e = p;
    else e = (float)ilogbf(p);
    if (d == 0 || isinf(d) || isnan(d)) {
        m = isnan(d) ? d : d == 0 ? 0.0f : d;   /* getmant: 0 -> 0, inf -> 1 (unused: special-cased) */
        if (isinf(d)) m = 1.0f;
    } else {
        m = ldexpf(d, -ilogbf(d));               /* [1, 2) */
        if (m >= 1.5f) m *= 0.5f;
    }
    fpair x = fp_div(fp_add2_ff(-1.0f, m), fp_add2_ff(1.0f, m));
    fpair x2 = fp_squ(x);
    float t = 0.240320354700088500976562f;
    t = fmaf(t, x2.x, 0.285112679004669189453125f);
    t = fmaf(t, x2.x, 0.400007992982864379882812f);
    fpair c = fp(0.66666662693023681640625f, 3.69183861259614332084311e-09f);
    fpair s = fp_mul_pf(fp(0.69314718246459960938f, -1.904654323148236017e-09f), e);
    s = fp_add_pp(s, fp_scale(x, 2.0f));
    s = fp_add_pp(s, fp_mul_pp(fp_mul_pp(x2, x), fp_add2_pp(fp_mul_pf(x2, t), c)));
    return s;
}

static float f_expk(fpair d) {
    const float R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931f;
    const float L2U = 0.693145751953125f, L2L = 1.428606765330187045e-06f;
    float u = (d.x + d.y) * R_LN2;
    int32_t q = f_rint_i32(u);
    fpair s = fp_add2_pf(d, (float)q * -L2U);
    s = fp_add2_pf(s, (float)q * -L2L);
    s = fp_normalize(s);
    u = 0.00136324646882712841033936f;
    u = fmaf(u, s.x, 0.00836596917361021041870117f);
    u = fmaf(u, s.x, 0.0416710823774337768554688f);
    u = fmaf(u, s.x, 0.166665524244308471679688f);
    u = fmaf(u, s.x, 0.499999850988388061523438f);
    fpair t = fp_add_pp(s, fp_mul_pf(fp_squ(s), u));
    t = fp_add_fp(1.0f, t);
    u = f_ldexp(t.x + t.y, q);
    if (d.x < -104) u = 0.0f;
    return u;
}

static inline float f_mulsign(float x, float y) { return f_bits(bits_f(x) ^ (bits_f(y) & 0x80000000u)); }

float tn_vpow_f32(float x, float y) {
    bool yisint = truncf(y) == y || fabsf(y) > (float)(1 << 24);
    bool yisodd = (f_trunc_i32(y) & 1) == 1 && yisint && fabsf(y) < (float)(1 << 24);
    float r = f_expk(fp_mul_pf(f_logk(fabsf(x)), y));
    if (isnan(r)) r = INFINITY;
    r *= x > 0 ? 1.0f : !yisint ? NAN : yisodd ? -1.0f : 1.0f;
    float efx = f_mulsign(fabsf(x) - 1.0f, y);
    if (isinf(y)) r = efx < 0 ? 0.0f : efx == 0 ? 1.0f : INFINITY;
    if (isinf(x) || x == 0) r = f_mulsign((signbit(y) != 0) != (x == 0) ? 0.0f : INFINITY, yisodd ? x : 1.0f);
    if (isnan(x) || isnan(y)) r = f_bits(0xffffffffu);
    if (y == 0 || x == 1) r = 1.0f;
    return r;
}

/* ---- double pairs ---- */
typedef struct { double x, y; } dpair;

static inline double d_bits(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline uint64_t bits_d(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static inline dpair dp(double x, double y) { dpair r = {x, y}; return r; }
static inline dpair dp_add2_ff(double x, double y) {
    double s = x + y, v = s - x;
    return dp(s, (x - (s - v)) + (y - v));
}
static inline dpair dp_add2_pf(dpair x, double y) {
    double s = x.x + y, v = s - x.x;
    return dp(s, ((x.x - (s - v)) + (y - v)) + x.y);
}
static inline dpair dp_add_pp(dpair x, dpair y) {   /* |x| >= |y| */
    double s = x.x + y.x;
    return dp(s, (((x.x - s) + y.x) + x.y) + y.y);
}
static inline dpair dp_add_fp(double x, dpair y) {
    double s = x + y.x;
    return dp(s, ((x - s) + y.x) + y.y);
}
static inline dpair dp_scale(dpair d, double s) { return dp(d.x * s, d.y * s); }
static inline dpair dp_normalize(dpair t) {
    double s = t.x + t.y;
    return dp(s, (t.x - s) + t.y);
}
static inline dpair dp_mul_pf(dpair x, double y) {
    double s = x.x * y;
    return dp(s, fma(x.y, y, fma(x.x, y, -s)));
}
static inline dpair dp_mul_pp(dpair x, dpair y) {
    double s = x.x * y.x;
    return dp(s, fma(x.x, y.y, fma(x.y, y.x, fma(x.x, y.x, -s))));
}
static inline dpair dp_squ(dpair x) {
    double s = x.x * x.x;
    return dp(s, fma(x.x + x.x, x.y, fma(x.x, x.x, -s)));
}
static inline dpair dp_div(dpair n, dpair d) {
    double t = 1.0 / d.x, s = n.x * t;
    double u = fma(t, n.x, -s);
    double v = fma(-d.y, t, fma(-d.x, t, 1.0));
    return dp(s, fma(s, v, fma(n.y, t, u)));
}

/* cvtpd2dq rounding to nearest even: INT32_MIN out of range and for NaN */
static inline int32_t d_rint_i32(double v) {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
    return (int32_t)nearbyint(v);
}
/* 2^q from exponent bits, the integer add wrapping as the vector code's */
static inline double d_pow2i(int32_t q) { return d_bits((uint64_t)(uint32_t)((uint32_t)q + 0x3ffu) << 52); }
static inline double d_ldexp2(double d, int32_t e) {
    int32_t h = e >> 1;
    return (d * d_pow2i(h)) * d_pow2i((int32_t)((uint32_t)e - (uint32_t)h));
}

/* polynomial pieces in Estrin's order: c1 z + c0, then pairs of those by z^2 */
static inline double est2(double z, double c1, double c0) { return fma(z, c1, c0); }
static inline double est4(double z, double z2, double c3, double c2, double c1, double c0) {
    return fma(z2, est2(z, c3, c2), est2(z, c1, c0));
}
static inline double est8(double z, double z2, double z4, const double *c) {   /* c[0] highest */
    return fma(z4, est4(z, z2, c[0], c[1], c[2], c[3]), est4(z, z2, c[4], c[5], c[6], c[7]));
}

static dpair d_logk(double d) {
    static const double lc[9] = {0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
                                 0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
                                 0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612};
    double e, m;
    double p = d * (1.0 / 0.75);
    if (p == 0) e = -INFINITY;
    else if (isinf(p)) e = 1024.0;
    else if (isnan(p)) e = p;
    else e = (double)ilogb(p);
    if (isnan(d)) m = d;
    else if (isinf(d)) m = 1.0;
    else if (d == 0) m = 0.0;
    else {
        m = ldexp(d, -ilogb(d));                 /* [1, 2) */
        if (m >= 1.5) m *= 0.5;
    }
    dpair x = dp_div(dp_add2_ff(-1.0, m), dp_add2_ff(1.0, m));
    dpair x2 = dp_squ(x);
    double z = x2.x, z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
    double t = fma(z8, lc[0], est8(z, z2, z4, lc + 1));
    dpair c = dp(0.666666666666666629659233, 3.80554962542412056336616e-17);
    dpair s = dp_mul_pf(dp(0.693147180559945286226764, 2.319046813846299558417771e-17), e);
    s = dp_add_pp(s, dp_scale(x, 2.0));
    x = dp_mul_pp(x2, x);
    s = dp_add_pp(s, dp_mul_pp(x, c));
    x = dp_mul_pp(x2, x);
    s = dp_add_pp(s, dp_mul_pf(x, t));
    return s;
}

static double d_expk(dpair d) {
    static const double ec[8] = {2.75572496725023574143864e-06, 2.48014973989819794114153e-05, 0.000198412698809069797676111,
                                 0.0013888888939977128960529, 0.00833333333332371417601081, 0.0416666666665409524128449,
                                 0.166666666666666740681535, 0.500000000000000999200722};
    const double R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931;
    const double L2U = .69314718055966295651160180568695068359375, L2L = .28235290563031577122588448175013436025525412068e-12;
    double u = (d.x + d.y) * R_LN2;
    double dq = nearbyint(u);
    int32_t q = d_rint_i32(dq);
    dpair s = dp_add2_pf(d, dq * -L2U);
    s = dp_add2_pf(s, dq * -L2L);
    s = dp_normalize(s);
    double z = s.x, z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
    u = fma(z8, est2(z, 2.51069683420950419527139e-08, 2.76286166770270649116855e-07), est8(z, z2, z4, ec));
    dpair t = dp_add_fp(1.0, s);
    t = dp_add_pp(t, dp_mul_pf(dp_squ(s), u));
    u = d_ldexp2(t.x + t.y, q);
    if (d.x < -1000) u = 0.0;
    return u;
}

static inline double d_mulsign(double x, double y) { return d_bits(bits_d(x) ^ (bits_d(y) & 0x8000000000000000ull)); }

double tn_vpow_f64(double x, double y) {
    bool yisint = nearbyint(y) == y;
    bool yisodd = nearbyint(y * 0.5) != y * 0.5 && yisint;
    dpair d = dp_mul_pf(d_logk(fabs(x)), y);
    double r = d_expk(d);
    if (d.x > 0x1.62e42fefa39efp+9) r = INFINITY;
    r *= x > 0 ? 1.0 : !yisint ? NAN : yisodd ? -1.0 : 1.0;
    double efx = d_mulsign(fabs(x) - 1.0, y);
    if (isinf(y)) r = efx < 0 ? 0.0 : efx == 0 ? 1.0 : INFINITY;
    if (isinf(x) || x == 0) r = d_mulsign((signbit(y) != 0) != (x == 0) ? 0.0 : INFINITY, yisodd ? x : 1.0);
    if (isnan(x) || isnan(y)) r = d_bits(0xffffffffffffffffull);
    if (y == 0 || x == 1) r = 1.0;
    return r;
}

/* Elements of a contiguous run upstream's vector loop covers: two vectors per step (16 floats
 * per AVX-512 vector, 8 per AVX2 one), the rest is the scalar tail. The vector width is the one
 * the vector-math kernels pick (tn_vm_isa: the CPU's, TN_VEXP=avx2 forces AVX2's). */
int64_t tn_vpow_body(int64_t n, int itemsize) {
    int lanes_bytes = tn_vm_isa() == 2 ? 64 : 32;
    int64_t step = 2 * lanes_bytes / itemsize;
    return n - n % step;
}
