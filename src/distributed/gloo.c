/* gloo.c — gloo's TCP transport (device listener, rendezvous record, pair connect, frames) in C.
 *
 * Wire facts (gloo as built into upstream torch 2.13.0; docs/distributed.md):
 * - Rendezvous record under `<prefix>/<rank>`: u64 hostname length, hostname, u64 address length
 *   (136), the address (a 128-byte sockaddr_storage then an i64 sequence number, -1 for the
 *   device), then one i64 per rank: the sequence number this rank expects the peer to announce.
 * - A pair's initiator is the side whose (in_addr bytes, then raw port, then sequence number)
 *   compares greater (gloo's Device::isInitiator); it connects to the peer's listener and writes
 *   one i64, the peer's sequence number for this pair. The listener routes the socket by it.
 * - Frames: a 48-byte preamble of six u64 (nbytes = 48 + payload, opcode, slot, offset, length,
 *   roffset), then `length` payload bytes for SEND_UNBOUND_BUFFER (1). NOTIFY_SEND_READY (2) and
 *   NOTIFY_RECV_READY (3) carry no payload; data is sent only once the receiver announced its
 *   recv. SEND_BUFFER (0) is not used by the collectives (we refuse it).
 *
 * Caps: a frame whose nbytes disagrees with its length, an unknown opcode, data for a slot with no
 * posted recv or longer than the posted recv, fail the pair ("malformed frame") and close it. */

#include "distributed/gloo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ADDR_BYTES 136   /* sockaddr_storage (128) + i64 seq */
#define PREAMBLE 48
enum { OP_SEND_BUFFER = 0, OP_SEND_UNBOUND = 1, OP_NOTIFY_SEND = 2, OP_NOTIFY_RECV = 3 };

/* ------------------------------------------------------------------ device */

typedef struct accepted {
    int64_t seq;
    int fd;
    struct accepted *next;
} accepted;

struct tn_gloo_device {
    int refs;
    int listen_fd;
    struct sockaddr_storage addr;   /* getsockname of the listener */
    char hostname[256];
    char str[96];
    int64_t next_seq;
    accepted *stash;                /* connections whose pair is not waiting yet */
    pthread_mutex_t mu;
};

static void set_cloexec_nb(int fd, int nonblock) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, nonblock ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static void addr_str(const struct sockaddr_storage *ss, char *out, size_t n) {
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        port = ntohs(a->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        port = ntohs(a->sin6_port);
    }
    snprintf(out, n, "[%s]:%d", ip, port);
}

static int try_listen(tn_gloo_device *d, const struct sockaddr *sa, socklen_t len) {
    int fd = socket(sa->sa_family, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    memcpy(&ss, sa, len);
    if (ss.ss_family == AF_INET) ((struct sockaddr_in *)&ss)->sin_port = 0;
    else ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 1024) < 0) {
        close(fd);
        return -1;
    }
    socklen_t sl = sizeof d->addr;
    memset(&d->addr, 0, sizeof d->addr);
    getsockname(fd, (struct sockaddr *)&d->addr, &sl);
    set_cloexec_nb(fd, 1);
    d->listen_fd = fd;
    return 0;
}

tn_gloo_device *tn_gloo_device_new(const char *hostname, const char *iface, tn_derr *err) {
    tn_gloo_device *d = calloc(1, sizeof *d);
    if (!d) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return NULL; }
    d->refs = 1;
    d->listen_fd = -1;
    pthread_mutex_init(&d->mu, NULL);
    if (iface && *iface) {
        struct ifaddrs *ifs = NULL, *it;
        if (getifaddrs(&ifs) == 0) {
            for (it = ifs; it; it = it->ifa_next) {
                if (!it->ifa_addr || strcmp(it->ifa_name, iface)) continue;
                int fam = it->ifa_addr->sa_family;
                if (fam != AF_INET && fam != AF_INET6) continue;
                if (try_listen(d, it->ifa_addr, fam == AF_INET ? sizeof(struct sockaddr_in)
                                                                : sizeof(struct sockaddr_in6)) == 0) break;
            }
            freeifaddrs(ifs);
        }
        if (d->listen_fd < 0) {
            tn_derr_set(err, TN_DERR_RUNTIME, "Unable to find address for: %s", iface);
            free(d);
            return NULL;
        }
        gethostname(d->hostname, sizeof d->hostname - 1);
    } else {
        struct addrinfo hints, *res = NULL, *rp;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(hostname, NULL, &hints, &res) != 0) res = NULL;
        for (rp = res; rp; rp = rp->ai_next)
            if (try_listen(d, rp->ai_addr, rp->ai_addrlen) == 0) break;
        if (res) freeaddrinfo(res);
        if (d->listen_fd < 0) {
            tn_derr_set(err, TN_DERR_RUNTIME, "Unable to find address for %s", hostname ? hostname : "");
            free(d);
            return NULL;
        }
        snprintf(d->hostname, sizeof d->hostname, "%s", hostname ? hostname : "");
    }
    addr_str(&d->addr, d->str, sizeof d->str);
    return d;
}

tn_gloo_device *tn_gloo_device_ref(tn_gloo_device *d) {
    pthread_mutex_lock(&d->mu);
    d->refs++;
    pthread_mutex_unlock(&d->mu);
    return d;
}

void tn_gloo_device_unref(tn_gloo_device *d) {
    if (!d) return;
    pthread_mutex_lock(&d->mu);
    int last = --d->refs == 0;
    pthread_mutex_unlock(&d->mu);
    if (!last) return;
    if (d->listen_fd >= 0) close(d->listen_fd);
    while (d->stash) {
        accepted *a = d->stash;
        d->stash = a->next;
        close(a->fd);
        free(a);
    }
    pthread_mutex_destroy(&d->mu);
    free(d);
}

const char *tn_gloo_device_str(tn_gloo_device *d) { return d->str; }
const char *tn_gloo_device_hostname(tn_gloo_device *d) { return d->hostname; }

/* read exactly n bytes from a blocking-with-deadline socket (poll) */
static int read_full(int fd, void *p, size_t n, int64_t deadline) {
    size_t got = 0;
    while (got < n) {
        int64_t left = deadline - tn_now_ms();
        if (left <= 0) return -2;
        struct pollfd pf = {fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        ssize_t k = recv(fd, (char *)p + got, n - got, MSG_DONTWAIT);
        if (k == 0) return -1;
        if (k < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

/* wait for the connection announcing `seq` on the device's listener */
static int device_accept_seq(tn_gloo_device *d, int64_t seq, int64_t deadline, tn_derr *err) {
    pthread_mutex_lock(&d->mu);
    for (;;) {
        for (accepted **pp = &d->stash; *pp; pp = &(*pp)->next) {
            if ((*pp)->seq == seq) {
                accepted *a = *pp;
                *pp = a->next;
                int fd = a->fd;
                free(a);
                pthread_mutex_unlock(&d->mu);
                return fd;
            }
        }
        int64_t left = deadline - tn_now_ms();
        if (left <= 0) {
            pthread_mutex_unlock(&d->mu);
            tn_derr_set(err, TN_DERR_BACKEND, "Gloo connectFullMesh failed with [%s] Timed out waiting for a "
                        "peer to connect (sequence number %lld)", d->str, (long long)seq);
            return -1;
        }
        struct pollfd pf = {d->listen_fd, POLLIN, 0};
        int r = poll(&pf, 1, (int)(left > 200 ? 200 : left));
        if (r <= 0) continue;
        int fd = accept(d->listen_fd, NULL, NULL);
        if (fd < 0) continue;
        set_cloexec_nb(fd, 0);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        int64_t s;
        /* a peer that connects and says nothing is dropped after 10 s (or the deadline) */
        int64_t dl = tn_now_ms() + 10000;
        if (dl > deadline) dl = deadline;
        if (read_full(fd, &s, sizeof s, dl) != 0) {
            close(fd);
            continue;
        }
        accepted *a = malloc(sizeof *a);
        if (!a) { close(fd); continue; }
        a->seq = s;
        a->fd = fd;
        a->next = d->stash;
        d->stash = a;
    }
}

/* ------------------------------------------------------------------ context */

struct tn_gloo_op {
    int done;
    int failed;
    int abandoned;
    int is_send;
    int pair;            /* rank of the peer (-1: any, not yet matched) */
    size_t received;
    char msg[256];
    tn_gloo_op *next_any;
};

typedef struct frame {
    uint64_t pre[6];
    const uint8_t *payload;
    size_t len;
    size_t written;       /* of PREAMBLE + len */
    tn_gloo_op *op;       /* completed when written (SEND_UNBOUND_BUFFER) */
    struct frame *next;
} frame;

typedef struct pend {
    uint64_t slot;
    uint8_t *p;
    size_t n;
    tn_gloo_op *op;
    struct pend *next;
} pend;

typedef struct slotc {
    uint64_t slot;
    int64_t remote_send, remote_recv, expected_send;
    struct slotc *next;
} slotc;

typedef struct {
    int fd;
    int rank;
    char peer[96];
    char err[256];
    int failed;
    frame *txh, *txt;
    pend *lsend, *lrecv;           /* local pending sends (waiting for the peer's recv) / recvs */
    slotc *slots;
    /* rx state */
    uint64_t rpre[6];
    size_t rgot;                   /* bytes of the preamble read */
    pend *rcur;                    /* recv being filled */
    size_t rpay;                   /* payload bytes read */
} pair;

struct tn_gloo_ctx {
    int rank, size;
    int64_t timeout_ms;
    tn_gloo_device *dev;
    pair *pairs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int wake[2];
    pthread_t thread;
    int thread_started;
    int stop;
    tn_gloo_op *any;               /* recv-from-any waiting for a sender */
    /* per any-op: the acceptable ranks (bitmap) and its buffer */
    struct anyrec { tn_gloo_op *op; uint64_t slot; uint8_t *p; size_t n; uint8_t *ranks; struct anyrec *next; } *anys;
    tn_gloo_op *zombies;           /* abandoned ops still referenced by frames */
};

int tn_gloo_ctx_rank(tn_gloo_ctx *c) { return c->rank; }
int tn_gloo_ctx_size(tn_gloo_ctx *c) { return c->size; }
int64_t tn_gloo_ctx_timeout(tn_gloo_ctx *c) { return c->timeout_ms; }

static slotc *slot_get(pair *p, uint64_t slot) {
    for (slotc *s = p->slots; s; s = s->next)
        if (s->slot == slot) return s;
    slotc *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->slot = slot;
    s->next = p->slots;
    p->slots = s;
    return s;
}

static void slot_gc(pair *p) {
    for (slotc **pp = &p->slots; *pp;) {
        slotc *s = *pp;
        if (!s->remote_send && !s->remote_recv && !s->expected_send) {
            *pp = s->next;
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

static void op_finish(tn_gloo_ctx *c, tn_gloo_op *op, const char *failmsg) {
    (void)c;
    if (!op || op->done) return;
    op->done = 1;
    if (failmsg) {
        op->failed = 1;
        snprintf(op->msg, sizeof op->msg, "%s", failmsg);
    }
}

static void wake_io(tn_gloo_ctx *c) {
    char b = 1;
    ssize_t r = write(c->wake[1], &b, 1);
    (void)r;
}

/* fail a pair: close it, fail every op that depends on it */
static void pair_fail(tn_gloo_ctx *c, pair *p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pair_fail(tn_gloo_ctx *c, pair *p, const char *fmt, ...) {
    if (p->failed) return;
    p->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
    while (p->txh) {
        frame *f = p->txh;
        p->txh = f->next;
        op_finish(c, f->op, p->err);
        free(f);
    }
    p->txt = NULL;
    while (p->lsend) {
        pend *q = p->lsend;
        p->lsend = q->next;
        op_finish(c, q->op, p->err);
        free(q);
    }
    while (p->lrecv) {
        pend *q = p->lrecv;
        p->lrecv = q->next;
        op_finish(c, q->op, p->err);
        free(q);
    }
    if (p->rcur) {
        op_finish(c, p->rcur->op, p->err);
        free(p->rcur);
        p->rcur = NULL;
    }
    pthread_cond_broadcast(&c->cv);
}

/* write as much of the tx queue as the socket takes (caller holds mu) */
static void pair_flush(tn_gloo_ctx *c, pair *p) {
    while (p->txh && !p->failed) {
        frame *f = p->txh;
        size_t total = PREAMBLE + f->len;
        struct iovec iov[2];
        int n = 0;
        if (f->written < PREAMBLE) {
            iov[n].iov_base = (char *)f->pre + f->written;
            iov[n].iov_len = PREAMBLE - f->written;
            n++;
            if (f->len) {
                iov[n].iov_base = (void *)f->payload;
                iov[n].iov_len = f->len;
                n++;
            }
        } else {
            iov[n].iov_base = (void *)(f->payload + (f->written - PREAMBLE));
            iov[n].iov_len = total - f->written;
            n++;
        }
        struct msghdr mh;
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = iov;
        mh.msg_iovlen = n;
        ssize_t k = sendmsg(p->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EINTR) continue;
            pair_fail(c, p, "Write error %s: %s", p->peer, strerror(errno));
            return;
        }
        f->written += (size_t)k;
        if (f->written < total) return;
        p->txh = f->next;
        if (!p->txh) p->txt = NULL;
        if (f->op) {
            op_finish(c, f->op, NULL);
            pthread_cond_broadcast(&c->cv);
        }
        free(f);
    }
}

static int queue_frame(tn_gloo_ctx *c, pair *p, int opcode, uint64_t slot, size_t length,
                       const uint8_t *payload, tn_gloo_op *op) {
    frame *f = calloc(1, sizeof *f);
    if (!f) {
        pair_fail(c, p, "out of memory queueing a frame to %s", p->peer);
        return -1;
    }
    f->pre[0] = PREAMBLE + (opcode == OP_SEND_UNBOUND ? length : 0);
    f->pre[1] = (uint64_t)opcode;
    f->pre[2] = slot;
    f->pre[3] = 0;
    f->pre[4] = length;
    f->pre[5] = 0;
    if (opcode == OP_SEND_UNBOUND) {
        f->payload = payload;
        f->len = length;
    }
    f->op = op;
    if (p->txt) p->txt->next = f;
    else p->txh = f;
    p->txt = f;
    return 0;
}

static pend *pend_new(uint64_t slot, void *ptr, size_t n, tn_gloo_op *op) {
    pend *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->slot = slot;
    q->p = ptr;
    q->n = n;
    q->op = op;
    return q;
}

static void pend_append(pend **head, pend *q) {
    while (*head) head = &(*head)->next;
    *head = q;
}

static pend *pend_take(pend **head, uint64_t slot) {
    for (pend **pp = head; *pp; pp = &(*pp)->next) {
        if ((*pp)->slot == slot) {
            pend *q = *pp;
            *pp = q->next;
            q->next = NULL;
            return q;
        }
    }
    return NULL;
}

/* post a recv on a pair (the pair's bookkeeping of gloo's Pair::recv already done) */
static int post_recv_on(tn_gloo_ctx *c, pair *p, uint64_t slot, void *ptr, size_t n, tn_gloo_op *op) {
    pend *q = pend_new(slot, ptr, n, op);
    if (!q) { pair_fail(c, p, "out of memory"); return -1; }
    op->pair = p->rank;
    pend_append(&p->lrecv, q);
    return queue_frame(c, p, OP_NOTIFY_RECV, slot, n, NULL, NULL);
}

/* a complete preamble arrived: act on it; returns -1 when the pair failed */
static int handle_preamble(tn_gloo_ctx *c, pair *p) {
    uint64_t nbytes = p->rpre[0], opcode = p->rpre[1], slot = p->rpre[2], length = p->rpre[4];
    if (opcode > OP_NOTIFY_RECV || opcode == OP_SEND_BUFFER) {
        pair_fail(c, p, "malformed frame from %s: opcode %llu", p->peer, (unsigned long long)opcode);
        return -1;
    }
    if (opcode == OP_SEND_UNBOUND) {
        if (nbytes != PREAMBLE + length || length > (uint64_t)1 << 48) {
            pair_fail(c, p, "malformed frame from %s: nbytes %llu for length %llu", p->peer,
                      (unsigned long long)nbytes, (unsigned long long)length);
            return -1;
        }
        pend *q = pend_take(&p->lrecv, slot);
        if (!q) {
            pair_fail(c, p, "malformed frame from %s: data for slot %llu with no pending recv", p->peer,
                      (unsigned long long)slot);
            return -1;
        }
        if (length > q->n) {
            op_finish(c, q->op, "Received data size doesn't match expected size. Is there a distributed "
                                "collective mismatch in your code?");
            free(q);
            pair_fail(c, p, "Received data size doesn't match expected size (%llu > posted) from %s",
                      (unsigned long long)length, p->peer);
            return -1;
        }
        q->n = (size_t)length;
        p->rcur = q;
        p->rpay = 0;
        return 0;
    }
    if (nbytes != PREAMBLE) {
        pair_fail(c, p, "malformed frame from %s: nbytes %llu for a notification", p->peer,
                  (unsigned long long)nbytes);
        return -1;
    }
    slotc *s = slot_get(p, slot);
    if (!s) { pair_fail(c, p, "out of memory"); return -1; }
    if (opcode == OP_NOTIFY_SEND) {
        if (s->expected_send > 0) {
            s->expected_send--;
        } else {
            /* a recv-from-any that accepts this rank? */
            struct anyrec **pp;
            for (pp = &c->anys; *pp; pp = &(*pp)->next)
                if ((*pp)->slot == slot && (*pp)->ranks[p->rank]) break;
            if (*pp) {
                struct anyrec *a = *pp;
                *pp = a->next;
                post_recv_on(c, p, slot, a->p, a->n, a->op);
                free(a->ranks);
                free(a);
            } else {
                s->remote_send++;
            }
        }
    } else { /* NOTIFY_RECV_READY */
        pend *q = pend_take(&p->lsend, slot);
        if (q) {
            queue_frame(c, p, OP_SEND_UNBOUND, slot, q->n, q->p, q->op);
            free(q);
        } else {
            s->remote_recv++;
        }
    }
    slot_gc(p);
    return 0;
}

/* read what the socket has (caller holds mu) */
static void pair_read(tn_gloo_ctx *c, pair *p) {
    for (;;) {
        if (p->failed) return;
        void *dst;
        size_t want;
        if (p->rcur) {
            dst = p->rcur->p + p->rpay;
            want = p->rcur->n - p->rpay;
        } else {
            dst = (char *)p->rpre + p->rgot;
            want = PREAMBLE - p->rgot;
        }
        ssize_t k = want ? recv(p->fd, dst, want, MSG_DONTWAIT) : 0;
        if (want && k == 0) {
            /* upstream's gloo text, word for word */
            pair_fail(c, p,
                      "Connection closed by peer %s. This is typically caused by a remote worker crashing. Check "
                      "the logs of the remote worker before reporting an error. GLHF! \xf0\x9f\x8f\x96\xef\xb8\x8f",
                      p->peer);
            return;
        }
        if (k < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EINTR) continue;
            pair_fail(c, p, "Read error %s: %s", p->peer, strerror(errno));
            return;
        }
        if (p->rcur) {
            p->rpay += (size_t)k;
            if (p->rpay == p->rcur->n) {
                pend *q = p->rcur;
                p->rcur = NULL;
                p->rgot = 0;
                q->op->received = q->n;
                q->op->pair = p->rank;
                op_finish(c, q->op, NULL);
                free(q);
                pthread_cond_broadcast(&c->cv);
            }
        } else {
            p->rgot += (size_t)k;
            if (p->rgot == PREAMBLE) {
                if (handle_preamble(c, p) < 0) return;
                if (!p->rcur) p->rgot = 0;
                pair_flush(c, p);
            }
        }
    }
}

static void *io_main(void *arg) {
    tn_gloo_ctx *c = arg;
    struct pollfd *pf = calloc((size_t)c->size + 1, sizeof *pf);
    int *who = calloc((size_t)c->size + 1, sizeof *who);
    if (!pf || !who) {
        free(pf);
        free(who);
        return NULL;
    }
    pthread_mutex_lock(&c->mu);
    while (!c->stop) {
        int n = 0;
        pf[n].fd = c->wake[0];
        pf[n].events = POLLIN;
        who[n++] = -1;
        for (int i = 0; i < c->size; i++) {
            pair *p = &c->pairs[i];
            if (p->fd < 0 || p->failed) continue;
            pf[n].fd = p->fd;
            pf[n].events = POLLIN | (p->txh ? POLLOUT : 0);
            who[n++] = i;
        }
        pthread_mutex_unlock(&c->mu);
        int r = poll(pf, (nfds_t)n, 1000);
        pthread_mutex_lock(&c->mu);
        if (r <= 0) continue;
        for (int j = 0; j < n; j++) {
            if (!pf[j].revents) continue;
            if (who[j] < 0) {
                char buf[64];
                while (read(c->wake[0], buf, sizeof buf) > 0) {}
                continue;
            }
            pair *p = &c->pairs[who[j]];
            if (p->failed) continue;
            if (pf[j].revents & (POLLIN | POLLHUP | POLLERR)) pair_read(c, p);
            if (!p->failed && p->txh) pair_flush(c, p);
        }
        /* frames queued by the user threads get a try here too */
        for (int i = 0; i < c->size; i++)
            if (c->pairs[i].txh && !c->pairs[i].failed) pair_flush(c, &c->pairs[i]);
    }
    pthread_mutex_unlock(&c->mu);
    free(pf);
    free(who);
    return NULL;
}

/* ------------------------------------------------------------------ connect */

static int addr_cmp_initiator(const struct sockaddr_storage *l, int64_t lseq,
                              const struct sockaddr_storage *r, int64_t rseq, int *init) {
    int rv = 0;
    if (l->ss_family != r->ss_family) return -1;
    if (l->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const void *)l, *b = (const void *)r;
        rv = memcmp(&a->sin_addr, &b->sin_addr, sizeof a->sin_addr);
        if (rv == 0) rv = (int)a->sin_port - (int)b->sin_port;
    } else if (l->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const void *)l, *b = (const void *)r;
        rv = memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr);
        if (rv == 0) rv = (int)a->sin6_port - (int)b->sin6_port;
    } else {
        return -1;
    }
    if (rv == 0) rv = (int)(lseq - rseq);
    if (rv == 0) return -1;
    *init = rv > 0;
    return 0;
}

static int connect_to(const struct sockaddr_storage *ss, int64_t seq, int64_t deadline, tn_derr *err) {
    socklen_t len = ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    char s[96];
    addr_str(ss, s, sizeof s);
    for (;;) {
        int fd = socket(ss->ss_family, SOCK_STREAM, 0);
        if (fd < 0) {
            tn_derr_set(err, TN_DERR_BACKEND, "socket: %s", strerror(errno));
            return -1;
        }
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(fd, (const struct sockaddr *)ss, len) == 0) {
            const uint8_t *b = (const uint8_t *)&seq;
            size_t off = 0;
            while (off < sizeof seq) {
                ssize_t k = send(fd, b + off, sizeof seq - off, MSG_NOSIGNAL);
                if (k <= 0) {
                    if (k < 0 && errno == EINTR) continue;
                    break;
                }
                off += (size_t)k;
            }
            if (off == sizeof seq) return fd;
        }
        close(fd);
        if (tn_now_ms() >= deadline) {
            tn_derr_set(err, TN_DERR_BACKEND, "Gloo connectFullMesh failed with Connect timeout %s", s);
            return -1;
        }
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

tn_gloo_ctx *tn_gloo_ctx_connect(tn_store *store, const char *prefix, int rank, int size,
                                 tn_gloo_device *dev, int64_t timeout_ms, tn_derr *err) {
    if (size < 1 || rank < 0 || rank >= size) {
        tn_derr_set(err, TN_DERR_VALUE, "invalid rank %d / size %d", rank, size);
        return NULL;
    }
    tn_gloo_ctx *c = calloc(1, sizeof *c);
    if (!c) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); return NULL; }
    c->rank = rank;
    c->size = size;
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : 30 * 60 * 1000;
    c->dev = tn_gloo_device_ref(dev);
    c->wake[0] = c->wake[1] = -1;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->pairs = calloc((size_t)size, sizeof *c->pairs);
    int64_t *myseq = calloc((size_t)size, sizeof *myseq);
    uint8_t *rec = NULL;
    tn_buf *recs = calloc((size_t)size, sizeof *recs);
    if (!c->pairs || !myseq || !recs) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); goto fail; }
    for (int i = 0; i < size; i++) {
        c->pairs[i].fd = -1;
        c->pairs[i].rank = i;
    }
    pthread_mutex_lock(&dev->mu);
    for (int i = 0; i < size; i++) myseq[i] = dev->next_seq++;
    pthread_mutex_unlock(&dev->mu);

    /* our record */
    size_t hl = strlen(dev->hostname);
    size_t rl = 8 + hl + 8 + ADDR_BYTES + 8 * (size_t)size;
    rec = calloc(1, rl);
    if (!rec) { tn_derr_set(err, TN_DERR_MEMORY, "out of memory"); goto fail; }
    put_u64(rec, hl);
    memcpy(rec + 8, dev->hostname, hl);
    put_u64(rec + 8 + hl, ADDR_BYTES);
    memcpy(rec + 16 + hl, &dev->addr, sizeof dev->addr);
    put_u64(rec + 16 + hl + 128, (uint64_t)(int64_t)-1);
    memcpy(rec + 16 + hl + ADDR_BYTES, myseq, 8 * (size_t)size);
    char key[64];
    snprintf(key, sizeof key, "%s/%d", prefix, rank);
    if (tn_store_set(store, (tn_bv){(const uint8_t *)key, strlen(key)}, (tn_bv){rec, rl}, err) < 0) goto fail;
    int64_t deadline = tn_now_ms() + c->timeout_ms;
    for (int i = 0; i < size; i++) {
        snprintf(key, sizeof key, "%s/%d", prefix, i);
        tn_bv k = {(const uint8_t *)key, strlen(key)};
        if (tn_store_wait(store, &k, 1, c->timeout_ms, err) < 0) goto fail;
        if (tn_store_get(store, k, &recs[i], err) < 0) goto fail;
    }
    for (int i = 0; i < size; i++) {
        if (i == rank) continue;
        /* parse the peer's record */
        const uint8_t *b = recs[i].p;
        size_t n = recs[i].n, off = 0;
        uint64_t h, al;
        if (n < 8) goto bad;
        memcpy(&h, b, 8);
        if (h > n - 8) goto bad;
        off = 8 + h;
        if (n - off < 8) goto bad;
        memcpy(&al, b + off, 8);
        off += 8;
        if (al != ADDR_BYTES || n - off < ADDR_BYTES) goto bad;
        struct sockaddr_storage peer;
        memcpy(&peer, b + off, sizeof peer);
        off += ADDR_BYTES;
        if ((n - off) != 8 * (size_t)size) goto bad;
        int64_t their_seq_for_me;
        memcpy(&their_seq_for_me, b + off + 8 * (size_t)rank, 8);
        int init;
        if (addr_cmp_initiator(&dev->addr, myseq[i], &peer, their_seq_for_me, &init) < 0) {
            tn_derr_set(err, TN_DERR_BACKEND, "Gloo connectFullMesh failed with rank %d's address family "
                        "differs or equals ours", i);
            goto fail;
        }
        pair *p = &c->pairs[i];
        addr_str(&peer, p->peer, sizeof p->peer);
        int fd = init ? connect_to(&peer, their_seq_for_me, deadline, err)
                      : device_accept_seq(dev, myseq[i], deadline, err);
        if (fd < 0) goto fail;
        set_cloexec_nb(fd, 1);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct sockaddr_storage pn;
        socklen_t pl = sizeof pn;
        if (getpeername(fd, (struct sockaddr *)&pn, &pl) == 0) addr_str(&pn, p->peer, sizeof p->peer);
        p->fd = fd;
        continue;
    bad:
        tn_derr_set(err, TN_DERR_BACKEND, "Gloo connectFullMesh failed with a malformed rendezvous record "
                    "for rank %d (%zu bytes)", i, recs[i].n);
        goto fail;
    }
    if (pipe(c->wake) < 0) { tn_derr_set(err, TN_DERR_RUNTIME, "pipe: %s", strerror(errno)); goto fail; }
    set_cloexec_nb(c->wake[0], 1);
    set_cloexec_nb(c->wake[1], 1);
    if (pthread_create(&c->thread, NULL, io_main, c) != 0) {
        tn_derr_set(err, TN_DERR_RUNTIME, "cannot start the gloo I/O thread");
        goto fail;
    }
    c->thread_started = 1;
    free(myseq);
    free(rec);
    for (int i = 0; i < size; i++) tn_buf_free(&recs[i]);
    free(recs);
    return c;
fail:
    free(myseq);
    free(rec);
    if (recs) for (int i = 0; i < size; i++) tn_buf_free(&recs[i]);
    free(recs);
    tn_gloo_ctx_free(c);
    return NULL;
}

void tn_gloo_ctx_free(tn_gloo_ctx *c) {
    if (!c) return;
    if (c->thread_started) {
        pthread_mutex_lock(&c->mu);
        c->stop = 1;
        pthread_mutex_unlock(&c->mu);
        wake_io(c);
        pthread_join(c->thread, NULL);
    }
    if (c->pairs) {
        for (int i = 0; i < c->size; i++) {
            pair *p = &c->pairs[i];
            /* give queued frames a last chance (a send the peer is about to take) */
            if (!p->failed && p->fd >= 0 && p->txh) {
                int64_t dl = tn_now_ms() + 1000;
                while (p->txh && !p->failed && tn_now_ms() < dl) {
                    pair_flush(c, p);
                    if (p->txh) {
                        struct pollfd pf = {p->fd, POLLOUT, 0};
                        poll(&pf, 1, 50);
                    }
                }
            }
            pair_fail(c, p, "process group destroyed");
            while (p->slots) {
                slotc *s = p->slots;
                p->slots = s->next;
                free(s);
            }
        }
        free(c->pairs);
    }
    while (c->anys) {
        struct anyrec *a = c->anys;
        c->anys = a->next;
        free(a->ranks);
        free(a);
    }
    while (c->zombies) {
        tn_gloo_op *o = c->zombies;
        c->zombies = o->next_any;
        free(o);
    }
    if (c->wake[0] >= 0) close(c->wake[0]);
    if (c->wake[1] >= 0) close(c->wake[1]);
    tn_gloo_device_unref(c->dev);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

/* ------------------------------------------------------------------ send / recv */

static tn_gloo_op *op_new(tn_derr *err) {
    tn_gloo_op *op = calloc(1, sizeof *op);
    if (!op) tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
    return op;
}

static int check_peer(tn_gloo_ctx *c, int r, tn_derr *err) {
    if (r < 0 || r >= c->size || r == c->rank) {
        tn_derr_set(err, TN_DERR_RUNTIME, "invalid peer rank %d (this process is rank %d of %d)", r, c->rank,
                    c->size);
        return -1;
    }
    if (c->pairs[r].failed) {
        tn_derr_set(err, TN_DERR_BACKEND, "%s", c->pairs[r].err);
        return -1;
    }
    return 0;
}

tn_gloo_op *tn_gloo_send(tn_gloo_ctx *c, int dst, uint64_t slot, const void *ptr, size_t n, tn_derr *err) {
    pthread_mutex_lock(&c->mu);
    if (check_peer(c, dst, err) < 0) { pthread_mutex_unlock(&c->mu); return NULL; }
    tn_gloo_op *op = op_new(err);
    if (!op) { pthread_mutex_unlock(&c->mu); return NULL; }
    op->is_send = 1;
    op->pair = dst;
    pair *p = &c->pairs[dst];
    slotc *s = slot_get(p, slot);
    if (!s) { pair_fail(c, p, "out of memory"); }
    else if (s->remote_recv > 0) {
        s->remote_recv--;
        queue_frame(c, p, OP_NOTIFY_SEND, slot, n, NULL, NULL);
        queue_frame(c, p, OP_SEND_UNBOUND, slot, n, ptr, op);
    } else {
        pend *q = pend_new(slot, (void *)ptr, n, op);
        if (!q) pair_fail(c, p, "out of memory");
        else {
            pend_append(&p->lsend, q);
            queue_frame(c, p, OP_NOTIFY_SEND, slot, n, NULL, NULL);
        }
    }
    if (p->failed) op_finish(c, op, p->err);
    else { slot_gc(p); pair_flush(c, p); }
    if (p->txh) wake_io(c);
    pthread_mutex_unlock(&c->mu);
    return op;
}

tn_gloo_op *tn_gloo_recv(tn_gloo_ctx *c, int src, uint64_t slot, void *ptr, size_t n, tn_derr *err) {
    pthread_mutex_lock(&c->mu);
    if (check_peer(c, src, err) < 0) { pthread_mutex_unlock(&c->mu); return NULL; }
    tn_gloo_op *op = op_new(err);
    if (!op) { pthread_mutex_unlock(&c->mu); return NULL; }
    pair *p = &c->pairs[src];
    slotc *s = slot_get(p, slot);
    if (!s) pair_fail(c, p, "out of memory");
    else {
        if (s->remote_send > 0) s->remote_send--;
        else s->expected_send++;
        post_recv_on(c, p, slot, ptr, n, op);
    }
    if (p->failed) op_finish(c, op, p->err);
    else { slot_gc(p); pair_flush(c, p); }
    if (p->txh) wake_io(c);
    pthread_mutex_unlock(&c->mu);
    return op;
}

tn_gloo_op *tn_gloo_recv_any(tn_gloo_ctx *c, const int *src_ranks, int nsrc, uint64_t slot, void *ptr,
                             size_t n, tn_derr *err) {
    pthread_mutex_lock(&c->mu);
    tn_gloo_op *op = op_new(err);
    if (!op) { pthread_mutex_unlock(&c->mu); return NULL; }
    op->pair = -1;
    /* a sender already announced? */
    for (int j = 0; j < nsrc; j++) {
        int r = src_ranks[j];
        if (r < 0 || r >= c->size || r == c->rank || c->pairs[r].failed) continue;
        pair *p = &c->pairs[r];
        for (slotc *s = p->slots; s; s = s->next) {
            if (s->slot == slot && s->remote_send > 0) {
                s->remote_send--;
                post_recv_on(c, p, slot, ptr, n, op);
                slot_gc(p);
                pair_flush(c, p);
                if (p->txh) wake_io(c);
                pthread_mutex_unlock(&c->mu);
                return op;
            }
        }
    }
    struct anyrec *a = calloc(1, sizeof *a);
    uint8_t *ranks = calloc((size_t)c->size, 1);
    if (!a || !ranks) {
        free(a);
        free(ranks);
        free(op);
        pthread_mutex_unlock(&c->mu);
        tn_derr_set(err, TN_DERR_MEMORY, "out of memory");
        return NULL;
    }
    for (int j = 0; j < nsrc; j++)
        if (src_ranks[j] >= 0 && src_ranks[j] < c->size) ranks[src_ranks[j]] = 1;
    a->op = op;
    a->slot = slot;
    a->p = ptr;
    a->n = n;
    a->ranks = ranks;
    struct anyrec **pp = &c->anys;
    while (*pp) pp = &(*pp)->next;
    *pp = a;
    pthread_mutex_unlock(&c->mu);
    return op;
}

int tn_gloo_op_done(tn_gloo_ctx *c, tn_gloo_op *op) {
    pthread_mutex_lock(&c->mu);
    int d = op->done;
    pthread_mutex_unlock(&c->mu);
    return d;
}

/* unlink an unmatched recv-from-any (caller holds mu) */
static void drop_any(tn_gloo_ctx *c, tn_gloo_op *op) {
    for (struct anyrec **pp = &c->anys; *pp; pp = &(*pp)->next) {
        if ((*pp)->op == op) {
            struct anyrec *a = *pp;
            *pp = a->next;
            free(a->ranks);
            free(a);
            return;
        }
    }
}

/* is the op still referenced by a pair (a queued frame or pending entry)? caller holds mu */
static int op_referenced(tn_gloo_ctx *c, tn_gloo_op *op) {
    for (int i = 0; i < c->size; i++) {
        pair *p = &c->pairs[i];
        for (frame *f = p->txh; f; f = f->next) if (f->op == op) return 1;
        for (pend *q = p->lsend; q; q = q->next) if (q->op == op) return 1;
        for (pend *q = p->lrecv; q; q = q->next) if (q->op == op) return 1;
        if (p->rcur && p->rcur->op == op) return 1;
    }
    return 0;
}

/* detach an op from every pair so its buffer is never touched again: a timed-out op poisons its
 * pair (the stream position is lost), as upstream's gloo aborts the pair on a timeout */
static void op_detach(tn_gloo_ctx *c, tn_gloo_op *op, const char *why) {
    drop_any(c, op);
    for (int i = 0; i < c->size; i++) {
        pair *p = &c->pairs[i];
        int hit = p->rcur && p->rcur->op == op;
        for (frame *f = p->txh; f && !hit; f = f->next) if (f->op == op) hit = 1;
        for (pend *q = p->lsend; q && !hit; q = q->next) if (q->op == op) hit = 1;
        for (pend *q = p->lrecv; q && !hit; q = q->next) if (q->op == op) hit = 1;
        if (hit) pair_fail(c, p, "%s", why);
    }
}

int tn_gloo_wait(tn_gloo_ctx *c, tn_gloo_op *op, int64_t timeout_ms, int *src, tn_derr *err) {
    if (timeout_ms <= 0) timeout_ms = c->timeout_ms;
    int64_t deadline = tn_now_ms() + timeout_ms;
    pthread_mutex_lock(&c->mu);
    while (!op->done) {
        int64_t left = deadline - tn_now_ms();
        if (left <= 0) break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t step = left > 200 ? 200 : left;
        ts.tv_sec += step / 1000;
        ts.tv_nsec += (step % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    int rc = 0;
    if (!op->done) {
        char why[200];
        snprintf(why, sizeof why, "Timed out waiting %lldms for %s operation to complete", (long long)timeout_ms,
                 op->is_send ? "send" : "recv");
        tn_derr_set(err, TN_DERR_BACKEND, "%s", why);
        op_detach(c, op, why);
        /* gloo's UnboundBuffer::waitRecv/waitSend signal the timeout to the whole context: every
         * pair closes, so the peers raise "Connection closed by peer" at once instead of waiting
         * out their own timeouts (measured on upstream: monitored_barrier's waiting ranks) */
        for (int i = 0; i < c->size; i++)
            if (i != c->rank) pair_fail(c, &c->pairs[i], "%s", why);
        wake_io(c);
        rc = -1;
    } else if (op->failed) {
        tn_derr_set(err, TN_DERR_BACKEND, "%s", op->msg);
        rc = -1;
    }
    if (src) *src = op->pair;
    if (op_referenced(c, op)) {
        op->abandoned = 1;
        op->next_any = c->zombies;
        c->zombies = op;
    } else {
        free(op);
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

void tn_gloo_op_abandon(tn_gloo_ctx *c, tn_gloo_op *op) {
    if (!op) return;
    pthread_mutex_lock(&c->mu);
    if (!op->done) op_detach(c, op, "operation abandoned after an error");
    if (op_referenced(c, op)) {
        op->abandoned = 1;
        op->next_any = c->zombies;
        c->zombies = op;
    } else {
        free(op);
    }
    pthread_mutex_unlock(&c->mu);
}
