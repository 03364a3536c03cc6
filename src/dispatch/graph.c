/* graph.c — torchnative.graphs (docs/graphs.md): the operator calls one run of a Python function
 * makes, recorded at the door, then replayed on new inputs with no Python in between.
 *
 * A capture records every call that reaches the door from Python (not the calls an operator makes
 * itself: replaying the outer call makes them again), with its arguments as parsed. A tensor
 * argument is one of:
 *   - a slot: a capture input, or a result of a recorded call (replay passes that call's new result);
 *   - held: a tensor whose storage existed before the capture began (weights, a KV cache), or a
 *     wrapped Python number, passed as is;
 *   - a constant: a tensor made during the capture outside the recorded calls (torch.tensor(...)),
 *     whose values at its first use are kept and written back into it before every replay.
 * A tensor made outside the recorded calls that shares an input's or a new result's storage
 * (`.data`, a view the Python face made by itself) cannot be replayed: the capture refuses it by
 * name. A result that is not a
 * tensor (item(), bool(x): the Python face sends those reads through the door while a capture is
 * open) is compared at replay with the value it had; a different value raises, since the Python
 * code after it may have decided otherwise. Reads the door cannot record (tolist, numpy) refuse.
 *
 * The contract is CUDA graphs': the function's operators depend only on its tensor inputs and on
 * the values it reads through the door; Python state that changes between runs is not seen. */
#include "dispatch/graph.h"

#include <stdlib.h>
#include <string.h>

#include "autograd/autograd.h"
#include "core/object.h"
#include "core/profiler.h"
#include "core/pystate.h"
#include "dispatch/args.h"
#include "dispatch/modes.h"
#include "dispatch/subclass.h"
#include "tn_aten_gen.h"
#include "tn_ops_gen.h"

int tn_graph_on;

typedef struct {
    int op, nargs;
    tn_value *args;   /* owned copies: objects held, lists copied; a slot's tensor is NULL */
    int *slot;        /* per argument: the slot a tensor argument takes, or -1 */
    int **elt;        /* per tensor-list argument: each element's slot or -1; NULL otherwise */
    int nres;         /* 0: one result; else the length of the result tuple / list */
    int *rslot;       /* per result (one when single): the slot it fills, or -1 */
    PyObject **rval;  /* per result without a slot: the value it must have again (held) */
    int *dead, ndead; /* the slots no later call reads and no output is: released after this call */
} rec;

typedef struct {
    int handle;                      /* its index in graphs */
    rec *calls;
    int n, cap;
    int nslots;
    int nin, nout;
    int *in_slot, *out_slot;
    tn_tensor *in_geom;              /* each input's geometry at capture (storage not held) */
    PyObject **consts, **snaps;      /* constants and the values they had at first use */
    int nconst, capconst;
    bool inference;
    /* while capturing */
    PyObject *ids;                   /* id(tensor) -> slot */
    PyObject *stor;                  /* ids of the slots' root storages */
    PyObject *keep;                  /* every recorded result, alive until the capture ends */
    uint64_t serial0;
} graph;

static graph **graphs;   /* by handle; NULL: free */
static int ngraphs;
static _Thread_local graph *cap;     /* the capture open on this thread */
static _Thread_local int cap_depth;  /* > 0 inside a recorded call */

bool tn_graph_capturing(void) { return cap != NULL; }

/* ---- records ---- */

static void value_release(tn_value *v) {
    if (tn_value_holds_object(v->tag)) Py_XDECREF(v->u.obj);
    else if (v->tag == TN_V_INTLIST || v->tag == TN_V_BOOLLIST) free(v->u.ints.v);
    else if (v->tag == TN_V_FLOATLIST || v->tag == TN_V_SCALARLIST) free(v->u.floats.v);
}

static void rec_release(rec *r) {
    for (int i = 0; i < r->nargs; i++) {
        value_release(&r->args[i]);
        if (r->elt) free(r->elt[i]);
    }
    int nr = r->nres ? r->nres : 1;
    for (int i = 0; r->rval && i < nr; i++) Py_XDECREF(r->rval[i]);
    free(r->args), free(r->slot), free(r->elt), free(r->rslot), free(r->rval), free(r->dead);
}

static void graph_clear(graph *g) {
    for (int i = 0; i < g->n; i++) rec_release(&g->calls[i]);
    for (int i = 0; i < g->nconst; i++) { Py_XDECREF(g->consts[i]); Py_XDECREF(g->snaps[i]); }
    Py_CLEAR(g->ids); Py_CLEAR(g->stor); Py_CLEAR(g->keep);
    free(g->calls), free(g->in_slot), free(g->out_slot), free(g->in_geom), free(g->consts), free(g->snaps);
}

static void graph_release(graph *g) {
    graphs[g->handle] = NULL;
    graph_clear(g);
    free(g);
}

static PyObject *key_of(const void *p) { return PyLong_FromVoidPtr((void *)p); }

/* the slot tensor t fills from now on; its memory is a slot's (stor) when it is an input's or was
 * made during the capture (a held tensor written in place stays held memory: its other views are
 * still right to pass as they are) */
static int slot_new(graph *g, PyObject *t, bool input) {
    int s = g->nslots++;
    tn_storage *root = tn_storage_root(tn_tensor_of(t)->storage);
    PyObject *k = key_of(t), *v = PyLong_FromLong(s), *sk = key_of(root);
    int rc = k && v && sk && PyDict_SetItem(g->ids, k, v) == 0 &&
             (!(input || root->serial >= g->serial0) || PySet_Add(g->stor, sk) == 0) && PyList_Append(g->keep, t) == 0 ? s : -1;
    Py_XDECREF(k); Py_XDECREF(v); Py_XDECREF(sk);
    return rc;
}

/* How a tensor argument of a recorded call is replayed: its slot (>= 0), or -1 with *held set to
 * the tensor passed as is; -2 on error. */
static int tensor_arg(graph *g, PyObject *t, bool wrapped, PyObject **held) {
    PyObject *k = key_of(t);
    if (!k) return -2;
    PyObject *s = PyDict_GetItemWithError(g->ids, k);
    Py_DECREF(k);
    if (s) return (int)PyLong_AsLong(s);
    if (PyErr_Occurred()) return -2;
    *held = t;
    tn_storage *root = tn_storage_root(tn_tensor_of(t)->storage);
    if (wrapped || !root) return -1;
    PyObject *sk = key_of(root);
    int in = sk ? PySet_Contains(g->stor, sk) : -1;
    Py_XDECREF(sk);
    if (in < 0) return -2;
    if (in) {   /* e.g. an input's .data */
        PyErr_SetString(PyExc_RuntimeError,
                        "torchnative.graphs: a tensor that shares the memory of an input or a recorded result was "
                        "made outside the recorded operators; it cannot be replayed");
        return -2;
    }
    if (root->serial < g->serial0) return -1;   /* existed before the capture */
    for (int i = 0; i < g->nconst; i++)
        if (g->consts[i] == t) return -1;
    /* a constant: its values now, written back before each replay */
    if (g->nconst == g->capconst) {
        int c = g->capconst ? 2 * g->capconst : 8;
        PyObject **a = realloc(g->consts, (size_t)c * sizeof *a), **b = a ? realloc(g->snaps, (size_t)c * sizeof *b) : NULL;
        if (a) g->consts = a;
        if (b) g->snaps = b;
        if (!a || !b) { PyErr_NoMemory(); return -2; }
        g->capconst = c;
    }
    cap_depth++;
    PyObject *snap = tn_at_clone(t, NULL);
    cap_depth--;
    if (!snap) return -2;
    g->consts[g->nconst] = Py_NewRef(t), g->snaps[g->nconst++] = snap;
    return -1;
}

static int copy_value(graph *g, const tn_value *v, tn_value *o, int *slot, int **elt) {
    *o = *v;
    *slot = -1, *elt = NULL;
    switch (v->tag) {
    case TN_V_TENSOR: {
        PyObject *held = NULL;
        int s = tensor_arg(g, v->u.obj, v->wrapped, &held);
        if (s == -2) { o->tag = TN_V_NONE; return -1; }
        *slot = s;
        o->u.obj = s >= 0 ? NULL : Py_NewRef(held);
        return 0;
    }
    case TN_V_TENSORLIST: {   /* a tuple of the elements passed as is, None where a slot's goes */
        Py_ssize_t n = PyTuple_Size(v->u.obj);
        o->tag = TN_V_NONE;
        PyObject *t = n < 0 ? NULL : PyTuple_New(n);
        if (!t) return -1;
        if (!(*elt = malloc((size_t)(n ? n : 1) * sizeof **elt))) { Py_DECREF(t); PyErr_NoMemory(); return -1; }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PyTuple_GetItem(v->u.obj, i), *held = NULL;
            int s = e && tn_py_is_tensor(e) ? tensor_arg(g, e, false, &held) : -1;
            if (s == -2) { Py_DECREF(t); return -1; }
            (*elt)[i] = s;
            PyTuple_SetItem(t, i, Py_NewRef(s >= 0 ? Py_None : e));
        }
        o->tag = TN_V_TENSORLIST, o->u.obj = t;
        return 0;
    }
    case TN_V_INTLIST: case TN_V_BOOLLIST: {
        size_t nb = (size_t)(v->u.ints.n ? v->u.ints.n : 1) * sizeof(int64_t);
        if (!(o->u.ints.v = malloc(nb))) { o->tag = TN_V_NONE; PyErr_NoMemory(); return -1; }
        if (v->u.ints.n) memcpy(o->u.ints.v, v->u.ints.v, (size_t)v->u.ints.n * sizeof(int64_t));
        return 0;
    }
    case TN_V_FLOATLIST: case TN_V_SCALARLIST: {
        size_t n = tn_scalarlist_slots(v);
        if (!(o->u.floats.v = malloc((n ? n : 1) * sizeof(double)))) { o->tag = TN_V_NONE; PyErr_NoMemory(); return -1; }
        if (n) memcpy(o->u.floats.v, v->u.floats.v, n * sizeof(double));
        return 0;
    }
    default:
        if (tn_value_holds_object(v->tag)) Py_XINCREF(v->u.obj);
        return 0;
    }
}

static int record_result(graph *g, PyObject *res, int *slot, PyObject **val) {
    *slot = -1, *val = NULL;
    if (tn_py_is_tensor(res)) return (*slot = slot_new(g, res, false)) < 0 ? -1 : 0;
    *val = Py_NewRef(res);
    return 0;
}

/* The call's arguments, before it runs (a constant's values are taken before the call can write
 * them); its rec is the graph's last. */
static int record_args(graph *g, int op, const tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) return -1;
    if (g->n == g->cap) {
        int c = g->cap ? 2 * g->cap : 256;
        rec *a = realloc(g->calls, (size_t)c * sizeof *a);
        if (!a) { PyErr_NoMemory(); return -1; }
        g->calls = a, g->cap = c;
    }
    rec *r = &g->calls[g->n++];   /* released with the graph from here on, whatever follows */
    memset(r, 0, sizeof *r);
    r->op = op, r->nargs = s->nargs;
    size_t na = (size_t)(s->nargs ? s->nargs : 1);
    r->args = calloc(na, sizeof *r->args), r->slot = calloc(na, sizeof *r->slot), r->elt = calloc(na, sizeof *r->elt);
    if (!r->args || !r->slot || !r->elt) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < s->nargs; i++)
        if (copy_value(g, &args[i], &r->args[i], &r->slot[i], &r->elt[i]) < 0) return -1;
    return 0;
}

/* The results of the graph's last call. */
static int record_results(graph *g, PyObject *res) {
    rec *r = &g->calls[g->n - 1];
    bool seq = PyTuple_Check(res) || PyList_Check(res);
    Py_ssize_t nres = seq ? PySequence_Size(res) : 1;
    if (nres < 0) return -1;
    size_t nr = (size_t)(nres ? nres : 1);
    r->rslot = calloc(nr, sizeof *r->rslot), r->rval = calloc(nr, sizeof *r->rval);
    if (!r->rslot || !r->rval) { PyErr_NoMemory(); return -1; }
    if (!seq) return record_result(g, res, &r->rslot[0], &r->rval[0]);
    r->nres = (int)nres;
    if (!nres) { r->rslot[0] = -1; r->rval[0] = Py_NewRef(res); return 0; }   /* () compared as a value */
    for (Py_ssize_t i = 0; i < nres; i++) {
        PyObject *e = PySequence_GetItem(res, i);
        int rc = e ? record_result(g, e, &r->rslot[i], &r->rval[i]) : -1;
        Py_XDECREF(e);
        if (rc < 0) return -1;
    }
    return 0;
}

/* ---- the door's branch ---- */

bool tn_graph_wants(int op) {
    return cap && !cap_depth && strncmp(tn_op_at(op)->name, "torchnative::graph_", 19) != 0;
}

PyObject *tn_graph_call(int op, tn_value *args) {
    graph *g = cap;
    if (record_args(g, op, args) < 0) return NULL;
    cap_depth++;
    PyObject *r = tn_door_call(op, args);
    cap_depth--;
    if (!r) rec_release(&g->calls[--g->n]);   /* the call raised: nothing to replay */
    else if (record_results(g, r) < 0) Py_CLEAR(r);
    return r;
}

/* ---- the operators ---- */

static graph *graph_at(int64_t h) {
    if (h < 0 || h >= ngraphs || !graphs[h] || graphs[h]->ids) {
        PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: no captured graph %lld", (long long)h);
        return NULL;
    }
    return graphs[h];
}

/* torchnative::graph_capture_begin(Tensor[] inputs) -> int: opens a capture on this thread; the
 * inputs are the slots a replay fills. */
PyObject *tn_op_torchnative_graph_capture_begin(tn_value *args) {
    if (cap) return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: a capture is already open on this thread");
    if (tn_grad_enabled())
        return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: capture records no autograd graph; run it under torch.no_grad()");
    if (tn_prof_on || (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()))
        return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: capture under a profiler or a dispatch mode is not supported");
    int h = 0;
    while (h < ngraphs && graphs[h]) h++;
    if (h == ngraphs) {
        graph **a = realloc(graphs, (size_t)(ngraphs + 4) * sizeof *a);
        if (!a) return PyErr_NoMemory();
        memset(a + ngraphs, 0, 4 * sizeof *a);
        graphs = a, ngraphs += 4;
    }
    graph *g = calloc(1, sizeof *g);
    if (!g) return PyErr_NoMemory();
    graphs[h] = g, g->handle = h;
    PyObject *in = args[0].u.obj;
    Py_ssize_t n = PyTuple_Size(in);
    g->ids = PyDict_New(), g->stor = PySet_New(NULL), g->keep = PyList_New(0);
    g->in_slot = malloc((size_t)(n ? n : 1) * sizeof *g->in_slot), g->in_geom = malloc((size_t)(n ? n : 1) * sizeof *g->in_geom);
    g->serial0 = __atomic_load_n(&tn_storage_serial, __ATOMIC_RELAXED);
    g->inference = tn_inference_mode();
    if (!g->ids || !g->stor || !g->keep || !g->in_slot || !g->in_geom) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GetItem(in, i);
        if (!t || !tn_py_is_tensor(t)) {
            PyErr_SetString(PyExc_TypeError, "torchnative.graphs: the inputs must be tensors");
            goto fail;
        }
        if (tn_tensor_of(t)->storage->device != TN_DEVICE_CPU || tn_tensor_of(t)->math_bits || ((tn_tensor_obj *)t)->nested ||
            ((tn_tensor_obj *)t)->sparse || ((tn_tensor_obj *)t)->quant || tn_has_torch_dispatch(t)) {
            PyErr_SetString(PyExc_RuntimeError, "torchnative.graphs: the inputs must be plain strided CPU tensors");
            goto fail;
        }
        if ((g->in_slot[i] = slot_new(g, t, true)) < 0) goto fail;
        g->in_geom[i] = *tn_tensor_of(t);
        g->nin++;
    }
    cap = g, cap_depth = 0;
    tn_graph_on++;
    return PyLong_FromLong(h);
fail:
    graph_release(g);
    return NULL;
}

static void capture_close(void) {
    cap = NULL;
    tn_graph_on--;
}

/* Each slot's last reader (or its maker, when nothing reads it) releases it at replay, unless it is
 * an output: a replay keeps only what later calls need alive (memory, and young objects for
 * Python's garbage collector). */
static int plan_releases(graph *g) {
    int *last = malloc((size_t)(g->nslots ? g->nslots : 1) * sizeof *last);
    if (!last) { PyErr_NoMemory(); return -1; }
    for (int s = 0; s < g->nslots; s++) last[s] = -1;
    for (int i = 0; i < g->n; i++) {
        const rec *r = &g->calls[i];
        for (int a = 0; a < r->nargs; a++) {
            if (r->slot[a] >= 0) last[r->slot[a]] = i;
            if (r->elt && r->elt[a])
                for (Py_ssize_t k = 0; k < PyTuple_Size(r->args[a].u.obj); k++)
                    if (r->elt[a][k] >= 0) last[r->elt[a][k]] = i;
        }
        for (int k = 0; k < (r->nres ? r->nres : 1); k++)
            if (r->rslot[k] >= 0 && last[r->rslot[k]] < i) last[r->rslot[k]] = i;
    }
    for (int i = 0; i < g->nout; i++) last[g->out_slot[i]] = -1;   /* outputs live to the end */
    for (int s = 0; s < g->nslots; s++) {
        if (last[s] < 0) continue;
        rec *r = &g->calls[last[s]];
        int *d = realloc(r->dead, (size_t)(r->ndead + 1) * sizeof *d);
        if (!d) { free(last); PyErr_NoMemory(); return -1; }
        r->dead = d, r->dead[r->ndead++] = s;
    }
    free(last);
    return 0;
}

/* torchnative::graph_capture_end(Tensor[] outputs) -> int: closes this thread's capture; the
 * outputs (results of recorded calls or inputs) are what a replay returns. The graph's handle. */
PyObject *tn_op_torchnative_graph_capture_end(tn_value *args) {
    graph *g = cap;
    if (!g) return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: no capture is open on this thread");
    capture_close();
    PyObject *out = args[0].u.obj;
    Py_ssize_t n = PyTuple_Size(out);
    if (!(g->out_slot = malloc((size_t)(n ? n : 1) * sizeof *g->out_slot))) { PyErr_NoMemory(); goto fail; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GetItem(out, i), *k = t ? key_of(t) : NULL;
        PyObject *s = k ? PyDict_GetItemWithError(g->ids, k) : NULL;
        Py_XDECREF(k);
        if (!s) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: output %zd is not an input or a result of the recorded operators", i);
            goto fail;
        }
        g->out_slot[i] = (int)PyLong_AsLong(s);
    }
    g->nout = (int)n;
    if (plan_releases(g) < 0) goto fail;
    Py_CLEAR(g->ids); Py_CLEAR(g->stor); Py_CLEAR(g->keep);   /* the capture's results are let go */
    return PyLong_FromLong(g->handle);
fail:
    graph_release(g);
    return NULL;
}

/* torchnative::graph_capture_abort() -> (): drops this thread's open capture (the captured
 * function raised). */
PyObject *tn_op_torchnative_graph_capture_abort(tn_value *args) {
    (void)args;
    if (cap) {
        graph *g = cap;
        capture_close();
        graph_release(g);
    }
    Py_RETURN_NONE;
}

/* torchnative::graph_release(int graph) -> () */
PyObject *tn_op_torchnative_graph_release(tn_value *args) {
    graph *g = graph_at(args[0].u.i);
    if (!g) return NULL;
    graph_release(g);
    Py_RETURN_NONE;
}

/* torchnative::graph_size(int graph) -> int: how many calls it replays */
PyObject *tn_op_torchnative_graph_size(tn_value *args) {
    graph *g = graph_at(args[0].u.i);
    return g ? PyLong_FromLong(g->n) : NULL;
}

/* a: a replay's input; b: the captured one's geometry (its storage is not held: not read) */
static bool same_geometry(const tn_tensor *a, const tn_tensor *b) {
    if (a->dtype != b->dtype || a->ndim != b->ndim || a->storage->device != TN_DEVICE_CPU || a->math_bits != b->math_bits) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->sizes[i] != b->sizes[i] || (a->sizes[i] > 1 && a->strides[i] != b->strides[i])) return false;
    return true;
}

static int fill(PyObject **vals, int slot, PyObject *v, const rec *r) {
    if (!tn_py_is_tensor(v)) {
        PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: aten::%s returned a tensor at capture and %s at replay",
                     tn_op_at(r->op)->name, tn_py_type_name(v));
        return -1;
    }
    Py_XSETREF(vals[slot], Py_NewRef(v));
    return 0;
}

static int compare(PyObject *v, PyObject *want, const rec *r) {
    int eq = Py_TYPE(v) == Py_TYPE(want) ? PyObject_RichCompareBool(v, want, Py_EQ) : 0;
    if (eq < 0) return -1;
    if (!eq) {
        PyObject *a = PyObject_Repr(want), *b = PyObject_Repr(v);
        PyErr_Format(PyExc_RuntimeError,
                     "torchnative.graphs: %s returned %U at capture and %U at replay: the captured function read a "
                     "tensor's value and may have taken another path since; capture it again",
                     tn_op_at(r->op)->name, a ? a : Py_None, b ? b : Py_None);
        Py_XDECREF(a); Py_XDECREF(b);
        return -1;
    }
    return 0;
}

static PyObject *replay_call(const rec *r, PyObject **vals) {
    tn_value a[TN_MAX_ARGS];
    PyObject *lists[TN_MAX_ARGS];
    int nl = 0;
    PyObject *res = NULL;
    memcpy(a, r->args, (size_t)r->nargs * sizeof *a);
    for (int i = 0; i < r->nargs; i++) {
        if (r->slot[i] >= 0) a[i].u.obj = vals[r->slot[i]];
        else if (r->elt && r->elt[i]) {
            Py_ssize_t n = PyTuple_Size(r->args[i].u.obj);
            PyObject *t = PyTuple_New(n);
            if (!t) goto done;
            lists[nl++] = t;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = r->elt[i][k] >= 0 ? vals[r->elt[i][k]] : PyTuple_GetItem(r->args[i].u.obj, k);
                PyTuple_SetItem(t, k, Py_NewRef(e));
            }
            a[i].u.obj = t;
        }
    }
    res = tn_door_call(r->op, a);
done:
    while (nl) Py_DECREF(lists[--nl]);
    return res;
}

/* torchnative::graph_replay(int graph, Tensor[] inputs) -> Tensor[]: the recorded calls again on
 * new inputs of the captured inputs' dtypes, sizes and strides; the outputs' new values. */
PyObject *tn_op_torchnative_graph_replay(tn_value *args) {
    graph *g = graph_at(args[0].u.i);
    if (!g) return NULL;
    if (cap) return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: replay while a capture is open is not supported");
    PyObject *in = args[1].u.obj;
    if (PyTuple_Size(in) != g->nin)
        return PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: the graph takes %d inputs, got %zd", g->nin, PyTuple_Size(in));
    PyObject **vals = calloc((size_t)(g->nslots ? g->nslots : 1), sizeof *vals), *out = NULL;
    if (!vals) return PyErr_NoMemory();
    for (int i = 0; i < g->nin; i++) {
        PyObject *t = PyTuple_GetItem(in, i);
        if (!tn_py_is_tensor(t) || !same_geometry(tn_tensor_of(t), &g->in_geom[i])) {
            PyErr_Format(PyExc_RuntimeError,
                         "torchnative.graphs: input %d differs from the captured one in dtype, sizes, strides or device", i);
            goto done;
        }
        vals[g->in_slot[i]] = Py_NewRef(t);
    }
    bool grad = tn_grad_mode_set(false), inf = tn_tls_inference_mode;
    tn_tls_inference_mode = g->inference;
    int rc = 0;
    for (int i = 0; i < g->nconst && !rc; i++) {
        PyObject *c = tn_at_copy_(g->consts[i], g->snaps[i], false);
        if (!c) rc = -1;
        Py_XDECREF(c);
    }
    for (int i = 0; i < g->n && !rc; i++) {
        const rec *r = &g->calls[i];
        PyObject *res = replay_call(r, vals);
        if (!res) { rc = -1; break; }
        if (!r->nres && !r->rval[0] && r->rslot[0] >= 0) rc = fill(vals, r->rslot[0], res, r);
        else if (!r->nres) rc = compare(res, r->rval[0], r);
        else if (PySequence_Size(res) != r->nres) {
            PyErr_Format(PyExc_RuntimeError, "torchnative.graphs: %s returned another number of results at replay", tn_op_at(r->op)->name);
            rc = -1;
        } else
            for (int k = 0; k < r->nres && !rc; k++) {
                PyObject *e = PySequence_GetItem(res, k);
                rc = !e ? -1 : r->rslot[k] >= 0 ? fill(vals, r->rslot[k], e, r) : compare(e, r->rval[k], r);
                Py_XDECREF(e);
            }
        Py_DECREF(res);
        for (int k = 0; k < r->ndead; k++) Py_CLEAR(vals[r->dead[k]]);
    }
    tn_grad_mode_set(grad);
    tn_tls_inference_mode = inf;
    if (rc) goto done;
    if (!(out = PyList_New(g->nout))) goto done;
    for (int i = 0; i < g->nout; i++) PyList_SetItem(out, i, Py_NewRef(vals[g->out_slot[i]]));
done:
    for (int i = 0; i < g->nslots; i++) Py_XDECREF(vals[i]);
    free(vals);
    return out;
}
