/* ops/sobol.c — the four operators under torch.quasirandom.SobolEngine:
 * _sobol_engine_initialize_state_ (direction numbers from Joe & Kuo's table, ops/sobol_table.h),
 * _sobol_engine_scramble_ (Owen-style linear matrix scrambling with the lower-triangular matrices
 * the Python side draws), _sobol_engine_draw and _sobol_engine_ff_ (Gray-code order: point i
 * XORs in the direction number of the rightmost zero bit of i).
 *
 * Upstream's algorithm (SobolEngineOps.cpp, MAXBIT = 30) is followed step for step so draws are
 * bit-identical, scrambled or not. Where upstream indexes past a tensor (a state with fewer rows
 * than `dimension`, fewer than 30 columns, a dimension beyond the table, more than 2^30 draws)
 * it reads or writes out of bounds; here those raise RuntimeError instead. Upstream's own
 * messages otherwise (measured on 2.13): "sobolstate needs to be of type Long", the
 * TensorAccessor rank check, mul_'s broadcast error for a state whose width is not 30. */
#include "ops/common.h"

#include "ops/sobol_table.h"
#include "core/pystate.h"
#include "tn_aten_gen.h"

#include <string.h>

#define MAXBIT 30

static int check_long(const tn_tensor *t, const char *what) {
    if (t->dtype == TN_DTYPE_I64) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s needs to be of type Long", what);
    return -1;
}

static int check_2d(const tn_tensor *t) {
    if (t->ndim == 2) return 0;
    PyErr_Format(PyExc_RuntimeError, "TensorAccessor expected 2 dims but tensor has %d", t->ndim);
    return -1;
}

/* rows [0, dimension) and columns [0, MAXBIT) of a 2-d state must exist */
static int check_state_extent(const tn_tensor *t, int64_t dimension, int64_t cols) {
    int64_t rows = dimension > 1 ? dimension : 1;
    if (t->sizes[0] >= rows && t->sizes[1] >= cols) return 0;
    PyErr_Format(PyExc_RuntimeError,
                 "torchnative: the Sobol state of shape [%lld, %lld] has no room for dimension %lld (upstream "
                 "reads and writes outside the tensor here)",
                 (long long)t->sizes[0], (long long)t->sizes[1], (long long)dimension);
    return -1;
}

#define AT(t, base, i, j) (*(int64_t *)((base) + ((i) * (t)->strides[0] + (j) * (t)->strides[1]) * 8))

/* ---------------------------------------------------------------- the table */

typedef struct { const char *p; uint64_t acc; int nacc; } bitreader;

static int b64val(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : 63;
}

static uint64_t getbits(bitreader *r, int n) {
    while (r->nacc < n) {
        r->acc |= (uint64_t)b64val(*r->p++) << r->nacc;
        r->nacc += 6;
    }
    uint64_t v = r->acc & ((n == 64 ? 0 : (uint64_t)1 << n) - 1);
    r->acc >>= n;
    r->nacc -= n;
    return v;
}

PyObject *tn_op__sobol_engine_initialize_state_(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    int64_t dimension = a[1].u.i;
    if (check_long(t, "sobolstate") < 0 || check_2d(t) < 0) return NULL;
    if (dimension > TN_SOBOL_MAXDIM) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: the Sobol direction numbers cover %d dimensions, not %lld",
                     TN_SOBOL_MAXDIM, (long long)dimension);
        return NULL;
    }
    int64_t cols = t->sizes[1];
    if (check_state_extent(t, dimension, 0) < 0) return NULL;
    if (cols < MAXBIT) { /* upstream writes past each row, then mul_ fails to broadcast */
        PyErr_Format(PyExc_RuntimeError,
                     "The size of tensor a (%lld) must match the size of tensor b (%d) at non-singleton dimension 1",
                     (long long)cols, MAXBIT);
        return NULL;
    }
    char *base = tn_data(t);
    for (int64_t j = 0; j < MAXBIT; j++) AT(t, base, 0, j) = 1;
    bitreader r = {sobol_bits, 0, 0};
    int deg = 0, left = sobol_deg_count[0] - 1; /* dimension 0 (degree 0) is not stored */
    for (int64_t d = 1; d < dimension; d++) {
        while (--left < 0) left = sobol_deg_count[++deg];
        int64_t m = deg, p = (int64_t)1 << m | (int64_t)getbits(&r, m - 1) << 1 | 1;
        for (int64_t i = 0; i < m; i++) AT(t, base, d, i) = (int64_t)getbits(&r, (int)i) << 1 | 1;
        for (int64_t j = m; j < MAXBIT; j++) {
            int64_t v = AT(t, base, d, j - m), pow2 = 1;
            for (int64_t k = 0; k < m; k++) {
                pow2 <<= 1;
                if ((p >> (m - 1 - k)) & 1) v ^= pow2 * AT(t, base, d, j - k - 1);
            }
            AT(t, base, d, j) = v;
        }
    }
    t->storage->version++;
    if (cols > MAXBIT) { /* the rows are written; mul_ by the 30 powers of two cannot broadcast */
        PyErr_Format(PyExc_RuntimeError,
                     "The size of tensor a (%lld) must match the size of tensor b (%d) at non-singleton dimension 1",
                     (long long)cols, MAXBIT);
        return NULL;
    }
    /* every row, those past `dimension` too, times [2^29, ..., 2, 1] */
    for (int64_t i = 0; i < t->sizes[0]; i++)
        for (int64_t j = 0; j < MAXBIT; j++)
            AT(t, base, i, j) = (int64_t)((uint64_t)AT(t, base, i, j) << (MAXBIT - 1 - j));
    return Py_NewRef(self);
}

/* ---------------------------------------------------------------- scramble */

/* x truncated to an integer dtype's width, as upstream's arange / pow / mul compute in ltm's dtype */
static int64_t wrap_to(uint64_t x, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_U8: return (uint8_t)x;
    case TN_DTYPE_I8: return (int8_t)(uint8_t)x;
    case TN_DTYPE_I16: return (int16_t)(uint16_t)x;
    case TN_DTYPE_I32: return (int32_t)(uint32_t)x;
    default: return (int64_t)x;
    }
}

static int64_t load_int(const char *p, tn_dtype dt) {
    switch (dt) {
    case TN_DTYPE_U8: return *(const uint8_t *)p;
    case TN_DTYPE_I8: return *(const int8_t *)p;
    case TN_DTYPE_I16: return *(const int16_t *)p;
    case TN_DTYPE_I32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

PyObject *tn_op__sobol_engine_scramble_(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self), *l = TN_T(a[1]);
    int64_t dimension = a[2].u.i;
    if (check_long(t, "sobolstate") < 0 || check_2d(t) < 0) return NULL;
    /* then upstream takes ltm's diagonal(0, -2, -1), whatever its dtype: IndexError below 2 dims */
    int64_t wd;
    if (l->ndim < 2 && tn_wrap_dim(-2, l->ndim, &wd) < 0) return NULL;
    tn_dtype ld = l->dtype;
    bool ints = ld == TN_DTYPE_U8 || ld == TN_DTYPE_I8 || ld == TN_DTYPE_I16 || ld == TN_DTYPE_I32 || ld == TN_DTYPE_I64;
    if (!ints && !tn_dtype_is_floating(ld) && !tn_dtype_is_complex(ld))
        return tn_not_implemented("_sobol_engine_scramble_ for this ltm dtype");
    if (l->ndim != 3) {   /* the accessor checks the row dot products' rank before their dtype */
        PyErr_Format(PyExc_RuntimeError, "TensorAccessor expected 2 dims but tensor has %d", l->ndim - 1);
        return NULL;
    }
    if (!ints) { /* the row dot products come out floating */
        PyErr_Format(PyExc_RuntimeError, "expected scalar type Long but found %s", tn_dtype_cpp_name(ld));
        return NULL;
    }
    if (check_state_extent(t, dimension, MAXBIT) < 0) return NULL;
    int64_t n = l->sizes[2];
    if (dimension > 0 && (l->sizes[0] < dimension || l->sizes[1] < MAXBIT)) {
        PyErr_Format(PyExc_RuntimeError,
                     "torchnative: ltm of shape [%lld, %lld, %lld] has no room for dimension %lld (upstream reads "
                     "outside the tensor here)",
                     (long long)l->sizes[0], (long long)l->sizes[1], (long long)n, (long long)dimension);
        return NULL;
    }
    const int isz = tn_dtype_itemsize(ld);
    const char *lb = tn_data(l);
    char *base = tn_data(t);
    for (int64_t d = 0; d < dimension; d++) {
        int64_t dots[MAXBIT];
        for (int64_t p = 0; p < MAXBIT; p++) { /* ltm with a unit diagonal, rows dotted with [2^(n-1), ..., 1] */
            uint64_t s = 0;
            for (int64_t k = 0; k < n; k++) {
                int64_t v = k == p ? 1 : load_int(lb + (d * l->strides[0] + p * l->strides[1] + k * l->strides[2]) * isz, ld);
                int64_t e = n - 1 - k;
                int64_t p2 = wrap_to(e < 64 ? (uint64_t)1 << e : 0, ld);
                s += (uint64_t)wrap_to((uint64_t)v * (uint64_t)p2, ld);
            }
            dots[p] = (int64_t)s;
        }
        for (int64_t j = 0; j < MAXBIT; j++) {
            int64_t vdj = AT(t, base, d, j), t2 = 0, lbit = 1;
            for (int64_t p = MAXBIT - 1; p >= 0; p--) {
                uint64_t both = (uint64_t)(dots[p] & vdj) & (((uint64_t)1 << MAXBIT) - 1);
                int64_t t1 = 0;
                for (; both; both &= both - 1) t1++;
                t2 += (t1 % 2) * lbit;
                lbit <<= 1;
            }
            AT(t, base, d, j) = t2;
        }
    }
    t->storage->version++;
    return Py_NewRef(self);
}

/* ---------------------------------------------------------------- draw, fast-forward */

static int64_t rightmost_zero(int64_t n) { /* C's %, as upstream: a negative n gives 0 */
    int64_t z = 0;
    for (int64_t i = n; i % 2 == 1; i >>= 1) z++;
    return z;
}

/* upstream's kernels read quasi.stride(0), sobolstate.stride(0) and stride(1) before their loop,
 * whatever n and dimension: IndexError for a 0-d quasi, a state of fewer than 2 dims (measured) */
static int read_strides(const tn_tensor *q, const tn_tensor *st) {
    return tn_size_read(q, 0) < 0 || tn_size_read(st, 0) < 0 || tn_size_read(st, 1) < 0 ? -1 : 0;
}

/* quasi's first dimension indexes the dimensions: element j at j * stride(0) */
static int check_quasi(const tn_tensor *q, int64_t dimension) {
    if (q->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "dimension specified as 0 but tensor has no dimensions");
        return -1;
    }
    if (dimension <= q->sizes[0]) return 0;
    PyErr_Format(PyExc_RuntimeError,
                 "torchnative: quasi of %lld elements along dimension 0 has no room for dimension %lld (upstream "
                 "reads and writes outside the tensor here)",
                 (long long)q->sizes[0], (long long)dimension);
    return -1;
}

/* XOR the direction numbers of points num_generated .. num_generated + n - 1 into q (element j at
 * q[j * qs]); out (may be NULL) receives each point's integers, row by row */
static int sobol_walk(int64_t *q, int64_t qs, const tn_tensor *st, int64_t n, int64_t dimension,
                      int64_t num_generated, int64_t *out) {
    const char *base = tn_data(st);
    for (int64_t i = 0; i < n; i++, num_generated++) {
        int64_t l = rightmost_zero(num_generated);
        if (dimension > 0 && l >= st->sizes[1]) {
            PyErr_Format(PyExc_RuntimeError,
                         "torchnative: Sobol point %lld needs direction number %lld of a state with %lld (upstream "
                         "reads outside the tensor here)",
                         (long long)num_generated, (long long)l, (long long)st->sizes[1]);
            return -1;
        }
        for (int64_t j = 0; j < dimension; j++) {
            q[j * qs] ^= *(const int64_t *)(base + (j * st->strides[0] + l * st->strides[1]) * 8);
            if (out) out[i * dimension + j] = q[j * qs];
        }
    }
    return 0;
}

PyObject *tn_op__sobol_engine_draw(tn_value *a) {
    tn_tensor *q = TN_T(a[0]), *st = TN_T(a[2]);
    int64_t n = a[1].u.i, dimension = a[3].u.i, num_generated = a[4].u.i;
    if (check_long(st, "sobolstate") < 0 || check_long(q, "quasi") < 0) return NULL;
    if (n < 0 || dimension < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld, %lld]",
                     (long long)(n < 0 ? n : dimension), (long long)n, (long long)dimension);
        return NULL;
    }
    tn_dtype rd = a[5].tag == TN_V_DTYPE ? a[5].u.dtype : TN_DTYPE_F32;
    if (rd != TN_DTYPE_F32 && rd != TN_DTYPE_F64) return tn_kernel_missing("_sobol_engine_draw", rd);
    if (read_strides(q, st) < 0) return NULL;
    if (n > 0 && dimension > 0) {
        if (check_quasi(q, dimension) < 0 || check_2d(st) < 0 || check_state_extent(st, dimension, 0) < 0) return NULL;
    }
    PyObject *wq = tn_at_clone(a[0].u.obj, tn_py.memory_format_contiguous);
    if (!wq) return NULL;
    int64_t shape[2] = {n, dimension};
    PyObject *res = tn_tensor_new_empty(2, shape, rd, TN_DEVICE_CPU);
    int64_t *iv = NULL;
    if (!res) goto fail;
    if (n > 0 && dimension > 0) {
        tn_tensor *w = tn_tensor_of(wq);
        iv = PyMem_Malloc((size_t)(n * dimension) * sizeof *iv);
        if (!iv) { PyErr_NoMemory(); goto fail; }
        if (sobol_walk((int64_t *)tn_data(w), w->strides[0], st, n, dimension, num_generated, iv) < 0) goto fail;
        /* the integer converted to the result dtype, then times 2^-30 (exact) */
        char *o = tn_data(tn_tensor_of(res));
        for (int64_t k = 0; k < n * dimension; k++) {
            if (rd == TN_DTYPE_F32) ((float *)o)[k] = (float)iv[k] * (float)(1.0 / (1 << MAXBIT));
            else ((double *)o)[k] = (double)iv[k] * (double)(float)(1.0 / (1 << MAXBIT));
        }
        PyMem_Free(iv);
        iv = NULL;
    }
    PyObject *tup = PyTuple_Pack(2, res, wq);
    Py_DECREF(res);
    Py_DECREF(wq);
    return tup;
fail:
    PyMem_Free(iv);
    Py_XDECREF(res);
    Py_DECREF(wq);
    return NULL;
}

PyObject *tn_op__sobol_engine_ff_(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *q = tn_tensor_of(self), *st = TN_T(a[2]);
    int64_t n = a[1].u.i, dimension = a[3].u.i, num_generated = a[4].u.i;
    if (check_long(st, "sobolstate") < 0 || check_long(q, "quasi") < 0) return NULL;
    if (read_strides(q, st) < 0) return NULL;
    if (n > 0 && dimension > 0) {
        if (check_quasi(q, dimension) < 0 || check_2d(st) < 0 || check_state_extent(st, dimension, 0) < 0) return NULL;
        if (sobol_walk((int64_t *)tn_data(q), q->strides[0], st, n, dimension, num_generated, NULL) < 0) return NULL;
        q->storage->version++;
    }
    return Py_NewRef(self);
}
