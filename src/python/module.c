/* module.c — PyInit__C: builds torch._C from its parts.
 *
 * Order matters: types first (dtype objects are needed by everything), then the tensor type,
 * then the operator functions, and last the surface of remaining names upstream reads, which only
 * fills in names nobody provided for real. */
#include "ops/linalg_lapack.h"
#include "ops/qlinear.h"
#include "python/common.h"
#include "autograd/autograd.h"
#include "autograd/forward.h"
#include "python/library.h"
#include "dispatch/modes.h"
#include "dispatch/subclass.h"
#include "python/distributed.h"

#include <string.h>

/* torch._C.<dotted>: get or create the submodule chain, each a module attribute of its parent
 * and registered in sys.modules so `from torch._C._x import y` works (DESIGN.md §4). New ref. */
PyObject *tn_py_submodule(const char *dotted) {
    PyObject *cur = Py_NewRef(tn_py.module);
    const char *p = dotted;
    char full[256] = "torch._C";
    while (*p) {
        const char *e = strchr(p, '.');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char part[128];
        if (n >= sizeof part || strlen(full) + n + 2 >= sizeof full) {
            Py_DECREF(cur);
            PyErr_SetString(PyExc_ValueError, "torchnative: submodule name too long");
            return NULL;
        }
        memcpy(part, p, n);
        part[n] = 0;
        strcat(full, ".");
        strcat(full, part);
        PyObject *d = PyModule_GetDict(cur);   /* borrowed */
        PyObject *sub = d ? PyDict_GetItemString(d, part) : NULL;
        if (sub && PyModule_Check(sub)) {
            Py_INCREF(sub);
        } else {
            sub = PyModule_New(full);
            PyObject *mods = PyImport_GetModuleDict();  /* borrowed */
            if (!sub || PyObject_SetAttrString(cur, part, sub) < 0 || PyDict_SetItemString(mods, full, sub) < 0) {
                Py_XDECREF(sub);
                Py_DECREF(cur);
                return NULL;
            }
        }
        Py_DECREF(cur);
        cur = sub;
        p += n;
        if (*p == '.') p++;
    }
    return cur;
}

static struct PyModuleDef tn_module_def = {
    PyModuleDef_HEAD_INIT, "torch._C", "torchnative: torch._C written in C", -1, NULL,
};

PyMODINIT_FUNC PyInit__C(void) {
    PyObject *m = PyModule_Create(&tn_module_def);
    if (!m) return NULL;
    tn_py.module = m;
    tn_py.default_dtype = TN_DTYPE_F32;
    tn_storage_tune_malloc();
    if (tn_types_init(m) < 0 || tn_tensor_type_init(m) < 0 || tn_functions_init(m) < 0 ||
        tn_tensor_new_init(m) < 0 || tn_library_init(m) < 0 || tn_grad_mode_init(m) < 0 || tn_forward_init(m) < 0 || tn_autograd_init(m) < 0 || tn_modes_init(m) < 0 || tn_subclass_init(m) < 0 || tn_functorch_init(m) < 0 || tn_autocast_init(m) < 0 || tn_return_types_init(m) < 0 || tn_schema_types_init(m) < 0 || tn_dynamo_init(m) < 0 || tn_serialization_init(m) < 0 ||
        tn_parse_to_init(m) < 0 || tn_optim_support_init(m) < 0 || tn_dataloader_init(m) < 0 || tn_fx_init(m) < 0 || tn_stream_init(m) < 0 ||
        tn_future_init(m) < 0 || tn_distributed_init(m) < 0 || tn_linalg_init(m) < 0 || tn_profiler_init(m) < 0 || tn_qlinear_init(m) < 0 || tn_surface_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
