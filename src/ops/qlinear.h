/* ops/qlinear.h — quantized Linear (dynamic and static): the packed-parameters object (torch.ScriptObject of
 * upstream's custom class quantized.LinearPackedParamsBase) and the quantized:: operators on it
 * (ops/qlinear.c; docs/quant_tensors.md). The door finds the operators through tn_extra_op_fn
 * (ops/profiler.c). */
#ifndef TN_OPS_QLINEAR_H
#define TN_OPS_QLINEAR_H
#include "dispatch/door.h"
#include "ops/qconv.h"

/* torch._C.ScriptObject (the packed parameters' type) added to module m */
int tn_qlinear_init(PyObject *m);

/* the packed object over conv parameters (ops/qconv.c; takes c, freeing it on failure), and the
 * conv parameters an object holds (NULL when it is not a Conv2dPackedParamsBase one) */
PyObject *tn_qpacked_new_conv(tn_qconv_w *c);
tn_qconv_w *tn_qpacked_conv(PyObject *o);

/* upstream's "Could not run 'op' with arguments from the 'backend' backend ..." NotImplementedError */
PyObject *tn_q_backend_error(const char *op, const char *backend);
/* a quantized weight over the integer tensor ints (fbgemm's unpack): per tensor scale[0] (through
 * float) / zp[0], or per channel along axis 0 the n float scales as float64, zero points as int64 */
PyObject *tn_q_weight(PyObject *ints, int per_channel, int64_t n, const float *scale, const int32_t *zp);

/* the C function of a quantized:: row this file implements (name "ns::op", overload), or NULL */
tn_op_fn tn_qlinear_op_fn(const char *name, const char *overload);

#endif
