/* bw_grid.c — grid_sampler_2d's double backward (derivatives.yaml: grid_sampler_2d_backward's
 * formula, FunctionsManual's grid_sampler_2d_double_backward), written from the op stream upstream
 * 2.13.0 dispatches (measured with a TorchDispatchMode, docs/embbag_grid.md):
 *
 *   ggI (the incoming gradient of grad_input): grad_output's gradient grid_sampler_2d(ggI, grid),
 *     grid's gradient grid_sampler_2d_backward(grad_output, ggI, grid, mask {false, true})[1];
 *   ggGrid (that of grad_grid), bilinear only: the unnormalised coordinates and their derivative
 *     (zeros: ones_like * scale; border: the clip mask * scale), the four corners' values gathered
 *     from input (zeros: masked to the valid corners), the corner weights' derivatives; then
 *     grad_output's gradient sum_corners(v * dw/dx) * ggx' + (... dw/dy) * ggy', input's gradient
 *     scattered back (scatter_add into zeros), grid's gradient from the mixed second derivative
 *     sum_C(grad_output * (v00 - v10 - v01 + v11)).
 *
 * Nearest has no ggGrid term (its grid gradient is zero). Bicubic and reflection padding refuse by
 * name: upstream's longer streams for them are not reproduced. Every op goes through the typed op
 * API, so a dispatch mode sees upstream's stream and create_graph records it. */
#include "autograd/bw_helpers.h"
#include "autograd/autograd.h"
#include "tn_aten_gen.h"

#include <string.h>

#define NT 192
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

/* the unnormalised coordinate along one axis of `size` and its derivative: (ix, mult) */
static int unnormalize(pool *pp, PyObject *g, int64_t size, int64_t padding, bool align, PyObject **ix, PyObject **mult) {
#define KP(e) keep(pp, (e))
    double scale = align ? (double)(size - 1) / 2 : (double)size / 2;
    PyObject *c = KP(tn_at_mul_Scalar(KP(tn_at_add_Scalar(g, TN_SI(1), TN_SDEF)), TN_SD(scale)));
    if (c && !align) c = KP(tn_at_sub_Scalar(c, TN_SD(0.5), TN_SDEF));
    if (!c) return -1;
    if (padding == 1) {   /* border: clip_coordinates, whose derivative is the inside mask */
        PyObject *lt = KP(tn_at_lt_Scalar(c, TN_SD((double)(size - 1))));
        PyObject *gt = lt ? KP(tn_at_gt_Scalar(c, TN_SI(0))) : NULL;
        PyObject *in = gt ? KP(tn_at_bitwise_and_Tensor(lt, gt)) : NULL;
        PyObject *inf = in ? KP(tn_at__to_copy(in, TN_DT(tn_tensor_of(g)->dtype), NULL, NULL, NULL, false, NULL)) : NULL;
        c = inf ? KP(tn_at_clamp(c, TN_SI(0), TN_SI(size - 1))) : NULL;
        *mult = c ? KP(tn_at_mul_Scalar(inf, TN_SD(scale))) : NULL;
    } else {
        *mult = KP(tn_at_mul_Scalar(KP(tn_at_ones_like(c, NULL, NULL, NULL, NULL, NULL)), TN_SD(scale)));
    }
    *ix = c;
    return *mult ? 0 : -1;
#undef KP
}

/* the corners' linear indices (clamped), viewed (N, 1, Ho*Wo*4) and expanded over C */
static PyObject *corner_index(pool *pp, PyObject *xs, PyObject *ys, int64_t N, int64_t C, int64_t H, int64_t W, int64_t P) {
#define KP(e) keep(pp, (e))
    PyObject *xc = KP(tn_at_clamp(xs, TN_SI(0), TN_SI(W - 1)));
    PyObject *yc = xc ? KP(tn_at_clamp(ys, TN_SI(0), TN_SI(H - 1))) : NULL;
    PyObject *lin = yc ? KP(tn_at_add_Tensor(KP(tn_at_mul_Scalar(yc, TN_SI(W))), xc, TN_SDEF)) : NULL;
    PyObject *v = lin ? KP(tn_at_view(lin, TN_IS(N, 1, P * 4))) : NULL;
    return v ? KP(tn_at_expand(v, TN_IS(N, C, P * 4), false)) : NULL;
#undef KP
}

/* zeros padding: the values (N, C, Ho, Wo, 4) times the corners' inside mask */
static PyObject *mask_zeros(pool *pp, PyObject *vals, PyObject *xs, PyObject *ys, int64_t H, int64_t W, tn_dtype dt) {
#define KP(e) keep(pp, (e))
    PyObject *xl = KP(tn_at_lt_Scalar(xs, TN_SI(W))), *xg = xl ? KP(tn_at_ge_Scalar(xs, TN_SI(0))) : NULL;
    PyObject *yl = xg ? KP(tn_at_lt_Scalar(ys, TN_SI(H))) : NULL, *yg = yl ? KP(tn_at_ge_Scalar(ys, TN_SI(0))) : NULL;
    PyObject *mx = yg ? KP(tn_at_bitwise_and_Tensor(xl, xg)) : NULL;
    PyObject *my = mx ? KP(tn_at_bitwise_and_Tensor(yl, yg)) : NULL;
    PyObject *m = my ? KP(tn_at_bitwise_and_Tensor(mx, my)) : NULL;
    PyObject *mf = m ? KP(tn_at__to_copy(KP(tn_at_unsqueeze(m, 1)), TN_DT(dt), NULL, NULL, NULL, false, NULL)) : NULL;
    return mf ? KP(tn_at_mul_Tensor(vals, mf)) : NULL;
#undef KP
}

/* 1 - t as ATen's Scalar - Tensor operator: empty_like(t).fill_(1).sub_(t) */
static PyObject *one_minus(pool *pp, PyObject *t) {
#define KP(e) keep(pp, (e))
    PyObject *e = KP(tn_at_empty_like(t, NULL, NULL, NULL, NULL, tn_py.memory_format_preserve));
    PyObject *f = e ? KP(tn_at_fill__Scalar(e, TN_SD(1.0))) : NULL;
    return f ? KP(tn_at_sub__Tensor(f, t, TN_SDEF)) : NULL;
#undef KP
}

PyObject *tn_bw_grid_sampler_2d_double_backward(PyObject *ggI, PyObject *ggGrid, PyObject *gO, PyObject *input,
                                                PyObject *grid, int64_t interpolation, int64_t padding, bool align,
                                                tn_ints mask) {
    (void)mask;
    if (interpolation == 2 || (interpolation == 0 && padding == 2) || interpolation < 0 || interpolation > 2 ||
        padding < 0 || padding > 2)
        return tn_not_implemented(interpolation == 2 ? "grid_sampler_2d double backward with bicubic interpolation"
                                                     : "grid_sampler_2d double backward with reflection padding");
    pool tt = {.n = 0};
    PyObject *d_go = NULL, *d_input = NULL, *d_grid = NULL;
    if (ggI) {
        d_go = K(tn_at_grid_sampler_2d(ggI, grid, interpolation, padding, align));
        PyObject *r = d_go ? K(tn_at_grid_sampler_2d_backward(gO, ggI, grid, interpolation, padding, align, TN_IS(0, 1))) : NULL;
        NEED(r);
        d_grid = PyTuple_GetItem(r, 1);
        NEED(d_grid);
    }
    if (ggGrid && interpolation == 0) {
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
        PyObject *x1 = gy ? K(tn_at_add_Scalar(x0, TN_SI(1), TN_SDEF)) : NULL;
        PyObject *y1 = x1 ? K(tn_at_add_Scalar(y0, TN_SI(1), TN_SDEF)) : NULL;
        PyObject *xs = y1 ? K(tn_at_stack(TN_TS(x0, x1, x0, x1), -1)) : NULL;
        PyObject *ys = xs ? K(tn_at_stack(TN_TS(y0, y0, y1, y1), -1)) : NULL;
        PyObject *idx = ys ? corner_index(&tt, xs, ys, N, C, H, W, P) : NULL;
        PyObject *flat = idx ? K(tn_at_view(input, TN_IS(N, C, H * W))) : NULL;
        PyObject *vals = flat ? K(tn_at_view(K(tn_at_gather(flat, 2, idx, false)), TN_IS(N, C, Ho, Wo, 4))) : NULL;
        if (vals && padding == 0) vals = mask_zeros(&tt, vals, xs, ys, H, W, dt);
        NEED(vals);
        /* the corner weights' derivatives: d/dx (-wy0, wy0, -fy, fy), d/dy (-wx0, -fx, wx0, fx) */
        PyObject *wx0 = one_minus(&tt, fx), *wy0 = wx0 ? one_minus(&tt, fy) : NULL;
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
        PyObject *idx2 = corner_index(&tt, xs, ys, N, C, H, W, P);
        PyObject *cu = idx2 ? K(tn_at_unsqueeze(coef, 1)) : NULL;
        PyObject *contrib = cu ? K(tn_at_mul_Tensor(K(tn_at_unsqueeze(gO, -1)), cu)) : NULL;
        if (contrib && padding == 0) contrib = mask_zeros(&tt, contrib, xs, ys, H, W, dt);
        NEED(contrib);
        PyObject *z = K(tn_at_zeros(TN_IS(N, C, H * W), TN_DT(dt), tn_py.layout_strided,
                                    K(tn_py_device_new(it->storage->device, -1)), NULL));
        PyObject *sc = z ? K(tn_at_scatter_add(z, 2, idx2, K(tn_at_view(contrib, TN_IS(N, C, P * 4))))) : NULL;
        d_input = sc ? K(tn_at_view(sc, TN_IS(N, C, H, W))) : NULL;
        NEED(d_input);
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
    PyObject *r = PyTuple_Pack(3, d_go ? d_go : Py_None, d_input ? d_input : Py_None, d_grid ? d_grid : Py_None);
    pool_free(&tt);
    return r;
fail:
    pool_free(&tt);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: grid_sampler_2d_double_backward failed");
    return NULL;
}
