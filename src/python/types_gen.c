/* types_gen.c — torch._C.Generator: the Python face of the CPU random-number generator.
 *
 * The generator itself (mt19937, seeding, state layout) is core/random.h, bit-identical to
 * upstream; this file only wraps it: Generator(device="cpu"), manual_seed, initial_seed, seed,
 * get_state / set_state (a 5056-byte uint8 tensor, as upstream), device, and the process-wide
 * default_generator, which upstream seeds non-deterministically at start-up. */
#include "python/common.h"
#include "python/tensor.h"

#include "core/random.h"

#include <structmember.h>

#include <string.h>

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    tn_generator g;
} tn_generator_obj;
#define GEN(o) (&((tn_generator_obj *)(o))->g)

tn_generator *tn_py_generator_of(PyObject *o) {
    if (o == NULL || o == Py_None) o = tn_py.default_generator;
    if (!PyObject_TypeCheck(o, tn_py.generator_type)) {
        PyErr_Format(PyExc_TypeError, "expected torch.Generator, but got %s", tn_py_type_name(o));
        return NULL;
    }
    return GEN(o);
}

static PyObject *gen_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kwl[] = {"device", NULL};
    PyObject *dev = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Generator", kwl, &dev)) return NULL;
    if (dev && dev != Py_None) {
        tn_device_type t;
        if (tn_py_parse_device(dev, &t, NULL) < 0) return NULL;
        if (t != TN_DEVICE_CPU) {
            PyErr_SetString(PyExc_RuntimeError, "torchnative: only CPU generators exist");
            return NULL;
        }
    }
    PyObject *o = PyType_GenericAlloc(tp, 0);
    if (!o) return NULL;
    tn_generator_init(GEN(o));
    return o;
}

static void gen_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((tn_generator_obj *)self)->dict);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static int gen_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((tn_generator_obj *)self)->dict);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static PyObject *gen_manual_seed(PyObject *self, PyObject *seed) {
    if (!PyLong_Check(seed)) {
        PyObject *i = PyNumber_Index(seed);
        if (!i) return NULL;
        Py_DECREF(i);
    }
    int ovf;
    long long v = PyLong_AsLongLongAndOverflow(seed, &ovf);
    uint64_t s;
    if (ovf > 0) {
        s = PyLong_AsUnsignedLongLong(seed);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long long");
            return NULL;
        }
    } else if (ovf < 0) {
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long long");
        return NULL;
    } else {
        if (v == -1 && PyErr_Occurred()) return NULL;
        s = (uint64_t)v;
    }
    tn_generator_seed(GEN(self), s);
    return Py_NewRef(self);
}
static PyObject *gen_initial_seed(PyObject *self, PyObject *u) {
    return PyLong_FromUnsignedLongLong(tn_generator_initial_seed(GEN(self)));
}
static PyObject *gen_seed(PyObject *self, PyObject *u) {
    return PyLong_FromUnsignedLongLong(tn_generator_seed_nondeterministic(GEN(self)));
}
static PyObject *gen_get_state(PyObject *self, PyObject *u) {
    int64_t n = TN_GENERATOR_STATE_SIZE;
    PyObject *t = tn_tensor_new_empty(1, &n, TN_DTYPE_U8, TN_DEVICE_CPU);
    if (!t) return NULL;
    tn_generator_get_state(GEN(self), (uint8_t *)tn_data(tn_tensor_of(t)), (size_t)n);
    return t;
}
static PyObject *gen_set_state(PyObject *self, PyObject *state) {
    if (!tn_py_is_tensor(state)) {
        PyErr_Format(PyExc_TypeError, "expected a torch.ByteTensor, but got %s", tn_py_type_name(state));
        return NULL;
    }
    tn_tensor *t = tn_tensor_of(state);
    if (t->dtype != TN_DTYPE_U8 || !tn_is_contiguous(t)) {
        PyErr_SetString(PyExc_TypeError, "expected a contiguous torch.ByteTensor as the RNG state");
        return NULL;
    }
    int64_t n = tn_numel(t);
    if (tn_generator_set_state(GEN(self), (const uint8_t *)tn_data(t), (size_t)n) < 0) {
        if (n != TN_GENERATOR_STATE_SIZE)
            PyErr_Format(PyExc_RuntimeError,
                         "Expected a CPUGeneratorImplState of size %d but found the input RNG state size to be %lld",
                         TN_GENERATOR_STATE_SIZE, (long long)n);
        else
            PyErr_SetString(PyExc_RuntimeError, "Invalid mt19937 state");
        return NULL;
    }
    return Py_NewRef(self);
}
static PyObject *gen_refuse(PyObject *self, PyObject *args) {
    return tn_not_implemented("torch._C.Generator offset/graph-safe state");
}
static PyObject *gen_device(PyObject *self, void *c) { return Py_NewRef(tn_py.device_cpu); }

static PyMethodDef gen_methods[] = {
    {"manual_seed", gen_manual_seed, METH_O, NULL},
    {"initial_seed", gen_initial_seed, METH_NOARGS, NULL},
    {"seed", gen_seed, METH_NOARGS, NULL},
    {"get_state", gen_get_state, METH_NOARGS, NULL},
    {"set_state", gen_set_state, METH_O, NULL},
    {"get_offset", gen_refuse, METH_VARARGS, NULL},
    {"set_offset", gen_refuse, METH_VARARGS, NULL},
    {"clone_state", gen_refuse, METH_VARARGS, NULL},
    {"graphsafe_get_state", gen_refuse, METH_VARARGS, NULL},
    {"graphsafe_set_state", gen_refuse, METH_VARARGS, NULL},
    {NULL},
};
static PyGetSetDef gen_getset[] = {
    {"device", gen_device, NULL, NULL, NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL},
};
static PyMemberDef gen_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_generator_obj, dict), READONLY, NULL},
    {NULL},
};
static PyType_Slot gen_slots[] = {
    {Py_tp_new, gen_new}, {Py_tp_dealloc, gen_dealloc}, {Py_tp_traverse, gen_traverse},
    {Py_tp_methods, gen_methods}, {Py_tp_getset, gen_getset}, {Py_tp_members, gen_members}, {0, NULL},
};
static PyType_Spec gen_spec = {"torch._C.Generator", sizeof(tn_generator_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, gen_slots};

int tn_types_gen_init(PyObject *m) {
    PyObject *t = PyType_FromSpec(&gen_spec);
    if (!t) return -1;
    tn_py.generator_type = (PyTypeObject *)t;
    if (PyModule_AddObjectRef(m, "Generator", t) < 0) return -1;
    PyObject *g = PyObject_CallNoArgs(t);
    if (!g) return -1;
    tn_generator_seed_nondeterministic(GEN(g));
    tn_py.default_generator = g;
    return PyModule_AddObjectRef(m, "default_generator", g);
}
