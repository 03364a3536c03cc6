/* module.c — PyInit__C: builds torch._C from its parts.
 *
 * Order matters: types first (dtype objects are needed by everything), then the tensor type,
 * then the operator functions, and last the surface of remaining names upstream reads, which only
 * fills in names nobody provided for real. */
#include "python/common.h"

tn_py_state tn_py;

PyObject *tn_not_implemented(const char *what) {
    PyErr_Format(PyExc_NotImplementedError, "torchnative: %s is not implemented", what);
    return NULL;
}

static struct PyModuleDef tn_module_def = {
    PyModuleDef_HEAD_INIT, "torch._C", "torchnative: torch._C written in C", -1, NULL,
};

PyMODINIT_FUNC PyInit__C(void) {
    PyObject *m = PyModule_Create(&tn_module_def);
    if (!m) return NULL;
    tn_py.module = m;
    tn_py.default_dtype = TN_DTYPE_F32;
    if (tn_types_init(m) < 0 || tn_tensor_type_init(m) < 0 || tn_functions_init(m) < 0 ||
        tn_schema_types_init(m) < 0 || tn_surface_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
