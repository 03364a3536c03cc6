/* ops/distance.h — the cdist / pdist composites (ops/distance.c), run by autograd/decomp.c as
 * upstream's CompositeImplicitAutograd cdist / pdist. */
#ifndef TN_OPS_DISTANCE_H
#define TN_OPS_DISTANCE_H

#include "dispatch/door.h"

PyObject *tn_distance_d_cdist(tn_value *a);
PyObject *tn_distance_d_pdist(tn_value *a);

#endif
