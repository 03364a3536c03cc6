/* stubs_tmp.c — weak placeholders while the real subsystems land (removed once all exist). */
#include "python/common.h"
#define WEAK __attribute__((weak))
WEAK int tn_types_init(PyObject *m) { return 0; }
WEAK int tn_tensor_type_init(PyObject *m) { return 0; }
WEAK int tn_functions_init(PyObject *m) { return 0; }
WEAK int tn_surface_init(PyObject *m) { return 0; }
WEAK int tn_schema_types_init(PyObject *m) { return 0; }
#include "dispatch/schema.h"
WEAK int tn_schema_parse(const char *text, tn_schema *out, char *err, int errlen) {
    snprintf(err, errlen, "schema parser not built");
    return -1;
}
WEAK void tn_schema_free(tn_schema *s) {}
#include "dispatch/door.h"
WEAK PyObject *tn_op_add_Tensor(tn_value *args) { return tn_not_implemented("aten::add.Tensor"); }
