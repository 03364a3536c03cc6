/* stubs_tmp.c — weak placeholders while the real subsystems land (removed once all exist). */
#include "python/common.h"
#include <stdio.h>
#define WEAK __attribute__((weak))
WEAK int tn_tensor_type_init(PyObject *m) { return 0; }
WEAK int tn_functions_init(PyObject *m) { return 0; }
#include "dispatch/door.h"
WEAK PyObject *tn_op_add_Tensor(tn_value *args) { return tn_not_implemented("aten::add.Tensor"); }
WEAK PyObject *tn_py_from_dtype(tn_dtype d) { return PyUnicode_FromString(tn_dtype_infos[d].name); }
WEAK int tn_py_parse_device(PyObject *o, tn_device_type *type, int *index) { *type = TN_DEVICE_CPU; *index = -1; return 0; }
WEAK PyObject *tn_py_size_new(int ndim, const int64_t *sizes) {
    PyObject *t = PyTuple_New(ndim);
    for (int i = 0; t && i < ndim; i++) PyTuple_SetItem(t, i, PyLong_FromLongLong(sizes[i]));
    return t;
}
WEAK int tn_py_to_dtype(PyObject *o, tn_dtype *out) { *out = TN_DTYPE_F32; return 0; }
WEAK int tn_py_is_dtype(PyObject *o) { return 0; }
