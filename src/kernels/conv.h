/* conv.h — convolution through the GEMM kernels (kernels/gemm.h): im2col / col2im and the
 * three products of a convolution's forward and backward. Plain C, no allocation, no Python:
 * the op layer (ops/conv.c) validates, allocates the scratch these functions ask for and hands
 * contiguous operands in the compute type (f32 for f32/f16/bf16, f64, i64 for integers).
 *
 * Geometry: 1-, 2- and 3-d convolutions are all 3-d here (missing leading spatial dims have size
 * 1, kernel 1, stride 1, padding 0, dilation 1). "Input" and "output" are the convolution's own
 * (for a transposed convolution the op layer swaps them: its forward is this file's input
 * gradient, its input gradient this file's forward). Layouts, all contiguous:
 *   in   (N, C, I0, I1, I2)        w  (OC, C/groups, K0, K1, K2)
 *   out  (N, OC, O0, O1, O2)       col (C/groups * K0*K1*K2, O0*O1*O2) per image and group
 *
 * Work is shared over `slots` parallel slots (the op passes the pool's thread count); each slot
 * has its own part of the scratch. No result depends on the slot count: every output element is
 * computed by one GEMM call whose operands do not depend on it, and the weight gradient's sum
 * over the batch runs in chunks fixed by the shapes alone. */
#ifndef TN_KERNELS_CONV_H
#define TN_KERNELS_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { TN_CONV_F32, TN_CONV_F64, TN_CONV_I64 } tn_conv_type;
enum { TN_CONV_BF16_STEPS = 1, TN_CONV_BF16_STEPS_CL = 2 };

typedef struct {
    int64_t N, C, OC, groups;
    int64_t I[3], O[3], K[3], S[3], P[3], D[3];
    /* bfloat16 in the steps of upstream's im2col path (its CPU choice without oneDNN bfloat16,
     * docs/host_paths.md), f32 compute type only: the input gradient's columns are rounded to
     * bfloat16 and col2im rounds after every addition; the weight gradient is summed over the
     * batch image by image, rounded after each. Otherwise every value is rounded once, later.
     * TN_CONV_BF16_STEPS_CL: col2im adds the kernel positions last to first (its channels-last
     * order). */
    int bf16_steps;
} tn_conv_geom;

/* Bytes of scratch each entry point needs (0 allowed: then scratch may be NULL). */
size_t tn_conv_forward_scratch(const tn_conv_geom *g, tn_conv_type t, int slots);
size_t tn_conv_grad_input_scratch(const tn_conv_geom *g, tn_conv_type t, int slots);
size_t tn_conv_grad_weight_scratch(const tn_conv_geom *g, tn_conv_type t, int slots);

/* out = conv(in, w) + bias (bias (OC) or NULL). */
void tn_conv_forward(const tn_conv_geom *g, tn_conv_type t, const void *in, const void *w, const void *bias,
                     void *out, void *scratch, int slots);
/* gin = the gradient of conv(in, w) with respect to in, given gout (shape of out); bias (C) or
 * NULL is added afterwards (a transposed convolution's bias). */
void tn_conv_grad_input(const tn_conv_geom *g, tn_conv_type t, const void *gout, const void *w, const void *bias,
                        void *gin, void *scratch, int slots);
/* gw = the gradient with respect to w, given gout and in. */
void tn_conv_grad_weight(const tn_conv_geom *g, tn_conv_type t, const void *gout, const void *in, void *gw,
                         void *scratch, int slots);
/* gb[c] = sum of gout (N, ch, P) over the batch and positions (floating: summed in double, 8
 * lanes per row, rounded once per channel; integers wrap). */
void tn_conv_grad_bias(int64_t N, int64_t ch, int64_t P, tn_conv_type t, const void *gout, void *gb);

/* One image's im2col of `ch` channels: col (ch*K0*K1*K2, O0*O1*O2) from img (ch, I0, I1, I2),
 * zeros where the kernel reads padding; col2im adds col back into img (not cleared first). */
void tn_im2col(const tn_conv_geom *g, tn_conv_type t, int64_t ch, const void *img, void *col);
void tn_col2im(const tn_conv_geom *g, tn_conv_type t, int64_t ch, const void *col, void *img);

#endif
