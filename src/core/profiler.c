/* profiler.c — the event recorder (core/profiler.h; docs/profiler.md). */
#include "core/profiler.h"
#include "core/tensor.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

int tn_prof_on;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tn_prof_event *evs;
static size_t nev, cap;
static uint32_t generation;          /* handles carry the session's generation */
static bool shapes, flops, memory;
static int64_t session_start;
static char *meta;
static uint64_t next_corr = 1;
static uint64_t next_tid = 1;
static _Thread_local uint64_t my_tid;
static uint64_t session_tid;         /* the thread that started the session */
static bool all_threads;             /* _ExperimentalConfig(profile_all_threads=True) */
/* the ids given so far, by thread identity (pthread_self, Python's thread ident): the Python
 * tracer names the threads running at the session's start from the session's thread */
static struct { uint64_t ident, tid; } *idents;
static size_t nidents, capidents;
static int64_t *os_tids;             /* [id]: that thread's OS thread id (the trace's tid) */
static char (*os_names)[16];         /* [id]: that thread's name then (prctl PR_GET_NAME) */
static size_t nos_tids;
static _Thread_local int below, hidden, nested;

int64_t tn_prof_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t tid_of(uint64_t ident) {   /* under mu */
    for (size_t i = 0; i < nidents; i++)
        if (idents[i].ident == ident) return idents[i].tid;
    if (nidents == capidents) {
        size_t nc = capidents ? 2 * capidents : 16;
        void *ni = realloc(idents, nc * sizeof *idents);
        if (!ni) return next_tid++;   /* (unnamed: a fresh id) */
        idents = ni, capidents = nc;
    }
    idents[nidents].ident = ident, idents[nidents].tid = next_tid++;
    return idents[nidents++].tid;
}

/* a thread's exit drops its identity (a later thread may reuse it: it gets a new id, as upstream) */
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void forget_thread(void *ident) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nidents; i++)
        if (idents[i].ident == (uint64_t)(uintptr_t)ident) { idents[i] = idents[--nidents]; break; }
    pthread_mutex_unlock(&mu);
}
static void make_exit_key(void) { (void)pthread_key_create(&exit_key, forget_thread); }

uint64_t tn_prof_thread_id(void) {
    if (!my_tid) {
        pthread_once(&exit_once, make_exit_key);
        uint64_t self = (uint64_t)pthread_self();
        pthread_mutex_lock(&mu);
        my_tid = tid_of(self);
        if (my_tid >= nos_tids) {
            size_t nc = my_tid + 16;
            int64_t *no = realloc(os_tids, nc * sizeof *no);
            if (no) os_tids = no;
            char (*nn)[16] = no ? realloc(os_names, nc * sizeof *nn) : NULL;
            if (nn) {
                memset(no + nos_tids, 0, (nc - nos_tids) * sizeof *no);
                memset(nn + nos_tids, 0, (nc - nos_tids) * sizeof *nn);
                os_names = nn, nos_tids = nc;
            }
        }
        if (my_tid < nos_tids) {
            os_tids[my_tid] = tn_prof_os_tid();
            if (prctl(PR_GET_NAME, os_names[my_tid]) != 0) os_names[my_tid][0] = 0;
            os_names[my_tid][15] = 0;
        }
        pthread_mutex_unlock(&mu);
        (void)pthread_setspecific(exit_key, (void *)(uintptr_t)self);
    }
    return my_tid;
}

uint64_t tn_prof_thread_id_of(uint64_t ident) {
    if (ident == (uint64_t)pthread_self()) return tn_prof_thread_id();
    uint64_t t = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nidents && !t; i++)
        if (idents[i].ident == ident) t = idents[i].tid;
    pthread_mutex_unlock(&mu);
    return t;
}

int64_t tn_prof_os_tid_of(uint64_t tid, char name[16]) {
    pthread_mutex_lock(&mu);
    int64_t t = tid < nos_tids ? os_tids[tid] : 0;
    if (name) {
        if (t) memcpy(name, os_names[tid], 16);
        else name[0] = 0;
    }
    pthread_mutex_unlock(&mu);
    return t;
}

void tn_prof_retag(uint64_t from, uint64_t to) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; tn_prof_on && i < nev; i++) {
        if (evs[i].tid == from) evs[i].tid = to;
        if (evs[i].end_tid == from) evs[i].end_tid = to;
    }
    pthread_mutex_unlock(&mu);
}

int64_t tn_prof_os_tid(void) { return (int64_t)syscall(SYS_gettid); }

int tn_prof_set_below(int b) { int was = below; below = b; return was; }
int tn_prof_below(void) { return below; }
int tn_prof_set_hidden(int h) { int was = hidden; hidden = h; return was; }
int tn_prof_hidden(void) { return hidden; }
int tn_prof_set_nested(int n) { int was = nested; nested = n; return was; }
int tn_prof_nested(void) { return nested; }

bool tn_prof_record_shapes(void) { return shapes; }
bool tn_prof_with_flops(void) { return flops; }
bool tn_prof_profile_memory(void) { return memory; }
bool tn_prof_record_inputs(void) { return shapes || flops; }

void tn_prof_inputs_free(tn_prof_input *in, int n) {
    for (int i = 0; in && i < n; i++) { free(in[i].ints); free(in[i].floats); }
    free(in);
}

void tn_prof_input_tensor(tn_prof_input *p, const tn_tensor *t) {
    p->kind = TN_PI_TENSOR, p->dtype = (int16_t)t->dtype, p->n = t->ndim;   /* sizes, then strides */
    if (t->ndim && (p->ints = malloc(2 * (size_t)t->ndim * sizeof *p->ints))) {
        memcpy(p->ints, t->sizes, (size_t)t->ndim * sizeof *p->ints);
        memcpy(p->ints + t->ndim, t->strides, (size_t)t->ndim * sizeof *p->ints);
    } else if (t->ndim) p->n = 0;
}

static void free_events(tn_prof_event *e, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(e[i].name);
        if (e[i].ninputs > 0) tn_prof_inputs_free(e[i].inputs, e[i].ninputs);
        else free(e[i].inputs);
    }
    free(e);
}

/* A forked child (a DataLoader worker) does not inherit the session: its copy of the events
 * belongs to the parent, and the lock may have been held by another thread at the fork. */
static void after_fork_child(void) {
    pthread_mutex_init(&mu, NULL);
    tn_prof_on = 0;
    evs = NULL, nev = cap = 0, meta = NULL;   /* the parent's memory, not freed here */
    generation++;
    /* the child's one thread keeps its id; the others' are gone */
    uint64_t mine = my_tid, self = (uint64_t)pthread_self();
    idents = NULL, nidents = capidents = 0;
    if (mine && (idents = malloc(sizeof *idents))) idents[0].ident = self, idents[0].tid = mine, nidents = capidents = 1;
    if (mine && mine < nos_tids) os_tids[mine] = tn_prof_os_tid();
}

int tn_prof_start(bool record_shapes, bool with_flops, bool profile_memory, bool every_thread) {
    static bool fork_hook;
    if (!fork_hook) fork_hook = pthread_atfork(NULL, NULL, after_fork_child) == 0;
    uint64_t me = tn_prof_thread_id();
    pthread_mutex_lock(&mu);
    if (tn_prof_on) { pthread_mutex_unlock(&mu); return -1; }
    evs = NULL, nev = cap = 0;
    shapes = record_shapes, flops = with_flops, memory = profile_memory;
    session_tid = me, all_threads = every_thread;
    generation++;
    session_start = tn_prof_now_ns();
    free(meta);
    meta = NULL;
    tn_prof_on = 1;
    pthread_mutex_unlock(&mu);
    return 0;
}

int tn_prof_stop(tn_prof_session *out) {
    pthread_mutex_lock(&mu);
    if (!tn_prof_on) { pthread_mutex_unlock(&mu); return -1; }
    tn_prof_on = 0;
    generation++;                    /* handles still open become stale */
    int64_t now = tn_prof_now_ns();
    for (size_t i = 0; i < nev; i++)  /* still open (a scope left running): ends now */
        if (evs[i].end_ns < 0) evs[i].end_ns = now, evs[i].end_tid = evs[i].tid;
    /* upstream's post-processing: an "autograd::engine::evaluate_function: X" event takes the
     * sequence number and forward thread of the backward node event that follows it directly on
     * its thread (none when a hook's op comes first) */
    for (size_t i = 0; i < nev; i++) {
        if (strncmp(evs[i].name, "autograd::engine::evaluate_function", 35)) continue;
        size_t j = i + 1;
        while (j < nev && evs[j].tid != evs[i].tid) j++;
        bool node = j < nev && evs[j].scope == TN_PROF_SCOPE_BACKWARD_FUNCTION;
        evs[i].seq = node ? evs[j].seq : -1;
        evs[i].fwd_tid = node ? evs[j].fwd_tid : 0;
    }
    out->ev = evs, out->n = nev, out->start_ns = session_start, out->metadata = meta;
    evs = NULL, nev = cap = 0, meta = NULL;
    pthread_mutex_unlock(&mu);
    return 0;
}

void tn_prof_session_free(tn_prof_session *s) {
    free_events(s->ev, s->n);
    free(s->metadata);
    s->ev = NULL, s->n = 0, s->metadata = NULL;
}

int tn_prof_add_metadata(const char *key, const char *json_value) {
    pthread_mutex_lock(&mu);
    size_t old = meta ? strlen(meta) : 0, add = strlen(key) + strlen(json_value) + 8;
    char *m = realloc(meta, old + add);
    if (!m) { pthread_mutex_unlock(&mu); return -1; }
    meta = m;
    /* stored as lines key \t value; the trace writer escapes the key */
    snprintf(meta + old, add, "%s\t%s\n", key, json_value);
    pthread_mutex_unlock(&mu);
    return 0;
}

static tn_prof_event *lookup(int64_t h);

#define HANDLE(gen, idx) ((int64_t)(((uint64_t)(gen) << 32) | (uint64_t)(idx)))

static int64_t begin_on(uint64_t tid, const char *name, const char *overload, int scope, int kind, int64_t seq, uint64_t fwd_tid) {
    char *nm = strdup(name);
    if (!nm) return -1;
    int64_t t = tn_prof_now_ns();
    pthread_mutex_lock(&mu);
    if (!tn_prof_on || nev >= 0xffffffffu) { pthread_mutex_unlock(&mu); free(nm); return -1; }
    if (nev == cap) {
        size_t nc = cap ? cap * 2 : 1024;
        tn_prof_event *ne = realloc(evs, nc * sizeof *ne);
        if (!ne) { pthread_mutex_unlock(&mu); free(nm); return -1; }
        evs = ne, cap = nc;
    }
    tn_prof_event *e = &evs[nev];
    *e = (tn_prof_event){nm, overload ? overload : "", t, -1, seq, tid, tid, fwd_tid,
                         kind == TN_PROF_KIND_MEMORY || kind == TN_PROF_KIND_PY ? 0 : next_corr++, scope, kind, 0, -1, -1, -1, -1, NULL};
    int64_t h = HANDLE(generation, nev);
    nev++;
    pthread_mutex_unlock(&mu);
    return h;
}

/* Upstream's profiler callbacks are thread-local: operators, scopes and allocations on another
 * thread than the session's are not events, unless profile_all_threads (docs/profiler.md). */
int64_t tn_prof_begin(const char *name, const char *overload, int scope, int kind, int64_t seq, uint64_t fwd_tid) {
    uint64_t tid = tn_prof_thread_id();
    if (tid != session_tid && !all_threads) return -1;
    return begin_on(tid, name, overload, scope, kind, seq, fwd_tid);
}

int64_t tn_prof_session_start(void) { return session_start; }

int64_t tn_prof_begin_py(uint64_t tid, const char *name, int64_t start_ns, int64_t py_id, int64_t py_parent, int64_t py_module) {
    int64_t h = begin_on(tid ? tid : tn_prof_thread_id(), name, "", TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_PY, -1, 0);
    if (h < 0) return h;
    pthread_mutex_lock(&mu);
    tn_prof_event *e = lookup(h);
    if (e) e->start_ns = start_ns, e->py_id = py_id, e->py_parent = py_parent, e->py_module = py_module;
    pthread_mutex_unlock(&mu);
    return h;
}

static tn_prof_event *lookup(int64_t h) {   /* under mu */
    if (h < 0 || (uint32_t)((uint64_t)h >> 32) != generation) return NULL;
    size_t i = (size_t)((uint64_t)h & 0xffffffffu);
    return i < nev ? &evs[i] : NULL;
}

void tn_prof_set_inputs(int64_t h, tn_prof_input *in, int n) {
    pthread_mutex_lock(&mu);
    tn_prof_event *e = lookup(h);
    if (e) e->inputs = in, e->ninputs = n;
    pthread_mutex_unlock(&mu);
    if (!e) tn_prof_inputs_free(in, n);
}

void tn_prof_memory(int64_t nbytes) {
    if (!memory) return;
    int64_t h = tn_prof_begin("[memory]", "", TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_MEMORY, -1, 0);
    if (h < 0) return;
    pthread_mutex_lock(&mu);
    tn_prof_event *e = lookup(h);
    if (e) e->nbytes = nbytes, e->end_ns = e->start_ns;
    pthread_mutex_unlock(&mu);
}

void tn_prof_end(int64_t h) {
    if (h < 0) return;
    int64_t t = tn_prof_now_ns();
    uint64_t tid = tn_prof_thread_id();
    pthread_mutex_lock(&mu);
    tn_prof_event *e = lookup(h);
    if (e) e->end_ns = t, e->end_tid = tid;
    pthread_mutex_unlock(&mu);
}
