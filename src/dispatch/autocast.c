/* autocast.c — the door's autocast stage: upstream's AutocastCPU dispatch key.
 *
 * Upstream's autocast key sits above autograd: an op on its AutocastCPU list gets its floating
 * CPU tensor arguments cast (Tensor.to(dtype), i.e. _to_copy, which autograd records as
 * ToCopyBackward0), then runs with the autocast key excluded for the whole call (nested calls,
 * a composite's pieces, are not cast again, and is_autocast_enabled("cpu") reads False inside).
 * Ops not on the list fall through: a CompositeImplicitAutograd op runs as its decomposition, whose
 * pieces meet this stage again.
 *
 * The three CPU policies (upstream 2.13 registers no other on CPU; the lists are its
 * registrations for AutocastCPU, torch._C._dispatch_get_registrations_for_dispatch_key):
 *   lower  every eligible argument to the autocast dtype (bfloat16 by default, or float16);
 *   fp32   every eligible argument to float32;
 *   promote every eligible argument to the widest eligible type among them (float32 if any is
 *          float32, else the autocast dtype; a float16 next to bfloat16 is refused as upstream's
 *          "Unexpected floating ScalarType in at::autocast::prioritize").
 * Eligible: a defined CPU floating tensor that is not float64 and not of the target dtype.
 * Cache (upstream's cached_cast): within an autocast region the lower-precision cast of a float32
 * leaf that requires grad and is not a view is made once and reused (so its ToCopyBackward0 node
 * is shared) until the outermost region exits (clear_autocast_cache) or caching is off. */
#include "dispatch/autocast.h"

#include "autograd/autograd.h"
#include "core/pystate.h"
#include "core/object.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

static _Thread_local bool enabled[TN_AC_NDEV];
static _Thread_local int dtype_set[TN_AC_NDEV];   /* 0: upstream's default; else tn_dtype + 1 */
static _Thread_local bool cache_off;
static _Thread_local int nesting;

bool tn_autocast_enabled(int dev) { return enabled[dev]; }
void tn_autocast_set_enabled(int dev, bool on) { enabled[dev] = on; }
tn_dtype tn_autocast_dtype(int dev) {
    if (dtype_set[dev]) return (tn_dtype)(dtype_set[dev] - 1);
    /* upstream's defaults, measured: cpu maia xla hpu bfloat16; cuda ipu xpu hip mps mtia
     * privateuseone float16; the rest none */
    static const char def[TN_AC_NDEV + 1] = "bhhh....h..bb..h.bhh";
    return def[dev] == 'b' ? TN_DTYPE_BF16 : def[dev] == 'h' ? TN_DTYPE_F16 : TN_DTYPE_UNDEFINED;
}
void tn_autocast_set_dtype(int dev, tn_dtype d) { dtype_set[dev] = (int)d + 1; }
bool tn_autocast_cache_enabled(void) { return !cache_off; }
void tn_autocast_set_cache_enabled(bool on) { cache_off = !on; }
int tn_autocast_nesting_add(int delta) { return nesting += delta; }

/* ---- the cast cache: {id(source): (source, cast)}, shared by threads as upstream's (GIL) ---- */
static PyObject *cache;

void tn_autocast_clear_cache(void) {
    if (cache) PyDict_Clear(cache);
}

/* ---- policies ---- */
enum { P_NONE, P_LOWER, P_FP32, P_PROMOTE };

static const char *const lower_ops[] = {
    "conv1d.", "conv1d.padding", "conv2d.", "conv2d.padding", "conv3d.", "conv3d.padding", "bmm.", "mm.",
    "linalg_vecdot.", "baddbmm.", "addmm.", "_addmm_activation.", "addbmm.", "linear.", "_convolution.deprecated",
    "matmul.", "conv_tbc.", "mkldnn_rnn_layer.", "conv_transpose1d.", "conv_transpose2d.input",
    "conv_transpose3d.input", "prelu.", "scaled_dot_product_attention.", "_native_multi_head_attention.", NULL};
static const char *const fp32_ops[] = {
    "avg_pool3d.", "binary_cross_entropy.", "grid_sampler.", "polar.", "prod.", "prod.dim_int", "quantile.",
    "quantile.scalar", "nanquantile.", "nanquantile.scalar", "stft.", "stft.center", "cdist.", "grid_sampler_2d.",
    "_grid_sampler_2d_cpu_fallback.", "grid_sampler_3d.", "trace.", "view_as_complex.", "cholesky.",
    "cholesky_inverse.", "cholesky_solve.", "inverse.", "lu_solve.", "orgqr.", "ormqr.", "pinverse.",
    "max_pool3d.", "max_unpool2d.", "max_unpool3d.", "adaptive_avg_pool3d.", "reflection_pad1d.",
    "reflection_pad2d.", "replication_pad1d.", "replication_pad2d.", "replication_pad3d.", "mse_loss.",
    "cosine_embedding_loss.", "nll_loss.", "nll_loss2d.", "hinge_embedding_loss.", "poisson_nll_loss.",
    "smooth_l1_loss.", "cross_entropy_loss.", "l1_loss.", "huber_loss.", "margin_ranking_loss.",
    "soft_margin_loss.", "triplet_margin_loss.", "multi_margin_loss.", "ctc_loss.IntList", "ctc_loss.Tensor",
    "kl_div.", "multilabel_margin_loss.", "binary_cross_entropy_with_logits.", "fft_fft.", "fft_ifft.",
    "fft_fft2.", "fft_ifft2.", "fft_fftn.", "fft_ifftn.", "fft_rfft.", "fft_irfft.", "fft_rfft2.", "fft_irfft2.",
    "fft_rfftn.", "fft_irfftn.", "fft_hfft.", "fft_ihfft.", "linalg_cond.", "linalg_cond.p_str",
    "linalg_matrix_rank.", "linalg_matrix_rank.tol_tensor", "linalg_matrix_rank.atol_rtol_tensor",
    "linalg_matrix_rank.atol_rtol_float", "linalg_solve.", "linalg_cholesky.", "linalg_svdvals.",
    "linalg_eigvals.", "linalg_eigvalsh.", "linalg_inv.", "linalg_householder_product.", "linalg_tensorinv.",
    "linalg_tensorsolve.", "fake_quantize_per_tensor_affine.", "geqrf.", "_lu_with_info.", "qr.", "svd.",
    "triangular_solve.", "fractional_max_pool2d.", "fractional_max_pool3d.", "adaptive_max_pool3d.",
    "multilabel_margin_loss_forward.", "linalg_qr.", "linalg_cholesky_ex.", "linalg_svd.", "linalg_eig.",
    "linalg_eigh.", "linalg_lstsq.", "linalg_inv_ex.", NULL};
static const char *const promote_ops[] = {"stack.", "cat.", "index_copy.", NULL};

static unsigned char *policy;   /* by row; built on first use */

static int build_policies(void) {
    int n = tn_op_count();
    policy = calloc((size_t)n, 1);
    if (!policy) { PyErr_NoMemory(); return -1; }
    const char *const *lists[] = {lower_ops, fp32_ops, promote_ops};
    for (int p = 0; p < 3; p++)
        for (const char *const *e = lists[p]; *e; e++) {
            const char *dot = strchr(*e, '.');
            char name[96];
            snprintf(name, sizeof name, "%.*s", (int)(dot - *e), *e);
            int row = tn_op_find(name, dot + 1);
            if (row >= 0) policy[row] = (unsigned char)(P_LOWER + p);
        }
    return 0;
}

static bool is_cpu_tensor(PyObject *t) {
    return tn_py_is_tensor(t) && tn_tensor_of(t)->storage->device == TN_DEVICE_CPU;
}

bool tn_autocast_wants(int op, const tn_value *args) {
    if (!enabled[TN_AC_CPU]) return false;
    if (!policy && build_policies() < 0) { PyErr_Clear(); return false; }
    /* off the list: a CompositeImplicitAutograd op still runs as its pieces, as upstream's (its
     * kernel sits below the autocast key), so pieces on the list (pad's reflection_pad1d,
     * nll_loss_nd's nll_loss) are cast even where a direct kernel of ours would skip them */
    if (!policy[op] && !(tn_op_autograd_defs[op].composite && tn_decomp_computes(op))) return false;
    /* upstream's key is in CPU tensors' key sets: the op must have a CPU tensor argument */
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && !args[i].wrapped && is_cpu_tensor(args[i].u.obj)) return true;
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++)
                if (is_cpu_tensor(PyTuple_GetItem(args[i].u.obj, k))) return true;
    }
    return false;
}

/* a defined CPU floating tensor, not float64 (upstream's is_eligible) */
static bool eligible(PyObject *t) {
    if (!is_cpu_tensor(t)) return false;
    tn_dtype d = tn_tensor_of(t)->dtype;
    return tn_dtype_is_floating(d) && d != TN_DTYPE_F64;
}

static PyObject *to_copy(PyObject *t, tn_dtype d) {
    return tn_at__to_copy(t, TN_DT(d), NULL, NULL, NULL, false, NULL);
}

/* upstream's cached_cast: a new reference to t cast to `to` when eligible, else to t */
static PyObject *cached_cast(PyObject *t, tn_dtype to) {
    if (!eligible(t) || tn_tensor_of(t)->dtype == to) return Py_NewRef(t);
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    bool try_cache = to == tn_autocast_dtype(TN_AC_CPU) && o->t.dtype == TN_DTYPE_F32 && tn_requires_grad(t) &&
                     !o->grad_fn && !o->base && !cache_off;
    if (!try_cache) return to_copy(t, to);
    if (!cache && !(cache = PyDict_New())) return NULL;
    PyObject *key = PyLong_FromVoidPtr(t);
    if (!key) return NULL;
    PyObject *hit = PyDict_GetItemWithError(cache, key);   /* borrowed (source, cast) */
    if (hit) {
        Py_DECREF(key);
        return Py_NewRef(PyTuple_GetItem(hit, 1));
    }
    PyObject *r = PyErr_Occurred() ? NULL : to_copy(t, to);
    PyObject *entry = r ? PyTuple_Pack(2, t, r) : NULL;
    if (!entry || PyDict_SetItem(cache, key, entry) < 0) Py_CLEAR(r);
    Py_XDECREF(entry);
    Py_DECREF(key);
    return r;
}

/* upstream's prioritize over one tensor: returns false with an error set when the mix is refused */
static bool prioritize(tn_dtype *cur, PyObject *t) {
    if (!eligible(t)) return true;
    tn_dtype lower = tn_autocast_dtype(TN_AC_CPU), next = tn_tensor_of(t)->dtype;
    if (*cur == TN_DTYPE_F32 || next == TN_DTYPE_F32) *cur = TN_DTYPE_F32;
    else if (*cur == lower && next == lower) *cur = lower;
    else {
        PyErr_SetString(PyExc_RuntimeError, "Unexpected floating ScalarType in at::autocast::prioritize");
        return false;
    }
    return true;
}

PyObject *tn_autocast_call(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) return NULL;
    if (s->nargs > 64) return tn_not_implemented("autocast of an operator with this many arguments");
    int p = policy[op];
    if (p == P_NONE) {
        bool handled;
        PyObject *r = tn_composite_under_mode(op, args, &handled);
        return handled ? r : tn_door_call(op, args);   /* (handled: always, by tn_autocast_wants) */
    }
    tn_dtype to = p == P_FP32 ? TN_DTYPE_F32 : tn_autocast_dtype(TN_AC_CPU);
    if (p == P_PROMOTE)
        for (int i = 0; i < s->nargs; i++) {
            if (args[i].tag == TN_V_TENSOR && !args[i].wrapped && !prioritize(&to, args[i].u.obj)) return NULL;
            if (args[i].tag == TN_V_TENSORLIST)
                for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++)
                    if (!prioritize(&to, PyTuple_GetItem(args[i].u.obj, k))) return NULL;
        }
    tn_value local[64];
    PyObject *owned[64];
    int nowned = 0;
    PyObject *r = NULL;
    memcpy(local, args, (size_t)s->nargs * sizeof *local);
    /* the autocast key is excluded from here on, casts included (upstream's guard is taken first) */
    enabled[TN_AC_CPU] = false;
    for (int i = 0; i < s->nargs; i++) {
        if (local[i].tag == TN_V_TENSOR && !local[i].wrapped) {
            PyObject *c = cached_cast(local[i].u.obj, to);
            if (!c) goto done;
            owned[nowned++] = c;
            local[i].u.obj = c;
        } else if (local[i].tag == TN_V_TENSORLIST) {
            Py_ssize_t n = PyTuple_Size(local[i].u.obj);
            PyObject *tup = PyTuple_New(n);
            if (!tup) goto done;
            owned[nowned++] = tup;
            for (Py_ssize_t k = 0; k < n; k++) {
                PyObject *c = cached_cast(PyTuple_GetItem(local[i].u.obj, k), to);
                if (!c) goto done;
                PyTuple_SetItem(tup, k, c);
            }
            local[i].u.obj = tup;
        }
    }
    r = tn_door_call(op, local);
done:
    enabled[TN_AC_CPU] = true;
    for (int i = 0; i < nowned; i++) Py_DECREF(owned[i]);
    return r;
}
