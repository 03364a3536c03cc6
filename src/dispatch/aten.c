/* aten.c — the builders behind the typed C op API (dispatch/aten.h; the functions themselves are
 * generated, tools/gen_aten_api.py). A call from C binds its arguments as torch.ops.aten binds
 * Python ones (python/args.c: numbers fill Tensor parameters as wrapped numbers, 0-dim tensors
 * fill Scalars, omitted arguments take the schema's default), then passes the door. */
#include "dispatch/aten.h"

#include <string.h>

#include "core/object.h"

int tn_call_begin(tn_call *c, int op) {
    c->op = op;
    c->failed = false;
    c->a.nowned = c->a.nints = c->a.nheap = 0;
    c->a.out = NULL;
    c->s = tn_op_schema(op);
    if (!c->s) return -1;
    if (c->s->nargs > TN_MAX_ARGS) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: aten::%s.%s has more arguments than a call holds",
                     c->s->name, c->s->overload);
        return -1;
    }
    return 0;
}

/* the slot of argument i, or NULL once the call has failed */
static tn_value *slot(tn_call *c, int i) {
    if (c->failed) return NULL;
    tn_value *v = &c->a.v[i];
    memset(v, 0, sizeof *v);
    return v;
}

static void fail_type(tn_call *c, int i) {
    PyErr_Format(PyExc_TypeError, "torchnative: internal call to aten::%s.%s: argument '%s' has the wrong type",
                 c->s->name, c->s->overload, c->s->args[i].name);
    c->failed = true;
}

/* a parsed value into slot v, any list in it copied into storage the call owns (an op may
 * normalise its dims in place) */
static void put_value(tn_call *c, tn_value *v, const tn_value *src) {
    *v = *src;
    v->defaulted = false;
    bool ints = v->tag == TN_V_INTLIST || v->tag == TN_V_BOOLLIST, floats = v->tag == TN_V_FLOATLIST || v->tag == TN_V_SCALARLIST;
    if (!ints && !floats) return;
    int k = ints ? v->u.ints.n : (int)tn_scalarlist_slots(v);
    int64_t *st = tn_args_int_store(&c->a, k);
    if (!st) { PyErr_NoMemory(); c->failed = true; return; }
    if (k) memcpy(st, ints ? (const void *)v->u.ints.v : (const void *)v->u.floats.v, (size_t)k * 8);
    if (ints) v->u.ints.v = st;
    else v->u.floats.v = (double *)st;
}

static void set_default(tn_call *c, int i, tn_value *v) {
    const tn_arg *p = &c->s->args[i];
    if (!p->default_text && !p->optional) {
        PyErr_Format(PyExc_TypeError, "torchnative: internal call to aten::%s.%s: argument '%s' is required",
                     c->s->name, c->s->overload, p->name);
        c->failed = true;
    } else if (tn_args_default(p, &c->a, v) < 0) {
        c->failed = true;
    }
}

void tn_call_obj(tn_call *c, int i, PyObject *o) {
    tn_value *v = slot(c, i);
    if (!v) return;
    if (!o) { set_default(c, i, v); return; }
    const tn_arg *p = &c->s->args[i];
    if (p->type == TN_TYPE_TENSOR && !p->is_list && tn_py_is_tensor(o)) {   /* the common case */
        v->tag = TN_V_TENSOR;
        v->u.obj = o;
        return;
    }
    if (o == Py_None && p->type == TN_TYPE_TENSOR && !p->is_list && !p->optional) {
        /* an undefined tensor (a backward helper's no-gradient) given to an op: upstream's error */
        PyErr_Format(PyExc_RuntimeError, "Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #%d '%s'",
                     i, p->name);
        c->failed = true;
        return;
    }
    int r = tn_args_convert(p, o, &c->a, v);
    if (r < 0) c->failed = true;
    else if (r == 0) fail_type(c, i);
}

void tn_call_tensors(tn_call *c, int i, tn_tensors t) {
    tn_value *v = slot(c, i);
    if (!v) return;
    if (t.py) { tn_call_obj(c, i, t.py); return; }
    PyObject *tup = PyTuple_New(t.n);
    if (!tup) { c->failed = true; return; }
    for (int k = 0; k < t.n; k++) {
        PyObject *e = t.v[k] ? t.v[k] : Py_None;
        Py_INCREF(e);
        PyTuple_SetItem(tup, k, e);   /* steals the reference */
    }
    if (tn_args_own(&c->a, tup) < 0) { c->failed = true; return; }
    tn_call_obj(c, i, tup);
}

void tn_call_int(tn_call *c, int i, int64_t x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    v->tag = TN_V_INT;
    v->u.i = x;
}

void tn_call_optint(tn_call *c, int i, const int64_t *x) {
    if (!x) { tn_value *v = slot(c, i); if (v) v->tag = TN_V_NONE; return; }
    tn_call_int(c, i, *x);
}

void tn_call_float(tn_call *c, int i, double x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    v->tag = TN_V_FLOAT;
    v->u.f = x;
}

void tn_call_optfloat(tn_call *c, int i, const double *x) {
    if (!x) { tn_value *v = slot(c, i); if (v) v->tag = TN_V_NONE; return; }
    tn_call_float(c, i, *x);
}

void tn_call_bool(tn_call *c, int i, bool x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    v->tag = TN_V_BOOL;
    v->u.i = x;
}

void tn_call_optbool(tn_call *c, int i, const bool *x) {
    if (!x) { tn_value *v = slot(c, i); if (v) v->tag = TN_V_NONE; return; }
    tn_call_bool(c, i, *x);
}

void tn_call_scalar(tn_call *c, int i, tn_scalar_arg x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    switch (x.kind) {
    case TN_S_DEFAULT: set_default(c, i, v); return;
    case TN_S_NONE: v->tag = TN_V_NONE; return;
    case TN_S_DOUBLE: v->tag = TN_V_FLOAT; v->u.f = x.u.d; return;
    case TN_S_INT: v->tag = TN_V_INT; v->u.i = x.u.i; return;
    case TN_S_BOOL: v->tag = TN_V_BOOL; v->u.i = x.u.i; return;
    case TN_S_OBJ: tn_call_obj(c, i, x.u.o); return;
    case TN_S_VALUE:
        if (!tn_value_is_number(x.u.v) && x.u.v->tag != TN_V_NONE) fail_type(c, i);
        else put_value(c, v, x.u.v);
        return;
    }
}

void tn_call_ints(tn_call *c, int i, tn_ints x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    if (x.py) { tn_call_obj(c, i, x.py); return; }
    if (x.val) {
        tn_value_tag t = x.val->tag;
        if (t == TN_V_INTLIST || t == TN_V_BOOLLIST || t == TN_V_INT || t == TN_V_NONE) put_value(c, v, x.val);
        else fail_type(c, i);
        return;
    }
    if (x.n < 0) { set_default(c, i, v); return; }
    tn_value list = {.tag = c->s->args[i].type == TN_TYPE_BOOL ? TN_V_BOOLLIST : TN_V_INTLIST};
    list.u.ints.v = (int64_t *)x.v;   /* read only: put_value copies it */
    list.u.ints.n = x.n;
    put_value(c, v, &list);
}

void tn_call_str(tn_call *c, int i, const char *x) {
    tn_value *v = slot(c, i);
    if (!v) return;
    if (!x) { set_default(c, i, v); return; }
    PyObject *u = PyUnicode_FromString(x);
    if (!u || tn_args_own(&c->a, u) < 0) { c->failed = true; return; }
    v->tag = TN_V_STR;
    v->u.obj = u;
}

PyObject *tn_call_row(int op, const tn_value *args, int n) {
    tn_call c;
    if (tn_call_begin(&c, op) < 0) return NULL;
    if (n > c.s->nargs) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: internal call to aten::%s.%s with %d arguments, it takes %d",
                     c.s->name, c.s->overload, n, c.s->nargs);
        return NULL;
    }
    for (int i = 0; i < c.s->nargs && !c.failed; i++) {
        tn_value *v = slot(&c, i);
        if (i < n) put_value(&c, v, &args[i]);
        else set_default(&c, i, v);
    }
    return tn_call_end(&c);
}

PyObject *tn_call_end(tn_call *c) {
    /* an argument expression that failed (a NULL with an exception set) fails the call, as a NULL
     * given to Py_BuildValue did: NULL alone means "the default" */
    if (PyErr_Occurred()) c->failed = true;
    PyObject *res = c->failed ? NULL : tn_door_call(c->op, c->a.v);
    tn_args_release(&c->a);
    return res;
}
