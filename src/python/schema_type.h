/* schema_type.h — torch._C's FunctionSchema / Argument / _AliasInfo / Type objects.
 *
 * Python face of src/dispatch/schema.h: upstream code reads operator schemas (torch.ops packets,
 * _get_schema, parse_schema) for argument names, types, defaults, kwarg-only flags and alias
 * (mutation) info; these heap types give it the same attributes and the same str() upstream
 * prints. Limited API only. */
#ifndef TN_PYTHON_SCHEMA_TYPE_H
#define TN_PYTHON_SCHEMA_TYPE_H

#include <Python.h>
#include "../dispatch/schema.h"

/* Creates the heap types and adds to `module`: FunctionSchema, Argument, _AliasInfo, parse_schema,
 * and the JIT type classes Type, TensorType, OptionalType, ListType, IntType, ... (each only if the
 * module has no attribute of that name yet). Returns 0, or -1 with an exception set. Call once per
 * process (the types are kept in file-level pointers for tn_schema_to_python). */
int tn_schema_types_init(PyObject *module);

/* New FunctionSchema for a parsed schema (new reference; NULL with exception set on failure, or
 * RuntimeError if tn_schema_types_init has not run). Its .name is "ns::name" when s->ns is
 * non-empty, else the bare name — set s->ns = "aten" for yaml-derived schemas. */
PyObject *tn_schema_to_python(const tn_schema *s);

#endif
