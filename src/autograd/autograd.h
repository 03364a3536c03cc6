/* autograd.h — the reverse-mode graph: nodes, the engine, recording at the door.
 *
 * A node (torch._C._functions-style object, one Python type per upstream node name such as
 * AddBackward0) is created when an op runs with grad mode on and an input that requires grad.
 * It holds its next edges (one per differentiable input, in schema order), what the formula
 * needs from the forward (arguments saved whole or as metadata, saved outputs) and hooks.
 * The engine (engine.c) runs nodes in upstream's order; formulas (formulas.c) compute input
 * gradients by calling ops through the door, so create_graph records the backward graph too.
 * See docs/ARCHITECTURE.md, "The path of loss.backward()". */
#ifndef TN_AUTOGRAD_H
#define TN_AUTOGRAD_H

#include "dispatch/aten.h"
#include "dispatch/door.h"
#include "core/object.h"

#ifndef Py_SETREF
#define Py_SETREF(dst, src) Py_XSETREF(dst, src)
#endif

typedef struct { PyObject *fn; int nr; } tn_edge;   /* fn: a node (owned) or NULL */

typedef struct {                   /* geometry of a forward tensor, kept without the tensor */
    bool defined;
    tn_dtype dtype;
    int ndim;
    int64_t sizes[8], strides[8];  /* first 8 dims inline */
    int64_t *big;                  /* sizes then strides when ndim > 8 */
    int64_t offset;                /* storage offset (as_strided's backward reads it) */
} tn_meta;

static inline const int64_t *tn_meta_sizes(const tn_meta *m) { return m->ndim > 8 ? m->big : m->sizes; }
static inline const int64_t *tn_meta_strides(const tn_meta *m) { return m->ndim > 8 ? m->big + m->ndim : m->strides; }

enum { TN_NODE_OP, TN_NODE_ACCUMULATE, TN_NODE_ERROR, TN_NODE_PY, TN_NODE_GRAPHROOT };

typedef struct tn_node tn_node;
/* grads: one per forward output (NULL: no gradient flowed); outs: one per next edge (fill or
 * leave NULL). 0 ok, -1 with an exception. */
typedef int (*tn_apply_fn)(tn_node *n, PyObject **grads, PyObject **outs);

struct tn_node {
    PyObject_HEAD
    PyObject *dict, *weakrefs;
    int kind;
    int op;                  /* forward op row (TN_NODE_OP / ERROR), else -1 */
    uint64_t seq;
    tn_apply_fn apply;
    int nnext;
    tn_edge *next;
    int nout;                /* forward outputs = gradients this node receives */
    tn_meta *out_meta;
    /* saved forward (op nodes): args copied (tensors saved whole when the yaml saves them, else
     * NULL with metadata only), per-arg metadata, saved outputs (detached aliases) */
    int nargs;
    tn_value *args;
    int *arg_nmeta;
    tn_meta **arg_meta;
    int *arg_edge;           /* first edge of arg i, -1 when not differentiable */
    int64_t *arg_ver;        /* storage version of saved tensors when saved */
    PyObject **results;
    int64_t *result_ver;
    uint8_t result_diff;     /* saved outputs that were differentiable (unpacked with this grad_fn) */
    bool released;
    bool inplace;
    /* hooks */
    PyObject *pre_hooks, *post_hooks;   /* lists of callables (register_prehook / register_hook) */
    PyObject *tensor_hooks;             /* list of (dict, output_nr): tensors' _backward_hooks */
    PyObject *retains;                  /* list of (weakref to tensor, output_nr): retain_grad */
    PyObject *metadata;                 /* dict */
    PyObject *variable;                 /* AccumulateGrad: the leaf (owned) */
    PyObject *extra;                    /* Python Function nodes: saved tensors tuple, ... */
    PyObject *inner;                    /* CopySlices: the in-place op's node (owned) */
    void *geo;                          /* CopySlices / AsStridedBackward0: geometry (views.c) */
    PyObject *fnstate;                  /* Python Function nodes: the ctx's state (function.c) */
    uint64_t nodiff_out;                /* outputs that are not differentiable: upstream numbers
                                         * output_nr among the differentiable ones (tn_exposed_nr) */
    const char *cpp_name;               /* name() of a node whose type is CppFunction (upstream's
                                         * foreach nodes have no Python class of their own) */
    uint64_t unsaved;                   /* args a save guard left unsaved (an in-place op's self
                                         * whose reading formula is not wanted): _saved_<arg> is
                                         * None, upstream's undefined SavedVariable */
};

/* ---- autograd's fallback for operators without an autograd kernel (record.c) ---- */
/* a hook on t's gradient (its slot in its grad_fn) that gives upstream's UserWarning "<op>: an
 * autograd kernel was not registered to the Autograd key(s) ..." when backward reaches it */
int tn_autograd_add_warn_hook(PyObject *t, const char *opname);
/* a CppFunction node named torch::autograd::WarnNotImplemented for the run-time operator opname
 * (python/library.c), with nnext edges and nout outputs for the caller to fill; its backward warns
 * and gives no gradient */
tn_node *tn_autograd_warn_node(const char *opname, int nnext, int nout);

/* ---- nodes (node.c) ---- */
int tn_autograd_init(PyObject *m);
PyTypeObject *tn_node_type(const char *name);          /* the type for a node name (cached) */
tn_node *tn_node_new(const char *name, int kind, int nnext, int nout);
/* the same with the sequence number given: one reserved before the op ran (upstream makes an
 * in-place op's node before original_self's clone), or TN_SEQ_TAKE for the next one */
#define TN_SEQ_TAKE UINT64_MAX
tn_node *tn_node_new_seq(const char *name, int kind, int nnext, int nout, uint64_t seq);
bool tn_is_node(PyObject *o);
/* the output_nr Python sees for output slot nr of node fn (upstream counts differentiable outputs only) */
int tn_exposed_nr(PyObject *fn, int nr);
extern PyTypeObject *tn_function_base_type;
uint64_t tn_next_sequence_nr(void);
uint64_t tn_peek_sequence_nr(void);   /* the number the next node takes (the profiler's sequence_nr) */
void tn_meta_set(tn_meta *m, const tn_tensor *t);
void tn_meta_clear(tn_meta *m);
/* The gradient edge of a tensor: (grad_fn, output_nr), or its AccumulateGrad when a leaf that
 * requires grad, or (NULL, 0). New reference in e->fn. */
int tn_gradient_edge(PyObject *t, tn_edge *e);
bool tn_requires_grad(PyObject *t);
/* Saved tensor i of an op node / saved output k, checked against in-place modification. New
 * reference, or NULL with an exception. */
PyObject *tn_node_saved_arg(tn_node *n, int i);
PyObject *tn_node_saved_result(tn_node *n, int k);
/* A detached alias of t (same storage and geometry, no autograd history). */
PyObject *tn_detached_alias(PyObject *t);
void tn_node_release(tn_node *n);
PyObject *tn_freed_error(void);     /* "Trying to backward through the graph a second time ..." */   /* free saved values (after backward without retain_graph) */
/* upstream's saved-variable errors name a node without its "Backward<N>" suffix: the length to print */
int tn_node_short_name_len(const char *name);

/* ---- views (views.c) ---- */
int tn_copy_slices(PyObject *self, tn_node *fn);   /* in-place op `fn` ran on view `self` */
int tn_view_regenerate(PyObject *view);
void tn_view_refresh(PyObject *t);                 /* stale view grad_fn -> AsStridedBackward0 */
bool tn_inference_mode(void);                     /* grad_mode.c */
int tn_ng_view_check(PyObject *t);                 /* a no_grad view written since: upstream's error, -1 */
int tn_ng_view_inplace(PyObject *t);               /* in-place with grad mode on on a no_grad view: -1 */
void tn_ng_view_mark(PyObject *res, int op, const tn_value *args);
void tn_ng_view_propagate(PyObject *res, int op, const tn_value *args);   /* record.c: views of them */   /* door.c: outputs made under no_grad */
void tn_geometry_free(void *geo);

/* ---- recording (record.c) ---- */
bool tn_autograd_wants(int op, const tn_value *args);
PyObject *tn_autograd_call(int op, tn_value *args);
PyObject *tn_door_below_autograd(int op, tn_value *args);   /* door.c */
PyObject *tn_door_below_autograd_op(const tn_op_def *d, const tn_schema *s, tn_value *args);   /* door.c: past the math bits */
/* t with its conjugate / negative bits applied: a fresh bit-free tensor (t itself when it has none);
 * door.c */
PyObject *tn_resolve_bits(PyObject *t);

/* ---- formulas (formulas.c) and composite decompositions (decomp.c) ---- */
tn_apply_fn tn_formula_for(int op);
/* the per-element formula of foreach op `op` whose element nodes are recorded as `ref` */
tn_apply_fn tn_foreach_formula(int op, int ref);
/* FunctionsManual's forward-AD helpers of linalg_pinv, linalg_lstsq and linalg_householder_product
 * (formulas.c, docs/breadth_more2.md): new references */
PyObject *tn_pinv_jvp(PyObject *A, PyObject *pinvA, PyObject *dA);
PyObject *tn_lstsq_solution_jvp(PyObject *A, PyObject *B, PyObject *dA, PyObject *dB);
PyObject *tn_lstsq_residuals_jvp(PyObject *A, PyObject *B, PyObject *dA, PyObject *dB, PyObject *X, PyObject *L);
PyObject *tn_householder_product_jvp(PyObject *dV, PyObject *dtau, PyObject *prod, PyObject *V, PyObject *tau);
typedef PyObject *(*tn_decomp_fn)(tn_value *args);
tn_decomp_fn tn_decomp_for(int op);
bool tn_decomp_computes(int op);     /* a decomposition that calls other ops (not a pass-through) */
/* The decomposition table's kind of row op: the row it aliases (>= 0), -1 a decomposition
 * computing through other ops, -2 / -3 the table's pass-through kinds, -100 no entry. */
int tn_decomp_kind(int op);
/* Under a Python dispatch mode, a CompositeImplicitAutograd op reaches the mode decomposed, as
 * upstream's (the Python key sits below the composite kernels): the result, or NULL with
 * *handled false when the op has no decomposition. */
PyObject *tn_composite_under_mode(int op, tn_value *args, bool *handled);
/* a CompositeImplicitAutograd overload that runs as its decomposition (what
 * _dispatch_has_kernel_for_dispatch_key(name, CompositeImplicitAutograd) says) */
bool tn_op_decomposes(int op);
/* Ops are called from C through the typed op API (dispatch/aten.h). */

/* g summed over the dimensions broadcasting added (upstream's at::sum_to): new reference. */
PyObject *tn_sum_to(PyObject *g, int ndim, const int64_t *sizes);

/* ---- torch.autograd.Function (function.c) ---- */
int tn_function_init(PyObject *m);
/* the innermost saved_tensors_hooks (pack, unpack) pair, borrowed, or NULL */
PyObject *tn_saved_hooks_top(void);
/* a saved tensor under those hooks (op nodes: in place of the tensor in args[i] / results[k]) */
PyObject *tn_saved_pack(tn_node *n, PyObject *t, bool is_output);
bool tn_saved_is_packed(PyObject *o);
PyObject *tn_saved_unpack(tn_node *n, PyObject *packed);

/* ---- engine (engine.c) ---- */
int tn_engine_init(PyObject *m);
/* inside a backward pass with inputs=: whether the engine will run node fn (upstream's
 * task_should_compute_output); true outside one */
extern _Thread_local bool tn_engine_filtering;
bool tn_engine_will_execute(PyObject *fn);
int tn_engine_mark_needed(PyObject *fn);   /* CopySlices: its op node's first edge is needed */
/* node n's edge e leads to a node (that the running pass will run) */
static inline bool tn_edge_wanted(const tn_node *n, int e) {
    return e >= 0 && e < n->nnext && n->next[e].fn && (!tn_engine_filtering || tn_engine_will_execute(n->next[e].fn));
}
int tn_retain_grad(PyObject *t);           /* Tensor.retain_grad (node.c) */
/* t aliased behind an Error node raising msg in backward, as torch._C._functions.DelayedError(msg,
 * 1)(t) (function.c); t's alias without a node when gradients are not being recorded */
PyObject *tn_delayed_error(const char *msg, PyObject *t);

/* ---- grad mode (grad_mode.c) ---- */
bool tn_grad_enabled(void);     /* autograd records: grad mode on, not inference mode, not below autograd */
bool tn_grad_mode(void);        /* grad mode alone, as torch.is_grad_enabled() reads it */
bool tn_grad_mode_set(bool on);      /* returns the previous value */
bool tn_below_autograd(void);        /* inside a call autograd runs below itself (grad_mode.c) */
void tn_below_autograd_step(int d);  /* +1 entering it, -1 leaving */
int tn_below_autograd_swap(int d);   /* set the depth (0: record again, a torch.func level's ops), return the old one */
bool tn_anomaly_enabled(void);
bool tn_anomaly_check_nan(void);

#endif
