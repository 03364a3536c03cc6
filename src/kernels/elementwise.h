/* elementwise.h — lookup of the plain-C elementwise kernels: unary, binary, where, clamp,
 * cast/copy and fill.
 *
 * Every kernel is a tn_loop (core/iter.h): data[0] is the output, data[1..] the inputs, strides
 * in bytes, n elements, ctx an op-specific parameter block (or NULL). The op layer validates,
 * promotes, broadcasts and allocates first: all inputs arrive already in the compute dtype `dt`
 * and the output is `dt` too, except where tn_unary_out_dtype / tn_binary_out_dtype say
 * otherwise (bool for comparisons, logical ops and predicates; the real dtype for abs of a
 * complex). A lookup returns NULL when upstream has no kernel for that (op, dtype) pair (the op
 * layer then raises), e.g. exp on int32 (upstream promotes to float before reaching a kernel).
 *
 * Reduced precision (f16, bf16) widens to f32, computes, and narrows once with round-to-nearest-
 * even, as upstream does. Kernels never trap: integer division by zero yields 0 and
 * INT_MIN / -1 wraps to INT_MIN (upstream raises "ZeroDivisionError" for integer div / floor
 * divide / remainder / fmod by zero in the op layer, and actually dies with SIGFPE on
 * div(INT_MIN, -1, rounding_mode='trunc'); the op layer must raise RuntimeError("ZeroDivisionError")
 * itself before calling these loops when any divisor is 0).
 *
 * Notes for the op layer (all measured on upstream 2.13.0 CPU):
 *  - add/sub: ctx = const tn_scalar* alpha (NULL means 1). Computed as fma(alpha, b, a) in the
 *    opmath type (upstream fuses, also in its scalar tails). For f16/bf16 the kernel rounds alpha
 *    to the dtype first (upstream does). sub(a, b, alpha) is add(a, b, -alpha) upstream; the SUB
 *    loop does exactly that. A Python-number `other` for add/sub/remainder/fmod/pow/compare is
 *    simply converted to the tensor dtype (ordinary broadcast 0-d operand).
 *  - mul, div (true) and div_floor with a wrapped Python number on f16/bf16 keep the number in
 *    f32 ("opmath") instead of rounding it to f16: use tn_binary_scalar_loop (data: out, a;
 *    ctx: const tn_scalar* holding the number). For other dtypes the scalar loop converts the
 *    number to dt first, so it is always safe to use for tensor-op-number.
 *  - pow(Tensor, Scalar): upstream special-cases exponents 2, 3, 0.5, -0.5, -1, -2 as
 *    x*x, x*x*x, sqrt, rsqrt, 1/x, 1/(x*x); use tn_pow_scalar_loop which does the same.
 *  - maximum/minimum on equal operands (0. vs -0.) return the first operand (upstream's scalar
 *    path); upstream's AVX2/AVX512 path returns the second one, so for ±0 ties on long
 *    contiguous tensors the sign of zero can differ from upstream.
 *  - Float -> integer casts follow upstream on x86: to int64 via a 64-bit truncation, to every
 *    narrower integer via a 32-bit truncation then wrap; NaN / out of range gives INT_MIN of the
 *    conversion width (so 0 for i8/u8/i16 after wrapping). f64 -> f16/bf16 rounds through f32
 *    (double rounding, as upstream). complex -> real takes the real part (upstream warns;
 *    op layer's job). */
#ifndef TN_KERNELS_ELEMENTWISE_H
#define TN_KERNELS_ELEMENTWISE_H

#include "core/iter.h"

/* A scalar parameter. Floating and complex loops read re (and im); integral and bool loops
 * read i. tn_scalar_f / tn_scalar_i fill both sides so either kind of loop can read it. */
typedef struct {
    double re, im;
    int64_t i;
} tn_scalar;

static inline tn_scalar tn_scalar_f(double v) { tn_scalar s = {v, 0.0, (int64_t)(v == v && v < 9.2e18 && v > -9.2e18 ? v : 0)}; return s; }
static inline tn_scalar tn_scalar_i(int64_t v) { tn_scalar s = {(double)v, 0.0, v}; return s; }
static inline tn_scalar tn_scalar_c(double re, double im) { tn_scalar s = {re, im, 0}; return s; }

/* ---- unary: data = {out, x} ------------------------------------------------------------- */
#define TN_UNARY_OPS(X)                                                                          \
    X(NEG, neg) X(ABS, abs) X(SQUARE, square) X(RECIPROCAL, reciprocal) X(SIGN, sign)            \
    X(EXP, exp) X(EXP2, exp2) X(EXPM1, expm1) X(LOG, log) X(LOG2, log2) X(LOG10, log10)          \
    X(LOG1P, log1p) X(SQRT, sqrt) X(RSQRT, rsqrt)                                                \
    X(SIN, sin) X(COS, cos) X(TAN, tan) X(ASIN, asin) X(ACOS, acos) X(ATAN, atan)                \
    X(SINH, sinh) X(COSH, cosh) X(TANH, tanh) X(ASINH, asinh) X(ACOSH, acosh) X(ATANH, atanh)    \
    X(ERF, erf) X(ERFC, erfc) X(SIGMOID, sigmoid) X(LOGIT, logit) X(RELU, relu) X(SILU, silu)    \
    X(GELU, gelu) X(GELU_TANH, gelu_tanh) X(MISH, mish) X(HARDSIGMOID, hardsigmoid)              \
    X(HARDSWISH, hardswish) X(SOFTPLUS, softplus)                                                \
    X(CEIL, ceil) X(FLOOR, floor) X(ROUND, round) X(TRUNC, trunc) X(FRAC, frac)                  \
    X(LOGICAL_NOT, logical_not) X(BITWISE_NOT, bitwise_not)                                      \
    X(ISNAN, isnan) X(ISINF, isinf) X(ISFINITE, isfinite) X(ISPOSINF, isposinf)                  \
    X(ISNEGINF, isneginf) X(SIGNBIT, signbit)                                                    \
    X(DIGAMMA, digamma) X(TRIGAMMA, trigamma) X(LGAMMA, lgamma) X(POLYGAMMA, polygamma)

typedef enum {
#define TN_X(E, n) TN_UNARY_##E,
    TN_UNARY_OPS(TN_X)
#undef TN_X
    TN_UNARY_COUNT
} tn_unary_op;

extern const char *const tn_unary_names[TN_UNARY_COUNT];
/* Output dtype of unary op on input dt (bool for logical_not / is* / signbit, real for abs of
 * complex, else dt). */
tn_dtype tn_unary_out_dtype(tn_unary_op op, tn_dtype dt);
tn_loop tn_unary_loop(tn_unary_op op, tn_dtype dt);
/* softplus(beta, threshold) and logit(eps) take ctx = const tn_unary_params* (NULL: beta 1,
 * threshold 20; logit without eps). */
typedef struct { double beta, threshold, eps; bool has_eps; } tn_unary_params;
/* polygamma(n, x) takes ctx = const int64_t * (n >= 0). */

/* ---- binary: data = {out, a, b} ---------------------------------------------------------- */
#define TN_BINARY_OPS(X)                                                                         \
    X(ADD, add) X(SUB, sub) X(MUL, mul) X(DIV, div) X(DIV_TRUNC, div_trunc)                      \
    X(DIV_FLOOR, div_floor) X(REMAINDER, remainder) X(FMOD, fmod) X(POW, pow)                    \
    X(MAXIMUM, maximum) X(MINIMUM, minimum) X(FMAX, fmax) X(FMIN, fmin)                          \
    X(ATAN2, atan2) X(HYPOT, hypot) X(COPYSIGN, copysign) X(NEXTAFTER, nextafter)                \
    X(LOGADDEXP, logaddexp) X(XLOGY, xlogy)                                                      \
    X(EQ, eq) X(NE, ne) X(LT, lt) X(LE, le) X(GT, gt) X(GE, ge)                                  \
    X(LOGICAL_AND, logical_and) X(LOGICAL_OR, logical_or) X(LOGICAL_XOR, logical_xor)            \
    X(BITWISE_AND, bitwise_and) X(BITWISE_OR, bitwise_or) X(BITWISE_XOR, bitwise_xor)            \
    X(LSHIFT, lshift) X(RSHIFT, rshift)

typedef enum {
#define TN_X(E, n) TN_BINARY_##E,
    TN_BINARY_OPS(TN_X)
#undef TN_X
    TN_BINARY_COUNT
} tn_binary_op;

extern const char *const tn_binary_names[TN_BINARY_COUNT];
tn_dtype tn_binary_out_dtype(tn_binary_op op, tn_dtype dt); /* bool for compare/logical */
/* ctx: const tn_scalar* alpha for ADD/SUB (NULL = 1), NULL otherwise. */
tn_loop tn_binary_loop(tn_binary_op op, tn_dtype dt);
/* Tensor op Python-number: data = {out, a}; ctx = const tn_scalar* (the number). Supported
 * for ADD, SUB (alpha = 1), MUL, DIV, DIV_FLOOR on every dtype tn_binary_loop supports, and
 * DIV_TRUNC on floating dtypes; on f16/bf16 MUL/DIV/DIV_FLOOR/DIV_TRUNC keep the number as f32
 * (upstream's opmath scalar), ADD/SUB round it to the dtype first; elsewhere it is converted to
 * dt. NULL for other ops. */
tn_loop tn_binary_scalar_loop(tn_binary_op op, tn_dtype dt);
/* pow(Tensor, Scalar) for floating / complex dt: data = {out, a}; ctx = const tn_scalar*
 * exponent (converted to dt first, as upstream). Integral dt: exponent read from .i. */
tn_loop tn_pow_scalar_loop(tn_dtype dt);

/* ---- ternary ------------------------------------------------------------------------------ */
/* where: data = {out, cond (bool), a, b}, ctx NULL. Any computable dt (copies bytes). */
tn_loop tn_where_loop(tn_dtype dt);

/* clamp with scalar bounds: data = {out, x}; ctx = const tn_clamp_params*. A NaN in x or in a
 * present bound gives NaN; min > max gives max; ties keep x (clamp(-0., 0.) is -0.). */
typedef struct { bool has_min, has_max; tn_scalar min, max; } tn_clamp_params;
tn_loop tn_clamp_loop(tn_dtype dt);
/* clamp with tensor bounds: data = {out, x, min, max}; ctx = const tn_clamp_params* (only
 * has_min / has_max are read; an absent bound's pointer is never dereferenced). */
tn_loop tn_clamp_tensor_loop(tn_dtype dt);

/* ---- cast / copy / fill ------------------------------------------------------------------- */
/* data = {out (dst dtype), in (src dtype)}; every pair of computable dtypes and complex32;
 * dst == src is a plain copy. */
tn_loop tn_cast_loop(tn_dtype dst, tn_dtype src);
/* data = {out}; ctx points at one element already in dt (itemsize bytes). */
tn_loop tn_fill_loop(tn_dtype dt);
/* dst (rows x cols, contiguous) = src[i * rs + j * cs] (strides in elements) for elements of
 * `size` 4 or 8 bytes: a copy of a transposed view, in square tiles so both sides are read and
 * written a cache line at a time; rows shared over the thread pool (a copy: no result depends on
 * the thread count). */
void tn_transpose_copy(int64_t rows, int64_t cols, int size, const char *src, int64_t rs, int64_t cs, char *dst);

/* Elementwise loops get a second body compiled for AVX + FMA (256-bit vectors; fma() becomes one
 * instruction), picked once at load time on CPUs that have it, as kernels/ref/gemm.c does. ISO C
 * mode never contracts a * b + c, so both bodies compute the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TN_EW_CLONES __attribute__((target_clones("fma", "default")))
#else
#define TN_EW_CLONES
#endif

#endif
