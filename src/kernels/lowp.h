/* lowp.h — vectorised bf16 / f16 pointwise work over contiguous arrays, with the bits of the
 * scalar reference (kernels/ref/ew_impl.h's loads and stores): widen to f32, compute in f32,
 * round to nearest even once. Bodies: portable C (GNU vectors of 4 lanes), AVX2+F16C (8) and
 * AVX-512 (16), chosen at run time (kernels/lowp.c; TN_VEXP=ref|avx2 forces a lower one, as for
 * kernels/vmath.h). Every variant does lane for lane the same f32 operation, so all return the
 * same bits. */
#ifndef TN_KERNELS_LOWP_H
#define TN_KERNELS_LOWP_H

#include <stdint.h>

/* The 16-bit float formats. */
typedef enum { TN_LP_BF16 = 0, TN_LP_F16 = 1 } tn_lp_fmt;

/* NaN results of a bf16 narrowing: TN_LP_NAN_KEEP is the elementwise kernels' (sign and payload
 * kept, quiet bit set), TN_LP_NAN_FFFF upstream's vectorised f32 -> bf16 copy (0xFFFF). An f16
 * narrowing always stores the elementwise kernels' NaN (sign | 0x7E00). */
enum { TN_LP_NAN_KEEP = 0, TN_LP_NAN_FFFF = 1 };

/* Widening is exact; an f16 NaN comes out quiet (as vcvtph2ps and upstream's vectorised copy
 * give it), other values as the scalar load. */
void tn_lp_widen(tn_lp_fmt fmt, float *y, const uint16_t *x, int64_t n);
void tn_lp_narrow(tn_lp_fmt fmt, uint16_t *y, const float *x, int64_t n, int nan_mode);

/* y = a op b on 16-bit arrays, op TN_LP_ADD (a + b) or TN_LP_MUL (a * b); a_step / b_step are 1
 * (contiguous) or 0 (one element broadcast). NaN as TN_LP_NAN_KEEP. y may alias a or b. */
enum { TN_LP_ADD = 0, TN_LP_MUL = 1 };
void tn_lp_binary(tn_lp_fmt fmt, int op, uint16_t *y, const uint16_t *a, int a_step, const uint16_t *b, int b_step,
                  int64_t n);

/* y = -x (y may be x): the scalar kernels' widen, negate, narrow */
void tn_lp_neg(tn_lp_fmt fmt, uint16_t *y, const uint16_t *x, int64_t n);

#endif
