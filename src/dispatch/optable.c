/* optable.c — the generated operator table and its lookups; schemas parsed lazily. */
#include "dispatch/door.h"
#include "tn_ops_gen.h"

#include <string.h>

static tn_schema *schemas[TN_OP_COUNT];

int tn_op_count(void) { return TN_OP_COUNT; }
int tn_name_count(void) { return TN_NAME_COUNT; }
const tn_name_def *tn_name_at(int i) { return &tn_name_defs[i]; }

int tn_name_find(const char *name) {
    int lo = 0, hi = TN_NAME_COUNT;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(tn_name_defs[mid].name, name);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}
const tn_op_def *tn_op_at(int i) { return &tn_op_defs[i]; }
int tn_ops_row(int i) { return tn_ops_order[i]; }
int tn_op_script_only(int i) { return tn_ops_script_only[i]; }
int tn_op_tags(int i) { return i >= 0 && i < TN_OP_COUNT ? tn_op_tag_bits[i] : 0; }
const char *tn_op_tag_list(int i) { return i >= 0 && i < TN_OP_COUNT ? tn_op_tag_names[i] : ""; }

static int first_named(const char *name) {
    int lo = 0, hi = TN_OP_COUNT;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (strcmp(tn_op_defs[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool tn_op_range(const char *name, int *first, int *last) {
    int i = first_named(name), j = i;
    while (j < TN_OP_COUNT && strcmp(tn_op_defs[j].name, name) == 0) j++;
    *first = i;
    *last = j;
    return j > i;
}

int tn_op_find(const char *name, const char *overload) {
    int i, j;
    if (!overload) overload = "";
    if (!tn_op_range(name, &i, &j)) return -1;
    for (; i < j; i++)
        if (strcmp(tn_op_defs[i].overload, overload) == 0) return i;
    return -1;
}

const tn_schema *tn_op_schema(int i) {
    if (!schemas[i]) {
        tn_schema *s = PyMem_Calloc(1, sizeof *s);
        char err[256];
        if (!s) return (const tn_schema *)PyErr_NoMemory();
        if (tn_schema_parse(tn_op_defs[i].schema, s, err, sizeof err) < 0) {
            PyMem_Free(s);
            PyErr_Format(PyExc_RuntimeError, "torchnative: bad schema for aten::%s: %s", tn_op_defs[i].name, err);
            return NULL;
        }
        schemas[i] = s;
    }
    return schemas[i];
}

PyObject *tn_refuse_op(int op) {
    const tn_op_def *d = &tn_op_defs[op];
    PyErr_Format(PyExc_NotImplementedError, "torchnative: %s%s%s%s is not implemented",
                 strstr(d->name, "::") ? "" : "aten::", d->name, d->overload[0] ? "." : "", d->overload);
    return NULL;
}
