"""Forward-mode AD formulas for tools/gen_ops.py (build time).

torchgen's own loader (load_derivatives + match_differentiability_info) gives each overload its
forward derivatives as C++ expressions: derivatives.yaml's `result:` entries with auto_element_wise
and auto_linear expanded, in-place variants rewritten as upstream's VariableType does. This module
parses those expressions into a small prefix notation that src/autograd/forward.c evaluates at run
time, calling aten ops by name through the door (and the few helper functions upstream's
FunctionsManual.cpp defines, written in C in src/autograd/forward_formulas.c).

Notation (one expression):  (v name) variable | (n 1.5) float | (i 2) int | (b 1) bool | (s str)
  | (none) | (l e...) braced list | (c fn e...) call | (m name recv e...) method call
  | (? c a b) | (op a b) for + - * / < <= > >= == != && || | (neg e) | (not e) | (deref e)
  | (with k name1 .. namek e1 .. ek body): e1..ek evaluated, then bound to the names while body runs
An expression the parser does not understand yields None: that overload refuses by name.

A call of a FunctionsManual helper that tools/bw_formulas.py writes as formula text (its INLINE
table) and src/autograd/forward_formulas.c has no C version of is expanded in place: its
parameters, then each `name = expr;` statement, become `with` bindings around its result
expression (one text for both directions).
"""
import math
import re

CONSTANTS = {"M_PI": math.pi, "M_LN2": math.log(2), "M_SQRT2": math.sqrt(2), "M_SQRT1_2": math.sqrt(0.5),
             "M_2_SQRTPI": 2 / math.sqrt(math.pi), "M_LN10": math.log(10), "M_E": math.e}
TOKEN = re.compile(r"""\s*(?:
    (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fL]?)
  | (?P<str>"[^"]*")
  | (?P<id>[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*)
  | (?P<op>&&|\|\||<=|>=|==|!=|->|[-+*/<>?:(),.{}\[\]!&])
)""", re.X)


class Unsupported(Exception):
    pass


def tokenize(s):
    s = re.sub(r"/\*.*?\*/", " ", s)
    out, pos = [], 0
    while pos < len(s):
        if s[pos:].strip() == "":
            break
        m = TOKEN.match(s, pos)
        if not m or m.end() == pos:
            raise Unsupported(s[pos:])
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


BINARY = {"||": 1, "&&": 2, "&": 3, "==": 4, "!=": 4, "<": 5, "<=": 5, ">": 5, ">=": 5, "+": 6, "-": 6, "*": 7, "/": 7}
REDUCTION = {"at::Reduction::None": 0, "at::Reduction::Mean": 1, "at::Reduction::Sum": 2}


class Parser:
    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else (None, None)

    def take(self, val=None):
        tok = self.peek()
        if tok[0] is None or (val is not None and tok[1] != val):
            raise Unsupported(f"expected {val}, got {tok}")
        self.i += 1
        return tok

    def expr(self):
        c = self.binary(1)
        if self.peek()[1] == "?":
            self.take("?")
            a = self.expr()
            self.take(":")
            b = self.expr()
            return f"(? {c} {a} {b})"
        return c

    def binary(self, prec):
        left = self.unary()
        while True:
            op = self.peek()
            if op[0] != "op" or op[1] not in BINARY or BINARY[op[1]] < prec:
                return left
            self.take()
            right = self.binary(BINARY[op[1]] + 1)
            left = f"({op[1]} {left} {right})"

    def unary(self):
        tok = self.peek()
        if tok == ("op", "-"):
            self.take()
            return f"(neg {self.unary()})"
        if tok == ("op", "!"):
            self.take()
            return f"(not {self.unary()})"
        if tok == ("op", "*"):
            self.take()
            return f"(deref {self.unary()})"
        return self.postfix(self.primary())

    def args(self, close=")"):
        out = []
        if self.peek()[1] == close:
            self.take(close)
            return out
        while True:
            out.append(self.expr())
            if self.peek()[1] == ",":
                self.take(",")
                continue
            self.take(close)
            return out

    def postfix(self, e):
        while True:
            tok = self.peek()
            if tok == ("op", "."):
                self.take()
                name = self.take()[1]
                if self.peek()[1] == "(":
                    self.take("(")
                    e = "(m {} {})".format(method_name(name), " ".join([e] + self.args()))
                else:
                    raise Unsupported("field access")
            elif tok == ("op", "["):
                raise Unsupported("indexing")
            else:
                return e

    def primary(self):
        kind, val = self.take()
        if kind == "num":
            v = val.rstrip("fL")
            if re.fullmatch(r"\d+", v):
                return f"(i {v})"
            return f"(n {float(v)!r})"
        if kind == "str":
            return f"(s {val[1:-1]})"
        if kind == "op" and val == "(":
            e = self.expr()
            self.take(")")
            return e
        if kind == "op" and val == "{":
            return "(l {})".format(" ".join(self.args("}")))
        if kind != "id":
            raise Unsupported(val)
        if val in ("true", "false"):
            return f"(b {int(val == 'true')})"
        if val in ("std::nullopt", "c10::nullopt", "::std::nullopt"):
            return "(none)"
        if val in REDUCTION:
            return f"(i {REDUCTION[val]})"
        if val == "std::get" and self.peek() == ("op", "<"):
            self.take("<")
            k = self.take()
            self.take(">")
            self.take("(")
            inner = self.args()
            if k[0] != "num" or len(inner) != 1:
                raise Unsupported("std::get")
            return f"(c tuple_get (i {k[1]}) {inner[0]})"
        if val == "GradMode::is_enabled":
            self.take("(")
            self.take(")")
            return "(c GradMode_is_enabled)"
        if val in CONSTANTS:
            return f"(n {CONSTANTS[val]!r})"
        if val.startswith("std::") and val[5:] in ("sqrt", "exp", "log") and self.peek()[1] == "(":
            val = val[5:]   # C's math on a formula's constants
        if self.peek()[1] == "(":
            self.take("(")
            name = val
            if name.startswith("at::"):
                name = name[4:]
            if "::" in name or "<" in name:
                raise Unsupported(name)
            return "(c {} {})".format(func_name(name), " ".join(self.args())).replace(" )", ")")
        if "::" in val:
            raise Unsupported(val)
        return f"(v {val})"


def func_name(n):
    return n[:-len("_symint")] if n.endswith("_symint") else n


def method_name(n):
    if n == "sym_sizes":
        return "sizes"
    if n == "sym_strides":
        return "strides"
    return func_name(n)


def translate(formula):
    """The prefix-notation program of a C++ formula, or None when it is not understood."""
    try:
        p = Parser(tokenize(formula))
        e = p.expr()
        if p.peek()[0] is not None:
            raise Unsupported("trailing")
        return e
    except Unsupported:
        return None


# FunctionsManual helpers forward_formulas.c computes in C although bw_formulas.py has their text
FW_C_HELPERS = {"infinitely_differentiable_silu_backward", "pow_backward_self", "pow_backward_exponent",
                "log1p_backward", "angle_backward"}


def inline_helpers(prog):
    """prog with each call of an INLINE helper (bw_formulas.py) expanded into `with` bindings;
    Unsupported when a helper's text does not translate or needs what the forward evaluator lacks."""
    from bw_formulas import INLINE, read_sexpr

    def walk(t):
        if not isinstance(t, list):
            return t
        t = [walk(x) for x in t]
        if t == ["v", "NAN"]:
            return ["n", "nan"]
        if t[0] == "v" and t[1] == "SUBCLASS_LIKE":
            raise Unsupported("areAnyTensorSubclassLike in a forward formula")
        if len(t) >= 2 and t[0] == "c" and t[1] in INLINE and t[1] not in FW_C_HELPERS:
            return expand(t[1], t[2:])
        return t

    def expand(name, args):
        bodies = [b for b in INLINE[name] if len(b[1]) == len(args)]
        if len(bodies) != 1:
            raise Unsupported(f"helper {name} with {len(args)} arguments")
        _, pnames, body = bodies[0]
        stmts = [x.strip() for x in body.strip().split(";")]
        prog = translate(stmts[-1])
        if prog is None:
            raise Unsupported(f"helper {name}: {stmts[-1]}")
        e = walk(read_sexpr(prog))
        for st in reversed(stmts[:-1]):
            m = re.fullmatch(r"(\w+)\s*=\s*(.*)", st, re.S)
            v = translate(m.group(2)) if m else None
            if v is None:
                raise Unsupported(f"helper {name}: {st}")
            e = ["with", "1", m.group(1), walk(read_sexpr(v)), e]
        return ["with", str(len(args)), *pnames, *args, e]

    def show(t):
        return "(" + " ".join(show(x) for x in t) + ")" if isinstance(t, list) else t
    return show(walk(read_sexpr(prog)))


def forward_table(yaml_path, tags_path, deriv_path, rows, impl, cname, arg_names):
    """C rows of tn_op_fw_defs[]: for each table row, its forward derivatives (which outputs,
    required tangents and primals as argument masks, whether a copy of self before the op is
    needed, the program) or why there are none."""
    from torchgen.api.autograd import match_differentiability_info
    from torchgen.gen import parse_native_yaml
    from torchgen.packaged.autograd.gen_variable_type import DONT_REQUIRE_DERIVATIVE
    from torchgen.packaged.autograd.load_derivatives import load_derivatives
    infos, _ = load_derivatives(deriv_path, yaml_path, tags_path)
    nfs = parse_native_yaml(yaml_path, tags_path).native_functions
    by_key = {}
    for x in match_differentiability_info(nfs, infos):
        f = x.func.func
        by_key[f"{f.name.name}.{f.name.overload_name}"] = x
    out = ["typedef struct { const char *outs; uint64_t req_t, req_p; uint8_t orig_self, reuse; const char *prog; } tn_fw_deriv;",
           "/* kind: 0 no tangent (not differentiable), 1 formulas, 2 differentiable without a forward formula",
           " * (upstream refuses), 3 formulas torchnative cannot evaluate (refuses by name) */",
           "typedef struct { uint8_t kind, n; const tn_fw_deriv *d; } tn_op_fw_def;"]
    table = []
    stats = {}
    for idx, r in enumerate(rows):
        x = by_key.get(r["key"])
        if r["key"] not in impl or x is None or "::" in r["name"]:
            table.append("{0, 0, NULL}")
            continue
        info = (x.info or {}).get("Default")
        fws = (x.fw_derivatives or {}).get("Default") or []
        if info is None or r["name"] in DONT_REQUIRE_DERIVATIVE:
            table.append("{0, 0, NULL}")
            continue
        if not fws:
            has_diff = any(dv.var_names for dv in info.derivatives)
            table.append("{%d, 0, NULL}" % (2 if has_diff else 0))
            stats[2 if has_diff else 0] = stats.get(2 if has_diff else 0, 0) + 1
            continue
        names = arg_names(r["func"])
        # an in-place foreach op's formulas are its reference op's (mul_.Scalar's `other` is
        # _foreach_mul_.Scalar's `scalar`): its argument names, position by position
        ref_args = [a.name for a in info.func.func.arguments.flat_all]
        rename = dict((a, b) for a, b in zip(ref_args, names) if a != b) if r["name"].startswith("_foreach_") else {}
        ds, ok = [], True
        for fw in fws:
            # a foreach formula runs once per list element i (src/autograd/forward_formulas.c):
            # `result[i]`, `scalars[i]` read element i
            formula = fw.formula
            if rename:   # one pass, so that names swapped between the two ops stay apart
                formula = re.sub(r"\b(%s)(_t_raw|_t|_p)?\b" % "|".join(rename),
                                 lambda m: rename[m.group(1)] + (m.group(2) or ""), formula)
            prog = translate(re.sub(r"\b(\w+)\[i\]", r"foreach_elem_(\1, i)", formula))
            try:
                prog = prog and inline_helpers(prog)
            except Unsupported:
                prog = None
            if prog is None:
                ok = False
                break
            req_t = {rename.get(n, n) for n in fw.required_inputs_fw_grad or ()}
            req_p = {rename.get(n, n) for n in fw.required_inputs_primal or ()}
            rt = sum(1 << i for i, n in enumerate(names) if n in req_t and i < 64)
            rp = sum(1 << i for i, n in enumerate(names) if n in req_p and i < 64)
            prog_c = prog.replace("\\", "\\\\").replace('"', '\\"')
            ds.append('{"%s", %dULL, %dULL, %d, %d, "%s"}' % (" ".join(fw.var_names), rt, rp,
                                                              int(fw.required_original_self_value),
                                                              int(fw.is_reusing_outplace_formula), prog_c))
        if not ok:
            table.append("{3, 0, NULL}")
            stats[3] = stats.get(3, 0) + 1
            continue
        stats[1] = stats.get(1, 0) + 1
        out.append(f"static const tn_fw_deriv tn_fw_d{idx}[] = {{" + ", ".join(ds) + "};")
        table.append(f"{{1, {len(ds)}, tn_fw_d{idx}}}")
    out.append(f"/* implemented overloads by kind: {dict(sorted(stats.items()))} */")
    out.append("static const tn_op_fw_def tn_op_fw_defs[TN_OP_COUNT] = {")
    out += [f"    {t}," for t in table]
    out.append("};")
    return out
