/* iter.c — the strided N-d walk behind every elementwise kernel. */
#include "core/iter.h"

#include "core/parallel.h"

#include <stdbool.h>
#include <string.h>

void tn_iter_init(tn_iter *it, int nops, int ndim, const int64_t *shape) {
    memset(it, 0, sizeof *it);
    it->nops = nops;
    it->ndim = ndim;
    if (ndim) memcpy(it->shape, shape, (size_t)ndim * sizeof *shape);
}

void tn_iter_set(tn_iter *it, int k, char *data, const int64_t *elem_strides, int itemsize) {
    it->data[k] = data;
    for (int d = 0; d < it->ndim; d++)
        it->strides[k][d] = it->shape[d] == 1 ? 0 : elem_strides[d] * itemsize;
}

void tn_iter_set_tensor(tn_iter *it, int k, const tn_tensor *t) {
    int64_t st[TN_MAX_DIMS];
    int lead = it->ndim - t->ndim;
    for (int d = 0; d < it->ndim; d++) {
        int td = d - lead;
        st[d] = (td < 0 || t->sizes[td] == 1) ? 0 : t->strides[td];
    }
    tn_iter_set(it, k, tn_data(t), st, tn_dtype_itemsize(t->dtype));
}

/* Merge dim d into d+1 (inner) when every operand steps uniformly across both. */
static void coalesce(tn_iter *it) {
    if (it->ndim <= 1) return;
    int out = it->ndim - 1; /* write position, walking from the innermost dim outward */
    int64_t shape[TN_MAX_DIMS], strides[TN_ITER_MAX_OPS][TN_MAX_DIMS];
    shape[out] = it->shape[it->ndim - 1];
    for (int k = 0; k < it->nops; k++) strides[k][out] = it->strides[k][it->ndim - 1];
    for (int d = it->ndim - 2; d >= 0; d--) {
        bool ok = true;
        for (int k = 0; k < it->nops && ok; k++)
            ok = it->strides[k][d] == strides[k][out] * shape[out];
        if (it->shape[d] == 1) continue;
        if (shape[out] == 1) {
            shape[out] = it->shape[d];
            for (int k = 0; k < it->nops; k++) strides[k][out] = it->strides[k][d];
        } else if (ok) {
            shape[out] *= it->shape[d];
        } else {
            out--;
            shape[out] = it->shape[d];
            for (int k = 0; k < it->nops; k++) strides[k][out] = it->strides[k][d];
        }
    }
    int n = it->ndim - out;
    memmove(it->shape, shape + out, (size_t)n * sizeof(int64_t));
    for (int k = 0; k < it->nops; k++) memmove(it->strides[k], strides[k] + out, (size_t)n * sizeof(int64_t));
    it->ndim = n;
}

/* Run the loop over elements [begin, end) of the coalesced iteration space (row-major order):
 * a partial first row, whole rows, a partial last row. */
static void run_range(const tn_iter *it, tn_loop loop, const void *ctx, int64_t begin, int64_t end) {
    int nd = it->ndim, inner = nd - 1, nops = it->nops;
    int64_t idx[TN_MAX_DIMS], rem = begin;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
    }
    int64_t inner_strides[TN_ITER_MAX_OPS];
    char *ptr[TN_ITER_MAX_OPS], *row[TN_ITER_MAX_OPS]; /* row: the operand at (idx[..inner-1], 0) */
    for (int k = 0; k < nops; k++) {
        inner_strides[k] = it->strides[k][inner];
        char *p = it->data[k];
        for (int d = 0; d < inner; d++) p += idx[d] * it->strides[k][d];
        row[k] = p;
    }
    for (int64_t pos = begin; pos < end;) {
        int64_t cnt = it->shape[inner] - idx[inner];
        if (cnt > end - pos) cnt = end - pos;
        for (int k = 0; k < nops; k++) ptr[k] = row[k] + idx[inner] * inner_strides[k];
        loop(ptr, inner_strides, cnt, ctx);
        pos += cnt;
        idx[inner] += cnt;
        if (idx[inner] == it->shape[inner]) {
            /* next row: step the outer index like an odometer, moving the row pointers along */
            idx[inner] = 0;
            int d = inner - 1;
            while (d >= 0) {
                for (int k = 0; k < nops; k++) row[k] += it->strides[k][d];
                if (++idx[d] < it->shape[d]) break;
                for (int k = 0; k < nops; k++) row[k] -= it->shape[d] * it->strides[k][d];
                idx[d--] = 0;
            }
        }
    }
}

/* Common start: empty or meta operands run nothing (returns false); else coalesced. */
static bool prepare(tn_iter *it, tn_loop loop, const void *ctx) {
    for (int d = 0; d < it->ndim; d++)
        if (it->shape[d] == 0) return false;
    /* A meta operand has no bytes: there is nothing to compute (and nothing a kernel may touch).
     * The op layer should have refused a meta/cpu mix; this keeps a miss from being a crash. */
    for (int k = 0; k < it->nops; k++)
        if (!it->data[k]) return false;
    coalesce(it);
    if (it->ndim == 0) {
        int64_t zero[TN_ITER_MAX_OPS] = {0};
        loop(it->data, zero, 1, ctx);
        return false;
    }
    return true;
}

static int64_t numel_of(const tn_iter *it) {
    int64_t n = 1;
    for (int d = 0; d < it->ndim; d++) n *= it->shape[d];
    return n;
}

void tn_iter_run(tn_iter *it, tn_loop loop, const void *ctx) {
    if (prepare(it, loop, ctx)) run_range(it, loop, ctx, 0, numel_of(it));
}

typedef struct {
    const tn_iter *it;
    tn_loop loop;
    const void *ctx;
} par_job;

static void par_chunk(int64_t begin, int64_t end, void *p) {
    const par_job *j = p;
    run_range(j->it, j->loop, j->ctx, begin, end);
}

void tn_iter_run_parallel(tn_iter *it, tn_loop loop, const void *ctx) {
    if (!prepare(it, loop, ctx)) return;
    int64_t n = numel_of(it);
    /* an output written more than once (a 0 stride along a dim of size > 1) keeps the serial
     * order: the last write wins, as in tn_iter_run */
    for (int d = 0; d < it->ndim; d++)
        if (it->strides[0][d] == 0 && it->shape[d] > 1) {
            run_range(it, loop, ctx, 0, n);
            return;
        }
    par_job j = {it, loop, ctx};
    tn_parallel_for(n, TN_ITER_GRAIN, par_chunk, &j);
}
