/* kernels/attention.c — f32 scaled dot-product attention through the GEMM kernels (the
 * reference in kernels/ref/nn.c computes every dot product in double, one at a time).
 *
 * Flash-style (docs/speed_prefill.md): for each batch, head and block of TN_ATTN_QBLOCK query
 * rows, the keys are visited in blocks of TN_ATTN_KBLOCK; per key block scores = Q K^T (an
 * A @ W^T product reading K in place), then per row scale, causal cut, additive mask, the block's max against the row's running max, exp and the block's sum, and
 * out += P V (A @ B reading V in place) after rescaling out's row and the running sum by
 * exp(old max - new max) when the max grew (online softmax); at the end out is divided by the
 * row's sum. No score buffer larger than one query block by one key block exists, and with a
 * causal mask a query block only visits the keys its last row can see. exp is the vector exp
 * (kernels/vmath.h), as upstream's kernel uses its vector math; the row steps (max, sum in
 * double lanes, scale) are the softmax kernel's (kernels/nn.h). All in f32 like upstream's
 * CPU kernel; the running sum is kept in double. Rows with every key masked give 0 and
 * log-sum-exp 0, as the reference. The f32 kernel shares its (batch, head, query block) units
 * over the thread pool, claimed one at a time (causal: the costliest first in a head), each unit
 * computed whole by one thread, so no bit depends on the thread count. */
#include "kernels/gemm.h"
#include "kernels/lowp.h"
#include "kernels/nn.h"
#include "kernels/vmath.h"
#include "core/parallel.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#define TN_ATTN_QBLOCK 96
#define TN_ATTN_KBLOCK 512

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static char *align64(char *p) { return (char *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/* One thread's scratch: the running sums and maxima of a query block's rows, one query block by
 * one key block of scores, and the GEMMs' packing buffer (each 64-byte aligned inside the slot). */
typedef struct {
    double *l;
    float *m, *sc, *gs;
} attn_slot;

static size_t slot_bytes(const tn_attn_geom *g) {
    const int64_t bq = min64(TN_ATTN_QBLOCK, g->L), bk = min64(TN_ATTN_KBLOCK, g->S);
    size_t s1 = tn_gemm_nt_f32_scratch(bq, bk, g->E), s2 = tn_gemm_f32_scratch(bq, g->Ev, bk);
    size_t gemm = s1 > s2 ? s1 : s2;
    return (3 * 64 + (size_t)bq * (sizeof(double) + sizeof(float)) + (size_t)(bq * bk) * sizeof(float) + gemm + 63) /
           64 * 64;
}

static attn_slot slot_at(const tn_attn_geom *g, char *base) {
    const int64_t bq = min64(TN_ATTN_QBLOCK, g->L), bk = min64(TN_ATTN_KBLOCK, g->S);
    attn_slot w;
    char *p = align64(base);
    w.l = (double *)p;
    w.m = (float *)(p + bq * sizeof(double));
    w.sc = (float *)align64((char *)(w.m + bq));
    w.gs = (float *)align64((char *)(w.sc + bq * bk));
    return w;
}

size_t tn_attention_f32_scratch(const tn_attn_geom *g, int slots) {
    return (size_t)(slots < 1 ? 1 : slots) * slot_bytes(g);
}

/* One block of bl query rows (rows i0..i0+bl of head (b, h)): q rows at qr (row stride ldq), the
 * head's keys / values at kb / vb (row strides ldk / ldv), output rows at orow (row stride ldo,
 * unit element stride). */
static void attn_block(const tn_attn_geom *g, int64_t b, int64_t h, int64_t i0, int64_t bl, const float *qr, int64_t ldq,
                       const float *kb, int64_t ldk, const float *vb, int64_t ldv, const float *mask, float *orow,
                       int64_t ldo, float *lse, const attn_slot *w) {
    const int64_t kend = g->causal ? min64(g->S, i0 + bl) : g->S; /* keys any row sees */
    float *m = w->m, *sc = w->sc;
    double *l = w->l;
    for (int64_t r = 0; r < bl; r++) {
        m[r] = -INFINITY;
        l[r] = 0.0;
    }
    for (int64_t j0 = 0; j0 < kend; j0 += TN_ATTN_KBLOCK) {
        const int64_t bk = min64(TN_ATTN_KBLOCK, kend - j0);
        tn_gemm_nt_f32(bl, bk, g->E, 1.0f, qr, ldq, kb + j0 * ldk, ldk, 0.0f, sc, bk, w->gs);
        for (int64_t r = 0; r < bl; r++) {
            const int64_t i = i0 + r;
            float *s = sc + r * bk, *o = orow + r * ldo;
            const float *mrow = mask ? mask + b * g->ms[0] + h * g->ms[1] + i * g->ms[2] + j0 * g->ms[3] : NULL;
            /* keys of this block past the row's own (i - j0) are cut by the causal mask (kept exact
             * with a mask added) */
            const int64_t seen = i + 1 - j0 < 0 ? 0 : min64(bk, i + 1 - j0);
            const int64_t jn = g->causal && !mrow ? seen : bk;
            tn_row_scale_f32(s, (float)g->scale, jn);
            if (g->causal && mrow)
                for (int64_t j = seen; j < bk; j++) s[j] = -INFINITY;
            if (mrow)
                for (int64_t j = 0; j < jn; j++) s[j] += mrow[j * g->ms[3]];
            const float bm = tn_row_max_f32(s, jn); /* NaN when any score is NaN */
            const float mo = m[r], mn = (bm > mo || bm != bm) ? bm : mo;
            if (mn == -INFINITY) {
                memset(s, 0, (size_t)jn * sizeof(float));
            } else {
                tn_vm_expsub_f32(s, s, mn, jn);
                const double bs = tn_row_sum_f32(s, jn);
                if (mn != mo) { /* the running max grew (or is NaN): rescale what came before */
                    const float alpha = expf(mo - mn);
                    l[r] = l[r] * alpha + bs;
                    if (j0 > 0) tn_row_scale_f32(o, alpha, g->Ev);
                } else {
                    l[r] += bs;
                }
                m[r] = mn;
            }
            for (int64_t j = jn; j < bk; j++) s[j] = 0.0f;
        }
        tn_gemm_f32(bl, g->Ev, bk, 1.0f, sc, bk, vb + j0 * ldv, ldv, j0 ? 1.0f : 0.0f, orow, ldo, w->gs);
    }
    for (int64_t r = 0; r < bl; r++) {
        float *o = orow + r * ldo;
        const bool empty = m[r] == -INFINITY;
        const float d = (float)l[r];
        if (empty) memset(o, 0, (size_t)g->Ev * sizeof(float));
        else for (int64_t e = 0; e < g->Ev; e++) o[e] = o[e] / d;
        if (lse) lse[b * g->ls[0] + h * g->ls[1] + (i0 + r) * g->ls[2]] = empty ? 0.0f : m[r] + logf(d);
    }
}

/* The (batch, head, query block) units, shared out over the thread pool: every participant takes
 * a scratch slot of its own and claims units one at a time, head by head (the threads share the
 * head's keys and values in cache) and within a head the last query block first (with a causal
 * mask they see the most keys), so the last units claimed are the cheapest and the threads
 * finish together. Each unit is computed
 * whole by one thread, so no result depends on the thread count. */
typedef struct {
    const tn_attn_geom *g;
    const float *q, *k, *v, *mask;
    float *out, *lse;
    char *scratch;
    size_t slot;
    int64_t nblk, rep;
    atomic_int next_slot;
    atomic_llong next_unit;
} attn_job;

static void attn_units(int64_t c0, int64_t c1, void *vjob) {
    (void)c0;
    (void)c1;
    attn_job *j = vjob;
    const tn_attn_geom *g = j->g;
    const attn_slot w = slot_at(g, j->scratch + (size_t)atomic_fetch_add(&j->next_slot, 1) * j->slot);
    const int64_t units = g->B * g->H * j->nblk;
    for (;;) {
        const int64_t u = atomic_fetch_add(&j->next_unit, 1);
        if (u >= units) break;
        const int64_t bh = u / j->nblk, b = bh / g->H, h = bh % g->H, i0 = (j->nblk - 1 - u % j->nblk) * TN_ATTN_QBLOCK;
        const int64_t bl = min64(TN_ATTN_QBLOCK, g->L - i0);
        const float *qb = j->q + b * g->qs[0] + h * g->qs[1];
        const float *kb = j->k + b * g->ks[0] + (h / j->rep) * g->ks[1];
        const float *vb = j->v + b * g->vs[0] + (h / j->rep) * g->vs[1];
        float *ob = j->out + b * g->os[0] + h * g->os[1];
        attn_block(g, b, h, i0, bl, qb + i0 * g->qs[2], g->qs[2], kb, g->ks[2], vb, g->vs[2], j->mask,
                   ob + i0 * g->os[2], g->os[2], j->lse, &w);
    }
}

void tn_attention_gemm_f32(const tn_attn_geom *g, const float *q, const float *k, const float *v, const float *mask,
                           float *out, float *lse, float *scratch, int slots) {
    if (slots < 1) slots = 1;
    attn_job job = {.g = g, .q = q, .k = k, .v = v, .mask = mask, .out = out, .lse = lse, .scratch = (char *)scratch,
                    .slot = slot_bytes(g), .nblk = (g->L + TN_ATTN_QBLOCK - 1) / TN_ATTN_QBLOCK,
                    .rep = g->Hk ? g->H / g->Hk : 1};
    atomic_init(&job.next_slot, 0);
    atomic_init(&job.next_unit, 0);
    const int64_t units = g->B * g->H * job.nblk;
    /* one chunk per scratch slot, no more chunks than units; each chunk claims units until none
     * is left */
    tn_parallel_for(units < slots ? units : slots, 1, attn_units, &job);
}

/* bf16 / f16: the f32 kernel above on f32 blocks widened inside the kernel (a key / value head once
 * per head group, query rows per block: kernels/lowp.h), output rows rounded as the f32 -> bf16 / f16
 * copy rounds them (bf16 NaN 0xFFFF); so the same bits as widening whole copies first. */
size_t tn_attention_lp_scratch(const tn_attn_geom *g) {
    int64_t bl = min64(TN_ATTN_QBLOCK, g->L);
    return tn_attention_f32_scratch(g, 1) + (size_t)(g->S * (g->E + g->Ev) + bl * (g->E + g->Ev) + g->Ev) * sizeof(float) + 64;
}

void tn_attention_gemm_lp(tn_lp_fmt fmt, const tn_attn_geom *g, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                            const float *mask, uint16_t *out, float *lse, void *scratch) {
    const int64_t rep = g->Hk ? g->H / g->Hk : 1, bl_max = min64(TN_ATTN_QBLOCK, g->L);
    const attn_slot w = slot_at(g, scratch);
    float *kf = (float *)align64((char *)scratch + tn_attention_f32_scratch(g, 1));
    float *vf = kf + g->S * g->E, *qf = vf + g->S * g->Ev, *of = qf + bl_max * g->E;
    uint16_t *tmp = (uint16_t *)(of + bl_max * g->Ev);
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t hk = 0; hk < g->Hk; hk++) {
            const uint16_t *kb = k + b * g->ks[0] + hk * g->ks[1], *vb = v + b * g->vs[0] + hk * g->vs[1];
            for (int64_t j = 0; j < g->S; j++) {
                tn_lp_widen(fmt, kf + j * g->E, kb + j * g->ks[2], g->E);
                tn_lp_widen(fmt, vf + j * g->Ev, vb + j * g->vs[2], g->Ev);
            }
            for (int64_t h = hk * rep; h < (hk + 1) * rep; h++) {
                const uint16_t *qb = q + b * g->qs[0] + h * g->qs[1];
                uint16_t *ob = out + b * g->os[0] + h * g->os[1];
                for (int64_t i0 = 0; i0 < g->L; i0 += TN_ATTN_QBLOCK) {
                    const int64_t bl = min64(TN_ATTN_QBLOCK, g->L - i0);
                    for (int64_t r = 0; r < bl; r++) tn_lp_widen(fmt, qf + r * g->E, qb + (i0 + r) * g->qs[2], g->E);
                    attn_block(g, b, h, i0, bl, qf, g->E, kf, g->E, vf, g->Ev, mask, of, g->Ev, lse, &w);
                    for (int64_t r = 0; r < bl; r++) {
                        uint16_t *o = ob + (i0 + r) * g->os[2];
                        if (g->os[3] == 1) {
                            tn_lp_narrow(fmt, o, of + r * g->Ev, g->Ev, TN_LP_NAN_FFFF);
                        } else { /* an output laid out like a query whose last dim is not innermost */
                            tn_lp_narrow(fmt, tmp, of + r * g->Ev, g->Ev, TN_LP_NAN_FFFF);
                            for (int64_t e = 0; e < g->Ev; e++) o[e * g->os[3]] = tmp[e];
                        }
                    }
                }
            }
        }
}

/* ---- the backward (upstream's _scaled_dot_product_flash_attention_for_cpu_backward) ----
 * Units of one (batch, head) each, shared over the thread pool as the forward's, claimed one at a
 * time: the unit's gradients go to rows of its own in a workspace, so grouped heads (GQA) never write
 * one place from two threads; the key / value gradients of a head group are then summed head by head
 * in order into the outputs, so no bit depends on the thread count. P is recomputed from the saved
 * log-sum-exp a query block by a key block at a time (attention_bw_body.h). */
#define TN_ATTN_BW_QBLOCK 64
#define TN_ATTN_BW_KBLOCK 256

typedef struct {
    void *p, *dp, *tr, *d;
    float *gs; /* the f32 GEMMs' packing buffer */
} bw_slot;

static size_t bw_slot_bytes(const tn_attn_bw_geom *bg, size_t esize) {
    const tn_attn_geom *g = &bg->a;
    const int64_t bq = min64(TN_ATTN_BW_QBLOCK, g->L), bk = min64(TN_ATTN_BW_KBLOCK, g->S), ee = g->E > g->Ev ? g->E : g->Ev;
    size_t gemm = 0;
    if (esize == sizeof(float)) {
        size_t s[4] = {tn_gemm_nt_f32_scratch(bq, bk, ee), tn_gemm_f32_scratch(bk, ee, bq), tn_gemm_f32_scratch(bq, ee, bk), 0};
        for (int i = 0; i < 3; i++) gemm = s[i] > gemm ? s[i] : gemm;
    }
    return (5 * 64 + (3 * (size_t)(bq * bk) + (size_t)bq) * esize + gemm + 63) / 64 * 64;
}

static bw_slot bw_slot_at(const tn_attn_bw_geom *bg, char *base, size_t esize) {
    const int64_t bq = min64(TN_ATTN_BW_QBLOCK, bg->a.L), bk = min64(TN_ATTN_BW_KBLOCK, bg->a.S);
    bw_slot w;
    w.p = align64(base);
    w.dp = align64((char *)w.p + (size_t)(bq * bk) * esize);
    w.tr = align64((char *)w.dp + (size_t)(bq * bk) * esize);
    w.d = align64((char *)w.tr + (size_t)(bq * bk) * esize);
    w.gs = (float *)align64((char *)w.d + (size_t)bq * esize);
    return w;
}

/* the workspace: every (batch, head)'s dq [L,E], dk [S,E] and dv [S,Ev] rows */
static size_t bw_unit_elems(const tn_attn_geom *g) { return (size_t)(g->L * g->E + g->S * g->E + g->S * g->Ev); }

size_t tn_attention_bw_scratch(const tn_attn_bw_geom *bg, int slots, bool f64) {
    const size_t es = f64 ? sizeof(double) : sizeof(float);
    return (size_t)(slots < 1 ? 1 : slots) * bw_slot_bytes(bg, es) + (size_t)(bg->a.B * bg->a.H) * bw_unit_elems(&bg->a) * es + 64;
}

#define AB_T float
#define AB_N(x) x##_bw_f32
#define AB_NN(M, N, K, al, A, lda, B, ldb, be, C, ldc, s) tn_gemm_f32(M, N, K, al, A, lda, B, ldb, be, C, ldc, s)
#define AB_NT(M, N, K, al, A, lda, B, ldb, be, C, ldc, s) tn_gemm_nt_f32(M, N, K, al, A, lda, B, ldb, be, C, ldc, s)
#define AB_EXPSUB(y, x, c, n) tn_vm_expsub_f32(y, x, c, n)
#include "kernels/attention_bw_body.h"
#undef AB_T
#undef AB_N
#undef AB_NN
#undef AB_NT
#undef AB_EXPSUB

static void expsub_f64(double *y, const double *x, double c, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = exp(x[i] - c);
}
#define AB_T double
#define AB_N(x) x##_bw_f64
#define AB_NN(M, N, K, al, A, lda, B, ldb, be, C, ldc, s) tn_gemm_f64(M, N, K, al, A, lda, B, ldb, be, C, ldc)
#define AB_NT(M, N, K, al, A, lda, B, ldb, be, C, ldc, s) tn_gemm_nt_f64(M, N, K, al, A, lda, B, ldb, be, C, ldc)
#define AB_EXPSUB(y, x, c, n) expsub_f64(y, x, c, n)
#include "kernels/attention_bw_body.h"
#undef AB_T
#undef AB_N
#undef AB_NN
#undef AB_NT
#undef AB_EXPSUB

typedef struct {
    const tn_attn_bw_geom *bg;
    bool f64;
    const void *dO, *q, *k, *v, *out, *lse, *mask;
    char *scratch, *work;
    size_t slot;
    atomic_int next_slot;
    atomic_llong next_unit;
} bw_job;

static void bw_units(int64_t c0, int64_t c1, void *vjob) {
    (void)c0;
    (void)c1;
    bw_job *j = vjob;
    const tn_attn_geom *g = &j->bg->a;
    const size_t es = j->f64 ? sizeof(double) : sizeof(float), per = bw_unit_elems(g);
    const bw_slot w = bw_slot_at(j->bg, j->scratch + (size_t)atomic_fetch_add(&j->next_slot, 1) * j->slot, es);
    for (;;) {
        const int64_t u = atomic_fetch_add(&j->next_unit, 1);
        if (u >= g->B * g->H) break;
        char *dq = j->work + (size_t)u * per * es, *dk = dq + (size_t)(g->L * g->E) * es, *dv = dk + (size_t)(g->S * g->E) * es;
        if (j->f64)
            unit_bw_f64(g, j->bg->gs, u / g->H, u % g->H, j->dO, j->q, j->k, j->v, j->out, j->lse, j->mask, (double *)dq,
                        (double *)dk, (double *)dv, &w);
        else
            unit_bw_f32(g, j->bg->gs, u / g->H, u % g->H, j->dO, j->q, j->k, j->v, j->out, j->lse, j->mask, (float *)dq,
                        (float *)dk, (float *)dv, &w);
    }
}

/* rows [n, cols] of the workspace into an output head (row stride ld, unit element stride); add: sum */
#define BW_STORE(T, dst, ld, src, n, cols, add)                                                                       \
    for (int64_t r_ = 0; r_ < (n); r_++)                                                                              \
        for (int64_t c_ = 0; c_ < (cols); c_++) {                                                                     \
            T *d_ = (T *)(dst) + r_ * (ld) + c_;                                                                      \
            const T s_ = ((const T *)(src))[r_ * (cols) + c_];                                                        \
            *d_ = (add) ? *d_ + s_ : s_;                                                                              \
        }

static void bw_run(const tn_attn_bw_geom *bg, bool f64, const void *dO, const void *q, const void *k, const void *v,
                   const void *out, const void *lse, const void *mask, char *dq, char *dk, char *dv, void *scratch,
                   int slots) {
    const tn_attn_geom *g = &bg->a;
    if (slots < 1) slots = 1;
    const size_t es = f64 ? sizeof(double) : sizeof(float), per = bw_unit_elems(g);
    bw_job job = {.bg = bg, .f64 = f64, .dO = dO, .q = q, .k = k, .v = v, .out = out, .lse = lse, .mask = mask,
                  .scratch = scratch, .slot = bw_slot_bytes(bg, es)};
    job.work = (char *)align64((char *)scratch + (size_t)slots * job.slot);
    atomic_init(&job.next_slot, 0);
    atomic_init(&job.next_unit, 0);
    const int64_t units = g->B * g->H;
    if (units == 0) return;
    tn_parallel_for(units < slots ? units : slots, 1, bw_units, &job);
    const int64_t rep = g->Hk ? g->H / g->Hk : 1;
    for (int64_t b = 0; b < g->B; b++)
        for (int64_t h = 0; h < g->H; h++) {
            const char *uq = job.work + (size_t)(b * g->H + h) * per * es, *uk = uq + (size_t)(g->L * g->E) * es,
                       *uv = uk + (size_t)(g->S * g->E) * es;
            char *oq = dq + (size_t)(b * bg->dqs[0] + h * bg->dqs[1]) * es;
            char *ok = dk + (size_t)(b * bg->dks[0] + (h / rep) * bg->dks[1]) * es;
            char *ov = dv + (size_t)(b * bg->dvs[0] + (h / rep) * bg->dvs[1]) * es;
            const bool add = h % rep != 0;
            if (f64) {
                BW_STORE(double, oq, bg->dqs[2], uq, g->L, g->E, false)
                BW_STORE(double, ok, bg->dks[2], uk, g->S, g->E, add)
                BW_STORE(double, ov, bg->dvs[2], uv, g->S, g->Ev, add)
            } else {
                BW_STORE(float, oq, bg->dqs[2], uq, g->L, g->E, false)
                BW_STORE(float, ok, bg->dks[2], uk, g->S, g->E, add)
                BW_STORE(float, ov, bg->dvs[2], uv, g->S, g->Ev, add)
            }
        }
}

void tn_attention_bw_f32(const tn_attn_bw_geom *bg, const float *dO, const float *q, const float *k, const float *v,
                         const float *out, const float *lse, const float *mask, float *dq, float *dk, float *dv,
                         void *scratch, int slots) {
    bw_run(bg, false, dO, q, k, v, out, lse, mask, (char *)dq, (char *)dk, (char *)dv, scratch, slots);
}

void tn_attention_bw_f64(const tn_attn_bw_geom *bg, const double *dO, const double *q, const double *k,
                         const double *v, const double *out, const double *lse, const double *mask, double *dq,
                         double *dk, double *dv, void *scratch, int slots) {
    bw_run(bg, true, dO, q, k, v, out, lse, mask, (char *)dq, (char *)dk, (char *)dv, scratch, slots);
}
