/* ops/rnn.c — recurrent layers (helper-rnn): rnn_tanh / rnn_relu / lstm / gru (.input and the
 * packed .data overloads), their cells, and the packed-sequence ops. Upstream's CPU path for all
 * of them is CompositeImplicitAutograd (aten/src/ATen/native/RNN.cpp, PackedSequence.cpp): each is
 * written here as the same sequence of door calls (linear = t + addmm, unsafe_split, sigmoid_,
 * tanh_, mul, add_, stack, cat, narrow, dropout), so the recorded graph, the op stream a dispatch
 * mode sees and every rounding are upstream's. autograd/decomp.c routes the composites here while
 * recording. Upstream's oneDNN LSTM (float32 without projections, when torch.backends.mkldnn is
 * available) is not reproduced: torch.backends.mkldnn.is_available() is False here, and upstream
 * without oneDNN takes this same decomposition (docs/rnn.md). */
#include "ops/rnn.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <string.h>

enum { CELL_TANH, CELL_RELU, CELL_LSTM, CELL_GRU };

typedef struct { PyObject *w_ih, *w_hh, *b_ih, *b_hh, *w_hr; } cellp;   /* borrowed */
typedef struct { PyObject *h, *c; } hid;                                /* owned; c only for LSTM */

static void hid_clear(hid *x) { Py_CLEAR(x->h); Py_CLEAR(x->c); }

static PyObject *opt_obj(PyObject *o) { return o ? o : Py_None; }

static PyObject *linear(PyObject *x, PyObject *w, PyObject *b) {
    return tn_at_linear(x, w, opt_obj(b));
}

/* upstream's unsafe_chunk(chunks, 1): unsafe_split with the rounded-up chunk size; a tuple */
static PyObject *chunk(PyObject *x, int n) {
    const tn_tensor *t = tn_tensor_of(x);
    int64_t sz = t->ndim > 1 ? t->sizes[1] : 0;
    int64_t split = (sz + n - 1) / n;
    PyObject *r = tn_at_unsafe_split_Tensor(x, (long long)split, 1LL);
    if (!r) return NULL;
    PyObject *f = PySequence_Tuple(r);
    Py_DECREF(r);
    if (f && PyTuple_Size(f) != n) {
        Py_DECREF(f);
        PyErr_Format(PyExc_RuntimeError, "torchnative: rnn gates of size %lld do not split into %d chunks", (long long)sz, n);
        return NULL;
    }
    return f;
}
#define CH(f, i) PyTuple_GetItem(f, i)

static PyObject *add_t_(PyObject *x, PyObject *y) { return tn_at_add__Tensor(x, y, TN_SDEF); }

/* h @ w_hr.t() when the LSTM has projections, else h (new ref) */
static PyObject *matmul_hr(PyObject *h, const cellp *p) {
    if (!p->w_hr) return Py_NewRef(h);
    PyObject *wt = tn_at_t(p->w_hr);
    PyObject *r = wt ? tn_at_matmul(h, wt) : NULL;
    Py_XDECREF(wt);
    return r;
}

/* One application of the cell (RNN.cpp's SimpleCell / LSTMCell / GRUCell, CPU branch); `pre`: the
 * input is already linear_ih(input). Returns 0 and fills *out (new refs), -1 on error. */
static int cell(int kind, PyObject *input, const hid *h, const cellp *p, bool pre, hid *out) {
    out->h = out->c = NULL;
    if (kind == CELL_TANH || kind == CELL_RELU || kind == CELL_LSTM) {
        PyObject *hh = linear(h->h, p->w_hh, p->b_hh);
        if (!hh) return -1;
        PyObject *ih = pre ? Py_NewRef(input) : linear(input, p->w_ih, p->b_ih);
        PyObject *s = ih ? add_t_(hh, ih) : NULL;
        Py_DECREF(hh); Py_XDECREF(ih);
        if (!s) return -1;
        if (kind != CELL_LSTM) {
            out->h = kind == CELL_TANH ? tn_at_tanh(s) : tn_at_relu(s);
            Py_DECREF(s);
            return out->h ? 0 : -1;
        }
        PyObject *ch = chunk(s, 4);
        Py_DECREF(s);
        if (!ch) return -1;
        PyObject *ig = NULL, *fg = NULL, *cg = NULL, *og = NULL, *m1 = NULL, *m2 = NULL, *cy = NULL, *tc = NULL, *hy = NULL;
        int rc = -1;
        if (!(ig = tn_at_sigmoid_(CH(ch, 0)))) goto lstm_done;
        if (!(fg = tn_at_sigmoid_(CH(ch, 1)))) goto lstm_done;
        if (!(cg = tn_at_tanh_(CH(ch, 2)))) goto lstm_done;
        if (!(og = tn_at_sigmoid_(CH(ch, 3)))) goto lstm_done;
        if (!(m1 = tn_at_mul_Tensor(fg, h->c))) goto lstm_done;
        if (!(m2 = tn_at_mul_Tensor(ig, cg))) goto lstm_done;
        if (!(cy = add_t_(m1, m2))) goto lstm_done;
        if (!(tc = tn_at_tanh(cy))) goto lstm_done;
        if (!(hy = tn_at_mul_Tensor(og, tc))) goto lstm_done;
        if (!(out->h = matmul_hr(hy, p))) goto lstm_done;
        out->c = Py_NewRef(cy);
        rc = 0;
    lstm_done:
        Py_DECREF(ch); Py_XDECREF(ig); Py_XDECREF(fg); Py_XDECREF(cg); Py_XDECREF(og);
        Py_XDECREF(m1); Py_XDECREF(m2); Py_XDECREF(cy); Py_XDECREF(tc); Py_XDECREF(hy);
        return rc;
    }
    /* GRU */
    PyObject *ich = NULL, *hch = NULL, *lin = NULL, *rg = NULL, *zg = NULL, *ng = NULL, *t = NULL, *d = NULL;
    int rc = -1;
    if (pre) ich = chunk(input, 3);
    else if ((lin = linear(input, p->w_ih, p->b_ih))) ich = chunk(lin, 3);
    Py_CLEAR(lin);
    if (!ich) goto gru_done;
    if (!(lin = linear(h->h, p->w_hh, p->b_hh)) || !(hch = chunk(lin, 3))) goto gru_done;
    if (!(t = add_t_(CH(hch, 0), CH(ich, 0)))) goto gru_done;
    if (!(rg = tn_at_sigmoid_(t))) goto gru_done;
    Py_CLEAR(t);
    if (!(t = add_t_(CH(hch, 1), CH(ich, 1)))) goto gru_done;
    if (!(zg = tn_at_sigmoid_(t))) goto gru_done;
    Py_CLEAR(t);
    if (!(t = tn_at_mul__Tensor(CH(hch, 2), rg))) goto gru_done;
    if (!(d = tn_add_tt(CH(ich, 2), t))) goto gru_done;
    Py_CLEAR(t);
    if (!(ng = tn_at_tanh_(d))) goto gru_done;
    Py_CLEAR(d);
    if (!(d = tn_sub_tt(h->h, ng))) goto gru_done;
    if (!(t = tn_at_mul__Tensor(d, zg))) goto gru_done;
    if (!(out->h = add_t_(t, ng))) goto gru_done;
    rc = 0;
gru_done:
    Py_XDECREF(ich); Py_XDECREF(hch); Py_XDECREF(lin); Py_XDECREF(rg); Py_XDECREF(zg);
    Py_XDECREF(ng); Py_XDECREF(t); Py_XDECREF(d);
    return rc;
}

/* ---------------------------------------------------------------- lists */

typedef struct { PyObject **v; Py_ssize_t n, cap; } tlist;   /* owned references */

static int tl_push(tlist *l, PyObject *o) {   /* steals o */
    if (!o) return -1;
    if (l->n == l->cap) {
        Py_ssize_t nc = l->cap ? l->cap * 2 : 16;
        PyObject **nv = PyMem_Realloc(l->v, (size_t)nc * sizeof *nv);
        if (!nv) { Py_DECREF(o); PyErr_NoMemory(); return -1; }
        l->v = nv; l->cap = nc;
    }
    l->v[l->n++] = o;
    return 0;
}
static void tl_free(tlist *l) {
    for (Py_ssize_t i = 0; i < l->n; i++) Py_XDECREF(l->v[i]);
    PyMem_Free(l->v);
    l->v = NULL; l->n = l->cap = 0;
}
static void tl_reverse(tlist *l) {
    for (Py_ssize_t i = 0, j = l->n - 1; i < j; i++, j--) { PyObject *t = l->v[i]; l->v[i] = l->v[j]; l->v[j] = t; }
}
static PyObject *tl_as_list(const tlist *l) {
    PyObject *r = PyList_New(l->n);
    if (!r) return NULL;
    for (Py_ssize_t i = 0; i < l->n; i++) PyList_SetItem(r, i, Py_NewRef(l->v[i]));
    return r;
}
static PyObject *tl_join(PyObject *(*join)(tn_tensors, int64_t), const tlist *l, long long dim) {   /* stack / cat (l, dim) */
    PyObject *lst = tl_as_list(l);
    PyObject *r = lst ? join(TN_TPY(lst), dim) : NULL;
    Py_XDECREF(lst);
    return r;
}

/* ---------------------------------------------------------------- layers */

static const char *EMPTY_SEQ = "Expected sequence length to be larger than 0 in RNN";

/* FullLayer on one direction (CPU branch): linear_ih over the whole input, unbind(0), the cell
 * over the steps (backwards when rev), outputs stacked in time order. */
static PyObject *full_dir(int kind, PyObject *input, const hid *h0, const cellp *p, bool rev, hid *fin) {
    fin->h = fin->c = NULL;
    PyObject *iw = linear(input, p->w_ih, p->b_ih);
    if (!iw) return NULL;
    PyObject *ub = tn_at_unbind_int(iw, 0LL);
    Py_DECREF(iw);
    PyObject *steps = ub ? PySequence_Tuple(ub) : NULL;
    Py_XDECREF(ub);
    if (!steps) return NULL;
    Py_ssize_t T = PyTuple_Size(steps);
    tlist outs = {0};
    hid cur = {Py_NewRef(h0->h), h0->c ? Py_NewRef(h0->c) : NULL};
    for (Py_ssize_t k = 0; k < T; k++) {
        hid nx;
        if (cell(kind, CH(steps, rev ? T - 1 - k : k), &cur, p, true, &nx) < 0) goto fail;
        hid_clear(&cur);
        cur = nx;
        if (tl_push(&outs, Py_NewRef(cur.h)) < 0) goto fail;
    }
    Py_DECREF(steps);
    steps = NULL;
    if (outs.n == 0) { PyErr_SetString(PyExc_RuntimeError, EMPTY_SEQ); goto fail; }
    if (rev) tl_reverse(&outs);
    PyObject *r = tl_join(tn_at_stack, &outs, 0);
    tl_free(&outs);
    if (!r) { hid_clear(&cur); return NULL; }
    *fin = cur;
    return r;
fail:
    Py_XDECREF(steps);
    tl_free(&outs);
    hid_clear(&cur);
    return NULL;
}

static PyObject *narrow0(PyObject *t, int64_t start, int64_t len) {
    return tn_at_narrow(t, 0LL, (long long)start, (long long)len);
}
static int hid_slice(const hid *h, int64_t a, int64_t b, hid *out) {
    out->c = NULL;
    if (!(out->h = narrow0(h->h, a, b - a))) return -1;
    if (h->c && !(out->c = narrow0(h->c, a, b - a))) { hid_clear(out); return -1; }
    return 0;
}
static PyObject *cat2(PyObject *a, PyObject *b, long long dim) {
    PyObject *l = Py_BuildValue("[OO]", a, b);
    PyObject *r = l ? tn_at_cat(TN_TPY(l), dim) : NULL;
    Py_XDECREF(l);
    return r;
}

/* PackedLayer (forward) and ReversedPackedLayer over data / batch_sizes */
static PyObject *packed_dir(int kind, PyObject *data, const int64_t *bs, int64_t nsteps, const hid *h0,
                            const cellp *p, bool rev, hid *fin) {
    fin->h = fin->c = NULL;
    PyObject *iw = linear(data, p->w_ih, p->b_ih);
    if (!iw) return NULL;
    tlist outs = {0};
    hid cur = {0};
    PyObject *r = NULL;
    if (!rev) {
        tlist hs = {0}, cs = {0};
        int64_t off = 0, last = nsteps ? bs[0] : 0;
        cur.h = Py_NewRef(h0->h);
        cur.c = h0->c ? Py_NewRef(h0->c) : NULL;
        for (int64_t i = 0; i < nsteps; i++) {
            int64_t b = bs[i];
            PyObject *step = narrow0(iw, off, b);
            if (!step) goto fwd_fail;
            off += b;
            int64_t dec = last - b;
            if (dec > 0) {
                hid tail, head;
                if (hid_slice(&cur, last - dec, last, &tail) < 0) { Py_DECREF(step); goto fwd_fail; }
                if (tl_push(&hs, tail.h) < 0 || (tail.c && tl_push(&cs, tail.c) < 0)) { Py_DECREF(step); goto fwd_fail; }
                if (hid_slice(&cur, 0, last - dec, &head) < 0) { Py_DECREF(step); goto fwd_fail; }
                hid_clear(&cur);
                cur = head;
            }
            last = b;
            hid nx;
            int rc = cell(kind, step, &cur, p, true, &nx);
            Py_DECREF(step);
            if (rc < 0) goto fwd_fail;
            hid_clear(&cur);
            cur = nx;
            if (tl_push(&outs, Py_NewRef(cur.h)) < 0) goto fwd_fail;
        }
        if (tl_push(&hs, Py_NewRef(cur.h)) < 0 || (cur.c && tl_push(&cs, Py_NewRef(cur.c)) < 0)) goto fwd_fail;
        tl_reverse(&hs);
        tl_reverse(&cs);
        if (!(r = tl_join(tn_at_cat, &outs, 0))) goto fwd_fail;
        if (!(fin->h = tl_join(tn_at_cat, &hs, 0))) goto fwd_fail;
        if (cur.c && !(fin->c = tl_join(tn_at_cat, &cs, 0))) goto fwd_fail;
        tl_free(&hs); tl_free(&cs); tl_free(&outs); hid_clear(&cur);
        Py_DECREF(iw);
        return r;
    fwd_fail:
        tl_free(&hs); tl_free(&cs); tl_free(&outs); hid_clear(&cur); hid_clear(fin);
        Py_XDECREF(r); Py_DECREF(iw);
        return NULL;
    }
    int64_t off = tn_tensor_of(data)->sizes[0], last = nsteps ? bs[nsteps - 1] : 0;
    if (hid_slice(h0, 0, last, &cur) < 0) goto rev_fail;
    for (int64_t i = nsteps - 1; i >= 0; i--) {
        int64_t b = bs[i], inc = b - last;
        if (inc > 0) {
            hid more, joined = {0};
            if (hid_slice(h0, last, b, &more) < 0) goto rev_fail;
            joined.h = cat2(cur.h, more.h, 0);
            if (joined.h && cur.c) joined.c = cat2(cur.c, more.c, 0);
            hid_clear(&more);
            if (!joined.h || (cur.c && !joined.c)) { hid_clear(&joined); goto rev_fail; }
            hid_clear(&cur);
            cur = joined;
        }
        PyObject *step = narrow0(iw, off - b, b);
        if (!step) goto rev_fail;
        off -= b;
        last = b;
        hid nx;
        int rc = cell(kind, step, &cur, p, true, &nx);
        Py_DECREF(step);
        if (rc < 0) goto rev_fail;
        hid_clear(&cur);
        cur = nx;
        if (tl_push(&outs, Py_NewRef(cur.h)) < 0) goto rev_fail;
    }
    tl_reverse(&outs);
    if (!(r = tl_join(tn_at_cat, &outs, 0))) goto rev_fail;
    tl_free(&outs);
    Py_DECREF(iw);
    *fin = cur;
    return r;
rev_fail:
    tl_free(&outs); hid_clear(&cur); Py_DECREF(iw);
    return NULL;
}

/* ---------------------------------------------------------------- the stack of layers */

typedef struct {
    int kind;
    PyObject *input;           /* (T, B, F) after batch_first, or packed data */
    int64_t *bs;               /* packed: batch sizes (read by layer_stack), else NULL */
    int64_t nsteps;
    hid *h0;                   /* per layer-direction, owned by the caller */
    Py_ssize_t nh;
    cellp *p;
    Py_ssize_t np;
    int64_t num_layers;
    double dropout;
    bool train, bidir;
    PyObject *bsizes;          /* packed: the batch_sizes tensor, read after the counts' checks */
} rnn_run;
static int64_t *batch_sizes_of(PyObject *t, int64_t *n);

/* apply_layer_stack: returns the last layer's output; fin[] (nh entries) the final hiddens */
static PyObject *layer_stack(rnn_run *R, hid *fin) {
    Py_ssize_t D = R->bidir ? 2 : 1;
    if (R->bidir && (R->np % 2 || R->nh % 2)) {
        PyErr_SetString(PyExc_RuntimeError, "Odd number of params or hiddens given to a bidirectional RNN");
        return NULL;
    }
    if (R->num_layers != R->nh / D) {
        PyErr_SetString(PyExc_RuntimeError, "Expected more hidden states in stacked_rnn");
        return NULL;
    }
    if (R->num_layers != R->np / D) {
        PyErr_SetString(PyExc_RuntimeError, "Expected more weights in stacked_rnn");
        return NULL;
    }
    /* upstream reads a packed sequence's batch_sizes after hx.unbind(0) and these counts (measured) */
    if (R->bsizes && !(R->bs = batch_sizes_of(R->bsizes, &R->nsteps))) return NULL;
    PyObject *x = Py_NewRef(R->input);
    for (int64_t l = 0; l < R->num_layers; l++) {
        PyObject *out = NULL;
        if (!R->bidir) {
            out = R->bs ? packed_dir(R->kind, x, R->bs, R->nsteps, &R->h0[l], &R->p[l], false, &fin[l])
                        : full_dir(R->kind, x, &R->h0[l], &R->p[l], false, &fin[l]);
        } else {
            PyObject *fw = R->bs ? packed_dir(R->kind, x, R->bs, R->nsteps, &R->h0[2 * l], &R->p[2 * l], false, &fin[2 * l])
                                 : full_dir(R->kind, x, &R->h0[2 * l], &R->p[2 * l], false, &fin[2 * l]);
            PyObject *bw = fw ? (R->bs ? packed_dir(R->kind, x, R->bs, R->nsteps, &R->h0[2 * l + 1], &R->p[2 * l + 1], true, &fin[2 * l + 1])
                                       : full_dir(R->kind, x, &R->h0[2 * l + 1], &R->p[2 * l + 1], true, &fin[2 * l + 1]))
                              : NULL;
            if (fw && bw) out = cat2(fw, bw, R->bs ? -1 : tn_tensor_of(fw)->ndim - 1);
            Py_XDECREF(fw); Py_XDECREF(bw);
        }
        Py_DECREF(x);
        if (!out) return NULL;
        x = out;
        if (R->dropout != 0 && R->train && l < R->num_layers - 1) {
            Py_SETREF(x, tn_at_dropout(x, R->dropout, true));
            if (!x) return NULL;
        }
    }
    return x;
}

/* ---------------------------------------------------------------- argument handling */

static int gather_params(PyObject *seq, bool has_biases, bool proj, cellp **out, Py_ssize_t *np) {
    Py_ssize_t n = PyTuple_Size(seq);
    int per = has_biases ? (proj ? 5 : 4) : (proj ? 3 : 2);
    if (n % per) {
        PyErr_SetString(PyExc_RuntimeError, "got an incorrect number of RNN parameters");
        return -1;
    }
    *np = n / per;
    *out = PyMem_Calloc(*np ? (size_t)*np : 1, sizeof **out);
    if (!*out) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < *np; i++) {
        Py_ssize_t b = i * per;
        cellp *c = &(*out)[i];
        c->w_ih = PyTuple_GetItem(seq, b); c->w_hh = PyTuple_GetItem(seq, b + 1);
        if (has_biases) { c->b_ih = PyTuple_GetItem(seq, b + 2); c->b_hh = PyTuple_GetItem(seq, b + 3); }
        if (proj) c->w_hr = PyTuple_GetItem(seq, b + per - 1);
    }
    return 0;
}

static PyObject *unbind0(PyObject *t) {
    PyObject *u = tn_at_unbind_int(t, 0LL);
    PyObject *f = u ? PySequence_Tuple(u) : NULL;
    Py_XDECREF(u);
    return f;
}

/* batch sizes of a packed sequence: a 1-D CPU int64 tensor, copied out */
static int64_t *batch_sizes_of(PyObject *t, int64_t *n) {
    const tn_tensor *bt = tn_tensor_of(t);
    /* upstream reads batch_sizes.size(0), then its data as int64 (measured) */
    if (tn_size_read(bt, 0) < 0) return NULL;
    if (bt->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type Long but found %s", tn_dtype_cpp_name(bt->dtype));
        return NULL;
    }
    if (bt->ndim != 1 || !tn_data(bt)) {
        PyErr_SetString(PyExc_RuntimeError, "batch_sizes must be a 1-D CPU int64 tensor");
        return NULL;
    }
    *n = bt->sizes[0];
    int64_t *v = PyMem_Malloc(*n ? (size_t)*n * sizeof *v : 1);
    if (!v) { PyErr_NoMemory(); return NULL; }
    const char *d = tn_data(bt);
    for (int64_t i = 0; i < *n; i++) memcpy(&v[i], d + i * bt->strides[0] * 8, 8);
    for (int64_t i = 0; i < *n; i++)
        if (v[i] < 0 || (i > 0 && v[i] > v[i - 1])) {
            PyMem_Free(v);
            PyErr_SetString(PyExc_RuntimeError, "batch_sizes must be non-negative and non-increasing");
            return NULL;
        }
    return v;
}

bool tn_mkldnn_enabled(void);   /* python/runtime_flags.c */
static int64_t dim_size(const tn_tensor *t, int d);
static PyObject *lstm_mkldnn(PyObject *input, PyObject *hxs, PyObject *params, bool has_biases, int64_t num_layers,
                             double dropout, bool train, bool bidir, bool batch_first);

/* The shared body: kind, input (or data + batch_sizes), hx (one tensor, or LSTM's [h, c]),
 * params, flags. Returns (output, hy) or (output, hy, cy). */
static PyObject *rnn_common(int kind, PyObject *input, PyObject *bsizes, PyObject *hx_obj, PyObject *params_obj,
                            bool has_biases, int64_t num_layers, double dropout, bool train, bool bidir, bool batch_first) {
    PyObject *params = PySequence_Tuple(params_obj);
    PyObject *hxs = NULL, *hl = NULL, *cl = NULL, *x = NULL, *out = NULL, *res = NULL;
    int64_t *bs = NULL;
    cellp *p = NULL;
    hid *h0 = NULL, *fin = NULL;
    Py_ssize_t np = 0, nh = 0;
    if (!params) return NULL;
    bool proj = false;
    if (kind == CELL_LSTM) {
        if (!(hxs = PySequence_Tuple(hx_obj))) goto done;
        if (PyTuple_Size(hxs) != 2) {
            PyErr_SetString(PyExc_RuntimeError, "lstm expects two hidden states");
            goto done;
        }
        /* upstream 2.13.0 reads hx[0].size(2) / hx[1].size(2) unchecked (IndexError below 3-D) */
        int64_t hs = dim_size(tn_tensor_of(PyTuple_GetItem(hxs, 0)), 2), cs;
        if (hs < 0 || (cs = dim_size(tn_tensor_of(PyTuple_GetItem(hxs, 1)), 2)) < 0) goto done;
        proj = hs != cs;
        if (!bsizes && !proj && tn_mkldnn_enabled() && tn_tensor_of(input)->dtype == TN_DTYPE_F32 && tn_numel(tn_tensor_of(input)) != 0) {
            res = lstm_mkldnn(input, hxs, params, has_biases, num_layers, dropout, train, bidir, batch_first);
            goto done;
        }
    }
    if (gather_params(params, has_biases, proj, &p, &np) < 0) goto done;
    if (!bsizes && !(x = batch_first ? tn_at_transpose_int(input, 0LL, 1LL) : Py_NewRef(input))) goto done;
    if (kind == CELL_LSTM) {
        if (!(hl = unbind0(PyTuple_GetItem(hxs, 0))) || !(cl = unbind0(PyTuple_GetItem(hxs, 1)))) goto done;
        nh = PyTuple_Size(hl);
    } else {
        if (!(hl = unbind0(hx_obj))) goto done;
        nh = PyTuple_Size(hl);
    }
    if (bsizes) x = Py_NewRef(input);
    h0 = PyMem_Calloc(nh ? (size_t)nh : 1, sizeof *h0);
    fin = PyMem_Calloc(nh ? (size_t)nh : 1, sizeof *fin);
    if (!h0 || !fin) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < nh; i++) {
        h0[i].h = Py_NewRef(PyTuple_GetItem(hl, i));
        if (cl) {
            if (i >= PyTuple_Size(cl)) { PyErr_SetString(PyExc_RuntimeError, "Expected more hidden states in stacked_rnn"); goto done; }
            h0[i].c = Py_NewRef(PyTuple_GetItem(cl, i));
        }
    }
    rnn_run R = {kind, x, NULL, 0, h0, nh, p, np, num_layers, dropout, train, bidir, bsizes};
    out = layer_stack(&R, fin);
    bs = R.bs;   /* freed below */
    if (!out) goto done;
    tlist hs = {0}, cs = {0};
    for (Py_ssize_t i = 0; i < nh; i++) {
        if (tl_push(&hs, Py_NewRef(fin[i].h)) < 0) break;
        if (kind == CELL_LSTM && tl_push(&cs, Py_NewRef(fin[i].c)) < 0) break;
    }
    PyObject *hy = PyErr_Occurred() ? NULL : tl_join(tn_at_stack, &hs, 0);
    PyObject *cy = hy && kind == CELL_LSTM ? tl_join(tn_at_stack, &cs, 0) : NULL;
    tl_free(&hs); tl_free(&cs);
    if (hy && !bsizes && batch_first) {
        if (kind == CELL_LSTM) Py_SETREF(out, tn_at_transpose_int(out, 0LL, 1LL));
        else {
            PyObject *t = tn_at_transpose_(out, 0LL, 1LL);
            if (!t) Py_CLEAR(out);
            Py_XDECREF(t);
        }
    }
    if (out && hy && (kind != CELL_LSTM || cy))
        res = kind == CELL_LSTM ? PyTuple_Pack(3, out, hy, cy) : PyTuple_Pack(2, out, hy);
    Py_XDECREF(hy); Py_XDECREF(cy);
done:
    for (Py_ssize_t i = 0; h0 && i < nh; i++) { hid_clear(&h0[i]); hid_clear(&fin[i]); }
    PyMem_Free(h0); PyMem_Free(fin); PyMem_Free(p); PyMem_Free(bs);
    Py_XDECREF(params); Py_XDECREF(hxs); Py_XDECREF(hl); Py_XDECREF(cl); Py_XDECREF(x); Py_XDECREF(out);
    return res;
}

#define ARGB(k) (a[k].u.i != 0)
/* (input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) */
static PyObject *rnn_input(int kind, tn_value *a) {
    return rnn_common(kind, a[0].u.obj, NULL, a[1].u.obj, a[2].u.obj, ARGB(3), a[4].u.i, a[5].u.f, ARGB(6), ARGB(7), ARGB(8));
}
/* (data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional) */
static PyObject *rnn_data(int kind, tn_value *a) {
    return rnn_common(kind, a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.obj, ARGB(4), a[5].u.i, a[6].u.f, ARGB(7), ARGB(8), false);
}

PyObject *tn_op_rnn_tanh_input(tn_value *a) { return rnn_input(CELL_TANH, a); }
PyObject *tn_op_rnn_tanh_data(tn_value *a) { return rnn_data(CELL_TANH, a); }
PyObject *tn_op_rnn_relu_input(tn_value *a) { return rnn_input(CELL_RELU, a); }
PyObject *tn_op_rnn_relu_data(tn_value *a) { return rnn_data(CELL_RELU, a); }
PyObject *tn_op_lstm_input(tn_value *a) { return rnn_input(CELL_LSTM, a); }
PyObject *tn_op_lstm_data(tn_value *a) { return rnn_data(CELL_LSTM, a); }
PyObject *tn_op_gru_input(tn_value *a) { return rnn_input(CELL_GRU, a); }
PyObject *tn_op_gru_data(tn_value *a) { return rnn_data(CELL_GRU, a); }

/* ---------------------------------------------------------------- cells */

static int64_t dim_size(const tn_tensor *t, int d) {   /* sym_size(d); -1 (IndexError set) when out of range */
    int w;
    if (tn_size_read(t, d) < 0) return -1;   /* a 0-d tensor has no dim 0 either */
    if (tn_wrap_dim_i(d, t->ndim, &w) < 0) return -1;
    return t->sizes[w];
}
static int check_input(PyObject *input, PyObject *w_ih) {
    int64_t got = dim_size(tn_tensor_of(input), 1), want;
    if (got < 0 || (want = dim_size(tn_tensor_of(w_ih), 1)) < 0) return -1;
    if (got != want) {
        PyErr_Format(PyExc_RuntimeError, "input has inconsistent input_size: got %lld expected %lld", (long long)got, (long long)want);
        return -1;
    }
    return 0;
}
static int check_hidden(PyObject *input, PyObject *hx, int64_t hidden_size, int label) {
    int64_t ib = dim_size(tn_tensor_of(input), 0), hb;
    if (ib < 0 || (hb = dim_size(tn_tensor_of(hx), 0)) < 0) return -1;
    if (ib != hb) {
        PyErr_Format(PyExc_RuntimeError, "Input batch size %lld doesn't match hidden%d batch size %lld", (long long)ib, label, (long long)hb);
        return -1;
    }
    int64_t hs = dim_size(tn_tensor_of(hx), 1);
    if (hs < 0) return -1;
    if (hs != hidden_size) {
        PyErr_Format(PyExc_RuntimeError, "hidden%d has inconsistent hidden_size: got %lld, expected %lld", label, (long long)hs, (long long)hidden_size);
        return -1;
    }
    return 0;
}
static int check_weights(PyObject *w_ih, PyObject *w_hh, int64_t hidden_size, int gates) {
    const tn_tensor *wi = tn_tensor_of(w_ih), *wh = tn_tensor_of(w_hh);
    int64_t si = dim_size(wi, 0), sh;
    if (si < 0) return -1;
    if (si != gates * hidden_size) {
        PyErr_Format(PyExc_RuntimeError, "weight_ih first dim must be %d * hidden_size = %lld, but got %lld", gates,
                     (long long)(gates * hidden_size), (long long)si);
        return -1;
    }
    if ((sh = dim_size(wh, 0)) < 0) return -1;
    if (sh != gates * hidden_size) {
        PyErr_Format(PyExc_RuntimeError, "weight_hh first dim must be %d * hidden_size = %lld, but got %lld", gates,
                     (long long)(gates * hidden_size), (long long)sh);
        return -1;
    }
    return 0;
}
static PyObject *opt_t(tn_value *v) { return v->tag == TN_V_TENSOR ? v->u.obj : NULL; }

/* (input, hx, w_ih, w_hh, b_ih, b_hh) */
static PyObject *simple_cell(int kind, tn_value *a) {
    PyObject *input = a[0].u.obj, *hx = a[1].u.obj, *w_ih = a[2].u.obj, *w_hh = a[3].u.obj;
    int64_t hs = dim_size(tn_tensor_of(w_hh), 1);
    if (hs < 0) return NULL;
    if (check_weights(w_ih, w_hh, hs, 1) < 0 || check_input(input, w_ih) < 0 || check_hidden(input, hx, hs, 0) < 0) return NULL;
    cellp p = {w_ih, w_hh, opt_t(&a[4]), opt_t(&a[5]), NULL};
    hid h = {hx, NULL}, out;
    return cell(kind, input, &h, &p, false, &out) < 0 ? NULL : out.h;
}
PyObject *tn_op_rnn_tanh_cell(tn_value *a) { return simple_cell(CELL_TANH, a); }
PyObject *tn_op_rnn_relu_cell(tn_value *a) { return simple_cell(CELL_RELU, a); }

PyObject *tn_op_gru_cell(tn_value *a) {
    PyObject *input = a[0].u.obj, *hx = a[1].u.obj, *w_ih = a[2].u.obj, *w_hh = a[3].u.obj;
    int64_t hs = dim_size(tn_tensor_of(w_hh), 1);
    if (hs < 0) return NULL;
    if (check_input(input, w_ih) < 0 || check_hidden(input, hx, hs, 0) < 0 || check_weights(w_ih, w_hh, hs, 3) < 0) return NULL;
    cellp p = {w_ih, w_hh, opt_t(&a[4]), opt_t(&a[5]), NULL};
    hid h = {hx, NULL}, out;
    return cell(CELL_GRU, input, &h, &p, false, &out) < 0 ? NULL : out.h;
}

/* lstm_cell(input, hx[2], w_ih, w_hh, b_ih, b_hh) -> (hy, cy) */
PyObject *tn_op_lstm_cell(tn_value *a) {
    PyObject *input = a[0].u.obj, *w_ih = a[2].u.obj, *w_hh = a[3].u.obj;
    PyObject *hxs = PySequence_Tuple(a[1].u.obj);
    if (!hxs) return NULL;
    PyObject *res = NULL;
    if (PyTuple_Size(hxs) != 2) {
        PyErr_SetString(PyExc_RuntimeError, "lstm_cell expects two hidden states");
        goto done;
    }
    PyObject *h0 = PyTuple_GetItem(hxs, 0), *c0 = PyTuple_GetItem(hxs, 1);
    int64_t hs = dim_size(tn_tensor_of(w_hh), 1);
    if (hs < 0) goto done;
    if (check_input(input, w_ih) < 0 || check_weights(w_ih, w_hh, hs, 4) < 0 || check_hidden(input, h0, hs, 0) < 0 ||
        check_hidden(input, c0, hs, 1) < 0)
        goto done;
    cellp p = {w_ih, w_hh, opt_t(&a[4]), opt_t(&a[5]), NULL};
    hid h = {h0, c0}, out;
    if (cell(CELL_LSTM, input, &h, &p, false, &out) < 0) goto done;
    res = PyTuple_Pack(2, out.h, out.c);
    hid_clear(&out);
done:
    Py_DECREF(hxs);
    return res;
}

/* ---------------------------------------------------------------- packed sequences (PackedSequence.cpp) */

static int check_long(PyObject *t) {
    const tn_tensor *l = tn_tensor_of(t);
    if (l->ndim != 1 || l->dtype != TN_DTYPE_I64 || l->storage->device != TN_DEVICE_CPU) {
        PyErr_Format(PyExc_RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor, but got %dD %s %s tensor",
                     l->ndim, l->storage->device == TN_DEVICE_CPU ? "cpu" : "meta", tn_dtype_cxx_name(l->dtype));
        return -1;
    }
    return 0;
}
static int64_t *longs_of(PyObject *t, int64_t *n) {   /* a checked 1-D int64 tensor's values, copied */
    const tn_tensor *l = tn_tensor_of(t);
    *n = l->sizes[0];
    int64_t *v = PyMem_Malloc(*n ? (size_t)*n * sizeof *v : 1);
    if (!v) { PyErr_NoMemory(); return NULL; }
    const char *d = tn_data(l);
    for (int64_t i = 0; i < *n; i++) memcpy(&v[i], d + i * l->strides[0] * 8, 8);
    return v;
}

/* _pack_padded_sequence(input, lengths, batch_first) -> (data, batch_sizes) */
PyObject *tn_op__pack_padded_sequence(tn_value *a) {
    PyObject *in = a[0].u.obj, *lengths = a[1].u.obj;
    bool bf = ARGB(2);
    if (check_long(lengths) < 0) return NULL;
    /* upstream refuses an empty input before it transposes it or reads the batch size (measured: a
     * 1-d empty input, batch_first or not) */
    if (tn_numel(tn_tensor_of(in)) == 0) { PyErr_SetString(PyExc_RuntimeError, "Cannot pack empty tensors."); return NULL; }
    PyObject *input = bf ? tn_at_transpose_int(in, 0LL, 1LL) : Py_NewRef(in);
    if (!input) return NULL;
    const tn_tensor *it = tn_tensor_of(input);
    PyObject *res = NULL, *bst = NULL;
    tlist steps = {0};
    int64_t n = 0, *len = longs_of(lengths, &n);
    if (!len) goto done;
    if (it->ndim < 2) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [-%d, %d], but got 1)",
                     it->ndim ? it->ndim : 1, it->ndim ? it->ndim - 1 : 0);
        goto done;
    }
    int64_t B = it->sizes[1];
    if (n != B) {
        PyErr_Format(PyExc_RuntimeError, "Expected `len(lengths)` to be equal to batch_size, but got %lld (batch_size=%lld)",
                     (long long)n, (long long)B);
        goto done;
    }
    if (len[B - 1] <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
        goto done;
    }
    for (int64_t i = 0; i + 1 < B; i++)
        if (len[B - 1 - i] > len[B - 2 - i]) {
            PyErr_SetString(PyExc_RuntimeError, "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
                            "requirement if you do not need ONNX exportability.");
            goto done;
        }
    if (len[0] > it->sizes[0]) {
        /* upstream slices past the end (clamped) and reads batch sizes for steps that do not exist */
        PyErr_Format(PyExc_RuntimeError, "torchnative: pack_padded_sequence with a length %lld above the sequence length %lld",
                     (long long)len[0], (long long)it->sizes[0]);
        goto done;
    }
    int64_t shape[TN_MAX_DIMS];
    shape[0] = -1;
    for (int d = 2; d < it->ndim; d++) shape[d - 1] = it->sizes[d];
    int64_t bsv_n = len[0];
    int64_t *bsv = PyMem_Malloc(bsv_n ? (size_t)bsv_n * sizeof *bsv : 1);
    if (!bsv) { PyErr_NoMemory(); goto done; }
    int64_t prev = 0, k = 0;
    for (int64_t i = 0; i < B; i++) {
        int64_t l = len[B - 1 - i];
        if (l > prev) {
            int64_t cur = B - i;
            PyObject *s1 = tn_at_slice_Tensor(input, 0LL, TN_I((long long)prev), TN_I((long long)l), 1LL);
            PyObject *s2 = s1 ? tn_at_slice_Tensor(s1, 1LL, TN_I(0LL), TN_I((long long)cur), 1LL) : NULL;
            PyObject *c = s2 ? tn_at_contiguous(s2, NULL) : NULL;
            PyObject *v = c ? tn_at_view(c, TN_IN(shape, it->ndim - 1)) : NULL;
            Py_XDECREF(s1); Py_XDECREF(s2); Py_XDECREF(c);
            if (tl_push(&steps, v) < 0) { PyMem_Free(bsv); goto done; }
            for (int64_t j = 0; j < l - prev; j++) bsv[k++] = cur;
            prev = l;
        }
    }
    int64_t one = 1;
    bst = tn_tensor_new_strided(1, &bsv_n, &one, TN_DTYPE_I64);
    if (bst && bsv_n) memcpy(tn_data(tn_tensor_of(bst)), bsv, (size_t)bsv_n * sizeof *bsv);
    PyMem_Free(bsv);
    if (!bst) goto done;
    PyObject *data = tl_join(tn_at_cat, &steps, 0);
    if (data) res = PyTuple_Pack(2, data, bst);
    Py_XDECREF(data);
done:
    tl_free(&steps);
    PyMem_Free(len);
    Py_XDECREF(bst);
    Py_DECREF(input);
    return res;
}

/* _pack_padded_sequence_backward(grad, input_size, batch_sizes, batch_first) */
PyObject *tn_op__pack_padded_sequence_backward(tn_value *a) {
    PyObject *grad = a[0].u.obj, *bso = a[2].u.obj;
    bool bf = ARGB(3);
    int n = a[1].u.ints.n;
    int64_t size[TN_MAX_DIMS];
    if (n > TN_MAX_DIMS) { PyErr_SetString(PyExc_RuntimeError, "too many dimensions"); return NULL; }
    memcpy(size, a[1].u.ints.v, (size_t)n * sizeof *size);
    if (bf) {
        if (n < 2) { PyErr_SetString(PyExc_RuntimeError, "Expected input_size to have at least 2 dimensions"); return NULL; }
        int64_t t = size[0]; size[0] = size[1]; size[1] = t;
    }
    PyObject *gi = tn_at_zeros(TN_IN(size, n), TN_DT(tn_tensor_of(grad)->dtype), NULL, NULL, NULL);
    if (!gi) return NULL;
    int64_t nb = 0, *bs = NULL;
    if (check_long(bso) < 0 || !(bs = longs_of(bso, &nb))) { Py_DECREF(gi); return NULL; }
    int64_t off = 0;
    for (int64_t i = 0; i < nb; i++) {
        PyObject *s = tn_at_select_int(gi, 0LL, (long long)i);
        PyObject *d = s ? tn_at_slice_Tensor(s, 0LL, TN_I(0LL), TN_I((long long)bs[i]), 1LL) : NULL;
        PyObject *g = d ? tn_at_slice_Tensor(grad, 0LL, TN_I((long long)off), TN_I((long long)(off + bs[i])), 1LL) : NULL;
        PyObject *c = g ? tn_at_copy_(d, g, false) : NULL;
        Py_XDECREF(s); Py_XDECREF(d); Py_XDECREF(g);
        if (!c) { Py_DECREF(gi); PyMem_Free(bs); return NULL; }
        Py_DECREF(c);
        off += bs[i];
    }
    PyMem_Free(bs);
    if (bf) Py_SETREF(gi, tn_at_transpose_int(gi, 0LL, 1LL));
    return gi;
}

/* _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length) -> (output, lengths) */
PyObject *tn_op__pad_packed_sequence(tn_value *a) {
    PyObject *data = a[0].u.obj, *bso = a[1].u.obj;
    bool bf = ARGB(2);
    int64_t total = a[4].u.i;
    if (check_long(bso) < 0) return NULL;
    int64_t nsteps = 0, *bs = longs_of(bso, &nsteps);
    if (!bs) return NULL;
    PyObject *out = NULL, *lens = NULL, *pad = NULL, *res = NULL;
    const tn_tensor *dt = tn_tensor_of(data);
    if (nsteps == 0) {   /* measured on 2.13.0, whatever total_length and data */
        PyErr_SetString(PyExc_RuntimeError, "batch_sizes can not be empty");
        goto done;
    }
    int64_t mbs = bs[0], maxlen = nsteps;
    if (total > 0) {
        if (total < nsteps) {
            PyErr_Format(PyExc_RuntimeError, "Expected total_length to be at least the length of the longest sequence in input, "
                         "but got total_length=%lld and max sequence length being %lld", (long long)total, (long long)nsteps);
            goto done;
        }
        maxlen = total;
    }
    if (dt->ndim < 1 || dt->ndim + 1 > TN_MAX_DIMS) { PyErr_SetString(PyExc_RuntimeError, "packed data must have at least one dimension"); goto done; }
    int64_t osz[TN_MAX_DIMS];
    osz[0] = maxlen; osz[1] = mbs;
    for (int d = 1; d < dt->ndim; d++) osz[d + 1] = dt->sizes[d];
    if (!(pad = tn_value_to_python(&a[3]))) goto done;
    if (!(out = tn_at_full(TN_IN(osz, dt->ndim + 1), TN_SO(pad), TN_DT(dt->dtype), NULL, NULL, NULL))) goto done;
    if (!(lens = tn_at_empty_memory_format(TN_IS(mbs), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL))) goto done;
    int64_t *lp = (int64_t *)tn_data(tn_tensor_of(lens)) + mbs - 1;
    int64_t off = 0, prev_b = mbs, prev_i = 0;
    for (int64_t i = 0; i <= nsteps; i++) {
        int64_t b = i != nsteps ? bs[i] : 0;
        if (b != prev_b) {
            int64_t l = prev_b * (i - prev_i);
            osz[0] = i - prev_i; osz[1] = prev_b;
            PyObject *tmp = tn_at_slice_Tensor(data, 0LL, TN_I((long long)off), TN_I((long long)(off + l)), 1LL);
            PyObject *o1 = tmp ? tn_at_slice_Tensor(out, 0LL, TN_I((long long)prev_i), TN_I((long long)i), 1LL) : NULL;
            PyObject *o2 = o1 ? tn_at_slice_Tensor(o1, 1LL, TN_I(0LL), TN_I((long long)prev_b), 1LL) : NULL;
            PyObject *v = o2 ? tn_at_view(tmp, TN_IN(osz, dt->ndim + 1)) : NULL;
            PyObject *c = v ? tn_at_copy_(o2, v, false) : NULL;
            Py_XDECREF(tmp); Py_XDECREF(o1); Py_XDECREF(o2); Py_XDECREF(v);
            if (!c) goto done;
            Py_DECREF(c);
            off += l;
            prev_i = i;
        }
        for (int64_t j = 0; j < prev_b - b && mbs; j++) *lp-- = i;
        prev_b = b;
    }
    if (bf) {
        Py_SETREF(out, tn_at_transpose_int(out, 0LL, 1LL));
        if (!out) goto done;
    }
    res = PyTuple_Pack(2, out, lens);
done:
    PyMem_Free(bs);
    Py_XDECREF(out); Py_XDECREF(lens); Py_XDECREF(pad);
    return res;
}

/* pad_sequence(sequences, batch_first, padding_value, padding_side): full() of the padded shape,
 * then each sequence copied in (select / narrow, as upstream's) */
PyObject *tn_op_pad_sequence(tn_value *a) {
    PyObject *seqs = PySequence_Tuple(a[0].u.obj);
    if (!seqs) return NULL;
    bool bf = ARGB(1);
    const char *side = PyUnicode_AsUTF8AndSize(a[3].u.obj, NULL);
    PyObject *out = NULL, *pad = NULL;
    Py_ssize_t n = PyTuple_Size(seqs);
    if (!side) goto fail;
    bool left = strcmp(side, "left") == 0;
    if (!left && strcmp(side, "right") != 0) {
        PyErr_Format(PyExc_RuntimeError, "Expected padding_side to be one of left or right, but got %s.", side);
        goto fail;
    }
    if (n == 0) { PyErr_SetString(PyExc_RuntimeError, "received an empty list of sequences"); goto fail; }
    const tn_tensor *s0 = tn_tensor_of(PyTuple_GetItem(seqs, 0));
    if (s0->ndim < 1) {   /* upstream slices the first one's sizes past its first (measured) */
        PyErr_SetString(PyExc_RuntimeError, "ArrayRef: invalid slice, N = 1; size = 0");
        goto fail;
    }
    if (s0->ndim + 1 > TN_MAX_DIMS) {
        PyErr_SetString(PyExc_IndexError, "Dimension out of range (expected to be in range of [-1, 0], but got 0)");
        goto fail;
    }
    int64_t maxlen = 0, od[TN_MAX_DIMS];
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(seqs, i));
        if (t->ndim < 1) { PyErr_SetString(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions"); goto fail; }
        if (t->sizes[0] > maxlen) maxlen = t->sizes[0];
    }
    od[0] = bf ? n : maxlen; od[1] = bf ? maxlen : n;
    for (int d = 1; d < s0->ndim; d++) od[d + 1] = s0->sizes[d];
    if (!(pad = PyFloat_FromDouble(a[2].u.f))) goto fail;
    if (!(out = tn_at_full(TN_IN(od, s0->ndim + 1), TN_SO(pad), TN_DT(s0->dtype), NULL, NULL, NULL))) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *cur = PyTuple_GetItem(seqs, i);
        int64_t len = tn_tensor_of(cur)->sizes[0], start = left ? maxlen - len : 0;
        PyObject *p1, *p2;
        if (bf) {
            p1 = tn_at_select_int(out, 0LL, (long long)i);
            p2 = p1 ? tn_at_narrow(p1, 0LL, (long long)start, (long long)len) : NULL;
        } else {
            p1 = tn_at_narrow(out, 0LL, (long long)start, (long long)len);
            p2 = p1 ? tn_at_select_int(p1, 1LL, (long long)i) : NULL;
        }
        PyObject *c = p2 ? tn_at_copy_(p2, cur, false) : NULL;
        Py_XDECREF(p1); Py_XDECREF(p2);
        if (!c) goto fail;
        Py_DECREF(c);
    }
    Py_DECREF(seqs); Py_DECREF(pad);
    return out;
fail:
    Py_DECREF(seqs); Py_XDECREF(pad); Py_XDECREF(out);
    return NULL;
}

/* ---------------------------------------------------------------- oneDNN's LSTM layer op
 * Upstream runs float32 LSTMs without projections (torch.backends.mkldnn.enabled, a non-empty
 * input) as one mkldnn_rnn_layer per layer and direction (mkldnn/RNN.cpp: mkldnn_rnn), whose node
 * is MkldnnRnnLayerBackward0. The layer op here computes the layer with the decomposition above
 * (below autograd) and its backward with upstream's mkldnn_rnn_layer_differentiable_backward
 * formula; oneDNN's own rounding and workspace layout are not reproduced (the workspace is an
 * empty uint8 tensor). */


static PyObject *zeros_like_shape(PyObject *like, const tn_tensor *shape_of) {
    return tn_at_zeros(TN_IN(shape_of->sizes, shape_of->ndim), TN_DT(tn_tensor_of(like)->dtype), NULL, NULL, NULL);
}

/* mkldnn_rnn over the lstm.input arguments (input already checked float32, no projections) */
static PyObject *lstm_mkldnn(PyObject *input, PyObject *hxs, PyObject *params, bool has_biases, int64_t num_layers,
                             double dropout, bool train, bool bidir, bool batch_first) {
    int stride = has_biases ? 4 : 2, D = bidir ? 2 : 1;
    Py_ssize_t np = PyTuple_Size(params);
    if (num_layers < 0 || np < (Py_ssize_t)(num_layers * D * stride)) {
        PyErr_SetString(PyExc_RuntimeError, "got an incorrect number of RNN parameters");
        return NULL;
    }
    int64_t hidden = dim_size(tn_tensor_of(PyTuple_GetItem(hxs, 0)), 2);
    if (hidden < 0) return NULL;
    PyObject *x = NULL, *hx = NULL, *cx = NULL, *res = NULL;
    tlist hy = {0}, cy = {0};
    if (!(x = batch_first ? tn_at_transpose_int(input, 0LL, 1LL) : Py_NewRef(input))) goto done;
    Py_SETREF(x, tn_at_contiguous(x, NULL));
    if (!x || !(hx = tn_at_contiguous(PyTuple_GetItem(hxs, 0), NULL)) ||
        !(cx = tn_at_contiguous(PyTuple_GetItem(hxs, 1), NULL)))
        goto done;
    for (int64_t l = 0; l < num_layers; l++) {
        PyObject *outs[2] = {NULL, NULL};
        for (int d = 0; d < D; d++) {
            int64_t idx = l * D + d;
            Py_ssize_t b = (Py_ssize_t)idx * stride;
            PyObject *w0 = PyTuple_GetItem(params, b), *w1 = PyTuple_GetItem(params, b + 1);
            PyObject *lh = tn_at_select_int(hx, 0LL, (long long)idx);
            PyObject *lc = lh ? tn_at_select_int(cx, 0LL, (long long)idx) : NULL;
            PyObject *w2 = NULL, *w3 = NULL, *r = NULL;
            if (lc) {
                w2 = has_biases ? Py_NewRef(PyTuple_GetItem(params, b + 2)) : zeros_like_shape(w0, tn_tensor_of(w0));
                w3 = !w2 ? NULL : has_biases ? Py_NewRef(PyTuple_GetItem(params, b + 3)) : zeros_like_shape(w1, tn_tensor_of(w1));
            }
            if (w3)
                r = tn_at_mkldnn_rnn_layer(x, w0, w1, w2, w3, lh, lc, d, TN_IS0, 2LL, (long long)hidden, (long long)num_layers, has_biases, bidir, batch_first, train);
            Py_XDECREF(lh); Py_XDECREF(lc); Py_XDECREF(w2); Py_XDECREF(w3);
            PyObject *t = r ? PySequence_Tuple(r) : NULL;
            Py_XDECREF(r);
            if (!t) { Py_XDECREF(outs[0]); goto done; }
            outs[d] = Py_NewRef(PyTuple_GetItem(t, 0));
            int ok = tl_push(&hy, Py_NewRef(PyTuple_GetItem(t, 1))) == 0 && tl_push(&cy, Py_NewRef(PyTuple_GetItem(t, 2))) == 0;
            Py_DECREF(t);
            if (!ok) { Py_XDECREF(outs[0]); Py_XDECREF(outs[1]); goto done; }
        }
        Py_DECREF(x);
        x = D == 1 ? Py_NewRef(outs[0]) : cat2(outs[0], outs[1], -1);
        Py_XDECREF(outs[0]); Py_XDECREF(outs[1]);
        if (!x) goto done;
        if (dropout != 0 && train && l < num_layers - 1) {
            Py_SETREF(x, tn_at_dropout(x, dropout, true));
            if (!x) goto done;
        }
    }
    PyObject *h = tl_join(tn_at_stack, &hy, 0), *c = h ? tl_join(tn_at_stack, &cy, 0) : NULL;
    if (c && batch_first) Py_SETREF(x, tn_at_transpose_int(x, 0LL, 1LL));
    if (c && x) res = PyTuple_Pack(3, x, h, c);
    Py_XDECREF(h); Py_XDECREF(c);
done:
    tl_free(&hy); tl_free(&cy);
    Py_XDECREF(x); Py_XDECREF(hx); Py_XDECREF(cx);
    return res;
}

/* mkldnn_rnn_layer(input, weight0..3, hx_, cx_, reverse, batch_sizes, mode, hidden_size, num_layers,
 * has_biases, bidirectional, batch_first, train) -> (output, hy, cy, workspace) */
/* upstream's oneDNN layer first reads input.size(0..2) (its RNNParams): IndexError for an input of
 * fewer than 3 dims, before any other check; a call on meta goes elsewhere upstream (not this
 * read). 0 or -1. */
static int mkldnn_layer_sizes(tn_value *a) {
    if (tn_door_on_meta()) return 0;
    const tn_tensor *it = tn_tensor_of(a[0].u.obj);
    for (int d = 0; d < 3; d++)
        if (tn_size_read(it, d) < 0) return -1;
    return 0;
}

PyObject *tn_op_mkldnn_rnn_layer(tn_value *a) {
    PyObject *input = a[0].u.obj;
    const tn_tensor *it = tn_tensor_of(input);
    if (mkldnn_layer_sizes(a) < 0) return NULL;
    if (it->ndim != 3 || a[9].u.i != 2 || a[8].u.ints.n != 0) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: mkldnn_rnn_layer supports the unpacked LSTM layer of a 3-D input only");
        return NULL;
    }
    bool hb = ARGB(12);
    cellp p = {a[1].u.obj, a[2].u.obj, hb ? a[3].u.obj : NULL, hb ? a[4].u.obj : NULL, NULL};
    hid h0 = {a[5].u.obj, a[6].u.obj}, fin;
    PyObject *out = full_dir(CELL_LSTM, input, &h0, &p, ARGB(7), &fin);
    if (!out) return NULL;
    int64_t zero = 0, one = 1;
    PyObject *ws = tn_tensor_new_strided(1, &zero, &one, TN_DTYPE_U8);
    PyObject *r = ws ? PyTuple_Pack(4, out, fin.h, fin.c, ws) : NULL;
    Py_DECREF(out); hid_clear(&fin); Py_XDECREF(ws);
    return r;
}

/* C++'s 1 - t: empty_like(t).fill_(1).sub_(t) */
static PyObject *one_minus(PyObject *t) {
    PyObject *e = tn_at_empty_like(t, NULL, NULL, NULL, NULL, NULL);
    PyObject *f = e ? tn_at_fill__Scalar(e, TN_SI(1)) : NULL;
    PyObject *r = f ? tn_at_sub__Tensor(e, t, TN_SDEF) : NULL;
    Py_XDECREF(e); Py_XDECREF(f);
    return r;
}

/* upstream's mkldnn_rnn_layer_differentiable_backward, op by op through the door: the gates
 * recomputed over the layer, then the steps backwards. Returns (dx, dW_ih, dW_hh, db, db', dhx, dcx);
 * clone_bias: db' a clone of db (the oneDNN op's), else db itself (the differentiable formula's). */
PyObject *tn_rnn_lstm_layer_backward(PyObject *input, PyObject *w0, PyObject *w1, PyObject *w2, PyObject *w3, PyObject *hx_,
                                     PyObject *cx_, PyObject *output, PyObject *go, PyObject *ghy, PyObject *gcy,
                                     bool reverse, int64_t hidden, bool has_biases, bool clone_bias) {
    if (!go && !ghy && !gcy) return Py_BuildValue("(OOOOOOO)", Py_None, Py_None, Py_None, Py_None, Py_None, Py_None, Py_None);
    const tn_tensor *it = tn_tensor_of(input);
    int64_t T = it->ndim == 3 ? it->sizes[0] : 0;
    PyObject **G = PyMem_Calloc((size_t)(T + 1) * 6 + 1, sizeof *G);   /* per step: i f g o | states h c */
    PyObject **S = G ? G + 4 * T : NULL;                              /* (T + 1) * 2 */
    PyObject *grad_output = NULL, *grad_hy = NULL, *grad_cy = NULL, *bih = NULL, *bhh = NULL, *res = NULL;
    PyObject *dWx = NULL, *dWh = NULL, *db = NULL, *dprev_h = NULL, *dprev_c = NULL;
    tlist dxs = {0};
    if (!G) { PyErr_NoMemory(); return NULL; }
#define TRY(v, e) do { if (!((v) = (e))) goto bwd_done; } while (0)
    TRY(grad_output, go ? tn_at_contiguous(go, NULL) : tn_at_zeros_like(output, NULL, NULL, NULL, NULL, NULL));
    TRY(grad_hy, ghy ? tn_at_contiguous(ghy, NULL) : tn_at_zeros_like(hx_, NULL, NULL, NULL, NULL, NULL));
    TRY(grad_cy, gcy ? tn_at_contiguous(gcy, NULL) : tn_at_zeros_like(cx_, NULL, NULL, NULL, NULL, NULL));
    if (has_biases) { bih = Py_NewRef(w2); bhh = Py_NewRef(w3); }
    else {
        bih = tn_at_zeros(TN_IS(4 * hidden), TN_DT(tn_tensor_of(w0)->dtype), NULL, NULL, NULL);
        bhh = bih ? tn_at_zeros(TN_IS(4 * hidden), TN_DT(tn_tensor_of(w0)->dtype), NULL, NULL, NULL) : NULL;
        if (!bhh) goto bwd_done;
    }
    S[0] = Py_NewRef(hx_); S[1] = Py_NewRef(cx_);
    for (int64_t seq = 1; seq <= T; seq++) {
        int64_t xi = reverse ? T - seq : seq - 1;
        PyObject *xs = NULL, *l1 = NULL, *l2 = NULL, *gate = NULL, *ch = NULL, *m1 = NULL, *m2 = NULL, *cy = NULL, *tc = NULL, *hy = NULL;
        int ok = 0;
        if (!(xs = tn_at_select_int(input, 0LL, (long long)xi))) goto step_done;
        if (!(l1 = linear(xs, w0, bih)) || !(l2 = linear(S[2 * (seq - 1)], w1, bhh))) goto step_done;
        if (!(gate = add_t_(l1, l2)) || !(ch = chunk(gate, 4))) goto step_done;
        PyObject **g4 = &G[4 * xi];
        if (!(g4[0] = tn_at_sigmoid_(CH(ch, 0))) || !(g4[1] = tn_at_sigmoid_(CH(ch, 1))) ||
            !(g4[2] = tn_at_tanh_(CH(ch, 2))) || !(g4[3] = tn_at_sigmoid_(CH(ch, 3))))
            goto step_done;
        if (!(m1 = tn_at_mul_Tensor(g4[1], S[2 * (seq - 1) + 1])) || !(m2 = tn_at_mul_Tensor(g4[0], g4[2])) ||
            !(cy = tn_add_tt(m1, m2)) || !(tc = tn_at_tanh(cy)) || !(hy = tn_at_mul_Tensor(g4[3], tc)))
            goto step_done;
        S[2 * seq] = Py_NewRef(hy); S[2 * seq + 1] = Py_NewRef(cy);
        ok = 1;
    step_done:
        Py_XDECREF(xs); Py_XDECREF(l1); Py_XDECREF(l2); Py_XDECREF(gate); Py_XDECREF(ch);
        Py_XDECREF(m1); Py_XDECREF(m2); Py_XDECREF(cy); Py_XDECREF(tc); Py_XDECREF(hy);
        if (!ok) goto bwd_done;
    }
    for (Py_ssize_t k = 0; k < T; k++) if (tl_push(&dxs, Py_NewRef(Py_None)) < 0) goto bwd_done;
    for (int64_t seq = T - 1; seq >= 0; seq--) {
        int64_t xi = reverse ? T - seq - 1 : seq;
        PyObject *i = G[4 * xi], *f = G[4 * xi + 1], *g = G[4 * xi + 2], *o = G[4 * xi + 3];
        PyObject *cyv = S[2 * (seq + 1) + 1], *hxv = S[2 * seq], *cxv = S[2 * seq + 1];
        PyObject *t[32] = {0};
        int ok = 0;
#define OP1(k, op, x) if (!(t[k] = op(x))) goto bstep
#define OP2(k, op, x, y) if (!(t[k] = op(x, y))) goto bstep
#define RSUB1(k, x) if (!(t[k] = one_minus(x))) goto bstep
        /* C++'s a * b * c evaluates its right operand first (GCC): the order below is upstream's op stream */
        if (!(t[0] = tn_at_select_int(grad_output, 0LL, (long long)xi))) goto bstep;
        OP2(1, tn_add_tt, t[0], grad_hy);                 /* new_grad_hy */
        OP1(3, tn_at_tanh, cyv);
        OP1(4, tn_at_tanh, cyv);
        OP2(5, tn_at_mul_Tensor, t[3], t[4]);
        RSUB1(6, t[5]);                                           /* 1 - tanh(cy)^2 */
        OP2(2, tn_at_mul_Tensor, t[1], o);                       /* new_grad_hy * o */
        OP2(7, tn_at_mul_Tensor, t[2], t[6]);
        OP2(8, tn_add_tt, grad_cy, t[7]);                 /* d1 */
        OP2(9, tn_at_mul_Tensor, t[8], i);                       /* dgp */
        OP2(10, tn_at_mul_Tensor, t[8], g);                      /* dip */
        OP2(11, tn_at_mul_Tensor, t[8], f);                      /* dprev_c */
        OP2(12, tn_at_mul_Tensor, t[8], cxv);                    /* dfp */
        OP1(13, tn_at_tanh, cyv);
        OP2(14, tn_at_mul_Tensor, t[1], t[13]);                  /* dop */
        RSUB1(16, o);
        OP2(15, tn_at_mul_Tensor, t[14], o);
        OP2(17, tn_at_mul_Tensor, t[15], t[16]);                 /* do_ */
        OP2(18, tn_at_mul_Tensor, g, g);
        RSUB1(19, t[18]);
        OP2(20, tn_at_mul_Tensor, t[9], t[19]);                  /* dg */
        RSUB1(22, f);
        OP2(21, tn_at_mul_Tensor, t[12], f);
        OP2(23, tn_at_mul_Tensor, t[21], t[22]);                 /* df */
        RSUB1(25, i);
        OP2(24, tn_at_mul_Tensor, t[10], i);
        OP2(26, tn_at_mul_Tensor, t[24], t[25]);                 /* di */
        {
            PyObject *l = Py_BuildValue("[OOOO]", t[26], t[23], t[20], t[17]);
            t[27] = l ? tn_at_cat(TN_TPY(l), 1LL) : NULL;   /* da */
            Py_XDECREF(l);
            if (!t[27]) goto bstep;
        }
        if (!(t[28] = tn_at_sum_dim_IntList(t[27], TN_IS(0LL), false, NULL))) goto bstep;   /* db_ */
        {
            PyObject *dx = tn_at_matmul(t[27], w0);
            PyObject *dxu = dx ? tn_at_unsqueeze(dx, 0LL) : NULL;
            Py_XDECREF(dx);
            if (!dxu) goto bstep;
            Py_SETREF(dxs.v[xi], dxu);
        }
        OP2(29, tn_at_matmul, t[27], w1);                        /* dprev_h */
        {
            PyObject *xs = tn_at_select_int(input, 0LL, (long long)xi);
            PyObject *daT = xs ? tn_at_transpose_int(t[27], 0LL, 1LL) : NULL;
            PyObject *dWx_ = daT ? tn_at_matmul(daT, xs) : NULL;
            Py_XDECREF(daT);
            daT = dWx_ ? tn_at_transpose_int(t[27], 0LL, 1LL) : NULL;
            PyObject *dWh_ = daT ? tn_at_matmul(daT, hxv) : NULL;
            Py_XDECREF(daT); Py_XDECREF(xs);
            if (!dWh_) { Py_XDECREF(dWx_); goto bstep; }
            if (seq == T - 1) {
                db = Py_NewRef(t[28]); dWx = dWx_; dWh = dWh_;
            } else {
                PyObject *a1 = add_t_(db, t[28]), *a2 = add_t_(dWx, dWx_), *a3 = add_t_(dWh, dWh_);
                Py_DECREF(dWx_); Py_DECREF(dWh_);
                int good = a1 && a2 && a3;
                Py_XDECREF(a1); Py_XDECREF(a2); Py_XDECREF(a3);
                if (!good) goto bstep;
            }
        }
        Py_SETREF(grad_hy, Py_NewRef(t[29]));
        Py_SETREF(grad_cy, Py_NewRef(t[11]));
        Py_XSETREF(dprev_h, Py_NewRef(t[29]));
        Py_XSETREF(dprev_c, Py_NewRef(t[11]));
        ok = 1;
    bstep:
        for (int k = 0; k < 32; k++) Py_XDECREF(t[k]);
        if (!ok) goto bwd_done;
#undef OP1
#undef OP2
#undef RSUB1
    }
    if (T == 0) { PyErr_SetString(PyExc_RuntimeError, "Expected sequence length to be larger than 0 in RNN"); goto bwd_done; }
    {
        PyObject *dx = tl_join(tn_at_cat, &dxs, 0);
        PyObject *db2 = dx ? (clone_bias ? tn_at_clone(db, NULL) : Py_NewRef(db)) : NULL;
        if (db2) res = PyTuple_Pack(7, dx, dWx, dWh, db, db2, dprev_h, dprev_c);
        Py_XDECREF(dx); Py_XDECREF(db2);
    }
bwd_done:
#undef TRY
    for (int64_t k = 0; k < 4 * T + 2 * (T + 1); k++) Py_XDECREF(G[k]);
    PyMem_Free(G);
    tl_free(&dxs);
    Py_XDECREF(grad_output); Py_XDECREF(grad_hy); Py_XDECREF(grad_cy); Py_XDECREF(bih); Py_XDECREF(bhh);
    Py_XDECREF(dWx); Py_XDECREF(dWh); Py_XDECREF(db); Py_XDECREF(dprev_h); Py_XDECREF(dprev_c);
    return res;
}

/* mkldnn_rnn_layer_backward(input, weight1..4, hx_, cx_tmp, output, hy_, cy_, grad_output?, grad_hy?,
 * grad_cy?, reverse, mode, hidden_size, num_layers, has_biases, train, bidirectional, batch_sizes,
 * batch_first, workspace) */
PyObject *tn_op_mkldnn_rnn_layer_backward(tn_value *a) {
    if (mkldnn_layer_sizes(a) < 0) return NULL;
    return tn_rnn_lstm_layer_backward(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.obj, a[4].u.obj, a[5].u.obj, a[6].u.obj,
                                      a[7].u.obj, opt_t(&a[10]), opt_t(&a[11]), opt_t(&a[12]), ARGB(13), a[15].u.i,
                                      ARGB(17), true);
}
