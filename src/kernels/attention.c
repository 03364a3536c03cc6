/* kernels/attention.c — f32 scaled dot-product attention through the GEMM kernels (the
 * reference in kernels/ref/nn.c computes every dot product in double, one at a time).
 *
 * For each batch and head, blocks of TN_ATTN_BLOCK query rows: scores = Q K^T (an A @ W^T
 * product reading K in place), then per row scale, causal cut, additive mask, max, exp and sum,
 * then out = P V (A @ B reading V in place) divided by the row's sum; exp is the vector exp
 * (kernels/vmath.h), as upstream's kernel uses its vector math. With a causal mask a block
 * only multiplies the keys its last row can see. All in f32 like upstream's CPU kernel; the
 * row steps (max, sum in double lanes, scale) are the softmax kernel's (kernels/nn.h) and exp
 * is tn_vm_expsub_f32, as softmax's. Rows with every key masked give 0 and log-sum-exp 0, as the
 * reference. The f32 kernel shares its (batch, head, block) units over the thread pool
 * (docs/speed_prefill.md); each unit is computed whole by one thread. */
#include "kernels/gemm.h"
#include "kernels/lowp.h"
#include "kernels/nn.h"
#include "kernels/vmath.h"
#include "core/parallel.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#define TN_ATTN_BLOCK 64

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One thread's scratch: the block's scores, row maxima and sums, and the GEMM's packing
 * buffer (64-byte aligned inside the slot). */
static size_t slot_bytes(const tn_attn_geom *g) {
    int64_t bl = min64(TN_ATTN_BLOCK, g->L);
    size_t s1 = tn_gemm_nt_f32_scratch(bl, g->S, g->E), s2 = tn_gemm_f32_scratch(bl, g->Ev, g->S);
    size_t gemm = s1 > s2 ? s1 : s2;
    return ((size_t)(bl * g->S + 2 * bl) * sizeof(float) + gemm + 64 + 63) / 64 * 64;
}

size_t tn_attention_f32_scratch(const tn_attn_geom *g, int slots) {
    return (size_t)(slots < 1 ? 1 : slots) * slot_bytes(g);
}

/* One block of bl query rows (rows i0..i0+bl of head (b, h)): q rows at qr (row stride ldq), the
 * head's keys / values at kb / vb (row strides ldk / ldv), output rows at orow (row stride ldo). */
static void attn_block(const tn_attn_geom *g, int64_t b, int64_t h, int64_t i0, int64_t bl, const float *qr, int64_t ldq,
                       const float *kb, int64_t ldk, const float *vb, int64_t ldv, const float *mask, float *orow,
                       int64_t ldo, float *lse, float *sc, float *rmax, float *rsum, float *gs) {
    const int64_t sn = g->causal ? min64(g->S, i0 + bl) : g->S; /* keys any row sees */
    if (sn > 0) tn_gemm_nt_f32(bl, sn, g->E, 1.0f, qr, ldq, kb, ldk, 0.0f, sc, sn, gs);
    for (int64_t r = 0; r < bl; r++) {
        const int64_t i = i0 + r;
        float *s = sc + r * sn;
        const float *mrow = mask ? mask + b * g->ms[0] + h * g->ms[1] + i * g->ms[2] : NULL;
        /* keys past jn are cut by the causal mask (kept exact with a mask added) */
        const int64_t jn = g->causal && !mrow ? min64(sn, i + 1) : sn;
        tn_row_scale_f32(s, (float)g->scale, jn);
        if (g->causal && mrow)
            for (int64_t j = i + 1; j < sn; j++) s[j] = -INFINITY;
        if (mrow)
            for (int64_t j = 0; j < jn; j++) s[j] += mrow[j * g->ms[3]];
        const float mx = tn_row_max_f32(s, jn); /* NaN when any score is NaN */
        double sum = 0.0;
        if (mx == -INFINITY) {
            memset(s, 0, (size_t)jn * sizeof(float));
        } else {
            tn_vm_expsub_f32(s, s, mx, jn);
            sum = tn_row_sum_f32(s, jn);
        }
        for (int64_t j = jn; j < sn; j++) s[j] = 0.0f;
        rmax[r] = mx;
        rsum[r] = (float)sum;
    }
    if (sn > 0) tn_gemm_f32(bl, g->Ev, sn, 1.0f, sc, sn, vb, ldv, 0.0f, orow, ldo, gs);
    for (int64_t r = 0; r < bl; r++) {
        float *o = orow + r * ldo;
        const bool empty = rmax[r] == -INFINITY;
        const float d = rsum[r];
        if (empty) memset(o, 0, (size_t)g->Ev * sizeof(float));
        else for (int64_t e = 0; e < g->Ev; e++) o[e] = o[e] / d;
        if (lse) lse[b * g->ls[0] + h * g->ls[1] + (i0 + r) * g->ls[2]] = empty ? 0.0f : rmax[r] + logf(rsum[r]);
    }
}

/* The (batch, head, query block) units, shared out over the thread pool: each unit is computed
 * whole by one thread in scratch slot of its own, so no result depends on the thread count. */
typedef struct {
    const tn_attn_geom *g;
    const float *q, *k, *v, *mask;
    float *out, *lse;
    char *scratch;
    size_t slot;
    int64_t nblk, rep;
    atomic_int next_slot;
} attn_job;

static void attn_units(int64_t u0, int64_t u1, void *vjob) {
    attn_job *j = vjob;
    const tn_attn_geom *g = j->g;
    const int64_t bl_max = min64(TN_ATTN_BLOCK, g->L);
    float *sc = (float *)(j->scratch + (size_t)atomic_fetch_add(&j->next_slot, 1) * j->slot);
    float *rmax = sc + bl_max * g->S, *rsum = rmax + bl_max;
    float *gs = (float *)(((uintptr_t)(rsum + bl_max) + 63) & ~(uintptr_t)63);
    for (int64_t u = u0; u < u1; u++) {
        const int64_t b = u / (g->H * j->nblk), h = u / j->nblk % g->H, i0 = u % j->nblk * TN_ATTN_BLOCK;
        const int64_t bl = min64(TN_ATTN_BLOCK, g->L - i0);
        const float *qb = j->q + b * g->qs[0] + h * g->qs[1];
        const float *kb = j->k + b * g->ks[0] + (h / j->rep) * g->ks[1];
        const float *vb = j->v + b * g->vs[0] + (h / j->rep) * g->vs[1];
        float *ob = j->out + b * g->os[0] + h * g->os[1];
        attn_block(g, b, h, i0, bl, qb + i0 * g->qs[2], g->qs[2], kb, g->ks[2], vb, g->vs[2], j->mask,
                   ob + i0 * g->os[2], g->os[2], j->lse, sc, rmax, rsum, gs);
    }
}

void tn_attention_gemm_f32(const tn_attn_geom *g, const float *q, const float *k, const float *v, const float *mask,
                           float *out, float *lse, float *scratch, int slots) {
    if (slots < 1) slots = 1;
    attn_job job = {.g = g, .q = q, .k = k, .v = v, .mask = mask, .out = out, .lse = lse, .scratch = (char *)scratch,
                    .slot = slot_bytes(g), .nblk = (g->L + TN_ATTN_BLOCK - 1) / TN_ATTN_BLOCK,
                    .rep = g->Hk ? g->H / g->Hk : 1};
    atomic_init(&job.next_slot, 0);
    const int64_t units = g->B * g->H * job.nblk;
    /* a grain of units / slots makes at most `slots` chunks, one per scratch slot */
    tn_parallel_for(units, (units + slots - 1) / slots, attn_units, &job);
}

/* bf16: the f32 kernel above on f32 blocks widened inside the kernel (a key / value head once per
 * head group, query rows per block: kernels/lowp.h), output rows rounded to bf16 as the f32 -> bf16
 * copy rounds them (NaN 0xFFFF); so the same bits as widening whole copies first. */
size_t tn_attention_bf16_scratch(const tn_attn_geom *g) {
    int64_t bl = min64(TN_ATTN_BLOCK, g->L);
    return tn_attention_f32_scratch(g, 1) + (size_t)(g->S * (g->E + g->Ev) + bl * (g->E + g->Ev) + g->Ev) * sizeof(float) + 64;
}

void tn_attention_gemm_bf16(const tn_attn_geom *g, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                            const float *mask, uint16_t *out, float *lse, void *scratch) {
    const int64_t rep = g->Hk ? g->H / g->Hk : 1, bl_max = min64(TN_ATTN_BLOCK, g->L);
    float *sc = scratch, *rmax = sc + bl_max * g->S, *rsum = rmax + bl_max;
    float *gs = (float *)(((uintptr_t)(rsum + bl_max) + 63) & ~(uintptr_t)63);
    float *kf = (float *)(((uintptr_t)((char *)scratch + tn_attention_f32_scratch(g, 1)) + 63) & ~(uintptr_t)63);
    float *vf = kf + g->S * g->E, *qf = vf + g->S * g->Ev, *of = qf + bl_max * g->E;
    uint16_t *tmp = (uint16_t *)(of + bl_max * g->Ev);
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t hk = 0; hk < g->Hk; hk++) {
            const uint16_t *kb = k + b * g->ks[0] + hk * g->ks[1], *vb = v + b * g->vs[0] + hk * g->vs[1];
            for (int64_t j = 0; j < g->S; j++) {
                tn_lp_bf16_to_f32(kf + j * g->E, kb + j * g->ks[2], g->E);
                tn_lp_bf16_to_f32(vf + j * g->Ev, vb + j * g->vs[2], g->Ev);
            }
            for (int64_t h = hk * rep; h < (hk + 1) * rep; h++) {
                const uint16_t *qb = q + b * g->qs[0] + h * g->qs[1];
                uint16_t *ob = out + b * g->os[0] + h * g->os[1];
                for (int64_t i0 = 0; i0 < g->L; i0 += TN_ATTN_BLOCK) {
                    const int64_t bl = min64(TN_ATTN_BLOCK, g->L - i0);
                    for (int64_t r = 0; r < bl; r++) tn_lp_bf16_to_f32(qf + r * g->E, qb + (i0 + r) * g->qs[2], g->E);
                    attn_block(g, b, h, i0, bl, qf, g->E, kf, g->E, vf, g->Ev, mask, of, g->Ev, lse, sc, rmax, rsum, gs);
                    for (int64_t r = 0; r < bl; r++) {
                        uint16_t *o = ob + (i0 + r) * g->os[2];
                        if (g->os[3] == 1) {
                            tn_lp_f32_to_bf16(o, of + r * g->Ev, g->Ev, TN_LP_NAN_FFFF);
                        } else { /* an output laid out like a query whose last dim is not innermost */
                            tn_lp_f32_to_bf16(tmp, of + r * g->Ev, g->Ev, TN_LP_NAN_FFFF);
                            for (int64_t e = 0; e < g->Ev; e++) o[e * g->os[3]] = tmp[e];
                        }
                    }
                }
            }
        }
}
