/* clogaddexp.h — upstream's complex _log_add_exp_helper (ATen's LogAddExp.h) for logaddexp and
 * logcumsumexp on complex values, with c10::complex's CPU log1p (numpy's form: u = z + 1;
 * z when u == 1; log(u) when u - 1 == z; else log(u) * (z / (u - 1))). min / max are ordered by
 * real part, a NaN part anywhere "infects" the result; both real parts infinite and equal: the
 * -inf one, or log(exp(min) + exp(max)) for +inf; else log1p(exp(min - max)) + max.
 * Complex products / quotients as c10::complex's (tn__cmul / tn__cdiv of ew_impl.h). */
#ifndef TN_KERNELS_REF_CLOGADDEXP_H
#define TN_KERNELS_REF_CLOGADDEXP_H

#include "kernels/ref/ew_impl.h"

#include <complex.h>
#include <math.h>

#define TN_CLAE(T, R, CLOG, CEXP, CRE, CIM, MKC)                                                            \
    static inline T tn__clog1p_##T(T z) {                                                        \
        R zr = CRE(z), zi = CIM(z);                                                  \
        T u = MKC(zr + (R)1, zi);                                                          \
        if (CRE(u) == (R)1 && CIM(u) == 0) return z;                                 \
        T lu = CLOG(u);                                                                          \
        T um1 = MKC(CRE(u) - (R)1, CIM(u));                                    \
        if (CRE(um1) == zr && CIM(um1) == zi) return lu;                             \
        return tn__cmul_##T(lu, tn__cdiv_##T(z, um1));                                           \
    }                                                                                            \
    static inline T tn__clogaddexp_##T(T x, T y) {                                               \
        T mn, mx;                                                                                \
        if (isnan(CRE(y)) || isnan(CIM(y))) mn = mx = y;                             \
        else if (isnan(CRE(x)) || isnan(CIM(x))) mn = mx = x;                        \
        else if (CRE(x) < CRE(y)) { mn = x; mx = y; }                                \
        else { mn = y; mx = x; }                                                                 \
        R mnr = CRE(mn), mxr = CRE(mx);                                              \
        if (isnan(mnr) || isnan(CIM(mn))) return MKC(NAN, NAN);                      \
        if (!isfinite(mnr) && mnr == mxr) {                                                      \
            if (mnr < 0) return mn;                                                              \
            T s = CEXP(mn) + CEXP(mx);                                                           \
            return CLOG(s);                                                                      \
        }                                                                                        \
        T d = MKC(mnr - mxr, CIM(mn) - CIM(mx));                               \
        T l = tn__clog1p_##T(CEXP(d));                                                           \
        return MKC(CRE(l) + mxr, CIM(l) + CIM(mx));                      \
    }
TN_CLAE(tn_c64_t, float, clogf, cexpf, crealf, cimagf, CMPLXF)
TN_CLAE(tn_c128_t, double, clog, cexp, creal, cimag, CMPLX)

#endif
