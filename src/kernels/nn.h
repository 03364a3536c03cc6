/* nn.h — neural-network kernels: softmax / log_softmax, layer norm, RMS norm, scaled dot-product
 * attention, embedding row gather, and sorting rows with indices (sort / argsort / topk).
 *
 * Plain C: no Python, no allocation, no failure. The op layer (ops/nn.c, ops/sort.c) validates,
 * promotes and allocates; reduced precision (f16 / bf16) is widened by the op layer to f32
 * before these kernels run and narrowed once afterwards (round-to-nearest-even), so kernels come
 * in float and double flavours only. Sums are accumulated in double for both flavours: the
 * results are at least as close to the exact value as upstream's vectorised f32 loops (which use
 * a fast exp and lane-wise f32 sums), which is what the tests' tolerance ("float") measures. */
#ifndef TN_KERNELS_NN_H
#define TN_KERNELS_NN_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/lowp.h"

/* Softmax over the middle dim of a contiguous [outer, n, inner] buffer: y = exp(x - max) / sum.
 * log: y = x - max - log(sum). safe: rows whose max is -inf give 0 (upstream's _safe_softmax);
 * otherwise they give NaN as upstream's softmax does. x and y may not alias. */
void tn_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, bool log, bool safe);
void tn_softmax_f64(const double *x, double *y, int64_t outer, int64_t n, int64_t inner, bool log, bool safe);
/* The softmax kernel's row steps (kernels/ref/softmax.c), shared with kernels/attention.c: the max
 * of x[0..n) (NaN when any is NaN; -inf for n = 0), the sum in 8 double lanes in a fixed order,
 * and y[j] *= c. The same bits on every instruction-set clone. */
float tn_row_max_f32(const float *x, int64_t n);
double tn_row_sum_f32(const float *y, int64_t n);
void tn_row_scale_f32(float *y, float c, int64_t n);

/* Layer norm over rows of a contiguous [M, N] buffer. w, b: N elements or NULL. mean and rstd:
 * M elements each (rstd = 1 / sqrt(var + eps), biased variance). _f32 / _f64 round as upstream's
 * CPU kernel at the host's ATen capability (kernels/layer_norm.c); _f32_wide (for bfloat16 /
 * float16 input) accumulates in double and rounds once. */
void tn_layer_norm_f32_wide(const float *x, const float *w, const float *b, float *y, float *mean, float *rstd,
                            int64_t M, int64_t N, double eps);
void tn_layer_norm_f32(const float *x, const float *w, const float *b, float *y, float *mean, float *rstd,
                       int64_t M, int64_t N, double eps);
void tn_layer_norm_f64(const double *x, const double *w, const double *b, double *y, double *mean,
                       double *rstd, int64_t M, int64_t N, double eps);

/* RMS norm over rows of a contiguous [M, N] buffer: rstd = 1/sqrt(mean(x^2) + eps) (float),
 * y = (x * rstd) * w (w may be NULL). rstd may be NULL. */
void tn_rms_norm_f32(const float *x, const float *w, float *y, float *rstd, int64_t M, int64_t N, double eps);
void tn_rms_norm_f64(const double *x, const double *w, double *y, double *rstd, int64_t M, int64_t N, double eps);

/* Scaled dot-product attention. q [B,H,L,E], k [B,Hk,S,E], v [B,Hk,S,Ev] with element strides
 * (q head h reads k/v head h / (H / Hk)); mask (additive, broadcast by strides, may be NULL)
 * [B,H,L,S]. Causal masks key j > query i (top-left aligned). out [B,H,L,Ev] and lse [B,H,L]
 * by element strides (lse may be NULL). Rows with every key masked give 0 and lse 0. scores:
 * scratch of S doubles. */
typedef struct {
    int64_t B, H, Hk, L, S, E, Ev;
    int64_t qs[4], ks[4], vs[4], ms[4], os[4], ls[3];
    bool causal;
    double scale;
} tn_attn_geom;
void tn_attention_f32(const tn_attn_geom *g, const float *q, const float *k, const float *v, const float *mask,
                      float *out, float *lse, double *scores);
void tn_attention_f64(const tn_attn_geom *g, const double *q, const double *k, const double *v,
                      const double *mask, double *out, double *lse, double *scores);

/* The same in f32 through the GEMM kernels (kernels/attention.c), for q, k, v and out whose
 * last dimension has element stride 1; scratch of tn_attention_f32_scratch(g, slots) bytes, one
 * slot per thread that may share the work (tn_get_num_threads(); fewer only limits it). Scores
 * and probabilities in f32 like upstream's CPU kernel, so results differ from the reference by
 * float rounding. */
size_t tn_attention_f32_scratch(const tn_attn_geom *g, int slots);
void tn_attention_gemm_f32(const tn_attn_geom *g, const float *q, const float *k, const float *v, const float *mask,
                           float *out, float *lse, float *scratch, int slots);
/* The same on bf16 / f16 (fmt) q, k, v and out (last dimension of element stride 1, Ev > 1): f32
 * blocks widened inside the kernel (kernels/attention.c), the bits of widening whole copies, running
 * the f32 kernel and rounding its output; mask and lse in f32; scratch of tn_attention_lp_scratch(g)
 * bytes. */
size_t tn_attention_lp_scratch(const tn_attn_geom *g);
/* The backward of the flash forward (upstream's _scaled_dot_product_flash_attention_for_cpu_backward,
 * kernels/attention.c): from grad_out (element strides gs), q, k, v, out (os), the forward's lse (ls)
 * and the mask (ms; additive, already in the compute type) to dq [B,H,L,E], dk [B,Hk,S,E] and
 * dv [B,Hk,S,Ev] (element strides dqs / dks / dvs). Every operand's last dimension has element stride 1.
 * P = exp(scale q k^T + mask - lse) recomputed block by block (0 past the causal cut); grouped heads'
 * key / value gradients summed. Scratch of tn_attention_bw_scratch(bg, slots, f64) bytes. */
typedef struct {
    tn_attn_geom a;
    int64_t gs[4], dqs[4], dks[4], dvs[4];
} tn_attn_bw_geom;
size_t tn_attention_bw_scratch(const tn_attn_bw_geom *bg, int slots, bool f64);
void tn_attention_bw_f32(const tn_attn_bw_geom *bg, const float *dO, const float *q, const float *k, const float *v,
                         const float *out, const float *lse, const float *mask, float *dq, float *dk, float *dv,
                         void *scratch, int slots);
void tn_attention_bw_f64(const tn_attn_bw_geom *bg, const double *dO, const double *q, const double *k,
                         const double *v, const double *out, const double *lse, const double *mask, double *dq,
                         double *dk, double *dv, void *scratch, int slots);
void tn_attention_gemm_lp(tn_lp_fmt fmt, const tn_attn_geom *g, const uint16_t *q, const uint16_t *k, const uint16_t *v,
                          const float *mask, uint16_t *out, float *lse, void *scratch);

/* Gather rows: out row i (contiguous, `row_bytes` = D * itemsize) = weight row idx[i], read
 * with byte strides (s0 between rows, s1 between elements). Indices already validated. */
void tn_gather_rows(char *out, const char *weight, int64_t s0, int64_t s1, int64_t D, int itemsize,
                    const int64_t *idx, int64_t n);

/* Sort each row of a contiguous [rows, n] buffer of `kind` keys (stable merge sort), writing
 * the sorted keys back in place and the permutation (source positions) into idx [rows, n].
 * NaN sorts as the largest value (last ascending, first descending); ties keep their order.
 * scratch: n keys + n int64 (the op layer allocates n * (8 + 8) bytes). */
typedef enum {
    TN_SORTKEY_U8, TN_SORTKEY_I8, TN_SORTKEY_I16, TN_SORTKEY_I32, TN_SORTKEY_I64,
    TN_SORTKEY_U16, TN_SORTKEY_U32, TN_SORTKEY_U64, TN_SORTKEY_F32, TN_SORTKEY_F64,
} tn_sortkey;
void tn_sort_rows(tn_sortkey kind, void *keys, int64_t *idx, int64_t rows, int64_t n, bool descending,
                  void *scratch);

/* topk of each row of a contiguous [rows, n] buffer of `kind` keys, as upstream's CPU kernel picks
 * and orders them, equal keys included (kernels/ref/topk.c): the first k keys of each row and
 * their source positions (into idx) are the result; the rest of the row is left undefined.
 * NaN counts as the largest key. scratch: n * 16 bytes. */
void tn_topk_rows(tn_sortkey kind, void *keys, int64_t *idx, int64_t rows, int64_t n, int64_t k, bool largest,
                  bool sorted, void *scratch);

/* Pick one element of each row of tn_sort_rows' output (keys ascending, NaN last; idx the
 * source positions): the k-th smallest (k 1-based), the lower median (NaN with the first NaN's
 * position if the row has one), the lower median of the non-NaN keys (NaN when all are), or
 * the mode (most frequent key, the smallest among equally frequent, the last position of its
 * run). Writes the key (same kind) to out_keys[r] and its source position to out_idx[r].
 * n >= 1. */
typedef enum { TN_SELECT_KTH, TN_SELECT_MEDIAN, TN_SELECT_NANMEDIAN, TN_SELECT_MODE } tn_select_how;
void tn_select_rows(tn_sortkey kind, const void *keys, const int64_t *idx, int64_t rows, int64_t n,
                    tn_select_how how, int64_t k, void *out_keys, int64_t *out_idx);

/* Runs of equal keys (==, so each NaN is its own run) in a row of n keys (sorted, or in source
 * order for unique_consecutive); pos[i] is key i's source position (NULL: i itself). Writes
 * each run's first key to out_keys (same kind), inverse[pos[i]] = run of key i and counts[run]
 * (each optional, NULL to skip); returns the number of runs. */
int64_t tn_unique_runs(tn_sortkey kind, const void *keys, const int64_t *pos, int64_t n, void *out_keys,
                       int64_t *inverse, int64_t *counts);
/* unique_dim: rows of width w of a contiguous [n, w] buffer. Orders the rows lexicographically
 * (stable; perm[i] = source row of sorted position i) unless `consecutive` (perm = identity),
 * then marks runs of equal rows: first[run] = sorted position of its first row, inverse[perm[i]]
 * = run, counts[run]. scratch: n int64. Returns the number of runs. */
int64_t tn_unique_rows(tn_sortkey kind, const void *data, int64_t n, int64_t w, bool consecutive, int64_t *perm,
                       int64_t *first, int64_t *inverse, int64_t *counts, int64_t *scratch);

#endif
