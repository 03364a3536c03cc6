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
