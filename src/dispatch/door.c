/* door.c — tn_door_call, the one entry every operator passes on its way to its kernel.
 *
 * Today the door checks that the overload has a kernel and calls it; dispatch modes,
 * __torch_dispatch__ and autograd recording attach here (and nowhere else) as they land. */
#include "dispatch/door.h"

PyObject *tn_door_call(int op, tn_value *args) {
    const tn_op_def *d = tn_op_at(op);
    if (!d->fn) return tn_refuse_op(op);
    return d->fn(args);
}
