/* pointwise_kernels.c — loops for nan_to_num, round(decimals), leaky_relu, elu, threshold and
 * complex sgn (declared in pointwise_kernels.h). Built with the reference kernels' loop macros
 * (kernels/ref/ew_impl.h): one expression per dtype family, stamped out per storage type.
 * Formulas follow upstream's scalar definitions, measured against torch 2.13:
 *  - nan_to_num replacements are converted to the storage dtype first (f16 max is 65504);
 *  - round(decimals) is nearbyint(x * 10^d) / 10^d, or nearbyint(x / 10^-d) * 10^-d for d < 0,
 *    in the opmath type with 10^d computed in double;
 *  - elu uses expm1 (upstream's vectorised path), coefficients multiplied in the opmath type;
 *  - threshold compares against the threshold converted to the dtype. */
#include "ops/pointwise_kernels.h"

#include "kernels/ref/ew_impl.h"

#include <tgmath.h>

#define PP(T, P) ((const T *)(P))

/* ---- nan_to_num ---- */
#define PRE_NAN(CT, LD, ST)                                                                     \
    const CT nv_ = (CT)LD(ST((CT)PP(tn_pw_nan_params, ctx_)->nan));                           \
    const CT pv_ = (CT)LD(ST((CT)PP(tn_pw_nan_params, ctx_)->posinf));                        \
    const CT mv_ = (CT)LD(ST((CT)PP(tn_pw_nan_params, ctx_)->neginf));
#define E_NAN(x, T, P) ((x) != (x) ? nv_ : (x) == (T)INFINITY ? pv_ : (x) == -(T)INFINITY ? mv_ : (x))
#define NAN_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(nan_##sfx, TS, TS, CT, LD, ST, E_NAN, PRE_NAN(CT, LD, ST))
TN_FAM_F(NAN_F, _)

/* complex: each part on its own, with the part type's limits */
#define PRE_NANC(CT, LD, ST, R)                                                                 \
    const R nv_ = (R)PP(tn_pw_nan_params, ctx_)->nan;                                          \
    const R pv_ = (R)PP(tn_pw_nan_params, ctx_)->posinf;                                       \
    const R mv_ = (R)PP(tn_pw_nan_params, ctx_)->neginf;
#define E_NANP(v, R) ((v) != (v) ? nv_ : (v) == (R)INFINITY ? pv_ : (v) == -(R)INFINITY ? mv_ : (v))
#define E_NANC64(x, T, P) CMPLXF(E_NANP(crealf(x), float), E_NANP(cimagf(x), float))
#define E_NANC128(x, T, P) CMPLX(E_NANP(creal(x), double), E_NANP(cimag(x), double))
TN_DEF_UNARY(nan_c64, tn_c64_t, tn_c64_t, tn_c64_t, TN_LD_ID, TN_ST_ID, E_NANC64,
             PRE_NANC(tn_c64_t, TN_LD_ID, TN_ST_ID, float))
TN_DEF_UNARY(nan_c128, tn_c128_t, tn_c128_t, tn_c128_t, TN_LD_ID, TN_ST_ID, E_NANC128,
             PRE_NANC(tn_c128_t, TN_LD_ID, TN_ST_ID, double))

/* ---- round(decimals) ---- */
#define PRE_RD(CT)                                                                              \
    int64_t d_ = *PP(int64_t, ctx_);                                                           \
    const bool neg_ = d_ < 0;                                                                  \
    const CT tp_ = (CT)pow(10.0, neg_ ? -(double)d_ : (double)d_); /* no int negation: INT64_MIN */
#define E_RD(x, T, P) (neg_ ? nearbyint((x) / tp_) * tp_ : nearbyint((x) * tp_) / tp_)
#define RD_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(rd_##sfx, TS, TS, CT, LD, ST, E_RD, PRE_RD(CT))
TN_FAM_F(RD_F, _)

/* ---- leaky_relu ---- */
#define PRE_LR(CT) const CT sl_ = (CT)*PP(double, ctx_);
#define E_LR(x, T, P) ((x) > 0 ? (x) : (x) * sl_)
#define LR_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(lr_##sfx, TS, TS, CT, LD, ST, E_LR, PRE_LR(CT))
TN_FAM_F(LR_F, _)

/* ---- hardshrink / softshrink (ctx = const double* lambd, converted to the opmath type as
 * upstream's Activation.cpp; softshrink's middle branch is x * 0, so NaN stays NaN and -0.5
 * gives -0) ---- */
#define E_HS(x, T, P) (((x) >= -sl_ && (x) <= sl_) ? (T)0 : (x))
#define HS_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(hs_##sfx, TS, TS, CT, LD, ST, E_HS, PRE_LR(CT))
TN_FAM_F(HS_F, _)
/* softshrink: upstream's vector body (the first n - n % vw elements of a contiguous loop) gives
 * +0 in the middle band, its scalar tail (and strided loops) x * 0, so -0 for negative x; NaN
 * stays NaN on both paths */
#define SS_F(sfx, TS, CT, LD, ST, E, _)                                                            \
    static void ss_##sfx(char **data, const int64_t *s, int64_t n, const void *ctx_) {            \
        const tn_pw_shrink_params *p_ = ctx_;                                                      \
        const CT sl_ = (CT)p_->lambd;                                                              \
        int64_t nv = 0;                                                                            \
        if (p_->vw > 0 && s[0] == (int64_t)sizeof(TS) && s[1] == (int64_t)sizeof(TS)) nv = n - n % p_->vw; \
        char *o = data[0];                                                                         \
        const char *a = data[1];                                                                   \
        for (int64_t k = 0; k < n; k++, o += s[0], a += s[1]) {                                    \
            CT x = LD(*(const TS *)a), r;                                                          \
            if (k < nv) r = (x >= -sl_ && x <= sl_) ? (CT)0 : (x > sl_ ? x - sl_ : x + sl_);       \
            else r = x > sl_ ? x - sl_ : (x < -sl_ ? x + sl_ : x * (CT)0);                         \
            *(TS *)o = ST(r);                                                                      \
        }                                                                                          \
    }
TN_FAM_F(SS_F, _)

/* ---- elu ---- */
#define PRE_ELU(CT)                                                                             \
    const tn_pw_elu_params *ep_ = PP(tn_pw_elu_params, ctx_);                                  \
    const CT neg_c_ = (CT)ep_->alpha * (CT)ep_->scale, pos_c_ = (CT)ep_->scale,                \
             in_c_ = (CT)ep_->input_scale;
#define E_ELU(x, T, P) ((x) <= 0 ? expm1((x) * in_c_) * neg_c_ : (x) * pos_c_)
#define ELU_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(elu_##sfx, TS, TS, CT, LD, ST, E_ELU, PRE_ELU(CT))
TN_FAM_F(ELU_F, _)

/* ---- threshold ---- */
#define PRE_TH_F(CT, LD, ST)                                                                    \
    const CT th_ = (CT)LD(ST((CT)PP(tn_pw_threshold_params, ctx_)->th));                      \
    const CT tv_ = (CT)LD(ST((CT)PP(tn_pw_threshold_params, ctx_)->val));
#define PRE_TH_I(CT)                                                                            \
    const CT th_ = (CT)PP(tn_pw_threshold_params, ctx_)->thi;                                  \
    const CT tv_ = (CT)PP(tn_pw_threshold_params, ctx_)->vali;
#define E_TH(x, T, P) ((x) <= th_ ? tv_ : (x))
#define TH_F(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(th_##sfx, TS, TS, CT, LD, ST, E_TH, PRE_TH_F(CT, LD, ST))
#define TH_I(sfx, TS, CT, LD, ST, E, _) TN_DEF_UNARY(th_##sfx, TS, TS, CT, LD, ST, E_TH, PRE_TH_I(CT))
TN_FAM_F(TH_F, _)
TN_FAM_I(TH_I, _)

/* ---- sgn (complex) ---- */
/* a complex quotient z / (|z| + 0i), as upstream (so sgn(inf) is nan+nanj) */
#define E_SGN64(x, T, P)                                                                        \
    ({ float a_ = cabsf(x); a_ == 0 ? CMPLXF(0.0f, 0.0f) : tn__cdiv_tn_c64_t(x, CMPLXF(a_, 0.0f)); })
#define E_SGN128(x, T, P)                                                                       \
    ({ double a_ = cabs(x); a_ == 0 ? CMPLX(0.0, 0.0) : tn__cdiv_tn_c128_t(x, CMPLX(a_, 0.0)); })
TN_DEF_UNARY(sgn_c64, tn_c64_t, tn_c64_t, tn_c64_t, TN_LD_ID, TN_ST_ID, E_SGN64, )
TN_DEF_UNARY(sgn_c128, tn_c128_t, tn_c128_t, tn_c128_t, TN_LD_ID, TN_ST_ID, E_SGN128, )

/* ---- nextafter / xlogy for f16 and bf16 (on the raw 16-bit storage) ---- */
/* x, y not NaN (the caller handles NaN) */
static inline uint16_t tn__next16(uint16_t x, uint16_t y, float fx, float fy) {
    if (fx == fy) return y;
    if (fx == 0) return (uint16_t)((y & 0x8000u) | 1u);
    bool up = (fx < fy) == (fx > 0);
    return (uint16_t)(up ? x + 1u : x - 1u);
}
#define E_NEXT_H(x, y, T, P)                                                                    \
    ({ float fx_ = tn__h2f(x), fy_ = tn__h2f(y);                                                \
       (fx_ != fx_ || fy_ != fy_) ? tn__f2h(fx_ + fy_) : tn__next16(x, y, fx_, fy_); })
#define E_NEXT_B(x, y, T, P)                                                                    \
    ({ float fx_ = tn__b2f(x), fy_ = tn__b2f(y);                                                \
       (fx_ != fx_ || fy_ != fy_) ? tn__f2b(fx_ + fy_) : tn__next16(x, y, fx_, fy_); })
TN_DEF_BINARY(next_f16, uint16_t, uint16_t, uint16_t, TN_LD_ID, TN_ST_ID, E_NEXT_H, )
TN_DEF_BINARY(next_bf16, uint16_t, uint16_t, uint16_t, TN_LD_ID, TN_ST_ID, E_NEXT_B, )

#define E_XLOGY_R(x, y, LD, ST) ((y) != (y) ? (y) : (x) == 0 ? 0.0f : (x) * LD(ST(logf(y))))
#define E_XLOGY_H(x, y, T, P) E_XLOGY_R(x, y, TN_LD_H, TN_ST_H)
#define E_XLOGY_B(x, y, T, P) E_XLOGY_R(x, y, TN_LD_B, TN_ST_B)
TN_DEF_BINARY(xlogy_f16, uint16_t, uint16_t, float, TN_LD_H, TN_ST_H, E_XLOGY_H, )
TN_DEF_BINARY(xlogy_bf16, uint16_t, uint16_t, float, TN_LD_B, TN_ST_B, E_XLOGY_B, )

tn_loop tn_pw_nextafter16_loop(tn_dtype dt) {
    return dt == TN_DTYPE_F16 ? next_f16 : dt == TN_DTYPE_BF16 ? next_bf16 : NULL;
}
tn_loop tn_pw_xlogy16_loop(tn_dtype dt) {
    return dt == TN_DTYPE_F16 ? xlogy_f16 : dt == TN_DTYPE_BF16 ? xlogy_bf16 : NULL;
}

/* ---- lookups ---- */
#define CASE(sfx, TS, CT, LD, ST, E, P) case TN_DTYPE_##E: return P##_##sfx;
tn_loop tn_pw_nan_to_num_loop(tn_dtype dt) {
    switch (dt) {
    TN_FAM_F(CASE, nan)
    case TN_DTYPE_C64: return nan_c64;
    case TN_DTYPE_C128: return nan_c128;
    default: return NULL;
    }
}
tn_loop tn_pw_round_decimals_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, rd) default: return NULL; }
}
tn_loop tn_pw_leaky_relu_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, lr) default: return NULL; }
}
/* the span upstream's shrink kernels cover with vectors before their scalar tail: 64 bytes under
 * both its AVX2 capability (two 32-byte vectors per step) and its AVX-512 one (measured on
 * torch 2.13.0 with ATEN_CPU_CAPABILITY=avx2 / avx512: the same signed zeros) */
int64_t tn_pw_upstream_vec_bytes(void) { return 64; }

tn_loop tn_pw_hardshrink_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, hs) default: return NULL; }
}
tn_loop tn_pw_softshrink_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, ss) default: return NULL; }
}
tn_loop tn_pw_elu_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, elu) default: return NULL; }
}
tn_loop tn_pw_threshold_loop(tn_dtype dt) {
    switch (dt) { TN_FAM_F(CASE, th) TN_FAM_I(CASE, th) default: return NULL; }
}
tn_loop tn_pw_sgn_complex_loop(tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_C64: return sgn_c64;
    case TN_DTYPE_C128: return sgn_c128;
    default: return NULL;
    }
}
