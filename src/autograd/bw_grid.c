/* bw_grid.c — grid_sampler_2d's and grid_sampler_3d's double backward (derivatives.yaml: the
 * grid_sampler_{2,3}d_backward formulas, FunctionsManual's grid_sampler_{2,3}d_double_backward), written
 * from the op stream upstream 2.13.0 dispatches (measured with a TorchDispatchMode, docs/embbag_grid.md):
 *
 *   ggI (the incoming gradient of grad_input): grad_output's gradient grid_sampler_Nd(ggI, grid),
 *     grid's gradient grid_sampler_Nd_backward(grad_output, ggI, grid, mask {false, true})[1];
 *   ggGrid (that of grad_grid), bilinear / trilinear only: the unnormalised coordinates and their
 *     derivative (zeros: ones_like * scale; border: the clip mask * scale; reflection: the reflected
 *     coordinate, its two +-1 signs times the clip mask * scale), the 4 (8) corners' values gathered
 *     from input (zeros: masked to the valid corners), the corner weights' derivatives; then
 *     grad_output's gradient sum_corners(v * dw/dx) * ggx' + ..., input's gradient scattered back
 *     (scatter_add into zeros), grid's gradient from the mixed second derivatives, e.g. in 2-d
 *     sum_C(grad_output * (v00 - v10 - v01 + v11)).
 *
 * Nearest has no ggGrid term (its grid gradient is zero). Bicubic (2-d): bicubic_gg, over 16 taps with
 * the cubic weights' first and second derivatives. Every op goes through the typed op API, so a
 * dispatch mode sees upstream's stream and create_graph records it. */
#include "autograd/bw_helpers.h"
#include "autograd/autograd.h"
#include "tn_aten_gen.h"

#include <string.h>

#define NT 1024
typedef struct { PyObject *t[NT]; int n; } pool;
static PyObject *keep(pool *p, PyObject *o) {
    if (o && p->n < NT) p->t[p->n++] = o;
    else if (o) { Py_DECREF(o); PyErr_SetString(PyExc_RuntimeError, "torchnative: grid_sampler_2d_double_backward pool"); return NULL; }
    return o;
}
static void pool_free(pool *p) {
    for (int i = 0; i < p->n; i++) Py_DECREF(p->t[i]);
}
#define K(e) keep(&tt, (e))
#define NEED(x) do { if (!(x)) goto fail; } while (0)
#define STACK8(d) K(tn_at_stack(TN_TS((d)[0], (d)[1], (d)[2], (d)[3], (d)[4], (d)[5], (d)[6], (d)[7]), -1))

/* k - t as ATen's Scalar - Tensor operator: empty_like(t).fill_(k).sub_(t) */
static PyObject *k_minus(pool *pp, tn_scalar_arg k, PyObject *t) {
#define KP(e) keep(pp, (e))
    PyObject *e = KP(tn_at_empty_like(t, NULL, NULL, NULL, NULL, tn_py.memory_format_preserve));
    PyObject *f = e ? KP(tn_at_fill__Scalar(e, k)) : NULL;
    return f ? KP(tn_at_sub__Tensor(f, t, TN_SDEF)) : NULL;
#undef KP
}

/* where(cond, 1.0, -1.0): where.Scalar, which decomposes as upstream's composite (autograd/decomp.c:
 * two scalar_tensors of the default dtype, then where.self) */
static PyObject *sign_of(pool *pp, PyObject *cond) {
    return cond ? keep(pp, tn_at_where_Scalar(cond, TN_SD(1.0), TN_SD(-1.0))) : NULL;
}

/* the unnormalised coordinate along one axis of `size` and its derivative: (ix, mult) */
static int unnormalize(pool *pp, PyObject *g, int64_t size, int64_t padding, bool align, PyObject **ix, PyObject **mult) {
#define KP(e) keep(pp, (e))
    double scale = align ? (double)(size - 1) / 2 : (double)size / 2;
    PyObject *c = KP(tn_at_mul_Scalar(KP(tn_at_add_Scalar(g, TN_SI(1), TN_SDEF)), TN_SD(scale)));
    if (c && !align) c = KP(tn_at_sub_Scalar(c, TN_SD(0.5), TN_SDEF));
    if (!c) return -1;
    PyObject *s1 = NULL, *s2 = NULL;   /* reflection: the signs of the reflected coordinate's derivative */
    if (padding == 2 && align && size == 1) {   /* an empty reflection span: upstream's zero derivative */
        *ix = c;
        return (*mult = KP(tn_at_zeros_like(c, NULL, NULL, NULL, NULL, NULL))) ? 0 : -1;
    }
    if (padding == 2) {
        double lo = align ? 0 : -0.5, span = align ? (double)(size - 1) : (double)size;
        PyObject *in = KP(tn_at_sub_Scalar(c, TN_SD(lo), TN_SDEF));
        PyObject *a = in ? KP(tn_at_abs(in)) : NULL;
        s1 = a ? sign_of(pp, KP(tn_at_ge_Scalar(in, TN_SI(0)))) : NULL;
        PyObject *flips = s1 ? KP(tn_at_floor(KP(tn_at_div_Scalar(a, TN_SD(span))))) : NULL;
        PyObject *even = flips ? KP(tn_at_lt_Scalar(KP(tn_at_fmod_Scalar(flips, TN_SD(2.0))), TN_SD(0.5))) : NULL;
        s2 = even ? sign_of(pp, even) : NULL;
        PyObject *extra = s2 ? KP(tn_at_remainder_Scalar(a, TN_SD(span))) : NULL;
        PyObject *back = extra ? k_minus(pp, TN_SD(span), extra) : NULL;
        PyObject *e1 = back ? KP(tn_at_add_Scalar(extra, TN_SD(lo), TN_SDEF)) : NULL;
        PyObject *e2 = e1 ? KP(tn_at_add_Scalar(back, TN_SD(lo), TN_SDEF)) : NULL;
        c = e2 ? KP(tn_at_where_self(even, e1, e2)) : NULL;
        if (!c) return -1;
    }
    if (padding >= 1) {   /* border (and reflection): clip_coordinates, whose derivative is the inside mask */
        PyObject *lt = KP(tn_at_lt_Scalar(c, TN_SD((double)(size - 1))));
        PyObject *gt = lt ? KP(tn_at_gt_Scalar(c, TN_SI(0))) : NULL;
        PyObject *in = gt ? KP(tn_at_bitwise_and_Tensor(lt, gt)) : NULL;
        PyObject *inf = in ? KP(tn_at__to_copy(in, TN_DT(tn_tensor_of(g)->dtype), NULL, NULL, NULL, false, NULL)) : NULL;
        if (inf && s1) inf = KP(tn_at_mul_Tensor(KP(tn_at_mul_Tensor(s1, s2)), inf));
        c = inf ? KP(tn_at_clamp(c, TN_SI(0), TN_SI(size - 1))) : NULL;
        *mult = c ? KP(tn_at_mul_Scalar(inf, TN_SD(scale))) : NULL;
    } else {
        *mult = KP(tn_at_mul_Scalar(KP(tn_at_ones_like(c, NULL, NULL, NULL, NULL, NULL)), TN_SD(scale)));
    }
    *ix = c;
    return *mult ? 0 : -1;
#undef KP
}

/* an integer tap coordinate (int64) reflected into [0, size - 1] as upstream's bicubic taps are
 * (reflect_coordinates, round, clip; back to int64; zeros when the span is empty); align: the reflection's bounds */
static PyObject *reflect_tap(pool *pp, PyObject *c, int64_t size, bool align, tn_dtype dt) {
#define KP(e) keep(pp, (e))
    double lo = align ? 0 : -0.5, span = align ? (double)(size - 1) : (double)size;
    if (span == 0) return KP(tn_at_zeros_like(c, NULL, NULL, NULL, NULL, NULL));
    PyObject *f = KP(tn_at__to_copy(c, TN_DT(dt), NULL, NULL, NULL, false, NULL));
    PyObject *a = f ? KP(tn_at_abs(KP(tn_at_sub_Scalar(f, TN_SD(lo), TN_SDEF)))) : NULL;
    PyObject *flips = a ? KP(tn_at_floor(KP(tn_at_div_Scalar(a, TN_SD(span))))) : NULL;
    PyObject *even = flips ? KP(tn_at_lt_Scalar(KP(tn_at_fmod_Scalar(flips, TN_SD(2.0))), TN_SD(0.5))) : NULL;
    PyObject *extra = even ? KP(tn_at_fmod_Scalar(a, TN_SD(span))) : NULL;
    PyObject *back = extra ? k_minus(pp, TN_SD(span), extra) : NULL;
    PyObject *r = back ? KP(tn_at_add_Scalar(KP(tn_at_where_self(even, extra, back)), TN_SD(lo), TN_SDEF)) : NULL;
    r = r ? KP(tn_at_clamp(KP(tn_at_round(r)), TN_SI(0), TN_SI(size - 1))) : NULL;
    return r ? KP(tn_at__to_copy(r, TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL)) : NULL;
#undef KP
}

/* the corners' (nc: cs[a]'s last dim) linear indices ((z * H + y) * W + x, each axis clamped, or with
 * refl (1: align_corners false, 2: true) reflected as bicubic's taps), viewed (N, 1, P * nc) and
 * expanded over C; sz: the input's spatial sizes in axis order (W, H[, D]) */
static PyObject *corner_index(pool *pp, int nd, PyObject **cs, const int64_t *sz, int64_t N, int64_t C, int64_t P,
                              int refl, tn_dtype dt) {
#define KP(e) keep(pp, (e))
    PyObject *cl[3];
    for (int a = 0; a < nd; a++)
        if (!(cl[a] = refl ? reflect_tap(pp, cs[a], sz[a], refl == 2, dt) : KP(tn_at_clamp(cs[a], TN_SI(0), TN_SI(sz[a] - 1)))))
            return NULL;
    PyObject *lin = cl[nd - 1];
    for (int a = nd - 2; a >= 0 && lin; a--)
        lin = KP(tn_at_add_Tensor(KP(tn_at_mul_Scalar(lin, TN_SI(sz[a]))), cl[a], TN_SDEF));
    const tn_tensor *ct = tn_tensor_of(cs[0]);
    int64_t nc = ct->sizes[ct->ndim - 1];
    PyObject *v = lin ? KP(tn_at_view(lin, TN_IS(N, 1, P * nc))) : NULL;
    return v ? KP(tn_at_expand(v, TN_IS(N, C, P * nc), false)) : NULL;
#undef KP
}

/* zeros padding: the values (N, C, ..., nc) times the corners' inside mask */
static PyObject *mask_zeros(pool *pp, PyObject *vals, int nd, PyObject **cs, const int64_t *sz, tn_dtype dt) {
#define KP(e) keep(pp, (e))
    PyObject *lt[3], *ge[3];
    for (int a = 0; a < nd; a++) {
        if (!(lt[a] = KP(tn_at_lt_Scalar(cs[a], TN_SI(sz[a]))))) return NULL;
        if (!(ge[a] = KP(tn_at_ge_Scalar(cs[a], TN_SI(0))))) return NULL;
    }
    PyObject *in[3];
    for (int a = 0; a < nd; a++)
        if (!(in[a] = KP(tn_at_bitwise_and_Tensor(lt[a], ge[a])))) return NULL;
    PyObject *m = in[0];
    for (int a = 1; a < nd && m; a++) m = KP(tn_at_bitwise_and_Tensor(m, in[a]));
    PyObject *mf = m ? KP(tn_at__to_copy(KP(tn_at_unsqueeze(m, 1)), TN_DT(dt), NULL, NULL, NULL, false, NULL)) : NULL;
    return mf ? KP(tn_at_mul_Tensor(vals, mf)) : NULL;
#undef KP
}

/* input's gradient: grad_output times coef (the corners' coordinate-weighted derivatives, (N, ..., nc)),
 * zeros padding masked, scattered (scatter_add into zeros) back to the input's shape */
static PyObject *scatter_input(pool *pp, PyObject *coef, PyObject *gO, PyObject *input, int nd, PyObject **cs,
                               const int64_t *sz, int64_t P, int64_t padding, int refl) {
#define KP(e) keep(pp, (e))
    const tn_tensor *it = tn_tensor_of(input);
    const tn_tensor *ct = tn_tensor_of(cs[0]);
    int64_t N = it->sizes[0], C = it->sizes[1], S = 1, nc = ct->sizes[ct->ndim - 1];
    for (int a = 0; a < nd; a++) S *= sz[a];
    PyObject *idx = corner_index(pp, nd, cs, sz, N, C, P, refl, it->dtype);
    PyObject *cu = idx ? KP(tn_at_unsqueeze(coef, 1)) : NULL;
    PyObject *contrib = cu ? KP(tn_at_mul_Tensor(KP(tn_at_unsqueeze(gO, -1)), cu)) : NULL;
    if (contrib && padding == 0) contrib = mask_zeros(pp, contrib, nd, cs, sz, it->dtype);
    PyObject *dev = contrib ? KP(tn_py_device_new(it->storage->device, -1)) : NULL;
    PyObject *z = dev ? KP(tn_at_zeros(TN_IS(N, C, S), TN_DT(it->dtype), tn_py.layout_strided, dev, NULL)) : NULL;
    PyObject *sc = z ? KP(tn_at_scatter_add(z, 2, idx, KP(tn_at_view(contrib, TN_IS(N, C, P * nc))))) : NULL;
    return sc ? KP(tn_at_view(sc, (tn_ints){it->sizes, it->ndim, NULL, NULL})) : NULL;
#undef KP
}

/* a * x - b */
static PyObject *lin(pool *pp, PyObject *x, double a, double b) {
    PyObject *r = keep(pp, tn_at_mul_Scalar(x, TN_SD(a)));
    return r ? keep(pp, tn_at_sub_Scalar(r, TN_SD(b), TN_SDEF)) : NULL;
}

/* bicubic's cubic-convolution weights (A = -0.75) of the taps at distances d = (1 + t, t, 1 - t, 2 - t)
 * (order 0), their derivatives in t (1) or second derivatives (2), stacked on a last dim of 4; the
 * far taps (0, 3) use cc2(x) = ((A x - 5A) x + 8A) x - 4A, the near ones cc1(x) = ((A + 2) x - (A + 3)) x^2 + 1;
 * d/dt of the last two distances is -1 */
static PyObject *cubic4(pool *pp, PyObject *const *d, int order) {
#define KP(e) keep(pp, (e))
    const double A = -0.75;
    PyObject *w[4];
    for (int k = 0; k < 4; k++) {
        PyObject *x = d[k], *r;
        bool far = k == 0 || k == 3;
        if (order == 2) {
            r = far ? lin(pp, x, 6 * A, 10 * A) : lin(pp, x, 6 * (A + 2), 2 * (A + 3));
        } else if (order == 1 && far) {   /* +-(3A x^2 - 10A x + 8A) */
            r = k == 0 ? lin(pp, x, 3 * A, 10 * A) : KP(tn_at_add_Scalar(KP(tn_at_mul_Scalar(x, TN_SD(-3 * A))), TN_SD(10 * A), TN_SDEF));
            r = r ? KP(tn_at_mul_Tensor(r, x)) : NULL;
            r = r ? (k == 0 ? KP(tn_at_add_Scalar(r, TN_SD(8 * A), TN_SDEF)) : KP(tn_at_sub_Scalar(r, TN_SD(8 * A), TN_SDEF))) : NULL;
        } else if (order == 1) {          /* +-(3(A + 2) x^2 - 2(A + 3) x) */
            r = lin(pp, x, 3 * (A + 2), 2 * (A + 3));
            r = r ? KP(tn_at_mul_Tensor(r, x)) : NULL;
            if (r && k == 2) r = KP(tn_at_neg(r));
        } else if (far) {
            r = lin(pp, x, A, 5 * A);
            r = r ? KP(tn_at_add_Scalar(KP(tn_at_mul_Tensor(r, x)), TN_SD(8 * A), TN_SDEF)) : NULL;
            r = r ? KP(tn_at_sub_Scalar(KP(tn_at_mul_Tensor(r, x)), TN_SD(4 * A), TN_SDEF)) : NULL;
        } else {
            PyObject *x2 = KP(tn_at_pow_Tensor_Scalar(x, TN_SI(2)));
            r = x2 ? lin(pp, x, A + 2, A + 3) : NULL;
            r = r ? KP(tn_at_add_Scalar(KP(tn_at_mul_Tensor(r, x2)), TN_SI(1), TN_SDEF)) : NULL;
        }
        if (!(w[k] = r)) return NULL;
    }
    return KP(tn_at_stack(TN_TS(w[0], w[1], w[2], w[3]), -1));
#undef KP
}

/* a (..., 4) tap weight along y times one along x: (..., 16), x varying fastest (tap k = 4 j + i) */
static PyObject *outer16(pool *pp, PyObject *wy, PyObject *wx) {
#define KP(e) keep(pp, (e))
    const tn_tensor *t = tn_tensor_of(wx);
    PyObject *ux = KP(tn_at_unsqueeze(wx, -2)), *uy = ux ? KP(tn_at_unsqueeze(wy, -1)) : NULL;
    PyObject *o = uy ? KP(tn_at_mul_Tensor(uy, ux)) : NULL;
    return o ? KP(tn_at_view(o, TN_IS(t->sizes[0], t->sizes[1], t->sizes[2], 16))) : NULL;
#undef KP
}

/* bicubic's ggGrid terms (after the bilinear coordinates upstream also computes). The sampled value is
 * sum_taps wx_i(tx) wy_j(ty) v(pad(x0 - 1 + i), pad(y0 - 1 + j)), ix = unnormalize(x), x0 = floor(ix),
 * tx = ix - x0; padding acts on the integer taps (zeros: masked, border: clamped, reflection:
 * reflected), so the coordinate's derivative is the unnormalising scale alone. grad_output's
 * gradient is sum_taps(v * (dwx wy gx + wx dwy gy)), input's those weights times grad_output
 * scattered to the taps, grid's the second derivatives (dd wx wy, dwx dwy, wx dd wy) against
 * grad_output summed over channels, tap by tap; gx, gy: ggGrid times the scales. */
static int bicubic_gg(pool *pp, PyObject *ggGrid, PyObject *gO, PyObject *input, PyObject *grid, int64_t padding,
                      bool align, PyObject **d_go, PyObject **d_input, PyObject **d_grid) {
#define KP(e) keep(pp, (e))
#define OK(x) do { if (!(x)) return -1; } while (0)
    const tn_tensor *it = tn_tensor_of(input), *gt = tn_tensor_of(grid);
    int64_t N = it->sizes[0], C = it->sizes[1], H = it->sizes[2], W = it->sizes[3];
    int64_t Ho = gt->sizes[1], Wo = gt->sizes[2], P = Ho * Wo;
    tn_dtype dt = it->dtype;
    const int64_t sz[2] = {W, H};
    double sc[2];
    PyObject *c[2], *fl[2], *g[2], *t[2], *d[2][4], *w[2][3], *cs[2];
    for (int a = 0; a < 2; a++) {
        sc[a] = align ? (double)(sz[a] - 1) / 2 : (double)sz[a] / 2;
        OK(c[a] = KP(tn_at_mul_Scalar(KP(tn_at_add_Scalar(KP(tn_at_select_int(grid, -1, a)), TN_SI(1), TN_SDEF)), TN_SD(sc[a]))));
        if (!align) OK(c[a] = KP(tn_at_sub_Scalar(c[a], TN_SD(0.5), TN_SDEF)));
    }
    for (int a = 0; a < 2; a++) OK(fl[a] = KP(tn_at__to_copy(KP(tn_at_floor(c[a])), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL)));
    for (int a = 0; a < 2; a++) OK(g[a] = KP(tn_at_mul_Scalar(KP(tn_at_select_int(ggGrid, -1, a)), TN_SD(sc[a]))));
    for (int a = 0; a < 2; a++)
        OK(t[a] = KP(tn_at_sub_Tensor(c[a], KP(tn_at__to_copy(fl[a], TN_DT(dt), NULL, NULL, NULL, false, NULL)), TN_SDEF)));
    for (int a = 0; a < 2; a++) {
        d[a][1] = t[a];
        OK(d[a][0] = KP(tn_at_add_Scalar(t[a], TN_SD(1.0), TN_SDEF)));
        OK(d[a][2] = k_minus(pp, TN_SD(1.0), t[a]));
        OK(d[a][3] = k_minus(pp, TN_SD(2.0), t[a]));
    }
    for (int a = 0; a < 2; a++)
        for (int o = 0; o < 2; o++) OK(w[a][o] = cubic4(pp, d[a], o));
    /* the taps' coordinates, x varying fastest */
    PyObject *dev = KP(tn_py_device_new(it->storage->device, -1));
    PyObject *ar = dev ? KP(tn_at_arange_start(TN_SI(-1), TN_SI(3), TN_DT(TN_DTYPE_I64), tn_py.layout_strided, dev, NULL)) : NULL;
    PyObject *tp[2];
    for (int a = 0; a < 2; a++) OK(ar && (tp[a] = KP(tn_at_add_Tensor(KP(tn_at_unsqueeze(fl[a], -1)), ar, TN_SDEF))));
    for (int a = 0; a < 2; a++) {
        PyObject *e = KP(tn_at_expand(KP(tn_at_unsqueeze(tp[a], a ? -1 : -2)), TN_IS(-1, -1, -1, 4, 4), false));
        OK(cs[a] = e ? KP(tn_at_reshape(e, TN_IS(N, Ho, Wo, 16))) : NULL);
    }
    int refl = padding == 2 ? 1 + align : 0;
    PyObject *idx = corner_index(pp, 2, cs, sz, N, C, P, refl, dt);
    PyObject *flat = idx ? KP(tn_at_view(input, TN_IS(N, C, H * W))) : NULL;
    PyObject *vals = flat ? KP(tn_at_view(KP(tn_at_gather(flat, 2, idx, false)), TN_IS(N, C, Ho, Wo, 16))) : NULL;
    if (vals && padding == 0) vals = mask_zeros(pp, vals, 2, cs, sz, dt);
    OK(vals);
    PyObject *dx = outer16(pp, w[1][0], w[0][1]), *dy = dx ? outer16(pp, w[1][1], w[0][0]) : NULL;
    OK(dy);
    /* grad_output's gradient */
    PyObject *dodx = KP(tn_at_sum_dim_IntList(KP(tn_at_mul_Tensor(vals, KP(tn_at_unsqueeze(dx, 1)))), TN_IS(-1), false, NULL));
    PyObject *dody = dodx ? KP(tn_at_sum_dim_IntList(KP(tn_at_mul_Tensor(vals, KP(tn_at_unsqueeze(dy, 1)))), TN_IS(-1), false, NULL)) : NULL;
    PyObject *go_g = dody ? KP(tn_at_mul_Tensor(dodx, KP(tn_at_unsqueeze(g[0], 1)))) : NULL;
    OK(go_g && KP(tn_at_addcmul_(go_g, dody, KP(tn_at_unsqueeze(g[1], 1)), TN_SDEF)));
    OK(*d_go = *d_go ? KP(tn_at_add_Tensor(*d_go, go_g, TN_SDEF)) : go_g);
    /* input's gradient */
    PyObject *coef = KP(tn_at_mul_Tensor(KP(tn_at_unsqueeze(g[0], -1)), dx));
    OK(coef && KP(tn_at_addcmul_(coef, KP(tn_at_unsqueeze(g[1], -1)), dy, TN_SDEF)));
    OK(*d_input = scatter_input(pp, coef, gO, input, 2, cs, sz, P, padding, refl));
    /* grid's gradient: tap by tap, sum_C(grad_output * v) times (dd wx wy, dwx dwy, wx dd wy) */
    for (int a = 0; a < 2; a++) OK(w[a][2] = cubic4(pp, d[a], 2));
    PyObject *S[3] = {NULL, NULL, NULL};
    static const int ox[3] = {2, 1, 0}, oy[3] = {0, 1, 2};
    for (int j = 0; j < 4; j++) {
        PyObject *wy[3];
        for (int o = 0; o < 3; o++) OK(wy[o] = KP(tn_at_select_int(w[1][o], -1, j)));
        for (int i = 0; i < 4; i++) {
            PyObject *v = KP(tn_at_select_int(vals, -1, 4 * j + i));
            PyObject *s = v ? KP(tn_at_sum_dim_IntList(KP(tn_at_mul_Tensor(gO, v)), TN_IS(1), false, NULL)) : NULL;
            PyObject *p[3];
            for (int q = 0; q < 3; q++) {
                PyObject *wx = s ? KP(tn_at_select_int(w[0][ox[q]], -1, i)) : NULL;
                OK(p[q] = wx ? KP(tn_at_mul_Tensor(KP(tn_at_mul_Tensor(s, wx)), wy[oy[q]])) : NULL);
            }
            for (int q = 0; q < 3; q++)
                if (!i && !j) S[q] = p[q];
                else OK(KP(tn_at_add__Tensor(S[q], p[q], TN_SDEF)));
        }
    }
    /* d/dx (Sxx gx + Sxy gy) * scale_x, d/dy (Syy gy + Sxy gx) * scale_y */
    PyObject *r[2];
    for (int a = 0; a < 2; a++) {
        OK(r[a] = KP(tn_at_mul_Tensor(S[2 * a], g[a])));
        OK(KP(tn_at_addcmul_(r[a], S[1], g[1 - a], TN_SDEF)) && KP(tn_at_mul__Scalar(r[a], TN_SD(sc[a]))));
    }
    PyObject *g2 = KP(tn_at_stack(TN_TS(r[0], r[1]), -1));
    OK(*d_grid = g2 && *d_grid ? KP(tn_at_add_Tensor(*d_grid, g2, TN_SDEF)) : g2);
    return 0;
#undef OK
#undef KP
}

PyObject *tn_bw_grid_sampler_2d_double_backward(PyObject *ggI, PyObject *ggGrid, PyObject *gO, PyObject *input,
                                                PyObject *grid, int64_t interpolation, int64_t padding, bool align,
                                                tn_ints mask) {
    (void)mask;
    if (interpolation < 0 || interpolation > 2 || padding < 0 || padding > 2)
        return tn_not_implemented("grid_sampler_2d double backward with this interpolation / padding mode");
    pool tt = {.n = 0};
    PyObject *d_go = NULL, *d_input = NULL, *d_grid = NULL;
    if (ggI) {
        d_go = K(tn_at_grid_sampler_2d(ggI, grid, interpolation, padding, align));
        PyObject *r = d_go ? K(tn_at_grid_sampler_2d_backward(gO, ggI, grid, interpolation, padding, align, TN_IS(0, 1))) : NULL;
        NEED(r);
        d_grid = PyTuple_GetItem(r, 1);
        NEED(d_grid);
    }
    if (ggGrid && interpolation != 1) {   /* bilinear (0), bicubic (2) */
        const tn_tensor *it = tn_tensor_of(input), *gt = tn_tensor_of(grid);
        int64_t N = it->sizes[0], C = it->sizes[1], H = it->sizes[2], W = it->sizes[3];
        int64_t Ho = gt->sizes[1], Wo = gt->sizes[2], P = Ho * Wo;
        tn_dtype dt = it->dtype;
        PyObject *ix, *mx, *iy, *my;
        NEED(unnormalize(&tt, K(tn_at_select_int(grid, -1, 0)), W, padding, align, &ix, &mx) == 0);
        NEED(unnormalize(&tt, K(tn_at_select_int(grid, -1, 1)), H, padding, align, &iy, &my) == 0);
        PyObject *x0 = K(tn_at__to_copy(K(tn_at_floor(ix)), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL));
        PyObject *y0 = x0 ? K(tn_at__to_copy(K(tn_at_floor(iy)), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL)) : NULL;
        NEED(y0);
        PyObject *fx = K(tn_at_sub_Tensor(ix, K(tn_at__to_copy(x0, TN_DT(dt), NULL, NULL, NULL, false, NULL)), TN_SDEF));
        PyObject *fy = fx ? K(tn_at_sub_Tensor(iy, K(tn_at__to_copy(y0, TN_DT(dt), NULL, NULL, NULL, false, NULL)), TN_SDEF)) : NULL;
        PyObject *gx = fy ? K(tn_at_mul_Tensor(K(tn_at_select_int(ggGrid, -1, 0)), mx)) : NULL;
        PyObject *gy = gx ? K(tn_at_mul_Tensor(K(tn_at_select_int(ggGrid, -1, 1)), my)) : NULL;
        if (interpolation == 2) {   /* upstream computes the bilinear coordinates above, then bicubic's own */
            NEED(gy && bicubic_gg(&tt, ggGrid, gO, input, grid, padding, align, &d_go, &d_input, &d_grid) == 0);
            goto done;
        }
        PyObject *x1 = gy ? K(tn_at_add_Scalar(x0, TN_SI(1), TN_SDEF)) : NULL;
        PyObject *y1 = x1 ? K(tn_at_add_Scalar(y0, TN_SI(1), TN_SDEF)) : NULL;
        PyObject *xs = y1 ? K(tn_at_stack(TN_TS(x0, x1, x0, x1), -1)) : NULL;
        PyObject *ys = xs ? K(tn_at_stack(TN_TS(y0, y0, y1, y1), -1)) : NULL;
        PyObject *cs[2] = {xs, ys};
        const int64_t sz[2] = {W, H};
        PyObject *idx = ys ? corner_index(&tt, 2, cs, sz, N, C, P, 0, dt) : NULL;
        PyObject *flat = idx ? K(tn_at_view(input, TN_IS(N, C, H * W))) : NULL;
        PyObject *vals = flat ? K(tn_at_view(K(tn_at_gather(flat, 2, idx, false)), TN_IS(N, C, Ho, Wo, 4))) : NULL;
        if (vals && padding == 0) vals = mask_zeros(&tt, vals, 2, cs, sz, dt);
        NEED(vals);
        /* the corner weights' derivatives: d/dx (-wy0, wy0, -fy, fy), d/dy (-wx0, -fx, wx0, fx) */
        PyObject *wx0 = k_minus(&tt, TN_SD(1.0), fx), *wy0 = wx0 ? k_minus(&tt, TN_SD(1.0), fy) : NULL;
        NEED(wy0);
        PyObject *n1 = K(tn_at_neg(wy0)), *n2 = n1 ? K(tn_at_neg(fy)) : NULL;
        PyObject *dwx = n2 ? K(tn_at_stack(TN_TS(n1, wy0, n2, fy), -1)) : NULL;
        PyObject *n3 = dwx ? K(tn_at_neg(wx0)) : NULL, *n4 = n3 ? K(tn_at_neg(fx)) : NULL;
        PyObject *dwy = n4 ? K(tn_at_stack(TN_TS(n3, n4, wx0, fx), -1)) : NULL;
        PyObject *dodx = dwy ? K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(vals, K(tn_at_unsqueeze(dwx, 1)))), TN_IS(-1), false, NULL)) : NULL;
        PyObject *dody = dodx ? K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(vals, K(tn_at_unsqueeze(dwy, 1)))), TN_IS(-1), false, NULL)) : NULL;
        /* grad_output's gradient */
        PyObject *go_g = dody ? K(tn_at_mul_Tensor(dodx, K(tn_at_unsqueeze(gx, 1)))) : NULL;
        NEED(go_g && K(tn_at_addcmul_(go_g, dody, K(tn_at_unsqueeze(gy, 1)), TN_SDEF)));
        d_go = d_go ? K(tn_at_add_Tensor(d_go, go_g, TN_SDEF)) : go_g;
        NEED(d_go);
        /* input's gradient: grad_output times the coordinate-weighted corner derivatives, scattered */
        PyObject *coef = K(tn_at_mul_Tensor(K(tn_at_unsqueeze(gx, -1)), dwx));
        NEED(coef && K(tn_at_addcmul_(coef, K(tn_at_unsqueeze(gy, -1)), dwy, TN_SDEF)));
        NEED(d_input = scatter_input(&tt, coef, gO, input, 2, cs, sz, P, padding, 0));
        /* grid's gradient: the mixed second derivative, summed over channels against grad_output */
        PyObject *v0 = K(tn_at_select_int(vals, -1, 0)), *v1 = v0 ? K(tn_at_select_int(vals, -1, 1)) : NULL;
        PyObject *v2 = v1 ? K(tn_at_select_int(vals, -1, 2)) : NULL, *v3 = v2 ? K(tn_at_select_int(vals, -1, 3)) : NULL;
        PyObject *cross = v3 ? K(tn_at_add_Tensor(K(tn_at_sub_Tensor(K(tn_at_sub_Tensor(v0, v1, TN_SDEF)), v2, TN_SDEF)), v3, TN_SDEF)) : NULL;
        PyObject *S = cross ? K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(gO, cross)), TN_IS(1), false, NULL)) : NULL;
        PyObject *ggx = S ? K(tn_at_mul_Tensor(K(tn_at_mul_Tensor(S, gy)), mx)) : NULL;
        PyObject *ggy = ggx ? K(tn_at_mul_Tensor(K(tn_at_mul_Tensor(S, gx)), my)) : NULL;
        PyObject *g2 = ggy ? K(tn_at_stack(TN_TS(ggx, ggy), -1)) : NULL;
        NEED(g2);
        d_grid = d_grid ? K(tn_at_add_Tensor(d_grid, g2, TN_SDEF)) : g2;
        NEED(d_grid);
    }
done:;
    PyObject *r = PyTuple_Pack(3, d_go ? d_go : Py_None, d_input ? d_input : Py_None, d_grid ? d_grid : Py_None);
    pool_free(&tt);
    return r;
fail:
    pool_free(&tt);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: grid_sampler_2d_double_backward failed");
    return NULL;
}

/* a * b, or -a * b: one term of a corner weight's derivative */
static PyObject *term(pool *pp, bool neg, PyObject *a, PyObject *b) {
    PyObject *x = neg ? keep(pp, tn_at_neg(a)) : a;
    return x ? keep(pp, tn_at_mul_Tensor(x, b)) : NULL;
}

/* v[i] - v[j] - v[k] + v[l]: a mixed difference over one face of the cell */
static PyObject *cross(pool *pp, PyObject **v, int i, int j, int k, int l) {
    PyObject *d = keep(pp, tn_at_sub_Tensor(v[i], v[j], TN_SDEF));
    d = d ? keep(pp, tn_at_sub__Tensor(d, v[k], TN_SDEF)) : NULL;
    return d ? keep(pp, tn_at_add__Tensor(d, v[l], TN_SDEF)) : NULL;
}

/* grid_sampler_3d's double backward: the 2-d one's scheme over the cell's 8 corners (k = x + 2y + 4z) */
PyObject *tn_bw_grid_sampler_3d_double_backward(PyObject *ggI, PyObject *ggGrid, PyObject *gO, PyObject *input,
                                                PyObject *grid, int64_t interpolation, int64_t padding, bool align,
                                                tn_ints mask) {
    (void)mask;
    if (interpolation < 0 || interpolation > 1 || padding < 0 || padding > 2)
        return tn_not_implemented("grid_sampler_3d double backward with this interpolation / padding mode");
    pool tt = {.n = 0};
    PyObject *d_go = NULL, *d_input = NULL, *d_grid = NULL;
    if (ggI) {
        d_go = K(tn_at_grid_sampler_3d(ggI, grid, interpolation, padding, align));
        PyObject *r = d_go ? K(tn_at_grid_sampler_3d_backward(gO, ggI, grid, interpolation, padding, align, TN_IS(0, 1))) : NULL;
        NEED(r);
        d_grid = PyTuple_GetItem(r, 1);
        NEED(d_grid);
    }
    if (ggGrid && interpolation == 0) {
        const tn_tensor *it = tn_tensor_of(input), *gt = tn_tensor_of(grid);
        int64_t N = it->sizes[0], C = it->sizes[1], D = it->sizes[2], H = it->sizes[3], W = it->sizes[4];
        int64_t Do = gt->sizes[1], Ho = gt->sizes[2], Wo = gt->sizes[3], P = Do * Ho * Wo;
        const int64_t sz[3] = {W, H, D};
        tn_dtype dt = it->dtype;
        PyObject *c[3], *m[3], *lo[3], *hi[3], *fr[3], *gg[3], *w0[3], *fu[3], *v[8];
        for (int a = 0; a < 3; a++)
            NEED(unnormalize(&tt, K(tn_at_select_int(grid, -1, a)), sz[a], padding, align, &c[a], &m[a]) == 0);
        for (int a = 0; a < 3; a++)
            NEED(lo[a] = K(tn_at__to_copy(K(tn_at_floor(c[a])), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, false, NULL)));
        for (int a = 0; a < 3; a++) NEED(hi[a] = K(tn_at_add_Scalar(lo[a], TN_SI(1), TN_SDEF)));
        for (int a = 0; a < 3; a++)
            NEED(fr[a] = K(tn_at_sub_Tensor(c[a], K(tn_at__to_copy(lo[a], TN_DT(dt), NULL, NULL, NULL, false, NULL)), TN_SDEF)));
        for (int a = 0; a < 3; a++) NEED(gg[a] = K(tn_at_mul_Tensor(K(tn_at_select_int(ggGrid, -1, a)), m[a])));
        PyObject *cs[3];
        NEED(cs[0] = K(tn_at_stack(TN_TS(lo[0], hi[0], lo[0], hi[0], lo[0], hi[0], lo[0], hi[0]), -1)));
        NEED(cs[1] = K(tn_at_stack(TN_TS(lo[1], lo[1], hi[1], hi[1], lo[1], lo[1], hi[1], hi[1]), -1)));
        NEED(cs[2] = K(tn_at_stack(TN_TS(lo[2], lo[2], lo[2], lo[2], hi[2], hi[2], hi[2], hi[2]), -1)));
        PyObject *idx = corner_index(&tt, 3, cs, sz, N, C, P, 0, dt);
        PyObject *flat = idx ? K(tn_at_view(input, TN_IS(N, C, D * H * W))) : NULL;
        PyObject *vals = flat ? K(tn_at_view(K(tn_at_gather(flat, 2, idx, false)), TN_IS(N, C, Do, Ho, Wo, 8))) : NULL;
        if (vals && padding == 0) vals = mask_zeros(&tt, vals, 3, cs, sz, dt);
        NEED(vals);
        for (int a = 0; a < 3; a++) NEED(w0[a] = k_minus(&tt, TN_SD(1.0), fr[a]));
        /* the corner weights' derivatives along x, y, z, in upstream's order of terms */
        PyObject *dw[3][8], *dws[3];
        for (int q = 0, k = 0; q < 2; q++)
            for (int p = 0; p < 2; p++, k += 2) {
                PyObject *wy = p ? fr[1] : w0[1], *wz = q ? fr[2] : w0[2];
                NEED(dw[0][k] = term(&tt, true, wy, wz));
                NEED(dw[0][k + 1] = term(&tt, false, wy, wz));
            }
        NEED(dws[0] = STACK8(dw[0]));
        for (int q = 0; q < 2; q++)
            for (int s = 1; s >= 0; s--)
                for (int p = 0; p < 2; p++)
                    NEED(dw[1][4 * q + 2 * (1 - s) + p] = term(&tt, s, p ? fr[0] : w0[0], q ? fr[2] : w0[2]));
        NEED(dws[1] = STACK8(dw[1]));
        for (int s = 1; s >= 0; s--)
            for (int k = 0; k < 4; k++)
                NEED(dw[2][4 * (1 - s) + k] = term(&tt, s, k & 1 ? fr[0] : w0[0], k & 2 ? fr[1] : w0[1]));
        NEED(dws[2] = STACK8(dw[2]));
        PyObject *dod[3];
        for (int a = 0; a < 3; a++)
            NEED(dod[a] = K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(vals, K(tn_at_unsqueeze(dws[a], 1)))), TN_IS(-1), false, NULL)));
        /* grad_output's gradient */
        PyObject *go_g = K(tn_at_mul_Tensor(dod[0], K(tn_at_unsqueeze(gg[0], 1))));
        for (int a = 1; a < 3; a++) NEED(go_g && K(tn_at_addcmul_(go_g, dod[a], K(tn_at_unsqueeze(gg[a], 1)), TN_SDEF)));
        d_go = d_go ? K(tn_at_add_Tensor(d_go, go_g, TN_SDEF)) : go_g;
        NEED(d_go);
        /* input's gradient: grad_output times the coordinate-weighted corner derivatives, scattered */
        PyObject *coef = K(tn_at_mul_Tensor(K(tn_at_unsqueeze(gg[0], -1)), dws[0]));
        for (int a = 1; a < 3; a++) NEED(coef && K(tn_at_addcmul_(coef, K(tn_at_unsqueeze(gg[a], -1)), dws[a], TN_SDEF)));
        NEED(d_input = scatter_input(&tt, coef, gO, input, 3, cs, sz, P, padding, 0));
        /* grid's gradient: the mixed second derivatives (xy, xz, yz), each the two faces' differences
         * interpolated along the third axis, summed over channels against grad_output */
        for (int a = 0; a < 3; a++) NEED(fu[a] = K(tn_at_unsqueeze(fr[a], 1)));
        for (int k = 0; k < 8; k++) NEED(v[k] = K(tn_at_select_int(vals, -1, k)));
        PyObject *a0 = cross(&tt, v, 0, 1, 2, 3), *b0 = a0 ? cross(&tt, v, 4, 5, 6, 7) : NULL;
        PyObject *om = b0 ? k_minus(&tt, TN_SI(1), fu[2]) : NULL;
        PyObject *dxy = om ? K(tn_at_mul_Tensor(om, a0)) : NULL;
        NEED(dxy && K(tn_at_add__Tensor(dxy, K(tn_at_mul_Tensor(fu[2], b0)), TN_SDEF)));
        static const int faces[2][2][2] = {{{0, 1}, {4, 5}}, {{0, 2}, {4, 6}}};
        PyObject *dd[2];
        for (int f = 0; f < 2; f++) {   /* xz (along y), yz (along x) */
            const int i = faces[f][0][0], j = faces[f][0][1], k = faces[f][1][0], l = faces[f][1][1], st = f ? 1 : 2;
            PyObject *a1 = cross(&tt, v, i, j, k, l), *b1 = a1 ? cross(&tt, v, i + st, j + st, k + st, l + st) : NULL;
            PyObject *o1 = b1 ? k_minus(&tt, TN_SI(1), fu[1 - f]) : NULL;
            NEED(dd[f] = o1 ? K(tn_at_mul_Tensor(o1, a1)) : NULL);
            NEED(K(tn_at_addcmul_(dd[f], fu[1 - f], b1, TN_SDEF)));
        }
        PyObject *S[3] = {dxy, dd[0], dd[1]};   /* xy, xz, yz */
        for (int a = 0; a < 3; a++) NEED(S[a] = K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(gO, S[a])), TN_IS(1), false, NULL)));
        /* d/dx: S_xy gy + S_xz gz; d/dy: S_xy gx + S_yz gz; d/dz: S_xz gx + S_yz gy */
        static const int pick[3][4] = {{0, 1, 1, 2}, {0, 0, 2, 2}, {1, 0, 2, 1}};
        PyObject *g3[3];
        for (int a = 0; a < 3; a++) {
            NEED(g3[a] = K(tn_at_mul_Tensor(S[pick[a][0]], gg[pick[a][1]])));
            NEED(K(tn_at_addcmul_(g3[a], S[pick[a][2]], gg[pick[a][3]], TN_SDEF)));
            NEED(K(tn_at_mul__Tensor(g3[a], m[a])));
        }
        PyObject *g2 = K(tn_at_stack(TN_TS(g3[0], g3[1], g3[2]), -1));
        NEED(g2);
        d_grid = d_grid ? K(tn_at_add_Tensor(d_grid, g2, TN_SDEF)) : g2;
        NEED(d_grid);
    }
    PyObject *r = PyTuple_Pack(3, d_go ? d_go : Py_None, d_input ? d_input : Py_None, d_grid ? d_grid : Py_None);
    pool_free(&tt);
    return r;
fail:
    pool_free(&tt);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: grid_sampler_3d_double_backward failed");
    return NULL;
}
