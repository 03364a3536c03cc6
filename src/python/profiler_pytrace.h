/* profiler_pytrace.h — the Python tracer of with_stack=True (profiler_pytrace.c). */
#ifndef TN_PYTHON_PROFILER_PYTRACE_H
#define TN_PYTHON_PROFILER_PYTRACE_H

/* Start tracing the calling thread's Python calls into the session on (0), or -1 with an error. */
int tn_pytrace_start(void);
/* Stop (if on) and forget the tracer's state; the session's open events end with the session. */
void tn_pytrace_stop(void);

#endif
