/* dist_store.c — the Python types of the c10d stores: Store (subclassable from Python, as
 * upstream's), TCPStore, HashStore, FileStore, PrefixStore. Each wraps a C store
 * (src/distributed/store.h); every call releases the GIL while the store works. A Python
 * subclass of Store implements the methods itself; PrefixStore over such a store calls back
 * into its Python methods (with the GIL) through a small adapter store. */
#include "python/distributed.h"
#include "distributed/store.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    tn_store *st;          /* NULL for a Python subclass of Store that did not wrap one */
    PyObject *under;       /* PrefixStore: the Python object of the underlying store */
    int libuv;             /* TCPStore: the use_libuv flag it was made with */
} store_obj;

static _Thread_local PyObject *stash_t, *stash_v, *stash_tb;   /* see py_fail */
static PyTypeObject *Store_Type, *TCPStore_Type, *HashStore_Type, *FileStore_Type, *PrefixStore_Type;

static PyObject *raise_derr(const tn_derr *e) {
    PyObject *t;
    if (e->kind == TN_DERR_PYTHON && stash_t) {
        PyErr_Restore(stash_t, stash_v, stash_tb);
        stash_t = stash_v = stash_tb = NULL;
        return NULL;
    }
    switch (e->kind) {
    case TN_DERR_STORE: t = tn_dist_exc_store; break;
    case TN_DERR_NETWORK: t = tn_dist_exc_network; break;
    case TN_DERR_QUEUE_EMPTY: t = tn_dist_exc_queue_empty; break;
    case TN_DERR_VALUE: t = PyExc_ValueError; break;
    case TN_DERR_NOTIMPL: t = PyExc_NotImplementedError; break;
    case TN_DERR_MEMORY: return PyErr_NoMemory();
    case TN_DERR_BACKEND: t = tn_dist_exc_backend; break;
    default: t = PyExc_RuntimeError;
    }
    PyErr_SetString(t, e->msg);
    return NULL;
}

/* the C store behind self, or NotImplementedError naming the method (a Python subclass that
 * does not override it) */
static tn_store *store_of(PyObject *self, const char *method) {
    tn_store *s = ((store_obj *)self)->st;
    if (!s) {
        char buf[160];
        snprintf(buf, sizeof buf, "torch._C._distributed_c10d.Store.%s", method);
        tn_not_implemented(buf);
    }
    return s;
}

/* a key or value: str (UTF-8) or bytes; *hold keeps the bytes alive */
static int to_bv(PyObject *o, tn_bv *out, PyObject **hold, const char *what) {
    if (PyUnicode_Check(o)) {
        Py_ssize_t n;
        const char *p = PyUnicode_AsUTF8AndSize(o, &n);
        if (!p) return -1;
        *out = (tn_bv){(const uint8_t *)p, (size_t)n};
        *hold = Py_NewRef(o);
        return 0;
    }
    if (PyBytes_Check(o)) {
        *out = (tn_bv){(const uint8_t *)PyBytes_AsString(o), (size_t)PyBytes_Size(o)};
        *hold = Py_NewRef(o);
        return 0;
    }
    if (PyByteArray_Check(o) || PyObject_CheckBuffer(o)) {
        PyObject *b = PyBytes_FromObject(o);
        if (!b) return -1;
        *out = (tn_bv){(const uint8_t *)PyBytes_AsString(b), (size_t)PyBytes_Size(b)};
        *hold = b;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s: expected str or bytes, got %s", what, tn_py_type_name(o));
    return -1;
}

static int key_of(PyObject *o, tn_bv *out, PyObject **hold) {
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "store keys are str, got %s", tn_py_type_name(o));
        return -1;
    }
    return to_bv(o, out, hold, "key");
}

/* a list of str keys: views and their holders (n holders to release) */
typedef struct {
    tn_bv *k;
    PyObject **hold;
    size_t n;
} keylist;
static void keylist_free(keylist *l) {
    for (size_t i = 0; i < l->n; i++) Py_XDECREF(l->hold[i]);
    PyMem_Free(l->k);
    PyMem_Free(l->hold);
}
static int keylist_of(PyObject *seq, keylist *l, int values) {
    memset(l, 0, sizeof *l);
    if (PyUnicode_Check(seq) || PyBytes_Check(seq) || !PySequence_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "expected a list of str, got %s", tn_py_type_name(seq));
        return -1;
    }
    Py_ssize_t n = PySequence_Size(seq);
    if (n < 0) return -1;
    l->k = PyMem_Calloc(n ? (size_t)n : 1, sizeof(tn_bv));
    l->hold = PyMem_Calloc(n ? (size_t)n : 1, sizeof(PyObject *));
    if (!l->k || !l->hold) {
        keylist_free(l);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_GetItem(seq, i);
        int rc = !it ? -1 : values ? to_bv(it, &l->k[i], &l->hold[i], "value") : key_of(it, &l->k[i], &l->hold[i]);
        Py_XDECREF(it);
        if (rc < 0) {
            keylist_free(l);
            return -1;
        }
        l->n = (size_t)i + 1;
    }
    return 0;
}

static PyObject *bytes_of(tn_buf *b) {
    PyObject *r = PyBytes_FromStringAndSize((const char *)b->p, (Py_ssize_t)b->n);
    tn_buf_free(b);
    return r;
}

#define CALL(expr) ({ int rc_; Py_BEGIN_ALLOW_THREADS rc_ = (expr); Py_END_ALLOW_THREADS rc_; })

static PyObject *st_set(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "value", NULL};
    PyObject *ko, *vo, *kh = NULL, *vh = NULL;
    tn_bv k, v;
    tn_derr e = {0};
    tn_store *s = store_of(self, "set");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO:set", kws, &ko, &vo)) return NULL;
    if (key_of(ko, &k, &kh) < 0 || to_bv(vo, &v, &vh, "value") < 0) goto fail;
    int rc = CALL(tn_store_set(s, k, v, &e));
    Py_DECREF(kh);
    Py_DECREF(vh);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(kh);
    Py_XDECREF(vh);
    return NULL;
}

static PyObject *st_get(PyObject *self, PyObject *ko) {
    PyObject *kh;
    tn_bv k;
    tn_buf out;
    tn_derr e = {0};
    tn_store *s = store_of(self, "get");
    if (!s || key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_get(s, k, &out, &e));
    Py_DECREF(kh);
    return rc < 0 ? raise_derr(&e) : bytes_of(&out);
}

static PyObject *st_add(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "value", NULL};
    PyObject *ko, *kh;
    long long d;
    tn_bv k;
    int64_t out;
    tn_derr e = {0};
    tn_store *s = store_of(self, "add");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OL:add", kws, &ko, &d) || key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_add(s, k, d, &out, &e));
    Py_DECREF(kh);
    return rc < 0 ? raise_derr(&e) : PyLong_FromLongLong(out);
}

static PyObject *st_compare_set(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "expected_value", "desired_value", NULL};
    PyObject *ko, *xo, *dob, *kh = NULL, *xh = NULL, *dh = NULL;
    tn_bv k, x, d;
    tn_buf out;
    tn_derr e = {0};
    tn_store *s = store_of(self, "compare_set");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OOO:compare_set", kws, &ko, &xo, &dob)) return NULL;
    if (key_of(ko, &k, &kh) < 0 || to_bv(xo, &x, &xh, "expected_value") < 0 || to_bv(dob, &d, &dh, "desired_value") < 0) {
        Py_XDECREF(kh);
        Py_XDECREF(xh);
        return NULL;
    }
    int rc = CALL(tn_store_compare_set(s, k, x, d, &out, &e));
    Py_DECREF(kh);
    Py_DECREF(xh);
    Py_DECREF(dh);
    return rc < 0 ? raise_derr(&e) : bytes_of(&out);
}

static PyObject *st_check(PyObject *self, PyObject *keys) {
    keylist l;
    int ready = 0;
    tn_derr e = {0};
    tn_store *s = store_of(self, "check");
    if (!s || keylist_of(keys, &l, 0) < 0) return NULL;
    int rc = CALL(tn_store_check(s, l.k, l.n, &ready, &e));
    keylist_free(&l);
    return rc < 0 ? raise_derr(&e) : PyBool_FromLong(ready);
}

static PyObject *st_wait(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"keys", "timeout", NULL};
    PyObject *keys, *to = NULL;
    keylist l;
    tn_derr e = {0};
    tn_store *s = store_of(self, "wait");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "O|O:wait", kws, &keys, &to)) return NULL;
    long long ms = s->timeout_ms;
    if (to && to != Py_None && (ms = tn_dist_timedelta_to_ms(to)) < 0) return NULL;
    if (keylist_of(keys, &l, 0) < 0) return NULL;
    int rc = CALL(tn_store_wait(s, l.k, l.n, ms, &e));
    keylist_free(&l);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
}

static PyObject *st_delete_key(PyObject *self, PyObject *ko) {
    PyObject *kh;
    tn_bv k;
    int d = 0;
    tn_derr e = {0};
    tn_store *s = store_of(self, "delete_key");
    if (!s || key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_delete_key(s, k, &d, &e));
    Py_DECREF(kh);
    return rc < 0 ? raise_derr(&e) : PyBool_FromLong(d);
}

static PyObject *st_num_keys(PyObject *self, PyObject *unused) {
    int64_t n = 0;
    tn_derr e = {0};
    tn_store *s = store_of(self, "num_keys");
    if (!s) return NULL;
    int rc = CALL(tn_store_num_keys(s, &n, &e));
    return rc < 0 ? raise_derr(&e) : PyLong_FromLongLong(n);
}

static PyObject *st_set_timeout(PyObject *self, PyObject *to) {
    tn_store *s = store_of(self, "set_timeout");
    long long ms;
    if (!s || (ms = tn_dist_timedelta_to_ms(to)) < 0) return NULL;
    s->timeout_ms = ms;
    if (tn_store_is_prefix(s)) tn_prefix_store_underlying(s)->timeout_ms = ms;
    Py_RETURN_NONE;
}

static PyObject *st_get_timeout(PyObject *self, void *c) {
    tn_store *s = store_of(self, "timeout");
    return s ? tn_dist_timedelta_ms(s->timeout_ms) : NULL;
}

static PyObject *st_append(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "value", NULL};
    PyObject *ko, *vo, *kh = NULL, *vh = NULL;
    tn_bv k, v;
    tn_derr e = {0};
    tn_store *s = store_of(self, "append");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO:append", kws, &ko, &vo)) return NULL;
    if (key_of(ko, &k, &kh) < 0 || to_bv(vo, &v, &vh, "value") < 0) {
        Py_XDECREF(kh);
        return NULL;
    }
    int rc = CALL(tn_store_append(s, k, v, &e));
    Py_DECREF(kh);
    Py_DECREF(vh);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
}

static PyObject *st_multi_get(PyObject *self, PyObject *keys) {
    keylist l;
    tn_derr e = {0};
    tn_store *s = store_of(self, "multi_get");
    if (!s || keylist_of(keys, &l, 0) < 0) return NULL;
    tn_buf *outs = PyMem_Calloc(l.n ? l.n : 1, sizeof *outs);
    if (!outs) {
        keylist_free(&l);
        return PyErr_NoMemory();
    }
    int rc = CALL(tn_store_multi_get(s, l.k, l.n, outs, &e));
    size_t n = l.n;
    keylist_free(&l);
    if (rc < 0) {
        PyMem_Free(outs);
        return raise_derr(&e);
    }
    PyObject *r = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; i < n; i++) {
        PyObject *b = r ? bytes_of(&outs[i]) : NULL;
        if (!b) {
            tn_buf_free(&outs[i]);
            Py_CLEAR(r);
            continue;
        }
        PyList_SetItem(r, (Py_ssize_t)i, b);
    }
    PyMem_Free(outs);
    return r;
}

static PyObject *st_multi_set(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"keys", "values", NULL};
    PyObject *ks, *vs;
    keylist kl, vl;
    tn_derr e = {0};
    tn_store *s = store_of(self, "multi_set");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO:multi_set", kws, &ks, &vs)) return NULL;
    if (keylist_of(ks, &kl, 0) < 0) return NULL;
    if (keylist_of(vs, &vl, 1) < 0) {
        keylist_free(&kl);
        return NULL;
    }
    if (kl.n != vl.n) {
        keylist_free(&kl);
        keylist_free(&vl);
        return PyErr_Format(PyExc_ValueError, "multi_set: %zu keys but %zu values", kl.n, vl.n);
    }
    int rc = CALL(tn_store_multi_set(s, kl.k, vl.k, kl.n, &e));
    keylist_free(&kl);
    keylist_free(&vl);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
}

static PyObject *st_queue_push(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "value", NULL};
    PyObject *ko, *vo, *kh = NULL, *vh = NULL;
    tn_bv k, v;
    tn_derr e = {0};
    tn_store *s = store_of(self, "queue_push");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO:queue_push", kws, &ko, &vo)) return NULL;
    if (key_of(ko, &k, &kh) < 0 || to_bv(vo, &v, &vh, "value") < 0) {
        Py_XDECREF(kh);
        return NULL;
    }
    int rc = CALL(tn_store_queue_push(s, k, v, &e));
    Py_DECREF(kh);
    Py_DECREF(vh);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
}

static PyObject *st_queue_pop(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "block", NULL};
    PyObject *ko, *kh;
    int block = 1;
    tn_bv k;
    tn_buf out;
    tn_derr e = {0};
    tn_store *s = store_of(self, "queue_pop");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "O|p:queue_pop", kws, &ko, &block) || key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_queue_pop(s, k, block, &out, &e));
    Py_DECREF(kh);
    return rc < 0 ? raise_derr(&e) : bytes_of(&out);
}

static PyObject *st_queue_len(PyObject *self, PyObject *ko) {
    PyObject *kh;
    tn_bv k;
    int64_t n = 0;
    tn_derr e = {0};
    tn_store *s = store_of(self, "queue_len");
    if (!s || key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_queue_len(s, k, &n, &e));
    Py_DECREF(kh);
    return rc < 0 ? raise_derr(&e) : PyLong_FromLongLong(n);
}

static PyObject *st_list_keys(PyObject *self, PyObject *unused) {
    tn_buf *keys = NULL;
    size_t n = 0;
    tn_derr e = {0};
    tn_store *s = store_of(self, "list_keys");
    if (!s) return NULL;
    int rc = CALL(tn_store_list_keys(s, &keys, &n, &e));
    if (rc < 0) return raise_derr(&e);
    PyObject *r = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; r && i < n; i++) {
        PyObject *k = PyUnicode_DecodeUTF8((const char *)keys[i].p, (Py_ssize_t)keys[i].n, "surrogateescape");
        if (!k) Py_CLEAR(r);
        else PyList_SetItem(r, (Py_ssize_t)i, k);
    }
    tn_store_free_keys(keys, n);
    return r;
}

static PyObject *st_has_extended_api(PyObject *self, PyObject *unused) {
    tn_store *s = store_of(self, "has_extended_api");
    if (!s) return NULL;
    while (tn_store_is_prefix(s)) s = tn_prefix_store_underlying(s);
    return PyBool_FromLong(s->vt->extended_api);
}

static PyObject *st_barrier(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"key", "world_size", "timeout", NULL};
    PyObject *ko, *kh, *to = Py_None;
    long long world;
    tn_bv k;
    tn_derr e = {0};
    tn_store *s = store_of(self, "barrier");
    if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OL|O:barrier", kws, &ko, &world, &to)) return NULL;
    long long ms = s->timeout_ms;
    if (to != Py_None && (ms = tn_dist_timedelta_to_ms(to)) < 0) return NULL;
    if (key_of(ko, &k, &kh) < 0) return NULL;
    int rc = CALL(tn_store_barrier(s, k, world, ms, &e));
    Py_DECREF(kh);
    if (rc < 0) return raise_derr(&e);
    Py_RETURN_NONE;
}

static PyObject *wrap_store(PyTypeObject *tp, tn_store *st, PyObject *under, int libuv) {
    store_obj *o = (store_obj *)PyType_GenericAlloc(tp, 0);
    if (!o) {
        tn_store_unref(st);
        return NULL;
    }
    o->st = st;
    o->under = under ? Py_NewRef(under) : NULL;
    o->libuv = libuv;
    return (PyObject *)o;
}

static PyObject *st_clone(PyObject *self, PyObject *unused) {
    tn_derr e = {0};
    tn_store *s = store_of(self, "clone"), *c;
    if (!s) return NULL;
    Py_BEGIN_ALLOW_THREADS c = tn_store_clone(s, &e);
    Py_END_ALLOW_THREADS
    if (!c) return raise_derr(&e);
    return wrap_store(Py_TYPE(self), c, ((store_obj *)self)->under, ((store_obj *)self)->libuv);
}

static PyMethodDef store_methods[] = {
    {"set", (PyCFunction)(void (*)(void))st_set, METH_VARARGS | METH_KEYWORDS, NULL},
    {"get", st_get, METH_O, NULL},
    {"add", (PyCFunction)(void (*)(void))st_add, METH_VARARGS | METH_KEYWORDS, NULL},
    {"compare_set", (PyCFunction)(void (*)(void))st_compare_set, METH_VARARGS | METH_KEYWORDS, NULL},
    {"check", st_check, METH_O, NULL},
    {"wait", (PyCFunction)(void (*)(void))st_wait, METH_VARARGS | METH_KEYWORDS, NULL},
    {"delete_key", st_delete_key, METH_O, NULL},
    {"num_keys", st_num_keys, METH_NOARGS, NULL},
    {"set_timeout", st_set_timeout, METH_O, NULL},
    {"append", (PyCFunction)(void (*)(void))st_append, METH_VARARGS | METH_KEYWORDS, NULL},
    {"multi_get", st_multi_get, METH_O, NULL},
    {"multi_set", (PyCFunction)(void (*)(void))st_multi_set, METH_VARARGS | METH_KEYWORDS, NULL},
    {"queue_push", (PyCFunction)(void (*)(void))st_queue_push, METH_VARARGS | METH_KEYWORDS, NULL},
    {"queue_pop", (PyCFunction)(void (*)(void))st_queue_pop, METH_VARARGS | METH_KEYWORDS, NULL},
    {"queue_len", st_queue_len, METH_O, NULL},
    {"list_keys", st_list_keys, METH_NOARGS, NULL},
    {"has_extended_api", st_has_extended_api, METH_NOARGS, NULL},
    {"barrier", (PyCFunction)(void (*)(void))st_barrier, METH_VARARGS | METH_KEYWORDS, NULL},
    {"clone", st_clone, METH_NOARGS, NULL},
    {NULL},
};
static PyGetSetDef store_getset[] = {{"timeout", st_get_timeout, NULL, NULL, NULL}, {NULL}};

static PyObject *store_new(PyTypeObject *tp, PyObject *args, PyObject *kw) { return PyType_GenericAlloc(tp, 0); }
static int store_init(PyObject *self, PyObject *args, PyObject *kw) { return 0; }

static void store_dealloc(PyObject *self) {
    store_obj *o = (store_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    tn_store *s = o->st;
    o->st = NULL;
    if (s) {
        Py_BEGIN_ALLOW_THREADS tn_store_unref(s);
        Py_END_ALLOW_THREADS
    }
    Py_CLEAR(o->under);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static int store_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((store_obj *)self)->under);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int store_clear(PyObject *self) {
    Py_CLEAR(((store_obj *)self)->under);
    return 0;
}

static PyType_Slot store_slots[] = {
    {Py_tp_new, store_new}, {Py_tp_init, store_init}, {Py_tp_dealloc, store_dealloc},
    {Py_tp_traverse, store_traverse}, {Py_tp_clear, store_clear}, {Py_tp_methods, store_methods},
    {Py_tp_getset, store_getset}, {0, NULL},
};
static PyType_Spec store_spec = {"torch._C._distributed_c10d.Store", sizeof(store_obj), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, store_slots};

/* ---- TCPStore ---- */
static int set_store(PyObject *self, tn_store *st) {
    store_obj *o = (store_obj *)self;
    if (o->st) {
        tn_store *old = o->st;
        Py_BEGIN_ALLOW_THREADS tn_store_unref(old);
        Py_END_ALLOW_THREADS
    }
    o->st = st;
    return 0;
}

static int tcp_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"host_name", "port", "world_size", "is_master", "timeout", "wait_for_workers",
                          "multi_tenant", "master_listen_fd", "use_libuv", NULL};
    const char *host;
    int port, is_master = 0, wait_workers = 1, multi_tenant = 0, use_libuv = 1;
    PyObject *world = Py_None, *to = NULL, *lfd = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "si|OpOppOp:TCPStore", kws, &host, &port, &world, &is_master, &to,
                                     &wait_workers, &multi_tenant, &lfd, &use_libuv))
        return -1;
    if (port < 0 || port > 65535) {
        PyErr_Format(PyExc_TypeError, "TCPStore(): port %d does not fit an unsigned 16-bit port number", port);
        return -1;
    }
    tn_tcp_store_opts o = {host, port, is_master, -1, 300000, wait_workers, -1, multi_tenant};
    if (world != Py_None && (o.num_workers = PyLong_AsLongLong(world)) == -1 && PyErr_Occurred()) return -1;
    if (to && to != Py_None && (o.timeout_ms = tn_dist_timedelta_to_ms(to)) < 0) return -1;
    if (lfd != Py_None && (o.listen_fd = (int)PyLong_AsLong(lfd)) == -1 && PyErr_Occurred()) return -1;
    tn_derr e = {0};
    tn_store *st;
    Py_BEGIN_ALLOW_THREADS st = tn_tcp_store_new(&o, &e);
    Py_END_ALLOW_THREADS
    if (!st) return raise_derr(&e), -1;
    ((store_obj *)self)->libuv = use_libuv;
    return set_store(self, st);
}
static PyObject *tcp_host(PyObject *self, void *c) {
    tn_store *s = store_of(self, "host");
    return s ? PyUnicode_FromString(tn_tcp_store_host(s)) : NULL;
}
static PyObject *tcp_port(PyObject *self, void *c) {
    tn_store *s = store_of(self, "port");
    return s ? PyLong_FromLong(tn_tcp_store_port(s)) : NULL;
}
static PyObject *tcp_libuv(PyObject *self, void *c) { return PyBool_FromLong(((store_obj *)self)->libuv); }
static PyGetSetDef tcp_getset[] = {
    {"host", tcp_host, NULL, NULL, NULL}, {"port", tcp_port, NULL, NULL, NULL},
    {"libuvBackend", tcp_libuv, NULL, NULL, NULL}, {NULL},
};
static PyType_Slot tcp_slots[] = {{Py_tp_traverse, store_traverse}, {Py_tp_clear, store_clear}, {Py_tp_init, tcp_init}, {Py_tp_getset, tcp_getset}, {0, NULL}};
static PyType_Spec tcp_spec = {"torch._C._distributed_c10d.TCPStore", sizeof(store_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, tcp_slots};

/* ---- HashStore ---- */
static int hash_init(PyObject *self, PyObject *args, PyObject *kw) {
    if (!PyArg_ParseTuple(args, ":HashStore")) return -1;
    tn_store *st = tn_hash_store_new();
    if (!st) return PyErr_NoMemory(), -1;
    return set_store(self, st);
}
static PyType_Slot hash_slots[] = {{Py_tp_traverse, store_traverse}, {Py_tp_clear, store_clear}, {Py_tp_init, hash_init}, {0, NULL}};
static PyType_Spec hash_spec = {"torch._C._distributed_c10d.HashStore", sizeof(store_obj), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, hash_slots};

/* ---- FileStore ---- */
static int file_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"file_name", "world_size", NULL};
    PyObject *path;
    int world = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|i:FileStore", kws, PyUnicode_FSConverter, &path, &world)) return -1;
    tn_derr e = {0};
    tn_store *st;
    const char *p = PyBytes_AsString(path);
    Py_BEGIN_ALLOW_THREADS st = tn_file_store_new(p, world, &e);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (!st) return raise_derr(&e), -1;
    return set_store(self, st);
}
static PyObject *file_path(PyObject *self, void *c) {
    tn_store *s = store_of(self, "path");
    return s ? PyUnicode_DecodeFSDefault(tn_file_store_path(s)) : NULL;
}
static PyGetSetDef file_getset[] = {{"path", file_path, NULL, NULL, NULL}, {NULL}};
static PyType_Slot file_slots[] = {{Py_tp_traverse, store_traverse}, {Py_tp_clear, store_clear}, {Py_tp_init, file_init}, {Py_tp_getset, file_getset}, {0, NULL}};
static PyType_Spec file_spec = {"torch._C._distributed_c10d.FileStore", sizeof(store_obj), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, file_slots};

/* ---- a Python store (a subclass of Store implementing the methods) seen as a C store ---- */
typedef struct {
    tn_store base;
    PyObject *obj;
} py_store;
#define PYS(s) ((py_store *)(s))

/* A Python store's exception, kept for the thread that called into the store (the adapter runs
 * on the caller's thread) and re-raised unchanged by raise_derr. */
static int py_fail(tn_derr *e) {
    Py_XDECREF(stash_t);
    Py_XDECREF(stash_v);
    Py_XDECREF(stash_tb);
    PyErr_Fetch(&stash_t, &stash_v, &stash_tb);
    tn_derr_set(e, TN_DERR_PYTHON, "error in a Python store");
    return -1;
}
static PyObject *pyk(tn_bv k) { return PyUnicode_DecodeUTF8((const char *)k.p, (Py_ssize_t)k.n, "surrogateescape"); }
static PyObject *pyb(tn_bv v) { return PyBytes_FromStringAndSize((const char *)v.p, (Py_ssize_t)v.n); }
static PyObject *pykeys(const tn_bv *k, size_t n) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        PyObject *x = pyk(k[i]);
        if (!x) Py_CLEAR(l);
        else PyList_SetItem(l, (Py_ssize_t)i, x);
    }
    return l;
}
static int out_bytes(PyObject *r, tn_buf *o, tn_derr *e) {
    PyObject *h;
    tn_bv v;
    if (!r || to_bv(r, &v, &h, "value") < 0) {
        Py_XDECREF(r);
        return py_fail(e);
    }
    int rc = tn_buf_dup(o, v.p, v.n);
    Py_DECREF(h);
    Py_DECREF(r);
    return rc < 0 ? (tn_derr_set(e, TN_DERR_MEMORY, "out of memory"), -1) : 0;
}
#define PYCALL(...) \
    PyGILState_STATE g_ = PyGILState_Ensure(); int rc; do { __VA_ARGS__ } while (0); PyGILState_Release(g_); return rc;

static int pys_set(tn_store *s, tn_bv k, tn_bv v, tn_derr *e) {
    PYCALL({ PyObject *r = PyObject_CallMethod(PYS(s)->obj, "set", "NN", pyk(k), pyb(v)); rc = r ? 0 : py_fail(e); Py_XDECREF(r); })
}
static int pys_get(tn_store *s, tn_bv k, tn_buf *o, tn_derr *e) {
    PYCALL({ rc = out_bytes(PyObject_CallMethod(PYS(s)->obj, "get", "N", pyk(k)), o, e); })
}
static int pys_add(tn_store *s, tn_bv k, int64_t d, int64_t *o, tn_derr *e) {
    PYCALL({
        PyObject *r = PyObject_CallMethod(PYS(s)->obj, "add", "NL", pyk(k), (long long)d);
        *o = r ? PyLong_AsLongLong(r) : -1;
        rc = r && !PyErr_Occurred() ? 0 : py_fail(e);
        Py_XDECREF(r);
    })
}
static int pys_compare_set(tn_store *s, tn_bv k, tn_bv x, tn_bv d, tn_buf *o, tn_derr *e) {
    PYCALL({ rc = out_bytes(PyObject_CallMethod(PYS(s)->obj, "compare_set", "NNN", pyk(k), pyb(x), pyb(d)), o, e); })
}
static int pys_check(tn_store *s, const tn_bv *k, size_t n, int *ready, tn_derr *e) {
    PYCALL({
        PyObject *r = PyObject_CallMethod(PYS(s)->obj, "check", "N", pykeys(k, n));
        *ready = r ? PyObject_IsTrue(r) : 0;
        rc = r && *ready >= 0 ? 0 : py_fail(e);
        Py_XDECREF(r);
    })
}
static int pys_wait(tn_store *s, const tn_bv *k, size_t n, int64_t to, tn_derr *e) {
    PYCALL({
        PyObject *td = tn_dist_timedelta_ms(to);
        PyObject *r = td ? PyObject_CallMethod(PYS(s)->obj, "wait", "NN", pykeys(k, n), td) : NULL;
        rc = r ? 0 : py_fail(e);
        Py_XDECREF(r);
    })
}
static int pys_delete(tn_store *s, tn_bv k, int *d, tn_derr *e) {
    PYCALL({
        PyObject *r = PyObject_CallMethod(PYS(s)->obj, "delete_key", "N", pyk(k));
        *d = r ? PyObject_IsTrue(r) : 0;
        rc = r && *d >= 0 ? 0 : py_fail(e);
        Py_XDECREF(r);
    })
}
static int pys_num_keys(tn_store *s, int64_t *o, tn_derr *e) {
    PYCALL({
        PyObject *r = PyObject_CallMethod(PYS(s)->obj, "num_keys", NULL);
        *o = r ? PyLong_AsLongLong(r) : -1;
        rc = r && !PyErr_Occurred() ? 0 : py_fail(e);
        Py_XDECREF(r);
    })
}
static void pys_destroy(tn_store *s) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(PYS(s)->obj);
    PyGILState_Release(g);
    free(s);
}
static const tn_store_vt py_vt = {
    "Store", pys_set, pys_get, pys_add, pys_compare_set, pys_check, pys_wait, pys_delete, pys_num_keys,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, pys_destroy, 0,
};

/* the C store of any Store object (a new reference) */
static tn_store *c_store_of(PyObject *o) {
    if (!PyObject_TypeCheck(o, Store_Type)) {
        PyErr_Format(PyExc_TypeError, "expected a torch._C._distributed_c10d.Store, got %s", tn_py_type_name(o));
        return NULL;
    }
    if (((store_obj *)o)->st) return tn_store_ref(((store_obj *)o)->st);
    py_store *p = calloc(1, sizeof *p);
    if (!p) return (tn_store *)PyErr_NoMemory();
    p->obj = Py_NewRef(o);
    tn_store_init(&p->base, &py_vt, 300000);
    return &p->base;
}

tn_store *tn_dist_store_of(PyObject *o) { return c_store_of(o); }

/* ---- PrefixStore ---- */
static int prefix_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"prefix", "store", NULL};
    const char *prefix;
    Py_ssize_t n;
    PyObject *under;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s#O:PrefixStore", kws, &prefix, &n, &under)) return -1;
    if (under == Py_None) {
        PyErr_SetString(PyExc_ValueError, "store argument cannot be None");
        return -1;
    }
    tn_store *u = c_store_of(under);
    if (!u) return -1;
    tn_store *st = tn_prefix_store_new(prefix, (size_t)n, u);
    tn_store_unref(u);
    if (!st) return PyErr_NoMemory(), -1;
    Py_XSETREF(((store_obj *)self)->under, Py_NewRef(under));
    return set_store(self, st);
}
static PyObject *prefix_under(PyObject *self, void *c) {
    PyObject *u = ((store_obj *)self)->under;
    return u ? Py_NewRef(u) : Py_NewRef(Py_None);
}
static PyObject *prefix_under_np(PyObject *self, void *c) {
    PyObject *u = ((store_obj *)self)->under;
    while (u && PyObject_TypeCheck(u, PrefixStore_Type) && ((store_obj *)u)->under) u = ((store_obj *)u)->under;
    return u ? Py_NewRef(u) : Py_NewRef(Py_None);
}
static PyGetSetDef prefix_getset[] = {
    {"underlying_store", prefix_under, NULL, NULL, NULL},
    {"_underlying_non_prefix_store", prefix_under_np, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot prefix_slots[] = {{Py_tp_traverse, store_traverse}, {Py_tp_clear, store_clear}, {Py_tp_init, prefix_init}, {Py_tp_getset, prefix_getset}, {0, NULL}};
static PyType_Spec prefix_spec = {"torch._C._distributed_c10d.PrefixStore", sizeof(store_obj), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, prefix_slots};

static PyTypeObject *sub_type(PyType_Spec *spec, PyObject *c10d, const char *name) {
    PyObject *bases = PyTuple_Pack(1, (PyObject *)Store_Type);
    PyObject *t = bases ? PyType_FromSpecWithBases(spec, bases) : NULL;
    Py_XDECREF(bases);
    if (!t || tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(c10d, name, t) < 0) {
        Py_XDECREF(t);
        return NULL;
    }
    Py_DECREF(t);   /* the module holds it */
    return (PyTypeObject *)t;
}

int tn_dist_store_types_init(PyObject *c10d) {
    PyObject *t = PyType_FromSpec(&store_spec);
    if (!t || tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(c10d, "Store", t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    Py_DECREF(t);
    Store_Type = (PyTypeObject *)t;
    if (!(TCPStore_Type = sub_type(&tcp_spec, c10d, "TCPStore")) || !(HashStore_Type = sub_type(&hash_spec, c10d, "HashStore")) ||
        !(FileStore_Type = sub_type(&file_spec, c10d, "FileStore")) ||
        !(PrefixStore_Type = sub_type(&prefix_spec, c10d, "PrefixStore")))
        return -1;
    return 0;
}
