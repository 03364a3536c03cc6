/* dist_pg.c — the Python types of torch._C._distributed_c10d's process groups: ProcessGroup
 * (upstream's front object: rank/size, the backend per device, group name/desc, the collective
 * entry points distributed_c10d.py calls), Backend, ProcessGroupGloo (over src/distributed/gloo.c,
 * collectives byte-identical to upstream's gloo), Work, ProcessGroupGloo.Device / _Options and
 * the collective option structs (AllreduceOptions, ...).
 *
 * Every collective is queued on the backend's worker thread and returns at once, as upstream's
 * gloo work queue: compute goes on in the caller while the worker runs gloo's algorithm; the
 * Work and its Future complete when the worker is done (wait() blocks with the GIL released;
 * wait(timeout) raises "Operation timed out!" and leaves the work running). send/recv post on the
 * transport at the call and return a Work whose wait() blocks (GIL released) until the transport
 * is done, as upstream's SendWork/RecvWork. The tag sequence is upstream's: every collective takes
 * the next tag(s) of its backend at the call, point to point uses the user's tag as the slot. */
#include "python/distributed.h"
#include "python/tensor.h"
#include "distributed/gloo.h"
#include "distributed/store.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>
#include <limits.h>
#include <string.h>
#include <structmember.h>
#include <unistd.h>

static PyObject *c10d_mod;
static PyObject *list1(int n, PyObject *o) {
    PyObject *l = PyList_New(1);
    if (l) PyList_SetItem(l, 0, Py_NewRef(o));
    (void)n;
    return l;
}
static PyTypeObject *Work_T, *Backend_T, *Gloo_T, *PG_T, *Device_T;
static PyObject *GlooOpts_T;

static PyObject *raise_err(const tn_derr *e) {
    PyObject *t;
    switch (e->kind) {
    case TN_DERR_STORE: t = tn_dist_exc_store; break;
    case TN_DERR_NETWORK: t = tn_dist_exc_network; break;
    case TN_DERR_VALUE: t = PyExc_ValueError; break;
    case TN_DERR_MEMORY: return PyErr_NoMemory();
    case TN_DERR_BACKEND: t = PyExc_RuntimeError; break;   /* upstream's gloo raises RuntimeError */
    default: t = PyExc_RuntimeError;
    }
    PyErr_SetString(t, e->msg);
    return NULL;
}

/* ------------------------------------------------------------------ option structs (bags) */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
} bag_obj;

static PyMemberDef bag_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(bag_obj, dict), READONLY, NULL}, {NULL}};

static void bag_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((bag_obj *)self)->dict);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static int bag_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((bag_obj *)self)->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int bag_clear(PyObject *self) {
    Py_CLEAR(((bag_obj *)self)->dict);
    return 0;
}

static int set_default(PyObject *self, const char *name) {
    PyObject *v = NULL;
    if (!strcmp(name, "reduceOp")) {
        PyObject *ro = PyObject_GetAttrString(c10d_mod, "ReduceOp");
        v = ro ? PyObject_GetAttrString(ro, "SUM") : NULL;
        Py_XDECREF(ro);
    } else if (!strcmp(name, "timeout")) {
        v = tn_dist_timedelta_ms(-1);
    } else if (!strcmp(name, "asyncOp")) {
        v = Py_NewRef(Py_True);
    } else if (!strcmp(name, "device_ids")) {
        v = PyList_New(0);
    } else if (!strcmp(name, "device")) {
        v = Py_NewRef(Py_None);
    } else if (!strcmp(name, "_timeout")) {
        v = tn_dist_timedelta_ms(1800 * 1000LL);
    } else if (!strcmp(name, "_devices") || !strcmp(name, "global_ranks_in_group")) {
        v = PyList_New(0);
    } else if (!strcmp(name, "_threads")) {
        v = PyLong_FromLong(2);
    } else if (!strcmp(name, "group_name")) {
        v = PyUnicode_FromString("");
    } else {
        v = PyLong_FromLong(0);   /* rootRank, rootTensor */
    }
    if (!v) return -1;
    int r = PyObject_SetAttrString(self, name, v);
    Py_DECREF(v);
    return r;
}

/* which fields each option struct has (upstream's defaults: SUM, timeout unset = -1 ms,
 * asyncOp True, ranks 0) */
static const struct { const char *cls; const char *fields[6]; } bag_fields[] = {
    {"AllreduceOptions", {"reduceOp", "timeout", "asyncOp"}},
    {"AllreduceCoalescedOptions", {"reduceOp", "timeout", "asyncOp"}},
    {"BroadcastOptions", {"rootRank", "rootTensor", "timeout", "asyncOp"}},
    {"ReduceOptions", {"reduceOp", "rootRank", "rootTensor", "timeout", "asyncOp"}},
    {"AllgatherOptions", {"timeout", "asyncOp"}},
    {"GatherOptions", {"rootRank", "timeout", "asyncOp"}},
    {"ScatterOptions", {"rootRank", "timeout", "asyncOp"}},
    {"ReduceScatterOptions", {"reduceOp", "timeout", "asyncOp"}},
    {"AllToAllOptions", {"timeout", "asyncOp"}},
    {"BarrierOptions", {"device_ids", "timeout", "device", "asyncOp"}},
    {"_Options", {"_timeout", "_devices", "_threads", "global_ranks_in_group", "group_name"}},
};
#define N_BAGS ((int)(sizeof bag_fields / sizeof bag_fields[0]))

static int bag_init(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *nm = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__name__");
    const char *name = nm ? PyUnicode_AsUTF8AndSize(nm, NULL) : NULL;
    if (!name) { Py_XDECREF(nm); return -1; }
    for (int i = 0; i < N_BAGS; i++) {
        if (strcmp(bag_fields[i].cls, name)) continue;
        for (int j = 0; j < 6 && bag_fields[i].fields[j]; j++)
            if (set_default(self, bag_fields[i].fields[j]) < 0) { Py_DECREF(nm); return -1; }
    }
    Py_DECREF(nm);
    if (kw) {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kw, &pos, &k, &v))
            if (PyObject_SetAttr(self, k, v) < 0) return -1;
    }
    return 0;
}

static PyType_Slot bag_slots[] = {
    {Py_tp_init, bag_init}, {Py_tp_dealloc, bag_dealloc}, {Py_tp_traverse, bag_traverse},
    {Py_tp_clear, bag_clear}, {Py_tp_members, bag_members}, {Py_tp_new, PyType_GenericNew}, {0, NULL}};

static PyObject *make_bag(const char *qualname, PyObject *base) {
    char *full = malloc(strlen(qualname) + 32);
    if (!full) return PyErr_NoMemory();
    sprintf(full, "torch._C._distributed_c10d.%s", qualname);
    PyType_Spec spec = {full, sizeof(bag_obj), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, bag_slots};
    PyObject *bases = base ? PyTuple_Pack(1, base) : NULL;
    PyObject *t = PyType_FromSpecWithBases(&spec, bases);
    Py_XDECREF(bases);
    if (t && tn_dist_set_meta(t, 0) < 0) Py_CLEAR(t);
    /* the fields exist on the class too, so the refusing surface leaves them alone */
    const char *dot = strrchr(qualname, '.');
    const char *nm = dot ? dot + 1 : qualname;
    for (int i = 0; t && i < N_BAGS; i++) {
        if (strcmp(bag_fields[i].cls, nm)) continue;
        for (int j = 0; j < 6 && bag_fields[i].fields[j]; j++)
            if (PyObject_SetAttrString(t, bag_fields[i].fields[j], Py_None) < 0) Py_CLEAR(t);
    }
    return t;
}

/* attribute of an options object, or NULL (no error) when absent */
static PyObject *opt_get(PyObject *opts, const char *name) {
    if (!opts || opts == Py_None) return NULL;
    PyObject *v = PyObject_GetAttrString(opts, name);
    if (!v) PyErr_Clear();
    return v;
}
static long opt_long(PyObject *opts, const char *name, long dflt) {
    PyObject *v = opt_get(opts, name);
    if (!v) return dflt;
    long r = PyLong_AsLong(v);
    Py_DECREF(v);
    if (r == -1 && PyErr_Occurred()) { PyErr_Clear(); return dflt; }
    return r;
}
static int64_t opt_timeout(PyObject *opts) {
    PyObject *v = opt_get(opts, "timeout");
    if (!v) return -1;
    long long ms = tn_dist_timedelta_to_ms(v);
    Py_DECREF(v);
    if (ms < 0) { PyErr_Clear(); return -1; }
    return ms;
}
/* RedOpType value (SUM 0, AVG 1, PRODUCT 2, MIN 3, MAX 4, BAND 5, BOR 6, BXOR 7, PREMUL_SUM 8) */
static long opt_redop(PyObject *opts) {
    PyObject *v = opt_get(opts, "reduceOp");
    if (!v) return 0;
    long r = tn_dist_reduce_op_value(v);
    Py_DECREF(v);
    return r;
}

/* ------------------------------------------------------------------ Work */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    PyObject *owner;        /* the backend (keeps the context alive) */
    tn_gloo_ctx *ctx;
    tn_gloo_op *op;         /* pending point-to-point op, or NULL */
    PyObject *tensors;      /* result() */
    PyObject *keep;         /* buffers the op reads/writes */
    PyObject *exc;          /* the exception of a failed op */
    int src;
    int completed;
    int64_t timeout_ms;
    int async_state;        /* 1: queued on the backend's worker, 2: finished (under its mutex) */
    int plain;              /* no get_future()/result(), as upstream's point-to-point and
                               reduce_scatter works */
    PyObject *future;       /* get_future() of a queued work: completed by the worker */
    int lambda;             /* upstream's LambdaWork (the reduce_scatter family): is_completed()
                               stays False, is_success() True, exception() None, even after wait() */
    int nested;             /* result() is a list of lists: refused as upstream's */
    PyObject *parts;        /* a combined work: wait() waits each part in order (the first
                               failure raises), as upstream's reduce_scatter_tensor_coalesced */
} work_obj;

static PyMemberDef work_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(work_obj, dict), READONLY, NULL}, {NULL}};

static PyObject *work_new_done(PyObject *tensors) {
    work_obj *w = (work_obj *)PyType_GenericAlloc(Work_T, 0);
    if (!w) return NULL;
    w->completed = 1;
    w->src = -1;
    w->tensors = tensors ? Py_NewRef(tensors) : PyList_New(0);
    if (!w->tensors) { Py_DECREF(w); return NULL; }
    return (PyObject *)w;
}

static int owner_alive(work_obj *w);   /* the backend still holds the op's context */

static int work_await(work_obj *w, int64_t timeout_ms);   /* a queued allreduce */

static int work_finish(work_obj *w, int64_t timeout_ms) {
    if (w->async_state) return work_await(w, timeout_ms);
    if (w->completed || !w->op) {
        w->completed = 1;
        return 0;
    }
    if (!owner_alive(w)) {
        w->op = NULL;   /* freed with its context */
        w->completed = 1;
        PyErr_SetString(PyExc_RuntimeError, "the process group of this work has been shut down");
        return -1;
    }
    tn_derr err = {0};
    int src = -1, rc;
    tn_gloo_op *op = w->op;
    w->op = NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = tn_gloo_wait(w->ctx, op, timeout_ms > 0 ? timeout_ms : w->timeout_ms, &src, &err);
    Py_END_ALLOW_THREADS
    w->completed = 1;
    w->src = src;
    Py_CLEAR(w->keep);
    if (rc < 0) {
        raise_err(&err);
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        Py_XSETREF(w->exc, Py_XNewRef(v));
        PyErr_Restore(t, v, tb);
        return -1;
    }
    return 0;
}

static PyObject *work_wait(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"timeout", NULL};
    PyObject *to = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kws, &to)) return NULL;
    int64_t ms = -1;
    if (to && to != Py_None) {
        long long v = tn_dist_timedelta_to_ms(to);
        if (v < 0 && PyErr_Occurred()) return NULL;
        ms = v;
    }
    work_obj *w = (work_obj *)self;
    if (w->parts) {   /* upstream's LambdaWork ignores the timeout */
        Py_ssize_t n = PyList_Size(w->parts);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *r = PyObject_CallMethod(PyList_GetItem(w->parts, i), "wait", NULL);
            if (!r) return NULL;
            Py_DECREF(r);
        }
        Py_RETURN_TRUE;
    }
    if (w->exc && w->completed) {
        PyErr_SetObject((PyObject *)Py_TYPE(w->exc), w->exc);
        return NULL;
    }
    if (work_finish(w, ms) < 0) return NULL;
    Py_RETURN_TRUE;
}

static PyObject *work_is_completed(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    if (w->lambda) Py_RETURN_FALSE;
    if (w->async_state) return PyBool_FromLong(w->completed);   /* set by the worker, under the GIL */
    if (!w->completed && w->op && owner_alive(w) && tn_gloo_op_done(w->ctx, w->op)) {
        if (work_finish(w, -1) < 0) PyErr_Clear();
    }
    return PyBool_FromLong(w->completed);
}
/* upstream's Work::isSuccess: no exception so far (True while pending too) */
static PyObject *work_is_success(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    return PyBool_FromLong(w->lambda || !w->exc);
}
static PyObject *work_exception(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    return Py_NewRef(w->exc && !w->lambda ? w->exc : Py_None);
}
static PyObject *work_source_rank(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    if (!w->completed && work_finish(w, -1) < 0) return NULL;
    return PyLong_FromLong(w->src);
}
static PyObject *work_result(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    if (w->plain) {
        PyErr_SetString(PyExc_RuntimeError, "result() not implemented.");
        return NULL;
    }
    if (w->nested) {
        PyErr_SetString(PyExc_RuntimeError, "work result does not support list of lists, use .getFuture() and value()");
        return NULL;
    }
    return Py_NewRef(w->tensors ? w->tensors : Py_None);
}
static PyObject *work_synchronize(PyObject *self, PyObject *unused) { Py_RETURN_NONE; }

/* get_future: a torch.futures.Future already holding result() (or the exception) */
static int future_complete(PyObject *f, work_obj *w) {
    PyObject *r = w->exc ? PyObject_CallMethod(f, "set_exception", "O", w->exc)
                         : PyObject_CallMethod(f, "set_result", "O", w->tensors ? w->tensors : Py_None);
    Py_XDECREF(r);
    return r ? 0 : -1;
}
/* get_future: a torch.futures.Future holding result() (or the exception); for a queued
 * allreduce, one the worker completes (its callbacks then run on the worker, as upstream's) */
static PyObject *work_get_future(PyObject *self, PyObject *unused) {
    work_obj *w = (work_obj *)self;
    if (w->plain) {
        PyErr_SetString(PyExc_RuntimeError, "Work::getFuture not implemented.");
        return NULL;
    }
    if (w->async_state && !w->completed && w->future) return Py_NewRef(w->future);
    if (!w->async_state && !w->completed && work_finish(w, -1) < 0) return NULL;
    PyObject *fm = PyImport_ImportModule("torch.futures");
    PyObject *F = fm ? PyObject_GetAttrString(fm, "Future") : NULL;
    Py_XDECREF(fm);
    PyObject *f = F ? PyObject_CallNoArgs(F) : NULL;
    Py_XDECREF(F);
    if (!f) return NULL;
    if (!w->completed) {   /* queued: the worker completes it (it takes the GIL to do so) */
        w->future = Py_NewRef(f);
        return f;
    }
    if (future_complete(f, w) < 0) { Py_DECREF(f); return NULL; }
    return f;
}

static int work_traverse(PyObject *self, visitproc visit, void *arg) {
    work_obj *w = (work_obj *)self;
    Py_VISIT(w->dict);
    Py_VISIT(w->owner);
    Py_VISIT(w->tensors);
    Py_VISIT(w->keep);
    Py_VISIT(w->exc);
    Py_VISIT(w->future);
    Py_VISIT(w->parts);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int work_clear(PyObject *self) {
    work_obj *w = (work_obj *)self;
    if (w->op) {
        if (owner_alive(w)) tn_gloo_op_abandon(w->ctx, w->op);
        w->op = NULL;
    }
    Py_CLEAR(w->dict);
    Py_CLEAR(w->owner);
    Py_CLEAR(w->tensors);
    Py_CLEAR(w->keep);
    Py_CLEAR(w->exc);
    Py_CLEAR(w->future);
    Py_CLEAR(w->parts);
    return 0;
}
static void work_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    work_clear(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static int work_init(PyObject *self, PyObject *args, PyObject *kw) {
    work_obj *w = (work_obj *)self;
    w->completed = 1;
    w->src = -1;
    return 0;
}

static PyMethodDef work_methods[] = {
    {"wait", (PyCFunction)(void (*)(void))work_wait, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_completed", work_is_completed, METH_NOARGS, NULL},
    {"is_success", work_is_success, METH_NOARGS, NULL},
    {"exception", work_exception, METH_NOARGS, NULL},
    {"source_rank", work_source_rank, METH_NOARGS, NULL},
    {"_source_rank", work_source_rank, METH_NOARGS, NULL},
    {"result", work_result, METH_NOARGS, NULL},
    {"synchronize", work_synchronize, METH_NOARGS, NULL},
    {"get_future", work_get_future, METH_NOARGS, NULL},
    {NULL},
};
static PyType_Slot work_slots[] = {
    {Py_tp_methods, work_methods}, {Py_tp_members, work_members}, {Py_tp_dealloc, work_dealloc},
    {Py_tp_traverse, work_traverse}, {Py_tp_clear, work_clear}, {Py_tp_init, work_init},
    {Py_tp_new, PyType_GenericNew}, {0, NULL}};
static PyType_Spec work_spec = {"torch._C._distributed_c10d.Work", sizeof(work_obj), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, work_slots};

/* ------------------------------------------------------------------ Device */

typedef struct {
    PyObject_HEAD
    tn_gloo_device *dev;
} device_obj;

static void device_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    tn_gloo_device_unref(((device_obj *)self)->dev);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static PyObject *device_repr(PyObject *self) {
    device_obj *d = (device_obj *)self;
    return PyUnicode_FromFormat("Device(\"tcp\", %s)", d->dev ? tn_gloo_device_str(d->dev) : "?");
}
static PyType_Slot device_slots[] = {{Py_tp_dealloc, device_dealloc}, {Py_tp_repr, device_repr}, {0, NULL}};
static PyType_Spec device_spec = {"torch._C._distributed_c10d.ProcessGroupGloo.Device", sizeof(device_obj), 0,
                                  Py_TPFLAGS_DEFAULT, device_slots};

static PyObject *device_wrap(tn_gloo_device *d) {
    device_obj *o = (device_obj *)PyType_GenericAlloc(Device_T, 0);
    if (!o) { tn_gloo_device_unref(d); return NULL; }
    o->dev = d;
    return (PyObject *)o;
}

static PyObject *create_device(PyObject *cls, PyObject *args, PyObject *kw) {
    static char *kws[] = {"hostname", "interface", "lazy_init", NULL};
    const char *host = "", *iface = "";
    PyObject *lazy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ssO:create_device", kws, &host, &iface, &lazy)) return NULL;
    tn_derr err = {0};
    tn_gloo_device *d;
    if (!*host && !*iface) {
        PyErr_SetString(PyExc_RuntimeError, "Specify either `hostname` or `interface` argument.");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    d = tn_gloo_device_new(*iface ? NULL : host, *iface ? iface : NULL, &err);
    Py_END_ALLOW_THREADS
    if (!d) {
        if (*host && !*iface) PyErr_Format(PyExc_RuntimeError, "Cannot resolve %s to a (local) address", host);
        else raise_err(&err);
        return NULL;
    }
    return device_wrap(d);
}

/* upstream's createDefaultDevice: this host's name when it resolves to a bindable address,
 * else 127.0.0.1; GLOO_SOCKET_IFNAME is honoured by the constructor */
static tn_gloo_device *default_device(tn_derr *err) {
    char host[256] = {0};
    if (gethostname(host, sizeof host - 1) != 0) {
        tn_derr_set(err, TN_DERR_BACKEND, "gethostname failed");
        return NULL;
    }
    tn_gloo_device *d = tn_gloo_device_new(host, NULL, err);
    if (!d) d = tn_gloo_device_new("127.0.0.1", NULL, err);
    return d;
}

static PyObject *create_default_device(PyObject *cls, PyObject *args, PyObject *kw) {
    tn_derr err = {0};
    tn_gloo_device *d;
    Py_BEGIN_ALLOW_THREADS
    d = default_device(&err);
    Py_END_ALLOW_THREADS
    if (!d) return raise_err(&err);
    return device_wrap(d);
}

/* ------------------------------------------------------------------ Backend / ProcessGroupGloo */

#define TN_GLOO_MAX_THREADS 64   /* workers per backend (options._threads, clamped) */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    int rank, size;
    tn_gloo_ctx **ctxs;      /* one per device (ProcessGroupGloo) */
    int nctx;
    uint32_t tag;            /* collectiveCounter_ */
    int64_t timeout_ms;
    int64_t seq;
    PyObject *options;
    int nthreads;             /* options._threads: the workers of the queue (upstream's default 2) */
    struct wq *q;             /* the queue and its workers (made on first use) */
} backend_obj;

static PyMemberDef backend_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(backend_obj, dict), READONLY, NULL}, {NULL}};

static int backend_init(PyObject *self, PyObject *args, PyObject *kw) {
    backend_obj *b = (backend_obj *)self;
    int rank = -1, size = -1;
    if (!PyArg_ParseTuple(args, "|ii", &rank, &size)) return -1;
    b->rank = rank;
    b->size = size;
    return 0;
}
static PyObject *backend_rank(PyObject *self, PyObject *u) { return PyLong_FromLong(((backend_obj *)self)->rank); }
static PyObject *backend_size(PyObject *self, PyObject *u) { return PyLong_FromLong(((backend_obj *)self)->size); }
static PyObject *backend_name(PyObject *self, PyObject *u) {
    return PyUnicode_FromString(((backend_obj *)self)->ctxs ? "gloo" : "undefined");
}
static PyObject *backend_noop(PyObject *self, PyObject *args, PyObject *kw) { Py_RETURN_NONE; }
static PyObject *backend_false(PyObject *self, void *u) { Py_RETURN_FALSE; }
static PyObject *backend_get_seq(PyObject *self, PyObject *u) { return PyLong_FromLongLong(((backend_obj *)self)->seq); }

static int backend_traverse(PyObject *self, visitproc visit, void *arg) {
    backend_obj *b = (backend_obj *)self;
    Py_VISIT(b->dict);
    Py_VISIT(b->options);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int backend_clear(PyObject *self) {
    backend_obj *b = (backend_obj *)self;
    Py_CLEAR(b->dict);
    Py_CLEAR(b->options);
    return 0;
}
static void worker_stop(backend_obj *b);
static void backend_free_ctxs(backend_obj *b) {
    worker_stop(b);   /* its queued collectives finish first: they use the contexts */
    if (!b->ctxs) return;
    tn_gloo_ctx **c = b->ctxs;
    int n = b->nctx;
    b->ctxs = NULL;
    b->nctx = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int i = 0; i < n; i++) tn_gloo_ctx_free(c[i]);
    Py_END_ALLOW_THREADS
    free(c);
}
static void backend_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    backend_clear(self);
    backend_free_ctxs((backend_obj *)self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}

/* ProcessGroupGloo(store, rank, size, options | timeout=) */
static int gloo_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"store", "rank", "size", "options", "timeout", NULL};
    backend_obj *b = (backend_obj *)self;
    PyObject *store = NULL, *opts = NULL, *timeout = NULL;
    int rank, size;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oii|OO:ProcessGroupGloo", kws, &store, &rank, &size, &opts, &timeout))
        return -1;

    if (opts && PyObject_HasAttrString(opts, "total_seconds")) {
        timeout = opts;
        opts = NULL;
    }
    int64_t tms = 30 * 60 * 1000;
    PyObject *devs = NULL;
    int own_opts = 0;
    b->nthreads = 2;
    if (opts && opts != Py_None) {
        PyObject *t = opt_get(opts, "_timeout");
        if (t) {
            long long v = tn_dist_timedelta_to_ms(t);
            Py_DECREF(t);
            if (v < 0 && PyErr_Occurred()) return -1;
            tms = v;
        }
        PyObject *th = opt_get(opts, "_threads");
        if (th) {
            long n = PyLong_AsLong(th);
            Py_DECREF(th);
            if (n == -1 && PyErr_Occurred()) return -1;
            /* upstream starts exactly _threads workers (0 would never run a collective): at least
             * one here, at most TN_GLOO_MAX_THREADS */
            b->nthreads = n < 1 ? 1 : n > TN_GLOO_MAX_THREADS ? TN_GLOO_MAX_THREADS : (int)n;
        }
        devs = opt_get(opts, "_devices");
        Py_XSETREF(b->options, Py_NewRef(opts));
    } else {
        PyObject *o = PyObject_CallNoArgs(GlooOpts_T);
        if (!o) return -1;
        Py_XSETREF(b->options, o);
        own_opts = 1;
    }
    if (timeout && timeout != Py_None) {
        long long v = tn_dist_timedelta_to_ms(timeout);
        if (v < 0 && PyErr_Occurred()) { Py_XDECREF(devs); return -1; }
        tms = v;
        PyObject *td = tn_dist_timedelta_ms(v);
        if (!td || PyObject_SetAttrString(b->options, "_timeout", td) < 0) { Py_XDECREF(td); Py_XDECREF(devs); return -1; }
        Py_DECREF(td);
    }
    /* the devices: the options' list, else GLOO_SOCKET_IFNAME's interfaces, else the default */
    Py_ssize_t nd = devs ? PySequence_Size(devs) : 0;
    if (nd < 0) { Py_DECREF(devs); return -1; }
    tn_gloo_device **dv = calloc((size_t)(nd ? nd : 8), sizeof *dv);
    if (!dv) { Py_XDECREF(devs); PyErr_NoMemory(); return -1; }
    int ndev = 0;
    tn_derr err = {0};
    for (Py_ssize_t i = 0; i < nd; i++) {
        PyObject *d = PySequence_GetItem(devs, i);
        if (!d) goto fail;
        if (!PyObject_TypeCheck(d, Device_T)) {
            Py_DECREF(d);
            PyErr_SetString(PyExc_TypeError, "ProcessGroupGloo: options._devices must hold ProcessGroupGloo.Device");
            goto fail;
        }
        dv[ndev++] = tn_gloo_device_ref(((device_obj *)d)->dev);
        Py_DECREF(d);
    }
    Py_CLEAR(devs);
    if (nd == 0) {
        const char *ifs = getenv("GLOO_SOCKET_IFNAME");
        tn_gloo_device *d = NULL;
        if (ifs && strlen(ifs) > 1) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", ifs);
            for (char *tok = strtok(buf, ","); tok && ndev < 8; tok = strtok(NULL, ",")) {
                Py_BEGIN_ALLOW_THREADS
                d = tn_gloo_device_new(NULL, tok, &err);
                Py_END_ALLOW_THREADS
                if (!d) { raise_err(&err); goto fail; }
                dv[ndev++] = d;
            }
        } else {
            Py_BEGIN_ALLOW_THREADS
            d = default_device(&err);
            Py_END_ALLOW_THREADS
            if (!d) { raise_err(&err); goto fail; }
            dv[ndev++] = d;
        }
    }
    if (ndev == 0) {
        PyErr_SetString(PyExc_RuntimeError, "No device(s) specified");
        goto fail;
    }
    tn_store *st = tn_dist_store_of(store);
    if (!st) goto fail;
    b->ctxs = calloc((size_t)ndev, sizeof *b->ctxs);
    if (!b->ctxs) { tn_store_unref(st); PyErr_NoMemory(); goto fail; }
    b->rank = rank;
    b->size = size;
    b->timeout_ms = tms;
    int ok = 1;
    for (int i = 0; i < ndev && ok; i++) {
        char prefix[16];
        snprintf(prefix, sizeof prefix, "%d", i);
        tn_gloo_ctx *c;
        Py_BEGIN_ALLOW_THREADS
        c = tn_gloo_ctx_connect(st, prefix, rank, size, dv[i], tms, &err);
        Py_END_ALLOW_THREADS
        if (!c) ok = 0;
        else b->ctxs[b->nctx++] = c;
    }
    tn_store_unref(st);
    if (!ok) {
        backend_free_ctxs(b);
        if (err.kind == TN_DERR_STORE || err.kind == TN_DERR_NETWORK) raise_err(&err);
        else PyErr_Format(PyExc_RuntimeError, "%s", err.msg);
        goto fail;
    }
    if (own_opts) {
        /* options made here list the devices in use, as upstream's (a split copies them: the new
         * group's contexts share these listeners) */
        PyObject *l = PyList_New(0);
        for (int i = 0; l && i < ndev; i++) {
            PyObject *w = device_wrap(tn_gloo_device_ref(dv[i]));
            if (!w || PyList_Append(l, w) < 0) Py_CLEAR(l);
            Py_XDECREF(w);
        }
        if (!l || PyObject_SetAttrString(b->options, "_devices", l) < 0) {
            Py_XDECREF(l);
            goto fail;
        }
        Py_DECREF(l);
    }
    for (int i = 0; i < ndev; i++) tn_gloo_device_unref(dv[i]);
    free(dv);
    return 0;
fail:
    Py_XDECREF(devs);
    for (int i = 0; i < ndev; i++) tn_gloo_device_unref(dv[i]);
    free(dv);
    return -1;
}

static int owner_alive(work_obj *w) {
    backend_obj *b = (backend_obj *)w->owner;
    if (!b || !b->ctxs) return 0;
    for (int i = 0; i < b->nctx; i++)
        if (b->ctxs[i] == w->ctx) return 1;
    return 0;
}

static backend_obj *gloo_of(PyObject *self) {
    backend_obj *b = (backend_obj *)self;
    if (!b->ctxs) {
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo: the process group has been shut down");
        return NULL;
    }
    return b;
}
static uint32_t next_tag(backend_obj *b) { b->seq++; return b->tag++; }
static tn_gloo_ctx *ctx_for(backend_obj *b, uint32_t tag) { return b->ctxs[tag % (uint32_t)b->nctx]; }
static int64_t tmo(backend_obj *b, PyObject *opts) {
    int64_t t = opt_timeout(opts);
    return t > 0 ? t : b->timeout_ms;
}

/* ---- tensors */

typedef struct {
    PyObject *orig;       /* the user's tensor */
    PyObject *work;       /* a contiguous copy (or orig itself) */
    void *data;
    size_t numel;
    size_t nbytes;
    int gt;
    int complex;
} tbuf;

static int gloo_type(tn_dtype d, int *complex) {
    *complex = 0;
    switch (d) {
    case TN_DTYPE_F32: return TN_GT_F32;
    case TN_DTYPE_F64: return TN_GT_F64;
    case TN_DTYPE_F16: return TN_GT_F16;
    case TN_DTYPE_BF16: return TN_GT_BF16;
    case TN_DTYPE_I8: return TN_GT_I8;
    case TN_DTYPE_U8: case TN_DTYPE_BOOL: return TN_GT_U8;
    case TN_DTYPE_I32: return TN_GT_I32;
    case TN_DTYPE_I64: return TN_GT_I64;
    case TN_DTYPE_C64: *complex = 1; return TN_GT_F32;
    case TN_DTYPE_C128: *complex = 1; return TN_GT_F64;
    default: return -1;
    }
}

static int tbuf_get(PyObject *o, tbuf *tb, int for_write) {
    memset(tb, 0, sizeof *tb);
    if (!tn_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(o));
        return -1;
    }
    tn_tensor *t = tn_tensor_of(o);
    int cx;
    tb->gt = gloo_type(t->dtype, &cx);
    if (tb->gt < 0) {
        PyErr_SetString(PyExc_RuntimeError, "Invalid scalar type");
        return -1;
    }
    tb->complex = cx;
    tb->orig = o;
    if (tn_is_contiguous(t)) {
        tb->work = Py_NewRef(o);
    } else {
        tb->work = PyObject_CallMethod(o, "contiguous", NULL);
        if (!tb->work) return -1;
        t = tn_tensor_of(tb->work);
    }
    tb->numel = (size_t)tn_numel(t) * (cx ? 2 : 1);
    tb->nbytes = tb->numel * (size_t)tn_gloo_elem_size(tb->gt);
    tb->data = tn_numel(t) ? tn_data(t) : NULL;
    (void)for_write;
    return 0;
}
/* tensor o's own bytes, as upstream's gloo all-reduce reads them: numel elements from its data
 * pointer, whatever its strides (measured on upstream 2.13: all_reduce of x[::2] sums the first
 * numel elements of x's memory, and a transposed tensor is reduced in memory order). When the
 * storage holds fewer bytes from there (an expanded tensor: upstream reads past its buffer), a
 * contiguous copy instead, written back by tbuf_done. */
static int tbuf_raw(PyObject *o, tbuf *tb) {
    if (tbuf_get(o, tb, 1) < 0) return -1;
    if (tb->work == o) return 0;
    tn_tensor *t = tn_tensor_of(o);
    tn_storage *st = tn_storage_root(t->storage);
    size_t es = (size_t)tn_dtype_itemsize(t->dtype);
    if (st && st->data && (size_t)t->offset * es + (size_t)tn_numel(t) * es <= st->nbytes) {
        Py_CLEAR(tb->work);
        tb->work = Py_NewRef(o);
        tb->data = tn_numel(t) ? tn_data(t) : NULL;
    }
    return 0;
}
/* write a contiguous copy back into the user's tensor */
static int tbuf_done(tbuf *tb, int wrote) {
    int rc = 0;
    if (wrote && tb->work && tb->work != tb->orig) {
        PyObject *r = PyObject_CallMethod(tb->orig, "copy_", "O", tb->work);
        if (!r) rc = -1;
        Py_XDECREF(r);
    }
    Py_CLEAR(tb->work);
    return rc;
}

/* the single tensor of a one-element list (or a tensor) */
static PyObject *one_tensor(PyObject *lst, const char *what) {
    if (tn_py_is_tensor(lst)) return lst;
    if (!PyList_Check(lst) && !PyTuple_Check(lst)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a list of tensors", what);
        return NULL;
    }
    if (PySequence_Size(lst) != 1) {
        /* upstream's texts (measured): most say "ProcessGroupGloo::<op>: requires a single-element
         * tensor list"; these differ */
        if (!strcmp(what, "gather") || !strcmp(what, "scatter"))
            PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::%s: requires a single-element %s tensor list", what,
                         what[0] == 'g' ? "input" : "output");
        else if (!strcmp(what, "reduce_scatter"))
            PyErr_SetString(PyExc_RuntimeError, "reduce_scatter only supports 1 output");
        else if (!strcmp(what, "send") || !strcmp(what, "recv"))
            PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::send takes a single tensor");
        else
            PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::%s: requires a single-element tensor list", what);
        return NULL;
    }
    PyObject *t = PySequence_GetItem(lst, 0);
    if (!t) return NULL;
    Py_DECREF(t);   /* borrowed from the list */
    return t;
}

static PyObject *as_list(PyObject *o) {
    if (tn_py_is_tensor(o)) return list1(1, o);
    return PySequence_List(o);
}

static int red_code(long r, int gt) {
    int integral = gt == TN_GT_I8 || gt == TN_GT_U8 || gt == TN_GT_I32 || gt == TN_GT_I64;
    switch (r) {
    case 0: case 1: return TN_GR_SUM;
    case 2: return TN_GR_PRODUCT;
    case 3: return TN_GR_MIN;
    case 4: return TN_GR_MAX;
    case 5: case 6: case 7:
        if (!integral) {
            PyErr_Format(PyExc_RuntimeError, "Cannot use ReduceOp.%s with non-integral dtype",
                         r == 5 ? "BAND" : r == 6 ? "BOR" : "BXOR");
            return -1;
        }
        return r == 5 ? TN_GR_BAND : r == 6 ? TN_GR_BOR : TN_GR_BXOR;
    case 8: PyErr_SetString(PyExc_RuntimeError, "Cannot use ReduceOp.PREMUL_SUM with Gloo"); return -1;
    default: PyErr_SetString(PyExc_RuntimeError, "Unhandled ReduceOp"); return -1;
    }
}

/* ---- the collective workers: options._threads threads per backend (upstream's default 2) take
 * the queued collectives in call order, so two collectives may run at once, as upstream's
 * (measured: with _threads=2 a small all_reduce issued after a large one completes first; with 1,
 * after it). Their bytes never mix: each has its own tags, so its own slots. The tags are taken
 * at the call, so every rank runs its collectives with the same tags, and compute goes on in
 * the caller while the workers talk. A job is split in three: the call
 * (Python, with the GIL: checks, contiguous copies, scratch buffers, tags), run (plain C, no GIL:
 * the gloo algorithm) and fin (Python, with the GIL, after a successful run: copy back into the
 * user's tensors, AVG's division); then the Work and its Future complete, with the exception of a
 * failed run or fin. A failed job does not stop the queue. The queue lives apart from the
 * backend: the worker may drop the last reference to the backend while finishing a job. */

typedef struct ajob ajob;
struct ajob {
    ajob *next;
    work_obj *w;            /* held until finished */
    int (*run)(ajob *);     /* no GIL: 0 ok, -1 with err */
    int (*fin)(ajob *);     /* with the GIL after run: 0 ok, -1 with a Python error */
    tn_gloo_ctx **ctxs;     /* the backend's (freed only after the queue is drained) */
    int nctx;
    uint32_t tag;           /* the first of the job's tags */
    int64_t tmo;
    int size, rank, root, red, avg, rc;
    tbuf *bufs;             /* released after fin */
    int nbuf;
    uint8_t *flat;          /* scratch */
    size_t nbytes;
    size_t *cin, *cout;     /* alltoallv's byte counts */
    const void **ptrs;      /* scatter's inputs */
    PyObject *o1, *o2;      /* what fin works on */
    void *ext;              /* a job's own state (sparse all_reduce), freed by ext_free */
    void (*ext_free)(void *);
    tn_derr err;
};

static tn_gloo_ctx *jctx(ajob *j, uint32_t tag) { return j->ctxs[tag % (uint32_t)j->nctx]; }

static ajob *job_new(int nbuf) {
    ajob *j = calloc(1, sizeof *j);
    if (j && nbuf > 0 && !(j->bufs = calloc((size_t)nbuf, sizeof *j->bufs))) { free(j); j = NULL; }
    if (!j) PyErr_NoMemory();
    return j;
}
/* with the GIL: drop what the job holds (not its Work) */
static void job_release(ajob *j) {
    if (j->ext_free) j->ext_free(j->ext);
    for (int i = 0; i < j->nbuf; i++) tbuf_done(&j->bufs[i], 0);
    free(j->bufs);
    free(j->flat);
    free(j->cin);
    free(j->cout);
    free(j->ptrs);
    Py_XDECREF(j->o1);
    Py_XDECREF(j->o2);
    free(j);
}
/* take the next buffer slot of a job: tensor o, contiguous */
static int job_buf(ajob *j, PyObject *o) {
    if (tbuf_get(o, &j->bufs[j->nbuf], 1) < 0) return -1;
    j->nbuf++;
    return 0;
}

typedef struct wq {
    pthread_mutex_t mu;
    pthread_cond_t cv, done_cv;
    pthread_t th[TN_GLOO_MAX_THREADS];
    int nth;
    int stop, refs;         /* refs: the backend and each running thread */
    ajob *head, *tail;
} wq;

static void wq_unref(wq *q) {   /* under q->mu; unlocks it */
    int last = --q->refs == 0;
    pthread_mutex_unlock(&q->mu);
    if (!last) return;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    pthread_cond_destroy(&q->done_cv);
    free(q);
}

/* with the GIL: the job's Python half, then the Work and its Future */
static void job_finish(wq *q, ajob *j) {
    work_obj *w = j->w;
    int ok = j->rc == 0;
    if (!ok) raise_err(&j->err);
    if (ok && j->fin && j->fin(j) < 0) ok = 0;
    if (!ok) {
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        PyErr_NormalizeException(&et, &ev, &etb);
        if (!ev) ev = PyObject_CallFunction(PyExc_RuntimeError, "s", "collective failed");
        Py_XSETREF(w->exc, ev);
        Py_XDECREF(et);
        Py_XDECREF(etb);
        PyErr_Clear();
    }
    job_release(j);
    w->completed = 1;
    if (w->future) {
        PyObject *f = w->future;
        w->future = NULL;
        if (future_complete(f, w) < 0) PyErr_WriteUnraisable(f);
        Py_DECREF(f);
    }
    pthread_mutex_lock(&q->mu);
    w->async_state = 2;
    pthread_cond_broadcast(&q->done_cv);
    pthread_mutex_unlock(&q->mu);
    Py_DECREF(w);   /* may free the backend: q is ours */
}

static void *worker_main(void *arg) {
    wq *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->stop) pthread_cond_wait(&q->cv, &q->mu);
        ajob *j = q->head;
        if (!j) break;   /* stopped, queue drained */
        q->head = j->next;
        if (!q->head) q->tail = NULL;
        pthread_mutex_unlock(&q->mu);
        j->rc = j->run(j);
        PyGILState_STATE g = PyGILState_Ensure();
        job_finish(q, j);
        PyGILState_Release(g);
        pthread_mutex_lock(&q->mu);
    }
    wq_unref(q);
    return NULL;
}

/* stop the workers after the queue (the backend is being shut down or freed) */
static void worker_stop(backend_obj *b) {
    wq *q = b->q;
    if (!q) return;
    b->q = NULL;
    pthread_mutex_lock(&q->mu);
    q->stop = 1;
    pthread_cond_broadcast(&q->cv);
    int n = q->nth;
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < n; i++) {
        if (pthread_equal(q->th[i], pthread_self())) {   /* a worker dropped the last reference itself */
            pthread_detach(q->th[i]);
        } else {
            Py_BEGIN_ALLOW_THREADS
            pthread_join(q->th[i], NULL);
            Py_END_ALLOW_THREADS
        }
    }
    pthread_mutex_lock(&q->mu);
    wq_unref(q);
}

static int worker_push(backend_obj *b, ajob *j) {
    if (!b->q) {
        wq *q = calloc(1, sizeof *q);
        if (!q) return PyErr_NoMemory(), -1;
        pthread_mutex_init(&q->mu, NULL);
        pthread_cond_init(&q->cv, NULL);
        pthread_cond_init(&q->done_cv, NULL);
        q->refs = 1;
        b->q = q;
        int want = b->nthreads < 1 ? 1 : b->nthreads;
        pthread_mutex_lock(&q->mu);
        for (; q->nth < want; q->nth++) {
            if (pthread_create(&q->th[q->nth], NULL, worker_main, q) != 0) break;
            q->refs++;
        }
        int started = q->nth;
        pthread_mutex_unlock(&q->mu);
        if (!started) {
            worker_stop(b);
            PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo: cannot start the collective worker threads");
            return -1;
        }
    }
    pthread_mutex_lock(&b->q->mu);
    if (b->q->tail) b->q->tail->next = j;
    else b->q->head = j;
    b->q->tail = j;
    pthread_cond_signal(&b->q->cv);
    pthread_mutex_unlock(&b->q->mu);
    return 0;
}

/* queue job j (consumed, also on failure) taking ntags tags; the Work's result() is `res` (a new
 * list of tensors; NULL: []); plain: a Work without a Future or result (upstream's reduce_scatter) */
static PyObject *submit(PyObject *self, ajob *j, PyObject *res, int ntags, PyObject *opts, int plain) {
    backend_obj *b = (backend_obj *)self;
    work_obj *w = (work_obj *)work_new_done(res);
    if (!w) { job_release(j); return NULL; }
    w->completed = 0;
    w->async_state = 1;
    w->plain = plain;
    w->owner = Py_NewRef(self);
    j->w = (work_obj *)Py_NewRef((PyObject *)w);
    j->ctxs = b->ctxs;
    j->nctx = b->nctx;
    j->size = b->size;
    j->rank = b->rank;
    j->tmo = tmo(b, opts);
    j->tag = b->tag;
    for (int i = 0; i < ntags; i++) next_tag(b);
    if (worker_push(b, j) < 0) {
        Py_DECREF(w);
        Py_DECREF(w);
        job_release(j);
        return NULL;
    }
    return (PyObject *)w;
}

static int work_await(work_obj *w, int64_t timeout_ms) {
    wq *q = ((backend_obj *)w->owner)->q;
    int timed_out = 0;
    if (q && w->async_state != 2) {
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&q->mu);
        if (timeout_ms > 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += timeout_ms / 1000;
            ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
            while (w->async_state != 2 && !timed_out)
                if (pthread_cond_timedwait(&q->done_cv, &q->mu, &ts) == ETIMEDOUT) timed_out = w->async_state != 2;
        } else {
            while (w->async_state != 2) pthread_cond_wait(&q->done_cv, &q->mu);
        }
        pthread_mutex_unlock(&q->mu);
        Py_END_ALLOW_THREADS
    }
    if (timed_out) {   /* upstream's Work::wait(timeout): the work itself goes on */
        PyErr_SetString(PyExc_RuntimeError, "Operation timed out!");
        return -1;
    }
    if (w->exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(w->exc), w->exc);
        return -1;
    }
    return 0;
}

/* ---- run halves (no GIL) */

/* every buffer all-reduced, buffer i with tag + i */
static int run_allreduce(ajob *j) {
    for (int i = 0; i < j->nbuf; i++) {
        uint32_t tag = j->tag + (uint32_t)i;
        if (tn_gloo_allreduce(jctx(j, tag), j->bufs[i].data, j->bufs[i].numel, j->bufs[i].gt, j->red, tag, j->tmo,
                              &j->err) < 0)
            return -1;
    }
    return 0;
}
/* all_reduce of a tensor list, as gloo's allreduce with the tensors as its outputs: the local
 * reduction out[0] = out[0] op out[i] (i = 1, 2, ... in order, in the element type), the ring over
 * out[0], then out[0] copied into the others. gloo interleaves the local reduction with the ring
 * segment by segment; elementwise, that gives the same bytes as doing it first. */
static int run_allreduce_list(ajob *j) {
    tbuf *b0 = &j->bufs[0];
    for (int i = 1; i < j->nbuf; i++)
        if (b0->numel) tn_gloo_reduce_fn(b0->gt, j->red, b0->data, b0->data, j->bufs[i].data, b0->numel);
    if (tn_gloo_allreduce(jctx(j, j->tag), b0->data, b0->numel, b0->gt, j->red, j->tag, j->tmo, &j->err) < 0) return -1;
    for (int i = 1; i < j->nbuf; i++)
        if (b0->nbytes && j->bufs[i].data != b0->data) memmove(j->bufs[i].data, b0->data, b0->nbytes);
    return 0;
}
static int run_broadcast(ajob *j) {
    return tn_gloo_broadcast(jctx(j, j->tag), j->bufs[0].data, j->bufs[0].nbytes, j->root, j->tag, j->tmo, &j->err);
}
static int run_reduce(ajob *j) {
    return tn_gloo_reduce(jctx(j, j->tag), j->bufs[0].data, j->bufs[0].numel, j->bufs[0].gt, j->red, j->root, j->tag,
                          j->tmo, &j->err);
}
static int run_barrier(ajob *j) { return tn_gloo_barrier(jctx(j, j->tag), j->tag, j->tmo, &j->err); }
static int run_allgather(ajob *j) {
    return tn_gloo_allgather(jctx(j, j->tag), j->bufs[0].data, j->flat, j->bufs[0].nbytes, j->tag, j->tmo, &j->err);
}
static int run_gather(ajob *j) {
    return tn_gloo_gather(jctx(j, j->tag), j->bufs[0].data, j->flat, j->bufs[0].nbytes, j->root, j->tag, j->tmo,
                          &j->err);
}
static int run_scatter(ajob *j) {
    return tn_gloo_scatter(jctx(j, j->tag), j->ptrs, j->bufs[0].data, j->bufs[0].nbytes, j->root, j->tag, j->tmo,
                           &j->err);
}
/* allgather into buffer 1 (a tensor) */
static int run_allgather_into(ajob *j) {
    return tn_gloo_allgather(jctx(j, j->tag), j->bufs[0].data, j->bufs[1].data, j->bufs[0].nbytes, j->tag, j->tmo,
                             &j->err);
}
static int run_alltoallv(ajob *j) {
    return tn_gloo_alltoallv(jctx(j, j->tag), j->bufs[0].data, j->cin, j->bufs[1].data, j->cout, j->tag, j->tmo,
                             &j->err);
}

/* ---- fin halves (with the GIL) */

static int div_size(PyObject *t, int size) {
    PyObject *d = PyObject_CallMethod(t, "div_", "i", size);
    Py_XDECREF(d);
    return d ? 0 : -1;
}
/* copy every written buffer back; AVG: divide o1 by the group size (upstream: SUM, then divide) */
static int fin_copyback(ajob *j) {
    for (int i = 0; i < j->nbuf; i++)
        if (tbuf_done(&j->bufs[i], 1) < 0) return -1;
    if (j->avg && j->o1 && div_size(j->o1, j->size) < 0) return -1;
    return 0;
}
/* o2[i] = the i-th block of flat o1 (viewed as o2[i]) */
static int copy_blocks(PyObject *flat, PyObject *dsts) {
    Py_ssize_t n = PySequence_Size(dsts);
    int64_t off = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_GetItem(dsts, i);
        if (!x) return -1;
        int64_t ne = tn_numel(tn_tensor_of(x));
        PyObject *sl = PyObject_CallMethod(flat, "narrow", "iLL", 0, (long long)off, (long long)ne);
        PyObject *vv = sl ? PyObject_CallMethod(sl, "view_as", "O", x) : NULL;
        PyObject *cp = vv ? PyObject_CallMethod(x, "copy_", "O", vv) : NULL;
        Py_XDECREF(sl);
        Py_XDECREF(vv);
        Py_DECREF(x);
        if (!cp) return -1;
        Py_DECREF(cp);
        off += ne;
    }
    return 0;
}
/* allreduce_coalesced: o1 the flat reduced buffer, o2 the user's tensors */
static int fin_coalesced(ajob *j) {
    if (fin_copyback(j) < 0) return -1;
    return copy_blocks(j->o1, j->o2);
}
/* _reduce_scatter_base: o1 the reduced clone of the whole input, o2 the output */
static int fin_rs_base(ajob *j) {
    PyObject *ch = PyObject_CallMethod(j->o1, "chunk", "i", j->size);
    PyObject *mine = ch ? PySequence_GetItem(ch, j->rank) : NULL;
    PyObject *v = mine ? PyObject_CallMethod(mine, "view_as", "O", j->o2) : NULL;
    PyObject *cp = v ? PyObject_CallMethod(j->o2, "copy_", "O", v) : NULL;
    Py_XDECREF(ch);
    Py_XDECREF(mine);
    Py_XDECREF(v);
    Py_XDECREF(cp);
    if (!cp) return -1;
    return j->avg ? div_size(j->o2, j->size) : 0;
}
/* allgather / gather: block i of the flat scratch into output i of o1 (checked at the call) */
static int fin_blocks(ajob *j) {
    if (!j->o1) return 0;
    Py_ssize_t n = PySequence_Size(j->o1);
    size_t nb = j->bufs[0].nbytes;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_GetItem(j->o1, i);
        tbuf ob;
        if (!o || tbuf_get(o, &ob, 1) < 0) { Py_XDECREF(o); return -1; }
        if (ob.nbytes == nb && nb) memcpy(ob.data, j->flat + (size_t)i * nb, nb);
        int bad = tbuf_done(&ob, 1);
        Py_DECREF(o);
        if (bad < 0) return -1;
    }
    return 0;
}
/* scatter: the output (buffer 0) only */
static int fin_first(ajob *j) { return tbuf_done(&j->bufs[0], 1); }
/* alltoall / allgather_into_tensor_coalesced: the output (buffer 1); then the flat output o1
 * copied into the tensors of o2 in order (alltoall's list form, the coalesced pieces) */
static int fin_alltoall(ajob *j) {
    if (tbuf_done(&j->bufs[1], 1) < 0) return -1;
    return j->o2 ? copy_blocks(j->o1, j->o2) : 0;
}

/* ---- the calls */

static void shape_str(tn_tensor *t, char *buf, size_t n) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int d = 0; d < t->ndim && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, d ? ", %lld" : "%lld", (long long)t->sizes[d]);
    if (k < n) snprintf(buf + k, n - k, ")");
}
/* tensor o (entry i of a list) has want's sizes, else upstream's RuntimeError */
static int check_shape(const char *op, tn_tensor *want, PyObject *o, int i) {
    if (!tn_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(o));
        return -1;
    }
    tn_tensor *t = tn_tensor_of(o);
    int same = t->ndim == want->ndim;
    for (int d = 0; same && d < t->ndim; d++) same = t->sizes[d] == want->sizes[d];
    if (same) return 0;
    char a[256], b[256];
    shape_str(want, a, sizeof a);
    shape_str(t, b, sizeof b);
    PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::%s: invalid tensor size at index %d (expected %s, got %s)", op,
                 i, a, b);
    return -1;
}

/* c10's name of a tensor's layout (upstream's "invalid tensor layout" / TensorOptions texts) */
static const char *layout_name(PyObject *o) {
    const tn_sparse *sp = ((tn_tensor_obj *)o)->sparse;
    if (!sp) return "Strided";
    static const char *const names[] = {"Sparse", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc"};
    return sp->kind >= 0 && sp->kind <= TN_SPARSE_BSC ? names[sp->kind] : "Sparse";
}
/* c10's TensorOptions text of a CPU tensor, as upstream's "invalid tensor type" messages print it */
static const char *typemeta_name(const char *torch_name);
static int opts_text(PyObject *o, char *buf, size_t n) {
    PyObject *dt = PyObject_GetAttrString(o, "dtype"), *ds = dt ? PyObject_Str(dt) : NULL;
    Py_XDECREF(dt);
    if (!ds) return -1;
    snprintf(buf, n,
             "TensorOptions(dtype=%s, device=cpu, layout=%s, requires_grad=false (default), pinned_memory=false "
             "(default), memory_format=(nullopt))",
             typemeta_name(PyUnicode_AsUTF8AndSize(ds, NULL)), layout_name(o));
    Py_DECREF(ds);
    return 0;
}
/* upstream's assertTypeAndSizesMatch for one tensor: o (reported as index i) has ref's dtype, then
 * its sizes; else RuntimeError "ProcessGroupGloo::<op>: invalid tensor type|size at index i ..." */
static int check_like(const char *op, PyObject *ref, PyObject *o, Py_ssize_t i) {
    if (!tn_py_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(o));
        return -1;
    }
    if (tn_tensor_of(o)->dtype != tn_tensor_of(ref)->dtype) {
        char a[300], b[300];
        if (opts_text(ref, a, sizeof a) < 0 || opts_text(o, b, sizeof b) < 0) return -1;
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::%s: invalid tensor type at index %zd (expected %s, got %s)",
                     op, i, a, b);
        return -1;
    }
    return check_shape(op, tn_tensor_of(ref), o, (int)i);
}
/* a new list of the tensors of lst (a tensor: [it]); empty: upstream's RuntimeError */
static PyObject *tensor_list(PyObject *lst, const char *op, const char *what) {
    PyObject *l = tn_py_is_tensor(lst) ? list1(1, lst) : PySequence_List(lst);
    if (!l) return NULL;
    if (PyList_Size(l) == 0) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::%s: requires non-empty %stensor list", op, what);
        Py_DECREF(l);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_Size(l); i++)
        if (!tn_py_is_tensor(PyList_GetItem(l, i))) {
            PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(PyList_GetItem(l, i)));
            Py_DECREF(l);
            return NULL;
        }
    return l;
}

/* the gloo reduction of ReduceOp value r on tb, or -1 (error set) */
static int red_for(long r, tbuf *tb) {
    if (tb->complex && !(r == 0 || r == 1)) {
        PyErr_SetString(PyExc_RuntimeError, "all_reduce does not support this ReduceOp on complex tensors");
        return -1;
    }
    return red_code(r, tb->gt);
}

/* ---- all_reduce of sparse COO tensors: upstream's AsyncSparseAllreduceWork (measured on upstream
 * 2.13, docs/distributed.md "Sparse all_reduce"). The list is summed into tensors[0] (add_) and
 * coalesced; one tag carries three exchanges on the allgather slot: an allgather of every rank's
 * 9 int64 (sparse sizes [0:4], dense sizes [4:8], zero-padded, nnz [8]), an allgatherv of the
 * indices ([sparse_dim, nnz] row-major int64) and one of the values ([nnz, *dense]); then every
 * rank sums the W sparse tensors in rank order (add_), coalesces, and copy_s the sum into every
 * input. The metadata of a peer is checked before anything is sized from it. */
enum { SP_META = 9, SP_MAXDIM = 4 };
typedef struct {
    int sdim, ddim, gt;                 /* gt < 0: upstream's "Invalid scalar type" at the values */
    const char *fail;                   /* a run-time failure before the exchange (upstream's assert) */
    int64_t *meta;                      /* W rows of SP_META */
    const void *idx, *val;              /* this rank's coalesced indices / values (held by o2) */
    size_t dnumel, esz;
    size_t *icnt, *vcnt;                /* bytes per rank */
    uint8_t *iout, *vout;
} spjob;

/* upstream's SparseTensorMetadata::sizes(): the sparse then dense sizes, each list up to its first
 * entry <= 0 */
static int sp_sizes(const int64_t *m, int64_t *out) {
    int n = 0;
    for (int i = 0; i < SP_MAXDIM && m[i] > 0; i++) out[n++] = m[i];
    for (int i = SP_MAXDIM; i < 2 * SP_MAXDIM && m[i] > 0; i++) out[n++] = m[i];
    return n;
}

static int run_sparse_allreduce(ajob *j) {
    spjob *sp = j->ext;
    tn_gloo_ctx *c = jctx(j, j->tag);
    int W = j->size;
    if (sp->fail) {
        tn_derr_set(&j->err, TN_DERR_BACKEND, "%s", sp->fail);
        return -1;
    }
    if (tn_gloo_allgather(c, NULL, sp->meta, SP_META * sizeof(int64_t), j->tag, j->tmo, &j->err) < 0) return -1;
    int64_t mine[2 * SP_MAXDIM], theirs[2 * SP_MAXDIM];
    int nm = sp_sizes(sp->meta + (size_t)j->rank * SP_META, mine);
    for (int r = 0; r < W; r++) {
        const int64_t *m = sp->meta + (size_t)r * SP_META;
        if (r != j->rank) {
            int nt = sp_sizes(m, theirs);
            if (nt != nm || memcmp(mine, theirs, (size_t)nm * sizeof *mine)) {
                tn_derr_set(&j->err, TN_DERR_BACKEND, "Sparse dimensions do not match");
                return -1;
            }
        }
        /* a peer's nnz sizes our buffers: refuse what no real tensor has (the transport's 2^48 cap) */
        uint64_t nnz = (uint64_t)m[8], lim = (uint64_t)1 << 48;
        if (m[8] < 0 || nnz > lim / 8 / (uint64_t)(sp->sdim ? sp->sdim : 1) ||
            (sp->dnumel && nnz > lim / sp->esz / sp->dnumel)) {
            tn_derr_set(&j->err, TN_DERR_BACKEND, "ProcessGroupGloo::allreduce: rank %d announced %lld sparse entries",
                        r, (long long)m[8]);
            return -1;
        }
        sp->icnt[r] = (size_t)nnz * (size_t)sp->sdim * 8;
        sp->vcnt[r] = (size_t)nnz * sp->dnumel * sp->esz;
    }
    size_t it = 0, vt = 0;
    for (int r = 0; r < W; r++) it += sp->icnt[r], vt += sp->vcnt[r];
    if (!(sp->iout = malloc(it ? it : 1)) || !(sp->vout = malloc(vt ? vt : 1))) {
        tn_derr_set(&j->err, TN_DERR_MEMORY, "out of memory");
        return -1;
    }
    if (tn_gloo_allgatherv(c, sp->idx, sp->iout, sp->icnt, j->tag, j->tmo, &j->err) < 0) return -1;
    if (sp->gt < 0) {
        tn_derr_set(&j->err, TN_DERR_BACKEND, "Invalid scalar type");
        return -1;
    }
    return tn_gloo_allgatherv(c, sp->val, sp->vout, sp->vcnt, j->tag, j->tmo, &j->err);
}

/* a new tensor of `dtype` and shape (n, *rest) holding nbytes of p */
static PyObject *sp_tensor(PyObject *torch, PyObject *dtype, PyObject *shape, const void *p, size_t nbytes) {
    PyObject *kw = Py_BuildValue("{s:O}", "dtype", dtype);
    PyObject *fn = kw ? PyObject_GetAttrString(torch, "empty") : NULL;
    PyObject *a = fn ? PyTuple_Pack(1, shape) : NULL;
    PyObject *t = a ? PyObject_Call(fn, a, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(fn);
    Py_XDECREF(a);
    if (t && nbytes) memcpy(tn_data(tn_tensor_of(t)), p, nbytes);
    return t;
}

/* with the GIL: sum the gathered tensors in rank order, coalesce, copy into every input (o2[0:]) */
static int fin_sparse_allreduce(ajob *j) {
    spjob *sp = j->ext;
    PyObject *inputs = PyTuple_GetItem(j->o2, 0), *c = j->o1;
    PyObject *torch = PyImport_ImportModule("torch"), *sum = NULL;
    PyObject *dtype = torch ? PyObject_GetAttrString(c, "dtype") : NULL, *size = NULL, *kw = NULL, *ctor = NULL;
    int rc = -1;
    if (!dtype || !(size = PyObject_CallMethod(c, "size", NULL)) || !(kw = Py_BuildValue("{s:O}", "check_invariants", Py_False)) ||
        !(ctor = PyObject_GetAttrString(torch, "sparse_coo_tensor")))
        goto out;
    PyObject *i64 = PyObject_GetAttrString(torch, "int64");
    if (!i64) goto out;
    size_t ioff = 0, voff = 0;
    for (int r = 0; r < j->size; r++) {
        long long nnz = (long long)sp->meta[(size_t)r * SP_META + 8];
        PyObject *ish = Py_BuildValue("(iL)", sp->sdim, nnz), *vsh = PyTuple_New(1 + sp->ddim);
        if (vsh) {
            PyTuple_SetItem(vsh, 0, PyLong_FromLongLong(nnz));
            for (int d = 0; d < sp->ddim; d++)
                PyTuple_SetItem(vsh, 1 + d, PyLong_FromLongLong(tn_tensor_of(c)->sizes[sp->sdim + d]));
        }
        PyObject *it = ish ? sp_tensor(torch, i64, ish, sp->iout + ioff, sp->icnt[r]) : NULL;
        PyObject *vt = it && vsh ? sp_tensor(torch, dtype, vsh, sp->vout + voff, sp->vcnt[r]) : NULL;
        PyObject *args = vt ? PyTuple_Pack(3, it, vt, size) : NULL;
        PyObject *one = args ? PyObject_Call(ctor, args, kw) : NULL;
        Py_XDECREF(ish);
        Py_XDECREF(vsh);
        Py_XDECREF(it);
        Py_XDECREF(vt);
        Py_XDECREF(args);
        if (!one) { Py_DECREF(i64); goto out; }
        ioff += sp->icnt[r];
        voff += sp->vcnt[r];
        if (!sum) { sum = one; continue; }
        PyObject *x = PyObject_CallMethod(sum, "add_", "O", one);
        Py_DECREF(one);
        if (!x) { Py_DECREF(i64); goto out; }
        Py_DECREF(x);
    }
    Py_DECREF(i64);
    PyObject *co = PyObject_CallMethod(sum, "coalesce", NULL);
    Py_DECREF(sum);
    if (!(sum = co)) goto out;
    for (Py_ssize_t i = 0; i < PyList_Size(inputs); i++) {
        PyObject *x = PyObject_CallMethod(PyList_GetItem(inputs, i), "copy_", "O", sum);
        if (!x) goto out;
        Py_DECREF(x);
    }
    rc = 0;
out:
    Py_XDECREF(torch);
    Py_XDECREF(sum);
    Py_XDECREF(dtype);
    Py_XDECREF(size);
    Py_XDECREF(kw);
    Py_XDECREF(ctor);
    return rc;
}

static void sp_free(void *p) {
    spjob *sp = p;
    free(sp->meta);
    free(sp->icnt);
    free(sp->vcnt);
    free(sp->iout);
    free(sp->vout);
    free(sp);
}

/* the call half: res the checked list of sparse COO tensors, r the ReduceOp */
static PyObject *sparse_allreduce(PyObject *self, PyObject *res, long r, PyObject *opts) {
    if (r != 0) {
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::allreduce: unsupported reduction operation "
                                            "(allreduce of sparse tensors only works with ReduceOp.SUM)");
        return NULL;
    }
    backend_obj *b = (backend_obj *)self;
    PyObject *t0 = PyList_GetItem(res, 0), *c = NULL, *idx = NULL, *val = NULL;
    for (Py_ssize_t i = 1; i < PyList_Size(res); i++) {   /* upstream's input += tensors[i] */
        PyObject *x = PyObject_CallMethod(t0, "add_", "O", PyList_GetItem(res, i));
        if (!x) return NULL;
        Py_DECREF(x);
    }
    ajob *j = job_new(0);
    spjob *sp = j ? calloc(1, sizeof *sp) : NULL;
    if (!sp) { if (j) job_release(j); return PyErr_NoMemory(); }
    j->ext = sp;
    j->ext_free = sp_free;
    if (!(c = PyObject_CallMethod(t0, "coalesce", NULL))) goto fail;
    const tn_sparse *s = ((tn_tensor_obj *)c)->sparse;
    tn_tensor *ct = tn_tensor_of(c);
    sp->sdim = s->sparse_dim;
    sp->ddim = s->dense_dim;
    int cx;
    sp->gt = gloo_type(ct->dtype, &cx);
    if (cx) sp->gt = -1;
    sp->esz = (size_t)tn_dtype_itemsize(ct->dtype);
    sp->dnumel = 1;
    for (int d = sp->sdim; d < ct->ndim; d++) sp->dnumel *= (size_t)ct->sizes[d];
    if (sp->sdim > SP_MAXDIM)   /* upstream's AT_ASSERT in SparseTensorMetadata, word for word */
        sp->fail = "sparse_dim <= 4 INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/csrc/distributed/c10d/"
                   "ProcessGroupGlooDetail.hpp\":433, please report a bug to PyTorch. ";
    else if (sp->ddim > SP_MAXDIM)
        sp->fail = "dense_dim <= 4 INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/csrc/distributed/c10d/"
                   "ProcessGroupGlooDetail.hpp\":440, please report a bug to PyTorch. ";
    if (!(sp->meta = calloc((size_t)b->size * SP_META, sizeof *sp->meta)) ||
        !(sp->icnt = calloc((size_t)b->size, sizeof *sp->icnt)) || !(sp->vcnt = calloc((size_t)b->size, sizeof *sp->vcnt))) {
        PyErr_NoMemory();
        goto fail;
    }
    if (!sp->fail) {
        int64_t *m = sp->meta + (size_t)b->rank * SP_META;
        for (int d = 0; d < sp->sdim; d++) m[d] = ct->sizes[d];
        for (int d = 0; d < sp->ddim; d++) m[SP_MAXDIM + d] = ct->sizes[sp->sdim + d];
        PyObject *iv = PyObject_CallMethod(c, "_indices", NULL), *vv = PyObject_CallMethod(c, "_values", NULL);
        idx = iv ? PyObject_CallMethod(iv, "contiguous", NULL) : NULL;
        val = vv ? PyObject_CallMethod(vv, "contiguous", NULL) : NULL;
        Py_XDECREF(iv);
        Py_XDECREF(vv);
        if (!idx || !val) goto fail;
        m[8] = tn_tensor_of(idx)->ndim == 2 ? tn_tensor_of(idx)->sizes[1] : 0;
        sp->idx = tn_numel(tn_tensor_of(idx)) ? tn_data(tn_tensor_of(idx)) : NULL;
        sp->val = tn_numel(tn_tensor_of(val)) ? tn_data(tn_tensor_of(val)) : NULL;
    }
    j->run = run_sparse_allreduce;
    j->fin = fin_sparse_allreduce;
    j->o1 = c;
    j->o2 = Py_BuildValue("(ONN)", res, idx ? idx : Py_NewRef(Py_None), val ? val : Py_NewRef(Py_None));
    idx = val = NULL;
    if (!j->o2) { job_release(j); return NULL; }
    return submit(self, j, res, 1, opts, 0);
fail:
    Py_XDECREF(c);
    Py_XDECREF(idx);
    Py_XDECREF(val);
    job_release(j);
    return NULL;
}

/* allreduce of a list of tensors of one dtype and shape (upstream checks tensors[1:] against
 * tensors[0], reporting their index in that tail); every tensor gets the reduction of all of them
 * on every rank; AVG divides the first tensor only (measured on upstream 2.13: its
 * AsyncAllreduceWork divides tensors[0]) */
static PyObject *g_allreduce(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "opts", NULL};
    PyObject *lst, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:allreduce", kws, &lst, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *res = tensor_list(lst, "allreduce", "");
    if (!res) return NULL;
    Py_ssize_t n = PyList_Size(res);
    PyObject *t = PyList_GetItem(res, 0);
    for (Py_ssize_t i = 1; i < n; i++)   /* upstream's assertLayoutMatch, then assertTypeAndSizesMatch */
        if (strcmp(layout_name(PyList_GetItem(res, i)), layout_name(t))) {
            PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::allreduce: invalid tensor layout at index %zd "
                         "(expected %s, got %s)", i, layout_name(t), layout_name(PyList_GetItem(res, i)));
            Py_DECREF(res);
            return NULL;
        }
    for (Py_ssize_t i = 1; i < n; i++)
        if (check_like("allreduce", t, PyList_GetItem(res, i), i - 1) < 0) { Py_DECREF(res); return NULL; }
    long r = opt_redop(opts);
    const tn_sparse *sp0 = ((tn_tensor_obj *)t)->sparse;
    if (r >= 0 && sp0 && sp0->kind != TN_SPARSE_COO) {   /* upstream's makeAllreduceCPUWork, after its nextTag() */
        next_tag(gloo_of(self));
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::allreduce: unsupported layout");
        r = -1;
    }
    if (r >= 0 && sp0) {
        PyObject *w = sparse_allreduce(self, res, r, opts);
        Py_DECREF(res);
        return w;
    }
    ajob *j = r < 0 ? NULL : job_new((int)n);
    if (!j) { Py_DECREF(res); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++, j->nbuf++)
        if (tbuf_raw(PyList_GetItem(res, i), &j->bufs[i]) < 0) { Py_DECREF(res); job_release(j); return NULL; }
    if ((j->red = red_for(r, &j->bufs[0])) < 0) { Py_DECREF(res); job_release(j); return NULL; }
    j->run = run_allreduce_list;
    j->fin = fin_copyback;
    j->avg = r == 1;
    j->o1 = Py_NewRef(t);
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

/* allreduce_coalesced: flatten, one allreduce, copy back (upstream's AsyncAllreduceCoalescedWork) */
static PyObject *g_allreduce_coalesced(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "opts", NULL};
    PyObject *lst, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:allreduce_coalesced", kws, &lst, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return NULL;
    PyObject *views = PyList_New(0);
    Py_ssize_t n = PySequence_Size(lst);
    for (Py_ssize_t i = 0; views && i < n; i++) {
        PyObject *x = PySequence_GetItem(lst, i);
        PyObject *v = x ? PyObject_CallMethod(x, "reshape", "i", -1) : NULL;
        Py_XDECREF(x);
        if (!v || PyList_Append(views, v) < 0) Py_CLEAR(views);
        Py_XDECREF(v);
    }
    PyObject *flat = views ? PyObject_CallMethod(torch, "cat", "(O)", views) : NULL;
    Py_XDECREF(views);
    Py_DECREF(torch);
    if (!flat) return NULL;
    long r = opt_redop(opts);
    ajob *j = r < 0 ? NULL : job_new(1);
    if (!j) { Py_DECREF(flat); return NULL; }
    j->o1 = flat;
    PyObject *res = NULL;
    if (job_buf(j, flat) < 0 || (j->red = red_for(r, &j->bufs[0])) < 0 || !(j->o2 = PySequence_List(lst)) ||
        !(res = as_list(lst))) {
        job_release(j);
        return NULL;
    }
    j->run = run_allreduce;
    j->fin = fin_coalesced;
    j->avg = r == 1;
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

/* fin of a broadcast: the received tensor back into the user's (when copied), then every other
 * tensor of the list (o2) copy_ from it, elementwise (measured on upstream: a contiguous tensor
 * next to a transposed root tensor gets its values, not its memory) */
static int fin_broadcast(ajob *j) {
    if (tbuf_done(&j->bufs[0], 1) < 0) return -1;
    Py_ssize_t n = j->o2 ? PyList_Size(j->o2) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GetItem(j->o2, i);
        if (x == j->o1) continue;
        PyObject *cp = PyObject_CallMethod(x, "copy_", "O", j->o1);
        if (!cp) return -1;
        Py_DECREF(cp);
    }
    return 0;
}
/* broadcast of tensors[rootTensor] of the root rank into every tensor of the list on every rank */
static PyObject *g_broadcast(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "opts", NULL};
    PyObject *lst, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:broadcast", kws, &lst, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    long root = opt_long(opts, "rootRank", 0), rt = opt_long(opts, "rootTensor", 0);
    if (PyErr_Occurred()) return NULL;
    if (root < 0 || root >= b->size) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::broadcast: invalid root rank: %ld", root);
        return NULL;
    }
    PyObject *res = tensor_list(lst, "broadcast", "");
    if (!res) return NULL;
    Py_ssize_t n = PyList_Size(res);
    if (rt < 0 || rt >= n) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::broadcast: invalid root tensor: %ld", rt);
        Py_DECREF(res);
        return NULL;
    }
    PyObject *t = PyList_GetItem(res, rt);
    for (Py_ssize_t i = 1; i < n; i++)
        if (check_like("broadcast", PyList_GetItem(res, 0), PyList_GetItem(res, i), i - 1) < 0) {
            Py_DECREF(res);
            return NULL;
        }
    ajob *j = job_new(1);
    if (!j) { Py_DECREF(res); return NULL; }
    if (tbuf_raw(t, &j->bufs[0]) < 0) { Py_DECREF(res); job_release(j); return NULL; }
    j->nbuf = 1;   /* the root tensor's memory as it lies (measured: a transposed tensor travels in
                    * memory order, so a mixed world agrees only this way) */
    j->run = run_broadcast;
    j->fin = fin_broadcast;
    j->root = (int)root;
    j->o1 = Py_NewRef(t);
    j->o2 = Py_NewRef(res);
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

static PyObject *g_barrier(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"opts", NULL};
    PyObject *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:barrier", kws, &opts)) return NULL;
    if (!gloo_of(self)) return NULL;
    ajob *j = job_new(0);
    if (!j) return NULL;
    j->run = run_barrier;
    return submit(self, j, NULL, 1, opts, 0);
}

/* allgather of `in` into the tensors of `outs` (checked here: the group's size, in's dtype and
 * size); the Work's result is `outs` */
static PyObject *allgather_job(PyObject *self, PyObject *in, PyObject *outs, PyObject *opts, int check_shape_flag) {
    backend_obj *b = (backend_obj *)self;
    Py_ssize_t n = PySequence_Size(outs);
    if (n < 0) return NULL;
    if (n != b->size) {
        PyErr_Format(PyExc_RuntimeError,
                     "ProcessGroupGloo::allgather: invalid output tensor list at index 0 (expected length %d, got %zd)",
                     b->size, n);
        return NULL;
    }
    ajob *j = job_new(1);
    if (!j) return NULL;
    if (job_buf(j, in) < 0) { job_release(j); return NULL; }
    tn_tensor *it = tn_tensor_of(in);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PySequence_GetItem(outs, i);
        int ok = o && (!check_shape_flag || check_shape("allgather", it, o, (int)i) == 0) && tn_py_is_tensor(o) &&
                 tn_tensor_of(o)->dtype == it->dtype && tn_numel(tn_tensor_of(o)) == tn_numel(it);
        Py_XDECREF(o);
        if (!ok) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_RuntimeError,
                                "ProcessGroupGloo::allgather: invalid tensor type or size in the output list");
            job_release(j);
            return NULL;
        }
    }
    if (!(j->flat = malloc(j->bufs[0].nbytes * (size_t)b->size + 1)) || !(j->o1 = PySequence_List(outs))) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        job_release(j);
        return NULL;
    }
    j->run = run_allgather;
    j->fin = fin_blocks;
    return submit(self, j, j->o1, 1, opts, 0);
}

/* o1 (the flat gathered tensor) into every output list of o2, block by block */
static int fin_allgather_lists(ajob *j) {
    if (tbuf_done(&j->bufs[1], 1) < 0) return -1;
    for (Py_ssize_t i = 0; i < PyList_Size(j->o2); i++)
        if (copy_blocks(j->o1, PyList_GetItem(j->o2, i)) < 0) return -1;
    return 0;
}
/* the concatenation of the tensors of list l, flattened (upstream's flattenDenseTensors) */
static PyObject *cat_flat(PyObject *l) {
    PyObject *torch = PyImport_ImportModule("torch"), *views = torch ? PyList_New(0) : NULL, *flat = NULL;
    for (Py_ssize_t i = 0; views && i < PyList_Size(l); i++) {
        PyObject *v = PyObject_CallMethod(PyList_GetItem(l, i), "reshape", "i", -1);
        if (!v || PyList_Append(views, v) < 0) Py_CLEAR(views);
        Py_XDECREF(v);
    }
    if (views) flat = PyObject_CallMethod(torch, "cat", "(O)", views);
    Py_XDECREF(views);
    Py_XDECREF(torch);
    return flat;
}
/* allgather(output_lists, inputs): n inputs of one dtype and shape; output list i holds n * world
 * tensors, [rank 0's n inputs, rank 1's, ...] (every list the same); one gloo allgather of the
 * inputs' concatenation. Checks and messages as upstream's. With n > 1, result() refuses the list
 * of lists and the Future's value is it, as upstream's (measured). */
static PyObject *g_allgather(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_tensors", "input_tensors", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:allgather", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *il = tensor_list(ins, "allgather", "input "), *ol = NULL, *w = NULL, *flat_in = NULL;
    ajob *j = NULL;
    if (!il || !(ol = PySequence_List(outs))) goto done;
    Py_ssize_t n = PyList_Size(il);
    if (PyList_Size(ol) != n) {
        PyErr_SetString(PyExc_RuntimeError,
                        "ProcessGroupGloo::allgather: requires input/output tensor lists to have the same length");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_List(PyList_GetItem(ol, i));
        if (!x || PyList_SetItem(ol, i, x) < 0) goto done;
        if (PyList_Size(x) != n * b->size) {
            PyErr_Format(PyExc_RuntimeError,
                         "ProcessGroupGloo::allgather: invalid output tensor list at index %zd (expected length %zd, "
                         "got %zd)", i, n * b->size, PyList_Size(x));
            goto done;
        }
    }
    PyObject *t = PyList_GetItem(il, 0);
    for (Py_ssize_t i = 0; i < n; i++)
        if (check_like("allgather", t, PyList_GetItem(il, i), i) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyList_GetItem(ol, i);
        for (Py_ssize_t k = 0; k < PyList_Size(x); k++)
            if (check_like("allgather", t, PyList_GetItem(x, k), k) < 0) goto done;
    }
    if (n == 1) {
        w = allgather_job(self, t, PyList_GetItem(ol, 0), opts, 1);
        goto done;
    }
    if (!(flat_in = cat_flat(il))) goto done;
    if (!(j = job_new(2))) goto done;
    j->o1 = PyObject_CallMethod(flat_in, "new_empty", "((L))", (long long)tn_numel(tn_tensor_of(flat_in)) * b->size);
    if (!j->o1 || job_buf(j, flat_in) < 0 || job_buf(j, j->o1) < 0) goto done;
    j->o2 = Py_NewRef(ol);
    j->run = run_allgather_into;
    j->fin = fin_allgather_lists;
    {
        ajob *jj = j;
        j = NULL;
        if ((w = submit(self, jj, ol, 1, opts, 0))) ((work_obj *)w)->nested = 1;
    }
done:
    if (j) job_release(j);
    Py_XDECREF(flat_in);
    Py_XDECREF(il);
    Py_XDECREF(ol);
    return w;
}

static PyObject *g_allgather_base(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output", "input", "opts", NULL};
    PyObject *out, *in, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_allgather_base", kws, &out, &in, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *t = one_tensor(in, "_allgather_base");
    if (!t) return NULL;
    PyObject *chunks = PyObject_CallMethod(out, "chunk", "i", b->size);
    if (!chunks) return NULL;
    PyObject *w = allgather_job(self, t, chunks, opts, 0);   /* result: the chunks, as upstream */
    Py_DECREF(chunks);
    return w;
}

static PyObject *g_gather(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_tensors", "input_tensors", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:gather", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    long root = opt_long(opts, "rootRank", 0);
    if (root < 0 || root >= b->size) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::gather: invalid root rank: %ld", root);
        return NULL;
    }
    PyObject *t = one_tensor(ins, "gather");
    if (!t) return NULL;
    ajob *j = job_new(1);
    if (!j) return NULL;
    if (job_buf(j, t) < 0) { job_release(j); return NULL; }
    if (b->rank == root) {
        PyObject *ol = PySequence_GetItem(outs, 0);
        if (!ol || PySequence_Size(ol) != b->size) {
            Py_XDECREF(ol);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::gather: Incorrect output list size");
            job_release(j);
            return NULL;
        }
        j->o1 = PySequence_List(ol);
        Py_DECREF(ol);
        for (int i = 0; j->o1 && i < b->size; i++)
            if (check_shape("gather", tn_tensor_of(t), PyList_GetItem(j->o1, i), i) < 0) Py_CLEAR(j->o1);
        if (!j->o1 || !(j->flat = malloc(j->bufs[0].nbytes * (size_t)b->size + 1))) {
            if (!PyErr_Occurred()) PyErr_NoMemory();
            job_release(j);
            return NULL;
        }
    }
    j->run = run_gather;
    j->fin = fin_blocks;
    j->root = (int)root;
    return submit(self, j, j->o1, 1, opts, 0);   /* result: the root's outputs, [] elsewhere */
}

static PyObject *g_scatter(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_tensors", "input_tensors", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:scatter", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    long root = opt_long(opts, "rootRank", 0);
    if (root < 0 || root >= b->size) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::scatter: invalid root rank: %ld", root);
        return NULL;
    }
    PyObject *t = one_tensor(outs, "scatter");
    if (!t) return NULL;
    ajob *j = job_new(1 + (b->rank == root ? b->size : 0));
    if (!j) return NULL;
    if (job_buf(j, t) < 0) { job_release(j); return NULL; }
    if (b->rank == root) {
        PyObject *il = PySequence_GetItem(ins, 0);
        if (!il || PySequence_Size(il) != b->size) {
            Py_XDECREF(il);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::scatter: Incorrect input list size");
            job_release(j);
            return NULL;
        }
        if (!(j->ptrs = calloc((size_t)b->size, sizeof *j->ptrs))) {
            Py_DECREF(il);
            job_release(j);
            return PyErr_NoMemory();
        }
        for (int i = 0; i < b->size; i++) {
            PyObject *o = PySequence_GetItem(il, i);
            int bad = !o || check_shape("scatter", tn_tensor_of(t), o, i) < 0 || job_buf(j, o) < 0;
            Py_XDECREF(o);
            if (bad) { Py_DECREF(il); job_release(j); return NULL; }
            j->ptrs[i] = j->bufs[1 + i].data;
        }
        Py_DECREF(il);
    }
    PyObject *res = as_list(outs);
    if (!res) { job_release(j); return NULL; }
    j->run = run_scatter;
    j->fin = fin_first;
    j->root = (int)root;
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

/* the name c10's TypeMeta prints for dtype "torch.X" (what upstream's TORCH_CHECK_EQ shows) */
static const char *typemeta_name(const char *torch_name) {
    static const char *const map[][2] = {
        {"torch.float32", "float"}, {"torch.float64", "double"}, {"torch.float16", "c10::Half"},
        {"torch.bfloat16", "c10::BFloat16"}, {"torch.int64", "long int"}, {"torch.int32", "int"},
        {"torch.int16", "short int"}, {"torch.int8", "signed char"}, {"torch.uint8", "unsigned char"},
        {"torch.bool", "bool"}, {"torch.complex64", "c10::complex<float>"}, {"torch.complex128", "c10::complex<double>"}};
    if (!torch_name) return "?";
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (!strcmp(map[k][0], torch_name)) return map[k][1];
    return torch_name;
}

/* upstream's reduce_scatter_tensor_coalesced checks of pair i (out, in), before anything is queued:
 * same dtype, out.size(0) * world == in.size(0), the other sizes equal (its TORCH_CHECK_EQ texts) */
static int rs_pair_check(backend_obj *b, PyObject *out, PyObject *in) {
    if (!tn_py_is_tensor(out) || !tn_py_is_tensor(in)) {
        PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s",
                     tn_py_type_name(tn_py_is_tensor(out) ? in : out));
        return -1;
    }
    tn_tensor *o = tn_tensor_of(out), *i = tn_tensor_of(in);
    if (o->dtype != i->dtype) {
        PyObject *od = PyObject_GetAttrString(out, "dtype"), *id = od ? PyObject_GetAttrString(in, "dtype") : NULL;
        PyObject *os = id ? PyObject_Str(od) : NULL, *is = os ? PyObject_Str(id) : NULL;
        if (is)
            PyErr_Format(PyExc_RuntimeError,
                         "Check failed: outputTensors[i].dtype() == inputTensors[i].dtype() (%s vs. %s). ",
                         typemeta_name(PyUnicode_AsUTF8AndSize(os, NULL)), typemeta_name(PyUnicode_AsUTF8AndSize(is, NULL)));
        Py_XDECREF(od); Py_XDECREF(id); Py_XDECREF(os); Py_XDECREF(is);
        return -1;
    }
    int64_t o0 = o->ndim ? o->sizes[0] : 1, i0 = i->ndim ? i->sizes[0] : 1;
    if (o0 * b->size != i0) {
        PyErr_Format(PyExc_RuntimeError, "Check failed: outputShape[0] * worldSize == inputShape[0] (%lld vs. %lld). ",
                     (long long)(o0 * b->size), (long long)i0);
        return -1;
    }
    for (int d = 1; d < o->ndim; d++) {
        int64_t id = d < i->ndim ? i->sizes[d] : 0;   /* upstream reads past a shorter shape */
        if (o->sizes[d] != id) {
            PyErr_Format(PyExc_RuntimeError, "Check failed: outputShape[i] == inputShape[i] (%lld vs. %lld). ",
                         (long long)o->sizes[d], (long long)id);
            return -1;
        }
    }
    return 0;
}

/* _reduce_scatter_base of one checked pair: the ring all-reduce of a clone of the whole input,
 * then this rank's block into out; upstream's LambdaWork (is_completed() stays False) */
static PyObject *rs_base_job(PyObject *self, PyObject *out, PyObject *in, PyObject *opts) {
    long r = opt_redop(opts);
    if (r < 0) return NULL;
    PyObject *flat = PyObject_CallMethod(in, "reshape", "i", -1);
    PyObject *tmp = flat ? PyObject_CallMethod(flat, "clone", NULL) : NULL;
    Py_XDECREF(flat);
    if (!tmp) return NULL;
    ajob *j = job_new(1);
    if (!j) { Py_DECREF(tmp); return NULL; }
    j->o1 = tmp;
    j->o2 = Py_NewRef(out);
    PyObject *res = NULL;
    if (job_buf(j, tmp) < 0 || (j->red = red_for(r, &j->bufs[0])) < 0 || !(res = list1(1, out))) {
        job_release(j);
        return NULL;
    }
    j->run = run_allreduce;
    j->fin = fin_rs_base;
    j->avg = r == 1;
    PyObject *w = submit(self, j, res, 1, opts, 1);
    if (w) ((work_obj *)w)->lambda = 1;
    Py_DECREF(res);
    return w;
}

static PyObject *g_reduce_scatter_base(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"outputTensor", "inputTensor", "opts", NULL};
    PyObject *out, *in, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_reduce_scatter_base", kws, &out, &in, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b || rs_pair_check(b, out, in) < 0) return NULL;
    return rs_base_job(self, out, in, opts);
}

/* The (outputs, inputs, opts) arguments of the coalesced entry points: the backend, and the two
 * sequences as new lists (NULL + exception on failure) */
static backend_obj *coalesced_args(PyObject *self, PyObject *args, PyObject *kw, const char *fmt, PyObject **ol,
                                   PyObject **il, PyObject **opts) {
    static char *kws[] = {"outputs", "inputs", "opts", NULL};
    PyObject *outs, *ins;
    *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kws, &outs, &ins, opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b || !(*ol = PySequence_List(outs))) return NULL;
    if (!(*il = PySequence_List(ins))) { Py_CLEAR(*ol); return NULL; }
    return b;
}

/* reduce_scatter_tensor_coalesced, as upstream's: every pair checked, then one all-reduce per
 * pair (a tag each); one Work whose wait() waits them in order (the first failure raises) */
static PyObject *g_reduce_scatter_tensor_coalesced(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *ol, *il, *opts;
    backend_obj *b = coalesced_args(self, args, kw, "OO|O:reduce_scatter_tensor_coalesced", &ol, &il, &opts);
    if (!b) return NULL;
    Py_ssize_t n = PyList_Size(ol);
    PyObject *w = NULL, *parts = NULL;
    if (n != PyList_Size(il)) {
        PyErr_SetString(PyExc_RuntimeError, "requires input/output tensor lists to have the same length");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (rs_pair_check(b, PyList_GetItem(ol, i), PyList_GetItem(il, i)) < 0) goto done;
    if (!(parts = PyList_New(0))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = rs_base_job(self, PyList_GetItem(ol, i), PyList_GetItem(il, i), opts);
        if (!p || PyList_Append(parts, p) < 0) { Py_XDECREF(p); goto done; }
        Py_DECREF(p);
    }
    if ((w = work_new_done(NULL))) {
        work_obj *cw = (work_obj *)w;
        cw->plain = cw->lambda = 1;
        cw->parts = Py_NewRef(parts);
        cw->owner = Py_NewRef(self);
    }
done:
    Py_XDECREF(parts);
    Py_DECREF(ol);
    Py_DECREF(il);
    return w;
}

/* the legacy type name of tensor o ("torch.FloatTensor"), or NULL */
static PyObject *type_name_of(PyObject *o) { return PyObject_CallMethod(o, "type", NULL); }

/* upstream's allgather_coalesced: output_lists (W lists of n tensors: rank r's inputs land in list
 * r) checked rank by rank, the size then the type of each against input i; ONE gloo allgather
 * (one tag) of the inputs' concatenation, then the flat result copied into the lists' tensors in
 * order. The Future's value is output_lists (its first list in a world of one); result() refuses a
 * list of lists, as upstream's. */
static PyObject *allgather_coalesced_lists(PyObject *self, PyObject *lists, PyObject *il, PyObject *opts) {
    backend_obj *b = (backend_obj *)self;
    Py_ssize_t n = PyList_Size(il);
    PyObject *pieces = PyList_New(0), *flat_in = NULL, *flat_out = NULL, *w = NULL;
    ajob *j = NULL;
    if (!pieces) return NULL;
    for (int r = 0; r < b->size; r++) {
        PyObject *l = PyList_GetItem(lists, r);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *c = PyList_GetItem(l, i), *x = PyList_GetItem(il, i);
            tn_tensor *ct = tn_tensor_of(c), *xt = tn_tensor_of(x);
            int same = ct->ndim == xt->ndim;
            for (int d = 0; same && d < ct->ndim; d++) same = ct->sizes[d] == xt->sizes[d];
            if (!same) {
                char a[256], e[256];
                shape_str(xt, e, sizeof e);
                shape_str(ct, a, sizeof a);
                PyErr_Format(PyExc_RuntimeError,
                             "ProcessGroupGloo::allgather_coalesced: invalid size of output tensor at index %zd "
                             "(expected length %s, got %s)", i, e, a);
                goto done;
            }
            if (ct->dtype != xt->dtype) {
                PyObject *tx = type_name_of(x), *tc = tx ? type_name_of(c) : NULL;
                if (tc) PyErr_Format(PyExc_RuntimeError,
                                     "ProcessGroupGloo::allgather_coalesced: invalid tensor type at index %zd "
                                     "(expected %U, got %U)", i, tx, tc);
                Py_XDECREF(tx);
                Py_XDECREF(tc);
                goto done;
            }
            if (PyList_Append(pieces, c) < 0) goto done;
        }
    }
    /* upstream's flattenDenseTensors: torch.cat of the flattened inputs (promoted), gathered as
     * numel elements of the first input's type: when cat promoted to a wider type, its first
     * numel * (the first input's element size) bytes, reinterpreted, as upstream's; a narrower
     * one would have upstream read past the buffer: refused here. */
    {
        PyObject *torch = PyImport_ImportModule("torch"), *views = PyList_New(0);
        for (Py_ssize_t i = 0; torch && views && i < n; i++) {
            PyObject *v = PyObject_CallMethod(PyList_GetItem(il, i), "reshape", "i", -1);
            if (!v || PyList_Append(views, v) < 0) Py_CLEAR(views);
            Py_XDECREF(v);
        }
        flat_in = torch && views ? PyObject_CallMethod(torch, "cat", "(O)", views) : NULL;
        Py_XDECREF(views);
        PyObject *x0 = PyList_GetItem(il, 0);
        if (flat_in && tn_dtype_itemsize(tn_tensor_of(flat_in)->dtype) < tn_dtype_itemsize(tn_tensor_of(x0)->dtype)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "ProcessGroupGloo::allgather_coalesced: the inputs' concatenation has a narrower dtype than "
                            "the first input (upstream would read past it); give inputs of one dtype");
            Py_CLEAR(flat_in);
        }
        PyObject *dt = flat_in ? PyObject_GetAttrString(x0, "dtype") : NULL;
        PyObject *empty = dt ? PyObject_GetAttrString(torch, "empty") : NULL;
        PyObject *ka = empty ? Py_BuildValue("{s:O}", "dtype", dt) : NULL;
        PyObject *sz = ka ? Py_BuildValue("(L)", (long long)(tn_numel(tn_tensor_of(flat_in)) * b->size)) : NULL;
        flat_out = sz ? PyObject_Call(empty, sz, ka) : NULL;
        Py_XDECREF(sz);
        Py_XDECREF(ka);
        Py_XDECREF(empty);
        Py_XDECREF(dt);
        Py_XDECREF(torch);
        if (!flat_out) goto done;
    }
    if (!(j = job_new(2)) || job_buf(j, flat_in) < 0 || job_buf(j, flat_out) < 0) goto done;
    j->bufs[0].nbytes = j->bufs[1].nbytes / (size_t)b->size;   /* numel of the first input's type */
    j->run = run_allgather_into;
    j->fin = fin_alltoall;
    j->o1 = Py_NewRef(flat_out);
    j->o2 = Py_NewRef(pieces);
    {
        PyObject *res = b->size > 1 ? Py_NewRef(lists) : Py_NewRef(PyList_GetItem(lists, 0));
        ajob *jj = j;
        j = NULL;
        w = submit(self, jj, res, 1, opts, 0);
        if (w && b->size > 1) ((work_obj *)w)->nested = 1;
        Py_DECREF(res);
    }
done:
    if (j) job_release(j);
    Py_XDECREF(pieces);
    Py_XDECREF(flat_in);
    Py_XDECREF(flat_out);
    return w;
}

/* allgather_into_tensor_coalesced, as upstream's: allgather_coalesced over output_lists[r][i] =
 * outputs[i].chunk(world)[r] */
static PyObject *g_allgather_into_tensor_coalesced(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *ol, *il, *opts;
    backend_obj *b = coalesced_args(self, args, kw, "OO|O:allgather_into_tensor_coalesced", &ol, &il, &opts);
    if (!b) return NULL;
    Py_ssize_t n = PyList_Size(ol);
    PyObject *lists = NULL, *w = NULL;
    if (n != PyList_Size(il)) {
        PyErr_Format(PyExc_RuntimeError, "Check failed: outputs.size() == inputs.size() (%zd vs. %zd). ", n,
                     PyList_Size(il));
        goto done;
    }
    if (n == 0) {
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::allgather_coalesced: requires non-empty input tensor list");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GetItem(ol, i), *x = PyList_GetItem(il, i);
        if (!tn_py_is_tensor(o) || !tn_py_is_tensor(x)) {
            PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(tn_py_is_tensor(o) ? x : o));
            goto done;
        }
    }
    /* output_lists[r][i] = outputs[i].chunk(world)[r], checked as upstream's: rank by rank, the
     * size then the type of each */
    if (!(lists = PyList_New(b->size))) goto done;
    for (int r = 0; r < b->size; r++) {
        PyObject *l = PyList_New(0);
        if (!l) goto done;
        PyList_SetItem(lists, r, l);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *ch = PyObject_CallMethod(PyList_GetItem(ol, i), "chunk", "i", b->size);
        if (!ch) goto done;
        Py_ssize_t nc = PySequence_Size(ch);
        for (int r = 0; r < b->size; r++) {
            PyObject *c = r < nc ? PySequence_GetItem(ch, r) : NULL;
            if (!c) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_RuntimeError,
                                 "ProcessGroupGloo::allgather_coalesced: invalid output tensor at index %zd (it has %zd "
                                 "chunks, not the world size %d)", i, nc, b->size);
                Py_DECREF(ch);
                goto done;
            }
            int bad = PyList_Append(PyList_GetItem(lists, r), c);
            Py_DECREF(c);
            if (bad) { Py_DECREF(ch); goto done; }
        }
        Py_DECREF(ch);
    }
    w = allgather_coalesced_lists(self, lists, il, opts);
done:
    Py_XDECREF(lists);
    Py_DECREF(ol);
    Py_DECREF(il);
    return w;
}

/* allgather_coalesced(output_lists, input_list), upstream's checks and messages */
static PyObject *g_allgather_coalesced(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_lists", "input_list", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:allgather_coalesced", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *il = tensor_list(ins, "allgather_coalesced", "input "), *lists = NULL, *w = NULL;
    if (!il || !(lists = PySequence_List(outs))) goto done;
    if (PyList_Size(lists) != b->size) {
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::allgather_coalesced: output lists should be equal to world size");
        goto done;
    }
    for (Py_ssize_t r = 0; r < b->size; r++) {
        PyObject *x = PySequence_List(PyList_GetItem(lists, r));
        if (!x || PyList_SetItem(lists, r, x) < 0) goto done;
        if (PyList_Size(x) != PyList_Size(il)) {
            PyErr_Format(PyExc_RuntimeError,
                         "ProcessGroupGloo::allgather_coalesced: invalid output size: (expected length %zd, got %zd)",
                         PyList_Size(il), PyList_Size(x));
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_Size(x); i++)
            if (!tn_py_is_tensor(PyList_GetItem(x, i))) {
                PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", tn_py_type_name(PyList_GetItem(x, i)));
                goto done;
            }
    }
    w = allgather_coalesced_lists(self, lists, il, opts);
done:
    Py_XDECREF(il);
    Py_XDECREF(lists);
    return w;
}

/* reduce_scatter (list form), as upstream's gloo: one all-reduce per input block in rank order
 * (block `rank` reduced in the output itself, the others in clones), each with its own tag */
static PyObject *g_reduce_scatter(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_tensors", "input_tensors", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:reduce_scatter", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *out = one_tensor(outs, "reduce_scatter");
    if (!out) return NULL;
    PyObject *il = PySequence_GetItem(ins, 0);
    if (!il) return NULL;
    if (PySequence_Size(il) != b->size) {
        Py_DECREF(il);
        PyErr_SetString(PyExc_ValueError, "ProcessGroupGloo::reduce_scatter: input list length must equal world size");
        return NULL;
    }
    long r = opt_redop(opts);
    ajob *j = r < 0 ? NULL : job_new(b->size);
    if (!j) { Py_DECREF(il); return NULL; }
    int rc = 0;
    for (int i = 0; rc == 0 && i < b->size; i++) {
        PyObject *x = PySequence_GetItem(il, i), *buf;
        if (!x) { rc = -1; break; }
        if (i == b->rank) {
            PyObject *cp = PyObject_CallMethod(out, "copy_", "O", x);
            buf = cp ? Py_NewRef(out) : NULL;
            Py_XDECREF(cp);
        } else {
            buf = PyObject_CallMethod(x, "clone", NULL);
        }
        Py_DECREF(x);
        if (!buf || job_buf(j, buf) < 0 || (j->red = red_for(r, &j->bufs[i])) < 0) rc = -1;
        Py_XDECREF(buf);   /* the job's tbuf holds it */
    }
    Py_DECREF(il);
    PyObject *res = rc == 0 ? as_list(outs) : NULL;
    if (!res) { job_release(j); return NULL; }
    j->run = run_allreduce;
    j->fin = fin_copyback;
    j->avg = r == 1;
    j->o1 = Py_NewRef(out);
    PyObject *w = submit(self, j, res, b->size, opts, 1);
    if (w) ((work_obj *)w)->lambda = 1;
    Py_DECREF(res);
    return w;
}

static int split_counts(PyObject *splits, int size, size_t numel, size_t row, size_t es, size_t *out) {
    Py_ssize_t n = splits && splits != Py_None ? PySequence_Size(splits) : 0;
    if (n < 0) return -1;
    if (n == 0) {
        if (numel % (size_t)size) {
            PyErr_SetString(PyExc_RuntimeError, "Tensor's dim 0 does not divide equally across group size");
            return -1;
        }
        for (int i = 0; i < size; i++) out[i] = numel / (size_t)size * es;
        return 0;
    }
    if (n != size) {
        PyErr_SetString(PyExc_RuntimeError, "Split sizes doesn't match total dim 0 size");
        return -1;
    }
    size_t tot = 0;
    for (int i = 0; i < size; i++) {
        PyObject *v = PySequence_GetItem(splits, i);
        long long s = v ? PyLong_AsLongLong(v) : -1;
        Py_XDECREF(v);
        if (s < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "negative split size");
            return -1;
        }
        out[i] = (size_t)s * row * es;
        tot += (size_t)s * row;
    }
    if (tot != numel) {
        PyErr_SetString(PyExc_RuntimeError, "Split sizes doesn't match total dim 0 size");
        return -1;
    }
    return 0;
}

/* alltoallv of `in` into `out`; outs (the list form): the flat `out` is then copied into them
 * and they are the Work's result */
static PyObject *alltoall_job(PyObject *self, PyObject *out, PyObject *in, PyObject *osp, PyObject *isp,
                              PyObject *opts, PyObject *outs) {
    backend_obj *b = (backend_obj *)self;
    ajob *j = job_new(2);
    if (!j) return NULL;
    if (job_buf(j, in) < 0 || job_buf(j, out) < 0) { job_release(j); return NULL; }
    j->cin = calloc((size_t)b->size, sizeof *j->cin);
    j->cout = calloc((size_t)b->size, sizeof *j->cout);
    if (!j->cin || !j->cout) { job_release(j); return PyErr_NoMemory(); }
    tn_tensor *it = tn_tensor_of(in), *ot = tn_tensor_of(out);
    size_t irow = it->ndim ? (size_t)(tn_numel(it) / (it->sizes[0] ? it->sizes[0] : 1)) : 1;
    size_t orow = ot->ndim ? (size_t)(tn_numel(ot) / (ot->sizes[0] ? ot->sizes[0] : 1)) : 1;
    size_t es = (size_t)tn_gloo_elem_size(j->bufs[0].gt) * (j->bufs[0].complex ? 2 : 1);
    if (split_counts(isp, b->size, (size_t)tn_numel(it), irow, es, j->cin) < 0 ||
        split_counts(osp, b->size, (size_t)tn_numel(ot), orow, es, j->cout) < 0) {
        job_release(j);
        return NULL;
    }
    PyObject *res = outs ? PySequence_List(outs) : list1(1, out);
    if (!res) { job_release(j); return NULL; }
    if (outs) {
        j->o1 = Py_NewRef(out);
        j->o2 = Py_NewRef(res);
    }
    j->run = run_alltoallv;
    j->fin = fin_alltoall;
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

static PyObject *g_alltoall_base(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output", "input", "output_split_sizes", "input_split_sizes", "opts", NULL};
    PyObject *out, *in, *osp = NULL, *isp = NULL, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO:alltoall_base", kws, &out, &in, &osp, &isp, &opts)) return NULL;
    if (!gloo_of(self)) return NULL;
    return alltoall_job(self, out, in, osp, isp, opts, NULL);
}

static PyObject *g_alltoall(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"output_tensors", "input_tensors", "opts", NULL};
    PyObject *outs, *ins, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:alltoall", kws, &outs, &ins, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    /* upstream's gloo: flatten the lists and run alltoallv with per-rank lengths */
    Py_ssize_t n = PySequence_Size(ins);
    if (n != b->size || PySequence_Size(outs) != b->size) {
        PyErr_SetString(PyExc_RuntimeError, "ProcessGroupGloo::alltoall: the tensor lists must have the group's size");
        return NULL;
    }
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return NULL;
    PyObject *iv = PyList_New(0), *ov = PyList_New(0);
    PyObject *osp = PyList_New(0), *isp = PyList_New(0);
    for (Py_ssize_t i = 0; iv && ov && osp && isp && i < n; i++) {
        PyObject *x = PySequence_GetItem(ins, i), *y = PySequence_GetItem(outs, i);
        PyObject *vx = x ? PyObject_CallMethod(x, "reshape", "i", -1) : NULL;
        PyObject *vy = y ? PyObject_CallMethod(y, "reshape", "i", -1) : NULL;
        PyObject *nx = vx ? PyLong_FromLongLong(tn_numel(tn_tensor_of(vx))) : NULL;
        PyObject *ny = vy ? PyLong_FromLongLong(tn_numel(tn_tensor_of(vy))) : NULL;
        if (!nx || !ny || PyList_Append(iv, vx) < 0 || PyList_Append(ov, vy) < 0 || PyList_Append(isp, nx) < 0 ||
            PyList_Append(osp, ny) < 0)
            Py_CLEAR(iv);
        Py_XDECREF(x); Py_XDECREF(y); Py_XDECREF(vx); Py_XDECREF(vy); Py_XDECREF(nx); Py_XDECREF(ny);
    }
    PyObject *fi = iv ? PyObject_CallMethod(torch, "cat", "(O)", iv) : NULL;
    PyObject *fo = fi && ov ? PyObject_CallMethod(torch, "cat", "(O)", ov) : NULL;
    Py_DECREF(torch);
    PyObject *w = fo ? alltoall_job(self, fo, fi, osp, isp, opts, outs) : NULL;
    Py_XDECREF(iv); Py_XDECREF(ov); Py_XDECREF(osp); Py_XDECREF(isp); Py_XDECREF(fi); Py_XDECREF(fo);
    return w;
}

/* reduce: gloo's reduce (the other ranks' tensors are scratch, as upstream's) */
static PyObject *g_reduce(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "opts", NULL};
    PyObject *lst, *opts = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:reduce", kws, &lst, &opts)) return NULL;
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *t = one_tensor(lst, "reduce");
    if (!t) return NULL;
    long root = opt_long(opts, "rootRank", 0);
    long r = opt_redop(opts);
    if (r < 0) return NULL;
    if (root < 0 || root >= b->size) {
        PyErr_Format(PyExc_RuntimeError, "ProcessGroupGloo::reduce: invalid root rank: %ld", root);
        return NULL;
    }
    ajob *j = job_new(1);
    if (!j) return NULL;
    PyObject *res = NULL;
    if (job_buf(j, t) < 0 || (j->red = red_code(r, j->bufs[0].gt)) < 0 || !(res = as_list(lst))) {
        job_release(j);
        return NULL;
    }
    j->run = run_reduce;
    j->fin = fin_copyback;
    j->root = (int)root;
    PyObject *w = submit(self, j, res, 1, opts, 0);
    Py_DECREF(res);
    return w;
}

/* ---- point to point */

static PyObject *p2p(PyObject *self, PyObject *lst, int peer, long tag, int is_send, int any) {
    backend_obj *b = gloo_of(self);
    if (!b) return NULL;
    PyObject *t = one_tensor(lst, is_send ? "send" : "recv");
    if (!t) return NULL;
    if (!any && (peer < 0 || peer >= b->size)) {
        PyErr_Format(PyExc_RuntimeError, "Invalid %s rank: %d", is_send ? "destination" : "source", peer);
        return NULL;
    }
    if (tag < 0 || tag > 0xffffffffL) {
        PyErr_Format(PyExc_RuntimeError, "Tag must be nonnegative");
        return NULL;
    }
    if (!tn_is_contiguous(tn_tensor_of(t))) {
        PyErr_SetString(PyExc_RuntimeError, "Tensors must be contiguous");
        return NULL;
    }
    tbuf tb;
    if (tbuf_get(t, &tb, !is_send) < 0) return NULL;
    tn_gloo_ctx *c = ctx_for(b, (uint32_t)tag);
    tn_derr err = {0};
    tn_gloo_op *op;
    b->seq++;
    if (is_send) op = tn_gloo_send(c, peer, (uint64_t)tag, tb.data, tb.nbytes, &err);
    else if (!any) op = tn_gloo_recv(c, peer, (uint64_t)tag, tb.data, tb.nbytes, &err);
    else {
        int *src = malloc(sizeof(int) * (size_t)b->size), n = 0;
        if (!src) { tbuf_done(&tb, 0); return PyErr_NoMemory(); }
        for (int i = 0; i < b->size; i++) if (i != b->rank) src[n++] = i;
        op = tn_gloo_recv_any(c, src, n, (uint64_t)tag, tb.data, tb.nbytes, &err);
        free(src);
    }
    if (!op) { tbuf_done(&tb, 0); return raise_err(&err); }
    work_obj *w = (work_obj *)PyType_GenericAlloc(Work_T, 0);
    if (!w) {
        tn_gloo_op_abandon(c, op);
        tbuf_done(&tb, 0);
        return NULL;
    }
    w->owner = Py_NewRef(self);
    w->ctx = c;
    w->op = op;
    w->src = -1;
    w->plain = 1;
    w->timeout_ms = b->timeout_ms;
    w->keep = tb.work;   /* the bytes the op uses stay alive */
    tb.work = NULL;
    w->tensors = as_list(lst);
    if (!w->tensors) { Py_DECREF(w); return NULL; }
    return (PyObject *)w;
}

static PyObject *g_send(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "dstRank", "tag", NULL};
    PyObject *lst;
    int dst;
    long tag = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|l:send", kws, &lst, &dst, &tag)) return NULL;
    return p2p(self, lst, dst, tag, 1, 0);
}
static PyObject *g_recv(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "srcRank", "tag", NULL};
    PyObject *lst;
    int src;
    long tag = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|l:recv", kws, &lst, &src, &tag)) return NULL;
    return p2p(self, lst, src, tag, 0, 0);
}
static PyObject *g_recv_any(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "tag", NULL};
    PyObject *lst;
    long tag = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|l:recv_anysource", kws, &lst, &tag)) return NULL;
    return p2p(self, lst, -1, tag, 0, 1);
}

static PyObject *g_set_seq(PyObject *self, PyObject *u) { Py_RETURN_NONE; }
static PyObject *g_options(PyObject *self, void *u) {
    backend_obj *b = (backend_obj *)self;
    return Py_NewRef(b->options ? b->options : Py_None);
}
static PyObject *g_shutdown(PyObject *self, PyObject *args, PyObject *kw) {
    backend_free_ctxs((backend_obj *)self);
    Py_RETURN_NONE;
}
static PyObject *g_set_timeout(PyObject *self, PyObject *arg) {
    long long v = tn_dist_timedelta_to_ms(arg);
    if (v < 0 && PyErr_Occurred()) return NULL;
    ((backend_obj *)self)->timeout_ms = v;
    Py_RETURN_NONE;
}
static PyObject *g_coalescing(PyObject *self, PyObject *args, PyObject *kw) {
    PyErr_SetString(PyExc_RuntimeError, "Backend gloo does not implement startCoalescing");
    return NULL;
}

#define KW METH_VARARGS | METH_KEYWORDS
#define F(f) (PyCFunction)(void (*)(void))(f)
static PyMethodDef backend_methods[] = {
    {"rank", backend_rank, METH_NOARGS, NULL},
    {"size", backend_size, METH_NOARGS, NULL},
    {"name", backend_name, METH_NOARGS, NULL},
    {"_get_backend_name", backend_name, METH_NOARGS, NULL},
    {"abort", F(g_shutdown), KW, NULL},
    {"shutdown", F(g_shutdown), KW, NULL},
    {"_set_sequence_number_for_group", g_set_seq, METH_NOARGS, NULL},
    {"_get_sequence_number_for_group", backend_get_seq, METH_NOARGS, NULL},
    {"eager_connect_single_device", F(backend_noop), KW, NULL},
    {"set_timeout", g_set_timeout, METH_O, NULL},
    {"_set_default_timeout", g_set_timeout, METH_O, NULL},
    {"broadcast", F(g_broadcast), KW, NULL},
    {"allreduce", F(g_allreduce), KW, NULL},
    {"allreduce_coalesced", F(g_allreduce_coalesced), KW, NULL},
    {"allgather_coalesced", F(g_allgather_coalesced), KW, NULL},
    {"reduce", F(g_reduce), KW, NULL},
    {"allgather", F(g_allgather), KW, NULL},
    {"_allgather_base", F(g_allgather_base), KW, NULL},
    {"gather", F(g_gather), KW, NULL},
    {"scatter", F(g_scatter), KW, NULL},
    {"reduce_scatter", F(g_reduce_scatter), KW, NULL},
    {"_reduce_scatter_base", F(g_reduce_scatter_base), KW, NULL},
    {"alltoall_base", F(g_alltoall_base), KW, NULL},
    {"alltoall", F(g_alltoall), KW, NULL},
    {"send", F(g_send), KW, NULL},
    {"recv", F(g_recv), KW, NULL},
    {"recv_anysource", F(g_recv_any), KW, NULL},
    {"barrier", F(g_barrier), KW, NULL},
    {"_start_coalescing", F(g_coalescing), KW, NULL},
    {"_end_coalescing", F(g_coalescing), KW, NULL},
    {NULL},
};
/* Backend.supports_splitting: one property, True on a gloo backend, as upstream's (measured);
 * distributed_c10d.split_group still refuses on a CPU-only host before it asks (it wants an
 * accelerator or torchcomms), as upstream's */
static PyObject *backend_splitting(PyObject *self, void *u) { return PyBool_FromLong(PyObject_TypeCheck(self, Gloo_T)); }
static PyGetSetDef backend_getset[] = {
    {"supports_splitting", backend_splitting, NULL, NULL, NULL},
    {"supports_coalescing", backend_false, NULL, NULL, NULL},
    {"supports_time_estimate", backend_false, NULL, NULL, NULL},
    {"supports_shrinking", backend_false, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot backend_slots[] = {
    {Py_tp_methods, backend_methods}, {Py_tp_getset, backend_getset}, {Py_tp_members, backend_members},
    {Py_tp_init, backend_init}, {Py_tp_new, PyType_GenericNew}, {Py_tp_dealloc, backend_dealloc},
    {Py_tp_traverse, backend_traverse}, {Py_tp_clear, backend_clear}, {0, NULL}};
static PyType_Spec backend_spec = {"torch._C._distributed_c10d.Backend", sizeof(backend_obj), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, backend_slots};

static PyMethodDef gloo_methods[] = {
    {"create_device", F(create_device), KW | METH_STATIC, NULL},
    {"create_default_device", F(create_default_device), KW | METH_STATIC, NULL},
    {NULL},
};
static PyGetSetDef gloo_getset[] = {{"options", g_options, NULL, NULL, NULL}, {NULL}};
static PyType_Slot gloo_slots[] = {{Py_tp_init, gloo_init}, {Py_tp_traverse, backend_traverse}, {Py_tp_clear, backend_clear}, {Py_tp_dealloc, backend_dealloc}, {Py_tp_methods, gloo_methods}, {Py_tp_getset, gloo_getset}, {0, NULL}};
static PyType_Spec gloo_spec = {"torch._C._distributed_c10d.ProcessGroupGloo", sizeof(backend_obj), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, gloo_slots};

/* ------------------------------------------------------------------ ProcessGroup */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    PyObject *store;
    int rank, size;
    PyObject *backends;     /* dict: device type str -> backend */
    PyObject *btypes;       /* dict: device type str -> BackendType */
    PyObject *default_type;
    PyObject *name, *desc;
    PyObject *bound_device;
    int64_t nsplit;         /* splits of this group without a group_desc (upstream's splitCounter_) */
} pg_obj;

static PyMemberDef pg_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(pg_obj, dict), READONLY, NULL}, {NULL}};

static int pg_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"store", "rank", "size", NULL};
    pg_obj *p = (pg_obj *)self;
    PyObject *store = Py_None;
    int rank = -1, size = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Oii:ProcessGroup", kws, &store, &rank, &size)) return -1;
    Py_XSETREF(p->store, Py_NewRef(store));
    p->rank = rank;
    p->size = size;
    if (!p->backends && !(p->backends = PyDict_New())) return -1;
    if (!p->btypes && !(p->btypes = PyDict_New())) return -1;
    if (!p->name) p->name = PyUnicode_FromString("");
    if (!p->desc) p->desc = PyUnicode_FromString("undefined");
    if (!p->bound_device) p->bound_device = Py_NewRef(Py_None);
    return p->name && p->desc ? 0 : -1;
}
static int pg_traverse(PyObject *self, visitproc visit, void *arg) {
    pg_obj *p = (pg_obj *)self;
    Py_VISIT(p->dict); Py_VISIT(p->store); Py_VISIT(p->backends); Py_VISIT(p->btypes);
    Py_VISIT(p->default_type); Py_VISIT(p->name); Py_VISIT(p->desc); Py_VISIT(p->bound_device);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int pg_clear(PyObject *self) {
    pg_obj *p = (pg_obj *)self;
    Py_CLEAR(p->dict); Py_CLEAR(p->store); Py_CLEAR(p->backends); Py_CLEAR(p->btypes);
    Py_CLEAR(p->default_type); Py_CLEAR(p->name); Py_CLEAR(p->desc); Py_CLEAR(p->bound_device);
    return 0;
}
static void pg_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    pg_clear(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}

static PyObject *pg_rank(PyObject *self, PyObject *u) { return PyLong_FromLong(((pg_obj *)self)->rank); }
static PyObject *pg_size(PyObject *self, PyObject *u) { return PyLong_FromLong(((pg_obj *)self)->size); }

/* "cpu" of a torch.device / str / None */
static PyObject *dev_key(PyObject *d) {
    if (!d || d == Py_None) return PyUnicode_FromString("cpu");
    if (PyUnicode_Check(d)) {
        const char *s = PyUnicode_AsUTF8AndSize(d, NULL);
        if (!s) return NULL;
        const char *c = strchr(s, ':');
        return c ? PyUnicode_FromStringAndSize(s, c - s) : Py_NewRef(d);
    }
    return PyObject_GetAttrString(d, "type");
}

static PyObject *pg_register_backend(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"device", "backend_type", "backend", NULL};
    PyObject *dev, *bt, *be = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_register_backend", kws, &dev, &bt, &be)) return NULL;
    pg_obj *p = (pg_obj *)self;
    PyObject *k = dev_key(dev);
    if (!k) return NULL;
    int rc = PyDict_SetItem(p->backends, k, be) < 0 || PyDict_SetItem(p->btypes, k, bt) < 0;
    Py_DECREF(k);
    if (rc) return NULL;
    Py_RETURN_NONE;
}

static PyObject *pg_backend_for(pg_obj *p, PyObject *dev) {
    PyObject *k = dev_key(dev);
    if (!k) return NULL;
    PyObject *b = PyDict_GetItemWithError(p->backends, k);
    if (!b && !PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "No backend type associated with device type %U", k);
    Py_DECREF(k);
    return Py_XNewRef(b);
}

static PyObject *pg_get_backend(PyObject *self, PyObject *args) {
    PyObject *dev = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &dev)) return NULL;
    return pg_backend_for((pg_obj *)self, dev);
}

static PyObject *pg_set_default_backend(PyObject *self, PyObject *bt) {
    Py_XSETREF(((pg_obj *)self)->default_type, Py_NewRef(bt));
    Py_RETURN_NONE;
}
static PyObject *pg_set_name(PyObject *self, PyObject *n) {
    Py_XSETREF(((pg_obj *)self)->name, Py_NewRef(n));
    /* the backends learn the name too (upstream's setGroupName) */
    Py_RETURN_NONE;
}
static PyObject *pg_set_desc(PyObject *self, PyObject *n) {
    Py_XSETREF(((pg_obj *)self)->desc, Py_NewRef(n));
    Py_RETURN_NONE;
}
static PyObject *pg_get_name(PyObject *self, void *u) { return Py_NewRef(((pg_obj *)self)->name); }
static PyObject *pg_get_desc(PyObject *self, void *u) { return Py_NewRef(((pg_obj *)self)->desc); }
static PyObject *pg_get_bound(PyObject *self, void *u) { return Py_NewRef(((pg_obj *)self)->bound_device); }
static int pg_set_bound(PyObject *self, PyObject *v, void *u) {
    Py_XSETREF(((pg_obj *)self)->bound_device, Py_NewRef(v ? v : Py_None));
    return 0;
}
static PyObject *pg_name(PyObject *self, PyObject *u) {
    pg_obj *p = (pg_obj *)self;
    PyObject *b = pg_backend_for(p, NULL);
    if (!b) return NULL;
    PyObject *r = PyObject_CallMethod(b, "name", NULL);
    Py_DECREF(b);
    return r;
}
static PyObject *pg_false(PyObject *self, PyObject *args) { Py_RETURN_FALSE; }
static PyObject *pg_none(PyObject *self, PyObject *args, PyObject *kw) { Py_RETURN_NONE; }
static PyObject *pg_store(PyObject *self, PyObject *u) { return Py_NewRef(((pg_obj *)self)->store); }
static PyObject *pg_device_types(PyObject *self, void *u) {
    PyObject *keys = PyDict_Keys(((pg_obj *)self)->backends);
    if (!keys) return NULL;
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *r = PyList_New(0);
    for (Py_ssize_t i = 0; torch && r && i < PyList_Size(keys); i++) {
        PyObject *d = PyObject_CallMethod(torch, "device", "O", PyList_GetItem(keys, i));
        if (!d || PyList_Append(r, d) < 0) Py_CLEAR(r);
        Py_XDECREF(d);
    }
    Py_XDECREF(torch);
    Py_DECREF(keys);
    return r;
}
static PyObject *pg_shutdown(PyObject *self, PyObject *args, PyObject *kw) {
    pg_obj *p = (pg_obj *)self;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (p->backends && PyDict_Next(p->backends, &pos, &k, &v)) {
        if (v == Py_None) continue;
        PyObject *r = PyObject_CallMethod(v, "shutdown", NULL);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

/* the first tensor in a (nested) argument list: its device picks the backend */
static PyObject *first_tensor(PyObject *args) {
    Py_ssize_t n = PyTuple_Size(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GetItem(args, i);
        if (tn_py_is_tensor(a)) return a;
        if (PyList_Check(a) && PyList_Size(a) > 0) {
            PyObject *x = PyList_GetItem(a, 0);
            if (tn_py_is_tensor(x)) return x;
            if (PyList_Check(x) && PyList_Size(x) > 0 && tn_py_is_tensor(PyList_GetItem(x, 0)))
                return PyList_GetItem(x, 0);
        }
    }
    return NULL;
}

/* the dispatcher's error for a c10d::<op>_ call without any tensor (an empty list), as upstream's */
static PyObject *no_tensor_err(const char *op) {
    PyErr_Format(PyExc_NotImplementedError,
                 "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), "
                 "but no fallback function is registered for schema c10d::%s_.  This usually means that this "
                 "function requires a non-empty list of Tensors, or that you (the operator writer) forgot to "
                 "register a fallback function.", op);
    return NULL;
}
/* ProcessGroup.X(...) -> the backend's Y(...); those whose op schema takes tensor lists (not
 * barrier, send, recv) refuse a call without a tensor as upstream's dispatcher does */
static PyObject *forward(PyObject *self, PyObject *args, PyObject *kw, const char *name) {
    pg_obj *p = (pg_obj *)self;
    PyObject *t = first_tensor(args), *dev = NULL;
    int listed = !strcmp(name, "allreduce") || !strcmp(name, "broadcast") || !strcmp(name, "allgather") ||
                 !strcmp(name, "reduce") || !strcmp(name, "gather") || !strcmp(name, "scatter");
    if (!t && listed) return no_tensor_err(name);
    const tn_sparse *sp = t ? ((tn_tensor_obj *)t)->sparse : NULL;
    if (listed && sp && sp->kind != TN_SPARSE_COO)   /* the c10d ops have CPU and SparseCPU kernels only */
        return PyErr_Format(PyExc_NotImplementedError, "Could not run 'c10d::%s_' with arguments from the 'SparseCsrCPU' "
                            "backend. This could be because the operator doesn't exist for this backend, or was omitted "
                            "during the selective/custom build process (if using custom build).", name);
    if (t) {
        dev = PyObject_GetAttrString(t, "device");
        if (!dev) return NULL;
    }
    PyObject *b = pg_backend_for(p, dev);
    Py_XDECREF(dev);
    if (!b) return NULL;
    PyObject *m = PyObject_GetAttrString(b, name);
    Py_DECREF(b);
    if (!m) return NULL;
    PyObject *r = PyObject_Call(m, args, kw);
    Py_DECREF(m);
    return r;
}
#define FWD(fn, target) \
    static PyObject *fn(PyObject *s, PyObject *a, PyObject *k) { return forward(s, a, k, target); }
FWD(pg_allreduce, "allreduce")
FWD(pg_allreduce_coalesced, "allreduce_coalesced")
FWD(pg_broadcast, "broadcast")
FWD(pg_reduce, "reduce")
FWD(pg_allgather, "allgather")
FWD(pg_allgather_base, "_allgather_base")
FWD(pg_gather, "gather")
FWD(pg_scatter, "scatter")
FWD(pg_reduce_scatter, "reduce_scatter")
FWD(pg_reduce_scatter_base, "_reduce_scatter_base")
FWD(pg_alltoall_base, "alltoall_base")
FWD(pg_alltoall, "alltoall")
FWD(pg_send, "send")
FWD(pg_recv, "recv")
FWD(pg_recv_any, "recv_anysource")
FWD(pg_barrier, "barrier")

/* monitored_barrier(timeout=None, wait_all_ranks=False), upstream's protocol and errors
 * (synchronous, None): two tags; every rank but 0 posts a send of its rank (an int32 tensor) to
 * rank 0 on the first and a recv of rank 0's reply on the second, and waits both with the group's
 * timeout; rank 0 posts a recv from every rank, waits each within the barrier's timeout (each the
 * whole timeout with wait_all_ranks), then replies. A timed-out wait closes the context (gloo's
 * signalException), so the ranks that did arrive raise at once. Errors: rank 0 names the first
 * missing rank with the original exception, or with wait_all_ranks every missing rank; the others
 * say they reached the barrier, with the original exception. */
static PyObject *mb_post(PyObject *be, PyObject *t, int peer, uint32_t tag, int is_send) {
    return p2p(be, t, peer, (long)tag, is_send, 0);
}
/* wait w (timeout_ms <= 0: the group's); on failure *msg is the error's text (the error cleared) */
static int mb_wait(PyObject *w, int64_t ms, PyObject **msg) {
    if (work_finish((work_obj *)w, ms) == 0) return 0;
    PyObject *et, *ev, *etb;
    PyErr_Fetch(&et, &ev, &etb);
    *msg = ev ? PyObject_Str(ev) : NULL;
    if (!*msg) { PyErr_Clear(); *msg = PyUnicode_FromString("(no message)"); }
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(etb);
    return -1;
}
/* The barrier on gloo backend `be` (ms <= 0: the backend's timeout). Returns 0, or -1 with the
 * barrier's own error set, or -2 with a transport error raised while posting (gloo's exception
 * itself: ProcessGroupWrapper attaches the collective to those only, measured). The two tags are
 * taken without counting a collective: upstream's sequence number moves by the sends and recvs
 * only (measured: +2 on ranks > 0, +2 (W-1) on rank 0). */
int tn_dist_gloo_monitored_barrier(PyObject *be, int64_t ms, int all) {
    if (!PyObject_TypeCheck(be, Gloo_T) || !gloo_of(be)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "monitored_barrier is only implemented for GLOO backend.");
        return -1;
    }
    backend_obj *b = (backend_obj *)be;
    if (ms <= 0) ms = b->timeout_ms;
    uint32_t t1 = b->tag++, t2 = b->tag++;
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *i32 = torch ? PyObject_GetAttrString(torch, "int32") : NULL;   /* at::tensor({int rank}) */
    PyObject *ta = i32 ? Py_BuildValue("([i])", b->rank) : NULL;
    PyObject *tk = ta ? Py_BuildValue("{sO}", "dtype", i32) : NULL;
    PyObject *fn = tk ? PyObject_GetAttrString(torch, "tensor") : NULL;
    PyObject *t = fn ? PyObject_Call(fn, ta, tk) : NULL;
    Py_XDECREF(fn);
    Py_XDECREF(tk);
    Py_XDECREF(ta);
    Py_XDECREF(i32);
    Py_XDECREF(torch);
    PyObject *works = t ? PyList_New(0) : NULL, *msg = NULL;
    int rc = works ? 0 : -1;
    if (rc == 0 && b->rank != 0) {
        PyObject *ws = mb_post(be, t, 0, t1, 1), *wr = ws ? mb_post(be, t, 0, t2, 0) : NULL;
        if (!wr) rc = -2;
        else if (mb_wait(ws, 0, &msg) < 0 || mb_wait(wr, 0, &msg) < 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "Rank %d successfully reached monitoredBarrier, but received errors while waiting for "
                         "send/recv from rank 0. Please check rank 0 logs for faulty rank.\n Original exception: \n%U",
                         b->rank, msg);
            rc = -1;
        }
        Py_XDECREF(ws);
        Py_XDECREF(wr);
    } else if (rc == 0) {
        for (int r = 1; rc == 0 && r < b->size; r++) {   /* every recv posted first, as upstream */
            PyObject *w = mb_post(be, t, r, t1, 0);
            if (!w) rc = -2;
            else if (PyList_Append(works, w) < 0) rc = -1;
            Py_XDECREF(w);
        }
        int64_t start = tn_now_ms();
        char missing[1024] = "";
        size_t k = 0;
        for (int r = 1; rc == 0 && r < b->size; r++) {
            int64_t left = all ? ms : ms - (tn_now_ms() - start);
            if (mb_wait(PyList_GetItem(works, r - 1), left > 0 ? left : 1, &msg) == 0) continue;
            if (!all) {
                PyErr_Format(PyExc_RuntimeError,
                             "[Rank 0]: Rank %d failed to pass monitoredBarrier in %lld ms\n Original exception: \n%U",
                             r, (long long)ms, msg);
                rc = -1;
            } else if (k < sizeof missing - 16) {
                k += (size_t)snprintf(missing + k, sizeof missing - k, k ? ", %d" : "%d", r);
            }
            Py_CLEAR(msg);
        }
        if (rc == 0 && k) {
            PyErr_Format(PyExc_RuntimeError, "[Rank 0]: Ranks %s failed to pass monitoredBarrier in %lld ms", missing,
                         (long long)ms);
            rc = -1;
        }
        if (rc == 0) {
            PyObject *sends = PyList_New(0);
            for (int r = 1; sends && rc == 0 && r < b->size; r++) {
                PyObject *w = mb_post(be, t, r, t2, 1);
                if (!w) rc = -2;
                else if (PyList_Append(sends, w) < 0) rc = -1;
                Py_XDECREF(w);
            }
            if (!sends) rc = -1;
            for (Py_ssize_t i = 0; rc == 0 && i < PyList_Size(sends); i++)
                if (work_finish((work_obj *)PyList_GetItem(sends, i), ms) < 0) rc = -1;
            Py_XDECREF(sends);
        }
    }
    Py_XDECREF(msg);
    Py_XDECREF(works);
    Py_XDECREF(t);
    return rc;
}
static PyObject *pg_monitored_barrier(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"timeout", "wait_all_ranks", NULL};
    PyObject *to = Py_None;
    int all = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|Op:monitored_barrier", kws, &to, &all)) return NULL;
    int64_t ms = 0;
    if (to != Py_None) {
        long long v = tn_dist_timedelta_to_ms(to);
        if (v < 0 && PyErr_Occurred()) return NULL;
        ms = v;
    }
    PyObject *w = pg_backend_for((pg_obj *)self, NULL);
    PyObject *be = w ? tn_dist_pgwrap_unwrap(w) : NULL;   /* a _ProcessGroupWrapper forwards it unchecked */
    Py_XDECREF(w);
    if (!be) return NULL;
    int rc = tn_dist_gloo_monitored_barrier(be, ms, all);
    Py_DECREF(be);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* all_to_all_single(output, input, output_split_sizes, input_split_sizes, opts) */
static PyObject *pg_all_to_all_single(PyObject *s, PyObject *a, PyObject *k) { return forward(s, a, k, "alltoall_base"); }

/* coalesced single-tensor forms (one allgather; one all-reduce per pair), on the backend of the
 * first tensor's device; upstream's ProcessGroupGloo does not offer them by name. An empty list
 * raises the dispatcher's error (no tensor tells the device). */
/* a _ProcessGroupWrapper checks (op >= 0: upstream's OpType, without tensors as upstream's
 * wrapper) and then runs the wrapped gloo backend's form; allgather_into_tensor_coalesced is not
 * one of upstream's wrapper's checked collectives (measured: no helper traffic), so op -1 */
static PyObject *pg_coalesced(PyObject *self, PyObject *args, PyObject *kw, const char *op, int optype,
                              PyObject *(*fn)(PyObject *, PyObject *, PyObject *)) {
    pg_obj *p = (pg_obj *)self;
    PyObject *t = first_tensor(args), *dev = NULL;
    if (!t) return no_tensor_err(op);
    if (!(dev = PyObject_GetAttrString(t, "device"))) return NULL;
    PyObject *w = pg_backend_for(p, dev);
    Py_DECREF(dev);
    if (!w) return NULL;
    PyObject *r = NULL, *b = NULL;
    if (tn_dist_pgwrap_is(w) && optype >= 0 && tn_dist_pgwrap_check(w, optype, NULL) < 0) goto done;
    if (!(b = tn_dist_pgwrap_unwrap(w))) goto done;
    if (!PyObject_TypeCheck(b, Gloo_T))
        PyErr_Format(PyExc_RuntimeError, "Backend %s does not support %s", tn_py_type_name(b), op);
    else
        r = fn(b, args, kw);
done:
    Py_XDECREF(b);
    Py_DECREF(w);
    return r;
}
static PyObject *pg_ag_coalesced(PyObject *s, PyObject *a, PyObject *k) {
    return pg_coalesced(s, a, k, "allgather_into_tensor_coalesced", -1, g_allgather_into_tensor_coalesced);
}
static PyObject *pg_allgather_coalesced(PyObject *s, PyObject *a, PyObject *k) {
    return pg_coalesced(s, a, k, "allgather_coalesced", TN_OPTYPE_ALLGATHER_COALESCED, g_allgather_coalesced);
}
static PyObject *pg_rs_coalesced(PyObject *s, PyObject *a, PyObject *k) {
    return pg_coalesced(s, a, k, "reduce_scatter_tensor_coalesced", TN_OPTYPE_REDUCE_SCATTER_TENSOR_COALESCED,
                        g_reduce_scatter_tensor_coalesced);
}

static PyObject *pg_coalescing(PyObject *self, PyObject *args, PyObject *kw) {
    PyErr_SetString(PyExc_RuntimeError, "Backend gloo does not implement startCoalescing");
    return NULL;
}

/* ------------------------------------------------------------------ split_group / merge_remote_group
 *
 * The low-level ProcessGroup.split_group / merge_remote_group, as upstream 2.13's
 * ProcessGroup::splitGroup / mergeRemoteGroup and ProcessGroupGloo::split / merge (measured on
 * upstream in 4-rank worlds, docs/distributed.md "### Groups"): the ranks are taken sorted (the
 * name and the new ranks follow the sorted list); checks in upstream's order (empty, longer than
 * the group, duplicates, device types); no range check (an absent rank is waited for until the
 * timeout, as upstream's). Name `<parent name>:split:[a, b]`, desc `<parent desc>:split:<n>` (n
 * counts this group's splits from 0; upstream leaves its counter uninitialized), store
 * PrefixStore("<name>/", parent store); a rank not in the list gets None. Each distinct backend is
 * split once into a ProcessGroupGloo of the group rank and size over that store (rendezvous keys
 * `<name>//0/<rank>`), its options the parent backend's own object (or `opts`), rewritten with
 * group_name, timeout and the global ranks (see derived_opts). */

/* the new ProcessGroup over `store` with one backend per distinct parent backend, made by mk */
static PyObject *pg_derive(pg_obj *p, PyObject *store, int rank, int size, PyObject *name, PyObject *desc,
                           PyObject *filter, PyObject *(*mk)(PyObject *parent_be, void *ctx), void *ctx) {
    PyObject *made = PyDict_New();   /* id(parent backend) -> new backend */
    PyObject *np = NULL;
    PyObject *k, *be;
    Py_ssize_t pos = 0;
    if (!made) return NULL;
    while (PyDict_Next(p->backends, &pos, &k, &be)) {
        if (filter && filter != Py_None) {
            int in = PySequence_Contains(filter, k);
            if (in < 0) goto fail;
            if (!in) continue;
        }
        PyObject *bt = PyDict_GetItemWithError(p->btypes, k);
        if (!bt && PyErr_Occurred()) goto fail;
        PyObject *id = PyLong_FromVoidPtr(be);
        if (!id) goto fail;
        PyObject *nb = PyDict_GetItemWithError(made, id);
        if (nb) Py_INCREF(nb);
        else if (!PyErr_Occurred() && (nb = mk(be, ctx)) && PyDict_SetItem(made, id, nb) < 0) Py_CLEAR(nb);
        Py_DECREF(id);
        if (!nb) goto fail;
        if (nb == Py_None) { Py_DECREF(nb); continue; }
        if (!np) {
            np = PyObject_CallFunction((PyObject *)PG_T, "Oii", store, rank, size);
            if (!np) { Py_DECREF(nb); goto fail; }
            if (p->default_type) ((pg_obj *)np)->default_type = Py_NewRef(p->default_type);
        }
        int rc = PyDict_SetItem(((pg_obj *)np)->backends, k, nb) < 0 ||
                 (bt && PyDict_SetItem(((pg_obj *)np)->btypes, k, bt) < 0);
        Py_DECREF(nb);
        if (rc) goto fail;
    }
    Py_DECREF(made);
    if (!np) Py_RETURN_NONE;
    Py_XSETREF(((pg_obj *)np)->name, Py_NewRef(name));
    Py_XSETREF(((pg_obj *)np)->desc, Py_NewRef(desc));
    return np;
fail:
    Py_XDECREF(np);
    Py_DECREF(made);
    return NULL;
}

typedef struct {
    PyObject *store, *opts, *timeout, *name, *default_type, *btypes;
    long *ranks;
    Py_ssize_t n;
    int rank;       /* merge: the new rank */
    int size;       /* merge: the new size */
} derive_ctx;

/* the options a split or merge gives the new backend: upstream's cloneOptions of gloo options is
 * the same object, so the new group shares (and the call rewrites) the parent's options (or the
 * `opts` given): group_name and timeout set here, global_ranks_in_group by the split; options of
 * another kind: upstream's fallback to new default options */
static PyObject *derived_opts(PyObject *o, PyObject *name, PyObject *timeout) {
    if (!PyObject_TypeCheck(o, (PyTypeObject *)GlooOpts_T)) return PyObject_CallNoArgs(GlooOpts_T);
    if (PyObject_SetAttrString(o, "group_name", name) < 0 ||
        (timeout && timeout != Py_None && PyObject_SetAttrString(o, "_timeout", timeout) < 0))
        return NULL;
    return Py_NewRef(o);
}

static PyObject *split_one(PyObject *parent_be, void *vc) {
    derive_ctx *c = vc;
    if (!PyObject_TypeCheck(parent_be, Gloo_T)) {
        PyErr_Format(PyExc_RuntimeError, "Backend %s is missing implementation of split.", tn_py_type_name(parent_be));
        return NULL;
    }
    backend_obj *pb = (backend_obj *)parent_be;
    /* the parent's global ranks, read before the shared options are rewritten (empty: 0..size-1;
     * upstream indexes past the end of a shorter list, e.g. after an earlier split rewrote it) */
    PyObject *pg = opt_get(pb->options, "global_ranks_in_group");
    PyObject *pgl = pg ? PySequence_List(pg) : NULL;
    Py_XDECREF(pg);
    if (!pgl) PyErr_Clear();
    PyObject *o = derived_opts(c->opts && c->opts != Py_None ? c->opts : pb->options, c->name, c->timeout);
    Py_ssize_t me = -1;
    for (Py_ssize_t i = 0; i < c->n; i++)
        if (c->ranks[i] == pb->rank) me = i;
    if (!o || me < 0) {
        Py_XDECREF(pgl);
        Py_XDECREF(o);
        if (!o) return NULL;
        Py_RETURN_NONE;
    }
    Py_ssize_t np = pgl ? PyList_Size(pgl) : 0;
    PyObject *gr = PyList_New(c->n);
    for (Py_ssize_t i = 0; gr && i < c->n; i++) {
        PyObject *v = c->ranks[i] >= 0 && c->ranks[i] < np ? Py_NewRef(PyList_GetItem(pgl, c->ranks[i]))
                                                           : PyLong_FromLong(c->ranks[i]);
        if (!v) Py_CLEAR(gr);
        else PyList_SetItem(gr, i, v);
    }
    Py_XDECREF(pgl);
    int rc = !gr || PyObject_SetAttrString(o, "global_ranks_in_group", gr) < 0;
    Py_XDECREF(gr);
    PyObject *nb = rc ? NULL : PyObject_CallFunction((PyObject *)Gloo_T, "OinO", c->store, (int)me, c->n, o);
    Py_DECREF(o);
    return nb;
}

static PyObject *merge_one(PyObject *parent_be, void *vc) {
    derive_ctx *c = vc;
    if (!PyObject_TypeCheck(parent_be, Gloo_T)) {
        PyErr_Format(PyExc_RuntimeError, "Backend %s is missing implementation of merge.", tn_py_type_name(parent_be));
        return NULL;
    }
    PyObject *o = derived_opts(((backend_obj *)parent_be)->options, c->name, c->timeout);
    PyObject *nb = o ? PyObject_CallFunction((PyObject *)Gloo_T, "OiiO", c->store, c->rank, c->size, o) : NULL;
    Py_XDECREF(o);
    return nb;
}

static int cmp_long(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static PyObject *pg_split_group(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"ranks", "timeout", "opts", "group_name", "group_desc", "device_types", NULL};
    pg_obj *p = (pg_obj *)self;
    PyObject *ranks, *timeout = Py_None, *opts = Py_None, *gname = Py_None, *gdesc = Py_None, *devs = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOOO:split_group", kws, &ranks, &timeout, &opts, &gname, &gdesc,
                                     &devs))
        return NULL;
    if ((gname != Py_None && !PyUnicode_Check(gname)) || (gdesc != Py_None && !PyUnicode_Check(gdesc)) ||
        (timeout != Py_None && !PyObject_HasAttrString(timeout, "total_seconds")) || PyUnicode_Check(ranks) ||
        !PySequence_Check(ranks))
        goto badargs;
    if (opts != Py_None) {   /* a Backend.Options (ProcessGroupGloo._Options is one) */
        PyObject *bo = PyObject_GetAttrString((PyObject *)Backend_T, "Options");
        int isopt = bo ? PyObject_IsInstance(opts, bo) : -1;
        Py_XDECREF(bo);
        if (isopt < 0) return NULL;
        if (!isopt) goto badargs;
    }
    PyObject *seq = PySequence_List(ranks);
    if (!seq) { PyErr_Clear(); goto badargs; }
    Py_ssize_t n = PyList_Size(seq);
    long *rk = malloc(sizeof(long) * (size_t)(n ? n : 1));
    if (!rk) { Py_DECREF(seq); return PyErr_NoMemory(); }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GetItem(seq, i);
        PyObject *ix = PyBool_Check(item) ? NULL : PyNumber_Index(item);
        rk[i] = ix ? PyLong_AsLong(ix) : -1;
        Py_XDECREF(ix);
        if (!ix || (rk[i] == -1 && PyErr_Occurred()) || rk[i] < INT_MIN || rk[i] > INT_MAX) {
            PyErr_Clear();
            free(rk);
            Py_DECREF(seq);
            goto badargs;
        }
    }
    Py_DECREF(seq);
    qsort(rk, (size_t)n, sizeof *rk, cmp_long);
    const char *bad = NULL;
    if (n == 0) bad = "Split ranks cannot be empty. Please provide a non-empty list of ranks to split the group.";
    else if (n > p->size) bad = "the split group's size should be no larger than the world_size set by init_process_group";
    for (Py_ssize_t i = 1; !bad && i < n; i++)
        if (rk[i] == rk[i - 1])
            bad = "Split ranks should not have duplicates. Please provide a list of unique ranks to split the group.";
    if (bad) {
        free(rk);
        PyErr_SetString(PyExc_RuntimeError, bad);
        return NULL;
    }
    /* device_types: a filter of the parent's device types that must hold the default's */
    PyObject *filter = NULL, *r = NULL, *name = NULL, *desc = NULL, *store = NULL;
    if (devs != Py_None) {
        PyObject *ds = PyUnicode_Check(devs) ? NULL : PySequence_List(devs);
        if (!ds) { PyErr_Clear(); free(rk); goto badargs; }
        filter = PyList_New(0);
        for (Py_ssize_t i = 0; filter && i < PyList_Size(ds); i++) {
            PyObject *k = dev_key(PyList_GetItem(ds, i));
            int in = k ? PyDict_Contains(p->backends, k) : -1;
            if (in == 0)
                PyErr_Format(PyExc_RuntimeError,
                             "Requested device type for splitGroup is not present in the parent process group: %U", k);
            if (in <= 0 || PyList_Append(filter, k) < 0) Py_CLEAR(filter);
            Py_XDECREF(k);
        }
        Py_DECREF(ds);
        if (!filter) goto done;
        if (PyList_Size(filter) > 0) {
            /* the device type whose backend type is the default one must be in the filter */
            PyObject *k, *bt;
            Py_ssize_t pos = 0;
            int found = 0;
            while (!found && p->default_type && PyDict_Next(p->btypes, &pos, &k, &bt)) {
                int eq = PyObject_RichCompareBool(bt, p->default_type, Py_EQ);
                if (eq < 0) goto done;
                if (eq) {
                    int in = PySequence_Contains(filter, k);
                    if (in < 0) goto done;
                    found = 1;
                    if (!in) found = 2;
                }
            }
            if (found != 1) {
                PyErr_SetString(PyExc_RuntimeError, "splitGroup deviceTypes filter must include the parent process group's "
                                                    "default backend device type.");
                goto done;
            }
        } else {
            Py_CLEAR(filter);
        }
    }
    if (gname != Py_None) {
        name = Py_NewRef(gname);
    } else {
        /* fmt's "[a, b, c]" */
        PyObject *l = PyList_New(n);
        for (Py_ssize_t i = 0; l && i < n; i++) {
            PyObject *v = PyLong_FromLong(rk[i]);
            if (!v) Py_CLEAR(l);
            else PyList_SetItem(l, i, v);
        }
        name = l ? PyUnicode_FromFormat("%U:split:%R", p->name, l) : NULL;
        Py_XDECREF(l);
    }
    if (!name) goto done;
    desc = gdesc != Py_None ? Py_NewRef(gdesc) : PyUnicode_FromFormat("%U:split:%lld", p->desc, (long long)p->nsplit);
    if (gdesc == Py_None) p->nsplit++;
    if (!desc) goto done;
    PyObject *ps = PyObject_GetAttrString(c10d_mod, "PrefixStore");
    PyObject *pre = ps ? PyUnicode_FromFormat("%U/", name) : NULL;
    store = pre ? PyObject_CallFunctionObjArgs(ps, pre, p->store, NULL) : NULL;
    Py_XDECREF(pre);
    Py_XDECREF(ps);
    if (!store) goto done;
    derive_ctx c = {store, opts, timeout, name, NULL, NULL, rk, n, 0, 0};
    /* the group rank is each backend's place in the list: find ours for the ProcessGroup */
    int me = -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (rk[i] == p->rank) me = (int)i;
    r = pg_derive(p, store, me, (int)n, name, desc, filter, split_one, &c);
done:
    free(rk);
    Py_XDECREF(filter);
    Py_XDECREF(name);
    Py_XDECREF(desc);
    Py_XDECREF(store);
    return r;
badargs:
    PyErr_Format(PyExc_TypeError,
                 "split_group(): incompatible function arguments. The following argument types are supported:\n"
                 "    1. (self: torch._C._distributed_c10d.ProcessGroup, ranks: collections.abc.Sequence[typing.SupportsInt "
                 "| typing.SupportsIndex], timeout: datetime.timedelta | None = None, opts: c10d::Backend::Options | None "
                 "= None, group_name: str | None = None, group_desc: str | None = None, device_types: "
                 "collections.abc.Sequence[torch.device] | None = None) -> torch._C._distributed_c10d.ProcessGroup\n\n"
                 "Invoked with: %R, %R", self, args);
    return NULL;
}

static PyObject *pg_merge_remote_group(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"store", "size", "timeout", "group_name", "group_desc", NULL};
    pg_obj *p = (pg_obj *)self;
    PyObject *store, *timeout = NULL, *gname = Py_None, *gdesc = Py_None;
    int size;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Oi|OOO:merge_remote_group", kws, &store, &size, &timeout, &gname, &gdesc))
        return NULL;
    PyObject *st_t = PyObject_GetAttrString(c10d_mod, "Store");
    int ok = st_t ? PyObject_IsInstance(store, st_t) : -1;
    Py_XDECREF(st_t);
    if (ok < 0) return NULL;
    if (!ok || (gname != Py_None && !PyUnicode_Check(gname)) || (gdesc != Py_None && !PyUnicode_Check(gdesc)) ||
        (timeout && !PyObject_HasAttrString(timeout, "total_seconds"))) {
        PyErr_Format(PyExc_TypeError,
                     "merge_remote_group(): incompatible function arguments. The following argument types are supported:\n"
                     "    1. (self: torch._C._distributed_c10d.ProcessGroup, store: torch._C._distributed_c10d.Store, "
                     "size: typing.SupportsInt | typing.SupportsIndex, timeout: datetime.timedelta = "
                     "datetime.timedelta(seconds=1800), group_name: str | None = None, group_desc: str | None = None) -> "
                     "torch._C._distributed_c10d.ProcessGroup\n\nInvoked with: %R, %R", self, args);
        return NULL;
    }
    PyObject *to = timeout ? Py_NewRef(timeout) : tn_dist_timedelta_ms(1800 * 1000LL);
    if (!to) return NULL;
    /* the rank: the order of arrival on the store's counter */
    PyObject *v = PyObject_CallMethod(store, "add", "si", "mergeGroupRank", 1);
    long long rank = v ? PyLong_AsLongLong(v) - 1 : -2;
    Py_XDECREF(v);
    if (rank == -2 || PyErr_Occurred()) { Py_DECREF(to); return NULL; }
    PyObject *name = gname != Py_None ? Py_NewRef(gname) : PyUnicode_FromFormat("%U:merge", p->name);
    PyObject *desc = gdesc != Py_None ? Py_NewRef(gdesc) : PyUnicode_FromFormat("%U:merge", p->desc);
    PyObject *r = NULL;
    if (name && desc) {
        derive_ctx c = {store, NULL, to, name, NULL, NULL, NULL, 0, (int)rank, size};
        r = pg_derive(p, store, (int)rank, size, name, desc, NULL, merge_one, &c);
    }
    Py_XDECREF(name);
    Py_XDECREF(desc);
    Py_DECREF(to);
    return r;
}

static PyMethodDef pg_methods[] = {
    {"rank", pg_rank, METH_NOARGS, NULL},
    {"size", pg_size, METH_NOARGS, NULL},
    {"name", pg_name, METH_NOARGS, NULL},
    {"_get_backend_name", pg_name, METH_NOARGS, NULL},
    {"get_group_store", pg_store, METH_NOARGS, NULL},
    {"_register_backend", F(pg_register_backend), KW, NULL},
    {"_get_backend", pg_get_backend, METH_VARARGS, NULL},
    {"_set_default_backend", pg_set_default_backend, METH_O, NULL},
    {"_set_group_name", pg_set_name, METH_O, NULL},
    {"_set_group_desc", pg_set_desc, METH_O, NULL},
    {"_has_hooks", pg_false, METH_NOARGS, NULL},
    {"_wait_for_pending_works", F(pg_none), KW, NULL},
    {"_enable_collectives_timing", F(pg_none), KW, NULL},
    {"_set_sequence_number_for_group", F(pg_none), KW, NULL},
    {"shutdown", F(pg_shutdown), KW, NULL},
    {"abort", F(pg_shutdown), KW, NULL},
    {"allreduce", F(pg_allreduce), KW, NULL},
    {"allreduce_coalesced", F(pg_allreduce_coalesced), KW, NULL},
    {"broadcast", F(pg_broadcast), KW, NULL},
    {"reduce", F(pg_reduce), KW, NULL},
    {"allgather", F(pg_allgather), KW, NULL},
    {"_allgather_base", F(pg_allgather_base), KW, NULL},
    {"all_gather_single", F(pg_allgather_base), KW, NULL},
    {"all_gather_single_coalesced", F(pg_ag_coalesced), KW, NULL},
    {"allgather_into_tensor_coalesced", F(pg_ag_coalesced), KW, NULL},
    {"allgather_coalesced", F(pg_allgather_coalesced), KW, NULL},
    {"gather", F(pg_gather), KW, NULL},
    {"scatter", F(pg_scatter), KW, NULL},
    {"reduce_scatter", F(pg_reduce_scatter), KW, NULL},
    {"_reduce_scatter_base", F(pg_reduce_scatter_base), KW, NULL},
    {"reduce_scatter_single", F(pg_reduce_scatter_base), KW, NULL},
    {"reduce_scatter_single_coalesced", F(pg_rs_coalesced), KW, NULL},
    {"reduce_scatter_tensor_coalesced", F(pg_rs_coalesced), KW, NULL},
    {"alltoall_base", F(pg_alltoall_base), KW, NULL},
    {"all_to_all_single", F(pg_all_to_all_single), KW, NULL},
    {"alltoall", F(pg_alltoall), KW, NULL},
    {"send", F(pg_send), KW, NULL},
    {"recv", F(pg_recv), KW, NULL},
    {"recv_anysource", F(pg_recv_any), KW, NULL},
    {"barrier", F(pg_barrier), KW, NULL},
    {"monitored_barrier", F(pg_monitored_barrier), KW, NULL},
    {"_start_coalescing", F(pg_coalescing), KW, NULL},
    {"_end_coalescing", F(pg_coalescing), KW, NULL},
    {"split_group", F(pg_split_group), KW, NULL},
    {"merge_remote_group", F(pg_merge_remote_group), KW, NULL},
    {NULL},
};
static PyGetSetDef pg_getset[] = {
    {"group_name", pg_get_name, NULL, NULL, NULL},
    {"group_desc", pg_get_desc, NULL, NULL, NULL},
    {"bound_device_id", pg_get_bound, pg_set_bound, NULL, NULL},
    {"_device_types", pg_device_types, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot pg_slots[] = {
    {Py_tp_methods, pg_methods}, {Py_tp_getset, pg_getset}, {Py_tp_members, pg_members},
    {Py_tp_init, pg_init}, {Py_tp_new, PyType_GenericNew}, {Py_tp_dealloc, pg_dealloc},
    {Py_tp_traverse, pg_traverse}, {Py_tp_clear, pg_clear}, {0, NULL}};
static PyType_Spec pg_spec = {"torch._C._distributed_c10d.ProcessGroup", sizeof(pg_obj), 0,
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, pg_slots};

/* ------------------------------------------------------------------ torch._C._monitor._WaitCounter */

/* upstream's wait counters feed its monitoring hooks; ours count nothing: guard() is a context
 * manager that does nothing (c10d_logger wraps every c10d entry point in one) */
static PyObject *wc_self(PyObject *self, PyObject *args) { return Py_NewRef(self); }
static PyObject *wc_exit(PyObject *self, PyObject *args) { Py_RETURN_FALSE; }
static int wc_init(PyObject *self, PyObject *args, PyObject *kw) { return 0; }
static PyMethodDef wc_methods[] = {
    {"guard", wc_self, METH_NOARGS, NULL},
    {"__enter__", wc_self, METH_NOARGS, NULL},
    {"__exit__", wc_exit, METH_VARARGS, NULL},
    {NULL},
};
static PyType_Slot wc_slots[] = {{Py_tp_methods, wc_methods}, {Py_tp_init, wc_init}, {Py_tp_new, PyType_GenericNew}, {0, NULL}};
static PyType_Spec wc_spec = {"torch._C._monitor._WaitCounter", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, wc_slots};

/* torch._C._get_accelerator(): this build has none, so the CPU device (as upstream's CPU wheel) */
static PyObject *get_accelerator(PyObject *m, PyObject *unused) {
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *r = torch ? PyObject_CallMethod(torch, "device", "s", "cpu") : NULL;
    Py_XDECREF(torch);
    return r;
}
static PyMethodDef accel_def = {"_get_accelerator", get_accelerator, METH_NOARGS, NULL};

static int install_wait_counter(void) {
    PyObject *C = PyImport_ImportModule("torch._C");
    PyObject *f = C ? PyCFunction_NewEx(&accel_def, NULL, NULL) : NULL;
    int bad = !f || PyObject_SetAttrString(C, "_get_accelerator", f) < 0;
    Py_XDECREF(f);
    Py_XDECREF(C);
    if (bad) return -1;
    PyObject *mon = PyImport_ImportModule("torch._C._monitor");
    if (!mon) return -1;
    PyObject *t = PyType_FromSpec(&wc_spec);
    int rc = t ? PyObject_SetAttrString(mon, "_WaitCounter", t) : -1;
    Py_XDECREF(t);
    Py_DECREF(mon);
    return rc;
}

/* ------------------------------------------------------------------ init */

static int add_type(PyObject *m, const char *name, PyObject *t) {
    if (!t) return -1;
    if (PyModule_AddObject(m, name, t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

PyTypeObject *tn_dist_backend_type(void) { return Backend_T; }
Py_ssize_t tn_dist_backend_size(void) { return (Py_ssize_t)sizeof(backend_obj); }

int tn_dist_pg_types_init(PyObject *c10d) {
    c10d_mod = c10d;
    if (install_wait_counter() < 0) return -1;
    for (int i = 0; i < N_BAGS; i++)   /* _Options lives on ProcessGroupGloo only, as upstream's */
        if (bag_fields[i].cls[0] != '_' && add_type(c10d, bag_fields[i].cls, make_bag(bag_fields[i].cls, NULL)) < 0) return -1;
    PyObject *t;
    if (!(t = PyType_FromSpec(&work_spec)) || tn_dist_set_meta(t, 0) < 0) return -1;
    Work_T = (PyTypeObject *)t;
    Py_INCREF(t);
    if (add_type(c10d, "Work", t) < 0) return -1;
    if (!(t = PyType_FromSpec(&backend_spec)) || tn_dist_set_meta(t, 0) < 0) return -1;
    Backend_T = (PyTypeObject *)t;
    Py_INCREF(t);
    if (add_type(c10d, "Backend", t) < 0) return -1;
    PyObject *bopts = make_bag("Backend.Options", NULL);
    if (!bopts || PyObject_SetAttrString((PyObject *)Backend_T, "Options", bopts) < 0) { Py_XDECREF(bopts); return -1; }
    PyObject *bases = PyTuple_Pack(1, (PyObject *)Backend_T);
    t = bases ? PyType_FromSpecWithBases(&gloo_spec, bases) : NULL;
    Py_XDECREF(bases);
    if (!t || tn_dist_set_meta(t, 0) < 0) { Py_DECREF(bopts); return -1; }
    Gloo_T = (PyTypeObject *)t;
    Py_INCREF(t);
    if (add_type(c10d, "ProcessGroupGloo", t) < 0) { Py_DECREF(bopts); return -1; }
    if (!(GlooOpts_T = make_bag("ProcessGroupGloo._Options", bopts))) { Py_DECREF(bopts); return -1; }
    Py_DECREF(bopts);
    if (PyObject_SetAttrString((PyObject *)Gloo_T, "_Options", GlooOpts_T) < 0) return -1;
    if (!(t = PyType_FromSpec(&device_spec))) return -1;
    Device_T = (PyTypeObject *)t;
    if (PyObject_SetAttrString((PyObject *)Gloo_T, "Device", t) < 0) return -1;
    if (!(t = PyType_FromSpec(&pg_spec)) || tn_dist_set_meta(t, 1) < 0 || tn_dist_backend_type_enum(t) < 0) return -1;
    PG_T = (PyTypeObject *)t;
    Py_INCREF(t);
    if (add_type(c10d, "ProcessGroup", t) < 0) return -1;
    return 0;
}
