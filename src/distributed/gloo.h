/* gloo.h — the gloo TCP transport and collectives in plain C (no Python, safe without the GIL),
 * speaking the wire formats of the gloo inside upstream torch 2.13.0 so that our ranks and
 * upstream's share one process group (docs/distributed.md, "Gloo").
 *
 * A device is a listening socket (gloo's tcp::Device); a context is one process group's full
 * mesh of pairs over a device, connected through a store (gloo's rendezvous::Context +
 * tcp::Context); each context has one I/O thread (gloo's loop) that reads frames and writes queued
 * ones. Sends and receives are posted on slots and matched FIFO per (pair, slot), with gloo's
 * NOTIFY_SEND_READY / NOTIFY_RECV_READY handshake. Every wait has a timeout; a peer that closes,
 * or sends a malformed frame, fails that pair's operations with an error naming it. */
#ifndef TN_DISTRIBUTED_GLOO_H
#define TN_DISTRIBUTED_GLOO_H

#include <stddef.h>
#include <stdint.h>

#include "distributed/store.h"

typedef struct tn_gloo_device tn_gloo_device;
typedef struct tn_gloo_ctx tn_gloo_ctx;
typedef struct tn_gloo_op tn_gloo_op;

/* A device listening on the address `hostname` resolves to (first bindable), or on the address
 * of interface `iface` when given. */
tn_gloo_device *tn_gloo_device_new(const char *hostname, const char *iface, tn_derr *err);
tn_gloo_device *tn_gloo_device_ref(tn_gloo_device *);
void tn_gloo_device_unref(tn_gloo_device *);
/* "[ip]:port" of the listener */
const char *tn_gloo_device_str(tn_gloo_device *);
const char *tn_gloo_device_hostname(tn_gloo_device *);

/* Rendezvous through `store` under key `<prefix>/<rank>` (upstream's record), connect every pair.
 * timeout_ms also becomes the default timeout of every wait. */
tn_gloo_ctx *tn_gloo_ctx_connect(tn_store *store, const char *prefix, int rank, int size,
                                 tn_gloo_device *dev, int64_t timeout_ms, tn_derr *err);
void tn_gloo_ctx_free(tn_gloo_ctx *);
int tn_gloo_ctx_rank(tn_gloo_ctx *);
int tn_gloo_ctx_size(tn_gloo_ctx *);
int64_t tn_gloo_ctx_timeout(tn_gloo_ctx *);

/* Point to point, asynchronous: the op completes when the bytes are written (send) or arrived
 * (recv). src < 0 with src_ranks: receive from any of them (gloo's recvFromAny). The buffer
 * must stay valid until the op is waited for. */
tn_gloo_op *tn_gloo_send(tn_gloo_ctx *, int dst, uint64_t slot, const void *p, size_t n, tn_derr *err);
tn_gloo_op *tn_gloo_recv(tn_gloo_ctx *, int src, uint64_t slot, void *p, size_t n, tn_derr *err);
tn_gloo_op *tn_gloo_recv_any(tn_gloo_ctx *, const int *src_ranks, int nsrc, uint64_t slot, void *p,
                             size_t n, tn_derr *err);
/* wait (timeout_ms <= 0: the context's), then free the op. 0 ok; -1 err. *src: the sender. */
int tn_gloo_wait(tn_gloo_ctx *, tn_gloo_op *, int64_t timeout_ms, int *src, tn_derr *err);
/* non-blocking completion check (1 done, 0 not yet) */
int tn_gloo_op_done(tn_gloo_ctx *, tn_gloo_op *);
/* free an op nobody will wait for (after a failed collective); the context keeps it until its
 * frame is gone */
void tn_gloo_op_abandon(tn_gloo_ctx *, tn_gloo_op *);

/* gloo's slot numbers: prefix << 56 | tag << 24 */
enum {
    TN_GLOO_GATHER = 1, TN_GLOO_ALLGATHER = 2, TN_GLOO_REDUCE = 3, TN_GLOO_ALLREDUCE = 4,
    TN_GLOO_SCATTER = 5, TN_GLOO_BROADCAST = 6, TN_GLOO_BARRIER = 7, TN_GLOO_ALLTOALL = 8,
};
static inline uint64_t tn_gloo_slot(int prefix, uint32_t tag) {
    return ((uint64_t)(uint8_t)prefix << 56) | ((uint64_t)tag << 24);
}

/* element types and reductions of ProcessGroupGloo (GENERATE_ALL_TYPES, toFunction) */
enum { TN_GT_F32, TN_GT_F64, TN_GT_F16, TN_GT_BF16, TN_GT_I8, TN_GT_U8, TN_GT_I32, TN_GT_I64 };
enum { TN_GR_SUM, TN_GR_PRODUCT, TN_GR_MIN, TN_GR_MAX, TN_GR_BAND, TN_GR_BOR, TN_GR_BXOR };
int tn_gloo_elem_size(int gt);
/* c = a op b over n elements */
void tn_gloo_reduce_fn(int gt, int red, void *c, const void *a, const void *b, size_t n);

/* Collectives (blocking; gloo's algorithms, so results are byte-identical). timeout_ms <= 0:
 * the context's. */
int tn_gloo_allreduce(tn_gloo_ctx *, void *buf, size_t count, int gt, int red, uint32_t tag,
                      int64_t timeout_ms, tn_derr *err);
int tn_gloo_broadcast(tn_gloo_ctx *, void *buf, size_t nbytes, int root, uint32_t tag,
                      int64_t timeout_ms, tn_derr *err);
int tn_gloo_barrier(tn_gloo_ctx *, uint32_t tag, int64_t timeout_ms, tn_derr *err);
/* out holds size * inbytes; in NULL: this rank's block is already in place */
int tn_gloo_allgather(tn_gloo_ctx *, const void *in, void *out, size_t inbytes, uint32_t tag,
                      int64_t timeout_ms, tn_derr *err);
/* counts: bytes per rank; out holds their sum; in NULL: this rank's block is already in place */
int tn_gloo_allgatherv(tn_gloo_ctx *, const void *in, void *out, const size_t *counts, uint32_t tag,
                       int64_t timeout_ms, tn_derr *err);
int tn_gloo_gather(tn_gloo_ctx *, const void *in, void *out, size_t inbytes, int root,
                   uint32_t tag, int64_t timeout_ms, tn_derr *err);
/* ins: size pointers (root only) */
int tn_gloo_scatter(tn_gloo_ctx *, const void *const *ins, void *out, size_t nbytes, int root,
                    uint32_t tag, int64_t timeout_ms, tn_derr *err);
int tn_gloo_alltoall(tn_gloo_ctx *, const void *in, void *out, size_t nbytes, uint32_t tag,
                     int64_t timeout_ms, tn_derr *err);
/* counts in bytes per rank */
int tn_gloo_alltoallv(tn_gloo_ctx *, const void *in, const size_t *in_counts, void *out,
                      const size_t *out_counts, uint32_t tag, int64_t timeout_ms, tn_derr *err);
int tn_gloo_reduce(tn_gloo_ctx *, void *buf, size_t count, int gt, int red, int root,
                   uint32_t tag, int64_t timeout_ms, tn_derr *err);

#endif
