/* functorch.h — torch.func's transform levels, BatchedTensors and the door's vmap stage
 * (functorch.c; docs/func.md). */
#ifndef TN_DISPATCH_FUNCTORCH_H
#define TN_DISPATCH_FUNCTORCH_H

#include "dispatch/door.h"

enum { TN_LAYER_GRAD = 1, TN_LAYER_JVP = 2, TN_LAYER_VMAP = 3, TN_LAYER_FUNC = 4 };

/* push a layer: its level (1-based), or -1 with an exception; pop returns the level popped */
int tn_functorch_push(int kind, int64_t batch, const char *randomness);
int tn_functorch_pop(int kind);
int tn_functorch_depth(void);
bool tn_functorch_grad_active(void);   /* some grad level is on the stack */
int tn_functorch_kind(int level);
int tn_functorch_innermost(int kind);   /* the level of the innermost layer of a kind, 0: none */
bool tn_functorch_inplace_rg_allowed(void);
void tn_functorch_set_inplace_rg_allowed(bool on);

extern int64_t tn_bt_live;
extern bool tn_vmap_fallback_warn;   /* _set_vmap_fallback_warning_enabled */
int tn_bt_level(PyObject *t);                              /* 0: not a BatchedTensor */
PyObject *tn_bt_make(PyObject *phys, int64_t bdim, int level);
void tn_bt_copy_meta(PyObject *dst, PyObject *src);       /* a C-made alias of a BatchedTensor */

PyObject *tn_wrap_for_grad(PyObject *t, int level);
PyObject *tn_unwrap_for_grad(PyObject *t, int level);
int tn_functorch_dead_results(PyObject **inputs, Py_ssize_t n, PyObject *result);

bool tn_vmap_wants(int op, const tn_value *args);
PyObject *tn_vmap_call(int op, tn_value *args);
/* vmap before forward AD and autograd: the innermost transform is the vmap level of some
 * argument, or the forward stage is below an inner jvp level and the arguments' vmap level is
 * the innermost layer left (above their tangents' levels, no grad level between) */
bool tn_vmap_first(int op, const tn_value *args);
PyObject *tn_door_below_vmap(int op, tn_value *args);     /* door.c */

#endif
