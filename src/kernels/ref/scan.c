/* ref/scan.c — cummax / cummin and logcumsumexp (scan.h). */
#include "kernels/ref/clogaddexp.h"
#include "kernels/scan.h"

#include <math.h>
#include <string.h>

/* Scan each [n] column of an [outer, n, inner] buffer of T; KEY(v) gives the comparable value,
 * ISNAN(k) tests it. The running value is copied from the element it came from. */
#define CUMMAXMIN(T, KT, KEY, ISNAN)                                                                 \
    do {                                                                                             \
        const T *src = x;                                                                            \
        T *dst = values;                                                                             \
        for (int64_t o = 0; o < outer; o++)                                                          \
            for (int64_t c = 0; c < inner; c++) {                                                    \
                const T *p = src + o * n * inner + c;                                                \
                T *v = dst + o * n * inner + c;                                                      \
                int64_t *ix = indices + o * n * inner + c;                                           \
                T best = p[0];                                                                       \
                KT bk = KEY(best);                                                                   \
                int64_t bi = 0;                                                                      \
                for (int64_t i = 0; i < n; i++) {                                                    \
                    KT k = KEY(p[i * inner]);                                                        \
                    if (ISNAN(k) || (!ISNAN(bk) && (is_max ? k >= bk : k <= bk))) {                  \
                        best = p[i * inner];                                                         \
                        bk = k;                                                                      \
                        bi = i;                                                                      \
                    }                                                                                \
                    v[i * inner] = best;                                                             \
                    ix[i * inner] = bi;                                                              \
                }                                                                                    \
            }                                                                                        \
    } while (0)

#define ID(v) (v)
#define NONAN(k) false
#define BF16K(v) tn_bf16_to_f32(v)
#define F16K(v) tn_f16_to_f32(v)

void tn_cummaxmin(tn_dtype dt, const void *x, void *values, int64_t *indices, int64_t outer, int64_t n,
                  int64_t inner, bool is_max) {
    switch (dt) {
    case TN_DTYPE_BOOL: case TN_DTYPE_U8: CUMMAXMIN(uint8_t, uint8_t, ID, NONAN); break;
    case TN_DTYPE_I8: CUMMAXMIN(int8_t, int8_t, ID, NONAN); break;
    case TN_DTYPE_I16: CUMMAXMIN(int16_t, int16_t, ID, NONAN); break;
    case TN_DTYPE_U16: CUMMAXMIN(uint16_t, uint16_t, ID, NONAN); break;
    case TN_DTYPE_I32: CUMMAXMIN(int32_t, int32_t, ID, NONAN); break;
    case TN_DTYPE_U32: CUMMAXMIN(uint32_t, uint32_t, ID, NONAN); break;
    case TN_DTYPE_I64: CUMMAXMIN(int64_t, int64_t, ID, NONAN); break;
    case TN_DTYPE_U64: CUMMAXMIN(uint64_t, uint64_t, ID, NONAN); break;
    case TN_DTYPE_F32: CUMMAXMIN(float, float, ID, isnan); break;
    case TN_DTYPE_F64: CUMMAXMIN(double, double, ID, isnan); break;
    case TN_DTYPE_BF16: CUMMAXMIN(uint16_t, float, BF16K, isnan); break;
    case TN_DTYPE_F16: CUMMAXMIN(uint16_t, float, F16K, isnan); break;
    default: break;
    }
}

/* upstream's _log_add_exp_helper(x, acc) in type T */
#define LOG_ADD_EXP(T, LOG1P, EXP, xv, acc)                                                          \
    do {                                                                                             \
        T mn_ = isnan(acc) ? acc : (isnan(xv) ? xv : (acc < xv ? acc : xv));                         \
        T mx_ = isnan(acc) ? acc : (isnan(xv) ? xv : (xv < acc ? acc : xv));                         \
        if (mn_ != mx_ || isfinite(mn_)) acc = LOG1P(EXP(mn_ - mx_)) + mx_;                         \
        else acc = xv;                                                                               \
    } while (0)

void tn_logcumsumexp(tn_dtype dt, const void *x, void *out, int64_t outer, int64_t n, int64_t inner) {
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < inner; c++) {
            int64_t base = o * n * inner + c;
            if (dt == TN_DTYPE_C64 || dt == TN_DTYPE_C128) {
                /* complex: accumulated in complex double (upstream's acc_type), from -inf + 0j */
                tn_c128_t acc = CMPLX(-INFINITY, 0.0);
                for (int64_t i = 0; i < n; i++) {
                    int64_t k = base + i * inner;
                    tn_c128_t xv = dt == TN_DTYPE_C64 ? (tn_c128_t)((const tn_c64_t *)x)[k] : ((const tn_c128_t *)x)[k];
                    acc = tn__clogaddexp_tn_c128_t(xv, acc);
                    if (dt == TN_DTYPE_C64) ((tn_c64_t *)out)[k] = CMPLXF((float)creal(acc), (float)cimag(acc));
                    else ((tn_c128_t *)out)[k] = acc;
                }
            } else if (dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64) {
                double acc = -INFINITY;
                for (int64_t i = 0; i < n; i++) {
                    int64_t k = base + i * inner;
                    double xv = dt == TN_DTYPE_F32 ? (double)((const float *)x)[k] : ((const double *)x)[k];
                    LOG_ADD_EXP(double, log1p, exp, xv, acc);
                    if (dt == TN_DTYPE_F32) ((float *)out)[k] = (float)acc;
                    else ((double *)out)[k] = acc;
                }
            } else {
                bool bf = dt == TN_DTYPE_BF16;
                float acc = -INFINITY;
                for (int64_t i = 0; i < n; i++) {
                    int64_t k = base + i * inner;
                    uint16_t r = ((const uint16_t *)x)[k];
                    float xv = bf ? tn_bf16_to_f32(r) : tn_f16_to_f32(r);
                    LOG_ADD_EXP(float, log1pf, expf, xv, acc);
                    ((uint16_t *)out)[k] = bf ? tn_f32_to_bf16(acc) : tn_f32_to_f16(acc);
                }
            }
        }
}
