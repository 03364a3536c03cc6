/* fracpool.c — fractional max pooling (kernels/fracpool.h). */
#include "kernels/fracpool.h"

#include "core/dtype.h"

#include <math.h>

/* one operation's result rounded to the dtype upstream's kernel computes in */
static double rnd(double v, int r) {
    switch (r) {
    case 1: return (double)(float)v;
    case 2: return (double)tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    case 3: return (double)tn_f16_to_f32(tn_f32_to_f16((float)v));
    default: return v;
    }
}

/* upstream's generate_intervals: alpha = (in - pool) / (out - 1); start_i = int((i + u) * alpha)
 * - int(u * alpha), the last one in - pool; every step in scalar_t */
static void intervals(double u, int64_t in, int64_t out, int64_t pool, int r, int64_t *seq) {
    if (out > 1) {
        double alpha = rnd(rnd((double)(in - pool), r) / rnd((double)(out - 1), r), r);
        for (int64_t i = 0; i < out - 1; i++)
            seq[i] = (int64_t)(int)rnd(rnd(rnd((double)i, r) + u, r) * alpha, r) - (int64_t)(int)rnd(u * alpha, r);
    }
    if (out > 0) seq[out - 1] = in - pool;
}

void tn_fracpool_fwd(const tn_fracpool_plan *p, const double *in, const double *samples, double *out, int64_t *idx,
                     int64_t *starts) {
    int64_t T = p->in[0], H = p->in[1], W = p->in[2], oT = p->out[0], oH = p->out[1], oW = p->out[2];
    int64_t *sT = starts, *sH = sT + oT, *sW = sH + oH;
    for (int64_t pl = 0; pl < p->planes; pl++) {
        const double *u = samples + pl * p->k;
        /* 2-d: sample 0 is the width's, 1 the height's; 3-d: time, height, width */
        if (p->k == 2) {
            sT[0] = 0;
            intervals(u[0], W, oW, p->pool[2], p->rnd, sW);
            intervals(u[1], H, oH, p->pool[1], p->rnd, sH);
        } else {
            intervals(u[0], T, oT, p->pool[0], p->rnd, sT);
            intervals(u[1], H, oH, p->pool[1], p->rnd, sH);
            intervals(u[2], W, oW, p->pool[2], p->rnd, sW);
        }
        const double *ip = in + pl * T * H * W;
        double *op = out + pl * oT * oH * oW;
        int64_t *xp = idx + pl * oT * oH * oW;
        for (int64_t t = 0; t < oT; t++)
            for (int64_t h = 0; h < oH; h++)
                for (int64_t w = 0; w < oW; w++) {
                    int64_t t0 = sT[t], h0 = sH[h], w0 = sW[w];
                    double m = -INFINITY;
                    int64_t mi = (t0 * H + h0) * W + w0;
                    for (int64_t t2 = t0; t2 < t0 + p->pool[0]; t2++)
                        for (int64_t h2 = h0; h2 < h0 + p->pool[1]; h2++)
                            for (int64_t w2 = w0; w2 < w0 + p->pool[2]; w2++) {
                                int64_t j = (t2 * H + h2) * W + w2;
                                double v = ip[j];
                                if (v > m || isnan(v)) {
                                    m = v;
                                    mi = j;
                                }
                            }
                    int64_t o = (t * oH + h) * oW + w;
                    op[o] = m;
                    xp[o] = mi;
                }
    }
}

void tn_fracpool_bwd(const tn_fracpool_plan *p, const double *gout, const int64_t *idx, double *gin) {
    int64_t isz = p->in[0] * p->in[1] * p->in[2], osz = p->out[0] * p->out[1] * p->out[2];
    for (int64_t i = 0; i < p->planes * isz; i++) gin[i] = 0.0;
    for (int64_t pl = 0; pl < p->planes; pl++) {
        double *gp = gin + pl * isz;
        for (int64_t o = 0; o < osz; o++) {
            int64_t j = idx[pl * osz + o];
            gp[j] = rnd(gp[j] + gout[pl * osz + o], p->rnd);
        }
    }
}
