/* weight_norm.c — fused weight-norm forward / backward (kernels/weight_norm.h). Sums of squares
 * and products accumulate in the opmath type (float, double for f64) and the scale factors are
 * computed once per slice in it, as upstream's CPU kernel. Upstream's AVX2 / AVX-512 builds
 * contract its vector bodies into fused multiply-adds (measured: the backward's a * grad_w - b * v
 * is fma(-b, v, a * grad_w) in all 42 elements of a float64 case, the plain form in 37), so the
 * column sums of the last-dim kernels and grad_v use fma() (exact on every host, in software
 * where the CPU lacks it). The row sums of the dim-0 kernels are sequential here; upstream's
 * vector lanes depend on the host ISA. */
#include "kernels/weight_norm.h"
#include "core/dtype.h"

#include <math.h>

#define WN_BODY(S, A, LD, ST, FMA)                                                                        \
    static void fwd_##S(bool first, int64_t M, int64_t N, const S *v, const S *g, S *w, A *norm,     \
                        A *buf) {                                                                    \
        if (first) {                                                                                 \
            for (int64_t i = 0; i < M; i++) {                                                        \
                const S *vr = v + i * N;                                                             \
                A s = 0;                                                                             \
                for (int64_t j = 0; j < N; j++) { A x = LD(vr[j]); s += x * x; }                     \
                A nv = (A)sqrt(s);                                                                   \
                norm[i] = nv;                                                                        \
                A a = LD(g[i]) / nv;                                                                 \
                for (int64_t j = 0; j < N; j++) w[i * N + j] = ST(LD(vr[j]) * a);                    \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        for (int64_t i = 0; i < M; i++)                                                              \
            for (int64_t j = 0; j < N; j++) { A x = LD(v[i * N + j]); buf[j] = FMA(x, x, buf[j]); }  \
        for (int64_t j = 0; j < N; j++) {                                                            \
            norm[j] = (A)sqrt(buf[j]);                                                               \
            buf[j] = LD(g[j]) / norm[j];                                                             \
        }                                                                                            \
        for (int64_t i = 0; i < M; i++)                                                              \
            for (int64_t j = 0; j < N; j++) w[i * N + j] = ST(LD(v[i * N + j]) * buf[j]);            \
    }                                                                                                \
    static void bwd_##S(bool first, int64_t M, int64_t N, const S *gw, const S *v, const S *g,       \
                        const A *norm, S *gv, S *gg, A *buf) {                                       \
        if (first) {                                                                                 \
            for (int64_t i = 0; i < M; i++) {                                                        \
                A s = 0;                                                                             \
                for (int64_t j = 0; j < N; j++) s += LD(gw[i * N + j]) * LD(v[i * N + j]);           \
                A ggv = s / norm[i];                                                                 \
                gg[i] = ST(ggv);                                                                     \
                A a = LD(g[i]) / norm[i], b = a * ggv / norm[i];                                     \
                for (int64_t j = 0; j < N; j++)                                                      \
                    gv[i * N + j] = ST(FMA(-b, LD(v[i * N + j]), a * LD(gw[i * N + j])));            \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        A *sum = buf, *ca = buf + N, *cb = buf + 2 * N;                                              \
        for (int64_t i = 0; i < M; i++)                                                              \
            for (int64_t j = 0; j < N; j++) sum[j] = FMA(LD(gw[i * N + j]), LD(v[i * N + j]), sum[j]); \
        for (int64_t j = 0; j < N; j++) {                                                            \
            A ggv = sum[j] / norm[j];                                                                \
            gg[j] = ST(ggv);                                                                         \
            ca[j] = LD(g[j]) / norm[j];                                                              \
            cb[j] = ca[j] * ggv / norm[j];                                                           \
        }                                                                                            \
        for (int64_t i = 0; i < M; i++)                                                              \
            for (int64_t j = 0; j < N; j++)                                                          \
                gv[i * N + j] = ST(FMA(-cb[j], LD(v[i * N + j]), LD(gw[i * N + j]) * ca[j]));        \
    }

#define ID(x) (x)
/* bf16 and f16 share the storage type: two typedef names give the two instantiations */
typedef uint16_t bf16_t;
typedef uint16_t f16x_t;
WN_BODY(float, float, ID, ID, fmaf)
WN_BODY(double, double, ID, ID, fma)
WN_BODY(bf16_t, float, tn_bf16_to_f32, tn_f32_to_bf16, fmaf)
WN_BODY(f16x_t, float, tn_f16_to_f32, tn_f32_to_f16, fmaf)

void tn_weight_norm_fwd(int dt, bool first, int64_t M, int64_t N, const void *v, const void *g, void *w,
                        void *norm, void *scratch) {
    switch (dt) {
    case 0: fwd_float(first, M, N, v, g, w, norm, scratch); break;
    case 1: fwd_double(first, M, N, v, g, w, norm, scratch); break;
    case 2: fwd_bf16_t(first, M, N, v, g, w, norm, scratch); break;
    default: fwd_f16x_t(first, M, N, v, g, w, norm, scratch); break;
    }
}

void tn_weight_norm_bwd(int dt, bool first, int64_t M, int64_t N, const void *grad_w, const void *v,
                        const void *g, const void *norm, void *grad_v, void *grad_g, void *scratch) {
    switch (dt) {
    case 0: bwd_float(first, M, N, grad_w, v, g, norm, grad_v, grad_g, scratch); break;
    case 1: bwd_double(first, M, N, grad_w, v, g, norm, grad_v, grad_g, scratch); break;
    case 2: bwd_bf16_t(first, M, N, grad_w, v, g, norm, grad_v, grad_g, scratch); break;
    default: bwd_f16x_t(first, M, N, grad_w, v, g, norm, grad_v, grad_g, scratch); break;
    }
}
