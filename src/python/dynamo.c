/* dynamo.c — torch._C._dynamo: what torch._dynamo needs from C to import and stay inert.
 *
 * torch.compile is out of reach under the limited API (dynamo's frame hook needs CPython
 * internals; DESIGN.md §3.8), but constructing any optimizer imports torch._dynamo, which builds
 * frame-execution strategies, stores and restores its eval-frame callback and reads a few
 * settings at import. Here those are real and small: the _FrameAction enum, _FrameExecStrategy
 * records, the callback slot (stored, returned, never run: no frame is ever intercepted), the
 * per-code strategy table and the plain settings dynamo sets and reads back. The guard and cache
 * classes stay existence-only names from surface.c. */
#include "python/common.h"

#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * _FrameAction / _FrameExecStrategy */

static PyObject *frame_action_type;

typedef struct {
    PyObject_HEAD
    PyObject *cur_action, *recursive_action;
} tn_strategy;

static int strategy_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"cur_action", "recursive_action", NULL};
    PyObject *cur, *rec;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:_FrameExecStrategy", kwlist, &cur, &rec)) return -1;
    if (!PyObject_TypeCheck(cur, (PyTypeObject *)frame_action_type) ||
        !PyObject_TypeCheck(rec, (PyTypeObject *)frame_action_type)) {
        PyErr_SetString(PyExc_TypeError, "__init__(): incompatible constructor arguments; expected two _FrameAction values");
        return -1;
    }
    tn_strategy *s = (tn_strategy *)self;
    Py_XSETREF(s->cur_action, Py_NewRef(cur));
    Py_XSETREF(s->recursive_action, Py_NewRef(rec));
    return 0;
}
static int strategy_traverse(PyObject *self, visitproc visit, void *arg) {
    tn_strategy *s = (tn_strategy *)self;
    Py_VISIT(s->cur_action);
    Py_VISIT(s->recursive_action);
    Py_VISIT((PyObject *)Py_TYPE(self));
    return 0;
}
static int strategy_clear(PyObject *self) {
    tn_strategy *s = (tn_strategy *)self;
    Py_CLEAR(s->cur_action);
    Py_CLEAR(s->recursive_action);
    return 0;
}
static void strategy_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    strategy_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyMemberDef strategy_members[] = {
    {"cur_action", T_OBJECT_EX, offsetof(tn_strategy, cur_action), 0, NULL},
    {"recursive_action", T_OBJECT_EX, offsetof(tn_strategy, recursive_action), 0, NULL},
    {NULL},
};
static PyType_Slot strategy_slots[] = {
    {Py_tp_init, strategy_init}, {Py_tp_new, PyType_GenericNew}, {Py_tp_members, strategy_members},
    {Py_tp_traverse, strategy_traverse}, {Py_tp_clear, strategy_clear}, {Py_tp_dealloc, strategy_dealloc},
    {0, NULL},
};
static PyType_Spec strategy_spec = {"torch._C._dynamo.eval_frame._FrameExecStrategy", sizeof(tn_strategy), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, strategy_slots};

/* ---------------------------------------------------------------------------------------------
 * the eval-frame callback slot and the settings dynamo stores */

static PyObject *eval_frame_cb;        /* None until set */
static PyObject *guard_error_hook, *guard_complete_hook, *bytecode_debugger_cb;
static PyObject *code_strategies;      /* dict: code object -> _FrameExecStrategy */
static int skip_guard_eval_unsafe;
static long c_recursion_limit = 10000; /* upstream's default (Py_C_RECURSION_LIMIT-like) */
static long isolate_recompiles_id;
static PyObject *code_type;            /* types.CodeType (PyCode_Check is not in the limited API) */

static int is_code(PyObject *o) {
    if (!code_type) {
        PyObject *types = PyImport_ImportModule("types");
        code_type = types ? PyObject_GetAttrString(types, "CodeType") : NULL;
        Py_XDECREF(types);
        if (!code_type) return -1;
    }
    return PyObject_TypeCheck(o, (PyTypeObject *)code_type);
}

static PyObject *ef_set_eval_frame(PyObject *s, PyObject *cb) {
    PyObject *old = eval_frame_cb;   /* the reference we held becomes the caller's */
    eval_frame_cb = Py_NewRef(cb);
    return old;
}
static PyObject *ef_get_eval_frame_callback(PyObject *s, PyObject *a) { return Py_NewRef(eval_frame_cb); }

/* set_X(hook): store; return None */
static PyObject *ef_set_guard_error_hook(PyObject *s, PyObject *h) {
    Py_XSETREF(guard_error_hook, Py_NewRef(h));
    Py_RETURN_NONE;
}
/* set_guard_complete_hook(hook) returns the previous hook */
static PyObject *ef_set_guard_complete_hook(PyObject *s, PyObject *h) {
    PyObject *old = guard_complete_hook;
    guard_complete_hook = Py_NewRef(h);
    return old;
}
static PyObject *ef_set_bytecode_debugger_cb(PyObject *s, PyObject *cb) {
    Py_XSETREF(bytecode_debugger_cb, Py_NewRef(cb));
    Py_RETURN_NONE;
}
static PyObject *ef_get_bytecode_debugger_cb(PyObject *s, PyObject *a) { return Py_NewRef(bytecode_debugger_cb); }

static PyObject *ef_set_code_exec_strategy(PyObject *s, PyObject *args) {
    PyObject *code, *strategy;
    if (!PyArg_ParseTuple(args, "OO:set_code_exec_strategy", &code, &strategy)) return NULL;
    int c = is_code(code);
    if (c <= 0) {
        if (c == 0) PyErr_SetString(PyExc_TypeError, "set_code_exec_strategy(): expected a code object");
        return NULL;
    }
    if (PyDict_SetItem(code_strategies, code, strategy) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *ef_set_skip_guard_eval_unsafe(PyObject *s, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    int old = skip_guard_eval_unsafe;
    skip_guard_eval_unsafe = b;
    return PyBool_FromLong(old);
}
static PyObject *ef_get_c_recursion_limit(PyObject *s, PyObject *a) { return PyLong_FromLong(c_recursion_limit); }
static PyObject *ef_set_c_recursion_limit(PyObject *s, PyObject *v) {
    long n = PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 1) {
        PyErr_SetString(PyExc_ValueError, "recursion limit must be greater or equal than 1");
        return NULL;
    }
    c_recursion_limit = n;
    Py_RETURN_NONE;
}
static PyObject *ef_get_isolate_id(PyObject *s, PyObject *a) { return PyLong_FromLong(isolate_recompiles_id); }
static PyObject *ef_set_isolate_id(PyObject *s, PyObject *v) {
    PyObject *old = PyLong_FromLong(isolate_recompiles_id);
    long n = v == Py_None ? 0 : PyLong_AsLong(v);
    if (n == -1 && PyErr_Occurred()) {
        Py_XDECREF(old);
        return NULL;
    }
    isolate_recompiles_id = n;
    return old;
}
/* No frame is ever evaluated by dynamo here, so no code has cache entries. */
static PyObject *ef_zero(PyObject *s, PyObject *a) { return PyLong_FromLong(0); }
static PyObject *ef_empty_list(PyObject *s, PyObject *a) { return PyList_New(0); }
static PyObject *ef_none(PyObject *s, PyObject *a) { Py_RETURN_NONE; }
/* code_framelocals_names(code): the names of a frame's locals, cells and free variables in order */
static PyObject *ef_framelocals_names(PyObject *s, PyObject *code) {
    int c = is_code(code);
    if (c <= 0) {
        if (c == 0) PyErr_SetString(PyExc_TypeError, "code_framelocals_names(): expected a code object");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    static const char *const fields[] = {"co_varnames", "co_cellvars", "co_freevars"};
    for (int f = 0; out && f < 3; f++) {
        PyObject *t = PyObject_GetAttrString(code, fields[f]);
        PyObject *it = t ? PyObject_GetIter(t) : NULL, *x;
        Py_XDECREF(t);
        if (!it) {
            Py_CLEAR(out);
            break;
        }
        while ((x = PyIter_Next(it))) {
            int c = PySequence_Contains(out, x);
            if (c < 0 || (!c && PyList_Append(out, x) < 0)) Py_CLEAR(out);
            Py_DECREF(x);
            if (!out) break;
        }
        Py_DECREF(it);
        if (out && PyErr_Occurred()) Py_CLEAR(out);
    }
    if (!out) return NULL;
    PyObject *t = PyList_AsTuple(out);
    Py_DECREF(out);
    return t;
}

static PyMethodDef eval_frame_methods[] = {
    {"set_eval_frame", ef_set_eval_frame, METH_O, NULL},
    {"get_eval_frame_callback", ef_get_eval_frame_callback, METH_NOARGS, NULL},
    {"set_guard_error_hook", ef_set_guard_error_hook, METH_O, NULL},
    {"set_guard_complete_hook", ef_set_guard_complete_hook, METH_O, NULL},
    {"set_bytecode_debugger_callback", ef_set_bytecode_debugger_cb, METH_O, NULL},
    {"get_bytecode_debugger_callback", ef_get_bytecode_debugger_cb, METH_NOARGS, NULL},
    {"set_code_exec_strategy", ef_set_code_exec_strategy, METH_VARARGS, NULL},
    {"set_skip_guard_eval_unsafe", ef_set_skip_guard_eval_unsafe, METH_O, NULL},
    {"get_c_recursion_limit", ef_get_c_recursion_limit, METH_NOARGS, NULL},
    {"set_c_recursion_limit", ef_set_c_recursion_limit, METH_O, NULL},
    {"get_eval_frame_isolate_recompiles_id", ef_get_isolate_id, METH_NOARGS, NULL},
    {"set_eval_frame_isolate_recompiles_id", ef_set_isolate_id, METH_O, NULL},
    {"_get_total_cache_entry_count", ef_zero, METH_NOARGS, NULL},
    {"_debug_get_cache_entry_list", ef_empty_list, METH_O, NULL},
    {"_debug_get_precompile_entries", ef_empty_list, METH_O, NULL},
    {"_reset_precompile_entries", ef_none, METH_O, NULL},
    {"code_framelocals_names", ef_framelocals_names, METH_O, NULL},
    {NULL},
};

/* torch._C._dynamo.guards: the flag dispatch modes set on enter/exit (read by dynamo's guards,
 * which never run here). Stored and returned. */
static int in_mode_without_ignore;
static PyObject *set_in_mode(PyObject *m, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    in_mode_without_ignore = b;
    Py_RETURN_NONE;
}
static PyObject *get_in_mode(PyObject *m, PyObject *u) { return PyBool_FromLong(in_mode_without_ignore); }
static PyMethodDef guards_methods[] = {
    {"set_is_in_mode_without_ignore_compile_internals", set_in_mode, METH_O, NULL},
    {"get_is_in_mode_without_ignore_compile_internals", get_in_mode, METH_NOARGS, NULL},
    {NULL},
};

/* torch._C._dynamo.compiled_autograd.set_autograd_compiler(compiler, dynamic) -> the previous
 * pair. torch.func's autograd calls go through compiled_autograd._disable(), which sets None and
 * puts the previous pair back; there is no compiled autograd here, so only None is accepted. */
static PyObject *ca_dynamic;
static PyObject *ca_set_compiler(PyObject *self, PyObject *args) {
    PyObject *compiler, *dynamic;
    if (!PyArg_ParseTuple(args, "OO:set_autograd_compiler", &compiler, &dynamic)) return NULL;
    if (compiler != Py_None) return tn_not_implemented("torch._C._dynamo.compiled_autograd.set_autograd_compiler (compiled autograd)");
    PyObject *prev = Py_BuildValue("(OO)", Py_None, ca_dynamic ? ca_dynamic : Py_False);
    if (prev) Py_XSETREF(ca_dynamic, Py_NewRef(dynamic));
    return prev;
}
static PyMethodDef ca_methods[] = {{"set_autograd_compiler", ca_set_compiler, METH_VARARGS, NULL}, {NULL}};

int tn_dynamo_init(PyObject *m) {
    (void)m;
    PyObject *ca = tn_py_submodule("_dynamo.compiled_autograd");
    if (!ca || PyModule_AddFunctions(ca, ca_methods) < 0) { Py_XDECREF(ca); return -1; }
    Py_DECREF(ca);
    PyObject *guards = tn_py_submodule("_dynamo.guards");
    if (!guards || PyModule_AddFunctions(guards, guards_methods) < 0) { Py_XDECREF(guards); return -1; }
    Py_DECREF(guards);
    eval_frame_cb = Py_NewRef(Py_None);
    guard_error_hook = Py_NewRef(Py_None);
    guard_complete_hook = Py_NewRef(Py_None);
    bytecode_debugger_cb = Py_NewRef(Py_None);
    if (!(code_strategies = PyDict_New())) return -1;
    PyObject *ef = tn_py_submodule("_dynamo.eval_frame");
    if (!ef) return -1;
    static const char *const names[] = {"DEFAULT", "SKIP", "RUN_ONLY"};
    static const long values[] = {0, 1, 2};
    frame_action_type = tn_py_enum_type_new("torch._C._dynamo.eval_frame", "_FrameAction", names, values, 3);
    PyObject *st = frame_action_type ? PyType_FromSpec(&strategy_spec) : NULL;
    int rc = st ? 0 : -1;
    if (rc == 0) rc = PyModule_AddObjectRef(ef, "_FrameAction", frame_action_type);
    if (rc == 0) rc = PyModule_AddObjectRef(ef, "_FrameExecStrategy", st);
    if (rc == 0) rc = PyModule_AddFunctions(ef, eval_frame_methods);
    Py_XDECREF(st);
    Py_DECREF(ef);
    return rc;
}
