/* kernels/x86/lowp_avx2.c — kernels/lowp_body.h compiled for AVX2 + F16C (8 lanes);
 * kernels/lowp.c chooses it at run time. */
#if defined(__x86_64__)
#include "kernels/lowp.h"
#define LP_W 8
#define LP_SFX avx2
#define LP_ATTR __attribute__((target("avx2,f16c")))
#include "kernels/lowp_body.h"
#endif
