/* ops/qlinear.h — quantized Linear (dynamic and static): the packed-parameters object (torch.ScriptObject of
 * upstream's custom class quantized.LinearPackedParamsBase) and the quantized:: operators on it
 * (ops/qlinear.c; docs/quant_tensors.md). The door finds the operators through tn_extra_op_fn
 * (ops/profiler.c). */
#ifndef TN_OPS_QLINEAR_H
#define TN_OPS_QLINEAR_H
#include "dispatch/door.h"

/* torch._C.ScriptObject (the packed parameters' type) added to module m */
int tn_qlinear_init(PyObject *m);

/* the C function of a quantized:: row this file implements (name "ns::op", overload), or NULL */
tn_op_fn tn_qlinear_op_fn(const char *name, const char *overload);

#endif
