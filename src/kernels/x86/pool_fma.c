/* kernels/x86/pool_fma.c — the interpolation kernels of kernels/pool_interp.h compiled for FMA
 * (their fused multiply-adds inline instead of libm calls). Called by ref/pool.c only after the
 * CPU reported FMA; same bits as the reference instantiation. */
#if defined(__x86_64__)

#include "kernels/pool_interp.h"

#include <math.h>

#define TN_FMA_ATTR __attribute__((target("fma")))

TN_INTERP_KERNELS(tn_interp_fma_f32, float, __builtin_fmaf, TN_FMA_ATTR)
TN_INTERP_KERNELS(tn_interp_fma_f64, double, __builtin_fma, TN_FMA_ATTR)

#endif
