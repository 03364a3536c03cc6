/* ops/common.h — what every op function shares: type promotion, allocation, out= handling,
 * running a kernel over broadcast operands, and argument access.
 *
 * An op function has the signature `PyObject *tn_op_<name>_<overload>(tn_value *args)` with args
 * laid out as the overload's schema (upstream's native_functions.yaml). It validates, promotes,
 * allocates and then runs kernels (which cannot fail). It raises upstream's exception types. */
#ifndef TN_OPS_COMMON_H
#define TN_OPS_COMMON_H

#include "core/iter.h"
#include "dispatch/aten.h"
#include "dispatch/door.h"
#include "kernels/elementwise.h"
#include "dispatch/args.h"
#include "core/object.h"

#include <string.h>

/* ---- argument access ---- */
#define TN_T(v) tn_tensor_of((v).u.obj)            /* tn_tensor* of a TN_V_TENSOR value */
static inline bool tn_is_none(const tn_value *v) { return v->tag == TN_V_NONE; }

/* ---- linear ---- */
/* Whether upstream's linear(input, weight, bias) computes addmm on the input folded to 2-D (the bias,
 * as given, expanded to the (rows, out_features) result, which a non-2-D result views) rather than
 * matmul, then output.add_(bias) in place: a 2-D input, or a contiguous one whose bias is 1-D, or
 * 1-D once squeezed (measured: its dispatch trace, and bias shapes for 1-, 3- and 4-D inputs, contiguous or not,
 * docs/breadth_more2.md "session 39"); linear.out (out_form) for a 2-D input only. */
static inline bool tn_linear_fused(const tn_tensor *x, const tn_tensor *b, bool out_form) {
    int squeezed = 0;
    for (int i = 0; b && i < b->ndim; i++) squeezed += b->sizes[i] != 1;
    return b && x->ndim >= 1 && (x->ndim == 2 || (!out_form && tn_is_contiguous(x) && (b->ndim == 1 || squeezed == 1)));
}

/* ---- dims ---- */
/* Dimension `dim` of an ndim-dim tensor (0-dim counts as 1-dim), wrapped to [0, ndim); raises
 * upstream's IndexError. tn_wrap_dim_i gives an int. */
int tn_wrap_dim(int64_t dim, int ndim, int64_t *out);
/* upstream's t.size(dim) read before an op's own checks: 0 when it exists, else -1 with its
 * IndexError (a 0-d tensor has no dimension to read, whatever dim) */
int tn_size_read(const tn_tensor *t, int64_t dim);
/* upstream's CPU kernels read a SymInt[] argument as plain ints: an element below -2^62 (the
 * range c10::SymInt keeps for symbolic values) is refused, RuntimeError, before the op's own checks */
int tn_symints_concrete(const int64_t *v, int n);
static inline int tn_wrap_dim_i(int64_t dim, int ndim, int *out) {
    int64_t r;
    if (tn_wrap_dim(dim, ndim, &r) < 0) return -1;
    *out = (int)r;
    return 0;
}
/* Shape as upstream prints it in messages: "[2, 3]". */
void tn_shape_str(char *buf, size_t n, int ndim, const int64_t *sizes);
/* A new Python list of the n ints, or NULL with an exception. */
PyObject *tn_int_list(const int64_t *v, int n);
/* A number value as a 0-dim wrapped-number tensor value (new reference in out->u.obj); a tensor
 * value is passed through with a new reference. */
int tn_value_as_tensor(const tn_value *in, tn_value *out);

/* A reduction's dims value (NONE, INT, INTLIST) as a bit mask over t's dims; None reduces
 * everything, an empty list everything when `empty_all`, else nothing. IndexError for a dim out
 * of range, RuntimeError for a repeated one; -1 then. */
int tn_dims_mask(const tn_tensor *t, const tn_value *dv, bool empty_all, uint64_t *mask);

/* upstream's NotImplementedError for an operator without a Meta kernel called on meta tensors
 * (aten::<op>: attempted to run this operator with Meta tensors, ...); NULL */
PyObject *tn_meta_no_kernel(const char *op);

/* div's rounding_mode (None, "trunc", "floor"): 0 / 1 / 2, or -1 with upstream's error for another
 * string: RuntimeError, or on meta when `meta_ref` (upstream's Python reference checks it first)
 * ValueError. */
int tn_div_rounding_mode(const tn_value *mode, bool meta_ref);

/* The C++ type name upstream's messages print for a dtype ("float", "long int", "c10::Half"). */
const char *tn_dtype_cxx_name(tn_dtype d);

/* ---- dtypes ---- */
tn_dtype tn_promote_types(tn_dtype a, tn_dtype b);
/* upstream's should_fold for matmul(t1, t2) without out= (ops/linalg.c) */
bool tn_matmul_should_fold(PyObject *t1, PyObject *t2);
/* tn_promote_types with upstream's refusals (promoteTypes, measured): float8 with any other dtype,
 * uint16/32/64 with anything but itself or a floating dtype. RuntimeError and
 * TN_DTYPE_UNDEFINED then. */
tn_dtype tn_promote_types_checked(tn_dtype a, tn_dtype b);
/* upstream's result_type over tensors and wrapped numbers (values of tag TENSOR or numbers);
 * TN_DTYPE_UNDEFINED with RuntimeError set when a promotion it makes is refused (above). */
tn_dtype tn_result_type(int n, const tn_value *vals);
/* The dtype a Python number value would have as a wrapped tensor: bool/int64/float64/complex128. */
tn_dtype tn_number_dtype(const tn_value *v);
/* add / sub's alpha against the common dtype ct: upstream's alpha_check (bool alpha only for a
 * bool result, no floating or complex alpha for integral ones, no complex alpha for real ones),
 * then the kernel's alpha.to<scalar_t>() overflow check; none on a meta call. 0 or -1. target:
 * self in place, the out= tensor or NULL; when upstream's iterator refuses it (cast, in-place
 * shape against a and b's broadcast) that error comes first, so no alpha check here. */
/* Would upstream's Scalar::to<T>() refuse number v for dtype dt? 0, or -1 with its RuntimeError
 * ("value cannot be converted to type T without overflow") set (ops/create.c). */
int tn_cr_check_scalar(const tn_value *v, tn_dtype dt);
/* fill_(t, v) with that check first (upstream's fill_ of a number; ops/create.c). 0 or -1. */
int tn_cr_fill_checked(PyObject *t, const tn_value *v);
/* upstream's zero_ (ops/create.c): a small dense CPU tensor memset whatever its dtype, else fill_(0) */
int tn_cr_zero_fill(PyObject *t);
/* upstream's to_will_alias (ops/convert.c): Tensor.to returns self rather than a copy. mf: a
 * memory format object, None or NULL. */
bool tn_to_will_alias(const tn_tensor *t, tn_dtype dt, tn_device_type dev, bool copy, PyObject *mf);
/* A kernel's scalar.to<T>() of a Scalar argument v once it dispatched on dtype ct: T is ct
 * itself, or with `opmath` ct's opmath type (float for Half / BFloat16, complex<float> for
 * ComplexHalf), as the kernel takes it; nothing is checked for a missing v or on a meta call
 * (upstream's meta functions convert no scalar). 0, or -1 with tn_cr_check_scalar's error. */
int tn_check_kernel_scalar(const tn_value *v, tn_dtype ct, bool opmath);
/* A factory's dtype / layout / device / pin_memory values -> dtype and device (defaults given);
 * -1 with upstream's error for pin_memory=True, NotImplementedError for a non-strided layout
 * (ops/create.c). */
int tn_cr_options(const tn_value *dtype, const tn_value *layout, const tn_value *device, const tn_value *pin,
                  tn_dtype def_dtype, tn_device_type def_dev, tn_dtype *dt, tn_device_type *dev);
/* ones / zeros / full and their _like forms as upstream's kernels make them, empty then fill_,
 * through the door, while profiling (ops/create.c); *handled false for other ops and calls. */
PyObject *tn_create_profiled(int op, tn_value *a, bool *handled);
/* Python's ValueError for unpacking `got` values into `expected` names (upstream's Python meta
 * functions unpacking a shape or a list): "not enough values to unpack (expected 4, got 2)" /
 * "too many values to unpack (expected 4)". Returns -1. */
int tn_py_unpack_error(int expected, int64_t got);
/* The references' check of a Python number argument against a tensor's dtype (utils.
 * is_weakly_lesser_type of its type and dtype_to_type(dt)): ValueError "<what> argument of type
 * <class 'float'> cannot be safely cast to type <class 'int'>!". 0, or -1 with the exception. */
int tn_ref_weak_type_check(const char *what, const tn_value *v, tn_dtype dt);
int tn_alpha_check(tn_dtype ct, const tn_value *alpha, PyObject *target, bool inplace, const tn_value *a,
                   const tn_value *b);
/* Refuse dtypes without kernels: NotImplementedError naming the op and dtype. */
int tn_require_computable(const char *op, tn_dtype dt);
/* upstream's empty_like / empty_strided of a strided result in a quantized dtype (sum(x,
 * dtype=torch.qint8), x.to(torch.qint8), softmax's cast ...): "empty_strided not supported on
 * quantized tensors yet ..." (RuntimeError), on meta the dispatcher's QuantizedMeta refusal
 * (NotImplementedError); 0 for any other dtype, else -1 with the error set */
int tn_require_unquantized_result(tn_dtype dt);
int tn_require_castable(const char *op, tn_dtype dt);
/* Can values of `from` be cast to `to` without changing category (upstream's canCast)? */
bool tn_can_cast(tn_dtype from, tn_dtype to);
/* The four floating dtypes nn kernels take (f32, f64, f16, bf16), and the dtype they compute in
 * (f64 for f64, else f32). */
static inline bool tn_nn_float(tn_dtype d) {
    return d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_F16 || d == TN_DTYPE_BF16;
}
static inline tn_dtype tn_nn_compute(tn_dtype d) { return d == TN_DTYPE_F64 ? TN_DTYPE_F64 : TN_DTYPE_F32; }
/* upstream's message for a kernel without this dtype: NotImplementedError("\"name\" not
 * implemented for 'Dtype'"). Returns NULL. */
PyObject *tn_kernel_missing(const char *kname, tn_dtype dt);
/* the same for upstream's kernels named "<name>_cpu" */
PyObject *tn_kernel_missing_cpu(const char *name, tn_dtype dt);
PyObject *tn_binary_kernel_missing(tn_binary_op op, bool reduced_float_scalar, tn_dtype dt);
/* RuntimeError "result type X can't be cast to the desired output type Y" (out= / in-place) */
PyObject *tn_cast_error(tn_dtype from, tn_dtype to);

/* ---- tensors ---- */
/* A contiguous copy of `t` converted to dtype (cast), or a new reference to t itself when it is
 * already that dtype (and contiguous if `contig`). */
PyObject *tn_as_dtype(PyObject *t, tn_dtype dtype, bool contig);
/* Copy src into dst, broadcasting src to dst's shape and casting. dst's memory may not overlap
 * src's in ways that matter (caller's job). Raises on shape mismatch. */
int tn_copy_into(PyObject *dst, PyObject *src);
/* A structured kernel's out= check (upstream's set_output): `out` (NULL: no out=) must have exactly
 * dtype dt. 0, or -1 with upstream's RuntimeError. */
int tn_out_dtype_exact(PyObject *out, tn_dtype dt);
/* tn_out_deliver after a structured op's set_output check: out= must have the result's dtype
 * exactly ("Expected out tensor to have dtype ..."), no cast (docs/breadth_more2.md). */
PyObject *tn_out_deliver_exact(PyObject *res, PyObject *out, const char *op);
/* tn_out_deliver (after tn_out_deliver_exact's dtype check when exact) once out= as resized has no
 * internal overlap (tn_out_overlap_as_resized): upstream's kernels that write out= through a
 * TensorIterator or copy_ after resizing it (measured: docs/breadth_more2.md "third pass") */
PyObject *tn_out_deliver_overlap(PyObject *res, PyObject *out, const char *op, bool exact);
/* The same check in the words of upstream's kernels that compare out='s dtype themselves (elu.out,
 * conj_physical.out): "Found dtype <out's> but expected <dt>". */
int tn_out_dtype_found(PyObject *out, tn_dtype dt);
/* upstream's is_non_overlapping_and_dense (what .to(dtype) keeps the strides of) */
bool tn_dense_non_overlapping(const tn_tensor *t);
/* A linalg out= check (upstream's checkLinalgCompatibleDtype): `out` must be safely castable from
 * dtype `from`. 0, or -1 with upstream's RuntimeError naming `api`. */
int tn_out_linalg_castable(const char *api, tn_dtype from, PyObject *out);
/* The same naming the out tensor `name` ("solution", "rank", ...) instead of "result". */
int tn_out_linalg_castable_named(const char *api, const char *name, tn_dtype from, PyObject *out);
/* Broadcast shapes of n tensors; RuntimeError naming the mismatch on failure. */
int tn_broadcast_shapes_checked(int na, const int64_t *a, int nb, const int64_t *b, int *nout, int64_t *out);
int tn_broadcast_tensors_shape(int n, const tn_tensor *const *ts, int *ndim, int64_t *shape);
/* Fill every element of t with the number v (converted to t's dtype). */
int tn_fill_number(PyObject *t, const tn_value *v);

/* A new dense tensor with explicit strides (a permutation of a contiguous layout), not a view. */
PyObject *tn_tensor_new_strided(int ndim, const int64_t *sizes, const int64_t *strides, tn_dtype dt);
/* A new uninitialised tensor with explicit strides, storage sized to the furthest element
 * (aten::empty_strided; ops/create.c). */
PyObject *tn_cr_empty_strided(int nd, const int64_t *sizes, const int64_t *strides, tn_dtype dt, tn_device_type dev);
/* A new uninitialised tensor shaped like t in memory format mf (NULL / None / preserve: upstream's
 * preserve rule; channels_last needs rank 4, channels_last_3d rank 5: upstream's error) */
PyObject *tn_cr_empty_like(const tn_tensor *t, PyObject *mf, tn_dtype dt, tn_device_type dev);
/* The value of a 0-dim tensor as a kernel scalar (exact; via float64 for other real dtypes). */
int tn_scalar_of_0dim(PyObject *t, tn_scalar *out);

/* ---- out= ---- */
/* Make `out` (a given out= tensor) ready to hold a result of `sizes` and `dtype`: checks that the
 * result dtype can be cast to out's dtype, resizes out the way upstream resizes (warning when a
 * non-empty out changes shape). Returns 0 or -1 with an exception. */
int tn_out_prepare(PyObject *out, int ndim, const int64_t *sizes, tn_dtype result_dtype, const char *op);
/* The references' out wrapper as upstream's Python Meta kernels run it (_maybe_resize_out, then
 * _safe_copy_out's safe-cast check: "Attempting to cast from torch.X to out tensor with dtype
 * torch.Y, ..."), for a call on meta (no data is copied); restride: out then takes res's strides
 * (meta_sort's as_strided_). Returns a new reference to out, or NULL. Does not steal res. */
PyObject *tn_meta_copy_out(PyObject *res, PyObject *out, bool restride);
/* That safe-cast check alone (_safe_copy_out): 0, or -1 with the RuntimeError. */
int tn_ref_safe_cast(tn_dtype from, tn_dtype to);
/* On meta, upstream's as_strided / as_strided_copy / as_strided_scatter check no storage bounds
 * (a meta storage has no bytes; docs/breadth_more2.md "group meta2 (session 40)"): the CPU
 * storage `s` the op runs on (a stand-in or the op's own clone) grows, zero-filled, to the
 * view's extent of sizes / strides / offset, so the view's reads stay inside it. 0, or -1 with
 * an exception (the extent overflows, or the storage cannot grow). */
int tn_meta_cover_view(tn_storage *s, int ndim, const int64_t *sizes, const int64_t *strides, int64_t offset, tn_dtype dt);
/* Deliver a computed result: with no out= tensor, `res` itself; else `res` copied into `out`
 * after tn_out_prepare (named `op` in messages), returning a new reference to out. Steals res
 * (NULL passes through). */
PyObject *tn_out_deliver(PyObject *res, PyObject *out, const char *op);
/* A torch.return_types.<name> structseq of (a, b); steals both (NULL if either is NULL). */
PyObject *tn_return_pair(const char *name, PyObject *a, PyObject *b);
/* Resize a tensor in place to contiguous `sizes`, growing its storage if needed. */
int tn_resize(PyObject *t, int ndim, const int64_t *sizes);

/* ---- elementwise drivers ---- */
/* Run `loop` producing `out` (operand 0) from inputs (already of the loop's compute dtype; they
 * are broadcast to out's shape). From 2 * TN_ITER_GRAIN elements up, releases the GIL and splits
 * the elements over the thread pool (core/iter.h: tn_iter_run_parallel), so `loop` must be
 * elementwise and Python-free; order-dependent loops (random draws) must not come here. */
void tn_run_loop(tn_loop loop, const void *ctx, PyObject *out, int nin, PyObject *const *ins);

/* A new result tensor of `shape` laid out the way upstream's TensorIterator lays out outputs it
 * allocates: contiguous when the inputs are, else following the inputs' stride order (a unary op
 * on x.t() gives a transposed-layout result). ins are the original (uncast) inputs in operand
 * order; 0-dim and broadcast dimensions have no say. */
/* Upstream's TensorIterator memory-overlap checks for a written-to tensor `dst` (in-place self or
 * out=) against the inputs: RuntimeError when dst has internal overlap (an expanded dim) or
 * partially overlaps an input (same memory, not exactly the same elements). Only what upstream
 * can decide cheaply (dense tensors) is judged; anything else passes, as upstream's TOO_HARD. */
int tn_check_overlap(PyObject *dst, int nin, PyObject *const *ins);
/* tn_check_overlap on an out= tensor as upstream's resize_output leaves it: one of the result's
 * sizes (ndim, sizes) is kept and checked; another is resized to a fresh contiguous layout, which
 * passes (measured: cumsum.out, mean.out, softmax.int_out of an expanded out, docs/breadth_more2.md
 * "third pass") */
int tn_out_overlap_as_resized(PyObject *out, int ndim, const int64_t *sizes, int nin, PyObject *const *ins);
/* The same where upstream asserts no overlap at all (assert_no_overlap: out= of kernels outside
 * TensorIterator, e.g. linalg_cross): an input that is exactly dst is refused too. */
int tn_check_no_overlap(PyObject *dst, int nin, PyObject *const *ins);
/* An in-place or out= op may write its result straight into `self` / out (no temporary, no copy)
 * when that gives what computing into a temporary and copying would: self's dtype is the result dtype rt,
 * self is dense without internal overlap, and each (already cast) input is in other memory or
 * is exactly self's elements. */
bool tn_inplace_direct(PyObject *self, tn_dtype rt, int nin, PyObject *const *ins);
PyObject *tn_new_result(int nd, const int64_t *shape, tn_dtype dtype, int nin, const tn_tensor *const *ins);

/* A binary elementwise op (a, b tensors, possibly wrapped numbers) following upstream:
 * compute dtype = result_type(a, b) (or `force_dtype` if not UNDEFINED), output dtype per the
 * kernel family, out= (NULL if none) or in-place (`inplace` = a) handled. ctx goes to the loop. */
PyObject *tn_binary(tn_binary_op op, const char *opname, tn_value *a, tn_value *b, PyObject *out,
                    bool inplace, const void *ctx);
/* A unary elementwise op with upstream's int->float promotion when `float_op`. */
PyObject *tn_unary(tn_unary_op op, const char *opname, tn_value *a, PyObject *out, bool inplace,
                   bool float_op, const void *ctx);

/* scaled_dot_product_attention's backend switches (upstream's global context flags, read and set
 * through torch.backends.cuda.enable_flash_sdp / enable_math_sdp and sdpa_kernel by
 * python/runtime_flags.c). On CPU upstream tries flash, then math, whatever the priority order
 * (measured: sdpa_kernel([MATH, FLASH_ATTENTION], set_priority=True) still runs flash). */
extern bool tn_sdp_flash_enabled, tn_sdp_math_enabled;
enum { TN_SDP_MATH = 0, TN_SDP_FLASH = 1 };
/* upstream's CPU backend choice for scaled_dot_product_attention(query, key, value, attn_mask,
 * dropout_p, is_causal, scale, enable_gqa) (ops/nn.c): TN_SDP_FLASH or TN_SDP_MATH, or -1 with
 * upstream's RuntimeError when no enabled backend can run */
int tn_sdpa_choice(const tn_value *a);

/* Return value for out=/in-place ops: a new reference to `t`. */
static inline PyObject *tn_return_same(PyObject *t) { return Py_NewRef(t); }

#endif
