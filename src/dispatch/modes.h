/* modes.h — the TorchDispatchMode stack (modes.c). */
#ifndef TN_DISPATCH_MODES_H
#define TN_DISPATCH_MODES_H

#include "core/pystate.h"

int tn_modes_init(PyObject *m);
Py_ssize_t tn_dispatch_mode_len(void);
/* Remove and return the innermost mode (new reference), or NULL with RuntimeError if empty. */
PyObject *tn_dispatch_mode_pop_top(void);
/* Put a mode back (on the user stack or its infra slot). */
int tn_dispatch_mode_push(PyObject *mode);
/* After a handler of `mode` (popped with tn_dispatch_mode_pop_top) returned `res`: put the mode back
 * keeping the handler's error, release it, and return res (NULL when the handler or the push failed). */
PyObject *tn_dispatch_mode_restore(PyObject *mode, PyObject *res);
/* True while a torch._C._DisableTorchDispatch guard lives: calls skip the modes. */
bool tn_dispatch_modes_disabled(void);
/* Set that state (also the tensor-subclass stage's switch, subclass.c); returns the previous one. */
bool tn_dispatch_set_disabled(bool on);

#endif
