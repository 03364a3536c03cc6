/* vmath_body.h — the f32 transcendental activations of kernels/vmath.h, written once over GNU C
 * vectors of VM_W doubles and compiled three times: portable (kernels/vmath.c), AVX-512 and
 * AVX2 (kernels/x86/vmath_avx512.c, vmath_avx2.c; chosen at run time by vmath.c).
 *
 * The including file defines VM_W (lanes), VM_SFX (name suffix), VM_ATTR (function attributes:
 * the target ISA) and VM_GATHER(table, index vector). Every lane runs the same IEEE double
 * multiplies, adds, fused multiply-adds (VM_FMAD / VM_FMAF: one instruction in the ISA bodies,
 * fma() per lane in the portable one) and one f32 division, never contracted otherwise (ISO C
 * mode), so all variants return the same bits.
 *
 * The double-lane functions (exp, log, tanh, gelu_tanh backward) widen each f32 input to double,
 * evaluate with about 1e-11 relative error and round to f32 once: within 0.501 ulp wherever the
 * exact value is a normal or subnormal f32 (measured: tools/ulp_sweep.py; upstream's MKL/Sleef
 * kernels measure 0.56 ulp for exp, 0.88 log, 0.51 tanh). The f32-lane functions (further down)
 * serve the sigmoid family and gelu. Special values (inf, NaN, -0, underflow, overflow) follow
 * upstream 2.13's results, measured. A NaN input comes back as itself (x before g): which of two
 * NaN operands an instruction propagates depends on the compiler's operand order, so the
 * wrappers pick it explicitly to keep the variants' bits equal.
 *
 *   exp(r), |r| <= ln2/2: Taylor to r^9; 2^n through the exponent bits; below -110 exactly 0.
 *   expm1 the same with the r + r^2 q(r) form (no cancellation for small r).
 *   log: x = 2^e m, m in [1, 2); m * c_i - 1 = r is exact (c_i ~ 1/(1 + i/128) with 20 bits),
 *        log x = e ln2 - log c_i + log1p(r), log1p by its series to r^7 (|r| < 2^-7).
 *   1/d for d in [1, 2]: the f32 quotient then one Newton step in double (2^-47).
 *   (Phi, gelu's normal cdf, is in the f32 section below.) */

extern const double tn_vm_logc[128], tn_vm_logl[128];

typedef double vm_d __attribute__((vector_size(VM_W * 8)));
typedef long long vm_l __attribute__((vector_size(VM_W * 8)));
typedef float vm_f __attribute__((vector_size(VM_W * 4)));

#define VM_CAT2(a, b) a##b
#define VM_CAT(a, b) VM_CAT2(a, b)
#define VM_NAME(n) VM_CAT(n, VM_SFX)
#define VM_IN static inline __attribute__((always_inline)) VM_ATTR

#define VM_MAGIC 0x1.8p52
#define VM_LOG2E 0x1.71547652b82fep0
#define VM_LN2HI 0x1.62e42fee00000p-1
#define VM_LN2LO 0x1.a39ef35793c76p-33
#define VM_SIGN ((long long)0x8000000000000000ULL)
#define VM_ABS ((long long)0x7fffffffffffffffULL)

VM_IN vm_d vm_splat(double c) { return (vm_d){0} + c; }
VM_IN vm_d vm_sel(vm_l m, vm_d a, vm_d b) { return (vm_d)((m & (vm_l)a) | (~m & (vm_l)b)); }
VM_IN vm_d vm_fabs(vm_d x) { return (vm_d)((vm_l)x & VM_ABS); }

/* exp of x in [-113, 89] (or NaN): Taylor to r^9 with fused multiply-adds (VM_FMAD) */
VM_IN vm_d vm_exp_core(vm_d x) {
    vm_d t = VM_FMAD(x, vm_splat(VM_LOG2E), vm_splat(VM_MAGIC));
    vm_d nd = t - VM_MAGIC;
    vm_l n = (vm_l)t - (vm_l)vm_splat(VM_MAGIC);
    vm_d r = VM_FMAD(nd, vm_splat(-VM_LN2HI), x);
    r = VM_FMAD(nd, vm_splat(-VM_LN2LO), r);
    vm_d p = VM_FMAD(r, vm_splat(0x1.71de3a556c734p-19), vm_splat(0x1.a01a01a01a01ap-16)); /* 1/9!, 1/8! */
    p = VM_FMAD(p, r, vm_splat(0x1.a01a01a01a01ap-13));
    p = VM_FMAD(p, r, vm_splat(0x1.6c16c16c16c17p-10));
    p = VM_FMAD(p, r, vm_splat(0x1.1111111111111p-7));
    p = VM_FMAD(p, r, vm_splat(0x1.5555555555555p-5));
    p = VM_FMAD(p, r, vm_splat(0x1.5555555555555p-3));
    p = VM_FMAD(p, r, vm_splat(0.5));
    p = VM_FMAD(p, r, vm_splat(1.0));
    p = VM_FMAD(p, r, vm_splat(1.0));
    vm_d s = (vm_d)((n + 1023) << 52);
    return p * s;
}

/* expm1 of z in [-40, 0] (or NaN) */
VM_IN vm_d vm_expm1_core(vm_d z) {
    vm_d t = VM_FMAD(z, vm_splat(VM_LOG2E), vm_splat(VM_MAGIC));
    vm_d nd = t - VM_MAGIC;
    vm_l n = (vm_l)t - (vm_l)vm_splat(VM_MAGIC);
    vm_d r = VM_FMAD(nd, vm_splat(-VM_LN2HI), z);
    r = VM_FMAD(nd, vm_splat(-VM_LN2LO), r);
    vm_d q = VM_FMAD(r, vm_splat(0x1.71de3a556c734p-19), vm_splat(0x1.a01a01a01a01ap-16)); /* 1/9!, 1/8! */
    q = VM_FMAD(q, r, vm_splat(0x1.a01a01a01a01ap-13));
    q = VM_FMAD(q, r, vm_splat(0x1.6c16c16c16c17p-10));
    q = VM_FMAD(q, r, vm_splat(0x1.1111111111111p-7));
    q = VM_FMAD(q, r, vm_splat(0x1.5555555555555p-5));
    q = VM_FMAD(q, r, vm_splat(0x1.5555555555555p-3));
    q = VM_FMAD(q, r, vm_splat(0.5));
    vm_d p = VM_FMAD(r * r, q, r);
    vm_d s = (vm_d)((n + 1023) << 52);
    return VM_FMAD(s, p, s - 1.0);
}

/* 1 / d for d in [1, 2] (or NaN) */
VM_IN vm_d vm_rcp(vm_d d) {
    vm_f qf = 1.0f / __builtin_convertvector(d, vm_f);
    vm_d y = __builtin_convertvector(qf, vm_d);
    return y + y * (1.0 - d * y);
}

/* sigmoid pieces: e = exp(-|x|) (0 beyond 110), q = 1 / (1 + e); sigmoid = x < 0 ? e q : q */
typedef struct { vm_d s, oms; } vm_sig;
VM_IN vm_sig vm_sigmoid2(vm_d x) {
    vm_d a = vm_fabs(x);
    vm_l big = (vm_l)(a > 110.0);
    vm_d e = vm_exp_core(-vm_sel(big, vm_splat(110.0), a));
    e = vm_sel(big, vm_splat(0.0), e);
    vm_d q = vm_rcp(1.0 + e), eq = e * q;
    vm_l neg = (vm_l)(x < 0.0);
    vm_sig r = {vm_sel(neg, eq, q), vm_sel(neg, q, eq)};
    return r;
}

VM_IN vm_d vm_exp_d(vm_d x) {
    vm_d xc = vm_sel((vm_l)(x > 89.0), vm_splat(89.0), x);
    vm_l small = (vm_l)(xc < -110.0);
    vm_d e = vm_exp_core(vm_sel(small, vm_splat(-110.0), xc));
    return vm_sel(small, vm_splat(0.0), e);
}

VM_IN vm_d vm_log_d(vm_d x) {
    vm_l b = (vm_l)x;
    vm_l e = (b >> 52) - 1023;
    vm_d ed = (vm_d)(e + (vm_l)vm_splat(VM_MAGIC)) - VM_MAGIC;
    vm_l i = (b >> 45) & 127;
    vm_d m = (vm_d)((b & 0x000fffffffffffffLL) | 0x3ff0000000000000LL);
    vm_d c = VM_GATHER(tn_vm_logc, i), L = VM_GATHER(tn_vm_logl, i);
    vm_d r = m * c - 1.0;
    vm_d q = VM_FMAD(r, vm_splat(1.0 / 7), vm_splat(-1.0 / 6));
    q = VM_FMAD(q, r, vm_splat(0.2));
    q = VM_FMAD(q, r, vm_splat(-0.25));
    q = VM_FMAD(q, r, vm_splat(1.0 / 3));
    q = VM_FMAD(q, r, vm_splat(-0.5));
    vm_d p = VM_FMAD(r * r, q, r);
    vm_d res = (ed * VM_LN2HI + L) + (p + ed * VM_LN2LO);
    res = vm_sel((vm_l)(x == 0.0), vm_splat(-__builtin_inf()), res);
    res = vm_sel((vm_l)(x < 0.0), vm_splat(__builtin_nan("")), res);
    res = vm_sel((vm_l)(x == __builtin_inf()), x, res);
    return vm_sel((vm_l)(x != x), x, res);
}

VM_IN vm_d vm_tanh_d(vm_d x) {
    vm_d a = vm_fabs(x);
    a = vm_sel((vm_l)(a > 20.0), vm_splat(20.0), a);
    vm_d em = vm_expm1_core(-2.0 * a);
    vm_d t = em * vm_rcp(em + 2.0);
    return (vm_d)(((vm_l)t & VM_ABS) | ((vm_l)x & VM_SIGN));
}


/* gelu_tanh backward in double lanes: its f32 form loses all accuracy next to the derivative's
 * zero (x ~ -0.75) by more than upstream's does (measured: tools/ulp_sweep.py) */
#define VM_GK 0x1.9884533d43651p-1 /* sqrt(2 / pi) */
VM_IN vm_d vm_gelu_tanh_bw_d(vm_d g, vm_d x) {
    vm_d u = VM_GK * (x + 0.044715 * (x * x * x));
    vm_sig s = vm_sigmoid2(2.0 * u);
    vm_d du = VM_GK * (1.0 + (3 * 0.044715) * (x * x));
    vm_d r = g * (s.s + 2.0 * x * s.s * s.oms * du);
    /* upstream's f32 x * x overflows from here on, and 0 * inf makes its result NaN */
    return vm_sel((vm_l)(x * x >= 0x1.ffffffp127), vm_splat(__builtin_nan("")), r);
}

/* ---- f32 lanes (2 * VM_W floats) for the sigmoid family: sigmoid, silu, gelu_tanh and their
 * backwards. Upstream's kernels for these lose all relative accuracy in their underflowing tails
 * (millions of ulps, measured), so f32 arithmetic with fused multiply-adds (VM_FMAF: one
 * instruction in the ISA bodies, fmaf() per lane in the portable one: the same bits) does as well
 * at twice the speed of double lanes: exp(x <= 0) by Cody-Waite reduction and Cephes' degree-7
 * polynomial (about 1 ulp; subnormal results rounded once from 2^n scaled in two steps; 0 below
 * -104), one
 * division for 1 / (1 + e). */
typedef float vm_s __attribute__((vector_size(VM_W * 8)));
typedef int vm_i __attribute__((vector_size(VM_W * 8)));

VM_IN vm_s vm_ssplat(float c) { return (vm_s){0} + c; }
VM_IN vm_s vm_ssel(vm_i m, vm_s a, vm_s b) { return (vm_s)((m & (vm_i)a) | (~m & (vm_i)b)); }

/* exp(x) for x <= 0 or NaN */
VM_IN vm_s vm_expf_neg(vm_s x) {
    vm_i small = (vm_i)(x < -104.0f);
    vm_s xc = vm_ssel(small, vm_ssplat(-104.0f), x);
    vm_s t = xc * 1.44269504088896341f + 0x1.8p23f;
    vm_s nf = t - 0x1.8p23f;
    vm_i n = (vm_i)t - (vm_i)vm_ssplat(0x1.8p23f);
    vm_s r = VM_FMAF(nf, vm_ssplat(-0.693359375f), xc);
    r = VM_FMAF(nf, vm_ssplat(2.12194440e-4f), r);
    vm_s p = VM_FMAF(r, vm_ssplat(1.9875691500e-4f), vm_ssplat(1.3981999507e-3f));
    p = VM_FMAF(p, r, vm_ssplat(8.3334519073e-3f));
    p = VM_FMAF(p, r, vm_ssplat(4.1665795894e-2f));
    p = VM_FMAF(p, r, vm_ssplat(1.6666665459e-1f));
    p = VM_FMAF(p, r, vm_ssplat(5.0000001201e-1f));
    p = VM_FMAF(p, r * r, r) + 1.0f;
    vm_i h = n >> 1; /* 2^n as two normal factors: n reaches -150 */
    vm_s s1 = (vm_s)((h + 127) << 23), s2 = (vm_s)((n - h + 127) << 23);
    return vm_ssel(small, vm_ssplat(0.0f), p * s1 * s2);
}

typedef struct { vm_s s, oms; } vm_sigf;
VM_IN vm_sigf vm_sigmoid2f(vm_s x) {
    vm_s a = (vm_s)((vm_i)x & 0x7fffffff);
    vm_s e = vm_expf_neg(-a);
    vm_s q = 1.0f / (1.0f + e), eq = e * q;
    vm_i neg = (vm_i)(x < 0.0f);
    vm_sigf r = {vm_ssel(neg, eq, q), vm_ssel(neg, q, eq)};
    return r;
}

VM_IN vm_s vm_sigmoid_s(vm_s x) { return vm_sigmoid2f(x).s; }
VM_IN vm_s vm_silu_s(vm_s x) { return x * vm_sigmoid2f(x).s; }
VM_IN vm_s vm_silu_bw_s(vm_s g, vm_s x) {
    vm_sigf s = vm_sigmoid2f(x);
    return g * s.s * (1.0f + x * s.oms);
}
VM_IN vm_s vm_gelu_tanh_s(vm_s x) {
    vm_s u = 0.797884560802865f * (x + 0.044715f * (x * x * x));
    return x * vm_sigmoid2f(2.0f * u).s;
}
VM_IN vm_s vm_gelu_tanh_bw_s(vm_s g, vm_s x) {
    vm_s u = 0.797884560802865f * (x + 0.044715f * (x * x * x));
    vm_sigf s = vm_sigmoid2f(2.0f * u);
    vm_s du = 0.797884560802865f * (1.0f + 0.134145f * (x * x));
    return g * (s.s + 2.0f * x * s.s * s.oms * du);
}

/* Phi(x) (gelu's normal cdf) and exp(-x^2/2) in f32: Phi(-a) = 0.5 - a P(a^2) below a = 1.5,
 * exp(-a^2/2) R(1/(1 + a/2)) above (least-squares fits on Chebyshev nodes against mpmath, degree 6
 * and 9; 2e-7 and 3e-8 relative with f32 coefficients), a^2 split exactly with an FMA so the
 * exponential's argument carries no rounding. */
typedef struct { vm_s cdf, ex; } vm_normf;
VM_IN vm_normf vm_normalf(vm_s x) {
    static const float GP[] = {3.352419734e-01f, -5.396576598e-02f, 8.508788422e-03f, -1.097067958e-03f,
                               1.171329714e-04f, -1.070482267e-05f, 8.381133512e-07f};
    static const float GR[] = {9.888562560e-02f, 8.865385503e-02f, 1.770871319e-02f, 9.431135259e-04f,
                               -3.939296294e-04f, -3.483427281e-05f, 1.875394992e-05f, 2.760322104e-07f,
                               -1.006853495e-06f, 1.040871496e-07f};
    vm_s a = (vm_s)((vm_i)x & 0x7fffffff);
    vm_i big = (vm_i)(a > 14.9f);
    vm_s ac = vm_ssel(big, vm_ssplat(14.9f), a);
    vm_s hi = ac * ac, lo = VM_FMAF(ac, ac, -hi);
    vm_s s1 = hi * (2.0f / 2.25f) - 1.0f;
    vm_s P = vm_ssplat(GP[6]);
    for (int k = 5; k >= 0; k--) P = VM_FMAF(P, s1, vm_ssplat(GP[k]));
    vm_s t = 1.0f / (1.0f + 0.5f * ac);
    vm_s s2 = (t - 3.448858833e-01f) * 4.414179104e+00f;
    vm_s R = vm_ssplat(GR[9]);
    for (int k = 8; k >= 0; k--) R = VM_FMAF(R, s2, vm_ssplat(GR[k]));
    vm_s ex = vm_expf_neg(-0.5f * hi);
    ex = VM_FMAF(ex, -0.5f * lo, ex);
    ex = vm_ssel(big, vm_ssplat(0.0f), ex);
    vm_s lo_cdf = vm_ssel((vm_i)(a < 1.5f), 0.5f - ac * P, ex * R); /* Phi(-|x|) */
    vm_normf r = {vm_ssel((vm_i)(x < 0.0f), lo_cdf, 1.0f - lo_cdf), ex};
    return r;
}
/* gelu's rounding follows upstream's kernel for the same ISA (measured on 2.13.0): its AVX-512
 * kernel forms x (1 + erf) / 2 (inf above FLT_MAX / 2, NaN at inf); its AVX2 and portable kernels
 * fma(x/2, erf, x/2) (finite up to FLT_MAX, inf at inf, +0 where erf rounds to -1). */
VM_IN vm_s vm_gelu_s(vm_s x) {
#if VM_W == 8
    vm_s y = (x * (2.0f * vm_normalf(x).cdf)) * 0.5f;
    return vm_ssel((vm_i)(x == __builtin_inff()), vm_ssplat(__builtin_nanf("")), y);
#else
    vm_s h = 0.5f * x;
    return VM_FMAF(h, 2.0f * vm_normalf(x).cdf - 1.0f, h);
#endif
}
VM_IN vm_s vm_gelu_bw_s(vm_s g, vm_s x) {
    vm_normf n = vm_normalf(x);
    return g * (n.cdf + x * (n.ex * 0.398942280401433f)); /* 1 / sqrt(2 pi) */
}

#define VM_SUNARY(fn)                                                                            \
    VM_ATTR void VM_NAME(tn_vm_##fn##_f32_)(float *y, const float *x, int64_t n) {               \
        const int L = 2 * VM_W;                                                                  \
        int64_t i = 0;                                                                           \
        for (; i + L <= n; i += L) {                                                             \
            vm_s a;                                                                              \
            memcpy(&a, x + i, sizeof a);                                                         \
            a = vm_ssel((vm_i)(a != a), a, vm_##fn##_s(a));                                      \
            memcpy(y + i, &a, sizeof a);                                                         \
        }                                                                                        \
        if (i < n) {                                                                             \
            vm_s a = {0};                                                                        \
            memcpy(&a, x + i, (size_t)(n - i) * sizeof(float));                                  \
            a = vm_ssel((vm_i)(a != a), a, vm_##fn##_s(a));                                      \
            memcpy(y + i, &a, (size_t)(n - i) * sizeof(float));                                  \
        }                                                                                        \
    }
#define VM_SBINARY(fn)                                                                           \
    VM_ATTR void VM_NAME(tn_vm_##fn##_f32_)(float *y, const float *g, const float *x, int64_t n) { \
        const int L = 2 * VM_W;                                                                  \
        int64_t i = 0;                                                                           \
        for (; i + L <= n; i += L) {                                                             \
            vm_s a, b;                                                                           \
            memcpy(&a, g + i, sizeof a);                                                         \
            memcpy(&b, x + i, sizeof b);                                                         \
            a = vm_ssel((vm_i)(b != b), b, vm_ssel((vm_i)(a != a), a, vm_##fn##_s(a, b)));        \
            memcpy(y + i, &a, sizeof a);                                                         \
        }                                                                                        \
        if (i < n) {                                                                             \
            vm_s a = {0}, b = {0};                                                               \
            memcpy(&a, g + i, (size_t)(n - i) * sizeof(float));                                  \
            memcpy(&b, x + i, (size_t)(n - i) * sizeof(float));                                  \
            a = vm_ssel((vm_i)(b != b), b, vm_ssel((vm_i)(a != a), a, vm_##fn##_s(a, b)));        \
            memcpy(y + i, &a, (size_t)(n - i) * sizeof(float));                                  \
        }                                                                                        \
    }

#define VM_UNARY(fn)                                                                             \
    VM_ATTR void VM_NAME(tn_vm_##fn##_f32_)(float *y, const float *x, int64_t n) {               \
        int64_t i = 0;                                                                           \
        for (; i + VM_W <= n; i += VM_W) {                                                       \
            vm_f a;                                                                              \
            memcpy(&a, x + i, sizeof a);                                                         \
            vm_d d_ = __builtin_convertvector(a, vm_d);                                          \
            vm_f r = __builtin_convertvector(vm_sel((vm_l)(d_ != d_), d_, vm_##fn##_d(d_)), vm_f); \
            memcpy(y + i, &r, sizeof r);                                                         \
        }                                                                                        \
        if (i < n) {                                                                             \
            vm_f a = {0};                                                                        \
            memcpy(&a, x + i, (size_t)(n - i) * sizeof(float));                                  \
            vm_d d_ = __builtin_convertvector(a, vm_d);                                          \
            vm_f r = __builtin_convertvector(vm_sel((vm_l)(d_ != d_), d_, vm_##fn##_d(d_)), vm_f); \
            memcpy(y + i, &r, (size_t)(n - i) * sizeof(float));                                  \
        }                                                                                        \
    }
#define VM_BINARY(fn)                                                                            \
    VM_ATTR void VM_NAME(tn_vm_##fn##_f32_)(float *y, const float *g, const float *x, int64_t n) { \
        int64_t i = 0;                                                                           \
        for (; i + VM_W <= n; i += VM_W) {                                                       \
            vm_f a, b;                                                                           \
            memcpy(&a, g + i, sizeof a);                                                         \
            memcpy(&b, x + i, sizeof b);                                                         \
            vm_d ga_ = __builtin_convertvector(a, vm_d), xb_ = __builtin_convertvector(b, vm_d);  \
            vm_d r_ = vm_sel((vm_l)(xb_ != xb_), xb_, vm_sel((vm_l)(ga_ != ga_), ga_, vm_##fn##_d(ga_, xb_))); \
            vm_f r = __builtin_convertvector(r_, vm_f);                                          \
            memcpy(y + i, &r, sizeof r);                                                         \
        }                                                                                        \
        if (i < n) {                                                                             \
            vm_f a = {0}, b = {0};                                                               \
            memcpy(&a, g + i, (size_t)(n - i) * sizeof(float));                                  \
            memcpy(&b, x + i, (size_t)(n - i) * sizeof(float));                                  \
            vm_d ga_ = __builtin_convertvector(a, vm_d), xb_ = __builtin_convertvector(b, vm_d);  \
            vm_d r_ = vm_sel((vm_l)(xb_ != xb_), xb_, vm_sel((vm_l)(ga_ != ga_), ga_, vm_##fn##_d(ga_, xb_))); \
            vm_f r = __builtin_convertvector(r_, vm_f);                                          \
            memcpy(y + i, &r, (size_t)(n - i) * sizeof(float));                                  \
        }                                                                                        \
    }

VM_UNARY(exp)
VM_UNARY(log)
VM_UNARY(tanh)
VM_SUNARY(sigmoid)
VM_SUNARY(silu)
VM_SUNARY(gelu)
VM_SUNARY(gelu_tanh)
VM_SBINARY(silu_bw)
VM_SBINARY(gelu_bw)
VM_BINARY(gelu_tanh_bw)

/* y = exp(x - c) for x - c <= 0 or NaN (softmax rows: c is the row's max) */
VM_ATTR void VM_NAME(tn_vm_expsub_f32_)(float *y, const float *x, float c, int64_t n) {
    const int L = 2 * VM_W;
    int64_t i = 0;
    for (; i + L <= n; i += L) {
        vm_s a;
        memcpy(&a, x + i, sizeof a);
        a = vm_expf_neg(a - c);
        memcpy(y + i, &a, sizeof a);
    }
    if (i < n) {
        vm_s a = {0};
        memcpy(&a, x + i, (size_t)(n - i) * sizeof(float));
        a = vm_expf_neg(a - c);
        memcpy(y + i, &a, (size_t)(n - i) * sizeof(float));
    }
}

/* gi = g - exp(y) * c for y <= 0 (log_softmax backward: y log-probabilities, c = sum of g) */
VM_ATTR void VM_NAME(tn_vm_lsm_bw_f32_)(float *gi, const float *g, const float *y, float c, int64_t n) {
    const int L = 2 * VM_W;
    int64_t i = 0;
    for (; i + L <= n; i += L) {
        vm_s a, b;
        memcpy(&a, g + i, sizeof a);
        memcpy(&b, y + i, sizeof b);
        a = a - vm_expf_neg(b) * c;
        memcpy(gi + i, &a, sizeof a);
    }
    if (i < n) {
        vm_s a = {0}, b = {0};
        memcpy(&a, g + i, (size_t)(n - i) * sizeof(float));
        memcpy(&b, y + i, (size_t)(n - i) * sizeof(float));
        a = a - vm_expf_neg(b) * c;
        memcpy(gi + i, &a, (size_t)(n - i) * sizeof(float));
    }
}
