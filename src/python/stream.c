/* stream.c — torch._C.Stream and torch._C.Event (torch.Stream, torch.Event) for the devices we
 * have, measured on upstream 2.13 CPU:
 *
 * - Stream(device=None, *, priority=0) or Stream(*, stream_id, device_index, device_type): the
 *   CPU (or meta) stream 0; an index given with the device is dropped (device_index -1). query()
 *   is True, synchronize() and wait_event() do nothing, is_capturing() is False; record_event()
 *   and wait_stream() need an event, which the CPU backend lacks: RuntimeError "cpu backend
 *   doesn't support events." native_handle raises. Equal when device and id are. Usable in `with`.
 * - Event(device=None, *, enable_timing=False, blocking=False, interprocess=False): event_flag is 1
 *   with timing; record() raises as above, query() is True, synchronize()/wait() do nothing,
 *   elapsed_time() checks timing then recording (ValueError), ipc raises NotImplementedError.
 *
 * DDP's mixed precision records an Event in its forward pre-hook, so on CPU it stops with the
 * same error as upstream's. */
#include "python/common.h"

#include <string.h>

enum { DEVTYPE_CPU = 0, DEVTYPE_META = 14 };   /* c10::DeviceType values */

typedef struct {
    PyObject_HEAD
    int64_t id;
    int devtype, index;
} stream_obj;

typedef struct {
    PyObject_HEAD
    int devtype, flag;
} event_obj;

static PyTypeObject *Stream_T, *Event_T;

static const char *devtype_name(int t) { return t == DEVTYPE_META ? "meta" : "cpu"; }

static int parse_dev(PyObject *o, int *devtype) {
    tn_device_type t = TN_DEVICE_CPU;
    if (o && o != Py_None && tn_py_parse_device(o, &t, NULL) < 0) return -1;
    *devtype = t == TN_DEVICE_META ? DEVTYPE_META : DEVTYPE_CPU;
    return 0;
}

static PyObject *no_events(int devtype) {
    PyErr_Format(PyExc_RuntimeError, "%s backend doesn't support events.", devtype_name(devtype));
    return NULL;
}

/* ---- Stream ---- */

static PyObject *stream_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kws[] = {"device", "priority", "stream_id", "device_index", "device_type", NULL};
    PyObject *dev = NULL, *sid = NULL, *dix = NULL, *dty = NULL;
    int priority = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$iOOO:Stream", kws, &dev, &priority, &sid, &dix, &dty)) return NULL;
    int devtype = DEVTYPE_CPU, index = -1;
    long long id = 0;
    if (sid || dix || dty) {   /* the (stream_id, device_index, device_type) form: all three */
        if (!sid || !dix || !dty || dev) {
            PyErr_Format(PyExc_TypeError, "Stream() got an unexpected keyword argument '%s'",
                         sid ? "stream_id" : dix ? "device_index" : "device_type");
            return NULL;
        }
        long long t = PyLong_AsLongLong(dty);
        id = PyLong_AsLongLong(sid);
        index = (int)PyLong_AsLong(dix);
        if (PyErr_Occurred()) return NULL;
        if (t != DEVTYPE_CPU && t != DEVTYPE_META) {
            PyErr_Format(PyExc_RuntimeError, "torchnative: device type %lld is not available (CPU-only build)", t);
            return NULL;
        }
        devtype = (int)t;
    } else if (parse_dev(dev, &devtype) < 0) {
        return NULL;
    }
    stream_obj *s = (stream_obj *)PyType_GenericAlloc(tp, 0);
    if (!s) return NULL;
    s->id = id, s->devtype = devtype, s->index = index;
    return (PyObject *)s;
}

static PyObject *stream_repr(PyObject *self) {
    stream_obj *s = (stream_obj *)self;
    return PyUnicode_FromFormat("torch.Stream device_type=%s, device_index=%d, stream_id=%lld", devtype_name(s->devtype),
                                s->index, (long long)s->id);
}

static PyObject *stream_richcompare(PyObject *a, PyObject *b, int op) {
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, Stream_T)) Py_RETURN_NOTIMPLEMENTED;
    stream_obj *x = (stream_obj *)a, *y = (stream_obj *)b;
    int eq = x->id == y->id && x->devtype == y->devtype && x->index == y->index;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t stream_hash(PyObject *self) {
    stream_obj *s = (stream_obj *)self;
    Py_hash_t h = (Py_hash_t)(s->id * 1000003 + s->devtype * 131 + s->index);
    return h == -1 ? -2 : h;
}

static PyObject *s_device(PyObject *self, void *u) {
    return tn_py_device_new(((stream_obj *)self)->devtype == DEVTYPE_META ? TN_DEVICE_META : TN_DEVICE_CPU, -1);
}
static PyObject *s_device_type(PyObject *self, void *u) { return PyLong_FromLong(((stream_obj *)self)->devtype); }
static PyObject *s_device_index(PyObject *self, void *u) { return PyLong_FromLong(((stream_obj *)self)->index); }
static PyObject *s_stream_id(PyObject *self, void *u) { return PyLong_FromLongLong(((stream_obj *)self)->id); }
static PyObject *s_native_handle(PyObject *self, void *u) {
    PyErr_SetString(PyExc_RuntimeError, "Backend doesn't support getting stream native handle.");
    return NULL;
}

static PyObject *s_true(PyObject *self, PyObject *u) { Py_RETURN_TRUE; }
static PyObject *s_false(PyObject *self, PyObject *u) { Py_RETURN_FALSE; }
static PyObject *s_none(PyObject *self, PyObject *u) { Py_RETURN_NONE; }
static PyObject *s_self(PyObject *self, PyObject *u) { return Py_NewRef(self); }
static PyObject *s_exit(PyObject *self, PyObject *args) { Py_RETURN_NONE; }

static int check_arg(PyObject *o, PyTypeObject *tp, const char *what) {
    if (PyObject_TypeCheck(o, tp)) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected %s to be a %s object, got %s", what,
                 tp == Stream_T ? "torch.Stream" : "torch.Event", tn_py_type_name(o));
    return -1;
}
static PyObject *s_wait_event(PyObject *self, PyObject *ev) {
    if (check_arg(ev, Event_T, "event") < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *s_wait_stream(PyObject *self, PyObject *other) {
    if (check_arg(other, Stream_T, "stream") < 0) return NULL;
    return no_events(((stream_obj *)self)->devtype);
}
static PyObject *s_record_event(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"event", NULL};
    PyObject *ev = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:record_event", kws, &ev)) return NULL;
    if (ev && ev != Py_None && check_arg(ev, Event_T, "event") < 0) return NULL;
    return no_events(((stream_obj *)self)->devtype);
}

static PyMethodDef stream_methods[] = {
    {"query", s_true, METH_NOARGS, NULL},
    {"synchronize", s_none, METH_NOARGS, NULL},
    {"is_capturing", s_false, METH_NOARGS, NULL},
    {"wait_event", s_wait_event, METH_O, NULL},
    {"wait_stream", s_wait_stream, METH_O, NULL},
    {"record_event", (PyCFunction)(void (*)(void))s_record_event, METH_VARARGS | METH_KEYWORDS, NULL},
    {"__enter__", s_self, METH_NOARGS, NULL},
    {"__exit__", s_exit, METH_VARARGS, NULL},
    {NULL},
};
static PyGetSetDef stream_getset[] = {
    {"device", s_device, NULL, NULL, NULL},
    {"device_type", s_device_type, NULL, NULL, NULL},
    {"device_index", s_device_index, NULL, NULL, NULL},
    {"stream_id", s_stream_id, NULL, NULL, NULL},
    {"native_handle", s_native_handle, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot stream_slots[] = {
    {Py_tp_new, stream_new},
    {Py_tp_repr, stream_repr},
    {Py_tp_richcompare, stream_richcompare},
    {Py_tp_hash, stream_hash},
    {Py_tp_methods, stream_methods},
    {Py_tp_getset, stream_getset},
    {0, NULL},
};
static PyType_Spec stream_spec = {"torch.Stream", sizeof(stream_obj), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                  stream_slots};

/* ---- Event ---- */

static PyObject *event_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kws[] = {"device", "enable_timing", "blocking", "interprocess", NULL};
    PyObject *dev = NULL;
    int timing = 0, blocking = 0, ipc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$ppp:Event", kws, &dev, &timing, &blocking, &ipc)) return NULL;
    int devtype;
    if (parse_dev(dev, &devtype) < 0) return NULL;
    event_obj *e = (event_obj *)PyType_GenericAlloc(tp, 0);
    if (!e) return NULL;
    e->devtype = devtype, e->flag = timing;
    return (PyObject *)e;
}

static PyObject *event_repr(PyObject *self) {
    event_obj *e = (event_obj *)self;
    return PyUnicode_FromFormat("torch.Event device_type=%s, device_index=-1, event_flag=%d, event_id=0",
                                devtype_name(e->devtype), e->flag);
}

static PyObject *e_device(PyObject *self, void *u) {
    return tn_py_device_new(((event_obj *)self)->devtype == DEVTYPE_META ? TN_DEVICE_META : TN_DEVICE_CPU, -1);
}
static PyObject *e_event_id(PyObject *self, void *u) { return PyLong_FromLong(0); }

static PyObject *e_record(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"stream", NULL};
    PyObject *st = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:record", kws, &st)) return NULL;
    if (st && st != Py_None && check_arg(st, Stream_T, "stream") < 0) return NULL;
    return no_events(((event_obj *)self)->devtype);
}
static PyObject *e_wait(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"stream", NULL};
    PyObject *st = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:wait", kws, &st)) return NULL;
    Py_RETURN_NONE;   /* an event never recorded: nothing to wait for */
}
static PyObject *e_elapsed_time(PyObject *self, PyObject *other) {
    if (!PyObject_TypeCheck(other, Event_T)) {
        PyErr_SetString(PyExc_RuntimeError, "expected other to be a torch.Event object");
        return NULL;
    }
    if (!((event_obj *)self)->flag || !((event_obj *)other)->flag) {
        PyErr_SetString(PyExc_ValueError, "Both events must be created with argument 'enable_timing=True'.");
        return NULL;
    }
    PyErr_SetString(PyExc_ValueError, "Both events must be recorded before calculating elapsed time.");
    return NULL;
}
static PyObject *e_ipc(PyObject *self, PyObject *args, PyObject *kw) {
    PyErr_SetString(PyExc_NotImplementedError, "torch.Event ipc is not supported yet, please open an issue if you need this!");
    return NULL;
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))e_record, METH_VARARGS | METH_KEYWORDS, NULL},
    {"wait", (PyCFunction)(void (*)(void))e_wait, METH_VARARGS | METH_KEYWORDS, NULL},
    {"query", s_true, METH_NOARGS, NULL},
    {"synchronize", s_none, METH_NOARGS, NULL},
    {"elapsed_time", e_elapsed_time, METH_O, NULL},
    {"ipc_handle", (PyCFunction)(void (*)(void))e_ipc, METH_VARARGS | METH_KEYWORDS, NULL},
    {"from_ipc_handle", (PyCFunction)(void (*)(void))e_ipc, METH_VARARGS | METH_KEYWORDS | METH_CLASS, NULL},
    {NULL},
};
static PyGetSetDef event_getset[] = {
    {"device", e_device, NULL, NULL, NULL},
    {"event_id", e_event_id, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot event_slots[] = {
    {Py_tp_new, event_new},
    {Py_tp_repr, event_repr},
    {Py_tp_methods, event_methods},
    {Py_tp_getset, event_getset},
    {0, NULL},
};
static PyType_Spec event_spec = {"torch.Event", sizeof(event_obj), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                 event_slots};

int tn_stream_init(PyObject *m) {
    Stream_T = (PyTypeObject *)PyType_FromSpec(&stream_spec);
    Event_T = Stream_T ? (PyTypeObject *)PyType_FromSpec(&event_spec) : NULL;
    if (!Event_T) return -1;
    if (PyModule_AddObjectRef(m, "Stream", (PyObject *)Stream_T) < 0 ||
        PyModule_AddObjectRef(m, "Event", (PyObject *)Event_T) < 0)
        return -1;
    return 0;
}
