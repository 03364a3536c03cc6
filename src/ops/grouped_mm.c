/* ops/grouped_mm.c — aten::_grouped_mm: a matrix product per group, the groups cut along one
 * dimension by the cumulative ends in `offs` (transformers' mixture-of-experts layers).
 *
 * Upstream 2.13 on CPU (measured, docs/grouped_mm.md): float32, bfloat16 and float16 only; each
 * operand a row-major or column-major matrix (batch) whose leading stride is a multiple of 16
 * bytes; `offs` int32 and 1-D, required exactly when an operand is 2-D; no bias; out_dtype only
 * the input's. The result has its last dimension padded to 16 bytes in its strides. Each group is
 * one mm (a group's bounds follow Tensor.slice: negative ends count from the end, clamped), so
 * rows no group reaches are not written upstream (uninitialised); here they are zero.
 *
 * Every group is one call of the GEMM kernels (kernels/gemm.h, kernels/gemm_lp.h) writing the
 * result in place; a column-major left operand is copied once to row-major, a column-major right
 * operand is read in place by the transposed-B kernels. */
#include "ops/common.h"
#include "tn_ops_gen.h"
#include "kernels/gemm.h"
#include "kernels/gemm_lp.h"

#include "dispatch/door.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return -1;
}

/* The dim whose stride is the matrix's leading one: the last (column-major) or the one before
 * (row-major), tried in that order as upstream; -1 when neither. */
static int lead_dim(const tn_tensor *t) {
    const int e = t->ndim - 1;
    const int64_t *st = t->strides, *sz = t->sizes;
    if (st[e - 1] == 1 && st[e] >= (sz[e - 1] > 1 ? sz[e - 1] : 1)) return e;
    if (st[e] == 1 && st[e - 1] >= (sz[e] > 1 ? sz[e] : 1)) return e - 1;
    return -1;
}

/* upstream's check_valid_strides_and_return_transposed: 1 when column-major, 0 when row-major */
static int layout_of(const tn_tensor *t) {
    const int d = lead_dim(t), e = t->ndim - 1;
    const int64_t *st = t->strides, *sz = t->sizes;
    if (d >= 0) return st[d] % (16 / tn_dtype_itemsize(t->dtype)) == 0 ? d == e : fail("strides should be multiple of 16 bytes");
    char a[256], b[256];
    tn_shape_str(a, sizeof a, t->ndim, st);
    tn_shape_str(b, sizeof b, t->ndim, sz);
    PyErr_Format(PyExc_RuntimeError, "Invalid strides/sizes, got %s for strides and %s for sizes", a, b);
    return -1;
}

static bool gmm_dtype(tn_dtype d) { return d == TN_DTYPE_F32 || d == TN_DTYPE_BF16 || d == TN_DTYPE_F16; }

/* Tensor.slice(dim, start, end)'s bounds on a dimension of size n: [*s, *e) */
static void slice_bounds(int64_t start, int64_t end, int64_t n, int64_t *s, int64_t *e) {
    if (start < 0) start += n;
    if (end < 0) end += n;
    start = start < 0 ? 0 : start > n ? n : start;
    end = end < 0 ? 0 : end > n ? n : end;
    *s = start;
    *e = end < start ? start : end;
}

/* One product C[M,N] = A[M,K] @ B[K,N]: A row-major (row stride lda), B row-major (row stride
 * ldb) or, when bt, given as W = B^T (N,K) row-major with row stride ldb; C row stride ldc. */
typedef struct {
    tn_dtype dt;
    int64_t M, N, K, lda, ldb, ldc;
    const char *a, *b;
    char *c;
    bool bt;
} gemm_job;

/* The 16-bit kernels move k-pairs as 32-bit units, so they take operands 4-byte aligned; a group
 * starting at an odd element (2d x 2d's contraction slices) is copied: rows x cols at row stride
 * ld into a buffer with an even row stride (*ld updated). NULL with MemoryError. */
static uint16_t *aligned_copy(const char *src, int64_t rows, int64_t cols, int64_t *ld) {
    const int64_t nld = cols + (cols & 1);
    uint16_t *d = malloc((size_t)(rows * nld) * sizeof *d);
    if (!d) return (uint16_t *)PyErr_NoMemory();
    for (int64_t r = 0; r < rows; r++) memcpy(d + r * nld, src + r * *ld * 2, (size_t)cols * 2);
    *ld = nld;
    return d;
}

static int run_gemm(const gemm_job *jin) {
    if (jin->M == 0 || jin->N == 0 || jin->K == 0) return 0;   /* the result is zero-filled */
    gemm_job jc = *jin;
    const gemm_job *j = &jc;
    uint16_t *acopy = NULL, *bcopy = NULL;
    if (jc.dt != TN_DTYPE_F32 && ((uintptr_t)jc.a & 3)) {
        if (!(acopy = aligned_copy(jc.a, jc.M, jc.K, &jc.lda))) return -1;
        jc.a = (const char *)acopy;
    }
    if (jc.dt != TN_DTYPE_F32 && ((uintptr_t)jc.b & 3)) {
        if (!(bcopy = aligned_copy(jc.b, jc.bt ? jc.N : jc.K, jc.bt ? jc.K : jc.N, &jc.ldb))) { free(acopy); return -1; }
        jc.b = (const char *)bcopy;
    }
    const bool lp = j->dt != TN_DTYPE_F32;
    const tn_lp_type lt = j->dt == TN_DTYPE_BF16 ? TN_LP_BF16 : TN_LP_F16;
    size_t bytes = lp ? tn_gemm_lp_scratch(lt, j->bt, j->M, j->N, j->K)
                 : j->bt ? tn_gemm_nt_f32_scratch(j->M, j->N, j->K) : tn_gemm_f32_scratch(j->M, j->N, j->K);
    void *scratch = bytes ? malloc(bytes) : NULL;
    if (bytes && !scratch) {
        free(acopy); free(bcopy);
        PyErr_NoMemory();
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    if (lp)
        tn_gemm_lp(lt, j->bt, j->M, j->N, j->K, 1.0f, (const uint16_t *)j->a, j->lda, (const uint16_t *)j->b, j->ldb, 0.0f,
                   (uint16_t *)j->c, j->ldc, scratch);
    else if (j->bt)
        tn_gemm_nt_f32(j->M, j->N, j->K, 1.0f, (const float *)j->a, j->lda, (const float *)j->b, j->ldb, 0.0f, (float *)j->c,
                       j->ldc, scratch);
    else
        tn_gemm_f32(j->M, j->N, j->K, 1.0f, (const float *)j->a, j->lda, (const float *)j->b, j->ldb, 0.0f, (float *)j->c,
                    j->ldc, scratch);
    Py_END_ALLOW_THREADS
    free(scratch); free(acopy); free(bcopy);
    return 0;
}

static int mm_shapes(int64_t m1, int64_t k1, int64_t k2, int64_t n2) {
    if (k1 == k2) return 0;
    PyErr_Format(PyExc_RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                 (long long)m1, (long long)k1, (long long)k2, (long long)n2);
    return -1;
}

/* upstream's output shape (create_grouped_gemm_output_tensor; the meta kernel's is the same):
 * the number of dims, or -1 with its error */
static int out_shape(const tn_tensor *a, const tn_tensor *b, int64_t G, int64_t *osz) {
    const bool a2 = a->ndim == 2, b2 = b->ndim == 2;
    if (a2 && b2) { osz[0] = G; osz[1] = a->sizes[0]; osz[2] = b->sizes[1]; return 3; }
    if (a2 || b2) {
        if (G != (a2 ? b : a)->sizes[0]) return fail("matrix batch sizes have to match");
        osz[0] = a2 ? a->sizes[0] : a->sizes[1];
        osz[1] = b->sizes[b->ndim - 1];
        return 2;
    }
    if (a->sizes[0] != b->sizes[0]) return fail("batched dimension has to match");
    osz[0] = a->sizes[0]; osz[1] = a->sizes[1]; osz[2] = b->sizes[2];
    return 3;
}

/* On meta tensors upstream runs its Python meta kernel (torch/_meta_registrations.py,
 * meta_grouped_mm) instead: bf16 only, its own wording, and, on a build without CUDA, a contiguous
 * result. The door runs meta calls on CPU stand-ins (tn_door_on_meta), so the rule is here. */
static void tuple_str(char *buf, size_t n, int nd, const int64_t *v) {
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < n) snprintf(buf + k, n - k, nd == 1 ? ",)" : ")");
}
static int meta_strides(const char *name, const tn_tensor *t) {
    const int d = lead_dim(t);
    const int64_t *st = t->strides, *sz = t->sizes;
    if (d >= 0) {
        if (st[d] % (16 / tn_dtype_itemsize(t->dtype)) == 0) return 0;
        PyErr_Format(PyExc_RuntimeError, "Expected %s stride along %d dim to be multiple of 16 bytes, got %lld.", name, d, (long long)st[d]);
        return -1;
    }
    char a[256], b[256];
    tuple_str(a, sizeof a, t->ndim, st);
    tn_shape_str(b, sizeof b, t->ndim, sz);
    PyErr_Format(PyExc_RuntimeError, "Invalid strides/sizes, got %s for strides and torch.Size(%s) for sizes.", a, b);
    return -1;
}
static PyObject *grouped_mm_meta(tn_value *args) {
    tn_tensor *a = TN_T(args[0]), *b = TN_T(args[1]);
    if (a->dtype != TN_DTYPE_BF16 || b->dtype != TN_DTYPE_BF16) {
        PyErr_Format(PyExc_RuntimeError, "Expected inputs of BF16 type but got mat_a.dtype=torch.%s and mat_b.dtype=torch.%s.",
                     tn_dtype_infos[a->dtype].name, tn_dtype_infos[b->dtype].name);
        return NULL;
    }
    if (a->ndim < 2 || a->ndim > 3 || b->ndim < 2 || b->ndim > 3) {
        PyErr_Format(PyExc_RuntimeError, "Multiplicands must be 2D or 3D but got mat_a.dim()=%d and mat_b.dim()=%d", a->ndim, b->ndim);
        return NULL;
    }
    const bool a2 = a->ndim == 2, b2 = b->ndim == 2;
    if (!(a2 && b2) && a->sizes[a->ndim - 1] != b->sizes[b->ndim - 2])
        return fail("contraction dimension of mat_a and mat_b must match"), NULL;
    if (meta_strides("mat_a", a) < 0 || meta_strides("mat_b", b) < 0) return NULL;
    tn_tensor *offs = args[2].tag == TN_V_TENSOR ? TN_T(args[2]) : NULL;
    if (a2 || b2) {
        if (!offs) {
            PyErr_Format(PyExc_RuntimeError, "Offsets tensor not provided, but is needed for %dD/%dD multiplicand layouts.", a->ndim, b->ndim);
            return NULL;
        }
        if (offs->ndim != 1) {
            PyErr_Format(PyExc_RuntimeError, "Offsets tensor must be 1D, but got offs.dim()=%d.", offs->ndim);
            return NULL;
        }
        if (offs->dtype != TN_DTYPE_I32) {
            PyErr_Format(PyExc_RuntimeError, "Offsets tensor must be integer (int32) tensor, but got torch.%s.", tn_dtype_infos[offs->dtype].name);
            return NULL;
        }
    } else if (offs) {
        return fail("Offsets tensor provided, but is not needed for 3D/3D multiplicand layouts."), NULL;
    }
    if (args[3].tag == TN_V_TENSOR) return fail("Bias tensor provided, but it is not supported yet."), NULL;
    if (args[4].tag == TN_V_DTYPE && args[4].u.dtype != TN_DTYPE_BF16)
        return fail("If output dtype provided, it must be torch.bfloat16."), NULL;
    int64_t osz[3];
    const int ond = out_shape(a, b, offs ? offs->sizes[0] : 0, osz);
    if (ond < 0) return NULL;
    return tn_tensor_new_empty(ond, osz, TN_DTYPE_BF16, TN_DEVICE_CPU);
}

PyObject *tn_op__grouped_mm(tn_value *args) {
    if (tn_door_on_meta()) return grouped_mm_meta(args);
    tn_tensor *a = TN_T(args[0]), *b = TN_T(args[1]);
    const bool has_offs = args[2].tag == TN_V_TENSOR, has_bias = args[3].tag == TN_V_TENSOR;
    if (!gmm_dtype(a->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Expected mat_a to be Float32, BFloat16 or Float16 matrix, got %s", tn_dtype_cpp_name(a->dtype));
        return NULL;
    }
    if (!gmm_dtype(b->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Expected mat_b to be Float32, BFloat16 or Float16 matrix, got %s", tn_dtype_cpp_name(b->dtype));
        return NULL;
    }
    if (a->ndim != 2 && a->ndim != 3) return fail("mat_a has to be 2 or 3d"), NULL;
    if (b->ndim != 2 && b->ndim != 3) return fail("mat_b has to be 2 or 3d"), NULL;
    const bool a2 = a->ndim == 2, b2 = b->ndim == 2;
    if (!(a2 && b2) && a->sizes[a->ndim - 1] != b->sizes[b->ndim - 2])
        return fail("contraction dimension of mat_a and mat_b must match"), NULL;
    const int acol = layout_of(a);
    if (acol < 0) return NULL;
    const int bcol = layout_of(b);
    if (bcol < 0) return NULL;
    if (has_offs != (a2 || b2))
        return fail("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"), NULL;
    tn_tensor *offs = has_offs ? TN_T(args[2]) : NULL;
    if (offs && offs->ndim != 1) return fail("offs has to be 1D"), NULL;
    if (offs && offs->dtype != TN_DTYPE_I32) return fail("Offsets have to be int32"), NULL;
    if (has_bias) return fail("Bias not supported yet"), NULL;
    if (args[4].tag == TN_V_DTYPE && args[4].u.dtype != a->dtype)
        return fail("Grouped gemm output dtype must match `mat_a` dtype"), NULL;

    /* the result: upstream's create_grouped_gemm_output_tensor */
    const int64_t G = offs ? offs->sizes[0] : 0;
    int64_t osz[3];
    const int ond = out_shape(a, b, G, osz);
    if (ond < 0) return NULL;
    if (a->dtype != b->dtype) {   /* each group's mm_out (bmm_out for 3d x 3d) refuses mixed dtypes */
        if (a2 || b2)
            PyErr_Format(PyExc_RuntimeError, "expected m1 and m2 to have the same dtype, but got: %s != %s",
                         tn_dtype_cxx_name(a->dtype), tn_dtype_cxx_name(b->dtype));
        else
            PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype %s, but got %s instead",
                         tn_dtype_cxx_name(b->dtype), tn_dtype_cxx_name(a->dtype));
        return NULL;
    }
    const tn_dtype dt = a->dtype;
    const int64_t isz = tn_dtype_itemsize(dt), align = 16 / isz;
    const int64_t N = osz[ond - 1], ldc = (N + align - 1) / align * align;
    int64_t ost[3];
    ost[ond - 1] = 1;
    ost[ond - 2] = ldc;
    if (ond == 3) ost[0] = osz[1] * ldc;
    PyObject *res = tn_cr_empty_strided(ond, osz, ost, dt, TN_DEVICE_CPU);
    if (!res) return NULL;
    tn_tensor *r = tn_tensor_of(res);
    int64_t extent = 1;
    bool empty = false;
    for (int i = 0; i < ond; i++) {
        empty |= osz[i] == 0;
        extent += osz[i] > 0 ? (osz[i] - 1) * ost[i] : 0;
    }
    if (!empty) memset(tn_data(r), 0, (size_t)extent * (size_t)isz);

    /* a row-major left operand (a copy when it is column-major) */
    PyObject *ac = NULL;
    if (acol) {
        ac = tn_as_dtype(args[0].u.obj, dt, true);
        if (!ac) { Py_DECREF(res); return NULL; }
        a = tn_tensor_of(ac);
    }
    /* offsets, read before any kernel runs */
    int32_t *ends = NULL;
    if (G) {
        ends = malloc((size_t)G * sizeof *ends);
        if (!ends) { Py_XDECREF(ac); Py_DECREF(res); return PyErr_NoMemory(); }
        const char *op = tn_data(offs);
        for (int64_t g = 0; g < G; g++) memcpy(&ends[g], op + g * offs->strides[0] * 4, 4);
    }
    const char *ad = tn_data(a), *bd = tn_data(b);
    char *cd = tn_data(r);
    const int ae = a->ndim - 1, be = b->ndim - 1;
    const int64_t lda = a->strides[ae - 1];
    /* B's row stride as the kernels take it: (K,N) row-major, or W = B^T (N,K) row-major */
    const int64_t ldb = bcol ? b->strides[be] : b->strides[be - 1];
    gemm_job j = {.dt = dt, .bt = bcol != 0, .lda = lda, .ldb = ldb, .ldc = ldc};
    int rc = 0;
    if (a2 && !b2) {   /* rows of a by group, b[g] */
        int64_t start = 0, s, e;
        for (int64_t g = 0; g < G && rc == 0; g++) {
            slice_bounds(start, ends[g], a->sizes[0], &s, &e);
            start = ends[g];
            j.M = e - s; j.K = a->sizes[1]; j.N = b->sizes[2];
            j.a = ad + s * lda * isz;
            j.b = bd + g * b->strides[0] * isz;
            j.c = cd + s * ldc * isz;
            rc = run_gemm(&j);
        }
    } else if (!a2 && b2) {   /* a[g], columns of b by group */
        int64_t start = 0, s, e;
        for (int64_t g = 0; g < G && rc == 0; g++) {
            slice_bounds(start, ends[g], b->sizes[1], &s, &e);
            start = ends[g];
            j.M = a->sizes[1]; j.K = a->sizes[2]; j.N = e - s;
            j.a = ad + g * a->strides[0] * isz;
            j.b = bd + s * b->strides[1] * isz;
            j.c = cd + s * isz;
            rc = run_gemm(&j);
        }
    } else if (a2 && b2) {   /* the contraction dimension by group: out[g] */
        int64_t start = 0, s, e, s2, e2;
        for (int64_t g = 0; g < G && rc == 0; g++) {
            slice_bounds(start, ends[g], a->sizes[1], &s, &e);
            slice_bounds(start, ends[g], b->sizes[0], &s2, &e2);
            start = ends[g];
            if (mm_shapes(a->sizes[0], e - s, e2 - s2, b->sizes[1]) < 0) { rc = -1; break; }
            j.M = a->sizes[0]; j.K = e - s; j.N = b->sizes[1];
            j.a = ad + s * isz;
            j.b = bd + s2 * b->strides[0] * isz;
            j.c = cd + g * osz[1] * ldc * isz;
            rc = run_gemm(&j);
        }
    } else {   /* bmm */
        for (int64_t g = 0; g < osz[0] && rc == 0; g++) {
            j.M = a->sizes[1]; j.K = a->sizes[2]; j.N = b->sizes[2];
            j.a = ad + g * a->strides[0] * isz;
            j.b = bd + g * b->strides[0] * isz;
            j.c = cd + g * osz[1] * ldc * isz;
            rc = run_gemm(&j);
        }
    }
    free(ends);
    Py_XDECREF(ac);
    if (rc < 0) Py_CLEAR(res);
    return res;
}
