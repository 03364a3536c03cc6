/* kernels/qconv.h — static quantized convolution (quantized::conv2d / conv2d_relu; ops/qconv.c,
 * docs/quant_tensors.md "Static convolution"), with the arithmetic of upstream's x86 engine,
 * measured against upstream 2.13.0:
 *
 *   acc = sum over the window of (x - x_zp) * (w - w_zp[oc])    exact (wrapping) int32; a padded
 *         position is the zero point (adds nothing), as both of upstream's kernels count it
 *
 * then one of upstream's two requantizations (upstream's x86 engine picks per packed weight):
 *   oneDNN (symmetric weights, groups <= 100, an AVX-512 VNNI host):
 *     f = (float)acc * comb[oc]  (+ bias[oc])  (relu: max(f, 0));  q = rint(clamp(f * dinv + y_zp, 0, 255))
 *     comb[oc] = src_scale * w_scale[oc] in float, dinv = (float)(1.0 / output_scale); rint is
 *     round half to even (CVTPS2DQ);
 *   fbgemm (otherwise): fbgemm's ReQuantizeOutput with a float bias, as quantized::linear's
 *     (kernels/qlinear.h "static"): f = (float)acc + bias term, q = CVTPS2DQ(f * mult[oc]),
 *     int16-saturated, + the zero point, clamped to [relu ? y_zp : 0, 255];
 *     fbgemm's depthwise fast path (dw_pairs: groups = input channels, a multiple of 8, output
 *     channels 1 or 2 per group, square 3x3 / 5x5 / 7x7 kernel, padding (K - 1) / 2, stride 1 or 2,
 *     dilation 1) sums the raw uint8 x int8 products of consecutive taps in pairs saturated to
 *     int16 (VPMADDUBSW, even on VNNI hosts); the rest as above.
 * A transposed convolution (quantized::conv_transpose2d) sums the same products gathered the other
 * way (rows_t) and requantizes as above.
 * The kernel never allocates; the output is NHWC (upstream's channels-last result); the sums are
 * channel-innermost dot products of the zero-point-shifted int16 values (exact either way). */
#ifndef TN_KERNELS_QCONV_H
#define TN_KERNELS_QCONV_H

#include <stdint.h>

typedef struct {
    int64_t N, C, H, W;            /* the input: x - x_zp as int16, NHWC contiguous */
    int64_t OC, OH, OW, KH, KW, G; /* the weights: w - w_zp[oc] as int16, OC x KH x KW x (C / G) */
    int64_t sh, sw, ph, pw, dh, dw;
    const int16_t *x;
    int32_t x_zp;
    const int16_t *w;
    const int32_t *w_zp;           /* OC */
    const float *bias;             /* OC, or NULL */
    int onednn;
    /* oneDNN */
    const float *comb;             /* OC */
    float dinv;
    /* fbgemm (kernels/qlinear.h's static fields) */
    const float *atws, *mult;      /* OC */
    float rcp;
    int per_channel;
    int dw_pairs;
    int transpose;                 /* a transposed convolution (rows_t below): w is OC x KH x KW x (C / G) too */
    int32_t y_zp;
    int relu;
    uint8_t *y;                    /* N x OH x OW x OC */
} tn_qconv_args;

/* the input's int16 form: out[i] = x[i] - zp over n values (the caller's scratch) */
typedef struct { const uint8_t *x; int32_t zp; int64_t n; int16_t *out; } tn_qconv_prep;
void tn_qconv_prep_input(const tn_qconv_prep *p);

/* the whole convolution, output rows shared over the thread pool. Transposed (a->transpose): the
 * same sums gathered the other way, output (oh, ow) from input (ih, iw) where oh = ih * sh - ph +
 * kh * dh (and likewise ow), (x - x_zp) * w over the tap's group channels; OH / OW are the caller's
 * (output padding included) */
void tn_qconv2d(const tn_qconv_args *a);

#endif
