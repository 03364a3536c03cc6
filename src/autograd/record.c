/* record.c — the autograd stage of the door (DESIGN.md §3.1; docs/ARCHITECTURE.md).
 *
 * tn_door_call asks tn_autograd_wants first: grad mode on and some tensor argument requiring
 * grad. Then tn_autograd_call, in upstream's order:
 *  - a CompositeImplicitAutograd overload without its own formula decomposes into the ops
 *    upstream's composite calls (decomp.c), each passing the door and recorded, so the graph has
 *    upstream's nodes; one without a decomposition runs and gets a node that refuses by name in
 *    backward;
 *  - otherwise the op runs below autograd (grad mode off), and a node is made: next edges for the
 *    differentiable arguments (derivatives.yaml, via tools/gen_ops.py), what the formula needs
 *    saved, the outputs' geometry; differentiable outputs get it as grad_fn.
 * In-place ops check upstream's rules (leaf, out=) and take the node as the tensor's new
 * grad_fn. */
#include "core/profiler.h"
#include "autograd/autograd.h"

#include "ops/common.h"
#include "ops/nested.h"
#include "dispatch/args.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

/* ---- does this call record? ---- */

/* Inference tensors (core/tensor.h) carry no autograd key upstream: a call whose tensor
 * arguments are all inference tensors skips autograd even if one requires grad (made with
 * requires_grad=True in inference mode); one normal tensor (a wrapped number counts) brings it. */
bool tn_autograd_wants(int op, const tn_value *args) {
    if (!tn_grad_enabled()) return false;
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    bool req = false, normal = false;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR) {
            req |= tn_requires_grad(args[i].u.obj);
            normal |= !tn_tensor_of(args[i].u.obj)->storage->inference;
        }
        if (args[i].tag == TN_V_TENSORLIST) {
            PyObject *l = args[i].u.obj;
            for (Py_ssize_t k = 0; k < PyTuple_Size(l); k++) {
                PyObject *e = PyTuple_GetItem(l, k);
                if (!tn_py_is_tensor(e)) continue;
                req |= tn_requires_grad(e);
                normal |= !tn_tensor_of(e)->storage->inference;
            }
        }
        if (req && normal) return true;
    }
    return false;
}



static int refuse_apply(tn_node *n, PyObject **g, PyObject **o) {
    char what[200];
    const tn_op_def *d = tn_op_at(n->op);
    snprintf(what, sizeof what, "the derivative of %s%s%s%s", strstr(d->name, "::") ? "" : "aten::", d->name,
             d->overload[0] ? "." : "", d->overload);
    tn_not_implemented(what);
    return -1;
}
/* An aten op upstream's derivatives.yaml has no entry for: upstream records a NotImplemented node
 * whose backward raises RuntimeError "derivative for aten::<name> is not implemented". (An op of
 * torchnative's own namespace is refused by name: refuse_apply; upstream's other namespaces take
 * autograd's fallback, fallback_call.) */
static int no_derivative_apply(tn_node *n, PyObject **g, PyObject **o) {
    const tn_op_def *d = tn_op_at(n->op);
    if (strstr(d->name, "::")) return refuse_apply(n, g, o);
    PyErr_Format(PyExc_RuntimeError, "derivative for aten::%s is not implemented", d->name);
    return -1;
}
static int refuse_composite_apply(tn_node *n, PyObject **g, PyObject **o) {
    char what[200];
    const tn_op_def *d = tn_op_at(n->op);
    snprintf(what, sizeof what, "autograd through aten::%s%s%s (its upstream decomposition)", d->name,
             d->overload[0] ? "." : "", d->overload);
    tn_not_implemented(what);
    return -1;
}

static bool differentiable_dtype(tn_dtype d) { return tn_dtype_is_floating(d) || tn_dtype_is_complex(d); }

/* a view made in no_grad mode requires grad through its base but has no edge (views.c): the
 * node is made all the same, with an empty edge, as upstream's */
static bool ng_requires(PyObject *t) { return ((tn_tensor_obj *)t)->ng_view && tn_requires_grad(t); }

/* upstream's SavedVariable refuses an inference tensor. Upstream saves an argument only when
 * a gradient that reads it is wanted: torchgen guards an argument read by one input's formula
 * alone with that input's should_compute_output (tn_op_save_guards, generated), so the check
 * follows the same guard. */
static int check_saved_inference(int op, int arg, PyObject *t, const tn_node *n, const tn_value *args, int nargs) {
    if (!t || !tn_py_is_tensor(t) || !tn_tensor_of(t)->storage->inference) return 0;
    for (const tn_save_guard *g = tn_op_save_guards; g->op >= 0; g++)
        if (g->op == op && g->arg == arg && g->guard < nargs) {
            int e = n->arg_edge ? n->arg_edge[g->guard] : -1;
            if (e >= 0 && !n->next[e].fn && !ng_requires(args[g->guard].u.obj)) return 0;
            break;
        }
    PyErr_SetString(PyExc_RuntimeError, "Inference tensors cannot be saved for backward. Please do not use Tensors "
                    "created in inference mode in computation tracked by autograd. To work around this, you can "
                    "make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead "
                    "of `torch.inference_mode()`.");
    return -1;
}

/* whether torchgen's guard lets op save argument `arg` (tn_op_save_guards): no guard, or the
 * guarding input is a tensor whose gradient is wanted (should_compute_output) */
static bool guard_wants(int op, int arg, const tn_value *args, int nargs) {
    for (const tn_save_guard *g = tn_op_save_guards; g->op >= 0; g++)
        if (g->op == op && g->arg == arg && g->guard < nargs) {
            const tn_value *v = &args[g->guard];
            return v->tag == TN_V_TENSOR && tn_requires_grad(v->u.obj) && !((tn_tensor_obj *)v->u.obj)->ng_view;
        }
    return true;
}

/* The tensor outputs of a result (borrowed) */
static int outputs_of(PyObject *res, PyObject **outs, int max) {
    if (tn_py_is_tensor(res)) { outs[0] = res; return 1; }
    int n = 0;
    if (PyTuple_Check(res) || PyList_Check(res)) {
        Py_ssize_t len = PySequence_Size(res);
        for (Py_ssize_t i = 0; i < len && n < max; i++) {
            PyObject *e = PyTuple_Check(res) ? PyTuple_GetItem(res, i) : PyList_GetItem(res, i);
            outs[n++] = tn_py_is_tensor(e) ? e : NULL;
        }
    }
    return n;
}

/* the op below autograd: re-entries of the door from it (a dispatch mode's handler, a Python
 * kernel, an op calling ops) record nothing, while grad mode keeps the value the user sees
 * (torch.is_grad_enabled() reads True in a handler, as upstream's; grad_mode.c) */
static PyObject *run_below(int op, tn_value *args) {
    tn_below_autograd_step(1);
    PyObject *r = tn_door_below_autograd(op, args);
    tn_below_autograd_step(-1);
    return r;
}

/* ---- operators without an autograd kernel (upstream's basic autograd fallback) ----
 * Upstream registers no autograd kernel for the operators of its other namespaces (quantized::,
 * _quantized::, ...): autograd's fallback (autograd_not_implemented_fallback.cpp, mode "warn")
 * runs them and, with grad mode on and a tensor argument requiring grad, gives each
 * differentiable output that is not written in place and does not already require grad a node
 * of type CppFunction named torch::autograd::WarnNotImplemented, made before the op runs, with an
 * edge per tensor argument (each tensor of a list; None for one not requiring grad). Its backward
 * warns and returns no gradient: the inputs' .grad stays None (measured on upstream 2.13.0). */
static int warn_not_implemented(const char *opname) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s: an autograd kernel was not registered to the Autograd key(s) but we are trying to "
             "backprop through it. This may lead to silently incorrect behavior. This behavior is deprecated and will "
             "be removed in a future version of PyTorch. If your operator is differentiable, please ensure you have "
             "registered an autograd kernel to the correct Autograd key (e.g. DispatchKey::Autograd, "
             "DispatchKey::CompositeImplicitAutograd). If your operator is not differentiable, or to squash this "
             "warning and use the previous behavior, please register torch::CppFunction::makeFallthrough() to "
             "DispatchKey::Autograd. (Triggered internally at "
             "/__w/pytorch/pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:76.)", opname);
    return PyErr_WarnEx(PyExc_UserWarning, msg, 1);
}
/* the node's operator: its row, or (a run-time operator's node, python/library.c) its name in extra */
static int warn_not_implemented_apply(tn_node *n, PyObject **g, PyObject **o) {
    const char *name = n->op >= 0 ? tn_op_at(n->op)->name : n->extra ? PyUnicode_AsUTF8AndSize(n->extra, NULL) : NULL;
    return name ? warn_not_implemented(name) : -1;
}

tn_node *tn_autograd_warn_node(const char *opname, int nnext, int nout) {
    tn_node *n = tn_node_new("CppFunction", TN_NODE_OP, nnext, nout);
    if (!n) return NULL;
    n->cpp_name = "torch::autograd::WarnNotImplemented";
    n->op = -1;
    n->apply = warn_not_implemented_apply;
    if (!(n->extra = PyUnicode_FromString(opname))) { Py_DECREF(n); return NULL; }
    return n;
}

static bool takes_fallback(const tn_op_def *d) {
    return strstr(d->name, "::") && strncmp(d->name, "torchnative::", 13) != 0;
}

bool tn_autograd_fallback_nothing(void);   /* python/runtime_flags.c */

/* the hook upstream's fallback registers on an output its kernel already made require grad (an
 * aten op inside it recorded, e.g. the bias add_ of quantized::linear_dynamic_fp16_unpacked_weight,
 * or a run-time operator's Python kernel, python/library.c): it warns when the gradient reaches
 * that output (a hook on its slot in its grad_fn, so t._backward_hooks stays as it was, as
 * upstream's C++ hook), and leaves the gradient as it is; a leaf output is not hooked */
static PyObject *warn_hook(PyObject *name, PyObject *grad) {
    const char *op_name = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!op_name || warn_not_implemented(op_name) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef warn_hook_def = {"warn_not_implemented_hook", warn_hook, METH_O, NULL};
int tn_autograd_add_warn_hook(PyObject *t, const char *op_name) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->grad_fn || !tn_is_node(o->grad_fn)) return 0;
    tn_node *n = (tn_node *)o->grad_fn;
    PyObject *name = PyUnicode_FromString(op_name);
    PyObject *fn = name ? PyCFunction_New(&warn_hook_def, name) : NULL;
    Py_XDECREF(name);
    PyObject *d = fn ? Py_BuildValue("{iO}", 0, fn) : NULL;
    Py_XDECREF(fn);
    PyObject *pair = d ? Py_BuildValue("(Oi)", d, o->output_nr) : NULL;
    Py_XDECREF(d);
    if (!pair) return -1;
    if (!n->tensor_hooks && !(n->tensor_hooks = PyList_New(0))) { Py_DECREF(pair); return -1; }
    int r = PyList_Append(n->tensor_hooks, pair);
    Py_DECREF(pair);
    return r;
}

static PyObject *fallback_call(int op, tn_value *args, const tn_schema *s) {
    /* mode "nothing" (torch._C._set_autograd_fallback_mode): the op runs below autograd, no node */
    if (tn_autograd_fallback_nothing()) {
        PyObject *r = run_below(op, args);
        return r;
    }
    int nnext = 0;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR) nnext++;
        for (Py_ssize_t k = 0; args[i].tag == TN_V_TENSORLIST && k < PyTuple_Size(args[i].u.obj); k++)
            nnext += tn_py_is_tensor(PyTuple_GetItem(args[i].u.obj, k));
    }
    tn_node *n = tn_node_new("CppFunction", TN_NODE_OP, nnext, s->nrets);
    if (!n) return NULL;
    n->cpp_name = "torch::autograd::WarnNotImplemented";
    n->op = op;
    n->apply = warn_not_implemented_apply;
    int e = 0;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && tn_gradient_edge(args[i].u.obj, &n->next[e++]) < 0) { Py_DECREF(n); return NULL; }
        for (Py_ssize_t k = 0; args[i].tag == TN_V_TENSORLIST && k < PyTuple_Size(args[i].u.obj); k++) {
            PyObject *t = PyTuple_GetItem(args[i].u.obj, k);
            if (tn_py_is_tensor(t) && tn_gradient_edge(t, &n->next[e++]) < 0) { Py_DECREF(n); return NULL; }
        }
    }
    /* upstream redispatches without leaving autograd: aten ops the kernel calls record as usual */
    PyObject *res = tn_door_below_autograd(op, args);
    if (!res) { Py_DECREF(n); return NULL; }
    PyObject *outs[16];
    int nouts = outputs_of(res, outs, 16);
    if (nouts > n->nout) {   /* a Tensor[] return */
        tn_meta *m = realloc(n->out_meta, (size_t)nouts * sizeof *m);
        if (!m) { PyErr_NoMemory(); goto fail; }
        memset(m + n->nout, 0, (size_t)(nouts - n->nout) * sizeof *m);
        n->out_meta = m;
        n->nout = nouts;
    }
    for (int k = 0; k < nouts; k++) {
        PyObject *t = outs[k];
        bool mutable_out = k < s->nrets && s->rets[k].is_write;
        if (!t || !differentiable_dtype(tn_tensor_of(t)->dtype) || mutable_out || tn_requires_grad(t)) {
            if (k < 64) n->nodiff_out |= 1ull << k;
            if (t && differentiable_dtype(tn_tensor_of(t)->dtype) && tn_requires_grad(t) && tn_autograd_add_warn_hook(t, tn_op_at(op)->name) < 0)
                goto fail;
            continue;
        }
        tn_meta_set(&n->out_meta[k], tn_tensor_of(t));
        tn_tensor_obj *o = (tn_tensor_obj *)t;
        Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)n));
        o->output_nr = k;
    }
    Py_DECREF(n);
    return res;
fail:
    Py_DECREF(n);
    Py_DECREF(res);
    return NULL;
}

static int copy_value(tn_value *dst, const tn_value *src) {
    *dst = *src;
    switch (src->tag) {
    case TN_V_INTLIST: case TN_V_BOOLLIST:
        dst->u.ints.v = malloc(((size_t)src->u.ints.n + 1) * sizeof(int64_t));
        if (!dst->u.ints.v) return -1;
        memcpy(dst->u.ints.v, src->u.ints.v, (size_t)src->u.ints.n * sizeof(int64_t));
        return 0;
    case TN_V_FLOATLIST: case TN_V_SCALARLIST:
        dst->u.floats.v = malloc((tn_scalarlist_slots(src) + 1) * sizeof(double));
        if (!dst->u.floats.v) return -1;
        memcpy(dst->u.floats.v, src->u.floats.v, tn_scalarlist_slots(src) * sizeof(double));
        return 0;
    default:
        if (tn_value_holds_object(src->tag)) Py_INCREF(src->u.obj);
        return 0;
    }
}

static PyObject *record(int op, tn_value *args, const tn_schema *s, PyObject *res, tn_apply_fn apply,
                        const char *name, uint64_t dmask, uint64_t smask, int somask, int odmask,
                        bool inplace, PyObject *orig_self, const tn_tensor *self_before, uint64_t seq,
                        tn_node **keep) {
    PyObject *outs[16];
    int nouts = outputs_of(res, outs, 16);
    bool any_diff = false;
    for (int k = 0; k < nouts; k++)
        if (outs[k] && (odmask >> k & 1) && differentiable_dtype(tn_tensor_of(outs[k])->dtype)) any_diff = true;
    if (!any_diff) return res;
    /* edges; an aten op without a derivatives.yaml entry takes upstream's
     * autogradNotImplementedFallback, whose node has edges only for the tensors requiring grad */
    bool req_only = apply == no_derivative_apply;
    int nnext = 0;
    bool any_edge = false;
    for (int i = 0; i < s->nargs && i < 64; i++) {
        if (!(dmask >> i & 1)) continue;
        for (Py_ssize_t k = 0; args[i].tag == TN_V_TENSORLIST && k < PyTuple_Size(args[i].u.obj); k++) {
            PyObject *t = PyTuple_GetItem(args[i].u.obj, k);
            nnext += !req_only || (tn_py_is_tensor(t) && tn_requires_grad(t));
        }
        if (args[i].tag != TN_V_TENSORLIST && s->args[i].type == TN_TYPE_TENSOR && !s->args[i].is_list)
            nnext += !req_only || (args[i].tag == TN_V_TENSOR && tn_requires_grad(args[i].u.obj));
    }
    /* seq: reserved before the op ran (original_self's clone came after), or TN_SEQ_TAKE */
    tn_node *n = tn_node_new_seq(name, TN_NODE_OP, nnext, nouts, seq);
    if (!n) { Py_DECREF(res); return NULL; }
    n->op = op;
    n->apply = apply;
    n->inplace = inplace;
    n->nargs = s->nargs;
    n->args = calloc((size_t)s->nargs + 1, sizeof *n->args);
    n->arg_nmeta = calloc((size_t)s->nargs + 1, sizeof *n->arg_nmeta);
    n->arg_meta = calloc((size_t)s->nargs + 1, sizeof *n->arg_meta);
    n->arg_edge = malloc(((size_t)s->nargs + 1) * sizeof *n->arg_edge);
    n->arg_ver = calloc((size_t)s->nargs + 1, sizeof *n->arg_ver);
    n->results = calloc((size_t)nouts + 1, sizeof *n->results);
    n->result_ver = calloc((size_t)nouts + 1, sizeof *n->result_ver);
    if (!n->args || !n->arg_nmeta || !n->arg_meta || !n->arg_edge || !n->arg_ver || !n->results || !n->result_ver) goto nomem;
    int e = 0;
    for (int i = 0; i < s->nargs; i++) {
        tn_value *v = &args[i];
        n->arg_edge[i] = -1;
        bool diff = i < 64 && (dmask >> i & 1);
        bool save = i < 64 && (smask >> i & 1);
        if (v->tag == TN_V_TENSOR) {
            n->arg_nmeta[i] = 1;
            if (!(n->arg_meta[i] = calloc(1, sizeof(tn_meta)))) goto nomem;
            tn_meta_set(&n->arg_meta[i][0], inplace && i == 0 ? self_before : tn_tensor_of(v->u.obj));
            if (diff && (!req_only || tn_requires_grad(v->u.obj))) {
                n->arg_edge[i] = e;
                if (tn_gradient_edge(v->u.obj, &n->next[e]) < 0) goto fail;
                if (n->next[e].fn || ng_requires(v->u.obj)) any_edge = true;
                e++;
            }
            if (save) {
                n->args[i] = *v;
                PyObject *keep = inplace && i == 0 ? orig_self : v->u.obj;
                if (!keep) {
                    n->args[i].tag = TN_V_NONE;
                    if (i < 64) n->unsaved |= 1ull << i;
                    continue;
                }
                n->args[i].u.obj = Py_NewRef(keep);
                n->arg_ver[i] = tn_tensor_of(keep)->storage->version;
                if (tn_saved_hooks_top()) {   /* saved_tensors_hooks: keep what pack returns */
                    PyObject *p = tn_saved_pack(n, keep, false);
                    if (!p) goto fail;
                    Py_SETREF(n->args[i].u.obj, p);
                }
            } else {
                n->args[i].tag = TN_V_NONE;
            }
        } else if (v->tag == TN_V_TENSORLIST) {
            Py_ssize_t len = PyTuple_Size(v->u.obj);
            n->arg_nmeta[i] = (int)len;
            if (!(n->arg_meta[i] = calloc((size_t)len + 1, sizeof(tn_meta)))) goto nomem;
            if (diff) n->arg_edge[i] = e;
            for (Py_ssize_t k = 0; k < len; k++) {
                PyObject *t = PyTuple_GetItem(v->u.obj, k);
                if (!tn_py_is_tensor(t)) { if (diff && !req_only) e++; continue; }
                tn_meta_set(&n->arg_meta[i][k], tn_tensor_of(t));
                if (diff && (!req_only || tn_requires_grad(t))) {
                    if (tn_gradient_edge(t, &n->next[e]) < 0) goto fail;
                    if (n->next[e].fn || ng_requires(t)) any_edge = true;
                    e++;
                }
            }
            if (save) { if (copy_value(&n->args[i], v) < 0) goto nomem; }
            else n->args[i].tag = TN_V_NONE;
        } else {
            if (diff && !req_only && s->args[i].type == TN_TYPE_TENSOR && !s->args[i].is_list)
                n->arg_edge[i] = e++;   /* optional Tensor? given as None */
            if (copy_value(&n->args[i], v) < 0) goto nomem;
        }
    }
    if (!any_edge) {   /* no differentiable input requires grad: no node */
        Py_DECREF(n);
        return res;
    }
    for (int i = 0; i < s->nargs && i < 64; i++) {
        if (!(smask >> i & 1)) continue;
        if (args[i].tag == TN_V_TENSOR &&
            check_saved_inference(op, i, inplace && i == 0 ? orig_self : args[i].u.obj, n, args, s->nargs) < 0) goto fail;
        for (Py_ssize_t k = 0; args[i].tag == TN_V_TENSORLIST && k < PyTuple_Size(args[i].u.obj); k++)
            if (check_saved_inference(-1, i, PyTuple_GetItem(args[i].u.obj, k), n, args, s->nargs) < 0) goto fail;
    }
    for (int k = 0; k < nouts; k++) {
        if (!outs[k]) continue;
        tn_meta_set(&n->out_meta[k], tn_tensor_of(outs[k]));
        if (k < 8 && (somask >> k & 1)) {
            /* a saved differentiable output is detached through the dispatcher, as upstream's
             * SavedVariable (a mode sees aten.detach); a non-differentiable one is kept as is */
            bool diff = (odmask >> k & 1) && differentiable_dtype(tn_tensor_of(outs[k])->dtype);
            int hid = tn_prof_set_hidden(1);   /* not a profiler event upstream */
            n->results[k] = diff ? tn_at_detach(outs[k]) : Py_NewRef(outs[k]);
            tn_prof_set_hidden(hid);
            if (!n->results[k]) goto fail;
            if (diff) n->result_diff |= (uint8_t)(1u << k);
            n->result_ver[k] = tn_tensor_of(outs[k])->storage->version;
        }
    }
    if (keep) {   /* a foreach node's per-element node: kept by the caller, not the outputs' grad_fn */
        *keep = n;
        return res;
    }
    /* an output that is an input object (not in-place) becomes an alias, as upstream's views */
    if (!inplace && tn_py_is_tensor(res)) {
        for (int i = 0; i < s->nargs; i++)
            if (args[i].tag == TN_V_TENSOR && args[i].u.obj == res) {
                PyObject *a = tn_detached_alias(res);
                if (!a) goto fail;
                Py_SETREF(res, a);
                outs[0] = res;
                break;
            }
    }
    /* in-place on a view: the base's history goes through CopySlices -- except for an op that
     * changes only the view's geometry (squeeze_, t_, ...), whose node becomes the view's own
     * grad_fn, as upstream records a view op (the base's history is untouched) */
    if (inplace && ((tn_tensor_obj *)args[0].u.obj)->base && !(tn_op_tags(op) & TN_TAG_INPLACE_VIEW)) {
        int r = tn_copy_slices(args[0].u.obj, n);
        Py_DECREF(n);
        if (r < 0) { Py_DECREF(res); return NULL; }
        return res;
    }
    for (int k = 0; k < nouts && k < 64; k++)
        if (!(odmask >> k & 1) || (outs[k] && !differentiable_dtype(tn_tensor_of(outs[k])->dtype))) n->nodiff_out |= 1ull << k;
    for (int k = 0; k < nouts; k++) {
        if (!outs[k] || !(odmask >> k & 1) || !differentiable_dtype(tn_tensor_of(outs[k])->dtype)) continue;
        tn_tensor_obj *o = (tn_tensor_obj *)outs[k];
        Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)n));
        o->output_nr = k;
        o->view_version = o->t.storage->version;
        if (inplace) o->requires_grad = false;
    }
    /* saved outputs under saved_tensors_hooks: packed once they have this node as grad_fn */
    for (int k = 0; tn_saved_hooks_top() && k < nouts; k++) {
        if (!n->results[k] || !outs[k]) continue;
        PyObject *p = tn_saved_pack(n, outs[k], true);
        if (!p) goto fail;
        Py_SETREF(n->results[k], p);
    }
    Py_DECREF(n);
    return res;
nomem:
    PyErr_NoMemory();
fail:
    Py_DECREF(n);
    Py_DECREF(res);
    return NULL;
}

/* ---- _foreach_* ops (upstream's generated foreach derivatives, gen_foreach_derivativeinfo) ----
 * An out-of-place foreach op gets one node, Foreach<reference node><overload>, with one output
 * per list element and its edges in schema order (each list's elements in turn); its formula is
 * the reference op's (mul.Tensor for _foreach_mul.List) per element i, with grads[i] and the i-th
 * element of each list. Here each element's reference node is recorded as record() would
 * (saved values, version checks, which inputs need a gradient) and kept by the foreach node
 * (n->extra), whose apply runs them. An in-place foreach op records, as upstream's, one
 * reference node per written tensor (LOOP_OVER_VECTOR_OF_GRAD_FNS): it runs as the reference
 * in-place op per element, through the door. */

/* the i-th element's arguments for the reference op (lists give their i-th element) */
static int foreach_elem(int ref, const tn_schema *s, const tn_value *args, int nref, Py_ssize_t i, tn_value *out) {
    for (int j = 0; j < nref; j++) {
        out[j] = args[j];
        if (j >= s->nargs) {   /* a reference argument the foreach op lacks: add.Scalar's alpha (1) */
            out[j].tag = TN_V_NONE;
            const char *d = tn_op_schema(ref)->args[j].default_text;
            if (d && strcmp(d, "None")) { out[j].tag = TN_V_INT; out[j].u.i = atoll(d); }
            continue;
        }
        if (args[j].tag == TN_V_TENSORLIST) {
            if (i >= PyTuple_Size(args[j].u.obj)) {
                PyErr_SetString(PyExc_RuntimeError, "Tensor lists must have the same number of tensors");
                return -1;
            }
            out[j].tag = TN_V_TENSOR;
            out[j].wrapped = false;
            out[j].u.obj = PyTuple_GetItem(args[j].u.obj, i);
        } else if (args[j].tag == TN_V_SCALARLIST) {
            if (i >= args[j].u.floats.n) {
                PyErr_SetString(PyExc_RuntimeError, "Tensor list must have same number of elements as scalar list.");
                return -1;
            }
            tn_scalarlist_get(&args[j], (int)i, &out[j]);
        }
    }
    return 0;
}

static Py_ssize_t foreach_len(const tn_schema *s, const tn_value *args) {
    for (int j = 0; j < s->nargs; j++)
        if (args[j].tag == TN_V_TENSORLIST) return PyTuple_Size(args[j].u.obj);
    return -1;
}

static int foreach_apply(tn_node *n, PyObject **g, PyObject **o) {
    if (!n->extra) { tn_freed_error(); return -1; }
    const tn_schema *s = tn_op_schema(n->op);
    Py_ssize_t len = PyTuple_Size(n->extra);
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *sub = PyTuple_GetItem(n->extra, i);
        if (sub == Py_None || !g[i]) continue;
        tn_node *e = (tn_node *)sub;
        PyObject *so[64] = {0};
        if (e->nnext > 64) { tn_not_implemented("a foreach reference op with more than 64 inputs"); return -1; }
        if (e->apply(e, &g[i], so) < 0) {
            for (int k = 0; k < e->nnext; k++) Py_XDECREF(so[k]);
            return -1;
        }
        /* the reference's edge k is argument j's: list arguments map to the foreach edge of
         * element i, a single tensor argument to its one edge (summed over the elements) */
        for (int j = 0; j < e->nargs; j++) {
            int k = e->arg_edge[j];
            if (k < 0 || !so[k]) continue;
            int fe = n->arg_edge[j];
            if (fe < 0) { Py_CLEAR(so[k]); continue; }
            bool list = j < s->nargs && s->args[j].is_list;
            if (!list && len > 1) {
                /* upstream's generated code gathers a per-element gradient for a single tensor
                 * argument (add.Tensor's other) and copies the n results into its one slot */
                for (int q = 0; q < e->nnext; q++) Py_XDECREF(so[q]);
                PyErr_SetString(PyExc_RuntimeError, "inconsistent range for TensorList output");
                return -1;
            }
            int dst = list ? fe + (int)i : fe;
            if (!o[dst]) { o[dst] = so[k]; so[k] = NULL; continue; }
            PyObject *sum = tn_at_add_Tensor(o[dst], so[k], TN_SDEF);
            Py_CLEAR(so[k]);
            if (!sum) { for (int q = 0; q < e->nnext; q++) Py_XDECREF(so[q]); return -1; }
            Py_SETREF(o[dst], sum);
        }
        for (int k = 0; k < e->nnext; k++) Py_XDECREF(so[k]);
    }
    return 0;
}

static PyObject *foreach_inplace(int ref, tn_value *args, const tn_schema *s) {
    const tn_schema *rs = tn_op_schema(ref);
    if (!rs) return NULL;
    if (rs->nargs > 16) return tn_not_implemented("a foreach reference op with more than 16 arguments");
    Py_ssize_t len = foreach_len(s, args);
    for (Py_ssize_t i = 0; i < len; i++) {
        tn_value e[16];
        if (foreach_elem(ref, s, args, rs->nargs, i, e) < 0) return NULL;
        PyObject *r = tn_door_call(ref, e);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

/* upstream's NotImplemented node of an in-place foreach op without a derivative: its message
 * names the op without a namespace ("derivative for _foreach_copy_ is not implemented") */
static int foreach_no_derivative_apply(tn_node *n, PyObject **g, PyObject **o) {
    PyErr_Format(PyExc_RuntimeError, "derivative for %s is not implemented", tn_op_at(n->op)->name);
    return -1;
}

static int inplace_leaf_check(PyObject *self) {
    tn_tensor_obj *so = (tn_tensor_obj *)self;
    if (!so->grad_fn && so->requires_grad) {
        PyErr_SetString(PyExc_RuntimeError, "a leaf Variable that requires grad is being used in an in-place operation.");
        return -1;
    }
    PyObject *b = so->base;
    if (b && !((tn_tensor_obj *)b)->grad_fn && ((tn_tensor_obj *)b)->requires_grad) {
        PyErr_SetString(PyExc_RuntimeError, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
        return -1;
    }
    return 0;
}

/* An in-place foreach op with no per-tensor in-place op to run (_foreach_maximum_.List: no
 * maximum_) or no derivative at all (_foreach_copy_, _foreach_maximum_.Scalar): the foreach kernel
 * runs once below autograd, then each written tensor gets, as upstream's generated code gives it,
 * the functional reference's node (MaximumBackward0, with a clone of self taken before the write
 * when the formula reads self) or, with no reference (ref < 0), a NotImplemented node whose
 * edges are element i of each list argument and each tensor argument. */
static PyObject *foreach_inplace_record(int op, int ref, tn_value *args, const tn_schema *s) {
    PyObject *selfs = args[0].u.obj;
    Py_ssize_t len = PyTuple_Size(selfs);
    for (Py_ssize_t i = 0; i < len; i++)
        if (tn_ng_view_inplace(PyTuple_GetItem(selfs, i)) < 0 || inplace_leaf_check(PyTuple_GetItem(selfs, i)) < 0) return NULL;
    const tn_schema *rs = ref >= 0 ? tn_op_schema(ref) : NULL;
    if (ref >= 0 && !rs) return NULL;
    if (rs && rs->nargs > 16) return tn_not_implemented("a foreach reference op with more than 16 arguments");
    const tn_op_autograd_def *rad = ref >= 0 ? &tn_op_autograd_defs[ref] : NULL;
    bool save_self = rad && rad->node && (rad->save & 1);
    PyObject *clones = PyTuple_New(len);
    uint64_t *seqs = calloc((size_t)len + 1, sizeof *seqs);
    int64_t *vers = calloc((size_t)len + 1, sizeof *vers);
    tn_tensor *before = calloc((size_t)len + 1, sizeof *before);
    PyObject *res = NULL;
    if (!clones || !seqs || !vers || !before) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *t = PyTuple_GetItem(selfs, i);
        seqs[i] = tn_next_sequence_nr();
        PyObject *c = save_self ? tn_at_clone(t, NULL) : Py_NewRef(Py_None);
        if (!c) goto done;
        PyTuple_SetItem(clones, i, c);
        before[i] = *tn_tensor_of(t);
        vers[i] = tn_tensor_of(t)->storage->version;
    }
    res = run_below(op, args);
    if (!res) goto done;
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *t = PyTuple_GetItem(selfs, i);
        if (tn_tensor_of(t)->storage->version == vers[i]) tn_tensor_of(t)->storage->version++;
        if (!differentiable_dtype(tn_tensor_of(t)->dtype)) continue;
        if (rs) {
            tn_value e[16];
            if (foreach_elem(ref, s, args, rs->nargs, i, e) < 0) { Py_CLEAR(res); goto done; }
            tn_apply_fn rapply = rad->has_formula ? tn_formula_for(ref) : NULL;
            PyObject *c = PyTuple_GetItem(clones, i);
            PyObject *r = record(ref, e, rs, Py_NewRef(t), rapply ? rapply : refuse_apply,
                                 rad->node ? rad->node : "NotImplemented", rad->node ? rad->diff : ~0ull,
                                 rad->node ? rad->save : 0, rad->node ? rad->save_out : 0, rad->node ? rad->out_diff : 0xff,
                                 true, c == Py_None ? NULL : c, &before[i], seqs[i], NULL);
            if (!r) { Py_CLEAR(res); goto done; }
            Py_DECREF(r);
            continue;
        }
        /* edges as measured: self[i], every element of the other lists, then each tensor
         * argument (addcmul_.Tensor's scalars, even when it does not require grad) */
        PyObject *edge_of[64];
        int nnext = 0;
        edge_of[nnext++] = t;
        for (int j = 1; j < s->nargs; j++) {
            if (args[j].tag == TN_V_TENSORLIST)
                for (Py_ssize_t k = 0; k < PyTuple_Size(args[j].u.obj) && nnext < 64; k++)
                    edge_of[nnext++] = PyTuple_GetItem(args[j].u.obj, k);
            else if (args[j].tag == TN_V_TENSOR && nnext < 64)
                edge_of[nnext++] = args[j].u.obj;
        }
        tn_node *n = tn_node_new_seq("NotImplemented", TN_NODE_OP, nnext, 1, seqs[i]);
        if (!n) { Py_CLEAR(res); goto done; }
        n->op = op;
        n->apply = foreach_no_derivative_apply;
        n->inplace = true;
        for (int k = 0; k < nnext; k++)   /* self's edge is its history before the write */
            if (tn_gradient_edge(edge_of[k], &n->next[k]) < 0) { Py_DECREF(n); Py_CLEAR(res); goto done; }
        tn_meta_set(&n->out_meta[0], tn_tensor_of(t));
        tn_tensor_obj *o = (tn_tensor_obj *)t;
        Py_XSETREF(o->grad_fn, (PyObject *)n);
        o->output_nr = 0;
        o->view_version = o->t.storage->version;
        o->requires_grad = false;
    }
done:
    Py_XDECREF(clones);
    free(seqs);
    free(vers);
    free(before);
    return res;
}

static PyObject *foreach_record(int op, int ref, tn_value *args, const tn_schema *s, const tn_op_autograd_def *ad) {
    const tn_schema *rs = tn_op_schema(ref);
    if (!rs) return NULL;
    if (rs->nargs > 16) return tn_not_implemented("a foreach reference op with more than 16 arguments");
    const tn_op_autograd_def *rad = &tn_op_autograd_defs[ref];
    tn_apply_fn rapply = rad->has_formula ? tn_foreach_formula(op, ref) : NULL;
    if (!rapply) rapply = refuse_apply;
    uint64_t seq = tn_next_sequence_nr();   /* upstream makes the node before the op runs */
    PyObject *res = run_below(op, args);
    if (!res) return NULL;
    if (!PyTuple_Check(res) && !PyList_Check(res)) return res;
    Py_ssize_t nouts = PySequence_Size(res);
    PyObject *subs = PyTuple_New(nouts);
    if (!subs) { Py_DECREF(res); return NULL; }
    bool any = false;
    for (Py_ssize_t i = 0; i < nouts; i++) {
        PyObject *out = PySequence_GetItem(res, i);
        tn_value e[16];
        tn_node *keep = NULL;
        if (!out || foreach_elem(ref, s, args, rs->nargs, i, e) < 0) { Py_XDECREF(out); goto fail; }
        if (tn_py_is_tensor(out) && differentiable_dtype(tn_tensor_of(out)->dtype)) {
            Py_INCREF(out);
            PyObject *r = record(ref, e, rs, out, rapply, rad->node ? rad->node : "NotImplemented", rad->node ? rad->diff : ~0ull,
                                 rad->node ? rad->save : 0, rad->node ? rad->save_out : 0, rad->node ? rad->out_diff : 0xff,
                                 false, NULL, NULL, seq, &keep);   /* kept inside: no number of its own */
            if (!r) { Py_DECREF(out); goto fail; }
            Py_DECREF(r);
        }
        Py_DECREF(out);
        PyTuple_SetItem(subs, i, keep ? (PyObject *)keep : Py_NewRef(Py_None));
        any |= keep != NULL;
    }
    if (!any) { Py_DECREF(subs); return res; }
    int nnext = 0;
    for (int j = 0; j < s->nargs && j < 64; j++) {
        if (!(ad->diff >> j & 1)) continue;
        if (args[j].tag == TN_V_TENSORLIST) nnext += (int)PyTuple_Size(args[j].u.obj);
        else if (s->args[j].type == TN_TYPE_TENSOR) nnext++;
    }
    tn_node *n = tn_node_new_seq(tn_op_foreach_generated[op] ? "CppFunction" : ad->node, TN_NODE_OP, nnext, (int)nouts, seq);
    if (!n) goto fail;
    if (tn_op_foreach_generated[op]) n->cpp_name = ad->node;
    n->op = op;
    n->apply = foreach_apply;
    n->nargs = s->nargs;
    n->args = calloc((size_t)s->nargs + 1, sizeof *n->args);
    n->arg_edge = malloc(((size_t)s->nargs + 1) * sizeof *n->arg_edge);
    n->arg_nmeta = calloc((size_t)s->nargs + 1, sizeof *n->arg_nmeta);
    n->arg_meta = calloc((size_t)s->nargs + 1, sizeof *n->arg_meta);
    n->arg_ver = calloc((size_t)s->nargs + 1, sizeof *n->arg_ver);
    if (!n->args || !n->arg_edge || !n->arg_nmeta || !n->arg_meta || !n->arg_ver) { Py_DECREF(n); PyErr_NoMemory(); goto fail; }
    int ei = 0;
    for (int j = 0; j < s->nargs; j++) {
        n->args[j].tag = TN_V_NONE;
        n->arg_edge[j] = -1;
        if (!(j < 64 && (ad->diff >> j & 1))) continue;
        if (args[j].tag == TN_V_TENSORLIST) {
            n->arg_edge[j] = ei;
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[j].u.obj); k++, ei++)
                if (tn_gradient_edge(PyTuple_GetItem(args[j].u.obj, k), &n->next[ei]) < 0) { Py_DECREF(n); goto fail; }
        } else if (s->args[j].type == TN_TYPE_TENSOR) {
            n->arg_edge[j] = ei;
            if (args[j].tag == TN_V_TENSOR && tn_gradient_edge(args[j].u.obj, &n->next[ei]) < 0) { Py_DECREF(n); goto fail; }
            ei++;
        }
    }
    n->extra = subs;
    subs = NULL;
    for (Py_ssize_t i = 0; i < nouts; i++) {
        PyObject *out = PySequence_GetItem(res, i);
        if (!out) { Py_DECREF(n); goto fail; }
        if (tn_py_is_tensor(out)) {
            tn_meta_set(&n->out_meta[i], tn_tensor_of(out));
            if (differentiable_dtype(tn_tensor_of(out)->dtype)) {   /* every element, as upstream */
                tn_tensor_obj *o = (tn_tensor_obj *)out;
                Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)n));
                o->output_nr = (int)i;
                o->view_version = o->t.storage->version;
            }
        }
        Py_DECREF(out);
    }
    Py_DECREF(n);
    return res;
fail:
    Py_XDECREF(subs);
    Py_DECREF(res);
    return NULL;
}

/* a tensor argument, or a tensor of a list argument, requires grad */
static bool value_requires_grad(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return tn_requires_grad(v->u.obj);
    for (Py_ssize_t j = 0; v->tag == TN_V_TENSORLIST && j < PyTuple_Size(v->u.obj); j++) {
        PyObject *e = PyTuple_GetItem(v->u.obj, j);
        if (tn_py_is_tensor(e) && tn_requires_grad(e)) return true;
    }
    return false;
}

/* ---- out= overloads ----
 * Upstream's generated autograd kernel of an out= overload (gen_variable_type.py) refuses when a
 * differentiable input or an out tensor standing for a differentiable output requires grad, and
 * otherwise runs the op recording nothing. Which inputs and outputs are differentiable is the
 * functional overload's derivatives.yaml entry (torchgen matches the out= row to it by
 * signature: the same name and the same arguments without the out= ones). So
 * lu_unpack(LU, piv, out=(P, L, U)) with P requiring grad runs (P is not differentiable), with L
 * requiring grad refuses. An out= row with no generated kernel -- its functional has no entry
 * (floor_divide, zeros), or upstream adds it outside native_functions.yaml (autogen: lift.out,
 * lift_fresh_copy.out, the *_copy.out rows) -- takes autograd's NotImplemented fallback instead:
 * it refuses only an out tensor that is a leaf requiring grad (or a view of one), naming the op
 * "aten::<name>", and otherwise runs the op and gives the out tensors a NotImplemented node with
 * edges to the tensors requiring grad, as an in-place write (docs/autograd_more2.md). */
static bool same_arg(const tn_arg *a, const tn_arg *b) {
    return a->type == b->type && a->is_list == b->is_list && a->optional == b->optional &&
           a->kwarg_only == b->kwarg_only && !strcmp(a->name ? a->name : "", b->name ? b->name : "");
}
static int functional_row(int op, const tn_schema *s) {
    static int *cache;
    if (!cache) {
        if (!(cache = malloc(sizeof *cache * (size_t)TN_OP_COUNT))) return -1;
        for (int i = 0; i < TN_OP_COUNT; i++) cache[i] = -2;
    }
    if (cache[op] != -2) return cache[op];
    int nin = 0, first, last, found = -1;
    while (nin < s->nargs && !(s->args[nin].is_write && s->args[nin].kwarg_only)) nin++;
    if (tn_op_range(tn_op_at(op)->name, &first, &last))
        for (int r = first; r < last && found < 0; r++) {
            if (r == op) continue;
            const tn_schema *f = tn_op_schema(r);
            if (!f) { PyErr_Clear(); continue; }
            if (f->nargs != nin) continue;
            bool same = true;
            for (int i = 0; i < nin && same; i++) same = same_arg(&f->args[i], &s->args[i]) && !f->args[i].is_write;
            if (same) found = r;
        }
    return cache[op] = found;
}
static bool is_out_arg(const tn_schema *s, int i) { return s->args[i].is_write && s->args[i].kwarg_only; }
/* upstream's can_mutate_inplace: a leaf requiring grad, or a view of one, cannot be written */
static bool leaf_or_leaf_view(PyObject *t) {
    if (!tn_requires_grad(t)) return false;
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (o->base && tn_py_is_tensor(o->base)) {
        tn_tensor_obj *b = (tn_tensor_obj *)o->base;
        if (!b->grad_fn && tn_requires_grad(o->base)) return true;
    }
    return !o->base && !o->grad_fn;
}
static PyObject *out_fallback(int op, tn_value *args, const tn_schema *s) {
    const char *name = tn_op_at(op)->name;
    int nreq = 0, ndiff = 0;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag != TN_V_TENSOR) continue;
        ndiff += is_out_arg(s, i) && differentiable_dtype(tn_tensor_of(args[i].u.obj)->dtype);
        if (is_out_arg(s, i) && leaf_or_leaf_view(args[i].u.obj))
            return PyErr_Format(PyExc_RuntimeError, "aten::%s(): functions with out=... arguments don't support automatic "
                                "differentiation, but one of the arguments requires grad.", name);
        nreq += tn_requires_grad(args[i].u.obj);
    }
    tn_node *n = tn_node_new("NotImplemented", TN_NODE_OP, nreq, ndiff ? ndiff : 1);   /* made before the op runs */
    if (!n) return NULL;
    n->op = op;
    n->apply = no_derivative_apply;
    for (int i = 0, e = 0; i < s->nargs; i++)
        if (args[i].tag == TN_V_TENSOR && tn_requires_grad(args[i].u.obj) && tn_gradient_edge(args[i].u.obj, &n->next[e++]) < 0) {
            Py_DECREF(n);
            return NULL;
        }
    PyObject *res = run_below(op, args);
    if (!res) { Py_DECREF(n); return NULL; }
    /* each differentiable out tensor takes the node (its next output slot), as an in-place write */
    for (int i = 0, k = 0; i < s->nargs; i++) {
        if (!is_out_arg(s, i) || args[i].tag != TN_V_TENSOR) continue;
        PyObject *t = args[i].u.obj;
        tn_tensor_obj *o = (tn_tensor_obj *)t;
        if (!differentiable_dtype(o->t.dtype)) continue;
        int nr = k++;
        tn_meta_set(&n->out_meta[nr], &o->t);
        if (o->base && nr == 0 && ndiff == 1) {
            if (tn_copy_slices(t, n) < 0) { Py_DECREF(n); Py_DECREF(res); return NULL; }
            continue;
        }
        Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)n));
        o->output_nr = nr;
        o->view_version = o->t.storage->version;
        o->requires_grad = false;
    }
    Py_DECREF(n);
    return res;
}
/* Whether the generated out= kernel of a functional with a derivatives.yaml entry checks anything
 * (gen_variable_type's requires_derivative): only with a differentiable input (a tensor argument
 * not marked non_differentiable: special_bessel_j0.out has none) and a differentiable output
 * (gt.Tensor's output_differentiability is [False]); otherwise it just runs the op, whatever
 * requires grad (docs/breadth_more2.md, "Fuzz corpus: calls upstream runs, third pass"). */
static bool out_checks(const tn_op_autograd_def *fad) { return (fad->diff | fad->nograd) && fad->out_diff; }

static PyObject *out_call(int op, tn_value *args, const tn_schema *s) {
    int f = functional_row(op, s);
    const tn_op_autograd_def *fad = f >= 0 && tn_op_autograd_defs[f].node ? &tn_op_autograd_defs[f] : NULL;
    if (fad && !out_checks(fad)) return run_below(op, args);
    /* a CompositeImplicitAutograd out= row (absolute.out, divide.out, square.out ...) runs upstream's
     * composite kernel, whose inner out= call (abs.out, div.out, pow.out ...) refuses when an input
     * requires grad, an out tensor included (measured over the no-crash corpus, tests/test_no_crash.py),
     * unless that inner op checks nothing (greater.Tensor_out -> gt.Tensor_out) */
    if (!fad && tn_op_autograd_defs[op].composite) {
        /* the error names the op the kernel calls: an alias's (absolute.out -> abs) */
        int base = f >= 0 ? tn_decomp_kind(f) : -1;
        if (base >= 0 && (tn_op_autograd_defs[base].nondiff ||
                          (tn_op_autograd_defs[base].node && !out_checks(&tn_op_autograd_defs[base]))))
            return run_below(op, args);
        const char *name = tn_op_at(base >= 0 ? base : op)->name;
        for (int i = 0; i < s->nargs; i++)
            if (value_requires_grad(&args[i]))
                return PyErr_Format(PyExc_RuntimeError, "%s(): functions with out=... arguments don't support automatic "
                                    "differentiation, but one of the arguments requires grad.", name);
        return run_below(op, args);
    }
    /* rows upstream adds outside native_functions.yaml carry their namespace in the schema text */
    if (!fad || !strncmp(tn_op_at(op)->schema, "aten::", 6)) return out_fallback(op, args, s);
    bool refuse = false;
    for (int i = 0, k = 0; i < s->nargs && !refuse; i++) {
        bool out = is_out_arg(s, i);
        /* an input the functional refuses outright (check_no_requires_grad: soft_margin_loss's target,
         * fractional_max_pool2d_backward's indices) counts as one of its differentiable inputs here */
        bool diff = out ? (k < 8 && (fad->out_diff >> k & 1)) : (i < 64 && ((fad->diff | fad->nograd) >> i & 1));
        if (out) k++;
        refuse = diff && value_requires_grad(&args[i]);
    }
    if (refuse)
        return PyErr_Format(PyExc_RuntimeError, "%s(): functions with out=... arguments don't support automatic "
                            "differentiation, but one of the arguments requires grad.", tn_op_at(op)->name);
    return run_below(op, args);
}

bool tn_op_decomposes(int op) { return tn_op_autograd_defs[op].composite && tn_decomp_computes(op); }

/* a composite upstream gives a kernel of its own for strided nested tensors (linear, matmul,
 * reshape, ...) stays whole when one is among the arguments (ops/nested.c) */
static bool nested_whole(int op, tn_value *args) {
    return __builtin_expect(tn_nested_live > 0, 0) && (tn_op_tags(op) & TN_TAG_NESTED) && tn_nested_among(op, args);
}

PyObject *tn_composite_under_mode(int op, tn_value *args, bool *handled) {
    *handled = tn_op_autograd_defs[op].composite && tn_decomp_computes(op) && !nested_whole(op, args);
    return *handled ? tn_decomp_for(op)(args) : NULL;
}

PyObject *tn_autograd_call(int op, tn_value *args) {
    const tn_op_autograd_def *ad = &tn_op_autograd_defs[op];
    const tn_op_def *d = tn_op_at(op);
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    if (takes_fallback(d)) return fallback_call(op, args, s);
    tn_apply_fn apply = NULL;
    /* upstream's DONT_REQUIRE_DERIVATIVE (results depend only on shapes), detach, and the aten
     * spellings of Tensor.data / requires_grad_, which set or drop autograd state themselves */
    if (ad->nondiff || op == TN_ROW_detach || op == TN_ROW_detach_ || op == TN_ROW_data || op == TN_ROW_requires_grad_) {
        PyObject *r = run_below(op, args);
        return r;
    }
    /* upstream generates this op's autograd kernel though derivatives.yaml has no entry for it: it
     * sets history on every output, and its integer outputs (the indices' dtype) refuse */
    if (op == TN_ROW__embedding_bag_forward_only && args[1].tag == TN_V_TENSOR)
        return PyErr_Format(PyExc_RuntimeError, "Autograd not support dtype: %s", tn_dtype_cpp_name(tn_tensor_of(args[1].u.obj)->dtype));
    if (!strncmp(d->name, "_foreach_", 9) && foreach_len(s, args) >= 0) {
        bool ip = s->nargs > 0 && s->args[0].is_write && !s->args[0].kwarg_only && args[0].tag == TN_V_TENSORLIST;
        if (ip && tn_op_foreach_ref[op] >= 0) return foreach_inplace(tn_op_foreach_ref[op], args, s);
        if (ip) return foreach_inplace_record(op, tn_op_foreach_ref_fn[op], args, s);
        if (tn_op_foreach_ref[op] >= 0 && ad->node) return foreach_record(op, tn_op_foreach_ref[op], args, s, ad);
    }
    if (ad->composite) {   /* upstream never runs a CompositeImplicitAutograd op's own formula on CPU */
        tn_decomp_fn dec = tn_decomp_for(op);
        if (dec && !nested_whole(op, args)) return dec(args);
        apply = refuse_composite_apply;
    }
    /* upstream's check_no_requires_grad: a tensor argument with no formula (class weights, BCE's
     * pos_weight, soft_margin_loss's target) must not require grad */
    if (ad->nograd)
        for (int i = 0; i < s->nargs && i < 64; i++) {
            if ((ad->nograd >> i & 1) && value_requires_grad(&args[i]))
                return PyErr_Format(PyExc_RuntimeError, "The function '%s' is not differentiable with respect to argument "
                                    "'%s'. This input cannot have requires_grad True.", d->name, s->args[i].name);
        }
    /* in-place: the op writes its first argument (self); other written arguments (batch norm's
     * running statistics) do not move a tensor onto the graph; out= arguments are kwarg-only */
    bool inplace = s->nargs > 0 && s->args[0].is_write && !s->args[0].kwarg_only, out = false;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].is_write && s->args[i].kwarg_only) out = true;
    if (out) return out_call(op, args, s);
    int64_t self_ver = 0;
    tn_tensor self_before = {0};
    if (inplace && args[0].tag == TN_V_TENSOR) {
        PyObject *self = args[0].u.obj;
        if (tn_ng_view_inplace(self) < 0 || inplace_leaf_check(self) < 0) return NULL;
        self_ver = tn_tensor_of(self)->storage->version;
        self_before = *tn_tensor_of(self);
    }
    /* an in-place op whose formula reads self saves a copy of self taken before it runs, as
     * upstream's generated code does (original_self). The copy is made with grad mode on, so it
     * hangs on self's history (CloneBackward0) and a double backward through the formula reaches
     * self's past, as upstream's; upstream makes the op's node first, then the clone, so the
     * node's sequence number is taken before the clone's; and only when the formula reading it
     * is wanted (mul_(2) on a view clones nothing). */
    PyObject *orig_self = NULL;
    uint64_t seq = TN_SEQ_TAKE;
    if (inplace && (ad->save & 1) && args[0].tag == TN_V_TENSOR && guard_wants(op, 0, args, s->nargs)) {
        seq = tn_next_sequence_nr();
        if (!(orig_self = tn_at_clone(args[0].u.obj, NULL))) return NULL;
    }
    bool was = tn_grad_mode_set(false);
    /* upstream takes the other arguments' edges before an in-place op runs: a view of self's
     * storage read by the op (out.slice(..) copied into another slice of out) keeps its own
     * grad_fn on the node, though the write makes it stale for later reads. Views current now
     * are marked current again for record() below, then put back. */
    enum { NFRESH = 16 };
    tn_tensor_obj *fresh[NFRESH];
    int nfresh = 0;
    if (inplace && args[0].tag == TN_V_TENSOR)
        for (int i = 1; i < s->nargs && nfresh < NFRESH; i++)
            if (args[i].tag == TN_V_TENSOR && args[i].u.obj != args[0].u.obj) {
                tn_tensor_obj *o = (tn_tensor_obj *)args[i].u.obj;
                tn_view_refresh(args[i].u.obj);
                if (o->base && o->grad_fn && o->t.storage == tn_tensor_of(args[0].u.obj)->storage) fresh[nfresh++] = o;
            }
    /* self's edge is its history before the write, as upstream collects it before the op runs:
     * for a view, its own grad_fn (SliceBackward0, ...), not the AsStridedBackward0 the write
     * would make it regenerate (CopySlices keeps that edge on the op's node, which a double
     * backward through the node's saved output reaches) */
    tn_tensor_obj *self_view = NULL;
    if (inplace && args[0].tag == TN_V_TENSOR && ((tn_tensor_obj *)args[0].u.obj)->base) {
        tn_view_refresh(args[0].u.obj);
        if (((tn_tensor_obj *)args[0].u.obj)->grad_fn) self_view = (tn_tensor_obj *)args[0].u.obj;
    }
    tn_grad_mode_set(was);
    PyObject *res = run_below(op, args);
    if (!res) { Py_XDECREF(orig_self); return NULL; }
    if (inplace && args[0].tag == TN_V_TENSOR && tn_tensor_of(args[0].u.obj)->storage->version == self_ver)
        tn_tensor_of(args[0].u.obj)->storage->version++;
    if (self_view) self_view->view_version = self_view->t.storage->version;
    int64_t fresh_ver[NFRESH];
    for (int i = 0; i < nfresh; i++) {
        fresh_ver[i] = fresh[i]->view_version;
        fresh[i]->view_version = fresh[i]->t.storage->version;
    }
    const char *name = ad->node;
    if (!apply) apply = ad->has_formula ? tn_formula_for(op) : NULL;
    if (!apply) apply = ad->node ? refuse_apply : no_derivative_apply;
    uint64_t dmask = ad->node ? ad->diff : ~0ull;
    if (!name) name = "NotImplemented";
    if (apply == refuse_composite_apply) { dmask = ~0ull; name = "NotImplemented"; }
    PyObject *r = record(op, args, s, res, apply, name, dmask, ad->node ? ad->save : 0, ad->node ? ad->save_out : 0,
                         ad->node ? ad->out_diff : 0xff, inplace, orig_self, &self_before, seq, NULL);
    for (int i = 0; i < nfresh; i++) fresh[i]->view_version = fresh_ver[i];
    Py_XDECREF(orig_self);
    if (r && !inplace) tn_ng_view_propagate(r, op, args);
    return r;
}
