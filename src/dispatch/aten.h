/* aten.h — the typed C op API: how C code (composites, backward formulas, decompositions, the
 * engine) calls an operator (docs/ARCHITECTURE.md, "Calling ops from C").
 *
 * tools/gen_aten_api.py generates one function per aten overload row (implemented or not: a
 * row without a kernel decomposes at the door or refuses by name, as from Python),
 * tn_at_<name>_<overload>(...) (tn_aten_gen.h), with one typed C parameter per schema argument
 * in schema order. Each fills the door's argument array with the builders below and calls
 * tn_door_call, so every call from C passes the door (autograd recording, dispatch modes) exactly
 * as a Python call does. Results are new references, NULL with an exception set. A NULL object
 * argument means the schema's default (None for an optional argument); a call made while an
 * exception is pending (an argument expression failed) fails without running. */
#ifndef TN_DISPATCH_ATEN_H
#define TN_DISPATCH_ATEN_H

#include "dispatch/door.h"
#include "dispatch/args.h"

/* Scalar / Scalar?: a C number, or a Python object (a number or a 0-dim tensor). */
typedef struct {
    enum { TN_S_DEFAULT, TN_S_NONE, TN_S_DOUBLE, TN_S_INT, TN_S_BOOL, TN_S_OBJ, TN_S_VALUE } kind;
    union { double d; int64_t i; PyObject *o; const tn_value *v; } u;
} tn_scalar_arg;
#define TN_SD(x) ((tn_scalar_arg){TN_S_DOUBLE, {.d = (double)(x)}})
#define TN_SI(x) ((tn_scalar_arg){TN_S_INT, {.i = (int64_t)(x)}})
#define TN_SB(x) ((tn_scalar_arg){TN_S_BOOL, {.i = (x) ? 1 : 0}})
#define TN_SO(x) ((tn_scalar_arg){TN_S_OBJ, {.o = (x)}})
#define TN_SV(x) ((tn_scalar_arg){TN_S_VALUE, {.v = (x)}})     /* a parsed Scalar (const tn_value *) */
#define TN_SDEF ((tn_scalar_arg){TN_S_DEFAULT, {.i = 0}})   /* the schema's default */
#define TN_SNONE ((tn_scalar_arg){TN_S_NONE, {.i = 0}})     /* None (Scalar?) */

/* int[N] / SymInt[] / bool[N] (and their ? forms): a C array (bools as 0 / 1), or a Python
 * sequence (or None). */
typedef struct { const int64_t *v; int n; PyObject *py; const tn_value *val; } tn_ints;
#define TN_IS(...) ((tn_ints){(const int64_t[]){__VA_ARGS__}, \
                              (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), NULL, NULL})
#define TN_IN(p, n) ((tn_ints){(p), (int)(n), NULL, NULL})
#define TN_IS0 ((tn_ints){NULL, 0, NULL, NULL})        /* [] */
#define TN_IPY(o) ((tn_ints){NULL, 0, (o), NULL})
#define TN_IDEF ((tn_ints){NULL, -1, NULL, NULL})      /* the schema's default (None for int[]?) */
#define TN_INONE TN_IPY(Py_None)                      /* None (int[]?) */
/* int[] / int[]? / bool[N] as a parsed value holds it, passed as it is (a list, None, or the bare
 * int of a fixed-size list's scalar default, `int[3] padding=0`) */
static inline tn_ints tn_ints_of(const tn_value *v) { return (tn_ints){NULL, 0, NULL, v}; }

/* Tensor[] / Tensor?[]: C array of tensors (NULL elements: None), or a Python sequence. */
typedef struct { PyObject *const *v; int n; PyObject *py; } tn_tensors;
#define TN_TS(...) ((tn_tensors){(PyObject *const[]){__VA_ARGS__}, \
                                 (int)(sizeof((PyObject *const[]){__VA_ARGS__}) / sizeof(PyObject *)), NULL})
#define TN_TPY(o) ((tn_tensors){NULL, 0, (o)})

/* str / str?: a parsed string argument as a C string (NULL for None; NULL with an exception when
 * it cannot be encoded, which fails the call it is given to). */
static inline const char *tn_str_of(const tn_value *v) {
    return v->tag == TN_V_STR ? PyUnicode_AsUTF8AndSize(v->u.obj, NULL) : NULL;
}

/* int? / SymInt? from a parsed value: a pointer to its int, NULL for None. */
static inline const int64_t *tn_opt_int_of(const tn_value *v) { return v->tag == TN_V_INT ? &v->u.i : NULL; }

/* int?, float?, bool?: a pointer to the value, NULL for None. */
#define TN_I(x) (&(const int64_t){(int64_t)(x)})
#define TN_F(x) (&(const double){(double)(x)})
#define TN_B(x) (&(const bool){(x) ? true : false})

/* The torch.dtype object of a tn_dtype (borrowed): a ScalarType argument. */
#define TN_DT(d) (tn_py.dtypes[(d)])

/* One call being built: the door's arguments and what they own. The first failure is kept and
 * later builders do nothing; tn_call_end then returns NULL. */
typedef struct {
    int op;
    const tn_schema *s;
    bool failed;
    tn_args a;
} tn_call;

int tn_call_begin(tn_call *c, int op);
void tn_call_obj(tn_call *c, int i, PyObject *o);        /* Tensor, Tensor?, dtype, device, ... */
void tn_call_tensors(tn_call *c, int i, tn_tensors t);
void tn_call_int(tn_call *c, int i, int64_t x);
void tn_call_optint(tn_call *c, int i, const int64_t *x);
void tn_call_float(tn_call *c, int i, double x);
void tn_call_optfloat(tn_call *c, int i, const double *x);
void tn_call_bool(tn_call *c, int i, bool x);
void tn_call_optbool(tn_call *c, int i, const bool *x);
void tn_call_scalar(tn_call *c, int i, tn_scalar_arg x);
void tn_call_ints(tn_call *c, int i, tn_ints x);
void tn_call_str(tn_call *c, int i, const char *x);
PyObject *tn_call_end(tn_call *c);

/* The adapter from tn_value[]: op row `op` with its first n arguments given as parsed values (the
 * rest take the schema's defaults), through the door. For calls whose overload is chosen at run
 * time from a node's own arguments (a pooling or interpolation family's backward). */
PyObject *tn_call_row(int op, const tn_value *args, int n);
static inline tn_value tn_tensor_value(PyObject *t) {
    tn_value v = {.tag = t ? TN_V_TENSOR : TN_V_NONE};
    v.u.obj = t;
    return v;
}
static inline tn_value tn_ints_value(const int64_t *p, int n) {
    tn_value v = {.tag = TN_V_INTLIST};
    v.u.ints.v = (int64_t *)p;   /* read only: the door's values are not written */
    v.u.ints.n = n;
    return v;
}

#include "tn_aten_gen.h"

/* a + b and a - b with the default alpha (upstream's Tensor operators + and -), new references;
 * NULL when either operand is NULL (an earlier call failed, its exception pending). Declared here
 * too: tn_aten_gen.h includes this header before its own declarations. */
PyObject *tn_at_add_Tensor(PyObject *self, PyObject *other, tn_scalar_arg alpha);
PyObject *tn_at_sub_Tensor(PyObject *self, PyObject *other, tn_scalar_arg alpha);
static inline PyObject *tn_add_tt(PyObject *a, PyObject *b) { return a && b ? tn_at_add_Tensor(a, b, TN_SDEF) : NULL; }
static inline PyObject *tn_sub_tt(PyObject *a, PyObject *b) { return a && b ? tn_at_sub_Tensor(a, b, TN_SDEF) : NULL; }

#endif
