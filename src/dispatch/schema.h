/* schema.h — operator schemas parsed into C structs.
 *
 * Text such as "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" comes from
 * upstream's native_functions.yaml, read at build time (tools/gen_ops.py). The parser is ours; it
 * also backs torch._C.parse_schema / FunctionSchema. Grammar handled: optional types (T?), lists
 * (T[], T[N], T?[]), alias annotations (Tensor(a), Tensor(a!), Tensor(a -> *)), defaults (numbers,
 * True/False/None, strings, lists like [0,1] or [], "contiguous_format", "long", "mean"...), the
 * '*' kwarg-only marker, named and unnamed returns, tuple returns, "()" returns. */
#ifndef TN_DISPATCH_SCHEMA_H
#define TN_DISPATCH_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#define TN_TYPES(X) \
    X(TENSOR, "Tensor") X(INT, "int") X(SYMINT, "SymInt") X(FLOAT, "float") X(BOOL, "bool") \
    X(STR, "str") X(SCALAR, "Scalar") X(SCALARTYPE, "ScalarType") X(LAYOUT, "Layout") \
    X(DEVICE, "Device") X(DEVICEINDEX, "DeviceIndex") X(MEMORYFORMAT, "MemoryFormat") \
    X(GENERATOR, "Generator") X(DIMNAME, "Dimname") X(STORAGE, "Storage") X(STREAM, "Stream") \
    X(QSCHEME, "QScheme") X(COMPLEX, "complex") X(ANY, "Any") X(DIMVECTOR, "DimVector") \
    X(SYMBOOL, "SymBool") /* appended by schema.c's author: sym_is_contiguous returns it */

typedef enum {
#define TN_X(E, s) TN_TYPE_##E,
    TN_TYPES(TN_X)
#undef TN_X
    TN_TYPE_COUNT
} tn_type_kind;

typedef struct {
    const char *name;        /* NULL for unnamed returns */
    tn_type_kind type;
    bool optional;           /* T? or T?[] element... see elem_optional */
    bool is_list;            /* T[] / T[N] */
    bool elem_optional;      /* Tensor?[] : list of optional elements */
    int list_size;           /* N for T[N], else -1 */
    bool kwarg_only;
    const char *default_text;/* the default as written ("1", "None", "[]", "contiguous_format"), or NULL */
    char alias_set;          /* 'a'.. for Tensor(a), 0 if none */
    bool is_write;           /* Tensor(a!) */
    /* Added by schema.c's author (extensions; the fields above keep their meaning): */
    const char *alias_before;/* full alias set before "->": "a", "a|b", "*"; NULL if none */
    const char *alias_after; /* set after "->" (same text as alias_before when no arrow) */
    bool alias_on_elem;      /* annotation written on a list's element: Tensor(a!)[] */
    bool nested_list;        /* T[][]: a list of lists (no native operator takes one) */
} tn_arg;

typedef struct {
    const char *name;        /* "add" (namespace "aten::" stripped; kept in ns) */
    const char *ns;          /* "aten" */
    const char *overload;    /* "Tensor", "" for the default overload */
    int nargs, nrets;
    tn_arg *args;
    tn_arg *rets;
    bool is_vararg, is_varret;
} tn_schema;
/* Notes: ns is "" when the text has no "ns::" prefix (yaml entries); a caller may point it at a
 * string literal such as "aten" (tn_schema_free never frees ns). After success s->args is the
 * base of the single heap block, non-NULL even when nargs == 0. */

/* Parse `text` into *out. Everything *out points to is owned by one heap block released by
 * tn_schema_free. Returns 0 on success; on failure returns -1 and writes a message naming the
 * problem (with position) into err (size errlen). Never crashes on any input. */
int tn_schema_parse(const char *text, tn_schema *out, char *err, int errlen);
/* Set by the Python face: is this (possibly dotted) name an opaque type registered through
 * torch._C._register_opaque_type? Such arguments parse as Any (upstream: PyObject). */
extern bool (*tn_schema_opaque_type)(const char *name, int n);
void tn_schema_free(tn_schema *s);
extern const char *const tn_type_names[TN_TYPE_COUNT];

/* Value of an identifier default such as "contiguous_format" (0), "Mean" (1), "long" (4), "strided"
 * (0); for ScalarType arguments every dtype name ("float32", "bfloat16", ...) is accepted as
 * upstream does. Returns false for an identifier upstream's parser rejects. */
bool tn_schema_ident_value(const char *ident, tn_type_kind type, int64_t *out);
/* Writes the schema back as text ("ns::name.overload(args) -> rets", defaults as written).
 * Returns the length it needed (like snprintf). */
int tn_schema_format(const tn_schema *s, char *buf, int buflen);

#endif
