/* attention_bw_body.h — one (batch, head) unit of the flash attention backward (kernels/attention.c) for
 * one type: included with AB_T (float or double), AB_N(name) (the type's internal names), AB_NN / AB_NT
 * (C[M,N] = beta*C + alpha * A @ B / A @ W^T through the GEMM kernels, the last argument the GEMMs'
 * scratch) and AB_EXPSUB(y, x, c, n) (y = exp(x - c)).
 *
 * For query block i0 (bl rows) and key block j0 (bk keys) of head (b, h), as upstream's kernel:
 * P = exp(scale q k^T + mask - lse) (0 past the causal cut), dV += P^T dO, dP = dO v^T,
 * dS = P (dP - D) with D = rowsum(dO * out), dQ += scale dS k, dK += scale dS^T q. dq / dk / dv are
 * the unit's own [L,E] / [S,E] / [S,Ev] rows (zeroed here), so no two units write one place. */

static void AB_N(transpose)(const AB_T *x, int64_t rows, int64_t cols, AB_T *y) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) y[c * rows + r] = x[r * cols + c];
}

static void AB_N(unit)(const tn_attn_geom *g, const int64_t *gs, int64_t b, int64_t h, const AB_T *dO,
                       const AB_T *q, const AB_T *k, const AB_T *v, const AB_T *out, const AB_T *lse,
                       const AB_T *mask, AB_T *dq, AB_T *dk, AB_T *dv, const bw_slot *w) {
    const int64_t rep = g->Hk ? g->H / g->Hk : 1, E = g->E, Ev = g->Ev;
    const AB_T sc = (AB_T)g->scale;
    const AB_T *qh = q + b * g->qs[0] + h * g->qs[1], *oh = out + b * g->os[0] + h * g->os[1];
    const AB_T *gh = dO + b * gs[0] + h * gs[1];
    const AB_T *kh = k + b * g->ks[0] + (h / rep) * g->ks[1], *vh = v + b * g->vs[0] + (h / rep) * g->vs[1];
    AB_T *P = (AB_T *)w->p, *dP = (AB_T *)w->dp, *Tr = (AB_T *)w->tr, *D = (AB_T *)w->d;
    memset(dq, 0, (size_t)(g->L * E) * sizeof(AB_T));
    memset(dk, 0, (size_t)(g->S * E) * sizeof(AB_T));
    memset(dv, 0, (size_t)(g->S * Ev) * sizeof(AB_T));
    for (int64_t i0 = 0; i0 < g->L; i0 += TN_ATTN_BW_QBLOCK) {
        const int64_t bl = min64(TN_ATTN_BW_QBLOCK, g->L - i0);
        const AB_T *qr = qh + i0 * g->qs[2], *gr = gh + i0 * gs[2];
        for (int64_t r = 0; r < bl; r++) {
            const AB_T *a = gr + r * gs[2], *o = oh + (i0 + r) * g->os[2];
            double s = 0.0;
            for (int64_t e = 0; e < Ev; e++) s += (double)a[e] * (double)o[e];
            D[r] = (AB_T)s;
        }
        const int64_t kend = g->causal ? min64(g->S, i0 + bl) : g->S;
        for (int64_t j0 = 0; j0 < kend; j0 += TN_ATTN_BW_KBLOCK) {
            const int64_t bk = min64(TN_ATTN_BW_KBLOCK, kend - j0);
            AB_NT(bl, bk, E, sc, qr, g->qs[2], kh + j0 * g->ks[2], g->ks[2], (AB_T)0, P, bk, w->gs);
            for (int64_t r = 0; r < bl; r++) {
                const int64_t i = i0 + r;
                AB_T *p = P + r * bk;
                if (mask) {
                    const AB_T *m = mask + b * g->ms[0] + h * g->ms[1] + i * g->ms[2] + j0 * g->ms[3];
                    for (int64_t j = 0; j < bk; j++) p[j] += m[j * g->ms[3]];
                }
                AB_EXPSUB(p, p, lse[b * g->ls[0] + h * g->ls[1] + i * g->ls[2]], bk);
                if (g->causal)
                    for (int64_t j = i + 1 - j0 < 0 ? 0 : i + 1 - j0; j < bk; j++) p[j] = (AB_T)0;
            }
            AB_N(transpose)(P, bl, bk, Tr);
            AB_NN(bk, Ev, bl, (AB_T)1, Tr, bl, gr, gs[2], (AB_T)1, dv + j0 * Ev, Ev, w->gs);
            AB_NT(bl, bk, Ev, (AB_T)1, gr, gs[2], vh + j0 * g->vs[2], g->vs[2], (AB_T)0, dP, bk, w->gs);
            for (int64_t r = 0; r < bl; r++) {
                AB_T *p = P + r * bk, *d = dP + r * bk;
                const AB_T dr = D[r];
                for (int64_t j = 0; j < bk; j++) d[j] = p[j] * (d[j] - dr);
            }
            AB_NN(bl, E, bk, sc, dP, bk, kh + j0 * g->ks[2], g->ks[2], (AB_T)1, dq + i0 * E, E, w->gs);
            AB_N(transpose)(dP, bl, bk, Tr);
            AB_NN(bk, E, bl, sc, Tr, bl, qr, g->qs[2], (AB_T)1, dk + j0 * E, E, w->gs);
        }
    }
}
