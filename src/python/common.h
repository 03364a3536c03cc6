/* common.h — what the pieces of the CPython face share.
 *
 * torch._C is one module in one interpreter (upstream's _C is not sub-interpreter safe either),
 * so the shared Python objects live in one global struct, tn_py, filled during module init. */
#ifndef TN_PYTHON_COMMON_H
#define TN_PYTHON_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
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
int tn_tensor_new_init(PyObject *m); /* torch.tensor, from_numpy, .numpy(), .tolist() (tensor_new.c) */
int tn_grad_mode_init(PyObject *m);  /* no_grad / inference mode switches (autograd/grad_mode.c) */
bool tn_grad_enabled(void);
int tn_functorch_init(PyObject *m);  /* torch._C._functorch queries (functorch.c) */
int tn_autocast_init(PyObject *m);   /* autocast state (autocast.c) */
int tn_py_device_type_parse(PyObject *s, int *type);   /* types.c: device string -> device type index */
int tn_return_types_init(PyObject *m); /* torch._C._return_types (return_types.c) */
/* The struct-sequence type torch.return_types.<name> (borrowed), or NULL if there is none. */
PyObject *tn_return_type(const char *name);
int tn_parse_to_init(PyObject *m);  /* torch._C._nn._parse_to (parse_to.c) */
int tn_surface_init(PyObject *m);    /* every other name upstream reads, refusing when called */
int tn_schema_types_init(PyObject *m);

/* --- added by the types/surface owner ---------------------------------------------------- */

/* The name of o's type (a short-lived buffer, for error messages under the limited API). */
const char *tn_py_type_name(PyObject *o);
/* C++ ScalarType name upstream uses in messages ("Float", "ComplexHalf", ...). */
const char *tn_dtype_cpp_name(tn_dtype d);
/* torch.device for a C device type (index -1: none). New reference. */
PyObject *tn_py_device_new(tn_device_type type, int index);
/* torch._C.<dotted>: get or create a submodule (registered in sys.modules). New reference. */
PyObject *tn_py_submodule(const char *dotted);
/* A heap class torch._C-style "module.name" whose construction raises NotImplementedError. */
PyObject *tn_py_refusing_class(const char *module, const char *name);
/* DispatchKey member for an upstream key value (new ref; ValueError if none), the value of a
 * DispatchKey (0, or -1 with TypeError), a member by name (new ref; None if no such key). */
PyObject *tn_py_dispatch_key(long value);
int tn_py_dispatch_key_value(PyObject *o, long *out);
PyObject *tn_py_dispatch_key_by_name(const char *name);
PyObject *tn_py_dispatch_keyset_full(void);
/* An enum class like upstream's pybind11 enums (members as attributes, __members__, .name,
 * .value, int(), repr "<Name.member: v>"). New reference. */
PyObject *tn_py_enum_type_new(const char *module, const char *name, const char *const *names,
                              const long *values, int n);
/* The C generator of a torch.Generator (None/NULL: the default generator); NULL + TypeError. */
struct tn_generator;
struct tn_generator *tn_py_generator_of(PyObject *o);
/* __torch_function__ state: 0 enabled, 1 subclasses disabled, 2 all disabled; mode-stack size. */
int tn_torch_function_state(void);
Py_ssize_t tn_torch_function_stack_len(void);
/* dict name -> layout / memory_format / qscheme objects (borrowed), written into torch. */
PyObject *tn_py_named_constants(void);

int tn_dynamo_init(PyObject *m);    /* torch._C._dynamo: eval-frame slot, frame strategies (dynamo.c) */

int tn_serialization_init(PyObject *m); /* PyTorchFileWriter / PyTorchFileReader: torch.save's zip (serialization.c) */

int tn_dataloader_init(PyObject *m);   /* DataLoader worker supervision (dataloader.c) */
int tn_stream_init(PyObject *m);       /* torch.Stream, torch.Event for CPU and meta (stream.c) */
int tn_optim_support_init(PyObject *m); /* _group_tensors_by_device_and_dtype (optim_support.c) */

#endif
