/* torch_function.h — __torch_function__ hand-off (torch_function.c). */
#ifndef TN_PYTHON_TORCH_FUNCTION_H
#define TN_PYTHON_TORCH_FUNCTION_H

#include "python/common.h"

/* Does this call need __torch_function__ handling? If so *relevant gets a new list of the
 * overriding arguments (possibly empty when only a mode is active). */
bool tn_torch_function_active(PyObject *self, PyObject *args, PyObject *kw, PyObject **relevant);
/* Hand the call to torch.overrides.handle_torch_function; steals `relevant`. */
PyObject *tn_torch_function_call(PyObject *public_api, PyObject *relevant, PyObject *self, PyObject *args,
                                 PyObject *kw);
int tn_torch_function_init(PyObject *m);
/* Manual bindings: hand the call to __torch_function__ when it applies (*handled set). */
PyObject *tn_torch_function_manual(const char *name, PyObject *args, PyObject *kw, bool *handled);

#endif
