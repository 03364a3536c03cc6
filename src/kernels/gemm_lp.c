/* kernels/gemm_lp.c — the bf16 / f16 GEMM entry points (kernels/gemm_lp.h): the f32 driver's
 * blocking (kernels/gemm.c) on 16-bit operands, over the microkernels of the CPU's instruction
 * set (kernels/gemm_lp_isa.h), chosen once at run time.
 *
 * Nothing is widened in memory: one operand is packed, still 16-bit, into V-lane panels (A's rows
 * for A @ W^T, B's columns for A @ B; bf16 pairs interleaved for vdpbf16ps, f16 k-major), in
 * blocks that stay in L2; the other (the weight, for nn.Linear) is read in place R rows at a time.
 * Fewer than 8 rows of A @ W^T (decode) stream W once in the lane order, split over the pool by
 * output columns. Each output is computed by one thread in a fixed order, so neither the variant
 * nor the thread count changes a bit. TN_GEMM=ref|avx2 forces a variant, as for f32. */
#include "kernels/gemm_lp.h"
#include "kernels/gemm_lp_isa.h"
#include "core/parallel.h"

#include <stdlib.h>
#include <string.h>

#define LP_BLOCK_ELEMS (512 * 1024) /* packed block: 1 MB of 16-bit values, L2-resident */
#define LP_TILE_MAX (12 * 32)
#define LP_FEW_M 8 /* A @ W^T below this many rows: lane order, no packing */
#define LP_PAD_MAX 8192 /* padded last rows on the stack up to this many elements, else in scratch */

static const tn_gemm_lp_isa *chosen[2];
#if defined(__x86_64__)
static tn_gemm_lp_isa f16_avx512; /* the AVX2 kernels with the AVX-512 GEMV */
#endif
static bool asked; /* a benign race: every thread computes the same answer */

static const tn_gemm_lp_isa *lp_isa(tn_lp_type t) {
    if (!asked) {
        const char *env = getenv("TN_GEMM");
        const tn_gemm_lp_isa *b = NULL, *h = NULL;
#if defined(__x86_64__)
        __builtin_cpu_init();
        bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
        if (avx2) {
            b = &tn_bf16_gemm_avx2;
            h = &tn_f16_gemm_avx2;
            bool forced = env && strcmp(env, "avx2") == 0;
            if (!forced && __builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl"))
                b = &tn_bf16_gemm_avx512bf16;
            if (!forced && __builtin_cpu_supports("avx512f")) {
                f16_avx512 = tn_f16_gemm_avx2;
                f16_avx512.name = "avx512";
                f16_avx512.gemv_rows = tn_f16_gemv_rows_avx512;
                h = &f16_avx512;
            }
        }
#endif
        if (env && strcmp(env, "ref") == 0) b = h = NULL;
        chosen[TN_LP_BF16] = b;
        chosen[TN_LP_F16] = h;
        asked = true;
    }
    return chosen[t];
}

const char *tn_gemm_lp_variant(tn_lp_type t) {
    const tn_gemm_lp_isa *isa = lp_isa(t);
    return isa ? isa->name : "ref";
}

/* Packed elements per k step of a panel: bf16 panels hold pairs. */
static int64_t ksteps(tn_lp_type t, int64_t K) { return t == TN_LP_BF16 ? (K + 1) / 2 * 2 : K; }

static int64_t block_lanes(const tn_gemm_lp_isa *isa, tn_lp_type t, int64_t n, int64_t K) {
    int64_t b = LP_BLOCK_ELEMS / ksteps(t, K) / isa->V * isa->V;
    if (b < isa->V) b = isa->V;
    int64_t all = (n + isa->V - 1) / isa->V * isa->V;
    return all < b ? all : b;
}

/* Rows [0, n) of src (row l at src + l*ld, k contiguous: nt) or columns [0, n) of src (k at
 * src + k*ld: !nt) into V-lane panels of the type's layout, zero padded. */
static void pack(tn_lp_type t, bool rows, int64_t n, int64_t K, const uint16_t *src, int64_t ld, int V, uint16_t *dst) {
    const int64_t ks = ksteps(t, K);
    for (int64_t p0 = 0; p0 < n; p0 += V, dst += (int64_t)V * ks) {
        int64_t w = n - p0 < V ? n - p0 : V;
        if (t == TN_LP_BF16) {
            /* dst[(k/2)*2V + 2l + (k&1)] = x(l, k) */
            for (int64_t k = 0; k < ks; k += 2) {
                uint16_t *d = dst + k * V;
                if (rows) {
                    for (int64_t l = 0; l < w; l++) {
                        const uint16_t *s = src + (p0 + l) * ld + k;
                        d[2 * l] = s[0];
                        d[2 * l + 1] = k + 1 < K ? s[1] : 0;
                    }
                } else {
                    const uint16_t *s0 = src + k * ld + p0, *s1 = s0 + ld;
                    for (int64_t l = 0; l < w; l++) {
                        d[2 * l] = s0[l];
                        d[2 * l + 1] = k + 1 < K ? s1[l] : 0;
                    }
                }
                memset(d + 2 * w, 0, (size_t)(V - w) * 2 * sizeof *d);
            }
        } else {
            for (int64_t k = 0; k < K; k++) {
                uint16_t *d = dst + k * V;
                if (rows)
                    for (int64_t l = 0; l < w; l++) d[l] = src[(p0 + l) * ld + k];
                else
                    memcpy(d, src + k * ld + p0, (size_t)w * sizeof *d);
                memset(d + w, 0, (size_t)(V - w) * sizeof *d);
            }
        }
    }
}

typedef struct {
    const tn_gemm_lp_isa *isa;
    tn_lp_type t;
    bool nt;
    int64_t n, K, ld;
    const uint16_t *src;
    uint16_t *dst;
} pack_job;

static void pack_panels(int64_t u0, int64_t u1, void *vjob) {
    const pack_job *j = vjob;
    const int V = j->isa->V;
    int64_t p0 = u0 * V, n = (u1 * V < j->n ? u1 * V : j->n) - p0;
    uint16_t *dst = j->dst + p0 * ksteps(j->t, j->K);
    if (j->nt) {
        if (j->isa->pack_rows && j->K % 2 == 0 && j->ld % 2 == 0) j->isa->pack_rows(n, j->K, j->src + p0 * j->ld, j->ld, V, dst);
        else pack(j->t, true, n, j->K, j->src + p0 * j->ld, j->ld, V, dst);
    } else {
        pack(j->t, false, n, j->K, j->src + p0, j->ld, V, dst);
    }
}

typedef struct {
    const tn_gemm_lp_isa *isa;
    bool bf16;
    int64_t nq, K, p0, pn, ldq, ldc;
    const uint16_t *Q, *packed;
    uint16_t *qpad, *C;
    float alpha, beta;
} blk_job;

/* Groups [g0, g1) of R rows of A against one packed block. */
static void blk_groups(int64_t g0, int64_t g1, void *vjob) {
    const blk_job *b = vjob;
    const int V = b->isa->V, R = b->isa->R;
    const int64_t K = b->K, ks = b->bf16 ? (K + 1) / 2 * 2 : K;
    float tile[LP_TILE_MAX];
    uint16_t qpad[LP_PAD_MAX];
    for (int64_t g = g0; g < g1; g++) {
        int64_t q0 = g * R;
        int rq = b->nq - q0 < R ? (int)(b->nq - q0) : R;
        const uint16_t *q = b->Q + q0 * b->ldq;
        int64_t ld = b->ldq;
        uint16_t *pad = b->qpad;
        if (rq < R) { /* the last rows (one group only), zero padded to R rows */
            if (R * ks <= LP_PAD_MAX) pad = qpad;
            for (int r = 0; r < rq; r++) memcpy(pad + r * ks, q + r * b->ldq, (size_t)K * sizeof *q);
            if (ks > K)
                for (int r = 0; r < rq; r++) pad[r * ks + K] = 0;
            memset(pad + rq * ks, 0, (size_t)((R - rq) * ks) * sizeof *q);
            q = pad;
            ld = ks;
        }
        for (int64_t l0 = 0; l0 < b->pn; l0 += V) {
            int lv = b->pn - l0 < V ? (int)(b->pn - l0) : V;
            b->isa->micro(K, q, ld, b->packed + l0 * ks, tile);
            for (int r = 0; r < rq; r++)
                b->isa->close_row(tile + r * V, lv, b->alpha, b->beta, b->C + (q0 + r) * b->ldc + b->p0 + l0);
        }
    }
}

size_t tn_gemm_lp_scratch(tn_lp_type t, bool nt, int64_t M, int64_t N, int64_t K) {
    const tn_gemm_lp_isa *isa = lp_isa(t);
    if (!isa || K <= 0 || (nt && M < LP_FEW_M)) return 0;
    return (size_t)((block_lanes(isa, t, N, K) + isa->R) * ksteps(t, K)) * sizeof(uint16_t);
}

typedef struct {
    const tn_gemm_lp_isa *isa;
    tn_lp_type t;
    int64_t M, N, K, lda, ldw, ldc;
    const uint16_t *A, *W;
    uint16_t *C;
    float alpha, beta;
} cols_job;

static void few_cols(int64_t u0, int64_t u1, void *vjob) {
    const cols_job *c = vjob;
    int64_t j0 = u0 * 8, j1 = u1 * 8 < c->N ? u1 * 8 : c->N;
    if (c->isa) c->isa->gemv_rows(c->M, j1 - j0, c->K, c->alpha, c->A, c->lda, c->W + j0 * c->ldw, c->ldw, c->beta, c->C + j0, c->ldc);
    else if (c->t == TN_LP_BF16) tn_gemv_bf16_ref(c->M, j1 - j0, c->K, c->alpha, c->A, c->lda, c->W + j0 * c->ldw, c->ldw, c->beta, c->C + j0, c->ldc);
    else tn_gemv_f16_ref(c->M, j1 - j0, c->K, c->alpha, c->A, c->lda, c->W + j0 * c->ldw, c->ldw, c->beta, c->C + j0, c->ldc);
}

/* Reference chain products split over the pool by rows of A. */
typedef struct {
    tn_lp_type t;
    bool nt;
    int64_t N, K, lda, ldb, ldc;
    const uint16_t *A, *B;
    uint16_t *C;
    float alpha, beta;
} ref_job;

static void ref_rows(int64_t i0, int64_t i1, void *vjob) {
    const ref_job *r = vjob;
    (r->t == TN_LP_BF16 ? tn_gemm_bf16_ref : tn_gemm_f16_ref)(r->nt, i1 - i0, r->N, r->K, r->alpha, r->A + i0 * r->lda,
                                                               r->lda, r->B, r->ldb, r->beta, r->C + i0 * r->ldc, r->ldc);
}

void tn_gemm_lp(tn_lp_type t, bool nt, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                const uint16_t *B, int64_t ldb, float beta, uint16_t *C, int64_t ldc, void *scratch) {
    if (M <= 0 || N <= 0) return;
    const tn_gemm_lp_isa *isa = lp_isa(t);
    if (nt && M < LP_FEW_M) {
        cols_job c = {isa, t, M, N, K, lda, ldb, ldc, A, B, C, alpha, beta};
        /* a unit is 8 x M x K multiply-adds; aim for ~256K per chunk */
        tn_parallel_for((N + 7) / 8, (1 << 18) / (8 * M * K + 1) + 1, few_cols, &c);
        return;
    }
    if (!isa || K <= 0) {
        ref_job r = {t, nt, N, K, lda, ldb, ldc, A, B, C, alpha, beta};
        tn_parallel_for(M, (1 << 16) / (N * K + 1) + 1, ref_rows, &r);
        return;
    }
    /* packed: op(B)'s columns (W's rows for nt), broadcast: R rows of A at a time */
    const int64_t ks = ksteps(t, K), pb = block_lanes(isa, t, N, K);
    uint16_t *packed = scratch;
    blk_job job = {.isa = isa, .bf16 = t == TN_LP_BF16, .nq = M, .K = K, .ldq = lda, .ldc = ldc, .Q = A,
                   .packed = packed, .qpad = packed + pb * ks, .C = C, .alpha = alpha, .beta = beta};
    pack_job pj = {.isa = isa, .t = t, .nt = nt, .K = K, .ld = ldb, .dst = packed};
    const int64_t groups = (M + isa->R - 1) / isa->R;
    for (int64_t p0 = 0; p0 < N; p0 += pb) {
        int64_t pn = N - p0 < pb ? N - p0 : pb;
        pj.n = pn;
        pj.src = nt ? B + p0 * ldb : B + p0;
        tn_parallel_for((pn + isa->V - 1) / isa->V, (1 << 15) / (isa->V * ks + 1) + 1, pack_panels, &pj);
        job.p0 = p0;
        job.pn = pn;
        int64_t grain = (1 << 20) / (isa->R * pn * K + 1) + 1;
        tn_parallel_for(groups, grain, blk_groups, &job);
    }
}
