/* ref/sort.c — stable merge sort of rows of keys with their source positions (tn_sort_rows,
 * declared in kernels/nn.h), used by sort / argsort / topk / msort. NaN sorts as the largest
 * value. Written once as a macro over the key type; scratch comes from the op layer. */
#include "kernels/nn.h"

#include <string.h>

#define TN_ISNAN(v) ((v) != (v))

/* `before(a, b)`: a strictly precedes b in the requested order. */
#define TN_SORT_DEF(NAME, T)                                                                     \
    static inline bool NAME##_before(T a, T b, bool desc) {                                       \
        if (desc) return !TN_ISNAN(b) && (TN_ISNAN(a) || a > b);                                  \
        return !TN_ISNAN(a) && (TN_ISNAN(b) || a < b);                                            \
    }                                                                                            \
    static void NAME(T *keys, int64_t *idx, int64_t n, bool desc, T *tk, int64_t *ti) {          \
        for (int64_t i = 0; i < n; i++) idx[i] = i;                                             \
        T *ka = keys, *kb = tk;                                                                  \
        int64_t *ia = idx, *ib = ti;                                                             \
        for (int64_t w = 1; w < n; w *= 2) {                                                     \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                          \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;     \
                int64_t a = lo, b = mid, o = lo;                                                 \
                while (a < mid && b < hi) {                                                      \
                    if (NAME##_before(ka[b], ka[a], desc)) { kb[o] = ka[b]; ib[o++] = ia[b++]; } \
                    else { kb[o] = ka[a]; ib[o++] = ia[a++]; }                                   \
                }                                                                                \
                while (a < mid) { kb[o] = ka[a]; ib[o++] = ia[a++]; }                            \
                while (b < hi) { kb[o] = ka[b]; ib[o++] = ia[b++]; }                             \
            }                                                                                    \
            T *tkp = ka; ka = kb; kb = tkp;                                                      \
            int64_t *tip = ia; ia = ib; ib = tip;                                                \
        }                                                                                        \
        if (ka != keys) {                                                                        \
            memcpy(keys, ka, (size_t)n * sizeof(T));                                             \
            memcpy(idx, ia, (size_t)n * sizeof(int64_t));                                        \
        }                                                                                        \
    }

/* Integers never compare unequal to themselves, so TN_ISNAN is constant false for them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
TN_SORT_DEF(sort_u8, uint8_t)
TN_SORT_DEF(sort_i8, int8_t)
TN_SORT_DEF(sort_i16, int16_t)
TN_SORT_DEF(sort_i32, int32_t)
TN_SORT_DEF(sort_i64, int64_t)
TN_SORT_DEF(sort_u16, uint16_t)
TN_SORT_DEF(sort_u32, uint32_t)
TN_SORT_DEF(sort_u64, uint64_t)
TN_SORT_DEF(sort_f32, float)
TN_SORT_DEF(sort_f64, double)
#pragma GCC diagnostic pop

void tn_sort_rows(tn_sortkey kind, void *keys, int64_t *idx, int64_t rows, int64_t n, bool descending,
                  void *scratch) {
    int64_t *ti = (int64_t *)scratch;
    void *tk = ti + n;
    for (int64_t r = 0; r < rows; r++) {
        int64_t *ir = idx + r * n;
        switch (kind) {
#define TN_CASE(K, F, T) case K: F((T *)keys + r * n, ir, n, descending, (T *)tk, ti); break;
        TN_CASE(TN_SORTKEY_U8, sort_u8, uint8_t)
        TN_CASE(TN_SORTKEY_I8, sort_i8, int8_t)
        TN_CASE(TN_SORTKEY_I16, sort_i16, int16_t)
        TN_CASE(TN_SORTKEY_I32, sort_i32, int32_t)
        TN_CASE(TN_SORTKEY_I64, sort_i64, int64_t)
        TN_CASE(TN_SORTKEY_U16, sort_u16, uint16_t)
        TN_CASE(TN_SORTKEY_U32, sort_u32, uint32_t)
        TN_CASE(TN_SORTKEY_U64, sort_u64, uint64_t)
        TN_CASE(TN_SORTKEY_F32, sort_f32, float)
        TN_CASE(TN_SORTKEY_F64, sort_f64, double)
#undef TN_CASE
        }
    }
}

/* ---- selection from sorted rows (kthvalue / median / nanmedian / mode) ---- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
#define TN_SELECT_DEF(NAME, T)                                                                   \
    static void NAME(const T *keys, const int64_t *idx, int64_t rows, int64_t n, tn_select_how how, \
                     int64_t k, T *ok, int64_t *oi) {                                             \
        for (int64_t r = 0; r < rows; r++) {                                                     \
            const T *kr = keys + r * n;                                                          \
            const int64_t *ir = idx + r * n;                                                     \
            int64_t nan = 0, pos = 0;                                                            \
            if (how == TN_SELECT_MEDIAN || how == TN_SELECT_NANMEDIAN)                           \
                while (nan < n && TN_ISNAN(kr[n - 1 - nan])) nan++;                              \
            switch (how) {                                                                       \
            case TN_SELECT_KTH: pos = k - 1; break;                                              \
            case TN_SELECT_MEDIAN: pos = nan ? n - nan : (n - 1) / 2; break;                     \
            case TN_SELECT_NANMEDIAN: pos = (n - nan - 1) / 2; break;                            \
            case TN_SELECT_MODE: {                                                               \
                int64_t best = 0, run = 0;                                                       \
                for (int64_t i = 0; i < n; i++) {                                                \
                    run++;                                                                       \
                    if (i == n - 1 || kr[i] != kr[i + 1]) {                                      \
                        if (run > best) { best = run; pos = i; }                                 \
                        run = 0;                                                                 \
                    }                                                                            \
                }                                                                                \
                break;                                                                           \
            }                                                                                    \
            }                                                                                    \
            ok[r] = kr[pos];                                                                     \
            oi[r] = ir[pos];                                                                     \
        }                                                                                        \
    }
TN_SELECT_DEF(sel_u8, uint8_t)
TN_SELECT_DEF(sel_i8, int8_t)
TN_SELECT_DEF(sel_i16, int16_t)
TN_SELECT_DEF(sel_i32, int32_t)
TN_SELECT_DEF(sel_i64, int64_t)
TN_SELECT_DEF(sel_u16, uint16_t)
TN_SELECT_DEF(sel_u32, uint32_t)
TN_SELECT_DEF(sel_u64, uint64_t)
TN_SELECT_DEF(sel_f32, float)
TN_SELECT_DEF(sel_f64, double)
#pragma GCC diagnostic pop

void tn_select_rows(tn_sortkey kind, const void *keys, const int64_t *idx, int64_t rows, int64_t n,
                    tn_select_how how, int64_t k, void *out_keys, int64_t *out_idx) {
    switch (kind) {
#define TN_CASE(K, F, T) case K: F((const T *)keys, idx, rows, n, how, k, (T *)out_keys, out_idx); break;
    TN_CASE(TN_SORTKEY_U8, sel_u8, uint8_t)
    TN_CASE(TN_SORTKEY_I8, sel_i8, int8_t)
    TN_CASE(TN_SORTKEY_I16, sel_i16, int16_t)
    TN_CASE(TN_SORTKEY_I32, sel_i32, int32_t)
    TN_CASE(TN_SORTKEY_I64, sel_i64, int64_t)
    TN_CASE(TN_SORTKEY_U16, sel_u16, uint16_t)
    TN_CASE(TN_SORTKEY_U32, sel_u32, uint32_t)
    TN_CASE(TN_SORTKEY_U64, sel_u64, uint64_t)
    TN_CASE(TN_SORTKEY_F32, sel_f32, float)
    TN_CASE(TN_SORTKEY_F64, sel_f64, double)
#undef TN_CASE
    }
}

/* ---- unique ---- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
#define TN_UNIQUE_DEF(NAME, T)                                                                    \
    static int64_t NAME##_runs(const T *k, const int64_t *pos, int64_t n, T *ok, int64_t *inv, int64_t *cnt) { \
        int64_t m = 0;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                         \
            if (i == 0 || k[i] != k[i - 1]) {                                                     \
                ok[m] = k[i];                                                                     \
                if (cnt) cnt[m] = 0;                                                              \
                m++;                                                                              \
            }                                                                                     \
            if (inv) inv[pos ? pos[i] : i] = m - 1;                                               \
            if (cnt) cnt[m - 1]++;                                                                \
        }                                                                                         \
        return m;                                                                                 \
    }                                                                                             \
    /* -1, 0, 1: row a before, equal to, after row b (lexicographic, NaN largest) */              \
    static int NAME##_cmp(const T *a, const T *b, int64_t w) {                                     \
        for (int64_t j = 0; j < w; j++) {                                                         \
            if (a[j] < b[j] || (!TN_ISNAN(a[j]) && TN_ISNAN(b[j]))) return -1;                    \
            if (a[j] > b[j] || (TN_ISNAN(a[j]) && !TN_ISNAN(b[j]))) return 1;                     \
        }                                                                                         \
        return 0;                                                                                 \
    }                                                                                             \
    static bool NAME##_eq(const T *a, const T *b, int64_t w) {                                     \
        for (int64_t j = 0; j < w; j++)                                                           \
            if (a[j] != b[j]) return false;                                                       \
        return true;                                                                              \
    }                                                                                             \
    static int64_t NAME##_rows(const T *d, int64_t n, int64_t w, bool consecutive, int64_t *perm,  \
                               int64_t *first, int64_t *inv, int64_t *cnt, int64_t *tmp) {         \
        for (int64_t i = 0; i < n; i++) perm[i] = i;                                              \
        if (!consecutive) {                                                                       \
            int64_t *a = perm, *b = tmp;                                                          \
            for (int64_t s = 1; s < n; s *= 2) {                                                  \
                for (int64_t lo = 0; lo < n; lo += 2 * s) {                                       \
                    int64_t mid = lo + s < n ? lo + s : n, hi = lo + 2 * s < n ? lo + 2 * s : n;  \
                    int64_t x = lo, y = mid, o = lo;                                              \
                    while (x < mid && y < hi)                                                     \
                        b[o++] = NAME##_cmp(d + a[y] * w, d + a[x] * w, w) < 0 ? a[y++] : a[x++]; \
                    while (x < mid) b[o++] = a[x++];                                              \
                    while (y < hi) b[o++] = a[y++];                                               \
                }                                                                                 \
                int64_t *t = a; a = b; b = t;                                                     \
            }                                                                                     \
            if (a != perm) memcpy(perm, a, (size_t)n * sizeof(int64_t));                          \
        }                                                                                         \
        int64_t m = 0;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                         \
            if (i == 0 || !NAME##_eq(d + perm[i] * w, d + perm[i - 1] * w, w)) {                  \
                first[m] = i;                                                                     \
                cnt[m] = 0;                                                                       \
                m++;                                                                              \
            }                                                                                     \
            inv[perm[i]] = m - 1;                                                                 \
            cnt[m - 1]++;                                                                         \
        }                                                                                         \
        return m;                                                                                 \
    }
TN_UNIQUE_DEF(uq_u8, uint8_t)
TN_UNIQUE_DEF(uq_i8, int8_t)
TN_UNIQUE_DEF(uq_i16, int16_t)
TN_UNIQUE_DEF(uq_i32, int32_t)
TN_UNIQUE_DEF(uq_i64, int64_t)
TN_UNIQUE_DEF(uq_u16, uint16_t)
TN_UNIQUE_DEF(uq_u32, uint32_t)
TN_UNIQUE_DEF(uq_u64, uint64_t)
TN_UNIQUE_DEF(uq_f32, float)
TN_UNIQUE_DEF(uq_f64, double)
#pragma GCC diagnostic pop

int64_t tn_unique_runs(tn_sortkey kind, const void *keys, const int64_t *pos, int64_t n, void *out_keys,
                       int64_t *inverse, int64_t *counts) {
    switch (kind) {
#define TN_CASE(K, F, T) case K: return F##_runs((const T *)keys, pos, n, (T *)out_keys, inverse, counts);
    TN_CASE(TN_SORTKEY_U8, uq_u8, uint8_t)
    TN_CASE(TN_SORTKEY_I8, uq_i8, int8_t)
    TN_CASE(TN_SORTKEY_I16, uq_i16, int16_t)
    TN_CASE(TN_SORTKEY_I32, uq_i32, int32_t)
    TN_CASE(TN_SORTKEY_I64, uq_i64, int64_t)
    TN_CASE(TN_SORTKEY_U16, uq_u16, uint16_t)
    TN_CASE(TN_SORTKEY_U32, uq_u32, uint32_t)
    TN_CASE(TN_SORTKEY_U64, uq_u64, uint64_t)
    TN_CASE(TN_SORTKEY_F32, uq_f32, float)
    TN_CASE(TN_SORTKEY_F64, uq_f64, double)
#undef TN_CASE
    }
    return 0;
}

int64_t tn_unique_rows(tn_sortkey kind, const void *data, int64_t n, int64_t w, bool consecutive, int64_t *perm,
                       int64_t *first, int64_t *inverse, int64_t *counts, int64_t *scratch) {
    switch (kind) {
#define TN_CASE(K, F, T) case K: return F##_rows((const T *)data, n, w, consecutive, perm, first, inverse, counts, scratch);
    TN_CASE(TN_SORTKEY_U8, uq_u8, uint8_t)
    TN_CASE(TN_SORTKEY_I8, uq_i8, int8_t)
    TN_CASE(TN_SORTKEY_I16, uq_i16, int16_t)
    TN_CASE(TN_SORTKEY_I32, uq_i32, int32_t)
    TN_CASE(TN_SORTKEY_I64, uq_i64, int64_t)
    TN_CASE(TN_SORTKEY_U16, uq_u16, uint16_t)
    TN_CASE(TN_SORTKEY_U32, uq_u32, uint32_t)
    TN_CASE(TN_SORTKEY_U64, uq_u64, uint64_t)
    TN_CASE(TN_SORTKEY_F32, uq_f32, float)
    TN_CASE(TN_SORTKEY_F64, uq_f64, double)
#undef TN_CASE
    }
    return 0;
}
