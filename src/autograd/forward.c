/* forward.c — forward-mode AD: dual levels, tangents on tensors, and the door's forward stage.
 *
 * torch.autograd.forward_ad enters a dual level (one at a time, as upstream: nested dual levels
 * refuse; torch.func's nested jvp gets levels of its own, below), makes dual tensors with
 * aten::_make_dual and reads them back with _unpack_dual. A tensor's tangent lives on its Python
 * object (fw_grad, fw_more) and counts only while the level that set it lives (its generation);
 * leaving the level drops every tangent set in it. docs/forward_ad_nested.md.
 *
 * The door's forward stage (tn_forward_wants / tn_forward_call) runs when a level exists, forward
 * grad mode is on and an argument has a tangent: the op runs (with reverse-mode recording as
 * usual) while the forward stage is off below it, then each of the overload's forward derivatives
 * — derivatives.yaml's `result:` formulas as torchgen's loader expands them (auto_element_wise,
 * auto_linear, in-place variants), turned into a small prefix program by tools/fw_formulas.py — is
 * evaluated here, calling aten ops by name through the door (with the forward stage off, so the
 * formula's own ops carry no tangents) and upstream's helper functions in forward_formulas.c. An
 * undefined input tangent is a zero tensor that mul/div/add/sub treat as upstream's ZeroTensor
 * does. CompositeImplicitAutograd overloads decompose (decomp.c), so tangents flow through their
 * pieces, as upstream's. See docs/ARCHITECTURE.md. */
#include "ops/common.h"
#include "dispatch/args.h"
#include "tn_ops_gen.h"
#include "autograd/forward.h"
#include "dispatch/functorch.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Levels. Level 0 is forward_ad's dual level (one at a time, as upstream: a second
 * _enter_dual_level refuses). torch.func's jvp nested inside another jvp gets a level of its own
 * (tn_fw_push_nested, called when its functorch layer is pushed): upstream keeps every jvp's
 * tangents at its dual level 0 on functorch's per-level wrappers; torchnative has no wrappers, so a
 * tensor keeps one tangent slot per level instead (level 0 in fw_grad, the nested ones in
 * fw_more). The innermost level is the one _make_dual / _unpack_dual / _fw_primal mean by the
 * level 0 Python passes. The levels are process-wide, as upstream's (ForwardADLevel is a global
 * list); forward grad mode (_set_fwd_grad_enabled) is thread-local in grad_mode.c.
 *
 * The forward stage handles the innermost level with a tangent among the arguments, L: the op runs
 * through the stage again for the levels below L (fw_cap = L), and L's formula runs with the
 * stage open for the levels below L, so the tangent arithmetic carries the outer levels' tangents,
 * as upstream's jvp of jvp computes them. fw_cap = 0 closes the stage. */
#define FW_MAX 64
static int fw_n;                           /* live levels */
static uint64_t fw_gens[FW_MAX];           /* each live level's generation */
static int fw_pos[FW_MAX];                 /* each level's torch.func layer (its jvp), 0: none */
static uint64_t fw_next_gen = 1;
static PyObject *fw_registry[FW_MAX];      /* per level: weak references to tensors given a tangent */
static _Thread_local int fw_cap = FW_MAX;  /* the stage sees levels below this */
static _Thread_local int fw_cur = -1;      /* the level tn_fw_grad reads (-1: the innermost) */

bool tn_fw_level_active(void) { return fw_n > 0; }

static int cap_set(int c) { int o = fw_cap; fw_cap = c; return o; }
static int cur_level(void) { return fw_cur >= 0 ? fw_cur : fw_n - 1; }

/* ---- tangents on tensors ---- */

static PyObject *direct_grad_at(PyObject *t, int L) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (L < 0 || L >= fw_n) return NULL;
    if (L == 0) return o->fw_grad && o->fw_gen == fw_gens[0] ? o->fw_grad : NULL;
    if (L > o->fw_nmore) return NULL;
    tn_fw_slot *sl = &o->fw_more[L - 1];
    return sl->g && sl->gen == fw_gens[L] ? sl->g : NULL;
}

static int store_grad_at(PyObject *t, PyObject *g, int L) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (L == 0) {
        Py_XSETREF(o->fw_grad, Py_NewRef(g));
        o->fw_gen = fw_gens[0];
    } else {
        if (L > o->fw_nmore) {
            tn_fw_slot *m = PyMem_Realloc(o->fw_more, (size_t)L * sizeof *m);
            if (!m) { PyErr_NoMemory(); return -1; }
            for (int i = o->fw_nmore; i < L; i++) m[i] = (tn_fw_slot){NULL, 0};
            o->fw_more = m;
            o->fw_nmore = L;
        }
        Py_XSETREF(o->fw_more[L - 1].g, Py_NewRef(g));
        o->fw_more[L - 1].gen = fw_gens[L];
    }
    PyObject **reg = &fw_registry[L];
    if (!*reg && !(*reg = PyList_New(0))) return -1;
    /* drop dead references now and then, so a long loop inside one level stays flat */
    Py_ssize_t n = PyList_Size(*reg);
    if (n >= 1024 && (n & (n - 1)) == 0) {
        PyObject *keep = PyList_New(0);
        if (!keep) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *w = PyList_GetItem(*reg, i);
            if (PyWeakref_GetObject(w) != Py_None) {
                if (PyList_Append(keep, w) < 0) { Py_DECREF(keep); return -1; }
            }
        }
        Py_SETREF(*reg, keep);
    }
    PyObject *w = PyWeakref_NewRef(t, NULL);
    if (!w) return -1;
    int r = PyList_Append(*reg, w);
    Py_DECREF(w);
    return r;
}

/* Upstream's AutogradMeta::fw_grad at level L: the tensor's own tangent, or, for a view whose base
 * got a tangent (an in-place op on the base), the same view of the base's tangent. Borrowed. */
PyObject *tn_fw_grad_at(PyObject *t, int L) {
    if (L < 0 || L >= fw_n || !tn_fwd_grad_enabled() || !t || !tn_py_is_tensor(t)) return NULL;
    PyObject *g = direct_grad_at(t, L);
    if (g) return g;
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->base || o->fw_noview) return NULL;
    PyObject *bg = direct_grad_at(o->base, L);
    if (!bg) return NULL;
    const tn_tensor *v = tn_tensor_of(t);
    int c = cap_set(L);
    PyObject *nv = tn_at_as_strided(bg, TN_IN(v->sizes, v->ndim), TN_IN(v->strides, v->ndim), TN_I((long long)v->offset));
    fw_cap = c;
    if (!nv || store_grad_at(t, nv, L) < 0) { Py_XDECREF(nv); PyErr_Clear(); return NULL; }
    Py_DECREF(nv);
    return direct_grad_at(t, L);
}

/* the tangent at the level being computed (inside a formula) or else the innermost level */
PyObject *tn_fw_grad(PyObject *t) { return tn_fw_grad_at(t, cur_level()); }

/* the innermost level below the stage's cap at which t has a tangent, or -1 */
static int top_level_of(PyObject *t) {
    int hi = (fw_cap < fw_n ? fw_cap : fw_n) - 1;
    for (int L = hi; L >= 0; L--)
        if (tn_fw_grad_at(t, L)) return L;
    return -1;
}

bool tn_fw_any(PyObject *t) {
    for (int L = fw_n - 1; L >= 0; L--)
        if (tn_fw_grad_at(t, L)) return true;
    return false;
}

static int64_t storage_numel(const tn_tensor *t) {
    return (int64_t)(t->storage->nbytes / (size_t)tn_dtype_itemsize(t->dtype));
}

/* upstream's utils::has_same_meta: offset, sizes, strides (of dims longer than 1), storage size */
static bool same_meta(PyObject *a, PyObject *b) {
    const tn_tensor *x = tn_tensor_of(a), *y = tn_tensor_of(b);
    if (x->offset != y->offset || x->ndim != y->ndim) return false;
    if (x->math_bits != y->math_bits) return false;   /* conj / neg bits, as upstream's has_same_meta */
    for (int i = 0; i < x->ndim; i++) {
        if (x->sizes[i] != y->sizes[i]) return false;
        if (x->strides[i] != y->strides[i] && x->sizes[i] != 1) return false;
    }
    /* upstream's batching rule of _has_same_storage_numel: a batched tangent of an unbatched
     * tensor skips the storage check */
    if (tn_bt_level(a) && !tn_bt_level(b)) return true;
    return storage_numel(x) == storage_numel(y);
}

static PyObject *zeros_with_meta(PyObject *self, PyObject *other) {
    return tn_at__new_zeros_with_same_feature_meta(self, other, 0);
}

static PyObject *size_str(const tn_tensor *t) {
    PyObject *parts = PyList_New(0);
    for (int i = 0; parts && i < t->ndim; i++) {
        PyObject *n = PyUnicode_FromFormat("%lld", (long long)t->sizes[i]);
        if (!n || PyList_Append(parts, n) < 0) { Py_XDECREF(n); Py_CLEAR(parts); break; }
        Py_DECREF(n);
    }
    if (!parts) return NULL;
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *j = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    return j;
}

/* Upstream's AutogradMeta::set_fw_grad, at level L. */
int tn_fw_set_at(PyObject *self, PyObject *grad, bool inplace, int L) {
    if (L < 0 || L >= fw_n) {
        PyErr_SetString(PyExc_RuntimeError, "Trying to access a forward AD level with an invalid index. This index "
                        "was either not created or is already deleted.");
        return -1;
    }
    if (direct_grad_at(grad, L)) {
        /* upstream's level number: each jvp keeps its tangents at dual level 0 (see above) */
        PyErr_SetString(PyExc_RuntimeError, "Setting a forward grad that itself has a forward gradient at the same "
                        "level 0 is not supported.");
        return -1;
    }
    PyObject *have = direct_grad_at(self, L);
    if (have) {
        if (!inplace) {
            PyErr_SetString(PyExc_RuntimeError, "Only inplace operations can re-set the forward grad of a Tensor "
                            "that already has one.");
            return -1;
        }
        if (have == grad) return 0;
        return store_grad_at(self, grad, L);
    }
    const tn_tensor *st = tn_tensor_of(self), *gt = tn_tensor_of(grad);
    bool same_size = st->ndim == gt->ndim;
    for (int i = 0; same_size && i < st->ndim; i++) same_size = st->sizes[i] == gt->sizes[i];
    if (!same_size) {
        PyObject *a = size_str(st), *b = size_str(gt);
        if (a && b)
            PyErr_Format(PyExc_RuntimeError, "Trying to set a forward gradient that has a different size than that "
                         "of the original Tensor, this is not supported. Tensor is of size [%U] while the given "
                         "forward gradient is of size [%U].", a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
        return -1;
    }
    PyObject *g = Py_NewRef(grad);
    tn_tensor_obj *so = (tn_tensor_obj *)self;
    /* the tangent arithmetic below is seen by the levels outside L */
    if (inplace && so->base && !so->fw_noview && !direct_grad_at(so->base, L)) {
        /* an in-place op on a view whose base has no tangent: the base gets one (zeros), and the
         * view's tangent is that view of it */
        PyObject *base = so->base, *nb;
        int c = cap_set(L);
        if (same_meta(g, base) && same_meta(g, self)) {
            nb = Py_NewRef(g);
        } else {
            nb = zeros_with_meta(g, base);
            PyObject *nv = nb ? tn_at_as_strided(nb, TN_IN(st->sizes, st->ndim), TN_IN(st->strides, st->ndim), TN_I((long long)st->offset)) : NULL;
            PyObject *cp = nv ? tn_at_copy_(nv, g, false) : NULL;
            Py_XDECREF(cp);
            if (!cp) { Py_XDECREF(nv); Py_XDECREF(nb); nb = NULL; }
            else Py_SETREF(g, nv);
        }
        fw_cap = c;
        if (!nb) { Py_DECREF(g); return -1; }
        int r = tn_fw_set_at(base, nb, false, L);
        Py_DECREF(nb);
        if (r < 0) { Py_DECREF(g); return -1; }
    }
    if (!same_meta(g, self)) {   /* the tangent takes the primal's layout */
        int c = cap_set(L);
        PyObject *res = zeros_with_meta(g, self);
        PyObject *cp = res ? tn_at_copy_(res, g, false) : NULL;
        fw_cap = c;
        Py_XDECREF(cp);
        if (!cp) { Py_XDECREF(res); Py_DECREF(g); return -1; }
        Py_SETREF(g, res);
    }
    int r = store_grad_at(self, g, L);
    Py_DECREF(g);
    return r;
}

int tn_fw_set(PyObject *self, PyObject *grad, bool inplace) { return tn_fw_set_at(self, grad, inplace, cur_level()); }

/* dst gets src's tangent at every level (a C-made alias standing for src) */
int tn_fw_copy_levels(PyObject *dst, PyObject *src) {
    for (int L = 0; L < fw_n; L++) {
        PyObject *g = tn_fw_grad_at(src, L);
        if (g && !direct_grad_at(dst, L) && tn_fw_set_at(dst, g, false, L) < 0) return -1;
    }
    return 0;
}

/* ---- levels ---- */

static void release_level(int L) {
    /* release every tangent set in the level now, as upstream's ForwardADLevel does */
    PyObject *reg = fw_registry[L];
    fw_registry[L] = NULL;
    for (Py_ssize_t i = 0; reg && i < PyList_Size(reg); i++) {
        PyObject *obj = PyWeakref_GetObject(PyList_GetItem(reg, i));
        if (!obj || obj == Py_None) continue;
        tn_tensor_obj *o = (tn_tensor_obj *)obj;
        if (L == 0) Py_CLEAR(o->fw_grad);
        else if (L <= o->fw_nmore) Py_CLEAR(o->fw_more[L - 1].g);
    }
    Py_XDECREF(reg);
}

static PyObject *enter_dual_level(PyObject *m, PyObject *u) {
    if (fw_n > 0) {
        PyErr_SetString(PyExc_RuntimeError, "Nested forward mode AD is not supported at the moment");
        return NULL;
    }
    fw_gens[0] = fw_next_gen++;
    fw_pos[0] = tn_functorch_innermost(TN_LAYER_JVP);
    fw_n = 1;
    return PyLong_FromLong(0);
}

static PyObject *exit_dual_level(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"level", NULL};
    long long level;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "$L:_exit_dual_level", kws, &level)) return NULL;
    if (level != fw_n - 1 || fw_n <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "Exiting a forward AD level that is not the last that was created is "
                        "not support. Ensure they are released in the reverse order they were created.");
        return NULL;
    }
    fw_n = 0;
    fw_gens[0] = 0;
    release_level(0);
    Py_RETURN_NONE;
}

/* torch.func's jvp inside another jvp (dispatch/functorch.c, when its layer is pushed): a level
 * of its own; -1 when no dual level exists yet (the outermost jvp enters level 0 itself) */
int tn_fw_push_nested(int pos) {
    if (fw_n <= 0) return -1;
    if (fw_n >= FW_MAX) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: more than 64 nested forward AD levels");
        return -2;
    }
    fw_gens[fw_n] = fw_next_gen++;
    fw_pos[fw_n] = pos;
    return fw_n++;
}

void tn_fw_pop_nested(int L) {
    if (L < 1 || L != fw_n - 1) return;   /* the level stack unwound already */
    fw_n--;
    fw_gens[L] = 0;
    release_level(L);
}

/* ---- the aten ops of dual tensors (below autograd: views of their input) ---- */

static PyObject *alias_view(PyObject *t) {
    const tn_tensor *x = tn_tensor_of(t);
    PyObject *v = tn_tensor_new_view(t, x->ndim, x->sizes, x->strides, x->offset);
    if (v) ((tn_tensor_obj *)v)->fw_noview = true;
    return v;
}
PyObject *tn_op__make_dual(tn_value *args) { return alias_view(args[0].u.obj); }
PyObject *tn_op__fw_primal(tn_value *args) { return alias_view(args[0].u.obj); }
PyObject *tn_op__unpack_dual(tn_value *args) {
    return tn_return_pair("_unpack_dual", alias_view(args[0].u.obj), Py_NewRef(Py_None));
}

PyObject *tn_op__new_zeros_with_same_feature_meta(tn_value *args) {
    PyObject *self = args[0].u.obj, *other = args[1].u.obj;
    const tn_tensor *o = tn_tensor_of(other), *t = tn_tensor_of(self);
    /* self_num_batch_dims = n > 0: self's first n sizes go in front of other's geometry, with
     * strides over n copies of other's storage (upstream's rule, measured on 2.13.0). More batch
     * dims than self has (upstream reads past its sizes) or a negative count stay refused. */
    int64_t n = args[2].u.i;
    if (n < 0 || n > t->ndim || n + o->ndim > TN_MAX_DIMS)
        return tn_not_implemented("_new_zeros_with_same_feature_meta with self_num_batch_dims out of [0, self.dim()]");
    int nd = (int)n + o->ndim;
    int64_t sizes[TN_MAX_DIMS], strides[TN_MAX_DIMS], prod = storage_numel(o);
    for (int i = (int)n - 1; i >= 0; i--) {
        strides[i] = prod;
        if (__builtin_mul_overflow(prod, t->sizes[i], &prod)) {
            PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
            return NULL;
        }
    }
    memcpy(sizes, t->sizes, (size_t)n * sizeof *sizes);
    memcpy(sizes + n, o->sizes, (size_t)o->ndim * sizeof *sizes);
    memcpy(strides + n, o->strides, (size_t)o->ndim * sizeof *strides);
    /* upstream takes the dtype of other as well (measured on 2.13.0) */
    PyObject *z = tn_at_zeros(TN_IS(prod), TN_DT(o->dtype), NULL, NULL, NULL);
    if (!z) return NULL;
    PyObject *r = tn_at_as_strided(z, TN_IN(sizes, nd), TN_IN(strides, nd), TN_I((long long)o->offset));
    Py_DECREF(z);
    if (r) { /* a fresh tensor of its own, not a view of the zeros */
        Py_CLEAR(((tn_tensor_obj *)r)->base);
    }
    return r;
}

PyObject *tn_op__has_same_storage_numel(tn_value *args) {
    return PyBool_FromLong(storage_numel(tn_tensor_of(args[0].u.obj)) == storage_numel(tn_tensor_of(args[1].u.obj)));
}

/* ---- the forward stage ---- */

/* the innermost level below the cap at which an argument has a tangent, or -1 */
static int top_level_in(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return top_level_of(v->u.obj);
    int m = -1;
    if (v->tag == TN_V_TENSORLIST) {
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++) {
            PyObject *e = PyTuple_GetItem(v->u.obj, k);
            if (tn_py_is_tensor(e)) {
                int l = top_level_of(e);
                if (l > m) m = l;
            }
        }
    }
    return m;
}

static bool tangent_in_at(const tn_value *v, int L) {
    if (v->tag == TN_V_TENSOR) return tn_fw_grad_at(v->u.obj, L) != NULL;
    if (v->tag == TN_V_TENSORLIST) {
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++) {
            PyObject *e = PyTuple_GetItem(v->u.obj, k);
            if (tn_py_is_tensor(e) && tn_fw_grad_at(e, L)) return true;
        }
    }
    return false;
}

static int top_level_args(const tn_schema *s, const tn_value *args) {
    int m = -1;
    for (int i = 0; i < s->nargs; i++) {
        int l = top_level_in(&args[i]);
        if (l > m) m = l;
    }
    return m;
}

/* For the vmap stage's order (dispatch/functorch.c): the torch.func layer of the level the stage
 * is capped at (the layers from there up are done; INT_MAX when not capped), and that of the
 * innermost level with a tangent among the arguments (-1: none). */
int tn_fw_cap_pos(void) { return fw_cap > 0 && fw_cap < fw_n ? fw_pos[fw_cap] : INT_MAX; }
int tn_fw_args_pos(const tn_schema *s, const tn_value *args) {
    if (fw_n <= 0 || fw_cap <= 0 || !tn_fwd_grad_enabled()) return -1;
    int L = top_level_args(s, args);
    return L < 0 ? -1 : fw_pos[L];
}

bool tn_forward_wants(int op, const tn_value *args) {
    if (op == TN_ROW__make_dual || op == TN_ROW__unpack_dual || op == TN_ROW__fw_primal) return true;
    if (fw_n <= 0 || fw_cap <= 0 || !tn_fwd_grad_enabled()) return false;
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    return top_level_args(s, args) >= 0;
}

/* torch.func's jvp over grad (docs/func.md): the output this op's node saved for backward carries
 * the output's tangent too, as upstream's SavedVariable keeps the forward grad of what it saves */
static int saved_output_tangent(PyObject *out, PyObject *tg, int L) {
    tn_tensor_obj *o = (tn_tensor_obj *)out;
    if (!o->grad_fn || !tn_is_node(o->grad_fn)) return 0;
    tn_node *n = (tn_node *)o->grad_fn;
    if (n->kind != TN_NODE_OP || !n->results || o->output_nr >= n->nout) return 0;
    PyObject *sv = n->results[o->output_nr];
    if (!sv || sv == out || !tn_py_is_tensor(sv) || tn_fw_grad_at(sv, L)) return 0;
    return tn_fw_set_at(sv, tg, false, L);
}

/* the op itself, with the forward stage open only for the levels below L (and reverse-mode
 * recording as usual below that) */
static PyObject *run_below(int op, tn_value *args, int L) {
    int c = cap_set(L);
    PyObject *r = tn_vmap_first(op, args) ? tn_vmap_call(op, args)
                : tn_forward_wants(op, args) ? tn_forward_call(op, args)
                : tn_autograd_wants(op, args) ? tn_autograd_call(op, args) : tn_door_below_autograd(op, args);
    fw_cap = c;
    return r;
}

/* r stands for t at the levels below L: it gets t's tangents there (upstream's alias of the
 * next level's wrapper, whose forward formula is the tangent itself) */
static int lower_levels(PyObject *r, PyObject *t, int L) {
    for (int k = 0; k < L; k++) {
        PyObject *g = tn_fw_grad_at(t, k);
        if (g && !direct_grad_at(r, k) && tn_fw_set_at(r, g, false, k) < 0) return -1;
    }
    return 0;
}

static PyObject *make_dual(int op, tn_value *args) {
    PyObject *primal = args[0].u.obj, *tangent = args[1].u.obj;
    int64_t level = args[2].u.i;
    int L = fw_n - 1;
    if (tn_fw_grad_at(primal, L)) {
        PyErr_Format(PyExc_RuntimeError, "Making a dual Tensor based on a Tensor that already has a forward "
                     "gradient at the same level %lld is not supported.", (long long)level);
        return NULL;
    }
    PyObject *r;
    int c = cap_set(0);
    if (tn_grad_enabled() && tn_requires_grad(primal)) {
        /* upstream records a ViewBackward0 for the primal */
        const tn_tensor *pt = tn_tensor_of(primal);
        r = tn_at_view(primal, TN_IN(pt->sizes, pt->ndim));
        if (r) ((tn_tensor_obj *)r)->fw_noview = true;
    } else {
        r = tn_door_below_autograd(op, args);
    }
    fw_cap = c;
    if (!r) return NULL;
    if (level != 0) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_RuntimeError, "Invalid level given to _make_dual");
        return NULL;
    }
    if (lower_levels(r, primal, L) < 0 || tn_fw_set_at(r, tangent, false, L) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

static PyObject *fw_primal(PyObject *self, int64_t level) {
    tn_value a[2] = {{.tag = TN_V_TENSOR, .u.obj = self}, {.tag = TN_V_INT, .u.i = level}};
    PyObject *r;
    int L = fw_n - 1;
    int c = cap_set(0);
    if (tn_grad_enabled() && tn_requires_grad(self)) {
        r = tn_at_alias(self);   /* upstream's node is torch::autograd::Identity */
        if (r) ((tn_tensor_obj *)r)->fw_noview = true;
    } else {
        r = tn_door_below_autograd(TN_ROW__fw_primal, a);
    }
    fw_cap = c;
    if (r && level != 0 && tn_fw_grad_at(self, L)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_RuntimeError, "Invalid level given to _fw_primal");
        return NULL;
    }
    if (r && L > 0 && lower_levels(r, self, L) < 0) Py_CLEAR(r);
    return r;
}

/* upstream's copy_ (VariableTypeManual.cpp): the tangent of self at level L becomes src's */
static int copy_tangent(PyObject *self, PyObject *src, int L) {
    PyObject *sg = tn_fw_grad_at(self, L), *srg = tn_fw_grad_at(src, L), *ng;
    int c = cap_set(L);
    if (sg) {
        ng = srg ? tn_at_copy_(sg, srg, false) : tn_at_fill__Scalar(sg, TN_SI(0));
    } else {
        const tn_tensor *a = tn_tensor_of(self), *b = tn_tensor_of(srg);
        bool same = a->ndim == b->ndim;
        for (int i = 0; same && i < a->ndim; i++) same = a->sizes[i] == b->sizes[i];
        ng = same ? tn_at_clone(srg, NULL) : tn_at_expand(srg, TN_IN(a->sizes, a->ndim), false);
    }
    fw_cap = c;
    if (!ng) return -1;
    int r = tn_fw_set_at(self, ng, true, L);
    Py_DECREF(ng);
    return r;
}

static PyObject *refuse_fw(const char *cpp_name, const char *why) {
    PyErr_Format(PyExc_NotImplementedError, "Trying to use forward AD with %s that does not support it %s", cpp_name, why);
    return NULL;
}

static const char *NOT_YET = "because it has not been implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can prioritize its "
    "implementation or submit a PR adding the implementation to derivatives.yaml";

/* the tensor outputs of a result, borrowed */
static int outputs_of(PyObject *res, PyObject **outs, int max) {
    if (tn_py_is_tensor(res)) { outs[0] = res; return 1; }
    int n = 0;
    if (PyTuple_Check(res))
        for (Py_ssize_t i = 0; i < PyTuple_Size(res) && n < max; i++) outs[n++] = PyTuple_GetItem(res, i);
    return n;
}

PyObject *tn_forward_call(int op, tn_value *args) {
    if (op == TN_ROW__make_dual) return make_dual(op, args);
    if (op == TN_ROW__fw_primal) return fw_primal(args[0].u.obj, args[1].u.i);
    if (op == TN_ROW__unpack_dual) {
        PyObject *p = fw_primal(args[0].u.obj, args[1].u.i);
        if (!p) return NULL;
        PyObject *t = fw_n > 0 ? tn_fw_grad_at(args[0].u.obj, fw_n - 1) : NULL;
        return tn_return_pair("_unpack_dual", p, Py_NewRef(t ? t : Py_None));
    }
    const tn_op_def *d = tn_op_at(op);
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    const tn_op_autograd_def *ad = &tn_op_autograd_defs[op];
    const tn_op_fw_def *fd = &tn_op_fw_defs[op];
    if (ad->composite) {   /* the pieces of upstream's decomposition carry the tangents */
        if (tn_decomp_for(op)) return tn_decomp_for(op)(args);
        char what[200];
        snprintf(what, sizeof what, "forward AD through aten::%s%s%s (its upstream decomposition)", d->name,
                 d->overload[0] ? "." : "", d->overload);
        return tn_not_implemented(what);
    }
    bool out = false;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].is_write && s->args[i].kwarg_only) out = true;
    char cpp[160];
    snprintf(cpp, sizeof cpp, "%s%s", d->name, out ? "_out" : "");
    if (out) return refuse_fw(cpp, "because it is an out= function");
    /* the innermost level with a tangent: its formula below; the levels under it in run_below */
    int L = top_level_args(s, args);
    if (L < 0) return run_below(op, args, 0);
    if (op == TN_ROW_copy_) {
        PyObject *r = run_below(op, args, L);
        if (r && (tn_fw_grad_at(args[0].u.obj, L) || tn_fw_grad_at(args[1].u.obj, L)) &&
            copy_tangent(args[0].u.obj, args[1].u.obj, L) < 0)
            Py_CLEAR(r);
        return r;
    }
    if (op == TN_ROW_detach || op == TN_ROW_detach_ || ad->nondiff || fd->kind == 0) return run_below(op, args, 0);
    if (fd->kind == 2) return refuse_fw(cpp, NOT_YET);
    if (fd->kind == 3) {
        char what[200];
        snprintf(what, sizeof what, "forward AD of aten::%s%s%s (its derivatives.yaml formula)", d->name,
                 d->overload[0] ? "." : "", d->overload);
        return tn_not_implemented(what);
    }
    /* which derivatives run: some required input has a tangent */
    bool run[8] = {0}, any = false;
    for (int k = 0; k < fd->n && k < 8; k++) {
        if (!fd->d[k].req_t) { run[k] = any = true; continue; }   /* cat_jvp, stack_jvp: always called */
        for (int i = 0; i < s->nargs && i < 64; i++)
            if ((fd->d[k].req_t >> i & 1) && tangent_in_at(&args[i], L)) { run[k] = true; any = true; }
    }
    if (!any) return run_below(op, args, L);
    bool inplace = s->nargs > 0 && s->args[0].is_write && !s->args[0].kwarg_only;
    bool need_orig = false;
    for (int k = 0; k < fd->n && k < 8; k++) need_orig |= run[k] && fd->d[k].orig_self;
    PyObject *orig = NULL;
    if (inplace && need_orig) {   /* upstream clones self (with its tangent) before the op; a foreach
                                   * op's self is a list: each element (forward_formulas.c binds
                                   * element i while the formula runs for it) */
        bool was = tn_grad_mode_set(false);
        int c = cap_set(L + 1);
        if (args[0].tag == TN_V_TENSORLIST) {
            Py_ssize_t m = PyTuple_Size(args[0].u.obj);
            orig = PyList_New(m);
            for (Py_ssize_t k = 0; orig && k < m; k++) {
                PyObject *e = tn_at_clone(PyTuple_GetItem(args[0].u.obj, k), NULL);
                if (!e) Py_CLEAR(orig);
                else PyList_SetItem(orig, k, e);
            }
        } else {
            orig = tn_at_clone(args[0].u.obj, NULL);
        }
        fw_cap = c;
        tn_grad_mode_set(was);
        if (!orig) return NULL;
    }
    /* inputs' tangents as they were before the op (an in-place op replaces self's) */
    PyObject *res = run_below(op, args, L);
    if (!res) { Py_XDECREF(orig); return NULL; }
    PyObject *outs[16];
    int nouts = s->nrets == 1 && s->rets[0].is_list ? (outs[0] = res, 1) : outputs_of(res, outs, 16);
    PyObject *tangents[8] = {0};
    int rc = 0;
    int c = cap_set(L), cur = fw_cur;
    fw_cur = L;
    for (int k = 0; k < fd->n && k < 8 && rc == 0; k++) {
        if (!run[k]) continue;
        tangents[k] = tn_fw_eval(op, &fd->d[k], args, s, res, outs, nouts, orig, inplace);
        if (!tangents[k]) rc = -1;
    }
    /* set every tangent at the end, as upstream's generated code does */
    for (int k = 0; k < fd->n && k < 8 && rc == 0; k++) {
        if (!tangents[k] || tangents[k] == Py_None) continue;
        const char *names = fd->d[k].outs;
        if (inplace) {
            rc = tn_fw_set_at(args[0].u.obj, tangents[k], true, L);
            continue;
        }
        /* one name or several (a tuple of tangents) */
        char buf[128];
        snprintf(buf, sizeof buf, "%s", names);
        int idx = 0;
        bool several = strchr(names, ' ') != NULL;
        char *save = NULL;
        for (char *tok = strtok_r(buf, " ", &save); tok && rc == 0; tok = strtok_r(NULL, " ", &save), idx++) {
            PyObject *tg = several && PyTuple_Check(tangents[k]) ? PyTuple_GetItem(tangents[k], idx) : tangents[k];
            int o = tn_fw_output_index(s, tok);
            if (o < 0 || o >= nouts || !tg || tg == Py_None || !outs[o]) continue;
            if (tn_py_is_tensor(outs[o])) {
                if (tn_py_is_tensor(tg)) rc = tn_fw_set_at(outs[o], tg, false, L);
                if (rc == 0 && tn_py_is_tensor(tg) && tn_functorch_depth()) rc = saved_output_tangent(outs[o], tg, L);
            } else if (PySequence_Check(outs[o]) && PySequence_Check(tg) && !tn_py_is_tensor(tg)) {   /* Tensor[] */
                Py_ssize_t m = PySequence_Size(outs[o]);
                for (Py_ssize_t j = 0; j < m && rc == 0 && j < PySequence_Size(tg); j++) {
                    PyObject *ot = PySequence_GetItem(outs[o], j), *gt = PySequence_GetItem(tg, j);
                    if (ot && gt && tn_py_is_tensor(ot) && tn_py_is_tensor(gt)) rc = tn_fw_set_at(ot, gt, false, L);
                    Py_XDECREF(ot);
                    Py_XDECREF(gt);
                }
            }
        }
    }
    fw_cap = c;
    fw_cur = cur;
    for (int k = 0; k < 8; k++) Py_XDECREF(tangents[k]);
    Py_XDECREF(orig);
    if (rc < 0) { Py_DECREF(res); return NULL; }
    return res;
}

/* the output a formula's name refers to: "result"/"resultN", a named return, "self" (in-place) */
int tn_fw_output_index(const tn_schema *s, const char *name) {
    if (!strcmp(name, "result")) return 0;
    if (!strncmp(name, "result", 6) && name[6] >= '0' && name[6] <= '9') return atoi(name + 6);
    for (int k = 0; k < s->nrets; k++)
        if (s->rets[k].name && !strcmp(s->rets[k].name, name)) return k;
    if (!strcmp(name, "self")) return 0;
    return -1;
}


static PyMethodDef fw_methods[] = {
    {"_enter_dual_level", enter_dual_level, METH_NOARGS, NULL},
    {"_exit_dual_level", (PyCFunction)(void (*)(void))exit_dual_level, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};

int tn_forward_init(PyObject *m) { return PyModule_AddFunctions(m, fw_methods); }
