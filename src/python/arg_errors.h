/* arg_errors.h — upstream's TypeError for a call no overload takes (arg_errors.c). */
#ifndef TN_PYTHON_ARG_ERRORS_H
#define TN_PYTHON_ARG_ERRORS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

/* name: the Python name (a method's when method); args excludes self. 1 with a TypeError set
 * worded as upstream's parser words it; 0 when upstream would take the call or has no generated
 * signatures for the name (the caller words the error then). */
int tn_arg_error(const char *name, bool method, PyObject *args, PyObject *kw);

/* Whether upstream binds Tensor method `name` as METH_NOARGS (its one overload takes only self). */
bool tn_arg_noargs(const char *name);

#endif
