/* optim_support.c — torch._C names torch.optim and torch.nn.utils reach outside the operator
 * table: `_group_tensors_by_device_and_dtype` (torch.utils._foreach_utils: the foreach and fused
 * optimizer paths, clip_grad_norm_ / clip_grad_value_).
 *
 * _group_tensors_by_device_and_dtype(nested: list[list[Tensor | None]], with_indices: bool)
 *   -> {(device, dtype): ([list per input list], [indices])}
 * keyed by the first list's tensor at each index (upstream's ForeachUtils.h
 * _group_tensors_by_first_tensors_device_and_dtype); an empty input list stays empty, indices are
 * collected only when with_indices. Upstream's map is a hash map: its iteration order over
 * several (device, dtype) groups is the hash's; ours is first appearance. */
#include "python/common.h"
#include "python/tensor.h"

static PyObject *check_fail(const char *what) {
    PyErr_Format(PyExc_RuntimeError,
                 "Expected %s to be true, but got false.  (Could this error message be improved?  If so, please "
                 "report an enhancement request to PyTorch.)", what);
    return NULL;
}

static PyObject *group_tensors(PyObject *m, PyObject *args) {
    PyObject *nested_in;
    int with_indices;
    if (!PyArg_ParseTuple(args, "Op:_group_tensors_by_device_and_dtype", &nested_in, &with_indices)) return NULL;
    PyObject *nested = PySequence_List(nested_in);
    if (!nested) return NULL;
    PyObject *result = NULL, *lists = NULL;
    Py_ssize_t nl = PyList_Size(nested);
    if (nl == 0) { check_fail("!nested_tensorlist.empty()"); goto done; }
    lists = PyList_New(nl);
    if (!lists) goto done;
    for (Py_ssize_t l = 0; l < nl; l++) {
        PyObject *f = PySequence_List(PyList_GetItem(nested, l));
        if (!f) goto done;
        PyList_SetItem(lists, l, f);
    }
    Py_ssize_t n = PyList_Size(PyList_GetItem(lists, 0));
    for (Py_ssize_t l = 0; l < nl; l++) {
        Py_ssize_t k = PyList_Size(PyList_GetItem(lists, l));
        if (k != n && k != 0) {
            check_fail("std::all_of( nested_tensorlist.cbegin(), nested_tensorlist.cend(), [&](const auto& "
                       "tensorlist) -> bool { return tensorlist.size() == num_tensors || tensorlist.size() == 0; })");
            goto done;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
            PyObject *t = PyList_GetItem(PyList_GetItem(lists, l), i);
            if (t != Py_None && !tn_py_is_tensor(t)) {
                PyErr_Format(PyExc_TypeError, "_group_tensors_by_device_and_dtype(): expected Tensor or None, got %s",
                             tn_py_type_name(t));
                goto done;
            }
        }
    }
    result = PyDict_New();
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *first = PyList_GetItem(PyList_GetItem(lists, 0), i);
        if (first == Py_None) {
            PyErr_Format(PyExc_RuntimeError,
                         "Tensors of the first list of nested Tensor lists are supposed to be defined but the "
                         "%zd-th Tensor is not.", i);
            Py_CLEAR(result);
            goto done;
        }
        PyObject *dev = PyObject_GetAttrString(first, "device");
        PyObject *dt = dev ? tn_py_from_dtype(tn_tensor_of(first)->dtype) : NULL;
        PyObject *key = dt ? PyTuple_Pack(2, dev, dt) : NULL;
        Py_XDECREF(dev);
        Py_XDECREF(dt);
        if (!key) { Py_CLEAR(result); goto done; }
        PyObject *entry = PyDict_GetItemWithError(result, key); /* borrowed */
        if (!entry && !PyErr_Occurred()) {
            PyObject *per = PyList_New(nl), *idx = PyList_New(0);
            if (per)
                for (Py_ssize_t l = 0; l < nl; l++) {
                    PyObject *e = PyList_New(0);
                    if (!e) { Py_CLEAR(per); break; }
                    PyList_SetItem(per, l, e);
                }
            entry = per && idx ? PyTuple_Pack(2, per, idx) : NULL;
            Py_XDECREF(per);
            Py_XDECREF(idx);
            if (entry && PyDict_SetItem(result, key, entry) < 0) Py_CLEAR(entry);
            Py_XDECREF(entry); /* the dict holds it */
        }
        Py_DECREF(key);
        if (!entry) { Py_CLEAR(result); goto done; }
        PyObject *per = PyTuple_GetItem(entry, 0);
        for (Py_ssize_t l = 0; l < nl; l++) {
            PyObject *src = PyList_GetItem(lists, l);
            if (PyList_Size(src) == 0) continue;
            if (PyList_Append(PyList_GetItem(per, l), PyList_GetItem(src, i)) < 0) {
                Py_CLEAR(result);
                goto done;
            }
        }
        if (with_indices) {
            PyObject *ix = PyLong_FromSsize_t(i);
            int r = ix ? PyList_Append(PyTuple_GetItem(entry, 1), ix) : -1;
            Py_XDECREF(ix);
            if (r < 0) { Py_CLEAR(result); goto done; }
        }
    }
done:
    Py_XDECREF(lists);
    Py_DECREF(nested);
    return result;
}

static PyMethodDef methods[] = {
    {"_group_tensors_by_device_and_dtype", group_tensors, METH_VARARGS, NULL},
    {NULL},
};

int tn_optim_support_init(PyObject *m) { return PyModule_AddFunctions(m, methods); }
