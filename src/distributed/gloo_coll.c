/* gloo_coll.c — gloo's collective algorithms over the transport of gloo.c, step for step as
 * gloo (allreduce.cc ring with its segmenting, broadcast.cc binomial tree, barrier.cc
 * dissemination, allgather.cc ring of half chunks, allgatherv.cc ring of blocks,
 * gather/scatter/alltoall(v) direct), so a
 * mixed world of our ranks and upstream's exchanges the same frames and computes the same bytes.
 * The element reductions are ProcessGroupGloo's (gloo::sum/product/min/max on the element type,
 * half types through float, bitwise ops on integers). No Python; call without the GIL. */
#include "distributed/gloo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/dtype.h"

int tn_gloo_elem_size(int gt) {
    switch (gt) {
    case TN_GT_F32: case TN_GT_I32: return 4;
    case TN_GT_F64: case TN_GT_I64: return 8;
    case TN_GT_F16: case TN_GT_BF16: return 2;
    default: return 1;
    }
}

/* std::min(a, b) = (b < a) ? b : a; std::max(a, b) = (a < b) ? b : a */
#define RED_LOOP(T, EXPR)                                                    \
    do {                                                                     \
        T *cc = (T *)c;                                                      \
        const T *aa = (const T *)a, *bb = (const T *)b;                      \
        for (size_t i = 0; i < n; i++) { T x = aa[i], y = bb[i]; cc[i] = (EXPR); } \
    } while (0)

#define RED_FLOAT(T)                                                         \
    switch (red) {                                                           \
    case TN_GR_SUM: RED_LOOP(T, x + y); break;                               \
    case TN_GR_PRODUCT: RED_LOOP(T, x * y); break;                           \
    case TN_GR_MIN: RED_LOOP(T, (y < x) ? y : x); break;                     \
    case TN_GR_MAX: RED_LOOP(T, (x < y) ? y : x); break;                     \
    default: break;                                                          \
    }

/* integers: wrapping add/mul (done unsigned), bitwise ops */
#define RED_INT(T, U)                                                        \
    switch (red) {                                                           \
    case TN_GR_SUM: RED_LOOP(T, (T)(U)((U)x + (U)y)); break;                 \
    case TN_GR_PRODUCT: RED_LOOP(T, (T)(U)((U)x * (U)y)); break;             \
    case TN_GR_MIN: RED_LOOP(T, (y < x) ? y : x); break;                     \
    case TN_GR_MAX: RED_LOOP(T, (x < y) ? y : x); break;                     \
    case TN_GR_BAND: RED_LOOP(T, (T)(x & y)); break;                         \
    case TN_GR_BOR: RED_LOOP(T, (T)(x | y)); break;                          \
    case TN_GR_BXOR: RED_LOOP(T, (T)(x ^ y)); break;                         \
    default: break;                                                          \
    }

/* half types: c10's operators compute in float and round to the type; comparisons in float and
 * the chosen operand is returned unchanged */
#define RED_HALF(TOF, FROMF)                                                  \
    do {                                                                      \
        uint16_t *cc = (uint16_t *)c;                                         \
        const uint16_t *aa = (const uint16_t *)a, *bb = (const uint16_t *)b;  \
        for (size_t i = 0; i < n; i++) {                                      \
            float x = TOF(aa[i]), y = TOF(bb[i]);                             \
            switch (red) {                                                    \
            case TN_GR_SUM: cc[i] = FROMF(x + y); break;                      \
            case TN_GR_PRODUCT: cc[i] = FROMF(x * y); break;                  \
            case TN_GR_MIN: cc[i] = (y < x) ? bb[i] : aa[i]; break;           \
            case TN_GR_MAX: cc[i] = (x < y) ? bb[i] : aa[i]; break;           \
            default: break;                                                   \
            }                                                                 \
        }                                                                     \
    } while (0)

void tn_gloo_reduce_fn(int gt, int red, void *c, const void *a, const void *b, size_t n) {
    switch (gt) {
    case TN_GT_F32: RED_FLOAT(float); break;
    case TN_GT_F64: RED_FLOAT(double); break;
    case TN_GT_F16: RED_HALF(tn_f16_to_f32, tn_f32_to_f16); break;
    case TN_GT_BF16: RED_HALF(tn_bf16_to_f32, tn_f32_to_bf16); break;
    case TN_GT_I8: RED_INT(int8_t, uint8_t); break;
    case TN_GT_U8: RED_INT(uint8_t, uint8_t); break;
    case TN_GT_I32: RED_INT(int32_t, uint32_t); break;
    case TN_GT_I64: RED_INT(int64_t, uint64_t); break;
    default: break;
    }
}

static int wait_op(tn_gloo_ctx *c, tn_gloo_op **op, int64_t t, tn_derr *err) {
    if (!*op) return 0;
    int rc = tn_gloo_wait(c, *op, t, NULL, err);
    *op = NULL;
    return rc;
}

/* on failure: drop every op still outstanding so no pair writes into a buffer we give back */
static void abandon(tn_gloo_ctx *c, tn_gloo_op **ops, int n) {
    for (int i = 0; i < n; i++) {
        if (ops[i]) tn_gloo_op_abandon(c, ops[i]);
        ops[i] = NULL;
    }
}

/* ---------------------------------------------------------------- allreduce (ring) */

typedef struct {
    size_t send_off, recv_off;
    ssize_t send_len, recv_len;
} ring_offs;

static ring_offs ring_at(size_t s0, size_t r0, size_t i, size_t seg, size_t nseg, size_t total) {
    ring_offs o;
    o.send_off = ((s0 + i) * seg) % (nseg * seg);
    o.recv_off = ((r0 + i) * seg) % (nseg * seg);
    o.send_len = (ssize_t)total - (ssize_t)o.send_off;
    if (o.send_len > (ssize_t)seg) o.send_len = (ssize_t)seg;
    o.recv_len = (ssize_t)total - (ssize_t)o.recv_off;
    if (o.recv_len > (ssize_t)seg) o.recv_len = (ssize_t)seg;
    return o;
}

int tn_gloo_allreduce(tn_gloo_ctx *c, void *buf, size_t count, int gt, int red, uint32_t tag,
                      int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    if (count == 0 || size == 1) return 0;
    const size_t es = (size_t)tn_gloo_elem_size(gt);
    const size_t total = count * es;
    const uint64_t slot = tn_gloo_slot(TN_GLOO_ALLREDUCE, tag);
    const size_t maxseg_elems = (1024 * 1024) / es;
    const size_t maxseg = es * (maxseg_elems > 1 ? maxseg_elems : 1);
    size_t nseg = (total + maxseg - 1) / maxseg;
    if (nseg < (size_t)size * 2) nseg = (size_t)size * 2;
    nseg = (nseg + (size_t)size - 1) / (size_t)size * (size_t)size;
    const size_t per = nseg / (size_t)size;
    size_t seg = (total + nseg - 1) / nseg;
    seg = (seg + es - 1) / es * es;
    uint8_t *tmp = malloc(seg * 2 + 1);
    if (!tmp) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    uint8_t *out = buf;
    const int recv_rank = (size + rank + 1) % size, send_rank = (size + rank - 1) % size;
    tn_gloo_op *ops[4] = {0};   /* recv[0], recv[1], send[0], send[1] */
    const size_t segoff[2] = {0, seg};
    const size_t iters = nseg - per + 2;

    /* reduce-scatter */
    size_t s0 = ((size_t)rank + 1) * per, r0 = ((size_t)rank + 2) * per;
    for (size_t i = 0; i < iters; i++) {
        if (i >= 2) {
            ring_offs pv = ring_at(s0, r0, i - 2, seg, nseg, total);
            if (pv.recv_len > 0) {
                if (wait_op(c, &ops[i & 1], t, err) < 0) goto fail;
                tn_gloo_reduce_fn(gt, red, out + pv.recv_off, out + pv.recv_off, tmp + segoff[i & 1],
                                  (size_t)pv.recv_len / es);
            }
            if (pv.send_len > 0 && wait_op(c, &ops[2 + (i & 1)], t, err) < 0) goto fail;
        }
        if (i < nseg - per) {
            ring_offs cu = ring_at(s0, r0, i, seg, nseg, total);
            if (cu.recv_len > 0 &&
                !(ops[i & 1] = tn_gloo_recv(c, recv_rank, slot, tmp + segoff[i & 1], (size_t)cu.recv_len, err)))
                goto fail;
            if (cu.send_len > 0 &&
                !(ops[2 + (i & 1)] = tn_gloo_send(c, send_rank, slot, out + cu.send_off, (size_t)cu.send_len, err)))
                goto fail;
        }
    }
    /* all-gather */
    s0 = (size_t)rank * per;
    r0 = ((size_t)rank + 1) * per;
    for (size_t i = 0; i < iters; i++) {
        if (i >= 2) {
            ring_offs pv = ring_at(s0, r0, i - 2, seg, nseg, total);
            if (pv.recv_len > 0 && wait_op(c, &ops[i & 1], t, err) < 0) goto fail;
            if (pv.send_len > 0 && wait_op(c, &ops[2 + (i & 1)], t, err) < 0) goto fail;
        }
        if (i < nseg - per) {
            ring_offs cu = ring_at(s0, r0, i, seg, nseg, total);
            if (cu.recv_len > 0 &&
                !(ops[i & 1] = tn_gloo_recv(c, recv_rank, slot, out + cu.recv_off, (size_t)cu.recv_len, err)))
                goto fail;
            if (cu.send_len > 0 &&
                !(ops[2 + (i & 1)] = tn_gloo_send(c, send_rank, slot, out + cu.send_off, (size_t)cu.send_len, err)))
                goto fail;
        }
    }
    free(tmp);
    return 0;
fail:
    abandon(c, ops, 4);
    free(tmp);
    return -1;
}

/* ---------------------------------------------------------------- broadcast (binomial tree) */

static size_t log2ceil(uint32_t v) {
    if (v <= 1) return 0;
    return (size_t)(32 - __builtin_clz(v - 1));
}

int tn_gloo_broadcast(tn_gloo_ctx *c, void *buf, size_t nbytes, int root, uint32_t tag, int64_t t,
                      tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    if (root < 0 || root >= size) {
        tn_derr_set(err, TN_DERR_RUNTIME, "invalid root rank %d", root);
        return -1;
    }
    const uint64_t slot = tn_gloo_slot(TN_GLOO_BROADCAST, tag);
    const size_t vsize = (size_t)size, vrank = ((size_t)rank + vsize - (size_t)root) % vsize;
    const size_t dim = log2ceil((uint32_t)vsize);
    tn_gloo_op **sends = calloc(dim + 1, sizeof *sends);
    if (!sends) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    size_t nsends = 0, mask = ((size_t)1 << dim) - 1;
    for (size_t i = 0; i < dim; i++) {
        mask ^= ((size_t)1 << i);
        if ((vrank & mask) != 0) continue;
        size_t vpeer = vrank ^ ((size_t)1 << i);
        if (vpeer >= vsize) continue;
        int peer = (int)((vpeer + (size_t)root) % vsize);
        if ((vrank & ((size_t)1 << i)) == 0) {
            if (!(sends[nsends] = tn_gloo_send(c, peer, slot, buf, nbytes, err))) goto fail;
            nsends++;
        } else {
            tn_gloo_op *r = tn_gloo_recv(c, peer, slot, buf, nbytes, err);
            if (!r || tn_gloo_wait(c, r, t, NULL, err) < 0) goto fail;
        }
    }
    for (size_t i = 0; i < nsends; i++)
        if (wait_op(c, &sends[i], t, err) < 0) goto fail;
    free(sends);
    return 0;
fail:
    abandon(c, sends, (int)nsends);
    free(sends);
    return -1;
}

/* ---------------------------------------------------------------- barrier (dissemination) */

int tn_gloo_barrier(tn_gloo_ctx *c, uint32_t tag, int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    const uint64_t slot = tn_gloo_slot(TN_GLOO_BARRIER, tag);
    static uint8_t dummy;
    for (int d = 1; d < size; d <<= 1) {
        tn_gloo_op *ops[2] = {0};
        ops[0] = tn_gloo_recv(c, (size + rank - d) % size, slot, &dummy, 0, err);
        if (!ops[0]) return -1;
        ops[1] = tn_gloo_send(c, (size + rank + d) % size, slot, &dummy, 0, err);
        if (!ops[1]) { abandon(c, ops, 1); return -1; }
        if (wait_op(c, &ops[0], t, err) < 0 || wait_op(c, &ops[1], t, err) < 0) {
            abandon(c, ops, 2);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- allgather (ring, half chunks) */

int tn_gloo_allgather(tn_gloo_ctx *c, const void *in, void *outp, size_t inbytes, uint32_t tag, int64_t t,
                      tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    uint8_t *out = outp;
    const uint64_t slot = tn_gloo_slot(TN_GLOO_ALLGATHER, tag);
    const size_t outbytes = inbytes * (size_t)size;
    if (in) memmove(out + (size_t)rank * inbytes, in, inbytes);
    if (size == 1 || outbytes == 0) return 0;
    const int recv_rank = (size + rank - 1) % size, send_rank = (size + rank + 1) % size;
    size_t csz[2], coff[2];
    csz[0] = inbytes / 2;
    csz[1] = inbytes - csz[0];
    coff[0] = 0;
    coff[1] = csz[0];
    /* gloo waits "a send" and "a recv" of the buffer; ops complete FIFO per pair, so a queue */
    int n = (size - 1) * 2;
    tn_gloo_op **sq = calloc((size_t)n, sizeof *sq), **rq = calloc((size_t)n, sizeof *rq);
    if (!sq || !rq) {
        free(sq);
        free(rq);
        tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
        return -1;
    }
    int sh = 0, rh = 0;
    for (int i = 0; i < n; i++) {
        size_t sseg = (size_t)size + (size_t)rank - (size_t)(i / 2), rseg = sseg - 1;
        size_t so = ((sseg * inbytes) + coff[i & 1]) % outbytes, ro = ((rseg * inbytes) + coff[i & 1]) % outbytes;
        size_t len = csz[i & 1];
        if (i >= 2) {
            if (wait_op(c, &sq[sh++], t, err) < 0 || wait_op(c, &rq[rh++], t, err) < 0) goto fail;
        }
        if (!(sq[i] = tn_gloo_send(c, send_rank, slot, out + so, len, err))) goto fail;
        if (!(rq[i] = tn_gloo_recv(c, recv_rank, slot, out + ro, len, err))) goto fail;
    }
    for (int k = 0; k < 2 && sh < n; k++)
        if (wait_op(c, &sq[sh++], t, err) < 0 || wait_op(c, &rq[rh++], t, err) < 0) goto fail;
    free(sq);
    free(rq);
    return 0;
fail:
    abandon(c, sq, n);
    abandon(c, rq, n);
    free(sq);
    free(rq);
    return -1;
}

/* ---------------------------------------------------------------- allgatherv (gloo allgatherv.cc) */

/* gloo's allgatherv: the allgather slot, then W - 1 ring steps, each sending block
 * (rank - i) to rank + 1 and receiving block (rank - i - 1) from rank - 1 (blocks of counts[r]
 * bytes, zero-length ones too), waiting the previous step's send and recv before the next */
int tn_gloo_allgatherv(tn_gloo_ctx *c, const void *in, void *outp, const size_t *counts, uint32_t tag, int64_t t,
                       tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    uint8_t *out = outp;
    const uint64_t slot = tn_gloo_slot(TN_GLOO_ALLGATHER, tag);
    size_t *off = calloc((size_t)size, sizeof *off), total = 0;
    if (!off) {
        tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
        return -1;
    }
    for (int i = 0; i < size; i++) {
        off[i] = total;
        total += counts[i];
    }
    if (in && counts[rank]) memmove(out + off[rank], in, counts[rank]);
    int rc = 0;
    tn_gloo_op *ops[2] = {NULL, NULL};
    if (size == 1 || total == 0) goto done;
    const int recv_rank = (size + rank - 1) % size, send_rank = (rank + 1) % size;
    for (int i = 0; i < size - 1; i++) {
        size_t si = (size_t)(size + rank - i) % (size_t)size, ri = (size_t)(size + rank - i - 1) % (size_t)size;
        if (wait_op(c, &ops[0], t, err) < 0 || wait_op(c, &ops[1], t, err) < 0 ||
            !(ops[0] = tn_gloo_send(c, send_rank, slot, out + off[si], counts[si], err)) ||
            !(ops[1] = tn_gloo_recv(c, recv_rank, slot, out + off[ri], counts[ri], err))) {
            rc = -1;
            goto done;
        }
    }
    if (wait_op(c, &ops[0], t, err) < 0 || wait_op(c, &ops[1], t, err) < 0) rc = -1;
done:
    abandon(c, ops, 2);
    free(off);
    return rc;
}

/* ---------------------------------------------------------------- gather / scatter */

int tn_gloo_gather(tn_gloo_ctx *c, const void *in, void *outp, size_t inbytes, int root, uint32_t tag,
                   int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    const uint64_t slot = tn_gloo_slot(TN_GLOO_GATHER, tag);
    if (rank != root) {
        tn_gloo_op *s = tn_gloo_send(c, root, slot, in, inbytes, err);
        return s ? tn_gloo_wait(c, s, t, NULL, err) : -1;
    }
    uint8_t *out = outp;
    tn_gloo_op **ops = calloc((size_t)size, sizeof *ops);
    if (!ops) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    for (int i = 0; i < size; i++) {
        if (i == rank) continue;
        if (!(ops[i] = tn_gloo_recv(c, i, slot, out + (size_t)i * inbytes, inbytes, err))) goto fail;
    }
    memmove(out + (size_t)rank * inbytes, in, inbytes);
    for (int i = 0; i < size; i++)
        if (wait_op(c, &ops[i], t, err) < 0) goto fail;
    free(ops);
    return 0;
fail:
    abandon(c, ops, size);
    free(ops);
    return -1;
}

int tn_gloo_scatter(tn_gloo_ctx *c, const void *const *ins, void *out, size_t nbytes, int root,
                    uint32_t tag, int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    const uint64_t slot = tn_gloo_slot(TN_GLOO_SCATTER, tag);
    if (rank != root) {
        tn_gloo_op *r = tn_gloo_recv(c, root, slot, out, nbytes, err);
        return r ? tn_gloo_wait(c, r, t, NULL, err) : -1;
    }
    tn_gloo_op **ops = calloc((size_t)size, sizeof *ops);
    if (!ops) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    for (int i = 0; i < size; i++) {
        if (i == rank) continue;
        if (!(ops[i] = tn_gloo_send(c, i, slot, ins[i], nbytes, err))) goto fail;
    }
    memmove(out, ins[rank], nbytes);
    for (int i = 0; i < size; i++)
        if (wait_op(c, &ops[i], t, err) < 0) goto fail;
    free(ops);
    return 0;
fail:
    abandon(c, ops, size);
    free(ops);
    return -1;
}

/* ---------------------------------------------------------------- alltoall(v) */

int tn_gloo_alltoallv(tn_gloo_ctx *c, const void *inp, const size_t *in_counts, void *outp,
                      const size_t *out_counts, uint32_t tag, int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    const uint8_t *in = inp;
    uint8_t *out = outp;
    const uint64_t slot = tn_gloo_slot(TN_GLOO_ALLTOALL, tag);
    size_t *ioff = calloc((size_t)size, sizeof *ioff), *ooff = calloc((size_t)size, sizeof *ooff);
    tn_gloo_op **ops = calloc((size_t)size * 2, sizeof *ops);
    if (!ioff || !ooff || !ops) {
        free(ioff);
        free(ooff);
        free(ops);
        tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
        return -1;
    }
    for (int i = 1; i < size; i++) {
        ioff[i] = ioff[i - 1] + in_counts[i - 1];
        ooff[i] = ooff[i - 1] + out_counts[i - 1];
    }
    int rc = 0;
    if (in_counts[rank] != out_counts[rank]) {
        tn_derr_set(err, TN_DERR_RUNTIME, "alltoall: this rank's input and output lengths differ");
        rc = -1;
        goto done;
    }
    memmove(out + ooff[rank], in + ioff[rank], in_counts[rank]);
    for (int i = 1; i < size; i++) {
        int sr = (rank + i) % size, rr = (rank + size - i) % size;
        if (!(ops[2 * i] = tn_gloo_send(c, sr, slot, in + ioff[sr], in_counts[sr], err)) ||
            !(ops[2 * i + 1] = tn_gloo_recv(c, rr, slot, out + ooff[rr], out_counts[rr], err))) {
            rc = -1;
            goto done;
        }
    }
    for (int i = 1; i < size && rc == 0; i++)
        if (wait_op(c, &ops[2 * i], t, err) < 0 || wait_op(c, &ops[2 * i + 1], t, err) < 0) rc = -1;
done:
    abandon(c, ops, size * 2);
    free(ioff);
    free(ooff);
    free(ops);
    return rc;
}

int tn_gloo_alltoall(tn_gloo_ctx *c, const void *in, void *out, size_t nbytes, uint32_t tag, int64_t t,
                     tn_derr *err) {
    int size = tn_gloo_ctx_size(c);
    size_t *cnt = malloc((size_t)size * sizeof *cnt);
    if (!cnt) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    for (int i = 0; i < size; i++) cnt[i] = nbytes / (size_t)size;
    int rc = tn_gloo_alltoallv(c, in, cnt, out, cnt, tag, t, err);
    free(cnt);
    return rc;
}

/* ---------------------------------------------------------------- reduce (gloo reduce.cc) */

int tn_gloo_reduce(tn_gloo_ctx *c, void *buf, size_t count, int gt, int red, int root, uint32_t tag,
                   int64_t t, tn_derr *err) {
    int size = tn_gloo_ctx_size(c), rank = tn_gloo_ctx_rank(c);
    if (count == 0 || size == 1) return 0;
    if (root < 0 || root >= size) {
        tn_derr_set(err, TN_DERR_RUNTIME, "invalid root rank %d", root);
        return -1;
    }
    const size_t es = (size_t)tn_gloo_elem_size(gt);
    const size_t total = count * es;
    const uint64_t slot = tn_gloo_slot(TN_GLOO_REDUCE, tag);
    const size_t maxseg = es * ((1024 * 1024) / es);
    size_t seg = (total + (size_t)size * 2 - 1) / ((size_t)size * 2);
    if (seg > maxseg) seg = maxseg;
    seg = (seg + es - 1) / es * es;
    size_t nseg = (total + seg - 1) / seg;
    if (nseg < (size_t)size * 2) nseg = (size_t)size * 2;
    nseg = (nseg + (size_t)size - 1) / (size_t)size * (size_t)size;
    const size_t per = nseg / (size_t)size, chunk = per * seg;
    uint8_t *tmp = malloc(seg * 2 + 1), *out = buf;
    if (!tmp) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
    const int recv_rank = (size + rank + 1) % size, send_rank = (size + rank - 1) % size;
    tn_gloo_op *ops[4] = {0};
    const size_t segoff[2] = {0, seg};
    const size_t s0 = ((size_t)rank + 1) * per, r0 = ((size_t)rank + 2) * per;
    for (size_t i = 0; i < nseg; i++) {
        if (i >= 2) {
            ring_offs pv = ring_at(s0, r0, i - 2, seg, nseg, total);
            if (pv.recv_len > 0) {
                if (wait_op(c, &ops[i & 1], t, err) < 0) goto fail;
                tn_gloo_reduce_fn(gt, red, out + pv.recv_off, out + pv.recv_off, tmp + segoff[i & 1],
                                  (size_t)pv.recv_len / es);
            }
            if (pv.send_len > 0 && wait_op(c, &ops[2 + (i & 1)], t, err) < 0) goto fail;
        }
        if (i + 2 < nseg) {
            ring_offs cu = ring_at(s0, r0, i, seg, nseg, total);
            if (cu.recv_len > 0 &&
                !(ops[i & 1] = tn_gloo_recv(c, recv_rank, slot, tmp + segoff[i & 1], (size_t)cu.recv_len, err)))
                goto fail;
            if (cu.send_len > 0 &&
                !(ops[2 + (i & 1)] = tn_gloo_send(c, send_rank, slot, out + cu.send_off, (size_t)cu.send_len, err)))
                goto fail;
        }
    }
    free(tmp);
    tmp = NULL;
    if (rank == root) {
        tn_gloo_op **rs = calloc((size_t)size, sizeof *rs);
        if (!rs) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return -1; }
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            size_t off = (size_t)r * chunk;
            ssize_t len = (ssize_t)total - (ssize_t)off;
            if (len > (ssize_t)chunk) len = (ssize_t)chunk;
            if (len > 0 && !(rs[r] = tn_gloo_recv(c, r, slot, out + off, (size_t)len, err))) {
                abandon(c, rs, size);
                free(rs);
                return -1;
            }
        }
        for (int r = 0; r < size; r++) {
            if (wait_op(c, &rs[r], t, err) < 0) {
                abandon(c, rs, size);
                free(rs);
                return -1;
            }
        }
        free(rs);
    } else {
        size_t off = (size_t)rank * chunk;
        ssize_t len = (ssize_t)total - (ssize_t)off;
        if (len > (ssize_t)chunk) len = (ssize_t)chunk;
        if (len > 0) {
            tn_gloo_op *s = tn_gloo_send(c, root, slot, out + off, (size_t)len, err);
            if (!s || tn_gloo_wait(c, s, t, NULL, err) < 0) return -1;
        }
    }
    return 0;
fail:
    abandon(c, ops, 4);
    free(tmp);
    return -1;
}
