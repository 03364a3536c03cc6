/* dist_pgwrap.c — torch._C._distributed_c10d._ProcessGroupWrapper, the backend that
 * TORCH_DISTRIBUTED_DEBUG=DETAIL puts around every gloo backend (distributed_c10d's
 * _create_process_group_wrapper: `_ProcessGroupWrapper(backend, helper_gloo_backend)`, the helper
 * rendezvoused under the store prefix `pg_wrapper:<group name>`).
 *
 * Before each checked collective, upstream's runCollectiveChecks (docs/distributed.md
 * "DETAIL worlds", everything below measured on upstream 2.13.0):
 *   1. a monitored barrier on the helper group, waiting for every rank (wait_all_ranks);
 *   2. the collective's fingerprint, an int64 tensor
 *        [op type, sequence number of the wrapped backend, n tensors, n dtypes (c10 ScalarType),
 *         n device types (c10 DeviceType), then per tensor: ndim, sizes...]
 *      is verified in two all-gathers on the helper: first a 1-element int64 tensor holding its
 *      length, then the fingerprint itself. A rank whose tensor differs from ours makes every
 *      rank raise RuntimeError "Detected mismatch between collectives on ranks. ..." (the first
 *      differing rank in rank order, its fingerprint deserialized from what it sent, so in the
 *      length round from the 1-element tensor: upstream's quirk of naming op type <length>);
 *   3. then the wrapped backend's collective.
 * So the helper's wire traffic is ordinary gloo (monitored barrier, all_gather), which our
 * ProcessGroupGloo already speaks byte for byte: mixed worlds check each other. */
#include "python/distributed.h"
#include "python/tensor.h"
#include "core/dtype.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PyTypeObject *Wrap_T;
static Py_ssize_t base_size;   /* Backend's instance size: our fields follow it */

typedef struct {
    PyObject *wrapped;   /* the backend wrapped (a Backend) */
    PyObject *helper;    /* the helper gloo backend */
} wrap_fields;
#define WF(o) ((wrap_fields *)((char *)(o) + base_size))

int tn_dist_pgwrap_is(PyObject *be) { return Wrap_T && PyObject_TypeCheck(be, Wrap_T); }

PyObject *tn_dist_pgwrap_unwrap(PyObject *be) {
    while (tn_dist_pgwrap_is(be) && WF(be)->wrapped) be = WF(be)->wrapped;
    return Py_NewRef(be);
}

/* ------------------------------------------------------------------ the fingerprint */

static const char *const op_names[] = {
    "BROADCAST", "ALLREDUCE", "ALLREDUCE_COALESCED", "REDUCE", "ALLGATHER", "_ALLGATHER_BASE",
    "ALLGATHER_COALESCED", "GATHER", "SCATTER", "REDUCE_SCATTER", "ALLTOALL_BASE", "ALLTOALL", "SEND", "RECV",
    "RECVANYSOURCE", "BARRIER", "_REDUCE_SCATTER_BASE", "COALESCED", "_ALLREDUCE_SPARSE",
    "REDUCE_SCATTER_TENSOR_COALESCED",
};
/* upstream's opTypeToString; any other value fails its internal assert (measured: a peer whose
 * fingerprint has 20 entries makes the length round name op type 20) */
static const char *op_name(int64_t op) {
    if (op >= 0 && op < (int64_t)(sizeof op_names / sizeof *op_names)) return op_names[op];
    if (op == TN_OPTYPE_UNKNOWN) return "UNKNOWN";
    PyErr_SetString(PyExc_RuntimeError, "false INTERNAL ASSERT FAILED at "
                    "\"/__w/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroup.cpp\":59, please report a bug "
                    "to PyTorch. Unknown op type!");
    return NULL;
}
/* c10 DeviceType, lower-case as a TensorOptions prints it: upstream formats each device type
 * through an implicit TensorOptions(DeviceType) (measured: "TensorOptions(dtype=float (default),
 * device=cpu, ...)") */
static const char *const dev_names[] = {"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga",
                                        "maia", "xla", "vulkan", "metal", "xpu", "mps", "meta", "hpu", "ve",
                                        "lazy", "ipu", "mtia", "privateuseone"};
#define DEV_CPU 0
#define DEV_META 14

typedef struct {
    int64_t op;
    uint64_t seq;
    int64_t n;
    int64_t *dtypes, *devs;   /* n each */
    int64_t *shape0;          /* the first tensor's sizes (the only ones printed) */
    int64_t ndim0;
    int64_t *raw;             /* the serialized form */
    Py_ssize_t len;
} fprint;

static void fp_free(fprint *f) {
    free(f->raw);
    free(f->dtypes);
    free(f->devs);
    memset(f, 0, sizeof *f);
}

/* the index error upstream's serialized_tensor[index] raises past the end */
static int fp_at(const int64_t *v, Py_ssize_t len, Py_ssize_t i, int64_t *out) {
    if (i >= len) {
        PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for dimension 0 with size %zd", i, len);
        return -1;
    }
    *out = v[i];
    return 0;
}

/* upstream's deserialize_fingerprint over v (borrowed into f->raw as a copy) */
static int fp_parse(const int64_t *v, Py_ssize_t len, fprint *f) {
    memset(f, 0, sizeof *f);
    f->raw = malloc(sizeof(int64_t) * (size_t)(len ? len : 1));
    if (!f->raw) return PyErr_NoMemory(), -1;
    memcpy(f->raw, v, sizeof(int64_t) * (size_t)len);
    f->len = len;
    Py_ssize_t i = 0;
    int64_t x;
    if (fp_at(v, len, i++, &x) < 0) return -1;
    f->op = (int32_t)x;   /* item<int>() */
    if (i >= len) return 0;
    if (fp_at(v, len, i++, &x) < 0) return -1;
    f->seq = (uint64_t)x;
    if (fp_at(v, len, i++, &x) < 0) return -1;
    int32_t n = (int32_t)x;
    f->n = n > 0 ? n : 0;
    if (f->n > len) return fp_at(v, len, len, &x);   /* it would index past the end */
    f->dtypes = malloc(sizeof(int64_t) * (size_t)(f->n + 1));
    f->devs = malloc(sizeof(int64_t) * (size_t)(f->n + 1));
    if (!f->dtypes || !f->devs) return PyErr_NoMemory(), -1;
    for (int64_t k = 0; k < f->n; k++) {
        if (fp_at(v, len, i++, &x) < 0) return -1;
        f->dtypes[k] = (int8_t)x;
    }
    for (int64_t k = 0; k < f->n; k++) {
        if (fp_at(v, len, i++, &x) < 0) return -1;
        f->devs[k] = (int8_t)x;
    }
    for (int64_t k = 0; k < f->n; k++) {
        if (fp_at(v, len, i++, &x) < 0) return -1;
        int32_t nd = (int32_t)x;
        if (k == 0) {
            f->ndim0 = nd > 0 ? nd : 0;
            f->shape0 = f->raw + i;
        }
        for (int32_t d = 0; d < nd; d++)
            if (fp_at(v, len, i++, &x) < 0) return -1;
    }
    return 0;
}

/* a growing string */
typedef struct { char *p; size_t n, cap; int oom; } sbuf;
static void sb_add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) { b->oom = 1; return; }
        if (b->p && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        size_t cap = (b->cap + (size_t)k + 64) * 2;
        char *q = realloc(b->p, cap);
        if (!q) { b->oom = 1; return; }
        b->p = q;
        b->cap = cap;
    }
}
static const char *dtype_name(int64_t d) {
    return d >= 0 && d < TN_DTYPE_COUNT ? tn_dtype_cpp_name((tn_dtype)d) : "UNKNOWN_SCALAR";
}
static void sb_dev(sbuf *b, int64_t d) {
    const char *n = d >= 0 && d < (int64_t)(sizeof dev_names / sizeof *dev_names) ? dev_names[d] : "unknown";
    sb_add(b, "TensorOptions(dtype=float (default), device=%s, layout=Strided (default), requires_grad=false "
              "(default), pinned_memory=false (default), memory_format=(nullopt))", n);
}
/* the lists the diff compares, printed as c10::str prints a vector<string>: space separated */
static void sb_list(sbuf *b, const fprint *f, int what) {
    int64_t n = what == 0 ? f->ndim0 : f->n;
    for (int64_t k = 0; k < n; k++) {
        if (k) sb_add(b, " ");
        if (what == 0) sb_add(b, "%lld", (long long)f->shape0[k]);
        else if (what == 1) sb_add(b, "%s", dtype_name(f->dtypes[k]));
        else sb_dev(b, f->devs[k]);
    }
}
/* upstream's operator<<(CollectiveFingerPrint) */
static int sb_fp(sbuf *b, const fprint *f) {
    const char *op = op_name(f->op);
    if (!op) return -1;
    if (f->n == 0) {
        sb_add(b, "CollectiveFingerPrint(SequenceNumber=%llu" "OpType=%s)", (unsigned long long)f->seq, op);
        return 0;
    }
    sb_add(b, "CollectiveFingerPrint(SequenceNumber=%llu, OpType=%s, TensorShape=[", (unsigned long long)f->seq, op);
    for (int64_t k = 0; k < f->ndim0; k++) sb_add(b, k ? ", %lld" : "%lld", (long long)f->shape0[k]);
    sb_add(b, "], TensorDtypes=");
    sb_list(b, f, 1);
    sb_add(b, ", TensorDeviceTypes=");
    sb_list(b, f, 2);
    sb_add(b, ")");
    return 0;
}
static int lists_differ(const fprint *a, const fprint *o, int what) {
    int64_t na = what == 0 ? a->ndim0 : a->n, no = what == 0 ? o->ndim0 : o->n;
    if (na != no) return 1;
    for (int64_t k = 0; k < na; k++) {
        if (what == 0 && a->shape0[k] != o->shape0[k]) return 1;
        if (what == 1 && strcmp(dtype_name(a->dtypes[k]), dtype_name(o->dtypes[k]))) return 1;
        if (what == 2 && a->devs[k] != o->devs[k]) return 1;
    }
    return 0;
}
/* the mismatch error: ours (`me`) against rank `r`'s (`other`) */
static void raise_mismatch(int rank, const fprint *me, int r, const fprint *other) {
    sbuf b = {0};
    sb_add(&b, "Detected mismatch between collectives on ranks. Rank %d is running collective: ", rank);
    if (sb_fp(&b, me) < 0) goto out;
    sb_add(&b, ", but Rank %d is running collective: ", r);
    if (sb_fp(&b, other) < 0) goto out;
    sb_add(&b, ".");
    /* compute_collective_diff, texts as upstream's (the doubled "Tensor" and missing spaces too) */
    size_t mark = b.n;
    sb_add(&b, "Collectives differ in the following aspects: ");
    int found = 0;
    if (other->seq != me->seq) {
        found = 1;
        sb_add(&b, "\t Sequence number: %llu" "vs %llu", (unsigned long long)me->seq, (unsigned long long)other->seq);
    }
    if (strcmp(op_name(me->op), op_name(other->op))) {   /* both valid: sb_fp printed them */
        found = 1;
        sb_add(&b, "  Op type: %s" "vs %s", op_name(me->op), op_name(other->op));
    }
    static const char *const what[] = {"Tensor shapes", "Tensor dtypes", "Tensor devices"};
    for (int w = 0; w < 3; w++) {
        if (!lists_differ(me, other, w)) continue;
        found = 1;
        sb_add(&b, "  Tensor %s: ", what[w]);
        sb_list(&b, me, w);
        sb_add(&b, "vs ");
        sb_list(&b, other, w);
    }
    if (!found && !b.oom) b.p[b.n = mark] = 0;
    if (b.oom) PyErr_NoMemory();
    else PyErr_SetString(PyExc_RuntimeError, b.p);
out:
    free(b.p);
}

/* ------------------------------------------------------------------ the checks */

static PyObject *torch_mod(void) { return PyImport_ImportModule("torch"); }

/* an int64 tensor of v[0..n) */
static PyObject *long_tensor(const int64_t *v, Py_ssize_t n) {
    PyObject *l = PyList_New(n);
    for (Py_ssize_t i = 0; l && i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (!x) Py_CLEAR(l);
        else PyList_SetItem(l, i, x);
    }
    PyObject *torch = l ? torch_mod() : NULL, *i64 = torch ? PyObject_GetAttrString(torch, "int64") : NULL;
    PyObject *fn = i64 ? PyObject_GetAttrString(torch, "tensor") : NULL;
    PyObject *a = fn ? PyTuple_Pack(1, l) : NULL, *k = a ? Py_BuildValue("{sO}", "dtype", i64) : NULL;
    PyObject *t = k ? PyObject_Call(fn, a, k) : NULL;
    Py_XDECREF(k);
    Py_XDECREF(a);
    Py_XDECREF(fn);
    Py_XDECREF(i64);
    Py_XDECREF(torch);
    Py_XDECREF(l);
    return t;
}

/* all-gather v (n int64) over the helper; *out: size*n values (malloc'd) */
static int gather_longs(PyObject *helper, int size, const int64_t *v, Py_ssize_t n, int64_t **out) {
    int rc = -1;
    PyObject *t = long_tensor(v, n), *outs = NULL, *outer = NULL, *ins = NULL, *w = NULL, *r = NULL;
    if (!t) return -1;
    if (!(outs = PyList_New(size))) goto done;
    for (int i = 0; i < size; i++) {
        PyObject *z = PyObject_CallMethod(t, "new_zeros", "(n)", n);
        if (!z) goto done;
        PyList_SetItem(outs, i, z);
    }
    if (!(outer = Py_BuildValue("[O]", outs)) || !(ins = Py_BuildValue("[O]", t))) goto done;
    if (!(w = PyObject_CallMethod(helper, "allgather", "OO", outer, ins))) goto done;
    if (!(r = PyObject_CallMethod(w, "wait", NULL))) goto done;
    int64_t *o = malloc(sizeof(int64_t) * (size_t)(size * n + 1));
    if (!o) { PyErr_NoMemory(); goto done; }
    for (int i = 0; i < size; i++) {
        PyObject *l = PyObject_CallMethod(PyList_GetItem(outs, i), "tolist", NULL);
        if (!l) { free(o); goto done; }
        for (Py_ssize_t k = 0; k < n; k++) o[i * n + k] = PyLong_AsLongLong(PyList_GetItem(l, k));
        Py_DECREF(l);
    }
    *out = o;
    rc = 0;
done:
    Py_XDECREF(r);
    Py_XDECREF(w);
    Py_XDECREF(ins);
    Py_XDECREF(outer);
    Py_XDECREF(outs);
    Py_XDECREF(t);
    return rc;
}

/* one verify_tensors round: all-gather v and compare; a differing rank raises the mismatch */
static int verify_round(PyObject *helper, int rank, int size, const int64_t *v, Py_ssize_t n, const fprint *me) {
    int64_t *all = NULL;
    if (gather_longs(helper, size, v, n, &all) < 0) return -1;
    int rc = 0;
    for (int r = 0; r < size && rc == 0; r++) {
        if (!memcmp(all + (size_t)r * n, v, sizeof(int64_t) * (size_t)n)) continue;
        fprint other;
        if (fp_parse(all + (size_t)r * n, n, &other) == 0) raise_mismatch(rank, me, r, &other);
        fp_free(&other);
        rc = -1;
    }
    free(all);
    return rc;
}

static int device_type_of(PyObject *t) {
    PyObject *m = PyObject_GetAttrString(t, "is_meta");
    int meta = m ? PyObject_IsTrue(m) : -1;
    Py_XDECREF(m);
    return meta < 0 ? -1 : meta ? DEV_META : DEV_CPU;
}

/* our fingerprint of (op, tensors) at sequence number seq, serialized as upstream's */
static int fp_make(int op, uint64_t seq, PyObject *tensors, fprint *f) {
    Py_ssize_t n = tensors ? PyList_Size(tensors) : 0, cap = 3 + 3 * n;
    int64_t *v = NULL;
    PyObject **shapes = calloc((size_t)n + 1, sizeof(PyObject *));
    if (!shapes) return PyErr_NoMemory(), -1;
    int rc = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GetItem(tensors, i);
        if (!t || !tn_py_is_tensor(t)) {
            PyErr_Format(PyExc_TypeError, "expected a Tensor, got %s", t ? tn_py_type_name(t) : "nothing");
            goto done;
        }
        if (!(shapes[i] = PyObject_GetAttrString(t, "shape"))) goto done;
        PyObject *tup = PySequence_Tuple(shapes[i]);
        if (!tup) goto done;
        Py_DECREF(shapes[i]);
        shapes[i] = tup;
        cap += PyTuple_Size(tup);
    }
    if (!(v = malloc(sizeof(int64_t) * (size_t)cap))) { PyErr_NoMemory(); goto done; }
    Py_ssize_t k = 0;
    v[k++] = op;
    v[k++] = (int64_t)seq;
    v[k++] = n;
    for (Py_ssize_t i = 0; i < n; i++) v[k++] = (int8_t)tn_tensor_of(PyList_GetItem(tensors, i))->dtype;
    for (Py_ssize_t i = 0; i < n; i++) {
        int d = device_type_of(PyList_GetItem(tensors, i));
        if (d < 0) goto done;
        v[k++] = d;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t nd = PyTuple_Size(shapes[i]);
        v[k++] = nd;
        for (Py_ssize_t d = 0; d < nd; d++) {
            v[k++] = PyLong_AsLongLong(PyTuple_GetItem(shapes[i], d));
            if (PyErr_Occurred()) goto done;
        }
    }
    rc = fp_parse(v, k, f);
done:
    for (Py_ssize_t i = 0; i < n; i++) Py_XDECREF(shapes[i]);
    free(shapes);
    free(v);
    return rc;
}

int tn_dist_pgwrap_check(PyObject *self, int op, PyObject *tensors) {
    wrap_fields *wf = WF(self);
    PyObject *s = PyObject_CallMethod(wf->wrapped, "_get_sequence_number_for_group", NULL);
    if (!s) return -1;
    uint64_t seq = (uint64_t)PyLong_AsUnsignedLongLongMask(s);
    Py_DECREF(s);
    PyObject *r = PyObject_CallMethod(self, "rank", NULL), *z = r ? PyObject_CallMethod(self, "size", NULL) : NULL;
    int rank = r ? (int)PyLong_AsLong(r) : -1, size = z ? (int)PyLong_AsLong(z) : -1;
    Py_XDECREF(r);
    Py_XDECREF(z);
    if (PyErr_Occurred()) return -1;
    fprint me;
    if (fp_make(op, seq, tensors, &me) < 0) return -1;
    int rc = tn_dist_gloo_monitored_barrier(wf->helper, 0, 1);
    if (rc == -2) {
        /* upstream attaches the collective to the transport's own errors (std::runtime_error)
         * only; the barrier's own errors pass unchanged (measured on ranks 0 and 1) */
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        PyObject *msg = ev ? PyObject_Str(ev) : NULL;
        sbuf b = {0};
        if (msg && sb_fp(&b, &me) == 0 && !b.oom) {
            PyErr_Format(PyExc_RuntimeError,
                         "ProcessGroupWrapper: Monitored Barrier encountered error running collective: %s. Error: \n%U",
                         b.p, msg);
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(etb);
        } else {
            PyErr_Restore(et, ev, etb);
        }
        free(b.p);
        Py_XDECREF(msg);
    }
    if (rc == 0) {
        /* the length round (getTensorShapes of the 1-D fingerprint), then the fingerprint */
        int64_t len = (int64_t)me.len;
        rc = verify_round(wf->helper, rank, size, &len, 1, &me);
        if (rc == 0) rc = verify_round(wf->helper, rank, size, me.raw, me.len, &me);
    }
    fp_free(&me);
    return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ the type */

static PyObject *wrapped_of(PyObject *self) {
    PyObject *w = WF(self)->wrapped;
    if (!w) PyErr_SetString(PyExc_RuntimeError, "_ProcessGroupWrapper: not initialized");
    return w;
}

/* which tensors a collective's fingerprint holds (upstream's wrapper, collective by collective) */
enum { SEL_NONE, SEL_ARG0, SEL_ARG1, SEL_AG, SEL_RS, SEL_BASE_IN, SEL_RS_BASE };

static PyObject *arg_at(PyObject *args, PyObject *kw, Py_ssize_t i, const char *name) {
    if (PyTuple_Size(args) > i) return PyTuple_GetItem(args, i);
    PyObject *v = kw && name ? PyDict_GetItemString(kw, name) : NULL;
    return v;
}
static PyObject *as_tensor_list(PyObject *o) {
    if (!o) return NULL;
    if (tn_py_is_tensor(o)) return Py_BuildValue("[O]", o);
    return PySequence_List(o);
}
/* check_same_size of the last list in `lists` */
static int last_same_size(PyObject *lists) {
    PyObject *l = lists ? PySequence_List(lists) : NULL;
    if (!l) return -1;
    Py_ssize_t n = PyList_Size(l);
    if (n == 0) { Py_DECREF(l); return 1; }
    PyObject *last = PySequence_List(PyList_GetItem(l, n - 1));
    Py_DECREF(l);
    if (!last) return -1;
    int same = 1;
    PyObject *s0 = NULL;
    for (Py_ssize_t i = 0; same == 1 && i < PyList_Size(last); i++) {
        PyObject *s = PyObject_GetAttrString(PyList_GetItem(last, i), "shape");
        if (!s) { same = -1; break; }
        if (!s0) s0 = Py_NewRef(s);
        else same = PyObject_RichCompareBool(s0, s, Py_EQ);
        Py_DECREF(s);
    }
    Py_XDECREF(s0);
    Py_DECREF(last);
    return same;
}

static PyObject *run_checked(PyObject *self, PyObject *args, PyObject *kw, const char *name, int op, int sel,
                             const char *n0, const char *n1) {
    PyObject *wrapped = wrapped_of(self);
    if (!wrapped) return NULL;
    if (op >= 0) {
        PyObject *tensors = NULL;
        PyObject *a0 = arg_at(args, kw, 0, n0), *a1 = arg_at(args, kw, 1, n1);
        int same;
        switch (sel) {
        case SEL_ARG0: tensors = as_tensor_list(a0); break;
        case SEL_ARG1: tensors = as_tensor_list(a1); break;
        case SEL_AG:   /* the inputs when the last output list is of one size */
            if ((same = last_same_size(a0)) < 0) return NULL;
            tensors = same ? as_tensor_list(a1) : PyList_New(0);
            break;
        case SEL_RS:   /* the outputs when the last input list is of one size */
            if ((same = last_same_size(a1)) < 0) return NULL;
            tensors = same ? as_tensor_list(a0) : PyList_New(0);
            break;
        case SEL_BASE_IN: tensors = a1 ? Py_BuildValue("[O]", a1) : NULL; break;
        case SEL_RS_BASE: tensors = a0 && a1 ? Py_BuildValue("[OO]", a1, a0) : NULL; break;
        default: tensors = PyList_New(0);
        }
        if (!tensors) {
            if (!PyErr_Occurred())   /* a missing argument: the wrapped backend's own error */
                goto call;
            return NULL;
        }
        int rc = tn_dist_pgwrap_check(self, op, tensors);
        Py_DECREF(tensors);
        if (rc < 0) return NULL;
    }
call:;
    PyObject *m = PyObject_GetAttrString(wrapped, name);
    if (!m) return NULL;
    PyObject *r = PyObject_Call(m, args, kw);
    Py_DECREF(m);
    return r;
}

#define CHECKED(fn, name, op, sel, n0, n1) \
    static PyObject *fn(PyObject *s, PyObject *a, PyObject *k) { return run_checked(s, a, k, name, op, sel, n0, n1); }
CHECKED(w_broadcast, "broadcast", TN_OPTYPE_BROADCAST, SEL_ARG0, "tensors", NULL)
CHECKED(w_allreduce, "allreduce", TN_OPTYPE_ALLREDUCE, SEL_ARG0, "tensors", NULL)
CHECKED(w_allreduce_coalesced, "allreduce_coalesced", TN_OPTYPE_ALLREDUCE_COALESCED, SEL_NONE, NULL, NULL)
CHECKED(w_reduce, "reduce", TN_OPTYPE_REDUCE, SEL_ARG0, "tensors", NULL)
CHECKED(w_allgather, "allgather", TN_OPTYPE_ALLGATHER, SEL_AG, "output_tensors", "input_tensors")
CHECKED(w_allgather_base, "_allgather_base", TN_OPTYPE__ALLGATHER_BASE, SEL_BASE_IN, "output", "input")
CHECKED(w_allgather_coalesced, "allgather_coalesced", TN_OPTYPE_ALLGATHER_COALESCED, SEL_NONE, NULL, NULL)
CHECKED(w_gather, "gather", TN_OPTYPE_GATHER, SEL_ARG1, "output_tensors", "input_tensors")
CHECKED(w_scatter, "scatter", TN_OPTYPE_SCATTER, SEL_ARG0, "output_tensors", "input_tensors")
CHECKED(w_reduce_scatter, "reduce_scatter", TN_OPTYPE_REDUCE_SCATTER, SEL_RS, "output_tensors", "input_tensors")
CHECKED(w_reduce_scatter_base, "_reduce_scatter_base", TN_OPTYPE__REDUCE_SCATTER_BASE, SEL_RS_BASE, "outputTensor",
        "inputTensor")
CHECKED(w_alltoall_base, "alltoall_base", TN_OPTYPE_ALLTOALL_BASE, SEL_NONE, NULL, NULL)
CHECKED(w_alltoall, "alltoall", TN_OPTYPE_ALLTOALL, SEL_NONE, NULL, NULL)
CHECKED(w_barrier, "barrier", TN_OPTYPE_BARRIER, SEL_NONE, NULL, NULL)
/* forwarded unchecked, as upstream's */
CHECKED(w_send, "send", -1, SEL_NONE, NULL, NULL)
CHECKED(w_recv, "recv", -1, SEL_NONE, NULL, NULL)
CHECKED(w_recv_any, "recv_anysource", -1, SEL_NONE, NULL, NULL)
CHECKED(w_start_coalescing, "_start_coalescing", -1, SEL_NONE, NULL, NULL)
CHECKED(w_end_coalescing, "_end_coalescing", -1, SEL_NONE, NULL, NULL)
CHECKED(w_set_timeout, "set_timeout", -1, SEL_NONE, NULL, NULL)
CHECKED(w_set_default_timeout, "_set_default_timeout", -1, SEL_NONE, NULL, NULL)
CHECKED(w_eager_connect, "eager_connect_single_device", -1, SEL_NONE, NULL, NULL)
CHECKED(w_name, "name", -1, SEL_NONE, NULL, NULL)
CHECKED(w_backend_name, "_get_backend_name", -1, SEL_NONE, NULL, NULL)
CHECKED(w_get_seq, "_get_sequence_number_for_group", -1, SEL_NONE, NULL, NULL)

/* _set_sequence_number_for_group: the wrapped backend's, when it is still 0 */
static PyObject *w_set_seq(PyObject *self, PyObject *a, PyObject *k) {
    PyObject *wrapped = wrapped_of(self);
    if (!wrapped) return NULL;
    PyObject *s = PyObject_CallMethod(wrapped, "_get_sequence_number_for_group", NULL);
    if (!s) return NULL;
    int zero = PyLong_AsLongLong(s) == 0;
    Py_DECREF(s);
    if (zero) return PyObject_CallMethod(wrapped, "_set_sequence_number_for_group", NULL);
    Py_RETURN_NONE;
}
/* shutdown / abort: the wrapped backend's and the helper's */
static PyObject *w_shutdown(PyObject *self, PyObject *a, PyObject *k) {
    wrap_fields *wf = WF(self);
    for (int i = 0; i < 2; i++) {
        PyObject *b = i ? wf->helper : wf->wrapped;
        if (!b) continue;
        PyObject *r = PyObject_CallMethod(b, "shutdown", NULL);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}
/* get_error: upstream's Backend default for a gloo backend (measured) */
static PyObject *w_get_error(PyObject *self, PyObject *u) {
    PyObject *wrapped = wrapped_of(self);
    PyObject *n = wrapped ? PyObject_CallMethod(wrapped, "name", NULL) : NULL;
    if (n) PyErr_Format(PyExc_RuntimeError, "Backend %U does not support getError", n);
    Py_XDECREF(n);
    return NULL;
}

static PyObject *w_wrapped_pg(PyObject *self, void *u) {
    PyObject *w = wrapped_of(self);
    return w ? Py_NewRef(w) : NULL;
}
static PyObject *w_attr(PyObject *self, void *name) {
    PyObject *w = wrapped_of(self);
    return w ? PyObject_GetAttrString(w, (const char *)name) : NULL;
}

static int w_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(WF(self)->wrapped);
    Py_VISIT(WF(self)->helper);
    traverseproc base = (traverseproc)PyType_GetSlot(tn_dist_backend_type(), Py_tp_traverse);
    return base ? base(self, visit, arg) : 0;
}
static int w_clear(PyObject *self) {
    Py_CLEAR(WF(self)->wrapped);
    Py_CLEAR(WF(self)->helper);
    inquiry base = (inquiry)PyType_GetSlot(tn_dist_backend_type(), Py_tp_clear);
    return base ? base(self) : 0;
}
static void w_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(WF(self)->wrapped);
    Py_CLEAR(WF(self)->helper);
    destructor base = (destructor)PyType_GetSlot(tn_dist_backend_type(), Py_tp_dealloc);
    base(self);   /* Backend's: clears its own, frees, drops the type */
}

/* _ProcessGroupWrapper(backend: Backend, gloo_backend: Backend) */
static int w_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"backend", "gloo_backend", NULL};
    PyObject *be = NULL, *gl = NULL;
    PyTypeObject *B = tn_dist_backend_type();
    int ok = PyArg_ParseTupleAndKeywords(args, kw, "|OO", kws, &be, &gl) && be && gl && PyObject_TypeCheck(be, B) &&
             PyObject_TypeCheck(gl, B);
    if (!ok) {   /* pybind11's overload error, as upstream's */
        PyErr_Clear();
        PyObject *parts = PyList_New(0), *sep = PyUnicode_FromString(", ");
        for (Py_ssize_t i = 0; parts && i < PyTuple_Size(args); i++) {
            PyObject *r = PyObject_Repr(PyTuple_GetItem(args, i));
            if (!r || PyList_Append(parts, r) < 0) Py_CLEAR(parts);
            Py_XDECREF(r);
        }
        if (parts && kw) {
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            while (parts && PyDict_Next(kw, &pos, &k, &v)) {
                PyObject *r = PyUnicode_FromFormat("kwargs: %U=%R", k, v);
                if (!r || PyList_Append(parts, r) < 0) Py_CLEAR(parts);
                Py_XDECREF(r);
            }
        }
        PyObject *j = parts && sep ? PyUnicode_Join(sep, parts) : NULL;
        if (j)
            PyErr_Format(PyExc_TypeError,
                         "__init__(): incompatible constructor arguments. The following argument types are supported:\n"
                         "    1. torch._C._distributed_c10d._ProcessGroupWrapper(backend: "
                         "torch._C._distributed_c10d.Backend, gloo_backend: torch._C._distributed_c10d.Backend)\n\n"
                         "Invoked with: %U", j);
        Py_XDECREF(j);
        Py_XDECREF(parts);
        Py_XDECREF(sep);
        return -1;
    }
    PyObject *r = PyObject_CallMethod(be, "rank", NULL), *z = r ? PyObject_CallMethod(be, "size", NULL) : NULL;
    PyObject *bargs = z ? PyTuple_Pack(2, r, z) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(z);
    initproc base = (initproc)PyType_GetSlot(B, Py_tp_init);
    if (!bargs || base(self, bargs, NULL) < 0) { Py_XDECREF(bargs); return -1; }
    Py_DECREF(bargs);
    Py_CLEAR(WF(self)->wrapped);
    Py_CLEAR(WF(self)->helper);
    WF(self)->wrapped = Py_NewRef(be);
    WF(self)->helper = Py_NewRef(gl);
    PyObject *s = PyObject_CallMethod(be, "_set_sequence_number_for_group", NULL);   /* as upstream's constructor */
    if (!s) return -1;
    Py_DECREF(s);
    return 0;
}

#define KW METH_VARARGS | METH_KEYWORDS
#define F(f) (PyCFunction)(void (*)(void))(f)
static PyMethodDef w_methods[] = {
    {"broadcast", F(w_broadcast), KW, NULL},
    {"allreduce", F(w_allreduce), KW, NULL},
    {"allreduce_coalesced", F(w_allreduce_coalesced), KW, NULL},
    {"reduce", F(w_reduce), KW, NULL},
    {"allgather", F(w_allgather), KW, NULL},
    {"_allgather_base", F(w_allgather_base), KW, NULL},
    {"allgather_coalesced", F(w_allgather_coalesced), KW, NULL},
    {"gather", F(w_gather), KW, NULL},
    {"scatter", F(w_scatter), KW, NULL},
    {"reduce_scatter", F(w_reduce_scatter), KW, NULL},
    {"_reduce_scatter_base", F(w_reduce_scatter_base), KW, NULL},
    {"alltoall_base", F(w_alltoall_base), KW, NULL},
    {"alltoall", F(w_alltoall), KW, NULL},
    {"barrier", F(w_barrier), KW, NULL},
    {"send", F(w_send), KW, NULL},
    {"recv", F(w_recv), KW, NULL},
    {"recv_anysource", F(w_recv_any), KW, NULL},
    {"_start_coalescing", F(w_start_coalescing), KW, NULL},
    {"_end_coalescing", F(w_end_coalescing), KW, NULL},
    {"set_timeout", F(w_set_timeout), KW, NULL},
    {"_set_default_timeout", F(w_set_default_timeout), KW, NULL},
    {"eager_connect_single_device", F(w_eager_connect), KW, NULL},
    {"name", F(w_name), KW, NULL},
    {"_get_backend_name", F(w_backend_name), KW, NULL},
    {"_get_sequence_number_for_group", F(w_get_seq), KW, NULL},
    {"_set_sequence_number_for_group", F(w_set_seq), KW, NULL},
    {"shutdown", F(w_shutdown), KW, NULL},
    {"abort", F(w_shutdown), KW, NULL},
    {"get_error", w_get_error, METH_NOARGS, NULL},
    {NULL},
};
static PyGetSetDef w_getset[] = {
    {"wrapped_pg", w_wrapped_pg, NULL, NULL, NULL},
    {"options", w_attr, NULL, NULL, "options"},
    {"supports_splitting", w_attr, NULL, NULL, "supports_splitting"},
    {"supports_coalescing", w_attr, NULL, NULL, "supports_coalescing"},
    {"supports_time_estimate", w_attr, NULL, NULL, "supports_time_estimate"},
    {NULL},
};
static PyType_Slot w_slots[] = {
    {Py_tp_init, w_init}, {Py_tp_methods, w_methods}, {Py_tp_getset, w_getset}, {Py_tp_traverse, w_traverse},
    {Py_tp_clear, w_clear}, {Py_tp_dealloc, w_dealloc}, {0, NULL}};

int tn_dist_pgwrap_types_init(PyObject *c10d) {
    base_size = tn_dist_backend_size();
    PyType_Spec spec = {"torch._C._distributed_c10d._ProcessGroupWrapper", (int)(base_size + sizeof(wrap_fields)), 0,
                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, w_slots};
    PyObject *bases = PyTuple_Pack(1, (PyObject *)tn_dist_backend_type());
    PyObject *t = bases ? PyType_FromSpecWithBases(&spec, bases) : NULL;
    Py_XDECREF(bases);
    if (!t || tn_dist_set_meta(t, 0) < 0) { Py_XDECREF(t); return -1; }
    Wrap_T = (PyTypeObject *)t;
    Py_INCREF(t);
    if (PyModule_AddObject(c10d, "_ProcessGroupWrapper", t) < 0) { Py_DECREF(t); return -1; }
    return 0;
}
