/* kernels/x86/vmath_avx2.c — kernels/vmath_body.h compiled for AVX2 + FMA (4 double or 8 float lanes);
 * kernels/vmath.c chooses it at run time. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define VM_W 4
#define VM_SFX avx2
#define VM_ATTR __attribute__((target("avx2,fma")))
#define VM_FMAD(a, b, c) ((vm_d)_mm256_fmadd_pd((a), (b), (c)))
#define VM_FMAF(a, b, c) ((vm_s)_mm256_fmadd_ps((a), (b), (c)))
#define VM_GATHER(t, i) ((vm_d)_mm256_i64gather_pd((t), (__m256i)(i), 8))
#include "kernels/vmath_body.h"
#endif
