/* parallel.h — the intra-op thread pool: split a loop over [0, n) into contiguous chunks and run
 * them on a small set of pthreads, the calling thread taking part.
 *
 * Upstream runs its CPU kernels under at::parallel_for on an intra-op pool whose size
 * torch.get_num_threads / set_num_threads report and change; this is ours. Workers start on the
 * first call that actually goes parallel, sleep on a condition variable between jobs (after a
 * short spin, so back-to-back small jobs stay cheap), and are forgotten in a fork()ed child, which
 * builds its own pool when it first needs one. Functions run in the pool must not touch Python
 * (they run without the GIL) and must not fail. Nested calls, and calls while another thread's
 * job occupies the pool, run inline on the calling thread. */
#ifndef TN_CORE_PARALLEL_H
#define TN_CORE_PARALLEL_H

#include <stdint.h>

typedef void (*tn_parallel_fn)(int64_t begin, int64_t end, void *ctx);

/* Run fn over [0, n) split into at most tn_get_num_threads() contiguous chunks of at least
 * `grain` items (grain < 1 counts as 1), each chunk exactly once; returns when all are done.
 * Runs fn(0, n, ctx) inline when n < 2*grain, when one thread is configured, or when called from
 * inside a pool job. n <= 0 does nothing. */
void tn_parallel_for(int64_t n, int64_t grain, tn_parallel_fn fn, void *ctx);

/* Intra-op thread count. The default is upstream's: MKL_NUM_THREADS, else OMP_NUM_THREADS,
 * capped at the machine's physical cores (unless MKL_DYNAMIC=false), else the physical cores
 * this process may run on. tn_set_num_threads ignores n < 1. */
int tn_get_num_threads(void);
void tn_set_num_threads(int n);

/* Inter-op thread count: stored only (no inter-op pool yet). The default is the machine's
 * physical core count. Setting succeeds once: returns 0, or -1 when it was set before. */
int tn_get_num_interop_threads(void);
int tn_set_num_interop_threads(int n);

/* 1 when the calling thread is running a tn_parallel_for job (a pool worker or the caller). */
int tn_in_parallel_region(void);

#endif
