/* ops/pad.c — reflect, replicate and circular padding: aten::reflection_pad{1,2,3}d,
 * aten::replication_pad{1,2,3}d (and their .out forms) and aten::_pad_circular, plus the shared
 * helpers aten::pad (ops/modelops.c) routes its non-constant modes through (ops/pad.h).
 *
 * All three modes are gathers: every output element is a copy of one input element, chosen per
 * padded dimension by an index map (reflect: mirror without repeating the edge; replicate: clamp
 * to the edge; circular: wrap around the cropped extent). The op functions validate as upstream
 * does, build per-dimension tables of byte offsets, and one dtype-agnostic strided kernel copies
 * elements of the dtype's size. Negative padding crops, as upstream's does. */
#include "ops/pad.h"

#include "ops/common.h"
#include "core/pystate.h"

#include <stdio.h>

#define PAD_MAXD 6 /* _pad_circular is N-d; reflect/replicate use at most 5 */

/* ---- the kernel ---- */

typedef struct {
    int nd;
    int64_t sizes[TN_MAX_DIMS];         /* output sizes */
    const int64_t *ooff[TN_MAX_DIMS];   /* per dim: output index -> output byte offset */
    const int64_t *ioff[TN_MAX_DIMS];   /* per dim: output index -> input byte offset */
    char *out;
    const char *in;
    int isz;
} pad_plan;

#define PAD_ROW(T)                                                                 \
    for (int64_t j = 0; j < n; j++) {                                              \
        T v;                                                                       \
        memcpy(&v, ib + il[j], sizeof v);                                          \
        memcpy(ob + ol[j], &v, sizeof v);                                          \
    }

/* Copy every output element from its input element. Cannot fail, does not allocate. */
static void pad_gather(const pad_plan *p) {
    int nd = p->nd;
    for (int d = 0; d < nd; d++)
        if (p->sizes[d] == 0) return;
    int64_t idx[TN_MAX_DIMS] = {0};
    int64_t n = p->sizes[nd - 1];
    const int64_t *ol = p->ooff[nd - 1], *il = p->ioff[nd - 1];
    for (;;) {
        char *ob = p->out;
        const char *ib = p->in;
        for (int d = 0; d < nd - 1; d++) {
            ob += p->ooff[d][idx[d]];
            ib += p->ioff[d][idx[d]];
        }
        switch (p->isz) {
        case 1: PAD_ROW(uint8_t) break;
        case 2: PAD_ROW(uint16_t) break;
        case 4: PAD_ROW(uint32_t) break;
        case 8: PAD_ROW(uint64_t) break;
        default:
            for (int64_t j = 0; j < n; j++) memcpy(ob + ol[j], ib + il[j], (size_t)p->isz);
        }
        int d = nd - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < p->sizes[d]) break;
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

/* Run the gather from `src` into `dst` (same rank) with per-dim input index maps `map[d]`
 * (NULL: identity). Builds the byte-offset tables; releases the GIL for large outputs. */
static int pad_run(PyObject *dst, PyObject *src, int64_t *const *map) {
    tn_tensor *o = tn_tensor_of(dst), *s = tn_tensor_of(src);
    int nd = o->ndim, isz = tn_dtype_itemsize(o->dtype);
    int64_t total = 0, numel = 1;
    for (int d = 0; d < nd; d++) {
        total += o->sizes[d];
        numel *= o->sizes[d];
    }
    if (numel == 0) return 0;
    int64_t *buf = PyMem_Malloc((size_t)(2 * total + 1) * sizeof *buf);
    if (!buf) {
        PyErr_NoMemory();
        return -1;
    }
    pad_plan p;
    p.nd = nd;
    p.isz = isz;
    p.out = tn_data(o);
    p.in = tn_data(s);
    int64_t *w = buf;
    for (int d = 0; d < nd; d++) {
        int64_t *oo = w, *io = w + o->sizes[d];
        for (int64_t j = 0; j < o->sizes[d]; j++) {
            oo[j] = j * o->strides[d] * isz;
            io[j] = (map[d] ? map[d][j] : j) * s->strides[d] * isz;
        }
        p.sizes[d] = o->sizes[d];
        p.ooff[d] = oo;
        p.ioff[d] = io;
        w += 2 * o->sizes[d];
    }
    if (numel >= (1 << 16)) {
        Py_BEGIN_ALLOW_THREADS
        pad_gather(&p);
        Py_END_ALLOW_THREADS
    } else {
        pad_gather(&p);
    }
    PyMem_Free(buf);
    return 0;
}

/* pad_run, then free the maps' buffer `mb`: returns res, or NULL (res released) on failure. */
static PyObject *pad_finish(PyObject *res, PyObject *src, int64_t *const *map, int64_t *mb) {
    int rc = pad_run(res, src, map);
    PyMem_Free(mb);
    if (rc < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

/* ---- shared pieces ---- */


/* Dtypes upstream's reflection / replication kernels are compiled for. */
static bool edge_dtype_ok(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_U8: case TN_DTYPE_I8: case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64:
    case TN_DTYPE_F16: case TN_DTYPE_BF16: case TN_DTYPE_F32: case TN_DTYPE_F64:
    case TN_DTYPE_C64: case TN_DTYPE_C128:
        return true;
    default:
        return false;
    }
}

/* upstream's suggest_memory_format for 4-d / 5-d strides: 2 = channels_last, 3 =
 * channels_last_3d, 0 = contiguous. */
int tn_suggest_format(const tn_tensor *t) {
    static const int order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    const int *order;
    int n;
    if (t->ndim == 4) order = order4, n = 4;
    else if (t->ndim == 5) order = order5, n = 5;
    else return 0;
    if (t->strides[1] == 0) return 0;
    int64_t min = 0;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (t->sizes[d] == 0) return 0;
        if (t->strides[d] < min) return 0;
        if (d == 0 && min == t->strides[1]) return 0;
        min = t->strides[d];
        if (t->sizes[d] > 1) min *= t->sizes[d];
    }
    return n == 4 ? 2 : 3;
}

/* Channels-last strides (elements) of sizes (rank 4 or 5). */
static void channels_last_strides(int nd, const int64_t *sz, int64_t *st) {
    int64_t acc = 1;
    st[1] = acc;
    acc *= sz[1] > 1 ? sz[1] : 1;
    for (int d = nd - 1; d >= 2; d--) {
        st[d] = acc;
        acc *= sz[d] > 1 ? sz[d] : 1;
    }
    st[0] = acc;
}

/* Output index -> input index maps for one padded dim of input length `len`, output `olen`. */
static void fill_map(int64_t *m, int64_t olen, int64_t len, int64_t l, tn_pad_mode mode) {
    for (int64_t o = 0; o < olen; o++) {
        int64_t i = o - l;
        if (mode == TN_PAD_REFLECT) {
            if (i < 0) i = -i;
            if (i >= len) i = 2 * (len - 1) - i;
        } else {
            if (i < 0) i = 0;
            if (i >= len) i = len - 1;
        }
        m[o] = i;
    }
}

/* ---- reflection / replication ---- */

PyObject *tn_pad_edge(PyObject *self, const int64_t *pad, int npad, int k, tn_pad_mode mode,
                      PyObject *out) {
    tn_tensor *t = tn_tensor_of(self);
    bool refl = mode == TN_PAD_REFLECT;
    char opname[32];
    snprintf(opname, sizeof opname, "%s_pad%dd", refl ? "reflection" : "replication", k);
    char shp[256];
    int nd = t->ndim;

    if (npad != 2 * k) {
        if (refl)
            PyErr_Format(PyExc_RuntimeError, "padding size is expected to be %d, but got: %d", 2 * k, npad);
        else
            PyErr_Format(PyExc_RuntimeError, "padding size is expected to be %d", 2 * k);
        return NULL;
    }
    bool dims_ok = nd == k + 1 || nd == k + 2;
    for (int d = 0; dims_ok && d < nd; d++)
        if (t->sizes[d] == 0 && !(d == 0 && nd == k + 2)) dims_ok = false;
    if (!dims_ok) {
        tn_shape_str(shp, sizeof shp, nd, t->sizes);
        PyErr_Format(PyExc_RuntimeError,
                     "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
                     "non-zero dimensions for input, but got: %s", k + 1, k + 2, shp);
        return NULL;
    }
    /* padded dims: i = 0 is the last dim */
    int64_t osz[TN_MAX_DIMS];
    for (int d = 0; d < nd; d++) osz[d] = t->sizes[d];
    if (refl)
        for (int i = 0; i < k; i++) {
            int d = nd - 1 - i;
            int64_t l = pad[2 * i], r = pad[2 * i + 1];
            if (!(l < t->sizes[d] && r < t->sizes[d])) {
                tn_shape_str(shp, sizeof shp, nd, t->sizes);
                PyErr_Format(PyExc_RuntimeError,
                             "Argument #%d: Padding size should be less than the corresponding input "
                             "dimension, but got: padding (%lld, %lld) at dimension %d of input %s",
                             4 + 2 * i, (long long)l, (long long)r, d, shp);
                return NULL;
            }
        }
    bool any_pos = false;
    for (int i = 0; i < k; i++) {
        int d = nd - 1 - i;
        int64_t a;
        if (__builtin_add_overflow(t->sizes[d], pad[2 * i], &a) ||
            __builtin_add_overflow(a, pad[2 * i + 1], &osz[d])) {
            PyErr_SetString(PyExc_RuntimeError, "pad: the padded size overflows");
            return NULL;
        }
        if (osz[d] >= 1) any_pos = true;
    }
    int dw = nd - 1, dh = nd - 2, dd = nd - 3;
    if (k == 1 && osz[dw] < 1) {
        PyErr_Format(PyExc_RuntimeError, "input (W: %lld) is too small. Calculated output W: %lld",
                     (long long)t->sizes[dw], (long long)osz[dw]);
        return NULL;
    }
    if (k == 2 && !any_pos) {
        PyErr_Format(PyExc_RuntimeError,
                     refl ? "input (H: %lld, W: %lld) is too small. Calculated output H: %lld W: %lld"
                          : "input (H: %lld, W: %lld ) is too small. Calculated output H: %lld W: %lld",
                     (long long)t->sizes[dh], (long long)t->sizes[dw], (long long)osz[dh],
                     (long long)osz[dw]);
        return NULL;
    }
    if (k == 3 && !any_pos) {
        PyErr_Format(PyExc_RuntimeError,
                     "input (D: %lld H: %lld, W: %lld) is too small. Calculated output D: %lld H: %lld "
                     "W: %lld", (long long)t->sizes[dd], (long long)t->sizes[dh],
                     (long long)t->sizes[dw], (long long)osz[dd], (long long)osz[dh],
                     (long long)osz[dw]);
        return NULL;
    }
    for (int d = 0; d < nd; d++)
        if (osz[d] < 0) {
            if (refl && k == 2) {
                PyErr_SetString(PyExc_RuntimeError, "numel: integer multiplication overflow");
            } else {
                tn_shape_str(shp, sizeof shp, nd, osz);
                PyErr_Format(PyExc_RuntimeError,
                             "Trying to create tensor with negative dimension %lld: %s",
                             (long long)osz[d], shp);
            }
            return NULL;
        }
    /* reflection_pad2d's out= is not structured: its dtype checks come in another order */
    bool legacy = refl && k == 2;
    if (!legacy && tn_out_dtype_exact(out, t->dtype) < 0) return NULL;
    if (!edge_dtype_ok(t->dtype)) {
        PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", opname,
                     tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    if (out && legacy && tn_tensor_of(out)->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s",
                     tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    /* layout: 4-d / 5-d results of the 2-d and 3-d ops follow a channels-last input */
    /* upstream asks for a memory format (all but the 1-d ops and reflection_pad2d of 3-d input) */
    bool fmt_set = k == 3 || (k == 2 && (nd == 4 || !refl));
    int fmt = fmt_set ? tn_suggest_format(t) : 0;
    PyObject *res;
    if (out) {
        tn_tensor *ot = tn_tensor_of(out);
        bool same = ot->ndim == nd && memcmp(ot->sizes, osz, (size_t)nd * sizeof *osz) == 0;
        /* reflection_pad2d.out resizes without the deprecation warning */
        if (!same && (legacy ? tn_resize(out, nd, osz) : tn_out_prepare(out, nd, osz, t->dtype, opname)) < 0)
            return NULL;
        /* with a memory format asked for, an out= of the right shape is restrided to it too */
        if (fmt_set) {
            if (same && tn_resize(out, nd, osz) < 0) return NULL;
            if (fmt) channels_last_strides(nd, osz, tn_tensor_of(out)->strides);
        }
        res = Py_NewRef(out);
    } else if (fmt) {
        int64_t st[TN_MAX_DIMS];
        channels_last_strides(nd, osz, st);
        res = tn_tensor_new_strided(nd, osz, st, t->dtype);
    } else {
        res = tn_tensor_new_empty(nd, osz, t->dtype, t->storage->device);
    }
    if (!res) return NULL;
    int64_t total = 0;
    for (int i = 0; i < k; i++) total += osz[nd - 1 - i];
    int64_t *mb = PyMem_Malloc((size_t)(total + 1) * sizeof *mb);
    if (!mb) {
        Py_DECREF(res);
        return PyErr_NoMemory();
    }
    int64_t *map[TN_MAX_DIMS] = {0}, *w = mb;
    for (int i = 0; i < k; i++) {
        int d = nd - 1 - i;
        map[d] = w;
        fill_map(w, osz[d], t->sizes[d], pad[2 * i], mode);
        w += osz[d];
    }
    return pad_finish(res, self, map, mb);
}

/* ---- circular ---- */

/* upstream's checks of _pad_circular (and of the self-overlapping copies its composite makes);
 * the result's sizes into osz, *empty_crop when nothing of the input is kept */
int tn_pad_circular_check(PyObject *self, const int64_t *pad, int npad, int64_t *osz, bool *empty_crop_out) {
    tn_tensor *t = tn_tensor_of(self);
    int nd = t->ndim, k = npad / 2, lead = nd - k;
    if (lead != 1 && lead != 2) {
        PyErr_Format(PyExc_RuntimeError,
                     "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be "
                     "equivalent to padding of length %d or %d respectively but got %d",
                     2 * (nd - 1), 2 * (nd - 2), npad);
        return -1;
    }
    int64_t lo[TN_MAX_DIMS], hi[TN_MAX_DIMS];
    for (int d = 0; d < nd; d++) osz[d] = t->sizes[d];
    /* checks run from the first padded dim to the last, as upstream's do */
    for (int d = lead; d < nd; d++) {
        int i = nd - 1 - d;
        int64_t l = pad[2 * i], r = pad[2 * i + 1], len = t->sizes[d], a;
        lo[d] = l;
        hi[d] = r;
        if (__builtin_add_overflow(len, l, &a) || __builtin_add_overflow(a, r, &osz[d])) {
            PyErr_SetString(PyExc_RuntimeError, "pad: the padded size overflows");
            return -1;
        }
        if (!(l <= len && r <= len)) {
            PyErr_SetString(PyExc_RuntimeError, "Padding value causes wrapping around more than once.");
            return -1;
        }
        if (osz[d] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Negative padding value is resulting in an empty dimension");
            return -1;
        }
    }
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) numel *= osz[d];
    /* upstream fills the pads by copying within the result; where the wrapped extent is shorter
     * than a pad the copy overlaps itself, which upstream refuses when the slices are dense */
    bool empty_crop = false;
    for (int d = nd - 1; d >= lead && numel > 0; d--) {
        int64_t len = t->sizes[d];
        int64_t c = len - (lo[d] < 0 ? -lo[d] : 0) - (hi[d] < 0 ? -hi[d] : 0);
        if (c <= 0) empty_crop = true;
        bool dense = true;
        for (int e = 0; e < d; e++)
            if (osz[e] != 1) dense = false;
        if (dense && c > 0 && (lo[d] > c || hi[d] > c)) {
            PyErr_SetString(PyExc_RuntimeError,
                            "unsupported operation: some elements of the input tensor and the "
                            "written-to tensor refer to a single memory location. Please clone() the "
                            "tensor before performing the operation.");
            return -1;
        }
    }
    *empty_crop_out = empty_crop;
    return 0;
}

PyObject *tn_pad_circular(PyObject *self, const int64_t *pad, int npad) {
    tn_tensor *t = tn_tensor_of(self);
    int nd = t->ndim, lead = nd - npad / 2;
    int64_t osz[TN_MAX_DIMS], lo[TN_MAX_DIMS], hi[TN_MAX_DIMS], numel = 1;
    bool empty_crop;
    if (tn_pad_circular_check(self, pad, npad, osz, &empty_crop) < 0) return NULL;
    for (int d = lead; d < nd; d++) {
        lo[d] = pad[2 * (nd - 1 - d)];
        hi[d] = pad[2 * (nd - 1 - d) + 1];
    }
    for (int d = 0; d < nd; d++) numel *= osz[d];
    PyObject *res = tn_tensor_new_empty(nd, osz, t->dtype, t->storage->device);
    if (!res || numel == 0) return res;
    if (empty_crop) { /* nothing to wrap: upstream leaves the memory unset; we give zeros */
        tn_value zero = {.tag = TN_V_INT, .u.i = 0};
        if (tn_fill_number(res, &zero) < 0) {
            Py_DECREF(res);
            return NULL;
        }
        return res;
    }
    int64_t total = 0;
    for (int d = lead; d < nd; d++) total += osz[d];
    int64_t *mb = PyMem_Malloc((size_t)(total + 1) * sizeof *mb);
    if (!mb) {
        Py_DECREF(res);
        return PyErr_NoMemory();
    }
    int64_t *map[TN_MAX_DIMS] = {0}, *w = mb;
    for (int d = lead; d < nd; d++) {
        int64_t start = lo[d] < 0 ? -lo[d] : 0, pl = lo[d] > 0 ? lo[d] : 0;
        int64_t c = t->sizes[d] - start - (hi[d] < 0 ? -hi[d] : 0);
        map[d] = w;
        for (int64_t o = 0; o < osz[d]; o++) {
            int64_t q = (o - pl) % c;
            if (q < 0) q += c;
            w[o] = start + q;
        }
        w += osz[d];
    }
    return pad_finish(res, self, map, mb);
}

/* ---- the operators ---- */

#define EDGE_OPS(NAME, K, MODE)                                                           \
    PyObject *tn_op_##NAME(tn_value *a) {                                                 \
        return tn_pad_edge(a[0].u.obj, a[1].u.ints.v, a[1].u.ints.n, K, MODE, NULL);      \
    }                                                                                     \
    PyObject *tn_op_##NAME##_out(tn_value *a) {                                           \
        return tn_pad_edge(a[0].u.obj, a[1].u.ints.v, a[1].u.ints.n, K, MODE, a[2].u.obj); \
    }

/* reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor, and .out(..., *, Tensor(a!) out) */
EDGE_OPS(reflection_pad1d, 1, TN_PAD_REFLECT)
EDGE_OPS(reflection_pad2d, 2, TN_PAD_REFLECT)
EDGE_OPS(reflection_pad3d, 3, TN_PAD_REFLECT)
EDGE_OPS(replication_pad1d, 1, TN_PAD_REPLICATE)
EDGE_OPS(replication_pad2d, 2, TN_PAD_REPLICATE)
EDGE_OPS(replication_pad3d, 3, TN_PAD_REPLICATE)

/* _pad_circular(Tensor self, SymInt[] pad) -> Tensor */
PyObject *tn_op__pad_circular(tn_value *a) {
    return tn_pad_circular(a[0].u.obj, a[1].u.ints.v, a[1].u.ints.n);
}
