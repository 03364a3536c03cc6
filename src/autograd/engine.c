/* engine.c — torch._C._ImperativeEngine: runs a backward pass over the recorded graph.
 *
 * As upstream's engine: dependencies counted from the roots; a ready queue ordered by sequence
 * number, highest first (AccumulateGrad carries the largest, so a leaf's gradient is accumulated
 * as soon as it is complete); per node, tensor pre-hooks (Tensor.register_hook, retain_grad),
 * node pre-hooks, the formula (with grad mode = create_graph), node post-hooks; gradients flowing
 * into one input slot are summed; with inputs= only nodes leading to those inputs run, and
 * autograd.grad (accumulate_grad=False) captures gradients instead of accumulating them. Saved
 * values are freed after a node runs unless retain_graph. See docs/ARCHITECTURE.md. */
#include "core/profiler.h"
#include "autograd/autograd.h"
#include "dispatch/functorch.h"
#include "dispatch/modes.h"

#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

/* ---- AccumulateGrad ---- */

static bool same_strides(const tn_tensor *a, const tn_tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] > 1 && a->strides[d] != b->strides[d])) return false;
    return true;
}

/* Calls each hook of `dict` on arg (or on *replace, which a hook's non-None result replaces). With
 * none_msg, a hook returning anything but None is a RuntimeError of that message. */
static int run_dict_hooks(PyObject *dict, PyObject *arg, PyObject **replace, const char *none_msg) {
    if (!dict || dict == Py_None) return 0;
    PyObject *vals = PyMapping_Values(dict);
    if (!vals) return -1;
    for (Py_ssize_t i = 0; i < PyList_Size(vals); i++) {
        PyObject *r = PyObject_CallFunctionObjArgs(PyList_GetItem(vals, i), replace ? *replace : arg, NULL);
        if (!r) { Py_DECREF(vals); return -1; }
        if (none_msg && r != Py_None) {
            Py_DECREF(r);
            Py_DECREF(vals);
            PyErr_SetString(PyExc_RuntimeError, none_msg);
            return -1;
        }
        if (replace && r != Py_None) Py_SETREF(*replace, r);
        else Py_DECREF(r);
    }
    Py_DECREF(vals);
    return 0;
}

int tn_accumulate_apply(tn_node *n, PyObject **grads, PyObject **outs) {
    PyObject *var = n->variable, *g = grads[0];
    if (!g || !var) return 0;
    tn_tensor_obj *v = (tn_tensor_obj *)var;
    bool gm = tn_grad_enabled();
    if (!v->grad) {
        const tn_tensor *gt = tn_tensor_of(g);
        /* steal, as upstream: no other reference to the gradient, and it has the variable's layout;
         * a sparse gradient is kept sparse (stolen, or cloned) */
        if (tn_sparse_of(g)) {
            /* upstream steals contiguous indices and values into a new sparse tensor (whose
             * coalesced flag is not carried over), else clones */
            const tn_sparse *sg = tn_sparse_of(g);
            bool steal = !gm && Py_REFCNT(g) <= 1 && tn_is_contiguous(tn_tensor_of(sg->indices)) &&
                         tn_is_contiguous(tn_tensor_of(sg->values));
            v->grad = steal ? tn_at__sparse_coo_tensor_unsafe(sg->indices, sg->values, TN_IN(gt->sizes, gt->ndim), NULL, NULL, NULL,
                                                              NULL, NULL)
                            : tn_at_clone(g, NULL);
        } else if (v->sparse) {   /* a dense gradient of a sparse variable: a contiguous clone */
            v->grad = tn_at_clone(g, tn_py.memory_format_contiguous);
        } else if (!gm && Py_REFCNT(g) <= 1 && same_strides(gt, &v->t) && gt->dtype == v->t.dtype) {
            v->grad = tn_at_detach(g);
        } else {
            /* in the variable's options, as upstream's (a mode sees dtype, layout and device) */
            PyObject *e = tn_at_new_empty_strided(g, TN_IN(v->t.sizes, v->t.ndim), TN_IN(v->t.strides, v->t.ndim),
                                                  TN_DT(v->t.dtype), tn_py.layout_strided,
                                                  v->t.storage->device == TN_DEVICE_META ? tn_py.device_meta : tn_py.device_cpu, NULL);
            PyObject *c = e ? tn_at_copy_(e, g, false) : NULL;
            Py_XDECREF(e);
            if (!c) return -1;
            v->grad = c;
        }
        if (!v->grad) return -1;
    } else if (!gm) {
        PyObject *r = tn_at_add__Tensor(v->grad, g, TN_SDEF);
        if (!r) return -1;
        Py_DECREF(r);
    } else {
        PyObject *r = tn_at_add_Tensor(v->grad, g, TN_SDEF);
        if (!r) return -1;
        Py_SETREF(v->grad, r);
    }
    PyObject *hooks = PyObject_GetAttrString(var, "_post_accumulate_grad_hooks");
    if (!hooks && !PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    if (!hooks) { PyErr_Clear(); hooks = Py_NewRef(Py_None); }
    int r = run_dict_hooks(hooks, var, NULL, "Tensor post accumulate grad hooks should return None.");
    Py_DECREF(hooks);
    return r;
}

/* ---- one run ---- */

typedef struct {
    tn_node *node;      /* borrowed: the run holds the graph through the roots */
    int deps;
    PyObject **buf;     /* nout gradients (owned) */
    bool needed, captured, visited, queued;
} slot;

typedef struct {
    slot *s;
    int n, cap;
    int *table;         /* open addressing: node -> slot index + 1 */
    int tcap;
    int *heap, nheap;   /* ready queue: slot indices, max-heap by seq */
    bool filtered;      /* inputs= given: only needed or captured nodes run */
} run;

static size_t hash_ptr(const void *p) { uintptr_t x = (uintptr_t)p; x ^= x >> 17; x *= 0x9E3779B97F4A7C15ull; return (size_t)(x >> 7); }

static int find_slot(run *r, tn_node *nd, bool create) {
    if (r->tcap == 0 || (r->n + 1) * 2 > r->tcap) {
        int ncap = r->tcap ? r->tcap * 2 : 64;
        int *nt = calloc((size_t)ncap, sizeof *nt);
        if (!nt) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < r->n; i++) {
            size_t h = hash_ptr(r->s[i].node) & (size_t)(ncap - 1);
            while (nt[h]) h = (h + 1) & (size_t)(ncap - 1);
            nt[h] = i + 1;
        }
        free(r->table);
        r->table = nt;
        r->tcap = ncap;
    }
    size_t h = hash_ptr(nd) & (size_t)(r->tcap - 1);
    while (r->table[h]) {
        if (r->s[r->table[h] - 1].node == nd) return r->table[h] - 1;
        h = (h + 1) & (size_t)(r->tcap - 1);
    }
    if (!create) return -2;
    if (r->n == r->cap) {
        int ncap = r->cap ? r->cap * 2 : 32;
        slot *ns = realloc(r->s, (size_t)ncap * sizeof *ns);
        if (!ns) { PyErr_NoMemory(); return -1; }
        r->s = ns;
        r->cap = ncap;
    }
    slot *s = &r->s[r->n];
    memset(s, 0, sizeof *s);
    s->node = nd;
    s->buf = calloc((size_t)(nd->nout ? nd->nout : 1), sizeof(PyObject *));
    if (!s->buf) { PyErr_NoMemory(); return -1; }
    r->table[h] = r->n + 1;
    return r->n++;
}

static void run_free(run *r) {
    for (int i = 0; i < r->n; i++) {
        for (int k = 0; k < r->s[i].node->nout; k++) Py_XDECREF(r->s[i].buf[k]);
        free(r->s[i].buf);
    }
    free(r->s); free(r->table); free(r->heap);
}

static bool before(run *r, int a, int b) { return r->s[a].node->seq > r->s[b].node->seq; }

static int push_ready(run *r, int i) {
    if (r->s[i].queued) return 0;
    r->s[i].queued = true;
    int *nh = realloc(r->heap, (size_t)(r->nheap + 1) * sizeof *nh);
    if (!nh) { PyErr_NoMemory(); return -1; }
    r->heap = nh;
    int k = r->nheap++;
    r->heap[k] = i;
    while (k > 0 && before(r, r->heap[k], r->heap[(k - 1) / 2])) {
        int p = (k - 1) / 2, t = r->heap[p];
        r->heap[p] = r->heap[k]; r->heap[k] = t; k = p;
    }
    return 0;
}

/* std::priority_queue's pop (libstdc++'s pop_heap: the hole walks down to a leaf along the
 * higher child, then the last element sifts up from there), so nodes of equal sequence number
 * (AccumulateGrad) leave in upstream's order. */
static int pop_ready(run *r) {
    int *h = r->heap, top = h[0], len = --r->nheap;
    if (len == 0) return top;
    int value = h[len], hole = 0, second = 0;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (before(r, h[second - 1], h[second])) second--;
        h[hole] = h[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        h[hole] = h[second - 1];
        hole = second - 1;
    }
    int parent = (hole - 1) / 2;
    while (hole > 0 && before(r, value, h[parent])) {
        h[hole] = h[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    h[hole] = value;
    return top;
}

/* Count dependencies over the graph reachable from the roots. With inputs= (ntargets >= 0), as
 * upstream's GraphTask::init_to_execute: backward(inputs=) marks the inputs' nodes needed,
 * autograd.grad marks them captured; then a node is needed when one of its next nodes is needed
 * or captured (decided in reverse topological order). Without inputs= every node is needed. */
static int discover(run *r, tn_node **roots, int nroots, tn_node **targets, int ntargets, bool accumulate) {
    int *stack = NULL, ns = 0, cap = 0, *order = NULL, *left = NULL;
    for (int i = 0; i < nroots; i++) {
        int s = find_slot(r, roots[i], true);
        if (s < 0) goto fail;
        if (r->s[s].visited) continue;
        r->s[s].visited = true;
        if (ns == cap) { cap = cap ? cap * 2 : 64; int *t = realloc(stack, (size_t)cap * sizeof *t); if (!t) goto nomem; stack = t; }
        stack[ns++] = s;
    }
    while (ns) {
        tn_node *nd = r->s[stack[--ns]].node;
        for (int e = 0; e < nd->nnext; e++) {
            tn_node *nx = (tn_node *)nd->next[e].fn;
            if (!nx) continue;
            int s = find_slot(r, nx, true);
            if (s < 0) goto fail;
            r->s[s].deps++;
            if (!r->s[s].visited) {
                r->s[s].visited = true;
                if (ns == cap) { cap = cap ? cap * 2 : 64; int *t = realloc(stack, (size_t)cap * sizeof *t); if (!t) goto nomem; stack = t; }
                stack[ns++] = s;
            }
        }
    }
    free(stack);
    stack = NULL;
    if (ntargets < 0) {
        for (int i = 0; i < r->n; i++) r->s[i].needed = true;
        return 0;
    }
    r->filtered = true;
    for (int i = 0; i < ntargets; i++) {
        int s = targets[i] ? find_slot(r, targets[i], false) : -2;
        if (s < 0) continue;
        if (accumulate) r->s[s].needed = true;
        else r->s[s].captured = true;
    }
    /* topological order (Kahn's, over a copy of the dependency counts), then needed from the
     * leaves up */
    int n = r->n, no = 0, head = 0;
    order = malloc((size_t)(n ? n : 1) * sizeof *order);
    left = malloc((size_t)(n ? n : 1) * sizeof *left);
    if (!order || !left) goto nomem;
    for (int i = 0; i < n; i++) { left[i] = r->s[i].deps; if (!left[i]) order[no++] = i; }
    while (head < no) {
        tn_node *nd = r->s[order[head++]].node;
        for (int e = 0; e < nd->nnext; e++) {
            if (!nd->next[e].fn) continue;
            int s = find_slot(r, (tn_node *)nd->next[e].fn, false);
            if (s >= 0 && --left[s] == 0) order[no++] = s;
        }
    }
    for (int k = no - 1; k >= 0; k--) {
        slot *sl = &r->s[order[k]];
        for (int e = 0; !sl->needed && e < sl->node->nnext; e++) {
            if (!sl->node->next[e].fn) continue;
            int s = find_slot(r, (tn_node *)sl->node->next[e].fn, false);
            if (s >= 0 && (r->s[s].needed || r->s[s].captured)) sl->needed = true;
        }
    }
    free(order); free(left);
    return 0;
nomem:
    PyErr_NoMemory();
fail:
    free(stack); free(order); free(left);
    return -1;
}

/* The run whose formulas are executing (a thread's backward passes nest): with inputs= a formula
 * computes the gradient of an input only when the engine will run the node it flows to
 * (upstream's task_should_compute_output, through need() in bw_helpers.h). */
static _Thread_local run *current_run;
_Thread_local bool tn_engine_filtering;

static bool should_execute(run *r, int s) { return s >= 0 && (!r->filtered || r->s[s].needed || r->s[s].captured); }

bool tn_engine_will_execute(PyObject *fn) {
    run *r = current_run;
    return !r || !r->filtered || should_execute(r, find_slot(r, (tn_node *)fn, false));
}

/* CopySlices' update_exec_info: its op node's first edge (the view's history before the write)
 * is not part of the discovered graph; it is needed as the CopySlices' own first edge is. */
int tn_engine_mark_needed(PyObject *fn) {
    run *r = current_run;
    if (!r || !r->filtered) return 0;
    int s = find_slot(r, (tn_node *)fn, true);
    if (s < 0) return -1;
    r->s[s].needed = true;
    return 0;
}

/* Sum `g` into a buffer slot (steals g). */
/* upstream's InputBuffer::accumulate: with grad mode off, a buffer tensor nothing else holds (its
 * only reference and its storage's, dense, a plain torch.Tensor on CPU) takes the sum in place
 * (aten::add_), otherwise old + new (aten::add); the same values either way. Under a
 * TorchDispatchMode upstream's gradients have been through Python (their use count is not one:
 * measured, a mode sees aten.add.Tensor), so there it is always old + new. */
static bool can_accumulate_inplace(PyObject *v) {
    if (Py_TYPE(v) != tn_py.tensor_class || Py_REFCNT(v) != 1) return false;
    const tn_tensor *t = tn_tensor_of(v);
    const tn_storage *s = t->storage;
    return s->refcnt == 1 && !s->alias_of && !s->aliases && !s->release && s->device == TN_DEVICE_CPU && !t->math_bits &&
           (tn_is_contiguous(t) || (t->ndim == 4 && tn_is_contiguous_as(t, 2)) || (t->ndim == 5 && tn_is_contiguous_as(t, 3)));
}

static int buffer_add(PyObject **slotp, PyObject *g) {
    if (!*slotp) { *slotp = g; return 0; }
    if (!tn_grad_enabled() && (tn_dispatch_mode_len() == 0 || tn_dispatch_modes_disabled()) && can_accumulate_inplace(*slotp)) {
        const tn_tensor *o = tn_tensor_of(*slotp), *n = tn_tensor_of(g);
        bool same = o->ndim == n->ndim && o->dtype == n->dtype;
        for (int d = 0; same && d < o->ndim; d++) same = o->sizes[d] == n->sizes[d];
        if (same) {
            PyObject *s = tn_at_add__Tensor(*slotp, g, TN_SDEF);
            Py_DECREF(g);
            if (!s) return -1;
            Py_SETREF(*slotp, s);
            return 0;
        }
    }
    PyObject *s = tn_at_add_Tensor(*slotp, g, TN_SDEF);
    Py_DECREF(g);
    if (!s) return -1;
    Py_SETREF(*slotp, s);
    return 0;
}

/* Make a gradient fit the tensor it is for: sum broadcast dimensions, cast the dtype
 * (upstream's validate_outputs). Steals g; returns the fitted gradient or NULL. */
static PyObject *fit(tn_node *from, int idx, PyObject *g, const tn_meta *m) {
    const tn_tensor *t = tn_tensor_of(g);
    const int64_t *ms = tn_meta_sizes(m);
    bool same = t->ndim == m->ndim;
    for (int d = 0; same && d < m->ndim; d++) same = t->sizes[d] == ms[d];
    if (!same) {
        int64_t tn = tn_numel(t), mn = 1;
        for (int d = 0; d < m->ndim; d++) mn *= ms[d];
        int lead = t->ndim - m->ndim;
        bool expandable = lead >= 0;
        for (int d = 0; expandable && d < m->ndim; d++)
            expandable = ms[d] == t->sizes[lead + d] || ms[d] == 1;
        if (!expandable && tn != mn) {
            /* sizes print as upstream's IntArrayRef: [2, 3] */
            PyObject *got = PyList_New(t->ndim), *want = PyList_New(m->ndim);
            for (int d = 0; got && d < t->ndim; d++) PyList_SetItem(got, d, PyLong_FromLongLong(t->sizes[d]));
            for (int d = 0; want && d < m->ndim; d++) PyList_SetItem(want, d, PyLong_FromLongLong(ms[d]));
            PyErr_Format(PyExc_RuntimeError, "Function %s returned an invalid gradient at index %d - got %S but expected shape compatible with %S",
                         tn_py_type_name((PyObject *)from), idx, got ? got : Py_None, want ? want : Py_None);
            Py_XDECREF(got); Py_XDECREF(want); Py_DECREF(g);
            return NULL;
        }
        PyObject *r;
        if (expandable) {
            r = tn_sum_to(g, m->ndim, ms);
        } else {
            r = tn_at_reshape(g, TN_IN(ms, m->ndim));
        }
        Py_DECREF(g);
        if (!r) return NULL;
        g = r;
    }
    if (tn_tensor_of(g)->dtype != m->dtype) {
        PyObject *r = tn_at__to_copy(g, TN_DT(m->dtype), NULL, NULL, NULL, false, NULL);
        Py_DECREF(g);
        g = r;
    }
    return g;
}

static _Thread_local PyObject *final_callbacks;   /* queue_callback during a run */
static _Thread_local int run_depth;
static _Thread_local int64_t graph_task = -1;    /* torch._C._current_graph_task_id(): -1 outside backward */
static int64_t graph_tasks;

typedef struct { tn_node *node; int nr; PyObject *tensor; PyObject *grad; } capture;

static int call_tensor_hooks(tn_node *nd, PyObject **buf) {
    if (nd->kind == TN_NODE_ACCUMULATE && nd->variable && buf[0]) {
        PyObject *d = PyObject_GetAttrString(nd->variable, "_backward_hooks");
        if (!d && !PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        if (!d) { PyErr_Clear(); d = Py_NewRef(Py_None); }
        int r = run_dict_hooks(d, NULL, &buf[0], NULL);
        Py_DECREF(d);
        if (r < 0) return -1;
    }
    for (Py_ssize_t i = 0; nd->tensor_hooks && i < PyList_Size(nd->tensor_hooks); i++) {
        PyObject *pair = PyList_GetItem(nd->tensor_hooks, i);
        int nr = (int)PyLong_AsLong(PyTuple_GetItem(pair, 1));
        if (nr < 0 || nr >= nd->nout || !buf[nr]) continue;
        if (run_dict_hooks(PyTuple_GetItem(pair, 0), NULL, &buf[nr], NULL) < 0) return -1;
    }
    for (Py_ssize_t i = 0; nd->retains && i < PyList_Size(nd->retains); i++) {
        PyObject *pair = PyList_GetItem(nd->retains, i);
        PyObject *t = PyWeakref_GetObject(PyTuple_GetItem(pair, 0));
        int nr = (int)PyLong_AsLong(PyTuple_GetItem(pair, 1));
        if (!t) return -1;
        if (t == Py_None || nr >= nd->nout || !buf[nr]) continue;
        tn_tensor_obj *o = (tn_tensor_obj *)t;
        if (!o->retains_grad || o->grad_fn != (PyObject *)nd) continue;
        PyObject *ng = o->grad ? tn_at_add_Tensor(o->grad, buf[nr], TN_SDEF)
                               : tn_at_clone(buf[nr], tn_py.memory_format_contiguous);
        if (!ng) return -1;
        Py_XSETREF(o->grad, ng);
    }
    return 0;
}

static PyObject *tuple_of(PyObject **v, int n) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SetItem(t, i, Py_NewRef(v[i] ? v[i] : Py_None));
    return t;
}
static int untuple(PyObject *t, PyObject **v, int n, const char *what) {
    if (!PyTuple_Check(t) && !PyList_Check(t)) {
        PyErr_Format(PyExc_TypeError, "%s hook must return a tuple or None", what);
        return -1;
    }
    if (PySequence_Size(t) != n) {
        PyErr_Format(PyExc_RuntimeError, "%s hook returned %zd values, expected %d", what, PySequence_Size(t), n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *e = PySequence_GetItem(t, i);
        if (!e) return -1;
        Py_XSETREF(v[i], e == Py_None ? NULL : e);
        if (e == Py_None) Py_DECREF(e);
    }
    return 0;
}

/* anomaly mode: say which forward call made the node that failed (a warning, as upstream's),
 * keeping the error */
static void anomaly_report(tn_node *nd) {
    if (!tn_anomaly_enabled()) return;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyObject *st = nd->metadata ? PyDict_GetItemString(nd->metadata, "traceback_") : NULL;
    PyObject *sep = PyUnicode_FromString("");
    PyObject *text = st && sep ? PyUnicode_Join(sep, st) : NULL;
    if (text)
        PyErr_WarnFormat(PyExc_UserWarning, 1, "Error detected in %s. Traceback of forward call that caused the error:\n%U",
                         tn_py_type_name((PyObject *)nd), text);
    else
        PyErr_WarnFormat(PyExc_UserWarning, 1, "Error detected in %s. No forward pass information available. "
                         "Enable detect anomaly during forward pass for more information.", tn_py_type_name((PyObject *)nd));
    Py_XDECREF(sep); Py_XDECREF(text);
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
}

static int check_nan(tn_node *nd, PyObject **outs) {
    for (int e = 0; e < nd->nnext; e++) {
        if (!outs[e] || !tn_dtype_is_floating(tn_tensor_of(outs[e])->dtype)) continue;
        PyObject *m = tn_at_isnan(outs[e]);
        PyObject *a = m ? tn_at_any(m) : NULL;
        int bad = a ? PyObject_IsTrue(a) : -1;
        Py_XDECREF(m); Py_XDECREF(a);
        if (bad < 0) return -1;
        if (bad) {
            PyErr_Format(PyExc_RuntimeError, "Function '%s' returned nan values in its %dth output.",
                         tn_py_type_name((PyObject *)nd), e);
            return -1;
        }
    }
    return 0;
}

/* The profiler's backward scopes (core/profiler.h), as upstream's engine opens them:
 * "autograd::engine::evaluate_function: <name>" around a node's whole evaluation, and "<name>"
 * (RecordScope BACKWARD_FUNCTION) around its apply; the node's sequence number (-1 for
 * AccumulateGrad) and the forward thread. The ops a node calls are above autograd again. */
static int64_t prof_node_begin(tn_node *nd, bool inner, PyObject **grads) {
    PyObject *nm = PyObject_CallMethod((PyObject *)nd, "name", NULL);
    const char *c = nm ? PyUnicode_AsUTF8AndSize(nm, NULL) : NULL;
    if (!c) { PyErr_Clear(); Py_XDECREF(nm); return -1; }
    char buf[320];
    snprintf(buf, sizeof buf, "%s%s", inner ? "" : "autograd::engine::evaluate_function: ", c);
    bool acc = nd->kind == TN_NODE_ACCUMULATE;
    int64_t seq = acc || nd->seq == UINT64_MAX ? -1 : (int64_t)nd->seq;
    int64_t h = tn_prof_begin(buf, "", inner ? TN_PROF_SCOPE_BACKWARD_FUNCTION : TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_OP,
                              seq, acc ? 0 : tn_prof_thread_id());
    Py_DECREF(nm);
    if (h >= 0 && inner && tn_prof_record_inputs()) {   /* the node's inputs: the incoming gradients */
        /* the gradients of the differentiable outputs only (upstream's node has no input for
         * nll_loss's total_weight or attention's logsumexp) */
        tn_prof_input *in = calloc((size_t)(nd->nout ? nd->nout : 1), sizeof *in);
        int n = 0;
        for (int k = 0; in && k < nd->nout; k++) {
            if (k < 64 && (nd->nodiff_out >> k & 1)) continue;
            if (grads[k]) tn_prof_input_tensor(&in[n], tn_tensor_of(grads[k]));
            else in[n].kind = TN_PI_NONE;
            n++;
        }
        if (in) tn_prof_set_inputs(h, in, n);
    }
    return h;
}

static int execute_node(run *r, int si, bool keep_graph, bool create_graph, bool accumulate, capture *caps, int ncaps);
/* A node's whole evaluation (hooks, formula, fitting and summing its outputs) runs with grad mode
 * = create_graph, as upstream's GraphTask sets it for the backward pass. */
static int execute(run *r, int si, bool keep_graph, bool create_graph, bool accumulate, capture *caps, int ncaps) {
    bool gm = tn_grad_mode_set(create_graph);
    int rc;
    if (__builtin_expect(!tn_prof_on, 1)) {
        rc = execute_node(r, si, keep_graph, create_graph, accumulate, caps, ncaps);
    } else {
        int64_t h = prof_node_begin(r->s[si].node, false, NULL);
        int was = tn_prof_set_below(0), was_nested = tn_prof_set_nested(1);
        rc = execute_node(r, si, keep_graph, create_graph, accumulate, caps, ncaps);
        tn_prof_set_below(was);
        tn_prof_set_nested(was_nested);
        tn_prof_end(h);
    }
    tn_grad_mode_set(gm);
    return rc;
}

static void capture_grads(tn_node *nd, PyObject **buf, capture *caps, int ncaps) {
    for (int c = 0; c < ncaps; c++)
        if (caps[c].node == nd && caps[c].nr < nd->nout && buf[caps[c].nr])
            Py_XSETREF(caps[c].grad, Py_NewRef(buf[caps[c].nr]));
}

static int execute_node(run *r, int si, bool keep_graph, bool create_graph, bool accumulate, capture *caps, int ncaps) {
    tn_node *nd = r->s[si].node;
    PyObject **buf = r->s[si].buf;
    bool needed = r->s[si].needed, captured = r->s[si].captured;
    int rc = -1;
    PyObject **outs = calloc((size_t)(nd->nnext ? nd->nnext : 1), sizeof *outs);
    if (!outs) { PyErr_NoMemory(); return -1; }
    /* upstream's evaluate_function: a node that is not needed (only captured, or a root leading
     * to no input) runs its tensor pre-hooks and retain_grad, gives its captures the hooked
     * gradients and stops; a needed node's captures take the gradients as they arrived */
    if (!needed) {
        if (call_tensor_hooks(nd, buf) < 0) goto done;
        capture_grads(nd, buf, caps, ncaps);
        rc = 0;
        goto done;
    }
    if (captured) capture_grads(nd, buf, caps, ncaps);
    if (call_tensor_hooks(nd, buf) < 0) goto done;
    if (nd->pre_hooks && PyList_Size(nd->pre_hooks)) {
        for (Py_ssize_t i = 0; i < PyList_Size(nd->pre_hooks); i++) {
            PyObject *t = tuple_of(buf, nd->nout);
            PyObject *res = t ? PyObject_CallFunctionObjArgs(PyList_GetItem(nd->pre_hooks, i), t, NULL) : NULL;
            Py_XDECREF(t);
            if (!res) goto done;
            int u = res == Py_None ? 0 : untuple(res, buf, nd->nout, "backward pre");
            Py_DECREF(res);
            if (u < 0) goto done;
        }
    }
    if (nd->kind == TN_NODE_ACCUMULATE && !accumulate) { rc = 0; goto done; }
    bool any = false;
    for (int k = 0; k < nd->nout; k++) any |= buf[k] != NULL;
    if (any || nd->kind == TN_NODE_PY) {
        bool was = tn_grad_mode_set(create_graph);
        int64_t ph = tn_prof_on ? prof_node_begin(nd, true, buf) : -1;
        int a = nd->apply(nd, buf, outs);
        tn_prof_end(ph);
        tn_grad_mode_set(was);
        if (a < 0) { anomaly_report(nd); goto done; }
        if (tn_anomaly_check_nan() && check_nan(nd, outs) < 0) { anomaly_report(nd); goto done; }
    }
    if (nd->post_hooks && PyList_Size(nd->post_hooks)) {
        for (Py_ssize_t i = 0; i < PyList_Size(nd->post_hooks); i++) {
            PyObject *gi = tuple_of(outs, nd->nnext), *go = tuple_of(buf, nd->nout);
            PyObject *res = gi && go ? PyObject_CallFunctionObjArgs(PyList_GetItem(nd->post_hooks, i), gi, go, NULL) : NULL;
            Py_XDECREF(gi); Py_XDECREF(go);
            if (!res) goto done;
            int u = res == Py_None ? 0 : untuple(res, outs, nd->nnext, "backward");
            Py_DECREF(res);
            if (u < 0) goto done;
        }
    }
    if (!keep_graph) tn_node_release(nd);
    /* every output fitted to its input first (upstream's validate_outputs), then summed into the
     * next nodes' buffers */
    for (int e = 0; e < nd->nnext; e++) {
        tn_node *nx = (tn_node *)nd->next[e].fn;
        if (!nx) { Py_CLEAR(outs[e]); continue; }
        int nr = nd->next[e].nr;
        if (outs[e] && nr < nx->nout && nx->out_meta[nr].defined) {
            PyObject *g = fit(nd, e, outs[e], &nx->out_meta[nr]);
            outs[e] = g;
            if (!g) goto done;
        }
    }
    for (int e = 0; e < nd->nnext; e++) {
        tn_node *nx = (tn_node *)nd->next[e].fn;
        if (!nx) continue;
        int s = find_slot(r, nx, false);
        if (s < 0 && !r->filtered) { PyErr_SetString(PyExc_RuntimeError, "autograd engine: edge to an undiscovered node"); goto done; }
        if (!should_execute(r, s)) { Py_CLEAR(outs[e]); continue; }   /* upstream drops it */
        if (outs[e]) {
            int nr = nd->next[e].nr;
            PyObject *g = outs[e];
            outs[e] = NULL;
            if (nr >= nx->nout) { Py_DECREF(g); continue; }
            if (buffer_add(&r->s[s].buf[nr], g) < 0) goto done;
        }
        if (--r->s[s].deps == 0 && push_ready(r, s) < 0) goto done;
    }
    rc = 0;
done:
    for (int e = 0; e < nd->nnext; e++) Py_XDECREF(outs[e]);
    free(outs);
    for (int k = 0; k < nd->nout; k++) Py_CLEAR(buf[k]);
    return rc;
}

/* run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=(), allow_unreachable=False,
 * accumulate_grad=True) */
static PyObject *run_backward(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "grad_tensors", "keep_graph", "create_graph", "inputs",
                          "allow_unreachable", "accumulate_grad", NULL};
    PyObject *tensors, *grads, *inputs = NULL;
    int keep = 0, create = 0, allow_unreachable = 0, accumulate = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOpp|Opp:run_backward", kws, &tensors, &grads, &keep, &create,
                                     &inputs, &allow_unreachable, &accumulate))
        return NULL;
    /* inside a torch.func grad level the graph is shared with the levels below it (one engine,
     * docs/func.md): a level's backward keeps the saved values the outer levels still need */
    if (tn_functorch_grad_active()) keep = 1;
    PyObject *ts = PySequence_Tuple(tensors), *gs = ts ? PySequence_Tuple(grads) : NULL;
    PyObject *ins = gs && inputs && inputs != Py_None ? PySequence_Tuple(inputs) : NULL;
    if (!gs || (inputs && inputs != Py_None && !ins)) { Py_XDECREF(ts); Py_XDECREF(gs); return NULL; }
    if (ins && PyTuple_Size(ins) == 0) Py_CLEAR(ins);   /* inputs=() means every leaf */
    Py_ssize_t nt = PyTuple_Size(ts), ni = ins ? PyTuple_Size(ins) : 0;
    run r = {0};
    tn_node **roots = calloc((size_t)nt + 1, sizeof *roots), **targets = calloc((size_t)ni + 1, sizeof *targets);
    capture *caps = calloc((size_t)ni + 1, sizeof *caps);
    PyObject *rootrefs = PyList_New(0), *result = NULL;
    if (!roots || !targets || !caps || !rootrefs) { PyErr_NoMemory(); goto done; }
    if (PyTuple_Size(gs) != nt) {
        PyErr_Format(PyExc_RuntimeError, "got %zd tensors and %zd gradients", nt, PyTuple_Size(gs));
        goto done;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *t = PyTuple_GetItem(ts, i);
        tn_edge e = {0};
        if (tn_py_is_tensor(t)) {
            if (tn_gradient_edge(t, &e) < 0) goto done;
        } else if (PyTuple_Check(t) && PyTuple_Size(t) == 2 && tn_is_node(PyTuple_GetItem(t, 0))) {  /* GradientEdge */
            e.fn = Py_NewRef(PyTuple_GetItem(t, 0));
            e.nr = (int)PyLong_AsLong(PyTuple_GetItem(t, 1));
        } else {
            PyErr_SetString(PyExc_TypeError, "run_backward: expected Tensors or GradientEdges");
            goto done;
        }
        if (!e.fn) {
            PyErr_Format(PyExc_RuntimeError, "element %zd of tensors does not require grad and does not have a grad_fn", i);
            goto done;
        }
        PyList_Append(rootrefs, e.fn);
        Py_DECREF(e.fn);
        roots[i] = (tn_node *)e.fn;
    }
    for (Py_ssize_t i = 0; i < ni; i++) {
        PyObject *t = PyTuple_GetItem(ins, i);
        tn_edge e = {0};
        if (tn_py_is_tensor(t)) {
            if (tn_gradient_edge(t, &e) < 0) goto done;
            caps[i].tensor = t;
        } else if (PyTuple_Check(t) && PyTuple_Size(t) == 2 && tn_is_node(PyTuple_GetItem(t, 0))) {
            e.fn = Py_NewRef(PyTuple_GetItem(t, 0));
            e.nr = (int)PyLong_AsLong(PyTuple_GetItem(t, 1));
        }
        if (!e.fn && caps[i].tensor && tn_requires_grad(caps[i].tensor)) {
            /* a view made in no_grad mode (views.c): requires grad, has no edge, so nothing reaches it */
            targets[i] = NULL;
            caps[i].node = NULL;
            continue;
        }
        if (!e.fn) {
            PyErr_SetString(PyExc_RuntimeError, "One of the differentiated Tensors does not require grad");
            goto done;
        }
        /* backward(inputs=): a non-leaf input retains its gradient (upstream's run_backward) */
        if (accumulate && caps[i].tensor && ((tn_tensor_obj *)caps[i].tensor)->grad_fn && tn_retain_grad(caps[i].tensor) < 0) {
            Py_DECREF(e.fn);
            goto done;
        }
        PyList_Append(rootrefs, e.fn);
        Py_DECREF(e.fn);
        targets[i] = (tn_node *)e.fn;
        caps[i].node = (tn_node *)e.fn;
        caps[i].nr = e.nr;
    }
    if (discover(&r, roots, (int)nt, targets, ins ? (int)ni : -1, accumulate) < 0) goto done;
    /* seed: each root's gradient into its slot */
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *t = PyTuple_GetItem(ts, i), *g = PyTuple_GetItem(gs, i);
        int nr = tn_py_is_tensor(t) ? (((tn_tensor_obj *)t)->grad_fn ? ((tn_tensor_obj *)t)->output_nr : 0)
                                    : (int)PyLong_AsLong(PyTuple_GetItem(t, 1));
        int s = find_slot(&r, roots[i], false);
        if (s < 0) goto done;
        if (g == Py_None) {
            if (!tn_py_is_tensor(t) || tn_numel(tn_tensor_of(t)) != 1) {
                PyErr_SetString(PyExc_RuntimeError, "grad can be implicitly created only for scalar outputs");
                goto done;
            }
            g = tn_at_ones_like(t, NULL, NULL, NULL, NULL, NULL);
            if (!g) goto done;
        } else {
            Py_INCREF(g);
        }
        if (nr < roots[i]->nout && buffer_add(&r.s[s].buf[nr], g) < 0) goto done;
        else if (nr >= roots[i]->nout) Py_DECREF(g);
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        /* a single root is queued whatever it leads to (upstream's graph root); several hang
         * on a GraphRoot that passes gradients only to the nodes that will run */
        int s = find_slot(&r, roots[i], false);
        if (r.s[s].deps == 0 && (nt == 1 || should_execute(&r, s)) && push_ready(&r, s) < 0) goto done;
    }
    if (run_depth++ == 0 && !final_callbacks && !(final_callbacks = PyList_New(0))) { run_depth--; goto done; }
    int err = 0;
    int64_t outer_task = graph_task;
    graph_task = graph_tasks++;
    run *outer_run = current_run;
    bool outer_filtering = tn_engine_filtering;
    current_run = &r;
    tn_engine_filtering = r.filtered;
    while (r.nheap && !err) err = execute(&r, pop_ready(&r), keep, create, accumulate, caps, accumulate ? 0 : (int)ni) < 0;
    current_run = outer_run;
    tn_engine_filtering = outer_filtering;
    graph_task = outer_task;
    if (--run_depth == 0) {
        PyObject *cbs = final_callbacks;
        final_callbacks = NULL;
        for (Py_ssize_t i = 0; !err && cbs && i < PyList_Size(cbs); i++) {
            PyObject *res = PyObject_CallNoArgs(PyList_GetItem(cbs, i));
            if (!res) err = 1;
            Py_XDECREF(res);
        }
        Py_XDECREF(cbs);
    }
    if (err) goto done;
    if (ins && !accumulate) {
        result = PyTuple_New(ni);
        for (Py_ssize_t i = 0; result && i < ni; i++) {
            if (!caps[i].grad && !allow_unreachable) {
                Py_CLEAR(result);
                PyErr_Format(PyExc_RuntimeError, "The differentiated Tensor at index %zd appears to not have been used in the "
                             "graph. Set allow_unused=True if this is the desired behavior.", i);
                break;
            }
            PyTuple_SetItem(result, i, Py_NewRef(caps[i].grad ? caps[i].grad : Py_None));
        }
        if (result && create) {   /* torch.func: results of ended grad levels (dispatch/functorch.c) */
            PyObject **inp = malloc(sizeof(PyObject *) * (size_t)(ni ? ni : 1));
            for (Py_ssize_t i = 0; inp && i < ni; i++) inp[i] = caps[i].tensor;
            if (!inp || tn_functorch_dead_results(inp, ni, result) < 0) Py_CLEAR(result);
            free(inp);
        }
    } else {
        result = PyTuple_New(0);
    }
done:
    for (Py_ssize_t i = 0; caps && i < ni; i++) Py_XDECREF(caps[i].grad);
    run_free(&r);
    free(roots); free(targets); free(caps);
    Py_XDECREF(rootrefs); Py_XDECREF(ts); Py_XDECREF(gs); Py_XDECREF(ins);
    return result;
}

static PyObject *queue_callback(PyObject *self, PyObject *cb) {
    if (!final_callbacks) {
        PyErr_SetString(PyExc_RuntimeError, "Final callbacks can only be installed during backward pass.");
        return NULL;
    }
    if (PyList_Append(final_callbacks, cb) < 0) return NULL;
    Py_RETURN_NONE;
}
/* checkpoint is always valid here: the engine runs every backward on the calling thread */
static PyObject *is_checkpoint_valid(PyObject *self, PyObject *u) { Py_RETURN_TRUE; }

static PyMethodDef engine_methods[] = {
    {"run_backward", (PyCFunction)(void (*)(void))run_backward, METH_VARARGS | METH_KEYWORDS, NULL},
    {"queue_callback", queue_callback, METH_O, NULL},
    {"is_checkpoint_valid", is_checkpoint_valid, METH_NOARGS, NULL},
    {NULL},
};
static PyType_Slot engine_slots[] = {{Py_tp_methods, engine_methods}, {Py_tp_new, PyType_GenericNew}, {0, NULL}};
static PyType_Spec engine_spec = {"torch._C._EngineBase", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, engine_slots};

/* torch._C._stash_obj_in_tls / _get_obj_in_tls / _is_key_in_tls / _remove_obj_from_tls: a
 * per-thread dict (upstream keeps it in thread-local state for the backward threads). */
static _Thread_local PyObject *tls_dict;
static PyObject *tls(void) { if (!tls_dict) tls_dict = PyDict_New(); return tls_dict; }
static PyObject *stash(PyObject *m, PyObject *args) {
    PyObject *k, *v;
    if (!PyArg_ParseTuple(args, "UO", &k, &v) || !tls() || PyDict_SetItem(tls_dict, k, v) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *get_tls(PyObject *m, PyObject *k) {
    PyObject *v = tls() ? PyDict_GetItemWithError(tls_dict, k) : NULL;
    if (!v && !PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, k);
    return v ? Py_NewRef(v) : NULL;
}
static PyObject *in_tls(PyObject *m, PyObject *k) { return tls() ? PyBool_FromLong(PyDict_Contains(tls_dict, k) == 1) : NULL; }
static PyObject *remove_tls(PyObject *m, PyObject *k) {
    if (!tls()) return NULL;
    if (PyDict_Contains(tls_dict, k) == 1 && PyDict_DelItem(tls_dict, k) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *current_graph_task_id(PyObject *m, PyObject *u) { return PyLong_FromLongLong(graph_task); }
/* torch._C._will_engine_execute_node (register_multi_grad_hook counts with it): whether the
 * running backward pass reaches the node and, with inputs=, will run it */
static PyObject *will_engine_execute_node(PyObject *m, PyObject *fn) {
    if (!tn_is_node(fn)) {
        PyErr_Format(PyExc_RuntimeError, "_will_engine_execute_node expects an grad_fn, but got %s", tn_py_type_name(fn));
        return NULL;
    }
    run *r = current_run;
    if (!r) {
        PyErr_SetString(PyExc_RuntimeError, "_get_should_execute_nodes should only be called during the backward pass");
        return NULL;
    }
    int s = find_slot(r, (tn_node *)fn, false);
    if (s == -1) return NULL;
    bool will = s >= 0 && should_execute(r, s);
    if (will && r->filtered && r->s[s].captured && ((tn_node *)fn)->kind == TN_NODE_ACCUMULATE) {
        PyErr_SetString(PyExc_RuntimeError, "A leaf node was passed to _will_engine_execute_node but we are currently "
                        "running autograd.grad(). This is currently not supported.");
        return NULL;
    }
    return PyBool_FromLong(will);
}

static PyMethodDef tls_methods[] = {
    {"_current_graph_task_id", current_graph_task_id, METH_NOARGS, NULL},
    {"_will_engine_execute_node", will_engine_execute_node, METH_O, NULL},
    {"_stash_obj_in_tls", stash, METH_VARARGS, NULL},
    {"_get_obj_in_tls", get_tls, METH_O, NULL},
    {"_is_key_in_tls", in_tls, METH_O, NULL},
    {"_remove_obj_from_tls", remove_tls, METH_O, NULL},
    {NULL},
};

int tn_engine_init(PyObject *m) {
    PyObject *t = PyType_FromSpec(&engine_spec);
    if (!t || PyModule_AddObject(m, "_ImperativeEngine", t) < 0) { Py_XDECREF(t); return -1; }
    return PyModule_AddFunctions(m, tls_methods);
}
