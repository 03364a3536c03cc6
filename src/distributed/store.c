/* store.c — what every store shares (errors, references, upstream's generic fallbacks for
 * append / multi_get / multi_set / barrier), HashStore (the in-memory store) and PrefixStore. */
#include "distributed/store.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void tn_derr_set(tn_derr *e, int kind, const char *fmt, ...) {
    if (!e) return;
    e->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

int tn_buf_dup(tn_buf *out, const void *p, size_t n) {
    out->n = n;
    out->p = malloc(n ? n : 1);
    if (!out->p) {
        out->n = 0;
        return -1;
    }
    if (n) memcpy(out->p, p, n);
    return 0;
}

void tn_buf_free(tn_buf *b) {
    free(b->p);
    b->p = NULL;
    b->n = 0;
}

void tn_store_free_keys(tn_buf *keys, size_t n) {
    for (size_t i = 0; keys && i < n; i++) tn_buf_free(&keys[i]);
    free(keys);
}

int64_t tn_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tn_store_parse_i64(const uint8_t *p, size_t n, int64_t *out) {
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '\f' || p[i] == '\v')) i++;
    int neg = 0;
    if (i < n && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
    if (i >= n || p[i] < '0' || p[i] > '9') return -1;
    uint64_t v = 0;
    for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
        if (v > (UINT64_MAX - 9) / 10) return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if ((!neg && v > (uint64_t)INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1)) return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

void tn_store_init(tn_store *s, const tn_store_vt *vt, int64_t timeout_ms) {
    s->vt = vt;
    s->timeout_ms = timeout_ms;
    s->refs = 1;
    pthread_mutex_init(&s->refs_mu, NULL);
}

tn_store *tn_store_ref(tn_store *s) {
    pthread_mutex_lock(&s->refs_mu);
    s->refs++;
    pthread_mutex_unlock(&s->refs_mu);
    return s;
}

void tn_store_unref(tn_store *s) {
    if (!s) return;
    pthread_mutex_lock(&s->refs_mu);
    int left = --s->refs;
    pthread_mutex_unlock(&s->refs_mu);
    if (left == 0) {
        pthread_mutex_destroy(&s->refs_mu);
        s->vt->destroy(s);
    }
}

static int refuse(tn_store *s, const char *what, tn_derr *err) {
    tn_derr_set(err, TN_DERR_NOTIMPL, "torchnative: %s.%s is not implemented", s->vt->name, what);
    return -1;
}

int tn_store_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) { return s->vt->set(s, k, v, e); }
int tn_store_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) { return s->vt->get(s, k, o, e); }
int tn_store_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) { return s->vt->add(s, k, d, o, e); }
int tn_store_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    return s->vt->compare_set(s, k, x, d, o, e);
}
int tn_store_check(tn_store *s, const tn_bv *k, size_t n, int *r, tn_derr *e) { return s->vt->check(s, k, n, r, e); }
int tn_store_wait(tn_store *s, const tn_bv *k, size_t n, int64_t t, tn_derr *e) { return s->vt->wait(s, k, n, t, e); }
int tn_store_delete_key(tn_store *s, tn_bv k, int *d, tn_derr *e) { return s->vt->delete_key(s, k, d, e); }
int tn_store_num_keys(tn_store *s, int64_t *o, tn_derr *e) { return s->vt->num_keys(s, o, e); }

/* upstream's Store::append: read, then compare-and-set until nobody raced us */
int tn_store_append(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    if (s->vt->append) return s->vt->append(s, k, v, e);
    for (int tries = 0;; tries++) {
        int ready = 0;
        tn_buf cur = {NULL, 0}, res = {NULL, 0}, want = {NULL, 0};
        if (tn_store_check(s, &k, 1, &ready, e) < 0) return -1;
        if (ready && tn_store_get(s, k, &cur, e) < 0) return -1;
        want.n = cur.n + v.n;
        want.p = malloc(want.n ? want.n : 1);
        if (!want.p) {
            tn_buf_free(&cur);
            tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
            return -1;
        }
        if (cur.n) memcpy(want.p, cur.p, cur.n);
        if (v.n) memcpy(want.p + cur.n, v.p, v.n);
        int rc = tn_store_compare_set(s, k, tn_bv_of(&cur), tn_bv_of(&want), &res, e);
        int done = rc == 0 && res.n == want.n && (want.n == 0 || memcmp(res.p, want.p, want.n) == 0);
        tn_buf_free(&cur);
        tn_buf_free(&want);
        tn_buf_free(&res);
        if (rc < 0) return -1;
        if (done) return 0;
    }
}

int tn_store_multi_get(tn_store *s, const tn_bv *k, size_t n, tn_buf *outs, tn_derr *e) {
    if (s->vt->multi_get) return s->vt->multi_get(s, k, n, outs, e);
    for (size_t i = 0; i < n; i++)
        if (tn_store_get(s, k[i], &outs[i], e) < 0) {
            for (size_t j = 0; j < i; j++) tn_buf_free(&outs[j]);
            return -1;
        }
    return 0;
}

int tn_store_multi_set(tn_store *s, const tn_bv *k, const tn_bv *v, size_t n, tn_derr *e) {
    if (s->vt->multi_set) return s->vt->multi_set(s, k, v, n, e);
    for (size_t i = 0; i < n; i++)
        if (tn_store_set(s, k[i], v[i], e) < 0) return -1;
    return 0;
}

int tn_store_queue_push(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    return s->vt->queue_push ? s->vt->queue_push(s, k, v, e) : refuse(s, "queue_push", e);
}
int tn_store_queue_pop(tn_store *s, tn_bv k, int block, tn_buf *o, tn_derr *e) {
    return s->vt->queue_pop ? s->vt->queue_pop(s, k, block, o, e) : refuse(s, "queue_pop", e);
}
int tn_store_queue_len(tn_store *s, tn_bv k, int64_t *o, tn_derr *e) {
    return s->vt->queue_len ? s->vt->queue_len(s, k, o, e) : refuse(s, "queue_len", e);
}
int tn_store_list_keys(tn_store *s, tn_buf **keys, size_t *n, tn_derr *e) {
    return s->vt->list_keys ? s->vt->list_keys(s, keys, n, e) : refuse(s, "list_keys", e);
}

/* a key with a suffix appended (for the generic barrier) */
static int suffixed(tn_buf *out, tn_bv k, const char *suffix) {
    size_t sn = strlen(suffix);
    out->n = k.n + sn;
    out->p = malloc(out->n);
    if (!out->p) return -1;
    if (k.n) memcpy(out->p, k.p, k.n);
    memcpy(out->p + k.n, suffix, sn);
    return 0;
}

/* upstream's Store::barrier: count arrivals under key/num_members; the last one sets
 * key/last_member; everyone waits for it */
int tn_store_barrier(tn_store *s, tn_bv k, int64_t world, int64_t timeout_ms, tn_derr *e) {
    if (s->vt->barrier) return s->vt->barrier(s, k, world, timeout_ms, e);
    tn_buf nm, lm;
    if (suffixed(&nm, k, "/num_members") < 0) return tn_derr_set(e, TN_DERR_MEMORY, "out of memory"), -1;
    if (suffixed(&lm, k, "/last_member") < 0) {
        tn_buf_free(&nm);
        return tn_derr_set(e, TN_DERR_MEMORY, "out of memory"), -1;
    }
    int64_t n = 0;
    int rc = tn_store_add(s, tn_bv_of(&nm), 1, &n, e);
    if (rc == 0 && n == world) rc = tn_store_set(s, tn_bv_of(&lm), (tn_bv){(const uint8_t *)"1", 1}, e);
    tn_bv w = tn_bv_of(&lm);
    if (rc == 0) rc = tn_store_wait(s, &w, 1, timeout_ms, e);
    tn_buf_free(&nm);
    tn_buf_free(&lm);
    return rc;
}

tn_store *tn_store_clone(tn_store *s, tn_derr *e) { return s->vt->clone ? s->vt->clone(s, e) : tn_store_ref(s); }

/* ---------------------------------------------------------------------------------------------
 * HashStore: the table under one mutex; waiters sleep on a condition variable (monotonic clock) */

typedef struct {
    tn_store base;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tn_kv *kv;
} hash_store;
#define HS(s) ((hash_store *)(s))

static void deadline_ts(struct timespec *ts, int64_t ms) {
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000;
    if (ts->tv_nsec >= 1000000000) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000;
    }
}

/* wait until every key is present; lock held */
static int hs_wait_locked(hash_store *h, const tn_bv *k, size_t n, int64_t timeout_ms, tn_derr *e) {
    struct timespec ts;
    if (timeout_ms > 0) deadline_ts(&ts, timeout_ms);
    for (;;) {
        size_t i = 0;
        while (i < n && tn_kv_get(h->kv, k[i])) i++;
        if (i == n) return 0;
        int rc = timeout_ms > 0 ? pthread_cond_timedwait(&h->cv, &h->mu, &ts) : pthread_cond_wait(&h->cv, &h->mu);
        if (rc == ETIMEDOUT) {
            tn_derr_set(e, TN_DERR_STORE, "Wait timeout");
            return -1;
        }
    }
}

static int oom(tn_derr *e) {
    tn_derr_set(e, TN_DERR_MEMORY, "out of memory");
    return -1;
}

static int hs_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    int rc = tn_kv_set(h->kv, k, v);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc < 0 ? oom(e) : 0;
}

static int hs_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    int rc = hs_wait_locked(h, &k, 1, s->timeout_ms, e);
    if (rc == 0) {
        const tn_buf *v = tn_kv_get(h->kv, k);
        if (tn_buf_dup(o, v->p, v->n) < 0) rc = oom(e);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int hs_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    const tn_buf *v = tn_kv_get(h->kv, k);
    int64_t cur = 0;
    int rc = 0;
    if (v && v->n && tn_store_parse_i64(v->p, v->n, &cur) < 0) {
        tn_derr_set(e, TN_DERR_VALUE, "stoll");
        rc = -1;
    }
    if (rc == 0) {
        char buf[32];
        cur = (int64_t)((uint64_t)cur + (uint64_t)d);
        int n = snprintf(buf, sizeof buf, "%lld", (long long)cur);
        if (tn_kv_set(h->kv, k, (tn_bv){(const uint8_t *)buf, (size_t)n}) < 0) rc = oom(e);
        *o = cur;
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int bv_eq(const tn_buf *a, tn_bv b) { return a->n == b.n && (b.n == 0 || memcmp(a->p, b.p, b.n) == 0); }

static int hs_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    const tn_buf *v = tn_kv_get(h->kv, k);
    int rc;
    if ((!v && x.n == 0) || (v && bv_eq(v, x))) {
        rc = tn_kv_set(h->kv, k, d) < 0 || tn_buf_dup(o, d.p, d.n) < 0 ? oom(e) : 0;
        pthread_cond_broadcast(&h->cv);
    } else if (!v) {
        rc = tn_buf_dup(o, x.p, x.n) < 0 ? oom(e) : 0;
    } else {
        rc = tn_buf_dup(o, v->p, v->n) < 0 ? oom(e) : 0;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int hs_check(tn_store *s, const tn_bv *k, size_t n, int *r, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    size_t i = 0;
    while (i < n && tn_kv_get(h->kv, k[i])) i++;
    *r = i == n;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int hs_wait(tn_store *s, const tn_bv *k, size_t n, int64_t t, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    int rc = hs_wait_locked(h, k, n, t, e);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int hs_delete(tn_store *s, tn_bv k, int *d, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    *d = tn_kv_del(h->kv, k);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int hs_num_keys(tn_store *s, int64_t *o, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    *o = (int64_t)tn_kv_count(h->kv);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int hs_append(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    const tn_buf *cur = tn_kv_get(h->kv, k);
    tn_buf nv;
    int rc = 0;
    nv.n = (cur ? cur->n : 0) + v.n;
    nv.p = malloc(nv.n ? nv.n : 1);
    if (!nv.p) rc = oom(e);
    else {
        if (cur && cur->n) memcpy(nv.p, cur->p, cur->n);
        if (v.n) memcpy(nv.p + (cur ? cur->n : 0), v.p, v.n);
        if (tn_kv_set_owned(h->kv, k, &nv) < 0) rc = oom(e);
        pthread_cond_broadcast(&h->cv);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int hs_queue_push(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    int rc = tn_kv_queue_push(h->kv, k, v) < 0 ? oom(e) : 0;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int hs_queue_pop(tn_store *s, tn_bv k, int block, tn_buf *o, tn_derr *e) {
    hash_store *h = HS(s);
    struct timespec ts;
    int64_t t = s->timeout_ms;
    if (t > 0) deadline_ts(&ts, t);
    pthread_mutex_lock(&h->mu);
    int rc;
    for (;;) {
        rc = tn_kv_queue_pop(h->kv, k, o);
        if (rc != 0) break;
        if (!block) {
            tn_derr_set(e, TN_DERR_QUEUE_EMPTY, "queue is empty");
            rc = -2;
            break;
        }
        int w = t > 0 ? pthread_cond_timedwait(&h->cv, &h->mu, &ts) : pthread_cond_wait(&h->cv, &h->mu);
        if (w == ETIMEDOUT) {
            tn_derr_set(e, TN_DERR_STORE, "Wait timeout");
            rc = -2;
            break;
        }
    }
    pthread_mutex_unlock(&h->mu);
    if (rc == -1) return oom(e);
    return rc == 1 ? 0 : -1;
}

static int hs_queue_len(tn_store *s, tn_bv k, int64_t *o, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    *o = (int64_t)tn_kv_queue_len(h->kv, k);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int hs_list_keys(tn_store *s, tn_buf **keys, size_t *n, tn_derr *e) {
    hash_store *h = HS(s);
    pthread_mutex_lock(&h->mu);
    int rc = tn_kv_keys(h->kv, keys, n) < 0 ? oom(e) : 0;
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static void hs_destroy(tn_store *s) {
    hash_store *h = HS(s);
    tn_kv_free(h->kv);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}

static const tn_store_vt hash_vt = {
    "HashStore", hs_set, hs_get, hs_add, hs_compare_set, hs_check, hs_wait, hs_delete, hs_num_keys,
    hs_append, NULL, NULL, hs_queue_push, hs_queue_pop, hs_queue_len, hs_list_keys, NULL, NULL, hs_destroy, 1,
};

tn_store *tn_hash_store_new(void) {
    hash_store *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    if (!(h->kv = tn_kv_new())) {
        free(h);
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    tn_store_init(&h->base, &hash_vt, 300000);
    return &h->base;
}

/* ---------------------------------------------------------------------------------------------
 * PrefixStore: every key becomes "<prefix>/<key>" in the underlying store */

typedef struct {
    tn_store base;
    tn_buf prefix;   /* "<prefix>/" */
    tn_store *under;
} prefix_store;
#define PS(s) ((prefix_store *)(s))

static int pk(prefix_store *p, tn_bv k, tn_buf *out) {
    out->n = p->prefix.n + k.n;
    out->p = malloc(out->n ? out->n : 1);
    if (!out->p) return -1;
    memcpy(out->p, p->prefix.p, p->prefix.n);
    if (k.n) memcpy(out->p + p->prefix.n, k.p, k.n);
    return 0;
}

/* prefixed copies of n keys (views into one allocation list) */
static tn_bv *pks(prefix_store *p, const tn_bv *k, size_t n, tn_buf **hold) {
    tn_bv *v = calloc(n ? n : 1, sizeof *v);
    *hold = calloc(n ? n : 1, sizeof **hold);
    if (!v || !*hold) goto fail;
    for (size_t i = 0; i < n; i++) {
        if (pk(p, k[i], &(*hold)[i]) < 0) goto fail;
        v[i] = tn_bv_of(&(*hold)[i]);
    }
    return v;
fail:
    free(v);
    if (*hold) tn_store_free_keys(*hold, n);
    *hold = NULL;
    return NULL;
}

#define WITH_KEY(...)                           \
    tn_buf kk;                                  \
    if (pk(PS(s), k, &kk) < 0) return oom(e);   \
    int rc = (__VA_ARGS__);                     \
    tn_buf_free(&kk);                           \
    return rc;
#define KK tn_bv_of(&kk)

static int ps_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) { WITH_KEY(tn_store_set(PS(s)->under, KK, v, e)) }
static int ps_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) { WITH_KEY(tn_store_get(PS(s)->under, KK, o, e)) }
static int ps_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) { WITH_KEY(tn_store_add(PS(s)->under, KK, d, o, e)) }
static int ps_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    WITH_KEY(tn_store_compare_set(PS(s)->under, KK, x, d, o, e))
}
static int ps_delete(tn_store *s, tn_bv k, int *d, tn_derr *e) { WITH_KEY(tn_store_delete_key(PS(s)->under, KK, d, e)) }
static int ps_append(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) { WITH_KEY(tn_store_append(PS(s)->under, KK, v, e)) }
static int ps_queue_push(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) { WITH_KEY(tn_store_queue_push(PS(s)->under, KK, v, e)) }
static int ps_queue_pop(tn_store *s, tn_bv k, int b, tn_buf *o, tn_derr *e) { WITH_KEY(tn_store_queue_pop(PS(s)->under, KK, b, o, e)) }
static int ps_queue_len(tn_store *s, tn_bv k, int64_t *o, tn_derr *e) { WITH_KEY(tn_store_queue_len(PS(s)->under, KK, o, e)) }
static int ps_barrier(tn_store *s, tn_bv k, int64_t w, int64_t t, tn_derr *e) { WITH_KEY(tn_store_barrier(PS(s)->under, KK, w, t, e)) }

#define WITH_KEYS(...)                               \
    tn_buf *hold;                                    \
    tn_bv *kv = pks(PS(s), k, n, &hold);             \
    if (!kv) return oom(e);                          \
    int rc = (__VA_ARGS__);                          \
    tn_store_free_keys(hold, n);                     \
    free(kv);                                        \
    return rc;

static int ps_check(tn_store *s, const tn_bv *k, size_t n, int *r, tn_derr *e) { WITH_KEYS(tn_store_check(PS(s)->under, kv, n, r, e)) }
static int ps_wait(tn_store *s, const tn_bv *k, size_t n, int64_t t, tn_derr *e) { WITH_KEYS(tn_store_wait(PS(s)->under, kv, n, t, e)) }
static int ps_multi_get(tn_store *s, const tn_bv *k, size_t n, tn_buf *o, tn_derr *e) {
    WITH_KEYS(tn_store_multi_get(PS(s)->under, kv, n, o, e))
}
static int ps_multi_set(tn_store *s, const tn_bv *k, const tn_bv *v, size_t n, tn_derr *e) {
    WITH_KEYS(tn_store_multi_set(PS(s)->under, kv, v, n, e))
}
static int ps_num_keys(tn_store *s, int64_t *o, tn_derr *e) { return tn_store_num_keys(PS(s)->under, o, e); }

static int ps_list_keys(tn_store *s, tn_buf **keys, size_t *n, tn_derr *e) {
    prefix_store *p = PS(s);
    tn_buf *all;
    size_t na;
    if (tn_store_list_keys(p->under, &all, &na, e) < 0) return -1;
    size_t m = 0;
    for (size_t i = 0; i < na; i++) {
        if (all[i].n >= p->prefix.n && memcmp(all[i].p, p->prefix.p, p->prefix.n) == 0) {
            memmove(all[i].p, all[i].p + p->prefix.n, all[i].n - p->prefix.n);
            all[m].p = all[i].p;
            all[m].n = all[i].n - p->prefix.n;
            if (m != i) all[i].p = NULL;
            m++;
        } else {
            tn_buf_free(&all[i]);
        }
    }
    *keys = all;
    *n = m;
    return 0;
}

static tn_store *ps_clone(tn_store *s, tn_derr *e) {
    prefix_store *p = PS(s);
    tn_store *u = tn_store_clone(p->under, e);
    if (!u) return NULL;
    tn_store *c = tn_prefix_store_new((const char *)p->prefix.p, p->prefix.n - 1, u);
    tn_store_unref(u);
    if (!c) oom(e);
    return c;
}

static void ps_destroy(tn_store *s) {
    tn_store_unref(PS(s)->under);
    tn_buf_free(&PS(s)->prefix);
    free(s);
}

static const tn_store_vt prefix_vt = {
    "PrefixStore", ps_set, ps_get, ps_add, ps_compare_set, ps_check, ps_wait, ps_delete, ps_num_keys,
    ps_append, ps_multi_get, ps_multi_set, ps_queue_push, ps_queue_pop, ps_queue_len, ps_list_keys, ps_barrier,
    ps_clone, ps_destroy, 1,
};

tn_store *tn_prefix_store_new(const char *prefix, size_t n, tn_store *under) {
    prefix_store *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->prefix.n = n + 1;
    p->prefix.p = malloc(n + 1);
    if (!p->prefix.p) {
        free(p);
        return NULL;
    }
    memcpy(p->prefix.p, prefix, n);
    p->prefix.p[n] = '/';
    p->under = tn_store_ref(under);
    tn_store_init(&p->base, &prefix_vt, under->timeout_ms);
    p->base.vt = &prefix_vt;
    return &p->base;
}

int tn_store_is_prefix(tn_store *s) { return s->vt == &prefix_vt; }
tn_store *tn_prefix_store_underlying(tn_store *s) { return s->vt == &prefix_vt ? PS(s)->under : NULL; }
