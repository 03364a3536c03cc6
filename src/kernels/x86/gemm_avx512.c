/* kernels/x86/gemm_avx512.c — the AVX-512 microkernel of the blocked f32 GEMM (see
 * kernels/gemm_isa.h): 32 lanes (two zmm) x 12 broadcast rows, 24 accumulators, one fused
 * multiply-add chain per output over k in order (bit-identical to the reference). Packing and
 * the few-row path are the AVX2 ones (every AVX-512 CPU has AVX2). Only called after the CPU
 * reported AVX512F. */
#if defined(__x86_64__)

#include "kernels/gemm_isa.h"

#include <immintrin.h>

#define TN_AVX512 __attribute__((target("avx512f,avx2,fma")))

#define TN_ROW(r)                                                                                  \
    b = _mm512_set1_ps(q[r * ldq + k]);                                                            \
    c##r##0 = _mm512_fmadd_ps(a0, b, c##r##0);                                                     \
    c##r##1 = _mm512_fmadd_ps(a1, b, c##r##1);
#define TN_STORE(r)                                                                                \
    _mm512_storeu_ps(tile + r * 32, c##r##0);                                                      \
    _mm512_storeu_ps(tile + r * 32 + 16, c##r##1);

TN_AVX512 static void micro32x12(int64_t K, const float *q, int64_t ldq, const float *p, float *tile) {
    __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m512 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
    __m512 c60 = c00, c61 = c00, c70 = c00, c71 = c00, c80 = c00, c81 = c00;
    __m512 c90 = c00, c91 = c00, c100 = c00, c101 = c00, c110 = c00, c111 = c00;
    for (int64_t k = 0; k < K; k++, p += 32) {
        __m512 a0 = _mm512_loadu_ps(p), a1 = _mm512_loadu_ps(p + 16), b;
        TN_ROW(0) TN_ROW(1) TN_ROW(2) TN_ROW(3) TN_ROW(4) TN_ROW(5)
        TN_ROW(6) TN_ROW(7) TN_ROW(8) TN_ROW(9) TN_ROW(10) TN_ROW(11)
    }
    TN_STORE(0) TN_STORE(1) TN_STORE(2) TN_STORE(3) TN_STORE(4) TN_STORE(5)
    TN_STORE(6) TN_STORE(7) TN_STORE(8) TN_STORE(9) TN_STORE(10) TN_STORE(11)
}

const tn_gemm_isa tn_gemm_isa_avx512 = {
    .name = "avx512", .V = 32, .R = 12, .micro = micro32x12, .pack_t = tn_gemm_avx2_pack_t,
    .nt_few = tn_gemm_avx2_nt_few, .few_m = 8};

#endif
