/* sparse.h — sparse COO tensors (ops/sparse.c, docs/sparse_coo.md): the door's sparse stage and the
 * CompositeImplicitAutograd decompositions of the sparse overloads (named in autograd/decomp.c). */
#ifndef TN_OPS_SPARSE_H
#define TN_OPS_SPARSE_H

#include "dispatch/door.h"

/* torch._C._check_sparse_tensor_invariants (python/serialization.c sets it): sparse_coo_tensor
 * validates its indices against the size when on */
extern bool tn_sparse_check_invariants;
/* whether the global setting was ever set (torch.sparse.check_sparse_tensor_invariants): until
 * then a sparse factory called with check_invariants=None warns once, as upstream's Context */
extern bool tn_sparse_check_invariants_set;
int tn_sparse_warn_implicit_checks(void);

/* whether a sparse COO tensor is among the call's tensor arguments (lists included) */
bool tn_sparse_among(int op, tn_value *args);
/* run the call on its sparse arguments: our SparseCPU kernel for the overload, a
 * CompositeImplicitAutograd decomposition, or a refusal (upstream's words where upstream has no kernel) */
PyObject *tn_sparse_call(int op, tn_value *args);

/* beta * self + alpha * sparse @ dense for a 2-d COO matrix (self NULL: zeros), entries in order;
 * fused: each float32 / float64 entry's row added with fused multiply-adds (upstream's COO axpy),
 * else each product rounded (the compressed layouts, upstream's sequential CSR kernels) */
PyObject *tn_sparse_addmm(PyObject *self, PyObject *sparse, PyObject *dense, const tn_value *beta, const tn_value *alpha, bool fused);

/* decompositions (upstream's CompositeImplicitAutograd bodies), through the typed op API */
PyObject *tn_sparse_d_coo_tensor_indices(tn_value *a);       /* sparse_coo_tensor.indices */
PyObject *tn_sparse_d_coo_tensor_indices_size(tn_value *a);  /* sparse_coo_tensor.indices_size */
PyObject *tn_sparse_d_coo_tensor_unsafe(tn_value *a);        /* _sparse_coo_tensor_unsafe */
PyObject *tn_sparse_d_validate_args(tn_value *a);            /* _validate_sparse_coo_tensor_args */
PyObject *tn_sparse_d_to_dense(tn_value *a);                 /* to_dense */
PyObject *tn_sparse_d_to_dense_backward(tn_value *a);        /* to_dense_backward */
PyObject *tn_sparse_d_to_sparse(tn_value *a);                /* to_sparse */
PyObject *tn_sparse_d_to_sparse_dim(tn_value *a);            /* to_sparse.sparse_dim */
PyObject *tn_sparse_d_coalesce(tn_value *a);                 /* coalesce */
PyObject *tn_sparse_d_sparse_mm(tn_value *a);                /* _sparse_mm */
PyObject *tn_sparse_d_sparse_sum(tn_value *a);               /* _sparse_sum */
PyObject *tn_sparse_d_sparse_sum_dtype(tn_value *a);         /* _sparse_sum.dtype */
PyObject *tn_sparse_d_sparse_sum_dim_dtype(tn_value *a);     /* _sparse_sum.dim_dtype */
PyObject *tn_sparse_d_embedding_sparse_backward(tn_value *a); /* embedding_sparse_backward */
PyObject *tn_sparse_d_softmax_int(tn_value *a);              /* _sparse_softmax.int */
PyObject *tn_sparse_d_log_softmax_int(tn_value *a);          /* _sparse_log_softmax.int */

/* the sparse compressed layouts (ops/sparse_compressed.c, docs/sparse_compressed.md) */
/* whether a compressed tensor is among the call's tensor arguments */
bool tn_compressed_among(int op, tn_value *args);
/* the call's compressed kernel (handled set), or nothing (handled false) */
PyObject *tn_compressed_call(int op, tn_value *args, bool *handled);
/* _to_sparse(self, layout=<compressed>, blocksize, dense_dim) */
PyObject *tn_compressed_to_layout(PyObject *self, PyObject *layout, const tn_value *blocksize, const tn_value *dense_dim);
/* a compressed tensor's COO form (sparse_dim: -1, or the one asked) */
PyObject *tn_compressed_to_coo(PyObject *self, int64_t sparse_dim);
/* torch.empty / torch.zeros with a compressed layout (who: "empty" / "zeros"): no elements */
PyObject *tn_compressed_empty(const int64_t *size, int n, PyObject *layout, tn_dtype dtype, const char *who);
/* decompositions: the factories, their validation and the conversions' composites */
PyObject *tn_compressed_d_unsafe(tn_value *a);        /* _sparse_compressed_tensor_unsafe */
PyObject *tn_compressed_d_csr_size(tn_value *a);      /* sparse_csr_tensor.crow_col_value_size */
PyObject *tn_compressed_d_csc_size(tn_value *a);      /* sparse_csc_tensor.ccol_row_value_size */
PyObject *tn_compressed_d_bsr_size(tn_value *a);      /* sparse_bsr_tensor.crow_col_value_size */
PyObject *tn_compressed_d_bsc_size(tn_value *a);      /* sparse_bsc_tensor.ccol_row_value_size */
PyObject *tn_compressed_d_csr(tn_value *a);           /* sparse_csr_tensor.crow_col_value */
PyObject *tn_compressed_d_csc(tn_value *a);           /* sparse_csc_tensor.ccol_row_value */
PyObject *tn_compressed_d_bsr(tn_value *a);           /* sparse_bsr_tensor.crow_col_value */
PyObject *tn_compressed_d_bsc(tn_value *a);           /* sparse_bsc_tensor.ccol_row_value */
PyObject *tn_compressed_d_csr_unsafe(tn_value *a);    /* _sparse_csr_tensor_unsafe */
PyObject *tn_compressed_d_csc_unsafe(tn_value *a);    /* _sparse_csc_tensor_unsafe */
PyObject *tn_compressed_d_bsr_unsafe(tn_value *a);    /* _sparse_bsr_tensor_unsafe */
PyObject *tn_compressed_d_bsc_unsafe(tn_value *a);    /* _sparse_bsc_tensor_unsafe */
PyObject *tn_compressed_d_validate(tn_value *a);      /* _validate_sparse_compressed_tensor_args */
PyObject *tn_compressed_d_validate_csr(tn_value *a);  /* _validate_sparse_csr_tensor_args */
PyObject *tn_compressed_d_validate_csc(tn_value *a);  /* _validate_sparse_csc_tensor_args */
PyObject *tn_compressed_d_validate_bsr(tn_value *a);  /* _validate_sparse_bsr_tensor_args */
PyObject *tn_compressed_d_validate_bsc(tn_value *a);  /* _validate_sparse_bsc_tensor_args */
PyObject *tn_compressed_d_to_csr(tn_value *a);        /* to_sparse_csr */
PyObject *tn_compressed_d_to_csc(tn_value *a);        /* to_sparse_csc */
PyObject *tn_compressed_d_to_bsr(tn_value *a);        /* to_sparse_bsr */
PyObject *tn_compressed_d_to_bsc(tn_value *a);        /* to_sparse_bsc */
PyObject *tn_compressed_d_sparse_mm_reduce(tn_value *a); /* _sparse_mm.reduce */

#endif
