/* functorch.c — torch.func on one autograd engine: the transform level stack, BatchedTensors and
 * the door's vmap stage. Design and its limits: docs/func.md.
 *
 * Levels. grad, jvp and vmap push a layer (thread-local) numbered 1, 2, ... from the bottom, as
 * upstream's dynamic layer stack. A grad level remembers the autograd sequence number when it
 * began: _unwrap_for_grad uses it to tell the graph built inside the level from the graph below.
 *
 * BatchedTensor. A tensor object with bt_value (the whole tensor, which may itself be batched at
 * a lower level), bt_bdim and bt_level; its own geometry is the logical one: bt_value's with the
 * batch dim removed (it points at slice 0, and no kernel ever sees it: every op with a batched
 * argument takes the vmap stage below).
 *
 * The vmap stage (tn_door_below_autograd asks tn_vmap_wants first). For the highest vmap level L
 * among the arguments: random ops follow the level's randomness flag; pointwise ops (upstream's
 * `pointwise` tag) run once on the whole tensors, batch dim moved to the front and padded so it
 * broadcasts; same-shape ops (alias, detach, clone, *_like, _to_copy) run on the whole tensor;
 * view ops with dims run on the whole tensor with the dims shifted, so views stay views; everything
 * else takes upstream's slow fallback: one call per batch slice, results stacked. */
#include "autograd/autograd.h"
#include "autograd/forward.h"
#include "dispatch/door.h"
#include "dispatch/functorch.h"
#include "core/pystate.h"
#include "core/object.h"
#include "tn_ops_gen.h"

#include <limits.h>
#include <string.h>

enum { R_ERROR, R_SAME, R_DIFFERENT };

typedef struct {
    int kind;           /* TN_LAYER_GRAD / JVP / VMAP / FUNC */
    int64_t batch;      /* vmap */
    int randomness;     /* vmap */
    uint64_t seq;       /* grad: sequence numbers above this were made inside the level */
    uint64_t gen;       /* unique per push */
    bool prev_grad;     /* grad: grad mode when the level began (upstream's prevGradMode) */
    int fw_level;       /* jvp inside a jvp: its forward AD level (autograd/forward.c), else -1 */
} layer;
static uint64_t generations;

#define MAX_LAYERS 64
static _Thread_local layer stack[MAX_LAYERS];
static _Thread_local int depth;
static _Thread_local int vmap_layers;
static _Thread_local bool inplace_requires_grad_allowed;
int64_t tn_bt_live;    /* BatchedTensor objects alive (tensor.c counts them down) */
bool tn_vmap_fallback_warn;

static tn_tensor_obj *O(PyObject *t) { return (tn_tensor_obj *)t; }

static PyObject *refuse(const char *fmt, const char *a, const char *b) {
    char what[256];
    snprintf(what, sizeof what, fmt, a, b);
    return tn_not_implemented(what);
}

int tn_functorch_depth(void) { return depth; }
bool tn_functorch_grad_active(void) {
    for (int i = 0; i < depth; i++)
        if (stack[i].kind == TN_LAYER_GRAD) return true;
    return false;
}
int tn_functorch_innermost(int kind) {
    for (int i = depth - 1; i >= 0; i--)
        if (stack[i].kind == kind) return i + 1;
    return 0;
}
int tn_functorch_kind(int level) { return level >= 1 && level <= depth ? stack[level - 1].kind : 0; }
bool tn_functorch_inplace_rg_allowed(void) { return inplace_requires_grad_allowed; }
void tn_functorch_set_inplace_rg_allowed(bool on) { inplace_requires_grad_allowed = on; }

int tn_functorch_push(int kind, int64_t batch, const char *randomness) {
    if (depth >= MAX_LAYERS) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: more than 64 nested torch.func transforms");
        return -1;
    }
    layer *l = &stack[depth];
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->batch = batch;
    if (randomness) l->randomness = !strcmp(randomness, "same") ? R_SAME : !strcmp(randomness, "different") ? R_DIFFERENT : R_ERROR;
    if (kind == TN_LAYER_GRAD) {
        l->seq = tn_next_sequence_nr();
        l->prev_grad = tn_grad_mode();
    }
    l->gen = ++generations;
    l->fw_level = -1;
    if (kind == TN_LAYER_JVP && (l->fw_level = tn_fw_push_nested(depth + 1)) < -1) return -1;
    if (kind == TN_LAYER_VMAP) vmap_layers++;
    return ++depth;
}

int tn_functorch_pop(int kind) {
    if (depth == 0 || stack[depth - 1].kind != kind) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: torch.func transform levels popped out of order");
        return -1;
    }
    if (kind == TN_LAYER_VMAP) vmap_layers--;
    if (stack[depth - 1].fw_level > 0) tn_fw_pop_nested(stack[depth - 1].fw_level);
    return depth--;
}

/* ---------------------------------------------------------------------------------------------
 * BatchedTensor */

int tn_bt_level(PyObject *t) { return t && tn_py_is_tensor(t) && O(t)->bt_value ? O(t)->bt_level : 0; }

PyObject *tn_bt_make(PyObject *phys, int64_t bdim, int level) {
    tn_tensor g = *tn_tensor_of(phys);
    if (bdim < 0) bdim += g.ndim;
    if (bdim < 0 || bdim >= g.ndim) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                     -g.ndim, g.ndim - 1, (long long)bdim);
        return NULL;
    }
    for (int i = (int)bdim; i < g.ndim - 1; i++) {
        g.sizes[i] = g.sizes[i + 1];
        g.strides[i] = g.strides[i + 1];
    }
    g.ndim--;
    tn_storage_incref(g.storage);
    PyObject *r = tn_tensor_wrap(&g);
    if (!r) return NULL;
    O(r)->bt_value = Py_NewRef(phys);
    O(r)->bt_bdim = (int)bdim;
    O(r)->bt_level = level;
    tn_bt_live++;
    return r;
}

void tn_bt_copy_meta(PyObject *dst, PyObject *src) {
    if (!O(src)->bt_value || O(dst)->bt_value) return;
    O(dst)->bt_value = Py_NewRef(O(src)->bt_value);
    O(dst)->bt_bdim = O(src)->bt_bdim;
    O(dst)->bt_level = O(src)->bt_level;
    tn_bt_live++;
}

/* ---------------------------------------------------------------------------------------------
 * grad levels: what _unwrap_for_grad returns */

/* t's value without reverse-mode history: an alias made with grad mode off (a forward tangent and
 * a batch dim stay) */
static PyObject *plain_alias(PyObject *t) {
    if (!tn_fw_any(t)) return tn_detached_alias(t);   /* not a view, as upstream's unwrapped value */
    bool was = tn_grad_mode_set(false);
    PyObject *r = tn_at_alias(t);
    tn_grad_mode_set(was);
    if (r) ((tn_tensor_obj *)r)->ng_view = false;   /* the unwrapped value, not a user's no_grad view */
    return r;
}

static int reaches_below(PyObject *fn, int level, uint64_t seq, PyObject *seen);
static bool dead_leaf(PyObject *v);

/* t, with the history that reaches nothing below `level` cut off (through batch dims, whose
 * history lives on the whole tensor when vmap ran below autograd). New reference. */
static PyObject *strip(PyObject *t, int level, uint64_t seq) {
    if (!tn_py_is_tensor(t)) return Py_NewRef(t);
    tn_tensor_obj *o = O(t);
    if (o->bt_value && !o->grad_fn && !o->requires_grad) {
        PyObject *p = strip(o->bt_value, level, seq);
        if (!p || p == o->bt_value) { Py_XDECREF(p); return p ? Py_NewRef(t) : NULL; }
        PyObject *b = tn_bt_make(p, o->bt_bdim, o->bt_level);
        Py_DECREF(p);
        return b;
    }
    if (!o->grad_fn) {
        if (o->requires_grad && (o->grad_level >= level || dead_leaf(t)))
            return plain_alias(t);   /* a level's own leaf */
        return Py_NewRef(t);
    }
    PyObject *seen = PySet_New(NULL);
    if (!seen) return NULL;
    int r = reaches_below(o->grad_fn, level, seq, seen);
    Py_DECREF(seen);
    if (r < 0) return NULL;
    return r ? Py_NewRef(t) : plain_alias(t);
}

/* t without any reverse-mode history (through batch dims, as strip). New reference. */
static PyObject *cut(PyObject *t) {
    if (!tn_py_is_tensor(t)) return Py_NewRef(t);
    tn_tensor_obj *o = O(t);
    if (o->bt_value && !o->grad_fn && !o->requires_grad) {
        PyObject *p = cut(o->bt_value);
        if (!p || p == o->bt_value) { Py_XDECREF(p); return p ? Py_NewRef(t) : NULL; }
        PyObject *b = tn_bt_make(p, o->bt_bdim, o->bt_level);
        Py_DECREF(p);
        return b;
    }
    return o->grad_fn || o->requires_grad ? plain_alias(t) : Py_NewRef(t);
}

/* a leaf _wrap_for_grad made at a grad level that has ended */
static bool dead_leaf(PyObject *v) {
    int g = O(v)->grad_level;
    return g > 0 && !(g <= depth && stack[g - 1].kind == TN_LAYER_GRAD && stack[g - 1].gen == O(v)->grad_gen);
}

/* Does the graph behind node fn reach anything made below grad level `level` (a node older than
 * the level, or a leaf that is not one of the level's own wrapped inputs, nor of an ended level)? */
static int reaches_below(PyObject *fn, int level, uint64_t seq, PyObject *seen) {
    if (!fn || fn == Py_None || !tn_is_node(fn)) return 0;
    tn_node *n = (tn_node *)fn;
    if (n->kind == TN_NODE_ACCUMULATE) {
        PyObject *v = n->variable;
        return !(v && tn_py_is_tensor(v) && (O(v)->grad_level >= level || dead_leaf(v)));
    }
    if (n->seq <= seq) return 1;
    PyObject *key = PyLong_FromVoidPtr(fn);
    if (!key) return -1;
    int had = PySet_Contains(seen, key);
    if (had == 0) had = PySet_Add(seen, key) < 0 ? -1 : 0;
    Py_DECREF(key);
    if (had) return had < 0 ? -1 : 0;
    for (int i = 0; i < n->nnext; i++) {
        int r = reaches_below(n->next[i].fn, level, seq, seen);
        if (r) return r;
    }
    return 0;
}

PyObject *tn_unwrap_for_grad(PyObject *t, int level) {
    if (!tn_py_is_tensor(t) || level < 1 || level > depth) return Py_NewRef(t);
    if (stack[level - 1].kind != TN_LAYER_GRAD) return generations ? strip(t, INT32_MAX, 0) : Py_NewRef(t);
    /* a grad level begun with grad mode off (torch.no_grad() around the transform): upstream runs
     * the level's ops on the levels below it with grad mode off, so what the level computed has no
     * history there; here its results come back with their history cut (docs/func.md) */
    if (!stack[level - 1].prev_grad) return cut(t);
    return strip(t, level, stack[level - 1].seq);
}

/* torch.autograd.grad(..., create_graph=True) with respect to leaves of ended grad levels only
 * (the function vjp returns, called after its level ended): a result whose graph reaches nothing
 * else is that level's unwrapped value, so it comes back without history, as upstream's. */
int tn_functorch_dead_results(PyObject **inputs, Py_ssize_t n, PyObject *result) {
    if (!depth && !generations) return 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (!inputs[i] || !tn_py_is_tensor(inputs[i]) || !dead_leaf(inputs[i])) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_Size(result); i++) {
        PyObject *g = PyTuple_GetItem(result, i);
        PyObject *d = strip(g, INT32_MAX, 0);
        if (!d) return -1;
        if (d == g) Py_DECREF(d);
        else if (PyTuple_SetItem(result, i, d) < 0) return -1;
    }
    return 0;
}

PyObject *tn_wrap_for_grad(PyObject *t, int level) {
    if (!tn_py_is_tensor(t)) return Py_NewRef(t);
    /* an alias through the door: connected to t's graph when t requires grad (the outer levels
     * see through it), otherwise a new leaf of this level once requires_grad_(); a forward
     * tangent (jvp outside) and a batch dim (vmap outside) come along */
    bool was = tn_grad_mode_set(true);
    int below = tn_below_autograd_swap(0);   /* recording on, even below autograd (grad_mode.c) */
    bool rg = tn_requires_grad(t);
    PyObject *r = tn_at_alias(t);
    tn_below_autograd_swap(below);
    tn_grad_mode_set(was);
    if (r && !rg) {
        O(r)->grad_level = level;
        O(r)->grad_gen = level <= depth ? stack[level - 1].gen : 0;
    }
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * the vmap stage */

static const tn_schema *schema_of(int op) { return tn_op_schema(op); }

static int list_max_level(PyObject *seq) {
    int m = 0;
    PyObject *f = PySequence_Tuple(seq);
    if (!f) { PyErr_Clear(); return 0; }
    for (Py_ssize_t k = 0; k < PyTuple_Size(f); k++) {
        int l = tn_bt_level(PyTuple_GetItem(f, k));
        if (l > m) m = l;
    }
    Py_DECREF(f);
    return m;
}

static int max_level(const tn_schema *s, const tn_value *args) {
    int m = 0;
    for (int i = 0; i < s->nargs; i++) {
        int l = 0;
        if (args[i].tag == TN_V_TENSOR) l = tn_bt_level(args[i].u.obj);
        else if (args[i].tag == TN_V_TENSORLIST) l = list_max_level(args[i].u.obj);
        if (l > m) m = l;
    }
    return m;
}

static layer *innermost_vmap(void) {
    for (int i = depth - 1; i >= 0; i--)
        if (stack[i].kind == TN_LAYER_VMAP) return &stack[i];
    return NULL;
}

bool tn_vmap_wants(int op, const tn_value *args) {
    if (!tn_bt_live && !vmap_layers) return false;
    const tn_schema *s = schema_of(op);
    if (!s) return false;
    if (vmap_layers && (tn_op_tags(op) & TN_TAG_RANDOM)) {
        layer *l = innermost_vmap();
        if (l && l->randomness != R_SAME) return true;
    }
    return tn_bt_live && max_level(s, args) > 0;
}

/* x batched at level L with the batch dim moved to the front (a view); new reference */
static PyObject *front(PyObject *x) {
    PyObject *p = O(x)->bt_value;
    if (O(x)->bt_bdim == 0) return Py_NewRef(p);
    return tn_at_movedim_int(p, O(x)->bt_bdim, 0LL);
}

static PyObject *wrap_results(PyObject *r, int level) {
    if (!r) return NULL;
    if (tn_py_is_tensor(r)) {
        PyObject *b = tn_bt_make(r, 0, level);
        Py_DECREF(r);
        return b;
    }
    if (PyTuple_Check(r) || PyList_Check(r)) {
        Py_ssize_t n = PySequence_Size(r);
        PyObject *out = PyList_New(n);
        for (Py_ssize_t k = 0; out && k < n; k++) {
            PyObject *e = PySequence_GetItem(r, k);
            PyObject *w = e && tn_py_is_tensor(e) ? tn_bt_make(e, 0, level) : (e ? Py_NewRef(e) : NULL);
            Py_XDECREF(e);
            if (!w) { Py_CLEAR(out); break; }
            PyList_SetItem(out, k, w);
        }
        PyObject *res = out && PyTuple_Check(r) ? PyList_AsTuple(out) : Py_XNewRef(out);
        Py_XDECREF(out);
        if (res && PyTuple_Check(r) && !PyTuple_CheckExact(r))   /* torch.return_types.X */
            Py_SETREF(res, PyObject_CallFunctionObjArgs((PyObject *)Py_TYPE(r), res, NULL));
        Py_DECREF(r);
        return res;
    }
    return r;
}

static int norm_dim(int64_t d, int nd) {
    int n = nd > 0 ? nd : 1;
    if (d < -n || d >= n) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                     -n, n - 1, (long long)d);
        return -1;
    }
    return (int)(d < 0 ? d + n : d);
}

static bool is_write(const tn_schema *s) {
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].is_write) return true;
    return false;
}

static PyObject *inplace_error(const tn_op_def *d) {
    const char *name = !strcmp(d->name, "copy_") ? "inplace arithmetic" : d->name;
    return PyErr_Format(PyExc_RuntimeError,
                        "vmap: %s(self, *extra_args) is not possible because there exists a Tensor `other` in "
                        "extra_args that has more elements than `self`. This happened due to `other` being vmapped "
                        "over but `self` not being vmapped over in a vmap. Please try to use out-of-place operators "
                        "instead of %s. If said operator is being called inside the PyTorch framework, please file "
                        "a bug report instead.", name, name);
}

static PyObject *same_shape_on(int op, const tn_schema *s, tn_value *args, int L, PyObject *x);

/* Pointwise ops: whole tensors, batch dims in front, padded to broadcast. NULL without an
 * exception when the fast path does not apply. */
static PyObject *pointwise(int op, const tn_schema *s, tn_value *args, int L) {
    int maxnd = 0, write = -1;
    tn_dtype dt = (tn_dtype)-1;
    bool mixed = false, zero_dim_batched = false;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSORLIST) return NULL;
        if (s->args[i].is_write) { if (write >= 0 || args[i].tag != TN_V_TENSOR) return NULL; write = i; }
        if (args[i].tag != TN_V_TENSOR) continue;
        tn_tensor *t = tn_tensor_of(args[i].u.obj);
        if (t->ndim > maxnd) maxnd = t->ndim;
        if ((int)dt < 0) dt = t->dtype; else if (t->dtype != dt) mixed = true;
        if (t->ndim == 0 && tn_bt_level(args[i].u.obj) == L) zero_dim_batched = true;
    }
    if (zero_dim_batched && mixed) return NULL;   /* promotion sees the batch dim: slow path */
    int ntensors = 0;
    for (int i = 0; i < s->nargs; i++)
        if (args[i].tag == TN_V_TENSOR) ntensors++;
    if (ntensors == 1 && write < 0) {   /* unary: the whole tensor as it lies, batch dim kept */
        PyObject *x = NULL;
        for (int i = 0; i < s->nargs && !x; i++)
            if (args[i].tag == TN_V_TENSOR) x = args[i].u.obj;
        return same_shape_on(op, s, args, L, x);
    }
    if (write >= 0 && s->args[write].name && strcmp(s->args[write].name, "self")) return NULL;   /* out= */
    if (write >= 0 && tn_bt_level(args[write].u.obj) == L && tn_tensor_of(args[write].u.obj)->ndim != maxnd) return NULL;
    tn_value local[64];
    PyObject *own[64];
    int nown = 0;
    if (s->nargs > 64) return NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    PyObject *r = NULL;
    for (int i = 0; i < s->nargs; i++) {
        if (local[i].tag != TN_V_TENSOR || tn_bt_level(local[i].u.obj) != L) continue;
        PyObject *p = front(local[i].u.obj);
        for (int k = tn_tensor_of(local[i].u.obj)->ndim; p && k < maxnd; k++) Py_SETREF(p, tn_at_unsqueeze(p, 1));
        if (!p) goto done;
        own[nown++] = p;
        local[i].u.obj = p;
        local[i].wrapped = false;
    }
    r = tn_door_call(op, local);
    if (r && write >= 0) Py_SETREF(r, Py_NewRef(args[write].u.obj));
    else r = wrap_results(r, L);
done:
    for (int i = 0; i < nown; i++) Py_DECREF(own[i]);
    return r;
}

static const char *const same_shape_ops[] = {
    "alias", "detach", "clone", "zeros_like", "ones_like", "empty_like", "full_like", "_to_copy",
    "lift_fresh", "_fw_primal", "positive", NULL};

static bool name_in(const char *n, const char *const *list) {
    for (int i = 0; list[i]; i++)
        if (!strcmp(n, list[i])) return true;
    return false;
}

static PyObject *same_shape_on(int op, const tn_schema *s, tn_value *args, int L, PyObject *x) {
    tn_value local[64];
    if (s->nargs > 64) return NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++)
        if (local[i].tag == TN_V_TENSOR && local[i].u.obj == x) local[i].u.obj = O(x)->bt_value;
    PyObject *r = tn_door_call(op, local);
    if (r && PyTuple_Check(r)) {   /* several results (frexp): each keeps the batch dim */
        Py_ssize_t n = PyTuple_Size(r);
        PyObject *l = PyList_New(n);
        for (Py_ssize_t k = 0; l && k < n; k++) {
            PyObject *e = PyTuple_GetItem(r, k);
            PyObject *w = tn_py_is_tensor(e) ? tn_bt_make(e, O(x)->bt_bdim, L) : Py_NewRef(e);
            if (!w) { Py_CLEAR(l); break; }
            PyList_SetItem(l, k, w);
        }
        PyObject *t = l ? PyList_AsTuple(l) : NULL;
        Py_XDECREF(l);
        if (t && !PyTuple_CheckExact(r)) Py_SETREF(t, PyObject_CallFunctionObjArgs((PyObject *)Py_TYPE(r), t, NULL));
        Py_DECREF(r);
        return t;
    }
    if (!r || !tn_py_is_tensor(r)) return r;
    PyObject *b = tn_bt_make(r, O(x)->bt_bdim, L);
    Py_DECREF(r);
    return b;
}

/* same-shape ops on self alone (other tensor arguments unbatched): op(bt_value), same bdim */
static PyObject *same_shape(int op, const tn_schema *s, tn_value *args, int L) {
    if (s->nargs < 1 || args[0].tag != TN_V_TENSOR || tn_bt_level(args[0].u.obj) != L || is_write(s)) return NULL;
    for (int i = 1; i < s->nargs; i++)
        if ((args[i].tag == TN_V_TENSOR && tn_bt_level(args[i].u.obj)) || args[i].tag == TN_V_TENSORLIST) return NULL;
    tn_value local[64];
    if (s->nargs > 64) return NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    PyObject *x = args[0].u.obj;
    local[0].u.obj = O(x)->bt_value;
    PyObject *r = tn_door_call(op, local);
    if (!r || !tn_py_is_tensor(r)) return r;
    PyObject *b = tn_bt_make(r, O(x)->bt_bdim, L);
    Py_DECREF(r);
    return b;
}

static PyObject *int_list(int n, const int64_t *v, int64_t first, bool with_first) {
    PyObject *l = PyList_New(0);
    if (!l) return NULL;
    if (with_first) {
        PyObject *e = PyLong_FromLongLong(first);
        if (!e || PyList_Append(l, e) < 0) { Py_XDECREF(e); Py_DECREF(l); return NULL; }
        Py_DECREF(e);
    }
    for (int i = 0; i < n; i++) {
        PyObject *e = PyLong_FromLongLong(v[i]);
        if (!e || PyList_Append(l, e) < 0) { Py_XDECREF(e); Py_DECREF(l); return NULL; }
        Py_DECREF(e);
    }
    return l;
}

/* View ops with dims: the same view of the whole tensor (batch dim in front), dims shifted by
 * one. NULL without an exception when the op is not one of them. */
static PyObject *view_op(int op, const tn_schema *s, tn_value *args, int L, int64_t B, bool *handled) {
    *handled = false;
    const tn_op_def *d = tn_op_at(op);
    if (s->nargs < 1 || args[0].tag != TN_V_TENSOR || tn_bt_level(args[0].u.obj) != L) return NULL;
    for (int i = 1; i < s->nargs; i++)
        if (args[i].tag == TN_V_TENSOR || args[i].tag == TN_V_TENSORLIST) return NULL;
    PyObject *x = args[0].u.obj;
    int nd = tn_tensor_of(x)->ndim;
    const char *n = d->name, *ov = d->overload;
    PyObject *r = NULL;
#define ARGDIM(k_, nd_) norm_dim(args[k_].u.i, nd_)
    if (!strcmp(n, "select") && !strcmp(ov, "int")) {
        int dim = ARGDIM(1, nd); if (dim < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_select_int(p, dim + 1, (long long)args[2].u.i) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "movedim") && !strcmp(ov, "int")) {
        int a = ARGDIM(1, nd), b = a < 0 ? -1 : ARGDIM(2, nd); if (a < 0 || b < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_movedim_int(p, a + 1, b + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "transpose") && !strcmp(ov, "int")) {
        int a = ARGDIM(1, nd), b = a < 0 ? -1 : ARGDIM(2, nd); if (a < 0 || b < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_transpose_int(p, a + 1, b + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "t") && !ov[0]) {
        if (nd > 2) return NULL;   /* its own error */
        PyObject *p = front(x);
        r = p && nd == 2 ? tn_at_transpose_int(p, 1, 2) : Py_XNewRef(p);
        Py_XDECREF(p);
    } else if (!strcmp(n, "unsqueeze") && !ov[0]) {
        int a = ARGDIM(1, nd + 1); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_unsqueeze(p, a + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "squeeze") && !strcmp(ov, "dim")) {
        int a = ARGDIM(1, nd); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? (nd == 0 ? Py_NewRef(p) : tn_at_squeeze_dim(p, a + 1)) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "squeeze") && !ov[0]) {
        int64_t dims[TN_MAX_DIMS]; int k = 0;
        for (int i = 0; i < nd; i++) if (tn_tensor_of(x)->sizes[i] == 1) dims[k++] = i + 1;
        PyObject *p = front(x), *l = int_list(k, dims, 0, false);
        r = p && l ? tn_at_squeeze_dims(p, TN_IPY(l)) : NULL;
        Py_XDECREF(p); Py_XDECREF(l);
    } else if (!strcmp(n, "permute") && !ov[0]) {
        if (args[1].u.ints.n != nd) return NULL;   /* its own error */
        int64_t dims[TN_MAX_DIMS];
        for (int i = 0; i < nd; i++) {
            int a = norm_dim(args[1].u.ints.v[i], nd);
            if (a < 0) return *handled = true, NULL;
            dims[i] = a + 1;
        }
        PyObject *p = front(x), *l = int_list(nd, dims, 0, true);
        r = p && l ? tn_at_permute(p, TN_IPY(l)) : NULL;
        Py_XDECREF(p); Py_XDECREF(l);
    } else if ((!strcmp(n, "expand") || !strcmp(n, "view") || !strcmp(n, "reshape") || !strcmp(n, "_unsafe_view")) &&
               !ov[0]) {
        int k = args[1].u.ints.n;
        PyObject *p = front(x);
        if (!strcmp(n, "expand"))
            for (int i = nd; p && i < k; i++) Py_SETREF(p, tn_at_unsqueeze(p, 1));
        PyObject *l = int_list(k, args[1].u.ints.v, B, true);
        if (p && l)
            r = !strcmp(n, "expand") ? tn_at_expand(p, TN_IPY(l), false) : !strcmp(n, "view") ? tn_at_view(p, TN_IPY(l))
              : !strcmp(n, "reshape") ? tn_at_reshape(p, TN_IPY(l)) : tn_at__unsafe_view(p, TN_IPY(l));
        Py_XDECREF(p); Py_XDECREF(l);
    } else if (!strcmp(n, "slice") && !strcmp(ov, "Tensor")) {
        int a = ARGDIM(1, nd); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_slice_Tensor(p, a + 1, tn_opt_int_of(&args[2]), tn_opt_int_of(&args[3]), args[4].u.i) : NULL;
        Py_XDECREF(p);
    } else if ((!strcmp(n, "as_strided") || !strcmp(n, "_reshape_alias")) && !ov[0]) {
        /* upstream's rule: the same geometry in every slice, slices a batch stride apart (the
         * logical tensor lies where slice 0 of the whole one does) */
        PyObject *p = front(x);
        if (!p) return *handled = true, NULL;
        int64_t bstride = tn_tensor_of(p)->strides[0];
        int64_t off = s->nargs < 4 || args[3].tag == TN_V_NONE ? tn_tensor_of(x)->offset : args[3].u.i;
        PyObject *sz = int_list(args[1].u.ints.n, args[1].u.ints.v, B, true);
        PyObject *st = int_list(args[2].u.ints.n, args[2].u.ints.v, bstride, true);
        r = sz && st ? tn_at_as_strided(p, TN_IPY(sz), TN_IPY(st), TN_I((long long)off)) : NULL;
        Py_XDECREF(p); Py_XDECREF(sz); Py_XDECREF(st);
    } else if (!strcmp(n, "diagonal") && !ov[0]) {
        int a = ARGDIM(2, nd), b = a < 0 ? -1 : ARGDIM(3, nd); if (a < 0 || b < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_diagonal(p, (long long)args[1].u.i, a + 1, b + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "unbind") && !strcmp(ov, "int")) {
        int a = ARGDIM(1, nd); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_unbind_int(p, a + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "split") && !strcmp(ov, "Tensor")) {
        int a = ARGDIM(2, nd); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x);
        r = p ? tn_at_split_Tensor(p, (long long)args[1].u.i, a + 1) : NULL;
        Py_XDECREF(p);
    } else if (!strcmp(n, "split_with_sizes") && !ov[0]) {
        int a = ARGDIM(2, nd); if (a < 0) return *handled = true, NULL;
        PyObject *p = front(x), *l = int_list(args[1].u.ints.n, args[1].u.ints.v, 0, false);
        r = p && l ? tn_at_split_with_sizes(p, TN_IPY(l), a + 1) : NULL;
        Py_XDECREF(p); Py_XDECREF(l);
    } else {
        return NULL;
    }
#undef ARGDIM
    *handled = true;
    return wrap_results(r, L);
}

/* The matrix-product family as upstream's batching rules compute it (so results, their layout
 * and their rounding are those of the same products): dot, mv, mm. NULL without an exception
 * when not applicable. */
static PyObject *linalg(int op, const tn_schema *s, tn_value *args, int L) {
    const tn_op_def *d = tn_op_at(op);
    if (d->overload[0] || s->nargs != 2 || args[0].tag != TN_V_TENSOR || args[1].tag != TN_V_TENSOR) return NULL;
    bool dot = !strcmp(d->name, "dot"), mv = !strcmp(d->name, "mv"), mm = !strcmp(d->name, "mm");
    if (!dot && !mv && !mm) return NULL;
    PyObject *a = args[0].u.obj, *b = args[1].u.obj;
    int na = tn_tensor_of(a)->ndim, nb = tn_tensor_of(b)->ndim;
    if ((dot && (na != 1 || nb != 1)) || (mv && (na != 2 || nb != 1)) || (mm && (na != 2 || nb != 2))) return NULL;   /* their own errors */
    bool ba = tn_bt_level(a) == L, bb = tn_bt_level(b) == L;
    PyObject *A = ba ? front(a) : Py_NewRef(a), *Bt = A ? (bb ? front(b) : Py_NewRef(b)) : NULL;
    if (!Bt) { Py_XDECREF(A); return NULL; }
    PyObject *r = NULL, *u1 = NULL, *u2 = NULL, *m = NULL, *tr = NULL;
    int bdim = 0;
    if (dot) {
        if (ba && bb) {
            u1 = tn_at_unsqueeze(A, -2);
            u2 = u1 ? tn_at_unsqueeze(Bt, -1) : NULL;
            m = u2 ? tn_at_matmul(u1, u2) : NULL;
            PyObject *q = m ? tn_at_squeeze_dim(m, -1) : NULL;
            r = q ? tn_at_squeeze_dim(q, -1) : NULL;
            Py_XDECREF(q);
        } else {   /* one side batched: [B, n] @ [n] */
            r = ba ? tn_at_matmul(A, Bt) : tn_at_matmul(Bt, A);
        }
    } else if (mv) {
        if (ba && bb) {
            u1 = tn_at_unsqueeze(Bt, -1);
            m = u1 ? tn_at_matmul(A, u1) : NULL;
            r = m ? tn_at_squeeze_dim(m, -1) : NULL;
        } else if (ba) {
            r = tn_at_matmul(A, Bt);
        } else {   /* mat unbatched, vectors batched: one mm, the batch dim last */
            tr = tn_at_t(Bt);
            r = tr ? tn_at_mm(A, tr) : NULL;
            bdim = 1;
        }
    } else {
        if (ba && bb) r = tn_at_bmm(A, Bt);
        else r = tn_at_matmul(A, Bt);
    }
    Py_XDECREF(u1); Py_XDECREF(u2); Py_XDECREF(m); Py_XDECREF(tr);
    Py_DECREF(A); Py_DECREF(Bt);
    if (!r) return NULL;
    PyObject *res = tn_bt_make(r, bdim, L);
    Py_DECREF(r);
    return res;
}

/* Views the fast paths do not cover and in-place ops that change self's geometry: the slow
 * fallback would lose the aliasing, so they refuse by name. */
static bool unsupported(int op, const tn_schema *s) {
    static const char *const geo_inplace[] = {"squeeze_", "unsqueeze_", "t_", "transpose_", "swapdims_", "swapaxes_",
                                              "resize_", "resize_as_", "as_strided_", "set_", "detach_", NULL};
    const tn_op_def *d = tn_op_at(op);
    if (name_in(d->name, geo_inplace)) return true;
    if (is_write(s)) return false;
    for (int k = 0; k < s->nrets; k++)
        if (s->rets[k].alias_set) return true;   /* a view of an argument */
    return false;
}

static PyObject *slice_of(PyObject *x, int L, int64_t b) {
    return tn_at_select_int(O(x)->bt_value, O(x)->bt_bdim, (long long)b);
}

/* The random op the slow fallback is calling slice by slice (-1: none): each slice's call is an
 * ordinary draw of that slice, as upstream's fallback runs it, not a random factory under vmap. */
static _Thread_local int random_slicing_op = -1;

/* Random ops that take upstream's slow fallback (no batch rule there): its check_randomness, then
 * one ordinary draw per slice. The random ops upstream has batch rules for and we do not
 * (normal_, normal.Tensor_Tensor, ...) draw differently per slice, so they keep refusing. */
static bool upstream_random_fallback(int op) { return op == TN_ROW_binomial; }

/* upstream's slow fallback: one call per batch slice, results stacked along a new front dim */
static PyObject *fallback(int op, const tn_schema *s, tn_value *args, int L, int64_t B) {
    const tn_op_def *d = tn_op_at(op);
    if (s->nargs > 64) return tn_not_implemented("vmap over an operator with this many arguments");
    bool any_batched_other = false;
    int first_write = -1;
    for (int i = 0; i < s->nargs; i++) {
        bool b = (args[i].tag == TN_V_TENSOR && tn_bt_level(args[i].u.obj) == L) ||
                 (args[i].tag == TN_V_TENSORLIST && list_max_level(args[i].u.obj) == L);
        if (s->args[i].is_write) { if (first_write < 0) first_write = i; }
        else if (b) any_batched_other = true;
    }
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].is_write && args[i].tag == TN_V_TENSOR && tn_bt_level(args[i].u.obj) != L && any_batched_other)
            return inplace_error(d);
    if (upstream_random_fallback(op) && any_batched_other) {   /* upstream's check_randomness */
        layer *l = innermost_vmap();
        if (l && l->randomness == R_SAME) {
            PyErr_SetString(PyExc_RuntimeError, "Vmap does not currently support same randomness with a batched "
                                                "tensor input. Please file an issue with functorch");
            return NULL;
        }
    }
    if (tn_vmap_fallback_warn &&
        PyErr_WarnFormat(PyExc_UserWarning, 1,
                         "There is a performance drop because we have not yet implemented the batching rule for "
                         "aten::%s%s%s. Please file us an issue on GitHub so that we can prioritize its "
                         "implementation.", d->name, d->overload[0] ? "." : "", d->overload) < 0)
        return NULL;
    if (B == 0) return tn_not_implemented("vmap over a batch of size 0 for this operator");
    PyObject *outs = PyList_New(0);
    if (!outs) return NULL;
    for (int64_t b = 0; b < B; b++) {
        tn_value local[64];
        PyObject *own[64];
        int nown = 0;
        memcpy(local, args, (size_t)s->nargs * sizeof *local);
        PyObject *r = NULL;
        for (int i = 0; i < s->nargs; i++) {
            if (local[i].tag == TN_V_TENSOR && tn_bt_level(local[i].u.obj) == L) {
                PyObject *sl = slice_of(local[i].u.obj, L, b);
                if (!sl) goto fail;
                own[nown++] = sl;
                local[i].u.obj = sl;
            } else if (local[i].tag == TN_V_TENSORLIST && list_max_level(local[i].u.obj) == L) {
                PyObject *f = PySequence_Tuple(local[i].u.obj);
                if (!f) goto fail;
                Py_ssize_t n = PyTuple_Size(f);
                PyObject *tup = PyTuple_New(n);
                if (!tup) { Py_DECREF(f); goto fail; }
                own[nown++] = tup;
                for (Py_ssize_t k = 0; k < n; k++) {
                    PyObject *e = PyTuple_GetItem(f, k);
                    PyObject *sl = tn_bt_level(e) == L ? slice_of(e, L, b) : Py_NewRef(e);
                    if (!sl) { Py_DECREF(f); goto fail; }
                    PyTuple_SetItem(tup, k, sl);
                }
                Py_DECREF(f);
                local[i].u.obj = tup;
            }
        }
        int was_slicing = random_slicing_op;
        if (upstream_random_fallback(op)) random_slicing_op = op;
        r = tn_door_call(op, local);
        random_slicing_op = was_slicing;
        if (!r) goto fail;
        if (first_write < 0 && !tn_py_is_tensor(r) && !PyTuple_Check(r) && !PyList_Check(r) && r != Py_None) {
            Py_DECREF(r);
            refuse("vmap over an operator returning a Python value (aten::%s%s)", d->name, "");
            goto fail;
        }
        if (PyList_Append(outs, r) < 0) { Py_DECREF(r); goto fail; }
        Py_DECREF(r);
        for (int i = 0; i < nown; i++) Py_DECREF(own[i]);
        continue;
    fail:
        for (int i = 0; i < nown; i++) Py_DECREF(own[i]);
        Py_DECREF(outs);
        return NULL;
    }
    if (first_write >= 0) {   /* written in place slice by slice: the written arguments */
        Py_DECREF(outs);
        int nw = 0;
        for (int i = 0; i < s->nargs; i++) if (s->args[i].is_write) nw++;
        if (nw == 1 || s->nrets <= 1) return Py_NewRef(args[first_write].u.obj);
        PyObject *t = PyTuple_New(nw);
        for (int i = 0, k = 0; t && i < s->nargs; i++)
            if (s->args[i].is_write) PyTuple_SetItem(t, k++, tn_value_to_python(&args[i]));
        return t;
    }
    PyObject *first = PyList_GetItem(outs, 0);
    PyObject *res = NULL;
    if (tn_py_is_tensor(first)) {
        res = wrap_results(tn_at_stack(TN_TPY(outs), 0), L);
    } else if (first == Py_None) {
        res = Py_NewRef(Py_None);
    } else {
        Py_ssize_t n = PySequence_Size(first);
        PyObject *parts = PyList_New(n);
        for (Py_ssize_t k = 0; parts && k < n; k++) {
            PyObject *col = PyList_New(B);
            bool none = false;
            for (int64_t b = 0; col && b < B; b++) {
                PyObject *e = PySequence_GetItem(PyList_GetItem(outs, b), k);
                if (!e) { Py_CLEAR(col); break; }
                if (e == Py_None) none = true;
                PyList_SetItem(col, b, e);
            }
            PyObject *v = !col ? NULL : none ? Py_NewRef(Py_None) : wrap_results(tn_at_stack(TN_TPY(col), 0), L);
            Py_XDECREF(col);
            if (!v) { Py_CLEAR(parts); break; }
            PyList_SetItem(parts, k, v);
        }
        res = parts && PyTuple_Check(first) ? PyList_AsTuple(parts) : Py_XNewRef(parts);
        Py_XDECREF(parts);
        if (res && PyTuple_Check(first) && !PyTuple_CheckExact(first))   /* torch.return_types.X */
            Py_SETREF(res, PyObject_CallFunctionObjArgs((PyObject *)Py_TYPE(first), res, NULL));
    }
    Py_DECREF(outs);
    return res;
}

/* randomness='different' for a random factory (randn(size), rand(size), randint(..., size), ...):
 * one draw of [batch, *size], as upstream's rule, so the generator's stream is the same */
static PyObject *different_factory(int op, const tn_schema *s, tn_value *args, layer *l) {
    int at = -1;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR || args[i].tag == TN_V_TENSORLIST) at = -2;
        if (at == -1 && s->args[i].name && !strcmp(s->args[i].name, "size") && args[i].tag == TN_V_INTLIST) at = i;
    }
    if (at < 0 || args[at].u.ints.n >= TN_MAX_DIMS)
        return refuse("vmap(randomness='different') for aten::%s%s with unbatched tensor inputs", tn_op_at(op)->name, "");
    if (s->nargs > 64) return tn_not_implemented("vmap over an operator with this many arguments");
    tn_value local[64];
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    int64_t sizes[TN_MAX_DIMS + 1];
    sizes[0] = l->batch;
    for (int k = 0; k < args[at].u.ints.n; k++) sizes[k + 1] = args[at].u.ints.v[k];
    local[at].u.ints.v = sizes;
    local[at].u.ints.n = args[at].u.ints.n + 1;
    PyObject *r = tn_door_below_vmap(op, local);
    if (!r || !tn_py_is_tensor(r)) return r;
    PyObject *b = tn_bt_make(r, 0, (int)(l - stack) + 1);
    Py_DECREF(r);
    return b;
}

bool tn_vmap_first(int op, const tn_value *args) {
    if (!depth || !tn_vmap_wants(op, args)) return false;
    const tn_schema *s = schema_of(op);
    if (!s) return false;
    if (stack[depth - 1].kind == TN_LAYER_VMAP && (max_level(s, args) == depth || (tn_op_tags(op) & TN_TAG_RANDOM)))
        return true;
    /* forward AD's order (autograd/forward.c): a jvp level's tangents live on the tensors of its
     * layer, so a vmap level above the arguments' tangents goes first (its calls on the whole
     * tensors carry those tangents), and one below them after */
    if (op == TN_ROW__make_dual || op == TN_ROW__unpack_dual || op == TN_ROW__fw_primal) return false;
    int cp = tn_fw_cap_pos(), F = tn_fw_args_pos(s, args), V = max_level(s, args);
    if (cp == INT_MAX && F < 0) return false;
    if (V <= 0 || V >= cp || F > V) return false;
    for (int i = V; i < depth && i < cp - 1; i++)
        if (stack[i].kind == TN_LAYER_GRAD) return false;
    return true;
}


/* upstream's unary_pointwise_random_batch_rule (functorch's BatchRulesRandomness): the random ops
 * whose one tensor argument gives the result's shape (_standard_gamma, _sample_dirichlet, poisson,
 * bernoulli, bernoulli.p, normal.Tensor_float, normal.float_Tensor). -1 for other ops, else the
 * index of that argument. */
static int unary_random_arg(int op) {
    if (op == TN_ROW__standard_gamma || op == TN_ROW__sample_dirichlet || op == TN_ROW_poisson ||
        op == TN_ROW_bernoulli || op == TN_ROW_bernoulli_p || op == TN_ROW_normal_Tensor_float)
        return 0;
    if (op == TN_ROW_normal_float_Tensor) return 1;
    return -1;
}

/* The rule: the tensor unwrapped at the innermost vmap level with its batch dim in front;
 * randomness='same' refuses a batched tensor, 'different' expands an unbatched one to
 * [batch, *shape]; one call on the whole tensor (one stream, as upstream's), batched at dim 0
 * except for 'same' with an unbatched tensor. */
static PyObject *unary_pointwise_random(int op, const tn_schema *s, tn_value *args, layer *l, int ti) {
    if (vmap_layers > 1) return refuse("nested vmap over aten::%s%s", tn_op_at(op)->name, "");
    int level = (int)(l - stack) + 1;
    PyObject *x = args[ti].u.obj;
    bool batched = tn_bt_level(x) == level;
    if (l->randomness == R_SAME && batched) {
        PyErr_SetString(PyExc_RuntimeError, "Vmap does not currently support same randomness with a batched tensor "
                                            "input. Please file an issue with functorch");
        return NULL;
    }
    PyObject *v;
    if (batched) {
        v = front(x);
    } else if (l->randomness == R_DIFFERENT) {
        const tn_tensor *t = tn_tensor_of(x);
        if (t->ndim + 1 > TN_MAX_DIMS) return tn_not_implemented("vmap over a tensor with this many dimensions");
        int64_t sz[TN_MAX_DIMS];
        sz[0] = l->batch;
        for (int k = 0; k < t->ndim; k++) sz[k + 1] = t->sizes[k];
        v = tn_at_expand(x, TN_IN(sz, t->ndim + 1), false);
    } else {
        v = Py_NewRef(x);
    }
    if (!v) return NULL;
    if (s->nargs > 64) {
        Py_DECREF(v);
        return tn_not_implemented("vmap over an operator with this many arguments");
    }
    tn_value local[64];
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    local[ti].u.obj = v;
    PyObject *r = tn_door_below_vmap(op, local);
    Py_DECREF(v);
    if (!r || (l->randomness == R_SAME && !batched)) return r;
    PyObject *b = tn_bt_make(r, 0, level);
    Py_DECREF(r);
    return b;
}

static PyObject *vmap_call(int op, tn_value *args, int L, const tn_schema *s);

/* Reached below an inner grad or jvp level (vmap(grad(f)) inside grad(...)): that level recorded
 * the call on the BatchedTensors; the whole tensors carry the history of the grad levels below
 * this vmap level, so the calls on them record (grad mode on) and a detach there is only the
 * inner level's (an alias of the whole tensor), as upstream's level-by-level wrappers. */
static bool grad_below(int L) {
    for (int i = 0; i < L - 1 && i < depth; i++)
        if (stack[i].kind == TN_LAYER_GRAD) return true;
    return false;
}

PyObject *tn_vmap_call(int op, tn_value *args) {
    const tn_schema *s = schema_of(op);
    if (!s) return NULL;
    int L = max_level(s, args);
    bool first = L > 0 && L == depth;
    if (first || L == 0 || !grad_below(L)) return vmap_call(op, args, L, s);
    if (op == TN_ROW_detach && args[0].tag == TN_V_TENSOR && tn_bt_level(args[0].u.obj) == L) {
        PyObject *x = args[0].u.obj;
        bool was = tn_grad_mode_set(true);
        int below = tn_below_autograd_swap(0);
        PyObject *p = tn_at_alias(O(x)->bt_value);
        tn_below_autograd_swap(below);
        tn_grad_mode_set(was);
        if (!p) return NULL;
        PyObject *b = tn_bt_make(p, O(x)->bt_bdim, L);
        Py_DECREF(p);
        return b;
    }
    bool was = tn_grad_mode_set(true);
    int below = tn_below_autograd_swap(0);   /* the outer grad level records the batched ops */
    PyObject *r = vmap_call(op, args, L, s);
    tn_below_autograd_swap(below);
    tn_grad_mode_set(was);
    return r;
}

static PyObject *vmap_call(int op, tn_value *args, int L, const tn_schema *s) {
    if (op == TN_ROW__make_dual) {
        /* the forward stage (autograd/forward.c) sets the (possibly batched) tangent on the
         * result; the result itself is an alias of the primal */
        if (tn_bt_level(args[0].u.obj)) return tn_at_alias(args[0].u.obj);
        return tn_door_below_vmap(op, args);
    }
    {   /* a CompositeImplicitAutograd op decomposes first, as upstream's under vmap (dropout
         * with training=False draws nothing) */
        bool h;
        PyObject *r = tn_composite_under_mode(op, args, &h);
        if (h) return r;
    }
    if ((tn_op_tags(op) & TN_TAG_RANDOM) && op != random_slicing_op) {
        layer *l = innermost_vmap();
        if (l && l->randomness == R_ERROR) {
            PyErr_SetString(PyExc_RuntimeError,
                            "vmap: called random operation while in randomness error mode. Please either use the "
                            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                            "out of vmap");
            return NULL;
        }
        int ti = l ? unary_random_arg(op) : -1;
        if (ti >= 0 && args[ti].tag == TN_V_TENSOR) return unary_pointwise_random(op, s, args, l, ti);
        if (l && l->randomness == R_DIFFERENT && L == 0) return different_factory(op, s, args, l);
        if (L == 0) return tn_door_below_vmap(op, args);
    }
    if (L == 0) return tn_door_below_vmap(op, args);
    if (L > depth || stack[L - 1].kind != TN_LAYER_VMAP) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Either your tensor may have escaped from inside a function being vmapped and this is a "
                        "user error (see https://pytorch.org/functorch/stable/ux_limitations.html), or there is "
                        "an internal functorch error in `gen_vmap_plumbing` Please file an issue if it looks like "
                        "the latter");
        return NULL;
    }
    int64_t B = stack[L - 1].batch;
    const tn_op_def *d = tn_op_at(op);
    if (!strcmp(d->name, "item") || !strcmp(d->name, "_local_scalar_dense")) {
        PyErr_SetString(PyExc_RuntimeError,
                        "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
                        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
                        "operations. If error is occurring somewhere inside PyTorch internals, please file a "
                        "bug report.");
        return NULL;
    }
    if ((tn_op_tags(op) & TN_TAG_POINTWISE) && !(tn_op_tags(op) & TN_TAG_RANDOM)) {
        PyObject *r = pointwise(op, s, args, L);
        if (r || PyErr_Occurred()) return r;
    }
    if (name_in(d->name, same_shape_ops)) {
        PyObject *r = same_shape(op, s, args, L);
        if (r || PyErr_Occurred()) return r;
    }
    {
        PyObject *r = linalg(op, s, args, L);
        if (r || PyErr_Occurred()) return r;
    }
    bool handled;
    PyObject *r = view_op(op, s, args, L, B, &handled);
    if (handled) return r;
    if (unsupported(op, s)) return refuse("vmap over aten::%s.%s (a view or in-place geometry change)", d->name, d->overload);
    return fallback(op, s, args, L, B);
}
