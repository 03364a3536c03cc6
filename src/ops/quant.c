/* ops/quant.c — torchnative::quantize / dequantize / quant_linear / quant_isa: GGUF block
 * formats for Linear weights (kernels/quant.h, docs/quant.md, torchnative/quant/).
 *
 * Schemas in src/ops/torchnative_schemas.txt (our own namespace: upstream has no such operators,
 * and torch / torch._C gain no names); reached as torch.ops.torchnative.<name>, through the
 * door (dispatch modes see them; a grad-requiring input records a node that refuses in
 * backward). door.c finds these functions through tn_extra_op_fn (ops/profiler.c). Block bytes
 * travel as uint8 tensors of shape (rows, cols / 32 * block bytes). */
#include "ops/common.h"
#include "ops/quant.h"
#include "kernels/quant.h"

#include <stdlib.h>
#include <string.h>

static int fmt_arg(const tn_value *v, const char *op, bool weights_only) {
    const char *name = v->tag == TN_V_STR ? PyUnicode_AsUTF8AndSize(v->u.obj, NULL) : NULL;
    if (!name) return -1;
    int f = tn_quant_fmt_parse(name);
    if (f < 0 || (weights_only && (f == TN_Q8_1 || f == TN_Q8_K))) {
        PyErr_Format(PyExc_ValueError, "torchnative::%s: unknown quantization format '%s' (expected %s)", op, name,
                     weights_only ? "'q8_0', 'q4_0', 'q4_1', 'q2_k', 'q3_k', 'q4_k', 'q5_k' or 'q6_k'"
                                  : "'q8_0', 'q4_0', 'q4_1', 'q8_1', 'q2_k', 'q3_k', 'q4_k', 'q5_k', 'q6_k' or 'q8_k'");
        return -1;
    }
    return f;
}

static int cpu_only(tn_tensor *t, const char *op, const char *what) {
    if (t->storage && t->storage->device == TN_DEVICE_CPU) return 0;
    PyErr_Format(PyExc_NotImplementedError, "torchnative: torchnative::%s is not implemented for %s on the meta device",
                 op, what);
    return -1;
}

/* The block bytes of a (rows x cols) matrix in format f, checked against qweight. */
static int check_qweight(tn_tensor *q, int f, int64_t rows, int64_t cols, const char *op) {
    if (cpu_only(q, op, "qweight") < 0) return -1;
    if (q->dtype != TN_DTYPE_U8) {
        PyErr_Format(PyExc_RuntimeError, "torchnative::%s: expected qweight of dtype torch.uint8, got %s", op,
                     tn_dtype_cxx_name(q->dtype));
        return -1;
    }
    const int bv = tn_quant_block_values(f);
    if (rows < 0 || cols < 0 || cols % bv != 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "torchnative::%s: in_features must be a non-negative multiple of %d (the %s block) and out_features "
                     "non-negative, got out_features=%lld, in_features=%lld", op, bv, tn_quant_fmt_name(f), (long long)rows,
                     (long long)cols);
        return -1;
    }
    int64_t bs = tn_quant_block_bytes(f), need;
    if (__builtin_mul_overflow(rows, cols / bv * bs, &need) || tn_numel(q) != need) {
        PyErr_Format(PyExc_RuntimeError,
                     "torchnative::%s: qweight holds %lld bytes, but %lld x %lld values in %s take %lld x %lld bytes",
                     op, (long long)tn_numel(q), (long long)rows, (long long)cols, tn_quant_fmt_name(f),
                     (long long)rows, (long long)(cols / bv * bs));
        return -1;
    }
    return 0;
}

/* torchnative::quantize(Tensor input, str fmt) -> Tensor: the last dimension (a multiple of
 * 32) into blocks; result uint8 of shape (..., n / 32 * block bytes). */
PyObject *tn_op_torchnative_quantize(tn_value *args) {
    tn_tensor *x = TN_T(args[0]);
    int f = fmt_arg(&args[1], "quantize", false);
    if (f < 0 || cpu_only(x, "quantize", "input") < 0) return NULL;
    if (!tn_nn_float(x->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "torchnative::quantize: expected a floating point input, got %s",
                     tn_dtype_cxx_name(x->dtype));
        return NULL;
    }
    int64_t k = x->ndim ? x->sizes[x->ndim - 1] : 1;
    const int bv = tn_quant_block_values(f);
    if (x->ndim == 0 || k % bv != 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "torchnative::quantize: the last dimension must be a multiple of %d (the %s block), got shape of %d dims "
                     "with last size %lld", bv, tn_quant_fmt_name(f), x->ndim, (long long)k);
        return NULL;
    }
    int64_t sizes[TN_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    int64_t bs = tn_quant_block_bytes(f);
    sizes[x->ndim - 1] = k / bv * bs;
    PyObject *c = tn_as_dtype(args[0].u.obj, TN_DTYPE_F32, true);
    if (!c) return NULL;
    PyObject *r = tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_U8, TN_DEVICE_CPU);
    if (r) {
        const float *src = (const float *)tn_data(tn_tensor_of(c));
        uint8_t *dst = (uint8_t *)tn_data(tn_tensor_of(r));
        int64_t rows = k ? tn_numel(x) / k : 0;
        Py_BEGIN_ALLOW_THREADS
        for (int64_t i = 0; i < rows; i++) tn_quant_row(f, src + i * k, dst + i * (k / bv * bs), k);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(c);
    return r;
}

/* torchnative::dequantize(Tensor qweight, str fmt, int rows, int cols) -> Tensor (f32, rows x cols) */
PyObject *tn_op_torchnative_dequantize(tn_value *args) {
    int f = fmt_arg(&args[1], "dequantize", false);
    int64_t rows = args[2].u.i, cols = args[3].u.i;
    if (f < 0 || check_qweight(TN_T(args[0]), f, rows, cols, "dequantize") < 0) return NULL;
    PyObject *q = tn_as_dtype(args[0].u.obj, TN_DTYPE_U8, true);
    if (!q) return NULL;
    int64_t sizes[2] = {rows, cols};
    PyObject *r = tn_tensor_new_empty(2, sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
    if (r) {
        const uint8_t *src = (const uint8_t *)tn_data(tn_tensor_of(q));
        float *dst = (float *)tn_data(tn_tensor_of(r));
        int64_t rb = cols / tn_quant_block_values(f) * tn_quant_block_bytes(f);
        Py_BEGIN_ALLOW_THREADS
        for (int64_t i = 0; i < rows; i++) tn_dequant_row(f, src + i * rb, dst + i * cols, cols);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(q);
    return r;
}

/* torchnative::quant_linear(Tensor input, Tensor qweight, str fmt, int out_features,
 * int in_features, Tensor? bias=None) -> Tensor: input (..., in_features) @ W^T (+ bias), in
 * the input's dtype (computed in f32). */
PyObject *tn_op_torchnative_quant_linear(tn_value *args) {
    const char *op = "quant_linear";
    tn_tensor *x = TN_T(args[0]);
    int f = fmt_arg(&args[2], op, true);
    int64_t N = args[3].u.i, K = args[4].u.i;
    if (f < 0 || cpu_only(x, op, "input") < 0 || check_qweight(TN_T(args[1]), f, N, K, op) < 0) return NULL;
    if (!tn_nn_float(x->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "torchnative::quant_linear: expected a floating point input, got %s",
                     tn_dtype_cxx_name(x->dtype));
        return NULL;
    }
    if (x->ndim == 0 || x->sizes[x->ndim - 1] != K) {
        int64_t last = x->ndim ? x->sizes[x->ndim - 1] : 1;
        PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                     (long long)(last ? tn_numel(x) / last : 0), (long long)last, (long long)K, (long long)N);
        return NULL;
    }
    bool has_bias = args[5].tag == TN_V_TENSOR;
    if (has_bias) {
        tn_tensor *b = TN_T(args[5]);
        if (cpu_only(b, op, "bias") < 0) return NULL;
        if (b->ndim != 1 || b->sizes[0] != N || !tn_nn_float(b->dtype)) {
            PyErr_Format(PyExc_RuntimeError,
                         "torchnative::quant_linear: expected a floating point bias of shape [%lld], got %d dims", (long long)N,
                         b->ndim);
            return NULL;
        }
    }
    int64_t M = K ? tn_numel(x) / K : 0;
    if (K == 0) { /* no in_features: every row is the bias, or zero */
        int64_t sizes[TN_MAX_DIMS];
        memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
        sizes[x->ndim - 1] = N;
        PyObject *r = tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
        if (!r) return NULL;
        memset(tn_data(tn_tensor_of(r)), 0, (size_t)(tn_numel(tn_tensor_of(r)) * 4));
        if (has_bias && tn_numel(tn_tensor_of(r)) && tn_copy_into(r, args[5].u.obj) < 0) { Py_DECREF(r); return NULL; }
        PyObject *o = tn_as_dtype(r, x->dtype, false);
        Py_DECREF(r);
        return o;
    }
    PyObject *xc = tn_as_dtype(args[0].u.obj, TN_DTYPE_F32, true);
    PyObject *qc = xc ? tn_as_dtype(args[1].u.obj, TN_DTYPE_U8, true) : NULL;
    PyObject *bc = qc && has_bias ? tn_as_dtype(args[5].u.obj, TN_DTYPE_F32, true) : NULL;
    PyObject *acc = NULL, *res = NULL;
    if (!qc || (has_bias && !bc)) goto done;
    int64_t sizes[TN_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    sizes[x->ndim - 1] = N;
    acc = tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
    if (!acc) goto done;
    if (M > 0 && N > 0) {
        void *scratch = malloc(tn_quant_linear_scratch(f, M, K));
        if (!scratch) { PyErr_NoMemory(); goto done; }
        const float *xd = (const float *)tn_data(tn_tensor_of(xc));
        const uint8_t *wd = (const uint8_t *)tn_data(tn_tensor_of(qc));
        const float *bd = bc ? (const float *)tn_data(tn_tensor_of(bc)) : NULL;
        float *yd = (float *)tn_data(tn_tensor_of(acc));
        Py_BEGIN_ALLOW_THREADS
        tn_quant_linear(f, M, N, K, xd, K, wd, bd, yd, N, scratch);
        Py_END_ALLOW_THREADS
        free(scratch);
    }
    res = tn_as_dtype(acc, x->dtype, false);
done:
    Py_XDECREF(xc);
    Py_XDECREF(qc);
    Py_XDECREF(bc);
    Py_XDECREF(acc);
    return res;
}

/* torchnative::quant_isa() -> str: the integer dot-product variant in use. */
PyObject *tn_op_torchnative_quant_isa(tn_value *args) {
    (void)args;
    return PyUnicode_FromString(tn_quant_isa());
}
