/* search.h — kernels of the search and counting operators (ops/search.c): binary search of
 * sorted rows (searchsorted / bucketize) and histc's linear bin selection.
 *
 * Plain C: no Python, no allocation, no failure; the op layer validates, promotes and
 * allocates. */
#ifndef TN_KERNELS_SEARCH_H
#define TN_KERNELS_SEARCH_H

#include "core/dtype.h"

#include <stdbool.h>
#include <stdint.h>

/* Values and boundaries, both already converted to the promoted dtype and then widened exactly:
 * `is_float` says they are doubles, else int64s. `nrows` rows; row r of the values (`per_row`
 * contiguous values) searches row r of the boundaries (`nb` contiguous, or row 0 when
 * `shared`), through `sorter` (int64 positions in the boundary row) when not NULL. Writes the
 * insertion position (first position whose boundary is >= the value, or > it when `right`;
 * comparisons as upstream's, so a NaN value lands past every boundary) as int64 or int32. */
void tn_searchsorted(bool is_float, const void *bnd, const void *vals, const int64_t *sorter, int64_t nrows,
                     int64_t per_row, int64_t nb, bool shared, bool right, void *out, bool out_int32);

/* histc: counts of n contiguous values of dtype dt (f32, f64, f16, bf16) over `bins` equal bins
 * between edges `lo` and `hi` (the first and last of the bin edges, in dt), accumulated in dt
 * into hist (bins elements, zeroed here). The bin of x is (x - lo) * bins / (hi - lo) computed in
 * dt (each step rounded to dt for f16 / bf16), truncated; x == hi goes to the last bin; values
 * outside [lo, hi] and NaN are skipped. */
void tn_histc(tn_dtype dt, const void *x, int64_t n, int64_t bins, double lo, double hi, void *hist);

/* histogram / histogramdd (upstream's histogramdd kernel; histc's f32 / f64 bins are the same
 * code with TN_HIST_LINEAR): n points of D coordinates (x contiguous (n, D), f32 or f64), the
 * edges of dimension d in edges[d] (ne[d] contiguous values, ascending), optional weights w (n);
 * hist (prod (ne[d] - 1), row-major over the dims, zeroed here) accumulates 1 or w[i] in dt per
 * point whose every coordinate lies within its dimension's first and last edge. f16 / bf16 inputs
 * come widened to f32 (dt F32) with `round` their dtype: every arithmetic step (the linear
 * interpolation's difference, product and quotient, each accumulation) rounds to it, as upstream's
 * c10::Half / c10::BFloat16 arithmetic; `round` F32 / F64 rounds nothing. */
typedef enum { TN_HIST_LINEAR, TN_HIST_LINEAR_LOCAL, TN_HIST_BINARY } tn_hist_algo;
void tn_histogramdd(tn_dtype dt, const void *x, int64_t n, int D, const void *const *edges, const int64_t *ne,
                    const void *w, tn_hist_algo algo, tn_dtype round, void *hist);

/* bincount: for i in order, out[idx[i]] += w[i] (w NULL: += 1). idx are int64 (validated
 * non-negative and < nbins by the op layer); out (nbins, zeroed here) is int64 without weights,
 * else float (w_double false) or double, accumulated in that type as upstream. */
void tn_bincount(const int64_t *idx, int64_t n, const void *w, bool w_double, int64_t nbins, void *out);

#endif
