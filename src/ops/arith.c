/* ops/arith.c — add, sub, mul, div and their in-place / out= forms. */
#include "ops/common.h"

static PyObject *addsub(tn_binary_op op, const char *name, tn_value *args, PyObject *out, bool inplace) {
    /* args: self, other, alpha (Scalar) */
    tn_scalar alpha = args[2].tag == TN_V_INT || args[2].tag == TN_V_BOOL ? tn_scalar_i(args[2].u.i)
                    : args[2].tag == TN_V_COMPLEX ? tn_scalar_c(args[2].u.c.re, args[2].u.c.im)
                    : tn_scalar_f(args[2].u.f);
    /* upstream's sub_check: any bool operand (a wrapped True too) refuses subtraction */
    bool b0 = TN_T(args[0])->dtype == TN_DTYPE_BOOL, b1 = TN_T(args[1])->dtype == TN_DTYPE_BOOL;
    if (op == TN_BINARY_SUB && (b0 || b1)) {
        PyErr_SetString(PyExc_RuntimeError, b0 && b1
            ? "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
            : "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        return NULL;
    }
    tn_value pair[2] = {args[0], args[1]};
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if (tn_alpha_check(ct, &args[2], inplace ? args[0].u.obj : out, inplace, &args[0], &args[1]) < 0) return NULL;
    bool unit = args[2].tag != TN_V_COMPLEX && alpha.re == 1.0;
    return tn_binary(op, name, &args[0], &args[1], out, inplace, unit ? NULL : &alpha);
}

PyObject *tn_op_add_Tensor(tn_value *a) { return addsub(TN_BINARY_ADD, "add", a, NULL, false); }
PyObject *tn_op_add__Tensor(tn_value *a) { return addsub(TN_BINARY_ADD, "add", a, NULL, true); }
PyObject *tn_op_add_out(tn_value *a) { return addsub(TN_BINARY_ADD, "add", a, a[3].u.obj, false); }
PyObject *tn_op_sub_Tensor(tn_value *a) { return addsub(TN_BINARY_SUB, "sub", a, NULL, false); }
PyObject *tn_op_sub__Tensor(tn_value *a) { return addsub(TN_BINARY_SUB, "sub", a, NULL, true); }
PyObject *tn_op_sub_out(tn_value *a) { return addsub(TN_BINARY_SUB, "sub", a, a[3].u.obj, false); }

PyObject *tn_op_mul_Tensor(tn_value *a) { return tn_binary(TN_BINARY_MUL, "mul", &a[0], &a[1], NULL, false, NULL); }
PyObject *tn_op_mul__Tensor(tn_value *a) { return tn_binary(TN_BINARY_MUL, "mul", &a[0], &a[1], NULL, true, NULL); }
PyObject *tn_op_mul_out(tn_value *a) { return tn_binary(TN_BINARY_MUL, "mul", &a[0], &a[1], a[2].u.obj, false, NULL); }

/* div with rounding_mode: None (true division), "trunc", "floor" */
static PyObject *div_mode(tn_value *a, const tn_value *mode, PyObject *out, bool inplace) {
    int m = tn_div_rounding_mode(mode, true);
    if (m < 0) return NULL;
    tn_binary_op op = m == 1 ? TN_BINARY_DIV_TRUNC : m == 2 ? TN_BINARY_DIV_FLOOR : TN_BINARY_DIV;
    return tn_binary(op, "div", &a[0], &a[1], out, inplace, NULL);
}

PyObject *tn_op_div_Tensor(tn_value *a) { return div_mode(a, NULL, NULL, false); }
PyObject *tn_op_div__Tensor(tn_value *a) { return div_mode(a, NULL, NULL, true); }
PyObject *tn_op_div_out(tn_value *a) { return div_mode(a, NULL, a[2].u.obj, false); }
PyObject *tn_op_div_Tensor_mode(tn_value *a) { return div_mode(a, &a[2], NULL, false); }
PyObject *tn_op_div__Tensor_mode(tn_value *a) { return div_mode(a, &a[2], NULL, true); }
PyObject *tn_op_div_out_mode(tn_value *a) { return div_mode(a, &a[2], a[3].u.obj, false); }

/* The Scalar overloads (torch.ops.aten.add.Scalar, and div(x, 2, rounding_mode=...) which
 * Python binds to div.Scalar_mode): the number becomes a 0-dim wrapped-number tensor. */
static int wrap_number(const tn_value *in, tn_value *out) {
    memset(out, 0, sizeof *out);
    PyObject *num = in->tag == TN_V_BOOL ? PyBool_FromLong((long)in->u.i)
                  : in->tag == TN_V_INT ? PyLong_FromLongLong(in->u.i)
                  : in->tag == TN_V_COMPLEX ? PyComplex_FromDoubles(in->u.c.re, in->u.c.im)
                  : PyFloat_FromDouble(in->u.f);
    PyObject *t = num ? tn_tensor_from_number(num, true) : NULL;
    Py_XDECREF(num);
    if (!t) return -1;
    out->tag = TN_V_TENSOR;
    out->wrapped = true;
    out->u.obj = t;
    return 0;
}

enum { AS_ADD, AS_SUB, AS_MUL, AS_DIV, AS_DIV_MODE };
static PyObject *scalar_overload(int kind, tn_value *args, bool inplace) {
    tn_value a[4];
    memcpy(a, args, sizeof a);
    if (wrap_number(&args[1], &a[1]) < 0) return NULL;
    PyObject *r;
    switch (kind) {
    case AS_ADD: r = addsub(TN_BINARY_ADD, "add", a, NULL, inplace); break;
    case AS_SUB: r = addsub(TN_BINARY_SUB, "sub", a, NULL, inplace); break;
    case AS_MUL: r = tn_binary(TN_BINARY_MUL, "mul", &a[0], &a[1], NULL, inplace, NULL); break;
    case AS_DIV: r = div_mode(a, NULL, NULL, inplace); break;
    default: r = div_mode(a, &a[2], NULL, inplace); break;
    }
    Py_DECREF(a[1].u.obj);
    return r;
}
PyObject *tn_op_add_Scalar(tn_value *a) { return scalar_overload(AS_ADD, a, false); }
PyObject *tn_op_add__Scalar(tn_value *a) { return scalar_overload(AS_ADD, a, true); }
PyObject *tn_op_sub_Scalar(tn_value *a) { return scalar_overload(AS_SUB, a, false); }
PyObject *tn_op_sub__Scalar(tn_value *a) { return scalar_overload(AS_SUB, a, true); }
PyObject *tn_op_mul_Scalar(tn_value *a) { return scalar_overload(AS_MUL, a, false); }
/* mul_.Scalar: upstream computes mul_out(self, wrapped(other), self), the number first, so the
 * CPU kernel's scalar fast path (second operand only) does not apply and the number is cast to
 * the common dtype: on an f16 / bf16 self a real number is rounded to that dtype first
 * (measured: bf16 arange(8).mul_(2/7)[5] is 1.421875 through mul_.Scalar, 1.4296875 through
 * mul_.Tensor). */
PyObject *tn_op_mul__Scalar(tn_value *a) {
    tn_dtype dt = TN_T(a[0])->dtype;
    if ((dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16) && (a[1].tag == TN_V_FLOAT || a[1].tag == TN_V_INT)) {
        tn_value b[4];
        memset(b, 0, sizeof b);
        b[0] = a[0];
        b[1] = a[1];
        float f = a[1].tag == TN_V_FLOAT ? (float)a[1].u.f : (float)a[1].u.i;
        b[1].tag = TN_V_FLOAT;
        b[1].u.f = dt == TN_DTYPE_BF16 ? tn_bf16_to_f32(tn_f32_to_bf16(f)) : tn_f16_to_f32(tn_f32_to_f16(f));
        return scalar_overload(AS_MUL, b, true);
    }
    if (tn_dtype_infos[dt].kind == TN_KIND_FLOAT8) {
        /* the number as the first operand: mul's general kernel (float8 included), not the
         * reduced-float scalar path, which has no float8 kernel (measured) */
        tn_value w;
        if (wrap_number(&a[1], &w) < 0) return NULL;
        PyObject *r = tn_binary(TN_BINARY_MUL, "mul", &w, &a[0], a[0].u.obj, false, NULL);
        Py_DECREF(w.u.obj);
        return r;
    }
    return scalar_overload(AS_MUL, a, true);
}
PyObject *tn_op_div_Scalar(tn_value *a) { return scalar_overload(AS_DIV, a, false); }
PyObject *tn_op_div__Scalar(tn_value *a) { return scalar_overload(AS_DIV, a, true); }
PyObject *tn_op_div_Scalar_mode(tn_value *a) { return scalar_overload(AS_DIV_MODE, a, false); }
PyObject *tn_op_div__Scalar_mode(tn_value *a) { return scalar_overload(AS_DIV_MODE, a, true); }
