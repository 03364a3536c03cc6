/* embbag.h — embedding_bag's reductions and its dense backward (kernels/ref/embbag.c). Plain C:
 * no Python, no allocation. Indices, offset2bag and bag sizes are int64 (the op layer converts);
 * weight / gradient rows are read through element strides; results are contiguous. dt: 0 f32,
 * 1 f64, 2 bf16, 3 f16. Sums accumulate in float (double for f64) and round once per bag, as
 * upstream's CPU kernels (EmbeddingBag.cpp). */
#ifndef TN_KERNELS_EMBBAG_H
#define TN_KERNELS_EMBBAG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int dt, mode;                   /* mode: 0 sum, 1 mean, 2 max */
    int64_t n, nbags, dim, nw;      /* indices, bags, embedding dim, rows of weight */
    const int64_t *idx, *bag_of;    /* n each */
    const char *w;                  /* weight */
    int64_t ws0, ws1;               /* element strides */
    const char *psw;                /* per-sample weights (weight's dtype) or NULL */
    int64_t pss;
    int64_t pad;                    /* padding_idx (< 0: none) */
    bool fma;                       /* fused multiply-add with per-sample weights */
    char *out;                      /* nbags x dim, zeroed by the caller */
    float *accf;                    /* nbags x dim float accumulator (f32/bf16/f16), zeroed */
    int64_t *bag_size;              /* nbags (decremented for padding) or NULL */
    int64_t *maxidx;                /* nbags x dim (max mode), zeroed, or NULL */
    unsigned char *seen;            /* nbags scratch (max mode), zeroed */
} tn_embbag_plan;

/* Sum / mean / max into p->out. Returns 0, or -1 with *bad the out-of-range index at *pos. */
int tn_embbag_forward(const tn_embbag_plan *p, int64_t *bad, int64_t *pos);
/* mean: out[b] /= max(bag_size[b], 1), in the output dtype */
void tn_embbag_mean(const tn_embbag_plan *p);

typedef struct {
    int dt, mode;
    int64_t n, dim, nw, nbags;
    const int64_t *sorted, *perm;   /* indices sorted (stable), and their positions */
    const int64_t *bag_of, *bag_size, *counts, *next;   /* next: end of each group of equal indices */
    int64_t ngroups;
    const char *grad;               /* contiguous nbags x dim */
    const char *psw;                /* or NULL */
    int64_t pss;
    int64_t pad;
    bool scale_freq;
    char *gw;                       /* nw x dim, zeroed */
    const int64_t *maxidx;          /* max mode: nbags x dim */
} tn_embbag_bwd_plan;

void tn_embbag_dense_backward(const tn_embbag_bwd_plan *p);

/* out[i] = grad[bag_of[i]] . weight[idx[i]] (0 for padding) */
void tn_embbag_psw_backward(int dt, int64_t n, int64_t dim, const int64_t *idx, const int64_t *bag_of, const char *grad, int64_t gs0,
                            int64_t gs1, const char *w, int64_t ws0, int64_t ws1, int64_t pad, char *out);

#endif
