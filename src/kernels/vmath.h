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

/* f32 activations over contiguous arrays (kernels/vmath_body.h). exp, log, tanh and the tanh-form
 * gelu backward widen each element to double, evaluate to ~1e-11 and round once (0.500 ulp over
 * tools/ulp_sweep.py's dense sweep; upstream measures 0.56 / 0.88 / 0.51). sigmoid, silu, gelu
 * (both forms), silu and gelu backward run in f32 lanes with fused multiply-adds (about 1-3 ulp
 * where the result is normal; upstream's lose all relative accuracy in their underflowing tails,
 * millions of ulps, measured). inf / NaN / -0 / overflow results follow upstream 2.13 (measured);
 * a NaN input comes back as itself. y may be x (and g). The same bits on every variant
 * (portable, AVX2 + FMA, AVX-512; TN_VEXP=ref|avx2 forces one).
 *   sigmoid = 1/(1+exp(-x)), silu = x sigmoid(x), gelu = x Phi(x) (erf form),
 *   gelu_tanh = x/2 (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)));
 *   backward (grad g): silu_bw = g s (1 + x (1 - s)), gelu_bw = g (Phi(x) + x phi(x)),
 *   gelu_tanh_bw = g d/dx gelu_tanh. */
void tn_vm_exp_f32(float *y, const float *x, int64_t n);
void tn_vm_log_f32(float *y, const float *x, int64_t n);
void tn_vm_tanh_f32(float *y, const float *x, int64_t n);
void tn_vm_sigmoid_f32(float *y, const float *x, int64_t n);
void tn_vm_silu_f32(float *y, const float *x, int64_t n);
void tn_vm_gelu_f32(float *y, const float *x, int64_t n);
void tn_vm_gelu_tanh_f32(float *y, const float *x, int64_t n);
void tn_vm_silu_bw_f32(float *y, const float *g, const float *x, int64_t n);
void tn_vm_gelu_bw_f32(float *y, const float *g, const float *x, int64_t n);
void tn_vm_gelu_tanh_bw_f32(float *y, const float *g, const float *x, int64_t n);
/* y[i] = exp(x[i] - c) where x[i] - c <= 0 (or NaN): f32 lanes, about 1 ulp, subnormal results
 * rounded once, 0 below -104 (softmax rows after subtracting their max). y may be x. */
void tn_vm_expsub_f32(float *y, const float *x, float c, int64_t n);
/* gi[i] = g[i] - exp(y[i]) * c for y[i] <= 0 (log_softmax backward), exp as tn_vm_expsub_f32's. */
void tn_vm_lsm_bw_f32(float *gi, const float *g, const float *y, float c, int64_t n);

/* pow one lane at a time as upstream's vector pow computes it (Sleef's 1-ulp pow; kernels/ref/
 * vpow.c, docs/pow_bits.md), and how many elements of a contiguous run of n items of itemsize
 * bytes upstream's vector loop covers (the rest is its scalar tail, the C library's pow). */
float tn_vpow_f32(float x, float y);
double tn_vpow_f64(double x, double y);
int64_t tn_vpow_body(int64_t n, int itemsize);
/* The ISA level the vector-math kernels run at (vmath.c): 0 portable, 1 AVX2 + FMA, 2 AVX-512;
 * TN_VEXP=ref|avx2 forces a lower one. */
int tn_vm_isa(void);

#endif
