/* object.h — the tensor object (the instance layout of torch._C.TensorBase) and the storage
 * object, and how every layer allocates and wraps them (object.c). The Python types themselves
 * (methods, getters, type creation) are the Python face's (python/tensor.c); see
 * docs/ARCHITECTURE.md, "Layers and folders". */
#ifndef TN_CORE_OBJECT_H
#define TN_CORE_OBJECT_H

#include "core/pystate.h"

/* A strided nested tensor (upstream's NestedTensorImpl; ops/nested.c, docs/nested_strided.md): the
 * tensor object's t is its buffer, a 1-d contiguous view of the storage; component i (of n) has
 * dim sizes and strides at sizes[i * dim] / strides[i * dim] and starts offsets[i] elements after
 * the buffer's start. One allocation (tn_nested_alloc); NULL on every other tensor. */
typedef struct tn_nested {
    int64_t n;
    int dim;
    int64_t *sizes, *strides, *offsets;
} tn_nested;
/* live strided nested tensors: the door looks for one among the arguments only while any exists */
extern int64_t tn_nested_live;
tn_nested *tn_nested_alloc(int64_t n, int dim);   /* NULL on allocation failure (no exception) */
tn_nested *tn_nested_copy(const tn_nested *m);    /* the same; NULL on allocation failure */
/* dst (a tensor object) gets a copy of src's metadata (NULL: none), its own freed; -1 with
 * MemoryError. Every path that copies a tensor object's t copies this with it. */
int tn_nested_set(PyObject *dst, const tn_nested *src);
static inline int64_t tn_nested_numel(const tn_nested *nt) {
    int64_t total = 0;
    for (int64_t i = 0; i < nt->n; i++) {
        int64_t p = 1;
        for (int d = 0; d < nt->dim; d++) p *= nt->sizes[i * nt->dim + d];
        total += p;
    }
    return total;
}

/* each component densely packed, one after another from the buffer's start (upstream's
 * nested_tensor_impl_is_contiguous) */
bool tn_nested_is_contiguous(const tn_nested *nt);

/* A sparse COO tensor (upstream's SparseTensorImpl, layout torch.sparse_coo; ops/sparse.c,
 * docs/sparse_coo.md): the tensor object's t carries the size and dtype over a storage holding no
 * bytes (zero strides), its layout field is torch.sparse_coo, and this (one allocation) holds
 * indices (int64 [sparse_dim, nnz]) and values ([nnz, *dense sizes]), both held, and the coalesced
 * flag. NULL on every other tensor. */
typedef struct tn_sparse {
    int sparse_dim, dense_dim;
    bool coalesced;
    PyObject *indices, *values;
    /* the sparse compressed layouts (upstream's SparseCsrTensorImpl; ops/sparse_compressed.c,
     * docs/sparse_compressed.md): kind is TN_SPARSE_CSR / CSC / BSR / BSC, indices the compressed
     * indices ([*batch, ncompressed + 1]), plain the plain ones ([*batch, nnz]), values
     * [*batch, nnz, *block, *dense]; sparse_dim is 2 and dense_dim counts the dense dims. A COO
     * tensor has kind TN_SPARSE_COO and no plain. */
    int kind;
    PyObject *plain;
} tn_sparse;
enum { TN_SPARSE_COO, TN_SPARSE_CSR, TN_SPARSE_CSC, TN_SPARSE_BSR, TN_SPARSE_BSC };
/* live sparse tensors: the door looks for one among the arguments only while any exists */
extern int64_t tn_sparse_live;
/* dst (a tensor object) gets src's metadata (NULL: none; indices and values shared, as upstream's
 * shallow copy), its own released; -1 with MemoryError */
int tn_sparse_set(PyObject *dst, const tn_sparse *src);
/* dst takes src's sparse metadata and layout (a detach, .data, set_data); nothing when neither is sparse */
int tn_tensor_copy_sparse(PyObject *dst, PyObject *src);
/* A quantized tensor (upstream's QTensorImpl; ops/qtensor.c, docs/quant_tensors.md): `t` holds the
 * integers with the quantized dtype (quint8 / qint8 / qint32), this its quantizer. One
 * allocation (tn_quant_set); NULL on every other tensor. */
typedef struct tn_qparams {
    int scheme;              /* index into torch's qschemes: 0 per_tensor_affine, 1 per_channel_affine, ... */
    double scale;            /* per tensor */
    int64_t zero_point;
    PyObject *scales;        /* per channel: float64 and int64 1-d tensors (held), the axis */
    PyObject *zero_points;
    int64_t axis;
} tn_qparams;
/* live quantized tensors: the door looks for one among the arguments only while any exists */
extern int64_t tn_quant_live;
/* dst's quantizer becomes a copy of src (NULL: none); -1 with an exception on allocation failure */
int tn_quant_set(PyObject *dst, const tn_qparams *src);

/* a tangent of a nested forward level (autograd/forward.c), valid while gen is the level's */
typedef struct tn_fw_slot { PyObject *g; uint64_t gen; } tn_fw_slot;

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    PyObject *weakrefs;
    tn_tensor t;
    bool requires_grad;
    bool wrapped_number;     /* made from a Python number: lower promotion priority */
    PyObject *grad;          /* .grad or NULL */
    PyObject *grad_fn;       /* autograd node or NULL */
    PyObject *base;          /* ._base of a view, or NULL */
    int output_nr;           /* which output of grad_fn this tensor is */
    bool retains_grad;       /* retain_grad() on a non-leaf */
    PyObject *grad_acc;      /* weak reference to the leaf's AccumulateGrad node, or NULL */
    int64_t view_version;    /* a view's storage version when its grad_fn was set */
    PyObject *fw_grad;       /* forward-mode tangent (autograd/forward.c), valid while fw_gen is current */
    uint64_t fw_gen;
    tn_fw_slot *fw_more;     /* tangents at nested levels 1, 2, ... (torch.func's jvp of jvp), or NULL */
    int fw_nmore;
    bool fw_noview;          /* a view forward AD does not see through (_make_dual, _fw_primal) */
    bool inf_versioned;      /* detach / .data of an inference tensor made outside inference mode: still an
                              * inference tensor, but with a version counter of its own (its storage alias) */
    uint8_t ng_view;         /* a view made in no_grad (1) / inference (2) mode of a base requiring grad (autograd/views.c) */
    /* torch.func (dispatch/functorch.c): a BatchedTensor of vmap level bt_level holds the whole
     * tensor in bt_value, batched along its dim bt_bdim; its own geometry is the logical one
     * (bt_value's without that dim). grad_level: made by _wrap_for_grad at that grad level. */
    PyObject *bt_value;
    int bt_level, bt_bdim;
    int grad_level;
    uint64_t grad_gen;       /* which push of that level (levels are reused) */
    /* tensor subclasses (dispatch/subclass.c): py_policy's TN_PY_* bits say which metadata queries
     * go to the class's __torch_dispatch__ (_make_wrapper_subclass's dispatch_sizes_strides_policy,
     * dispatch_device, dispatch_layout); layout is the one given to _make_wrapper_subclass (NULL:
     * strided) */
    uint8_t py_policy;
    /* Tensor._make_subclass(device_for_backend_keys=): 1 + the device type whose backend keys
     * torch._C._dispatch_key_set reports (a FakeTensor: cpu keys over meta storage), 0: the storage's */
    uint8_t key_device;
    PyObject *layout;
    tn_nested *nested;       /* a strided nested tensor's components (above), or NULL */
    tn_sparse *sparse;       /* a sparse COO or compressed tensor's indices and values (above), or NULL */
    tn_qparams *quant;       /* a quantized tensor's quantizer (above), or NULL */
} tn_tensor_obj;

/* TN_PY_NESTED: made with the NestedTensor dispatch key (a jagged NestedTensor): is_nested, and
 * CompositeImplicitAutograd ops reach its class undecomposed, as upstream's nested keys */
enum { TN_PY_STRIDES = 1, TN_PY_SIZES = 2, TN_PY_DEVICE = 4, TN_PY_LAYOUT = 8, TN_PY_NESTED = 16 };

typedef struct {
    PyObject_HEAD
    PyObject *dict;
    PyObject *weakrefs;
    tn_storage *s;
} tn_storage_obj;

/* A new uninitialised instance of tp (its tp_alloc slot); NULL with an exception. */
PyObject *tn_obj_alloc(PyTypeObject *tp);
/* A new Python storage of type tp owning s (steals the reference; decref'd on failure). */
PyObject *tn_storage_obj_new(PyTypeObject *tp, tn_storage *s);
static inline bool tn_py_is_tensor(PyObject *o) {
    return PyObject_TypeCheck(o, tn_py.TensorBase);
}
static inline tn_tensor *tn_tensor_of(PyObject *o) { return &((tn_tensor_obj *)o)->t; }
static inline tn_nested *tn_nested_of(PyObject *o) { return tn_py_is_tensor(o) ? ((tn_tensor_obj *)o)->nested : NULL; }
/* a sparse COO tensor's metadata (NULL on any other tensor, the compressed layouts included) */
static inline tn_sparse *tn_sparse_of(PyObject *o) {
    tn_sparse *m = tn_py_is_tensor(o) ? ((tn_tensor_obj *)o)->sparse : NULL;
    return m && m->kind == TN_SPARSE_COO ? m : NULL;
}
/* a sparse compressed (CSR, CSC, BSR, BSC) tensor's metadata, or NULL */
static inline tn_sparse *tn_compressed_of(PyObject *o) {
    tn_sparse *m = tn_py_is_tensor(o) ? ((tn_tensor_obj *)o)->sparse : NULL;
    return m && m->kind != TN_SPARSE_COO ? m : NULL;
}
static inline tn_qparams *tn_quant_of(PyObject *o) { return tn_py_is_tensor(o) ? ((tn_tensor_obj *)o)->quant : NULL; }
/* an inference tensor without a version counter (core/tensor.h): writes outside inference mode and
 * _version are refused */
static inline bool tn_no_version(PyObject *o) {
    return ((tn_tensor_obj *)o)->t.storage->inference && !((tn_tensor_obj *)o)->inf_versioned;
}

/* A new torch.Tensor holding `t` (its storage reference is taken over). NULL on failure (the
 * storage reference is then released). */
PyObject *tn_tensor_wrap(const tn_tensor *t);
/* A new uninitialised contiguous tensor; NULL with an exception (e.g. size overflow). */
PyObject *tn_tensor_new_empty(int ndim, const int64_t *sizes, tn_dtype dtype, tn_device_type dev);
/* A view sharing `base`'s storage with new geometry; records ._base. */
PyObject *tn_tensor_new_view(PyObject *base, int ndim, const int64_t *sizes, const int64_t *strides,
                             int64_t offset);
/* A 0-dim tensor from a Python number (wrapped_number set when `wrapped`). */
PyObject *tn_tensor_from_number(PyObject *num, bool wrapped);
/* The UntypedStorage object of a storage (cached on the storage). New reference. */
PyObject *tn_storage_to_python(tn_storage *s);
/* Check that a view with this geometry stays inside a storage of nbytes; RuntimeError if not. */
int tn_check_in_bounds(int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset,
                       tn_dtype dtype, size_t nbytes);

#endif
