/* iter.h — N-d strided iteration over several operands of one broadcast shape.
 *
 * The op layer computes the output shape, gives every operand its strides for that shape
 * (0 along broadcast dimensions), and the iterator walks it as a sequence of 1-D inner loops,
 * after merging dimensions that are contiguous in every operand. Operand 0 is the output.
 * Kernels are tn_loop functions: pointers, a length, byte strides, nothing else (numpy-style).
 * They never fail, never allocate and never touch Python. */
#ifndef TN_CORE_ITER_H
#define TN_CORE_ITER_H

#include "core/tensor.h"

#define TN_ITER_MAX_OPS 8

typedef void (*tn_loop)(char **data, const int64_t *strides, int64_t n, const void *ctx);

typedef struct {
    int nops;
    int ndim;
    int64_t shape[TN_MAX_DIMS];
    char *data[TN_ITER_MAX_OPS];
    int64_t strides[TN_ITER_MAX_OPS][TN_MAX_DIMS]; /* bytes */
} tn_iter;

/* Start an iteration of `shape` over nops operands. */
void tn_iter_init(tn_iter *it, int nops, int ndim, const int64_t *shape);
/* Operand k: address of its element 0, element strides already aligned to it->shape (0 where
 * broadcast), itemsize in bytes. */
void tn_iter_set(tn_iter *it, int k, char *data, const int64_t *elem_strides, int itemsize);
/* Operand k from a tensor broadcast to it->shape (right-aligned, size-1 dims get stride 0). */
void tn_iter_set_tensor(tn_iter *it, int k, const tn_tensor *t);
/* Merge dimensions, then call loop over every inner row. Empty shapes call nothing. */
void tn_iter_run(tn_iter *it, tn_loop loop, const void *ctx);

/* The same, split into contiguous chunks of the (coalesced, row-major) iteration space over
 * core/parallel.c's pool once it holds 2 * TN_ITER_GRAIN elements (upstream's TensorIterator
 * splits at its GRAIN_SIZE, 32768). For elementwise loops only: each output element must depend
 * on its own inputs alone and the loop must not touch Python (it runs without the GIL) or keep
 * state across calls. Loops whose order matters (random draws, index_put_ accumulation) use
 * tn_iter_run. An output with a 0 stride (written repeatedly) runs serially. */
#define TN_ITER_GRAIN 32768
void tn_iter_run_parallel(tn_iter *it, tn_loop loop, const void *ctx);

#endif
