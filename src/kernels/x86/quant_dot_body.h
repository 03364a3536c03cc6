/* kernels/x86/quant_dot_body.h — the body shared by the x86 variants of the quantised row dot
 * product (tn_qrow_fn, kernels/quant.h), included after defining TN_QTARGET, TN_QNAME,
 * dot_q8(q, a) / dot_q4(q, a) (one block's eight 32-bit partial sums as an __m256i; partials of
 * Q8_0 minus Q8_SHIFT-scaled activation sums, see CORR) and pack_halves(v) (the low 16 bits of
 * eight 32-bit lanes as eight halves in an __m128i). Blocks go eight at a time: their partials
 * are folded by one hadd tree (integers: exact), corrected by CORR * (sum of the activation
 * quants) where the variant offsets the weights, converted to float, scaled lane-wise with the
 * reference's operations, and added to eight lane sums (lane = block % 8, as tn_qrow_ref). */
TN_QTARGET static inline __m256i fold8(const __m256i *v) {
    __m256i g0 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
    __m256i g1 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
    return _mm256_add_epi32(_mm256_permute2x128_si256(g0, g1, 0x20), _mm256_permute2x128_si256(g0, g1, 0x31));
}

/* f: a compile-time constant in each instantiation below. */
TN_QTARGET static inline __attribute__((always_inline)) float row_impl(const tn_qfmt f, const uint8_t *w,
                                                                        const tn_qact *a, int64_t nb) {
    const int bs = f == TN_Q8_0 ? 34 : f == TN_Q4_0 ? 18 : 20;
    const int qoff = f == TN_Q4_1 ? 4 : 2;
    const int shift = f == TN_Q8_0 ? Q8_SHIFT : f == TN_Q4_0 ? 3 : 0; /* CORR = 1 << shift, or 0 */
    const bool corr = f == TN_Q4_0 || (f == TN_Q8_0 && Q8_SHIFT > 0);
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(bs));
    __m256 lanes = _mm256_setzero_ps();
    for (int64_t b = 0; b < nb; b += 8) {
        const uint8_t *wb = w + b * bs;
        const int8_t *x = a->q + b * TN_QK;
        int64_t n = nb - b < 8 ? nb - b : 8;
        __m256i v[8], s, asum;
        __m256 dw, da, sa = _mm256_setzero_ps(), mw = _mm256_setzero_ps();
        /* lanes i < n hold blocks; the rest read nothing and add zero */
        const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        for (int i = 0; i < 8; i++)
            v[i] = i >= n ? _mm256_setzero_si256()
                   : f == TN_Q8_0 ? dot_q8(wb + i * bs + qoff, x + i * TN_QK) : dot_q4(wb + i * bs + qoff, x + i * TN_QK);
        __m256i h = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)wb, offs, live, 1);
        dw = _mm256_cvtph_ps(pack_halves(h));
        if (f == TN_Q4_1) {
            mw = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
            sa = _mm256_maskload_ps(a->s + b, live);
        }
        da = _mm256_maskload_ps(a->d + b, live);
        asum = corr ? _mm256_maskload_epi32(a->sum + b, live) : _mm256_setzero_si256();
        s = fold8(v);
        if (corr) s = _mm256_sub_epi32(s, _mm256_sll_epi32(asum, _mm_cvtsi32_si128(shift)));
        __m256 sf = _mm256_cvtepi32_ps(s), p;
        if (f == TN_Q4_1)
            p = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(dw, da), sf), _mm256_mul_ps(mw, sa));
        else
            p = _mm256_mul_ps(sf, _mm256_mul_ps(dw, da));
        lanes = _mm256_add_ps(lanes, p);
    }
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1)); /* l_i + l_i+4 */
    __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h));                                          /* h0+h2, h1+h3 */
    return _mm_cvtss_f32(_mm_add_ss(q, _mm_shuffle_ps(q, q, 1)));
}

TN_QTARGET float TN_QNAME(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb) {
    switch (f) {
    case TN_Q8_0: return row_impl(TN_Q8_0, w, a, nb);
    case TN_Q4_0: return row_impl(TN_Q4_0, w, a, nb);
    default: return row_impl(TN_Q4_1, w, a, nb);
    }
}
