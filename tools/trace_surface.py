"""Measure which torch._C names upstream reads, calls, and tests for absence.

Run under the reference environment (upstream torch 2.13.0):

    .venv-ref/bin/python tools/trace_surface.py trace OUT.json [--run SNIPPET] MODULE...

torch._C and its submodules are replaced by recording proxies while MODULEs are imported (and the
optional snippet is run). For every `torch._C[.sub].name` read we record its kind (module, class,
callable, or the constant's type and value) or ABSENT when upstream probed for it and it was
missing; every plain callable is wrapped so calls are counted together with the kind of value
they returned. Classes are not wrapped (isinstance and subclassing must keep working).

    python tools/trace_surface.py header IN.json... > src/python/surface_names.h

turns one or more traces into the committed X-macro list the C surface is generated from.
"""
import collections
import importlib
import importlib.abc
import importlib.util
import json
import sys
import types

# ---------------------------------------------------------------------------------------------
# tracing

ACC = collections.OrderedDict()     # "torch._C.x.y" -> record
PHASE = ["import"]


def _kind(v):
    if isinstance(v, types.ModuleType):
        return "module"
    if isinstance(v, type):
        return "class"
    if callable(v):
        return "callable"
    return type(v).__name__


def _record(key, v):
    r = ACC.get(key)
    if r is None:
        r = ACC[key] = {"kind": _kind(v) if v is not _ABSENT else "ABSENT", "phase": PHASE[0]}
        if v is not _ABSENT:
            if isinstance(v, (bool, int, float, str)):
                r["value"] = v
            elif r["kind"] == "class":
                r["metaclass"] = type(v).__name__
                r["bases"] = [b.__name__ for b in v.__bases__]
            elif r["kind"] not in ("module", "callable"):
                r["type"] = type(v).__name__
    return r


_ABSENT = object()


_CLASSES_SEEN = set()
_FN_KEYS = {}    # id(builtin function read from a _C module) -> "torch._C.x.name"
CALLS = collections.OrderedDict()   # called method/ctor of a _C type -> count


def _profile(frame, event, arg):
    """sys.setprofile hook: count calls of _C functions and of methods of _C types."""
    if event != "c_call":
        return
    key = _FN_KEYS.get(id(arg))
    if key is not None:
        r = ACC[key]
        r["calls"] = r.get("calls", 0) + 1
        r.setdefault("call_phase", PHASE[0])
        return
    self = getattr(arg, "__self__", None)
    if self is None or isinstance(self, types.ModuleType):
        return
    t = self if isinstance(self, type) else type(self)
    mod = getattr(t, "__module__", "") or ""
    if mod.startswith("torch._C") or mod == "torch":
        if t.__name__ in ("Tensor", "Parameter") and mod == "torch":
            t_name = "TensorBase"
        else:
            t_name = t.__name__
        k = f"{t_name}.{getattr(arg, '__name__', '?')}"
        CALLS[k] = CALLS.get(k, 0) + 1


_WRAPPED = {}


def _wrap_module(name, real):
    if name in _WRAPPED:
        return _WRAPPED[name]

    class P(types.ModuleType):
        def __getattribute__(self, a):
            try:
                v = getattr(real, a)
            except AttributeError:
                try:
                    v = types.ModuleType.__getattribute__(self, a)
                except AttributeError:
                    _record(name + "." + a, _ABSENT)
                    raise
            if a.startswith("__") and a.endswith("__"):
                return v
            key = name + "." + a
            _record(key, v)
            if isinstance(v, types.ModuleType) and v.__name__.startswith("torch._C"):
                return _wrap_module(v.__name__, v)
            if isinstance(v, types.BuiltinFunctionType):
                _FN_KEYS[id(v)] = key
            elif isinstance(v, type) and key not in _CLASSES_SEEN:
                _CLASSES_SEEN.add(key)
                for an, av in vars(v).items():
                    if isinstance(av, (staticmethod, classmethod)):
                        av = getattr(v, an, None)
                    if isinstance(av, types.BuiltinFunctionType):
                        _FN_KEYS[id(av)] = key + "." + an
                        ACC.setdefault(key + "." + an, {"kind": "method", "phase": PHASE[0]})
            return v

        def __setattr__(self, a, v):
            setattr(real, a, v)

        def __dir__(self):
            return dir(real)

    p = P(name)
    p.__dict__["__file__"] = getattr(real, "__file__", None)
    _WRAPPED[name] = p
    return p


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname != "torch._C":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        sys.meta_path.insert(0, self)

        class L(importlib.abc.Loader):
            def create_module(s, spec2):
                real = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(real)

                # upstream registers _C's submodules in sys.modules and then imports from them
                # directly (from torch._C._autograd import ...): hand it proxies to register
                def wrap_subs(mod):
                    for n, v in list(vars(mod).items()):
                        if isinstance(v, types.ModuleType) and v.__name__.startswith("torch._C."):
                            wrap_subs(v)
                            setattr(mod, n, _wrap_module(v.__name__, v))

                wrap_subs(real)
                for n, v in list(sys.modules.items()):
                    if n.startswith("torch._C.") and isinstance(v, types.ModuleType):
                        sys.modules[n] = _wrap_module(v.__name__, v)
                return _wrap_module("torch._C", real)

            def exec_module(s, m):
                pass

        return importlib.util.spec_from_loader(fullname, L())


def trace(out, mods, run=None):
    import builtins
    import threading
    orig_import = builtins.__import__

    # `from torch._C._x import y` reads y from the module in sys.modules, which upstream (or our
    # _C) registered itself: answer such imports with the recording proxy
    def traced_import(name, globals=None, locals=None, fromlist=(), level=0):
        mod = orig_import(name, globals, locals, fromlist, level)
        if fromlist and isinstance(mod, types.ModuleType) and mod.__name__.startswith("torch._C"):
            return _wrap_module(mod.__name__, mod)
        return mod

    builtins.__import__ = traced_import
    sys.meta_path.insert(0, _Finder())
    sys.setprofile(_profile)
    threading.setprofile(_profile)
    for m in mods:
        importlib.import_module(m)
    if run:
        PHASE[0] = "run"
        exec(run, {})
    sys.setprofile(None)
    ACC["__method_calls__"] = CALLS
    with open(out, "w") as f:
        json.dump(ACC, f, indent=0)
    called = sum(1 for r in ACC.values() if r.get("calls"))
    print(f"{len(ACC)} names, {called} called", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# header generation

# Names whose presence switches an upstream subsystem on that we do not provide (yet): they stay
# absent even though upstream (with the subsystem) reads them.
FORCE_ABSENT = {"torch._C._rpc_init", "torch._C._dist_autograd_init"}

KINDS = {"module": "MODULE", "class": "CLASS", "callable": "FUNC", "ABSENT": "ABSENT"}


def header(paths):
    recs = collections.OrderedDict()
    for p in paths:
        for k, r in json.load(open(p)).items():
            if k == "__method_calls__" or r.get("kind") == "method":
                continue
            if k.endswith("__path__") or k.endswith("__all__"):
                continue
            if k in FORCE_ABSENT:
                r = {"kind": "ABSENT"}
            old = recs.get(k)
            if old is None or old["kind"] == "ABSENT":
                recs[k] = r
    lines = []
    for k, r in recs.items():
        if r["kind"] == "ABSENT":
            continue       # absent names are simply never created
        if k.split(".")[2].startswith(DISTRIBUTED_ONLY):
            continue       # exist only where torch.distributed is available (not yet here)
        parts = k.split(".")[2:]          # strip "torch._C"
        owner = ".".join(parts[:-1])
        leaf = parts[-1]
        kind = KINDS.get(r["kind"], "CONST")
        lines.append((owner, leaf, kind, r))
    # modules first, parents before children, so the C side can create owners before members
    lines.sort(key=lambda t: (t[2] != "MODULE", t[0].count(".") + (t[0] != ""), t[0], t[1]))
    print("/* surface_names.h — generated by tools/trace_surface.py from traces of upstream torch")
    print(" * 2.13.0 importing torch, torch.nn, torch.optim, torch.utils.data, torch.autograd,")
    print(" * torch.distributed, transformers and safetensors.torch. Our own list: the names of torch._C")
    print(" * that upstream reads. TN_SURF(owner, name, kind, type, str_value): owner is the dotted path")
    print(" * below torch._C (\"\" for torch._C itself); kind MODULE, CLASS, FUNC, or CONST; for constants,")
    print(" * type is upstream's type name (for classes: the metaclass) and str_value upstream's value when it is a string (a file-format")
    print(" * constant); other constant values are ours, set in surface.c. The surface only creates names")
    print(" * still missing after the real inits ran. */")
    for owner, leaf, kind, r in lines:
        typ = r.get("type") or (r["kind"] if kind == "CONST" else "")
        if kind == "CLASS":
            typ = r.get("metaclass", "type")
        note = ""
        if r.get("calls"):
            note = f" /* called ({r.get('call_phase')}) */"
        val = json.dumps(r["value"]) if isinstance(r.get("value"), str) else "NULL"
        print(f'TN_SURF("{owner}", "{leaf}", {kind}, "{typ}", {val}){note}')
    absent = [k for k, r in recs.items() if r["kind"] == "ABSENT"]
    print("/* Probed for absence by upstream, deliberately never created:")
    for k in absent:
        print(f" *   {k}")
    print(" */")


# torch._C submodules of torch.distributed: made by src/python/distributed.c from their own list
# (tools/dist_surface.py -> surface_dist.h), not by the generic surface.
DISTRIBUTED_ONLY = ("_distributed",)


def enums():
    """Print the enum classes of torch._C (pybind11 enums: they have __members__) as C data."""
    import torch
    seen, out = set(), []

    def walk(mod, owner):
        for name in sorted(vars(mod)):
            v = getattr(mod, name)
            if isinstance(v, types.ModuleType) and v.__name__.startswith("torch._C") and v not in seen:
                seen.add(v)
                walk(v, v.__name__[len("torch._C."):] if v.__name__ != "torch._C" else "")
            elif owner.startswith(DISTRIBUTED_ONLY):
                continue
            elif isinstance(v, type) and "pybind11" in type(v).__name__ and hasattr(v, "__members__"):
                mem = [(k, int(m)) for k, m in v.__members__.items()]
                out.append((owner, name, "torch._C" + ("." + owner if owner else ""), v.__qualname__, mem))

    seen.add(torch._C)
    walk(torch._C, "")
    print("/* surface_enums.h — generated by tools/trace_surface.py enums: the enum classes of upstream")
    print(" * torch 2.13.0's torch._C with their members and values, measured from upstream. */")
    for i, (owner, name, module, qual, mem) in enumerate(out):
        body = ", ".join(f'{{"{k}", {v}}}' for k, v in mem)
        print(f"static const tn_enum_member tn_enum_m{i}[] = {{{body}, {{NULL, 0}}}};")
    print("static const tn_enum_spec tn_enum_specs[] = {")
    for i, (owner, name, module, qual, mem) in enumerate(out):
        print(f'    {{"{owner}", "{name}", "{module}", "{qual}", tn_enum_m{i}}},')
    print("    {NULL, NULL, NULL, NULL, NULL},\n};")
    # DispatchKeySet constants, as the DispatchKey names they contain (keys upstream has only
    # inside key sets, e.g. Fake or Metal, are not DispatchKey members and are left out)
    C = torch._C
    members = C.DispatchKey.__members__
    sets = [(n, getattr(C, n)) for n in ("_additional_keys_to_prop_for_wrapper_tensors",
            "_after_ADInplaceOrView_keyset", "_after_autograd_keyset", "_dispatch_autogradother_backends")]
    sets.append(("_dispatch_keyset_full", C._dispatch_keyset_full()))
    print("static const tn_keyset_spec tn_keyset_specs[] = {")
    for n, ks in sets:
        names = [x.strip() for x in repr(ks)[len("DispatchKeySet("):-1].split(",")]
        names = [x for x in names if x in members]
        print(f'    {{"{n}", "' + " ".join(names) + '"},')
    print("    {NULL, NULL},\n};")


def tensor_attrs():
    """Print the attributes of upstream's torch._C.TensorBase as C data: TN_TATTR(name, kind),
    kind METHOD (a method) or PROPERTY (a data descriptor)."""
    import torch
    tb = torch._C.TensorBase
    print("/* surface_tensor.h — generated by tools/trace_surface.py tensor: the methods and properties")
    print(" * of upstream torch 2.13.0's torch._C.TensorBase (dunders object lacks included). The surface adds a refusing stand-in for")
    print(" * each one the tensor type does not define, so upstream's class bodies that reference")
    print(" * them (e.g. nn.parameter) import; calls raise NotImplementedError naming the method. */")
    for name in sorted(vars(tb)):
        v = vars(tb)[name]
        if name.startswith("__") and name.endswith("__") and (
                hasattr(object, name) or not callable(v) or name in ("__dict__", "__weakref__")):
            continue
        kind = "PROPERTY" if hasattr(v, "__set__") or type(v).__name__ == "getset_descriptor" else "METHOD"
        print(f'TN_TATTR("{name}", {kind})')


def varfuncs():
    """Print the names of upstream's torch._C._VariableFunctions (copied into torch by upstream)."""
    import torch
    print("/* surface_vf.h — generated by tools/trace_surface.py varfuncs: the functions upstream torch")
    print(" * 2.13.0's torch._C._VariableFunctions holds (torch/__init__.py copies them into torch). The")
    print(" * surface adds a refusing function for each one functions.c does not provide. */")
    for name in sorted(dir(torch._C._VariableFunctions)):
        if not name.startswith("__"):
            print(f'TN_VF("{name}")')


def class_attrs(paths):
    """Print the methods/properties of every torch._C class in the traces: TN_CATTR(owner, class,
    name, kind). Upstream reads some of them at import (e.g. torch.Stream.query in _torch_docs)."""
    import torch
    seen = set()
    print("/* surface_class.h — generated by tools/trace_surface.py classes: the methods (METHOD) and")
    print(" * data descriptors (PROPERTY) of upstream torch 2.13.0's torch._C classes that upstream reads.")
    print(" * The surface gives each refusing class a refusing stand-in for each. */")
    for p in paths:
        for k, r in json.load(open(p)).items():
            if k == "__method_calls__" or not isinstance(r, dict) or r.get("kind") != "class" or k in seen:
                continue
            seen.add(k)
            obj = torch
            for part in k.split(".")[1:]:
                obj = getattr(obj, part, None)
            if not isinstance(obj, type):
                continue
            parts = k.split(".")[2:]
            owner, cname = ".".join(parts[:-1]), parts[-1]
            for name, v in sorted(vars(obj).items()):
                if name.startswith("__") or name.startswith("_pybind11"):
                    continue
                if isinstance(v, (staticmethod, classmethod)) or callable(v):
                    kind = "METHOD"
                elif hasattr(v, "__get__") and (hasattr(v, "__set__") or type(v).__name__ in ("property", "getset_descriptor", "member_descriptor")):
                    kind = "PROPERTY"
                else:
                    continue
                print(f'TN_CATTR("{owner}", "{cname}", "{name}", {kind})')


if __name__ == "__main__":
    if sys.argv[1] == "trace":
        args = sys.argv[3:]
        run = None
        if args and args[0] == "--run":
            run = args[1]
            args = args[2:]
        trace(sys.argv[2], args, run)
    elif sys.argv[1] == "classes":
        class_attrs(sys.argv[2:])
    elif sys.argv[1] == "varfuncs":
        varfuncs()
    elif sys.argv[1] == "tensor":
        tensor_attrs()
    elif sys.argv[1] == "enums":
        enums()
    elif sys.argv[1] == "header":
        header(sys.argv[2:])
    else:
        sys.exit(__doc__)
