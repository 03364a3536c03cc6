/* kernels/qconv.h — static quantized convolution (quantized::conv2d / conv2d_relu, conv3d; ops/qconv.c,
 * docs/quant_tensors.md "Static convolution"), with the arithmetic of upstream's x86 engine,
 * measured against upstream 2.13.0:
 *
 *   acc = sum over the window of (x - x_zp) * (w - w_zp[oc])    exact (wrapping) int32; a padded
 *         position is the zero point (adds nothing), as both of upstream's kernels count it
 *
 * then one of upstream's two requantizations (upstream's x86 engine picks per packed weight):
 *   oneDNN (symmetric weights, groups <= 100, an AVX-512 VNNI host):
 *     f = ((float)acc * src_scale) * w_scale[oc]  (+ bias[oc])  (relu: max(f, 0));
 *     q = rint(clamp(f * dinv + y_zp, 0, 255)), dinv = (float)(1.0 / output_scale); rint is round half
 *     to even (CVTPS2DQ). The scales apply one after the other, in float (measured in 2-d and 3-d:
 *     the product src_scale * w_scale[oc] is off by one on some near-ties);
 *   fbgemm (otherwise): fbgemm's ReQuantizeOutput with a float bias, as quantized::linear's
 *     (kernels/qlinear.h "static"): f = (float)acc + bias term, q = CVTPS2DQ(f * mult[oc]),
 *     int16-saturated, + the zero point, clamped to [relu ? y_zp : 0, 255];
 *     fbgemm's depthwise fast path (dw_pairs: groups = input channels, a multiple of 8, output
 *     channels 1 or 2 per group, square 3x3 / 5x5 / 7x7 kernel, padding (K - 1) / 2, stride 1 or 2,
 *     dilation 1) sums the raw uint8 x int8 products of consecutive taps in pairs saturated to
 *     int16 (VPMADDUBSW, even on VNNI hosts); the rest as above.
 * A transposed convolution (quantized::conv_transpose2d / 3d) sums the same products gathered the other
 * way (rows_t, the reference only) and requantizes as above.
 * The output is NHWC (upstream's channels-last result). Three variants give the same bits (the
 * sums are exact int32 each way, the float steps the same IEEE operations in the same order):
 *   - the reference (kernels/ref/qconv.c): channel-innermost dot products of the
 *     zero-point-shifted int16 values; it never allocates;
 *   - AVX-512 VNNI (kernels/x86/qconv-avx512vnni.c): im2col rows of the raw uint8 input (a padded
 *     position holds x_zp) times the raw int8 weights, vpdpbusd, then
 *     acc = S - x_zp * colsum[oc] - w_zp[oc] * rowsum + K * x_zp * w_zp[oc] (wrapping, so exact);
 *   - AVX2 (kernels/x86/qconv-avx2.c): im2col rows of x - x_zp times w - w_zp, vpmaddwd on pairs;
 *   both with a depthwise loop (one input and one output channel per group: channels as lanes).
 * The variant is chosen once, at the first prepack: AVX-512 VNNI when the CPU has it, else AVX2,
 * else the reference (TN_QCONV=ref / avx2 force one); fbgemm's dw_pairs stays on the reference.
 * The fast variants allocate one im2col row per thread (the reference runs when that fails). */
#ifndef TN_KERNELS_QCONV_H
#define TN_KERNELS_QCONV_H

#include <stdint.h>

typedef struct {
    int64_t N, C, H, W;            /* the input's sizes */
    int64_t OC, OH, OW, KH, KW, G; /* the weights: w - w_zp[oc] as int16, OC x KH x KW x (C / G) */
    int64_t sh, sw, ph, pw, dh, dw;
    /* d3: a 3-d convolution, with a depth (input NDHWC, weights OC x KD x KH x KW x (C / G), output
     * N x OD x OH x OW x OC, the reference only); d3 = 0 is 2-d, the depth fields then unread */
    int d3;
    int64_t D, OD, KD, sd, pd, dd;
    const uint8_t *xu;             /* the input, NHWC contiguous uint8 (NULL: x is already filled) */
    int16_t *x;                    /* scratch of N x H x W x C: the reference writes x - x_zp here */
    int32_t x_zp;
    const int16_t *w;
    const void *wp;                /* tn_qconv_pack's, or NULL (the reference runs) */
    const int32_t *w_zp;           /* OC */
    const float *bias;             /* OC, or NULL */
    int onednn;
    /* oneDNN */
    const float *w_scale;          /* OC: the weight scales (oneDNN) */
    float src_scale;               /* the input's scale, in float (oneDNN) */
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
void tn_qconv2d(const tn_qconv_args *a);   /* and the 3-d one (a->d3) */

/* the fast variants' im2col (kernels/x86/qconv-*.c): output row r's rows for group g, OW rows of ld
 * elements of esz bytes (K = KH x KW x C/G values, then zeros) from x, the NHWC input of esz-byte
 * elements; a padded position is `fill` in every byte */
void tn_qconv_im2col(const tn_qconv_args *a, const void *x, int esz, uint8_t fill, int64_t r, int64_t g, void *col,
                     int64_t ld);

/* the fast variants' threading: output rows [0, N x OH) in one slot per thread (fewer when the
 * work, rows x OW x OC x K, is small), fn given each slot's rows and its own `per` bytes of 64-byte
 * aligned scratch (NULL when per is 0); 0 when the scratch cannot be had */
typedef void (*tn_qconv_rows_fn)(const tn_qconv_args *a, int64_t b, int64_t e, void *scratch);
int tn_qconv_run_rows(const tn_qconv_args *a, int64_t K, int64_t per, tn_qconv_rows_fn fn);

/* the weights packed for the fast variant (one malloc'd block, free() it), from the reference's
 * w16 (OC x KH x KW x CG, w - w_zp) and w_zp; NULL when the reference is to run (TN_QCONV=ref,
 * no AVX-512 VNNI, dw_pairs, groups not dividing OC, an empty window, or no memory) */
void *tn_qconv_pack(int64_t OC, int64_t G, int64_t KH, int64_t KW, int64_t CG, const int16_t *w16,
                    const int32_t *w_zp, int dw_pairs);

#endif
