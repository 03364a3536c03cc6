/* common.h — what the pieces of the CPython face share.
 *
 * The shared Python objects (tn_py) and the conversions the layers below use are declared in the
 * leaf core/pystate.h, which this includes. */
#ifndef TN_PYTHON_COMMON_H
#define TN_PYTHON_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdio.h>

#include "core/pystate.h"   /* tn_py, the shared state, and the conversions the lower layers use */

/* Per-subsystem init, each adds its names to torch._C (returns 0, or -1 with an exception). */
int tn_types_init(PyObject *m);      /* dtype, device, Size, layout, memory_format, finfo, ... */
int tn_tensor_type_init(PyObject *m);/* TensorBase, _TensorMeta, UntypedStorage */
int tn_functions_init(PyObject *m);  /* _VariableFunctions, torch.ops entry points, the door */
/* f is one of the operator functions tn_functions_init made (torch.add, torch._C._nn.linear, ...):
 * a builtin bound to an int (the operator), which upstream's profiler names as its own bindings */
bool tn_py_is_op_function(PyObject *f);
int tn_tensor_new_init(PyObject *m); /* torch.tensor, from_numpy, .numpy(), .tolist() (tensor_new.c) */
int tn_grad_mode_init(PyObject *m);  /* no_grad / inference mode switches (autograd/grad_mode.c) */
int tn_functorch_init(PyObject *m);  /* torch._C._functorch queries (functorch.c) */
int tn_autocast_init(PyObject *m);   /* autocast state (autocast.c) */
int tn_py_device_type_parse(PyObject *s, int *type);   /* types.c: device string -> device type index */
int tn_return_types_init(PyObject *m); /* torch._C._return_types (return_types.c) */
int tn_parse_to_init(PyObject *m);  /* torch._C._nn._parse_to (parse_to.c) */
/* to()'s TypeError for arguments no signature of Tensor.to / _parse_to takes, in upstream's words
 * ("to() received an invalid combination of arguments - got (copy=int, ), but expected one of:
 * ..."); returns NULL (parse_to.c) */
PyObject *tn_to_no_match(PyObject *args, PyObject *kw);
int tn_surface_init(PyObject *m);    /* every other name upstream reads, refusing when called */
int tn_schema_types_init(PyObject *m);

/* --- added by the types/surface owner ---------------------------------------------------- */

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
/* __torch_function__ state: 0 enabled, 1 subclasses disabled, 2 all disabled; mode-stack size. */
int tn_torch_function_state(void);
Py_ssize_t tn_torch_function_stack_len(void);

int tn_dynamo_init(PyObject *m);    /* torch._C._dynamo: eval-frame slot, frame strategies (dynamo.c) */

int tn_serialization_init(PyObject *m); /* PyTorchFileWriter / PyTorchFileReader: torch.save's zip (serialization.c) */

int tn_dataloader_init(PyObject *m);   /* DataLoader worker supervision (dataloader.c) */
int tn_fx_init(PyObject *m);           /* torch.fx's _NodeBase, _NodeIter, _fx_map_* (fx.c) */
int tn_stream_init(PyObject *m);       /* torch.Stream, torch.Event for CPU and meta (stream.c) */
int tn_optim_support_init(PyObject *m); /* _group_tensors_by_device_and_dtype (optim_support.c) */
int tn_profiler_init(PyObject *m);     /* torch._C._autograd's profiler functions, _profiler's configs (profiler.c) */

#endif
