/* dist_ddp.c — what torch.nn.parallel.DistributedDataParallel needs from
 * torch._C._distributed_c10d: Reducer, Logger, GradBucket, _compute_bucket_assignment_by_size,
 * _broadcast_coalesced, _verify_params_across_processes, _register_comm_hook,
 * _register_builtin_comm_hook.
 *
 * The Reducer follows upstream's reducer.cpp step for step so that a world mixing our ranks and
 * upstream ranks issues the same collectives in the same order with the same sizes (the gloo
 * tag sequence must agree) and computes the same bytes:
 *  - buckets: flat `gradients` tensors (torch.empty of the summed numel, the params' dtype), one
 *    view per param (as_strided with the param's strides when it is non-overlapping and dense,
 *    else narrow(0, offset, n).view(sizes)); views_out = views_in until a comm hook returns a
 *    new tensor.
 *  - a post hook on every param's AccumulateGrad node (autograd/node.c's post_hooks, run after
 *    the gradient is accumulated, as upstream's LambdaPostHook) calls autograd_hook(index).
 *  - autograd_hook -> mark_variable_ready: without a comm hook the gradient goes into its view
 *    as torch.mul(grad, 1/world_size, out=view) (upstream's mul_out with a wrapped double scalar:
 *    division BEFORE the all_reduce); with a comm hook copied unchanged (the hook divides).
 *  - a bucket whose gradients are all ready is all-reduced when every earlier bucket was
 *    (buckets go out in index order); after the last one, with find_unused_parameters, the int32
 *    local_used_map is all-reduced too, and finalize_backward is queued on the engine.
 *  - a sparse-gradient param has a bucket of its own without a flat buffer: its sparse .grad is
 *    the bucket's gradient (divided in place without a comm hook), all-reduced by the sparse
 *    all_reduce, the result copied back into it. batched_grad_copy defers the copies to the
 *    bucket's last ready param, then divides the flat bucket once.
 *  - finalize_backward: waits each bucket's future, rebuilds views_out on the result, copies
 *    them into .grad (or points .grad at the view with gradient_as_bucket_view); globally unused
 *    params keep their .grad untouched.
 *  - _rebuild_buckets (before the 2nd forward when find_unused_parameters is False or the graph
 *    is static): buckets recomputed in gradient-ready order with [first_bucket_bytes_cap,
 *    bucket_bytes_cap] (or bucket_bytes_cap_list), then rank 0's assignment is broadcast as
 *    upstream's sync_bucket_indices does (int32 [indices..., num_buckets], then bucket sizes).
 * Collectives run synchronously (dist_pg.c); the futures are already complete when stored. */
#include "python/common.h"
#include "python/distributed.h"
#include "python/tensor.h"
#include "autograd/autograd.h"

#include <stdlib.h>
#include <string.h>
#define CALL1(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#include <time.h>

PyObject *tn_future_new(void);
int tn_future_check(PyObject *o);
int tn_future_set_result(PyObject *f, PyObject *value);

static PyObject *c10d, *torch_mod;
static PyTypeObject *Reducer_T, *Logger_T, *GradBucket_T, *LogData_T;

static PyObject *torch_attr(const char *name) {
    if (!torch_mod && !(torch_mod = PyImport_ImportModule("torch"))) return NULL;
    return PyObject_GetAttrString(torch_mod, name);
}
/* call obj.name(*args) dropping the result; -1 on error */
static int callv(PyObject *o, const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = fmt ? Py_VaBuildValue(fmt, ap) : PyTuple_New(0);
    va_end(ap);
    if (!args) return -1;
    if (!PyTuple_Check(args)) Py_SETREF(args, PyTuple_Pack(1, args));
    PyObject *m = args ? PyObject_GetAttrString(o, name) : NULL;
    PyObject *r = m ? PyObject_Call(m, args, NULL) : NULL;
    Py_XDECREF(m);
    Py_XDECREF(args);
    if (!r) return -1;
    Py_DECREF(r);
    return 0;
}
static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static int64_t t_numel(PyObject *t) {
    tn_tensor *x = tn_tensor_of(t);
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++) n *= x->sizes[d];
    return n;
}
static tn_storage *root_storage(tn_storage *s) { return s && s->alias_of ? s->alias_of : s; }
static bool is_alias_of(PyObject *a, PyObject *b) {
    return root_storage(tn_tensor_of(a)->storage) == root_storage(tn_tensor_of(b)->storage);
}
/* upstream's is_non_overlapping_and_dense */
static bool dense_layout(PyObject *t) {
    tn_tensor *x = tn_tensor_of(t);
    int n = x->ndim, perm[16];
    if (n > 16) return tn_is_contiguous(x);
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = 1; i < n; i++)   /* insertion sort by stride, size-1 dims first among equal */
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool swap = x->sizes[a] >= 2 && x->sizes[b] >= 2 ? x->strides[a] > x->strides[b] : x->sizes[a] >= 2 && x->sizes[b] < 2;
            if (!swap) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        int d = perm[i];
        if (x->sizes[d] == 1) continue;
        if (x->strides[d] != expect) return false;
        expect *= x->sizes[d];
    }
    return true;
}
static PyObject *sizes_of(PyObject *t) { return PyObject_CallMethod(t, "size", NULL); }
static PyObject *strides_of(PyObject *t) { return PyObject_CallMethod(t, "stride", NULL); }

/* the view of flat[offset:offset+n] shaped like param v (upstream's initialize_bucket_views) */
static PyObject *bucket_view(PyObject *flat, PyObject *v, int64_t offset, int64_t length) {
    PyObject *sz = sizes_of(v);
    if (!sz) return NULL;
    PyObject *r;
    if (dense_layout(v)) {
        PyObject *st = strides_of(v);
        r = st ? PyObject_CallMethod(flat, "as_strided", "OOL", sz, st, (long long)offset) : NULL;
        Py_XDECREF(st);
    } else {
        PyObject *nw = PyObject_CallMethod(flat, "narrow", "iLL", 0, (long long)offset, (long long)length);
        r = nw ? PyObject_CallMethod(nw, "view", "O", sz) : NULL;
        Py_XDECREF(nw);
    }
    Py_DECREF(sz);
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * _compute_bucket_assignment_by_size */

typedef struct {
    int *idx;
    int n;
    int64_t limit;
} bucket_out;

typedef struct {
    bucket_out *b;
    int n, cap;
} bucket_list;

static void blist_free(bucket_list *l) {
    for (int i = 0; i < l->n; i++) free(l->b[i].idx);
    free(l->b);
    l->b = NULL;
    l->n = l->cap = 0;
}
static int blist_push(bucket_list *l, int *idx, int n, int64_t limit) {
    if (l->n == l->cap) {
        int nc = l->cap ? l->cap * 2 : 8;
        bucket_out *nb = realloc(l->b, (size_t)nc * sizeof *nb);
        if (!nb) { PyErr_NoMemory(); return -1; }
        l->b = nb;
        l->cap = nc;
    }
    l->b[l->n++] = (bucket_out){idx, n, limit};
    return 0;
}
static int cmp_min(const void *a, const void *b) {
    const bucket_out *x = a, *y = b;
    int mx = x->idx[0], my = y->idx[0];
    for (int i = 1; i < x->n; i++) if (x->idx[i] < mx) mx = x->idx[i];
    for (int i = 1; i < y->n; i++) if (y->idx[i] < my) my = y->idx[i];
    return (mx > my) - (mx < my);
}

/* upstream's compute_bucket_assignment_by_size: per (dtype, device) key an accumulator that is
 * emitted when its byte size reaches the key's current limit (then the next limit applies); a
 * param expecting a sparse gradient gets its own bucket; the leftovers are appended in the
 * order libstdc++'s unordered_map iterates them (the most recently created key first); without
 * tensor_indices the buckets are sorted by their smallest index. */
static int assign_buckets(PyObject *tensors, const int64_t *limits, int nlim, const char *sparse,
                          const int *tindices, bucket_list *out) {
    Py_ssize_t n = PyList_Size(tensors);
    typedef struct { int dtype; PyObject *dev; int *idx; int n; int64_t size, limit; int lim_i; } acc;
    acc *keys = calloc((size_t)n + 1, sizeof *keys);
    int nkeys = 0, rc = -1;
    if (!keys) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyList_GetItem(tensors, i);
        if (!tn_py_is_tensor(t)) {
            PyErr_Format(PyExc_TypeError, "_compute_bucket_assignment_by_size(): expected tensors, got %s", tn_py_type_name(t));
            goto done;
        }
        int index = tindices ? tindices[i] : (int)i;
        if (sparse && sparse[index]) {
            int *one = malloc(sizeof(int));
            if (!one) { PyErr_NoMemory(); goto done; }
            one[0] = index;
            if (blist_push(out, one, 1, 0) < 0)   /* upstream's kNoSizeLimit prints as 0 */ { free(one); goto done; }
            continue;
        }
        tn_tensor *x = tn_tensor_of(t);
        PyObject *dev = PyObject_GetAttrString(t, "device");
        if (!dev) goto done;
        int k;
        for (k = 0; k < nkeys; k++) {
            int eq = keys[k].dtype == (int)x->dtype ? PyObject_RichCompareBool(keys[k].dev, dev, Py_EQ) : 0;
            if (eq < 0) { Py_DECREF(dev); goto done; }
            if (eq) break;
        }
        if (k == nkeys) {
            keys[k].dtype = (int)x->dtype;
            keys[k].dev = Py_NewRef(dev);
            keys[k].lim_i = 0;
            nkeys++;
        }
        Py_DECREF(dev);
        acc *a = &keys[k];
        if (!a->idx && !(a->idx = malloc((size_t)n * sizeof(int)))) { PyErr_NoMemory(); goto done; }
        a->idx[a->n++] = index;
        a->size += t_numel(t) * (int64_t)tn_dtype_itemsize(x->dtype);
        a->limit = limits[a->lim_i];
        if (a->size >= a->limit) {
            if (blist_push(out, a->idx, a->n, a->limit) < 0) goto done;
            a->idx = NULL;
            a->n = 0;
            a->size = 0;
            if (a->lim_i + 1 < nlim) a->lim_i++;
        }
    }
    for (int k = nkeys - 1; k >= 0; k--) {
        if (keys[k].n == 0) continue;
        if (blist_push(out, keys[k].idx, keys[k].n, keys[k].limit) < 0) goto done;
        keys[k].idx = NULL;
    }
    if (!tindices && out->n > 1) qsort(out->b, (size_t)out->n, sizeof *out->b, cmp_min);
    rc = 0;
done:
    for (int k = 0; k < nkeys; k++) { free(keys[k].idx); Py_XDECREF(keys[k].dev); }
    free(keys);
    return rc;
}

static int64_t *long_array(PyObject *seq, int *n, const char *what) {
    Py_ssize_t m = PySequence_Check(seq) ? PySequence_Size(seq) : -1;
    if (m < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, what);
        return NULL;
    }
    int64_t *a = malloc((size_t)(m ? m : 1) * sizeof *a);
    if (!a) { PyErr_NoMemory(); return NULL; }
    for (Py_ssize_t i = 0; i < m; i++) {
        PyObject *x = PySequence_GetItem(seq, i);
        a[i] = x ? PyLong_AsLongLong(x) : -1;
        Py_XDECREF(x);
        if (a[i] == -1 && PyErr_Occurred()) { free(a); return NULL; }
    }
    *n = (int)m;
    return a;
}

static PyObject *blist_to_py(bucket_list *l) {
    PyObject *idx = PyList_New(l->n), *lim = PyList_New(l->n);
    if (!idx || !lim) goto fail;
    for (int i = 0; i < l->n; i++) {
        PyObject *b = PyList_New(l->b[i].n);
        if (!b) goto fail;
        PyList_SetItem(idx, i, b);
        for (int j = 0; j < l->b[i].n; j++) PyList_SetItem(b, j, PyLong_FromLong(l->b[i].idx[j]));
        PyList_SetItem(lim, i, PyLong_FromUnsignedLongLong((unsigned long long)l->b[i].limit));
    }
    return Py_BuildValue("(NN)", idx, lim);
fail:
    Py_XDECREF(idx);
    Py_XDECREF(lim);
    return NULL;
}

static PyObject *compute_bucket_assignment(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensors", "bucket_size", "expect_sparse_gradient", "tensor_indices", "logger", NULL};
    PyObject *tensors, *sizes, *sparse = NULL, *tind = NULL, *logger = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOO:_compute_bucket_assignment_by_size", kws, &tensors, &sizes,
                                     &sparse, &tind, &logger))
        return NULL;
    PyObject *tl = PySequence_List(tensors);
    if (!tl) return NULL;
    int nlim = 0, nsp = 0, nti = 0;
    int64_t *lim = long_array(sizes, &nlim, "bucket_size must be a sequence");
    int64_t *sp = lim && sparse ? long_array(sparse, &nsp, "expect_sparse_gradient must be a sequence") : NULL;
    int64_t *ti = lim && tind ? long_array(tind, &nti, "tensor_indices must be a sequence") : NULL;
    PyObject *res = NULL;
    char *spc = NULL;
    int *tii = NULL;
    bucket_list bl = {0};
    if (!lim || PyErr_Occurred()) goto done;
    if (nlim == 0) {
        PyErr_SetString(PyExc_ValueError, "_compute_bucket_assignment_by_size(): bucket_size needs at least one size limit");
        goto done;
    }
    Py_ssize_t n = PyList_Size(tl);
    if (n == 0) {   /* upstream: an internal assert */
        PyErr_SetString(PyExc_RuntimeError, "!tensors.empty() INTERNAL ASSERT FAILED: _compute_bucket_assignment_by_size() needs at least one tensor");
        goto done;
    }
    if (nti && nti != n) {
        PyErr_SetString(PyExc_ValueError, "_compute_bucket_assignment_by_size(): tensor_indices must have one index per tensor");
        goto done;
    }
    int maxidx = (int)n;
    for (int i = 0; i < nti; i++) {
        if (ti[i] < 0 || ti[i] > 1 << 30) { PyErr_SetString(PyExc_IndexError, "tensor index out of range"); goto done; }
        if (ti[i] + 1 > maxidx) maxidx = (int)ti[i] + 1;
    }
    if (nsp) {
        if (nsp < maxidx) {
            PyErr_SetString(PyExc_IndexError, "_compute_bucket_assignment_by_size(): expect_sparse_gradient is shorter than the tensors");
            goto done;
        }
        spc = calloc((size_t)nsp, 1);
        if (!spc) { PyErr_NoMemory(); goto done; }
        for (int i = 0; i < nsp; i++) spc[i] = sp[i] != 0;
    }
    if (nti > 0) {
        tii = malloc((size_t)(unsigned)nti * sizeof *tii);
        if (!tii) { PyErr_NoMemory(); goto done; }
        for (int i = 0; i < nti; i++) tii[i] = (int)ti[i];
    }
    if (assign_buckets(tl, lim, nlim, spc, tii, &bl) < 0) goto done;
    res = blist_to_py(&bl);
done:
    blist_free(&bl);
    free(lim); free(sp); free(ti); free(spc); free(tii);
    Py_DECREF(tl);
    return res;
}

/* ---------------------------------------------------------------------------------------------
 * collectives through the ProcessGroup's Python surface */

static PyObject *pg_allreduce(PyObject *pg, PyObject *t) {   /* -> Work */
    return PyObject_CallMethod(pg, "allreduce", "[O]", t);
}
static int pg_broadcast_wait(PyObject *pg, PyObject *t, long root) {
    PyObject *BO = PyObject_GetAttrString(c10d, "BroadcastOptions");
    PyObject *o = BO ? PyObject_CallNoArgs(BO) : NULL;
    Py_XDECREF(BO);
    if (!o) return -1;
    PyObject *r = PyLong_FromLong(root);
    int rc = r ? PyObject_SetAttrString(o, "rootRank", r) : -1;
    Py_XDECREF(r);
    PyObject *w = rc == 0 ? PyObject_CallMethod(pg, "broadcast", "[O]O", t, o) : NULL;
    Py_DECREF(o);
    if (!w) return -1;
    rc = callv(w, "wait", NULL);
    Py_DECREF(w);
    return rc;
}
static long pg_int(PyObject *pg, const char *name) {
    PyObject *r = PyObject_CallMethod(pg, name, NULL);
    long v = r ? PyLong_AsLong(r) : -1;
    Py_XDECREF(r);
    return v;
}

/* flatten / unflatten as torch.utils' flatten_dense_tensors: cat of reshape(-1) */
static PyObject *flatten(PyObject *tensors) {
    PyObject *flat = PyList_New(0);
    for (Py_ssize_t i = 0; flat && i < PyList_Size(tensors); i++) {
        PyObject *v = PyObject_CallMethod(PyList_GetItem(tensors, i), "reshape", "(i)", -1);
        if (!v || PyList_Append(flat, v) < 0) Py_CLEAR(flat);
        Py_XDECREF(v);
    }
    if (!flat) return NULL;
    PyObject *cat = torch_attr("cat");
    PyObject *r = cat ? PyObject_CallFunctionObjArgs(cat, flat, NULL) : NULL;
    Py_XDECREF(cat);
    Py_DECREF(flat);
    return r;
}

/* _broadcast_coalesced(process_group, tensors, buffer_size, src=0): buckets of at most
 * buffer_size bytes per (dtype, device), each flattened, broadcast from src and copied back
 * (upstream keeps 2 broadcasts in flight; ours complete in order, the same sequence of calls). */
static PyObject *broadcast_coalesced(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"process_group", "tensors", "buffer_size", "src", NULL};
    PyObject *pg, *tensors;
    long long bufsize;
    int src = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOL|i:_broadcast_coalesced", kws, &pg, &tensors, &bufsize, &src)) return NULL;
    PyObject *tl = PySequence_List(tensors);
    if (!tl) return NULL;
    bucket_list bl = {0};
    int64_t lim = bufsize;
    PyObject *ret = NULL;
    if (PyList_Size(tl) == 0) {   /* upstream asserts in the bucket assignment */
        PyErr_SetString(PyExc_RuntimeError, "!tensors.empty() INTERNAL ASSERT FAILED: _broadcast_coalesced() needs at least one tensor");
        goto done;
    }
    if (assign_buckets(tl, &lim, 1, NULL, NULL, &bl) < 0) goto done;
    for (int b = 0; b < bl.n; b++) {
        PyObject *bt = PyList_New(bl.b[b].n);
        if (!bt) goto done;
        for (int j = 0; j < bl.b[b].n; j++) PyList_SetItem(bt, j, Py_NewRef(PyList_GetItem(tl, bl.b[b].idx[j])));
        PyObject *flat = flatten(bt);
        int rc = flat ? pg_broadcast_wait(pg, flat, src) : -1;
        int64_t off = 0;
        for (int j = 0; rc == 0 && j < bl.b[b].n; j++) {
            PyObject *t = PyList_GetItem(bt, j);
            int64_t n = t_numel(t);
            if (n) {
                PyObject *sz = sizes_of(t);
                PyObject *nw = sz ? PyObject_CallMethod(flat, "narrow", "iLL", 0, (long long)off, (long long)n) : NULL;
                PyObject *v = nw ? PyObject_CallMethod(nw, "view", "O", sz) : NULL;
                rc = v ? callv(t, "copy_", "(O)", v) : -1;
                Py_XDECREF(sz); Py_XDECREF(nw); Py_XDECREF(v);
            }
            off += n;
        }
        Py_XDECREF(flat);
        Py_DECREF(bt);
        if (rc < 0) goto done;
    }
    ret = Py_NewRef(Py_None);
done:
    blist_free(&bl);
    Py_DECREF(tl);
    return ret;
}

/* "[3, 4]" as c10's operator<< prints an IntArrayRef */
static PyObject *sizes_text(PyObject *t) {
    tn_tensor *x = tn_tensor_of(t);
    PyObject *parts = PyList_New(0);
    for (int d = 0; parts && d < x->ndim; d++) {
        PyObject *s = PyUnicode_FromFormat("%lld", (long long)x->sizes[d]);
        if (!s || PyList_Append(parts, s) < 0) Py_CLEAR(parts);
        Py_XDECREF(s);
    }
    if (!parts) return NULL;
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *j = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    PyObject *r = j ? PyUnicode_FromFormat("[%U]", j) : NULL;
    Py_XDECREF(j);
    return r;
}

static PyObject *logger_error(PyObject *logger, PyObject *msg);   /* set_error_and_log, then NULL */

/* _verify_params_across_processes(process_group, params, logger=None): all_gather of the param
 * count (int64, one element), then a broadcast from rank 0 of every param's sizes and strides
 * (int64), each compared with ours (upstream's verify_params_across_processes). */
static PyObject *verify_params(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"process_group", "params", "logger", NULL};
    PyObject *pg, *params, *logger = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:_verify_params_across_processes", kws, &pg, &params, &logger)) return NULL;
    PyObject *pl = PySequence_List(params), *ret = NULL, *cnt = NULL, *outs = NULL, *meta = NULL, *w = NULL, *vals = NULL;
    if (!pl) return NULL;
    Py_ssize_t np = PyList_Size(pl);
    long world = pg_int(pg, "size"), rank = pg_int(pg, "rank");
    if ((world < 0 || rank < 0) && PyErr_Occurred()) goto done;
    PyObject *tensor = torch_attr("tensor"), *i64 = torch_attr("int64");
    cnt = tensor && i64 ? PyObject_CallFunction(tensor, "[n]", np) : NULL;
    if (cnt) Py_SETREF(cnt, PyObject_CallMethod(cnt, "to", "O", i64));
    Py_XDECREF(tensor);
    if (!cnt) { Py_XDECREF(i64); goto done; }
    outs = PyList_New(world);
    for (long i = 0; outs && i < world; i++) {
        PyObject *e = torch_attr("empty_like");
        PyObject *x = e ? CALL1(e, cnt) : NULL;
        Py_XDECREF(e);
        if (!x) { Py_CLEAR(outs); break; }
        PyList_SetItem(outs, i, x);
    }
    if (!outs) { Py_DECREF(i64); goto done; }
    w = PyObject_CallMethod(pg, "allgather", "[O][O]", outs, cnt);
    if (!w || callv(w, "wait", NULL) < 0) { Py_DECREF(i64); goto done; }
    for (long i = 0; i < world; i++) {
        PyObject *it = PyObject_CallMethod(PyList_GetItem(outs, i), "item", NULL);
        long long c = it ? PyLong_AsLongLong(it) : -1;
        Py_XDECREF(it);
        if (c == -1 && PyErr_Occurred()) { Py_DECREF(i64); goto done; }
        if (c != np) {
            Py_DECREF(i64);
            PyObject *msg = PyUnicode_FromFormat("DDP expects same model across all ranks, but Rank %ld has %zd params, while "
                                                 "rank %ld has inconsistent %lld params.", rank, np, i, c);
            if (msg) {
                PyErr_SetObject(PyExc_RuntimeError, msg);
                Py_DECREF(msg);
            }
            goto done;
        }
    }
    /* sizes and strides of every param, broadcast from rank 0 */
    vals = PyList_New(0);
    for (Py_ssize_t p = 0; vals && p < np; p++) {
        PyObject *t = PyList_GetItem(pl, p);
        if (!tn_py_is_tensor(t)) {
            PyErr_Format(PyExc_TypeError, "_verify_params_across_processes(): expected tensors, got %s", tn_py_type_name(t));
            Py_DECREF(i64);
            goto done;
        }
        tn_tensor *x = tn_tensor_of(t);
        for (int d = 0; d < x->ndim; d++) PyList_Append(vals, PyLong_FromLongLong(x->sizes[d])), Py_DECREF(PyList_GetItem(vals, PyList_Size(vals) - 1));
        for (int d = 0; d < x->ndim; d++) PyList_Append(vals, PyLong_FromLongLong(x->strides[d])), Py_DECREF(PyList_GetItem(vals, PyList_Size(vals) - 1));
    }
    tensor = vals ? torch_attr("tensor") : NULL;
    PyObject *kwd = tensor ? Py_BuildValue("{sO}", "dtype", i64) : NULL;
    PyObject *a1 = kwd ? PyTuple_Pack(1, vals) : NULL;
    meta = a1 ? PyObject_Call(tensor, a1, kwd) : NULL;
    Py_XDECREF(tensor); Py_XDECREF(kwd); Py_XDECREF(a1); Py_DECREF(i64);
    if (!meta || pg_broadcast_wait(pg, meta, 0) < 0) goto done;
    PyObject *ctl = PyObject_CallMethod(meta, "tolist", NULL);
    if (!ctl) goto done;
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < np; p++) {
        PyObject *t = PyList_GetItem(pl, p);
        tn_tensor *x = tn_tensor_of(t);
        for (int pass = 0; pass < 2; pass++)
            for (int d = 0; d < x->ndim; d++) {
                long long want = PyLong_AsLongLong(PyList_GetItem(ctl, k++));
                long long have = pass ? x->strides[d] : x->sizes[d];
                if (want == have) continue;
                PyObject *st = sizes_text(t);
                PyObject *msg = !st ? NULL : pass
                    ? PyUnicode_FromFormat("params[%zd] in this process with sizes %U appears not to match strides of the same param in process 0.", p, st)
                    : PyUnicode_FromFormat("[%ld]: params[%zd] in this process with sizes %U appears not to match sizes of the same param in process 0.", rank, p, st);
                Py_XDECREF(st);
                Py_DECREF(ctl);
                if (msg) {
                    if (logger != Py_None) logger_error(logger, msg);
                    else PyErr_SetObject(PyExc_RuntimeError, msg);
                    Py_DECREF(msg);
                }
                goto done;
            }
    }
    Py_DECREF(ctl);
    ret = Py_NewRef(Py_None);
done:
    Py_DECREF(pl);
    Py_XDECREF(cnt); Py_XDECREF(outs); Py_XDECREF(meta); Py_XDECREF(w); Py_XDECREF(vals);
    return ret;
}

/* ---------------------------------------------------------------------------------------------
 * GradBucket */

typedef struct {
    PyObject_HEAD
    long index, nbuckets;
    PyObject *buffer;      /* flat tensor */
    PyObject *params;      /* list */
    PyObject *offsets, *lengths, *sizes;   /* lists */
} gb_obj;

static PyObject *gb_new(long index, long nbuckets, PyObject *buffer, PyObject *params, PyObject *offsets,
                        PyObject *lengths, PyObject *sizes) {
    gb_obj *g = PyObject_GC_New(gb_obj, GradBucket_T);
    if (!g) return NULL;
    g->index = index;
    g->nbuckets = nbuckets;
    g->buffer = Py_NewRef(buffer);
    g->params = Py_NewRef(params);
    g->offsets = Py_NewRef(offsets);
    g->lengths = Py_NewRef(lengths);
    g->sizes = Py_NewRef(sizes);
    PyObject_GC_Track((PyObject *)g);
    return (PyObject *)g;
}
static PyObject *gb_index(PyObject *s, PyObject *u) { return PyLong_FromLong(((gb_obj *)s)->index); }
static PyObject *gb_buffer(PyObject *s, PyObject *u) { return Py_NewRef(((gb_obj *)s)->buffer); }
static PyObject *gb_is_last(PyObject *s, PyObject *u) { return PyBool_FromLong(((gb_obj *)s)->index == ((gb_obj *)s)->nbuckets - 1); }
static PyObject *gb_parameters(PyObject *s, PyObject *u) { return PySequence_List(((gb_obj *)s)->params); }
static PyObject *gb_set_buffer(PyObject *s, PyObject *b) {
    if (!tn_py_is_tensor(b)) return PyErr_Format(PyExc_TypeError, "set_buffer(): expected a Tensor, got %s", tn_py_type_name(b));
    Py_SETREF(((gb_obj *)s)->buffer, Py_NewRef(b));
    Py_RETURN_NONE;
}
/* gradients(): views of the buffer per parameter (upstream's getGradients) */
static PyObject *gb_gradients(PyObject *s, PyObject *u) {
    gb_obj *g = (gb_obj *)s;
    Py_ssize_t n = PyList_Size(g->params);
    PyObject *r = PyList_New(n);
    for (Py_ssize_t i = 0; r && i < n; i++) {
        long long off = PyLong_AsLongLong(PyList_GetItem(g->offsets, i)), len = PyLong_AsLongLong(PyList_GetItem(g->lengths, i));
        PyObject *v = bucket_view(g->buffer, PyList_GetItem(g->params, i), off, len);
        if (!v) { Py_CLEAR(r); break; }
        PyList_SetItem(r, i, v);
    }
    return r;
}
static int gb_traverse(PyObject *s, visitproc visit, void *arg) {
    gb_obj *g = (gb_obj *)s;
    Py_VISIT(g->buffer); Py_VISIT(g->params); Py_VISIT(g->offsets); Py_VISIT(g->lengths); Py_VISIT(g->sizes);
    Py_VISIT(Py_TYPE(s));
    return 0;
}
static int gb_clear(PyObject *s) {
    gb_obj *g = (gb_obj *)s;
    Py_CLEAR(g->buffer); Py_CLEAR(g->params); Py_CLEAR(g->offsets); Py_CLEAR(g->lengths); Py_CLEAR(g->sizes);
    return 0;
}
static void gb_dealloc(PyObject *s) {
    PyTypeObject *tp = Py_TYPE(s);
    PyObject_GC_UnTrack(s);
    gb_clear(s);
    PyObject_GC_Del(s);
    Py_DECREF(tp);
}
static PyObject *gb_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k) {
    PyErr_SetString(PyExc_TypeError, "torch._C._distributed_c10d.GradBucket: No constructor defined!");
    return NULL;
}
static PyMethodDef gb_methods[] = {
    {"index", gb_index, METH_NOARGS, NULL}, {"buffer", gb_buffer, METH_NOARGS, NULL},
    {"gradients", gb_gradients, METH_NOARGS, NULL}, {"parameters", gb_parameters, METH_NOARGS, NULL},
    {"is_last", gb_is_last, METH_NOARGS, NULL}, {"set_buffer", gb_set_buffer, METH_O, NULL}, {NULL},
};
static PyType_Slot gb_slots[] = {{Py_tp_new, gb_tp_new}, {Py_tp_methods, gb_methods}, {Py_tp_traverse, gb_traverse},
                                 {Py_tp_clear, gb_clear}, {Py_tp_dealloc, gb_dealloc}, {0, NULL}};
static PyType_Spec gb_spec = {"torch._C._distributed_c10d.GradBucket", sizeof(gb_obj), 0,
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, gb_slots};

/* ---------------------------------------------------------------------------------------------
 * Reducer */

typedef struct {
    int n;
    int *vars;                  /* param indices */
    int64_t *offsets, *lengths;
    PyObject *variables;        /* list of params */
    PyObject *gradients;        /* flat tensor */
    PyObject *views_in, *views_out;   /* lists */
    int pending;
    PyObject *future;           /* the comm hook's future or NULL */
    bool sparse;
    char *deferred;             /* batched_grad_copy: params whose copy waits for the bucket's flush */
    PyObject *sparse_idx;       /* sparse metadata: the param's global row ids, int64 [1, n] (kept, as upstream's) */
} bucket_t;

enum { HOOK_NONE, HOOK_PY, HOOK_ALLREDUCE, HOOK_FP16 };
/* upstream's CpuTimer events: unix-epoch nanoseconds, -1 until recorded */
enum { EV_FWD_START, EV_BWD_COMPUTE_START, EV_BWD_COMPUTE_END, EV_BWD_COMM_START, EV_BWD_COMM_END, EV_COUNT };

typedef struct {
    PyObject_HEAD
    PyObject *weakrefs;
    PyObject *params;           /* list */
    int np;
    PyObject *pg;
    PyObject *acc;              /* list of AccumulateGrad nodes (held, as upstream's grad_accumulators_) */
    PyObject *hooks;            /* list of our hook callables (one per param) */
    bucket_t *b;
    int nb;
    int *loc_b, *loc_i;         /* variable locators */
    char *sparse;
    int64_t bucket_bytes_cap, first_bucket_bytes_cap;
    int64_t *cap_list;
    int ncap_list;
    bool find_unused, as_view, static_graph, skip_unused, batched;
    bool expect_hooks, require_finalize, has_marked_unused, has_rebuilt, first_hook_called, lum_reduced, graph_static;
    bool optim_in_backward;
    bool mixed_precision;       /* _set_mixed_precision_param_dtype was called */
    int next_bucket, ready_buckets, reduced_buckets;
    char *ready;                /* perIterationReadyParams_ */
    int *unused, nunused;
    int *prev_unused, nprev_unused;
    PyObject *lum, *lum_dev, *lum_work;   /* local_used_map (int32), its reduced copy, the allreduce's Work */
    int *rebuilt, nrebuilt;     /* rebuilt_param_indices_ */
    int *gro, ngro;             /* grad_ready_order_indices_ */
    int *hooks_seen, *hooks_left;   /* static graph: numGradHooksTriggeredMap_ and its per-iteration copy */
    int hook_kind;
    PyObject *hook_state, *hook_fn;
    int div_factor;
    PyObject *fwd_work;         /* join: the forward pass's allreduce Work */
    bool fwd_static_world;
    int64_t num_iterations, num_bwd_calls;
    int64_t *bwd_stats, bwd_start;
    PyObject *logger;           /* weakref */
    PyObject *installed;        /* list of futures or NULL */
    PyObject *names;            /* param_to_name_mapping */
    PyObject *sparse_meta;      /* _set_sparse_metadata's {param name: row ids} until finalize_backward, or NULL */
    bool debug;                 /* TORCH_DISTRIBUTED_DEBUG INFO or DETAIL (c10d's level when constructed) */
    int64_t sample_rate;
    int64_t timer[EV_COUNT];
} red_obj;

static red_obj *red_of(PyObject *o) {
    if (!Reducer_T || !PyObject_TypeCheck(o, Reducer_T)) {
        PyErr_Format(PyExc_TypeError, "expected a torch._C._distributed_c10d.Reducer, got %s", tn_py_type_name(o));
        return NULL;
    }
    return (red_obj *)o;
}

/* REDUCER_CHECK: the logger records the error, then RuntimeError(msg) */
static PyObject *logger_error(PyObject *logger, PyObject *msg) {
    if (logger && logger != Py_None) {
        PyObject *r = PyObject_CallMethod(logger, "set_error_and_log", "O", msg);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    PyErr_SetObject(PyExc_RuntimeError, msg);
    return NULL;
}
static int red_fail(red_obj *r, PyObject *msg) {
    if (!msg) return -1;
    PyObject *lg = r->logger ? PyWeakref_GetObject(r->logger) : NULL;
    logger_error(lg, msg);
    Py_DECREF(msg);
    return -1;
}

static bool dyn_find_unused(red_obj *r) { return !r->static_graph && r->find_unused; }
static bool static_first(red_obj *r) { return r->static_graph && r->num_bwd_calls == 1; }
static bool static_after_first(red_obj *r) { return r->static_graph && r->num_bwd_calls > 1; }
static bool should_rebuild(red_obj *r) { return (r->static_graph || !r->find_unused) && !r->has_rebuilt; }
/* the first 10 iterations, then every sample_rate-th (_set_ddp_runtime_logging_sample_rate) */
static bool collect_stats(red_obj *r) {
    return r->num_iterations > 0 && (r->num_iterations <= 10 || r->num_iterations % r->sample_rate == 0);
}
static void record(red_obj *r, int ev) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r->timer[ev] = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static PyObject *py_grad(PyObject *v) { return ((tn_tensor_obj *)v)->grad; }   /* borrowed or NULL */
static void set_grad(PyObject *v, PyObject *g) { Py_XSETREF(((tn_tensor_obj *)v)->grad, g ? Py_NewRef(g) : NULL); }
/* param_to_name_mapping[vi] (borrowed) or NULL (no error set unless one occurred) */
static PyObject *param_name(red_obj *r, int vi) {
    PyObject *key = PyLong_FromLong(vi);
    PyObject *name = key ? PyDict_GetItemWithError(r->names, key) : NULL;
    Py_XDECREF(key);
    return name;
}

static void free_buckets(red_obj *r) {
    for (int i = 0; r->b && i < r->nb; i++) {
        bucket_t *b = &r->b[i];
        free(b->vars); free(b->offsets); free(b->lengths); free(b->deferred);
        Py_XDECREF(b->variables); Py_XDECREF(b->gradients); Py_XDECREF(b->views_in); Py_XDECREF(b->views_out);
        Py_XDECREF(b->future); Py_XDECREF(b->sparse_idx);
    }
    free(r->b);
    r->b = NULL;
    r->nb = 0;
}

static int init_bucket_views(red_obj *r, bucket_t *b) {
    Py_XSETREF(b->views_in, PyList_New(b->n));
    if (!b->views_in) return -1;
    for (int i = 0; i < b->n; i++) {
        PyObject *v = PyList_GetItem(b->variables, i);
        PyObject *view = bucket_view(b->gradients, v, b->offsets[i], b->lengths[i]);
        if (!view) return -1;
        PyList_SetItem(b->views_in, i, view);
        if (r->as_view) {   /* a grad from before a rebuild moves into the new bucket */
            PyObject *g = py_grad(v);
            if (g && !is_alias_of(g, view)) {
                if (callv(view, "copy_", "(O)", g) < 0) return -1;
                set_grad(v, view);
            }
        }
    }
    Py_XSETREF(b->views_out, Py_NewRef(b->views_in));
    return 0;
}

/* upstream's initialize_buckets */
static int init_buckets(red_obj *r, bucket_list *bl) {
    if (r->expect_hooks)
        return red_fail(r, PyUnicode_FromString("`initialize_buckets` must NOT be called during autograd execution."));
    free_buckets(r);
    r->b = calloc((size_t)(bl->n ? bl->n : 1), sizeof *r->b);
    if (!r->b) { PyErr_NoMemory(); return -1; }
    for (int i = 0; i < r->np; i++) r->loc_b[i] = r->loc_i[i] = -1;
    for (int bi = 0; bi < bl->n; bi++) {
        bucket_t *b = &r->b[bi];
        r->nb = bi + 1;
        int n = bl->b[bi].n;
        if (n == 0) return red_fail(r, PyUnicode_FromString("Empty bucket specified."));
        for (int j = 0; j < n; j++)
            if (bl->b[bi].idx[j] < 0 || bl->b[bi].idx[j] >= r->np) {
                PyErr_SetString(PyExc_RuntimeError, "Out of range variable index specified.");
                return -1;
            }
        if (n == 1) b->sparse = r->sparse[bl->b[bi].idx[0]];
        else
            for (int j = 0; j < n; j++)
                if (r->sparse[bl->b[bi].idx[j]])
                    return red_fail(r, PyUnicode_FromString("Buckets with more than one variable cannot include variables that expect a sparse gradient."));
        b->n = n;
        b->vars = malloc((size_t)n * sizeof(int));
        b->offsets = malloc((size_t)n * sizeof(int64_t));
        b->lengths = malloc((size_t)n * sizeof(int64_t));
        b->deferred = calloc((size_t)n, 1);
        b->variables = PyList_New(n);
        if (!b->vars || !b->offsets || !b->lengths || !b->deferred || !b->variables) { PyErr_NoMemory(); return -1; }
        int64_t off = 0;
        if (b->sparse) {   /* its gradient is the param's own sparse .grad, set when it is marked ready */
            b->vars[0] = bl->b[bi].idx[0];
            PyList_SetItem(b->variables, 0, Py_NewRef(PyList_GetItem(r->params, b->vars[0])));
            r->loc_b[b->vars[0]] = bi;
            r->loc_i[b->vars[0]] = 0;
            continue;
        }
        PyObject *dev0 = NULL;
        int dt0 = -1;
        for (int j = 0; j < n; j++) {
            int vi = bl->b[bi].idx[j];
            PyObject *v = PyList_GetItem(r->params, vi);
            PyObject *dev = PyObject_GetAttrString(v, "device");
            if (!dev) { Py_XDECREF(dev0); return -1; }
            if (!dev0) dev0 = dev;
            else {
                int eq = PyObject_RichCompareBool(dev, dev0, Py_EQ);
                Py_DECREF(dev);
                if (eq <= 0) {
                    Py_DECREF(dev0);
                    return eq < 0 ? -1 : red_fail(r, PyUnicode_FromString("All parameters in a bucket must be placed on the same device."));
                }
            }
            int dt = (int)tn_tensor_of(v)->dtype;
            if (dt0 < 0) dt0 = dt;
            else if (dt != dt0) {
                Py_DECREF(dev0);
                return red_fail(r, PyUnicode_FromString("All parameters in a bucket must have the same dtype."));
            }
            b->vars[j] = vi;
            b->offsets[j] = off;
            b->lengths[j] = t_numel(v);
            off += b->lengths[j];
            PyList_SetItem(b->variables, j, Py_NewRef(v));
        }
        /* torch.empty(off, dtype=, device=) */
        PyObject *v0 = PyList_GetItem(b->variables, 0);
        PyObject *dtype = PyObject_GetAttrString(v0, "dtype");
        PyObject *empty = dtype ? torch_attr("empty") : NULL;
        PyObject *kw = empty ? Py_BuildValue("{sOsO}", "dtype", dtype, "device", dev0) : NULL;
        PyObject *a = kw ? Py_BuildValue("(L)", (long long)off) : NULL;
        b->gradients = a ? PyObject_Call(empty, a, kw) : NULL;
        Py_XDECREF(dtype); Py_XDECREF(empty); Py_XDECREF(kw); Py_XDECREF(a); Py_XDECREF(dev0);
        if (!b->gradients || init_bucket_views(r, b) < 0) return -1;
        for (int j = 0; j < n; j++) {
            r->loc_b[b->vars[j]] = bi;
            r->loc_i[b->vars[j]] = j;
        }
    }
    return 0;
}

static void reset_bucket_counting(red_obj *r) {
    r->next_bucket = 0;
    r->ready_buckets = 0;
    r->reduced_buckets = 0;
    for (int i = 0; i < r->nb; i++) r->b[i].pending = r->b[i].n;
    if (r->static_graph) memcpy(r->hooks_left, r->hooks_seen, (size_t)r->np * sizeof(int));
}

static int set_divide_factor(red_obj *r) {
    if (r->div_factor != -1) return 0;
    long w = pg_int(r->pg, "size");
    if (w < 0) return -1;
    r->div_factor = (int)w;
    if (r->fwd_work && !r->fwd_static_world) {
        if (callv(r->fwd_work, "wait", NULL) < 0) return -1;
        PyObject *f = PyObject_CallMethod(r->fwd_work, "get_future", NULL);
        PyObject *v = f ? PyObject_CallMethod(f, "value", NULL) : NULL;
        Py_XDECREF(f);
        if (!v) return -1;
        PyObject *t = PyList_Check(v) ? PyList_GetItem(v, 0) : v;
        PyObject *it = t ? PyObject_CallMethod(t, "item", NULL) : NULL;
        Py_DECREF(v);
        if (!it) return -1;
        long d = PyLong_AsLong(it);
        Py_DECREF(it);
        if (d == -1 && PyErr_Occurred()) return -1;
        r->div_factor = (int)d;
    }
    return 0;
}

/* upstream's mark_variable_ready_dense */
static int mark_dense(red_obj *r, int vi) {
    bucket_t *b = &r->b[r->loc_b[vi]];
    int j = r->loc_i[vi];
    PyObject *v = PyList_GetItem(r->params, vi), *view = PyList_GetItem(b->views_in, j), *g = py_grad(v);
    if (g) {
        if (!is_alias_of(g, view) && r->batched && !tn_requires_grad(g)) {
            b->deferred[j] = 1;   /* copied and divided with the whole bucket (flush_deferred) */
        } else if (!is_alias_of(g, view)) {
            if (r->hook_kind == HOOK_NONE) {
                PyObject *mul = torch_attr("mul");
                PyObject *kw = mul ? Py_BuildValue("{sO}", "out", view) : NULL;
                PyObject *a = kw ? Py_BuildValue("(Od)", g, 1.0 / (double)r->div_factor) : NULL;
                PyObject *res = NULL;
                if (a && tn_requires_grad(g)) {   /* create_graph: mul, then copy */
                    res = PyObject_Call(mul, a, NULL);
                    if (res && callv(view, "copy_", "(O)", res) < 0) Py_CLEAR(res);
                } else if (a) {
                    res = PyObject_Call(mul, a, kw);
                }
                Py_XDECREF(mul); Py_XDECREF(kw); Py_XDECREF(a);
                if (!res) return -1;
                Py_DECREF(res);
            } else if (callv(view, "copy_", "(O)", g) < 0) {
                return -1;
            }
            if (r->as_view) set_grad(v, view);
        } else if (r->hook_kind == HOOK_NONE && !r->batched) {
            if (callv(view, "div_", "(i)", r->div_factor) < 0) return -1;
        }
    } else {
        if (dyn_find_unused(r) || static_first(r)) {
            PyObject *it = PyObject_CallMethod(r->lum, "__getitem__", "(i)", vi);
            PyObject *x = it ? PyObject_CallMethod(it, "item", NULL) : NULL;
            Py_XDECREF(it);
            if (!x) return -1;
            long used = PyLong_AsLong(x);
            Py_DECREF(x);
            if (used != 0)
                return red_fail(r, PyUnicode_FromString("Encountered gradient which is undefined, but still allreduced by DDP reducer. This indicates a bug in DDP implementation, please report a bug with a repro to PyTorch."));
        }
        if (callv(view, "zero_", NULL) < 0) return -1;
    }
    return 0;
}

/* batched_grad_copy, a bucket whose gradients are all ready: the deferred copies (upstream's
 * _foreach_copy_; gradient_as_bucket_view re-points .grad at the view), then one div_ of the whole
 * flat bucket without a comm hook (division, not mul_out's 1/w: other bytes when w is not a power of 2) */
static int flush_deferred(red_obj *r, bucket_t *b) {
    if (b->sparse) return 0;
    for (int j = 0; j < b->n; j++) {
        if (!b->deferred[j]) continue;
        b->deferred[j] = 0;
        PyObject *v = PyList_GetItem(b->variables, j), *view = PyList_GetItem(b->views_in, j), *g = py_grad(v);
        if (!g) {
            PyErr_Format(PyExc_RuntimeError, "Gradient became undefined between defer and flush for variable %d", j);
            return -1;
        }
        if (callv(view, "copy_", "(O)", g) < 0) return -1;
        if (r->as_view) set_grad(v, view);
    }
    return r->hook_kind == HOOK_NONE ? callv(b->gradients, "div_", "(i)", r->div_factor) : 0;
}

/* sparse metadata: .grad becomes its coalesced self, then a new (uncoalesced) sparse tensor whose
 * row indices are the positions of its rows in the param's global row ids (searchsorted) */
static int remap_sparse_grad(red_obj *r, int vi, bucket_t *b) {
    PyObject *v = PyList_GetItem(r->params, vi);
    PyObject *c = PyObject_CallMethod(py_grad(v), "coalesce", NULL);
    if (!c) return -1;
    set_grad(v, c);
    Py_DECREF(c);
    if (PyDict_Size(r->names) == 0) return red_fail(r, PyUnicode_FromString("No parameter names were found"));
    PyObject *name = param_name(r, vi);
    if (!name && PyErr_Occurred()) return -1;
    name = name ? Py_NewRef(name) : PyUnicode_FromString("");   /* upstream's map[]: "" for a param without name */
    PyObject *ids = name ? PyDict_GetItemWithError(r->sparse_meta, name) : NULL;
    if (!ids) {
        PyObject *msg = name && !PyErr_Occurred() ? PyUnicode_FromFormat("param: %S not found in sparse metadata", name) : NULL;
        Py_XDECREF(name);
        return msg ? red_fail(r, msg) : -1;
    }
    Py_DECREF(name);
    PyObject *i64 = torch_attr("int64"), *ss = torch_attr("searchsorted"), *coo = torch_attr("sparse_coo_tensor");
    PyObject *l = i64 ? PyObject_CallMethod(ids, "to", "O", i64) : NULL;
    PyObject *sti = l ? PyObject_CallMethod(l, "unsqueeze", "i", 0) : NULL;
    Py_XDECREF(l);
    Py_XSETREF(b->sparse_idx, sti);
    PyObject *ind = sti ? PyObject_CallMethod(c, "indices", NULL) : NULL;
    PyObject *a = ind ? PyTuple_Pack(2, sti, ind) : NULL;
    PyObject *kw = a ? Py_BuildValue("{sOsO}", "out_int32", Py_False, "right", Py_False) : NULL;
    PyObject *pos = kw && ss ? PyObject_Call(ss, a, kw) : NULL;
    PyObject *vals = pos ? PyObject_CallMethod(c, "values", NULL) : NULL;
    PyObject *size = vals ? sizes_of(c) : NULL;
    PyObject *n = size && coo ? PyObject_CallFunctionObjArgs(coo, pos, vals, size, NULL) : NULL;
    if (n) set_grad(v, n);
    Py_XDECREF(i64); Py_XDECREF(ss); Py_XDECREF(coo); Py_XDECREF(ind); Py_XDECREF(a); Py_XDECREF(kw);
    Py_XDECREF(pos); Py_XDECREF(vals); Py_XDECREF(size);
    if (!n) return -1;
    Py_DECREF(n);
    return 0;
}

/* upstream's mark_variable_ready_sparse: the bucket's gradient is the param's sparse .grad itself
 * (divided in place without a comm hook); the all_reduce's result is copied back into it */
static int mark_sparse(red_obj *r, int vi) {
    PyObject *g = py_grad(PyList_GetItem(r->params, vi));
    if (!g) return red_fail(r, PyUnicode_FromString("Expected sparse gradient to be defined."));
    if (!tn_sparse_of(g)) return red_fail(r, PyUnicode_FromString("Expected variable to have sparse gradient."));
    if (r->sparse_meta) {
        if (remap_sparse_grad(r, vi, &r->b[r->loc_b[vi]]) < 0) return -1;
        g = py_grad(PyList_GetItem(r->params, vi));
    }
    Py_XSETREF(r->b[r->loc_b[vi]].gradients, Py_NewRef(g));
    return r->hook_kind == HOOK_NONE ? callv(g, "div_", "(i)", r->div_factor) : 0;
}

static int mark_grad(red_obj *r, int vi) {
    return r->b[r->loc_b[vi]].sparse ? mark_sparse(r, vi) : mark_dense(r, vi);
}

/* run the comm hook (or the default allreduce) on a GradBucket: a Future */
static PyObject *run_hook(red_obj *r, PyObject *gbo) {
    gb_obj *gb = (gb_obj *)gbo;
    if (r->hook_kind == HOOK_PY) {
        PyObject *f = PyObject_CallFunctionObjArgs(r->hook_fn, r->hook_state, gbo, NULL);
        if (!f) return NULL;
        if (!tn_future_check(f)) {
            PyObject *mod = PyObject_GetAttrString((PyObject *)Py_TYPE(f), "__module__");
            PyObject *qn = mod ? PyObject_GetAttrString((PyObject *)Py_TYPE(f), "__qualname__") : NULL;
            if (qn)
                PyErr_Format(PyExc_RuntimeError, "Unable to cast Python instance of type %S to C++ type. DDP communication "
                             "hook's callback must return a torch.futures.Future object, but got %U.%U", (PyObject *)Py_TYPE(f), mod, qn);
            Py_XDECREF(mod); Py_XDECREF(qn); Py_DECREF(f);
            return NULL;
        }
        return f;
    }
    PyObject *buf = gb->buffer, *t = buf, *w = NULL;
    long size = pg_int(r->pg, "size");
    if (size < 0 && PyErr_Occurred()) return NULL;
    if (r->hook_kind == HOOK_ALLREDUCE) {
        if (callv(buf, "div_", "(l)", size) < 0) return NULL;
    } else if (r->hook_kind == HOOK_FP16) {
        PyObject *f16 = torch_attr("float16");
        t = f16 ? PyObject_CallMethod(buf, "to", "O", f16) : NULL;
        Py_XDECREF(f16);
        if (!t || callv(t, "div_", "(l)", size) < 0) { Py_XDECREF(t); return NULL; }
    }
    w = pg_allreduce(r->pg, t);
    PyObject *f = w ? PyObject_CallMethod(w, "get_future", NULL) : NULL;
    Py_XDECREF(w);
    if (f && r->hook_kind == HOOK_FP16) {   /* decompress: the bucket's buffer takes the result (waited for) */
        PyObject *v = PyObject_CallMethod(f, "wait", NULL);
        int rc = v ? callv(buf, "copy_", "(O)", PyList_Check(v) ? PyList_GetItem(v, 0) : v) : -1;
        Py_XDECREF(v);
        Py_DECREF(f);
        f = rc == 0 ? tn_future_new() : NULL;
        if (f && tn_future_set_result(f, buf) < 0) Py_CLEAR(f);
    }
    if (t != buf) Py_DECREF(t);
    return f;
}

static PyObject *make_grad_bucket(red_obj *r, int bi, PyObject *buffer) {
    bucket_t *b = &r->b[bi];
    int n = b->sparse ? 0 : b->n;   /* a sparse bucket has no offsets, lengths nor sizes */
    PyObject *offs = PyList_New(n), *lens = PyList_New(n), *szs = PyList_New(n);
    PyObject *res = NULL;
    if (!offs || !lens || !szs) goto done;
    for (int j = 0; j < n; j++) {
        PyList_SetItem(offs, j, PyLong_FromLongLong(b->offsets[j]));
        PyList_SetItem(lens, j, PyLong_FromLongLong(b->lengths[j]));
        PyObject *s = sizes_of(PyList_GetItem(b->variables, j));
        if (!s) goto done;
        PyList_SetItem(szs, j, s);
    }
    res = gb_new(bi, r->nb, buffer, b->variables, offs, lens, szs);
done:
    Py_XDECREF(offs); Py_XDECREF(lens); Py_XDECREF(szs);
    return res;
}

static int all_reduce_bucket(red_obj *r, int bi) {
    PyObject *gb = make_grad_bucket(r, bi, r->b[bi].gradients);
    PyObject *f = gb ? run_hook(r, gb) : NULL;
    Py_XDECREF(gb);
    if (!f) return -1;
    Py_XSETREF(r->b[bi].future, f);
    return 0;
}

static bool bucket_unused(red_obj *r, bucket_t *b) {
    for (int j = 0; j < b->n; j++) {
        bool found = false;
        for (int k = 0; k < r->nunused && !found; k++) found = r->unused[k] == b->vars[j];
        if (!found) return false;
    }
    return true;
}

static int mark_bucket_ready(red_obj *r, int bi) {
    if (bi > r->next_bucket) return 0;
    for (; r->next_bucket < r->nb && r->b[r->next_bucket].pending == 0; r->next_bucket++) {
        if (++r->ready_buckets == 1 && collect_stats(r)) record(r, EV_BWD_COMM_START);
        bucket_t *b = &r->b[r->next_bucket];
        if (r->skip_unused && bucket_unused(r, b)) continue;
        if (all_reduce_bucket(r, r->next_bucket) < 0) return -1;
        r->reduced_buckets++;
    }
    return 0;
}

static int all_reduce_local_used_map(red_obj *r) {
    if (callv(r->lum_dev, "copy_", "(O)", r->lum) < 0) return -1;
    PyObject *w = pg_allreduce(r->pg, r->lum_dev);
    if (!w) return -1;
    Py_XSETREF(r->lum_work, w);
    return 0;
}

static PyObject *finalize_cb(PyObject *wr, PyObject *unused);
static PyMethodDef finalize_def = {"_ddp_finalize_backward", finalize_cb, METH_NOARGS, NULL};

static PyObject *marked_twice_msg(red_obj *r, int vi) {
    PyObject *name = param_name(r, vi);
    if (!name && PyErr_Occurred()) return NULL;
    PyObject *with = name ? PyUnicode_FromFormat(" with name %U", name) : PyUnicode_FromString("");
    if (!with) return NULL;
    PyObject *msg = PyUnicode_FromFormat(
        "Expected to mark a variable ready only once. This error is caused by one of the following reasons: 1) Use of "
        "a module parameter outside the `forward` function. Please make sure model parameters are not shared across "
        "multiple concurrent forward-backward passes. or try to use _set_static_graph() as a workaround if this module "
        "graph does not change during training loop.2) Reused parameters in multiple reentrant backward passes. For "
        "example, if you use multiple `checkpoint` functions to wrap the same part of your model, it would result in "
        "the same set of parameters been used by different reentrant backward passes multiple times, and hence marking "
        "a variable ready multiple times. DDP does not support such use cases in default. You can try to use "
        "_set_static_graph() as a workaround if your module graph does not change over iterations.\nParameter at index "
        "%d%U has been marked as ready twice. This means that multiple autograd engine  hooks have fired for this "
        "particular parameter during this iteration.%s", vi, with,
        name ? "" : " You can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
                    "parameter names for further debugging.");
    Py_DECREF(with);
    return msg;
}

static int mark_variable_ready(red_obj *r, int vi) {
    if (vi < 0 || vi >= r->np) {
        PyErr_Format(PyExc_RuntimeError, "Out of range variable index %d.", vi);
        return -1;
    }
    if (r->ready[vi]) return red_fail(r, marked_twice_msg(r, vi));
    r->ready[vi] = 1;
    r->bwd_stats[vi] = now_ns() - r->bwd_start;
    r->require_finalize = true;
    bucket_t *b = &r->b[r->loc_b[vi]];
    if (set_divide_factor(r) < 0 || mark_grad(r, vi) < 0) return -1;
    if (--b->pending == 0 && ((r->batched && flush_deferred(r, b) < 0) || mark_bucket_ready(r, r->loc_b[vi]) < 0)) return -1;
    if (r->next_bucket == r->nb) {
        if (dyn_find_unused(r) && all_reduce_local_used_map(r) < 0) return -1;
        PyObject *wr = PyWeakref_NewRef((PyObject *)r, NULL);
        PyObject *cb = wr ? PyCFunction_New(&finalize_def, wr) : NULL;
        Py_XDECREF(wr);
        if (!cb) return -1;
        PyObject *eng = torch_attr("_C");
        PyObject *E = eng ? PyObject_GetAttrString(eng, "_ImperativeEngine") : NULL;
        PyObject *e = E ? PyObject_CallNoArgs(E) : NULL;
        int rc = e ? callv(e, "queue_callback", "(O)", cb) : -1;
        Py_XDECREF(eng); Py_XDECREF(E); Py_XDECREF(e);
        Py_DECREF(cb);
        if (rc < 0) return -1;
    }
    return 0;
}

static int push_rebuilt(red_obj *r, int vi) {
    if (r->nrebuilt >= r->np) return 0;
    r->rebuilt[r->nrebuilt++] = vi;
    return 0;
}

static int autograd_hook(red_obj *r, int vi) {
    if (vi < 0 || vi >= r->np) {
        PyErr_Format(PyExc_IndexError, "_autograd_hook(): parameter index %d out of range", vi);
        return -1;
    }
    if (!r->first_hook_called) {
        r->first_hook_called = true;
        r->num_bwd_calls++;
    }
    if (dyn_find_unused(r) || static_first(r)) {
        if (py_grad(PyList_GetItem(r->params, vi)) && callv(r->lum, "__setitem__", "(ii)", vi, 1) < 0) return -1;
    }
    if (static_first(r)) {
        r->hooks_seen[vi]++;
        return 0;
    }
    if (!r->expect_hooks) return 0;
    if (r->ngro < r->np * 4) r->gro[r->ngro++] = vi;
    if (!r->has_marked_unused) {
        r->has_marked_unused = true;
        for (int k = 0; k < r->nunused; k++)
            if (mark_variable_ready(r, r->unused[k]) < 0) return -1;
    }
    if (static_after_first(r)) {
        if (r->hooks_left[vi] <= 0)
            return red_fail(r, PyUnicode_FromString("Your training graph has changed in this iteration, e.g., one parameter is "
                                                    "unused in first iteration, but then got used in the second iteration. "
                                                    "this is not compatible with static_graph set to True."));
        if (--r->hooks_left[vi] == 0) {
            if (should_rebuild(r)) push_rebuilt(r, vi);
            return mark_variable_ready(r, vi);
        }
        return 0;
    }
    if (should_rebuild(r)) push_rebuilt(r, vi);
    return mark_variable_ready(r, vi);
}

/* the post hook on a param's AccumulateGrad: (weakref to the reducer, index) */
static PyObject *hook_call(PyObject *self, PyObject *args) {
    PyObject *rr = PyWeakref_GetObject(PyTuple_GetItem(self, 0));
    if (!rr) return NULL;
    if (rr == Py_None) Py_RETURN_NONE;
    int vi = (int)PyLong_AsLong(PyTuple_GetItem(self, 1));
    Py_INCREF(rr);
    int rc = autograd_hook((red_obj *)rr, vi);
    Py_DECREF(rr);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef hook_def = {"_ddp_grad_ready_hook", hook_call, METH_VARARGS, NULL};

/* grad = bucket view (gradient layout contract: the param's strides when dense, else contiguous) */
static PyObject *clone_obey_contract(PyObject *view, PyObject *v) {
    if (dense_layout(v)) {
        PyObject *es = torch_attr("empty_strided");
        PyObject *sz = sizes_of(v), *st = strides_of(v);
        PyObject *dtype = PyObject_GetAttrString(view, "dtype"), *dev = PyObject_GetAttrString(view, "device");
        PyObject *kw = dtype && dev ? Py_BuildValue("{sOsO}", "dtype", dtype, "device", dev) : NULL;
        PyObject *a = kw && sz && st ? PyTuple_Pack(2, sz, st) : NULL;
        PyObject *e = a && es ? PyObject_Call(es, a, kw) : NULL;
        Py_XDECREF(es); Py_XDECREF(sz); Py_XDECREF(st); Py_XDECREF(dtype); Py_XDECREF(dev); Py_XDECREF(kw); Py_XDECREF(a);
        if (e && callv(e, "copy_", "(O)", view) < 0) Py_CLEAR(e);
        return e;
    }
    PyObject *cf = torch_attr("contiguous_format");
    PyObject *kw = cf ? Py_BuildValue("{sO}", "memory_format", cf) : NULL;
    PyObject *m = kw ? PyObject_GetAttrString(view, "clone") : NULL;
    PyObject *e = m ? PyObject_Call(m, PyTuple_New(0), kw) : NULL;
    Py_XDECREF(cf); Py_XDECREF(kw); Py_XDECREF(m);
    return e;
}

static int lum_get(PyObject *lum, int vi, long *out) {
    PyObject *it = PyObject_CallMethod(lum, "__getitem__", "(i)", vi);
    PyObject *x = it ? PyObject_CallMethod(it, "item", NULL) : NULL;
    Py_XDECREF(it);
    if (!x) return -1;
    *out = PyLong_AsLong(x);
    Py_DECREF(x);
    return 0;
}

static int finalize_bucket_dense(red_obj *r, bucket_t *b) {
    for (int j = 0; j < b->n; j++) {
        PyObject *v = PyList_GetItem(b->variables, j);
        int vi = b->vars[j];
        bool global_unused = false;
        if (r->static_graph || r->find_unused) {
            long u;
            if (lum_get(r->lum, vi, &u) < 0) return -1;
            global_unused = u == 0;
            if (global_unused && !r->lum_reduced) {
                if (r->lum_work && callv(r->lum_work, "wait", NULL) < 0) return -1;
                if (callv(r->lum, "copy_", "(O)", r->lum_dev) < 0 || lum_get(r->lum, vi, &u) < 0) return -1;
                global_unused = u == 0;
                r->lum_reduced = true;
            }
        }
        PyObject *vout = PyList_GetItem(b->views_out, j), *vin = PyList_GetItem(b->views_in, j);
        if (!r->as_view) {
            if (global_unused) continue;
            PyObject *g = py_grad(v);
            if (!g) {
                PyObject *ng = clone_obey_contract(vout, v);
                if (!ng) return -1;
                set_grad(v, ng);
                Py_DECREF(ng);
            } else if (callv(g, "copy_", "(O)", vout) < 0) {
                return -1;
            }
        } else {
            if (!is_alias_of(vin, vout) && callv(vin, "copy_", "(O)", vout) < 0) return -1;
            if (global_unused) continue;
            PyObject *g = py_grad(v);
            if (!g) set_grad(v, vin);
            else if (!is_alias_of(g, vin))
                return red_fail(r, PyUnicode_FromString("Detected at least one parameter gradient is not the expected DDP bucket "
                                                        "view with gradient_as_bucket_view=True. This may happen (for example) if "
                                                        "multiple allreduce hooks were registered onto the same parameter. If you "
                                                        "hit this error, please file an issue with a minimal repro."));
        }
    }
    return 0;
}

/* sparse metadata: the result holds one row per global row id; it becomes a sparse tensor at those
 * ids, copied into .grad. On gloo the sparse all_reduce's result is sparse, which upstream's
 * sparse_coo_tensor refuses (values must be dense): only a comm hook returning a dense tensor passes */
static int finalize_sparse_meta(red_obj *r, bucket_t *b, PyObject *res) {
    if (!b->sparse_idx) {
        PyErr_SetString(PyExc_RuntimeError, "bad optional access");
        return -1;
    }
    PyObject *size = sizes_of(b->gradients);
    PyObject *s0 = size ? PySequence_GetItem(size, 0) : NULL;
    long long rows = s0 ? PyLong_AsLongLong(s0) : -1;
    Py_XDECREF(s0);
    if (rows < 0 && PyErr_Occurred()) { Py_XDECREF(size); return -1; }
    if (t_numel(b->sparse_idx) != rows) {
        Py_DECREF(size);
        return red_fail(r, PyUnicode_FromString("Sparse metadata and gradient size mismatch"));
    }
    if (tn_sparse_of(res)) {   /* upstream's sparse_coo_tensor check (ours refuses sparse values as not implemented) */
        Py_DECREF(size);
        PyErr_SetString(PyExc_RuntimeError, "expected values to be a dense tensor, but got values of layout Sparse");
        return -1;
    }
    PyObject *coo = torch_attr("sparse_coo_tensor");
    PyObject *sr = coo ? PyObject_CallFunctionObjArgs(coo, b->sparse_idx, res, size, NULL) : NULL;
    int rc = sr ? callv(b->gradients, "copy_", "(O)", sr) : -1;
    Py_XDECREF(coo); Py_XDECREF(sr); Py_DECREF(size);
    return rc;
}

static int finalize_backward(red_obj *r) {
    r->expect_hooks = false;
    r->require_finalize = false;
    for (int i = 0; i < r->nb; i++) {
        bucket_t *b = &r->b[i];
        if (!b->future) {
            if (r->skip_unused && bucket_unused(r, b)) continue;
            PyErr_SetString(PyExc_RuntimeError, "Expected bucket.future_work not to be null. This may indicate that "
                                                "communication hook was not properly installed.");
            return -1;
        }
        PyObject *val = PyObject_CallMethod(b->future, "wait", NULL);
        if (!val) return -1;
        PyObject *res = val;
        if (PyList_Check(val) || PyTuple_Check(val)) res = PySequence_Size(val) > 0 ? PySequence_GetItem(val, 0) : NULL;
        else Py_INCREF(res);
        Py_DECREF(val);
        if (!res || !tn_py_is_tensor(res)) {
            if (res || !PyErr_Occurred())
                PyErr_Format(PyExc_RuntimeError, "expected the communication hook's future to hold a Tensor, got %s",
                             res ? tn_py_type_name(res) : "an empty list");
            Py_XDECREF(res);
            return -1;
        }
        r->div_factor = -1;
        if (b->sparse) {   /* the result into the param's sparse .grad (the gradients tensor) */
            int rc = r->sparse_meta ? finalize_sparse_meta(r, b, res)
                                    : res == b->gradients ? 0 : callv(b->gradients, "copy_", "(O)", res);
            Py_DECREF(res);
            if (rc < 0) return -1;
            continue;
        }
        /* views_out on the result (upstream's populate_bucket_views_out) */
        PyObject *outs = PyList_New(b->n);
        for (int j = 0; outs && j < b->n; j++) {
            PyObject *vw = bucket_view(res, PyList_GetItem(b->variables, j), b->offsets[j], b->lengths[j]);
            if (!vw) Py_CLEAR(outs);
            else PyList_SetItem(outs, j, vw);
        }
        Py_DECREF(res);
        if (!outs) return -1;
        Py_XSETREF(b->views_out, outs);
        if (finalize_bucket_dense(r, b) < 0) return -1;
    }
    if (r->installed) {
        for (Py_ssize_t i = 0; i < PyList_Size(r->installed); i++)
            if (callv(PyList_GetItem(r->installed, i), "wait", NULL) < 0) return -1;
        Py_CLEAR(r->installed);
    }
    if ((dyn_find_unused(r) || static_first(r)) && !r->lum_reduced && r->lum_work) {
        if (callv(r->lum_work, "wait", NULL) < 0) return -1;
    }
    if (dyn_find_unused(r)) {
        if (callv(r->lum, "zero_", NULL) < 0) return -1;
        r->lum_reduced = false;
    }
    if (collect_stats(r)) record(r, EV_BWD_COMM_END);
    Py_CLEAR(r->sparse_meta);   /* for one iteration */
    return 0;
}

static PyObject *finalize_cb(PyObject *wr, PyObject *unused) {
    PyObject *rr = PyWeakref_GetObject(wr);
    if (!rr) return NULL;
    if (rr == Py_None) Py_RETURN_NONE;
    red_obj *r = (red_obj *)rr;
    Py_INCREF(rr);
    int rc = 0;
    if (collect_stats(r)) record(r, EV_BWD_COMPUTE_END);
    if (static_after_first(r) && should_rebuild(r))
        for (int k = 0; k < r->nunused; k++) push_rebuilt(r, r->unused[k]);
    rc = finalize_backward(r);
    Py_DECREF(rr);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static int *int_list(PyObject *seq, int *n, const char *what) {
    int64_t *a = long_array(seq, n, what);
    if (!a) return NULL;
    int *r = malloc((size_t)(*n ? *n : 1) * sizeof *r);
    if (!r) { free(a); PyErr_NoMemory(); return NULL; }
    for (int i = 0; i < *n; i++) r[i] = (int)a[i];
    free(a);
    return r;
}

static int bucket_list_from_py(PyObject *seq, bucket_list *bl) {
    Py_ssize_t m = PySequence_Check(seq) ? PySequence_Size(seq) : -1;
    if (m < 0) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "bucket_indices must be a sequence of sequences");
        return -1;
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        int n;
        PyObject *x = PySequence_GetItem(seq, i);
        int *idx = x ? int_list(x, &n, "bucket_indices must be a sequence of sequences") : NULL;
        Py_XDECREF(x);
        if (!idx || blist_push(bl, idx, n, 0) < 0) { free(idx); return -1; }
    }
    return 0;
}

static int red_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"params", "bucket_indices", "per_bucket_size_limits", "process_group", "expect_sparse_gradients",
                          "bucket_bytes_cap", "find_unused_parameters", "gradient_as_bucket_view", "param_to_name_mapping",
                          "first_bucket_bytes_cap", "skip_all_reduce_unused_params", "use_python_reducer",
                          "bucket_bytes_cap_list", "batched_grad_copy", NULL};
    red_obj *r = (red_obj *)self;
    PyObject *params, *bidx, *limits, *pg, *sparse = NULL, *names = NULL, *caplist = NULL;
    long long cap = 26214400, first = 1048576;
    int find_unused = 0, as_view = 0, skip = 0, pyred = 0, batched = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OLppOLppOp:Reducer", kws, &params, &bidx, &limits, &pg, &sparse, &cap,
                                     &find_unused, &as_view, &names, &first, &skip, &pyred, &caplist, &batched))
        return -1;
    if (r->params) {
        PyErr_SetString(PyExc_RuntimeError, "Reducer.__init__ called twice");
        return -1;
    }
    r->params = PySequence_List(params);
    if (!r->params) return -1;
    r->np = (int)PyList_Size(r->params);
    if (r->np == 0) {
        PyErr_SetString(PyExc_RuntimeError, "Expected at least one parameter.");
        return -1;
    }
    for (int i = 0; i < r->np; i++)
        if (!tn_py_is_tensor(PyList_GetItem(r->params, i))) {
            PyErr_Format(PyExc_TypeError, "Reducer(): params must be tensors, got %s", tn_py_type_name(PyList_GetItem(r->params, i)));
            return -1;
        }
    r->pg = Py_NewRef(pg);
    r->bucket_bytes_cap = cap;
    r->first_bucket_bytes_cap = first;
    r->find_unused = find_unused;
    r->as_view = as_view;
    r->skip_unused = skip;
    r->batched = batched;
    r->div_factor = -1;
    r->graph_static = true;
    r->sample_rate = 100;
    for (int e = 0; e < EV_COUNT; e++) r->timer[e] = -1;
    r->names = PyDict_New();   /* upstream copies it into a map */
    if (!r->names || (names && PyDict_Update(r->names, names) < 0)) return -1;
    PyObject *lvl = PyObject_CallMethod(c10d, "get_debug_level", NULL), *lv = lvl ? PyNumber_Long(lvl) : NULL;
    Py_XDECREF(lvl);
    if (!lv) return -1;
    r->debug = PyLong_AsLong(lv) != 0;
    Py_DECREF(lv);
    size_t np = (size_t)r->np;
    r->loc_b = malloc(np * sizeof(int));
    r->loc_i = malloc(np * sizeof(int));
    r->sparse = calloc(np, 1);
    r->ready = calloc(np, 1);
    r->unused = malloc(np * sizeof(int));
    r->prev_unused = malloc(np * sizeof(int));
    r->rebuilt = malloc(np * sizeof(int));
    r->gro = malloc(np * sizeof(int) * 4);
    r->hooks_seen = calloc(np, sizeof(int));
    r->hooks_left = calloc(np, sizeof(int));
    r->bwd_stats = calloc(np, sizeof(int64_t));
    if (!r->loc_b || !r->loc_i || !r->sparse || !r->ready || !r->unused || !r->prev_unused || !r->rebuilt || !r->gro || !r->hooks_seen ||
        !r->hooks_left || !r->bwd_stats) {
        PyErr_NoMemory();
        return -1;
    }
    if (sparse) {
        int n;
        int64_t *s = long_array(sparse, &n, "expect_sparse_gradients must be a sequence");
        if (!s) return -1;
        if (n && n != r->np) {
            free(s);
            PyErr_SetString(PyExc_RuntimeError, "Expected exactly one expect_sparse_gradients entry per parameter.");
            return -1;
        }
        for (int i = 0; i < n; i++) r->sparse[i] = s[i] != 0;
        free(s);
    }
    if (caplist) {
        r->cap_list = long_array(caplist, &r->ncap_list, "bucket_bytes_cap_list must be a sequence");
        if (!r->cap_list) return -1;
    }
    bucket_list bl = {0};
    int rc = bucket_list_from_py(bidx, &bl);
    if (rc == 0) rc = init_buckets(r, &bl);
    blist_free(&bl);
    if (rc < 0) return -1;
    /* hooks on every param's AccumulateGrad */
    r->acc = PyList_New(r->np);
    r->hooks = PyList_New(r->np);
    if (!r->acc || !r->hooks) return -1;
    PyObject *wr = PyWeakref_NewRef(self, NULL);
    if (!wr) return -1;
    for (int i = 0; i < r->np; i++) {
        tn_edge e;
        PyObject *p = PyList_GetItem(r->params, i);
        if (tn_gradient_edge(p, &e) < 0) { Py_DECREF(wr); return -1; }
        if (!e.fn || ((tn_node *)e.fn)->kind != TN_NODE_ACCUMULATE) {
            Py_XDECREF(e.fn);
            Py_DECREF(wr);
            PyErr_Format(PyExc_RuntimeError, "Reducer(): parameter %d is not a leaf that requires grad", i);
            return -1;
        }
        PyList_SetItem(r->acc, i, e.fn);
        PyObject *st = Py_BuildValue("(Oi)", wr, i);
        PyObject *h = st ? PyCFunction_New(&hook_def, st) : NULL;
        Py_XDECREF(st);
        if (!h) { Py_DECREF(wr); return -1; }
        PyList_SetItem(r->hooks, i, h);
        PyObject *reg = PyObject_CallMethod(e.fn, "register_hook", "O", h);
        if (!reg) { Py_DECREF(wr); return -1; }
        Py_DECREF(reg);
    }
    Py_DECREF(wr);
    /* local_used_map: int32 zeros per param, and the copy that is all-reduced */
    PyObject *zeros = torch_attr("zeros"), *i32 = torch_attr("int32");
    PyObject *kwd = zeros && i32 ? Py_BuildValue("{sO}", "dtype", i32) : NULL;
    PyObject *a = kwd ? Py_BuildValue("(i)", r->np) : NULL;
    r->lum = a ? PyObject_Call(zeros, a, kwd) : NULL;
    r->lum_dev = r->lum ? PyObject_Call(zeros, a, kwd) : NULL;
    Py_XDECREF(zeros); Py_XDECREF(i32); Py_XDECREF(kwd); Py_XDECREF(a);
    return r->lum_dev ? 0 : -1;
}

static void remove_hooks(red_obj *r) {
    for (Py_ssize_t i = 0; r->acc && r->hooks && i < PyList_Size(r->acc); i++) {
        tn_node *n = (tn_node *)PyList_GetItem(r->acc, i);
        PyObject *h = PyList_GetItem(r->hooks, i);
        if (!n || !h || !n->post_hooks) continue;
        for (Py_ssize_t k = PyList_Size(n->post_hooks) - 1; k >= 0; k--)
            if (PyList_GetItem(n->post_hooks, k) == h) PySequence_DelItem(n->post_hooks, k);
    }
    Py_CLEAR(r->hooks);
}

static int red_traverse(PyObject *self, visitproc visit, void *arg) {
    red_obj *r = (red_obj *)self;
    Py_VISIT(r->params); Py_VISIT(r->pg); Py_VISIT(r->acc); Py_VISIT(r->hooks); Py_VISIT(r->lum); Py_VISIT(r->lum_dev);
    Py_VISIT(r->lum_work); Py_VISIT(r->hook_state); Py_VISIT(r->hook_fn); Py_VISIT(r->fwd_work); Py_VISIT(r->logger);
    Py_VISIT(r->installed); Py_VISIT(r->names); Py_VISIT(r->sparse_meta);
    for (int i = 0; r->b && i < r->nb; i++) {
        Py_VISIT(r->b[i].variables); Py_VISIT(r->b[i].gradients); Py_VISIT(r->b[i].views_in);
        Py_VISIT(r->b[i].views_out); Py_VISIT(r->b[i].future); Py_VISIT(r->b[i].sparse_idx);
    }
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int red_clear(PyObject *self) {
    red_obj *r = (red_obj *)self;
    remove_hooks(r);
    free_buckets(r);
    Py_CLEAR(r->params); Py_CLEAR(r->pg); Py_CLEAR(r->acc); Py_CLEAR(r->lum); Py_CLEAR(r->lum_dev);
    Py_CLEAR(r->lum_work); Py_CLEAR(r->hook_state); Py_CLEAR(r->hook_fn); Py_CLEAR(r->fwd_work); Py_CLEAR(r->logger);
    Py_CLEAR(r->installed); Py_CLEAR(r->names); Py_CLEAR(r->sparse_meta);
    return 0;
}
static void red_dealloc(PyObject *self) {
    red_obj *r = (red_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (r->weakrefs) PyObject_ClearWeakRefs(self);
    red_clear(self);
    free(r->loc_b); free(r->loc_i); free(r->sparse); free(r->ready); free(r->unused); free(r->prev_unused);
    free(r->rebuilt); free(r->gro); free(r->hooks_seen); free(r->hooks_left); free(r->bwd_stats); free(r->cap_list);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static red_obj *ready_red(PyObject *self) {
    red_obj *r = (red_obj *)self;
    if (!r->params) {
        PyErr_SetString(PyExc_RuntimeError, "Reducer: not initialized");
        return NULL;
    }
    return r;
}

static PyObject *r_prepare_for_forward(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    r->num_iterations++;
    if (collect_stats(r)) record(r, EV_FWD_START);
    Py_RETURN_NONE;
}

/* upstream's search_unused_parameters: params whose AccumulateGrad is not reachable from the
 * outputs' grad_fns */
static int search_unused(red_obj *r, PyObject *outputs) {
    PyObject *seen = PySet_New(NULL), *stack = PyList_New(0);
    int rc = -1;
    if (!seen || !stack) goto done;
    for (Py_ssize_t i = 0; i < PyList_Size(outputs); i++) {
        PyObject *t = PyList_GetItem(outputs, i);
        if (!tn_py_is_tensor(t)) continue;
        PyObject *gf = PyObject_GetAttrString(t, "grad_fn");
        if (!gf) goto done;
        if (gf != Py_None && tn_is_node(gf) && PyList_Append(stack, gf) < 0) { Py_DECREF(gf); goto done; }
        Py_DECREF(gf);
    }
    while (PyList_Size(stack) > 0) {
        Py_ssize_t last = PyList_Size(stack) - 1;
        tn_node *n = (tn_node *)Py_NewRef(PyList_GetItem(stack, last));
        if (PySequence_DelItem(stack, last) < 0) { Py_DECREF(n); goto done; }
        for (int e = 0; e < n->nnext; e++) {
            PyObject *nx = n->next[e].fn;
            if (!nx) continue;
            PyObject *key = PyLong_FromVoidPtr(nx);
            int has = key ? PySet_Contains(seen, key) : -1;
            if (has == 0) has = PySet_Add(seen, key) < 0 ? -1 : (PyList_Append(stack, nx) < 0 ? -1 : 0);
            Py_XDECREF(key);
            if (has < 0) { Py_DECREF(n); goto done; }
        }
        Py_DECREF(n);
    }
    r->nunused = 0;
    for (int i = 0; i < r->np; i++) {
        PyObject *key = PyLong_FromVoidPtr(PyList_GetItem(r->acc, i));
        int has = key ? PySet_Contains(seen, key) : -1;
        Py_XDECREF(key);
        if (has < 0) goto done;
        if (!has) r->unused[r->nunused++] = i;
    }
    if (r->nunused == 0) {
        static int warned;
        if (!warned) {
            warned = 1;
            if (PyErr_WarnEx(PyExc_UserWarning,
                             "find_unused_parameters=True was specified in DDP constructor, but did not find any unused "
                             "parameters in the forward pass. This flag results in an extra traversal of the autograd graph "
                             "every iteration,  which can adversely affect performance. If your model indeed never has any "
                             "unused parameters in the forward pass, consider turning this flag off. Note that this warning "
                             "may be a false positive if your model has flow control causing later iterations to have unused "
                             "parameters.", 1) < 0)
                goto done;
        }
    }
    if (!r->static_graph && r->graph_static) {
        if (r->num_iterations > 1)
            r->graph_static = r->nprev_unused == r->nunused && !memcmp(r->prev_unused, r->unused, (size_t)r->nunused * sizeof(int));
        memcpy(r->prev_unused, r->unused, (size_t)r->nunused * sizeof(int));
        r->nprev_unused = r->nunused;
    }
    rc = 0;
done:
    Py_XDECREF(seen);
    Py_XDECREF(stack);
    return rc;
}

static PyObject *r_prepare_for_backward(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"outputs", NULL};
    PyObject *outs = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:prepare_for_backward", kws, &outs)) return NULL;
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    /* not reached through upstream's DDP on CPU: the module's forward pre-hook records a
     * torch.Event first, which raises "cpu backend doesn't support events." (stream.c) as upstream */
    if (r->mixed_precision) return tn_not_implemented("DistributedDataParallel's Reducer with mixed precision");
    PyObject *ol = NULL;
    if (!outs) ol = PyList_New(0);
    else if (tn_py_is_tensor(outs)) ol = PyList_New(1), ol && (PyList_SetItem(ol, 0, Py_NewRef(outs)), 0);
    else ol = PySequence_List(outs);
    if (!ol) return NULL;
    r->bwd_start = now_ns();
    if (collect_stats(r)) record(r, EV_BWD_COMPUTE_START);
    r->expect_hooks = true;
    r->first_hook_called = false;
    r->ngro = 0;
    reset_bucket_counting(r);
    r->has_marked_unused = false;
    memset(r->ready, 0, (size_t)r->np);
    int rc = 0;
    if (dyn_find_unused(r)) {
        r->nunused = 0;
        rc = search_unused(r, ol);
    }
    Py_DECREF(ol);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *unmarked_text(red_obj *r) {
    PyObject *lst = PyList_New(0);
    for (int i = 0; lst && i < r->np; i++) {
        if (r->ready[i]) continue;
        PyObject *x = PyLong_FromLong(i);
        if (!x || PyList_Append(lst, x) < 0) Py_CLEAR(lst);
        Py_XDECREF(x);
    }
    if (!lst) return NULL;
    PyObject *s = PyObject_Str(lst);   /* "[1, 2]" */
    Py_DECREF(lst);
    if (!s) return NULL;
    /* c10::str of a vector prints "1 2": upstream's text */
    PyObject *noL = PyUnicode_Substring(s, 1, PyUnicode_GetLength(s) - 1);
    Py_DECREF(s);
    if (!noL) return NULL;
    PyObject *parts = PyUnicode_Split(noL, PyUnicode_FromString(", "), -1);
    Py_DECREF(noL);
    if (!parts) return NULL;
    PyObject *sp = PyUnicode_FromString(" ");
    PyObject *j = sp ? PyUnicode_Join(sp, parts) : NULL;
    Py_XDECREF(sp);
    Py_DECREF(parts);
    return j;
}

/* debug mode: the names of the unmarked params, in the order upstream's unordered_map<size_t, string>
 * of them iterates (pybind reserves it for all names, so every index has a hash bucket of its own and
 * libstdc++ iterates the most recently inserted first: the mapping's reverse order) */
static PyObject *unmarked_names(red_obj *r) {
    PyObject *items = PyDict_Items(r->names), *l = items ? PyList_New(0) : NULL;
    for (Py_ssize_t i = l ? PyList_Size(items) - 1 : -1; i >= 0; i--) {
        PyObject *kv = PyList_GetItem(items, i);
        long vi = PyLong_AsLong(PyTuple_GetItem(kv, 0));
        if (vi == -1 && PyErr_Occurred()) { Py_CLEAR(l); break; }
        if (vi >= 0 && vi < r->np && r->ready[vi]) continue;
        if (PyList_Append(l, PyTuple_GetItem(kv, 1)) < 0) { Py_CLEAR(l); break; }
    }
    Py_XDECREF(items);
    PyObject *sep = l ? PyUnicode_FromString(", ") : NULL;
    PyObject *j = sep ? PyUnicode_Join(sep, l) : NULL;
    Py_XDECREF(sep);
    Py_XDECREF(l);
    return j;
}

static int ensure_prior_reduction_finished(red_obj *r) {
    if (!r->require_finalize) return 0;
    PyObject *idx = unmarked_text(r);
    if (!idx) return -1;
    const char *outputs = "making sure all `forward` function outputs participate in calculating loss. ";
    const char *bug = "\nIf you already have done the above, then the distributed data parallel module wasn't able to locate "
                      "the output tensors in the return value of your module's `forward` function. Please include the loss "
                      "function and the structure of the return value of `forward` of your module when reporting this issue "
                      "(e.g. list, dict, iterable).";
    PyObject *base;
    if (r->static_graph)
        base = PyUnicode_FromString("Expected to have finished reduction in the prior iteration before starting a new one. "
                                    "This error indicates that your training graph has changed in this iteration, e.g., one "
                                    "parameter is used in first iteration, but then got unused in the second iteration. this "
                                    "is not compatible with static_graph set to True.");
    else if (!r->find_unused)
        base = PyUnicode_FromFormat("Expected to have finished reduction in the prior iteration before starting a new one. "
                                    "This error indicates that your module has parameters that were not used in producing "
                                    "loss. You can enable unused parameter detection by passing the keyword argument "
                                    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n%s%s",
                                    outputs, bug);
    else
        base = PyUnicode_FromFormat("Expected to have finished reduction in the prior iteration before starting a new one. "
                                    "This error indicates that your module has parameters that were not used in producing "
                                    "loss. Since `find_unused_parameters=True` is enabled, this likely  means that not all "
                                    "`forward` outputs participate in computing loss. You can fix this by %s%s", outputs, bug);
    long rank = pg_int(r->pg, "rank");
    PyObject *names = r->debug && base ? unmarked_names(r) : NULL, *msg = NULL;
    if (!r->debug && base)
        msg = PyUnicode_FromFormat("%U\nParameter indices which did not receive grad for rank %ld: %U\n In addition, you can "
                                   "set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print "
                                   "out information about which particular parameters did not receive gradient on this rank "
                                   "as part of this error", base, rank, idx);
    else if (names)
        msg = PyUnicode_FromFormat("%U\nParameters which did not receive grad for rank %ld: %U\nParameter indices which did "
                                   "not receive grad for rank %ld: %U", base, rank, names, rank, idx);
    Py_XDECREF(base);
    Py_XDECREF(names);
    Py_DECREF(idx);
    return red_fail(r, msg);
}

/* upstream's sync_bucket_indices: rank 0's assignment, broadcast as int32 */
static int sync_bucket_indices(red_obj *r, bucket_list *bl) {
    int total = 0;
    for (int i = 0; i < bl->n; i++) total += bl->b[i].n;
    PyObject *vals = PyList_New(total + 1);
    if (!vals) return -1;
    int k = 0;
    for (int i = 0; i < bl->n; i++)
        for (int j = 0; j < bl->b[i].n; j++) PyList_SetItem(vals, k++, PyLong_FromLong(bl->b[i].idx[j]));
    PyList_SetItem(vals, k, PyLong_FromLong(bl->n));
    PyObject *tensor = torch_attr("tensor"), *i32 = torch_attr("int32");
    PyObject *kw = tensor && i32 ? Py_BuildValue("{sO}", "dtype", i32) : NULL;
    PyObject *a = kw ? PyTuple_Pack(1, vals) : NULL;
    PyObject *t = a ? PyObject_Call(tensor, a, kw) : NULL;
    Py_XDECREF(a);
    Py_DECREF(vals);
    int rc = -1;
    PyObject *lst = NULL, *t2 = NULL, *lst2 = NULL;
    if (!t || pg_broadcast_wait(r->pg, t, 0) < 0) goto done;
    lst = PyObject_CallMethod(t, "tolist", NULL);
    if (!lst) goto done;
    int nb = (int)PyLong_AsLong(PyList_GetItem(lst, total));
    if (nb < 0 || nb > total) {
        PyErr_SetString(PyExc_RuntimeError, "sync_bucket_indices: rank 0 sent an invalid bucket count");
        goto done;
    }
    vals = PyList_New(nb);
    if (!vals) goto done;
    for (int i = 0; i < nb; i++) PyList_SetItem(vals, i, PyLong_FromLong(i < bl->n ? bl->b[i].n : 0));
    a = PyTuple_Pack(1, vals);
    Py_DECREF(vals);
    t2 = a ? PyObject_Call(tensor, a, kw) : NULL;
    Py_XDECREF(a);
    if (!t2 || pg_broadcast_wait(r->pg, t2, 0) < 0) goto done;
    lst2 = PyObject_CallMethod(t2, "tolist", NULL);
    if (!lst2) goto done;
    bucket_list nbl = {0};
    int pos = 0;
    for (int i = 0; i < nb; i++) {
        int sz = (int)PyLong_AsLong(PyList_GetItem(lst2, i));
        if (sz < 0 || pos + sz > total) {
            blist_free(&nbl);
            PyErr_SetString(PyExc_RuntimeError, "sync_bucket_indices: rank 0 sent invalid bucket sizes");
            goto done;
        }
        int *idx = malloc((size_t)(sz ? sz : 1) * sizeof(int));
        if (!idx) { blist_free(&nbl); PyErr_NoMemory(); goto done; }
        for (int j = 0; j < sz; j++) idx[j] = (int)PyLong_AsLong(PyList_GetItem(lst, pos + j));
        pos += sz;
        if (blist_push(&nbl, idx, sz, 0) < 0) { free(idx); blist_free(&nbl); goto done; }
    }
    blist_free(bl);
    *bl = nbl;
    rc = 0;
done:
    Py_XDECREF(tensor); Py_XDECREF(i32); Py_XDECREF(kw); Py_XDECREF(t); Py_XDECREF(t2); Py_XDECREF(lst); Py_XDECREF(lst2);
    return rc;
}

static PyObject *r_rebuild_buckets(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (ensure_prior_reduction_finished(r) < 0) return NULL;
    if (!should_rebuild(r) || r->nrebuilt == 0) Py_RETURN_FALSE;
    if (r->nrebuilt != r->np) {
        PyErr_Format(PyExc_RuntimeError, "rebuilt parameter indices size is not same as original model parameters size. "
                     "Original model param size is: %d versus rebuilt params size of: %d", r->np, r->nrebuilt);
        return NULL;
    }
    int64_t two[2] = {r->first_bucket_bytes_cap, r->bucket_bytes_cap};
    const int64_t *lim = r->ncap_list ? r->cap_list : two;
    int nlim = r->ncap_list ? r->ncap_list : 2;
    /* DDP_SET_LAST_BUCKET_CAP=1 (exactly "1", upstream's reducer): the params are assigned in
     * reverse order and the buckets then reversed, so the small first cap lands on the last
     * bucket (docs/ddp.md) */
    const char *env = getenv("DDP_SET_LAST_BUCKET_CAP");
    bool last_small = env && !strcmp(env, "1");
    if (last_small)
        for (int i = 0, j = r->nrebuilt - 1; i < j; i++, j--) { int t = r->rebuilt[i]; r->rebuilt[i] = r->rebuilt[j]; r->rebuilt[j] = t; }
    PyObject *rp = PyList_New(r->nrebuilt);
    if (!rp) return NULL;
    for (int i = 0; i < r->nrebuilt; i++) PyList_SetItem(rp, i, Py_NewRef(PyList_GetItem(r->params, r->rebuilt[i])));
    bucket_list bl = {0};
    int rc = assign_buckets(rp, lim, nlim, r->sparse, r->rebuilt, &bl);
    Py_DECREF(rp);
    if (rc == 0 && last_small)
        for (int i = 0, j = bl.n - 1; i < j; i++, j--) { bucket_out t = bl.b[i]; bl.b[i] = bl.b[j]; bl.b[j] = t; }
    if (rc == 0) rc = sync_bucket_indices(r, &bl);
    if (rc == 0) {
        r->has_rebuilt = true;
        r->nrebuilt = 0;
        rc = init_buckets(r, &bl);
    }
    blist_free(&bl);
    if (rc < 0) return NULL;
    Py_RETURN_TRUE;
}

static PyObject *r_get_backward_stats(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    PyObject *l = PyList_New(r->np);
    for (int i = 0; l && i < r->np; i++) PyList_SetItem(l, i, PyLong_FromLongLong(r->bwd_stats[i]));
    return l;
}
static PyObject *r_push_all_rebuilt(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    r->nrebuilt = 0;
    for (int i = 0; i < r->np; i++) push_rebuilt(r, i);
    Py_RETURN_NONE;
}
static PyObject *r_set_fwd_work(PyObject *self, PyObject *args) {
    PyObject *w;
    int st;
    if (!PyArg_ParseTuple(args, "Op:_set_forward_pass_work_handle", &w, &st)) return NULL;
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    Py_XSETREF(r->fwd_work, Py_NewRef(w));
    r->fwd_static_world = st;
    Py_RETURN_NONE;
}
static PyObject *r_get_local_used_map(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    return r ? Py_NewRef(r->lum_dev) : NULL;
}
static PyObject *r_set_sample_rate(PyObject *self, PyObject *v) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    long long s = PyLong_AsLongLong(v);
    if (s == -1 && PyErr_Occurred()) return NULL;
    if (s < 1) {
        PyErr_SetString(PyExc_RuntimeError, "DDP runtime logging sample rate should be equal or greater than 1");
        return NULL;
    }
    r->sample_rate = s;
    Py_RETURN_NONE;
}
static PyObject *r_set_static_graph(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (r->num_iterations != 0) {
        red_fail(r, PyUnicode_FromString("set_static_graph() should be called before training loop starts and after "
                                          "DistributedDataParallel is constructed."));
        return NULL;
    }
    r->static_graph = true;
    Py_RETURN_NONE;
}
static PyObject *r_graph_static(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    return r ? PyBool_FromLong(r->graph_static) : NULL;
}
/* static graph, first iteration: every gradient into its bucket, then every bucket reduced */
static PyObject *r_delay_all_reduce(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (collect_stats(r)) {
        record(r, EV_BWD_COMPUTE_END);
        record(r, EV_BWD_COMM_START);
    }
    if (all_reduce_local_used_map(r) < 0) return NULL;
    r->nunused = 0;
    r->require_finalize = true;
    for (int i = 0; i < r->np; i++) {
        if (r->hooks_seen[i] == 0) r->unused[r->nunused++] = i;
        if (set_divide_factor(r) < 0 || mark_grad(r, i) < 0) return NULL;
    }
    for (int b = 0; b < r->nb; b++) {
        r->next_bucket = b;   /* upstream's GradBucket index reads next_bucket_ */
        if ((r->batched && flush_deferred(r, &r->b[b]) < 0) || all_reduce_bucket(r, b) < 0) return NULL;
    }
    if (finalize_backward(r) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *r_run_comm_hook(PyObject *self, PyObject *gb) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (!PyObject_TypeCheck(gb, GradBucket_T))
        return PyErr_Format(PyExc_TypeError, "_run_comm_hook(): expected a GradBucket, got %s", tn_py_type_name(gb));
    return run_hook(r, gb);
}
static PyObject *r_run_allreduce_hook(PyObject *self, PyObject *gb) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (!PyObject_TypeCheck(gb, GradBucket_T))
        return PyErr_Format(PyExc_TypeError, "_run_allreduce_hook(): expected a GradBucket, got %s", tn_py_type_name(gb));
    int k = r->hook_kind;
    r->hook_kind = HOOK_NONE;
    PyObject *f = run_hook(r, gb);
    r->hook_kind = k;
    return f;
}
static PyObject *r_autograd_hook(PyObject *self, PyObject *i) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    long vi = PyLong_AsLong(i);
    if (vi == -1 && PyErr_Occurred()) return NULL;
    if (autograd_hook(r, (int)vi) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *r_set_logger(PyObject *self, PyObject *lg) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (!PyObject_TypeCheck(lg, Logger_T)) return PyErr_Format(PyExc_TypeError, "set_logger(): expected a Logger, got %s", tn_py_type_name(lg));
    PyObject *w = PyWeakref_NewRef(lg, NULL);
    if (!w) return NULL;
    Py_XSETREF(r->logger, w);
    Py_RETURN_NONE;
}
static PyObject *r_remove_hooks(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    remove_hooks(r);
    Py_RETURN_NONE;
}
static PyObject *r_check_finalized(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    if (ensure_prior_reduction_finished(r) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *r_reset_state(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    r->expect_hooks = false;
    r->require_finalize = false;
    r->first_hook_called = false;
    memset(r->ready, 0, (size_t)r->np);
    r->div_factor = -1;
    reset_bucket_counting(r);
    if (callv(r->lum, "zero_", NULL) < 0) return NULL;
    r->lum_reduced = false;
    Py_RETURN_NONE;
}
static PyObject *r_update_pg(PyObject *self, PyObject *pg) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    Py_SETREF(r->pg, Py_NewRef(pg));
    Py_RETURN_NONE;
}
static PyObject *r_zeros_like_buckets(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    PyObject *zl = torch_attr("zeros_like");
    PyObject *l = zl ? PyList_New(r->nb) : NULL;
    for (int i = 0; l && i < r->nb; i++) {
        PyObject *z = CALL1(zl, r->b[i].gradients);
        PyObject *gb = z ? make_grad_bucket(r, i, z) : NULL;
        Py_XDECREF(z);
        if (!gb) Py_CLEAR(l);
        else PyList_SetItem(l, i, gb);
    }
    Py_XDECREF(zl);
    return l;
}
static PyObject *r_install_futures(PyObject *self, PyObject *futs) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    PyObject *l = PySequence_List(futs);
    if (!l) return NULL;
    if (!r->installed) r->installed = l;
    else {
        int rc = PySequence_InPlaceConcat(r->installed, l) ? 0 : -1;
        Py_DECREF(l);
        if (rc < 0) return NULL;
    }
    Py_RETURN_NONE;
}
static PyObject *r_set_optim_in_bwd(PyObject *self, PyObject *u) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    r->optim_in_backward = true;
    Py_RETURN_NONE;
}
/* upstream's Mapping[str, Tensor] argument, copied (the next backward's sparse buckets use it) */
static PyObject *r_set_sparse_metadata(PyObject *self, PyObject *m) {
    red_obj *r = ready_red(self);
    if (!r) return NULL;
    PyObject *abc = PyImport_ImportModule("collections.abc");
    PyObject *M = abc ? PyObject_GetAttrString(abc, "Mapping") : NULL;
    int ok = M ? PyObject_IsInstance(m, M) : -1;
    Py_XDECREF(abc); Py_XDECREF(M);
    if (ok < 0) return NULL;
    PyObject *d = ok ? PyDict_New() : NULL, *items = d ? PyMapping_Items(m) : NULL;
    if (ok && !items) { Py_XDECREF(d); return NULL; }
    for (Py_ssize_t i = 0; ok && i < PyList_Size(items); i++) {
        PyObject *kv = PyList_GetItem(items, i), *k = PyTuple_GetItem(kv, 0), *v = PyTuple_GetItem(kv, 1);
        ok = PyUnicode_Check(k) && tn_py_is_tensor(v);
        if (ok && PyDict_SetItem(d, k, v) < 0) { Py_DECREF(d); Py_DECREF(items); return NULL; }
    }
    Py_XDECREF(items);
    if (!ok) {
        Py_XDECREF(d);
        return PyErr_Format(PyExc_TypeError, "_set_sparse_metadata(): incompatible function arguments. The following argument "
                            "types are supported:\n    1. (self: torch._C._distributed_c10d.Reducer, arg0: "
                            "collections.abc.Mapping[str, torch.Tensor]) -> None\n\nInvoked with: %R, %R", self, m);
    }
    Py_XSETREF(r->sparse_meta, d);
    Py_RETURN_NONE;
}
static PyObject *r_set_mixed_precision(PyObject *self, PyObject *dtype) {
    red_obj *r = ready_red(self);
    tn_dtype d;
    if (!r || tn_py_to_dtype(dtype, &d) < 0) return NULL;
    r->mixed_precision = true;
    Py_RETURN_NONE;
}

static PyMethodDef red_methods[] = {
    {"prepare_for_forward", r_prepare_for_forward, METH_NOARGS, NULL},
    {"prepare_for_backward", (PyCFunction)(void (*)(void))r_prepare_for_backward, METH_VARARGS | METH_KEYWORDS, NULL},
    {"get_backward_stats", r_get_backward_stats, METH_NOARGS, NULL},
    {"_install_post_backward_futures", r_install_futures, METH_O, NULL},
    {"_rebuild_buckets", r_rebuild_buckets, METH_NOARGS, NULL},
    {"_get_zeros_like_grad_buckets", r_zeros_like_buckets, METH_NOARGS, NULL},
    {"_set_optimizer_in_backward", r_set_optim_in_bwd, METH_NOARGS, NULL},
    {"_set_sparse_metadata", r_set_sparse_metadata, METH_O, NULL},
    {"_set_mixed_precision_param_dtype", r_set_mixed_precision, METH_O, NULL},
    {"_push_all_rebuilt_params", r_push_all_rebuilt, METH_NOARGS, NULL},
    {"_set_forward_pass_work_handle", r_set_fwd_work, METH_VARARGS, NULL},
    {"_get_local_used_map", r_get_local_used_map, METH_NOARGS, NULL},
    {"_set_ddp_runtime_logging_sample_rate", r_set_sample_rate, METH_O, NULL},
    {"_set_static_graph", r_set_static_graph, METH_NOARGS, NULL},
    {"_ddp_graph_static", r_graph_static, METH_NOARGS, NULL},
    {"_delay_all_reduce", r_delay_all_reduce, METH_NOARGS, NULL},
    {"_run_comm_hook", r_run_comm_hook, METH_O, NULL},
    {"_run_allreduce_hook", r_run_allreduce_hook, METH_O, NULL},
    {"_autograd_hook", r_autograd_hook, METH_O, NULL},
    {"set_logger", r_set_logger, METH_O, NULL},
    {"_remove_autograd_hooks", r_remove_hooks, METH_NOARGS, NULL},
    {"_check_reducer_finalized", r_check_finalized, METH_NOARGS, NULL},
    {"_reset_state", r_reset_state, METH_NOARGS, NULL},
    {"_update_process_group", r_update_pg, METH_O, NULL},
    {NULL},
};
static PyMemberDef red_members[] = {{"__weaklistoffset__", T_PYSSIZET, offsetof(red_obj, weakrefs), READONLY, NULL}, {NULL}};
static PyType_Slot red_slots[] = {
    {Py_tp_new, PyType_GenericNew}, {Py_tp_init, red_init}, {Py_tp_methods, red_methods}, {Py_tp_members, red_members},
    {Py_tp_traverse, red_traverse}, {Py_tp_clear, red_clear}, {Py_tp_dealloc, red_dealloc}, {0, NULL},
};
static PyType_Spec red_spec = {"torch._C._distributed_c10d.Reducer", sizeof(red_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, red_slots};

/* ---------------------------------------------------------------------------------------------
 * Logger and DDPLoggingData */

typedef struct {
    PyObject_HEAD
    PyObject *weakrefs;
    PyObject *reducer;
    PyObject *strs, *ints;     /* dicts */
    int64_t nrecorded;         /* sampled iterations whose runtime stats were set */
} log_obj;

static PyObject *join_ints(const int *v, int n, const char *sep) {
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) PyList_SetItem(l, i, PyUnicode_FromFormat("%d", v[i]));
    if (!l) return NULL;
    PyObject *s = PyUnicode_FromString(sep);
    PyObject *j = s ? PyUnicode_Join(s, l) : NULL;
    Py_XDECREF(s);
    Py_DECREF(l);
    return j;
}
static PyObject *bucket_sizes_text(red_obj *r) {
    PyObject *l = PyList_New(r->nb);
    for (int i = 0; l && i < r->nb; i++) {   /* the bucket's params' bytes (a sparse bucket has no flat buffer) */
        int64_t bytes = 0;
        for (int j = 0; j < r->b[i].n; j++) {
            PyObject *v = PyList_GetItem(r->b[i].variables, j);
            bytes += t_numel(v) * (int64_t)tn_dtype_itemsize(tn_tensor_of(v)->dtype);
        }
        PyList_SetItem(l, i, PyUnicode_FromFormat("%lld", (long long)bytes));
    }
    if (!l) return NULL;
    PyObject *s = PyUnicode_FromString(", ");
    PyObject *j = s ? PyUnicode_Join(s, l) : NULL;
    Py_XDECREF(s);
    Py_DECREF(l);
    return j;
}
static int set_s(log_obj *l, const char *k, PyObject *v) {
    if (!v) return -1;
    int rc = PyDict_SetItemString(l->strs, k, v);
    Py_DECREF(v);
    return rc;
}
static int set_i(log_obj *l, const char *k, long long v) {
    PyObject *o = PyLong_FromLongLong(v);
    if (!o) return -1;
    int rc = PyDict_SetItemString(l->ints, k, o);
    Py_DECREF(o);
    return rc;
}
static PyObject *env_or_na(const char *name) {
    const char *v = getenv(name);
    return PyUnicode_FromString(v ? v : "N/A");
}
static const char *cxx_dtype_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "float";
    case TN_DTYPE_F64: return "double";
    case TN_DTYPE_F16: return "c10::Half";
    case TN_DTYPE_BF16: return "c10::BFloat16";
    default: return "unknown";
    }
}

static int log_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"reducer", NULL};
    PyObject *red;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Logger", kws, &red)) return -1;
    if (!red_of(red)) return -1;
    log_obj *l = (log_obj *)self;
    Py_XSETREF(l->reducer, Py_NewRef(red));
    Py_XSETREF(l->strs, PyDict_New());
    Py_XSETREF(l->ints, PyDict_New());
    return l->strs && l->ints ? 0 : -1;
}

static PyObject *log_set_construction(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"module_name", "device_ids", "output_device", "broadcast_buffers", "has_sync_bn", "static_graph", NULL};
    PyObject *name, *devs;
    long long outdev;
    int bb, sbn, sg;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "UOLppp:set_construction_data_and_log", kws, &name, &devs, &outdev, &bb, &sbn, &sg))
        return NULL;
    log_obj *l = (log_obj *)self;
    red_obj *r = (red_obj *)l->reducer;
    int n;
    int *d = int_list(devs, &n, "device_ids must be a sequence of ints");
    if (!d) return NULL;
    PyObject *dj = join_ints(d, n, ", ");
    free(d);
    /* dtypes: the distinct param dtypes, in order of appearance */
    char dts[256] = "";
    int seen[64] = {0};
    for (int i = 0; i < r->np; i++) {
        tn_dtype dt = tn_tensor_of(PyList_GetItem(r->params, i))->dtype;
        if ((int)dt < 64 && seen[dt]) continue;
        if ((int)dt < 64) seen[dt] = 1;
        if (dts[0]) strncat(dts, ", ", sizeof dts - strlen(dts) - 1);
        strncat(dts, cxx_dtype_name(dt), sizeof dts - strlen(dts) - 1);
    }
    int64_t total = 0;
    for (int i = 0; i < r->np; i++) {
        PyObject *p = PyList_GetItem(r->params, i);
        total += t_numel(p) * (int64_t)tn_dtype_itemsize(tn_tensor_of(p)->dtype);
    }
    long rank = pg_int(r->pg, "rank"), world = pg_int(r->pg, "size");
    PyObject *bn = PyObject_CallMethod(r->pg, "name", NULL);
    if (!bn) { PyErr_Clear(); bn = PyUnicode_FromString("gloo"); }
    const char *dbg = getenv("TORCH_DISTRIBUTED_DEBUG");
    if (set_s(l, "module_name", Py_NewRef(name)) < 0 || set_s(l, "device_ids", dj) < 0 ||
        set_i(l, "output_device", outdev) < 0 || set_i(l, "broadcast_buffers", bb) < 0 || set_i(l, "has_sync_bn", sbn) < 0 ||
        set_i(l, "rank", rank) < 0 || set_i(l, "world_size", world) < 0 || set_i(l, "num_parameter_tensors", r->np) < 0 ||
        set_i(l, "total_parameter_size_bytes", total) < 0 || set_s(l, "dtypes", PyUnicode_FromString(dts)) < 0 ||
        set_s(l, "bucket_sizes", bucket_sizes_text(r)) < 0 || set_i(l, "bucket_cap_bytes", r->bucket_bytes_cap) < 0 ||
        set_i(l, "find_unused_parameters", r->find_unused) < 0 || set_i(l, "gradient_as_bucket_view", r->as_view) < 0 ||
        set_s(l, "backend_name", bn) < 0 || set_i(l, "is_multi_device_module", 0) < 0 ||
        set_i(l, "iteration", 0) < 0 || set_s(l, "master_port", env_or_na("MASTER_PORT")) < 0 ||
        set_s(l, "master_addr", env_or_na("MASTER_ADDR")) < 0 || set_s(l, "cuda_visible_devices", env_or_na("CUDA_VISIBLE_DEVICES")) < 0 ||
        set_s(l, "gloo_socket_ifname", env_or_na("GLOO_SOCKET_IFNAME")) < 0 ||
        set_s(l, "gloo_device_transport", env_or_na("GLOO_DEVICE_TRANSPORT")) < 0 || set_i(l, "gloo_num_threads", 2) < 0 ||
        set_s(l, "torch_distributed_debug", PyUnicode_FromString(dbg && dbg[0] ? dbg : "N/A")) < 0)
        return NULL;
    if (sg && set_i(l, "static_graph", 1) < 0) return NULL;
    Py_RETURN_NONE;
}

/* upstream's reset_performance_stats, then each duration (skipped when its end precedes its start),
 * averaged over the sampled iterations, and the events' timestamps */
static int set_timing(log_obj *l, red_obj *r) {
    static const char *zeroed[] = {"forward_compute_time", "backward_comm_time", "backward_compute_time",
                                   "backward_compute_comm_overlap_time", "forward_compute_time_start",
                                   "backward_compute_time_start", "backward_comm_time_start", "backward_compute_time_end",
                                   "backward_comm_time_end"};
    static const struct { const char *avg, *dur; int start, end; } spans[] = {
        {"avg_forward_compute_time", "forward_compute_time", EV_FWD_START, EV_BWD_COMPUTE_START},
        {"avg_backward_compute_time", "backward_compute_time", EV_BWD_COMPUTE_START, EV_BWD_COMPUTE_END},
        {"avg_backward_comm_time", "backward_comm_time", EV_BWD_COMM_START, EV_BWD_COMM_END},
        {"avg_backward_compute_comm_overlap_time", "backward_compute_comm_overlap_time", EV_BWD_COMM_START, EV_BWD_COMPUTE_END}};
    static const char *stamps[EV_COUNT] = {"forward_compute_time_start", "backward_compute_time_start",
                                           "backward_compute_time_end", "backward_comm_time_start", "backward_comm_time_end"};
    for (size_t i = 0; i < sizeof zeroed / sizeof *zeroed; i++)
        if (set_i(l, zeroed[i], 0) < 0) return -1;
    for (size_t i = 0; i < sizeof spans / sizeof *spans; i++) {
        int64_t d = r->timer[spans[i].end] - r->timer[spans[i].start];
        if (d < 0) {   /* c10's map[]: the average exists (0) even when not updated */
            if (!PyDict_GetItemString(l->ints, spans[i].avg) && set_i(l, spans[i].avg, 0) < 0) return -1;
            continue;
        }
        PyObject *a = PyDict_GetItemString(l->ints, spans[i].avg);
        long long avg = a ? PyLong_AsLongLong(a) : 0;
        if (set_i(l, spans[i].dur, d) < 0 || set_i(l, spans[i].avg, (d + avg * (l->nrecorded - 1)) / l->nrecorded) < 0) return -1;
    }
    for (int e = 0; e < EV_COUNT; e++)
        if (r->timer[e] != -1 && set_i(l, stamps[e], r->timer[e]) < 0) return -1;
    return 0;
}

static PyObject *log_set_runtime(PyObject *self, PyObject *u) {
    log_obj *l = (log_obj *)self;
    red_obj *r = (red_obj *)l->reducer;
    if (!collect_stats(r)) Py_RETURN_NONE;
    l->nrecorded++;
    if (set_i(l, "iteration", r->num_iterations) < 0) return NULL;
    int64_t unused = 0;
    for (int k = 0; k < r->nunused; k++) {
        PyObject *p = PyList_GetItem(r->params, r->unused[k]);
        unused += t_numel(p) * (int64_t)tn_dtype_itemsize(tn_tensor_of(p)->dtype);
    }
    if (set_i(l, "unused_parameter_size", unused) < 0) return NULL;
    PyObject *hr = PyDict_GetItemString(l->ints, "has_rebuilt_buckets");   /* c10's map[]: 0 when absent */
    long had = hr ? PyLong_AsLong(hr) : 0;
    if (!hr && set_i(l, "has_rebuilt_buckets", 0) < 0) return NULL;
    if (had != (long)r->has_rebuilt) {
        if (set_i(l, "has_rebuilt_buckets", r->has_rebuilt) < 0 || set_s(l, "rebuilt_bucket_sizes", bucket_sizes_text(r)) < 0)
            return NULL;
        PyObject *parts = PyList_New(r->nb);
        for (int i = 0; parts && i < r->nb; i++) {
            PyObject *j = join_ints(r->b[i].vars, r->b[i].n, " ");
            if (!j) Py_CLEAR(parts);
            else PyList_SetItem(parts, i, j);
        }
        PyObject *sep = parts ? PyUnicode_FromString(", ") : NULL;
        PyObject *all = sep ? PyUnicode_Join(sep, parts) : NULL;
        Py_XDECREF(sep);
        Py_XDECREF(parts);
        if (set_s(l, "rebuilt_per_bucket_param_indices", all) < 0) return NULL;
    }
    if (r->ngro > 0 && set_s(l, "prev_iteration_grad_ready_order_indices", join_ints(r->gro, r->ngro, ", ")) < 0) return NULL;
    if (set_i(l, "num_buckets_reduced", r->reduced_buckets) < 0) return NULL;
    if (set_timing(l, r) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *log_set_error(PyObject *self, PyObject *msg) {
    log_obj *l = (log_obj *)self;
    if (set_s(l, "error", PyObject_Str(msg)) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *log_get_data(PyObject *self, PyObject *u) {
    log_obj *l = (log_obj *)self;
    PyObject *o = PyObject_CallNoArgs((PyObject *)LogData_T);
    if (!o) return NULL;
    PyObject *s = PyDict_Copy(l->strs), *i = PyDict_Copy(l->ints);
    int rc = s && i && PyObject_SetAttrString(o, "strs_map", s) == 0 && PyObject_SetAttrString(o, "ints_map", i) == 0 ? 0 : -1;
    Py_XDECREF(s);
    Py_XDECREF(i);
    if (rc < 0) { Py_DECREF(o); return NULL; }
    return o;
}
static PyObject *log_set_hook_name(PyObject *self, PyObject *n) {
    if (set_s((log_obj *)self, "comm_hook", PyObject_Str(n)) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *log_set_join(PyObject *self, PyObject *u) {
    if (set_i((log_obj *)self, "join_uneven_inputs", 1) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *log_set_static(PyObject *self, PyObject *u) {
    if (set_i((log_obj *)self, "static_graph", 1) < 0) return NULL;
    Py_RETURN_NONE;
}
static int log_traverse(PyObject *self, visitproc visit, void *arg) {
    log_obj *l = (log_obj *)self;
    Py_VISIT(l->reducer); Py_VISIT(l->strs); Py_VISIT(l->ints); Py_VISIT(Py_TYPE(self));
    return 0;
}
static int log_clear(PyObject *self) {
    log_obj *l = (log_obj *)self;
    Py_CLEAR(l->reducer); Py_CLEAR(l->strs); Py_CLEAR(l->ints);
    return 0;
}
static void log_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((log_obj *)self)->weakrefs) PyObject_ClearWeakRefs(self);
    log_clear(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyMethodDef log_methods[] = {
    {"set_construction_data_and_log", (PyCFunction)(void (*)(void))log_set_construction, METH_VARARGS | METH_KEYWORDS, NULL},
    {"set_runtime_stats_and_log", log_set_runtime, METH_NOARGS, NULL},
    {"set_error_and_log", log_set_error, METH_O, NULL},
    {"_get_ddp_logging_data", log_get_data, METH_NOARGS, NULL},
    {"_set_comm_hook_name", log_set_hook_name, METH_O, NULL},
    {"_set_uneven_input_join", log_set_join, METH_NOARGS, NULL},
    {"_set_static_graph", log_set_static, METH_NOARGS, NULL},
    {NULL},
};
static PyMemberDef log_members[] = {{"__weaklistoffset__", T_PYSSIZET, offsetof(log_obj, weakrefs), READONLY, NULL}, {NULL}};
static PyType_Slot log_slots[] = {
    {Py_tp_new, PyType_GenericNew}, {Py_tp_init, log_init}, {Py_tp_methods, log_methods}, {Py_tp_members, log_members},
    {Py_tp_traverse, log_traverse}, {Py_tp_clear, log_clear}, {Py_tp_dealloc, log_dealloc}, {0, NULL},
};
static PyType_Spec log_spec = {"torch._C._distributed_c10d.Logger", sizeof(log_obj), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, log_slots};

/* DDPLoggingData: strs_map and ints_map (dicts, settable) */
typedef struct { PyObject_HEAD PyObject *strs, *ints; } ld_obj;
static int ld_init(PyObject *self, PyObject *a, PyObject *k) {
    ld_obj *o = (ld_obj *)self;
    Py_XSETREF(o->strs, PyDict_New());
    Py_XSETREF(o->ints, PyDict_New());
    return o->strs && o->ints ? 0 : -1;
}
static PyObject *ld_get(PyObject *self, void *c) {
    PyObject *v = c ? ((ld_obj *)self)->ints : ((ld_obj *)self)->strs;
    return Py_NewRef(v ? v : Py_None);
}
static int ld_set(PyObject *self, PyObject *v, void *c) {
    if (!v || !PyDict_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "DDPLoggingData: expected a dict");
        return -1;
    }
    PyObject **slot = c ? &((ld_obj *)self)->ints : &((ld_obj *)self)->strs;
    Py_XSETREF(*slot, Py_NewRef(v));
    return 0;
}
static PyGetSetDef ld_getset[] = {{"strs_map", ld_get, ld_set, NULL, NULL}, {"ints_map", ld_get, ld_set, NULL, (void *)1}, {NULL}};
static void ld_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(((ld_obj *)self)->strs);
    Py_CLEAR(((ld_obj *)self)->ints);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyType_Slot ld_slots[] = {{Py_tp_new, PyType_GenericNew}, {Py_tp_init, ld_init}, {Py_tp_getset, ld_getset},
                                 {Py_tp_dealloc, ld_dealloc}, {0, NULL}};
static PyType_Spec ld_spec = {"torch._C._distributed_c10d.DDPLoggingData", sizeof(ld_obj), 0, Py_TPFLAGS_DEFAULT, ld_slots};

/* ---------------------------------------------------------------------------------------------
 * comm hook registration */

static int check_no_hook(red_obj *r) {
    if (r->hook_kind != HOOK_NONE) {
        red_fail(r, PyUnicode_FromString("register_comm_hook or register_builtin_comm_hook can only be called once."));
        return -1;
    }
    return 0;
}
static PyObject *register_comm_hook(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"reducer", "state", "comm_hook", NULL};
    PyObject *red, *state, *hook;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:_register_comm_hook", kws, &red, &state, &hook)) return NULL;
    red_obj *r = red_of(red);
    if (!r || !ready_red(red) || check_no_hook(r) < 0) return NULL;
    r->hook_kind = HOOK_PY;
    Py_XSETREF(r->hook_state, Py_NewRef(state));
    Py_XSETREF(r->hook_fn, Py_NewRef(hook));
    Py_RETURN_NONE;
}
static PyObject *register_builtin_comm_hook(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"reducer", "comm_hook_type", NULL};
    PyObject *red, *type;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:_register_builtin_comm_hook", kws, &red, &type)) return NULL;
    red_obj *r = red_of(red);
    if (!r || !ready_red(red)) return NULL;
    PyObject *E = PyObject_GetAttrString(c10d, "BuiltinCommHookType");
    int ok = E ? PyObject_IsInstance(type, E) : -1;
    Py_XDECREF(E);
    if (ok < 0) return NULL;
    if (!ok) return PyErr_Format(PyExc_TypeError, "_register_builtin_comm_hook(): expected a BuiltinCommHookType, got %s", tn_py_type_name(type));
    long v = PyLong_AsLong(type);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (check_no_hook(r) < 0) return NULL;
    r->hook_kind = v == 2 ? HOOK_FP16 : HOOK_ALLREDUCE;
    Py_RETURN_NONE;
}

static PyMethodDef ddp_funcs[] = {
    {"_compute_bucket_assignment_by_size", (PyCFunction)(void (*)(void))compute_bucket_assignment, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_broadcast_coalesced", (PyCFunction)(void (*)(void))broadcast_coalesced, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_verify_params_across_processes", (PyCFunction)(void (*)(void))verify_params, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_register_comm_hook", (PyCFunction)(void (*)(void))register_comm_hook, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_register_builtin_comm_hook", (PyCFunction)(void (*)(void))register_builtin_comm_hook, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};

int tn_dist_ddp_types_init(PyObject *mod) {
    c10d = mod;
    PyObject *t;
    if (!(t = PyType_FromSpec(&red_spec))) return -1;
    Reducer_T = (PyTypeObject *)t;
    if (tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(mod, "Reducer", t) < 0) return -1;
    if (!(t = PyType_FromSpec(&log_spec))) return -1;
    Logger_T = (PyTypeObject *)t;
    if (tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(mod, "Logger", t) < 0) return -1;
    if (!(t = PyType_FromSpec(&gb_spec))) return -1;
    GradBucket_T = (PyTypeObject *)t;
    if (tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(mod, "GradBucket", t) < 0) return -1;
    if (!(t = PyType_FromSpec(&ld_spec))) return -1;
    LogData_T = (PyTypeObject *)t;
    if (tn_dist_set_meta(t, 0) < 0 || PyModule_AddObjectRef(mod, "DDPLoggingData", t) < 0) return -1;
    return PyModule_AddFunctions(mod, ddp_funcs);
}
