/* forward.h — forward-mode AD (forward.c: levels, tangents, the door's forward stage;
 * forward_formulas.c: the evaluator of derivatives.yaml's forward formulas and upstream's helper
 * functions they call). */
#ifndef TN_AUTOGRAD_FORWARD_H
#define TN_AUTOGRAD_FORWARD_H

#include "autograd/autograd.h"

bool tn_fw_level_active(void);
bool tn_fwd_grad_enabled(void);                    /* grad_mode.c: _set_fwd_grad_enabled */
PyObject *tn_fw_grad(PyObject *t);                 /* borrowed tangent at the current level, or NULL */
PyObject *tn_fw_grad_at(PyObject *t, int level);   /* borrowed tangent at a level, or NULL */
bool tn_fw_any(PyObject *t);                       /* a tangent at some level */
int tn_fw_set(PyObject *self, PyObject *grad, bool inplace);
int tn_fw_set_at(PyObject *self, PyObject *grad, bool inplace, int level);
int tn_fw_copy_levels(PyObject *dst, PyObject *src);
int tn_fw_push_nested(int pos);                       /* torch.func jvp in jvp: a new level, -1 none, -2 error */
void tn_fw_pop_nested(int level);
int tn_fw_cap_pos(void);
int tn_fw_args_pos(const tn_schema *s, const tn_value *args);
bool tn_forward_wants(int op, const tn_value *args);
PyObject *tn_forward_call(int op, tn_value *args);
int tn_fw_output_index(const tn_schema *s, const char *name);
int tn_forward_init(PyObject *m);

#ifdef TN_OPS_GEN_H
/* Evaluate one forward derivative of op (forward_formulas.c): its tangent (a tensor, a tuple for
 * several outputs, or None), new reference; NULL with an exception. */
PyObject *tn_fw_eval(int op, const tn_fw_deriv *d, tn_value *args, const tn_schema *s, PyObject *res,
                     PyObject **outs, int nouts, PyObject *orig_self, bool inplace);
#endif

#endif
