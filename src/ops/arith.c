/* ops/arith.c — add, sub, mul, div and their in-place / out= forms. */
#include "ops/common.h"

static PyObject *addsub(tn_binary_op op, const char *name, tn_value *args, PyObject *out, bool inplace) {
    /* args: self, other, alpha (Scalar) */
    tn_scalar alpha = args[2].tag == TN_V_INT || args[2].tag == TN_V_BOOL ? tn_scalar_i(args[2].u.i)
                    : args[2].tag == TN_V_COMPLEX ? tn_scalar_c(args[2].u.c.re, args[2].u.c.im)
                    : tn_scalar_f(args[2].u.f);
    tn_value pair[2] = {args[0], args[1]};
    tn_dtype ct = tn_result_type(2, pair);
    if (tn_dtype_is_integral(ct, true) && args[2].tag == TN_V_FLOAT) {
        PyErr_SetString(PyExc_RuntimeError, "For integral input tensors, argument alpha must not be a floating point number.");
        return NULL;
    }
    if (ct == TN_DTYPE_BOOL && op == TN_BINARY_SUB) {
        PyErr_SetString(PyExc_RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
        return NULL;
    }
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
    tn_binary_op op = TN_BINARY_DIV;
    if (mode && mode->tag == TN_V_STR) {
        const char *m = PyUnicode_AsUTF8AndSize(mode->u.obj, NULL);
        if (!m) return NULL;
        if (!strcmp(m, "trunc")) op = TN_BINARY_DIV_TRUNC;
        else if (!strcmp(m, "floor")) op = TN_BINARY_DIV_FLOOR;
        else {
            PyErr_Format(PyExc_RuntimeError,
                         "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", m);
            return NULL;
        }
    }
    return tn_binary(op, "div", &a[0], &a[1], out, inplace, NULL);
}

PyObject *tn_op_div_Tensor(tn_value *a) { return div_mode(a, NULL, NULL, false); }
PyObject *tn_op_div__Tensor(tn_value *a) { return div_mode(a, NULL, NULL, true); }
PyObject *tn_op_div_out(tn_value *a) { return div_mode(a, NULL, a[2].u.obj, false); }
PyObject *tn_op_div_Tensor_mode(tn_value *a) { return div_mode(a, &a[2], NULL, false); }
PyObject *tn_op_div__Tensor_mode(tn_value *a) { return div_mode(a, &a[2], NULL, true); }
PyObject *tn_op_div_out_mode(tn_value *a) { return div_mode(a, &a[2], a[3].u.obj, false); }
