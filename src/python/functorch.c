/* functorch.c — torch._C._functorch: the queries upstream's Python makes about functorch
 * wrappers (vmap/grad transforms). torchnative has no such wrappers, so a tensor is never one;
 * the transforms themselves refuse by name through the surface. */
#include "python/common.h"

static PyObject *never(PyObject *m, PyObject *arg) { Py_RETURN_FALSE; }
static PyObject *none(PyObject *m, PyObject *args) { Py_RETURN_NONE; }
static PyObject *none_false(PyObject *m, PyObject *args) { Py_RETURN_FALSE; }
static PyObject *same(PyObject *m, PyObject *arg) { return Py_NewRef(arg); }   /* no wrapper is ever dead */

static PyMethodDef toplevel_methods[] = {
    {"_are_functorch_transforms_active", (PyCFunction)(void (*)(void))none_false, METH_NOARGS, NULL},
    {NULL},
};

static PyMethodDef functorch_methods[] = {
    {"is_functorch_wrapped_tensor", never, METH_O, NULL},
    {"is_batchedtensor", never, METH_O, NULL},
    {"is_legacy_batchedtensor", never, METH_O, NULL},
    {"is_gradtrackingtensor", never, METH_O, NULL},
    {"is_functionaltensor", never, METH_O, NULL},
    {"maybe_current_level", none, METH_NOARGS, NULL},
    {"unwrap_if_dead", same, METH_O, NULL},
    {NULL},
};

int tn_functorch_init(PyObject *m) {
    PyObject *sub = tn_py_submodule("_functorch");
    if (!sub) return -1;
    int r = PyModule_AddFunctions(sub, functorch_methods);
    Py_DECREF(sub);
    return r < 0 ? r : PyModule_AddFunctions(m, toplevel_methods);
}
