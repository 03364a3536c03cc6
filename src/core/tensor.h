/* tensor.h — storage and strided tensor geometry, pure C (no Python).
 *
 * tn_storage: reference-counted bytes. Owned (malloc), borrowed (someone else's memory kept alive
 * by a release callback, e.g. a Python buffer), memory-mapped, or meta (no data). Reference counts
 * are touched only with the GIL held, so they are plain integers.
 * tn_tensor: a view of a storage: dtype, sizes, strides (in elements), offset (in elements). */
#ifndef TN_CORE_TENSOR_H
#define TN_CORE_TENSOR_H

#include "core/dtype.h"

/* Upstream's tensors have no dimension limit (its torch.tensor() refuses nesting past 128); ours
 * keep their geometry inline, up to TN_MAX_DIMS dims. Messages that name the limit spell it
 * through TN_MAX_DIMS_S. */
#define TN_MAX_DIMS 32
#define TN_MAX_DIMS_S "32"
/* the bit mask of all n dims of a tensor (n <= TN_MAX_DIMS <= 64: a full word at 64) */
#define TN_ALL_DIMS_MASK(n) ((n) >= 64 ? ~0ull : ((1ull << (n)) - 1))

typedef enum { TN_OK = 0, TN_ERR_NOMEM, TN_ERR_OVERFLOW, TN_ERR_IO } tn_status;

typedef enum { TN_DEVICE_CPU = 0, TN_DEVICE_META = 1 } tn_device_type;

typedef struct tn_storage {
    int64_t refcnt;
    char *data;
    size_t nbytes;
    bool resizable;
    tn_device_type device;
    /* How the bytes are released; NULL release means free(data) for owned storage. */
    void (*release)(void *ctx, char *data, size_t nbytes);
    void *release_ctx;
    void *pyobj;        /* borrowed back-pointer to the Python UntypedStorage, or NULL */
    int64_t version;    /* autograd version counter, shared by all views of this storage */
    /* An alias (tn_storage_alias: a tensor's .data) shares another storage's bytes but counts
     * versions of its own; alias_of is the storage that owns the bytes (held), aliases counts the
     * live aliases of an owner (it cannot grow while any lives: they would keep the old bytes). */
    struct tn_storage *alias_of;
    int64_t aliases;
    /* Weak references (torch.multiprocessing's StorageWeakRef, through _weak_ref): the struct
     * outlives its last strong reference (bytes released, refcnt 0 = expired) until the last
     * weak one is dropped (tn_storage_weak_decref). */
    int64_t weakcnt;
    /* made in inference mode (torch.inference_mode): its tensors and their views are inference
     * tensors (no version counter, no autograd; autograd/grad_mode.c) */
    bool inference;
    /* a wrapper subclass's storage (Tensor._make_wrapper_subclass): nbytes for aliasing, no bytes
     * (data stays NULL); the door refuses to hand one to a kernel (dispatch/subclass.c) */
    bool no_data;
    /* torch._C._set_warn_deprecated_on_mutable_data_ptr (1) / _set_throw_on_mutable_data_ptr (2):
     * data_ptr() of its tensors and of the storage warns / raises, as upstream's StorageImpl
     * (FakeTensorMode marks its fake tensors' storage; docs/custom_ops.md) */
    uint8_t data_ptr_guard;
    /* the order storages were made in (tn_storage_serial's value then): torchnative.graphs tells
     * a tensor that existed before a capture began from one made while it runs (dispatch/graph.c) */
    uint64_t serial;
} tn_storage;

/* the serial the next storage gets (read and bumped atomically) */
extern uint64_t tn_storage_serial;

/* inference mode, thread-local (set by autograd/grad_mode.c's guard): storage made while it is on
 * is inference storage */
extern _Thread_local bool tn_tls_inference_mode;
/* set while a tensor subclass's __torch_dispatch__ runs (dispatch/subclass.c): upstream runs it
 * below autograd and ADInplaceOrView, so views made there have no _base (core/object.c) */
extern _Thread_local bool tn_tls_untracked_views;

/* Upstream's lazy math bits: a tensor with TN_BIT_CONJ reads as the complex conjugate of its
 * stored values, one with TN_BIT_NEG as their negation. Only views carry them (conj(), .imag of a
 * conjugate view, _neg_view); views of such a tensor inherit them (the struct is copied). Kernels
 * never see them: the door (dispatch/door.c, math_bits_call) hands every op that is not a view an
 * argument materialised without bits, and writes in-place results back through the bits. */
#define TN_BIT_CONJ 1u
#define TN_BIT_NEG 2u

typedef struct tn_tensor {
    tn_storage *storage;
    int64_t offset;
    int ndim;
    tn_dtype dtype;
    uint8_t math_bits;  /* TN_BIT_CONJ | TN_BIT_NEG */
    int64_t sizes[TN_MAX_DIMS];
    int64_t strides[TN_MAX_DIMS];
} tn_tensor;

/* Storage. tn_storage_new returns a storage with refcnt 1 and zero-filled? no: uninitialised
 * bytes (like torch.empty); NULL on allocation failure. */
tn_storage *tn_storage_new(size_t nbytes, tn_device_type device);
/* The same with zero bytes (calloc: a large block comes as untouched zero pages). */
tn_storage *tn_storage_new_zeroed(size_t nbytes, tn_device_type device);
/* Once at import: glibc's heap thresholds for tensor-sized blocks (core/tensor.c). */
void tn_storage_tune_malloc(void);
tn_storage *tn_storage_wrap(char *data, size_t nbytes,
                            void (*release)(void *, char *, size_t), void *ctx);
static inline void tn_storage_incref(tn_storage *s) { s->refcnt++; }
void tn_storage_decref(tn_storage *s);
static inline void tn_storage_weak_incref(tn_storage *s) { s->weakcnt++; }
void tn_storage_weak_decref(tn_storage *s);
tn_status tn_storage_resize(tn_storage *s, size_t nbytes);
/* Grow an owned CPU storage to nbytes, the new bytes zero: a fresh calloc'd block (its pages are
 * not touched), the old bytes copied (ops/common.c tn_meta_cover_view: a meta stand-in). */
tn_status tn_storage_grow_zeroed(tn_storage *s, size_t nbytes);
/* A new storage (refcnt 1) over s's bytes with its own version counter, as upstream's
 * Tensor.data gets a fresh VariableVersion; NULL on allocation failure. */
tn_storage *tn_storage_alias(tn_storage *s);
/* The storage owning the bytes: same root means the same memory (overlap checks). */
static inline tn_storage *tn_storage_root(tn_storage *s) { return s && s->alias_of ? s->alias_of : s; }

/* Geometry helpers. */
int64_t tn_numel(const tn_tensor *t);
bool tn_is_contiguous(const tn_tensor *t);
/* upstream's is_contiguous(memory_format): fmt 0 the above; 2 channels_last (rank 4: dims C, W, H,
 * N innermost first) or 3 channels_last_3d (rank 5: C, W, H, D, N), the dims of size != 1 densely
 * packed in that order; an empty tensor is no exception, another rank is false */
bool tn_is_contiguous_as(const tn_tensor *t, int fmt);
void tn_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* The most elements a tensor that owns its bytes may have: numel * itemsize (<= 16) + offset
 * bytes then cannot overflow size_t, so callers sizing storage need no further check. */
#define TN_MAX_NUMEL (INT64_MAX / 16)
/* Product of sizes for a tensor about to own storage; false when ndim is outside
 * [0, TN_MAX_DIMS], a size is negative, or the product exceeds TN_MAX_NUMEL. */
bool tn_sizes_numel(int ndim, const int64_t *sizes, int64_t *out);
/* Address of element 0 (may be NULL for meta / empty). */
static inline char *tn_data(const tn_tensor *t) {
    return t->storage->data ? t->storage->data + t->offset * tn_dtype_itemsize(t->dtype) : NULL;
}

/* Bytes a geometry reaches into its storage: (offset + sum (size-1)*stride + 1) * itemsize, 0 when
 * any size is 0. False when a size, stride or the offset is negative, or the sum overflows. */
bool tn_extent_bytes(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                     int itemsize, uint64_t *need);

/* Whether every element of the geometry lies within nbytes of storage. Negative strides are
 * allowed (kernels' internal views, e.g. flip, walk backwards); sizes must be >= 0. */
bool tn_view_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                       int itemsize, size_t nbytes);

/* Broadcast two shapes; false if incompatible. */
bool tn_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out);

#endif
