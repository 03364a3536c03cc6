/* reduce.c — reference (scalar C) reductions and scans that reproduce upstream's CPU results.
 *
 * Upstream's float results depend on the order of additions, and that order comes from three
 * layers we emulate here: TensorIterator's dimension reordering and coalescing for reductions
 * (reduced dims first, then by stride; adjacent dims merged), the 2-D inner loop each kernel
 * receives, and the kernel's own grouping (cascade summation for sum, four 512-bit accumulators
 * for prod/amax/amin). Vector lanes are independent, so every "vector" computation is done one
 * lane at a time with plain scalar code. Values are held in double and rounded to the compute
 * type after each operation: for +, * and the conversions used here that equals computing in
 * float (double has more than 2*24+2 bits), so one code path serves f32, f64, f16 and bf16.
 * Integers and bools are order-independent and take a direct loop. Nothing allocates. */
#include "kernels/reduce.h"
#include "core/parallel.h"
#include "kernels/elementwise.h"

#include <math.h>
#include <string.h>

/* Upstream registers these kernels for AVX2 only (AVX512 machines fall back to the AVX2 build),
 * so the vector lanes are 256 bits wide: measured, see tools/dev/check_reduce.py. */
#define VBYTES 32


/* ------------------------------------------------------------------------------------------ */
/* scalar loads, stores and rounding                                                          */

typedef struct { double r, i; } cv;

static bool is_cplx(tn_dtype d) { return d == TN_DTYPE_C64 || d == TN_DTYPE_C128; }
static bool is_flt(tn_dtype d) {
    return d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_F16 || d == TN_DTYPE_BF16;
}
static bool is_intlike(tn_dtype d) { return tn_dtype_is_integral(d, true); }

/* Round x to dtype d's precision (d real, or complex meaning its component type). */
static double rnd(double x, tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: case TN_DTYPE_C64: return (double)(float)x;
    case TN_DTYPE_F16: return (double)tn_f16_to_f32(tn_f32_to_f16((float)x));
    case TN_DTYPE_BF16: return (double)tn_bf16_to_f32(tn_f32_to_bf16((float)x));
    default: return x;
    }
}

/* c10::complex multiply as upstream's scalar code computes it (compiled with FMA contraction):
 * re = fma(ar, br, -(ai*bi)), im = fma(ar, bi, ai*br); `d` is the component dtype. */
static cv cmul_scalar(cv x, cv y, tn_dtype d) {
    cv r;
    if (d == TN_DTYPE_F64 || d == TN_DTYPE_C128) {
        r.r = fma(x.r, y.r, -(x.i * y.i));
        r.i = fma(x.r, y.i, x.i * y.r);
    } else {
        float xr = (float)x.r, xi = (float)x.i, yr = (float)y.r, yi = (float)y.i;
        r.r = fmaf(xr, yr, -(xi * yi));
        r.i = fmaf(xr, yi, xi * yr);
    }
    return r;
}

static int64_t ld_int(const char *p, tn_dtype d) {
    switch (d) {
    case TN_DTYPE_U8: return *(const uint8_t *)p;
    case TN_DTYPE_I8: return *(const int8_t *)p;
    case TN_DTYPE_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TN_DTYPE_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TN_DTYPE_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case TN_DTYPE_BOOL: return *(const uint8_t *)p != 0;
    default: return 0;
    }
}

/* Component `comp` of the element at p (dtype d), as a double, no rounding. */
static double ld_raw(const char *p, tn_dtype d, int comp) {
    switch (d) {
    case TN_DTYPE_F32: { float v; memcpy(&v, p, 4); return comp ? 0.0 : v; }
    case TN_DTYPE_F64: { double v; memcpy(&v, p, 8); return comp ? 0.0 : v; }
    case TN_DTYPE_F16: { uint16_t v; memcpy(&v, p, 2); return comp ? 0.0 : tn_f16_to_f32(v); }
    case TN_DTYPE_BF16: { uint16_t v; memcpy(&v, p, 2); return comp ? 0.0 : tn_bf16_to_f32(v); }
    case TN_DTYPE_C64: { float v; memcpy(&v, p + 4 * comp, 4); return v; }
    case TN_DTYPE_C128: { double v; memcpy(&v, p + 8 * comp, 8); return v; }
    default: return comp ? 0.0 : (double)ld_int(p, d);
    }
}

/* Element at p (dtype s) converted to dtype c (float or complex), as upstream's .to(c) does. */
static double ld_cvt(const char *p, tn_dtype s, tn_dtype c, int comp) {
    if (is_intlike(s)) {
        if (comp) return 0.0;
        int64_t v = ld_int(p, s);
        if (c == TN_DTYPE_F64 || c == TN_DTYPE_C128) return (double)v;
        return rnd((double)(float)v, c); /* int -> float directly, then narrow (as c10 does) */
    }
    double x = ld_raw(p, s, comp);
    if (c == TN_DTYPE_F16 || c == TN_DTYPE_BF16) x = (double)(float)x; /* via float */
    return rnd(x, c);
}

static void st_flt(char *p, tn_dtype d, int comp, double x) {
    switch (d) {
    case TN_DTYPE_F32: { float v = (float)x; memcpy(p, &v, 4); break; }
    case TN_DTYPE_F64: memcpy(p, &x, 8); break;
    case TN_DTYPE_F16: { uint16_t v = tn_f32_to_f16((float)x); memcpy(p, &v, 2); break; }
    case TN_DTYPE_BF16: { uint16_t v = tn_f32_to_bf16((float)x); memcpy(p, &v, 2); break; }
    case TN_DTYPE_C64: { float v = (float)x; memcpy(p + 4 * comp, &v, 4); break; }
    case TN_DTYPE_C128: memcpy(p + 8 * comp, &x, 8); break;
    default: break;
    }
}

static void st_int(char *p, tn_dtype d, uint64_t v) {
    switch (d) {
    case TN_DTYPE_U8: case TN_DTYPE_I8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case TN_DTYPE_BOOL: { uint8_t x = v != 0; memcpy(p, &x, 1); break; }
    case TN_DTYPE_I16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case TN_DTYPE_I32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case TN_DTYPE_I64: memcpy(p, &v, 8); break;
    default: break;
    }
}


/* ------------------------------------------------------------------------------------------ */
/* TensorIterator geometry for a reduction                                                    */

typedef struct {
    int nd;                      /* iterator dims (fastest first); at least 2 (padded with 1s) */
    int64_t size[TN_MAX_DIMS];
    int64_t vin[TN_MAX_DIMS];    /* input byte strides upstream sees (after its dtype cast) */
    int64_t out[TN_MAX_DIMS];    /* output byte strides, 0 on reduced dims */
    int lo[TN_MAX_DIMS], hi[TN_MAX_DIMS]; /* range of original dims (in p*) merged into a dim */
    bool uni[TN_MAX_DIMS];
    int64_t ustride[TN_MAX_DIMS];
    int64_t psize[TN_MAX_DIMS], preal[TN_MAX_DIMS]; /* permuted original dims, real bytes */
} geom;

/* Real byte offset of index x along iterator dim d. */
static inline int64_t goff(const geom *g, int d, int64_t x) {
    if (g->uni[d]) return x * g->ustride[d];
    int64_t o = 0;
    for (int k = g->lo[d]; k < g->hi[d]; k++) {
        o += (x % g->psize[k]) * g->preal[k];
        x /= g->psize[k];
    }
    return o;
}

static bool non_overlapping_dense(const tn_tensor *t) {
    int idx[TN_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 0) return true;
        if (t->sizes[d] != 1) idx[n++] = d;
    }
    for (int i = 1; i < n; i++) /* sort by stride, then size */
        for (int j = i; j > 0; j--) {
            int a = idx[j - 1], b = idx[j];
            if (t->strides[a] > t->strides[b] ||
                (t->strides[a] == t->strides[b] && t->sizes[a] > t->sizes[b])) {
                idx[j - 1] = b; idx[j] = a;
            } else break;
        }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[idx[i]] != expect) return false;
        expect *= t->sizes[idx[i]];
    }
    return true;
}

/* Strides of empty_like(t) under preserve_format for a non-dense t (upstream infer_dense_strides). */
static void infer_dense_strides(const tn_tensor *t, int64_t *st) {
    int n = t->ndim, perm[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    for (int i = 1; i < n; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int a = perm[d0], b = perm[d1], cmp = 0;
            int64_t s0 = t->strides[a], s1 = t->strides[b];
            if (s0 == 0 || s1 == 0) cmp = 0;
            else if (s0 < s1) cmp = -1;
            else if (s0 > s1) cmp = 1;
            else if (t->sizes[a] > t->sizes[b]) cmp = 1;
            if (cmp > 0) { perm[d0] = b; perm[d1] = a; d1 = d0; }
            else if (cmp < 0) break;
        }
    }
    int64_t cur = 1;
    for (int i = 0; i < n; i++) {
        st[perm[i]] = cur;
        cur *= t->sizes[perm[i]] > 1 ? t->sizes[perm[i]] : 1;
    }
}

/* Build the iterator geometry: `in` viewed as compute dtype c (itemsize citem), output contiguous
 * over the kept dims with itemsize oitem. */
static void geom_build(geom *g, const tn_tensor *in, uint64_t mask, tn_dtype c, int oitem) {
    int n = in->ndim, iitem = tn_dtype_itemsize(in->dtype), citem = tn_dtype_itemsize(c);
    int64_t vst[TN_MAX_DIMS], ost[TN_MAX_DIMS], real[TN_MAX_DIMS];
    if (in->dtype == c || non_overlapping_dense(in)) {
        for (int d = 0; d < n; d++) vst[d] = in->strides[d];
    } else {
        infer_dense_strides(in, vst);
    }
    int64_t s = 1;
    for (int d = n - 1; d >= 0; d--) {
        real[d] = in->strides[d] * iitem;
        vst[d] *= citem;
        if (mask >> d & 1) ost[d] = 0;
        else { ost[d] = s * oitem; s *= in->sizes[d] > 1 ? in->sizes[d] : 1; }
    }
    /* reorder_dimensions */
    int perm[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    for (int i = 1; i < n; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int a = perm[d0], b = perm[d1], cmp = 0;
            for (int arg = 0; arg < 2 && cmp == 0; arg++) {
                int64_t s0 = arg == 0 ? ost[a] : vst[a], s1 = arg == 0 ? ost[b] : vst[b];
                if (arg == 0 && ((s0 == 0) != (s1 == 0))) { cmp = s1 == 0 ? 1 : -1; break; }
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (in->sizes[a] > in->sizes[b]) cmp = 1;
            }
            if (cmp > 0) { perm[d0] = b; perm[d1] = a; d1 = d0; }
            else if (cmp < 0) break;
        }
    }
    int64_t shp[TN_MAX_DIMS], vi[TN_MAX_DIMS], vo[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        shp[i] = in->sizes[perm[i]]; vi[i] = vst[perm[i]]; vo[i] = ost[perm[i]];
        g->psize[i] = shp[i]; g->preal[i] = real[perm[i]];
    }
    /* coalesce_dimensions */
    int prev = 0;
    if (n > 0) { g->lo[0] = 0; g->hi[0] = 1; }
    for (int d = 1; d < n; d++) {
        bool ok = shp[prev] == 1 || shp[d] == 1 ||
                  (shp[prev] * vi[prev] == vi[d] && shp[prev] * vo[prev] == vo[d]);
        if (ok) {
            if (shp[prev] == 1) { vi[prev] = vi[d]; vo[prev] = vo[d]; }
            shp[prev] *= shp[d];
            g->hi[prev] = d + 1;
        } else {
            prev++;
            vi[prev] = vi[d]; vo[prev] = vo[d]; shp[prev] = shp[d];
            g->lo[prev] = d; g->hi[prev] = d + 1;
        }
    }
    g->nd = n > 0 ? prev + 1 : 0;
    for (int d = 0; d < g->nd; d++) {
        g->size[d] = shp[d]; g->vin[d] = vi[d]; g->out[d] = vo[d];
        /* real strides uniform over the merged range? */
        bool uni = true, first = true;
        int64_t st = 0, expect = 0;
        for (int k = g->lo[d]; k < g->hi[d]; k++) {
            if (g->psize[k] == 1) continue;
            if (first) { st = g->preal[k]; expect = st * g->psize[k]; first = false; }
            else if (g->preal[k] != expect) { uni = false; break; }
            else expect *= g->psize[k];
        }
        g->uni[d] = uni; g->ustride[d] = st;
    }
    while (g->nd < 2) {
        int d = g->nd++;
        g->size[d] = 1; g->vin[d] = 0; g->out[d] = 0; g->uni[d] = true; g->ustride[d] = 0;
        g->lo[d] = g->hi[d] = 0;
    }
}

/* Call fn(ctx, in_ptr, out_ptr, begin0 ... ) for every 2-D slab, outer dims in upstream order.
 * Only full slabs (serial execution); the thread split is handled by callers. */
typedef void (*slab_fn)(void *ctx, const char *in, char *out);

static void for_each_slab(const geom *g, const char *in, char *out, slab_fn fn, void *ctx) {
    int64_t idx[TN_MAX_DIMS] = {0};
    for (int d = 2; d < g->nd; d++)
        if (g->size[d] == 0) return;
    if (g->size[0] == 0 || g->size[1] == 0) return;
    for (;;) {
        int64_t io = 0, oo = 0;
        for (int d = 2; d < g->nd; d++) { io += goff(g, d, idx[d]); oo += idx[d] * g->out[d]; }
        fn(ctx, in + io, out + oo);
        int d = 2;
        while (d < g->nd && ++idx[d] == g->size[d]) idx[d++] = 0;
        if (d >= g->nd) return;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* cascade sum (floating and complex)                                                         */

typedef struct {
    const geom *g;
    tn_dtype s, c;        /* source dtype, compute (= output) dtype */
    tn_dtype acc;         /* accumulate rounding: F32 or F64 */
    int ncomp, comp;
    int64_t citem;        /* sizeof(scalar_t) */
    int W, VA;            /* Vectorized<scalar_t>::size(), Vectorized<acc_t>::size() */
    int pairmode;         /* 0 none, 1 f16 (2l, 2l+1), 2 bf16 (l, l+16) */
    int d0, d1;           /* reduced / other dim of the current slab */
    /* thread split of a full reduction (two-pass); unused when nchunks == 0 */
} sctx;

static inline double sld(const sctx *c, const char *p, int64_t x) {
    return ld_cvt(p + goff(c->g, c->d0, x), c->s, c->c, c->comp);
}
static inline double sadd(const sctx *c, double a, double b) { return rnd(a + b, c->acc); }

/* value of "vector element" lane: index x along d0, optionally with its pair */
static inline double slane(const sctx *c, const char *p, int64_t x, int64_t pd) {
    double v = sld(c, p, x);
    if (pd) v = sadd(c, v, sld(c, p, x + pd));
    return v;
}

static int64_t ceil_log2(int64_t x) {
    if (x <= 2) return 1;
    return 64 - __builtin_clzll((unsigned long long)(x - 1));
}

/* multi_row_sum for one lane: elements start + i*step, i < m */
static double cascade(const sctx *c, const char *p, int64_t start, int64_t step, int64_t m, int64_t pd) {
    int64_t lp = ceil_log2(m) / 4;
    if (lp < 4) lp = 4;
    const int64_t ls = (int64_t)1 << lp, lmask = ls - 1;
    double acc[4] = {0, 0, 0, 0};
    int64_t i = 0;
    while (i + ls <= m) {
        for (int64_t j = 0; j < ls; j++, i++) acc[0] = sadd(c, acc[0], slane(c, p, start + i * step, pd));
        for (int j = 1; j < 4; j++) {
            acc[j] = sadd(c, acc[j], acc[j - 1]);
            acc[j - 1] = 0;
            if ((i & (lmask << (j * lp))) != 0) break;
        }
    }
    for (; i < m; i++) acc[0] = sadd(c, acc[0], slane(c, p, start + i * step, pd));
    for (int j = 1; j < 4; j++) acc[0] = sadd(c, acc[0], acc[j]);
    return acc[0];
}

/* row_sum for one lane: n elements start + i*step, four interleaved cascades */
static double row_sum(const sctx *c, const char *p, int64_t start, int64_t step, int64_t n, int64_t pd) {
    int64_t m = n / 4;
    double part[4];
    for (int k = 0; k < 4; k++) part[k] = cascade(c, p, start + k * step, 4 * step, m, pd);
    for (int64_t i = m * 4; i < n; i++) part[0] = sadd(c, part[0], slane(c, p, start + i * step, pd));
    for (int k = 1; k < 4; k++) part[0] = sadd(c, part[0], part[k]);
    return part[0];
}

/* cascade and row_sum for f32 read and accumulated as f32, for nl independent lanes at once
 * (lane l reads p[l + i*step]): each lane does exactly the operations of cascade/row_sum above,
 * in float, which round as the double-then-round steps there (a sum of two floats rounded once
 * from double equals the float sum); running the lanes side by side lets the compiler vectorise
 * across lanes without reassociating anything. */
#define F32_LANES 64

/* acc[l] += p[i * step + l] for i < n, l < nl, each lane in i order; 8 or 16 lanes (upstream's
 * vector widths) held in registers for the whole run, not stored and reloaded every row */
static inline __attribute__((always_inline)) void add_rows(float *acc, const float *p, int64_t step, int64_t n, int nl) {
    if (nl == 16 || nl == 8) {
        float a[16];
        memcpy(a, acc, 16 * sizeof(float));
        if (nl == 16)
            for (int64_t i = 0; i < n; i++)
                for (int l = 0; l < 16; l++) a[l] += p[i * step + l];
        else
            for (int64_t i = 0; i < n; i++)
                for (int l = 0; l < 8; l++) a[l] += p[i * step + l];
        memcpy(acc, a, (size_t)nl * sizeof(float));
        return;
    }
    for (int64_t i = 0; i < n; i++)
        for (int l = 0; l < nl; l++) acc[l] += p[i * step + l];
}

TN_EW_CLONES static void cascade_f32_lanes(const float *p, int64_t step, int64_t m, int nl, float *res) {
    int64_t lp = ceil_log2(m) / 4;
    if (lp < 4) lp = 4;
    const int64_t ls = (int64_t)1 << lp, lmask = ls - 1;
    float acc[4][F32_LANES] = {{0}};
    int64_t i = 0;
    while (i + ls <= m) {
        add_rows(acc[0], p + i * step, step, ls, nl);
        i += ls;
        for (int j = 1; j < 4; j++) {
            for (int l = 0; l < nl; l++) { acc[j][l] += acc[j - 1][l]; acc[j - 1][l] = 0; }
            if ((i & (lmask << (j * lp))) != 0) break;
        }
    }
    for (; i < m; i++) {
        const float *r = p + i * step;
        for (int l = 0; l < nl; l++) acc[0][l] += r[l];
    }
    for (int j = 1; j < 4; j++)
        for (int l = 0; l < nl; l++) acc[0][l] += acc[j][l];
    memcpy(res, acc[0], (size_t)nl * sizeof(float));
}

TN_EW_CLONES static void row_sum_f32_lanes(const float *p, int64_t step, int64_t n, int nl, float *res) {
    int64_t m = n / 4;
    float part[4][F32_LANES];
    for (int k = 0; k < 4; k++) cascade_f32_lanes(p + k * step, 4 * step, m, nl, part[k]);
    for (int64_t i = m * 4; i < n; i++)
        for (int l = 0; l < nl; l++) part[0][l] += p[i * step + l];
    for (int k = 1; k < 4; k++)
        for (int l = 0; l < nl; l++) part[0][l] += part[k][l];
    memcpy(res, part[0], (size_t)nl * sizeof(float));
}

/* SP_VINNER for f32 rows (reduced dim contiguous, W = VA = 8 lanes), ROWS8 rows side by side:
 * row r, lane l reads p[r * rs + l + i * step]; every (row, lane) does exactly the operations of
 * cascade / row_sum above (and of row_sum_f32_lanes), in float. Rows are independent, so running
 * them together only gives the compiler independent additions to overlap and vectorise. */
#define ROWS8 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define R8_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define R8_CLONES
#endif

static inline __attribute__((always_inline)) void cascade_rows8_body(const float *p, int64_t rs, int nr,
                                                                     int64_t step, int64_t m, float res[ROWS8][8]) {
    int64_t lp = ceil_log2(m) / 4;
    if (lp < 4) lp = 4;
    const int64_t ls = (int64_t)1 << lp, lmask = ls - 1;
    float acc[4][ROWS8][8] = {{{0}}};
    int64_t i = 0;
    while (i + ls <= m) {
        for (int64_t j = 0; j < ls; j++, i++)
            for (int r = 0; r < nr; r++)
                for (int l = 0; l < 8; l++) acc[0][r][l] += p[r * rs + i * step + l];
        for (int j = 1; j < 4; j++) {
            for (int r = 0; r < nr; r++)
                for (int l = 0; l < 8; l++) { acc[j][r][l] += acc[j - 1][r][l]; acc[j - 1][r][l] = 0; }
            if ((i & (lmask << (j * lp))) != 0) break;
        }
    }
    for (; i < m; i++)
        for (int r = 0; r < nr; r++)
            for (int l = 0; l < 8; l++) acc[0][r][l] += p[r * rs + i * step + l];
    for (int j = 1; j < 4; j++)
        for (int r = 0; r < nr; r++)
            for (int l = 0; l < 8; l++) acc[0][r][l] += acc[j][r][l];
    memcpy(res, acc[0], sizeof acc[0]);
}

/* nr == ROWS8: the same operations with the accumulators as 8-float vectors (registers) */
typedef float r8_v8 __attribute__((vector_size(32)));
#define R8_UNROLL _Pragma("GCC unroll 8")
#define R8_LD(q) ({ r8_v8 v_; memcpy(&v_, (q), sizeof v_); v_; })
R8_CLONES static void cascade_f32_rows8(const float *p, int64_t rs, int nr, int64_t step, int64_t m,
                                        float res[ROWS8][8]) {
    if (nr != ROWS8) {
        cascade_rows8_body(p, rs, nr, step, m, res);
        return;
    }
    int64_t lp = ceil_log2(m) / 4;
    if (lp < 4) lp = 4;
    const int64_t ls = (int64_t)1 << lp, lmask = ls - 1;
    r8_v8 a0[ROWS8], a1[ROWS8], a2[ROWS8], a3[ROWS8];
    R8_UNROLL for (int r = 0; r < ROWS8; r++) a0[r] = a1[r] = a2[r] = a3[r] = (r8_v8){0};
    int64_t i = 0;
    while (i + ls <= m) {
        for (int64_t j = 0; j < ls; j++, i++)
            R8_UNROLL for (int r = 0; r < ROWS8; r++) a0[r] += R8_LD(p + r * rs + i * step);
        R8_UNROLL for (int r = 0; r < ROWS8; r++) { a1[r] += a0[r]; a0[r] = (r8_v8){0}; }
        if ((i & (lmask << lp)) != 0) continue;
        R8_UNROLL for (int r = 0; r < ROWS8; r++) { a2[r] += a1[r]; a1[r] = (r8_v8){0}; }
        if ((i & (lmask << (2 * lp))) != 0) continue;
        R8_UNROLL for (int r = 0; r < ROWS8; r++) { a3[r] += a2[r]; a2[r] = (r8_v8){0}; }
    }
    for (; i < m; i++)
        R8_UNROLL for (int r = 0; r < ROWS8; r++) a0[r] += R8_LD(p + r * rs + i * step);
    R8_UNROLL for (int r = 0; r < ROWS8; r++) {
        a0[r] += a1[r];
        a0[r] += a2[r];
        a0[r] += a3[r];
        memcpy(res[r], &a0[r], sizeof a0[r]);
    }
}

/* sum_col's SP_VINNER f32 result for nr rows of size0 floats at p + r * rs */
R8_CLONES static void vinner_f32_rows8(const float *p, int64_t rs, int nr, int64_t size0, float *res) {
    int64_t vec_size = size0 / 8, m = vec_size / 4;
    float part[4][ROWS8][8];
    for (int k = 0; k < 4; k++) cascade_f32_rows8(p + k * 8, rs, nr, 32, m, part[k]);
    for (int64_t i = m * 4; i < vec_size; i++)
        for (int r = 0; r < nr; r++)
            for (int l = 0; l < 8; l++) part[0][r][l] += p[r * rs + i * 8 + l];
    for (int k = 1; k < 4; k++)
        for (int r = 0; r < nr; r++)
            for (int l = 0; l < 8; l++) part[0][r][l] += part[k][r][l];
    for (int r = 0; r < nr; r++) {
        float ff = 0;
        for (int64_t k = vec_size * 8; k < size0; k++) ff += p[r * rs + k];
        for (int l = 0; l < 8; l++) ff += part[0][r][l];
        res[r] = ff;
    }
}

typedef struct {
    const float *base;    /* row 0 */
    int64_t rs, size0;    /* row stride (floats), row length */
    int64_t nrows;
    char *out;            /* output of row 0 */
    int64_t ostride;      /* output byte stride between rows */
    bool mean;
    double dv;
} rows8_ctx;

/* groups [b, e) of ROWS8 rows */
static void rows8_chunks(int64_t b, int64_t e, void *vctx) {
    const rows8_ctx *x = vctx;
    for (int64_t grp = b; grp < e; grp++) {
        int64_t j0 = grp * ROWS8;
        int nr = (int)(x->nrows - j0 < ROWS8 ? x->nrows - j0 : ROWS8);
        float res[ROWS8];
        vinner_f32_rows8(x->base + j0 * x->rs, x->rs, nr, x->size0, res);
        for (int r = 0; r < nr; r++) {
            double v = res[r];
            if (x->mean) v = rnd(v / x->dv, TN_DTYPE_F32);
            st_flt(x->out + (j0 + r) * x->ostride, TN_DTYPE_F32, 0, v);
        }
    }
}

static void sctx_init(sctx *c, const geom *g, tn_dtype s, tn_dtype cd) {
    memset(c, 0, sizeof *c);
    c->g = g; c->s = s; c->c = cd;
    c->ncomp = is_cplx(cd) ? 2 : 1;
    c->acc = (cd == TN_DTYPE_F64 || cd == TN_DTYPE_C128) ? TN_DTYPE_F64 : TN_DTYPE_F32;
    c->citem = tn_dtype_itemsize(cd);
    c->W = (int)(VBYTES / c->citem);
    c->VA = (cd == TN_DTYPE_F16 || cd == TN_DTYPE_BF16) ? c->W / 2 : c->W;
    c->pairmode = cd == TN_DTYPE_F16 ? 1 : cd == TN_DTYPE_BF16 ? 2 : 0;
}

static int64_t out_numel(const tn_tensor *in, uint64_t mask) {
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++)
        if (!(mask >> d & 1)) n *= in->sizes[d];
    return n;
}

static int64_t reduced_count(const tn_tensor *in, uint64_t mask) {
    int64_t n = 1;
    for (int d = 0; d < in->ndim; d++)
        if (mask >> d & 1) n *= in->sizes[d];
    return n;
}

static void fill(char *out, int64_t n, tn_dtype d, double re, double im) {
    int64_t item = tn_dtype_itemsize(d);
    for (int64_t k = 0; k < n; k++) {
        if (is_intlike(d)) st_int(out + k * item, d, (uint64_t)(int64_t)re);
        else { st_flt(out + k * item, d, 0, re); if (is_cplx(d)) st_flt(out + k * item, d, 1, im); }
    }
}

/* The kernel path upstream's sum loop picks for a 2-D slab (same for every slab of a reduction). */
enum { SP_ELEM, SP_VINNER, SP_VOUTER, SP_SINNER, SP_SOUTER };

static int sum_plan(sctx *c) {
    const geom *g = c->g;
    int a = 0, b = 1;
    if (g->out[0] != 0 && g->out[1] == 0) { a = 1; b = 0; } /* move the reduction to dim 0 */
    c->d0 = a; c->d1 = b;
    int64_t size0 = g->size[a], size1 = g->size[b], in0 = g->vin[a], in1 = g->vin[b];
    if (g->out[a] != 0 && g->out[b] != 0) return SP_ELEM;  /* not a reduction: out += in */
    if (in0 == c->citem && size0 >= c->W) return SP_VINNER;
    if (in1 == c->citem && size1 >= c->W) return SP_VOUTER;
    return in0 < in1 ? SP_SINNER : SP_SOUTER;
}

/* The partial sum one slab contributes through its column j (component c->comp). */
static double sum_col(const sctx *c, int plan, const char *slab, int64_t j) {
    const geom *g = c->g;
    int64_t size0 = g->size[c->d0], size1 = g->size[c->d1];
    const char *col = slab + goff(g, c->d1, j);
    switch (plan) {
    case SP_VINNER: { /* vector lanes along the row, scalar tail first, then the lanes in order */
        int64_t vec_size = size0 / c->W;
        int64_t pd = c->pairmode == 1 ? 1 : c->pairmode == 2 ? c->VA : 0;
        if (c->s == TN_DTYPE_F32 && c->c == TN_DTYPE_F32 && g->uni[c->d0] && g->ustride[c->d0] == (int64_t)sizeof(float)) {
            const float *f = (const float *)col;
            float ff = 0;
            for (int64_t k = vec_size * c->W; k < size0; k++) ff += f[k];
            float lane[F32_LANES];
            row_sum_f32_lanes(f, c->W, vec_size, c->VA, lane);
            for (int l = 0; l < c->VA; l++) ff += lane[l];
            return ff;
        }
        double fin = 0;
        for (int64_t k = vec_size * c->W; k < size0; k++) fin = sadd(c, fin, sld(c, col, k));
        for (int l = 0; l < c->VA; l++) {
            int64_t off = c->pairmode == 1 ? 2 * l : l;
            fin = sadd(c, fin, row_sum(c, col, off, c->W, vec_size, pd));
        }
        return fin;
    }
    case SP_VOUTER: { /* columns in blocks of 4 vectors use multi_row_sum, the rest row_sum */
        int64_t full = size1 / (4 * c->VA) * (4 * c->VA);
        return j < full ? cascade(c, col, 0, 1, size0, 0) : row_sum(c, col, 0, 1, size0, 0);
    }
    case SP_SOUTER: {
        int64_t full = size1 / 4 * 4;
        return j < full ? cascade(c, col, 0, 1, size0, 0) : row_sum(c, col, 0, 1, size0, 0);
    }
    default:
        return row_sum(c, col, 0, 1, size0, 0);
    }
}

/* f32 partials of columns j0 .. j0+nl-1 of one slab (d1 contiguous), each exactly as sum_col */
static void f32_cols(const sctx *c, int plan, const char *slab, int64_t j0, int nl, float *part) {
    const geom *g = c->g;
    int64_t size0 = g->size[c->d0], size1 = g->size[c->d1];
    int64_t full = plan == SP_VOUTER ? size1 / (4 * c->VA) * (4 * c->VA) : size1 / 4 * 4;
    const float *p = (const float *)slab + j0;
    int64_t step = g->ustride[c->d0] / (int64_t)sizeof(float);
    int nc = j0 >= full ? 0 : (int)(full - j0 < nl ? full - j0 : nl);
    if (nc) cascade_f32_lanes(p, step, size0, nc, part);
    if (nc < nl) row_sum_f32_lanes(p + nc, step, size0, nl - nc, part + nc);
}

typedef struct {
    const sctx *c;
    int plan, nr;
    const int *rdims;
    const char *base;     /* input at the kept outer index */
    char *out;            /* output at the kept outer index */
    bool mean;
    double dv;
} f32_outer_ctx;

/* Column chunks [b, e) of F32_LANES columns: fold every reduced slab's partials in the order
 * float_sum's general loop does, then store (divided for mean). */
static void f32_outer_chunks(int64_t b, int64_t e, void *vctx) {
    const f32_outer_ctx *x = vctx;
    const sctx *c = x->c;
    const geom *g = c->g;
    int64_t ncols = g->size[c->d1];
    for (int64_t chunk = b; chunk < e; chunk++) {
        int64_t j0 = chunk * F32_LANES;
        int nl = (int)(ncols - j0 < F32_LANES ? ncols - j0 : F32_LANES);
        float acc[F32_LANES] = {0}, part[F32_LANES];
        int64_t ridx[TN_MAX_DIMS] = {0};
        for (;;) {
            const char *slab = x->base;
            for (int q = 0; q < x->nr; q++) slab += goff(g, x->rdims[q], ridx[x->rdims[q]]);
            f32_cols(c, x->plan, slab, j0, nl, part);
            for (int l = 0; l < nl; l++) acc[l] += part[l];
            int q = 0;
            while (q < x->nr && ++ridx[x->rdims[q]] == g->size[x->rdims[q]]) ridx[x->rdims[q++]] = 0;
            if (q >= x->nr) break;
        }
        for (int l = 0; l < nl; l++) {
            double a = acc[l];
            if (x->mean) a = rnd(a / x->dv, TN_DTYPE_F32);
            st_flt(x->out + (j0 + l) * g->out[c->d1], TN_DTYPE_F32, 0, a);
        }
    }
}

/* Sum: each output element folds, in upstream's order, the partials of every slab (outer dims
 * 2.., innermost first) and every slab column that maps to it. f32/f64/c64/c128 outputs fold in
 * their own type, exactly as upstream's `*out += partial`; f16/bf16 fold in f32 and round once,
 * which is what upstream's results show (bit-identical to x.float().sum(dims).to(dtype)). The
 * result is left in vals[comp] (already divided by `div` for mean when div != 0). */
static void float_sum(const tn_tensor *in, uint64_t mask, char *out, tn_dtype od, bool mean) {
    geom g;
    int64_t on = out_numel(in, mask), oitem = tn_dtype_itemsize(od);
    geom_build(&g, in, mask, od, (int)oitem);
    tn_dtype rd = (od == TN_DTYPE_F64 || od == TN_DTYPE_C128) ? TN_DTYPE_F64 : TN_DTYPE_F32;
    double cnt = (double)reduced_count(in, mask);
    double dv = rd == TN_DTYPE_F64 ? cnt : (double)(float)cnt;
    if (tn_numel(in) == 0) {
        fill(out, on, od, mean ? NAN : 0, mean && is_cplx(od) ? NAN : 0);
        return;
    }
    sctx c;
    sctx_init(&c, &g, in->dtype, od);
    int plan = sum_plan(&c);
    const char *base = tn_data(in);
    /* outer dims: kept ones select the output, reduced ones are folded */
    int kd[TN_MAX_DIMS], rdims[TN_MAX_DIMS], nk = 0, nr = 0;
    for (int d = 2; d < g.nd; d++) {
        if (g.out[d] != 0) kd[nk++] = d; else rdims[nr++] = d;
    }
    int64_t kidx[TN_MAX_DIMS] = {0};
    bool d1_kept = g.out[c.d1] != 0;
    if (c.s == TN_DTYPE_F32 && od == TN_DTYPE_F32 && (plan == SP_VOUTER || plan == SP_SOUTER) && d1_kept &&
        g.uni[c.d0] && g.uni[c.d1] && g.ustride[c.d1] == (int64_t)sizeof(float)) {
        /* f32 columns side by side (the same sums, vectorised across columns), chunks of
         * columns shared over the pool when the reduction is large */
        int64_t nchunks = (g.size[c.d1] + F32_LANES - 1) / F32_LANES;
        int64_t per_chunk = g.size[c.d0] * F32_LANES;
        for (int q = 0; q < nr; q++) per_chunk *= g.size[rdims[q]];
        int64_t grain = 1 + 32768 / (per_chunk ? per_chunk : 1);
        for (;;) {
            int64_t kin = 0, kout = 0;
            for (int q = 0; q < nk; q++) { kin += goff(&g, kd[q], kidx[kd[q]]); kout += kidx[kd[q]] * g.out[kd[q]]; }
            f32_outer_ctx x = { &c, plan, nr, rdims, base + kin, out + kout, mean, dv };
            tn_parallel_for(nchunks, grain, f32_outer_chunks, &x);
            int q = 0;
            while (q < nk && ++kidx[kd[q]] == g.size[kd[q]]) kidx[kd[q++]] = 0;
            if (q >= nk) return;
        }
    }
    if (c.s == TN_DTYPE_F32 && od == TN_DTYPE_F32 && plan == SP_VINNER && d1_kept && nr == 0 &&
        g.uni[c.d0] && g.ustride[c.d0] == (int64_t)sizeof(float) && g.uni[c.d1] &&
        g.ustride[c.d1] % (int64_t)sizeof(float) == 0) {
        /* f32 rows along the innermost dim: ROWS8 rows side by side, groups over the pool */
        int64_t nrows = g.size[c.d1], ngroups = (nrows + ROWS8 - 1) / ROWS8;
        int64_t grain = 1 + 32768 / (g.size[c.d0] * ROWS8);
        for (;;) {
            int64_t kin = 0, kout = 0;
            for (int q = 0; q < nk; q++) { kin += goff(&g, kd[q], kidx[kd[q]]); kout += kidx[kd[q]] * g.out[kd[q]]; }
            rows8_ctx x = {(const float *)(base + kin), g.ustride[c.d1] / (int64_t)sizeof(float), g.size[c.d0],
                           nrows, out + kout, g.out[c.d1], mean, dv};
            tn_parallel_for(ngroups, grain, rows8_chunks, &x);
            int q = 0;
            while (q < nk && ++kidx[kd[q]] == g.size[kd[q]]) kidx[kd[q++]] = 0;
            if (q >= nk) return;
        }
    }
    for (;;) {
        int64_t kin = 0, kout = 0;
        for (int q = 0; q < nk; q++) { kin += goff(&g, kd[q], kidx[kd[q]]); kout += kidx[kd[q]] * g.out[kd[q]]; }
        int64_t ncols = d1_kept ? g.size[c.d1] : 1;
        int64_t ncells = plan == SP_ELEM ? g.size[c.d0] : 1;
        for (int64_t j = 0; j < ncols; j++)
            for (int64_t i = 0; i < ncells; i++) {
                char *o = out + kout + (d1_kept ? j * g.out[c.d1] : 0) + (plan == SP_ELEM ? i * g.out[c.d0] : 0);
                for (c.comp = 0; c.comp < c.ncomp; c.comp++) {
                    double acc = 0;
                    int64_t ridx[TN_MAX_DIMS] = {0};
                    for (;;) {
                        const char *slab = base + kin;
                        for (int q = 0; q < nr; q++) slab += goff(&g, rdims[q], ridx[rdims[q]]);
                        if (plan == SP_ELEM) {
                            acc = sadd(&c, acc, ld_cvt(slab + goff(&g, c.d1, j) + goff(&g, c.d0, i), c.s, c.c, c.comp));
                        } else if (d1_kept) {
                            acc = sadd(&c, acc, sum_col(&c, plan, slab, j));
                        } else {
                            for (int64_t jj = 0; jj < g.size[c.d1]; jj++)
                                acc = sadd(&c, acc, sum_col(&c, plan, slab, jj));
                        }
                        int q = 0;
                        while (q < nr && ++ridx[rdims[q]] == g.size[rdims[q]]) ridx[rdims[q++]] = 0;
                        if (q >= nr) break;
                    }
                    /* mean = sum / n; upstream's complex / real divides as x * (1/n) */
                    if (mean) acc = is_cplx(od) ? rnd(acc * rnd(1.0 / dv, rd), rd) : rnd(acc / dv, rd);
                    st_flt(o, od, c.comp, acc);
                }
            }
        int q = 0;
        while (q < nk && ++kidx[kd[q]] == g.size[kd[q]]) kidx[kd[q++]] = 0;
        if (q >= nk) break;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* binary_kernel_reduce_vec (prod, amax, amin) for floating / complex compute types            */

typedef enum { BOP_PROD, BOP_MAX, BOP_MIN } bop;

typedef struct {
    const geom *g;
    tn_dtype s, c;
    bop op;
    int64_t citem;
    int W;
} bctx;

static cv bload(const bctx *b, const char *p) {
    cv v = { ld_cvt(p, b->s, b->c, 0), is_cplx(b->c) ? ld_cvt(p, b->s, b->c, 1) : 0 };
    return v;
}
static cv bload_out(const bctx *b, const char *p) {
    cv v = { ld_raw(p, b->c, 0), is_cplx(b->c) ? ld_raw(p, b->c, 1) : 0 };
    return v;
}
static void bstore(const bctx *b, char *p, cv v) {
    st_flt(p, b->c, 0, v.r);
    if (is_cplx(b->c)) st_flt(p, b->c, 1, v.i);
}

/* scalar op (vec == false) or vector op (vec == true); they differ only for max/min ties */
static cv bapply(const bctx *b, cv x, cv y, bool vec) {
    cv r = {0, 0};
    tn_dtype d = b->c;
    switch (b->op) {
    case BOP_PROD:
        if (is_cplx(d) && !vec) {
            r = cmul_scalar(x, y, d);
        } else if (is_cplx(d)) { /* Vectorized<complex>: plain products, then add/sub */
            r.r = rnd(rnd(x.r * y.r, d) - rnd(x.i * y.i, d), d);
            r.i = rnd(rnd(x.r * y.i, d) + rnd(x.i * y.r, d), d);
        } else {
            r.r = rnd(x.r * y.r, d);
        }
        return r;
    case BOP_MAX:
        if (isnan(x.r) || isnan(y.r)) r.r = NAN;
        else r.r = vec ? (x.r > y.r ? x.r : y.r) : (x.r < y.r ? y.r : x.r);
        return r;
    case BOP_MIN:
        if (isnan(x.r) || isnan(y.r)) r.r = NAN;
        else r.r = vec ? (x.r < y.r ? x.r : y.r) : (y.r < x.r ? y.r : x.r);
        return r;
    }
    return r;
}

static void bred_slab(void *vctx, const char *in, char *out) {
    bctx *b = vctx;
    const geom *g = b->g;
    int64_t size0 = g->size[0], size1 = g->size[1], W = b->W;
    if (g->out[0] == 0 && g->vin[0] == b->citem) { /* contiguous inner reduction */
        for (int64_t j = 0; j < size1; j++) {
            const char *row = in + goff(g, 1, j);
            char *o = out + j * g->out[1];
            int64_t count = size0 / (4 * W);
            if (count > 0) {
                cv lane0 = {0, 0};
                for (int64_t l = 0; l < W; l++) {
                    cv acc[4];
                    for (int k = 0; k < 4; k++) acc[k] = bload(b, row + goff(g, 0, k * W + l));
                    for (int64_t i = 1; i < count; i++)
                        for (int k = 0; k < 4; k++)
                            acc[k] = bapply(b, acc[k], bload(b, row + goff(g, 0, i * 4 * W + k * W + l)), true);
                    cv v = bapply(b, bapply(b, acc[0], acc[1], true), bapply(b, acc[2], acc[3], true), true);
                    lane0 = l == 0 ? v : bapply(b, lane0, v, false);
                }
                bstore(b, o, bapply(b, bload_out(b, o), lane0, false));
            }
            cv cur = bload_out(b, o);
            for (int64_t i = count * 4 * W; i < size0; i++) cur = bapply(b, cur, bload(b, row + goff(g, 0, i)), false);
            bstore(b, o, cur);
        }
    } else if (g->out[0] == 0 && g->out[1] == b->citem && g->vin[1] == b->citem) { /* outer */
        int64_t full = size1 / (4 * W) * (4 * W);
        for (int64_t j = 0; j < size1; j++) {
            const char *col = in + goff(g, 1, j);
            char *o = out + j * g->out[1];
            if (j < full) {
                cv acc = bload(b, col);
                for (int64_t i = 1; i < size0; i++) acc = bapply(b, acc, bload(b, col + goff(g, 0, i)), true);
                bstore(b, o, bapply(b, acc, bload_out(b, o), true));
            } else {
                cv cur = bload_out(b, o);
                for (int64_t i = 0; i < size0; i++) cur = bapply(b, cur, bload(b, col + goff(g, 0, i)), false);
                bstore(b, o, cur);
            }
        }
    } else {
        for (int64_t j = 0; j < size1; j++)
            for (int64_t i = 0; i < size0; i++) {
                char *o = out + j * g->out[1] + i * g->out[0];
                bstore(b, o, bapply(b, bload_out(b, o), bload(b, in + goff(g, 1, j) + goff(g, 0, i)), false));
            }
    }
}

static void float_bred(bop op, const tn_tensor *in, uint64_t mask, char *out, tn_dtype od) {
    geom g;
    geom_build(&g, in, mask, od, tn_dtype_itemsize(od));
    double ident = op == BOP_PROD ? 1.0 : op == BOP_MAX ? -INFINITY : INFINITY;
    fill(out, out_numel(in, mask), od, ident, 0);
    if (tn_numel(in) == 0) return;
    bctx b = { &g, in->dtype, od, op, tn_dtype_itemsize(od), (int)(VBYTES / tn_dtype_itemsize(od)) };
    for_each_slab(&g, tn_data(in), out, bred_slab, &b);
}

/* ------------------------------------------------------------------------------------------ */
/* order-independent reductions: a direct walk over input elements                             */

/* Visit every input element: fn(ctx, element pointer, output element index). */
typedef void (*visit_fn)(void *ctx, const char *p, int64_t oi);

static void visit_all(const tn_tensor *in, uint64_t mask, visit_fn fn, void *ctx) {
    int n = in->ndim, item = tn_dtype_itemsize(in->dtype);
    if (tn_numel(in) == 0) return;
    int64_t ost[TN_MAX_DIMS], s = 1, idx[TN_MAX_DIMS] = {0};
    for (int d = n - 1; d >= 0; d--) {
        if (mask >> d & 1) ost[d] = 0;
        else { ost[d] = s; s *= in->sizes[d]; }
    }
    const char *base = tn_data(in);
    for (;;) {
        int64_t off = 0, oi = 0;
        for (int d = 0; d < n; d++) { off += idx[d] * in->strides[d]; oi += idx[d] * ost[d]; }
        fn(ctx, base + off * item, oi);
        int d = n - 1;
        while (d >= 0 && ++idx[d] == in->sizes[d]) idx[d--] = 0;
        if (d < 0) return;
    }
}

typedef struct { tn_reduce_op op; tn_dtype s, o; char *out; int64_t oitem; } ictx;

static bool nonzero(const char *p, tn_dtype d) {
    if (is_intlike(d)) return ld_int(p, d) != 0;
    return ld_raw(p, d, 0) != 0 || (is_cplx(d) && ld_raw(p, d, 1) != 0);
}

static void int_visit(void *vctx, const char *p, int64_t oi) {
    ictx *c = vctx;
    char *o = c->out + oi * c->oitem;
    switch (c->op) {
    case TN_REDUCE_SUM: case TN_REDUCE_PROD: {
        uint64_t cur = (uint64_t)ld_int(o, c->o), x;
        if (is_intlike(c->s)) x = (uint64_t)ld_int(p, c->s);
        else x = (uint64_t)(int64_t)ld_raw(p, c->s, 0); /* float -> int cast (truncation) */
        if (c->o == TN_DTYPE_BOOL) {
            x = x != 0;
            cur = c->op == TN_REDUCE_SUM ? (cur | x) : (cur & x);
        } else {
            cur = c->op == TN_REDUCE_SUM ? cur + x : cur * x;
        }
        st_int(o, c->o, cur);
        break;
    }
    case TN_REDUCE_AMAX: case TN_REDUCE_AMIN: {
        int64_t cur = ld_int(o, c->o), x = ld_int(p, c->s);
        if (c->op == TN_REDUCE_AMAX ? x > cur : x < cur) st_int(o, c->o, (uint64_t)x);
        break;
    }
    case TN_REDUCE_ALL: if (!nonzero(p, c->s)) *o = 0; break;
    case TN_REDUCE_ANY: if (nonzero(p, c->s)) *o = 1; break;
    case TN_REDUCE_COUNT_NONZERO:
        if (nonzero(p, c->s)) { int64_t v; memcpy(&v, o, 8); v++; memcpy(o, &v, 8); }
        break;
    default: break;
    }
}

static int64_t int_min(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_I8: return INT8_MIN; case TN_DTYPE_I16: return INT16_MIN;
    case TN_DTYPE_I32: return INT32_MIN; case TN_DTYPE_I64: return INT64_MIN;
    default: return 0;
    }
}
static int64_t int_max(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_I8: return INT8_MAX; case TN_DTYPE_I16: return INT16_MAX;
    case TN_DTYPE_I32: return INT32_MAX; case TN_DTYPE_I64: return INT64_MAX;
    case TN_DTYPE_U8: return UINT8_MAX; case TN_DTYPE_BOOL: return 1;
    default: return 0;
    }
}

static void direct(tn_reduce_op op, const tn_tensor *in, uint64_t mask, char *out, tn_dtype od) {
    int64_t on = out_numel(in, mask);
    int64_t init = 0;
    switch (op) {
    case TN_REDUCE_PROD: case TN_REDUCE_ALL: init = 1; break;
    case TN_REDUCE_AMAX: init = int_min(od); break;
    case TN_REDUCE_AMIN: init = int_max(od); break;
    default: break;
    }
    for (int64_t k = 0; k < on; k++) st_int(out + k * tn_dtype_itemsize(od), od, (uint64_t)init);
    ictx c = { op, in->dtype, od, out, tn_dtype_itemsize(od) };
    visit_all(in, mask, int_visit, &c);
}

/* ------------------------------------------------------------------------------------------ */

static bool computable(tn_dtype d) { return d >= 0 && d < TN_DTYPE_COUNT && tn_dtype_computable(d); }


bool tn_reduce(tn_reduce_op op, const tn_tensor *in, uint64_t mask, char *out, tn_dtype od) {
    if (!computable(in->dtype) || !computable(od)) return false;
    bool fl = is_flt(od) || is_cplx(od);
    switch (op) {
    case TN_REDUCE_SUM: case TN_REDUCE_PROD:
        if (is_cplx(in->dtype) && !is_cplx(od)) return false;
        if (!fl) { direct(op, in, mask, out, od); return true; }
        if (op == TN_REDUCE_SUM) float_sum(in, mask, out, od, false);
        else float_bred(BOP_PROD, in, mask, out, od);
        return true;
    case TN_REDUCE_MEAN:
        if (!fl || (is_cplx(in->dtype) && !is_cplx(od))) return false;
        float_sum(in, mask, out, od, true);
        return true;
    case TN_REDUCE_AMAX: case TN_REDUCE_AMIN:
        if (od != in->dtype || is_cplx(od)) return false;
        if (fl) float_bred(op == TN_REDUCE_AMAX ? BOP_MAX : BOP_MIN, in, mask, out, od);
        else direct(op, in, mask, out, od);
        return true;
    case TN_REDUCE_ALL: case TN_REDUCE_ANY:
        if (od != TN_DTYPE_BOOL && od != TN_DTYPE_U8) return false;
        direct(op, in, mask, out, od);
        return true;
    case TN_REDUCE_COUNT_NONZERO:
        if (od != TN_DTYPE_I64) return false;
        direct(op, in, mask, out, od);
        return true;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------------------------ */
/* max/min with indices, argmax/argmin                                                        */

bool tn_reduce_arg(bool is_max, const tn_tensor *in, int dim, char *values_out, int64_t *indices_out) {
    tn_dtype d = in->dtype;
    if (!computable(d) || is_cplx(d)) return false;
    int n = in->ndim, item = tn_dtype_itemsize(d);
    const char *base = tn_data(in);
    int64_t len, stride, idx[TN_MAX_DIMS] = {0};
    if (dim < 0 || n == 0) { /* over all elements, flattened row-major */
        len = tn_numel(in);
        if (len == 0) return true;
        double best = 0; int64_t bi = 0;
        const char *bp = base;
        for (int64_t k = 0; k < len; k++) {
            int64_t off = 0;
            for (int q = 0; q < n; q++) off += idx[q] * in->strides[q];
            const char *p = base + off * item;
            double v = ld_raw(p, d, 0);
            if (k == 0) { best = v; bp = p; }
            else if (is_max ? !(v <= best) : !(v >= best)) { best = v; bi = k; bp = p; }
            if (isnan(v)) break;
            int q = n - 1;
            while (q >= 0 && ++idx[q] == in->sizes[q]) idx[q--] = 0;
        }
        if (values_out) memcpy(values_out, bp, (size_t)item);
        if (indices_out) *indices_out = bi;
        return true;
    }
    len = in->sizes[dim];
    stride = in->strides[dim];
    if (len == 0) return true;
    int64_t onum = 1;
    for (int q = 0; q < n; q++) if (q != dim) onum *= in->sizes[q];
    for (int64_t o = 0; o < onum; o++) {
        int64_t off = 0;
        for (int q = 0; q < n; q++) if (q != dim) off += idx[q] * in->strides[q];
        const char *row = base + off * item;
        double best = ld_raw(row, d, 0);
        int64_t bi = 0;
        for (int64_t k = 0; k < len; k++) {
            double v = ld_raw(row + k * stride * item, d, 0);
            if (is_max ? !(v <= best) : !(v >= best)) {
                best = v; bi = k;
                if (isnan(v)) break;
            }
        }
        if (values_out) memcpy(values_out + o * item, row + bi * stride * item, (size_t)item);
        if (indices_out) indices_out[o] = bi;
        int q = n - 1;
        for (; q >= 0; q--) {
            if (q == dim) continue;
            if (++idx[q] < in->sizes[q]) break;
            idx[q] = 0;
        }
    }
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* cumsum / cumprod                                                                           */

bool tn_scan(tn_scan_op op, const tn_tensor *in, int dim, char *out, tn_dtype od) {
    if (!computable(in->dtype) || !computable(od)) return false;
    if (is_cplx(in->dtype) && !is_cplx(od)) return false;
    int n = in->ndim, iitem = tn_dtype_itemsize(in->dtype), oitem = tn_dtype_itemsize(od);
    if (tn_numel(in) == 0) return true;
    if (n == 0) { /* a scalar: out = in converted */
        tn_tensor t = *in;
        t.ndim = 1; t.sizes[0] = 1; t.strides[0] = 1;
        return tn_scan(op, &t, 0, out, od);
    }
    int64_t ost[TN_MAX_DIMS], s = 1, idx[TN_MAX_DIMS] = {0};
    for (int d = n - 1; d >= 0; d--) { ost[d] = s; s *= in->sizes[d]; }
    int64_t len = in->sizes[dim], onum = tn_numel(in) / len;
    const char *base = tn_data(in);
    /* accumulate type: f32 -> f64, f16/bf16 -> f32, f64 -> f64, c64 -> c128, ints -> int64 */
    tn_dtype acc = (od == TN_DTYPE_F16 || od == TN_DTYPE_BF16) ? TN_DTYPE_F32 : TN_DTYPE_F64;
    int ncomp = is_cplx(od) ? 2 : 1;
    for (int64_t o = 0; o < onum; o++) {
        int64_t ioff = 0, ooff = 0;
        for (int q = 0; q < n; q++) if (q != dim) { ioff += idx[q] * in->strides[q]; ooff += idx[q] * ost[q]; }
        const char *ip = base + ioff * iitem;
        char *op_ = out + ooff * oitem;
        if (!is_flt(od) && !is_cplx(od)) {
            uint64_t a = op == TN_SCAN_CUMSUM ? 0 : 1;
            for (int64_t k = 0; k < len; k++) {
                const char *p = ip + k * in->strides[dim] * iitem;
                uint64_t x = is_intlike(in->dtype) ? (uint64_t)ld_int(p, in->dtype)
                                                   : (uint64_t)(int64_t)ld_raw(p, in->dtype, 0);
                /* input converted to od first */
                char tmp[8]; st_int(tmp, od, x); x = (uint64_t)ld_int(tmp, od);
                a = op == TN_SCAN_CUMSUM ? a + x : a * x;
                st_int(op_ + k * ost[dim] * oitem, od, a);
            }
        } else {
            cv a = { op == TN_SCAN_CUMSUM ? 0.0 : 1.0, 0.0 };
            for (int64_t k = 0; k < len; k++) {
                const char *p = ip + k * in->strides[dim] * iitem;
                cv x = { ld_cvt(p, in->dtype, od, 0), ncomp == 2 ? ld_cvt(p, in->dtype, od, 1) : 0 };
                if (op == TN_SCAN_CUMSUM) {
                    a.r = rnd(a.r + x.r, acc); a.i = rnd(a.i + x.i, acc);
                } else if (ncomp == 2) {
                    a = cmul_scalar(a, x, acc);
                } else {
                    a.r = rnd(a.r * x.r, acc);
                }
                char *q = op_ + k * ost[dim] * oitem;
                st_flt(q, od, 0, a.r);
                if (ncomp == 2) st_flt(q, od, 1, a.i);
            }
        }
        int q = n - 1;
        for (; q >= 0; q--) {
            if (q == dim) continue;
            if (++idx[q] < in->sizes[q]) break;
            idx[q] = 0;
        }
    }
    return true;
}
