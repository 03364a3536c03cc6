/* graph.h — torchnative.graphs: the operator calls of one run of a function recorded at the door,
 * replayed later without Python (docs/graphs.md). */
#ifndef TN_DISPATCH_GRAPH_H
#define TN_DISPATCH_GRAPH_H

#include "dispatch/door.h"

/* non-zero while a capture is open on some thread: the door's one branch, and the Python face's
 * value reads (item, bool, tolist, numpy) look no further when it is 0 */
extern int tn_graph_on;

/* Whether this call is one the capture open on this thread records (a call from Python, not one an
 * operator makes); then the door hands it to tn_graph_call, which runs and records it. */
bool tn_graph_wants(int op);
PyObject *tn_graph_call(int op, tn_value *args);

/* A capture is open on this thread (the Python face refuses reads it cannot record). */
bool tn_graph_capturing(void);

/* torchnative::graph_* operators (src/ops/torchnative_schemas.txt) */
PyObject *tn_op_torchnative_graph_capture_begin(tn_value *args);
PyObject *tn_op_torchnative_graph_capture_end(tn_value *args);
PyObject *tn_op_torchnative_graph_capture_abort(tn_value *args);
PyObject *tn_op_torchnative_graph_replay(tn_value *args);
PyObject *tn_op_torchnative_graph_release(tn_value *args);
PyObject *tn_op_torchnative_graph_size(tn_value *args);

#endif
