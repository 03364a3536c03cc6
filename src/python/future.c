/* future.c — torch._C.Future (the base of torch.futures.Future) and torch._C._collect_all.
 *
 * Upstream's ivalue::Future as the Python surface sees it: a value set once (set_result; a
 * second set raises "Attempting to mark a completed Future as complete again..."), callbacks run
 * when it completes (at once when it already has), then(cb) giving a new Future with cb's result
 * (an exception in cb completes it with an error: wait()/value() raise RuntimeError("Got the
 * following error when running the callback: <Type>: <msg>...")), add_done_callback (an exception
 * is printed and swallowed, as upstream logs it), _set_unwrap_func (torch.futures'
 * set_exception: the stored value is passed to it on wait()/value(), which raises it).
 * wait() on a pending Future blocks with the GIL released until another thread completes it;
 * value() on a pending Future raises RuntimeError as upstream's internal assert does.
 * Work.get_future() (dist_pg.c) and DDP's comm hooks (dist_ddp.c) build on these. */
#include "python/common.h"

#include <string.h>
#define CALL1(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#include <time.h>

typedef struct {
    PyObject_HEAD
    PyObject *dict, *weakrefs;
    int done;
    PyObject *value;       /* the result, when done without error */
    PyObject *error;       /* str: the callback error, when done with an error */
    PyObject *callbacks;   /* list of callables cb(self), run once when done */
    PyObject *unwrap;      /* _set_unwrap_func's function or NULL */
} fut_obj;

static PyTypeObject *Future_T;

PyObject *tn_future_new(void) { return PyObject_CallNoArgs((PyObject *)Future_T); }
int tn_future_check(PyObject *o) { return Future_T && PyObject_TypeCheck(o, Future_T); }

static int fut_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"devices", NULL};
    PyObject *devs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Future", kws, &devs)) return -1;
    return 0;
}

/* run the callbacks queued so far (a callback may add more; they run too) */
static int run_callbacks(fut_obj *f) {
    while (f->callbacks && PyList_Size(f->callbacks) > 0) {
        PyObject *cbs = f->callbacks;
        f->callbacks = PyList_New(0);
        if (!f->callbacks) { f->callbacks = cbs; return -1; }
        for (Py_ssize_t i = 0; i < PyList_Size(cbs); i++) {
            PyObject *r = CALL1(PyList_GetItem(cbs, i), (PyObject *)f);
            if (!r) {
                Py_DECREF(cbs);
                return -1;
            }
            Py_DECREF(r);
        }
        Py_DECREF(cbs);
    }
    return 0;
}

static int complete(fut_obj *f, PyObject *value, PyObject *error) {
    if (f->done) {
        PyErr_SetString(PyExc_RuntimeError, "Attempting to mark a completed Future as complete again. Note that a "
                                            "Future can only be marked completed once.");
        return -1;
    }
    f->done = 1;
    f->value = value ? Py_NewRef(value) : NULL;
    f->error = error ? Py_NewRef(error) : NULL;
    return run_callbacks(f);
}

int tn_future_set_result(PyObject *f, PyObject *value) { return complete((fut_obj *)f, value, NULL); }

static PyObject *fut_set_result(PyObject *self, PyObject *v) {
    if (complete((fut_obj *)self, v, NULL) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *fut_done(PyObject *self, PyObject *u) { return PyBool_FromLong(((fut_obj *)self)->done); }

static PyObject *result_of(fut_obj *f) {
    if (f->error) {
        PyErr_SetObject(PyExc_RuntimeError, f->error);
        return NULL;
    }
    if (f->unwrap) {
        PyObject *r = CALL1(f->unwrap, f->value ? f->value : Py_None);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    return Py_NewRef(f->value ? f->value : Py_None);
}

static PyObject *fut_wait(PyObject *self, PyObject *u) {
    fut_obj *f = (fut_obj *)self;
    while (!f->done) {   /* another thread completes it */
        Py_BEGIN_ALLOW_THREADS
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        Py_END_ALLOW_THREADS
        if (PyErr_CheckSignals() < 0) return NULL;
    }
    return result_of(f);
}
static PyObject *fut_value(PyObject *self, PyObject *u) {
    fut_obj *f = (fut_obj *)self;
    if (!f->done) {
        PyErr_SetString(PyExc_RuntimeError, "completed() INTERNAL ASSERT FAILED: value() of a Future that has not completed");
        return NULL;
    }
    return result_of(f);
}

static PyObject *fut_add_cb_raw(fut_obj *f, PyObject *cb) {
    if (f->done) {
        PyObject *r = CALL1(cb, (PyObject *)f);
        if (!r) return NULL;
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    if (!f->callbacks && !(f->callbacks = PyList_New(0))) return NULL;
    if (PyList_Append(f->callbacks, cb) < 0) return NULL;
    Py_RETURN_NONE;
}

/* "Got the following error when running the callback: Type: msg" from the raised exception */
static PyObject *callback_error_text(void) {
    PyObject *et, *exc, *tb;
    PyErr_Fetch(&et, &exc, &tb);
    PyErr_NormalizeException(&et, &exc, &tb);
    Py_XDECREF(et);
    Py_XDECREF(tb);
    PyObject *tn = exc ? PyObject_GetAttrString((PyObject *)Py_TYPE(exc), "__name__") : NULL;
    PyObject *msg = exc ? PyObject_Str(exc) : NULL;
    PyObject *s = tn && msg ? PyUnicode_FromFormat("Got the following error when running the callback: %U: %U", tn, msg) : NULL;
    Py_XDECREF(tn);
    Py_XDECREF(msg);
    Py_XDECREF(exc);
    return s;
}

/* add_done_callback: an exception in cb is printed to stderr and swallowed (upstream logs it) */
static PyObject *swallow_call(PyObject *cb, PyObject *args) {
    PyObject *fn = PyTuple_GetItem(cb, 0), *f = PyTuple_GetItem(args, 0);
    PyObject *r = CALL1(fn, f);
    if (r) return r;
    PyObject *s = callback_error_text();
    if (!s) return NULL;
    PySys_FormatStderr("%U\n", s);
    Py_DECREF(s);
    Py_RETURN_NONE;
}
static PyMethodDef swallow_def = {"_done_callback", (PyCFunction)swallow_call, METH_VARARGS, NULL};

static PyObject *fut_add_done_callback(PyObject *self, PyObject *cb) {
    PyObject *t = PyTuple_Pack(1, cb);
    PyObject *w = t ? PyCFunction_New(&swallow_def, t) : NULL;
    Py_XDECREF(t);
    if (!w) return NULL;
    PyObject *r = fut_add_cb_raw((fut_obj *)self, w);
    Py_DECREF(w);
    return r;
}

/* then: when the parent completes, child = cb(parent), or an error naming cb's exception */
static PyObject *then_call(PyObject *pair, PyObject *args) {
    PyObject *fn = PyTuple_GetItem(pair, 0), *child = PyTuple_GetItem(pair, 1), *f = PyTuple_GetItem(args, 0);
    PyObject *r = CALL1(fn, f);
    int rc;
    if (r) {
        rc = complete((fut_obj *)child, r, NULL);
        Py_DECREF(r);
    } else {
        PyObject *s = callback_error_text();
        if (!s) return NULL;
        rc = complete((fut_obj *)child, NULL, s);
        Py_DECREF(s);
    }
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef then_def = {"_then", (PyCFunction)then_call, METH_VARARGS, NULL};

static PyObject *fut_then(PyObject *self, PyObject *cb) {
    PyObject *child = tn_future_new();
    if (!child) return NULL;
    PyObject *pair = PyTuple_Pack(2, cb, child);
    PyObject *w = pair ? PyCFunction_New(&then_def, pair) : NULL;
    Py_XDECREF(pair);
    PyObject *r = w ? fut_add_cb_raw((fut_obj *)self, w) : NULL;
    Py_XDECREF(w);
    if (!r) {
        Py_DECREF(child);
        return NULL;
    }
    Py_DECREF(r);
    return child;
}

static PyObject *fut_set_unwrap(PyObject *self, PyObject *fn) {
    Py_XSETREF(((fut_obj *)self)->unwrap, Py_NewRef(fn));
    Py_RETURN_NONE;
}

static int fut_traverse(PyObject *self, visitproc visit, void *arg) {
    fut_obj *f = (fut_obj *)self;
    Py_VISIT(f->dict);
    Py_VISIT(f->value);
    Py_VISIT(f->callbacks);
    Py_VISIT(f->unwrap);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int fut_clear(PyObject *self) {
    fut_obj *f = (fut_obj *)self;
    Py_CLEAR(f->dict);
    Py_CLEAR(f->value);
    Py_CLEAR(f->error);
    Py_CLEAR(f->callbacks);
    Py_CLEAR(f->unwrap);
    return 0;
}
static void fut_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((fut_obj *)self)->weakrefs) PyObject_ClearWeakRefs(self);
    fut_clear(self);
    freefunc fr = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    fr(self);
    Py_DECREF(tp);
}

static PyMethodDef fut_methods[] = {
    {"done", fut_done, METH_NOARGS, NULL},
    {"wait", fut_wait, METH_NOARGS, NULL},
    {"value", fut_value, METH_NOARGS, NULL},
    {"set_result", fut_set_result, METH_O, NULL},
    {"then", fut_then, METH_O, NULL},
    {"add_done_callback", fut_add_done_callback, METH_O, NULL},
    {"_set_unwrap_func", fut_set_unwrap, METH_O, NULL},
    {NULL},
};
static PyMemberDef fut_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(fut_obj, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(fut_obj, weakrefs), READONLY, NULL},
    {NULL},
};
static PyType_Slot fut_slots[] = {
    {Py_tp_new, PyType_GenericNew}, {Py_tp_init, fut_init}, {Py_tp_methods, fut_methods},
    {Py_tp_members, fut_members}, {Py_tp_traverse, fut_traverse}, {Py_tp_clear, fut_clear},
    {Py_tp_dealloc, fut_dealloc}, {0, NULL},
};
static PyType_Spec fut_spec = {"torch.Future", sizeof(fut_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, fut_slots};

/* _collect_all(futures): a Future whose value is the list, completed when every one is done */
static PyObject *collect_step(PyObject *pair, PyObject *args) {
    PyObject *res = PyTuple_GetItem(pair, 0), *lst = PyTuple_GetItem(pair, 1);
    if (((fut_obj *)res)->done) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < PyList_Size(lst); i++)
        if (!((fut_obj *)PyList_GetItem(lst, i))->done) Py_RETURN_NONE;
    if (complete((fut_obj *)res, lst, NULL) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef collect_def = {"_collect_step", (PyCFunction)collect_step, METH_VARARGS, NULL};

static PyObject *collect_all(PyObject *m, PyObject *futs) {
    PyObject *lst = PySequence_List(futs);
    if (!lst) return NULL;
    for (Py_ssize_t i = 0; i < PyList_Size(lst); i++)
        if (!tn_future_check(PyList_GetItem(lst, i))) {
            Py_DECREF(lst);
            return PyErr_Format(PyExc_TypeError, "_collect_all(): expected a list of torch.Future, got %s",
                                tn_py_type_name(PyList_GetItem(lst, i)));
        }
    PyObject *res = tn_future_new();
    PyObject *pair = res ? PyTuple_Pack(2, res, lst) : NULL;
    PyObject *w = pair ? PyCFunction_New(&collect_def, pair) : NULL;
    Py_XDECREF(pair);
    Py_DECREF(lst);
    if (!w) { Py_XDECREF(res); return NULL; }
    PyObject *none = PyTuple_Pack(1, Py_None);
    PyObject *r = none ? PyObject_Call(w, none, NULL) : NULL;   /* all done already? */
    Py_XDECREF(none);
    for (Py_ssize_t i = 0; r && i < PyList_Size(PyTuple_GetItem(PyCFunction_GetSelf(w), 1)); i++) {
        fut_obj *f = (fut_obj *)PyList_GetItem(PyTuple_GetItem(PyCFunction_GetSelf(w), 1), i);
        if (f->done) continue;
        Py_DECREF(r);
        r = fut_add_cb_raw(f, w);
    }
    Py_DECREF(w);
    if (!r) { Py_DECREF(res); return NULL; }
    Py_DECREF(r);
    return res;
}

static PyMethodDef future_funcs[] = {{"_collect_all", collect_all, METH_O, NULL}, {NULL}};

int tn_future_init(PyObject *m) {
    PyObject *t = PyType_FromSpec(&fut_spec);
    if (!t) return -1;
    Future_T = (PyTypeObject *)t;
    if (PyModule_AddObjectRef(m, "Future", t) < 0) return -1;
    return PyModule_AddFunctions(m, future_funcs);
}
