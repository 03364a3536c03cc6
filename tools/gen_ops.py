"""Generate the C operator table from upstream's native_functions.yaml (build time).

usage: gen_ops.py native_functions.yaml out.h family.def...

Also writes tn_aten_gen.h / tn_aten_gen.c beside out.h: the typed C op API (tools/gen_aten_api.py).

Emits one row per upstream schema: name, overload, full schema text, variants, python module, and
the op-layer function when the overload is listed in src/ops/*.def (tn_op_<name>_<overload>).
Rows are sorted by name; overloads of one name keep upstream's yaml order (any / all: the
default overload first, as upstream's Python bindings try it). A name listed in
implemented.def that upstream lacks fails the build.
"""
import os
import sys

import yaml

from gen_aten_api import emit as emit_aten_api, schema_parts


def main():
    yaml_path, out_path = sys.argv[1:3]
    implemented = []
    for impl_path in sys.argv[3:]:
        for line in open(impl_path):
            line = line.split("#", 1)[0].strip()
            if line:
                implemented.append(line if "." in line else line + ".")
    dup = {k for k in implemented if implemented.count(k) > 1}
    if dup:
        sys.exit(f"gen_ops: overloads listed twice in src/ops/*.def: {sorted(dup)}")
    try:
        loader = yaml.CSafeLoader
    except AttributeError:
        loader = yaml.SafeLoader
    entries = yaml.load(open(yaml_path), Loader=loader)
    rows = []
    for order, e in enumerate(entries):
        func = e["func"]
        head = func.split("(", 1)[0]
        name, _, overload = head.partition(".")
        variants = [v.strip() for v in str(e.get("variants", "function")).split(",")]
        if name in MANUAL_TORCH_FUNCTIONS:
            variants.append("function")
        disp = e.get("dispatch") or {}
        # CompositeImplicitAutograd on CPU: no kernel of its own (a structured delegate, a CPU or
        # CompositeExplicit kernel take precedence over the composite, as in upstream's table)
        keys = {k.strip() for kk in disp for k in kk.split(",")}
        cpu_kernel = "structured_delegate" in e or bool(keys & {"CPU", "CompositeExplicitAutograd",
                                                               "CompositeExplicitAutogradNonFunctional"})
        # (an explicit empty `dispatch: {}` — torch.nested's jagged accessors — has no kernel at all,
        # implicit or not: only a tensor subclass answers it)
        composite = ("dispatch" not in e and "structured_delegate" not in e) or \
                    ("CompositeImplicitAutograd" in keys and not cpu_kernel)
        tags = e.get("tags") or []
        tags = [tags] if isinstance(tags, str) else tags
        nofunc, nometh = python_hidden(func, name, tags)
        rows.append(dict(name=name, overload=overload, func=func, order=order, composite=composite,
                         function="function" in variants, method="method" in variants,
                         nofunc=nofunc, nometh=nometh, module=e.get("python_module", ""),
                         key=f"{name}.{overload}", tags=tags,
                         nested=any("NestedTensor" in k for k in keys),
                         sparse="SparseCPU" in keys or "CompositeExplicitAutograd" in keys))
    # Non-aten operators libtorch registers (src/ops/extra_schemas.txt): named "ns::name".
    # Our own namespace (src/ops/torchnative_schemas.txt: torch.ops.torchnative.*) joins them.
    ops_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "ops")
    extra_lines = [l for f in ("extra_schemas.txt", "torchnative_schemas.txt") for l in open(os.path.join(ops_dir, f))]
    for line in extra_lines:
        line = line.split("#", 1)[0].strip()
        if line:
            head = line.split("(", 1)[0]
            ns_name, _, overload = head.partition(".")
            if ns_name.startswith("aten::"):  # aten's JIT-only overloads join their yaml siblings
                ns_name = ns_name[len("aten::"):]
            rows.append(dict(name=ns_name, overload=overload, func=line, order=len(rows), composite=False,
                             function=False, method=False, nofunc=False, nometh=False, module="",
                             key=f"{ns_name}.{overload}"))
    known = {r["key"] for r in rows}
    missing = [k for k in implemented if k not in known]
    if missing:
        sys.exit(f"gen_ops: src/ops/*.def list overloads upstream lacks: {missing}")
    impl = set(implemented)
    # Where upstream's Python bindings try an overload before the ones yaml lists ahead of it and
    # both take the call: torch.any(t) / t.all() are any.default / all.default there (torchgen's
    # signature order puts `any(Tensor input)` first), where yaml order would give any.dims with
    # dim=None (same values; a dispatch mode sees the overload). Measured with a dispatch mode
    # over the reductions, factories and pointwise ops whose orders differ. (A special case: the
    # general form would order every name's rows by torchgen's signature order, which
    # tools/gen_pysigs.py already computes; 60 names differ, only these two were seen to dispatch
    # differently.)
    for r in rows:
        if (r["name"], r["overload"]) in {("any", ""), ("all", "")}:
            r["order"] = -1
    rows.sort(key=lambda r: (r["name"], r["order"]))

    def cname(key):
        # "exp." -> tn_op_exp, "exp_." -> tn_op_exp_, "add_.Tensor" -> tn_op_add__Tensor
        name, _, overload = key.partition(".")
        return "tn_op_" + name + ("_" + overload if overload else "")

    out = ["/* Generated by tools/gen_ops.py from upstream native_functions.yaml. Do not edit. */",
           "#ifndef TN_OPS_GEN_H", "#define TN_OPS_GEN_H", '#include "dispatch/door.h"', ""]
    for k in implemented:
        out.append(f"PyObject *{cname(k)}(tn_value *args);")
    out.append("")
    out.append(f"#define TN_OP_COUNT {len(rows)}")
    out.append(f"#define TN_OP_IMPLEMENTED_COUNT {len(impl)}")
    out.append("static const tn_op_def tn_op_defs[TN_OP_COUNT] = {")
    for r in rows:
        flags = " | ".join(f for f, on in (("TN_VARIANT_FUNCTION", r["function"]),
                                          ("TN_VARIANT_METHOD", r["method"]),
                                          ("TN_VARIANT_NO_PY_FUNCTION", r["function"] and r["nofunc"]),
                                          ("TN_VARIANT_NO_PY_METHOD", r["method"] and r["nometh"])) if on) or "0"
        fn = cname(r["key"]) if r["key"] in impl else "NULL"
        func = r["func"].replace("\\", "\\\\").replace('"', '\\"')
        out.append(f'    {{"{r["name"]}", "{r["overload"]}", "{func}", {flags}, "{r["module"]}", {fn}}},')
    out.append("};")
    # upstream's tags read below the door (door.h TN_TAG_*): 1 pointwise, 2 nondeterministic_seeded
    # (a random op), 4 inplace_view (squeeze_, t_, ...: autograd records them as views); 8: not a
    # tag, upstream registers a kernel for strided nested tensors (a NestedTensor dispatch key);
    # 16: not a tag, upstream runs something on a sparse COO tensor (a SparseCPU kernel, or a
    # CompositeExplicitAutograd one, which covers the sparse keys too)
    out.append("static const unsigned char tn_op_tag_bits[TN_OP_COUNT] = {")
    out.append(", ".join(str((1 if "pointwise" in r.get("tags", []) else 0) |
                             (2 if "nondeterministic_seeded" in r.get("tags", []) else 0) |
                             (4 if "inplace_view" in r.get("tags", []) else 0) |
                             (8 if r.get("nested") else 0) |
                             (16 if r.get("sparse") else 0)) for r in rows))
    out.append("};")
    # every tag upstream's OpOverload.tags lists (_get_operation_overload): the yaml's, "inplace" /
    # "out" by the schema's kind as torchgen derives them, pt2_compliant_tag on every aten op;
    # comma-separated names (functions.c sorts them by torch.Tag value)
    def all_tags(r):
        t = list(r.get("tags", []))
        name, args = r["name"], r["func"].split("->")[0]
        inplace = (name.endswith("_") and not name.startswith("__")) or \
                  (name.startswith("__i") and name.endswith("__"))
        kwonly = args.split("*", 1)[1] if "*" in args else ""
        if inplace:
            t.append("inplace")
        elif "!)" in kwonly:
            t.append("out")
        t.append("pt2_compliant_tag")
        return ",".join(dict.fromkeys(t))
    out.append("static const char *const tn_op_tag_names[TN_OP_COUNT] = {")
    out.append(", ".join(f'"{all_tags(r)}"' for r in rows))
    out.append("};")
    infos_by_row = {}
    out += autograd_table(yaml_path, rows, impl, cname, infos_by_row)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from fw_formulas import forward_table
    native = os.path.dirname(yaml_path)
    out += forward_table(yaml_path, os.path.join(native, "tags.yaml"),
                         os.path.join(os.path.dirname(os.path.dirname(native)), "autograd", "derivatives.yaml"),
                         rows, impl, cname, arg_names)
    # Named-tuple result types (torch.return_types.X): ops returning several named values; the
    # out= overloads get "X_out".
    rtypes = {}
    for r in rows:
        if "::" in r["name"]:
            continue
        rets = r["func"].rsplit("->", 1)[1].strip()
        if not rets.startswith("("):
            continue
        parts = [p.strip() for p in rets[1:-1].split(",")]
        fields = [p.split(" ")[-1] for p in parts if " " in p]
        if len(fields) != len(parts) or len(parts) < 2:
            continue
        tname = r["name"] + ("_out" if any("!" in p for p in parts) else "")
        rtypes.setdefault(tname, fields)
    out.append(f"#define TN_RETURN_TYPE_COUNT {len(rtypes)}")
    out.append("static const struct { const char *name, *fields[16]; int n; } tn_return_type_defs[] = {")
    for n, fields in sorted(rtypes.items()):
        fs = ", ".join(f'"{f}"' for f in fields)
        out.append(f'    {{"{n}", {{{fs}}}, {len(fields)}}},')
    out.append("};")
    # Python-visible names: one row per distinct name, with its range of overload rows.
    names = []
    for i, r in enumerate(rows):
        if names and names[-1][0] == r["name"]:
            names[-1][2] = i + 1
            names[-1][3] |= r["method"] and not r["nometh"]
        else:
            names.append([r["name"], i, i + 1, r["method"] and not r["nometh"]])
    # torch.ops order (src/ops/overload_order.txt, measured upstream): per name, its dispatcher
    # rows in the order upstream's packets list and try them, then the TorchScript-only rows
    # (extra_schemas.txt's aten rows that are not autogen .out overloads) in table order.
    listed = {}
    for line in open(os.path.join(ops_dir, "overload_order.txt")):
        if not line.startswith("#") and line.strip():
            name, *ovs = line.split()
            listed[name] = {("" if o == "default" else o): k for k, o in enumerate(ovs)}
    script_only = [r["func"].startswith("aten::") and r["overload"] not in listed.get(r["name"], {}) for r in rows]
    ops_order = []
    for n, a, b, m in names:
        rank = listed.get(n, {})
        ops_order += sorted(range(a, b), key=lambda i: (script_only[i], rank.get(rows[i]["overload"], 0), i))
    out.append("static const int tn_ops_order[TN_OP_COUNT] = {")
    out += [f"    {', '.join(map(str, ops_order[k:k + 20]))}," for k in range(0, len(ops_order), 20)]
    out.append("};")
    out.append("static const unsigned char tn_ops_script_only[TN_OP_COUNT] = {")
    out += [f"    {', '.join(str(int(v)) for v in script_only[k:k + 40])}," for k in range(0, len(rows), 40)]
    out.append("};")
    out.append(f"#define TN_NAME_COUNT {len(names)}")
    out.append("static const tn_name_def tn_name_defs[TN_NAME_COUNT] = {")
    for n, a, b, m in names:
        out.append(f'    {{"{n}", {a}, {b}, {int(bool(m))}}},')
    out.append("};")
    # One trampoline per method name: PyMethodDef carries no closure, so each method gets its own
    # C entry that passes its name index on to tn_call_method.
    out.append("#ifdef TN_WANT_METHOD_TRAMPOLINES")
    # (and a METH_NOARGS form, used where upstream's binding takes no arguments: CPython words
    # the error then, as upstream's)
    for k, (n, a, b, m) in enumerate(names):
        if m:
            out.append(f"static PyObject *tn_meth_{k}(PyObject *s, PyObject *a, PyObject *kw) "
                       f"{{ return tn_call_method({k}, s, a, kw); }}")
            out.append(f"static PyObject *tn_meth0_{k}(PyObject *s, PyObject *u) "
                       f"{{ (void)u; return tn_call_method_noargs({k}, s); }}")
    out.append("static const struct { int name; PyCFunction fn, fn0; } tn_method_trampolines[] = {")
    for k, (n, a, b, m) in enumerate(names):
        if m:
            out.append(f"    {{{k}, (PyCFunction)(void (*)(void))tn_meth_{k}, tn_meth0_{k}}},")
    out.append("};")
    out.append("#endif")
    out.append("#endif")
    open(out_path, "w").write("\n".join(out) + "\n")
    # the typed C op API (tools/gen_aten_api.py), beside the table
    api_h, api_c = emit_aten_api(rows, impl, cname)
    base = os.path.dirname(out_path)
    open(os.path.join(base, "tn_aten_gen.h"), "w").write("\n".join(api_h) + "\n")
    open(os.path.join(base, "tn_aten_gen.c"), "w").write("\n".join(api_c) + "\n")
    # backward formulas generated from derivatives.yaml (tools/bw_formulas.py, docs/bw_formulas.md)
    from bw_formulas import backward_table
    formulas_c = os.path.join(os.path.dirname(ops_dir), "autograd", "formulas.c")
    bw_c, st = backward_table(rows, impl, infos_by_row, cname, formulas_c)
    open(os.path.join(base, "tn_bw_gen.c"), "w").write("\n".join(bw_c) + "\n")
    print(f"gen_ops: backward formulas: {len(st['generated']) - len(st['overridden'])} generated, "
          f"{len(st['overrides'])} hand-written in formulas.c ({len(st['overridden'])} of them also generated), "
          f"{len(st['unsupported'])} rows not translated")


# Names upstream's Python binding generator skips (torchgen's should_generate_py_binding) but
# binds by hand (python_torch_functions_manual.cpp, python_variable_methods.cpp): here the
# generated binding stands in for the manual one, so these stay visible (measured on 2.13.0:
# dir(torch), dir(torch.Tensor)).
# method-only rows upstream also binds as torch.* by hand (python_torch_functions_manual.cpp)
MANUAL_TORCH_FUNCTIONS = {"get_device", "numel"}
MANUAL_FUNCTIONS = {"nonzero", "range", "sparse_bsc_tensor", "sparse_bsr_tensor", "sparse_compressed_tensor",
                    "sparse_coo_tensor", "sparse_csc_tensor", "sparse_csr_tensor"} | MANUAL_TORCH_FUNCTIONS
MANUAL_METHODS = {"_version", "contiguous", "copy_", "data", "dim", "get_device", "is_contiguous", "is_leaf", "item",
                  "mH", "mT", "nonzero", "numel", "output_nr", "requires_grad_", "retains_grad", "set_",
                  "storage_offset", "to"}


def python_hidden(func, name, tags):
    """(hidden from torch.* / torch._C._nn.* ..., hidden from Tensor.*) for one yaml row, as
    upstream's generated bindings: code-generated overloads (tag "generated", unless
    "view_copy"), names matching SKIP_PYTHON_BINDINGS (e.g. ".*_backward", ".*_forward", "copy",
    "_foreach_copy"; matched against the C++ name, which ends in "_out" for out= overloads) and
    the signatures in SKIP_PYTHON_BINDINGS_SIGNATURES (add.Scalar ...)."""
    from torchgen.api import cpp
    from torchgen.model import FunctionSchema
    from torchgen.packaged.autograd.gen_python_functions import (SKIP_PYTHON_BINDINGS,
                                                                 SKIP_PYTHON_BINDINGS_SIGNATURES)
    fs = FunctionSchema.parse(func)
    skip = ("generated" in tags and "view_copy" not in tags) or \
        any(r.match(cpp.name(fs)) for r in SKIP_PYTHON_BINDINGS) or str(fs) in SKIP_PYTHON_BINDINGS_SIGNATURES
    return skip and name not in MANUAL_FUNCTIONS, skip and name not in MANUAL_METHODS


def arg_types(func):
    """Argument types of a schema, in arg_names' order ("Tensor?", "Tensor(a!)", "int[1]", ...)."""
    return [p.strip().split()[0] for p in schema_parts(func) if p.strip() and p.strip() != "*"]


def arg_names(func):
    """Argument names of a schema, in order ("add.Tensor(Tensor self, ...)" -> ["self", ...])."""
    parts = schema_parts(func)
    names = []
    for p in parts:
        p = p.split("=", 1)[0].strip()
        if p and p != "*":
            names.append(p.split()[-1])
    return names


def foreach_references(infos, rows):
    """row index -> (reference FunctionSchema, its DifferentiabilityInfo) for _foreach_* rows, by
    torchgen's own is_reference_for_foreach (the functional reference, also for in-place rows)."""
    from types import SimpleNamespace
    from torchgen.api.autograd import is_reference_for_foreach
    from torchgen.model import FunctionSchema
    functional = [(sch, d["Default"]) for sch, d in infos.items()
                  if "Default" in d and sch.kind().name == "functional"]
    res = {}
    for ri, r in enumerate(rows):
        if not r["name"].startswith("_foreach_"):
            continue
        try:
            fs = FunctionSchema.parse(r["func"])
        except Exception:
            continue
        if fs.kind().name not in ("functional", "inplace"):
            continue
        shim = SimpleNamespace(func=fs)
        for sch, info in functional:
            if is_reference_for_foreach(shim, sch):
                res[ri] = (sch, info)
                break
    return res


def save_guards(info, types):
    """(saved argument, guarding argument) pairs, by the rules of torchgen's guard_for
    (gen_variable_type.py): no tensor-list argument, not a backward op, more than one
    differentiable argument, a plain Tensor read by exactly one single-input formula."""
    from torchgen.api.types import BaseCType, tensorT
    if any(t.startswith("Tensor[") or t.startswith("Tensor?[") for t in types) or "backward" in info.name:
        return []
    if len(info.args_with_derivatives) <= 1:
        return []
    res = []
    for arg in info.all_saved_inputs:
        if arg.nctype.type != BaseCType(tensorT):
            continue
        used_in = [d for d in info.derivatives if arg in d.saved_inputs]
        if len(used_in) != 1 or len(used_in[0].var_names) != 1:
            continue
        res.append((arg.nctype.name, used_in[0].var_names[0]))
    return res


def autograd_table(yaml_path, rows, impl, cname, infos_by_row=None):
    """Per row: upstream's autograd node (derivatives.yaml, normalised by torchgen's own loader):
    node name, which arguments are differentiable, which are saved whole, which outputs are saved
    and differentiable, and whether the overload is CompositeImplicitAutograd (decomposes while
    recording). Fills infos_by_row (row -> its torchgen DifferentiabilityInfo). Also TN_ROW_<op> constants for the implemented rows (formulas and decompositions
    call ops by row, through the door)."""
    from torchgen.api.autograd import uses_single_grad
    from torchgen.packaged.autograd.gen_variable_type import DONT_REQUIRE_DERIVATIVE
    from torchgen.packaged.autograd.load_derivatives import load_derivatives
    native = os.path.dirname(yaml_path)
    deriv = os.path.join(os.path.dirname(os.path.dirname(native)), "autograd", "derivatives.yaml")
    infos, _ = load_derivatives(deriv, yaml_path, os.path.join(native, "tags.yaml"))
    from torchgen.model import FunctionSchema
    by_key, by_sig = {}, {}
    for d in infos.values():
        info = d.get("Default")
        if info is not None:
            f = info.func.func
            by_key[f"{f.name.name}.{f.name.overload_name}"] = info
            if not f.name.name.inplace and f.kind().name == "functional":
                by_sig.setdefault(str(f.signature()), info)
    # nograd: tensor arguments upstream's autograd kernel checks with check_no_requires_grad (no
    # formula, not marked non_differentiable, not named "output"): requiring grad is an error
    out = ["typedef struct { const char *node; uint64_t diff, save; uint8_t save_out, out_diff, composite, has_formula, nondiff; uint64_t nograd; } tn_op_autograd_def;",
           "static const tn_op_autograd_def tn_op_autograd_defs[TN_OP_COUNT] = {"]
    # Nodes upstream writes by hand (VariableTypeManual.cpp) rather than in derivatives.yaml:
    # key -> (node name, differentiable arguments)
    manual = {"copy_.": ("CopyBackwards", ("self", "src"))}
    guards = []   # (row, saved argument, the argument whose gradient alone reads it)
    foreach_ref = foreach_references(infos, rows)
    for ri, r in enumerate(rows):
        info = by_key.get(r["key"])
        if r["key"] in manual:
            node, dargs = manual[r["key"]]
            dm = sum(1 << i for i, n in enumerate(arg_names(r["func"])) if n in dargs)
            out.append(f'    {{"{node}", {dm}ULL, 0ULL, 0, 255, 0, 1, 0}},')
            continue
        if info is None and r["name"].endswith("_") and not r["name"].startswith("_"):
            # in-place: the functional's node, matched as torchgen does, by the core signature
            # (pow_.Scalar is pow.Tensor_Scalar's in-place form, not pow.Scalar's)
            try:
                info = by_sig.get(str(FunctionSchema.parse(r["func"]).signature()))
            except Exception:
                info = None
            if info is None:
                info = by_key.get(f"{r['name'][:-1]}.{r['overload']}")
        if info is None and ri in foreach_ref and not r["name"].endswith("_"):
            # upstream's generated foreach node (gen_foreach_derivativeinfo): the reference op's
            # formula per element, named Foreach<reference node><overload>
            ref, rinfo = foreach_ref[ri]
            rdiff = {v for dv in rinfo.derivatives for v in dv.var_names}
            rnames = [a.name for a in ref.arguments.flat_non_out]
            dm = sum(1 << i for i, n in enumerate(rnames) if n in rdiff and i < 64)
            out.append(f'    {{"Foreach{rinfo.op}{r["overload"]}", {dm}ULL, 0ULL, 0, 255, {int(r["composite"])}, 1, 0, 0ULL}},')
            continue
        if info is None:
            # upstream tests the base name too (get_base_name): logical_not_ is logical_not's in-place
            # form, not differentiable either (dunders keep their own name: __iand__). The in-place
            # dunders (__iand__ .. __irshift__) refuse a leaf requiring grad before their kernel
            # all the same (measured: "a leaf Variable that requires grad is being used in an
            # in-place operation.", docs/breadth_more2.md), so they take the in-place checks
            nm = r["name"]
            nd = nm in DONT_REQUIRE_DERIVATIVE or (nm.endswith("_") and not nm.startswith("__")
                                                   and nm[:-1] in DONT_REQUIRE_DERIVATIVE)
            nd = nd and not (nm.startswith("__i") and nm.endswith("__"))
            out.append(f'    {{NULL, 0, 0, 0, 0, {int(r["composite"])}, 0, {int(nd)}}},')
            continue
        if infos_by_row is not None:
            infos_by_row[ri] = info
        names = arg_names(r["func"])
        diff = set()
        for dv in info.derivatives:
            diff.update(dv.var_names)
        saved = {s.nctype.name for s in info.all_saved_inputs}
        dmask = sum(1 << i for i, n in enumerate(names) if n in diff and i < 64)
        smask = sum(1 << i for i, n in enumerate(names) if n in saved and i < 64)
        souts = {s.nctype.name for s in info.all_saved_outputs}
        rnames = [x.strip().split()[-1] if len(x.strip().split()) > 1 else None
                  for x in r["func"].rsplit("->", 1)[1].strip().strip("()").split(",")]   # named returns
        somask = sum(1 << k for k in range(8) if ("result" if k == 0 and "result" in souts else f"result{k}") in souts
                     or (k < len(rnames) and rnames[k] in souts))
        od = info.output_differentiability
        if od is None:   # upstream: formulas that use only `grad` make only the first output differentiable
            odmask = 1 if uses_single_grad(info) else 0xff
        else:
            odmask = sum(1 << k for k, v in enumerate(od) if v)
        nograd = 0
        if info.derivatives:
            nondiff_names = set(info.non_differentiable_arg_names)
            for i, (n, typ) in enumerate(zip(names, arg_types(r["func"]))):
                if typ.startswith("Tensor") and n not in diff and n not in nondiff_names and n != "output" and i < 64:
                    nograd |= 1 << i
        out.append(f'    {{"{info.op}", {dmask}ULL, {smask}ULL, {somask}, {odmask}, {int(r["composite"])}, {int(bool(info.derivatives))}, 0, {nograd}ULL}},')
        guards += [(ri, names.index(a), names.index(g)) for a, g in save_guards(info, arg_types(r["func"]))
                   if a in names and g in names]
    out.append("};")
    # upstream's generated VariableType saves an argument read by one input's formula only when
    # that input's gradient is wanted (gen_variable_type.py's guard_for); record.c follows it
    # foreach rows: the reference op row their per-element formula (out-of-place) or per-element
    # in-place op (in-place rows, recorded as one node per tensor, as upstream) comes from
    key_row = {r["key"]: i for i, r in enumerate(rows)}
    refrow = {}
    # foreach rows with their own derivatives.yaml entry whose formula is the reference's per
    # element (_foreach_norm.Scalar: norm_backward(grads[i], self[i], ord, result[i]), norm.Scalar's)
    # (_foreach_maximum/minimum.Scalar/.ScalarList: their element nodes are recorded as clamp_min /
    # clamp_max, which save the same self and scalar; the formula is their own, formulas.c's
    # tn_foreach_formula)
    manual_ref = {"_foreach_norm.Scalar": "norm.Scalar",
                  "_foreach_maximum.Scalar": "clamp_min.", "_foreach_maximum.ScalarList": "clamp_min.",
                  "_foreach_minimum.Scalar": "clamp_max.", "_foreach_minimum.ScalarList": "clamp_max."}
    for ri, r in enumerate(rows):
        if r["key"] in manual_ref and manual_ref[r["key"]] in key_row and manual_ref[r["key"]] in impl:
            refrow[ri] = key_row[manual_ref[r["key"]]]
    # the per-tensor in-place op of an in-place row is the reference's in-place form, matched by
    # signature as torchgen matches them (pow_.Tensor is pow.Tensor_Tensor's); an in-place row
    # whose reference has none (_foreach_maximum_.List: maximum) records the functional
    # reference's node on each written tensor (tn_op_foreach_ref_fn), as upstream's
    inplace_by_sig = {}
    for i, r in enumerate(rows):
        if r["name"].endswith("_") and not r["name"].startswith("_") and r["key"] in impl:
            try:
                inplace_by_sig.setdefault((r["name"][:-1], str(FunctionSchema.parse(r["func"]).signature())), i)
            except Exception:
                pass
    refrow_fn = {}
    for ri, (ref, rinfo) in foreach_ref.items():
        k = f"{ref.name.name}.{ref.name.overload_name}"
        if rows[ri]["name"].endswith("_"):
            i = inplace_by_sig.get((str(ref.name.name), str(ref.signature())))
            if i is not None:
                refrow[ri] = i
            elif k in key_row and k in impl:
                refrow_fn[ri] = key_row[k]
            continue
        if k in key_row and k in impl:
            refrow[ri] = key_row[k]
    out.append("static const int tn_op_foreach_ref[TN_OP_COUNT] = {")
    out.append(", ".join(str(refrow.get(i, -1)) for i in range(len(rows))))
    out.append("};")
    out.append("static const int tn_op_foreach_ref_fn[TN_OP_COUNT] = {")
    out.append(", ".join(str(refrow_fn.get(i, -1)) for i in range(len(rows))))
    out.append("};")
    # 1: the node is torchgen-generated (gen_foreach_derivativeinfo): upstream gives it no Python
    # class of its own (type CppFunction); 0: a derivatives.yaml entry (ForeachDivBackward0)
    out.append("static const unsigned char tn_op_foreach_generated[TN_OP_COUNT] = {")
    out.append(", ".join(str(int(i in foreach_ref and by_key.get(rows[i]["key"]) is None)) for i in range(len(rows))))
    out.append("};")
    out.append("typedef struct { int op, arg, guard; } tn_save_guard;")
    out.append("static const tn_save_guard tn_op_save_guards[] = {")
    out += [f"    {{{a}, {b}, {c}}}," for a, b, c in guards]
    out.append("    {-1, -1, -1},")
    out.append("};")
    out.append("enum {")
    for i, r in enumerate(rows):
        if r["key"] in impl:
            out.append(f"    TN_ROW_{cname(r['key'])[6:]} = {i},")
    out.append("};")
    return out


if __name__ == "__main__":
    main()
