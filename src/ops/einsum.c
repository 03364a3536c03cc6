/* ops/einsum.c — einsum and tensordot as upstream's composites (Linear.cpp), every step an op
 * through the door: einsum parses the equation, takes diagonals of repeated labels, permutes and
 * unsqueezes every operand to (output labels, ellipsis, contracted labels), then contracts left
 * to right (or along `path`) with sumproduct_pair (permute + reshape + bmm); tensordot sums
 * broadcast contracted dims, permutes and reshapes to one mm (dot, or mul + sum, for a full
 * contraction). No kernels of their own. */
#include "ops/einsum.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

#include <ctype.h>
#include <string.h>

#define NLAB 52
#define ELL NLAB
#define MAXD TN_MAX_DIMS


/* x.sum(dims, keepdim=True) */
static PyObject *sum_keep(PyObject *x, const int64_t *dims, int n) { return tn_at_sum_dim_IntList(x, TN_IN(dims, n), true, NULL); }
static int64_t sz(PyObject *x, int d) { return tn_tensor_of(x)->sizes[d]; }

/* (left * right).sum(sum_dims) through permute + reshape + bmm, keepdim (upstream's sumproduct_pair) */
static PyObject *sumproduct_pair(PyObject *left_, PyObject *right_, const int64_t *sum_dims, int nsum) {
    if (nsum == 0) return tn_at_mul_Tensor(left_, right_);
    int dim = tn_tensor_of(left_)->ndim;
    if (tn_tensor_of(right_)->ndim != dim) {
        PyErr_SetString(PyExc_RuntimeError, "number of dimensions must match");
        return NULL;
    }
    bool is_sum[MAXD] = {0};
    for (int k = 0; k < nsum; k++) is_sum[sum_dims[k]] = true;
    int64_t lro[MAXD], lo[MAXD], ro[MAXD];
    int nlro = 0, nlo = 0, nro = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    PyObject *left = Py_NewRef(left_), *right = Py_NewRef(right_);
    for (int i = 0; i < dim; i++) {
        bool sl = sz(left, i) != 1, sr = sz(right, i) != 1;
        if (is_sum[i]) {
            if (sl && sr) {
                if (sz(left, i) != sz(right, i)) goto mismatch;
                sum_size *= sz(left, i);
            } else if (sl) {
                int64_t d = i;
                Py_SETREF(left, sum_keep(left, &d, 1));
                if (!left) { Py_DECREF(right); return NULL; }
            } else if (sr) {
                int64_t d = i;
                Py_SETREF(right, sum_keep(right, &d, 1));
                if (!right) { Py_DECREF(left); return NULL; }
            }
        } else if (sl && sr) {
            if (sz(left, i) != sz(right, i)) goto mismatch;
            lro[nlro++] = i;
            lro_size *= sz(left, i);
        } else if (sl) {
            lo[nlo++] = i;
            lo_size *= sz(left, i);
        } else {
            ro[nro++] = i;
            ro_size *= sz(right, i);
        }
    }
    if (nlo && nro && ro[nro - 1] < lo[0]) {   /* swap so bmm produces the output order directly */
        PyObject *t = left; left = right; right = t;
        int64_t tmp[MAXD];
        memcpy(tmp, lo, sizeof tmp); memcpy(lo, ro, sizeof tmp); memcpy(ro, tmp, sizeof tmp);
        int tn = nlo; nlo = nro; nro = tn;
        int64_t ts = lo_size; lo_size = ro_size; ro_size = ts;
    }
    int64_t out_size[MAXD], lperm[MAXD], rperm[MAXD], operm[MAXD];
    int no = 0, nl = 0, nr = 0;
    for (int k = 0; k < nlro; k++) out_size[no++] = sz(left, (int)lro[k]);
    for (int k = 0; k < nlo; k++) out_size[no++] = sz(left, (int)lo[k]);
    for (int k = 0; k < nsum; k++) out_size[no++] = 1;
    for (int k = 0; k < nro; k++) out_size[no++] = sz(right, (int)ro[k]);
    for (int k = 0; k < nlro; k++) lperm[nl++] = lro[k];
    for (int k = 0; k < nlo; k++) lperm[nl++] = lo[k];
    for (int k = 0; k < nsum; k++) lperm[nl++] = sum_dims[k];
    for (int k = 0; k < nro; k++) lperm[nl++] = ro[k];
    for (int k = 0; k < nlro; k++) rperm[nr++] = lro[k];
    for (int k = 0; k < nsum; k++) rperm[nr++] = sum_dims[k];
    for (int k = 0; k < nro; k++) rperm[nr++] = ro[k];
    for (int k = 0; k < nlo; k++) rperm[nr++] = lo[k];
    int i = 0;
    for (int k = 0; k < nlro; k++) operm[lro[k]] = i++;
    for (int k = 0; k < nlo; k++) operm[lo[k]] = i++;
    for (int k = 0; k < nsum; k++) operm[sum_dims[k]] = i++;
    for (int k = 0; k < nro; k++) operm[ro[k]] = i++;
    int64_t ls[3] = {lro_size, lo_size, sum_size}, rs[3] = {lro_size, sum_size, ro_size};
    PyObject *lp = tn_at_permute(left, TN_IN(lperm, nl));
    PyObject *lr = lp ? tn_at_reshape(lp, TN_IN(ls, 3)) : NULL;
    PyObject *rp = lr ? tn_at_permute(right, TN_IN(rperm, nr)) : NULL;
    PyObject *rr = rp ? tn_at_reshape(rp, TN_IN(rs, 3)) : NULL;
    PyObject *mm = rr ? tn_at_bmm(lr, rr) : NULL;
    PyObject *v = mm ? tn_at_view(mm, TN_IN(out_size, no)) : NULL;
    PyObject *r = v ? tn_at_permute(v, TN_IN(operm, no)) : NULL;
    Py_XDECREF(lp); Py_XDECREF(lr); Py_XDECREF(rp); Py_XDECREF(rr); Py_XDECREF(mm); Py_XDECREF(v);
    Py_DECREF(left); Py_DECREF(right);
    return r;
mismatch:
    Py_DECREF(left); Py_DECREF(right);
    PyErr_SetString(PyExc_RuntimeError, "non-broadcast dimensions must match");
    return NULL;
}

static int label_of(unsigned char c) { return isupper(c) ? c - 'A' : c - 'a' + 26; }
static char char_of(int s) { return (char)(s < 26 ? s + 'A' : s - 26 + 'a'); }

/* einsum(equation, tensors, *, path=None) */
PyObject *tn_einsum_d_einsum(tn_value *a) {
    const char *eq = PyUnicode_AsUTF8AndSize(a[0].u.obj, NULL);
    if (!eq) return NULL;
    PyObject *seq = PySequence_Tuple(a[1].u.obj);
    if (!seq) return NULL;
    Py_ssize_t num_ops = PyTuple_Size(seq);
    PyObject *operands[64];
    if (num_ops > 64) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_RuntimeError, "einsum(): too many operands");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < num_ops; i++) operands[i] = PyTuple_GetItem(seq, i);
    PyObject *result = NULL;
    Py_ssize_t live = 0;   /* ops[0..live) hold references */
    uint8_t (*op_labels)[MAXD + 1] = NULL;
    int *nlabels = NULL;
    PyObject **ops = NULL;
    int64_t (*dim_counts) = NULL;
    if (num_ops == 0) {
        PyErr_SetString(PyExc_RuntimeError, "einsum(): must provide at least one operand");
        goto done;
    }
    bool has_path = a[2].tag == TN_V_INTLIST;
    if (has_path) {
        int want = num_ops == 1 ? 1 : (int)(num_ops - 1) * 2;
        if (a[2].u.ints.n != want) {
            PyErr_Format(PyExc_RuntimeError, "einsum(): expected contraction path given in path parameter to have size %d but got %d",
                         want, a[2].u.ints.n);
            goto done;
        }
    }
    op_labels = PyMem_Calloc((size_t)num_ops, sizeof *op_labels);
    nlabels = PyMem_Calloc((size_t)num_ops, sizeof *nlabels);
    ops = PyMem_Calloc((size_t)num_ops, sizeof *ops);
    if (!op_labels || !nlabels || !ops) { PyErr_NoMemory(); goto done; }
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    bool ell_in_input = false;
    Py_ssize_t cur = 0;
    for (size_t i = 0; i < lhs_len; i++) {
        unsigned char c = (unsigned char)eq[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (ell_in_input) {
                PyErr_Format(PyExc_RuntimeError, "einsum(): found '.' for operand %zd for which an ellipsis was already found", cur);
                goto done;
            }
            if (!(i + 2 < lhs_len && eq[i + 1] == '.' && eq[i + 2] == '.')) {
                PyErr_Format(PyExc_RuntimeError, "einsum(): found '.' for operand %zd that is not part of any ellipsis", cur);
                goto done;
            }
            i += 2;
            if (nlabels[cur] < MAXD + 1) op_labels[cur][nlabels[cur]++] = ELL;
            ell_in_input = true;
        } else if (c == ',') {
            if (++cur >= num_ops) {
                PyErr_SetString(PyExc_RuntimeError, "einsum(): fewer operands were provided than specified in the equation");
                goto done;
            }
            ell_in_input = false;
        } else {
            if (!isalpha(c)) {
                PyErr_Format(PyExc_RuntimeError, "einsum(): invalid subscript given at index %zu in the equation string, subscripts must be in [a-zA-Z]", i);
                goto done;
            }
            if (nlabels[cur] >= MAXD + 1) {
                PyErr_SetString(PyExc_RuntimeError, "einsum(): too many subscripts for an operand");
                goto done;
            }
            op_labels[cur][nlabels[cur]++] = (uint8_t)label_of(c);
        }
    }
    if (cur != num_ops - 1) {
        PyErr_SetString(PyExc_RuntimeError, "einsum(): more operands were provided than specified in the equation");
        goto done;
    }
    int64_t label_count[NLAB] = {0};
    int ell_num_dim = 0;
    for (Py_ssize_t i = 0; i < num_ops; i++) {
        if (!PyObject_TypeCheck(operands[i], tn_py.tensor_class)) {
            PyErr_SetString(PyExc_TypeError, "einsum(): expected a list of tensors");
            goto done;
        }
        int ndims = tn_tensor_of(operands[i])->ndim, nl = nlabels[i];
        bool has_ell = false;
        for (int k = 0; k < nlabels[i]; k++) {
            if (op_labels[i][k] == ELL) { nl--; has_ell = true; }
            else label_count[op_labels[i][k]]++;
        }
        if (has_ell && ndims - nl > ell_num_dim) ell_num_dim = ndims - nl;
        if (has_ell ? nl > ndims : nl != ndims) {
            PyErr_Format(PyExc_RuntimeError, "einsum(): the number of subscripts in the equation (%d) %s (%d) for operand %zd%s", nl,
                         has_ell ? "is more than the number of dimensions" : "does not match the number of dimensions", ndims, i,
                         has_ell ? "" : " and no ellipsis was given");
            goto done;
        }
    }
    int label_perm_index[NLAB];
    for (int l = 0; l < NLAB; l++) label_perm_index[l] = -1;
    int perm_index = 0, ell_index = 0;
    bool ell_in_output = false;
    if (!arrow) {
        perm_index = ell_num_dim;
        ell_in_output = true;
        for (int l = 0; l < NLAB; l++)
            if (label_count[l] == 1) label_perm_index[l] = perm_index++;
    } else {
        const char *rhs = arrow + 2;
        size_t rl = strlen(rhs);
        for (size_t i = 0; i < rl; i++) {
            unsigned char c = (unsigned char)rhs[i];
            if (c == ' ') continue;
            if (c == '.') {
                if (ell_in_output) {
                    PyErr_SetString(PyExc_RuntimeError, "einsum(): found '.' for output but an ellipsis (...) was already found");
                    goto done;
                }
                if (!(i + 2 < rl && rhs[i + 1] == '.' && rhs[i + 2] == '.')) {
                    PyErr_SetString(PyExc_RuntimeError, "einsum(): found '.' for output that is not part of any ellipsis (...)");
                    goto done;
                }
                i += 2;
                ell_index = perm_index;
                perm_index += ell_num_dim;
                ell_in_output = true;
            } else {
                if (!isalpha(c)) {
                    PyErr_Format(PyExc_RuntimeError, "einsum(): invalid subscript given at index %zu in the equation string, subscripts must be in [a-zA-Z]",
                                 lhs_len + 2 + i);
                    goto done;
                }
                int l = label_of(c);
                if (!(label_count[l] > 0 && label_perm_index[l] == -1)) {
                    PyErr_Format(PyExc_RuntimeError, "einsum(): output subscript %c%s", c,
                                 label_perm_index[l] > -1 ? " appears more than once in the output"
                                                          : " does not appear in the equation for any input operand");
                    goto done;
                }
                label_perm_index[l] = perm_index++;
            }
        }
    }
    int out_num_dim = perm_index;
    if (!ell_in_output) {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for (int l = 0; l < NLAB; l++)
        if (label_count[l] > 0 && label_perm_index[l] == -1) label_perm_index[l] = perm_index++;
    if (perm_index > MAXD) {
        PyErr_SetString(PyExc_RuntimeError, "einsum(): too many dimensions");
        goto done;
    }
    int64_t label_size[NLAB], ell_sizes[MAXD];
    for (int l = 0; l < NLAB; l++) label_size[l] = 1;
    for (int j = 0; j < MAXD; j++) ell_sizes[j] = 1;
    dim_counts = PyMem_Calloc(MAXD, sizeof *dim_counts);
    if (!dim_counts) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < num_ops; i++) {
        PyObject *op = Py_NewRef(operands[i]);
        int64_t perm[MAXD];
        for (int k = 0; k < perm_index; k++) perm[k] = -1;
        int dim = 0;
        for (int k = 0; k < nlabels[i]; k++) {
            int s = op_labels[i][k];
            if (s == ELL) {
                int ndim = tn_tensor_of(operands[i])->ndim - (nlabels[i] - 1);
                for (int j = ell_num_dim - ndim; j < ell_num_dim; j++) {
                    if (sz(op, dim) != 1) {
                        if (!(ell_sizes[j] == 1 || ell_sizes[j] == sz(op, dim))) {
                            PyErr_Format(PyExc_RuntimeError, "einsum(): dimension %d covered by ellipsis in operand %zdhas size %lld which does not broadcast with previously seen ellipsis with size %lld for the respective dimension",
                                         dim, i, (long long)sz(op, dim), (long long)ell_sizes[j]);
                            Py_DECREF(op);
                            goto done;
                        }
                        ell_sizes[j] = sz(op, dim);
                        dim_counts[ell_index + j]++;
                    }
                    perm[ell_index + j] = dim++;
                }
            } else if (perm[label_perm_index[s]] == -1) {
                if (sz(op, dim) != 1) {
                    if (!(label_size[s] == 1 || label_size[s] == sz(op, dim))) {
                        PyErr_Format(PyExc_RuntimeError, "einsum(): subscript %c has size %lld for operand %zd which does not broadcast with previously seen size %lld",
                                     char_of(s), (long long)sz(op, dim), i, (long long)label_size[s]);
                        Py_DECREF(op);
                        goto done;
                    }
                    label_size[s] = sz(op, dim);
                    dim_counts[label_perm_index[s]]++;
                }
                perm[label_perm_index[s]] = dim++;
            } else {
                int prev = (int)perm[label_perm_index[s]];
                if (sz(op, dim) != sz(op, prev)) {
                    PyErr_Format(PyExc_RuntimeError, "einsum(): subscript %c is repeated for operand %zd but the sizes don't match, %lld != %lld",
                                 char_of(s), i, (long long)sz(op, dim), (long long)sz(op, prev));
                    Py_DECREF(op);
                    goto done;
                }
                PyObject *dg = tn_at_diagonal(op, 0, prev, dim);
                PyObject *mv = dg ? tn_at_movedim_int(dg, -1, prev) : NULL;
                Py_XDECREF(dg);
                Py_SETREF(op, mv);
                if (!op) goto done;
            }
        }
        for (int k = 0; k < perm_index; k++)
            if (perm[k] == -1) {
                Py_SETREF(op, tn_at_unsqueeze(op, dim));
                if (!op) goto done;
                perm[k] = dim++;
            }
        ops[i] = tn_at_permute(op, TN_IN(perm, perm_index));
        Py_DECREF(op);
        if (!ops[i]) goto done;
        live = i + 1;
    }
    /* contract: a deque held in ops[0..n); without a path the result goes to the front */
    Py_ssize_t n = num_ops;
    int pi = 0;
    while (n > 1) {
        Py_ssize_t i = 0, j = 1;
        if (has_path) {
            i = a[2].u.ints.v[pi++];
            j = a[2].u.ints.v[pi++];
            if (j < i) { Py_ssize_t t = i; i = j; j = t; }
            if (!(i != j && i >= 0 && j < n)) {
                PyErr_Format(PyExc_RuntimeError, "einsum(): invalid contraction (%zd, %zd%s", i, j,
                             i == j ? ") cannot contract an operand with itself" : ") operand index is out of bounds");
                goto done;
            }
        }
        PyObject *x = ops[i], *y = ops[j];
        memmove(ops + j, ops + j + 1, (size_t)(n - j - 1) * sizeof *ops);
        n--;
        memmove(ops + i, ops + i + 1, (size_t)(n - i - 1) * sizeof *ops);
        n--;
        live = n;
        int64_t sum_dims[MAXD], xs[MAXD], ys[MAXD];
        int nsum = 0, nx = 0, ny = 0;
        for (int d = out_num_dim; d < perm_index; d++) {
            bool sa = sz(x, d) != 1, sb = sz(y, d) != 1;
            if (sa && sb) {
                if (sz(x, d) != sz(y, d)) {
                    PyErr_SetString(PyExc_RuntimeError, "non-broadcast dimensions must match");
                    Py_DECREF(x); Py_DECREF(y);
                    goto done;
                }
                if (--dim_counts[d] == 1) { sum_dims[nsum++] = d; dim_counts[d] = 0; }
            } else if (dim_counts[d] == 1) {
                if (sa) { xs[nx++] = d; dim_counts[d] = 0; }
                else if (sb) { ys[ny++] = d; dim_counts[d] = 0; }
            }
        }
        if (nx) Py_SETREF(x, sum_keep(x, xs, nx));
        if (x && ny) Py_SETREF(y, sum_keep(y, ys, ny));
        PyObject *r = x && y ? sumproduct_pair(x, y, sum_dims, nsum) : NULL;
        Py_XDECREF(x); Py_XDECREF(y);
        if (!r) goto done;
        if (has_path) ops[n++] = r;
        else {
            memmove(ops + 1, ops, (size_t)n * sizeof *ops);
            ops[0] = r;
            n++;
        }
        live = n;
    }
    if (perm_index - out_num_dim > 0) {
        if (num_ops > 1) {
            const tn_tensor *t = tn_tensor_of(ops[0]);
            result = tn_at_view(ops[0], TN_IN(t->sizes, out_num_dim));
        } else {
            int64_t sd[MAXD];
            for (int d = out_num_dim; d < perm_index; d++) sd[d - out_num_dim] = d;
            result = tn_at_sum_dim_IntList(ops[0], TN_IN(sd, perm_index - out_num_dim), false, NULL);
        }
    } else {
        result = Py_NewRef(ops[0]);
    }
done:
    if (ops)
        for (Py_ssize_t i = 0; i < live; i++) Py_XDECREF(ops[i]);
    PyMem_Free(ops);
    PyMem_Free(op_labels);
    PyMem_Free(nlabels);
    PyMem_Free(dim_counts);
    Py_DECREF(seq);
    return result;
}

/* tensordot(self, other, dims_self, dims_other) */
static PyObject *tensordot(PyObject *in1, PyObject *in2, const tn_value *d1v, const tn_value *d2v) {
    const tn_tensor *t1 = tn_tensor_of(in1), *t2 = tn_tensor_of(in2);
    int n = d1v->u.ints.n;
    if (n != d2v->u.ints.n) {
        PyErr_SetString(PyExc_RuntimeError, "both dimension lists should have same length");
        return NULL;
    }
    if (t1->dtype != t2->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "both inputs should have same dtype");
        return NULL;
    }
    int64_t d1[MAXD], d2[MAXD];
    for (int i = 0; i < n; i++) {
        if (tn_wrap_dim(d1v->u.ints.v[i], t1->ndim, &d1[i]) < 0 || tn_wrap_dim(d2v->u.ints.v[i], t2->ndim, &d2[i]) < 0) return NULL;
    }
    PyObject *x = Py_NewRef(in1), *y = Py_NewRef(in2), *r = NULL;
    PyObject *dt = TN_DT(t1->dtype);
    int64_t csize = 1;
    for (int i = 0; i < n; i++) {
        int64_t s1 = t1->sizes[d1[i]], s2 = t2->sizes[d2[i]];
        if (s2 == 1) {
            Py_SETREF(x, tn_at_sum_dim_IntList(x, TN_IS(d1[i]), true, dt));
            if (!x) goto out;
        } else if (s1 == 1) {
            Py_SETREF(y, tn_at_sum_dim_IntList(y, TN_IS(d2[i]), true, dt));
            if (!y) goto out;
        } else if (s1 != s2) {
            PyErr_Format(PyExc_RuntimeError, "contracted dimensions need to match, but first has size %lld in dim %lld and second has size %lld in dim %lld",
                         (long long)s1, (long long)d1v->u.ints.v[i], (long long)s2, (long long)d2v->u.ints.v[i]);
            goto out;
        } else {
            csize *= s1;
        }
    }
    bool c1[MAXD] = {0}, c2[MAXD] = {0};
    for (int i = 0; i < n; i++) {
        if (c1[d1[i]]) { PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d1[i]); goto out; }
        c1[d1[i]] = true;
    }
    for (int i = 0; i < n; i++) {
        if (c2[d2[i]]) { PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d2[i]); goto out; }
        c2[d2[i]] = true;
    }
    int64_t p1[MAXD], p2[MAXD], rs[2 * MAXD];
    int np1 = 0, np2 = 0, nr = 0;
    int64_t size1 = 1, size2 = 1;
    for (int i = 0; i < t1->ndim; i++)
        if (!c1[i]) { p1[np1++] = i; size1 *= sz(x, i); rs[nr++] = sz(x, i); }
    for (int i = 0; i < n; i++) p1[np1++] = d1v->u.ints.v[i];
    for (int i = 0; i < n; i++) p2[np2++] = d2v->u.ints.v[i];
    for (int i = 0; i < t2->ndim; i++)
        if (!c2[i]) { p2[np2++] = i; size2 *= sz(y, i); rs[nr++] = sz(y, i); }
    PyObject *a1 = tn_at_permute(x, TN_IN(p1, np1));
    PyObject *a2 = a1 ? tn_at_permute(y, TN_IN(p2, np2)) : NULL;
    PyObject *m = NULL;
    if (a2) {
        if (size1 != 1 || size2 != 1) {
            int64_t s1[2] = {size1, csize}, s2[2] = {csize, size2};
            PyObject *b1 = tn_at_reshape(a1, TN_IN(s1, 2));
            PyObject *b2 = b1 ? tn_at_reshape(a2, TN_IN(s2, 2)) : NULL;
            m = b2 ? tn_at_mm(b1, b2) : NULL;
            Py_XDECREF(b1); Py_XDECREF(b2);
        } else if (tn_is_contiguous(tn_tensor_of(a1)) && tn_is_contiguous(tn_tensor_of(a2))) {
            PyObject *f1 = tn_at_flatten_using_ints(a1, 0, -1);
            PyObject *f2 = f1 ? tn_at_flatten_using_ints(a2, 0, -1) : NULL;
            m = f2 ? tn_at_dot(f1, f2) : NULL;
            Py_XDECREF(f1); Py_XDECREF(f2);
        } else {
            PyObject *q1 = tn_at_squeeze(a1);
            PyObject *q2 = q1 ? tn_at_squeeze(a2) : NULL;
            PyObject *pr = q2 ? tn_at_mul_Tensor(q1, q2) : NULL;
            m = pr ? tn_at_sum(pr, dt) : NULL;
            Py_XDECREF(q1); Py_XDECREF(q2); Py_XDECREF(pr);
        }
    }
    r = m ? tn_at_reshape(m, TN_IN(rs, nr)) : NULL;
    Py_XDECREF(a1); Py_XDECREF(a2); Py_XDECREF(m);
out:
    Py_XDECREF(x); Py_XDECREF(y);
    return r;
}

PyObject *tn_einsum_d_tensordot(tn_value *a) { return tensordot(a[0].u.obj, a[1].u.obj, &a[2], &a[3]); }

/* tensordot.out(self, other, dims_self, dims_other, *, out): dtype must match exactly */
PyObject *tn_einsum_d_tensordot_out(tn_value *a) {
    PyObject *r = tensordot(a[0].u.obj, a[1].u.obj, &a[2], &a[3]);
    if (!r) return NULL;
    PyObject *out = a[4].u.obj;
    const tn_tensor *rt = tn_tensor_of(r), *ot = tn_tensor_of(out);
    if (rt->dtype != ot->dtype) {
        PyErr_Format(PyExc_RuntimeError, "tensordot: Expected the output tensor to have dtype %s, but got an output tensor with dtype %s",
                     tn_dtype_cpp_name(rt->dtype), tn_dtype_cpp_name(ot->dtype));
        Py_DECREF(r);
        return NULL;
    }
    return tn_out_deliver(r, out, "tensordot");
}
