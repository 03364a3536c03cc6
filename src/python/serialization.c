/* serialization.c — torch._C.PyTorchFileWriter / PyTorchFileReader: the zip container of
 * torch.save / torch.load.
 *
 * upstream's serialization.py pickles the object graph into a record "data.pkl" and writes every
 * storage as its own record "data/<key>" of one uncompressed (stored) zip archive whose entries
 * all live under "<archive name>/". Storage bytes start on a storage_alignment (64) byte boundary
 * in the file (padding lives in an extra field "FB" of the local header, filled with 'Z'), so a
 * loader can mmap the file and view storages in place. The writer lays entries out the way
 * upstream's does (local header with bit 3 set, data, data descriptor; central directory; end
 * record) and finishes with the records "version" and ".data/serialization_id". The reader parses
 * the end record and the central directory once and bounds-checks every offset it reads; a
 * truncated or corrupted archive raises RuntimeError naming the problem. Only stored entries are
 * read (upstream writes nothing else); zip64 archives (>= 4 GB) are refused by name.
 * Beside them live the few torch._C functions only the save/load path calls: _has_storage,
 * _get_tensor_metadata / _set_tensor_metadata (conj/neg bits, which our tensors never carry) and
 * the sparse-invariants switch _validate_loaded_sparse_tensors reads. */
#include "python/common.h"
#include "python/tensor.h"
#include "ops/sparse.h"

#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- crc32 (zip polynomial) */

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc_update(uint32_t crc, const unsigned char *p, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) {
    put16(p, v & 0xFFFF);
    put16(p + 2, v >> 16);
}
static uint32_t get16(const unsigned char *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static uint32_t get32(const unsigned char *p) { return get16(p) | (get16(p + 2) << 16); }

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_END_SIG 0x06054b50u
#define ZIP_DESC_SIG 0x08074b50u
#define ZIP_LOCAL_LEN 30
#define ZIP_CENTRAL_LEN 46
#define ZIP_END_LEN 22
#define ZIP_MAX32 0xFFFFFFFFu

/* A 40-digit decimal id, as upstream's serialization_id looks. */
static PyObject *new_serialization_id(void) {
    static uint64_t counter;
    uint64_t a = 0, b = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&a, sizeof a, 1, f) != 1 || fread(&b, sizeof b, 1, f) != 1) a = b = 0;
        fclose(f);
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    a ^= (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ ++counter;
    b ^= (uint64_t)ts.tv_sec * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)getpid();
    char buf[48];
    snprintf(buf, sizeof buf, "%020llu%020llu", (unsigned long long)(a % 10000000000000000000ull),
             (unsigned long long)(b % 10000000000000000000ull));
    return PyUnicode_FromString(buf);
}

static void raise_runtime(const char *what, const char *detail) {
    PyErr_Format(PyExc_RuntimeError, "PytorchStreamReader failed %s: %s. The checkpoint file may be "
                 "corrupted or truncated.", what, detail);
}

/* ================================================================ writer */

typedef struct {
    char *name;          /* full name, with the archive prefix */
    uint32_t crc;
    uint64_t size;
    uint64_t offset;     /* of the local header */
} w_entry;

typedef struct {
    PyObject_HEAD
    FILE *fp;            /* path target, or NULL */
    PyObject *buffer;    /* file-like target, or NULL */
    uint64_t pos;
    char *archive;       /* archive name (prefix without '/') */
    w_entry *entries;
    Py_ssize_t n, cap;
    PyObject *written;   /* set of record names as given */
    PyObject *sid;       /* serialization id (str) */
    long min_version;
    int compute_crc;
    uint64_t alignment;
    int finalized;
} writer_obj;

static int w_raw(writer_obj *w, const void *p, size_t n) {
    if (!n) return 0;
    if (w->fp) {
        if (fwrite(p, 1, n, w->fp) != n) {
            PyErr_Format(PyExc_RuntimeError, "PytorchStreamWriter failed writing file: %s", strerror(errno));
            return -1;
        }
    } else {
        PyObject *b = PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
        if (!b) return -1;
        PyObject *r = PyObject_CallMethod(w->buffer, "write", "O", b);
        Py_DECREF(b);
        if (!r) return -1;
        Py_DECREF(r);
    }
    w->pos += n;
    return 0;
}

static int w_record(writer_obj *w, const char *name, const unsigned char *data, uint64_t size) {
    if (w->finalized) {
        PyErr_SetString(PyExc_RuntimeError, "PytorchStreamWriter: cannot write a record after write_end_of_file()");
        return -1;
    }
    size_t plen = strlen(w->archive), nlen = strlen(name);
    size_t flen = plen + 1 + nlen;
    if (flen > 0xFFFF) {
        PyErr_SetString(PyExc_RuntimeError, "PytorchStreamWriter: record name too long");
        return -1;
    }
    for (Py_ssize_t i = 0; i < w->n; i++) {
        if (strcmp(w->entries[i].name + plen + 1, name) == 0) {
            PyErr_Format(PyExc_RuntimeError, "Tried to serialize file twice: %s", name);
            return -1;
        }
    }
    if (size >= ZIP_MAX32 || w->pos >= ZIP_MAX32 - 0x20000 - size) {
        tn_not_implemented("torch._C.PyTorchFileWriter (zip64 archives of 4 GB or more)");
        return -1;
    }
    if (w->n == w->cap) {
        Py_ssize_t cap = w->cap ? 2 * w->cap : 16;
        w_entry *e = realloc(w->entries, (size_t)cap * sizeof *e);
        if (!e) { PyErr_NoMemory(); return -1; }
        w->entries = e;
        w->cap = cap;
    }
    char *full = malloc(flen + 1);
    if (!full) { PyErr_NoMemory(); return -1; }
    snprintf(full, flen + 1, "%s/%s", w->archive, name);

    uint32_t crc = w->compute_crc ? crc_update(0, data, (size_t)size) : 0;
    uint64_t start = w->pos + ZIP_LOCAL_LEN + flen + 4;
    uint64_t pad = w->alignment > 1 ? (w->alignment - start % w->alignment) % w->alignment : 0;
    size_t hlen = ZIP_LOCAL_LEN + flen + 4 + (size_t)pad;
    unsigned char *h = malloc(hlen);
    if (!h) { free(full); PyErr_NoMemory(); return -1; }
    memset(h, 0, ZIP_LOCAL_LEN);
    put32(h, ZIP_LOCAL_SIG);
    put16(h + 6, size ? 0x0808 : 0x0800);      /* utf-8 names; data descriptor follows data */
    put16(h + 26, (uint32_t)flen);
    put16(h + 28, (uint32_t)(4 + pad));
    memcpy(h + ZIP_LOCAL_LEN, full, flen);
    put16(h + ZIP_LOCAL_LEN + flen, 0x4246);   /* "FB": padding to the storage alignment */
    put16(h + ZIP_LOCAL_LEN + flen + 2, (uint32_t)pad);
    memset(h + ZIP_LOCAL_LEN + flen + 4, 'Z', (size_t)pad);
    uint64_t offset = w->pos;
    int rc = w_raw(w, h, hlen);
    free(h);
    if (rc == 0) rc = w_raw(w, data, (size_t)size);
    if (rc == 0 && size) {
        unsigned char d[16];
        put32(d, ZIP_DESC_SIG);
        put32(d + 4, crc);
        put32(d + 8, (uint32_t)size);
        put32(d + 12, (uint32_t)size);
        rc = w_raw(w, d, sizeof d);
    }
    if (rc < 0) { free(full); return -1; }
    w->entries[w->n++] = (w_entry){full, crc, size, offset};
    PyObject *s = PyUnicode_FromString(name);
    if (!s || PySet_Add(w->written, s) < 0) { Py_XDECREF(s); return -1; }
    Py_DECREF(s);
    return 0;
}

static int w_finish(writer_obj *w) {
    if (w->finalized) {
        PyErr_SetString(PyExc_RuntimeError, "PytorchStreamWriter: write_end_of_file() called twice");
        return -1;
    }
    char ver[32];
    snprintf(ver, sizeof ver, "%ld\n", w->min_version > 3 ? w->min_version : 3);
    if (w_record(w, "version", (const unsigned char *)ver, strlen(ver)) < 0) return -1;
    PyObject *bo = PyUnicode_FromString("byteorder");
    if (!bo) return -1;
    int has = PySet_Contains(w->written, bo);
    Py_DECREF(bo);
    if (has < 0) return -1;
    if (!has) {
        const char *order = "little";
        const uint16_t one = 1;
        if (*(const unsigned char *)&one == 0) order = "big";
        if (w_record(w, "byteorder", (const unsigned char *)order, strlen(order)) < 0) return -1;
    }
    Py_ssize_t slen;
    const char *sid = PyUnicode_AsUTF8AndSize(w->sid, &slen);
    if (!sid || w_record(w, ".data/serialization_id", (const unsigned char *)sid, (uint64_t)slen) < 0) return -1;

    if (w->n >= 0xFFFF) {
        tn_not_implemented("torch._C.PyTorchFileWriter (more than 65535 records)");
        return -1;
    }
    uint64_t cd_start = w->pos;
    for (Py_ssize_t i = 0; i < w->n; i++) {
        const w_entry *e = &w->entries[i];
        size_t flen = strlen(e->name);
        unsigned char c[ZIP_CENTRAL_LEN];
        memset(c, 0, sizeof c);
        put32(c, ZIP_CENTRAL_SIG);
        put16(c + 8, e->size ? 0x0808 : 0x0800);
        put32(c + 16, e->crc);
        put32(c + 20, (uint32_t)e->size);
        put32(c + 24, (uint32_t)e->size);
        put16(c + 28, (uint32_t)flen);
        put32(c + 42, (uint32_t)e->offset);
        if (w_raw(w, c, sizeof c) < 0 || w_raw(w, e->name, flen) < 0) return -1;
    }
    uint64_t cd_size = w->pos - cd_start;
    unsigned char end[ZIP_END_LEN];
    memset(end, 0, sizeof end);
    put32(end, ZIP_END_SIG);
    put16(end + 8, (uint32_t)w->n);
    put16(end + 10, (uint32_t)w->n);
    put32(end + 12, (uint32_t)cd_size);
    put32(end + 16, (uint32_t)cd_start);
    if (w_raw(w, end, sizeof end) < 0) return -1;
    w->finalized = 1;
    if (w->fp) {
        FILE *fp = w->fp;
        w->fp = NULL;
        if (fclose(fp) != 0) {
            PyErr_Format(PyExc_RuntimeError, "PytorchStreamWriter failed writing file: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

static int writer_init(PyObject *self, PyObject *args, PyObject *kw) {
    writer_obj *w = (writer_obj *)self;
    static char *kwlist[] = {"file_name", "compute_crc32", "storage_alignment", NULL};
    PyObject *target;
    int crc = 1;
    unsigned long long align = 64;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pK", kwlist, &target, &crc, &align)) return -1;
    if (w->fp || w->buffer || w->archive) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileWriter already initialised");
        return -1;
    }
    if (align == 0 || align > 0x8000) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileWriter: storage_alignment must be in [1, 32768]");
        return -1;
    }
    w->compute_crc = crc;
    w->alignment = align;
    w->min_version = 0;
    if (!(w->written = PySet_New(NULL)) || !(w->sid = new_serialization_id())) return -1;
    if (PyUnicode_Check(target)) {
        const char *path = PyUnicode_AsUTF8AndSize(target, NULL);
        if (!path) return -1;
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t blen = strlen(base);
        const char *dot = strrchr(base, '.');
        if (dot) blen = (size_t)(dot - base);
        if (blen == 0) {
            PyErr_Format(PyExc_RuntimeError, "invalid file name: %s", path);
            return -1;
        }
        if (!(w->archive = malloc(blen + 1))) { PyErr_NoMemory(); return -1; }
        memcpy(w->archive, base, blen);
        w->archive[blen] = 0;
        w->fp = fopen(path, "wb");
        if (!w->fp) {
            if (errno == ENOENT && base != path) {
                PyObject *dir = PyUnicode_FromStringAndSize(path, (Py_ssize_t)(base - path - 1));
                if (dir) PyErr_Format(PyExc_RuntimeError, "Parent directory %U does not exist.", dir);
                Py_XDECREF(dir);
            } else {
                PyErr_Format(PyExc_RuntimeError, "File %s cannot be opened: %s", path, strerror(errno));
            }
            return -1;
        }
    } else {
        if (!(w->archive = strdup("archive"))) { PyErr_NoMemory(); return -1; }
        w->buffer = Py_NewRef(target);
    }
    return 0;
}

static void writer_dealloc(PyObject *self) {
    writer_obj *w = (writer_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (!w->finalized && w->archive && (w->fp || w->buffer)) {
        /* upstream finishes the archive when the writer goes away */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (w_finish(w) < 0) PyErr_WriteUnraisable(self);
        PyErr_Restore(et, ev, tb);
    }
    if (w->fp) fclose(w->fp);
    Py_XDECREF(w->buffer);
    Py_XDECREF(w->written);
    Py_XDECREF(w->sid);
    for (Py_ssize_t i = 0; i < w->n; i++) free(w->entries[i].name);
    free(w->entries);
    free(w->archive);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static int writer_ready(writer_obj *w) {
    if (!w->archive) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileWriter is not initialised");
        return -1;
    }
    return 0;
}

static PyObject *writer_write_record(PyObject *self, PyObject *args) {
    writer_obj *w = (writer_obj *)self;
    const char *name;
    PyObject *data;
    unsigned long long size;
    if (!PyArg_ParseTuple(args, "sOK", &name, &data, &size) || writer_ready(w) < 0) return NULL;
    const unsigned char *p = NULL;
    Py_ssize_t have = -1;
    PyObject *hold = NULL;
    if (PyBytes_Check(data)) {
        p = (const unsigned char *)PyBytes_AsString(data);
        have = PyBytes_Size(data);
    } else if (PyUnicode_Check(data)) {
        p = (const unsigned char *)PyUnicode_AsUTF8AndSize(data, &have);
        if (!p) return NULL;
    } else if (PyObject_TypeCheck(data, tn_py.storage_type)) {
        tn_storage *s = ((tn_storage_obj *)data)->s;
        if (!s || s->device != TN_DEVICE_CPU) {
            PyErr_SetString(PyExc_RuntimeError, "write_record(): the storage must be a CPU storage with data");
            return NULL;
        }
        p = (const unsigned char *)s->data;
        have = (Py_ssize_t)s->nbytes;
    } else if (PyLong_Check(data)) {
        if (PyErr_WarnEx(PyExc_UserWarning, "write_record(): Passing Storage by data pointer is deprecated and "
                         "will be an error in the future, please pass the Storage object instead.", 1) < 0)
            return NULL;
        void *ptr = PyLong_AsVoidPtr(data);
        if (!ptr && PyErr_Occurred()) return NULL;
        p = ptr;
        have = -1;   /* caller vouches for the size, as upstream trusts the pointer */
    } else {
        hold = PyBytes_FromObject(data);
        if (!hold) return NULL;
        p = (const unsigned char *)PyBytes_AsString(hold);
        have = PyBytes_Size(hold);
    }
    if (have >= 0 && (unsigned long long)have < size) {
        Py_XDECREF(hold);
        PyErr_Format(PyExc_RuntimeError, "write_record(): size %llu exceeds the %zd bytes of data", size, have);
        return NULL;
    }
    if (!p && size) {
        Py_XDECREF(hold);
        PyErr_SetString(PyExc_RuntimeError, "write_record(): null data");
        return NULL;
    }
    int rc = w_record(w, name, p ? p : (const unsigned char *)"", size);
    Py_XDECREF(hold);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *writer_write_record_metadata(PyObject *self, PyObject *args) {
    return tn_not_implemented("torch._C.PyTorchFileWriter.write_record_metadata");
}

static PyObject *writer_write_end_of_file(PyObject *self, PyObject *unused) {
    writer_obj *w = (writer_obj *)self;
    if (writer_ready(w) < 0 || w_finish(w) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *writer_set_min_version(PyObject *self, PyObject *arg) {
    writer_obj *w = (writer_obj *)self;
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v > w->min_version) w->min_version = v;
    Py_RETURN_NONE;
}

static PyObject *writer_archive_name(PyObject *self, PyObject *unused) {
    writer_obj *w = (writer_obj *)self;
    if (writer_ready(w) < 0) return NULL;
    return PyUnicode_FromString(w->archive);
}

static PyObject *writer_get_all_written_records(PyObject *self, PyObject *unused) {
    writer_obj *w = (writer_obj *)self;
    if (writer_ready(w) < 0) return NULL;
    return PySet_New(w->written);
}

static PyObject *writer_serialization_id(PyObject *self, PyObject *unused) {
    writer_obj *w = (writer_obj *)self;
    if (writer_ready(w) < 0) return NULL;
    /* upstream reports the id once the archive is finished ("" before) */
    return w->finalized ? Py_NewRef(w->sid) : PyUnicode_FromString("");
}

static PyMethodDef writer_methods[] = {
    {"write_record", writer_write_record, METH_VARARGS, NULL},
    {"write_record_metadata", writer_write_record_metadata, METH_VARARGS, NULL},
    {"write_end_of_file", writer_write_end_of_file, METH_NOARGS, NULL},
    {"set_min_version", writer_set_min_version, METH_O, NULL},
    {"archive_name", writer_archive_name, METH_NOARGS, NULL},
    {"get_all_written_records", writer_get_all_written_records, METH_NOARGS, NULL},
    {"serialization_id", writer_serialization_id, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot writer_slots[] = {
    {Py_tp_init, writer_init},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_dealloc, writer_dealloc},
    {Py_tp_methods, writer_methods},
    {0, NULL},
};

static PyType_Spec writer_spec = {"torch._C.PyTorchFileWriter", sizeof(writer_obj), 0, Py_TPFLAGS_DEFAULT,
                                  writer_slots};

/* ================================================================ reader */

typedef struct {
    char *name;          /* without the archive prefix */
    uint64_t size, csize;
    uint64_t header;     /* offset of the local header */
    uint32_t method;
} r_entry;

typedef struct {
    PyObject_HEAD
    FILE *fp;            /* path source, or NULL */
    PyObject *buffer;    /* file-like source, or NULL */
    uint64_t file_size;
    r_entry *entries;
    Py_ssize_t n;
    PyObject *index;     /* dict name -> entry index */
    PyObject *sid;       /* serialization id str, or NULL */
    size_t plen;         /* length of "<archive name>/" */
} reader_obj;

/* Read n bytes at offset into dst. -1 with RuntimeError if the source is shorter. */
static int r_read(reader_obj *r, uint64_t offset, void *dst, size_t n) {
    if (offset > r->file_size || n > r->file_size - offset) {
        raise_runtime("reading zip archive", "an entry reaches past the end of the file");
        return -1;
    }
    if (!n) return 0;
    if (r->fp) {
        if (fseeko(r->fp, (off_t)offset, SEEK_SET) != 0 || fread(dst, 1, n, r->fp) != n) {
            raise_runtime("reading file", "short read");
            return -1;
        }
        return 0;
    }
    PyObject *x = PyObject_CallMethod(r->buffer, "seek", "K", (unsigned long long)offset);
    if (!x) return -1;
    Py_DECREF(x);
    size_t got = 0;
    /* readinto straight into dst when the buffer has it (no intermediate bytes object) */
    while (got < n && n - got <= (size_t)PY_SSIZE_T_MAX) {
        PyObject *mv = PyMemoryView_FromMemory((char *)dst + got, (Py_ssize_t)(n - got), PyBUF_WRITE);
        if (!mv) return -1;
        x = PyObject_CallMethod(r->buffer, "readinto", "O", mv);
        Py_DECREF(mv);
        if (!x) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
            PyErr_Clear();
            break;   /* no readinto: fall back to read() */
        }
        Py_ssize_t k = x == Py_None ? 0 : PyLong_AsSsize_t(x);
        Py_DECREF(x);
        if (k == -1 && PyErr_Occurred()) return -1;
        if (k <= 0 || (size_t)k > n - got) {
            raise_runtime("reading file", "short read");
            return -1;
        }
        got += (size_t)k;
    }
    while (got < n) {
        x = PyObject_CallMethod(r->buffer, "read", "n", (Py_ssize_t)(n - got));
        if (!x) return -1;
        if (!PyBytes_Check(x)) {
            Py_DECREF(x);
            PyErr_SetString(PyExc_TypeError, "PyTorchFileReader: read() must return bytes");
            return -1;
        }
        Py_ssize_t k = PyBytes_Size(x);
        if (k <= 0) {
            Py_DECREF(x);
            raise_runtime("reading file", "short read");
            return -1;
        }
        if ((size_t)k > n - got) k = (Py_ssize_t)(n - got);
        memcpy((char *)dst + got, PyBytes_AsString(x), (size_t)k);
        got += (size_t)k;
        Py_DECREF(x);
    }
    return 0;
}

static int r_parse(reader_obj *r) {
    if (r->file_size < ZIP_END_LEN) {
        raise_runtime("reading zip archive", "not a ZIP archive");
        return -1;
    }
    /* the end record is within the last 22 + 65535 bytes (the comment is at most 65535) */
    uint64_t tail = r->file_size < ZIP_END_LEN + 0xFFFF ? r->file_size : ZIP_END_LEN + 0xFFFF;
    unsigned char *buf = malloc((size_t)tail);
    if (!buf) { PyErr_NoMemory(); return -1; }
    if (r_read(r, r->file_size - tail, buf, (size_t)tail) < 0) { free(buf); return -1; }
    Py_ssize_t at = -1;
    for (Py_ssize_t i = (Py_ssize_t)tail - ZIP_END_LEN; i >= 0; i--) {
        if (get32(buf + i) == ZIP_END_SIG && (uint64_t)i + ZIP_END_LEN + get16(buf + i + 20) <= tail) {
            at = i;
            break;
        }
    }
    if (at < 0) {
        free(buf);
        raise_runtime("reading zip archive", "failed finding central directory");
        return -1;
    }
    uint32_t n = get16(buf + at + 10), cd_size = get32(buf + at + 12), cd_off = get32(buf + at + 16);
    uint32_t disk = get16(buf + at + 4), cd_disk = get16(buf + at + 6), n_disk = get16(buf + at + 8);
    free(buf);
    if (n == 0xFFFF || cd_size == ZIP_MAX32 || cd_off == ZIP_MAX32) {
        tn_not_implemented("torch._C.PyTorchFileReader (zip64 archives)");
        return -1;
    }
    if (disk != 0 || cd_disk != 0 || n_disk != n) {
        raise_runtime("reading zip archive", "unsupported multidisk archive");
        return -1;
    }
    if ((uint64_t)cd_off + cd_size > r->file_size || (uint64_t)n * ZIP_CENTRAL_LEN > cd_size) {
        raise_runtime("reading zip archive", "invalid central directory offsets");
        return -1;
    }
    unsigned char *cd = malloc(cd_size ? cd_size : 1);
    if (!cd) { PyErr_NoMemory(); return -1; }
    if (r_read(r, cd_off, cd, cd_size) < 0) { free(cd); return -1; }
    r->entries = calloc(n ? n : 1, sizeof *r->entries);
    if (!r->entries) { free(cd); PyErr_NoMemory(); return -1; }
    uint64_t p = 0;
    size_t plen = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (p + ZIP_CENTRAL_LEN > cd_size || get32(cd + p) != ZIP_CENTRAL_SIG) {
            free(cd);
            raise_runtime("reading zip archive", "invalid header or archive is corrupted");
            return -1;
        }
        const unsigned char *c = cd + p;
        uint32_t nl = get16(c + 28), xl = get16(c + 30), kl = get16(c + 32);
        if (p + ZIP_CENTRAL_LEN + nl + xl + kl > cd_size) {
            free(cd);
            raise_runtime("reading zip archive", "invalid header or archive is corrupted");
            return -1;
        }
        const char *nm = (const char *)c + ZIP_CENTRAL_LEN;
        if (i == 0) {
            /* the archive name: everything up to the first '/' of the first record */
            const char *slash = memchr(nm, '/', nl);
            if (!slash) {
                PyErr_Format(PyExc_RuntimeError, "file in archive is not in a subdirectory: %.*s", (int)nl, nm);
                free(cd);
                return -1;
            }
            plen = (size_t)(slash - nm) + 1;
        }
        r_entry *e = &r->entries[r->n];
        uint32_t size = get32(c + 24), csize = get32(c + 20), hdr = get32(c + 42);
        if (size == ZIP_MAX32 || csize == ZIP_MAX32 || hdr == ZIP_MAX32) {
            free(cd);
            tn_not_implemented("torch._C.PyTorchFileReader (zip64 archives)");
            return -1;
        }
        e->size = size;
        e->csize = csize;
        e->header = hdr;
        e->method = get16(c + 10);
        p += ZIP_CENTRAL_LEN + nl + xl + kl;
        /* records outside the archive directory are not the archive's */
        if (nl < plen || (i > 0 && memcmp(nm, (const char *)cd + ZIP_CENTRAL_LEN, plen) != 0)) continue;
        if (!(e->name = malloc(nl - plen + 1))) { free(cd); PyErr_NoMemory(); return -1; }
        memcpy(e->name, nm + plen, nl - plen);
        e->name[nl - plen] = 0;
        PyObject *k = PyUnicode_DecodeUTF8(e->name, (Py_ssize_t)(nl - plen), "replace");
        PyObject *v = PyLong_FromSsize_t(r->n);
        int rc = (k && v) ? PyDict_SetItem(r->index, k, v) : -1;
        Py_XDECREF(k);
        Py_XDECREF(v);
        r->n++;
        if (rc < 0) { free(cd); return -1; }
    }
    free(cd);
    r->plen = plen;
    return 0;
}

static int reader_init(PyObject *self, PyObject *args, PyObject *kw) {
    reader_obj *r = (reader_obj *)self;
    static char *kwlist[] = {"file_name", NULL};
    PyObject *src;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O", kwlist, &src)) return -1;
    if (r->fp || r->buffer || r->index) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileReader already initialised");
        return -1;
    }
    if (!(r->index = PyDict_New())) return -1;
    if (PyUnicode_Check(src)) {
        const char *path = PyUnicode_AsUTF8AndSize(src, NULL);
        if (!path) return -1;
        r->fp = fopen(path, "rb");
        if (!r->fp) {
            PyErr_Format(PyExc_RuntimeError, "open file failed because of errno %d on fopen: %s, file path: %s",
                         errno, strerror(errno), path);
            return -1;
        }
        if (fseeko(r->fp, 0, SEEK_END) != 0) {
            PyErr_Format(PyExc_RuntimeError, "PyTorchFileReader: cannot seek in %s", path);
            return -1;
        }
        off_t sz = ftello(r->fp);
        if (sz < 0) {
            PyErr_Format(PyExc_RuntimeError, "PyTorchFileReader: cannot seek in %s", path);
            return -1;
        }
        r->file_size = (uint64_t)sz;
    } else {
        r->buffer = Py_NewRef(src);
        PyObject *x = PyObject_CallMethod(src, "seek", "ii", 0, 2);
        if (!x) return -1;
        Py_DECREF(x);
        x = PyObject_CallMethod(src, "tell", NULL);
        if (!x) return -1;
        unsigned long long sz = PyLong_AsUnsignedLongLong(x);
        Py_DECREF(x);
        if (sz == (unsigned long long)-1 && PyErr_Occurred()) return -1;
        r->file_size = sz;
    }
    if (r_parse(r) < 0) return -1;
    if (r->n == 0) {
        raise_runtime("reading zip archive", "archive has no records");
        return -1;
    }
    return 0;
}

static void reader_dealloc(PyObject *self) {
    reader_obj *r = (reader_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (r->fp) fclose(r->fp);
    Py_XDECREF(r->buffer);
    Py_XDECREF(r->index);
    Py_XDECREF(r->sid);
    if (r->entries)
        for (Py_ssize_t i = 0; i < r->n; i++) free(r->entries[i].name);
    free(r->entries);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* The entry of a record name; NULL with RuntimeError (naming the record) if there is none. */
static r_entry *r_find(reader_obj *r, PyObject *name, int raise) {
    if (!r->index) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileReader is not initialised");
        return NULL;
    }
    PyObject *v = PyDict_GetItemWithError(r->index, name);
    if (!v) {
        if (!PyErr_Occurred() && raise)
            PyErr_Format(PyExc_RuntimeError, "PytorchStreamReader failed locating file %U: file not found", name);
        return NULL;
    }
    return &r->entries[PyLong_AsSsize_t(v)];
}

/* Offset of a record's data: after its local header, which is read and checked. */
static int r_data_offset(reader_obj *r, const r_entry *e, uint64_t *out) {
    unsigned char h[ZIP_LOCAL_LEN];
    if (r_read(r, e->header, h, sizeof h) < 0) return -1;
    if (get32(h) != ZIP_LOCAL_SIG) {
        PyErr_Format(PyExc_RuntimeError, "PytorchStreamReader failed reading file %s: invalid header or archive "
                     "is corrupted (bad local header signature)", e->name);
        return -1;
    }
    uint64_t off = e->header + ZIP_LOCAL_LEN + get16(h + 26) + get16(h + 28);
    if (off > r->file_size || e->csize > r->file_size - off) {
        PyErr_Format(PyExc_RuntimeError, "PytorchStreamReader failed reading file %s: the record reaches past "
                     "the end of the file (truncated?)", e->name);
        return -1;
    }
    if (e->method != 0) {
        PyErr_Format(PyExc_RuntimeError, "PytorchStreamReader: record %s is compressed (method %u); only "
                     "stored records are supported", e->name, e->method);
        return -1;
    }
    if (e->csize != e->size) {
        raise_runtime("reading zip archive", "stored record sizes disagree (archive is corrupted)");
        return -1;
    }
    *out = off;
    return 0;
}

static PyObject *reader_get_record(PyObject *self, PyObject *name) {
    reader_obj *r = (reader_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "get_record(): name must be a str");
        return NULL;
    }
    r_entry *e = r_find(r, name, 1);
    uint64_t off;
    if (!e || r_data_offset(r, e, &off) < 0) return NULL;
    if (e->size > (uint64_t)PY_SSIZE_T_MAX) return PyErr_NoMemory();
    char *tmp = malloc(e->size ? (size_t)e->size : 1);
    if (!tmp) return PyErr_NoMemory();
    if (r_read(r, off, tmp, (size_t)e->size) < 0) { free(tmp); return NULL; }
    PyObject *b = PyBytes_FromStringAndSize(tmp, (Py_ssize_t)e->size);
    free(tmp);
    return b;
}

static PyObject *reader_has_record(PyObject *self, PyObject *name) {
    reader_obj *r = (reader_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "has_record(): name must be a str");
        return NULL;
    }
    r_entry *e = r_find(r, name, 0);
    if (!e && PyErr_Occurred()) return NULL;
    return PyBool_FromLong(e != NULL);
}

static PyObject *reader_get_all_records(PyObject *self, PyObject *unused) {
    reader_obj *r = (reader_obj *)self;
    PyObject *l = PyList_New(0);
    if (!l) return NULL;
    for (Py_ssize_t i = 0; i < r->n; i++) {
        PyObject *s = PyUnicode_DecodeUTF8(r->entries[i].name, (Py_ssize_t)strlen(r->entries[i].name), "replace");
        if (!s || PyList_Append(l, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(l);
            return NULL;
        }
        Py_DECREF(s);
    }
    return l;
}

static PyObject *reader_get_record_offset(PyObject *self, PyObject *name) {
    reader_obj *r = (reader_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "get_record_offset(): name must be a str");
        return NULL;
    }
    r_entry *e = r_find(r, name, 1);
    uint64_t off;
    if (!e || r_data_offset(r, e, &off) < 0) return NULL;
    return PyLong_FromUnsignedLongLong(off);
}

static PyObject *reader_get_record_header_offset(PyObject *self, PyObject *name) {
    reader_obj *r = (reader_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "get_record_header_offset(): name must be a str");
        return NULL;
    }
    r_entry *e = r_find(r, name, 1);
    if (!e) return NULL;
    return PyLong_FromUnsignedLongLong(e->header);
}

static PyObject *reader_get_record_size(PyObject *self, PyObject *name) {
    reader_obj *r = (reader_obj *)self;
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "get_record_size(): name must be a str");
        return NULL;
    }
    r_entry *e = r_find(r, name, 1);
    if (!e) return NULL;
    return PyLong_FromUnsignedLongLong(e->size);
}

/* Where a record's data would start if its local header (as our writer lays it out) begins at
 * `cursor`: header, full name, the "FB" field, padding to the alignment. */
static PyObject *reader_get_record_offset_no_read(PyObject *self, PyObject *args) {
    reader_obj *r = (reader_obj *)self;
    unsigned long long cursor, size, align;
    const char *name;
    if (!PyArg_ParseTuple(args, "KsKK", &cursor, &name, &size, &align)) return NULL;
    if (!r->n) {
        PyErr_SetString(PyExc_RuntimeError, "PyTorchFileReader is not initialised");
        return NULL;
    }
    if (align == 0 || align > 0x8000) {
        PyErr_SetString(PyExc_RuntimeError, "get_record_offset_no_read(): invalid alignment");
        return NULL;
    }
    uint64_t start = (uint64_t)cursor + ZIP_LOCAL_LEN + r->plen + strlen(name) + 4;
    uint64_t pad = (align - start % align) % align;
    (void)size;
    return PyLong_FromUnsignedLongLong(start + pad);
}

static PyObject *reader_serialization_id(PyObject *self, PyObject *unused) {
    reader_obj *r = (reader_obj *)self;
    if (r->sid) return Py_NewRef(r->sid);
    PyObject *k = PyUnicode_FromString(".data/serialization_id");
    if (!k) return NULL;
    r_entry *e = r_find(r, k, 0);
    PyObject *res;
    if (!e) {
        res = PyErr_Occurred() ? NULL : PyUnicode_FromString("");
    } else {
        PyObject *b = reader_get_record(self, k);
        res = b ? PyUnicode_FromEncodedObject(b, "utf-8", "replace") : NULL;
        Py_XDECREF(b);
    }
    Py_DECREF(k);
    if (res) r->sid = Py_NewRef(res);
    return res;
}

static PyObject *reader_get_storage_from_record(PyObject *self, PyObject *args) {
    reader_obj *r = (reader_obj *)self;
    PyObject *name, *dt;
    long long numel;
    if (!PyArg_ParseTuple(args, "ULO", &name, &numel, &dt)) return NULL;
    tn_dtype dtype = TN_DTYPE_U8;
    if (tn_py_is_dtype(dt)) {
        if (tn_py_to_dtype(dt, &dtype) < 0) return NULL;
    } else {
        /* a storage class (torch.UntypedStorage): bytes */
        PyObject *d = PyObject_GetAttrString(dt, "dtype");
        if (d && tn_py_is_dtype(d)) {
            int rc = tn_py_to_dtype(d, &dtype);
            Py_DECREF(d);
            if (rc < 0) return NULL;
        } else {
            Py_XDECREF(d);
            PyErr_Clear();
        }
    }
    r_entry *e = r_find(r, name, 1);
    uint64_t off;
    if (!e || r_data_offset(r, e, &off) < 0) return NULL;
    uint64_t item = (uint64_t)tn_dtype_itemsize(dtype);
    if (numel < 0 || (uint64_t)numel > UINT64_MAX / item || (uint64_t)numel * item != e->size) {
        PyErr_Format(PyExc_RuntimeError, "record size (%llu bytes) does not match expected size (%llu bytes = "
                     "%lld elements * %llu bytes/element) for dtype %s", (unsigned long long)e->size,
                     (unsigned long long)((uint64_t)numel * item), numel, (unsigned long long)item,
                     tn_dtype_cpp_name(dtype));
        return NULL;
    }
    tn_storage *s = tn_storage_new((size_t)e->size, TN_DEVICE_CPU);
    if (!s) return PyErr_NoMemory();
    if (r_read(r, off, s->data, (size_t)e->size) < 0) {
        tn_storage_decref(s);
        return NULL;
    }
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = s;
    t.dtype = dtype;
    t.ndim = 1;
    t.sizes[0] = 0;
    t.strides[0] = 1;
    return tn_tensor_wrap(&t);
}

static PyMethodDef reader_methods[] = {
    {"get_record", reader_get_record, METH_O, NULL},
    {"has_record", reader_has_record, METH_O, NULL},
    {"get_all_records", reader_get_all_records, METH_NOARGS, NULL},
    {"get_record_offset", reader_get_record_offset, METH_O, NULL},
    {"get_record_header_offset", reader_get_record_header_offset, METH_O, NULL},
    {"get_record_size", reader_get_record_size, METH_O, NULL},
    {"get_record_offset_no_read", reader_get_record_offset_no_read, METH_VARARGS, NULL},
    {"get_storage_from_record", reader_get_storage_from_record, METH_VARARGS, NULL},
    {"serialization_id", reader_serialization_id, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot reader_slots[] = {
    {Py_tp_init, reader_init},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_dealloc, reader_dealloc},
    {Py_tp_methods, reader_methods},
    {0, NULL},
};

static PyType_Spec reader_spec = {"torch._C.PyTorchFileReader", sizeof(reader_obj), 0, Py_TPFLAGS_DEFAULT,
                                  reader_slots};

/* ================================================================ save/load helpers */

static PyObject *h_has_storage(PyObject *mod, PyObject *t) {
    if (!tn_py_is_tensor(t)) {
        PyErr_Format(PyExc_TypeError, "_has_storage(): argument 'tensor' must be Tensor, not %s", tn_py_type_name(t));
        return NULL;
    }
    return PyBool_FromLong(tn_tensor_of(t)->storage != NULL);
}

static PyObject *h_get_tensor_metadata(PyObject *mod, PyObject *t) {
    if (!tn_py_is_tensor(t)) {
        PyErr_Format(PyExc_TypeError, "_get_tensor_metadata(): argument 'tensor' must be Tensor, not %s",
                     tn_py_type_name(t));
        return NULL;
    }
    /* the conj / neg bits (core/tensor.h), as upstream records them: only the ones set */
    PyObject *d = PyDict_New();
    uint8_t bits = tn_tensor_of(t)->math_bits;
    if (d && (bits & TN_BIT_CONJ) && PyDict_SetItemString(d, "conj", Py_True) < 0) Py_CLEAR(d);
    if (d && (bits & TN_BIT_NEG) && PyDict_SetItemString(d, "neg", Py_True) < 0) Py_CLEAR(d);
    return d;
}

static PyObject *h_set_tensor_metadata(PyObject *mod, PyObject *args) {
    PyObject *t, *d;
    if (!PyArg_ParseTuple(args, "OO!", &t, &PyDict_Type, &d)) return NULL;
    if (!tn_py_is_tensor(t)) {
        PyErr_Format(PyExc_TypeError, "_set_tensor_metadata(): argument 'tensor' must be Tensor, not %s",
                     tn_py_type_name(t));
        return NULL;
    }
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    uint8_t bits = tn_tensor_of(t)->math_bits;
    while (PyDict_Next(d, &pos, &k, &v)) {
        int truth = PyObject_IsTrue(v);
        if (truth < 0) return NULL;
        const char *key = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, NULL) : NULL;
        uint8_t bit = key && !strcmp(key, "conj") ? TN_BIT_CONJ : key && !strcmp(key, "neg") ? TN_BIT_NEG : 0;
        if (!bit) continue;
        if (truth) bits |= bit; else bits &= (uint8_t)~bit;
    }
    if ((bits & TN_BIT_CONJ) && !tn_dtype_is_complex(tn_tensor_of(t)->dtype))
        return tn_not_implemented("torch._C._set_tensor_metadata: the conjugate bit on a non-complex tensor");
    tn_tensor_of(t)->math_bits = bits;
    Py_RETURN_NONE;
}

static PyObject *h_check_sparse(PyObject *mod, PyObject *unused) {
    return PyBool_FromLong(tn_sparse_check_invariants);
}

static PyObject *h_set_check_sparse(PyObject *mod, PyObject *arg) {
    int v = PyObject_IsTrue(arg);
    if (v < 0) return NULL;
    tn_sparse_check_invariants = v;
    tn_sparse_check_invariants_set = true;
    Py_RETURN_NONE;
}

static PyMethodDef helper_methods[] = {
    {"_has_storage", h_has_storage, METH_O, NULL},
    {"_get_tensor_metadata", h_get_tensor_metadata, METH_O, NULL},
    {"_set_tensor_metadata", h_set_tensor_metadata, METH_VARARGS, NULL},
    {"_check_sparse_tensor_invariants", h_check_sparse, METH_NOARGS, NULL},
    {"_set_check_sparse_tensor_invariants", h_set_check_sparse, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int tn_serialization_init(PyObject *m) {
    crc_init();
    if (PyModule_AddFunctions(m, helper_methods) < 0) return -1;
    PyObject *w = PyType_FromSpec(&writer_spec);
    if (!w) return -1;
    if (PyModule_AddObject(m, "PyTorchFileWriter", w) < 0) {
        Py_DECREF(w);
        return -1;
    }
    PyObject *r = PyType_FromSpec(&reader_spec);
    if (!r) return -1;
    if (PyModule_AddObject(m, "PyTorchFileReader", r) < 0) {
        Py_DECREF(r);
        return -1;
    }
    return 0;
}
