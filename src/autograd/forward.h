/* forward.h — forward-mode AD (forward.c: levels, tangents, the door's forward stage;
 * forward_formulas.c: the evaluator of derivatives.yaml's forward formulas and upstream's helper
 * functions they call). */
#ifndef TN_AUTOGRAD_FORWARD_H
#define TN_AUTOGRAD_FORWARD_H

#include "autograd/autograd.h"

bool tn_fw_level_active(void);
bool tn_fwd_grad_enabled(void);                    /* grad_mode.c: _set_fwd_grad_enabled */
PyObject *tn_fw_grad(PyObject *t);                 /* borrowed tangent at level 0, or NULL */
int tn_fw_set(PyObject *self, PyObject *grad, bool inplace);
bool tn_forward_wants(int op, const tn_value *args);
PyObject *tn_forward_call(int op, tn_value *args);
int tn_fw_output_index(const tn_schema *s, const char *name);
void tn_fw_off_push(void);
void tn_fw_off_pop(void);
int tn_forward_init(PyObject *m);

#ifdef TN_OPS_GEN_H
/* Evaluate one forward derivative of op (forward_formulas.c): its tangent (a tensor, a tuple for
 * several outputs, or None), new reference; NULL with an exception. */
PyObject *tn_fw_eval(int op, const tn_fw_deriv *d, tn_value *args, const tn_schema *s, PyObject *res,
                     PyObject **outs, int nouts, PyObject *orig_self, bool inplace);
#endif

#endif
