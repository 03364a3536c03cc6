/* unpool.c — the scatter of max_unpool{2,3}d (kernels/unpool.h). */
#include "kernels/unpool.h"

#include <string.h>

int tn_unpool_scatter(const tn_unpool_plan *p, const char *in, const int64_t *ix, char *out, int64_t *bad) {
    int k = p->k, sz = p->itemsize;
    int64_t ospan = 1, ispan = 1;
    for (int d = 0; d < k; d++) {
        ospan *= p->osp[d];
        ispan *= p->isp[d];
    }
    int64_t inner = p->cl ? p->nc : ispan, outer = p->cl ? ispan : p->nc;
    int rc = 0;
    for (int64_t n = 0; n < p->nb; n++)
        for (int64_t a = 0; a < outer; a++)
            for (int64_t b = 0; b < inner; b++) {
                int64_t c = p->cl ? b : a, pos = p->cl ? a : b;
                /* input / index offsets of (n, c, pos) */
                int64_t io = n * p->ist[0] + c * p->ist[1], xo = n * p->xst[0] + c * p->xst[1], r = pos;
                for (int d = k - 1; d >= 0; d--) {
                    int64_t q = r % p->isp[d];
                    r /= p->isp[d];
                    io += q * p->ist[2 + d];
                    xo += q * p->xst[2 + d];
                }
                int64_t m = ix[xo];
                if (m < 0 || m >= ospan) {   /* upstream goes on and reports the last one */
                    *bad = m;
                    rc = -1;
                    continue;
                }
                int64_t oo = n * p->ost[0] + c * p->ost[1];
                r = m;
                for (int d = k - 1; d >= 0; d--) {
                    oo += (r % p->osp[d]) * p->ost[2 + d];
                    r /= p->osp[d];
                }
                memcpy(out + oo * sz, in + io * sz, (size_t)sz);
            }
    return rc;
}
