/* vmath.h — vectorised f32 math for kernels whose upstream counterparts use a vector math
 * library (Sleef, about 1 ulp) rather than the C library: results agree with the C library's
 * to about 1 ulp, not bit for bit. */
#ifndef TN_KERNELS_VMATH_H
#define TN_KERNELS_VMATH_H

#include <stdint.h>

/* y[i] = exp(x[i]) for i < n (y may be x). Within 1 ulp for normal results (measured over 40M
 * points in [-87, 88]); +inf above 88.72, NaN for NaN, and 0 below
 * -87.34 (exp's denormal range is flushed: denormal arithmetic costs ~100x on x86). */
void tn_vexp_f32(float *y, const float *x, int64_t n);

#endif
