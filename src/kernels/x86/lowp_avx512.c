/* kernels/x86/lowp_avx512.c — kernels/lowp_body.h compiled for AVX-512 (16 lanes; BW for the
 * 16-bit lanes); kernels/lowp.c chooses it at run time. */
#if defined(__x86_64__)
#include "kernels/lowp.h"
#define LP_W 16
#define LP_SFX avx512
#define LP_ATTR __attribute__((target("avx512f,avx512bw,avx512vl")))
#include "kernels/lowp_body.h"
#endif
