/* ops/qtensor.h — quantized tensors (ops/qtensor.c): the door's stage for calls with one among
 * their arguments (asked only while tn_quant_live > 0). */
#ifndef TN_OPS_QTENSOR_H
#define TN_OPS_QTENSOR_H
#include "dispatch/door.h"

bool tn_quant_among(int op, tn_value *args);
PyObject *tn_quant_call(int op, tn_value *args);
/* the integers of a quantized tensor as a plain tensor of its underlying type sharing its storage;
 * a plain integer result r made quantized like self (dtype and quantizer; steals r) */
PyObject *tn_quant_int_alias(PyObject *q);
PyObject *tn_quant_like(PyObject *r, PyObject *self);

#endif
