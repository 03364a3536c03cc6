/* grad_mode.c — the autograd switches upstream's Python flips: grad mode (torch.no_grad,
 * torch.enable_grad, set_grad_enabled), inference mode, forward-grad mode. Thread-local, as
 * upstream's: a thread starts with grad mode on. */
#include "autograd/autograd.h"

static _Thread_local bool grad_enabled = true, fwd_grad_enabled = true;
/* inference mode lives in core (core/tensor.h): storage made while it is on is inference storage */
#define inference_mode tn_tls_inference_mode

/* depth of calls that run below autograd (docs/autograd_more2.md "Below autograd"): an op's
 * own run (record.c), a dispatch mode's or a tensor subclass's __torch_dispatch__ (door.c,
 * subclass.c). Upstream excludes the autograd keys there, which is not grad mode: a handler
 * reads torch.is_grad_enabled() as the user set it, yet nothing it runs records, not even under
 * enable_grad, and no view gets a no_grad creation mode (measured). So recording asks this
 * depth beside grad mode, and the Python getter reads grad mode alone. */
static _Thread_local int below_depth;
bool tn_grad_enabled(void) { return grad_enabled && !inference_mode && below_depth == 0; }
bool tn_grad_mode(void) { return grad_enabled; }
bool tn_below_autograd(void) { return below_depth > 0; }
void tn_below_autograd_step(int d) { below_depth += d; }
int tn_below_autograd_swap(int d) {
    int was = below_depth;
    below_depth = d;
    return was;
}
bool tn_fwd_grad_enabled(void) { return fwd_grad_enabled; }
bool tn_grad_mode_set(bool on) {
    bool was = grad_enabled;
    grad_enabled = on;
    return was;
}

/* anomaly mode (torch.autograd.detect_anomaly / set_detect_anomaly): process-wide, as upstream's */
static bool anomaly_on, anomaly_nan = true;
bool tn_anomaly_enabled(void) { return anomaly_on; }
bool tn_anomaly_check_nan(void) { return anomaly_on && anomaly_nan; }
static PyObject *set_anomaly(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"enabled", "check_nan", NULL};
    int on, nan = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "p|p:set_anomaly_enabled", kws, &on, &nan)) return NULL;
    anomaly_on = on;
    anomaly_nan = nan;
    Py_RETURN_NONE;
}
static PyObject *is_anomaly(PyObject *m, PyObject *u) { return PyBool_FromLong(anomaly_on); }
static PyObject *is_anomaly_nan(PyObject *m, PyObject *u) { return PyBool_FromLong(anomaly_nan); }

static PyObject *is_grad_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(grad_enabled); }
static PyObject *set_grad_enabled(PyObject *m, PyObject *v) {
    if (!PyBool_Check(v)) return PyErr_Format(PyExc_TypeError, "enabled must be a bool (got %s)", Py_TYPE(v) == NULL ? "?" : "non-bool");
    grad_enabled = v == Py_True;
    Py_RETURN_NONE;
}
static PyObject *is_fwd_grad_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(fwd_grad_enabled); }
static PyObject *set_fwd_grad_enabled(PyObject *m, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    fwd_grad_enabled = b;
    Py_RETURN_NONE;
}
static PyObject *is_inference_mode_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(inference_mode); }

/* torch._C._InferenceMode(enabled): a guard object; inference mode lasts while it lives. */
typedef struct { PyObject_HEAD bool prev_inference, prev_grad, restored; } guard_obj;

static PyObject *guard_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    int enabled = 1;
    if (!PyArg_ParseTuple(args, "|p:_InferenceMode", &enabled)) return NULL;
    guard_obj *g = (guard_obj *)PyType_GenericAlloc(tp, 0);
    if (!g) return NULL;
    g->prev_inference = inference_mode;
    g->prev_grad = grad_enabled;
    /* as upstream's c10::InferenceMode: grad mode is the opposite of inference mode, so
     * inference_mode(False) turns grad mode on, even inside no_grad (measured) */
    inference_mode = enabled;
    grad_enabled = !enabled;
    return (PyObject *)g;
}
/* upstream 2.13's torch.inference_mode enters the guard with `with`: __enter__ does nothing (the
 * mode began at construction), __exit__ restores the previous modes (measured) */
static void guard_restore(guard_obj *g) {
    if (g->restored) return;
    g->restored = true;
    inference_mode = g->prev_inference;
    grad_enabled = g->prev_grad;
}
static PyObject *im_enter(PyObject *self, PyObject *u) { Py_RETURN_NONE; }
static PyObject *im_exit(PyObject *self, PyObject *args) {
    guard_restore((guard_obj *)self);
    Py_RETURN_NONE;
}
static PyMethodDef im_methods[] = {
    {"__enter__", im_enter, METH_NOARGS, NULL}, {"__exit__", im_exit, METH_VARARGS, NULL}, {NULL}};
bool tn_inference_mode(void) { return inference_mode; }
static void guard_dealloc(PyObject *self) {
    guard_obj *g = (guard_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    guard_restore(g);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyType_Slot guard_slots[] = {{Py_tp_new, guard_new}, {Py_tp_dealloc, guard_dealloc}, {Py_tp_methods, im_methods}, {0, NULL}};
static PyType_Spec guard_spec = {"torch._C._InferenceMode", sizeof(guard_obj), 0, Py_TPFLAGS_DEFAULT, guard_slots};

/* Guards that only matter to subsystems torchnative does not have (functorch transforms):
 * constructing one is a no-op, as it is upstream when those are inactive. (_DisableAutocast is
 * python/autocast.c's.) */
static PyObject *guard_enter(PyObject *self, PyObject *u) { return Py_NewRef(self); }
static PyObject *guard_exit(PyObject *self, PyObject *args) { Py_RETURN_NONE; }
static PyMethodDef noop_methods[] = {
    {"__enter__", guard_enter, METH_NOARGS, NULL}, {"__exit__", guard_exit, METH_VARARGS, NULL}, {NULL}};
static PyType_Slot noop_slots[] = {{Py_tp_new, PyType_GenericNew}, {Py_tp_methods, noop_methods}, {0, NULL}};
static const char *const noop_guards[][2] = {{"_DisableFuncTorch", "torch._C._DisableFuncTorch"}};

static PyMethodDef grad_methods[] = {
    {"is_grad_enabled", is_grad_enabled, METH_NOARGS, NULL},
    {"set_anomaly_enabled", (PyCFunction)(void (*)(void))set_anomaly, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_anomaly_enabled", is_anomaly, METH_NOARGS, NULL},
    {"is_anomaly_check_nan_enabled", is_anomaly_nan, METH_NOARGS, NULL},
    {"_set_grad_enabled", set_grad_enabled, METH_O, NULL},
    {"_is_fwd_grad_enabled", is_fwd_grad_enabled, METH_NOARGS, NULL},
    {"_set_fwd_grad_enabled", set_fwd_grad_enabled, METH_O, NULL},
    {"is_inference_mode_enabled", is_inference_mode_enabled, METH_NOARGS, NULL},
    {NULL},
};

int tn_grad_mode_init(PyObject *m) {
    PyObject *g = PyType_FromSpec(&guard_spec);
    if (!g || PyModule_AddObjectRef(m, "_InferenceMode", g) < 0) { Py_XDECREF(g); return -1; }
    Py_DECREF(g);
    for (size_t i = 0; i < sizeof noop_guards / sizeof *noop_guards; i++) {
        PyType_Spec spec = {noop_guards[i][1], 0, 0, Py_TPFLAGS_DEFAULT, noop_slots};
        PyObject *t = PyType_FromSpec(&spec);
        if (!t || PyModule_AddObject(m, noop_guards[i][0], t) < 0) { Py_XDECREF(t); return -1; }
    }
    return PyModule_AddFunctions(m, grad_methods);
}
