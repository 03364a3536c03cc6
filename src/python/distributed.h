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

/* ---- dist_pg.c / dist_pgwrap.c (the DETAIL-level _ProcessGroupWrapper) */
PyTypeObject *tn_dist_backend_type(void);     /* Backend */
Py_ssize_t tn_dist_backend_size(void);        /* its instance size (the wrapper's fields follow) */
/* monitored barrier on a gloo backend (ms <= 0: its timeout); 0, or -1 with its error set, or -2
 * with the transport's own error (raised while posting) set */
int tn_dist_gloo_monitored_barrier(PyObject *be, int64_t ms, int all);
int tn_dist_pgwrap_types_init(PyObject *c10d);
int tn_dist_pgwrap_is(PyObject *be);
/* New reference: the backend under any _ProcessGroupWrapper layers (be itself if none). */
PyObject *tn_dist_pgwrap_unwrap(PyObject *be);
/* upstream's runCollectiveChecks: monitored barrier then fingerprint verification on the helper
 * gloo group; tensors is a list (NULL: none). 0, or -1 with RuntimeError. */
int tn_dist_pgwrap_check(PyObject *wrapper, int optype, PyObject *tensors);
enum {   /* c10d::OpType (measured: torch._C._distributed_c10d.OpType) */
    TN_OPTYPE_BROADCAST = 0, TN_OPTYPE_ALLREDUCE, TN_OPTYPE_ALLREDUCE_COALESCED, TN_OPTYPE_REDUCE, TN_OPTYPE_ALLGATHER,
    TN_OPTYPE__ALLGATHER_BASE, TN_OPTYPE_ALLGATHER_COALESCED, TN_OPTYPE_GATHER, TN_OPTYPE_SCATTER,
    TN_OPTYPE_REDUCE_SCATTER, TN_OPTYPE_ALLTOALL_BASE, TN_OPTYPE_ALLTOALL, TN_OPTYPE_SEND, TN_OPTYPE_RECV,
    TN_OPTYPE_RECVANYSOURCE, TN_OPTYPE_BARRIER, TN_OPTYPE__REDUCE_SCATTER_BASE, TN_OPTYPE_COALESCED,
    TN_OPTYPE__ALLREDUCE_SPARSE, TN_OPTYPE_REDUCE_SCATTER_TENSOR_COALESCED, TN_OPTYPE_UNKNOWN = 100,
};

#endif
