#!/usr/bin/env python3
"""check_schema.py — compare our C schema parser (src/dispatch/schema.c) and its Python face
(src/python/schema_type.c) with upstream torch 2.13.0's own torch._C.parse_schema.

Run with the reference interpreter (it imports upstream torch):
    /work/main/.venv-ref/bin/python tools/dev/check_schema.py [--build-dir DIR] [-v]

Phase 1 (C structs, via ctypes): builds schema.c into a shared library, parses every `func:` entry
of upstream's native_functions.yaml (bare and with an "aten::" prefix) and compares name, overload,
each argument's/return's name, type, optional/list/element-optional, list size, kwarg_only, default
(the text converted to a Python value), alias sets and is_write with upstream's objects.
Phase 2 (robustness): a small C driver built with AddressSanitizer parses every prefix and many
random mutations of the schemas, and checks that tn_schema_format round-trips.
Phase 3 (Python types): builds a throwaway limited-API extension from schema.c + schema_type.c and
compares str(schema), name, overload_name, is_mutable, and per argument type str/kind, real_type,
default_value (value and type), N, kwarg_only, alias_info, is_out, plus extra hand-written schemas
and the exception raised on bad text.
Prints match counts; exit status 1 on any mismatch.
"""
import argparse
import ctypes
import os
import random
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC_SCHEMA = os.path.join(ROOT, "src", "dispatch", "schema.c")
SRC_PYTYPE = os.path.join(ROOT, "src", "python", "schema_type.c")

TYPE_NAMES = ["Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType", "Layout",
              "Device", "DeviceIndex", "MemoryFormat", "Generator", "Dimname", "Storage", "Stream",
              "QScheme", "complex", "Any", "DimVector", "SymBool"]
REAL_KIND = {"Tensor": "TensorType", "int": "IntType", "SymInt": "SymIntType", "float": "FloatType",
             "bool": "BoolType", "str": "StringType", "Scalar": "NumberType",
             "ScalarType": "ScalarTypeType", "Layout": "LayoutType", "Device": "DeviceObjType",
             "DeviceIndex": "IntType", "MemoryFormat": "MemoryFormatType",
             "Generator": "GeneratorType", "Storage": "StorageType", "Stream": "StreamObjType",
             "QScheme": "QSchemeType", "complex": "ComplexType", "Any": "AnyType",
             "SymBool": "SymBoolType"}
FAKE_STR = {"Tensor": "Tensor", "int": "int", "SymInt": "int", "float": "float", "bool": "bool",
            "str": "str", "Scalar": "number", "ScalarType": "int", "Layout": "int",
            "Device": "Device", "DeviceIndex": "int", "MemoryFormat": "int",
            "Generator": "Generator", "Storage": "Storage", "Stream": "Stream",
            "QScheme": "QScheme", "complex": "complex", "Any": "Any", "SymBool": "bool"}
IDENTS = {"Mean": 1, "contiguous_format": 0, "strided": 0, "long": 4, "float": 6, "complex": 9}


class TnArg(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("optional", ctypes.c_bool),
                ("is_list", ctypes.c_bool), ("elem_optional", ctypes.c_bool),
                ("list_size", ctypes.c_int), ("kwarg_only", ctypes.c_bool),
                ("default_text", ctypes.c_char_p), ("alias_set", ctypes.c_char),
                ("is_write", ctypes.c_bool), ("alias_before", ctypes.c_char_p),
                ("alias_after", ctypes.c_char_p), ("alias_on_elem", ctypes.c_bool)]


class TnSchema(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("ns", ctypes.c_char_p), ("overload", ctypes.c_char_p),
                ("nargs", ctypes.c_int), ("nrets", ctypes.c_int),
                ("args", ctypes.POINTER(TnArg)), ("rets", ctypes.POINTER(TnArg)),
                ("is_vararg", ctypes.c_bool), ("is_varret", ctypes.c_bool)]


def sh(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"command failed: {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r


def yaml_schemas():
    import yaml
    import torchgen
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")
    with open(path) as f:
        entries = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return [e["func"] for e in entries if isinstance(e, dict) and "func" in e]


def default_value(text, arg):
    """Python value of a default as written (reference conversion for phase 1)."""
    import ast
    base = TYPE_NAMES[arg.type]
    if text in IDENTS:
        return IDENTS[text]
    v = ast.literal_eval(text)
    if arg.is_list and not arg.optional and not isinstance(v, list):
        v = [v] * arg.list_size
    if base == "float" and not arg.optional and not arg.elem_optional:
        v = [float(x) for x in v] if isinstance(v, list) else float(v) if v is not None else v
    return v


def alias_tuple(ai):
    return None if ai is None else (ai.is_write, frozenset(ai.before_set), frozenset(ai.after_set))


def expect_types(a):
    base = TYPE_NAMES[a.type]
    kinds = []
    fake = FAKE_STR[base]
    if a.elem_optional:
        fake = f"Optional[{fake}]"
    if a.is_list:
        fake = f"List[{fake}]"
    if a.optional:
        fake = f"Optional[{fake}]"
    if a.optional:
        kinds.append("OptionalType")
    if a.is_list:
        kinds.append("ListType")
    if a.elem_optional:
        kinds.append("OptionalType")
    kinds.append(REAL_KIND[base])
    return fake, kinds


def real_kinds(t):
    out = [t.kind()]
    while out[-1] in ("OptionalType", "ListType"):
        t = t.getElementType()
        out.append(t.kind())
    return out


def compare_arg(a, u, is_ret):
    errs = []
    name = (a.name or b"").decode()
    if name != u.name:
        errs.append(f"name {name!r} != {u.name!r}")
    fake, kinds = expect_types(a)
    if fake != str(u.type):
        errs.append(f"type {fake} != {u.type}")
    if kinds != real_kinds(u.real_type):
        errs.append(f"kinds {kinds} != {real_kinds(u.real_type)}")
    n = a.list_size if a.is_list and a.list_size >= 0 else None
    if n != u.N:
        errs.append(f"N {n} != {u.N}")
    if bool(a.kwarg_only) != u.kwarg_only:
        errs.append(f"kwarg_only {a.kwarg_only} != {u.kwarg_only}")
    if not is_ret:
        has = a.default_text is not None
        if has != u.has_default_value():
            errs.append(f"has_default {has} != {u.has_default_value()}")
        elif has:
            v = default_value(a.default_text.decode(), a)
            uv = u.default_value
            if v != uv or type(v) is not type(uv):
                errs.append(f"default {a.default_text!r}->{v!r} != {uv!r}")
    if a.alias_before is None:
        mine = None
    elif a.alias_on_elem:
        mine = (bool(a.is_write), frozenset(), frozenset())
    else:
        mine = (bool(a.is_write), frozenset(a.alias_before.decode().split("|")),
                frozenset(a.alias_after.decode().split("|")))
    if mine != alias_tuple(u.alias_info):
        errs.append(f"alias {mine} != {alias_tuple(u.alias_info)}")
    if a.alias_before is not None and a.alias_set != a.alias_before[:1]:
        errs.append("alias_set char inconsistent")
    return errs


def phase1(lib, schemas, torch, verbose):
    parse = lib.tn_schema_parse
    parse.argtypes = [ctypes.c_char_p, ctypes.POINTER(TnSchema), ctypes.c_char_p, ctypes.c_int]
    lib.tn_schema_free.argtypes = [ctypes.POINTER(TnSchema)]
    ok = total = 0
    for text0 in schemas:
        for text in (text0, "aten::" + text0):
            total += 1
            s = TnSchema()
            err = ctypes.create_string_buffer(1024)
            if parse(text.encode(), ctypes.byref(s), err, 1024) != 0:
                print(f"PARSE FAIL {text}\n  {err.value.decode()}")
                continue
            u = torch._C.parse_schema(text)
            errs = []
            full = (s.ns.decode() + "::" if s.ns else "") + s.name.decode()
            if full != u.name:
                errs.append(f"name {full} != {u.name}")
            if s.overload.decode() != u.overload_name:
                errs.append("overload")
            if s.nargs != len(u.arguments) or s.nrets != len(u.returns):
                errs.append(f"counts {s.nargs}/{s.nrets} vs {len(u.arguments)}/{len(u.returns)}")
            else:
                for i in range(s.nargs):
                    errs += [f"arg {i}: {e}" for e in compare_arg(s.args[i], u.arguments[i], False)]
                for i in range(s.nrets):
                    errs += [f"ret {i}: {e}" for e in compare_arg(s.rets[i], u.returns[i], True)]
            lib.tn_schema_free(ctypes.byref(s))
            if errs:
                print(f"MISMATCH {text}\n  " + "\n  ".join(errs))
            else:
                ok += 1
    print(f"phase 1 (C structs vs upstream): {ok}/{total} schemas match")
    return ok == total


DRIVER = r"""
#include "schema.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static unsigned long long rng = 88172645463325252ull;
static unsigned r(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)rng; }
int main(void) {
    static char line[8192], buf[8192], fmt1[16384], fmt2[16384], err[512];
    long ok = 0, prefixes = 0, mut = 0, mut_ok = 0, bad = 0;
    const char junk[] = "()[]?!*,.:->|= aZ_0'\"\\9e-";
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        tn_schema s;
        if (tn_schema_parse(line, &s, err, sizeof err)) { printf("FAIL %s\n%s\n", line, err); bad++; continue; }
        tn_schema_format(&s, fmt1, sizeof fmt1);
        tn_schema_free(&s);
        if (tn_schema_parse(fmt1, &s, err, sizeof err)) { printf("REPARSE FAIL %s\n", fmt1); bad++; continue; }
        tn_schema_format(&s, fmt2, sizeof fmt2);
        tn_schema_free(&s);
        if (strcmp(fmt1, fmt2)) { printf("ROUNDTRIP %s\n  %s\n  %s\n", line, fmt1, fmt2); bad++; }
        ok++;
        size_t n = strlen(line);
        for (size_t k = 0; k < n; k++) {   /* every proper prefix: must fail cleanly or parse */
            memcpy(buf, line, k); buf[k] = 0;
            prefixes++;
            if (tn_schema_parse(buf, &s, err, sizeof err) == 0) tn_schema_free(&s);
            else if (!err[0]) { printf("EMPTY ERR for prefix %s\n", buf); bad++; }
        }
        for (int m = 0; m < 40; m++) {      /* random mutations */
            strcpy(buf, line);
            int edits = 1 + r() % 3;
            for (int e = 0; e < edits; e++) {
                size_t L = strlen(buf);
                size_t at = L ? r() % L : 0;
                switch (r() % 3) {
                case 0: buf[at] = junk[r() % (sizeof junk - 1)]; break;
                case 1: memmove(buf + at, buf + at + 1, L - at); break;
                default: if (L + 2 < sizeof buf) { memmove(buf + at + 1, buf + at, L - at + 1); buf[at] = junk[r() % (sizeof junk - 1)]; }
                }
            }
            mut++;
            if (tn_schema_parse(buf, &s, err, sizeof err) == 0) { mut_ok++; tn_schema_format(&s, fmt1, 64); tn_schema_free(&s); }
            else if (!err[0]) { printf("EMPTY ERR for %s\n", buf); bad++; }
            /* tiny error buffers must be safe too */
            if (tn_schema_parse(buf, &s, err, 3) == 0) tn_schema_free(&s);
            if (tn_schema_parse(buf, &s, NULL, 0) == 0) tn_schema_free(&s);
        }
    }
    printf("driver: %ld parsed+roundtrip, %ld prefixes, %ld mutations (%ld still valid), %ld problems\n",
           ok, prefixes, mut, mut_ok, bad);
    return bad != 0;
}
"""


def phase2(build, schemas):
    drv = os.path.join(build, "driver.c")
    with open(drv, "w") as f:
        f.write(DRIVER)
    exe = os.path.join(build, "driver_asan")
    sh(["gcc", "-std=c11", "-Wall", "-Wextra", "-g", "-O1", "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all", "-I", os.path.dirname(SRC_SCHEMA), drv, SRC_SCHEMA,
        "-o", exe])
    extra = ["foo(Tensor x) -> Tensor", "aten::foo(int[2] a=[1,1]) -> ()",
             "f(Tensor x) -> (Tensor a, Tensor b)", "f(...) -> ...", "f(Tensor x, ...) -> (Tensor, ...)",
             "f(Tensor(a -> *)[] x) -> Tensor(a -> *)[]", "f(Tensor(a|b) x) -> Tensor[](c)",
             "f(str s='\"\\'\\\\', float y=1e-5, *, ScalarType t=float32) -> ()"]
    inp = "\n".join(schemas + ["aten::" + s for s in schemas[:200]] + extra) + "\n"
    r = subprocess.run([exe], input=inp, capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip().splitlines()
    print("\n".join(out[-20:]))
    print(f"phase 2 (robustness, ASan+UBSan): {'ok' if r.returncode == 0 else 'FAILED'}")
    return r.returncode == 0


TESTMOD = r"""
#include <Python.h>
#include "schema_type.h"
static int exec_mod(PyObject *m) { return tn_schema_types_init(m); }
static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_mod}, {0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "tn_schema_test", NULL, 0, NULL, slots};
PyMODINIT_FUNC PyInit_tn_schema_test(void) { return PyModuleDef_Init(&def); }
"""

EXTRA = [
    "foo(Tensor x) -> Tensor", "aten::foo(int[2] a=[1,1]) -> ()", "aten::foo(int[2] a=[1,2]) -> ()",
    "f(Tensor x) -> (Tensor a, Tensor b)", "f(Tensor x) -> (Tensor, Tensor)", "f(...) -> ...",
    "f(Tensor x, ...) -> (Tensor, ...)", "f(Tensor(a -> *)[] x) -> Tensor(a -> *)[]",
    "f(Tensor(a!)[] x) -> ()", "f(Tensor(a) x) -> Tensor(a)", "f(Tensor(*) x) -> ()",
    "f(Tensor(a!)? x, Tensor(b)?[] y, Tensor(c!)[] z, Tensor[](d) w) -> ()", "f(int[] x=[1,1], int[1] y=1, SymInt[2] z=1) -> ()",
    "f(float a=1, float b=-2.5, float c=1e-5, float d=0.1, float e=1e300, float g=9.3e18) -> ()",
    "f(Scalar a=1, Scalar b=1.0, Scalar? c=None, float? d=1, int e=True, bool f=1) -> ()",
    "f(str a='mean', str b=\"x\", str? c=None, str d='\"\\'\\\\', str e='a\\nb\\tc') -> ()",
    "f(ScalarType a=long, ScalarType b=float32, ScalarType? c=None, MemoryFormat d=contiguous_format,"
    " Layout e=strided, int f=Mean) -> ()",
    "f(bool[3] a=[True,False,True], float[] b=[1, 2.5], int[1]? c=None, float[]? d=None) -> ()",
    "f(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", "f(*, Tensor x) -> ()", "f(Tensor x, *) -> ()",
    "f(Storage s, Stream t, QScheme q, complex c, Any a, Device? d=None, Generator? g=None,"
    " DeviceIndex i=-1, SymBool? b=None) -> Tensor[]", "f(Tensor x) -> SymBool",
    "f(Tensor x, ...) -> ()", "f(Tensor(a -> b) x, Tensor(*) y) -> (Tensor(a) r, ...)",
    "f(Tensor(a) self, SymInt[] size) -> Tensor(a)", "f(int[1] d=[], int[2] k=[-1,-1]) -> ()", "f(int x) -> float[]", "f(Tensor x) -> Tensor?",
    "f(Tensor x) -> Tensor(a) y", "quantized::f.o(Tensor x) -> int",
]
BAD = ["", "f(", "f(Tensor x", "f(Tensor x) ->", "f(Foo x) -> ()", "f(Tensor x) -> Tensor junk",
       "f.default(Tensor x) -> ()", "f(int x=1, int y) -> ()", "f(Tensor(a x) -> ()",
       "f(float c=inf) -> ()", "f(Dimname d) -> ()", "f(Tensor x=1) -> ()", "f(int[] x=None) -> ()"]


def phase3(build, schemas, torch, verbose):
    if not os.path.exists(SRC_PYTYPE):
        print("phase 3 skipped: no src/python/schema_type.c")
        return True
    src = os.path.join(build, "testmod.c")
    with open(src, "w") as f:
        f.write(TESTMOD)
    inc = sysconfig.get_paths()["include"]
    so = os.path.join(build, "tn_schema_test.abi3.so")
    sh(["gcc", "-std=c11", "-Wall", "-Wextra", "-O1", "-g", "-shared", "-fPIC",
        "-DPy_LIMITED_API=0x030B0000", "-I", inc, "-I", os.path.dirname(SRC_PYTYPE),
        "-I", os.path.dirname(SRC_SCHEMA), src, SRC_PYTYPE, SRC_SCHEMA, "-o", so])
    sys.path.insert(0, build)
    import tn_schema_test as m

    def argdesc(a):
        ty, rt = a.type, a.real_type
        d = [a.name, str(ty), ty.kind(), str(rt), rt.kind(), a.N, a.kwarg_only,
             alias_tuple(a.alias_info), a.is_out, a.is_write]
        for t in (ty, rt):
            if t.kind() in ("OptionalType", "ListType"):
                e = t.getElementType()
                d += [str(e), e.kind()]
        return d

    def desc(s):
        d = [str(s), s.name, s.overload_name, s.is_mutable, len(s.arguments), len(s.returns)]
        for a in s.arguments:
            d.append(argdesc(a) + [a.has_default_value(), repr(a.default_value),
                                   type(a.default_value).__name__])
        for a in s.returns:
            d.append(argdesc(a))
        return d

    ok = total = 0
    for text in schemas + ["aten::" + s for s in schemas] + EXTRA:
        total += 1
        try:
            mine = desc(m.parse_schema(text))
        except Exception as e:
            print(f"PY FAIL {text}: {type(e).__name__}: {e}")
            continue
        theirs = desc(torch._C.parse_schema(text))
        if mine == theirs:
            ok += 1
        else:
            print(f"PY MISMATCH {text}")
            for x, y in zip(mine, theirs):
                if x != y:
                    print(f"   ours {x}\n   upstream {y}")
    bad_ok = 0
    for text in BAD:
        try:
            torch._C.parse_schema(text)
            up = None
        except Exception as e:
            up = type(e)
        try:
            m.parse_schema(text)
            ours = None
        except Exception as e:
            ours = type(e)
        if ours is up:
            bad_ok += 1
        else:
            print(f"PY ERROR TYPE {text!r}: ours {ours} upstream {up}")
    # equality / hashing
    a, b = m.parse_schema(schemas[0]), m.parse_schema(schemas[0])
    eq_ok = a == b and hash(a) == hash(b) and a != m.parse_schema(schemas[1])
    print(f"phase 3 (Python types vs upstream): {ok}/{total} schemas match; "
          f"bad-text exception types {bad_ok}/{len(BAD)}; eq/hash {'ok' if eq_ok else 'BAD'}")
    return ok == total and bad_ok == len(BAD) and eq_ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    build = args.build_dir or tempfile.mkdtemp(prefix="check_schema_")
    os.makedirs(build, exist_ok=True)
    lib_path = os.path.join(build, "libtn_schema.so")
    sh(["gcc", "-std=c11", "-Wall", "-Wextra", "-O2", "-shared", "-fPIC", SRC_SCHEMA, "-o", lib_path])
    import torch
    schemas = yaml_schemas()
    print(f"{len(schemas)} schemas in native_functions.yaml")
    good = phase1(ctypes.CDLL(lib_path), schemas, torch, args.verbose)
    good &= phase2(build, schemas)
    good &= phase3(build, schemas, torch, args.verbose)
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
