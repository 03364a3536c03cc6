/* kernels/quant.c — the quantised Linear product (see kernels/quant.h): activation rows quantised
 * as ggml's vec_dot path does, then per output the block formula in block order. The integer
 * block sums come from the CPU's variant (AVX-512 VNNI, AVX2 or the portable reference), chosen
 * once at run time; they are exact, and the float steps are this file's, so every variant
 * returns the same bits. TN_QUANT=ref or TN_QUANT=avx2 forces a lower variant; TN_QUANT_NO8=1
 * and TN_QUANT_NOTILE=1 turn the eight-row and the multi-row (prefill) kernels off. Outputs are
 * shared over the thread pool in tiles of whole weight rows; each output is computed by one
 * thread in a fixed order, so no result depends on the thread count. */
#include "kernels/quant.h"
#include "core/dtype.h"
#include "core/parallel.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static tn_qrow_fn chosen;
static tn_qrows8_fn chosen8; /* NULL: no eight-row kernel (the portable reference) */
static tn_qtile_fn chosen_tile; /* NULL: no multi-row (prefill) kernel */
static tn_qact8_fn chosen_act;  /* NULL: activations quantised by the reference */
static const char *chosen_name;

static tn_qrow_fn qdot_isa(void) {
    if (!chosen) { /* a benign race: every thread computes the same answer */
        const char *env = getenv("TN_QUANT");
        tn_qrow_fn found = tn_qrow_ref;
        tn_qrows8_fn found8 = NULL;
        tn_qtile_fn found_tile = NULL;
        tn_qact8_fn found_act = NULL;
        const char *name = "ref";
#if defined(__x86_64__)
        __builtin_cpu_init();
        bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
        bool vnni = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                    __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
        if (vnni && !(env && (!strcmp(env, "avx2") || !strcmp(env, "ref")))) {
            found = tn_qrow_avx512vnni;
            found8 = tn_qrows8_avx512vnni;
            found_tile = tn_qtile_avx512vnni;
            found_act = tn_qact8_avx512vnni;
            name = "avx512vnni";
        } else if (avx2 && !(env && !strcmp(env, "ref"))) {
            found = tn_qrow_avx2;
            found8 = tn_qrows8_avx2;
            found_tile = tn_qtile_avx2;
            found_act = tn_qact8_avx2;
            name = "avx2";
        }
#endif
        chosen_name = name;
        chosen8 = getenv("TN_QUANT_NO8") ? NULL : found8;
        chosen_tile = getenv("TN_QUANT_NOTILE") ? NULL : found_tile;
        chosen_act = found_act;
        chosen = found;
    }
    return chosen;
}

const char *tn_quant_isa(void) {
    qdot_isa();
    return chosen_name;
}

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

/* The activation format a weight format's product uses. */
static bool is_k(tn_qfmt f) { return f == TN_Q2_K || f == TN_Q3_K || f == TN_Q4_K || f == TN_Q5_K || f == TN_Q6_K; }
static tn_qfmt act_fmt(tn_qfmt f) { return f == TN_Q4_1 ? TN_Q8_1 : is_k(f) ? TN_Q8_K : TN_Q8_0; }

size_t tn_quant_linear_scratch(tn_qfmt f, int64_t M, int64_t K) {
    (void)f;
    int64_t nb = K / TN_QK;
    /* per row: K int8 quants, nb each of d, s (float) and sum (int32) (k-quants: K/256 d and s,
     * K/16 sums: fewer); plus alignment */
    return (size_t)(M * (K + nb * 12) + 64);
}

/* Row x (K floats) quantised as ggml's quantize_row_q8_0/q8_1 reference into the split form. */
static void quant_act(tn_qfmt af, const float *x, int64_t K, tn_qact *o) {
    uint8_t blk[292];
    if (af == TN_Q8_K) {
        for (int64_t b = 0; b < K / TN_QKK; b++) {
            tn_quant_row(TN_Q8_K, x + b * TN_QKK, blk, TN_QKK);
            memcpy(o->q + b * TN_QKK, blk + 4, TN_QKK);
            memcpy(o->d + b, blk, 4);
            o->s[b] = 0.0f;
            for (int g = 0; g < 16; g++) o->sum[b * 16 + g] = (int16_t)rd16(blk + 260 + 2 * g);
        }
        return;
    }
    if (chosen_act && chosen_act(af, x, K / TN_QK, o)) return;
    int off = af == TN_Q8_1 ? 4 : 2;
    for (int64_t b = 0; b < K / TN_QK; b++) {
        tn_quant_row(af, x + b * TN_QK, blk, TN_QK);
        memcpy(o->q + b * TN_QK, blk + off, TN_QK);
        o->d[b] = tn_f16_to_f32(rd16(blk));
        o->s[b] = af == TN_Q8_1 ? tn_f16_to_f32(rd16(blk + 2)) : 0.0f;
        int32_t s = 0;
        for (int j = 0; j < TN_QK; j++) s += o->q[b * TN_QK + j];
        o->sum[b] = s;
    }
}

typedef struct {
    tn_qfmt f;
    int64_t M, N, K, ldx, ldy;
    const float *x;
    const uint8_t *W;
    const float *bias;
    float *y;
    int8_t *q; /* M rows of the split activations (tn_qact) */
    float *d, *s;
    int32_t *sum;
    tn_qrow_fn row;
    tn_qrows8_fn rows8;
    tn_qtile_fn tile; /* NULL for a single activation row */
} job;

/* Per row: nd scales (d and s) and ns sums. */
static tn_qact act_row(const job *j, int64_t m) {
    int64_t nd = is_k(j->f) ? j->K / TN_QKK : j->K / TN_QK, ns = is_k(j->f) ? j->K / 16 : j->K / TN_QK;
    return (tn_qact){j->q + m * j->K, j->d + m * nd, j->s + m * nd, j->sum + m * ns};
}

#define TILE_ROWS 16

static void run_tiles(int64_t t0, int64_t t1, void *ctx) {
    job *j = ctx;
    int64_t nb = j->K / tn_quant_block_values(j->f), rowbytes = nb * tn_quant_block_bytes(j->f);
    for (int64_t t = t0; t < t1; t++) {
        int64_t n0 = t * TILE_ROWS, n1 = n0 + TILE_ROWS < j->N ? n0 + TILE_ROWS : j->N;
        /* groups of eight weight rows against all activation rows, TN_QTILE_M at a time: the
         * group's bytes stay in cache while the activations pass */
        for (; j->tile && n0 + 8 <= n1; n0 += 8) {
            int64_t m = 0;
            for (; m < j->M; m += TN_QTILE_M) {
                const int mt = j->M - m < TN_QTILE_M ? (int)(j->M - m) : TN_QTILE_M;
                tn_qact a[TN_QTILE_M];
                float o[TN_QTILE_M * 8];
                for (int i = 0; i < mt; i++) a[i] = act_row(j, m + i);
                if (!j->tile(j->f, j->W + n0 * rowbytes, rowbytes, a, mt, nb, o, 8)) break;
                for (int i = 0; i < mt; i++)
                    for (int r = 0; r < 8; r++)
                        j->y[(m + i) * j->ldy + n0 + r] = j->bias ? o[8 * i + r] + j->bias[n0 + r] : o[8 * i + r];
            }
            if (m < j->M) break; /* a format the variant does not tile: refused before any output */
        }
        for (int64_t m = 0; m < j->M; m++) {
            const tn_qact a = act_row(j, m);
            int64_t n = n0;
            for (; j->rows8 && n + 8 <= n1; n += 8) {
                float o[8];
                if (!j->rows8(j->f, j->W + n * rowbytes, rowbytes, &a, nb, o)) break;
                for (int r = 0; r < 8; r++) j->y[m * j->ldy + n + r] = j->bias ? o[r] + j->bias[n + r] : o[r];
            }
            for (; n < n1; n++) {
                float acc = j->row(j->f, j->W + n * rowbytes, &a, nb);
                if (j->bias) acc += j->bias[n];
                j->y[m * j->ldy + n] = acc;
            }
        }
    }
}

static void run_acts(int64_t m0, int64_t m1, void *ctx) {
    job *j = ctx;
    for (int64_t m = m0; m < m1; m++) {
        tn_qact a = act_row(j, m);
        quant_act(act_fmt(j->f), j->x + m * j->ldx, j->K, &a);
    }
}

void tn_quant_linear(tn_qfmt f, int64_t M, int64_t N, int64_t K, const float *x, int64_t ldx, const uint8_t *W,
                     const float *bias, float *y, int64_t ldy, void *scratch) {
    int64_t nd = is_k(f) ? K / TN_QKK : K / TN_QK;
    char *p = scratch;
    float *d = (float *)(((uintptr_t)(p + M * K) + 15) & ~(uintptr_t)15);
    job j = {f, M, N, K, ldx, ldy, x, W, bias, y, (int8_t *)p, d, d + M * nd, (int32_t *)(d + 2 * M * nd), qdot_isa(), NULL};
    j.rows8 = chosen8;
    j.tile = M > 1 ? chosen_tile : NULL;
    tn_parallel_for(M, 8, run_acts, &j);
    tn_parallel_for((N + TILE_ROWS - 1) / TILE_ROWS, 1, run_tiles, &j);
}
