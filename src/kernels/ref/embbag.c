/* embbag.c — embedding_bag forward and backward loops (kernels/embbag.h). */
#include "kernels/embbag.h"
#include "core/dtype.h"

#include <math.h>

static inline double ld(int dt, const char *b, int64_t i) {
    switch (dt) {
    case 0: return ((const float *)b)[i];
    case 1: return ((const double *)b)[i];
    case 2: return tn_bf16_to_f32(((const uint16_t *)b)[i]);
    default: return tn_f16_to_f32(((const uint16_t *)b)[i]);
    }
}
static inline void st(int dt, char *b, int64_t i, double v) {
    switch (dt) {
    case 0: ((float *)b)[i] = (float)v; break;
    case 1: ((double *)b)[i] = v; break;
    case 2: ((uint16_t *)b)[i] = tn_f32_to_bf16((float)v); break;
    default: ((uint16_t *)b)[i] = tn_f32_to_f16((float)v); break;
    }
}

int tn_embbag_forward(const tn_embbag_plan *p, int64_t *bad, int64_t *pos) {
    int64_t D = p->dim;
    for (int64_t i = 0; i < p->n; i++) {
        int64_t ix = p->idx[i], b = p->bag_of[i];
        if (ix < 0 || ix >= p->nw) {
            *bad = ix;
            *pos = i;
            return -1;
        }
        if (ix == p->pad) {
            if (p->bag_size) p->bag_size[b]--;
            continue;
        }
        const char *row = p->w;
        int64_t base = ix * p->ws0;
        if (p->mode == 2) {
            bool first = !p->seen[b];
            for (int64_t d = 0; d < D; d++) {
                double v = ld(p->dt, row, base + d * p->ws1), cur = ld(p->dt, p->out, b * D + d);
                if (first || v > cur) {
                    st(p->dt, p->out, b * D + d, v);
                    if (p->maxidx) p->maxidx[b * D + d] = ix;
                }
            }
            p->seen[b] = 1;
        } else if (p->dt == 1) {
            double *o = (double *)p->out + b * D;
            const double *w = (const double *)row + base;
            if (p->psw) {
                double s = ((const double *)p->psw)[i * p->pss];
                for (int64_t d = 0; d < D; d++) o[d] += w[d * p->ws1] * s;
            } else {
                for (int64_t d = 0; d < D; d++) o[d] += w[d * p->ws1];
            }
        } else {
            float *o = p->accf + b * D;
            float s = p->psw ? (float)ld(p->dt, p->psw, i * p->pss) : 1.0f;
            if (p->psw && p->fma)   /* upstream's fast path (fbgemm) fuses the multiply-add */
                for (int64_t d = 0; d < D; d++) o[d] = fmaf((float)ld(p->dt, row, base + d * p->ws1), s, o[d]);
            else if (p->psw)
                for (int64_t d = 0; d < D; d++) o[d] += (float)ld(p->dt, row, base + d * p->ws1) * s;
            else
                for (int64_t d = 0; d < D; d++) o[d] += (float)ld(p->dt, row, base + d * p->ws1);
        }
    }
    if (p->mode != 2 && p->dt != 1)
        for (int64_t k = 0; k < p->nbags * D; k++) st(p->dt, p->out, k, p->accf[k]);
    return 0;
}

void tn_embbag_mean(const tn_embbag_plan *p) {
    int64_t D = p->dim;
    for (int64_t b = 0; b < p->nbags; b++) {
        int64_t c = p->bag_size[b] > 1 ? p->bag_size[b] : 1;
        if (p->dt == 1) {
            double *o = (double *)p->out + b * D, dv = (double)c;
            for (int64_t d = 0; d < D; d++) o[d] /= dv;
        } else {
            /* the divisor is bag_size cast to the output dtype */
            char tmp[8];
            st(p->dt, tmp, 0, (double)c);
            float dv = (float)ld(p->dt, tmp, 0);
            for (int64_t d = 0; d < D; d++) st(p->dt, p->out, b * D + d, (float)ld(p->dt, p->out, b * D + d) / dv);
        }
    }
}

void tn_embbag_dense_backward(const tn_embbag_bwd_plan *p) {
    int64_t D = p->dim;
    if (p->mode == 2) {
        for (int64_t b = 0; b < p->nbags; b++) {
            if (p->bag_size[b] == 0) continue;
            for (int64_t d = 0; d < D; d++) {
                int64_t r = p->maxidx[b * D + d];
                if (p->dt == 1) ((double *)p->gw)[r * D + d] += ((const double *)p->grad)[b * D + d];
                else st(p->dt, p->gw, r * D + d, (float)ld(p->dt, p->gw, r * D + d) + (float)ld(p->dt, p->grad, b * D + d));
            }
        }
        return;
    }
    for (int64_t g = 0; g < p->ngroups; g++) {
        int64_t start = g == 0 ? 0 : p->next[g - 1];
        int64_t index = p->sorted[start];
        if (index == p->pad) continue;
        for (int64_t j = start; j < p->next[g]; j++) {
            int64_t src = p->bag_of[p->perm[j]];
            double scale = 1.0;
            if (p->psw) scale = ld(p->dt, p->psw, p->perm[j] * p->pss);
            /* upstream divides by the count of sorted[g] (the group's number used as a position) */
            if (p->scale_freq) scale /= (double)p->counts[p->sorted[g]];
            if (p->mode == 1 && p->bag_size[src] != 0) scale /= (double)p->bag_size[src];
            if (p->dt == 1) {
                double *y = (double *)p->gw + index * D;
                const double *x = (const double *)p->grad + src * D;
                for (int64_t d = 0; d < D; d++) y[d] += scale * x[d];
            } else {
                /* axpy in the dtype: the scale rounded to it, each update rounded */
                char sb[8];
                st(p->dt, sb, 0, scale);
                float s = (float)ld(p->dt, sb, 0);
                for (int64_t d = 0; d < D; d++)
                    st(p->dt, p->gw, index * D + d, (float)ld(p->dt, p->gw, index * D + d) + s * (float)ld(p->dt, p->grad, src * D + d));
            }
        }
    }
}

void tn_embbag_psw_backward(int dt, int64_t n, int64_t dim, const int64_t *idx, const int64_t *bag_of, const char *grad, int64_t gs0,
                            int64_t gs1, const char *w, int64_t ws0, int64_t ws1, int64_t pad, char *out) {
    for (int64_t i = 0; i < n; i++) {
        int64_t b = bag_of[i], e = idx[i];
        if (e == pad) continue;
        if (dt == 1) {
            double acc = 0;
            for (int64_t d = 0; d < dim; d++) acc += ld(dt, grad, b * gs0 + d * gs1) * ld(dt, w, e * ws0 + d * ws1);
            st(dt, out, i, acc);
        } else {
            float acc = 0;
            for (int64_t d = 0; d < dim; d++) acc += (float)ld(dt, grad, b * gs0 + d * gs1) * (float)ld(dt, w, e * ws0 + d * ws1);
            st(dt, out, i, acc);
        }
    }
}
