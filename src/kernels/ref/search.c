/* ref/search.c — searchsorted / bucketize binary search, and the bin counting shared by histc and
 * histogram / histogramdd (search.h). */
#include "kernels/search.h"

#define SEARCH_ROWS(T)                                                                                   \
    do {                                                                                                 \
        const T *bd = (const T *)bnd, *vv = (const T *)vals;                                             \
        for (int64_t r = 0; r < nrows; r++) {                                                            \
            const T *row = bd + (shared ? 0 : r * nb);                                                   \
            const int64_t *srow = sorter ? sorter + (shared ? 0 : r * nb) : NULL;                        \
            for (int64_t j = 0; j < per_row; j++) {                                                      \
                T v = vv[r * per_row + j];                                                               \
                int64_t lo = 0, hi = nb;                                                                 \
                while (lo < hi) {                                                                        \
                    int64_t mid = lo + ((hi - lo) >> 1);                                                 \
                    T m = srow ? row[srow[mid]] : row[mid];                                              \
                    bool go_right = right ? !(m > v) : !(m >= v);                                        \
                    if (go_right) lo = mid + 1;                                                          \
                    else hi = mid;                                                                       \
                }                                                                                        \
                if (out_int32) ((int32_t *)out)[r * per_row + j] = (int32_t)lo;                          \
                else ((int64_t *)out)[r * per_row + j] = lo;                                             \
            }                                                                                            \
        }                                                                                                \
    } while (0)

void tn_searchsorted(bool is_float, const void *bnd, const void *vals, const int64_t *sorter, int64_t nrows,
                     int64_t per_row, int64_t nb, bool shared, bool right, void *out, bool out_int32) {
    if (is_float) SEARCH_ROWS(double);
    else SEARCH_ROWS(int64_t);
}

/* The arithmetic of upstream's kernel in its input type: for f16 / bf16 every operation
 * (difference, product with the bin count, quotient) rounds to the type. */
static float rnd(tn_dtype dt, float v) {
    return dt == TN_DTYPE_BF16 ? tn_bf16_to_f32(tn_f32_to_bf16(v)) : tn_f16_to_f32(tn_f32_to_f16(v));
}

/* The bin of one value over the edges e[0..ne-1] (lo = e[0], hi = e[ne-1] in the dtype), upstream's
 * histogramdd kernel: -1 when outside [lo, hi] (or NaN); linear interpolation
 * (x - lo) * (ne - 1) / (hi - lo) truncated, optionally corrected by an upper_bound among the
 * neighbouring edges (local search), or an upper_bound over all edges (binary search); the
 * last edge belongs to the last bin. `e` may be NULL for TN_HIST_LINEAR (histc). */
#define HIST_BIN(T)                                                                                      \
    static inline int64_t hist_bin_##T(T x, const T *e, int64_t ne, T lo, T hi, tn_hist_algo algo, tn_dtype rd) {    \
        if (!(x >= lo && x <= hi)) return -1;                                                            \
        int64_t pos, a = 0, b = ne;                                                                      \
        if (algo == TN_HIST_BINARY) {                                                                    \
            pos = -1;                                                                                    \
        } else {                                                                                         \
            pos = (int64_t)R(R(R(x - lo) * R((T)(ne - 1))) / R(hi - lo));                               \
            if (algo == TN_HIST_LINEAR_LOCAL) { a = pos - 1 > 0 ? pos - 1 : 0; b = pos + 2 < ne ? pos + 2 : ne; } \
        }                                                                                                \
        if (algo != TN_HIST_LINEAR) { /* upper_bound in e[a, b) */                                      \
            while (a < b) {                                                                              \
                int64_t m = a + ((b - a) >> 1);                                                          \
                if (!(x < e[m])) a = m + 1;                                                              \
                else b = m;                                                                              \
            }                                                                                            \
            pos = a - 1;                                                                                 \
        }                                                                                                \
        return pos == ne - 1 ? pos - 1 : pos;                                                            \
    }
/* f16 / bf16 arithmetic on widened values: each step rounded to rd */
static inline float hist_rnd(tn_dtype rd, float v) {
    if (rd == TN_DTYPE_BF16) return tn_bf16_to_f32(tn_f32_to_bf16(v));
    if (rd == TN_DTYPE_F16) return tn_f16_to_f32(tn_f32_to_f16(v));
    return v;
}
#define R(v) ((void)rd, (v))
HIST_BIN(double)
#undef R
#define R(v) hist_rnd(rd, v)
HIST_BIN(float)
#undef R

#define HISTDD(T)                                                                                        \
    do {                                                                                                 \
        const T *px = x, *pw = w;                                                                        \
        T *h = hist;                                                                                     \
        int64_t total = 1;                                                                               \
        for (int d = 0; d < D; d++) total *= ne[d] - 1;                                                  \
        for (int64_t k = 0; k < total; k++) h[k] = 0;                                                    \
        for (int64_t i = 0; i < n; i++) {                                                                \
            int64_t idx = 0;                                                                             \
            bool skip = false;                                                                           \
            for (int d = 0; d < D && !skip; d++) {                                                       \
                const T *e = edges[d];                                                                   \
                int64_t p = hist_bin_##T(px[i * D + d], e, ne[d], e[0], e[ne[d] - 1], algo, round);             \
                if (p < 0) skip = true;                                                                  \
                else idx = idx * (ne[d] - 1) + p;                                                        \
            }                                                                                            \
            if (!skip) h[idx] = (T)HR(h[idx] + (pw ? pw[i] : (T)1));                                      \
        }                                                                                                \
    } while (0)

void tn_histogramdd(tn_dtype dt, const void *x, int64_t n, int D, const void *const *edges, const int64_t *ne,
                    const void *w, tn_hist_algo algo, tn_dtype round, void *hist) {
#define HR(v) (v)
    if (dt == TN_DTYPE_F64) HISTDD(double);
#undef HR
#define HR(v) hist_rnd(round, v)
    else HISTDD(float);
#undef HR
}

void tn_histc(tn_dtype dt, const void *x, int64_t n, int64_t bins, double lo, double hi, void *hist) {
    if (dt == TN_DTYPE_F64) {
        const double *p = x;
        double *h = hist;
        for (int64_t b = 0; b < bins; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t pos = hist_bin_double(p[i], NULL, bins + 1, lo, hi, TN_HIST_LINEAR, TN_DTYPE_F64);
            if (pos >= 0) h[pos] += 1;
        }
    } else if (dt == TN_DTYPE_F32) {
        const float *p = x;
        float *h = hist;
        for (int64_t b = 0; b < bins; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t pos = hist_bin_float(p[i], NULL, bins + 1, (float)lo, (float)hi, TN_HIST_LINEAR, TN_DTYPE_F32);
            if (pos >= 0) h[pos] += 1;
        }
    } else { /* f16 / bf16: loaded to float, every result rounded back */
        const uint16_t *p = x;
        uint16_t *h = hist;
        bool bf = dt == TN_DTYPE_BF16;
        float l = (float)lo, r = (float)hi, nb = rnd(dt, (float)bins), w = rnd(dt, r - l);
        uint16_t zero = bf ? tn_f32_to_bf16(0.0f) : tn_f32_to_f16(0.0f);
        for (int64_t b = 0; b < bins; b++) h[b] = zero;
        for (int64_t i = 0; i < n; i++) {
            float e = bf ? tn_bf16_to_f32(p[i]) : tn_f16_to_f32(p[i]);
            if (!(e >= l && e <= r)) continue;
            int64_t pos = (int64_t)rnd(dt, rnd(dt, rnd(dt, e - l) * nb) / w);
            if (pos == bins) pos = bins - 1;
            float c = (bf ? tn_bf16_to_f32(h[pos]) : tn_f16_to_f32(h[pos])) + 1.0f;
            h[pos] = bf ? tn_f32_to_bf16(c) : tn_f32_to_f16(c);
        }
    }
}

void tn_bincount(const int64_t *idx, int64_t n, const void *w, bool w_double, int64_t nbins, void *out) {
    if (!w) {
        int64_t *o = out;
        for (int64_t b = 0; b < nbins; b++) o[b] = 0;
        for (int64_t i = 0; i < n; i++) o[idx[i]]++;
    } else if (w_double) {
        double *o = out;
        const double *wd = w;
        for (int64_t b = 0; b < nbins; b++) o[b] = 0;
        for (int64_t i = 0; i < n; i++) o[idx[i]] += wd[i];
    } else {
        float *o = out;
        const float *wf = w;
        for (int64_t b = 0; b < nbins; b++) o[b] = 0;
        for (int64_t i = 0; i < n; i++) o[idx[i]] += wf[i];
    }
}
