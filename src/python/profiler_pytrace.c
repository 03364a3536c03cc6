/* profiler_pytrace.c — the Python tracer of torch.profiler's with_stack=True (docs/profiler.md).
 *
 * While a session with with_stack is on, a profile function (sys.setprofile: PyEval_SetProfile is
 * not in the limited API) records one python_function event per Python call ("file(line): name",
 * the file trimmed by torch.profiler.python_tracer._prefix_regex() as upstream, the line the
 * frame's at the call), per C call (the callable's repr) and per
 * nn.Module call ("nn.Module: <Class>_<k>", k the instance's index among its class's modules seen,
 * in place of Module.__call__'s own frame). The frames already running when the session starts,
 * on every thread (sys._current_frames(), newest thread first as upstream's walk of the
 * interpreter's threads), are events from the session's start on their threads; they end where
 * they return or at the stop. Only the thread that started the session is traced further
 * (upstream also traces the other threads running at the start: the limited API of 3.11 has no
 * way to install a profile function on another thread). Without with_stack nothing is installed:
 * no cost. */
#include "python/common.h"

#include <stdlib.h>
#include <string.h>

#include "core/profiler.h"
#include "python/profiler_pytrace.h"

typedef struct {
    int64_t h, id;
    bool c;   /* a C call: ends at c_return / c_exception */
} open_call;

typedef struct {
    unsigned long ident;   /* the Python thread identity */
    uint64_t tid;          /* the recorder's id of that thread (provisional: see resolve_tids) */
    bool provisional;
    open_call *stk;
    size_t n, cap;
} thread_calls;

static thread_calls *threads;   /* the threads running at the start; [0] the session's */
static size_t nthreads;
static int64_t next_id;
static PyObject *names;        /* code object -> its file name, trimmed */
static PyObject *prefixes;     /* list of str */
static PyObject *module_code;  /* torch.nn.Module.__call__.__code__ */
static PyObject *module_ids;   /* class -> {id(module): k} */
static PyObject *tracer;       /* the profile function */
static PyObject *vf_class;     /* torch._C._VariableFunctionsClass */
static PyObject *vf_funcs;     /* torch._C._VariableFunctions */
static bool on;

/* "file(line): name", the line the frame's now (a call: the first line; a generator resumed: where
 * it resumes); the trimmed file is kept per code object */
static PyObject *frame_name(PyObject *frame) {
    PyObject *code = PyObject_GetAttrString(frame, "f_code");
    if (!code) return NULL;
    PyObject *file = PyDict_GetItemWithError(names, code);
    Py_XINCREF(file);
    if (!file && !PyErr_Occurred() && (file = PyObject_GetAttrString(code, "co_filename")) && PyUnicode_Check(file)) {
        Py_ssize_t n = PyList_Size(prefixes);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *p = PyList_GetItem(prefixes, i);
            if (PyUnicode_Tailmatch(file, p, 0, PY_SSIZE_T_MAX, -1) == 1) {
                PyObject *rest = PyUnicode_Substring(file, PyUnicode_GetLength(p), PY_SSIZE_T_MAX);
                Py_DECREF(file);
                file = rest;
                break;
            }
        }
        if (file && PyDict_SetItem(names, code, file) < 0) Py_CLEAR(file);
    }
    PyObject *fn = file ? PyObject_GetAttrString(code, "co_name") : NULL;
    PyObject *line = fn ? PyObject_GetAttrString(frame, "f_lineno") : NULL;
    PyObject *name = line ? PyUnicode_FromFormat("%S(%S): %S", file, line, fn) : NULL;
    Py_XDECREF(file); Py_XDECREF(fn); Py_XDECREF(line); Py_DECREF(code);
    return name;
}

/* "nn.Module: Linear_0" for a call of Module.__call__ (its first local is the module), else NULL
 * without an error */
static PyObject *module_name(PyObject *frame, int64_t *k) {
    PyObject *code = PyObject_GetAttrString(frame, "f_code");
    bool is_call = code && code == module_code;
    Py_XDECREF(code);
    if (!is_call) { PyErr_Clear(); return NULL; }
    PyObject *locals = PyObject_GetAttrString(frame, "f_locals");
    PyObject *self = locals ? PyMapping_GetItemString(locals, "self") : NULL;
    Py_XDECREF(locals);
    if (!self) { PyErr_Clear(); return NULL; }
    PyObject *cls = (PyObject *)Py_TYPE(self), *key = PyLong_FromVoidPtr(self), *name = NULL;
    PyObject *ids = PyDict_GetItemWithError(module_ids, cls);
    if (!ids && !PyErr_Occurred() && (ids = PyDict_New())) {
        if (PyDict_SetItem(module_ids, cls, ids) < 0) Py_CLEAR(ids);
        else Py_DECREF(ids);   /* the dict holds it */
    }
    PyObject *idx = ids && key ? PyDict_GetItemWithError(ids, key) : NULL;
    if (ids && key && !idx && !PyErr_Occurred()) {
        PyObject *v = PyLong_FromSsize_t(PyDict_Size(ids));
        if (v && PyDict_SetItem(ids, key, v) == 0) idx = v;
        Py_XDECREF(v);   /* the dict holds it */
    }
    PyObject *cname = PyObject_GetAttrString(cls, "__name__");
    if (idx && cname) {
        *k = PyLong_AsLongLong(idx);
        name = PyUnicode_FromFormat("nn.Module: %U_%S", cname, idx);
    }
    Py_XDECREF(cname); Py_XDECREF(key); Py_DECREF(self);
    if (!name) PyErr_Clear();
    return name;
}

/* A C call's name: its repr, except for our operator functions and torch.<fn>: upstream's
 * torch.<fn> (torch._C._VariableFunctions) is a static method of _VariableFunctionsClass, its
 * torch._C._nn.<op> and the other submodules' operators module functions. */
static PyObject *c_name(PyObject *f) {
    PyObject *name = PyCFunction_Check(f) ? PyObject_GetAttrString(f, "__name__") : NULL, *r = NULL;
    PyObject *vf = name && PyUnicode_Check(name) ? PyObject_GetAttr(vf_funcs, name) : NULL;
    PyErr_Clear();
    if (vf == f) r = PyUnicode_FromFormat("<built-in method %U of type object at %p>", name, (void *)vf_class);
    else if (name && tn_py_is_op_function(f)) {   /* torch.ops' "ns::op": the op's own name */
        const char *nm = PyUnicode_AsUTF8AndSize(name, NULL), *colons = nm ? strstr(nm, "::") : NULL;
        r = nm ? PyUnicode_FromFormat("<built-in function %s>", colons ? colons + 2 : nm) : NULL;
    }
    else r = PyObject_Repr(f);
    Py_XDECREF(name); Py_XDECREF(vf);
    return r;
}

static void push(thread_calls *t, PyObject *name, bool c, int64_t start, int64_t module) {
    const char *s = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!s) { PyErr_Clear(); s = "<unknown>"; }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 64;
        open_call *ns = realloc(t->stk, nc * sizeof *ns);
        if (!ns) return;
        t->stk = ns, t->cap = nc;
    }
    int64_t id = ++next_id;
    int64_t h = tn_prof_begin_py(t->tid, s, start ? start : tn_prof_now_ns(), id, t->n ? t->stk[t->n - 1].id : -1, module);
    t->stk[t->n++] = (open_call){h, id, c};
}

static void pop(thread_calls *t, bool c) {
    if (t->n && t->stk[t->n - 1].c == c) tn_prof_end(t->stk[--t->n].h);
}

static void call_event(thread_calls *t, PyObject *frame, int64_t start) {
    int64_t k = -1;
    PyObject *name = module_name(frame, &k);
    if (!name) name = frame_name(frame);
    push(t, name, false, start, k);
    Py_XDECREF(name);
}

/* the profile function: (frame, event, arg) */
static PyObject *trace(PyObject *m, PyObject *args) {
    PyObject *frame, *event, *arg;
    /* (a tracer left installed on a thread that started an earlier session stays silent) */
    thread_calls *t = NULL;
    unsigned long me = PyThread_get_thread_ident();
    for (size_t i = 0; on && i < nthreads && !t; i++)
        if (threads[i].ident == me) t = &threads[i];
    if (!t || !PyArg_ParseTuple(args, "OUO", &frame, &event, &arg)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!PyUnicode_CompareWithASCIIString(event, "call")) call_event(t, frame, 0);
    else if (!PyUnicode_CompareWithASCIIString(event, "return")) pop(t, false);
    else if (!PyUnicode_CompareWithASCIIString(event, "c_call")) {
        PyObject *r = c_name(arg);
        push(t, r, true, 0, -1);
        Py_XDECREF(r);
    } else pop(t, true);   /* c_return, c_exception */
    PyErr_Clear();
    Py_RETURN_NONE;
}

static PyMethodDef trace_def = {"_profiler_python_tracer", trace, METH_VARARGS, NULL};

static int set_profile(PyObject *fn) {
    PyObject *sys = PyImport_ImportModule("sys");
    PyObject *r = sys ? PyObject_CallMethod(sys, "setprofile", "O", fn) : NULL;
    Py_XDECREF(sys);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* a thread's frames running now, outermost first, as events from now (upstream: one time each) */
static void push_running(thread_calls *t, PyObject *frame) {
    if (!frame || frame == Py_None) return;
    PyObject *back = PyObject_GetAttrString(frame, "f_back");
    if (!back) PyErr_Clear();
    push_running(t, back);
    Py_XDECREF(back);
    call_event(t, frame, tn_prof_now_ns());
}

/* every thread's running frames, in the order of sys._current_frames() (the interpreter's list of
 * threads, newest first, as upstream walks it) */
static int push_all_running(void) {
    PyObject *sys = PyImport_ImportModule("sys");
    PyObject *frames = sys ? PyObject_CallMethod(sys, "_current_frames", NULL) : NULL;
    Py_XDECREF(sys);
    Py_ssize_t n = frames && PyDict_Check(frames) ? PyDict_Size(frames) : -1;
    unsigned long me = PyThread_get_thread_ident();
    if (n < 0 || !(threads = calloc((size_t)n + 1, sizeof *threads))) {
        Py_XDECREF(frames);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    threads[0] = (thread_calls){me, tn_prof_thread_id(), false, NULL, 0, 0};
    nthreads = 1;
    PyObject *key, *frame;
    Py_ssize_t pos = 0;
    while (PyDict_Next(frames, &pos, &key, &frame)) {
        unsigned long ident = PyLong_AsUnsignedLong(key);
        if (PyErr_Occurred()) { PyErr_Clear(); continue; }
        thread_calls *t = &threads[0];
        if (ident != me) {
            t = &threads[nthreads++];
            uint64_t tid = tn_prof_thread_id_of(ident);
            *t = (thread_calls){ident, tid ? tid : UINT64_MAX - nthreads, !tid, NULL, 0, 0};
        }
        push_running(t, frame);
    }
    Py_DECREF(frames);
    return 0;
}

int tn_pytrace_start(void) {
    tn_pytrace_stop();
    PyObject *pt = PyImport_ImportModule("torch.profiler.python_tracer");
    prefixes = pt ? PyObject_CallMethod(pt, "_prefix_regex", NULL) : NULL;
    Py_XDECREF(pt);
    PyObject *nn = prefixes ? PyImport_ImportModule("torch.nn") : NULL;
    PyObject *mod = nn ? PyObject_GetAttrString(nn, "Module") : NULL, *call = mod ? PyObject_GetAttrString(mod, "__call__") : NULL;
    module_code = call ? PyObject_GetAttrString(call, "__code__") : NULL;
    Py_XDECREF(nn); Py_XDECREF(mod); Py_XDECREF(call);
    PyObject *C = module_code ? PyImport_ImportModule("torch._C") : NULL;
    vf_class = C ? PyObject_GetAttrString(C, "_VariableFunctionsClass") : NULL;
    vf_funcs = vf_class ? PyObject_GetAttrString(C, "_VariableFunctions") : NULL;
    Py_XDECREF(C);
    names = vf_funcs ? PyDict_New() : NULL;
    module_ids = names ? PyDict_New() : NULL;
    tracer = module_ids ? PyCFunction_New(&trace_def, NULL) : NULL;
    if (!tracer || !PyList_Check(prefixes)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torch.profiler: the Python tracer could not start");
        tn_pytrace_stop();
        return -1;
    }
    if (push_all_running() < 0) { tn_pytrace_stop(); return -1; }
    on = true;
    if (set_profile(tracer) < 0) { on = false; tn_pytrace_stop(); return -1; }
    return 0;
}

/* Upstream names another thread's Python events, at the stop, by the thread's RecordFunction id,
 * and UINT64_MAX (-1) when that thread never got one (measured, docs/profiler.md): a thread with
 * no id at the start is recorded under a provisional one, resolved here. */
static void resolve_tids(void) {
    for (size_t i = 0; i < nthreads; i++) {
        if (!threads[i].provisional) continue;
        uint64_t tid = tn_prof_thread_id_of(threads[i].ident);
        tn_prof_retag(threads[i].tid, tid ? tid : UINT64_MAX);
    }
}

void tn_pytrace_stop(void) {
    if (on) resolve_tids();
    if (on) {
        on = false;
        if (set_profile(Py_None) < 0) PyErr_Clear();
    }
    for (size_t i = 0; i < nthreads; i++) free(threads[i].stk);
    free(threads);
    threads = NULL, nthreads = 0, next_id = 0;
    Py_CLEAR(names); Py_CLEAR(prefixes); Py_CLEAR(module_code); Py_CLEAR(module_ids); Py_CLEAR(tracer); Py_CLEAR(vf_class); Py_CLEAR(vf_funcs);
}
