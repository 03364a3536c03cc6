/* sparse.h — sparse COO tensors (ops/sparse.c, docs/sparse_coo.md): the door's sparse stage and the
 * CompositeImplicitAutograd decompositions of the sparse overloads (named in autograd/decomp.c). */
#ifndef TN_OPS_SPARSE_H
#define TN_OPS_SPARSE_H

#include "dispatch/door.h"

/* torch._C._check_sparse_tensor_invariants (python/serialization.c sets it): sparse_coo_tensor
 * validates its indices against the size when on */
extern bool tn_sparse_check_invariants;

/* whether a sparse COO tensor is among the call's tensor arguments (lists included) */
bool tn_sparse_among(int op, tn_value *args);
/* run the call on its sparse arguments: our SparseCPU kernel for the overload, a
 * CompositeImplicitAutograd decomposition, or a refusal (upstream's words where upstream has no kernel) */
PyObject *tn_sparse_call(int op, tn_value *args);

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
PyObject *tn_sparse_d_embedding_sparse_backward(tn_value *a); /* embedding_sparse_backward */

#endif
