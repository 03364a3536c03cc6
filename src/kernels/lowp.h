/* lowp.h — vectorised bf16 pointwise work over contiguous arrays, with the bits of the scalar
 * reference (kernels/ref/ew_impl.h's tn__b2f / tn__f2b): widen to f32, compute in f32, round to
 * nearest even once. Bodies: portable C (GNU vectors of 4 lanes), AVX2 (8) and AVX-512 (16),
 * chosen at run time (kernels/lowp.c; TN_VEXP=ref|avx2 forces a lower one, as for kernels/vmath.h).
 * Every variant does lane for lane the same f32 operation, so all return the same bits. */
#ifndef TN_KERNELS_LOWP_H
#define TN_KERNELS_LOWP_H

#include <stdint.h>

/* NaN results of a narrowing: TN_LP_NAN_KEEP is tn__f2b's (sign and payload kept, quiet bit
 * set: what the elementwise kernels store), TN_LP_NAN_FFFF upstream's vectorised f32 -> bf16
 * copy (0xFFFF). */
enum { TN_LP_NAN_KEEP = 0, TN_LP_NAN_FFFF = 1 };

void tn_lp_bf16_to_f32(float *y, const uint16_t *x, int64_t n);
void tn_lp_f32_to_bf16(uint16_t *y, const float *x, int64_t n, int nan_mode);

/* y = a op b on bf16 arrays, op TN_LP_ADD (a + b) or TN_LP_MUL (a * b); a_step / b_step are 1
 * (contiguous) or 0 (one element broadcast). NaN as TN_LP_NAN_KEEP. y may alias a or b. */
enum { TN_LP_ADD = 0, TN_LP_MUL = 1 };
void tn_lp_binary_bf16(int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b, int b_step, int64_t n);

/* y = -x on bf16 (y may be x) */
void tn_lp_neg_bf16(uint16_t *y, const uint16_t *x, int64_t n);

#endif
