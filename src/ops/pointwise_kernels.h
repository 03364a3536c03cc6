/* pointwise_kernels.h — the few elementwise loops the pointwise op family needs beyond
 * kernels/elementwise.h: nan_to_num, round(decimals), leaky_relu, elu, threshold and sgn of a
 * complex number. Same contract as every tn_loop: data[0] output, data[1] input (same dtype),
 * ctx a parameter block, never fails, never allocates. Lookups return NULL where upstream has no
 * kernel for the dtype. */
#ifndef TN_OPS_POINTWISE_KERNELS_H
#define TN_OPS_POINTWISE_KERNELS_H

#include "core/iter.h"

/* nan_to_num: replacement values (already defaulted by the op layer to the dtype's limits). */
typedef struct { double nan, posinf, neginf; } tn_pw_nan_params;
tn_loop tn_pw_nan_to_num_loop(tn_dtype dt);          /* floating and complex */

/* round(decimals): ctx = const int64_t* decimals (non-zero). Floating only. */
tn_loop tn_pw_round_decimals_loop(tn_dtype dt);

/* leaky_relu: ctx = const double* negative_slope. Floating only. */
tn_loop tn_pw_leaky_relu_loop(tn_dtype dt);

/* hardshrink: ctx = const double* lambd; softshrink: ctx = const tn_pw_shrink_params* (vw: the
 * vector width in elements of upstream's kernel, see tn_pw_upstream_vec_bytes). Floating only. */
typedef struct { double lambd; int64_t vw; } tn_pw_shrink_params;
int64_t tn_pw_upstream_vec_bytes(void);
tn_loop tn_pw_hardshrink_loop(tn_dtype dt);
tn_loop tn_pw_softshrink_loop(tn_dtype dt);

/* elu: x <= 0 ? expm1(x * input_scale) * (alpha * scale) : x * scale. Floating only. */
typedef struct { double alpha, scale, input_scale; } tn_pw_elu_params;
tn_loop tn_pw_elu_loop(tn_dtype dt);

/* threshold: x <= threshold ? value : x, both converted to the dtype first. Real dtypes. */
typedef struct { double th, val; int64_t thi, vali; } tn_pw_threshold_params;
tn_loop tn_pw_threshold_loop(tn_dtype dt);

/* Binary loops (data = {out, a, b}) for f16 / bf16 where the reference kernels differ from
 * upstream: nextafter (step in the 16-bit format) and xlogy (log(y) rounded to the dtype before
 * the product, as upstream's Half / BFloat16 math does). NULL for other dtypes. */
tn_loop tn_pw_nextafter16_loop(tn_dtype dt);
tn_loop tn_pw_xlogy16_loop(tn_dtype dt);

/* sgn of complex: z / |z|, 0 for 0. */
tn_loop tn_pw_sgn_complex_loop(tn_dtype dt);

#endif
