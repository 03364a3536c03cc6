/* qtensor.c — quantized tensors (upstream's QTensorImpl with a per-tensor or per-channel affine
 * quantizer; qtensor.def, docs/quant_tensors.md). A quantized tensor is the ordinary tensor object
 * whose `t` holds the integers under the quantized dtype and whose `quant` field is the quantizer
 * (core/object.h). The door sends a call with one among its arguments here (tn_quant_call, only
 * while any lives): the rows below, geometry queries and views of per-tensor ones run; anything
 * else raises upstream's NotImplementedError for the QuantizedCPU backend. Kernels:
 * kernels/ref/fakequant.c (quantize: fmaf(x, 1 / scale, zp) rounded half to even, as upstream's
 * FMA build; dequantize in float per tensor, in double per channel). */
#include "ops/qtensor.h"
#include "core/profiler.h"

#include "ops/fakequant.h"
#include "ops/qlinear.h"
#include "ops/qops.h"
#include "ops/common.h"
#include "ops/pad.h"
#include "core/iter.h"
#include "kernels/fakequant.h"
#include "tn_aten_gen.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);   /* ops/create.c */

enum { QS_PER_TENSOR = 0, QS_PER_CHANNEL = 1 };


static bool is_qdtype(tn_dtype d) { return d == TN_DTYPE_QU8 || d == TN_DTYPE_QI8 || d == TN_DTYPE_QI32; }
static tn_dtype underlying(tn_dtype d) {
    return d == TN_DTYPE_QI8 ? TN_DTYPE_I8 : d == TN_DTYPE_QI32 ? TN_DTYPE_I32 : TN_DTYPE_U8;
}
static tn_dtype quantized_of(tn_dtype d) {
    return d == TN_DTYPE_I8 ? TN_DTYPE_QI8 : d == TN_DTYPE_I32 ? TN_DTYPE_QI32 : d == TN_DTYPE_U8 ? TN_DTYPE_QU8 : TN_DTYPE_UNDEFINED;
}
static void qrange(tn_dtype d, int64_t *lo, int64_t *hi) {
    if (d == TN_DTYPE_QI8) { *lo = -128; *hi = 127; }
    else if (d == TN_DTYPE_QI32) { *lo = INT32_MIN; *hi = INT32_MAX; }
    else { *lo = 0; *hi = 255; }
}

static PyObject *as_tuple(PyObject *list) {
    PyObject *t = list ? PyList_AsTuple(list) : NULL;
    Py_XDECREF(list);
    return t;
}

/* upstream's TORCH_WARN_ONCE on creating a quantized tensor */
static int warn_deprecated(void) {
    static bool warned;
    if (warned) return 0;
    warned = true;
    return PyErr_WarnEx(PyExc_UserWarning, "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor "
                        "creation functions that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are "
                        "deprecated and will be removed in a future PyTorch release. Please see "
                        "https://github.com/pytorch/pytorch/issues/184982 for more information. (Triggered internally at "
                        "/__w/pytorch/pytorch/aten/src/ATen/quantized/Quantizer.cpp:111.)", 1);
}

/* upstream's suggest_memory_format as a memory format object (borrowed) */
static PyObject *suggested_format(const tn_tensor *t) {
    int sf = tn_suggest_format(t);
    return sf == 2 ? tn_py.memory_format_channels_last : sf == 3 ? tn_py.memory_format_channels_last_3d
                                                                 : tn_py.memory_format_contiguous;
}

/* an empty quantized tensor of dtype qd with quantizer q, laid out in memory format mf (NULL or
 * None: contiguous) */
static PyObject *new_qtensor(int nd, const int64_t *sizes, tn_dtype qd, const tn_qparams *q, PyObject *mf) {
    if (!is_qdtype(qd)) {
        if (qd == TN_DTYPE_QU4X2 || qd == TN_DTYPE_QU2X4)
            return tn_not_implemented("quantized tensors of dtype torch.quint4x2 / torch.quint2x4");
        PyErr_Format(PyExc_RuntimeError, "ScalarType %s is not supported in new_qtensor.", tn_dtype_cpp_name(qd));
        return NULL;
    }
    if (mf == tn_py.memory_format_preserve) return tn_fq_error("unsupported memory format Preserve");
    if (warn_deprecated() < 0) return NULL;
    bool dense = !mf || mf == Py_None || mf == tn_py.memory_format_contiguous;
    int hid = tn_prof_set_hidden(1);   /* upstream's new_qtensor is no profiler event */
    PyObject *r = dense ? tn_tensor_new_empty(nd, sizes, qd, TN_DEVICE_CPU)
                        : tn_at_empty_memory_format(TN_IN(sizes, nd), TN_DT(underlying(qd)), NULL, NULL, NULL, mf);
    tn_prof_set_hidden(hid);
    if (r) tn_tensor_of(r)->dtype = qd;   /* a fresh tensor: its integers under the quantized dtype */
    if (r && tn_quant_set(r, q) < 0) Py_CLEAR(r);
    return r;
}

/* the integers of a quantized tensor as a plain tensor of its underlying type (a fresh object
 * sharing the storage, no autograd base) */
PyObject *tn_quant_int_alias(PyObject *q) {
    tn_tensor t = *tn_tensor_of(q);
    t.dtype = underlying(t.dtype);
    tn_storage_incref(t.storage);
    return tn_tensor_wrap(&t);
}

static PyObject *qscheme_obj(int scheme) {
    static const char *const names[] = {"per_tensor_affine", "per_channel_affine"};
    PyObject *o = PyDict_GetItemString(tn_py_named_constants(), names[scheme]);
    return o ? Py_NewRef(o) : tn_not_implemented("qscheme");
}

static PyObject *cpu_backend(const char *name) {
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s' with arguments from the 'CPU' backend. This could "
                        "be because the operator doesn't exist for this backend, or was omitted during the selective/custom "
                        "build process (if using custom build).", name);
}
#define QPARAMS(obj, name)                                 \
    tn_qparams *Q = tn_quant_of(obj);                       \
    if (!Q) return cpu_backend(name)

/* ---- quantize ---- */

static int require_float(PyObject *self) {
    tn_dtype d = tn_tensor_of(self)->dtype;
    if (d == TN_DTYPE_F32) return 0;
    PyErr_Format(PyExc_RuntimeError, "Quantize only works on Float Tensor, got %s", tn_dtype_cpp_name(d));
    return -1;
}

/* upstream's zero point check of the quantize kernels */
static int zp_in_range(const char *kernel, tn_dtype qd, int64_t zp) {
    int64_t lo, hi;
    qrange(qd, &lo, &hi);
    if (zp >= lo && zp <= hi) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s zero_point %lld is %s bound.", kernel, (long long)zp, zp < lo ? "below lower" : "above upper");
    return -1;
}

static PyObject *quantize_tensor(PyObject *self, double scale, int64_t zp, tn_dtype qd) {
    const tn_tensor *x = tn_tensor_of(self);
    tn_qparams q = {QS_PER_TENSOR, scale, zp, NULL, NULL, 0};
    PyObject *r = new_qtensor(x->ndim, x->sizes, qd, &q, suggested_format(x));
    if (!r) return NULL;
    if (require_float(self) < 0 || zp_in_range("quantize_tensor_per_tensor_affine", qd, zp) < 0) { Py_DECREF(r); return NULL; }
    tn_q_params p = {qd, (float)scale, zp, 0, 0};
    qrange(qd, &p.qmin, &p.qmax);
    tn_iter it;
    tn_iter_init(&it, 2, x->ndim, x->sizes);
    tn_iter_set_tensor(&it, 0, tn_tensor_of(r));
    tn_iter_set_tensor(&it, 1, x);
    tn_iter_run_parallel(&it, tn_q_quantize_tensor, &p);
    return r;
}


/* On meta, upstream's Meta kernel of every quantize_per_tensor overload is a Python function
 * returning empty_like(input): self's dtype and strides, no check of scale, zero point or dtype
 * (measured: a float32 result for dtype=quint8 too); .tensors hands it the list
 * (docs/breadth_more2.md "group meta (session 40)"). */
static PyObject *quantize_meta(PyObject *self) {
    if (tn_py_is_tensor(self)) return tn_at_empty_like(self, NULL, NULL, NULL, NULL, NULL);
    return PyErr_Format(PyExc_TypeError, "empty_like(): argument 'input' (position 1) must be Tensor, not list");
}

/* quantize_per_tensor(self, float scale, int zero_point, ScalarType dtype) */
PyObject *tn_op_quantize_per_tensor(tn_value *a) {
    if (tn_door_on_meta()) return quantize_meta(a[0].u.obj);
    return quantize_tensor(a[0].u.obj, a[1].u.f, a[2].u.i, a[3].u.dtype);
}

/* .tensor_qparams: scale.item() as float, zero_point.item() as int */
PyObject *tn_op_quantize_per_tensor_tensor_qparams(tn_value *a) {
    if (tn_door_on_meta()) return quantize_meta(a[0].u.obj);
    tn_value s, z;
    if (tn_fq_item(a[1].u.obj, &s) < 0 || tn_fq_item(a[2].u.obj, &z) < 0) return NULL;
    return quantize_tensor(a[0].u.obj, (float)tn_fq_num_f(&s), tn_fq_num_i(&z), a[3].u.dtype);
}

/* .tensors(tensors, scales, zero_points, dtype): element i with scales[i].item(), zero_points[i].item(),
 * one element after another as upstream's loop reads them (select()'s IndexError, item()'s
 * RuntimeError), zero_points[i] before scales[i] (measured) */
PyObject *tn_op_quantize_per_tensor_tensors(tn_value *a) {
    if (tn_door_on_meta()) return quantize_meta(a[0].u.obj);
    PyObject *ts = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(ts);
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        tn_value sv, zv;
        PyObject *zi = tn_at_select_int(a[2].u.obj, 0, i), *si = NULL, *r = NULL;
        if (zi && tn_fq_item(zi, &zv) == 0 && (si = tn_at_select_int(a[1].u.obj, 0, i)) && tn_fq_item(si, &sv) == 0)
            r = quantize_tensor(PyTuple_GetItem(ts, i), (float)tn_fq_num_f(&sv), tn_fq_num_i(&zv), a[3].u.dtype);
        Py_XDECREF(si);
        Py_XDECREF(zi);
        if (!r) Py_CLEAR(out);
        else PyList_SetItem(out, i, r);
    }
    return as_tuple(out);
}

/* quantize_per_tensor_dynamic(self, dtype, reduce_range): quant_utils' qparams from self's min / max */
PyObject *tn_op_quantize_per_tensor_dynamic(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_dtype qd = a[1].u.dtype;
    if (qd != TN_DTYPE_QU8 && qd != TN_DTYPE_QI8 && qd != TN_DTYPE_F16)
        return tn_fq_error("dtype must be one of torch.quint8, torch.qint8 or torch.float16");
    if (qd == TN_DTYPE_F16) return tn_not_implemented("aten::quantize_per_tensor_dynamic to float16");
    if (require_float(self) < 0) return NULL;
    PyObject *mn = tn_at_min(self), *mx = mn ? tn_at_max(self) : NULL;
    tn_value v1, v2;
    int rc = mx ? (tn_fq_item(mn, &v1) < 0 || tn_fq_item(mx, &v2) < 0 ? -1 : 0) : -1;
    Py_XDECREF(mn);
    Py_XDECREF(mx);
    if (rc < 0) return NULL;
    int64_t lo, hi;
    qrange(qd, &lo, &hi);
    double scale;
    int32_t zp;
    if (!tn_fq_choose_qparams((float)tn_fq_num_f(&v1), (float)tn_fq_num_f(&v2), (int32_t)lo, (int32_t)hi, false, a[2].u.i != 0, &scale, &zp))
        return tn_fq_error("In ChooseQuantizationParams, min should be less than or equal to max");
    return quantize_tensor(self, scale, zp, qd);
}



/* the per-channel quantizer: scales as float64, zero points as int64 (upstream's), checked */
static int channel_qparams(const tn_tensor *x, PyObject *scales, PyObject *zps, int64_t axis, tn_qparams *q) {
    const tn_tensor *s = tn_tensor_of(scales), *z = tn_tensor_of(zps);
    if (s->ndim != 1) { tn_fq_error("scale tensor must have dimension 1"); return -1; }
    if (z->ndim != 1) { tn_fq_error("zero_points tensor must have dimension 1"); return -1; }
    if (tn_numel(s) != tn_numel(z)) { tn_fq_error("number of elements in scales and zero_points must match"); return -1; }
    if (axis < 0 || axis >= x->ndim) {
        PyErr_Format(PyExc_RuntimeError, "Channel axis out of range in per channel affine quantization. Got: %lldExpected: [0, %d)",
                     (long long)axis, x->ndim);
        return -1;
    }
    if (tn_numel(s) != x->sizes[axis]) {
        PyErr_Format(PyExc_RuntimeError, "length of scales must equal to channel, expected %lld got, %lld",
                     (long long)x->sizes[axis], (long long)tn_numel(s));
        return -1;
    }
    q->scheme = QS_PER_CHANNEL;
    q->axis = axis;
    q->scales = tn_fq_to_dtype(scales, TN_DTYPE_F64);
    q->zero_points = q->scales ? tn_fq_to_dtype(zps, TN_DTYPE_I64) : NULL;
    if (!q->zero_points) { Py_XDECREF(q->scales); return -1; }
    return 0;
}

/* quantize_per_channel(self, scales, zero_points, axis, dtype) */
PyObject *tn_op_quantize_per_channel(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("quantize_per_channel"); /* upstream has no Meta kernel */
    PyObject *self = a[0].u.obj;
    const tn_tensor *x = tn_tensor_of(self);
    tn_qparams q = {0};
    if (channel_qparams(x, a[1].u.obj, a[2].u.obj, a[3].u.i, &q) < 0) return NULL;
    PyObject *r = new_qtensor(x->ndim, x->sizes, a[4].u.dtype, &q, suggested_format(x));
    if (r && require_float(self) < 0) Py_CLEAR(r);
    if (r && q.axis > 1 && tn_suggest_format(x)) {   /* the result is channels last (measured) */
        Py_CLEAR(r);
        tn_fq_error("If tensor is channels_last contig then per channel quantization is supported only for axis = 0 or 1.");
    }
    const tn_tensor *zt = tn_tensor_of(q.zero_points);
    for (int64_t i = 0; r && i < zt->sizes[0]; i++)
        if (zp_in_range("quantize_tensor_per_channel_affine", a[4].u.dtype, ((const int64_t *)tn_data(zt))[i * zt->strides[0]]) < 0) Py_CLEAR(r);
    if (r) {
        tn_q_params p = {a[4].u.dtype, 0, 0, 0, 0};
        qrange(p.qdtype, &p.qmin, &p.qmax);
        tn_tensor sv = tn_fq_along_axis(tn_tensor_of(q.scales), x->ndim, (int)q.axis), zv = tn_fq_along_axis(tn_tensor_of(q.zero_points), x->ndim, (int)q.axis);
        tn_iter it;
        tn_iter_init(&it, 4, x->ndim, x->sizes);
        tn_iter_set_tensor(&it, 0, tn_tensor_of(r));
        tn_iter_set_tensor(&it, 1, x);
        tn_iter_set_tensor(&it, 2, &sv);
        tn_iter_set_tensor(&it, 3, &zv);
        tn_iter_run_parallel(&it, tn_q_quantize_channel, &p);
    }
    Py_DECREF(q.scales);
    Py_DECREF(q.zero_points);
    return r;
}

/* ---- dequantize, int_repr, the quantizer's fields ---- */

/* the result is laid out in the input's suggest_memory_format, as upstream's quantizers allocate
 * it: a channels-last (3d) input keeps its strides, any other layout gives a contiguous result */
static PyObject *dequantize(PyObject *self) {
    const tn_tensor *x = tn_tensor_of(self);
    tn_qparams *Q = tn_quant_of(self);
    if (!Q) return tn_fq_to_dtype(self, TN_DTYPE_F32);   /* upstream's dense kernel: self.to(float) */
    PyObject *r = tn_at_empty_memory_format(TN_IN(x->sizes, x->ndim), TN_DT(TN_DTYPE_F32), NULL, NULL, NULL,
                                            suggested_format(x));
    if (!r) return NULL;
    tn_q_params p = {x->dtype, (float)Q->scale, Q->zero_point, 0, 0};
    tn_iter it;
    if (Q->scheme == QS_PER_TENSOR) {
        tn_iter_init(&it, 2, x->ndim, x->sizes);
        tn_iter_set_tensor(&it, 0, tn_tensor_of(r));
        tn_iter_set_tensor(&it, 1, x);
        tn_iter_run_parallel(&it, tn_q_dequantize_tensor, &p);
    } else {
        tn_tensor sv = tn_fq_along_axis(tn_tensor_of(Q->scales), x->ndim, (int)Q->axis), zv = tn_fq_along_axis(tn_tensor_of(Q->zero_points), x->ndim, (int)Q->axis);
        tn_iter_init(&it, 4, x->ndim, x->sizes);
        tn_iter_set_tensor(&it, 0, tn_tensor_of(r));
        tn_iter_set_tensor(&it, 1, x);
        tn_iter_set_tensor(&it, 2, &sv);
        tn_iter_set_tensor(&it, 3, &zv);
        tn_iter_run_parallel(&it, tn_q_dequantize_channel, &p);
    }
    return r;
}
PyObject *tn_op_dequantize_self(tn_value *a) {
    return dequantize(a[0].u.obj);
}

/* dequantize.tensors: every element must be quantized (upstream's QuantizedCPU-only kernel) */
PyObject *tn_op_dequantize_tensors(tn_value *a) {
    PyObject *ts = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(ts);
    if (n == 0) /* upstream's dispatcher: no tensor to pick its kernel by, and no fallback (measured) */
        return PyErr_Format(PyExc_NotImplementedError, "There were no tensor arguments to this function (e.g., you "
                            "passed an empty list of Tensors), but no fallback function is registered for schema "
                            "aten::dequantize.tensors.  This usually means that this function requires a non-empty "
                            "list of Tensors, or that you (the operator writer) forgot to register a fallback function.");
    for (Py_ssize_t i = 0; i < n; i++)
        if (!tn_quant_of(PyTuple_GetItem(ts, i))) return cpu_backend("dequantize.tensors");
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *r = dequantize(PyTuple_GetItem(ts, i));
        if (!r) Py_CLEAR(out);
        else PyList_SetItem(out, i, r);
    }
    return as_tuple(out);
}

PyObject *tn_op_int_repr(tn_value *a) {
    QPARAMS(a[0].u.obj, "int_repr");
    (void)Q;
    PyObject *v = tn_quant_int_alias(a[0].u.obj);
    PyObject *r = v ? tn_at_clone(v, suggested_format(tn_tensor_of(a[0].u.obj))) : NULL;
    Py_XDECREF(v);
    return r;
}

#define PER_TENSOR_ONLY if (Q->scheme != QS_PER_TENSOR) return tn_fq_check_failed("quantizer->qscheme() == kPerTensorAffine")
#define PER_CHANNEL_ONLY                                                                                           \
    if (Q->scheme != QS_PER_CHANNEL)                                                                               \
    return tn_fq_check_failed("quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() == "              \
                               "kPerChannelAffineFloatQParams")

PyObject *tn_op_q_scale(tn_value *a) { QPARAMS(a[0].u.obj, "q_scale"); PER_TENSOR_ONLY; return PyFloat_FromDouble(Q->scale); }
PyObject *tn_op_q_zero_point(tn_value *a) { QPARAMS(a[0].u.obj, "q_zero_point"); PER_TENSOR_ONLY; return PyLong_FromLongLong(Q->zero_point); }
PyObject *tn_op_q_per_channel_scales(tn_value *a) { QPARAMS(a[0].u.obj, "q_per_channel_scales"); PER_CHANNEL_ONLY; return Py_NewRef(Q->scales); }   /* the quantizer's own, as upstream's */
PyObject *tn_op_q_per_channel_zero_points(tn_value *a) { QPARAMS(a[0].u.obj, "q_per_channel_zero_points"); PER_CHANNEL_ONLY; return Py_NewRef(Q->zero_points); }
PyObject *tn_op_q_per_channel_axis(tn_value *a) { QPARAMS(a[0].u.obj, "q_per_channel_axis"); PER_CHANNEL_ONLY; return PyLong_FromLongLong(Q->axis); }
PyObject *tn_op_qscheme(tn_value *a) { QPARAMS(a[0].u.obj, "qscheme"); return qscheme_obj(Q->scheme); }

/* ---- making quantized tensors from integers ---- */

/* a copy of self's integers under the quantized dtype, with quantizer q, in memory format mf */
static PyObject *from_ints(PyObject *self, const tn_qparams *q, PyObject *mf) {
    const tn_tensor *x = tn_tensor_of(self);
    tn_dtype qd = quantized_of(x->dtype);
    if (qd == TN_DTYPE_UNDEFINED) return tn_fq_error("Creation of quantized tensor requires quantized dtype like torch.quint8");
    PyObject *r = new_qtensor(x->ndim, x->sizes, qd, q, mf);
    PyObject *v = r ? tn_quant_int_alias(r) : NULL;
    int rc = v ? tn_copy_into(v, self) : -1;
    Py_XDECREF(v);
    if (rc < 0) Py_CLEAR(r);
    return r;
}

PyObject *tn_op__make_per_tensor_quantized_tensor(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_make_per_tensor_quantized_tensor"); /* upstream has no Meta kernel */
    tn_qparams q = {QS_PER_TENSOR, a[1].u.f, a[2].u.i, NULL, NULL, 0};
    return from_ints(a[0].u.obj, &q, suggested_format(tn_tensor_of(a[0].u.obj)));   /* measured */
}

PyObject *tn_op__make_per_channel_quantized_tensor(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_make_per_channel_quantized_tensor"); /* upstream has no Meta kernel */
    tn_qparams q = {0};
    if (channel_qparams(tn_tensor_of(a[0].u.obj), a[1].u.obj, a[2].u.obj, a[3].u.i, &q) < 0) return NULL;
    PyObject *r = from_ints(a[0].u.obj, &q, NULL);   /* contiguous whatever self's layout (measured) */
    Py_DECREF(q.scales);
    Py_DECREF(q.zero_points);
    return r;
}

/* the dtype of an _empty_*_quantized factory: given, else the default dtype, which must be a
 * quantized one (upstream checks it first: a float default refuses) */
static tn_dtype empty_qdtype(const tn_value *dt) {
    tn_dtype d = tn_is_none(dt) ? tn_py.default_dtype : dt->u.dtype;
    if (tn_dtype_infos[d].kind != TN_KIND_QUANT) {
        tn_fq_error("Creation of quantized tensor requires quantized dtype like torch.quint8");
        return TN_DTYPE_UNDEFINED;
    }
    return d;
}

/* _empty_affine_quantized(size, *, dtype, layout, device, pin_memory, scale, zero_point, memory_format) */
PyObject *tn_op__empty_affine_quantized(tn_value *a) {
    tn_dtype qd = empty_qdtype(&a[1]);
    if (qd == TN_DTYPE_UNDEFINED) return NULL;
    tn_qparams q = {QS_PER_TENSOR, a[5].u.f, a[6].u.i, NULL, NULL, 0};
    for (int i = 0; i < a[0].u.ints.n; i++)
        if (a[0].u.ints.v[i] < 0) return tn_fq_error("Trying to create tensor with negative dimension");
    return new_qtensor(a[0].u.ints.n, a[0].u.ints.v, qd, &q, tn_is_none(&a[7]) ? NULL : a[7].u.obj);
}

/* _empty_per_channel_affine_quantized(size, *, scales, zero_points, axis, dtype, ...) */
PyObject *tn_op__empty_per_channel_affine_quantized(tn_value *a) {
    tn_dtype qd = empty_qdtype(&a[4]);
    if (qd == TN_DTYPE_UNDEFINED) return NULL;
    if (a[0].u.ints.n > TN_MAX_DIMS) return tn_fq_error("too many dimensions");
    tn_tensor shape = {0};
    shape.ndim = a[0].u.ints.n;
    memcpy(shape.sizes, a[0].u.ints.v, (size_t)shape.ndim * sizeof *shape.sizes);
    tn_qparams q = {0};
    if (channel_qparams(&shape, a[1].u.obj, a[2].u.obj, a[3].u.i, &q) < 0) return NULL;
    PyObject *r = new_qtensor(a[0].u.ints.n, a[0].u.ints.v, qd, &q, tn_is_none(&a[8]) ? NULL : a[8].u.obj);
    Py_DECREF(q.scales);
    Py_DECREF(q.zero_points);
    return r;
}

/* ---- the door's stage ---- */

static bool quant_value(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return tn_quant_of(v->u.obj) != NULL;
    if (v->tag == TN_V_TENSORLIST)
        for (Py_ssize_t k = 0; k < PyTuple_Size(v->u.obj); k++)
            if (tn_quant_of(PyTuple_GetItem(v->u.obj, k))) return true;
    return false;
}

bool tn_quant_among(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++)
        if (quant_value(&args[i])) return true;
    return false;
}

/* a result of a dense kernel on self's integers made quantized like self */
PyObject *tn_quant_like(PyObject *r, PyObject *self) {
    if (!r || !tn_py_is_tensor(r)) return r;
    tn_tensor_of(r)->dtype = tn_tensor_of(self)->dtype;
    if (tn_quant_set(r, tn_quant_of(self)) < 0) Py_CLEAR(r);
    return r;
}

/* clone(self, memory_format): the integers copied, the quantizer kept; contiguous unless a
 * format is asked for, preserve_format being self's suggest_memory_format (upstream's quantized
 * clone allocates with empty_quantized, measured) */
static PyObject *q_clone(int op, tn_value *a) {
    PyObject *v = tn_quant_int_alias(a[0].u.obj);
    PyObject *mf = tn_is_none(&a[1]) ? tn_py.memory_format_contiguous
                 : a[1].u.obj == tn_py.memory_format_preserve ? suggested_format(tn_tensor_of(a[0].u.obj)) : a[1].u.obj;
    PyObject *r = v ? tn_at_clone(v, mf) : NULL;
    Py_XDECREF(v);
    return tn_quant_like(r, a[0].u.obj);
}

/* relu / relu_ (per tensor): the integers clamped below at the zero point */
static PyObject *q_relu(int op, tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_qparams *Q = tn_quant_of(self);
    if (Q->scheme != QS_PER_TENSOR) return tn_fq_check_failed("quantizer->qscheme() == kPerTensorAffine");
    PyObject *v = tn_quant_int_alias(self), *r = NULL;
    if (!v) return NULL;
    if (op == TN_ROW_relu_) {
        PyObject *c = tn_at_clamp_min_(v, TN_SI(Q->zero_point));
        if (c) { Py_DECREF(c); tn_tensor_of(self)->storage->version++; r = Py_NewRef(self); }
    } else {
        r = tn_quant_like(tn_at_clamp_min(v, TN_SI(Q->zero_point)), self);
    }
    Py_DECREF(v);
    return r;
}

/* contiguous(self, memory_format): self when already so in that format, else a clone in it */
static PyObject *q_contiguous(int op, tn_value *a) {
    PyObject *self = a[0].u.obj;
    PyObject *mf = a[1].tag == TN_V_MEMFORMAT ? a[1].u.obj : tn_py.memory_format_contiguous;
    int fmt = tn_py_memformat_code(mf);
    if (fmt == 1 || tn_is_contiguous_as(tn_tensor_of(self), fmt)) return Py_NewRef(self);
    tn_value c[2] = {a[0], {.tag = TN_V_MEMFORMAT, .u.obj = mf}};
    return q_clone(op, c);
}

/* to(...) / _to_copy: a quantized tensor cannot become a float one (upstream's message); to its
 * own dtype it is itself */
static PyObject *q_to(int op, tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_schema *s = tn_op_schema(op);
    for (int i = 0; s && i < s->nargs; i++)
        if (a[i].tag == TN_V_DTYPE && a[i].u.dtype != tn_tensor_of(self)->dtype) {
            if (is_qdtype(a[i].u.dtype))
                return tn_fq_check_failed("self.scalar_type() == src.scalar_type()");
            return tn_fq_error("Creation of quantized tensor requires quantized dtype like torch.quint8");
        }
    return op == TN_ROW__to_copy ? q_clone(op, (tn_value[]){a[0], {.tag = TN_V_NONE}}) : Py_NewRef(self);
}

/* equal: same dtype, quantizer, sizes and integers */
static PyObject *q_equal(int op, tn_value *a) {
    PyObject *x = a[0].u.obj, *y = a[1].u.obj;
    tn_qparams *qx = tn_quant_of(x), *qy = tn_quant_of(y);
    const tn_tensor *tx = tn_tensor_of(x), *ty = tn_tensor_of(y);
    if (!qx || !qy || qx->scheme != qy->scheme || tx->dtype != ty->dtype || tx->ndim != ty->ndim ||
        memcmp(tx->sizes, ty->sizes, (size_t)tx->ndim * sizeof *tx->sizes))
        Py_RETURN_FALSE;
    PyObject *r = NULL;
    if (qx->scheme == QS_PER_TENSOR) {
        if (qx->scale != qy->scale || qx->zero_point != qy->zero_point) Py_RETURN_FALSE;
    } else {
        if (qx->axis != qy->axis) Py_RETURN_FALSE;
        r = tn_at_equal(qx->scales, qy->scales);
        if (r != Py_True) return r;
        Py_DECREF(r);
        if ((r = tn_at_equal(qx->zero_points, qy->zero_points)) != Py_True) return r;
        Py_DECREF(r);
    }
    PyObject *vx = tn_quant_int_alias(x), *vy = vx ? tn_quant_int_alias(y) : NULL;
    r = vy ? tn_at_equal(vx, vy) : NULL;
    Py_XDECREF(vx);
    Py_XDECREF(vy);
    return r;
}

/* eq: the dequantized values compared */
static PyObject *q_eq(int op, tn_value *a) {
    PyObject *x = dequantize(a[0].u.obj);
    if (!x) return NULL;
    PyObject *r;
    if (op == TN_ROW_eq_Tensor) {
        PyObject *y = tn_quant_of(a[1].u.obj) ? dequantize(a[1].u.obj) : Py_NewRef(a[1].u.obj);
        r = y ? tn_at_eq_Tensor(x, y) : NULL;
        Py_XDECREF(y);
    } else {
        r = tn_at_eq_Scalar(x, TN_SV(&a[1]));
    }
    Py_DECREF(x);
    return r;
}

PyObject *tn_quant_call(int op, tn_value *args) {
    const tn_op_def *d = tn_op_at(op);
    /* this family's rows, and the geometry queries upstream's Tensor answers for any backend */
    static const int own[] = {TN_ROW_dequantize_self, TN_ROW_dequantize_tensors, TN_ROW_int_repr, TN_ROW_q_scale,
                              TN_ROW_q_zero_point, TN_ROW_q_per_channel_scales, TN_ROW_q_per_channel_zero_points,
                              TN_ROW_q_per_channel_axis, TN_ROW_qscheme, TN_ROW_numel, TN_ROW_sym_numel, TN_ROW_dim,
                              TN_ROW_size_int, TN_ROW_sym_size_int, TN_ROW_stride_int, TN_ROW_storage_offset,
                              TN_ROW_is_contiguous, TN_ROW_is_contiguous_memory_format, TN_ROW_sym_is_contiguous,
                              TN_ROW_is_leaf, TN_ROW_output_nr, TN_ROW__version, TN_ROW_retains_grad, TN_ROW_requires_grad_,
                              TN_ROW_is_same_size, TN_ROW_set__source_Storage_storage_offset, TN_ROW_set__source_Storage,
                              TN_ROW_is_pinned};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
        if (own[i] == op) return d->fn(args);
    /* ops/qops.c: the ConvNet ops (hardtanh, max_pool2d, avg pools, cat, flatten, ...) */
    tn_op_fn qf = tn_qops_aten_fn(d->name, d->overload);
    if (qf) return qf(args);
    static const struct { int row; PyObject *(*fn)(int, tn_value *); } handlers[] = {
        {TN_ROW_clone, q_clone}, {TN_ROW_relu, q_relu}, {TN_ROW_relu_, q_relu}, {TN_ROW_contiguous, q_contiguous},
        {TN_ROW_to_dtype, q_to}, {TN_ROW_to_other, q_to}, {TN_ROW_to_device, q_to}, {TN_ROW_to_dtype_layout, q_to},
        {TN_ROW__to_copy, q_to}, {TN_ROW_equal, q_equal}, {TN_ROW_eq_Tensor, q_eq}, {TN_ROW_eq_Scalar, q_eq}};
    if (args[0].tag == TN_V_TENSOR && tn_quant_of(args[0].u.obj))
        for (size_t i = 0; i < sizeof handlers / sizeof *handlers; i++)
            if (handlers[i].row == op) return handlers[i].fn(op, args);
    /* arithmetic with a Python number: upstream's structured kernel fails allocating its output */
    static const int arith[] = {TN_ROW_add_Tensor, TN_ROW_sub_Tensor, TN_ROW_mul_Tensor, TN_ROW_div_Tensor};
    for (size_t i = 0; i < sizeof arith / sizeof *arith; i++)
        if (arith[i] == op && args[1].tag == TN_V_TENSOR && ((tn_tensor_obj *)args[1].u.obj)->wrapped_number)
            return tn_fq_error("empty_strided not supported on quantized tensors yet see https://github.com/pytorch/pytorch/issues/74540");
    /* views of a per-tensor quantized tensor keep its quantizer; of a per-channel one, those that
     * set strides fail as upstream's, the others (upstream moves or slices the axis) refuse by name */
    static const int views[] = {TN_ROW_detach, TN_ROW_alias, TN_ROW_view, TN_ROW_t, TN_ROW_transpose_int, TN_ROW_select_int,
                                TN_ROW_slice_Tensor, TN_ROW_permute, TN_ROW_unsqueeze, TN_ROW_squeeze_dim, TN_ROW_expand,
                                TN_ROW_as_strided, TN_ROW__reshape_alias};
    PyObject *self = args[0].tag == TN_V_TENSOR ? args[0].u.obj : NULL;
    tn_qparams *Q = self ? tn_quant_of(self) : NULL;
    for (size_t i = 0; i < sizeof views / sizeof *views; i++)
        if (views[i] == op && Q) {
            if (Q->scheme == QS_PER_TENSOR || op == TN_ROW_detach || op == TN_ROW_alias) return tn_quant_like(d->fn(args), self);
            if (op == TN_ROW_t || op == TN_ROW_transpose_int || op == TN_ROW_permute || op == TN_ROW_expand || op == TN_ROW_as_strided)
                return tn_fq_error("Setting strides is possible only on uniformly quantized tensor");
            char what[128];
            snprintf(what, sizeof what, "aten::%s%s%s of a per-channel quantized tensor", d->name, d->overload[0] ? "." : "", d->overload);
            return tn_not_implemented(what);
        }
    /* namespaced rows: those ops/qlinear.c implements (quantized::linear_prepack, ...), the
     * others refused by name */
    if (strstr(d->name, "::")) {
        tn_op_fn f = tn_qlinear_op_fn(d->name, d->overload);
        return f ? f(args) : tn_refuse_op(op);
    }
    return PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s%s%s' with arguments from the 'QuantizedCPU' backend. "
                        "This could be because the operator doesn't exist for this backend, or was omitted during the "
                        "selective/custom build process (if using custom build).", d->name, d->overload[0] ? "." : "", d->overload);
}
