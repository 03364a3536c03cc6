/* pystate.h — the Python objects every layer shares, and the few Python <-> C conversions the op,
 * autograd and dispatch layers use (a leaf: it includes <Python.h> and core/ only).
 *
 * torch._C is one module in one interpreter (upstream's _C is not sub-interpreter safe either),
 * so the shared Python objects live in one global struct, tn_py (defined in core/object.c),
 * filled by the Python face during module init. tn_not_implemented and tn_py_type_name are
 * core/object.c's; the conversions that need the Python types are defined by the Python face
 * (python/types.c, types_gen.c, module.c, return_types.c); see docs/ARCHITECTURE.md, "Layers and
 * folders". */
#ifndef TN_CORE_PYSTATE_H
#define TN_CORE_PYSTATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>

#include "core/tensor.h"

#ifndef Py_XSETREF
#define Py_XSETREF(dst, src) do { PyObject **tn_p_ = (PyObject **)&(dst); PyObject *tn_old_ = *tn_p_; *tn_p_ = (PyObject *)(src); Py_XDECREF(tn_old_); } while (0)
#endif

typedef struct {
    PyObject *module;            /* torch._C */
    PyTypeObject *TensorBase;    /* torch._C.TensorBase */
    PyTypeObject *TensorMeta;    /* torch._C._TensorMeta */
    PyTypeObject *tensor_class;  /* torch.Tensor, set by _initExtension; results are made of it */
    PyTypeObject *dtype_type, *device_type, *size_type, *layout_type, *memory_format_type;
    PyTypeObject *generator_type, *storage_type;
    PyObject *dtypes[TN_DTYPE_COUNT];  /* torch.float32, ... */
    PyObject *layout_strided, *layout_sparse_coo, *memory_format_contiguous, *memory_format_preserve;
    PyObject *layout_sparse_csr, *layout_sparse_csc, *layout_sparse_bsr, *layout_sparse_bsc;
    PyObject *layout_jagged;     /* torch.jagged: a dense factory makes a strided tensor (ops/create.c) */
    PyObject *layout_codes[8];   /* by upstream's Layout number (Strided 0, Sparse 1, SparseCsr 2,
                                  * Mkldnn 3, SparseCsc 4, SparseBsr 5, SparseBsc 6, Jagged 7):
                                  * torch.ops takes an int for a Layout (dispatch/args.c) */
    PyObject *memory_format_channels_last, *memory_format_channels_last_3d;
    PyObject *device_cpu, *device_meta;
    PyObject *default_generator;
    tn_dtype default_dtype;      /* torch.get_default_dtype(): float32 unless set */
} tn_py_state;

extern tn_py_state tn_py;

/* The one wording for anything we lack (DESIGN.md §3.2). Returns NULL with NotImplementedError. */
PyObject *tn_not_implemented(const char *what);

/* Python <-> C conversions owned by the Python face (python/types.c unless said) */
int tn_py_is_dtype(PyObject *o);
int tn_py_to_dtype(PyObject *o, tn_dtype *out);     /* 0 ok, -1 with TypeError */
PyObject *tn_py_from_dtype(tn_dtype d);             /* new reference */
int tn_py_parse_device(PyObject *o, tn_device_type *type, int *index); /* str/device/int */
int tn_py_device_lazy_init(PyObject *o); /* after a refused device: upstream's lazy init error */
/* the dispatch key name ("CUDA", "XPU", ...) of an accelerator device o names (torch.device or
 * str) that upstream's dispatcher reports as a missing backend, else NULL (nothing raised) */
const char *tn_py_device_backend(PyObject *o);
bool tn_py_device_unbuilt(PyObject *o);   /* a device of a type other than cpu / meta */
PyObject *tn_py_size_new(int ndim, const int64_t *sizes); /* torch.Size, new reference */
bool tn_py_is_symint(PyObject *o);                        /* a torch.SymInt (not a plain int)? */
/* The name of o's type (a short-lived buffer, for error messages under the limited API;
 * core/object.c). */
const char *tn_py_type_name(PyObject *o);
/* torch.device for a C device type (index -1: none). New reference. */
PyObject *tn_py_device_new(tn_device_type type, int index);
/* The C generator of a torch.Generator (None/NULL: the default generator); NULL + TypeError. */
struct tn_generator;
struct tn_generator *tn_py_generator_of(PyObject *o);
/* A torch.memory_format object as tn_is_contiguous_as's code: 0 contiguous_format (or None), 1
 * preserve_format, 2 channels_last, 3 channels_last_3d; -1 not a memory format. */
static inline int tn_py_memformat_code(PyObject *mf) {
    if (!mf || mf == Py_None || mf == tn_py.memory_format_contiguous) return 0;
    if (mf == tn_py.memory_format_preserve) return 1;
    if (mf == tn_py.memory_format_channels_last) return 2;
    if (mf == tn_py.memory_format_channels_last_3d) return 3;
    return -1;
}
/* dict name -> layout / memory_format / qscheme objects (borrowed), written into torch. */
PyObject *tn_py_named_constants(void);
/* torch._C.<dotted>: get or create a submodule (registered in sys.modules). New reference. */
PyObject *tn_py_submodule(const char *dotted);
/* a torch._C.DispatchKeySet of space-separated DispatchKey names (python/types_enum.c) */
PyObject *tn_py_dispatch_keyset_from_names(const char *names);
/* The struct-sequence type torch.return_types.<name> (borrowed), or NULL if there is none
 * (python/return_types.c). */
PyObject *tn_return_type(const char *name);

#endif
