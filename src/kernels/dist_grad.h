/* dist_grad.h — reparameterized-gradient kernels of the distributions family (ops/random_dist.c):
 * upstream's standard_gamma_grad_one and dirichlet_grad_one (Distributions.h), with upstream's
 * CPU accumulator type (double). Plain C, no allocation. */
#ifndef TN_KERNELS_DIST_GRAD_H
#define TN_KERNELS_DIST_GRAD_H

#include <stdint.h>

/* -(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for x ~ Gamma(alpha): Taylor series for x < 0.8f,
 * Rice saddle point for alpha > 8, else upstream's bivariate rational approximation. */
double tn_standard_gamma_grad_one(double alpha, double x);

/* _dirichlet_grad(x, alpha, total) over n contiguous elements of the same shape: upstream's
 * dirichlet_grad_one (Beta Taylor series near 0 and 1, saddle point for large alpha and beta,
 * else a rational correction), float steps in float for f32 as upstream's templates have them. */
void tn_dirichlet_grad_f32(const float *x, const float *alpha, const float *total, float *out, int64_t n);
void tn_dirichlet_grad_f64(const double *x, const double *alpha, const double *total, double *out, int64_t n);

#endif
