/* profiler.c — the event recorder (core/profiler.h; docs/profiler.md). */
#include "core/profiler.h"
#include "core/tensor.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
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
static _Thread_local int below, hidden, nested;

int64_t tn_prof_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

uint64_t tn_prof_thread_id(void) {
    if (!my_tid) {
        pthread_mutex_lock(&mu);
        my_tid = next_tid++;
        pthread_mutex_unlock(&mu);
    }
    return my_tid;
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
}

int tn_prof_start(bool record_shapes, bool with_flops, bool profile_memory) {
    static bool fork_hook;
    if (!fork_hook) fork_hook = pthread_atfork(NULL, NULL, after_fork_child) == 0;
    pthread_mutex_lock(&mu);
    if (tn_prof_on) { pthread_mutex_unlock(&mu); return -1; }
    evs = NULL, nev = cap = 0;
    shapes = record_shapes, flops = with_flops, memory = profile_memory;
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

int64_t tn_prof_begin(const char *name, const char *overload, int scope, int kind, int64_t seq, uint64_t fwd_tid) {
    uint64_t tid = tn_prof_thread_id();
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

int64_t tn_prof_session_start(void) { return session_start; }

int64_t tn_prof_begin_py(const char *name, int64_t start_ns, int64_t py_id, int64_t py_parent, int64_t py_module) {
    int64_t h = tn_prof_begin(name, "", TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_PY, -1, 0);
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
