/* kernels/ref/qconv.c — static quantized convolution, portable C (kernels/qconv.h has the
 * arithmetic, measured against upstream's oneDNN and fbgemm paths). */
#include "kernels/qconv.h"

#include "core/parallel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* kernels/x86/qconv-avx512vnni.c, kernels/x86/qconv-avx2.c */
void *tn_qconv_pack_vnni(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16,
                         const int32_t *w_zp);
int tn_qconv2d_vnni(const tn_qconv_args *a);
void *tn_qconv_pack_avx2(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16);
int tn_qconv2d_avx2(const tn_qconv_args *a);

/* CVTPS2DQ: round half to even; NaN and out of range give INT32_MIN */
static inline int32_t cvtps(float t) {
    if (!(t >= -2147483648.0f && t < 2147483648.0f)) return INT32_MIN;
    return (int32_t)nearbyintf(t);
}

static inline int32_t sat16(int32_t v) { return v < -32768 ? -32768 : v > 32767 ? 32767 : v; }

static inline uint8_t requant(const tn_qconv_args *a, int64_t oc, uint32_t acc) {
    if (a->onednn) {
        float f = (float)(int32_t)acc;
        f = f * a->src_scale * a->w_scale[oc];
        if (a->bias) f += a->bias[oc];
        if (a->relu && !(f > 0.0f)) f = 0.0f;
        f = f * a->dinv + (float)a->y_zp;
        f = f < 0.0f ? 0.0f : f > 255.0f ? 255.0f : f;   /* oneDNN saturates before converting */
        return (uint8_t)cvtps(f);
    }
    float f = (float)(int32_t)acc;
    if (a->bias) f = a->per_channel ? f + a->bias[oc] / a->atws[oc] : fmaf(a->bias[oc], a->rcp, f);
    int32_t q = sat16(sat16(cvtps(f * a->mult[a->per_channel ? oc : 0])) + a->y_zp);
    int32_t lo = a->relu ? a->y_zp : 0;
    return (uint8_t)(q < lo ? lo : q > 255 ? 255 : q);
}

/* fbgemm's depthwise kernel: the raw uint8 (a padded position is x_zp) times the raw weights,
 * taps in row-major order (depth, height, width) summed in pairs saturated to int16 (VPMADDUBSW),
 * then the zero points' offsets. x: the input of channel c (stride C between pixels); w: KD x KH x
 * KW (minus wz) */
static uint32_t dw_pairs(const tn_qconv_args *a, const int16_t *x, const int16_t *w, int32_t wz, int64_t od, int64_t oh,
                         int64_t ow) {
    int64_t kk = a->KD * a->KH * a->KW;
    uint32_t s = 0, ro = 0, cs = 0;
    int32_t prev = 0;
    for (int64_t t = 0; t < kk; t++) {
        int64_t id = od * a->sd - a->pd + t / (a->KH * a->KW), ih = oh * a->sh - a->ph + t / a->KW % a->KH,
                iw = ow * a->sw - a->pw + t % a->KW;
        int32_t xv = id < 0 || id >= a->D || ih < 0 || ih >= a->H || iw < 0 || iw >= a->W
                         ? a->x_zp : x[((id * a->H + ih) * a->W + iw) * a->C] + a->x_zp;
        int32_t wv = w[t] + wz;
        ro += (uint32_t)xv;
        cs += (uint32_t)wv;
        int32_t pr = xv * wv;
        if (t & 1) s += (uint32_t)sat16(prev + pr);
        else prev = pr;
    }
    if (kk & 1) s += (uint32_t)sat16(prev);
    return s - (uint32_t)a->x_zp * (cs - (uint32_t)wz * (uint32_t)kk) - ro * (uint32_t)wz;
}

/* the exact sum of n products (wrapping, as the int32 accumulators) */
static inline uint32_t dot16(const int16_t *x, const int16_t *w, int64_t n) {
    uint32_t s = 0;
    for (int64_t i = 0; i < n; i++) s += (uint32_t)((int32_t)x[i] * (int32_t)w[i]);
    return s;
}

/* output rows [b, e) of all N * OD * OH (a normalised a: D, OD, KD ... 1 in 2-d), every column and
 * channel */
static void rows(int64_t b, int64_t e, void *ctx) {
    const tn_qconv_args *a = ctx;
    int64_t cg = a->C / a->G, og = a->OC / a->G, kk = a->KD * a->KH * a->KW;
    for (int64_t r = b; r < e; r++) {
        int64_t n = r / (a->OD * a->OH), od = r / a->OH % a->OD, oh = r % a->OH;
        const int16_t *xn = a->x + n * a->D * a->H * a->W * a->C;
        for (int64_t ow = 0; ow < a->OW; ow++) {
            uint8_t *y = a->y + (r * a->OW + ow) * a->OC;
            for (int64_t oc = 0; oc < a->OC; oc++) {
                const int16_t *w = a->w + oc * kk * cg, *xg = xn + (oc / og) * cg;
                if (a->dw_pairs) {
                    y[oc] = requant(a, oc, dw_pairs(a, xg, w, a->w_zp[oc], od, oh, ow));
                    continue;
                }
                uint32_t s = 0;
                for (int64_t kd = 0; kd < a->KD; kd++) {
                    int64_t id = od * a->sd - a->pd + kd * a->dd;
                    if (id < 0 || id >= a->D) continue;
                    for (int64_t kh = 0; kh < a->KH; kh++) {
                        int64_t ih = oh * a->sh - a->ph + kh * a->dh;
                        if (ih < 0 || ih >= a->H) continue;
                        const int16_t *xr = xg + (id * a->H + ih) * a->W * a->C, *wr = w + (kd * a->KH + kh) * a->KW * cg;
                        for (int64_t kw = 0; kw < a->KW; kw++) {
                            int64_t iw = ow * a->sw - a->pw + kw * a->dw;
                            if (iw < 0 || iw >= a->W) continue;   /* the zero point: adds nothing */
                            s += dot16(xr + iw * a->C, wr + kw * cg, cg);
                        }
                    }
                }
                y[oc] = requant(a, oc, s);
            }
        }
    }
}

/* transposed: output rows [b, e) of all N * OD * OH (OD, D, KD 1 in 2-d); output (od, oh, ow) gathers
 * the taps with od + pd - kd * dd = id * sd (and likewise for the height and width), id / ih / iw
 * inside the input */
static void rows_t(int64_t b, int64_t e, void *ctx) {
    const tn_qconv_args *a = ctx;
    int64_t cg = a->C / a->G, og = a->OC / a->G, kk = a->KD * a->KH * a->KW;
    for (int64_t r = b; r < e; r++) {
        int64_t n = r / (a->OD * a->OH), od = r / a->OH % a->OD, oh = r % a->OH;
        const int16_t *xn = a->x + n * a->D * a->H * a->W * a->C;
        for (int64_t ow = 0; ow < a->OW; ow++) {
            uint8_t *y = a->y + (r * a->OW + ow) * a->OC;
            for (int64_t oc = 0; oc < a->OC; oc++) {
                const int16_t *w = a->w + oc * kk * cg, *xg = xn + (oc / og) * cg;
                uint32_t s = 0;
                for (int64_t kd = 0; kd < a->KD; kd++) {
                    int64_t td = od + a->pd - kd * a->dd;
                    if (td < 0 || td % a->sd || td / a->sd >= a->D) continue;
                    for (int64_t kh = 0; kh < a->KH; kh++) {
                        int64_t th = oh + a->ph - kh * a->dh;
                        if (th < 0 || th % a->sh || th / a->sh >= a->H) continue;
                        for (int64_t kw = 0; kw < a->KW; kw++) {
                            int64_t tw = ow + a->pw - kw * a->dw;
                            if (tw < 0 || tw % a->sw || tw / a->sw >= a->W) continue;
                            s += dot16(xg + (((td / a->sd) * a->H + th / a->sh) * a->W + tw / a->sw) * a->C,
                                       w + ((kd * a->KH + kh) * a->KW + kw) * cg, cg);
                        }
                    }
                }
                y[oc] = requant(a, oc, s);
            }
        }
    }
}

static void prep(int64_t b, int64_t e, void *ctx) {
    const tn_qconv_prep *p = ctx;
    for (int64_t i = b; i < e; i++) p->out[i] = (int16_t)((int32_t)p->x[i] - p->zp);
}

void tn_qconv_prep_input(const tn_qconv_prep *p) { tn_parallel_for(p->n, 65536, prep, (void *)p); }

void tn_qconv_im2col(const tn_qconv_args *a, const void *x, int esz, uint8_t fill, int64_t r, int64_t g, void *col,
                     int64_t ld) {
    int64_t n = r / a->OH, oh = r % a->OH, CG = a->C / a->G, K = a->KH * a->KW * CG;
    size_t cb = (size_t)(CG * esz);
    const char *xn = (const char *)x + (n * a->H * a->W * a->C + g * CG) * esz;
    int runs = a->G == 1 && a->dw == 1;   /* a kernel row's taps in bounds are one run of bytes */
    for (int64_t ow = 0; ow < a->OW; ow++) {
        char *d = (char *)col + ow * ld * esz;
        int64_t iw0 = ow * a->sw - a->pw;
        for (int64_t kh = 0; kh < a->KH; kh++, d += a->KW * cb) {
            int64_t ih = oh * a->sh - a->ph + kh * a->dh;
            if (ih < 0 || ih >= a->H) {
                memset(d, fill, a->KW * cb);
                continue;
            }
            const char *xr = xn + ih * a->W * a->C * esz;
            if (runs) {
                int64_t k0 = iw0 < 0 ? -iw0 : 0, k1 = a->W - iw0 < a->KW ? a->W - iw0 : a->KW;
                if (k0 > a->KW) k0 = a->KW;
                if (k1 < k0) k1 = k0;
                if (k0) memset(d, fill, (size_t)k0 * cb);
                memcpy(d + k0 * cb, xr + (iw0 + k0) * cb, (size_t)(k1 - k0) * cb);
                if (k1 < a->KW) memset(d + k1 * cb, fill, (size_t)(a->KW - k1) * cb);
                continue;
            }
            for (int64_t kw = 0; kw < a->KW; kw++) {
                int64_t iw = iw0 + kw * a->dw;
                if (iw < 0 || iw >= a->W) memset(d + kw * cb, fill, cb);
                else memcpy(d + kw * cb, xr + iw * a->C * esz, cb);
            }
        }
        if (ld > K) memset(d, 0, (size_t)((ld - K) * esz));
    }
}

typedef struct {
    const tn_qconv_args *a;
    tn_qconv_rows_fn fn;
    int64_t nr, T, per;
    char *scratch;
} slots_job;

static void slots(int64_t b, int64_t e, void *ctx) {
    const slots_job *j = ctx;
    for (int64_t s = b; s < e; s++)
        j->fn(j->a, s * j->nr / j->T, (s + 1) * j->nr / j->T, j->scratch ? j->scratch + s * j->per : NULL);
}

int tn_qconv_run_rows(const tn_qconv_args *a, int64_t K, int64_t per, tn_qconv_rows_fn fn) {
    int64_t nr = a->N * a->OH, work = nr * a->OW * a->OC * K;
    int64_t T = tn_get_num_threads();
    if (T > nr) T = nr;
    if (T > work / 65536) T = work / 65536 > 1 ? work / 65536 : 1;
    per = (per + 63) / 64 * 64;
    slots_job j = {a, fn, nr, T, per, NULL};
    if (per && !(j.scratch = aligned_alloc(64, (size_t)(T * per)))) return 0;
    tn_parallel_for(T, 1, slots, &j);
    free(j.scratch);
    return 1;
}

/* the fast variant: AVX-512 VNNI when the CPU has it, else AVX2 (with FMA); TN_QCONV=ref forces
 * the reference, TN_QCONV=avx2 the AVX2 one. All give the same bits. */
enum { REF, VNNI, AVX2 };
static int variant(void) {
    static int chosen = -1;
    if (chosen < 0) {   /* a benign race: every thread finds the same */
        int v = REF;
#if defined(__x86_64__)
        const char *env = getenv("TN_QCONV");
        __builtin_cpu_init();
        int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        if (env && !strcmp(env, "ref")) v = REF;
        else if (env && !strcmp(env, "avx2")) v = avx2 ? AVX2 : REF;
        else if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) v = VNNI;
        else v = avx2 ? AVX2 : REF;
#endif
        chosen = v;
    }
    return chosen;
}

void *tn_qconv_pack(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16,
                    const int32_t *w_zp, int dw_pairs) {
#if defined(__x86_64__)
    if (dw_pairs || G <= 0 || OC <= 0 || OC % G != 0 || KH * KW * CG <= 0) return NULL;
    if (variant() == VNNI) return tn_qconv_pack_vnni(OC, G, KH, KW, CG, w16, w_zp);
    if (variant() == AVX2) return tn_qconv_pack_avx2(OC, G, KH, KW, CG, w16);
#endif
    return NULL;
}

void tn_qconv2d(const tn_qconv_args *a) {
    tn_qconv_args b = *a;   /* 2-d: one depth of one */
    if (!b.d3) {
        b.D = b.OD = b.KD = b.sd = b.dd = 1;
        b.pd = 0;
    }
    int two_d = !a->d3;
    int64_t nr = b.N * b.OD * b.OH;
    if (nr <= 0 || b.OW <= 0 || b.OC <= 0) return;
#if defined(__x86_64__)
    if (two_d && a->xu && a->wp && variant() == VNNI && tn_qconv2d_vnni(a)) return;
#endif
    if (a->xu) {
        tn_qconv_prep prep = {a->xu, a->x_zp, b.N * b.D * b.H * b.W * b.C, a->x};
        tn_qconv_prep_input(&prep);
    }
#if defined(__x86_64__)
    if (two_d && a->wp && variant() == AVX2 && tn_qconv2d_avx2(a)) return;
#endif
    int64_t work = b.OW * b.OC * (b.C / b.G) * b.KD * b.KH * b.KW;
    int64_t grain = 65536 / (work > 0 ? work : 1);
    tn_parallel_for(nr, grain > 0 ? grain : 1, b.transpose ? rows_t : rows, &b);
}
