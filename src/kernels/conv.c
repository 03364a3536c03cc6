/* kernels/conv.c — convolution on the GEMM kernels, see conv.h.
 *
 * Per image and group: forward out = W_g @ im2col(in) (the bias added to the finished sums);
 * input gradient col = W_g^T @ gout then col2im (W^T packed once per call); weight gradient
 * W_g += gout @ im2col(in)^T (the A @ W^T product, reading the columns in place). A 1x1 kernel
 * with stride 1 and no padding skips im2col: the image is its own column matrix. Images (and
 * groups) are shared out over the slots, each slot taking the next one when it finishes (a
 * thread another process delays takes fewer); with fewer images than slots the images run one by
 * one on the GEMM's own threading instead.
 *
 * f32 with a blocked GEMM kernel for the CPU (tn_gemm_f32_panel()) avoids the column matrix's
 * extra passes: the image is copied once zero padded, so every piece of a column row is a plain
 * copy; the forward builds its columns straight in the GEMM's packed panels, an L2-sized block
 * at a time (tn_gemm_f32_packed); a stride-1 input gradient with no more output than input
 * channels is itself such a forward (flipped()); otherwise gout is packed once and the column
 * rows are made and col2im'ed a few channels at a time (gin_panels). docs/speed_training.md. */
#include "kernels/conv.h"
#include "kernels/gemm.h"
#include "core/parallel.h"
#include "core/dtype.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#define TN_CONV_CHUNKS 8             /* weight gradient: partial sums over at most this many image chunks */
#define TN_CONV_PART_ELEMS (1 << 24) /* ... holding at most this many partial elements */

static size_t esize(tn_conv_type t) { return t == TN_CONV_F32 ? sizeof(float) : 8; }
static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

static int64_t prod3(const int64_t *v) { return v[0] * v[1] * v[2]; }
static int64_t cg_of(const tn_conv_geom *g) { return g->groups ? g->C / g->groups : 0; }
static int64_t ocg_of(const tn_conv_geom *g) { return g->groups ? g->OC / g->groups : 0; }
static int64_t ckg_of(const tn_conv_geom *g) { return cg_of(g) * prod3(g->K); }

/* 1x1 kernel, stride 1, no padding: the image is its own column matrix */
static bool trivial(const tn_conv_geom *g) {
    for (int d = 0; d < 3; d++)
        if (g->K[d] != 1 || g->S[d] != 1 || g->P[d] != 0) return false;
    return true;
}

/* ---- im2col / col2im ---- */

/* Output positions o in [0, O) whose input index o*S + off lies in [0, I): [*lo, *hi). */
static void valid_range(int64_t O, int64_t I, int64_t S, int64_t off, int64_t *lo, int64_t *hi) {
    int64_t l = off < 0 ? (-off + S - 1) / S : 0;
    int64_t h = I - off > 0 ? (I - off + S - 1) / S : 0;
    if (h > O) h = O;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

#define TN_IM2COL(NAME, T)                                                                              \
    static void NAME(const tn_conv_geom *g, int64_t ch, const T *img, T *col) {                        \
        const int64_t I0 = g->I[0], I1 = g->I[1], I2 = g->I[2], O0 = g->O[0], O1 = g->O[1], O2 = g->O[2]; \
        const int64_t isz = I0 * I1 * I2;                                                               \
        T *dst = col;                                                                                   \
        for (int64_t c = 0; c < ch; c++)                                                                \
            for (int64_t k0 = 0; k0 < g->K[0]; k0++)                                                    \
                for (int64_t k1 = 0; k1 < g->K[1]; k1++)                                                \
                    for (int64_t k2 = 0; k2 < g->K[2]; k2++) {                                          \
                        const T *src = img + c * isz;                                                   \
                        const int64_t off2 = k2 * g->D[2] - g->P[2];                                    \
                        int64_t lo, hi;                                                                 \
                        valid_range(O2, I2, g->S[2], off2, &lo, &hi);                                   \
                        for (int64_t o0 = 0; o0 < O0; o0++) {                                           \
                            const int64_t i0 = o0 * g->S[0] - g->P[0] + k0 * g->D[0];                   \
                            for (int64_t o1 = 0; o1 < O1; o1++, dst += O2) {                            \
                                const int64_t i1 = o1 * g->S[1] - g->P[1] + k1 * g->D[1];               \
                                if (i0 < 0 || i0 >= I0 || i1 < 0 || i1 >= I1) {                         \
                                    for (int64_t o2 = 0; o2 < O2; o2++) dst[o2] = 0;                    \
                                    continue;                                                           \
                                }                                                                       \
                                const T *row = src + (i0 * I1 + i1) * I2 + off2;                        \
                                for (int64_t o2 = 0; o2 < lo; o2++) dst[o2] = 0;                        \
                                if (g->S[2] == 1) memcpy(dst + lo, row + lo, (size_t)(hi - lo) * sizeof(T)); \
                                else for (int64_t o2 = lo; o2 < hi; o2++) dst[o2] = row[o2 * g->S[2]];  \
                                for (int64_t o2 = hi; o2 < O2; o2++) dst[o2] = 0;                       \
                            }                                                                           \
                        }                                                                               \
                    }                                                                                   \
    }

static inline float bf16r(float x) { return tn_bf16_to_f32(tn_f32_to_bf16(x)); }
#define TN_ADD_PLAIN(d, v) ((d) += (v))
#define TN_ADD_BF16(d, v) ((d) = bf16r((d) + (v)))

/* col2im: every kernel position's column block added into the image; REV walks the kernel
 * positions last to first (the order upstream's channels-last im2col path adds them in) */
#define TN_COL2IM(NAME, T) TN_COL2IM_ADD(NAME, T, TN_ADD_PLAIN, 0)
#define TN_COL2IM_ADD(NAME, T, ADD, REV)                                                                \
    static void NAME(const tn_conv_geom *g, int64_t ch, const T *col, T *img) {                        \
        const int64_t I0 = g->I[0], I1 = g->I[1], I2 = g->I[2], O0 = g->O[0], O1 = g->O[1], O2 = g->O[2]; \
        const int64_t isz = I0 * I1 * I2, K0 = g->K[0], K1 = g->K[1], K2 = g->K[2];                     \
        for (int64_t c = 0; c < ch; c++)                                                                \
            for (int64_t r0 = 0; r0 < K0; r0++)                                                         \
                for (int64_t r1 = 0; r1 < K1; r1++)                                                     \
                    for (int64_t r2 = 0; r2 < K2; r2++) {                                               \
                        const int64_t k0 = REV ? K0 - 1 - r0 : r0, k1 = REV ? K1 - 1 - r1 : r1;         \
                        const int64_t k2 = REV ? K2 - 1 - r2 : r2;                                      \
                        const T *s = col + (((c * K0 + k0) * K1 + k1) * K2 + k2) * O0 * O1 * O2;        \
                        T *dstc = img + c * isz;                                                        \
                        const int64_t off2 = k2 * g->D[2] - g->P[2];                                    \
                        int64_t lo, hi;                                                                 \
                        valid_range(O2, I2, g->S[2], off2, &lo, &hi);                                   \
                        for (int64_t o0 = 0; o0 < O0; o0++) {                                           \
                            const int64_t i0 = o0 * g->S[0] - g->P[0] + k0 * g->D[0];                   \
                            for (int64_t o1 = 0; o1 < O1; o1++, s += O2) {                              \
                                const int64_t i1 = o1 * g->S[1] - g->P[1] + k1 * g->D[1];               \
                                if (i0 < 0 || i0 >= I0 || i1 < 0 || i1 >= I1) continue;                 \
                                T *row = dstc + (i0 * I1 + i1) * I2 + off2;                             \
                                if (g->S[2] == 1) for (int64_t o2 = lo; o2 < hi; o2++) ADD(row[o2], s[o2]); \
                                else for (int64_t o2 = lo; o2 < hi; o2++) ADD(row[o2 * g->S[2]], s[o2]); \
                            }                                                                           \
                        }                                                                               \
                    }                                                                                   \
    }

TN_IM2COL(im2col_f32, float)
TN_IM2COL(im2col_f64, double)
TN_IM2COL(im2col_i64, int64_t)
TN_COL2IM(col2im_f32, float)
TN_COL2IM(col2im_f64, double)
TN_COL2IM(col2im_i64, int64_t)
TN_COL2IM_ADD(col2im_f32_bf16, float, TN_ADD_BF16, 0)
TN_COL2IM_ADD(col2im_f32_bf16_rev, float, TN_ADD_BF16, 1)

void tn_im2col(const tn_conv_geom *g, tn_conv_type t, int64_t ch, const void *img, void *col) {
    if (t == TN_CONV_F32) im2col_f32(g, ch, img, col);
    else if (t == TN_CONV_F64) im2col_f64(g, ch, img, col);
    else im2col_i64(g, ch, img, col);
}

void tn_col2im(const tn_conv_geom *g, tn_conv_type t, int64_t ch, const void *col, void *img) {
    if (t == TN_CONV_F32 && g->bf16_steps == TN_CONV_BF16_STEPS_CL) col2im_f32_bf16_rev(g, ch, col, img);
    else if (t == TN_CONV_F32 && g->bf16_steps) col2im_f32_bf16(g, ch, col, img);
    else if (t == TN_CONV_F32) col2im_f32(g, ch, col, img);
    else if (t == TN_CONV_F64) col2im_f64(g, ch, col, img);
    else col2im_i64(g, ch, col, img);
}

/* ---- GEMM calls ---- */

/* C = A @ B (+ C when acc) */
static void mm(tn_conv_type t, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda, const void *B, int64_t ldb,
               bool acc, void *C, int64_t ldc, void *gs) {
    if (t == TN_CONV_F32) tn_gemm_f32(M, N, K, 1.0f, A, lda, B, ldb, acc ? 1.0f : 0.0f, C, ldc, gs);
    else if (t == TN_CONV_F64) tn_gemm_f64(M, N, K, 1.0, A, lda, B, ldb, acc ? 1.0 : 0.0, C, ldc);
    else tn_gemm_i64(M, N, K, 1, A, lda, B, ldb, acc ? 1 : 0, C, ldc);
}

/* C = A @ W^T (+ C when acc); floating types only */
static void mm_nt(tn_conv_type t, int64_t M, int64_t N, int64_t K, const void *A, int64_t lda, const void *W, int64_t ldw,
                  bool acc, void *C, int64_t ldc, void *gs) {
    if (t == TN_CONV_F32) tn_gemm_nt_f32(M, N, K, 1.0f, A, lda, W, ldw, acc ? 1.0f : 0.0f, C, ldc, gs);
    else tn_gemm_nt_f64(M, N, K, 1.0, A, lda, W, ldw, acc ? 1.0 : 0.0, C, ldc);
}

/* rows [0, rows) of C (row length n) set to v[r] (acc false) or incremented by it */
static void fill_rows(tn_conv_type t, void *C, int64_t rows, int64_t n, const void *v, bool add) {
    for (int64_t r = 0; r < rows; r++) {
        if (t == TN_CONV_F32) {
            float *c = (float *)C + r * n, x = ((const float *)v)[r];
            if (add) for (int64_t j = 0; j < n; j++) c[j] += x;
            else for (int64_t j = 0; j < n; j++) c[j] = x;
        } else if (t == TN_CONV_F64) {
            double *c = (double *)C + r * n, x = ((const double *)v)[r];
            if (add) for (int64_t j = 0; j < n; j++) c[j] += x;
            else for (int64_t j = 0; j < n; j++) c[j] = x;
        } else {
            int64_t *c = (int64_t *)C + r * n, x = ((const int64_t *)v)[r];
            if (add) for (int64_t j = 0; j < n; j++) c[j] = (int64_t)((uint64_t)c[j] + (uint64_t)x);
            else for (int64_t j = 0; j < n; j++) c[j] = x;
        }
    }
}

/* ---- slots ---- */

typedef struct job job;
struct job {
    const tn_conv_geom *g;
    tn_conv_type t;
    const char *a, *b, *bias; /* operands, per entry point */
    char *out, *shared;       /* result; scratch shared by all slots (transposed weight, partials) */
    char *slots;              /* per-slot scratch */
    size_t slot_bytes, col_bytes;
    int64_t items;
    _Atomic int64_t next; /* the next item to take: slots take items as they finish the last */
    int nslots;
    void (*item)(const job *j, int64_t it, char *col, void *gs);
};

static void run_slots(int64_t b, int64_t e, void *ctx) {
    job *j = ctx;
    for (int64_t s = b; s < e; s++) {
        char *base = j->slots + (size_t)s * j->slot_bytes;
        for (int64_t it; (it = atomic_fetch_add(&j->next, 1)) < j->items;) j->item(j, it, base, base + j->col_bytes);
    }
}

/* Items over the slots; fewer items than slots run on the calling thread (the GEMM threads). */
static void run(job *j, int slots) {
    if (j->items <= 0) return;
    atomic_init(&j->next, 0);
    j->nslots = slots < 1 || j->items < slots ? 1 : slots;
    if (j->nslots == 1) run_slots(0, 1, j);
    else tn_parallel_for(j->nslots, 1, run_slots, j);
}

static size_t col_bytes(const tn_conv_geom *g, tn_conv_type t) {
    return trivial(g) ? 0 : align64((size_t)(ckg_of(g) * prod3(g->O)) * esize(t));
}

/* ---- forward ---- */

/* The panel width V of the f32 paths on a blocked GEMM kernel (the forward's columns built in the
 * kernel's packed layout, V output positions a panel, see tn_gemm_f32_packed; the columns of
 * the gradients from a padded image); 0: the plain columns and tn_gemm_f32. */
#define TN_CONV_MAX_PANEL 32
static int fwd_panel(const tn_conv_geom *g, tn_conv_type t) {
    const int V = t == TN_CONV_F32 && !trivial(g) && ocg_of(g) > 0 ? tn_gemm_f32_panel() : 0;
    return V <= TN_CONV_MAX_PANEL ? V : 0;
}

/* the image zero padded on every side: (ch, I0 + 2 P0, I1 + 2 P1, I2 + 2 P2) */
static int64_t padded_plane(const tn_conv_geom *g) {
    return (g->I[0] + 2 * g->P[0]) * (g->I[1] + 2 * g->P[1]) * (g->I[2] + 2 * g->P[2]);
}

/* positions per block of panels: the columns are built and multiplied a block at a time, the
 * block (about TN_CONV_BLOCK_FLOATS) staying in L2 between the two */
#define TN_CONV_BLOCK_FLOATS (128 * 1024)
static int64_t fwd_block(const tn_conv_geom *g, int V) {
    const int64_t P = prod3(g->O), all = (P + V - 1) / V * V;
    int64_t b = TN_CONV_BLOCK_FLOATS / (ckg_of(g) > 0 ? ckg_of(g) : 1) / V * V;
    b = b < V ? V : b;
    return b < all ? b : all;
}

static size_t fwd_col_bytes(const tn_conv_geom *g, tn_conv_type t) {
    const int V = fwd_panel(g, t);
    if (!V) return col_bytes(g, t);
    return align64((size_t)(ckg_of(g) * fwd_block(g, V)) * sizeof(float)) +
           align64((size_t)(cg_of(g) * padded_plane(g)) * sizeof(float));
}

/* The copies below move short pieces (a line, or its part in one panel): plain loops, not
 * memcpy / memset calls (TN_NO_LIBCALLS). */
#if defined(__GNUC__) && !defined(__clang__)
#define TN_NO_LIBCALLS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define TN_NO_LIBCALLS
#endif
/* These run only when a blocked GEMM kernel was chosen for the CPU (tn_gemm_f32_panel() > 0),
 * which on x86 needs AVX2: they are compiled for it (wider copies), the binary still runs
 * anywhere. */
#if defined(__x86_64__)
#define TN_PANEL_ISA TN_NO_LIBCALLS __attribute__((target("avx2")))
#else
#define TN_PANEL_ISA TN_NO_LIBCALLS
#endif
TN_PANEL_ISA static void pad_image(const tn_conv_geom *g, int64_t ch, const float *img, float *pad) {
    const int64_t I0 = g->I[0], I1 = g->I[1], I2 = g->I[2];
    const int64_t J1 = I1 + 2 * g->P[1], J2 = I2 + 2 * g->P[2], plane = padded_plane(g);
    memset(pad, 0, (size_t)(ch * plane) * sizeof(float));
    for (int64_t c = 0; c < ch; c++)
        for (int64_t i0 = 0; i0 < I0; i0++)
            for (int64_t i1 = 0; i1 < I1; i1++) {
                const float *s = img + ((c * I0 + i0) * I1 + i1) * I2;
                float *d = pad + c * plane + ((i0 + g->P[0]) * J1 + i1 + g->P[1]) * J2 + g->P[2];
                for (int64_t i = 0; i < I2; i++) d[i] = s[i];
            }
}

/* im2col of ch channels into V-lane panels, positions [p0, p1) (p0 a multiple of V) from the
 * padded image (pad_image: every piece of a line is a plain copy): column row k (of K) at
 * position p goes to dst[((p - p0) / V) * K * V + k * V + p % V], lanes past p1 zeroed; panel by
 * panel, so the writes run in order. */
TN_PANEL_ISA static void im2col_panels(const tn_conv_geom *g, int64_t ch, const float *pad, int V, int64_t K,
                                         int64_t p0, int64_t p1, float *dst) {
    const int64_t O1 = g->O[1], O2 = g->O[2], S2 = g->S[2];
    const int64_t J1 = g->I[1] + 2 * g->P[1], J2 = g->I[2] + 2 * g->P[2], plane = padded_plane(g);
    struct { int64_t off, n, lane; } seg[TN_CONV_MAX_PANEL];
    for (; p0 < p1; p0 += V, dst += K * V) {
        /* the panel's positions as pieces of output lines, each at an offset of the padded image */
        const int64_t end = p1 - p0 < V ? p1 : p0 + V;
        int ns = 0;
        for (int64_t p = p0; p < end; ns++) {
            const int64_t line = p / O2, o2 = p % O2, n = O2 - o2 < end - p ? O2 - o2 : end - p;
            const int64_t o0 = line / O1, o1 = line % O1;
            seg[ns].off = (o0 * g->S[0] * J1 + o1 * g->S[1]) * J2 + o2 * S2;
            seg[ns].n = n;
            seg[ns].lane = p - p0;
            p += n;
        }
        float *d = dst;
        for (int64_t c = 0; c < ch; c++)
            for (int64_t k0 = 0; k0 < g->K[0]; k0++)
                for (int64_t k1 = 0; k1 < g->K[1]; k1++)
                    for (int64_t k2 = 0; k2 < g->K[2]; k2++, d += V) {
                        const float *src = pad + c * plane + (k0 * g->D[0] * J1 + k1 * g->D[1]) * J2 + k2 * g->D[2];
                        for (int i = 0; i < ns; i++) {
                            const float *s = src + seg[i].off;
                            float *o = d + seg[i].lane;
                            const int64_t n = seg[i].n;
                            if (S2 == 1) for (int64_t l = 0; l < n; l++) o[l] = s[l];
                            else for (int64_t l = 0; l < n; l++) o[l] = s[l * S2];
                        }
                        for (int64_t l = end - p0; l < V; l++) d[l] = 0.0f;
                    }
    }
}

/* the plain columns (ch * K0*K1*K2 rows of P) from the padded image, a line at a time */
TN_PANEL_ISA static void im2col_rows(const tn_conv_geom *g, int64_t ch, const float *pad, float *col) {
    const int64_t O0 = g->O[0], O1 = g->O[1], O2 = g->O[2], S2 = g->S[2];
    const int64_t J1 = g->I[1] + 2 * g->P[1], J2 = g->I[2] + 2 * g->P[2], plane = padded_plane(g);
    for (int64_t c = 0; c < ch; c++)
        for (int64_t k0 = 0; k0 < g->K[0]; k0++)
            for (int64_t k1 = 0; k1 < g->K[1]; k1++)
                for (int64_t k2 = 0; k2 < g->K[2]; k2++) {
                    const float *src = pad + c * plane + (k0 * g->D[0] * J1 + k1 * g->D[1]) * J2 + k2 * g->D[2];
                    for (int64_t o0 = 0; o0 < O0; o0++)
                        for (int64_t o1 = 0; o1 < O1; o1++, col += O2) {
                            const float *s = src + (o0 * g->S[0] * J1 + o1 * g->S[1]) * J2;
                            if (S2 == 1) for (int64_t l = 0; l < O2; l++) col[l] = s[l];
                            else for (int64_t l = 0; l < O2; l++) col[l] = s[l * S2];
                        }
                }
}

static void fwd_item(const job *j, int64_t it, char *col, void *gs) {
    const tn_conv_geom *g = j->g;
    const size_t es = esize(j->t);
    const int64_t n = it / g->groups, gr = it % g->groups, Cg = cg_of(g), OCg = ocg_of(g), CKg = ckg_of(g);
    const int64_t Pin = prod3(g->I), Pout = prod3(g->O);
    const char *ib = j->a + (size_t)((n * g->C + gr * Cg) * Pin) * es;
    const char *wg = j->b + (size_t)(gr * OCg * CKg) * es;
    char *ob = j->out + (size_t)((n * g->OC + gr * OCg) * Pout) * es;
    const int V = fwd_panel(g, j->t);
    if (V) {
        const int64_t blk = fwd_block(g, V);
        float *pad = (float *)(col + align64((size_t)(CKg * blk) * sizeof(float)));
        pad_image(g, Cg, (const float *)ib, pad);
        for (int64_t p0 = 0; p0 < Pout; p0 += blk) {
            const int64_t n = Pout - p0 < blk ? Pout - p0 : blk;
            im2col_panels(g, Cg, pad, V, CKg, p0, p0 + n, (float *)col);
            tn_gemm_f32_packed(OCg, n, CKg, (const float *)wg, CKg, (const float *)col, (float *)ob + p0, Pout);
        }
        /* the bias added to each finished sum: the bits of sum + bias, as the accumulating GEMM's */
        if (j->bias) fill_rows(j->t, ob, OCg, Pout, j->bias + (size_t)(gr * OCg) * es, true);
        return;
    }
    const char *B = ib;
    if (!trivial(g)) {
        tn_im2col(g, j->t, Cg, ib, col);
        B = col;
    }
    if (j->bias) fill_rows(j->t, ob, OCg, Pout, j->bias + (size_t)(gr * OCg) * es, false);
    mm(j->t, OCg, Pout, CKg, wg, CKg, B, Pout, j->bias != NULL, ob, Pout, gs);
}

static size_t fwd_gemm_scratch(const tn_conv_geom *g, tn_conv_type t) {
    return t == TN_CONV_F32 && !fwd_panel(g, t) ? tn_gemm_f32_scratch(ocg_of(g), prod3(g->O), ckg_of(g)) : 0;
}

size_t tn_conv_forward_scratch(const tn_conv_geom *g, tn_conv_type t, int slots) {
    return (size_t)(slots < 1 ? 1 : slots) * (fwd_col_bytes(g, t) + align64(fwd_gemm_scratch(g, t))) + 64;
}

static char *aligned(void *p) { return (char *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

void tn_conv_forward(const tn_conv_geom *g, tn_conv_type t, const void *in, const void *w, const void *bias, void *out,
                     void *scratch, int slots) {
    job j = {.g = g, .t = t, .a = in, .b = w, .bias = bias, .out = out, .slots = aligned(scratch),
             .col_bytes = fwd_col_bytes(g, t), .items = g->N * g->groups, .item = fwd_item};
    j.slot_bytes = j.col_bytes + align64(fwd_gemm_scratch(g, t));
    run(&j, slots);
}

/* ---- input gradient ---- */

/* The f32 input gradient on a blocked kernel (not flipped(), no bfloat16 steps): gout's columns
 * packed once per image, then a few channels at a time their column rows (W^T @ gout, the same
 * products as the plain path) and at once their col2im into the zero-padded image, while the rows
 * are in cache; the padded image's interior is the gradient. The additions are col2im's, in its
 * order: the plain path's bits. */
#define TN_CONV_GIN_ROWS_FLOATS (64 * 1024) /* column rows per channel block, about */
static int64_t gin_block(const tn_conv_geom *g) {
    const int64_t per = prod3(g->K) * prod3(g->O);
    int64_t b = TN_CONV_GIN_ROWS_FLOATS / (per > 0 ? per : 1);
    if (b > 4) b -= b % 4; /* 36 rows of a 3x3 kernel: whole groups of the kernels' 12 or 6 rows */
    return b < 1 ? 1 : b > cg_of(g) ? cg_of(g) : b;
}

static int gin_panel(const tn_conv_geom *g, tn_conv_type t) {
    return g->bf16_steps ? 0 : fwd_panel(g, t);
}

static size_t gin_col_bytes(const tn_conv_geom *g, tn_conv_type t) {
    const int V = gin_panel(g, t);
    if (!V) return col_bytes(g, t);
    const int64_t P = prod3(g->O), padded = (P + V - 1) / V * V;
    return align64((size_t)(ocg_of(g) * padded) * sizeof(float)) +
           align64((size_t)(gin_block(g) * prod3(g->K) * P) * sizeof(float)) +
           align64((size_t)(cg_of(g) * padded_plane(g)) * sizeof(float));
}

/* col2im of ch channels' rows into the padded image (no bounds: every position is inside) */
TN_PANEL_ISA static void col2im_padded(const tn_conv_geom *g, int64_t ch, const float *col, float *pad) {
    const int64_t O0 = g->O[0], O1 = g->O[1], O2 = g->O[2], S2 = g->S[2];
    const int64_t J1 = g->I[1] + 2 * g->P[1], J2 = g->I[2] + 2 * g->P[2], plane = padded_plane(g);
    for (int64_t c = 0; c < ch; c++)
        for (int64_t k0 = 0; k0 < g->K[0]; k0++)
            for (int64_t k1 = 0; k1 < g->K[1]; k1++)
                for (int64_t k2 = 0; k2 < g->K[2]; k2++) {
                    float *dst = pad + c * plane + (k0 * g->D[0] * J1 + k1 * g->D[1]) * J2 + k2 * g->D[2];
                    for (int64_t o0 = 0; o0 < O0; o0++)
                        for (int64_t o1 = 0; o1 < O1; o1++, col += O2) {
                            float *d = dst + (o0 * g->S[0] * J1 + o1 * g->S[1]) * J2;
                            if (S2 == 1) for (int64_t l = 0; l < O2; l++) d[l] += col[l];
                            else for (int64_t l = 0; l < O2; l++) d[l * S2] += col[l];
                        }
                }
}

/* the padded image's interior (ch channels) to img */
TN_PANEL_ISA static void unpad_image(const tn_conv_geom *g, int64_t ch, const float *pad, float *img) {
    const int64_t I0 = g->I[0], I1 = g->I[1], I2 = g->I[2];
    const int64_t J1 = I1 + 2 * g->P[1], J2 = I2 + 2 * g->P[2], plane = padded_plane(g);
    for (int64_t c = 0; c < ch; c++)
        for (int64_t i0 = 0; i0 < I0; i0++)
            for (int64_t i1 = 0; i1 < I1; i1++, img += I2) {
                const float *s = pad + c * plane + ((i0 + g->P[0]) * J1 + i1 + g->P[1]) * J2 + g->P[2];
                for (int64_t i = 0; i < I2; i++) img[i] = s[i];
            }
}

static void gin_panels(const job *j, const float *gb, const float *wt, float *gi, char *col, int V) {
    const tn_conv_geom *g = j->g;
    const int64_t Cg = cg_of(g), OCg = ocg_of(g), KK = prod3(g->K), P = prod3(g->O), cb = gin_block(g);
    float *bp = (float *)col;
    float *rows = (float *)(col + align64((size_t)(OCg * ((P + V - 1) / V * V)) * sizeof(float)));
    float *pad = (float *)((char *)rows + align64((size_t)(cb * KK * P) * sizeof(float)));
    tn_gemm_f32_pack_b(P, OCg, gb, P, bp);
    memset(pad, 0, (size_t)(Cg * padded_plane(g)) * sizeof(float));
    for (int64_t c0 = 0; c0 < Cg; c0 += cb) {
        const int64_t nc = Cg - c0 < cb ? Cg - c0 : cb;
        tn_gemm_f32_packed(nc * KK, P, OCg, wt + c0 * KK * OCg, OCg, bp, rows, P);
        col2im_padded(g, nc, rows, pad + c0 * padded_plane(g));
    }
    unpad_image(g, Cg, pad, gi);
}

static void gin_item(const job *j, int64_t it, char *col, void *gs) {
    const tn_conv_geom *g = j->g;
    const size_t es = esize(j->t);
    const int64_t n = it / g->groups, gr = it % g->groups, Cg = cg_of(g), OCg = ocg_of(g), CKg = ckg_of(g);
    const int64_t Pin = prod3(g->I), Pout = prod3(g->O);
    const char *gb = j->a + (size_t)((n * g->OC + gr * OCg) * Pout) * es;
    const char *wt = j->shared + (size_t)(gr * CKg * OCg) * es;
    char *gi = j->out + (size_t)((n * g->C + gr * Cg) * Pin) * es;
    const int V = gin_panel(g, j->t);
    if (trivial(g)) {
        mm(j->t, CKg, Pout, OCg, wt, OCg, gb, Pout, false, gi, Pin, gs);
    } else if (V) {
        gin_panels(j, (const float *)gb, (const float *)wt, (float *)gi, col, V);
    } else {
        mm(j->t, CKg, Pout, OCg, wt, OCg, gb, Pout, false, col, Pout, gs);
        if (g->bf16_steps && j->t == TN_CONV_F32)
            for (int64_t i = 0; i < CKg * Pout; i++) ((float *)col)[i] = bf16r(((float *)col)[i]);
        memset(gi, 0, (size_t)(Cg * Pin) * es);
        tn_col2im(g, j->t, Cg, col, gi);
    }
    if (j->bias) fill_rows(j->t, gi, Cg, Pin, j->bias + (size_t)(gr * Cg) * es, true);
}

static size_t wt_bytes(const tn_conv_geom *g, tn_conv_type t) { return align64((size_t)(g->OC * ckg_of(g)) * esize(t)); }

/* With stride 1 (f32 on a blocked kernel, no bfloat16 steps) the input gradient is itself a
 * forward convolution: of gout, padded by D*(K-1) - P, with the weight flipped in space and its
 * two channel axes swapped; it then runs on the forward's packed columns instead of a product
 * into columns and col2im. Taken when those columns are no more than col2im's (OC/groups <=
 * C/groups); otherwise gin_panels. f: that convolution's geometry. */
static bool flipped(const tn_conv_geom *g, tn_conv_type t, tn_conv_geom *f) {
    if (t != TN_CONV_F32 || g->bf16_steps || trivial(g) || !tn_gemm_f32_panel() || ocg_of(g) > cg_of(g)) return false;
    *f = *g;
    f->C = g->OC;
    f->OC = g->C;
    for (int d = 0; d < 3; d++) {
        f->P[d] = g->D[d] * (g->K[d] - 1) - g->P[d];
        f->I[d] = g->O[d];
        f->O[d] = g->I[d];
        if (g->S[d] != 1 || f->P[d] < 0 || f->I[d] + 2 * f->P[d] - g->D[d] * (g->K[d] - 1) != f->O[d]) return false;
    }
    return fwd_panel(f, t) != 0;
}

size_t tn_conv_grad_input_scratch(const tn_conv_geom *g, tn_conv_type t, int slots) {
    tn_conv_geom f;
    if (flipped(g, t, &f)) return wt_bytes(g, t) + tn_conv_forward_scratch(&f, t, slots) + 64;
    size_t gs = t == TN_CONV_F32 ? tn_gemm_f32_scratch(ckg_of(g), prod3(g->O), ocg_of(g)) : 0;
    return wt_bytes(g, t) + (size_t)(slots < 1 ? 1 : slots) * (gin_col_bytes(g, t) + align64(gs)) + 64;
}

void tn_conv_grad_input(const tn_conv_geom *g, tn_conv_type t, const void *gout, const void *w, const void *bias,
                        void *gin, void *scratch, int slots) {
    const size_t es = esize(t);
    const int64_t OCg = ocg_of(g), CKg = ckg_of(g), Cg = cg_of(g), KK = prod3(g->K);
    char *shared = aligned(scratch);
    tn_conv_geom f;
    if (flipped(g, t, &f)) {
        /* W' (C, OC/groups, K...) with W'[gr Cg + c][oc][last - k] = W[gr OCg + oc][c][k] */
        float *wf = (float *)shared;
        const float *ws = w;
        for (int64_t gr = 0; gr < g->groups; gr++)
            for (int64_t oc = 0; oc < OCg; oc++)
                for (int64_t c = 0; c < Cg; c++)
                    for (int64_t k = 0; k < KK; k++)
                        wf[((gr * Cg + c) * OCg + oc) * KK + KK - 1 - k] = ws[((gr * OCg + oc) * Cg + c) * KK + k];
        tn_conv_forward(&f, t, gout, wf, bias, gin, shared + wt_bytes(g, t), slots);
        return;
    }
    /* W_g^T (CKg, OCg) for every group, packed once */
    for (int64_t gr = 0; gr < g->groups; gr++)
        for (int64_t oc = 0; oc < OCg; oc++)
            for (int64_t k = 0; k < CKg; k++)
                memcpy(shared + (size_t)((gr * CKg + k) * OCg + oc) * es, (const char *)w + (size_t)((gr * OCg + oc) * CKg + k) * es, es);
    size_t gs = t == TN_CONV_F32 ? tn_gemm_f32_scratch(CKg, prod3(g->O), OCg) : 0;
    job j = {.g = g, .t = t, .a = gout, .bias = bias, .out = gin, .shared = shared, .slots = shared + wt_bytes(g, t),
             .col_bytes = gin_col_bytes(g, t), .items = g->N * g->groups, .item = gin_item};
    j.slot_bytes = j.col_bytes + align64(gs);
    run(&j, slots);
}

/* ---- weight gradient ---- */

static int64_t chunks(const tn_conv_geom *g) {
    if (g->bf16_steps) return 1; /* image by image, in order */
    int64_t c = g->N < TN_CONV_CHUNKS ? g->N : TN_CONV_CHUNKS, per = g->OC * ckg_of(g);
    if (per > 0 && (c - 1) * per > TN_CONV_PART_ELEMS) c = 1 + TN_CONV_PART_ELEMS / per;
    return c < 1 ? 1 : c;
}

static void gw_item(const job *j, int64_t c, char *col, void *gs) {
    const tn_conv_geom *g = j->g;
    const size_t es = esize(j->t);
    const int64_t Cg = cg_of(g), OCg = ocg_of(g), CKg = ckg_of(g), Pin = prod3(g->I), Pout = prod3(g->O);
    const int64_t nc = j->items, n0 = c * g->N / nc, n1 = (c + 1) * g->N / nc;
    char *dst = c == 0 ? j->out : j->shared + (size_t)((c - 1) * g->OC * CKg) * es;
    /* bf16_steps: each image's product into the one chunk's scratch, added to the sum rounded */
    const bool steps = g->bf16_steps && j->t == TN_CONV_F32;
    float *sum = (float *)j->out;
    if (steps) dst = j->shared;
    for (int64_t n = n0; n < n1; n++) {
        for (int64_t gr = 0; gr < g->groups; gr++) {
            const char *ib = j->b + (size_t)((n * g->C + gr * Cg) * Pin) * es;
            const char *B = ib;
            if (fwd_panel(g, j->t)) { /* f32 on a blocked kernel: from the padded image */
                float *pad = (float *)(col + col_bytes(g, j->t));
                pad_image(g, Cg, (const float *)ib, pad);
                im2col_rows(g, Cg, pad, (float *)col);
                B = col;
            } else if (!trivial(g)) {
                tn_im2col(g, j->t, Cg, ib, col);
                B = col;
            }
            const char *gb = j->a + (size_t)((n * g->OC + gr * OCg) * Pout) * es;
            mm_nt(j->t, OCg, CKg, Pout, gb, Pout, B, Pout, n > n0 && !steps, dst + (size_t)(gr * OCg * CKg) * es, CKg, gs);
        }
        if (steps)
            for (int64_t i = 0; i < g->OC * CKg; i++) sum[i] = bf16r(n > n0 ? sum[i] + ((float *)dst)[i] : ((float *)dst)[i]);
    }
}

/* per slot: the columns, and the padded image where im2col_rows builds them */
static size_t gw_col_bytes(const tn_conv_geom *g, tn_conv_type t) {
    return col_bytes(g, t) + (fwd_panel(g, t) ? align64((size_t)(cg_of(g) * padded_plane(g)) * sizeof(float)) : 0);
}

size_t tn_conv_grad_weight_scratch(const tn_conv_geom *g, tn_conv_type t, int slots) {
    size_t gs = t == TN_CONV_F32 ? tn_gemm_nt_f32_scratch(ocg_of(g), ckg_of(g), prod3(g->O)) : 0;
    size_t parts = align64((size_t)((g->bf16_steps ? 1 : chunks(g) - 1) * g->OC * ckg_of(g)) * esize(t));
    return parts + (size_t)(slots < 1 ? 1 : slots) * (gw_col_bytes(g, t) + align64(gs)) + 64;
}

void tn_conv_grad_weight(const tn_conv_geom *g, tn_conv_type t, const void *gout, const void *in, void *gw,
                         void *scratch, int slots) {
    const size_t es = esize(t);
    const int64_t total = g->OC * ckg_of(g);
    if (g->N == 0) {
        memset(gw, 0, (size_t)total * es);
        return;
    }
    const int64_t nc = chunks(g);
    char *shared = aligned(scratch);
    size_t parts = align64((size_t)((g->bf16_steps ? 1 : nc - 1) * total) * es);
    size_t gs = t == TN_CONV_F32 ? tn_gemm_nt_f32_scratch(ocg_of(g), ckg_of(g), prod3(g->O)) : 0;
    job j = {.g = g, .t = t, .a = gout, .b = in, .out = gw, .shared = shared, .slots = shared + parts,
             .col_bytes = gw_col_bytes(g, t), .items = nc, .item = gw_item};
    j.slot_bytes = j.col_bytes + align64(gs);
    run(&j, slots);
    /* the chunks' partial sums, added in chunk order */
    for (int64_t c = 1; c < nc; c++) {
        if (t == TN_CONV_F32) {
            float *d = gw;
            const float *p = (const float *)shared + (c - 1) * total;
            for (int64_t i = 0; i < total; i++) d[i] += p[i];
        } else {
            double *d = gw;
            const double *p = (const double *)shared + (c - 1) * total;
            for (int64_t i = 0; i < total; i++) d[i] += p[i];
        }
    }
}

/* one (image, channel) row of P values in 8 double lanes (independent chains), summed pairwise */
#define TN_ROWSUM(NAME, T)                                                     \
    static double NAME(const T *x, int64_t P) {                               \
        double l[8] = {0};                                                     \
        int64_t p = 0;                                                         \
        for (; p + 8 <= P; p += 8)                                             \
            for (int k = 0; k < 8; k++) l[k] += (double)x[p + k];              \
        for (; p < P; p++) l[p & 7] += (double)x[p];                           \
        return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); \
    }
TN_ROWSUM(rowsum_f32, float)
TN_ROWSUM(rowsum_f64, double)

void tn_conv_grad_bias(int64_t N, int64_t ch, int64_t P, tn_conv_type t, const void *gout, void *gb) {
    for (int64_t c = 0; c < ch; c++) {
        double acc = 0;
        uint64_t iacc = 0;
        for (int64_t n = 0; n < N; n++) {
            const int64_t base = (n * ch + c) * P;
            if (t == TN_CONV_F32) acc += rowsum_f32((const float *)gout + base, P);
            else if (t == TN_CONV_F64) acc += rowsum_f64((const double *)gout + base, P);
            else
                for (int64_t p = 0; p < P; p++) iacc += (uint64_t)((const int64_t *)gout)[base + p];
        }
        if (t == TN_CONV_F32) ((float *)gb)[c] = (float)acc;
        else if (t == TN_CONV_F64) ((double *)gb)[c] = acc;
        else ((int64_t *)gb)[c] = (int64_t)iacc;
    }
}
