/* ops/create.c — tensor factories: empty, empty_strided, zeros, ones, full, scalar_tensor,
 * arange, linspace, eye, the *_like family and the Tensor.new_* methods.
 *
 * Every factory takes upstream's TensorOptions arguments (dtype, layout, device, pin_memory) as
 * schema values; create_options turns them into a dtype and a device. Fill values are checked the
 * way upstream's Scalar::to<T>() checks them ("value cannot be converted to type X without
 * overflow") before the cast kernels store them. arange and linspace follow upstream's CPU kernels
 * exactly (accumulation types, arange's 8/4/16-wide vector chunks, linspace's two-sided formula),
 * because their results are compared bit for bit.
 *
 * A few helpers here are shared with ops/convert.c and python/tensor_new.c (declared at the top
 * of those files; prefix tn_cr_). */
#include "ops/common.h"
#include "ops/sparse.h"
#include "ops/nested.h"
#include "ops/qtensor.h"
#include "ops/qlinear.h"
#include "tn_ops_gen.h"
#include "tn_aten_gen.h"

#include <complex.h>
#include <math.h>

/* ---------- shared helpers ---------- */

/* C++ type name upstream prints in "value cannot be converted to type X without overflow". */
const char *tn_cr_ctype_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_U8: return "uint8_t";
    case TN_DTYPE_I8: return "int8_t";
    case TN_DTYPE_I16: return "int16_t";
    case TN_DTYPE_I32: return "int";
    case TN_DTYPE_I64: return "int64_t";
    case TN_DTYPE_F8E4M3FN: return "c10::Float8_e4m3fn";
    case TN_DTYPE_F8E5M2: return "c10::Float8_e5m2";
    case TN_DTYPE_F8E4M3FNUZ: return "c10::Float8_e4m3fnuz";
    case TN_DTYPE_F8E5M2FNUZ: return "c10::Float8_e5m2fnuz";
    case TN_DTYPE_F8E8M0FNU: return "c10::Float8_e8m0fnu";
    case TN_DTYPE_U16: return "uint16_t";
    case TN_DTYPE_U32: return "uint32_t";
    case TN_DTYPE_U64: return "uint64_t";
    case TN_DTYPE_F16: return "c10::Half";
    case TN_DTYPE_BF16: return "c10::BFloat16";
    case TN_DTYPE_F32: return "float";
    case TN_DTYPE_F64: return "double";
    case TN_DTYPE_C32: return "c10::complex<c10::Half>";
    case TN_DTYPE_C64: return "c10::complex<float>";
    case TN_DTYPE_C128: return "c10::complex<double>";
    case TN_DTYPE_BOOL: return "bool";
    default: return tn_dtype_infos[d].name;
    }
}

/* Range of a real component type as doubles. */
static void real_limits(tn_dtype d, double *lo, double *hi) {
    switch (d) {
    case TN_DTYPE_U8: *lo = 0; *hi = 255; break;
    case TN_DTYPE_I8: *lo = -128; *hi = 127; break;
    case TN_DTYPE_I16: *lo = -32768; *hi = 32767; break;
    case TN_DTYPE_I32: *lo = -2147483648.0; *hi = 2147483647.0; break;
    case TN_DTYPE_I64: *lo = -9223372036854775808.0; *hi = 9223372036854775807.0; break;
    case TN_DTYPE_F8E4M3FN: *lo = -448; *hi = 448; break;
    case TN_DTYPE_F8E5M2: *lo = -57344; *hi = 57344; break;
    case TN_DTYPE_F8E4M3FNUZ: *lo = -240; *hi = 240; break;
    case TN_DTYPE_F8E5M2FNUZ: *lo = -57344; *hi = 57344; break;
    case TN_DTYPE_F8E8M0FNU: *lo = 0x1p-127; *hi = 0x1p127; break;   /* no zero, no negatives */
    case TN_DTYPE_U16: *lo = 0; *hi = 65535; break;
    case TN_DTYPE_U32: *lo = 0; *hi = 4294967295.0; break;
    case TN_DTYPE_U64: *lo = 0; *hi = 18446744073709551615.0; break;
    case TN_DTYPE_F16: case TN_DTYPE_C32: *lo = -65504; *hi = 65504; break;
    case TN_DTYPE_BF16: *lo = -3.3895313892515355e38; *hi = 3.3895313892515355e38; break;
    case TN_DTYPE_F32: case TN_DTYPE_C64: *lo = -3.4028234663852886e38; *hi = 3.4028234663852886e38; break;
    default: *lo = -INFINITY; *hi = INFINITY; break;
    }
}

/* upstream's c10::overflows<To, double>(f) for one real component */
static bool double_overflows(tn_dtype to, double f) {
    bool fl = tn_dtype_is_floating(to) || tn_dtype_is_complex(to);
    if (fl && isinf(f) && to != TN_DTYPE_F8E4M3FN && to != TN_DTYPE_F8E4M3FNUZ && to != TN_DTYPE_F8E5M2FNUZ &&
        to != TN_DTYPE_F8E8M0FNU)
        return false; /* e4m3fn, the fnuz formats and e8m0fnu have no infinity */
    if (!fl && f != f) return true;
    double lo, hi;
    real_limits(to, &lo, &hi);
    return f < lo || f > hi;
}

/* Would upstream's Scalar::to<T>() refuse number `v` for dtype dt? (0 ok, -1 RuntimeError) */
int tn_cr_check_scalar(const tn_value *v, tn_dtype dt) {
    bool bad = false;
    if (dt == TN_DTYPE_BOOL || v->tag == TN_V_BOOL) return 0;
    if (v->tag == TN_V_INT && v->uns) {   /* an unsigned Scalar: fits uint64 and the floating types' ranges */
        if (dt != TN_DTYPE_U64) bad = double_overflows(dt, (double)(uint64_t)v->u.i) || tn_dtype_is_integral(dt, false);
    } else if (v->tag == TN_V_INT) {
        int64_t i = v->u.i;
        if (tn_dtype_is_integral(dt, false)) {
            double lo, hi;
            real_limits(dt, &lo, &hi);
            if (dt == TN_DTYPE_I64) bad = false;
            else if (tn_dtype_infos[dt].kind == TN_KIND_UINT)
                /* c10::overflows lets a negative int wrap into an unsigned type when -i fits */
                bad = (double)i > hi || (i < 0 && -(double)i > hi);
            else bad = (double)i < lo || (double)i > hi;
        } else {
            double lo, hi;
            real_limits(dt, &lo, &hi);
            bad = (double)i < lo || (double)i > hi;
        }
    } else if (v->tag == TN_V_FLOAT) {
        bad = double_overflows(dt, v->u.f);
    } else if (v->tag == TN_V_COMPLEX) {
        if (!tn_dtype_is_complex(dt) && v->u.c.im != 0) bad = true;
        else bad = double_overflows(dt, v->u.c.re) || double_overflows(dt, v->u.c.im);
    }
    if (bad) {
        PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow", tn_cr_ctype_name(dt));
        return -1;
    }
    return 0;
}

/* Store number v into one element of dtype dt at p (upstream's cast semantics, no checks). */
void tn_cr_store(char *p, tn_dtype dt, const tn_value *v) {
    union { int64_t i; double f; double c[2]; uint8_t b; } src;
    tn_dtype sd;
    switch (v->tag) {
    case TN_V_BOOL: sd = TN_DTYPE_BOOL; src.b = v->u.i != 0; break;
    case TN_V_INT:
        if (v->uns && dt != TN_DTYPE_U64 && !tn_dtype_is_integral(dt, true)) { sd = TN_DTYPE_F64; src.f = (double)(uint64_t)v->u.i; }
        else { sd = TN_DTYPE_I64; src.i = v->u.i; }   /* the bits: uint64 exactly, other integers wrapped */
        break;
    case TN_V_COMPLEX: sd = TN_DTYPE_C128; src.c[0] = v->u.c.re; src.c[1] = v->u.c.im; break;
    default: sd = TN_DTYPE_F64; src.f = v->u.f; break;
    }
    tn_loop loop = tn_cast_loop(dt, sd);
    char *data[2] = {p, (char *)&src};
    int64_t strides[2] = {0, 0};
    if (loop) loop(data, strides, 1, NULL);
}

/* Read one element of dtype dt at p as a number value (bool/int/float/complex by category). */
void tn_cr_load(const char *p, tn_dtype dt, tn_value *v) {
    union { int64_t i; double f; double c[2]; uint8_t b; } dst;
    tn_dtype dd;
    memset(v, 0, sizeof *v);
    if (dt == TN_DTYPE_BOOL) { dd = TN_DTYPE_BOOL; v->tag = TN_V_BOOL; }
    else if (tn_dtype_is_complex(dt)) { dd = TN_DTYPE_C128; v->tag = TN_V_COMPLEX; }
    else if (tn_dtype_is_floating(dt)) { dd = TN_DTYPE_F64; v->tag = TN_V_FLOAT; }
    else { dd = TN_DTYPE_I64; v->tag = TN_V_INT; }
    memset(&dst, 0, sizeof dst);
    tn_loop loop = tn_cast_loop(dd, dt);
    char *data[2] = {(char *)&dst, (char *)p};
    int64_t strides[2] = {0, 0};
    if (loop) loop(data, strides, 1, NULL);
    switch (v->tag) {
    case TN_V_BOOL: v->u.i = dst.b != 0; break;
    case TN_V_COMPLEX: v->u.c.re = dst.c[0]; v->u.c.im = dst.c[1]; break;
    case TN_V_FLOAT: v->u.f = dst.f; break;
    default: v->u.i = dst.i; break;
    }
}

/* A Python number from a number value. */
PyObject *tn_cr_number_to_python(const tn_value *v) {
    switch (v->tag) {
    case TN_V_BOOL: return PyBool_FromLong((long)v->u.i);
    case TN_V_INT: return PyLong_FromLongLong(v->u.i);
    case TN_V_COMPLEX: return PyComplex_FromDoubles(v->u.c.re, v->u.c.im);
    default: return PyFloat_FromDouble(v->u.f);
    }
}

/* The default complex dtype (follows the default float dtype). */
tn_dtype tn_cr_default_complex(void) {
    return tn_py.default_dtype == TN_DTYPE_F64 ? TN_DTYPE_C128
         : tn_py.default_dtype == TN_DTYPE_F16 ? TN_DTYPE_C32 : TN_DTYPE_C64;
}

/* dtype/layout/device/pin_memory schema values -> dtype and device (defaults given). */
int tn_cr_options(const tn_value *dtype, const tn_value *layout, const tn_value *device, const tn_value *pin,
                  tn_dtype def_dtype, tn_device_type def_dev, tn_dtype *dt, tn_device_type *dev) {
    *dt = (dtype && dtype->tag == TN_V_DTYPE) ? dtype->u.dtype : def_dtype;
    *dev = (device && device->tag == TN_V_DEVICE) ? device->u.device.type : def_dev;
    /* torch.jagged: upstream's dense backends take it as strided (TensorOptions' dispatch key) and
     * make a strided tensor (measured: zeros, zeros_like, empty_strided, arange, the windows, ...) */
    if (layout && layout->tag == TN_V_LAYOUT && layout->u.obj != tn_py.layout_strided && layout->u.obj != tn_py.layout_jagged) {
        tn_not_implemented("tensors with a layout other than torch.strided");
        return -1;
    }
    if (pin && pin->tag == TN_V_BOOL && pin->u.i) {
        PyErr_SetString(PyExc_RuntimeError, "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is available on this system.");
        return -1;
    }
    return 0;
}

static void sizes_str(char *buf, size_t n, int nd, const int64_t *s) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)s[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

int tn_cr_check_sizes(int nd, const int64_t *sizes) {
    if (nd > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: tensors of more than %d dimensions are not supported", TN_MAX_DIMS);
        return -1;
    }
    for (int i = 0; i < nd; i++)
        if (sizes[i] < 0) {
            char b[512];
            sizes_str(b, sizeof b, nd, sizes);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s",
                         (long long)sizes[i], b);
            return -1;
        }
    return 0;
}

/* A new tensor with explicit strides (storage sized to the furthest element). */
PyObject *tn_cr_empty_strided(int nd, const int64_t *sizes, const int64_t *strides, tn_dtype dt, tn_device_type dev) {
    if (tn_cr_check_sizes(nd, sizes) < 0) return NULL;
    int64_t extent = 1;
    bool empty = false, bad = false;
    for (int i = 0; i < nd; i++) {
        if (sizes[i] == 0) empty = true;
        if (strides[i] < 0) bad = true;
    }
    if (bad) {
        char a[512], b[512];
        sizes_str(a, sizeof a, nd, sizes);
        sizes_str(b, sizeof b, nd, strides);
        PyErr_Format(PyExc_RuntimeError, "Storage size calculation overflowed with sizes=%s and strides=%s", a, b);
        return NULL;
    }
    if (empty) extent = 0;
    else
        for (int i = 0; i < nd; i++) {
            int64_t step;
            if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) || __builtin_add_overflow(extent, step, &extent)) {
                PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
                return NULL;
            }
        }
    size_t isz = (size_t)tn_dtype_itemsize(dt);
    if ((uint64_t)extent > SIZE_MAX / isz / 2) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return NULL;
    }
    tn_tensor t;
    memset(&t, 0, sizeof t);
    t.storage = tn_storage_new((size_t)extent * isz, dev);
    if (!t.storage) {
        PyErr_Format(PyExc_RuntimeError, "DefaultCPUAllocator: not enough memory: you tried to allocate %lld bytes.",
                     (long long)((size_t)extent * isz));
        return NULL;
    }
    t.ndim = nd;
    t.dtype = dt;
    memcpy(t.sizes, sizes, (size_t)nd * sizeof *sizes);
    memcpy(t.strides, strides, (size_t)nd * sizeof *strides);
    return tn_tensor_wrap(&t);
}

PyObject *tn_cr_empty(int nd, const int64_t *sizes, tn_dtype dt, tn_device_type dev) {
    if (tn_cr_check_sizes(nd, sizes) < 0) return NULL;
    return tn_tensor_new_empty(nd, sizes, dt, dev);
}

/* upstream's is_non_overlapping_and_dense */
static bool dense_non_overlapping(const tn_tensor *t) {
    int nd = t->ndim, perm[TN_MAX_DIMS];
    if (nd == 1) return t->sizes[0] < 2 || t->strides[0] == 1;
    for (int i = 0; i < nd; i++) perm[i] = i;
    /* insertion sort by stride ascending, size<2 dims last */
    for (int i = 1; i < nd; i++)
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool b_first = t->sizes[a] < 2 ? t->sizes[b] >= 2 : (t->sizes[b] >= 2 && t->strides[b] < t->strides[a]);
            if (!b_first) break;
            perm[j - 1] = b; perm[j] = a;
        }
    int64_t req = 1;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        if (t->sizes[d] < 2) return true;
        if (t->strides[d] != req) return false;
        req *= t->sizes[d];
    }
    return true;
}

bool tn_cr_dense(const tn_tensor *t) { return dense_non_overlapping(t); }

/* upstream's infer_dense_strides: dense strides keeping t's layout permutation */
static void infer_dense_strides(const tn_tensor *t, int64_t *out) {
    int nd = t->ndim, perm[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int64_t s0 = t->strides[perm[d0]], s1 = t->strides[perm[d1]];
            int cmp;
            if (s0 == 0 || s1 == 0) cmp = 0;
            else if (s0 < s1) cmp = -1;
            else if (s0 > s1) cmp = 1;
            else cmp = t->sizes[perm[d0]] > t->sizes[perm[d1]] ? 1 : 0;
            if (cmp > 0) {
                int tmp = perm[d0]; perm[d0] = perm[d1]; perm[d1] = tmp;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    int64_t cur = 1;
    for (int i = 0; i < nd; i++) {
        int d = perm[i];
        out[d] = cur;
        if (t->sizes[d] > 1) cur *= t->sizes[d];
    }
}

/* Strides for `nd`/`sizes` under memory format object mf (NULL/None/preserve: contiguous). */
int tn_cr_format_strides(PyObject *mf, int nd, const int64_t *sizes, int64_t *strides) {
    const int code = tn_py_memformat_code(mf);
    if (code == 2) {
        if (nd != 4) { PyErr_SetString(PyExc_RuntimeError, "required rank 4 tensor to use channels_last format"); return -1; }
        strides[1] = 1;
        strides[3] = sizes[1] > 1 ? sizes[1] : 1;
        strides[2] = strides[3] * (sizes[3] > 1 ? sizes[3] : 1);
        strides[0] = strides[2] * (sizes[2] > 1 ? sizes[2] : 1);
        return 0;
    }
    if (code == 3) {
        if (nd != 5) { PyErr_SetString(PyExc_RuntimeError, "required rank 5 tensor to use channels_last_3d format"); return -1; }
        strides[1] = 1;
        strides[4] = sizes[1] > 1 ? sizes[1] : 1;
        strides[3] = strides[4] * (sizes[4] > 1 ? sizes[4] : 1);
        strides[2] = strides[3] * (sizes[3] > 1 ? sizes[3] : 1);
        strides[0] = strides[2] * (sizes[2] > 1 ? sizes[2] : 1);
        return 0;
    }
    if (code < 0) {
        tn_not_implemented("this memory_format");
        return -1;
    }
    tn_contiguous_strides(nd, sizes, strides);
    return 0;
}

/* A new uninitialised tensor shaped like t, laid out per memory format mf (preserve by default). */
static bool preserves(PyObject *mf) { return !mf || mf == Py_None || mf == tn_py.memory_format_preserve; }
static void preserved_strides(const tn_tensor *t, int64_t *strides) {
    if (dense_non_overlapping(t)) memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    else infer_dense_strides(t, strides);
}

PyObject *tn_cr_empty_like(const tn_tensor *t, PyObject *mf, tn_dtype dt, tn_device_type dev) {
    int64_t strides[TN_MAX_DIMS];
    /* upstream's empty_like keeps the layout through empty_strided, which has no quantized
     * CPU kernel: a plain CPU tensor made like into a quantized dtype refuses there (measured for
     * zeros_like / full_like / rand_like / to / sum(dtype=) ...; a memory format given goes
     * through empty, and meta refuses elsewhere) */
    if (preserves(mf) && dev == TN_DEVICE_CPU && t->storage->device == TN_DEVICE_CPU &&
        tn_dtype_infos[dt].kind == TN_KIND_QUANT && tn_dtype_infos[t->dtype].kind != TN_KIND_QUANT) {
        tn_require_unquantized_result(dt);
        return NULL;
    }
    if (preserves(mf)) preserved_strides(t, strides);
    else if (tn_cr_format_strides(mf, t->ndim, t->sizes, strides) < 0) return NULL;
    return tn_cr_empty_strided(t->ndim, t->sizes, strides, dt, dev);
}

static PyObject *memformat_of(const tn_value *v) { return v->tag == TN_V_MEMFORMAT ? v->u.obj : NULL; }

/* Fill t with number v after upstream's fill_ overflow check: none on meta (its meta fill_ does
 * nothing); on CPU one element is scalar_fill (Scalar::to<T>, checked against T), any other
 * count goes through the fill kernel, which takes a complex32 value as complex<float> (checked
 * against float's range) then casts it unchecked (70000 and 1e20 fill inf). Measured in
 * docs/breadth_more2.md, "Fuzz corpus: calls upstream runs, third pass". */
int tn_cr_fill_checked(PyObject *t, const tn_value *v) {
    tn_tensor *x = tn_tensor_of(t);
    if (tn_require_castable("fill_", x->dtype) < 0) return -1;
    if (x->storage->device == TN_DEVICE_META || tn_door_on_meta()) return 0;
    int64_t n = tn_numel(x);
    if (tn_cr_check_scalar(v, n != 1 && x->dtype == TN_DTYPE_C32 ? TN_DTYPE_C64 : x->dtype) < 0) return -1;
    if (n == 0) return 0;
    return tn_fill_number(t, v);
}

/* upstream's zero_ (what zeros / zeros_like / new_zeros / zeros.out end in): a CPU tensor that is
 * non-overlapping and dense with fewer elements than its grain size (32768) is memset whatever its
 * dtype, the bits types included; anything else is fill_(0), with fill_'s dtype refusal (measured on
 * 2.13.0: zeros(32767, dtype=torch.bits8) runs, zeros(32768, ...) and a stepped bits8 view refuse). */
int tn_cr_zero_fill(PyObject *t) {
    tn_tensor *x = tn_tensor_of(t);
    /* quantized and sub-byte dtypes: refused first, as before (upstream has no kernel for them) */
    bool bits = tn_dtype_infos[x->dtype].kind == TN_KIND_BITS;
    if (!bits && tn_require_castable("fill_", x->dtype) < 0) return -1;
    if (x->storage->device == TN_DEVICE_META || tn_door_on_meta()) return 0;
    int64_t n = tn_numel(x);
    if (n > 0 && n < 32768 && tn_dense_non_overlapping(x)) {
        memset(tn_data(x), 0, (size_t)n * (size_t)tn_dtype_itemsize(x->dtype));
        return 0;
    }
    if (bits && tn_require_castable("fill_", x->dtype) < 0) return -1;
    if (n == 0) return 0;
    if (tn_is_contiguous(x)) {
        memset(tn_data(x), 0, (size_t)tn_numel(x) * (size_t)tn_dtype_itemsize(x->dtype));
        return 0;
    }
    tn_value z = {.tag = TN_V_INT};
    return tn_fill_number(t, &z);
}

/* out= factories resize like upstream's resize_ (no warning), keeping geometry when equal. */
static int out_resize(PyObject *out, int nd, const int64_t *sizes) {
    tn_tensor *o = tn_tensor_of(out);
    if (o->ndim == nd && memcmp(o->sizes, sizes, (size_t)nd * sizeof *sizes) == 0) return 0;
    if (tn_cr_check_sizes(nd, sizes) < 0) return -1;
    return tn_resize(out, nd, sizes);
}

/* ---------- empty / zeros / ones / full ---------- */

/* empty / zeros with layout=torch.sparse_coo: upstream's empty_sparse, an empty sparse tensor with
 * every dim sparse (ops/sparse.c); with a compressed layout, one without elements
 * (ops/sparse_compressed.c) */
static bool sparse_layout(const tn_value *layout) {
    PyObject *l = layout->tag == TN_V_LAYOUT ? layout->u.obj : NULL;
    return l && (l == tn_py.layout_sparse_coo || l == tn_py.layout_sparse_csr || l == tn_py.layout_sparse_csc || l == tn_py.layout_sparse_bsr ||
                 l == tn_py.layout_sparse_bsc);
}
static PyObject *empty_sparse_(const tn_value *size, const tn_value *dtype, const tn_value *layout, const char *who) {
    if (layout->u.obj != tn_py.layout_sparse_coo)
        return tn_compressed_empty(size->u.ints.v, size->u.ints.n, layout->u.obj, dtype->tag == TN_V_DTYPE ? dtype->u.dtype : tn_py.default_dtype,
                                   who);
    return tn_at__sparse_coo_tensor_with_dims(size->u.ints.n, 0, tn_ints_of(size), dtype->tag == TN_V_DTYPE ? TN_DT(dtype->u.dtype) : NULL,
                                              tn_py.layout_sparse_coo, NULL, NULL);
}

PyObject *tn_op_empty_memory_format(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (sparse_layout(&a[2])) return empty_sparse_(&a[0], &a[1], &a[2], "empty");
    if (tn_cr_options(&a[1], &a[2], &a[3], &a[4], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    int64_t strides[TN_MAX_DIMS];
    if (tn_cr_check_sizes(a[0].u.ints.n, a[0].u.ints.v) < 0) return NULL;
    PyObject *mf = memformat_of(&a[5]);
    if (mf == tn_py.memory_format_preserve) {   /* upstream's empty_cpu: only fixed formats lay out strides */
        PyErr_SetString(PyExc_RuntimeError, "unsupported memory format Preserve");
        return NULL;
    }
    if (tn_cr_format_strides(mf, a[0].u.ints.n, a[0].u.ints.v, strides) < 0) return NULL;
    return tn_cr_empty_strided(a[0].u.ints.n, a[0].u.ints.v, strides, dt, dev);
}

PyObject *tn_op_empty_out(tn_value *a) {
    PyObject *out = a[2].u.obj;
    if (a[1].tag != TN_V_NONE) {   /* upstream's first check, any format (measured) */
        PyErr_SetString(PyExc_RuntimeError, "'memory_format' argument is incompatible with 'out' tensor argument");
        return NULL;
    }
    if (out_resize(out, a[0].u.ints.n, a[0].u.ints.v) < 0) return NULL;
    return Py_NewRef(out);
}

PyObject *tn_op_empty_strided(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[2], &a[3], &a[4], &a[5], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    if (dev == TN_DEVICE_META && tn_dtype_infos[dt].kind == TN_KIND_QUANT)   /* no QuantizedMeta kernel (measured) */
        return tn_q_backend_error("aten::empty_strided", "QuantizedMeta");
    if (dev == TN_DEVICE_CPU && tn_require_unquantized_result(dt) < 0) return NULL;   /* its quantized kernel's refusal (measured) */
    if (a[0].u.ints.n != a[1].u.ints.n) {
        PyErr_Format(PyExc_RuntimeError, "dimensionality of sizes (%d) must match dimensionality of strides (%d)",
                     a[0].u.ints.n, a[1].u.ints.n);
        return NULL;
    }
    return tn_cr_empty_strided(a[0].u.ints.n, a[0].u.ints.v, a[1].u.ints.v, dt, dev);
}

/* fill_ of a CPU tensor of a quantized dtype as empty makes it (no quantizer): upstream fills a
 * float tensor and copies it in, which refuses a complex value, then the 4- and 2-bit dtypes by
 * the copy's dispatch, then the others by an internal assert (measured, docs/breadth_more2.md
 * "group sparse (session 40)") */
static int refuse_quantized_fill(tn_dtype dt, const tn_value *fill) {
    if (fill->tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_RuntimeError, "Quantized copy only works with kFloat as source Tensor");
    } else if (dt == TN_DTYPE_QU4X2 || dt == TN_DTYPE_QU2X4) {
        PyErr_Format(PyExc_NotImplementedError, "\"Copy\" not implemented for '%s'", tn_dtype_cpp_name(dt));
    } else {
        PyErr_SetString(PyExc_RuntimeError, "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/quantized/Quantizer.cpp\":447, "
                                            "please report a bug to PyTorch. cannot call qscheme on UnknownQuantizer");
    }
    return -1;
}

static PyObject *make_filled(int nd, const int64_t *sizes, tn_dtype dt, tn_device_type dev, const tn_value *fill) {
    bool qfill = fill && dev == TN_DEVICE_CPU && !tn_door_on_meta() && tn_dtype_infos[dt].kind == TN_KIND_QUANT;
    if (fill && !qfill && tn_require_castable("fill_", dt) < 0) return NULL;
    PyObject *t = tn_cr_empty(nd, sizes, dt, dev);   /* then fill_'s check, as upstream's empty + fill_ */
    if (!t) return NULL;
    if (qfill) { Py_DECREF(t); return refuse_quantized_fill(dt, fill), NULL; }
    if ((fill ? tn_cr_fill_checked(t, fill) : tn_cr_zero_fill(t)) < 0) { Py_DECREF(t); return NULL; }
    return t;
}

static int check_zeros_sizes(const tn_value *size) {
    for (int i = 0; i < size->u.ints.n; i++)
        if (size->u.ints.v[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "zeros: Dimension size must be non-negative.");
            return -1;
        }
    return 0;
}

PyObject *tn_op_zeros(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (check_zeros_sizes(&a[0]) < 0) return NULL;
    if (sparse_layout(&a[2])) return empty_sparse_(&a[0], &a[1], &a[2], "zeros");
    if (tn_cr_options(&a[1], &a[2], &a[3], &a[4], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    return make_filled(a[0].u.ints.n, a[0].u.ints.v, dt, dev, NULL);
}

PyObject *tn_op_zeros_out(tn_value *a) {
    PyObject *out = a[1].u.obj;
    if (check_zeros_sizes(&a[0]) < 0 || out_resize(out, a[0].u.ints.n, a[0].u.ints.v) < 0 || tn_cr_zero_fill(out) < 0)
        return NULL;
    return Py_NewRef(out);
}

static const tn_value one_value = {.tag = TN_V_INT, .u.i = 1};

/* full / ones (ones is full of 1) refuse a sparse COO layout first, before the sizes (measured,
 * on meta too) */
static int full_not_sparse(const tn_value *layout) {
    if (layout->tag != TN_V_LAYOUT || layout->u.obj != tn_py.layout_sparse_coo) return 0;
    PyErr_SetString(PyExc_RuntimeError, "full(...) is not implemented for sparse layout");
    return -1;
}

PyObject *tn_op_ones(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (full_not_sparse(&a[2]) < 0) return NULL;
    if (tn_cr_options(&a[1], &a[2], &a[3], &a[4], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    return make_filled(a[0].u.ints.n, a[0].u.ints.v, dt, dev, &one_value);
}

PyObject *tn_op_ones_out(tn_value *a) {
    PyObject *out = a[1].u.obj;
    if (out_resize(out, a[0].u.ints.n, a[0].u.ints.v) < 0 || tn_cr_fill_checked(out, &one_value) < 0) return NULL;
    return Py_NewRef(out);
}

/* dtype of a fill value when none is given: bool, int64, default float, default complex. */
static tn_dtype fill_dtype(const tn_value *v) {
    switch (v->tag) {
    case TN_V_BOOL: return TN_DTYPE_BOOL;
    case TN_V_INT: return TN_DTYPE_I64;
    case TN_V_COMPLEX: return tn_cr_default_complex();
    default: return tn_py.default_dtype;
    }
}

PyObject *tn_op_full(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (full_not_sparse(&a[3]) < 0) return NULL;
    if (tn_cr_options(&a[2], &a[3], &a[4], &a[5], fill_dtype(&a[1]), TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    return make_filled(a[0].u.ints.n, a[0].u.ints.v, dt, dev, &a[1]);
}

PyObject *tn_op_full_out(tn_value *a) {
    PyObject *out = a[2].u.obj;
    if (out_resize(out, a[0].u.ints.n, a[0].u.ints.v) < 0 || tn_cr_fill_checked(out, &a[1]) < 0) return NULL;
    return Py_NewRef(out);
}

PyObject *tn_op_scalar_tensor(tn_value *a) {
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[1], &a[2], &a[3], &a[4], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    /* its CPU kernel fills with fill_out's dispatch, no quantized path (measured) */
    if (dev == TN_DEVICE_CPU && !tn_door_on_meta() && tn_dtype_infos[dt].kind == TN_KIND_QUANT) return tn_kernel_missing("fill_out", dt);
    return make_filled(0, NULL, dt, dev, &a[0]);
}

/* ---------- *_like and new_* ---------- */

static PyObject *like(tn_value *a, const tn_value *fill, bool zero, int first_opt) {
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[first_opt], &a[first_opt + 1], &a[first_opt + 2], &a[first_opt + 3], t->dtype,
                      t->storage->device, &dt, &dev) < 0)
        return NULL;
    /* empty_like first (its quantized-dtype refusal), then fill_'s */
    PyObject *r = tn_cr_empty_like(t, memformat_of(&a[first_opt + 4]), dt, dev);
    if (!r) return NULL;
    if (fill && tn_require_castable("fill_", dt) < 0) { Py_DECREF(r); return NULL; }
    if ((fill && tn_cr_fill_checked(r, fill) < 0) || (zero && tn_cr_zero_fill(r) < 0)) { Py_DECREF(r); return NULL; }
    return r;
}

PyObject *tn_op_empty_like(tn_value *a) { return like(a, NULL, false, 1); }
PyObject *tn_op_zeros_like(tn_value *a) { return like(a, NULL, true, 1); }
PyObject *tn_op_ones_like(tn_value *a) { return like(a, &one_value, false, 1); }
PyObject *tn_op_full_like(tn_value *a) { return like(a, &a[1], false, 2); }

/* While a profiler session is on (the door's profiled_call, no dispatch mode active): upstream's
 * CompositeExplicitAutograd kernels of ones / zeros / full and their _like forms call aten::empty
 * (empty_like) and then fill_ (zero_), which its profiler records beneath the factory's event;
 * empty_like calls empty_strided (preserve_format) or empty (a format given).
 * These run here as those two calls through the door, so they are events too; the checks are the
 * op's own first (a call that fails, or a non-CPU one, is not handled and runs as the op). A
 * dispatch mode does not see them, as upstream's does not (its mode runs the factory with itself
 * off). */
PyObject *tn_create_profiled(int op, tn_value *a, bool *handled) {
    const tn_value *fill = op == TN_ROW_ones || op == TN_ROW_ones_like ? &one_value
                         : op == TN_ROW_full || op == TN_ROW_full_like ? &a[1] : NULL;
    bool empty = op == TN_ROW_empty_like;
    bool like = empty || op == TN_ROW_ones_like || op == TN_ROW_zeros_like || op == TN_ROW_full_like;
    *handled = false;
    if (!fill && !empty && op != TN_ROW_zeros && op != TN_ROW_zeros_like) return NULL;
    int opt = op == TN_ROW_full || op == TN_ROW_full_like ? 2 : 1;
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[opt], &a[opt + 1], &a[opt + 2], &a[opt + 3],
                      like ? TN_T(a[0])->dtype : fill && op == TN_ROW_full ? fill_dtype(fill) : tn_py.default_dtype,
                      like ? TN_T(a[0])->storage->device : TN_DEVICE_CPU, &dt, &dev) < 0 ||
        (op == TN_ROW_zeros && check_zeros_sizes(&a[0]) < 0) || (!empty && tn_require_castable("fill_", dt) < 0) ||
        (fill && tn_cr_check_scalar(fill, dt) < 0)) {
        PyErr_Clear();
        return NULL;
    }
    if (dev != TN_DEVICE_CPU || (like && (tn_sparse_among(op, a) || tn_nested_among(op, a) || tn_quant_among(op, a))))
        return NULL;
    *handled = true;
    if (empty) {   /* empty_strided with the strides the op keeps, or empty in the format asked for */
        const tn_tensor *x = TN_T(a[0]);
        PyObject *mf = memformat_of(&a[5]);
        int64_t st[TN_MAX_DIMS];
        if (!preserves(mf)) return tn_at_empty_memory_format(TN_IN(x->sizes, x->ndim), TN_DT(dt), NULL, NULL, NULL, mf);
        preserved_strides(x, st);
        return tn_at_empty_strided(TN_IN(x->sizes, x->ndim), TN_IN(st, x->ndim), TN_DT(dt), NULL, NULL, NULL);
    }
    PyObject *t = like ? tn_at_empty_like(a[0].u.obj, TN_DT(dt), NULL, NULL, NULL, memformat_of(&a[opt + 4]))
                       : tn_at_empty_memory_format(TN_IN(a[0].u.ints.v, a[0].u.ints.n), TN_DT(dt), NULL, NULL, NULL, NULL);
    PyObject *r = !t ? NULL : fill ? tn_at_fill__Scalar(t, TN_SV(fill)) : tn_at_zero_(t);
    Py_XDECREF(r);
    if (!r) Py_CLEAR(t);
    return t;
}

static PyObject *new_like(tn_value *a, const tn_value *size, const tn_value *fill, bool zero, int first_opt) {
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[first_opt], &a[first_opt + 1], &a[first_opt + 2], &a[first_opt + 3], t->dtype,
                      t->storage->device, &dt, &dev) < 0)
        return NULL;
    if (fill || zero) return make_filled(size->u.ints.n, size->u.ints.v, dt, dev, zero ? NULL : fill);
    return tn_cr_empty(size->u.ints.n, size->u.ints.v, dt, dev);
}

PyObject *tn_op_new_empty(tn_value *a) { return new_like(a, &a[1], NULL, false, 2); }
PyObject *tn_op_new_zeros(tn_value *a) { return new_like(a, &a[1], NULL, true, 2); }
PyObject *tn_op_new_ones(tn_value *a) { return new_like(a, &a[1], &one_value, false, 2); }
PyObject *tn_op_new_full(tn_value *a) { return new_like(a, &a[1], &a[2], false, 3); }
PyObject *tn_op_new_empty_strided(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[3], &a[4], &a[5], &a[6], t->dtype, t->storage->device, &dt, &dev) < 0) return NULL;
    if (dev == TN_DEVICE_CPU && tn_require_unquantized_result(dt) < 0) return NULL;   /* its quantized kernel's refusal (measured) */
    if (a[1].u.ints.n != a[2].u.ints.n) {
        PyErr_Format(PyExc_RuntimeError, "dimensionality of sizes (%d) must match dimensionality of strides (%d)",
                     a[1].u.ints.n, a[2].u.ints.n);
        return NULL;
    }
    return tn_cr_empty_strided(a[1].u.ints.n, a[1].u.ints.v, a[2].u.ints.v, dt, dev);
}

/* ---------- arange ---------- */

/* A Scalar value as double, refusing complex with an imaginary part like Scalar::to<double>(). */
static int scalar_double(const tn_value *v, double *out) {
    if (v->tag == TN_V_COMPLEX) {
        if (v->u.c.im != 0) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type double without overflow");
            return -1;
        }
        *out = v->u.c.re;
        return 0;
    }
    *out = tn_value_as_double(v);
    return 0;
}

/* Scalar::to<int64_t>() */
static int scalar_int64(const tn_value *v, int64_t *out) {
    if ((v->tag == TN_V_INT && !v->uns) || v->tag == TN_V_BOOL) { *out = v->u.i; return 0; }
    if (tn_cr_check_scalar(v, TN_DTYPE_I64) < 0) return -1;
    double d;
    if (scalar_double(v, &d) < 0) return -1;
    *out = (int64_t)d;
    return 0;
}

typedef struct { tn_dtype dt; double start, step; int64_t istart, istep; } arange_ctx;

static void put_f(char *p, tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F64: memcpy(p, &v, 8); break;
    case TN_DTYPE_F32: { float f = (float)v; memcpy(p, &f, 4); break; }
    case TN_DTYPE_F16: { uint16_t h = tn_f32_to_f16((float)v); memcpy(p, &h, 2); break; }
    case TN_DTYPE_BF16: { uint16_t h = tn_f32_to_bf16((float)v); memcpy(p, &h, 2); break; }
    default: break;
    }
}

static double round_to(tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F32: return (float)v;
    case TN_DTYPE_F16: return tn_f16_to_f32(tn_f32_to_f16((float)v));
    case TN_DTYPE_BF16: return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    default: return v;
    }
}

static void put_i(char *p, tn_dtype dt, int64_t v) {
    switch (dt) {
    case TN_DTYPE_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case TN_DTYPE_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case TN_DTYPE_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case TN_DTYPE_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Fill contiguous `out` of n elements the way upstream's CPU arange kernel does: a vectorised
 * part (chunks of 2*W elements, each W-wide vector built as base + k*step where base is rounded
 * to the dtype) and a scalar tail. */
static void arange_fill(char *out, int64_t n, const arange_ctx *c) {
    int isz = tn_dtype_itemsize(c->dt);
    if (tn_dtype_is_integral(c->dt, false)) {
        for (int64_t i = 0; i < n; i++) put_i(out + i * isz, c->dt, (int64_t)((uint64_t)c->istart + (uint64_t)c->istep * (uint64_t)i));
        return;
    }
    bool half = c->dt == TN_DTYPE_F16 || c->dt == TN_DTYPE_BF16;
    int W = c->dt == TN_DTYPE_F64 ? 4 : c->dt == TN_DTYPE_F32 ? 8 : 16;
    int64_t nvec = n / (2 * W) * (2 * W);
    if (half) {
        float start = (float)c->start, step = (float)c->step;
        for (int64_t i = 0; i < n; i++) {
            float v;
            if (i < nvec) {
                int64_t b = i / W * W;
                float base = (float)round_to(c->dt, start + step * (float)b);
                v = base + step * (float)(i - b);
            } else {
                v = start + step * (float)i;
            }
            put_f(out + i * isz, c->dt, v);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        double v;
        if (i < nvec) {
            int64_t b = i / W * W;
            double base = round_to(c->dt, fma(c->step, (double)b, c->start));
            v = fma((double)(i - b), c->step, base);
        } else {
            v = fma(c->step, (double)i, c->start);
        }
        put_f(out + i * isz, c->dt, v);
    }
}

typedef struct { char s[48]; } gbuf;
static gbuf fmt_g(double v) { gbuf b; snprintf(b.s, sizeof b.s, "%g", v); return b; }

static PyObject *arange_impl(const tn_value *start, const tn_value *end, const tn_value *step, const tn_value *dtype,
                             const tn_value *layout, const tn_value *device, const tn_value *pin, PyObject *out) {
    bool any_float = start->tag == TN_V_FLOAT || end->tag == TN_V_FLOAT || step->tag == TN_V_FLOAT ||
                     start->tag == TN_V_COMPLEX || end->tag == TN_V_COMPLEX || step->tag == TN_V_COMPLEX;
    tn_dtype dt;
    tn_device_type dev = TN_DEVICE_CPU;
    if (out) dt = tn_tensor_of(out)->dtype;
    else if (tn_cr_options(dtype, layout, device, pin, any_float ? tn_py.default_dtype : TN_DTYPE_I64, TN_DEVICE_CPU, &dt, &dev) < 0)
        return NULL;
    if (dt == TN_DTYPE_BOOL || tn_dtype_is_complex(dt) || !tn_dtype_computable(dt)) {
        PyErr_Format(PyExc_NotImplementedError, "\"arange_cpu\" not implemented for '%s'", tn_dtype_cpp_name(dt));
        return NULL;
    }
    double ds, de, dst;
    if (scalar_double(start, &ds) < 0 || scalar_double(end, &de) < 0 || scalar_double(step, &dst) < 0) return NULL;
    arange_ctx c = {dt, 0, 0, 0, 0};
    double size_d;
    if (tn_dtype_is_integral(dt, false)) {
        int64_t xs, xe, xst;
        if (scalar_int64(start, &xs) < 0 || scalar_int64(end, &xe) < 0 || scalar_int64(step, &xst) < 0) return NULL;
        c.istart = xs; c.istep = xst;
        /* the checks see the unconverted values; only int64 sizes come from the truncated ones */
        if (dst == 0) { PyErr_SetString(PyExc_RuntimeError, "step must be nonzero"); return NULL; }
        if (!((dst > 0 && de >= ds) || (dst < 0 && de <= ds))) {
            PyErr_SetString(PyExc_RuntimeError, "upper bound and lower bound inconsistent with step sign");
            return NULL;
        }
        if (dt == TN_DTYPE_I64) {
            if (xst == 0) { PyErr_SetString(PyExc_ValueError, "step must be nonzero"); return NULL; }
            int64_t sgn = (xst > 0) - (xst < 0), span;
            if (__builtin_sub_overflow(xe, xs, &span) || __builtin_add_overflow(span, xst - sgn, &span))
                size_d = ceil(((double)xe - (double)xs) / (double)xst); /* beyond int64: refused below */
            else
                size_d = (double)(span / xst);
        } else {
            size_d = ceil((double)(de - ds) / dst);
        }
    } else {
        bool half = dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16;
        c.start = half ? (double)(float)ds : ds;
        c.step = half ? (double)(float)dst : dst;
        double xs = c.start, xe = half ? (double)(float)de : de;
        if (!isfinite(xs) || !isfinite(xe)) {
            /* upstream prints with C++ streams, which %g matches for these values */
            PyErr_Format(PyExc_RuntimeError, "unsupported range: %s -> %s", fmt_g(xs).s, fmt_g(xe).s);
            return NULL;
        }
        if (c.step == 0) { PyErr_SetString(PyExc_RuntimeError, "step must be nonzero"); return NULL; }
        if (!((c.step > 0 && xe >= xs) || (c.step < 0 && xe <= xs))) {
            PyErr_SetString(PyExc_RuntimeError, "upper bound and lower bound inconsistent with step sign");
            return NULL;
        }
        size_d = ceil((de - ds) / dst);
    }
    if (!(size_d >= 0 && size_d <= 9.2e18)) {
        PyErr_SetString(PyExc_RuntimeError, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = (int64_t)size_d;
    PyObject *r;
    if (out) {
        tn_tensor *o = tn_tensor_of(out);
        int64_t cur = tn_numel(o);
        if (cur != n || o->ndim != 1) {
            if (cur != n && cur > 0) {
                char b[512];
                sizes_str(b, sizeof b, o->ndim, o->sizes);
                if (PyErr_WarnFormat(PyExc_UserWarning, 1,
                        "The number of elements in the out tensor of shape %s is %lld which does not match the "
                        "computed number of elements %lld. Note that this may occur as a result of rounding error. "
                        "The out tensor will be resized to a tensor of shape (%lld,).",
                        b, (long long)cur, (long long)n, (long long)n) < 0)
                    return NULL;
            }
            if (tn_resize(out, 1, &n) < 0) return NULL;
        }
        r = Py_NewRef(out);
    } else {
        r = tn_cr_empty(1, &n, dt, dev);
        if (!r) return NULL;
    }
    tn_tensor *t = tn_tensor_of(r);
    if (t->storage->device == TN_DEVICE_META || n == 0) return r;
    if (tn_is_contiguous(t)) {
        arange_fill(tn_data(t), n, &c);
    } else {
        PyObject *tmp = tn_tensor_new_empty(1, &n, dt, TN_DEVICE_CPU);
        if (!tmp) { Py_DECREF(r); return NULL; }
        arange_fill(tn_data(tn_tensor_of(tmp)), n, &c);
        int e = tn_copy_into(r, tmp);
        Py_DECREF(tmp);
        if (e < 0) { Py_DECREF(r); return NULL; }
    }
    return r;
}

static const tn_value zero_value = {.tag = TN_V_INT, .u.i = 0};

PyObject *tn_op_arange(tn_value *a) { return arange_impl(&zero_value, &a[0], &one_value, &a[1], &a[2], &a[3], &a[4], NULL); }
PyObject *tn_op_arange_start(tn_value *a) { return arange_impl(&a[0], &a[1], &one_value, &a[2], &a[3], &a[4], &a[5], NULL); }
PyObject *tn_op_arange_start_step(tn_value *a) { return arange_impl(&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], NULL); }
PyObject *tn_op_arange_out(tn_value *a) { return arange_impl(&zero_value, &a[0], &one_value, NULL, NULL, NULL, NULL, a[1].u.obj); }
PyObject *tn_op_arange_start_out(tn_value *a) { return arange_impl(&a[0], &a[1], &a[2], NULL, NULL, NULL, NULL, a[3].u.obj); }

/* ---------- linspace ---------- */

static float rnd(tn_dtype dt, float v) { return (float)round_to(dt, v); }

static void linspace_fill(char *out, tn_dtype dt, const tn_value *vs, const tn_value *ve, int64_t steps, double base) {
    (void)base;
    int isz = tn_dtype_itemsize(dt);
    int64_t halfway = steps / 2;
    if (tn_dtype_is_complex(dt)) {
        double sr = vs->tag == TN_V_COMPLEX ? vs->u.c.re : tn_value_as_double(vs), si = vs->tag == TN_V_COMPLEX ? vs->u.c.im : 0;
        double er = ve->tag == TN_V_COMPLEX ? ve->u.c.re : tn_value_as_double(ve), ei = ve->tag == TN_V_COMPLEX ? ve->u.c.im : 0;
        if (dt == TN_DTYPE_C64) {
            float a = (float)sr, b = (float)si, c = (float)er, d = (float)ei, k = (float)(steps - 1);
            float pr = (c - a) / k, pi = (d - b) / k;
            for (int64_t i = 0; i < steps; i++) {
                float o[2];
                if (i < halfway) { o[0] = a + pr * (float)i; o[1] = b + pi * (float)i; }
                else { float m = (float)(steps - i - 1); o[0] = c - pr * m; o[1] = d - pi * m; }
                memcpy(out + i * isz, o, 8);
            }
        } else {
            double k = (double)(steps - 1), pr = (er - sr) / k, pi = (ei - si) / k;
            for (int64_t i = 0; i < steps; i++) {
                double o[2];
                if (i < halfway) { o[0] = sr + pr * (double)i; o[1] = si + pi * (double)i; }
                else { double m = (double)(steps - i - 1); o[0] = er - pr * m; o[1] = ei - pi * m; }
                memcpy(out + i * isz, o, 16);
            }
        }
        return;
    }
    if (tn_dtype_is_integral(dt, false)) {
        /* start/end as scalar_t, step as double */
        char sb[8], eb[8];
        tn_value s2, e2;
        tn_cr_store(sb, dt, vs);
        tn_cr_store(eb, dt, ve);
        tn_cr_load(sb, dt, &s2);
        tn_cr_load(eb, dt, &e2);
        double s = (double)s2.u.i, e = (double)e2.u.i, step = (e - s) / (double)(steps - 1);
        for (int64_t i = 0; i < steps; i++) {
            double v = i < halfway ? fma(step, (double)i, s) : fma(-step, (double)(steps - i - 1), e);
            put_i(out + i * isz, dt, (int64_t)v);
        }
        return;
    }
    if (dt == TN_DTYPE_F64) {
        double s = tn_value_as_double(vs), e = tn_value_as_double(ve), step = (e - s) / (double)(steps - 1);
        for (int64_t i = 0; i < steps; i++) {
            double v = i < halfway ? fma(step, (double)i, s) : fma(-step, (double)(steps - i - 1), e);
            memcpy(out + i * isz, &v, 8);
        }
        return;
    }
    if (dt == TN_DTYPE_F32) { /* upstream's build contracts start + step * i into an fma */
        float s = (float)tn_value_as_double(vs), e = (float)tn_value_as_double(ve), step = (e - s) / (float)(steps - 1);
        for (int64_t i = 0; i < steps; i++) {
            float v = i < halfway ? fmaf(step, (float)i, s) : fmaf(-step, (float)(steps - i - 1), e);
            memcpy(out + i * isz, &v, 4);
        }
        return;
    }
    /* f16/bf16 round after every operation like c10::Half arithmetic */
    float s = rnd(dt, (float)tn_value_as_double(vs)), e = rnd(dt, (float)tn_value_as_double(ve));
    float k = rnd(dt, (float)(steps - 1));
    float step = rnd(dt, rnd(dt, e - s) / k);
    for (int64_t i = 0; i < steps; i++) {
        float v;
        if (i < halfway) v = rnd(dt, s + rnd(dt, step * rnd(dt, (float)i)));
        else v = rnd(dt, e - rnd(dt, step * rnd(dt, (float)(steps - i - 1))));
        put_f(out + i * isz, dt, v);
    }
}

/* linspace and logspace share their result handling: dtype from the options (complex by default
 * when start or end is complex) or from out=, the kernel's dtype check (always for linspace, only
 * above one step for logspace, as upstream), the scalar range check, then allocation or resize. */
typedef void (*space_fill_fn)(char *out, tn_dtype dt, const tn_value *vs, const tn_value *ve, int64_t steps, double base);

static PyObject *space_result(const char *kernel, int64_t check_above, const tn_value *vs, const tn_value *ve,
                              int64_t steps, const tn_value *dtype, const tn_value *layout, const tn_value *device,
                              const tn_value *pin, PyObject *out) {
    if (steps < 0) { PyErr_SetString(PyExc_RuntimeError, "number of steps must be non-negative"); return NULL; }
    bool cplx = vs->tag == TN_V_COMPLEX || ve->tag == TN_V_COMPLEX;
    tn_dtype dt;
    tn_device_type dev = TN_DEVICE_CPU;
    if (out) dt = tn_tensor_of(out)->dtype;
    else if (tn_cr_options(dtype, layout, device, pin, cplx ? tn_cr_default_complex() : tn_py.default_dtype,
                           TN_DEVICE_CPU, &dt, &dev) < 0)
        return NULL;
    if (steps > check_above && (dt == TN_DTYPE_BOOL || !tn_dtype_computable(dt))) {
        PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", kernel, tn_dtype_cpp_name(dt));
        return NULL;
    }
    if (steps > check_above && steps > 0 && (tn_cr_check_scalar(vs, dt) < 0 || tn_cr_check_scalar(ve, dt) < 0)) return NULL;
    if (!out) return tn_cr_empty(1, &steps, dt, dev);
    if (out_resize(out, 1, &steps) < 0) return NULL;
    return Py_NewRef(out);
}

/* Fill r (steps >= 2) in place, through a contiguous temporary when r is strided. */
static PyObject *space_fill(PyObject *r, space_fill_fn fill, const tn_value *vs, const tn_value *ve, int64_t steps,
                            double base) {
    tn_tensor *t = tn_tensor_of(r);
    if (tn_is_contiguous(t)) {
        fill(tn_data(t), t->dtype, vs, ve, steps, base);
        return r;
    }
    PyObject *tmp = tn_tensor_new_empty(1, &steps, t->dtype, TN_DEVICE_CPU);
    if (!tmp) { Py_DECREF(r); return NULL; }
    fill(tn_data(tn_tensor_of(tmp)), t->dtype, vs, ve, steps, base);
    int e = tn_copy_into(r, tmp);
    Py_DECREF(tmp);
    if (e < 0) { Py_DECREF(r); return NULL; }
    return r;
}

static PyObject *linspace_impl(const tn_value *vs, const tn_value *ve, int64_t steps, const tn_value *dtype,
                               const tn_value *layout, const tn_value *device, const tn_value *pin, PyObject *out) {
    /* upstream dispatches on the dtype for two steps or more only (measured: a bool linspace of 0 / 1 steps) */
    PyObject *r = space_result("linspace_cpu", 1, vs, ve, steps, dtype, layout, device, pin, out);
    if (!r || tn_tensor_of(r)->storage->device == TN_DEVICE_META || steps == 0) return r;
    if (steps == 1) {
        if (tn_cr_fill_checked(r, vs) < 0) { Py_DECREF(r); return NULL; }
        return r;
    }
    return space_fill(r, linspace_fill, vs, ve, steps, 0.0);
}

/* A 0-dim tensor start/end of the Tensor overloads as a number value. */
static int tensor_scalar(const tn_value *v, const char *op, const char *which, tn_value *out) {
    tn_tensor *t = TN_T(*v);
    if (t->ndim != 0) {
        PyErr_Format(PyExc_RuntimeError, "%s only supports 0-dimensional start and end tensors, but got %s with %d dimension(s).",
                     op, which, t->ndim);
        return -1;
    }
    if (t->storage->device == TN_DEVICE_META) { tn_not_implemented("linspace / logspace with meta start/end"); return -1; }
    tn_cr_load(tn_data(t), t->dtype, out);
    return 0;
}

PyObject *tn_op_linspace(tn_value *a) { return linspace_impl(&a[0], &a[1], a[2].u.i, &a[3], &a[4], &a[5], &a[6], NULL); }
PyObject *tn_op_linspace_out(tn_value *a) { return linspace_impl(&a[0], &a[1], a[2].u.i, NULL, NULL, NULL, NULL, a[3].u.obj); }

static PyObject *linspace_t(tn_value *a, bool ts, bool te, PyObject *out) {
    tn_value s = a[0], e = a[1];
    if ((ts && tensor_scalar(&a[0], "linspace", "start", &s) < 0) || (te && tensor_scalar(&a[1], "linspace", "end", &e) < 0)) return NULL;
    if (out) return linspace_impl(&s, &e, a[2].u.i, NULL, NULL, NULL, NULL, out);
    return linspace_impl(&s, &e, a[2].u.i, &a[3], &a[4], &a[5], &a[6], NULL);
}
PyObject *tn_op_linspace_Tensor_Tensor(tn_value *a) { return linspace_t(a, true, true, NULL); }
PyObject *tn_op_linspace_Tensor_Scalar(tn_value *a) { return linspace_t(a, true, false, NULL); }
PyObject *tn_op_linspace_Scalar_Tensor(tn_value *a) { return linspace_t(a, false, true, NULL); }
PyObject *tn_op_linspace_Tensor_Tensor_out(tn_value *a) { return linspace_t(a, true, true, a[3].u.obj); }
PyObject *tn_op_linspace_Tensor_Scalar_out(tn_value *a) { return linspace_t(a, true, false, a[3].u.obj); }
PyObject *tn_op_linspace_Scalar_Tensor_out(tn_value *a) { return linspace_t(a, false, true, a[3].u.obj); }

/* ---------- logspace ---------- */

/* upstream's CPU logspace_out: base^(start + step*i) for the first half, base^(end - step*(n-1-i))
 * for the rest. Real dtypes: start/end as the dtype, step and the exponent in double (the build
 * contracts the exponent's multiply-add into an fma), pow in double, one cast to the dtype (f16 /
 * bf16 through float). Complex dtypes: c10::complex arithmetic in the dtype (its division by the
 * real (n-1) is numpy's: a * (1/(n-1))) and the C library's cpow. */
static void logspace_fill(char *out, tn_dtype dt, const tn_value *vs, const tn_value *ve, int64_t steps, double base) {
    int isz = tn_dtype_itemsize(dt);
    int64_t halfway = steps / 2;
    if (tn_dtype_is_complex(dt)) {
        double sr = vs->tag == TN_V_COMPLEX ? vs->u.c.re : tn_value_as_double(vs), si = vs->tag == TN_V_COMPLEX ? vs->u.c.im : 0;
        double er = ve->tag == TN_V_COMPLEX ? ve->u.c.re : tn_value_as_double(ve), ei = ve->tag == TN_V_COMPLEX ? ve->u.c.im : 0;
        if (dt == TN_DTYPE_C64) {
            float a = (float)sr, b = (float)si, c = (float)er, d = (float)ei, scl = 1.0f / (float)(steps - 1);
            float pr = (c - a) * scl, pi = (d - b) * scl;
            float complex fb = CMPLXF((float)base, 0.0f);
            for (int64_t i = 0; i < steps; i++) {
                float zr, zi;
                if (i < halfway) { zr = a + pr * (float)i; zi = b + pi * (float)i; }
                else { float m = (float)(steps - i - 1); zr = c - pr * m; zi = d - pi * m; }
                float complex v = cpowf(fb, CMPLXF(zr, zi));
                float o[2] = {crealf(v), cimagf(v)};
                memcpy(out + i * isz, o, 8);
            }
        } else {
            double scl = 1.0 / (double)(steps - 1), pr = (er - sr) * scl, pi = (ei - si) * scl;
            double complex db = CMPLX(base, 0.0);
            for (int64_t i = 0; i < steps; i++) {
                double zr, zi;
                if (i < halfway) { zr = sr + pr * (double)i; zi = si + pi * (double)i; }
                else { double m = (double)(steps - i - 1); zr = er - pr * m; zi = ei - pi * m; }
                double complex v = cpow(db, CMPLX(zr, zi));
                double o[2] = {creal(v), cimag(v)};
                memcpy(out + i * isz, o, 16);
            }
        }
        return;
    }
    double s, e, step;
    if (tn_dtype_is_integral(dt, false)) {
        char sb[8], eb[8];
        tn_value s2, e2;
        tn_cr_store(sb, dt, vs);
        tn_cr_store(eb, dt, ve);
        tn_cr_load(sb, dt, &s2);
        tn_cr_load(eb, dt, &e2);
        s = (double)s2.u.i;
        e = (double)e2.u.i;
        step = (double)(e2.u.i - s2.u.i) / (double)(steps - 1);
    } else {
        s = round_to(dt, tn_value_as_double(vs));
        e = round_to(dt, tn_value_as_double(ve));
        step = round_to(dt, e - s) / (double)(steps - 1);  /* the difference in the dtype */
    }
    for (int64_t i = 0; i < steps; i++) {
        double x = i < halfway ? fma(step, (double)i, s) : fma(-step, (double)(steps - i - 1), e);
        double v = pow(base, x);
        if (tn_dtype_is_integral(dt, false)) put_i(out + i * isz, dt, (int64_t)v);
        else put_f(out + i * isz, dt, v);
    }
}

static PyObject *logspace_impl(const tn_value *vs, const tn_value *ve, int64_t steps, double base, const tn_value *dtype,
                               const tn_value *layout, const tn_value *device, const tn_value *pin, PyObject *out) {
    PyObject *r = space_result("logspace_cpu", 1, vs, ve, steps, dtype, layout, device, pin, out);
    if (!r) return NULL;
    tn_dtype dt = tn_tensor_of(r)->dtype;
    if (tn_tensor_of(r)->storage->device == TN_DEVICE_META || steps == 0) return r;
    if (steps == 1) {
        /* fill_(pow(base, start)): double, or complex double when the tensor is complex */
        tn_value v;
        if (tn_dtype_is_complex(dt)) {
            double sr = vs->tag == TN_V_COMPLEX ? vs->u.c.re : tn_value_as_double(vs), si = vs->tag == TN_V_COMPLEX ? vs->u.c.im : 0;
            v.tag = TN_V_COMPLEX;
            if (base > 0) {  /* libstdc++'s pow(real, complex): polar(base^re, im * log(base)) */
                double rho = pow(base, sr), th = si * log(base);
                v.u.c.re = rho * cos(th);
                v.u.c.im = rho * sin(th);
            } else {
                double complex z = cpow(CMPLX(base, 0.0), CMPLX(sr, si));
                v.u.c.re = creal(z);
                v.u.c.im = cimag(z);
            }
        } else {
            /* start.to<double>() first: a complex start with an imaginary part refuses (measured) */
            if (tn_cr_check_scalar(vs, TN_DTYPE_F64) < 0) { Py_DECREF(r); return NULL; }
            v.tag = TN_V_FLOAT;
            v.u.f = pow(base, tn_value_as_double(vs));
        }
        if (tn_cr_fill_checked(r, &v) < 0) { Py_DECREF(r); return NULL; }
        return r;
    }
    return space_fill(r, logspace_fill, vs, ve, steps, base);
}

PyObject *tn_op_logspace(tn_value *a) { return logspace_impl(&a[0], &a[1], a[2].u.i, a[3].u.f, &a[4], &a[5], &a[6], &a[7], NULL); }
PyObject *tn_op_logspace_out(tn_value *a) { return logspace_impl(&a[0], &a[1], a[2].u.i, a[3].u.f, NULL, NULL, NULL, NULL, a[4].u.obj); }

static PyObject *logspace_t(tn_value *a, bool ts, bool te, PyObject *out) {
    tn_value s = a[0], e = a[1];
    if ((ts && tensor_scalar(&a[0], "logspace", "start", &s) < 0) || (te && tensor_scalar(&a[1], "logspace", "end", &e) < 0))
        return NULL;
    if (out) return logspace_impl(&s, &e, a[2].u.i, a[3].u.f, NULL, NULL, NULL, NULL, out);
    return logspace_impl(&s, &e, a[2].u.i, a[3].u.f, &a[4], &a[5], &a[6], &a[7], NULL);
}
PyObject *tn_op_logspace_Tensor_Tensor(tn_value *a) { return logspace_t(a, true, true, NULL); }
PyObject *tn_op_logspace_Tensor_Scalar(tn_value *a) { return logspace_t(a, true, false, NULL); }
PyObject *tn_op_logspace_Scalar_Tensor(tn_value *a) { return logspace_t(a, false, true, NULL); }
PyObject *tn_op_logspace_Tensor_Tensor_out(tn_value *a) { return logspace_t(a, true, true, a[4].u.obj); }
PyObject *tn_op_logspace_Tensor_Scalar_out(tn_value *a) { return logspace_t(a, true, false, a[4].u.obj); }
PyObject *tn_op_logspace_Scalar_Tensor_out(tn_value *a) { return logspace_t(a, false, true, a[4].u.obj); }

/* ---------- eye ---------- */

static int eye_fill(PyObject *r, int64_t n, int64_t m) {
    if (tn_cr_zero_fill(r) < 0) return -1;
    tn_tensor *t = tn_tensor_of(r);
    if (t->storage->device == TN_DEVICE_META) return 0;
    int isz = tn_dtype_itemsize(t->dtype);
    char one[16];
    switch (t->dtype) { /* 1.0 in the float8 formats (upstream's eye covers them; not all have casts here) */
    case TN_DTYPE_F8E4M3FN: one[0] = 0x38; break;
    case TN_DTYPE_F8E5M2: one[0] = 0x3C; break;
    case TN_DTYPE_F8E4M3FNUZ: case TN_DTYPE_F8E5M2FNUZ: one[0] = 0x40; break;
    case TN_DTYPE_F8E8M0FNU: one[0] = 0x7F; break;
    default: tn_cr_store(one, t->dtype, &one_value); break;
    }
    char *base = tn_data(t);
    for (int64_t i = 0; i < n && i < m; i++) memcpy(base + (i * t->strides[0] + i * t->strides[1]) * isz, one, (size_t)isz);
    return 0;
}

static bool f8(tn_dtype d) { return tn_dtype_infos[d].kind == TN_KIND_FLOAT8; }

static PyObject *eye_impl(int64_t n, int64_t m, const tn_value *o, PyObject *out) {
    if (n < 0) { PyErr_Format(PyExc_RuntimeError, "n must be greater or equal to 0, got %lld", (long long)n); return NULL; }
    if (m < 0) { PyErr_Format(PyExc_RuntimeError, "m must be greater or equal to 0, got %lld", (long long)m); return NULL; }
    int64_t sizes[2] = {n, m};
    PyObject *r;
    if (out) {
        if (out_resize(out, 2, sizes) < 0) return NULL;
        r = Py_NewRef(out);
    } else {
        tn_dtype dt;
        tn_device_type dev;
        if (tn_cr_options(&o[0], &o[1], &o[2], &o[3], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
        if (!f8(dt) && tn_require_computable("eye", dt) < 0) return NULL;
        r = tn_cr_empty(2, sizes, dt, dev);
        if (!r) return NULL;
    }
    tn_dtype rd = tn_tensor_of(r)->dtype;
    if ((!f8(rd) && tn_require_computable("eye", rd) < 0) || eye_fill(r, n, m) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

PyObject *tn_op_eye(tn_value *a) { return eye_impl(a[0].u.i, a[0].u.i, &a[1], NULL); }
PyObject *tn_op_eye_m(tn_value *a) { return eye_impl(a[0].u.i, a[1].u.i, &a[2], NULL); }
PyObject *tn_op_eye_out(tn_value *a) { return eye_impl(a[0].u.i, a[0].u.i, NULL, a[1].u.obj); }
PyObject *tn_op_eye_m_out(tn_value *a) { return eye_impl(a[0].u.i, a[1].u.i, NULL, a[2].u.obj); }
