/* ops/einsum.h — the einsum / tensordot composites (ops/einsum.c), run by autograd/decomp.c
 * as upstream's CompositeImplicitAutograd einsum / tensordot. */
#ifndef TN_OPS_EINSUM_H
#define TN_OPS_EINSUM_H

#include "dispatch/door.h"

PyObject *tn_einsum_d_einsum(tn_value *a);
PyObject *tn_einsum_d_tensordot(tn_value *a);
PyObject *tn_einsum_d_tensordot_out(tn_value *a);

#endif
