/* storage_file.c — StorageBase's methods of upstream's legacy (non-zip) serialization format,
 * which torch.save(..., _use_new_zipfile_serialization=False), torch.load of such files and
 * pickle.dumps / copy of storages and tensors (StorageBase.__reduce__ saves that way) call:
 *   _write_file(f, is_real_file, save_size, element_size)
 *   _set_from_file(f, offset, is_real_file, element_size) -> self
 *   _new_with_file(f, element_size) -> a new storage            (class method)
 * A record is the element count as a little-endian int64 (when save_size) and then the bytes as
 * they lie (this machine is little-endian, as the format). A real file (is_real_file) is read and
 * written through its file descriptor, as upstream's; other file-like objects through their
 * write / readinto (or read) methods. Errors word upstream's (measured on 2.13.0). */
#include "python/tensor.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define S(self) (((tn_storage_obj *)self)->s)

static int fd_write_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            PyErr_Format(PyExc_RuntimeError, "write(): fd %d failed with %s", fd, strerror(errno));
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int fd_read_all(int fd, char *p, size_t n) {
    size_t want = n;
    while (n) {
        ssize_t r = read(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            PyErr_Format(PyExc_RuntimeError, "read(): fd %d failed with %s", fd, strerror(errno));
            return -1;
        }
        if (r == 0) {
            PyErr_Format(PyExc_RuntimeError, "unexpected EOF, expected %zu more bytes. The file might be corrupted.", n);
            (void)want;
            return -1;
        }
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int py_write_all(PyObject *f, const char *p, size_t n) {
    while (n) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        PyObject *mv = PyMemoryView_FromMemory((char *)p, (Py_ssize_t)k, PyBUF_READ);
        PyObject *r = mv ? PyObject_CallMethod(f, "write", "O", mv) : NULL;
        Py_XDECREF(mv);
        if (!r) return -1;
        Py_ssize_t w = PyLong_Check(r) ? PyLong_AsSsize_t(r) : (Py_ssize_t)k;
        Py_DECREF(r);
        if (w < 0 && PyErr_Occurred()) return -1;
        if (w <= 0) {
            PyErr_SetString(PyExc_RuntimeError, "write(): the file-like object wrote nothing");
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* readinto when the object has it, else read */
static int py_read_all(PyObject *f, char *p, size_t n) {
    int has_readinto = PyObject_HasAttrString(f, "readinto");
    while (n) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        Py_ssize_t got;
        if (has_readinto) {
            PyObject *mv = PyMemoryView_FromMemory(p, (Py_ssize_t)k, PyBUF_WRITE);
            PyObject *r = mv ? PyObject_CallMethod(f, "readinto", "O", mv) : NULL;
            Py_XDECREF(mv);
            if (!r) return -1;
            got = PyLong_AsSsize_t(r);
            Py_DECREF(r);
            if (got < 0 && PyErr_Occurred()) return -1;
        } else {
            PyObject *r = PyObject_CallMethod(f, "read", "n", (Py_ssize_t)k);
            if (!r) return -1;
            char *b;
            if (PyBytes_AsStringAndSize(r, &b, &got) < 0) { Py_DECREF(r); return -1; }
            if (got > (Py_ssize_t)k) got = (Py_ssize_t)k;
            memcpy(p, b, (size_t)got);
            Py_DECREF(r);
        }
        if (got <= 0) {
            PyErr_Format(PyExc_RuntimeError, "unexpected EOF, expected %zu more bytes. The file might be corrupted.", n);
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int io_all(PyObject *f, int fd, char *p, size_t n, bool reading) {
    if (fd >= 0) return reading ? fd_read_all(fd, p, n) : fd_write_all(fd, p, n);
    return reading ? py_read_all(f, p, n) : py_write_all(f, p, n);
}

static int element_size_of(PyObject *o, uint64_t *es) {
    if (o == Py_None || !PyLong_Check(o)) {
        PyErr_SetString(PyExc_RuntimeError, "need to specify element size");
        return -1;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    if (v == 0) {
        PyErr_SetString(PyExc_RuntimeError, "element size must be positive");
        return -1;
    }
    *es = v;
    return 0;
}

/* one record into s (size checked against it) or, s NULL, into a new storage returned */
static tn_storage *read_record(PyObject *f, int fd, tn_storage *s, uint64_t es) {
    int64_t numel;
    if (io_all(f, fd, (char *)&numel, sizeof numel, true) < 0) return NULL;
    if (numel < 0 || (uint64_t)numel > SIZE_MAX / es) {
        PyErr_Format(PyExc_RuntimeError, "storage record of %lld elements of %llu bytes is invalid", (long long)numel,
                     (unsigned long long)es);
        return NULL;
    }
    size_t nbytes = (size_t)numel * (size_t)es;
    if (s) {
        if (s->nbytes != nbytes) {
            PyErr_Format(PyExc_RuntimeError, "storage has wrong byte size: expected %zu got %zu", nbytes, s->nbytes);
            return NULL;
        }
        tn_storage_incref(s);
    } else if (!(s = tn_storage_new(nbytes, TN_DEVICE_CPU))) {
        PyErr_NoMemory();
        return NULL;
    }
    if (nbytes && io_all(f, fd, s->data, nbytes, true) < 0) {
        tn_storage_decref(s);
        return NULL;
    }
    return s;
}

PyObject *tn_sm_write_file(PyObject *self, PyObject *args) {
    PyObject *f, *real, *save_size, *eso;
    if (!PyArg_ParseTuple(args, "OOOO:_write_file", &f, &real, &save_size, &eso)) return NULL;
    uint64_t es;
    if (element_size_of(eso, &es) < 0) return NULL;
    tn_storage *s = S(self);
    int fd = -1;
    if (real == Py_True && (fd = PyObject_AsFileDescriptor(f)) < 0) return NULL;
    if (PyObject_IsTrue(save_size)) {
        int64_t numel = (int64_t)(s->nbytes / es);
        if (io_all(f, fd, (char *)&numel, sizeof numel, false) < 0) return NULL;
    }
    if (s->nbytes && io_all(f, fd, s->data, s->nbytes, false) < 0) return NULL;
    Py_RETURN_NONE;
}

PyObject *tn_sm_set_from_file(PyObject *self, PyObject *args) {
    PyObject *f, *offset, *real, *eso;
    if (!PyArg_ParseTuple(args, "OOOO:_set_from_file", &f, &offset, &real, &eso)) return NULL;
    uint64_t es;
    if (element_size_of(eso, &es) < 0) return NULL;
    if (real != Py_True) {
        if (offset != Py_None) {
            PyErr_SetString(PyExc_RuntimeError, "_set_from_file: offset is NYI for filelike objects");
            return NULL;
        }
        tn_storage *s = read_record(f, -1, S(self), es);
        if (!s) return NULL;
        tn_storage_decref(s);
        return Py_NewRef(self);
    }
    int fd = PyObject_AsFileDescriptor(f);
    if (fd < 0) return NULL;
    /* as upstream's: read at offset (or where the descriptor stands), put the descriptor back and
     * move the Python file object past the record */
    off_t orig = lseek(fd, 0, SEEK_CUR);
    if (offset != Py_None) {
        long long o = PyLong_AsLongLong(offset);
        if (o == -1 && PyErr_Occurred()) return NULL;
        lseek(fd, (off_t)o, SEEK_SET);
    }
    tn_storage *s = read_record(f, fd, S(self), es);
    off_t cur = lseek(fd, 0, SEEK_CUR);
    lseek(fd, orig, SEEK_SET);
    if (!s) return NULL;
    tn_storage_decref(s);
    PyObject *r = PyObject_CallMethod(f, "seek", "Li", (long long)cur, 0);
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(self);
}

PyObject *tn_sm_new_with_file(PyObject *cls, PyObject *args) {
    if (PyTuple_Size(args) != 2) {
        PyErr_SetString(PyExc_RuntimeError, "_new_with_file takes exactly two arguments");
        return NULL;
    }
    int fd = PyObject_AsFileDescriptor(PyTuple_GetItem(args, 0));
    if (fd < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "_new_with_file couldn't retrieve a file descriptor from given object");
        return NULL;
    }
    uint64_t es;
    if (element_size_of(PyTuple_GetItem(args, 1), &es) < 0) return NULL;
    tn_storage *s = read_record(NULL, fd, NULL, es);
    if (!s) return NULL;
    return tn_storage_obj_new((PyTypeObject *)cls, s);
}
