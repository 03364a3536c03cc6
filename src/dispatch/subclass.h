/* subclass.h — the door's tensor-subclass stage: __torch_dispatch__ of Tensor subclasses
 * (subclass.c). */
#ifndef TN_DISPATCH_SUBCLASS_H
#define TN_DISPATCH_SUBCLASS_H

#include "core/pystate.h"
#include "dispatch/args.h"

int tn_subclass_init(PyObject *m);
/* Does o's class define a __torch_dispatch__ other than torch._C._disabled_torch_dispatch_impl? */
bool tn_has_torch_dispatch(PyObject *o);
/* Does a tensor argument of the call (inside lists too) have such a class? */
bool tn_subclass_wants(int op, tn_value *args);
/* Is a tensor argument a nested (jagged) one (made with the NestedTensor dispatch key)? Upstream's
 * CompositeImplicitAutograd kernels do not cover the nested keys: such calls reach the class whole. */
bool tn_subclass_nested(int op, tn_value *args);
/* Hand the call to the first such class's __torch_dispatch__ (new reference, NULL with an error). */
PyObject *tn_subclass_call(int op, tn_value *args);
/* The same for a call already in Python form (library.c's run-time operators): func, the
 * subclasses' types, positional and keyword arguments; name is func's, for the error. */
PyObject *tn_subclass_call_python(PyObject *func, PyObject *types, PyObject *pargs, PyObject *kwargs, PyObject *name);
/* a Python handler's results that the schema says alias an argument become views of it, as
 * upstream's ADInplaceOrView key (above the Python key) makes them */
void tn_mark_views(int op, tn_value *args, PyObject *r);
/* A metadata query of a tensor whose class asked for it (_make_wrapper_subclass's
 * dispatch_sizes_strides_policy / dispatch_device / dispatch_layout): the result of
 * __torch_dispatch__(torch.ops.<ns>.<name>.default, (type,), (self,), {}) (new reference; None
 * means "use the tensor's own"). */
PyObject *tn_subclass_query(PyObject *self, const char *ns, const char *name);
/* Refuse a call that would hand a kernel a tensor with no data (a wrapper subclass's). */
bool tn_door_no_data(int op, tn_value *args);
/* upstream's RuntimeError for reading the bytes of such a storage; returns NULL */
PyObject *tn_no_data_error(void);
/* The Python form of a call (door.c): the OpOverload (borrowed), positional arguments, keyword-only
 * arguments, as upstream passes them to __torch_dispatch__, and the types of the tensor arguments
 * with their own __torch_dispatch__ in upstream's order (new references); -1 with an error. */
int tn_door_python_call(int op, tn_value *args, PyObject **func, PyObject **pargs,
                        PyObject **kwargs, PyObject **types);

#endif
