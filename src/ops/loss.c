/* ops/loss.c — loss functions training code reaches that no family had: mse_loss (upstream's
 * structured kernel: the elementwise (self - target)^2 of the broadcast operands, then mean or
 * sum over every element for reduction Mean / Sum). Composed of the elementwise and reduction
 * ops through the door (tn_aten), so it rounds as they do; its gradient is MseLossBackward0 with
 * the mse_loss_backward kernel (ops/backward.c). Also broadcast_tensors (upstream's
 * expand_outplace: each tensor itself when it has the broadcast shape, else its expand). */
#include "autograd/autograd.h"
#include "ops/common.h"
#include "python/common.h"
#include "tn_ops_gen.h"

/* mse_loss(self, target, reduction=Mean) */
PyObject *tn_op_mse_loss(tn_value *a) {
    int64_t red = a[2].u.i;
    PyObject *d = tn_aten(TN_ROW_sub_Tensor, "(OO)", a[0].u.obj, a[1].u.obj);
    PyObject *sq = d ? tn_aten(TN_ROW_mul_Tensor, "(OO)", d, d) : NULL;
    Py_XDECREF(d);
    if (!sq || red == 0) return sq;
    PyObject *r = tn_aten(red == 1 ? TN_ROW_mean : TN_ROW_sum, "(O)", sq);
    Py_DECREF(sq);
    return r;
}

/* broadcast_tensors(tensors) -> Tensor[] */
PyObject *tn_op_broadcast_tensors(tn_value *a) {
    PyObject *l = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(l);
    const tn_tensor *ts[64];
    if (n > 64) return tn_not_implemented("broadcast_tensors of more than 64 tensors");
    for (Py_ssize_t i = 0; i < n; i++) ts[i] = tn_tensor_of(PyTuple_GetItem(l, i));
    int nd = 0;
    int64_t shape[TN_MAX_DIMS];
    if (n > 0 && tn_broadcast_tensors_shape((int)n, ts, &nd, shape) < 0) return NULL;
    PyObject *out = PyTuple_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GetItem(l, i);
        bool same = ts[i]->ndim == nd;
        for (int d = 0; same && d < nd; d++) same = ts[i]->sizes[d] == shape[d];
        PyObject *r;
        if (same) r = Py_NewRef(t);
        else {
            PyObject *sz = tn_py_size_new(nd, shape);
            r = sz ? tn_aten(TN_ROW_expand, "(OO)", t, sz) : NULL;
            Py_XDECREF(sz);
        }
        if (!r) { Py_DECREF(out); return NULL; }
        PyTuple_SetItem(out, i, r);
    }
    return out;
}
