/* dtype.c — the dtype trait table and half-precision conversions. */
#include "core/dtype.h"

#include <math.h>
#include <string.h>

const tn_dtype_info tn_dtype_infos[TN_DTYPE_COUNT] = {
#define TN_X(E, n, sz, k) [TN_DTYPE_##E] = {#n, sz, k},
    TN_DTYPES(TN_X)
#undef TN_X
};

/* upstream's C++ ScalarType names, used in its error messages */
static const char *const cpp_names[TN_DTYPE_COUNT] = {
    "Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double", "ComplexHalf",
    "ComplexFloat", "ComplexDouble", "Bool", "QInt8", "QUInt8", "QInt32", "BFloat16", "QUInt4x2",
    "QUInt2x4", "Bits1x8", "Bits2x4", "Bits4x2", "Bits8", "Bits16", "Float8_e5m2",
    "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz", "UInt16", "UInt32", "UInt64", "UInt1",
    "UInt2", "UInt3", "UInt4", "UInt5", "UInt6", "UInt7", "Int1", "Int2", "Int3", "Int4", "Int5",
    "Int6", "Int7", "Float8_e8m0fnu", "Float4_e2m1fn_x2",
};

const char *tn_dtype_cpp_name(tn_dtype d) { return cpp_names[d]; }

bool tn_dtype_computable(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: case TN_DTYPE_F64: case TN_DTYPE_F16: case TN_DTYPE_BF16:
    case TN_DTYPE_C64: case TN_DTYPE_C128: case TN_DTYPE_I8: case TN_DTYPE_U8:
    case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64: case TN_DTYPE_BOOL:
        return true;
    default:
        return false;
    }
}

float tn_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: value = man * 2^-24 */
            float f = (float)man * 5.9604644775390625e-8f;
            uint32_t u; memcpy(&u, &f, 4);
            bits = sign | u;
        }
    } else {
        bits = sign | ((exp + 112u) << 23) | (man << 13);
    }
    float f; memcpy(&f, &bits, 4);
    return f;
}

uint16_t tn_f32_to_f16(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00u;           /* NaN */
    if (a >= 0x477ff000u) return sign | 0x7c00u;          /* overflow (incl. rounding) to inf */
    if (a < 0x38800000u) {                                /* result is subnormal or zero */
        /* add 0.5 (as a float) so the FPU rounds the mantissa to nearest even for us */
        float r = fabsf(f) + 0.5f;
        uint32_t ru; memcpy(&ru, &r, 4);
        return sign | (uint16_t)(ru - 0x3f000000u);
    }
    uint32_t mant_odd = (a >> 13) & 1u;
    a += 0xc8000fffu + mant_odd;                           /* rebias exponent (-112<<23) and round */
    return sign | (uint16_t)(a >> 13);
}
