/* autocast.h — the door's autocast stage (upstream's AutocastCPU dispatch key) and its state.
 *
 * State is per thread and per device type, as upstream's (the Python face in python/autocast.c
 * reads and sets it); only CPU autocast changes what ops compute. */
#ifndef TN_DISPATCH_AUTOCAST_H
#define TN_DISPATCH_AUTOCAST_H

#include "dispatch/door.h"

/* devices are indexed as torch.device's types (python/types.c): cpu first */
enum { TN_AC_CPU = 0, TN_AC_NDEV = 20 };

bool tn_autocast_enabled(int dev);
void tn_autocast_set_enabled(int dev, bool on);
/* the lower-precision dtype of a device (upstream's per-device defaults); TN_DTYPE_UNDEFINED
 * where upstream has none */
tn_dtype tn_autocast_dtype(int dev);
void tn_autocast_set_dtype(int dev, tn_dtype d);
bool tn_autocast_cache_enabled(void);
void tn_autocast_set_cache_enabled(bool on);
int tn_autocast_nesting_add(int delta);
void tn_autocast_clear_cache(void);

/* The door's first stage: does op take a cast policy now (CPU autocast on, op on upstream's
 * AutocastCPU list)? tn_autocast_call then casts its arguments as upstream's policy says and
 * calls the op through the door again with autocast off for the duration of the call. */
bool tn_autocast_wants(int op, const tn_value *args);
PyObject *tn_autocast_call(int op, tn_value *args);

#endif
