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

/* ---- k-quants (formulas in kernels/quant.h): the integer super-block sums from kdot(u, a, s0, s1)
 * (32 unsigned bytes u times 32 activation bytes, eight 32-bit partials, those of bytes 0..15
 * times s0 and of bytes 16..31 times s1, exact), then the reference's float steps. */
TN_QTARGET static inline int32_t hsum8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

static inline uint16_t k_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* Q5_K's quants of chunk c (values 64c .. 64c+63): u the 32 low-nibble bytes, qh the 32 high-bit
 * bytes; *lo gets values 64c + l (fifth bit: bit 2c of qh[l]), *hi values 64c + 32 + l (bit 2c + 1). */
TN_QTARGET static inline __attribute__((always_inline)) void q5k_unpack(__m256i u, __m256i qh, int c, __m256i *lo,
                                                                       __m256i *hi) {
    const __m256i m4 = _mm256_set1_epi8(0x0f), b4 = _mm256_set1_epi8(0x10);
    const __m256i h = _mm256_srl_epi16(qh, _mm_cvtsi32_si128(2 * c)); /* bit 2c of each byte to bit 0 */
    *lo = _mm256_or_si256(_mm256_and_si256(u, m4), _mm256_and_si256(_mm256_slli_epi16(h, 4), b4));
    *hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(u, 4), m4), _mm256_and_si256(_mm256_slli_epi16(h, 3), b4));
}

/* Q4_K (five = 0, a compile-time constant) and Q5_K (five = 1). */
TN_QTARGET static inline __attribute__((always_inline)) float krow_q45k(const uint8_t *w, const tn_qact *a, int64_t nb,
                                                                       const int five) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += five ? 176 : 144) {
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        const uint8_t *q = w + 4;
        int sc[8], m[8];
        for (int j = 0; j < 4; j++) {
            sc[j] = q[j] & 63;
            m[j] = q[j + 4] & 63;
            sc[j + 4] = (q[j + 8] & 0xF) | ((q[j] >> 6) << 4);
            m[j + 4] = (q[j + 8] >> 4) | ((q[j + 4] >> 6) << 4);
        }
        __m256i v = _mm256_setzero_si256();
        const __m256i qh = five ? _mm256_loadu_si256((const __m256i *)(w + 16)) : _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i u = _mm256_loadu_si256((const __m256i *)(w + (five ? 48 : 16) + 32 * c)), lo, hi;
            if (five) {
                q5k_unpack(u, qh, c, &lo, &hi);
            } else {
                lo = _mm256_and_si256(u, m4);
                hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), m4);
            }
            v = _mm256_add_epi32(v, kdot(lo, x + 64 * c, sc[2 * c], sc[2 * c]));
            v = _mm256_add_epi32(v, kdot(hi, x + 64 * c + 32, sc[2 * c + 1], sc[2 * c + 1]));
        }
        int32_t isum = hsum8(v), msum = 0;
        for (int j = 0; j < 8; j++) msum += m[j] * (bs[2 * j] + bs[2 * j + 1]);
        const float da = a->d[i];
        const float t = (_cvtsh_ss(k_rd16(w)) * da) * (float)isum, u = (_cvtsh_ss(k_rd16(w + 2)) * da) * (float)msum;
        acc += t - u;
    }
    return acc;
}

/* Q6_K: half h (0, 1) of one super-block q: unpack its four 32-byte vectors of 6-bit values (low nibbles
 * from ql, the two high bits from qh) and add their kdot with the activations to v, in the order
 * u[0] .. u[3] (one helper for krow_q6k and rows8_q6k). */
TN_QTARGET static inline __attribute__((always_inline)) __m256i q6k_half_dot(const uint8_t *q, int h, const int8_t *x,
                                                                             const int8_t *sc, __m256i v) {
    const __m256i m4 = _mm256_set1_epi8(0x0f), m3 = _mm256_set1_epi8(0x03), m30 = _mm256_set1_epi8(0x30),
                  mc = _mm256_set1_epi8(0x0c);
    const __m256i l0 = _mm256_loadu_si256((const __m256i *)(q + 64 * h));
    const __m256i l1 = _mm256_loadu_si256((const __m256i *)(q + 64 * h + 32));
    const __m256i qh = _mm256_loadu_si256((const __m256i *)(q + 128 + 32 * h));
    __m256i u[4];
    u[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(qh, m3), 4));
    u[1] = _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_slli_epi16(_mm256_and_si256(qh, mc), 2));
    u[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(qh, m30));
    u[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4), _mm256_and_si256(_mm256_srli_epi16(qh, 2), m30));
    for (int k = 0; k < 4; k++) {
        const int g = 8 * h + 2 * k;
        v = _mm256_add_epi32(v, kdot(u[k], x + 128 * h + 32 * k, sc[g], sc[g + 1]));
    }
    return v;
}

TN_QTARGET static float krow_q6k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 210) {
        const int8_t *x = a->q + i * TN_QKK;
        const int8_t *sc = (const int8_t *)(w + 192);
        const int32_t *bs = a->sum + i * 16;
        __m256i v = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) v = q6k_half_dot(w, h, x, sc, v);
        int32_t corr = 0;
        for (int g = 0; g < 16; g++) corr += sc[g] * bs[g];
        int32_t isum = hsum8(v) - 32 * corr;
        acc += (_cvtsh_ss(k_rd16(w + 208)) * a->d[i]) * (float)isum;
    }
    return acc;
}

/* Q3_K: the sixteen 6-bit scales (12 bytes at s) as bytes 0..63 (ggml's unpacking, four at a time),
 * built in a register (through memory, four 32-bit stores then a 128-bit load, the store could not
 * be forwarded: the eight-row kernel's hottest instruction). */
TN_QTARGET static inline __m128i q3k_scales16(const uint8_t *s) {
    const uint32_t k1 = 0x03030303u, k2 = 0x0f0f0f0fu;
    uint32_t a0, a1, t;
    memcpy(&a0, s, 4);
    memcpy(&a1, s + 4, 4);
    memcpy(&t, s + 8, 4);
    return _mm_setr_epi32((int)((a0 & k2) | ((t & k1) << 4)), (int)((a1 & k2) | (((t >> 2) & k1) << 4)),
                          (int)(((a0 >> 4) & k2) | (((t >> 4) & k1) << 4)), (int)(((a1 >> 4) & k2) | (((t >> 6) & k1) << 4)));
}

/* Q3_K: half h (0, 1) of one super-block q: its four 32-byte vectors of 3-bit values u = q + 4 in
 * 0..7 (two bits from qs, the third from hmask) and their kdot with the activations added to v;
 * sc the scales minus 32 (the -4 is the caller's -4 * sum_g sc_g * bsum_g). *hm: hmask shifted
 * right by 4h (bit k of each byte in bit 0 as value block 4h + k comes up), shifted on by four. */
TN_QTARGET static inline __attribute__((always_inline)) __m256i q3k_half_dot(const uint8_t *q, int h, const int8_t *x,
                                                                             const int *sc, __m256i *hm, __m256i v) {
    const __m256i m3 = _mm256_set1_epi8(0x03), m4 = _mm256_set1_epi8(0x04);
    const __m256i lo = _mm256_loadu_si256((const __m256i *)(q + 32 + 32 * h));
    __m256i hb = _mm256_slli_epi16(*hm, 2); /* bit k + 2: the third bit of value block 4h + k */
    for (int k = 0; k < 4; k++) {
        const __m256i b2 = _mm256_and_si256(_mm256_srli_epi16(lo, 2 * k), m3);
        const int g = 8 * h + 2 * k;
        v = _mm256_add_epi32(v, kdot(_mm256_or_si256(b2, _mm256_and_si256(hb, m4)), x + 128 * h + 32 * k, sc[g], sc[g + 1]));
        hb = _mm256_srli_epi16(hb, 1);
    }
    *hm = _mm256_srli_epi16(*hm, 4);
    return v;
}

TN_QTARGET static float krow_q3k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 110) {
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        const __m128i s16 = q3k_scales16(w + 96), c32 = _mm_set1_epi8(32);
        int8_t sb[16];
        _mm_storeu_si128((__m128i *)sb, _mm_sub_epi8(s16, c32));
        int sc[16];
        int32_t corr = 0;
        for (int g = 0; g < 16; g++) {
            sc[g] = sb[g];
            corr += sc[g] * bs[g];
        }
        __m256i v = _mm256_setzero_si256(), hm = _mm256_loadu_si256((const __m256i *)w);
        v = q3k_half_dot(w, 0, x, sc, &hm, v);
        v = q3k_half_dot(w, 1, x, sc, &hm, v);
        int32_t isum = hsum8(v) - 4 * corr;
        acc += (_cvtsh_ss(k_rd16(w + 108)) * a->d[i]) * (float)isum;
    }
    return acc;
}

/* Q2_K: half h (0, 1) of one super-block q: its four 32-byte vectors of 2-bit values and their kdot
 * with the activations added to v (sc: the sixteen 4-bit scales). */
TN_QTARGET static inline __attribute__((always_inline)) __m256i q2k_half_dot(const uint8_t *q, int h, const int8_t *x,
                                                                             const int *sc, __m256i v) {
    const __m256i m3 = _mm256_set1_epi8(0x03);
    const __m256i lo = _mm256_loadu_si256((const __m256i *)(q + 16 + 32 * h));
    for (int k = 0; k < 4; k++) {
        const int g = 8 * h + 2 * k;
        v = _mm256_add_epi32(v, kdot(_mm256_and_si256(_mm256_srli_epi16(lo, 2 * k), m3), x + 128 * h + 32 * k, sc[g], sc[g + 1]));
    }
    return v;
}

TN_QTARGET static float krow_q2k(const uint8_t *w, const tn_qact *a, int64_t nb) {
    float acc = 0;
    for (int64_t i = 0; i < nb; i++, w += 84) {
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        int sc[16];
        int32_t msum = 0;
        for (int g = 0; g < 16; g++) {
            sc[g] = w[g] & 0xF;
            msum += (w[g] >> 4) * bs[g];
        }
        __m256i v = _mm256_setzero_si256();
        for (int h = 0; h < 2; h++) v = q2k_half_dot(w, h, x, sc, v);
        const int32_t isum = hsum8(v);
        const float da = a->d[i];
        const float t = (_cvtsh_ss(k_rd16(w + 80)) * da) * (float)isum, u = (_cvtsh_ss(k_rd16(w + 82)) * da) * (float)msum;
        acc += t - u;
    }
    return acc;
}

TN_QTARGET float TN_QNAME(tn_qfmt f, const uint8_t *w, const tn_qact *a, int64_t nb) {
    switch (f) {
    case TN_Q4_K: return krow_q45k(w, a, nb, 0);
    case TN_Q5_K: return krow_q45k(w, a, nb, 1);
    case TN_Q6_K: return krow_q6k(w, a, nb);
    case TN_Q3_K: return krow_q3k(w, a, nb);
    case TN_Q2_K: return krow_q2k(w, a, nb);
    case TN_Q8_0: return row_impl(TN_Q8_0, w, a, nb);
    case TN_Q4_0: return row_impl(TN_Q4_0, w, a, nb);
    default: return row_impl(TN_Q4_1, w, a, nb);
    }
}

/* ---- Q4_0 and Q4_1, eight rows at once (tn_qrows8_fn, kernels/quant.h): one activation block
 * serves the eight rows; rows c and c + 4 share one 256-bit register (their 16 quant bytes side by
 * side), so three hadds give the eight rows' block sums, lane r = row r. Per row the float steps
 * are the reference's: p = (float)sumi * (dw * da) (Q4_0; sumi of q - 8) or
 * p = (dw * da) * (float)sumi + mw * sa (Q4_1) into lane b % 8, then the same final fold.
 * f: a compile-time constant (TN_Q4_0 or TN_Q4_1). */
TN_QTARGET static inline __attribute__((always_inline)) __m256 blk8_q4(const tn_qfmt f, const uint8_t *wb, int64_t rb,
                                                                      __m256i offs, const int8_t *x, int32_t asum,
                                                                      float da, float sa) {
    const int qo = f == TN_Q4_1 ? 4 : 2; /* the quants' offset in the block */
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i alo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)x));
    const __m256i ahi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(x + 16)));
    __m256i p0 = _mm256_loadu2_m128i((const __m128i *)(wb + 4 * rb + qo), (const __m128i *)(wb + qo));
    __m256i p1 = _mm256_loadu2_m128i((const __m128i *)(wb + 5 * rb + qo), (const __m128i *)(wb + rb + qo));
    __m256i p2 = _mm256_loadu2_m128i((const __m128i *)(wb + 6 * rb + qo), (const __m128i *)(wb + 2 * rb + qo));
    __m256i p3 = _mm256_loadu2_m128i((const __m128i *)(wb + 7 * rb + qo), (const __m128i *)(wb + 3 * rb + qo));
    __m256i v0 = pair_dot(_mm256_and_si256(p0, m4), _mm256_and_si256(_mm256_srli_epi16(p0, 4), m4), alo, ahi);
    __m256i v1 = pair_dot(_mm256_and_si256(p1, m4), _mm256_and_si256(_mm256_srli_epi16(p1, 4), m4), alo, ahi);
    __m256i v2 = pair_dot(_mm256_and_si256(p2, m4), _mm256_and_si256(_mm256_srli_epi16(p2, 4), m4), alo, ahi);
    __m256i v3 = pair_dot(_mm256_and_si256(p3, m4), _mm256_and_si256(_mm256_srli_epi16(p3, 4), m4), alo, ahi);
    __m256i s = _mm256_hadd_epi32(_mm256_hadd_epi32(v0, v1), _mm256_hadd_epi32(v2, v3));
    const __m256i h = _mm256_i32gather_epi32((const int *)wb, offs, 1); /* d (and Q4_1's m) */
    const __m256 dw = _mm256_cvtph_ps(pack_halves(h));
    if (f == TN_Q4_1) {
        const __m256 mw = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
        return _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(da)), _mm256_cvtepi32_ps(s)),
                             _mm256_mul_ps(mw, _mm256_set1_ps(sa)));
    }
    s = _mm256_sub_epi32(s, _mm256_set1_epi32(asum * 8));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, _mm256_set1_ps(da)));
}

TN_QTARGET static inline __attribute__((always_inline)) void rows8_q4(const tn_qfmt f, const uint8_t *w, int64_t rb,
                                                                       const tn_qact *a, int64_t nb, float *out) {
    const int bs = f == TN_Q4_1 ? 20 : 18;
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)rb));
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0,
           acc7 = acc0;
    int64_t b = 0;
    /* The eight rows are one contiguous span of 8 * rb bytes. Decode streams every weight from
     * memory once per token, and these eight interleaved streams left the hardware prefetchers
     * behind (7 GB/s measured against 23 GB/s for a plain sequential read): so the span two
     * groups ahead is fetched a few lines per block, spread evenly over the blocks (measured
     * 1.5 ns per block-row from memory instead of 2.5; a burst at the start or distances 1, 3, 6
     * did no better). Prefetches past the matrix's end are harmless. */
    const char *pf = (const char *)w + 16 * rb;
    const int64_t span = 8 * rb;
    int64_t pfo = 0;
#define TN_Q4B(i, accv)                                                                                                \
    do {                                                                                                               \
        for (; pfo < span * (b + i + 1) / nb; pfo += 64) _mm_prefetch(pf + pfo, _MM_HINT_T0);                          \
        accv = _mm256_add_ps(accv, blk8_q4(f, w + (b + i) * bs, rb, offs, a->q + (b + i) * TN_QK, a->sum[b + i], a->d[b + i], a->s[b + i])); \
    } while (0)
    for (; b + 8 <= nb; b += 8) {
        TN_Q4B(0, acc0); TN_Q4B(1, acc1); TN_Q4B(2, acc2); TN_Q4B(3, acc3);
        TN_Q4B(4, acc4); TN_Q4B(5, acc5); TN_Q4B(6, acc6); TN_Q4B(7, acc7);
    }
    /* the tail: block b + i still goes to lane (b + i) % 8 = i */
    if (b < nb) TN_Q4B(0, acc0);
    if (b + 1 < nb) TN_Q4B(1, acc1);
    if (b + 2 < nb) TN_Q4B(2, acc2);
    if (b + 3 < nb) TN_Q4B(3, acc3);
    if (b + 4 < nb) TN_Q4B(4, acc4);
    if (b + 5 < nb) TN_Q4B(5, acc5);
    if (b + 6 < nb) TN_Q4B(6, acc6);
#undef TN_Q4B
    __m256 h0 = _mm256_add_ps(acc0, acc4), h1 = _mm256_add_ps(acc1, acc5);
    __m256 h2 = _mm256_add_ps(acc2, acc6), h3 = _mm256_add_ps(acc3, acc7);
    _mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(h0, h2), _mm256_add_ps(h1, h3)));
}

/* ---- k-quants, eight rows at once: the activation super-block serves the eight rows; per row the
 * integer sums are those of krow_q45k / krow_q6k (exact, so their order is free), gathered by one
 * fold8 tree into lane r = row r, and the float steps are the one-row kernels', lane-wise. The
 * span of the eight rows two groups ahead is prefetched as in rows8_q4. */
TN_QTARGET static inline void prefetch_to(const char *pf, int64_t *pfo, int64_t upto) {
    for (; *pfo < upto; *pfo += 64) _mm_prefetch(pf + *pfo, _MM_HINT_T0);
}

/* bs[0..15] (int32) -> lane j = bs[2j] + bs[2j+1] */
TN_QTARGET static inline __m256i pair_sums16(const int32_t *bs) {
    __m256i h = _mm256_hadd_epi32(_mm256_loadu_si256((const __m256i *)bs), _mm256_loadu_si256((const __m256i *)(bs + 8)));
    return _mm256_permute4x64_epi64(h, 0xd8);
}

/* Q4_K (five = 0, a compile-time constant) and Q5_K (five = 1). */
TN_QTARGET static inline __attribute__((always_inline)) void rows8_q45k(const uint8_t *w, int64_t rb, const tn_qact *a,
                                                                       int64_t nb, float *out, const int five) {
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)rb));
    const char *pf = (const char *)w + 16 * rb;
    int64_t pfo = 0;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        const uint8_t *wb = w + i * (five ? 176 : 144);
        const int8_t *x = a->q + i * TN_QKK;
        const __m256i bsp = pair_sums16(a->sum + i * 16);
        __m256i v[8], mv[8];
        for (int r = 0; r < 8; r++) {
            const uint8_t *q = wb + r * rb;
            prefetch_to(pf, &pfo, 8 * rb * (8 * i + r + 1) / (8 * nb));
            uint32_t u0, u1, u2;
            memcpy(&u0, q + 4, 4);
            memcpy(&u1, q + 8, 4);
            memcpy(&u2, q + 12, 4);
            /* the 6-bit scales sc_0..7 and mins m_0..7 as bytes (krow_q45k's unpacking, four at a time) */
            const uint64_t sc = (uint64_t)(u0 & 0x3f3f3f3fu) |
                                (uint64_t)((u2 & 0x0f0f0f0fu) | (((u0 >> 6) & 0x03030303u) << 4)) << 32;
            const uint64_t mn = (uint64_t)(u1 & 0x3f3f3f3fu) |
                                (uint64_t)(((u2 >> 4) & 0x0f0f0f0fu) | (((u1 >> 6) & 0x03030303u) << 4)) << 32;
            mv[r] = _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)mn)), bsp);
            __m256i acc_r = _mm256_setzero_si256();
            const __m256i qh = five ? _mm256_loadu_si256((const __m256i *)(q + 16)) : _mm256_setzero_si256();
            for (int c = 0; c < 4; c++) {
                const int s0 = (int)(sc >> (16 * c)) & 0xff, s1 = (int)(sc >> (16 * c + 8)) & 0xff;
                __m256i u = _mm256_loadu_si256((const __m256i *)(q + (five ? 48 : 16) + 32 * c)), lo, hi;
                if (five) {
                    q5k_unpack(u, qh, c, &lo, &hi);
                } else {
                    lo = _mm256_and_si256(u, m4);
                    hi = _mm256_and_si256(_mm256_srli_epi16(u, 4), m4);
                }
                acc_r = _mm256_add_epi32(acc_r, kdot(lo, x + 64 * c, s0, s0));
                acc_r = _mm256_add_epi32(acc_r, kdot(hi, x + 64 * c + 32, s1, s1));
            }
            v[r] = acc_r;
        }
        const __m256i isum = fold8(v), msum = fold8(mv);
        const __m256i h = _mm256_i32gather_epi32((const int *)wb, offs, 1); /* d, dmin */
        const __m256 dw = _mm256_cvtph_ps(pack_halves(h)), dmin = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
        const __m256 da = _mm256_set1_ps(a->d[i]);
        const __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw, da), _mm256_cvtepi32_ps(isum));
        const __m256 u = _mm256_mul_ps(_mm256_mul_ps(dmin, da), _mm256_cvtepi32_ps(msum));
        acc = _mm256_add_ps(acc, _mm256_sub_ps(t, u));
    }
    _mm256_storeu_ps(out, acc);
}

TN_QTARGET static void rows8_q6k(const uint8_t *w, int64_t rb, const tn_qact *a, int64_t nb, float *out) {
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)rb));
    const char *pf = (const char *)w + 16 * rb;
    int64_t pfo = 0;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        const uint8_t *wb = w + i * 210;
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        const __m256i bs0 = _mm256_loadu_si256((const __m256i *)bs), bs1 = _mm256_loadu_si256((const __m256i *)(bs + 8));
        __m256i v[8], cv[8];
                for (int r = 0; r < 8; r++) {
            const uint8_t *q = wb + r * rb;
            prefetch_to(pf, &pfo, 8 * rb * (8 * i + r + 1) / (8 * nb));
            const int8_t *sc = (const int8_t *)(q + 192);
            const __m128i sc16 = _mm_loadu_si128((const __m128i *)sc);
            cv[r] = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvtepi8_epi32(sc16), bs0),
                                     _mm256_mullo_epi32(_mm256_cvtepi8_epi32(_mm_srli_si128(sc16, 8)), bs1));
            __m256i acc_r = _mm256_setzero_si256();
            for (int hh = 0; hh < 2; hh++) acc_r = q6k_half_dot(q, hh, x, sc, acc_r);
            v[r] = acc_r;
        }
        const __m256i isum = _mm256_sub_epi32(fold8(v), _mm256_slli_epi32(fold8(cv), 5)); /* - 32 * corr */
        /* d is the block's last two bytes: gather the four ending there (in bounds), keep the high half */
        const __m256i h = _mm256_i32gather_epi32((const int *)(wb + 206), offs, 1);
        const __m256 dw = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
        acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a->d[i])), _mm256_cvtepi32_ps(isum)));
    }
    _mm256_storeu_ps(out, acc);
}

TN_QTARGET static void rows8_q3k(const uint8_t *w, int64_t rb, const tn_qact *a, int64_t nb, float *out) {
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)rb));
    const char *pf = (const char *)w + 16 * rb;
    int64_t pfo = 0;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        const uint8_t *wb = w + i * 110;
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        const __m256i bs0 = _mm256_loadu_si256((const __m256i *)bs), bs1 = _mm256_loadu_si256((const __m256i *)(bs + 8));
        const __m256i c32 = _mm256_set1_epi32(32);
        __m256i v[8], cv[8];
        for (int r = 0; r < 8; r++) {
            const uint8_t *q = wb + r * rb;
            prefetch_to(pf, &pfo, 8 * rb * (8 * i + r + 1) / (8 * nb));
            const __m128i s16 = q3k_scales16(q + 96);
            const __m256i sc0 = _mm256_sub_epi32(_mm256_cvtepu8_epi32(s16), c32);
            const __m256i sc1 = _mm256_sub_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(s16, 8)), c32);
            cv[r] = _mm256_add_epi32(_mm256_mullo_epi32(sc0, bs0), _mm256_mullo_epi32(sc1, bs1));
            int sc[16];
            _mm256_storeu_si256((__m256i *)sc, sc0);
            _mm256_storeu_si256((__m256i *)(sc + 8), sc1);
            __m256i acc_r = _mm256_setzero_si256(), hm = _mm256_loadu_si256((const __m256i *)q);
            acc_r = q3k_half_dot(q, 0, x, sc, &hm, acc_r);
            acc_r = q3k_half_dot(q, 1, x, sc, &hm, acc_r);
            v[r] = acc_r;
        }
        const __m256i isum = _mm256_sub_epi32(fold8(v), _mm256_slli_epi32(fold8(cv), 2)); /* - 4 * corr */
        /* d is the block's last two bytes: gather the four ending there (in bounds), keep the high half */
        const __m256i h = _mm256_i32gather_epi32((const int *)(wb + 106), offs, 1);
        const __m256 dw = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
        acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_mul_ps(dw, _mm256_set1_ps(a->d[i])), _mm256_cvtepi32_ps(isum)));
    }
    _mm256_storeu_ps(out, acc);
}

TN_QTARGET static void rows8_q2k(const uint8_t *w, int64_t rb, const tn_qact *a, int64_t nb, float *out) {
    const __m256i offs = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)rb));
    const __m128i m4 = _mm_set1_epi8(0x0f);
    const char *pf = (const char *)w + 16 * rb;
    int64_t pfo = 0;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t i = 0; i < nb; i++) {
        const uint8_t *wb = w + i * 84;
        const int8_t *x = a->q + i * TN_QKK;
        const int32_t *bs = a->sum + i * 16;
        const __m256i bs0 = _mm256_loadu_si256((const __m256i *)bs), bs1 = _mm256_loadu_si256((const __m256i *)(bs + 8));
        __m256i v[8], mv[8];
        for (int r = 0; r < 8; r++) {
            const uint8_t *q = wb + r * rb;
            prefetch_to(pf, &pfo, 8 * rb * (8 * i + r + 1) / (8 * nb));
            const __m128i s16 = _mm_loadu_si128((const __m128i *)q);
            const __m128i sl = _mm_and_si128(s16, m4), mh = _mm_and_si128(_mm_srli_epi16(s16, 4), m4);
            mv[r] = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvtepu8_epi32(mh), bs0),
                                     _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(mh, 8)), bs1));
            int sc[16];
            _mm256_storeu_si256((__m256i *)sc, _mm256_cvtepu8_epi32(sl));
            _mm256_storeu_si256((__m256i *)(sc + 8), _mm256_cvtepu8_epi32(_mm_srli_si128(sl, 8)));
            __m256i acc_r = _mm256_setzero_si256();
            for (int hh = 0; hh < 2; hh++) acc_r = q2k_half_dot(q, hh, x, sc, acc_r);
            v[r] = acc_r;
        }
        const __m256i isum = fold8(v), msum = fold8(mv);
        const __m256i h = _mm256_i32gather_epi32((const int *)(wb + 80), offs, 1); /* d, dmin */
        const __m256 dw = _mm256_cvtph_ps(pack_halves(h)), dmin = _mm256_cvtph_ps(pack_halves(_mm256_srli_epi32(h, 16)));
        const __m256 da = _mm256_set1_ps(a->d[i]);
        const __m256 t = _mm256_mul_ps(_mm256_mul_ps(dw, da), _mm256_cvtepi32_ps(isum));
        const __m256 u = _mm256_mul_ps(_mm256_mul_ps(dmin, da), _mm256_cvtepi32_ps(msum));
        acc = _mm256_add_ps(acc, _mm256_sub_ps(t, u));
    }
    _mm256_storeu_ps(out, acc);
}

TN_QTARGET static inline __attribute__((always_inline)) void tile_q8(const int mt, const uint8_t *w, int64_t rb,
                                                                      const tn_qact *a, int64_t nb, float *out,
                                                                      int64_t ldo);

TN_QTARGET int TN_QNAME8(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int64_t nb, float *out) {
    if (rowbytes > INT32_MAX / 8) return 0;
    switch (f) {
    case TN_Q4_0: rows8_q4(TN_Q4_0, w, rowbytes, a, nb, out); return 1;
    case TN_Q4_1: rows8_q4(TN_Q4_1, w, rowbytes, a, nb, out); return 1;
    case TN_Q4_K: rows8_q45k(w, rowbytes, a, nb, out, 0); return 1;
    case TN_Q5_K: rows8_q45k(w, rowbytes, a, nb, out, 1); return 1;
    case TN_Q6_K: rows8_q6k(w, rowbytes, a, nb, out); return 1;
    case TN_Q3_K: rows8_q3k(w, rowbytes, a, nb, out); return 1;
    case TN_Q2_K: rows8_q2k(w, rowbytes, a, nb, out); return 1;
    case TN_Q8_0: tile_q8(1, w, rowbytes, a, nb, out, 8); return 1;
    default: return 0;
    }
}

/* ---- Q8_0, up to TN_QTILE_M activation rows by eight weight rows (tn_qtile_fn, prefill): each
 * weight block is rearranged once by the variant's tq8_prep (tq8_w) for the mt activation rows;
 * tq8_dot gives the eight rows' exact block sums in lanes (lane r = row r; partials of (w + 128)
 * * a where Q8_SHIFT is 7). Per output the float steps are row_impl's:
 * p = (float)sumi * (dw * da) into lane b % 8 (here: accumulator b % 8, lane r), the same fold.
 * mt: a compile-time constant in each instantiation. */
TN_QTARGET static inline __attribute__((always_inline)) void tile_q8(const int mt, const uint8_t *w, int64_t rb,
                                                                      const tn_qact *a, int64_t nb, float *out,
                                                                      int64_t ldo) {
    __m256 acc[TN_QTILE_M][8];
    for (int m = 0; m < mt; m++)
        for (int i = 0; i < 8; i++) acc[m][i] = _mm256_setzero_ps();
    /* one activation row (decode): the weights stream from memory once, so the span two groups
     * ahead is prefetched as in rows8_q4 */
    const char *pf = (const char *)w + 16 * rb;
    int64_t pfo = 0;
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *wb = w + b * 34;
        tq8_w t;
        if (mt == 1) prefetch_to(pf, &pfo, 8 * rb * (b + 1) / nb);
        tq8_prep(&t, wb + 2, rb);
        __m128i hw = _mm_cvtsi32_si128(k_rd16(wb)); /* the eight f16 d: plain loads beat a gather here */
        hw = _mm_insert_epi16(hw, k_rd16(wb + rb), 1);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 2 * rb), 2);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 3 * rb), 3);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 4 * rb), 4);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 5 * rb), 5);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 6 * rb), 6);
        hw = _mm_insert_epi16(hw, k_rd16(wb + 7 * rb), 7);
        const __m256 dw = _mm256_cvtph_ps(hw);
#pragma GCC unroll 8
        for (int m = 0; m < mt; m++) {
            __m256i s = tq8_dot(&t, a[m].q + b * TN_QK);
            if (Q8_SHIFT > 0) s = _mm256_sub_epi32(s, _mm256_set1_epi32(a[m].sum[b] * (1 << Q8_SHIFT)));
            const __m256 p = _mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(dw, _mm256_set1_ps(a[m].d[b])));
            acc[m][b & 7] = _mm256_add_ps(acc[m][b & 7], p);
        }
    }
    for (int m = 0; m < mt; m++) {
        const __m256 h0 = _mm256_add_ps(acc[m][0], acc[m][4]), h1 = _mm256_add_ps(acc[m][1], acc[m][5]);
        const __m256 h2 = _mm256_add_ps(acc[m][2], acc[m][6]), h3 = _mm256_add_ps(acc[m][3], acc[m][7]);
        _mm256_storeu_ps(out + m * ldo, _mm256_add_ps(_mm256_add_ps(h0, h2), _mm256_add_ps(h1, h3)));
    }
}

TN_QTARGET int TN_QNAMET(tn_qfmt f, const uint8_t *w, int64_t rowbytes, const tn_qact *a, int mt, int64_t nb,
                         float *out, int64_t ldo) {
    if (f != TN_Q8_0 || rowbytes > INT32_MAX / 8 || mt < 1 || mt > TN_QTILE_M) return 0;
    switch (mt) {
    case 1: tile_q8(1, w, rowbytes, a, nb, out, ldo); break;
    case 2: tile_q8(2, w, rowbytes, a, nb, out, ldo); break;
    case 3: tile_q8(3, w, rowbytes, a, nb, out, ldo); break;
    case 4: tile_q8(4, w, rowbytes, a, nb, out, ldo); break;
    case 5: tile_q8(5, w, rowbytes, a, nb, out, ldo); break;
    case 6: tile_q8(6, w, rowbytes, a, nb, out, ldo); break;
    case 7: tile_q8(7, w, rowbytes, a, nb, out, ldo); break;
    default: tile_q8(8, w, rowbytes, a, nb, out, ldo); break;
    }
    return 1;
}

/* ---- Activation rows quantised as Q8_0 / Q8_1 (tn_qact8_fn, kernels/quant.h): ggml's reference
 * (kernels/ref/quant.c quant_block) eight values at a time. amax: a max of non-negative non-NaN
 * values, so its order is free; d, id and the f16 roundings are the reference's scalar steps;
 * roundf(t) as trunc(t), plus copysign(1, t) where |t - trunc(t)| >= 0.5 (exact: t - trunc(t) is
 * exact; inf and NaN pass through unchanged); the int8 is the low byte of the truncating 32-bit
 * conversion, out of range or NaN giving INT32_MIN as q_byte does. A row holding a NaN is
 * refused (the reference's max depends on the NaN's position). */
TN_QTARGET int TN_QNAMEA(tn_qfmt af, const float *x, int64_t nb, const tn_qact *o) {
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), signm = _mm256_set1_ps(-0.0f);
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int64_t b = 0; b < nb; b++) {
        const float *xb = x + b * TN_QK;
        __m256 v[4], m = _mm256_setzero_ps(), nan = _mm256_setzero_ps();
        for (int k = 0; k < 4; k++) {
            v[k] = _mm256_loadu_ps(xb + 8 * k);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q));
            m = _mm256_max_ps(m, _mm256_and_ps(v[k], absm));
        }
        if (_mm256_movemask_ps(nan)) return 0;
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        const float amax = _mm_cvtss_f32(_mm_max_ss(h, _mm_shuffle_ps(h, h, 1)));
        const float d = amax / 127;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        const __m256 idv = _mm256_set1_ps(id);
        __m256i q[4], s = _mm256_setzero_si256();
        for (int k = 0; k < 4; k++) {
            const __m256 t = _mm256_mul_ps(v[k], idv);
            __m256 r = _mm256_round_ps(t, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            const __m256 up = _mm256_cmp_ps(_mm256_and_ps(_mm256_sub_ps(t, r), absm), half, _CMP_GE_OQ);
            r = _mm256_add_ps(r, _mm256_and_ps(up, _mm256_or_ps(_mm256_and_ps(t, signm), one)));
            q[k] = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_cvttps_epi32(r), 24), 24); /* the low byte */
            s = _mm256_add_epi32(s, q[k]);
        }
        const __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(o->q + b * TN_QK), _mm256_permutevar8x32_epi32(p, order));
        const int32_t sum = hsum8(s);
        o->d[b] = tn_f16_to_f32(tn_f32_to_f16(d));
        o->s[b] = af == TN_Q8_1 ? tn_f16_to_f32(tn_f32_to_f16((float)sum * d)) : 0.0f;
        o->sum[b] = sum;
    }
    return 1;
}
