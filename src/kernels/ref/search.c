/* ref/search.c — searchsorted / bucketize binary search and histc bin counting (search.h). */
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

void tn_histc(tn_dtype dt, const void *x, int64_t n, int64_t bins, double lo, double hi, void *hist) {
    if (dt == TN_DTYPE_F64) {
        const double *p = x;
        double *h = hist;
        for (int64_t b = 0; b < bins; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) {
            double e = p[i];
            if (!(e >= lo && e <= hi)) continue;
            int64_t pos = (int64_t)((e - lo) * (double)bins / (hi - lo));
            h[pos == bins ? bins - 1 : pos] += 1;
        }
    } else if (dt == TN_DTYPE_F32) {
        const float *p = x;
        float *h = hist, l = (float)lo, r = (float)hi;
        for (int64_t b = 0; b < bins; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) {
            float e = p[i];
            if (!(e >= l && e <= r)) continue;
            int64_t pos = (int64_t)((e - l) * (float)bins / (r - l));
            h[pos == bins ? bins - 1 : pos] += 1;
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
