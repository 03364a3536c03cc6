/* kernels/gemm.c — the f32 GEMM entry points: a cache-blocked driver over the register-blocked
 * microkernel of the CPU's instruction set (kernels/gemm_isa.h), chosen once at run time.
 *
 * One operand is packed into k-major panels of V lanes (A's rows for A @ W^T, which is
 * nn.Linear's layout; B's columns for A @ B), in blocks that stay in L2; the other is read in
 * place, R rows at a time, and broadcast. Every output is still one fused multiply-add chain
 * over each TN_GEMM_KC chunk of k in order, the chunks' sums added in order, followed by the
 * reference's closing step, so all variants return the reference kernels' bits and the choice
 * only changes speed. TN_GEMM=ref (or avx2) in the
 * environment forces a variant, to compare them. */
#include "kernels/gemm.h"
#include "kernels/gemm_isa.h"
#include "core/parallel.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define TN_GEMM_BLOCK_FLOATS (256 * 1024) /* packed block: 1 MB, L2-resident */
#define TN_GEMM_TILE_MAX ((12 + 7) * 32) /* largest R x V, plus rows a transposing store may read */
#define TN_GEMM_NN_MIN_M 4                /* A @ B below this many rows: the reference loop */
#define TN_GEMM_FEW_M 8                   /* A @ W^T below this many rows: no packing */
#define TN_GEMM_KBLOCK 512                /* K block of a split A @ B (see blocked()) */
_Static_assert(TN_GEMM_KBLOCK % TN_GEMM_KC == 0, "a K block must end on a chain chunk");

static const tn_gemm_isa *chosen;
static bool asked; /* a benign race: every thread computes the same answer */

static const tn_gemm_isa *gemm_isa(void) {
    if (!asked) {
        const char *env = getenv("TN_GEMM");
        const tn_gemm_isa *found = NULL;
#if defined(__x86_64__)
        __builtin_cpu_init();
        bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        if (avx2) found = __builtin_cpu_supports("avx512f") ? &tn_gemm_isa_avx512 : &tn_gemm_isa_avx2;
        if (env && strcmp(env, "avx2") == 0 && avx2) found = &tn_gemm_isa_avx2;
#endif
        if (env && strcmp(env, "ref") == 0) found = NULL;
        chosen = found;
        asked = true;
    }
    return chosen;
}

/* Lanes of the packed operand per block: all n (rounded up to V) when they fit, else a
 * multiple of V that fits TN_GEMM_BLOCK_FLOATS. */
static int64_t block_lanes(const tn_gemm_isa *isa, int64_t n, int64_t K) {
    int64_t b = TN_GEMM_BLOCK_FLOATS / K / isa->V * isa->V;
    if (b < isa->V) b = isa->V;
    int64_t all = (n + isa->V - 1) / isa->V * isa->V;
    return all < b ? all : b;
}

/* Whether blocked() splits K (see there): A @ B with beta 0 whose packed block would hold
 * fewer lanes than there are and at most a few panels of them. */
static bool k_split(const tn_gemm_isa *isa, bool nt, int64_t np, int64_t K, float beta) {
    return !nt && beta == 0 && K > 2 * TN_GEMM_KBLOCK && block_lanes(isa, np, K) < np &&
           block_lanes(isa, np, K) < 4 * isa->V;
}

static size_t blocked_scratch(const tn_gemm_isa *isa, int64_t np, int64_t K) {
    size_t whole = (size_t)(block_lanes(isa, np, K) * K) * sizeof(float);
    size_t split = (size_t)(TN_GEMM_BLOCK_FLOATS / TN_GEMM_KBLOCK * TN_GEMM_KBLOCK) * sizeof(float);
    return !k_split(isa, false, np, K, 0) || whole > split ? whole : split;
}

/* Columns [0, n) of B (row stride ld) into V-lane k-major panels, zero padded. */
static void pack_cols(int64_t n, int64_t K, const float *B, int64_t ld, int V, float *dst) {
    for (int64_t p = 0; p < n; p += V, dst += (int64_t)V * K) {
        int64_t w = n - p < V ? n - p : V;
        if (w == 32 && V == 32) { /* whole panels: fixed-size copies the compiler inlines */
            for (int64_t k = 0; k < K; k++) memcpy(dst + k * 32, B + k * ld + p, 32 * sizeof(float));
            continue;
        }
        if (w == 16 && V == 16) {
            for (int64_t k = 0; k < K; k++) memcpy(dst + k * 16, B + k * ld + p, 16 * sizeof(float));
            continue;
        }
        for (int64_t k = 0; k < K; k++) {
            memcpy(dst + k * V, B + k * ld + p, (size_t)w * sizeof(float));
            memset(dst + k * V + w, 0, (size_t)(V - w) * sizeof(float));
        }
    }
}

/* C[r][l] (row stride ldc) = finish(tile[r][l]) for r < rows, l < cols; the common
 * alpha == 1, beta == 0 case is a plain copy. */
static void store(const float *tile, int V, int rows, int cols, float *C, int64_t ldc, float alpha, float beta) {
    if (alpha == 1 && beta == 0) {
        for (int r = 0; r < rows; r++) memcpy(C + r * ldc, tile + r * V, (size_t)cols * sizeof(float));
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int l = 0; l < cols; l++) C[r * ldc + l] = tn_gemm_finish(tile[r * V + l], alpha, beta, C[r * ldc + l]);
}

/* The same with the tile transposed: C[l][r] = finish(tile[r][l]). */
static void store_t(const float *tile, int V, int rows, int cols, float *C, int64_t ldc, float alpha, float beta) {
    if (alpha == 1 && beta == 0) {
        for (int l = 0; l < cols; l++)
            for (int r = 0; r < rows; r++) C[l * ldc + r] = tile[r * V + l];
        return;
    }
    for (int l = 0; l < cols; l++)
        for (int r = 0; r < rows; r++) C[l * ldc + r] = tn_gemm_finish(tile[r * V + l], alpha, beta, C[l * ldc + r]);
}

/* One packed block against broadcast-row groups [g0, g1) (R rows each; the last group may have
 * fewer, run by micro_rows). */
typedef struct {
    const tn_gemm_isa *isa;
    bool nt;
    int64_t nq, K, p0, pn, ldq, ldc;
    const float *Q, *packed;
    float *C, alpha, beta;
    bool acc, last; /* a K block after the first: its sums add to C's; the last one closes */
} blk_job;

static void blk_groups(int64_t g0, int64_t g1, void *vjob) {
    const blk_job *b = vjob;
    const int V = b->isa->V, R = b->isa->R;
    const int64_t K = b->K;
    float tile[TN_GEMM_TILE_MAX];
    for (int64_t g = g0; g < g1; g++) {
        int64_t q0 = g * R;
        int rq = b->nq - q0 < R ? (int)(b->nq - q0) : R;
        const float *q = b->Q + q0 * b->ldq;
        for (int64_t l0 = 0; l0 < b->pn; l0 += V) {
            int lv = b->pn - l0 < V ? (int)(b->pn - l0) : V;
            float *c = b->C + q0 * b->ldc + b->p0 + l0;
            /* A @ B with whole panels whose result is the raw sum: the kernel works in C itself */
            const bool direct = !b->nt && lv == V && (!b->last || (b->alpha == 1 && b->beta == 0));
            float *t = direct ? c : tile;
            const int64_t ldt = direct ? b->ldc : V;
            if (b->acc && !direct) { /* (K blocks: never nt) the partial sums so far, padding zeroed */
                for (int r = 0; r < rq; r++) {
                    memcpy(tile + r * V, c + r * b->ldc, (size_t)lv * sizeof(float));
                    memset(tile + r * V + lv, 0, (size_t)(V - lv) * sizeof(float));
                }
            }
            /* one chain per TN_GEMM_KC chunk of k, each added to the sums so far */
            for (int64_t k0 = 0; k0 < K; k0 += TN_GEMM_KC) {
                const int64_t kc = K - k0 < TN_GEMM_KC ? K - k0 : TN_GEMM_KC;
                const float *pk = b->packed + l0 * K + k0 * V;
                if (rq == R) b->isa->micro(kc, q + k0, b->ldq, pk, t, ldt, b->acc || k0 > 0);
                else b->isa->micro_rows(rq, kc, q + k0, b->ldq, pk, t, ldt, b->acc || k0 > 0);
            }
            if (direct) continue;
            /* tile[r][l] is output (row p0+l0+l, column q0+r) for nt, else (q0+r, p0+l0+l) */
            if (!b->last) store(tile, V, rq, lv, c, b->ldc, 1, 0); /* raw partial sums */
            else if (b->nt && b->isa->store_t && b->alpha == 1 && (b->beta == 0 || b->beta == 1))
                b->isa->store_t(tile, V, rq, lv, b->C + (b->p0 + l0) * b->ldc + q0, b->ldc, b->beta == 1);
            else if (b->nt) store_t(tile, V, rq, lv, b->C + (b->p0 + l0) * b->ldc + q0, b->ldc, b->alpha, b->beta);
            else store(tile, V, rq, lv, c, b->ldc, b->alpha, b->beta);
        }
    }
}

/* Panels [u0, u1) of the packed operand: rows of A (nt) or columns of B, V lanes a panel. */
typedef struct {
    const tn_gemm_isa *isa;
    bool nt;
    int64_t n, K;
    const float *src;
    int64_t ld;
    float *dst;
} pack_job;

static void pack_panels(int64_t u0, int64_t u1, void *vjob) {
    const pack_job *j = vjob;
    const int V = j->isa->V;
    int64_t l0 = u0 * V, ln = (u1 * V < j->n ? u1 * V : j->n) - l0;
    float *dst = j->dst + l0 * j->K;
    if (j->nt) j->isa->pack_t(ln, j->K, j->src + l0 * j->ld, j->ld, V, dst);
    else pack_cols(ln, j->K, j->src + l0, j->ld, V, dst);
}

/* C = alpha * A @ op(B) + beta*C with op(B) = W^T (nt, B is W (N,K)) or B (K,N). The packed
 * operand P is A's rows (nt) or B's columns; the broadcast rows Q are W's rows or A's rows.
 * Groups of R broadcast rows are shared out over the thread pool (each output is computed by
 * one thread, so the thread count never changes a result). */
static void blocked(const tn_gemm_isa *isa, bool nt, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                    int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, float *scratch,
                    const float *prepacked) {
    const int64_t np = nt ? M : N, nq = nt ? N : M;
    /* A long K with B's columns packed (A @ B, beta 0: the gradient products of backward, e.g.
     * (128 x 49152) @ (49152 x 576)) is split into K blocks, so a packed block holds many lanes
     * and A streams from memory once per lane block instead of once per V lanes; the partial
     * sums wait in C and each chain continues in order, so the bits are the unsplit ones. */
    const bool ksplit = !prepacked && k_split(isa, nt, np, K, beta);
    const int64_t kb = ksplit ? TN_GEMM_KBLOCK : K;
    const int64_t pb = ksplit ? TN_GEMM_BLOCK_FLOATS / TN_GEMM_KBLOCK : block_lanes(isa, np, K);
    blk_job job = {.isa = isa, .nt = nt, .nq = nq, .ldq = nt ? ldb : lda, .ldc = ldc,
                   .packed = scratch, .C = C, .alpha = alpha, .beta = beta};
    const int64_t groups = (nq + isa->R - 1) / isa->R;
    for (int64_t p0 = 0; p0 < np; p0 += pb) {
        int64_t pn = np - p0 < pb ? np - p0 : pb;
        for (int64_t k0 = 0; k0 < K; k0 += kb) {
            int64_t kn = K - k0 < kb ? K - k0 : kb;
            if (prepacked) { /* the caller's panels: this block's are at p0 * K */
                job.packed = prepacked + p0 * K;
            } else {
                pack_job pj = {isa, nt, pn, kn, nt ? A + p0 * lda + k0 : B + k0 * ldb + p0, nt ? lda : ldb, scratch};
                /* panels of V lanes are independent: packed over the pool too, ~64K floats a chunk */
                tn_parallel_for((pn + isa->V - 1) / isa->V, (1 << 16) / (isa->V * kn + 1) + 1, pack_panels, &pj);
            }
            job.p0 = p0;
            job.pn = pn;
            job.K = kn;
            job.Q = (nt ? B : A) + k0;
            job.acc = k0 > 0;
            job.last = k0 + kn == K;
            /* a group is R x pn x K multiply-adds; aim for ~1M per chunk */
            int64_t grain = (1 << 20) / (isa->R * pn * kn + 1) + 1;
            tn_parallel_for(groups, grain, blk_groups, &job);
        }
    }
}

size_t tn_gemm_f32_scratch(int64_t M, int64_t N, int64_t K) {
    const tn_gemm_isa *isa = gemm_isa();
    return isa && M >= TN_GEMM_NN_MIN_M && K > 0 ? blocked_scratch(isa, N, K) : 0;
}

void tn_gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *B,
                 int64_t ldb, float beta, float *C, int64_t ldc, float *scratch) {
    const tn_gemm_isa *isa = gemm_isa();
    if (isa && M >= TN_GEMM_NN_MIN_M && K > 0) blocked(isa, false, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, scratch, NULL);
    else tn_gemm_ref_f32(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

int tn_gemm_f32_panel(void) {
    const tn_gemm_isa *isa = gemm_isa();
    return isa ? isa->V : 0;
}

void tn_gemm_f32_pack_b(int64_t N, int64_t K, const float *B, int64_t ldb, float *dst) {
    pack_cols(N, K, B, ldb, gemm_isa()->V, dst);
}

void tn_gemm_f32_packed(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *Bp, float *C,
                        int64_t ldc) {
    if (M > 0 && N > 0 && K > 0) blocked(gemm_isa(), false, M, N, K, 1, A, lda, NULL, 0, 0, C, ldc, NULL, Bp);
}

size_t tn_gemm_nt_f32_scratch(int64_t M, int64_t N, int64_t K) {
    const tn_gemm_isa *isa = gemm_isa();
    (void)N;
    return isa && M >= TN_GEMM_FEW_M && K > 0 ? blocked_scratch(isa, M, K) : 0;
}

/* Few rows of A @ W^T split over the pool by output columns, in units of 8 (whole vectors of
 * the kernels; a column's result does not depend on the split). */
typedef struct {
    const tn_gemm_isa *isa;
    int64_t M, N, K, lda, ldw, ldc;
    const float *A, *W;
    float *C, alpha, beta;
} cols_job;

/* Whether A @ W^T sums in tn_gemv_nt_ref_f32's lane order: one row always; a few rows when k
 * is long (upstream's MKL matches the in-order chain only up to k = 65 with up to 4 rows, so
 * long few-row products have no upstream order to keep). */
static bool lane_order(int64_t M, int64_t K) { return M == 1 || (M < TN_GEMM_FEW_M && K > 64); }

static void nt_cols(int64_t u0, int64_t u1, void *vjob) {
    const cols_job *c = vjob;
    int64_t j0 = u0 * 8, j1 = u1 * 8 < c->N ? u1 * 8 : c->N, n = j1 - j0;
    const float *W = c->W + j0 * c->ldw;
    float *C = c->C + j0;
    if (lane_order(c->M, c->K)) {
        if (c->isa) c->isa->gemv_rows(c->M, n, c->K, c->alpha, c->A, c->lda, W, c->ldw, c->beta, C, c->ldc);
        else
            for (int64_t i = 0; i < c->M; i++)
                tn_gemv_nt_ref_f32(n, c->K, c->alpha, c->A + i * c->lda, W, c->ldw, c->beta, C + i * c->ldc);
    } else if (c->isa) {
        c->isa->nt_few(c->M, n, c->K, c->alpha, c->A, c->lda, W, c->ldw, c->beta, C, c->ldc);
    } else {
        tn_gemm_nt_ref_f32(c->M, n, c->K, c->alpha, c->A, c->lda, W, c->ldw, c->beta, C, c->ldc);
    }
}

void tn_gemm_nt_f32(int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda, const float *W,
                    int64_t ldw, float beta, float *C, int64_t ldc, float *scratch) {
    const tn_gemm_isa *isa = gemm_isa();
    if (!isa || K == 0 || M < TN_GEMM_FEW_M) {
        cols_job c = {isa, M, N, K, lda, ldw, ldc, A, W, C, alpha, beta};
        /* a unit is 8 x M x K multiply-adds; aim for ~256K per chunk */
        tn_parallel_for((N + 7) / 8, (1 << 18) / (8 * M * K + 1) + 1, nt_cols, &c);
    } else {
        blocked(isa, true, M, N, K, alpha, A, lda, W, ldw, beta, C, ldc, scratch, NULL);
    }
}
