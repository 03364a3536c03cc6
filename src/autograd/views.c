/* views.c — autograd through views that are modified in place, as upstream's:
 *  - an in-place op on a view whose base (or another input) requires grad moves the base onto a
 *    CopySlices node: its first edge is the base's previous history, the rest are the op node's;
 *    backward copies the incoming gradient, runs the op's formula on the view's slice of it and
 *    writes the slice's gradient back;
 *  - the view then has AsStridedBackward0 (the view of the base's new history);
 *  - a view whose base was modified after the view's grad_fn was set gets AsStridedBackward0
 *    again when its grad_fn is next read (the storage version tells).
 * See docs/ARCHITECTURE.md, "Autograd". */
#include "autograd/autograd.h"

#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

/* saved geometry of base (arg slot 0) and view (out_meta[0] is the view for AsStrided; for
 * CopySlices out_meta[0] is the base) */
typedef struct { tn_meta base, view; int64_t base_off, view_off; } geometry;

void tn_geometry_free(void *geo) {
    geometry *g = geo;
    tn_meta_clear(&g->base);
    tn_meta_clear(&g->view);
    free(g);
}

/* the part of a base-shaped tensor the view covers; a real view of a complex base (real, imag,
 * view_as_real: geometry in real elements) is taken from view_as_real of it, as upstream replays
 * such a view's function rather than as_strided */
static PyObject *view_of(PyObject *r, const geometry *g) {
    if (tn_dtype_is_complex(tn_tensor_of(r)->dtype) && !tn_dtype_is_complex(g->view.dtype)) {
        PyObject *rr = tn_at_view_as_real(r), *v = NULL;
        if (rr)
            v = tn_at_as_strided(rr, TN_IN(tn_meta_sizes(&g->view), g->view.ndim), TN_IN(tn_meta_strides(&g->view), g->view.ndim),
                                 TN_I((long long)(g->view_off - 2 * g->base_off)));
        Py_XDECREF(rr);
        return v;
    }
    return tn_at_as_strided(r, TN_IN(tn_meta_sizes(&g->view), g->view.ndim), TN_IN(tn_meta_strides(&g->view), g->view.ndim),
                            TN_I((long long)(g->view_off - g->base_off)));
}

/* zeros laid out like the base, and (slice not NULL) its part the view covers */
static PyObject *base_like(PyObject *grad, const geometry *g, bool zero, PyObject **slice) {
    PyObject *r = tn_at_new_empty_strided(grad, TN_IN(tn_meta_sizes(&g->base), g->base.ndim),
                                          TN_IN(tn_meta_strides(&g->base), g->base.ndim), NULL, NULL, NULL, NULL);
    if (!r) return NULL;
    if (zero) {
        PyObject *z = tn_at_zero_(r);
        if (!z) { Py_DECREF(r); return NULL; }
        Py_DECREF(z);
    }
    if (!slice) return r;
    if (!(*slice = view_of(r, g))) { Py_DECREF(r); return NULL; }
    return r;
}

static bool overlapping(const tn_meta *m) {
    const int64_t *sz = tn_meta_sizes(m), *st = tn_meta_strides(m);
    for (int d = 0; d < m->ndim; d++)
        if (sz[d] > 1 && st[d] == 0) return true;
    return false;
}

static geometry *geom(tn_node *n) { return (geometry *)n->geo; }

static int as_strided_apply(tn_node *n, PyObject **grads, PyObject **outs) {
    geometry *g = geom(n);
    if (overlapping(&g->view) || overlapping(&g->base)) {
        tn_not_implemented("the gradient of an in-place-modified view with overlapping memory (AsStridedBackward0)");
        return -1;
    }
    PyObject *slice = NULL, *r = base_like(grads[0], g, true, &slice);
    if (!r) return -1;
    PyObject *c = tn_at_copy_(slice, grads[0], false);
    Py_DECREF(slice);
    if (!c) { Py_DECREF(r); return -1; }
    Py_DECREF(c);
    outs[0] = r;
    return 0;
}

static int copy_slices_apply(tn_node *n, PyObject **grads, PyObject **outs) {
    geometry *g = geom(n);
    tn_node *fn = (tn_node *)n->inner;
    if (!grads[0]) return 0;
    /* upstream's order: the base-shaped copy of the gradient first, then its view (made after
     * the copy, so with create_graph the view hangs on the copy's history) */
    PyObject *slice = NULL, *r = base_like(grads[0], g, false, NULL);
    if (!r) return -1;
    PyObject *c = tn_at_copy_(r, grads[0], false);
    if (!c) goto fail;
    Py_DECREF(c);
    if (!(slice = view_of(r, g))) goto fail;
    /* the first edge of CopySlices is the base's history, its op node's the view's history
     * before the write: the op computes its first gradient exactly when the CopySlices' is
     * wanted (upstream's update_exec_info) */
    if (fn->nnext && fn->next[0].fn && tn_edge_wanted(n, 0) && tn_engine_mark_needed(fn->next[0].fn) < 0) goto fail;
    PyObject *sl = tn_at_clone(slice, tn_py.memory_format_contiguous);
    if (!sl) goto fail;
    PyObject **fo = calloc((size_t)fn->nnext + 1, sizeof *fo);
    PyObject *fg[1] = {sl};
    if (!fo) { Py_DECREF(sl); PyErr_NoMemory(); goto fail; }
    int rc = fn->apply(fn, fg, fo);
    Py_DECREF(sl);
    /* a wanted gradient the op did not give stays undefined (upstream's `continue`: no
     * gradient reads as zeros), where this used to zero_ the slice */
    if (rc == 0 && fo[0] && tn_edge_wanted(n, 0)) {
        c = tn_at_copy_(slice, fo[0], false);
        Py_XDECREF(c);
        if (!c) rc = -1;
        else outs[0] = Py_NewRef(r);
    }
    Py_XDECREF(fo[0]);
    for (int i = 1; i < fn->nnext; i++) {
        if (rc == 0 && tn_edge_wanted(n, i)) outs[i] = fo[i];
        else Py_XDECREF(fo[i]);
    }
    free(fo);
    Py_DECREF(slice);
    Py_DECREF(r);
    return rc;
fail:
    Py_XDECREF(slice);
    Py_DECREF(r);
    return -1;
}

static tn_node *geometry_node(const char *name, int nnext, PyObject *base, PyObject *view, tn_apply_fn apply) {
    tn_node *n = tn_node_new(name, TN_NODE_OP, nnext, 1);
    if (!n) return NULL;
    geometry *g = calloc(1, sizeof *g);
    if (!g) { Py_DECREF(n); PyErr_NoMemory(); return NULL; }
    tn_meta_set(&g->base, tn_tensor_of(base));
    tn_meta_set(&g->view, tn_tensor_of(view));
    g->base_off = tn_tensor_of(base)->offset;
    g->view_off = tn_tensor_of(view)->offset;
    n->geo = g;
    n->apply = apply;
    return n;
}

/* The view's grad_fn: AsStridedBackward0 onto the base's current history. */
int tn_view_regenerate(PyObject *view) {
    tn_tensor_obj *o = (tn_tensor_obj *)view;
    PyObject *base = o->base;
    tn_edge e;
    if (tn_gradient_edge(base, &e) < 0) return -1;
    if (!e.fn) { Py_CLEAR(o->grad_fn); o->view_version = o->t.storage->version; return 0; }
    tn_node *n = geometry_node("AsStridedBackward0", 1, base, view, as_strided_apply);
    if (!n) { Py_DECREF(e.fn); return -1; }
    n->next[0] = e;
    tn_meta_set(&n->out_meta[0], &o->t);
    Py_XSETREF(o->grad_fn, (PyObject *)n);
    o->output_nr = 0;
    o->view_version = o->t.storage->version;
    return 0;
}

/* A view whose storage was written since its grad_fn was set (or, without a grad_fn, since it
 * was made) gets AsStridedBackward0 onto its base's history when the base requires grad: also a
 * view taken of a base that had no history then, as upstream's differentiable views
 * (`r = zeros(5); v = r[1:]; r.copy_(x)` makes v require grad). */
void tn_view_refresh(PyObject *t) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->base || o->ng_view || o->t.storage->version == o->view_version) return;
    if (!o->grad_fn && (o->requires_grad || !(tn_dtype_is_floating(o->t.dtype) || tn_dtype_is_complex(o->t.dtype)))) return;
    if (tn_requires_grad(o->base))
        if (tn_view_regenerate(t) < 0) PyErr_Clear();   /* keeps the old grad_fn; backward will say */
}

/* After in-place op node `fn` ran on view `self`: the base goes onto CopySlices(fn), the view
 * onto AsStridedBackward0. Steals nothing; returns 0 or -1. */
int tn_copy_slices(PyObject *self, tn_node *fn) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    PyObject *base = o->base;
    tn_node *c = geometry_node("CopySlices", fn->nnext, base, self, copy_slices_apply);
    if (!c) return -1;
    c->inner = Py_NewRef((PyObject *)fn);
    if (tn_gradient_edge(base, &c->next[0]) < 0) { Py_DECREF(c); return -1; }
    /* the op's own first edge stays the view's history before the write (upstream's CopySlices
     * takes only fn's other edges); a double backward through fn's saved output goes there */
    for (int i = 1; i < fn->nnext; i++) c->next[i] = (tn_edge){Py_XNewRef(fn->next[i].fn), fn->next[i].nr};
    tn_meta_set(&c->out_meta[0], tn_tensor_of(base));
    tn_tensor_obj *b = (tn_tensor_obj *)base;
    Py_XSETREF(b->grad_fn, (PyObject *)c);
    b->output_nr = 0;
    return tn_view_regenerate(self);
}


/* ---- views made in no_grad mode (upstream's CreationMeta::NO_GRAD_MODE) ----
 * A view made with grad mode off of a base that requires grad requires grad itself (through its
 * base) but is a leaf without history: operations on it record no edge to it. An in-place op on
 * it with grad mode on, or reading its history after it or its base was written (even in
 * no_grad mode), raises upstream's error. */

#define NG_TAIL(blk) " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your " \
    "code by moving both the view and the inplace either both inside the " blk " block (if you don't want the " \
    "inplace to be tracked) or both outside (if you want the inplace to be tracked)."

static void ng_error(const tn_tensor_obj *o, const char *modified) {
    /* a view (with history) of such a view: "Output 0 of View is a view of a view which ..." (upstream
     * names the node without its Backward suffix, measured) */
    char prefix[160] = "A view";
    if (o->grad_fn && tn_is_node(o->grad_fn)) {
        const char *nm = tn_py_type_name(o->grad_fn);
        snprintf(prefix, sizeof prefix, "Output %d of %.*s is a view of a view which", o->output_nr,
                 tn_node_short_name_len(nm), nm);
    }
    if (o->ng_view == 2)
        PyErr_Format(PyExc_RuntimeError, "%s was created in inference mode and %s modified inplace in normal mode."
                     NG_TAIL("inference_mode"), prefix, modified);
    else
        PyErr_Format(PyExc_RuntimeError, "%s was created in no_grad mode and %s modified inplace with grad mode "
                     "enabled." NG_TAIL("no_grad"), prefix, modified);
}

int tn_ng_view_check(PyObject *t) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->ng_view || o->t.storage->version == o->view_version) return 0;
    ng_error(o, "its base or another view of its base has been");
    return -1;
}

int tn_ng_view_inplace(PyObject *t) {
    if (!((tn_tensor_obj *)t)->ng_view) return 0;
    ng_error((tn_tensor_obj *)t, "is being");
    return -1;
}

static bool is_arg(PyObject *o, const tn_schema *s, const tn_value *args) {
    for (int i = 0; i < s->nargs; i++)
        if (args[i].tag == TN_V_TENSOR && args[i].u.obj == o) return true;
    return false;
}

static void mark_one(PyObject *o, const tn_schema *s, const tn_value *args) {
    if (!o || !tn_py_is_tensor(o) || is_arg(o, s, args)) return;
    tn_tensor_obj *v = (tn_tensor_obj *)o;
    if (!v->base || v->grad_fn || v->requires_grad || v->fw_noview || v->bt_value) return;
    if (!(tn_dtype_is_floating(v->t.dtype) || tn_dtype_is_complex(v->t.dtype))) return;
    if (!tn_requires_grad(v->base)) return;
    v->ng_view = tn_inference_mode() ? 2 : 1;
    v->view_version = v->t.storage->version;
}

void tn_ng_view_mark(PyObject *res, int op, const tn_value *args) {
    if (!res || tn_grad_enabled() || op == TN_ROW_detach) return;
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return; }
    /* a view op: an output aliasing an input without writing it (Tensor(a) / Tensor(a)[]) */
    bool view = false;
    for (int k = 0; k < s->nrets; k++)
        if (s->rets[k].alias_set && !s->rets[k].is_write) view = true;
    if (!view) return;
    if (tn_py_is_tensor(res)) { mark_one(res, s, args); return; }
    if (PyTuple_Check(res) || PyList_Check(res)) {
        for (Py_ssize_t i = 0; i < PySequence_Size(res); i++) {
            PyObject *e = PySequence_GetItem(res, i);
            if (!e) { PyErr_Clear(); return; }
            if (tn_py_is_tensor(e)) mark_one(e, s, args);
            else if (PyTuple_Check(e) || PyList_Check(e))
                for (Py_ssize_t j = 0; j < PySequence_Size(e); j++) {
                    PyObject *f = PySequence_GetItem(e, j);
                    if (f) mark_one(f, s, args);
                    Py_XDECREF(f);
                }
            Py_DECREF(e);
        }
    }
}

/* A view made with grad mode on of such a view keeps its creation mode (upstream propagates the
 * CreationMeta): the same errors, named after its node. */
void tn_ng_view_propagate(PyObject *res, int op, const tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return; }
    if (!res || s->nargs < 1 || args[0].tag != TN_V_TENSOR) return;
    uint8_t mode = ((tn_tensor_obj *)args[0].u.obj)->ng_view;
    if (!mode) return;
    bool view = false;
    for (int k = 0; k < s->nrets; k++)
        if (s->rets[k].alias_set && !s->rets[k].is_write) view = true;
    if (!view) return;
    PyObject *outs[16];
    int n = 0;
    if (tn_py_is_tensor(res)) outs[n++] = res;
    else if (PyTuple_Check(res))
        for (Py_ssize_t i = 0; i < PyTuple_Size(res) && n < 16; i++) outs[n++] = PyTuple_GetItem(res, i);
    for (int i = 0; i < n; i++) {
        if (!outs[i] || !tn_py_is_tensor(outs[i]) || outs[i] == args[0].u.obj) continue;
        tn_tensor_obj *v = (tn_tensor_obj *)outs[i];
        if (!v->base || v->ng_view) continue;
        v->ng_view = mode;
        v->view_version = v->t.storage->version;
    }
}
