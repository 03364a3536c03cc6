/* parallel.c — the intra-op thread pool behind tn_parallel_for and torch.{get,set}_num_threads.
 *
 * One job runs at a time. The caller publishes it by storing a 64-bit ticket (generation,
 * chunk count, next chunk) and wakes sleeping workers; every participant, the caller included,
 * claims chunk indices with a compare-and-swap on the ticket, so a worker that wakes late can
 * never claim a chunk of a newer job, and the job completes even if no worker ever wakes (the
 * caller simply runs every chunk). Only as many sleepers as there are chunks are woken. The caller waits for the done counter, spinning briefly, then
 * on a condition variable. Workers spin ~50 µs for the next ticket before sleeping, which keeps
 * back-to-back small jobs in the microseconds without burning a core when idle.
 *
 * Thread counts follow upstream's defaults as measured on torch 2.13.0 (OpenMP + MKL build):
 * MKL_NUM_THREADS, else OMP_NUM_THREADS, capped at the machine's physical cores unless
 * MKL_DYNAMIC=false, else the physical cores of this process's affinity mask. pthread_atfork
 * resets the pool in a child: its threads do not exist there, and it builds a new one lazily. */
#include "core/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

#define TN_MAX_WORKERS 1023
#define TN_SPIN_NS 50000       /* how long workers and the caller spin before sleeping */

/* ---- thread counts ------------------------------------------------------------------------ */

static int count_online(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > TN_MAX_WORKERS + 1 ? TN_MAX_WORKERS + 1 : (int)n;
}

#ifdef __linux__
static long read_sys_long(int cpu, const char *what) {
    char path[128], buf[32];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long v = -1;
    if (fgets(buf, sizeof buf, f)) v = strtol(buf, NULL, 10);
    fclose(f);
    return v;
}

/* distinct (package, core) pairs among the CPUs in `set` (all CPUs when set is NULL); 0 when
 * sysfs does not tell */
static int count_physical(const cpu_set_t *set) {
    static long seen[CPU_SETSIZE];
    int nseen = 0;
    long nconf = sysconf(_SC_NPROCESSORS_CONF);
    if (nconf < 1 || nconf > CPU_SETSIZE) nconf = CPU_SETSIZE;
    for (int c = 0; c < nconf; c++) {
        if (set && !CPU_ISSET(c, set)) continue;
        long core = read_sys_long(c, "core_id"), pkg = read_sys_long(c, "physical_package_id");
        if (core < 0) continue;
        long key = (pkg < 0 ? 0 : pkg) * 1000003L + core;
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = seen[i] == key;
        if (!dup) seen[nseen++] = key;
    }
    return nseen;
}
#endif

static int machine_cores(void) {
#ifdef __linux__
    int n = count_physical(NULL);
    if (n > 0) return n;
#endif
    return count_online();
}

static int affinity_cores(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = count_physical(&set);
        if (n > 0) return n;
        n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    return machine_cores();
}

/* MKL_NUM_THREADS as MKL reads it: unset/empty 0 (not given), "0" 0, no digits or negative 1 */
static long env_mkl(void) {
    const char *s = getenv("MKL_NUM_THREADS");
    if (!s || !*s) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0) return 1;
    return errno ? 1 : v;
}

/* OMP_NUM_THREADS as libgomp reads it: a list of positive integers, the first one counts;
 * anything malformed is ignored (0) */
static long env_omp(void) {
    const char *s = getenv("OMP_NUM_THREADS");
    if (!s) return 0;
    long first = 0;
    for (int i = 0;; i++) {
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '+') s++;
        if (*s < '0' || *s > '9') return 0;
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || v < 1) return 0;
        if (i == 0) first = v;
        s = end;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) return first;
        if (*s++ != ',') return 0;
    }
}

static int default_threads(void) {
    long n = env_mkl();
    if (n < 1) n = env_omp();
    if (n < 1) return affinity_cores();
    const char *dyn = getenv("MKL_DYNAMIC");
    int dynamic = !(dyn && (strcmp(dyn, "false") == 0 || strcmp(dyn, "FALSE") == 0));
    int cores = machine_cores();
    if (dynamic && n > cores) n = cores;
    return n > TN_MAX_WORKERS + 1 ? TN_MAX_WORKERS + 1 : (int)n;
}

static atomic_int num_threads;          /* 0: not yet decided */
static atomic_int num_interop;          /* 0: default, not set */
static atomic_int interop_set;

int tn_get_num_threads(void) {
    int n = atomic_load_explicit(&num_threads, memory_order_relaxed);
    if (n > 0) return n;
    int d = default_threads(), expected = 0;
    atomic_compare_exchange_strong(&num_threads, &expected, d);
    return atomic_load(&num_threads);
}

void tn_set_num_threads(int n) {
    if (n < 1) return;
    if (n > TN_MAX_WORKERS + 1) n = TN_MAX_WORKERS + 1;
    atomic_store(&num_threads, n);
}

int tn_get_num_interop_threads(void) {
    int n = atomic_load(&num_interop);
    return n > 0 ? n : machine_cores();
}

int tn_set_num_interop_threads(int n) {
    if (atomic_exchange(&interop_set, 1)) return -1;
    atomic_store(&num_interop, n < 1 ? 1 : n);
    return 0;
}

/* ---- the pool ----------------------------------------------------------------------------- */

/* ticket: generation (32 bits) | chunk count (16) | next chunk (16) */
#define T_GEN(t) ((uint32_t)((t) >> 32))
#define T_N(t) ((uint32_t)(((t) >> 16) & 0xffff))
#define T_NEXT(t) ((uint32_t)((t) & 0xffff))

static struct {
    pthread_mutex_t submit;            /* held by the thread whose job occupies the pool */
    pthread_mutex_t lock;              /* guards the two condition variables */
    pthread_cond_t wake;               /* workers sleep here for a new ticket */
    pthread_cond_t finished;           /* the caller sleeps here for the last chunk */
    _Atomic uint64_t ticket;
    atomic_int sleepers;               /* workers inside (or about to enter) cond_wait */
    atomic_int spinners;               /* workers spinning for the next ticket */
    atomic_int caller_sleeping;
    atomic_int done;                   /* chunks finished in the current job */
    int nworkers;                      /* under submit */
    /* the current job; written by the caller before the ticket is published, stable until done */
    tn_parallel_fn fn;
    void *ctx;
    int64_t n;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, NULL, NULL, 0};

static _Thread_local int in_region;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

int tn_in_parallel_region(void) { return in_region; }

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* claim and run chunks of generation `gen` until none is left */
static void run_chunks(uint32_t gen) {
    uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    for (;;) {
        if (T_GEN(t) != gen || T_NEXT(t) >= T_N(t)) return;
        if (!atomic_compare_exchange_weak_explicit(&pool.ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        /* chunk i of nc: the job cannot complete (nor its fields change) before we report it */
        int64_t n = pool.n, nc = T_N(t), i = T_NEXT(t);
        int64_t base = n / nc, rem = n % nc;
        int64_t b = i * base + (i < rem ? i : rem), e = b + base + (i < rem ? 1 : 0);
        pool.fn(b, e, pool.ctx);
        if (atomic_fetch_add(&pool.done, 1) + 1 == (int)nc &&   /* seq_cst: pairs with caller_sleeping */
            atomic_load(&pool.caller_sleeping)) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.finished);
            pthread_mutex_unlock(&pool.lock);
        }
        t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
    }
}

static void *worker_main(void *arg) {
    int idx = (int)(intptr_t)arg;
    in_region = 1;   /* anything a job calls from here runs inline */
    uint32_t seen = T_GEN(atomic_load(&pool.ticket));
    for (;;) {
        uint64_t t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
        if (T_GEN(t) == seen) {
            /* workers beyond the current thread count (after set_num_threads lowered it) sleep
             * at once rather than compete for the cores */
            int spin = idx < tn_get_num_threads() - 1;
            int64_t until = spin ? now_ns() + TN_SPIN_NS : 0;
            if (spin) atomic_fetch_add(&pool.spinners, 1);
            for (int k = 1; T_GEN(t) == seen; k++) {
                cpu_relax();
                if ((k & 63) == 0 && now_ns() > until) {
                    if (spin) atomic_fetch_sub(&pool.spinners, 1);
                    spin = 0;
                    pthread_mutex_lock(&pool.lock);
                    atomic_fetch_add(&pool.sleepers, 1);
                    while (T_GEN(t = atomic_load(&pool.ticket)) == seen) pthread_cond_wait(&pool.wake, &pool.lock);
                    atomic_fetch_sub(&pool.sleepers, 1);
                    pthread_mutex_unlock(&pool.lock);
                    break;
                }
                t = atomic_load_explicit(&pool.ticket, memory_order_acquire);
            }
            if (spin) atomic_fetch_sub(&pool.spinners, 1);
        }
        seen = T_GEN(t);
        run_chunks(seen);
    }
    return NULL;
}

static void atfork_child(void) {
    /* the workers did not survive the fork; whatever locks they or another thread held are void */
    pthread_mutex_init(&pool.submit, NULL);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
    atomic_store(&pool.ticket, 0);
    atomic_store(&pool.sleepers, 0);
    atomic_store(&pool.spinners, 0);
    atomic_store(&pool.caller_sleeping, 0);
    atomic_store(&pool.done, 0);
    pool.nworkers = 0;
    in_region = 0;
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, atfork_child); }

/* start workers until `want` exist (called under submit); workers block all signals so Python's
 * handlers keep running on the main thread */
static void grow(int want) {
    if (want > TN_MAX_WORKERS) want = TN_MAX_WORKERS;
    if (pool.nworkers >= want) return;
    pthread_once(&atfork_once, register_atfork);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    while (pool.nworkers < want) {
        pthread_t th;
        if (pthread_create(&th, &attr, worker_main, (void *)(intptr_t)pool.nworkers) != 0) break;   /* run with fewer */
        pool.nworkers++;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void tn_parallel_for(int64_t n, int64_t grain, tn_parallel_fn fn, void *ctx) {
    if (n <= 0) return;
    if (grain < 1) grain = 1;
    int threads = tn_get_num_threads();
    if (threads < 2 || n / 2 < grain || in_region || pthread_mutex_trylock(&pool.submit) != 0) {
        fn(0, n, ctx);
        return;
    }
    int64_t nc = n / grain;
    if (nc > threads) nc = threads;
    grow(threads - 1);
    pool.fn = fn;
    pool.ctx = ctx;
    pool.n = n;
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    uint32_t gen = T_GEN(atomic_load(&pool.ticket)) + 1;
    atomic_store(&pool.ticket, ((uint64_t)gen << 32) | ((uint64_t)nc << 16));
    /* wake as many sleepers as there are chunks no spinning worker will take (a stale count
     * only costs speed: the caller runs whatever nobody claims) */
    int sleeping = atomic_load(&pool.sleepers);
    int need = (int)nc - 1 - atomic_load(&pool.spinners);
    if (sleeping > 0 && need > 0) {
        pthread_mutex_lock(&pool.lock);
        for (int k = 0; k < sleeping && k < need; k++) pthread_cond_signal(&pool.wake);
        pthread_mutex_unlock(&pool.lock);
    }
    in_region = 1;
    run_chunks(gen);
    in_region = 0;
    if (atomic_load_explicit(&pool.done, memory_order_acquire) < nc) {
        int64_t until = now_ns() + TN_SPIN_NS;
        for (int k = 1; atomic_load_explicit(&pool.done, memory_order_acquire) < nc; k++) {
            cpu_relax();
            if ((k & 63) == 0 && now_ns() > until) {
                pthread_mutex_lock(&pool.lock);
                atomic_store(&pool.caller_sleeping, 1);
                while (atomic_load(&pool.done) < nc) pthread_cond_wait(&pool.finished, &pool.lock);
                atomic_store(&pool.caller_sleeping, 0);
                pthread_mutex_unlock(&pool.lock);
                break;
            }
        }
    }
    pthread_mutex_unlock(&pool.submit);
}
