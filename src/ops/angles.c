/* ops/angles.c — deg2rad / rad2deg as upstream writes them (UnaryOps.cpp): the input times
 * the constant pi/180 (180/pi) as a wrapped number (mul.Scalar through the door), so integers
 * and bools give the default float dtype and low-precision floats round once from float. */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#define TN_PI_180 0.017453292519943295769236907684886127134428718885417
#define TN_180_PI 57.295779513082320876798154814105170332405472466564

static PyObject *angle_mul(tn_value *a, double c, const char *name, bool inplace) {
    tn_dtype d = TN_T(a[0])->dtype;
    if (tn_dtype_infos[d].kind == TN_KIND_COMPLEX) {
        PyErr_Format(PyExc_RuntimeError, "%s is not supported for complex tensors.", name);
        return NULL;
    }
    /* upstream's in-place form multiplies by the number as the second operand (mul's reduced-float
     * scalar path, no float8 kernel), unlike mul_.Scalar (ops/arith.c) */
    if (inplace && tn_dtype_infos[d].kind == TN_KIND_FLOAT8) return tn_kernel_missing("mul_cpu_reduced_float", d);
    return (inplace ? tn_at_mul__Scalar(a[0].u.obj, TN_SD(c)) : tn_at_mul_Scalar(a[0].u.obj, TN_SD(c)));
}

PyObject *tn_op_deg2rad(tn_value *a) { return angle_mul(a, TN_PI_180, "deg2rad", false); }
PyObject *tn_op_deg2rad_(tn_value *a) { return angle_mul(a, TN_PI_180, "deg2rad", true); }
PyObject *tn_op_rad2deg(tn_value *a) { return angle_mul(a, TN_180_PI, "rad2deg", false); }
PyObject *tn_op_rad2deg_(tn_value *a) { return angle_mul(a, TN_180_PI, "rad2deg", true); }
