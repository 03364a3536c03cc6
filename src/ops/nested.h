/* nested.h — the door's stage for strided nested tensors (ops/nested.c). */
#ifndef TN_OPS_NESTED_H
#define TN_OPS_NESTED_H

#include "dispatch/door.h"

/* whether a strided nested tensor is among the call's tensor arguments (lists included) */
bool tn_nested_among(int op, tn_value *args);
/* run the call on its nested arguments: upstream's NestedTensorCPU kernel for the overload, a
 * CompositeImplicitAutograd decomposition, or upstream's refusal */
PyObject *tn_nested_call(int op, tn_value *args);
/* torch._C._nested.nested_tensor's last step: a nested tensor from a sequence of dense tensors
 * (copied; dtype NULL: the first one's) */
PyObject *tn_nested_from_list(PyObject *seq, PyObject *dtype);

#endif
