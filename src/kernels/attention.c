/* kernels/attention.c — f32 scaled dot-product attention through the GEMM kernels (the
 * reference in kernels/ref/nn.c computes every dot product in double, one at a time).
 *
 * For each batch and head, blocks of TN_ATTN_BLOCK query rows: scores = Q K^T (an A @ W^T
 * product reading K in place), then per row scale, causal cut, additive mask, max, exp and sum,
 * then out = P V (A @ B reading V in place) divided by the row's sum; exp is the vector exp
 * (kernels/vmath.h), as upstream's kernel uses its vector math. With a causal mask a block
 * only multiplies the keys its last row can see. All in f32 like upstream's CPU kernel; the
 * row sums in double. Rows with every key masked give 0 and log-sum-exp 0, as the reference. */
#include "kernels/gemm.h"
#include "kernels/nn.h"
#include "kernels/vmath.h"

#include <math.h>
#include <stdbool.h>

#define TN_ATTN_BLOCK 64

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

size_t tn_attention_f32_scratch(const tn_attn_geom *g) {
    int64_t bl = min64(TN_ATTN_BLOCK, g->L);
    size_t s1 = tn_gemm_nt_f32_scratch(bl, g->S, g->E), s2 = tn_gemm_f32_scratch(bl, g->Ev, g->S);
    size_t gemm = s1 > s2 ? s1 : s2;
    return (size_t)(bl * g->S + 2 * bl) * sizeof(float) + gemm + 64;
}

void tn_attention_gemm_f32(const tn_attn_geom *g, const float *q, const float *k, const float *v, const float *mask,
                           float *out, float *lse, float *scratch) {
    const int64_t rep = g->Hk ? g->H / g->Hk : 1, bl_max = min64(TN_ATTN_BLOCK, g->L);
    float *sc = scratch, *rmax = sc + bl_max * g->S, *rsum = rmax + bl_max;
    float *gs = (float *)(((uintptr_t)(rsum + bl_max) + 63) & ~(uintptr_t)63);
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t h = 0; h < g->H; h++) {
            const float *qb = q + b * g->qs[0] + h * g->qs[1];
            const float *kb = k + b * g->ks[0] + (h / rep) * g->ks[1];
            const float *vb = v + b * g->vs[0] + (h / rep) * g->vs[1];
            float *ob = out + b * g->os[0] + h * g->os[1];
            for (int64_t i0 = 0; i0 < g->L; i0 += TN_ATTN_BLOCK) {
                const int64_t bl = min64(TN_ATTN_BLOCK, g->L - i0);
                const int64_t sn = g->causal ? min64(g->S, i0 + bl) : g->S; /* keys any row sees */
                if (sn > 0)
                    tn_gemm_nt_f32(bl, sn, g->E, 1.0f, qb + i0 * g->qs[2], g->qs[2], kb, g->ks[2], 0.0f, sc, sn, gs);
                for (int64_t r = 0; r < bl; r++) {
                    const int64_t i = i0 + r;
                    float *s = sc + r * sn;
                    const float *mrow = mask ? mask + b * g->ms[0] + h * g->ms[1] + i * g->ms[2] : NULL;
                    /* keys past jn are cut by the causal mask (kept exact with a mask added) */
                    const int64_t jn = g->causal && !mrow ? min64(sn, i + 1) : sn;
                    const float scale = (float)g->scale;
                    for (int64_t j = 0; j < jn; j++) s[j] *= scale;
                    if (g->causal && mrow)
                        for (int64_t j = i + 1; j < sn; j++) s[j] = -INFINITY;
                    if (mrow)
                        for (int64_t j = 0; j < jn; j++) s[j] += mrow[j * g->ms[3]];
                    float mx = -INFINITY;
                    bool nan = false;
                    for (int64_t j = 0; j < jn; j++) {
                        mx = s[j] > mx ? s[j] : mx;
                        nan |= s[j] != s[j];
                    }
                    if (nan) mx = NAN;
                    double sum = 0.0;
                    if (mx == -INFINITY) {
                        for (int64_t j = 0; j < jn; j++) s[j] = 0.0f;
                    } else {
                        for (int64_t j = 0; j < jn; j++) s[j] -= mx;
                        tn_vexp_f32(s, s, jn);
                        for (int64_t j = 0; j < jn; j++) sum += s[j];
                    }
                    for (int64_t j = jn; j < sn; j++) s[j] = 0.0f;
                    rmax[r] = mx;
                    rsum[r] = (float)sum;
                }
                float *orow = ob + i0 * g->os[2];
                if (sn > 0) tn_gemm_f32(bl, g->Ev, sn, 1.0f, sc, sn, vb, g->vs[2], 0.0f, orow, g->os[2], gs);
                for (int64_t r = 0; r < bl; r++) {
                    float *o = orow + r * g->os[2];
                    bool empty = rmax[r] == -INFINITY;
                    for (int64_t e = 0; e < g->Ev; e++) o[e] = empty ? 0.0f : o[e] / rsum[r];
                    if (lse) lse[b * g->ls[0] + h * g->ls[1] + (i0 + r) * g->ls[2]] = empty ? 0.0f : rmax[r] + logf(rsum[r]);
                }
            }
        }
}
