/* ops/qconv.h — static quantized convolution (ops/qconv.c; docs/quant_tensors.md "Static
 * convolution"): upstream's Conv2dPackedParamsBase, held by the packed-parameters object of
 * ops/qlinear.c (one torch.ScriptObject type, as upstream's), and the quantized::conv* rows. */
#ifndef TN_OPS_QCONV_H
#define TN_OPS_QCONV_H
#include "dispatch/door.h"

#define TN_QCONV_CLASS "__torch__.torch.classes.quantized.Conv2dPackedParamsBase"
#define TN_QCONV3D_CLASS "__torch__.torch.classes.quantized.Conv3dPackedParamsBase"

typedef struct tn_qconv_w tn_qconv_w;

void tn_qconv_free(tn_qconv_w *c);
/* the object's upstream class: TN_QCONV_CLASS, or TN_QCONV3D_CLASS for a conv3d one */
const char *tn_qconv_class(const tn_qconv_w *c);
/* upstream's serialized state ('2', [config int16 tensor, weight], [bias]); and the parameters
 * made from it (NULL with an exception) */
PyObject *tn_qconv_getstate(tn_qconv_w *c);
tn_qconv_w *tn_qconv_from_state(PyObject *state);
/* (weight, bias), a new quantized weight each call */
PyObject *tn_qconv_unpack(tn_qconv_w *c);

enum { TN_QCONV_WEIGHT, TN_QCONV_BIAS, TN_QCONV_STRIDE, TN_QCONV_PADDING, TN_QCONV_OUTPUT_PADDING,
       TN_QCONV_DILATION, TN_QCONV_GROUPS, TN_QCONV_TRANSPOSE };
/* the object's methods weight() ... transpose() */
PyObject *tn_qconv_method(tn_qconv_w *c, int which);

/* the C function of a quantized:: conv row (name "ns::op", overload), or NULL */
tn_op_fn tn_qconv_op_fn(const char *name, const char *overload);

#endif
