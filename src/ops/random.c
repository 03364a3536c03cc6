/* ops/random.c — the random-number operators: uniform_, normal_ (and the torch.normal
 * overloads), random_, bernoulli(_), exponential_, multinomial, and the factories rand, randn,
 * randint, randperm and their *_like forms.
 *
 * The numbers come from core/random.h, bit-identical to upstream for the same seed. Upstream
 * fills every output serially in TensorIterator order, which for a non-contiguous tensor is
 * MEMORY order (dims sorted by stride). So a non-contiguous tensor is filled by generating its
 * values into a contiguous buffer laid out in that order and copying them into a stride-sorted
 * view of the tensor. normal_ takes upstream's chunked path only for contiguous tensors; anything
 * else uses the serial path. Complex tensors are filled as their real view (2n values), as
 * upstream does (normal_ with std / sqrt(2)). */
#include "ops/common.h"

#include "core/random.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- helpers */

static tn_generator *gen_of(const tn_value *v) {
    return tn_py_generator_of(v && v->tag == TN_V_GENERATOR ? v->u.obj : NULL);
}

/* RuntimeError with printf formatting (PyErr_Format has no %g). Returns NULL. */
static PyObject *rt_error(const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    PyErr_SetString(PyExc_RuntimeError, buf);
    return NULL;
}


static bool is_float(tn_dtype d) {
    return d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_F16 || d == TN_DTYPE_BF16;
}

static tn_dtype real_of(tn_dtype d) {
    return d == TN_DTYPE_C64 ? TN_DTYPE_F32 : d == TN_DTYPE_C128 ? TN_DTYPE_F64 : d == TN_DTYPE_C32 ? TN_DTYPE_F16 : d;
}

/* Dims of t ordered outermost-first as upstream's TensorIterator walks memory (largest stride
 * outermost; ties keep the logical order). */
static void memory_order(const tn_tensor *t, int *perm) {
    for (int i = 0; i < t->ndim; i++) perm[i] = i;
    for (int i = 1; i < t->ndim; i++) { /* stable insertion sort, stride descending */
        int p = perm[i], j = i;
        while (j > 0 && t->strides[perm[j - 1]] < t->strides[p] && t->sizes[p] != 1 && t->sizes[perm[j - 1]] != 1) {
            perm[j] = perm[j - 1];
            j--;
        }
        perm[j] = p;
    }
}

/* ---- meta tensors ----
 * Upstream's meta kernels of the random ops are Python (torch/_refs, torch/_meta_registrations):
 * they draw nothing (the generator is left as it was), check only what they check, in their order,
 * and print numbers as Python does ("std -1.0", "lambda=nan"). The door runs a meta call on zeroed
 * CPU stand-ins (tn_door_on_meta); fill_tensor then draws nothing, and each op applies the meta
 * checks below instead of its CPU ones (measured on upstream 2.13: tests/cases/test_random_meta.py). */
static PyObject *meta_num_error(const char *prefix, double v) {
    PyObject *f = PyFloat_FromDouble(v);
    if (f) {
        PyErr_Format(PyExc_RuntimeError, "%s%S", prefix, f);
        Py_DECREF(f);
    }
    return NULL;
}
static PyObject *meta_dtype_error(const char *prefix, tn_dtype dt) {
    PyErr_Format(PyExc_RuntimeError, "%storch.%s", prefix, tn_dtype_infos[dt].name);
    return NULL;
}
/* _refs' "continuous probability distribution" check (cauchy, exponential): its message keeps the
 * source's line continuation, nine spaces */
static int meta_continuous(const char *dist, tn_dtype dt) {
    if (is_float(dt)) return 0;
    char pre[160];
    snprintf(pre, sizeof pre, "%s distribution is a continuous probability distribution.         dtype must be a "
             "floating point but you specified ", dist);
    meta_dtype_error(pre, dt);
    return -1;
}
/* normal's meta checks: std >= 0 (NaN fails), then a floating or complex dtype */
static int meta_normal_check(double std, tn_dtype dt) {
    if (!(std >= 0)) {
        meta_num_error("normal expects std >= 0.0, but found std ", std);
        return -1;
    }
    if (!is_float(real_of(dt))) {
        meta_dtype_error("expected a floating-point or complex dtype, but got dtype=", dt);
        return -1;
    }
    return 0;
}

typedef int (*fill_fn)(tn_generator *g, void *data, int64_t n, tn_dtype dt, const void *ctx, bool contiguous);

/* Fill `self` in upstream's element order. */
static int fill_tensor(PyObject *self, tn_generator *g, fill_fn fn, const void *ctx) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t n = tn_numel(t);
    if (n == 0 || t->storage->device == TN_DEVICE_META || tn_door_on_meta()) return 0;
    if (tn_check_overlap(self, 0, NULL) < 0) return -1;   /* the nullary iterator: no expanded self */
    tn_dtype dt = t->dtype, rdt = real_of(dt);
    int64_t rn = tn_dtype_is_complex(dt) ? 2 * n : n;
    if (tn_is_contiguous(t)) {
        if (fn(g, tn_data(t), rn, rdt, ctx, true) < 0) return -1;
        t->storage->version++;
        return 0;
    }
    int perm[TN_MAX_DIMS];
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    memory_order(t, perm);
    for (int i = 0; i < t->ndim; i++) { sz[i] = t->sizes[perm[i]]; st[i] = t->strides[perm[i]]; }
    PyObject *tmp = tn_tensor_new_empty(t->ndim, sz, dt, TN_DEVICE_CPU);
    if (!tmp) return -1;
    PyObject *view = tn_tensor_new_view(self, t->ndim, sz, st, t->offset);
    int r = -1;
    if (view && fn(g, tn_data(tn_tensor_of(tmp)), rn, rdt, ctx, false) == 0) r = tn_copy_into(view, tmp);
    Py_XDECREF(view);
    Py_DECREF(tmp);
    return r;
}

/* A new tensor like `self` (upstream's empty_like with preserve_format: same strides when self is
 * non-overlapping and dense, else contiguous). */
static PyObject *new_like(PyObject *self, tn_dtype dt) {
    tn_tensor *t = tn_tensor_of(self);
    int perm[TN_MAX_DIMS];
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    memory_order(t, perm);
    int64_t expect = 1;
    bool dense = true;
    for (int i = t->ndim - 1; i >= 0; i--) {
        int d = perm[i];
        if (t->sizes[d] != 1 && t->strides[d] != expect) dense = false;
        expect *= t->sizes[d];
    }
    if (!dense || tn_is_contiguous(t)) return tn_tensor_new_empty(t->ndim, t->sizes, dt, t->storage->device);
    for (int i = 0; i < t->ndim; i++) sz[i] = t->sizes[perm[i]];
    PyObject *r = tn_tensor_new_empty(t->ndim, sz, dt, t->storage->device);
    if (!r) return NULL;
    tn_contiguous_strides(t->ndim, sz, st);
    tn_tensor *o = tn_tensor_of(r);
    for (int i = 0; i < t->ndim; i++) { o->sizes[perm[i]] = sz[i]; o->strides[perm[i]] = st[i]; }
    return r;
}

static int check_sizes(const tn_value *size) {
    for (int i = 0; i < size->u.ints.n; i++)
        if (size->u.ints.v[i] < 0) {
            char buf[256];
            size_t k = 0;
            for (int j = 0; j < size->u.ints.n && k < sizeof buf; j++)
                k += (size_t)snprintf(buf + k, sizeof buf - k, j ? ", %lld" : "%lld", (long long)size->u.ints.v[j]);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%s]",
                         (long long)size->u.ints.v[i], buf);
            return -1;
        }
    return 0;
}

/* A factory result: out= resized to `size`, or a new tensor of dtype (NONE: `dflt`) on device. */
/* `dtype` is the first of the schema's dtype, layout, device, pin_memory values (or NULL). */
static PyObject *factory(const tn_value *size, const tn_value *dtype, const tn_value *device, tn_dtype dflt, PyObject *out) {
    tn_dtype odt;
    tn_device_type odev;
    if (dtype && tn_cr_options(dtype, dtype + 1, device, dtype + 3, dflt, TN_DEVICE_CPU, &odt, &odev) < 0) return NULL;
    if (check_sizes(size) < 0) return NULL;
    if (out) {
        /* an out of the size asked keeps its layout upstream (no resize), so the fill's iterator
         * sees an expanded one */
        const tn_tensor *ot = tn_tensor_of(out);
        bool same = ot->ndim == size->u.ints.n;
        for (int i = 0; same && i < ot->ndim; i++) same = ot->sizes[i] == size->u.ints.v[i];
        if (same && tn_check_overlap(out, 0, NULL) < 0) return NULL;
        if (tn_resize(out, size->u.ints.n, size->u.ints.v) < 0) return NULL;
        return Py_NewRef(out);
    }
    tn_dtype dt = dtype && dtype->tag == TN_V_DTYPE ? dtype->u.dtype : dflt;
    tn_device_type dev = device && device->tag == TN_V_DEVICE ? device->u.device.type : TN_DEVICE_CPU;
    return tn_tensor_new_empty(size->u.ints.n, size->u.ints.v, dt, dev);
}

/* `dtype` is the first of the schema's dtype, layout, device, pin_memory values. */
static PyObject *like(const tn_value *self, const tn_value *dtype) {
    tn_dtype odt;
    tn_device_type odev;
    if (tn_cr_options(dtype, dtype + 1, dtype + 2, dtype + 3, TN_DTYPE_F32, TN_DEVICE_CPU, &odt, &odev) < 0) return NULL;
    tn_dtype dt = dtype && dtype->tag == TN_V_DTYPE ? dtype->u.dtype : TN_T(*self)->dtype;
    /* a memory_format given (the argument after pin_memory) lays the result out as empty_like does */
    const tn_value *mf = dtype + 4;
    if (mf->tag == TN_V_MEMFORMAT && mf->u.obj != tn_py.memory_format_preserve)
        return tn_cr_empty_like(TN_T(*self), mf->u.obj, dt, TN_T(*self)->storage->device);
    /* a CPU tensor made like into a quantized dtype: empty_like's refusal (ops/create.c) */
    if (tn_dtype_infos[dt].kind == TN_KIND_QUANT && tn_dtype_infos[TN_T(*self)->dtype].kind != TN_KIND_QUANT &&
        TN_T(*self)->storage->device == TN_DEVICE_CPU)
        return tn_cr_empty_like(TN_T(*self), NULL, dt, TN_DEVICE_CPU);
    return new_like(self->u.obj, dt);
}

/* Run `op` on a fresh result, releasing it on failure. */
#define TN_FILL_OR_FAIL(res, expr) do { if (!(res)) return NULL; if ((expr) == NULL) { Py_DECREF(res); return NULL; } Py_DECREF(res); } while (0)

/* ---------------------------------------------------------------- uniform_ */

typedef struct { double a, b; } two_d;

static int f_uniform(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    const two_d *x = c;
    return tn_rng_uniform_(g, d, n, dt, x->a, x->b);
}

static PyObject *uniform_impl(PyObject *self, double from, double to, tn_generator *g) {
    if (tn_door_on_meta()) return Py_NewRef(self); /* no meta checks */
    tn_tensor *t = tn_tensor_of(self);
    tn_dtype r = real_of(t->dtype);
    if (!is_float(r)) return tn_kernel_missing("check_uniform_bounds", t->dtype);
    /* upstream's check_uniform_bounds against the (real) dtype's finite range */
    double mx = r == TN_DTYPE_F64 ? DBL_MAX : r == TN_DTYPE_F16 ? 65504.0 : r == TN_DTYPE_BF16 ? 3.3895313892515355e38 : FLT_MAX;
    if (!(from >= -mx && from <= mx)) return rt_error("from is out of bounds for %s", tn_dtype_cxx_name(r));
    if (!(to >= -mx && to <= mx)) return rt_error("to is out of bounds for %s", tn_dtype_cxx_name(r));
    if (from > to) {
        rt_error("uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
        return NULL;
    }
    if (!(to - from <= mx))
        return rt_error("uniform_ expects to-from <= std::numeric_limits<%s>::max(), but found to=%g and from=%g which "
                        "result in to-from to exceed the limit", tn_dtype_cpp_name(r), to, from);
    two_d c = {from, to};
    if (fill_tensor(self, g, f_uniform, &c) < 0) return NULL;
    return Py_NewRef(self);
}

static PyObject *uniform_op(tn_value *a) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    return uniform_impl(a[0].u.obj, tn_value_as_double(&a[1]), tn_value_as_double(&a[2]), g);
}
PyObject *tn_op_uniform_(tn_value *a) { return uniform_op(a); }

/* ---------------------------------------------------------------- normal */

static int f_normal(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    const two_d *x = c;
    return contig ? tn_rng_normal_(g, d, n, dt, x->a, x->b) : tn_rng_normal_serial_(g, d, n, dt, x->a, x->b);
}

static int check_std(double std) {
    if (!(std >= 0)) {   /* NaN too (measured: normal(0, nan) raises) */
        rt_error("normal expects std >= 0.0, but found std %g", std);
        return -1;
    }
    return 0;
}

static PyObject *normal_impl(PyObject *self, double mean, double std, tn_generator *g) {
    tn_tensor *t = tn_tensor_of(self);
    if (tn_door_on_meta()) return meta_normal_check(std, t->dtype) < 0 ? NULL : Py_NewRef(self);
    if (check_std(std) < 0) return NULL;
    if (tn_numel(t) == 0) return Py_NewRef(self);   /* nothing to fill: no dtype dispatch (measured) */
    if (!is_float(real_of(t->dtype))) return tn_kernel_missing("normal_kernel_cpu", t->dtype);
    two_d c = {mean, tn_dtype_is_complex(t->dtype) ? std / sqrt(2.0) : std};
    if (fill_tensor(self, g, f_normal, &c) < 0) return NULL;
    return Py_NewRef(self);
}

static PyObject *normal_op(tn_value *a) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    return normal_impl(a[0].u.obj, tn_value_as_double(&a[1]), tn_value_as_double(&a[2]), g);
}
PyObject *tn_op_normal_(tn_value *a) { return normal_op(a); }

/* In-place `t op= other` through the shared elementwise driver. Returns 0 / -1. */
static int inplace_binary(tn_binary_op op, const char *name, PyObject *t, tn_value *other) {
    tn_value tv;
    memset(&tv, 0, sizeof tv);
    tv.tag = TN_V_TENSOR;
    tv.u.obj = t;
    PyObject *r = tn_binary(op, name, &tv, other, NULL, true, NULL);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* The out= forms draw into a tensor of out's dtype (upstream's normal_out_impl draws into out
 * itself, so an integral mean / std with a float out runs), of the broadcast of x's and y's
 * sizes (Tensor_float_out broadcasts mean with out's own sizes, as upstream). */
static PyObject *out_result(PyObject *out, const tn_tensor *x, const tn_tensor *y) {
    const tn_tensor *ts[2] = {x, y};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(y ? 2 : 1, ts, &nd, shape) < 0) return NULL;
    return tn_tensor_new_empty(nd, shape, tn_tensor_of(out)->dtype, TN_DEVICE_CPU);
}

/* normal(Tensor mean, float std): empty_like(mean).normal_(0, std).add_(mean) */
static PyObject *normal_tf(tn_value *a, PyObject *out) {
    double std = tn_value_as_double(&a[1]);
    tn_generator *g = gen_of(&a[2]);
    if (!g || (tn_door_on_meta() ? meta_normal_check(std, TN_T(a[0])->dtype) : check_std(std)) < 0) return NULL;
    PyObject *res = out && !tn_door_on_meta() ? out_result(out, TN_T(a[0]), tn_tensor_of(out))
                                              : new_like(a[0].u.obj, TN_T(a[0])->dtype);
    if (!res) return NULL;
    /* upstream: output.normal_(0, std) (its dtype dispatch), then output.add_(mean): out='s overlap there */
    const tn_tensor *rt = tn_tensor_of(res);
    if (!normal_impl(res, 0, std, g)) {
        Py_DECREF(res);
        return NULL;
    }
    Py_DECREF(res);   /* normal_impl's reference */
    if ((out && tn_out_overlap_as_resized(out, rt->ndim, rt->sizes, 0, NULL) < 0) ||
        inplace_binary(TN_BINARY_ADD, "add", res, &a[0]) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return tn_out_deliver(res, out, "normal");
}

/* upstream's CHECK_NORMAL_TENSOR_STD: not complex, then std.min() >= 0 for every real dtype (an
 * integral std too; min's own refusal of uint16 / float8 first; not on meta), NaN refused */
static int check_std_tensor(PyObject *std) {
    tn_tensor *t = tn_tensor_of(std);
    if (tn_dtype_is_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "normal expects standard deviation to be non-complex");
        return -1;
    }
    if (tn_numel(t) == 0 || tn_door_on_meta()) return 0;
    PyObject *m = tn_at_min(std);
    PyObject *c = m ? tn_as_dtype(m, TN_DTYPE_F64, true) : NULL;
    Py_XDECREF(m);
    if (!c) return -1;
    bool bad = !(*(const double *)tn_data(tn_tensor_of(c)) >= 0);   /* NaN too */
    Py_DECREF(c);
    if (bad) {
        PyErr_SetString(PyExc_RuntimeError, "normal expects all elements of std >= 0.0");
        return -1;
    }
    return 0;
}

/* output.normal_(0, 1).mul_(std).add_(mean) */
static PyObject *normal_mul_add(PyObject *res, tn_value *mean, tn_value *std, tn_generator *g) {
    if (!normal_impl(res, 0, 1, g)) { Py_DECREF(res); return NULL; }
    Py_DECREF(res); /* normal_impl returned a second reference */
    /* an empty integral / bool result: upstream's mul_ / add_ refuse nothing there (measured:
     * normal(2.0, empty int64 std) runs; uint16 refuses in add's kernel, float8 too) */
    const tn_tensor *rt = tn_tensor_of(res);
    if (tn_numel(rt) == 0 && tn_dtype_is_integral(rt->dtype, true) && !tn_dtype_barebones(rt->dtype)) return res;
    if (inplace_binary(TN_BINARY_MUL, "mul", res, std) < 0 || inplace_binary(TN_BINARY_ADD, "add", res, mean) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

static PyObject *normal_ft(tn_value *a, PyObject *out) {
    tn_generator *g = gen_of(&a[2]);
    if (!g || check_std_tensor(a[1].u.obj) < 0) return NULL;
    PyObject *res = out && !tn_door_on_meta() ? out_result(out, TN_T(a[1]), NULL) : new_like(a[1].u.obj, TN_T(a[1])->dtype);
    if (!res) return NULL;
    /* tn_binary takes tensors: the mean as a wrapped-number tensor */
    PyObject *num = PyFloat_FromDouble(tn_value_as_double(&a[0]));
    PyObject *mt = num ? tn_tensor_from_number(num, true) : NULL;
    Py_XDECREF(num);
    if (!mt) { Py_DECREF(res); return NULL; }
    tn_value mean;
    memset(&mean, 0, sizeof mean);
    mean.tag = TN_V_TENSOR;
    mean.u.obj = mt;
    mean.wrapped = true;
    PyObject *r = tn_out_deliver(normal_mul_add(res, &mean, &a[1], g), out, "normal");
    Py_DECREF(mt);
    return r;
}

static PyObject *normal_tt(tn_value *a, PyObject *out) {
    tn_generator *g = gen_of(&a[2]);
    if (!g || check_std_tensor(a[1].u.obj) < 0) return NULL;
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    PyObject *res = tn_tensor_new_empty(nd, shape, out && !tn_door_on_meta() ? tn_tensor_of(out)->dtype : ts[0]->dtype,
                                        TN_DEVICE_CPU);
    if (!res) return NULL;
    return tn_out_deliver(normal_mul_add(res, &a[0], &a[1], g), out, "normal");
}

static PyObject *normal_ff(tn_value *a, int igen, const tn_value *dtype, const tn_value *device, PyObject *out) {
    tn_generator *g = gen_of(&a[igen]);
    double mean = tn_value_as_double(&a[0]), std = tn_value_as_double(&a[1]);
    if (!g || check_std(std) < 0) return NULL;
    PyObject *res = factory(&a[2], dtype, device, tn_py.default_dtype, out);
    if (!res) return NULL;
    PyObject *r = normal_impl(res, mean, std, g);
    Py_DECREF(res);
    return r;
}

PyObject *tn_op_normal_Tensor_float(tn_value *a) { return normal_tf(a, NULL); }
PyObject *tn_op_normal_Tensor_float_out(tn_value *a) { return normal_tf(a, a[3].u.obj); }
PyObject *tn_op_normal_float_Tensor(tn_value *a) { return normal_ft(a, NULL); }
PyObject *tn_op_normal_float_Tensor_out(tn_value *a) { return normal_ft(a, a[3].u.obj); }
PyObject *tn_op_normal_Tensor_Tensor(tn_value *a) { return normal_tt(a, NULL); }
PyObject *tn_op_normal_Tensor_Tensor_out(tn_value *a) { return normal_tt(a, a[3].u.obj); }
PyObject *tn_op_normal_float_float(tn_value *a) { return normal_ff(a, 3, &a[4], &a[6], NULL); }
PyObject *tn_op_normal_float_float_out(tn_value *a) { return normal_ff(a, 3, NULL, NULL, a[4].u.obj); }

/* ---------------------------------------------------------------- random_ */

static const char *type_meta_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_U8: return "unsigned char";
    case TN_DTYPE_I8: return "signed char";
    case TN_DTYPE_I16: return "short";
    case TN_DTYPE_I32: return "int";
    case TN_DTYPE_I64: return "long";
    case TN_DTYPE_U16: return "short unsigned int";   /* as upstream's messages print them (measured) */
    case TN_DTYPE_U32: return "unsigned int";
    case TN_DTYPE_U64: return "long unsigned int";
    case TN_DTYPE_F16: return "c10::Half";
    case TN_DTYPE_BF16: return "c10::BFloat16";
    case TN_DTYPE_F32: return "float";
    case TN_DTYPE_F64: return "double";
    case TN_DTYPE_BOOL: return "bool";
    default: return tn_dtype_cpp_name(d);
    }
}

typedef struct { int kind; uint64_t range; int64_t base; } rnd_ctx; /* kind 0 range, 1 full64, 2 random_() */

static int f_random(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    const rnd_ctx *x = c;
    if (x->kind == 0) return tn_rng_random_from_to_(g, d, n, dt, x->range, x->base);
    if (x->kind == 1) return tn_rng_random_full_64_(g, d, n, dt);
    return tn_rng_random_(g, d, n, dt);
}

static PyObject *random_from_to(PyObject *self, int64_t from, bool has_to, int64_t to, tn_generator *g) {
    if (tn_door_on_meta()) return Py_NewRef(self); /* no meta checks */
    tn_tensor *t = tn_tensor_of(self);
    tn_dtype dt = t->dtype;
    bool wide_uint = dt == TN_DTYPE_U16 || dt == TN_DTYPE_U32 || dt == TN_DTYPE_U64; /* upstream's kernel covers them */
    /* upstream's bounds checks refuse complex (and, given a `to`, the bits types) by name (measured) */
    if (tn_dtype_is_complex(dt) || (has_to && tn_dtype_infos[dt].kind == TN_KIND_BITS)) {
        if (has_to && from >= to) {
            PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                         (long long)from, (long long)to);
            return NULL;
        }
        if (has_to || from != INT64_MIN) {
            PyErr_Format(PyExc_RuntimeError, "%s handles only integral, floating-point and boolean types",
                         has_to ? "check_random_bounds" : "random_from_to_impl");
            return NULL;
        }
        return tn_kernel_missing("random_full_64_bits_range_kernel_cpu", dt);
    }
    if (!tn_dtype_computable(dt) && !wide_uint) {
        if (has_to && from >= to && tn_dtype_infos[dt].kind == TN_KIND_FLOAT8) {   /* the bounds first (measured) */
            PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                         (long long)from, (long long)to);
            return NULL;
        }
        return tn_kernel_missing("random_from_to_kernel_cpu", dt);
    }
    tn_rng_bounds b;
    int rc = tn_rng_random_bounds(dt, from, has_to, to, &b);
    switch (rc) {
    case TN_RNG_BOUNDS_FROM_GE_TO:
        PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                     (long long)from, (long long)to);
        return NULL;
    case TN_RNG_BOUNDS_CAST_FROM_GE_TO:
        if (has_to)
            PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=%lld >= to=%lld",
                         (long long)b.from, (long long)b.to_inc + 1);
        else
            PyErr_Format(PyExc_RuntimeError, "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got from=%lld > to_inc=%lld",
                         (long long)b.from, (long long)b.to_inc);
        return NULL;
    case TN_RNG_BOUNDS_FROM_OOB:
        PyErr_Format(PyExc_RuntimeError, "from is out of bounds for %s", type_meta_name(dt));
        return NULL;
    case TN_RNG_BOUNDS_TO_OOB:
        PyErr_Format(PyExc_RuntimeError, "to - 1 is out of bounds for %s", type_meta_name(dt));
        return NULL;
    case TN_RNG_BOUNDS_BAD_DTYPE:
        return tn_kernel_missing("random_from_to_kernel_cpu", dt);
    default: break;
    }
    int digits = dt == TN_DTYPE_F16 ? 11 : dt == TN_DTYPE_BF16 ? 8 : dt == TN_DTYPE_F32 ? 24 : 53;
    for (int bit = 1; bit <= 2; bit++)
        if (b.warn & bit) {
            char msg[400];
            snprintf(msg, sizeof msg, "%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations %s can support "
                     "discrete uniform distribution only within this range. This warning will become an error in version "
                     "1.7 release, please fix the code in advance", bit == 1 ? "from" : "to - 1", digits, digits,
                     type_meta_name(dt));
            if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) return NULL;
        }
    rnd_ctx c = {rc == TN_RNG_BOUNDS_FULL64 ? 1 : 0, b.range, b.base};
    if (c.kind == 1 && wide_uint && tn_numel(t) > 0) return tn_kernel_missing("random_full_64_bits_range_kernel_cpu", dt);
    if (c.kind == 1 && tn_numel(t) > 0 && dt != TN_DTYPE_I64 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F32 && dt != TN_DTYPE_BF16) {
        PyErr_SetString(PyExc_RuntimeError, "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16");
        return NULL;
    }
    if (fill_tensor(self, g, f_random, &c) < 0) return NULL;
    return Py_NewRef(self);
}

PyObject *tn_op_random__from(tn_value *a) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    return random_from_to(a[0].u.obj, a[1].u.i, a[2].tag != TN_V_NONE, a[2].tag != TN_V_NONE ? a[2].u.i : 0, g);
}
PyObject *tn_op_random__to(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    if (!g) return NULL;
    return random_from_to(a[0].u.obj, 0, true, a[1].u.i, g);
}
static PyObject *random_plain(tn_value *a) {
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    if (tn_door_on_meta()) return Py_NewRef(a[0].u.obj); /* no meta checks */
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    if (tn_dtype_is_complex(dt) || dt == TN_DTYPE_U16 || dt == TN_DTYPE_U32 || dt == TN_DTYPE_U64 || !tn_dtype_computable(dt))
        return tn_kernel_missing("random_kernel_cpu", dt);
    rnd_ctx c = {2, 0, 0};
    if (fill_tensor(a[0].u.obj, g, f_random, &c) < 0) return NULL;
    return Py_NewRef(a[0].u.obj);
}
PyObject *tn_op_random_(tn_value *a) { return random_plain(a); }

/* ---------------------------------------------------------------- exponential_ */

static int f_exponential(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    return tn_rng_exponential_(g, d, n, dt, *(const double *)c);
}

static PyObject *exponential_op(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    if (!g) return NULL;
    double l = tn_value_as_double(&a[1]);
    tn_tensor *t = TN_T(a[0]);
    if (tn_door_on_meta()) {
        if (meta_continuous("Exponential", t->dtype) < 0) return NULL;
        if (!(l > 0)) return meta_num_error("exponential_ expects lambda > 0.0, but found lambda=", l);
        return Py_NewRef(a[0].u.obj);
    }
    if (!(l > 0)) {
        rt_error("exponential_ expects lambda > 0.0, but found lambda=%g", l);
        return NULL;
    }
    /* upstream returns an empty self after the lambda check, before its kernel's dtype check */
    if (tn_numel(t) == 0) return Py_NewRef(a[0].u.obj);
    if (!tn_dtype_is_floating(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Exponential distribution is a continuous probability distribution. "
                     "dtype must be a floating point but you specified %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    /* a floating dtype without a kernel (float8): upstream's dispatch */
    if (!is_float(t->dtype)) return tn_kernel_missing("exponential_cpu", t->dtype);
    if (fill_tensor(a[0].u.obj, g, f_exponential, &l) < 0) return NULL;
    return Py_NewRef(a[0].u.obj);
}
PyObject *tn_op_exponential_(tn_value *a) { return exponential_op(a); }

/* ------------------------------------------------ cauchy_, log_normal_, geometric_ */
/* upstream's cauchy_impl_ / log_normal_impl_ / geometric_impl_: the argument check, then
 * nothing for an empty tensor, then the serial kernel (one double draw per element, in memory
 * order) of the dtypes its dispatch covers. */

typedef struct { double a, b; } two_doubles;
static int f_cauchy(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    const two_doubles *p = c;
    return tn_rng_cauchy_(g, d, n, dt, p->a, p->b);
}
static int f_log_normal(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    const two_doubles *p = c;
    return tn_rng_log_normal_(g, d, n, dt, p->a, p->b);
}
static int f_geometric(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    return tn_rng_geometric_(g, d, n, dt, *(const double *)c);
}

PyObject *tn_op_cauchy_(tn_value *a) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    two_doubles c = {tn_value_as_double(&a[1]), tn_value_as_double(&a[2])};
    tn_tensor *t = TN_T(a[0]);
    if (tn_door_on_meta()) {
        if (meta_continuous("Cauchy", t->dtype) < 0) return NULL;
        if (!(c.b > 0)) return meta_num_error("cauchy_ expects sigma > 0.0, but found sigma=", c.b);
        return Py_NewRef(a[0].u.obj);
    }
    if (!(c.b > 0)) return rt_error("cauchy_ expects sigma > 0.0, but found sigma=%g", c.b);
    if (!tn_dtype_is_floating(t->dtype)) { /* upstream prints the C++ type here (measured) */
        PyErr_Format(PyExc_RuntimeError, "Cauchy distribution is a continuous probability distribution. "
                     "dtype must be a floating point but you specified %s", tn_dtype_cxx_name(t->dtype));
        return NULL;
    }
    if (tn_numel(t) == 0) return Py_NewRef(a[0].u.obj);
    /* a floating dtype without a kernel (float8): upstream's dispatch */
    if (!is_float(t->dtype)) return tn_kernel_missing("cauchy_cpu", t->dtype);
    if (fill_tensor(a[0].u.obj, g, f_cauchy, &c) < 0) return NULL;
    return Py_NewRef(a[0].u.obj);
}

PyObject *tn_op_log_normal_(tn_value *a) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    two_doubles c = {tn_value_as_double(&a[1]), tn_value_as_double(&a[2])};
    tn_tensor *t = TN_T(a[0]);
    if (tn_door_on_meta()) {
        if (!is_float(t->dtype)) return meta_dtype_error("log_normal not implemented for ", t->dtype);
        if (!(c.b > 0)) return meta_num_error("log_normal_ expects std > 0.0, but found std=", c.b);
        return Py_NewRef(a[0].u.obj);
    }
    if (!(c.b > 0)) return rt_error("log_normal_ expects std > 0.0, but found std=%g", c.b);
    if (tn_numel(t) == 0) return Py_NewRef(a[0].u.obj);
    if (!is_float(t->dtype)) return tn_kernel_missing("log_normal_cpu", t->dtype);
    if (fill_tensor(a[0].u.obj, g, f_log_normal, &c) < 0) return NULL;
    return Py_NewRef(a[0].u.obj);
}

PyObject *tn_op_geometric_(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    if (!g) return NULL;
    double p = tn_value_as_double(&a[1]);
    tn_tensor *t = TN_T(a[0]);
    if (tn_door_on_meta()) {
        if (tn_dtype_is_complex(t->dtype) || t->dtype == TN_DTYPE_BOOL)
            return meta_dtype_error("geometric not implemented for ", t->dtype);
        if (!(0 < p && p < 1)) return meta_num_error("geometric_ expects p to be in (0, 1), but got p=", p);
        return Py_NewRef(a[0].u.obj);
    }
    if (!(0 < p && p < 1)) return rt_error("geometric_ expects p to be in (0, 1), but got p=%g", p);
    if (tn_numel(t) == 0) return Py_NewRef(a[0].u.obj);
    tn_dtype dt = t->dtype;
    bool ok = is_float(dt) || dt == TN_DTYPE_U8 || dt == TN_DTYPE_I8 || dt == TN_DTYPE_I16 || dt == TN_DTYPE_I32 ||
              dt == TN_DTYPE_I64;
    if (!ok) return tn_kernel_missing("geometric_cpu", dt);
    if (fill_tensor(a[0].u.obj, g, f_geometric, &p) < 0) return NULL;
    return Py_NewRef(a[0].u.obj);
}

/* ---------------------------------------------------------------- bernoulli */

static int f_bern_scalar(tn_generator *g, void *d, int64_t n, tn_dtype dt, const void *c, bool contig) {
    return tn_rng_bernoulli_scalar_(g, d, n, dt, *(const double *)c);
}

static PyObject *bernoulli_scalar(PyObject *self, double p, tn_generator *g) {
    if (tn_door_on_meta()) return Py_NewRef(self); /* no meta checks */
    if (!(p >= 0 && p <= 1)) {
        rt_error("bernoulli_ expects p to be in [0, 1], but got p=%g", p);
        return NULL;
    }
    tn_dtype dt = tn_tensor_of(self)->dtype;
    /* an empty self is returned before the dtype dispatch (measured: docs/breadth_more2.md) */
    if (tn_numel(tn_tensor_of(self)) == 0) return Py_NewRef(self);
    if (tn_dtype_is_complex(dt) || !tn_dtype_computable(dt)) return tn_kernel_missing("bernoulli_scalar_cpu_", dt);
    if (fill_tensor(self, g, f_bern_scalar, &p) < 0) return NULL;
    return Py_NewRef(self);
}

/* bernoulli_(self, p tensor): p broadcast to self, read at the element being written. */
static PyObject *bernoulli_tensor(PyObject *self, PyObject *p, tn_generator *g) {
    if (tn_door_on_meta()) return Py_NewRef(self); /* no meta checks */
    tn_tensor *t = tn_tensor_of(self), *pt = tn_tensor_of(p);
    /* an empty self is returned unchecked: p's shape, dtype and values are not read (measured:
     * docs/breadth_more2.md "Fuzz corpus: calls upstream runs, fourth pass") */
    if (tn_numel(t) == 0) return Py_NewRef(self);
    if (tn_check_overlap(self, 0, NULL) < 0) return NULL;   /* self's internal overlap first (measured) */
    /* upstream expands p to self's shape before dispatching on the dtypes (measured) */
    PyObject *pe = tn_at_expand(p, TN_IN(t->sizes, t->ndim), false);
    if (!pe) return NULL;
    Py_DECREF(pe);
    if (!is_float(pt->dtype)) return tn_kernel_missing("bernoulli_tensor_cpu_p_", pt->dtype);
    if (tn_dtype_is_complex(t->dtype) || !tn_dtype_computable(t->dtype)) return tn_kernel_missing("bernoulli_tensor_cpu_self_", t->dtype);
    /* p's values must lie in [0, 1] */
    PyObject *pc = tn_as_dtype(p, TN_DTYPE_F64, true);
    if (!pc) return NULL;
    const double *pv = (const double *)tn_data(tn_tensor_of(pc));
    bool bad = false;
    for (int64_t i = 0, n = tn_numel(pt); i < n; i++) if (!(pv[i] >= 0 && pv[i] <= 1)) bad = true;
    Py_DECREF(pc);
    if (bad) {
        PyErr_SetString(PyExc_RuntimeError, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
                        "message be improved?  If so, please report an enhancement request to PyTorch.)");
        return NULL;
    }
    /* p expanded to self's shape */
    int64_t est[TN_MAX_DIMS];
    if (pt->ndim > t->ndim) goto mismatch;
    for (int d = 0; d < t->ndim; d++) {
        int pd = d - (t->ndim - pt->ndim);
        if (pd < 0) { est[d] = 0; continue; }
        if (pt->sizes[pd] == t->sizes[d]) est[d] = pt->strides[pd];
        else if (pt->sizes[pd] == 1) est[d] = 0;
        else goto mismatch;
    }
    int64_t n = tn_numel(t);
    if (n == 0 || t->storage->device == TN_DEVICE_META) return Py_NewRef(self);
    int perm[TN_MAX_DIMS];
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS], pst[TN_MAX_DIMS];
    bool contig = tn_is_contiguous(t);
    if (contig) for (int i = 0; i < t->ndim; i++) perm[i] = i;
    else memory_order(t, perm);
    for (int i = 0; i < t->ndim; i++) { sz[i] = t->sizes[perm[i]]; st[i] = t->strides[perm[i]]; pst[i] = est[perm[i]]; }
    PyObject *pview = tn_tensor_new_view(p, t->ndim, sz, pst, pt->offset);
    PyObject *pcont = pview ? tn_as_dtype(pview, pt->dtype, true) : NULL;
    Py_XDECREF(pview);
    if (!pcont) return NULL;
    PyObject *r = NULL;
    if (contig) {
        tn_rng_bernoulli_tensor_(g, tn_data(t), n, t->dtype, tn_data(tn_tensor_of(pcont)), pt->dtype);
        t->storage->version++;
        r = Py_NewRef(self);
    } else {
        PyObject *tmp = tn_tensor_new_empty(t->ndim, sz, t->dtype, TN_DEVICE_CPU);
        PyObject *view = tmp ? tn_tensor_new_view(self, t->ndim, sz, st, t->offset) : NULL;
        if (view) {
            tn_rng_bernoulli_tensor_(g, tn_data(tn_tensor_of(tmp)), n, t->dtype, tn_data(tn_tensor_of(pcont)), pt->dtype);
            if (tn_copy_into(view, tmp) == 0) r = Py_NewRef(self);
        }
        Py_XDECREF(view);
        Py_XDECREF(tmp);
    }
    Py_DECREF(pcont);
    return r;
mismatch:
    PyErr_SetString(PyExc_RuntimeError, "bernoulli_: p must be broadcastable to self's shape");
    return NULL;
}

PyObject *tn_op_bernoulli__float(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    return g ? bernoulli_scalar(a[0].u.obj, tn_value_as_double(&a[1]), g) : NULL;
}
PyObject *tn_op_bernoulli__Tensor(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    return g ? bernoulli_tensor(a[0].u.obj, a[1].u.obj, g) : NULL;
}
PyObject *tn_op_bernoulli(tn_value *a) {
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    tn_tensor *t = TN_T(a[0]);
    if (!is_float(t->dtype) && !tn_door_on_meta() && tn_numel(t) != 0)
        return tn_kernel_missing("bernoulli_tensor_cpu_p_", t->dtype);
    PyObject *res = new_like(a[0].u.obj, t->dtype);
    TN_FILL_OR_FAIL(res, bernoulli_tensor(res, a[0].u.obj, g));
    return res;
}
PyObject *tn_op_bernoulli_out(tn_value *a) {
    tn_generator *g = gen_of(&a[1]);
    if (!g) return NULL;
    tn_tensor *t = TN_T(a[0]);
    PyObject *out = a[2].u.obj;
    if (tn_resize(out, t->ndim, t->sizes) < 0) return NULL;
    return bernoulli_tensor(out, a[0].u.obj, g);
}
PyObject *tn_op_bernoulli_p(tn_value *a) {
    tn_generator *g = gen_of(&a[2]);
    if (!g) return NULL;
    PyObject *res = new_like(a[0].u.obj, TN_T(a[0])->dtype);
    TN_FILL_OR_FAIL(res, bernoulli_scalar(res, tn_value_as_double(&a[1]), g));
    return res;
}

/* ---------------------------------------------------------------- multinomial */

static PyObject *multinomial_impl(tn_value *a, PyObject *out) {
    tn_generator *g = gen_of(&a[3]);
    if (!g) return NULL;
    tn_tensor *t = TN_T(a[0]);
    int64_t ns = a[1].u.i;
    bool repl = a[2].u.i != 0;
    if (tn_door_on_meta()) { /* the meta kernel checks the dims only */
        if (t->ndim != 1 && t->ndim != 2) {
            PyErr_Format(PyExc_RuntimeError, "The probability distributions dimensions must be 1 or 2, but got %d", t->ndim);
            return NULL;
        }
        int64_t msz[2] = {t->sizes[0], ns};
        PyObject *res = tn_tensor_new_empty(t->ndim, t->ndim == 1 ? &msz[1] : msz, TN_DTYPE_I64, TN_DEVICE_CPU);
        if (!res || !out) return res;
        tn_tensor *r = tn_tensor_of(res);
        int rc = tn_out_prepare(out, r->ndim, r->sizes, TN_DTYPE_I64, "multinomial");
        Py_DECREF(res);
        return rc < 0 ? NULL : Py_NewRef(out);
    }
    /* upstream's order (measured): the rank, the input dtype, out='s dtype, the sample count */
    if (t->ndim != 1 && t->ndim != 2) {
        PyErr_SetString(PyExc_RuntimeError, "prob_dist must be 1 or 2 dim");
        return NULL;
    }
    /* upstream's check is isFloatingType, which the float8 formats pass: they fail at the first
     * kernel, aminmax's sanity check (n_sample 1 or no replacement) or multinomial's own (measured) */
    bool f8 = tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8;
    if (!is_float(t->dtype) && !f8) {
        PyErr_Format(PyExc_RuntimeError, "multinomial only supports floating-point dtypes for input, got: %s",
                     tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    if (out && tn_tensor_of(out)->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "multinomial expects Long tensor out, got: %s",
                     tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    if (ns <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "cannot sample n_sample <= 0 samples");
        return NULL;
    }
    int64_t ncat = t->sizes[t->ndim - 1], ndist = t->ndim == 2 ? t->sizes[0] : 1;
    if (!repl && ns > ncat) {
        PyErr_SetString(PyExc_RuntimeError, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
        return NULL;
    }
    if (ncat > (1LL << 24)) {
        PyErr_SetString(PyExc_RuntimeError, "number of categories cannot exceed 2^24");
        return NULL;
    }
    if (f8) return tn_kernel_missing(!repl || ns == 1 ? "aminmax_cpu" : "multinomial", t->dtype);
    PyObject *probs = tn_as_dtype(a[0].u.obj, t->dtype, true);
    PyObject *pd = probs ? tn_as_dtype(probs, TN_DTYPE_F64, true) : NULL;
    if (!pd) { Py_XDECREF(probs); return NULL; }
    const double *p = (const double *)tn_data(tn_tensor_of(pd));
    const char *err = NULL;
    for (int64_t r = 0; r < ndist && !err; r++) {
        double s = 0;
        bool neg = false, nonfinite = false;
        for (int64_t c = 0; c < ncat; c++) {
            double v = p[r * ncat + c];
            if (!isfinite(v)) nonfinite = true;
            else if (v < 0) neg = true;
            s += v;
        }
        if (!repl || ns == 1) {
            if (neg || nonfinite) err = "probability tensor contains either `inf`, `nan` or element < 0";
            else if (s == 0) err = "invalid multinomial distribution (sum of probabilities <= 0)";
        } else {
            if (nonfinite) err = "invalid multinomial distribution (encountering probability entry = infinity or NaN)";
            else if (neg) err = "invalid multinomial distribution (encountering probability entry < 0)";
            else if (!(s > 0)) err = "invalid multinomial distribution (sum of probabilities <= 0)";
        }
    }
    Py_DECREF(pd);
    if (err) { Py_DECREF(probs); PyErr_SetString(PyExc_RuntimeError, err); return NULL; }
    int64_t osz[2] = {ndist, ns};
    int ond = t->ndim;
    PyObject *res = ond == 1 ? tn_tensor_new_empty(1, &osz[1], TN_DTYPE_I64, TN_DEVICE_CPU)
                             : tn_tensor_new_empty(2, osz, TN_DTYPE_I64, TN_DEVICE_CPU);
    void *scratch = res ? malloc(tn_rng_multinomial_scratch_bytes(ndist, ncat, t->dtype) + 16) : NULL;
    if (!scratch) { Py_DECREF(probs); Py_XDECREF(res); if (res) PyErr_NoMemory(); return NULL; }
    tn_rng_multinomial(g, tn_data(tn_tensor_of(probs)), t->dtype, ndist, ncat, ns, repl,
                       (int64_t *)tn_data(tn_tensor_of(res)), scratch);
    free(scratch);
    Py_DECREF(probs);
    if (out) {
        tn_tensor *r = tn_tensor_of(res);
        if (tn_out_prepare(out, r->ndim, r->sizes, TN_DTYPE_I64, "multinomial") < 0 || tn_copy_into(out, res) < 0) {
            Py_DECREF(res);
            return NULL;
        }
        Py_DECREF(res);
        return Py_NewRef(out);
    }
    return res;
}

PyObject *tn_op_multinomial(tn_value *a) { return multinomial_impl(a, NULL); }
PyObject *tn_op_multinomial_out(tn_value *a) { return multinomial_impl(a, a[4].u.obj); }

/* ---------------------------------------------------------------- rand / randn */

/* igen: index of the generator (-1 none); idt/idev: dtype/device indices (-1 none); iout. */
static PyObject *rand_any(bool normal, tn_value *a, int igen, int idt, int idev, int iout) {
    tn_generator *g = gen_of(igen >= 0 ? &a[igen] : NULL);
    if (!g) return NULL;
    PyObject *res = factory(&a[0], idt >= 0 ? &a[idt] : NULL, idev >= 0 ? &a[idev] : NULL, tn_py.default_dtype,
                            iout >= 0 ? a[iout].u.obj : NULL);
    if (!res) return NULL;
    PyObject *r = normal ? normal_impl(res, 0, 1, g) : uniform_impl(res, 0, 1, g);
    Py_DECREF(res);
    return r;
}

PyObject *tn_op_rand(tn_value *a) { return rand_any(false, a, -1, 1, 3, -1); }
PyObject *tn_op_rand_generator(tn_value *a) { return rand_any(false, a, 1, 2, 4, -1); }
PyObject *tn_op_rand_out(tn_value *a) { return rand_any(false, a, -1, -1, -1, 1); }
PyObject *tn_op_rand_generator_out(tn_value *a) { return rand_any(false, a, 1, -1, -1, 2); }
PyObject *tn_op_randn(tn_value *a) { return rand_any(true, a, -1, 1, 3, -1); }
PyObject *tn_op_randn_generator(tn_value *a) { return rand_any(true, a, 1, 2, 4, -1); }
PyObject *tn_op_randn_out(tn_value *a) { return rand_any(true, a, -1, -1, -1, 1); }
PyObject *tn_op_randn_generator_out(tn_value *a) { return rand_any(true, a, 1, -1, -1, 2); }

static PyObject *rand_like_any(bool normal, tn_value *a, int igen, int idt) {
    tn_generator *g = gen_of(igen >= 0 ? &a[igen] : NULL);
    if (!g) return NULL;
    PyObject *res = like(&a[0], &a[idt]);
    if (!res) return NULL;
    PyObject *r = normal ? normal_impl(res, 0, 1, g) : uniform_impl(res, 0, 1, g);
    Py_DECREF(res);
    return r;
}

PyObject *tn_op_rand_like(tn_value *a) { return rand_like_any(false, a, -1, 1); }
PyObject *tn_op_rand_like_generator(tn_value *a) { return rand_like_any(false, a, 1, 2); }
PyObject *tn_op_randn_like(tn_value *a) { return rand_like_any(true, a, -1, 1); }
PyObject *tn_op_randn_like_generator(tn_value *a) { return rand_like_any(true, a, 1, 2); }

/* ---------------------------------------------------------------- randint */

/* low/high values, size at isize, generator igen, dtype idt, device idev, out iout. */
static PyObject *randint_any(tn_value *a, int64_t low, int64_t high, int isize, int igen, int idt, int idev, int iout) {
    tn_generator *g = gen_of(igen >= 0 ? &a[igen] : NULL);
    if (!g) return NULL;
    PyObject *res = factory(&a[isize], idt >= 0 ? &a[idt] : NULL, idev >= 0 ? &a[idev] : NULL, TN_DTYPE_I64,
                            iout >= 0 ? a[iout].u.obj : NULL);
    if (!res) return NULL;
    /* the generator overloads on the meta device check no bounds (their meta kernel); the others
     * keep random_'s check (measured: docs/breadth_more2.md "Fuzz corpus: calls upstream runs,
     * fourth pass") */
    if (igen >= 0 && iout < 0 && tn_tensor_of(res)->storage->device == TN_DEVICE_META) return res;
    PyObject *r = random_from_to(res, low, true, high, g);
    Py_DECREF(res);
    return r;
}

PyObject *tn_op_randint(tn_value *a) { return randint_any(a, 0, a[0].u.i, 1, -1, 2, 4, -1); }
PyObject *tn_op_randint_generator(tn_value *a) { return randint_any(a, 0, a[0].u.i, 1, 2, 3, 5, -1); }
PyObject *tn_op_randint_low(tn_value *a) { return randint_any(a, a[0].u.i, a[1].u.i, 2, -1, 3, 5, -1); }
PyObject *tn_op_randint_low_generator(tn_value *a) { return randint_any(a, a[0].u.i, a[1].u.i, 2, 3, 4, 6, -1); }
PyObject *tn_op_randint_out(tn_value *a) { return randint_any(a, 0, a[0].u.i, 1, -1, -1, -1, 2); }
PyObject *tn_op_randint_generator_out(tn_value *a) { return randint_any(a, 0, a[0].u.i, 1, 2, -1, -1, 3); }
PyObject *tn_op_randint_low_out(tn_value *a) { return randint_any(a, a[0].u.i, a[1].u.i, 2, -1, -1, -1, 3); }
PyObject *tn_op_randint_low_generator_out(tn_value *a) { return randint_any(a, a[0].u.i, a[1].u.i, 2, 3, -1, -1, 4); }

static PyObject *randint_like_any(tn_value *a, int64_t low, int64_t high, int igen, int idt) {
    tn_generator *g = gen_of(igen >= 0 ? &a[igen] : NULL);
    if (!g) return NULL;
    PyObject *res = like(&a[0], &a[idt]);
    if (!res) return NULL;
    PyObject *r = random_from_to(res, low, true, high, g);
    Py_DECREF(res);
    return r;
}

void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);   /* ops/create.c */

/* upstream's high.item<int64_t>() after its scalar / CPU check: any dtype, a float truncated,
 * NaN / out of range / a nonzero imaginary part refused by Scalar::to's overflow check */
static int tensor_int(const tn_value *v, int64_t *out) {
    tn_tensor *t = TN_T(*v);
    if (t->ndim != 0 || t->storage->device != TN_DEVICE_CPU) {
        PyErr_SetString(PyExc_RuntimeError, "high must be a scalar tensor and on CPU");
        return -1;
    }
    tn_value s;
    tn_cr_load(tn_data(t), t->dtype, &s);
    if (tn_cr_check_scalar(&s, TN_DTYPE_I64) < 0) return -1;
    *out = s.tag == TN_V_FLOAT ? (int64_t)s.u.f : s.tag == TN_V_COMPLEX ? (int64_t)s.u.c.re : s.u.i;
    return 0;
}

PyObject *tn_op_randint_like(tn_value *a) { return randint_like_any(a, 0, a[1].u.i, -1, 2); }
PyObject *tn_op_randint_like_generator(tn_value *a) { return randint_like_any(a, 0, a[1].u.i, 2, 3); }
PyObject *tn_op_randint_like_Tensor(tn_value *a) {
    int64_t h;
    return tensor_int(&a[1], &h) < 0 ? NULL : randint_like_any(a, 0, h, -1, 2);
}
PyObject *tn_op_randint_like_Tensor_generator(tn_value *a) {
    int64_t h;
    return tensor_int(&a[1], &h) < 0 ? NULL : randint_like_any(a, 0, h, 2, 3);
}
PyObject *tn_op_randint_like_low_dtype(tn_value *a) { return randint_like_any(a, a[1].u.i, a[2].u.i, -1, 3); }
PyObject *tn_op_randint_like_low_generator_dtype(tn_value *a) { return randint_like_any(a, a[1].u.i, a[2].u.i, 3, 4); }

/* ---------------------------------------------------------------- randperm */

static PyObject *randperm_any(tn_value *a, int igen, int idt, int idev, int iout) {
    tn_generator *g = gen_of(igen >= 0 ? &a[igen] : NULL);
    if (!g) return NULL;
    int64_t n = a[0].u.i;
    tn_value size;
    memset(&size, 0, sizeof size);
    size.tag = TN_V_INTLIST;
    size.u.ints.v = &n;
    size.u.ints.n = 1;
    tn_dtype dt = iout >= 0 ? tn_tensor_of(a[iout].u.obj)->dtype : idt >= 0 && a[idt].tag == TN_V_DTYPE ? a[idt].u.dtype : TN_DTYPE_I64;
    if (n >= 0) {
        const char *cname = dt == TN_DTYPE_I8 ? "int8_t" : dt == TN_DTYPE_U8 ? "uint8_t" : dt == TN_DTYPE_I16 ? "int16_t"
                          : dt == TN_DTYPE_I32 ? "int32_t" : NULL;
        int64_t max = dt == TN_DTYPE_I8 ? 127 : dt == TN_DTYPE_U8 ? 255 : dt == TN_DTYPE_I16 ? 32767 : INT32_MAX;
        if (dt == TN_DTYPE_BOOL || tn_dtype_is_complex(dt) || !tn_dtype_computable(dt)) return tn_kernel_missing("randperm", dt);
        if (cname && n > 0 && n - 1 > max) {
            PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without overflow", cname);
            return NULL;
        }
        if (dt == TN_DTYPE_F16 && n > 2049) {
            PyErr_SetString(PyExc_RuntimeError, "n cannot be greater than 2049 for Half type.");
            return NULL;
        }
    }
    PyObject *res = factory(&size, idt >= 0 ? &a[idt] : NULL, idev >= 0 ? &a[idev] : NULL, TN_DTYPE_I64,
                            iout >= 0 ? a[iout].u.obj : NULL);
    if (!res) return NULL;
    tn_tensor *t = tn_tensor_of(res);
    if (n > 0 && t->storage->device != TN_DEVICE_META) {
        tn_rng_randperm(g, tn_data(t), n, dt);
        t->storage->version++;
    }
    return res;
}

PyObject *tn_op_randperm(tn_value *a) { return randperm_any(a, -1, 1, 3, -1); }
PyObject *tn_op_randperm_generator(tn_value *a) { return randperm_any(a, 1, 2, 4, -1); }
PyObject *tn_op_randperm_out(tn_value *a) { return randperm_any(a, -1, -1, -1, 1); }
PyObject *tn_op_randperm_generator_out(tn_value *a) { return randperm_any(a, 1, -1, -1, 2); }
