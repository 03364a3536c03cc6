/* return_types.c — torch._C._return_types: the named-tuple result types (torch.return_types.max
 * with fields values, indices, ...), one per operator returning several named values, made from
 * the generated table as struct sequences. Upstream's torch/return_types.py re-exports them. */
#include "python/common.h"
#include "dispatch/door.h"
#include "tn_ops_gen.h"

#include <string.h>

static PyObject *types[TN_RETURN_TYPE_COUNT];

PyObject *tn_return_type(const char *name) {
    int lo = 0, hi = TN_RETURN_TYPE_COUNT;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(tn_return_type_defs[mid].name, name);
        if (c == 0) return types[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int tn_return_types_init(PyObject *m) {
    PyObject *sub = tn_py_submodule("_return_types");
    if (!sub) return -1;
    for (int i = 0; i < TN_RETURN_TYPE_COUNT; i++) {
        int n = tn_return_type_defs[i].n;
        PyStructSequence_Field *fields = PyMem_Calloc((size_t)n + 1, sizeof *fields);
        char *qual = PyMem_Malloc(strlen(tn_return_type_defs[i].name) + 32);
        if (!fields || !qual) { Py_DECREF(sub); PyErr_NoMemory(); return -1; }
        for (int k = 0; k < n; k++) fields[k].name = tn_return_type_defs[i].fields[k];
        sprintf(qual, "torch.return_types.%s", tn_return_type_defs[i].name);
        PyStructSequence_Desc desc = {qual, NULL, fields, n};
        PyObject *t = (PyObject *)PyStructSequence_NewType(&desc);
        if (!t || PyModule_AddObjectRef(sub, tn_return_type_defs[i].name, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(sub);
            return -1;
        }
        types[i] = t;
    }
    Py_DECREF(sub);
    return 0;
}
