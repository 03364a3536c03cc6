/* storage_share.c — StorageBase's shared-memory methods, what torch.multiprocessing's reductions
 * (and so DataLoader workers) call to move CPU tensors between processes:
 *   _share_fd_cpu_ / _new_using_fd_cpu / _new_shared_fd_cpu        ("file_descriptor", Linux default)
 *   _share_filename_cpu_ / _new_using_filename_cpu / _new_shared_filename_cpu /
 *   _shared_incref / _shared_decref                                ("file_system")
 *   is_shared, _get_shared_fd, and the weak references StorageWeakRef keeps in shared_cache
 *   (_weak_ref, _free_weak_ref, _expired, _new_with_weak_ptr).
 * Sharing an existing storage moves its bytes into shared memory in place (same storage object,
 * new data pointer), as upstream's. The memory itself is core/shm.c's. Upstream's file_system
 * strategy also runs a manager process (torch_shm_manager) that unlinks the objects of crashed
 * processes; here the objects' own reference count unlinks them, so an object is left in
 * /dev/shm only when a process dies holding one. */
#include "python/tensor.h"
#include "core/shm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define S(self) (((tn_storage_obj *)self)->s)

static tn_shm *shm_of(tn_storage *s) {
    s = tn_storage_root(s);
    return s->release == tn_shm_release ? (tn_shm *)s->release_ctx : NULL;
}

static PyObject *os_error(const char *what, size_t n) {
    int e = errno;
    return PyErr_Format(PyExc_RuntimeError, "unable to %s shared memory of %zu bytes: %s (%d)", what, n, strerror(e), e);
}

static int check_cpu(tn_storage *s, const char *name) {
    if (s->device != TN_DEVICE_CPU) {
        PyErr_Format(PyExc_RuntimeError, "%s: only available on CPU", name);
        return -1;
    }
    return 0;
}

/* Moves s's bytes into a new shared object of the given kind. */
static int move_to_shm(tn_storage *s, bool named) {
    if (s->alias_of || s->aliases) {
        tn_not_implemented("sharing the memory of a storage a .data alias or a storage slice also holds");
        return -1;
    }
    tn_shm *m;
    char *p = named ? tn_shm_new_named(s->nbytes, &m) : tn_shm_new_fd(s->nbytes, &m);
    if (!m) { os_error("create", s->nbytes); return -1; }
    if (s->nbytes) memcpy(p, s->data, s->nbytes);
    if (s->release) s->release(s->release_ctx, s->data, s->nbytes);
    else free(s->data);
    s->data = p;
    s->release = tn_shm_release;
    s->release_ctx = m;
    s->resizable = false;
    return 0;
}

PyObject *tn_sm_is_shared(PyObject *self, PyObject *u) { return PyBool_FromLong(shm_of(S(self)) != NULL); }

PyObject *tn_sm_share_fd(PyObject *self, PyObject *u) {
    tn_storage *s = S(self);
    if (check_cpu(s, "_share_fd_") < 0) return NULL;
    tn_shm *m = shm_of(s);
    if (!m || m->named) {
        if (move_to_shm(s, false) < 0) return NULL;
        m = s->release_ctx;
    }
    return Py_BuildValue("(in)", m->fd, (Py_ssize_t)s->nbytes);
}

PyObject *tn_sm_get_shared_fd(PyObject *self, PyObject *u) {
    tn_shm *m = shm_of(S(self));
    if (!m || m->named) {
        PyErr_SetString(PyExc_RuntimeError, "_get_shared_fd: the storage is not shared through a file descriptor");
        return NULL;
    }
    return PyLong_FromLong(m->fd);
}

PyObject *tn_sm_share_filename(PyObject *self, PyObject *u) {
    tn_storage *s = S(self);
    if (check_cpu(s, "_share_filename_") < 0) return NULL;
    tn_shm *m = shm_of(s);
    if (!m || !m->named) {
        if (move_to_shm(s, true) < 0) return NULL;
        m = s->release_ctx;
    }
    /* (manager handle, object handle, size): no manager process here, so its handle is empty */
    return Py_BuildValue("(y y n)", "", m->name, (Py_ssize_t)s->nbytes);
}

static PyObject *new_storage(PyObject *cls, char *p, tn_shm *m, size_t n) {
    tn_storage *s = tn_storage_wrap(p, n, tn_shm_release, m);
    if (!s) { tn_shm_release(m, p, n); return PyErr_NoMemory(); }
    return tn_storage_obj_new((PyTypeObject *)cls, s);
}

static int size_arg(PyObject *o, size_t *n) {
    Py_ssize_t v = PyLong_AsSsize_t(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0) { PyErr_SetString(PyExc_RuntimeError, "Storage size must be non-negative"); return -1; }
    *n = (size_t)v;
    return 0;
}

PyObject *tn_sm_new_using_fd(PyObject *cls, PyObject *size) {
    size_t n;
    tn_shm *m;
    if (size_arg(size, &n) < 0) return NULL;
    char *p = tn_shm_new_fd(n, &m);
    if (!m) return os_error("create", n);
    return new_storage(cls, p, m, n);
}

PyObject *tn_sm_new_using_filename(PyObject *cls, PyObject *size) {
    size_t n;
    tn_shm *m;
    if (size_arg(size, &n) < 0) return NULL;
    char *p = tn_shm_new_named(n, &m);
    if (!m) return os_error("create", n);
    return new_storage(cls, p, m, n);
}

PyObject *tn_sm_new_shared_fd(PyObject *cls, PyObject *args) {
    int fd;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "in:_new_shared_fd_cpu", &fd, &size)) return NULL;
    if (size < 0) { PyErr_SetString(PyExc_RuntimeError, "Storage size must be non-negative"); return NULL; }
    tn_shm *m;
    char *p = tn_shm_from_fd(fd, (size_t)size, &m);
    if (!m) return os_error("map", (size_t)size);
    return new_storage(cls, p, m, (size_t)size);
}

PyObject *tn_sm_new_shared_filename(PyObject *cls, PyObject *args) {
    const char *manager, *handle;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "yyn:_new_shared_filename_cpu", &manager, &handle, &size)) return NULL;
    if (size < 0) { PyErr_SetString(PyExc_RuntimeError, "Storage size must be non-negative"); return NULL; }
    tn_shm *m;
    char *p = tn_shm_open_named(handle, (size_t)size, &m);
    if (!m) {
        int e = errno;
        return PyErr_Format(PyExc_RuntimeError, "unable to open shared memory object <%s> in read-write mode: %s (%d)",
                            handle, strerror(e), e);
    }
    return new_storage(cls, p, m, (size_t)size);
}

PyObject *tn_sm_shared_incref(PyObject *self, PyObject *u) {
    tn_shm *m = shm_of(S(self));
    if (m) tn_shm_incref(m);
    return Py_NewRef(self);
}

PyObject *tn_sm_shared_decref(PyObject *self, PyObject *u) {
    tn_shm *m = shm_of(S(self));
    if (m) tn_shm_decref(m);
    return Py_NewRef(self);
}

/* ---- weak references: an int naming the tn_storage, kept allocated while weakly held ---- */

PyObject *tn_sm_weak_ref(PyObject *self, PyObject *u) {
    tn_storage_weak_incref(S(self));
    return PyLong_FromVoidPtr(S(self));
}

static tn_storage *cdata_arg(PyObject *o) {
    void *p = PyLong_AsVoidPtr(o);
    if (!p && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "expected a storage weak reference");
    return p;
}

PyObject *tn_sm_free_weak_ref(PyObject *cls, PyObject *cdata) {
    if (cdata == Py_None) Py_RETURN_NONE;
    tn_storage *s = cdata_arg(cdata);
    if (!s) return NULL;
    tn_storage_weak_decref(s);
    Py_RETURN_NONE;
}

PyObject *tn_sm_expired(PyObject *cls, PyObject *cdata) {
    tn_storage *s = cdata_arg(cdata);
    if (!s) return NULL;
    return PyBool_FromLong(s->refcnt <= 0);
}

PyObject *tn_sm_new_with_weak_ptr(PyObject *cls, PyObject *cdata) {
    tn_storage *s = cdata_arg(cdata);
    if (!s) return NULL;
    if (s->refcnt <= 0) Py_RETURN_NONE;
    return tn_storage_to_python(s);
}
