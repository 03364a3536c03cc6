/* ops/bw_ops.c — aten backward operators that upstream writes as compositions of other ops
 * (trace_backward, index_select_backward, gather_backward, masked_select_backward,
 * cummaxmin_backward: CompositeImplicitAutograd; diagonal_backward: CompositeExplicitAutograd),
 * so the formulas generated from derivatives.yaml can call them (docs/bw_formulas.md).
 *
 * Each calls the ops upstream's composite calls, through the typed op API, in upstream's order.
 * Where upstream's composite takes an out-of-place variant for a tensor subclass
 * (`isTensorSubclassLike`, true while a dispatch mode is active), so do these. The composite
 * ones are also their own decompositions (autograd/decomp.c), so a double backward records
 * the ops they call. */
#include "ops/bw_ops.h"

#include "dispatch/modes.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

/* upstream's isTensorSubclassLike on plain tensors: a dispatch mode is active */
static bool subclass_like(void) { return tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled(); }

/* tensor.options() as a factory records it: dtype, strided, CPU */
#define OPTS(dt) TN_DT(dt), tn_py.layout_strided, tn_py.device_cpu, NULL

/* trace_backward(grad, sizes): zeros(M * N) with grad's options, grad filled in at the min(M, N)
 * diagonal positions arange(0, min(M, N) * (N + 1), N + 1), viewed as sizes */
PyObject *tn_op_trace_backward(tn_value *a) {
    const tn_value *sz = &a[1];
    if (sz->u.ints.n != 2) {
        PyErr_SetString(PyExc_RuntimeError, "expected matrix input");
        return NULL;
    }
    const int64_t m = sz->u.ints.v[0], n = sz->u.ints.v[1], step = n + 1, diag = m < n ? m : n;
    const int64_t numel = m * n;
    PyObject *g = a[0].u.obj;
    PyObject *z = tn_at_zeros(TN_IN(&numel, 1), OPTS(tn_tensor_of(g)->dtype));
    PyObject *idx = z ? tn_at_arange_start_step(TN_SI(0), TN_SI(diag * step), TN_SI(step), OPTS(TN_DTYPE_I64)) : NULL;
    PyObject *f = NULL, *r = NULL;
    if (idx) f = subclass_like() ? tn_at_index_fill_int_Tensor(z, 0, idx, g) : tn_at_index_fill__int_Tensor(z, 0, idx, g);
    if (f) r = tn_at_view(f, tn_ints_of(sz));
    Py_XDECREF(z);
    Py_XDECREF(idx);
    Py_XDECREF(f);
    return r;
}

/* diagonal_backward(grad_output, input_sizes, offset, dim1, dim2): zeros(input_sizes) with grad's
 * options, grad copied into its diagonal */
PyObject *tn_op_diagonal_backward(tn_value *a) {
    PyObject *g = a[0].u.obj;
    PyObject *z = tn_at_zeros(tn_ints_of(&a[1]), OPTS(tn_tensor_of(g)->dtype));
    PyObject *d = z ? tn_at_diagonal(z, a[2].u.i, a[3].u.i, a[4].u.i) : NULL;
    PyObject *c = d ? tn_at_copy_(d, g, false) : NULL;
    Py_XDECREF(d);
    if (!c) {
        Py_XDECREF(z);
        return NULL;
    }
    Py_DECREF(c);
    return z;
}

/* index_select_backward(grad, self_sizes, dim, index): grad.new_zeros(self_sizes, grad.options())
 * .index_add_(dim, index, grad) (index_add for a subclass-like index) */
PyObject *tn_op_index_select_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *index = a[3].u.obj;
    PyObject *z = tn_at_new_zeros(g, tn_ints_of(&a[1]), OPTS(tn_tensor_of(g)->dtype));
    if (!z) return NULL;
    if (subclass_like()) {
        PyObject *r = tn_at_index_add(z, a[2].u.i, index, g, TN_SDEF);
        Py_DECREF(z);
        return r;
    }
    PyObject *r = tn_at_index_add_(z, a[2].u.i, index, g, TN_SDEF);
    Py_DECREF(z);
    return r;
}

/* result.scatter_add_(dim, index, src), or scatter_add for subclass-like arguments; steals result */
static PyObject *scatter_add_into(PyObject *result, int64_t dim, PyObject *index, PyObject *src) {
    if (!result) return NULL;
    PyObject *r = subclass_like() ? tn_at_scatter_add(result, dim, index, src) : tn_at_scatter_add_(result, dim, index, src);
    Py_DECREF(result);
    return r;
}

/* gather_backward(grad, self, dim, index, sparse_grad): grad.new_zeros(self.sizes())
 * .scatter_add_(dim, index, grad); sparse_grad: _gather_sparse_backward */
PyObject *tn_op_gather_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *self = a[1].u.obj, *index = a[3].u.obj;
    if (a[4].u.i) return tn_at__gather_sparse_backward(self, a[2].u.i, index, g);
    const tn_tensor *st = tn_tensor_of(self);
    PyObject *z = tn_at_new_zeros(g, TN_IN(st->sizes, st->ndim), NULL, NULL, NULL, NULL);
    return scatter_add_into(z, a[2].u.i, index, g);
}

/* masked_select_backward(grad, input, mask): zeros_like(input.expand(infer_size(input, mask)))
 * .masked_scatter_(mask, grad) (masked_scatter for subclass-like arguments) */
PyObject *tn_op_masked_select_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *input = a[1].u.obj, *mask = a[2].u.obj;
    const tn_tensor *it = tn_tensor_of(input), *mt = tn_tensor_of(mask);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_shapes_checked(it->ndim, it->sizes, mt->ndim, mt->sizes, &nd, shape) < 0) return NULL;
    PyObject *e = tn_at_expand(input, TN_IN(shape, nd), false);
    PyObject *z = e ? tn_at_zeros_like(e, NULL, NULL, NULL, NULL, tn_py.memory_format_preserve) : NULL;
    Py_XDECREF(e);
    if (!z) return NULL;
    PyObject *r = subclass_like() ? tn_at_masked_scatter(z, mask, g) : tn_at_masked_scatter_(z, mask, g);
    Py_DECREF(z);
    return r;
}

/* cummaxmin_backward(grad, input, indices, dim): input itself when empty; else zeros of input's
 * sizes and options, .scatter_add_(dim, indices, grad) */
PyObject *tn_op_cummaxmin_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *input = a[1].u.obj, *indices = a[2].u.obj;
    const tn_tensor *t = tn_tensor_of(input);
    if (tn_numel(t) == 0) return Py_NewRef(input);
    PyObject *z = tn_at_zeros(TN_IN(t->sizes, t->ndim), OPTS(t->dtype));
    return scatter_add_into(z, a[3].u.i, indices, g);
}
