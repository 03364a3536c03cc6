/* dist_grad.h — reparameterized-gradient kernels of the distributions family (ops/random_dist.c):
 * upstream's standard_gamma_grad_one (Distributions.h), computed in double as upstream's CPU
 * kernel (accscalar double) does. Plain C, no allocation. */
#ifndef TN_KERNELS_DIST_GRAD_H
#define TN_KERNELS_DIST_GRAD_H

#include <stdint.h>

/* -(d/dalpha cdf(x; alpha)) / pdf(x; alpha) for x ~ Gamma(alpha): Taylor series for x < 0.8f,
 * Rice saddle point for alpha > 8, else upstream's bivariate rational approximation. */
double tn_standard_gamma_grad_one(double alpha, double x);
/* upstream's digamma_one<double, double> (Cephes; not the digamma op's kernel) */
double tn_digamma_one(double x);

#endif
