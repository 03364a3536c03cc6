/* library.h — operators defined at run time through torch.library (see library.c). */
#ifndef TN_PYTHON_LIBRARY_H
#define TN_PYTHON_LIBRARY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

int tn_library_init(PyObject *m);
/* torch._C._SchemaInfo, _SchemaArgument, _overlaps (schema_info.c; called by tn_library_init) */
int tn_schema_info_init(PyObject *m);
/* As _jit_get_operation / _get_operation_overload / _get_schema for run-time operators; NULL
 * without an exception when the operator is not registered here. */
PyObject *tn_library_get_operation(const char *qualname);
PyObject *tn_library_get_overload(const char *qualname, const char *overload);
PyObject *tn_library_get_schema(const char *qualname, const char *overload);
/* Is `qualname.overload` registered (with a kernel for `key`, when key is not NULL)? */
bool tn_library_has(const char *qualname, const char *overload, const char *key);

#endif
