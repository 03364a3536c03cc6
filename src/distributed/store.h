/* store.h — c10d key-value stores in plain C (no Python): the interface every store implements,
 * the in-memory table shared by HashStore and the TCPStore server, and the constructors.
 *
 * Semantics follow upstream torch 2.13.0's stores as measured (tests/test_distributed.py):
 * get/wait block until the keys exist or the timeout passes; add keeps a decimal string; queues
 * are separate from keys (not counted by num_keys, but a non-empty queue satisfies wait/check on
 * its key). Every function returns 0 on success, -1 with `err` filled. Safe to call without the
 * GIL; a store may be used from several threads (each implementation serializes itself). */
#ifndef TN_DISTRIBUTED_STORE_H
#define TN_DISTRIBUTED_STORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* error kinds, mapped to Python exceptions by python/dist_store.c */
enum {
    TN_DERR_NONE = 0,
    TN_DERR_STORE,        /* DistStoreError (timeouts, ...) */
    TN_DERR_NETWORK,      /* DistNetworkError (connection refused/closed) */
    TN_DERR_QUEUE_EMPTY,  /* QueueEmptyError */
    TN_DERR_RUNTIME,      /* RuntimeError */
    TN_DERR_VALUE,        /* ValueError */
    TN_DERR_NOTIMPL,      /* NotImplementedError */
    TN_DERR_MEMORY,       /* MemoryError */
    TN_DERR_BACKEND,      /* DistBackendError */
    TN_DERR_PYTHON,       /* a Python store raised: the Python layer re-raises its exception */
};
typedef struct {
    int kind;
    char msg[512];
} tn_derr;
void tn_derr_set(tn_derr *e, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* a byte string owned by whoever holds it (malloc'd; p may be NULL when n == 0) */
typedef struct {
    uint8_t *p;
    size_t n;
} tn_buf;
/* a borrowed byte string */
typedef struct {
    const uint8_t *p;
    size_t n;
} tn_bv;
static inline tn_bv tn_bv_of(const tn_buf *b) { return (tn_bv){b->p, b->n}; }
int tn_buf_dup(tn_buf *out, const void *p, size_t n);   /* -1: out of memory */
void tn_buf_free(tn_buf *b);

#define TN_STORE_NO_TIMEOUT 0   /* timeout_ms 0: wait forever, as upstream's kNoTimeout */

typedef struct tn_store tn_store;
typedef struct {
    const char *name;
    int (*set)(tn_store *, tn_bv key, tn_bv val, tn_derr *);
    int (*get)(tn_store *, tn_bv key, tn_buf *out, tn_derr *);
    int (*add)(tn_store *, tn_bv key, int64_t delta, int64_t *out, tn_derr *);
    int (*compare_set)(tn_store *, tn_bv key, tn_bv expected, tn_bv desired, tn_buf *out, tn_derr *);
    int (*check)(tn_store *, const tn_bv *keys, size_t n, int *ready, tn_derr *);
    int (*wait)(tn_store *, const tn_bv *keys, size_t n, int64_t timeout_ms, tn_derr *);
    int (*delete_key)(tn_store *, tn_bv key, int *deleted, tn_derr *);
    int (*num_keys)(tn_store *, int64_t *out, tn_derr *);
    int (*append)(tn_store *, tn_bv key, tn_bv val, tn_derr *);                 /* NULL: generic */
    int (*multi_get)(tn_store *, const tn_bv *keys, size_t n, tn_buf *outs, tn_derr *);   /* NULL: generic */
    int (*multi_set)(tn_store *, const tn_bv *keys, const tn_bv *vals, size_t n, tn_derr *); /* NULL: generic */
    int (*queue_push)(tn_store *, tn_bv key, tn_bv val, tn_derr *);              /* NULL: refuses */
    int (*queue_pop)(tn_store *, tn_bv key, int block, tn_buf *out, tn_derr *);
    int (*queue_len)(tn_store *, tn_bv key, int64_t *out, tn_derr *);
    int (*list_keys)(tn_store *, tn_buf **keys, size_t *n, tn_derr *);          /* NULL: refuses */
    int (*barrier)(tn_store *, tn_bv key, int64_t world, int64_t timeout_ms, tn_derr *); /* NULL: generic */
    tn_store *(*clone)(tn_store *, tn_derr *);                                   /* NULL: shares */
    void (*destroy)(tn_store *);
    int extended_api;   /* has_extended_api() */
} tn_store_vt;

struct tn_store {
    const tn_store_vt *vt;
    int64_t timeout_ms;     /* get/wait default; set_timeout changes it */
    int refs;               /* guarded by refs_mu */
    pthread_mutex_t refs_mu;
};

/* the calls (with upstream's generic fallbacks where an implementation leaves one out) */
int tn_store_set(tn_store *, tn_bv key, tn_bv val, tn_derr *);
int tn_store_get(tn_store *, tn_bv key, tn_buf *out, tn_derr *);
int tn_store_add(tn_store *, tn_bv key, int64_t delta, int64_t *out, tn_derr *);
int tn_store_compare_set(tn_store *, tn_bv key, tn_bv expected, tn_bv desired, tn_buf *out, tn_derr *);
int tn_store_check(tn_store *, const tn_bv *keys, size_t n, int *ready, tn_derr *);
int tn_store_wait(tn_store *, const tn_bv *keys, size_t n, int64_t timeout_ms, tn_derr *);
int tn_store_delete_key(tn_store *, tn_bv key, int *deleted, tn_derr *);
int tn_store_num_keys(tn_store *, int64_t *out, tn_derr *);
int tn_store_append(tn_store *, tn_bv key, tn_bv val, tn_derr *);
int tn_store_multi_get(tn_store *, const tn_bv *keys, size_t n, tn_buf *outs, tn_derr *);
int tn_store_multi_set(tn_store *, const tn_bv *keys, const tn_bv *vals, size_t n, tn_derr *);
int tn_store_queue_push(tn_store *, tn_bv key, tn_bv val, tn_derr *);
int tn_store_queue_pop(tn_store *, tn_bv key, int block, tn_buf *out, tn_derr *);
int tn_store_queue_len(tn_store *, tn_bv key, int64_t *out, tn_derr *);
int tn_store_list_keys(tn_store *, tn_buf **keys, size_t *n, tn_derr *);
int tn_store_barrier(tn_store *, tn_bv key, int64_t world, int64_t timeout_ms, tn_derr *);
tn_store *tn_store_clone(tn_store *, tn_derr *);
void tn_store_init(tn_store *, const tn_store_vt *vt, int64_t timeout_ms);
tn_store *tn_store_ref(tn_store *);
void tn_store_unref(tn_store *);
void tn_store_free_keys(tn_buf *keys, size_t n);

/* parse a stored counter (decimal, as upstream's std::stoll: leading space, sign, digits) */
int tn_store_parse_i64(const uint8_t *p, size_t n, int64_t *out);

/* ---- the in-memory table (not thread-safe; HashStore and the TCP server lock around it) ---- */
typedef struct tn_kv tn_kv;
tn_kv *tn_kv_new(void);
void tn_kv_free(tn_kv *);
const tn_buf *tn_kv_get(tn_kv *, tn_bv key);                 /* NULL: absent */
int tn_kv_set(tn_kv *, tn_bv key, tn_bv val);                /* -1: out of memory */
int tn_kv_set_owned(tn_kv *, tn_bv key, tn_buf *val);        /* takes val */
int tn_kv_del(tn_kv *, tn_bv key);                           /* 1 deleted, 0 absent */
size_t tn_kv_count(tn_kv *);
int tn_kv_keys(tn_kv *, tn_buf **keys, size_t *n);           /* copies of every key */
int tn_kv_queue_push(tn_kv *, tn_bv key, tn_bv val);
int tn_kv_queue_pop(tn_kv *, tn_bv key, tn_buf *out);        /* 1 popped, 0 empty, -1 oom */
size_t tn_kv_queue_len(tn_kv *, tn_bv key);
int tn_kv_present(tn_kv *, tn_bv key);                        /* a key, or a non-empty queue */

/* ---- constructors ---- */
tn_store *tn_hash_store_new(void);
tn_store *tn_prefix_store_new(const char *prefix, size_t n, tn_store *under);  /* takes a ref on under */
tn_store *tn_prefix_store_underlying(tn_store *s);                              /* borrowed */
int tn_store_is_prefix(tn_store *s);
tn_store *tn_file_store_new(const char *path, int num_workers, tn_derr *);
const char *tn_file_store_path(tn_store *);   /* NULL: not a FileStore */

typedef struct {
    const char *host;
    int port;               /* 0 with is_server: any free port */
    int is_server;
    int64_t num_workers;    /* -1: not given */
    int64_t timeout_ms;
    int wait_workers;
    int listen_fd;          /* -1, or a listening socket to take over (master_listen_fd) */
    int multi_tenant;       /* share this process's server already on `port` */
} tn_tcp_store_opts;
tn_store *tn_tcp_store_new(const tn_tcp_store_opts *, tn_derr *);
int tn_tcp_store_port(tn_store *);
const char *tn_tcp_store_host(tn_store *);
int tn_store_is_tcp(tn_store *);

/* the server alone (tests, fuzzing): start on port (0: any), returns the bound port or -1 */
typedef struct tn_tcp_server tn_tcp_server;
tn_tcp_server *tn_tcp_server_start(int port, int listen_fd, tn_derr *);
int tn_tcp_server_port(tn_tcp_server *);
void tn_tcp_server_stop(tn_tcp_server *);

/* monotonic milliseconds */
int64_t tn_now_ms(void);

#endif
