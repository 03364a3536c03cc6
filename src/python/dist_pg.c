/* dist_pg.c — ProcessGroup, Backend, Work and ProcessGroupGloo (not yet: they refuse by name,
 * created by distributed.c from surface_dist.h). ProcessGroup gets upstream's BackendType enum. */
#include "python/distributed.h"

int tn_dist_pg_types_init(PyObject *c10d) { return 0; }
