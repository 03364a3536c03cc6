/* legacy_types.c — torch.FloatTensor and its siblings: the legacy per-dtype tensor classes
 * (metaclass torch.tensortype) that upstream's C++ writes into torch at _initExtension.
 * isinstance(t, torch.FloatTensor) checks t's dtype; torch.FloatTensor(2, 3) makes an empty
 * tensor of that dtype and torch.FloatTensor([1, 2]) / torch.FloatTensor(ndarray) copies data,
 * through the legacy constructor Tensor.new uses (python/tensor.c). */
#include "python/common.h"
#include "python/tensor.h"

static const struct { const char *name; tn_dtype d; } legacy[] = {
    {"BFloat16Tensor", TN_DTYPE_BF16}, {"BoolTensor", TN_DTYPE_BOOL}, {"ByteTensor", TN_DTYPE_U8},
    {"CharTensor", TN_DTYPE_I8}, {"DoubleTensor", TN_DTYPE_F64}, {"FloatTensor", TN_DTYPE_F32},
    {"HalfTensor", TN_DTYPE_F16}, {"IntTensor", TN_DTYPE_I32}, {"LongTensor", TN_DTYPE_I64},
    {"ShortTensor", TN_DTYPE_I16},
};

static PyObject *instancecheck(PyObject *cls, PyObject *inst) {
    if (!tn_py_is_tensor(inst)) Py_RETURN_FALSE;
    PyObject *dt = PyObject_GetAttrString(cls, "dtype");
    if (!dt) return NULL;
    tn_dtype d;
    int ok = tn_py_to_dtype(dt, &d);
    Py_DECREF(dt);
    if (ok < 0) return NULL;
    return PyBool_FromLong(tn_tensor_of(inst)->dtype == d);
}

static PyMethodDef meta_methods[] = {{"__instancecheck__", instancecheck, METH_O, NULL}, {NULL}};
static PyType_Slot meta_slots[] = {{Py_tp_methods, meta_methods}, {0, NULL}};
static PyType_Spec meta_spec = {"torch.tensortype", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, meta_slots};

/* cls(...): upstream's legacy constructor on the class's dtype, on the CPU (the one Tensor.new
 * and torch.Tensor(...) use: sizes, a storage, a tensor of that dtype, or data such as a list
 * or a numpy array) */
static PyObject *legacy_new(PyObject *unused, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n < 1) return PyErr_Format(PyExc_TypeError, "legacy tensor constructor needs its class");
    PyObject *dt = PyObject_GetAttrString(PyTuple_GetItem(args, 0), "dtype");
    if (!dt) return NULL;
    tn_dtype d;
    int ok = tn_py_to_dtype(dt, &d);
    Py_DECREF(dt);
    PyObject *rest = ok < 0 ? NULL : PyTuple_GetSlice(args, 1, n);
    PyObject *r = rest ? tn_legacy_tensor_new(d, TN_DEVICE_CPU, rest, kw) : NULL;
    Py_XDECREF(rest);
    return r;
}
static PyMethodDef new_def = {"__new__", (PyCFunction)(void (*)(void))legacy_new, METH_VARARGS | METH_KEYWORDS, NULL};

int tn_legacy_types_install(PyObject *torch) {
    PyObject *meta = PyType_FromSpecWithBases(&meta_spec, (PyObject *)&PyType_Type);
    PyObject *newf = meta ? PyCFunction_NewEx(&new_def, NULL, NULL) : NULL;
    if (!newf) { Py_XDECREF(meta); return -1; }
    int rc = 0;   /* the metaclass is not a torch attribute upstream; the classes keep it alive */
    for (size_t i = 0; rc == 0 && i < sizeof legacy / sizeof *legacy; i++) {
        PyObject *ns = Py_BuildValue("{sOsOsOsOss}", "dtype", tn_py.dtypes[legacy[i].d], "is_cuda", Py_False,
                                     "is_sparse", Py_False, "__new__", newf, "__module__", "torch");
        PyObject *cls = ns ? PyObject_CallFunction(meta, "s(O)O", legacy[i].name, (PyObject *)&PyBaseObject_Type, ns) : NULL;
        Py_XDECREF(ns);
        rc = cls ? PyObject_SetAttrString(torch, legacy[i].name, cls) : -1;
        Py_XDECREF(cls);
    }
    Py_DECREF(newf);
    Py_DECREF(meta);
    return rc;
}
