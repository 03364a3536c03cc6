/* kernels/qops.h — the quantized ops between a ConvNet's convolutions (ops/qops.c,
 * docs/quant_tensors.md "Quantized ops between the convolutions"), with the arithmetic of upstream
 * 2.13.0's x86 build, measured against it:
 *
 * Upstream registers these kernels for AVX2 only: AVX-512 hosts run the AVX2 code (32-byte vectors).
 * add / add_relu (quantized::add): upstream's TensorIterator loop runs its vector body over whole
 * blocks of 2 * Vectorized::size() elements of each contiguous run (64 quint8 / qint8, 16 qint32)
 * and its scalar lambda over the rest; the two round differently:
 *   vector: d = fmaf(s, (float)q, s * (float)-zp) per input, c = da + db (relu: max(c, 0)),
 *           q = rint(c * (1.0f / out_scale)) + out_zp, clamped (qint32: as the scalar q);
 *   scalar: d = (float)(q - zp) * s (int32 difference), c as above,
 *           q = rint(out_zp + c * (1.0f / out_scale)) (the sum in float), clamped
 *           (quantize_val: upstream builds it without FMA).
 * mul / mul_relu: c = (qa - za) * (qb - zb) (int32), q = out_zp + rint((float)c * m) with
 *   m = sa * sb * (1.0f / out_scale) in float, clamped (relu: at least out_zp); vector and scalar
 *   agree.
 * cat of channels-last 4-d inputs along dim 1 (upstream's NHWC kernel): an input whose scale and
 *   zero point are the output's is copied (without relu), the others requantized per pixel
 *   row: the first floor(C / V) * V channels (V = Vectorized::size(): 32 quint8 / qint8, 8 qint32)
 *   and then whole 8-float groups (8-bit types) by the vector formula above (one input; its reciprocal
 *   (float)(1.0 / scale) taken in double there; qint32 quantizes as add's), the rest by the scalar one.
 * max_pool2d: integers compared, the output keeps the input's scale and zero point.
 * Integers are handled as int32 whatever the quantized type (quint8, qint8, qint32 ranges). */
#ifndef TN_KERNELS_QOPS_H
#define TN_KERNELS_QOPS_H

#include <stdbool.h>
#include <stdint.h>

#define TN_QOPS_MAXD 8

typedef struct {
    int dt;                          /* 0 quint8, 1 qint8, 2 qint32 */
    int ndim;                        /* coalesced dims, dim 0 the innermost run */
    int64_t sizes[TN_QOPS_MAXD];
    int64_t st[3][TN_QOPS_MAXD];     /* element strides: out, a, b */
    char *out;
    const char *a, *b;
    int64_t vblock;                  /* the vector body's block (0: the scalar lambda throughout) */
    int mul, relu;
    float sa, sb, so;
    int32_t za, zb, zo;
} tn_qbin_args;

void tn_qbinary(const tn_qbin_args *a);

/* one input of the NHWC cat: rows pixel rows of C channels, into rows of C_out at column c0 */
typedef struct {
    int dt;
    int64_t rows, C, C_out, c0;
    const char *x;
    char *y;
    bool copy;                       /* same qparams, no relu: the bytes as they are */
    int64_t vlen, flen;              /* Vectorized<T>::size(), and 8 floats for the 8-bit types (else 0) */
    float sx, so, inv;                /* inv: (float)(1.0 / the output scale in double), the vector part's */
    int32_t zx, zo;
    int relu;
} tn_qcat_args;

void tn_qcat_nhwc(const tn_qcat_args *a);

/* max_pool2d: the integer maximum over each window clipped to the input (padding never wins),
 * any input / output strides (N, C, H, W order, in elements) */
typedef struct {
    int dt;
    int64_t N, C, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
    const char *x;
    char *y;
    int64_t xs[4], ys[4];
} tn_qpool_args;

void tn_qmaxpool2d(const tn_qpool_args *a);

/* avg_pool2d / adaptive_avg_pool2d (output qparams = input's): s = the window's integer sum,
 * n its element count, d the divisor (avg: the window with padding or not, or the override);
 *   avg, NCHW input:      q = nearbyintf((float)(s - n * zp) * (float)(1.0 / d) + zp), clamped
 *   adaptive, NCHW input: q = nearbyintf((float)s * r), r = ((float)(1.0 / kh) / kw) in float
 *   channels-last inputs (upstream's NHWC kernels), m = 1.0f / d, a = s - n * zp:
 *     channels below vend (whole 8-channel groups, 8-bit types):
 *        avg (QuantizeAvx2 over them): whole 16-channel groups rint(a * m) + zp, the rest rint(zp + a * m);
 *        adaptive: rint(fmaf(a, i, zp)) with i = 1.0f / (1.0f / m)
 *     the others: rint(zp + a * i) (quantize_val, no FMA), clamped
 * The output is written NCHW or NHWC-dense by ys (upstream's NHWC kernels write NHWC whatever
 * the output's strides). */
typedef struct {
    int dt, adaptive, nhwc;
    int64_t N, C, H, W, OH, OW, kh, kw, sh, sw, ph, pw, divisor;
    bool count_include_pad;
    const char *x;
    char *y;
    int64_t xs[4], ys[4], vend;
    int32_t zp;
} tn_qavg_args;

void tn_qavgpool2d(const tn_qavg_args *a);

#endif
