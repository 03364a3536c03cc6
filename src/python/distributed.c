/* distributed.c — torch._C's face of torch.distributed: `_c10d_init`, the `_Dist*Error`
 * classes, `_has_distributed`, and the modules torch._C._distributed (placements) and
 * torch._C._distributed_c10d.
 *
 * `hasattr(torch._C, "_c10d_init")` switches upstream's whole distributed package on, so the
 * function exists and returns True. `_c10d_init()` (called by torch.distributed at import, and
 * by torch/__init__.py before it registers the c10d Meta kernels) fills both modules once:
 * first the real pieces (enums, ReduceOp, debug level, the group registry, constants; the
 * stores and process groups come from dist_store.c / dist_pg.c), then every other name upstream
 * defines (surface_dist.h, generated from upstream by tools/dist_surface.py) as a class that
 * refuses construction by name, with methods, properties and functions that refuse by name. */
#include "python/common.h"
#include "python/distributed.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

PyObject *tn_dist_exc_error, *tn_dist_exc_backend, *tn_dist_exc_network, *tn_dist_exc_store,
    *tn_dist_exc_queue_empty;

static PyObject *c10d_mod, *placements_mod;

/* ---------------------------------------------------------------------------------------------
 * refusing classes and attributes */

#define TN_DCLASS(owner, name, base, meta) {0, owner, name, base, meta, 0},
#define TN_DATTR(owner, cls, name, kind) {1, owner, cls, name, NULL, A_##kind},
#define TN_DFUNC(owner, name) {2, owner, name, NULL, NULL, 0},
enum { A_METHOD = 1, A_PROPERTY, A_STATIC, A_CLASS };
typedef struct {
    int what;   /* 0 class, 1 attribute of a class, 2 function */
    const char *owner, *name, *sub, *meta;
    int kind;
} dist_entry;
static const dist_entry dist_entries[] = {
#include "python/surface_dist.h"
};
#undef TN_DCLASS
#undef TN_DATTR
#undef TN_DFUNC
#define N_DIST ((int)(sizeof dist_entries / sizeof dist_entries[0]))
static PyMethodDef dist_defs[N_DIST];

static void entry_name(int i, char *buf, size_t n) {
    const dist_entry *e = &dist_entries[i];
    if (e->what == 1) snprintf(buf, n, "torch._C.%s.%s.%s", e->owner, e->name, e->sub);
    else snprintf(buf, n, "torch._C.%s.%s", e->owner, e->name);
}

static PyObject *refuse_entry(PyObject *self, PyObject *args, PyObject *kw) {
    void *p = PyCapsule_GetPointer(self, NULL);
    long i = p ? (long)(intptr_t)p - 1 : -1;
    char buf[256];
    if (i < 0 || i >= N_DIST) {
        PyErr_Clear();
        return tn_not_implemented("torch._C._distributed_c10d function");
    }
    entry_name((int)i, buf, sizeof buf);
    return tn_not_implemented(buf);
}

/* Our refusing classes: constructing exactly one of them raises NotImplementedError naming it;
 * a Python subclass (upstream subclasses the placements and Backend) can be constructed, and
 * what it inherits from us still refuses when called. */
static PyObject *refusing_set;
static PyObject *dist_refuse_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    int ours = PySet_Contains(refusing_set, (PyObject *)tp);
    if (ours < 0) return NULL;
    if (!ours) {
        /* allocate through the first base outside our refusing set */
        return PyType_GenericAlloc(tp, 0);
    }
    PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
    PyObject *qn = mod ? PyObject_GetAttrString((PyObject *)tp, "__qualname__") : NULL;
    if (qn) PyErr_Format(PyExc_NotImplementedError, "torchnative: %U.%U is not implemented", mod, qn);
    Py_XDECREF(mod);
    Py_XDECREF(qn);
    return NULL;
}
static int dist_accept_init(PyObject *self, PyObject *args, PyObject *kw) { return 0; }
static PyType_Slot refusing_slots[] = {{Py_tp_new, dist_refuse_new}, {Py_tp_init, dist_accept_init}, {0, NULL}};

/* metaclasses: pybind11_type for bound classes (shared with surface.c's idea), upstream's
 * torch._opaque_base.OpaqueBaseMeta for the opaque reference types (ProcessGroup, placements) */
static PyObject *bound_meta, *opaque_meta;

int tn_dist_set_meta(PyObject *cls, int opaque) {
    PyObject *meta = opaque ? opaque_meta : bound_meta;
    if (!meta) return 0;
    PyObject *old = (PyObject *)Py_TYPE(cls);
    Py_INCREF(meta);
    Py_SET_TYPE(cls, (PyTypeObject *)meta);
    if (PyType_GetFlags((PyTypeObject *)old) & Py_TPFLAGS_HEAPTYPE) Py_DECREF(old);
    return 0;
}

/* A heap class module.qualname with the given base (NULL: object) that refuses construction. */
PyObject *tn_dist_refusing_class(const char *module, const char *qualname, PyObject *base) {
    size_t len = strlen(module) + strlen(qualname) + 2;
    char *full = malloc(len);   /* tp_name lives as long as the process */
    if (!full) return PyErr_NoMemory();
    snprintf(full, len, "%s.%s", module, qualname);
    PyType_Spec spec = {full, 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, refusing_slots};
    PyObject *bases = base ? PyTuple_Pack(1, base) : NULL;
    if (base && !bases) return NULL;
    PyObject *t = PyType_FromSpecWithBases(&spec, bases);
    Py_XDECREF(bases);
    if (!t) return NULL;
    if (!refusing_set && !(refusing_set = PySet_New(NULL))) return NULL;
    if (PySet_Add(refusing_set, t) < 0) Py_CLEAR(t);
    return t;
}

static PyObject *module_of(const char *owner) { return !strcmp(owner, "_distributed") ? placements_mod : c10d_mod; }

static int fill_refusing(void) {
    char modname[128];
    for (int i = 0; i < N_DIST; i++) {
        const dist_entry *e = &dist_entries[i];
        PyObject *mod = module_of(e->owner);
        PyObject *d = PyModule_GetDict(mod);
        snprintf(modname, sizeof modname, "torch._C.%s", e->owner);
        if (e->what == 0) {
            if (PyDict_GetItemString(d, e->name)) continue;    /* real */
            PyObject *base = e->sub[0] ? PyDict_GetItemString(d, e->sub) : NULL;
            PyObject *c = tn_dist_refusing_class(modname, e->name, base);
            if (!c || tn_dist_set_meta(c, !strcmp(e->meta, "opaque")) < 0 || PyDict_SetItemString(d, e->name, c) < 0 ||
                (!strcmp(e->name, "ProcessGroup") && tn_dist_backend_type_enum(c) < 0)) {
                Py_XDECREF(c);
                return -1;
            }
            Py_DECREF(c);
            continue;
        }
        if (e->what == 2) {
            if (PyDict_GetItemString(d, e->name)) continue;
        } else {
            PyObject *cls = PyDict_GetItemString(d, e->name);
            if (!cls) continue;
            /* attributes are filled only on refusing classes; a real class defines its own, and
             * names it leaves out are filled below as refusing too (e.g. Backend.Options) */
            PyObject *own = PyObject_GetAttrString(cls, "__dict__");
            if (!own) return -1;
            int has = PyMapping_HasKeyString(own, e->sub);
            Py_DECREF(own);
            if (has) continue;
            if (PyObject_HasAttrString(cls, e->sub) && e->kind != A_CLASS) continue;
            if (e->kind == A_CLASS) {
                char qual[160];
                snprintf(qual, sizeof qual, "%s.%s", e->name, e->sub);
                PyObject *c = tn_dist_refusing_class(modname, qual, NULL);
                if (!c || tn_dist_set_meta(c, 0) < 0 || PyObject_SetAttrString(cls, e->sub, c) < 0) {
                    Py_XDECREF(c);
                    return -1;
                }
                Py_DECREF(c);
                continue;
            }
        }
        PyObject *self = PyCapsule_New((void *)(intptr_t)(i + 1), NULL, NULL);
        if (!self) return -1;
        dist_defs[i] = (PyMethodDef){e->what == 1 ? e->sub : e->name, (PyCFunction)(void (*)(void))refuse_entry,
                                     METH_VARARGS | METH_KEYWORDS, NULL};
        PyObject *mn = PyUnicode_FromString(modname);
        PyObject *f = mn ? PyCFunction_NewEx(&dist_defs[i], self, mn) : NULL;
        Py_XDECREF(mn);
        Py_DECREF(self);
        if (!f) return -1;
        if (e->what == 1 && e->kind == A_PROPERTY) {
            PyObject *p = PyObject_CallFunctionObjArgs((PyObject *)&PyProperty_Type, f, NULL);
            Py_DECREF(f);
            if (!p) return -1;
            f = p;
        }
        int rc = e->what == 1 ? PyObject_SetAttrString(PyDict_GetItemString(PyModule_GetDict(mod), e->name), e->sub, f)
                              : PyDict_SetItemString(PyModule_GetDict(mod), e->name, f);
        Py_DECREF(f);
        if (rc < 0) return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * enums, ReduceOp, debug level, constants */

static int add_enum(PyObject *owner_obj, const char *module, const char *qualname, const char *attr,
                    const char *const *names, const long *values, int n, int export_members) {
    PyObject *e = tn_py_enum_type_new(module, qualname, names, values, n);
    if (!e) return -1;
    if (tn_dist_set_meta(e, 0) < 0 || PyObject_SetAttrString(owner_obj, attr, e) < 0) goto fail;
    for (int i = 0; export_members && i < n; i++) {
        PyObject *v = PyObject_GetAttrString(e, names[i]);
        if (!v || PyObject_SetAttrString(owner_obj, names[i], v) < 0) {
            Py_XDECREF(v);
            goto fail;
        }
        Py_DECREF(v);
    }
    Py_DECREF(e);
    return 0;
fail:
    Py_DECREF(e);
    return -1;
}

static const char *const redop_names[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"};
static const long redop_values[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
static PyObject *redop_type_enum;   /* ReduceOp.RedOpType */
static PyTypeObject *ReduceOp_Type;

typedef struct {
    PyObject_HEAD
    PyObject *op;       /* a RedOpType member */
    PyObject *factor;   /* PREMUL_SUM's factor or None */
} redop_obj;

/* The RedOpType value of a ReduceOp or RedOpType; -1 with TypeError otherwise. */
long tn_dist_reduce_op_value(PyObject *o) {
    PyObject *op = NULL;
    if (ReduceOp_Type && PyObject_TypeCheck(o, ReduceOp_Type)) op = ((redop_obj *)o)->op;
    else if (redop_type_enum && PyObject_TypeCheck(o, (PyTypeObject *)redop_type_enum)) op = o;
    if (!op) {
        PyErr_Format(PyExc_TypeError, "expected a torch.distributed.ReduceOp, got %s", tn_py_type_name(o));
        return -1;
    }
    return PyLong_AsLong(op);
}

static PyObject *redop_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kws[] = {"op", NULL};
    PyObject *op = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:ReduceOp", kws, &op)) return NULL;
    if (op && tn_dist_reduce_op_value(op) < 0) return NULL;
    redop_obj *o = (redop_obj *)PyType_GenericAlloc(tp, 0);
    if (!o) return NULL;
    if (op && PyObject_TypeCheck(op, ReduceOp_Type)) {
        o->op = Py_NewRef(((redop_obj *)op)->op);
        o->factor = Py_NewRef(((redop_obj *)op)->factor);
    } else {
        o->op = op ? Py_NewRef(op) : PyObject_GetAttrString(redop_type_enum, "SUM");
        o->factor = Py_NewRef(Py_None);
    }
    if (!o->op) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}
static void redop_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(((redop_obj *)self)->op);
    Py_XDECREF(((redop_obj *)self)->factor);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyObject *redop_richcompare(PyObject *a, PyObject *b, int cmp) {
    if (cmp != Py_EQ && cmp != Py_NE) Py_RETURN_NOTIMPLEMENTED;
    long va = tn_dist_reduce_op_value(a), vb = va < 0 ? -1 : tn_dist_reduce_op_value(b);
    if (va < 0 || vb < 0) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyBool_FromLong((va == vb) == (cmp == Py_EQ));
}
static Py_hash_t redop_hash(PyObject *self) { return PyLong_AsLong(((redop_obj *)self)->op) + 1; }
static PyObject *redop_get_op(PyObject *self, void *c) { return Py_NewRef(((redop_obj *)self)->op); }
static PyObject *redop_get_factor(PyObject *self, void *c) { return Py_NewRef(((redop_obj *)self)->factor); }
static PyObject *redop_copy(PyObject *self, PyObject *unused) {
    PyObject *args = PyTuple_Pack(1, self);
    PyObject *r = args ? redop_new(Py_TYPE(self), args, NULL) : NULL;
    Py_XDECREF(args);
    return r;
}
static PyObject *redop_deepcopy(PyObject *self, PyObject *memo) { return redop_copy(self, NULL); }
static PyObject *redop_repr(PyObject *self) {
    return PyUnicode_FromFormat("<torch.distributed.distributed_c10d.ReduceOp object: %R>", ((redop_obj *)self)->op);
}
static PyGetSetDef redop_getset[] = {{"op", redop_get_op, NULL, NULL, NULL}, {"factor", redop_get_factor, NULL, NULL, NULL}, {NULL}};
static PyMethodDef redop_methods[] = {
    {"__copy__", redop_copy, METH_NOARGS, NULL},
    {"__deepcopy__", redop_deepcopy, METH_O, NULL},
    {NULL},
};
static PyType_Slot redop_slots[] = {
    {Py_tp_new, redop_new}, {Py_tp_dealloc, redop_dealloc}, {Py_tp_richcompare, redop_richcompare},
    {Py_tp_hash, redop_hash}, {Py_tp_getset, redop_getset}, {Py_tp_methods, redop_methods},
    {Py_tp_repr, redop_repr}, {0, NULL},
};
static PyType_Spec redop_spec = {"torch._C._distributed_c10d.ReduceOp", sizeof(redop_obj), 0, Py_TPFLAGS_DEFAULT, redop_slots};

/* _ReduceOpMeta.__instancecheck__: a RedOpType member is a ReduceOp (upstream's metaclass says
 * so, since ReduceOp.SUM is a RedOpType). Looked up on the metaclass without binding, so the
 * function gets only the instance. */
static PyObject *redop_instancecheck(PyObject *unused, PyObject *inst) {
    return PyBool_FromLong(PyObject_TypeCheck(inst, ReduceOp_Type) ||
                           PyObject_TypeCheck(inst, (PyTypeObject *)redop_type_enum));
}
static PyMethodDef redop_instancecheck_def = {"__instancecheck__", redop_instancecheck, METH_O, NULL};

static int make_reduce_op(void) {
    PyObject *t = PyType_FromSpec(&redop_spec);
    if (!t) return -1;
    ReduceOp_Type = (PyTypeObject *)t;
    if (add_enum(t, "torch._C._distributed_c10d", "ReduceOp.RedOpType", "RedOpType", redop_names, redop_values, 9, 1) < 0)
        return -1;
    redop_type_enum = PyObject_GetAttrString(t, "RedOpType");
    if (!redop_type_enum) return -1;
    /* metaclass _ReduceOpMeta(pybind11_type) */
    PyObject *f = PyCFunction_New(&redop_instancecheck_def, NULL);
    PyObject *ns = f ? Py_BuildValue("{sOss}", "__instancecheck__", f, "__module__", "torch._C._distributed_c10d") : NULL;
    Py_XDECREF(f);
    PyObject *meta = ns ? PyObject_CallFunction((PyObject *)&PyType_Type, "s(O)O", "_ReduceOpMeta", bound_meta, ns) : NULL;
    Py_XDECREF(ns);
    if (!meta) return -1;
    PyObject *old = (PyObject *)Py_TYPE(t);
    Py_SET_TYPE(t, (PyTypeObject *)meta);   /* the reference is now held by the class */
    if (PyType_GetFlags((PyTypeObject *)old) & Py_TPFLAGS_HEAPTYPE) Py_DECREF(old);
    return PyModule_AddObjectRef(c10d_mod, "ReduceOp", t);
}

/* debug level: OFF unless TORCH_DISTRIBUTED_DEBUG says INFO or DETAIL (upstream's reading) */
static long debug_level;
static PyObject *debug_enum;
static PyObject *get_debug_level(PyObject *m, PyObject *unused) {
    static const char *const n[] = {"OFF", "INFO", "DETAIL"};
    return PyObject_GetAttrString(debug_enum, n[debug_level]);
}
static PyObject *set_debug_level(PyObject *m, PyObject *lvl) {
    if (!PyObject_TypeCheck(lvl, (PyTypeObject *)debug_enum))
        return PyErr_Format(PyExc_TypeError, "set_debug_level(): expected a DebugLevel, got %s", tn_py_type_name(lvl));
    long v = PyLong_AsLong(lvl);
    if (v < 0) return NULL;
    debug_level = v;
    Py_RETURN_NONE;
}
static PyObject *set_debug_level_from_env(PyObject *m, PyObject *unused) {
    const char *s = getenv("TORCH_DISTRIBUTED_DEBUG");
    if (!s || !s[0]) debug_level = 0;
    else if (!strcasecmp(s, "OFF")) debug_level = 0;
    else if (!strcasecmp(s, "INFO")) debug_level = 1;
    else if (!strcasecmp(s, "DETAIL")) debug_level = 2;
    else
        return PyErr_Format(PyExc_ValueError,
                            "The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL, but got '%s'.", s);
    Py_RETURN_NONE;
}

/* the group registry: group name -> process group (upstream's GroupRegistry) */
static PyObject *groups;
static PyObject *register_process_group(PyObject *m, PyObject *args) {
    PyObject *name, *pg;
    if (!PyArg_ParseTuple(args, "UO:_register_process_group", &name, &pg)) return NULL;
    int has = PyDict_Contains(groups, name);
    if (has < 0) return NULL;
    if (has) return PyErr_Format(PyExc_RuntimeError, "A process group is already registered under the name %U", name);
    if (PyDict_SetItem(groups, name, pg) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *resolve_process_group(PyObject *m, PyObject *name) {
    PyObject *pg = PyUnicode_Check(name) ? PyDict_GetItem(groups, name) : NULL;
    if (!pg) return PyErr_Format(PyExc_ValueError, "Could not resolve the process group registered under the name %S", name);
    return Py_NewRef(pg);
}
static PyObject *unregister_process_group(PyObject *m, PyObject *name) {
    if (PyDict_Contains(groups, name) == 1 && PyDict_DelItem(groups, name) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *unregister_all_process_groups(PyObject *m, PyObject *unused) {
    PyDict_Clear(groups);
    Py_RETURN_NONE;
}

static long global_rank = -1;
static PyObject *set_global_rank(PyObject *m, PyObject *r) {
    long v = PyLong_AsLong(r);
    if (v == -1 && PyErr_Occurred()) return NULL;
    global_rank = v;
    Py_RETURN_NONE;
}
static PyObject *profiling_name;
static PyObject *get_comm_profiling_name(PyObject *m, PyObject *unused) {
    return profiling_name ? Py_NewRef(profiling_name) : PyUnicode_FromString("");
}
static PyObject *set_comm_profiling_name(PyObject *m, PyObject *name) {
    if (!PyUnicode_Check(name)) return PyErr_Format(PyExc_TypeError, "expected str, got %s", tn_py_type_name(name));
    Py_XSETREF(profiling_name, Py_NewRef(name));
    Py_RETURN_NONE;
}
static int allow_inflight;
static PyObject *get_allow_inflight(PyObject *m, PyObject *unused) { return PyBool_FromLong(allow_inflight); }
static PyObject *set_allow_inflight(PyObject *m, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    allow_inflight = b;
    Py_RETURN_NONE;
}

static PyMethodDef c10d_funcs[] = {
    {"get_debug_level", get_debug_level, METH_NOARGS, NULL},
    {"set_debug_level", set_debug_level, METH_O, NULL},
    {"set_debug_level_from_env", set_debug_level_from_env, METH_NOARGS, NULL},
    {"_register_process_group", register_process_group, METH_VARARGS, NULL},
    {"_resolve_process_group", resolve_process_group, METH_O, NULL},
    {"_unregister_process_group", unregister_process_group, METH_O, NULL},
    {"_unregister_all_process_groups", unregister_all_process_groups, METH_NOARGS, NULL},
    {"_set_global_rank", set_global_rank, METH_O, NULL},
    {"_get_comm_profiling_name", get_comm_profiling_name, METH_NOARGS, NULL},
    {"_set_comm_profiling_name", set_comm_profiling_name, METH_O, NULL},
    {"_allow_inflight_collective_as_graph_input", get_allow_inflight, METH_NOARGS, NULL},
    {"_set_allow_inflight_collective_as_graph_input", set_allow_inflight, METH_O, NULL},
    {NULL},
};

PyObject *tn_dist_timedelta_ms(long long ms) {
    PyObject *dt = PyImport_ImportModule("datetime");
    PyObject *td = dt ? PyObject_GetAttrString(dt, "timedelta") : NULL;
    Py_XDECREF(dt);
    if (!td) return NULL;
    PyObject *r = PyObject_CallFunction(td, "iiiL", 0, 0, 0, ms);
    Py_DECREF(td);
    return r;
}

/* milliseconds of a datetime.timedelta (-1 with TypeError) */
long long tn_dist_timedelta_to_ms(PyObject *o) {
    PyObject *s = PyObject_CallMethod(o, "total_seconds", NULL);
    if (!s) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "expected a datetime.timedelta, got %s", tn_py_type_name(o));
        return -1;
    }
    double v = PyFloat_AsDouble(s);
    Py_DECREF(s);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    return (long long)(v * 1000.0 + (v >= 0 ? 0.5 : -0.5));
}

static int fill_real(void) {
    static const char *const dbg[] = {"OFF", "INFO", "DETAIL"};
    static const long dbgv[] = {0, 1, 2};
    static const char *const hook[] = {"ALLREDUCE", "FP16_COMPRESS"};
    static const long hookv[] = {1, 2};
    static const char *const err[] = {"SUCCESS", "TIMEOUT", "COMM_ERROR", "REMOTE_ERROR"};
    static const long errv[] = {0, 1, 2, 3};
    static const char *const wres[] = {"SUCCESS", "TIMEOUT", "COMM_ERROR", "UNKNOWN"};
    static const long wresv[] = {0, 1, 2, 100};
    static const char *const opt[] = {"BROADCAST", "ALLREDUCE", "ALLREDUCE_COALESCED", "REDUCE", "ALLGATHER",
                                      "_ALLGATHER_BASE", "ALLGATHER_COALESCED", "GATHER", "SCATTER", "REDUCE_SCATTER",
                                      "ALLTOALL_BASE", "ALLTOALL", "SEND", "RECV", "RECVANYSOURCE", "BARRIER",
                                      "_REDUCE_SCATTER_BASE", "COALESCED", "_ALLREDUCE_SPARSE",
                                      "REDUCE_SCATTER_TENSOR_COALESCED", "UNKNOWN"};
    static const long optv[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 100};
    const char *M = "torch._C._distributed_c10d";
    if (add_enum(c10d_mod, M, "DebugLevel", "DebugLevel", dbg, dbgv, 3, 0) < 0 ||
        add_enum(c10d_mod, M, "BuiltinCommHookType", "BuiltinCommHookType", hook, hookv, 2, 0) < 0 ||
        add_enum(c10d_mod, M, "ErrorType", "ErrorType", err, errv, 4, 0) < 0 ||
        add_enum(c10d_mod, M, "WorkResult", "WorkResult", wres, wresv, 4, 0) < 0 ||
        add_enum(c10d_mod, M, "OpType", "OpType", opt, optv, 21, 0) < 0)
        return -1;
    debug_enum = PyObject_GetAttrString(c10d_mod, "DebugLevel");
    if (!debug_enum || make_reduce_op() < 0) return -1;
    if (!(groups = PyDict_New())) return -1;
    if (PyModule_AddFunctions(c10d_mod, c10d_funcs) < 0) return -1;
    PyObject *v;
    if (!(v = tn_dist_timedelta_ms(1800 * 1000LL)) || PyModule_AddObject(c10d_mod, "_DEFAULT_PG_TIMEOUT", v) < 0) return -1;
    if (!(v = tn_dist_timedelta_ms(0)) || PyModule_AddObject(c10d_mod, "_DEFAULT_NO_TIMEOUT", v) < 0) return -1;
    if (PyModule_AddIntConstant(c10d_mod, "_DEFAULT_FIRST_BUCKET_BYTES", 1048576) < 0) return -1;
    if (tn_dist_store_types_init(c10d_mod) < 0 || tn_dist_pg_types_init(c10d_mod) < 0 || tn_dist_pgwrap_types_init(c10d_mod) < 0 ||
        tn_dist_ddp_types_init(c10d_mod) < 0 ||
        tn_dist_placement_types_init(placements_mod) < 0)
        return -1;
    return 0;
}

/* the process group's BackendType enum, exported onto ProcessGroup as upstream's pybind does */
int tn_dist_backend_type_enum(PyObject *pg_class) {
    static const char *const bt[] = {"UNDEFINED", "GLOO", "NCCL", "XCCL", "UCC", "MPI", "CUSTOM"};
    static const long btv[] = {0, 1, 2, 5, 3, 4, 6};
    return add_enum(pg_class, "torch._C._distributed_c10d", "ProcessGroup.BackendType", "BackendType", bt, btv, 7, 1);
}

static int initialized;
static PyObject *c10d_init(PyObject *m, PyObject *unused) {
    if (initialized) Py_RETURN_TRUE;
    PyObject *ob = PyImport_ImportModule("torch._opaque_base");
    opaque_meta = ob ? PyObject_GetAttrString(ob, "OpaqueBaseMeta") : NULL;
    Py_XDECREF(ob);
    if (!opaque_meta) return NULL;
    if (!bound_meta) {
        bound_meta = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O){ss}", "pybind11_type",
                                           (PyObject *)&PyType_Type, "__module__", "pybind11_builtins");
        if (!bound_meta) return NULL;
    }
    if (fill_real() < 0 || fill_refusing() < 0) return NULL;
    initialized = 1;
    Py_RETURN_TRUE;
}

static PyObject *has_distributed(PyObject *m, PyObject *unused) { Py_RETURN_TRUE; }

static PyMethodDef top_funcs[] = {
    {"_c10d_init", c10d_init, METH_NOARGS, NULL},
    {"_has_distributed", has_distributed, METH_NOARGS, NULL},
    {NULL},
};

int tn_distributed_init(PyObject *m) {
    /* the error classes, named as upstream names them (torch.distributed.DistError, ...) */
    struct { PyObject **slot; const char *name, *attr; PyObject **base; } errs[] = {
        {&tn_dist_exc_error, "torch.distributed.DistError", "_DistError", NULL},
        {&tn_dist_exc_backend, "torch.distributed.DistBackendError", "_DistBackendError", &tn_dist_exc_error},
        {&tn_dist_exc_network, "torch.distributed.DistNetworkError", "_DistNetworkError", &tn_dist_exc_error},
        {&tn_dist_exc_store, "torch.distributed.DistStoreError", "_DistStoreError", &tn_dist_exc_error},
        {&tn_dist_exc_queue_empty, "torch.distributed.QueueEmptyError", "_DistQueueEmptyError", &tn_dist_exc_store},
    };
    for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
        PyObject *base = errs[i].base ? *errs[i].base : PyExc_RuntimeError;
        *errs[i].slot = PyErr_NewException(errs[i].name, base, NULL);
        if (!*errs[i].slot || PyModule_AddObjectRef(m, errs[i].attr, *errs[i].slot) < 0) return -1;
    }
    if (PyModule_AddFunctions(m, top_funcs) < 0) return -1;
    placements_mod = tn_py_submodule("_distributed");
    c10d_mod = placements_mod ? tn_py_submodule("_distributed_c10d") : NULL;
    return c10d_mod ? 0 : -1;
}
