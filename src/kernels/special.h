/* special.h — elementwise loops of the special-function family (ops/special.c): modified Bessel
 * functions, sinc, erfinv, ndtri, entr, angle, Bessel / Airy functions, heaviside, gcd / lcm,
 * logaddexp2, xlog1py, Hurwitz zeta and the orthogonal polynomials. Same contract as every
 * tn_loop (core/iter.h): data[0] the output, then the inputs (all of the compute dtype), never
 * fails, never allocates. A lookup returns NULL where upstream has no CPU kernel for the dtype. */
#ifndef TN_KERNELS_SPECIAL_H
#define TN_KERNELS_SPECIAL_H

#include "core/iter.h"

#define TN_SPECIAL_UNARY_OPS(X)                                                                 \
    X(I0) X(I0E) X(I1) X(I1E) X(SINC) X(ERFINV) X(NDTRI) X(ENTR) X(ANGLE) X(ERFCX)             \
    X(LOG_NDTR) X(BESSEL_J0) X(BESSEL_J1) X(BESSEL_Y0) X(BESSEL_Y1) X(MOD_I0) X(MOD_I1)         \
    X(MOD_K0) X(MOD_K1) X(SCALED_K0) X(SCALED_K1) X(SPH_J0) X(AIRY_AI)
typedef enum {
#define TN_X(E) TN_SPU_##E,
    TN_SPECIAL_UNARY_OPS(TN_X)
#undef TN_X
    TN_SPU_COUNT
} tn_special_unary_op;

#define TN_SPECIAL_BINARY_OPS(X)                                                                \
    X(HEAVISIDE) X(GCD) X(LCM) X(LOGADDEXP2) X(XLOG1PY) X(ZETA) X(IGAMMA) X(IGAMMAC)            \
    X(CHEB_T) X(CHEB_U) X(CHEB_V) X(CHEB_W) X(SCHEB_T) X(SCHEB_U) X(SCHEB_V) X(SCHEB_W)         \
    X(HERMITE_H) X(HERMITE_HE) X(LAGUERRE_L) X(LEGENDRE_P)
typedef enum {
#define TN_X(E) TN_SPB_##E,
    TN_SPECIAL_BINARY_OPS(TN_X)
#undef TN_X
    TN_SPB_COUNT
} tn_special_binary_op;

/* data = {out, x}, out of the loop's dtype (ANGLE of a complex dtype writes its real dtype). */
tn_loop tn_special_unary_loop(tn_special_unary_op op, tn_dtype dt);
/* data = {out, a, b}, all of dt. */
tn_loop tn_special_binary_loop(tn_special_binary_op op, tn_dtype dt);
/* The orthogonal polynomials' recurrences (CHEB_* .. LEGENDRE_P) run one step per degree, as
 * upstream's loops do, until a NaN or the degree; an element needing more than
 * TN_SPECIAL_POLY_STEPS steps stops there and marks the run overrun
 * (any thread), which the op then refuses by name (ops/special.c): upstream's loop takes seconds
 * to minutes there. Reset before a run, read after it. */
#define TN_SPECIAL_POLY_STEPS ((int64_t)1 << 24)
void tn_special_poly_reset(void);
bool tn_special_poly_overran(void);
/* frexp: data = {mantissa (dt), exponent (int32), x (dt)}; floating dtypes. */
tn_loop tn_special_frexp_loop(tn_dtype dt);
/* complex(real, imag) and polar(abs, angle): data = {out (complex of dt), a, b (dt)}; f32, f64. */
tn_loop tn_special_complex_loop(tn_dtype dt, bool polar);

/* ldexp(x, e) with an integer exponent: data = {out (dt), x (dt), e (int64)}; floating dt. */
tn_loop tn_special_ldexp_loop(tn_dtype dt);
/* erfcx / log_ndtr and igamma / igammac (used by the two lookups above) */
tn_loop tn_special_unary_loop2(tn_special_unary_op op, tn_dtype dt);
tn_loop tn_special_binary_loop2(tn_special_binary_op op, tn_dtype dt);

/* kaiser_window's values (f32, f64, f16, bf16): n points of the symmetric window of length N
 * (n = N, or N - 1 for the periodic window), computed as upstream's fused kernel. */
void tn_kaiser_window(tn_dtype dt, int64_t n, int64_t N, double beta, void *out);

#endif
