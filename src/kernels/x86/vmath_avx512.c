/* kernels/x86/vmath_avx512.c — kernels/vmath_body.h compiled for AVX-512F (8 double or 16 float lanes);
 * kernels/vmath.c chooses it at run time. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define VM_W 8
#define VM_SFX avx512
#define VM_ATTR __attribute__((target("avx512f")))
#define VM_FMAD(a, b, c) ((vm_d)_mm512_fmadd_pd((a), (b), (c)))
#define VM_FMAF(a, b, c) ((vm_s)_mm512_fmadd_ps((a), (b), (c)))
#define VM_GATHER(t, i) ((vm_d)_mm512_i64gather_pd((__m512i)(i), (t), 8))
#include "kernels/vmath_body.h"
#endif
