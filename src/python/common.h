/* common.h — what the pieces of the CPython face share.
 *
 * torch._C is one module in one interpreter (upstream's _C is not sub-interpreter safe either),
 * so the shared Python objects live in one global struct, tn_py, filled during module init. */
#ifndef TN_PYTHON_COMMON_H
#define TN_PYTHON_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/tensor.h"

typedef struct {
    PyObject *module;            /* torch._C */
    PyTypeObject *TensorBase;    /* torch._C.TensorBase */
    PyTypeObject *TensorMeta;    /* torch._C._TensorMeta */
    PyTypeObject *tensor_class;  /* torch.Tensor, set by _initExtension; results are made of it */
    PyTypeObject *dtype_type, *device_type, *size_type, *layout_type, *memory_format_type;
    PyTypeObject *generator_type, *storage_type;
    PyObject *dtypes[TN_DTYPE_COUNT];  /* torch.float32, ... */
    PyObject *layout_strided, *memory_format_contiguous, *memory_format_preserve;
    PyObject *device_cpu, *device_meta;
    PyObject *default_generator;
    tn_dtype default_dtype;      /* torch.get_default_dtype(): float32 unless set */
} tn_py_state;

extern tn_py_state tn_py;

/* The one wording for anything we lack (DESIGN.md §3.2). Returns NULL with NotImplementedError. */
PyObject *tn_not_implemented(const char *what);

/* Python <-> C conversions owned by python/types.c */
int tn_py_is_dtype(PyObject *o);
int tn_py_to_dtype(PyObject *o, tn_dtype *out);     /* 0 ok, -1 with TypeError */
PyObject *tn_py_from_dtype(tn_dtype d);             /* new reference */
int tn_py_parse_device(PyObject *o, tn_device_type *type, int *index); /* str/device/int */
PyObject *tn_py_size_new(int ndim, const int64_t *sizes); /* torch.Size, new reference */

/* Per-subsystem init, each adds its names to torch._C (returns 0, or -1 with an exception). */
int tn_types_init(PyObject *m);      /* dtype, device, Size, layout, memory_format, finfo, ... */
int tn_tensor_type_init(PyObject *m);/* TensorBase, _TensorMeta, UntypedStorage */
int tn_functions_init(PyObject *m);  /* _VariableFunctions, torch.ops entry points, the door */
int tn_surface_init(PyObject *m);    /* every other name upstream reads, refusing when called */
int tn_schema_types_init(PyObject *m);

#endif
