/* profiler.c — the Python face of torch.profiler's C side (docs/profiler.md).
 *
 * torch._C._autograd: _supported_activities, kineto_available, _prepare_profiler,
 * _enable_profiler, _disable_profiler (-> _ProfilerResult), _profiler_enabled,
 * _add_metadata_json, _kineto_step, _get_sequence_nr; the _ProfilerResult (events(),
 * trace_start_ns(), save(path): a Chrome trace) and _KinetoEvent types.
 * torch._C._profiler: ProfilerConfig, _ExperimentalConfig, _RecordFunctionFast.
 *
 * The events themselves are recorded by core/profiler.c: the door, the engine and the
 * record_function ops append them; this file only starts and stops a session and shows its
 * events the way upstream's Kineto-backed objects do, as measured on upstream 2.13 (CPU
 * activity). */
#include "python/common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "autograd/autograd.h"
#include "core/profiler.h"
#include "ops/common.h"
#include "python/profiler_pytrace.h"

/* ---- ProfilerConfig / _ExperimentalConfig ---------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *dict;
} bag_obj;

static PyMemberDef bag_members[] = {{"__dictoffset__", T_PYSSIZET, offsetof(bag_obj, dict), READONLY, NULL}, {NULL}};
static PyGetSetDef bag_getset[] = {{"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL}, {NULL}};

static void bag_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    Py_CLEAR(((bag_obj *)o)->dict);
    PyObject_GC_Del(o);
    Py_DECREF(tp);
}
static int bag_traverse(PyObject *o, visitproc visit, void *arg) {
    Py_VISIT(((bag_obj *)o)->dict);
    Py_VISIT(Py_TYPE(o));
    return 0;
}
static int bag_clear(PyObject *o) { Py_CLEAR(((bag_obj *)o)->dict); return 0; }

/* Parse (args, kw) against names[] with defaults (Python values built from defs[]) into the
 * instance's attributes. */
static int bag_fill(PyObject *self, PyObject *args, PyObject *kw, const char *const *names, PyObject *const *defs,
                    int nreq, const char *what) {
    int n = 0;
    while (names[n]) n++;
    Py_ssize_t na = PyTuple_Size(args);
    if (na > n) {
        PyErr_Format(PyExc_TypeError, "%s(): incompatible constructor arguments (%zd positional arguments given)", what, na);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *v = i < na ? PyTuple_GetItem(args, i) : NULL;
        PyObject *k = kw ? PyDict_GetItemString(kw, names[i]) : NULL;
        if (v && k) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' given twice", what, names[i]);
            return -1;
        }
        if (!v) v = k;
        if (!v && i < nreq) {
            PyErr_Format(PyExc_TypeError, "%s(): incompatible constructor arguments: missing '%s'", what, names[i]);
            return -1;
        }
        if (!v) v = defs[i];
        PyObject *val = PyList_Check(v) ? PySequence_List(v) : Py_NewRef(v);   /* defaults not shared */
        int rc = val ? PyObject_SetAttrString(self, names[i], val) : -1;
        Py_XDECREF(val);
        if (rc < 0) return -1;
    }
    if (kw) {
        PyObject *key, *val;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kw, &pos, &key, &val)) {
            bool known = false;
            for (int i = 0; i < n && !known; i++) known = !PyUnicode_CompareWithASCIIString(key, names[i]);
            if (!known) {
                PyErr_Format(PyExc_TypeError, "%s(): incompatible constructor arguments: unexpected keyword '%U'", what, key);
                return -1;
            }
        }
    }
    return 0;
}

static const char *const exp_names[] = {
    "profiler_metrics", "profiler_measure_per_kernel", "verbose", "performance_events", "enable_cuda_sync_events",
    "adjust_profiler_step", "disable_external_correlation", "profile_all_threads", "capture_overload_names",
    "record_python_gc_info", "expose_kineto_event_metadata", "custom_profiler_config", "adjust_timestamps",
    "trace_only", NULL};

static int exp_init(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *empty = PyList_New(0), *es = PyUnicode_FromString("");
    if (!empty || !es) { Py_XDECREF(empty); Py_XDECREF(es); return -1; }
    PyObject *defs[] = {empty, Py_False, Py_False, empty, Py_False, Py_False, Py_False, Py_False, Py_False,
                        Py_False, Py_False, es, Py_False, Py_False};
    int rc = bag_fill(self, args, kw, exp_names, defs, 0, "_ExperimentalConfig");
    Py_DECREF(empty); Py_DECREF(es);
    return rc;
}

static const char *const cfg_names[] = {"state", "report_input_shapes", "profile_memory", "with_stack", "with_flops",
                                        "with_modules", "experimental_config", "trace_id", NULL};

static int cfg_init(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *defs[] = {Py_None, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None};
    return bag_fill(self, args, kw, cfg_names, defs, 7, "ProfilerConfig");
}

static PyType_Slot exp_slots[] = {
    {Py_tp_init, (void *)exp_init}, {Py_tp_new, (void *)PyType_GenericNew}, {Py_tp_dealloc, (void *)bag_dealloc},
    {Py_tp_traverse, (void *)bag_traverse}, {Py_tp_clear, (void *)bag_clear}, {Py_tp_members, bag_members}, {Py_tp_getset, bag_getset}, {0, NULL}};
static PyType_Spec exp_spec = {"torch._C._profiler._ExperimentalConfig", sizeof(bag_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, exp_slots};
static PyType_Slot cfg_slots[] = {
    {Py_tp_init, (void *)cfg_init}, {Py_tp_new, (void *)PyType_GenericNew}, {Py_tp_dealloc, (void *)bag_dealloc},
    {Py_tp_traverse, (void *)bag_traverse}, {Py_tp_clear, (void *)bag_clear}, {Py_tp_members, bag_members}, {Py_tp_getset, bag_getset}, {0, NULL}};
static PyType_Spec cfg_spec = {"torch._C._profiler.ProfilerConfig", sizeof(bag_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, cfg_slots};

static PyObject *ExpConfig_T, *Config_T;

/* ---- _ProfilerResult / _KinetoEvent ------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    tn_prof_session s;
    bool overload_names;   /* _ExperimentalConfig(capture_overload_names=True) */
    bool shapes;           /* record_shapes */
    bool flops;            /* with_flops */
    PyObject *trace_id;    /* str or NULL */
    int64_t *pyp;          /* verbose with_stack: each event's innermost enclosing Python event (-1 none) */
} result_obj;

typedef struct {
    PyObject_HEAD
    result_obj *res;   /* owned */
    size_t i;
} event_obj;

static PyObject *Result_T, *Event_T;

static void result_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    tn_prof_session_free(&((result_obj *)o)->s);
    free(((result_obj *)o)->pyp);
    Py_XDECREF(((result_obj *)o)->trace_id);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
    Py_DECREF(tp);
}

static void event_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    Py_XDECREF((PyObject *)((event_obj *)o)->res);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
    Py_DECREF(tp);
}

static const tn_prof_event *EV(PyObject *self) {
    event_obj *e = (event_obj *)self;
    return &e->res->s.ev[e->i];
}

/* caffe2's TypeMeta names, which upstream's profiler lists as a tensor's type */
static const char *type_meta_name(int d) {
    switch (d) {
    case TN_DTYPE_U8: return "unsigned char";
    case TN_DTYPE_I8: return "signed char";
    case TN_DTYPE_I16: return "short int";
    case TN_DTYPE_I32: return "int";
    case TN_DTYPE_I64: return "long int";
    case TN_DTYPE_F16: return "c10::Half";
    case TN_DTYPE_F32: return "float";
    case TN_DTYPE_F64: return "double";
    case TN_DTYPE_C32: return "c10::complex<c10::Half>";
    case TN_DTYPE_C64: return "c10::complex<float>";
    case TN_DTYPE_C128: return "c10::complex<double>";
    case TN_DTYPE_BOOL: return "bool";
    case TN_DTYPE_BF16: return "c10::BFloat16";
    case TN_DTYPE_QI8: return "c10::qint8";
    case TN_DTYPE_QU8: return "c10::quint8";
    case TN_DTYPE_QI32: return "c10::qint32";
    case TN_DTYPE_U16: return "unsigned short";
    case TN_DTYPE_U32: return "unsigned int";
    case TN_DTYPE_U64: return "unsigned long";
    default: return NULL;
    }
}

static const char *input_type(const tn_prof_input *p, char *buf, size_t n) {
    switch (p->kind) {
    case TN_PI_TENSOR: {
        const char *t = type_meta_name(p->dtype);
        if (t) return t;
        snprintf(buf, n, "c10::%s", tn_dtype_cpp_name((tn_dtype)p->dtype));
        return buf;
    }
    case TN_PI_INT: case TN_PI_FLOAT: case TN_PI_BOOL: return "Scalar";
    case TN_PI_INTLIST: case TN_PI_FLOATLIST: return "ScalarList";
    case TN_PI_TENSORLIST: return "TensorList";
    default: return "";
    }
}


/* concrete value of a scalar input (None for tensors, None, strings) */
static PyObject *input_value(const tn_prof_input *p) {
    switch (p->kind) {
    case TN_PI_INT: return PyLong_FromLongLong(p->v.i);
    case TN_PI_BOOL: return PyBool_FromLong((long)p->v.i);
    case TN_PI_FLOAT: return PyFloat_FromDouble(p->v.f);
    case TN_PI_INTLIST: return tn_int_list(p->ints, p->n);
    case TN_PI_FLOATLIST: {
        PyObject *l = PyList_New(p->n);
        for (int i = 0; l && i < p->n; i++) PyList_SetItem(l, i, PyFloat_FromDouble(p->floats[i]));
        return l;
    }
    default: Py_RETURN_NONE;
    }
}

/* what: 0 shapes, 1 dtypes, 2 concrete inputs, 3 structured shapes, 4 structured strides */
static PyObject *inputs_list(PyObject *self, int what) {
    const tn_prof_event *e = EV(self);
    int n = e->ninputs < 0 || !((event_obj *)self)->res->shapes ? 0 : e->ninputs;
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) {
        const tn_prof_input *p = &e->inputs[i];
        PyObject *x = NULL;
        char buf[64];
        if (what == 1) x = PyUnicode_FromString(input_type(p, buf, sizeof buf));
        else if (what == 2) x = input_value(p);
        else if (p->kind == TN_PI_TENSOR) x = tn_int_list(p->ints + (what == 4 ? p->n : 0), p->n);
        else if (p->kind == TN_PI_TENSORLIST && what >= 3) {
            /* ints: per element ndim, sizes, strides */
            x = PyList_New(0);
            for (int k = 0, at = 0; x && k < p->n; k++) {
                int nd = (int)p->ints[at];
                PyObject *s = tn_int_list(p->ints + at + 1 + (what == 4 ? nd : 0), nd);
                if (!s || PyList_Append(x, s) < 0) Py_CLEAR(x);
                Py_XDECREF(s);
                at += 1 + 2 * nd;
            }
        } else x = PyList_New(0);
        if (!x) { Py_CLEAR(l); break; }
        PyList_SetItem(l, i, x);
    }
    return l;
}

/* with_flops: upstream's estimate (torch/csrc/profiler/util.cpp's computeFlops, measured): 2*M*K*N
 * for aten::mm / addmm, 2*B*M*K*N for aten::bmm / baddbmm, the first input's element count for
 * aten::mul / aten::add, 2 * N * out_h * out_w * weight's C*kh*kw * C_out for aten::conv2d;
 * 0 for everything else. */
static const tn_prof_input *tensor_in(const tn_prof_event *e, int i, int ndim) {
    if (i >= e->ninputs || e->inputs[i].kind != TN_PI_TENSOR || e->inputs[i].n != ndim) return NULL;
    return &e->inputs[i];
}
static int64_t list_at(const tn_prof_event *e, int i, int k, int64_t dflt) {
    if (i >= e->ninputs || e->inputs[i].kind != TN_PI_INTLIST || e->inputs[i].n == 0) return dflt;
    return e->inputs[i].ints[e->inputs[i].n == 1 ? 0 : k];
}
static int64_t event_flops(const tn_prof_event *e) {
    const tn_prof_input *a, *b;
    const char *n = e->name;
    if (!strcmp(n, "aten::mm") || !strcmp(n, "aten::addmm")) {
        int o = n[6] == 'a';
        if (!(a = tensor_in(e, o, 2)) || !(b = tensor_in(e, o + 1, 2))) return 0;
        return 2 * a->ints[0] * a->ints[1] * b->ints[1];
    }
    if (!strcmp(n, "aten::bmm") || !strcmp(n, "aten::baddbmm")) {
        int o = n[6] == 'b' && n[7] == 'a';
        if (!(a = tensor_in(e, o, 3)) || !(b = tensor_in(e, o + 1, 3))) return 0;
        return 2 * a->ints[0] * a->ints[1] * a->ints[2] * b->ints[2];
    }
    if (!strcmp(n, "aten::mul") || !strcmp(n, "aten::add")) {
        if (e->ninputs < 1 || e->inputs[0].kind != TN_PI_TENSOR) return 0;
        int64_t c = 1;
        for (int i = 0; i < e->inputs[0].n; i++) c *= e->inputs[0].ints[i];
        return c;
    }
    if (!strcmp(n, "aten::conv2d")) {
        if (!(a = tensor_in(e, 0, 4)) || !(b = tensor_in(e, 1, 4))) return 0;
        if (e->ninputs > 4 && e->inputs[4].kind != TN_PI_INTLIST) return 0;   /* padding='same' / 'valid' */
        int64_t out[2];
        for (int k = 0; k < 2; k++) {
            int64_t st = list_at(e, 3, k, 1), pad = list_at(e, 4, k, 0), dil = list_at(e, 5, k, 1);
            if (st <= 0) return 0;
            out[k] = (a->ints[2 + k] + 2 * pad - dil * (b->ints[2 + k] - 1) - 1) / st + 1;
        }
        return 2 * a->ints[0] * out[0] * out[1] * b->ints[0] * b->ints[1] * b->ints[2] * b->ints[3];
    }
    return 0;
}
static PyObject *ev_flops(PyObject *s, PyObject *u) {
    return PyLong_FromLongLong(((event_obj *)s)->res->flops && EV(s)->ninputs > 0 ? event_flops(EV(s)) : 0);
}

static PyObject *ev_name(PyObject *s, PyObject *u) { return PyUnicode_FromString(EV(s)->name); }
static PyObject *ev_overload(PyObject *s, PyObject *u) {
    return PyUnicode_FromString(((event_obj *)s)->res->overload_names ? EV(s)->overload : "");
}
static PyObject *ev_pid(PyObject *s, PyObject *u) { return PyLong_FromLong((long)getpid()); }
static PyObject *ev_start(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->start_ns); }
static PyObject *ev_end(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->end_ns); }
static PyObject *ev_dur(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->end_ns - EV(s)->start_ns); }
static PyObject *ev_false(PyObject *s, PyObject *u) { Py_RETURN_FALSE; }
static PyObject *ev_zero(PyObject *s, PyObject *u) { return PyLong_FromLong(0); }
static PyObject *ev_minus1(PyObject *s, PyObject *u) { return PyLong_FromLong(-1); }
static PyObject *ev_empty_dict(PyObject *s, PyObject *u) { return PyDict_New(); }
static PyObject *ev_empty_str(PyObject *s, PyObject *u) { return PyUnicode_FromString(""); }
static PyObject *ev_shapes(PyObject *s, PyObject *u) { return inputs_list(s, 0); }
static PyObject *ev_dtypes(PyObject *s, PyObject *u) { return inputs_list(s, 1); }
static PyObject *ev_concrete(PyObject *s, PyObject *u) { return inputs_list(s, 2); }
static PyObject *ev_sshapes(PyObject *s, PyObject *u) { return inputs_list(s, 3); }
static PyObject *ev_sstrides(PyObject *s, PyObject *u) { return inputs_list(s, 4); }
static PyObject *ev_device_type(PyObject *s, PyObject *u) {
    PyObject *m = tn_py_submodule("_autograd");
    PyObject *dt = m ? PyObject_GetAttrString(m, "DeviceType") : NULL;
    PyObject *cpu = dt ? PyObject_GetAttrString(dt, "CPU") : NULL;
    Py_XDECREF(m); Py_XDECREF(dt);
    return cpu;
}
static PyObject *ev_tid(PyObject *s, PyObject *u) { return PyLong_FromUnsignedLongLong(EV(s)->tid); }
static PyObject *ev_end_tid(PyObject *s, PyObject *u) { return PyLong_FromUnsignedLongLong(EV(s)->end_tid); }
static PyObject *ev_fwd_tid(PyObject *s, PyObject *u) { return PyLong_FromUnsignedLongLong(EV(s)->fwd_tid); }
static PyObject *ev_corr(PyObject *s, PyObject *u) { return PyLong_FromUnsignedLongLong(EV(s)->corr); }
static PyObject *ev_scope(PyObject *s, PyObject *u) { return PyLong_FromLong(EV(s)->scope); }
static PyObject *ev_seq(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->seq); }
static PyObject *ev_user(PyObject *s, PyObject *u) { return PyBool_FromLong(EV(s)->kind == TN_PROF_KIND_USER); }
static PyObject *ev_py(PyObject *s, PyObject *u) { return PyBool_FromLong(EV(s)->kind == TN_PROF_KIND_PY); }
static const char *activity(int k) {
    return k == TN_PROF_KIND_USER ? "user_annotation" : k == TN_PROF_KIND_MEMORY ? "cpu_instant_event" : k == TN_PROF_KIND_PY ? "python_function" : "cpu_op";
}
static PyObject *ev_activity(PyObject *s, PyObject *u) { return PyUnicode_FromString(activity(EV(s)->kind)); }
static PyObject *ev_py_id(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->py_id); }
static PyObject *ev_py_parent(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->py_parent); }
static PyObject *ev_py_module(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->py_module); }
/* verbose with_stack: the names of the enclosing Python events, innermost first */
static PyObject *ev_stack(PyObject *s, PyObject *u) {
    event_obj *e = (event_obj *)s;
    const result_obj *r = e->res;
    PyObject *l = PyList_New(0);
    for (int64_t i = r->pyp ? r->pyp[e->i] : -1; l && i >= 0; i = r->pyp[i]) {
        PyObject *n = PyUnicode_FromString(r->s.ev[i].name);
        if (!n || PyList_Append(l, n) < 0) Py_CLEAR(l);
        Py_XDECREF(n);
    }
    return l;
}
static PyObject *ev_nbytes(PyObject *s, PyObject *u) { return PyLong_FromLongLong(EV(s)->nbytes); }
static PyObject *ev_repr(PyObject *s) { return PyUnicode_FromFormat("<torch._C._autograd._KinetoEvent %s>", EV(s)->name); }

static PyMethodDef event_methods[] = {
    {"name", ev_name, METH_NOARGS, NULL},
    {"overload_name", ev_overload, METH_NOARGS, NULL},
    {"device_index", ev_pid, METH_NOARGS, NULL},
    {"device_resource_id", ev_pid, METH_NOARGS, NULL},
    {"start_ns", ev_start, METH_NOARGS, NULL},
    {"end_ns", ev_end, METH_NOARGS, NULL},
    {"duration_ns", ev_dur, METH_NOARGS, NULL},
    {"is_async", ev_false, METH_NOARGS, NULL},
    {"linked_correlation_id", ev_zero, METH_NOARGS, NULL},
    {"external_id", ev_corr, METH_NOARGS, NULL},
    {"shapes", ev_shapes, METH_NOARGS, NULL},
    {"dtypes", ev_dtypes, METH_NOARGS, NULL},
    {"concrete_inputs", ev_concrete, METH_NOARGS, NULL},
    {"kwinputs", ev_empty_dict, METH_NOARGS, NULL},
    {"device_type", ev_device_type, METH_NOARGS, NULL},
    {"start_thread_id", ev_tid, METH_NOARGS, NULL},
    {"end_thread_id", ev_end_tid, METH_NOARGS, NULL},
    {"correlation_id", ev_corr, METH_NOARGS, NULL},
    {"fwd_thread_id", ev_fwd_tid, METH_NOARGS, NULL},
    {"stack", ev_stack, METH_NOARGS, NULL},
    {"scope", ev_scope, METH_NOARGS, NULL},
    {"sequence_nr", ev_seq, METH_NOARGS, NULL},
    {"flops", ev_flops, METH_NOARGS, NULL},
    {"nbytes", ev_nbytes, METH_NOARGS, NULL},
    {"cuda_elapsed_us", ev_minus1, METH_NOARGS, NULL},
    {"privateuse1_elapsed_us", ev_minus1, METH_NOARGS, NULL},
    {"is_user_annotation", ev_user, METH_NOARGS, NULL},
    {"is_python_function", ev_py, METH_NOARGS, NULL},
    {"is_hidden_event", ev_false, METH_NOARGS, NULL},
    {"metadata_json", ev_empty_str, METH_NOARGS, NULL},
    {"activity_type", ev_activity, METH_NOARGS, NULL},
    {"extra_meta", ev_empty_dict, METH_NOARGS, NULL},
    {"flow_id", ev_zero, METH_NOARGS, NULL},
    {"flow_type", ev_zero, METH_NOARGS, NULL},
    {"flow_start", ev_false, METH_NOARGS, NULL},
    {"structured_input_shapes", ev_sshapes, METH_NOARGS, NULL},
    {"structured_input_strides", ev_sstrides, METH_NOARGS, NULL},
    {"python_id", ev_py_id, METH_NOARGS, NULL},
    {"python_parent_id", ev_py_parent, METH_NOARGS, NULL},
    {"python_module_id", ev_py_module, METH_NOARGS, NULL},
    {NULL},
};

static PyObject *no_init(PyTypeObject *t, PyObject *a, PyObject *k) {
    PyErr_Format(PyExc_TypeError, "%s: No constructor defined!", tn_py_type_name((PyObject *)t));
    return NULL;
}

static PyType_Slot event_slots[] = {
    {Py_tp_dealloc, (void *)event_dealloc}, {Py_tp_methods, event_methods}, {Py_tp_repr, (void *)ev_repr},
    {Py_tp_new, (void *)no_init}, {0, NULL}};
static PyType_Spec event_spec = {"torch._C._autograd._KinetoEvent", sizeof(event_obj), 0, Py_TPFLAGS_DEFAULT, event_slots};

static PyObject *res_events(PyObject *self, PyObject *u) {
    result_obj *r = (result_obj *)self;
    PyObject *l = PyList_New((Py_ssize_t)r->s.n);
    for (size_t i = 0; l && i < r->s.n; i++) {
        PyTypeObject *tp = (PyTypeObject *)Event_T;
        event_obj *e = (event_obj *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
        if (!e) { Py_CLEAR(l); break; }
        e->res = (result_obj *)Py_NewRef(self);
        e->i = i;
        PyList_SetItem(l, (Py_ssize_t)i, (PyObject *)e);
    }
    return l;
}

static PyObject *res_start(PyObject *self, PyObject *u) { return PyLong_FromLongLong(((result_obj *)self)->s.start_ns); }

static PyObject *res_tree(PyObject *self, PyObject *u) {
    return tn_not_implemented("torch._C._autograd._ProfilerResult.experimental_event_tree");
}

/* ---- save(path): a Chrome trace (upstream's Kineto layout, CPU events) ---- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void json_ints(FILE *f, const int64_t *v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%lld", i ? ", " : "", (long long)v[i]);
    fputc(']', f);
}

static void json_inputs(FILE *f, const tn_prof_event *e, int what) {
    fputc('[', f);
    for (int i = 0; i < e->ninputs; i++) {
        const tn_prof_input *p = &e->inputs[i];
        if (i) fputs(", ", f);
        char buf[64];
        if (what == 1) { json_str(f, input_type(p, buf, sizeof buf)); continue; }
        if (what == 2) {   /* Concrete Inputs: scalars as text, else "" */
            if (p->kind == TN_PI_INT) fprintf(f, "\"%lld\"", (long long)p->v.i);
            else if (p->kind == TN_PI_BOOL) fputs(p->v.i ? "\"True\"" : "\"False\"", f);
            else if (p->kind == TN_PI_FLOAT) fprintf(f, "\"%.17g\"", p->v.f);
            else fputs("\"\"", f);
            continue;
        }
        if (p->kind == TN_PI_TENSOR) json_ints(f, p->ints + (what == 4 ? p->n : 0), p->n);
        else if (p->kind == TN_PI_TENSORLIST) {
            fputc('[', f);
            for (int k = 0, at = 0; k < p->n; k++) {
                int nd = (int)p->ints[at];
                if (k) fputs(", ", f);
                json_ints(f, p->ints + at + 1 + (what == 4 ? nd : 0), nd);
                at += 1 + 2 * nd;
            }
            fputc(']', f);
        } else fputs("[]", f);
    }
    fputc(']', f);
}

static PyObject *res_save(PyObject *self, PyObject *arg) {
    result_obj *r = (result_obj *)self;
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(arg, &b)) return NULL;
    FILE *f = fopen(PyBytes_AsString(b), "w");
    if (!f) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, arg);
        Py_DECREF(b);
        return NULL;
    }
    long pid = (long)getpid();
    int64_t base = r->s.start_ns / 1000000000 * 1000000000;
    int64_t end = r->s.start_ns;
    for (size_t i = 0; i < r->s.n; i++) if (r->s.ev[i].end_ns > end) end = r->s.ev[i].end_ns;
    fprintf(f, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n");
    const char *tid = r->trace_id ? PyUnicode_AsUTF8AndSize(r->trace_id, NULL) : NULL;
    if (tid) { fputs("  \"trace_id\": ", f); json_str(f, tid); fputs(",\n", f); }
    PyErr_Clear();
    if (r->shapes) fputs("  \"record_shapes\": 1,\n", f);
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) == 0) { fputs("  \"host_name\": ", f); json_str(f, host); fputs(",\n", f); }
    if (r->s.metadata) {   /* _add_metadata_json lines: key \t value */
        for (char *line = r->s.metadata; *line;) {
            char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
            if (!tab || !nl) break;
            *tab = 0, *nl = 0;
            fputs("  ", f);
            json_str(f, line);
            fprintf(f, ": %s,\n", tab + 1);
            *tab = '\t', *nl = '\n';
            line = nl + 1;
        }
    }
    fprintf(f, "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %lld,\n  \"traceEvents\": [\n", (long long)base);
    fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_name\", \"ts\": %.3f, \"pid\": %ld, \"tid\": 0, \"args\": {\"name\": \"python\"}},\n",
            (double)(r->s.start_ns - base) / 1e3, pid);
    fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_labels\", \"ts\": %.3f, \"pid\": %ld, \"tid\": 0, \"args\": {\"labels\": \"CPU\"}},\n",
            (double)(r->s.start_ns - base) / 1e3, pid);
    fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %.3f, \"pid\": %ld, \"tid\": 0, \"args\": {\"sort_index\": %ld}},\n",
            (double)(r->s.start_ns - base) / 1e3, pid, pid);
    /* Kineto's thread rows: "thread <tid> (<name>)" and its sort index, once per OS thread with
     * events (not for 0, the threads the Python tracer saw only at the start) */
    uint64_t *seen = malloc((r->s.n ? r->s.n : 1) * sizeof *seen);
    size_t nseen = 0;
    for (size_t i = 0; seen && i < r->s.n; i++) {
        if (r->s.ev[i].kind == TN_PROF_KIND_MEMORY) continue;
        uint64_t t = r->s.ev[i].tid;
        size_t k = 0;
        while (k < nseen && seen[k] != t) k++;
        if (k < nseen) continue;
        seen[nseen++] = t;
        char name[16];
        long long os = (long long)tn_prof_os_tid_of(t, name);
        if (!os) continue;
        fprintf(f, "  {\"ph\": \"M\", \"name\": \"thread_name\", \"ts\": %.3f, \"pid\": %ld, \"tid\": %lld, \"args\": {\"name\": ",
                (double)(r->s.start_ns - base) / 1e3, pid, os);
        char label[64];
        snprintf(label, sizeof label, "thread %lld (%s)", os, name);
        json_str(f, label);
        fprintf(f, "}},\n  {\"ph\": \"M\", \"name\": \"thread_sort_index\", \"ts\": %.3f, \"pid\": %ld, \"tid\": %lld, \"args\": {\"sort_index\": %lld}},\n",
                (double)(r->s.start_ns - base) / 1e3, pid, os, os);
    }
    free(seen);
    for (size_t i = 0; i < r->s.n; i++) {
        const tn_prof_event *e = &r->s.ev[i];
        if (e->kind == TN_PROF_KIND_MEMORY) {   /* an instant event, as Kineto writes [memory] */
            fprintf(f, "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": %ld, "
                       "\"tid\": %ld, \"ts\": %.3f, \"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Bytes\": %lld, \"Ev Idx\": %zu}},\n",
                    pid, pid, (double)(e->start_ns - base) / 1e3, (long long)e->nbytes, i);
            continue;
        }
        fprintf(f, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": ", activity(e->kind));
        json_str(f, e->name);
        if (e->kind == TN_PROF_KIND_PY) {   /* the Python tracer's ids, as Kineto writes them */
            fprintf(f, ", \"pid\": %ld, \"tid\": %lld, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"Python parent id\": ", pid, (long long)tn_prof_os_tid_of(e->tid, NULL),
                    (double)(e->start_ns - base) / 1e3, (double)(e->end_ns - e->start_ns) / 1e3);
            if (e->py_parent > 0) fprintf(f, "%lld", (long long)e->py_parent);
            else fputs("null", f);
            fprintf(f, ", \"Python id\": %lld", (long long)e->py_id);
            if (e->py_module >= 0) fprintf(f, ", \"Python module id\": %lld", (long long)e->py_module);
            fprintf(f, ", \"Ev Idx\": %zu}},\n", i);
            continue;
        }
        fprintf(f, ", \"pid\": %ld, \"tid\": %lld, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"External id\": %llu", pid, (long long)tn_prof_os_tid_of(e->tid, NULL),
                (double)(e->start_ns - base) / 1e3, (double)(e->end_ns - e->start_ns) / 1e3, (unsigned long long)e->corr);
        if (e->kind != TN_PROF_KIND_USER) {
            if (e->seq >= 0) fprintf(f, ", \"Sequence number\": %lld", (long long)e->seq);
            if (e->seq >= 0 || e->fwd_tid) fprintf(f, ", \"Fwd thread id\": %llu", (unsigned long long)e->fwd_tid);
        }
        fputs(", \"Record function id\": 0", f);
        if (e->ninputs > 0 && r->shapes) {
            fputs(", \"Concrete Inputs\": ", f); json_inputs(f, e, 2);
            fputs(", \"Input type\": ", f); json_inputs(f, e, 1);
            fputs(", \"Input Strides\": ", f); json_inputs(f, e, 4);
            fputs(", \"Input Dims\": ", f); json_inputs(f, e, 3);
        }
        fprintf(f, ", \"Ev Idx\": %zu}},\n", i);
    }
    fprintf(f, "  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", "
               "\"tid\": \"PyTorch Profiler\", \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"Op count\": 0}},\n",
            (double)(r->s.start_ns - base) / 1e3, (double)(end - r->s.start_ns) / 1e3);
    fprintf(f, "  {\"ph\": \"M\", \"name\": \"process_sort_index\", \"ts\": %.3f, \"pid\": \"Spans\", \"tid\": 0, "
               "\"args\": {\"sort_index\": 536870912}}\n  ],\n", (double)(r->s.start_ns - base) / 1e3);
    fputs("  \"traceName\": ", f);
    json_str(f, PyBytes_AsString(b));
    fputs("\n}\n", f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, arg);
        Py_DECREF(b);
        return NULL;
    }
    Py_DECREF(b);
    Py_RETURN_NONE;
}

static PyMethodDef result_methods[] = {
    {"events", res_events, METH_NOARGS, NULL},
    {"trace_start_ns", res_start, METH_NOARGS, NULL},
    {"experimental_event_tree", res_tree, METH_NOARGS, NULL},
    {"save", res_save, METH_O, NULL},
    {NULL},
};
static PyType_Slot result_slots[] = {
    {Py_tp_dealloc, (void *)result_dealloc}, {Py_tp_methods, result_methods}, {Py_tp_new, (void *)no_init}, {0, NULL}};
static PyType_Spec result_spec = {"torch._C._autograd._ProfilerResult", sizeof(result_obj), 0, Py_TPFLAGS_DEFAULT, result_slots};

/* ---- functions ---------------------------------------------------------------------------------- */

static PyObject *profiler_attr(const char *name) {
    PyObject *m = tn_py_submodule("_profiler");
    PyObject *a = m ? PyObject_GetAttrString(m, name) : NULL;
    Py_XDECREF(m);
    return a;
}

static PyObject *activity_cpu(void) {
    PyObject *pa = profiler_attr("ProfilerActivity");
    PyObject *cpu = pa ? PyObject_GetAttrString(pa, "CPU") : NULL;
    Py_XDECREF(pa);
    return cpu;
}

static PyObject *supported_activities(PyObject *m, PyObject *u) {
    PyObject *cpu = activity_cpu();
    PyObject *s = cpu ? PySet_New(NULL) : NULL;
    if (s && PySet_Add(s, cpu) < 0) Py_CLEAR(s);
    Py_XDECREF(cpu);
    return s;
}

static PyObject *kineto_available(PyObject *m, PyObject *u) { Py_RETURN_TRUE; }
static PyObject *profiler_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(tn_prof_on); }
static PyObject *kineto_step(PyObject *m, PyObject *u) { Py_RETURN_NONE; }
/* Kineto's "device collection stopped early": never, with CPU activity only */
static PyObject *is_kineto_stopped(PyObject *m, PyObject *u) { Py_RETURN_FALSE; }
static PyObject *get_sequence_nr(PyObject *m, PyObject *u) { return PyLong_FromUnsignedLongLong(tn_peek_sequence_nr()); }

/* config and activities as pybind checks them: a ProfilerConfig and a set of ProfilerActivity */
static int check_config(PyObject *config, PyObject *activities, const char *fn) {
    PyObject *pa = profiler_attr("ProfilerActivity");
    if (!pa) return -1;
    int ok = PyObject_TypeCheck(config, (PyTypeObject *)Config_T) && PyAnySet_Check(activities);
    if (ok) {
        PyObject *it = PyObject_GetIter(activities), *a;
        while (it && (a = PyIter_Next(it))) {
            ok &= PyObject_IsInstance(a, pa) == 1;
            Py_DECREF(a);
        }
        Py_XDECREF(it);
    }
    Py_DECREF(pa);
    if (PyErr_Occurred()) return -1;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s(): incompatible function arguments. The following argument types are supported:\n"
                     "    1. (config: torch._C._profiler.ProfilerConfig, activities: set[torch._C._profiler.ProfilerActivity]) -> None",
                     fn);
        return -1;
    }
    return 0;
}

static PyObject *prepare_profiler(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"config", "activities", "activity_filter", NULL};
    PyObject *config, *acts, *filter = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_prepare_profiler", kws, &config, &acts, &filter)) return NULL;
    if (check_config(config, acts, "_prepare_profiler") < 0) return NULL;
    Py_RETURN_NONE;
}

static bool config_overload_names, config_verbose;
static PyObject *trace_id;   /* the ProfilerConfig's trace_id (str) of the session on, or NULL */

static int attr_true(PyObject *o, const char *name) {
    PyObject *v = o && o != Py_None ? PyObject_GetAttrString(o, name) : NULL;
    if (!v) { PyErr_Clear(); return 0; }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (t < 0) PyErr_Clear();
    return t > 0;
}

static PyObject *enable_profiler(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"config", "activities", "scopes", NULL};
    PyObject *config, *acts, *scopes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_enable_profiler", kws, &config, &acts, &scopes)) return NULL;
    if (check_config(config, acts, "_enable_profiler") < 0) return NULL;
    /* the state: KINETO (and its GPU fallbacks) or CPU collect CPU events; others we lack */
    PyObject *state = PyObject_GetAttrString(config, "state"), *sname = state ? PyObject_GetAttrString(state, "name") : NULL;
    Py_XDECREF(state);
    if (!sname) { PyErr_Clear(); sname = PyUnicode_FromString("KINETO"); }
    if (!sname) return NULL;
    if (PyUnicode_CompareWithASCIIString(sname, "KINETO") && PyUnicode_CompareWithASCIIString(sname, "CPU") &&
        PyUnicode_CompareWithASCIIString(sname, "KINETO_GPU_FALLBACK")) {
        char what[160];
        snprintf(what, sizeof what, "torch._C._autograd._enable_profiler with ProfilerState.%s", PyUnicode_AsUTF8AndSize(sname, NULL));
        Py_DECREF(sname);
        return tn_not_implemented(what);
    }
    Py_DECREF(sname);
    /* a session already on (a nested profile): upstream starts over without an error, the events
     * so far are dropped (the outer profile's disable then finds no session) */
    if (tn_prof_on) {
        tn_prof_session old;
        if (tn_prof_stop(&old) == 0) tn_prof_session_free(&old);
    }
    PyObject *exp = PyObject_GetAttrString(config, "experimental_config");
    PyErr_Clear();
    config_overload_names = attr_true(exp, "capture_overload_names");
    config_verbose = attr_true(exp, "verbose");
    bool all_threads = attr_true(exp, "profile_all_threads");
    Py_XDECREF(exp);
    PyObject *tid = PyObject_GetAttrString(config, "trace_id");
    if (!tid) PyErr_Clear();
    Py_XSETREF(trace_id, tid && PyUnicode_Check(tid) ? Py_NewRef(tid) : NULL);
    Py_XDECREF(tid);
    tn_pytrace_stop();
    tn_prof_start(attr_true(config, "report_input_shapes"), attr_true(config, "with_flops"), attr_true(config, "profile_memory"), all_threads);
    if (attr_true(config, "with_stack") && tn_pytrace_start() < 0) {
        tn_prof_session old;
        if (tn_prof_stop(&old) == 0) tn_prof_session_free(&old);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* (sequence number, event) of the forward operators, sorted: a backward node's lookup */
typedef struct { int64_t seq; size_t i; } seq_at;
static int seq_cmp(const void *a, const void *b) {
    const seq_at *x = a, *y = b;
    return x->seq != y->seq ? (x->seq < y->seq ? -1 : 1) : (x->i > y->i) - (x->i < y->i);
}

/* Upstream's KinetoEvent stack (verbose): the Python events enclosing an event on its thread;
 * a backward node (RecordScope BACKWARD_FUNCTION) and what runs inside it take the stack of the
 * first forward operator with the node's sequence number (none: an AccumulateGrad). */
static int stack_parents(result_obj *r) {
    size_t n = r->s.n, nfwd = 0, ntid = 0;
    const tn_prof_event *ev = r->s.ev;
    int64_t *pyp = malloc((n ? n : 1) * sizeof *pyp), *open = malloc((n ? n : 1) * sizeof *open);
    seq_at *fwd = malloc((n ? n : 1) * sizeof *fwd);
    uint64_t *tids = malloc((n ? n : 1) * sizeof *tids);
    if (!pyp || !open || !fwd || !tids) { free(pyp); free(open); free(fwd); free(tids); return -1; }
    for (size_t i = 0; i < n; i++) {
        pyp[i] = -1;
        if (ev[i].kind == TN_PROF_KIND_OP && ev[i].scope == TN_PROF_SCOPE_FUNCTION && ev[i].seq >= 0)
            fwd[nfwd++] = (seq_at){ev[i].seq, i};
        size_t k = 0;
        while (k < ntid && tids[k] != ev[i].tid) k++;
        if (k == ntid) tids[ntid++] = ev[i].tid;
    }
    qsort(fwd, nfwd, sizeof *fwd, seq_cmp);
    for (size_t t = 0; t < ntid; t++) {   /* one sweep per thread; its events are in start order */
        size_t nopen = 0;
        int64_t node = -1;   /* the backward node being run */
        for (size_t i = 0; i < n; i++) {
            const tn_prof_event *e = &ev[i];
            if (e->tid != tids[t] || e->kind == TN_PROF_KIND_MEMORY) continue;
            while (nopen && ev[open[nopen - 1]].end_ns < e->start_ns) nopen--;
            if (node >= 0 && ev[node].end_ns < e->start_ns) node = -1;
            if (node >= 0) pyp[i] = pyp[node];
            else if (e->scope == TN_PROF_SCOPE_BACKWARD_FUNCTION && e->kind == TN_PROF_KIND_OP) {
                node = (int64_t)i;
                size_t lo = 0, hi = nfwd;   /* the first forward op with this sequence number */
                while (lo < hi) { size_t mid = (lo + hi) / 2; if (fwd[mid].seq < e->seq) lo = mid + 1; else hi = mid; }
                if (e->seq >= 0 && lo < nfwd && fwd[lo].seq == e->seq && fwd[lo].i < i) pyp[i] = pyp[fwd[lo].i];
            } else pyp[i] = nopen ? open[nopen - 1] : -1;
            if (e->kind == TN_PROF_KIND_PY) open[nopen++] = (int64_t)i;
        }
    }
    free(open); free(fwd); free(tids);
    r->pyp = pyp;
    return 0;
}

static PyObject *disable_profiler(PyObject *m, PyObject *u) {
    PyTypeObject *tp = (PyTypeObject *)Result_T;
    result_obj *r = (result_obj *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!r) return NULL;
    r->overload_names = config_overload_names;
    r->shapes = tn_prof_record_shapes();
    r->flops = tn_prof_with_flops();
    r->trace_id = trace_id;   /* the reference moves to the result */
    trace_id = NULL;
    tn_pytrace_stop();
    if (tn_prof_stop(&r->s) < 0) {
        /* upstream warns on stderr (not a Python warning) and returns an empty result */
        fprintf(stderr, "[W profiler_kineto.cpp] disableProfiler called but no active profiling session found. "
                        "This can happen if profiling was cancelled during warmup.\n");
        r->s.start_ns = tn_prof_now_ns();
        r->shapes = false, r->flops = false;
    } else if (config_verbose && stack_parents(r) < 0) {
        Py_DECREF(r);
        return PyErr_NoMemory();
    }
    return (PyObject *)r;
}

static PyObject *add_metadata_json(PyObject *m, PyObject *args) {
    const char *key, *value;
    if (!PyArg_ParseTuple(args, "ss:_add_metadata_json", &key, &value)) return NULL;
    if (tn_prof_on && tn_prof_add_metadata(key, value) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef autograd_methods[] = {
    {"_supported_activities", supported_activities, METH_NOARGS, NULL},
    {"kineto_available", kineto_available, METH_NOARGS, NULL},
    {"_prepare_profiler", (PyCFunction)(void (*)(void))prepare_profiler, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_enable_profiler", (PyCFunction)(void (*)(void))enable_profiler, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_disable_profiler", disable_profiler, METH_NOARGS, NULL},
    {"_profiler_enabled", profiler_enabled, METH_NOARGS, NULL},
    {"_add_metadata_json", add_metadata_json, METH_VARARGS, NULL},
    {"_kineto_step", kineto_step, METH_NOARGS, NULL},
    {"_is_kineto_stopped", is_kineto_stopped, METH_NOARGS, NULL},
    {"_get_sequence_nr", get_sequence_nr, METH_NOARGS, NULL},
    {NULL},
};

/* ---- _RecordFunctionFast(name, input_values=None, keyword_values=None): a scope for `with` ---- */

typedef struct {
    PyObject_HEAD
    PyObject *name;
    int64_t event;
} fast_obj;

static int fast_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"name", "input_values", "keyword_values", NULL};
    PyObject *name, *iv = NULL, *kv = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:_RecordFunctionFast", kws, &name, &iv, &kv)) return -1;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "Expected name to be a str");
        return -1;
    }
    if (iv && iv != Py_None && !PyList_Check(iv) && !PyTuple_Check(iv)) {
        PyErr_SetString(PyExc_TypeError, "Input values must be a list or tuple");
        return -1;
    }
    if (kv && kv != Py_None && !PyDict_Check(kv)) {
        PyErr_SetString(PyExc_TypeError, "Keyword values must be a dict");
        return -1;
    }
    fast_obj *f = (fast_obj *)self;
    Py_XSETREF(f->name, Py_NewRef(name));
    f->event = -1;
    return 0;
}
static void fast_dealloc(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    Py_XDECREF(((fast_obj *)o)->name);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
    Py_DECREF(tp);
}
static PyObject *fast_enter(PyObject *self, PyObject *u) {
    fast_obj *f = (fast_obj *)self;
    if (tn_prof_on && f->name) {
        const char *nm = PyUnicode_AsUTF8AndSize(f->name, NULL);
        if (!nm) return NULL;
        f->event = tn_prof_begin(nm, "", TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_USER, -1, 0);
    }
    Py_RETURN_NONE;
}
static PyObject *fast_exit(PyObject *self, PyObject *args) {
    fast_obj *f = (fast_obj *)self;
    tn_prof_end(f->event);
    f->event = -1;
    Py_RETURN_NONE;
}
static PyMethodDef fast_methods[] = {
    {"__enter__", fast_enter, METH_NOARGS, NULL},
    {"__exit__", fast_exit, METH_VARARGS, NULL},
    {NULL},
};
static PyType_Slot fast_slots[] = {
    {Py_tp_init, (void *)fast_init}, {Py_tp_new, (void *)PyType_GenericNew}, {Py_tp_dealloc, (void *)fast_dealloc},
    {Py_tp_methods, fast_methods}, {0, NULL}};
static PyType_Spec fast_spec = {"torch._C._profiler._RecordFunctionFast", sizeof(fast_obj), 0, Py_TPFLAGS_DEFAULT, fast_slots};

/* torch._C._demangle(name): upstream's c10::demangle, which gives back a name that is not a
 * mangled C++ symbol as it is (the profiler passes every event name through it). Mangled symbols
 * ("_Z...") would need a C++ demangler: refused by name. */
static PyObject *demangle(PyObject *m, PyObject *arg) {
    if (!PyUnicode_Check(arg)) return PyErr_Format(PyExc_TypeError, "_demangle(): incompatible function arguments (expected str)");
    const char *c = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!c) return NULL;
    if (!strncmp(c, "_Z", 2)) return tn_not_implemented("torch._C._demangle of a mangled C++ symbol");
    return Py_NewRef(arg);
}
static PyMethodDef c_methods[] = {{"_demangle", demangle, METH_O, NULL}, {NULL}};

static int add_type(PyObject *mod, const char *name, PyType_Spec *spec, PyObject **out) {
    *out = PyType_FromSpec(spec);
    if (!*out) return -1;
    return PyObject_SetAttrString(mod, name, *out);
}

int tn_profiler_init(PyObject *m) {
    if (PyModule_AddFunctions(m, c_methods) < 0) return -1;
    PyObject *ag = tn_py_submodule("_autograd"), *pr = tn_py_submodule("_profiler");
    int rc = ag && pr ? 0 : -1;
    if (!rc) rc = PyModule_AddFunctions(ag, autograd_methods);
    if (!rc) rc = add_type(ag, "_ProfilerResult", &result_spec, &Result_T);
    if (!rc) rc = add_type(ag, "_KinetoEvent", &event_spec, &Event_T);
    if (!rc) rc = add_type(pr, "_ExperimentalConfig", &exp_spec, &ExpConfig_T);
    if (!rc) rc = add_type(pr, "ProfilerConfig", &cfg_spec, &Config_T);
    PyObject *fast = NULL;
    if (!rc) rc = add_type(pr, "_RecordFunctionFast", &fast_spec, &fast);
    Py_XDECREF(fast);
    Py_XDECREF(ag);
    Py_XDECREF(pr);
    return rc;
}
