/* ops/qtensor.h — quantized tensors (ops/qtensor.c): the door's stage for calls with one among
 * their arguments (asked only while tn_quant_live > 0). */
#ifndef TN_OPS_QTENSOR_H
#define TN_OPS_QTENSOR_H
#include "dispatch/door.h"

bool tn_quant_among(int op, tn_value *args);
PyObject *tn_quant_call(int op, tn_value *args);

#endif
