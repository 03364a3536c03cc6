/* tensor.c — storage lifetime and shape arithmetic. */
#include "core/tensor.h"
#include "core/profiler.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* glibc's heap policy for tensor-sized blocks (docs/speed_prefill.md). By default glibc serves
 * blocks of 128 KB and more with mmap until the first one is freed, then raises that threshold
 * to the freed size, and gives free memory at the top of the heap back to the kernel beyond twice
 * it. A forward pass allocates and frees megabyte activations in turn, so the heap kept shrinking
 * and growing, and every regrowth touched fresh zeroed pages: ~74,000 page faults and ~10% of the
 * CPU time of a 512-token prefill of the SmolLM2-shaped Llama. Fixing the mmap threshold at
 * glibc's own dynamic ceiling (32 MB) and keeping up to 64 MB of free heap top removes them.
 * A user's own choice (GLIBC_TUNABLES malloc settings, MALLOC_*_ variables) is left alone. */
static void huge_init(void), big_init(void);

void tn_storage_tune_malloc(void) {
    huge_init();
    big_init();
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    const char *tun = getenv("GLIBC_TUNABLES");
    if ((tun && strstr(tun, "glibc.malloc.")) || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_") ||
        getenv("MALLOC_TOP_PAD_"))
        return;
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
#endif
}

/* Transparent huge pages for large blocks, opt-in: TN_HUGEPAGES=1 (docs/speed_training.md). A
 * training step allocated fresh 100+ MB blocks (the tied embedding's gradient, AdamW's temporaries
 * over it) that glibc maps anew each time (before the large-block cache below); the kernel faults
 * them in one 4 KB page at a time.
 * With the switch, a block of 32 MB or more (glibc's mmap threshold as tuned above) gets
 * MADV_HUGEPAGE on its 2 MB-aligned part before it is first touched: 80% fewer faults in the
 * Llama step and 2.6-3x less CPU time in a micro-benchmark of AdamW's temporaries, but on the
 * shared (virtualised) host measured, some steps then spent far longer in the kernel, so the
 * whole step was not measurably faster and it stays off by default (as upstream's
 * THP_MEM_ALLOC_ENABLE). Addresses and contents are unchanged. */
#define TN_HUGE_MIN ((size_t)32 << 20)
static bool huge_ok;   /* set once at module init (tn_storage_tune_malloc) */

static void huge_init(void) {
    const char *e = getenv("TN_HUGEPAGES");
    huge_ok = e && e[0] == '1';
}

static void advise_huge(char *p, size_t nbytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (nbytes < TN_HUGE_MIN || !p) return;
    if (!huge_ok) return;
    const uintptr_t h = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + h - 1) & ~(h - 1), hi = ((uintptr_t)p + nbytes) & ~(h - 1);
    if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* advice only */
#else
    (void)p; (void)nbytes;
#endif
}

/* Blocks of 32 MB and more (glibc maps each anew, see tn_storage_tune_malloc) are kept for
 * reuse when freed, matched by exact size. A training step frees and allocates the same large
 * blocks every step (the tied embedding's gradient, AdamW's sqrt and division temporaries over
 * it); a fresh mapping costs a page fault and a cleared page per 4 KB: ~100,000 faults and 0.2 s
 * of a 1.7 s SmolLM2-shaped AdamW step (docs/speed_training.md). At most TN_BIG_SLOTS blocks and
 * big_cap bytes wait (TN_BIG_CACHE_MB, default 512; 0 turns the cache off); a newer block replaces
 * the oldest, which goes back to the system. Contents of a reused block are whatever was there,
 * as malloc's. */
#define TN_BIG_MIN ((size_t)32 << 20)
#define TN_BIG_SLOTS 4
static struct { char *p; size_t n; unsigned long age; } big_free[TN_BIG_SLOTS];
static size_t big_held, big_cap = (size_t)512 << 20;
static unsigned long big_clock;
static atomic_flag big_lock = ATOMIC_FLAG_INIT;

static void big_init(void) {
    const char *e = getenv("TN_BIG_CACHE_MB");
    if (e && *e) big_cap = (size_t)strtoull(e, NULL, 10) << 20;
}

static void big_lock_take(void) { while (atomic_flag_test_and_set_explicit(&big_lock, memory_order_acquire)) ; }
static void big_lock_give(void) { atomic_flag_clear_explicit(&big_lock, memory_order_release); }

static char *big_take(size_t nbytes) {
    char *p = NULL;
    big_lock_take();
    for (int i = 0; i < TN_BIG_SLOTS; i++)
        if (big_free[i].p && big_free[i].n == nbytes) {
            p = big_free[i].p;
            big_free[i].p = NULL;
            big_held -= nbytes;
            break;
        }
    big_lock_give();
    return p;
}

/* Keeps p (nbytes) for reuse, or frees it when it is larger than the whole cache. */
static void big_give(char *p, size_t nbytes) {
    char *evicted[TN_BIG_SLOTS];
    int ne = 0;
    if (nbytes > big_cap) { free(p); return; }
    big_lock_take();
    for (;;) {   /* evict the oldest until a slot is free and the bytes fit */
        int slot = -1, n = 0;
        for (int i = 0; i < TN_BIG_SLOTS; i++)
            if (big_free[i].p) {
                n++;
                if (slot < 0 || big_free[i].age < big_free[slot].age) slot = i;
            }
        if (n < TN_BIG_SLOTS && big_held + nbytes <= big_cap) break;
        evicted[ne++] = big_free[slot].p;
        big_held -= big_free[slot].n;
        big_free[slot].p = NULL;
    }
    for (int i = 0; i < TN_BIG_SLOTS; i++)
        if (!big_free[i].p) {
            big_free[i].p = p;
            big_free[i].n = nbytes;
            big_free[i].age = ++big_clock;
            big_held += nbytes;
            break;
        }
    big_lock_give();
    for (int i = 0; i < ne; i++) free(evicted[i]);
}

_Thread_local bool tn_tls_inference_mode;
_Thread_local bool tn_tls_untracked_views;
uint64_t tn_storage_serial = 1;

static inline __attribute__((always_inline)) tn_storage *storage_new(size_t nbytes, tn_device_type device, bool zeroed) {
    tn_storage *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->refcnt = 1;
    s->serial = __atomic_fetch_add(&tn_storage_serial, 1, __ATOMIC_RELAXED);
    s->inference = tn_tls_inference_mode;
    s->resizable = true;
    s->device = device;
    if (device != TN_DEVICE_META && nbytes) {
        s->data = zeroed ? calloc(1, nbytes) : nbytes >= TN_BIG_MIN ? big_take(nbytes) : NULL;
        if (!s->data && !zeroed) s->data = malloc(nbytes);
        if (!s->data) { free(s); return NULL; }
        if (!zeroed) advise_huge(s->data, nbytes);
        if (__builtin_expect(tn_prof_on, 0)) tn_prof_memory((int64_t)nbytes);   /* profile_memory */
    }
    s->nbytes = nbytes;
    return s;
}

tn_storage *tn_storage_new(size_t nbytes, tn_device_type device) { return storage_new(nbytes, device, false); }

tn_storage *tn_storage_new_zeroed(size_t nbytes, tn_device_type device) { return storage_new(nbytes, device, true); }

tn_storage *tn_storage_wrap(char *data, size_t nbytes,
                            void (*release)(void *, char *, size_t), void *ctx) {
    tn_storage *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->refcnt = 1;
    s->serial = __atomic_fetch_add(&tn_storage_serial, 1, __ATOMIC_RELAXED);
    s->data = data;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    s->device = TN_DEVICE_CPU;
    s->inference = tn_tls_inference_mode;
    return s;
}

static void release_alias(void *ctx, char *data, size_t nbytes) {
    tn_storage *owner = ctx;
    owner->aliases--;
    tn_storage_decref(owner);
}

tn_storage *tn_storage_alias(tn_storage *s) {
    s = tn_storage_root(s);
    tn_storage *a = tn_storage_wrap(s->data, s->nbytes, release_alias, s);
    if (!a) return NULL;
    a->device = s->device;
    a->alias_of = s;
    a->inference = s->inference;   /* .data of an inference tensor is one */
    tn_storage_incref(s);
    s->aliases++;
    return a;
}

void tn_storage_decref(tn_storage *s) {
    if (!s || --s->refcnt > 0) return;
    if (s->release) s->release(s->release_ctx, s->data, s->nbytes);
    else {
        if (__builtin_expect(tn_prof_on, 0) && s->data) tn_prof_memory(-(int64_t)s->nbytes);
        if (s->data && s->nbytes >= TN_BIG_MIN) big_give(s->data, s->nbytes);
        else free(s->data);
    }
    if (s->weakcnt > 0) {   /* expired; the struct stays for its weak references */
        s->data = NULL;
        s->nbytes = 0;
        s->release = NULL;
        return;
    }
    free(s);
}

void tn_storage_weak_decref(tn_storage *s) {
    if (!s || --s->weakcnt > 0 || s->refcnt > 0) return;
    free(s);
}

/* Grow s to nbytes: realloc (the new bytes uninitialised), or zeroed: a fresh calloc block (untouched
 * zero pages, for a meta view's possibly large extent) with the old bytes copied in. */
static tn_status storage_grow(tn_storage *s, size_t nbytes, bool zeroed) {
    if (nbytes <= s->nbytes) return TN_OK;
    if (s->device == TN_DEVICE_META) { s->nbytes = nbytes; return TN_OK; }
    if (s->release || s->aliases) return TN_ERR_IO; /* borrowed memory, or memory aliases see, cannot grow */
    char *p;
    if (zeroed) {
        if (!(p = calloc(1, nbytes))) return TN_ERR_NOMEM;
        if (s->nbytes) memcpy(p, s->data, s->nbytes);
        if (s->data && s->nbytes >= TN_BIG_MIN) big_give(s->data, s->nbytes);
        else free(s->data);
    } else {
        if (!(p = realloc(s->data, nbytes))) return TN_ERR_NOMEM;
        advise_huge(p, nbytes);
    }
    if (__builtin_expect(tn_prof_on, 0)) {   /* as a new block and the old one released */
        tn_prof_memory((int64_t)nbytes);
        if (s->nbytes) tn_prof_memory(-(int64_t)s->nbytes);
    }
    s->data = p;
    s->nbytes = nbytes;
    return TN_OK;
}

tn_status tn_storage_resize(tn_storage *s, size_t nbytes) { return storage_grow(s, nbytes, false); }

tn_status tn_storage_grow_zeroed(tn_storage *s, size_t nbytes) { return storage_grow(s, nbytes, true); }

int64_t tn_numel(const tn_tensor *t) {
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++) n *= t->sizes[i];
    return n;
}

bool tn_sizes_numel(int ndim, const int64_t *sizes, int64_t *out) {
    int64_t n = 1;
    if (ndim < 0 || ndim > TN_MAX_DIMS) return false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) return false;
        if (sizes[i] && n > TN_MAX_NUMEL / sizes[i]) return false;
        n *= sizes[i];
    }
    *out = n;
    return true;
}

void tn_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides) {
    /* unsigned: sizes whose product overflows (refused later by the caller) must not be UB here */
    uint64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = (int64_t)s;
        s *= sizes[i] > 1 ? (uint64_t)sizes[i] : 1;
    }
}

bool tn_view_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                       int itemsize, size_t nbytes) {
    int64_t lo = offset, hi = offset, step;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) return false;
        if (sizes[i] == 0) return true;
    }
    for (int i = 0; i < ndim; i++) {
        if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step)) return false;
        if (__builtin_add_overflow(step < 0 ? lo : hi, step, step < 0 ? &lo : &hi)) return false;
    }
    uint64_t need;
    if (lo < 0 || __builtin_mul_overflow((uint64_t)hi + 1, (uint64_t)itemsize, &need)) return false;
    return need <= nbytes;
}

bool tn_extent_bytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                     int itemsize, uint64_t *need) {
    int64_t hi = offset, step;
    bool empty = false;
    if (offset < 0) return false;
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0 || strides[i] < 0) return false;
        if (sizes[i] == 0) empty = true;
    }
    if (empty) { *need = 0; return true; }
    for (int i = 0; i < ndim; i++)
        if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) || __builtin_add_overflow(hi, step, &hi))
            return false;
    if (__builtin_mul_overflow((uint64_t)hi + 1, (uint64_t)itemsize, need)) return false;
    return true;
}

bool tn_is_contiguous(const tn_tensor *t) {
    for (int i = 0; i < t->ndim; i++) /* empty tensors are contiguous whatever their strides */
        if (t->sizes[i] == 0) return true;
    int64_t expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] == 1) continue;
        if (t->strides[i] != expect) return false;
        expect *= t->sizes[i];
    }
    return true;
}

bool tn_is_contiguous_as(const tn_tensor *t, int fmt) {
    static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    if (fmt == 0) return tn_is_contiguous(t);
    if (t->ndim != (fmt == 2 ? 4 : 5)) return false;
    const int *order = fmt == 2 ? order4 : order5;
    int64_t expect = 1;
    for (int i = 0; i < t->ndim; i++) {
        int d = order[i];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expect) return false;
        expect *= t->sizes[d];
    }
    return true;
}

bool tn_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t x = i < n - na ? 1 : a[i - (n - na)];
        int64_t y = i < n - nb ? 1 : b[i - (n - nb)];
        if (x == y || y == 1) out[i] = x;
        else if (x == 1) out[i] = y;
        else return false;
    }
    *nout = n;
    return true;
}
