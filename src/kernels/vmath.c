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

/* ---- f32 activations (kernels/vmath_body.h): the portable instantiation and the choice ---- */

/* log's tables: c_i = 1/(1 + i/128) rounded to 20 fraction bits, and -log(c_i) (mpmath) */
const double tn_vm_logc[128] = {0x1.0000000000000p+0, 0x1.fc08000000000p-1, 0x1.f81f800000000p-1, 0x1.f446600000000p-1, 0x1.f07c200000000p-1, 0x1.ecc0800000000p-1, 0x1.e913200000000p-1, 0x1.e573a00000000p-1, 0x1.e1e1e00000000p-1, 0x1.de5d600000000p-1, 0x1.dae6000000000p-1, 0x1.d77b600000000p-1, 0x1.d41d400000000p-1, 0x1.d0cb600000000p-1, 0x1.cd85600000000p-1, 0x1.ca4b400000000p-1, 0x1.c71c800000000p-1, 0x1.c3f9000000000p-1, 0x1.c0e0800000000p-1, 0x1.bdd2c00000000p-1, 0x1.bacfa00000000p-1, 0x1.b7d6c00000000p-1, 0x1.b4e8200000000p-1, 0x1.b203600000000p-1, 0x1.af28600000000p-1, 0x1.ac57000000000p-1, 0x1.a98f000000000p-1, 0x1.a6d0200000000p-1, 0x1.a41a400000000p-1, 0x1.a16d400000000p-1, 0x1.9ec8e00000000p-1, 0x1.9c2d200000000p-1, 0x1.9999a00000000p-1, 0x1.970e400000000p-1, 0x1.948b000000000p-1, 0x1.920fc00000000p-1, 0x1.8f9c200000000p-1, 0x1.8d30200000000p-1, 0x1.8acba00000000p-1, 0x1.886e600000000p-1, 0x1.8618600000000p-1, 0x1.83c9800000000p-1, 0x1.8181800000000p-1, 0x1.7f40600000000p-1, 0x1.7d06000000000p-1, 0x1.7ad2200000000p-1, 0x1.78a4c00000000p-1, 0x1.767dc00000000p-1, 0x1.745d200000000p-1, 0x1.7242800000000p-1, 0x1.702e000000000p-1, 0x1.6e1f800000000p-1, 0x1.6c16c00000000p-1, 0x1.6a13c00000000p-1, 0x1.6816800000000p-1, 0x1.661ec00000000p-1, 0x1.642c800000000p-1, 0x1.623fa00000000p-1, 0x1.6058200000000p-1, 0x1.5e75c00000000p-1, 0x1.5c98800000000p-1, 0x1.5ac0600000000p-1, 0x1.58ed200000000p-1, 0x1.571ee00000000p-1, 0x1.5555600000000p-1, 0x1.5390a00000000p-1, 0x1.51d0800000000p-1, 0x1.5015000000000p-1, 0x1.4e5e000000000p-1, 0x1.4cab800000000p-1, 0x1.4afd600000000p-1, 0x1.4953a00000000p-1, 0x1.47ae200000000p-1, 0x1.460cc00000000p-1, 0x1.446f800000000p-1, 0x1.42d6600000000p-1, 0x1.4141400000000p-1, 0x1.3fb0200000000p-1, 0x1.3e22c00000000p-1, 0x1.3c99600000000p-1, 0x1.3b13c00000000p-1, 0x1.3991c00000000p-1, 0x1.3813800000000p-1, 0x1.3698e00000000p-1, 0x1.3521c00000000p-1, 0x1.33ae400000000p-1, 0x1.323e400000000p-1, 0x1.30d1a00000000p-1, 0x1.2f68400000000p-1, 0x1.2e02600000000p-1, 0x1.2c9fc00000000p-1, 0x1.2b40400000000p-1, 0x1.29e4200000000p-1, 0x1.288b000000000p-1, 0x1.2735000000000p-1, 0x1.25e2200000000p-1, 0x1.2492400000000p-1, 0x1.2345600000000p-1, 0x1.21fb800000000p-1, 0x1.20b4800000000p-1, 0x1.1f70400000000p-1, 0x1.1e2f000000000p-1, 0x1.1cf0600000000p-1, 0x1.1bb4a00000000p-1, 0x1.1a7ba00000000p-1, 0x1.1945400000000p-1, 0x1.1811800000000p-1, 0x1.16e0600000000p-1, 0x1.15b1e00000000p-1, 0x1.1486000000000p-1, 0x1.135c800000000p-1, 0x1.1235800000000p-1, 0x1.1111200000000p-1, 0x1.0fef000000000p-1, 0x1.0ecf600000000p-1, 0x1.0db2000000000p-1, 0x1.0c97200000000p-1, 0x1.0b7e600000000p-1, 0x1.0a68200000000p-1, 0x1.0954000000000p-1, 0x1.0842200000000p-1, 0x1.0732600000000p-1, 0x1.0624e00000000p-1, 0x1.0519800000000p-1, 0x1.0410400000000p-1, 0x1.0309200000000p-1, 0x1.0204000000000p-1, 0x1.0101000000000p-1};
const double tn_vm_logl[128] = {-0x0.0p+0, 0x1.fdfaa6b126789p-8, 0x1.fc0b0b0fc07e4p-7, 0x1.7b90e87d5c4a3p-6, 0x1.f82990e783380p-6, 0x1.39e82b9fec3a0p-5, 0x1.774537632e48cp-5, 0x1.b42eab1199da3p-5, 0x1.f0a32c01163a6p-5, 0x1.1653e8ea397f3p-4, 0x1.341db961bd9d1p-4, 0x1.51b0a1f061c61p-4, 0x1.6f0d38ae56bccp-4, 0x1.8c341f631a2a3p-4, 0x1.a9271fa4ae0abp-4, 0x1.c5e4bcf5bed8bp-4, 0x1.e26ff6e2b12e6p-4, 0x1.fec8831dc133bp-4, 0x1.0d779fcd0a299p-3, 0x1.1b728b52f6c24p-3, 0x1.2954eb8200733p-3, 0x1.371fd401e90b8p-3, 0x1.44d2a0ccb7f02p-3, 0x1.526e713a1b5a1p-3, 0x1.5ff33f0a7a014p-3, 0x1.6d6106719d25dp-3, 0x1.7ab860210e209p-3, 0x1.87f9eb520cbeap-3, 0x1.9525b1cf456f4p-3, 0x1.a23bbffe2b567p-3, 0x1.af3cc2e80c837p-3, 0x1.bc283042d98a7p-3, 0x1.c8ff5c79a9e22p-3, 0x1.d5c264b4fd355p-3, 0x1.e270c6e2b0be6p-3, 0x1.ef0aa2bdc665ap-3, 0x1.fb9162d5e433bp-3, 0x1.040246cb4d2edp-2, 0x1.0a32272739cc5p-2, 0x1.1058bd1ae4ae2p-2, 0x1.1675cebaba62ep-2, 0x1.1c89761699dc3p-2, 0x1.229423bcf7986p-2, 0x1.2895a0bde86a4p-2, 0x1.2e8e0bae12531p-2, 0x1.347ddb2987d59p-2, 0x1.3a64db56949b2p-2, 0x1.40432f686b3c6p-2, 0x1.4618a421c6342p-2, 0x1.4be60f5777c69p-2, 0x1.51aae872dfa2dp-2, 0x1.5767577455fb4p-2, 0x1.5d1bdff5809eap-2, 0x1.62c8542b9d247p-2, 0x1.686c85e9b14cfp-2, 0x1.6e08fda2ba4b6p-2, 0x1.739d8f6bbd207p-2, 0x1.792a6b7dd4b3fp-2, 0x1.7eaf66b82b655p-2, 0x1.842d10a1e8c69p-2, 0x1.89a3406c142dbp-2, 0x1.8f11ccf3668b0p-2, 0x1.94794ac21179dp-2, 0x1.99d933917eaf3p-2, 0x1.9f321ecbfa04cp-2, 0x1.a483e68e5c457p-2, 0x1.a9cec5a9a086ap-2, 0x1.af1297247788bp-2, 0x1.b44f97bcc9763p-2, 0x1.b985a36931643p-2, 0x1.beb4f8da722fep-2, 0x1.c3dd74fcdad8ap-2, 0x1.c8ff5879aa442p-2, 0x1.ce1ae5b85f4ddp-2, 0x1.d32ffbe00eef5p-2, 0x1.d83e79d8a2fafp-2, 0x1.dd46a44c1c4c1p-2, 0x1.e2485b27c77bbp-2, 0x1.e7444c1d692d0p-2, 0x1.ec398aa468f6dp-2, 0x1.f128c5faf18edp-2, 0x1.f61248a70294ep-2, 0x1.faf58cf78f33fp-2, 0x1.ffd2de057f4a5p-2, 0x1.0255445a5db8fp-1, 0x1.04be035a9283bp-1, 0x1.0723d2c1ce4e4p-1, 0x1.0986da357404fp-1, 0x1.0be74242530c3p-1, 0x1.0e44919d1cd42p-1, 0x1.109f26e2d523bp-1, 0x1.12f72bd93f515p-1, 0x1.154c262f4de2ep-1, 0x1.179eadbd899b1p-1, 0x1.19ee7f467cfafp-1, 0x1.1c3b8e3713e7dp-1, 0x1.1e8605e7044d0p-1, 0x1.20cdda592ae2cp-1, 0x1.2312ff7bec253p-1, 0x1.2555a1e99032fp-1, 0x1.2795ef289b42bp-1, 0x1.29d369ec2b81bp-1, 0x1.2c0eb2544947dp-1, 0x1.2e474aae4033bp-1, 0x1.307d6134f15cep-1, 0x1.32b12511220bap-1, 0x1.34e28bd9ce1e3p-1, 0x1.37118b1474b96p-1, 0x1.393e183562bfep-1, 0x1.3b6828a000863p-1, 0x1.3d9028a71570bp-1, 0x1.3fb5d34d17aa6p-1, 0x1.41d8e28467eeep-1, 0x1.43fa002f9ce77p-1, 0x1.4618aaa1c638bp-1, 0x1.4835511ea8f1fp-1, 0x1.4a4f70db0459fp-1, 0x1.4c67b73ccfab2p-1, 0x1.4e7d639b7694ap-1, 0x1.509124c01716bp-1, 0x1.52a2b465bd3bbp-1, 0x1.54b247b99949ep-1, 0x1.56bf97db3f412p-1, 0x1.58cada5cd798dp-1, 0x1.5ad406c359f3dp-1, 0x1.5cdb1486c18bbp-1, 0x1.5ee03a9241a75p-1, 0x1.60e33144788e9p-1};

#define VM_W 2 /* 16-byte vectors: native on every 64-bit target gcc knows */
#define VM_SFX ref
#define VM_ATTR
#define VM_FMAD(a, b, c) ({ vm_d r_; for (int k_ = 0; k_ < VM_W; k_++) r_[k_] = fma((a)[k_], (b)[k_], (c)[k_]); r_; })
#define VM_FMAF(a, b, c) ({ vm_s r_; for (int k_ = 0; k_ < 2 * VM_W; k_++) r_[k_] = fmaf((a)[k_], (b)[k_], (c)[k_]); r_; })
#define VM_GATHER(t, i) ({ vm_d r_; for (int k_ = 0; k_ < VM_W; k_++) r_[k_] = (t)[(i)[k_]]; r_; })
#include "kernels/vmath_body.h"

#define VM_UN_LIST(X) X(exp) X(log) X(tanh) X(sigmoid) X(silu) X(gelu) X(gelu_tanh)
#define VM_BIN_LIST(X) X(silu_bw) X(gelu_bw) X(gelu_tanh_bw)

#if defined(__x86_64__)
#define VM_DECL_UN(f) void tn_vm_##f##_f32_avx512(float *, const float *, int64_t); \
    void tn_vm_##f##_f32_avx2(float *, const float *, int64_t);
#define VM_DECL_BIN(f) void tn_vm_##f##_f32_avx512(float *, const float *, const float *, int64_t); \
    void tn_vm_##f##_f32_avx2(float *, const float *, const float *, int64_t);
VM_UN_LIST(VM_DECL_UN)
VM_BIN_LIST(VM_DECL_BIN)
#endif

/* 0 portable, 1 AVX2 + FMA, 2 AVX-512; TN_VEXP=ref|avx2 forces a lower one */
static int vm_level = -1; /* benign race: every thread computes the same value */

static int vm_pick(void) {
    if (vm_level < 0) {
        int l = 0;
        const char *env = getenv("TN_VEXP");
#if defined(__x86_64__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f")) l = 2;
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) l = 1;
        if (env && strcmp(env, "avx2") == 0 && l > 1) l = 1;
#endif
        if (env && strcmp(env, "ref") == 0) l = 0;
        vm_level = l;
    }
    return vm_level;
}

int tn_vm_isa(void) { return vm_pick(); }

#if defined(__x86_64__)
#define VM_PUB_UN(f) void tn_vm_##f##_f32(float *y, const float *x, int64_t n) { \
    switch (vm_pick()) { case 2: tn_vm_##f##_f32_avx512(y, x, n); return; \
    case 1: tn_vm_##f##_f32_avx2(y, x, n); return; default: tn_vm_##f##_f32_ref(y, x, n); } }
#define VM_PUB_BIN(f) void tn_vm_##f##_f32(float *y, const float *g, const float *x, int64_t n) { \
    switch (vm_pick()) { case 2: tn_vm_##f##_f32_avx512(y, g, x, n); return; \
    case 1: tn_vm_##f##_f32_avx2(y, g, x, n); return; default: tn_vm_##f##_f32_ref(y, g, x, n); } }
#else
#define VM_PUB_UN(f) void tn_vm_##f##_f32(float *y, const float *x, int64_t n) { tn_vm_##f##_f32_ref(y, x, n); }
#define VM_PUB_BIN(f) void tn_vm_##f##_f32(float *y, const float *g, const float *x, int64_t n) { tn_vm_##f##_f32_ref(y, g, x, n); }
#endif
VM_UN_LIST(VM_PUB_UN)
VM_BIN_LIST(VM_PUB_BIN)

#if defined(__x86_64__)
void tn_vm_expsub_f32_avx512(float *, const float *, float, int64_t);
void tn_vm_expsub_f32_avx2(float *, const float *, float, int64_t);
#endif
void tn_vm_expsub_f32(float *y, const float *x, float c, int64_t n) {
    switch (vm_pick()) {
#if defined(__x86_64__)
    case 2: tn_vm_expsub_f32_avx512(y, x, c, n); return;
    case 1: tn_vm_expsub_f32_avx2(y, x, c, n); return;
#endif
    default: tn_vm_expsub_f32_ref(y, x, c, n);
    }
}

#if defined(__x86_64__)
void tn_vm_lsm_bw_f32_avx512(float *, const float *, const float *, float, int64_t);
void tn_vm_lsm_bw_f32_avx2(float *, const float *, const float *, float, int64_t);
#endif
void tn_vm_lsm_bw_f32(float *gi, const float *g, const float *y, float c, int64_t n) {
    switch (vm_pick()) {
#if defined(__x86_64__)
    case 2: tn_vm_lsm_bw_f32_avx512(gi, g, y, c, n); return;
    case 1: tn_vm_lsm_bw_f32_avx2(gi, g, y, c, n); return;
#endif
    default: tn_vm_lsm_bw_f32_ref(gi, g, y, c, n);
    }
}
