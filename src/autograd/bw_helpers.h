/* bw_helpers.h — what backward formulas are written with, generated (tn_bw_gen.c, by
 * tools/bw_formulas.py from derivatives.yaml) and hand-written (formulas.c): which inputs want a
 * gradient, where it goes, the saved inputs and outputs, and the small helpers upstream's formula
 * text names (docs/bw_formulas.md). */
#ifndef TN_AUTOGRAD_BW_HELPERS_H
#define TN_AUTOGRAD_BW_HELPERS_H

#include "autograd/autograd.h"
#include "dispatch/aten.h"

/* argument `arg`'s gradient is wanted: it has an edge to a node */
static inline bool need(tn_node *n, int arg) {
    int e = n->arg_edge[arg];
    return e >= 0 && e < n->nnext && n->next[e].fn;
}
/* the gradient of argument `arg` (steals v) */
static inline void put(tn_node *n, PyObject **o, int arg, PyObject *v) { o[n->arg_edge[arg]] = v; }
static inline PyObject *saved(tn_node *n, int i) { return tn_node_saved_arg(n, i); }     /* new ref */
static inline PyObject *result(tn_node *n, int k) { return tn_node_saved_result(n, k); }  /* new ref */

/* x.conj(): a conjugate view through the door for a complex x, x itself otherwise (upstream's
 * conj() returns self for a real tensor, recording nothing). New reference; x is borrowed. */
static inline PyObject *tn_bw_conj(PyObject *x) {
    return tn_dtype_is_complex(tn_tensor_of(x)->dtype) ? tn_at_conj(x) : Py_NewRef(x);
}

/* float? from a node's parsed argument: a pointer to its value, NULL for None */
static inline const double *tn_bw_opt_float(const tn_value *v) { return v->tag == TN_V_FLOAT ? &v->u.f : NULL; }

/* the generated formula of op row `op` (tn_bw_gen.c), NULL when derivatives.yaml's formula was not
 * translated (formulas.c then has it, or the row has none) */
tn_apply_fn tn_bw_gen_for(int op);

#endif
