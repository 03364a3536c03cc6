/* ref/pad_backward.c — reflection / replication pad backward (kernels/pad_backward.h). */
#include "kernels/pad_backward.h"
#include "kernels/ref/ew_impl.h"

/* the input index an output index o of a dim of length n with padding p before reads */
static inline int64_t src_index(int64_t o, int64_t n, int64_t p, bool reflect) {
    int64_t i = o - p;
    if (reflect) {
        if (i < 0) i = -i;
        if (i > n - 1) i = 2 * (n - 1) - i;
        return i;
    }
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

#define TN_PAD_BW(sfx, TS, CT, LD, ST)                                                              \
    static void pad_bw_##sfx(bool reflect, int k, int64_t planes, const int64_t *in, const int64_t *out, \
                             const int64_t *pb, const TS *go, TS *gi) {                             \
        int64_t ind[3] = {1, 1, 1}, outd[3] = {1, 1, 1}, pbd[3] = {0, 0, 0};                      \
        for (int j = 0; j < k; j++) {                                                              \
            ind[3 - k + j] = in[j];                                                                 \
            outd[3 - k + j] = out[j];                                                               \
            pbd[3 - k + j] = pb[j];                                                                 \
        }                                                                                           \
        const int64_t isz = ind[0] * ind[1] * ind[2], osz = outd[0] * outd[1] * outd[2];           \
        for (int64_t c = 0; c < planes; c++) {                                                      \
            const TS *g = go + c * osz;                                                             \
            TS *r = gi + c * isz;                                                                   \
            for (int64_t od = 0; od < outd[0]; od++) {                                              \
                const int64_t id = k == 3 ? src_index(od, ind[0], pbd[0], reflect) : 0;            \
                for (int64_t oh = 0; oh < outd[1]; oh++) {                                          \
                    const int64_t ih = k >= 2 ? src_index(oh, ind[1], pbd[1], reflect) : 0;        \
                    const TS *grow = g + (od * outd[1] + oh) * outd[2];                             \
                    TS *rrow = r + (id * ind[1] + ih) * ind[2];                                     \
                    for (int64_t ow = 0; ow < outd[2]; ow++) {                                      \
                        const int64_t iw = src_index(ow, ind[2], pbd[2], reflect);                  \
                        rrow[iw] = ST((CT)(LD(rrow[iw]) + LD(grow[ow])));                           \
                    }                                                                               \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }
TN_PAD_BW(f32, float, float, TN_LD_ID, TN_ST_ID)
TN_PAD_BW(f64, double, double, TN_LD_ID, TN_ST_ID)
TN_PAD_BW(f16, uint16_t, float, TN_LD_H, TN_ST_H)
TN_PAD_BW(bf16, uint16_t, float, TN_LD_B, TN_ST_B)
TN_PAD_BW(c64, tn_c64_t, tn_c64_t, TN_LD_ID, TN_ST_ID)
TN_PAD_BW(c128, tn_c128_t, tn_c128_t, TN_LD_ID, TN_ST_ID)

bool tn_pad_backward(tn_dtype dt, bool reflect, int k, int64_t planes, const int64_t *in, const int64_t *out,
                     const int64_t *pad_before, const void *go, void *gi) {
#define CASE(E, sfx, TS) \
    case TN_DTYPE_##E: pad_bw_##sfx(reflect, k, planes, in, out, pad_before, (const TS *)go, (TS *)gi); return true;
    switch (dt) {
        CASE(F32, f32, float)
        CASE(F64, f64, double)
        CASE(F16, f16, uint16_t)
        CASE(BF16, bf16, uint16_t)
        CASE(C64, c64, tn_c64_t)
        CASE(C128, c128, tn_c128_t)
    default: return false;
    }
#undef CASE
}
