/* distributed.h — what the Python face of torch.distributed shares (distributed.c,
 * dist_store.c, dist_pg.c). */
#ifndef TN_PYTHON_DISTRIBUTED_H
#define TN_PYTHON_DISTRIBUTED_H

#include "python/common.h"

/* torch.distributed.DistError, DistBackendError, DistNetworkError, DistStoreError, QueueEmptyError */
extern PyObject *tn_dist_exc_error, *tn_dist_exc_backend, *tn_dist_exc_network, *tn_dist_exc_store,
    *tn_dist_exc_queue_empty;

int tn_distributed_init(PyObject *m);
int tn_future_init(PyObject *m);               /* torch._C.Future, _collect_all (future.c) */          /* torch._C: _c10d_init, _Dist*Error, submodules */
int tn_dist_store_types_init(PyObject *c10d);  /* Store, TCPStore, HashStore, FileStore, PrefixStore */
int tn_dist_pg_types_init(PyObject *c10d);
int tn_dist_ddp_types_init(PyObject *c10d);   /* Reducer, Logger, GradBucket, DDP functions (dist_ddp.c) */
int tn_dist_placement_types_init(PyObject *mod); /* torch._C._distributed: DTensor placements */     /* ProcessGroup, Backend, Work, ProcessGroupGloo, options */

struct tn_store;
/* The C store of a Store object (a Python subclass gets an adapter calling its methods). New
 * reference (tn_store_unref), or NULL with TypeError. */
struct tn_store *tn_dist_store_of(PyObject *o);

/* A class module.qualname (base may be NULL) whose construction refuses by name. New ref. */
PyObject *tn_dist_refusing_class(const char *module, const char *qualname, PyObject *base);
/* Give a class upstream's metaclass kind: pybind11_type (opaque 0) or OpaqueBaseMeta (1). */
int tn_dist_set_meta(PyObject *cls, int opaque);
/* ProcessGroup.BackendType, with its members exported onto the class. */
int tn_dist_backend_type_enum(PyObject *pg_class);
/* The RedOpType value of a ReduceOp / RedOpType (-1 with TypeError). */
long tn_dist_reduce_op_value(PyObject *o);
/* datetime.timedelta <-> milliseconds */
PyObject *tn_dist_timedelta_ms(long long ms);
long long tn_dist_timedelta_to_ms(PyObject *o);   /* -1 with TypeError */

#endif
