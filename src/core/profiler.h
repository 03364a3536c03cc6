/* profiler.h — the event recorder behind torch.profiler (no Python: core/ only).
 *
 * While a profiling session is on (tn_prof_on), the door (dispatch/door.c) records one event per
 * operator call, the engine (autograd/engine.c) one pair per backward node, and the
 * record_function scopes (ops/profiler.c) one per scope: a name, start and end times (ns, the
 * wall clock, as upstream's Kineto timestamps), the thread, the autograd sequence number and,
 * with record_shapes, the inputs (shapes, dtypes, the concrete values of scalars). Appends are
 * thread-safe (one mutex); an event is addressed by a handle that stays valid after the session
 * stopped (a late tn_prof_end is ignored). The Python face (python/profiler.c) turns a finished
 * session into _ProfilerResult / _KinetoEvent objects. docs/profiler.md. */
#ifndef TN_CORE_PROFILER_H
#define TN_CORE_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* nonzero while a session collects: the door's one branch reads it */
extern int tn_prof_on;

/* upstream's at::RecordScope values */
enum { TN_PROF_SCOPE_FUNCTION = 0, TN_PROF_SCOPE_BACKWARD_FUNCTION = 1, TN_PROF_SCOPE_USER = 7 };
/* what an event is: an operator / backward scope (cpu_op), a record_function scope
 * (user_annotation), a call of the Python tracer (python_function, with_stack) */
enum { TN_PROF_KIND_OP = 0, TN_PROF_KIND_USER = 1, TN_PROF_KIND_MEMORY = 2, TN_PROF_KIND_PY = 3 };

/* One recorded input (upstream's IValue kinds as the profiler lists them). */
typedef enum {
    TN_PI_NONE,        /* None: dtype "" */
    TN_PI_TENSOR,      /* shape and dtype */
    TN_PI_INT,         /* "Scalar" with an int value (also dtype / layout / memory format codes) */
    TN_PI_FLOAT,       /* "Scalar" with a float value */
    TN_PI_BOOL,        /* "Scalar" with a bool value */
    TN_PI_INTLIST,     /* "ScalarList" with its ints */
    TN_PI_FLOATLIST,   /* "ScalarList" with its floats */
    TN_PI_TENSORLIST,  /* "TensorList" */
    TN_PI_STRING,      /* "String" */
    TN_PI_OTHER,       /* anything else: dtype "" and no value */
} tn_prof_input_kind;

typedef struct {
    uint8_t kind;
    int16_t dtype;     /* TN_PI_TENSOR: a tn_dtype */
    int32_t n;         /* TENSOR: ndim; INTLIST / FLOATLIST: length */
    union { int64_t i; double f; } v;
    int64_t *ints;     /* TENSOR: sizes; INTLIST: values (owned) */
    double *floats;    /* FLOATLIST: values (owned) */
} tn_prof_input;

typedef struct {
    char *name;                /* owned */
    const char *overload;      /* static text (the op table) or "" */
    int64_t start_ns, end_ns;  /* end_ns < 0: not ended */
    int64_t seq;               /* autograd sequence number, -1 none */
    uint64_t tid, end_tid, fwd_tid;
    uint64_t corr;             /* correlation id: one count per process */
    int scope, kind;
    int64_t nbytes;            /* TN_PROF_KIND_MEMORY: bytes allocated (> 0) or freed (< 0) */
    int64_t py_id, py_parent;  /* TN_PROF_KIND_PY: the tracer's ids (1, 2, ...; parent -1: none) */
    int64_t py_module;         /* TN_PROF_KIND_PY: an nn.Module call's per-class index, else -1 */
    int ninputs;               /* -1: inputs not recorded */
    tn_prof_input *inputs;     /* owned */
} tn_prof_event;

typedef struct {
    tn_prof_event *ev;
    size_t n;
    int64_t start_ns;
    char *metadata;            /* "key": value, ... pairs joined (owned, may be NULL) */
} tn_prof_session;

/* Start a session (0), or -1 when one is on already. with_flops keeps the inputs too (the FLOP
 * estimate reads their shapes) without listing them as the event's shapes. */
/* all_threads: record every thread's operators (else the caller's only). */
int tn_prof_start(bool record_shapes, bool with_flops, bool profile_memory, bool all_threads);
/* Stop the session and hand its events over (ownership to *out; -1 when none was on). */
int tn_prof_stop(tn_prof_session *out);
void tn_prof_session_free(tn_prof_session *s);
bool tn_prof_record_shapes(void);
bool tn_prof_with_flops(void);
/* the door and the engine keep an event's inputs: record_shapes or with_flops */
bool tn_prof_record_inputs(void);
/* Metadata for the trace (_add_metadata_json): key and a JSON value text. 0, -1 on no memory. */
int tn_prof_add_metadata(const char *key, const char *json_value);

/* Open an event now: its handle (>= 0) or -1 (no session, no memory, or another thread than the
 * session's without all_threads: upstream's callbacks are thread-local). name is copied. */
int64_t tn_prof_begin(const char *name, const char *overload, int scope, int kind, int64_t seq, uint64_t fwd_tid);
/* A Python tracer event (python/profiler_pytrace.c): like tn_prof_begin with its own start time
 * (a frame already running when the session started begins at the session's start) and thread
 * (tid 0: the caller's; a frame of another thread running at the start: that thread's). Recorded
 * on any thread. */
int64_t tn_prof_begin_py(uint64_t tid, const char *name, int64_t start_ns, int64_t py_id, int64_t py_parent, int64_t py_module);
/* the session's start (ns) */
int64_t tn_prof_session_start(void);
/* Attach inputs (ownership passes; freed when the handle is stale). */
void tn_prof_set_inputs(int64_t h, tn_prof_input *in, int n);
void tn_prof_end(int64_t h);
/* profile_memory: a "[memory]" instant event for a CPU allocation (nbytes > 0) or release (< 0);
 * core/tensor.c calls it for storages when tn_prof_on. */
void tn_prof_memory(int64_t nbytes);
bool tn_prof_profile_memory(void);
void tn_prof_inputs_free(tn_prof_input *in, int n);
/* Fill p with a tensor's dtype, sizes and strides (on no memory: the dtype only). */
struct tn_tensor;
void tn_prof_input_tensor(tn_prof_input *p, const struct tn_tensor *t);

/* upstream's RecordFunction thread id: 1, 2, ... in order of a thread's first event */
uint64_t tn_prof_thread_id(void);
/* the id of the thread with that identity (pthread_self(), Python's threading.get_ident()), 0 when
 * it has none yet */
uint64_t tn_prof_thread_id_of(uint64_t ident);
/* the session's events on thread `from` move to thread `to` */
void tn_prof_retag(uint64_t from, uint64_t to);
/* the OS thread id (Kineto's device_resource_id / the trace's tid) */
int64_t tn_prof_os_tid(void);
/* the OS thread id of the thread with that recorder id, 0 when unknown (upstream's trace writes 0
 * for a thread the Python tracer saw only at the start); name (may be NULL): the thread's name
 * when it got its id */
int64_t tn_prof_os_tid_of(uint64_t tid, char name[16]);
int64_t tn_prof_now_ns(void);

/* Below an operator's kernel (its own calls do not pass the autograd key upstream): the door
 * sets it around a kernel while a session is on; returns the previous value. */
int tn_prof_set_below(int below);
int tn_prof_below(void);
/* Calls upstream makes without its dispatcher's RecordFunction (the detach of a saved output,
 * SavedVariable's unpack) are not events: set around them; returns the previous value. */
int tn_prof_set_hidden(int hidden);
int tn_prof_hidden(void);
/* Inside an operator or the backward engine (a call made from C, not from Python's bindings):
 * set by the door and the engine while a session is on; returns the previous value. */
int tn_prof_set_nested(int nested);
int tn_prof_nested(void);

#endif
