/* dtype.h — every scalar type upstream torch defines, in upstream's ScalarType order.
 *
 * One list (TN_DTYPES) feeds the enum, names, item sizes and trait tables. Each entry:
 *   X(ENUM, name, itemsize, kind)
 * kind: TN_KIND_BOOL, _INT (signed), _UINT, _FLOAT, _COMPLEX, _QUANT, _BITS, _SUBBYTE_INT,
 *       _SUBBYTE_UINT, _FLOAT8, _FLOAT_PACKED.
 * Only the "computable" dtypes (tn_dtype_computable) have kernels; the rest are storable. */
#ifndef TN_CORE_DTYPE_H
#define TN_CORE_DTYPE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

typedef enum {
    TN_KIND_BOOL, TN_KIND_INT, TN_KIND_UINT, TN_KIND_FLOAT, TN_KIND_COMPLEX, TN_KIND_QUANT,
    TN_KIND_BITS, TN_KIND_SUBBYTE_INT, TN_KIND_SUBBYTE_UINT, TN_KIND_FLOAT8, TN_KIND_FLOAT_PACKED,
} tn_dtype_kind;

#define TN_DTYPES(X)                                   \
    X(U8, uint8, 1, TN_KIND_UINT)                      \
    X(I8, int8, 1, TN_KIND_INT)                        \
    X(I16, int16, 2, TN_KIND_INT)                      \
    X(I32, int32, 4, TN_KIND_INT)                      \
    X(I64, int64, 8, TN_KIND_INT)                      \
    X(F16, float16, 2, TN_KIND_FLOAT)                  \
    X(F32, float32, 4, TN_KIND_FLOAT)                  \
    X(F64, float64, 8, TN_KIND_FLOAT)                  \
    X(C32, complex32, 4, TN_KIND_COMPLEX)              \
    X(C64, complex64, 8, TN_KIND_COMPLEX)              \
    X(C128, complex128, 16, TN_KIND_COMPLEX)           \
    X(BOOL, bool, 1, TN_KIND_BOOL)                     \
    X(QI8, qint8, 1, TN_KIND_QUANT)                    \
    X(QU8, quint8, 1, TN_KIND_QUANT)                   \
    X(QI32, qint32, 4, TN_KIND_QUANT)                  \
    X(BF16, bfloat16, 2, TN_KIND_FLOAT)                \
    X(QU4X2, quint4x2, 1, TN_KIND_QUANT)               \
    X(QU2X4, quint2x4, 1, TN_KIND_QUANT)               \
    X(BITS1X8, bits1x8, 1, TN_KIND_BITS)               \
    X(BITS2X4, bits2x4, 1, TN_KIND_BITS)               \
    X(BITS4X2, bits4x2, 1, TN_KIND_BITS)               \
    X(BITS8, bits8, 1, TN_KIND_BITS)                   \
    X(BITS16, bits16, 2, TN_KIND_BITS)                 \
    X(F8E5M2, float8_e5m2, 1, TN_KIND_FLOAT8)          \
    X(F8E4M3FN, float8_e4m3fn, 1, TN_KIND_FLOAT8)      \
    X(F8E5M2FNUZ, float8_e5m2fnuz, 1, TN_KIND_FLOAT8)  \
    X(F8E4M3FNUZ, float8_e4m3fnuz, 1, TN_KIND_FLOAT8)  \
    X(U16, uint16, 2, TN_KIND_UINT)                    \
    X(U32, uint32, 4, TN_KIND_UINT)                    \
    X(U64, uint64, 8, TN_KIND_UINT)                    \
    X(U1, uint1, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U2, uint2, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U3, uint3, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U4, uint4, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U5, uint5, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U6, uint6, 1, TN_KIND_SUBBYTE_UINT)              \
    X(U7, uint7, 1, TN_KIND_SUBBYTE_UINT)              \
    X(I1, int1, 1, TN_KIND_SUBBYTE_INT)                \
    X(I2, int2, 1, TN_KIND_SUBBYTE_INT)                \
    X(I3, int3, 1, TN_KIND_SUBBYTE_INT)                \
    X(I4, int4, 1, TN_KIND_SUBBYTE_INT)                \
    X(I5, int5, 1, TN_KIND_SUBBYTE_INT)                \
    X(I6, int6, 1, TN_KIND_SUBBYTE_INT)                \
    X(I7, int7, 1, TN_KIND_SUBBYTE_INT)                \
    X(F8E8M0FNU, float8_e8m0fnu, 1, TN_KIND_FLOAT8)    \
    X(F4E2M1FNX2, float4_e2m1fn_x2, 1, TN_KIND_FLOAT_PACKED)

typedef enum {
#define TN_X(E, n, sz, k) TN_DTYPE_##E,
    TN_DTYPES(TN_X)
#undef TN_X
    TN_DTYPE_COUNT,
    TN_DTYPE_UNDEFINED = -1,
} tn_dtype;

typedef struct {
    const char *name;   /* upstream's canonical name, e.g. "float32" */
    int itemsize;
    tn_dtype_kind kind;
} tn_dtype_info;

extern const tn_dtype_info tn_dtype_infos[TN_DTYPE_COUNT];

/* C++ ScalarType name upstream uses in messages ("Float", "ComplexHalf", ...). */
const char *tn_dtype_cpp_name(tn_dtype d);

static inline int tn_dtype_itemsize(tn_dtype d) { return tn_dtype_infos[d].itemsize; }
static inline bool tn_dtype_is_floating(tn_dtype d) {
    tn_dtype_kind k = tn_dtype_infos[d].kind;
    return k == TN_KIND_FLOAT || k == TN_KIND_FLOAT8 || k == TN_KIND_FLOAT_PACKED;
}
static inline bool tn_dtype_is_complex(tn_dtype d) { return tn_dtype_infos[d].kind == TN_KIND_COMPLEX; }
static inline bool tn_dtype_is_integral(tn_dtype d, bool include_bool) {
    tn_dtype_kind k = tn_dtype_infos[d].kind;
    return k == TN_KIND_INT || k == TN_KIND_UINT || (include_bool && k == TN_KIND_BOOL);
}
/* Dtypes with kernels: f32 f64 f16 bf16 c64 i8 u8 i16 i32 i64 bool (+ c128 where cheap). */
bool tn_dtype_computable(tn_dtype d);
/* uint16/32/64 and the float8 formats: upstream builds only a few kernels for them ("barebones"
 * unsigned support, float8 storage); their other ops refuse naming upstream's kernel. */
static inline bool tn_dtype_barebones(tn_dtype d) {
    return d == TN_DTYPE_U16 || d == TN_DTYPE_U32 || d == TN_DTYPE_U64 || tn_dtype_infos[d].kind == TN_KIND_FLOAT8;
}

/* A float8 input reduced into an out= of a computable floating dtype: upstream's out= reductions
 * (mean, var / std, nansum / nanmean) run in out's dtype, the float8 values cast to it first
 * (measured equal to x.to(out.dtype).<op>(...), docs/breadth_more2.md group nieok, session 37). */
static inline bool tn_f8_reduces_in(tn_dtype in, tn_dtype out) {
    return tn_dtype_infos[in].kind == TN_KIND_FLOAT8 && tn_dtype_is_floating(out) && tn_dtype_computable(out);
}

/* bf16 / f16 <-> f32. Narrowing rounds to nearest even (DESIGN.md §4). */
static inline float tn_bf16_to_f32(uint16_t h) {
    union { uint32_t u; float f; } v; v.u = (uint32_t)h << 16; return v.f;
}
static inline uint16_t tn_f32_to_bf16(float f) {
    union { uint32_t u; float f; } v; v.f = f;
    if ((v.u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((v.u >> 16) | 0x40); /* quiet NaN */
    uint32_t lsb = (v.u >> 16) & 1u;
    return (uint16_t)((v.u + 0x7fffu + lsb) >> 16);
}
float tn_f16_to_f32(uint16_t h);
uint16_t tn_f32_to_f16(float f);

#endif
