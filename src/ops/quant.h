/* ops/quant.h — the torchnative:: quantisation operators (ops/quant.c), bound by name in
 * tn_extra_op_fn (ops/profiler.c). */
#ifndef TN_OPS_QUANT_H
#define TN_OPS_QUANT_H
#include "dispatch/door.h"
PyObject *tn_op_torchnative_quantize(tn_value *args);
PyObject *tn_op_torchnative_dequantize(tn_value *args);
PyObject *tn_op_torchnative_quant_linear(tn_value *args);
PyObject *tn_op_torchnative_quant_isa(tn_value *args);
#endif
