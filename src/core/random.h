/* random.h — the CPU random-number generator, bit-identical to upstream torch 2.13.0.
 *
 * Upstream's CPU generator is a 32-bit Mersenne Twister (mt19937) plus two one-slot caches for
 * the second Box–Muller sample (double, and float). Everything here reproduces the numbers
 * upstream produces for the same seed, measured against torch 2.13.0 (tools/dev/check_random.py).
 * Pure C, no Python; the op layer owns argument checking, allocation, locking and errors.
 *
 * Facts measured on upstream (x86-64, MKL build, AVX512 capability):
 *  - Seeding: mt19937 state[0] = seed & 0xffffffff (the high 32 bits only survive in the stored
 *    initial seed), left = 1, next = 0; manual_seed clears both normal caches.
 *    torch.Generator() starts at seed 67280421310721 (TN_DEFAULT_RNG_SEED); the *default* global
 *    generator of a fresh process is seeded with a non-deterministic 64-bit value
 *    (torch.initial_seed() differs per process) — use tn_generator_seed_nondeterministic.
 *  - random64() = (first 32-bit draw << 32) | second draw.
 *  - get_rng_state(): 5056 bytes, little-endian: u64 initial_seed @0, i32 left @8,
 *    i32 seeded @12, u64 next @16, u64 state[624] @24 (each the u32 word widened),
 *    f64 normal_x @5016 (0), f64 normal_y @5024 (cached double normal), f64 normal_rho @5032 (0),
 *    i32 normal_is_valid @5040, 4 pad, f32 next_float_normal @5048, u8 valid @5052, 3 pad.
 *    set_rng_state accepts exactly 5056 bytes (else RuntimeError "Expected a
 *    CPUGeneratorImplState of size 5056 but found the input RNG state size to be N"); seeded==0,
 *    left outside 1..624 or next > 624 is RuntimeError "Invalid mt19937 state". On set, the
 *    cached double normal is normal_y when normal_is_valid (normal_x/rho are ignored), and the
 *    initial seed becomes the stored one.
 *  - Every fill consumes the stream serially in TensorIterator order. Measured for
 *    non-contiguous outputs (e.g. torch.empty(4,6).t().uniform_()): elements are filled in
 *    MEMORY order (TensorIterator sorts dims by stride, smallest innermost), not logical order.
 *    So the op layer may generate n values into a contiguous buffer with the same function and
 *    scatter them in memory order — EXCEPT normal_: upstream takes the chunked path only when the
 *    tensor is contiguous and numel >= 16; any non-contiguous output uses the scalar path, so
 *    call tn_rng_normal_serial_ for it. For bernoulli with a tensor p, iteration follows the
 *    output's memory order and p is read at the same logical element.
 *  - bernoulli_(scalar p) and exponential_ draw from the mt19937 stream (no MKL stream in 2.13).
 *  - Upstream's compiled kernels (AVX2/AVX512 capability, identical results) fuse
 *    `x * (to - from) + from` in uniform_ and `value * std + mean` in the scalar normal path into
 *    one fma; f32/f16/bf16 normal_ for contiguous numel >= 16 uses Cephes-polynomial log/sincos
 *    (avx_mathfun), not libm. We reproduce that. Upstream run with ATEN_CPU_CAPABILITY=default
 *    gives different last bits for uniform_(from, to) with from/to != 0/1 and for f32 randn.
 *
 * Dtypes: "float" = F32 F64 F16 BF16. Fill functions return 0, or -1 if the dtype is not one
 * upstream's CPU kernel dispatches for (the op layer should have refused already). n == 0 is
 * always a successful no-op: upstream returns before dispatching for empty tensors, so an empty
 * tensor of an unsupported dtype does not raise. */
#ifndef TN_CORE_RANDOM_H
#define TN_CORE_RANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dtype.h"

#define TN_MT_N 624
#define TN_DEFAULT_RNG_SEED UINT64_C(67280421310721)
#define TN_GENERATOR_STATE_SIZE 5056

typedef struct tn_generator {
    uint32_t state[TN_MT_N];
    int32_t left;          /* draws left before the next twist (1..624) */
    uint32_t next;         /* index of the next word to temper (0..624) */
    uint64_t seed;         /* initial seed, as reported by initial_seed() */
    bool seeded;
    bool has_next_double_normal;
    bool has_next_float_normal;
    double next_double_normal;
    float next_float_normal;
} tn_generator;

/* Seed with TN_DEFAULT_RNG_SEED (what torch.Generator() starts with). */
void tn_generator_init(tn_generator *g);
/* manual_seed: reset mt19937 from `seed`, clear both normal caches. */
void tn_generator_seed(tn_generator *g, uint64_t seed);
uint64_t tn_generator_initial_seed(const tn_generator *g);
/* A non-deterministic 64-bit value (getrandom / /dev/urandom, clock fallback). */
uint64_t tn_random_nondeterministic_u64(void);
/* Generator.seed(): seed with a non-deterministic 64-bit value and return it. */
uint64_t tn_generator_seed_nondeterministic(tn_generator *g);

/* Raw draws: one tempered mt19937 word; two words combined (first is the high half). */
uint32_t tn_generator_random(tn_generator *g);
uint64_t tn_generator_random64(tn_generator *g);

/* State in upstream's torch.get_rng_state() byte layout (see above). get_state writes
 * TN_GENERATOR_STATE_SIZE bytes if len is large enough and returns that size either way. */
size_t tn_generator_get_state(const tn_generator *g, uint8_t *out, size_t len);
#define TN_RNG_STATE_OK 0
#define TN_RNG_STATE_BAD_SIZE 1 /* "Expected a CPUGeneratorImplState of size 5056 but found ..." */
#define TN_RNG_STATE_INVALID 2  /* "Invalid mt19937 state" */
/* On error g is left unchanged. */
int tn_generator_set_state(tn_generator *g, const uint8_t *in, size_t len);

/* ---- fills over a contiguous buffer of n elements of dtype dt ---------------------------- */

/* uniform_(from, to), float dtypes. Reduced/f32 types draw 32 bits and keep 24 (f32 maths);
 * f64 draws 64 and keeps 53. A value that rounds to `to` in the dtype is replaced by `from`. */
int tn_rng_uniform_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double from, double to);

/* normal_(mean, std) for a contiguous tensor, float dtypes. n >= 16: upstream's chunked
 * Box–Muller (all n uniforms first, 16-wide transform, a tail that redraws the last 16);
 * f16/bf16 draw float uniforms in blocks of 16 and round the f32 result once. n < 16: the scalar
 * path (tn_rng_normal_serial_). */
int tn_rng_normal_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean, double std);
/* The scalar path: double Box–Muller with the generator's cached second sample, value * std +
 * mean in double, then cast (f16/bf16 via f32). Used for n < 16 and every non-contiguous tensor. */
int tn_rng_normal_serial_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean,
                          double std);
/* One scalar-path normal sample (mean 0, std 1 gives the raw Box–Muller value). */
double tn_rng_normal_double(tn_generator *g, double mean, double std);

/* random_(from, to) / randint: value = (T)(int64)(draw % range + base) with range = to - from
 * (as uint64, must be > 0) and base = from. Draw is 64-bit when range >= 2^28, else 32-bit.
 * Dtypes: every integer dtype incl. U16/U32/U64, BOOL, and float dtypes. */
int tn_rng_random_from_to_(tn_generator *g, void *data, int64_t n, tn_dtype dt, uint64_t range,
                           int64_t base);
/* Upstream's random_(from, to) argument handling (before the kernel), pure arithmetic.
 * has_to=false means to=None. Result codes:
 *   TN_RNG_BOUNDS_RANGE  use tn_rng_random_from_to_(range, base)
 *   TN_RNG_BOUNDS_FULL64 from == INT64_MIN and to=None: use tn_rng_random_full_64_ (only I64 F64
 *       F32 BF16; others raise "random_full_64_bits_range_kernel_cpu handles only int64, double,
 *       float and bfloat16" or "... not implemented for 'Bool'/'Half'/'UInt64'" upstream)
 *   errors (RuntimeError upstream; values for the message are left in b->from / b->to_inc):
 *   TN_RNG_BOUNDS_FROM_GE_TO      "random_ expects 'from' to be less than 'to', but got from=F >= to=T"
 *   TN_RNG_BOUNDS_CAST_FROM_GE_TO float dtypes after moving from/to to representable values:
 *       "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got
 *        from=F >= to=T" (to=None: "... 'from' casted to dtype to be less than or equal to
 *        'to_inc' casted to dtype, but got from=F > to_inc=T")
 *   TN_RNG_BOUNDS_FROM_OOB / TN_RNG_BOUNDS_TO_OOB  "from is out of bounds for <dtype>" /
 *       "to - 1 is out of bounds for <dtype>" (dtype printed as upstream's TypeMeta name, e.g.
 *       "short", "float", "c10::BFloat16").
 * b->warn bit 1 / bit 2: float dtypes only, from / to-1 outside [-(2^digits), 2^digits]: upstream
 * emits UserWarning "from is out of bounds [-(2^D), 2^D]. Due to precision limitations <dtype>
 * can support discrete uniform distribution only within this range. This warning will become an
 * error in version 1.7 release, please fix the code in advance" (resp. "to - 1 is ...").
 * Upstream checks in that order, then returns early for numel() == 0 (no kernel, no draws). */
typedef struct {
    uint64_t range;
    int64_t base;    /* == adjusted from */
    int64_t from;    /* adjusted from (float dtypes) */
    int64_t to_inc;  /* adjusted to - 1, or the dtype's inclusive max for to=None */
    int warn;
} tn_rng_bounds;
#define TN_RNG_BOUNDS_RANGE 0
#define TN_RNG_BOUNDS_FULL64 1
#define TN_RNG_BOUNDS_FROM_GE_TO (-1)
#define TN_RNG_BOUNDS_CAST_FROM_GE_TO (-2)
#define TN_RNG_BOUNDS_FROM_OOB (-3)
#define TN_RNG_BOUNDS_TO_OOB (-4)
#define TN_RNG_BOUNDS_BAD_DTYPE (-5)
int tn_rng_random_bounds(tn_dtype dt, int64_t from, bool has_to, int64_t to, tn_rng_bounds *b);
/* random_(from=INT64_MIN, to=None): (T)(int64)random64. Only I64, F64, F32, BF16 upstream. */
int tn_rng_random_full_64_(tn_generator *g, void *data, int64_t n, tn_dtype dt);
/* random_(): [0, max] for integers (I64 and F64 draw 64 bits, others 32), bool = draw & 1,
 * floats [0, 2^digits]. Dtypes: U8 I8 I16 I32 I64 F32 F64 F16 BF16 BOOL (not U16/U32/U64). */
int tn_rng_random_(tn_generator *g, void *data, int64_t n, tn_dtype dt);

/* bernoulli_(p) with a scalar p: per element a 53-bit double uniform u, out = (u < p).
 * Dtypes: all integer (U8 I8 I16 I32 I64), BOOL, float dtypes. */
int tn_rng_bernoulli_scalar_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double p);
/* bernoulli_(p_tensor) / torch.bernoulli(p): p holds n elements of p_dt (already expanded to the
 * output's shape, in the same element order). p_dt F64: double uniform (64-bit draw) < p;
 * p_dt F32/F16/BF16: p converted to float, float uniform (32-bit draw, 24 bits) < p. */
int tn_rng_bernoulli_tensor_(tn_generator *g, void *data, int64_t n, tn_dtype dt, const void *p,
                             tn_dtype p_dt);

/* exponential_(lambd), float dtypes: -1/lambd * log1p(-u) in double (u a 53-bit uniform), cast. */
int tn_rng_exponential_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double lambd);

/* cauchy_(median, sigma), float dtypes: median + sigma * tan(pi * (u - 0.5)) in double (u a 53-bit
 * uniform), cast (upstream's cauchy_distribution<double>). */
int tn_rng_cauchy_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double median, double sigma);
/* log_normal_(mean, std), float dtypes: exp of the double normal (Box-Muller with the generator's
 * cached second sample, as normal_distribution<double>), cast. */
int tn_rng_log_normal_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double mean, double std);
/* geometric_(p), float and integer dtypes: ceil(log(u) / log1p(-p)) in double, cast. */
int tn_rng_geometric_(tn_generator *g, void *data, int64_t n, tn_dtype dt, double p);

/* randperm(n) into a contiguous buffer of n elements of dt (any integer or float dtype that can
 * hold n-1). n < 2^32/20: identity then n-1 swaps with 32-bit draws (z = draw % (n - i));
 * larger n: inside-out Fisher–Yates with 64-bit draws. */
int tn_rng_randperm(tn_generator *g, void *data, int64_t n, tn_dtype dt);

/* multinomial(probs, num_samples, replacement) on CPU. probs: n_dist rows of n_cat contiguous
 * elements of dt (float dtypes); out: n_dist * n_sample int64, row-major.
 *  - replacement && n_sample > 1: per row, cumulative sums in dt (f32 for f16/bf16), divided by
 *    the sum, last bucket forced to 1; per sample a 53-bit double uniform and a binary search
 *    for the first bucket >= u.
 *  - otherwise (no replacement, or n_sample == 1): q = exponential_(1) over ALL rows first
 *    (n_dist*n_cat draws, stored in dt), q = p / q in dt, then per row argmax (n_sample == 1,
 *    first max) or topk (largest first).
 * Ties in p/q (practically only f16/bf16, k > 1) are ordered larger-first then lower index;
 * upstream's topk orders equal values as libstdc++ partial_sort/nth_element leave them, so those
 * orders can differ (same set of indices). The op layer may route the topk step through its own
 * topk kernel once that matches upstream.
 * scratch must hold tn_rng_multinomial_scratch_bytes(...) bytes. Input validation (negative,
 * inf/nan, zero rows, too few non-zero categories without replacement) is the op layer's. */
size_t tn_rng_multinomial_scratch_bytes(int64_t n_dist, int64_t n_cat, tn_dtype dt);
int tn_rng_multinomial(tn_generator *g, const void *probs, tn_dtype dt, int64_t n_dist,
                       int64_t n_cat, int64_t n_sample, bool replacement, int64_t *out,
                       void *scratch);

/* ---- torch.distributions samplers (upstream's Distributions.cpp / Distributions.h) ----------
 * One serial loop over n contiguous elements; per element 53-bit double uniforms and double
 * normals from the generator's scalar Box-Muller with its cached second sample
 * (tn_rng_normal_double), so a call leaves that cache as upstream's does. */
/* _standard_gamma: Marsaglia-Tsang (alpha < 1: one uniform first, scale pow(1 - u, 1 / alpha),
 * alpha + 1), result at least the dtype's smallest normal (NaN gives it too). F32 alpha computes
 * alpha, 1 / alpha and alpha - 1/3 in float, the rest in double; F64 all double. Only F32 / F64. */
int tn_rng_standard_gamma_(tn_generator *g, const void *alpha, void *out, int64_t n, tn_dtype dt);
/* One sample_gamma<double, double>(alpha) draw, before the clamp. */
double tn_rng_gamma_double(tn_generator *g, double alpha);
/* _sample_dirichlet's first pass: out[i] = max(DBL_MIN, gamma_double(alpha[i])), alpha F32 / F64. */
int tn_rng_dirichlet_gammas(tn_generator *g, const void *alpha, tn_dtype dt, double *out, int64_t n);
/* poisson: numpy's sampler (transformed rejection for rate >= 10, else products of uniforms) on the
 * rate widened to double, the int64 count cast to dt (float dtypes). Returns n, or the index of the
 * first rate that is negative or NaN (upstream raises there, after drawing for the ones before),
 * or -1 for another dtype. */
int64_t tn_rng_poisson_(tn_generator *g, const void *lambda, void *out, int64_t n, tn_dtype dt);
/* binomial(count, prob), F32 / F64 (count and prob already broadcast, contiguous): upstream's
 * sample_binomial (BTRS when count * p >= 10 with p = min(prob, 1 - prob), else geometric
 * inversion), with float elements' float steps kept in float. */
int tn_rng_binomial_(tn_generator *g, const void *count, const void *prob, void *out, int64_t n, tn_dtype dt);

#endif
