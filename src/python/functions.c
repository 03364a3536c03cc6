/* functions.c — the Python spellings of operators, all leading to the door.
 *
 * torch.add / torch._C._VariableFunctions.add, x.add (TensorBase methods, one generated
 * trampoline per name), the operator dunders (x + y), torch._C._nn.* and friends, and
 * torch.ops.aten.add(.Tensor) via _jit_get_operation / _get_operation_overload. Each parses its
 * arguments against upstream's schemas (args.c) and calls tn_door_call. */
#include <string.h>
#include <stdlib.h>

#include "dispatch/door.h"
#include "autograd/autograd.h"
#include "dispatch/args.h"
#include "python/common.h"
#include "python/tensor.h"
#include "python/torch_function.h"

PyObject *tn_call_method(int name, PyObject *self, PyObject *args, PyObject *kw);
static PyObject *tn_call_method_noargs(int name, PyObject *self);
#include "python/schema_type.h"
#include "python/library.h"
#include "python/arg_errors.h"
#include "ops/common.h"
#include "ops/sparse.h"
#include "ops/qlinear.h"

#define TN_WANT_METHOD_TRAMPOLINES
#include "tn_ops_gen.h"

enum { CALL_FUNCTION, CALL_METHOD, CALL_ATEN };

static int last_row; /* the overload row call_rows matched last (calls nest, but are read at once) */

/* Ops whose Tensor parameters (self included) accept Python numbers: upstream's bindings allow
 * it for exactly these names (measured in 2.13.0: torch.add(2, t) works, torch.maximum(t, 2) and
 * torch.atan2(t, 2) raise TypeError). Other ops take numbers only through Scalar overloads. */
static bool numbers_as_tensors(const char *name) {
    static const char *const names[] = {
        "add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_", "multiply", "multiply_",
        "sub", "sub_", "subtract", "subtract_", "true_divide", "true_divide_", "floor_divide",
        "floor_divide_", "to", "_to_copy", "copy_", "_conj",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i])) return true;
    return false;
}

static PyObject *no_match(const char *name, int mode, PyObject *args, PyObject *kw) {
    if (mode != CALL_ATEN) {
        if (tn_arg_error(name, mode == CALL_METHOD, args, kw)) return NULL;
        PyErr_Clear();
    }
    PyObject *types = PyList_New(0);
    Py_ssize_t n = args ? PyTuple_Size(args) : 0;
    for (Py_ssize_t i = 0; types && i < n; i++) {
        PyObject *tn = PyObject_GetAttrString((PyObject *)Py_TYPE(PyTuple_GetItem(args, i)), "__name__");
        if (tn) { PyList_Append(types, tn); Py_DECREF(tn); }
    }
    if (kw) {
        PyObject *key, *val;
        Py_ssize_t it = 0;
        while (types && PyDict_Next(kw, &it, &key, &val)) {
            PyObject *tn = PyObject_GetAttrString((PyObject *)Py_TYPE(val), "__name__");
            PyObject *s = tn ? PyUnicode_FromFormat("%U=%U", key, tn) : NULL;
            if (s) { PyList_Append(types, s); Py_DECREF(s); }
            Py_XDECREF(tn);
        }
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = (sep && types) ? PyUnicode_Join(sep, types) : NULL;
    if (joined)
        PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of arguments - got (%U)",
                     name, joined);
    Py_XDECREF(sep);
    Py_XDECREF(types);
    Py_XDECREF(joined);
    return NULL;
}

/* Try the overload rows [first, last) in order, in two passes. The strict pass binds tensors to
 * Tensor parameters and numbers to Scalar ones only; the loose pass also lets 0-dim tensors bind
 * Scalar parameters and (for the ops upstream allows, and torch.ops) numbers bind Tensor ones.
 * This is upstream's order: its parser tries Tensor overloads before Scalar ones, so
 * bitwise_and(bool_t, int8 0-dim) is bitwise_and.Tensor (int8), not .Scalar (bool). */
/* Whether a torch.X function has an overload with out= parameters: then upstream's binding takes
 * out=None as if out= were not given on every overload (torch.stack(ts, 0, out=None), as
 * default_collate calls it); methods and functions without one reject out= at all. */
/* The keyword of the rows' out= parameter, or NULL: `out`, or a lone out parameter's schema name
 * (torch._softmax_backward_data's grad_input=, as the parser, dispatch/args.c) */
static const char *function_out_kw(int first, int last) {
    for (int row = first; row < last; row++) {
        const tn_op_def *d = tn_op_at(row);
        if ((d->variants & (TN_VARIANT_FUNCTION | TN_VARIANT_NO_PY_FUNCTION)) != TN_VARIANT_FUNCTION) continue;
        const tn_schema *s = tn_op_schema(row);
        if (!s) { PyErr_Clear(); continue; }
        int nout = 0;
        const char *nm = NULL;
        for (int i = 0; i < s->nargs; i++)
            if (s->args[i].kwarg_only && s->args[i].is_write) nout++, nm = s->args[i].name;
        if (nout) return nout == 1 ? nm : "out";
    }
    return NULL;
}

static PyObject *call_rows_(const char *name, int first, int last, int mode, PyObject *self,
                            PyObject *args, PyObject *kw);

/* kw[key] removed from the (copied) dict kw and returned (new reference), or NULL */
static PyObject *pop_kw(PyObject *kw, const char *key) {
    PyObject *v = PyDict_GetItemString(kw, key);
    if (v) { Py_INCREF(v); PyDict_DelItemString(kw, key); }
    return v;
}
/* a sparse factory's aten overloads under the invariant checks `check` asks for (None or absent:
 * the global setting), then requires_grad set on the result when `rg` is true */
static PyObject *sparse_ctor_call(const char *name, int first, int last, PyObject *args, PyObject *kw,
                                  PyObject *check, PyObject *rg) {
    bool was = tn_sparse_check_invariants;
    if (check && check != Py_None) tn_sparse_check_invariants = PyObject_IsTrue(check) == 1;
    else if (tn_sparse_warn_implicit_checks() < 0) return NULL;
    PyObject *r = call_rows_(name, first, last, CALL_FUNCTION, NULL, args, PyDict_Size(kw) ? kw : NULL);
    tn_sparse_check_invariants = was;
    if (r && rg && PyObject_IsTrue(rg) == 1 && PyObject_SetAttrString(r, "requires_grad", Py_True) < 0) Py_CLEAR(r);
    return r;
}

/* torch.sparse_coo_tensor(indices, values, size=None, *, dtype, device, pin_memory, requires_grad,
 * check_invariants, is_coalesced), upstream's hand-written binding: indices read as int64 and
 * values as torch.tensor reads them (dtype given: in it), check_invariants sets the invariant
 * checks for the call, requires_grad is set on the result; the rest reaches the aten overloads
 * (sparse_coo_tensor.indices / .indices_size; the size-only form goes to them as it is) */
static PyObject *sparse_coo_ctor(int first, int last, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_Size(args);
    bool two = n >= 2 || (kw && PyDict_GetItemString(kw, "values"));
    PyObject *k2 = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!k2) return NULL;
    PyObject *rg = NULL, *check = NULL, *a2 = NULL, *r = NULL;
    rg = pop_kw(k2, "requires_grad");
    check = pop_kw(k2, "check_invariants");
    if (two) {
        PyObject *ix = n > 0 ? PyTuple_GetItem(args, 0) : PyDict_GetItemString(k2, "indices");
        PyObject *v = n > 1 ? PyTuple_GetItem(args, 1) : PyDict_GetItemString(k2, "values");
        PyObject *dto = PyDict_GetItemString(k2, "dtype");
        tn_dtype dt = TN_DTYPE_UNDEFINED;
        if (!ix || !v) {
            PyErr_SetString(PyExc_TypeError, "sparse_coo_tensor() missing required argument 'indices' (pos 1)");
            goto done;
        }
        if (dto && dto != Py_None && tn_py_to_dtype(dto, &dt) < 0) goto done;
        PyObject *ixt = tn_py_sparse_operand(ix, TN_DTYPE_I64);
        PyObject *vt = ixt ? tn_py_sparse_operand(v, dt) : NULL;
        if (!vt) { Py_XDECREF(ixt); goto done; }
        a2 = PyTuple_New(n > 2 ? n : 2);
        if (!a2) { Py_DECREF(ixt); Py_DECREF(vt); goto done; }
        PyTuple_SetItem(a2, 0, ixt);
        PyTuple_SetItem(a2, 1, vt);
        for (Py_ssize_t i = 2; i < n; i++) PyTuple_SetItem(a2, i, Py_NewRef(PyTuple_GetItem(args, i)));
        if (n < 1) PyDict_DelItemString(k2, "indices");
        if (n < 2) PyDict_DelItemString(k2, "values");
    } else {
        a2 = Py_NewRef(args);
        if (PyDict_GetItemString(k2, "is_coalesced")) PyDict_DelItemString(k2, "is_coalesced");
    }
    r = sparse_ctor_call("sparse_coo_tensor", first, last, a2, k2, check, rg);
done:
    Py_XDECREF(rg);
    Py_XDECREF(check);
    Py_XDECREF(a2);
    Py_DECREF(k2);
    return r;
}

/* torch.sparse_compressed_tensor / sparse_csr_tensor / sparse_csc_tensor / sparse_bsr_tensor /
 * sparse_bsc_tensor(compressed_indices, plain_indices, values, size=None, *, dtype, layout, device,
 * pin_memory, requires_grad, check_invariants), upstream's hand-written bindings: the indices and
 * values read as torch.tensor reads them (tensors as they are; values in `dtype` when given), a
 * fixed layout's factory checks the layout given, check_invariants sets the invariant checks for
 * the call, requires_grad is set on the result (ops/sparse_compressed.c) */
static const char *const compressed_ctors[] = {"sparse_compressed_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
                                               "sparse_bsc_tensor"};
static PyObject *sparse_compressed_ctor(int which, int first, int last, PyObject *args, PyObject *kw) {
    static const char *const names[] = {"", "SparseCsr", "SparseCsc", "SparseBsr", "SparseBsc"};
    PyObject *k2 = kw ? PyDict_Copy(kw) : PyDict_New();
    if (!k2) return NULL;
    PyObject *rg = NULL, *check = NULL, *a2 = NULL, *r = NULL;
    rg = pop_kw(k2, "requires_grad");
    check = pop_kw(k2, "check_invariants");
    PyObject *lay = PyDict_GetItemString(k2, "layout");
    if (which && lay && lay != Py_None) {
        PyObject *want[] = {NULL, tn_py.layout_sparse_csr, tn_py.layout_sparse_csc, tn_py.layout_sparse_bsr, tn_py.layout_sparse_bsc};
        if (lay != want[which]) {
            const char *got = lay == tn_py.layout_strided ? "Strided" : lay == tn_py.layout_sparse_coo ? "Sparse" : NULL;
            for (int k = 1; !got && k <= 4; k++)
                if (lay == want[k]) got = names[k];
            PyErr_Format(PyExc_RuntimeError, "%s: layout must be %s but got %s", compressed_ctors[which], names[which], got ? got : "Mkldnn");
            goto done;
        }
    }
    Py_ssize_t n = PyTuple_Size(args);
    if (n >= 3) {
        PyObject *dto = PyDict_GetItemString(k2, "dtype");
        tn_dtype dt = TN_DTYPE_UNDEFINED;
        if (dto && dto != Py_None && tn_py_to_dtype(dto, &dt) < 0) goto done;
        if (!(a2 = PyTuple_New(n))) goto done;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyTuple_GetItem(args, i);
            PyObject *c = i < 2 ? (tn_py_is_tensor(x) ? Py_NewRef(x) : tn_py_sparse_operand(x, TN_DTYPE_UNDEFINED))
                                : i == 2 ? tn_py_sparse_operand(x, dt) : Py_NewRef(x);
            if (!c) goto done;
            PyTuple_SetItem(a2, i, c);
        }
    } else a2 = Py_NewRef(args);
    r = sparse_ctor_call(compressed_ctors[which], first, last, a2, k2, check, rg);
done:
    Py_XDECREF(rg);
    Py_XDECREF(check);
    Py_XDECREF(a2);
    Py_DECREF(k2);
    return r;
}

/* Queries upstream answers from the tensor itself (CompositeImplicitAutograd ops that call no
 * other op): no mode, vmap level or subclass sees them, whichever spelling calls them. */
static bool tensor_query(int row) {
    return row == TN_ROW_is_floating_point || row == TN_ROW_is_complex || row == TN_ROW_is_signed ||
           row == TN_ROW_is_conj || row == TN_ROW_is_neg || row == TN_ROW_is_inference ||
           row == TN_ROW__has_compatible_shallow_copy_type;
}

/* Checks upstream's hand-written Python bindings make before the dispatcher (torch.ops skips
 * them): Tensor.set_(Tensor source) refuses a source of another dtype, which the op itself takes
 * (ops/storage_ops.c). True with the exception set. */
static bool binding_refuses(int row, int mode, const tn_value *v) {
    if (mode == CALL_METHOD && row == TN_ROW_set__source_Tensor) {
        tn_dtype sd = tn_tensor_of(v[1].u.obj)->dtype, dd = tn_tensor_of(v[0].u.obj)->dtype;
        if (sd != dd) {
            PyErr_Format(PyExc_RuntimeError, "Could not set tensor of type %s to a tensor of type %s",
                         tn_dtype_cxx_name(sd), tn_dtype_cxx_name(dd));
            return true;
        }
    }
    return false;
}

/* torch.ops factories given an accelerator device (cuda, xpu, mps ...): upstream's BackendSelect
 * sends the allocation to a backend kernel its CPU build lacks, so the dispatcher raises
 * NotImplementedError naming the op allocating ("Could not run 'aten::empty.memory_format' with
 * arguments from the 'CUDA' backend."; docs/breadth_more2.md "Fuzz corpus exception types, group ne
 * (session 38)", measured per overload). The Python bindings (torch.zeros(device="cuda")) run
 * torch.cuda's lazy init first and stay refused by the parser. `via`: the op whose kernel is
 * missing, NULL for the row's own; "*" matches every overload. */
static const struct { const char *name, *overload, *via; } accel_ops[] = {
    {"empty", "memory_format", NULL}, {"empty_strided", "", NULL}, {"_empty_affine_quantized", "", NULL},
    {"_empty_per_channel_affine_quantized", "", NULL}, {"_sparse_coo_tensor_with_dims", "", NULL},
    {"_sparse_coo_tensor_with_dims_and_tensors", "", NULL}, {"tril_indices", "", NULL}, {"triu_indices", "", NULL},
    {"sparse_coo_tensor", "size", "_sparse_coo_tensor_with_dims"},
    {"empty_like", "", "empty_strided"}, {"zeros_like", "", "empty_strided"}, {"ones_like", "", "empty_strided"},
    {"full_like", "", "empty_strided"}, {"rand_like", "*", "empty_strided"}, {"randn_like", "*", "empty_strided"},
    {"randint_like", "", "empty_strided"}, {"randint_like", "generator", "empty_strided"},
    {"randint_like", "low_dtype", "empty_strided"}, {"randint_like", "low_generator_dtype", "empty_strided"},
    {"new_empty_strided", "", "empty_strided"},
    {"arange", "", "empty.memory_format"}, {"arange", "start", "empty.memory_format"},
    {"arange", "start_step", "empty.memory_format"}, {"bartlett_window", "*", "empty.memory_format"},
    {"blackman_window", "*", "empty.memory_format"}, {"hamming_window", "*", "empty.memory_format"},
    {"hann_window", "*", "empty.memory_format"}, {"kaiser_window", "*", "empty.memory_format"},
    {"eye", "*", "empty.memory_format"}, {"fft_fftfreq", "", "empty.memory_format"},
    {"fft_rfftfreq", "", "empty.memory_format"}, {"full", "", "empty.memory_format"},
    {"linspace", "", "empty.memory_format"}, {"logspace", "", "empty.memory_format"},
    {"new_empty", "", "empty.memory_format"}, {"new_full", "", "empty.memory_format"},
    {"new_ones", "", "empty.memory_format"}, {"new_zeros", "", "empty.memory_format"},
    {"normal", "float_float", "empty.memory_format"}, {"ones", "", "empty.memory_format"},
    {"zeros", "", "empty.memory_format"}, {"scalar_tensor", "", "empty.memory_format"},
    {"rand", "", "empty.memory_format"}, {"rand", "generator", "empty.memory_format"},
    {"randn", "", "empty.memory_format"}, {"randn", "generator", "empty.memory_format"},
    {"randint", "", "empty.memory_format"}, {"randint", "generator", "empty.memory_format"},
    {"randint", "low", "empty.memory_format"}, {"randint", "low_generator", "empty.memory_format"},
    {"randperm", "", "empty.memory_format"}, {"randperm", "generator", "empty.memory_format"},
};

static int accel_op(const tn_op_def *d) {
    for (int k = 0; k < (int)(sizeof accel_ops / sizeof *accel_ops); k++)
        if (!strcmp(d->name, accel_ops[k].name) &&
            (!strcmp(accel_ops[k].overload, "*") || !strcmp(d->overload, accel_ops[k].overload)))
            return k;
    return -1;
}

/* the value of the parameter named `name`, or NULL */
static const tn_value *arg_named(const tn_schema *s, const tn_value *v, const char *name) {
    for (int i = 0; i < s->nargs; i++)
        if (!strcmp(s->args[i].name, name)) return &v[i];
    return NULL;
}

/* The refusal (NULL with the exception set) of row d given the accelerator `backend`, after the
 * few checks upstream makes before allocating (zeros' sizes, linspace / logspace's steps, the
 * windows' length). The key is Sparse<backend> for a sparse COO layout, Quantized<backend> for a
 * quantized dtype (given, else self's); another layout keeps our refusal of the device. */
static PyObject *accel_refuse(const tn_op_def *d, int k, const tn_schema *s, const tn_value *v, const char *backend) {
    const tn_value *x;
    if (!strcmp(d->name, "zeros") && (x = arg_named(s, v, "size")) && x->tag == TN_V_INTLIST)
        for (int i = 0; i < x->u.ints.n; i++)
            if (x->u.ints.v[i] < 0)
                return PyErr_Format(PyExc_RuntimeError, "zeros: Dimension size must be non-negative.");
    if ((!strcmp(d->name, "linspace") || !strcmp(d->name, "logspace")) && (x = arg_named(s, v, "steps")) &&
        x->tag == TN_V_INT && x->u.i < 0)
        return PyErr_Format(PyExc_RuntimeError, "number of steps must be non-negative");
    if (strstr(d->name, "_window") && (x = arg_named(s, v, "window_length")) && x->tag == TN_V_INT && x->u.i < 0)
        return PyErr_Format(PyExc_RuntimeError, "%s requires non-negative window_length, got window_length=%lld",
                            d->name, (long long)x->u.i);
    const char *prefix = "";
    x = arg_named(s, v, "layout");
    if (!strcmp(d->name, "sparse_coo_tensor") ||
        (x && x->tag == TN_V_LAYOUT && x->u.obj == tn_py.layout_sparse_coo))
        prefix = "Sparse";
    else if (x && x->tag == TN_V_LAYOUT && x->u.obj != tn_py.layout_strided)
        return PyErr_Format(PyExc_RuntimeError, "torchnative: the %s backend is not available (CPU-only build)", backend);
    else {
        const tn_value *dt = arg_named(s, v, "dtype"), *self = arg_named(s, v, "self");
        tn_dtype q = dt && dt->tag == TN_V_DTYPE ? dt->u.dtype
                   : self && self->tag == TN_V_TENSOR ? tn_tensor_of(self->u.obj)->dtype : TN_DTYPE_F32;
        if (tn_dtype_infos[q].kind == TN_KIND_QUANT) prefix = "Quantized";
    }
    char op[96], key[48];
    if (accel_ops[k].via) snprintf(op, sizeof op, "aten::%s", accel_ops[k].via);
    else snprintf(op, sizeof op, "aten::%s%s%s", d->name, *d->overload ? "." : "", d->overload);
    snprintf(key, sizeof key, "%s%s", prefix, backend);
    return tn_q_backend_error(op, key);
}

static PyObject *call_rows(const char *name, int first, int last, int mode, PyObject *self,
                           PyObject *args, PyObject *kw) {
    if (mode == CALL_FUNCTION && !strcmp(name, "sparse_coo_tensor")) return sparse_coo_ctor(first, last, args, kw);
    if (mode == CALL_FUNCTION && !strncmp(name, "sparse_", 7))
        for (int k = 0; k < 5; k++)
            if (!strcmp(name, compressed_ctors[k])) return sparse_compressed_ctor(k, first, last, args, kw);
    bool none_kw = false;   /* the rows are looked at only when some keyword is None */
    PyObject *kk, *kv;
    for (Py_ssize_t it = 0; mode == CALL_FUNCTION && kw && !none_kw && PyDict_Next(kw, &it, &kk, &kv);) none_kw = kv == Py_None;
    const char *out_kw = none_kw ? function_out_kw(first, last) : NULL;
    if (out_kw && PyDict_GetItemString(kw, out_kw) == Py_None) {
        PyObject *k2 = PyDict_Copy(kw);
        if (!k2 || PyDict_DelItemString(k2, out_kw) < 0) { Py_XDECREF(k2); return NULL; }
        PyObject *r = call_rows_(name, first, last, mode, self, args, PyDict_Size(k2) ? k2 : NULL);
        Py_DECREF(k2);
        return r;
    }
    return call_rows_(name, first, last, mode, self, args, kw);
}

/* ---------- torch.ops: upstream's schema-matching errors (createStackForSchema) ---------- */

/* aten's TorchScript-only overloads (extra_schemas.txt rows: no Python binding, no kernel) */
static bool jit_row(int row) { return tn_op_script_only(row); }

/* Their type variables (t, t[]) were written as Any by tools/dump_extra_schemas.py; upstream's
 * toIValue cannot convert a value to a type variable, so only an empty list gets through. */
static int convertible(int row, const tn_arg *p, PyObject *o) {
    if (p->type == TN_TYPE_ANY && jit_row(row))
        return (PyList_Check(o) || PyTuple_Check(o)) && PySequence_Size(o) == 0;
    return tn_args_aten_convertible(p, o, numbers_as_tensors(tn_op_at(row)->name));
}

static bool typevar_refuses(int row, const tn_schema *s, PyObject *args, PyObject *kw) {
    if (!jit_row(row)) return false;
    Py_ssize_t na = args ? PyTuple_Size(args) : 0;
    for (int i = 0; i < s->nargs; i++) {
        if (s->args[i].type != TN_TYPE_ANY) continue;
        PyObject *o = i < na ? PyTuple_GetItem(args, i) : kw ? PyDict_GetItemString(kw, s->args[i].name) : NULL;
        if (o && convertible(row, &s->args[i], o) == 0) return true;
    }
    return false;
}

/* "aten::X() Expected a value of type 'T' for argument 'a' but instead found type 'U'." with the
 * position, value and declaration; T as FunctionSchema prints the argument's type; then the cast
 * details upstream's toIValue gives, as measured: its own for Tensor and Scalar (number), Python's
 * TypeError iterating a SymInt[], pybind11's caster for the plain types and int lists (a str) */
static PyObject *type_mismatch(const char *qname, PyObject *fs, const tn_arg *p, int i, PyObject *value) {
    PyObject *argl = PyObject_GetAttrString(fs, "arguments");
    PyObject *arg = argl ? PySequence_GetItem(argl, i) : NULL;
    PyObject *type = arg ? PyObject_GetAttrString(arg, "type") : NULL;
    PyObject *vrepr = type ? PyObject_Repr(value) : NULL;
    PyObject *tname = vrepr ? PyObject_GetAttrString((PyObject *)Py_TYPE(value), "__name__") : NULL;
    PyObject *details = NULL, *r = NULL;
    if (tname) {
        if (p->type == TN_TYPE_TENSOR && !p->is_list)
            details = PyUnicode_FromFormat("\nCast error details: Unable to cast %S to Tensor", value);
        else if (p->type == TN_TYPE_SCALAR && !p->is_list)
            details = PyUnicode_FromFormat("\nCast error details: Cannot cast %S to number", value);
        else if (p->is_list && p->type == TN_TYPE_SYMINT && !PyUnicode_Check(value) && !PyIter_Check(value) &&
                 !PySequence_Check(value))
            details = PyUnicode_FromFormat("\n Python error details: TypeError: '%U' object is not iterable", tname);
        else if (p->is_list ? (p->type == TN_TYPE_INT || p->type == TN_TYPE_SYMINT) && PyUnicode_Check(value)
                            : p->type == TN_TYPE_INT || p->type == TN_TYPE_SYMINT || p->type == TN_TYPE_FLOAT ||
                                  p->type == TN_TYPE_BOOL || p->type == TN_TYPE_STR || p->type == TN_TYPE_COMPLEX ||
                                  p->type == TN_TYPE_SCALARTYPE)   /* pybind11's caster */
            details = PyUnicode_FromFormat("\nCast error details: Unable to cast Python instance of type %R to C++ type "
                                           "'?' (#define PYBIND11_DETAILED_ERROR_MESSAGES or compile in debug mode for "
                                           "details)", (PyObject *)Py_TYPE(value));
        else
            details = PyUnicode_FromString("");
    }
    if (details)
        r = PyUnicode_FromFormat("%s() Expected a value of type '%S' for argument '%s' but instead found type '%U'.\n"
                                 "Position: %d\nValue: %U\nDeclaration: %S%U",
                                 qname, type, p->name, tname, i, vrepr, fs, details);
    Py_XDECREF(argl); Py_XDECREF(arg); Py_XDECREF(type); Py_XDECREF(vrepr); Py_XDECREF(tname); Py_XDECREF(details);
    return r;
}

/* Why torch.ops cannot bind (args, kw) to row's schema, in upstream's order: too many arguments,
 * a positional one for a keyword-only parameter or of the wrong type, then the parameters left in
 * schema order (a keyword of the wrong type, a missing value), then keywords left over. An empty
 * string when upstream would bind the call (our parse refused it for a rule of its own). */
static PyObject *mismatch_reason(int row, PyObject *args, PyObject *kw) {
    const tn_schema *s = tn_op_schema(row);
    if (!s) { PyErr_Clear(); return PyUnicode_FromString(""); }
    tn_schema named = *s;
    if (!named.ns || !named.ns[0]) named.ns = "aten";
    char qname[256];
    snprintf(qname, sizeof qname, "%s::%s", named.ns, s->name);
    PyObject *fs = tn_schema_to_python(&named), *r = NULL;
    if (!fs) return NULL;
    Py_ssize_t na = args ? PyTuple_Size(args) : 0, nk = kw ? PyDict_Size(kw) : 0, used = 0;
    if (na + nk > s->nargs) {
        r = PyUnicode_FromFormat("%s() expected at most %d argument(s) but received %zd argument(s). Declaration: %S",
                                 qname, s->nargs, na + nk, fs);
        goto done;
    }
    for (int i = 0; i < s->nargs; i++) {
        const tn_arg *p = &s->args[i];
        PyObject *o = NULL;
        if (i < na) {
            if (p->kwarg_only) {
                r = PyUnicode_FromFormat("%s() takes %d positional argument(s) but %zd was/were given.  Declaration: %S",
                                         qname, i, na, fs);
                goto done;
            }
            o = PyTuple_GetItem(args, i);
        } else if (kw && (o = PyDict_GetItemString(kw, p->name))) {
            used++;
        } else if (!p->default_text) {
            r = PyUnicode_FromFormat("%s() is missing value for argument '%s'. Declaration: %S", qname, p->name, fs);
            goto done;
        }
        int ok = o ? convertible(row, p, o) : 1;
        if (ok < 0) goto done;
        if (!ok) { r = type_mismatch(qname, fs, p, i, o); goto done; }
    }
    if (used != nk) {   /* FunctionSchema::findErrorInKwargs */
        PyObject *key, *val;
        Py_ssize_t it = 0;
        while (PyDict_Next(kw, &it, &key, &val)) {
            const char *k = PyUnicode_AsUTF8AndSize(key, NULL);
            if (!k) goto done;
            bool known = false;
            for (int i = 0; i < s->nargs && !known; i++) known = !strcmp(s->args[i].name, k);
            if (!known) {
                r = PyUnicode_FromFormat("Unknown keyword argument '%s' for operator '%s'. Schema: %S", k, qname, fs);
                goto done;
            }
        }
        for (int i = 0; i < s->nargs; i++)
            if (PyDict_GetItemString(kw, s->args[i].name)) {
                r = PyUnicode_FromFormat("Argument '%s' specified both as positional and keyword argument. Schema: %S",
                                         s->args[i].name, fs);
                goto done;
            }
    }
    r = PyUnicode_FromString("");
done:
    Py_DECREF(fs);
    return r;
}

/* A torch.ops call no overload of [first, last) takes: upstream raises RuntimeError with the one
 * overload's reason, or for a packet "Overloaded torch operator invoked from Python failed to match
 * any schema:" and each overload's reason (aten's own overloads first, then TorchScript's, the
 * order upstream tries them). NULL with the error set; a reason upstream would not give (our
 * parse refused a call upstream binds) falls back to the TypeError of no_match. */
/* The i-th row a torch.ops call over [first, last) tries: a packet (a name's whole range) goes in
 * upstream's packet order, one overload is itself. */
static int aten_row(int first, int last, int i) { return last - first > 1 ? tn_ops_row(i) : i; }

static PyObject *aten_no_match(const char *name, int first, int last, PyObject *args, PyObject *kw) {
    PyObject *msg = PyUnicode_FromString(last - first == 1 ? "" :
                                         "Overloaded torch operator invoked from Python failed to match any schema:\n");
    for (int jit = 0; msg && jit < 2; jit++)
        for (int i = first; msg && i < last; i++) {
            int row = aten_row(first, last, i);
            if (jit_row(row) != jit) continue;
            PyObject *why = mismatch_reason(row, args, kw);
            if (why && PyUnicode_GetLength(why) == 0) {
                Py_DECREF(why);
                Py_DECREF(msg);
                return no_match(name, CALL_ATEN, args, kw);
            }
            PyObject *m2 = why ? PyUnicode_FromFormat(last - first == 1 ? "%U%U" : "%U%U\n\n", msg, why) : NULL;
            Py_XDECREF(why);
            Py_SETREF(msg, m2);
        }
    if (msg) PyErr_SetObject(PyExc_RuntimeError, msg);
    Py_XDECREF(msg);
    return NULL;
}

/* set while OpOverload._op_dk(CompositeImplicitAutograd, ...) runs: the parsed call runs as its
 * decomposition, not through the door's stages (what torch.nested's jagged fallback asks for) */
static bool dk_composite;

static PyObject *call_rows_(const char *name, int first, int last, int mode, PyObject *self,
                            PyObject *args, PyObject *kw);

/* Upstream's deprecated signatures of add / sub (its deprecated.yaml, tried after every other
 * one): torch.add(input, alpha, other, *, out=None) and Tensor.add(alpha, other), the same for
 * add_, sub and sub_, are add(input, other, alpha=alpha). A call no other signature took and
 * that has this form runs as its rewrite, after upstream's TORCH_WARN_ONCE (once per process,
 * for all of them together -- measured: torch.add(t, 2, 3) then torch.sub(t, 2, 3) warn once).
 * Py_NotImplemented (no reference) when the call is not of this form or its rewrite does not
 * bind either (the caller then raises its no-match error for the original call). */
static PyObject *deprecated_alpha_first(const char *name, int first, int last, int mode, PyObject *self,
                                        PyObject *args, PyObject *kw) {
    static bool warned;
    bool fn = mode == CALL_FUNCTION;
    if (!(!strcmp(name, "add") || !strcmp(name, "sub") || (!fn && (!strcmp(name, "add_") || !strcmp(name, "sub_")))))
        return Py_NotImplemented;
    Py_ssize_t na = args ? PyTuple_Size(args) : 0;
    if (na != (fn ? 3 : 2)) return Py_NotImplemented;
    if (kw && PyDict_Size(kw) > (fn && PyDict_GetItemString(kw, "out") ? 1 : 0)) return Py_NotImplemented;
    PyObject *alpha = PyTuple_GetItem(args, na - 2);
    PyObject *a2 = fn ? PyTuple_Pack(2, PyTuple_GetItem(args, 0), PyTuple_GetItem(args, 2))
                      : PyTuple_Pack(1, PyTuple_GetItem(args, 1));
    PyObject *k2 = kw ? PyDict_Copy(kw) : PyDict_New();
    PyObject *r = NULL;
    if (a2 && k2 && PyDict_SetItemString(k2, "alpha", alpha) == 0) {
        r = call_rows_(name, first, last, mode, self, a2, k2);
        if (!r && PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            r = Py_NotImplemented;
        } else if (!warned) {
            warned = true;
            char msg[512];
            if (fn)
                snprintf(msg, sizeof msg, "This overload of %s is deprecated:\n\t%s(Tensor input, Number alpha, Tensor "
                         "other, *, Tensor out = None)\nConsider using one of the following signatures instead:\n\t%s("
                         "Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)", name, name, name);
            else
                snprintf(msg, sizeof msg, "This overload of %s is deprecated:\n\t%s(Number alpha, Tensor other)\n"
                         "Consider using one of the following signatures instead:\n\t%s(Tensor other, *, Number "
                         "alpha = 1)", name, name, name);
            strncat(msg, " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/python_arg_parser.cpp:1841.)",
                    sizeof msg - strlen(msg) - 1);
            PyObject *et, *ev, *tb;
            PyErr_Fetch(&et, &ev, &tb);
            if (PyErr_WarnEx(PyExc_UserWarning, msg, 1) < 0) {
                Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb);
                Py_XDECREF(r);
                r = NULL;
            } else {
                PyErr_Restore(et, ev, tb);
            }
        }
    }
    Py_XDECREF(a2);
    Py_XDECREF(k2);
    return r;
}

static PyObject *call_rows_(const char *name, int first, int last, int mode, PyObject *self,
                            PyObject *args, PyObject *kw) {
    /* a number binds a Tensor parameter for these names only, in every pass, for torch.* /
     * Tensor.* and torch.ops alike (upstream's parser and its JIT schema matcher share the name
     * list: torch.ops.aten.add(t, 2) is add.Tensor, torch.ops.aten.eq.Tensor(t, 2) fails) */
    int numbers = numbers_as_tensors(name) ? TN_PARSE_NUMBERS_AS_TENSORS | TN_PARSE_NUMBER_SELF : 0;
    /* torch.ops tries aten's own overloads before TorchScript's (getAllSortedOperatorsFor) */
    for (int phase = 0; phase < (mode == CALL_ATEN ? 2 : 1); phase++)
    for (int pass = 0; pass < 2; pass++) {
        int flags = (mode == CALL_ATEN ? TN_PARSE_ATEN : 0) | numbers |
                    (pass == 0 ? 0
                               : TN_PARSE_TENSORS_AS_SCALARS |
                                     (mode == CALL_ATEN && last - first == 1 ? TN_PARSE_ATEN_LOOSE : 0));
        for (int i = first; i < last; i++) {
            int row = mode == CALL_ATEN ? aten_row(first, last, i) : i;
            const tn_op_def *d = tn_op_at(row);
            if (mode == CALL_ATEN && jit_row(row) != phase) continue;
            /* overloads upstream's Python bindings hide (e.g. add.Scalar: the Tensor overload takes numbers) */
            if (mode == CALL_METHOD && (d->variants & (TN_VARIANT_METHOD | TN_VARIANT_NO_PY_METHOD)) != TN_VARIANT_METHOD) continue;
            if (mode == CALL_FUNCTION && (d->variants & (TN_VARIANT_FUNCTION | TN_VARIANT_NO_PY_FUNCTION)) != TN_VARIANT_FUNCTION) continue;
            const tn_schema *s = tn_op_schema(row);
            if (!s) {
                /* JIT-only overloads with types our parser lacks (type variables, Dict) never match */
                if (d->variants) return NULL;
                PyErr_Clear();
                continue;
            }
            if (mode == CALL_ATEN && typevar_refuses(row, s, args, kw)) continue;
            tn_args a;
            a.nowned = a.nints = a.nheap = 0;
            a.out = NULL;
            int accel = mode == CALL_ATEN ? accel_op(d) : -1;
            int r = tn_args_parse(s, self, args, kw, flags | (accel >= 0 ? TN_PARSE_ACCEL : 0), &a);
            if (r == TN_PARSE_OK && a.accel) {
                PyObject *res = accel_refuse(d, accel, s, a.v, a.accel);
                tn_args_release(&a);
                return res;
            }
            if (r == TN_PARSE_OK) {
                last_row = row;
                bool handled = false, dk = dk_composite;
                dk_composite = false;   /* the ops the decomposition calls run as usual */
                PyObject *res = NULL;
                if (binding_refuses(row, mode, a.v)) res = NULL, handled = true;
                else if (tensor_query(row)) res = d->fn(a.v), handled = true;
                else if (dk) res = tn_composite_under_mode(row, a.v, &handled);
                if (!handled) res = dk ? tn_not_implemented("OpOverload._op_dk(CompositeImplicitAutograd) of an operator without a decomposition") : tn_door_call(row, a.v);
                tn_args_release(&a);
                /* upstream's bindings of in-place _foreach_ ops (schema "-> ()") return the list
                 * they were given */
                if (res == Py_None && mode != CALL_ATEN && s->nrets == 0 && s->nargs > 0 && s->args[0].is_list &&
                    s->args[0].is_write && !strncmp(d->name, "_foreach_", 9)) {
                    PyObject *given = PyTuple_Size(args) > 0 ? PyTuple_GetItem(args, 0)
                                    : kw ? PyDict_GetItemString(kw, "self") : NULL;
                    if (given) { Py_DECREF(res); res = Py_NewRef(given); }
                }
                return res;
            }
            tn_args_release(&a);
            if (r == TN_PARSE_ERROR) return NULL;
        }
    }
    if (mode != CALL_ATEN) {
        PyObject *r = deprecated_alpha_first(name, first, last, mode, self, args, kw);
        if (r != Py_NotImplemented) return r;
    }
    return mode == CALL_ATEN ? aten_no_match(name, first, last, args, kw) : no_match(name, mode, args, kw);
}

static PyObject *call_name(int name, int mode, PyObject *self, PyObject *args, PyObject *kw) {
    const tn_name_def *n = tn_name_at(name);
    return call_rows(n->name, n->first, n->last, mode, self, args, kw);
}

static PyObject *name_funcs[TN_NAME_COUNT]; /* torch.X / torch._C._nn.X function objects */

/* A wrapper that replaces torch.<name> (tensor_new.c's requires_grad= wrappers) becomes the
 * public_api handed to __torch_function__, so modes recognise it (e.g. torch.device("meta")'s
 * DeviceContext matches functions by identity). */
void tn_set_public_api(const char *name, PyObject *f) {
    int k = tn_name_find(name);
    if (k >= 0) Py_XSETREF(name_funcs[k], Py_NewRef(f));
}

/* A method call: __torch_function__ first (public_api is torch.Tensor.<name>), then the door. */
PyObject *tn_call_method(int name, PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *rel;
    if (tn_torch_function_active(self, args, kw, &rel)) {
        PyObject *api = PyObject_GetAttrString((PyObject *)(tn_py.tensor_class ? tn_py.tensor_class : tn_py.TensorBase),
                                               tn_name_at(name)->name);
        if (!api) { Py_DECREF(rel); return NULL; }
        PyObject *r = tn_torch_function_call(api, rel, self, args, kw);
        Py_DECREF(api);
        return r;
    }
    return call_name(name, CALL_METHOD, self, args, kw);
}

/* A method upstream binds as METH_NOARGS (CPython rejects any argument before this runs). */
static PyObject *tn_call_method_noargs(int name, PyObject *self) {
    PyObject *empty = PyTuple_New(0);
    PyObject *r = empty ? tn_call_method(name, self, empty, NULL) : NULL;
    Py_XDECREF(empty);
    return r;
}

/* Module-level functions: m_self is a Python int holding the name index (functions) or
 * -(row+1) (one torch.ops overload) or name index + ATEN_BASE (a torch.ops packet). */
#define ATEN_BASE (1 << 20)
/* torch.ops returns values the way the dispatcher boxes them, where the Python bindings convert:
 * a ScalarType is its enum value (an int), a Tensor[] is a list, several results a plain tuple. */
static PyObject *as_ivalue(PyObject *res) {
    if (!res) return NULL;
    const tn_schema *s = tn_op_schema(last_row);
    if (!s) return res;
    if (s->nrets > 1 && PyTuple_Check(res) && !PyTuple_CheckExact(res)) { /* named tuple -> tuple */
        PyObject *t = PySequence_Tuple(res);
        Py_DECREF(res);
        /* a Tensor[] among several results is a list too (histogramdd's bin_edges) */
        for (int i = 0; t && i < s->nrets && i < PyTuple_Size(t); i++) {
            PyObject *it = PyTuple_GetItem(t, i);
            if (!s->rets[i].is_list || !PyTuple_Check(it)) continue;
            PyObject *l = PySequence_List(it);
            PyObject *nt = l ? PyTuple_New(PyTuple_Size(t)) : NULL;
            for (Py_ssize_t k = 0; nt && k < PyTuple_Size(t); k++) {
                PyObject *v = k == i ? Py_NewRef(l) : Py_NewRef(PyTuple_GetItem(t, k));
                PyTuple_SetItem(nt, k, v);
            }
            Py_XDECREF(l);
            Py_DECREF(t);
            t = nt;
        }
        return t;
    }
    if (s->nrets != 1) return res;
    if (s->rets[0].type == TN_TYPE_SCALARTYPE && !s->rets[0].is_list && tn_py_is_dtype(res)) {
        tn_dtype d;
        if (tn_py_to_dtype(res, &d) < 0) { Py_DECREF(res); return NULL; }
        Py_DECREF(res);
        return PyLong_FromLong((long)d); /* tn_dtype follows upstream's ScalarType numbering */
    }
    if (s->rets[0].is_list && PyTuple_Check(res)) {
        PyObject *l = PySequence_List(res);
        Py_DECREF(res);
        return l;
    }
    return res;
}

static PyObject *function_entry(PyObject *m_self, PyObject *args, PyObject *kw) {
    long k = PyLong_AsLong(m_self);
    if (k < 0) {
        const tn_op_def *d = tn_op_at((int)(-k - 1));
        return as_ivalue(call_rows(d->name, (int)(-k - 1), (int)(-k), CALL_ATEN, NULL, args, kw));
    }
    if (k >= ATEN_BASE) return as_ivalue(call_name((int)(k - ATEN_BASE), CALL_ATEN, NULL, args, kw));
    PyObject *rel;
    if (name_funcs[k] && tn_torch_function_active(NULL, args, kw, &rel))
        return tn_torch_function_call(name_funcs[k], rel, NULL, args, kw);
    return call_name((int)k, CALL_FUNCTION, NULL, args, kw);
}

/* OpOverload._op_dk(dispatch_key, *args, **kwargs): only CompositeImplicitAutograd runs (the
 * decomposition, on the arguments as they are); other keys refuse by name */
static PyObject *function_dk_entry(PyObject *m_self, PyObject *args, PyObject *kw) {
    long k = PyLong_AsLong(m_self);
    if (PyTuple_Size(args) < 1) return PyErr_Format(PyExc_TypeError, "_op_dk() missing the dispatch key");
    PyObject *ks = PyObject_Str(PyTuple_GetItem(args, 0));
    const char *key = ks ? PyUnicode_AsUTF8AndSize(ks, NULL) : NULL;
    if (!key) { Py_XDECREF(ks); return NULL; }
    bool composite = !strcmp(key, "DispatchKey.CompositeImplicitAutograd") || !strcmp(key, "CompositeImplicitAutograd");
    if (!composite) {
        char what[160];
        snprintf(what, sizeof what, "OpOverload._op_dk(%s, ...)", key);
        Py_DECREF(ks);
        return tn_not_implemented(what);
    }
    Py_DECREF(ks);
    PyObject *rest = PyTuple_GetSlice(args, 1, PyTuple_Size(args));
    if (!rest) return NULL;
    const tn_op_def *d = tn_op_at((int)(-k - 1));
    bool was = dk_composite;
    dk_composite = true;
    PyObject *r = as_ivalue(call_rows(d->name, (int)(-k - 1), (int)(-k), CALL_ATEN, NULL, rest, kw));
    dk_composite = was;
    Py_DECREF(rest);
    return r;
}

bool tn_py_is_op_function(PyObject *f) {
    return PyCFunction_Check(f) && PyCFunction_GetFunction(f) == (PyCFunction)(void (*)(void))function_entry;
}

static PyObject *make_function(const char *pyname, long key, PyObject *modname) {
    PyMethodDef *def = PyMem_Calloc(1, sizeof *def); /* lives as long as the function: forever */
    char *nm = PyMem_Malloc(strlen(pyname) + 1);
    if (!def || !nm) return PyErr_NoMemory();
    strcpy(nm, pyname);
    def->ml_name = nm;
    def->ml_meth = (PyCFunction)(void (*)(void))function_entry;
    def->ml_flags = METH_VARARGS | METH_KEYWORDS;
    PyObject *self = PyLong_FromLong(key);
    if (!self) return NULL;
    PyObject *f = PyCFunction_NewEx(def, self, modname);
    Py_DECREF(self);
    return f;
}

/* ---------- TensorBase methods: generated trampolines plus the operator dunders ---------- */

/* Dunder -> op name. swap: call with (other, self) reversed is not needed for these; the
 * reflected forms of non-commutative ops live in upstream's torch/_tensor.py. */
static const struct { const char *dunder, *op; } dunders[] = {
    {"__add__", "add"}, {"__radd__", "add"}, {"__iadd__", "add_"},
    {"__sub__", "sub"}, {"__isub__", "sub_"},
    {"__mul__", "mul"}, {"__rmul__", "mul"}, {"__imul__", "mul_"},
    {"__truediv__", "div"}, {"__div__", "div"}, {"__itruediv__", "div_"}, {"__idiv__", "div_"},
    {"__mod__", "remainder"}, {"__imod__", "remainder_"},
    {"__matmul__", "matmul"},
    {"__eq__", "eq"}, {"__ne__", "ne"}, {"__lt__", "lt"}, {"__le__", "le"}, {"__gt__", "gt"}, {"__ge__", "ge"},
    {"__neg__", "neg"}, {"__invert__", "bitwise_not"},
    {"__and__", "__and__"}, {"__or__", "__or__"}, {"__xor__", "__xor__"},
    {"__rand__", "bitwise_and"}, {"__ror__", "bitwise_or"}, {"__rxor__", "bitwise_xor"},
    {"__lshift__", "__lshift__"}, {"__rshift__", "__rshift__"},
    {"__iand__", "__iand__"}, {"__ior__", "__ior__"}, {"__ixor__", "__ixor__"},
    {"__ilshift__", "__ilshift__"}, {"__irshift__", "__irshift__"},
};
#define NDUNDERS ((int)(sizeof dunders / sizeof *dunders))

/* Binary dunders return NotImplemented on argument mismatch so Python tries the reflection. */
static PyObject *dunder_entry(int which, PyObject *self, PyObject *args, PyObject *kw) {
    int name = tn_name_find(dunders[which].op);
    if (name < 0) return tn_not_implemented(dunders[which].op);
    PyObject *rel, *r;
    if (tn_torch_function_active(self, args, kw, &rel)) {
        /* as upstream's bindings: the public_api is the method the dunder binds (x + y: Tensor.add;
         * == and ~ are their own methods, measured), and a TypeError from it (a subclass's handlers
         * all NotImplemented) is NotImplemented too */
        const char *d = dunders[which].dunder;
        bool own = !strcmp(d, "__eq__") || !strcmp(d, "__invert__");
        PyObject *api = PyObject_GetAttrString((PyObject *)(tn_py.tensor_class ? tn_py.tensor_class : tn_py.TensorBase),
                                               own ? d : dunders[which].op);
        if (!api) { Py_DECREF(rel); return NULL; }
        r = tn_torch_function_call(api, rel, self, args, kw);
        Py_DECREF(api);
    } else {
        r = call_name(name, CALL_METHOD, self, args, kw);
    }
    /* upstream's TypeError_to_NotImplemented_ wraps every binary dunder: any TypeError (too many
     * arguments, a wrong keyword, two tensors) is NotImplemented; the unary ones take no arguments */
    if (!r && PyErr_ExceptionMatches(PyExc_TypeError) && strcmp(dunders[which].dunder, "__neg__") &&
        strcmp(dunders[which].dunder, "__invert__")) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    return r;
}

#define DUNDER(i) static PyObject *dunder_##i(PyObject *s, PyObject *a, PyObject *k) { return dunder_entry(i, s, a, k); }
DUNDER(0) DUNDER(1) DUNDER(2) DUNDER(3) DUNDER(4) DUNDER(5) DUNDER(6) DUNDER(7) DUNDER(8) DUNDER(9)
DUNDER(10) DUNDER(11) DUNDER(12) DUNDER(13) DUNDER(14) DUNDER(15) DUNDER(16) DUNDER(17) DUNDER(18)
DUNDER(19) DUNDER(20) DUNDER(21) DUNDER(22) DUNDER(23) DUNDER(24) DUNDER(25) DUNDER(26) DUNDER(27)
DUNDER(28) DUNDER(29) DUNDER(30) DUNDER(31) DUNDER(32) DUNDER(33) DUNDER(34) DUNDER(35)
static const PyCFunction dunder_fns[] = {
#define D(i) (PyCFunction)(void (*)(void))dunder_##i
    D(0), D(1), D(2), D(3), D(4), D(5), D(6), D(7), D(8), D(9), D(10), D(11), D(12), D(13), D(14),
    D(15), D(16), D(17), D(18), D(19), D(20), D(21), D(22), D(23), D(24), D(25), D(26), D(27),
    D(28), D(29), D(30), D(31), D(32), D(33), D(34), D(35),
#undef D
};
_Static_assert(sizeof dunder_fns / sizeof *dunder_fns == sizeof dunders / sizeof *dunders,
               "one dunder trampoline per dunder");

/* Append op methods to `manual` (NULL-terminated); names already in manual, or properties in
 * `props` (x.mT, x._version: upstream binds them as properties), win. Returns a new
 * NULL-terminated array that lives forever. */
PyMethodDef *tn_tensor_methods_with_ops(const PyMethodDef *manual, const PyGetSetDef *props) {
    int nman = 0, ntramp = (int)(sizeof tn_method_trampolines / sizeof *tn_method_trampolines);
    while (manual[nman].ml_name) nman++;
    PyMethodDef *defs = PyMem_Calloc((size_t)(nman + ntramp + NDUNDERS + 1), sizeof *defs);
    if (!defs) return (PyMethodDef *)PyErr_NoMemory();
    memcpy(defs, manual, (size_t)nman * sizeof *defs);
    int n = nman;
    for (int i = 0; i < ntramp; i++) {
        const char *nm = tn_name_at(tn_method_trampolines[i].name)->name;
        bool dup = false;
        for (int j = 0; j < nman && !dup; j++) dup = !strcmp(manual[j].ml_name, nm);
        for (int j = 0; props[j].name && !dup; j++) dup = !strcmp(props[j].name, nm);
        /* an op named as a dunder (__and__, __ilshift__, ...) binds through its dunder entry */
        for (int j = 0; j < NDUNDERS && !dup; j++) dup = !strcmp(dunders[j].dunder, nm);
        if (dup) continue;
        defs[n].ml_name = nm;
        bool noargs = tn_arg_noargs(nm);
        defs[n].ml_meth = noargs ? tn_method_trampolines[i].fn0 : tn_method_trampolines[i].fn;
        defs[n].ml_flags = noargs ? METH_NOARGS : METH_VARARGS | METH_KEYWORDS;
        n++;
    }
    for (int i = 0; i < NDUNDERS; i++) {
        defs[n].ml_name = dunders[i].dunder;
        defs[n].ml_meth = dunder_fns[i];
        defs[n].ml_flags = METH_VARARGS | METH_KEYWORDS;
        n++;
    }
    return defs;
}

/* ---------- torch.ops entry points ---------- */

/* The table name of a qualified operator: "aten::add" -> "add"; other namespaces keep their
 * prefix ("profiler::_record_function_enter", see src/ops/extra_schemas.txt). */
static const char *aten_name(PyObject *qualname) {
    const char *q = PyUnicode_AsUTF8AndSize(qualname, NULL);
    if (!q) return NULL;
    return strncmp(q, "aten::", 6) == 0 ? q + 6 : q;
}

static PyObject *jit_get_operation(PyObject *m, PyObject *arg) {
    const char *name = aten_name(arg);
    if (!name) return NULL;
    int k = name[0] ? tn_name_find(name) : -1;
    if (k < 0) {
        PyObject *dyn = tn_library_get_operation(PyUnicode_AsUTF8AndSize(arg, NULL));
        if (dyn || PyErr_Occurred()) return dyn;
        PyErr_Format(PyExc_RuntimeError, "No such operator %U", arg);
        return NULL;
    }
    const tn_name_def *n = tn_name_at(k);
    PyObject *overloads = PyList_New(0);
    for (int i = n->first; overloads && i < n->last; i++) {
        PyObject *s = PyUnicode_FromString(tn_op_at(tn_ops_row(i))->overload);
        if (!s || PyList_Append(overloads, s) < 0) Py_CLEAR(overloads);
        Py_XDECREF(s);
    }
    PyObject *f = overloads ? make_function(name, ATEN_BASE + k, NULL) : NULL;
    if (!f) { Py_XDECREF(overloads); return NULL; }
    return Py_BuildValue("(NN)", f, overloads);
}

static int find_row(PyObject *qualname, PyObject *overload) {
    const char *name = aten_name(qualname), *ov = PyUnicode_AsUTF8AndSize(overload, NULL);
    if (!name || !ov) return -2;
    return name[0] ? tn_op_find(name, ov) : -1;
}

/* a row's tags as torch._C.Tag members in value order, as upstream's list */
static PyObject *op_tags(int row) {
    PyObject *tag_type = PyObject_GetAttrString(tn_py.module, "Tag");
    PyObject *names = tag_type ? PyUnicode_FromString(tn_op_tag_list(row)) : NULL;
    PyObject *sep = names ? PyUnicode_FromString(",") : NULL;
    PyObject *parts = sep ? PyUnicode_Split(names, sep, -1) : NULL;
    PyObject *tags = parts ? PyList_New(0) : NULL;
    for (Py_ssize_t i = 0; tags && i < PyList_Size(parts); i++) {
        PyObject *t = PyObject_GetAttr(tag_type, PyList_GetItem(parts, i));
        if (!t) { PyErr_Clear(); continue; }   /* a tag this build's enum lacks */
        if (PyList_Append(tags, t) < 0) Py_CLEAR(tags);
        Py_DECREF(t);
    }
    PyObject *key = tags ? PyObject_GetAttrString(tag_type, "__index__") : NULL;   /* value order */
    if (!key) PyErr_Clear();
    else {
        PyObject *sort = PyObject_GetAttrString(tags, "sort");
        PyObject *kw = sort ? Py_BuildValue("{sO}", "key", key) : NULL;
        PyObject *empty = kw ? PyTuple_New(0) : NULL;
        PyObject *r = empty ? PyObject_Call(sort, empty, kw) : NULL;
        if (!r) Py_CLEAR(tags);
        Py_XDECREF(r); Py_XDECREF(empty); Py_XDECREF(kw); Py_XDECREF(sort); Py_DECREF(key);
    }
    Py_XDECREF(tag_type); Py_XDECREF(names); Py_XDECREF(sep); Py_XDECREF(parts);
    return tags;
}

static PyObject *get_operation_overload(PyObject *m, PyObject *args) {
    PyObject *q, *ov;
    if (!PyArg_ParseTuple(args, "UU:_get_operation_overload", &q, &ov)) return NULL;
    int row = find_row(q, ov);
    if (row == -2) return NULL;
    if (row < 0) {
        PyObject *dyn = tn_library_get_overload(PyUnicode_AsUTF8AndSize(q, NULL), PyUnicode_AsUTF8AndSize(ov, NULL));
        if (dyn || PyErr_Occurred()) return dyn;
        Py_RETURN_NONE;
    }
    const char *name = tn_op_at(row)->name;
    PyObject *f = make_function(name, -(long)row - 1, NULL);
    PyObject *fdk = make_function(name, -(long)row - 1, NULL); /* the dispatch-key variant */
    if (fdk) {
        static PyMethodDef dk_def = {"_op_dk", (PyCFunction)(void (*)(void))function_dk_entry, METH_VARARGS | METH_KEYWORDS, NULL};
        PyObject *self = PyLong_FromLong(-(long)row - 1);
        Py_XSETREF(fdk, self ? PyCFunction_NewEx(&dk_def, self, NULL) : NULL);
        Py_XDECREF(self);
    }
    PyObject *tags = op_tags(row);
    if (!f || !fdk || !tags) { Py_XDECREF(f); Py_XDECREF(fdk); Py_XDECREF(tags); return NULL; }
    return Py_BuildValue("(NNN)", f, fdk, tags);
}

static PyObject *get_schema(PyObject *m, PyObject *args) {
    PyObject *q, *ov;
    if (!PyArg_ParseTuple(args, "UU:_get_schema", &q, &ov)) return NULL;
    int row = find_row(q, ov);
    if (row == -2) return NULL;
    if (row < 0) {
        PyObject *dyn = tn_library_get_schema(PyUnicode_AsUTF8AndSize(q, NULL), PyUnicode_AsUTF8AndSize(ov, NULL));
        if (dyn || PyErr_Occurred()) return dyn;
        PyErr_Format(PyExc_RuntimeError, "Found no matching schema for %U.%U", q, ov);
        return NULL;
    }
    const tn_schema *s = tn_op_schema(row);
    if (!s) return NULL;
    tn_schema named = *s; /* the yaml text has no namespace; upstream's schema name has one */
    if (!named.ns || !named.ns[0]) named.ns = "aten";
    return tn_schema_to_python(&named);
}

/* _dispatch_get_computed_kernel_for_dispatch_key(name, key) -> _SafeKernelFunction: a handle whose
 * call_boxed(keyset, *args, **kwargs) calls the operator through the door (we have one kernel per
 * operator, so every key computes to it). */
typedef struct {
    PyObject_HEAD
    PyObject *op; /* the torch.ops-style callable for one overload */
    PyObject *name;
} kernel_obj;

static void kernel_dealloc(PyObject *self) {
    kernel_obj *k = (kernel_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(k->op);
    Py_CLEAR(k->name);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyObject *kernel_call_boxed(PyObject *self, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n < 1) return PyErr_Format(PyExc_TypeError, "call_boxed() expects a DispatchKeySet first");
    PyObject *rest = PyTuple_GetSlice(args, 1, n);
    if (!rest) return NULL;
    PyObject *r = PyObject_Call(((kernel_obj *)self)->op, rest, kw);
    Py_DECREF(rest);
    return r;
}

static PyObject *kernel_repr(PyObject *self) {
    return PyUnicode_FromFormat("SafeKernelFunction(op=%S)", ((kernel_obj *)self)->name);
}

static PyMethodDef kernel_methods[] = {
    {"call_boxed", (PyCFunction)(void (*)(void))kernel_call_boxed, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};
static PyType_Slot kernel_slots[] = {
    {Py_tp_dealloc, kernel_dealloc}, {Py_tp_methods, kernel_methods}, {Py_tp_repr, kernel_repr}, {0, NULL}};
static PyType_Spec kernel_spec = {"torch._C._SafeKernelFunction", sizeof(kernel_obj), 0, Py_TPFLAGS_DEFAULT, kernel_slots};
static PyTypeObject *kernel_type;

static PyObject *computed_kernel(PyObject *m, PyObject *args) {
    PyObject *name, *key;
    if (!PyArg_ParseTuple(args, "UO:_dispatch_get_computed_kernel_for_dispatch_key", &name, &key)) return NULL;
    const char *full = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!full) return NULL;
    const char *colon = strstr(full, "::"), *dot = colon ? strchr(colon, '.') : NULL;
    PyObject *q = dot ? PyUnicode_FromStringAndSize(full, dot - full) : Py_NewRef(name);
    PyObject *ov = PyUnicode_FromString(dot ? dot + 1 : "");
    PyObject *pargs = (q && ov) ? PyTuple_Pack(2, q, ov) : NULL;
    PyObject *found = pargs ? get_operation_overload(m, pargs) : NULL;
    Py_XDECREF(q); Py_XDECREF(ov); Py_XDECREF(pargs);
    if (!found) return NULL;
    if (found == Py_None) {
        Py_DECREF(found);
        return PyErr_Format(PyExc_RuntimeError, "Could not find operator %U", name);
    }
    kernel_obj *k = PyObject_New(kernel_obj, kernel_type);
    if (!k) { Py_DECREF(found); return NULL; }
    k->op = Py_NewRef(PyTuple_GetItem(found, 0));
    k->name = Py_NewRef(name);
    Py_DECREF(found);
    return (PyObject *)k;
}

static PyMethodDef op_lookup_methods[] = {
    {"_dispatch_get_computed_kernel_for_dispatch_key", computed_kernel, METH_VARARGS, NULL},
    {"_jit_get_operation", jit_get_operation, METH_O, NULL},
    {"_get_operation_overload", get_operation_overload, METH_VARARGS, NULL},
    {"_get_schema", get_schema, METH_VARARGS, NULL},
    {NULL},
};

/* ---------- module wiring ---------- */

static PyObject *submodule(PyObject *m, const char *attr) {
    PyObject *sub = PyObject_GetAttrString(m, attr);
    if (sub) return sub;
    PyErr_Clear();
    char full[64];
    snprintf(full, sizeof full, "torch._C.%s", attr);
    sub = PyModule_New(full);
    if (!sub || PyModule_AddObjectRef(m, attr, sub) < 0) { Py_XDECREF(sub); return NULL; }
    return sub;
}

static PyType_Slot vf_slots[] = {{0, NULL}};
static PyType_Spec vf_spec = {"torch._C._VariableFunctionsClass", 0, 0, Py_TPFLAGS_DEFAULT, vf_slots};

int tn_functions_init(PyObject *m) {
    PyObject *vf_type = PyType_FromSpec(&vf_spec);
    if (!vf_type) return -1;
    /* An instance whose attributes are the torch.* functions (upstream: _VariableFunctions). */
    PyObject *vf = PyType_GenericAlloc((PyTypeObject *)vf_type, 0);
    PyObject *vfmod = PyUnicode_FromString("torch._C._VariableFunctions");
    PyObject *holder = PyModule_New("torch._C._VariableFunctions");
    if (!vf || !vfmod || !holder) return -1;
    Py_DECREF(vf);
    vf = holder; /* a module object: attribute lookup and dir() behave like upstream's instance */
    static const char *const modules[][2] = {{"nn", "_nn"}, {"linalg", "_linalg"}, {"special", "_special"},
                                             {"fft", "_fft"}, {"sparse", "_sparse"}, {"nested", "_nested"}};
    for (int k = 0; k < tn_name_count(); k++) {
        const tn_name_def *n = tn_name_at(k);
        const tn_op_def *d = tn_op_at(n->first);
        bool func = false;
        for (int r = n->first; r < n->last; r++)
            func |= (tn_op_at(r)->variants & (TN_VARIANT_FUNCTION | TN_VARIANT_NO_PY_FUNCTION)) == TN_VARIANT_FUNCTION;
        if (!func || strstr(n->name, "::")) continue;
        PyObject *target = vf;
        const char *modname = "torch._C._VariableFunctions";
        PyObject *sub = NULL;
        for (size_t i = 0; i < sizeof modules / sizeof *modules; i++)
            if (!strcmp(d->module, modules[i][0])) {
                sub = submodule(m, modules[i][1]);
                if (!sub) return -1;
                target = sub;
                modname = modules[i][1];
            }
        PyObject *mn = PyUnicode_FromString(modname);
        PyObject *f = mn ? make_function(n->name, k, mn) : NULL;
        Py_XDECREF(mn);
        if (!f || PyObject_SetAttrString(target, n->name, f) < 0) { Py_XDECREF(f); Py_XDECREF(sub); return -1; }
        name_funcs[k] = f; /* kept: the public_api handed to __torch_function__ */
        Py_XDECREF(sub);
    }
    /* upstream's aliases: the canonical function under another name (its errors name the canonical) */
    static const char *const aliases[][2] = {{"spmm", "mm"}, {"dsmm", "mm"}, {"hsmm", "hspmm"}, {"saddmm", "sspaddmm"}};
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        int k = tn_name_find(aliases[i][1]);
        if (k < 0 || !name_funcs[k]) continue;
        PyObject *f = make_function(aliases[i][0], k, vfmod);
        if (!f || PyObject_SetAttrString(vf, aliases[i][0], f) < 0) { Py_XDECREF(f); return -1; }
        Py_DECREF(f);
    }
    Py_DECREF(vfmod);
    if (PyModule_AddObjectRef(m, "_VariableFunctions", vf) < 0 ||
        PyModule_AddObjectRef(m, "_VariableFunctionsClass", vf_type) < 0)
        return -1;
    Py_DECREF(vf);
    Py_DECREF(vf_type);
    if (tn_torch_function_init(m) < 0) return -1;
    kernel_type = (PyTypeObject *)PyType_FromSpec(&kernel_spec);
    if (!kernel_type || PyModule_AddObjectRef(m, "_SafeKernelFunction", (PyObject *)kernel_type) < 0) return -1;
    return PyModule_AddFunctions(m, op_lookup_methods);
}
