/* door.h — the single door every operator passes (DESIGN.md §3.1).
 *
 * Python spellings (torch.add, x.add, x + y, torch.ops.aten.add.Tensor) parse their arguments
 * against upstream's schemas into an array of tn_value, then call tn_door_call(op, args). The door
 * is where dispatch modes, __torch_dispatch__ and autograd recording attach; it then calls the op
 * function, which validates, promotes, allocates and runs kernels. Nothing calls an op function
 * around the door. */
#ifndef TN_DISPATCH_DOOR_H
#define TN_DISPATCH_DOOR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "core/tensor.h"
#include "dispatch/schema.h"

/* One parsed argument. Tensors are Python objects (borrowed from the caller's args or owned by
 * the parse buffer); wrapped Python numbers arrive as 0-dim tensors flagged `wrapped`. */
typedef enum {
    TN_V_NONE, TN_V_TENSOR, TN_V_INT, TN_V_FLOAT, TN_V_BOOL, TN_V_COMPLEX, TN_V_STR,
    TN_V_DTYPE, TN_V_LAYOUT, TN_V_DEVICE, TN_V_MEMFORMAT, TN_V_GENERATOR, TN_V_INTLIST,
    TN_V_FLOATLIST, TN_V_BOOLLIST, TN_V_TENSORLIST, TN_V_SCALARLIST, TN_V_OBJECT,
} tn_value_tag;

typedef struct {
    tn_value_tag tag;
    bool wrapped;          /* TN_V_TENSOR made from a Python number */
    bool defaulted;        /* filled from the schema's default, not given by the caller */
    bool uns;              /* INT: u.i holds the bits of an unsigned Scalar (a Python int in [2**63, 2**64)) */
    union {
        PyObject *obj;     /* TENSOR, STR (unicode), GENERATOR, OBJECT, TENSORLIST (a sequence), LAYOUT, MEMFORMAT */
        int64_t i;         /* INT, BOOL */
        double f;          /* FLOAT */
        struct { double re, im; } c;
        tn_dtype dtype;
        struct { tn_device_type type; int index; } device;
        struct { int64_t *v; int n; } ints;     /* INTLIST, BOOLLIST (0/1) */
        struct { double *v; int n; } floats;   /* FLOATLIST; SCALARLIST (layout below) */
    } u;
} tn_value;

/* A SCALARLIST of n elements holds 3n 8-byte slots: v[0..n) each value as a double (a complex's
 * real part), v[n..2n) an int's exact int64 bits or a complex's imaginary part, v[2n..3n) each
 * element's kind (TN_SL_*, stored as an int64), so `[1, 2.5, True, 1j]` keeps its Python types as
 * upstream's Scalar[] does. */
enum { TN_SL_FLOAT, TN_SL_INT, TN_SL_BOOL, TN_SL_COMPLEX };
static inline size_t tn_scalarlist_slots(const tn_value *v) {
    return (v->tag == TN_V_SCALARLIST ? 3 : 1) * (size_t)v->u.floats.n;
}
static inline int tn_scalarlist_kind(const tn_value *v, int i) {
    int64_t k;
    memcpy(&k, &v->u.floats.v[2 * v->u.floats.n + i], 8);
    return (int)k;
}
/* element i of a SCALARLIST as a scalar value (INT, BOOL, FLOAT or COMPLEX) */
static inline void tn_scalarlist_get(const tn_value *v, int i, tn_value *out) {
    memset(out, 0, sizeof *out);
    int n = v->u.floats.n, k = tn_scalarlist_kind(v, i);
    if (k == TN_SL_INT || k == TN_SL_BOOL) {
        out->tag = k == TN_SL_INT ? TN_V_INT : TN_V_BOOL;
        memcpy(&out->u.i, &v->u.floats.v[n + i], 8);
    } else if (k == TN_SL_COMPLEX) {
        out->tag = TN_V_COMPLEX;
        out->u.c.re = v->u.floats.v[i];
        out->u.c.im = v->u.floats.v[n + i];
    } else {
        out->tag = TN_V_FLOAT;
        out->u.f = v->u.floats.v[i];
    }
}

/* Whether a value holds a Python object in u.obj (a reference its owner must release). */
static inline bool tn_value_holds_object(tn_value_tag t) {
    return t == TN_V_TENSOR || t == TN_V_TENSORLIST || t == TN_V_OBJECT || t == TN_V_STR || t == TN_V_GENERATOR ||
           t == TN_V_LAYOUT || t == TN_V_MEMFORMAT;
}

typedef PyObject *(*tn_op_fn)(tn_value *args);

/* NO_PY_*: upstream's Python bindings do not expose the overload (torchgen's
 * should_generate_py_binding: *_backward, *_forward, copy, add.Scalar, generated out= ...); it
 * stays reachable through torch.ops.aten and from C. */
enum { TN_VARIANT_FUNCTION = 1, TN_VARIANT_METHOD = 2, TN_VARIANT_NO_PY_FUNCTION = 4, TN_VARIANT_NO_PY_METHOD = 8 };

typedef struct {
    const char *name;      /* "add" */
    const char *overload;  /* "Tensor" or "" */
    const char *schema;    /* full schema text from upstream */
    int variants;
    const char *module;    /* python_module: "", "nn", "linalg", "special", "fft", ... */
    tn_op_fn fn;           /* NULL: not implemented, refuses by name */
} tn_op_def;

/* A Python-visible name and its [first, last) overload rows; method: some overload is a method. */
typedef struct {
    const char *name;
    int first, last;
    int method;
} tn_name_def;

/* The table (generated) and lookups. */
int tn_name_count(void);
const tn_name_def *tn_name_at(int i);
int tn_name_find(const char *name);   /* index into the name table, or -1 */
int tn_op_count(void);
const tn_op_def *tn_op_at(int i);
/* the row at position i of torch.ops order: within each name's [first, last), upstream's packet
 * order (overloads(), the order a packet call tries them), which is not the table's yaml order */
int tn_ops_row(int i);
/* row i is an aten overload only TorchScript has (src/ops/extra_schemas.txt, not an autogen .out
 * upstream's dispatcher registers): a torch.ops packet tries it after the dispatcher's */
int tn_op_script_only(int i);
/* upstream's tags of row i: TN_TAG_POINTWISE, TN_TAG_RANDOM (nondeterministic_seeded),
 * TN_TAG_INPLACE_VIEW (an in-place op that changes only self's geometry: squeeze_, t_, ...) */
/* TN_TAG_NESTED: upstream has a kernel for strided nested tensors (ops/nested.c); TN_TAG_SPARSE:
 * upstream runs a kernel on sparse COO arguments (a SparseCPU or CompositeExplicitAutograd one; ops/sparse.c) */
enum { TN_TAG_POINTWISE = 1, TN_TAG_RANDOM = 2, TN_TAG_INPLACE_VIEW = 4, TN_TAG_NESTED = 8, TN_TAG_SPARSE = 16 };
/* all of row i's tag names, comma-separated, as upstream's OpOverload.tags lists them */
const char *tn_op_tag_list(int i);
int tn_op_tags(int i);
/* Index of "name.overload" ("name." or "name" for the default overload), or -1. */
int tn_op_find(const char *name, const char *overload);
/* [first, last) range of rows named `name`; returns false if none. */
bool tn_op_range(const char *name, int *first, int *last);
/* Parsed schema of row i, parsed on first use and cached; NULL with an exception on failure. */
const tn_schema *tn_op_schema(int i);

/* The door: call overload row `op` with args laid out as its schema's arguments. Returns a new
 * reference (Tensor, tuple, scalar or None) or NULL with an exception set. Refuses by name when
 * the overload has no kernel. */
PyObject *tn_door_call(int op, tn_value *args);
/* True while the door runs an op on CPU stand-ins of meta arguments (this thread): an op whose
 * rule differs on meta (hann_window's dtype check) asks it, since its arguments look like CPU. */
bool tn_door_on_meta(void);
/* True when `a` is the argument array of that meta call itself (not of an op its kernel calls on
 * the stand-ins): a refusal of upstream's missing Meta kernel asks this (docs/breadth_more2.md). */
bool tn_door_meta_call(const tn_value *a);
/* True while the door runs an out= op once with its out= tensors replaced by CPU stand-ins,
 * because an out= tensor is on another device than the inputs (a meta one among them). */
bool tn_door_out_trial(void);
/* The device an argument `t` of the op running now had when the call was made: a CPU stand-in
 * of a meta argument (above) is TN_DEVICE_META, any other tensor its own storage's device. */
tn_device_type tn_door_arg_device(PyObject *t);
/* The references' device check of row `row` (the one the door makes before a meta call) on the
 * arguments of a per-tensor op a kernel calls below the door while running on meta stand-ins
 * (the _foreach_ loops): each stand-in counts as its meta original. 0, or -1 with the error set;
 * 0 outside a meta call. */
int tn_door_stand_in_same_device(int row, const tn_value *args);

/* Row `row` has a Python Meta kernel `fn` (upstream registers it at import through
 * torch.library.Library("aten", "IMPL", "Meta")): the kernel's kind (a torch._refs reference,
 * wrapped in the references' out wrapper or not) decides the wording and order of the door's
 * device checks (door.c). */
void tn_door_mark_py_meta(int row, PyObject *fn);

/* A value back as a Python object (new reference): what __torch_dispatch__ handlers receive. */
PyObject *tn_value_to_python(const tn_value *v);

/* Refusal wording for an aten overload: NotImplementedError("torchnative: aten::foo.bar is not
 * implemented"). Returns NULL. */
PyObject *tn_refuse_op(int op);

/* The C function of a namespaced operator outside the generated table ("profiler::..." rows of
 * src/ops/extra_schemas.txt; src/ops/profiler.c), or NULL: such rows refuse. */
tn_op_fn tn_extra_op_fn(const char *name, const char *overload);

#endif
