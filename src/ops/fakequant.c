/* fakequant.c — fake quantization, the float ops of quantization-aware training (fakequant.def;
 * docs/quant_tensors.md): upstream's ATen/native/quantized/FakeQuantPerTensorAffine.cpp,
 * FakeQuantPerChannelAffine.cpp, FusedObsFakeQuant.cpp and QTensor.cpp's qparams choice, with
 * their checks and messages in their order. Kernels in kernels/ref/fakequant.c; the
 * CompositeImplicitAutograd rows (fake_quantize_per_tensor_affine, the cachemask backwards,
 * fused_moving_avg_obs_fake_quant, _choose_qparams_per_tensor) are also autograd/decomp.c's named
 * decompositions, so they decompose while recording or under a dispatch mode. Backward comes from
 * derivatives.yaml (the generated formulas call the cachemask backwards and the learnable
 * backward rows). */

#include "ops/fakequant.h"
#include "ops/common.h"
#include "core/iter.h"
#include "kernels/fakequant.h"
#include "tn_aten_gen.h"

#include <math.h>
#include <string.h>

void tn_cr_load(const char *p, tn_dtype dt, tn_value *v);   /* ops/create.c */
void tn_cr_store(char *p, tn_dtype dt, const tn_value *v);


/* ---- helpers shared with ops/qtensor.c (ops/fakequant.h) ---- */

PyObject *tn_fq_error(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return NULL;
}

/* upstream's TORCH_CHECK(cond) without a message */
PyObject *tn_fq_check_failed(const char *cond) {
    PyErr_Format(PyExc_RuntimeError, "Expected %s to be true, but got false.  (Could this error message be "
                 "improved?  If so, please report an enhancement request to PyTorch.)", cond);
    return NULL;
}

/* A one-element tensor's value as a number (Tensor.item()): upstream's message otherwise. */
int tn_fq_item(PyObject *t, tn_value *v) {
    const tn_tensor *x = tn_tensor_of(t);
    int64_t n = tn_numel(x);
    if (n != 1) {
        PyErr_Format(PyExc_RuntimeError, "a Tensor with %lld elements cannot be converted to Scalar", (long long)n);
        return -1;
    }
    tn_cr_load(tn_data(x), x->dtype, v);
    return 0;
}

PyObject *tn_fq_to_dtype(PyObject *t, tn_dtype dt) {
    PyObject *d = tn_py_from_dtype(dt);
    PyObject *r = d ? tn_at_to_dtype(t, d, false, false, NULL) : NULL;
    Py_XDECREF(d);
    return r;
}

#define QMIN_MAX_MSG "`quant_min` should be less than or         equal to `quant_max`."
#define ZP_RANGE_MSG "`zero_point` must be between `quant_min` and `quant_max`."

/* t[0].item(): upstream indexes the first element of dim 0 before reading it */
static int first_item(PyObject *t, tn_value *v) {
    const tn_tensor *x = tn_tensor_of(t);
    if (x->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                        "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
        return -1;
    }
    if (x->sizes[0] == 0) {
        PyErr_Format(PyExc_IndexError, "index 0 is out of bounds for dimension 0 with size 0");
        return -1;
    }
    int64_t n = 1;
    for (int i = 1; i < x->ndim; i++) n *= x->sizes[i];
    if (n != 1) {
        PyErr_Format(PyExc_RuntimeError, "a Tensor with %lld elements cannot be converted to Scalar", (long long)n);
        return -1;
    }
    tn_cr_load(tn_data(x), x->dtype, v);
    return 0;
}

static PyObject *empty_like(PyObject *self, tn_dtype dt) {
    PyObject *d = tn_py_from_dtype(dt);
    PyObject *r = d ? tn_at_empty_like(self, d, NULL, NULL, NULL, NULL) : NULL;
    Py_XDECREF(d);
    return r;
}

/* ---- per tensor ---- */

/* Y, mask = empty_like(self) x2; the per-tensor kernel over them */
static PyObject *per_tensor(PyObject *self, const tn_fq_params *p, const char *ret) {
    const tn_tensor *x = tn_tensor_of(self);
    PyObject *y = empty_like(self, x->dtype);
    PyObject *m = y ? empty_like(self, TN_DTYPE_BOOL) : NULL;
    if (!m) { Py_XDECREF(y); return NULL; }
    tn_loop loop = tn_fq_tensor_loop(x->dtype);
    if (!loop) {
        Py_DECREF(y); Py_DECREF(m);
        return tn_kernel_missing("fake_quantize_tensor_cachemask_kernel_type_handling", x->dtype);
    }
    tn_iter it;
    tn_iter_init(&it, 3, x->ndim, x->sizes);
    tn_iter_set_tensor(&it, 0, tn_tensor_of(y));
    tn_iter_set_tensor(&it, 1, tn_tensor_of(m));
    tn_iter_set_tensor(&it, 2, x);
    tn_iter_run_parallel(&it, loop, p);
    return tn_return_pair(ret, y, m);
}

static tn_fq_params tensor_params(double scale, int64_t zp, int64_t qmin, int64_t qmax, bool on) {
    tn_fq_params p = {0};
    p.scale = (float)scale;
    p.inv_scale = 1.0f / p.scale;
    p.zero_point = zp;
    p.qmin = qmin;
    p.qmax = qmax;
    p.on = on;
    return p;
}

static PyObject *cachemask(PyObject *self, double scale, int64_t zp, int64_t qmin, int64_t qmax) {
    if (qmin > qmax) return tn_fq_error(QMIN_MAX_MSG);
    if (zp < qmin || zp > qmax) return tn_fq_error(ZP_RANGE_MSG);
    tn_fq_params p = tensor_params(scale, zp, qmin, qmax, true);
    return per_tensor(self, &p, "fake_quantize_per_tensor_affine_cachemask");
}

/* fake_quantize_per_tensor_affine_cachemask(self, float scale, int zero_point, int quant_min, int quant_max) */
PyObject *tn_op_fake_quantize_per_tensor_affine_cachemask(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("fake_quantize_per_tensor_affine_cachemask"); /* upstream has no Meta kernel */
    return cachemask(a[0].u.obj, a[1].u.f, a[2].u.i, a[3].u.i, a[4].u.i);
}

/* _fake_quantize_per_tensor_affine_cachemask_tensor_qparams(self, scale, zero_point,
 * fake_quant_enabled, quant_min, quant_max): the qparams read with .item() (zero point, then
 * scale, then the switch: the order upstream's compiled call evaluates them), no range check */
PyObject *tn_op__fake_quantize_per_tensor_affine_cachemask_tensor_qparams(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_fake_quantize_per_tensor_affine_cachemask_tensor_qparams"); /* upstream has no Meta kernel */
    if (a[4].u.i > a[5].u.i) return tn_fq_error(QMIN_MAX_MSG);
    tn_value zp, sc, on;
    if (tn_fq_item(a[2].u.obj, &zp) < 0 || tn_fq_item(a[1].u.obj, &sc) < 0 || tn_fq_item(a[3].u.obj, &on) < 0) return NULL;
    tn_fq_params p = tensor_params((float)tn_fq_num_f(&sc), tn_fq_num_i(&zp), a[4].u.i, a[5].u.i, tn_fq_num_i(&on) != 0);
    return per_tensor(a[0].u.obj, &p, "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams");
}

static PyObject *first_of_pair(PyObject *r) {
    if (!r) return NULL;
    PyObject *o = PySequence_GetItem(r, 0);
    Py_DECREF(r);
    return o;
}

/* fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max): the cachemask op's output */
PyObject *tn_op_fake_quantize_per_tensor_affine(tn_value *a) {
    return first_of_pair(tn_at_fake_quantize_per_tensor_affine_cachemask(a[0].u.obj, a[1].u.f, a[2].u.i, a[3].u.i, a[4].u.i));
}
/* .tensor_qparams: the tensor-qparams cachemask op with fake_quant_enabled = ones(1, long) */
PyObject *tn_op_fake_quantize_per_tensor_affine_tensor_qparams(tn_value *a) {
    PyObject *dt = tn_py_from_dtype(TN_DTYPE_I64);
    PyObject *on = dt ? tn_at_ones(TN_IS(1), dt, NULL, NULL, NULL) : NULL;
    Py_XDECREF(dt);
    if (!on) return NULL;
    PyObject *r = tn_at__fake_quantize_per_tensor_affine_cachemask_tensor_qparams(a[0].u.obj, a[1].u.obj, a[2].u.obj, on,
                                                                                 a[3].u.i, a[4].u.i);
    Py_DECREF(on);
    return first_of_pair(r);
}

/* fake_quantize_per_{tensor,channel}_affine_cachemask_backward(grad, mask): grad * mask */
static PyObject *cachemask_backward(tn_value *a) {
    const tn_tensor *g = tn_tensor_of(a[0].u.obj), *m = tn_tensor_of(a[1].u.obj);
    if (m->dtype != TN_DTYPE_BOOL) return tn_fq_check_failed("mask.scalar_type() == ScalarType::Bool");
    if (tn_numel(m) != tn_numel(g)) {
        PyErr_Format(PyExc_RuntimeError, "`mask` and `dY` are not the same size: `mask` is size %lld and `dY` is size %lld",
                     (long long)tn_numel(m), (long long)tn_numel(g));
        return NULL;
    }
    if (tn_numel(g) <= 0) return Py_NewRef(a[0].u.obj);
    return tn_at_mul_Tensor(a[0].u.obj, a[1].u.obj);
}
PyObject *tn_op_fake_quantize_per_tensor_affine_cachemask_backward(tn_value *a) { return cachemask_backward(a); }
PyObject *tn_op_fake_quantize_per_channel_affine_cachemask_backward(tn_value *a) { return cachemask_backward(a); }

/* ---- per channel ---- */


static PyObject *channel_cachemask(PyObject *self, PyObject *scale, PyObject *zp, int64_t axis, int64_t qmin, int64_t qmax) {
    const tn_tensor *x = tn_tensor_of(self), *s = tn_tensor_of(scale), *z = tn_tensor_of(zp);
    if (s->dtype != TN_DTYPE_F32 && s->dtype != TN_DTYPE_BF16) {
        PyErr_Format(PyExc_RuntimeError, "Scale must be Float or BFloat16, found %s", tn_dtype_cpp_name(s->dtype));
        return NULL;
    }
    if (z->dtype != TN_DTYPE_I32 && z->dtype != TN_DTYPE_F32 && z->dtype != TN_DTYPE_F16) {
        PyErr_Format(PyExc_RuntimeError, "Zero-point must be Int32, Float or Half, found %s", tn_dtype_cpp_name(z->dtype));
        return NULL;
    }
    if (s->ndim != 1) return tn_fq_error("scale should be a 1-D tensor");
    if (z->ndim != 1) return tn_fq_error("zero point should be a 1-D tensor");
    if (tn_numel(s) != tn_numel(z)) return tn_fq_error("scale and zero-point need to have the same dimensions");
    int64_t d;
    if (tn_wrap_dim(axis, x->ndim, &d) < 0) return NULL;
    if (tn_numel(s) != x->sizes[d]) return tn_fq_error("dimensions of scale and zero-point are not consistent with input tensor");
    if (qmin > qmax) return tn_fq_error(QMIN_MAX_MSG);
    if (z->dtype == TN_DTYPE_I32) {
        const char *base = tn_data(z);
        for (int64_t i = 0; i < z->sizes[0]; i++) {
            int32_t v = *(const int32_t *)(base + i * z->strides[0] * 4);
            if (v < qmin || v > qmax) return tn_fq_error(ZP_RANGE_MSG);
        }
    }
    if (axis < 0 || axis > x->ndim) return tn_fq_error("`axis` must be between 0 and number of dimensions of input");
    if (s->dtype == TN_DTYPE_BF16)   /* upstream's kernel reads a bf16 scale as float (out of bounds) */
        return tn_not_implemented("aten::fake_quantize_per_channel_affine_cachemask with a bfloat16 scale");
    PyObject *y = empty_like(self, x->dtype);
    PyObject *m = y ? empty_like(self, TN_DTYPE_BOOL) : NULL;
    if (!m) { Py_XDECREF(y); return NULL; }
    tn_loop loop = tn_fq_channel_loop(x->dtype);
    if (!loop) {
        Py_DECREF(y); Py_DECREF(m);
        return tn_kernel_missing("fake_quantize_channel_cachemask_cpu_type_handling", x->dtype);
    }
    tn_fq_params p = {0};
    p.qmin = qmin;
    p.qmax = qmax;
    p.zp_dtype = z->dtype;
    tn_tensor sv = tn_fq_along_axis(s, x->ndim, (int)axis), zv = tn_fq_along_axis(z, x->ndim, (int)axis);
    tn_iter it;
    tn_iter_init(&it, 5, x->ndim, x->sizes);
    tn_iter_set_tensor(&it, 0, tn_tensor_of(y));
    tn_iter_set_tensor(&it, 1, tn_tensor_of(m));
    tn_iter_set_tensor(&it, 2, x);
    tn_iter_set_tensor(&it, 3, &sv);
    tn_iter_set_tensor(&it, 4, &zv);
    tn_iter_run_parallel(&it, loop, &p);
    return tn_return_pair("fake_quantize_per_channel_affine_cachemask", y, m);
}

/* fake_quantize_per_channel_affine_cachemask(self, scale, zero_point, axis, quant_min, quant_max) */
PyObject *tn_op_fake_quantize_per_channel_affine_cachemask(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("fake_quantize_per_channel_affine_cachemask"); /* upstream has no Meta kernel */
    return channel_cachemask(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.i, a[4].u.i, a[5].u.i);
}
/* fake_quantize_per_channel_affine: the cachemask op's output */
PyObject *tn_op_fake_quantize_per_channel_affine(tn_value *a) {
    return first_of_pair(tn_at_fake_quantize_per_channel_affine_cachemask(a[0].u.obj, a[1].u.obj, a[2].u.obj,
                                                                           a[3].u.i, a[4].u.i, a[5].u.i));
}

/* ---- learnable (LSQ-style) fake quantization ---- */

/* _fake_quantize_learnable_per_tensor_affine(self, scale, zero_point, quant_min, quant_max,
 * grad_factor): scale[0], zero_point[0] rounded (nearbyint) and clamped, then the cachemask op */
PyObject *tn_op__fake_quantize_learnable_per_tensor_affine(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_fake_quantize_learnable_per_tensor_affine"); /* upstream has no Meta kernel */
    tn_value sc, zp;
    if (first_item(a[1].u.obj, &sc) < 0 || first_item(a[2].u.obj, &zp) < 0) return NULL;
    float zf = nearbyintf((float)tn_fq_num_f(&zp));
    zf = fminf(fmaxf(zf, (float)a[3].u.i), (float)a[4].u.i);
    return first_of_pair(tn_at_fake_quantize_per_tensor_affine_cachemask(a[0].u.obj, (float)tn_fq_num_f(&sc), (int64_t)zf,
                                                                          a[3].u.i, a[4].u.i));
}

static int require_f32(PyObject *t, const char *cond) {
    if (tn_tensor_of(t)->dtype == TN_DTYPE_F32) return 0;
    tn_fq_check_failed(cond);
    return -1;
}

/* dX, dScale_vec, dZeroPoint_vec = empty_like(X) x3, then the gradient kernel over them */
static PyObject *learnable_grads(PyObject *x, PyObject *dy, int nextra, const tn_tensor *extra, tn_loop loop,
                                 const tn_fq_params *p, PyObject **vecs) {
    const tn_tensor *xt = tn_tensor_of(x);
    for (int i = 0; i < 3; i++) vecs[i] = NULL;
    for (int i = 0; i < 3; i++)
        if (!(vecs[i] = empty_like(x, TN_DTYPE_F32))) goto fail;
    tn_iter it;
    tn_iter_init(&it, 5 + nextra, xt->ndim, xt->sizes);
    for (int i = 0; i < 3; i++) tn_iter_set_tensor(&it, i, tn_tensor_of(vecs[i]));
    tn_iter_set_tensor(&it, 3, xt);
    tn_iter_set_tensor(&it, 4, tn_tensor_of(dy));
    for (int i = 0; i < nextra; i++) tn_iter_set_tensor(&it, 5 + i, &extra[i]);
    tn_iter_run_parallel(&it, loop, p);
    return vecs[0];
fail:
    for (int i = 0; i < 3; i++) Py_CLEAR(vecs[i]);
    return NULL;
}

static PyObject *triple(PyObject *a, PyObject *b, PyObject *c) {
    if (!a || !b || !c) { Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c); return NULL; }
    PyObject *t = PyTuple_Pack(3, a, b, c);
    Py_DECREF(a); Py_DECREF(b); Py_DECREF(c);
    return t;
}

/* upstream's kernel makes views below autograd, so its results are no views: a copy of one element */
static PyObject *not_a_view(PyObject *v) {
    PyObject *c = v ? tn_at_clone(v, NULL) : NULL;
    Py_XDECREF(v);
    return c;
}

/* _fake_quantize_learnable_per_tensor_affine_backward(grad, self, scale, zero_point, quant_min,
 * quant_max, grad_factor) -> (dX, dScale, dZeroPoint): the zero point rounds as zp + 0.5f
 * truncated; dScale / dZeroPoint are the gradient vectors' sums, unsqueezed to 1 element */
PyObject *tn_op__fake_quantize_learnable_per_tensor_affine_backward(tn_value *a) {
    PyObject *dy = a[0].u.obj, *x = a[1].u.obj, *scale = a[2].u.obj, *zp = a[3].u.obj;
    int64_t qmin = a[4].u.i, qmax = a[5].u.i;
    tn_value sv, zv;
    if (first_item(scale, &sv) < 0 || first_item(zp, &zv) < 0) return NULL;
    float sf = (float)tn_fq_num_f(&sv);
    float zf = fminf(fmaxf((float)tn_fq_num_f(&zv) + 0.5f, (float)qmin), (float)qmax);
    int64_t zpv = (int64_t)zf;
    if (require_f32(dy, "dY.scalar_type() == ScalarType::Float") < 0 || require_f32(x, "X.scalar_type() == ScalarType::Float") < 0 ||
        require_f32(scale, "scale.scalar_type() == ScalarType::Float") < 0 ||
        require_f32(zp, "zero_point.scalar_type() == ScalarType::Float") < 0)
        return NULL;
    if (tn_numel(tn_tensor_of(x)) != tn_numel(tn_tensor_of(dy))) return tn_fq_error("`X` and `dY` are not the same size");
    if (!(qmin <= 0 && qmax >= 0))
        return tn_fq_error("`quant_min` should be less than or         equal to `quant_max`, and the quantization range should include 0.");
    if (zpv < qmin || zpv > qmax) return tn_fq_error(ZP_RANGE_MSG);
    if (tn_numel(tn_tensor_of(x)) <= 0) return triple(Py_NewRef(x), Py_NewRef(scale), Py_NewRef(zp));
    tn_fq_params p = tensor_params(sf, zpv, qmin, qmax, true);
    p.grad_factor = (float)a[6].u.f;
    PyObject *v[3];
    if (!learnable_grads(x, dy, 0, NULL, tn_fq_learnable_tensor_grad, &p, v)) return NULL;
    PyObject *ds = NULL, *dz = NULL, *t;
    if ((t = tn_at_sum(v[1], NULL))) { ds = not_a_view(tn_at_unsqueeze(t, 0)); Py_DECREF(t); }
    if (ds && (t = tn_at_sum(v[2], NULL))) { dz = not_a_view(tn_at_unsqueeze(t, 0)); Py_DECREF(t); }
    Py_DECREF(v[1]); Py_DECREF(v[2]);
    if (!dz) { Py_DECREF(v[0]); Py_XDECREF(ds); return NULL; }
    return triple(v[0], ds, dz);
}

/* zero_point.round().clamp_(quant_min, quant_max) */
static PyObject *rounded_zp(PyObject *zp, int64_t qmin, int64_t qmax) {
    PyObject *r = tn_at_round(zp);
    if (!r) return NULL;
    PyObject *c = tn_at_clamp_(r, TN_SI(qmin), TN_SI(qmax));
    Py_DECREF(r);
    return c;
}


/* _fake_quantize_learnable_per_channel_affine(self, scale, zero_point, axis, quant_min, quant_max,
 * grad_factor): the zero points rounded, clamped and made int32, then the per-channel cachemask op */
PyObject *tn_op__fake_quantize_learnable_per_channel_affine(tn_value *a) {
    if (tn_door_on_meta()) return tn_meta_no_kernel("_fake_quantize_learnable_per_channel_affine"); /* upstream has no Meta kernel */
    PyObject *zr = rounded_zp(a[2].u.obj, a[4].u.i, a[5].u.i);
    PyObject *zi = zr ? tn_fq_to_dtype(zr, TN_DTYPE_I32) : NULL;
    Py_XDECREF(zr);
    if (!zi) return NULL;
    PyObject *r = tn_at_fake_quantize_per_channel_affine_cachemask(a[0].u.obj, a[1].u.obj, zi, a[3].u.i, a[4].u.i, a[5].u.i);
    Py_DECREF(zi);
    return first_of_pair(r);
}

/* _fake_quantize_learnable_per_channel_affine_backward(grad, self, scale, zero_point, axis,
 * quant_min, quant_max, grad_factor): bf16 operands made float first; dScale / dZeroPoint summed
 * over every dim but axis */
PyObject *tn_op__fake_quantize_learnable_per_channel_affine_backward(tn_value *a) {
    PyObject *in[4] = {a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.obj}, *cv[4] = {NULL};
    int64_t axis = a[4].u.i, qmin = a[5].u.i, qmax = a[6].u.i;
    bool bf16 = tn_tensor_of(in[1])->dtype == TN_DTYPE_BF16;
    PyObject *res = NULL, *zr = NULL;
    for (int i = 0; i < 4; i++)
        if (!(cv[i] = bf16 ? tn_fq_to_dtype(in[i], TN_DTYPE_F32) : Py_NewRef(in[i]))) goto done;
    PyObject *dy = cv[0], *x = cv[1], *scale = cv[2], *zp = cv[3];
    if (!(zr = rounded_zp(zp, qmin, qmax))) goto done;
    if (require_f32(dy, "dY_.scalar_type() == ScalarType::Float") < 0 || require_f32(x, "X_.scalar_type() == ScalarType::Float") < 0 ||
        require_f32(scale, "scale_.scalar_type() == ScalarType::Float") < 0 ||
        require_f32(zp, "zero_point_.scalar_type() == ScalarType::Float") < 0)
        goto done;
    const tn_tensor *xt = tn_tensor_of(x), *dt = tn_tensor_of(dy), *st = tn_tensor_of(scale), *zt = tn_tensor_of(zr);
    if (xt->ndim != dt->ndim || memcmp(xt->sizes, dt->sizes, (size_t)xt->ndim * sizeof *xt->sizes)) {
        tn_fq_error("`X` and `dY` are not the same size");
        goto done;
    }
    if (!(qmin <= 0 && qmax >= 0)) { tn_fq_error("Expecting `quant_min` <= 0 and `quant_max` >= 0"); goto done; }
    if (st->ndim != 1) { tn_fq_error("scale should be a 1-D tensor"); goto done; }
    if (zt->ndim != 1) { tn_fq_error("zero point should be a 1-D tensor"); goto done; }
    if (tn_numel(st) != tn_numel(zt)) { tn_fq_error("scale and zero-point need to have the same dimensions"); goto done; }
    int64_t d;
    if (tn_wrap_dim(axis, xt->ndim, &d) < 0) goto done;
    if (tn_numel(st) != xt->sizes[d]) {
        tn_fq_error("dimensions of scale and zero-point are not consistent with input tensor");
        goto done;
    }
    if (tn_numel(zt) == 0) {
        PyErr_SetString(PyExc_RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
        goto done;
    }
    for (int64_t i = 0; i < zt->sizes[0]; i++) {
        float v = *(const float *)(tn_data(zt) + i * zt->strides[0] * 4);
        if (v < qmin || v > qmax) { tn_fq_error(ZP_RANGE_MSG); goto done; }
    }
    if (axis < 0 || axis >= xt->ndim) { tn_fq_error("`axis` must be between 0 and number of dimensions of input"); goto done; }
    if (tn_numel(xt) <= 0) { res = triple(Py_NewRef(in[1]), Py_NewRef(in[2]), Py_NewRef(in[3])); goto done; }
    tn_tensor extra[2] = {tn_fq_along_axis(st, xt->ndim, (int)axis), tn_fq_along_axis(zt, xt->ndim, (int)axis)};
    tn_fq_params p = {0};
    p.qmin = qmin;
    p.qmax = qmax;
    p.grad_factor = (float)a[7].u.f;
    PyObject *v[3];
    if (!learnable_grads(x, dy, 2, extra, tn_fq_learnable_channel_grad, &p, v)) goto done;
    int64_t dims[TN_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < xt->ndim; i++)
        if (i != axis) dims[nd++] = i;
    PyObject *ds = tn_at_sum_dim_IntList(v[1], TN_IN(dims, nd), false, NULL);
    PyObject *dz = ds ? tn_at_sum_dim_IntList(v[2], TN_IN(dims, nd), false, NULL) : NULL;
    Py_DECREF(v[1]); Py_DECREF(v[2]);
    res = triple(v[0], ds, dz);
done:
    for (int i = 0; i < 4; i++) Py_XDECREF(cv[i]);
    Py_XDECREF(zr);
    return res;
}

/* ---- the fused moving-average observer + fake quantize (FusedMovingAvgObsFakeQuantize) ---- */

/* quant_utils::ChooseQuantizationParams with its checks */
static int choose_qparams(float mn, float mx, int32_t qmin, int32_t qmax, bool sym, bool reduce_range, double *s, int32_t *z) {
    if (tn_fq_choose_qparams(mn, mx, qmin, qmax, sym, reduce_range, s, z)) return 0;
    tn_fq_error(!(mn <= mx) ? "In ChooseQuantizationParams, min should be less than or equal to max"
                         : "In ChooseQuantizationParams, qmin should be less than qmax");
    return -1;
}

static int require_float_buf(PyObject *t) {
    tn_dtype d = tn_tensor_of(t)->dtype;
    if (d == TN_DTYPE_F32) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected scalar type Float but found %s", tn_dtype_cpp_name(d));
    return -1;
}

static float *f32_at(PyObject *t, int64_t i) {
    const tn_tensor *x = tn_tensor_of(t);
    return (float *)tn_data(x) + (x->ndim ? i * x->strides[0] : 0);
}

/* running_min/max <- x's min/max (aminmax over all, or over dim 1 per row), moving-averaged */
static int moving_average(PyObject *x, PyObject *rmin, PyObject *rmax, float c, bool per_row) {
    PyObject *mm = per_row ? tn_at_aminmax(x, (int64_t[]){1}, false) : tn_at_aminmax(x, NULL, false);
    if (!mm) return -1;
    PyObject *mn = PySequence_GetItem(mm, 0), *mx = PySequence_GetItem(mm, 1);
    Py_DECREF(mm);
    int rc = -1;
    if (!mn || !mx || require_float_buf(mn) < 0 || require_float_buf(rmin) < 0 || require_float_buf(rmax) < 0) goto done;
    int64_t n = tn_numel(tn_tensor_of(mn));
    if (tn_numel(tn_tensor_of(rmin)) < n || tn_numel(tn_tensor_of(rmax)) < n) {   /* upstream writes past them */
        PyErr_SetString(PyExc_RuntimeError, "torchnative: _fused_moving_avg_obs_fq_helper: running_min / running_max "
                        "have fewer elements than the observed channels");
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        float cmin = *f32_at(mn, i), cmax = *f32_at(mx, i);
        float *pmin = f32_at(rmin, i), *pmax = f32_at(rmax, i);
        *pmin = isinf(*pmin) ? cmin : *pmin + c * (cmin - *pmin);
        *pmax = isinf(*pmax) ? cmax : *pmax + c * (cmax - *pmax);
    }
    tn_tensor_of(rmin)->storage->version++;
    tn_tensor_of(rmax)->storage->version++;
    rc = 0;
done:
    Py_XDECREF(mn);
    Py_XDECREF(mx);
    return rc;
}

/* t[i] = v (upstream's Tensor::operator= of a Scalar on t[i]) */
static void store_at(PyObject *t, int64_t i, double v, bool integral) {
    tn_tensor *x = tn_tensor_of(t);
    tn_value val = {0};
    if (integral) { val.tag = TN_V_INT; val.u.i = (int64_t)v; }
    else { val.tag = TN_V_FLOAT; val.u.f = v; }
    tn_cr_store(tn_data(x) + (x->ndim ? i * x->strides[0] : 0) * tn_dtype_itemsize(x->dtype), x->dtype, &val);
}

PyObject *tn_op__fused_moving_avg_obs_fq_helper(tn_value *a) {
    PyObject *self = a[0].u.obj, *rmin = a[3].u.obj, *rmax = a[4].u.obj, *scale = a[5].u.obj, *zp = a[6].u.obj;
    float c = (float)a[7].u.f;
    int64_t qmin = a[8].u.i, qmax = a[9].u.i, ch = a[10].u.i;
    bool per_row = a[11].u.i != 0, sym = a[12].u.i != 0;
    const tn_tensor *x = tn_tensor_of(self);
    PyObject *bufs[4] = {rmin, rmax, scale, zp};
    /* per row upstream indexes them as vectors (t[i]): refused where it first does, after its own checks */
#define BUFS_1D()                                                                                                   \
    for (int i = 0; i < 4; i++)                                                                                     \
        if (tn_tensor_of(bufs[i])->ndim > 1) {                                                                      \
            tn_value fq_;   /* upstream would still fail reading fake_quant_on: that error first */               \
            if (tn_fq_item(a[2].u.obj, &fq_) < 0) return NULL;                                                    \
            return tn_not_implemented("aten::_fused_moving_avg_obs_fq_helper with running_min / running_max / scale " \
                                      "/ zero_point of more than one dimension");                          \
        }
    if (ch >= x->ndim) return tn_fq_error("Error in fused_moving_avg_obs_fake_quant_cpu: ch_axis must be < self.dim()");
    tn_value ov;
    if (tn_fq_item(a[1].u.obj, &ov) < 0) return NULL;
    bool observe = tn_fq_num_i(&ov) != 0;
    if (per_row) {
        PyObject *y = Py_NewRef(self);
        int64_t d;
        if (tn_wrap_dim(ch, x->ndim, &d) < 0) { Py_DECREF(y); return NULL; }
        if (x->ndim != 2) {
            int64_t perm[TN_MAX_DIMS];
            for (int i = 0; i < x->ndim; i++) perm[i] = i;
            perm[d] = 0;
            perm[0] = d;
            PyObject *p = tn_at_permute(self, TN_IN(perm, x->ndim));
            Py_DECREF(y);
            y = p ? tn_at_flatten_using_ints(p, 1, -1) : NULL;
            Py_XDECREF(p);
            if (!y) return NULL;
        }
        int64_t size = x->sizes[d];
        if (tn_numel(tn_tensor_of(rmin)) == 0) {
            int rc = 0;
            for (int i = 0; i < 4 && rc == 0; i++) rc = tn_resize(bufs[i], 1, &size);
            if (rc == 0) {
                for (int64_t i = 0; i < size; i++) { store_at(rmin, i, INFINITY, false); store_at(rmax, i, -INFINITY, false); }
                tn_tensor_of(rmin)->storage->version++;
                tn_tensor_of(rmax)->storage->version++;
            }
            if (rc < 0) { Py_DECREF(y); return NULL; }
        }
        if (observe && ch != 0) {
            Py_DECREF(y);
            return tn_fq_error("Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is only supported on axis == 0");
        }
        if (observe) BUFS_1D()
        int rc = observe ? moving_average(y, rmin, rmax, c, true) : 0;
        Py_DECREF(y);
        if (rc < 0) return NULL;
    } else if (observe && moving_average(self, rmin, rmax, c, false) < 0) {   /* element 0 of any shape */
        return NULL;
    }
    tn_value fv;
    if (tn_fq_item(a[2].u.obj, &fv) < 0) return NULL;
    if (tn_fq_num_i(&fv) == 0) {
        PyObject *dt = tn_py_from_dtype(TN_DTYPE_BOOL);
        PyObject *m = dt ? tn_at_ones_like(self, dt, NULL, NULL, NULL, NULL) : NULL;
        Py_XDECREF(dt);
        if (!m) return NULL;
        return tn_return_pair("_fused_moving_avg_obs_fq_helper", tn_at_clone(self, NULL), m);
    }
    if (per_row) BUFS_1D()   /* per tensor: element 0 of the buffers, .item() of running_min / max */
#undef BUFS_1D
    if (require_float_buf(rmin) < 0 || require_float_buf(rmax) < 0) return NULL;
    int64_t n = per_row ? tn_numel(tn_tensor_of(rmin)) : 1;
    if (!per_row && (tn_fq_item(rmin, &ov) < 0 || tn_fq_item(rmax, &ov) < 0)) return NULL;
    if (tn_numel(tn_tensor_of(scale)) < n || tn_numel(tn_tensor_of(zp)) < n) {
        PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for dimension 0 with size %lld", (long long)(n - 1),
                     (long long)tn_numel(tn_tensor_of(scale)));
        return NULL;
    }
    bool zint = !tn_dtype_is_floating(tn_tensor_of(zp)->dtype);
    for (int64_t i = 0; i < n; i++) {
        double s;
        int32_t z;
        if (choose_qparams(*f32_at(rmin, i), *f32_at(rmax, i), (int32_t)qmin, (int32_t)qmax, sym, false, &s, &z) < 0) return NULL;
        store_at(scale, i, s, false);
        store_at(zp, i, z, zint);
    }
    tn_tensor_of(scale)->storage->version++;
    tn_tensor_of(zp)->storage->version++;
    PyObject *r;
    if (per_row) {
        r = tn_at_fake_quantize_per_channel_affine_cachemask(self, scale, zp, ch, qmin, qmax);
    } else {
        PyObject *dt = tn_py_from_dtype(TN_DTYPE_I64);
        PyObject *on = dt ? tn_at_ones(TN_IS(1), dt, NULL, NULL, NULL) : NULL;
        Py_XDECREF(dt);
        if (!on) return NULL;
        r = tn_at__fake_quantize_per_tensor_affine_cachemask_tensor_qparams(self, scale, zp, on, qmin, qmax);
        Py_DECREF(on);
    }
    if (!r) return NULL;
    PyObject *o = PySequence_GetItem(r, 0), *m = PySequence_GetItem(r, 1);
    Py_DECREF(r);
    return tn_return_pair("_fused_moving_avg_obs_fq_helper", o, m);
}

/* fused_moving_avg_obs_fake_quant(...): self.clone() when empty, else the helper's output */
PyObject *tn_op_fused_moving_avg_obs_fake_quant(tn_value *a) {
    if (tn_numel(tn_tensor_of(a[0].u.obj)) == 0) return tn_at_clone(a[0].u.obj, NULL);
    return first_of_pair(tn_at__fused_moving_avg_obs_fq_helper(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.obj, a[4].u.obj,
                                                               a[5].u.obj, a[6].u.obj, a[7].u.f, a[8].u.i, a[9].u.i,
                                                               a[10].u.i, a[11].u.i != 0, a[12].u.i != 0));
}

/* ---- choosing qparams ---- */

static int item_float(PyObject *t, float *out) {
    tn_value v;
    if (!t) return -1;
    int rc = tn_fq_item(t, &v);
    Py_DECREF(t);
    if (rc == 0) *out = (float)tn_fq_num_f(&v);
    return rc;
}

/* _choose_qparams_per_tensor(self, reduce_range) -> (float, int): quant_utils' choice over [0, 255]
 * from self's min and max (reduce_range stays on: no QNNPACK engine here) */
PyObject *tn_op__choose_qparams_per_tensor(tn_value *a) {
    float mn = 0, mx = 0;
    if (item_float(tn_at_min(a[0].u.obj), &mn) < 0 || item_float(tn_at_max(a[0].u.obj), &mx) < 0) return NULL;
    double s;
    int32_t z;
    if (choose_qparams(mn, mx, 0, 255, false, a[1].u.i != 0, &s, &z) < 0) return NULL;
    return Py_BuildValue("(dl)", s, (long)z);
}

/* choose_qparams_optimized(input, numel, n_bins, ratio, bit_width) -> (xmax [1], xmin [1]): the
 * first numel floats of input's memory, as upstream's */
PyObject *tn_op_choose_qparams_optimized(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *x = tn_tensor_of(self);
    int64_t n = a[1].u.i;
    /* upstream's order (measured): the float data, an empty input, then numel within input's */
    if (require_float_buf(self) < 0) return NULL;
    if (tn_numel(x) == 0) {
        PyErr_SetString(PyExc_ValueError, "input tensor is empty and has no data");
        return NULL;
    }
    if (n < 0 || n > tn_numel(x)) {
        PyErr_SetString(PyExc_RuntimeError, "numel is out of the bound of input tensor");
        return NULL;
    }
    PyObject *c = tn_at_contiguous(self, NULL);
    if (!c) return NULL;
    /* upstream's std::min_element / max_element over the first numel floats (numel 0: the first
     * float, what its empty range dereferences); equal bounds return at once, its search loop not
     * entered, whatever n_bins and bit_width are (measured: numel 1, bit_width -1 -> (x0, x0)) */
    const float *v = (const float *)tn_data(tn_tensor_of(c));
    float mn = v[0], mx = v[0];
    for (int64_t i = 1; i < n; i++) {
        if (v[i] < mn) mn = v[i];
        if (mx < v[i]) mx = v[i];
    }
    if (!(mn == mx)) {
        /* upstream shifts by bit_width and loops forever with negative bins (its behaviour there is undefined) */
        if (a[4].u.i < 0 || a[4].u.i > 30 || a[2].u.i < 0 || a[2].u.i > (1 << 24)) {
            Py_DECREF(c);
            return tn_not_implemented("aten::choose_qparams_optimized with bit_width outside 0..30 or n_bins outside 0..2^24");
        }
        tn_fq_choose_qparams_optimized(v, n, a[2].u.i, a[3].u.f, (int)a[4].u.i, &mn, &mx);
    }
    Py_DECREF(c);
    int64_t one = 1;
    PyObject *rmax = tn_tensor_new_empty(1, &one, TN_DTYPE_F32, TN_DEVICE_CPU);
    PyObject *rmin = rmax ? tn_tensor_new_empty(1, &one, TN_DTYPE_F32, TN_DEVICE_CPU) : NULL;
    if (!rmin) { Py_XDECREF(rmax); return NULL; }
    *(float *)tn_data(tn_tensor_of(rmax)) = mx;
    *(float *)tn_data(tn_tensor_of(rmin)) = mn;
    PyObject *t = PyTuple_Pack(2, rmax, rmin);
    Py_DECREF(rmax);
    Py_DECREF(rmin);
    return t;
}
