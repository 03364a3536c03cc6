/* door.c — tn_door_call, the one entry every operator passes on its way to its kernel.
 *
 * Here, and nowhere else, the active TorchDispatchMode (torch.utils._python_dispatch) gets the
 * call first: the innermost mode is popped while its __torch_dispatch__(func, types, args,
 * kwargs) runs, as upstream does, so ops it issues reach the next mode or the kernels. func is
 * the OpOverload (torch.ops.aten.<name>.<overload>); arguments are passed the way upstream
 * passes them: positional arguments up to the last one given, keyword-only ones given by the
 * caller as kwargs. Then a tensor subclass among the arguments gets it through its class's
 * __torch_dispatch__ (subclass.c). Otherwise the door calls the overload's op function, or
 * refuses by name.
 * Before all of that, autocast casts the arguments of the ops on its list (autocast.c) and
 * autograd records the call when it needs to (autograd/record.c). */
#include "dispatch/door.h"

#include <stdlib.h>

#include "autograd/autograd.h"
#include "autograd/forward.h"
#include "dispatch/autocast.h"
#include "dispatch/functorch.h"
#include "dispatch/graph.h"
#include "dispatch/modes.h"
#include "dispatch/subclass.h"
#include "dispatch/args.h"
#include "core/pystate.h"
#include "core/object.h"
#include "core/profiler.h"
#include "ops/common.h"
#include "ops/nested.h"
#include "ops/sparse.h"
#include "ops/qtensor.h"
#include "tn_ops_gen.h"

#include <string.h>

PyObject *tn_value_to_python(const tn_value *v) {
    switch (v->tag) {
    case TN_V_NONE: Py_RETURN_NONE;
    case TN_V_TENSOR: case TN_V_STR: case TN_V_GENERATOR: case TN_V_OBJECT: case TN_V_LAYOUT:
    case TN_V_MEMFORMAT:
        return Py_NewRef(v->u.obj);
    case TN_V_TENSORLIST: return PySequence_List(v->u.obj);
    case TN_V_INT: return PyLong_FromLongLong(v->u.i);
    case TN_V_BOOL: return PyBool_FromLong((long)v->u.i);
    case TN_V_FLOAT: return PyFloat_FromDouble(v->u.f);
    case TN_V_COMPLEX: return PyComplex_FromDoubles(v->u.c.re, v->u.c.im);
    case TN_V_DTYPE: return tn_py_from_dtype(v->u.dtype);
    case TN_V_DEVICE: return tn_py_device_new(v->u.device.type, v->u.device.index);
    case TN_V_INTLIST: case TN_V_BOOLLIST: {
        PyObject *l = PyList_New(v->u.ints.n);
        for (int i = 0; l && i < v->u.ints.n; i++)
            PyList_SetItem(l, i, v->tag == TN_V_BOOLLIST ? PyBool_FromLong((long)v->u.ints.v[i])
                                                         : PyLong_FromLongLong(v->u.ints.v[i]));
        return l;
    }
    case TN_V_FLOATLIST: case TN_V_SCALARLIST: {
        PyObject *l = PyList_New(v->u.floats.n);
        for (int i = 0; l && i < v->u.floats.n; i++) {
            tn_value e;
            if (v->tag == TN_V_SCALARLIST) tn_scalarlist_get(v, i, &e);
            else e.tag = TN_V_FLOAT, e.u.f = v->u.floats.v[i];
            PyList_SetItem(l, i, tn_value_to_python(&e));
        }
        return l;
    }
    }
    Py_RETURN_NONE;
}

static PyObject *overloads[8192]; /* OpOverload objects by row, fetched on first use */

static PyObject *op_overload(int op) {
    if (op < (int)(sizeof overloads / sizeof *overloads) && overloads[op]) return overloads[op];
    const tn_op_def *d = tn_op_at(op);
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *ops = torch ? PyObject_GetAttrString(torch, "ops") : NULL;
    const char *colon = strstr(d->name, "::");
    char ns[64];
    snprintf(ns, sizeof ns, "%.*s", colon ? (int)(colon - d->name) : 4, colon ? d->name : "aten");
    PyObject *nsobj = ops ? PyObject_GetAttrString(ops, ns) : NULL;
    PyObject *packet = nsobj ? PyObject_GetAttrString(nsobj, colon ? colon + 2 : d->name) : NULL;
    PyObject *ov = packet ? PyObject_GetAttrString(packet, d->overload[0] ? d->overload : "default") : NULL;
    Py_XDECREF(torch); Py_XDECREF(ops); Py_XDECREF(nsobj); Py_XDECREF(packet);
    if (ov && op < (int)(sizeof overloads / sizeof *overloads)) overloads[op] = ov; /* kept */
    return ov;
}

/* The Python form of a call, as upstream hands it to __torch_dispatch__ (modes and subclasses):
 * trailing positional arguments and keyword-only ones equal to their defaults are left out, a
 * wrapped Python number (x + 1) is the number again. types: the classes of the tensor arguments
 * that define their own __torch_dispatch__, once each, in argument order (tensors inside lists
 * included) with a subclass placed before a class it derives from (upstream's
 * append_overloaded_arg). */
static int add_type(PyObject *types, PyObject *o) {
    if (!tn_py_is_tensor(o) || !tn_has_torch_dispatch(o)) return 0;
    PyObject *tp = (PyObject *)Py_TYPE(o);
    Py_ssize_t n = PyList_Size(types), at = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GetItem(types, i);
        if (t == tp) return 0;
        if (at == n && PyType_IsSubtype((PyTypeObject *)tp, (PyTypeObject *)t)) at = i;
    }
    return PyList_Insert(types, at, tp);
}

/* a wrapped number's value, read directly (no op: a mode must not see one) */
static PyObject *wrapped_value(PyObject *t) {
    const tn_tensor *g = tn_tensor_of(t);
    const char *p = tn_data(g);
    switch (g->dtype) {
    case TN_DTYPE_BOOL: return PyBool_FromLong(*(const bool *)p);
    case TN_DTYPE_I64: return PyLong_FromLongLong(*(const int64_t *)p);
    case TN_DTYPE_F64: return PyFloat_FromDouble(*(const double *)p);
    case TN_DTYPE_C128: return PyComplex_FromDoubles(((const double *)p)[0], ((const double *)p)[1]);
    default: return Py_NewRef(t);
    }
}

int tn_door_python_call(int op, tn_value *args, PyObject **func, PyObject **pargs_out,
                        PyObject **kwargs_out, PyObject **types_out) {
    *func = *pargs_out = *kwargs_out = *types_out = NULL;
    const tn_schema *s = tn_op_schema(op);
    PyObject *f = s ? op_overload(op) : NULL;
    if (!f) return -1;
    int last_pos = -1;
    for (int i = 0; i < s->nargs; i++)
        if (!s->args[i].kwarg_only && !args[i].defaulted && !tn_value_is_default(&s->args[i], &args[i])) last_pos = i;
    PyObject *pargs = PyList_New(0), *kwargs = PyDict_New(), *types = PyList_New(0);
    int r = pargs && kwargs && types ? 0 : -1;
    for (int i = 0; r == 0 && i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSORLIST)   /* every tensor counts, given or not */
            for (Py_ssize_t k = 0; r == 0 && k < PyTuple_Size(args[i].u.obj); k++)
                r = add_type(types, PyTuple_GetItem(args[i].u.obj, k));
        if (r == 0 && args[i].tag == TN_V_TENSOR) r = add_type(types, args[i].u.obj);
        if (r < 0) break;
        if (s->args[i].kwarg_only ? (args[i].defaulted || tn_value_is_default(&s->args[i], &args[i])) : i > last_pos) continue;
        bool number = args[i].tag == TN_V_TENSOR && ((tn_tensor_obj *)args[i].u.obj)->wrapped_number;
        PyObject *o = number ? wrapped_value(args[i].u.obj) : tn_value_to_python(&args[i]);
        if (!o) { r = -1; break; }
        r = s->args[i].kwarg_only ? PyDict_SetItemString(kwargs, s->args[i].name, o) : PyList_Append(pargs, o);
        Py_DECREF(o);
    }
    PyObject *targs = r == 0 ? PyList_AsTuple(pargs) : NULL, *ttypes = r == 0 ? PyList_AsTuple(types) : NULL;
    Py_XDECREF(pargs); Py_XDECREF(types);
    if (!targs || !ttypes) {
        Py_XDECREF(targs); Py_XDECREF(ttypes); Py_XDECREF(kwargs);
        return -1;
    }
    *func = f;   /* borrowed: kept for the process */
    *pargs_out = targs;
    *kwargs_out = kwargs;
    *types_out = ttypes;
    return 0;
}

/* Hand the call to the innermost dispatch mode. */
static PyObject *to_mode(int op, tn_value *args) {
    PyObject *func, *targs, *kwargs, *ttypes;
    if (tn_door_python_call(op, args, &func, &targs, &kwargs, &ttypes) < 0) return NULL;
    PyObject *res = NULL;
    PyObject *mode = tn_dispatch_mode_pop_top();
    if (mode) {
        /* the handler runs below autograd and ADInplaceOrView, as upstream's Python key: nothing
         * records, views are not tracked, grad mode reads as the user set it (grad_mode.c) */
        bool untracked = tn_tls_untracked_views;
        tn_tls_untracked_views = true;
        tn_below_autograd_step(1);
        res = PyObject_CallMethod(mode, "__torch_dispatch__", "OOOO", func, ttypes, targs, kwargs);
        tn_below_autograd_step(-1);
        tn_tls_untracked_views = untracked;
        if (res && !untracked) tn_mark_views(op, args, res);
        res = tn_dispatch_mode_restore(mode, res);
    }
    Py_DECREF(targs); Py_DECREF(kwargs); Py_DECREF(ttypes);
    return res;
}

/* ---------- meta tensors ----------
 * A meta tensor has geometry and no data. Kernels never see one: when an argument is on meta,
 * the door runs the op on zero-filled CPU stand-ins of the same geometry and hands back results
 * on meta (views of a stand-in become views of the original meta storage; an in-place result is
 * the original object). Shapes, dtypes and strides are therefore the CPU kernels' own; the cost
 * is one temporary allocation per meta input. */

static bool is_meta(PyObject *t) { return tn_tensor_of(t)->storage->device == TN_DEVICE_META; }

static bool any_meta(const tn_schema *s, tn_value *args) {
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && is_meta(args[i].u.obj)) return true;
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++) {
                PyObject *e = PyTuple_GetItem(args[i].u.obj, k);
                if (tn_py_is_tensor(e) && is_meta(e)) return true;
            }
    }
    return false;
}

/* A tensor of t's geometry (dtype, sizes, strides, offset, storage size) on device dev: a meta
 * tensor's CPU stand-in (zero bytes), or a CPU tensor's meta twin. */
static PyObject *twin_on(PyObject *t, tn_device_type dev) {
    tn_tensor g = *tn_tensor_of(t);
    size_t nbytes = g.storage->nbytes;
    uint64_t need;   /* a meta view past its storage (upstream's as_strided on meta checks no bounds) */
    if (dev == TN_DEVICE_CPU && tn_extent_bytes(g.ndim, g.sizes, g.strides, g.offset, tn_dtype_itemsize(g.dtype), &need) &&
        need > nbytes && need <= SIZE_MAX)
        nbytes = (size_t)need;
    tn_storage *s = dev == TN_DEVICE_CPU ? tn_storage_new_zeroed(nbytes, dev) : tn_storage_new(nbytes, dev);
    if (!s) return PyErr_NoMemory();
    g.storage = s;
    return tn_tensor_wrap(&g);
}
static PyObject *stand_in(PyObject *t) { return twin_on(t, TN_DEVICE_CPU); }

/* orig / cpu: the meta (or written) arguments and their CPU stand-ins; keep: the CPU tensors the
 * op read as they are, which a result may be (broadcast_tensors, reshape returning self) */
typedef struct { PyObject *orig[64], *cpu[64], *keep[64]; int n, nkeep; bool convert; } meta_map;

static PyObject *to_meta(PyObject *r, meta_map *m) {
    if (tn_py_is_tensor(r)) {
        for (int i = 0; i < m->n; i++)
            if (r == m->cpu[i]) { /* in-place: the original object, with the stand-in's geometry */
                if (!is_meta(m->orig[i])) {   /* a CPU tensor written next to meta inputs: as it was */
                    Py_DECREF(r);
                    return Py_NewRef(m->orig[i]);
                }
                tn_tensor *o = tn_tensor_of(m->orig[i]), *c = tn_tensor_of(r);
                tn_storage *keep = o->storage;
                if (c->storage->nbytes > keep->nbytes) keep->nbytes = c->storage->nbytes;
                *o = *c;
                o->storage = keep;
                Py_DECREF(r);
                return Py_NewRef(m->orig[i]);
            }
        for (int i = 0; i < m->nkeep; i++)
            if (r == m->keep[i]) {
                /* a CPU argument returned as it is stays that CPU tensor (broadcast_tensors(x, m)[0]
                 * is x, measured), never turned meta; a conversion to a meta tensor's device
                 * (x.to(m), x.type_as(m)) gives a fresh meta tensor */
                if (!m->convert) return r;
                const tn_tensor *k = tn_tensor_of(r);
                PyObject *fresh = tn_tensor_new_empty(k->ndim, k->sizes, k->dtype, TN_DEVICE_META);
                Py_DECREF(r);
                return fresh;
            }
        tn_tensor *t = tn_tensor_of(r);
        tn_storage *meta = NULL;
        for (int i = 0; i < m->n && !meta; i++)
            if (t->storage == tn_tensor_of(m->cpu[i])->storage) meta = tn_tensor_of(m->orig[i])->storage;
        PyObject **base = &((tn_tensor_obj *)r)->base;
        for (int i = 0; i < m->n && *base; i++)
            if (*base == m->cpu[i]) Py_XSETREF(*base, Py_NewRef(m->orig[i]));
        if (meta) tn_storage_incref(meta);
        else if (!(meta = tn_storage_new(t->storage->nbytes, TN_DEVICE_META))) { Py_DECREF(r); return PyErr_NoMemory(); }
        tn_storage_decref(t->storage);
        t->storage = meta;
        return r;
    }
    if (PyTuple_Check(r) || PyList_Check(r)) {
        Py_ssize_t n = PySequence_Size(r);
        PyObject *items = PySequence_List(r);   /* the elements, converted in place of the originals */
        if (!items) { Py_DECREF(r); return NULL; }
        bool changed = false;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PyList_GetItem(items, i);
            if (!tn_py_is_tensor(e)) continue;
            PyObject *conv = to_meta(Py_NewRef(e), m);
            if (!conv) { Py_DECREF(items); Py_DECREF(r); return NULL; }
            /* an element that is a stand-in (broadcast_tensors(m, x)[0]) becomes its original */
            if (conv != e) changed = true;
            PyList_SetItem(items, i, conv);
        }
        if (!changed) { Py_DECREF(items); return r; }
        PyObject *out = PyList_Check(r) ? Py_NewRef(items)
                      : PyTuple_CheckExact(r) ? PyList_AsTuple(items)
                      : PyObject_CallFunctionObjArgs((PyObject *)Py_TYPE(r), items, NULL);   /* a torch.return_types structseq */
        Py_DECREF(items);
        Py_DECREF(r);
        return out;
    }
    return r;
}

/* Does the call ask for a CPU result explicitly (device="cpu")? */
static bool wants_cpu(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    for (int i = 0; i < s->nargs; i++)
        if (args[i].tag == TN_V_DEVICE && args[i].u.device.type == TN_DEVICE_CPU) return true;
    /* to(other) / type_as(other): the other tensor's device */
    bool other = (!strcmp(d->name, "to") && !strcmp(d->overload, "other")) || !strcmp(d->name, "type_as");
    return other && s->nargs > 1 && args[1].tag == TN_V_TENSOR && !is_meta(args[1].u.obj);
}

/* ---- devices of a call with a meta argument ------------------------------------------------
 * Upstream reaches the Meta kernel when any argument is meta. Three kinds of Meta kernel decide
 * what a call mixing meta and CPU tensors does (docs/outdev.md):
 * - Python references and decompositions (torch._refs*, torch._decomp.decompositions, registered
 *   at `import torch` through torch.library.Library("aten", "IMPL", "Meta")) run prims whose meta
 *   functions refuse inputs on different devices, CPU 0-dim tensors excepted: "Tensor on device A
 *   is not on the expected device B!", B the first such tensor's device in argument order;
 * - a Python kernel wrapped in the references' out wrapper compares the first argument (when it
 *   is a tensor) with every out= tensor before running, then copies the result into out=:
 *   "Attempting to copy from device A to device B, but cross-device copies are not allowed!"
 *   (other Python kernels, e.g. the references' reductions, run first and fail the same copy);
 * - the others (C++ structured meta functions) run their argument checks (a bad dim), then
 *   compare the computed result device with each out: "Expected out tensor to have device A, but
 *   got B instead".
 * library.c tells which rows have a Python kernel and of which kind (tn_door_mark_py_meta); the
 * reference (result) device is the first tensor argument that is not an out= tensor and not a
 * wrapped Python number, CPU 0-dim tensors only when nothing else. */
enum { PYM_META = 1, PYM_REFS = 2, PYM_WRAP = 4, PYM_DECOMP = 8 };
static unsigned char *py_meta_rows;

void tn_door_mark_py_meta(int row, PyObject *fn) {
    if (row < 0 || row >= tn_op_count()) return;
    if (!py_meta_rows && !(py_meta_rows = calloc((size_t)tn_op_count(), 1))) return;
    unsigned char f = PYM_META;
    PyObject *mod = fn ? PyObject_GetAttrString(fn, "__module__") : NULL;
    const char *ms = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8AndSize(mod, NULL) : NULL;
    if (ms && (!strcmp(ms, "torch._refs") || !strncmp(ms, "torch._refs.", 12))) f |= PYM_REFS;
    if (ms && !strcmp(ms, "torch._decomp.decompositions")) f |= PYM_DECOMP;
    /* the references' in-place lerp_ / addcmul_ / addcdiv_ (bound as torch._ops.aten functions)
     * and the special polynomials' elementwise meta check devices as the references do */
    PyObject *qn = fn && !(f & (PYM_REFS | PYM_DECOMP)) ? PyObject_GetAttrString(fn, "__qualname__") : NULL;
    const char *qs = qn && PyUnicode_Check(qn) ? PyUnicode_AsUTF8AndSize(qn, NULL) : NULL;
    if ((ms && !strcmp(ms, "torch._ops.aten")) || (qs && !strncmp(qs, "_create_binary_float_meta_func", 30))) f |= PYM_REFS;
    /* torch._meta_registrations' lerp / addcmul / addcdiv end in the references' elementwise_meta
     * (measured: "Tensor on device cpu is not on the expected device meta!") */
    if (ms && qs && !strcmp(ms, "torch._meta_registrations") &&
        (!strcmp(qs, "lerp") || !strcmp(qs, "addcmul") || !strcmp(qs, "addcdiv")))
        f |= PYM_REFS;
    Py_XDECREF(qn);
    Py_XDECREF(mod);
    PyErr_Clear();
    if (fn && PyObject_HasAttrString(fn, "_torch_decompositions_out_wrapper")) f |= PYM_WRAP;
    py_meta_rows[row] = f;   /* a later registration replaces an earlier one, as upstream's */
}

static bool is_out_arg(const tn_schema *s, int i) { return s->args[i].is_write && s->args[i].kwarg_only; }

static const char *device_name(PyObject *t) { return is_meta(t) ? "meta" : "cpu"; }

/* The first out tensor whose device differs from ref's, or NULL. */
static PyObject *out_off_device(const tn_schema *s, tn_value *args, PyObject *ref) {
    for (int i = 0; i < s->nargs; i++) {
        if (!is_out_arg(s, i)) continue;
        Py_ssize_t n = args[i].tag == TN_V_TENSOR ? 1 : args[i].tag == TN_V_TENSORLIST ? PyTuple_Size(args[i].u.obj) : 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *o = args[i].tag == TN_V_TENSOR ? args[i].u.obj : PyTuple_GetItem(args[i].u.obj, k);
            if (tn_py_is_tensor(o) && is_meta(o) != is_meta(ref)) return o;
        }
    }
    return NULL;
}

static bool cpu_scalar(PyObject *t) { return !is_meta(t) && tn_tensor_of(t)->ndim == 0; }

/* The references' prims: input tensors on two devices (CPU 0-dim tensors and Python numbers
 * join any device) are refused, naming the first tensor's device as the expected one; in-place
 * references too (addcmul_, eq_, clamp_min_, ...; measured). copysign and floor_divide compare
 * their two tensors first, in their own words: copysign refuses any two devices, floor_divide a
 * CPU dividend with a divisor elsewhere, and moves a CPU divisor to the dividend's device. */
static int check_same_device(int row, const tn_schema *s, tn_value *args) {
    unsigned char f = py_meta_rows ? py_meta_rows[row] : 0;
    const char *name = tn_op_at(row)->name;
    if (!(f & (PYM_REFS | PYM_DECOMP)) && strncmp(name, "_foreach_", 9)) return 0;
    /* index_add / index_copy's decompositions wrap the dim, then compare the devices in their
     * own words (ops/index_dim.c) */
    if ((f & PYM_DECOMP) && (!strcmp(name, "index_add") || !strcmp(name, "index_add_") || !strcmp(name, "index_copy") ||
                             !strcmp(name, "index_copy_")) && !strcmp(tn_op_at(row)->overload, ""))
        return 0;
    bool copysign = !strncmp(name, "copysign", 8), floordiv = !strncmp(name, "floor_divide", 12);
    if ((copysign || floordiv) && s->nargs >= 2 && args[0].tag == TN_V_TENSOR && !args[0].wrapped &&
        args[1].tag == TN_V_TENSOR && !args[1].wrapped && is_meta(args[0].u.obj) != is_meta(args[1].u.obj)) {
        if (floordiv && is_meta(args[0].u.obj)) return 0;
        PyErr_Format(PyExc_RuntimeError, "Expected divisor (b) to be on the same device (%s) as dividend (a), but it is "
                     "found on %s!", device_name(args[0].u.obj), device_name(args[1].u.obj));
        return -1;
    }
    if (!strncmp(name, "_foreach_", 9)) {
        /* the _foreach_ ops pair the lists' tensors: each against the first list's at its index
         * (measured; the tensors of one list may differ, and the in-place forms check nothing) */
        if (s->nargs < 2 || args[0].tag != TN_V_TENSORLIST || s->args[0].is_write) return 0;
        Py_ssize_t n = PyTuple_Size(args[0].u.obj);
        for (int i = 1; i < s->nargs; i++) {
            if (is_out_arg(s, i) || args[i].tag != TN_V_TENSORLIST) continue;
            for (Py_ssize_t k = 0; k < n && k < PyTuple_Size(args[i].u.obj); k++) {
                PyObject *x = PyTuple_GetItem(args[0].u.obj, k), *e = PyTuple_GetItem(args[i].u.obj, k);
                if (!tn_py_is_tensor(x) || !tn_py_is_tensor(e) || cpu_scalar(e) || is_meta(e) == is_meta(x)) continue;
                PyErr_Format(PyExc_RuntimeError, "Tensor on device %s is not on the expected device %s!", device_name(e), device_name(x));
                return -1;
            }
        }
        return 0;
    }
    PyObject *first = NULL;
    for (int i = 0; i < s->nargs; i++) {
        if (is_out_arg(s, i)) continue;
        Py_ssize_t n = args[i].tag == TN_V_TENSOR && !args[i].wrapped ? 1 : args[i].tag == TN_V_TENSORLIST ? PyTuple_Size(args[i].u.obj) : 0;
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *e = args[i].tag == TN_V_TENSOR ? args[i].u.obj : PyTuple_GetItem(args[i].u.obj, k);
            if (!tn_py_is_tensor(e) || cpu_scalar(e)) continue;
            if (!first) first = e;
            else if (is_meta(e) != is_meta(first)) {
                PyErr_Format(PyExc_RuntimeError, "Tensor on device %s is not on the expected device %s!", device_name(e), device_name(first));
                return -1;
            }
        }
    }
    return 0;
}

/* A CompositeImplicitAutograd row reaches the references through the ops it decomposes into,
 * after its own checks (subtract, arctan2, greater.Tensor_out, isclose, min.other,
 * special_gammainc: measured), so mixed devices are refused once the op has run on the
 * stand-ins. Its in-place forms reach their target's in-place op and its Meta kernel: an in-place
 * alias checks as its target row does (greater_ -> gt_, arctan2_ -> atan2_, clip_ -> clamp_
 * refuse; divide_ -> div_ does not), measured (docs/breadth_more2.md). */
static int composite_same_device(int row, const tn_schema *s, tn_value *args) {
    /* measured for the aliases (subtract -> sub, ...) and the non-differentiable kernels
     * (isclose); a composite computing through other ops reaches what they check (view_as,
     * linear do not refuse) and is left to them */
    int kind = tn_decomp_kind(row);
    bool has_out = false;
    for (int i = 0; i < s->nargs; i++) {
        if (s->args[i].is_write && !is_out_arg(s, i))
            return kind >= 0 && tn_op_autograd_defs[row].composite ? check_same_device(kind, s, args) : 0;
        has_out = has_out || is_out_arg(s, i);
    }
    /* (the out= forms of the aliases, subtract.out / greater.Tensor_out, have no table entry) */
    if (!tn_op_autograd_defs[row].composite || !(kind >= 0 || kind == -3 || (kind == -100 && has_out))) return 0;
    unsigned char *saved = py_meta_rows, one = PYM_REFS;
    if (!saved) return 0;
    unsigned char keep = saved[row];
    saved[row] = one;
    int r = check_same_device(row, s, args);
    saved[row] = keep;
    return r;
}

/* 0: every out= tensor on the result's device; otherwise the error is set and the result says
 * when upstream raises it: OUT_NOW before anything else, OUT_AFTER only if the op itself (its
 * argument checks) succeeds. */
enum { OUT_OK, OUT_NOW, OUT_AFTER };
/* Out= rows whose upstream Meta path copies into out= before any argument check of its own
 * (measured: a meta self with a dim out of range, or an out= of another dtype, and a CPU out= give
 * the copy error): the composites forwarding straight to an out= overload whose Python meta kernel
 * is in the out wrapper (std / var.out, special_logsumexp.out, softmax / log_softmax.int_out,
 * nll_loss.out, subtract.out, divide.out_mode) or is
 * meta_sort, which checks nothing (argsort.stable_out, sort.values(_stable)). */
static bool copies_first(int row) {
    static const char *const rows[][2] = {
        {"std", "out"}, {"var", "out"}, {"special_logsumexp", "out"}, {"softmax", "int_out"},
        {"log_softmax", "int_out"}, {"argsort", "stable_out"}, {"sort", "values"}, {"sort", "values_stable"},
        {"nll_loss", "out"}, {"subtract", "out"}, {"divide", "out_mode"},
    };
    const tn_op_def *d = tn_op_at(row);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (!strcmp(d->name, rows[i][0]) && !strcmp(d->overload, rows[i][1])) return true;
    return false;
}

static int check_out_devices(int row, const tn_schema *s, tn_value *args) {
    /* the result's device: the first input tensor, CPU 0-dim tensors only when nothing else */
    PyObject *ref = NULL;
    for (int i = 0; i < s->nargs && !(ref && !cpu_scalar(ref)); i++) {
        if (is_out_arg(s, i)) continue;
        Py_ssize_t n = args[i].tag == TN_V_TENSOR && !args[i].wrapped ? 1 : args[i].tag == TN_V_TENSORLIST ? PyTuple_Size(args[i].u.obj) : 0;
        for (Py_ssize_t k = 0; k < n && !(ref && !cpu_scalar(ref)); k++) {
            PyObject *e = args[i].tag == TN_V_TENSOR ? args[i].u.obj : PyTuple_GetItem(args[i].u.obj, k);
            if (!tn_py_is_tensor(e)) continue;
            if (!ref || !cpu_scalar(e)) ref = e;
        }
    }
    if (!ref) return OUT_OK;   /* factories: out= decides the device */
    /* a CompositeImplicitAutograd row has no Meta kernel of its own: upstream reaches the ops it
     * decomposes into, and those measured (aliases, matmul, the stack family, nanmean, ...) have
     * Python meta kernels wrapped in the out wrapper */
    bool composite = tn_op_autograd_defs[row].composite;
    unsigned char f = py_meta_rows ? py_meta_rows[row] : 0;
    PyObject *o;
    /* (softmax / log_softmax.int_out convert the input to dtype= first: a quantized one fails there,
     * before the copy, as the op itself refuses it) */
    bool quant_dtype = false;
    for (int i = 0; i < s->nargs; i++)
        quant_dtype = quant_dtype || (args[i].tag == TN_V_DTYPE && tn_dtype_infos[args[i].u.dtype].kind == TN_KIND_QUANT);
    if (args[0].tag == TN_V_TENSOR && !is_out_arg(s, 0) && copies_first(row) && !quant_dtype &&
        (o = out_off_device(s, args, args[0].u.obj))) {
        PyErr_Format(PyExc_RuntimeError, "Attempting to copy from device %s to device %s, but cross-device copies are not allowed!",
                     device_name(args[0].u.obj), device_name(o));
        return OUT_NOW;
    }
    if (f || composite) {
        /* the out wrapper compares the first argument (a tensor, CPU 0-dim included) before the
         * op runs; the copy of the result comes after it */
        PyObject *from = args[0].tag == TN_V_TENSOR && !args[0].wrapped && !is_out_arg(s, 0) ? args[0].u.obj : NULL;
        bool pre = composite || (f & PYM_WRAP);
        /* a composite's own checks (float_power's out= dtype) come before the op it reaches */
        int when = composite ? OUT_AFTER : OUT_NOW;
        if (!(pre && from && (o = out_off_device(s, args, from)))) {
            from = ref, o = out_off_device(s, args, ref);
            when = OUT_AFTER;
        }
        if (!o) return OUT_OK;
        PyErr_Format(PyExc_RuntimeError, "Attempting to copy from device %s to device %s, but cross-device copies are not allowed!",
                     device_name(from), device_name(o));
        return when;
    }
    if (!(o = out_off_device(s, args, ref))) return OUT_OK;
    PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have device %s, but got %s instead", device_name(ref), device_name(o));
    return OUT_AFTER;
}

static PyObject *meta_call(const tn_op_def *d, const tn_schema *s, tn_value *args);
static _Thread_local bool trial_run;
bool tn_door_out_trial(void) { return trial_run; }

/* A Python kernel resizes each out= tensor to its result's shape before copying into it, up to
 * the copy that fails: the caller's out= tensors keep that shape (torch.sum(m, 1, out=cpu)). */
static void resize_outs(const tn_schema *s, tn_value *args, PyObject *r) {
    Py_ssize_t k = 0;
    for (int i = 0; i < s->nargs; i++) {
        if (!is_out_arg(s, i)) continue;
        Py_ssize_t n = args[i].tag == TN_V_TENSOR ? 1 : args[i].tag == TN_V_TENSORLIST ? PyTuple_Size(args[i].u.obj) : 0;
        for (Py_ssize_t j = 0; j < n; j++, k++) {
            PyObject *o = args[i].tag == TN_V_TENSOR ? args[i].u.obj : PyTuple_GetItem(args[i].u.obj, j);
            PyObject *res = tn_py_is_tensor(r) ? (k == 0 ? r : NULL) : PyTuple_Check(r) && k < PyTuple_Size(r) ? PyTuple_GetItem(r, k) : NULL;
            if (!res || !tn_py_is_tensor(res) || !tn_py_is_tensor(o)) return;
            const tn_tensor *rt = tn_tensor_of(res);
            if (tn_resize(o, rt->ndim, rt->sizes) < 0) { PyErr_Clear(); return; }
            if (is_meta(o) != is_meta(res)) return;   /* the failing copy */
        }
    }
}

/* The out= device error (pending) stands only if the op's own checks pass: run it once with every
 * out= tensor replaced by a fresh CPU tensor of its geometry (nothing of the caller's is
 * written), and raise its error instead if it fails. */
static PyObject *out_device_after(const tn_op_def *d, const tn_schema *s, tn_value *args, int row) {
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    tn_value local[64];
    PyObject *made[64];
    int nmade = 0;
    PyObject *r = NULL;
    bool ok = false;
    if (s->nargs > 64) goto done;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++) {
        if (!is_out_arg(s, i)) continue;
        if (local[i].tag == TN_V_TENSOR) {
            if (!(made[nmade] = stand_in(local[i].u.obj))) goto done;
            local[i].u.obj = made[nmade++];
        } else if (local[i].tag == TN_V_TENSORLIST) {
            Py_ssize_t n = PyTuple_Size(local[i].u.obj);
            PyObject *tup = PyTuple_New(n);
            if (!tup) goto done;
            made[nmade++] = tup;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(local[i].u.obj, k);
                PyObject *c = tn_py_is_tensor(e) ? stand_in(e) : Py_NewRef(e);
                if (!c) goto done;
                PyTuple_SetItem(tup, k, c);
            }
            local[i].u.obj = tup;
        }
    }
    if (check_same_device(row, s, local) < 0) goto done;
    trial_run = true;   /* the outs are our own temporaries: the op writes (resizes) them */
    r = any_meta(s, local) ? meta_call(d, s, local) : d->fn(local);
    trial_run = false;
    ok = r != NULL;
    if (ok && py_meta_rows && py_meta_rows[row] && !tn_op_autograd_defs[row].composite)
        resize_outs(s, args, r);
    Py_XDECREF(r);
done:
    for (int i = 0; i < nmade; i++) Py_DECREF(made[i]);
    if (ok || !PyErr_Occurred()) {
        PyErr_Restore(et, ev, tb);
    } else {
        Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb);
    }
    return NULL;
}

static _Thread_local const meta_map *meta_now;   /* the stand-ins of the innermost meta call, NULL outside one */
static _Thread_local const tn_value *meta_args_now;   /* the argument array that call's kernel received */
bool tn_door_on_meta(void) { return meta_now != NULL; }
bool tn_door_meta_call(const tn_value *a) { return meta_now != NULL && a == meta_args_now; }
tn_device_type tn_door_arg_device(PyObject *t) {
    for (int i = 0; meta_now && i < meta_now->n; i++)
        if (meta_now->cpu[i] == t && is_meta(meta_now->orig[i])) return TN_DEVICE_META;
    return tn_tensor_of(t)->storage->device;
}

int tn_door_stand_in_same_device(int row, const tn_value *args) {
    const tn_schema *s = meta_now ? tn_op_schema(row) : NULL;
    if (!s || s->nargs > 64) return s || !meta_now ? 0 : -1;
    tn_value local[64];
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++)
        for (int k = 0; local[i].tag == TN_V_TENSOR && k < meta_now->n; k++)
            if (meta_now->cpu[k] == local[i].u.obj) { local[i].u.obj = meta_now->orig[k]; break; }
    return check_same_device(row, s, local);
}

static PyObject *meta_twin(PyObject *t) { return twin_on(t, TN_DEVICE_META); }

/* For the ops below, the decompositions' device error (pending, from check_same_device) stands
 * only if the op runs with its CPU tensors on meta: their Python code checks its arguments before
 * the prims compare devices (measured: add / sub's alpha, baddbmm_'s size reads, div's
 * rounding_mode, huber_loss's delta, the nll_loss and _native_batch_norm_legit assertions;
 * docs/breadth_more2.md "group meta (session 40)"). Not every such kernel does (dist compares
 * devices before its p), and ours must check in upstream's order for the trial to tell
 * (index_fill's index rank, upstream's first check, comes after our dim wrap): a list of those
 * measured. CPU 0-dim tensors stay as they are. */
static bool checks_before_devices(const tn_op_def *d) {
    static const char *const names[] = {"add", "sub", "rsub", "subtract", "baddbmm_", "div", "div_", "divide", "huber_loss",
                                        "_native_batch_norm_legit", "nll_loss", "nll_loss_forward", "nll_loss_backward",
                                        "nll_loss2d_backward", "reflection_pad2d_backward", "replication_pad2d_backward",
                                        "grid_sampler_2d"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(d->name, names[i])) return true;
    return false;
}

static PyObject *device_error_after(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    tn_value local[64];
    PyObject *made[64];
    int nmade = 0;
    bool ok = false;
    if (s->nargs > 64 || !checks_before_devices(d)) goto done;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++) {
        if (local[i].tag == TN_V_TENSOR && !local[i].wrapped && !is_meta(local[i].u.obj) && !cpu_scalar(local[i].u.obj)) {
            if (nmade == 64 || !(made[nmade] = meta_twin(local[i].u.obj))) goto done;
            local[i].u.obj = made[nmade++];
        } else if (local[i].tag == TN_V_TENSORLIST) {
            Py_ssize_t n = PyTuple_Size(local[i].u.obj);
            PyObject *tup = PyTuple_New(n);
            if (!tup || nmade == 64) { Py_XDECREF(tup); goto done; }
            made[nmade++] = tup;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(local[i].u.obj, k);
                PyObject *c = tn_py_is_tensor(e) && !is_meta(e) && !cpu_scalar(e) ? meta_twin(e) : Py_NewRef(e);
                if (!c) goto done;
                PyTuple_SetItem(tup, k, c);
            }
            local[i].u.obj = tup;
        }
    }
    PyObject *r = meta_call(d, s, local);
    ok = r != NULL;
    Py_XDECREF(r);
done:
    for (int i = 0; i < nmade; i++) Py_DECREF(made[i]);
    if (ok || !PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Restore(et, ev, tb);
    } else {
        Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb);
    }
    return NULL;
}

static PyObject *meta_call(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    meta_map m = {.n = 0, .nkeep = 0, .convert = !strcmp(d->name, "to") || !strcmp(d->name, "type_as")};
    bool cpu_result = wants_cpu(d, s, args);
    bool copies = !strcmp(d->name, "_to_copy") || !strcmp(d->name, "to") || !strcmp(d->name, "type_as") || !strcmp(d->name, "copy_");
    if (copies && (cpu_result || (!strcmp(d->name, "copy_") && !is_meta(args[0].u.obj)))) {
        PyErr_SetString(PyExc_NotImplementedError, "Cannot copy out of meta tensor; no data!");
        return NULL;
    }
    tn_value local[64];
    PyObject *lists[64];
    int nlists = 0;
    PyObject *r = NULL;
    if (s->nargs > 64) return tn_not_implemented("meta tensors for an operator with this many arguments");
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++) {
        /* a CPU tensor the op writes (x.add_(meta)) gets a stand-in too: upstream's meta kernel
         * returns it untouched */
        if (local[i].tag == TN_V_TENSOR && (is_meta(local[i].u.obj) || (s->args[i].is_write && !(trial_run && is_out_arg(s, i)))) && m.n < 64) {
            PyObject *c = stand_in(local[i].u.obj);
            if (!c) goto done;
            m.orig[m.n] = local[i].u.obj;
            m.cpu[m.n++] = c;
            local[i].u.obj = c;
        } else if (local[i].tag == TN_V_TENSOR && m.nkeep < 64) {
            m.keep[m.nkeep++] = local[i].u.obj;
        } else if (local[i].tag == TN_V_TENSORLIST) {
            Py_ssize_t n = PyTuple_Size(local[i].u.obj);
            PyObject *tup = PyTuple_New(n);
            if (!tup) goto done;
            lists[nlists++] = tup;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(local[i].u.obj, k);
                if (tn_py_is_tensor(e) && is_meta(e) && m.n < 64) {
                    PyObject *c = stand_in(e);
                    if (!c) goto done;
                    m.orig[m.n] = e;
                    m.cpu[m.n++] = c;
                    PyTuple_SetItem(tup, k, Py_NewRef(c));
                } else {
                    if (tn_py_is_tensor(e) && m.nkeep < 64) m.keep[m.nkeep++] = e;
                    PyTuple_SetItem(tup, k, Py_NewRef(e));
                }
            }
            local[i].u.obj = tup;
        }
    }
    const meta_map *outer = meta_now;
    const tn_value *outer_args = meta_args_now;
    meta_now = &m;
    meta_args_now = local;
    r = d->fn(local);
    meta_now = outer;
    meta_args_now = outer_args;
    if (r && !cpu_result) r = to_meta(r, &m);
done:
    for (int i = 0; i < m.n; i++) Py_DECREF(m.cpu[i]);
    for (int i = 0; i < nlists; i++) Py_DECREF(lists[i]);
    return r;
}

/* A tensor an op made with storage of its own starts at version 0, as upstream's (kernels that
 * fill a fresh result through an in-place step, randn's normal_, must not count). Ops that write
 * an argument keep their counts, and so does an argument returned as it is (to() or contiguous()
 * with nothing to do: upstream returns self, its version untouched). */
static bool is_tensor_arg(const tn_schema *s, const tn_value *args, PyObject *t) {
    for (int i = 0; i < s->nargs; i++)
        if (args[i].tag == TN_V_TENSOR && args[i].u.obj == t) return true;
    return false;
}
static void fresh_versions(const tn_schema *s, const tn_value *args, PyObject *r) {
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].is_write) return;
    PyObject *one[1] = {r};
    PyObject **items = one;
    Py_ssize_t n = 1;
    if (PyTuple_Check(r)) { n = PyTuple_Size(r); items = NULL; }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = items ? items[k] : PyTuple_GetItem(r, k);
        if (t && tn_py_is_tensor(t) && tn_tensor_of(t)->storage->refcnt == 1 && !((tn_tensor_obj *)t)->base &&
            !is_tensor_arg(s, args, t))
            tn_tensor_of(t)->storage->version = 0;
    }
}


/* ---- the conjugate / negative bits (upstream's MathBitsFallback) -----------------------------
 * A tensor argument with TN_BIT_CONJ / TN_BIT_NEG (core/tensor.h) reaches a view op as it is (the
 * view inherits the bits), and the bit queries see it. Every other op gets the argument
 * materialised: a fresh tensor holding the values it reads as. A written argument (in-place
 * self, out=) with a bit runs on its materialised copy, which is then written back through the
 * bits (conj / neg of the result stored in the original's storage) and returned in its place.
 * As upstream: at most one written argument may carry a bit. */
#define TN_BITS_ALL (TN_BIT_CONJ | TN_BIT_NEG)
static bool bit_is(PyObject *t, uint8_t bit) { return tn_py_is_tensor(t) && (tn_tensor_of(t)->math_bits & bit); }
static bool bits_of(PyObject *t) { return bit_is(t, TN_BITS_ALL); }
static bool bit_in_list(PyObject *tup, uint8_t bit) {
    for (Py_ssize_t k = 0; k < PyTuple_Size(tup); k++)
        if (bit_is(PyTuple_GetItem(tup, k), bit)) return true;
    return false;
}
/* whether an argument (or a tensor in a list argument) carries any of `bit` */
static bool bits_wanted(const tn_schema *s, tn_value *args, uint8_t bit) {
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && bit_is(args[i].u.obj, bit)) return true;
        if (args[i].tag == TN_V_TENSORLIST && bit_in_list(args[i].u.obj, bit)) return true;
    }
    return false;
}

/* ops that read or set the bits themselves (ops/predicates.c): they get the arguments as they are */
static bool bit_aware(const tn_op_def *d) {
    static const char *const names[] = {"is_conj", "is_neg", "_conj", "_neg_view", "resolve_conj", "resolve_neg",
                                        "view_as_real", "real", "imag", "conj", "conj_physical"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(d->name, names[i])) return true;
    return false;
}
/* an op whose result may alias an argument (Tensor(a) without a write: views, and composites
 * that return self or a copy: to, contiguous, reshape, ...) */
static bool alias_op(const tn_schema *s) {
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].alias_set && !s->args[i].is_write) return true;
    return false;
}

/* A bit-free tensor viewing t's storage as stored (new reference). */
static PyObject *physical(PyObject *t) {
    const tn_tensor *g = tn_tensor_of(t);
    PyObject *v = tn_tensor_new_view(t, g->ndim, g->sizes, g->strides, g->offset);
    if (v) tn_tensor_of(v)->math_bits = 0;
    return v;
}

/* conj_physical_ / neg_ on a bit-free tensor, by `bits` (grad mode is off here) */
static int apply_bits(PyObject *t, uint8_t bits) {
    PyObject *r;
    if (bits & TN_BIT_CONJ) {
        if (!(r = tn_at_conj_physical_(t))) return -1;
        Py_DECREF(r);
    }
    if (bits & TN_BIT_NEG) {
        if (!(r = tn_at_neg_(t))) return -1;
        Py_DECREF(r);
    }
    return 0;
}

PyObject *tn_resolve_bits(PyObject *t) {
    if (!bits_of(t)) return Py_NewRef(t);
    bool was = tn_grad_mode_set(false);
    PyObject *p = physical(t);
    PyObject *c = p ? tn_at_clone(p, NULL) : NULL;
    Py_XDECREF(p);
    if (c && apply_bits(c, tn_tensor_of(t)->math_bits) < 0) Py_CLEAR(c);
    tn_grad_mode_set(was);
    return c;
}

static PyObject *swap_result(PyObject *r, PyObject *from, PyObject *to) {
    if (r == from) { Py_DECREF(r); return Py_NewRef(to); }
    if (PyTuple_Check(r))
        for (Py_ssize_t k = 0; k < PyTuple_Size(r); k++)
            if (PyTuple_GetItem(r, k) == from) {
                PyObject *n = PyTuple_New(PyTuple_Size(r));
                if (!n) { Py_DECREF(r); return NULL; }
                for (Py_ssize_t j = 0; j < PyTuple_Size(r); j++) {
                    PyObject *e = PyTuple_GetItem(r, j);
                    PyTuple_SetItem(n, j, Py_NewRef(e == from ? to : e));
                }
                Py_DECREF(r);
                return n;
            }
    return r;
}

/* upstream's name for the fallback that refuses: the Negative one runs before the Conjugate one */
static const char *bit_word(uint8_t bits) { return bits & TN_BIT_NEG ? "negation" : "conjugate"; }

/* The arguments carrying any of `bits` replaced in local[] by resolve(arg) (new references kept
 * in made[]), as upstream's MathBitsFallback: at most one written tensor with a bit (*orig, its
 * copy *copy), no written tensor list with one; upstream's errors. -1 with the error set. */
static int resolve_bit_args(const tn_op_def *d, const tn_schema *s, tn_value *local, uint8_t bits,
                            PyObject *(*resolve)(PyObject *), PyObject **made, int *nmade,
                            PyObject **orig, PyObject **copy) {
    for (int i = 0; i < s->nargs; i++) {
        if (local[i].tag == TN_V_TENSOR && bit_is(local[i].u.obj, bits)) {
            if (s->args[i].is_write && *orig) {
                const char *w = bit_word(tn_tensor_of(*orig)->math_bits & tn_tensor_of(local[i].u.obj)->math_bits & bits);
                PyErr_Format(PyExc_RuntimeError, "%s fallback does not support operators with more than one mutable tensors with %sbit set to true.", w, w);
                return -1;
            }
            PyObject *c = resolve(local[i].u.obj);
            if (!c) return -1;
            made[(*nmade)++] = c;
            if (s->args[i].is_write) { *orig = local[i].u.obj; *copy = c; }
            local[i].u.obj = c;
        } else if (local[i].tag == TN_V_TENSORLIST && bit_in_list(local[i].u.obj, bits)) {
            if (s->args[i].is_write) {
                const char *w = bit_word(bit_in_list(local[i].u.obj, TN_BIT_NEG & bits) ? TN_BIT_NEG : TN_BIT_CONJ);
                PyErr_Format(PyExc_RuntimeError, " fallback doesn't currently support mutable TensorLists with %s inputs. Please materialize all the %s input tensor(s) in the mutable TensorList inputs before calling aten::%s", w, w, d->name);
                return -1;
            }
            Py_ssize_t n = PyTuple_Size(local[i].u.obj);
            PyObject *tup = PyTuple_New(n);
            if (!tup) return -1;
            made[(*nmade)++] = tup;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(local[i].u.obj, k);
                PyObject *c = bit_is(e, bits) ? resolve(e) : Py_NewRef(e);
                if (!c) return -1;
                PyTuple_SetItem(tup, k, c);
            }
            local[i].u.obj = tup;
        }
    }
    return 0;
}

/* An aliasing op on bit-free views of its arguments; then each result tensor sharing an
 * argument's storage takes that argument's bits, composed with any the op set (a view of a
 * conjugate view is one; mH of one is not; the argument
 * itself comes back as itself), and each fresh result (a copy: to(dtype), contiguous of a strided
 * tensor) gets the bits applied to its values. */
static int fix_alias(PyObject *r, tn_value *orig, tn_value *local, const tn_schema *s) {
    const tn_tensor *rt = tn_tensor_of(r);
    int nargs = s->nargs;
    /* only an argument the schema says the result may alias (_make_dual's result aliases its
     * primal, not its tangent, though a conjugate tangent may share the primal's storage) */
    for (int i = 0; i < nargs; i++)
        if (orig[i].tag == TN_V_TENSOR && s->args[i].alias_set && bits_of(orig[i].u.obj) &&
            tn_storage_root(rt->storage) == tn_storage_root(tn_tensor_of(orig[i].u.obj)->storage)) {
            /* composed with the bits the op itself set (mH of a conjugate view: conj twice) */
            tn_tensor_of(r)->math_bits ^= tn_tensor_of(orig[i].u.obj)->math_bits;
            return 0;
        }
    (void)local;
    for (int i = 0; i < nargs; i++)
        if (orig[i].tag == TN_V_TENSOR && s->args[i].alias_set && bits_of(orig[i].u.obj)) {
            bool was = tn_grad_mode_set(false);
            int rc = apply_bits(r, tn_tensor_of(orig[i].u.obj)->math_bits);
            tn_grad_mode_set(was);
            return rc;
        }
    return 0;
}
static PyObject *alias_bits_call(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    if (s->nargs > 64) return tn_not_implemented("conjugate / negative bits for an operator with this many arguments");
    tn_value local[64];
    PyObject *made[64];
    int nmade = 0;
    PyObject *r = NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    for (int i = 0; i < s->nargs; i++)
        if (local[i].tag == TN_V_TENSOR && bits_of(local[i].u.obj)) {
            PyObject *p = physical(local[i].u.obj);
            if (!p) goto done;
            made[nmade++] = p;
            local[i].u.obj = p;
        } else if (local[i].tag == TN_V_TENSORLIST) {
            for (Py_ssize_t k = 0; k < PyTuple_Size(local[i].u.obj); k++)
                if (bits_of(PyTuple_GetItem(local[i].u.obj, k))) {
                    r = tn_not_implemented("aliasing operators on tensor lists with the conjugate or negative bit set");
                    goto done;
                }
        }
    r = tn_door_below_autograd_op(d, s, local);
    if (!r) goto done;
    for (int i = 0; i < s->nargs; i++)   /* an argument returned as itself */
        if (local[i].tag == TN_V_TENSOR && local[i].u.obj != args[i].u.obj) r = swap_result(r, local[i].u.obj, args[i].u.obj);
    if (!r) goto done;
    if (tn_py_is_tensor(r)) {
        bool self_ = false;
        for (int i = 0; i < s->nargs; i++) self_ |= args[i].tag == TN_V_TENSOR && r == args[i].u.obj;
        if (!self_ && fix_alias(r, args, local, s) < 0) Py_CLEAR(r);
    } else if (PyTuple_Check(r) || PyList_Check(r)) {
        for (Py_ssize_t k = 0; r && k < PySequence_Size(r); k++) {
            PyObject *e = PySequence_GetItem(r, k);
            if (e && tn_py_is_tensor(e) && fix_alias(e, args, local, s) < 0) Py_CLEAR(r);
            Py_XDECREF(e);
        }
    }
done:
    for (int i = 0; i < nmade; i++) Py_DECREF(made[i]);
    return r;
}

static PyObject *math_bits_call(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    if (s->nargs > 64) return tn_not_implemented("conjugate / negative bits for an operator with this many arguments");
    tn_value local[64];
    PyObject *made[64];
    int nmade = 0;
    PyObject *orig = NULL, *copy = NULL, *r = NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    if (resolve_bit_args(d, s, local, TN_BITS_ALL, tn_resolve_bits, made, &nmade, &orig, &copy) < 0) goto done;
    r = tn_door_below_autograd_op(d, s, local);
    if (r && orig) {
        /* write the result back through the original's bits: store bits(values) */
        uint8_t bits = tn_tensor_of(orig)->math_bits;
        const tn_tensor *c = tn_tensor_of(copy), *o = tn_tensor_of(orig);
        bool was = tn_grad_mode_set(false);
        int rc = 0;
        if (o->ndim != c->ndim || memcmp(o->sizes, c->sizes, (size_t)c->ndim * sizeof *c->sizes))
            rc = tn_resize(orig, c->ndim, c->sizes);   /* out= resized by the op */
        PyObject *p = rc == 0 ? physical(orig) : NULL;
        PyObject *w = p ? tn_at_clone(copy, NULL) : NULL;
        if (w && apply_bits(w, bits) < 0) Py_CLEAR(w);
        PyObject *cp = w ? tn_at_copy_(p, w, false) : NULL;
        tn_grad_mode_set(was);
        Py_XDECREF(p); Py_XDECREF(w);
        if (!cp) Py_CLEAR(r);
        else { Py_DECREF(cp); r = swap_result(r, copy, orig); }
    }
done:
    for (int i = 0; i < nmade; i++) Py_DECREF(made[i]);
    return r;
}

/* upstream's VariableVersion::bump: an inference tensor (core/tensor.h) has no version counter,
 * so writing one outside inference mode (in-place, out=, even under no_grad) is refused */
#define INFERENCE_WRITE "Inplace update to inference tensor outside InferenceMode is not allowed." \
    "You can make a clone to get a normal tensor before doing inplace update." \
    "See https://github.com/pytorch/rfcs/pull/17 for more details."
static bool inference_write(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++) {
        if (!s->args[i].is_write) continue;
        bool inf = args[i].tag == TN_V_TENSOR && tn_no_version(args[i].u.obj);
        for (Py_ssize_t k = 0; !inf && args[i].tag == TN_V_TENSORLIST && k < PyTuple_Size(args[i].u.obj); k++) {
            PyObject *e = PyTuple_GetItem(args[i].u.obj, k);
            inf = tn_py_is_tensor(e) && tn_no_version(e);
        }
        if (inf) return true;
    }
    return false;
}

static PyObject *profiled_call(int op, tn_value *args);
/* set by profiled_call just before it re-enters the door for the call it records */
static _Thread_local bool prof_recorded;

/* ---- the profiler's event (core/profiler.h, docs/profiler.md) --------------------------------
 * upstream's Dispatcher::call opens a RecordFunction named "aten::<name>" with the overload name;
 * its sequence number is the autograd counter's next value when the call dispatches at an
 * autograd key with grad mode on (a tensor argument that is not an inference tensor, the op has
 * an autograd kernel: CompositeImplicitAutograd or anything but derivatives.yaml's
 * DONT_REQUIRE_DERIVATIVE list), else -1; calls an op kernel makes run below autograd (-1).
 * profiler:: operators (the record_function scopes) are not observed. */
static bool autograd_keyed(int op, const tn_schema *s, const tn_value *args) {
    const tn_op_def *d = tn_op_at(op);
    if (strstr(d->name, "::") || tn_inference_mode() || !tn_grad_enabled()) return false;
    if (!tn_op_autograd_defs[op].composite && tn_op_autograd_defs[op].nondiff) return false;
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && !tn_tensor_of(args[i].u.obj)->storage->inference) return true;
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++) {
                PyObject *e = PyTuple_GetItem(args[i].u.obj, k);
                if (tn_py_is_tensor(e) && !tn_tensor_of(e)->storage->inference) return true;
            }
    }
    return false;
}

static tn_prof_input *record_inputs(const tn_schema *s, const tn_value *args) {
    tn_prof_input *in = calloc((size_t)(s->nargs ? s->nargs : 1), sizeof *in);
    if (!in) return NULL;
    for (int i = 0; i < s->nargs; i++) {
        const tn_value *v = &args[i];
        tn_prof_input *p = &in[i];
        switch (v->tag) {
        case TN_V_NONE:
            /* upstream's Python bindings build TensorOptions with pinned_memory(false): a call
             * from Python (not from inside another operator or the engine) lists it as False */
            if (!tn_prof_nested() && s->args[i].name && !strcmp(s->args[i].name, "pin_memory"))
                p->kind = TN_PI_BOOL, p->v.i = 0;
            else
                p->kind = TN_PI_NONE;
            break;
        case TN_V_TENSOR: tn_prof_input_tensor(p, tn_tensor_of(v->u.obj)); break;
        case TN_V_INT:
            if (s->args[i].is_list && s->args[i].list_size > 0) {   /* int[2] given as one int: the list */
                int n = s->args[i].list_size;
                p->kind = TN_PI_INTLIST, p->n = 0;
                if ((p->ints = malloc((size_t)n * sizeof *p->ints))) {
                    for (int k = 0; k < n; k++) p->ints[k] = v->u.i;
                    p->n = n;
                }
            } else {
                p->kind = TN_PI_INT, p->v.i = v->u.i;
            }
            break;
        case TN_V_BOOL: p->kind = TN_PI_BOOL, p->v.i = v->u.i; break;
        case TN_V_FLOAT: p->kind = TN_PI_FLOAT, p->v.f = v->u.f; break;
        case TN_V_DTYPE: p->kind = TN_PI_INT, p->v.i = v->u.dtype; break;   /* ScalarType code */
        case TN_V_LAYOUT: p->kind = TN_PI_INT, p->v.i = 0; break;             /* strided */
        case TN_V_MEMFORMAT: {
            /* c10::MemoryFormat codes: Contiguous 0, Preserve 1, ChannelsLast 2, ChannelsLast3d 3 */
            int c = tn_py_memformat_code(v->u.obj);
            p->kind = TN_PI_INT, p->v.i = c < 0 ? 0 : c;
            break;
        }
        case TN_V_INTLIST: case TN_V_BOOLLIST:
            p->kind = TN_PI_INTLIST, p->n = v->u.ints.n;
            if (v->u.ints.n && (p->ints = malloc((size_t)v->u.ints.n * sizeof *p->ints)))
                memcpy(p->ints, v->u.ints.v, (size_t)v->u.ints.n * sizeof *p->ints);
            else p->n = 0;
            break;
        case TN_V_FLOATLIST: case TN_V_SCALARLIST:
            p->kind = TN_PI_FLOATLIST, p->n = v->u.floats.n;
            if (v->u.floats.n && (p->floats = malloc((size_t)v->u.floats.n * sizeof *p->floats)))
                memcpy(p->floats, v->u.floats.v, (size_t)v->u.floats.n * sizeof *p->floats);
            else p->n = 0;
            break;
        case TN_V_TENSORLIST: {   /* per element: ndim, sizes, strides */
            PyObject *l = v->u.obj;
            Py_ssize_t n = PyTuple_Size(l), len = 0;
            p->kind = TN_PI_TENSORLIST;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(l, k);
                len += 1 + (tn_py_is_tensor(e) ? 2 * tn_tensor_of(e)->ndim : 0);
            }
            if (!n || !(p->ints = malloc((size_t)len * sizeof *p->ints))) break;
            p->n = (int32_t)n;
            for (Py_ssize_t k = 0, at = 0; k < n; k++) {
                PyObject *e = PyTuple_GetItem(l, k);
                const tn_tensor *t = tn_py_is_tensor(e) ? tn_tensor_of(e) : NULL;
                int nd = t ? t->ndim : 0;
                p->ints[at++] = nd;
                if (nd) {
                    memcpy(p->ints + at, t->sizes, (size_t)nd * sizeof *p->ints);
                    memcpy(p->ints + at + nd, t->strides, (size_t)nd * sizeof *p->ints);
                }
                at += 2 * nd;
            }
            break;
        }
        case TN_V_STR: p->kind = TN_PI_STRING; break;
        default: p->kind = TN_PI_OTHER; break;
        }
    }
    return in;
}

/* Queries upstream's Tensor answers inline in C++ (manual_cpp_binding in native_functions.yaml:
 * x.dim(), torch.is_complex(x), x.size(0), ...): they never reach its dispatcher, so they are no
 * events (the spelling torch.ops.aten.X, which does dispatch upstream, is not told apart). */
static bool inline_query(const tn_op_def *d) {
    static const char *const names[] = {
        "is_floating_point", "is_complex", "is_conj", "_is_zerotensor", "is_neg", "is_signed", "is_inference",
        "numel", "dim", "get_device", "storage_offset", "is_contiguous", "size", "stride", "sym_size", "sym_stride",
        "sym_numel", "sym_storage_offset", "sym_is_contiguous", "is_leaf", "output_nr", "_version", "retains_grad",
        "requires_grad_", "retain_grad", "data", "set_data"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(d->name, names[i])) return true;
    return false;
}

/* upstream's Tensor::contiguous dispatches only when a copy is needed */
static bool contiguous_already(int op, const tn_value *args) {
    if (op != TN_ROW_contiguous || args[0].tag != TN_V_TENSOR) return false;
    int fmt = args[1].tag == TN_V_MEMFORMAT ? tn_py_memformat_code(args[1].u.obj) : 0;
    return fmt >= 0 && fmt != 1 && tn_is_contiguous_as(tn_tensor_of(args[0].u.obj), fmt);
}

static PyObject *profiled_call(int op, tn_value *args) {
    const tn_op_def *d = tn_op_at(op);
    if (!strncmp(d->name, "profiler::", 10) || tn_prof_hidden() || inline_query(d) || contiguous_already(op, args)) {
        int hid = tn_prof_set_hidden(0);   /* what the hidden call runs is not hidden */
        prof_recorded = true;
        PyObject *r = tn_door_call(op, args);
        prof_recorded = false;   /* already false unless the session stopped meanwhile */
        tn_prof_set_hidden(hid);
        return r;
    }
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    char name[192];
    snprintf(name, sizeof name, "%s%s", strstr(d->name, "::") ? "" : "aten::", d->name);
    int64_t seq = !tn_prof_below() && autograd_keyed(op, s, args) ? (int64_t)tn_peek_sequence_nr() : -1;
    /* upstream's ADInplaceOrView kernel of detach / detach_ opens a scope of its own named
     * "detach" / "detach_" inside the operator's (not below another kernel) */
    bool inner = (op == TN_ROW_detach || op == TN_ROW_detach_) && !tn_prof_below();
    int64_t h = tn_prof_begin(name, d->overload, TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_OP, seq, 0);
    int64_t hi = inner ? tn_prof_begin(d->name, "", TN_PROF_SCOPE_FUNCTION, TN_PROF_KIND_OP, -1, 0) : -1;
    if (tn_prof_record_inputs()) {
        tn_prof_input *in = h >= 0 ? record_inputs(s, args) : NULL;
        if (in) tn_prof_set_inputs(h, in, s->nargs);
        in = hi >= 0 ? record_inputs(s, args) : NULL;
        if (in) tn_prof_set_inputs(hi, in, s->nargs);
    }
    /* the calls this one makes: a CompositeImplicitAutograd op run as its decomposition makes
     * them above autograd (their own events get sequence numbers), a kernel below */
    bool decomposes = tn_op_autograd_defs[op].composite;
    int was = tn_prof_set_below(!decomposes), was_nested = tn_prof_set_nested(1);
    PyObject *r;
    /* upstream's CompositeImplicitAutograd kernel always decomposes, also where we have a kernel
     * of our own for the composite (to, reshape, linear, layer_norm, ...): while profiling, such a
     * call runs as its decomposition, as a dispatch mode sees it, so its pieces are events too
     * (each piece passes the door's own checks: an inference-tensor write is refused there) */
    bool handled = false;
    bool plain = !any_meta(s, args) && !tn_inference_mode() && !tn_autocast_wants(op, args) && !tn_vmap_first(op, args) &&
                 !tn_vmap_wants(op, args) && !tn_forward_wants(op, args) && !tn_autograd_wants(op, args) &&
                 !(tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled());
    if (plain && decomposes && d->fn && tn_decomp_computes(op))
        r = tn_composite_under_mode(op, args, &handled);
    else if (plain)   /* upstream's factory kernels: empty, then the fill (ops/create.c) */
        r = tn_create_profiled(op, args, &handled);
    if (!handled) {
        prof_recorded = true;
        r = tn_door_call(op, args);
        prof_recorded = false;
    }
    tn_prof_set_below(was);
    tn_prof_set_nested(was_nested);
    tn_prof_end(hi);
    tn_prof_end(h);
    return r;
}

/* The door's stages, in upstream's dispatch-key order: autocast (autocast.c), forward AD and
 * autograd recording (record.c), then dispatch modes, meta, the CPU op function. While a
 * profiler session is on, the call is recorded around all of them (profiled_call, which comes
 * back here with prof_recorded set): the one branch on tn_prof_on when no session is on. */
PyObject *tn_door_call(int op, tn_value *args) {
    if (__builtin_expect(tn_graph_on, 0) && tn_graph_wants(op)) return tn_graph_call(op, args);
    if (__builtin_expect(tn_prof_on, 0)) {
        if (!prof_recorded) return profiled_call(op, args);
        prof_recorded = false;
    }
    if (!tn_inference_mode() && inference_write(op, args)) {
        /* upstream bumps the version after the kernel ran: the write happens, then the error */
        const tn_schema *s = tn_op_schema(op);
        int64_t ver[64];
        for (int i = 0; i < s->nargs && i < 64; i++)
            ver[i] = args[i].tag == TN_V_TENSOR ? tn_tensor_of(args[i].u.obj)->storage->version : 0;
        bool was = tn_grad_mode_set(false);
        PyObject *r = tn_door_below_autograd(op, args);
        tn_grad_mode_set(was);
        for (int i = 0; i < s->nargs && i < 64; i++)   /* no counter was bumped */
            if (s->args[i].is_write && args[i].tag == TN_V_TENSOR) tn_tensor_of(args[i].u.obj)->storage->version = ver[i];
        if (!r) return NULL;   /* the kernel's own error comes first */
        Py_DECREF(r);
        PyErr_SetString(PyExc_RuntimeError, INFERENCE_WRITE);
        return NULL;
    }
    if (tn_autocast_wants(op, args)) return tn_autocast_call(op, args);
    if (tn_vmap_first(op, args)) return tn_vmap_call(op, args);
    if (tn_forward_wants(op, args)) return tn_forward_call(op, args);
    if (tn_autograd_wants(op, args)) return tn_autograd_call(op, args);
    PyObject *r = tn_door_below_autograd(op, args);
    /* views made in no_grad mode (views.c); not below autograd (a dispatch mode's re-entry) */
    if (r && !tn_grad_enabled() && !tn_below_autograd()) tn_ng_view_mark(r, op, args);
    return r;
}

/* ---- upstream's Negative and Conjugate fallbacks as a dispatch mode sees them ----
 * Upstream's Negative and Conjugate keys sit between autograd and the Python key (Negative first):
 * an op without a fallthrough there gets each argument with the bit as at::clone(arg) (resolved;
 * the mode sees `clone`), and a written one is copied back after (`copy_`). Our kernels resolve
 * the bits themselves (math_bits_call), below the mode, so while a mode is active the clones are
 * made here, visibly. */
static bool row_in(const tn_op_def *d, const char *const *rows, size_t n) {
    size_t nl = strlen(d->name);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(rows[i], d->name, nl) && rows[i][nl] == '.' && !strcmp(rows[i] + nl + 1, d->overload)) return true;
    return false;
}
static bool bit_fallthrough(const tn_op_def *d, const tn_schema *s, uint8_t bit) {
    /* both keys: the view functions (they alias their input), tensor utilities and constructors */
    static const char *const both[] = {
        "set_.source_Storage_storage_offset", "set_.source_Tensor", "set_.", "copy_.", "clone.", "resolve_conj.",
        "resolve_neg.", "repeat_interleave.Tensor", "repeat_interleave.self_Tensor", "repeat_interleave.self_int",
        "_has_same_storage_numel.", "_new_zeros_with_same_feature_meta.", "linalg_solve_triangular.",
        "linalg_solve_triangular.out", "empty_like.", "empty.memory_format", "empty.out", "empty_strided.", "full_like.",
        "stride.int", "stride.Dimname", "size.int", "size.Dimname", "is_complex.", "is_floating_point.",
        "requires_grad_.", "_unsafe_view.", "resize_.", "as_strided.", "view."};
    static const char *const conj_only[] = {
        "_conj_physical.", "conj_physical.", "conj_physical_.", "dot.", "vdot.", "dot.out", "vdot.out", "mm.", "mm.out",
        "addmm.", "addmm_.", "addmm.out", "bmm.", "bmm.out", "baddbmm.", "baddbmm_.", "baddbmm.out", "linalg_svd.",
        "linalg_svd.U"};
    static const char *const neg_only[] = {"neg_."};
    if (bit_aware(d) || alias_op(s) || row_in(d, both, sizeof both / sizeof *both)) return true;
    return bit == TN_BIT_CONJ ? row_in(d, conj_only, sizeof conj_only / sizeof *conj_only)
                              : row_in(d, neg_only, sizeof neg_only / sizeof *neg_only);
}
static PyObject *bit_clone(PyObject *t) {   /* through the door, below autograd: the mode sees it */
    tn_below_autograd_step(1);
    PyObject *c = tn_at_clone(t, NULL);
    tn_below_autograd_step(-1);
    return c;
}
static PyObject *bit_fallback_under_mode(int op, const tn_schema *s, tn_value *args, uint8_t bit) {
    if (s->nargs > 64) return tn_not_implemented("the conjugate / negative fallback for an operator with this many arguments");
    tn_value local[64];
    PyObject *made[64], *orig = NULL, *copy = NULL, *r = NULL;
    int nmade = 0;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    if (resolve_bit_args(tn_op_at(op), s, local, bit, bit_clone, made, &nmade, &orig, &copy) < 0) goto done;
    r = tn_door_below_vmap(op, local);
    if (r && orig) {   /* the written argument: the result copied back into it */
        tn_below_autograd_step(1);
        PyObject *cp = tn_at_copy_(orig, tn_py_is_tensor(r) ? r : copy, false);
        tn_below_autograd_step(-1);
        if (!cp) Py_CLEAR(r);
        else { Py_DECREF(cp); r = swap_result(r, copy, orig); }
    }
done:
    for (int i = 0; i < nmade; i++) Py_DECREF(made[i]);
    return r;
}

/* Below autograd: torch.func's vmap stage (functorch.c), then dispatch modes, meta, kernels. */
PyObject *tn_door_below_autograd(int op, tn_value *args) {
    PyObject *r = tn_vmap_wants(op, args) ? tn_vmap_call(op, args) : tn_door_below_vmap(op, args);
    /* an in-place view op (squeeze_, t_, ...) counts as a write of self, as upstream's
     * ADInplaceOrView kernel bumps it (record.c sees the bump and does not repeat it); detach_,
     * tagged so too, has a manual kernel that does not (measured) */
    if (r && (tn_op_tags(op) & TN_TAG_INPLACE_VIEW) && op != TN_ROW_detach_ && args[0].tag == TN_V_TENSOR &&
        !tn_no_version(args[0].u.obj))
        tn_tensor_of(args[0].u.obj)->storage->version++;
    return r;
}

PyObject *tn_door_below_vmap(int op, tn_value *args) {
    if (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) {
        bool handled;
        PyObject *r = tn_composite_under_mode(op, args, &handled);
        if (handled) return r;
        /* the Negative then the Conjugate fallback, below the composites' decomposition */
        const tn_schema *cs = tn_op_schema(op);
        if (!cs) return NULL;
        for (int k = 0; k < 2; k++) {
            uint8_t bit = k == 0 ? TN_BIT_NEG : TN_BIT_CONJ;
            if (bits_wanted(cs, args, bit) && !bit_fallthrough(tn_op_at(op), cs, bit)) return bit_fallback_under_mode(op, cs, args, bit);
        }
        return to_mode(op, args);
    }
    /* then tensor subclasses' __torch_dispatch__ (subclass.c), after the modes as upstream's
     * Python key; a CompositeImplicitAutograd op reaches them decomposed, except with a nested
     * (jagged) tensor among the arguments */
    if (!tn_dispatch_modes_disabled() && tn_subclass_wants(op, args)) {
        bool handled = false;
        PyObject *r = tn_subclass_nested(op, args) ? NULL : tn_composite_under_mode(op, args, &handled);
        return handled ? r : tn_subclass_call(op, args);
    }
    /* strided nested, sparse COO and quantized tensors (ops/nested.c, ops/sparse.c, ops/qtensor.c):
     * the one counter test while none exists */
    if (__builtin_expect((tn_nested_live | tn_sparse_live | tn_quant_live) > 0, 0)) {
        if (tn_nested_live > 0 && tn_nested_among(op, args)) return tn_nested_call(op, args);
        if (tn_sparse_live > 0 && tn_sparse_among(op, args)) return tn_sparse_call(op, args);
        if (tn_quant_live > 0 && tn_quant_among(op, args)) return tn_quant_call(op, args);
    }
    const tn_op_def *d = tn_op_at(op);
    if (!d->fn) {
        /* Namespaced rows (extra_schemas.txt) implemented in C: the profiler scopes. */
        tn_op_fn extra = strstr(d->name, "::") ? tn_extra_op_fn(d->name, d->overload) : NULL;
        if (extra) return extra(args);
        /* a composite we have no kernel for runs as its decomposition (cross_entropy, ...) */
        bool handled;
        PyObject *r = tn_composite_under_mode(op, args, &handled);
        return handled ? r : tn_refuse_op(op);
    }
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    if (bits_wanted(s, args, TN_BITS_ALL) && !bit_aware(d))
        return alias_op(s) ? alias_bits_call(d, s, args) : math_bits_call(d, s, args);
    return tn_door_below_autograd_op(d, s, args);
}

/* Rows upstream registers no Meta kernel for: a meta argument anywhere reaches its dispatcher's
 * Meta fallback, a NotImplementedError before the kernel's checks and any out= device comparison
 * (measured per row, every argument position; docs/breadth_more2.md "Fuzz corpus exception types,
 * group ne (session 38)"). The in-place ones torchgen gives an "inplace_meta" stub instead
 * (in-place, one result, no composite kernel) return a meta self untouched, unchecked, and refuse
 * a CPU self written with a meta argument; put (a composite over put_) refuses that too. */
static const char *const no_meta_rows[] = {
    "_ctc_loss.Tensor", "_ctc_loss_backward", "_ctc_loss_backward.Tensor", "multi_margin_loss_backward",
    "multi_margin_loss_backward.grad_input", "multilabel_margin_loss_backward",
    "multilabel_margin_loss_backward.grad_input", "_fake_quantize_learnable_per_channel_affine_backward",
    "_fake_quantize_learnable_per_tensor_affine_backward", "_nested_view_from_buffer", "_nested_tensor_from_mask",
    "_nested_tensor_from_mask_left_aligned", "histogram.bin_ct", "histogram.bin_ct_out", "histogram.bins_tensor",
    "histogram.bins_tensor_out", "quantize_per_tensor_dynamic", "_padded_dense_to_jagged_forward",
    "_nested_compute_contiguous_strides_offsets", "adaptive_avg_pool3d.out", "_fused_adagrad_",
    "_fused_adagrad_.tensor_lr", "_fused_adam_.tensor_lr", "_fused_adamw_.tensor_lr", "_fused_sgd_",
    "_fused_sgd_.tensor_lr", "equal", "masked_select", "masked_select.out", "_unique", "_unique2",
    "unique_consecutive", "unique_dim", "unique_dim_consecutive", "_masked_softmax", "_masked_softmax_backward",
    "_logcumsumexp", "_logcumsumexp.out", "dequantize.self",
};
static const char *const inplace_meta_rows[] = {"put_", "embedding_renorm_", "_amp_update_scale_", "put"};

static bool row_listed(const tn_op_def *d, const char *const *names, size_t n) {
    size_t len = strlen(d->name);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(names[i], d->name, len) &&
            (*d->overload ? names[i][len] == '.' && !strcmp(names[i] + len + 1, d->overload) : !names[i][len]))
            return true;
    return false;
}

/* NULL: no such row (go on); else the refusal (NULL result with the error set) or the result, in *out */
static bool meta_fallback(const tn_op_def *d, const tn_schema *s, tn_value *args, PyObject **out) {
    if (row_listed(d, no_meta_rows, sizeof no_meta_rows / sizeof *no_meta_rows)) {
        char name[160];
        snprintf(name, sizeof name, "%s%s%s", d->name, *d->overload ? "." : "", d->overload);
        *out = tn_meta_no_kernel(name);
        return true;
    }
    if (row_listed(d, inplace_meta_rows, sizeof inplace_meta_rows / sizeof *inplace_meta_rows) && s->nargs > 0 &&
        args[0].tag == TN_V_TENSOR) {
        bool put = !strcmp(d->name, "put");
        if (!is_meta(args[0].u.obj)) {
            PyErr_SetString(PyExc_NotImplementedError, "Cannot inplace into non-meta tensor with meta tensor argument");
            *out = NULL;
            return true;
        }
        if (!put) {
            *out = Py_NewRef(args[0].u.obj);
            return true;
        }
    }
    return false;
}

PyObject *tn_door_below_autograd_op(const tn_op_def *d, const tn_schema *s, tn_value *args) {
    if (any_meta(s, args)) {
        int row = (int)(d - tn_op_at(0));
        PyObject *fallback;
        if (meta_fallback(d, s, args, &fallback)) return fallback;
        int when = check_out_devices(row, s, args);
        if (when == OUT_NOW) return NULL;
        if (when == OUT_AFTER) return out_device_after(d, s, args, row);
        if (check_same_device(row, s, args) < 0) return device_error_after(d, s, args);
        PyObject *r = meta_call(d, s, args);
        if (r && composite_same_device(row, s, args) < 0) Py_CLEAR(r);
        return r;
    }
    if (tn_door_no_data((int)(d - tn_op_at(0)), args)) return NULL;
    PyObject *r = d->fn(args);
    if (r) fresh_versions(s, args, r);
    return r;
}
