/* reduce.h — reduction and scan kernels (sum, prod, mean, amax/amin, all/any, count_nonzero,
 * max/min with indices, argmax/argmin, cumsum/cumprod), plain C.
 *
 * The op layer validates arguments, resolves dims and keepdim, chooses dtypes and allocates;
 * these functions only compute (single-threaded). Input: any strided view (tn_tensor).
 * Reduced dims: a bitmask over the input's dims (bit d = dim d; mask 0 on a 0-dim tensor = "all"). Output: a contiguous
 * buffer holding the kept dims in order (reduced dims removed; keepdim is a reshape for the caller).
 *
 * Upstream semantics reproduced (measured against torch 2.13.0 CPU, see tools/dev/check_reduce.py):
 *  - The input is first converted to the compute dtype (= out_dtype for sum/prod/mean/cumsum/
 *    cumprod), as upstream does with self.to(dtype); ints/bool summed into int64 is the caller's
 *    choice of out_dtype.
 *  - Float sum follows upstream's cascade summation (SumKernel.cpp) including its TensorIterator
 *    dimension order, coalescing and vector lane layout. Upstream runs these reduction kernels
 *    from its AVX2 build even on AVX512 machines, so lanes are 256 bits wide. Results are
 *    bit-identical to single-threaded upstream execution, i.e. inputs with fewer than 32768
 *    elements or torch.get_num_threads() == 1 (upstream splits larger ones across threads).
 *    f16/bf16 outputs fold everything in f32 and round once (== x.float().sum(dims).to(dt)).
 *  - prod/amax/amin follow binary_kernel_reduce_vec's lane order (4 x 256-bit accumulators);
 *    f16/bf16 prod rounds after every multiply, as upstream does.
 *  - mean = sum / n in the op-math type (f32 for f16/bf16, rounded once); complex: sum * (1/n).
 *  - max/min/argmax/argmin: first occurrence of the extreme; a NaN wins, the first NaN's index.
 *  - cumsum/cumprod accumulate in upstream's CPU accumulate type (f32 -> double, f16/bf16 -> f32,
 *    ints -> int64, c64 -> c128) and narrow each output once; complex multiply uses FMA as
 *    upstream's compiled scalar code does.
 * Kernels never allocate and never fail on valid input; `false` means (op, dtypes) unsupported. */
#ifndef TN_KERNELS_REDUCE_H
#define TN_KERNELS_REDUCE_H

#include "core/tensor.h"

/* X(ENUM, name) */
#define TN_REDUCE_OPS(X) \
    X(SUM, sum)                                                                             \
    X(PROD, prod)                                                                            \
    X(MEAN, mean)                                                                            \
    X(AMAX, amax)                                                                            \
    X(AMIN, amin)                                                                            \
    X(ALL, all)                     /* out_dtype bool, or uint8 for uint8 input */             \
    X(ANY, any)                                                                              \
    X(COUNT_NONZERO, count_nonzero) /* out_dtype int64 */

typedef enum {
#define TN_X(E, n) TN_REDUCE_##E,
    TN_REDUCE_OPS(TN_X)
#undef TN_X
    TN_REDUCE_OP_COUNT
} tn_reduce_op;

typedef enum { TN_SCAN_CUMSUM, TN_SCAN_CUMPROD } tn_scan_op;

/* Reduce `in` over the dims in `mask` into contiguous `out` of out_dtype.
 * Supported: SUM/PROD/MEAN: out_dtype float, complex, int, bool (MEAN: float/complex only);
 *   the input may be any computable dtype (converted to out_dtype first).
 * AMAX/AMIN: out_dtype == in dtype, real. ALL/ANY: out bool or uint8. COUNT_NONZERO: out int64.
 * Empty reductions write the identity (0, 1, -inf/+inf, true, false, 0; NaN for MEAN). */
bool tn_reduce(tn_reduce_op op, const tn_tensor *in, uint64_t mask, char *out, tn_dtype out_dtype);

/* max/min (is_max) along `dim` (values_out in in's dtype, contiguous kept dims; may be NULL for
 * argmax/argmin) and int64 indices. dim < 0: over all elements (index into the flattened
 * row-major order; values_out, if given, holds one element). Real dtypes and bool only. */
bool tn_reduce_arg(bool is_max, const tn_tensor *in, int dim, char *values_out, int64_t *indices_out);

/* cumsum/cumprod along dim into contiguous out (same shape as in) of out_dtype. */
bool tn_scan(tn_scan_op op, const tn_tensor *in, int dim, char *out, tn_dtype out_dtype);

#endif
