/* kernels/x86/bnorm_fma.c — the batch-norm kernels of kernels/bnorm_body.h compiled for AVX2 + FMA
 * (fused multiply-adds inline instead of libm calls, loops vectorised). Called by ref/bnorm.c only
 * after the CPU reported both; same bits as the reference instantiation. */
#if defined(__x86_64__)

#include "kernels/bnorm_body.h"

#define TN_BN_FMA_ATTR __attribute__((target("avx2,fma")))

TN_BN_KERNELS_DECL(tn_bn_fma_f32, float)
TN_BN_KERNELS_DECL(tn_bn_fma_f64, double)
TN_BN_KERNELS(tn_bn_fma_f32, float, __builtin_fmaf, TN_BN_FMA_ATTR)
TN_BN_KERNELS(tn_bn_fma_f64, double, __builtin_fma, TN_BN_FMA_ATTR)

#endif
