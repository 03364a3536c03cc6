/* door.c — tn_door_call, the one entry every operator passes on its way to its kernel.
 *
 * Here, and nowhere else, the active TorchDispatchMode (torch.utils._python_dispatch) gets the
 * call first: the innermost mode is popped while its __torch_dispatch__(func, types, args,
 * kwargs) runs, as upstream does, so ops it issues reach the next mode or the kernels. func is
 * the OpOverload (torch.ops.aten.<name>.<overload>); arguments are passed the way upstream
 * passes them: positional arguments up to the last one given, keyword-only ones given by the
 * caller as kwargs. Otherwise the door calls the overload's op function, or refuses by name.
 * Autograd recording attaches here as it lands. */
#include "dispatch/door.h"

#include "dispatch/modes.h"
#include "python/common.h"
#include "python/tensor.h"

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
        for (int i = 0; l && i < v->u.floats.n; i++) PyList_SetItem(l, i, PyFloat_FromDouble(v->u.floats.v[i]));
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

/* Hand the call to the innermost dispatch mode. */
static PyObject *to_mode(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    PyObject *func = s ? op_overload(op) : NULL;
    if (!func) return NULL;
    int last_pos = -1;
    for (int i = 0; i < s->nargs; i++)
        if (!s->args[i].kwarg_only && !args[i].defaulted) last_pos = i;
    PyObject *pargs = PyList_New(0), *kwargs = PyDict_New(), *types = PyList_New(0);
    for (int i = 0; pargs && kwargs && types && i < s->nargs; i++) {
        if (s->args[i].kwarg_only ? args[i].defaulted : i > last_pos) continue;
        PyObject *o = tn_value_to_python(&args[i]);
        if (!o) { Py_CLEAR(pargs); break; }
        int r = s->args[i].kwarg_only ? PyDict_SetItemString(kwargs, s->args[i].name, o) : PyList_Append(pargs, o);
        if (r == 0 && args[i].tag == TN_V_TENSOR && PySequence_Contains(types, (PyObject *)Py_TYPE(o)) == 0)
            r = PyList_Append(types, (PyObject *)Py_TYPE(o));
        Py_DECREF(o);
        if (r < 0) { Py_CLEAR(pargs); break; }
    }
    PyObject *targs = pargs ? PyList_AsTuple(pargs) : NULL, *ttypes = types ? PyList_AsTuple(types) : NULL;
    PyObject *res = NULL;
    if (targs && ttypes && kwargs) {
        PyObject *mode = tn_dispatch_mode_pop_top();
        if (mode) {
            res = PyObject_CallMethod(mode, "__torch_dispatch__", "OOOO", func, ttypes, targs, kwargs);
            if (tn_dispatch_mode_push(mode) < 0) Py_CLEAR(res);
            Py_DECREF(mode);
        }
    }
    Py_XDECREF(pargs); Py_XDECREF(kwargs); Py_XDECREF(types); Py_XDECREF(targs); Py_XDECREF(ttypes);
    return res;
}

PyObject *tn_door_call(int op, tn_value *args) {
    if (tn_dispatch_mode_len() > 0) return to_mode(op, args);
    const tn_op_def *d = tn_op_at(op);
    if (!d->fn) return tn_refuse_op(op);
    return d->fn(args);
}
