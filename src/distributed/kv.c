/* kv.c — the in-memory key table with queues, shared by HashStore and the TCPStore server.
 * Chained hash table keyed by byte strings; queues live in a second table (a FIFO per key). Not
 * thread-safe: callers lock. */
#include "distributed/store.h"

#include <stdlib.h>
#include <string.h>

typedef struct qitem {
    tn_buf v;
    struct qitem *next;
} qitem;

typedef struct entry {
    tn_buf key, val;
    qitem *qhead, *qtail;   /* queue table only */
    size_t qlen;
    uint64_t hash;
    struct entry *next;
} entry;

typedef struct {
    entry **b;
    size_t nb, count;
} table;

struct tn_kv {
    table keys, queues;
};

static uint64_t hash_of(tn_bv k) {
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (size_t i = 0; i < k.n; i++) h = (h ^ k.p[i]) * 1099511628211ULL;
    return h;
}

static entry **find_slot(table *t, tn_bv k, uint64_t h) {
    if (!t->nb) return NULL;
    entry **pp = &t->b[h & (t->nb - 1)];
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->hash == h && (*pp)->key.n == k.n && (k.n == 0 || memcmp((*pp)->key.p, k.p, k.n) == 0)) return pp;
    return pp;   /* the empty tail slot */
}

static int grow(table *t) {
    size_t nb = t->nb ? t->nb * 2 : 64;
    entry **b = calloc(nb, sizeof *b);
    if (!b) return -1;
    for (size_t i = 0; i < t->nb; i++) {
        entry *e = t->b[i];
        while (e) {
            entry *n = e->next;
            e->next = b[e->hash & (nb - 1)];
            b[e->hash & (nb - 1)] = e;
            e = n;
        }
    }
    free(t->b);
    t->b = b;
    t->nb = nb;
    return 0;
}

static entry *lookup(table *t, tn_bv k) {
    entry **pp = find_slot(t, k, hash_of(k));
    return pp ? *pp : NULL;
}

static entry *insert(table *t, tn_bv k) {
    uint64_t h = hash_of(k);
    entry **pp = find_slot(t, k, h);
    if (pp && *pp) return *pp;
    if (t->count + 1 > t->nb * 3 / 4) {
        if (grow(t) < 0) return NULL;
        pp = find_slot(t, k, h);
    }
    entry *e = calloc(1, sizeof *e);
    if (!e || tn_buf_dup(&e->key, k.p, k.n) < 0) {
        free(e);
        return NULL;
    }
    e->hash = h;
    *pp = e;
    t->count++;
    return e;
}

static void free_entry(entry *e) {
    tn_buf_free(&e->key);
    tn_buf_free(&e->val);
    for (qitem *q = e->qhead; q;) {
        qitem *n = q->next;
        tn_buf_free(&q->v);
        free(q);
        q = n;
    }
    free(e);
}

static int remove_key(table *t, tn_bv k) {
    entry **pp = find_slot(t, k, hash_of(k));
    if (!pp || !*pp) return 0;
    entry *e = *pp;
    *pp = e->next;
    free_entry(e);
    t->count--;
    return 1;
}

static void free_table(table *t) {
    for (size_t i = 0; i < t->nb; i++)
        for (entry *e = t->b[i]; e;) {
            entry *n = e->next;
            free_entry(e);
            e = n;
        }
    free(t->b);
}

tn_kv *tn_kv_new(void) { return calloc(1, sizeof(tn_kv)); }

void tn_kv_free(tn_kv *kv) {
    if (!kv) return;
    free_table(&kv->keys);
    free_table(&kv->queues);
    free(kv);
}

const tn_buf *tn_kv_get(tn_kv *kv, tn_bv key) {
    entry *e = lookup(&kv->keys, key);
    return e ? &e->val : NULL;
}

int tn_kv_set_owned(tn_kv *kv, tn_bv key, tn_buf *val) {
    entry *e = insert(&kv->keys, key);
    if (!e) {
        tn_buf_free(val);
        return -1;
    }
    tn_buf_free(&e->val);
    e->val = *val;
    *val = (tn_buf){NULL, 0};
    return 0;
}

int tn_kv_set(tn_kv *kv, tn_bv key, tn_bv val) {
    tn_buf v;
    if (tn_buf_dup(&v, val.p, val.n) < 0) return -1;
    return tn_kv_set_owned(kv, key, &v);
}

int tn_kv_del(tn_kv *kv, tn_bv key) { return remove_key(&kv->keys, key); }
size_t tn_kv_count(tn_kv *kv) { return kv->keys.count; }

int tn_kv_keys(tn_kv *kv, tn_buf **keys, size_t *n) {
    *n = 0;
    *keys = calloc(kv->keys.count ? kv->keys.count : 1, sizeof(tn_buf));
    if (!*keys) return -1;
    for (size_t i = 0; i < kv->keys.nb; i++)
        for (entry *e = kv->keys.b[i]; e; e = e->next) {
            if (tn_buf_dup(&(*keys)[*n], e->key.p, e->key.n) < 0) {
                tn_store_free_keys(*keys, *n);
                *keys = NULL;
                *n = 0;
                return -1;
            }
            (*n)++;
        }
    return 0;
}

int tn_kv_queue_push(tn_kv *kv, tn_bv key, tn_bv val) {
    entry *e = insert(&kv->queues, key);
    qitem *q = e ? calloc(1, sizeof *q) : NULL;
    if (!q || tn_buf_dup(&q->v, val.p, val.n) < 0) {
        free(q);
        return -1;
    }
    if (e->qtail) e->qtail->next = q;
    else e->qhead = q;
    e->qtail = q;
    e->qlen++;
    return 0;
}

int tn_kv_queue_pop(tn_kv *kv, tn_bv key, tn_buf *out) {
    entry *e = lookup(&kv->queues, key);
    if (!e || !e->qhead) return 0;
    qitem *q = e->qhead;
    e->qhead = q->next;
    if (!e->qhead) e->qtail = NULL;
    e->qlen--;
    *out = q->v;
    free(q);
    if (!e->qlen) remove_key(&kv->queues, key);
    return 1;
}

size_t tn_kv_queue_len(tn_kv *kv, tn_bv key) {
    entry *e = lookup(&kv->queues, key);
    return e ? e->qlen : 0;
}

int tn_kv_present(tn_kv *kv, tn_bv key) { return lookup(&kv->keys, key) != NULL || tn_kv_queue_len(kv, key) > 0; }
