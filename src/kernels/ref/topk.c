/* ref/topk.c — topk of rows as upstream's CPU kernel orders them (tn_topk_rows, kernels/nn.h):
 * the steps are topk_body.h, included once per key type. */
#include "kernels/nn.h"

#include <string.h>

#define TN_ISNAN(v) ((v) != (v))

/* Integers never compare unequal to themselves, so TN_ISNAN is constant false for them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
#define TK_T uint8_t
#define TK_N(x) tk_u8_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T int8_t
#define TK_N(x) tk_i8_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T int16_t
#define TK_N(x) tk_i16_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T int32_t
#define TK_N(x) tk_i32_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T int64_t
#define TK_N(x) tk_i64_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T uint16_t
#define TK_N(x) tk_u16_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T uint32_t
#define TK_N(x) tk_u32_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T uint64_t
#define TK_N(x) tk_u64_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T float
#define TK_N(x) tk_f32_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#define TK_T double
#define TK_N(x) tk_f64_##x
#include "kernels/ref/topk_body.h"
#undef TK_T
#undef TK_N
#pragma GCC diagnostic pop

void tn_topk_rows(tn_sortkey kind, void *keys, int64_t *idx, int64_t rows, int64_t n, int64_t k, bool largest,
                  bool sorted, void *scratch) {
    switch (kind) {
#define TN_CASE(K, F, T) case K: F##_rows((T *)keys, idx, rows, n, k, largest, sorted, scratch); break;
    TN_CASE(TN_SORTKEY_U8, tk_u8, uint8_t)
    TN_CASE(TN_SORTKEY_I8, tk_i8, int8_t)
    TN_CASE(TN_SORTKEY_I16, tk_i16, int16_t)
    TN_CASE(TN_SORTKEY_I32, tk_i32, int32_t)
    TN_CASE(TN_SORTKEY_I64, tk_i64, int64_t)
    TN_CASE(TN_SORTKEY_U16, tk_u16, uint16_t)
    TN_CASE(TN_SORTKEY_U32, tk_u32, uint32_t)
    TN_CASE(TN_SORTKEY_U64, tk_u64, uint64_t)
    TN_CASE(TN_SORTKEY_F32, tk_f32, float)
    TN_CASE(TN_SORTKEY_F64, tk_f64, double)
#undef TN_CASE
    }
}
