/* kernels/x86/quant_dot_body.h — the body shared by the x86 variants of the integer block dot
 * products (kernels/quant.h), included with BLOCK_DOT(f, w, a) defined to give one block's eight
 * 32-bit partial sums (as an __m256i) and CORR(f) the per-block correction factor k such that
 * sumi = sum of partials - k * (sum of the activation quants): 128 when the variant offsets
 * Q8_0 weights to unsigned bytes, 8 for Q4_0's q-8, else 0. Eight blocks' partials are folded
 * with one hadd tree; integer sums are exact, so the order does not matter. */
TN_QTARGET static inline __m256i fold8(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i v4, __m256i v5,
                                       __m256i v6, __m256i v7) {
    __m256i g0 = _mm256_hadd_epi32(_mm256_hadd_epi32(v0, v1), _mm256_hadd_epi32(v2, v3));
    __m256i g1 = _mm256_hadd_epi32(_mm256_hadd_epi32(v4, v5), _mm256_hadd_epi32(v6, v7));
    return _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20), _mm256_permute2x128_si256(g0, g1, 0x31));
}

TN_QTARGET void TN_QNAME(tn_qfmt f, const uint8_t *w, const int8_t *a, const int32_t *asum, int64_t nb,
                         int32_t *sumi) {
    const int bs = f == TN_Q8_0 ? 34 : f == TN_Q4_0 ? 18 : 20;
    const int qoff = f == TN_Q4_1 ? 4 : 2;
    const __m256i k = _mm256_set1_epi32(CORR(f));
    for (int64_t b = 0; b < nb; b += 8, w += 8 * bs, a += 8 * TN_QK) {
        int64_t n = nb - b < 8 ? nb - b : 8;
        __m256i v[8];
        for (int i = 0; i < 8; i++)
            v[i] = i < n ? BLOCK_DOT(f, w + i * bs + qoff, a + i * TN_QK) : _mm256_setzero_si256();
        __m256i s = fold8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
        if (n == 8) {
            s = _mm256_sub_epi32(s, _mm256_mullo_epi32(k, _mm256_loadu_si256((const __m256i *)(asum + b))));
            _mm256_storeu_si256((__m256i *)(sumi + b), s);
        } else {
            int32_t t[8];
            _mm256_storeu_si256((__m256i *)t, s);
            for (int64_t i = 0; i < n; i++) sumi[b + i] = t[i] - CORR(f) * asum[b + i];
        }
    }
}
