/* tcpstore.c — TCPStore: client and server speaking upstream torch 2.13.0's store protocol, so a
 * torchnative rank can use an upstream rank's store and the reverse.
 *
 * The protocol (measured on upstream's libuv server and client, tests/test_distributed.py):
 * little-endian; a request is one query byte and its arguments; strings and byte values are a
 * u64 length and the bytes; counts are u64; add deltas and replies are i64.
 *   0 VALIDATE u32 magic 0x3C85F7CE            (first; no reply)
 *  13 PING u32 nonce -> u32 nonce              (the client sends VALIDATE + PING on connect)
 *   1 SET key value                   2 COMPARE_SET key expected desired -> value
 *   3 GET key -> value (empty if absent; the client WAITs first)
 *   4 ADD key i64 -> i64              5 CHECK n keys -> u8 (0 READY, 1 NOT_READY)
 *   6 WAIT n keys -> u8 0 when all exist (a non-empty queue counts as its key)
 *   7 GETNUMKEYS -> i64               8 DELETE_KEY key -> i64 (number deleted)
 *   9 APPEND key value               10 MULTI_GET n keys -> n values
 *  11 MULTI_SET n (key value)*       12 CANCEL_WAIT -> u8 1 (WAIT_CANCELED)
 *  14 QUEUE_PUSH key value           15 QUEUE_POP key -> u64 queue length before the pop (0:
 *                                      empty), then the value
 *  16 QUEUE_LEN key -> i64           17 LIST_KEYS -> u64 n, n keys
 *  18 BARRIER key u64 world -> u8 0 once `world` connections arrived
 * Caps (upstream's libuv server closes the connection past them): key 8 KiB, value 8 MiB,
 * 128 Ki keys per request. Our server also closes on a bad magic, a request before VALIDATE,
 * an unknown query, ADD to a non-integer, and a connection whose buffered request passes 72 MiB
 * or whose unread replies pass 256 MiB, and refuses requests past 512 MiB buffered over all
 * connections and connections past 16384. User keys get the prefix "/" from the client.
 *
 * The server is one background thread (poll over the listening sockets and connections,
 * non-blocking), independent of Python and the GIL. */
#include "distributed/store.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x3C85F7CEu
#define MAX_KEY (8u * 1024)
#define MAX_VAL (8u * 1024 * 1024)
#define MAX_KEYS (128u * 1024)
#define MAX_INBUF (72u * 1024 * 1024)
#define MAX_OUTBUF (256u * 1024 * 1024)
#define MAX_TOTAL_IN (512ull * 1024 * 1024)   /* buffered requests over all connections */
#define MAX_CONNS 16384
#define CLIENT_MAX_VAL (1u << 30)   /* what a client accepts from a server (a legacy server has no cap) */

enum { Q_VALIDATE, Q_SET, Q_COMPARE_SET, Q_GET, Q_ADD, Q_CHECK, Q_WAIT, Q_GETNUMKEYS, Q_DELETE_KEY, Q_APPEND,
       Q_MULTI_GET, Q_MULTI_SET, Q_CANCEL_WAIT, Q_PING, Q_QUEUE_PUSH, Q_QUEUE_POP, Q_QUEUE_LEN, Q_LIST_KEYS,
       Q_BARRIER };

static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint32_t get_u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------------------------------------------------------------------------------------------
 * growable byte buffer */

typedef struct {
    uint8_t *p;
    size_t n, cap, off;   /* off: consumed prefix (input) or sent prefix (output) */
} bytes;

static int b_reserve(bytes *b, size_t extra) {
    if (b->n + extra <= b->cap) return 0;
    if (b->off) {   /* compact first */
        memmove(b->p, b->p + b->off, b->n - b->off);
        b->n -= b->off;
        b->off = 0;
        if (b->n + extra <= b->cap) return 0;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra) {
        if (cap > SIZE_MAX / 2) return -1;
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}
static int b_put(bytes *b, const void *p, size_t n) {
    if (b_reserve(b, n) < 0) return -1;
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}
static int b_u8(bytes *b, uint8_t v) { return b_put(b, &v, 1); }
static int b_u64(bytes *b, uint64_t v) {
    uint8_t t[8];
    put_u64(t, v);
    return b_put(b, t, 8);
}
static int b_str(bytes *b, const uint8_t *p, size_t n) { return b_u64(b, n) < 0 ? -1 : b_put(b, p, n); }
static void b_free(bytes *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------------------------------------
 * server */

typedef struct conn {
    int fd;
    int validated;
    bytes in, out;
    tn_buf *wait_keys;   /* pending WAIT */
    size_t n_wait;
    int closing;
} conn;

typedef struct {
    tn_buf key;
    uint64_t world, arrived;
    int *fds;            /* the connections waiting (by fd; a closed one is skipped) */
    size_t nfds;
} barrier_t;

struct tn_tcp_server {
    int lfd[2], nl;      /* listening sockets (IPv6 dual-stack and/or IPv4) */
    int port;
    int wake[2];         /* pipe: stop */
    pthread_t th;
    tn_kv *kv;
    conn **conns;
    size_t nconns, capconns;
    barrier_t *barriers;
    size_t nbar;
};

static void conn_free(conn *c) {
    close(c->fd);
    b_free(&c->in);
    b_free(&c->out);
    tn_store_free_keys(c->wait_keys, c->n_wait);
    free(c);
}

/* a cursor over the buffered request; every length checked against the caps and the data */
typedef struct {
    const uint8_t *p;
    size_t n, i;
    int bad;    /* a cap exceeded or a malformed value: close */
} rd;
/* 1 ok, 0 need more bytes */
static int r_take(rd *r, size_t k, const uint8_t **out) {
    if (r->n - r->i < k) return 0;
    *out = r->p + r->i;
    r->i += k;
    return 1;
}
static int r_u64(rd *r, uint64_t *v) {
    const uint8_t *p;
    if (!r_take(r, 8, &p)) return 0;
    *v = get_u64(p);
    return 1;
}
static int r_str(rd *r, size_t cap, tn_bv *out) {
    uint64_t n;
    if (!r_u64(r, &n)) return 0;
    if (n > cap) {
        r->bad = 1;
        return 0;
    }
    const uint8_t *p;
    if (!r_take(r, (size_t)n, &p)) return 0;
    *out = (tn_bv){p, (size_t)n};
    return 1;
}

static int reply_u8(conn *c, uint8_t v) { return b_u8(&c->out, v); }
static int reply_i64(conn *c, int64_t v) { return b_u64(&c->out, (uint64_t)v); }

static int keys_present(tn_tcp_server *s, const tn_buf *k, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!tn_kv_present(s->kv, tn_bv_of(&k[i]))) return 0;
    return 1;
}

/* after a mutation: answer the WAITs now satisfied */
static void wake_waiters(tn_tcp_server *s) {
    for (size_t i = 0; i < s->nconns; i++) {
        conn *c = s->conns[i];
        if (c->wait_keys && keys_present(s, c->wait_keys, c->n_wait)) {
            tn_store_free_keys(c->wait_keys, c->n_wait);
            c->wait_keys = NULL;
            c->n_wait = 0;
            if (reply_u8(c, 0) < 0) c->closing = 1;
        }
    }
}

static conn *conn_by_fd(tn_tcp_server *s, int fd) {
    for (size_t i = 0; i < s->nconns; i++)
        if (s->conns[i]->fd == fd && !s->conns[i]->closing) return s->conns[i];
    return NULL;
}

static int do_barrier(tn_tcp_server *s, conn *c, tn_bv key, uint64_t world) {
    barrier_t *b = NULL;
    for (size_t i = 0; i < s->nbar; i++)
        if (s->barriers[i].key.n == key.n && (key.n == 0 || memcmp(s->barriers[i].key.p, key.p, key.n) == 0)) b = &s->barriers[i];
    if (!b) {
        barrier_t *nb = realloc(s->barriers, (s->nbar + 1) * sizeof *nb);
        if (!nb) return -1;
        s->barriers = nb;
        b = &s->barriers[s->nbar];
        memset(b, 0, sizeof *b);
        if (tn_buf_dup(&b->key, key.p, key.n) < 0) return -1;
        s->nbar++;
    }
    int *f = realloc(b->fds, (b->nfds + 1) * sizeof *f);
    if (!f) return -1;
    b->fds = f;
    b->fds[b->nfds++] = c->fd;
    b->world = world;
    b->arrived++;
    if (b->arrived >= b->world) {
        for (size_t i = 0; i < b->nfds; i++) {
            conn *w = conn_by_fd(s, b->fds[i]);
            if (w && reply_u8(w, 0) < 0) w->closing = 1;
        }
        tn_buf_free(&b->key);
        free(b->fds);
        *b = s->barriers[--s->nbar];
    }
    return 0;
}

/* Parse and run one request from c->in. Returns 1 done, 0 need more, -1 close the connection. */
static int serve_one(tn_tcp_server *s, conn *c) {
    rd r = {c->in.p + c->in.off, c->in.n - c->in.off, 0, 0};
    const uint8_t *q;
    if (!r_take(&r, 1, &q)) return 0;
    int query = q[0];
    if (!c->validated && query != Q_VALIDATE) return -1;
    tn_bv key, val, exp;
    uint64_t n;
    int rc = 0;
#define NEED(x) do { if (!(x)) return r.bad ? -1 : 0; } while (0)
    switch (query) {
    case Q_VALIDATE: {
        const uint8_t *m;
        NEED(r_take(&r, 4, &m));
        if (get_u32(m) != MAGIC) return -1;
        c->validated = 1;
        break;
    }
    case Q_PING: {
        const uint8_t *m;
        NEED(r_take(&r, 4, &m));
        rc = b_put(&c->out, m, 4);
        break;
    }
    case Q_SET:
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_str(&r, MAX_VAL, &val));
        rc = tn_kv_set(s->kv, key, val);
        wake_waiters(s);
        break;
    case Q_COMPARE_SET: {
        tn_bv des;
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_str(&r, MAX_VAL, &exp));
        NEED(r_str(&r, MAX_VAL, &des));
        const tn_buf *cur = tn_kv_get(s->kv, key);
        if ((!cur && exp.n == 0) || (cur && cur->n == exp.n && (exp.n == 0 || memcmp(cur->p, exp.p, exp.n) == 0))) {
            rc = tn_kv_set(s->kv, key, des);
            if (rc == 0) rc = b_str(&c->out, des.p, des.n);
            wake_waiters(s);
        } else if (!cur) {
            rc = b_str(&c->out, exp.p, exp.n);
        } else {
            rc = b_str(&c->out, cur->p, cur->n);
        }
        break;
    }
    case Q_GET: {
        NEED(r_str(&r, MAX_KEY, &key));
        const tn_buf *cur = tn_kv_get(s->kv, key);
        rc = cur ? b_str(&c->out, cur->p, cur->n) : b_u64(&c->out, 0);
        break;
    }
    case Q_ADD: {
        const uint8_t *d;
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_take(&r, 8, &d));
        const tn_buf *cur = tn_kv_get(s->kv, key);
        int64_t v = 0;
        if (cur && cur->n && tn_store_parse_i64(cur->p, cur->n, &v) < 0) return -1;
        v = (int64_t)((uint64_t)v + get_u64(d));
        char t[32];
        int tn = snprintf(t, sizeof t, "%lld", (long long)v);
        rc = tn_kv_set(s->kv, key, (tn_bv){(const uint8_t *)t, (size_t)tn});
        if (rc == 0) rc = reply_i64(c, v);
        wake_waiters(s);
        break;
    }
    case Q_CHECK:
    case Q_WAIT:
    case Q_MULTI_GET: {
        NEED(r_u64(&r, &n));
        if (n > MAX_KEYS) return -1;
        size_t start = r.i;
        for (uint64_t i = 0; i < n; i++) NEED(r_str(&r, MAX_KEY, &key));
        /* complete: walk again */
        r.i = start;
        if (query == Q_CHECK) {
            int ready = 1;
            for (uint64_t i = 0; i < n; i++) {
                r_str(&r, MAX_KEY, &key);
                if (!tn_kv_present(s->kv, key)) ready = 0;
            }
            rc = reply_u8(c, ready ? 0 : 1);
        } else if (query == Q_MULTI_GET) {
            for (uint64_t i = 0; i < n && rc == 0; i++) {
                r_str(&r, MAX_KEY, &key);
                const tn_buf *cur = tn_kv_get(s->kv, key);
                rc = cur ? b_str(&c->out, cur->p, cur->n) : b_u64(&c->out, 0);
            }
        } else {
            tn_buf *ks = calloc(n ? n : 1, sizeof *ks);
            if (!ks) return -1;
            for (uint64_t i = 0; i < n; i++) {
                r_str(&r, MAX_KEY, &key);
                if (tn_buf_dup(&ks[i], key.p, key.n) < 0) {
                    tn_store_free_keys(ks, i);
                    return -1;
                }
            }
            if (keys_present(s, ks, n)) {
                tn_store_free_keys(ks, n);
                rc = reply_u8(c, 0);
            } else {
                tn_store_free_keys(c->wait_keys, c->n_wait);
                c->wait_keys = ks;
                c->n_wait = n;
            }
        }
        break;
    }
    case Q_GETNUMKEYS:
        rc = reply_i64(c, (int64_t)tn_kv_count(s->kv));
        break;
    case Q_DELETE_KEY:
        NEED(r_str(&r, MAX_KEY, &key));
        rc = reply_i64(c, tn_kv_del(s->kv, key));
        break;
    case Q_APPEND: {
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_str(&r, MAX_VAL, &val));
        const tn_buf *cur = tn_kv_get(s->kv, key);
        size_t cn = cur ? cur->n : 0;
        if (cn + val.n > MAX_INBUF) return -1;   /* a value grown past any request we would accept */
        tn_buf nv = {malloc(cn + val.n + 1), cn + val.n};
        if (!nv.p) return -1;
        if (cn) memcpy(nv.p, cur->p, cn);
        if (val.n) memcpy(nv.p + cn, val.p, val.n);
        rc = tn_kv_set_owned(s->kv, key, &nv);
        wake_waiters(s);
        break;
    }
    case Q_MULTI_SET: {
        NEED(r_u64(&r, &n));
        if (n > MAX_KEYS) return -1;
        size_t start = r.i;
        for (uint64_t i = 0; i < n; i++) {
            NEED(r_str(&r, MAX_KEY, &key));
            NEED(r_str(&r, MAX_VAL, &val));
        }
        r.i = start;
        for (uint64_t i = 0; i < n && rc == 0; i++) {
            r_str(&r, MAX_KEY, &key);
            r_str(&r, MAX_VAL, &val);
            rc = tn_kv_set(s->kv, key, val);
        }
        wake_waiters(s);
        break;
    }
    case Q_CANCEL_WAIT:
        tn_store_free_keys(c->wait_keys, c->n_wait);
        c->wait_keys = NULL;
        c->n_wait = 0;
        rc = reply_u8(c, 1);
        break;
    case Q_QUEUE_PUSH:
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_str(&r, MAX_VAL, &val));
        rc = tn_kv_queue_push(s->kv, key, val);
        wake_waiters(s);
        break;
    case Q_QUEUE_POP: {
        NEED(r_str(&r, MAX_KEY, &key));
        tn_buf v;
        size_t len = tn_kv_queue_len(s->kv, key);   /* upstream replies with the length before the pop */
        int got = tn_kv_queue_pop(s->kv, key, &v);
        if (got < 0) return -1;
        rc = b_u64(&c->out, got ? (uint64_t)len : 0);
        if (got) {
            if (rc == 0) rc = b_str(&c->out, v.p, v.n);
            tn_buf_free(&v);
        }
        break;
    }
    case Q_QUEUE_LEN:
        NEED(r_str(&r, MAX_KEY, &key));
        rc = reply_i64(c, (int64_t)tn_kv_queue_len(s->kv, key));
        break;
    case Q_LIST_KEYS: {
        tn_buf *ks;
        size_t nk;
        if (tn_kv_keys(s->kv, &ks, &nk) < 0) return -1;
        rc = b_u64(&c->out, nk);
        for (size_t i = 0; i < nk && rc == 0; i++) rc = b_str(&c->out, ks[i].p, ks[i].n);
        tn_store_free_keys(ks, nk);
        break;
    }
    case Q_BARRIER:
        NEED(r_str(&r, MAX_KEY, &key));
        NEED(r_u64(&r, &n));
        rc = do_barrier(s, c, key, n);
        break;
    default:
        return -1;   /* unknown query */
    }
#undef NEED
    if (rc < 0) return -1;
    c->in.off += r.i;
    if (c->in.off == c->in.n) c->in.off = c->in.n = 0;
    return 1;
}

static void drop_conn(tn_tcp_server *s, size_t i) {
    conn *c = s->conns[i];
    s->conns[i] = s->conns[--s->nconns];
    conn_free(c);
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

static void *server_main(void *arg) {
    tn_tcp_server *s = arg;
    struct pollfd *pf = NULL;
    size_t cap = 0;
    for (;;) {
        size_t need = 1 + (size_t)s->nl + s->nconns;
        if (need > cap) {
            struct pollfd *np = realloc(pf, need * sizeof *np);
            if (!np) break;
            pf = np;
            cap = need;
        }
        size_t k = 0;
        pf[k++] = (struct pollfd){s->wake[0], POLLIN, 0};
        for (int i = 0; i < s->nl; i++) pf[k++] = (struct pollfd){s->lfd[i], POLLIN, 0};
        for (size_t i = 0; i < s->nconns; i++) {
            conn *c = s->conns[i];
            short ev = POLLIN;
            if (c->out.n > c->out.off) ev |= POLLOUT;
            pf[k++] = (struct pollfd){c->fd, ev, 0};
        }
        if (poll(pf, k, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (pf[0].revents) break;
        for (int i = 0; i < s->nl; i++) {
            if (!(pf[1 + i].revents & POLLIN)) continue;
            int fd = accept(s->lfd[i], NULL, NULL);
            if (fd < 0) continue;
            if (s->nconns >= MAX_CONNS) {
                close(fd);
                continue;
            }
            set_nonblock(fd);
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            conn *c = calloc(1, sizeof *c);
            if (c && s->nconns == s->capconns) {
                size_t nc = s->capconns ? s->capconns * 2 : 16;
                conn **np = realloc(s->conns, nc * sizeof *np);
                if (np) {
                    s->conns = np;
                    s->capconns = nc;
                }
            }
            if (!c || s->nconns == s->capconns) {
                free(c);
                close(fd);
                continue;
            }
            c->fd = fd;
            s->conns[s->nconns++] = c;
        }
        /* connections polled this round are the first (k - 1 - nl) entries of conns */
        size_t polled = k - 1 - (size_t)s->nl;
        unsigned long long total_in = 0;
        for (size_t i = 0; i < s->nconns; i++) total_in += s->conns[i]->in.n - s->conns[i]->in.off;
        for (size_t i = 0; i < polled && i < s->nconns; i++) {
            conn *c = s->conns[i];
            short re = pf[1 + s->nl + i].revents;
            if (pf[1 + s->nl + i].fd != c->fd) continue;
            if (re & POLLIN) {
                for (;;) {
                    if (c->in.n - c->in.off >= MAX_INBUF || total_in + 65536 > MAX_TOTAL_IN) {
                        c->closing = 1;
                        break;
                    }
                    if (b_reserve(&c->in, 65536) < 0) {
                        c->closing = 1;
                        break;
                    }
                    ssize_t got = recv(c->fd, c->in.p + c->in.n, c->in.cap - c->in.n, 0);
                    if (got > 0) {
                        c->in.n += (size_t)got;
                        total_in += (unsigned long long)got;
                        if ((size_t)got < 65536) break;
                        continue;
                    }
                    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
                    c->closing = 1;   /* EOF or error */
                    break;
                }
                while (!c->closing) {
                    int st = serve_one(s, c);
                    if (st < 0) c->closing = 1;
                    if (st <= 0) break;
                }
            } else if (re & (POLLHUP | POLLERR | POLLNVAL)) {
                c->closing = 1;
            }
        }
        /* flush replies (also to connections woken by another's request) */
        for (size_t i = 0; i < s->nconns; i++) {
            conn *c = s->conns[i];
            while (c->out.n > c->out.off) {
                ssize_t w = send(c->fd, c->out.p + c->out.off, c->out.n - c->out.off, MSG_NOSIGNAL);
                if (w > 0) {
                    c->out.off += (size_t)w;
                    continue;
                }
                if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
                c->closing = 1;
                break;
            }
            if (c->out.off == c->out.n) c->out.off = c->out.n = 0;
            if (c->out.n - c->out.off > MAX_OUTBUF) c->closing = 1;
        }
        for (size_t i = s->nconns; i-- > 0;)
            if (s->conns[i]->closing) drop_conn(s, i);
    }
    free(pf);
    return NULL;
}

static int listen_on(int family, int port, int *out_port) {
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)port);
        len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)port);
        len = sizeof *a;
    }
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 2048) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    len = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *out_port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
}

tn_tcp_server *tn_tcp_server_start(int port, int listen_fd, tn_derr *err) {
    tn_tcp_server *s = calloc(1, sizeof *s);
    if (!s || !(s->kv = tn_kv_new())) {
        free(s);
        tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
        return NULL;
    }
    if (listen_fd >= 0) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        if (getsockname(listen_fd, (struct sockaddr *)&ss, &len) < 0) goto fail_errno;
        s->lfd[s->nl++] = listen_fd;
        s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
    } else {
        int fd = listen_on(AF_INET6, port, &s->port);
        if (fd < 0) fd = listen_on(AF_INET, port, &s->port);
        if (fd < 0) goto fail_errno;
        s->lfd[s->nl++] = fd;
    }
    for (int i = 0; i < s->nl; i++) set_nonblock(s->lfd[i]);
    if (pipe(s->wake) < 0) goto fail_errno;
    if (pthread_create(&s->th, NULL, server_main, s) != 0) {
        close(s->wake[0]);
        close(s->wake[1]);
        goto fail_errno;
    }
    return s;
fail_errno:
    tn_derr_set(err, TN_DERR_NETWORK,
                "The server socket has failed to listen on any local network address. port: %d, code: %d, name: %s",
                port, -errno, strerror(errno));
    for (int i = 0; i < s->nl; i++) close(s->lfd[i]);
    tn_kv_free(s->kv);
    free(s);
    return NULL;
}

int tn_tcp_server_port(tn_tcp_server *s) { return s->port; }

void tn_tcp_server_stop(tn_tcp_server *s) {
    if (!s) return;
    ssize_t w = write(s->wake[1], "x", 1);
    (void)w;
    pthread_join(s->th, NULL);
    close(s->wake[0]);
    close(s->wake[1]);
    for (int i = 0; i < s->nl; i++) close(s->lfd[i]);
    for (size_t i = 0; i < s->nconns; i++) conn_free(s->conns[i]);
    free(s->conns);
    for (size_t i = 0; i < s->nbar; i++) {
        tn_buf_free(&s->barriers[i].key);
        free(s->barriers[i].fds);
    }
    free(s->barriers);
    tn_kv_free(s->kv);
    free(s);
}

/* shared servers: one per TCPStore(is_master) plus its clones (and multi_tenant users) */
typedef struct server_ref {
    tn_tcp_server *srv;
    int refs;
    int multi_tenant;
    struct server_ref *next;   /* the multi-tenant servers of this process, by port */
} server_ref;
static pthread_mutex_t servers_mu = PTHREAD_MUTEX_INITIALIZER;
static server_ref *tenants;

static void server_unref(server_ref *r) {
    if (!r) return;
    pthread_mutex_lock(&servers_mu);
    int left = --r->refs;
    if (!left && r->multi_tenant)
        for (server_ref **pp = &tenants; *pp; pp = &(*pp)->next)
            if (*pp == r) {
                *pp = r->next;
                break;
            }
    pthread_mutex_unlock(&servers_mu);
    if (!left) {
        tn_tcp_server_stop(r->srv);
        free(r);
    }
}

/* ---------------------------------------------------------------------------------------------
 * client */

typedef struct {
    tn_store base;
    pthread_mutex_t mu;
    int fd;
    char *host;
    int port;
    server_ref *server;
    int64_t connect_timeout_ms;
} tcp_store;
#define TS(s) ((tcp_store *)(s))

static int mem_err(tn_derr *e) {
    tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
    return -1;
}

static int net_err(tn_derr *e, const char *what) {
    tn_derr_set(e, TN_DERR_NETWORK, "%s", what);
    return -1;
}
#define RECV_CLOSED "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?"

static int send_all(tcp_store *t, const uint8_t *p, size_t n, tn_derr *e) {
    while (n) {
        ssize_t w = send(t->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            tn_derr_set(e, TN_DERR_NETWORK, "Failed to send to the store server: %s", strerror(errno));
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* wait for input up to ms (0: forever). 1 ready, 0 timeout, -1 error */
static int wait_input(int fd, int64_t ms) {
    int64_t end = tn_now_ms() + ms;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int left = ms > 0 ? (int)(end - tn_now_ms() > 0 ? end - tn_now_ms() : 0) : -1;
        int rc = poll(&p, 1, left);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -1;
        return rc > 0;
    }
}

static int recv_all(tcp_store *t, uint8_t *p, size_t n, tn_derr *e) {
    while (n) {
        if (t->base.timeout_ms > 0) {
            int w = wait_input(t->fd, t->base.timeout_ms);
            if (w == 0) {
                tn_derr_set(e, TN_DERR_STORE, "Socket Timeout");
                return -1;
            }
        }
        ssize_t g = recv(t->fd, p, n, 0);
        if (g < 0 && errno == EINTR) continue;
        if (g <= 0) return net_err(e, RECV_CLOSED);
        p += g;
        n -= (size_t)g;
    }
    return 0;
}

static int recv_u64(tcp_store *t, uint64_t *v, tn_derr *e) {
    uint8_t b[8];
    if (recv_all(t, b, 8, e) < 0) return -1;
    *v = get_u64(b);
    return 0;
}

static int recv_bytes(tcp_store *t, tn_buf *out, tn_derr *e) {
    uint64_t n;
    if (recv_u64(t, &n, e) < 0) return -1;
    if (n > CLIENT_MAX_VAL) {
        tn_derr_set(e, TN_DERR_NETWORK, "the store server sent a value of %llu bytes (over the %u-byte cap)",
                    (unsigned long long)n, CLIENT_MAX_VAL);
        return -1;
    }
    out->n = (size_t)n;
    out->p = malloc(n ? (size_t)n : 1);
    if (!out->p) return tn_derr_set(e, TN_DERR_MEMORY, "out of memory"), -1;
    if (recv_all(t, out->p, (size_t)n, e) < 0) {
        tn_buf_free(out);
        return -1;
    }
    return 0;
}

/* request builder: query byte, then "/"-prefixed keys */
static int q_key(bytes *b, tn_bv k) {
    if (b_u64(b, k.n + 1) < 0 || b_u8(b, '/') < 0) return -1;
    return b_put(b, k.p, k.n);
}

static int flush_req(tcp_store *t, bytes *b, tn_derr *e) {
    int rc = send_all(t, b->p, b->n, e);
    b_free(b);
    return rc;
}

#define OOM_REQ(b) do { b_free(b); tn_derr_set(e, TN_DERR_MEMORY, "out of memory"); return -1; } while (0)

static int connect_to(const char *host, int port, int64_t timeout_ms, int *out_fd, tn_derr *e) {
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    int64_t start = tn_now_ms(), delay = 10;
    for (;;) {
        struct addrinfo hints, *res = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        int g = getaddrinfo(host, ps, &hints, &res);
        if (g == 0) {
            for (struct addrinfo *a = res; a; a = a->ai_next) {
                int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
                if (fd < 0) continue;
                if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
                    int one = 1;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    freeaddrinfo(res);
                    *out_fd = fd;
                    return 0;
                }
                close(fd);
            }
            freeaddrinfo(res);
        }
        int64_t el = tn_now_ms() - start;
        if (timeout_ms > 0 && el >= timeout_ms) {
            tn_derr_set(e, TN_DERR_NETWORK,
                        "The client socket has timed out after %lldms while trying to connect to (%s, %d).",
                        (long long)timeout_ms, host, port);
            return -1;
        }
        int64_t d = delay;
        if (timeout_ms > 0 && d > timeout_ms - el) d = timeout_ms - el;
        struct timespec ts = {(time_t)(d / 1000), (long)(d % 1000) * 1000000};
        nanosleep(&ts, NULL);
        if (delay < 1000) delay *= 2;
    }
}

/* connect, VALIDATE, PING */
static int client_open(tcp_store *t, tn_derr *e) {
    if (connect_to(t->host, t->port, t->connect_timeout_ms, &t->fd, e) < 0) return -1;
    uint8_t m[10];
    uint32_t nonce = (uint32_t)getpid();
    m[0] = Q_VALIDATE;
    put_u32(m + 1, MAGIC);
    m[5] = Q_PING;
    put_u32(m + 6, nonce);
    uint8_t back[4];
    if (send_all(t, m, sizeof m, e) < 0 || recv_all(t, back, 4, e) < 0) {
        close(t->fd);
        t->fd = -1;
        return -1;
    }
    if (get_u32(back) != nonce) {
        close(t->fd);
        t->fd = -1;
        tn_derr_set(e, TN_DERR_NETWORK, "the store server answered the ping with a wrong nonce");
        return -1;
    }
    return 0;
}

static void keys_text(const tn_bv *k, size_t n, char *out, size_t cap) {
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && o + 4 < cap; i++) {
        int w = snprintf(out + o, cap - o, "%s/%.*s", i ? ", " : "", (int)(k[i].n > 200 ? 200 : k[i].n), (const char *)k[i].p);
        if (w < 0) break;
        o += (size_t)w;
        if (o >= cap) {
            out[cap - 1] = 0;
            break;
        }
    }
}

/* WAIT with cancel on timeout; lock held */
static int do_wait(tcp_store *t, const tn_bv *k, size_t n, int64_t timeout_ms, tn_derr *e) {
    bytes b = {0};
    if (b_u8(&b, Q_WAIT) < 0 || b_u64(&b, n) < 0) OOM_REQ(&b);
    for (size_t i = 0; i < n; i++)
        if (q_key(&b, k[i]) < 0) OOM_REQ(&b);
    if (flush_req(t, &b, e) < 0) return -1;
    int w = wait_input(t->fd, timeout_ms);
    uint8_t r;
    if (w != 0) {
        if (recv_all(t, &r, 1, e) < 0) return -1;
        if (r != 0) return net_err(e, "Stop_waiting response is expected");
        return 0;
    }
    uint8_t c = Q_CANCEL_WAIT;
    if (send_all(t, &c, 1, e) < 0 || recv_all(t, &r, 1, e) < 0) return -1;
    if (r == 0 && recv_all(t, &r, 1, e) < 0) return -1;   /* answered before the cancel */
    if (r != 1) return net_err(e, "wait_canceled response is expected");
    char ks[600];
    keys_text(k, n, ks, sizeof ks);
    tn_derr_set(e, TN_DERR_STORE, "wait timeout after %lldms, keys: %s", (long long)timeout_ms, ks);
    return -1;
}

#define LOCKED(...)                       \
    tcp_store *t = TS(s);                 \
    pthread_mutex_lock(&t->mu);           \
    int rc;                               \
    do { __VA_ARGS__ } while (0);         \
    pthread_mutex_unlock(&t->mu);         \
    return rc;

static int ts_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_SET) < 0 || q_key(&b, k) < 0 || b_str(&b, v.p, v.n) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
    })
}

static int get_locked(tcp_store *t, tn_bv k, tn_buf *o, tn_derr *e) {
    if (do_wait(t, &k, 1, t->base.timeout_ms, e) < 0) return -1;
    bytes b = {0};
    if (b_u8(&b, Q_GET) < 0 || q_key(&b, k) < 0) OOM_REQ(&b);
    if (flush_req(t, &b, e) < 0) return -1;
    return recv_bytes(t, o, e);
}
static int ts_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) { LOCKED({ rc = get_locked(t, k, o, e); }) }

static int add_raw(tcp_store *t, tn_bv k, int prefixed, int64_t d, int64_t *o, tn_derr *e) {
    bytes b = {0};
    int r1 = b_u8(&b, Q_ADD);
    if (r1 == 0) r1 = prefixed ? q_key(&b, k) : b_str(&b, k.p, k.n);
    if (r1 < 0 || b_u64(&b, (uint64_t)d) < 0) OOM_REQ(&b);
    if (flush_req(t, &b, e) < 0) return -1;
    uint64_t v;
    if (recv_u64(t, &v, e) < 0) return -1;
    *o = (int64_t)v;
    return 0;
}
static int ts_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) { LOCKED({ rc = add_raw(t, k, 1, d, o, e); }) }

static int ts_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_COMPARE_SET) < 0 || q_key(&b, k) < 0 || b_str(&b, x.p, x.n) < 0 || b_str(&b, d.p, d.n) < 0) {
            b_free(&b); rc = mem_err(e); break;
        }
        rc = flush_req(t, &b, e);
        if (rc == 0) rc = recv_bytes(t, o, e);
    })
}

static int ts_check(tn_store *s, const tn_bv *k, size_t n, int *ready, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        rc = b_u8(&b, Q_CHECK) < 0 || b_u64(&b, n) < 0 ? -1 : 0;
        for (size_t i = 0; i < n && rc == 0; i++) rc = q_key(&b, k[i]);
        if (rc < 0) { b_free(&b); tn_derr_set(e, TN_DERR_MEMORY, "out of memory"); break; }
        rc = flush_req(t, &b, e);
        uint8_t r = 0;
        if (rc == 0) rc = recv_all(t, &r, 1, e);
        if (rc == 0 && r > 1) rc = net_err(e, "ready or not_ready response expected");
        *ready = r == 0;
    })
}

static int ts_wait(tn_store *s, const tn_bv *k, size_t n, int64_t to, tn_derr *e) { LOCKED({ rc = do_wait(t, k, n, to, e); }) }

static int ts_delete(tn_store *s, tn_bv k, int *d, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_DELETE_KEY) < 0 || q_key(&b, k) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
        uint64_t v = 0;
        if (rc == 0) rc = recv_u64(t, &v, e);
        *d = v == 1;
    })
}

static int ts_num_keys(tn_store *s, int64_t *o, tn_derr *e) {
    LOCKED({
        uint8_t q = Q_GETNUMKEYS;
        uint64_t v = 0;
        rc = send_all(t, &q, 1, e);
        if (rc == 0) rc = recv_u64(t, &v, e);
        *o = (int64_t)v;
    })
}

static int ts_append(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_APPEND) < 0 || q_key(&b, k) < 0 || b_str(&b, v.p, v.n) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
    })
}

static int ts_multi_get(tn_store *s, const tn_bv *k, size_t n, tn_buf *outs, tn_derr *e) {
    LOCKED({
        rc = do_wait(t, k, n, t->base.timeout_ms, e);
        if (rc < 0) break;
        bytes b = {0};
        rc = b_u8(&b, Q_MULTI_GET) < 0 || b_u64(&b, n) < 0 ? -1 : 0;
        for (size_t i = 0; i < n && rc == 0; i++) rc = q_key(&b, k[i]);
        if (rc < 0) { b_free(&b); tn_derr_set(e, TN_DERR_MEMORY, "out of memory"); break; }
        rc = flush_req(t, &b, e);
        for (size_t i = 0; i < n && rc == 0; i++) {
            rc = recv_bytes(t, &outs[i], e);
            if (rc < 0)
                for (size_t j = 0; j < i; j++) tn_buf_free(&outs[j]);
        }
    })
}

static int ts_multi_set(tn_store *s, const tn_bv *k, const tn_bv *v, size_t n, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        rc = b_u8(&b, Q_MULTI_SET) < 0 || b_u64(&b, n) < 0 ? -1 : 0;
        for (size_t i = 0; i < n && rc == 0; i++) rc = q_key(&b, k[i]) < 0 || b_str(&b, v[i].p, v[i].n) < 0 ? -1 : 0;
        if (rc < 0) { b_free(&b); tn_derr_set(e, TN_DERR_MEMORY, "out of memory"); break; }
        rc = flush_req(t, &b, e);
    })
}

static int ts_queue_push(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_QUEUE_PUSH) < 0 || q_key(&b, k) < 0 || b_str(&b, v.p, v.n) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
    })
}

static int ts_queue_pop(tn_store *s, tn_bv k, int block, tn_buf *o, tn_derr *e) {
    LOCKED({
        rc = block ? do_wait(t, &k, 1, t->base.timeout_ms, e) : 0;
        if (rc < 0) break;
        bytes b = {0};
        if (b_u8(&b, Q_QUEUE_POP) < 0 || q_key(&b, k) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
        uint64_t cnt = 0;
        if (rc == 0) rc = recv_u64(t, &cnt, e);
        if (rc == 0 && cnt == 0) rc = (tn_derr_set(e, TN_DERR_QUEUE_EMPTY, "queue is empty"), -1);
        if (rc == 0) rc = recv_bytes(t, o, e);
    })
}

static int ts_queue_len(tn_store *s, tn_bv k, int64_t *o, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_QUEUE_LEN) < 0 || q_key(&b, k) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
        uint64_t v = 0;
        if (rc == 0) rc = recv_u64(t, &v, e);
        *o = (int64_t)v;
    })
}

static int ts_list_keys(tn_store *s, tn_buf **keys, size_t *n, tn_derr *e) {
    LOCKED({
        uint8_t q = Q_LIST_KEYS;
        uint64_t cnt = 0;
        *keys = NULL;
        *n = 0;
        rc = send_all(t, &q, 1, e);
        if (rc == 0) rc = recv_u64(t, &cnt, e);
        if (rc == 0 && cnt > 64u * 1024 * 1024) rc = net_err(e, "the store server sent too many keys");
        if (rc < 0) break;
        tn_buf *ks = calloc(cnt ? (size_t)cnt : 1, sizeof *ks);
        if (!ks) { rc = mem_err(e); break; }
        size_t m = 0;
        for (uint64_t i = 0; i < cnt && rc == 0; i++) {
            tn_buf kb;
            rc = recv_bytes(t, &kb, e);
            if (rc < 0) break;
            /* user keys carry the "/" prefix; others (init/, ...) are the store's own */
            if (kb.n >= 1 && kb.p[0] == '/') {
                memmove(kb.p, kb.p + 1, kb.n - 1);
                kb.n--;
                ks[m++] = kb;
            } else {
                tn_buf_free(&kb);
            }
        }
        if (rc < 0) { tn_store_free_keys(ks, m); break; }
        *keys = ks;
        *n = m;
    })
}

static int reconnect(tcp_store *t, tn_derr *e) {
    if (t->fd >= 0) close(t->fd);
    t->fd = -1;
    tn_derr e2;
    return client_open(t, e ? e : &e2);
}

static int ts_barrier(tn_store *s, tn_bv k, int64_t world, int64_t to, tn_derr *e) {
    LOCKED({
        bytes b = {0};
        if (b_u8(&b, Q_BARRIER) < 0 || q_key(&b, k) < 0 || b_u64(&b, (uint64_t)world) < 0) { b_free(&b); rc = mem_err(e); break; }
        rc = flush_req(t, &b, e);
        if (rc < 0) break;
        int w = wait_input(t->fd, to);
        if (w == 0) {
            /* the server still owes this connection a reply: start a fresh one */
            tn_derr e2;
            reconnect(t, &e2);
            tn_derr_set(e, TN_DERR_STORE, "barrier timeout after %lldms, key: %.*s", (long long)to, (int)(k.n > 200 ? 200 : k.n),
                        (const char *)k.p);
            rc = -1;
            break;
        }
        uint8_t r = 1;
        rc = recv_all(t, &r, 1, e);
        if (rc == 0 && r != 0) rc = net_err(e, "the store server answered BARRIER with a bad reply");
    })
}

static const tn_store_vt tcp_vt;

static tcp_store *tcp_alloc(const char *host, int port, int64_t timeout_ms) {
    tcp_store *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->host = strdup(host);
    if (!t->host) {
        free(t);
        return NULL;
    }
    t->fd = -1;
    t->port = port;
    t->connect_timeout_ms = timeout_ms;
    pthread_mutex_init(&t->mu, NULL);
    tn_store_init(&t->base, &tcp_vt, timeout_ms);
    return t;
}

static void ts_destroy(tn_store *s) {
    tcp_store *t = TS(s);
    if (t->fd >= 0) close(t->fd);
    server_unref(t->server);
    pthread_mutex_destroy(&t->mu);
    free(t->host);
    free(t);
}

static tn_store *ts_clone(tn_store *s, tn_derr *e) {
    tcp_store *t = TS(s);
    tcp_store *c = tcp_alloc(t->host, t->port, t->base.timeout_ms);
    if (!c) {
        tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
        return NULL;
    }
    if (client_open(c, e) < 0) {
        ts_destroy(&c->base);
        return NULL;
    }
    if (t->server) {
        pthread_mutex_lock(&servers_mu);
        t->server->refs++;
        pthread_mutex_unlock(&servers_mu);
        c->server = t->server;
    }
    return &c->base;
}

static const tn_store_vt tcp_vt = {
    "TCPStore", ts_set, ts_get, ts_add, ts_compare_set, ts_check, ts_wait, ts_delete, ts_num_keys,
    ts_append, ts_multi_get, ts_multi_set, ts_queue_push, ts_queue_pop, ts_queue_len, ts_list_keys, ts_barrier,
    ts_clone, ts_destroy, 1,
};

tn_store *tn_tcp_store_new(const tn_tcp_store_opts *o, tn_derr *e) {
    tcp_store *t = tcp_alloc(o->host, o->port, o->timeout_ms);
    if (!t) {
        tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
        return NULL;
    }
    if (o->is_server) {
        server_ref *r = NULL;
        pthread_mutex_lock(&servers_mu);
        if (o->multi_tenant && o->port > 0)   /* upstream's multi_tenant: share this process's server on that port */
            for (r = tenants; r && tn_tcp_server_port(r->srv) != o->port; r = r->next) {}
        if (r) r->refs++;
        pthread_mutex_unlock(&servers_mu);
        if (!r) {
            r = calloc(1, sizeof *r);
            if (!r) {
                ts_destroy(&t->base);
                tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
                return NULL;
            }
            r->srv = tn_tcp_server_start(o->port, o->listen_fd, e);
            if (!r->srv) {
                free(r);
                ts_destroy(&t->base);
                return NULL;
            }
            r->refs = 1;
            if (o->multi_tenant) {
                r->multi_tenant = 1;
                pthread_mutex_lock(&servers_mu);
                r->next = tenants;
                tenants = r;
                pthread_mutex_unlock(&servers_mu);
            }
        }
        t->server = r;
        t->port = tn_tcp_server_port(r->srv);
    }
    if (client_open(t, e) < 0) {
        ts_destroy(&t->base);
        return NULL;
    }
    if (o->wait_workers && o->num_workers >= 0) {
        /* upstream's waitForWorkers: every rank adds 1 to "init/"; the server's rank waits */
        tn_bv init = {(const uint8_t *)"init/", 5};
        int64_t v;
        pthread_mutex_lock(&t->mu);
        int rc = add_raw(t, init, 0, 1, &v, e);
        pthread_mutex_unlock(&t->mu);
        int64_t start = tn_now_ms();
        while (rc == 0 && o->is_server) {
            if (v >= o->num_workers) break;
            int64_t el = tn_now_ms() - start;
            if (o->timeout_ms > 0 && el > o->timeout_ms) {
                tn_derr_set(e, TN_DERR_STORE, "Timed out after %lld seconds waiting for clients. %lld/%lld clients joined.",
                            (long long)(el / 1000), (long long)v, (long long)o->num_workers);
                rc = -1;
                break;
            }
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
            pthread_mutex_lock(&t->mu);
            rc = add_raw(t, init, 0, 0, &v, e);
            pthread_mutex_unlock(&t->mu);
        }
        if (rc < 0) {
            ts_destroy(&t->base);
            return NULL;
        }
    }
    return &t->base;
}

int tn_store_is_tcp(tn_store *s) { return s->vt == &tcp_vt; }
int tn_tcp_store_port(tn_store *s) { return TS(s)->port; }
const char *tn_tcp_store_host(tn_store *s) { return TS(s)->host; }
