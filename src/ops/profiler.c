/* profiler.c — the profiler:: operators upstream's Python calls on every
 * `torch.profiler.record_function` scope (Optimizer.step and zero_grad open one each call):
 * `_record_function_enter_new(str name, str? args=None) -> _RecordFunction` and
 * `_record_function_exit._RecordFunction(Any record) -> ()`, plus the legacy tensor-handle pair.
 *
 * A scope is a near-free C object: the handle holds the scope's name and args and whether it has
 * ended (upstream's RecordFunction is likewise inactive when no profiler callback is registered);
 * while a profiler session is on (core/profiler.h) it is also an event: a user annotation named
 * after the scope (RecordScope USER_SCOPE), opened here and closed by the exit op. These rows live in src/ops/extra_schemas.txt (names
 * with a namespace), which the generated table cannot bind to a C function; door.c asks
 * tn_extra_op_fn for them instead of refusing. */
#include "ops/common.h"
#include "ops/quant.h"
#include "dispatch/graph.h"
#include "ops/qlinear.h"

#include "core/profiler.h"

#include <string.h>

typedef struct {
    PyObject_HEAD
    PyObject *name, *args;
    int ended;
    int64_t event;   /* the profiler's event handle, -1 none */
} record_fn;

static void rf_dealloc(PyObject *o) {
    record_fn *r = (record_fn *)o;
    Py_XDECREF(r->name);
    Py_XDECREF(r->args);
    PyTypeObject *tp = Py_TYPE(o);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(o);
    Py_DECREF(tp);
}

static PyObject *rf_repr(PyObject *o) {
    record_fn *r = (record_fn *)o;
    return PyUnicode_FromFormat("<torch.ScriptObject _RecordFunction %R>", r->name);
}

static PyType_Slot rf_slots[] = {
    {Py_tp_dealloc, (void *)rf_dealloc},
    {Py_tp_repr, (void *)rf_repr},
    {0, NULL},
};
static PyType_Spec rf_spec = {"torch._C._RecordFunction", sizeof(record_fn), 0, Py_TPFLAGS_DEFAULT, rf_slots};
static PyObject *rf_type;

static PyObject *new_record(tn_value *args) {
    if (!rf_type && !(rf_type = PyType_FromSpec(&rf_spec))) return NULL;
    PyTypeObject *tp = (PyTypeObject *)rf_type;
    record_fn *r = (record_fn *)((allocfunc)PyType_GetSlot(tp, Py_tp_alloc))(tp, 0);
    if (!r) return NULL;
    r->name = Py_NewRef(args[0].tag == TN_V_STR ? args[0].u.obj : Py_None);
    r->args = Py_NewRef(args[1].tag == TN_V_STR ? args[1].u.obj : Py_None);
    r->ended = 0;
    r->event = -1;
    if (tn_prof_on && args[0].tag == TN_V_STR) {
        const char *nm = PyUnicode_AsUTF8AndSize(args[0].u.obj, NULL);
        if (!nm) { Py_DECREF(r); return NULL; }
        r->event = tn_prof_begin(nm, "", TN_PROF_SCOPE_USER, TN_PROF_KIND_USER, -1, 0);
    }
    return (PyObject *)r;
}

/* profiler::_record_function_enter_new(str name, str? args=None) -> _RecordFunction */
static PyObject *enter_new(tn_value *args) { return new_record(args); }

/* profiler::_record_function_exit._RecordFunction(Any record) -> () */
static PyObject *exit_record(tn_value *args) {
    PyObject *o = args[0].u.obj;
    if (args[0].tag != TN_V_OBJECT || !rf_type || !PyObject_TypeCheck(o, (PyTypeObject *)rf_type)) {
        PyErr_SetString(PyExc_RuntimeError, "Expected a _RecordFunction handle from _record_function_enter_new");
        return NULL;
    }
    record_fn *r = (record_fn *)o;
    if (!r->ended) tn_prof_end(r->event);
    r->ended = 1;
    Py_RETURN_NONE;
}

/* profiler::_record_function_enter(str name, str? args=None) -> Tensor (legacy): upstream
 * returns an empty tensor standing for the scope. */
static PyObject *enter_legacy(tn_value *args) {
    (void)args;
    int64_t zero = 0;
    return tn_tensor_new_strided(1, &zero, &zero, TN_DTYPE_F32);
}

/* profiler::_record_function_exit(Tensor handle) -> () (legacy) */
static PyObject *exit_legacy(tn_value *args) {
    (void)args;
    Py_RETURN_NONE;
}

static const struct { const char *name, *overload; tn_op_fn fn; } extra_ops[] = {
    {"profiler::_record_function_enter_new", "", enter_new},
    {"profiler::_record_function_exit", "_RecordFunction", exit_record},
    {"profiler::_record_function_enter", "", enter_legacy},
    {"profiler::_record_function_exit", "", exit_legacy},
    /* torchnative.quant (ops/quant.c) */
    {"torchnative::quantize", "", tn_op_torchnative_quantize},
    {"torchnative::dequantize", "", tn_op_torchnative_dequantize},
    {"torchnative::quant_linear", "", tn_op_torchnative_quant_linear},
    {"torchnative::quant_isa", "", tn_op_torchnative_quant_isa},
    /* torchnative.graphs (dispatch/graph.c) */
    {"torchnative::graph_capture_begin", "", tn_op_torchnative_graph_capture_begin},
    {"torchnative::graph_capture_end", "", tn_op_torchnative_graph_capture_end},
    {"torchnative::graph_capture_abort", "", tn_op_torchnative_graph_capture_abort},
    {"torchnative::graph_replay", "", tn_op_torchnative_graph_replay},
    {"torchnative::graph_release", "", tn_op_torchnative_graph_release},
    {"torchnative::graph_size", "", tn_op_torchnative_graph_size},
};

tn_op_fn tn_extra_op_fn(const char *name, const char *overload) {
    for (size_t i = 0; i < sizeof extra_ops / sizeof *extra_ops; i++)
        if (!strcmp(extra_ops[i].name, name) && !strcmp(extra_ops[i].overload, overload)) return extra_ops[i].fn;
    return tn_qlinear_op_fn(name, overload);   /* quantized:: Linear (ops/qlinear.c) */
}
