/* ops/qops.h — the quantized ops between a ConvNet's convolutions (ops/qops.c;
 * docs/quant_tensors.md "Quantized ops between the convolutions"). */
#ifndef TN_OPS_QOPS_H
#define TN_OPS_QOPS_H
#include "dispatch/door.h"

/* the C function of a quantized:: row implemented here (name "ns::op", overload), or NULL */
tn_op_fn tn_qops_op_fn(const char *name, const char *overload);
/* the C function of an aten row (name, overload) with a quantized first argument, or NULL */
tn_op_fn tn_qops_aten_fn(const char *name, const char *overload);

#endif
