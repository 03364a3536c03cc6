/* args.h — the parse: Python arguments matched against upstream schemas, into tn_value arrays. */
#ifndef TN_DISPATCH_ARGS_H
#define TN_DISPATCH_ARGS_H

#include "dispatch/door.h"
#include "core/pystate.h"

#define TN_MAX_ARGS 40

/* Everything one parse owns: values, wrapped-number tensors and int/float list storage. */
typedef struct {
    tn_value v[TN_MAX_ARGS];
    PyObject *owned[TN_MAX_ARGS];   /* references released by tn_args_release */
    int nowned;
    int64_t ints[TN_MAX_ARGS * 8];  /* backing store for short int lists */
    int nints;
    void *heap[4];                  /* longer lists */
    int nheap;
    PyObject *out;                  /* the out= object (tensor or tuple) when given */
    const char *accel;              /* TN_PARSE_ACCEL: the accelerator backend a Device argument named */
} tn_args;

enum { TN_PARSE_OK = 0, TN_PARSE_NOMATCH = 1, TN_PARSE_ERROR = -1 };

/* Parse flags (or-ed):
 * TN_PARSE_NUMBERS_AS_TENSORS: Python numbers may fill Tensor parameters (wrapped numbers),
 *   except the first parameter unless TN_PARSE_NUMBER_SELF is also given;
 * TN_PARSE_TENSORS_AS_SCALARS: 0-dim tensors may fill Scalar parameters (upstream tries Tensor
 *   overloads first, so callers give this only once no overload matched without it). */
enum { TN_PARSE_NUMBERS_AS_TENSORS = 1, TN_PARSE_TENSORS_AS_SCALARS = 2, TN_PARSE_NUMBER_SELF = 4,
       TN_PARSE_ATEN = 8, TN_PARSE_ATEN_LOOSE = 16, TN_PARSE_ACCEL = 32 };
/* TN_PARSE_ATEN: torch.ops.aten rules: out parameters may also be given by their own names
 * (min=, min_indices=), and Tensor?[] lists take None elements; without it (upstream's Python
 * bindings) a Tensor?[] element that is not a tensor raises TypeError.
 * TN_PARSE_ATEN_LOOSE (with TN_PARSE_ATEN, one overload named, once the strict pass failed): the
 * conversions upstream's toIValue makes for a torch.ops call (args.c, aten_loose).
 * TN_PARSE_ACCEL: a Device argument naming an accelerator upstream's dispatcher reports as a
 *   missing backend (tn_py_device_backend: cuda, xpu, mps ...) binds as the CPU, its dispatch key
 *   name left in out->accel for the caller to refuse (torch.ops factories: python/functions.c). */

/* Match (self, args, kwargs) to schema `s`. self is the bound tensor for methods, or NULL; it
 * binds the parameter named "self" (where(Tensor condition, Tensor self, ...)), else the first.
 * Without a bound self, the keyword "input" names the parameter "self".
 * Returns TN_PARSE_OK, TN_PARSE_NOMATCH (nothing raised) or TN_PARSE_ERROR (exception set). */
int tn_args_parse(const tn_schema *s, PyObject *self, PyObject *args, PyObject *kw,
                  int flags, tn_args *out);

void tn_args_release(tn_args *a);

/* For the typed C op API (dispatch/aten.c): one Python object for parameter p, as a call from
 * C binds it (numbers fill Tensor parameters as wrapped numbers, 0-dim tensors fill Scalars):
 * 1 bound, 0 the wrong type (nothing raised), -1 error. The schema's default for p (None when it
 * has none): 0, or -1 with an exception. Storage the parse owns: n int64 slots (NULL when full),
 * a reference to release (0, or -1: then o is released). */
int tn_args_convert(const tn_arg *p, PyObject *o, tn_args *a, tn_value *v);
int tn_args_default(const tn_arg *p, tn_args *a, tn_value *v);
/* Whether torch.ops would take Python object o for parameter p, by the conversions of a
 * TN_PARSE_ATEN_LOOSE parse (numbers fill Tensors when numbers_as_tensors, a Scalar refuses a
 * tensor): 1 yes, 0 no, -1 error. Lets functions.c word upstream's schema-matching error for one
 * parameter. */
int tn_args_aten_convertible(const tn_arg *p, PyObject *o, bool numbers_as_tensors);
int64_t *tn_args_int_store(tn_args *a, Py_ssize_t n);
int tn_args_own(tn_args *a, PyObject *o);

bool tn_value_is_default(const tn_arg *p, const tn_value *v);

/* Value helpers for op functions. */
bool tn_value_is_number(const tn_value *v);
double tn_value_as_double(const tn_value *v);

#endif
