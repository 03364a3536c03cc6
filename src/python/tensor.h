/* tensor.h — the Python face of the tensor and storage objects: the object layouts and their
 * allocation are core/object.h's; here the StorageBase methods other files of python/ define. */
#ifndef TN_PYTHON_TENSOR_H
#define TN_PYTHON_TENSOR_H

#include "python/common.h"
#include "core/object.h"

/* The shared-memory methods of StorageBase (storage_share.c). */
PyObject *tn_sm_is_shared(PyObject *, PyObject *);
PyObject *tn_sm_share_fd(PyObject *, PyObject *);
PyObject *tn_sm_share_filename(PyObject *, PyObject *);
PyObject *tn_sm_new_using_fd(PyObject *, PyObject *);
PyObject *tn_sm_new_shared_fd(PyObject *, PyObject *);
PyObject *tn_sm_new_using_filename(PyObject *, PyObject *);
PyObject *tn_sm_new_shared_filename(PyObject *, PyObject *);
PyObject *tn_sm_shared_incref(PyObject *, PyObject *);
PyObject *tn_sm_shared_decref(PyObject *, PyObject *);
PyObject *tn_sm_get_shared_fd(PyObject *, PyObject *);
PyObject *tn_sm_weak_ref(PyObject *, PyObject *);
PyObject *tn_sm_free_weak_ref(PyObject *, PyObject *);
PyObject *tn_sm_expired(PyObject *, PyObject *);
PyObject *tn_sm_new_with_weak_ptr(PyObject *, PyObject *);
/* upstream's legacy constructor on a fixed dtype and device (Tensor.new, torch.Tensor(...),
 * torch.FloatTensor(...) and its siblings): sizes, a storage, a tensor of that dtype, or data */
PyObject *tn_py_sparse_operand(PyObject *data, tn_dtype dt);   /* tensor_new.c */
/* a numpy array index as upstream's indexing_tensor_from_data: 0 (not an ndarray), 1 (*out set), -1 */
int tn_py_ndarray_index(PyObject *o, PyObject **out);   /* tensor_new.c */
PyObject *tn_legacy_tensor_new(tn_dtype dt, tn_device_type device, PyObject *args, PyObject *kw);
/* The legacy serialization format's methods (storage_file.c). */
PyObject *tn_sm_write_file(PyObject *, PyObject *);
PyObject *tn_sm_set_from_file(PyObject *, PyObject *);
PyObject *tn_sm_new_with_file(PyObject *, PyObject *);
#define TN_STORAGE_FILE_METHODS \
    {"_write_file", tn_sm_write_file, METH_VARARGS, NULL}, \
    {"_set_from_file", tn_sm_set_from_file, METH_VARARGS, NULL}, \
    {"_new_with_file", tn_sm_new_with_file, METH_VARARGS | METH_CLASS, NULL},

#define TN_STORAGE_SHARE_METHODS \
    {"is_shared", tn_sm_is_shared, METH_NOARGS, NULL}, \
    {"_share_fd_cpu_", tn_sm_share_fd, METH_NOARGS, NULL}, \
    {"_share_filename_cpu_", tn_sm_share_filename, METH_NOARGS, NULL}, \
    {"_new_using_fd_cpu", tn_sm_new_using_fd, METH_O | METH_CLASS, NULL}, \
    {"_new_shared_fd_cpu", tn_sm_new_shared_fd, METH_VARARGS | METH_CLASS, NULL}, \
    {"_new_using_filename_cpu", tn_sm_new_using_filename, METH_O | METH_CLASS, NULL}, \
    {"_new_shared_filename_cpu", tn_sm_new_shared_filename, METH_VARARGS | METH_CLASS, NULL}, \
    {"_shared_incref", tn_sm_shared_incref, METH_NOARGS, NULL}, \
    {"_shared_decref", tn_sm_shared_decref, METH_NOARGS, NULL}, \
    {"_get_shared_fd", tn_sm_get_shared_fd, METH_NOARGS, NULL}, \
    {"_weak_ref", tn_sm_weak_ref, METH_NOARGS, NULL}, \
    {"_free_weak_ref", tn_sm_free_weak_ref, METH_O | METH_CLASS, NULL}, \
    {"_expired", tn_sm_expired, METH_O | METH_CLASS, NULL}, \
    {"_new_with_weak_ptr", tn_sm_new_with_weak_ptr, METH_O | METH_CLASS, NULL},

#endif
